/* SPDX-License-Identifier: MIT */
/*
 * test_cpu_conv_int8.c - the cpu INT8 forward row (src/cpu/conv_int8_cpu.c,
 * fd_conv_fwd_int8_vnni) against the ref backend (src/ref/conv_int8_ref.c, itself held to a
 * brute-force oracle by tests/ref/test_conv_int8.c). Tolerance 0: the integer sums are exact
 * (wrapping modulo 2^32 on both sides) and the float epilogue is the same operations in the same
 * order, so every output byte must equal the ref's, for INT8 and FLOAT y.
 *
 * Cases: randomized INT8_CONFIG / INT8_EXT_CONFIG problems (1-3 spatial dims, groups, padding,
 * stride, dilation, both modes, padded pixel strides, alpha / beta with beta == 0 over a
 * poisoned y), a 32-bit wrap, and a ResNet-50 3x3 layer; each run checks that the row ran
 * (FREEDNN_LOG_DISPATCH), guard bytes, unchanged inputs, and a workspace of exactly the
 * reported size. The checks run again in child processes on the AVX2 and generic paths with 1,
 * 2 and 3 threads (FREEDNN_CPU_ISA, OMP_NUM_THREADS): equal to ref there too means the bits do
 * not depend on the path or the thread count.
 * --bench: GOPS of the int8 row, the ref and the f32 direct row on ResNet-50-like layers.
 */
#define _GNU_SOURCE /* setenv, readlink */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fd_test.h"

typedef struct {
    int nsp, n, c, k, groups;
    int in[3], f[3], pad[3], str[3], dil[3];
    int flip, padded;
    cudnnDataType_t ydt;
    float alpha, beta;
    uint64_t seed;
} cc8_t;

typedef struct {
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    int nb;
    int64_t xbytes, ybytes, wbytes;
} cc8_desc_t;

static char last_impl[128];

static void on_log(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)udata, (void)dbg;
    const char *arrow = strstr(msg, "dispatch: ");
    const char *to = arrow ? strstr(arrow, " -> ") : NULL;
    if (to)
        snprintf(last_impl, sizeof last_impl, "%s", to + 4);
}

/* Channels-last strides with a gap after every pixel; returns the extent in elements. */
static int64_t nhwc(int nb, const int *dim, int gap, int *st)
{
    int64_t acc = dim[1] + gap;
    st[1] = 1;
    for (int i = nb - 1; i >= 2; i--) {
        st[i] = (int)acc;
        acc *= dim[i];
    }
    st[0] = (int)acc;
    return acc * dim[0];
}

static void cc8_set(cc8_desc_t *d, const cc8_t *c)
{
    const int nb = c->nsp + 2;
    int xdim[5] = {c->n, c->c}, wdim[5] = {c->k, c->c / c->groups}, ydim[5] = {c->n, c->k}, st[5];
    for (int i = 0; i < c->nsp; i++) {
        xdim[2 + i] = c->in[i];
        wdim[2 + i] = c->f[i];
        ydim[2 + i] = (c->in[i] + 2 * c->pad[i] - ((c->f[i] - 1) * c->dil[i] + 1)) / c->str[i] + 1;
    }
    d->nb = nb;
    d->xbytes = nhwc(nb, xdim, c->padded ? 4 : 0, st);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(d->xd, CUDNN_DATA_INT8, nb, xdim, st), CUDNN_STATUS_SUCCESS);
    d->ybytes = nhwc(nb, ydim, c->padded ? 4 : 0, st) * (c->ydt == CUDNN_DATA_FLOAT ? 4 : 1);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(d->yd, c->ydt, nb, ydim, st), CUDNN_STATUS_SUCCESS);
    d->wbytes = 1;
    for (int i = 0; i < nb; i++)
        d->wbytes *= wdim[i];
    FD_EXPECT_STATUS(cudnnSetFilterNdDescriptor(d->wd, CUDNN_DATA_INT8, CUDNN_TENSOR_NHWC, nb, wdim),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionNdDescriptor(d->cd, c->nsp, c->pad, c->str, c->dil,
                                                     c->flip ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION,
                                                     CUDNN_DATA_INT32),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionGroupCount(d->cd, c->groups), CUDNN_STATUS_SUCCESS);
}

