/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_bn.c - the cuda batch-norm rows (src/cuda/batchnorm.cu) against the ref backend
 * through the public API (tests/gpu/gpu_mirror.h): inference, training and backward; every
 * mode (PER_ACTIVATION, SPATIAL, SPATIAL_PERSISTENT), dtype (FLOAT, DOUBLE, HALF, BFLOAT16 with
 * float parameters), layout (NCHW, NHWC, padded strides), 4-d and 5-d, alpha/beta {1, 0} and
 * {0.5, 0.25} (separate data / parameter pairs backward), the *Ex ops (BN_ACTIVATION,
 * BN_ADD_ACTIVATION with every fused activation; reserve bits compared byte for byte), the v8
 * cudnnNormalization* entries, saved statistics or recomputed ones, NULL running / saved
 * outputs, exponentialAverageFactor 1 over NaN-poisoned running statistics, in-place y = x and
 * dx = dy, odd and large (4M elements) shapes; the packed inference pass (NCHW / NHWC
 * 16-byte vectors, every ops value, the edges of its thread mapping); the cluster training
 * forward (bn_cl_train: every cluster size, uneven shares, blends, NULL statistics, epsilons,
 * offset / constant / Inf-NaN x), the cluster backward (bn_cl_bwd: the same shapes, blends of
 * dx and of dscale / dbias, saved statistics given and NULL) and shapes just outside both;
 * every case re-run for determinism, and the whole program again with FREEDNN_GPU_BN_CLUSTER=0,
 * with FREEDNN_GPU_BN_CLUSTER_BWD=0, with FREEDNN_GPU_BN_CL_KIB=16 (16-KiB shares: the
 * largest clusters), with FREEDNN_GPU_BN_CL_K8=0 (the smallest cluster whose shares fit, K 2
 * and 4 on channels of 128 KiB and more), with FREEDNN_GPU_BN_CL_1PASS=0 (bn_cl_train's
 * statistics in two passes; by default one pass shifted by the channel's first element, which
 * the +Inf fill makes non-finite), with FREEDNN_GPU_BN_IV2=0 (the first packed inference
 * mapping) and with
 * FREEDNN_GPU_BN_IV2_BLOCKS=7 (the second one's grid-stride loops), with FREEDNN_GPU_BN_PK2=0
 * (the first packed NHWC training / backward mapping), with FREEDNN_GPU_BN_PK2_ROWS=1 (the
 * second one's chunks of one trip), with FREEDNN_GPU_BN_PK2_LEAN=0 (its general apply pass for
 * every case); the grid-resident training forward (bn_gr_train_nhwc: the NHWC lean cases, ops
 * BN, alpha 1, beta 0, and the 16 x 64 x 64 x 64 FLOAT NHWC one, 342 chunks over 264 CTAs, two
 * held by some) by default for FLOAT, in a FREEDNN_GPU_BN_GR=0 child on the three launches, a
 * =1 child (HALF and BFLOAT16 too), a FREEDNN_GPU_BN_GR_CTAS=3 child (3 CTAs: the chunks past
 * the held ones read twice) and a FREEDNN_GPU_BN_GR_HOLD=0 one (none held; both every type), and
 * with FREEDNN_GPU_BN_PK2_ROWS=1 over many small chunks, several held a CTA; the lean inference
 * pass (bn_iv3_*: iv3_tests) in the parent and, on the earlier kernels, in a FREEDNN_GPU_BN_IV3=0
 * child that runs only those, a =1 child (NHWC on bn_iv2_nhwc*) and a FREEDNN_GPU_BN_IV3_NHWC_R=3
 * child (bn_iv3_nhwc's trips, FLOAT too: it sets FREEDNN_GPU_BN_IV3=3; by default FLOAT NHWC takes
 * bn_iv2_nhwc*), the same (the FREEDNN_GPU_BN_IV2* children set FREEDNN_GPU_BN_IV3 to 0, so their
 * inference calls keep bn_iv_* / bn_iv2_*). Real-valued fills; tolerances from gm_tol with the
 * group size as the term count.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_mirror.h"

typedef enum { DIR_INFER, DIR_TRAIN, DIR_BWD } dir_t;
typedef enum { LAY_NCHW, LAY_NHWC, LAY_PAD } layout_t;

typedef struct {
    dir_t dir;
    cudnnBatchNormMode_t mode;
    cudnnBatchNormOps_t ops;
    cudnnActivationMode_t act;
    double coef;
    cudnnDataType_t dt;
    layout_t lay;
    int nb, dim[5];
    double alpha, beta, alpha_p, beta_p, factor, eps;
    int saved;      /* bwd: pass saved mean / inv */
    int null_stats; /* train: NULL running and saved outputs */
    int null_run;   /* train: NULL running mean / variance only */
    int null_save;  /* train: NULL saved mean / inv only */
    int xfill;      /* x: 0 uniform, 1 offset (99..101), 2 one constant (variance 0), 3 +Inf / NaN */
    int in_place;   /* y = x (fwd) / dx = dy (bwd) */
    int v8;         /* cudnnNormalization* entries */
    int legacy;     /* train: the legacy entry even where the Ex one reports a workspace */
    int bwd_ws;     /* bwd: the Ex entry with the workspace it reports */
    int misalign;   /* x and y one element into their buffers: not 16-byte aligned */
    int stride[5];
    int64_t extent, elems, groups, m;
    size_t ws, reserve;
    uint64_t seed;
    int idx[16]; /* buffer index of each role, -1 absent */
} bn_case_t;

enum { B_X, B_Z, B_Y, B_DY, B_DX, B_DZ, B_SCALE, B_BIAS, B_MEAN, B_VAR, B_RMEAN, B_RVAR, B_SMEAN, B_SINV,
       B_WS, B_RES };

static cudnnDataType_t param_dt(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}

static void layout_strides(bn_case_t *c)
{
    const int nb = c->nb, *d = c->dim;
    int64_t s = 1;
    if (c->lay == LAY_NHWC) { /* C fastest, then the spatial dims, then N */
        c->stride[1] = 1;
        s = d[1];
        for (int i = nb - 1; i >= 2; i--) {
            c->stride[i] = (int)s;
            s *= d[i];
        }
        c->stride[0] = (int)s;
        s *= d[0];
    } else {
        int pad = c->lay == LAY_PAD ? 3 : 0;
        for (int i = nb - 1; i >= 0; i--) {
            c->stride[i] = (int)s;
            s = s * d[i] + (i == nb - 1 ? pad : i >= 2 ? 1 : 0);
        }
        s = (int64_t)c->stride[0] * d[0];
    }
    c->extent = 0;
    for (int i = 0; i < nb; i++)
        c->extent += (int64_t)(d[i] - 1) * c->stride[i];
    c->extent += 1;
    c->elems = 1;
    for (int i = 0; i < nb; i++)
        c->elems *= d[i];
    int64_t sp = c->elems / d[0] / d[1];
    c->groups = c->mode == CUDNN_BATCHNORM_PER_ACTIVATION ? (int64_t)d[1] * sp : d[1];
    c->m = c->elems / c->groups;
}

static cudnnTensorDescriptor_t data_desc(const bn_case_t *c)
{
    cudnnTensorDescriptor_t t;
    cudnnCreateTensorDescriptor(&t);
    cudnnSetTensorNdDescriptor(t, c->dt, c->nb, c->dim, c->stride);
    return t;
}

static cudnnTensorDescriptor_t param_desc(const bn_case_t *c)
{
    cudnnTensorDescriptor_t t, x = data_desc(c);
    cudnnCreateTensorDescriptor(&t);
    cudnnDeriveBNTensorDescriptor(t, x, c->mode);
    cudnnDestroyTensorDescriptor(x);
    return t;
}

static cudnnActivationDescriptor_t act_desc(const bn_case_t *c)
{
    cudnnActivationDescriptor_t a;
    cudnnCreateActivationDescriptor(&a);
    cudnnSetActivationDescriptor(a, c->act, CUDNN_PROPAGATE_NAN, c->coef);
    if (c->act == CUDNN_ACTIVATION_SWISH)
        cudnnSetActivationDescriptorSwishBeta(a, 1.25);
    return a;
}

static void fill(int i, void *payload, size_t bytes, void *ctx)
{
    bn_case_t *c = ctx;
    fd_rng_t r;
    fd_rng_seed(&r, fd_test_mix(c->seed, (uint64_t)i));
    int role = -1;
    for (int k = 0; k < 16; k++)
        if (c->idx[k] == i)
            role = k;
    cudnnDataType_t pdt = param_dt(c->dt);
    int64_t pn = (int64_t)(bytes / fd_test_dtype_size(pdt));
    int64_t dn = (int64_t)(bytes / fd_test_dtype_size(c->dt));
    if (c->dir == DIR_BWD && (role == B_MEAN || role == B_VAR)) { /* dscale / dbias */
        if (c->beta_p != 0.0)
            fd_fill_real(&r, pdt, payload, pn, -1.0, 1.0);
        return;
    }
    switch (role) {
    case B_X:
        if (c->xfill == 2) {
            fd_fill_real(&r, c->dt, payload, dn, 0.75, 0.75);
            break;
        }
        fd_fill_real(&r, c->dt, payload, dn, c->xfill == 1 ? 99.0 : -1.5,
                     c->xfill == 1 ? 101.0 : 2.5);
        if (c->xfill == 3) { /* channel 0's first member +Inf, the last element NaN */
            fd_test_store(c->dt, payload, 0, INFINITY);
            fd_test_store(c->dt, payload, dn - 1, NAN);
        }
        break;
    case B_Z:
    case B_DY:
        fd_fill_real(&r, c->dt, payload, dn, -1.0, 1.0);
        break;
    case B_Y:
    case B_DX:
        if (c->beta != 0.0)
            fd_fill_real(&r, c->dt, payload, dn, -1.0, 1.0);
        break;
    case B_SCALE:
        fd_fill_real(&r, pdt, payload, pn, 0.5, 1.5);
        break;
    case B_BIAS:
    case B_MEAN:
        fd_fill_real(&r, pdt, payload, pn, -0.5, 0.5);
        break;
    case B_VAR:
        fd_fill_real(&r, pdt, payload, pn, 0.25, 2.0);
        break;
    case B_RMEAN:
    case B_RVAR:
        if (c->factor != 1.0)
            fd_fill_real(&r, pdt, payload, pn, 0.1, 1.0);
        break;
    case B_SMEAN:
    case B_SINV: /* bwd: saved statistics as inputs; train: outputs */
        if (c->dir == DIR_BWD)
            fd_fill_real(&r, pdt, payload, pn, role == B_SMEAN ? -0.25 : 0.5,
                         role == B_SMEAN ? 0.25 : 1.5);
        break;
    case B_DZ:
        break;
    case B_RES: /* bwd: act'(u) bits or u as doubles, as a forward pass leaves them */
        if (c->dir == DIR_BWD) {
            if (c->act == CUDNN_ACTIVATION_RELU || c->act == CUDNN_ACTIVATION_CLIPPED_RELU)
                for (size_t b = 0; b < bytes; b++)
                    ((unsigned char *)payload)[b] = (unsigned char)fd_rng_next(&r);
            else
                fd_fill_real(&r, CUDNN_DATA_DOUBLE, payload, (int64_t)(bytes / 8), -3.0, 3.0);
        }
        break;
    default:
        if (role >= 0 && role <= B_SINV)
            fd_fill_real(&r, pdt, payload, pn, -0.5, 0.5);
    }
}

#define P(role) (c->idx[role] >= 0 ? ptr[c->idx[role]] : NULL)

static cudnnStatus_t call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    bn_case_t *c = ctx;
    cudnnTensorDescriptor_t xd = data_desc(c), pd = param_desc(c);
    cudnnActivationDescriptor_t ad = c->ops != CUDNN_BATCHNORM_OPS_BN ? act_desc(c) : NULL;
    cudnnStatus_t st;
    void *x = P(B_X), *y = P(B_Y), *dy = P(B_DY), *dx = c->in_place ? dy : P(B_DX);
    if (c->misalign) { /* forward only: one element in */
        x = (char *)x + fd_test_dtype_size(c->dt);
        if (y != NULL)
            y = (char *)y + fd_test_dtype_size(c->dt);
    }
    if (c->in_place)
        y = x;
    float fa = (float)c->alpha, fb = (float)c->beta, fap = (float)c->alpha_p, fbp = (float)c->beta_p;
    double da = c->alpha, db = c->beta, dap = c->alpha_p, dbp = c->beta_p;
    int dbl = c->dt == CUDNN_DATA_DOUBLE;
    const void *al = dbl ? (void *)&da : (void *)&fa, *be = dbl ? (void *)&db : (void *)&fb;
    const void *alp = dbl ? (void *)&dap : (void *)&fap, *bep = dbl ? (void *)&dbp : (void *)&fbp;
    cudnnNormMode_t nm = c->mode == CUDNN_BATCHNORM_PER_ACTIVATION ? CUDNN_NORM_PER_ACTIVATION
                                                                    : CUDNN_NORM_PER_CHANNEL;
    cudnnNormOps_t nops = (cudnnNormOps_t)c->ops;
    switch (c->dir) {
    case DIR_INFER:
        if (c->v8)
            st = cudnnNormalizationForwardInference(h, nm, nops, CUDNN_NORM_ALGO_STANDARD, al, be, xd, x, pd,
                                                    P(B_SCALE), P(B_BIAS), pd, P(B_MEAN), P(B_VAR), xd,
                                                    P(B_Z), ad, xd, y, c->eps, 1);
        else
            st = cudnnBatchNormalizationForwardInference(h, c->mode, al, be, xd, x, xd, y, pd, P(B_SCALE),
                                                         P(B_BIAS), P(B_MEAN), P(B_VAR), c->eps);
        break;
    case DIR_TRAIN:
        if (c->v8)
            st = cudnnNormalizationForwardTraining(
                h, nm, nops, CUDNN_NORM_ALGO_STANDARD, al, be, xd, x, pd, P(B_SCALE), P(B_BIAS), c->factor,
                pd, P(B_RMEAN), P(B_RVAR), c->eps, P(B_SMEAN), P(B_SINV), ad, xd, P(B_Z), xd, y, P(B_WS),
                c->ws, P(B_RES), c->reserve, 1);
        else if (c->ops != CUDNN_BATCHNORM_OPS_BN || (c->ws && !c->legacy))
            st = cudnnBatchNormalizationForwardTrainingEx(
                h, c->mode, c->ops, al, be, xd, x, xd, P(B_Z), xd, y, pd, P(B_SCALE), P(B_BIAS), c->factor,
                P(B_RMEAN), P(B_RVAR), c->eps, P(B_SMEAN), P(B_SINV), ad, P(B_WS), c->ws, P(B_RES),
                c->reserve);
        else
            st = cudnnBatchNormalizationForwardTraining(h, c->mode, al, be, xd, x, xd, y, pd, P(B_SCALE),
                                                        P(B_BIAS), c->factor, P(B_RMEAN), P(B_RVAR), c->eps,
                                                        P(B_SMEAN), P(B_SINV));
        break;
    default:
        if (c->v8)
            st = cudnnNormalizationBackward(h, nm, nops, CUDNN_NORM_ALGO_STANDARD, al, be, alp, bep, xd, x,
                                            xd, NULL, xd, dy, xd, P(B_DZ), xd, dx, pd, P(B_SCALE),
                                            P(B_BIAS), P(B_MEAN), P(B_VAR), c->eps, pd, P(B_SMEAN),
                                            P(B_SINV), ad, P(B_WS), c->ws, P(B_RES), c->reserve, 1);
        else if (c->ops != CUDNN_BATCHNORM_OPS_BN || c->ws)
            st = cudnnBatchNormalizationBackwardEx(h, c->mode, c->ops, al, be, alp, bep, xd, x, NULL, NULL, xd,
                                                   dy, xd, P(B_DZ), xd, dx, pd, P(B_SCALE), P(B_BIAS),
                                                   P(B_MEAN), P(B_VAR), c->eps, P(B_SMEAN), P(B_SINV), ad,
                                                   P(B_WS), c->ws, P(B_RES), c->reserve);
        else
            st = cudnnBatchNormalizationBackward(h, c->mode, al, be, alp, bep, xd, x, xd, dy, xd, dx, pd,
                                                 P(B_SCALE), P(B_MEAN), P(B_VAR), c->eps, P(B_SMEAN),
                                                 P(B_SINV));
    }
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(pd);
    if (ad)
        cudnnDestroyActivationDescriptor(ad);
    return st;
}

