/* SPDX-License-Identifier: MIT */
/*
 * softmax.c - cudnnSoftmaxForward and cudnnSoftmaxBackward.
 *
 * Validation as cuDNN documents it: a bad algorithm or mode enum, differing dims or data types
 * of the tensors, or a NULL pointer is BAD_PARAM. Data types FLOAT, DOUBLE, HALF, BFLOAT16;
 * 4-d and 5-d tensors (INSTANCE normalises over all dims but N, CHANNEL over dim 1); other ranks,
 * other types and negative strides are NOT_SUPPORTED. In-place is allowed (y == x; dx == dy or
 * dx == y) with identical strides; any other overlap of the output with an input is BAD_PARAM.
 * FAST is computed like ACCURATE (more accurate than cuDNN's FAST, never less; contract §1.8).
 */
#include "../core/softmax.h"
#include "../core/op.h"

static void span_of(const struct cudnnTensorStruct *t, const void *p, uintptr_t *lo, uintptr_t *hi)
{
    *lo = (uintptr_t)p;
    *hi = *lo + (uintptr_t)fd_tensor_extent(t) * fd_dtype_size(t->dtype) - 1;
}

static int same_strides(const struct cudnnTensorStruct *a, const struct cudnnTensorStruct *b)
{
    for (int i = 0; i < a->nb_dims; i++)
        if (a->stride[i] != b->stride[i])
            return 0;
    return 1;
}

