/* SPDX-License-Identifier: MIT */
/*
 * activation.c - activation descriptors (create, set, get, swish beta, destroy) and
 * cudnnActivationForward / cudnnActivationBackward. The modes are defined in
 * src/core/activation.h.
 *
 * Validation (contract §1.2.2, §1.6, observed on cuDNN 9.19): an invalid mode or NaN option is
 * BAD_PARAM, any coef is accepted (clipped-ReLU coef -1 or NaN included); x/y (and dy/dx) of
 * different shapes or types are BAD_PARAM; in place (output pointer == an input pointer) is
 * allowed only when both descriptors have the same strides, BAD_PARAM otherwise; an output that
 * partially overlaps an input is NOT_SUPPORTED; a data type other than FLOAT, DOUBLE, HALF and
 * BFLOAT16 is NOT_SUPPORTED. Getters of a never-set descriptor answer BAD_PARAM (as the
 * convolution descriptor does); the swish beta (default 1) can be set and read at any time.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/activation.h"
#include "../core/op.h"

cudnnStatus_t CUDNNWINAPI
cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t *activationDesc)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(activationDesc);
    struct cudnnActivationStruct *a = calloc(1, sizeof *a);
    FD_CHECK(a != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
             "cannot allocate an activation descriptor (%zu bytes)", sizeof *a);
    a->magic = FD_MAGIC_ACT;
    a->p.mode = CUDNN_ACTIVATION_RELU;
    a->p.propagate_nan = 0;
    a->p.coef = 0.0;
    a->p.swish_beta = 1.0;
    *activationDesc = a;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI
cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t activationDesc)
{
    FD_API(NULL);
    if (activationDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    FD_CHECK(activationDesc->magic == FD_MAGIC_ACT, CUDNN_STATUS_BAD_PARAM,
             "activationDesc %p is not a live activation descriptor", (void *)activationDesc);
    activationDesc->magic = 0;
    free(activationDesc);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t act_live(cudnnActivationDescriptor_t desc, const char *name)
{
    FD_CHECK(desc != NULL, CUDNN_STATUS_BAD_PARAM, "%s is NULL", name);
    FD_CHECK(desc->magic == FD_MAGIC_ACT, CUDNN_STATUS_BAD_PARAM,
             "%s (%p) is not a live activation descriptor", name, (void *)desc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t fd_act_desc_check(cudnnActivationDescriptor_t desc, const char *name)
{
    FD_TRY(act_live(desc, name));
    FD_CHECK(desc->is_set, CUDNN_STATUS_BAD_PARAM,
             "%s was created but never set (call cudnnSetActivationDescriptor first)", name);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetActivationDescriptor(cudnnActivationDescriptor_t activationDesc,
                                                       cudnnActivationMode_t mode,
                                                       cudnnNanPropagation_t reluNanOpt,
                                                       double coef)
{
    FD_API(NULL);
    FD_TRY(act_live(activationDesc, "activationDesc"));
    FD_CHECK((int)mode >= (int)CUDNN_ACTIVATION_SIGMOID && (int)mode <= (int)CUDNN_ACTIVATION_SWISH,
             CUDNN_STATUS_BAD_PARAM,
             "mode %d is not a cudnnActivationMode_t value (SIGMOID 0 .. SWISH 6)", (int)mode);
    FD_CHECK(reluNanOpt == CUDNN_NOT_PROPAGATE_NAN || reluNanOpt == CUDNN_PROPAGATE_NAN,
             CUDNN_STATUS_BAD_PARAM,
             "reluNanOpt %d is not CUDNN_NOT_PROPAGATE_NAN (0) or CUDNN_PROPAGATE_NAN (1)",
             (int)reluNanOpt);
    activationDesc->p.mode = mode;
    activationDesc->p.propagate_nan = reluNanOpt == CUDNN_PROPAGATE_NAN;
    activationDesc->p.coef = coef;
    activationDesc->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetActivationDescriptor(
    const cudnnActivationDescriptor_t activationDesc, cudnnActivationMode_t *mode,
    cudnnNanPropagation_t *reluNanOpt, double *coef)
{
    FD_API(NULL);
    FD_TRY(fd_act_desc_check(activationDesc, "activationDesc"));
    FD_CHECK(mode && reluNanOpt && coef, CUDNN_STATUS_BAD_PARAM,
             "an output pointer is NULL (mode %p, reluNanOpt %p, coef %p)", (void *)mode,
             (void *)reluNanOpt, (void *)coef);
    *mode = activationDesc->p.mode;
    *reluNanOpt = activationDesc->p.propagate_nan ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN;
    *coef = activationDesc->p.coef;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI
cudnnSetActivationDescriptorSwishBeta(cudnnActivationDescriptor_t activationDesc, double swish_beta)
{
    FD_API(NULL);
    FD_TRY(act_live(activationDesc, "activationDesc"));
    activationDesc->p.swish_beta = swish_beta;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetActivationDescriptorSwishBeta(
    cudnnActivationDescriptor_t activationDesc, double *swish_beta)
{
    FD_API(NULL);
    FD_TRY(act_live(activationDesc, "activationDesc"));
    FD_CHECK_NOT_NULL(swish_beta);
    *swish_beta = activationDesc->p.swish_beta;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- compute ------------------------------------------------------------------------------ */

