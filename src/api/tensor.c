/* SPDX-License-Identifier: MIT */
/*
 * tensor.c - tensor descriptors (4d, 4dEx, Nd, NdEx, getters, size in bytes).
 *
 * Validation follows contract §1.2 as observed on cuDNN 9.19: non-positive dims, bad enums and
 * a zero stride on a dim > 1 are BAD_PARAM; more than CUDNN_DIM_MAX dims, more than 2^31 - 1
 * elements or an addressed extent of 2^31 or more is NOT_SUPPORTED; nbDims 2 and 3 are
 * accepted; negative strides are accepted here and rejected by the routines that need it.
 * Where 9.19 crashes (NULL dimA/strideA) we answer BAD_PARAM. A rejected setter leaves the
 * descriptor as it was.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../core/fd.h"

cudnnStatus_t CUDNNWINAPI cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *tensorDesc)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(tensorDesc);
    struct cudnnTensorStruct *t = calloc(1, sizeof *t);
    FD_CHECK(t != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
             "cannot allocate a tensor descriptor (%zu bytes)", sizeof *t);
    t->magic = FD_MAGIC_TENSOR;
    *tensorDesc = t;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc)
{
    FD_API(NULL);
    if (tensorDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    FD_CHECK(tensorDesc->magic == FD_MAGIC_TENSOR, CUDNN_STATUS_BAD_PARAM,
             "tensorDesc %p is not a live tensor descriptor", (void *)tensorDesc);
    tensorDesc->magic = 0;
    free(tensorDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t fd_tensor_check(cudnnTensorDescriptor_t desc, const char *name)
{
    FD_CHECK(desc != NULL, CUDNN_STATUS_BAD_PARAM, "%s is NULL", name);
    FD_CHECK(desc->magic == FD_MAGIC_TENSOR, CUDNN_STATUS_BAD_PARAM,
             "%s (%p) is not a live tensor descriptor", name, (void *)desc);
    FD_CHECK(desc->is_set, CUDNN_STATUS_BAD_PARAM,
             "%s was created but never set (call cudnnSetTensor*Descriptor first)", name);
    return CUDNN_STATUS_SUCCESS;
}

int64_t fd_tensor_elements(const struct cudnnTensorStruct *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->nb_dims; i++)
        n *= t->dim[i];
    return n;
}

int64_t fd_tensor_extent(const struct cudnnTensorStruct *t)
{
    int64_t e = 1;
    for (int i = 0; i < t->nb_dims; i++) {
        int64_t s = t->stride[i] < 0 ? -(int64_t)t->stride[i] : t->stride[i];
        /* vectorised layouts: the channel dim counts vectors */
        int64_t d = (t->vect > 1 && i == 1) ? t->dim[i] / t->vect : t->dim[i];
        e += (d - 1) * s;
    }
    return e;
}

int fd_tensor_has_negative_stride(const struct cudnnTensorStruct *t)
{
    for (int i = 0; i < t->nb_dims; i++)
        if (t->stride[i] < 0)
            return 1;
    return 0;
}

int fd_tensor_is_non_overlapping(const struct cudnnTensorStruct *t)
{
    /* Sort the dims that have more than one index by |stride|; each must step over the whole
     * span of the smaller ones. Sufficient, and exact for every layout a user writes down. */
    int64_t s[FD_DIM_MAX], d[FD_DIM_MAX];
    int n = 0;
    for (int i = 0; i < t->nb_dims; i++) {
        if (t->dim[i] == 1)
            continue;
        s[n] = t->stride[i] < 0 ? -(int64_t)t->stride[i] : t->stride[i];
        d[n] = t->dim[i];
        n++;
    }
    for (int i = 1; i < n; i++) /* insertion sort, n <= 8 */
        for (int j = i; j > 0 && s[j] < s[j - 1]; j--) {
            int64_t ts = s[j], td = d[j];
            s[j] = s[j - 1], d[j] = d[j - 1];
            s[j - 1] = ts, d[j - 1] = td;
        }
    int64_t span = 1;
    for (int i = 0; i < n; i++) {
        if (s[i] < span)
            return 0;
        span = s[i] * d[i];
    }
    return 1;
}

