/* SPDX-License-Identifier: MIT */
/*
 * dtype.c - element sizes and names, status names, and exact conversions between double and
 * the 16-bit storage types (round to nearest even, subnormals, overflow to infinity, NaN kept).
 * The reference backend computes in double and goes through fd_load/fd_store; fast backends
 * have their own vector conversions and are tested against these.
 */
#include <math.h>
#include <string.h>

#include "fd.h"

#define FD_DTYPE_COUNT 22 /* CUDNN_DATA_FLOAT .. CUDNN_DATA_COMPLEX_FP64 */

static const struct {
    const char *name;
    size_t size;
} dtype_table[FD_DTYPE_COUNT] = {
    [CUDNN_DATA_FLOAT] = {"CUDNN_DATA_FLOAT", 4},
    [CUDNN_DATA_DOUBLE] = {"CUDNN_DATA_DOUBLE", 8},
    [CUDNN_DATA_HALF] = {"CUDNN_DATA_HALF", 2},
    [CUDNN_DATA_INT8] = {"CUDNN_DATA_INT8", 1},
    [CUDNN_DATA_INT32] = {"CUDNN_DATA_INT32", 4},
    [CUDNN_DATA_INT8x4] = {"CUDNN_DATA_INT8x4", 4},
    [CUDNN_DATA_UINT8] = {"CUDNN_DATA_UINT8", 1},
    [CUDNN_DATA_UINT8x4] = {"CUDNN_DATA_UINT8x4", 4},
    [CUDNN_DATA_INT8x32] = {"CUDNN_DATA_INT8x32", 32},
    [CUDNN_DATA_BFLOAT16] = {"CUDNN_DATA_BFLOAT16", 2},
    [CUDNN_DATA_INT64] = {"CUDNN_DATA_INT64", 8},
    [CUDNN_DATA_BOOLEAN] = {"CUDNN_DATA_BOOLEAN", 1},
    [CUDNN_DATA_FP8_E4M3] = {"CUDNN_DATA_FP8_E4M3", 1},
    [CUDNN_DATA_FP8_E5M2] = {"CUDNN_DATA_FP8_E5M2", 1},
    [CUDNN_DATA_FAST_FLOAT_FOR_FP8] = {"CUDNN_DATA_FAST_FLOAT_FOR_FP8", 4},
    [CUDNN_DATA_FP8_E8M0] = {"CUDNN_DATA_FP8_E8M0", 1},
    [CUDNN_DATA_FP4_E2M1] = {"CUDNN_DATA_FP4_E2M1", 1},
    [CUDNN_DATA_INT4] = {"CUDNN_DATA_INT4", 1},
    [CUDNN_DATA_UINT4] = {"CUDNN_DATA_UINT4", 1},
    [CUDNN_DATA_UINT32] = {"CUDNN_DATA_UINT32", 4},
    [CUDNN_DATA_COMPLEX_FP32] = {"CUDNN_DATA_COMPLEX_FP32", 8},
    [CUDNN_DATA_COMPLEX_FP64] = {"CUDNN_DATA_COMPLEX_FP64", 16},
};
_Static_assert(sizeof dtype_table / sizeof dtype_table[0] == CUDNN_DATA_COMPLEX_FP64 + 1,
               "dtype_table covers every cudnnDataType_t");

int fd_dtype_is_valid(cudnnDataType_t dt)
{
    return (int)dt >= 0 && (int)dt < FD_DTYPE_COUNT;
}

size_t fd_dtype_size(cudnnDataType_t dt)
{
    return fd_dtype_is_valid(dt) ? dtype_table[dt].size : 0;
}

const char *fd_dtype_name(cudnnDataType_t dt)
{
    return fd_dtype_is_valid(dt) ? dtype_table[dt].name : "invalid";
}

