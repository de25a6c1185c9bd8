/* SPDX-License-Identifier: MIT */
/*
 * conv_fused_ref.c - reference for cudnnConvolutionBiasActivationForward and cudnnIm2Col.
 *
 * Bias-activation: each output element is computed whole - the convolution sum (double), then
 * alpha1 * sum + alpha2 * z + bias, then the activation, then one rounding to y's type - so z
 * may alias y (cuDNN allows it) and no scratch is needed. Im2col writes the GEMM "A" matrix:
 * row (n, out spatial...), column (c, filter tap...), zero where the tap falls in the padding;
 * for CUDNN_CONVOLUTION the taps are stored flipped so that col x filter is the convolution.
 */
#include "../core/conv_fused.h"

int fd_conv_bias_act_fwd_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_conv_bias_act_fwd_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_conv_bias_act_fwd_ref_run(const void *problem, const void *args)
{
    const fd_conv_bias_act_problem_t *fp = problem;
    const fd_conv_problem_t *p = &fp->conv;
    const fd_conv_bias_act_args_t *a = args;
    for (int64_t n = 0; n < p->n; n++)
    for (int64_t k = 0; k < p->k; k++)
    for (int64_t o0 = 0; o0 < p->out[0]; o0++)
    for (int64_t o1 = 0; o1 < p->out[1]; o1++)
    for (int64_t o2 = 0; o2 < p->out[2]; o2++) {
        double v = a->alpha1 * fd_conv_ref_fwd_point(p, a->x, a->w, n, k, o0, o1, o2);
        if (a->alpha2 != 0.0) {
            int64_t zo = n * fp->zs[0] + k * fp->zs[1] + o0 * fp->zs[2] + o1 * fp->zs[3] + o2 * fp->zs[4];
            v += a->alpha2 * fd_load(fp->zdt, a->z, zo);
        }
        v += fd_load(fp->bias_dt, a->bias, k * fp->bias_stride);
        int64_t yo = n * p->ys[0] + k * p->ys[1] + o0 * p->ys[2] + o1 * p->ys[3] + o2 * p->ys[4];
        fd_store(p->ydt, a->y, yo, fd_act_fwd_value(&fp->act, v));
    }
    return CUDNN_STATUS_SUCCESS;
}

int fd_im2col_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_im2col_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_im2col_ref_run(const void *problem, const void *args)
{
    const fd_conv_problem_t *p = problem;
    const fd_im2col_args_t *a = args;
    const int64_t taps = p->flt[0] * p->flt[1] * p->flt[2];
    const int64_t width = p->c * taps;
    int64_t row = 0;
    for (int64_t n = 0; n < p->n; n++)
    for (int64_t o0 = 0; o0 < p->out[0]; o0++)
    for (int64_t o1 = 0; o1 < p->out[1]; o1++)
    for (int64_t o2 = 0; o2 < p->out[2]; o2++, row++) {
        int64_t col = 0;
        for (int64_t c = 0; c < p->c; c++)
        for (int64_t f0 = 0; f0 < p->flt[0]; f0++)
        for (int64_t f1 = 0; f1 < p->flt[1]; f1++)
        for (int64_t f2 = 0; f2 < p->flt[2]; f2++, col++) {
            /* column f holds the input that multiplies filter element f */
            int64_t t0 = p->cross_correlation ? f0 : p->flt[0] - 1 - f0;
            int64_t t1 = p->cross_correlation ? f1 : p->flt[1] - 1 - f1;
            int64_t t2 = p->cross_correlation ? f2 : p->flt[2] - 1 - f2;
            int64_t i0 = o0 * p->stride[0] - p->pad[0] + t0 * p->dil[0];
            int64_t i1 = o1 * p->stride[1] - p->pad[1] + t1 * p->dil[1];
            int64_t i2 = o2 * p->stride[2] - p->pad[2] + t2 * p->dil[2];
            double v = 0.0;
            if (i0 >= 0 && i0 < p->in[0] && i1 >= 0 && i1 < p->in[1] && i2 >= 0 && i2 < p->in[2])
                v = fd_load(p->xdt, a->x,
                            n * p->xs[0] + c * p->xs[1] + i0 * p->xs[2] + i1 * p->xs[3] + i2 * p->xs[4]);
            fd_store(p->xdt, a->col, row * width + col, v);
        }
    }
    return CUDNN_STATUS_SUCCESS;
}
