/* SPDX-License-Identifier: MIT */
/*
 * compat_block.c - the GPU proof of the binary drop-in (issue 8, item 4; docs/compat.md, "Proof
 * on GPU"): a ResNet-style block, forward and backward, written as an ordinary cuDNN 9
 * application. It is compiled against NVIDIA's cudnn.h and linked against NVIDIA's
 * libcudnn.so.9 and the CUDA runtime; tests/gpu/compat_block.sh runs the same binary once on
 * NVIDIA's library and once, unchanged, with LD_LIBRARY_PATH pointing at freednn
 * (FREEDNN_BACKEND=cuda), and compares the two dumps with `compat_block --compare`.
 *
 * The block (x: N x C x H x W, NCHW float32; both convolutions C -> C, 3x3, pad 1, stride 1):
 *   y1 = conv(x, w1); z1 = BN_train(y1); a1 = relu(z1); y2 = conv(a1, w2); z2 = BN_train(y2);
 *   s = z2 + x (cudnnAddTensor); r = relu(s); p = maxpool 3x3, pad 1, stride 2 (r)
 * and back from a seeded dp: dr = pool bwd; ds = relu bwd; BN2 bwd (dy2, dscale2, dbias2);
 * conv2 bwd filter (dw2) and bwd data (da1); relu bwd (dz1); BN1 bwd (dy1, dscale1, dbias1);
 * conv1 bwd filter (dw1) and bwd data, then dx += ds (the residual's gradient, cudnnAddTensor).
 * Batch norm is CUDNN_BATCHNORM_SPATIAL, epsilon 1e-5, running-average factor 0.1 from running
 * mean 0 and variance 1. With --f16, conv1's three directions also run in half precision (HALF
 * data, FLOAT compute, tensor-op math allowed) on their own seeded inputs.
 *
 * Only classic API calls; the algorithms come from cudnnGet*Algorithm_v7 (the first that
 * succeeds within a 1 GiB workspace), as an application would pick them. f32 convolutions set
 * CUDNN_FMA_MATH: NVIDIA's default math allows TF32 on Ampere and later, whose 10-bit mantissa
 * would swamp the comparison; that is a precision choice of the application, not a difference
 * between the libraries.
 *
 * usage: compat_block [--host] [--f16] [--size N,C,H,W] [--seed S] [--iters K] DUMP
 *        compat_block --compare REF TEST [--tol-scale X]
 * --host: tensors in malloc'ed memory instead of cudaMalloc'ed (the host backends of freednn;
 * how the program is exercised on a machine without a GPU). --iters K: after the dumped run,
 * K more timed runs (median printed). The run prints which cuDNN library the process really
 * uses: the file cudnnCreate@libcudnn.so.9 resolved to (dladdr), every mapped file whose name
 * holds "cudnn" or "freednn" (/proc/self/maps), and freednn's backend when it is freednn.
 *
 * Dump format (native byte order, both runs on one machine): "FDBLOCK1", then per tensor a
 * 32-byte NUL-padded name, u32 dtype (0 float, 1 half), u32 class, u64 element count, the
 * elements. The class sets the tolerance --compare applies, all relative to the reference
 * tensor's largest magnitude (see tol_table).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>
#include <cudnn.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudnnStatus_t s_ = (call);                                                                 \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                          \
            char why_[1024];                                                                       \
            cudnnGetLastErrorString(why_, sizeof why_);                                            \
            fprintf(stderr, "compat_block.c:%d: %s failed: %s (%d)\n  %s\n", __LINE__, #call,      \
                    cudnnGetErrorString(s_), (int)s_, why_);                                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define CUDA_CHECK(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "compat_block.c:%d: %s failed: %s\n", __LINE__, #call,                 \
                    cudaGetErrorString(e_));                                                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* ---- memory: device (cudaMalloc) or, with --host, host ------------------------------------ */

static int host_mode;

static void *mem_alloc(size_t bytes)
{
    void *p = NULL;
    if (host_mode) {
        p = calloc(1, bytes ? bytes : 1);
        if (!p) {
            fprintf(stderr, "compat_block: out of memory (%zu bytes)\n", bytes);
            exit(1);
        }
        return p;
    }
    CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
    CUDA_CHECK(cudaMemset(p, 0, bytes ? bytes : 1));
    return p;
}

static void mem_free(void *p)
{
    if (host_mode)
        free(p);
    else if (p)
        CUDA_CHECK(cudaFree(p));
}

static void upload(void *dst, const void *src, size_t bytes)
{
    if (host_mode)
        memcpy(dst, src, bytes);
    else
        CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}

static void download(void *dst, const void *src, size_t bytes)
{
    if (host_mode)
        memcpy(dst, src, bytes);
    else
        CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}

static void sync_all(void)
{
    if (!host_mode)
        CUDA_CHECK(cudaDeviceSynchronize());
}

