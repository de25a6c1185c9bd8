/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_conv_wgrad.c - the sm_90a backward filter row fd_conv_bwd_filter_implicit_gemm_f16_
 * 128xN__sm90 (src/cuda/conv_bwd_filter_implicit_gemm_f16_128xN__sm90.cu, on by default: this
 * program unsets FREEDNN_WGMMA and FREEDNN_WGMMA_WGRAD before any handle exists) against the ref
 * backend through the public API (tests/gpu/gpu_mirror.h), cudnnConvolutionBackwardFilter ALGO_1
 * with the workspace both backends ask for. Shapes cover each path of the row: [M][C] boxes (1x1
 * pad 0 over packed pixels) and 4-d pixel boxes (whole rows with bh | P; several images per box
 * with an image overhang, whole images or bh rows of each; boxes of <= 32 rows, the 2-k16-step
 * kernel; Q > 64 cut by a divisor), BN
 * 64 / 128 / 256 with K tails (8, 40, 72, 136, 264), an odd count of 64-channel chunks (one idle
 * consumer), both convolution modes, asymmetric filters and pads, alpha/beta pairs (beta = 0 leaves
 * dw poisoned: it must not be read), x with padded pixel strides, dy with padded channels and rows,
 * f16 and bf16, ResNet-50 stride-1 layers at N = 2..4, and a problem of ~100 splits.
 * Strided problems (x's boxes at TMA element strides): stride 2 and 3, odd extents, 1x1 / 3x3 /
 * 5x5, ResNet-50's stride-2 layers at N = 2. Declines: dy NCHW, Q prime > 64 (boxes of 1 row),
 * stride 5 (> 4): another row must run them.
 * Tolerances: integer fills in [-3, 3] give products <= 9 and sums far below 2^24, exact in float
 * in any order, so those runs must be bit-identical to ref. Real fills in [-1, 1): the
 * reduction is N*P*Q long and summed in float (wgmma, then the splits) against ref's double, so
 * abs 4 * N*P*Q * 2^-24 * |alpha| + 2u and rel 2u (u the unit roundoff of the type: the final
 * rounding), the bound test_gpu_conv_wgmma.c uses for its reductions. Every case runs twice
 * (determinism: identical bits). On a compute capability 9.0 device the dispatch log must name
 * the row; elsewhere the row declines and the checks still compare with ref. A child process
 * with FREEDNN_WGMMA=0 must not take the row.
 *
 * The TF32 row fd_conv_bwd_filter_implicit_gemm_tf32_128xN__sm90 (the same file: FLOAT x/dy/dw,
 * computed as TF32, default math type) runs every shape above on FLOAT too, where they take its
 * own plan (boxes of up to 32 rows: 11, 20, 21, 28, 32; [M][C] boxes of 32; BN 64 / 128 with the
 * K tails; an idle consumer; 7x7 outputs as one row of 4 images, where N > 1), plus boxes of two
 * images (P x Q = 16) and its own declines (C = 32, CUDNN_FMA_MATH). Tolerances: integer fills
 * in [-3, 3] are exact in TF32 and in float sums (far below 2^24): bit-identical to ref. Real
 * fills: test_gpu_conv_tf32.c's bound (contract §4) |got - ref| <= 2 (2 u_in + red 2^-24)
 * |alpha| s + 2^-140, rel 2^-23, s the largest sum of |x dy| over dw (ref on the absolute
 * values), with u_in = 2^-10 as test_gpu_conv_wgmma.c uses for the tf32 forward row (the tensor
 * core truncates the unrounded floats to TF32). A second child with FREEDNN_WGMMA_TF32_WGRAD=0
 * must leave FLOAT off the tf32 row and keep HALF on the f16 row; a third, with
 * FREEDNN_WGMMA_WGRAD_STACK=0, runs both rows on the plan that stacks images only under
 * whole-image boxes (and must leave tf32 7x7 outputs to another row).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu_mirror.h"

#define WW_ROW "fd_conv_bwd_filter_implicit_gemm_f16_128xN__sm90"
#define WT_ROW "fd_conv_bwd_filter_implicit_gemm_tf32_128xN__sm90"

enum { Y_NHWC, Y_NCHW, Y_PADDED };   /* dy layouts */
enum { X_NHWC, X_PIXPAD, X_ROWPAD }; /* x: packed; pixel stride C + 64; rows + 1 pixel */

typedef struct {
    cudnnDataType_t dt;
    int n, c, k, h, w, r, s, pad_h, pad_w, stride;
    int mode;
    int ylay, xlay;
    int fma; /* FLOAT: CUDNN_FMA_MATH (else the default math type) */
    double alpha, beta;
    int exact;
    uint64_t seed;
    /* derived */
    size_t ws;
    int64_t xspan, yspan, nw, red;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
} ww_case_t;

static int on_sm90; /* the row can run here: its name must be in the dispatch log */

/* Elements spanned by a 4-d tensor: the largest offset + 1. */
static int64_t span(const int *dim, const int *st)
{
    int64_t s = 1;
    for (int d = 0; d < 4; d++)
        s += (int64_t)(dim[d] - 1) * st[d];
    return s;
}

static int setup(ww_case_t *t)
{
    int xdim[4] = {t->n, t->c, t->h, t->w}, wdim[4] = {t->k, t->c, t->r, t->s}, ydim[4], st[4];
    const int pad[2] = {t->pad_h, t->pad_w}, one[2] = {1, 1}, str[2] = {t->stride, t->stride};
    if (cudnnCreateTensorDescriptor(&t->xd) || cudnnCreateTensorDescriptor(&t->yd) ||
        cudnnCreateFilterDescriptor(&t->wd) || cudnnCreateConvolutionDescriptor(&t->cd))
        return 0;
    /* x channel-contiguous; the padded variants keep every stride a multiple of 8 elements */
    const int ps = t->xlay == X_NHWC ? t->c : t->c + 64;
    st[1] = 1, st[3] = ps, st[2] = (t->w + (t->xlay == X_ROWPAD)) * ps, st[0] = t->h * st[2];
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->xd, t->dt, 4, xdim, st), CUDNN_STATUS_SUCCESS);
    t->xspan = span(xdim, st);
    FD_EXPECT_STATUS(cudnnSetFilterNdDescriptor(t->wd, t->dt, CUDNN_TENSOR_NHWC, 4, wdim),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionNdDescriptor(t->cd, 2, pad, str, one,
                                                     (cudnnConvolutionMode_t)t->mode,
                                                     CUDNN_DATA_FLOAT),
                     CUDNN_STATUS_SUCCESS);
    if (t->fma)
        FD_EXPECT_STATUS(cudnnSetConvolutionMathType(t->cd, CUDNN_FMA_MATH), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnGetConvolutionNdForwardOutputDim(t->cd, t->xd, t->wd, 4, ydim),
                     CUDNN_STATUS_SUCCESS);
    if (t->ylay == Y_NCHW) {
        st[3] = 1, st[2] = ydim[3], st[1] = ydim[2] * ydim[3], st[0] = ydim[1] * st[1];
    } else {
        const int yps = t->ylay == Y_PADDED ? t->k + 8 : t->k;
        st[1] = 1, st[3] = yps, st[2] = ydim[3] * yps + (t->ylay == Y_PADDED ? 2 * yps : 0),
        st[0] = ydim[2] * st[2];
    }
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->yd, t->dt, 4, ydim, st), CUDNN_STATUS_SUCCESS);
    t->yspan = span(ydim, st);
    t->nw = (int64_t)t->k * t->c * t->r * t->s;
    t->red = (int64_t)ydim[0] * ydim[2] * ydim[3];
    return 1;
}

