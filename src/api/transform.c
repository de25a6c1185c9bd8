/* SPDX-License-Identifier: MIT */
/*
 * transform.c - layout transforms: cudnnTransformTensor, the tensor-transform descriptor
 * family, cudnnInitTransformDest, cudnnTransformTensorEx, cudnnTransformFilter, the folded
 * strided backward-data helper cudnnGetFoldedConvBackwardDataDescriptors, and
 * cudnnReorderFilterAndBias.
 *
 * A transform descriptor pads (padBefore/padAfter per dim, N and C included), then folds each
 * spatial dim by foldA (x (n, c, s...) goes to (n + pbN, pbC + phase * C + c, (s + pb) / f ...),
 * phase = row-major index of ((s + pb) % f ...), extents rounded up, new cells zero) - the
 * layout cuDNN is reported to produce; NVIDIA documents no formula. UNFOLD is the exact inverse
 * (and crops the padding); with every fold factor 1 the direction is ignored (cuDNN's
 * documentation). Folding and padding take no beta (beta != 0 is NOT_SUPPORTED, as documented;
 * alpha is applied); unfolding and plain layout changes take alpha and beta. Negative pads and
 * a fold of 0 are BAD_PARAM. Data types: FLOAT, DOUBLE, HALF, BFLOAT16, INT8, UINT8, INT32 and
 * the vectorised INT8x4, UINT8x4, INT8x32 (lane by lane), converted with rounding to nearest
 * even and saturation into integers. Sources and destinations may not overlap.
 *
 * cudnnReorderFilterAndBias: cuDNN permutes INT8x32 filters (and their float bias) for its
 * IMMA kernels; freednn's kernels read the plain layout, so the reorder is a byte copy (and a
 * CUDNN_NO_REORDER convolution reads what it copied).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../core/conv.h"
#include "../core/op.h"
#include "../core/tensor_ops.h"

/* ---- descriptor family ---------------------------------------------------------------------- */

