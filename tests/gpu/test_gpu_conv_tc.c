/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_conv_tc.c - the tensor-core rows (src/cuda/conv_tc.cu: fd_conv_{fwd,bwd_data,
 * bwd_filter}_tc_igemm) against the ref backend through the public API (tests/gpu/gpu_mirror.h), on
 * the shapes that stress its tiling: C below, at and above the 32-wide reduction tile, K and M
 * tails, strides, dilation, padding, both convolution modes, 1-d, 2-d and 3-d, y in another layout,
 * alpha/beta. Integer fills are exact (products of small integers summed in float), so those runs
 * must be bit-identical to ref; real fills must agree within the tolerance of the reduction length.
 * Every case runs in all three directions (fwd IMPLICIT_PRECOMP_GEMM, bwd data ALGO_1, bwd
 * filter ALGO_1 with the workspace the cuda handle asks for), and the dispatch log must name the
 * tensor-core row (so a silent fallback to the naive kernel fails the test), or for C not a
 * multiple of 8 its channel-padding wrapper (src/cuda/conv_tc_pad.cu). FREEDNN_WGMMA=0 keeps the
 * sm_90a forward row (test_gpu_conv_wgmma.c) from taking its C % 64 == 0 cases. Deterministic:
 * every case runs twice (the split-K reduction of bwd filter included). Channel counts of at
 * most 32 run the narrow tiles (fwd K, bwd data C: 128 x 32; bwd filter K: 32 x 128); a child
 * with FREEDNN_TC_NARROW=0 runs every case again on the 128 x 128 tile.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_mirror.h"

typedef struct {
    int dir; /* 0 fwd, 1 bwd data, 2 bwd filter */
    size_t ws;
    cudnnDataType_t dt;
    int nsp, n, c, k;
    int in[3], flt[3], pad[3], str[3], dil[3];
    int mode;     /* CUDNN_CONVOLUTION or CUDNN_CROSS_CORRELATION */
    int y_nchw;   /* y in NCHW while x and w are NHWC */
    double alpha, beta;
    int exact;    /* integer fills */
    uint64_t seed;
    /* derived */
    int out[3];
    int64_t nx, nw, ny;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
} tc_case_t;

/* NHWC-packed strides of (n, c, sp...) in cuDNN's N, C, spatial order. */
static void nhwc_strides(int nsp, const int *dim, int *stride)
{
    int s = 1;
    stride[1] = 1;
    s = dim[1];
    for (int d = nsp - 1; d >= 0; d--) {
        stride[2 + d] = s;
        s *= dim[2 + d];
    }
    stride[0] = s;
}

static void nchw_strides(int nb, const int *dim, int *stride)
{
    stride[nb - 1] = 1;
    for (int d = nb - 2; d >= 0; d--)
        stride[d] = stride[d + 1] * dim[d + 1];
}

static int setup(tc_case_t *t)
{
    const int nb = t->nsp + 2;
    int xdim[5] = {t->n, t->c}, wdim[5] = {t->k, t->c}, ydim[5], st[5];
    for (int d = 0; d < t->nsp; d++)
        xdim[2 + d] = t->in[d], wdim[2 + d] = t->flt[d];
    if (cudnnCreateTensorDescriptor(&t->xd) || cudnnCreateTensorDescriptor(&t->yd) ||
        cudnnCreateFilterDescriptor(&t->wd) || cudnnCreateConvolutionDescriptor(&t->cd))
        return 0;
    nhwc_strides(t->nsp, xdim, st);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->xd, t->dt, nb, xdim, st), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetFilterNdDescriptor(t->wd, t->dt, CUDNN_TENSOR_NHWC, nb, wdim),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionNdDescriptor(t->cd, t->nsp, t->pad, t->str, t->dil,
                                                     (cudnnConvolutionMode_t)t->mode, CUDNN_DATA_FLOAT),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnGetConvolutionNdForwardOutputDim(t->cd, t->xd, t->wd, nb, ydim),
                     CUDNN_STATUS_SUCCESS);
    if (t->y_nchw)
        nchw_strides(nb, ydim, st);
    else
        nhwc_strides(t->nsp, ydim, st);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->yd, t->dt, nb, ydim, st), CUDNN_STATUS_SUCCESS);
    t->nx = t->nw = t->ny = 1;
    for (int d = 0; d < nb; d++)
        t->nx *= xdim[d], t->nw *= wdim[d], t->ny *= ydim[d];
    for (int d = 0; d < t->nsp; d++)
        t->out[d] = ydim[2 + d];
    return 1;
}

