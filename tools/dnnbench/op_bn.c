/* SPDX-License-Identifier: MIT */
/*
 * op_bn.c - dnnbench's batch normalization: cudnnBatchNormalizationForwardInference (fwd_infer),
 * ForwardTraining (fwd_train) and Backward (bwd), modes spatial, per_activation and
 * spatial_persistent, NCHW or NHWC, through memop.c. Parameters use the descriptor of
 * cudnnDeriveBNTensorDescriptor (FLOAT, DOUBLE for f64 data).
 *
 * Problem: "n2c16h28w28 mode=spatial" with eps= (1e-5) and factor= (the exponential average
 * factor of the running statistics, 0.1). fwd_train updates running_mean / running_var in
 * place and writes save_mean / save_inv_var; bwd reads the oracle's saved statistics (as
 * frameworks pass them) and writes dx, dscale and dbias. Every output is checked. Each
 * statistic needs M >= 2 values (M = N H W spatial, N per activation).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "memop.h"

typedef struct bn_shape {
    int64_t n, c, h, w;
    int mode; /* index of mode_names */
    double eps, factor;
} bn_shape_t;
_Static_assert(sizeof(bn_shape_t) <= DNB_PROBLEM_BYTES, "a BN shape fits a dnb_problem_t");

enum { DIR_INFER, DIR_TRAIN, DIR_BWD };
static const char *const bn_dirs[] = {"fwd_infer", "fwd_train", "bwd", NULL};
static const char *const mode_names[] = {"spatial", "per_activation", "spatial_persistent", NULL};
static const cudnnBatchNormMode_t mode_enum[] = {
    CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_PER_ACTIVATION, CUDNN_BATCHNORM_SPATIAL_PERSISTENT};
_Static_assert(sizeof mode_enum / sizeof mode_enum[0] ==
                   sizeof mode_names / sizeof mode_names[0] - 1,
               "one enum per mode name");
static const double default_eps = 1e-5, default_factor = 0.1;

static const bn_shape_t *shape_of(const dnb_problem_t *p)
{
    return (const bn_shape_t *)(const void *)p->data;
}

static int per_act(const bn_shape_t *s)
{
    return mode_enum[s->mode] == CUDNN_BATCHNORM_PER_ACTIVATION;
}

static int64_t count_of(const bn_shape_t *s)
{
    return s->n * s->c * s->h * s->w;
}

static int64_t params_of(const bn_shape_t *s) /* parameters per tensor */
{
    return per_act(s) ? s->c * s->h * s->w : s->c;
}

static int64_t m_of(const bn_shape_t *s) /* values per statistic */
{
    return per_act(s) ? s->n : s->n * s->h * s->w;
}

/* The parameter of element i of x (parameters are packed 1xCx1x1 or 1xCxHxW). */
static int64_t param_index(const bn_shape_t *s, int nhwc, int64_t i)
{
    int64_t c, h, w;
    if (nhwc)
        c = i % s->c, w = (i / s->c) % s->w, h = (i / (s->c * s->w)) % s->h;
    else
        w = i % s->w, h = (i / s->w) % s->h, c = (i / (s->w * s->h)) % s->c;
    return per_act(s) ? (c * s->h + h) * s->w + w : c;
}

/* ---- problem text ------------------------------------------------------------------------ */

static int bn_field(void *ctx, const char *key, const char *value, char *err, size_t err_size)
{
    bn_shape_t *s = ctx;
    if (strcmp(key, "mode") == 0)
        return dnb_field_enum(key, value, mode_names, &s->mode, err, err_size);
    if (strcmp(key, "eps") == 0)
        return dnb_field_double(key, value, 0, 1e6, &s->eps, err, err_size);
    if (strcmp(key, "factor") == 0)
        return dnb_field_double(key, value, 0, 1, &s->factor, err, err_size);
    snprintf(err, err_size, "unknown field '%s' (known: mode eps factor)", key);
    return -1;
}

static int bn_parse(const char *text, dnb_problem_t *p, char *err, size_t err_size)
{
    bn_shape_t *s = (bn_shape_t *)(void *)p->data;
    memset(s, 0, sizeof *s);
    s->eps = default_eps, s->factor = default_factor;
    int64_t d[4];
    if (dnb_parse_nchw(text, d, bn_field, s, err, err_size))
        return -1;
    s->n = d[0], s->c = d[1], s->h = d[2], s->w = d[3];
    if (m_of(s) < 2) {
        snprintf(err, err_size, "each statistic needs at least 2 values (here M = %lld: %s)",
                 (long long)m_of(s), per_act(s) ? "N" : "N H W");
        return -1;
    }
    return 0;
}

