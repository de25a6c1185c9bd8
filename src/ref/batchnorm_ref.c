/* SPDX-License-Identifier: MIT */
/*
 * batchnorm_ref.c - reference batch normalization: forward inference, forward training and
 * backward, each with the fused activation / add + activation of the *Ex and v8 entries.
 *
 * Serves FD_OP_BN_FWD_INFER, FD_OP_BN_FWD_TRAIN and FD_OP_BN_BWD on ref (and cpu until it has
 * its own); every mode (SPATIAL_PERSISTENT is SPATIAL here). One group of elements (a channel,
 * or one (c, spatial) position per activation) at a time, in double, two-pass statistics, any
 * strides, FLOAT / DOUBLE / HALF / BFLOAT16 data; sequential, so bit-reproducible. No
 * workspace. An element's outputs are written after all its reads, so exact in-place aliasing
 * (y = x, dx = dy, ...) is safe. The mathematics are in src/core/batchnorm.h.
 */
#include <math.h>
#include <string.h>

#include "../core/batchnorm.h"

/* ---- the fused activation: the activation family's definitions (core/activation.h) ------ */

static double act_value(const fd_bn_act_t *a, double u)
{
    return fd_act_fwd_value(a, u);
}

/* d act / du. RELU / CLIPPED_RELU give 0 at a NaN u (the reserve space holds one bit);
 * the smooth modes take the family's derivative with dy = 1. */
static double act_slope(const fd_bn_act_t *a, double u)
{
    switch (a->mode) {
    case CUDNN_ACTIVATION_RELU:
        return u > 0.0 ? 1.0 : 0.0;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        return u > 0.0 && !(u >= a->coef) ? 1.0 : 0.0;
    default:
        return fd_act_bwd_value(a, fd_act_fwd_value(a, u), 1.0, u);
    }
}

/* ---- indexing ----------------------------------------------------------------------------- */

typedef struct {
    int64_t n, c, s; /* batch, channels, spatial size (product of dims 2..) */
    int64_t groups;  /* parameter sets: c, or c * s per activation */
    int64_t m;       /* elements per group: n * s, or n */
} shape_t;

static shape_t shape_of(const fd_bn_problem_t *p)
{
    shape_t sh = {p->x.dim[0], p->x.dim[1], 1, 0, 0};
    for (int i = 2; i < p->x.nb_dims; i++)
        sh.s *= p->x.dim[i];
    sh.groups = p->per_activation ? sh.c * sh.s : sh.c;
    sh.m = p->per_activation ? sh.n : sh.n * sh.s;
    return sh;
}

/* Offset of element (n, c, s) of t, s the row-major index over the spatial dims. */
static int64_t offset(const struct cudnnTensorStruct *t, int64_t n, int64_t c, int64_t s)
{
    int64_t o = n * t->stride[0] + c * t->stride[1];
    for (int i = t->nb_dims - 1; i >= 2; i--) {
        o += (s % t->dim[i]) * t->stride[i];
        s /= t->dim[i];
    }
    return o;
}

/* Member k of group g: its (n, c, s) and its index in N, C, spatial order. */
typedef struct {
    int64_t n, c, s, e;
} elem_t;

static elem_t member(const fd_bn_problem_t *p, const shape_t *sh, int64_t g, int64_t k)
{
    elem_t m;
    if (p->per_activation) {
        m.n = k, m.c = g / sh->s, m.s = g % sh->s;
    } else {
        m.n = k / sh->s, m.c = g, m.s = k % sh->s;
    }
    m.e = (m.n * sh->c + m.c) * sh->s + m.s;
    return m;
}

/* Offset of group g's entry in a parameter tensor. */
static int64_t param_offset(const fd_bn_problem_t *p, const struct cudnnTensorStruct *t,
                            const shape_t *sh, int64_t g)
{
    return p->per_activation ? offset(t, 0, g / sh->s, g % sh->s) : g * t->stride[1];
}

static double load_at(const struct cudnnTensorStruct *t, const void *base, const elem_t *m)
{
    return fd_load(t->dtype, base, offset(t, m->n, m->c, m->s));
}

/* out = alpha * v + beta * out; beta == 0 never reads out (it may hold NaN). */
static void blend_store(cudnnDataType_t dt, void *base, int64_t off, double alpha, double beta,
                        double v)
{
    double r = alpha * v;
    if (beta != 0.0)
        r += beta * fd_load(dt, base, off);
    fd_store(dt, base, off, r);
}

