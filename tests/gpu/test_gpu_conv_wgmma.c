/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_conv_wgmma.c - the sm_90a rows fd_conv_fwd_implicit_gemm_f16_128xN__sm90 and the
 * fd_conv_bwd_data_implicit_gemm_f16_128xN__sm90 (on by default; the forward row on dy and a
 * transposed filter), and their FLOAT-as-TF32 twins fd_conv_{fwd,bwd_data}_implicit_gemm_tf32_128xN
 * __sm90 (all four in src/cuda/conv_fwd_implicit_gemm_f16_128xN__sm90.cu)
 * against the ref backend through the public API (tests/gpu/gpu_mirror.h). FREEDNN_WGMMA is unset
 * before any handle exists. Shapes: the dev/wgmma sandbox's check problems, ResNet-50 stride-1
 * layers at N = 2..4, strided forward (the tap boxes' TMA element strides; ResNet-50's stride-2
 * layers at N = 2), partial M and N tiles of each BN (64, 128, 256), pad 0 / 1 / 2 and padding
 * wider than the filter, both convolution modes, alpha/beta pairs, f16 and bf16, y NHWC / NCHW /
 * channel-padded, x with padded pixel strides (the [M][C] and the 4-d tap boxes), one tensor of
 * more than 4M elements. Integer fills are exact (fp32 sums of small integers), so those runs are
 * bit-identical to ref; real fills agree within the reduction's tolerance; every case runs twice
 * (determinism). On a compute capability 9.0 device the dispatch log must name the row (elsewhere
 * the row declines and the checks are skipped with a note). A child process with FREEDNN_WGMMA=0
 * must not take the row. Also prints the host cost of the TMA descriptor encodes and of a call.
 *
 * TF32 (FLOAT data, FLOAT compute, DEFAULT / TENSOR_OP / TENSOR_OP_ALLOW_CONVERSION math): C of
 * 32 (one k-block per tap), 64, 96, 160, K tails of each BN (4, 44, 68, 260), the same modes,
 * pads, layouts and alpha/beta pairs, ResNet-50 stride-1 layers at N = 2..4. Integer fills
 * (|v| <= 3) are exact in TF32 and their fp32 sums are exact: bit-identical to ref. Real fills
 * (uniform [-1, 1)) use test_gpu_conv_tf32.c's bound (contract §4): |got - ref| <= 2 (2 u_in +
 * kred 2^-24) |alpha| S + 2^-23 |ref|, S the largest sum |x w| over the outputs (ref on the
 * absolute values), but with u_in = 2^-10 instead of 2^-11: the row hands the floats to the
 * tensor core unrounded, which reads them as TF32 by dropping the 13 low mantissa bits (a
 * relative error below 2^-10, where rounding to nearest, as the mma.sync row does, stays
 * below 2^-11). Declines checked: FMA_MATH, C % 32 != 0, and a child run with
 * NVIDIA_TF32_OVERRIDE=0 (read once per process), where FLOAT must leave the tf32 rows while
 * HALF still takes the f16 row.
 *
 * Strided backward data with 2x2 strides runs as one transposing sub-filter gather plus one
 * grouped wgmma launch (FREEDNN_WGMMA_DGRAD_GROUPED, on by default): grouped_cases checks it
 * against ref (exact fills bit for bit), child "3" repeats them with the switch off (per-class
 * launches), and strided_launches counts the kernels of one call by capturing it into a CUDA
 * graph (2 grouped; more than 2 per class), prints the host cost per call, and hands dx of real
 * fills from the parent to child "3" through a file in $TMPDIR: the two paths must agree bit for
 * bit (the same GEMM per class, the same products in the same order). Child "3" also turns off
 * the staged epilogue (FREEDNN_WGMMA_STAGED_EPILOGUE=0: pair stores from the fragments instead of
 * whole rows through shared memory, alpha 1 and beta 0 with 16-byte rows), so its cases check
 * that path against ref and the bits compare the two epilogues. Stride-1 backward
 * data in HALF / BFLOAT16 reads the KRSC filter MN-major (FREEDNN_WGMMA_DGRAD_TNSP, on by
 * default): 1 launch (the stride-1 dir = 1 cases above run it; child "3" the transpose). The
 * grouped strided launch in HALF / BFLOAT16 reads each class's sub-filter as a strided view of
 * the filter, MN-major, without the gather (FREEDNN_WGMMA_DGRAD_NOGATHER, on by default): 1
 * launch; child "4" runs the grouped cases, ResNet-50's stride-2 layers and the launch cases with
 * it off (the gather + GEMM), against ref and against the parent's bits. TF32 backward data
 * (stride 1, and the strided grouped launch's views) loads B into shared memory by the producer
 * warpgroup (FREEDNN_WGMMA_DGRAD_TF32_1L, on by default): 1 launch; child "4" runs
 * tf32_dgrad_cases and the FLOAT launch cases with it off (transpose / gather + GEMM).
 */
#define _GNU_SOURCE
/* Two programs share this file (the tier runs them side by side): this one, part 1, the forward
 * cases of f16 / bf16 and child "1"; test_gpu_conv_wgmma_bwd.c, part 2, everything else. */
#ifndef WG_PART
#define WG_PART 1
#endif

#include <cuda.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu_mirror.h"

#define WG_ROW "fd_conv_fwd_implicit_gemm_f16_128xN__sm90"
#define WG_DGRAD_ROW "fd_conv_bwd_data_implicit_gemm_f16_128xN__sm90"
#define WG_TF32_ROW "fd_conv_fwd_implicit_gemm_tf32_128xN__sm90"
#define WG_TF32_DGRAD_ROW "fd_conv_bwd_data_implicit_gemm_tf32_128xN__sm90"
#define STRIDED_ROW "fd_conv_bwd_data_tc_strided" /* its residues run on the rows above on sm_90 */

enum { Y_NHWC, Y_NCHW, Y_PADDED };      /* y layouts */
enum { X_NHWC, X_PIXPAD, X_ROWPAD };    /* x: packed; pixel stride C + 64; and rows + 1 pixel */

typedef struct {
    cudnnDataType_t dt;
    int n, c, k, h, w, r, s, pad_h, pad_w;
    int mode;
    cudnnMathType_t math; /* FLOAT: DEFAULT / TENSOR_OP(_ALLOW_CONVERSION) run TF32 */
    int ylay, xlay;
    double alpha, beta;
    int exact;
    int dir; /* 0 forward, 1 backward data (ALGO_1, the opt-in row on dy and a transposed filter) */
    int u;   /* stride (both dims; 0 means 1): forward's strided tap boxes, backward data's split */
    uint64_t seed;
    /* derived */
    size_t ws;
    int64_t xspan, yspan, nw, kred;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
} wg_case_t;

static int on_sm90; /* the row can run here: its name must be in the dispatch log */

/* Elements spanned by a 4-d tensor: the largest offset + 1. */
static int64_t span(const int *dim, const int *st)
{
    int64_t s = 1;
    for (int d = 0; d < 4; d++)
        s += (int64_t)(dim[d] - 1) * st[d];
    return s;
}

static int setup(wg_case_t *t)
{
    int xdim[4] = {t->n, t->c, t->h, t->w}, wdim[4] = {t->k, t->c, t->r, t->s}, ydim[4], st[4];
    const int u = t->u > 1 ? t->u : 1;
    const int pad[2] = {t->pad_h, t->pad_w}, one[2] = {1, 1}, str[2] = {u, u};
    if (cudnnCreateTensorDescriptor(&t->xd) || cudnnCreateTensorDescriptor(&t->yd) ||
        cudnnCreateFilterDescriptor(&t->wd) || cudnnCreateConvolutionDescriptor(&t->cd))
        return 0;
    /* x channel-contiguous; the padded variants keep every stride a multiple of 8 elements */
    const int ps = t->xlay == X_NHWC ? t->c : t->c + 64;
    st[1] = 1, st[3] = ps, st[2] = (t->w + (t->xlay == X_ROWPAD)) * ps, st[0] = t->h * st[2];
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->xd, t->dt, 4, xdim, st), CUDNN_STATUS_SUCCESS);
    t->xspan = span(xdim, st);
    FD_EXPECT_STATUS(cudnnSetFilterNdDescriptor(t->wd, t->dt, CUDNN_TENSOR_NHWC, 4, wdim), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionNdDescriptor(t->cd, 2, pad, str, one, (cudnnConvolutionMode_t)t->mode,
                                                     CUDNN_DATA_FLOAT),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionMathType(t->cd, t->math), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnGetConvolutionNdForwardOutputDim(t->cd, t->xd, t->wd, 4, ydim), CUDNN_STATUS_SUCCESS);
    if (t->ylay == Y_NCHW) {
        st[3] = 1, st[2] = ydim[3], st[1] = ydim[2] * ydim[3], st[0] = ydim[1] * st[1];
    } else {
        const int yps = t->ylay == Y_PADDED ? t->k + 8 : t->k;
        st[1] = 1, st[3] = yps, st[2] = ydim[3] * yps + (t->ylay == Y_PADDED ? 2 * yps : 0), st[0] = ydim[2] * st[2];
    }
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->yd, t->dt, 4, ydim, st), CUDNN_STATUS_SUCCESS);
    t->yspan = span(ydim, st);
    t->nw = (int64_t)t->k * t->c * t->r * t->s;
    t->kred = (int64_t)t->c * t->r * t->s;
    return 1;
}