/* ---- deterministic inputs ---------------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rng_next(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static float rng_uniform(float lo, float hi) /* [lo, hi) */
{
    return lo + (hi - lo) * (float)((double)(rng_next() >> 40) * (1.0 / 16777216.0));
}

/* A multiple of 1/scale in [-k/scale, k/scale]: exact in half precision for k <= 2048. */
static float rng_grid(int k, float scale)
{
    return (float)((int)(rng_next() % (uint64_t)(2 * k + 1)) - k) / scale;
}

static void *upload_uniform(size_t n, float lo, float hi)
{
    float *h = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        h[i] = rng_uniform(lo, hi);
    void *d = mem_alloc(n * sizeof(float));
    upload(d, h, n * sizeof(float));
    free(h);
    return d;
}

static void *upload_const(size_t n, float v)
{
    float *h = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        h[i] = v;
    void *d = mem_alloc(n * sizeof(float));
    upload(d, h, n * sizeof(float));
    free(h);
    return d;
}

/* float <-> IEEE half bits. float_to_half is only ever given values half holds exactly (the
 * rng_grid values), so truncating the mantissa is exact; half_to_float handles everything. */
static uint16_t float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    if ((x & 0x7fffffffu) == 0)
        return sign;
    int e = (int)((x >> 23) & 0xff) - 127 + 15;
    return (uint16_t)(sign | (uint16_t)(e << 10) | (uint16_t)((x & 0x7fffffu) >> 13));
}

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu, x;
    if (e == 0) {
        float v = ldexpf((float)m, -24);
        return sign ? -v : v;
    }
    if (e == 31)
        x = sign | 0x7f800000u | (m << 13);
    else
        x = sign | ((e - 15 + 127) << 23) | (m << 13);
    float f;
    memcpy(&f, &x, 4);
    return f;
}

static void *upload_grid_half(size_t n, int k, float scale)
{
    uint16_t *h = malloc(n * sizeof(uint16_t));
    for (size_t i = 0; i < n; i++)
        h[i] = float_to_half(rng_grid(k, scale));
    void *d = mem_alloc(n * sizeof(uint16_t));
    upload(d, h, n * sizeof(uint16_t));
    free(h);
    return d;
}

/* ---- the dump ------------------------------------------------------------------------------ */

enum { DT_FLOAT = 0, DT_HALF = 1 };
enum { CL_FWD, CL_BWD, CL_F16, CL_COUNT };
#define DUMP_MAGIC "FDBLOCK1"

static FILE *dump_file;
static int dumped;

static void dump(const char *name, const void *dev, size_t count, int dtype, int klass)
{
    if (!dump_file)
        return;
    size_t es = dtype == DT_HALF ? 2 : 4;
    void *h = malloc(count * es);
    sync_all();
    download(h, dev, count * es);
    char nm[32] = {0};
    snprintf(nm, sizeof nm, "%s", name);
    uint32_t u[2] = {(uint32_t)dtype, (uint32_t)klass};
    uint64_t c = count;
    if (fwrite(nm, 1, 32, dump_file) != 32 || fwrite(u, 4, 2, dump_file) != 2 ||
        fwrite(&c, 8, 1, dump_file) != 1 || fwrite(h, es, count, dump_file) != count) {
        fprintf(stderr, "compat_block: cannot write the dump\n");
        exit(1);
    }
    free(h);
    dumped++;
}

/* ---- the block ----------------------------------------------------------------------------- */

typedef struct {
    cudnnHandle_t h;
    int n, c, hh, ww, ph, pw, f16;
    size_t count, pcount, wcount; /* elements of x-shaped, pooled and filter tensors */
    cudnnTensorDescriptor_t xd, pd, bnd, x16d;
    cudnnFilterDescriptor_t wd, w16d;
    cudnnConvolutionDescriptor_t cd, c16d;
    cudnnActivationDescriptor_t actd;
    cudnnPoolingDescriptor_t poold;
    cudnnConvolutionFwdAlgo_t fwd, fwd16;
    cudnnConvolutionBwdDataAlgo_t bwd_data, bwd_data16;
    cudnnConvolutionBwdFilterAlgo_t bwd_filter, bwd_filter16;
    void *ws;
    size_t ws_size;
    /* tensors shaped like x, N x C x H x W */
    void *x, *y1, *z1, *a1, *y2, *s, *r, *dr, *ds, *dy2, *da1, *dz1, *dy1, *dx;
    void *p, *dp;              /* pooled */
    void *w1, *w2, *dw1, *dw2; /* C x C x 3 x 3 */
    /* per channel: scale, bias, running mean/var, saved mean/inverse std, their gradients */
    void *g1, *b1, *rm1, *rv1, *sm1, *si1, *dg1, *db1;
    void *g2, *b2, *rm2, *rv2, *sm2, *si2, *dg2, *db2;
    void *x16, *w16, *dy16, *y16, *dx16, *dw16; /* --f16 */
} block_t;

