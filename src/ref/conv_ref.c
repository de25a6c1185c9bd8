/* SPDX-License-Identifier: MIT */
/*
 * conv_ref.c - reference convolution: forward, backward data, backward filter, backward bias.
 *
 * Serves every algorithm enum on the ref backend (and on cpu until it has kernels). Direct
 * loops over the flat problem with arbitrary element strides, groups, dilation, padding and
 * both modes; every output element is a gather (no scatter, no atomics), accumulated in
 * double and rounded once to the output type, so results are deterministic and exact for
 * integer data. 1 to 3 spatial dims; FLOAT, DOUBLE, HALF, BFLOAT16. No workspace. The bias
 * gradient (an FD_OP_IMPL row) sums dy over everything but C, also in double.
 */
#include <stdio.h>

#include "../core/conv.h"

static int ref_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    /* INT8 (int32 wraparound, cuDNN's epilogue, NCHW_VECT_C) is fd_conv_fwd_int8_ref's, which
     * serves the two implicit-GEMM enums only, as cuDNN does */
    if (fd_conv_is_int8(p)) {
        snprintf(why, why_size, "INT8 convolution runs IMPLICIT_GEMM and IMPLICIT_PRECOMP_GEMM only");
        return 0;
    }
    return 1; /* fd_conv_problem_init admits only what the reference computes */
}

static size_t ref_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}

/* Blend and store one output element: beta == 0 never reads the old value (it may be NaN). */
static void blend_store(cudnnDataType_t dt, void *out, int64_t off, double alpha, double beta, double acc)
{
    double v = alpha * acc;
    if (beta != 0.0)
        v += beta * fd_load(dt, out, off);
    fd_store(dt, out, off, v);
}

/* Filter tap index in memory for tap t of an F-tap filter (CUDNN_CONVOLUTION flips). */
static inline int64_t tap(const fd_conv_problem_t *p, int d, int64_t t)
{
    return p->cross_correlation ? t : p->flt[d] - 1 - t;
}

int fd_conv_fwd_ref_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    return ref_applicable(p, why, why_size);
}
size_t fd_conv_fwd_ref_workspace(const fd_conv_problem_t *p)
{
    return ref_workspace(p);
}

double fd_conv_ref_fwd_point(const fd_conv_problem_t *p, const void *x, const void *w, int64_t n,
                             int64_t k, int64_t o0, int64_t o1, int64_t o2)
{
    const int64_t cg_n = p->c / p->groups, kg_n = p->k / p->groups, g = k / kg_n;
    double acc = 0.0;
    for (int64_t cg = 0; cg < cg_n; cg++)
    for (int64_t t0 = 0; t0 < p->flt[0]; t0++) {
        int64_t i0 = o0 * p->stride[0] - p->pad[0] + t0 * p->dil[0];
        if (i0 < 0 || i0 >= p->in[0])
            continue;
        for (int64_t t1 = 0; t1 < p->flt[1]; t1++) {
            int64_t i1 = o1 * p->stride[1] - p->pad[1] + t1 * p->dil[1];
            if (i1 < 0 || i1 >= p->in[1])
                continue;
            for (int64_t t2 = 0; t2 < p->flt[2]; t2++) {
                int64_t i2 = o2 * p->stride[2] - p->pad[2] + t2 * p->dil[2];
                if (i2 < 0 || i2 >= p->in[2])
                    continue;
                int64_t xo = n * p->xs[0] + (g * cg_n + cg) * p->xs[1] + i0 * p->xs[2] +
                             i1 * p->xs[3] + i2 * p->xs[4];
                int64_t wo = k * p->ws[0] + cg * p->ws[1] + tap(p, 0, t0) * p->ws[2] +
                             tap(p, 1, t1) * p->ws[3] + tap(p, 2, t2) * p->ws[4];
                acc += fd_load(p->xdt, x, xo) * fd_load(p->wdt, w, wo);
            }
        }
    }
    return acc;
}

cudnnStatus_t fd_conv_fwd_ref_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    for (int64_t n = 0; n < p->n; n++)
    for (int64_t k = 0; k < p->k; k++)
    for (int64_t o0 = 0; o0 < p->out[0]; o0++)
    for (int64_t o1 = 0; o1 < p->out[1]; o1++)
    for (int64_t o2 = 0; o2 < p->out[2]; o2++) {
        double acc = fd_conv_ref_fwd_point(p, a->x, a->w, n, k, o0, o1, o2);
        int64_t yo = n * p->ys[0] + k * p->ys[1] + o0 * p->ys[2] + o1 * p->ys[3] + o2 * p->ys[4];
        blend_store(p->ydt, a->out, yo, a->alpha, a->beta, acc);
    }
    return CUDNN_STATUS_SUCCESS;
}

int fd_conv_bwd_data_ref_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    return ref_applicable(p, why, why_size);
}
size_t fd_conv_bwd_data_ref_workspace(const fd_conv_problem_t *p)
{
    return ref_workspace(p);
}

/* Output index o along dim d that reads input i through tap t, or -1. */
static inline int64_t out_index(const fd_conv_problem_t *p, int d, int64_t i, int64_t t)
{
    int64_t num = i + p->pad[d] - t * p->dil[d];
    if (num < 0 || num % p->stride[d] != 0)
        return -1;
    int64_t o = num / p->stride[d];
    return o < p->out[d] ? o : -1;
}