static void teardown(tc_case_t *t)
{
    cudnnDestroyTensorDescriptor(t->xd);
    cudnnDestroyTensorDescriptor(t->yd);
    cudnnDestroyFilterDescriptor(t->wd);
    cudnnDestroyConvolutionDescriptor(t->cd);
}

static void fill(int i, void *payload, size_t bytes, void *ctx)
{
    tc_case_t *t = ctx;
    fd_rng_t r;
    fd_rng_seed(&r, t->seed * 7 + (uint64_t)i);
    int64_t n = (int64_t)(bytes / fd_test_dtype_size(t->dt));
    if (i == 2 && t->beta == 0.0)
        return; /* the output stays poisoned: beta = 0 must not read it */
    if (t->exact)
        fd_fill_int(&r, t->dt, payload, n, -3, 3, 0.8);
    else
        fd_fill_real(&r, t->dt, payload, n, -1.0, 1.0);
}

/* The algorithm of each direction: the tensor-core rows' enums that allow a workspace. */
static const int algo_of[3] = {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                               CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1};

static cudnnStatus_t call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    tc_case_t *t = ctx;
    gm_last_impl[0] = '\0';
    /* buffers: 0 and 1 the inputs of the direction, 2 its output, 3 the workspace */
    return gm_conv_call(h, t->dir, algo_of[t->dir], t->xd, t->wd, t->cd, t->yd, t->alpha, t->beta,
                        ptr, t->ws);
}

static const char *const dir_names[3] = {"fwd", "bwd_data", "bwd_filter"};
static const char *const tc_rows[3] = {"fd_conv_fwd_tc_igemm", "fd_conv_bwd_data_tc_igemm",
                                       "fd_conv_bwd_filter_tc_igemm"};
/* C not a multiple of 8: the channel-padding wrappers (src/cuda/conv_tc_pad.cu) */
static const char *const padc_rows[3] = {"fd_conv_fwd_tc_padc", "fd_conv_bwd_data_tc_padc",
                                         "fd_conv_bwd_filter_tc_padc"};

/* Workspace of the direction's algorithm on handle h. */
static size_t workspace(cudnnHandle_t h, const tc_case_t *t)
{
    return gm_conv_workspace(h, t->dir, algo_of[t->dir], t->xd, t->wd, t->cd, t->yd);
}

static void run_dir(tc_case_t t);

static void run(tc_case_t t)
{
    /* y in NCHW is the forward's output layout; the backward rows need dy channel-contiguous */
    for (int d = 0; d < (t.y_nchw ? 1 : 3); d++) {
        t.dir = d;
        run_dir(t);
    }
}