#define WS_LIMIT ((size_t)1 << 30)

static size_t max_size(size_t a, size_t b)
{
    return a > b ? a : b;
}

/* The first algorithm the heuristic ranks as succeeding within WS_LIMIT of workspace. */
static void pick_algos(block_t *b, cudnnTensorDescriptor_t xd, cudnnFilterDescriptor_t wd,
                       cudnnConvolutionDescriptor_t cd, cudnnConvolutionFwdAlgo_t *fwd,
                       cudnnConvolutionBwdDataAlgo_t *bd, cudnnConvolutionBwdFilterAlgo_t *bf,
                       const char *what)
{
    int got = 0, i;
    size_t sz;
    cudnnConvolutionFwdAlgoPerf_t fp[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    cudnnConvolutionBwdDataAlgoPerf_t dp[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    cudnnConvolutionBwdFilterAlgoPerf_t wp[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];

    CHECK(cudnnGetConvolutionForwardAlgorithm_v7(b->h, xd, wd, cd, xd,
                                                 CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, fp));
    for (i = 0; i < got && (fp[i].status != CUDNN_STATUS_SUCCESS || fp[i].memory > WS_LIMIT); i++)
        ;
    if (i == got) {
        fprintf(stderr, "compat_block: no forward algorithm for %s\n", what);
        exit(1);
    }
    *fwd = fp[i].algo;
    CHECK(cudnnGetConvolutionForwardWorkspaceSize(b->h, xd, wd, cd, xd, *fwd, &sz));
    b->ws_size = max_size(b->ws_size, sz);
    printf("%s: forward algo %d (workspace %zu)", what, (int)*fwd, sz);

    CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
        b->h, wd, xd, cd, xd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, dp));
    for (i = 0; i < got && (dp[i].status != CUDNN_STATUS_SUCCESS || dp[i].memory > WS_LIMIT); i++)
        ;
    if (i == got) {
        fprintf(stderr, "\ncompat_block: no backward-data algorithm for %s\n", what);
        exit(1);
    }
    *bd = dp[i].algo;
    CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(b->h, wd, xd, cd, xd, *bd, &sz));
    b->ws_size = max_size(b->ws_size, sz);
    printf(", backward-data algo %d (%zu)", (int)*bd, sz);

    CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
        b->h, xd, xd, cd, wd, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got, wp));
    for (i = 0; i < got && (wp[i].status != CUDNN_STATUS_SUCCESS || wp[i].memory > WS_LIMIT); i++)
        ;
    if (i == got) {
        fprintf(stderr, "\ncompat_block: no backward-filter algorithm for %s\n", what);
        exit(1);
    }
    *bf = wp[i].algo;
    CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(b->h, xd, xd, cd, wd, *bf, &sz));
    b->ws_size = max_size(b->ws_size, sz);
    printf(", backward-filter algo %d (%zu)\n", (int)*bf, sz);
}