static int dtype_computed(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_DOUBLE || dt == CUDNN_DATA_HALF ||
           dt == CUDNN_DATA_BFLOAT16;
}

/* `t` has the dims and type of `ref` (both already checked). */
static cudnnStatus_t same_shape(const struct cudnnTensorStruct *t, const char *tname,
                                const struct cudnnTensorStruct *ref, const char *rname)
{
    FD_CHECK(t->nb_dims == ref->nb_dims, CUDNN_STATUS_BAD_PARAM, "%s has %d dims but %s has %d",
             tname, t->nb_dims, rname, ref->nb_dims);
    for (int i = 0; i < t->nb_dims; i++)
        FD_CHECK(t->dim[i] == ref->dim[i], CUDNN_STATUS_BAD_PARAM,
                 "%s dim %d is %d but %s dim %d is %d; the shapes must match", tname, i, t->dim[i],
                 rname, i, ref->dim[i]);
    FD_CHECK(t->dtype == ref->dtype, CUDNN_STATUS_BAD_PARAM, "%s is %s but %s is %s", tname,
             fd_dtype_name(t->dtype), rname, fd_dtype_name(ref->dtype));
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t storable(const struct cudnnTensorStruct *t, const char *name)
{
    FD_CHECK(dtype_computed(t->dtype), CUDNN_STATUS_NOT_SUPPORTED,
             "activation on %s data is not implemented (FLOAT, DOUBLE, HALF and BFLOAT16 are)",
             fd_dtype_name(t->dtype));
    FD_CHECK(!fd_tensor_has_negative_stride(t), CUDNN_STATUS_NOT_SUPPORTED,
             "%s has a negative stride; activation does not take negative strides", name);
    return CUDNN_STATUS_SUCCESS;
}

static int same_strides(const struct cudnnTensorStruct *a, const struct cudnnTensorStruct *b)
{
    for (int i = 0; i < a->nb_dims; i++)
        if (a->dim[i] != 1 && a->stride[i] != b->stride[i])
            return 0;
    return 1;
}

/* The output may be the same memory as an input (elementwise, read before write) only with
 * the same strides; any other overlap is refused. */
static cudnnStatus_t alias_check(const struct cudnnTensorStruct *out, const void *op,
                                 const char *oname, const struct cudnnTensorStruct *in,
                                 const void *ip, const char *iname)
{
    size_t es = fd_dtype_size(out->dtype);
    uintptr_t o0 = (uintptr_t)op, o1 = o0 + (uintptr_t)fd_tensor_extent(out) * es - 1;
    uintptr_t i0 = (uintptr_t)ip, i1 = i0 + (uintptr_t)fd_tensor_extent(in) * es - 1;
    if (op == ip) {
        FD_CHECK(same_strides(out, in), CUDNN_STATUS_BAD_PARAM,
                 "%s == %s (in place) but their descriptors have different strides", oname, iname);
        return CUDNN_STATUS_SUCCESS;
    }
    FD_CHECK(
        o1 < i0 || i1 < o0, CUDNN_STATUS_NOT_SUPPORTED,
        "%s partially overlaps %s; only exact in-place (same pointer, same strides) is supported",
        oname, iname);
    return CUDNN_STATUS_SUCCESS;
}

static void strides_of(const struct cudnnTensorStruct *t, int64_t *s)
{
    for (int i = 0; i < t->nb_dims; i++)
        s[i] = t->stride[i];
}

static void problem_init(fd_act_problem_t *p, cudnnActivationDescriptor_t desc,
                         const struct cudnnTensorStruct *shape)
{
    memset(p, 0, sizeof *p);
    p->act = desc->p;
    p->dt = shape->dtype;
    p->nb_dims = shape->nb_dims;
    for (int i = 0; i < shape->nb_dims; i++)
        p->dim[i] = shape->dim[i];
}

cudnnStatus_t CUDNNWINAPI cudnnActivationForward(cudnnHandle_t handle,
                                                 cudnnActivationDescriptor_t activationDesc,
                                                 const void *alpha,
                                                 const cudnnTensorDescriptor_t xDesc, const void *x,
                                                 const void *beta,
                                                 const cudnnTensorDescriptor_t yDesc, void *y)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(fd_act_desc_check(activationDesc, "activationDesc"));
    FD_CHECK(alpha && beta && x && y, CUDNN_STATUS_BAD_PARAM,
             "a data pointer is NULL (alpha %p, beta %p, x %p, y %p)", alpha, beta, x, y);
    FD_TRY(fd_tensor_check(xDesc, "xDesc"));
    FD_TRY(fd_tensor_check(yDesc, "yDesc"));
    FD_TRY(same_shape(yDesc, "yDesc", xDesc, "xDesc"));
    FD_TRY(storable(xDesc, "xDesc"));
    FD_TRY(storable(yDesc, "yDesc"));
    FD_CHECK(fd_tensor_is_non_overlapping(yDesc), CUDNN_STATUS_BAD_PARAM,
             "yDesc has overlapping strides; an output may not alias itself");
    FD_TRY(alias_check(yDesc, y, "y", xDesc, x, "x"));

    fd_act_problem_t p;
    problem_init(&p, activationDesc, xDesc);
    strides_of(xDesc, p.xs);
    strides_of(yDesc, p.ys);
    fd_act_args_t a = {x, NULL, NULL, y, fd_scale_value(alpha, p.dt), fd_scale_value(beta, p.dt),
                       handle};
    return fd_op_run(handle, FD_OP_ACT_FWD, &p, &a);
}