static int vect_width(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_INT8x4:
    case CUDNN_DATA_UINT8x4:
        return 4;
    case CUDNN_DATA_INT8x32:
        return 32;
    default:
        return 1;
    }
}

/* Validates dims/strides/type and, only if all is well, writes the descriptor. */
static cudnnStatus_t tensor_commit(cudnnTensorDescriptor_t desc, cudnnDataType_t dt, int nb_dims,
                                   const int *dim, const int *stride, int vect)
{
    FD_CHECK(desc != NULL, CUDNN_STATUS_BAD_PARAM, "tensorDesc is NULL");
    FD_CHECK(desc->magic == FD_MAGIC_TENSOR, CUDNN_STATUS_BAD_PARAM,
             "tensorDesc %p is not a live tensor descriptor", (void *)desc);
    FD_CHECK(fd_dtype_is_valid(dt), CUDNN_STATUS_BAD_PARAM,
             "dataType %d is not a cudnnDataType_t value", (int)dt);
    FD_CHECK(nb_dims >= 2, CUDNN_STATUS_BAD_PARAM, "nbDims is %d; at least 2 are needed", nb_dims);
    FD_CHECK(nb_dims <= FD_DIM_MAX, CUDNN_STATUS_NOT_SUPPORTED,
             "nbDims is %d; CUDNN_DIM_MAX is %d", nb_dims, FD_DIM_MAX);
    FD_CHECK(dim != NULL, CUDNN_STATUS_BAD_PARAM, "dimA is NULL");
    FD_CHECK(stride != NULL, CUDNN_STATUS_BAD_PARAM, "strideA is NULL");
    for (int i = 0; i < nb_dims; i++) {
        FD_CHECK(dim[i] > 0, CUDNN_STATUS_BAD_PARAM, "dimA[%d] is %d; dims must be positive", i, dim[i]);
        FD_CHECK(stride[i] != 0 || dim[i] == 1, CUDNN_STATUS_BAD_PARAM,
                 "strideA[%d] is 0 while dimA[%d] is %d (zero strides only on dims of 1)", i, i, dim[i]);
    }
    if (vect > 1)
        FD_CHECK(nb_dims >= 3 && dim[1] % vect == 0, CUDNN_STATUS_BAD_PARAM,
                 "%s needs C (dimA[1] = %d) to be a multiple of %d", fd_dtype_name(dt),
                 nb_dims >= 2 ? dim[1] : 0, vect);
    struct cudnnTensorStruct t = {.magic = FD_MAGIC_TENSOR, .is_set = 1, .dtype = dt,
                                  .nb_dims = nb_dims, .vect = vect};
    memcpy(t.dim, dim, sizeof(int) * (size_t)nb_dims);
    memcpy(t.stride, stride, sizeof(int) * (size_t)nb_dims);
    int64_t elements = 1;
    for (int i = 0; i < nb_dims; i++) {
        elements *= dim[i];
        FD_CHECK(elements <= INT_MAX, CUDNN_STATUS_NOT_SUPPORTED,
                 "the tensor has more than 2^31 - 1 elements (product of the first %d dims is %lld)",
                 i + 1, (long long)elements);
    }
    int64_t extent = fd_tensor_extent(&t);
    FD_CHECK(extent <= INT_MAX, CUDNN_STATUS_NOT_SUPPORTED,
             "the strides address %lld elements; the limit is 2^31 - 1", (long long)extent);
    *desc = t;
    return CUDNN_STATUS_SUCCESS;
}

/* Packed strides for dims laid out NCHW (format 0) or channels-last (format 1); `vect` > 1
 * gives NCHW_VECT_C strides counted in vectors. */
