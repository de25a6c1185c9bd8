/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_bnpool_fast.c - the packed paths of the cuda batch norm (src/cuda/batchnorm.cu: the
 * multi-block SPATIAL statistics of the *Ex / v8 entries, 128-bit apply passes) and of pooling
 * (src/cuda/pooling.cu: channels-last vectors) against the ref backend (gpu_mirror.h).
 *
 * Batch norm: training and backward (saved and recomputed statistics), SPATIAL and
 * SPATIAL_PERSISTENT, NCHW and NHWC packed, 4-d and 5-d, FLOAT / HALF / BFLOAT16, C = 64, 96
 * (a non-power-of-two row tree) and 256, N*H*W up to 65536 (4M elements), BN and
 * BN_ACTIVATION, alpha/beta {1, 0} and {0.5, 0.25}, in place, a last chunk cut short; the
 * fallbacks are exercised too: the legacy entries (no workspace: the handle's scratch serves
 * them, every type and layout at C = 256), misaligned data pointers; channels of more than
 * BN_PK_MAX_CHUNKS chunks (the chunk grows) with a workspace and with the scratch.
 * Real fills, gm_tol with the group size as the term count (as test_gpu_bn.c).
 * Pooling: NHWC with C a multiple of the vector width (64, 256, 8, 16, 24, 32), max / max_det /
 * both averages, fwd and bwd, integer fills with ties, NaN / -inf fills, a misaligned x; the
 * stride-2 windows of 2 and 3 (pads 0, 1, 2; odd planes, a 75-wide row) take the channels-last
 * sweeps pool_s2_{fwd,bwd}_vec. The vector kernels reproduce ref bit for bit, so the
 * tolerance is 0 (NaN-carrying outputs compare NaN positions).
 * Every case re-runs for determinism. --smoke: a few small cases (compute-sanitizer).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_mirror.h"

#include "gpu_layouts.h"

/* ================================ batch norm ================================================ */

typedef struct {
    int bwd; /* 0: training forward, 1: backward */
    cudnnBatchNormMode_t mode;
    cudnnBatchNormOps_t ops;
    cudnnActivationMode_t act;
    cudnnDataType_t dt;
    tshape_t t;
    double alpha, beta, alpha_p, beta_p;
    int saved, legacy, in_place, misalign;
    size_t ws, es;
    int64_t c, m;
    uint64_t seed;
} bn_case_t;

/* buffers: 0 x, 1 y / dy, 2 dx (bwd, not in place), then scale, bias, 4 parameter slots, ws */
enum { X = 0, Y = 1, DX = 2, SCALE = 3, BIAS = 4, P0 = 5, P1 = 6, P2 = 7, P3 = 8, WS = 9 };

static void bn_fill(int i, void *p, size_t bytes, void *ctx)
{
    const bn_case_t *c = ctx;
    const cudnnDataType_t pdt = CUDNN_DATA_FLOAT;
    fd_rng_t r;
    fd_rng_seed(&r, fd_test_mix(c->seed, (uint64_t)i));
    const int64_t dn = (int64_t)(bytes / c->es), pn = (int64_t)(bytes / 4);
    switch (i) {
    case X:
        fd_fill_real(&r, c->dt, p, dn, -1.5, 2.5);
        break;
    case Y: /* y (fwd, read when beta != 0) or dy */
        if (c->bwd || c->beta != 0)
            fd_fill_real(&r, c->dt, p, dn, -1.0, 1.0);
        break;
    case DX:
        if (c->beta != 0)
            fd_fill_real(&r, c->dt, p, dn, -1.0, 1.0);
        break;
    case SCALE:
        fd_fill_real(&r, pdt, p, pn, 0.5, 1.5);
        break;
    case BIAS:
        fd_fill_real(&r, pdt, p, pn, -0.5, 0.5);
        break;
    case P0: /* fwd: running mean, bwd: dscale */
    case P1: /* fwd: running var, bwd: dbias */
        if (!c->bwd || c->beta_p != 0)
            fd_fill_real(&r, pdt, p, pn, 0.1, 1.0);
        break;
    case P2: /* fwd: saved mean (out), bwd: saved mean (in) */
        if (c->bwd)
            fd_fill_real(&r, pdt, p, pn, -0.25, 0.25);
        break;
    case P3:
        if (c->bwd)
            fd_fill_real(&r, pdt, p, pn, 0.5, 1.5);
        break;
    default:
        break;
    }
}