static void bn_set_batch(dnb_problem_t *p, int64_t n)
{
    ((bn_shape_t *)(void *)p->data)->n = n;
}

static void bn_format(const dnb_problem_t *p, char *buf, size_t size)
{
    const bn_shape_t *s = shape_of(p);
    char eps[48] = "", factor[48] = "", v[32];
    if (s->eps != default_eps) {
        dnb_fmt_double(v, sizeof v, s->eps);
        snprintf(eps, sizeof eps, " eps=%s", v);
    }
    if (s->factor != default_factor) {
        dnb_fmt_double(v, sizeof v, s->factor);
        snprintf(factor, sizeof factor, " factor=%s", v);
    }
    snprintf(buf, size, "n%lldc%lldh%lldw%lld mode=%s%s%s", (long long)s->n, (long long)s->c,
             (long long)s->h, (long long)s->w, mode_names[s->mode], eps, factor);
}

/* An estimate (for --ref-max-gflop): operations per element of x. */
static double bn_flop(const dnb_problem_t *p, int dir)
{
    static const double per[] = {2.0, 6.0, 8.0};
    return (double)count_of(shape_of(p)) * per[dir];
}

static int bn_option(const char *arg, char *err, size_t err_size)
{
    (void)arg, (void)err, (void)err_size;
    return 0;
}

/* ---- the call ------------------------------------------------------------------------------ */

enum { I_X, I_SCALE, I_BIAS, I_MEAN, I_VAR, I_Y };
enum { T_X, T_SCALE, T_BIAS, T_RMEAN, T_RVAR, T_Y, T_SMEAN, T_SINV };
enum { B_X, B_DY, B_SCALE, B_SMEAN, B_SINV, B_DX, B_DSCALE, B_DBIAS };

static int add_param(dnb_mspec_t *sp, const char *name, int role, int64_t n, int fill)
{
    int t = dnb_mspec_add(sp, name, role, n);
    sp->t[t].param = 1;
    sp->t[t].fill = fill;
    return t;
}

static void bn_spec(const dnb_problem_t *p, int dir, dnb_mspec_t *sp)
{
    const bn_shape_t *s = shape_of(p);
    const int64_t n = count_of(s), np = params_of(s);
    sp->derive_dir = -1;
    switch (dir) {
    case DIR_INFER:
        dnb_mspec_add(sp, "x", DNB_MT_IN, n);
        add_param(sp, "scale", DNB_MT_IN, np, DNB_FILL_DEFAULT);
        add_param(sp, "bias", DNB_MT_IN, np, DNB_FILL_DEFAULT);
        add_param(sp, "est_mean", DNB_MT_IN, np, DNB_FILL_DEFAULT);
        add_param(sp, "est_var", DNB_MT_IN, np, DNB_FILL_POSITIVE);
        sp->primary = dnb_mspec_add(sp, "y", DNB_MT_OUT, n);
        break;
    case DIR_TRAIN:
        dnb_mspec_add(sp, "x", DNB_MT_IN, n);
        add_param(sp, "scale", DNB_MT_IN, np, DNB_FILL_DEFAULT);
        add_param(sp, "bias", DNB_MT_IN, np, DNB_FILL_DEFAULT);
        add_param(sp, "running_mean", DNB_MT_INOUT, np, DNB_FILL_DEFAULT);
        add_param(sp, "running_var", DNB_MT_INOUT, np, DNB_FILL_POSITIVE);
        sp->primary = dnb_mspec_add(sp, "y", DNB_MT_OUT, n);
        add_param(sp, "save_mean", DNB_MT_OUT, np, DNB_FILL_DEFAULT);
        add_param(sp, "save_inv_var", DNB_MT_OUT, np, DNB_FILL_DEFAULT);
        break;
    default:
        dnb_mspec_add(sp, "x", DNB_MT_IN, n);
        dnb_mspec_add(sp, "dy", DNB_MT_IN, n);
        add_param(sp, "scale", DNB_MT_IN, np, DNB_FILL_DEFAULT);
        sp->t[add_param(sp, "save_mean", DNB_MT_IN, np, DNB_FILL_DEFAULT)].derived = 1;
        sp->t[add_param(sp, "save_inv_var", DNB_MT_IN, np, DNB_FILL_DEFAULT)].derived = 1;
        sp->primary = dnb_mspec_add(sp, "dx", DNB_MT_OUT, n);
        add_param(sp, "dscale", DNB_MT_OUT, np, DNB_FILL_DEFAULT);
        add_param(sp, "dbias", DNB_MT_OUT, np, DNB_FILL_DEFAULT);
        sp->derive_dir = DIR_TRAIN;
    }
}