static void block_init(block_t *b, int n, int c, int hh, int ww, int f16, uint64_t seed)
{
    memset(b, 0, sizeof *b);
    b->n = n, b->c = c, b->hh = hh, b->ww = ww, b->f16 = f16;
    CHECK(cudnnCreate(&b->h));

    CHECK(cudnnCreateTensorDescriptor(&b->xd));
    CHECK(cudnnSetTensor4dDescriptor(b->xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, hh, ww));
    CHECK(cudnnCreateFilterDescriptor(&b->wd));
    CHECK(cudnnSetFilter4dDescriptor(b->wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, c, c, 3, 3));
    CHECK(cudnnCreateConvolutionDescriptor(&b->cd));
    CHECK(cudnnSetConvolution2dDescriptor(b->cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                          CUDNN_DATA_FLOAT));
    CHECK(cudnnSetConvolutionMathType(b->cd, CUDNN_FMA_MATH));
    int on, oc, oh, ow;
    CHECK(cudnnGetConvolution2dForwardOutputDim(b->cd, b->xd, b->wd, &on, &oc, &oh, &ow));
    if (on != n || oc != c || oh != hh || ow != ww) {
        fprintf(stderr, "compat_block: the 3x3 pad-1 convolution gives %dx%dx%dx%d\n", on, oc,
                oh, ow);
        exit(1);
    }
    CHECK(cudnnCreateTensorDescriptor(&b->bnd));
    CHECK(cudnnDeriveBNTensorDescriptor(b->bnd, b->xd, CUDNN_BATCHNORM_SPATIAL));
    CHECK(cudnnCreateActivationDescriptor(&b->actd));
    CHECK(cudnnSetActivationDescriptor(b->actd, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0));
    CHECK(cudnnCreatePoolingDescriptor(&b->poold));
    CHECK(cudnnSetPooling2dDescriptor(b->poold, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 3, 3, 1, 1,
                                      2, 2));
    int pn, pc;
    CHECK(cudnnGetPooling2dForwardOutputDim(b->poold, b->xd, &pn, &pc, &b->ph, &b->pw));
    CHECK(cudnnCreateTensorDescriptor(&b->pd));
    CHECK(cudnnSetTensor4dDescriptor(b->pd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, pn, pc, b->ph,
                                     b->pw));

    b->count = (size_t)n * c * hh * ww;
    b->pcount = (size_t)n * c * b->ph * b->pw;
    b->wcount = (size_t)c * c * 9;
    printf("block: x %dx%dx%dx%d, conv 3x3 pad 1 (%d -> %d), pool 3x3/2 pad 1 -> %dx%d\n", n, c,
           hh, ww, c, c, b->ph, b->pw);
    pick_algos(b, b->xd, b->wd, b->cd, &b->fwd, &b->bwd_data, &b->bwd_filter, "conv f32");

    if (f16) {
        CHECK(cudnnCreateTensorDescriptor(&b->x16d));
        CHECK(
            cudnnSetTensor4dDescriptor(b->x16d, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, n, c, hh, ww));
        CHECK(cudnnCreateFilterDescriptor(&b->w16d));
        CHECK(cudnnSetFilter4dDescriptor(b->w16d, CUDNN_DATA_HALF, CUDNN_TENSOR_NCHW, c, c, 3, 3));
        CHECK(cudnnCreateConvolutionDescriptor(&b->c16d));
        CHECK(cudnnSetConvolution2dDescriptor(b->c16d, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                              CUDNN_DATA_FLOAT));
        CHECK(cudnnSetConvolutionMathType(b->c16d, CUDNN_TENSOR_OP_MATH));
        pick_algos(b, b->x16d, b->w16d, b->c16d, &b->fwd16, &b->bwd_data16, &b->bwd_filter16,
                   "conv f16");
    }
    b->ws = mem_alloc(b->ws_size);

    /* Inputs, in this order from the one seeded generator (both runs draw the same values). */
    rng_state = seed;
    double bound = sqrt(6.0 / (c * 9.0)); /* He uniform */
    b->x = upload_uniform(b->count, -1.0f, 1.0f);
    b->w1 = upload_uniform(b->wcount, (float)-bound, (float)bound);
    b->w2 = upload_uniform(b->wcount, (float)-bound, (float)bound);
    b->g1 = upload_uniform((size_t)c, 0.5f, 1.5f);
    b->b1 = upload_uniform((size_t)c, -0.5f, 0.5f);
    b->g2 = upload_uniform((size_t)c, 0.5f, 1.5f);
    b->b2 = upload_uniform((size_t)c, -0.5f, 0.5f);
    b->dp = upload_uniform(b->pcount, -1.0f, 1.0f);
    b->rm1 = upload_const((size_t)c, 0.0f), b->rv1 = upload_const((size_t)c, 1.0f);
    b->rm2 = upload_const((size_t)c, 0.0f), b->rv2 = upload_const((size_t)c, 1.0f);
    if (f16) {
        b->x16 = upload_grid_half(b->count, 256, 256.0f);
        b->w16 = upload_grid_half(b->wcount, 256, 2048.0f);
        b->dy16 = upload_grid_half(b->count, 256, 256.0f);
        b->y16 = mem_alloc(b->count * 2);
        b->dx16 = mem_alloc(b->count * 2);
        b->dw16 = mem_alloc(b->wcount * 2);
    }
    size_t xb = b->count * sizeof(float), cb = (size_t)c * sizeof(float);
    void **xs[] = {&b->y1, &b->z1, &b->a1, &b->y2, &b->s,   &b->r,   &b->dr,
                   &b->ds, &b->dy2, &b->da1, &b->dz1, &b->dy1, &b->dx};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        *xs[i] = mem_alloc(xb);
    b->p = mem_alloc(b->pcount * sizeof(float));
    b->dw1 = mem_alloc(b->wcount * sizeof(float)), b->dw2 = mem_alloc(b->wcount * sizeof(float));
    void **cs[] = {&b->sm1, &b->si1, &b->dg1, &b->db1, &b->sm2, &b->si2, &b->dg2, &b->db2};
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        *cs[i] = mem_alloc(cb);
}