static void teardown(ww_case_t *t)
{
    cudnnDestroyTensorDescriptor(t->xd);
    cudnnDestroyTensorDescriptor(t->yd);
    cudnnDestroyFilterDescriptor(t->wd);
    cudnnDestroyConvolutionDescriptor(t->cd);
}

static void fill(int i, void *payload, size_t bytes, void *ctx)
{
    ww_case_t *t = ctx;
    fd_rng_t r;
    fd_rng_seed(&r, t->seed * 7 + (uint64_t)i);
    int64_t n = (int64_t)(bytes / fd_test_dtype_size(t->dt));
    if (i == 2 && t->beta == 0.0)
        return; /* dw stays poisoned: beta = 0 must not read it */
    if (i == 3)
        return; /* the workspace */
    if (t->exact)
        fd_fill_int(&r, t->dt, payload, n, -3, 3, 0.8);
    else
        fd_fill_real(&r, t->dt, payload, n, -1.0, 1.0);
}

/* buffers: 0 x, 1 dy, 2 dw, 3 the workspace */
static cudnnStatus_t call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    ww_case_t *t = ctx;
    gm_last_impl[0] = '\0';
    return gm_conv_call(h, 2, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, t->xd, t->wd, t->cd, t->yd,
                        t->alpha, t->beta, ptr, t->ws);
}