const char *fd_status_name(cudnnStatus_t s)
{
    switch (s) {
#define NAME(x)                                                                                \
    case x:                                                                                    \
        return #x;
        NAME(CUDNN_STATUS_SUCCESS)
        NAME(CUDNN_STATUS_NOT_INITIALIZED)
        NAME(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH)
        NAME(CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH)
        NAME(CUDNN_STATUS_DEPRECATED)
        NAME(CUDNN_STATUS_LICENSE_ERROR)
        NAME(CUDNN_STATUS_RUNTIME_IN_PROGRESS)
        NAME(CUDNN_STATUS_RUNTIME_FP_OVERFLOW)
        NAME(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED)
        NAME(CUDNN_STATUS_BAD_PARAM)
        NAME(CUDNN_STATUS_INVALID_VALUE)
        NAME(CUDNN_STATUS_BAD_PARAM_NULL_POINTER)
        NAME(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER)
        NAME(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED)
        NAME(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND)
        NAME(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT)
        NAME(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH)
        NAME(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH)
        NAME(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES)
        NAME(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE)
        NAME(CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH)
        NAME(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE)
        NAME(CUDNN_STATUS_NOT_SUPPORTED)
        NAME(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN)
        NAME(CUDNN_STATUS_NOT_SUPPORTED_SHAPE)
        NAME(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE)
        NAME(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT)
        NAME(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER)
        NAME(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART)
        NAME(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH)
        NAME(CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING)
        NAME(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE)
        NAME(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT)
        NAME(CUDNN_STATUS_NOT_SUPPORTED_PADDING)
        NAME(CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM)
        NAME(CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API)
        NAME(CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE)
        NAME(CUDNN_STATUS_INTERNAL_ERROR)
        NAME(CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED)
        NAME(CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE)
        NAME(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED)
        NAME(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
        NAME(CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM)
        NAME(CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED)
        NAME(CUDNN_STATUS_EXECUTION_FAILED)
        NAME(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER)
        NAME(CUDNN_STATUS_EXECUTION_FAILED_CUBLAS)
        NAME(CUDNN_STATUS_EXECUTION_FAILED_CUDART)
        NAME(CUDNN_STATUS_EXECUTION_FAILED_CURAND)
#undef NAME
    default:
        break;
    }
    /* cuDNN 9 answers unknown codes of a known category with the category's name. */
    switch (CUDNN_STATUS_CATEGORY(s)) {
    case CUDNN_STATUS_BAD_PARAM:
        return "CUDNN_STATUS_BAD_PARAM";
    case CUDNN_STATUS_NOT_SUPPORTED:
        return "CUDNN_STATUS_NOT_SUPPORTED";
    case CUDNN_STATUS_INTERNAL_ERROR:
        return "CUDNN_STATUS_INTERNAL_ERROR";
    case CUDNN_STATUS_EXECUTION_FAILED:
        return "CUDNN_STATUS_EXECUTION_FAILED";
    default:
        return "CUDNN_UNKNOWN_STATUS"; /* the string NVIDIA's library answers */
    }
}

/* Generic rounding of a finite double to a binary float with `mant` explicit mantissa bits and
 * exponent range [emin, emax] (normal numbers), ties to even; returns the rounded value. */
static double round_to_format(double v, int mant, int emin, int emax)
{
    if (!isfinite(v) || v == 0.0)
        return v;
    int e;
    frexp(v, &e); /* v = f * 2^e, 0.5 <= |f| < 1: unit in last place is 2^(e-1-mant) */
    int ulp_exp = (e - 1 < emin ? emin : e - 1) - mant;
    double scaled = ldexp(v, -ulp_exp);
    double r = nearbyint(scaled); /* default rounding mode: to nearest, ties to even */
    double out = ldexp(r, ulp_exp);
    double max_finite = ldexp(2.0 - ldexp(1.0, -mant), emax);
    if (fabs(out) > max_finite)
        return v > 0 ? INFINITY : -INFINITY;
    return out;
}

uint16_t fd_f16_from_f64(double v)
{
    if (isnan(v))
        return (uint16_t)(signbit(v) ? 0xfe00 : 0x7e00);
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    double r = fabs(round_to_format(v, 10, -14, 15));
    if (isinf(r))
        return sign | 0x7c00;
    if (r == 0.0)
        return sign;
    int e;
    double f = frexp(r, &e); /* r = f * 2^e */
    if (e - 1 < -14)          /* subnormal: r = m * 2^-24 */
        return sign | (uint16_t)ldexp(r, 24);
    uint16_t exp_bits = (uint16_t)((e - 1 + 15) << 10);
    uint16_t mant_bits = (uint16_t)(ldexp(f, 11) - 1024.0);
    return sign | exp_bits | mant_bits;
}

double fd_f64_from_f16(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double v;
    if (exp == 0)
        v = ldexp((double)mant, -24);
    else if (exp == 31)
        v = mant ? NAN : INFINITY;
    else
        v = ldexp((double)(mant + 1024), exp - 25);
    return sign ? -v : v;
}

uint16_t fd_bf16_from_f64(double v)
{
    if (isnan(v))
        return (uint16_t)(signbit(v) ? 0xffc0 : 0x7fc0);
    float f = (float)round_to_format(v, 7, -126, 127); /* exact in float */
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return (uint16_t)(bits >> 16);
}

double fd_f64_from_bf16(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

double fd_load(cudnnDataType_t dt, const void *base, int64_t i)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT:
        return ((const float *)base)[i];
    case CUDNN_DATA_DOUBLE:
        return ((const double *)base)[i];
    case CUDNN_DATA_HALF:
        return fd_f64_from_f16(((const uint16_t *)base)[i]);
    case CUDNN_DATA_BFLOAT16:
        return fd_f64_from_bf16(((const uint16_t *)base)[i]);
    case CUDNN_DATA_INT8:
        return ((const int8_t *)base)[i];
    case CUDNN_DATA_UINT8:
        return ((const uint8_t *)base)[i];
    case CUDNN_DATA_INT32:
        return ((const int32_t *)base)[i];
    case CUDNN_DATA_INT64:
        return (double)((const int64_t *)base)[i];
    default:
        return 0.0; /* callers validate dtypes before computing */
    }
}

static double saturate(double v, double lo, double hi)
{
    if (isnan(v))
        return 0.0;
    v = nearbyint(v);
    return v < lo ? lo : v > hi ? hi : v;
}

void fd_store(cudnnDataType_t dt, void *base, int64_t i, double v)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT:
        ((float *)base)[i] = (float)v;
        break;
    case CUDNN_DATA_DOUBLE:
        ((double *)base)[i] = v;
        break;
    case CUDNN_DATA_HALF:
        ((uint16_t *)base)[i] = fd_f16_from_f64(v);
        break;
    case CUDNN_DATA_BFLOAT16:
        ((uint16_t *)base)[i] = fd_bf16_from_f64(v);
        break;
    case CUDNN_DATA_INT8:
        ((int8_t *)base)[i] = (int8_t)saturate(v, -128, 127);
        break;
    case CUDNN_DATA_UINT8:
        ((uint8_t *)base)[i] = (uint8_t)saturate(v, 0, 255);
        break;
    case CUDNN_DATA_INT32:
        ((int32_t *)base)[i] = (int32_t)saturate(v, -2147483648.0, 2147483647.0);
        break;
    case CUDNN_DATA_INT64:
        ((int64_t *)base)[i] = (int64_t)saturate(v, -9223372036854775808.0, 9223372036854774784.0);
        break;
    default:
        break;
    }
}

double fd_scale_value(const void *p, cudnnDataType_t output_dtype)
{
    return output_dtype == CUDNN_DATA_DOUBLE ? *(const double *)p : (double)*(const float *)p;
}