/* Runs `algo` on h into a copy of y0; returns the output buffer (caller frees). */
static fd_buf_t cc8_run(cudnnHandle_t h, cc8_desc_t *d, const cc8_t *c, const fd_buf_t *x, const fd_buf_t *w,
                        const fd_buf_t *y0, int algo, const char *want_impl)
{
    fd_buf_t y = fd_buf_alloc((size_t)d->ybytes);
    memcpy(y.data, y0->data, y.size);
    size_t ws = 0;
    FD_EXPECT_STATUS(cudnnGetConvolutionForwardWorkspaceSize(h, d->xd, d->wd, d->cd, d->yd,
                                                             (cudnnConvolutionFwdAlgo_t)algo, &ws),
                     CUDNN_STATUS_SUCCESS);
    fd_buf_t wsb = fd_buf_alloc(ws);
    uint64_t hx = fd_buf_hash(x), hw = fd_buf_hash(w);
    last_impl[0] = '\0';
    cudnnStatus_t st = cudnnConvolutionForward(h, &c->alpha, d->xd, x->data, d->wd, w->data, d->cd,
                                               (cudnnConvolutionFwdAlgo_t)algo, ws ? wsb.data : NULL, ws,
                                               &c->beta, d->yd, y.data);
    FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "seed 0x%llx: %s", (unsigned long long)c->seed, cudnnGetErrorString(st));
    FD_EXPECT(fd_buf_guards_ok(&y) && fd_buf_guards_ok(&wsb) && fd_buf_guards_ok(x) && fd_buf_guards_ok(w),
              "seed 0x%llx: a guard was overwritten", (unsigned long long)c->seed);
    FD_EXPECT(fd_buf_hash(x) == hx && fd_buf_hash(w) == hw, "seed 0x%llx: x or w changed",
              (unsigned long long)c->seed);
    if (want_impl)
        FD_EXPECT(strcmp(last_impl, want_impl) == 0, "seed 0x%llx: ran '%s', want %s",
                  (unsigned long long)c->seed, last_impl, want_impl);
    fd_buf_free(&wsb);
    return y;
}

/* One case: cpu (algo 1, the int8 row) vs ref, byte for byte. xfill: 0 random, 1 all -128. */
static void cc8_check(cudnnHandle_t cpu, cudnnHandle_t ref, cc8_desc_t *d, const cc8_t *c, int xfill)
{
    cc8_set(d, c);
    fd_rng_t r;
    fd_rng_seed(&r, c->seed);
    fd_buf_t x = fd_buf_alloc((size_t)d->xbytes), w = fd_buf_alloc((size_t)d->wbytes),
             y0 = fd_buf_alloc((size_t)d->ybytes);
    for (size_t i = 0; i < x.size; i++)
        ((uint8_t *)x.data)[i] = xfill ? 0x80 : (uint8_t)fd_rng_int(&r, 0, 255);
    for (size_t i = 0; i < w.size; i++)
        ((uint8_t *)w.data)[i] = xfill ? 0x80 : (uint8_t)fd_rng_int(&r, 0, 255);
    if (c->beta == 0.0f)
        fd_buf_poison(&y0);
    else if (c->ydt == CUDNN_DATA_FLOAT)
        for (size_t i = 0; i < y0.size / 4; i++)
            ((float *)y0.data)[i] = (float)fd_rng_int(&r, -400, 400) * 0.125f;
    else
        for (size_t i = 0; i < y0.size; i++)
            ((uint8_t *)y0.data)[i] = (uint8_t)fd_rng_int(&r, 0, 255);
    fd_buf_t yr = cc8_run(ref, d, c, &x, &w, &y0, 1, NULL);
    fd_buf_t yc = cc8_run(cpu, d, c, &x, &w, &y0, 1, "fd_conv_fwd_int8_vnni");
    FD_EXPECT(memcmp(yr.data, yc.data, yr.size) == 0,
              "seed 0x%llx (%dd n%d c%d k%d g%d %s a %g b %g): cpu and ref outputs differ", (unsigned long long)c->seed,
              c->nsp, c->n, c->c, c->k, c->groups, c->ydt == CUDNN_DATA_FLOAT ? "f32" : "s8", (double)c->alpha,
              (double)c->beta);
    fd_buf_free(&x), fd_buf_free(&w), fd_buf_free(&y0), fd_buf_free(&yr), fd_buf_free(&yc);
}

