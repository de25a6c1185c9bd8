/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_conv_dgrad.c - the strided tensor-core backward data (src/cuda/conv_tc_dgrad.cu: row
 * fd_conv_bwd_data_tc_strided, BWD_DATA ALGO_1) against the ref backend through the public API
 * (tests/gpu/gpu_mirror.h). The row splits a stride-s problem into one stride-1 tensor-core
 * problem per residue class of dx positions, so the cases aim at the split: strides 2, 3 and
 * (2, 1), 3-d strides, 1x1 / 3x3 / 5x5 / 7x7 filters, pads 0..3 (also pad >= stride and pad >=
 * R), sizes where (H + 2p - R) % s != 0, residues without taps (1x1 stride 2: dx = beta * dx)
 * and without positions (H < s), both modes (the flip is applied in the sub-filter gather),
 * dx in NHWC, NCHW and a permuted padded layout, dy with padded strides, KRSC and KCRS filters,
 * C / K past the 128-wide tiles, alpha/beta (1, 0), (0.5, 0.25), (-2, 1) (beta != 0: dx is
 * GM_INOUT, filled), HALF and BFLOAT16. Integer fills are exact (float sums of small
 * integers) and must be bit-identical to ref; real fills (ResNet-50's stride-2 layers at N = 2..4,
 * a dx of >= 4M elements) agree within test_gpu_conv_tc.c's tolerance. Every case runs with
 * exactly the workspace the cuda handle asks for, twice (det = 1), and the dispatch log must
 * name the expected row: the strided row, or for the problems it declines (stride 1, dilation,
 * C not a multiple of 8, ALGO_0) the row that serves them instead. FLOAT under FMA math runs the
 * same split on the FFMA row (fd_conv_bwd_data_simt_strided): its cases add NCHW dy and
 * ResNet-50's stride-2 layers in NCHW. --smoke: a few small cases. On sm_90 the grouped wgmma
 * launch reads each class's sub-filter as a view of the filter (no gather); a rerun with
 * FREEDNN_WGMMA_DGRAD_NOGATHER=0 repeats the cases (but the ResNet-50 ones) with the gather.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_mirror.h"

#define ROW "fd_conv_bwd_data_tc_strided"
#define SIMT_ROW "fd_conv_bwd_data_simt_strided"

typedef enum { L_NHWC, L_NCHW, L_ODD, L_PAD8 } layout_t;
static const char *const layout_names[4] = {"nhwc", "nchw", "odd", "pad8"};

typedef struct {
    cudnnDataType_t dt;
    int nsp, n, c, k;
    int in[3], flt[3], pad[3], str[3], dil[3];
    int mode;
    layout_t xl, yl; /* dx: any; dy: L_NHWC or L_PAD8 (channel-contiguous) */
    int w_kcrs;      /* filter in NCHW (KCRS) format */
    int algo;        /* CUDNN_CONVOLUTION_BWD_DATA_ALGO_* */
    int fma;         /* CUDNN_FMA_MATH on the descriptor (FLOAT: the FFMA split row) */
    double alpha, beta;
    int exact;
    const char *want; /* the row the dispatch log must name */
    uint64_t seed;
    /* derived */
    size_t ws;
    int64_t nx, nw, ny; /* element extents of dx, w, dy */
    int64_t kred;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
} dg_case_t;

/* Strides of (N, C, spatial...) in layout l; returns the element extent (max offset + 1).
 * L_ODD: C outermost, then N, then the spatial dims, every extent padded by one (the innermost
 * by 3). L_PAD8: NHWC with 8 extra elements after every pixel, row and image (C stays
 * contiguous and every other stride a multiple of 8, as the tensor cores read dy). */
static int64_t strides_of(layout_t l, int nb, const int *dim, int *st)
{
    int order[5], k = 0; /* outermost first */
    if (l == L_NCHW) {
        for (int d = 0; d < nb; d++)
            order[k++] = d;
    } else if (l == L_ODD) {
        order[k++] = 1;
        order[k++] = 0;
        for (int d = 2; d < nb; d++)
            order[k++] = d;
    } else {
        order[k++] = 0;
        for (int d = 2; d < nb; d++)
            order[k++] = d;
        order[k++] = 1;
    }
    int64_t s = 1;
    for (int i = nb - 1; i >= 0; i--) {
        const int d = order[i];
        st[d] = (int)s;
        s *= dim[d] + (l == L_ODD ? (i == nb - 1 ? 3 : 1) : 0);
        if (l == L_PAD8)
            s += 8;
    }
    int64_t ext = 1;
    for (int d = 0; d < nb; d++)
        ext += (int64_t)(dim[d] - 1) * st[d];
    return ext;
}