/* The output may be exactly the input (same pointer and strides) or disjoint from it. */
static cudnnStatus_t check_alias(const struct cudnnTensorStruct *in, const void *inp,
                                 const char *in_name, const struct cudnnTensorStruct *out,
                                 const void *outp, const char *out_name)
{
    if (inp == outp) {
        FD_CHECK(same_strides(in, out), CUDNN_STATUS_BAD_PARAM,
                 "in-place softmax (%s == %s) needs identical strides", out_name, in_name);
        return CUDNN_STATUS_SUCCESS;
    }
    uintptr_t a0, a1, b0, b1;
    span_of(in, inp, &a0, &a1);
    span_of(out, outp, &b0, &b1);
    FD_CHECK(!(a0 <= b1 && b0 <= a1), CUDNN_STATUS_BAD_PARAM,
             "%s overlaps %s without being the same tensor", out_name, in_name);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t check_enums(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode)
{
    FD_CHECK(algo == CUDNN_SOFTMAX_FAST || algo == CUDNN_SOFTMAX_ACCURATE ||
                 algo == CUDNN_SOFTMAX_LOG,
             CUDNN_STATUS_BAD_PARAM, "algo %d is not a cudnnSoftmaxAlgorithm_t value", (int)algo);
    FD_CHECK(mode == CUDNN_SOFTMAX_MODE_INSTANCE || mode == CUDNN_SOFTMAX_MODE_CHANNEL,
             CUDNN_STATUS_BAD_PARAM, "mode %d is not a cudnnSoftmaxMode_t value", (int)mode);
    return CUDNN_STATUS_SUCCESS;
}

/* `t` must match `ref` in dims and data type. */
static cudnnStatus_t check_like(const struct cudnnTensorStruct *ref, const char *ref_name,
                                const struct cudnnTensorStruct *t, const char *name)
{
    FD_CHECK(t->nb_dims == ref->nb_dims, CUDNN_STATUS_BAD_PARAM, "%s has %d dims but %s has %d",
             name, t->nb_dims, ref_name, ref->nb_dims);
    for (int i = 0; i < t->nb_dims; i++)
        FD_CHECK(t->dim[i] == ref->dim[i], CUDNN_STATUS_BAD_PARAM,
                 "%s dim %d is %d but %s dim %d is %d", name, i, t->dim[i], ref_name, i,
                 ref->dim[i]);
    FD_CHECK(t->dtype == ref->dtype, CUDNN_STATUS_BAD_PARAM, "%s is %s but %s is %s", name,
             fd_dtype_name(t->dtype), ref_name, fd_dtype_name(ref->dtype));
    FD_CHECK(!fd_tensor_has_negative_stride(t), CUDNN_STATUS_NOT_SUPPORTED,
             "%s has a negative stride; softmax does not support negative strides", name);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t check_computable(const struct cudnnTensorStruct *t, const char *name)
{
    cudnnDataType_t dt = t->dtype;
    FD_CHECK(dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_DOUBLE || dt == CUDNN_DATA_HALF ||
                 dt == CUDNN_DATA_BFLOAT16,
             CUDNN_STATUS_NOT_SUPPORTED, "softmax on %s data is not implemented",
             fd_dtype_name(dt));
    FD_CHECK(t->nb_dims == 4 || t->nb_dims == 5, CUDNN_STATUS_NOT_SUPPORTED,
             "%s has %d dims; softmax computes 4-d and 5-d tensors", name, t->nb_dims);
    FD_CHECK(!fd_tensor_has_negative_stride(t), CUDNN_STATUS_NOT_SUPPORTED,
             "%s has a negative stride; softmax does not support negative strides", name);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSoftmaxForward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo,
                                              cudnnSoftmaxMode_t mode, const void *alpha,
                                              const cudnnTensorDescriptor_t xDesc, const void *x,
                                              const void *beta, const cudnnTensorDescriptor_t yDesc,
                                              void *y)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(check_enums(algo, mode));
    FD_CHECK(alpha && beta && x && y, CUDNN_STATUS_BAD_PARAM,
             "a pointer is NULL (alpha %p, beta %p, x %p, y %p)", alpha, beta, x, y);
    FD_TRY(fd_tensor_check(xDesc, "xDesc"));
    FD_TRY(fd_tensor_check(yDesc, "yDesc"));
    FD_TRY(check_like(xDesc, "xDesc", yDesc, "yDesc"));
    FD_TRY(check_computable(xDesc, "xDesc"));
    FD_CHECK(fd_tensor_is_non_overlapping(yDesc), CUDNN_STATUS_BAD_PARAM,
             "yDesc has overlapping strides; an output may not address an element twice");
    FD_TRY(check_alias(xDesc, x, "x", yDesc, y, "y"));
    fd_softmax_fwd_problem_t p = {algo, mode, *xDesc, *yDesc};
    fd_softmax_fwd_args_t a = {x, y, fd_scale_value(alpha, yDesc->dtype),
                               fd_scale_value(beta, yDesc->dtype), handle};
    return fd_op_run(handle, FD_OP_SOFTMAX_FWD, &p, &a);
}

cudnnStatus_t CUDNNWINAPI cudnnSoftmaxBackward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo,
                                               cudnnSoftmaxMode_t mode, const void *alpha,
                                               const cudnnTensorDescriptor_t yDesc, const void *y,
                                               const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                               const void *beta,
                                               const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(check_enums(algo, mode));
    FD_CHECK(alpha && beta && y && dy && dx, CUDNN_STATUS_BAD_PARAM,
             "a pointer is NULL (alpha %p, beta %p, y %p, dy %p, dx %p)", alpha, beta, y, dy, dx);
    FD_TRY(fd_tensor_check(yDesc, "yDesc"));
    FD_TRY(fd_tensor_check(dyDesc, "dyDesc"));
    FD_TRY(fd_tensor_check(dxDesc, "dxDesc"));
    FD_TRY(check_like(yDesc, "yDesc", dyDesc, "dyDesc"));
    FD_TRY(check_like(yDesc, "yDesc", dxDesc, "dxDesc"));
    FD_TRY(check_computable(yDesc, "yDesc"));
    FD_CHECK(fd_tensor_is_non_overlapping(dxDesc), CUDNN_STATUS_BAD_PARAM,
             "dxDesc has overlapping strides; an output may not address an element twice");
    FD_TRY(check_alias(dyDesc, dy, "dy", dxDesc, dx, "dx"));
    FD_TRY(check_alias(yDesc, y, "y", dxDesc, dx, "dx"));
    fd_softmax_bwd_problem_t p = {algo, mode, *yDesc, *dyDesc, *dxDesc};
    fd_softmax_bwd_args_t a = {y, dy, dx, fd_scale_value(alpha, dxDesc->dtype),
                               fd_scale_value(beta, dxDesc->dtype), handle};
    return fd_op_run(handle, FD_OP_SOFTMAX_BWD, &p, &a);
}