static void checks(cudnnHandle_t cpu, cudnnHandle_t ref, cc8_desc_t *d)
{
    static const float ab[][2] = {{1.0f, 0.0f}, {0.0078125f, 0.0f}, {0.5f, 1.0f}, {-0.003f, 0.5f},
                                  {1.0f / 1024.0f, -1.0f}, {1e-4f, 0.0f}, {3.0f, 0.0f}};
    const uint64_t master = fd_test_sweep_seed(0x51e8c0de);
    const int count = (int)(120 * fd_test_scale());
    for (int i = 0; i < count; i++) {
        fd_rng_t r;
        fd_rng_seed(&r, fd_test_mix(master, (uint64_t)i));
        cc8_t c;
        memset(&c, 0, sizeof c);
        c.seed = fd_rng_next(&r);
        c.ydt = i % 3 == 0 ? CUDNN_DATA_FLOAT : CUDNN_DATA_INT8;
        c.nsp = i % 7 == 0 ? 1 : i % 11 == 0 ? 3 : 2;
        c.groups = fd_rng_int(&r, 0, 3) == 0 ? fd_rng_int(&r, 2, 3) : 1;
        c.c = c.groups * 4 * fd_rng_int(&r, 1, 12);
        c.k = c.groups * (c.ydt == CUDNN_DATA_FLOAT ? fd_rng_int(&r, 1, 40) : 4 * fd_rng_int(&r, 1, 20));
        c.n = fd_rng_int(&r, 1, 2);
        for (int dd = 0; dd < c.nsp; dd++) {
            c.f[dd] = fd_rng_int(&r, 1, c.nsp == 3 ? 2 : 3);
            c.dil[dd] = fd_rng_int(&r, 0, 3) == 0 ? 2 : 1;
            c.str[dd] = fd_rng_int(&r, 1, 2);
            c.pad[dd] = fd_rng_int(&r, 0, c.f[dd]);
            int span = (c.f[dd] - 1) * c.dil[dd] + 1;
            c.in[dd] = fd_rng_int(&r, span > 3 ? span : 3, c.nsp == 3 ? 5 : 17);
        }
        c.flip = fd_rng_int(&r, 0, 1);
        c.padded = fd_rng_int(&r, 0, 2) == 0;
        c.alpha = ab[i % 7][0], c.beta = ab[(i / 7) % 7][1];
        cc8_check(cpu, ref, d, &c, 0);
    }
    /* the 32-bit wrap: 4096 x 36 products of (-128)^2 = 2^31 + 2^28 per output */
    cc8_t wrap = {.nsp = 2, .n = 1, .c = 4096, .k = 20, .groups = 1, .in = {6, 6}, .f = {6, 6},
                  .str = {1, 1}, .dil = {1, 1}, .ydt = CUDNN_DATA_FLOAT, .alpha = 1.0f, .seed = 1};
    cc8_check(cpu, ref, d, &wrap, 1);
    wrap.ydt = CUDNN_DATA_INT8, wrap.k = 16, wrap.alpha = 1.0f / 16777216.0f;
    cc8_check(cpu, ref, d, &wrap, 1);
    /* a ResNet-50 3x3 layer (small batch, so ref stays quick) */
    cc8_t rn = {.nsp = 2, .n = 1, .c = 64, .k = 64, .groups = 1, .in = {28, 28}, .f = {3, 3},
                .pad = {1, 1}, .str = {1, 1}, .dil = {1, 1}, .ydt = CUDNN_DATA_INT8, .alpha = 1.0f / 512.0f,
                .seed = 2};
    cc8_check(cpu, ref, d, &rn, 0);
}

/* ---- --bench ----------------------------------------------------------------------------------- */

/* Wall time, or with OMP_NUM_THREADS=1 the process's CPU time, which the load of a shared
 * machine does not inflate (time spent waiting for a core is not counted). */
