/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_pool_act.c - the cuda rows of pooling (src/cuda/pooling.cu) and activation
 * (src/cuda/activation.cu) against the ref backend through the public API, with the
 * gpu_mirror harness (guards, unchanged inputs, poisoned outputs, determinism re-runs).
 *
 * Pooling: every mode and NaN option, 1 to 3 spatial dims, floor and ceil output sizes,
 * padding, crop (negative pad) and pad >= window, NCHW / NHWC / a permuted padded layout,
 * alpha/beta {1, 0} and {0.5, 0.25}, integer fills with many ties, real fills, NaN and -inf
 * fills, FLOAT, DOUBLE, HALF, BFLOAT16, and one 4M-element tensor; max backward over planes of
 * several 32 x 64 tiles (pool_bwd_tile) in every geometry; the lean 2-d max forward
 * (pool_max2d_*) over 56 x 56 and odd planes, C = 16 (128-bit vectors channels-last); the
 * stride-2 sweeps (pool_s2_*: windows 2 and 3, pads 0-2, every mode, NCHW and channels-last,
 * 56 x 56, odd, one-row and wider-than-a-warp planes, NaN / -inf fills); the FLOAT 3x3 / 2 pad 1
 * max backward gather (pool_s2g_max_bwd_f32: partial row vectors, rows across warps and warps
 * across rows, ReLU zeros); its HALF / BFLOAT16 twins and the channels-last FLOAT / HALF /
 * BFLOAT16 gather (pool_s2g_max_bwd_nhwc_*: 2 x 2 dx blocks, C not a multiple of the vector
 * declined) and, on the same channels-last cases of floor sizes, the column walks of
 * pooling_cwn.cuh (pool_cwn_max_bwd_*: strips of 14 window rows); the channels-last averages of
 * stride 2 (pool_avgv_*: pool_avgv_tests); the lean
 * max forward of stride 2 (pool_lean_*: pool_lean_tests). The W-innermost 3x3 / 2 pad 1 max
 * backward cases of W <= 128 and y of floor sizes take the column walks of pooling_cw.cuh
 * (pool_cw_max_bwd*: 16 lanes a strip up to W 64, 32 up to 128, the ResNet stem's 112 x 112
 * included; HALF / BFLOAT16 rows of 16-byte vectors, W 8 / 16 / 56 / 64 / 112 / 128 / 200 and the
 * padded rows, pool_cw8_max_bwd*: 8 columns a lane, 8 / 16 / 32 lanes a strip) in the parent and
 * the FREEDNN_GPU_BW2=0 child, the others (FLOAT W 200, ceil sizes) the shared-memory tiles of
 * pooling_smb.cuh (pool_smb_max_bwd_*): 4096 dx elements a tile (the smoke set's 75 x 140 plane
 * takes 3 tiles, the others one). Reruns itself with FREEDNN_GPU_BW2=0, FREEDNN_GPU_BW3=0,
 * FREEDNN_GPU_BW5=0 (both: without pool_cw and pool_smb too), FREEDNN_GPU_POOL_CW=0 (pool_smb on
 * every such case), FREEDNN_GPU_POOL_CW_R=1 (strips of one window row), FREEDNN_GPU_POOL_CW8=0 (the
 * 16-bit rows at 4 columns a lane), FREEDNN_GPU_POOL_CWN=0 (pool_s2g_max_bwd_nhwc_* on the
 * channels-last cases), FREEDNN_GPU_POOL_CWN_R=1 (pool_cwn: strips of one window row), and without
 * pool_cw FREEDNN_GPU_POOL_SMB=0 (the gathers pool_s2g_* on those cases) and
 * FREEDNN_GPU_POOL_SMB_T=512 (tiles of 1-4 window rows: the cases on several tiles),
 * FREEDNN_GPU_POOL_AVGV=0 (pool_avgv_tests only), FREEDNN_GPU_POOL_LEAN=0 (pool_lean_tests only:
 * the alpha 1, beta 0 max forward of pool_tests' cases takes pool_lean_* in the parent and the
 * other children) and FREEDNN_GPU_ACT_LEAN=0 / 2 (act_tests only: the packed kernels' exact branch,
 * and the lean exact kernels at 2 vectors a thread; the parent runs them at 1). The cuda rows
 * reproduce the reference bit for bit (sums in double in its order), so the tolerance is 0 (a
 * NaN-carrying output compares NaN positions instead of payload bits). Activation: every mode and
 * NaN option (NaN inputs and a NaN clipped-relu coef included), 4-d, 5-d and 2-d shapes in the
 * three layouts, in place, both blends, the four types, one 4M tensor; the piecewise modes are
 * exact, the transcendental ones within gm_tol.
 * --smoke: a few small cases per op (compute-sanitizer).
 */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_mirror.h"

#include "gpu_layouts.h"

/* ================================ pooling ================================================== */

typedef struct {
    cudnnDataType_t dt;
    cudnnPoolingMode_t mode;
    cudnnNanPropagation_t nan;
    int nsp, win[3], pad[3], stride[3];
    tshape_t x, y;
    int bwd;
    double alpha, beta;
    fill_t fill;
    uint64_t seed;
    int misalign; /* x and y one element into their buffers (pool_misalign) */
} pool_case_t;

/* 1: pool_fill gives every other zero of x a negative sign (the max chains' zero rule) */
static int pool_zsign;
/* 1: pool_fill makes x a ReLU output before the signs above: every element with its sign bit
 * set, and four of every five others, become +0 (most windows all zero) */
static int pool_relu;
/* 1: x and y rows (W stride 1, NCHW order) padded to 16 elements, so odd widths keep 16-byte
 * aligned rows (pool_lean_nchw_*); 2: x's only (y packed) */
static int pool_rowpad;
/* 1: x and y start one element into their buffers: not 16-byte aligned */
static int pool_misalign;

/* buffers: fwd x, y; bwd x, y, dy, dx */
static void pool_fill(int i, void *p, size_t bytes, void *ctx)
{
    const pool_case_t *c = ctx;
    if (!c->bwd && i == 1 && c->beta == 0)
        return;
    if (c->bwd && i == 3 && c->beta == 0)
        return;
    fill_buf(c->dt, p, bytes, c->fill, c->seed * 7 + (uint64_t)i, -4, 4);
    if (pool_relu && i == 0) {
        const size_t es = fd_test_dtype_size(c->dt);
        for (size_t e = 0; e < bytes / es; e++) {
            unsigned char *b = (unsigned char *)p + e * es;
            if ((b[es - 1] & 0x80) || e % 5 != 0)
                memset(b, 0, es);
        }
    }
    if (pool_zsign && i == 0) {
        const size_t es = fd_test_dtype_size(c->dt);
        int k = 0;
        for (size_t e = 0; e < bytes / es; e++) {
            unsigned char *b = (unsigned char *)p + e * es;
            int zero = 1;
            for (size_t q = 0; q + 1 < es; q++)
                zero &= b[q] == 0;
            zero &= (b[es - 1] & 0x7f) == 0; /* little-endian: the sign is the top byte's bit */
            if (zero && (k++ & 1))
                b[es - 1] |= 0x80;
        }
    }
}

static cudnnStatus_t pool_call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    const pool_case_t *c = ctx;
    cudnnPoolingDescriptor_t pd = NULL;
    FD_EXPECT_STATUS(cudnnCreatePoolingDescriptor(&pd), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetPoolingNdDescriptor(pd, c->mode, c->nan, c->nsp, c->win, c->pad,
                                                 c->stride),
                     CUDNN_STATUS_SUCCESS);
    cudnnTensorDescriptor_t xd = tdesc(c->dt, &c->x), yd = tdesc(c->dt, &c->y);
    double ad, bd;
    float af, bf;
    const void *pa, *pb;
    scale_ptrs(c->dt, c->alpha, c->beta, &ad, &bd, &af, &bf, &pa, &pb);
    cudnnStatus_t st;
    const size_t off = c->misalign ? fd_test_dtype_size(c->dt) : 0;
    if (!c->bwd)
        st = cudnnPoolingForward(h, pd, pa, xd, (char *)ptr[0] + off, pb, yd, (char *)ptr[1] + off);
    else
        st = cudnnPoolingBackward(h, pd, pa, yd, ptr[1], yd, ptr[2], xd, ptr[0], pb, xd, ptr[3]);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyPoolingDescriptor(pd);
    return st;
}

static const char *const pool_mode_names[4] = {"max", "avg_incl", "avg_excl", "max_det"};

