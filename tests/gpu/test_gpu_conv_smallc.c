/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_conv_smallc.c - the few-input-channel rows (src/cuda/conv_smallc.cu:
 * fd_conv_{fwd,bwd_data,bwd_filter}_smallc) against the ref backend through the public API
 * (tests/gpu/gpu_mirror.h): C = 1..4, filters 1x1 to 7x7, 5x20 and 5x10, strides 1 / 2, pads
 * 0..3, dilation, odd H / W, N 1-3, K 1, 8, 32, 33, 64, 65 (BN 32 / 64 tiles and their tails),
 * x / y in NHWC or NCHW, the filter KRSC or KCRS, both convolution modes, HALF, BFLOAT16 and
 * FLOAT (TF32 under DEFAULT / TENSOR_OP math), alpha/beta {1, 0}, {0.5, 0.25}, {-2, 1}, and the
 * DeepBench speech / stem layers cut to small N x H x W (ref's speed). Forward runs
 * IMPLICIT_PRECOMP_GEMM, backward data and backward filter ALGO_1, with the workspace the cuda
 * handle asks for; the dispatch log must name the small-C row. The rows must decline C = 5 and
 * FLOAT under FMA_MATH, backward data also dy in NCHW and K not a multiple of its 16-byte vector (8
 * 16-bit elements, 4 floats), and the call must still succeed on another row (checked against ref
 * too). Every case runs twice on the GPU (determinism). The backward filter runs its row-unit
 * kernel where x and dy are channel-contiguous (extra cases, forward and backward filter: units
 * split across long rows with a short last one, K and R*S*C past one block tile, the stem cut
 * small, R*S*C <= 80 where warps share the kk columns; most cases keep input rows in a ring
 * shared by consecutive output rows, a 1x1 filter and single-row outputs do not); a child with
 * FREEDNN_SMALLC_ROWS=0 runs the backward filter cases again on the gather kernel, one with
 * FREEDNN_SMALLC_ROWS_RING=0 on the row units copying a whole patch a unit.
 *
 * Tolerances (vs ref, which sums in double and rounds once):
 *   exact   integer fills in [-3, 3]: products and float sums are exact (TF32 keeps such
 *           integers), the blend is rounded once as ref's: bit-identical.
 *   real    uniform [-1, 1). HALF / BFLOAT16: test_gpu_conv_tc.c's bound, 4 kred 2^-24 |alpha|
 *           + 2 u_out absolute, 2 u_out relative (float accumulation in another order).
 *           FLOAT as TF32: test_gpu_conv_tf32.c's bound 2 (2 u_in + kred 2^-24) |alpha| S,
 *           u_in = 2^-11, with S = min(kred, kred / 4 + 8 sqrt(kred)) (sum |x w| of uniform
 *           inputs: mean kred / 4, standard deviation < sqrt(kred) / 4) in place of the
 *           measured sum, plus 2 2^-24 relative.
 * kred is the reduction length: R*S*C forward, R*S*K backward data, N*P*Q backward filter.
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
    cudnnMathType_t math;
    int nsp, n, c, k;
    int in[2], flt[2], pad[2], str[2], dil[2];
    int mode;
    int x_nchw, y_nchw, w_kcrs;
    double alpha, beta;
    int exact;
    int expect_smallc; /* 0: the row must decline (the call still succeeds elsewhere) */
    uint64_t seed;
    int64_t nx, nw, ny;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
} sc_case_t;

static void nhwc_strides(int nsp, const int *dim, int *stride)
{
    int s = dim[1];
    stride[1] = 1;
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

static int setup(sc_case_t *t)
{
    const int nb = t->nsp + 2;
    int xdim[4] = {t->n, t->c}, wdim[4] = {t->k, t->c}, ydim[4], st[4];
    for (int d = 0; d < t->nsp; d++)
        xdim[2 + d] = t->in[d], wdim[2 + d] = t->flt[d];
    if (cudnnCreateTensorDescriptor(&t->xd) || cudnnCreateTensorDescriptor(&t->yd) ||
        cudnnCreateFilterDescriptor(&t->wd) || cudnnCreateConvolutionDescriptor(&t->cd))
        return 0;
    if (t->x_nchw)
        nchw_strides(nb, xdim, st);
    else
        nhwc_strides(t->nsp, xdim, st);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->xd, t->dt, nb, xdim, st), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetFilterNdDescriptor(t->wd, t->dt, t->w_kcrs ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC,
                                                nb, wdim),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionNdDescriptor(t->cd, t->nsp, t->pad, t->str, t->dil,
                                                     (cudnnConvolutionMode_t)t->mode, CUDNN_DATA_FLOAT),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionMathType(t->cd, t->math), CUDNN_STATUS_SUCCESS);
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
    int64_t n = (int64_t)(bytes / fd_test_dtype_size(t->dt));
    if (i == 2 && t->beta == 0.0)
        return; /* the output stays poisoned: beta = 0 must not read it */
    if (t->exact)
        fd_fill_int(&r, t->dt, payload, n, -3, 3, 0.8);
    else
        fd_fill_real(&r, t->dt, payload, n, -1.0, 1.0);
}

