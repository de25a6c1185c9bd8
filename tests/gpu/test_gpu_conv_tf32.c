/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_conv_tf32.c - the tensor-core rows (src/cuda/conv_tc.cu: fd_conv_{fwd,bwd_data,
 * bwd_filter}_tc_igemm) on FLOAT data, which they compute as TF32 under DEFAULT, TENSOR_OP and
 * TENSOR_OP_ALLOW_CONVERSION math, against the ref backend through the public API
 * (tests/gpu/gpu_mirror.h). Every case runs in each direction its layouts allow (fwd needs x
 * channel-contiguous, bwd data dy, bwd filter both), and the dispatch log must name the
 * tensor-core row, or, for FMA_MATH and the shapes the row declines, must not.
 *
 * Three kinds of data:
 *   exact  small integers: TF32 keeps them and float sums them exactly: tolerance 0 vs ref.
 *   probe  the first input carries fractions below TF32's precision (k * 2^-12, ties included),
 *          the second small integers, with sums exact in float: the TF32 rows must equal ref
 *          run on inputs rounded to TF32 to nearest, ties away from zero (cvt.rna) bit for bit,
 *          and FMA_MATH (or NVIDIA_TF32_OVERRIDE=0) must equal plain ref bit for bit, which a
 *          TF32 row cannot.
 *   real   uniform [-1, 1): contract §4's bound 2 (2 u_in + K u_acc) sum|x w| + 2 u_out |ref|
 *          with u_in = 2^-11 (0 for FMA math), sum|x w| the largest over the outputs (ref run
 *          on the absolute values).
 * Shapes: C and K of 4, 12, 68 and past the 128 tile, odd N / H / W, 1x1, 3x3, 5x5, 7x7,
 * strides, dilation, asymmetric padding, both modes, 1-d / 2-d / 3-d, padded channel-contiguous
 * layouts, y / dx in NCHW, alpha/beta {1, 0}, {0.5, 0.25}, {-2, 1}, tensors of >= 4M elements.
 * Deterministic: every case runs twice on the GPU (det = 1). NVIDIA_TF32_OVERRIDE is read once
 * per process, so the full run re-executes itself with it set to 0 for that check.
 */
#define _GNU_SOURCE
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu_mirror.h"

extern char **environ;

typedef enum { LY_NHWC, LY_NHWC_PAD, LY_NCHW } layout_t;
static const char *const layout_names[3] = {"nhwc", "nhwc-pad", "nchw"};
typedef enum { F_EXACT, F_PROBE, F_REAL } fill_t;
static const char *const fill_names[3] = {"exact", "probe", "real"};
static const char *const math_names[4] = {"default", "tensor_op", "tensor_op_conv", "fma"};

typedef struct {
    int dir; /* 0 fwd, 1 bwd data, 2 bwd filter */
    size_t ws;
    int nsp, n, c, k;
    int in[3], flt[3], pad[3], str[3], dil[3];
    int mode; /* CUDNN_CONVOLUTION or CUDNN_CROSS_CORRELATION */
    layout_t xl, yl;
    cudnnMathType_t math;
    double alpha, beta;
    fill_t fill;
    int want_tc;   /* 1: the tensor-core row must run; 0: it must not */
    int round_ref; /* probe: ref sees the inputs rounded to TF32 */
    uint64_t seed;
    /* derived */
    int64_t nx, nw, ny; /* element spans of the buffers */
    int64_t kred;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
} tf_case_t;

/* Strides of (n, c, sp...) in cuDNN's N, C, spatial order. NHWC_PAD: channels contiguous, every
 * other stride padded by a multiple of 4 elements (the 16-byte chunks stay aligned). */