static void packed_strides(int nb_dims, const int *dim, cudnnTensorFormat_t format, int vect,
                           int *stride)
{
    int64_t acc = 1;
    if (format == CUDNN_TENSOR_NHWC) {
        stride[1] = 1;
        acc = dim[1];
        for (int i = nb_dims - 1; i >= 2; i--) {
            stride[i] = (int)acc;
            acc *= dim[i];
        }
        stride[0] = (int)acc;
        return;
    }
    for (int i = nb_dims - 1; i >= 0; i--) {
        stride[i] = (int)acc;
        int64_t d = (i == 1 && vect > 1) ? dim[i] / vect : dim[i];
        acc *= d;
        if (acc > INT_MAX) /* tensor_commit rejects such shapes; keep the strides defined */
            acc = INT_MAX;
    }
}

static cudnnStatus_t set_with_format(cudnnTensorDescriptor_t desc, cudnnTensorFormat_t format,
                                     cudnnDataType_t dt, int nb_dims, const int *dim)
{
    FD_CHECK(format == CUDNN_TENSOR_NCHW || format == CUDNN_TENSOR_NHWC ||
                 format == CUDNN_TENSOR_NCHW_VECT_C,
             CUDNN_STATUS_BAD_PARAM, "format %d is not a cudnnTensorFormat_t value", (int)format);
    FD_CHECK(fd_dtype_is_valid(dt), CUDNN_STATUS_BAD_PARAM,
             "dataType %d is not a cudnnDataType_t value", (int)dt);
    FD_CHECK(dim != NULL, CUDNN_STATUS_BAD_PARAM, "dimA is NULL");
    FD_CHECK(nb_dims >= 2 && nb_dims <= FD_DIM_MAX, nb_dims < 2 ? CUDNN_STATUS_BAD_PARAM
                                                                : CUDNN_STATUS_NOT_SUPPORTED,
             "nbDims is %d; it must be in [2, %d]", nb_dims, FD_DIM_MAX);
    int vect = vect_width(dt);
    FD_CHECK((format == CUDNN_TENSOR_NCHW_VECT_C) == (vect > 1), CUDNN_STATUS_BAD_PARAM,
             "format %s does not go with dataType %s (NCHW_VECT_C needs INT8x4, UINT8x4 or "
             "INT8x32, and those need NCHW_VECT_C)",
             format == CUDNN_TENSOR_NCHW_VECT_C ? "CUDNN_TENSOR_NCHW_VECT_C"
             : format == CUDNN_TENSOR_NHWC      ? "CUDNN_TENSOR_NHWC"
                                                : "CUDNN_TENSOR_NCHW",
             fd_dtype_name(dt));
    for (int i = 0; i < nb_dims; i++)
        FD_CHECK(dim[i] > 0, CUDNN_STATUS_BAD_PARAM, "dimA[%d] is %d; dims must be positive", i, dim[i]);
    int stride[FD_DIM_MAX];
    packed_strides(nb_dims, dim, format, vect, stride);
    return tensor_commit(desc, dt, nb_dims, dim, stride, vect);
}

cudnnStatus_t CUDNNWINAPI cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t tensorDesc,
                                                     cudnnTensorFormat_t format,
                                                     cudnnDataType_t dataType, int n, int c, int h,
                                                     int w)
{
    FD_API(NULL);
    FD_CHECK(tensorDesc != NULL, CUDNN_STATUS_BAD_PARAM, "tensorDesc is NULL");
    FD_CHECK(n > 0 && c > 0 && h > 0 && w > 0, CUDNN_STATUS_BAD_PARAM,
             "n, c, h, w are %d, %d, %d, %d; all must be positive", n, c, h, w);
    int dim[4] = {n, c, h, w};
    return set_with_format(tensorDesc, format, dataType, 4, dim);
}

cudnnStatus_t CUDNNWINAPI cudnnSetTensor4dDescriptorEx(cudnnTensorDescriptor_t tensorDesc,
                                                       cudnnDataType_t dataType, int n, int c,
                                                       int h, int w, int nStride, int cStride,
                                                       int hStride, int wStride)
{
    FD_API(NULL);
    FD_CHECK(vect_width(dataType) == 1, CUDNN_STATUS_BAD_PARAM,
             "%s needs the NCHW_VECT_C format; use cudnnSetTensor4dDescriptor",
             fd_dtype_name(dataType));
    int dim[4] = {n, c, h, w}, stride[4] = {nStride, cStride, hStride, wStride};
    return tensor_commit(tensorDesc, dataType, 4, dim, stride, 1);
}

