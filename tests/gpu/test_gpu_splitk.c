/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_splitk.c - the one-launch split-K of the backward filter rows (src/cuda/splitk.cuh:
 * the last block of each tile sums the partials behind a per-tile counter of the cuda handle)
 * on the three kernels that use it: wgmma (conv_bwd_filter_implicit_gemm_f16_128xN__sm90.cu,
 * f16 / bf16 and tf32), mma.sync (conv_tc.cu: C % 64 != 0 keeps the wgmma rows off) and FFMA
 * (conv_simt.cu: FLOAT under CUDNN_FMA_MATH).
 *
 * 1. Against ref (tests/gpu/gpu_mirror.h), under the default rule (FREEDNN_SPLITK_FUSED unset:
 *    one launch when S x tile bytes <= 256 KiB): integer fills in [-3, 3] are exact in float
 *    in any order, so dw must be bit-identical to ref, with alpha/beta (beta = 0 leaves dw
 *    poisoned: never read); each case runs twice (determinism).
 * 2. Bit-identity of the paths: the same cases with real fills in [-1, 1), alpha 0.5, beta 0.25,
 *    run here (default rule) and in two children, FREEDNN_SPLITK_FUSED=0 (always the reduce
 *    kernel: the old two-launch path) and FREEDNN_SPLITK_FUSED=2 (one launch whenever the
 *    counters allow); the three FNV-1a hashes of dw must be equal (the last block sums the splits
 *    in the reduce kernel's order, so the bits cannot depend on the path or the schedule).
 * 3. Counter reuse: in each process every case runs FD_SPLITK_SLOTS + 1 = 9 times back to back
 *    on one handle (so one counter slot of the ring serves two calls) with dw reset to its
 *    starting bits before each call, and every run must give the same hash; the cases run in an
 *    order where a problem of many tiles precedes one of few and one of many again (a counter left
 *    non-zero would hand the sum to the wrong block or to none: dw keeps stale bits).
 * Cases: S = 1 (a tile's only block is its last), S of 2..8, and ~100 splits (the reduce kernel
 * under the default rule, one launch under =2), K tails, odd j-chunk counts (an idle wgmma
 * consumer), FFMA with R*S*C % 4 != 0 (scalar sums). On compute capability 9.0 the dispatch log
 * must name the wgmma rows for their cases; the tc / simt rows are named in the output. --smoke
 * (compute-sanitizer) leaves out the ~100-split problem (its hash reads 1 in every process).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu_mirror.h"

#define SK_REPS 9 /* FD_SPLITK_SLOTS + 1 */

typedef struct {
    const char *row; /* the row expected on sm_90 (NULL: not checked) */
    cudnnDataType_t dt;
    int fma;
    int n, c, k, h, w, r, pad;
} sk_shape_t;

static const char WW[] = "fd_conv_bwd_filter_implicit_gemm_f16_128xN__sm90";
static const char WT[] = "fd_conv_bwd_filter_implicit_gemm_tf32_128xN__sm90";

/* Order matters (header, 3): many tiles, few, many. */
static const sk_shape_t shapes[] = {
    /* wgmma bf16: 18 tiles of 128 x 256, 2 splits */
    {WW, CUDNN_DATA_BFLOAT16, 0, 4, 256, 256, 16, 16, 3, 1},
    /* wgmma f16: 5 tiles (9 j-chunks: an idle consumer), 4 splits */
    {WW, CUDNN_DATA_HALF, 0, 8, 64, 64, 16, 16, 3, 1},
    /* wgmma f16: S = 1 (two launches before) */
    {WW, CUDNN_DATA_HALF, 0, 2, 64, 128, 9, 11, 3, 1},
    /* wgmma f16: ~100 splits of one tile (the reduce kernel under the default rule) */
    {WW, CUDNN_DATA_HALF, 0, 16, 64, 64, 64, 64, 1, 0},
    /* wgmma bf16 K tail (136: BN 256 with 3 chunks loaded), many tiles again */
    {WW, CUDNN_DATA_BFLOAT16, 0, 3, 128, 136, 12, 12, 3, 1},
    /* wgmma tf32 (FLOAT, default math) */
    {WT, CUDNN_DATA_FLOAT, 0, 8, 64, 128, 16, 16, 3, 1},
    /* mma.sync (C % 64 != 0): f16 4 splits, tf32 8 splits, bf16 2 splits of 14 tiles, K tail */
    {NULL, CUDNN_DATA_HALF, 0, 4, 32, 64, 16, 16, 3, 1},
    {NULL, CUDNN_DATA_FLOAT, 0, 8, 32, 128, 16, 16, 3, 1},
    {NULL, CUDNN_DATA_BFLOAT16, 0, 2, 96, 136, 13, 13, 3, 1},
    /* FFMA: 4 splits (one launch), 8 splits, R*S*C = 45 (scalar sums) */
    {NULL, CUDNN_DATA_FLOAT, 1, 2, 64, 64, 16, 16, 3, 1},
    {NULL, CUDNN_DATA_FLOAT, 1, 4, 64, 64, 16, 16, 3, 1},
    {NULL, CUDNN_DATA_FLOAT, 1, 4, 5, 64, 16, 16, 3, 1},
};
#define NSHAPES ((int)(sizeof shapes / sizeof shapes[0]))

/* --smoke (the compute-sanitizer runs) leaves out the large ~100-split problem */
static int skipped(int i)
{
    return gm_smoke && shapes[i].n >= 16;
}

typedef struct {
    sk_shape_t s;
    double alpha, beta;
    int exact;
    size_t ws;
    int64_t nx, ny, nw;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
} sk_case_t;

static int on_sm90;

static void setup(sk_case_t *t)
{
    const sk_shape_t *s = &t->s;
    const int pad[2] = {s->pad, s->pad}, one[2] = {1, 1};
    int ydim[4];
    FD_EXPECT_STATUS(cudnnCreateTensorDescriptor(&t->xd), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnCreateTensorDescriptor(&t->yd), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnCreateFilterDescriptor(&t->wd), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnCreateConvolutionDescriptor(&t->cd), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(
        cudnnSetTensor4dDescriptor(t->xd, CUDNN_TENSOR_NHWC, s->dt, s->n, s->c, s->h, s->w),
        CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(
        cudnnSetFilter4dDescriptor(t->wd, s->dt, CUDNN_TENSOR_NHWC, s->k, s->c, s->r, s->r),
        CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionNdDescriptor(t->cd, 2, pad, one, one,
                                                     CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                     CUDNN_STATUS_SUCCESS);
    if (s->fma)
        FD_EXPECT_STATUS(cudnnSetConvolutionMathType(t->cd, CUDNN_FMA_MATH), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnGetConvolutionNdForwardOutputDim(t->cd, t->xd, t->wd, 4, ydim),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetTensor4dDescriptor(t->yd, CUDNN_TENSOR_NHWC, s->dt, ydim[0], ydim[1],
                                                ydim[2], ydim[3]),
                     CUDNN_STATUS_SUCCESS);
    t->nx = (int64_t)s->n * s->c * s->h * s->w;
    t->ny = (int64_t)ydim[0] * ydim[1] * ydim[2] * ydim[3];
    t->nw = (int64_t)s->k * s->c * s->r * s->r;
    const size_t wsr = gm_conv_workspace(gm_ref, 2, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, t->xd,
                                         t->wd, t->cd, t->yd),
                 wsc = gm_conv_workspace(gm_cuda, 2, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, t->xd,
                                         t->wd, t->cd, t->yd);
    t->ws = wsr > wsc ? wsr : wsc;
}

static void teardown(sk_case_t *t)
{
    cudnnDestroyTensorDescriptor(t->xd);
    cudnnDestroyTensorDescriptor(t->yd);
    cudnnDestroyFilterDescriptor(t->wd);
    cudnnDestroyConvolutionDescriptor(t->cd);
}

static void label(const sk_case_t *t, char *buf, size_t size)
{
    const sk_shape_t *s = &t->s;
    snprintf(buf, size, "splitk bwd_filter %s%s n%d c%d k%d %dx%d f%dx%d p%d a%g b%g %s",
             fd_test_dtype_short(s->dt), s->fma ? " math=fma" : "", s->n, s->c, s->k, s->h, s->w,
             s->r, s->r, s->pad, t->alpha, t->beta, t->exact ? "exact" : "real");
}

/* buffer i's starting contents (0 x, 1 dy, 2 dw when beta != 0) */
static void fill(int i, void *payload, size_t bytes, void *ctx)
{
    const sk_case_t *t = ctx;
    if (i == 3 || (i == 2 && t->beta == 0.0))
        return; /* the workspace; a dw that beta = 0 must not read stays poisoned */
    fd_rng_t r;
    const sk_shape_t *s = &t->s;
    fd_rng_seed(&r,
                (uint64_t)(s->n * 131 + s->c * 17 + s->k * 7 + s->h + s->fma) * 5 + (uint64_t)i);
    const int64_t n = (int64_t)(bytes / fd_test_dtype_size(s->dt));
    if (t->exact)
        fd_fill_int(&r, s->dt, payload, n, -3, 3, 0.8);
    else
        fd_fill_real(&r, s->dt, payload, n, -1.0, 1.0);
}

static cudnnStatus_t call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    const sk_case_t *t = ctx;
    gm_last_impl[0] = '\0';
    return gm_conv_call(h, 2, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, t->xd, t->wd, t->cd, t->yd,
                        t->alpha, t->beta, ptr, t->ws);
}

static void check_row(const sk_case_t *t, const char *lab)
{
    if (t->s.row != NULL && on_sm90)
        FD_EXPECT(strcmp(gm_last_impl, t->s.row) == 0, "%s: dispatch ran %s, expected %s", lab,
                  gm_last_impl[0] ? gm_last_impl : "(nothing logged)", t->s.row);
    else
        printf("  %s: row %s\n", lab, gm_last_impl[0] ? gm_last_impl : "(nothing logged)");
}

/* 1: against ref, integer fills, bit-identical */
static void vs_ref(const sk_shape_t *s, double alpha, double beta)
{
    sk_case_t t;
    memset(&t, 0, sizeof t);
    t.s = *s, t.alpha = alpha, t.beta = beta, t.exact = 1;
    setup(&t);
    char lab[256];
    label(&t, lab, sizeof lab);
    const size_t es = fd_test_dtype_size(s->dt);
    gm_case_t c = {0};
    c.label = lab;
    c.nbuf = 4;
    c.buf[0] = (gm_buf_t){"x", (size_t)t.nx * es, s->dt, GM_IN, 0, 0};
    c.buf[1] = (gm_buf_t){"dy", (size_t)t.ny * es, s->dt, GM_IN, 0, 0};
    c.buf[2] = (gm_buf_t){"dw", (size_t)t.nw * es, s->dt, beta != 0.0 ? GM_INOUT : GM_OUT, 0, 0};
    c.buf[3] = (gm_buf_t){"workspace", t.ws, s->dt, GM_WS, 0, 0};
    c.det = 1;
    c.fill = fill;
    c.call = call;
    c.ctx = &t;
    c.want = CUDNN_STATUS_SUCCESS;
    gm_run(&c);
    check_row(&t, lab);
    teardown(&t);
}

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* 2 and 3: real fills, SK_REPS calls on the cuda handle with dw reset before each; the hash of
 * dw (0 when a call failed or the repeats differ). */
static uint64_t hash_runs(const sk_shape_t *s)
{
    sk_case_t t;
    memset(&t, 0, sizeof t);
    t.s = *s, t.alpha = 0.5, t.beta = 0.25, t.exact = 0;
    setup(&t);
    char lab[256];
    label(&t, lab, sizeof lab);
    const size_t es = fd_test_dtype_size(s->dt);
    const size_t bytes[3] = {(size_t)t.nx * es, (size_t)t.ny * es, (size_t)t.nw * es};
    void *host[3], *dev[4] = {NULL, NULL, NULL, NULL};
    void *got = malloc(bytes[2]);
    FD_EXPECT(got != NULL, "malloc");
    for (int i = 0; i < 3; i++) {
        host[i] = malloc(bytes[i]);
        FD_EXPECT(host[i] != NULL, "malloc");
        fill(i, host[i], bytes[i], &t);
        FD_EXPECT(cudaMalloc(&dev[i], bytes[i]) == cudaSuccess, "cudaMalloc");
        if (i < 2)
            FD_EXPECT(cudaMemcpyAsync(dev[i], host[i], bytes[i], cudaMemcpyHostToDevice,
                                      gm_stream) == cudaSuccess,
                      "upload");
    }
    FD_EXPECT(cudaMalloc(&dev[3], t.ws > 0 ? t.ws : 1) == cudaSuccess, "cudaMalloc workspace");
    uint64_t first = 0;
    int ok = 1;
    for (int rep = 0; rep < SK_REPS && ok; rep++) {
        /* everything on the cuda handle's stream, in order; the host waits before hashing */
        ok &= cudaMemcpyAsync(dev[2], host[2], bytes[2], cudaMemcpyHostToDevice, gm_stream) ==
              cudaSuccess;
        ok &= cudaMemsetAsync(dev[3], 0xFF, t.ws > 0 ? t.ws : 1, gm_stream) ==
              cudaSuccess; /* stale partials */
        ok &= cudaStreamSynchronize(gm_stream) == cudaSuccess;
        ok &= call(gm_cuda, dev, &t) == CUDNN_STATUS_SUCCESS;
        ok &= cudaMemcpyAsync(got, dev[2], bytes[2], cudaMemcpyDeviceToHost, gm_stream) ==
              cudaSuccess;
        ok &= cudaStreamSynchronize(gm_stream) == cudaSuccess;
        const uint64_t h = fnv(got, bytes[2], 0xcbf29ce484222325ull);
        if (rep == 0)
            first = h;
        FD_EXPECT(ok && h == first,
                  "%s: call %d of %d on one handle gave dw hash %016llx, the "
                  "first %016llx (ok %d)",
                  lab, rep + 1, SK_REPS, (unsigned long long)h, (unsigned long long)first, ok);
        if (h != first)
            ok = 0;
    }
    check_row(&t, lab);
    for (int i = 0; i < 4; i++)
        cudaFree(dev[i]);
    for (int i = 0; i < 3; i++)
        free(host[i]);
    free(got);
    teardown(&t);
    return ok ? first : 0;
}

/* A child with FREEDNN_SPLITK_FUSED=mode writes one hash per shape to `path`. */
static int child_main(int argc, char **argv, const char *path)
{
    char title[96];
    snprintf(title, sizeof title, "test_gpu_splitk (child, FREEDNN_SPLITK_FUSED=%s)",
             getenv("FREEDNN_SPLITK_FUSED"));
    gm_init(argc, argv, title);
    gm_watch_dispatch();
    FILE *f = fopen(path, "w");
    FD_EXPECT(f != NULL, "cannot write %s", path);
    for (int i = 0; i < NSHAPES && f != NULL; i++)
        fprintf(f, "%016llx\n", skipped(i) ? 1ull : (unsigned long long)hash_runs(&shapes[i]));
    if (f != NULL)
        fclose(f);
    return gm_finish();
}

/* Runs a child under FREEDNN_SPLITK_FUSED=mode and reads its hashes (0 on failure). */
static void run_child(char **argv, const char *mode, uint64_t *hash)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/fd_test_splitk_%d_%s", (int)getpid(), mode);
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        setenv("FREEDNN_SPLITK_FUSED", mode, 1);
        setenv("FD_SPLITK_TEST_OUT", path, 1);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    int status = 0;
    FD_EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/waitpid of the child failed");
    FD_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "the child with FREEDNN_SPLITK_FUSED=%s failed (status 0x%x)", mode, status);
    FILE *f = fopen(path, "r");
    for (int i = 0; i < NSHAPES; i++) {
        unsigned long long v = 0;
        hash[i] = f != NULL && fscanf(f, "%llx", &v) == 1 ? (uint64_t)v : 0;
    }
    if (f != NULL)
        fclose(f);
    unlink(path);
}

int main(int argc, char **argv)
{
    if (getenv("FD_SPLITK_TEST_OUT"))
        return child_main(argc, argv, getenv("FD_SPLITK_TEST_OUT"));
    unsetenv("FREEDNN_SPLITK_FUSED"); /* the default rule here; the children set it */
    unsetenv("FREEDNN_WGMMA");
    unsetenv("FREEDNN_WGMMA_WGRAD");
    unsetenv("FREEDNN_WGMMA_TF32_WGRAD");
    unsetenv("NVIDIA_TF32_OVERRIDE");
    setenv("FREEDNN_LOG_DISPATCH", "1", 1);
    gm_init(argc, argv, "test_gpu_splitk");
    gm_watch_dispatch();
    int dev = 0, major = 0, minor = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    on_sm90 = major == 9 && minor == 0;
    for (int i = 0; i < NSHAPES; i++) {
        if (skipped(i))
            continue;
        vs_ref(&shapes[i], 1.0, 0.0);
        if (!gm_smoke)
            vs_ref(&shapes[i], -2.0, 0.5);
    }
    uint64_t mine[NSHAPES], off[NSHAPES], on[NSHAPES];
    for (int i = 0; i < NSHAPES; i++)
        mine[i] = skipped(i) ? 1 : hash_runs(&shapes[i]);
    run_child(argv, "0", off);
    run_child(argv, "2", on);
    for (int i = 0; i < NSHAPES; i++) {
        const sk_shape_t *s = &shapes[i];
        FD_EXPECT(mine[i] != 0 && mine[i] == off[i] && mine[i] == on[i],
                  "shape %d (%s n%d c%d k%d %dx%d f%d%s): dw hashes differ between the paths: "
                  "default rule %016llx, FREEDNN_SPLITK_FUSED=0 %016llx, =2 %016llx",
                  i, fd_test_dtype_short(s->dt), s->n, s->c, s->k, s->h, s->w, s->r,
                  s->fma ? " fma" : "", (unsigned long long)mine[i], (unsigned long long)off[i],
                  (unsigned long long)on[i]);
    }
    return gm_finish();
}
