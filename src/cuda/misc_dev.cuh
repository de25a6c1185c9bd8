/* SPDX-License-Identifier: MIT */
/*
 * misc_dev.cuh - device helpers shared by conv_fused.cu, im2col.cu, spatial_tf.cu, ctc.cu and
 * fusedops.cu (and nothing else): element access by run-time data type, the activation modes of
 * src/core/activation.h restated for the device, and a double-precision blend.
 *
 * Decisions: the ops of these files are memory- or latency-bound (or, for CTC, a sequential
 * recursion), so their elements are read through a switch on the storage type - uniform across a
 * warp, so it costs a few instructions and no divergence - instead of stamping every kernel out
 * per type; the one compute-bound kernel (the fused convolution) is stamped out per type in
 * conv_fused_kernels.cuh. Arithmetic that must agree with src/ref bit for bit on exact data is
 * done in double with the _rn intrinsics where the ref's C would not contract a multiply-add.
 */
#ifndef FD_CUDA_MISC_DEV_CUH_
#define FD_CUDA_MISC_DEV_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math_constants.h>

#include "fd_cuda.cuh"
extern "C" {
#include "../core/activation.h"
}

/* Element i of a tensor of storage type dt, as a double (0 for a type the caller declined). */
static __device__ __forceinline__ double fdm_ld(cudnnDataType_t dt, const void *base, int64_t i)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT:
        return ((const float *)base)[i];
    case CUDNN_DATA_DOUBLE:
        return ((const double *)base)[i];
    case CUDNN_DATA_HALF:
        return (double)__half2float(((const __half *)base)[i]);
    case CUDNN_DATA_BFLOAT16:
        return (double)__bfloat162float(((const __nv_bfloat16 *)base)[i]);
    default:
        return 0.0;
    }
}

/* Stores v rounded once to dt (round to nearest even, as src/core/dtype.c). */
static __device__ __forceinline__ void fdm_st(cudnnDataType_t dt, void *base, int64_t i, double v)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT:
        ((float *)base)[i] = (float)v;
        break;
    case CUDNN_DATA_DOUBLE:
        ((double *)base)[i] = v;
        break;
    case CUDNN_DATA_HALF:
        ((__half *)base)[i] = __double2half(v);
        break;
    case CUDNN_DATA_BFLOAT16:
        ((__nv_bfloat16 *)base)[i] = __double2bfloat16(v);
        break;
    default:
        break;
    }
}

/* out[off] = alpha * acc + beta * out[off], rounded once; out is never read when beta == 0. */
static __device__ __forceinline__ void fdm_blend(cudnnDataType_t dt, void *out, int64_t off,
                                                 double alpha, double beta, double acc)
{
    double v = __dmul_rn(alpha, acc);
    if (beta != 0.0)
        v = __dadd_rn(v, __dmul_rn(beta, fdm_ld(dt, out, off)));
    fdm_st(dt, out, off, v);
}

/* The storage types fdm_ld / fdm_st handle, for applicable(). */
static inline int fdm_host_dtype_ok(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_DOUBLE || dt == CUDNN_DATA_HALF ||
           dt == CUDNN_DATA_BFLOAT16;
}

static __device__ __forceinline__ double fdm_sigmoid(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

/* fd_act_fwd_value (src/core/activation.h) on the device: same branches, same NaN rules. */
static __device__ __forceinline__ double fdm_act_fwd(const fd_act_params_t &a, double x)
{
    switch (a.mode) {
    case CUDNN_ACTIVATION_SIGMOID:
        return fdm_sigmoid(x);
    case CUDNN_ACTIVATION_RELU:
        if (a.propagate_nan && isnan(x))
            return x;
        return x > 0.0 ? x : 0.0;
    case CUDNN_ACTIVATION_TANH:
        return tanh(x);
    case CUDNN_ACTIVATION_CLIPPED_RELU: {
        if (a.propagate_nan && (isnan(x) || isnan(a.coef)))
            return CUDART_NAN;
        double v = x > 0.0 ? x : 0.0;
        return v > a.coef ? a.coef : v;
    }
    case CUDNN_ACTIVATION_ELU:
        return x > 0.0 ? x : __dmul_rn(a.coef, expm1(x));
    case CUDNN_ACTIVATION_IDENTITY:
        return x;
    case CUDNN_ACTIVATION_SWISH: {
        double s = fdm_sigmoid(a.swish_beta == 0.0 ? 0.0 : __dmul_rn(a.swish_beta, x));
        return s == 0.0 ? 0.0 : __dmul_rn(x, s);
    }
    }
    return CUDART_NAN;
}

/* fd_act_bwd_value on the device (dy times d act / dx at x; y = act(x)). */
static __device__ __forceinline__ double fdm_act_bwd(const fd_act_params_t &a, double y, double dy,
                                                     double x)
{
    switch (a.mode) {
    case CUDNN_ACTIVATION_SIGMOID:
        return dy * y * (1.0 - y);
    case CUDNN_ACTIVATION_RELU:
        if (a.propagate_nan && isnan(x))
            return x;
        return x > 0.0 ? dy : 0.0;
    case CUDNN_ACTIVATION_TANH:
        return dy * (1.0 - y * y);
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        if (a.propagate_nan && (isnan(x) || isnan(a.coef)))
            return CUDART_NAN;
        return (x > 0.0 && !(x >= a.coef)) ? dy : 0.0;
    case CUDNN_ACTIVATION_ELU:
        return x > 0.0 ? dy : dy * a.coef * exp(x);
    case CUDNN_ACTIVATION_IDENTITY:
        return dy;
    case CUDNN_ACTIVATION_SWISH: {
        double b = a.swish_beta, s = fdm_sigmoid(b == 0.0 ? 0.0 : b * x);
        if (isinf(x))
            return dy * s;
        return dy * (s + b * x * s * (1.0 - s));
    }
    }
    return CUDART_NAN;
}

/* Grid-stride loop over [0, total) in 64-bit indices. */
#define FDM_FOR(e, total)                                                                      \
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < (total);              \
         e += (int64_t)gridDim.x * blockDim.x)

#endif /* FD_CUDA_MISC_DEV_CUH_ */