/* FLOAT real fills: the largest sum of |x dy| over dw (ref on the absolute values), the s of the
 * TF32 bound in the header. */
static double max_abs_sum(const ww_case_t *t)
{
    float *x = malloc(sizeof(float) * (size_t)t->xspan),
          *y = malloc(sizeof(float) * (size_t)t->yspan);
    float *o = calloc((size_t)t->nw, sizeof(float));
    void *ws = malloc(t->ws + 1);
    if (!x || !y || !o || !ws)
        abort();
    ww_case_t u = *t;
    u.alpha = 1.0, u.beta = 0.0;
    fill(0, x, sizeof(float) * (size_t)t->xspan, &u);
    fill(1, y, sizeof(float) * (size_t)t->yspan, &u);
    for (int64_t e = 0; e < t->xspan; e++)
        x[e] = fabsf(x[e]);
    for (int64_t e = 0; e < t->yspan; e++)
        y[e] = fabsf(y[e]);
    void *p[4] = {x, y, o, ws};
    FD_EXPECT_STATUS(call(gm_ref, p, &u), CUDNN_STATUS_SUCCESS);
    double m = 0.0;
    for (int64_t e = 0; e < t->nw; e++)
        m = fmax(m, (double)o[e]);
    free(x), free(y), free(o), free(ws);
    return m;
}

/* Runs one case; `want_row`: 1 the wgmma row of its type (f16 / tf32) must run it (where it
 * can), 0 it must not. */
