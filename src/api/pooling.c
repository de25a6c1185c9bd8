/* SPDX-License-Identifier: MIT */
/*
 * pooling.c - pooling descriptors (2d and Nd setters/getters), the forward output-dimension
 * queries, cudnnPoolingForward and cudnnPoolingBackward. The computed function of each mode is
 * defined in src/core/pooling.h.
 *
 * Validation, as observed on cuDNN 9.19 (contract §1.2.2) and decided where it is silent (§4.6):
 *   - setters: invalid mode or NaN option, nbDims < 1, window or stride <= 0, NULL arrays are
 *     BAD_PARAM; nbDims > CUDNN_DIM_MAX - 2 is NOT_SUPPORTED. Any padding is accepted, as 9.19
 *     does (pad -1, pad >= window): a negative pad crops the input by |pad| on each side, a pad
 *     >= window gives windows that hold padding only (MAX: -max finite, AVERAGE_EXCLUDE: 0).
 *   - output dims: 1 + floor((in + 2 pad - window) / stride); in + 2 pad < window (nothing to
 *     pool) or a result beyond INT_MAX is BAD_PARAM. Unlike 9.19, a rejected query writes nothing.
 *   - forward/backward: ranks must be nbDims + 2, N and C of x and y equal, every tensor of the
 *     same type (BAD_PARAM otherwise); each spatial extent of y must be the floor size above or
 *     the "ceil mode" size (one more, when that last window starts inside the readable input) -
 *     what frameworks with a ceil mode pass to cuDNN - BAD_PARAM otherwise. 1 to 3 spatial dims,
 *     FLOAT/DOUBLE/HALF/BFLOAT16, non-negative strides are computed; the rest is NOT_SUPPORTED,
 *     as is an output overlapping an input (pooling has no in-place form).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../core/op.h"
#include "../core/pooling.h"

cudnnStatus_t CUDNNWINAPI cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t *poolingDesc)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(poolingDesc);
    struct cudnnPoolingStruct *p = calloc(1, sizeof *p);
    FD_CHECK(p != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
             "cannot allocate a pooling descriptor (%zu bytes)", sizeof *p);
    p->magic = FD_MAGIC_POOL;
    p->nb_spatial = 0; /* not set */
    p->mode = CUDNN_POOLING_MAX;
    p->nan = CUDNN_NOT_PROPAGATE_NAN;
    *poolingDesc = p;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t poolingDesc)
{
    FD_API(NULL);
    if (poolingDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    FD_CHECK(poolingDesc->magic == FD_MAGIC_POOL, CUDNN_STATUS_BAD_PARAM,
             "poolingDesc %p is not a live pooling descriptor", (void *)poolingDesc);
    poolingDesc->magic = 0;
    free(poolingDesc);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t pool_live(cudnnPoolingDescriptor_t desc)
{
    FD_CHECK(desc != NULL, CUDNN_STATUS_BAD_PARAM, "poolingDesc is NULL");
    FD_CHECK(desc->magic == FD_MAGIC_POOL, CUDNN_STATUS_BAD_PARAM,
             "poolingDesc (%p) is not a live pooling descriptor", (void *)desc);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t pool_check(cudnnPoolingDescriptor_t desc)
{
    FD_TRY(pool_live(desc));
    FD_CHECK(desc->nb_spatial > 0, CUDNN_STATUS_BAD_PARAM,
             "poolingDesc was created but never set (call cudnnSetPooling*Descriptor first)");
    return CUDNN_STATUS_SUCCESS;
}

/* Validates everything and, only if all is well, writes the descriptor. */
static cudnnStatus_t pool_commit(cudnnPoolingDescriptor_t desc, cudnnPoolingMode_t mode,
                                 cudnnNanPropagation_t nan, int n, const int *win, const int *pad,
                                 const int *stride)
{
    FD_TRY(pool_live(desc));
    FD_CHECK(mode == CUDNN_POOLING_MAX || mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ||
                 mode == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING ||
                 mode == CUDNN_POOLING_MAX_DETERMINISTIC,
             CUDNN_STATUS_BAD_PARAM, "mode %d is not a cudnnPoolingMode_t value (0 .. 3)",
             (int)mode);
    FD_CHECK(nan == CUDNN_NOT_PROPAGATE_NAN || nan == CUDNN_PROPAGATE_NAN, CUDNN_STATUS_BAD_PARAM,
             "maxpoolingNanOpt %d is not CUDNN_NOT_PROPAGATE_NAN (0) or CUDNN_PROPAGATE_NAN (1)",
             (int)nan);
    FD_CHECK(n >= 1, CUDNN_STATUS_BAD_PARAM, "nbDims is %d; pooling needs at least 1 spatial dim",
             n);
    FD_CHECK(n <= FD_DIM_MAX - 2, CUDNN_STATUS_NOT_SUPPORTED,
             "nbDims is %d; at most CUDNN_DIM_MAX - 2 = %d spatial dims", n, FD_DIM_MAX - 2);
    FD_CHECK(win != NULL && pad != NULL && stride != NULL, CUDNN_STATUS_BAD_PARAM,
             "windowDimA, paddingA or strideA is NULL");
    for (int i = 0; i < n; i++) {
        FD_CHECK(win[i] > 0, CUDNN_STATUS_BAD_PARAM, "window[%d] is %d; windows must be positive",
                 i, win[i]);
        FD_CHECK(stride[i] > 0, CUDNN_STATUS_BAD_PARAM,
                 "stride[%d] is %d; strides must be positive", i, stride[i]);
    }
    desc->mode = mode;
    desc->nan = nan;
    desc->nb_spatial = n;
    for (int i = 0; i < n; i++) {
        desc->win[i] = win[i];
        desc->pad[i] = pad[i];
        desc->stride[i] = stride[i];
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetPooling2dDescriptor(cudnnPoolingDescriptor_t poolingDesc,
                                                      cudnnPoolingMode_t mode,
                                                      cudnnNanPropagation_t maxpoolingNanOpt,
                                                      int windowHeight, int windowWidth,
                                                      int verticalPadding, int horizontalPadding,
                                                      int verticalStride, int horizontalStride)
{
    FD_API(NULL);
    int win[2] = {windowHeight, windowWidth}, pad[2] = {verticalPadding, horizontalPadding};
    int stride[2] = {verticalStride, horizontalStride};
    return pool_commit(poolingDesc, mode, maxpoolingNanOpt, 2, win, pad, stride);
}

cudnnStatus_t CUDNNWINAPI cudnnSetPoolingNdDescriptor(cudnnPoolingDescriptor_t poolingDesc,
                                                      const cudnnPoolingMode_t mode,
                                                      const cudnnNanPropagation_t maxpoolingNanOpt,
                                                      int nbDims, const int windowDimA[],
                                                      const int paddingA[], const int strideA[])
{
    FD_API(NULL);
    return pool_commit(poolingDesc, mode, maxpoolingNanOpt, nbDims, windowDimA, paddingA, strideA);
}

cudnnStatus_t CUDNNWINAPI cudnnGetPooling2dDescriptor(const cudnnPoolingDescriptor_t poolingDesc,
                                                      cudnnPoolingMode_t *mode,
                                                      cudnnNanPropagation_t *maxpoolingNanOpt,
                                                      int *windowHeight, int *windowWidth,
                                                      int *verticalPadding, int *horizontalPadding,
                                                      int *verticalStride, int *horizontalStride)
{
    FD_API(NULL);
    FD_TRY(pool_check(poolingDesc));
    FD_CHECK(mode && maxpoolingNanOpt && windowHeight && windowWidth && verticalPadding &&
                 horizontalPadding && verticalStride && horizontalStride,
             CUDNN_STATUS_BAD_PARAM, "an output pointer is NULL");
    FD_CHECK(poolingDesc->nb_spatial == 2, CUDNN_STATUS_BAD_PARAM,
             "poolingDesc has %d spatial dims; cudnnGetPooling2dDescriptor reads 2-d ones only",
             poolingDesc->nb_spatial);
    *mode = poolingDesc->mode;
    *maxpoolingNanOpt = poolingDesc->nan;
    *windowHeight = poolingDesc->win[0], *windowWidth = poolingDesc->win[1];
    *verticalPadding = poolingDesc->pad[0], *horizontalPadding = poolingDesc->pad[1];
    *verticalStride = poolingDesc->stride[0], *horizontalStride = poolingDesc->stride[1];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetPoolingNdDescriptor(const cudnnPoolingDescriptor_t poolingDesc,
                                                      int nbDimsRequested, cudnnPoolingMode_t *mode,
                                                      cudnnNanPropagation_t *maxpoolingNanOpt,
                                                      int *nbDims, int windowDimA[], int paddingA[],
                                                      int strideA[])
{
    FD_API(NULL);
    FD_TRY(pool_check(poolingDesc));
    FD_CHECK(nbDimsRequested >= 0 && nbDimsRequested <= FD_DIM_MAX - 2, CUDNN_STATUS_BAD_PARAM,
             "nbDimsRequested is %d; it must be in [0, %d]", nbDimsRequested, FD_DIM_MAX - 2);
    FD_CHECK(mode && maxpoolingNanOpt && nbDims, CUDNN_STATUS_BAD_PARAM,
             "mode, maxpoolingNanOpt or nbDims is NULL");
    FD_CHECK(nbDimsRequested == 0 || (windowDimA && paddingA && strideA), CUDNN_STATUS_BAD_PARAM,
             "windowDimA, paddingA or strideA is NULL while nbDimsRequested is %d",
             nbDimsRequested);
    int n = nbDimsRequested < poolingDesc->nb_spatial ? nbDimsRequested : poolingDesc->nb_spatial;
    *mode = poolingDesc->mode;
    *maxpoolingNanOpt = poolingDesc->nan;
    *nbDims = poolingDesc->nb_spatial;
    for (int i = 0; i < n; i++) {
        windowDimA[i] = poolingDesc->win[i];
        paddingA[i] = poolingDesc->pad[i];
        strideA[i] = poolingDesc->stride[i];
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- geometry ------------------------------------------------------------------------------ */

static int64_t floor_div(int64_t a, int64_t b) /* b > 0 */
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* The floor output extent of one spatial dim, with the checks of the output-dim queries. */
static cudnnStatus_t out_extent(const char *xname, int i, int64_t in, int64_t win, int64_t pad,
                                int64_t stride, int64_t *out)
{
    int64_t span = in + 2 * pad; /* the padded (or cropped) extent */
    FD_CHECK(span >= win, CUDNN_STATUS_BAD_PARAM,
             "spatial dim %d: %s is %lld, padded by %lld on each side gives %lld, smaller than the "
             "window %lld",
             i, xname, (long long)in, (long long)pad, (long long)span, (long long)win);
    int64_t o = 1 + floor_div(span - win, stride);
    FD_CHECK(o <= INT_MAX, CUDNN_STATUS_BAD_PARAM,
             "spatial dim %d: the output extent %lld does not fit an int", i, (long long)o);
    *out = o;
    return CUDNN_STATUS_SUCCESS;
}

/* Rank, N and C of x against the descriptor; fills the full output dims (n, c, spatial...). */
static cudnnStatus_t output_dims(cudnnPoolingDescriptor_t desc, cudnnTensorDescriptor_t x,
                                 const char *xname, int64_t *out)
{
    FD_TRY(pool_check(desc));
    FD_TRY(fd_tensor_check(x, xname));
    FD_CHECK(x->nb_dims == desc->nb_spatial + 2, CUDNN_STATUS_BAD_PARAM,
             "%s has %d dims but poolingDesc has %d spatial dims (needs %d)", xname, x->nb_dims,
             desc->nb_spatial, desc->nb_spatial + 2);
    out[0] = x->dim[0];
    out[1] = x->dim[1];
    for (int i = 0; i < desc->nb_spatial; i++)
        FD_TRY(out_extent(xname, i, x->dim[2 + i], desc->win[i], desc->pad[i], desc->stride[i],
                          &out[2 + i]));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetPoolingNdForwardOutputDim(
    const cudnnPoolingDescriptor_t poolingDesc, const cudnnTensorDescriptor_t inputTensorDesc,
    int nbDims, int outputTensorDimA[])
{
    FD_API(NULL);
    FD_CHECK(outputTensorDimA != NULL, CUDNN_STATUS_BAD_PARAM, "outputTensorDimA is NULL");
    int64_t out[FD_DIM_MAX];
    FD_TRY(output_dims(poolingDesc, inputTensorDesc, "inputTensorDesc", out));
    FD_CHECK(nbDims == inputTensorDesc->nb_dims, CUDNN_STATUS_BAD_PARAM,
             "nbDims is %d but inputTensorDesc has %d dims", nbDims, inputTensorDesc->nb_dims);
    for (int i = 0; i < nbDims; i++)
        outputTensorDimA[i] = (int)out[i];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetPooling2dForwardOutputDim(
    const cudnnPoolingDescriptor_t poolingDesc, const cudnnTensorDescriptor_t inputTensorDesc,
    int *n, int *c, int *h, int *w)
{
    FD_API(NULL);
    FD_CHECK(n && c && h && w, CUDNN_STATUS_BAD_PARAM, "an output pointer (n, c, h or w) is NULL");
    FD_TRY(pool_check(poolingDesc));
    FD_CHECK(poolingDesc->nb_spatial == 2, CUDNN_STATUS_BAD_PARAM,
             "poolingDesc has %d spatial dims; cudnnGetPooling2dForwardOutputDim needs a 2-d one",
             poolingDesc->nb_spatial);
    int64_t out[FD_DIM_MAX];
    FD_TRY(output_dims(poolingDesc, inputTensorDesc, "inputTensorDesc", out));
    *n = (int)out[0], *c = (int)out[1], *h = (int)out[2], *w = (int)out[3];
    return CUDNN_STATUS_SUCCESS;
}

/* ---- compute ------------------------------------------------------------------------------- */

static int dtype_computed(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_DOUBLE || dt == CUDNN_DATA_HALF ||
           dt == CUDNN_DATA_BFLOAT16;
}

/* y (or dy) against x: rank, N, C, type, and each spatial extent floor or ceil size. */
static cudnnStatus_t check_pair(cudnnPoolingDescriptor_t desc, cudnnTensorDescriptor_t x,
                                const char *xname, cudnnTensorDescriptor_t y, const char *yname)
{
    int64_t floor_out[FD_DIM_MAX];
    FD_TRY(output_dims(desc, x, xname, floor_out));
    FD_TRY(fd_tensor_check(y, yname));
    FD_CHECK(y->nb_dims == x->nb_dims, CUDNN_STATUS_BAD_PARAM, "%s has %d dims but %s has %d",
             yname, y->nb_dims, xname, x->nb_dims);
    FD_CHECK(y->dim[0] == x->dim[0] && y->dim[1] == x->dim[1], CUDNN_STATUS_BAD_PARAM,
             "%s is %dx%d in N, C but %s is %dx%d; pooling keeps N and C", yname, y->dim[0],
             y->dim[1], xname, x->dim[0], x->dim[1]);
    for (int i = 0; i < desc->nb_spatial; i++) {
        int64_t in = x->dim[2 + i], pad = desc->pad[i], stride = desc->stride[i];
        int64_t fl = floor_out[2 + i], ce = fl;
        /* ceil mode: one more window when the division was inexact and it starts inside the
         * readable input [max(0, -pad), min(in, in + pad)) */
        int64_t hi = pad < 0 ? in + pad : in;
        if ((in + 2 * pad - desc->win[i]) % stride != 0 && fl * stride - pad < hi)
            ce = fl + 1;
        FD_CHECK(y->dim[2 + i] == fl || y->dim[2 + i] == ce, CUDNN_STATUS_BAD_PARAM,
                 "%s spatial dim %d is %d but %s and poolingDesc give %lld (ceil mode: %lld)",
                 yname, i, y->dim[2 + i], xname, (long long)fl, (long long)ce);
    }
    FD_CHECK(y->dtype == x->dtype, CUDNN_STATUS_BAD_PARAM, "%s is %s but %s is %s", yname,
             fd_dtype_name(y->dtype), xname, fd_dtype_name(x->dtype));
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t check_computable(cudnnPoolingDescriptor_t desc, cudnnTensorDescriptor_t t,
                                      const char *name)
{
    FD_CHECK(desc->nb_spatial <= FD_POOL_SPATIAL_MAX, CUDNN_STATUS_NOT_SUPPORTED,
             "%d spatial dims; pooling is implemented for 1, 2 and 3", desc->nb_spatial);
    FD_CHECK(dtype_computed(t->dtype), CUDNN_STATUS_NOT_SUPPORTED,
             "pooling on %s data is not implemented (FLOAT, DOUBLE, HALF and BFLOAT16 are)",
             fd_dtype_name(t->dtype));
    FD_CHECK(!fd_tensor_has_negative_stride(t), CUDNN_STATUS_NOT_SUPPORTED,
             "%s has a negative stride; pooling does not take negative strides", name);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t no_overlap(const struct cudnnTensorStruct *out, const void *op,
                                const char *oname, const struct cudnnTensorStruct *in,
                                const void *ip, const char *iname)
{
    size_t es = fd_dtype_size(out->dtype);
    uintptr_t o0 = (uintptr_t)op, o1 = o0 + (uintptr_t)fd_tensor_extent(out) * es - 1;
    uintptr_t i0 = (uintptr_t)ip, i1 = i0 + (uintptr_t)fd_tensor_extent(in) * es - 1;
    FD_CHECK(o1 < i0 || i1 < o0, CUDNN_STATUS_NOT_SUPPORTED,
             "%s overlaps %s; pooling has no in-place form", oname, iname);
    return CUDNN_STATUS_SUCCESS;
}

/* Strides of t as N, C, D, H, W with `lead` absent leading spatial dims (stride 0). */
static void strides_of(const struct cudnnTensorStruct *t, int lead, int64_t *s)
{
    for (int i = 0; i < 2 + FD_POOL_SPATIAL_MAX; i++) {
        int d = i < 2 ? i : i - lead;
        s[i] = (i < 2 || d >= 2) ? t->stride[d] : 0;
    }
}

static void problem_init(fd_pool_problem_t *p, cudnnPoolingDescriptor_t desc,
                         const struct cudnnTensorStruct *x, const struct cudnnTensorStruct *y)
{
    memset(p, 0, sizeof *p);
    p->nsp = desc->nb_spatial;
    p->mode = desc->mode;
    p->propagate_nan = desc->nan == CUDNN_PROPAGATE_NAN;
    p->dt = x->dtype;
    p->n = x->dim[0];
    p->c = x->dim[1];
    int lead = FD_POOL_SPATIAL_MAX - p->nsp;
    for (int i = 0; i < FD_POOL_SPATIAL_MAX; i++) {
        int s = i - lead;
        p->in[i] = s >= 0 ? x->dim[2 + s] : 1;
        p->out[i] = s >= 0 ? y->dim[2 + s] : 1;
        p->win[i] = s >= 0 ? desc->win[s] : 1;
        p->pad[i] = s >= 0 ? desc->pad[s] : 0;
        p->stride[i] = s >= 0 ? desc->stride[s] : 1;
    }
}

cudnnStatus_t CUDNNWINAPI cudnnPoolingForward(cudnnHandle_t handle,
                                              const cudnnPoolingDescriptor_t poolingDesc,
                                              const void *alpha,
                                              const cudnnTensorDescriptor_t xDesc, const void *x,
                                              const void *beta, const cudnnTensorDescriptor_t yDesc,
                                              void *y)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(pool_check(poolingDesc));
    FD_CHECK(alpha && beta && x && y, CUDNN_STATUS_BAD_PARAM,
             "a data pointer is NULL (alpha %p, beta %p, x %p, y %p)", alpha, beta, x, y);
    FD_TRY(check_pair(poolingDesc, xDesc, "xDesc", yDesc, "yDesc"));
    FD_TRY(check_computable(poolingDesc, xDesc, "xDesc"));
    FD_TRY(check_computable(poolingDesc, yDesc, "yDesc"));
    FD_CHECK(fd_tensor_is_non_overlapping(yDesc), CUDNN_STATUS_BAD_PARAM,
             "yDesc has overlapping strides; an output may not alias itself");
    FD_TRY(no_overlap(yDesc, y, "y", xDesc, x, "x"));

    fd_pool_problem_t p;
    problem_init(&p, poolingDesc, xDesc, yDesc);
    int lead = FD_POOL_SPATIAL_MAX - p.nsp;
    strides_of(xDesc, lead, p.xs);
    strides_of(yDesc, lead, p.ys);
    fd_pool_args_t a = {x, NULL, NULL, y, fd_scale_value(alpha, p.dt), fd_scale_value(beta, p.dt),
                        handle};
    return fd_op_run(handle, FD_OP_POOL_FWD, &p, &a);
}

cudnnStatus_t CUDNNWINAPI cudnnPoolingBackward(
    cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc, const void *alpha,
    const cudnnTensorDescriptor_t yDesc, const void *y, const cudnnTensorDescriptor_t dyDesc,
    const void *dy, const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
    const cudnnTensorDescriptor_t dxDesc, void *dx)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(pool_check(poolingDesc));
    FD_CHECK(alpha && beta && y && dy && x && dx, CUDNN_STATUS_BAD_PARAM,
             "a data pointer is NULL (alpha %p, beta %p, y %p, dy %p, x %p, dx %p)", alpha, beta, y,
             dy, x, dx);
    FD_TRY(check_pair(poolingDesc, xDesc, "xDesc", yDesc, "yDesc"));
    FD_TRY(check_pair(poolingDesc, xDesc, "xDesc", dyDesc, "dyDesc"));
    FD_TRY(fd_tensor_check(dxDesc, "dxDesc"));
    FD_CHECK(dxDesc->nb_dims == xDesc->nb_dims, CUDNN_STATUS_BAD_PARAM,
             "dxDesc has %d dims but xDesc has %d", dxDesc->nb_dims, xDesc->nb_dims);
    for (int i = 0; i < xDesc->nb_dims; i++)
        FD_CHECK(dxDesc->dim[i] == xDesc->dim[i], CUDNN_STATUS_BAD_PARAM,
                 "dxDesc dim %d is %d but xDesc dim %d is %d; dx is shaped like x", i,
                 dxDesc->dim[i], i, xDesc->dim[i]);
    FD_CHECK(dxDesc->dtype == xDesc->dtype, CUDNN_STATUS_BAD_PARAM, "dxDesc is %s but xDesc is %s",
             fd_dtype_name(dxDesc->dtype), fd_dtype_name(xDesc->dtype));
    for (int i = 0; i < yDesc->nb_dims; i++)
        FD_CHECK(yDesc->dim[i] == dyDesc->dim[i], CUDNN_STATUS_BAD_PARAM,
                 "yDesc dim %d is %d but dyDesc dim %d is %d; dy is shaped like y", i,
                 yDesc->dim[i], i, dyDesc->dim[i]);
    FD_TRY(check_computable(poolingDesc, xDesc, "xDesc"));
    FD_TRY(check_computable(poolingDesc, yDesc, "yDesc"));
    FD_TRY(check_computable(poolingDesc, dyDesc, "dyDesc"));
    FD_TRY(check_computable(poolingDesc, dxDesc, "dxDesc"));
    FD_CHECK(fd_tensor_is_non_overlapping(dxDesc), CUDNN_STATUS_BAD_PARAM,
             "dxDesc has overlapping strides; an output may not alias itself");
    FD_TRY(no_overlap(dxDesc, dx, "dx", xDesc, x, "x"));
    FD_TRY(no_overlap(dxDesc, dx, "dx", yDesc, y, "y"));
    FD_TRY(no_overlap(dxDesc, dx, "dx", dyDesc, dy, "dy"));

    fd_pool_problem_t p;
    problem_init(&p, poolingDesc, xDesc, dyDesc);
    int lead = FD_POOL_SPATIAL_MAX - p.nsp;
    strides_of(xDesc, lead, p.xs);
    strides_of(yDesc, lead, p.ys);
    strides_of(dyDesc, lead, p.dys);
    strides_of(dxDesc, lead, p.dxs);
    fd_pool_args_t a = {x, y, dy, dx, fd_scale_value(alpha, p.dt), fd_scale_value(beta, p.dt),
                        handle};
    return fd_op_run(handle, FD_OP_POOL_BWD, &p, &a);
}