static int ncase;

static const char *dir_name(dir_t d)
{
    return d == DIR_INFER ? "infer" : d == DIR_TRAIN ? "train" : "bwd";
}

/* Builds the buffer list of c and runs it. */
static void run_case(bn_case_t c)
{
    layout_strides(&c);
    c.seed = fd_test_mix(0xb47c4u, (uint64_t)++ncase);
    if (c.eps == 0)
        c.eps = 1e-5;
    /* the workspace and reserve the cuda row asks for (ref asks for none) */
    cudnnTensorDescriptor_t xd = data_desc(&c), pd = param_desc(&c);
    cudnnActivationDescriptor_t ad = c.ops != CUDNN_BATCHNORM_OPS_BN ? act_desc(&c) : NULL;
    c.ws = 0, c.reserve = 0;
    if (c.dir == DIR_TRAIN) {
        FD_EXPECT_STATUS(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
                             gm_cuda, c.mode, c.ops, xd, c.ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION ? xd : NULL,
                             xd, pd, ad, &c.ws),
                         CUDNN_STATUS_SUCCESS);
    }
    if (c.dir == DIR_BWD && c.bwd_ws)
        FD_EXPECT_STATUS(cudnnGetBatchNormalizationBackwardExWorkspaceSize(
                             gm_cuda, c.mode, c.ops, xd, NULL, xd, NULL, xd, pd, ad, &c.ws),
                         CUDNN_STATUS_SUCCESS);
    if (c.dir != DIR_INFER)
        FD_EXPECT_STATUS(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(gm_cuda, c.mode, c.ops, ad, xd,
                                                                              &c.reserve),
                         CUDNN_STATUS_SUCCESS);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(pd);
    if (ad)
        cudnnDestroyActivationDescriptor(ad);

    gm_case_t g;
    memset(&g, 0, sizeof g);
    for (int k = 0; k < 16; k++)
        c.idx[k] = -1;
    const size_t dsz = fd_test_dtype_size(c.dt) * (size_t)(c.extent + (c.misalign ? 1 : 0));
    const cudnnDataType_t pdt = param_dt(c.dt);
    const size_t psz = fd_test_dtype_size(pdt) * (size_t)(c.mode == CUDNN_BATCHNORM_PER_ACTIVATION
                                                              ? c.groups
                                                              : c.dim[1]);
    const int fwd = c.dir != DIR_BWD;
    const int add = c.ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
    const int binary = c.act == CUDNN_ACTIVATION_RELU || c.act == CUDNN_ACTIVATION_CLIPPED_RELU;
