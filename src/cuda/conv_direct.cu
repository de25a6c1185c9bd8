/* SPDX-License-Identifier: MIT */
/*
 * conv_direct.cu - naive direct convolution on the GPU: forward, backward data, backward filter
 * (rows fd_conv_{fwd,bwd_data,bwd_filter}_direct, every algorithm enum for now) and the bias
 * gradient (row fd_conv_bwd_bias_direct).
 *
 * Simple and exact rather than fast: fwd and bwd data run one thread per output element and
 * gather (no atomics); bwd filter and bias run one block per output element and reduce in a
 * fixed order, so every result is bit-identical run after run. Any element strides, groups,
 * dilation, padding, both modes, 1 to 3 spatial dims; FLOAT, DOUBLE, HALF and BFLOAT16 storage,
 * accumulated in float (double for DOUBLE; HALF and BFLOAT16 compute types also get float), the
 * blend with alpha/beta in double. No workspace. This is also the GPU oracle for problems too
 * big for src/ref (DESIGN D9). Kernels: conv_direct_kernels.cuh, once per storage type.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdio.h>

#include "fd_cuda.cuh"

/* ---- element access: storage type -> accumulator, and one rounding back ----------------- */

static __device__ __forceinline__ float fd_ld(const float *p, int64_t i)
{
    return p[i];
}
static __device__ __forceinline__ double fd_ld(const double *p, int64_t i)
{
    return p[i];
}
static __device__ __forceinline__ float fd_ld(const __half *p, int64_t i)
{
    return __half2float(p[i]);
}
static __device__ __forceinline__ float fd_ld(const __nv_bfloat16 *p, int64_t i)
{
    return __bfloat162float(p[i]);
}
static __device__ __forceinline__ void fd_st(float *p, int64_t i, double v)
{
    p[i] = (float)v;
}
static __device__ __forceinline__ void fd_st(double *p, int64_t i, double v)
{
    p[i] = v;
}
static __device__ __forceinline__ void fd_st(__half *p, int64_t i, double v)
{
    p[i] = __double2half(v);
}
static __device__ __forceinline__ void fd_st(__nv_bfloat16 *p, int64_t i, double v)
{
    p[i] = __double2bfloat16(v);
}

/* ---- index helpers (as src/ref/conv_ref.c) ---------------------------------------------- */

/* Filter tap index in memory for tap t along dim d (CUDNN_CONVOLUTION flips the filter). */
static __device__ __forceinline__ int64_t tap(const fd_conv_problem_t &p, int d, int64_t t)
{
    return p.cross_correlation ? t : p.flt[d] - 1 - t;
}

/* Output index along dim d that reads input i through tap t, or -1. */
static __device__ __forceinline__ int64_t out_index(const fd_conv_problem_t &p, int d, int64_t i,
                                                    int64_t t)
{
    const int64_t num = i + p.pad[d] - t * p.dil[d];
    if (num < 0 || num % p.stride[d] != 0)
        return -1;
    const int64_t o = num / p.stride[d];
    return o < p.out[d] ? o : -1;
}

/* dy of the bias gradient: N, K, and up to 6 trailing dims padded with leading 1s. */
#define FD_BIAS_SPATIAL_MAX (FD_DIM_MAX - 2)
typedef struct {
    int64_t n, k, inner; /* inner: product of the trailing dims */
    int64_t sn, sk, db_stride;
    int64_t dim[FD_BIAS_SPATIAL_MAX], stride[FD_BIAS_SPATIAL_MAX];
} bias_geom_t;

/* ---- the kernels, once per storage type --------------------------------------------------- */

#define FD_STAMP_FILE "conv_direct_kernels.cuh"
#include "stamp_types.cuh"

/* Launches kernel_<dtype> on the handle's stream and checks the launch. */
#define FD_DIRECT_LAUNCH(dt, kernel, blocks, stream, ...)                                      \
    do {                                                                                       \
        switch (dt) {                                                                          \
        case CUDNN_DATA_FLOAT:                                                                 \
            kernel##_f32<<<(blocks), FD_CUDA_BLOCK, 0, (stream)>>>(__VA_ARGS__);               \
            break;                                                                             \
        case CUDNN_DATA_DOUBLE:                                                                \
            kernel##_f64<<<(blocks), FD_CUDA_BLOCK, 0, (stream)>>>(__VA_ARGS__);               \
            break;                                                                             \
        case CUDNN_DATA_HALF:                                                                  \
            kernel##_f16<<<(blocks), FD_CUDA_BLOCK, 0, (stream)>>>(__VA_ARGS__);               \
            break;                                                                             \
        case CUDNN_DATA_BFLOAT16:                                                              \
            kernel##_bf16<<<(blocks), FD_CUDA_BLOCK, 0, (stream)>>>(__VA_ARGS__);              \
            break;                                                                             \
        default:                                                                               \
            return fd_error(CUDNN_STATUS_NOT_SUPPORTED, __FILE__, __LINE__,                    \
                            "%s has no %s kernel", #kernel, fd_dtype_name(dt));                \
        }                                                                                      \
        FD_CUDA_LAUNCHED("%s on %s data (%u blocks, stream %p)", #kernel, fd_dtype_name(dt),   \
                         (unsigned)(blocks), (void *)(stream));                                \
    } while (0)

static int dtype_ok(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_DOUBLE || dt == CUDNN_DATA_HALF ||
           dt == CUDNN_DATA_BFLOAT16;
}

/* The problem builder admits only what these kernels compute; the checks restate the
 * assumptions so a future problem field cannot slip through unnoticed. */
static int direct_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    if (!dtype_ok(p->xdt) || p->wdt != p->xdt || p->ydt != p->xdt) {
        snprintf(why, why_size, "x/w/y are %s/%s/%s; the direct kernels take one of FLOAT, DOUBLE, "
                 "HALF, BFLOAT16 for all three", fd_dtype_name(p->xdt), fd_dtype_name(p->wdt),
                 fd_dtype_name(p->ydt));
        return 0;
    }
    if (p->nsp < 1 || p->nsp > FD_CONV_SPATIAL_MAX) {
        snprintf(why, why_size, "%d spatial dims; the direct kernels take 1 to 3", p->nsp);
        return 0;
    }
    return 1;
}