static void run_dir(tc_case_t t)
{
    if (!setup(&t))
        return;
    char label[256];
    snprintf(label, sizeof label,
             "%s %s n%d c%d k%d in%dx%dx%d f%dx%dx%d p%d u%d d%d %s%s a%g b%g %s",
             dir_names[t.dir], fd_test_dtype_short(t.dt), t.n, t.c, t.k, t.in[0], t.nsp > 1 ? t.in[1] : 1,
             t.nsp > 2 ? t.in[2] : 1, t.flt[0], t.nsp > 1 ? t.flt[1] : 1, t.nsp > 2 ? t.flt[2] : 1,
             t.pad[0], t.str[0], t.dil[0], t.mode == CUDNN_CONVOLUTION ? "conv" : "xcorr",
             t.y_nchw ? " y-nchw" : "", t.alpha, t.beta, t.exact ? "exact" : "real");
    const size_t es = fd_test_dtype_size(t.dt);
    gm_case_t c = {0};
    c.label = label;
    const size_t wsr = workspace(gm_ref, &t), wsc = workspace(gm_cuda, &t);
    t.ws = wsr > wsc ? wsr : wsc;
    const gm_role_t out_role = t.beta != 0.0 ? GM_INOUT : GM_OUT;
    c.nbuf = 4;
    int64_t taps = 1;
    for (int d = 0; d < t.nsp; d++)
        taps *= t.flt[d];
    int64_t kred;
    if (t.dir == 0) {
        c.buf[0] = (gm_buf_t){"x", (size_t)t.nx * es, t.dt, GM_IN, 0, 0};
        c.buf[1] = (gm_buf_t){"w", (size_t)t.nw * es, t.dt, GM_IN, 0, 0};
        c.buf[2] = (gm_buf_t){"y", (size_t)t.ny * es, t.dt, out_role, 0, 0};
        kred = taps * t.c;
    } else if (t.dir == 1) {
        c.buf[0] = (gm_buf_t){"dy", (size_t)t.ny * es, t.dt, GM_IN, 0, 0};
        c.buf[1] = (gm_buf_t){"w", (size_t)t.nw * es, t.dt, GM_IN, 0, 0};
        c.buf[2] = (gm_buf_t){"dx", (size_t)t.nx * es, t.dt, out_role, 0, 0};
        kred = taps * t.k;
    } else {
        c.buf[0] = (gm_buf_t){"x", (size_t)t.nx * es, t.dt, GM_IN, 0, 0};
        c.buf[1] = (gm_buf_t){"dy", (size_t)t.ny * es, t.dt, GM_IN, 0, 0};
        c.buf[2] = (gm_buf_t){"dw", (size_t)t.nw * es, t.dt, out_role, 0, 0};
        kred = t.ny / t.k;
    }
    c.buf[3] = (gm_buf_t){"workspace", t.ws, t.dt, GM_WS, 0, 0};
    if (!t.exact) {
        gm_tol(&c.buf[2], t.dt, kred);
        /* inputs in [-1, 1): the sum's magnitude is up to kred; float accumulation in another
         * order than ref's double: kred * 2^-24 relative to that, plus y's own rounding */
        c.buf[2].abs_tol = 4.0 * (double)kred * 0x1p-24 * fabs(t.alpha) + 2.0 * fd_unit_roundoff(t.dt);
        c.buf[2].rel_tol = 2.0 * fd_unit_roundoff(t.dt);
    }
    c.det = 1;
    c.fill = fill;
    c.call = call;
    c.ctx = &t;
    c.want = CUDNN_STATUS_SUCCESS;
    gm_run(&c);
    /* the last call was the cuda handle's determinism re-run */
    int strided = 0, dilated = 0;
    for (int d = 0; d < t.nsp; d++)
        strided |= t.str[d] > 1, dilated |= t.dil[d] > 1;
    /* strided bwd data: split into stride-1 problems (src/cuda/conv_tc_dgrad.cu) */
    const char *row = t.c % 8 != 0                          ? padc_rows[t.dir]
                      : t.dir == 1 && strided && !dilated ? "fd_conv_bwd_data_tc_strided"
                                                          : tc_rows[t.dir];
    FD_EXPECT(strcmp(gm_last_impl, row) == 0, "%s: dispatch ran %s, expected %s", label,
              gm_last_impl[0] ? gm_last_impl : "(nothing logged)", row);
    teardown(&t);
}

static tc_case_t base(cudnnDataType_t dt, int n, int c, int k, int h, int w, int r, int s)
{
    tc_case_t t;
    memset(&t, 0, sizeof t);
    t.dt = dt, t.nsp = 2, t.n = n, t.c = c, t.k = k;
    t.in[0] = h, t.in[1] = w, t.flt[0] = r, t.flt[1] = s;
    for (int d = 0; d < 3; d++)
        t.str[d] = t.dil[d] = 1;
    t.pad[0] = r / 2, t.pad[1] = s / 2;
    t.mode = CUDNN_CROSS_CORRELATION;
    t.alpha = 1.0, t.beta = 0.0, t.exact = 1;
    t.seed = (uint64_t)(n * 131 + c * 17 + k * 7 + h + w * 3 + r);
    return t;
}

