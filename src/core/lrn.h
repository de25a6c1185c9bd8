/* SPDX-License-Identifier: MIT */
/*
 * lrn.h - the LRN descriptor and the flat problems of cross-channel LRN and divisive
 * normalization (forward and backward).
 *
 * With lb = floor((n - 1) / 2) and la = n - 1 - lb, a window around index i spans
 * [i - lb, i + la]; elements outside the tensor count as zero while the divisor keeps n.
 *   cross-channel LRN:  y_c = x_c * s_c^-beta,  s_c = k + alpha / n * sum_{j in W(c)} x_j^2
 *                       (window over dim 1, separately for every n and spatial position)
 *   divisive norm.:     y_i = t_i * s_i^-beta,  t = x - means (means NULL: zero),
 *                       s_i = k + alpha / n^d * sum_{j in W(i)} t_j^2
 *                       (window of n in each of the d = nbDims - 2 spatial dims, per n and c)
 * cuDNN documents the window and the alpha / n resp. alpha / n^d scaling (cudnnSetLRNDescriptor);
 * the subtraction of the means inside divisive normalization is our reading of its
 * PRECOMPUTED_MEANS text (see src/api/lrn.c).
 */
#ifndef FD_CORE_LRN_H_
#define FD_CORE_LRN_H_

#include "fd.h"

#define FD_MAGIC_LRN 0x4e524c46u /* "FLRN" */

struct cudnnLRNStruct {
    uint32_t magic;
    unsigned n;
    double alpha, beta, k;
};

cudnnStatus_t fd_lrn_desc_check(cudnnLRNDescriptor_t desc, const char *name);

/* Cross-channel LRN. Forward reads x, writes y; backward reads y, dy, x and writes dx. The
 * tensors share dims and dtype; 4 or 5 dims; non-negative strides; outputs overlap no input. */
typedef struct fd_lrn_problem {
    unsigned n;
    double alpha, beta, k;
    struct cudnnTensorStruct x, y, dy, dx; /* forward: dy, dx unused */
} fd_lrn_problem_t;
typedef struct fd_lrn_args {
    const void *x, *y, *dy; /* forward: y is the output (in out), dy NULL */
    void *out;              /* forward y, backward dx */
    double alpha, beta;
    cudnnHandle_t handle; /* its stream, on cuda */
} fd_lrn_args_t;

/* Divisive normalization (CUDNN_DIVNORM_PRECOMPUTED_MEANS). x describes x, means, temp, temp2
 * and (backward) dy; out describes y (forward) or dx and dMeans (backward). */
typedef struct fd_divnorm_problem {
    unsigned n;
    double alpha, beta, k;
    struct cudnnTensorStruct x, out;
} fd_divnorm_problem_t;
typedef struct fd_divnorm_args {
    const void *x, *means, *dy; /* means may be NULL (zero); dy NULL forward */
    void *temp, *temp2;         /* caller scratch shaped like x; contents undefined after */
    void *out;                  /* forward y, backward dx */
    void *dmeans;               /* backward only, may be NULL */
    double alpha, beta;
    cudnnHandle_t handle; /* its stream, on cuda */
} fd_divnorm_args_t;

#endif /* FD_CORE_LRN_H_ */
