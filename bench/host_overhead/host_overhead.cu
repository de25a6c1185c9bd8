/* SPDX-License-Identifier: MIT */
/*
 * host_overhead.cu - issue 7.3: the host time of one convolution call with everything cached
 * (descriptors made once, the algorithm chosen once, the workspace allocated once), for any
 * library with cuDNN's API: ours or NVIDIA's, loaded with dlopen so both are measured by the same
 * code. Per (direction, problem): 50 warm-up calls, then WINDOWS windows of CALLS back-to-back
 * calls on one stream, host clock around the window only, a stream synchronisation after it
 * (CALLS stays under the launch queue's depth, so a call never waits for the GPU); the figure
 * is the median over windows of window time / CALLS. Beside it: the workspace-size query (the
 * API's validation and implementation choice without a launch) and an empty kernel's
 * cudaLaunchKernel (the floor any library pays per launch). The problems are small (N = 1,
 * 8x8 or 14x14), so their GPU time per call stays below the host time and the queue drains.
 * Build and run (on a GPU machine; nvcc and the runtime from the toolkit):
 *   make -C bench/host_overhead
 *   bench/host_overhead/host_overhead build-gpu/libfreednn.so
 *   bench/host_overhead/host_overhead $NVIDIA/libcudnn.so.9
 * HOST_PROBES=1 also times the pieces of a launch alone (an empty kernel with a wgmma-sized
 * parameter block, through <<<>>> and the driver's cuLaunchKernel; cudaGetDevice; cudaGetLastError;
 * one cuTensorMapEncodeTiled).
 * Output: one line per (direction, problem): algorithm, host us/call, query us/call, empty
 * launch us, GPU us/call (events over one window), then a median line per library.
 */
#include <cuda.h> /* CUtensorMap, CUfunction: driver entry points are looked up, not linked */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cudnn.h"

#define WINDOWS 21
#define CALLS 200

__global__ void empty_kernel(void) {}

/* A parameter block the size of the wgmma rows' (two tensor maps and ~200 bytes of arguments). */
typedef struct {
    CUtensorMap a, b;
    char rest[192];
} big_params_t;
__global__ void empty_kernel_big(const __grid_constant__ big_params_t p)
{
    if (p.rest[0] == 1 && threadIdx.x == 1000)
        asm volatile("trap;");
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmp_d);
    return v[n / 2];
}