static void make_strides(layout_t l, int nsp, const int *dim, int *stride)
{
    const int nb = nsp + 2;
    if (l == LY_NCHW) {
        stride[nb - 1] = 1;
        for (int d = nb - 2; d >= 0; d--)
            stride[d] = stride[d + 1] * dim[d + 1];
        return;
    }
    const int padn = l == LY_NHWC_PAD ? 4 : 0;
    stride[1] = 1;
    int s = dim[1] + padn;
    for (int d = nsp - 1; d >= 0; d--) {
        stride[2 + d] = s;
        s = s * dim[2 + d] + padn;
    }
    stride[0] = s + padn;
}

static int64_t span(int nb, const int *dim, const int *stride)
{
    int64_t e = 1;
    for (int d = 0; d < nb; d++)
        e += (int64_t)(dim[d] - 1) * stride[d];
    return e;
}

static int setup(tf_case_t *t)
{
    const int nb = t->nsp + 2;
    int xdim[5] = {t->n, t->c}, wdim[5] = {t->k, t->c}, ydim[5], st[5];
    for (int d = 0; d < t->nsp; d++)
        xdim[2 + d] = t->in[d], wdim[2 + d] = t->flt[d];
    if (cudnnCreateTensorDescriptor(&t->xd) || cudnnCreateTensorDescriptor(&t->yd) ||
        cudnnCreateFilterDescriptor(&t->wd) || cudnnCreateConvolutionDescriptor(&t->cd))
        return 0;
    make_strides(t->xl, t->nsp, xdim, st);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->xd, CUDNN_DATA_FLOAT, nb, xdim, st),
                     CUDNN_STATUS_SUCCESS);
    t->nx = span(nb, xdim, st);
    FD_EXPECT_STATUS(cudnnSetFilterNdDescriptor(t->wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, nb, wdim),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionNdDescriptor(t->cd, t->nsp, t->pad, t->str, t->dil,
                                                     (cudnnConvolutionMode_t)t->mode, CUDNN_DATA_FLOAT),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionMathType(t->cd, t->math), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnGetConvolutionNdForwardOutputDim(t->cd, t->xd, t->wd, nb, ydim),
                     CUDNN_STATUS_SUCCESS);
    make_strides(t->yl, t->nsp, ydim, st);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->yd, CUDNN_DATA_FLOAT, nb, ydim, st),
                     CUDNN_STATUS_SUCCESS);
    t->ny = span(nb, ydim, st);
    t->nw = 1;
    int64_t taps = 1, ysp = 1;
    for (int d = 0; d < nb; d++)
        t->nw *= wdim[d];
    for (int d = 0; d < t->nsp; d++)
        taps *= t->flt[d], ysp *= ydim[2 + d];
    t->kred = t->dir == 0 ? taps * t->c : t->dir == 1 ? taps * t->k : (int64_t)t->n * ysp;
    return 1;
}

static void teardown(tf_case_t *t)
{
    cudnnDestroyTensorDescriptor(t->xd);
    cudnnDestroyTensorDescriptor(t->yd);
    cudnnDestroyFilterDescriptor(t->wd);
    cudnnDestroyConvolutionDescriptor(t->cd);
}

/* A float rounded to TF32 as cvt.rna.tf32.f32 does: to nearest on the magnitude, ties away
 * from zero, 13 low mantissa bits cleared. */
static float tf32_rna(float v)
{
    if (!isfinite(v))
        return v;
    uint32_t b;
    memcpy(&b, &v, 4);
    b = (b + 0x1000u) & ~0x1fffu;
    memcpy(&v, &b, 4);
    return v;
}

/* Probe values: sign * (m + f), m in 0..3, f a multiple of 2^-12 below 2^-9: TF32 keeps 10
 * mantissa bits (ulp 2^-10 at 1, 2^-9 at 2 and 3), so most of these round, several on ties. */
static void fill_probe(fd_rng_t *r, float *p, int64_t n)
{
    static const double fracs[6] = {0.0, 0x1p-12, 0x1p-11, 0x3p-12, 0x1p-10, 0x3p-11};
    for (int64_t i = 0; i < n; i++) {
        double v = fd_rng_int(r, 0, 3) + fracs[fd_rng_int(r, 0, 5)];
        p[i] = (float)(fd_rng_int(r, 0, 1) ? -v : v);
    }
}

