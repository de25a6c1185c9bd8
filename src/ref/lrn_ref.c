/* SPDX-License-Identifier: MIT */
/*
 * lrn_ref.c - reference cross-channel LRN and divisive normalization, forward and backward.
 *
 * Formulas in core/lrn.h. Every window sum is recomputed from the inputs in double (no
 * caller workspace for LRN; the divisive-normalization scratch is used only to keep copies of
 * the inputs, which is what makes the in-place forms x == y / x == dx / dy == dx work). The
 * backward passes use the adjoint window: index i sits in the window of c iff
 * c in [i - la, i + lb]. Cross-channel backward takes y from the caller (as cuDNN's interface
 * suggests) and recomputes the scale from x. FLOAT, DOUBLE, HALF, BFLOAT16; any non-negative
 * strides; 4-d and 5-d.
 */
#include <math.h>

#include "../core/lrn.h"

static void blend_store(cudnnDataType_t dt, void *out, int64_t off, double alpha, double beta,
                        double v)
{
    double r = alpha * v;
    if (beta != 0.0)
        r += beta * fd_load(dt, out, off);
    fd_store(dt, out, off, r);
}

static inline int lrn_lb(unsigned n)
{
    return (int)(n - 1) / 2;
}
static inline int lrn_la(unsigned n)
{
    return (int)n - 1 - lrn_lb(n);
}

/* ---- cross-channel ------------------------------------------------------------------------ */

/* Offset of (n, c, flattened spatial index sp) in t. */
static int64_t cc_offset(const struct cudnnTensorStruct *t, int64_t n, int64_t c, int64_t sp)
{
    int64_t off = n * t->stride[0] + c * t->stride[1];
    for (int d = t->nb_dims - 1; d >= 2; d--) {
        off += (sp % t->dim[d]) * t->stride[d];
        sp /= t->dim[d];
    }
    return off;
}

static int64_t spatial_count(const struct cudnnTensorStruct *t)
{
    int64_t s = 1;
    for (int d = 2; d < t->nb_dims; d++)
        s *= t->dim[d];
    return s;
}

/* s_c = k + alpha / n * sum of x^2 over the window of channel c (at n, sp). */
static double cc_scale(const fd_lrn_problem_t *p, const void *x, int64_t n, int64_t c, int64_t sp)
{
    const int64_t C = p->x.dim[1];
    int64_t lo = c - lrn_lb(p->n), hi = c + lrn_la(p->n);
    lo = lo < 0 ? 0 : lo;
    hi = hi > C - 1 ? C - 1 : hi;
    double sum = 0.0;
    for (int64_t j = lo; j <= hi; j++) {
        double v = fd_load(p->x.dtype, x, cc_offset(&p->x, n, j, sp));
        sum += v * v;
    }
    return p->k + p->alpha / p->n * sum;
}

int fd_lrn_fwd_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_lrn_fwd_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_lrn_fwd_ref_run(const void *problem, const void *args)
{
    const fd_lrn_problem_t *p = problem;
    const fd_lrn_args_t *a = args;
    const int64_t N = p->x.dim[0], C = p->x.dim[1], S = spatial_count(&p->x);
    for (int64_t n = 0; n < N; n++)
        for (int64_t sp = 0; sp < S; sp++)
            for (int64_t c = 0; c < C; c++) {
                double s = cc_scale(p, a->x, n, c, sp);
                double xv = fd_load(p->x.dtype, a->x, cc_offset(&p->x, n, c, sp));
                blend_store(p->y.dtype, a->out, cc_offset(&p->y, n, c, sp), a->alpha, a->beta,
                            xv * pow(s, -p->beta));
            }
    return CUDNN_STATUS_SUCCESS;
}

int fd_lrn_bwd_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_lrn_bwd_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

