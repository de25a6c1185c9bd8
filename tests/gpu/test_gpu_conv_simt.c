/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_conv_simt.c - the FFMA implicit-GEMM rows (src/cuda/conv_simt.cu:
 * fd_conv_{fwd,bwd_data,bwd_filter}_simt_igemm) against the ref backend through the public API
 * (tests/gpu/gpu_mirror.h). FLOAT data under CUDNN_FMA_MATH, so no tensor-core row may take
 * the call. Every case runs in all three directions, alternating the enums each row serves
 * (fwd IMPLICIT_GEMM / IMPLICIT_PRECOMP_GEMM, bwd data ALGO_0 / ALGO_1, bwd filter ALGO_1 /
 * ALGO_3 with the workspace the cuda handle asks for), and the dispatch log must name the simt
 * row (a silent fallback to the naive kernel fails the test).
 *
 * Shapes stress the tiling and the loaders: x / y in NCHW, NHWC and a permuted, padded layout
 * (C outermost, every extent padded), KCRS and KRSC filters, 1x1 to 7x7, strides (the strided
 * bwd data gather), dilation, both modes, 1-d / 2-d / 3-d, C and K of 3, 5, 17 and past the
 * 128-wide tiles, M tails, one split and many splits of bwd filter on each of its three tiles
 * (128 x 128, 64 x 128, 32 x 256), a case of >= 4M outputs in fwd and bwd data. Integer fills are
 * exact (float sums of small integers), so those runs are bit-identical to ref (tolerance 0); real
 * fills agree within the float accumulation bound of the reduction length. Every case is
 * deterministic (det = 1: a second cuda run, same bits).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_mirror.h"

typedef enum { L_NCHW, L_NHWC, L_ODD } layout_t;
static const char *const layout_names[3] = {"nchw", "nhwc", "odd"};

typedef struct {
    int dir; /* 0 fwd, 1 bwd data, 2 bwd filter */
    int variant; /* which of the row's two enums */
    size_t ws;
    int nsp, n, c, k;
    int in[3], flt[3], pad[3], str[3], dil[3];
    int mode; /* CUDNN_CONVOLUTION or CUDNN_CROSS_CORRELATION */
    layout_t xl, yl;
    cudnnTensorFormat_t wfmt; /* NCHW: KCRS, NHWC: KRSC */
    double alpha, beta;
    int exact;
    uint64_t seed;
    /* derived */
    int64_t xext, yext, nw;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
} sc_case_t;

/* Strides of (n, c, spatial...) in a layout; returns the element extent. L_ODD: C outermost,
 * then N, then the spatial dims, the innermost extent padded by 3 and the others by 1. */
static int64_t layout_strides(layout_t l, int nb, const int *dim, int *stride)
{
    int order[5], k = 0;
    if (l == L_NCHW) {
        for (int d = 0; d < nb; d++)
            order[k++] = d;
    } else if (l == L_NHWC) {
        order[k++] = 0;
        for (int d = 2; d < nb; d++)
            order[k++] = d;
        order[k++] = 1;
    } else {
        order[k++] = 1;
        order[k++] = 0;
        for (int d = 2; d < nb; d++)
            order[k++] = d;
    }
    int64_t s = 1;
    for (int i = nb - 1; i >= 0; i--) {
        const int d = order[i];
        stride[d] = (int)s;
        s *= dim[d] + (l == L_ODD ? (i == nb - 1 ? 3 : 1) : 0);
    }
    int64_t ext = 1;
    for (int d = 0; d < nb; d++)
        ext += (int64_t)(dim[d] - 1) * stride[d];
    return ext;
}