static void fill(int i, void *payload, size_t bytes, void *ctx)
{
    tf_case_t *t = ctx;
    fd_rng_t r;
    fd_rng_seed(&r, t->seed * 7 + (uint64_t)i);
    const int64_t n = (int64_t)(bytes / sizeof(float));
    if (i == 3 || (i == 2 && t->beta == 0.0))
        return; /* workspace; an output with beta = 0 stays poisoned: it must not be read */
    if (t->fill == F_REAL)
        fd_fill_real(&r, CUDNN_DATA_FLOAT, payload, n, -1.0, 1.0);
    else if (t->fill == F_PROBE && i == 0)
        fill_probe(&r, payload, n);
    else
        fd_fill_int(&r, CUDNN_DATA_FLOAT, payload, n, -3, 3, 0.8);
}

/* The algorithm of each direction: the tensor-core rows' enums that allow a workspace. */
static const int algo_of[3] = {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                               CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1};

static cudnnStatus_t call_ptrs(cudnnHandle_t h, void *const *ptr, const tf_case_t *t)
{
    gm_last_impl[0] = '\0';
    /* buffers: 0 and 1 the inputs of the direction, 2 its output, 3 the workspace */
    return gm_conv_call(h, t->dir, algo_of[t->dir], t->xd, t->wd, t->cd, t->yd, t->alpha, t->beta,
                        ptr, t->ws);
}

static int64_t in_elems(const tf_case_t *t, int i)
{
    return t->dir == 0 ? (i == 0 ? t->nx : t->nw) : t->dir == 1 ? (i == 0 ? t->ny : t->nw)
                                                               : (i == 0 ? t->nx : t->ny);
}

/* The call. For round_ref, the ref handle reads copies of the inputs rounded to TF32: the
 * semantics the tensor-core rows must reproduce exactly. */
static cudnnStatus_t call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    tf_case_t *t = ctx;
    if (!t->round_ref || h != gm_ref)
        return call_ptrs(h, ptr, t);
    void *p[4] = {NULL, NULL, ptr[2], ptr[3]};
    for (int i = 0; i < 2; i++) {
        const int64_t n = in_elems(t, i);
        float *q = malloc(sizeof(float) * (size_t)n);
        if (!q)
            abort();
        memcpy(q, ptr[i], sizeof(float) * (size_t)n);
        for (int64_t e = 0; e < n; e++)
            q[e] = tf32_rna(q[e]);
        p[i] = q;
    }
    cudnnStatus_t st = call_ptrs(h, p, t);
    free(p[0]), free(p[1]);
    return st;
}

/* The largest sum |x w| over the outputs: ref on the absolute values of the same fills. */
static double max_abs_sum(const tf_case_t *t)
{
    const int64_t n0 = in_elems(t, 0), n1 = in_elems(t, 1);
    const int64_t n2 = t->dir == 0 ? t->ny : t->dir == 1 ? t->nx : t->nw;
    float *a = malloc(sizeof(float) * (size_t)n0), *b = malloc(sizeof(float) * (size_t)n1);
    float *o = calloc((size_t)n2, sizeof(float));
    void *ws = malloc(t->ws + 1);
    if (!a || !b || !o || !ws)
        abort();
    fill(0, a, sizeof(float) * (size_t)n0, (void *)t);
    fill(1, b, sizeof(float) * (size_t)n1, (void *)t);
    for (int64_t e = 0; e < n0; e++)
        a[e] = fabsf(a[e]);
    for (int64_t e = 0; e < n1; e++)
        b[e] = fabsf(b[e]);
    tf_case_t u = *t;
    u.alpha = 1.0, u.beta = 0.0;
    void *p[4] = {a, b, o, ws};
    FD_EXPECT_STATUS(call_ptrs(gm_ref, p, &u), CUDNN_STATUS_SUCCESS);
    double m = 0.0;
    for (int64_t e = 0; e < n2; e++)
        m = fmax(m, (double)o[e]);
    free(a), free(b), free(o), free(ws);
    return m;
}