/* in: spatial input sizes; ceil: use the ceil-mode output size where it differs */
static void pool_case(cudnnDataType_t dt, cudnnPoolingMode_t mode, cudnnNanPropagation_t nan,
                      int nsp, int n, int ch, const int *in, int win, int pad, int stride, int ceil,
                      layout_t l, int bwd, double alpha, double beta, fill_t fill, uint64_t seed)
{
    pool_case_t c;
    memset(&c, 0, sizeof c);
    c.dt = dt, c.mode = mode, c.nan = nan, c.nsp = nsp, c.bwd = bwd;
    c.alpha = alpha, c.beta = beta, c.fill = fill, c.seed = seed;
    int xd[5] = {n, ch}, yd[5] = {n, ch};
    for (int i = 0; i < nsp; i++) {
        c.win[i] = win, c.pad[i] = pad, c.stride[i] = stride;
        xd[2 + i] = in[i];
        int span = in[i] + 2 * pad, fl = 1 + (span - win) / stride;
        int hi = pad < 0 ? in[i] + pad : in[i];
        int ce = ((span - win) % stride != 0 && fl * stride - pad < hi) ? fl + 1 : fl;
        yd[2 + i] = ceil ? ce : fl;
    }
    c.x = shape_of(l, nsp + 2, xd);
    c.y = shape_of(l, nsp + 2, yd);
    if (pool_rowpad && nsp == 2) /* NCHW order, rows of a multiple of 16 elements */
        for (int k = 0; k < (pool_rowpad == 1 ? 2 : 1); k++) {
            tshape_t *t = k ? &c.y : &c.x;
            t->stride[3] = 1;
            t->stride[2] = (t->dim[3] + 15) / 16 * 16;
            t->stride[1] = t->stride[2] * t->dim[2];
            t->stride[0] = t->stride[1] * t->dim[1];
            t->ext = (int64_t)t->stride[0] * t->dim[0];
        }
    c.misalign = pool_misalign;
    const size_t es = fd_test_dtype_size(dt);
    const int nan_out = fill == F_SPECIAL;
    const double tol = nan_out ? 0x1p-1074 : 0; /* compare NaN positions, values exactly */
    gm_case_t g;
    memset(&g, 0, sizeof g);
    char label[256];
    snprintf(label, sizeof label,
             "pool %s %s %s nan%d nsp%d n%d c%d in%dx%dx%d win%d pad%d str%d%s %s%s%s a%g b%g "
             "fill%d%s%s",
             bwd ? "bwd" : "fwd", fd_test_dtype_short(dt), pool_mode_names[mode], (int)nan, nsp, n,
             ch, in[0], nsp > 1 ? in[1] : 1, nsp > 2 ? in[2] : 1, win, pad, stride,
             ceil ? " ceil" : "", layout_names[l], pool_rowpad ? " rowpad" : "",
             pool_rowpad == 2 ? "x" : "", alpha, beta, (int)fill,
             pool_misalign ? " misaligned" : "",
             pool_zsign  ? (pool_relu ? " relu-0" : " -0")
             : pool_relu ? " relu"
                         : "");
    g.label = label;
    g.det = 1;
    g.fill = pool_fill;
    g.call = pool_call;
    g.ctx = &c;
    g.want = CUDNN_STATUS_SUCCESS;
    gm_role_t out_role = beta != 0 ? GM_INOUT : GM_OUT;
    if (!bwd) {
        g.nbuf = 2;
        g.buf[0] = (gm_buf_t){"x", (size_t)(c.x.ext + c.misalign) * es, dt, GM_IN, 0, 0};
        g.buf[1] = (gm_buf_t){"y", (size_t)(c.y.ext + c.misalign) * es, dt, out_role, tol, 0};
    } else {
        g.nbuf = 4;
        g.buf[0] = (gm_buf_t){"x", (size_t)c.x.ext * es, dt, GM_IN, 0, 0};
        g.buf[1] = (gm_buf_t){"y", (size_t)c.y.ext * es, dt, GM_IN, 0, 0};
        g.buf[2] = (gm_buf_t){"dy", (size_t)c.y.ext * es, dt, GM_IN, 0, 0};
        g.buf[3] = (gm_buf_t){"dx", (size_t)c.x.ext * es, dt, out_role, tol, 0};
    }
    gm_run(&g);
}

