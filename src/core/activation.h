/* SPDX-License-Identifier: MIT */
/*
 * activation.h - the activation descriptor behind cudnnActivationDescriptor_t, the scalar
 * definition of every activation mode (forward value and derivative, in double), and the flat
 * problem that cudnnActivationForward / cudnnActivationBackward hand to the implementations
 * (FD_OP_ACT_FWD, FD_OP_ACT_BWD in src/impls.def).
 *
 * The scalar functions are the one definition of the modes: the fused users of an activation
 * descriptor (cudnnConvolutionBiasActivationForward, the batch-norm *Ex calls) include this
 * header and call fd_act_fwd_value / fd_act_bwd_value so every path agrees bit for bit.
 *
 * Modes (coef is the descriptor's coef, beta the swish beta):
 *   SIGMOID       1 / (1 + e^-x)              derivative from y:  y (1 - y)
 *   RELU          max(0, x)                   derivative from x:  x > 0
 *   TANH          tanh(x)                     derivative from y:  1 - y^2
 *   CLIPPED_RELU  min(max(0, x), coef)        derivative from x:  0 < x < coef
 *   ELU           x > 0 ? x : coef (e^x - 1)  derivative from x:  x > 0 ? 1 : coef e^x
 *   IDENTITY      x                           derivative 1 (dx = dy)
 *   SWISH         x sigmoid(beta x)           derivative from x:  s + beta x s (1 - s)
 * NaN option (contract §1.7), RELU and CLIPPED_RELU only: NOT_PROPAGATE treats a NaN operand of
 * the max/min as absent (ReLU(NaN) = 0, a NaN coef clips nothing), PROPAGATE returns NaN when x
 * or coef is NaN; the backward pass follows the same rule (NaN x gives dx 0, resp. NaN). The
 * other modes carry NaN through their arithmetic in both options.
 */
#ifndef FD_CORE_ACTIVATION_H_
#define FD_CORE_ACTIVATION_H_

#include <math.h>

#include "fd.h"

#define FD_MAGIC_ACT 0x41444e46u /* "FNDA" */

typedef struct fd_act_params {
    cudnnActivationMode_t mode;
    int propagate_nan; /* reluNanOpt == CUDNN_PROPAGATE_NAN */
    double coef;       /* CLIPPED_RELU ceiling, ELU alpha */
    double swish_beta;
} fd_act_params_t;

struct cudnnActivationStruct {
    uint32_t magic;
    int is_set; /* cudnnSetActivationDescriptor succeeded once */
    fd_act_params_t p;
};

/* The descriptor is live and was set; BAD_PARAM naming `name` otherwise. Defined in
 * src/api/activation.c. */
cudnnStatus_t fd_act_desc_check(cudnnActivationDescriptor_t desc, const char *name);

static inline double fd_act_sigmoid(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

/* act(x) in double. */
static inline double fd_act_fwd_value(const fd_act_params_t *a, double x)
{
    switch (a->mode) {
    case CUDNN_ACTIVATION_SIGMOID:
        return fd_act_sigmoid(x);
    case CUDNN_ACTIVATION_RELU:
        if (a->propagate_nan && isnan(x))
            return x;
        return x > 0.0 ? x : 0.0;
    case CUDNN_ACTIVATION_TANH:
        return tanh(x);
    case CUDNN_ACTIVATION_CLIPPED_RELU: {
        if (a->propagate_nan && (isnan(x) || isnan(a->coef)))
            return NAN;
        double v = x > 0.0 ? x : 0.0;
        return v > a->coef ? a->coef : v; /* a NaN coef compares false: no clipping */
    }
    case CUDNN_ACTIVATION_ELU:
        return x > 0.0 ? x : a->coef * expm1(x);
    case CUDNN_ACTIVATION_IDENTITY:
        return x;
    case CUDNN_ACTIVATION_SWISH: {
        if (isnan(x)) /* x itself: x * sigmoid(NaN) would pick either NaN's sign, by build */
            return x;
        double s = fd_act_sigmoid(a->swish_beta == 0.0 ? 0.0 : a->swish_beta * x); /* not 0 * inf */
        return s == 0.0 ? 0.0 : x * s; /* x -> -inf (beta > 0): the limit 0, not -inf * 0 */
    }
    }
    return NAN; /* unreachable: modes are validated when the descriptor is set */
}

/* d act / dx at x, times dy. y is act(x) as the forward call wrote it (alpha 1, beta 0). */
static inline double fd_act_bwd_value(const fd_act_params_t *a, double y, double dy, double x)
{
    switch (a->mode) {
    case CUDNN_ACTIVATION_SIGMOID:
        return dy * y * (1.0 - y);
    case CUDNN_ACTIVATION_RELU:
        if (a->propagate_nan && isnan(x))
            return x;
        return x > 0.0 ? dy : 0.0;
    case CUDNN_ACTIVATION_TANH:
        return dy * (1.0 - y * y);
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        if (a->propagate_nan && (isnan(x) || isnan(a->coef)))
            return NAN;
        return (x > 0.0 && !(x >= a->coef)) ? dy : 0.0;
    case CUDNN_ACTIVATION_ELU:
        return x > 0.0 ? dy : dy * a->coef * exp(x);
    case CUDNN_ACTIVATION_IDENTITY:
        return dy;
    case CUDNN_ACTIVATION_SWISH: {
        double b = a->swish_beta, s = fd_act_sigmoid(b == 0.0 ? 0.0 : b * x);
        if (isinf(x)) /* the slope tends to s (0 or 1); avoid inf * 0 */
            return dy * s;
        return dy * (s + b * x * s * (1.0 - s));
    }
    }
    return NAN;
}

/* One activation call: every tensor has the same dims and storage type; strides may differ
 * (in elements). Forward reads x, writes y; backward reads y, dy, x and writes dx. */
typedef struct fd_act_problem {
    fd_act_params_t act;
    cudnnDataType_t dt;
    int nb_dims;
    int64_t dim[FD_DIM_MAX];
    int64_t xs[FD_DIM_MAX], ys[FD_DIM_MAX];   /* x, y */
    int64_t dys[FD_DIM_MAX], dxs[FD_DIM_MAX]; /* backward only */
} fd_act_problem_t;

typedef struct fd_act_args {
    const void *x, *y, *dy; /* forward: x only */
    void *out;              /* y for forward, dx for backward */
    double alpha, beta;
    cudnnHandle_t handle; /* its stream, on cuda */
} fd_act_args_t;

#endif /* FD_CORE_ACTIVATION_H_ */