/* Batch mean and biased variance of group g (two passes). */
static void group_stats(const fd_bn_problem_t *p, const shape_t *sh, const void *x, int64_t g,
                        double *mean, double *var)
{
    double sum = 0.0;
    for (int64_t k = 0; k < sh->m; k++) {
        elem_t m = member(p, sh, g, k);
        sum += load_at(&p->x, x, &m);
    }
    double mu = sum / (double)sh->m, sq = 0.0;
    for (int64_t k = 0; k < sh->m; k++) {
        elem_t m = member(p, sh, g, k);
        double d = load_at(&p->x, x, &m) - mu;
        sq += d * d;
    }
    *mean = mu;
    *var = sq / (double)sh->m;
}

/* ---- reserve space (layout in src/core/batchnorm.h) -------------------------------------- */

static void reserve_put(const fd_bn_problem_t *p, void *reserve, int64_t e, double u)
{
    if (fd_bn_act_is_binary(p->act.mode)) {
        if (act_slope(&p->act, u) != 0.0)
            ((unsigned char *)reserve)[e / 8] |= (unsigned char)(1u << (e % 8));
    } else {
        memcpy((unsigned char *)reserve + e * (int64_t)sizeof(double), &u, sizeof u);
    }
}

static double reserve_slope(const fd_bn_problem_t *p, const void *reserve, int64_t e)
{
    if (fd_bn_act_is_binary(p->act.mode))
        return (((const unsigned char *)reserve)[e / 8] >> (e % 8)) & 1u ? 1.0 : 0.0;
    double u;
    memcpy(&u, (const unsigned char *)reserve + e * (int64_t)sizeof(double), sizeof u);
    return act_slope(&p->act, u);
}

/* ---- forward ------------------------------------------------------------------------------ */

/* y for group g given its statistics; ADD_ACTIVATION in training also fills the reserve. */
static void forward_group(const fd_bn_problem_t *p, const fd_bn_args_t *a, const shape_t *sh,
                          int64_t g, double mean, double inv, void *reserve)
{
    double scale = fd_load(p->sb.dtype, a->scale, param_offset(p, &p->sb, sh, g));
    double bias = fd_load(p->sb.dtype, a->bias, param_offset(p, &p->sb, sh, g));
    for (int64_t k = 0; k < sh->m; k++) {
        elem_t m = member(p, sh, g, k);
        double u = scale * (load_at(&p->x, a->x, &m) - mean) * inv + bias;
        if (p->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION)
            u += load_at(&p->z, a->z, &m);
        double v = p->ops == CUDNN_BATCHNORM_OPS_BN ? u : act_value(&p->act, u);
        if (reserve != NULL)
            reserve_put(p, reserve, m.e, u);
        blend_store(p->y.dtype, a->y, offset(&p->y, m.n, m.c, m.s), a->alpha, a->beta, v);
    }
}

static int ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1; /* fd_bn_problem_init admits only what the reference computes */
}

static size_t ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

int fd_bn_fwd_infer_ref_applicable(const void *problem, char *why, size_t why_size)
{
    return ref_applicable(problem, why, why_size);
}
size_t fd_bn_fwd_infer_ref_workspace(const void *problem)
{
    return ref_workspace(problem);
}

cudnnStatus_t fd_bn_fwd_infer_ref_run(const void *problem, const void *args)
{
    const fd_bn_problem_t *p = problem;
    const fd_bn_args_t *a = args;
    shape_t sh = shape_of(p);
    for (int64_t g = 0; g < sh.groups; g++) {
        int64_t po = param_offset(p, &p->mv, &sh, g);
        double mean = fd_load(p->mv.dtype, a->mean, po);
        double inv = 1.0 / sqrt(fd_load(p->mv.dtype, a->var, po) + p->epsilon);
        forward_group(p, a, &sh, g, mean, inv, NULL);
    }
    return CUDNN_STATUS_SUCCESS;
}

int fd_bn_fwd_train_ref_applicable(const void *problem, char *why, size_t why_size)
{
    return ref_applicable(problem, why, why_size);
}
size_t fd_bn_fwd_train_ref_workspace(const void *problem)
{
    return ref_workspace(problem);
}