static const char *const dir_names[3] = {"fwd", "bwd_data", "bwd_filter"};
static const char *const tc_rows[3] = {"fd_conv_fwd_tc_igemm", "fd_conv_bwd_data_tc_igemm",
                                       "fd_conv_bwd_filter_tc_igemm"};

static size_t workspace(cudnnHandle_t h, const tf_case_t *t)
{
    return gm_conv_workspace(h, t->dir, algo_of[t->dir], t->xd, t->wd, t->cd, t->yd);
}

static void run_dir(tf_case_t t)
{
    if (!setup(&t))
        return;
    char label[320];
    snprintf(label, sizeof label,
             "%s f32 math=%s n%d c%d k%d in%dx%dx%d f%dx%dx%d p%d,%d u%d,%d d%d,%d %s x-%s y-%s "
             "a%g b%g %s%s",
             dir_names[t.dir], math_names[t.math], t.n, t.c, t.k, t.in[0], t.nsp > 1 ? t.in[1] : 1,
             t.nsp > 2 ? t.in[2] : 1, t.flt[0], t.nsp > 1 ? t.flt[1] : 1, t.nsp > 2 ? t.flt[2] : 1,
             t.pad[0], t.pad[1], t.str[0], t.str[1], t.dil[0], t.dil[1],
             t.mode == CUDNN_CONVOLUTION ? "conv" : "xcorr", layout_names[t.xl], layout_names[t.yl],
             t.alpha, t.beta, fill_names[t.fill], t.round_ref ? " (ref on tf32-rounded inputs)" : "");
    const size_t wsr = workspace(gm_ref, &t), wsc = workspace(gm_cuda, &t);
    t.ws = wsr > wsc ? wsr : wsc;
    const gm_role_t out_role = t.beta != 0.0 ? GM_INOUT : GM_OUT;
    const size_t fs = sizeof(float);
    gm_case_t c = {0};
    c.label = label;
    c.nbuf = 4;
    if (t.dir == 0) {
        c.buf[0] = (gm_buf_t){"x", (size_t)t.nx * fs, CUDNN_DATA_FLOAT, GM_IN, 0, 0};
        c.buf[1] = (gm_buf_t){"w", (size_t)t.nw * fs, CUDNN_DATA_FLOAT, GM_IN, 0, 0};
        c.buf[2] = (gm_buf_t){"y", (size_t)t.ny * fs, CUDNN_DATA_FLOAT, out_role, 0, 0};
    } else if (t.dir == 1) {
        c.buf[0] = (gm_buf_t){"dy", (size_t)t.ny * fs, CUDNN_DATA_FLOAT, GM_IN, 0, 0};
        c.buf[1] = (gm_buf_t){"w", (size_t)t.nw * fs, CUDNN_DATA_FLOAT, GM_IN, 0, 0};
        c.buf[2] = (gm_buf_t){"dx", (size_t)t.nx * fs, CUDNN_DATA_FLOAT, out_role, 0, 0};
    } else {
        c.buf[0] = (gm_buf_t){"x", (size_t)t.nx * fs, CUDNN_DATA_FLOAT, GM_IN, 0, 0};
        c.buf[1] = (gm_buf_t){"dy", (size_t)t.ny * fs, CUDNN_DATA_FLOAT, GM_IN, 0, 0};
        c.buf[2] = (gm_buf_t){"dw", (size_t)t.nw * fs, CUDNN_DATA_FLOAT, out_role, 0, 0};
    }
    c.buf[3] = (gm_buf_t){"workspace", t.ws, CUDNN_DATA_FLOAT, GM_WS, 0, 0};
    if (t.fill == F_REAL) {
        const double u_in = t.want_tc ? 0x1p-11 : 0.0, u = 0x1p-24;
        const double s = max_abs_sum(&t);
        c.buf[2].abs_tol = 2.0 * (2.0 * u_in + (double)t.kred * u) * fabs(t.alpha) * s + 0x1p-140;
        c.buf[2].rel_tol = 2.0 * u;
    }
    c.det = 1;
    c.fill = fill;
    c.call = call;
    c.ctx = &t;
    c.want = CUDNN_STATUS_SUCCESS;
    gm_run(&c);
    /* the last call was the cuda handle's determinism re-run */
    if (t.want_tc) {
        int strided = 0, dilated = 0;
        for (int d = 0; d < t.nsp; d++)
            strided |= t.str[d] > 1, dilated |= t.dil[d] > 1;
        /* strided bwd data: split into stride-1 problems (src/cuda/conv_tc_dgrad.cu) */
        const char *row =
            t.dir == 1 && strided && !dilated ? "fd_conv_bwd_data_tc_strided" : tc_rows[t.dir];
        FD_EXPECT(strcmp(gm_last_impl, row) == 0, "%s: dispatch ran %s, expected %s", label,
                  gm_last_impl[0] ? gm_last_impl : "(nothing logged)", row);
    } else
        FD_EXPECT(gm_last_impl[0] && strcmp(gm_last_impl, tc_rows[t.dir]) != 0,
                  "%s: dispatch ran %s, which must not take this call", label,
                  gm_last_impl[0] ? gm_last_impl : "(nothing logged)");
    teardown(&t);
}