/* One forward and backward pass; dumps every output and gradient when the dump is open. */
static void block_run(block_t *b)
{
    const float one = 1.0f, zero = 0.0f;
    const double eps = 1e-5, factor = 0.1;
    cudnnHandle_t h = b->h;
    size_t C = (size_t)b->c;

    /* forward */
    CHECK(cudnnConvolutionForward(h, &one, b->xd, b->x, b->wd, b->w1, b->cd, b->fwd, b->ws,
                                  b->ws_size, &zero, b->xd, b->y1));
    dump("y1", b->y1, b->count, DT_FLOAT, CL_FWD);
    CHECK(cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, b->xd,
                                                 b->y1, b->xd, b->z1, b->bnd, b->g1, b->b1, factor,
                                                 b->rm1, b->rv1, eps, b->sm1, b->si1));
    dump("z1", b->z1, b->count, DT_FLOAT, CL_FWD);
    dump("bn1_save_mean", b->sm1, C, DT_FLOAT, CL_FWD);
    dump("bn1_save_inv_std", b->si1, C, DT_FLOAT, CL_FWD);
    dump("bn1_running_mean", b->rm1, C, DT_FLOAT, CL_FWD);
    dump("bn1_running_var", b->rv1, C, DT_FLOAT, CL_FWD);
    CHECK(cudnnActivationForward(h, b->actd, &one, b->xd, b->z1, &zero, b->xd, b->a1));
    dump("a1", b->a1, b->count, DT_FLOAT, CL_FWD);
    CHECK(cudnnConvolutionForward(h, &one, b->xd, b->a1, b->wd, b->w2, b->cd, b->fwd, b->ws,
                                  b->ws_size, &zero, b->xd, b->y2));
    dump("y2", b->y2, b->count, DT_FLOAT, CL_FWD);
    /* z2 is written into s, then the residual is added in place */
    CHECK(cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, b->xd,
                                                 b->y2, b->xd, b->s, b->bnd, b->g2, b->b2, factor,
                                                 b->rm2, b->rv2, eps, b->sm2, b->si2));
    dump("z2", b->s, b->count, DT_FLOAT, CL_FWD);
    dump("bn2_save_mean", b->sm2, C, DT_FLOAT, CL_FWD);
    dump("bn2_save_inv_std", b->si2, C, DT_FLOAT, CL_FWD);
    dump("bn2_running_mean", b->rm2, C, DT_FLOAT, CL_FWD);
    dump("bn2_running_var", b->rv2, C, DT_FLOAT, CL_FWD);
    CHECK(cudnnAddTensor(h, &one, b->xd, b->x, &one, b->xd, b->s));
    dump("s", b->s, b->count, DT_FLOAT, CL_FWD);
    CHECK(cudnnActivationForward(h, b->actd, &one, b->xd, b->s, &zero, b->xd, b->r));
    dump("r", b->r, b->count, DT_FLOAT, CL_FWD);
    CHECK(cudnnPoolingForward(h, b->poold, &one, b->xd, b->r, &zero, b->pd, b->p));
    dump("p", b->p, b->pcount, DT_FLOAT, CL_FWD);

    /* backward */
    CHECK(cudnnPoolingBackward(h, b->poold, &one, b->pd, b->p, b->pd, b->dp, b->xd, b->r, &zero,
                               b->xd, b->dr));
    dump("dr", b->dr, b->count, DT_FLOAT, CL_BWD);
    CHECK(cudnnActivationBackward(h, b->actd, &one, b->xd, b->r, b->xd, b->dr, b->xd, b->s, &zero,
                                  b->xd, b->ds));
    dump("ds", b->ds, b->count, DT_FLOAT, CL_BWD);
    CHECK(cudnnBatchNormalizationBackward(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero,
                                          b->xd, b->y2, b->xd, b->ds, b->xd, b->dy2, b->bnd, b->g2,
                                          b->dg2, b->db2, eps, b->sm2, b->si2));
    dump("dy2", b->dy2, b->count, DT_FLOAT, CL_BWD);
    dump("bn2_dscale", b->dg2, C, DT_FLOAT, CL_BWD);
    dump("bn2_dbias", b->db2, C, DT_FLOAT, CL_BWD);
    CHECK(cudnnConvolutionBackwardFilter(h, &one, b->xd, b->a1, b->xd, b->dy2, b->cd,
                                         b->bwd_filter, b->ws, b->ws_size, &zero, b->wd, b->dw2));
    dump("dw2", b->dw2, b->wcount, DT_FLOAT, CL_BWD);
    CHECK(cudnnConvolutionBackwardData(h, &one, b->wd, b->w2, b->xd, b->dy2, b->cd, b->bwd_data,
                                       b->ws, b->ws_size, &zero, b->xd, b->da1));
    dump("da1", b->da1, b->count, DT_FLOAT, CL_BWD);
    CHECK(cudnnActivationBackward(h, b->actd, &one, b->xd, b->a1, b->xd, b->da1, b->xd, b->z1,
                                  &zero, b->xd, b->dz1));
    dump("dz1", b->dz1, b->count, DT_FLOAT, CL_BWD);
    CHECK(cudnnBatchNormalizationBackward(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero,
                                          b->xd, b->y1, b->xd, b->dz1, b->xd, b->dy1, b->bnd, b->g1,
                                          b->dg1, b->db1, eps, b->sm1, b->si1));
    dump("dy1", b->dy1, b->count, DT_FLOAT, CL_BWD);
    dump("bn1_dscale", b->dg1, C, DT_FLOAT, CL_BWD);
    dump("bn1_dbias", b->db1, C, DT_FLOAT, CL_BWD);
    CHECK(cudnnConvolutionBackwardFilter(h, &one, b->xd, b->x, b->xd, b->dy1, b->cd, b->bwd_filter,
                                         b->ws, b->ws_size, &zero, b->wd, b->dw1));
    dump("dw1", b->dw1, b->wcount, DT_FLOAT, CL_BWD);
    CHECK(cudnnConvolutionBackwardData(h, &one, b->wd, b->w1, b->xd, b->dy1, b->cd, b->bwd_data,
                                       b->ws, b->ws_size, &zero, b->xd, b->dx));
    CHECK(cudnnAddTensor(h, &one, b->xd, b->ds, &one, b->xd, b->dx)); /* + the residual's */
    dump("dx", b->dx, b->count, DT_FLOAT, CL_BWD);

    if (b->f16) {
        CHECK(cudnnConvolutionForward(h, &one, b->x16d, b->x16, b->w16d, b->w16, b->c16d,
                                      b->fwd16, b->ws, b->ws_size, &zero, b->x16d, b->y16));
        dump("f16_y", b->y16, b->count, DT_HALF, CL_F16);
        CHECK(cudnnConvolutionBackwardData(h, &one, b->w16d, b->w16, b->x16d, b->dy16, b->c16d,
                                           b->bwd_data16, b->ws, b->ws_size, &zero, b->x16d,
                                           b->dx16));
        dump("f16_dx", b->dx16, b->count, DT_HALF, CL_F16);
        CHECK(cudnnConvolutionBackwardFilter(h, &one, b->x16d, b->x16, b->x16d, b->dy16, b->c16d,
                                             b->bwd_filter16, b->ws, b->ws_size, &zero, b->w16d,
                                             b->dw16));
        dump("f16_dw", b->dw16, b->wcount, DT_HALF, CL_F16);
    }
    sync_all();
}

