/* SPDX-License-Identifier: MIT */
/*
 * lrn.c - LRN descriptors, cross-channel LRN and divisive normalization (forward, backward).
 *
 * Formulas (core/lrn.h) follow cuDNN's cudnnSetLRNDescriptor text: window [i - lb, i + la],
 * lb = floor((n - 1) / 2), la = n - 1 - lb; alpha divided by n for LRN and by n^(spatial dims)
 * for divisive normalization, whose window spans n in every spatial dim. cuDNN documents
 * PRECOMPUTED_MEANS only as "means or other kernel convolution values precomputed by the user;
 * NULL is zero; equivalent to spatial LRN" and the operation as the x/sigma part of local contrast
 * normalization. We compute y = (x - means) / (k + alpha/n^d * sum over the window of
 * (x - means)^2)^beta; with means NULL this is spatial LRN. dMeans = -dx follows (means are an
 * independent input, as cuDNN's backward describes).
 *
 * Validation, from cuDNN's per-function "Returns" lists:
 *  - Set: n outside [CUDNN_LRN_MIN_N, CUDNN_LRN_MAX_N], beta < CUDNN_LRN_MIN_BETA,
 *    k < CUDNN_LRN_MIN_K → BAD_PARAM (contract §1.2.2); also any non-finite parameter.
 *  - LRN: NULL pointers, bad lrnMode, <= 2 dims → BAD_PARAM; differing dims or data types,
 *    negative strides → NOT_SUPPORTED (as documented); ranks other than 4 and 5 → NOT_SUPPORTED.
 *    Any positive strides are computed (cuDNN restricts 5-d to packed NCDHW: a superset).
 *    The output may not overlap an input: in-place LRN is NOT_SUPPORTED (no caller scratch).
 *  - Divisive normalization: NULL x/y/temp/temp2/alpha/beta, bad mode, rank outside [4, 5],
 *    differing dims, negative strides → BAD_PARAM (as documented); differing data types →
 *    NOT_SUPPORTED. In-place x == y (forward) and x == dx or dy == dx (backward) are allowed
 *    with identical strides, as cuDNN allows; the reference keeps copies in temp / temp2.
 *    Differing x and y strides are computed (cuDNN answers NOT_SUPPORTED: a superset).
 */
#include <math.h>
#include <stdlib.h>

#include "../core/lrn.h"
#include "../core/op.h"