/* Every direction whose tensors the row could take: fwd reads x, bwd data dy, bwd filter both
 * channel-contiguous; the written tensor may be NCHW. */
static void run(tf_case_t t)
{
    for (int d = 0; d < 3; d++) {
        const int need_x = d != 1, need_y = d != 0;
        if ((need_x && t.xl == LY_NCHW) || (need_y && t.yl == LY_NCHW))
            continue;
        t.dir = d;
        run_dir(t);
    }
}

static tf_case_t base(cudnnMathType_t math, int n, int c, int k, int h, int w, int r, int s)
{
    tf_case_t t;
    memset(&t, 0, sizeof t);
    t.nsp = 2, t.n = n, t.c = c, t.k = k;
    t.in[0] = h, t.in[1] = w, t.flt[0] = r, t.flt[1] = s;
    for (int d = 0; d < 3; d++)
        t.str[d] = t.dil[d] = 1;
    t.pad[0] = r / 2, t.pad[1] = s / 2;
    t.mode = CUDNN_CROSS_CORRELATION;
    t.xl = t.yl = LY_NHWC;
    t.math = math;
    t.alpha = 1.0, t.beta = 0.0;
    t.fill = F_EXACT;
    t.want_tc = math != CUDNN_FMA_MATH;
    t.seed = (uint64_t)(n * 131 + c * 17 + k * 7 + h + w * 3 + r + 1000 * (int)math);
    return t;
}

/* A probe: small enough that every sum of the fractional inputs stays exact in float. */
static tf_case_t probe(cudnnMathType_t math, int round_ref)
{
    tf_case_t t = base(math, 2, 12, 12, 9, 7, 3, 3);
    t.fill = F_PROBE;
    t.round_ref = round_ref;
    return t;
}

/* The child run with NVIDIA_TF32_OVERRIDE=0: DEFAULT math must not reach TF32. */
static int override_child(int argc, char **argv)
{
    gm_init(argc, argv, "test_gpu_conv_tf32 (NVIDIA_TF32_OVERRIDE=0)");
    const char *e = getenv("NVIDIA_TF32_OVERRIDE");
    FD_EXPECT(e && strcmp(e, "0") == 0, "the child runs without NVIDIA_TF32_OVERRIDE=0");
    tf_case_t t = probe(CUDNN_DEFAULT_MATH, 0);
    t.want_tc = 0;
    run(t);
    t = base(CUDNN_TENSOR_OP_MATH, 1, 16, 8, 6, 5, 3, 3);
    t.want_tc = 0;
    run(t);
    return gm_finish();
}

