/* SPDX-License-Identifier: MIT */
/*
 * conv_fused.c - cudnnConvolutionBiasActivationForward and cudnnIm2Col.
 *
 * y = act(alpha1 * conv(x, w) + alpha2 * z + bias). cuDNN restricts the activation to RELU
 * (and IDENTITY with IMPLICIT_PRECOMP_GEMM); freednn accepts every mode of an activation
 * descriptor with every algorithm - a superset, listed in docs/support-matrix.md. z may alias
 * y, as in cuDNN; z may be NULL when *alpha2 is 0 (then it is never read). bias is 1 x K x 1...
 * of y's type, or FLOAT for HALF/BFLOAT16 outputs.
 */
#include <string.h>

#include "../core/conv_fused.h"
#include "../core/op.h"

static int same_dims(const struct cudnnTensorStruct *a, const struct cudnnTensorStruct *b)
{
    if (a->nb_dims != b->nb_dims)
        return 0;
    for (int i = 0; i < a->nb_dims; i++)
        if (a->dim[i] != b->dim[i])
            return 0;
    return 1;
}

static int spans_overlap(const struct cudnnTensorStruct *a, const void *pa,
                         const struct cudnnTensorStruct *b, const void *pb)
{
    uintptr_t a0 = (uintptr_t)pa, a1 = a0 + (uintptr_t)fd_tensor_extent(a) * fd_dtype_size(a->dtype);
    uintptr_t b0 = (uintptr_t)pb, b1 = b0 + (uintptr_t)fd_tensor_extent(b) * fd_dtype_size(b->dtype);
    return a0 < b1 && b0 < a1;
}