/* The library's entry points this program uses. */
static struct {
    cudnnStatus_t (*create)(cudnnHandle_t *);
    cudnnStatus_t (*destroy)(cudnnHandle_t);
    cudnnStatus_t (*set_stream)(cudnnHandle_t, cudaStream_t);
    const char *(*error)(cudnnStatus_t);
    cudnnStatus_t (*create_t)(cudnnTensorDescriptor_t *);
    cudnnStatus_t (*set_t4)(cudnnTensorDescriptor_t, cudnnTensorFormat_t, cudnnDataType_t, int, int, int, int);
    cudnnStatus_t (*create_f)(cudnnFilterDescriptor_t *);
    cudnnStatus_t (*set_f4)(cudnnFilterDescriptor_t, cudnnDataType_t, cudnnTensorFormat_t, int, int, int, int);
    cudnnStatus_t (*create_c)(cudnnConvolutionDescriptor_t *);
    cudnnStatus_t (*set_c2)(cudnnConvolutionDescriptor_t, int, int, int, int, int, int, cudnnConvolutionMode_t,
                            cudnnDataType_t);
    cudnnStatus_t (*set_math)(cudnnConvolutionDescriptor_t, cudnnMathType_t);
    cudnnStatus_t (*fwd_algo)(cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,
                              cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int, int *,
                              cudnnConvolutionFwdAlgoPerf_t *);
    cudnnStatus_t (*bwd_data_algo)(cudnnHandle_t, cudnnFilterDescriptor_t, cudnnTensorDescriptor_t,
                                   cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int, int *,
                                   cudnnConvolutionBwdDataAlgoPerf_t *);
    cudnnStatus_t (*bwd_filter_algo)(cudnnHandle_t, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t,
                                     cudnnConvolutionDescriptor_t, cudnnFilterDescriptor_t, int, int *,
                                     cudnnConvolutionBwdFilterAlgoPerf_t *);
    cudnnStatus_t (*fwd_ws)(cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,
                            cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, cudnnConvolutionFwdAlgo_t,
                            size_t *);
    cudnnStatus_t (*bwd_data_ws)(cudnnHandle_t, cudnnFilterDescriptor_t, cudnnTensorDescriptor_t,
                                 cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t,
                                 cudnnConvolutionBwdDataAlgo_t, size_t *);
    cudnnStatus_t (*bwd_filter_ws)(cudnnHandle_t, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t,
                                   cudnnConvolutionDescriptor_t, cudnnFilterDescriptor_t,
                                   cudnnConvolutionBwdFilterAlgo_t, size_t *);
    cudnnStatus_t (*fwd)(cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *,
                         cudnnFilterDescriptor_t, const void *, cudnnConvolutionDescriptor_t,
                         cudnnConvolutionFwdAlgo_t, void *, size_t, const void *, cudnnTensorDescriptor_t, void *);
    cudnnStatus_t (*bwd_data)(cudnnHandle_t, const void *, cudnnFilterDescriptor_t, const void *,
                              cudnnTensorDescriptor_t, const void *, cudnnConvolutionDescriptor_t,
                              cudnnConvolutionBwdDataAlgo_t, void *, size_t, const void *,
                              cudnnTensorDescriptor_t, void *);
    cudnnStatus_t (*bwd_filter)(cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *,
                                cudnnTensorDescriptor_t, const void *, cudnnConvolutionDescriptor_t,
                                cudnnConvolutionBwdFilterAlgo_t, void *, size_t, const void *,
                                cudnnFilterDescriptor_t, void *);
} L;

static void *sym(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    if (p == NULL) {
        fprintf(stderr, "host_overhead: %s has no %s\n", "the library", name);
        exit(2);
    }
    return p;
}