static int setup(dg_case_t *t)
{
    const int nb = t->nsp + 2;
    int xdim[5] = {t->n, t->c}, wdim[5] = {t->k, t->c}, ydim[5], st[5];
    for (int d = 0; d < t->nsp; d++)
        xdim[2 + d] = t->in[d], wdim[2 + d] = t->flt[d];
    if (cudnnCreateTensorDescriptor(&t->xd) || cudnnCreateTensorDescriptor(&t->yd) ||
        cudnnCreateFilterDescriptor(&t->wd) || cudnnCreateConvolutionDescriptor(&t->cd))
        return 0;
    t->nx = strides_of(t->xl, nb, xdim, st);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->xd, t->dt, nb, xdim, st), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetFilterNdDescriptor(t->wd, t->dt,
                                                t->w_kcrs ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC,
                                                nb, wdim),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionNdDescriptor(t->cd, t->nsp, t->pad, t->str, t->dil,
                                                     (cudnnConvolutionMode_t)t->mode, CUDNN_DATA_FLOAT),
                     CUDNN_STATUS_SUCCESS);
    if (t->fma)
        FD_EXPECT_STATUS(cudnnSetConvolutionMathType(t->cd, CUDNN_FMA_MATH), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnGetConvolutionNdForwardOutputDim(t->cd, t->xd, t->wd, nb, ydim),
                     CUDNN_STATUS_SUCCESS);
    t->ny = strides_of(t->yl, nb, ydim, st);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->yd, t->dt, nb, ydim, st), CUDNN_STATUS_SUCCESS);
    t->nw = 1;
    int64_t taps = 1;
    for (int d = 0; d < nb; d++)
        t->nw *= wdim[d];
    for (int d = 0; d < t->nsp; d++)
        taps *= t->flt[d];
    t->kred = taps * t->k;
    return 1;
}

static void teardown(dg_case_t *t)
{
    cudnnDestroyTensorDescriptor(t->xd);
    cudnnDestroyTensorDescriptor(t->yd);
    cudnnDestroyFilterDescriptor(t->wd);
    cudnnDestroyConvolutionDescriptor(t->cd);
}

static void fill(int i, void *payload, size_t bytes, void *ctx)
{
    dg_case_t *t = ctx;
    fd_rng_t r;
    fd_rng_seed(&r, t->seed * 7 + (uint64_t)i);
    const int64_t n = (int64_t)(bytes / fd_test_dtype_size(t->dt));
    if (i == 2 && t->beta == 0.0)
        return; /* dx stays poisoned: beta = 0 must not read it */
    if (t->exact)
        fd_fill_int(&r, t->dt, payload, n, -3, 3, 0.8);
    else
        fd_fill_real(&r, t->dt, payload, n, -1.0, 1.0);
}

/* buffers: 0 dy, 1 w, 2 dx, 3 the workspace */
static cudnnStatus_t call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    dg_case_t *t = ctx;
    gm_last_impl[0] = '\0';
    return gm_conv_call(h, 1, t->algo, t->xd, t->wd, t->cd, t->yd, t->alpha, t->beta, ptr, t->ws);
}

static size_t workspace(cudnnHandle_t h, const dg_case_t *t)
{
    return gm_conv_workspace(h, 1, t->algo, t->xd, t->wd, t->cd, t->yd);
}