static void run_case(ww_case_t t, int want_row)
{
    if (!setup(&t))
        return;
    static const char *const ylays[3] = {"", " dy-nchw", " dy-padded"};
    static const char *const xlays[3] = {"", " x-pixpad", " x-rowpad"};
    char label[256];
    snprintf(label, sizeof label,
             "bwd_filter %s n%d c%d k%d %dx%d f%dx%d p%dx%d s%d %s%s%s%s a%g b%g %s",
             fd_test_dtype_short(t.dt), t.n, t.c, t.k, t.h, t.w, t.r, t.s, t.pad_h, t.pad_w,
             t.stride, t.mode == CUDNN_CONVOLUTION ? "conv" : "xcorr", ylays[t.ylay], xlays[t.xlay],
             t.fma ? " math=fma" : "", t.alpha, t.beta, t.exact ? "exact" : "real");
    const char *row = t.dt == CUDNN_DATA_FLOAT ? WT_ROW : WW_ROW;
    const size_t es = fd_test_dtype_size(t.dt);
    const size_t wsr = gm_conv_workspace(gm_ref, 2, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, t.xd, t.wd,
                                         t.cd, t.yd),
                 wsc = gm_conv_workspace(gm_cuda, 2, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, t.xd,
                                         t.wd, t.cd, t.yd);
    t.ws = wsr > wsc ? wsr : wsc;
    gm_case_t c = {0};
    c.label = label;
    c.nbuf = 4;
    c.buf[0] = (gm_buf_t){"x", (size_t)t.xspan * es, t.dt, GM_IN, 0, 0};
    c.buf[1] = (gm_buf_t){"dy", (size_t)t.yspan * es, t.dt, GM_IN, 0, 0};
    c.buf[2] = (gm_buf_t){"dw", (size_t)t.nw * es, t.dt, t.beta != 0.0 ? GM_INOUT : GM_OUT, 0, 0};
    c.buf[3] = (gm_buf_t){"workspace", t.ws, t.dt, GM_WS, 0, 0};
    if (!t.exact && t.dt == CUDNN_DATA_FLOAT) {
        /* the header's TF32 bound; u_in 0 under FMA_MATH (plain float, whichever row) */
        const double u_in = t.fma ? 0.0 : 0x1p-10, s = max_abs_sum(&t);
        c.buf[2].abs_tol =
            2.0 * (2.0 * u_in + (double)t.red * 0x1p-24) * fabs(t.alpha) * s + 0x1p-140;
        c.buf[2].rel_tol = 2.0 * 0x1p-24;
    } else if (!t.exact) {
        gm_tol(&c.buf[2], t.dt, t.red);
        /* inputs in [-1, 1): float accumulation in another order than ref's double */
        c.buf[2].abs_tol =
            4.0 * (double)t.red * 0x1p-24 * fabs(t.alpha) + 2.0 * fd_unit_roundoff(t.dt);
        c.buf[2].rel_tol = 2.0 * fd_unit_roundoff(t.dt);
    }
    c.det = 1;
    c.fill = fill;
    c.call = call;
    c.ctx = &t;
    c.want = CUDNN_STATUS_SUCCESS;
    gm_run(&c);
    /* the last call was the cuda handle's determinism re-run */
    if (want_row && on_sm90)
        FD_EXPECT(strcmp(gm_last_impl, row) == 0, "%s: dispatch ran %s, expected %s", label,
                  gm_last_impl[0] ? gm_last_impl : "(nothing logged)", row);
    if (!want_row)
        FD_EXPECT(gm_last_impl[0] && strcmp(gm_last_impl, row) != 0,
                  "%s: dispatch ran %s, which should decline", label,
                  gm_last_impl[0] ? gm_last_impl : "(nothing logged)");
    teardown(&t);
}

static ww_case_t base(cudnnDataType_t dt, int n, int c, int k, int h, int w, int r, int s, int pad)
{
    ww_case_t t;
    memset(&t, 0, sizeof t);
    t.dt = dt, t.n = n, t.c = c, t.k = k, t.h = h, t.w = w, t.r = r, t.s = s;
    t.pad_h = t.pad_w = pad;
    t.stride = 1;
    t.mode = CUDNN_CROSS_CORRELATION;
    t.alpha = 1.0, t.beta = 0.0, t.exact = 1;
    t.seed = (uint64_t)(n * 131 + c * 17 + k * 7 + h + w * 3 + r);
    return t;
}

/* The children: FD_WGRAD_TEST_CHILD names the variable set to 0. FREEDNN_WGMMA=0: both rows
 * must decline; FREEDNN_WGMMA_TF32_WGRAD=0: the tf32 row must decline, the f16 row still run;
 * FREEDNN_WGMMA_WGRAD_STACK=0: both rows run as before images were stacked under part-image
 * boxes (f16 14 x 14 in boxes of 28 rows of one image, 2 k16 steps), and tf32 declines 7 x 7
 * outputs (boxes of 7 rows). */
