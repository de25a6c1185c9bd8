/* SPDX-License-Identifier: MIT */
/*
 * filter.c - filter descriptors (4d, Nd, getters, size in bytes).
 *
 * A filter is always described as K, C, spatial...; `format` says how it is laid out in
 * memory (NCHW: spatial innermost; NHWC: C innermost; NCHW_VECT_C: C in vectors of 4/32).
 * Bad dims or enums are BAD_PARAM, more than CUDNN_DIM_MAX dims or 2^31 elements NOT_SUPPORTED.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../core/fd.h"

cudnnStatus_t CUDNNWINAPI cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *filterDesc)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(filterDesc);
    struct cudnnFilterStruct *f = calloc(1, sizeof *f);
    FD_CHECK(f != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
             "cannot allocate a filter descriptor (%zu bytes)", sizeof *f);
    f->magic = FD_MAGIC_FILTER;
    *filterDesc = f;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc)
{
    FD_API(NULL);
    if (filterDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    FD_CHECK(filterDesc->magic == FD_MAGIC_FILTER, CUDNN_STATUS_BAD_PARAM,
             "filterDesc %p is not a live filter descriptor", (void *)filterDesc);
    filterDesc->magic = 0;
    free(filterDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t fd_filter_check(cudnnFilterDescriptor_t desc, const char *name)
{
    FD_CHECK(desc != NULL, CUDNN_STATUS_BAD_PARAM, "%s is NULL", name);
    FD_CHECK(desc->magic == FD_MAGIC_FILTER, CUDNN_STATUS_BAD_PARAM,
             "%s (%p) is not a live filter descriptor", name, (void *)desc);
    FD_CHECK(desc->is_set, CUDNN_STATUS_BAD_PARAM,
             "%s was created but never set (call cudnnSetFilter*Descriptor first)", name);
    return CUDNN_STATUS_SUCCESS;
}

void fd_filter_strides(const struct cudnnFilterStruct *f, int64_t *stride)
{
    int n = f->nb_dims;
    int64_t acc = 1;
    if (f->format == CUDNN_TENSOR_NHWC) {
        stride[1] = 1;
        acc = f->dim[1];
        for (int i = n - 1; i >= 2; i--) {
            stride[i] = acc;
            acc *= f->dim[i];
        }
        stride[0] = acc;
        return;
    }
    for (int i = n - 1; i >= 0; i--) {
        stride[i] = acc;
        acc *= f->dim[i];
    }
}

static cudnnStatus_t filter_commit(cudnnFilterDescriptor_t desc, cudnnDataType_t dt,
                                   cudnnTensorFormat_t format, int nb_dims, const int *dim)
{
    FD_CHECK(desc != NULL, CUDNN_STATUS_BAD_PARAM, "filterDesc is NULL");
    FD_CHECK(desc->magic == FD_MAGIC_FILTER, CUDNN_STATUS_BAD_PARAM,
             "filterDesc %p is not a live filter descriptor", (void *)desc);
    FD_CHECK(fd_dtype_is_valid(dt), CUDNN_STATUS_BAD_PARAM,
             "dataType %d is not a cudnnDataType_t value", (int)dt);
    FD_CHECK(format == CUDNN_TENSOR_NCHW || format == CUDNN_TENSOR_NHWC ||
                 format == CUDNN_TENSOR_NCHW_VECT_C,
             CUDNN_STATUS_BAD_PARAM, "format %d is not a cudnnTensorFormat_t value", (int)format);
    FD_CHECK(nb_dims >= 3, CUDNN_STATUS_BAD_PARAM, "nbDims is %d; a filter has at least 3 (K, C, R)",
             nb_dims);
    FD_CHECK(nb_dims <= FD_DIM_MAX, CUDNN_STATUS_NOT_SUPPORTED, "nbDims is %d; CUDNN_DIM_MAX is %d",
             nb_dims, FD_DIM_MAX);
    FD_CHECK(dim != NULL, CUDNN_STATUS_BAD_PARAM, "filterDimA is NULL");
    int64_t elements = 1;
    for (int i = 0; i < nb_dims; i++) {
        FD_CHECK(dim[i] > 0, CUDNN_STATUS_BAD_PARAM, "filterDimA[%d] is %d; dims must be positive",
                 i, dim[i]);
        elements *= dim[i];
        FD_CHECK(elements <= INT_MAX, CUDNN_STATUS_NOT_SUPPORTED,
                 "the filter has more than 2^31 - 1 elements");
    }
    if (format == CUDNN_TENSOR_NCHW_VECT_C) {
        int vect = dt == CUDNN_DATA_INT8x32 ? 32 : 4;
        FD_CHECK(dt == CUDNN_DATA_INT8x4 || dt == CUDNN_DATA_UINT8x4 || dt == CUDNN_DATA_INT8x32,
                 CUDNN_STATUS_BAD_PARAM, "NCHW_VECT_C filters need INT8x4, UINT8x4 or INT8x32, not %s",
                 fd_dtype_name(dt));
        FD_CHECK(dim[1] % vect == 0, CUDNN_STATUS_BAD_PARAM,
                 "%s needs C (filterDimA[1] = %d) to be a multiple of %d", fd_dtype_name(dt), dim[1], vect);
    }
    struct cudnnFilterStruct f = {.magic = FD_MAGIC_FILTER, .is_set = 1, .dtype = dt,
                                  .format = format, .nb_dims = nb_dims};
    memcpy(f.dim, dim, sizeof(int) * (size_t)nb_dims);
    *desc = f;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t filterDesc,
                                                     cudnnDataType_t dataType,
                                                     cudnnTensorFormat_t format, int k, int c,
                                                     int h, int w)
{
    FD_API(NULL);
    int dim[4] = {k, c, h, w};
    return filter_commit(filterDesc, dataType, format, 4, dim);
}

cudnnStatus_t CUDNNWINAPI cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t filterDesc,
                                                     cudnnDataType_t dataType,
                                                     cudnnTensorFormat_t format, int nbDims,
                                                     const int filterDimA[])
{
    FD_API(NULL);
    return filter_commit(filterDesc, dataType, format, nbDims, filterDimA);
}

cudnnStatus_t CUDNNWINAPI cudnnGetFilter4dDescriptor(const cudnnFilterDescriptor_t filterDesc,
                                                     cudnnDataType_t *dataType,
                                                     cudnnTensorFormat_t *format, int *k, int *c,
                                                     int *h, int *w)
{
    FD_API(NULL);
    FD_TRY(fd_filter_check(filterDesc, "filterDesc"));
    FD_CHECK_NOT_NULL(dataType);
    FD_CHECK_NOT_NULL(format);
    FD_CHECK_NOT_NULL(k);
    FD_CHECK_NOT_NULL(c);
    FD_CHECK_NOT_NULL(h);
    FD_CHECK_NOT_NULL(w);
    FD_CHECK(filterDesc->nb_dims == 4, CUDNN_STATUS_BAD_PARAM,
             "filterDesc has %d dims; cudnnGetFilter4dDescriptor reads 4-d descriptors only",
             filterDesc->nb_dims);
    *dataType = filterDesc->dtype;
    *format = filterDesc->format;
    *k = filterDesc->dim[0], *c = filterDesc->dim[1];
    *h = filterDesc->dim[2], *w = filterDesc->dim[3];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetFilterNdDescriptor(const cudnnFilterDescriptor_t filterDesc,
                                                     int nbDimsRequested, cudnnDataType_t *dataType,
                                                     cudnnTensorFormat_t *format, int *nbDims,
                                                     int filterDimA[])
{
    FD_API(NULL);
    FD_TRY(fd_filter_check(filterDesc, "filterDesc"));
    FD_CHECK(nbDimsRequested >= 0, CUDNN_STATUS_BAD_PARAM, "nbDimsRequested is %d", nbDimsRequested);
    FD_CHECK(dataType && format && nbDims, CUDNN_STATUS_BAD_PARAM,
             "dataType, format or nbDims is NULL");
    FD_CHECK(nbDimsRequested == 0 || filterDimA != NULL, CUDNN_STATUS_BAD_PARAM,
             "filterDimA is NULL while nbDimsRequested is %d", nbDimsRequested);
    int n = nbDimsRequested < filterDesc->nb_dims ? nbDimsRequested : filterDesc->nb_dims;
    *dataType = filterDesc->dtype;
    *format = filterDesc->format;
    *nbDims = filterDesc->nb_dims;
    for (int i = 0; i < n; i++)
        filterDimA[i] = filterDesc->dim[i];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetFilterSizeInBytes(const cudnnFilterDescriptor_t filterDesc,
                                                    size_t *size)
{
    FD_API(NULL);
    FD_TRY(fd_filter_check(filterDesc, "filterDesc"));
    FD_CHECK_NOT_NULL(size);
    size_t elements = 1;
    for (int i = 0; i < filterDesc->nb_dims; i++)
        elements *= (size_t)filterDesc->dim[i];
    size_t vect = filterDesc->dtype == CUDNN_DATA_INT8x32                                     ? 32
                  : (filterDesc->dtype == CUDNN_DATA_INT8x4 || filterDesc->dtype == CUDNN_DATA_UINT8x4) ? 4
                                                                                              : 1;
    *size = elements / vect * fd_dtype_size(filterDesc->dtype);
    return CUDNN_STATUS_SUCCESS;
}