static double now(void)
{
    struct timespec ts;
    const char *t = getenv("OMP_NUM_THREADS");
    clock_gettime(t && strcmp(t, "1") == 0 ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Best of `reps` seconds of one forward call. */
static double time_fwd(cudnnHandle_t h, cudnnTensorDescriptor_t xd, const void *x, cudnnFilterDescriptor_t wd,
                       const void *w, cudnnConvolutionDescriptor_t cd, int algo, cudnnTensorDescriptor_t yd,
                       void *y, int reps)
{
    size_t ws = 0;
    if (cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, (cudnnConvolutionFwdAlgo_t)algo, &ws) !=
        CUDNN_STATUS_SUCCESS)
        return -1.0;
    void *wsp = ws ? malloc(ws) : NULL;
    float one = 1.0f, zero = 0.0f;
    double best = 1e30;
    for (int i = 0; i < reps; i++) {
        double t0 = now();
        cudnnStatus_t st = cudnnConvolutionForward(h, &one, xd, x, wd, w, cd, (cudnnConvolutionFwdAlgo_t)algo,
                                                   wsp, ws, &zero, yd, y);
        double t = now() - t0;
        if (st != CUDNN_STATUS_SUCCESS) {
            best = -1.0;
            break;
        }
        best = t < best ? t : best;
    }
    free(wsp);
    return best;
}

static int bench(cudnnHandle_t cpu, cudnnHandle_t ref)
{
    static const int shapes[][6] = {/* n, c, hw, k, r, stride */
                                    {1, 64, 56, 64, 3, 1},
                                    {1, 128, 28, 128, 3, 1},
                                    {1, 256, 14, 256, 3, 1},
                                    {1, 256, 56, 64, 1, 1},
                                    {8, 64, 56, 64, 3, 1}};
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnCreateTensorDescriptor(&xd), cudnnCreateTensorDescriptor(&yd);
    cudnnCreateFilterDescriptor(&wd), cudnnCreateConvolutionDescriptor(&cd);
    printf("%-28s %10s %10s %10s %8s %8s\n", "layer (NHWC int8 / NCHW f32)", "int8 GOPS", "ref GOPS",
           "f32 GFLOPS", "x ref", "x f32");
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const int n = shapes[i][0], c = shapes[i][1], hw = shapes[i][2], k = shapes[i][3], r = shapes[i][4];
        const int pad = r / 2, oh = hw;
        const double ops = 2.0 * n * k * oh * oh * (double)c * r * r;
        int8_t *x8 = calloc((size_t)n * c * hw * hw, 1), *w8 = calloc((size_t)k * c * r * r, 1),
               *y8 = calloc((size_t)n * k * oh * oh, 1);
        float *xf = calloc((size_t)n * c * hw * hw, 4), *wf = calloc((size_t)k * c * r * r, 4),
              *yf = calloc((size_t)n * k * oh * oh, 4);
        fd_rng_t rng;
        fd_rng_seed(&rng, 7);
        for (size_t j = 0; j < (size_t)n * c * hw * hw; j++)
            x8[j] = (int8_t)fd_rng_int(&rng, -128, 127), xf[j] = x8[j];
        for (size_t j = 0; j < (size_t)k * c * r * r; j++)
            w8[j] = (int8_t)fd_rng_int(&rng, -128, 127), wf[j] = w8[j];
        cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NHWC, CUDNN_DATA_INT8, n, c, hw, hw);
        cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NHWC, CUDNN_DATA_INT8, n, k, oh, oh);
        cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_INT8, CUDNN_TENSOR_NHWC, k, c, r, r);
        cudnnSetConvolution2dDescriptor(cd, pad, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_INT32);
        double t8 = time_fwd(cpu, xd, x8, wd, w8, cd, 1, yd, y8, 5);
        double tr = n == 1 ? time_fwd(ref, xd, x8, wd, w8, cd, 1, yd, y8, 1) : -1.0;
        cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, hw, hw);
        cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, k, oh, oh);
        cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, r, r);
        cudnnSetConvolution2dDescriptor(cd, pad, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
        double tf = time_fwd(cpu, xd, xf, wd, wf, cd, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, yd, yf, 5);
        char name[64];
        snprintf(name, sizeof name, "n%d c%d %dx%d k%d %dx%d", n, c, hw, hw, k, r, r);
        printf("%-28s %10.1f %10.2f %10.1f %8.1f %8.2f\n", name, ops / t8 * 1e-9, tr > 0 ? ops / tr * 1e-9 : 0.0,
               tf > 0 ? ops / tf * 1e-9 : 0.0, tr > 0 ? tr / t8 : 0.0, tf > 0 ? tf / t8 : 0.0);
        free(x8), free(w8), free(y8), free(xf), free(wf), free(yf);
    }
    cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd), cudnnDestroyConvolutionDescriptor(cd);
    return 0;
}

