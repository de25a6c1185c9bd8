/* SPDX-License-Identifier: MIT */
/*
 * dropout.c - dropout descriptors, the states and reserve-space sizes, forward and backward.
 *
 * The states buffer holds a seed and a call counter (docs/dropout.md); the mask of a forward
 * call is a function of (seed, counter, element index) only, so all backends agree bit for
 * bit. Decisions where cuDNN 9.19 is silent or unsafe:
 *  - p outside [0, 1] (or NaN) is BAD_PARAM (9.19 accepts it; contract §4.6).
 *  - Set with states == NULL only updates p, as cuDNN documents; seed and stateSizeInBytes are
 *    then ignored and the previous states (if any) stay attached.
 *  - Restore attaches a states buffer without touching it; like cuDNN, the seed argument does
 *    not change the generator (the states carry their own seed); Get reports it.
 *  - x and y (dy and dx) may have different dims with the same element count (cuDNN checks
 *    the count); elements pair by canonical index. Aliasing is allowed only as exact in-place
 *    (same pointer, dims and strides).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/dropout.h"
#include "../core/op.h"

cudnnStatus_t fd_dropout_desc_check(cudnnDropoutDescriptor_t desc, const char *name)
{
    FD_CHECK(desc != NULL, CUDNN_STATUS_BAD_PARAM, "%s is NULL", name);
    FD_CHECK(desc->magic == FD_MAGIC_DROPOUT, CUDNN_STATUS_BAD_PARAM,
             "%s (%p) is not a live dropout descriptor", name, (void *)desc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnCreateDropoutDescriptor(cudnnDropoutDescriptor_t *dropoutDesc)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(dropoutDesc);
    struct cudnnDropoutStruct *d = calloc(1, sizeof *d);
    FD_CHECK(d != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
             "cannot allocate a dropout descriptor (%zu bytes)", sizeof *d);
    d->magic = FD_MAGIC_DROPOUT;
    *dropoutDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc)
{
    FD_API(NULL);
    if (dropoutDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    FD_TRY(fd_dropout_desc_check(dropoutDesc, "dropoutDesc"));
    dropoutDesc->magic = 0;
    free(dropoutDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnDropoutGetStatesSize(cudnnHandle_t handle, size_t *sizeInBytes)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK_NOT_NULL(sizeInBytes);
    *sizeInBytes = FD_DROPOUT_STATES_SIZE;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnDropoutGetReserveSpaceSize(cudnnTensorDescriptor_t xdesc,
                                                          size_t *sizeInBytes)
{
    FD_API(NULL);
    FD_TRY(fd_tensor_check(xdesc, "xdesc"));
    FD_CHECK_NOT_NULL(sizeInBytes);
    *sizeInBytes = (size_t)fd_tensor_elements(xdesc); /* one mask byte per element */
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t check_probability(float dropout)
{
    FD_CHECK(dropout >= 0.0f && dropout <= 1.0f, CUDNN_STATUS_BAD_PARAM,
             "dropout probability is %g; it must lie in [0, 1]", (double)dropout);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc,
                                                    cudnnHandle_t handle, float dropout,
                                                    void *states, size_t stateSizeInBytes,
                                                    unsigned long long seed)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(fd_dropout_desc_check(dropoutDesc, "dropoutDesc"));
    FD_TRY(check_probability(dropout));
    if (states == NULL) { /* cuDNN: "only the dropout value will be set" */
        dropoutDesc->p = dropout;
        return CUDNN_STATUS_SUCCESS;
    }
    FD_CHECK(stateSizeInBytes >= FD_DROPOUT_STATES_SIZE, CUDNN_STATUS_BAD_PARAM,
             "stateSizeInBytes is %zu; cudnnDropoutGetStatesSize asks for %d", stateSizeInBytes,
             FD_DROPOUT_STATES_SIZE);
    fd_dropout_problem_t p = {.kind = FD_DROPOUT_INIT};
    fd_dropout_args_t a = {.states = states, .seed = seed, .handle = handle};
    FD_TRY(fd_op_run(handle, FD_OP_DROPOUT_INIT, &p, &a));
    dropoutDesc->p = dropout;
    dropoutDesc->states = states;
    dropoutDesc->states_size = stateSizeInBytes;
    dropoutDesc->seed = seed;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnRestoreDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc,
                                                        cudnnHandle_t handle, float dropout,
                                                        void *states, size_t stateSizeInBytes,
                                                        unsigned long long seed)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(fd_dropout_desc_check(dropoutDesc, "dropoutDesc"));
    FD_TRY(check_probability(dropout));
    FD_CHECK(states != NULL, CUDNN_STATUS_BAD_PARAM,
             "states is NULL; cudnnRestoreDropoutDescriptor attaches an initialised states buffer");
    FD_CHECK(stateSizeInBytes >= FD_DROPOUT_STATES_SIZE, CUDNN_STATUS_BAD_PARAM,
             "stateSizeInBytes is %zu; cudnnDropoutGetStatesSize asks for %d", stateSizeInBytes,
             FD_DROPOUT_STATES_SIZE);
    dropoutDesc->p = dropout;
    dropoutDesc->states = states;
    dropoutDesc->states_size = stateSizeInBytes;
    dropoutDesc->seed = seed;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc,
                                                    cudnnHandle_t handle, float *dropout,
                                                    void **states, unsigned long long *seed)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(fd_dropout_desc_check(dropoutDesc, "dropoutDesc"));
    FD_CHECK(dropout != NULL && states != NULL && seed != NULL, CUDNN_STATUS_BAD_PARAM,
             "an output pointer is NULL (dropout %p, states %p, seed %p)", (void *)dropout,
             (void *)states, (void *)seed);
    *dropout = dropoutDesc->p;
    *states = dropoutDesc->states;
    *seed = dropoutDesc->seed;
    return CUDNN_STATUS_SUCCESS;
}