cudnnStatus_t fd_lrn_desc_check(cudnnLRNDescriptor_t desc, const char *name)
{
    FD_CHECK(desc != NULL, CUDNN_STATUS_BAD_PARAM, "%s is NULL", name);
    FD_CHECK(desc->magic == FD_MAGIC_LRN, CUDNN_STATUS_BAD_PARAM,
             "%s (%p) is not a live LRN descriptor", name, (void *)desc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnCreateLRNDescriptor(cudnnLRNDescriptor_t *normDesc)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(normDesc);
    struct cudnnLRNStruct *d = calloc(1, sizeof *d);
    FD_CHECK(d != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
             "cannot allocate an LRN descriptor (%zu bytes)", sizeof *d);
    *d = (struct cudnnLRNStruct){
        .magic = FD_MAGIC_LRN, .n = 5, .alpha = 1e-4, .beta = 0.75, .k = 2.0};
    *normDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyLRNDescriptor(cudnnLRNDescriptor_t lrnDesc)
{
    FD_API(NULL);
    if (lrnDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    FD_TRY(fd_lrn_desc_check(lrnDesc, "lrnDesc"));
    lrnDesc->magic = 0;
    free(lrnDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetLRNDescriptor(cudnnLRNDescriptor_t normDesc, unsigned lrnN,
                                                double lrnAlpha, double lrnBeta, double lrnK)
{
    FD_API(NULL);
    FD_TRY(fd_lrn_desc_check(normDesc, "normDesc"));
    FD_CHECK(lrnN >= CUDNN_LRN_MIN_N && lrnN <= CUDNN_LRN_MAX_N, CUDNN_STATUS_BAD_PARAM,
             "lrnN is %u; it must lie in [CUDNN_LRN_MIN_N, CUDNN_LRN_MAX_N] = [%d, %d]", lrnN,
             CUDNN_LRN_MIN_N, CUDNN_LRN_MAX_N);
    FD_CHECK(isfinite(lrnBeta) && lrnBeta >= CUDNN_LRN_MIN_BETA, CUDNN_STATUS_BAD_PARAM,
             "lrnBeta is %g; it must be finite and at least CUDNN_LRN_MIN_BETA = %g", lrnBeta,
             CUDNN_LRN_MIN_BETA);
    FD_CHECK(isfinite(lrnK) && lrnK >= CUDNN_LRN_MIN_K, CUDNN_STATUS_BAD_PARAM,
             "lrnK is %g; it must be finite and at least CUDNN_LRN_MIN_K = %g", lrnK,
             CUDNN_LRN_MIN_K);
    FD_CHECK(isfinite(lrnAlpha), CUDNN_STATUS_BAD_PARAM, "lrnAlpha is %g; it must be finite",
             lrnAlpha);
    normDesc->n = lrnN;
    normDesc->alpha = lrnAlpha;
    normDesc->beta = lrnBeta;
    normDesc->k = lrnK;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetLRNDescriptor(cudnnLRNDescriptor_t normDesc, unsigned *lrnN,
                                                double *lrnAlpha, double *lrnBeta, double *lrnK)
{
    FD_API(NULL);
    FD_TRY(fd_lrn_desc_check(normDesc, "normDesc"));
    if (lrnN)
        *lrnN = normDesc->n;
    if (lrnAlpha)
        *lrnAlpha = normDesc->alpha;
    if (lrnBeta)
        *lrnBeta = normDesc->beta;
    if (lrnK)
        *lrnK = normDesc->k;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- shared checks ------------------------------------------------------------------------ */

static void span_of(const struct cudnnTensorStruct *t, const void *p, uintptr_t *lo, uintptr_t *hi)
{
    *lo = (uintptr_t)p;
    *hi = *lo + (uintptr_t)fd_tensor_extent(t) * fd_dtype_size(t->dtype) - 1;
}

static int overlap(const struct cudnnTensorStruct *a, const void *ap,
                   const struct cudnnTensorStruct *b, const void *bp)
{
    uintptr_t a0, a1, b0, b1;
    span_of(a, ap, &a0, &a1);
    span_of(b, bp, &b0, &b1);
    return a0 <= b1 && b0 <= a1;
}

static int same_strides(const struct cudnnTensorStruct *a, const struct cudnnTensorStruct *b)
{
    for (int i = 0; i < a->nb_dims; i++)
        if (a->stride[i] != b->stride[i])
            return 0;
    return 1;
}

/* `t` has the dims and data type of `ref`, with the statuses the caller's function documents. */
static cudnnStatus_t check_like(const struct cudnnTensorStruct *ref, const char *ref_name,
                                const struct cudnnTensorStruct *t, const char *name,
                                cudnnStatus_t dims_status)
{
    FD_CHECK(t->nb_dims == ref->nb_dims, dims_status, "%s has %d dims but %s has %d", name,
             t->nb_dims, ref_name, ref->nb_dims);
    for (int i = 0; i < t->nb_dims; i++)
        FD_CHECK(t->dim[i] == ref->dim[i], dims_status, "%s dim %d is %d but %s dim %d is %d", name,
                 i, t->dim[i], ref_name, i, ref->dim[i]);
    FD_CHECK(t->dtype == ref->dtype, CUDNN_STATUS_NOT_SUPPORTED, "%s is %s but %s is %s", name,
             fd_dtype_name(t->dtype), ref_name, fd_dtype_name(ref->dtype));
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t check_dtype(cudnnDataType_t dt, const char *what)
{
    FD_CHECK(dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_DOUBLE || dt == CUDNN_DATA_HALF ||
                 dt == CUDNN_DATA_BFLOAT16,
             CUDNN_STATUS_NOT_SUPPORTED, "%s on %s data is not implemented", what,
             fd_dtype_name(dt));
    return CUDNN_STATUS_SUCCESS;
}

/* ---- cross-channel LRN -------------------------------------------------------------------- */

/* desc[0] is the reference (x); desc[nt - 1] is the output; name / data_name for messages. */
static cudnnStatus_t lrn_check(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                               cudnnLRNMode_t lrnMode, const void *alpha, const void *beta, int nt,
                               const cudnnTensorDescriptor_t *desc, const void *const *ptr,
                               const char *const *name, const char *const *data_name)
{
    FD_TRY(fd_handle_check(handle));
    FD_TRY(fd_lrn_desc_check(normDesc, "normDesc"));
    FD_CHECK(lrnMode == CUDNN_LRN_CROSS_CHANNEL_DIM1, CUDNN_STATUS_BAD_PARAM,
             "lrnMode %d is not a cudnnLRNMode_t value", (int)lrnMode);
    FD_CHECK(alpha != NULL && beta != NULL, CUDNN_STATUS_BAD_PARAM,
             "alpha (%p) or beta (%p) is NULL", alpha, beta);
    for (int i = 0; i < nt; i++) {
        FD_CHECK(ptr[i] != NULL, CUDNN_STATUS_BAD_PARAM, "%s is NULL", data_name[i]);
        FD_TRY(fd_tensor_check(desc[i], name[i]));
    }
    FD_CHECK(desc[0]->nb_dims > 2, CUDNN_STATUS_BAD_PARAM, "%s has %d dims; LRN needs more than 2",
             name[0], desc[0]->nb_dims);
    for (int i = 1; i < nt; i++)
        FD_TRY(check_like(desc[0], name[0], desc[i], name[i], CUDNN_STATUS_NOT_SUPPORTED));
    FD_TRY(check_dtype(desc[0]->dtype, "LRN"));
    FD_CHECK(desc[0]->nb_dims == 4 || desc[0]->nb_dims == 5, CUDNN_STATUS_NOT_SUPPORTED,
             "%s has %d dims; LRN computes 4-d and 5-d tensors", name[0], desc[0]->nb_dims);
    for (int i = 0; i < nt; i++)
        FD_CHECK(!fd_tensor_has_negative_stride(desc[i]), CUDNN_STATUS_NOT_SUPPORTED,
                 "%s has a negative stride; LRN does not support negative strides", name[i]);
    const int o = nt - 1;
    FD_CHECK(fd_tensor_is_non_overlapping(desc[o]), CUDNN_STATUS_BAD_PARAM,
             "%s has overlapping strides; an output may not address an element twice", name[o]);
    for (int i = 0; i < o; i++)
        FD_CHECK(!overlap(desc[i], ptr[i], desc[o], ptr[o]), CUDNN_STATUS_NOT_SUPPORTED,
                 "%s overlaps %s; in-place LRN is not supported", data_name[o], data_name[i]);
    return CUDNN_STATUS_SUCCESS;
}

static fd_lrn_problem_t lrn_problem(cudnnLRNDescriptor_t d)
{
    return (fd_lrn_problem_t){.n = d->n, .alpha = d->alpha, .beta = d->beta, .k = d->k};
}

cudnnStatus_t CUDNNWINAPI cudnnLRNCrossChannelForward(cudnnHandle_t handle,
                                                      cudnnLRNDescriptor_t normDesc,
                                                      cudnnLRNMode_t lrnMode, const void *alpha,
                                                      const cudnnTensorDescriptor_t xDesc,
                                                      const void *x, const void *beta,
                                                      const cudnnTensorDescriptor_t yDesc, void *y)
{
    FD_API(handle);
    const cudnnTensorDescriptor_t desc[2] = {xDesc, yDesc};
    const void *const ptr[2] = {x, y};
    static const char *const name[2] = {"xDesc", "yDesc"}, *const data_name[2] = {"x", "y"};
    FD_TRY(lrn_check(handle, normDesc, lrnMode, alpha, beta, 2, desc, ptr, name, data_name));
    fd_lrn_problem_t p = lrn_problem(normDesc);
    p.x = *xDesc;
    p.y = *yDesc;
    fd_lrn_args_t a = {.x = x,
                       .out = y,
                       .alpha = fd_scale_value(alpha, yDesc->dtype),
                       .beta = fd_scale_value(beta, yDesc->dtype),
                       .handle = handle};
    return fd_op_run(handle, FD_OP_LRN_FWD, &p, &a);
}

cudnnStatus_t CUDNNWINAPI cudnnLRNCrossChannelBackward(
    cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc, cudnnLRNMode_t lrnMode, const void *alpha,
    const cudnnTensorDescriptor_t yDesc, const void *y, const cudnnTensorDescriptor_t dyDesc,
    const void *dy, const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
    const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    FD_API(handle);
    const cudnnTensorDescriptor_t desc[4] = {xDesc, yDesc, dyDesc, dxDesc};
    const void *const ptr[4] = {x, y, dy, dx};
    static const char *const name[4] = {"xDesc", "yDesc", "dyDesc", "dxDesc"};
    static const char *const data_name[4] = {"x", "y", "dy", "dx"};
    FD_TRY(lrn_check(handle, normDesc, lrnMode, alpha, beta, 4, desc, ptr, name, data_name));
    fd_lrn_problem_t p = lrn_problem(normDesc);
    p.x = *xDesc;
    p.y = *yDesc;
    p.dy = *dyDesc;
    p.dx = *dxDesc;
    fd_lrn_args_t a = {.x = x,
                       .y = y,
                       .dy = dy,
                       .out = dx,
                       .alpha = fd_scale_value(alpha, dxDesc->dtype),
                       .beta = fd_scale_value(beta, dxDesc->dtype),
                       .handle = handle};
    return fd_op_run(handle, FD_OP_LRN_BWD, &p, &a);
}

/* ---- divisive normalization --------------------------------------------------------------- */

typedef struct {
    const struct cudnnTensorStruct *desc;
    const void *ptr;
    const char *name;
} dn_tensor_t;

/* Two tensors of the call must not overlap, except the allowed exact in-place pairs. */
static cudnnStatus_t dn_check_alias(const dn_tensor_t *a, const dn_tensor_t *b, int may_alias)
{
    if (a->ptr == NULL || b->ptr == NULL)
        return CUDNN_STATUS_SUCCESS;
    if (may_alias && a->ptr == b->ptr) {
        FD_CHECK(same_strides(a->desc, b->desc), CUDNN_STATUS_BAD_PARAM,
                 "in-place divisive normalization (%s == %s) needs identical strides", a->name,
                 b->name);
        return CUDNN_STATUS_SUCCESS;
    }
    FD_CHECK(!overlap(a->desc, a->ptr, b->desc, b->ptr), CUDNN_STATUS_BAD_PARAM, "%s overlaps %s",
             a->name, b->name);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t dn_check(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc,
                              cudnnDivNormMode_t mode, const void *alpha, const void *beta,
                              cudnnTensorDescriptor_t xDesc, cudnnTensorDescriptor_t outDesc,
                              const char *out_name)
{
    FD_TRY(fd_handle_check(handle));
    FD_TRY(fd_lrn_desc_check(normDesc, "normDesc"));
    FD_CHECK(mode == CUDNN_DIVNORM_PRECOMPUTED_MEANS, CUDNN_STATUS_BAD_PARAM,
             "mode %d is not a cudnnDivNormMode_t value", (int)mode);
    FD_CHECK(alpha != NULL && beta != NULL, CUDNN_STATUS_BAD_PARAM,
             "alpha (%p) or beta (%p) is NULL", alpha, beta);
    FD_TRY(fd_tensor_check(xDesc, "xDesc"));
    FD_TRY(fd_tensor_check(outDesc, out_name));
    FD_CHECK(xDesc->nb_dims == 4 || xDesc->nb_dims == 5, CUDNN_STATUS_BAD_PARAM,
             "xDesc has %d dims; divisive normalization takes 4-d and 5-d tensors", xDesc->nb_dims);
    FD_TRY(check_like(xDesc, "xDesc", outDesc, out_name, CUDNN_STATUS_BAD_PARAM));
    FD_TRY(check_dtype(xDesc->dtype, "divisive normalization"));
    FD_CHECK(!fd_tensor_has_negative_stride(xDesc) && !fd_tensor_has_negative_stride(outDesc),
             CUDNN_STATUS_BAD_PARAM, "a tensor stride is negative");
    FD_CHECK(fd_tensor_is_non_overlapping(xDesc), CUDNN_STATUS_BAD_PARAM,
             "xDesc has overlapping strides; it also describes the scratch buffers temp and temp2");
    FD_CHECK(fd_tensor_is_non_overlapping(outDesc), CUDNN_STATUS_BAD_PARAM,
             "%s has overlapping strides; an output may not address an element twice", out_name);
    return CUDNN_STATUS_SUCCESS;
}

static fd_divnorm_problem_t dn_problem(cudnnLRNDescriptor_t d, cudnnTensorDescriptor_t xDesc,
                                       cudnnTensorDescriptor_t outDesc)
{
    return (fd_divnorm_problem_t){
        .n = d->n, .alpha = d->alpha, .beta = d->beta, .k = d->k, .x = *xDesc, .out = *outDesc};
}

cudnnStatus_t CUDNNWINAPI cudnnDivisiveNormalizationForward(
    cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc, cudnnDivNormMode_t mode, const void *alpha,
    const cudnnTensorDescriptor_t xDesc, const void *x, const void *means, void *temp, void *temp2,
    const void *beta, const cudnnTensorDescriptor_t yDesc, void *y)
{
    FD_API(handle);
    FD_CHECK(x && y && temp && temp2, CUDNN_STATUS_BAD_PARAM,
             "a data pointer is NULL (x %p, y %p, temp %p, temp2 %p)", x, y, temp, temp2);
    FD_TRY(dn_check(handle, normDesc, mode, alpha, beta, xDesc, yDesc, "yDesc"));
    const dn_tensor_t tx = {xDesc, x, "x"}, tm = {xDesc, means, "means"},
                      tt = {xDesc, temp, "temp"}, tt2 = {xDesc, temp2, "temp2"},
                      ty = {yDesc, y, "y"};
    FD_TRY(dn_check_alias(&tx, &ty, 1));
    FD_TRY(dn_check_alias(&tm, &ty, 0));
    const dn_tensor_t *scratch[2] = {&tt, &tt2}, *others[4] = {&tx, &tm, &ty, &tt2};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            if (others[j] != scratch[i])
                FD_TRY(dn_check_alias(scratch[i], others[j], 0));
    fd_divnorm_problem_t p = dn_problem(normDesc, xDesc, yDesc);
    fd_divnorm_args_t a = {.x = x,
                           .means = means,
                           .temp = temp,
                           .temp2 = temp2,
                           .out = y,
                           .alpha = fd_scale_value(alpha, yDesc->dtype),
                           .beta = fd_scale_value(beta, yDesc->dtype),
                           .handle = handle};
    return fd_op_run(handle, FD_OP_DIVNORM_FWD, &p, &a);
}

cudnnStatus_t CUDNNWINAPI cudnnDivisiveNormalizationBackward(
    cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc, cudnnDivNormMode_t mode, const void *alpha,
    const cudnnTensorDescriptor_t xDesc, const void *x, const void *means, const void *dy,
    void *temp, void *temp2, const void *beta, const cudnnTensorDescriptor_t dXdMeansDesc, void *dx,
    void *dMeans)
{
    FD_API(handle);
    FD_CHECK(x && dy && dx && temp && temp2, CUDNN_STATUS_BAD_PARAM,
             "a data pointer is NULL (x %p, dy %p, dx %p, temp %p, temp2 %p)", x, dy, dx, temp,
             temp2);
    FD_TRY(dn_check(handle, normDesc, mode, alpha, beta, xDesc, dXdMeansDesc, "dXdMeansDesc"));
    const dn_tensor_t tx = {xDesc, x, "x"}, tm = {xDesc, means, "means"}, tdy = {xDesc, dy, "dy"},
                      tt = {xDesc, temp, "temp"}, tt2 = {xDesc, temp2, "temp2"},
                      tdx = {dXdMeansDesc, dx, "dx"}, tdm = {dXdMeansDesc, dMeans, "dMeans"};
    FD_TRY(dn_check_alias(&tx, &tdx, 1));
    FD_TRY(dn_check_alias(&tdy, &tdx, 1));
    FD_TRY(dn_check_alias(&tm, &tdx, 0));
    FD_TRY(dn_check_alias(&tdm, &tdx, 0));
    FD_TRY(dn_check_alias(&tdm, &tx, 0));
    FD_TRY(dn_check_alias(&tdm, &tm, 0));
    FD_TRY(dn_check_alias(&tdm, &tdy, 0));
    const dn_tensor_t *scratch[2] = {&tt, &tt2}, *others[6] = {&tx, &tm, &tdy, &tdx, &tdm, &tt2};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 6; j++)
            if (others[j] != scratch[i])
                FD_TRY(dn_check_alias(scratch[i], others[j], 0));
    fd_divnorm_problem_t p = dn_problem(normDesc, xDesc, dXdMeansDesc);
    fd_divnorm_args_t a = {.x = x,
                           .means = means,
                           .dy = dy,
                           .temp = temp,
                           .temp2 = temp2,
                           .out = dx,
                           .dmeans = dMeans,
                           .alpha = fd_scale_value(alpha, dXdMeansDesc->dtype),
                           .beta = fd_scale_value(beta, dXdMeansDesc->dtype),
                           .handle = handle};
    return fd_op_run(handle, FD_OP_DIVNORM_BWD, &p, &a);
}