static cudnnStatus_t bn_call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    const bn_case_t *c = ctx;
    cudnnTensorDescriptor_t xd = tdesc(c->dt, &c->t), pd = NULL;
    cudnnCreateTensorDescriptor(&pd);
    cudnnDeriveBNTensorDescriptor(pd, xd, c->mode);
    cudnnActivationDescriptor_t ad = NULL;
    if (c->ops != CUDNN_BATCHNORM_OPS_BN) {
        cudnnCreateActivationDescriptor(&ad);
        cudnnSetActivationDescriptor(ad, c->act, CUDNN_PROPAGATE_NAN, 0.0);
        if (c->act == CUDNN_ACTIVATION_SWISH)
            cudnnSetActivationDescriptorSwishBeta(ad, 1.25);
    }
    const size_t off = c->misalign ? c->es : 0; /* one element in: not 16-byte aligned */
    char *x = (char *)ptr[X] + off, *y = (char *)ptr[Y] + off;
    char *dx = c->in_place ? y : (char *)ptr[DX] + off;
    if (!c->bwd && c->in_place)
        y = x;
    float fa = (float)c->alpha, fb = (float)c->beta, fap = (float)c->alpha_p,
          fbp = (float)c->beta_p;
    void *ws = c->ws ? ptr[WS] : NULL;
    cudnnStatus_t st;
    if (!c->bwd) {
        if (c->legacy)
            st = cudnnBatchNormalizationForwardTraining(h, c->mode, &fa, &fb, xd, x, xd, y, pd,
                                                        ptr[SCALE], ptr[BIAS], 0.25, ptr[P0],
                                                        ptr[P1], 1e-5, ptr[P2], ptr[P3]);
        else
            st = cudnnBatchNormalizationForwardTrainingEx(
                h, c->mode, c->ops, &fa, &fb, xd, x, NULL, NULL, xd, y, pd, ptr[SCALE], ptr[BIAS],
                0.25, ptr[P0], ptr[P1], 1e-5, ptr[P2], ptr[P3], ad, ws, c->ws, NULL, 0);
    } else {
        const void *sm = c->saved ? ptr[P2] : NULL, *si = c->saved ? ptr[P3] : NULL;
        if (c->legacy)
            st = cudnnBatchNormalizationBackward(h, c->mode, &fa, &fb, &fap, &fbp, xd, x, xd, y,
                                                 xd, dx, pd, ptr[SCALE], ptr[P0], ptr[P1], 1e-5,
                                                 sm, si);
        else
            st = cudnnBatchNormalizationBackwardEx(
                h, c->mode, c->ops, &fa, &fb, &fap, &fbp, xd, x, NULL, NULL, xd, y, NULL, NULL, xd,
                dx, pd, ptr[SCALE], ptr[BIAS], ptr[P0], ptr[P1], 1e-5, sm, si, ad, ws, c->ws, NULL,
                0);
    }
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(pd);
    if (ad)
        cudnnDestroyActivationDescriptor(ad);
    return st;
}

static uint64_t nseed;

/* Tweaks applied to the next bn_run (kept out of bn_case's already long argument list). */
static struct {
    cudnnBatchNormOps_t ops;
    cudnnActivationMode_t act;
    int unsaved, legacy, in_place, misalign;
} tweak;