static int child_main(int argc, char **argv, const char *var)
{
    char title[128];
    snprintf(title, sizeof title, "test_gpu_conv_wgrad (child, %s=0)", var);
    gm_init(argc, argv, title);
    gm_watch_dispatch();
    const int tf32_only = strcmp(var, "FREEDNN_WGMMA_TF32_WGRAD") == 0;
    const int stack = strcmp(var, "FREEDNN_WGMMA_WGRAD_STACK") == 0;
    if (tf32_only || stack) {
        int dev = 0, major = 0, minor = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
        on_sm90 = major == 9 && minor == 0;
    }
    if (stack) {
        ww_case_t t = base(CUDNN_DATA_HALF, 3, 64, 128, 14, 14, 3, 3, 1);
        t.alpha = 0.5, t.beta = 0.25;
        run_case(t, 1);
        run_case(base(CUDNN_DATA_FLOAT, 3, 64, 128, 14, 14, 3, 3, 1), 1);
        run_case(base(CUDNN_DATA_FLOAT, 5, 64, 64, 7, 7, 3, 3, 1), 0);
        return gm_finish();
    }
    run_case(base(CUDNN_DATA_HALF, 2, 64, 128, 9, 11, 3, 3, 1), tf32_only);
    run_case(base(CUDNN_DATA_FLOAT, 2, 64, 128, 9, 11, 3, 3, 1), 0);
    return gm_finish();
}

static void run_child(char **argv, const char *var)
{
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        setenv(var, "0", 1);
        setenv("FD_WGRAD_TEST_CHILD", var, 1);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    int status = 0;
    FD_EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/waitpid of the child failed");
    FD_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "the child with %s=0 failed (status 0x%x)", var, status);
}

/* What only the TF32 row has (FLOAT, default math unless fma): boxes of two images (P x Q = 16
 * within the 32-row cap), and declines of its own: C = 32 (C % 64), CUDNN_FMA_MATH. */
static void tf32_cases(void)
{
    const cudnnDataType_t dt = CUDNN_DATA_FLOAT;
    ww_case_t t;
    run_case(base(dt, 3, 64, 64, 4, 4, 3, 3, 1), 1);
    t = base(dt, 3, 64, 128, 4, 4, 3, 3, 1);
    t.exact = 0, t.alpha = 0.5, t.beta = 0.25;
    run_case(t, 1);
    run_case(base(dt, 2, 32, 64, 9, 9, 3, 3, 1), 0);
    t = base(dt, 2, 64, 64, 9, 9, 3, 3, 1);
    t.fma = 1, t.exact = 0;
    run_case(t, 0);
}

