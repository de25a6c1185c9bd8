/* SPDX-License-Identifier: MIT */
/*
 * elem.cuh - element access by storage type for the elementwise-style kernels of the cuda
 * backend (pooling, activation, softmax, LRN): loads widen FLOAT, HALF and BFLOAT16 to float
 * and DOUBLE to double; stores take a double and round once to the storage type (as fd_store
 * does on the host), so a value computed in double is never rounded twice.
 *
 * fd_cuda_blend is the alpha/beta rule of every src/ref blend_store: alpha * v + beta * old in
 * double, the old value read only when beta != 0 (it may be NaN poison). The products and the
 * sum are rounded separately (__dmul_rn, __dadd_rn) because nvcc would otherwise contract them
 * into one fma and differ from the host reference in the last bit.
 *
 * Everything here is static and inline: any .cu file may include it. FD_CUDA_CAT pastes a
 * kernel name and a storage-type suffix for files that stamp their kernels once per type, and
 * FD_CUDA_TYPED_LAUNCH is the one dtype switch over such stamped kernels (every file of the
 * memory-bound families launches through it).
 *
 * The packed fast paths (activation, tensor ops) share the rest: FD_CUDA_VEC_OF declares the
 * 16-byte aligned vector of one storage type (float4, double2, 8 halves / bfloat16s as one
 * uint4 access), fd_cuda_aligned16 is the pointer test that sends a misaligned call back to
 * the generic kernel, and fd_cuda_wave_blocks sizes a grid-stride grid to a few waves of the
 * device's SMs (read once per process) instead of one block per 256 items: large tensors are
 * then walked by the loop, with FD_CUDA_UNROLL independent 128-bit accesses in flight per
 * thread, which is what a memory-bound kernel needs to approach the copy bandwidth.
 */
#ifndef FD_CUDA_ELEM_CUH_
#define FD_CUDA_ELEM_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "fd_cuda.cuh"

static __device__ __forceinline__ float fd_cuda_ld(const float *p, int64_t i)
{
    return p[i];
}
static __device__ __forceinline__ double fd_cuda_ld(const double *p, int64_t i)
{
    return p[i];
}
static __device__ __forceinline__ float fd_cuda_ld(const __half *p, int64_t i)
{
    return __half2float(p[i]);
}
static __device__ __forceinline__ float fd_cuda_ld(const __nv_bfloat16 *p, int64_t i)
{
    return __bfloat162float(p[i]);
}

static __device__ __forceinline__ void fd_cuda_st(float *p, int64_t i, double v)
{
    p[i] = (float)v;
}
static __device__ __forceinline__ void fd_cuda_st(double *p, int64_t i, double v)
{
    p[i] = v;
}
static __device__ __forceinline__ void fd_cuda_st(__half *p, int64_t i, double v)
{
    p[i] = __double2half(v);
}
static __device__ __forceinline__ void fd_cuda_st(__nv_bfloat16 *p, int64_t i, double v)
{
    p[i] = __double2bfloat16(v);
}

/* p[i] = v for a value already exact in the accumulator type (float for the 16-bit types):
 * one rounding, as fd_cuda_blend's with alpha = 1, beta = 0 when v is that value, without the
 * double conversions (the 16-bit ones run on the slow FP64 path). */
static __device__ __forceinline__ void fd_cuda_st_acc(float *p, int64_t i, float v)
{
    p[i] = v;
}
static __device__ __forceinline__ void fd_cuda_st_acc(double *p, int64_t i, double v)
{
    p[i] = v;
}
static __device__ __forceinline__ void fd_cuda_st_acc(__half *p, int64_t i, float v)
{
    p[i] = __float2half_rn(v);
}
static __device__ __forceinline__ void fd_cuda_st_acc(__nv_bfloat16 *p, int64_t i, float v)
{
    p[i] = __float2bfloat16_rn(v);
}

/* out[off] = alpha * v + beta * out[off], rounded once; beta == 0 never reads out[off]. One
 * overload per storage type (no templates over types: STYLE.md). */
#define FD_CUDA_BLEND_OF(T)                                                                    \
    static __device__ __forceinline__ void fd_cuda_blend(T *out, int64_t off, double alpha,    \
                                                         double beta, double v)                \
    {                                                                                          \
        double r = __dmul_rn(alpha, v);                                                        \
        if (beta != 0.0)                                                                       \
            r = __dadd_rn(r, __dmul_rn(beta, (double)fd_cuda_ld(out, off)));                   \
        fd_cuda_st(out, off, r);                                                               \
    }
FD_CUDA_BLEND_OF(float)
FD_CUDA_BLEND_OF(double)
FD_CUDA_BLEND_OF(__half)
FD_CUDA_BLEND_OF(__nv_bfloat16)
#undef FD_CUDA_BLEND_OF