static int setup(sc_case_t *t)
{
    const int nb = t->nsp + 2;
    int xdim[5] = {t->n, t->c}, wdim[5] = {t->k, t->c}, ydim[5], st[5];
    for (int d = 0; d < t->nsp; d++)
        xdim[2 + d] = t->in[d], wdim[2 + d] = t->flt[d];
    if (cudnnCreateTensorDescriptor(&t->xd) || cudnnCreateTensorDescriptor(&t->yd) ||
        cudnnCreateFilterDescriptor(&t->wd) || cudnnCreateConvolutionDescriptor(&t->cd))
        return 0;
    t->xext = layout_strides(t->xl, nb, xdim, st);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->xd, CUDNN_DATA_FLOAT, nb, xdim, st),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetFilterNdDescriptor(t->wd, CUDNN_DATA_FLOAT, t->wfmt, nb, wdim),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionNdDescriptor(t->cd, t->nsp, t->pad, t->str, t->dil,
                                                     (cudnnConvolutionMode_t)t->mode, CUDNN_DATA_FLOAT),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionMathType(t->cd, CUDNN_FMA_MATH), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnGetConvolutionNdForwardOutputDim(t->cd, t->xd, t->wd, nb, ydim),
                     CUDNN_STATUS_SUCCESS);
    t->yext = layout_strides(t->yl, nb, ydim, st);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->yd, CUDNN_DATA_FLOAT, nb, ydim, st),
                     CUDNN_STATUS_SUCCESS);
    t->nw = 1;
    for (int d = 0; d < nb; d++)
        t->nw *= wdim[d];
    return 1;
}

static void teardown(sc_case_t *t)
{
    cudnnDestroyTensorDescriptor(t->xd);
    cudnnDestroyTensorDescriptor(t->yd);
    cudnnDestroyFilterDescriptor(t->wd);
    cudnnDestroyConvolutionDescriptor(t->cd);
}

static void fill(int i, void *payload, size_t bytes, void *ctx)
{
    sc_case_t *t = ctx;
    fd_rng_t r;
    fd_rng_seed(&r, t->seed * 7 + (uint64_t)i);
    int64_t n = (int64_t)(bytes / sizeof(float));
    if (i == 2 && t->beta == 0.0)
        return; /* the output stays poisoned: beta = 0 must not read it */
    if (t->exact)
        fd_fill_int(&r, CUDNN_DATA_FLOAT, payload, n, -3, 3, 0.8);
    else
        fd_fill_real(&r, CUDNN_DATA_FLOAT, payload, n, -1.0, 1.0);
}

static const cudnnConvolutionFwdAlgo_t fwd_algos[2] = {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                                                       CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM};
static const cudnnConvolutionBwdDataAlgo_t bwd_data_algos[2] = {CUDNN_CONVOLUTION_BWD_DATA_ALGO_0,
                                                                CUDNN_CONVOLUTION_BWD_DATA_ALGO_1};
static const cudnnConvolutionBwdFilterAlgo_t bwd_filter_algos[2] = {
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3};

static int algo_of(const sc_case_t *t)
{
    return t->dir == 1 ? (int)bwd_data_algos[t->variant]
           : t->dir == 2 ? (int)bwd_filter_algos[t->variant]
                         : (int)fwd_algos[t->variant];
}

static cudnnStatus_t call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    sc_case_t *t = ctx;
    gm_last_impl[0] = '\0';
    /* buffers: 0 and 1 the inputs of the direction, 2 its output, 3 the workspace */
    return gm_conv_call(h, t->dir, algo_of(t), t->xd, t->wd, t->cd, t->yd, t->alpha, t->beta, ptr,
                        t->ws);
}

static const char *const dir_names[3] = {"fwd", "bwd_data", "bwd_filter"};
static const char *const simt_rows[3] = {"fd_conv_fwd_simt_igemm", "fd_conv_bwd_data_simt_igemm",
                                         "fd_conv_bwd_filter_simt_igemm"};

static size_t workspace(cudnnHandle_t h, const sc_case_t *t)
{
    return gm_conv_workspace(h, t->dir, algo_of(t), t->xd, t->wd, t->cd, t->yd);
}

static int case_count;

/* Whether the few-channel backward data row (conv_simt.cu, sd_geom) takes a C < 16 problem: 1-d
 * or 2-d, undilated, at most 512 filter-table entries (ceil(R / u) x ceil(S / v) rounded up to 4
 * x channels per block, 3 counting as 4), 96 KiB of shared memory for its two stages and staged
 * dy rows of at most 128 floats. */
