/* SPDX-License-Identifier: MIT */
/*
 * compat_v7.c - a cuDNN 7.6.5 program: built against freednn's cudnn.h but linked against a
 * stand-in libcudnn.so.7 (tests/compat/CMakeLists.txt), so every cudnn* reference is
 * cudnnX@libcudnn.so.7, as in a binary built against NVIDIA's 7.6.5. Run with LD_LIBRARY_PATH
 * naming a directory where libcudnn.so.7 is freednn, it must see cuDNN 7 behaviour (issue 8,
 * DESIGN D2): statuses numbered 0..14 (returned, in perf structs, in out-parameters, in the
 * callback's cudnnDebug_t), version 7605 / 7.6.5, v7 error strings, the functions NVIDIA removed
 * later, and a right convolution. The header's CUDNN_STATUS_* constants are cuDNN 9's, so
 * this file names the v7 numbers itself; the library's own cuDNN 9 node (dlvsym
 * "libcudnn.so.9") answers the same calls for comparison.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn.h"

/* cuDNN 7.6.5's cudnnStatus_t (+ 8.0's VERSION_MISMATCH). */
enum {
    V7_SUCCESS = 0, V7_NOT_INITIALIZED = 1, V7_ALLOC_FAILED = 2, V7_BAD_PARAM = 3,
    V7_INTERNAL_ERROR = 4, V7_INVALID_VALUE = 5, V7_ARCH_MISMATCH = 6, V7_MAPPING_ERROR = 7,
    V7_EXECUTION_FAILED = 8, V7_NOT_SUPPORTED = 9, V7_LICENSE_ERROR = 10,
    V7_RUNTIME_PREREQUISITE_MISSING = 11, V7_RUNTIME_IN_PROGRESS = 12,
    V7_RUNTIME_FP_OVERFLOW = 13, V7_VERSION_MISMATCH = 14
};
static const char *const v7_names[] = {
    "CUDNN_STATUS_SUCCESS", "CUDNN_STATUS_NOT_INITIALIZED", "CUDNN_STATUS_ALLOC_FAILED",
    "CUDNN_STATUS_BAD_PARAM", "CUDNN_STATUS_INTERNAL_ERROR", "CUDNN_STATUS_INVALID_VALUE",
    "CUDNN_STATUS_ARCH_MISMATCH", "CUDNN_STATUS_MAPPING_ERROR", "CUDNN_STATUS_EXECUTION_FAILED",
    "CUDNN_STATUS_NOT_SUPPORTED", "CUDNN_STATUS_LICENSE_ERROR",
    "CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING", "CUDNN_STATUS_RUNTIME_IN_PROGRESS",
    "CUDNN_STATUS_RUNTIME_FP_OVERFLOW", "CUDNN_STATUS_VERSION_MISMATCH"};

/* What a v9 status must become at the v7 boundary (docs/compat.md), written independently of
 * src/core/personality.c. */
static int expected_v7(int v9)
{
    switch (v9) {
    case 0: return V7_SUCCESS;
    case 1001: return V7_NOT_INITIALIZED;
    case 1002: return V7_VERSION_MISMATCH;
    case 1003: return V7_BAD_PARAM;
    case 1004: case 1008: return V7_NOT_SUPPORTED;
    case 1005: return V7_LICENSE_ERROR;
    case 1006: return V7_RUNTIME_IN_PROGRESS;
    case 1007: return V7_RUNTIME_FP_OVERFLOW;
    case 2001: return V7_INVALID_VALUE;
    case 3007: return V7_ARCH_MISMATCH;
    case 3008: return V7_RUNTIME_PREREQUISITE_MISSING;
    case 4003: case 4004: return V7_ALLOC_FAILED;
    case 4006: return V7_MAPPING_ERROR;
    }
    switch (v9 / 1000) {
    case 2: return V7_BAD_PARAM;
    case 3: return V7_NOT_SUPPORTED;
    case 5: return V7_EXECUTION_FAILED;
    default: return V7_INTERNAL_ERROR;
    }
}