static void bn_run(bn_case_t *cp)
{
    bn_case_t c = *cp;
    if (tweak.ops)
        c.ops = tweak.ops, c.act = tweak.act;
    c.saved = !tweak.unsaved;
    c.legacy = tweak.legacy, c.in_place = tweak.in_place, c.misalign = tweak.misalign;
    memset(&tweak, 0, sizeof tweak);
    c.seed = fd_test_mix(0xb9f00d, ++nseed);
    cudnnTensorDescriptor_t xd = tdesc(c.dt, &c.t), pd = NULL;
    cudnnCreateTensorDescriptor(&pd);
    cudnnDeriveBNTensorDescriptor(pd, xd, c.mode);
    cudnnActivationDescriptor_t ad = NULL;
    if (c.ops != CUDNN_BATCHNORM_OPS_BN) {
        cudnnCreateActivationDescriptor(&ad);
        cudnnSetActivationDescriptor(ad, c.act, CUDNN_PROPAGATE_NAN, 0.0);
    }
    c.ws = 0;
    if (!c.legacy) {
        if (!c.bwd)
            FD_EXPECT_STATUS(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
                                 gm_cuda, c.mode, c.ops, xd, NULL, xd, pd, ad, &c.ws),
                             CUDNN_STATUS_SUCCESS);
        else
            FD_EXPECT_STATUS(cudnnGetBatchNormalizationBackwardExWorkspaceSize(
                                 gm_cuda, c.mode, c.ops, xd, xd, xd, NULL, xd, pd, ad, &c.ws),
                             CUDNN_STATUS_SUCCESS);
    }
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(pd);
    if (ad)
        cudnnDestroyActivationDescriptor(ad);

    gm_case_t g;
    memset(&g, 0, sizeof g);
    const size_t dsz = (size_t)(c.t.ext + (c.misalign ? 1 : 0)) * c.es, psz = (size_t)c.c * 4;
    const gm_role_t out = c.beta != 0 ? GM_INOUT : GM_OUT;
    g.buf[X] = (gm_buf_t){"x", dsz, c.dt, !c.bwd && c.in_place ? GM_INOUT : GM_IN, 0, 0};
    if (!c.bwd)
        g.buf[Y] = (gm_buf_t){"y", c.in_place ? 0 : dsz, c.dt, out, 0, 0};
    else
        g.buf[Y] = (gm_buf_t){"dy", dsz, c.dt, c.in_place ? GM_INOUT : GM_IN, 0, 0};
    g.buf[DX] = (gm_buf_t){"dx", c.bwd && !c.in_place ? dsz : 0, c.dt, out, 0, 0};
    g.buf[SCALE] = (gm_buf_t){"scale", psz, CUDNN_DATA_FLOAT, GM_IN, 0, 0};
    g.buf[BIAS] = (gm_buf_t){"bias", psz, CUDNN_DATA_FLOAT, GM_IN, 0, 0};
    const gm_role_t pr = c.bwd && c.beta_p == 0 ? GM_OUT : GM_INOUT;
    g.buf[P0] = (gm_buf_t){c.bwd ? "dScale" : "runMean", psz, CUDNN_DATA_FLOAT, pr, 0, 0};
    g.buf[P1] = (gm_buf_t){c.bwd ? "dBias" : "runVar", psz, CUDNN_DATA_FLOAT, pr, 0, 0};
    g.buf[P2] = (gm_buf_t){"saveMean", psz, CUDNN_DATA_FLOAT, c.bwd ? GM_IN : GM_OUT, 0, 0};
    g.buf[P3] = (gm_buf_t){"saveInv", psz, CUDNN_DATA_FLOAT, c.bwd ? GM_IN : GM_OUT, 0, 0};
    g.buf[WS] = (gm_buf_t){"workspace", c.ws, CUDNN_DATA_INT8, GM_WS, 0, 0};
    g.nbuf = WS + 1;
    for (int i = 0; i < g.nbuf; i++) {
        gm_buf_t *b = &g.buf[i];
        if (b->role != GM_OUT && b->role != GM_INOUT)
            continue;
        gm_tol(b, b->dt, c.m + 8);
        b->abs_tol = 8 * b->rel_tol + fd_tolerance_tiny(b->dt);
        if (c.bwd && (i == P0 || i == P1))
            b->abs_tol *= 4;
    }
    char label[256];
    snprintf(label, sizeof label,
             "bn %s mode %d ops %d %s %s %dd %dx%dx%dx%dx%d a/b %g/%g ws %zu%s%s%s%s",
             c.bwd ? "bwd" : "train", (int)c.mode, (int)c.ops, fd_test_dtype_short(c.dt),
             layout_names[c.t.stride[1] == 1 ? 1 : 0], c.t.nd, c.t.dim[0], c.t.dim[1], c.t.dim[2],
             c.t.dim[3], c.t.nd > 4 ? c.t.dim[4] : 1, c.alpha, c.beta, c.ws,
             c.saved ? "" : " recomputed", c.legacy ? " legacy" : "",
             c.in_place ? " in-place" : "", c.misalign ? " misaligned" : "");
    g.label = label;
    g.det = 1;
    g.fill = bn_fill;
    g.call = bn_call;
    g.ctx = &c;
    g.want = CUDNN_STATUS_SUCCESS;
    if (!c.legacy && !c.misalign && c.ws == 0)
        fprintf(stderr, "note: %s asks for no workspace (generic path)\n", label);
    gm_run(&g);
}