static void teardown(wg_case_t *t)
{
    cudnnDestroyTensorDescriptor(t->xd);
    cudnnDestroyTensorDescriptor(t->yd);
    cudnnDestroyFilterDescriptor(t->wd);
    cudnnDestroyConvolutionDescriptor(t->cd);
}

static void fill(int i, void *payload, size_t bytes, void *ctx)
{
    wg_case_t *t = ctx;
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

/* buffers: fwd 0 x, 1 w, 2 y; bwd data 0 dy, 1 w, 2 dx, 3 the workspace */
static cudnnStatus_t call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    wg_case_t *t = ctx;
    float alpha = (float)t->alpha, beta = (float)t->beta;
    gm_last_impl[0] = '\0';
    if (t->dir == 1)
        return gm_conv_call(h, 1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, t->xd, t->wd, t->cd, t->yd, t->alpha, t->beta,
                            ptr, t->ws);
    return cudnnConvolutionForward(h, &alpha, t->xd, ptr[0], t->wd, ptr[1], t->cd,
                                   CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, NULL, 0, &beta, t->yd, ptr[2]);
}

/* The largest sum |x w| over the outputs (FLOAT cases): ref on the absolute values of the same
 * fills, alpha 1, beta 0. */
static double max_abs_sum(const wg_case_t *t)
{
    const int64_t n0 = t->dir ? t->yspan : t->xspan, n2 = t->dir ? t->xspan : t->yspan;
    float *a = malloc(sizeof(float) * (size_t)n0), *b = malloc(sizeof(float) * (size_t)t->nw);
    float *o = calloc((size_t)n2, sizeof(float));
    void *ws = malloc(t->ws + 1);
    if (!a || !b || !o || !ws)
        abort();
    wg_case_t u = *t;
    u.alpha = 1.0, u.beta = 0.0;
    fill(0, a, sizeof(float) * (size_t)n0, &u);
    fill(1, b, sizeof(float) * (size_t)t->nw, &u);
    for (int64_t e = 0; e < n0; e++)
        a[e] = fabsf(a[e]);
    for (int64_t e = 0; e < t->nw; e++)
        b[e] = fabsf(b[e]);
    void *p[4] = {a, b, o, ws};
    FD_EXPECT_STATUS(call(gm_ref, p, &u), CUDNN_STATUS_SUCCESS);
    double m = 0.0;
    for (int64_t e = 0; e < n2; e++)
        m = fmax(m, (double)o[e]);
    free(a), free(b), free(o), free(ws);
    return m;
}

/* Runs one case; `want_row`: 1 the wgmma row must run it (where it can), 0 it must not. */
static void run_case(wg_case_t t, int want_row)
{
    if (!setup(&t))
        return;
    static const char *const ylays[3] = {"", " y-nchw", " y-padded"};
    static const char *const xlays[3] = {"", " x-pixpad", " x-rowpad"};
    char label[256];
    static const char *const maths[4] = {" math=default", " math=tensor_op", " math=tensor_op_conv", " math=fma"};
    snprintf(label, sizeof label, "%s %s n%d c%d k%d %dx%d f%dx%d p%dx%d u%d %s%s%s%s a%g b%g %s",
             t.dir ? "bwd_data" : "fwd", fd_test_dtype_short(t.dt), t.n, t.c, t.k, t.h, t.w, t.r, t.s, t.pad_h,
             t.pad_w, t.u > 1 ? t.u : 1, t.mode == CUDNN_CONVOLUTION ? "conv" : "xcorr", ylays[t.ylay], xlays[t.xlay],
             t.dt == CUDNN_DATA_FLOAT ? maths[t.math & 3] : "", t.alpha, t.beta, t.exact ? "exact" : "real");
    const size_t es = fd_test_dtype_size(t.dt);
    const int tf32 = t.dt == CUDNN_DATA_FLOAT;
    const char *row = t.dir ? (tf32 ? WG_TF32_DGRAD_ROW : WG_DGRAD_ROW) : (tf32 ? WG_TF32_ROW : WG_ROW);
    if (t.u > 1 && t.dir == 1)
        row = STRIDED_ROW;
    gm_case_t c = {0};
    c.label = label;
    c.nbuf = 3;
    if (t.dir == 1) {
        const size_t wsr = gm_conv_workspace(gm_ref, 1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, t.xd, t.wd, t.cd, t.yd),
                     wsc = gm_conv_workspace(gm_cuda, 1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, t.xd, t.wd, t.cd, t.yd);
        t.ws = wsr > wsc ? wsr : wsc;
        t.kred = (int64_t)t.k * t.r * t.s;
        c.nbuf = 4;
        c.buf[0] = (gm_buf_t){"dy", (size_t)t.yspan * es, t.dt, GM_IN, 0, 0};
        c.buf[1] = (gm_buf_t){"w", (size_t)t.nw * es, t.dt, GM_IN, 0, 0};
        c.buf[2] = (gm_buf_t){"dx", (size_t)t.xspan * es, t.dt, t.beta != 0.0 ? GM_INOUT : GM_OUT, 0, 0};
        c.buf[3] = (gm_buf_t){"workspace", t.ws, t.dt, GM_WS, 0, 0};
    } else {
        c.buf[0] = (gm_buf_t){"x", (size_t)t.xspan * es, t.dt, GM_IN, 0, 0};
        c.buf[1] = (gm_buf_t){"w", (size_t)t.nw * es, t.dt, GM_IN, 0, 0};
        c.buf[2] = (gm_buf_t){"y", (size_t)t.yspan * es, t.dt, t.beta != 0.0 ? GM_INOUT : GM_OUT, 0, 0};
    }
    if (!t.exact && tf32) {
        /* the header's TF32 bound; u_in 0 under FMA_MATH (plain float, whichever row) */
        const double u_in = t.math != CUDNN_FMA_MATH ? 0x1p-10 : 0.0, s = max_abs_sum(&t);
        c.buf[2].abs_tol = 2.0 * (2.0 * u_in + (double)t.kred * 0x1p-24) * fabs(t.alpha) * s + 0x1p-140;
        c.buf[2].rel_tol = 2.0 * 0x1p-24;
    } else if (!t.exact) {
        gm_tol(&c.buf[2], t.dt, t.kred);
        /* inputs in [-1, 1): float accumulation in another order than ref's double */
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
    if (want_row && on_sm90)
        FD_EXPECT(strcmp(gm_last_impl, row) == 0, "%s: dispatch ran %s, expected %s", label,
                  gm_last_impl[0] ? gm_last_impl : "(nothing logged)", row);
    if (!want_row)
        FD_EXPECT(gm_last_impl[0] && strcmp(gm_last_impl, row) != 0,
                  "%s: dispatch ran %s, which must not take this call", label,
                  gm_last_impl[0] ? gm_last_impl : "(nothing logged)");
    teardown(&t);
}

static wg_case_t base(cudnnDataType_t dt, int n, int c, int k, int h, int w, int r, int s, int pad)
{
    wg_case_t t;
    memset(&t, 0, sizeof t);
    t.dt = dt, t.n = n, t.c = c, t.k = k, t.h = h, t.w = w, t.r = r, t.s = s;
    t.pad_h = t.pad_w = pad;
    t.mode = CUDNN_CROSS_CORRELATION;
    t.alpha = 1.0, t.beta = 0.0, t.exact = 1;
    t.seed = (uint64_t)(n * 131 + c * 17 + k * 7 + h + w * 3 + r);
    return t;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Host cost of the per-call work: the two cuTensorMapEncodeTiled of a call (timed alone), and
 * whole cudnnConvolutionForward calls (enqueue only, timed before the stream is waited for). */
typedef CUresult (*encode_fn_t)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/* Host time per call of t on gm_cuda (200 enqueued calls, then one sync), microseconds. */
static double call_cost_us(wg_case_t *t, void *const *ptr)
{
    const int calls = 200;
    const double c0 = now_s();
    for (int i = 0; i < calls; i++)
        call(gm_cuda, ptr, t);
    const double c1 = now_s();
    FD_EXPECT(cudaStreamSynchronize(gm_stream) == cudaSuccess, "host-cost calls failed on the GPU");
    return (c1 - c0) / calls * 1e6;
}

static void host_cost(void)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) !=
            cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
        printf("host cost: cuTensorMapEncodeTiled not available\n");
        return;
    }
    encode_fn_t enc = (encode_fn_t)fn;
    void *buf = NULL;
    if (cudaMalloc(&buf, (size_t)4 * 14 * 14 * 256 * 2) != cudaSuccess)
        return;
    const cuuint64_t dims[4] = {256, 14, 14, 4}, str[3] = {512, 14 * 512, 14 * 14 * 512};
    const cuuint32_t box[4] = {64, 14, 7, 1}, one[4] = {1, 1, 1, 1};
    CUtensorMap m;
    const int reps = 20000;
    const double t0 = now_s();
    int bad = 0;
    for (int i = 0; i < reps; i++)
        bad |= enc(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4, buf, dims, str, box, one, CU_TENSOR_MAP_INTERLEAVE_NONE,
                   CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS;
    const double t1 = now_s();
    FD_EXPECT(!bad, "cuTensorMapEncodeTiled failed on a ResNet-50 14x14 map");
    printf("host cost: cuTensorMapEncodeTiled %.3f us per 4-d map (%d encodes)\n", (t1 - t0) / reps * 1e6, reps);
    cudaFree(buf);

    wg_case_t t = base(CUDNN_DATA_HALF, 4, 256, 256, 14, 14, 3, 3, 1);
    if (!setup(&t))
        return;
    void *x = NULL, *w = NULL, *y = NULL;
    if (cudaMalloc(&x, (size_t)t.xspan * 2) == cudaSuccess && cudaMalloc(&w, (size_t)t.nw * 2) == cudaSuccess &&
        cudaMalloc(&y, (size_t)t.yspan * 2) == cudaSuccess) {
        void *ptr[3] = {x, w, y};
        cudaMemsetAsync(x, 0, (size_t)t.xspan * 2, gm_stream);
        cudaMemsetAsync(w, 0, (size_t)t.nw * 2, gm_stream);
        FD_EXPECT_STATUS(call(gm_cuda, ptr, &t), CUDNN_STATUS_SUCCESS); /* warm-up: attributes, lookups */
        cudaStreamSynchronize(gm_stream);
        printf("host cost: cudnnConvolutionForward (3x3 256->256 14x14 N=4) %.2f us per call (enqueue), ran %s\n",
               call_cost_us(&t, ptr), gm_last_impl[0] ? gm_last_impl : "?");
    }
    cudaFree(x);
    cudaFree(w);
    cudaFree(y);
    teardown(&t);
}

