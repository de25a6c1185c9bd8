/* SPDX-License-Identifier: MIT */
/*
 * spatial_tf.c - the spatial transformer: descriptor create/set/destroy, the affine grid
 * generator (forward, backward) and the bilinear sampler (forward, backward). What each call
 * computes is defined in src/core/spatial_tf.h.
 *
 * Validation (cuDNN documents BAD_PARAM for NULL handle/pointers and NOT_SUPPORTED for a
 * transformed tensor that is not 4-d; the rest is decided here, in the style of contract §1.2):
 *   - setter: samplerType other than BILINEAR, an invalid dataType enum, nbDims < 1, dimA NULL,
 *     a dim <= 0 are BAD_PARAM; nbDims != 4 and more than 2^31 - 1 elements in the output or the
 *     grid are NOT_SUPPORTED. Any valid dataType is accepted here; the compute calls take
 *     FLOAT, DOUBLE, HALF and BFLOAT16 (NOT_SUPPORTED otherwise). A rejected set changes nothing.
 *   - compute: x/dx must be 4-d with N and C of the descriptor, y/dy exactly the descriptor's
 *     dims, and every tensor of the descriptor's type (BAD_PARAM otherwise); negative strides
 *     and an output overlapping an input or another output are NOT_SUPPORTED (no in-place form);
 *     an output whose strides overlap itself is BAD_PARAM.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../core/op.h"
#include "../core/spatial_tf.h"

cudnnStatus_t CUDNNWINAPI
cudnnCreateSpatialTransformerDescriptor(cudnnSpatialTransformerDescriptor_t *stDesc)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(stDesc);
    struct cudnnSpatialTransformerStruct *d = calloc(1, sizeof *d);
    FD_CHECK(d != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
             "cannot allocate a spatial transformer descriptor (%zu bytes)", sizeof *d);
    d->magic = FD_MAGIC_STF;
    d->sampler = CUDNN_SAMPLER_BILINEAR;
    d->dtype = CUDNN_DATA_FLOAT;
    *stDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI
cudnnDestroySpatialTransformerDescriptor(cudnnSpatialTransformerDescriptor_t stDesc)
{
    FD_API(NULL);
    if (stDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    FD_CHECK(stDesc->magic == FD_MAGIC_STF, CUDNN_STATUS_BAD_PARAM,
             "stDesc %p is not a live spatial transformer descriptor", (void *)stDesc);
    stDesc->magic = 0;
    free(stDesc);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t stf_live(cudnnSpatialTransformerDescriptor_t d)
{
    FD_CHECK(d != NULL, CUDNN_STATUS_BAD_PARAM, "stDesc is NULL");
    FD_CHECK(d->magic == FD_MAGIC_STF, CUDNN_STATUS_BAD_PARAM,
             "stDesc (%p) is not a live spatial transformer descriptor", (void *)d);
    return CUDNN_STATUS_SUCCESS;
}

/* Live, set, and of a type the compute calls take. */
static cudnnStatus_t stf_check(cudnnSpatialTransformerDescriptor_t d)
{
    FD_TRY(stf_live(d));
    FD_CHECK(
        d->is_set, CUDNN_STATUS_BAD_PARAM,
        "stDesc was created but never set (call cudnnSetSpatialTransformerNdDescriptor first)");
    FD_CHECK(d->dtype == CUDNN_DATA_FLOAT || d->dtype == CUDNN_DATA_DOUBLE ||
                 d->dtype == CUDNN_DATA_HALF || d->dtype == CUDNN_DATA_BFLOAT16,
             CUDNN_STATUS_NOT_SUPPORTED,
             "stDesc is %s; the spatial transformer is implemented for FLOAT, DOUBLE, HALF and "
             "BFLOAT16",
             fd_dtype_name(d->dtype));
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetSpatialTransformerNdDescriptor(
    cudnnSpatialTransformerDescriptor_t stDesc, cudnnSamplerType_t samplerType,
    cudnnDataType_t dataType, const int nbDims, const int dimA[])
{
    FD_API(NULL);
    FD_TRY(stf_live(stDesc));
    FD_CHECK(samplerType == CUDNN_SAMPLER_BILINEAR, CUDNN_STATUS_BAD_PARAM,
             "samplerType %d is not a cudnnSamplerType_t value (CUDNN_SAMPLER_BILINEAR = 0)",
             (int)samplerType);
    FD_CHECK(fd_dtype_is_valid(dataType), CUDNN_STATUS_BAD_PARAM,
             "dataType %d is not a cudnnDataType_t value", (int)dataType);
    FD_CHECK(nbDims >= 1, CUDNN_STATUS_BAD_PARAM, "nbDims is %d; it must be 4", nbDims);
    FD_CHECK(dimA != NULL, CUDNN_STATUS_BAD_PARAM, "dimA is NULL");
    FD_CHECK(nbDims == 4, CUDNN_STATUS_NOT_SUPPORTED,
             "nbDims is %d; the spatial transformer takes 4-d (N, C, H, W) tensors only", nbDims);
    for (int i = 0; i < 4; i++)
        FD_CHECK(dimA[i] > 0, CUDNN_STATUS_BAD_PARAM, "dimA[%d] is %d; dims must be positive", i,
                 dimA[i]);
    int64_t out = (int64_t)dimA[0] * dimA[1] * dimA[2] * dimA[3];
    int64_t grid = (int64_t)dimA[0] * dimA[2] * dimA[3] * 2;
    FD_CHECK(out <= INT_MAX && grid <= INT_MAX, CUDNN_STATUS_NOT_SUPPORTED,
             "%dx%dx%dx%d gives %lld output and %lld grid elements; at most 2^31 - 1 each", dimA[0],
             dimA[1], dimA[2], dimA[3], (long long)out, (long long)grid);
    stDesc->sampler = samplerType;
    stDesc->dtype = dataType;
    for (int i = 0; i < 4; i++)
        stDesc->dim[i] = dimA[i];
    stDesc->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- helpers ------------------------------------------------------------------------------- */

/* 1 when the byte ranges [a, a + na*es) and [b, b + nb*es) share a byte. */
static int overlaps(const void *a, int64_t na, const void *b, int64_t nb, size_t es)
{
    uintptr_t a0 = (uintptr_t)a, a1 = a0 + (uintptr_t)na * es;
    uintptr_t b0 = (uintptr_t)b, b1 = b0 + (uintptr_t)nb * es;
    return a0 < b1 && b0 < a1;
}

static int64_t grid_elems(cudnnSpatialTransformerDescriptor_t d)
{
    return (int64_t)d->dim[0] * d->dim[2] * d->dim[3] * 2;
}

/* A 4-d tensor of the descriptor's type and without negative strides; N and C (and H, W when
 * full) as the descriptor's. */
static cudnnStatus_t check_tensor(cudnnSpatialTransformerDescriptor_t d, cudnnTensorDescriptor_t t,
                                  const char *name, int full)
{
    FD_TRY(fd_tensor_check(t, name));
    FD_CHECK(t->nb_dims == 4, CUDNN_STATUS_BAD_PARAM,
             "%s has %d dims; the spatial transformer "
             "takes 4-d tensors",
             name, t->nb_dims);
    FD_CHECK(t->dim[0] == d->dim[0] && t->dim[1] == d->dim[1], CUDNN_STATUS_BAD_PARAM,
             "%s is %dx%d in N, C but stDesc says %dx%d", name, t->dim[0], t->dim[1], d->dim[0],
             d->dim[1]);
    if (full)
        FD_CHECK(t->dim[2] == d->dim[2] && t->dim[3] == d->dim[3], CUDNN_STATUS_BAD_PARAM,
                 "%s is %dx%dx%dx%d but stDesc describes the transformed tensor as %dx%dx%dx%d",
                 name, t->dim[0], t->dim[1], t->dim[2], t->dim[3], d->dim[0], d->dim[1], d->dim[2],
                 d->dim[3]);
    FD_CHECK(t->dtype == d->dtype, CUDNN_STATUS_BAD_PARAM, "%s is %s but stDesc is %s", name,
             fd_dtype_name(t->dtype), fd_dtype_name(d->dtype));
    FD_CHECK(!fd_tensor_has_negative_stride(t), CUDNN_STATUS_NOT_SUPPORTED,
             "%s has a negative stride; the spatial transformer does not take negative strides",
             name);
    return CUDNN_STATUS_SUCCESS;
}

static void strides_of(const struct cudnnTensorStruct *t, int64_t *s)
{
    for (int i = 0; i < 4; i++)
        s[i] = t->stride[i];
}

/* ---- grid generator ------------------------------------------------------------------------ */

static cudnnStatus_t grid_run(cudnnHandle_t handle, cudnnSpatialTransformerDescriptor_t d,
                              fd_op_t op, const void *in, const char *iname, void *out,
                              const char *oname)
{
    FD_TRY(fd_handle_check(handle));
    FD_TRY(stf_check(d));
    FD_CHECK(in != NULL && out != NULL, CUDNN_STATUS_BAD_PARAM, "%s (%p) or %s (%p) is NULL", iname,
             in, oname, out);
    int64_t theta = (int64_t)d->dim[0] * 6, grid = grid_elems(d);
    int64_t n_in = op == FD_OP_SPATIAL_TF_GRID_FWD ? theta : grid;
    int64_t n_out = op == FD_OP_SPATIAL_TF_GRID_FWD ? grid : theta;
    FD_CHECK(!overlaps(in, n_in, out, n_out, fd_dtype_size(d->dtype)), CUDNN_STATUS_NOT_SUPPORTED,
             "%s overlaps %s; the grid generator has no in-place form", oname, iname);
    fd_stf_grid_problem_t p = {d->dtype, d->dim[0], d->dim[2], d->dim[3]};
    fd_stf_grid_args_t a = {handle, in, out};
    return fd_op_run(handle, op, &p, &a);
}

cudnnStatus_t CUDNNWINAPI cudnnSpatialTfGridGeneratorForward(
    cudnnHandle_t handle, const cudnnSpatialTransformerDescriptor_t stDesc, const void *theta,
    void *grid)
{
    FD_API(handle);
    return grid_run(handle, stDesc, FD_OP_SPATIAL_TF_GRID_FWD, theta, "theta", grid, "grid");
}

cudnnStatus_t CUDNNWINAPI cudnnSpatialTfGridGeneratorBackward(
    cudnnHandle_t handle, const cudnnSpatialTransformerDescriptor_t stDesc, const void *dgrid,
    void *dtheta)
{
    FD_API(handle);
    return grid_run(handle, stDesc, FD_OP_SPATIAL_TF_GRID_BWD, dgrid, "dgrid", dtheta, "dtheta");
}

/* ---- sampler ------------------------------------------------------------------------------- */

/* An output (tensor) against an input: NOT_SUPPORTED when their addressed spans share a byte. */
static cudnnStatus_t apart(const void *o, int64_t no, const char *oname, const void *i, int64_t ni,
                           const char *iname, size_t es)
{
    FD_CHECK(!overlaps(o, no, i, ni, es), CUDNN_STATUS_NOT_SUPPORTED,
             "%s overlaps %s; the sampler has no in-place form", oname, iname);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSpatialTfSamplerForward(
    cudnnHandle_t handle, cudnnSpatialTransformerDescriptor_t stDesc, const void *alpha,
    const cudnnTensorDescriptor_t xDesc, const void *x, const void *grid, const void *beta,
    cudnnTensorDescriptor_t yDesc, void *y)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(stf_check(stDesc));
    FD_CHECK(alpha && beta && x && grid && y, CUDNN_STATUS_BAD_PARAM,
             "a data pointer is NULL (alpha %p, beta %p, x %p, grid %p, y %p)", alpha, beta, x,
             grid, y);
    FD_TRY(check_tensor(stDesc, xDesc, "xDesc", 0));
    FD_TRY(check_tensor(stDesc, yDesc, "yDesc", 1));
    FD_CHECK(fd_tensor_is_non_overlapping(yDesc), CUDNN_STATUS_BAD_PARAM,
             "yDesc has overlapping strides; an output may not alias itself");
    size_t es = fd_dtype_size(stDesc->dtype);
    int64_t ny = fd_tensor_extent(yDesc);
    FD_TRY(apart(y, ny, "y", x, fd_tensor_extent(xDesc), "x", es));
    FD_TRY(apart(y, ny, "y", grid, grid_elems(stDesc), "grid", es));

    fd_stf_sampler_problem_t p;
    memset(&p, 0, sizeof p);
    p.dt = stDesc->dtype;
    p.n = xDesc->dim[0], p.c = xDesc->dim[1];
    p.hi = xDesc->dim[2], p.wi = xDesc->dim[3];
    p.ho = yDesc->dim[2], p.wo = yDesc->dim[3];
    strides_of(xDesc, p.xs);
    strides_of(yDesc, p.ys);
    fd_stf_sampler_args_t a = {.handle = handle,
                               .x = x,
                               .grid = grid,
                               .y = y,
                               .alpha = fd_scale_value(alpha, p.dt),
                               .beta = fd_scale_value(beta, p.dt)};
    return fd_op_run(handle, FD_OP_SPATIAL_TF_SAMPLER_FWD, &p, &a);
}

cudnnStatus_t CUDNNWINAPI
cudnnSpatialTfSamplerBackward(cudnnHandle_t handle, cudnnSpatialTransformerDescriptor_t stDesc,
                              const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
                              const void *beta, const cudnnTensorDescriptor_t dxDesc, void *dx,
                              const void *alphaDgrid, const cudnnTensorDescriptor_t dyDesc,
                              const void *dy, const void *grid, const void *betaDgrid, void *dgrid)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(stf_check(stDesc));
    FD_CHECK(alpha && beta && alphaDgrid && betaDgrid, CUDNN_STATUS_BAD_PARAM,
             "a scaling pointer is NULL (alpha %p, beta %p, alphaDgrid %p, betaDgrid %p)", alpha,
             beta, alphaDgrid, betaDgrid);
    FD_CHECK(x && dx && dy && grid && dgrid, CUDNN_STATUS_BAD_PARAM,
             "a data pointer is NULL (x %p, dx %p, dy %p, grid %p, dgrid %p)", x, dx, dy, grid,
             dgrid);
    FD_TRY(check_tensor(stDesc, xDesc, "xDesc", 0));
    FD_TRY(check_tensor(stDesc, dxDesc, "dxDesc", 0));
    FD_CHECK(dxDesc->dim[2] == xDesc->dim[2] && dxDesc->dim[3] == xDesc->dim[3],
             CUDNN_STATUS_BAD_PARAM,
             "dxDesc is %dx%d in H, W but xDesc is %dx%d; dx is shaped like x", dxDesc->dim[2],
             dxDesc->dim[3], xDesc->dim[2], xDesc->dim[3]);
    FD_TRY(check_tensor(stDesc, dyDesc, "dyDesc", 1));
    FD_CHECK(fd_tensor_is_non_overlapping(dxDesc), CUDNN_STATUS_BAD_PARAM,
             "dxDesc has overlapping strides; an output may not alias itself");
    size_t es = fd_dtype_size(stDesc->dtype);
    int64_t nx = fd_tensor_extent(xDesc), ndx = fd_tensor_extent(dxDesc);
    int64_t ndy = fd_tensor_extent(dyDesc), ng = grid_elems(stDesc);
    FD_TRY(apart(dx, ndx, "dx", x, nx, "x", es));
    FD_TRY(apart(dx, ndx, "dx", dy, ndy, "dy", es));
    FD_TRY(apart(dx, ndx, "dx", grid, ng, "grid", es));
    FD_TRY(apart(dx, ndx, "dx", dgrid, ng, "dgrid", es));
    FD_TRY(apart(dgrid, ng, "dgrid", x, nx, "x", es));
    FD_TRY(apart(dgrid, ng, "dgrid", dy, ndy, "dy", es));
    FD_TRY(apart(dgrid, ng, "dgrid", grid, ng, "grid", es));

    fd_stf_sampler_problem_t p;
    memset(&p, 0, sizeof p);
    p.dt = stDesc->dtype;
    p.n = xDesc->dim[0], p.c = xDesc->dim[1];
    p.hi = xDesc->dim[2], p.wi = xDesc->dim[3];
    p.ho = dyDesc->dim[2], p.wo = dyDesc->dim[3];
    strides_of(xDesc, p.xs);
    strides_of(dyDesc, p.ys);
    strides_of(dxDesc, p.dxs);
    fd_stf_sampler_args_t a = {.handle = handle,
                               .x = x,
                               .grid = grid,
                               .dy = dy,
                               .dx = dx,
                               .dgrid = dgrid,
                               .alpha = fd_scale_value(alpha, p.dt),
                               .beta = fd_scale_value(beta, p.dt),
                               .alpha_dgrid = fd_scale_value(alphaDgrid, p.dt),
                               .beta_dgrid = fd_scale_value(betaDgrid, p.dt)};
    return fd_op_run(handle, FD_OP_SPATIAL_TF_SAMPLER_BWD, &p, &a);
}