static void bn_case(int bwd, cudnnBatchNormMode_t mode, cudnnDataType_t dt, layout_t l, int nd,
                    const int *dims, double alpha, double beta)
{
    bn_case_t c;
    memset(&c, 0, sizeof c);
    c.bwd = bwd, c.mode = mode, c.dt = dt;
    c.ops = CUDNN_BATCHNORM_OPS_BN, c.act = CUDNN_ACTIVATION_RELU;
    c.t = shape_of(l, nd, dims);
    c.alpha = alpha, c.beta = beta;
    c.alpha_p = beta != 0 ? 0.75 : 1, c.beta_p = beta != 0 ? 0.5 : 0;
    c.saved = 1;
    c.es = fd_test_dtype_size(dt);
    c.c = dims[1];
    c.m = 1;
    for (int i = 0; i < nd; i++)
        c.m *= i == 1 ? 1 : dims[i];
    bn_run(&c);
}

static void bn_tests(void)
{
    const cudnnDataType_t dts[3] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    static const int small4[4] = {3, 64, 40, 44}; /* S 1760, M 5280: NHWC 21 chunks */
    static const int cut4[4] = {9, 64, 40, 44};   /* NCHW M 15840: 2 chunks, the last cut */
    static const int c96[4] = {4, 96, 30, 30};    /* NHWC rows per pass 10 (f32) / 21 (f16) */
    static const int c256[4] = {8, 256, 28, 28};
    static const int big4[4] = {16, 64, 64, 64}; /* 4M elements */
    static const int v5[5] = {2, 64, 8, 32, 32};
    if (gm_smoke) {
        for (int bwd = 0; bwd < 2; bwd++)
            for (int l = 0; l < 2; l++)
                bn_case(bwd, CUDNN_BATCHNORM_SPATIAL, CUDNN_DATA_FLOAT, (layout_t)l, 4, cut4, 0.5,
                        0.25);
        bn_case(0, CUDNN_BATCHNORM_SPATIAL, CUDNN_DATA_HALF, L_NHWC, 4, c96, 1, 0);
        return;
    }
    for (int bwd = 0; bwd < 2; bwd++)
        for (int t = 0; t < 3; t++)
            for (int l = 0; l < 2; l++) {
                const cudnnBatchNormMode_t m =
                    (t + l) % 2 ? CUDNN_BATCHNORM_SPATIAL_PERSISTENT : CUDNN_BATCHNORM_SPATIAL;
                const double al = (t + l + bwd) % 2 ? 0.5 : 1, be = (t + l + bwd) % 2 ? 0.25 : 0;
                bn_case(bwd, m, dts[t], (layout_t)l, 4, cut4, al, be);
                bn_case(bwd, m, dts[t], (layout_t)l, 4, small4, 1 - al / 2, be);
                bn_case(bwd, m, dts[t], (layout_t)l, 4, c96, al, be);
                bn_case(bwd, m, dts[t], (layout_t)l, 4, c256, al, be);
                bn_case(bwd, m, dts[t], (layout_t)l, 4, big4, al, be);
                bn_case(bwd, m, dts[t], (layout_t)l, 5, v5, al, be);
                if (bwd) {
                    tweak.unsaved = 1;
                    bn_case(bwd, m, dts[t], (layout_t)l, 4, c256, al, be);
                }
            }
    for (int bwd = 0; bwd < 2; bwd++)
        for (int l = 0; l < 2; l++) {
            /* fused activation without reserve space */
            tweak.ops = CUDNN_BATCHNORM_OPS_BN_ACTIVATION, tweak.act = CUDNN_ACTIVATION_RELU;
            bn_case(bwd, CUDNN_BATCHNORM_SPATIAL, CUDNN_DATA_FLOAT, (layout_t)l, 4, cut4, 1, 0);
            tweak.ops = CUDNN_BATCHNORM_OPS_BN_ACTIVATION, tweak.act = CUDNN_ACTIVATION_SWISH;
            tweak.unsaved = 1;
            bn_case(bwd, CUDNN_BATCHNORM_SPATIAL, CUDNN_DATA_HALF, (layout_t)l, 4, c96, 0.5, 0.25);
            /* in place, legacy entries (no workspace), misaligned data */
            tweak.in_place = 1;
            bn_case(bwd, CUDNN_BATCHNORM_SPATIAL, CUDNN_DATA_BFLOAT16, (layout_t)l, 4, cut4, 1, 0);
            tweak.legacy = 1;
            bn_case(bwd, CUDNN_BATCHNORM_SPATIAL, CUDNN_DATA_FLOAT, (layout_t)l, 4, big4, 0.5,
                    0.25);
            tweak.misalign = 1;
            bn_case(bwd, CUDNN_BATCHNORM_SPATIAL, CUDNN_DATA_HALF, (layout_t)l, 4, cut4, 1, 0);
        }
    /* the legacy entries on the handle's scratch (they pass no workspace): every type, both
     * layouts, C = 256; then chunk counts past BN_PK_MAX_CHUNKS (the chunks grow), with the
     * caller's workspace and with the scratch */
    static const int capn[4] = {32, 64, 64, 72};  /* NHWC: 147456 rows, 576 chunks -> 512 */
    static const int capc[4] = {64, 4, 256, 264}; /* NCHW: 4.3 M members, 528 chunks -> 264 */
    for (int bwd = 0; bwd < 2; bwd++)
        for (int t = 0; t < 3; t++)
            for (int l = 0; l < 2; l++) {
                tweak.legacy = 1;
                bn_case(bwd, CUDNN_BATCHNORM_SPATIAL, dts[t], (layout_t)l, 4, c256, (t + l) % 2 ? 0.5 : 1,
                        (t + l) % 2 ? 0.25 : 0);
            }
    for (int bwd = 0; bwd < 2; bwd++)
        for (int legacy = 0; legacy < 2; legacy++) {
            tweak.legacy = legacy;
            bn_case(bwd, CUDNN_BATCHNORM_SPATIAL, CUDNN_DATA_FLOAT, L_NHWC, 4, capn, 1, 0);
            tweak.legacy = legacy;
            bn_case(bwd, CUDNN_BATCHNORM_SPATIAL, CUDNN_DATA_HALF, L_NCHW, 4, capc, 0.5, 0.25);
        }
}