int main(int argc, char **argv)
{
    if (getenv("FD_WGRAD_TEST_CHILD"))
        return child_main(argc, argv, getenv("FD_WGRAD_TEST_CHILD"));
    unsetenv("FREEDNN_WGMMA");
    unsetenv("FREEDNN_WGMMA_WGRAD"); /* the rows are on by default */
    unsetenv("FREEDNN_WGMMA_TF32_WGRAD");
    unsetenv("NVIDIA_TF32_OVERRIDE");
    setenv("FREEDNN_LOG_DISPATCH", "1", 1);
    gm_init(argc, argv, "test_gpu_conv_wgrad");
    gm_watch_dispatch();
    int dev = 0, major = 0, minor = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    on_sm90 = major == 9 && minor == 0;
    if (!on_sm90)
        printf("note: sm_%d%d is not sm_90: the row declines here, dispatch checks skipped "
               "(results still "
               "compared with ref)\n",
               major, minor);
    /* FLOAT: the tf32 row, the same shapes (its boxes hold up to 32 rows, BN <= 128: other
     * paths of its plan) */
    const cudnnDataType_t dts[3] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT};
    ww_case_t t;
    for (int di = 0; di < 3; di++) {
        const cudnnDataType_t dt = dts[di];
        /* 4-d boxes of whole rows (11 x 3 = 33 rows), 9 chunks (odd: an idle consumer), BN 128 */
        run_case(base(dt, 2, 64, 128, 9, 11, 3, 3, 1), 1);
        /* [M][C] boxes with a tail of the last 64 pixels, BN 256 with 3 loaded chunks, alpha/beta
         */
        t = base(dt, 3, 128, 192, 7, 9, 1, 1, 0);
        t.alpha = 0.5, t.beta = 0.25;
        run_case(t, 1);
        /* pad 0: P x Q = 8 x 4, two images per box, 3 images (the last box half outside) */
        t = base(dt, 3, 128, 256, 10, 6, 3, 3, 0);
        t.alpha = 0.5, t.beta = 0.25;
        run_case(t, 1);
        if (gm_smoke)
            continue;
        /* 5x5 pad 2: three images of 5 x 4 per box (60 rows), 5 images */
        run_case(base(dt, 5, 64, 64, 5, 4, 5, 5, 2), 1);
        /* boxes of <= 32 rows (2 k16 steps): 14 x 2 = 28 rows of the only image, BN 256 */
        run_case(base(dt, 1, 64, 256, 14, 14, 3, 3, 1), 1);
        /* part-image boxes stacked over images: 14 x 2 rows of 2 images (f16: 56 rows; tf32:
         * one image, 28), 3 images (the last box half outside); 7 x 7 in 5 images (tf32: one
         * row of 4 images, 28 rows) */
        t = base(dt, 3, 64, 128, 14, 14, 3, 3, 1);
        t.alpha = 0.5, t.beta = 0.25;
        run_case(t, 1);
        run_case(base(dt, 5, 64, 64, 7, 7, 3, 3, 1), 1);
        /* Q > 64: boxes of 40 pixels of one row */
        run_case(base(dt, 1, 64, 64, 3, 80, 3, 3, 1), 1);
        /* K tails of each BN: 8 and 40 (BN 64), 72 and 136 (BN 128 / 256), 264 (BN 256) */
        /* (tf32: 5 x 7 outputs of one image give boxes of one 7-pixel row, declined) */
        run_case(base(dt, 1, 64, 8, 5, 7, 3, 3, 1), dt != CUDNN_DATA_FLOAT);
        run_case(base(dt, 3, 64, 40, 11, 13, 3, 3, 1), 1);
        run_case(base(dt, 2, 128, 72, 13, 5, 1, 1, 0), 1);
        run_case(base(dt, 3, 64, 136, 7, 11, 3, 3, 1), 1);
        run_case(base(dt, 2, 64, 264, 9, 9, 3, 3, 1), 1);
        /* one chunk in all (C = 64, 1x1): consumer 1 idle in the only tile */
        run_case(base(dt, 2, 64, 256, 9, 9, 1, 1, 0), 1);
        /* convolution mode (flipped taps), asymmetric filters and pads, wide padding */
        t = base(dt, 2, 64, 96, 10, 9, 3, 3, 1);
        t.mode = CUDNN_CONVOLUTION;
        run_case(t, 1);
        t = base(dt, 2, 128, 64, 8, 10, 3, 2, 0);
        t.mode = CUDNN_CONVOLUTION, t.pad_w = 1;
        t.alpha = -2.0, t.beta = 1.0;
        run_case(t, 1);
        t = base(dt, 1, 64, 256, 6, 7, 5, 5, 2);
        t.mode = CUDNN_CONVOLUTION;
        run_case(t, 1);
        run_case(base(dt, 2, 64, 64, 6, 6, 1, 1, 1), 1);
        run_case(base(dt, 2, 64, 128, 7, 5, 3, 3, 2), 1);
        /* layouts: x with padded pixel strides (1x1 through 4-d boxes) and padded rows, dy with
         * padded channels and rows */
        t = base(dt, 3, 128, 64, 7, 9, 1, 1, 0);
        t.xlay = X_PIXPAD;
        run_case(t, 1);
        t = base(dt, 2, 64, 128, 9, 10, 3, 3, 1);
        t.ylay = Y_PADDED, t.xlay = X_PIXPAD, t.alpha = 0.5, t.beta = 0.25;
        run_case(t, 1);
        t = base(dt, 3, 128, 256, 7, 9, 1, 1, 0);
        t.xlay = X_ROWPAD, t.ylay = Y_PADDED;
        run_case(t, 1);
        /* declines: dy NCHW, Q = 67 (prime > 64: boxes of one pixel), stride 5 (> 4) */
        t = base(dt, 2, 64, 96, 9, 9, 3, 3, 1);
        t.ylay = Y_NCHW;
        run_case(t, 0);
        run_case(base(dt, 1, 64, 64, 2, 67, 3, 3, 1), 0);
        t = base(dt, 2, 64, 64, 16, 16, 3, 3, 1);
        t.stride = 5;
        run_case(t, 0);
        /* strided: x's boxes step the stride (TMA element strides); odd extents, stride 3,
         * 1x1 and 5x5, both modes, alpha/beta, padded x pixels */
        t = base(dt, 2, 64, 64, 9, 9, 3, 3, 1), t.stride = 2;
        run_case(t, 1);
        t = base(dt, 2, 64, 128, 10, 7, 1, 1, 0), t.stride = 2;
        t.alpha = 0.5, t.beta = 0.25;
        run_case(t, 1);
        t = base(dt, 3, 64, 72, 7, 7, 3, 3, 1), t.stride = 2;
        t.mode = CUDNN_CONVOLUTION, t.alpha = -2.0, t.beta = 1.0;
        run_case(t, 1);
        t = base(dt, 2, 64, 64, 13, 10, 3, 3, 1), t.stride = 3;
        run_case(t, 1);
        t = base(dt, 2, 64, 96, 11, 9, 5, 5, 2), t.stride = 2;
        t.xlay = X_PIXPAD, t.exact = 0;
        run_case(t, 1);
        /* ResNet-50's stride-2 layers at N = 2 (x = the layer's input): all six in HALF, two in
         * the others */
        {
            static const int sl[6][5] = {
                /* C, K, H, R, pad */
                {128, 128, 56, 3, 1}, {256, 256, 28, 3, 1}, {512, 512, 14, 3, 1},
                {256, 512, 56, 1, 0}, {512, 1024, 28, 1, 0}, {1024, 2048, 14, 1, 0},
            };
            for (int l = 0; l < 6; l++) {
                if (di > 0 && l != 1 && l != 4)
                    continue;
                t = base(dt, 2, sl[l][0], sl[l][1], sl[l][2], sl[l][2], sl[l][3], sl[l][3], sl[l][4]);
                t.stride = 2, t.exact = di == 0 ? l % 2 == 0 : 0;
                run_case(t, 1);
            }
        }
        /* ResNet-50 stride-1 layers at N = 2..4: exact in one type, real in the other */
        const int ex = di == 0;
        t = base(dt, 2, 64, 64, 56, 56, 3, 3, 1), t.exact = ex;
        run_case(t, 1);
        t = base(dt, 3, 128, 128, 28, 28, 3, 3, 1), t.exact = !ex;
        run_case(t, 1);
        t = base(dt, 4, 256, 256, 14, 14, 3, 3, 1), t.exact = ex;
        run_case(t, 1);
        t = base(dt, 4, 512, 512, 7, 7, 3, 3, 1), t.exact = !ex;
        run_case(t, 1); /* tf32: one row of the 4 images per box */
        t = base(dt, 2, 256, 64, 56, 56, 1, 1, 0), t.exact = ex;
        run_case(t, 1);
        t = base(dt, 2, 64, 256, 56, 56, 1, 1, 0), t.exact = !ex;
        run_case(t, 1);
        t = base(dt, 4, 1024, 256, 14, 14, 1, 1, 0), t.exact = !ex;
        run_case(t, 1);
        t = base(dt, 4, 256, 256, 14, 14, 3, 3, 1);
        t.exact = 0, t.alpha = 0.5, t.beta = 0.25;
        run_case(t, 1);
        /* many splits (102, the model's pick for one tile of 1024 boxes): 1x1 64 -> 64, N 16 */
        if (di == 0)
            run_case(base(dt, 16, 64, 64, 64, 64, 1, 1, 0), 1);
    }
    tf32_cases();
    run_child(argv, "FREEDNN_WGMMA");
    run_child(argv, "FREEDNN_WGMMA_TF32_WGRAD");
    run_child(argv, "FREEDNN_WGMMA_WGRAD_STACK");
    return gm_finish();
}