static int failed, passed;

#define EXPECT(cond, ...)                                                                      \
    do {                                                                                       \
        if (cond) {                                                                            \
            passed++;                                                                          \
        } else {                                                                               \
            failed++;                                                                          \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
            printf(__VA_ARGS__);                                                               \
            printf("\n");                                                                      \
        }                                                                                      \
    } while (0)
#define OK(call)                                                                               \
    do {                                                                                       \
        int s_ = (int)(call);                                                                  \
        if (s_ != V7_SUCCESS) {                                                                \
            failed++;                                                                          \
            printf("FAIL %s:%d: %s -> %d\n", __FILE__, __LINE__, #call, s_);                   \
            return;                                                                            \
        }                                                                                      \
    } while (0)

/* The library's cuDNN 9 entry point of the same function, for side-by-side answers. */
#define V9(fn) ((__typeof__(&fn))v9_symbol(#fn))
static void *v9_symbol(const char *name)
{
    void *p = dlvsym(RTLD_DEFAULT, name, "libcudnn.so.9");
    if (p == NULL)
        p = dlvsym(RTLD_DEFAULT, name, "FREEDNN_0"); /* the ones NVIDIA removed by 9.0 */
    if (p == NULL) {
        printf("FAIL: %s has no cuDNN 9 version in this process\n", name);
        exit(1);
    }
    return p;
}

static void check_provenance(void)
{
    void *create = dlvsym(RTLD_DEFAULT, "cudnnCreate", "libcudnn.so.7");
    void *own = dlsym(RTLD_DEFAULT, "freednnGetVersion");
    Dl_info a, b;
    EXPECT(create != NULL, "cudnnCreate@libcudnn.so.7 does not resolve");
    EXPECT(own != NULL, "freednnGetVersion is not in the process: this is not freednn");
    if (create == NULL || own == NULL)
        exit(1);
    EXPECT(dladdr(create, &a) && dladdr(own, &b), "dladdr failed");
    char real[PATH_MAX];
    if (realpath(a.dli_fname, real) == NULL)
        snprintf(real, sizeof real, "?");
    printf("cudnnCreate@libcudnn.so.7 comes from %s (-> %s)\n", a.dli_fname, real);
    EXPECT(a.dli_fbase == b.dli_fbase && strstr(real, "libfreednn") != NULL,
           "cudnnCreate@libcudnn.so.7 is not freednn's");
    EXPECT(create != v9_symbol("cudnnCreate"), "the v7 and v9 cudnnCreate are the same function");
}

static void check_versions(void)
{
    int v[3] = {-1, -1, -1};
    for (int i = 0; i < 3; i++)
        EXPECT((int)cudnnGetProperty((libraryPropertyType)i, &v[i]) == V7_SUCCESS, "property %d", i);
    printf("cudnnGetVersion() = %zu, cudnnGetProperty = %d.%d.%d (cuDNN 9 node: %zu)\n",
           cudnnGetVersion(), v[0], v[1], v[2], V9(cudnnGetVersion)());
    EXPECT(cudnnGetVersion() == 7605, "cudnnGetVersion() = %zu, want 7605", cudnnGetVersion());
    EXPECT(v[0] == 7 && v[1] == 6 && v[2] == 5, "cudnnGetProperty gives %d.%d.%d", v[0], v[1], v[2]);
    EXPECT(V9(cudnnGetVersion)() / 10000 == 9, "the cuDNN 9 node says %zu", V9(cudnnGetVersion)());
    int bad = 0;
    EXPECT((int)cudnnGetProperty((libraryPropertyType)7, &bad) == V7_BAD_PARAM,
           "cudnnGetProperty(7) is not BAD_PARAM (3)");
}

static void check_error_strings(void)
{
    for (int i = 0; i <= 14; i++)
        EXPECT(strcmp(cudnnGetErrorString((cudnnStatus_t)i), v7_names[i]) == 0,
               "cudnnGetErrorString(%d) = %s, want %s", i, cudnnGetErrorString((cudnnStatus_t)i),
               v7_names[i]);
    EXPECT(strcmp(cudnnGetErrorString((cudnnStatus_t)2000), "CUDNN_UNKNOWN_STATUS") == 0,
           "cudnnGetErrorString(2000) through v7 = %s", cudnnGetErrorString((cudnnStatus_t)2000));
    printf("cudnnGetErrorString(3) = %s; through the cuDNN 9 node (3000) = %s\n",
           cudnnGetErrorString((cudnnStatus_t)3),
           V9(cudnnGetErrorString)(CUDNN_STATUS_NOT_SUPPORTED));
}

/* The callback registered through libcudnn.so.7 sees v7 numbers and version 7605. */
static int cb_calls;
static cudnnDebug_t cb_last;
static void callback(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev;
    (void)msg;
    if (udata == (void *)&cb_calls) {
        cb_calls++;
        cb_last = *dbg;
    }
}

/* Failing calls, answered by both nodes: v7 must equal the mapping of v9. */
static void check_statuses(void)
{
    cudnnTensorDescriptor_t t = NULL;
    cudnnConvolutionDescriptor_t cd = NULL;
    cudnnFilterDescriptor_t fd = NULL;
    cudnnHandle_t h;
    int s7, s9, saw_bad = 0, saw_unsupported = 0;

    OK(cudnnCreate(&h));
    OK(cudnnSetCallback(CUDNN_SEV_ERROR_EN, &cb_calls, callback));
    s7 = (int)cudnnCreateTensorDescriptor(NULL);
    EXPECT(s7 == V7_BAD_PARAM, "cudnnCreateTensorDescriptor(NULL) = %d, want BAD_PARAM (3)", s7);
    EXPECT(cb_calls == 1 && (int)cb_last.cudnnStatus == V7_BAD_PARAM && cb_last.cudnn_version == 7605,
           "callback: %d calls, cudnnStatus %d, cudnn_version %u (want 1, 3, 7605)", cb_calls,
           (int)cb_last.cudnnStatus, cb_last.cudnn_version);
    printf("callback through v7: cudnnStatus = %d, cudnn_version = %u\n", (int)cb_last.cudnnStatus,
           cb_last.cudnn_version);
    /* Registered through the cuDNN 9 node, the same callback sees cuDNN 9 values. */
    OK(V9(cudnnSetCallback)(CUDNN_SEV_ERROR_EN, &cb_calls, callback));
    V9(cudnnCreateTensorDescriptor)(NULL);
    EXPECT(cb_calls == 2 && CUDNN_STATUS_CATEGORY(cb_last.cudnnStatus) == 2000 &&
               cb_last.cudnn_version / 10000 == 9,
           "callback through v9: cudnnStatus %d, cudnn_version %u", (int)cb_last.cudnnStatus,
           cb_last.cudnn_version);
    OK(cudnnSetCallback(CUDNN_SEV_ERROR_EN | CUDNN_SEV_WARNING_EN, NULL, NULL));

    OK(cudnnCreateTensorDescriptor(&t));
    OK(cudnnCreateFilterDescriptor(&fd));
    OK(cudnnCreateConvolutionDescriptor(&cd));
    OK(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 2, 4, 4));
    OK(cudnnSetFilter4dDescriptor(fd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, 2, 3, 3));
    OK(cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    size_t ws = 0;
    struct {
        const char *what;
        int v7, v9;
    } rows[] = {
        {"SetTensor4dDescriptor(n = -1)",
         (int)cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, -1, 2, 4, 4),
         (int)V9(cudnnSetTensor4dDescriptor)(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, -1, 2, 4, 4)},
        {"SetConvolution2dDescriptor(stride 0)",
         (int)cudnnSetConvolution2dDescriptor(cd, 0, 0, 0, 1, 1, 1, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT),
         (int)V9(cudnnSetConvolution2dDescriptor)(cd, 0, 0, 0, 1, 1, 1, CUDNN_CONVOLUTION,
                                                  CUDNN_DATA_FLOAT)},
        {"GetConvolutionForwardWorkspaceSize(algo COUNT)",
         (int)cudnnGetConvolutionForwardWorkspaceSize(h, t, fd, cd, t,
                                                      CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &ws),
         (int)V9(cudnnGetConvolutionForwardWorkspaceSize)(h, t, fd, cd, t,
                                                          CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &ws)},
        {"BatchNormalizationForwardInference(int8)", 0, 0},
        {"DestroyTensorDescriptor(filter)",
         (int)cudnnDestroyTensorDescriptor((cudnnTensorDescriptor_t)(void *)fd),
         (int)V9(cudnnDestroyTensorDescriptor)((cudnnTensorDescriptor_t)(void *)fd)},
        {"SetActivationDescriptor(mode 99)", 0, 0},
    };
    /* Batch norm on int8 data: legal, but cuDNN (and freednn) only normalizes floating types. */
    cudnnTensorDescriptor_t i8 = NULL, bnp = NULL;
    signed char i8x[8] = {0}, i8y[8];
    float bn_p[2] = {1, 1};
    const float one = 1.0f, zero = 0.0f;
    OK(cudnnCreateTensorDescriptor(&i8));
    OK(cudnnCreateTensorDescriptor(&bnp));
    OK(cudnnSetTensor4dDescriptor(i8, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, 1, 2, 2, 2));
    OK(cudnnSetTensor4dDescriptor(bnp, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 2, 1, 1));
    rows[3].v7 = (int)cudnnBatchNormalizationForwardInference(
        h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, i8, i8x, i8, i8y, bnp, bn_p, bn_p, bn_p, bn_p, 1e-5);
    rows[3].v9 = (int)V9(cudnnBatchNormalizationForwardInference)(
        h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, i8, i8x, i8, i8y, bnp, bn_p, bn_p, bn_p, bn_p, 1e-5);
    cudnnDestroyTensorDescriptor(bnp);
    cudnnDestroyTensorDescriptor(i8);
    cudnnActivationDescriptor_t ad = NULL;
    OK(cudnnCreateActivationDescriptor(&ad));
    rows[5].v7 = (int)cudnnSetActivationDescriptor(ad, (cudnnActivationMode_t)99,
                                                   CUDNN_NOT_PROPAGATE_NAN, 0.0);
    rows[5].v9 = (int)V9(cudnnSetActivationDescriptor)(ad, (cudnnActivationMode_t)99,
                                                       CUDNN_NOT_PROPAGATE_NAN, 0.0);
    cudnnDestroyActivationDescriptor(ad);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        s7 = rows[i].v7;
        s9 = rows[i].v9;
        printf("  %-48s v7 %2d (%s)  v9 %4d (%s)\n", rows[i].what, s7,
               cudnnGetErrorString((cudnnStatus_t)s7), s9,
               V9(cudnnGetErrorString)((cudnnStatus_t)s9));
        EXPECT(s9 != 0 && s7 == expected_v7(s9), "%s: v7 %d is not the v7 form of v9 %d (%d)",
               rows[i].what, s7, s9, expected_v7(s9));
        saw_bad |= s7 == V7_BAD_PARAM;
        saw_unsupported |= s7 == V7_NOT_SUPPORTED;
    }
    EXPECT(saw_bad && saw_unsupported, "want both BAD_PARAM (3) and NOT_SUPPORTED (9) among them");

    /* Status out-parameters and inputs: cudnnQueryRuntimeError, algorithm performance records. */
    cudnnStatus_t rs = (cudnnStatus_t)-1;
    OK(cudnnQueryRuntimeError(h, &rs, CUDNN_ERRQUERY_BLOCKING, NULL));
    EXPECT((int)rs == V7_SUCCESS, "runtime error status %d", (int)rs);
    cudnnAlgorithmPerformance_t perf;
    cudnnAlgorithmDescriptor_t alg;
    cudnnAlgorithm_t a;
    a.algo.convFwdAlgo = CUDNN_CONVOLUTION_FWD_ALGO_GEMM;
    OK(cudnnCreateAlgorithmPerformance(&perf, 1));
    OK(cudnnCreateAlgorithmDescriptor(&alg));
    OK(cudnnSetAlgorithmDescriptor(alg, a));
    OK(cudnnSetAlgorithmPerformance(perf, alg, (cudnnStatus_t)V7_NOT_SUPPORTED, 1.5f, 64));
    cudnnAlgorithmDescriptor_t got_alg;
    cudnnStatus_t st7 = (cudnnStatus_t)-1, st9 = (cudnnStatus_t)-1;
    float time;
    size_t mem;
    OK(cudnnGetAlgorithmPerformance(perf, &got_alg, &st7, &time, &mem));
    OK(V9(cudnnGetAlgorithmPerformance)(perf, &got_alg, &st9, &time, &mem));
    printf("algorithm performance status: set 9 through v7; read %d through v7, %d through v9\n",
           (int)st7, (int)st9);
    EXPECT((int)st7 == V7_NOT_SUPPORTED && st9 == CUDNN_STATUS_NOT_SUPPORTED,
           "performance status %d / %d, want 9 / 3000", (int)st7, (int)st9);
    /* Every cuDNN 9 code, stored through the v9 node, read through v7; and back. */
    static const int v9_codes[][2] = {{0, 0},       {1001, 1008}, {2000, 2012}, {3000, 3014},
                                      {4000, 4006}, {5000, 5004}, {999, 999},   {6000, 6000}};
    int mapped = 0;
    for (size_t r = 0; r < sizeof v9_codes / sizeof v9_codes[0]; r++)
        for (int code = v9_codes[r][0]; code <= v9_codes[r][1]; code++) {
            OK(V9(cudnnSetAlgorithmPerformance)(perf, alg, (cudnnStatus_t)code, 1.0f, 0));
            OK(cudnnGetAlgorithmPerformance(perf, &got_alg, &st7, &time, &mem));
            EXPECT((int)st7 == expected_v7(code), "v9 status %d reads as %d through v7, want %d",
                   code, (int)st7, expected_v7(code));
            mapped++;
        }
    static const int v7_to_v9[15] = {0,    1001, 4003, 2000, 4000, 2001, 3007, 4006,
                                     5000, 3000, 1005, 3008, 1006, 1007, 1002};
    for (int code = 0; code <= 14; code++) {
        OK(cudnnSetAlgorithmPerformance(perf, alg, (cudnnStatus_t)code, 1.0f, 0));
        OK(V9(cudnnGetAlgorithmPerformance)(perf, &got_alg, &st9, &time, &mem));
        EXPECT((int)st9 == v7_to_v9[code], "v7 status %d reads as %d through v9, want %d", code,
               (int)st9, v7_to_v9[code]);
        mapped++;
    }
    printf("status renumbering checked for %d codes (v9 -> v7 and v7 -> v9)\n", mapped);
    cudnnDestroyAlgorithmDescriptor(alg);
    cudnnDestroyAlgorithmPerformance(&perf, 1);
    cudnnDestroy(h);
    cudnnDestroyConvolutionDescriptor(cd);
    cudnnDestroyFilterDescriptor(fd);
    cudnnDestroyTensorDescriptor(t);
}