/* ================================ pooling =================================================== */

typedef struct {
    cudnnDataType_t dt;
    cudnnPoolingMode_t mode;
    cudnnNanPropagation_t nan;
    int win[2], pad[2], stride[2];
    tshape_t x, y;
    int bwd, misalign;
    size_t es;
    double alpha, beta;
    fill_t fill;
    uint64_t seed;
} pool_case_t;

/* buffers: fwd x, y; bwd x, y, dy, dx */
static void pool_fill(int i, void *p, size_t bytes, void *ctx)
{
    const pool_case_t *c = ctx;
    if ((!c->bwd && i == 1 && c->beta == 0) || (c->bwd && i == 3 && c->beta == 0))
        return;
    fill_buf(c->dt, p, bytes, c->fill, c->seed * 7 + (uint64_t)i, -4, 4);
}

static cudnnStatus_t pool_call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    const pool_case_t *c = ctx;
    cudnnPoolingDescriptor_t pd = NULL;
    cudnnCreatePoolingDescriptor(&pd);
    cudnnSetPoolingNdDescriptor(pd, c->mode, c->nan, 2, c->win, c->pad, c->stride);
    cudnnTensorDescriptor_t xd = tdesc(c->dt, &c->x), yd = tdesc(c->dt, &c->y);
    double ad, bd;
    float af, bf;
    const void *pa, *pb;
    scale_ptrs(c->dt, c->alpha, c->beta, &ad, &bd, &af, &bf, &pa, &pb);
    const void *x = (const char *)ptr[0] + (c->misalign ? c->es : 0);
    cudnnStatus_t st;
    if (!c->bwd)
        st = cudnnPoolingForward(h, pd, pa, xd, x, pb, yd, ptr[1]);
    else
        st = cudnnPoolingBackward(h, pd, pa, yd, ptr[1], yd, ptr[2], xd, x, pb, xd, ptr[3]);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyPoolingDescriptor(pd);
    return st;
}