static const int algo_of[3] = {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                               CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1};
static const char *const dir_names[3] = {"fwd", "bwd_data", "bwd_filter"};
static const char *const rows[3] = {"fd_conv_fwd_smallc", "fd_conv_bwd_data_smallc",
                                    "fd_conv_bwd_filter_smallc"};

static cudnnStatus_t call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    sc_case_t *t = ctx;
    gm_last_impl[0] = '\0';
    return gm_conv_call(h, t->dir, algo_of[t->dir], t->xd, t->wd, t->cd, t->yd, t->alpha, t->beta,
                        ptr, t->ws);
}

/* FREEDNN_SMALLC_ROWS=0 (a child): the backward filter runs its gather kernel only */
static int rows_off;
/* a child (FREEDNN_SMALLC_ROWS=0, or FREEDNN_SMALLC_ROWS_RING=0: the row units copy a whole
 * patch a unit) runs the backward filter cases only */
static int bwd_only;

static void run_dir(sc_case_t t)
{
    if (bwd_only && t.dir != 2)
        return; /* the child re-runs what the switch touches */
    if (!setup(&t))
        return;
    char label[256];
    snprintf(label, sizeof label,
             "%s %s math%d n%d c%d k%d in%dx%d f%dx%d p%d,%d u%d,%d d%d,%d %s x-%s y-%s w-%s a%g b%g %s",
             dir_names[t.dir], fd_test_dtype_short(t.dt), (int)t.math, t.n, t.c, t.k, t.in[0],
             t.nsp > 1 ? t.in[1] : 1, t.flt[0], t.nsp > 1 ? t.flt[1] : 1, t.pad[0], t.pad[1],
             t.str[0], t.str[1], t.dil[0], t.dil[1], t.mode == CUDNN_CONVOLUTION ? "conv" : "xcorr",
             t.x_nchw ? "nchw" : "nhwc", t.y_nchw ? "nchw" : "nhwc", t.w_kcrs ? "kcrs" : "krsc",
             t.alpha, t.beta, t.exact ? "exact" : "real");
    const size_t es = fd_test_dtype_size(t.dt);
    gm_case_t c = {0};
    c.label = label;
    const size_t wsr = gm_conv_workspace(gm_ref, t.dir, algo_of[t.dir], t.xd, t.wd, t.cd, t.yd);
    const size_t wsc = gm_conv_workspace(gm_cuda, t.dir, algo_of[t.dir], t.xd, t.wd, t.cd, t.yd);
    t.ws = wsr > wsc ? wsr : wsc;
    const gm_role_t out_role = t.beta != 0.0 ? GM_INOUT : GM_OUT;
    c.nbuf = 4;
    int64_t kred;
    if (t.dir == 0) {
        c.buf[0] = (gm_buf_t){"x", (size_t)t.nx * es, t.dt, GM_IN, 0, 0};
        c.buf[1] = (gm_buf_t){"w", (size_t)t.nw * es, t.dt, GM_IN, 0, 0};
        c.buf[2] = (gm_buf_t){"y", (size_t)t.ny * es, t.dt, out_role, 0, 0};
        kred = t.nw / t.k;
    } else if (t.dir == 1) {
        c.buf[0] = (gm_buf_t){"dy", (size_t)t.ny * es, t.dt, GM_IN, 0, 0};
        c.buf[1] = (gm_buf_t){"w", (size_t)t.nw * es, t.dt, GM_IN, 0, 0};
        c.buf[2] = (gm_buf_t){"dx", (size_t)t.nx * es, t.dt, out_role, 0, 0};
        kred = t.nw / t.c;
    } else {
        c.buf[0] = (gm_buf_t){"x", (size_t)t.nx * es, t.dt, GM_IN, 0, 0};
        c.buf[1] = (gm_buf_t){"dy", (size_t)t.ny * es, t.dt, GM_IN, 0, 0};
        c.buf[2] = (gm_buf_t){"dw", (size_t)t.nw * es, t.dt, out_role, 0, 0};
        kred = t.ny / t.k;
    }
    c.buf[3] = (gm_buf_t){"workspace", t.ws, t.dt, GM_WS, 0, 0};
    if (!t.exact) {
        if (t.dt == CUDNN_DATA_FLOAT) {
            const double u_in = t.math == CUDNN_FMA_MATH ? 0.0 : 0x1p-11, u = 0x1p-24;
            /* S: sum |x w| over one output, <= kred; for uniform inputs its mean is kred / 4
             * with a standard deviation below 0.25 sqrt(kred), so kred / 4 + 8 sqrt(kred) */
            const double s = fmin((double)kred, 0.25 * (double)kred + 8.0 * sqrt((double)kred));
            c.buf[2].abs_tol = 2.0 * (2.0 * u_in + (double)kred * u) * fabs(t.alpha) * s + 0x1p-140;
            c.buf[2].rel_tol = 2.0 * u;
        } else {
            c.buf[2].abs_tol = 4.0 * (double)kred * 0x1p-24 * fabs(t.alpha) + 2.0 * fd_unit_roundoff(t.dt);
            c.buf[2].rel_tol = 2.0 * fd_unit_roundoff(t.dt);
        }
    }
    c.det = 1;
    c.fill = fill;
    c.call = call;
    c.ctx = &t;
    c.want = CUDNN_STATUS_SUCCESS;
    gm_run(&c);
    /* backward data reads dy in 16-byte vectors: NHWC, K a multiple of the vector; and it
     * stages the filter, K rounded up to 4 vectors, in at most 40 KiB of shared memory */
    const int kp = (t.k + 4 * (int)(16 / es) - 1) / (4 * (int)(16 / es)) * (4 * (int)(16 / es));
    if (t.dir == 1 && (t.y_nchw || t.k % (int)(16 / es) != 0 ||
                       (size_t)t.c * t.flt[0] * t.flt[1] * kp * es > 40960))
        t.expect_smallc = 0;
    /* 16-bit backward filter with C >= 2 over more than 64 taps x channels goes to the padding
     * row unless the row-unit kernel takes it: x and dy channel-contiguous (NHWC here), K a
     * multiple of the 16-byte vector, and that kernel not switched off */
    const int rows_ok =
        !rows_off && (t.c == 1 || !t.x_nchw) && !t.y_nchw && t.k % (int)(16 / es) == 0;
    if (t.dir == 2 && t.dt != CUDNN_DATA_FLOAT && t.c >= 2 && t.c * t.flt[0] * t.flt[1] > 64 &&
        !rows_ok)
        t.expect_smallc = 0;
    if (t.expect_smallc)
        FD_EXPECT(strcmp(gm_last_impl, rows[t.dir]) == 0, "%s: dispatch ran %s, expected %s", label,
                  gm_last_impl[0] ? gm_last_impl : "(nothing logged)", rows[t.dir]);
    else /* another row: FLOAT backward data may be conv_simt.cu's fd_conv_bwd_data_simt_smallc */
        FD_EXPECT(gm_last_impl[0] != '\0' && strcmp(gm_last_impl, rows[t.dir]) != 0,
                  "%s: dispatch ran %s, which should have declined", label,
                  gm_last_impl[0] ? gm_last_impl : "(nothing logged)");
    teardown(&t);
}