static void block_destroy(block_t *b)
{
    void *all[] = {b->x,   b->y1,  b->z1,  b->a1,  b->y2,  b->s,   b->r,   b->dr,  b->ds,
                   b->dy2, b->da1, b->dz1, b->dy1, b->dx,  b->p,   b->dp,  b->w1,  b->w2,
                   b->dw1, b->dw2, b->g1,  b->b1,  b->rm1, b->rv1, b->sm1, b->si1, b->dg1,
                   b->db1, b->g2,  b->b2,  b->rm2, b->rv2, b->sm2, b->si2, b->dg2, b->db2,
                   b->x16, b->w16, b->dy16, b->y16, b->dx16, b->dw16, b->ws};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        mem_free(all[i]);
    cudnnDestroyTensorDescriptor(b->xd), cudnnDestroyTensorDescriptor(b->pd);
    cudnnDestroyTensorDescriptor(b->bnd), cudnnDestroyFilterDescriptor(b->wd);
    cudnnDestroyConvolutionDescriptor(b->cd), cudnnDestroyActivationDescriptor(b->actd);
    cudnnDestroyPoolingDescriptor(b->poold);
    if (b->f16) {
        cudnnDestroyTensorDescriptor(b->x16d), cudnnDestroyFilterDescriptor(b->w16d);
        cudnnDestroyConvolutionDescriptor(b->c16d);
    }
    CHECK(cudnnDestroy(b->h));
}

/* ---- which library is this? ------------------------------------------------------------- */