static void pool_case(cudnnDataType_t dt, cudnnPoolingMode_t mode, cudnnNanPropagation_t nan,
                      int n, int ch, int h, int w, int win, int pad, int stride, int bwd,
                      double alpha, double beta, fill_t fill, int misalign)
{
    pool_case_t c;
    memset(&c, 0, sizeof c);
    c.dt = dt, c.mode = mode, c.nan = nan, c.bwd = bwd, c.misalign = misalign;
    c.alpha = alpha, c.beta = beta, c.fill = fill, c.seed = ++nseed;
    c.es = fd_test_dtype_size(dt);
    int xd[4] = {n, ch, h, w}, yd[4] = {n, ch, 0, 0};
    for (int i = 0; i < 2; i++) {
        c.win[i] = win, c.pad[i] = pad, c.stride[i] = stride;
        yd[2 + i] = 1 + (xd[2 + i] + 2 * pad - win) / stride;
    }
    c.x = shape_of(L_NHWC, 4, xd);
    c.y = shape_of(L_NHWC, 4, yd);
    const double tol = fill == F_SPECIAL ? 0x1p-1074 : 0; /* NaN positions, values exact */
    const size_t xb = (size_t)(c.x.ext + misalign) * c.es, yb = (size_t)c.y.ext * c.es;
    gm_case_t g;
    memset(&g, 0, sizeof g);
    char label[256];
    snprintf(label, sizeof label,
             "pool %s %s mode %d nan%d %dx%dx%dx%d nhwc win%d pad%d str%d a%g b%g fill%d%s",
             bwd ? "bwd" : "fwd", fd_test_dtype_short(dt), (int)mode, (int)nan, n, ch, h, w, win,
             pad, stride, alpha, beta, (int)fill, misalign ? " misaligned" : "");
    g.label = label;
    g.det = 1;
    g.fill = pool_fill;
    g.call = pool_call;
    g.ctx = &c;
    g.want = CUDNN_STATUS_SUCCESS;
    const gm_role_t out = beta != 0 ? GM_INOUT : GM_OUT;
    g.buf[0] = (gm_buf_t){"x", xb, dt, GM_IN, 0, 0};
    if (!bwd) {
        g.nbuf = 2;
        g.buf[1] = (gm_buf_t){"y", yb, dt, out, tol, 0};
    } else {
        g.nbuf = 4;
        g.buf[1] = (gm_buf_t){"y", yb, dt, GM_IN, 0, 0};
        g.buf[2] = (gm_buf_t){"dy", yb, dt, GM_IN, 0, 0};
        g.buf[3] = (gm_buf_t){"dx", (size_t)c.x.ext * c.es, dt, out, tol, 0};
    }
    gm_run(&g);
}