typedef struct bn_side {
    cudnnTensorDescriptor_t xd, pd;
} bn_side_t;
_Static_assert(sizeof(bn_side_t) <= sizeof(((dnb_mside_t *)0)->priv), "fits priv");

static const char *bn_missing(const dnb_lib_t *l, const dnb_problem_t *p, int dir)
{
    (void)p;
#define NEED(f)                                                                                    \
    if (l->f == NULL)                                                                              \
        return #f;
    NEED(cudnnCreateTensorDescriptor)
    NEED(cudnnDestroyTensorDescriptor)
    NEED(cudnnSetTensor4dDescriptor)
    NEED(cudnnDeriveBNTensorDescriptor)
    if (dir == DIR_INFER) {
        NEED(cudnnBatchNormalizationForwardInference)
    } else if (dir == DIR_TRAIN) {
        NEED(cudnnBatchNormalizationForwardTraining)
    } else {
        NEED(cudnnBatchNormalizationBackward)
    }
#undef NEED
    return NULL;
}

static cudnnStatus_t bn_setup(dnb_mside_t *sd, const char **what)
{
    bn_side_t *bs = (bn_side_t *)(void *)sd->priv;
    const bn_shape_t *s = shape_of(sd->p);
    cudnnStatus_t st;
    *what = "cudnnSetTensor4dDescriptor(x)";
    if ((st = dnb_mside_tensor(sd, &bs->xd, s->n, s->c, s->h, s->w)))
        return st;
    *what = "cudnnCreateTensorDescriptor";
    if ((st = sd->lib->cudnnCreateTensorDescriptor(&bs->pd))) {
        bs->pd = NULL;
        return st;
    }
    *what = "cudnnDeriveBNTensorDescriptor";
    return sd->lib->cudnnDeriveBNTensorDescriptor(bs->pd, bs->xd, mode_enum[s->mode]);
}

static void bn_release(dnb_mside_t *sd)
{
    bn_side_t *bs = (bn_side_t *)(void *)sd->priv;
    dnb_mside_tensor_release(sd, &bs->xd);
    dnb_mside_tensor_release(sd, &bs->pd);
}

static cudnnStatus_t bn_call(const dnb_mside_t *sd, void *const *b)
{
    const bn_side_t *bs = (const bn_side_t *)(const void *)sd->priv;
    const bn_shape_t *s = shape_of(sd->p);
    const cudnnBatchNormMode_t mode = mode_enum[s->mode];
    const void *one = dnb_one(sd->dt), *zero = dnb_zero(sd->dt);
    const dnb_lib_t *l = sd->lib;
    switch (sd->dir) {
    case DIR_INFER:
        return l->cudnnBatchNormalizationForwardInference(sd->h, mode, one, zero, bs->xd, b[I_X],
                                                          bs->xd, b[I_Y], bs->pd, b[I_SCALE],
                                                          b[I_BIAS], b[I_MEAN], b[I_VAR], s->eps);
    case DIR_TRAIN:
        return l->cudnnBatchNormalizationForwardTraining(
            sd->h, mode, one, zero, bs->xd, b[T_X], bs->xd, b[T_Y], bs->pd, b[T_SCALE], b[T_BIAS],
            s->factor, b[T_RMEAN], b[T_RVAR], s->eps, b[T_SMEAN], b[T_SINV]);
    default:
        return l->cudnnBatchNormalizationBackward(
            sd->h, mode, one, zero, one, zero, bs->xd, b[B_X], bs->xd, b[B_DY], bs->xd, b[B_DX],
            bs->pd, b[B_SCALE], b[B_DSCALE], b[B_DBIAS], s->eps, b[B_SMEAN], b[B_SINV]);
    }
}

/* Per-parameter sums over the M values of a statistic, for the bounds below. */
typedef struct bn_sums {
    double *abs_x, *sq_x, *mean, *var, *abs_dy, *dy_xm; /* dy_xm: sum |dy| (|x| + |mu|) iv */
} bn_sums_t;

/* The six arrays of bn_sums_t in one block of 6 np doubles. */
static bn_sums_t sums_view(double *all, int64_t np)
{
    return (bn_sums_t){all, all + np, all + 2 * np, all + 3 * np, all + 4 * np, all + 5 * np};
}

