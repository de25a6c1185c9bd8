/* SPDX-License-Identifier: MIT */
/*
 * conv_fused.h - problems of the convolution calls that fuse more than a convolution:
 * cudnnConvolutionBiasActivationForward and cudnnIm2Col (rows FD_OP_CONV_BIAS_ACT_FWD and
 * FD_OP_IM2COL of src/impls.def; cudnnIm2Col's problem is the plain fd_conv_problem_t).
 */
#ifndef FD_CORE_CONV_FUSED_H_
#define FD_CORE_CONV_FUSED_H_

#include "activation.h"
#include "conv.h"

/* cudnnConvolutionBiasActivationForward: y = act(alpha1 * conv(x, w) + alpha2 * z + bias). */
typedef struct fd_conv_bias_act_problem {
    fd_conv_problem_t conv;
    int64_t zs[2 + FD_CONV_SPATIAL_MAX]; /* z strides, laid out like conv.ys */
    int64_t bias_stride;                 /* element stride of bias along K */
    cudnnDataType_t zdt, bias_dt;
    fd_act_params_t act;
} fd_conv_bias_act_problem_t;
typedef struct fd_conv_bias_act_args {
    cudnnHandle_t handle; /* its stream, on cuda */
    const void *x, *w, *z, *bias;
    void *y;
    double alpha1, alpha2;
} fd_conv_bias_act_args_t;

/* cudnnIm2Col: col is (N * out spatial) rows by (C * filter spatial) columns, row-major. */
typedef struct fd_im2col_args {
    cudnnHandle_t handle; /* its stream, on cuda */
    const void *x;
    void *col;
} fd_im2col_args_t;

#endif /* FD_CORE_CONV_FUSED_H_ */