static void pool_tests(void)
{
    const cudnnPoolingMode_t modes[4] = {CUDNN_POOLING_MAX, CUDNN_POOLING_MAX_DETERMINISTIC,
                                         CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                         CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING};
    /* window, pad, stride, ceil */
    static const int geo[][4] = {{3, 1, 2, 0}, {2, 0, 2, 0}, {3, 1, 2, 1}, {3, 0, 1, 0},
                                 {3, -1, 2, 0}, {2, 2, 1, 0}, {4, 1, 3, 1}};
    const int ngeo = (int)(sizeof geo / sizeof geo[0]);
    static const int in3[3] = {5, 7, 9}, in2[3] = {9, 11, 1}, in1[3] = {13, 1, 1};
    static const int tiled[3] = {75, 140, 1}; /* 3 x 3 tiles of 32 x 64 */
    const int *ins[4] = {NULL, in1, in2, in3};
    uint64_t seed = 1;
    if (gm_smoke) {
        for (int bwd = 0; bwd < 2; bwd++)
            for (int m = 0; m < 4; m++)
                pool_case(CUDNN_DATA_FLOAT, modes[m], CUDNN_PROPAGATE_NAN, 2, 2, 3, in2, 3, 1, 2,
                          1, L_NHWC, bwd, 0.5, 0.25, F_INT, seed++);
        pool_case(CUDNN_DATA_FLOAT, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 3, tiled, 3, 1, 2, 0,
                  L_NCHW, 1, 0.5, 0.25, F_INT, seed++);
        for (int bwd = 0; bwd < 2; bwd++) /* the sweeps: pool_s2_{fwd,bwd}_vec, pool_s2_fwd */
            pool_case(CUDNN_DATA_HALF, modes[bwd ? 0 : 3], CUDNN_PROPAGATE_NAN, 2, 2, 16, in2, 3, 1, 2,
                      0, (layout_t)(1 - bwd), bwd, 0.5, 0.25, F_INT, seed++);
        static const int odd29[3] = {17, 29, 1}; /* pool_s2_max_fwd_rows' partial row vectors */
        pool_case(CUDNN_DATA_FLOAT, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 3, odd29, 3, 1, 2,
                  0, L_ODD, 0, 1, 0, F_SPECIAL, seed++);
        /* pool_s2g_max_bwd_f32: partial last vectors, a blend; then 56 x 56 without */
        pool_case(CUDNN_DATA_FLOAT, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 3, odd29, 3, 1, 2,
                  0, L_ODD, 1, 0.5, 0.25, F_SPECIAL, seed++);
        static const int r56s[3] = {56, 56, 1};
        pool_case(CUDNN_DATA_FLOAT, CUDNN_POOLING_MAX_DETERMINISTIC, CUDNN_NOT_PROPAGATE_NAN, 2, 1,
                  2, r56s, 3, 1, 2, 0, L_NCHW, 1, 1, 0, F_INT, seed++);
        /* FREEDNN_GPU_BW5's kernels: channels-last f16 (pool_cwn's walk), W-innermost bf16
         * partial vectors */
        pool_case(CUDNN_DATA_HALF, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 16, odd29, 3, 1, 2,
                  0, L_NHWC, 1, 0.5, 0.25, F_SPECIAL, seed++);
        pool_case(CUDNN_DATA_BFLOAT16, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 3, odd29, 3,
                  1, 2, 0, L_ODD, 1, 1, 0, F_INT, seed++);
        /* pool_cwn_max_bwd<HALF, false> (a blend): 2 strips of 14 window rows (a halo step), 3
         * vectors, ties */
        pool_case(CUDNN_DATA_HALF, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 24, r56s, 3, 1,
                  2, 0, L_NHWC, 1, 0.5, 0.25, F_INT, seed++);
        static const int w12[3] = {5, 12, 1}; /* pool_cw at 4 columns a lane (rows of 12) */
        pool_case(CUDNN_DATA_HALF, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 3, w12, 3, 1,
                  2, 0, L_NCHW, 1, 0.5, 0.25, F_INT, seed++);
        static const int w112[3] = {9, 112, 1}; /* pool_cw8's 16-lane strips, both sums */
        for (int k = 0; k < 2; k++)
            pool_case(CUDNN_DATA_HALF, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 3, w112, 3, 1,
                      2, 0, L_NCHW, 1, k ? 0.5 : 1, k ? 0.25 : 0, F_SPECIAL, seed++);
        return;
    }
    /* max backward by tiles (pool_bwd_tile: 32 x 64 dx per block): planes of several tiles
     * in both dims, every geometry, ties (integer fills) and NaNs, both NaN options, NCHW and
     * odd strides */
    for (int gi = 0; gi < ngeo; gi++)
        for (int m = 0; m < 2; m++)
            for (int f = 0; f < 2; f++) {
                const int blend = (gi + m + f) % 2;
                pool_case(dtypes[(gi + f) % 4], modes[m], (cudnnNanPropagation_t)((gi + f) % 2), 2, 2, 3, tiled,
                          geo[gi][0], geo[gi][1], geo[gi][2], geo[gi][3], blend ? L_ODD : L_NCHW, 1,
                          blend ? 0.5 : 1, blend ? 0.25 : 0, f ? F_SPECIAL : F_INT, seed++);
            }
    for (int bwd = 0; bwd < 2; bwd++)
        for (int t = 0; t < 4; t++)
            for (int m = 0; m < 4; m++)
                for (int nsp = 1; nsp <= 3; nsp++)
                    for (int gi = 0; gi < ngeo; gi++) {
                        const int *in = ins[nsp];
                        const layout_t l = (layout_t)((gi + nsp + m) % 3);
                        const int blend = (gi + m + bwd) % 2;
                        pool_case(dtypes[t], modes[m], (cudnnNanPropagation_t)(gi % 2), nsp, 2, 3,
                                  in, geo[gi][0], geo[gi][1], geo[gi][2], geo[gi][3], l, bwd,
                                  blend ? 0.5 : 1, blend ? 0.25 : 0, F_INT, seed++);
                    }
    /* every layout, real fills, NaN / -inf fills with both NaN options */
    for (int bwd = 0; bwd < 2; bwd++)
        for (int t = 0; t < 4; t++)
            for (int m = 0; m < 4; m++)
                for (int l = 0; l < 3; l++) {
                    pool_case(dtypes[t], modes[m], CUDNN_NOT_PROPAGATE_NAN, 2, 3, 5, in2, 3, 1, 2,
                              1, (layout_t)l, bwd, 1, 0, F_REAL, seed++);
                    for (int nan = 0; nan < 2; nan++)
                        pool_case(dtypes[t], modes[m], (cudnnNanPropagation_t)nan, 2, 2, 4, in2, 3,
                                  1, 2, 0, (layout_t)l, bwd, 0.5, 0.25, F_SPECIAL, seed++);
                }
    /* the lean 2-d max forward (pool_max2d_plane; pool_max2d_vec for channels-last C a
     * multiple of the vector): ResNet's 3x3 stride 2 pad 1 over 56 x 56 and odd planes, both
     * blends, ties and NaN fills, both NaN options, all four types */
    static const int r56[3] = {56, 56, 1}, odd[3] = {29, 31, 1};
    for (int t = 0; t < 4; t++)
        for (int l = 0; l < 2; l++)
            for (int f = 0; f < 2; f++) {
                const int blend = (t + l + f) % 2;
                pool_case(dtypes[t], modes[f], (cudnnNanPropagation_t)((t + f) % 2), 2, 2, 16,
                          f ? odd : r56, 3, 1, 2, 0, (layout_t)l, 0, blend ? 0.5 : 1,
                          blend ? 0.25 : 0, f ? F_SPECIAL : F_INT, seed++);
            }
    /* the stride-2 sweeps (pool_s2_fwd / pool_s2_bwd with W innermost, pool_s2_fwd_vec /
     * pool_s2_bwd_vec channels-last with C = 16, a whole 16-byte vector in every type): every
     * mode and type, windows 2 and 3, pads 0, 1, 2, ceil sizes, planes of 56 x 56,
     * odd sizes, one row, a row wider than a warp's 31 column pairs (75: 38 pairs, 2 warps),
     * chunks of 2 to 8 window rows (small problems get short chunks), both blends, ties */
    static const int s2geo[][4] = {{3, 1, 2, 0}, {2, 0, 2, 0}, {3, 0, 2, 1}, {2, 1, 2, 1},
                                   {3, 2, 2, 0}};
    static const int s2in[4][3] = {{56, 56, 1}, {29, 31, 1}, {9, 75, 1}, {1, 5, 1}};
    for (int bwd = 0; bwd < 2; bwd++)
        for (int t = 0; t < 4; t++)
            for (int m = 0; m < 4; m++)
                for (int l = 0; l < 2; l++)
                    for (int gi = 0; gi < 5; gi++) {
                        const int k = (bwd + t + m + l + gi) % 4;
                        const int blend = (t + m + gi + l) % 2;
                        /* one row only where the padded row holds a window */
                        const int *in = s2in[k == 3 && 1 + 2 * s2geo[gi][1] < s2geo[gi][0] ? 1 : k];
                        const fill_t f = m >= 2 && (gi + t) % 2 ? F_REAL : F_INT;
                        pool_case(dtypes[t], modes[m], (cudnnNanPropagation_t)((gi + l) % 2), 2,
                                  2, l ? 16 : 3, in, s2geo[gi][0], s2geo[gi][1], s2geo[gi][2],
                                  s2geo[gi][3], (layout_t)l, bwd, blend ? 0.5 : 1,
                                  blend ? 0.25 : 0, f, seed++);
                    }
    /* the sweeps' NaN and -inf routing: both NaN options, max and max_det, 3x3 and 2x2 */
    for (int bwd = 0; bwd < 2; bwd++)
        for (int t = 0; t < 4; t++)
            for (int l = 0; l < 2; l++)
                for (int nan = 0; nan < 2; nan++)
                    pool_case(dtypes[t], modes[(t + nan) % 2], (cudnnNanPropagation_t)nan, 2, 3,
                              l ? 16 : 4, s2in[(t + l) % 3], nan ? 3 : 2, nan, 2, 0, (layout_t)l,
                              bwd, nan ? 0.5 : 1, nan ? 0.25 : 0, F_SPECIAL, seed++);
    /* pool_s2_max_fwd_vec (channels-last max forward, 16-byte vectors, rows loaded a step
     * ahead, lane-wise max chains redone by the exact scan where NaN or zero): 16 vectors per
     * pixel, 56 x 56 and odd planes, 3x3 pad 1, 2x2, 3x3 pad 0 ceil, both NaN options and
     * blends, +0 / -0 ties; then the benchmark's problems (n32, f32 C 128,
     * f16 C 256, 56 x 56: chunks of 4 window rows on 132 SMs), NHWC and NCHW */
    pool_zsign = 1;
    static const int s2odd[3] = {29, 31, 1};
    for (int t = 0; t < 4; t++)
        for (int nan = 0; nan < 2; nan++)
            for (int gi = 0; gi < 3; gi++) {
                const int blend = (t + nan + gi) % 2;
                pool_case(dtypes[t], modes[(t + gi) % 2 ? 1 : 0], (cudnnNanPropagation_t)nan, 2, 2,
                          256 / (int)fd_test_dtype_size(dtypes[t]), gi == 1 ? s2odd : s2in[0],
                          s2geo[gi][0], s2geo[gi][1], s2geo[gi][2], s2geo[gi][3], L_NHWC, 0,
                          blend ? 0.5 : 1, blend ? 0.25 : 0, (gi + nan) % 2 ? F_SPECIAL : F_INT,
                          seed++);
            }
    /* pool_s2_{max,avg}_fwd_rows (W innermost, a 16-byte row vector per lane, neighbours'
     * columns by shuffles, several row segments per warp; averages for 4- and 8-byte types): rows
     * whose last vector is partial (the padded "odd" layout: W 29, 61, 125 in rows of 32, 64, 128),
     * a segment of 32 lanes (f32 W 125), y stored per element (odd y rows), NCHW rows of 64, every
     * mode / NaN option / blend, pad 0 and 1, windows 2 and 3, ceil; f64 W 125 (63 outputs) takes
     * pool_s2_fwd */
    static const int rw[4][3] = {{17, 29, 1}, {9, 61, 1}, {5, 125, 1}, {11, 64, 1}};
    for (int t = 0; t < 4; t++)
        for (int k = 0; k < 4; k++)
            for (int gi = 0; gi < 4; gi++) {
                const int nan = (t + k + gi) % 2, blend = (t + gi) % 3 == 0;
                pool_case(dtypes[t], modes[(k + gi + t) % 4], (cudnnNanPropagation_t)nan, 2, 2, 3,
                          rw[k], s2geo[gi][0], s2geo[gi][1], s2geo[gi][2], s2geo[gi][3],
                          k == 3 ? L_NCHW : L_ODD, 0, blend ? 0.5 : 1, blend ? 0.25 : 0,
                          (k + gi) % 2 ? F_SPECIAL : F_INT, seed++);
            }
    /* ReLU outputs into pool_s2_max_fwd_vec (zero maxima: with no -0 in the window the chain's
     * +0 stands, FREEDNN_GPU_BW2=0 scans them all): +0 only, then with every other zero -0 */
    for (int zs = 0; zs < 2; zs++) {
        pool_zsign = zs;
        pool_relu = 1;
        for (int t = 0; t < 4; t++)
            for (int gi = 0; gi < 3; gi++) {
                const int nan = (t + gi + zs) % 2, blend = (t + gi) % 3 == 2;
                pool_case(dtypes[t], modes[gi % 2], (cudnnNanPropagation_t)nan, 2, 2,
                          256 / (int)fd_test_dtype_size(dtypes[t]), gi == 1 ? s2odd : s2in[0],
                          s2geo[gi][0], s2geo[gi][1], s2geo[gi][2], s2geo[gi][3], L_NHWC, 0,
                          blend ? 0.5 : 1, blend ? 0.25 : 0, (gi + t) % 2 ? F_SPECIAL : F_REAL,
                          seed++);
            }
        pool_relu = 0;
    }
    pool_zsign = 0;
    /* pool_avg22_fwd / _bwd (2 x 2 / 2 averages without padding, W innermost, whole vectors,
     * FREEDNN_GPU_BW2): both modes, the four types, both blends, real / integer / NaN and -inf
     * fills; 8 x 16 (every type's vectors), 56 x 56 (f32 and f64 forward, every backward; the
     * f16 / bf16 forward's rows of 28 outputs: pool_avg22h_fwd's half vectors), 12 x 20
     * (forward f64, f32 by half vectors; backward every type but f16 / bf16 rows of 20), 9 x 17
     * (odd: the general kernels) and the padded layout (forward rows of 16 + 3: the general
     * kernels) */
    {
        static const int a22[5][3] = {{8, 16, 1}, {56, 56, 1}, {12, 20, 1}, {9, 17, 1}, {8, 16, 1}};
        for (int t = 0; t < 4; t++)
            for (int k = 0; k < 5; k++)
                for (int bwd = 0; bwd < 2; bwd++) {
                    const int blend = (t + k + bwd) % 3 == 1;
                    pool_case(dtypes[t], modes[2 + (t + k) % 2], CUDNN_NOT_PROPAGATE_NAN, 2, 2,
                              k == 1 ? 3 : 5, a22[k], 2, 0, 2, 0, k == 4 ? L_ODD : L_NCHW, bwd,
                              blend ? 0.5 : 1, blend ? 0.25 : 0,
                              (t + k) % 3 == 0   ? F_REAL
                              : (t + k) % 3 == 1 ? F_INT
                                                 : F_SPECIAL,
                              seed++);
                }
    }
    pool_case(CUDNN_DATA_FLOAT, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 32, 128, s2in[0], 3, 1,
              2, 0, L_NHWC, 0, 1, 0, F_SPECIAL, seed++);
    pool_case(CUDNN_DATA_HALF, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 32, 256, s2in[0], 3,
              1, 2, 0, L_NHWC, 0, 1, 0, F_INT, seed++);
    static const int tall58[3] = {58, 56, 1}; /* 29 window rows: chunks of 4, the last of 1 */
    pool_case(CUDNN_DATA_FLOAT, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 32, 128, tall58, 3, 1, 2,
              0, L_NCHW, 0, 1, 0, F_SPECIAL, seed++);
    pool_case(CUDNN_DATA_HALF, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 32, 256, s2in[0], 3,
              1, 2, 0, L_NCHW, 0, 1, 0, F_INT, seed++);
    pool_case(CUDNN_DATA_FLOAT, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING,
              CUDNN_NOT_PROPAGATE_NAN, 2, 32, 128, s2in[0], 2, 0, 2, 0, L_NCHW, 0, 1, 0, F_REAL,
              seed++);
    /* pool_s2g_max_bwd_f32 (FLOAT 3x3 / 2 pad 1 max backward as a gather of 2 x 4 dx blocks,
     * FREEDNN_GPU_BW3): max and max_det, both NaN options and blends (beta 0 over the poisoned
     * dx), ties (integer fills), reals, NaN / -inf, ReLU outputs with +0 / -0 ties; NCHW planes
     * of 56 x 56 (14 vectors a row: warps across rows), 8 x 200 (50: rows across warps, the end
     * lanes' own loads), 4 x 8, one row, two rows, odd heights, ceil sizes; the padded layout's
     * rows whose last vector is partial (W 29, 61, 125 in rows of 32, 64, 128; H 17, 9, 5) */
    {
        static const int gin[10][3] = {{56, 56, 1}, {8, 200, 1}, {4, 8, 1},  {1, 12, 1},
                                       {2, 16, 1},  {17, 29, 1}, {9, 61, 1}, {5, 125, 1},
                                       {6, 64, 1},  {4, 128, 1}};
        for (int k = 0; k < 10; k++)
            for (int v = 0; v < 4; v++) {
                const int nan = (k + v) % 2, blend = (k + v) % 3 == 1, ceil = v == 3;
                const fill_t f = v == 0 ? F_INT : v == 1 ? F_SPECIAL : v == 2 ? F_REAL : F_INT;
                pool_case(CUDNN_DATA_FLOAT, modes[(k + v) % 2], (cudnnNanPropagation_t)nan, 2,
                          k == 0 ? 2 : 3, k == 1 ? 2 : 5, gin[k], 3, 1, 2, ceil,
                          k >= 5 && k != 8 ? L_ODD : L_NCHW, 1, blend ? 0.5 : 1, blend ? 0.25 : 0,
                          f, seed++);
            }
        for (int zs = 0; zs < 2; zs++) {
            pool_zsign = zs;
            pool_relu = 1;
            for (int k = 0; k < 8; k += 5)
                pool_case(CUDNN_DATA_FLOAT, modes[zs], (cudnnNanPropagation_t)zs, 2, 2, 3, gin[k],
                          3, 1, 2, 0, k >= 5 ? L_ODD : L_NCHW, 1, zs ? 0.5 : 1, zs ? 0.25 : 0,
                          F_REAL, seed++);
            pool_relu = 0;
        }
        pool_zsign = 0;
        /* the benchmark's problem (n32 c128 56 x 56) */
        pool_case(CUDNN_DATA_FLOAT, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 32, 128, gin[0], 3,
                  1, 2, 0, L_NCHW, 1, 1, 0, F_REAL, seed++);
    }
    /* FREEDNN_GPU_BW5: pool_s2g_max_bwd_{f16,bf16} (W innermost, 4 elements = 8 bytes a lane)
     * and pool_s2g_max_bwd_nhwc_{f32,f16,bf16} (channels-last, a 2 x 2 dx block of one 16-byte
     * channel vector a thread): max and max_det, both NaN options and blends (beta 0 over the
     * poisoned dx), ties (integer fills), reals, NaN / -inf, ReLU outputs with +0 / -0 ties;
     * even and odd H and W, one and two rows, ceil sizes, rows across warps; channels-last C of
     * 1, 2 and 3 vectors, and C not a multiple of the vector (f32 C 6, f16 / bf16 C 12: the
     * kernel declines, the sweeps take them); the padded layout's partial row vectors (NCHW
     * 16-bit); the benchmark's problems (n32, f32 C 128 NHWC, f16 C 256 NHWC and NCHW). Run
     * in the parent, the FREEDNN_GPU_BW5=0 child and the FREEDNN_GPU_POOL_CW* / _CWN* / _SMB*
     * children only (the other switches leave these kernels alone); pool_cw / pool_smb take the
     * W-innermost ones but in the FREEDNN_GPU_BW5=0 and FREEDNN_GPU_POOL_SMB=0 children. W 64
     * and 128 (packed rows), the stem's 112 x 112. The channels-last ones of floor sizes take
     * the column walks of pooling_cwn.cuh (pool_cwn_max_bwd<TY, FAST>, FAST without a blend, the
     * general stamping with one: 56 x 56 in 2 strips of 14 window rows, the others in one; both
     * sums) but in the FREEDNN_GPU_BW5=0 child and the FREEDNN_GPU_POOL_CWN=0 child
     * (pool_s2g_max_bwd_nhwc_* there); the
     * FREEDNN_GPU_POOL_CWN_R=1 child walks strips of one window row (a halo step each); the
     * ceil sizes are declined (pool_s2g_max_bwd_nhwc_* everywhere). */
    if (getenv("FD_GM_RERUN") == NULL || getenv("FREEDNN_GPU_BW5") != NULL ||
        getenv("FREEDNN_GPU_POOL_SMB") != NULL || getenv("FREEDNN_GPU_POOL_SMB_T") != NULL ||
        getenv("FREEDNN_GPU_POOL_CW") != NULL || getenv("FREEDNN_GPU_POOL_CW_R") != NULL ||
        getenv("FREEDNN_GPU_POOL_CWN") != NULL || getenv("FREEDNN_GPU_POOL_CWN_R") != NULL ||
        getenv("FREEDNN_GPU_POOL_CW8") != NULL) {
        static const int hin[10][3] = {{56, 56, 1}, {8, 200, 1}, {4, 8, 1},  {1, 12, 1},
                                       {2, 16, 1},  {17, 29, 1}, {9, 61, 1}, {5, 125, 1},
                                       {6, 64, 1},  {4, 128, 1}};
        static const int t3[3] = {0, 2, 3}; /* FLOAT, HALF, BFLOAT16 */
        for (int ti = 0; ti < 3; ti++) {
            const cudnnDataType_t dt = dtypes[t3[ti]];
            const int vec = 16 / (int)fd_test_dtype_size(dt);
            for (int k = 0; k < 10; k++)
                for (int v = 0; v < 4; v++) {
                    const int nan = (k + v + ti) % 2, blend = (k + v + ti) % 3 == 1;
                    const fill_t f = v == 0 ? F_INT : v == 1 ? F_SPECIAL : v == 2 ? F_REAL : F_INT;
                    pool_case(dt, modes[(k + v + ti) % 2], (cudnnNanPropagation_t)nan, 2,
                              k == 0 ? 2 : 3, vec * (1 + (k + v) % 3), hin[k], 3, 1, 2, v == 3,
                              L_NHWC, 1, blend ? 0.5 : 1, blend ? 0.25 : 0, f, seed++);
                    if (ti > 0) /* NCHW 16-bit */
                        pool_case(dt, modes[(k + v) % 2], (cudnnNanPropagation_t)(1 - nan), 2,
                                  k == 0 ? 2 : 3, k == 1 ? 2 : 5, hin[k], 3, 1, 2, v == 3,
                                  k >= 5 && k != 8 ? L_ODD : L_NCHW, 1, blend ? 1 : 0.5,
                                  blend ? 0 : 0.25, f, seed++);
                }
            for (int k = 0; k < 2; k++) /* C not a multiple of the vector: declined */
                pool_case(dt, modes[k], (cudnnNanPropagation_t)k, 2, 2, ti ? 12 : 6, hin[k * 5], 3,
                          1, 2, 0, L_NHWC, 1, k ? 0.5 : 1, k ? 0.25 : 0, F_INT, seed++);
            for (int zs = 0; zs < 2; zs++) {
                pool_zsign = zs;
                pool_relu = 1;
                for (int k = 0; k < 8; k += 5) {
                    pool_case(dt, modes[zs], (cudnnNanPropagation_t)zs, 2, 2, 2 * vec, hin[k], 3, 1,
                              2, 0, L_NHWC, 1, zs ? 0.5 : 1, zs ? 0.25 : 0, F_REAL, seed++);
                    if (ti > 0)
                        pool_case(dt, modes[1 - zs], (cudnnNanPropagation_t)(1 - zs), 2, 2, 3,
                                  hin[k], 3, 1, 2, 0, k >= 5 ? L_ODD : L_NCHW, 1, zs ? 1 : 0.5,
                                  zs ? 0 : 0.25, F_REAL, seed++);
                }
                pool_relu = 0;
            }
            pool_zsign = 0;
        }
        /* the benchmark's problems */
        pool_case(CUDNN_DATA_FLOAT, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 32, 128, hin[0], 3, 1,
                  2, 0, L_NHWC, 1, 1, 0, F_REAL, seed++);
        pool_case(CUDNN_DATA_HALF, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 32, 256, hin[0], 3,
                  1, 2, 0, L_NHWC, 1, 1, 0, F_INT, seed++);
        pool_case(CUDNN_DATA_HALF, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 32, 256, hin[0], 3, 1,
                  2, 0, L_NCHW, 1, 1, 0, F_REAL, seed++);
        pool_case(CUDNN_DATA_BFLOAT16, CUDNN_POOLING_MAX_DETERMINISTIC, CUDNN_NOT_PROPAGATE_NAN, 2,
                  8, 64, hin[0], 3, 1, 2, 0, L_NHWC, 1, 0.5, 0.25, F_SPECIAL, seed++);
        /* ResNet's stem pool (112 x 112: pool_cw's 32-lane strips) */
        static const int stem[3] = {112, 112, 1};
        pool_case(CUDNN_DATA_HALF, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 4, 64, stem, 3, 1,
                  2, 0, L_NCHW, 1, 1, 0, F_REAL, seed++);
        pool_case(CUDNN_DATA_BFLOAT16, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 16, stem, 3, 1,
                  2, 0, L_NCHW, 1, 0.5, 0.25, F_INT, seed++);
        pool_case(CUDNN_DATA_FLOAT, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 32, stem, 3,
                  1, 2, 0, L_NCHW, 1, 1, 0, F_REAL, seed++);
    }
    /* large: 4M elements, grid-stride coverage */
    static const int big[3] = {128, 128, 1};
    for (int bwd = 0; bwd < 2; bwd++) {
        pool_case(CUDNN_DATA_FLOAT, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 8, 32, big, 2,
                  0, 2, 0, L_NCHW, bwd, 1, 0, F_INT, seed++);
        pool_case(CUDNN_DATA_HALF, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                  CUDNN_NOT_PROPAGATE_NAN, 2, 8, 32, big, 3, 1, 2, 0, L_NHWC, bwd, 1, 0, F_REAL,
                  seed++);
    }
}