/* Element e (0 .. M - 1) of parameter j's statistic, in the order a walk of x meets them. */
static int64_t member_index(const bn_shape_t *s, int nhwc, int64_t j, int64_t e)
{
    if (per_act(s)) /* e is the image; j = (c H + h) W + w */
        return nhwc ? ((e * s->h + j / s->w % s->h) * s->w + j % s->w) * s->c + j / (s->h * s->w)
                    : e * params_of(s) + j;
    const int64_t hw = s->h * s->w;
    return nhwc ? e * s->c + j : (e / hw * s->c + j) * hw + e % hw;
}

/* The sums of bn_sums_t over the run's inputs, in one calloc of 6 np doubles (abs_x, sq_x,
 * mean, var, then abs_dy, dy_xm for the backward), or NULL. A parameter a thread (OpenMP), its
 * members in x's order: the bits of a serial walk at any thread count. */
static double *bn_sums(const dnb_mtol_args_t *a, const bn_shape_t *s)
{
    const int64_t np = params_of(s), M = m_of(s);
    const double dm = (double)M, *x = a->in[0];
    double *all = calloc(6 * (size_t)np + 1, sizeof(double));
    if (all == NULL)
        return NULL;
    const bn_sums_t z = sums_view(all, np);
    const int bwd = a->dir != DIR_TRAIN && a->dir != DIR_INFER;
    const double *dy = a->in[B_DY], *mu = a->in[B_SMEAN], *iv = a->in[B_SINV];
#pragma omp parallel for schedule(dynamic, 1) if (count_of(s) >= DNB_PAR_MIN)
    for (int64_t j = 0; j < np; j++) {
        double ax = 0, sq = 0, sum = 0, var = 0, ady = 0, dxm = 0;
        for (int64_t e = 0; e < M; e++) {
            const double v = x[member_index(s, a->nhwc, j, e)];
            ax += fabs(v), sq += v * v, sum += v;
        }
        const double mean = sum / dm;
        for (int64_t e = 0; e < M; e++) {
            const double v = x[member_index(s, a->nhwc, j, e)];
            var += (v - mean) * (v - mean) / dm;
        }
        if (bwd)
            for (int64_t e = 0; e < M; e++) {
                const int64_t i = member_index(s, a->nhwc, j, e);
                ady += fabs(dy[i]);
                dxm += fabs(dy[i]) * (fabs(x[i]) + fabs(mu[j])) * fabs(iv[j]);
            }
        z.abs_x[j] = ax, z.sq_x[j] = sq, z.mean[j] = mean, z.var[j] = var;
        z.abs_dy[j] = ady, z.dy_xm[j] = dxm;
    }
    return all;
}

/* The bounds (docs/testing.md's formula, K u_acc relative to S): the statistics sum M terms
 * (K = M + 4; the variance relative to E[x^2], which covers one-pass formulas, and 1/sqrt
 * halves its error: K = M + 8); y = scale (x - mu) iv + bias carries the statistics' errors.
 * Inference: S = |scale| iv (|x| + |mean|) + |bias|, K = 8. Backward: dbias = sum dy,
 * dscale = sum dy xhat, dx = scale iv / M (M dy - dbias - xhat dscale), each over its terms. */
