/* SPDX-License-Identifier: MIT */
/*
 * convdesc.c - convolution descriptors: 2d and Nd setters/getters, groups, math type,
 * reorder type, and the forward output-dimension queries.
 *
 * As observed on cuDNN 9.19 (contract §1.2): negative pad, non-positive stride or dilation
 * and bad enums are BAD_PARAM; arrayLength above CUDNN_DIM_MAX - 2 is NOT_SUPPORTED while 0
 * is accepted; group count below 1 is BAD_PARAM. Rejected setters change nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/conv.h"

cudnnStatus_t CUDNNWINAPI cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *convDesc)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(convDesc);
    struct cudnnConvolutionStruct *c = calloc(1, sizeof *c);
    FD_CHECK(c != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
             "cannot allocate a convolution descriptor (%zu bytes)", sizeof *c);
    c->magic = FD_MAGIC_CONV;
    c->nb_spatial = -1; /* not set */
    c->mode = CUDNN_CROSS_CORRELATION;
    c->compute = CUDNN_DATA_FLOAT;
    c->groups = 1;
    c->math = CUDNN_DEFAULT_MATH;
    c->reorder = CUDNN_DEFAULT_REORDER;
    *convDesc = c;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t convDesc)
{
    FD_API(NULL);
    if (convDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    FD_CHECK(convDesc->magic == FD_MAGIC_CONV, CUDNN_STATUS_BAD_PARAM,
             "convDesc %p is not a live convolution descriptor", (void *)convDesc);
    convDesc->magic = 0;
    free(convDesc);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t conv_live(cudnnConvolutionDescriptor_t desc, const char *name)
{
    FD_CHECK(desc != NULL, CUDNN_STATUS_BAD_PARAM, "%s is NULL", name);
    FD_CHECK(desc->magic == FD_MAGIC_CONV, CUDNN_STATUS_BAD_PARAM,
             "%s (%p) is not a live convolution descriptor", name, (void *)desc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t fd_conv_desc_check(cudnnConvolutionDescriptor_t desc, const char *name)
{
    FD_TRY(conv_live(desc, name));
    FD_CHECK(desc->nb_spatial >= 0, CUDNN_STATUS_BAD_PARAM,
             "%s was created but never set (call cudnnSetConvolution*Descriptor first)", name);
    return CUDNN_STATUS_SUCCESS;
}

static int compute_type_ok(cudnnDataType_t t)
{
    return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_DOUBLE || t == CUDNN_DATA_HALF ||
           t == CUDNN_DATA_BFLOAT16 || t == CUDNN_DATA_INT32;
}

static cudnnStatus_t conv_commit(cudnnConvolutionDescriptor_t desc, int n, const int *pad,
                                 const int *stride, const int *dil, cudnnConvolutionMode_t mode,
                                 cudnnDataType_t compute)
{
    FD_TRY(conv_live(desc, "convDesc"));
    FD_CHECK(n >= 0, CUDNN_STATUS_BAD_PARAM, "arrayLength is %d", n);
    FD_CHECK(n <= FD_DIM_MAX - 2, CUDNN_STATUS_NOT_SUPPORTED,
             "arrayLength is %d; at most CUDNN_DIM_MAX - 2 = %d spatial dims", n, FD_DIM_MAX - 2);
    FD_CHECK(n == 0 || (pad != NULL && stride != NULL && dil != NULL), CUDNN_STATUS_BAD_PARAM,
             "padA, filterStrideA or dilationA is NULL");
    for (int i = 0; i < n; i++) {
        FD_CHECK(pad[i] >= 0, CUDNN_STATUS_BAD_PARAM, "pad[%d] is %d; padding cannot be negative", i, pad[i]);
        FD_CHECK(stride[i] > 0, CUDNN_STATUS_BAD_PARAM, "stride[%d] is %d; strides must be positive", i, stride[i]);
        FD_CHECK(dil[i] > 0, CUDNN_STATUS_BAD_PARAM, "dilation[%d] is %d; dilations must be positive", i, dil[i]);
    }
    FD_CHECK(mode == CUDNN_CONVOLUTION || mode == CUDNN_CROSS_CORRELATION, CUDNN_STATUS_BAD_PARAM,
             "mode %d is not CUDNN_CONVOLUTION (0) or CUDNN_CROSS_CORRELATION (1)", (int)mode);
    FD_CHECK(compute_type_ok(compute), CUDNN_STATUS_BAD_PARAM,
             "computeType %s (%d) is not FLOAT, DOUBLE, HALF, BFLOAT16 or INT32",
             fd_dtype_name(compute), (int)compute);
    desc->nb_spatial = n;
    for (int i = 0; i < n; i++) {
        desc->pad[i] = pad[i];
        desc->stride[i] = stride[i];
        desc->dil[i] = dil[i];
    }
    desc->mode = mode;
    desc->compute = compute;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t convDesc,
                                                          int pad_h, int pad_w, int u, int v,
                                                          int dilation_h, int dilation_w,
                                                          cudnnConvolutionMode_t mode,
                                                          cudnnDataType_t computeType)
{
    FD_API(NULL);
    int pad[2] = {pad_h, pad_w}, stride[2] = {u, v}, dil[2] = {dilation_h, dilation_w};
    return conv_commit(convDesc, 2, pad, stride, dil, mode, computeType);
}

cudnnStatus_t CUDNNWINAPI cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t convDesc,
                                                          int arrayLength, const int padA[],
                                                          const int filterStrideA[],
                                                          const int dilationA[],
                                                          cudnnConvolutionMode_t mode,
                                                          cudnnDataType_t computeType)
{
    FD_API(NULL);
    return conv_commit(convDesc, arrayLength, padA, filterStrideA, dilationA, mode, computeType);
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolution2dDescriptor(const cudnnConvolutionDescriptor_t convDesc,
                                                          int *pad_h, int *pad_w, int *u, int *v,
                                                          int *dilation_h, int *dilation_w,
                                                          cudnnConvolutionMode_t *mode,
                                                          cudnnDataType_t *computeType)
{
    FD_API(NULL);
    FD_TRY(fd_conv_desc_check(convDesc, "convDesc"));
    FD_CHECK_NOT_NULL(pad_h);
    FD_CHECK_NOT_NULL(pad_w);
    FD_CHECK_NOT_NULL(u);
    FD_CHECK_NOT_NULL(v);
    FD_CHECK_NOT_NULL(dilation_h);
    FD_CHECK_NOT_NULL(dilation_w);
    FD_CHECK_NOT_NULL(mode);
    FD_CHECK_NOT_NULL(computeType);
    FD_CHECK(convDesc->nb_spatial == 2, CUDNN_STATUS_BAD_PARAM,
             "convDesc has %d spatial dims; cudnnGetConvolution2dDescriptor reads 2-d ones only",
             convDesc->nb_spatial);
    *pad_h = convDesc->pad[0], *pad_w = convDesc->pad[1];
    *u = convDesc->stride[0], *v = convDesc->stride[1];
    *dilation_h = convDesc->dil[0], *dilation_w = convDesc->dil[1];
    *mode = convDesc->mode;
    *computeType = convDesc->compute;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionNdDescriptor(const cudnnConvolutionDescriptor_t convDesc,
                                                          int arrayLengthRequested, int *arrayLength,
                                                          int padA[], int strideA[], int dilationA[],
                                                          cudnnConvolutionMode_t *mode,
                                                          cudnnDataType_t *computeType)
{
    FD_API(NULL);
    FD_TRY(fd_conv_desc_check(convDesc, "convDesc"));
    FD_CHECK(arrayLengthRequested >= 0, CUDNN_STATUS_BAD_PARAM, "arrayLengthRequested is %d",
             arrayLengthRequested);
    FD_CHECK(arrayLengthRequested <= FD_DIM_MAX - 2, CUDNN_STATUS_NOT_SUPPORTED,
             "arrayLengthRequested is %d; at most CUDNN_DIM_MAX - 2 = %d", arrayLengthRequested,
             FD_DIM_MAX - 2);
    FD_CHECK(arrayLength && mode && computeType, CUDNN_STATUS_BAD_PARAM,
             "arrayLength, mode or computeType is NULL");
    FD_CHECK(arrayLengthRequested == 0 || (padA && strideA && dilationA), CUDNN_STATUS_BAD_PARAM,
             "padA, strideA or dilationA is NULL while arrayLengthRequested is %d", arrayLengthRequested);
    int n = arrayLengthRequested < convDesc->nb_spatial ? arrayLengthRequested : convDesc->nb_spatial;
    *arrayLength = convDesc->nb_spatial;
    for (int i = 0; i < n; i++) {
        padA[i] = convDesc->pad[i];
        strideA[i] = convDesc->stride[i];
        dilationA[i] = convDesc->dil[i];
    }
    *mode = convDesc->mode;
    *computeType = convDesc->compute;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc,
                                                        int groupCount)
{
    FD_API(NULL);
    FD_TRY(conv_live(convDesc, "convDesc"));
    FD_CHECK(groupCount >= 1, CUDNN_STATUS_BAD_PARAM, "groupCount is %d; it must be at least 1", groupCount);
    convDesc->groups = groupCount;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc,
                                                        int *groupCount)
{
    FD_API(NULL);
    FD_TRY(conv_live(convDesc, "convDesc"));
    FD_CHECK_NOT_NULL(groupCount);
    *groupCount = convDesc->groups;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc,
                                                      cudnnMathType_t mathType)
{
    FD_API(NULL);
    FD_TRY(conv_live(convDesc, "convDesc"));
    FD_CHECK(mathType == CUDNN_DEFAULT_MATH || mathType == CUDNN_TENSOR_OP_MATH ||
                 mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION || mathType == CUDNN_FMA_MATH,
             CUDNN_STATUS_BAD_PARAM, "mathType %d is not a cudnnMathType_t value", (int)mathType);
    convDesc->math = mathType;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc,
                                                      cudnnMathType_t *mathType)
{
    FD_API(NULL);
    FD_TRY(conv_live(convDesc, "convDesc"));
    FD_CHECK_NOT_NULL(mathType);
    *mathType = convDesc->math;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetConvolutionReorderType(cudnnConvolutionDescriptor_t convDesc,
                                                         cudnnReorderType_t reorderType)
{
    FD_API(NULL);
    FD_TRY(conv_live(convDesc, "convDesc"));
    FD_CHECK(reorderType == CUDNN_DEFAULT_REORDER || reorderType == CUDNN_NO_REORDER,
             CUDNN_STATUS_BAD_PARAM, "reorderType %d is not a cudnnReorderType_t value", (int)reorderType);
    convDesc->reorder = reorderType;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionReorderType(cudnnConvolutionDescriptor_t convDesc,
                                                         cudnnReorderType_t *reorderType)
{
    FD_API(NULL);
    FD_TRY(conv_live(convDesc, "convDesc"));
    FD_CHECK_NOT_NULL(reorderType);
    *reorderType = convDesc->reorder;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolution2dForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                                                const cudnnTensorDescriptor_t inputTensorDesc,
                                                                const cudnnFilterDescriptor_t filterDesc,
                                                                int *n, int *c, int *h, int *w)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(n);
    FD_CHECK_NOT_NULL(c);
    FD_CHECK_NOT_NULL(h);
    FD_CHECK_NOT_NULL(w);
    int out[4];
    FD_TRY(fd_conv_output_dims(convDesc, inputTensorDesc, filterDesc, 4, out));
    *n = out[0], *c = out[1], *h = out[2], *w = out[3];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionNdForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                                                const cudnnTensorDescriptor_t inputTensorDesc,
                                                                const cudnnFilterDescriptor_t filterDesc,
                                                                int nbDims, int tensorOuputDimA[])
{
    FD_API(NULL);
    FD_CHECK(tensorOuputDimA != NULL, CUDNN_STATUS_BAD_PARAM, "tensorOuputDimA is NULL");
    int out[FD_DIM_MAX];
    FD_CHECK(nbDims >= 3 && nbDims <= FD_DIM_MAX, CUDNN_STATUS_BAD_PARAM,
             "nbDims is %d; it must be in [3, %d]", nbDims, FD_DIM_MAX);
    FD_TRY(fd_conv_output_dims(convDesc, inputTensorDesc, filterDesc, nbDims, out));
    memcpy(tensorOuputDimA, out, sizeof(int) * (size_t)nbDims);
    return CUDNN_STATUS_SUCCESS;
}