/* FREEDNN_GPU_POOL_LEAN: pool_lean_{nhwc,nchw}_* (pooling_lean.cuh: max forward of stride 2,
 * windows 2 / 3, pad 0 / 1, alpha 1, beta 0; a thread per 16-byte channel vector of y
 * channels-last, per run of 8 bytes of a y row W innermost): FLOAT / HALF / BFLOAT16, max and
 * max_det, both NaN options; 56 x 56 (packed NCHW rows are whole vectors), odd planes 55 x 57,
 * 7 x 7, 1 x 1 and 2 x 61 (NCHW through rows padded to 16 elements: partial last row vectors,
 * y runs cut by the row end, y rows stored per element when only x is padded), 3x3 pad 1,
 * 3x3 pad 0 ceil, 2x2 pad 0, 2x2 pad 1; integer fills (ties), NaN / -inf fills, reals, +0 / -0
 * ties and ReLU outputs (zero maxima: the exact scan only with a -0 in the window); C of 1, 2
 * and 3 vectors channels-last, odd C (1, 3) and odd planes W innermost; the benchmark's problems
 * (n32 f16 C 256 and f32 C 128, 56 x 56, both layouts). Neighbours that must fall back (the
 * same cases with a blend, stride 1, average, DOUBLE, pad 2, misaligned x and y, packed odd NCHW
 * rows, C not a multiple of the vector) run beside them. Run in the parent (channels-last row by
 * row), in the FREEDNN_GPU_POOL_LEAN=0 child
 * (pool_s2_max_fwd_vec / _rows on the same cases) and in the FREEDNN_GPU_POOL_TILE_ROWS=2 child
 * (2-row tiles for every type; 7 x 7 and 1 x 1 leave partial tiles), which run nothing else. */
