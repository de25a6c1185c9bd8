/* SPDX-License-Identifier: MIT */
/*
 * im2col.cu - cudnnIm2Col on the GPU (row fd_im2col_cuda): the GEMM "A" matrix of a forward
 * convolution, row (n, out spatial...), column (c, filter tap...), zero where a tap falls in the
 * padding, taps stored flipped for CUDNN_CONVOLUTION - exactly src/ref/conv_fused_ref.c's layout.
 *
 * A pure copy, so it moves bits: one thread per col element (consecutive threads write
 * consecutive addresses; the reads gather), by element size, which serves every storage type the
 * problem builder admits of 1, 2, 4 or 8 bytes and is bit-identical to the ref's load/store round
 * trip for every finite value. Any x strides, 1 to 3 spatial dims. No workspace; deterministic.
 */
#include <stdio.h>

#include "misc_dev.cuh"
extern "C" {
#include "../core/conv_fused.h"
}

/* x gathered into col; T is an unsigned integer of the element's size. */
#define IM2COL_KERNEL(T, sfx)                                                                  \
    static __global__ void im2col_##sfx(const fd_conv_problem_t p, const void *xv, void *colv) \
    {                                                                                          \
        const T *__restrict__ x = (const T *)xv;                                               \
        T *__restrict__ col = (T *)colv;                                                       \
        const int64_t taps = p.flt[0] * p.flt[1] * p.flt[2], width = p.c * taps;               \
        const int64_t total = p.n * p.out[0] * p.out[1] * p.out[2] * width;                    \
        FDM_FOR(e, total)                                                                      \
        {                                                                                      \
            int64_t q = e % width, r = e / width;                                              \
            const int64_t f2 = q % p.flt[2];                                                   \
            q /= p.flt[2];                                                                     \
            const int64_t f1 = q % p.flt[1];                                                   \
            q /= p.flt[1];                                                                     \
            const int64_t f0 = q % p.flt[0], c = q / p.flt[0];                                 \
            const int64_t o2 = r % p.out[2];                                                   \
            r /= p.out[2];                                                                     \
            const int64_t o1 = r % p.out[1];                                                   \
            r /= p.out[1];                                                                     \
            const int64_t o0 = r % p.out[0], n = r / p.out[0];                                 \
            const int64_t t0 = p.cross_correlation ? f0 : p.flt[0] - 1 - f0;                   \
            const int64_t t1 = p.cross_correlation ? f1 : p.flt[1] - 1 - f1;                   \
            const int64_t t2 = p.cross_correlation ? f2 : p.flt[2] - 1 - f2;                   \
            const int64_t i0 = o0 * p.stride[0] - p.pad[0] + t0 * p.dil[0];                    \
            const int64_t i1 = o1 * p.stride[1] - p.pad[1] + t1 * p.dil[1];                    \
            const int64_t i2 = o2 * p.stride[2] - p.pad[2] + t2 * p.dil[2];                    \
            T v = 0;                                                                           \
            if (i0 >= 0 && i0 < p.in[0] && i1 >= 0 && i1 < p.in[1] && i2 >= 0 && i2 < p.in[2]) \
                v = x[n * p.xs[0] + c * p.xs[1] + i0 * p.xs[2] + i1 * p.xs[3] + i2 * p.xs[4]]; \
            col[e] = v;                                                                        \
        }                                                                                      \
    }

IM2COL_KERNEL(uint8_t, b1)
IM2COL_KERNEL(uint16_t, b2)
IM2COL_KERNEL(uint32_t, b4)
IM2COL_KERNEL(uint64_t, b8)

/* The layouts whose elements are single values of 1, 2, 4 or 8 bytes (not the vectorised int8
 * layouts, whose strides count vectors). */
static int copyable(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16:
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_UINT8:
    case CUDNN_DATA_INT32:
    case CUDNN_DATA_INT64:
        return 1;
    default:
        return 0;
    }
}

extern "C" int fd_im2col_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_conv_problem_t *p = (const fd_conv_problem_t *)problem;
    if (!copyable(p->xdt)) {
        snprintf(why, why_size, "x is %s; im2col copies FLOAT, DOUBLE, HALF, BFLOAT16, INT8, UINT8, "
                 "INT32 and INT64 elements", fd_dtype_name(p->xdt));
        return 0;
    }
    if (p->nsp < 1 || p->nsp > FD_CONV_SPATIAL_MAX) {
        snprintf(why, why_size, "%d spatial dims; im2col takes 1 to 3", p->nsp);
        return 0;
    }
    return 1;
}

extern "C" size_t fd_im2col_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

extern "C" cudnnStatus_t fd_im2col_cuda_run(const void *problem, const void *args)
{
    const fd_conv_problem_t *p = (const fd_conv_problem_t *)problem;
    const fd_im2col_args_t *a = (const fd_im2col_args_t *)args;
    const int64_t total =
        p->n * p->out[0] * p->out[1] * p->out[2] * p->c * p->flt[0] * p->flt[1] * p->flt[2];
    const unsigned blocks = fd_cuda_blocks(total, FD_CUDA_BLOCK);
    cudaStream_t stream = a->handle->stream;
    const size_t es = fd_dtype_size(p->xdt);
    if (es == 1)
        im2col_b1<<<blocks, FD_CUDA_BLOCK, 0, stream>>>(*p, a->x, a->col);
    else if (es == 2)
        im2col_b2<<<blocks, FD_CUDA_BLOCK, 0, stream>>>(*p, a->x, a->col);
    else if (es == 4)
        im2col_b4<<<blocks, FD_CUDA_BLOCK, 0, stream>>>(*p, a->x, a->col);
    else if (es == 8)
        im2col_b8<<<blocks, FD_CUDA_BLOCK, 0, stream>>>(*p, a->x, a->col);
    else
        return fd_error(CUDNN_STATUS_NOT_SUPPORTED, __FILE__, __LINE__,
                        "im2col has no kernel for %zu-byte elements (%s)", es, fd_dtype_name(p->xdt));
    FD_CUDA_LAUNCHED("im2col on %s data (%u blocks, stream %p)", fd_dtype_name(p->xdt), blocks,
                     (void *)stream);
    return CUDNN_STATUS_SUCCESS;
}