static void bn_tolerance(const dnb_mtol_args_t *a, int t, double *S, dnb_tol_t *tol)
{
    const bn_shape_t *s = shape_of(a->p);
    const int64_t n = count_of(s), np = params_of(s), M = m_of(s);
    const double dm = (double)M, f = s->factor;
    const char *name = a->s->t[t].name;
    const double *x = a->in[0]; /* x is tensor 0 in every direction */
    if (a->dir == DIR_INFER) {
        const double *sc = a->in[I_SCALE], *bi = a->in[I_BIAS], *me = a->in[I_MEAN],
                     *va = a->in[I_VAR];
        tol->k = 8;
#pragma omp parallel for schedule(static) if (n >= DNB_PAR_MIN)
        for (int64_t i = 0; i < n; i++) {
            int64_t j = param_index(s, a->nhwc, i);
            S[i] = fabs(sc[j]) / sqrt(va[j] + s->eps) * (fabs(x[i]) + fabs(me[j])) + fabs(bi[j]);
        }
        return;
    }
    /* the per-parameter sums every output's bound reads: once a run, in *a->cache */
    double *all = *a->cache;
    if (all == NULL && (all = *a->cache = bn_sums(a, s)) == NULL) {
        /* no room for the sums: an infinite bound, which cannot fail */
        for (int64_t i = 0; i < a->s->t[t].count; i++)
            S[i] = INFINITY;
        return;
    }
    const bn_sums_t z = sums_view(all, np);
    if (a->dir == DIR_TRAIN) {
        const double *sc = a->in[T_SCALE], *bi = a->in[T_BIAS];
        tol->k = M + 8;
        if (strcmp(name, "save_mean") == 0) {
            tol->k = M + 4;
            for (int64_t j = 0; j < np; j++)
                S[j] = z.abs_x[j] / dm;
        } else if (strcmp(name, "save_inv_var") == 0) {
            for (int64_t j = 0; j < np; j++)
                S[j] = (1.0 + z.sq_x[j] / dm / (z.var[j] + s->eps)) / sqrt(z.var[j] + s->eps);
        } else if (strcmp(name, "running_mean") == 0) {
            tol->k = M + 4;
            for (int64_t j = 0; j < np; j++)
                S[j] = (1.0 - f) * fabs(a->in[T_RMEAN][j]) + f * z.abs_x[j] / dm;
        } else if (strcmp(name, "running_var") == 0) {
            for (int64_t j = 0; j < np; j++)
                S[j] = (1.0 - f) * fabs(a->in[T_RVAR][j]) + f * z.sq_x[j] / (dm - 1.0);
        } else { /* y */
#pragma omp parallel for schedule(static) if (n >= DNB_PAR_MIN)
            for (int64_t i = 0; i < n; i++) {
                int64_t j = param_index(s, a->nhwc, i);
                double ve = z.var[j] + s->eps, iv = 1.0 / sqrt(ve);
                S[i] = fabs(sc[j]) * iv *
                           (fabs(x[i]) + fabs(z.mean[j]) +
                            fabs(x[i] - z.mean[j]) * (1.0 + z.sq_x[j] / dm / ve)) +
                       fabs(bi[j]);
            }
        }
        return;
    }
    /* backward, with the saved statistics as given */
    const double *dy = a->in[B_DY], *sc = a->in[B_SCALE], *mu = a->in[B_SMEAN], *iv = a->in[B_SINV];
    if (strcmp(name, "dbias") == 0) {
        tol->k = M + 2;
        for (int64_t j = 0; j < np; j++)
            S[j] = z.abs_dy[j];
    } else if (strcmp(name, "dscale") == 0) {
        tol->k = M + 4;
        for (int64_t j = 0; j < np; j++)
            S[j] = z.dy_xm[j];
    } else { /* dx */
        tol->k = M + 8;
#pragma omp parallel for schedule(static) if (n >= DNB_PAR_MIN)
        for (int64_t i = 0; i < n; i++) {
            int64_t j = param_index(s, a->nhwc, i);
            double xh = (fabs(x[i]) + fabs(mu[j])) * fabs(iv[j]);
            S[i] =
                fabs(sc[j]) * fabs(iv[j]) / dm * (dm * fabs(dy[i]) + z.abs_dy[j] + xh * z.dy_xm[j]);
        }
    }
}

static const char *const bn_impl_ops[] = {"FD_OP_BN_FWD_INFER",
                                          "fwd_infer",
                                          "FD_OP_BN_FWD_TRAIN",
                                          "fwd_train",
                                          "FD_OP_BN_BWD",
                                          "bwd",
                                          NULL};

static const dnb_memop_t bn_memop = {
    .spec = bn_spec,
    .missing = bn_missing,
    .setup = bn_setup,
    .release = bn_release,
    .call = bn_call,
    .tolerance = bn_tolerance,
    .impl_ops = bn_impl_ops,
};

static void bn_run(const dnb_ctx_t *ctx, const dnb_problem_t *p, int dir, dnb_row_t *row)
{
    const bn_shape_t *s = shape_of(p);
    if (m_of(s) < 2) { /* --n=1 on a per_activation problem */
        row->ours.ran = 1;
        row->ours.state = DNB_SKIPPED;
        snprintf(row->ours.reason, sizeof row->ours.reason,
                 "each statistic needs at least 2 values (M = %lld); the unbiased running "
                 "variance is 0/0",
                 (long long)m_of(s));
        return;
    }
    dnb_memop_run(&bn_memop, ctx, p, dir, row);
}

static double bn_bytes(const dnb_problem_t *p, int dir, const dnb_dt_t *dt)
{
    return dnb_memop_bytes(&bn_memop, p, dir, dt);
}

static int bn_impl(const char *name, dnb_opts_t *o, char *err, size_t err_size)
{
    return dnb_memop_impl(&bn_memop, &dnb_op_bn, name, o, err, err_size);
}

const dnb_op_t dnb_op_bn = {
    .name = "bn",
    .dirs = bn_dirs,
    .parse = bn_parse,
    .set_batch = bn_set_batch,
    .format = bn_format,
    .flop = bn_flop,
    .bytes = bn_bytes,
    .option = bn_option,
    .impl = bn_impl,
    .run = bn_run,
};