int main(int argc, char **argv)
{
    setenv("FREEDNN_LOG_DISPATCH", "1", 1);
    setenv("FREEDNN_WGMMA", "0", 1); /* the mma.sync rows under test, not the sm_90a row (its own program) */
    setenv("FREEDNN_SMALLC", "0", 1); /* C <= 4 problems on the padding rows under test here */
    gm_init(argc, argv, "test_gpu_conv_tc");
    gm_watch_dispatch();
    gm_rerun_with(argv, "FREEDNN_TC_NARROW", "0"); /* every case on the 128 x 128 tile */
    const cudnnDataType_t dts[2] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    for (int di = 0; di < 2; di++) {
        const cudnnDataType_t dt = dts[di];
        /* C below / at / above the 32-wide reduction tile; K and M tails */
        run(base(dt, 1, 8, 8, 5, 7, 3, 3));
        run(base(dt, 2, 16, 24, 9, 9, 3, 3));
        /* DeepBench's speech layer cut small (C = K = 32, 5x10 at stride 2): the narrow tiles in
         * every direction, bwd data by residue */
        tc_case_t sp = base(dt, 2, 32, 32, 19, 41, 5, 10);
        sp.str[0] = sp.str[1] = 2, sp.pad[0] = sp.pad[1] = 0, sp.exact = 0;
        run(sp);
        /* C not a multiple of 8 (padded copies): the ImageNet stem, 7x7 stride 2 pad 3 */
        tc_case_t t = base(dt, 2, 3, 16, 23, 21, 7, 7);
        t.str[0] = t.str[1] = 2;
        run(t);
        if (gm_smoke)
            continue;
        t = base(dt, 2, 3, 64, 30, 30, 7, 7);
        t.str[0] = t.str[1] = 2, t.alpha = 0.5, t.beta = 0.25;
        run(t);
        t = base(dt, 3, 3, 64, 64, 64, 7, 7);
        t.str[0] = t.str[1] = 2, t.exact = 0;
        run(t);
        run(base(dt, 2, 5, 24, 9, 11, 3, 3));
        run(base(dt, 1, 12, 40, 8, 8, 1, 1));
        t = base(dt, 2, 20, 32, 9, 9, 3, 3);
        t.y_nchw = 1;
        run(t);
        t = base(dt, 2, 13, 16, 10, 9, 3, 3);
        t.alpha = -2.0, t.beta = 1.0, t.mode = CUDNN_CONVOLUTION;
        run(t);
        run(base(dt, 2, 32, 64, 8, 8, 1, 1));
        run(base(dt, 3, 40, 136, 7, 11, 3, 3));
        run(base(dt, 1, 64, 200, 15, 13, 5, 5));
        run(base(dt, 2, 72, 128, 14, 14, 3, 1));
        /* stride, dilation, asymmetric padding, convolution mode */
        t = base(dt, 2, 24, 40, 17, 19, 3, 3);
        t.str[0] = 2, t.str[1] = 3;
        run(t);
        t = base(dt, 1, 16, 16, 20, 20, 3, 3);
        t.dil[0] = 2, t.dil[1] = 3, t.pad[0] = 0, t.pad[1] = 4;
        run(t);
        t = base(dt, 2, 24, 32, 10, 9, 3, 2);
        t.mode = CUDNN_CONVOLUTION;
        run(t);
        t = base(dt, 1, 8, 16, 6, 6, 7, 7);
        t.pad[0] = 3, t.pad[1] = 1;
        run(t);
        /* 1-d and 3-d */
        t = base(dt, 2, 16, 32, 33, 1, 3, 1);
        t.nsp = 1, t.pad[0] = 1, t.pad[1] = 0;
        run(t);
        t = base(dt, 1, 16, 24, 5, 6, 3, 3);
        t.nsp = 3, t.in[2] = 7, t.flt[2] = 3, t.pad[2] = 1, t.str[2] = 2;
        run(t);
        /* y in NCHW; alpha/beta */
        t = base(dt, 2, 32, 48, 9, 9, 3, 3);
        t.y_nchw = 1;
        run(t);
        t = base(dt, 2, 32, 48, 9, 9, 3, 3);
        t.alpha = 0.5, t.beta = 0.25;
        run(t);
        t = base(dt, 2, 32, 48, 9, 9, 3, 3);
        t.alpha = -2.0, t.beta = 1.0;
        run(t);
        /* real data, including a ResNet-50 layer at N = 4 */
        t = base(dt, 2, 64, 96, 12, 12, 3, 3);
        t.exact = 0;
        run(t);
        t = base(dt, 4, 64, 64, 56, 56, 3, 3);
        t.exact = 0;
        run(t);
        t = base(dt, 4, 256, 64, 56, 56, 1, 1);
        t.exact = 0, t.pad[0] = t.pad[1] = 0;
        run(t);
        t = base(dt, 2, 128, 256, 28, 28, 3, 3);
        t.str[0] = t.str[1] = 2;
        t.exact = 1;
        run(t);
        /* the narrow tiles: one direction narrow and the others not (C 24 / K 136, C 200 / K 16),
         * N = C = K = 8 tails, blends, the convolution mode, a split-K of many splits (K 32 over
         * 64 x 40 x 40 pixels), the speech layer with integers and a blend */
        run(base(dt, 3, 24, 136, 9, 13, 3, 3));
        t = base(dt, 2, 200, 16, 9, 8, 3, 3);
        t.exact = 0;
        run(t);
        t = base(dt, 1, 8, 8, 33, 7, 5, 5);
        t.alpha = 0.5, t.beta = 0.25, t.mode = CUDNN_CONVOLUTION;
        run(t);
        t = base(dt, 64, 32, 32, 40, 40, 3, 3);
        t.exact = 0;
        run(t);
        t = base(dt, 3, 32, 32, 21, 45, 5, 10);
        t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 0, t.alpha = -2.0, t.beta = 1.0;
        run(t);
        t = base(dt, 2, 16, 24, 6, 7, 3, 3);
        t.nsp = 3, t.in[2] = 9, t.flt[2] = 3, t.pad[2] = 1, t.str[2] = 2;
        run(t);
    }
    return gm_finish();
}