cudnnStatus_t fd_bn_fwd_train_ref_run(const void *problem, const void *args)
{
    const fd_bn_problem_t *p = problem;
    const fd_bn_args_t *a = args;
    shape_t sh = shape_of(p);
    void *reserve = a->reserve_size > 0 ? a->reserve : NULL;
    if (reserve != NULL && fd_bn_act_is_binary(p->act.mode))
        memset(reserve, 0, a->reserve_size); /* every bit defined, no read of stale bytes */
    const double f = a->factor, keep = 1.0 - a->factor;
    for (int64_t g = 0; g < sh.groups; g++) {
        double mean, var;
        group_stats(p, &sh, a->x, g, &mean, &var);
        double inv = 1.0 / sqrt(var + p->epsilon);
        forward_group(p, a, &sh, g, mean, inv, reserve);
        int64_t po = param_offset(p, &p->mv, &sh, g);
        /* unbiased: var * M / (M - 1); for M = 1 that is 0 / 0 = NaN, as cuDNN 9.19 gives */
        double unbiased = var * (double)sh.m / (double)(sh.m - 1);
        if (a->run_mean != NULL)
            blend_store(p->mv.dtype, a->run_mean, po, f, keep, mean);
        if (a->run_var != NULL)
            blend_store(p->mv.dtype, a->run_var, po, f, keep, unbiased);
        if (a->save_mean != NULL) {
            fd_store(p->mv.dtype, a->save_mean, po, mean);
            fd_store(p->mv.dtype, a->save_inv, po, inv);
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- backward ----------------------------------------------------------------------------- */

int fd_bn_bwd_ref_applicable(const void *problem, char *why, size_t why_size)
{
    return ref_applicable(problem, why, why_size);
}
size_t fd_bn_bwd_ref_workspace(const void *problem)
{
    return ref_workspace(problem);
}

/* g = dy * act'(u) of one element. */
static double grad_in(const fd_bn_problem_t *p, const fd_bn_args_t *a, const elem_t *m, double xhat,
                      double scale, double bias)
{
    double dy = load_at(&p->dy, a->dy, m);
    switch (p->ops) {
    case CUDNN_BATCHNORM_OPS_BN_ACTIVATION:
        return dy * act_slope(&p->act, scale * xhat + bias);
    case CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION:
        return dy * reserve_slope(p, a->reserve, m->e);
    default:
        return dy;
    }
}

cudnnStatus_t fd_bn_bwd_ref_run(const void *problem, const void *args)
{
    const fd_bn_problem_t *p = problem;
    const fd_bn_args_t *a = args;
    shape_t sh = shape_of(p);
    const double M = (double)sh.m;
    for (int64_t g = 0; g < sh.groups; g++) {
        double mean, inv;
        if (a->mean != NULL) {
            int64_t po = param_offset(p, &p->mv, &sh, g);
            mean = fd_load(p->mv.dtype, a->mean, po);
            inv = fd_load(p->mv.dtype, a->var, po);
        } else {
            double var;
            group_stats(p, &sh, a->x, g, &mean, &var);
            inv = 1.0 / sqrt(var + p->epsilon);
        }
        int64_t so = param_offset(p, &p->sb, &sh, g);
        double scale = fd_load(p->sb.dtype, a->scale, so);
        double bias = a->bias != NULL ? fd_load(p->sb.dtype, a->bias, so) : 0.0;
        double sum_g = 0.0, sum_gx = 0.0;
        for (int64_t k = 0; k < sh.m; k++) {
            elem_t m = member(p, &sh, g, k);
            double xhat = (load_at(&p->x, a->x, &m) - mean) * inv;
            double gi = grad_in(p, a, &m, xhat, scale, bias);
            sum_g += gi;
            sum_gx += gi * xhat;
        }
        const double mg = sum_g / M, mgx = sum_gx / M;
        for (int64_t k = 0; k < sh.m; k++) {
            elem_t m = member(p, &sh, g, k);
            double xhat = (load_at(&p->x, a->x, &m) - mean) * inv;
            double gi = grad_in(p, a, &m, xhat, scale, bias);
            double dx = scale * inv * (gi - mg - xhat * mgx);
            if (a->dz != NULL)
                fd_store(p->dz.dtype, a->dz, offset(&p->dz, m.n, m.c, m.s), gi);
            blend_store(p->dx.dtype, a->dx, offset(&p->dx, m.n, m.c, m.s), a->alpha, a->beta, dx);
        }
        blend_store(p->sb.dtype, a->dscale, so, a->alpha_param, a->beta_param, sum_gx);
        blend_store(p->sb.dtype, a->dbias, so, a->alpha_param, a->beta_param, sum_g);
    }
    return CUDNN_STATUS_SUCCESS;
}