/* Forward and backward filter (the row-unit kernel's direction, and the forward over the same
 * long rows). */
static void run_rows(sc_case_t t)
{
    t.dir = 0;
    run_dir(t);
    t.dir = 2;
    run_dir(t);
}

/* The three directions on the same descriptors (dy in y's layout, dx in x's). */
static void run(sc_case_t t)
{
    for (int d = 0; d < 3; d++) {
        t.dir = d;
        run_dir(t);
    }
}

static sc_case_t base(cudnnDataType_t dt, int n, int c, int k, int h, int w, int r, int s)
{
    sc_case_t t;
    memset(&t, 0, sizeof t);
    t.dt = dt, t.math = CUDNN_DEFAULT_MATH, t.nsp = 2, t.n = n, t.c = c, t.k = k;
    t.in[0] = h, t.in[1] = w, t.flt[0] = r, t.flt[1] = s;
    for (int d = 0; d < 2; d++)
        t.str[d] = t.dil[d] = 1;
    t.pad[0] = r / 2, t.pad[1] = s / 2;
    t.mode = CUDNN_CROSS_CORRELATION;
    t.alpha = 1.0, t.beta = 0.0, t.exact = 1, t.expect_smallc = 1;
    t.seed = (uint64_t)(n * 131 + c * 17 + k * 7 + h + w * 3 + r * 11 + s);
    return t;
}

