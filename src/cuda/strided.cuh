/* SPDX-License-Identifier: MIT */
/*
 * strided.cuh - what the batch-norm, tensor-op, reduce and dropout kernels share: element loads
 * and stores for every storage type the ref backend takes (stores round once from double as
 * src/core/dtype.c's fd_store does: half / bfloat16 NaN canonical, integers nearest-even and
 * saturated, NaN -> 0), and an N-d walker that turns a flat index into the offsets of up to
 * FD_ND_OPS operands.
 *
 * The walker's dims are ordered on the host by the output's strides (largest first) and
 * adjacent dims merged where every operand allows it, so consecutive threads of a grid-stride
 * loop touch consecutive output addresses whatever the layout (NCHW, NHWC, padded, permuted),
 * and a packed tensor walks as one flat dim. Indices stay below 2^31 (cuDNN's descriptor limit),
 * so the decomposition divides in 32 bits. Static functions only: each .cu gets its own copy.
 */
#ifndef FD_CUDA_STRIDED_CUH_
#define FD_CUDA_STRIDED_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "fd_cuda.cuh"

/* ---- loads (exact, to double or float) ------------------------------------------------------ */

static __device__ __forceinline__ double sd_ld(const float *p, int64_t i)
{
    return p[i];
}
static __device__ __forceinline__ double sd_ld(const double *p, int64_t i)
{
    return p[i];
}
static __device__ __forceinline__ double sd_ld(const __half *p, int64_t i)
{
    return (double)__half2float(p[i]);
}
static __device__ __forceinline__ double sd_ld(const __nv_bfloat16 *p, int64_t i)
{
    return (double)__bfloat162float(p[i]);
}
static __device__ __forceinline__ double sd_ld(const int8_t *p, int64_t i)
{
    return p[i];
}
static __device__ __forceinline__ double sd_ld(const uint8_t *p, int64_t i)
{
    return p[i];
}
static __device__ __forceinline__ double sd_ld(const int32_t *p, int64_t i)
{
    return p[i];
}
static __device__ __forceinline__ double sd_ld(const int64_t *p, int64_t i)
{
    return (double)p[i];
}

/* Float-accumulator loads for the reductions (exact for every floating storage but double). */
static __device__ __forceinline__ float sd_ldf(const float *p, int64_t i)
{
    return p[i];
}
static __device__ __forceinline__ double sd_ldf(const double *p, int64_t i)
{
    return p[i];
}
static __device__ __forceinline__ float sd_ldf(const __half *p, int64_t i)
{
    return __half2float(p[i]);
}
static __device__ __forceinline__ float sd_ldf(const __nv_bfloat16 *p, int64_t i)
{
    return __bfloat162float(p[i]);
}

/* ---- stores (one rounding from double) ------------------------------------------------------ */

static __device__ __forceinline__ void sd_st(float *p, int64_t i, double v)
{
    p[i] = (float)v;
}
static __device__ __forceinline__ void sd_st(double *p, int64_t i, double v)
{
    p[i] = v;
}
static __device__ __forceinline__ void sd_st(__half *p, int64_t i, double v)
{
    if (isnan(v))
        p[i] = __ushort_as_half(signbit(v) ? (unsigned short)0xfe00 : (unsigned short)0x7e00);
    else
        p[i] = __double2half(v);
}
static __device__ __forceinline__ void sd_st(__nv_bfloat16 *p, int64_t i, double v)
{
    if (isnan(v))
        p[i] = __ushort_as_bfloat16(signbit(v) ? (unsigned short)0xffc0 : (unsigned short)0x7fc0);
    else
        p[i] = __double2bfloat16(v);
}
static __device__ __forceinline__ double sd_saturate(double v, double lo, double hi)
{
    if (isnan(v))
        return 0.0;
    v = rint(v); /* nearest, ties to even, as nearbyint in the default mode */
    return v < lo ? lo : v > hi ? hi : v;
}
static __device__ __forceinline__ void sd_st(int8_t *p, int64_t i, double v)
{
    p[i] = (int8_t)sd_saturate(v, -128.0, 127.0);
}
static __device__ __forceinline__ void sd_st(uint8_t *p, int64_t i, double v)
{
    p[i] = (uint8_t)sd_saturate(v, 0.0, 255.0);
}
static __device__ __forceinline__ void sd_st(int32_t *p, int64_t i, double v)
{
    p[i] = (int32_t)sd_saturate(v, -2147483648.0, 2147483647.0);
}
static __device__ __forceinline__ void sd_st(int64_t *p, int64_t i, double v)
{
    p[i] = (int64_t)sd_saturate(v, -9223372036854775808.0, 9223372036854774784.0);
}