#define ADD(role, nm, bytes, dtype, rl)                                                           \
    do {                                                                                           \
        c.idx[role] = g.nbuf;                                                                      \
        g.buf[g.nbuf++] = (gm_buf_t){nm, bytes, dtype, rl, 0, 0};                                   \
    } while (0)
    int64_t k = c.m;
    ADD(B_X, "x", dsz, c.dt, c.in_place && fwd ? GM_INOUT : GM_IN);
    if (add && fwd)
        ADD(B_Z, "z", dsz, c.dt, GM_IN);
    if (fwd && !c.in_place)
        ADD(B_Y, "y", dsz, c.dt, c.beta != 0 ? GM_INOUT : GM_OUT);
    if (!fwd) {
        ADD(B_DY, "dy", dsz, c.dt, c.in_place ? GM_INOUT : GM_IN);
        if (!c.in_place)
            ADD(B_DX, "dx", dsz, c.dt, c.beta != 0 ? GM_INOUT : GM_OUT);
        if (add)
            ADD(B_DZ, "dz", dsz, c.dt, GM_OUT);
    }
    ADD(B_SCALE, fwd ? "scale" : "bnScale", psz, pdt, GM_IN);
    if (fwd || c.ops == CUDNN_BATCHNORM_OPS_BN_ACTIVATION || c.v8)
        ADD(B_BIAS, "bias", psz, pdt, GM_IN);
    if (c.dir == DIR_INFER) {
        ADD(B_MEAN, "mean", psz, pdt, GM_IN);
        ADD(B_VAR, "var", psz, pdt, GM_IN);
    }
    if (c.dir == DIR_TRAIN && !c.null_stats && !c.null_run) {
        gm_role_t rr = c.factor == 1.0 ? GM_OUT : GM_INOUT;
        ADD(B_RMEAN, "runMean", psz, pdt, rr);
        ADD(B_RVAR, "runVar", psz, pdt, rr);
    }
    if (c.dir == DIR_TRAIN && !c.null_stats && !c.null_save) {
        ADD(B_SMEAN, "saveMean", psz, pdt, GM_OUT);
        ADD(B_SINV, "saveInv", psz, pdt, GM_OUT);
    }
    if (c.dir == DIR_BWD) {
        ADD(B_MEAN, "dScale", psz, pdt, c.beta_p != 0 ? GM_INOUT : GM_OUT); /* B_MEAN/B_VAR: dscale/dbias */
        ADD(B_VAR, "dBias", psz, pdt, c.beta_p != 0 ? GM_INOUT : GM_OUT);
        if (c.saved) {
            ADD(B_SMEAN, "savedMean", psz, pdt, GM_IN);
            ADD(B_SINV, "savedInv", psz, pdt, GM_IN);
        }
    }
    if (c.ws)
        ADD(B_WS, "workspace", c.ws, CUDNN_DATA_INT8, GM_WS);
    if (c.reserve) {
        if (fwd)
            ADD(B_RES, "reserve", c.reserve, binary ? CUDNN_DATA_INT8 : CUDNN_DATA_DOUBLE, GM_OUT);
        else
            ADD(B_RES, "reserve", c.reserve, CUDNN_DATA_INT8, GM_IN);
    }