static void run(dg_case_t t)
{
    if (!setup(&t))
        return;
    char label[320];
    snprintf(label, sizeof label,
             "bwd_data algo%d %s n%d c%d k%d in%dx%dx%d f%dx%dx%d p%d,%d,%d u%d,%d,%d d%d %s "
             "dx-%s dy-%s w-%s a%g b%g %s%s",
             t.algo, fd_test_dtype_short(t.dt), t.n, t.c, t.k, t.in[0], t.nsp > 1 ? t.in[1] : 1,
             t.nsp > 2 ? t.in[2] : 1, t.flt[0], t.nsp > 1 ? t.flt[1] : 1, t.nsp > 2 ? t.flt[2] : 1,
             t.pad[0], t.pad[1], t.pad[2], t.str[0], t.str[1], t.str[2], t.dil[0],
             t.mode == CUDNN_CONVOLUTION ? "conv" : "xcorr", layout_names[t.xl],
             layout_names[t.yl], t.w_kcrs ? "kcrs" : "krsc", t.alpha, t.beta,
             t.exact ? "exact" : "real", t.fma ? " fma" : "");
    const size_t es = fd_test_dtype_size(t.dt);
    const size_t wsr = workspace(gm_ref, &t), wsc = workspace(gm_cuda, &t);
    t.ws = wsr > wsc ? wsr : wsc; /* exactly what the cuda row asks for (ref asks none) */
    gm_case_t c = {0};
    c.label = label;
    c.nbuf = 4;
    c.buf[0] = (gm_buf_t){"dy", (size_t)t.ny * es, t.dt, GM_IN, 0, 0};
    c.buf[1] = (gm_buf_t){"w", (size_t)t.nw * es, t.dt, GM_IN, 0, 0};
    c.buf[2] = (gm_buf_t){"dx", (size_t)t.nx * es, t.dt, t.beta != 0.0 ? GM_INOUT : GM_OUT, 0, 0};
    c.buf[3] = (gm_buf_t){"workspace", t.ws, t.dt, GM_WS, 0, 0};
    if (!t.exact) {
        /* as test_gpu_conv_tc.c: inputs in [-1, 1), float accumulation in another order than
         * ref's double over at most kred terms, plus dx's own rounding */
        gm_tol(&c.buf[2], t.dt, t.kred);
        c.buf[2].abs_tol = 4.0 * (double)t.kred * 0x1p-24 * fabs(t.alpha) + 2.0 * fd_unit_roundoff(t.dt);
        c.buf[2].rel_tol = 2.0 * fd_unit_roundoff(t.dt);
    }
    c.det = 1;
    c.fill = fill;
    c.call = call;
    c.ctx = &t;
    c.want = CUDNN_STATUS_SUCCESS;
    gm_run(&c);
    /* the last call was the cuda handle's determinism re-run */
    FD_EXPECT(strcmp(gm_last_impl, t.want) == 0, "%s: dispatch ran %s, expected %s", label,
              gm_last_impl[0] ? gm_last_impl : "(nothing logged)", t.want);
    teardown(&t);
}

/* A 2-d exact NHWC / KRSC cross-correlation, stride s in both dims, pad R / 2, alpha 1 beta 0. */
static dg_case_t base(cudnnDataType_t dt, int n, int c, int k, int h, int w, int r, int s, int stride)
{
    dg_case_t t;
    memset(&t, 0, sizeof t);
    t.dt = dt, t.nsp = 2, t.n = n, t.c = c, t.k = k;
    t.in[0] = h, t.in[1] = w, t.in[2] = 1;
    t.flt[0] = r, t.flt[1] = s, t.flt[2] = 1;
    for (int d = 0; d < 3; d++)
        t.str[d] = stride, t.dil[d] = 1;
    t.pad[0] = r / 2, t.pad[1] = s / 2;
    t.mode = CUDNN_CROSS_CORRELATION;
    t.xl = t.yl = L_NHWC;
    t.algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    t.alpha = 1.0, t.beta = 0.0, t.exact = 1;
    t.want = ROW;
    t.seed = (uint64_t)(n * 131 + c * 17 + k * 7 + h + w * 3 + r * 11 + stride);
    return t;
}

static const double ab[3][2] = {{1.0, 0.0}, {0.5, 0.25}, {-2.0, 1.0}};

/* ResNet-50 (v1.5: stride on the 3x3) stride-2 layers: the 3x3 of the first block of stages
 * 3-5 and the 1x1 downsample projections; dx sizes are the layers' inputs. */