/* ---- rows (src/impls.def) ------------------------------------------------------------------ */

extern "C" int fd_conv_fwd_direct_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    return direct_applicable(p, why, why_size);
}
extern "C" size_t fd_conv_fwd_direct_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}
extern "C" cudnnStatus_t fd_conv_fwd_direct_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    const int64_t total = p->n * p->k * p->out[0] * p->out[1] * p->out[2];
    const unsigned blocks = fd_cuda_blocks(total, FD_CUDA_BLOCK);
    FD_DIRECT_LAUNCH(p->ydt, conv_fwd_direct, blocks, a->handle->stream, *p, a->x, a->w, a->out,
                     a->alpha, a->beta);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_conv_bwd_data_direct_applicable(const fd_conv_problem_t *p, char *why,
                                                  size_t why_size)
{
    return direct_applicable(p, why, why_size);
}
extern "C" size_t fd_conv_bwd_data_direct_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}
extern "C" cudnnStatus_t fd_conv_bwd_data_direct_run(const fd_conv_problem_t *p,
                                                     const fd_conv_args_t *a)
{
    const int64_t total = p->n * p->c * p->in[0] * p->in[1] * p->in[2];
    const unsigned blocks = fd_cuda_blocks(total, FD_CUDA_BLOCK);
    FD_DIRECT_LAUNCH(p->xdt, conv_bwd_data_direct, blocks, a->handle->stream, *p, a->w, a->y,
                     a->out, a->alpha, a->beta);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_conv_bwd_filter_direct_applicable(const fd_conv_problem_t *p, char *why,
                                                    size_t why_size)
{
    return direct_applicable(p, why, why_size);
}
extern "C" size_t fd_conv_bwd_filter_direct_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}
extern "C" cudnnStatus_t fd_conv_bwd_filter_direct_run(const fd_conv_problem_t *p,
                                                       const fd_conv_args_t *a)
{
    const int64_t nw = p->k * (p->c / p->groups) * p->flt[0] * p->flt[1] * p->flt[2];
    const unsigned blocks = fd_cuda_blocks(nw, 1); /* one block per dw element */
    FD_DIRECT_LAUNCH(p->wdt, conv_bwd_filter_direct, blocks, a->handle->stream, *p, a->x, a->y,
                     a->out, a->alpha, a->beta);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_conv_bwd_bias_direct_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_bias_problem_t *p = (const fd_bias_problem_t *)problem;
    if (!dtype_ok(p->dy.dtype) || p->db.dtype != p->dy.dtype) {
        snprintf(why, why_size, "dy/db are %s/%s; the bias kernel takes one of FLOAT, DOUBLE, HALF, "
                 "BFLOAT16 for both", fd_dtype_name(p->dy.dtype), fd_dtype_name(p->db.dtype));
        return 0;
    }
    if (p->dy.nb_dims < 3 || p->dy.nb_dims > FD_DIM_MAX) {
        snprintf(why, why_size, "dy has %d dims; the bias kernel takes 3 to %d", p->dy.nb_dims,
                 FD_DIM_MAX);
        return 0;
    }
    return 1;
}
extern "C" size_t fd_conv_bwd_bias_direct_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_conv_bwd_bias_direct_run(const void *problem, const void *args)
{
    const fd_bias_problem_t *p = (const fd_bias_problem_t *)problem;
    const fd_bias_args_t *a = (const fd_bias_args_t *)args;
    const struct cudnnTensorStruct *dy = &p->dy;
    bias_geom_t b;
    b.n = dy->dim[0], b.k = dy->dim[1], b.inner = 1;
    b.sn = dy->stride[0], b.sk = dy->stride[1], b.db_stride = p->db.stride[1];
    const int lead = FD_BIAS_SPATIAL_MAX - (dy->nb_dims - 2);
    for (int i = 0; i < FD_BIAS_SPATIAL_MAX; i++) {
        b.dim[i] = i < lead ? 1 : dy->dim[2 + i - lead];
        b.stride[i] = i < lead ? 0 : dy->stride[2 + i - lead];
        b.inner *= b.dim[i];
    }
    const unsigned blocks = fd_cuda_blocks(b.k, 1); /* one block per channel */
    FD_DIRECT_LAUNCH(dy->dtype, conv_bwd_bias_direct, blocks, a->handle->stream, b, a->dy, a->db,
                     a->alpha, a->beta);
    return CUDNN_STATUS_SUCCESS;
}