/* Kernel launches of one strided backward data call (t: dir 1, stride 2), counted by capturing
 * the call on gm_cuda's stream into a CUDA graph; prints them and the host cost per call (200
 * enqueued calls). want > 0: the count must be want; want < 0: more than -want (the per-class
 * launches); checked on sm_90 only (elsewhere the wgmma rows decline). */
/* Real fill i of t into device buffer dev. */
static void fill_device(wg_case_t *t, int i, void *dev, size_t bytes)
{
    void *h = malloc(bytes);
    if (!h)
        abort();
    fill(i, h, bytes, t);
    FD_EXPECT(cudaMemcpy(dev, h, bytes, cudaMemcpyHostToDevice) == cudaSuccess, "cudaMemcpy to the device");
    free(h);
}

/* The file dx of launch case `idx` goes to (the parent's pid names it: the child "3" reads it). */
static void bits_path(char *path, size_t size, int idx, int child)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, size, "%s/fd_wgmma_dgrad_bits_%ld_%d", dir && dir[0] ? dir : "/tmp",
             (long)(child ? getppid() : getpid()), idx);
}

/* dx (bytes at host h) of launch case idx: the parent (grouped / MN-major paths) writes it, the
 * child "3" (per-class launches, the transpose) must have the same bits on the same real fills. */
static void bits_check(const void *h, size_t bytes, int idx, int child, const char *what)
{
    char path[512];
    bits_path(path, sizeof path, idx, child);
    FILE *f = fopen(path, child ? "rb" : "wb");
    if (!f) {
        printf("note: %s: %s not %s; bits not compared\n", what, path, child ? "found" : "writable");
        return;
    }
    if (!child) {
        FD_EXPECT(fwrite(h, 1, bytes, f) == bytes, "writing %s", path);
        fclose(f);
        return;
    }
    unsigned char *o = malloc(bytes + 1);
    if (!o)
        abort();
    const size_t got = fread(o, 1, bytes + 1, f);
    fclose(f);
    FD_EXPECT(got == bytes && memcmp(o, h, bytes) == 0,
              "%s: dx differs from the grouped / MN-major run's bits (real fills)", what);
    free(o);
}

static int launch_idx; /* the launch case's index, the same sequence in the parent and child "3" */