#undef ADD
    for (int i = 0; i < g.nbuf; i++) {
        gm_buf_t *b = &g.buf[i];
        if (b->role != GM_OUT && b->role != GM_INOUT)
            continue;
        if (i == c.idx[B_RES]) {
            if (b->dt == CUDNN_DATA_DOUBLE)
                gm_tol(b, CUDNN_DATA_FLOAT, k + 8);
            continue; /* bits: exact */
        }
        gm_tol(b, b->dt, k + 8);
        /* cancellation in dx and the sums: an absolute floor on the scale of the terms */
        b->abs_tol = 8 * b->rel_tol + fd_tolerance_tiny(b->dt);
        if (!fwd && (i == c.idx[B_MEAN] || i == c.idx[B_VAR]))
            b->abs_tol *= 4;
    }
    char label[256];
    snprintf(label, sizeof label,
             "bn %s mode %d ops %d act %d %s %s %dd %dx%dx%dx%dx%d a/b %g/%g f %g eps "
             "%g%s%s%s%s%s%s%s x%d",
             dir_name(c.dir), (int)c.mode, (int)c.ops, (int)c.act, fd_test_dtype_short(c.dt),
             c.lay == LAY_NCHW   ? "nchw"
             : c.lay == LAY_NHWC ? "nhwc"
                                 : "padded",
             c.nb, c.dim[0], c.dim[1], c.dim[2], c.dim[3], c.nb > 4 ? c.dim[4] : 1, c.alpha, c.beta,
             c.factor, c.eps, c.saved ? " saved" : "", c.null_stats ? " null-stats" : "",
             c.null_run ? " null-run" : "", c.null_save ? " null-save" : "",
             c.in_place ? " in-place" : "", c.v8 ? " v8" : "", c.misalign ? " misaligned" : "",
             c.xfill);
    g.label = label;
    g.det = 1;
    g.fill = fill;
    g.call = call;
    g.ctx = &c;
    g.want = CUDNN_STATUS_SUCCESS;
    gm_run(&g);
}

static bn_case_t base(dir_t dir, cudnnBatchNormMode_t mode, cudnnDataType_t dt, layout_t lay, int five)
{
    bn_case_t c;
    memset(&c, 0, sizeof c);
    c.dir = dir;
    c.mode = mode;
    c.ops = CUDNN_BATCHNORM_OPS_BN;
    c.act = CUDNN_ACTIVATION_RELU;
    c.dt = dt;
    c.lay = lay;
    c.nb = five ? 5 : 4;
    int d4[4] = {3, 5, 7, 6}, d5[5] = {2, 4, 3, 5, 3};
    for (int i = 0; i < c.nb; i++)
        c.dim[i] = five ? d5[i] : d4[i];
    c.alpha = 1, c.beta = 0, c.alpha_p = 1, c.beta_p = 0;
    c.factor = 0.25;
    c.saved = 1;
    return c;
}

/* The lean inference pass (batchnorm.cu, bn_iv3_*; FREEDNN_GPU_BN_IV3=0: bn_iv2_* / the
 * elementwise kernel): ops BN, alpha 1, beta 0 over the NaN-poisoned y, SPATIAL and
 * SPATIAL_PERSISTENT, FLOAT / HALF / BFLOAT16 (DOUBLE alongside: never bn_iv3). NCHW 56x56
 * planes with odd N (HALF 392 vectors a plane, FLOAT 784: blocks across plane ends), C = 1,
 * C = 3 with 8 members a plane (HALF one vector a plane: 256 planes a block, channels
 * wrapping; FLOAT two), odd C with a block tail, 5-d; NHWC 56x56, C 256 (HALF 32 vector
 * columns, FLOAT 64: its cap), C 8 (HALF one column), C 16 with a block tail, C 24 (HALF 3
 * columns: warps wrap rows), C 512 (HALF / BFLOAT16 at the cap, FLOAT above: bn_iv2), C 520
 * (above every cap), and for bn_iv3_nhwc's trips (FREEDNN_GPU_BN_IV3_NHWC_R=3: 768 vectors a
 * block): C 8 with 6 pixels (a grid of one block, one partial trip), C 64 over 429 pixels (HALF
 * 3432 vectors, FLOAT 6864: neither a multiple of 768), C 40 (HALF 5 columns, FLOAT 10: the
 * column steps by 256 % cols a trip and wraps), C 504 (HALF / BFLOAT16 63 columns; FLOAT
 * above its cap); uniform, offset and Inf / NaN x; epsilons; in place. Next to each a
 * neighbour the host must keep off bn_iv3 (alpha 0.5; beta 0.25; BN_ACTIVATION through the v8
 * entry; x and y misaligned), and shapes outside bn_iv_* (NCHW 9 members a plane, NHWC C 3).
 * Runs in the parent (bn_iv3_* for both layouts, the default; the grids small enough that
 * bn_iv3_trips takes one trip a block), the FREEDNN_GPU_BN_IV3=0 child (the same cases on the
 * earlier kernels), the =1 child (NHWC on bn_iv2_nhwc*) and the FREEDNN_GPU_BN_IV3_NHWC_R=3
 * child (three trips a block). */