cudnnStatus_t CUDNNWINAPI cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t tensorDesc,
                                                     cudnnDataType_t dataType, int nbDims,
                                                     const int dimA[], const int strideA[])
{
    FD_API(NULL);
    return tensor_commit(tensorDesc, dataType, nbDims, dimA, strideA, vect_width(dataType));
}

cudnnStatus_t CUDNNWINAPI cudnnSetTensorNdDescriptorEx(cudnnTensorDescriptor_t tensorDesc,
                                                       cudnnTensorFormat_t format,
                                                       cudnnDataType_t dataType, int nbDims,
                                                       const int dimA[])
{
    FD_API(NULL);
    FD_CHECK(tensorDesc != NULL, CUDNN_STATUS_BAD_PARAM, "tensorDesc is NULL");
    return set_with_format(tensorDesc, format, dataType, nbDims, dimA);
}

cudnnStatus_t CUDNNWINAPI cudnnGetTensor4dDescriptor(const cudnnTensorDescriptor_t tensorDesc,
                                                     cudnnDataType_t *dataType, int *n, int *c,
                                                     int *h, int *w, int *nStride, int *cStride,
                                                     int *hStride, int *wStride)
{
    FD_API(NULL);
    FD_TRY(fd_tensor_check(tensorDesc, "tensorDesc"));
    FD_CHECK_NOT_NULL(dataType);
    FD_CHECK_NOT_NULL(n);
    FD_CHECK_NOT_NULL(c);
    FD_CHECK_NOT_NULL(h);
    FD_CHECK_NOT_NULL(w);
    FD_CHECK_NOT_NULL(nStride);
    FD_CHECK_NOT_NULL(cStride);
    FD_CHECK_NOT_NULL(hStride);
    FD_CHECK_NOT_NULL(wStride);
    FD_CHECK(tensorDesc->nb_dims == 4, CUDNN_STATUS_BAD_PARAM,
             "tensorDesc has %d dims; cudnnGetTensor4dDescriptor reads 4-d descriptors only",
             tensorDesc->nb_dims);
    const int *d = tensorDesc->dim, *s = tensorDesc->stride;
    *dataType = tensorDesc->dtype;
    *n = d[0], *c = d[1], *h = d[2], *w = d[3];
    *nStride = s[0], *cStride = s[1], *hStride = s[2], *wStride = s[3];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t tensorDesc,
                                                     int nbDimsRequested, cudnnDataType_t *dataType,
                                                     int *nbDims, int dimA[], int strideA[])
{
    FD_API(NULL);
    FD_TRY(fd_tensor_check(tensorDesc, "tensorDesc"));
    FD_CHECK(nbDimsRequested >= 0, CUDNN_STATUS_BAD_PARAM, "nbDimsRequested is %d", nbDimsRequested);
    FD_CHECK(dataType != NULL && nbDims != NULL, CUDNN_STATUS_BAD_PARAM,
             "dataType or nbDims is NULL");
    FD_CHECK(nbDimsRequested == 0 || (dimA != NULL && strideA != NULL), CUDNN_STATUS_BAD_PARAM,
             "dimA or strideA is NULL while nbDimsRequested is %d", nbDimsRequested);
    int n = nbDimsRequested < tensorDesc->nb_dims ? nbDimsRequested : tensorDesc->nb_dims;
    *dataType = tensorDesc->dtype;
    *nbDims = tensorDesc->nb_dims;
    for (int i = 0; i < n; i++) {
        dimA[i] = tensorDesc->dim[i];
        strideA[i] = tensorDesc->stride[i];
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetTensorSizeInBytes(const cudnnTensorDescriptor_t tensorDesc,
                                                    size_t *size)
{
    FD_API(NULL);
    FD_TRY(fd_tensor_check(tensorDesc, "tensorDesc"));
    FD_CHECK_NOT_NULL(size);
    *size = (size_t)fd_tensor_extent(tensorDesc) * fd_dtype_size(tensorDesc->dtype);
    return CUDNN_STATUS_SUCCESS;
}