cudnnStatus_t fd_conv_bwd_data_ref_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    const int64_t cg_n = p->c / p->groups, kg_n = p->k / p->groups;
    for (int64_t n = 0; n < p->n; n++)
    for (int64_t c = 0; c < p->c; c++)
    for (int64_t i0 = 0; i0 < p->in[0]; i0++)
    for (int64_t i1 = 0; i1 < p->in[1]; i1++)
    for (int64_t i2 = 0; i2 < p->in[2]; i2++) {
        const int64_t g = c / cg_n, cg = c % cg_n;
        double acc = 0.0;
        for (int64_t t0 = 0; t0 < p->flt[0]; t0++) {
            int64_t o0 = out_index(p, 0, i0, t0);
            if (o0 < 0)
                continue;
            for (int64_t t1 = 0; t1 < p->flt[1]; t1++) {
                int64_t o1 = out_index(p, 1, i1, t1);
                if (o1 < 0)
                    continue;
                for (int64_t t2 = 0; t2 < p->flt[2]; t2++) {
                    int64_t o2 = out_index(p, 2, i2, t2);
                    if (o2 < 0)
                        continue;
                    for (int64_t kk = 0; kk < kg_n; kk++) {
                        int64_t k = g * kg_n + kk;
                        int64_t yo = n * p->ys[0] + k * p->ys[1] + o0 * p->ys[2] + o1 * p->ys[3] +
                                     o2 * p->ys[4];
                        int64_t wo = k * p->ws[0] + cg * p->ws[1] + tap(p, 0, t0) * p->ws[2] +
                                     tap(p, 1, t1) * p->ws[3] + tap(p, 2, t2) * p->ws[4];
                        acc += fd_load(p->ydt, a->y, yo) * fd_load(p->wdt, a->w, wo);
                    }
                }
            }
        }
        int64_t xo = n * p->xs[0] + c * p->xs[1] + i0 * p->xs[2] + i1 * p->xs[3] + i2 * p->xs[4];
        blend_store(p->xdt, a->out, xo, a->alpha, a->beta, acc);
    }
    return CUDNN_STATUS_SUCCESS;
}

int fd_conv_bwd_filter_ref_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    return ref_applicable(p, why, why_size);
}
size_t fd_conv_bwd_filter_ref_workspace(const fd_conv_problem_t *p)
{
    return ref_workspace(p);
}

cudnnStatus_t fd_conv_bwd_filter_ref_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    const int64_t cg_n = p->c / p->groups, kg_n = p->k / p->groups;
    for (int64_t k = 0; k < p->k; k++)
    for (int64_t cg = 0; cg < cg_n; cg++)
    for (int64_t t0 = 0; t0 < p->flt[0]; t0++)
    for (int64_t t1 = 0; t1 < p->flt[1]; t1++)
    for (int64_t t2 = 0; t2 < p->flt[2]; t2++) {
        const int64_t c = (k / kg_n) * cg_n + cg;
        double acc = 0.0;
        for (int64_t n = 0; n < p->n; n++)
        for (int64_t o0 = 0; o0 < p->out[0]; o0++) {
            int64_t i0 = o0 * p->stride[0] - p->pad[0] + t0 * p->dil[0];
            if (i0 < 0 || i0 >= p->in[0])
                continue;
            for (int64_t o1 = 0; o1 < p->out[1]; o1++) {
                int64_t i1 = o1 * p->stride[1] - p->pad[1] + t1 * p->dil[1];
                if (i1 < 0 || i1 >= p->in[1])
                    continue;
                for (int64_t o2 = 0; o2 < p->out[2]; o2++) {
                    int64_t i2 = o2 * p->stride[2] - p->pad[2] + t2 * p->dil[2];
                    if (i2 < 0 || i2 >= p->in[2])
                        continue;
                    int64_t xo = n * p->xs[0] + c * p->xs[1] + i0 * p->xs[2] + i1 * p->xs[3] +
                                 i2 * p->xs[4];
                    int64_t yo = n * p->ys[0] + k * p->ys[1] + o0 * p->ys[2] + o1 * p->ys[3] +
                                 o2 * p->ys[4];
                    acc += fd_load(p->xdt, a->x, xo) * fd_load(p->ydt, a->y, yo);
                }
            }
        }
        int64_t wo = k * p->ws[0] + cg * p->ws[1] + tap(p, 0, t0) * p->ws[2] +
                     tap(p, 1, t1) * p->ws[3] + tap(p, 2, t2) * p->ws[4];
        blend_store(p->wdt, a->out, wo, a->alpha, a->beta, acc);
    }
    return CUDNN_STATUS_SUCCESS;
}

int fd_conv_bwd_bias_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_conv_bwd_bias_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_conv_bwd_bias_ref_run(const void *problem, const void *args)
{
    const fd_bias_problem_t *p = problem;
    const fd_bias_args_t *a = args;
    const struct cudnnTensorStruct *dy = &p->dy;
    int64_t inner = 1;
    for (int i = 2; i < dy->nb_dims; i++)
        inner *= dy->dim[i];
    for (int64_t k = 0; k < dy->dim[1]; k++) {
        double acc = 0.0;
        for (int64_t n = 0; n < dy->dim[0]; n++)
            for (int64_t e = 0; e < inner; e++) {
                int64_t off = n * dy->stride[0] + k * dy->stride[1], rest = e;
                for (int i = dy->nb_dims - 1; i >= 2; i--) {
                    off += (rest % dy->dim[i]) * dy->stride[i];
                    rest /= dy->dim[i];
                }
                acc += fd_load(dy->dtype, a->dy, off);
            }
        blend_store(p->db.dtype, a->db, k * p->db.stride[1], a->alpha, a->beta, acc);
    }
    return CUDNN_STATUS_SUCCESS;
}