static int smallc_takes(const sc_case_t *t)
{
    if (t->nsp > 2)
        return 0;
    for (int d = 0; d < t->nsp; d++)
        if (t->dil[d] > 1)
            return 0;
    const int r = t->nsp == 2 ? t->flt[0] : 1, s = t->flt[t->nsp - 1];
    const int u = t->nsp == 2 ? t->str[0] : 1, v = t->str[t->nsp - 1];
    const int groups = (t->c + 3) / 4, ct = (t->c + groups - 1) / groups, cp = ct == 3 ? 4 : ct;
    const int rmax = (r + u - 1) / u, smax = (s + v - 1) / v, spmax = (smax + 3) / 4 * 4;
    int pitch = (64 + smax + 5) / 4 * 4;
    if (pitch % 8 == 0)
        pitch += 4;
    const long bytes = 2L * 4 * ((15L + rmax) * pitch + (long)rmax * spmax * cp) * 4;
    return rmax * spmax * cp <= 512 && bytes <= 96 * 1024 && pitch <= 128;
}

static void run_dir(sc_case_t t)
{
    if (!setup(&t))
        return;
    char label[320];
    snprintf(label, sizeof label,
             "%s/%d n%d c%d k%d in%dx%dx%d f%dx%dx%d p%d,%d u%d,%d d%d,%d %s x-%s y-%s w-%s a%g b%g %s",
             dir_names[t.dir], t.variant, t.n, t.c, t.k, t.in[0], t.nsp > 1 ? t.in[1] : 1,
             t.nsp > 2 ? t.in[2] : 1, t.flt[0], t.nsp > 1 ? t.flt[1] : 1, t.nsp > 2 ? t.flt[2] : 1,
             t.pad[0], t.pad[1], t.str[0], t.str[1], t.dil[0], t.dil[1],
             t.mode == CUDNN_CONVOLUTION ? "conv" : "xcorr", layout_names[t.xl],
             layout_names[t.yl], t.wfmt == CUDNN_TENSOR_NCHW ? "kcrs" : "krsc", t.alpha, t.beta,
             t.exact ? "exact" : "real");
    const size_t es = sizeof(float);
    gm_case_t c = {0};
    c.label = label;
    const size_t wsr = workspace(gm_ref, &t), wsc = workspace(gm_cuda, &t);
    t.ws = wsr > wsc ? wsr : wsc;
    const gm_role_t out_role = t.beta != 0.0 ? GM_INOUT : GM_OUT;
    c.nbuf = 4;
    int64_t taps = 1, outsp = 1;
    for (int d = 0; d < t.nsp; d++)
        taps *= t.flt[d];
    int64_t kred;
    if (t.dir == 0) {
        c.buf[0] = (gm_buf_t){"x", (size_t)t.xext * es, CUDNN_DATA_FLOAT, GM_IN, 0, 0};
        c.buf[1] = (gm_buf_t){"w", (size_t)t.nw * es, CUDNN_DATA_FLOAT, GM_IN, 0, 0};
        c.buf[2] = (gm_buf_t){"y", (size_t)t.yext * es, CUDNN_DATA_FLOAT, out_role, 0, 0};
        kred = taps * t.c;
    } else if (t.dir == 1) {
        c.buf[0] = (gm_buf_t){"dy", (size_t)t.yext * es, CUDNN_DATA_FLOAT, GM_IN, 0, 0};
        c.buf[1] = (gm_buf_t){"w", (size_t)t.nw * es, CUDNN_DATA_FLOAT, GM_IN, 0, 0};
        c.buf[2] = (gm_buf_t){"dx", (size_t)t.xext * es, CUDNN_DATA_FLOAT, out_role, 0, 0};
        kred = taps * t.k;
    } else {
        int dims[5], strides[5], nbd = 0;
        cudnnDataType_t dt;
        FD_EXPECT_STATUS(cudnnGetTensorNdDescriptor(t.yd, 5, &dt, &nbd, dims, strides),
                         CUDNN_STATUS_SUCCESS);
        for (int d = 0; d < nbd; d++)
            outsp *= d == 1 ? 1 : dims[d];
        c.buf[0] = (gm_buf_t){"x", (size_t)t.xext * es, CUDNN_DATA_FLOAT, GM_IN, 0, 0};
        c.buf[1] = (gm_buf_t){"dy", (size_t)t.yext * es, CUDNN_DATA_FLOAT, GM_IN, 0, 0};
        c.buf[2] = (gm_buf_t){"dw", (size_t)t.nw * es, CUDNN_DATA_FLOAT, out_role, 0, 0};
        kred = outsp;
    }
    c.buf[3] = (gm_buf_t){"workspace", t.ws, CUDNN_DATA_FLOAT, GM_WS, 0, 0};
    if (!t.exact) {
        /* inputs in [-1, 1): the sum's magnitude is up to kred; float accumulation in another
         * order than ref's double: kred * 2^-24 relative to that, plus the output's rounding */
        c.buf[2].abs_tol = 4.0 * (double)kred * 0x1p-24 * fabs(t.alpha) + 2.0 * 0x1p-24;
        c.buf[2].rel_tol = 2.0 * 0x1p-24;
    }
    c.det = 1;
    c.fill = fill;
    c.call = call;
    c.ctx = &t;
    c.want = CUDNN_STATUS_SUCCESS;
    gm_run(&c);
    case_count++;
    /* the last call was the cuda handle's determinism re-run; backward data with C < 16 goes to
     * the few-channel row (src/cuda/conv_simt.cu, SIMT_MIN_DGRAD_C) when it takes the problem,
     * else to the naive kernel; strided, undilated backward data under ALGO_1 (which allows the
     * sub-filters' workspace) to the residue split on this row (src/cuda/conv_tc_dgrad.cu,
     * fd_conv_bwd_data_simt_strided) */
    int strided = 0, dilated = 0;
    for (int d = 0; d < t.nsp; d++)
        strided |= t.str[d] > 1, dilated |= t.dil[d] > 1;
    const char *want_row =
        t.dir == 1 && t.c < 16
            ? (smallc_takes(&t) ? "fd_conv_bwd_data_simt_smallc" : "fd_conv_bwd_data_direct")
        : t.dir == 1 && strided && !dilated && algo_of(&t) == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1
            ? "fd_conv_bwd_data_simt_strided"
            : simt_rows[t.dir];
    FD_EXPECT(strcmp(gm_last_impl, want_row) == 0, "%s: dispatch ran %s, expected %s", label,
              gm_last_impl[0] ? gm_last_impl : "(nothing logged)", want_row);
    teardown(&t);
}