static void strided_launches(wg_case_t t, int want)
{
    if (!setup(&t))
        return;
    const size_t es = fd_test_dtype_size(t.dt);
    t.ws = gm_conv_workspace(gm_cuda, 1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, t.xd, t.wd, t.cd, t.yd);
    void *dy = NULL, *w = NULL, *dx = NULL, *ws = NULL;
    const int idx = launch_idx++;
    if (cudaMalloc(&dy, (size_t)t.yspan * es) == cudaSuccess && cudaMalloc(&w, (size_t)t.nw * es) == cudaSuccess &&
        cudaMalloc(&dx, (size_t)t.xspan * es) == cudaSuccess && cudaMalloc(&ws, t.ws + 256) == cudaSuccess) {
        void *ptr[4] = {dy, w, dx, ws};
        t.exact = 0; /* real fills: the bit comparison between the paths means something */
        fill_device(&t, 0, dy, (size_t)t.yspan * es);
        fill_device(&t, 1, w, (size_t)t.nw * es);
        /* gm_stream does not wait for the legacy stream, where a cudaMemset (and the fills'
         * copies' last DMA) could land after the call's writes (the H200 tier, 2026-12-04: one
         * case's dx differed from the other paths' bits): the zeros on the calls' stream, then
         * the whole device idle before the call */
        cudaMemsetAsync(dx, 0, (size_t)t.xspan * es, gm_stream);
        FD_EXPECT(cudaDeviceSynchronize() == cudaSuccess, "the fills failed on the GPU");
        FD_EXPECT_STATUS(call(gm_cuda, ptr, &t), CUDNN_STATUS_SUCCESS); /* warm-up: attributes, lookups */
        FD_EXPECT(cudaStreamSynchronize(gm_stream) == cudaSuccess, "strided backward data failed on the GPU");
        {
            void *h = malloc((size_t)t.xspan * es);
            if (!h)
                abort();
            FD_EXPECT(cudaMemcpy(h, dx, (size_t)t.xspan * es, cudaMemcpyDeviceToHost) == cudaSuccess,
                      "cudaMemcpy of dx");
            char what[128];
            snprintf(what, sizeof what, "bwd_data %s n%d c%d k%d %dx%d f%dx%d s%d", fd_test_dtype_short(t.dt), t.n,
                     t.c, t.k, t.h, t.w, t.r, t.s, t.u > 1 ? t.u : 1);
            if (on_sm90)
                bits_check(h, (size_t)t.xspan * es, idx, getenv("FD_WGMMA_TEST_CHILD") != NULL, what);
            free(h);
        }
        cudaGraph_t g = NULL;
        size_t nodes = 0;
        FD_EXPECT(cudaStreamBeginCapture(gm_stream, cudaStreamCaptureModeRelaxed) == cudaSuccess,
                  "cudaStreamBeginCapture");
        const cudnnStatus_t st = call(gm_cuda, ptr, &t);
        FD_EXPECT(cudaStreamEndCapture(gm_stream, &g) == cudaSuccess && g != NULL, "cudaStreamEndCapture");
        FD_EXPECT_STATUS(st, CUDNN_STATUS_SUCCESS);
        if (g != NULL) { /* the kernel nodes (a memset or copy would be a node too) */
            cudaGraphNode_t nd[64];
            size_t nn = 64;
            FD_EXPECT(cudaGraphGetNodes(g, nd, &nn) == cudaSuccess, "cudaGraphGetNodes");
            for (size_t i = 0; i < nn && i < 64; i++) {
                enum cudaGraphNodeType ty;
                if (cudaGraphNodeGetType(nd[i], &ty) == cudaSuccess && ty == cudaGraphNodeTypeKernel)
                    nodes++;
            }
            cudaGraphDestroy(g);
        }
        printf("launches: bwd_data %s n%d c%d k%d %dx%d f%dx%d s%d: %zu kernels, %.2f us per call (enqueue), ran %s\n",
               fd_test_dtype_short(t.dt), t.n, t.c, t.k, t.h, t.w, t.r, t.s, t.u, nodes, call_cost_us(&t, ptr),
               gm_last_impl[0] ? gm_last_impl : "?");
        if (on_sm90 && want > 0)
            FD_EXPECT(nodes == (size_t)want, "strided backward data: %zu kernel launches, expected %d", nodes, want);
        if (on_sm90 && want < 0)
            FD_EXPECT(nodes > (size_t)-want, "strided backward data: %zu kernel launches, expected more than %d",
                      nodes, -want);
    }
    cudaFree(dy);
    cudaFree(w);
    cudaFree(dx);
    cudaFree(ws);
    teardown(&t);
}

/* The launch counts of backward data. sw 1 (the parent): every switch on, 1 launch (the
 * gather-free grouped strided launch, the stride-1 MN-major filter read, tf32's producer-loaded
 * B); 0 (child "3": FREEDNN_WGMMA_DGRAD_GROUPED, _TNSP and _TF32_1L off, and the staged
 * epilogue, FREEDNN_WGMMA_STAGED_EPILOGUE): the transpose / per-class launches, y stored by
 * pairs from the fragments; 4 (child "4": FREEDNN_WGMMA_DGRAD_NOGATHER and _TF32_1L off): the
 * grouped launch after its gather, tf32's transpose + GEMM. Each case's dx bits (real fills) are
 * the parent's in every child (bits_check). */
static void strided_launch_cases(int sw)
{
    const int one = sw == 1 ? 1 : sw == 4 ? 2 : -2; /* strided; stride-1 FLOAT: 1 or 2 */
    wg_case_t s1 = base(CUDNN_DATA_HALF, 4, 256, 256, 14, 14, 3, 3, 1);
    s1.dir = 1;
    strided_launches(s1, sw ? 1 : -1); /* stride 1: the GEMM alone, else transpose + GEMM */
    s1 = base(CUDNN_DATA_BFLOAT16, 2, 64, 64, 56, 56, 1, 1, 0);
    s1.dir = 1;
    strided_launches(s1, sw ? 1 : -1);
    s1 = base(CUDNN_DATA_FLOAT, 4, 256, 256, 14, 14, 3, 3, 1);
    s1.dir = 1;
    strided_launches(s1, sw == 1 ? 1 : 2); /* tf32: the producers' B, else transpose + GEMM */
    s1 = base(CUDNN_DATA_FLOAT, 2, 320, 64, 9, 9, 3, 3, 1); /* BN 256 (C = 320) */
    s1.dir = 1, s1.mode = CUDNN_CONVOLUTION;
    strided_launches(s1, sw == 1 ? 1 : 2);
    wg_case_t t = base(CUDNN_DATA_HALF, 1, 64, 64, 14, 14, 3, 3, 1);
    t.dir = 1, t.u = 2;
    strided_launches(t, one); /* per class: 1 + 4 x 2 */
    t = base(CUDNN_DATA_HALF, 2, 256, 512, 28, 28, 1, 1, 0);
    t.dir = 1, t.u = 2;
    strided_launches(t, one); /* per class: 1 + 2 + 3 blends */
    t = base(CUDNN_DATA_FLOAT, 1, 64, 64, 14, 14, 3, 3, 1);
    t.dir = 1, t.u = 2;
    strided_launches(t, one);
    t = base(CUDNN_DATA_FLOAT, 2, 36, 64, 11, 9, 3, 3, 1); /* C = 36: partial tile, odd sizes */
    t.dir = 1, t.u = 2, t.mode = CUDNN_CONVOLUTION, t.alpha = -2.0, t.beta = 1.0;
    strided_launches(t, one);
    /* CUDNN_CONVOLUTION (the views' flipped base taps), odd sizes (classes of 3x3 / 1x3 / 3x1 /
     * 1x1 positions... of 2x2 / 2x1 / 1x2 / 1x1 taps), alpha / beta over dx */
    t = base(CUDNN_DATA_BFLOAT16, 2, 64, 128, 13, 11, 3, 3, 1);
    t.dir = 1, t.u = 2, t.mode = CUDNN_CONVOLUTION, t.alpha = 0.5, t.beta = 0.25;
    strided_launches(t, one);
    t = base(CUDNN_DATA_HALF, 1, 72, 64, 12, 9, 5, 3, 2);
    t.dir = 1, t.u = 2, t.mode = CUDNN_CONVOLUTION, t.pad_w = 1;
    strided_launches(t, one);
    /* ResNet-50's 3x3 stride-2 layer of 28x28 input at N = 2 */
    t = base(CUDNN_DATA_HALF, 2, 256, 256, 28, 28, 3, 3, 1);
    t.dir = 1, t.u = 2;
    strided_launches(t, one);
}

/* How the tf32 row turns its float inputs into TF32, on the device: x = 1 + 3 * 2^-12 (bits
 * below TF32's 10-bit mantissa), w = 1, C = 32, so y = 32 * tf32(x): 32 when the low bits are
 * dropped (truncation), 32.03125 when rounded to nearest (cvt.rna, the mma.sync row's way),
 * 32.0234375 for full float (not TF32 at all: a failure). Prints which. */
static void tf32_probe(void)
{
    wg_case_t t = base(CUDNN_DATA_FLOAT, 1, 32, 8, 1, 8, 1, 1, 0);
    if (!setup(&t))
        return;
    float hx[256], hw[256], hy[64];
    for (int i = 0; i < 256; i++)
        hx[i] = 1.0f + 3.0f * 0x1p-12f, hw[i] = 1.0f;
    void *x = NULL, *w = NULL, *y = NULL;
    if (cudaMalloc(&x, sizeof hx) == cudaSuccess && cudaMalloc(&w, sizeof hw) == cudaSuccess &&
        cudaMalloc(&y, sizeof hy) == cudaSuccess &&
        cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice) == cudaSuccess &&
        cudaMemcpy(w, hw, sizeof hw, cudaMemcpyHostToDevice) == cudaSuccess) {
        void *ptr[3] = {x, w, y};
        FD_EXPECT_STATUS(call(gm_cuda, ptr, &t), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(cudaStreamSynchronize(gm_stream) == cudaSuccess, "the tf32 probe failed on the GPU");
        FD_EXPECT(cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost) == cudaSuccess, "tf32 probe copy-back");
        const char *how = hy[0] == 32.0f ? "truncation (low 13 mantissa bits dropped)"
                          : hy[0] == 32.03125f ? "round to nearest"
                                               : "NOT TF32";
        printf("tf32 probe: %s computed 32 x (1 + 3 * 2^-12) as %.9g: %s\n",
               gm_last_impl[0] ? gm_last_impl : "?", (double)hy[0], how);
        if (on_sm90) {
            FD_EXPECT(strcmp(gm_last_impl, WG_TF32_ROW) == 0, "tf32 probe: dispatch ran %s, expected %s",
                      gm_last_impl[0] ? gm_last_impl : "(nothing logged)", WG_TF32_ROW);
            FD_EXPECT(hy[0] == 32.0f || hy[0] == 32.03125f,
                      "tf32 probe: %.9g is neither TF32 result (32: truncated, 32.03125: rounded)", (double)hy[0]);
        }
    }
    cudaFree(x);
    cudaFree(w);
    cudaFree(y);
    teardown(&t);
}

