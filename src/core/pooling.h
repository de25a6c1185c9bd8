/* SPDX-License-Identifier: MIT */
/*
 * pooling.h - the pooling descriptor behind cudnnPoolingDescriptor_t, and the flat problem
 * that cudnnPoolingForward / cudnnPoolingBackward hand to the implementations (FD_OP_POOL_FWD,
 * FD_OP_POOL_BWD in src/impls.def).
 *
 * Geometry, the same in every mode, per spatial dim (decisions of contract §4.6, documented in
 * src/api/pooling.c):
 *   - output o covers the window positions [o*stride - pad, o*stride - pad + win);
 *   - the READABLE range of x is [max(0, -pad), min(in, in + pad)): the input itself, cropped
 *     by a negative pad ("negative pad = crop"); positive pad adds virtual positions that are
 *     never read;
 *   - MAX / MAX_DETERMINISTIC: maximum over the readable positions of the window, starting
 *     from -(largest finite value of the storage type); NaN per the NaN option (contract §1.7);
 *   - AVERAGE_COUNT_INCLUDE_PADDING: sum of the readable positions divided by the number of
 *     window positions inside the padded span [-pad, in + pad);
 *   - AVERAGE_COUNT_EXCLUDE_PADDING: the same sum divided by the number of readable positions
 *     (a window with none gives 0).
 * The NaN option matters to the max modes only; an average carries NaN and inf arithmetically.
 * y may have the floor output size or the "ceil mode" size (src/api/pooling.c); the last
 * window of the latter may run past the padded span, which the counts above account for.
 */
#ifndef FD_CORE_POOLING_H_
#define FD_CORE_POOLING_H_

#include "fd.h"

#define FD_MAGIC_POOL 0x50444e46u /* "FNDP" */
#define FD_POOL_SPATIAL_MAX 3     /* pooling computes 1d, 2d and 3d */

struct cudnnPoolingStruct {
    uint32_t magic;
    int nb_spatial; /* nbDims of the last successful set; 0 until set */
    cudnnPoolingMode_t mode;
    cudnnNanPropagation_t nan;
    int win[FD_DIM_MAX - 2];
    int pad[FD_DIM_MAX - 2];
    int stride[FD_DIM_MAX - 2];
};

/* One pooling call. Spatial arrays are padded to 3 entries with leading (in 1, out 1, win 1,
 * pad 0, stride 1) so the implementations always loop over D, H, W. Strides are in elements,
 * in the order N, C, D, H, W (0 for an absent leading dim). */
typedef struct fd_pool_problem {
    int nsp; /* spatial dims of the descriptors: 1, 2 or 3 */
    cudnnPoolingMode_t mode;
    int propagate_nan;  /* maxpoolingNanOpt == CUDNN_PROPAGATE_NAN */
    cudnnDataType_t dt; /* every tensor of the call has this storage type */
    int64_t n, c;
    int64_t in[FD_POOL_SPATIAL_MAX], out[FD_POOL_SPATIAL_MAX];
    int64_t win[FD_POOL_SPATIAL_MAX], pad[FD_POOL_SPATIAL_MAX], stride[FD_POOL_SPATIAL_MAX];
    int64_t xs[2 + FD_POOL_SPATIAL_MAX];  /* x */
    int64_t ys[2 + FD_POOL_SPATIAL_MAX];  /* y (forward output; backward: validated, unread) */
    int64_t dys[2 + FD_POOL_SPATIAL_MAX]; /* dy (backward only) */
    int64_t dxs[2 + FD_POOL_SPATIAL_MAX]; /* dx (backward only) */
} fd_pool_problem_t;

/* Forward: x -> y. Backward: x, dy -> dx (y is not read: the argmax is recomputed from x). */
typedef struct fd_pool_args {
    const void *x, *y, *dy;
    void *out; /* y for forward, dx for backward */
    double alpha, beta;
    cudnnHandle_t handle; /* its stream, on cuda */
} fd_pool_args_t;

#endif /* FD_CORE_POOLING_H_ */