/* out = alpha * v + beta * out in double, rounded once; beta == 0 never reads out. The _rn
 * intrinsics keep nvcc from contracting into an FMA, so the bits match the ref's C. */
#define SD_BLEND(T)                                                                            \
    static __device__ __forceinline__ void sd_blend(T *p, int64_t i, double alpha, double beta, \
                                                    double v)                                  \
    {                                                                                          \
        double r = __dmul_rn(alpha, v);                                                        \
        if (beta != 0.0)                                                                       \
            r = __dadd_rn(r, __dmul_rn(beta, sd_ld(p, i)));                                    \
        sd_st(p, i, r);                                                                        \
    }
SD_BLEND(float)
SD_BLEND(double)
SD_BLEND(__half)
SD_BLEND(__nv_bfloat16)
SD_BLEND(int8_t)
SD_BLEND(uint8_t)
SD_BLEND(int32_t)
SD_BLEND(int64_t)
#undef SD_BLEND

/* Loads and stores by runtime dtype, for kernels whose operands may differ in type (OpTensor's
 * INT8 inputs with a FLOAT output, ...): the switch is uniform across a warp. */
static __device__ __forceinline__ double sd_ld_dt(cudnnDataType_t dt, const void *p, int64_t i)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT:
        return sd_ld((const float *)p, i);
    case CUDNN_DATA_DOUBLE:
        return sd_ld((const double *)p, i);
    case CUDNN_DATA_HALF:
        return sd_ld((const __half *)p, i);
    case CUDNN_DATA_BFLOAT16:
        return sd_ld((const __nv_bfloat16 *)p, i);
    case CUDNN_DATA_INT8:
        return sd_ld((const int8_t *)p, i);
    case CUDNN_DATA_UINT8:
        return sd_ld((const uint8_t *)p, i);
    case CUDNN_DATA_INT32:
        return sd_ld((const int32_t *)p, i);
    case CUDNN_DATA_INT64:
        return sd_ld((const int64_t *)p, i);
    default:
        return 0.0;
    }
}
static __device__ __forceinline__ void sd_st_dt(cudnnDataType_t dt, void *p, int64_t i, double v)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT:
        sd_st((float *)p, i, v);
        break;
    case CUDNN_DATA_DOUBLE:
        sd_st((double *)p, i, v);
        break;
    case CUDNN_DATA_HALF:
        sd_st((__half *)p, i, v);
        break;
    case CUDNN_DATA_BFLOAT16:
        sd_st((__nv_bfloat16 *)p, i, v);
        break;
    case CUDNN_DATA_INT8:
        sd_st((int8_t *)p, i, v);
        break;
    case CUDNN_DATA_UINT8:
        sd_st((uint8_t *)p, i, v);
        break;
    case CUDNN_DATA_INT32:
        sd_st((int32_t *)p, i, v);
        break;
    case CUDNN_DATA_INT64:
        sd_st((int64_t *)p, i, v);
        break;
    default:
        break;
    }
}
/* out = alpha * v + beta * out by runtime dtype; beta == 0 never reads out. */
static __device__ __forceinline__ void sd_blend_dt(cudnnDataType_t dt, void *p, int64_t i,
                                                   double alpha, double beta, double v)
{
    double r = __dmul_rn(alpha, v);
    if (beta != 0.0)
        r = __dadd_rn(r, __dmul_rn(beta, sd_ld_dt(dt, p, i)));
    sd_st_dt(dt, p, i, r);
}
/* 1 for the storage types the runtime-dtype helpers take. */
static inline int sd_dtype_ok(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_DOUBLE || dt == CUDNN_DATA_HALF ||
           dt == CUDNN_DATA_BFLOAT16 || dt == CUDNN_DATA_INT8 || dt == CUDNN_DATA_UINT8 ||
           dt == CUDNN_DATA_INT32 || dt == CUDNN_DATA_INT64;
}

