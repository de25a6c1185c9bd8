/* SPDX-License-Identifier: MIT */
/*
 * softmax.h - the flat softmax problems (cudnnSoftmaxForward / cudnnSoftmaxBackward).
 *
 * A "row" is the set of elements one softmax normalises: for CUDNN_SOFTMAX_MODE_INSTANCE every
 * dim but N (one row per n), for CUDNN_SOFTMAX_MODE_CHANNEL dim 1 (one row per n and spatial
 * position). The problems keep validated copies of the descriptors (same dims, same dtype, 4 or
 * 5 dims, non-negative strides); implementations index through their strides.
 */
#ifndef FD_CORE_SOFTMAX_H_
#define FD_CORE_SOFTMAX_H_

#include "fd.h"

/* Forward: y = alpha * softmax(x) + beta * y. FAST is computed like ACCURATE (max subtracted),
 * which is allowed: FAST may be more accurate than cuDNN's, never less (contract §1.8). */
typedef struct fd_softmax_fwd_problem {
    cudnnSoftmaxAlgorithm_t algo;
    cudnnSoftmaxMode_t mode;
    struct cudnnTensorStruct x, y;
} fd_softmax_fwd_problem_t;
typedef struct fd_softmax_fwd_args {
    const void *x;
    void *y; /* may equal x (same strides) */
    double alpha, beta;
    cudnnHandle_t handle; /* its stream, on cuda */
} fd_softmax_fwd_args_t;

/* Backward, from the forward output y: ACCURATE/FAST dx = y * (dy - sum(dy * y)),
 * LOG dx = dy - exp(y) * sum(dy) (sums over the row); dx = alpha * that + beta * dx. */
typedef struct fd_softmax_bwd_problem {
    cudnnSoftmaxAlgorithm_t algo;
    cudnnSoftmaxMode_t mode;
    struct cudnnTensorStruct y, dy, dx;
} fd_softmax_bwd_problem_t;
typedef struct fd_softmax_bwd_args {
    const void *y, *dy;
    void *dx; /* may equal dy or y (same strides) */
    double alpha, beta;
    cudnnHandle_t handle; /* its stream, on cuda */
} fd_softmax_bwd_args_t;

#endif /* FD_CORE_SOFTMAX_H_ */