static cudnnStatus_t transform_live(cudnnTensorTransformDescriptor_t d, const char *name)
{
    FD_CHECK(d != NULL, CUDNN_STATUS_BAD_PARAM, "%s is NULL", name);
    FD_CHECK(d->magic == FD_MAGIC_TRANSFORM, CUDNN_STATUS_BAD_PARAM,
             "%s (%p) is not a live tensor-transform descriptor", name, (void *)d);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t fd_transform_check(cudnnTensorTransformDescriptor_t desc, const char *name)
{
    FD_TRY(transform_live(desc, name));
    FD_CHECK(desc->is_set, CUDNN_STATUS_BAD_PARAM,
             "%s was created but never set (call cudnnSetTensorTransformDescriptor first)", name);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI
cudnnCreateTensorTransformDescriptor(cudnnTensorTransformDescriptor_t *transformDesc)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(transformDesc);
    struct cudnnTensorTransformStruct *d = calloc(1, sizeof *d);
    FD_CHECK(d != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
             "cannot allocate a tensor-transform descriptor (%zu bytes)", sizeof *d);
    d->magic = FD_MAGIC_TRANSFORM;
    *transformDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI
cudnnDestroyTensorTransformDescriptor(cudnnTensorTransformDescriptor_t transformDesc)
{
    FD_API(NULL);
    if (transformDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    FD_TRY(transform_live(transformDesc, "transformDesc"));
    transformDesc->magic = 0;
    free(transformDesc);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t dest_format_ok(cudnnTensorFormat_t f, const char *name)
{
    FD_CHECK(f == CUDNN_TENSOR_NCHW || f == CUDNN_TENSOR_NHWC || f == CUDNN_TENSOR_NCHW_VECT_C,
             CUDNN_STATUS_BAD_PARAM, "%s %d is not a cudnnTensorFormat_t value", name, (int)f);
    FD_CHECK(f != CUDNN_TENSOR_NCHW_VECT_C, CUDNN_STATUS_NOT_SUPPORTED,
             "%s CUDNN_TENSOR_NCHW_VECT_C: transforms produce NCHW or NHWC", name);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetTensorTransformDescriptor(
    cudnnTensorTransformDescriptor_t transformDesc, const uint32_t nbDims,
    const cudnnTensorFormat_t destFormat, const int32_t padBeforeA[], const int32_t padAfterA[],
    const uint32_t foldA[], const cudnnFoldingDirection_t direction)
{
    FD_API(NULL);
    FD_TRY(transform_live(transformDesc, "transformDesc"));
    FD_CHECK(nbDims > 2, CUDNN_STATUS_BAD_PARAM, "nbDims is %u; a transform needs more than 2",
             nbDims);
    FD_CHECK(nbDims <= FD_DIM_MAX, CUDNN_STATUS_NOT_SUPPORTED, "nbDims is %u; CUDNN_DIM_MAX is %d",
             nbDims, FD_DIM_MAX);
    FD_TRY(dest_format_ok(destFormat, "destFormat"));
    FD_CHECK(direction == CUDNN_TRANSFORM_FOLD || direction == CUDNN_TRANSFORM_UNFOLD,
             CUDNN_STATUS_BAD_PARAM, "direction %d is not a cudnnFoldingDirection_t value",
             (int)direction);
    struct cudnnTensorTransformStruct t = {.magic = FD_MAGIC_TRANSFORM,
                                           .is_set = 1,
                                           .nb_dims = (int)nbDims,
                                           .format = destFormat,
                                           .direction = direction};
    int64_t product = 1;
    for (int i = 0; i < (int)nbDims; i++) {
        t.pad_before[i] = padBeforeA ? padBeforeA[i] : 0;
        t.pad_after[i] = padAfterA ? padAfterA[i] : 0;
        FD_CHECK(t.pad_before[i] >= 0 && t.pad_after[i] >= 0, CUDNN_STATUS_BAD_PARAM,
                 "padBeforeA[%d] = %d, padAfterA[%d] = %d; padding cannot be negative", i,
                 (int)t.pad_before[i], i, (int)t.pad_after[i]);
        t.fold[i] = (i >= 2 && foldA) ? foldA[i - 2] : 1;
        FD_CHECK(t.fold[i] >= 1, CUDNN_STATUS_BAD_PARAM,
                 "foldA[%d] is 0; fold factors must be positive", i - 2);
        product *= t.fold[i];
        FD_CHECK(product <= INT_MAX, CUDNN_STATUS_NOT_SUPPORTED,
                 "the fold factors multiply to more than 2^31 - 1 (at foldA[%d] = %u)", i - 2,
                 (unsigned)t.fold[i]);
    }
    *transformDesc = t;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetTensorTransformDescriptor(
    cudnnTensorTransformDescriptor_t transformDesc, uint32_t nbDimsRequested,
    cudnnTensorFormat_t *destFormat, int32_t padBeforeA[], int32_t padAfterA[], uint32_t foldA[],
    cudnnFoldingDirection_t *direction)
{
    FD_API(NULL);
    FD_TRY(fd_transform_check(transformDesc, "transformDesc"));
    FD_CHECK(nbDimsRequested > 2 && nbDimsRequested <= FD_DIM_MAX, CUDNN_STATUS_BAD_PARAM,
             "nbDimsRequested is %u; it must be in [3, %d]", nbDimsRequested, FD_DIM_MAX);
    FD_CHECK(destFormat && padBeforeA && padAfterA && foldA && direction, CUDNN_STATUS_BAD_PARAM,
             "an output pointer is NULL");
    int n = (int)nbDimsRequested < transformDesc->nb_dims ? (int)nbDimsRequested
                                                          : transformDesc->nb_dims;
    *destFormat = transformDesc->format;
    *direction = transformDesc->direction;
    for (int i = 0; i < n; i++) {
        padBeforeA[i] = transformDesc->pad_before[i];
        padAfterA[i] = transformDesc->pad_after[i];
        if (i >= 2)
            foldA[i - 2] = transformDesc->fold[i];
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- shapes ---------------------------------------------------------------------------------- */

static int64_t fold_product(const struct cudnnTensorTransformStruct *t)
{
    int64_t f = 1;
    for (int i = 2; i < t->nb_dims; i++)
        f *= t->fold[i];
    return f;
}

static int is_unfold(const struct cudnnTensorTransformStruct *t)
{
    return t->direction == CUDNN_TRANSFORM_UNFOLD && fold_product(t) > 1;
}

static int is_plain(const struct cudnnTensorTransformStruct *t)
{
    for (int i = 0; i < t->nb_dims; i++)
        if (t->pad_before[i] || t->pad_after[i] || t->fold[i] != 1)
            return 0;
    return 1;
}

cudnnStatus_t fd_transform_dims(const struct cudnnTensorTransformStruct *t, const int64_t *in,
                                int64_t *out)
{
    const int64_t f = fold_product(t);
    if (is_unfold(t)) {
        FD_CHECK(in[1] % f == 0, CUDNN_STATUS_BAD_PARAM,
                 "unfolding %lld channels by a fold of %lld: the channels must be a multiple of it",
                 (long long)in[1], (long long)f);
        out[0] = in[0] - t->pad_before[0] - t->pad_after[0];
        out[1] = in[1] / f - t->pad_before[1] - t->pad_after[1];
        for (int i = 2; i < t->nb_dims; i++)
            out[i] = in[i] * t->fold[i] - t->pad_before[i] - t->pad_after[i];
    } else {
        out[0] = in[0] + t->pad_before[0] + t->pad_after[0];
        out[1] = in[1] + t->pad_before[1] + t->pad_after[1];
        FD_CHECK(out[1] <= INT_MAX / f, CUDNN_STATUS_NOT_SUPPORTED,
                 "folding %lld padded channels by %lld gives more than 2^31 - 1 channels",
                 (long long)out[1], (long long)f);
        out[1] *= f;
        for (int i = 2; i < t->nb_dims; i++)
            out[i] = (in[i] + t->pad_before[i] + t->pad_after[i] + t->fold[i] - 1) / t->fold[i];
    }
    for (int i = 0; i < t->nb_dims; i++)
        FD_CHECK(out[i] >= 1, CUDNN_STATUS_BAD_PARAM,
                 "the transform gives dim %d = %lld from %lld; the padding exceeds the tensor", i,
                 (long long)out[i], (long long)in[i]);
    return CUDNN_STATUS_SUCCESS;
}

/* A packed tensor descriptor in NCHW or channels-last order, with tensor.c's limits. */
static cudnnStatus_t packed_tensor(struct cudnnTensorStruct *t, cudnnDataType_t dt, int nb,
                                   const int64_t *dim, cudnnTensorFormat_t format)
{
    memset(t, 0, sizeof *t);
    int64_t elements = 1;
    for (int i = 0; i < nb; i++) {
        elements *= dim[i];
        FD_CHECK(
            dim[i] >= 1 && elements <= INT_MAX, CUDNN_STATUS_NOT_SUPPORTED,
            "the result has more than 2^31 - 1 elements (product of the first %d dims is %lld)",
            i + 1, (long long)elements);
    }
    t->magic = FD_MAGIC_TENSOR;
    t->is_set = 1;
    t->dtype = dt;
    t->nb_dims = nb;
    t->vect = 1;
    for (int i = 0; i < nb; i++)
        t->dim[i] = (int)dim[i];
    int64_t acc = 1;
    if (format == CUDNN_TENSOR_NHWC) {
        t->stride[1] = 1;
        acc = dim[1];
        for (int i = nb - 1; i >= 2; i--) {
            t->stride[i] = (int)acc;
            acc *= dim[i];
        }
        t->stride[0] = (int)acc;
    } else {
        for (int i = nb - 1; i >= 0; i--) {
            t->stride[i] = (int)acc;
            acc *= dim[i];
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

static int transform_dtype_ok(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16:
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_UINT8:
    case CUDNN_DATA_INT32:
    case CUDNN_DATA_INT8x4:
    case CUDNN_DATA_UINT8x4:
    case CUDNN_DATA_INT8x32:
        return 1;
    default:
        return 0;
    }
}

static cudnnStatus_t transform_types(cudnnDataType_t src, const char *sn, cudnnDataType_t dst,
                                     const char *dn)
{
    FD_CHECK(transform_dtype_ok(src) && transform_dtype_ok(dst), CUDNN_STATUS_NOT_SUPPORTED,
             "%s is %s and %s is %s; transforms convert between FLOAT, DOUBLE, HALF, BFLOAT16, "
             "INT8, UINT8, INT32, INT8x4, UINT8x4 and INT8x32",
             sn, fd_dtype_name(src), dn, fd_dtype_name(dst));
    return CUDNN_STATUS_SUCCESS;
}

/* Views checked and positioned for a transform: y must not overlap itself nor x. */
static cudnnStatus_t transform_views(const fd_tview_t *x, const void *xp, const fd_tview_t *y,
                                     const void *yp)
{
    FD_CHECK(fd_tview_non_overlapping(y), CUDNN_STATUS_BAD_PARAM,
             "the destination has overlapping strides; outputs may not alias themselves");
    uintptr_t x0, x1, y0, y1;
    fd_tview_span(x, xp, &x0, &x1);
    fd_tview_span(y, yp, &y0, &y1);
    FD_CHECK(!(x0 <= y1 && y0 <= x1), CUDNN_STATUS_BAD_PARAM,
             "source and destination overlap; transforms are not in place");
    return CUDNN_STATUS_SUCCESS;
}

/* Fills the gather description of t (NULL: plain copy) into p. */
static void transform_problem(fd_tensor_transform_problem_t *p,
                              const struct cudnnTensorTransformStruct *t)
{
    p->kind = (t && is_unfold(t)) ? FD_XFORM_UNFOLD : FD_XFORM_FOLD;
    for (int i = 0; i < FD_DIM_MAX; i++) {
        p->pad_before[i] = (t && i < t->nb_dims) ? t->pad_before[i] : 0;
        p->fold[i] = (t && i < t->nb_dims) ? t->fold[i] : 1;
    }
}

/* beta rule: folding and padding write zeros into new cells and take no beta. */
static cudnnStatus_t transform_beta(const struct cudnnTensorTransformStruct *t, double beta)
{
    FD_CHECK(beta == 0.0 || is_plain(t) || is_unfold(t), CUDNN_STATUS_NOT_SUPPORTED,
             "beta is %g; folding and padding transforms support beta = 0 only", beta);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- cudnnInitTransformDest -------------------------------------------------------------------
 */

cudnnStatus_t CUDNNWINAPI cudnnInitTransformDest(
    const cudnnTensorTransformDescriptor_t transformDesc, const cudnnTensorDescriptor_t srcDesc,
    cudnnTensorDescriptor_t destDesc, size_t *destSizeInBytes)
{
    FD_API(NULL);
    FD_TRY(fd_transform_check(transformDesc, "transformDesc"));
    FD_TRY(fd_tensor_check(srcDesc, "srcDesc"));
    FD_CHECK(destDesc != NULL && destDesc->magic == FD_MAGIC_TENSOR, CUDNN_STATUS_BAD_PARAM,
             "destDesc (%p) is not a live tensor descriptor", (void *)destDesc);
    FD_CHECK_NOT_NULL(destSizeInBytes);
    FD_CHECK(srcDesc->nb_dims == transformDesc->nb_dims, CUDNN_STATUS_BAD_PARAM,
             "srcDesc has %d dims but transformDesc has %d", srcDesc->nb_dims,
             transformDesc->nb_dims);
    int64_t in[FD_DIM_MAX] = {0}, out[FD_DIM_MAX] = {0};
    for (int i = 0; i < srcDesc->nb_dims; i++)
        in[i] = srcDesc->dim[i];
    FD_TRY(fd_transform_dims(transformDesc, in, out));
    struct cudnnTensorStruct t;
    FD_TRY(packed_tensor(&t, fd_scalar_dtype(srcDesc->dtype), srcDesc->nb_dims, out,
                         transformDesc->format));
    *destDesc = t;
    *destSizeInBytes = (size_t)fd_tensor_elements(&t) * fd_dtype_size(t.dtype);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- cudnnTransformTensor / cudnnTransformTensorEx ------------------------------------------- */

cudnnStatus_t CUDNNWINAPI cudnnTransformTensor(cudnnHandle_t handle, const void *alpha,
                                               const cudnnTensorDescriptor_t xDesc, const void *x,
                                               const void *beta,
                                               const cudnnTensorDescriptor_t yDesc, void *y)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK(alpha && beta && x && y, CUDNN_STATUS_BAD_PARAM,
             "a pointer is NULL (alpha %p, beta %p, x %p, y %p)", alpha, beta, x, y);
    FD_TRY(fd_tensor_check(xDesc, "xDesc"));
    FD_TRY(fd_tensor_check(yDesc, "yDesc"));
    FD_CHECK(xDesc->nb_dims == yDesc->nb_dims, CUDNN_STATUS_BAD_PARAM,
             "xDesc has %d dims but yDesc has %d", xDesc->nb_dims, yDesc->nb_dims);
    for (int i = 0; i < xDesc->nb_dims; i++)
        FD_CHECK(xDesc->dim[i] == yDesc->dim[i], CUDNN_STATUS_BAD_PARAM,
                 "xDesc dim %d is %d but yDesc dim %d is %d; the dims must be equal", i,
                 xDesc->dim[i], i, yDesc->dim[i]);
    FD_TRY(transform_types(xDesc->dtype, "xDesc", yDesc->dtype, "yDesc"));
    FD_CHECK(!fd_tensor_has_negative_stride(xDesc) && !fd_tensor_has_negative_stride(yDesc),
             CUDNN_STATUS_NOT_SUPPORTED, "xDesc or yDesc has a negative stride");
    fd_tensor_transform_problem_t p;
    transform_problem(&p, NULL);
    fd_tview_from_tensor(&p.x, xDesc);
    fd_tview_from_tensor(&p.y, yDesc);
    FD_TRY(transform_views(&p.x, x, &p.y, y));
    fd_tensor_transform_args_t a = {x, y, fd_scale_value(alpha, yDesc->dtype),
                                    fd_scale_value(beta, yDesc->dtype), handle};
    return fd_op_run(handle, FD_OP_TENSOR_TRANSFORM, &p, &a);
}

/* Shape check of a transform from `in` to `dst` dims (both nb long). */
static cudnnStatus_t transform_shape(const struct cudnnTensorTransformStruct *t, int nb,
                                     const int *src, const int *dst, const char *sn, const char *dn)
{
    FD_CHECK(nb == t->nb_dims, CUDNN_STATUS_BAD_PARAM, "%s has %d dims but transDesc has %d", sn,
             nb, t->nb_dims);
    int64_t in[FD_DIM_MAX] = {0}, out[FD_DIM_MAX] = {0};
    for (int i = 0; i < nb; i++)
        in[i] = src[i];
    FD_TRY(fd_transform_dims(t, in, out));
    for (int i = 0; i < nb; i++)
        FD_CHECK(dst[i] == out[i], CUDNN_STATUS_BAD_PARAM,
                 "%s dim %d is %d but transDesc makes %lld of %s (see cudnnInitTransformDest)", dn,
                 i, dst[i], (long long)out[i], sn);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnTransformTensorEx(
    cudnnHandle_t handle, const cudnnTensorTransformDescriptor_t transDesc, const void *alpha,
    const cudnnTensorDescriptor_t srcDesc, const void *srcData, const void *beta,
    const cudnnTensorDescriptor_t destDesc, void *destData)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(fd_transform_check(transDesc, "transDesc"));
    FD_CHECK(alpha && beta && srcData && destData, CUDNN_STATUS_BAD_PARAM,
             "a pointer is NULL (alpha %p, beta %p, srcData %p, destData %p)", alpha, beta, srcData,
             destData);
    FD_TRY(fd_tensor_check(srcDesc, "srcDesc"));
    FD_TRY(fd_tensor_check(destDesc, "destDesc"));
    FD_CHECK(srcDesc->nb_dims == destDesc->nb_dims, CUDNN_STATUS_BAD_PARAM,
             "srcDesc has %d dims but destDesc has %d", srcDesc->nb_dims, destDesc->nb_dims);
    FD_TRY(transform_shape(transDesc, srcDesc->nb_dims, srcDesc->dim, destDesc->dim, "srcDesc",
                           "destDesc"));
    FD_TRY(transform_types(srcDesc->dtype, "srcDesc", destDesc->dtype, "destDesc"));
    FD_CHECK(!fd_tensor_has_negative_stride(srcDesc) && !fd_tensor_has_negative_stride(destDesc),
             CUDNN_STATUS_NOT_SUPPORTED, "srcDesc or destDesc has a negative stride");
    double b = fd_scale_value(beta, destDesc->dtype);
    FD_TRY(transform_beta(transDesc, b));
    fd_tensor_transform_problem_t p;
    transform_problem(&p, transDesc);
    fd_tview_from_tensor(&p.x, srcDesc);
    fd_tview_from_tensor(&p.y, destDesc);
    FD_TRY(transform_views(&p.x, srcData, &p.y, destData));
    fd_tensor_transform_args_t a = {srcData, destData, fd_scale_value(alpha, destDesc->dtype), b, handle};
    return fd_op_run(handle, FD_OP_TENSOR_TRANSFORM, &p, &a);
}

cudnnStatus_t CUDNNWINAPI
cudnnTransformFilter(cudnnHandle_t handle, const cudnnTensorTransformDescriptor_t transDesc,
                     const void *alpha, const cudnnFilterDescriptor_t srcDesc, const void *srcData,
                     const void *beta, const cudnnFilterDescriptor_t destDesc, void *destData)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(fd_transform_check(transDesc, "transDesc"));
    FD_CHECK(alpha && beta && srcData && destData, CUDNN_STATUS_BAD_PARAM,
             "a pointer is NULL (alpha %p, beta %p, srcData %p, destData %p)", alpha, beta, srcData,
             destData);
    FD_TRY(fd_filter_check(srcDesc, "srcDesc"));
    FD_TRY(fd_filter_check(destDesc, "destDesc"));
    FD_CHECK(srcDesc->nb_dims == destDesc->nb_dims, CUDNN_STATUS_BAD_PARAM,
             "srcDesc has %d dims but destDesc has %d", srcDesc->nb_dims, destDesc->nb_dims);
    FD_TRY(transform_shape(transDesc, srcDesc->nb_dims, srcDesc->dim, destDesc->dim, "srcDesc",
                           "destDesc"));
    FD_TRY(transform_types(srcDesc->dtype, "srcDesc", destDesc->dtype, "destDesc"));
    double b = fd_scale_value(beta, destDesc->dtype);
    FD_TRY(transform_beta(transDesc, b));
    fd_tensor_transform_problem_t p;
    transform_problem(&p, transDesc);
    fd_tview_from_filter(&p.x, srcDesc);
    fd_tview_from_filter(&p.y, destDesc);
    FD_TRY(transform_views(&p.x, srcData, &p.y, destData));
    fd_tensor_transform_args_t a = {srcData, destData, fd_scale_value(alpha, destDesc->dtype), b, handle};
    return fd_op_run(handle, FD_OP_TENSOR_TRANSFORM, &p, &a);
}

/* ---- cudnnReorderFilterAndBias --------------------------------------------------------------- */

/* bytes as a 1 x bytes UINT8 tensor (the gather wants N and C dims) */
static void byte_view(fd_tview_t *v, int64_t bytes)
{
    memset(v, 0, sizeof *v);
    v->dtype = CUDNN_DATA_UINT8;
    v->nb_dims = 2;
    v->vect = 1;
    v->dim[0] = 1, v->dim[1] = bytes;
    v->stride[0] = bytes, v->stride[1] = 1;
}

static int bytes_overlap(const void *a, int64_t an, const void *b, int64_t bn)
{
    uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
    return a0 < b0 + (uintptr_t)bn && b0 < a0 + (uintptr_t)an;
}

cudnnStatus_t CUDNNWINAPI cudnnReorderFilterAndBias(cudnnHandle_t handle,
                                                    const cudnnFilterDescriptor_t filterDesc,
                                                    cudnnReorderType_t reorderType,
                                                    const void *filterData,
                                                    void *reorderedFilterData, int reorderBias,
                                                    const void *biasData, void *reorderedBiasData)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(fd_filter_check(filterDesc, "filterDesc"));
    FD_CHECK(reorderType == CUDNN_DEFAULT_REORDER || reorderType == CUDNN_NO_REORDER,
             CUDNN_STATUS_BAD_PARAM, "reorderType %d is not a cudnnReorderType_t value",
             (int)reorderType);
    FD_CHECK(filterData && reorderedFilterData, CUDNN_STATUS_BAD_PARAM,
             "filterData (%p) or reorderedFilterData (%p) is NULL", filterData,
             reorderedFilterData);
    FD_CHECK(!reorderBias || (biasData && reorderedBiasData), CUDNN_STATUS_BAD_PARAM,
             "reorderBias is %d but biasData (%p) or reorderedBiasData (%p) is NULL", reorderBias,
             biasData, reorderedBiasData);
    FD_CHECK(filterDesc->dtype == CUDNN_DATA_INT8x32 &&
                 filterDesc->format == CUDNN_TENSOR_NCHW_VECT_C,
             CUDNN_STATUS_NOT_SUPPORTED,
             "filterDesc is %s %s; the reorder takes INT8x32 NCHW_VECT_C filters",
             fd_dtype_name(filterDesc->dtype), fd_format_name(filterDesc->format));
    FD_CHECK(filterDesc->nb_dims == 4, CUDNN_STATUS_NOT_SUPPORTED,
             "filterDesc has %d dims; the reorder takes 2-d filters only", filterDesc->nb_dims);
    int64_t fbytes = 1;
    for (int i = 0; i < filterDesc->nb_dims; i++)
        fbytes *= filterDesc->dim[i];
    int64_t bbytes = reorderBias ? (int64_t)filterDesc->dim[0] * (int64_t)sizeof(float) : 0;
    FD_CHECK(!bytes_overlap(filterData, fbytes, reorderedFilterData, fbytes),
             CUDNN_STATUS_BAD_PARAM, "reorderedFilterData overlaps filterData");
    if (reorderBias)
        FD_CHECK(!bytes_overlap(biasData, bbytes, reorderedBiasData, bbytes) &&
                     !bytes_overlap(reorderedFilterData, fbytes, reorderedBiasData, bbytes) &&
                     !bytes_overlap(filterData, fbytes, reorderedBiasData, bbytes),
                 CUDNN_STATUS_BAD_PARAM, "reorderedBiasData overlaps biasData or a filter buffer");
    fd_tensor_transform_problem_t p;
    transform_problem(&p, NULL);
    byte_view(&p.x, fbytes);
    p.y = p.x;
    fd_tensor_transform_args_t a = {filterData, reorderedFilterData, 1.0, 0.0, handle};
    FD_TRY(fd_op_run(handle, FD_OP_TENSOR_TRANSFORM, &p, &a));
    if (!reorderBias)
        return CUDNN_STATUS_SUCCESS;
    byte_view(&p.x, bbytes);
    p.y = p.x;
    fd_tensor_transform_args_t b = {biasData, reorderedBiasData, 1.0, 0.0, handle};
    return fd_op_run(handle, FD_OP_TENSOR_TRANSFORM, &p, &b);
}

/* ---- cudnnGetFoldedConvBackwardDataDescriptors ---------------------------------------------- */
/*
 * A strided backward-data convolution becomes a stride-1 one (stride s, dilation 1, per dim):
 * with hp = h + pad the position in the padded dx, hp = p * s + r. Writing hp = h' s + i and
 * r = r' s + i (same phase i, both < s) gives h' = p + r', so for every phase i
 *   dx_fold[n, i C + c, h'] = sum over k, r' of dy[n, k, h' - r'] w_fold[k, i C + c, r']
 * which is backward data with stride 1 and pad 0 of the folded filter (w folded by s: R' =
 * ceil(R / s) taps) into the folded padded dx (H' = max(ceil((H + pad) / s), P + R' - 1) so that
 * every contribution lands), from dy padded after to P' = H' - R' + 1. The transforms:
 *   filterFoldTransDesc  fold by s                      w  (K, C, R, S)   -> (K, C s s, R', S')
 *   diffPadTransDesc     pad after by P' - P            dy (N, K, P, Q)   -> (N, K, P', Q')
 *   gradFoldTransDesc    pad pad / H' s - H - pad, fold dx (N, C, H, W)   -> (N, C s s, H', W')
 *   gradUnfoldTransDesc  the inverse of gradFold (the result of the folded convolution -> dx)
 * gradFold is needed only to carry a prior dx into a beta != 0 convolution. A dim of stride 1
 * folds by 1 and keeps its dilation; with no stride above 1 every transform is the identity and
 * the folded convolution is the original one (an UNFOLD by 1 would pad, not crop). True
 * convolution (CUDNN_CONVOLUTION), groups, and dilation on a strided dim do not fold (phases
 * would reverse or mix): NOT_SUPPORTED when a stride is above 1. cuDNN also rounds channels up to
 * multiples of 8 for its tensor-core kernels; freednn does not need that padding and leaves the
 * channels exact.
 */
cudnnStatus_t CUDNNWINAPI cudnnGetFoldedConvBackwardDataDescriptors(
    const cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc,
    const cudnnTensorDescriptor_t diffDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t gradDesc, const cudnnTensorFormat_t transformFormat,
    cudnnFilterDescriptor_t foldedFilterDesc, cudnnTensorDescriptor_t paddedDiffDesc,
    cudnnConvolutionDescriptor_t foldedConvDesc, cudnnTensorDescriptor_t foldedGradDesc,
    cudnnTensorTransformDescriptor_t filterFoldTransDesc,
    cudnnTensorTransformDescriptor_t diffPadTransDesc,
    cudnnTensorTransformDescriptor_t gradFoldTransDesc,
    cudnnTensorTransformDescriptor_t gradUnfoldTransDesc)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(fd_filter_check(filterDesc, "filterDesc"));
    FD_TRY(fd_tensor_check(diffDesc, "diffDesc"));
    FD_TRY(fd_conv_desc_check(convDesc, "convDesc"));
    FD_TRY(fd_tensor_check(gradDesc, "gradDesc"));
    FD_CHECK(filterDesc->nb_dims == 4 && diffDesc->nb_dims == 4 && gradDesc->nb_dims == 4,
             CUDNN_STATUS_BAD_PARAM,
             "filterDesc, diffDesc and gradDesc have %d, %d and %d dims; folding is 2-d (4 dims)",
             filterDesc->nb_dims, diffDesc->nb_dims, gradDesc->nb_dims);
    FD_TRY(dest_format_ok(transformFormat, "transformFormat"));
    FD_CHECK(foldedFilterDesc != NULL && foldedFilterDesc->magic == FD_MAGIC_FILTER,
             CUDNN_STATUS_BAD_PARAM, "foldedFilterDesc (%p) is not a live filter descriptor",
             (void *)foldedFilterDesc);
    FD_CHECK(paddedDiffDesc != NULL && paddedDiffDesc->magic == FD_MAGIC_TENSOR,
             CUDNN_STATUS_BAD_PARAM, "paddedDiffDesc (%p) is not a live tensor descriptor",
             (void *)paddedDiffDesc);
    FD_CHECK(foldedGradDesc != NULL && foldedGradDesc->magic == FD_MAGIC_TENSOR,
             CUDNN_STATUS_BAD_PARAM, "foldedGradDesc (%p) is not a live tensor descriptor",
             (void *)foldedGradDesc);
    FD_CHECK(foldedConvDesc != NULL && foldedConvDesc->magic == FD_MAGIC_CONV,
             CUDNN_STATUS_BAD_PARAM, "foldedConvDesc (%p) is not a live convolution descriptor",
             (void *)foldedConvDesc);
    FD_TRY(transform_live(filterFoldTransDesc, "filterFoldTransDesc"));
    FD_TRY(transform_live(diffPadTransDesc, "diffPadTransDesc"));
    FD_TRY(transform_live(gradFoldTransDesc, "gradFoldTransDesc"));
    FD_TRY(transform_live(gradUnfoldTransDesc, "gradUnfoldTransDesc"));
    fd_conv_problem_t cp;
    FD_TRY(fd_conv_problem_init(&cp, FD_CONV_BWD_DATA, gradDesc, filterDesc, convDesc, diffDesc));

    int strided = 0;
    for (int i = 0; i < 2; i++)
        strided |= convDesc->stride[i] > 1;
    for (int i = 0; i < 2; i++)
        FD_CHECK(convDesc->stride[i] == 1 || convDesc->dil[i] == 1, CUDNN_STATUS_NOT_SUPPORTED,
                 "spatial dim %d has stride %d and dilation %d; a strided dim folds without "
                 "dilation only",
                 i, convDesc->stride[i], convDesc->dil[i]);
    FD_CHECK(!strided || convDesc->mode == CUDNN_CROSS_CORRELATION, CUDNN_STATUS_NOT_SUPPORTED,
             "CUDNN_CONVOLUTION (flipped filter) with a stride above 1 does not fold; use "
             "CUDNN_CROSS_CORRELATION");
    FD_CHECK(!strided || convDesc->groups == 1, CUDNN_STATUS_NOT_SUPPORTED,
             "%d groups with a stride above 1 do not fold (the phases would mix the groups)",
             convDesc->groups);

    const int64_t N = gradDesc->dim[0], C = gradDesc->dim[1], K = filterDesc->dim[0],
                  Cw = filterDesc->dim[1];
    int64_t f = 1, taps[2], gh[2], dp[2], grad_pa[2], diff_pa[2];
    for (int i = 0; i < 2; i++) {
        int64_t s = convDesc->stride[i], d = convDesc->dil[i], pad = convDesc->pad[i];
        int64_t H = gradDesc->dim[2 + i], P = diffDesc->dim[2 + i], R = filterDesc->dim[2 + i];
        if (!strided) { /* nothing to fold: every transform is the identity, the convolution stays
                         */
            taps[i] = R, gh[i] = H, dp[i] = P, grad_pa[i] = 0, diff_pa[i] = 0;
            continue;
        }
        taps[i] = (R + s - 1) / s;
        int64_t span = (taps[i] - 1) * d + 1;
        int64_t need = (H + pad + s - 1) / s;
        gh[i] = need > P + span - 1 ? need : P + span - 1;
        dp[i] = gh[i] - span + 1;
        grad_pa[i] = gh[i] * s - H - pad;
        diff_pa[i] = dp[i] - P;
        FD_CHECK(grad_pa[i] <= INT_MAX && diff_pa[i] <= INT_MAX && gh[i] <= INT_MAX,
                 CUDNN_STATUS_NOT_SUPPORTED, "spatial dim %d: the folded sizes exceed int", i);
        f *= s;
    }
    int64_t ffdim[4] = {K, Cw * f, taps[0], taps[1]}, pddim[4] = {N, K, dp[0], dp[1]},
            fgdim[4] = {N, C * f, gh[0], gh[1]};
    struct cudnnTensorStruct pd, fg;
    FD_TRY(packed_tensor(&pd, diffDesc->dtype, 4, pddim, transformFormat));
    FD_TRY(packed_tensor(&fg, gradDesc->dtype, 4, fgdim, transformFormat));
    int64_t fel = 1;
    for (int i = 0; i < 4; i++)
        fel *= ffdim[i];
    FD_CHECK(fel <= INT_MAX, CUDNN_STATUS_NOT_SUPPORTED,
             "the folded filter has more than 2^31 - 1 elements");
    struct cudnnFilterStruct ff = {.magic = FD_MAGIC_FILTER,
                                   .is_set = 1,
                                   .dtype = filterDesc->dtype,
                                   .format = transformFormat,
                                   .nb_dims = 4};
    for (int i = 0; i < 4; i++)
        ff.dim[i] = (int)ffdim[i];
    struct cudnnConvolutionStruct fc = *convDesc;
    fc.magic = FD_MAGIC_CONV;
    fc.nb_spatial = 2;
    for (int i = 0; i < 2; i++) {
        fc.pad[i] = strided ? 0 : convDesc->pad[i];
        fc.stride[i] = 1;
        fc.dil[i] = convDesc->dil[i];
    }
    struct cudnnTensorTransformStruct tf = {.magic = FD_MAGIC_TRANSFORM,
                                            .is_set = 1,
                                            .nb_dims = 4,
                                            .format = transformFormat,
                                            .direction = CUDNN_TRANSFORM_FOLD};
    for (int i = 0; i < 4; i++)
        tf.fold[i] = 1;
    struct cudnnTensorTransformStruct tpad = tf, tgf = tf, tgu;
    for (int i = 0; i < 2; i++) {
        tf.fold[2 + i] = (uint32_t)convDesc->stride[i];
        tpad.pad_after[2 + i] = (int32_t)diff_pa[i];
        tgf.fold[2 + i] = (uint32_t)convDesc->stride[i];
        tgf.pad_before[2 + i] = strided ? convDesc->pad[i] : 0;
        tgf.pad_after[2 + i] = (int32_t)grad_pa[i];
    }
    tgu = tgf;
    tgu.direction = CUDNN_TRANSFORM_UNFOLD;

    *foldedFilterDesc = ff;
    *paddedDiffDesc = pd;
    *foldedConvDesc = fc;
    *foldedGradDesc = fg;
    *filterFoldTransDesc = tf;
    *diffPadTransDesc = tpad;
    *gradFoldTransDesc = tgf;
    *gradUnfoldTransDesc = tgu;
    return CUDNN_STATUS_SUCCESS;
}