static void grouped_cases(cudnnDataType_t dt);
static void resnet_s2_cases(cudnnDataType_t dt, int dir);
static void tf32_dgrad_cases(void);

/* The children. "1": FREEDNN_WGMMA=0, so the rows must decline and another row run the call.
 * "2": NVIDIA_TF32_OVERRIDE=0, so FLOAT must leave the tf32 rows (plain float: the exact fill
 * is exact whichever row runs) while HALF still takes the f16 row. "3":
 * FREEDNN_WGMMA_DGRAD_GROUPED=0: the grouped strided backward data cases on the per-class
 * launches (against ref, and more than 2 launches per call). */
/* 1 when the current device is compute capability 9.0 (the children's on_sm90). */
static int device_sm90(void)
{
    int dev = 0, major = 0, minor = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    return major == 9 && minor == 0;
}

static int child_main(int argc, char **argv, const char *which)
{
    const int tf32_off = strcmp(which, "2") == 0;
    gm_init(argc, argv,
            tf32_off                  ? "test_gpu_conv_wgmma (child, NVIDIA_TF32_OVERRIDE=0)"
            : strcmp(which, "3") == 0 ? "test_gpu_conv_wgmma (child, FREEDNN_WGMMA_DGRAD_GROUPED=0 "
                                        "_TNSP=0 _TF32_1L=0 _STAGED_EPILOGUE=0)"
            : strcmp(which, "4") == 0
                ? "test_gpu_conv_wgmma (child, FREEDNN_WGMMA_DGRAD_NOGATHER=0 _TF32_1L=0)"
                : "test_gpu_conv_wgmma (child, FREEDNN_WGMMA=0)");
    gm_watch_dispatch();
    if (tf32_off) {
        on_sm90 = device_sm90();
        run_case(base(CUDNN_DATA_HALF, 2, 64, 128, 9, 11, 3, 3, 1), 1);
        run_case(base(CUDNN_DATA_FLOAT, 2, 64, 128, 9, 11, 3, 3, 1), 0);
        wg_case_t t = base(CUDNN_DATA_FLOAT, 2, 32, 64, 9, 11, 3, 3, 1);
        t.math = CUDNN_TENSOR_OP_MATH, t.dir = 1;
        run_case(t, 0);
    } else if (strcmp(which, "4") == 0) {
        on_sm90 = device_sm90();
        /* the grouped strided launch after its sub-filter gather (the parent: the filter views),
         * tf32 stride 1 after the transpose (the parent: the producers' B) */
        grouped_cases(CUDNN_DATA_HALF);
        grouped_cases(CUDNN_DATA_BFLOAT16);
        grouped_cases(CUDNN_DATA_FLOAT);
        tf32_dgrad_cases();
        strided_launch_cases(4);
        if (!gm_smoke)
            resnet_s2_cases(CUDNN_DATA_HALF, 1);
    } else if (strcmp(which, "3") == 0) {
        on_sm90 = device_sm90();
        grouped_cases(CUDNN_DATA_HALF);
        grouped_cases(CUDNN_DATA_FLOAT);
        /* stride 1 with the transpose launch */
        wg_case_t t = base(CUDNN_DATA_HALF, 2, 64, 128, 9, 11, 3, 3, 1);
        t.dir = 1;
        run_case(t, 1);
        t = base(CUDNN_DATA_BFLOAT16, 2, 136, 128, 8, 10, 3, 2, 0), t.dir = 1;
        t.mode = CUDNN_CONVOLUTION, t.pad_w = 1, t.alpha = -2.0, t.beta = 1.0;
        run_case(t, 1);
        strided_launch_cases(0);
        t = base(CUDNN_DATA_BFLOAT16, 1, 64, 64, 14, 14, 3, 3, 1);
        t.dir = 1, t.u = 2;
        run_case(t, 1);
    } else {
        run_case(base(CUDNN_DATA_HALF, 2, 64, 128, 9, 11, 3, 3, 1), 0);
        run_case(base(CUDNN_DATA_FLOAT, 2, 64, 128, 9, 11, 3, 3, 1), 0);
    }
    return gm_finish();
}

/* The environment of child `which` (on top of the parent's, main's). */
static void child_env(const char *which)
{
    if (strcmp(which, "2") == 0)
        setenv("NVIDIA_TF32_OVERRIDE", "0", 1);
    else if (strcmp(which, "3") == 0)
        setenv("FREEDNN_WGMMA_DGRAD_GROUPED", "0", 1), setenv("FREEDNN_WGMMA_DGRAD_TNSP", "0", 1),
            setenv("FREEDNN_WGMMA_DGRAD_TF32_1L", "0", 1),
            setenv("FREEDNN_WGMMA_STAGED_EPILOGUE", "0", 1);
    else if (strcmp(which, "4") == 0)
        setenv("FREEDNN_WGMMA_DGRAD_NOGATHER", "0", 1), setenv("FREEDNN_WGMMA_DGRAD_TF32_1L", "0", 1);
    else
        setenv("FREEDNN_WGMMA", "0", 1);
}

/* Runs child `which` and waits for it. FD_GPU_CHILDREN_APART=1 leaves it to the caller, who
 * starts it as FD_WGMMA_TEST_CHILD=which (tests/gpu/run.sh's racecheck: the children under the
 * tool one after the other took more than one device command's 600 s). */
static void run_child(char **argv, const char *which)
{
    if (getenv("FD_GPU_CHILDREN_APART") != NULL) {
        printf("child %s: run apart (FD_GPU_CHILDREN_APART)\n", which);
        return;
    }
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        child_env(which);
        setenv("FD_WGMMA_TEST_CHILD", which, 1);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    int status = 0;
    FD_EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/waitpid of the child failed");
    FD_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "the child with %s failed (status 0x%x)",
              strcmp(which, "2") == 0 ? "NVIDIA_TF32_OVERRIDE=0"
              : strcmp(which, "3") == 0
                  ? "FREEDNN_WGMMA_DGRAD_GROUPED=0 _TNSP=0 _TF32_1L=0 _STAGED_EPILOGUE=0"
              : strcmp(which, "4") == 0 ? "FREEDNN_WGMMA_DGRAD_NOGATHER=0 _TF32_1L=0"
                                        : "FREEDNN_WGMMA=0",
              status);
}

/* ResNet-50 (v1.5) stride-2 layers at N = 2 in direction dir (x or dx = the layer's input): all
 * six in HALF (exact and real fills alternating), two (real) in the other types. */
static void resnet_s2_cases(cudnnDataType_t dt, int dir)
{
    static const int layers[6][5] = {
        /* C, K, H, R, pad */
        {128, 128, 56, 3, 1}, {256, 256, 28, 3, 1}, {512, 512, 14, 3, 1},
        {256, 512, 56, 1, 0}, {512, 1024, 28, 1, 0}, {1024, 2048, 14, 1, 0},
    };
    const int half = dt == CUDNN_DATA_HALF;
    for (int l = 0; l < 6; l++) {
        if (!half && l != 1 && l != 5)
            continue;
        const int *ly = layers[l];
        wg_case_t t = base(dt, 2, ly[0], ly[1], ly[2], ly[2], ly[3], ly[3], ly[4]);
        t.dir = dir, t.u = 2;
        t.exact = half ? l % 2 == 0 : 0;
        run_case(t, 1);
    }
}