int main(int argc, char **argv)
{
    setenv("FREEDNN_LOG_DISPATCH", "1", 1);
    const char *ro = getenv("FREEDNN_SMALLC_ROWS");
    rows_off = ro != NULL && strcmp(ro, "0") == 0;
    const char *rr = getenv("FREEDNN_SMALLC_ROWS_RING");
    bwd_only = rows_off || (rr != NULL && strcmp(rr, "0") == 0);
    gm_init(argc, argv, "test_gpu_conv_smallc");
    gm_watch_dispatch();
    const cudnnDataType_t dts[3] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT};
    sc_case_t t;
    for (int di = 0; di < 3; di++) {
        const cudnnDataType_t dt = dts[di];
        /* C = 1..4 over the filter sizes, K tails, layouts */
        run(base(dt, 1, 1, 8, 9, 11, 3, 3));
        t = base(dt, 2, 3, 33, 23, 21, 7, 7);
        t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 3;
        run(t);
        /* the row units: a stem cut small (20 pixels of a 32-pixel unit) */
        t = base(dt, 1, 3, 16, 40, 40, 7, 7);
        t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 3;
        run_rows(t);
        /* R*S*C = 27: the four warps share the block's kk columns (every fourth k step each) */
        t = base(dt, 1, 3, 16, 6, 100, 3, 3);
        run_rows(t);
        if (gm_smoke)
            continue;
        /* warps sharing kk columns: four (R*S*C = 27, 25) and two (50, 75), over K = 72 (two k
         * tiles) and rows of several units, real fills, both modes, blends */
        t = base(dt, 2, 3, 72, 12, 150, 3, 3);
        run_rows(t);
        t = base(dt, 1, 1, 40, 7, 300, 5, 5);
        t.str[0] = t.str[1] = 2, t.mode = CUDNN_CONVOLUTION, t.alpha = 0.5, t.beta = 0.25;
        run_rows(t);
        t = base(dt, 1, 2, 16, 9, 140, 5, 5);
        t.mode = CUDNN_CONVOLUTION, t.alpha = -2.0, t.beta = 1.0;
        run_rows(t);
        t = base(dt, 2, 3, 64, 11, 90, 5, 5);
        t.exact = 0;
        run_rows(t);
        t = base(dt, 2, 3, 64, 40, 70, 3, 3);
        t.exact = 0;
        run_rows(t);
        /* row units: rows of several units with a short last one (131 pixels: 80 + 51 16-bit,
         * 48 + 48 + 35 float), K past one 64-wide tile (72: a tile of one m16) and R*S*C past one
         * 160-wide kk tile (196), dilation, both modes, blends; C = 1 and 2 with K = 8 */
        t = base(dt, 2, 3, 16, 262, 262, 7, 7);
        t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 3;
        run_rows(t);
        t = base(dt, 1, 4, 72, 13, 150, 7, 7);
        t.dil[0] = t.dil[1] = 2, t.pad[0] = t.pad[1] = 5;
        t.mode = CUDNN_CONVOLUTION, t.alpha = 0.5, t.beta = 0.25;
        run_rows(t);
        t = base(dt, 1, 2, 8, 5, 400, 3, 3);
        t.w_kcrs = 1, t.alpha = -2.0, t.beta = 1.0;
        run_rows(t);
        t = base(dt, 2, 1, 32, 21, 300, 5, 20);
        t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 0, t.exact = 0;
        run_rows(t);
        t = base(dt, 2, 3, 64, 70, 70, 7, 7);
        t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 3, t.exact = 0;
        run_rows(t);
        static const int fl[6][2] = {{1, 1}, {3, 3}, {5, 5}, {7, 7}, {5, 20}, {5, 10}};
        static const int ks[5] = {1, 8, 32, 33, 64};
        for (int c = 1; c <= 4; c++)
            for (int f = 0; f < 6; f++) {
                const int i = c * 6 + f;
                t = base(dt, 1 + i % 3, c, ks[i % 5], 9 + (i % 4) * 4, 27 + (i % 3) * 6, fl[f][0], fl[f][1]);
                t.str[0] = 1 + i % 2, t.str[1] = 1 + (i / 2) % 2;
                t.pad[0] = i % 4, t.pad[1] = (i / 3) % 4;
                t.x_nchw = i % 2, t.y_nchw = (i / 2) % 2, t.w_kcrs = (i / 3) % 2;
                t.mode = i % 5 == 0 ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
                if (i % 7 == 3)
                    t.alpha = 0.5, t.beta = 0.25;
                else if (i % 7 == 5)
                    t.alpha = -2.0, t.beta = 1.0;
                run(t);
            }
        /* dilation, K past one 64-wide tile, 1-d */
        t = base(dt, 2, 2, 65, 13, 17, 3, 3);
        t.dil[0] = 2, t.dil[1] = 3, t.pad[0] = 2, t.pad[1] = 1;
        run(t);
        t = base(dt, 2, 4, 136, 11, 12, 3, 3);
        t.mode = CUDNN_CONVOLUTION, t.alpha = 0.5, t.beta = 0.25;
        run(t);
        t = base(dt, 3, 1, 32, 50, 1, 5, 1);
        t.nsp = 1, t.pad[0] = 2, t.pad[1] = 0, t.str[0] = 2;
        run(t);
        /* real data */
        t = base(dt, 2, 3, 64, 30, 30, 7, 7);
        t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 3, t.exact = 0;
        run(t);
        t = base(dt, 2, 1, 32, 41, 120, 5, 20);
        t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 0, t.exact = 0, t.y_nchw = 1;
        run(t);
        /* the row declines C = 5 (the padding rows take it) */
        t = base(dt, 2, 5, 16, 9, 9, 3, 3);
        t.expect_smallc = 0;
        run(t);
    }
    if (!gm_smoke) {
        /* FLOAT under TENSOR_OP math, and FMA_MATH: declined, the FFMA rows take it */
        t = base(CUDNN_DATA_FLOAT, 2, 3, 16, 15, 13, 5, 5);
        t.math = CUDNN_TENSOR_OP_MATH, t.exact = 0;
        run(t);
        t.math = CUDNN_FMA_MATH, t.expect_smallc = 0;
        run(t);
        /* DeepBench's layers (filter, stride, pad, C, K kept; N and H x W cut so ref, ~0.05
         * GFLOP/s on the host, stays within seconds): speech 5x20 / 5x5, the RGB stems */
        const cudnnDataType_t big[3] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT};
        for (int b = 0; b < 3; b++) {
            t = base(big[b], 2, 1, 32, 41, 240, 5, 20);
            t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 0, t.exact = 0;
            run(t);
            t = base(big[b], 1, 3, 64, 56, 56, 7, 7);
            t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 3, t.exact = 0;
            run(t);
        }
        t = base(CUDNN_DATA_HALF, 1, 1, 64, 41, 160, 5, 5);
        t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 1, t.exact = 0;
        run(t);
        t = base(CUDNN_DATA_HALF, 1, 3, 64, 48, 48, 3, 3);
        t.exact = 0;
        run(t);
        t = base(CUDNN_DATA_BFLOAT16, 1, 3, 64, 36, 36, 3, 3);
        t.str[0] = t.str[1] = 2, t.exact = 0;
        run(t);
        t = base(CUDNN_DATA_FLOAT, 1, 1, 16, 24, 96, 3, 3);
        t.exact = 0;
        run(t);
    }
    /* the gather kernel on every backward filter case the row units take, and the row units
     * without their ring of input rows */
    gm_rerun_with(argv, "FREEDNN_SMALLC_ROWS", "0");
    gm_rerun_with(argv, "FREEDNN_SMALLC_ROWS_RING", "0");
    return gm_finish();
}