static void pool_lean_tests(void)
{
    const cudnnDataType_t t3[3] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    const cudnnPoolingMode_t mm[2] = {CUDNN_POOLING_MAX, CUDNN_POOLING_MAX_DETERMINISTIC};
    /* window, pad, stride, ceil */
    static const int lg[4][4] = {{3, 1, 2, 0}, {3, 0, 2, 1}, {2, 0, 2, 0}, {2, 1, 2, 0}};
    static const int lin[5][3] = {{56, 56, 1}, {55, 57, 1}, {7, 7, 1}, {1, 1, 1}, {2, 61, 1}};
    uint64_t seed = 7001;
    if (gm_smoke) {
        for (int l = 0; l < 2; l++)
            pool_case(t3[l + 1], mm[l], (cudnnNanPropagation_t)l, 2, 2, 16, lin[1], 3, 1, 2, 0,
                      (layout_t)l, 0, 1, 0, F_SPECIAL, seed++);
        return;
    }
    for (int ti = 0; ti < 3; ti++) {
        const int vec = 16 / (int)fd_test_dtype_size(t3[ti]);
        for (int l = 0; l < 2; l++)
            for (int k = 0; k < 5; k++)
                for (int gi = 0; gi < 4; gi++) {
                    if (lg[gi][0] > lin[k][0] + 2 * lg[gi][1])
                        continue; /* the window must fit the padded plane (1 x 1, 2 x 61) */
                    const int nan = (ti + k + gi) % 2, v = (ti + l + k + gi) % 3;
                    const fill_t f = v == 0 ? F_INT : v == 1 ? F_SPECIAL : F_REAL;
                    /* NCHW: 56 x 56 packed, the odd planes in rows of 16 (x only for 2 x 61) */
                    pool_rowpad = l == 0 && k > 0 ? (k == 4 ? 2 : 1) : 0;
                    pool_case(t3[ti], mm[(k + gi) % 2], (cudnnNanPropagation_t)nan, 2, 2,
                              l ? vec * (1 + (k + gi) % 3) : 1 + 2 * (gi % 2), lin[k], lg[gi][0],
                              lg[gi][1], lg[gi][2], lg[gi][3], (layout_t)l, 0, 1, 0, f, seed++);
                    pool_rowpad = 0;
                }
        /* +0 / -0 ties, then ReLU outputs (+0 only, then with -0), both layouts */
        for (int zs = 0; zs < 3; zs++) {
            pool_zsign = zs != 1;
            pool_relu = zs > 0;
            for (int l = 0; l < 2; l++) {
                pool_rowpad = l == 0;
                pool_case(t3[ti], mm[zs % 2], (cudnnNanPropagation_t)(zs == 2), 2, 2,
                          l ? 2 * vec : 3, lin[l], 3, 1, 2, 0, (layout_t)l, 0, 1, 0,
                          zs ? F_REAL : F_INT, seed++);
                pool_rowpad = 0;
            }
            pool_zsign = pool_relu = 0;
        }
        /* neighbours that fall back: blends (beta 0 over the poisoned y, then beta 0.25),
         * stride 1, average, pad 2, misaligned, packed odd NCHW rows, C not a vector multiple */
        for (int l = 0; l < 2; l++) {
            const int ch = l ? vec : 3;
            pool_case(t3[ti], mm[l], CUDNN_PROPAGATE_NAN, 2, 2, ch, lin[0], 3, 1, 2, 0, (layout_t)l,
                      0, 0.5, 0, F_SPECIAL, seed++);
            pool_case(t3[ti], mm[1 - l], CUDNN_NOT_PROPAGATE_NAN, 2, 2, ch, lin[1], 3, 1, 2, 0,
                      (layout_t)l, 0, 1, 0.25, F_INT, seed++);
            pool_case(t3[ti], mm[l], CUDNN_NOT_PROPAGATE_NAN, 2, 2, ch, lin[2], 3, 1, 1, 0,
                      (layout_t)l, 0, 1, 0, F_INT, seed++);
            pool_case(t3[ti], CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN,
                      2, 2, ch, lin[1], 3, 1, 2, 0, (layout_t)l, 0, 1, 0, F_REAL, seed++);
            pool_case(t3[ti], mm[l], CUDNN_PROPAGATE_NAN, 2, 2, ch, lin[2], 3, 2, 2, 0, (layout_t)l,
                      0, 1, 0, F_SPECIAL, seed++);
            pool_misalign = 1;
            pool_case(t3[ti], mm[l], (cudnnNanPropagation_t)l, 2, 2, l ? 2 * vec : 4, lin[0], 3, 1,
                      2, 0, (layout_t)l, 0, 1, 0, F_SPECIAL, seed++);
            pool_misalign = 0;
        }
        pool_case(t3[ti], mm[0], CUDNN_PROPAGATE_NAN, 2, 2, 3, lin[1], 3, 1, 2, 0, L_NCHW, 0, 1, 0,
                  F_SPECIAL, seed++);
        pool_case(t3[ti], mm[1], CUDNN_NOT_PROPAGATE_NAN, 2, 2, vec + vec / 2, lin[1], 3, 1, 2, 0,
                  L_NHWC, 0, 1, 0, F_INT, seed++);
    }
    /* DOUBLE falls back */
    for (int l = 0; l < 2; l++)
        pool_case(CUDNN_DATA_DOUBLE, mm[l], (cudnnNanPropagation_t)l, 2, 2, 4, lin[0], 3, 1, 2, 0,
                  (layout_t)l, 0, 1, 0, F_SPECIAL, seed++);
    /* the benchmark's problems */
    for (int l = 0; l < 2; l++) {
        pool_case(CUDNN_DATA_HALF, mm[0], (cudnnNanPropagation_t)l, 2, 32, 256, lin[0], 3, 1, 2, 0,
                  (layout_t)l, 0, 1, 0, l ? F_INT : F_REAL, seed++);
        pool_case(CUDNN_DATA_FLOAT, mm[0], (cudnnNanPropagation_t)(1 - l), 2, 32, 128, lin[0], 3, 1,
                  2, 0, (layout_t)l, 0, 1, 0, l ? F_REAL : F_SPECIAL, seed++);
    }
}

