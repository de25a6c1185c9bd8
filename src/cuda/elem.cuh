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
 * kernel name and a storage-type suffix for files that stamp their kernels once per type.
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