static void override_run(void)
{
    int n = 0;
    while (environ[n])
        n++;
    char **envp = calloc((size_t)n + 2, sizeof *envp);
    if (!envp)
        abort();
    int m = 0;
    for (int i = 0; i < n; i++)
        if (strncmp(environ[i], "NVIDIA_TF32_OVERRIDE=", 21) != 0)
            envp[m++] = environ[i];
    static char ovr[] = "NVIDIA_TF32_OVERRIDE=0", arg0[] = "test_gpu_conv_tf32",
                arg1[] = "--tf32-override-child";
    envp[m++] = ovr;
    char *args[] = {arg0, arg1, NULL};
    fflush(stdout);
    pid_t pid;
    int rc = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, envp), status = 0;
    FD_EXPECT(rc == 0, "posix_spawn of the NVIDIA_TF32_OVERRIDE=0 run: %s", strerror(rc));
    if (rc == 0)
        FD_EXPECT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "the NVIDIA_TF32_OVERRIDE=0 run failed (wait status %#x)", status);
    free(envp);
}

int main(int argc, char **argv)
{
    setenv("FREEDNN_LOG_DISPATCH", "1", 1);
    /* the mma.sync rows (cvt.rna rounding) under test; the sm_90a tf32 rows are test_gpu_conv_wgmma's */
    setenv("FREEDNN_WGMMA", "0", 1);
    setenv("FREEDNN_SMALLC", "0", 1); /* C <= 4 problems on the padding rows under test here */
    if (argc > 1 && strcmp(argv[1], "--tf32-override-child") == 0) {
        gm_watch_dispatch();
        return override_child(argc, argv);
    }
    gm_init(argc, argv, "test_gpu_conv_tf32");
    gm_watch_dispatch();
    gm_rerun_with(argv, "FREEDNN_TC_NARROW", "0"); /* every case on the 128 x 128 tile */
    const cudnnMathType_t D = CUDNN_DEFAULT_MATH, T = CUDNN_TENSOR_OP_MATH,
                          A = CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION, F = CUDNN_FMA_MATH;
    tf_case_t t;

    /* C = 4 (below the 16-float reduction tile), 12; TF32 rounding against ref */
    run(base(D, 1, 4, 4, 5, 7, 3, 3));
    run(probe(D, 1));
    t = base(T, 2, 12, 20, 9, 9, 3, 3);
    t.fill = F_REAL;
    run(t);
    if (gm_smoke)
        return gm_finish();

    /* TF32 rounding under every math type that allows it; FMA_MATH must not round */
    run(probe(T, 1));
    run(probe(A, 1));
    run(probe(F, 0));
    /* tile tails: C = 68, K past 128, odd N / H / W, 1x1, 5x5, 7x7 */
    run(base(T, 3, 12, 20, 9, 9, 3, 3));
    run(base(D, 2, 68, 36, 11, 13, 5, 5));
    t = base(T, 2, 16, 132, 8, 8, 1, 1);
    t.pad[0] = t.pad[1] = 0;
    run(t);
    run(base(D, 3, 40, 136, 7, 11, 3, 3));
    t = base(T, 1, 8, 12, 6, 6, 7, 7);
    t.pad[0] = 3, t.pad[1] = 1;
    run(t);
    /* stride, dilation, asymmetric padding, convolution mode */
    t = base(D, 2, 24, 40, 17, 19, 3, 3);
    t.str[0] = 2, t.str[1] = 3;
    run(t);
    t = base(T, 1, 16, 16, 20, 20, 3, 3);
    t.dil[0] = 2, t.dil[1] = 3, t.pad[0] = 0, t.pad[1] = 4;
    run(t);
    t = base(D, 2, 24, 32, 10, 9, 3, 2);
    t.mode = CUDNN_CONVOLUTION;
    run(t);
    t = base(A, 3, 12, 8, 15, 13, 5, 5);
    t.str[0] = t.str[1] = 2, t.mode = CUDNN_CONVOLUTION;
    run(t);
    /* 1-d and 3-d */
    t = base(T, 2, 16, 32, 33, 1, 3, 1);
    t.nsp = 1, t.pad[0] = 1, t.pad[1] = 0;
    run(t);
    t = base(D, 1, 12, 24, 5, 6, 3, 3);
    t.nsp = 3, t.in[2] = 7, t.flt[2] = 3, t.pad[2] = 1, t.str[2] = 2;
    run(t);
    /* layouts: padded channel-contiguous strides, y (fwd) and dx (bwd data) in NCHW */
    t = base(D, 3, 20, 12, 9, 7, 3, 3);
    t.xl = t.yl = LY_NHWC_PAD;
    run(t);
    t = base(T, 2, 32, 48, 9, 9, 3, 3);
    t.yl = LY_NCHW;
    run(t);
    t = base(D, 2, 32, 48, 9, 9, 3, 3);
    t.xl = LY_NCHW;
    run(t);
    /* alpha / beta */
    t = base(D, 2, 32, 48, 9, 9, 3, 3);
    t.alpha = 0.5, t.beta = 0.25;
    run(t);
    t = base(T, 2, 32, 48, 9, 9, 3, 3);
    t.alpha = -2.0, t.beta = 1.0;
    run(t);
    t = probe(D, 1);
    t.alpha = 0.5, t.beta = 0.25;
    run(t);
    /* real data under the TF32 bound */
    t = base(D, 2, 64, 96, 12, 12, 3, 3);
    t.fill = F_REAL;
    run(t);
    t = base(T, 3, 68, 68, 15, 17, 3, 3);
    t.fill = F_REAL, t.str[0] = t.str[1] = 2, t.alpha = 0.5, t.beta = 0.25;
    run(t);
    t = base(A, 2, 12, 28, 9, 8, 5, 5);
    t.fill = F_REAL, t.xl = t.yl = LY_NHWC_PAD, t.mode = CUDNN_CONVOLUTION;
    run(t);
    t = base(D, 1, 16, 24, 6, 7, 3, 3);
    t.nsp = 3, t.in[2] = 5, t.flt[2] = 3, t.pad[2] = 1, t.fill = F_REAL;
    run(t);
    t = base(D, 2, 64, 64, 28, 28, 3, 3); /* a ResNet-50 layer */
    t.fill = F_REAL;
    run(t);
    /* the narrow tiles (C or K <= 32): DeepBench's speech layer cut small (5x10 at stride 2,
     * bwd data by residue), a split-K of many splits, one direction narrow and the others not */
    t = base(D, 2, 32, 32, 19, 41, 5, 10);
    t.str[0] = t.str[1] = 2, t.pad[0] = t.pad[1] = 0, t.fill = F_REAL;
    run(t);
    t = base(T, 48, 32, 16, 30, 30, 3, 3);
    t.fill = F_REAL;
    run(t);
    run(base(D, 2, 28, 140, 7, 9, 3, 3));
    t = base(T, 2, 148, 8, 9, 8, 3, 3);
    t.alpha = 0.5, t.beta = 0.25;
    run(t);
    /* FMA_MATH and shapes the row declines: another row, plain float results */
    t = base(F, 2, 32, 48, 9, 9, 3, 3);
    t.fill = F_REAL;
    run(t);
    run(base(F, 2, 12, 20, 9, 9, 3, 3));
    t = base(D, 2, 6, 8, 7, 7, 3, 3); /* C not a multiple of 4 */
    t.want_tc = 0;
    run(t);
    t = base(T, 2, 8, 10, 7, 7, 3, 3); /* K not a multiple of 4 */
    t.want_tc = 0;
    run(t);
    /* tensors of >= 4M elements: x / dx (C = 128), then y / dy (K = 128) */
    t = base(D, 8, 128, 8, 64, 64, 1, 1);
    t.pad[0] = t.pad[1] = 0;
    run(t);
    t = base(T, 8, 8, 128, 64, 64, 1, 1);
    t.pad[0] = t.pad[1] = 0;
    run(t);

    override_run();
    return gm_finish();
}