/* Strided backward data (ALGO_1: fd_conv_bwd_data_tc_strided): each residue class is a stride-1
 * sub-problem, run on the wgmma backward data rows where they take it (on sm_90: K % 64 for
 * 16-bit, K % 32 for FLOAT, pad' <= R' - 1) and on the mma.sync row otherwise. The dispatch log
 * names the strided row either way; these check the results of the routed residues against
 * ref. ResNet-50 (v1.5) stride-2 layers at N = 2 (dx = the layer's input), then small shapes
 * mixing wgmma residues, mma.sync residues (3x3 pad 2: residue 1 has pad' > R' - 1) and
 * tap-less residues (1x1 pad 1). */
/* Strided backward data shapes for the grouped launch (2x2 strides: every class in one wgmma
 * launch after one transposing gather, FREEDNN_WGMMA_DGRAD_GROUPED; the child "3" runs them with
 * it off, the per-class launches): the host-cost layer n1c64h14w14k64 3x3 s2, odd sizes whose
 * classes differ in size and tap count (classes mixing [M][C] and tap boxes), a class without
 * positions (H = 1), 1x1 s2 (three tap-less classes blended in the epilogue), CONVOLUTION mode,
 * alpha/beta over dx (NaN poison under beta 0), padded dx pixels, BN 128 and BN 256 (C). */
static void grouped_cases(cudnnDataType_t dt)
{
    wg_case_t t;
    t = base(dt, 1, 64, 64, 14, 14, 3, 3, 1), t.dir = 1, t.u = 2;
    run_case(t, 1);
    t = base(dt, 2, 64, 128, 13, 11, 3, 3, 1), t.dir = 1, t.u = 2;
    t.alpha = 0.5, t.beta = 0.25;
    run_case(t, 1);
    t = base(dt, 3, 8, 64, 1, 9, 3, 3, 1), t.dir = 1, t.u = 2; /* H = 1: residue row 1 empty */
    run_case(t, 1);
    t = base(dt, 2, 16, 64, 9, 7, 1, 1, 0), t.dir = 1, t.u = 2; /* three tap-less classes */
    t.alpha = -2.0, t.beta = 1.0;
    run_case(t, 1);
    t = base(dt, 2, 16, 64, 9, 7, 1, 1, 0), t.dir = 1, t.u = 2;
    run_case(t, 1);
    t = base(dt, 2, 136, 64, 9, 10, 3, 3, 1), t.dir = 1, t.u = 2; /* BN 128, partial column tile */
    t.mode = CUDNN_CONVOLUTION, t.xlay = X_PIXPAD, t.alpha = 0.5, t.beta = 0.25;
    run_case(t, 1);
    t = base(dt, 2, 264, 64, 7, 7, 3, 3, 1), t.dir = 1, t.u = 2; /* BN 256 */
    t.exact = dt != CUDNN_DATA_FLOAT;
    run_case(t, 1);
    t = base(dt, 2, 24, 64, 11, 9, 3, 3, 2), t.dir = 1, t.u = 2; /* one class on mma.sync: no group */
    run_case(t, 1);
}

static void strided_cases(void)
{
    const cudnnDataType_t dts[3] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT};
    wg_case_t t;
    for (int di = 0; di < 3; di++) {
        const cudnnDataType_t dt = dts[di];
        grouped_cases(dt);
        t = base(dt, 2, 8, 64, 9, 11, 3, 3, 1), t.dir = 1, t.u = 2;
        run_case(t, 1);
        t = base(dt, 2, 16, 128, 10, 7, 1, 1, 0), t.dir = 1, t.u = 2;
        t.alpha = 0.5, t.beta = 0.25, t.math = CUDNN_TENSOR_OP_MATH;
        run_case(t, 1);
        if (gm_smoke)
            continue;
        t = base(dt, 2, 24, 64, 11, 9, 3, 3, 2), t.dir = 1, t.u = 2; /* residue 1: mma.sync */
        t.mode = CUDNN_CONVOLUTION, t.alpha = -2.0, t.beta = 1.0;
        run_case(t, 1);
        t = base(dt, 2, 16, 64, 9, 9, 5, 5, 2), t.dir = 1, t.u = 2;
        t.xlay = X_PIXPAD;
        run_case(t, 1);
        t = base(dt, 3, 8, 64, 7, 8, 1, 1, 1), t.dir = 1, t.u = 2; /* tap-less and mma.sync */
        run_case(t, 1);
        t = base(dt, 2, 8, 64, 13, 10, 3, 3, 1), t.dir = 1, t.u = 3;
        t.alpha = 0.5, t.beta = 0.25;
        run_case(t, 1);
        resnet_s2_cases(dt, 1);
    }
}

/* Strided forward on the wgmma rows: the tap boxes step the stride with TMA element strides.
 * Odd extents (a last box past x's edge, zero-filled), output extents of 1 (unit element
 * stride), stride 3, 5x5 pad 2 with padded x pixels and NCHW y, both modes, alpha/beta, then
 * ResNet-50's stride-2 layers at N = 2 (x = the layer's input), in f16, bf16 and FLOAT as TF32.
 * Declined: x narrower than one stride step while the output has two pixels (the boxes stay
 * inside x), which the mma.sync row serves. */
static void strided_fwd_cases(void)
{
    const cudnnDataType_t dts[3] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT};
    wg_case_t t;
    for (int di = 0; di < 3; di++) {
        const cudnnDataType_t dt = dts[di];
        t = base(dt, 2, 64, 64, 9, 11, 3, 3, 1), t.u = 2;
        run_case(t, 1);
        t = base(dt, 2, 64, 128, 10, 7, 1, 1, 0), t.u = 2;
        t.alpha = 0.5, t.beta = 0.25;
        run_case(t, 1);
        if (gm_smoke)
            continue;
        t = base(dt, 3, 64, 72, 7, 7, 3, 3, 1), t.u = 2; /* Q = 4 over W = 7: boxes of 3 */
        t.mode = CUDNN_CONVOLUTION, t.alpha = -2.0, t.beta = 1.0;
        run_case(t, 1);
        t = base(dt, 2, 64, 64, 3, 3, 3, 3, 1), t.u = 2; /* one-pixel boxes */
        run_case(t, 1);
        t = base(dt, 2, 64, 64, 2, 9, 3, 3, 1), t.u = 2; /* P = 1: unit step along H */
        run_case(t, 1);
        t = base(dt, 2, 64, 64, 13, 10, 3, 3, 1), t.u = 3;
        run_case(t, 1);
        t = base(dt, 2, 64, 96, 11, 9, 5, 5, 2), t.u = 2;
        t.xlay = X_PIXPAD, t.ylay = Y_NCHW, t.alpha = 0.5, t.beta = 0.25;
        run_case(t, 1);
        t = base(dt, 2, 64, 264, 9, 8, 1, 1, 0), t.u = 2;
        t.xlay = X_ROWPAD, t.ylay = Y_PADDED, t.exact = 0;
        run_case(t, 1);
        t = base(dt, 2, 64, 64, 5, 1, 1, 1, 1), t.u = 2; /* W = 1 < stride, Q = 2: declined */
        run_case(t, 0);
        resnet_s2_cases(dt, 0);
    }
}

/* Stride-1 backward data as TF32 (K % 32, C % 4): one launch, the producers loading B from the
 * filter (FREEDNN_WGMMA_DGRAD_TF32_1L, on in the parent), or the transpose launch + GEMM (child
 * "4"): 3x3 pad 1 and a 1x1 with beta, then filters, C = 4 and C = 132 (partial column tiles),
 * BN 256 (C = 320), modes, layouts, ResNet-50. */