/* FREEDNN_GPU_POOL_AVGV: pool_avgv_{fwd,bwd}[22]_* (channels-last averages of stride 2, windows
 * of 2 or 3, 16-byte channel vectors; a thread per y vector forward, per 2 x 2 dx block
 * backward): FLOAT / HALF / BFLOAT16, both average modes, 2x2 pad 0 (the lean kernels), 3x3
 * pad 1, 2x2 pad 1, 3x3 pad 0 ceil, 3x3 pad 2; even, odd (floor-mode uncovered edge cells and
 * ceil-mode partial windows), one-row and wide planes; C of 1, 2, 3 and 32 vectors; both blends
 * (beta 0 over the poisoned outputs); integer, real and NaN / -inf fills; DOUBLE and C not a
 * multiple of the vector (declined: the sweeps take them); the benchmark's problems (n32 f16
 * C 256 and f32 C 128, 56 x 56, 2x2 / 2). Run in the parent and the FREEDNN_GPU_POOL_AVGV=0
 * child (the old sweeps on the same cases); that child runs nothing else. */
static void pool_avgv_tests(void)
{
    const cudnnPoolingMode_t am[2] = {CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                      CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING};
    const cudnnDataType_t t3[3] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    /* window, pad, stride, ceil */
    static const int ag[5][4] = {
        {2, 0, 2, 0}, {3, 1, 2, 0}, {2, 1, 2, 0}, {3, 0, 2, 1}, {3, 2, 2, 0}};
    static const int ain[6][3] = {{56, 56, 1}, {29, 31, 1}, {17, 29, 1},
                                  {1, 12, 1},  {8, 9, 1},   {6, 70, 1}};
    static const int nv[4] = {1, 2, 3, 32}; /* channel vectors */
    uint64_t seed = 9001;
    if (gm_smoke) { /* lean and general kernels, odd edges, both blends */
        for (int bwd = 0; bwd < 2; bwd++)
            for (int gi = 0; gi < 2; gi++)
                pool_case(t3[gi + bwd], am[gi], CUDNN_NOT_PROPAGATE_NAN, 2, 2, 16, ain[4],
                          ag[gi ? 3 : 0][0], ag[gi ? 3 : 0][1], 2, ag[gi ? 3 : 0][3], L_NHWC, bwd,
                          gi ? 0.5 : 1, gi ? 0.25 : 0, F_INT, seed++);
        return;
    }
    for (int bwd = 0; bwd < 2; bwd++)
        for (int ti = 0; ti < 3; ti++) {
            const int vec = 16 / (int)fd_test_dtype_size(t3[ti]);
            for (int m = 0; m < 2; m++)
                for (int gi = 0; gi < 5; gi++) {
                    const int k = (bwd + ti + m + gi) % 6;
                    /* one row only where the padded row holds a window */
                    const int *in = ain[k == 3 && 1 + 2 * ag[gi][1] < ag[gi][0] ? 4 : k];
                    const int blend = (ti + m + gi + bwd) % 2;
                    const int v = nv[(ti + gi + bwd) % 3 + (k == 4 ? 1 : 0)];
                    const fill_t f = (gi + m + ti) % 3 == 0   ? F_INT
                                     : (gi + m + ti) % 3 == 1 ? F_REAL
                                                              : F_SPECIAL;
                    pool_case(t3[ti], am[m], (cudnnNanPropagation_t)(gi % 2), 2, 2, v * vec, in,
                              ag[gi][0], ag[gi][1], ag[gi][2], ag[gi][3], L_NHWC, bwd,
                              blend ? 0.5 : 1, blend ? 0.25 : 0, f, seed++);
                    if (gi < 2) /* the other blend and 32 vectors of C on a small plane */
                        pool_case(t3[ti], am[1 - m], CUDNN_NOT_PROPAGATE_NAN, 2, 1, nv[3] * vec,
                                  ain[4], ag[gi][0], ag[gi][1], ag[gi][2], ag[gi][3], L_NHWC, bwd,
                                  blend ? 1 : 0.5, blend ? 0 : 0.25, F_REAL, seed++);
                }
            /* C not a multiple of the vector: declined */
            pool_case(t3[ti], am[bwd], CUDNN_NOT_PROPAGATE_NAN, 2, 2, vec + vec / 2, ain[1], 2, 0,
                      2, 0, L_NHWC, bwd, 1, 0, F_INT, seed++);
        }
    for (int bwd = 0; bwd < 2; bwd++) {
        /* DOUBLE: declined */
        pool_case(CUDNN_DATA_DOUBLE, am[bwd], CUDNN_NOT_PROPAGATE_NAN, 2, 2, 4, ain[1], 2, 0, 2, 0,
                  L_NHWC, bwd, 0.5, 0.25, F_REAL, seed++);
        /* the benchmark's problems */
        pool_case(CUDNN_DATA_HALF, am[1], CUDNN_NOT_PROPAGATE_NAN, 2, 32, 256, ain[0], 2, 0, 2, 0,
                  L_NHWC, bwd, 1, 0, F_REAL, seed++);
        pool_case(CUDNN_DATA_FLOAT, am[bwd], CUDNN_NOT_PROPAGATE_NAN, 2, 32, 128, ain[0], 2, 0, 2,
                  0, L_NHWC, bwd, 1, 0, F_INT, seed++);
    }
}