static void run(sc_case_t t)
{
    static int rotate;
    for (int d = 0; d < 3; d++) {
        t.dir = d;
        t.variant = (rotate++) & 1;
        run_dir(t);
    }
}

static sc_case_t base(int n, int c, int k, int h, int w, int r, int s)
{
    sc_case_t t;
    memset(&t, 0, sizeof t);
    t.nsp = 2, t.n = n, t.c = c, t.k = k;
    t.in[0] = h, t.in[1] = w, t.flt[0] = r, t.flt[1] = s;
    for (int d = 0; d < 3; d++)
        t.str[d] = t.dil[d] = 1;
    t.pad[0] = r / 2, t.pad[1] = s / 2;
    t.mode = CUDNN_CROSS_CORRELATION;
    t.xl = t.yl = L_NCHW;
    t.wfmt = CUDNN_TENSOR_NCHW;
    t.alpha = 1.0, t.beta = 0.0, t.exact = 1;
    t.seed = (uint64_t)(n * 131 + c * 17 + k * 7 + h + w * 3 + r);
    return t;
}

/* x, y and filter layout of layout set i: NCHW/KCRS, NHWC/KRSC, odd/KCRS, odd/KRSC, NHWC/KCRS,
 * NCHW/KRSC (the last two are the mixed pairs whose reduction order follows x). */