static void print_library(cudnnHandle_t h)
{
    void *create = dlvsym(RTLD_DEFAULT, "cudnnCreate", "libcudnn.so.9");
    if (!create)
        create = dlsym(RTLD_DEFAULT, "cudnnCreate");
    Dl_info info;
    char real[PATH_MAX];
    if (create && dladdr(create, &info) && info.dli_fname &&
        realpath(info.dli_fname, real) != NULL)
        printf("library: cudnnCreate@libcudnn.so.9 is in %s (%s)\n", real, info.dli_fname);
    else
        printf("library: cannot locate cudnnCreate: %s\n", dlerror());
    printf("library: cudnnGetVersion() = %zu\n", cudnnGetVersion());

    /* freednn's own entry points, looked up rather than declared: this program knows only
     * NVIDIA's header (freednn.h: freednnGetBackend(handle, int *), freednnGetBackendName). */
    void *get = dlsym(RTLD_DEFAULT, "freednnGetBackend");
    void *name = dlsym(RTLD_DEFAULT, "freednnGetBackendName");
    if (get && name) {
        cudnnStatus_t (*get_fn)(cudnnHandle_t, int *);
        const char *(*name_fn)(int);
        memcpy(&get_fn, &get, sizeof get), memcpy(&name_fn, &name, sizeof name);
        int backend = -1;
        if (get_fn(h, &backend) == CUDNN_STATUS_SUCCESS)
            printf("library: freednn, backend %s\n", name_fn(backend));
        else
            printf("library: freednn, backend unknown\n");
    } else {
        printf("library: not freednn (no freednnGetBackend in the process)\n");
    }

    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096 + 256], seen[32][512];
    int nseen = 0;
    while (maps && fgets(line, sizeof line, maps)) {
        char *path = strchr(line, '/');
        if (!path)
            continue;
        path[strcspn(path, "\n")] = '\0';
        const char *base = strrchr(path, '/') + 1;
        if (!strstr(base, "cudnn") && !strstr(base, "freednn"))
            continue;
        int dup = 0;
        for (int i = 0; i < nseen && !dup; i++)
            dup = strcmp(seen[i], path) == 0;
        if (dup || nseen == 32)
            continue;
        snprintf(seen[nseen++], sizeof seen[0], "%s", path);
        printf("mapped: %s\n", path);
    }
    if (maps)
        fclose(maps);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int run(int argc, char **argv)
{
    int n = 32, c = 64, hh = 56, ww = 56, f16 = 0, iters = 0;
    uint64_t seed = 1;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--host"))
            host_mode = 1;
        else if (!strcmp(argv[i], "--f16"))
            f16 = 1;
        else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            if (sscanf(argv[++i], "%d,%d,%d,%d", &n, &c, &hh, &ww) != 4 || n < 1 || c < 1 ||
                hh < 1 || ww < 1) {
                fprintf(stderr, "compat_block: --size wants N,C,H,W\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            fprintf(stderr, "compat_block: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (!path) {
        fprintf(stderr, "usage: compat_block [--host] [--f16] [--size N,C,H,W] [--seed S] "
                        "[--iters K] DUMP\n       compat_block --compare REF TEST "
                        "[--tol-scale X]\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("compat_block: %s memory, built against cuDNN %d.%d.%d headers\n",
           host_mode ? "host" : "device", CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL);
    if (!host_mode) {
        int dev = 0;
        struct cudaDeviceProp prop;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
        printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
    }
    block_t b;
    block_init(&b, n, c, hh, ww, f16, seed);
    dump_file = fopen(path, "wb");
    if (!dump_file || fwrite(DUMP_MAGIC, 1, 8, dump_file) != 8) {
        fprintf(stderr, "compat_block: cannot write %s\n", path);
        return 1;
    }
    double t0 = now_ms();
    block_run(&b);
    double first = now_ms() - t0;
    if (fclose(dump_file) != 0) {
        fprintf(stderr, "compat_block: cannot write %s\n", path);
        return 1;
    }
    dump_file = NULL;
    printf("dumped %d tensors to %s (first pass with the copies: %.1f ms)\n", dumped, path, first);
    if (iters > 0) {
        double *t = malloc((size_t)iters * sizeof(double));
        for (int i = 0; i < iters; i++) {
            t0 = now_ms();
            block_run(&b);
            t[i] = now_ms() - t0;
        }
        qsort(t, (size_t)iters, sizeof(double), cmp_double);
        printf("time: forward + backward, median of %d: %.3f ms (min %.3f, max %.3f)\n", iters,
               t[iters / 2], t[0], t[iters - 1]);
        free(t);
    }
    print_library(b.h);
    block_destroy(&b);
    return 0;
}

/* ---- --compare -------------------------------------------------------------------------- */

/* Per class, relative to max |reference| of the tensor: the bound on each element's error, the
 * share of elements allowed above it, and the bound on the relative L2 error.
 * - forward f32: continuous functions of the inputs (max pooling's value is continuous even
 *   where its argmax is not); the libraries differ by summation order and algorithm only
 *   (FFT and Winograd in FMA math included).
 * - backward f32: the gradients go where the forward's ReLU signs and pooling argmaxes send
 *   them; an element within rounding of a tie (|s| ~ 1e-6, or two window values that close)
 *   may be decided the other way by each library and moves a whole gradient value. A handful
 *   per million elements is expected; a wrong kernel moves far more.
 * - f16: half-precision outputs, one rounding to 11 bits after float accumulation. */
static const struct {
    const char *name;
    double elem, share, l2;
} tol_table[CL_COUNT] = {
    {"forward f32", 5e-4, 0.0, 1e-4},
    {"backward f32", 1e-3, 1e-4, 1e-2},
    {"f16", 1e-2, 0.0, 5e-3},
};

typedef struct {
    char name[33];
    uint32_t dtype, klass;
    uint64_t count;
    double *v;
} record_t;

static int read_record(FILE *f, record_t *r)
{
    uint32_t u[2];
    memset(r, 0, sizeof *r);
    if (fread(r->name, 1, 32, f) != 32)
        return 0;
    if (fread(u, 4, 2, f) != 2 || fread(&r->count, 8, 1, f) != 1 || u[0] > DT_HALF ||
        u[1] >= CL_COUNT || r->count > ((uint64_t)1 << 34))
        return -1;
    r->dtype = u[0], r->klass = u[1];
    size_t es = r->dtype == DT_HALF ? 2 : 4, n = (size_t)r->count;
    unsigned char *raw = malloc(n * es + 1);
    r->v = malloc(n * sizeof(double) + 1);
    if (!raw || !r->v || fread(raw, es, n, f) != n) {
        free(raw);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (r->dtype == DT_HALF) {
            uint16_t hv;
            memcpy(&hv, raw + 2 * i, 2);
            r->v[i] = half_to_float(hv);
        } else {
            float fv;
            memcpy(&fv, raw + 4 * i, 4);
            r->v[i] = fv;
        }
    }
    free(raw);
    return 1;
}

static FILE *open_dump(const char *path)
{
    FILE *f = fopen(path, "rb");
    char magic[8];
    if (!f || fread(magic, 1, 8, f) != 8 || memcmp(magic, DUMP_MAGIC, 8) != 0) {
        fprintf(stderr, "compat_block: %s is not a compat_block dump\n", path);
        if (f)
            fclose(f);
        return NULL;
    }
    return f;
}

static int compare(const char *ref_path, const char *test_path, double scale)
{
    FILE *fr = open_dump(ref_path), *ft = open_dump(test_path);
    if (!fr || !ft)
        return 2;
    printf("compare: reference %s, test %s (tolerance scale %g)\n", ref_path, test_path, scale);
    for (int k = 0; k < CL_COUNT; k++)
        printf("compare: %-12s element error <= %.0e x max|ref|, share above <= %.0e, "
               "relative L2 <= %.0e\n",
               tol_table[k].name, tol_table[k].elem * scale, tol_table[k].share,
               tol_table[k].l2 * scale);
    int passed = 0, failed = 0;
    for (;;) {
        record_t a, b;
        int ra = read_record(fr, &a), rb = read_record(ft, &b);
        if (ra == 0 && rb == 0)
            break;
        if (ra != 1 || rb != 1 || strcmp(a.name, b.name) || a.count != b.count ||
            a.dtype != b.dtype) {
            printf("FAIL  the dumps differ in structure at '%s' / '%s'\n", ra == 1 ? a.name : "?",
                   rb == 1 ? b.name : "?");
            failed++;
            free(a.v), free(b.v);
            break;
        }
        double maxref = 0.0, maxerr = 0.0, se = 0.0, sr = 0.0;
        size_t nonfinite = 0, above = 0, n = (size_t)a.count;
        for (size_t i = 0; i < n; i++) {
            if (!isfinite(a.v[i]) || !isfinite(b.v[i])) {
                nonfinite += isfinite(a.v[i]) != isfinite(b.v[i]) ||
                             (isnan(a.v[i]) != isnan(b.v[i])) ||
                             (!isnan(a.v[i]) && a.v[i] != b.v[i]);
                continue;
            }
            double d = fabs(a.v[i] - b.v[i]);
            maxref = fmax(maxref, fabs(a.v[i]));
            maxerr = fmax(maxerr, d);
            se += d * d, sr += a.v[i] * a.v[i];
        }
        double elem_tol = tol_table[a.klass].elem * scale * maxref;
        for (size_t i = 0; i < n; i++)
            above += isfinite(a.v[i]) && isfinite(b.v[i]) && fabs(a.v[i] - b.v[i]) > elem_tol;
        double rel = maxref > 0 ? maxerr / maxref : maxerr;
        double l2 = sr > 0 ? sqrt(se / sr) : sqrt(se);
        size_t allowed = (size_t)(tol_table[a.klass].share * (double)n);
        int ok = nonfinite == 0 && above <= allowed && l2 <= tol_table[a.klass].l2 * scale;
        printf("%s  %-17s n=%-9zu max|ref| %.3e  max abs err %.3e  max rel err %.3e  rel L2 "
               "%.3e  above tol %zu (allowed %zu)%s\n",
               ok ? "PASS" : "FAIL", a.name, n, maxref, maxerr, rel, l2, above, allowed,
               nonfinite ? "  NON-FINITE MISMATCH" : "");
        ok ? passed++ : failed++;
        free(a.v), free(b.v);
    }
    fclose(fr), fclose(ft);
    printf("compare: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "--compare")) {
        double scale = 1.0;
        if (argc == 6 && !strcmp(argv[4], "--tol-scale"))
            scale = atof(argv[5]);
        else if (argc != 4) {
            fprintf(stderr, "usage: compat_block --compare REF TEST [--tol-scale X]\n");
            return 2;
        }
        return compare(argv[2], argv[3], scale > 0 ? scale : 1.0);
    }
    return run(argc, argv);
}