static void pool_tests(void)
{
    const cudnnDataType_t dts[3] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    const cudnnPoolingMode_t modes[4] = {CUDNN_POOLING_MAX, CUDNN_POOLING_MAX_DETERMINISTIC,
                                         CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                         CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING};
    if (gm_smoke) {
        for (int bwd = 0; bwd < 2; bwd++)
            for (int m = 0; m < 4; m += 2)
                pool_case(CUDNN_DATA_HALF, modes[m], CUDNN_PROPAGATE_NAN, 2, 16, 7, 9, 3, 1, 2,
                          bwd, 0.5, 0.25, F_INT, 0);
        return;
    }
    for (int bwd = 0; bwd < 2; bwd++)
        for (int t = 0; t < 3; t++)
            for (int m = 0; m < 4; m++) {
                const int blend = (t + m + bwd) % 2;
                const double al = blend ? 0.5 : 1, be = blend ? 0.25 : 0;
                /* ResNet stem pool (3x3 / 2, pad 1) at 4M+ elements, C = 64 */
                pool_case(dts[t], modes[m], CUDNN_NOT_PROPAGATE_NAN, 8, 64, 112, 112, 3, 1, 2,
                          bwd, al, be, m % 2 ? F_REAL : F_INT, 0);
                /* C = 256, 2x2 / 2, odd sizes */
                pool_case(dts[t], modes[m], CUDNN_PROPAGATE_NAN, 3, 256, 15, 13, 2, 0, 2, bwd,
                          al, be, F_INT, 0);
                /* C = 8 (one f16 vector), overlapping windows, NaN / -inf */
                for (int nan = 0; nan < 2; nan++)
                    pool_case(dts[t], modes[m], (cudnnNanPropagation_t)nan, 2, 8, 11, 10, 3, 1, 1,
                              bwd, be != 0 ? 0.5 : 1, be, F_SPECIAL, 0);
                /* misaligned x: the scalar kernels, same bits */
                pool_case(dts[t], modes[m], CUDNN_NOT_PROPAGATE_NAN, 2, 64, 9, 9, 3, 1, 2, bwd, al,
                          be, F_INT, 1);
                /* the channels-last stride-2 sweeps (pool_s2_{fwd,bwd}_vec) off the ResNet
                 * shape: odd planes, 2x2 pad 1, 3x3 pad 0 and 2, NaN / -inf, a row of 75 */
                pool_case(dts[t], modes[m], (cudnnNanPropagation_t)(m % 2), 2, 16, 17, 23, 2, 1,
                          2, bwd, al, be, F_INT, 0);
                pool_case(dts[t], modes[m], (cudnnNanPropagation_t)((m + 1) % 2), 3, 24, 21, 19,
                          3, 0, 2, bwd, be != 0 ? 0.5 : 1, be, F_SPECIAL, 0);
                pool_case(dts[t], modes[m], CUDNN_PROPAGATE_NAN, 1, 32, 6, 75, 3, 2, 2, bwd, al,
                          be, m % 2 ? F_REAL : F_INT, 0);
            }
}

int main(int argc, char **argv)
{
    gm_init(argc, argv, "test_gpu_bnpool_fast");
    bn_tests();
    pool_tests();
    return gm_finish();
}