/* The accumulator's math: float functions for float, double ones for double. */
static __device__ __forceinline__ float fd_cuda_exp(float v)
{
    return expf(v);
}
static __device__ __forceinline__ double fd_cuda_exp(double v)
{
    return exp(v);
}
static __device__ __forceinline__ float fd_cuda_expm1(float v)
{
    return expm1f(v);
}
static __device__ __forceinline__ double fd_cuda_expm1(double v)
{
    return expm1(v);
}
static __device__ __forceinline__ float fd_cuda_tanh(float v)
{
    return tanhf(v);
}
static __device__ __forceinline__ double fd_cuda_tanh(double v)
{
    return tanh(v);
}
static __device__ __forceinline__ float fd_cuda_log(float v)
{
    return logf(v);
}
static __device__ __forceinline__ double fd_cuda_log(double v)
{
    return log(v);
}
static __device__ __forceinline__ float fd_cuda_pow(float v, float e)
{
    return powf(v, e);
}
static __device__ __forceinline__ double fd_cuda_pow(double v, double e)
{
    return pow(v, e);
}

/* Launches kernel_<sfx> (f32, f64, f16, bf16 by dt) on `stream` and checks the launch; a
 * storage type without a kernel is NOT_SUPPORTED (applicable() should have declined it). */
#define FD_CUDA_TYPED_LAUNCH(dt, kernel, blocks, threads, stream, ...)                         \
    do {                                                                                       \
        switch (dt) {                                                                          \
        case CUDNN_DATA_FLOAT:                                                                 \
            kernel##_f32<<<(blocks), (threads), 0, (stream)>>>(__VA_ARGS__);                   \
            break;                                                                             \
        case CUDNN_DATA_DOUBLE:                                                                \
            kernel##_f64<<<(blocks), (threads), 0, (stream)>>>(__VA_ARGS__);                   \
            break;                                                                             \
        case CUDNN_DATA_HALF:                                                                  \
            kernel##_f16<<<(blocks), (threads), 0, (stream)>>>(__VA_ARGS__);                   \
            break;                                                                             \
        case CUDNN_DATA_BFLOAT16:                                                              \
            kernel##_bf16<<<(blocks), (threads), 0, (stream)>>>(__VA_ARGS__);                  \
            break;                                                                             \
        default:                                                                               \
            return fd_error(CUDNN_STATUS_NOT_SUPPORTED, __FILE__, __LINE__,                    \
                            "%s has no %s kernel", #kernel, fd_dtype_name(dt));                \
        }                                                                                      \
        FD_CUDA_LAUNCHED("%s on %s data (%u blocks of %u, stream %p)", #kernel,                \
                         fd_dtype_name(dt), (unsigned)(blocks), (unsigned)(threads),           \
                         (void *)(stream));                                                    \
    } while (0)

/* ---- packed fast paths ------------------------------------------------------------------ */

#define FD_CUDA_VEC_BYTES 16 /* one 128-bit load or store */
#define FD_CUDA_UNROLL 2     /* vectors per thread per trip of the grid-stride loop */
#define FD_CUDA_WAVES 4      /* grid cap of the packed kernels, in full-occupancy waves */

/* The 16-byte vector of storage type T: a struct (not a union: __half has constructors) whose
 * alignment makes nvcc move it with one ld/st.global.v4. Elements are reached as .e[j]. */
#define FD_CUDA_VEC_OF(T, name)                                                                \
    typedef struct __align__(FD_CUDA_VEC_BYTES) {                                              \
        T e[FD_CUDA_VEC_BYTES / sizeof(T)];                                                    \
    } name

static inline int fd_cuda_aligned16(const void *p)
{
    return ((uintptr_t)p & (FD_CUDA_VEC_BYTES - 1)) == 0;
}

/* The current device's SM count (132 on the H200; 108 if the query fails: the grid size is a
 * throughput knob, never a correctness one). */
static inline int fd_cuda_sm_query(void)
{
    int dev = 0, v = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || v < 1) {
        (void)cudaGetLastError(); /* else the next FD_CUDA_LAUNCHED would report this failure */
        return 108;
    }
    return v;
}
static inline int fd_cuda_sm_count(void)
{
    static const int sms = fd_cuda_sm_query(); /* asked once: C++ initialises it thread-safely */
    return sms;
}

/* Blocks of FD_CUDA_BLOCK threads for `items` handed out one per thread per trip of a
 * grid-stride loop: enough to cover them, at most FD_CUDA_WAVES full-occupancy waves. */
static inline unsigned fd_cuda_wave_blocks(int64_t items)
{
    const int64_t cap = (int64_t)fd_cuda_sm_count() * (2048 / FD_CUDA_BLOCK) * FD_CUDA_WAVES;
    int64_t b = (items + FD_CUDA_BLOCK - 1) / FD_CUDA_BLOCK;
    return (unsigned)(b < 1 ? 1 : b > cap ? cap : b);
}

/* FLOAT, DOUBLE, HALF, BFLOAT16: the storage types these helpers serve. */
static inline int fd_cuda_elem_dtype_ok(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_DOUBLE || dt == CUDNN_DATA_HALF ||
           dt == CUDNN_DATA_BFLOAT16;
}

/* Stamping helpers for the per-type kernel files: FD_K(name) is name_<FD_SFX>. */
#define FD_CUDA_CAT2(a, b) a##_##b
#define FD_CUDA_CAT(a, b) FD_CUDA_CAT2(a, b)

#endif /* FD_CUDA_ELEM_CUH_ */