/* This program's checks in a child process with `env`; 1 when it passed. */
static int child_checks(const char *env)
{
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return 0;
    self[len] = '\0';
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "%s '%s' --checks", env, self);
    return system(cmd) == 0;
}

int main(int argc, char **argv)
{
    cudnnHandle_t cpu, ref;
    FD_EXPECT_STATUS(freednnCreateWithBackend(&cpu, FREEDNN_BACKEND_CPU), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(freednnCreateWithBackend(&ref, FREEDNN_BACKEND_REF), CUDNN_STATUS_SUCCESS);
    if (argc > 1 && strcmp(argv[1], "--bench") == 0)
        return bench(cpu, ref);
    const int child = argc > 1 && strcmp(argv[1], "--checks") == 0;
    cc8_desc_t d;
    cudnnCreateTensorDescriptor(&d.xd), cudnnCreateTensorDescriptor(&d.yd);
    cudnnCreateFilterDescriptor(&d.wd), cudnnCreateConvolutionDescriptor(&d.cd);
    setenv("FREEDNN_LOG_DISPATCH", "1", 1);
    FD_EXPECT_STATUS(cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, on_log), CUDNN_STATUS_SUCCESS);
    checks(cpu, ref, &d);
    /* Get_v7 on a cpu handle puts the VNNI row's enum first (IMPLICIT_GEMM is the ref's) */
    cudnnSetTensor4dDescriptor(d.xd, CUDNN_TENSOR_NHWC, CUDNN_DATA_INT8, 1, 64, 14, 14);
    cudnnSetTensor4dDescriptor(d.yd, CUDNN_TENSOR_NHWC, CUDNN_DATA_INT8, 1, 64, 14, 14);
    cudnnSetFilter4dDescriptor(d.wd, CUDNN_DATA_INT8, CUDNN_TENSOR_NHWC, 64, 64, 3, 3);
    cudnnSetConvolution2dDescriptor(d.cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_INT32);
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int got = 0;
    FD_EXPECT_STATUS(cudnnGetConvolutionForwardAlgorithm_v7(cpu, d.xd, d.wd, d.cd, d.yd,
                                                            CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, perf),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(got > 0 && perf[0].algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM &&
                  perf[0].status == CUDNN_STATUS_SUCCESS,
              "Get_v7 on cpu, INT8: first algo %d (status %d), want IMPLICIT_PRECOMP_GEMM", got > 0 ? (int)perf[0].algo : -1,
              got > 0 ? (int)perf[0].status : -1);
    cudnnSetCallback(0, NULL, NULL);
    unsetenv("FREEDNN_LOG_DISPATCH");
    uint64_t forced;
    if (!child && !fd_test_seed_forced(&forced)) {
        static const char *const envs[] = {"OMP_NUM_THREADS=1", "OMP_NUM_THREADS=2",
                                           "OMP_NUM_THREADS=1 FREEDNN_CPU_ISA=avx2",
                                           "OMP_NUM_THREADS=2 FREEDNN_CPU_ISA=avx2",
                                           "OMP_NUM_THREADS=3 FREEDNN_CPU_ISA=generic"};
        for (size_t i = 0; i < sizeof envs / sizeof envs[0]; i++)
            FD_EXPECT(child_checks(envs[i]), "the checks failed with %s", envs[i]);
    }
    cudnnDestroyTensorDescriptor(d.xd), cudnnDestroyTensorDescriptor(d.yd);
    cudnnDestroyFilterDescriptor(d.wd), cudnnDestroyConvolutionDescriptor(d.cd);
    cudnnDestroy(cpu), cudnnDestroy(ref);
    return fd_test_finish();
}