#define LOAD(field, name) *(void **)&L.field = sym(lib, name)
#define OK(call)                                                                                \
    do {                                                                                        \
        cudnnStatus_t st_ = (call);                                                             \
        if (st_ != CUDNN_STATUS_SUCCESS) {                                                      \
            fprintf(stderr, "host_overhead: %s: %s (line %d)\n", #call, L.error(st_), __LINE__); \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

typedef struct {
    const char *name;
    cudnnDataType_t dt;
    cudnnTensorFormat_t fmt;
    cudnnMathType_t math;
    int n, c, h, w, k, r, pad, stride;
} problem_t;

/* One direction of one problem: the call under test, run `count` times. */
typedef struct {
    cudnnHandle_t h;
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t cv;
    void *px, *py, *pw, *ws;
    size_t ws_size;
    int algo;
} setup_t;

static void call(int dir, const setup_t *s, int query)
{
    const float one = 1.0f, zero = 0.0f;
    size_t sz;
    if (dir == 0) {
        if (query)
            OK(L.fwd_ws(s->h, s->x, s->w, s->cv, s->y, (cudnnConvolutionFwdAlgo_t)s->algo, &sz));
        else
            OK(L.fwd(s->h, &one, s->x, s->px, s->w, s->pw, s->cv, (cudnnConvolutionFwdAlgo_t)s->algo, s->ws,
                     s->ws_size, &zero, s->y, s->py));
    } else if (dir == 1) {
        if (query)
            OK(L.bwd_data_ws(s->h, s->w, s->y, s->cv, s->x, (cudnnConvolutionBwdDataAlgo_t)s->algo, &sz));
        else
            OK(L.bwd_data(s->h, &one, s->w, s->pw, s->y, s->py, s->cv, (cudnnConvolutionBwdDataAlgo_t)s->algo,
                          s->ws, s->ws_size, &zero, s->x, s->px));
    } else {
        if (query)
            OK(L.bwd_filter_ws(s->h, s->x, s->y, s->cv, s->w, (cudnnConvolutionBwdFilterAlgo_t)s->algo, &sz));
        else
            OK(L.bwd_filter(s->h, &one, s->x, s->px, s->y, s->py, s->cv,
                            (cudnnConvolutionBwdFilterAlgo_t)s->algo, s->ws, s->ws_size, &zero, s->w, s->pw));
    }
}

/* Median over windows of host microseconds per call; *gpu_us: GPU time per call of one window. */
static double time_calls(int dir, const setup_t *s, int query, cudaStream_t st, double *gpu_us)
{
    double v[WINDOWS];
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int i = 0; i < 50; i++)
        call(dir, s, query);
    cudaStreamSynchronize(st);
    for (int wi = 0; wi < WINDOWS; wi++) {
        cudaEventRecord(e0, st);
        const double t0 = now_us();
        for (int i = 0; i < CALLS; i++)
            call(dir, s, query);
        const double t1 = now_us();
        cudaEventRecord(e1, st);
        cudaStreamSynchronize(st);
        v[wi] = (t1 - t0) / CALLS;
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (gpu_us)
            *gpu_us = ms * 1e3 / CALLS;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return median(v, WINDOWS);
}

/* Median over windows of microseconds per call of `body` (CALLS per window). */
#define TIME_BODY(result, ...)                                                   \
    do {                                                                         \
        double v_[WINDOWS];                                                      \
        for (int i_ = 0; i_ < 50; i_++) {                                        \
            __VA_ARGS__;                                                         \
        }                                                                        \
        cudaStreamSynchronize(st);                                               \
        for (int w_ = 0; w_ < WINDOWS; w_++) {                                   \
            const double t0_ = now_us();                                         \
            for (int i_ = 0; i_ < CALLS; i_++) {                                 \
                __VA_ARGS__;                                                     \
            }                                                                    \
            v_[w_] = (now_us() - t0_) / CALLS;                                   \
            cudaStreamSynchronize(st);                                           \
        }                                                                        \
        result = median(v_, WINDOWS);                                            \
    } while (0)

static double empty_launch_us(cudaStream_t st)
{
    double t;
    TIME_BODY(t, empty_kernel<<<1, 32, 0, st>>>());
    return t;
}

typedef CUresult (*encode_fn_t)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
typedef CUresult (*launch_fn_t)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                CUstream, void **, void **);

/* Where a launch's host time goes: the pieces a library call is made of, each timed alone. */
static void launch_probes(cudaStream_t st)
{
    double t;
    big_params_t bp;
    memset(&bp, 0, sizeof bp);
    TIME_BODY(t, empty_kernel_big<<<1, 32, 0, st>>>(bp));
    printf("probe: empty kernel, %zu-byte parameters (<<<>>>): %.2f us/call\n", sizeof bp, t);
    void *fn = NULL, *enc = NULL;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuLaunchKernel", &fn, 12000, cudaEnableDefault, &q) == cudaSuccess && fn != NULL) {
        cudaFunction_t f;
        if (cudaGetFuncBySymbol(&f, (const void *)empty_kernel) == cudaSuccess) {
            launch_fn_t launch = (launch_fn_t)fn;
            TIME_BODY(t, launch((CUfunction)f, 1, 1, 1, 32, 1, 1, 0, (CUstream)st, NULL, NULL));
            printf("probe: empty kernel through the driver's cuLaunchKernel: %.2f us/call\n", t);
        }
        cudaFunction_t fb;
        if (cudaGetFuncBySymbol(&fb, (const void *)empty_kernel_big) == cudaSuccess) {
            launch_fn_t launch = (launch_fn_t)fn;
            void *args[1] = {&bp};
            TIME_BODY(t, launch((CUfunction)fb, 1, 1, 1, 32, 1, 1, 0, (CUstream)st, args, NULL));
            printf("probe: empty kernel, %zu-byte parameters, through cuLaunchKernel: %.2f us/call\n", sizeof bp, t);
        }
    }
    int dev = 0;
    TIME_BODY(t, cudaGetDevice(&dev));
    printf("probe: cudaGetDevice: %.3f us/call\n", t);
    TIME_BODY(t, (void)cudaGetLastError());
    printf("probe: cudaGetLastError: %.3f us/call\n", t);
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &enc, 12000, cudaEnableDefault, &q) == cudaSuccess && enc) {
        void *buf = NULL;
        cudaMalloc(&buf, 1 << 20);
        const cuuint64_t dims[2] = {256, 1024}, str[1] = {512};
        const cuuint32_t box[2] = {64, 128}, es[2] = {1, 1};
        CUtensorMap m;
        encode_fn_t e = (encode_fn_t)enc;
        TIME_BODY(t, e(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, buf, dims, str, box, es,
                       CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
        printf("probe: cuTensorMapEncodeTiled (2-d): %.3f us/call\n", t);
        cudaFree(buf);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s LIBCUDNN.so\n", argv[0]);
        return 2;
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("host_overhead: SKIPPED: no GPU\n");
        return 77;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (lib == NULL) {
        fprintf(stderr, "host_overhead: %s\n", dlerror());
        return 2;
    }
    LOAD(create, "cudnnCreate");
    LOAD(destroy, "cudnnDestroy");
    LOAD(set_stream, "cudnnSetStream");
    LOAD(error, "cudnnGetErrorString");
    LOAD(create_t, "cudnnCreateTensorDescriptor");
    LOAD(set_t4, "cudnnSetTensor4dDescriptor");
    LOAD(create_f, "cudnnCreateFilterDescriptor");
    LOAD(set_f4, "cudnnSetFilter4dDescriptor");
    LOAD(create_c, "cudnnCreateConvolutionDescriptor");
    LOAD(set_c2, "cudnnSetConvolution2dDescriptor");
    LOAD(set_math, "cudnnSetConvolutionMathType");
    LOAD(fwd_algo, "cudnnGetConvolutionForwardAlgorithm_v7");
    LOAD(bwd_data_algo, "cudnnGetConvolutionBackwardDataAlgorithm_v7");
    LOAD(bwd_filter_algo, "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
    LOAD(fwd_ws, "cudnnGetConvolutionForwardWorkspaceSize");
    LOAD(bwd_data_ws, "cudnnGetConvolutionBackwardDataWorkspaceSize");
    LOAD(bwd_filter_ws, "cudnnGetConvolutionBackwardFilterWorkspaceSize");
    LOAD(fwd, "cudnnConvolutionForward");
    LOAD(bwd_data, "cudnnConvolutionBackwardData");
    LOAD(bwd_filter, "cudnnConvolutionBackwardFilter");

    static const problem_t probs[] = {
        {"f16 nhwc n1c64h8w8k64 3x3", CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, CUDNN_TENSOR_OP_MATH, 1, 64, 8, 8, 64, 3, 1, 1},
        {"f16 nhwc n1c256h14w14k64 1x1", CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, CUDNN_TENSOR_OP_MATH, 1, 256, 14, 14, 64, 1, 0, 1},
        {"f16 nhwc n1c64h14w14k64 3x3 s2", CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, CUDNN_TENSOR_OP_MATH, 1, 64, 14, 14, 64, 3, 1, 2},
        {"tf32 nhwc n1c64h8w8k64 3x3", CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, CUDNN_DEFAULT_MATH, 1, 64, 8, 8, 64, 3, 1, 1},
        {"f32 nchw n1c64h8w8k64 3x3", CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, CUDNN_FMA_MATH, 1, 64, 8, 8, 64, 3, 1, 1},
    };
    static const char *const dirs[3] = {"fwd", "bwd_data", "bwd_filter"};
    cudaStream_t st;
    cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    const double launch = empty_launch_us(st);
    double all[3 * sizeof probs / sizeof probs[0]];
    int nall = 0;
    printf("library: %s\nempty kernel launch: %.2f us/call\n", argv[1], launch);
    if (getenv("HOST_PROBES") != NULL)
        launch_probes(st);
    printf("%-34s %-10s %5s %9s %9s %9s\n", "problem", "dir", "algo", "host_us", "query_us", "gpu_us");
    for (size_t pi = 0; pi < sizeof probs / sizeof probs[0]; pi++) {
        const problem_t *p = &probs[pi];
        setup_t s;
        memset(&s, 0, sizeof s);
        OK(L.create(&s.h));
        OK(L.set_stream(s.h, st));
        OK(L.create_t(&s.x));
        OK(L.create_t(&s.y));
        OK(L.create_f(&s.w));
        OK(L.create_c(&s.cv));
        const int p_ = (p->h + 2 * p->pad - p->r) / p->stride + 1;
        OK(L.set_t4(s.x, p->fmt, p->dt, p->n, p->c, p->h, p->w));
        OK(L.set_t4(s.y, p->fmt, p->dt, p->n, p->k, p_, p_));
        OK(L.set_f4(s.w, p->dt, p->fmt, p->k, p->c, p->r, p->r));
        OK(L.set_c2(s.cv, p->pad, p->pad, p->stride, p->stride, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
        OK(L.set_math(s.cv, p->math));
        const size_t es = p->dt == CUDNN_DATA_HALF ? 2 : 4;
        cudaMalloc(&s.px, (size_t)p->n * p->c * p->h * p->w * es);
        cudaMalloc(&s.py, (size_t)p->n * p->k * p_ * p_ * es);
        cudaMalloc(&s.pw, (size_t)p->k * p->c * p->r * p->r * es);
        cudaMemset(s.px, 0, (size_t)p->n * p->c * p->h * p->w * es);
        cudaMemset(s.py, 0, (size_t)p->n * p->k * p_ * p_ * es);
        cudaMemset(s.pw, 0, (size_t)p->k * p->c * p->r * p->r * es);
        for (int d = 0; d < 3; d++) {
            int got = 0;
            if (d == 0) {
                cudnnConvolutionFwdAlgoPerf_t r[8];
                OK(L.fwd_algo(s.h, s.x, s.w, s.cv, s.y, 8, &got, r));
                s.algo = r[0].algo;
                OK(L.fwd_ws(s.h, s.x, s.w, s.cv, s.y, r[0].algo, &s.ws_size));
            } else if (d == 1) {
                cudnnConvolutionBwdDataAlgoPerf_t r[8];
                OK(L.bwd_data_algo(s.h, s.w, s.y, s.cv, s.x, 8, &got, r));
                s.algo = r[0].algo;
                OK(L.bwd_data_ws(s.h, s.w, s.y, s.cv, s.x, r[0].algo, &s.ws_size));
            } else {
                cudnnConvolutionBwdFilterAlgoPerf_t r[8];
                OK(L.bwd_filter_algo(s.h, s.x, s.y, s.cv, s.w, 8, &got, r));
                s.algo = r[0].algo;
                OK(L.bwd_filter_ws(s.h, s.x, s.y, s.cv, s.w, r[0].algo, &s.ws_size));
            }
            s.ws = NULL;
            if (s.ws_size)
                cudaMalloc(&s.ws, s.ws_size);
            double gpu = 0;
            const double host = time_calls(d, &s, 0, st, &gpu);
            const double query = time_calls(d, &s, 1, st, NULL);
            printf("%-34s %-10s %5d %9.2f %9.2f %9.2f\n", p->name, dirs[d], s.algo, host, query, gpu);
            all[nall++] = host;
            cudaFree(s.ws);
        }
        cudaFree(s.px);
        cudaFree(s.py);
        cudaFree(s.pw);
        L.destroy(s.h);
    }
    printf("median host us/call over %d calls: %.2f (empty launch %.2f)\n", nall, median(all, nall), launch);
    return 0;
}