cudnnStatus_t CUDNNWINAPI cudnnActivationBackward(
    cudnnHandle_t handle, cudnnActivationDescriptor_t activationDesc, const void *alpha,
    const cudnnTensorDescriptor_t yDesc, const void *y, const cudnnTensorDescriptor_t dyDesc,
    const void *dy, const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
    const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(fd_act_desc_check(activationDesc, "activationDesc"));
    FD_CHECK(alpha && beta && y && dy && x && dx, CUDNN_STATUS_BAD_PARAM,
             "a data pointer is NULL (alpha %p, beta %p, y %p, dy %p, x %p, dx %p)", alpha, beta, y,
             dy, x, dx);
    FD_TRY(fd_tensor_check(yDesc, "yDesc"));
    FD_TRY(fd_tensor_check(dyDesc, "dyDesc"));
    FD_TRY(fd_tensor_check(xDesc, "xDesc"));
    FD_TRY(fd_tensor_check(dxDesc, "dxDesc"));
    FD_TRY(same_shape(yDesc, "yDesc", xDesc, "xDesc"));
    FD_TRY(same_shape(dyDesc, "dyDesc", xDesc, "xDesc"));
    FD_TRY(same_shape(dxDesc, "dxDesc", xDesc, "xDesc"));
    FD_TRY(storable(yDesc, "yDesc"));
    FD_TRY(storable(dyDesc, "dyDesc"));
    FD_TRY(storable(xDesc, "xDesc"));
    FD_TRY(storable(dxDesc, "dxDesc"));
    FD_CHECK(fd_tensor_is_non_overlapping(dxDesc), CUDNN_STATUS_BAD_PARAM,
             "dxDesc has overlapping strides; an output may not alias itself");
    FD_TRY(alias_check(dxDesc, dx, "dx", dyDesc, dy, "dy"));
    FD_TRY(alias_check(dxDesc, dx, "dx", yDesc, y, "y"));
    FD_TRY(alias_check(dxDesc, dx, "dx", xDesc, x, "x"));

    fd_act_problem_t p;
    problem_init(&p, activationDesc, xDesc);
    strides_of(xDesc, p.xs);
    strides_of(yDesc, p.ys);
    strides_of(dyDesc, p.dys);
    strides_of(dxDesc, p.dxs);
    fd_act_args_t a = {x, y, dy, dx, fd_scale_value(alpha, p.dt), fd_scale_value(beta, p.dt),
                       handle};
    return fd_op_run(handle, FD_OP_ACT_BWD, &p, &a);
}