/* ================================ activation =============================================== */

typedef struct {
    cudnnDataType_t dt;
    cudnnActivationMode_t mode;
    cudnnNanPropagation_t nan;
    double coef, swish;
    tshape_t t;
    int bwd, inplace;
    double alpha, beta;
    fill_t fill; /* F_SPECIAL here: real values with NaNs */
    uint64_t seed;
} act_case_t;

/* buffers: fwd x, y (in place: x only); bwd x, y, dy, dx (in place: dx is dy) */
static void act_fill(int i, void *p, size_t bytes, void *ctx)
{
    const act_case_t *c = ctx;
    const int out = c->bwd ? 3 : 1;
    if (i == out && c->beta == 0)
        return;
    fd_rng_t r;
    fd_rng_seed(&r, c->seed * 11 + (uint64_t)i);
    const int64_t n = (int64_t)(bytes / fd_test_dtype_size(c->dt));
    const int is_y = c->bwd && i == 1;
    if (c->fill == F_INT) {
        fd_fill_int(&r, c->dt, p, n, is_y ? 0 : -6, 6, 0.8);
        return;
    }
    if (c->fill == F_LOW && (i == 0 || i == 2)) {
        for (int64_t k = 0; k < n; k++) {
            double v;
            if (i == 0) { /* x in [-800, -40], clear of -745.13 (e^x's last subnormal in double,
                           * where a 1-ulp exp may round either way) */
                v = -40.0 - 760.0 * fd_rng_uniform(&r);
                if (v > -747.0 && v < -743.0)
                    v -= 10.0;
            } else { /* dy: +-[1e37, 3e38], one in 8 infinite */
                v = fd_rng_int(&r, 0, 7) == 0 ? INFINITY : 1e37 + 2.9e38 * fd_rng_uniform(&r);
                if (fd_rng_int(&r, 0, 1))
                    v = -v;
            }
            fd_test_store(c->dt, p, k, v);
        }
        return;
    }
    fd_fill_real(&r, c->dt, p, n, is_y ? -1 : -4, is_y ? 1 : 4);
    if (c->fill == F_SPECIAL)
        for (int64_t k = 0; k < n; k++)
            if (fd_rng_int(&r, 0, 7) == 0)
                fd_test_store(c->dt, p, k, NAN);
}

static cudnnStatus_t act_call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    const act_case_t *c = ctx;
    cudnnActivationDescriptor_t ad = NULL;
    FD_EXPECT_STATUS(cudnnCreateActivationDescriptor(&ad), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetActivationDescriptor(ad, c->mode, c->nan, c->coef),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetActivationDescriptorSwishBeta(ad, c->swish), CUDNN_STATUS_SUCCESS);
    cudnnTensorDescriptor_t td = tdesc(c->dt, &c->t);
    double a_d, b_d;
    float a_f, b_f;
    const void *pa, *pb;
    scale_ptrs(c->dt, c->alpha, c->beta, &a_d, &b_d, &a_f, &b_f, &pa, &pb);
    cudnnStatus_t st;
    if (!c->bwd)
        st = cudnnActivationForward(h, ad, pa, td, ptr[0], pb, td, c->inplace ? ptr[0] : ptr[1]);
    else
        st = cudnnActivationBackward(h, ad, pa, td, ptr[1], td, ptr[2], td, ptr[0], pb, td,
                                     c->inplace ? ptr[2] : ptr[3]);
    cudnnDestroyTensorDescriptor(td);
    cudnnDestroyActivationDescriptor(ad);
    return st;
}

static const char *const act_names[7] = {"sigmoid", "relu", "tanh", "clipped", "elu", "identity",
                                         "swish"};

static int act_exact(cudnnActivationMode_t m)
{
    return m == CUDNN_ACTIVATION_RELU || m == CUDNN_ACTIVATION_CLIPPED_RELU ||
           m == CUDNN_ACTIVATION_IDENTITY;
}

static void act_case(cudnnDataType_t dt, cudnnActivationMode_t mode, cudnnNanPropagation_t nan,
                     double coef, int nd, const int *dims, layout_t l, int bwd, int inplace,
                     double alpha, double beta, fill_t fill, uint64_t seed)
{
    act_case_t c;
    memset(&c, 0, sizeof c);
    c.dt = dt, c.mode = mode, c.nan = nan, c.coef = coef, c.swish = 1.5;
    c.t = shape_of(l, nd, dims);
    c.bwd = bwd, c.inplace = inplace, c.alpha = alpha, c.beta = beta, c.fill = fill, c.seed = seed;
    const size_t bytes = (size_t)c.t.ext * fd_test_dtype_size(dt);
    gm_buf_t out = {bwd ? "dx" : "y", bytes, dt, beta != 0 ? GM_INOUT : GM_OUT, 0, 0};
    if (!act_exact(mode))
        gm_tol(&out, dt, 8);
    else if (fill == F_SPECIAL || isnan(coef))
        out.abs_tol = 0x1p-1074;
    if (fill == F_LOW) /* relative alone: results down to float's subnormals, one step apart */
        out.abs_tol = dt == CUDNN_DATA_DOUBLE ? 0x1p-1060 : 0x1p-140;
    gm_case_t g;
    memset(&g, 0, sizeof g);
    char label[256];
    snprintf(label, sizeof label, "act %s %s %s nan%d coef%g %dd %s%s a%g b%g fill%d",
             bwd ? "bwd" : "fwd", fd_test_dtype_short(dt), act_names[mode], (int)nan, coef, nd,
             layout_names[l], inplace ? " inplace" : "", alpha, beta, (int)fill);
    g.label = label;
    g.det = 1;
    g.fill = act_fill;
    g.call = act_call;
    g.ctx = &c;
    g.want = CUDNN_STATUS_SUCCESS;
    const gm_buf_t in = {"", bytes, dt, GM_IN, 0, 0};
    if (!bwd) {
        g.nbuf = 2;
        g.buf[0] = in, g.buf[0].name = "x";
        g.buf[1] = out;
        if (inplace) { /* x is read and overwritten: one INOUT buffer, filled as x */
            g.nbuf = 1;
            g.buf[0] = out, g.buf[0].name = "x=y", g.buf[0].role = GM_INOUT;
        }
    } else {
        g.nbuf = 4;
        g.buf[0] = in, g.buf[0].name = "x";
        g.buf[1] = in, g.buf[1].name = "y";
        g.buf[2] = in, g.buf[2].name = "dy";
        g.buf[3] = out;
        if (inplace) { /* dx == dy */
            g.nbuf = 3;
            g.buf[2] = out, g.buf[2].name = "dy=dx", g.buf[2].role = GM_INOUT;
        }
    }
    gm_run(&g);
}