/* Bytes [lo, hi] addressed by a tensor at p (strides are non-negative here). */
static void span_of(const struct cudnnTensorStruct *t, const void *p, uintptr_t *lo, uintptr_t *hi)
{
    *lo = (uintptr_t)p;
    *hi = *lo + (uintptr_t)fd_tensor_extent(t) * fd_dtype_size(t->dtype) - 1;
}

static int same_layout(const struct cudnnTensorStruct *a, const struct cudnnTensorStruct *b)
{
    if (a->nb_dims != b->nb_dims)
        return 0;
    for (int i = 0; i < a->nb_dims; i++)
        if (a->dim[i] != b->dim[i] || a->stride[i] != b->stride[i])
            return 0;
    return 1;
}

/* Everything forward and backward check alike; fills the problem. */
static cudnnStatus_t dropout_problem(cudnnHandle_t handle, cudnnDropoutDescriptor_t desc,
                                     cudnnTensorDescriptor_t inDesc, const void *in,
                                     cudnnTensorDescriptor_t outDesc, void *out, void *reserve,
                                     size_t reserve_size, const char *const names[4],
                                     fd_dropout_kind_t kind, fd_dropout_problem_t *p)
{
    FD_TRY(fd_handle_check(handle));
    FD_TRY(fd_dropout_desc_check(desc, "dropoutDesc"));
    FD_TRY(fd_tensor_check(inDesc, names[0]));
    FD_TRY(fd_tensor_check(outDesc, names[1]));
    FD_CHECK(in != NULL && out != NULL && reserve != NULL, CUDNN_STATUS_BAD_PARAM,
             "a data pointer is NULL (%s %p, %s %p, reserveSpace %p)", names[2], in, names[3], out,
             reserve);
    int64_t count = fd_tensor_elements(inDesc);
    FD_CHECK(count == fd_tensor_elements(outDesc), CUDNN_STATUS_BAD_PARAM,
             "%s has %lld elements but %s has %lld", names[0], (long long)count, names[1],
             (long long)fd_tensor_elements(outDesc));
    FD_CHECK(inDesc->dtype == outDesc->dtype, CUDNN_STATUS_BAD_PARAM, "%s is %s but %s is %s",
             names[0], fd_dtype_name(inDesc->dtype), names[1], fd_dtype_name(outDesc->dtype));
    cudnnDataType_t dt = inDesc->dtype;
    FD_CHECK(dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_DOUBLE || dt == CUDNN_DATA_HALF ||
                 dt == CUDNN_DATA_BFLOAT16,
             CUDNN_STATUS_NOT_SUPPORTED, "dropout on %s data is not implemented",
             fd_dtype_name(dt));
    FD_CHECK(!fd_tensor_has_negative_stride(inDesc) && !fd_tensor_has_negative_stride(outDesc),
             CUDNN_STATUS_NOT_SUPPORTED, "negative strides are not supported by dropout");
    FD_CHECK(fd_tensor_is_non_overlapping(outDesc), CUDNN_STATUS_BAD_PARAM,
             "%s has overlapping strides; an output may not address an element twice", names[1]);
    size_t need = (size_t)count;
    FD_CHECK(reserve_size >= need, CUDNN_STATUS_BAD_PARAM,
             "reserveSpaceSizeInBytes is %zu; cudnnDropoutGetReserveSpaceSize gives %zu",
             reserve_size, need);
    uintptr_t a0, a1, b0, b1, r0 = (uintptr_t)reserve, r1 = r0 + need - 1;
    span_of(inDesc, in, &a0, &a1);
    span_of(outDesc, out, &b0, &b1);
    if (in == out)
        FD_CHECK(same_layout(inDesc, outDesc), CUDNN_STATUS_BAD_PARAM,
                 "in-place dropout (%s == %s) needs identical dims and strides", names[3],
                 names[2]);
    else
        FD_CHECK(!(a0 <= b1 && b0 <= a1), CUDNN_STATUS_BAD_PARAM, "%s overlaps %s", names[3],
                 names[2]);
    FD_CHECK(!(r0 <= b1 && b0 <= r1) && !(r0 <= a1 && a0 <= r1), CUDNN_STATUS_BAD_PARAM,
             "reserveSpace overlaps %s or %s", names[2], names[3]);
    if (kind == FD_DROPOUT_FORWARD)
        FD_CHECK(
            desc->states != NULL, CUDNN_STATUS_BAD_PARAM,
            "dropoutDesc has no states: call cudnnSetDropoutDescriptor with a states buffer first");
    if (desc->states != NULL) {
        uintptr_t s0 = (uintptr_t)desc->states, s1 = s0 + FD_DROPOUT_STATES_SIZE - 1;
        FD_CHECK(!(s0 <= b1 && b0 <= s1) && !(s0 <= r1 && r0 <= s1) && !(s0 <= a1 && a0 <= s1),
                 CUDNN_STATUS_BAD_PARAM,
                 "the dropout states buffer overlaps a tensor or the reserve space");
    }
    float prob = desc->p;
    double scale = 0.0;
    if (prob < 1.0f) {
        scale = 1.0 / (1.0 - (double)prob);
        if (dt != CUDNN_DATA_DOUBLE)
            scale = (double)(float)scale; /* what a float kernel multiplies by */
    }
    *p = (fd_dropout_problem_t){.kind = kind,
                                .threshold = fd_dropout_threshold(prob),
                                .scale = scale,
                                .count = count,
                                .in = *inDesc,
                                .out = *outDesc};
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnDropoutForward(cudnnHandle_t handle,
                                              const cudnnDropoutDescriptor_t dropoutDesc,
                                              const cudnnTensorDescriptor_t xdesc, const void *x,
                                              const cudnnTensorDescriptor_t ydesc, void *y,
                                              void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    FD_API(handle);
    static const char *const names[4] = {"xdesc", "ydesc", "x", "y"};
    fd_dropout_problem_t p;
    FD_TRY(dropout_problem(handle, dropoutDesc, xdesc, x, ydesc, y, reserveSpace,
                           reserveSpaceSizeInBytes, names, FD_DROPOUT_FORWARD, &p));
    fd_dropout_args_t a = {
        .states = dropoutDesc->states, .in = x, .out = y, .reserve = reserveSpace, .handle = handle};
    return fd_op_run(handle, FD_OP_DROPOUT_FWD, &p, &a);
}

cudnnStatus_t CUDNNWINAPI cudnnDropoutBackward(cudnnHandle_t handle,
                                               const cudnnDropoutDescriptor_t dropoutDesc,
                                               const cudnnTensorDescriptor_t dydesc, const void *dy,
                                               const cudnnTensorDescriptor_t dxdesc, void *dx,
                                               void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    FD_API(handle);
    static const char *const names[4] = {"dydesc", "dxdesc", "dy", "dx"};
    fd_dropout_problem_t p;
    FD_TRY(dropout_problem(handle, dropoutDesc, dydesc, dy, dxdesc, dx, reserveSpace,
                           reserveSpaceSizeInBytes, names, FD_DROPOUT_BACKWARD, &p));
    fd_dropout_args_t a = {
        .states = dropoutDesc->states, .in = dy, .out = dx, .reserve = reserveSpace, .handle = handle};
    return fd_op_run(handle, FD_OP_DROPOUT_BWD, &p, &a);
}