static void tf32_dgrad_cases(void)
{
    const cudnnDataType_t F = CUDNN_DATA_FLOAT;
    const cudnnMathType_t T = CUDNN_TENSOR_OP_MATH, A = CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    wg_case_t t;
    t = base(F, 2, 64, 128, 9, 11, 3, 3, 1), t.dir = 1;
    run_case(t, 1);
    t = base(F, 3, 36, 96, 7, 9, 1, 1, 0), t.dir = 1;
    t.math = T, t.alpha = 0.5, t.beta = 0.25;
    run_case(t, 1);
    if (gm_smoke)
        return;
    t = base(F, 3, 256, 64, 10, 6, 3, 3, 0), t.dir = 1;
    run_case(t, 1);
    t = base(F, 2, 4, 32, 7, 6, 5, 5, 2), t.dir = 1;
    run_case(t, 1);
    t = base(F, 2, 132, 64, 8, 10, 3, 2, 0), t.dir = 1;
    t.mode = CUDNN_CONVOLUTION, t.pad_w = 1, t.alpha = -2.0, t.beta = 1.0, t.math = A;
    run_case(t, 1);
    t = base(F, 2, 320, 64, 9, 9, 3, 3, 1), t.dir = 1; /* BN 256, a partial column tile */
    t.alpha = 0.5, t.beta = 0.25;
    run_case(t, 1);
    t = base(F, 2, 64, 320, 9, 9, 3, 3, 1), t.dir = 1;
    t.mode = CUDNN_CONVOLUTION;
    run_case(t, 1);
    t = base(F, 2, 64, 96, 9, 10, 3, 3, 1), t.dir = 1;
    t.ylay = Y_PADDED, t.xlay = X_PIXPAD, t.alpha = 0.5, t.beta = 0.25;
    run_case(t, 1);
    t = base(F, 2, 64, 64, 56, 56, 3, 3, 1), t.dir = 1;
    run_case(t, 1);
    t = base(F, 4, 256, 256, 14, 14, 3, 3, 1), t.dir = 1, t.exact = 0, t.math = T;
    run_case(t, 1);
    t = base(F, 2, 64, 256, 56, 56, 1, 1, 0), t.dir = 1, t.exact = 0;
    run_case(t, 1);
}

/* FLOAT as TF32 (the tf32 rows): the f16 program's shapes with C and K of the float k-block
 * (32 channels) and chunk (4), the three math types that allow TF32, then the declines. */
static void tf32_cases(void)
{
    const cudnnDataType_t F = CUDNN_DATA_FLOAT;
    const cudnnMathType_t T = CUDNN_TENSOR_OP_MATH, A = CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    wg_case_t t;
    /* 1x1 with one k-block (C = 32), partial M and N tiles, beta; 3x3 pad 1 and pad 0 with
     * 2 and 3 k-blocks per tap */
    t = base(F, 3, 32, 192, 7, 9, 1, 1, 0);
    t.alpha = 0.5, t.beta = 0.25;
    run_case(t, 1);
    t = base(F, 2, 64, 128, 9, 11, 3, 3, 1);
    t.math = T;
    run_case(t, 1);
    t = base(F, 3, 96, 256, 10, 6, 3, 3, 0);
    t.math = A, t.alpha = 0.5, t.beta = 0.25;
    run_case(t, 1);
    tf32_dgrad_cases();
    if (gm_smoke)
        return;
    /* 5x5 pad 2 with five images per tile; 1x1 K = 320 (BN 256 partial tile), 5 k-blocks */
    run_case(base(F, 5, 32, 64, 5, 4, 5, 5, 2), 1);
    t = base(F, 2, 160, 320, 9, 7, 1, 1, 0);
    t.math = A, t.alpha = 0.5, t.beta = 0.25;
    run_case(t, 1);
    /* K tails of each BN: 4 and 44 (BN 64), 68 (BN 128), 260 (BN 256) */
    run_case(base(F, 1, 32, 4, 5, 7, 3, 3, 1), 1);
    run_case(base(F, 3, 64, 44, 11, 13, 3, 3, 1), 1);
    t = base(F, 2, 128, 68, 13, 5, 1, 1, 0);
    t.math = T;
    run_case(t, 1);
    run_case(base(F, 2, 32, 260, 9, 9, 3, 3, 1), 1);
    /* convolution mode, asymmetric filter and pads, wide padding */
    t = base(F, 2, 64, 96, 10, 9, 3, 3, 1);
    t.mode = CUDNN_CONVOLUTION;
    run_case(t, 1);
    t = base(F, 2, 32, 64, 8, 10, 3, 2, 0);
    t.mode = CUDNN_CONVOLUTION, t.pad_w = 1, t.math = A;
    t.alpha = -2.0, t.beta = 1.0;
    run_case(t, 1);
    t = base(F, 1, 32, 256, 6, 7, 5, 5, 2);
    t.mode = CUDNN_CONVOLUTION;
    run_case(t, 1);
    run_case(base(F, 2, 64, 64, 6, 6, 1, 1, 1), 1);
    run_case(base(F, 2, 32, 128, 7, 5, 3, 3, 2), 1);
    /* layouts: y NCHW (scalar stores), channel-padded y, x with padded pixel strides and rows */
    t = base(F, 2, 64, 96, 9, 9, 3, 3, 1);
    t.ylay = Y_NCHW;
    run_case(t, 1);
    t = base(F, 2, 128, 80, 7, 9, 1, 1, 0);
    t.ylay = Y_NCHW, t.alpha = 0.5, t.beta = 0.25;
    run_case(t, 1);
    t = base(F, 2, 32, 128, 9, 10, 3, 3, 1);
    t.ylay = Y_PADDED, t.xlay = X_PIXPAD, t.alpha = 0.5, t.beta = 0.25;
    run_case(t, 1);
    t = base(F, 3, 128, 64, 7, 9, 1, 1, 0);
    t.xlay = X_PIXPAD, t.math = T;
    run_case(t, 1);
    t = base(F, 3, 96, 256, 7, 9, 1, 1, 0);
    t.xlay = X_ROWPAD, t.ylay = Y_PADDED;
    run_case(t, 1);
    /* real data under the TF32 bound: small shapes of both modes and every math type */
    t = base(F, 2, 64, 96, 12, 12, 3, 3, 1);
    t.exact = 0;
    run_case(t, 1);
    t = base(F, 3, 96, 72, 9, 7, 3, 3, 1);
    t.exact = 0, t.math = T, t.mode = CUDNN_CONVOLUTION, t.alpha = 0.5, t.beta = 0.25;
    run_case(t, 1);
    t = base(F, 2, 32, 264, 8, 8, 1, 1, 0);
    t.exact = 0, t.math = A;
    run_case(t, 1);
    /* ResNet-50 stride-1 layers at N = 2..4, NHWC x and y */
    t = base(F, 2, 64, 64, 56, 56, 3, 3, 1);
    run_case(t, 1);
    t = base(F, 3, 128, 128, 28, 28, 3, 3, 1), t.exact = 0;
    run_case(t, 1);
    t = base(F, 4, 256, 256, 14, 14, 3, 3, 1), t.math = T;
    run_case(t, 1);
    t = base(F, 4, 512, 512, 7, 7, 3, 3, 1), t.exact = 0;
    run_case(t, 1);
    t = base(F, 2, 256, 64, 56, 56, 1, 1, 0);
    run_case(t, 1);
    t = base(F, 4, 1024, 256, 14, 14, 1, 1, 0), t.exact = 0, t.math = A;
    run_case(t, 1);
    t = base(F, 2, 64, 256, 56, 56, 1, 1, 0);
    t.exact = 0, t.alpha = 0.5, t.beta = 0.25;
    run_case(t, 1);
    /* declined: FMA_MATH (plain float), C % 32 != 0 (the mma.sync row), K % 32 != 0 backward */
    t = base(F, 2, 64, 128, 9, 11, 3, 3, 1);
    t.math = CUDNN_FMA_MATH;
    run_case(t, 0);
    t = base(F, 2, 64, 128, 9, 11, 3, 3, 1);
    t.math = CUDNN_FMA_MATH, t.exact = 0;
    run_case(t, 0);
    t.dir = 1;
    run_case(t, 0);
    run_case(base(F, 2, 48, 64, 9, 11, 3, 3, 1), 0);
    t = base(F, 2, 64, 48, 9, 11, 3, 3, 1), t.dir = 1;
    run_case(t, 0);
}