/* ---- the N-d walker ----------------------------------------------------------------------- */

#define FD_ND_DIMS 8 /* FD_DIM_MAX */
#define FD_ND_OPS 5

typedef struct {
    int nd;                              /* dims after merging, >= 1 */
    int64_t total;                       /* elements */
    int64_t dim[FD_ND_DIMS];             /* outermost first */
    int64_t st[FD_ND_OPS][FD_ND_DIMS];   /* per operand, in elements; 0 broadcasts */
    int orig[FD_ND_DIMS];                /* the caller's dim behind each (before merging: the
                                            innermost merged one) */
} sd_nd_t;

/* Builds the walker over dims[0..nb) with nops operands' strides; operand 0 orders the dims.
 * Dims of extent 1 are dropped, adjacent dims merged where every operand's strides nest. */
static inline void sd_nd_init(sd_nd_t *w, int nb, const int64_t *dims, int nops,
                              const int64_t *const *strides)
{
    int order[FD_ND_DIMS], n = 0;
    for (int i = 0; i < nb; i++)
        if (dims[i] != 1)
            order[n++] = i;
    /* stable insertion sort: larger |stride| of operand 0 first, ties keep the caller's order */
    for (int i = 1; i < n; i++) {
        int v = order[i], j = i;
        int64_t sv = strides[0][v] < 0 ? -strides[0][v] : strides[0][v];
        while (j > 0) {
            int64_t sp = strides[0][order[j - 1]];
            sp = sp < 0 ? -sp : sp;
            if (sp >= sv)
                break;
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    w->nd = 0;
    w->total = 1;
    for (int i = 0; i < nb; i++)
        w->total *= dims[i];
    for (int k = 0; k < n; k++) {
        int d = order[k];
        if (w->nd > 0) {
            int last = w->nd - 1, merge = 1;
            for (int o = 0; o < nops; o++)
                if (w->st[o][last] != strides[o][d] * dims[d])
                    merge = 0;
            if (merge) {
                w->dim[last] *= dims[d];
                for (int o = 0; o < nops; o++)
                    w->st[o][last] = strides[o][d];
                w->orig[last] = d;
                continue;
            }
        }
        w->dim[w->nd] = dims[d];
        for (int o = 0; o < nops; o++)
            w->st[o][w->nd] = strides[o][d];
        w->orig[w->nd] = d;
        w->nd++;
    }
    if (w->nd == 0) { /* a single element */
        w->nd = 1;
        w->dim[0] = 1;
        for (int o = 0; o < FD_ND_OPS; o++)
            w->st[o][0] = 0;
        w->orig[0] = 0;
    }
    for (int o = nops; o < FD_ND_OPS; o++)
        for (int k = 0; k < FD_ND_DIMS; k++)
            w->st[o][k] = 0;
}

/* Offsets of flat element e (e < total < 2^31) for the first NOPS operands. */
template <int NOPS>
static __device__ __forceinline__ void sd_nd_offsets(const sd_nd_t &w, int64_t e, int64_t *off)
{
    uint32_t r = (uint32_t)e;
#pragma unroll
    for (int o = 0; o < NOPS; o++)
        off[o] = 0;
    for (int k = w.nd - 1; k > 0; k--) {
        const uint32_t d = (uint32_t)w.dim[k];
        const uint32_t q = r / d, i = r - q * d;
#pragma unroll
        for (int o = 0; o < NOPS; o++)
            off[o] += (int64_t)i * w.st[o][k];
        r = q;
    }
#pragma unroll
    for (int o = 0; o < NOPS; o++)
        off[o] += (int64_t)r * w.st[o][0];
}

#define SD_GRID_LOOP(e, total)                                                                 \
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < (total);              \
         e += (int64_t)gridDim.x * blockDim.x)

#endif /* FD_CUDA_STRIDED_CUH_ */
