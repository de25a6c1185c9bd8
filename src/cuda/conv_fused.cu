/* SPDX-License-Identifier: MIT */
/*
 * conv_fused.cu - cudnnConvolutionBiasActivationForward on the GPU (row
 * fd_conv_bias_act_fwd_cuda): y = act(alpha1 * conv(x, w) + alpha2 * z + bias).
 *
 * One fused kernel, one thread per y element: the convolution is the naive direct gather of
 * conv_direct.cu (float accumulation, double for DOUBLE; any strides, groups, dilation, padding,
 * both modes, 1 to 3 spatial dims), the epilogue is src/ref/conv_fused_ref.c's in double with one
 * rounding. Because a thread reads its own z element before it writes the same y element, z may
 * be y (cuDNN's in-place form) with no scratch: the row needs NO workspace, so the size that
 * cudnnGetConvolutionForwardWorkspaceSize reports for the algorithm always suffices. The one
 * aliasing it cannot do without scratch - z is y's memory but addressed with other strides -
 * is refused by run() with NOT_SUPPORTED (the ref's result there depends on its loop order).
 * FLOAT, DOUBLE, HALF, BFLOAT16 (x, w, z, y of one type; bias of that type or FLOAT for
 * HALF/BFLOAT16); every activation mode with its NaN option; every algorithm enum. Deterministic.
 */
#include <stdio.h>

#include "misc_dev.cuh"
extern "C" {
#include "../core/conv_fused.h"
}

static __device__ __forceinline__ float cf_ld(const float *p, int64_t i)
{
    return p[i];
}
static __device__ __forceinline__ double cf_ld(const double *p, int64_t i)
{
    return p[i];
}
static __device__ __forceinline__ float cf_ld(const __half *p, int64_t i)
{
    return __half2float(p[i]);
}
static __device__ __forceinline__ float cf_ld(const __nv_bfloat16 *p, int64_t i)
{
    return __bfloat162float(p[i]);
}
static __device__ __forceinline__ void cf_st(float *p, int64_t i, double v)
{
    p[i] = (float)v;
}
static __device__ __forceinline__ void cf_st(double *p, int64_t i, double v)
{
    p[i] = v;
}
static __device__ __forceinline__ void cf_st(__half *p, int64_t i, double v)
{
    p[i] = __double2half(v);
}
static __device__ __forceinline__ void cf_st(__nv_bfloat16 *p, int64_t i, double v)
{
    p[i] = __double2bfloat16(v);
}

#define FD_STAMP_FILE "conv_fused_kernels.cuh"
#include "stamp_types.cuh"

extern "C" int fd_conv_bias_act_fwd_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_conv_bias_act_problem_t *fp = (const fd_conv_bias_act_problem_t *)problem;
    const fd_conv_problem_t *p = &fp->conv;
    if (!fdm_host_dtype_ok(p->xdt) || p->wdt != p->xdt || p->ydt != p->xdt || fp->zdt != p->ydt) {
        snprintf(why, why_size, "x/w/z/y are %s/%s/%s/%s; the fused kernel takes one of FLOAT, "
                 "DOUBLE, HALF, BFLOAT16 for all four", fd_dtype_name(p->xdt), fd_dtype_name(p->wdt),
                 fd_dtype_name(fp->zdt), fd_dtype_name(p->ydt));
        return 0;
    }
    if (fp->bias_dt != p->ydt && fp->bias_dt != CUDNN_DATA_FLOAT) {
        snprintf(why, why_size, "bias is %s for a %s output; the fused kernel takes y's type or FLOAT",
                 fd_dtype_name(fp->bias_dt), fd_dtype_name(p->ydt));
        return 0;
    }
    if (p->nsp < 1 || p->nsp > FD_CONV_SPATIAL_MAX) {
        snprintf(why, why_size, "%d spatial dims; the fused kernel takes 1 to 3", p->nsp);
        return 0;
    }
    return 1;
}

extern "C" size_t fd_conv_bias_act_fwd_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

/* z addresses every element of y at y's own offset (dims of extent 1 do not matter). */
static int z_like_y(const fd_conv_bias_act_problem_t *fp)
{
    const fd_conv_problem_t *p = &fp->conv;
    const int64_t ext[2 + FD_CONV_SPATIAL_MAX] = {p->n, p->k, p->out[0], p->out[1], p->out[2]};
    for (int i = 0; i < 2 + FD_CONV_SPATIAL_MAX; i++)
        if (ext[i] > 1 && fp->zs[i] != p->ys[i])
            return 0;
    return 1;
}

#define CBA_LAUNCH(sfx)                                                                        \
    conv_bias_act_fwd_##sfx<<<blocks, FD_CUDA_BLOCK, 0, stream>>>(*fp, a->x, a->w, z, a->bias,   \
                                                                  a->y, a->alpha1, a->alpha2)

extern "C" cudnnStatus_t fd_conv_bias_act_fwd_cuda_run(const void *problem, const void *args)
{
    const fd_conv_bias_act_problem_t *fp = (const fd_conv_bias_act_problem_t *)problem;
    const fd_conv_bias_act_args_t *a = (const fd_conv_bias_act_args_t *)args;
    const fd_conv_problem_t *p = &fp->conv;
    const void *z = a->alpha2 != 0.0 ? a->z : NULL; /* never read when alpha2 is 0 */
    FD_CHECK(z != a->y || z_like_y(fp), CUDNN_STATUS_NOT_SUPPORTED,
             "z is y's memory but zDesc's strides differ from yDesc's; the cuda row computes z == y "
             "only with one layout for both");
    const int64_t total = p->n * p->k * p->out[0] * p->out[1] * p->out[2];
    const unsigned blocks = fd_cuda_blocks(total, FD_CUDA_BLOCK);
    cudaStream_t stream = a->handle->stream;
    switch (p->ydt) {
    case CUDNN_DATA_FLOAT:
        CBA_LAUNCH(f32);
        break;
    case CUDNN_DATA_DOUBLE:
        CBA_LAUNCH(f64);
        break;
    case CUDNN_DATA_HALF:
        CBA_LAUNCH(f16);
        break;
    case CUDNN_DATA_BFLOAT16:
        CBA_LAUNCH(bf16);
        break;
    default:
        return fd_error(CUDNN_STATUS_NOT_SUPPORTED, __FILE__, __LINE__,
                        "conv_bias_act_fwd has no %s kernel", fd_dtype_name(p->ydt));
    }
    FD_CUDA_LAUNCHED("conv_bias_act_fwd on %s data (%u blocks, stream %p)", fd_dtype_name(p->ydt),
                     blocks, (void *)stream);
    return CUDNN_STATUS_SUCCESS;
}