/* A convolution the cuDNN 7 way, including the single-answer heuristic removed in 8.0 and the
 * perf structs of Get*_v7 / Find* (their status fields in v7 numbers). */
enum { N = 1, C = 2, H = 4, W = 5, K = 3, R = 3, S = 3 };
static void check_convolution(void)
{
    float x[N * C * H * W], w[K * C * R * S], y[N * K * H * W];
    double want[N * K * H * W] = {0};
    for (int i = 0; i < N * C * H * W; i++)
        x[i] = (float)((i * 3) % 7 - 3);
    for (int i = 0; i < K * C * R * S; i++)
        w[i] = (float)((i * 5) % 3 - 1);
    for (int k = 0; k < K; k++) /* pad 1, stride 1, true convolution (filter flipped) */
        for (int p = 0; p < H; p++)
            for (int q = 0; q < W; q++)
                for (int c = 0; c < C; c++)
                    for (int r = 0; r < R; r++)
                        for (int s = 0; s < S; s++) {
                            int hh = p - 1 + r, ww = q - 1 + s;
                            if (hh >= 0 && hh < H && ww >= 0 && ww < W)
                                want[(k * H + p) * W + q] += (double)x[(c * H + hh) * W + ww] *
                                    w[((k * C + c) * R + (R - 1 - r)) * S + (S - 1 - s)];
                        }
    cudnnHandle_t h;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    OK(cudnnCreate(&h));
    OK(cudnnCreateTensorDescriptor(&xd));
    OK(cudnnCreateTensorDescriptor(&yd));
    OK(cudnnCreateFilterDescriptor(&wd));
    OK(cudnnCreateConvolutionDescriptor(&cd));
    OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
    OK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, H, W));
    OK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, S));
    OK(cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT));

    cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
    OK(cudnnGetConvolutionForwardAlgorithm(h, xd, wd, cd, yd, CUDNN_CONVOLUTION_FWD_PREFER_FASTEST,
                                           0, &algo));
    printf("cudnnGetConvolutionForwardAlgorithm (removed in 8.0) picks algo %d\n", (int)algo);

    cudnnConvolutionFwdAlgoPerf_t p7[8], p9[8];
    int n7 = 0, n9 = 0;
    memset(p7, 0xff, sizeof p7);
    OK(cudnnGetConvolutionForwardAlgorithm_v7(h, xd, wd, cd, yd, 8, &n7, p7));
    OK(V9(cudnnGetConvolutionForwardAlgorithm_v7)(h, xd, wd, cd, yd, 8, &n9, p9));
    EXPECT(n7 == n9 && n7 > 0, "Get_v7 returned %d (v7) / %d (v9) results", n7, n9);
    for (int i = 0; i < n7 && i < n9; i++)
        EXPECT(p7[i].algo == p9[i].algo && (int)p7[i].status == expected_v7((int)p9[i].status),
               "Get_v7 perf[%d]: algo %d status %d (v7) vs algo %d status %d (v9)", i,
               (int)p7[i].algo, (int)p7[i].status, (int)p9[i].algo, (int)p9[i].status);
    memset(p7, 0xff, sizeof p7);
    OK(cudnnFindConvolutionForwardAlgorithm(h, xd, wd, cd, yd, 8, &n7, p7));
    printf("cudnnFindConvolutionForwardAlgorithm: %d results, statuses", n7);
    for (int i = 0; i < n7; i++) {
        printf(" %d", (int)p7[i].status);
        EXPECT((int)p7[i].status >= 0 && (int)p7[i].status <= 14, "perf[%d].status %d is no v7 code",
               i, (int)p7[i].status);
    }
    printf("\n");
    EXPECT(n7 > 0 && p7[0].status == 0, "the best found algorithm did not succeed");

    size_t ws_size = 0;
    OK(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, algo, &ws_size));
    void *ws = ws_size ? malloc(ws_size) : NULL;
    const float one = 1.0f, zero = 0.0f;
    memset(y, 0xff, sizeof y);
    OK(cudnnConvolutionForward(h, &one, xd, x, wd, w, cd, algo, ws, ws_size, &zero, yd, y));
    free(ws);
    int bad = -1;
    for (int i = 0; i < N * K * H * W && bad < 0; i++)
        if ((double)y[i] != want[i])
            bad = i;
    EXPECT(bad < 0, "conv y[%d] = %g, want %g", bad, bad < 0 ? 0.0 : (double)y[bad],
           bad < 0 ? 0.0 : want[bad]);
    if (bad < 0)
        printf("ok   convolution forward through libcudnn.so.7 (%d values, exact)\n", N * K * H * W);
    cudnnDestroyConvolutionDescriptor(cd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroy(h);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    check_provenance();
    check_versions();
    check_error_strings();
    check_statuses();
    check_convolution();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