/* dx_i = dy_i s_i^-beta - 2 beta alpha / n * x_i * sum_{c = i - la .. i + lb} dy_c y_c / s_c */
cudnnStatus_t fd_lrn_bwd_ref_run(const void *problem, const void *args)
{
    const fd_lrn_problem_t *p = problem;
    const fd_lrn_args_t *a = args;
    const int64_t N = p->x.dim[0], C = p->x.dim[1], S = spatial_count(&p->x);
    const double coef = 2.0 * p->beta * p->alpha / p->n;
    for (int64_t n = 0; n < N; n++)
        for (int64_t sp = 0; sp < S; sp++)
            for (int64_t i = 0; i < C; i++) {
                int64_t lo = i - lrn_la(p->n), hi = i + lrn_lb(p->n);
                lo = lo < 0 ? 0 : lo;
                hi = hi > C - 1 ? C - 1 : hi;
                double acc = 0.0;
                for (int64_t c = lo; c <= hi; c++) {
                    double g = fd_load(p->dy.dtype, a->dy, cc_offset(&p->dy, n, c, sp));
                    double yv = fd_load(p->y.dtype, a->y, cc_offset(&p->y, n, c, sp));
                    acc += g * yv / cc_scale(p, a->x, n, c, sp);
                }
                double s = cc_scale(p, a->x, n, i, sp);
                double g = fd_load(p->dy.dtype, a->dy, cc_offset(&p->dy, n, i, sp));
                double xv = fd_load(p->x.dtype, a->x, cc_offset(&p->x, n, i, sp));
                blend_store(p->dx.dtype, a->out, cc_offset(&p->dx, n, i, sp), a->alpha, a->beta,
                            g * pow(s, -p->beta) - coef * xv * acc);
            }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- divisive normalization --------------------------------------------------------------- */

/* Spatial geometry padded to 3 dims (size 1, stride 0 beyond the tensor's). */
typedef struct {
    int d;         /* spatial dims: 2 or 3 */
    int64_t sz[3]; /* spatial sizes */
    int64_t count; /* sz[0] * sz[1] * sz[2] */
} dn_geom_t;

static dn_geom_t dn_geom(const struct cudnnTensorStruct *t)
{
    dn_geom_t g = {.d = t->nb_dims - 2, .sz = {1, 1, 1}, .count = 1};
    for (int k = 0; k < g.d; k++) {
        g.sz[k] = t->dim[2 + k];
        g.count *= g.sz[k];
    }
    return g;
}

static int64_t dn_offset(const struct cudnnTensorStruct *t, int64_t n, int64_t c, const int64_t *s)
{
    int64_t off = n * t->stride[0] + c * t->stride[1];
    for (int k = 0; k < t->nb_dims - 2; k++)
        off += s[k] * t->stride[2 + k];
    return off;
}

static void dn_unflatten(const dn_geom_t *g, int64_t sp, int64_t *s)
{
    s[2] = sp % g->sz[2];
    sp /= g->sz[2];
    s[1] = sp % g->sz[1];
    s[0] = sp / g->sz[1];
}

/* t_j = x_j - means_j (x read from its copy in temp). */
static double dn_t(const fd_divnorm_problem_t *p, const fd_divnorm_args_t *a, int64_t off)
{
    double v = fd_load(p->x.dtype, a->temp, off);
    if (a->means != NULL)
        v -= fd_load(p->x.dtype, a->means, off);
    return v;
}

/* s = k + alpha / n^d * sum of t^2 over the spatial window [s - lb, s + la] per dim. */
static double dn_scale(const fd_divnorm_problem_t *p, const fd_divnorm_args_t *a,
                       const dn_geom_t *g, int64_t n, int64_t c, const int64_t *s)
{
    int64_t lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = s[k] - lrn_lb(p->n);
        hi[k] = s[k] + lrn_la(p->n);
        lo[k] = lo[k] < 0 ? 0 : lo[k];
        hi[k] = hi[k] > g->sz[k] - 1 ? g->sz[k] - 1 : hi[k];
    }
    double sum = 0.0;
    int64_t j[3];
    for (j[0] = lo[0]; j[0] <= hi[0]; j[0]++)
        for (j[1] = lo[1]; j[1] <= hi[1]; j[1]++)
            for (j[2] = lo[2]; j[2] <= hi[2]; j[2]++) {
                double t = dn_t(p, a, dn_offset(&p->x, n, c, j));
                sum += t * t;
            }
    return p->k + p->alpha / pow((double)p->n, g->d) * sum;
}