static void act_tests(void)
{
    static const int d4[4] = {2, 5, 7, 9}, d5[5] = {2, 3, 4, 5, 6}, d2[2] = {33, 65};
    const cudnnActivationMode_t modes[7] = {
        CUDNN_ACTIVATION_SIGMOID, CUDNN_ACTIVATION_RELU,     CUDNN_ACTIVATION_TANH,
        CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_ACTIVATION_ELU, CUDNN_ACTIVATION_IDENTITY,
        CUDNN_ACTIVATION_SWISH};
    uint64_t seed = 1000;
    if (gm_smoke) {
        for (int bwd = 0; bwd < 2; bwd++)
            for (int m = 0; m < 7; m++)
                act_case(CUDNN_DATA_FLOAT, modes[m], CUDNN_PROPAGATE_NAN, 2.5, 4, d4, L_NHWC, bwd,
                         0, 0.5, 0.25, F_REAL, seed++);
        return;
    }
    for (int bwd = 0; bwd < 2; bwd++)
        for (int t = 0; t < 4; t++)
            for (int m = 0; m < 7; m++)
                for (int l = 0; l < 3; l++)
                    for (int blend = 0; blend < 2; blend++) {
                        const int nd = l == 2 ? 5 : 4;
                        const int *dims = nd == 5 ? d5 : d4;
                        const fill_t f = act_exact(modes[m]) && blend ? F_INT : F_REAL;
                        act_case(dtypes[t], modes[m], (cudnnNanPropagation_t)((l + blend) % 2),
                                 2.5, nd, dims, (layout_t)l, bwd, 0, blend ? 0.5 : 1,
                                 blend ? 0.25 : 0, f, seed++);
                    }
    /* NaN inputs and a NaN coef, both options; in place; 2-d; integer coef on integers */
    for (int bwd = 0; bwd < 2; bwd++)
        for (int t = 0; t < 4; t++)
            for (int m = 0; m < 7; m++) {
                for (int nan = 0; nan < 2; nan++)
                    act_case(dtypes[t], modes[m], (cudnnNanPropagation_t)nan, 2.5, 4, d4, L_NCHW,
                             bwd, 0, 1, 0, F_SPECIAL, seed++);
                act_case(dtypes[t], modes[m], CUDNN_NOT_PROPAGATE_NAN, 2.5, 4, d4, L_ODD, bwd, 1,
                         0.5, 0.25, F_REAL, seed++);
                act_case(dtypes[t], modes[m], CUDNN_NOT_PROPAGATE_NAN, 3, 2, d2, L_NCHW, bwd, 0,
                         1, 0, act_exact(modes[m]) ? F_INT : F_REAL, seed++);
            }
    /* the exp modes far below 0 (float's e^x subnormal or 0, e^-x beyond float) with huge and
     * infinite dy: the ref's double exp there */
    static const cudnnActivationMode_t low[3] = {CUDNN_ACTIVATION_SIGMOID, CUDNN_ACTIVATION_ELU,
                                                 CUDNN_ACTIVATION_SWISH};
    static const cudnnDataType_t wide[3] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE,
                                            CUDNN_DATA_BFLOAT16};
    for (int bwd = 0; bwd < 2; bwd++)
        for (int t = 0; t < 3; t++)
            for (int m = 0; m < 3; m++)
                act_case(wide[t], low[m], CUDNN_NOT_PROPAGATE_NAN, 1.0, 2, d2, L_NCHW, bwd, 0, 1, 0,
                         F_LOW, seed++);
    for (int bwd = 0; bwd < 2; bwd++)
        for (int nan = 0; nan < 2; nan++)
            act_case(CUDNN_DATA_FLOAT, CUDNN_ACTIVATION_CLIPPED_RELU, (cudnnNanPropagation_t)nan,
                     NAN, 4, d4, L_NHWC, bwd, 0, 1, 0, F_REAL, seed++);
    /* large: 4M elements */
    static const int big[4] = {8, 32, 128, 128};
    for (int bwd = 0; bwd < 2; bwd++) {
        act_case(CUDNN_DATA_FLOAT, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0, 4, big,
                 L_NCHW, bwd, 0, 1, 0, F_INT, seed++);
        act_case(CUDNN_DATA_HALF, CUDNN_ACTIVATION_SWISH, CUDNN_NOT_PROPAGATE_NAN, 0, 4, big,
                 L_NHWC, bwd, 0, 0.5, 0.25, F_REAL, seed++);
    }
}

int main(int argc, char **argv)
{
    gm_init(argc, argv, "test_gpu_pool_act");
    const int avgv_child = getenv("FD_GM_RERUN") != NULL && getenv("FREEDNN_GPU_POOL_AVGV") != NULL;
    const int act_child = getenv("FD_GM_RERUN") != NULL && getenv("FREEDNN_GPU_ACT_LEAN") != NULL;
    const int lean_child =
        getenv("FD_GM_RERUN") != NULL &&
        (getenv("FREEDNN_GPU_POOL_LEAN") != NULL || getenv("FREEDNN_GPU_POOL_TILE_ROWS") != NULL);
    if (!avgv_child && !act_child && !lean_child)
        pool_tests();
    if (getenv("FD_GM_RERUN") == NULL || lean_child)
        pool_lean_tests();
    if (getenv("FD_GM_RERUN") == NULL || avgv_child)
        pool_avgv_tests();
    if (getenv("FD_GM_RERUN") == NULL || act_child) /* the pooling switches leave activation */
        act_tests();
    gm_rerun_with(argv, "FREEDNN_GPU_BW2", "0"); /* the same cases on the earlier kernels */
    gm_rerun_with(argv, "FREEDNN_GPU_BW3", "0"); /* and without the third round's */
    gm_rerun_with(argv, "FREEDNN_GPU_BW5", "0"); /* without the fifth round's gathers */
    gm_rerun_with(argv, "FREEDNN_GPU_POOL_CW", "0");    /* pool_smb instead of pool_cw */
    gm_rerun_with(argv, "FREEDNN_GPU_POOL_CW_R", "1");  /* pool_cw: strips of one window row */
    gm_rerun_with(argv, "FREEDNN_GPU_POOL_CW8", "0");   /* pool_cw at 4 columns a lane */
    gm_rerun_with(argv, "FREEDNN_GPU_POOL_CWN", "0");   /* pool_s2g_nhwc instead of pool_cwn */
    gm_rerun_with(argv, "FREEDNN_GPU_POOL_CWN_R", "1"); /* pool_cwn: strips of one window row */
    if (getenv("FD_GM_RERUN") == NULL) /* the two children below: without pool_cw too */
        setenv("FREEDNN_GPU_POOL_CW", "0", 1);
    gm_rerun_with(argv, "FREEDNN_GPU_POOL_SMB", "0");     /* pool_s2g_* instead of pool_smb */
    gm_rerun_with(argv, "FREEDNN_GPU_POOL_SMB_T", "512"); /* pool_smb: many tiles a plane */
    if (getenv("FD_GM_RERUN") == NULL)
        unsetenv("FREEDNN_GPU_POOL_CW");
    gm_rerun_with(argv, "FREEDNN_GPU_POOL_AVGV", "0"); /* pool_avgv_tests on the old sweeps */
    gm_rerun_with(argv, "FREEDNN_GPU_POOL_LEAN", "0"); /* pool_lean_tests on the old sweeps */
    gm_rerun_with(argv, "FREEDNN_GPU_POOL_TILE_ROWS",
                  "2");                                /* pool_lean_nhwc: 2-row tiles, all types */
    gm_rerun_with(argv, "FREEDNN_GPU_ACT_LEAN", "0");  /* act_tests on act_*_packed alone */
    gm_rerun_with(argv, "FREEDNN_GPU_ACT_LEAN", "2");  /* and on act_*_lean<2> */
    return gm_finish();
}