static sc_case_t with_layout(sc_case_t t, int i)
{
    static const layout_t ls[6] = {L_NCHW, L_NHWC, L_ODD, L_ODD, L_NHWC, L_NCHW};
    static const cudnnTensorFormat_t fs[6] = {CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC, CUDNN_TENSOR_NCHW,
                                              CUDNN_TENSOR_NHWC, CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC};
    t.xl = t.yl = ls[i];
    t.wfmt = fs[i];
    return t;
}

int main(int argc, char **argv)
{
    setenv("FREEDNN_LOG_DISPATCH", "1", 1);
    gm_init(argc, argv, "test_gpu_conv_simt");
    gm_watch_dispatch();

    if (gm_smoke) {
        run(with_layout(base(2, 5, 17, 9, 11, 3, 3), 0));
        run(with_layout(base(1, 6, 9, 7, 8, 3, 3), 1));
        sc_case_t t = with_layout(base(1, 3, 5, 9, 9, 3, 3), 2);
        t.str[0] = t.str[1] = 2, t.beta = 0.5;
        run(t);
        /* the few-channel backward data with a speech filter, and past 48 KiB of shared memory */
        t = with_layout(base(1, 1, 8, 12, 44, 5, 20), 0);
        t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 0;
        run(t);
        t = base(1, 1, 4, 12, 13, 11, 11);
        run(t);
        t = base(1, 3, 8, 30, 64, 7, 7); /* dy rows of 32 floats: 16-byte copies */
        t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 3;
        run(t);
        run(base(1, 16, 8, 130, 520, 3, 3)); /* the gather's 256 x 64 tile (fwd, bwd data) */
        run(with_layout(base(2, 32, 32, 14, 14, 5, 5), 1)); /* bwd filter's 32 x 256 tile */
        run(base(2, 40, 64, 9, 9, 3, 3));                   /* bwd filter's 64 x 128 tile */
        return gm_finish();
    }

    for (int li = 0; li < 6; li++) {
        /* odd C and K, every filter size, tails of M */
        run(with_layout(base(2, 5, 17, 9, 11, 3, 3), li));
        run(with_layout(base(3, 17, 9, 7, 7, 1, 1), li));
        run(with_layout(base(1, 3, 5, 12, 13, 5, 5), li));
        sc_case_t t = with_layout(base(2, 3, 8, 19, 21, 7, 7), li);
        t.str[0] = t.str[1] = 2; /* the ResNet stem shape, small */
        run(t);
        t = with_layout(base(1, 6, 7, 15, 14, 3, 3), li);
        t.dil[0] = t.dil[1] = 2, t.pad[0] = t.pad[1] = 2;
        run(t);
        t = with_layout(base(2, 4, 6, 10, 9, 3, 2), li);
        t.mode = CUDNN_CONVOLUTION;
        run(t);
        t = with_layout(base(2, 9, 11, 9, 9, 3, 3), li);
        t.alpha = 0.5, t.beta = 0.25;
        run(t);
        /* past the 128-wide tiles in both GEMM dims, a reduction of several hundred */
        t = with_layout(base(2, 40, 136, 14, 13, 3, 3), li);
        run(t);
        t = with_layout(base(1, 130, 20, 11, 11, 3, 3), li);
        t.str[0] = t.str[1] = 2;
        run(t);
    }
    /* stride, dilation, padding mixes per dim; convolution mode with stride (strided bwd data) */
    sc_case_t t = base(2, 12, 20, 17, 19, 3, 3);
    t.str[0] = 2, t.str[1] = 3;
    run(t);
    t = with_layout(t, 1);
    run(t);
    t = base(1, 8, 8, 20, 20, 3, 3);
    t.dil[0] = 2, t.dil[1] = 3, t.pad[0] = 0, t.pad[1] = 4;
    run(t);
    t = base(2, 7, 10, 13, 12, 4, 3);
    t.mode = CUDNN_CONVOLUTION, t.str[0] = 3, t.str[1] = 2, t.pad[0] = 1, t.pad[1] = 0;
    run(t);
    t = with_layout(t, 3);
    run(t);
    t = base(1, 4, 4, 6, 6, 7, 7);
    t.pad[0] = 3, t.pad[1] = 1;
    run(t);
    /* 1-d and 3-d */
    for (int li = 0; li < 2; li++) {
        t = with_layout(base(2, 16, 33, 37, 1, 3, 1), li);
        t.nsp = 1, t.pad[0] = 1, t.pad[1] = 0;
        run(t);
        t = with_layout(base(1, 5, 12, 5, 6, 3, 3), li);
        t.nsp = 3, t.in[2] = 7, t.flt[2] = 3, t.pad[2] = 1, t.str[2] = 2;
        run(t);
    }
    /* x and y in different layouts */
    t = base(2, 9, 14, 10, 10, 3, 3);
    t.yl = L_NHWC;
    run(t);
    t = with_layout(base(2, 9, 14, 10, 10, 3, 3), 1);
    t.yl = L_ODD;
    run(t);
    /* alpha / beta */
    for (int li = 0; li < 2; li++) {
        t = with_layout(base(2, 32, 48, 9, 9, 3, 3), li);
        t.alpha = -2.0, t.beta = 1.0;
        run(t);
        t = with_layout(base(2, 32, 48, 9, 9, 3, 3), li);
        t.alpha = 0.0, t.beta = 0.5;
        run(t);
    }
    /* real data: ResNet-50 layers at small N, in both layouts */
    for (int li = 0; li < 2; li++) {
        t = with_layout(base(2, 64, 64, 28, 28, 3, 3), li);
        t.exact = 0;
        run(t);
        t = with_layout(base(2, 256, 64, 14, 14, 1, 1), li);
        t.exact = 0, t.pad[0] = t.pad[1] = 0;
        run(t);
        t = with_layout(base(2, 64, 128, 28, 28, 3, 3), li);
        t.str[0] = t.str[1] = 2, t.exact = 0;
        run(t);
        t = with_layout(base(2, 3, 64, 56, 56, 7, 7), li);
        t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 3, t.exact = 0;
        run(t);
        t = with_layout(base(1, 17, 33, 23, 29, 5, 5), li + 2);
        t.exact = 0, t.alpha = 0.5, t.beta = 0.25;
        run(t);
    }
    /* few channels (the few-channel backward data row): the DeepBench speech filters, channel
     * groups (C = 5, 7, 8, 15), classes without taps (2x2 stride 3), tiles crossed in both dims,
     * K of 1 and 5 (a partial stage), 1-d, more than 48 KiB of shared memory (11x11, C = 1), and
     * the 11x11 C = 3 filter it declines (its filter table) */
    for (int li = 0; li < 3; li++) {
        t = with_layout(base(2, 1, 32, 21, 70, 5, 20), li);
        t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 0;
        run(t);
        t = with_layout(base(1, 1, 8, 20, 45, 5, 10), li);
        t.str[0] = 2, t.str[1] = 2, t.pad[0] = 1, t.pad[1] = 3, t.mode = CUDNN_CONVOLUTION;
        run(t);
        static const int cs[4] = {5, 7, 8, 15};
        for (int i = 0; i < 4; i++) {
            t = with_layout(base(2, cs[i], 9, 11, 13, 3, 3), li);
            t.str[0] = t.str[1] = 2;
            run(t);
        }
        t = with_layout(base(2, 2, 6, 14, 17, 2, 2), li);
        t.str[0] = t.str[1] = 3, t.pad[0] = t.pad[1] = 0, t.beta = 0.5;
        run(t);
        t = with_layout(base(1, 3, 5, 40, 150, 3, 3), li);
        t.str[0] = t.str[1] = 2;
        run(t);
        t = with_layout(base(1, 4, 1, 37, 133, 3, 3), li);
        run(t);
        t = with_layout(base(2, 3, 5, 19, 23, 7, 7), li);
        t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 3, t.alpha = -2.0, t.beta = 1.0;
        run(t);
    }
    /* the 16-byte dy copies (dy rows contiguous, row starts multiples of 4 floats): NCHW with Q
     * a multiple of 4, stride 1 and 2, both modes; the padded layout with Q = 1 mod 4 (rows of Q +
     * 3 floats), whose last chunk of a row is zero-filled past Q */
    t = base(2, 3, 8, 30, 64, 7, 7);
    t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 3;
    run(t);
    t.mode = CUDNN_CONVOLUTION, t.alpha = 0.5, t.beta = 0.25;
    run(t);
    t = base(2, 2, 5, 18, 128, 5, 5);
    run(t);
    t = with_layout(base(2, 3, 6, 20, 57, 3, 3), 2);
    t.str[0] = t.str[1] = 2;
    run(t);
    t = with_layout(base(1, 1, 9, 9, 213, 3, 5), 3);
    run(t);
    t = base(2, 2, 7, 1, 300, 1, 9);
    t.nsp = 1, t.in[0] = 300, t.flt[0] = 9, t.pad[0] = 4, t.str[0] = 2;
    run(t);
    t = base(1, 1, 4, 20, 22, 11, 11);
    run(t);
    t = base(1, 3, 4, 16, 16, 11, 11);
    run(t);
    /* real data, the stem and the speech layer at small N */
    t = base(3, 3, 64, 64, 70, 7, 7);
    t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 3, t.exact = 0;
    run(t);
    t = base(2, 1, 32, 41, 200, 5, 20);
    t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 0, t.exact = 0;
    run(t);
    /* the gather's 256 x 64 tile (GEMMs of <= 64 columns with >= 264 such tiles: fwd K, bwd
     * data C): layouts, alpha / beta, a strided and padded problem in convolution mode (bwd data
     * ALGO_0 gathers it unsplit), real data */
    for (int li = 0; li < 3; li++) {
        t = with_layout(base(4, 24, 40, 96, 180, 3, 3), li);
        t.alpha = 0.5, t.beta = 0.25;
        run(t);
    }
    t = with_layout(base(4, 32, 48, 190, 190, 3, 3), 1);
    t.str[0] = t.str[1] = 2, t.mode = CUDNN_CONVOLUTION;
    run(t);
    t = base(2, 64, 64, 200, 180, 1, 1);
    t.pad[0] = t.pad[1] = 0, t.exact = 0;
    run(t);
    /* the backward filter's 64 x 128 and 32 x 256 tiles (simt_wtile picks by padded area):
     * K = 32 over J = 800 (4 column tiles of 256) in one split's worth of m, 7 splits (one
     * launch) and 25 (the reduce kernel); K = 64, J = 243 (J % 4 != 0: one-float sums), one
     * split and 15; K = 16 over J = 9; K = 80 (three 32-row tiles, the last a tail of 16),
     * K = 48 (the 64-row tile's tail); both layouts, alpha / beta, real data */
    for (int li = 0; li < 2; li++) {
        t = with_layout(base(1, 32, 32, 10, 10, 5, 5), li);
        t.pad[0] = t.pad[1] = 0;
        run(t);
        t = with_layout(base(1, 32, 32, 28, 28, 5, 5), li);
        run(t);
        t = with_layout(base(4, 32, 32, 28, 28, 5, 5), li);
        t.alpha = 0.5, t.beta = 0.25;
        run(t);
        t = with_layout(base(2, 27, 64, 8, 7, 3, 3), li);
        run(t);
        t = with_layout(base(2, 27, 64, 30, 30, 3, 3), li);
        t.exact = 0;
        run(t);
        run(with_layout(base(3, 1, 16, 24, 60, 3, 3), li));
        t = with_layout(base(2, 80, 80, 10, 10, 3, 3), li);
        t.alpha = -2.0, t.beta = 1.0;
        run(t);
        t = with_layout(base(2, 48, 48, 12, 12, 3, 3), li + 2);
        t.exact = 0;
        run(t);
    }
    /* >= 4M outputs (fwd y, bwd data dx): many tiles, a long bwd filter reduction */
    for (int li = 0; li < 2; li++) {
        t = with_layout(base(16, 16, 16, 128, 128, 1, 1), li);
        t.pad[0] = t.pad[1] = 0;
        run(t);
    }
    printf("test_gpu_conv_simt: %d direction cases\n", case_count);
    return gm_finish();
}