static void resnet(cudnnDataType_t dt, int which, int n)
{
    static const int layers[6][5] = {
        /* C, K, H, R, pad */
        {128, 128, 56, 3, 1}, {256, 256, 28, 3, 1}, {512, 512, 14, 3, 1},
        {256, 512, 56, 1, 0}, {512, 1024, 28, 1, 0}, {1024, 2048, 14, 1, 0},
    };
    const int *l = layers[which];
    dg_case_t t = base(dt, n, l[0], l[1], l[2], l[2], l[3], l[3], 2);
    t.pad[0] = t.pad[1] = l[4];
    t.exact = 0;
    t.seed += (uint64_t)which * 1000;
    run(t);
}

int main(int argc, char **argv)
{
    setenv("FREEDNN_LOG_DISPATCH", "1", 1);
    gm_init(argc, argv, "test_gpu_conv_dgrad");
    gm_watch_dispatch();
    const cudnnDataType_t dts[2] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    for (int di = 0; di < 2; di++) {
        const cudnnDataType_t dt = dts[di];
        /* smoke: the 3x3 stride-2 split (four residues with taps), a 1x1 stride-2 with blended
         * residues and beta != 0, stride (2, 1) in convolution mode */
        run(base(dt, 2, 8, 16, 9, 9, 3, 3, 2));
        dg_case_t t = base(dt, 1, 16, 8, 7, 8, 1, 1, 2);
        t.alpha = 0.5, t.beta = 0.25, t.mode = CUDNN_CONVOLUTION;
        run(t);
        t = base(dt, 2, 8, 24, 7, 6, 3, 3, 1);
        t.str[0] = 2, t.mode = CUDNN_CONVOLUTION, t.alpha = -2.0, t.beta = 1.0;
        run(t);
        if (gm_smoke)
            continue;

        /* filters x strides x pads, odd sizes, both modes, every alpha/beta, the layouts */
        static const int flts[4] = {1, 3, 5, 7};
        static const int strs[3][2] = {{2, 2}, {3, 3}, {2, 1}};
        int v = 0;
        for (int fi = 0; fi < 4; fi++)
            for (int si = 0; si < 3; si++, v++) {
                const int r = flts[fi];
                t = base(dt, 2, 16 + 8 * (v % 3), 8 + 16 * (v % 2), 11 + fi * 2 + si,
                         13 + 2 * si + (fi & 1), r, r, 1);
                t.str[0] = strs[si][0], t.str[1] = strs[si][1];
                t.pad[0] = v % 4;
                t.pad[1] = (v + 1) % 4;
                t.mode = v % 2 ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
                t.alpha = ab[v % 3][0], t.beta = ab[v % 3][1];
                t.xl = (layout_t)(v % 3); /* NHWC, NCHW, ODD */
                t.yl = v % 4 == 3 ? L_PAD8 : L_NHWC;
                t.w_kcrs = v % 5 == 4;
                run(t);
            }
        /* asymmetric: 5x3 filter, strides (3, 2), pads (3, 0); 7x1 with stride (2, 3) */
        t = base(dt, 3, 24, 16, 17, 14, 5, 3, 1);
        t.str[0] = 3, t.str[1] = 2, t.pad[0] = 3, t.pad[1] = 0, t.mode = CUDNN_CONVOLUTION;
        run(t);
        t = base(dt, 2, 8, 32, 15, 10, 7, 1, 1);
        t.str[0] = 2, t.str[1] = 3, t.pad[0] = 2, t.pad[1] = 1;
        run(t);
        /* residues without taps whose t0 != 0 (1x1, stride 3, pad 1) and residues without
         * positions (H = 2, W = 1 < stride 3) */
        t = base(dt, 2, 16, 16, 10, 11, 1, 1, 3);
        t.pad[0] = t.pad[1] = 1, t.alpha = 0.5, t.beta = 0.25;
        run(t);
        t = base(dt, 2, 8, 8, 2, 1, 1, 1, 3);
        t.alpha = -2.0, t.beta = 1.0;
        run(t);
        t = base(dt, 1, 8, 16, 2, 5, 3, 3, 3);
        t.pad[0] = t.pad[1] = 2;
        run(t);
        /* pad >= R, stride 2 */
        t = base(dt, 2, 16, 16, 9, 8, 3, 3, 2);
        t.pad[0] = 3, t.pad[1] = 2;
        run(t);
        /* C and K past the 128-wide tiles, M tails; beta != 0 */
        t = base(dt, 2, 136, 200, 13, 11, 3, 3, 2);
        t.alpha = 0.5, t.beta = 0.25;
        run(t);
        /* every layout pair with a KCRS filter */
        for (int xl = 0; xl < 3; xl++) {
            t = base(dt, 2, 24, 40, 10, 9, 5, 5, 2);
            t.xl = (layout_t)xl, t.yl = L_PAD8, t.w_kcrs = 1, t.mode = CUDNN_CONVOLUTION;
            run(t);
        }
        /* 1-d and 3-d (5-d tensors) */
        t = base(dt, 2, 16, 24, 33, 1, 5, 1, 3);
        t.nsp = 1, t.pad[0] = 2, t.pad[1] = 0;
        run(t);
        t = base(dt, 1, 16, 24, 7, 6, 3, 3, 2);
        t.nsp = 3, t.in[2] = 9, t.flt[2] = 3, t.pad[2] = 1;
        run(t);
        t = base(dt, 2, 8, 16, 5, 9, 3, 3, 1);
        t.nsp = 3, t.in[2] = 8, t.flt[2] = 1, t.str[1] = 2, t.str[2] = 3, t.pad[2] = 0;
        t.mode = CUDNN_CONVOLUTION, t.alpha = 0.5, t.beta = 0.25, t.xl = L_NCHW;
        run(t);
        /* what the row declines, and who serves it instead */
        t = base(dt, 2, 16, 16, 9, 9, 3, 3, 1);
        t.want = "fd_conv_bwd_data_tc_igemm"; /* stride 1 */
        run(t);
        t = base(dt, 2, 16, 16, 11, 11, 3, 3, 2);
        t.dil[0] = t.dil[1] = 2, t.pad[0] = t.pad[1] = 2;
        t.want = "fd_conv_bwd_data_tc_igemm"; /* dilation */
        run(t);
        t = base(dt, 2, 16, 16, 11, 11, 3, 3, 2);
        t.algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_0;
        t.want = "fd_conv_bwd_data_tc_igemm"; /* ALGO_0 promises no workspace */
        run(t);
        t = base(dt, 2, 12, 16, 11, 11, 3, 3, 2);
        t.want = "fd_conv_bwd_data_tc_padc"; /* C not a multiple of 8 */
        run(t);
        t = base(dt, 2, 16, 12, 11, 11, 3, 3, 2);
        t.want = "fd_conv_bwd_data_direct"; /* K not a multiple of 8 */
        run(t);
        /* real data */
        t = base(dt, 2, 64, 96, 15, 13, 3, 3, 2);
        t.exact = 0, t.mode = CUDNN_CONVOLUTION;
        run(t);
        t = base(dt, 2, 32, 64, 20, 19, 7, 7, 2);
        t.exact = 0, t.pad[0] = t.pad[1] = 3, t.alpha = 0.5, t.beta = 0.25;
        run(t);
    }
    /* FLOAT under FMA math: the same split on the FFMA row (fd_conv_bwd_data_simt_strided),
     * which also takes NCHW dy; the FFMA row wants C >= 16 per residue */
    {
        const cudnnDataType_t F = CUDNN_DATA_FLOAT;
        dg_case_t t = base(F, 2, 16, 16, 9, 9, 3, 3, 2);
        t.fma = 1, t.want = SIMT_ROW;
        run(t);
        t = base(F, 1, 16, 8, 7, 8, 1, 1, 2);
        t.fma = 1, t.want = SIMT_ROW, t.alpha = 0.5, t.beta = 0.25, t.mode = CUDNN_CONVOLUTION;
        t.xl = t.yl = L_NCHW, t.w_kcrs = 1;
        run(t);
        t = base(F, 2, 24, 24, 7, 6, 3, 3, 1);
        t.fma = 1, t.want = SIMT_ROW, t.str[0] = 2, t.mode = CUDNN_CONVOLUTION;
        t.alpha = -2.0, t.beta = 1.0;
        run(t);
        if (!gm_smoke) {
            static const int flts[3] = {1, 3, 5};
            static const int strs[3][2] = {{2, 2}, {3, 3}, {2, 1}};
            int v = 0;
            for (int fi = 0; fi < 3; fi++)
                for (int si = 0; si < 3; si++, v++) {
                    const int r = flts[fi];
                    t = base(F, 2, 16 + 8 * (v % 3), 8 + 16 * (v % 2), 11 + fi * 2 + si,
                             13 + 2 * si + (fi & 1), r, r, 1);
                    t.fma = 1, t.want = SIMT_ROW;
                    t.str[0] = strs[si][0], t.str[1] = strs[si][1];
                    t.pad[0] = v % 4;
                    t.pad[1] = (v + 1) % 4;
                    t.mode = v % 2 ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
                    t.alpha = ab[v % 3][0], t.beta = ab[v % 3][1];
                    t.xl = (layout_t)(v % 3);        /* NHWC, NCHW, ODD */
                    t.yl = v % 2 ? L_NCHW : L_PAD8;  /* the FFMA row reads any dy */
                    t.w_kcrs = v % 3 != 1;
                    run(t);
                }
            /* 3-d, residues without positions, C / K past the 128-wide tiles */
            t = base(F, 1, 16, 24, 7, 6, 3, 3, 2);
            t.fma = 1, t.want = SIMT_ROW, t.nsp = 3, t.in[2] = 9, t.flt[2] = 3, t.pad[2] = 1;
            run(t);
            t = base(F, 1, 16, 16, 2, 5, 3, 3, 3);
            t.fma = 1, t.want = SIMT_ROW, t.pad[0] = t.pad[1] = 2;
            run(t);
            t = base(F, 2, 136, 200, 13, 11, 3, 3, 2);
            t.fma = 1, t.want = SIMT_ROW, t.alpha = 0.5, t.beta = 0.25, t.xl = t.yl = L_NCHW;
            run(t);
            /* declined: stride 1 (the FFMA row itself), C below the FFMA row's 16 (the few-channel
             * row of conv_simt.cu) */
            t = base(F, 2, 16, 16, 9, 9, 3, 3, 1);
            t.fma = 1, t.want = "fd_conv_bwd_data_simt_igemm";
            run(t);
            t = base(F, 2, 8, 16, 9, 9, 3, 3, 2);
            t.fma = 1, t.want = "fd_conv_bwd_data_simt_smallc";
            run(t);
            /* real data: ResNet-50's stride-2 3x3 and 1x1 layers in NCHW, as the f32 table runs */
            static const int rl[2][5] = {{128, 128, 56, 3, 1}, {256, 512, 56, 1, 0}};
            for (int l = 0; l < 2; l++) {
                t = base(F, 2, rl[l][0], rl[l][1], rl[l][2], rl[l][2], rl[l][3], rl[l][3], 2);
                t.fma = 1, t.want = SIMT_ROW, t.exact = 0, t.pad[0] = t.pad[1] = rl[l][4];
                t.xl = t.yl = L_NCHW, t.w_kcrs = 1;
                run(t);
            }
        }
    }
    if (!gm_smoke && !getenv("FD_GM_RERUN")) {
        /* ResNet-50's stride-2 layers at N = 2..4 (all six in HALF, two in BFLOAT16; the ref
         * side costs about 0.2-0.5 G multiply-adds each, most of the program's time) */
        static const int resnet_n[6] = {2, 3, 4, 2, 2, 3};
        for (int l = 0; l < 6; l++)
            resnet(CUDNN_DATA_HALF, l, resnet_n[l]);
        resnet(CUDNN_DATA_BFLOAT16, 2, 2);
        resnet(CUDNN_DATA_BFLOAT16, 5, 2);
        /* a dx of 4.7M elements: the blend and the sub-problems past one grid */
        dg_case_t t = base(CUDNN_DATA_HALF, 4, 128, 64, 96, 96, 1, 1, 2);
        t.pad[0] = t.pad[1] = 0, t.exact = 0, t.alpha = 0.5, t.beta = 0.25;
        run(t);
    }
    /* the same cases with the sub-filter gather (the grouped wgmma launch reads the filter's
     * views without it by default; test_gpu_conv_wgmma_bwd's child "4" runs ResNet-50's layers) */
    gm_rerun_with(argv, "FREEDNN_WGMMA_DGRAD_NOGATHER", "0");
    return gm_finish();
}