static void iv3_tests(const cudnnDataType_t *dts)
{
    static const int sh[][6] = {/* layout, 5-d, dims */
                                {0, 0, 3, 64, 56, 56}, {0, 0, 5, 1, 8, 8},    {0, 0, 301, 3, 2, 4},
                                {0, 0, 3, 37, 12, 12}, {0, 1, 2, 4, 3, 5},    {1, 0, 3, 64, 56, 56},
                                {1, 0, 3, 256, 7, 11}, {1, 0, 5, 8, 9, 9},    {1, 0, 3, 16, 5, 7},
                                {1, 0, 2, 24, 9, 9},   {1, 0, 2, 512, 3, 5},  {1, 0, 2, 520, 3, 3},
                                {0, 0, 2, 8, 3, 3},    {1, 0, 2, 3, 4, 4},    {1, 0, 1, 8, 2, 3},
                                {1, 0, 3, 64, 13, 11}, {1, 0, 4, 40, 15, 15}, {1, 0, 2, 504, 5, 7}};
    const int nsh = (int)(sizeof sh / sizeof sh[0]);
    static const double eps[3] = {1e-5, 1e-3, 0.5};
    static const int xf[3] = {0, 1, 3}; /* uniform, offset, +Inf / NaN */
    for (int s = 0; s < nsh; s++)
        for (int t = 0; t < 4; t++) {
            if (gm_smoke && (4 * s + t) % 5 != 0)
                continue;
            bn_case_t c =
                base(DIR_INFER,
                     (s + t) % 2 ? CUDNN_BATCHNORM_SPATIAL : CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
                     dts[t], sh[s][0] ? LAY_NHWC : LAY_NCHW, sh[s][1]);
            for (int i = 0; i < 4; i++)
                c.dim[i] = sh[s][2 + i];
            if (sh[s][1])
                c.dim[4] = 8; /* 5-d: 2x4x3x5x8, 120 members a plane */
            c.eps = eps[(s + t) % 3];
            c.xfill = xf[(s + 2 * t) % 3];
            run_case(c);
            if (s % 3 == t) {
                c.in_place = 1;
                run_case(c);
                c.in_place = 0;
            }
            switch ((s + t) % 4) {
            case 0:
                c.alpha = 0.5;
                break;
            case 1:
                c.beta = 0.25;
                break;
            case 2:
                c.v8 = 1;
                c.ops = CUDNN_BATCHNORM_OPS_BN_ACTIVATION;
                c.act = CUDNN_ACTIVATION_RELU;
                break;
            default:
                c.misalign = 1;
                break;
            }
            run_case(c);
        }
}