/* Copies the addressed elements of src (described by t) into dst: an exact copy, same dtype. */
static void dn_copy(const struct cudnnTensorStruct *t, const void *src, void *dst)
{
    const dn_geom_t g = dn_geom(t);
    int64_t s[3];
    for (int64_t n = 0; n < t->dim[0]; n++)
        for (int64_t c = 0; c < t->dim[1]; c++)
            for (int64_t sp = 0; sp < g.count; sp++) {
                dn_unflatten(&g, sp, s);
                int64_t off = dn_offset(t, n, c, s);
                size_t es = fd_dtype_size(t->dtype);
                const unsigned char *from = (const unsigned char *)src + off * (int64_t)es;
                unsigned char *to = (unsigned char *)dst + off * (int64_t)es;
                for (size_t b = 0; b < es; b++)
                    to[b] = from[b];
            }
}

int fd_divnorm_fwd_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_divnorm_fwd_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_divnorm_fwd_ref_run(const void *problem, const void *args)
{
    const fd_divnorm_problem_t *p = problem;
    const fd_divnorm_args_t *a = args;
    const dn_geom_t g = dn_geom(&p->x);
    dn_copy(&p->x, a->x, a->temp); /* y may be x */
    int64_t s[3];
    for (int64_t n = 0; n < p->x.dim[0]; n++)
        for (int64_t c = 0; c < p->x.dim[1]; c++)
            for (int64_t sp = 0; sp < g.count; sp++) {
                dn_unflatten(&g, sp, s);
                double t = dn_t(p, a, dn_offset(&p->x, n, c, s));
                double v = t * pow(dn_scale(p, a, &g, n, c, s), -p->beta);
                blend_store(p->out.dtype, a->out, dn_offset(&p->out, n, c, s), a->alpha, a->beta,
                            v);
            }
    return CUDNN_STATUS_SUCCESS;
}

int fd_divnorm_bwd_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_divnorm_bwd_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

/* g_i = dy_i s_i^-beta - 2 beta alpha / n^d * t_i * sum_{c: i in W(c)} dy_c t_c s_c^(-beta-1);
 * dx = g, dMeans = -g (both blended with alpha, beta). dy is read from its copy in temp2. */
cudnnStatus_t fd_divnorm_bwd_ref_run(const void *problem, const void *args)
{
    const fd_divnorm_problem_t *p = problem;
    const fd_divnorm_args_t *a = args;
    const dn_geom_t g = dn_geom(&p->x);
    dn_copy(&p->x, a->x, a->temp);   /* dx may be x */
    dn_copy(&p->x, a->dy, a->temp2); /* dx may be dy */
    const double coef = 2.0 * p->beta * p->alpha / pow((double)p->n, g.d);
    const cudnnDataType_t dt = p->x.dtype;
    int64_t s[3], c[3], lo[3], hi[3];
    for (int64_t n = 0; n < p->x.dim[0]; n++)
        for (int64_t ch = 0; ch < p->x.dim[1]; ch++)
            for (int64_t sp = 0; sp < g.count; sp++) {
                dn_unflatten(&g, sp, s);
                for (int k = 0; k < 3; k++) {
                    lo[k] = s[k] - lrn_la(p->n);
                    hi[k] = s[k] + lrn_lb(p->n);
                    lo[k] = lo[k] < 0 ? 0 : lo[k];
                    hi[k] = hi[k] > g.sz[k] - 1 ? g.sz[k] - 1 : hi[k];
                }
                double acc = 0.0;
                for (c[0] = lo[0]; c[0] <= hi[0]; c[0]++)
                    for (c[1] = lo[1]; c[1] <= hi[1]; c[1]++)
                        for (c[2] = lo[2]; c[2] <= hi[2]; c[2]++) {
                            int64_t off = dn_offset(&p->x, n, ch, c);
                            double sc = dn_scale(p, a, &g, n, ch, c);
                            acc += fd_load(dt, a->temp2, off) * dn_t(p, a, off) *
                                   pow(sc, -p->beta - 1.0);
                        }
                int64_t off = dn_offset(&p->x, n, ch, s);
                double grad =
                    fd_load(dt, a->temp2, off) * pow(dn_scale(p, a, &g, n, ch, s), -p->beta) -
                    coef * dn_t(p, a, off) * acc;
                int64_t out = dn_offset(&p->out, n, ch, s);
                blend_store(p->out.dtype, a->out, out, a->alpha, a->beta, grad);
                if (a->dmeans != NULL)
                    blend_store(p->out.dtype, a->dmeans, out, a->alpha, a->beta, -grad);
            }
    return CUDNN_STATUS_SUCCESS;
}