int main(int argc, char **argv)
{
    char child[8] = ""; /* a copy: the setenv calls below may move the environment */
    if (getenv("FD_WGMMA_TEST_CHILD"))
        snprintf(child, sizeof child, "%s", getenv("FD_WGMMA_TEST_CHILD"));
    unsetenv("FREEDNN_WGMMA");
    unsetenv("FREEDNN_WGMMA_DGRAD"); /* both rows are on by default */
    unsetenv("FREEDNN_WGMMA_DGRAD_GROUPED"); /* so is the grouped strided launch */
    unsetenv("FREEDNN_WGMMA_DGRAD_TNSP"); /* and stride 1's MN-major filter read */
    unsetenv("FREEDNN_WGMMA_DGRAD_NOGATHER"); /* and the strided one's filter views */
    /* tf32's B loaded by the producers: on by default for small problems only; here always */
    setenv("FREEDNN_WGMMA_DGRAD_TF32_1L", "1", 1);
    unsetenv("NVIDIA_TF32_OVERRIDE"); /* TF32 on for FLOAT under DEFAULT / TENSOR_OP math */
    setenv("FREEDNN_LOG_DISPATCH", "1", 1);
    setenv("FREEDNN_SMALLC", "0", 1); /* C = 4 cases test the wgmma rows, not conv_smallc.cu's */
    if (child[0]) { /* forked by run_child, or started alone (FD_GPU_CHILDREN_APART's caller) */
        child_env(child);
        return child_main(argc, argv, child);
    }
    gm_init(argc, argv, WG_PART == 1 ? "test_gpu_conv_wgmma" : "test_gpu_conv_wgmma_bwd");
    gm_watch_dispatch();
    int dev = 0, major = 0, minor = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    on_sm90 = major == 9 && minor == 0;
    if (!on_sm90)
        printf("note: sm_%d%d is not sm_90: the row declines here, dispatch checks skipped (results still "
               "compared with ref)\n", major, minor);
    const cudnnDataType_t dts[2] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    wg_case_t t;
    for (int di = 0; di < 2 && WG_PART == 1; di++) {
        const cudnnDataType_t dt = dts[di];
        /* the sandbox's check problems: 1x1 partial M/N tiles with beta, 3x3 pad 1 and pad 0,
         * 5x5 pad 2 with five images per tile, 1x1 K = 320 (BN 256 partial tile) */
        t = base(dt, 3, 128, 192, 7, 9, 1, 1, 0);
        t.alpha = 0.5, t.beta = 0.25;
        run_case(t, 1);
        run_case(base(dt, 2, 64, 128, 9, 11, 3, 3, 1), 1);
        t = base(dt, 3, 128, 256, 10, 6, 3, 3, 0);
        t.alpha = 0.5, t.beta = 0.25;
        run_case(t, 1);
        if (gm_smoke)
            continue;
        run_case(base(dt, 5, 64, 64, 5, 4, 5, 5, 2), 1);
        t = base(dt, 2, 192, 320, 9, 7, 1, 1, 0);
        t.alpha = 0.5, t.beta = 0.25;
        run_case(t, 1);
        /* K tails of each BN: 8 and 40 (BN 64), 72 and 136 (BN 128), 264 (BN 256); odd M */
        run_case(base(dt, 1, 64, 8, 5, 7, 3, 3, 1), 1);
        run_case(base(dt, 3, 64, 40, 11, 13, 3, 3, 1), 1);
        run_case(base(dt, 2, 128, 72, 13, 5, 1, 1, 0), 1);
        run_case(base(dt, 3, 64, 136, 7, 11, 3, 3, 1), 1);
        run_case(base(dt, 2, 64, 264, 9, 9, 3, 3, 1), 1);
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
        /* layouts: y NCHW and channel-padded, x with padded pixel strides ([M][C] boxes) and
         * padded rows (4-d boxes even for 1x1) */
        t = base(dt, 2, 64, 96, 9, 9, 3, 3, 1);
        t.ylay = Y_NCHW;
        run_case(t, 1);
        t = base(dt, 2, 128, 80, 7, 9, 1, 1, 0);
        t.ylay = Y_NCHW, t.alpha = 0.5, t.beta = 0.25;
        run_case(t, 1);
        t = base(dt, 2, 64, 128, 9, 10, 3, 3, 1);
        t.ylay = Y_PADDED, t.xlay = X_PIXPAD, t.alpha = 0.5, t.beta = 0.25;
        run_case(t, 1);
        t = base(dt, 3, 128, 64, 7, 9, 1, 1, 0);
        t.xlay = X_PIXPAD;
        run_case(t, 1);
        t = base(dt, 3, 128, 256, 7, 9, 1, 1, 0);
        t.xlay = X_ROWPAD, t.ylay = Y_PADDED;
        run_case(t, 1);
        /* ResNet-50 stride-1 layers at N = 2..4: exact in one type, real in the other */
        const int ex = di == 0;
        t = base(dt, 2, 64, 64, 56, 56, 3, 3, 1), t.exact = ex;
        run_case(t, 1);
        t = base(dt, 3, 128, 128, 28, 28, 3, 3, 1), t.exact = !ex;
        run_case(t, 1);
        t = base(dt, 4, 256, 256, 14, 14, 3, 3, 1), t.exact = ex;
        run_case(t, 1);
        t = base(dt, 4, 512, 512, 7, 7, 3, 3, 1), t.exact = !ex;
        run_case(t, 1);
        t = base(dt, 2, 256, 64, 56, 56, 1, 1, 0), t.exact = ex;
        run_case(t, 1);
        t = base(dt, 4, 1024, 256, 14, 14, 1, 1, 0), t.exact = !ex;
        run_case(t, 1);
        t = base(dt, 4, 256, 256, 14, 14, 3, 3, 1);
        t.exact = 0, t.alpha = 0.5, t.beta = 0.25;
        run_case(t, 1);
        /* more than 4M elements of y: grid of 2048+ blocks, 1x1 64->256 (BN 256) */
        if (di == 0)
            run_case(base(dt, 4, 64, 256, 64, 64, 1, 1, 0), 1);
    }
    if (WG_PART == 1) /* the forward cases and the child with the rows off */
        run_child(argv, "1");
    if (WG_PART == 1)
        return gm_finish();
    /* backward data (stride 1) on the forward row: dy is the forward x with K channels (K % 64),
     * dx its y with C channels (C % 8); padding R-1-pad, both modes, partial tiles, layouts */
    for (int di = 0; di < 2; di++) {
        const cudnnDataType_t dt = dts[di];
        t = base(dt, 2, 64, 128, 9, 11, 3, 3, 1), t.dir = 1;
        run_case(t, 1);
        t = base(dt, 3, 72, 192, 7, 9, 1, 1, 0), t.dir = 1;
        t.alpha = 0.5, t.beta = 0.25;
        run_case(t, 1);
        if (gm_smoke)
            continue;
        t = base(dt, 3, 256, 64, 10, 6, 3, 3, 0), t.dir = 1;
        run_case(t, 1);
        t = base(dt, 2, 8, 64, 7, 6, 5, 5, 2), t.dir = 1;
        run_case(t, 1);
        t = base(dt, 2, 136, 128, 8, 10, 3, 2, 0), t.dir = 1;
        t.mode = CUDNN_CONVOLUTION, t.pad_w = 1, t.alpha = -2.0, t.beta = 1.0;
        run_case(t, 1);
        t = base(dt, 2, 64, 320, 9, 9, 3, 3, 1), t.dir = 1;
        t.mode = CUDNN_CONVOLUTION;
        run_case(t, 1);
        t = base(dt, 2, 64, 128, 9, 10, 3, 3, 1), t.dir = 1;
        t.ylay = Y_PADDED, t.xlay = X_PIXPAD, t.alpha = 0.5, t.beta = 0.25;
        run_case(t, 1);
        t = base(dt, 2, 64, 64, 56, 56, 3, 3, 1), t.dir = 1, t.exact = di == 0;
        run_case(t, 1);
        t = base(dt, 4, 256, 256, 14, 14, 3, 3, 1), t.dir = 1, t.exact = di != 0;
        run_case(t, 1);
        t = base(dt, 2, 64, 256, 56, 56, 1, 1, 0), t.dir = 1, t.exact = 0;
        run_case(t, 1);
    }
    tf32_cases();
    tf32_probe();
    strided_cases();
    strided_launch_cases(1);
    strided_fwd_cases();
    if (!gm_smoke)
        host_cost();
    run_child(argv, "2");
    run_child(argv, "3");
    run_child(argv, "4");
    for (int i = 0; i < launch_idx; i++) { /* the dx files of the bit comparison */
        char path[512];
        bits_path(path, sizeof path, i, 0);
        unlink(path);
    }
    return gm_finish();
}