int main(int argc, char **argv)
{
    /* the children of the earlier inference mappings keep every inference call on them */
    const int iv3_child =
        getenv("FD_GM_RERUN") != NULL &&
        (getenv("FREEDNN_GPU_BN_IV3") != NULL || getenv("FREEDNN_GPU_BN_IV3_NHWC_R") != NULL);
    if (getenv("FD_GM_RERUN") != NULL &&
        (getenv("FREEDNN_GPU_BN_IV2") != NULL || getenv("FREEDNN_GPU_BN_IV2_BLOCKS") != NULL))
        setenv("FREEDNN_GPU_BN_IV3", "0", 1);
    /* the trips child: every layout and type on bn_iv3 (by default FLOAT NHWC is not) */
    if (getenv("FD_GM_RERUN") != NULL && getenv("FREEDNN_GPU_BN_IV3_NHWC_R") != NULL)
        setenv("FREEDNN_GPU_BN_IV3", "3", 1);
    gm_init(argc, argv, "test_gpu_bn");
    const cudnnDataType_t dts[4] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    const cudnnBatchNormMode_t modes[3] = {CUDNN_BATCHNORM_PER_ACTIVATION, CUDNN_BATCHNORM_SPATIAL,
                                           CUDNN_BATCHNORM_SPATIAL_PERSISTENT};
    const cudnnActivationMode_t acts[6] = {CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_CLIPPED_RELU,
                                           CUDNN_ACTIVATION_SIGMOID, CUDNN_ACTIVATION_TANH,
                                           CUDNN_ACTIVATION_ELU, CUDNN_ACTIVATION_SWISH};
    if (iv3_child) { /* the other cases take the kernels they took before bn_iv3 */
        iv3_tests(dts);
        return gm_finish();
    }
    int n = 0;
    /* every direction x mode x dtype x layout, 4-d and 5-d, both alpha/beta pairs */
    for (int d = 0; d < 3; d++)
        for (int m = 0; m < 3; m++)
            for (int t = 0; t < 4; t++)
                for (int l = 0; l < 3; l++) {
                    n++;
                    if (gm_smoke && (t > 0 || l == 2 || m == 2))
                        continue;
                    bn_case_t c = base((dir_t)d, modes[m], dts[t], (layout_t)l, (l + t) % 2);
                    if (n % 2) {
                        c.alpha = 0.5, c.beta = 0.25, c.alpha_p = 0.75, c.beta_p = 0.5;
                    }
                    if (d == DIR_BWD && l == 1)
                        c.saved = 0;
                    run_case(c);
                }
    /* fused ops and activations, training and backward (Ex), inference */
    for (int ops = 1; ops <= 2; ops++)
        for (int a = 0; a < 6; a++)
            for (int d = 0; d < 3; d++) {
                if (gm_smoke && a > 1)
                    continue;
                bn_case_t c = base((dir_t)d, a % 2 ? CUDNN_BATCHNORM_SPATIAL : CUDNN_BATCHNORM_PER_ACTIVATION,
                                   a == 4 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT, (layout_t)(a % 3), a == 5);
                c.ops = (cudnnBatchNormOps_t)ops;
                c.act = acts[a];
                c.coef = a == 1 ? 0.75 : 0.6;
                if (a % 2)
                    c.beta = 0.5, c.beta_p = 0.25;
                c.saved = a != 3;
                run_case(c);
            }
    /* the cluster training forward (batchnorm.cu, bn_cl_train; compute capability 9.0+):
     * SPATIAL / SPATIAL_PERSISTENT, BN and BN_ACTIVATION, FLOAT / HALF / BFLOAT16 packed NCHW
     * with H * W a multiple of the 16-byte vector. Channel sizes that give every cluster size
     * (FLOAT: K = 2 up to 212992 bytes a channel, 4, 8, 16 up to 1703936 bytes; HALF / BFLOAT16
     * twice the members), shares that do not divide evenly (the last CTAs fewer vectors, or
     * none), one channel past 16 shares (FLOAT 32x128x128: the packed path); blends incl. beta 0
     * over the NaN-poisoned y, factor 1 and 0.3, NULL running and / or saved statistics,
     * epsilons, uniform / offset / constant / Inf-NaN x. The smoke subset keeps four (K = 2
     * with an empty CTA in HALF and in FLOAT, K = 4, K = 16 with uneven shares). */
    {
        /* (The K below are the smallest-fit rule's, which the FREEDNN_GPU_BN_CL_K8=0 child runs;
         * by default channels of at least 8 shares of 16 KiB take K >= 8.)
         * K FLOAT / HALF: 2 / 2, 2 / 2 (HALF uneven), 2 / 2 (HALF: an empty CTA), 4 / 2, 8 / 4,
         * 16 / 8, 16 / 8 (uneven), packed path / 16, 8 / 4, 2 (uneven) / -, 2 (an empty CTA)
         * / - (HALF: H * W not a vector multiple), 2 / 2, 2 (exactly 104 KiB a CTA) / 2.
         * Backward (bn_cl_bwd, x and dy in shared memory: 32 bytes a vector): 2 / 2, 2 / 2
         * (uneven), 2 / 2 (an empty CTA), 8 / 4, 16 / 8, packed / 16, packed / 16 (uneven),
         * packed / packed, 16 / 8, 2 (uneven) / -, 2 (an empty CTA) / -, 4 / 2, 4 / 2 (both
         * exactly 104 KiB a CTA). */
        static const int cl[13][4] = {{2, 3, 4, 6},      {5, 3, 1, 8},      {1, 3, 1, 8},
                                      {4, 2, 128, 128},  {8, 2, 128, 128},  {16, 2, 128, 128},
                                      {13, 2, 100, 196}, {32, 1, 128, 128}, {2, 1, 224, 240},
                                      {5, 3, 1, 12},     {1, 3, 1, 4},      {2, 2, 128, 128},
                                      {1, 2, 208, 256}};
        static const double ab[3][2] = {{1, 0}, {0.5, 0.25}, {0.75, 0}};
        static const double eps[3] = {1e-5, 1e-3, 0.5};
        int ci = 0;
        for (int s = 0; s < 13; s++)
            for (int t = 0; t < 4; t++) {
                if (t == 1)
                    continue; /* DOUBLE keeps the per-tile kernels */
                ci++;
                if (gm_smoke && !((s == 2 && t == 2) || (s == 8 && t == 3) || (s == 6 && t == 0) ||
                                  (s == 10 && t == 0)))
                    continue;
                bn_case_t c = base(DIR_TRAIN, ci % 2 ? CUDNN_BATCHNORM_SPATIAL : CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
                                   dts[t], LAY_NCHW, 0);
                memcpy(c.dim, cl[s], sizeof cl[s]);
                c.alpha = ab[(ci + s) % 3][0], c.beta = ab[(ci + s) % 3][1];
                c.factor = ci / 2 % 2 ? 0.3 : 1.0; /* with running statistics: ci % 4 0 and 2 */
                c.null_run = ci % 4 == 1, c.null_save = ci % 4 == 2, c.null_stats = ci % 4 == 3;
                c.eps = eps[(ci / 3 + s) % 3];
                c.xfill = s < 3 || s > 8 ? (ci + 2 * s) % 4 : ci % 5 == 0 ? 1 : 0; /* specials: small */
                if ((ci + s / 2) % 3 == 1) {
                    c.ops = CUDNN_BATCHNORM_OPS_BN_ACTIVATION;
                    c.act = acts[(ci / 4 + s) % 6];
                    c.coef = 0.75;
                }
                run_case(c);
            }
        /* the cluster backward (bn_cl_bwd): the shapes above (K per row above), blends of dx
         * (beta 0 over the NaN-poisoned dx) and of dscale / dbias, saved statistics given and
         * NULL (recomputed with the rotating epsilon), the same x fills (dy uniform), BN and
         * BN_ACTIVATION (cudnnBatchNormalizationBackwardEx) with a rotating activation. The
         * smoke subset keeps five (K = 2 with an empty CTA in HALF and in FLOAT, K = 4 FLOAT,
         * K = 8 BFLOAT16, K = 16 HALF with uneven shares). */
        static const double abp[3][2] = {{1, 0}, {0.75, 0.5}, {0.5, 0}};
        ci = 0;
        for (int s = 0; s < 13; s++)
            for (int t = 0; t < 4; t++) {
                if (t == 1)
                    continue;
                ci++;
                if (gm_smoke && !((s == 2 && t == 2) || (s == 10 && t == 0) ||
                                  (s == 11 && t == 0) || (s == 8 && t == 3) || (s == 6 && t == 2)))
                    continue;
                bn_case_t c = base(
                    DIR_BWD, ci % 2 ? CUDNN_BATCHNORM_SPATIAL : CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
                    dts[t], LAY_NCHW, 0);
                memcpy(c.dim, cl[s], sizeof cl[s]);
                c.alpha = ab[(ci + s) % 3][0], c.beta = ab[(ci + s) % 3][1];
                c.alpha_p = abp[(ci / 2 + s) % 3][0], c.beta_p = abp[(ci / 2 + s) % 3][1];
                c.saved = (s + t) % 2;
                c.eps = eps[(s + t / 2) % 3];
                c.xfill = s < 3 || (s > 8 && s < 11) ? (ci + 2 * s) % 4 : ci % 5 == 0 ? 1 : 0;
                if ((ci + s / 2) % 3 == 1) {
                    c.ops = CUDNN_BATCHNORM_OPS_BN_ACTIVATION;
                    c.act = acts[(ci / 4 + s) % 6];
                    c.coef = 0.75;
                }
                run_case(c);
            }
        /* just outside, forward and backward: H * W not a vector multiple, y = x / dx = dy,
         * PER_ACTIVATION, NHWC, z / dz */
        for (int i = 0; i < 8; i++) {
            const int d = i < 4 ? DIR_TRAIN : DIR_BWD, t = i % 4;
            if (t == 1 || (gm_smoke && t != 2))
                continue;
            bn_case_t c = base((dir_t)d, CUDNN_BATCHNORM_SPATIAL, dts[t], LAY_NCHW, 0);
            c.saved = t != 2; /* backward: HALF recomputes the statistics */
            c.dim[0] = 4, c.dim[1] = 3, c.dim[2] = 3, c.dim[3] = t == 0 ? 6 : 12; /* H * W 18, 36 */
            run_case(c);
            memcpy(c.dim, cl[3], sizeof cl[3]);
            c.in_place = 1;
            run_case(c);
            c.in_place = 0;
            c.mode = CUDNN_BATCHNORM_PER_ACTIVATION;
            c.dim[0] = 64, c.dim[2] = 8, c.dim[3] = 8;
            run_case(c);
            c.mode = CUDNN_BATCHNORM_SPATIAL;
            c.lay = LAY_NHWC;
            c.dim[1] = 8;
            run_case(c);
            c.lay = LAY_NCHW;
            c.ops = CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
            c.act = CUDNN_ACTIVATION_RELU;
            run_case(c);
        }
    }
    /* the packed NHWC path (batchnorm.cu, bn_pk2_*; FREEDNN_GPU_BN_PK2=0: bn_pk_*): SPATIAL /
     * SPATIAL_PERSISTENT training (the Ex entry with its workspace, the legacy entry on the
     * handle's scratch) and backward (the Ex entry with its workspace, the legacy one on the
     * scratch) of FLOAT / HALF / BFLOAT16 NHWC data. bn_pk2_* chunks of 192 rows rounded up to
     * whole trips of 4 rows x rpp row lanes: HALF C 256 (32 columns, 8 row lanes, 192-row
     * chunks) over 231 rows (a chunk and a tail of 39: a full trip and one of 7), C 24 (3
     * columns, 85 lanes, 340-row chunks) over 722, C 8 (one column, 256 lanes, 1024-row
     * chunks) over 2178, C 264 (2 groups of 17 columns, 15 lanes, 240-row chunks) over 243,
     * C 2048 (8 groups of 32) over 200; FLOAT C 128 (32 columns) over 338, C 12 (3 columns)
     * over 800, C 1040 (9 groups of 29, the last 28) over 198; BFLOAT16 C 256 and C 8. Blends
     * (beta 0 over the NaN-poisoned output), BN_ACTIVATION with a rotating activation, saved
     * statistics given and NULL, offset x, in place. The whole program runs again with
     * FREEDNN_GPU_BN_PK2_ROWS=1 (one trip a chunk: many chunks) and FREEDNN_GPU_BN_PK2=0. */
    {
        static const int pk[10][4] = {
            {3, 256, 7, 11},  {2, 24, 19, 19}, {2, 8, 33, 33},   {3, 264, 9, 9},  {2, 2048, 10, 10},
            {2, 128, 13, 13}, {2, 12, 20, 20}, {2, 1040, 9, 11}, {3, 256, 7, 11}, {2, 8, 33, 33}};
        static const cudnnDataType_t pkt[10] = {
            CUDNN_DATA_HALF,     CUDNN_DATA_HALF,    CUDNN_DATA_HALF,  CUDNN_DATA_HALF,
            CUDNN_DATA_HALF,     CUDNN_DATA_FLOAT,   CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
            CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16};
        static const double ab[3][2] = {{1, 0}, {0.5, 0.25}, {0.75, 0}};
        int ci = 0;
        for (int s = 0; s < 10; s++)
            for (int d = DIR_TRAIN; d <= DIR_BWD; d++)
                for (int v = 0; v < 3; v++) {
                    ci++;
                    if (gm_smoke && !(v == 0 && (s == 0 || s == 5)))
                        continue;
                    bn_case_t c =
                        base((dir_t)d,
                             ci % 2 ? CUDNN_BATCHNORM_SPATIAL : CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
                             pkt[s], LAY_NHWC, 0);
                    memcpy(c.dim, pk[s], sizeof pk[s]);
                    c.alpha = ab[(ci + v) % 3][0], c.beta = ab[(ci + v) % 3][1];
                    if (d == DIR_BWD)
                        c.alpha_p = ab[(ci + 1) % 3][0], c.beta_p = ab[(ci + 1) % 3][1];
                    c.saved = (s + v) % 2;
                    c.xfill = ci % 5 == 0 ? 1 : 0;
                    c.legacy = d == DIR_TRAIN && v == 1;
                    c.bwd_ws = d == DIR_BWD && v != 1;
                    if (v == 2) {
                        c.ops = CUDNN_BATCHNORM_OPS_BN_ACTIVATION;
                        c.act = acts[(ci + s) % 6];
                        c.coef = 0.75;
                    }
                    c.in_place = v == 1 && s % 3 == 0;
                    run_case(c);
                }
        /* the lean apply pass (bn_pk2_lean0_nhwc / bn_pk2_lean1_nhwc; FREEDNN_GPU_BN_PK2_LEAN=0:
         * bn_pk2_apply*_nhwc): ops BN, alpha 1, beta 0 over the NaN-poisoned output, every shape
         * above (tails of a trip of 4 / 2 rows, one column of 256 lanes, groups of 17 / 29
         * columns), both directions, saved statistics given and NULL, offset x, in place, the
         * legacy entry; and next to each the same case where the host must keep the general
         * pass (BN_ACTIVATION; beta 0.25; alpha 0.5): the lean pass there would be wrong. */
        for (int s = 0; s < 10; s++)
            for (int d = DIR_TRAIN; d <= DIR_BWD; d++)
                for (int v = 0; v < 2; v++) {
                    if (gm_smoke && !(s == 0 || s == 5 || s == 8))
                        continue;
                    bn_case_t c = base((dir_t)d, CUDNN_BATCHNORM_SPATIAL, pkt[s], LAY_NHWC, 0);
                    memcpy(c.dim, pk[s], sizeof pk[s]);
                    c.saved = (s + d) % 2;
                    c.xfill = s % 4 == 1 ? 1 : 0;
                    c.legacy = d == DIR_TRAIN && s % 3 == 2;
                    c.bwd_ws = d == DIR_BWD && s % 3 != 2;
                    if (d == DIR_BWD)
                        c.alpha_p = ab[s % 3][0], c.beta_p = ab[s % 3][1];
                    if (v == 0) {
                        c.in_place = s % 4 == 3;
                        run_case(c);
                        continue;
                    }
                    switch ((s + d) % 3) {
                    case 0:
                        c.ops = CUDNN_BATCHNORM_OPS_BN_ACTIVATION;
                        c.act = acts[s % 6];
                        c.coef = 0.75;
                        break;
                    case 1:
                        c.beta = 0.25;
                        break;
                    default:
                        c.alpha = 0.5;
                        break;
                    }
                    run_case(c);
                }
    }
    if (!gm_smoke) {
        /* v8 entries */
        for (int d = 0; d < 3; d++) {
            bn_case_t c = base((dir_t)d, CUDNN_BATCHNORM_SPATIAL, CUDNN_DATA_FLOAT, LAY_NHWC, 0);
            c.v8 = 1;
            c.ops = CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
            c.act = CUDNN_ACTIVATION_RELU;
            run_case(c);
            c.ops = CUDNN_BATCHNORM_OPS_BN;
            run_case(c);
        }
        /* factor 1 over poisoned running statistics, NULL outputs, epsilon 0 */
        bn_case_t c = base(DIR_TRAIN, CUDNN_BATCHNORM_SPATIAL, CUDNN_DATA_FLOAT, LAY_NCHW, 0);
        c.factor = 1.0;
        run_case(c);
        c.factor = 0.5, c.null_stats = 1, c.eps = 1e-300;
        run_case(c);
        /* in place */
        for (int d = 0; d < 3; d++) {
            c = base((dir_t)d, CUDNN_BATCHNORM_SPATIAL, CUDNN_DATA_FLOAT, LAY_NHWC, 0);
            c.in_place = 1;
            run_case(c);
        }
        /* the packed inference pass (batchnorm.cu, bn_iv_*): NCHW with H * W a multiple of
         * the 16-byte vector (planes of fewer vectors than a warp and of more than a block),
         * NHWC with C one (C past one block of vector columns: 1040 FLOAT), shapes only one
         * layout fits (H * W = 81; C = 8 in HALF), 5-d, SPATIAL and SPATIAL_PERSISTENT, every
         * ops value through the v8 entry with a rotating activation, both blends, in place;
         * DOUBLE keeps the elementwise kernel. The second mapping (bn_iv2_*, 4 vectors a
         * thread and trip): NCHW planes of 1 (HALF) and 2 (FLOAT) vectors (tpp 1), of a
         * number of vectors no multiple of 4 (3, 5, 6, 10, 98, 196...), planes of more than a
         * trip split in segments (1x2x96x96: FLOAT 2304 vectors, three segments, the last a
         * quarter trip; HALF 1152, two); NHWC odd column counts (C 24 HALF: 3 columns, 255
         * threads of 256 busy; C 264 HALF 33 columns: two groups of 17 and 16, FLOAT 66: three
         * of 22; C 1040: FLOAT 9 groups of 29 columns, an idle one in the last, HALF 5 of
         * 26); the whole program again with FREEDNN_GPU_BN_IV2_BLOCKS=7 (every thread several
         * pieces / trips, segments of two trips) and with FREEDNN_GPU_BN_IV2=0 (the first
         * mapping). */
        const int iv[9][5] = {{3, 8, 4, 6, 1},    {2, 16, 5, 8, 1},   {2, 24, 9, 9, 1},
                              {4, 64, 28, 28, 1}, {2, 1040, 2, 2, 1}, {2, 8, 3, 4, 4},
                              {2, 3, 2, 4, 1},    {1, 2, 96, 96, 1},  {3, 264, 3, 5, 1}};
        for (int s = 0; s < 9; s++)
            for (int t = 0; t < 4; t++)
                for (int l = 0; l < 2; l++) {
                    c = base(DIR_INFER,
                             s % 2 ? CUDNN_BATCHNORM_SPATIAL : CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
                             dts[t], (layout_t)l, s == 5);
                    for (int i = 0; i < c.nb; i++)
                        c.dim[i] = iv[s][i];
                    if ((s + t + l) % 2)
                        c.alpha = 0.5, c.beta = 0.25;
                    run_case(c);
                    c.v8 = 1;
                    c.ops = (s + l) % 3 == 0 ? CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION
                                             : CUDNN_BATCHNORM_OPS_BN_ACTIVATION;
                    c.act = acts[(s + t) % 6];
                    c.coef = 0.75;
                    run_case(c);
                }
        for (int t = 0; t < 4; t++)
            for (int l = 0; l < 2; l++) {
                c = base(DIR_INFER, CUDNN_BATCHNORM_SPATIAL, dts[t], (layout_t)l, 0);
                for (int i = 0; i < 4; i++)
                    c.dim[i] = iv[3][i];
                c.in_place = 1;
                run_case(c);
            }
        /* one group of M = 1 (running variance NaN), odd sizes, large tensors */
        c = base(DIR_TRAIN, CUDNN_BATCHNORM_PER_ACTIVATION, CUDNN_DATA_FLOAT, LAY_NCHW, 0);
        c.dim[0] = 1, c.dim[1] = 3, c.dim[2] = 1, c.dim[3] = 1;
        run_case(c);
        int big[3][4] = {{1, 1, 1, 1000}, {7, 33, 17, 1}, {16, 64, 64, 64}};
        for (int b = 0; b < 3; b++)
            for (int d = 0; d < 3; d++)
                for (int l = 0; l < 2; l++) {
                    c = base((dir_t)d, CUDNN_BATCHNORM_SPATIAL, CUDNN_DATA_FLOAT, (layout_t)l, 0);
                    memcpy(c.dim, big[b], sizeof big[b]);
                    run_case(c);
                    if (b == 2 && l == 0) {
                        c.mode = CUDNN_BATCHNORM_PER_ACTIVATION;
                        run_case(c);
                    }
                }
    }
    if (getenv("FD_GM_RERUN") == NULL) /* last: the cases above keep their seeds */
        iv3_tests(dts);
    gm_rerun_with(argv, "FREEDNN_GPU_BN_CLUSTER", "0"); /* the same cases on the earlier paths */
    gm_rerun_with(argv, "FREEDNN_GPU_BN_CLUSTER_BWD", "0"); /* and the earlier backward */
    gm_rerun_with(argv, "FREEDNN_GPU_BN_CL_KIB", "16"); /* the clusters at their largest K */
    gm_rerun_with(argv, "FREEDNN_GPU_BN_CL_K8", "0");   /* K 2 and 4 for channels >= 128 KiB */
    gm_rerun_with(argv, "FREEDNN_GPU_BN_CL_1PASS", "0"); /* bn_cl_train: two-pass statistics */
    gm_rerun_with(argv, "FREEDNN_GPU_BN_IV2", "0");     /* the first inference mapping */
    gm_rerun_with(argv, "FREEDNN_GPU_BN_IV2_BLOCKS", "7"); /* bn_iv2_*: grid-stride walks */
    gm_rerun_with(argv, "FREEDNN_GPU_BN_PK2", "0");        /* the first packed NHWC mapping */
    gm_rerun_with(argv, "FREEDNN_GPU_BN_PK2_ROWS", "1");   /* bn_pk2_*: a trip a chunk */
    gm_rerun_with(argv, "FREEDNN_GPU_BN_PK2_LEAN", "0");   /* bn_pk2_*: the general apply */
    gm_rerun_with(argv, "FREEDNN_GPU_BN_GR", "0");         /* training: the three launches */
    gm_rerun_with(argv, "FREEDNN_GPU_BN_GR", "1");         /* bn_gr_*: HALF, BFLOAT16 too */
    gm_rerun_with(argv, "FREEDNN_GPU_BN_GR_CTAS", "3");    /* bn_gr_*: most chunks read twice */
    gm_rerun_with(argv, "FREEDNN_GPU_BN_GR_HOLD", "0");    /* bn_gr_*: every chunk read twice */
    gm_rerun_with(argv, "FREEDNN_GPU_BN_IV3", "0");        /* iv3_tests on bn_iv2_* */
    gm_rerun_with(argv, "FREEDNN_GPU_BN_IV3", "1");        /* NHWC on bn_iv2_nhwc* */
    gm_rerun_with(argv, "FREEDNN_GPU_BN_IV3_NHWC_R", "3"); /* bn_iv3_nhwc: 3 trips a block */
    gm_rerun_with(argv, "FREEDNN_GPU_BN_PK2_BACK", "0");   /* bn_pk2_lean*: trips first to last */
    gm_rerun_with(argv, "FREEDNN_GPU_PDL", "0");           /* combine and apply as plain launches */
    return gm_finish();
}