cudnnStatus_t CUDNNWINAPI cudnnConvolutionBiasActivationForward(
    cudnnHandle_t handle, const void *alpha1, const cudnnTensorDescriptor_t xDesc, const void *x,
    const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnConvolutionDescriptor_t convDesc,
    cudnnConvolutionFwdAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *alpha2,
    const cudnnTensorDescriptor_t zDesc, const void *z, const cudnnTensorDescriptor_t biasDesc,
    const void *bias, const cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t yDesc, void *y)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK(alpha1 && alpha2 && x && w && bias && y, CUDNN_STATUS_BAD_PARAM,
             "a data pointer is NULL (alpha1 %p, alpha2 %p, x %p, w %p, bias %p, y %p)", alpha1,
             alpha2, x, w, bias, y);
    fd_conv_bias_act_problem_t p;
    memset(&p, 0, sizeof p);
    FD_TRY(fd_conv_problem_init(&p.conv, FD_CONV_FWD, xDesc, wDesc, convDesc, yDesc));
    FD_CHECK(!fd_conv_is_int8(&p.conv), CUDNN_STATUS_NOT_SUPPORTED,
             "cudnnConvolutionBiasActivationForward on %s data is not implemented "
             "(cudnnConvolutionForward is: docs/int8.md)", fd_dtype_name(xDesc->dtype));
    FD_TRY(fd_tensor_check(zDesc, "zDesc"));
    FD_TRY(fd_tensor_check(biasDesc, "biasDesc"));
    FD_TRY(fd_act_desc_check(activationDesc, "activationDesc"));
    FD_CHECK(same_dims(zDesc, yDesc), CUDNN_STATUS_BAD_PARAM, "zDesc must have yDesc's dims");
    FD_CHECK(zDesc->dtype == yDesc->dtype, CUDNN_STATUS_NOT_SUPPORTED, "zDesc is %s but yDesc is %s",
             fd_dtype_name(zDesc->dtype), fd_dtype_name(yDesc->dtype));
    FD_CHECK(biasDesc->nb_dims == yDesc->nb_dims, CUDNN_STATUS_BAD_PARAM,
             "biasDesc has %d dims but yDesc has %d", biasDesc->nb_dims, yDesc->nb_dims);
    for (int i = 0; i < biasDesc->nb_dims; i++)
        FD_CHECK(biasDesc->dim[i] == (i == 1 ? yDesc->dim[1] : 1), CUDNN_STATUS_BAD_PARAM,
                 "biasDesc dim %d is %d; bias must be 1 x K x 1... with K = %d", i, biasDesc->dim[i],
                 yDesc->dim[1]);
    FD_CHECK(biasDesc->dtype == yDesc->dtype ||
                 (biasDesc->dtype == CUDNN_DATA_FLOAT &&
                  (yDesc->dtype == CUDNN_DATA_HALF || yDesc->dtype == CUDNN_DATA_BFLOAT16)),
             CUDNN_STATUS_NOT_SUPPORTED, "biasDesc is %s for a %s output", fd_dtype_name(biasDesc->dtype),
             fd_dtype_name(yDesc->dtype));
    double a2 = fd_scale_value(alpha2, yDesc->dtype);
    FD_CHECK(z != NULL || a2 == 0.0, CUDNN_STATUS_BAD_PARAM, "z is NULL while alpha2 is %g", a2);
    FD_CHECK(!spans_overlap(xDesc, x, yDesc, y), CUDNN_STATUS_NOT_SUPPORTED,
             "y overlaps x; convolution is not computed in place");
    FD_CHECK(z == NULL || z == y || !spans_overlap(zDesc, z, yDesc, y), CUDNN_STATUS_BAD_PARAM,
             "z partly overlaps y (z may be y itself, or separate)");
    FD_CHECK((int)algo >= 0 && (int)algo < CUDNN_CONVOLUTION_FWD_ALGO_COUNT, CUDNN_STATUS_NOT_SUPPORTED,
             "algo %d is not a forward algorithm (0..%d)", (int)algo, CUDNN_CONVOLUTION_FWD_ALGO_COUNT - 1);
    char why[512];
    FD_CHECK(fd_conv_select(&p.conv, handle->backend, (int)algo, why, sizeof why) != NULL,
             CUDNN_STATUS_NOT_SUPPORTED, "%s: %s", fd_conv_algo_name(FD_CONV_FWD, (int)algo), why);
    for (int i = 0; i < 2 + FD_CONV_SPATIAL_MAX; i++) /* z strides in the problem's dim order */
        p.zs[i] = 0;
    int lead = FD_CONV_SPATIAL_MAX - p.conv.nsp;
    p.zs[0] = zDesc->stride[0], p.zs[1] = zDesc->stride[1];
    for (int s = 0; s < p.conv.nsp; s++)
        p.zs[2 + lead + s] = zDesc->stride[2 + s];
    p.bias_stride = biasDesc->stride[1];
    p.zdt = zDesc->dtype;
    p.bias_dt = biasDesc->dtype;
    p.act = activationDesc->p;
    /* The fused row does the whole computation: its workspace, not the plain convolution's.
     * Selected once the problem is complete (the rows look at z's and bias's types). */
    const fd_op_impl_t *fused = fd_op_select(FD_OP_CONV_BIAS_ACT_FWD, handle->backend, &p, why, sizeof why);
    FD_CHECK(fused != NULL, CUDNN_STATUS_NOT_SUPPORTED, "conv_bias_act_fwd: %s", why);
    size_t need = fused->workspace(&p);
    FD_CHECK(workSpaceSizeInBytes >= need && (need == 0 || workSpace != NULL), CUDNN_STATUS_BAD_PARAM,
             "workSpaceSizeInBytes is %zu (workSpace %p) but %s needs %zu", workSpaceSizeInBytes,
             workSpace, fused->name, need);
    fd_conv_bias_act_args_t a = {handle, x, w, z, bias, y, fd_scale_value(alpha1, yDesc->dtype), a2};
    return fused->run(&p, &a);
}

cudnnStatus_t CUDNNWINAPI cudnnIm2Col(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                      const void *x, const cudnnFilterDescriptor_t wDesc,
                                      const cudnnConvolutionDescriptor_t convDesc, void *colBuffer)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK(x != NULL && colBuffer != NULL, CUDNN_STATUS_BAD_PARAM, "x (%p) or colBuffer (%p) is NULL",
             x, colBuffer);
    FD_TRY(fd_tensor_check(xDesc, "xDesc"));
    int out[FD_DIM_MAX];
    FD_TRY(fd_conv_output_dims(convDesc, xDesc, wDesc, xDesc->nb_dims, out));
    /* A dense y of the output shape stands in for the descriptor cudnnIm2Col does not take. */
    struct cudnnTensorStruct y = {.magic = FD_MAGIC_TENSOR, .is_set = 1, .dtype = xDesc->dtype,
                                  .nb_dims = xDesc->nb_dims, .vect = 1};
    int64_t acc = 1;
    for (int i = xDesc->nb_dims - 1; i >= 0; i--) {
        y.dim[i] = out[i];
        y.stride[i] = (int)(acc < 0x7fffffff ? acc : 0x7fffffff);
        acc *= out[i];
    }
    fd_conv_problem_t p;
    FD_TRY(fd_conv_problem_init(&p, FD_CONV_FWD, xDesc, wDesc, convDesc, &y));
    fd_im2col_args_t a = {handle, x, colBuffer};
    return fd_op_run(handle, FD_OP_IM2COL, &p, &a);
}
