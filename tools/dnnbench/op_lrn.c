/* SPDX-License-Identifier: MIT */
/*
 * op_lrn.c - dnnbench's local response normalization: cudnnLRNCrossChannelForward and
 * cudnnLRNCrossChannelBackward (CUDNN_LRN_CROSS_CHANNEL_DIM1), NCHW or NHWC, through memop.c.
 *
 * Problem: "n2c16h28w28 size=5 alpha=1e-4 beta=0.75 k=2" (cudnnSetLRNDescriptor's lrnN,
 * lrnAlpha, lrnBeta, lrnK; those values are the defaults, cuDNN's own). cuDNN's formula:
 * y = x / (k + alpha / size * sum of x^2 over the size channels around c)^beta. The backward
 * reads the oracle's y.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "memop.h"

typedef struct lrn_shape {
    int64_t n, c, h, w, size;
    double alpha, beta, k;
} lrn_shape_t;
_Static_assert(sizeof(lrn_shape_t) <= DNB_PROBLEM_BYTES, "an LRN shape fits a dnb_problem_t");

enum { DIR_FWD, DIR_BWD };
static const char *const lrn_dirs[] = {"fwd", "bwd", NULL};

static const lrn_shape_t *shape_of(const dnb_problem_t *p)
{
    return (const lrn_shape_t *)(const void *)p->data;
}

static int64_t count_of(const lrn_shape_t *s)
{
    return s->n * s->c * s->h * s->w;
}

/* ---- problem text ------------------------------------------------------------------------ */

static int lrn_field(void *ctx, const char *key, const char *value, char *err, size_t err_size)
{
    lrn_shape_t *s = ctx;
    if (strcmp(key, "size") == 0) {
        double v;
        if (dnb_field_double(key, value, CUDNN_LRN_MIN_N, CUDNN_LRN_MAX_N, &v, err, err_size))
            return -1;
        s->size = (int64_t)v;
        if ((double)s->size != v) {
            snprintf(err, err_size, "size=%s: an integer", value);
            return -1;
        }
        return 0;
    }
    if (strcmp(key, "alpha") == 0)
        return dnb_field_double(key, value, -1e6, 1e6, &s->alpha, err, err_size);
    if (strcmp(key, "beta") == 0)
        return dnb_field_double(key, value, CUDNN_LRN_MIN_BETA, 1e6, &s->beta, err, err_size);
    if (strcmp(key, "k") == 0)
        return dnb_field_double(key, value, CUDNN_LRN_MIN_K, 1e6, &s->k, err, err_size);
    snprintf(err, err_size, "unknown field '%s' (known: size alpha beta k)", key);
    return -1;
}

static int lrn_parse(const char *text, dnb_problem_t *p, char *err, size_t err_size)
{
    lrn_shape_t *s = (lrn_shape_t *)(void *)p->data;
    memset(s, 0, sizeof *s);
    s->size = 5, s->alpha = 1e-4, s->beta = 0.75, s->k = 2.0;
    int64_t d[4];
    if (dnb_parse_nchw(text, d, lrn_field, s, err, err_size))
        return -1;
    s->n = d[0], s->c = d[1], s->h = d[2], s->w = d[3];
    return 0;
}

static void lrn_set_batch(dnb_problem_t *p, int64_t n)
{
    ((lrn_shape_t *)(void *)p->data)->n = n;
}

static void lrn_format(const dnb_problem_t *p, char *buf, size_t size)
{
    const lrn_shape_t *s = shape_of(p);
    char a[32], b[32], k[32];
    dnb_fmt_double(a, sizeof a, s->alpha);
    dnb_fmt_double(b, sizeof b, s->beta);
    dnb_fmt_double(k, sizeof k, s->k);
    snprintf(buf, size, "n%lldc%lldh%lldw%lld size=%lld alpha=%s beta=%s k=%s", (long long)s->n,
             (long long)s->c, (long long)s->h, (long long)s->w, (long long)s->size, a, b, k);
}

/* An estimate (for --ref-max-gflop): the window's squares and sum, a power and a product. */
static double lrn_flop(const dnb_problem_t *p, int dir)
{
    const lrn_shape_t *s = shape_of(p);
    return (double)count_of(s) * (double)(dir == DIR_FWD ? 2 * s->size + 5 : 4 * s->size + 8);
}

static int lrn_option(const char *arg, char *err, size_t err_size)
{
    (void)arg, (void)err, (void)err_size;
    return 0;
}

/* ---- the call ------------------------------------------------------------------------------ */

enum { F_X, F_Y };
enum { B_Y, B_DY, B_X, B_DX };

static void lrn_spec(const dnb_problem_t *p, int dir, dnb_mspec_t *sp)
{
    const int64_t n = count_of(shape_of(p));
    sp->derive_dir = -1;
    if (dir == DIR_FWD) {
        dnb_mspec_add(sp, "x", DNB_MT_IN, n);
        sp->primary = dnb_mspec_add(sp, "y", DNB_MT_OUT, n);
        return;
    }
    int y = dnb_mspec_add(sp, "y", DNB_MT_IN, n);
    sp->t[y].derived = 1;
    sp->t[y].traffic = 0; /* recomputable from x */
    dnb_mspec_add(sp, "dy", DNB_MT_IN, n);
    dnb_mspec_add(sp, "x", DNB_MT_IN, n);
    sp->primary = dnb_mspec_add(sp, "dx", DNB_MT_OUT, n);
    sp->derive_dir = DIR_FWD;
}

typedef struct lrn_side {
    cudnnTensorDescriptor_t xd;
    cudnnLRNDescriptor_t ld;
} lrn_side_t;
_Static_assert(sizeof(lrn_side_t) <= sizeof(((dnb_mside_t *)0)->priv), "fits priv");

static const char *lrn_missing(const dnb_lib_t *l, const dnb_problem_t *p, int dir)
{
    (void)p;
#define NEED(f)                                                                                    \
    if (l->f == NULL)                                                                              \
        return #f;
    NEED(cudnnCreateTensorDescriptor)
    NEED(cudnnDestroyTensorDescriptor)
    NEED(cudnnSetTensor4dDescriptor)
    NEED(cudnnCreateLRNDescriptor)
    NEED(cudnnDestroyLRNDescriptor)
    NEED(cudnnSetLRNDescriptor)
    if (dir == DIR_FWD) {
        NEED(cudnnLRNCrossChannelForward)
    } else {
        NEED(cudnnLRNCrossChannelBackward)
    }
#undef NEED
    return NULL;
}

static cudnnStatus_t lrn_setup(dnb_mside_t *sd, const char **what)
{
    lrn_side_t *ls = (lrn_side_t *)(void *)sd->priv;
    const lrn_shape_t *s = shape_of(sd->p);
    cudnnStatus_t st;
    *what = "cudnnSetTensor4dDescriptor(x)";
    if ((st = dnb_mside_tensor(sd, &ls->xd, s->n, s->c, s->h, s->w)))
        return st;
    *what = "cudnnCreateLRNDescriptor";
    if ((st = sd->lib->cudnnCreateLRNDescriptor(&ls->ld))) {
        ls->ld = NULL;
        return st;
    }
    *what = "cudnnSetLRNDescriptor";
    return sd->lib->cudnnSetLRNDescriptor(ls->ld, (unsigned)s->size, s->alpha, s->beta, s->k);
}

static void lrn_release(dnb_mside_t *sd)
{
    lrn_side_t *ls = (lrn_side_t *)(void *)sd->priv;
    dnb_mside_tensor_release(sd, &ls->xd);
    if (ls->ld)
        sd->lib->cudnnDestroyLRNDescriptor(ls->ld);
    ls->ld = NULL;
}

static cudnnStatus_t lrn_call(const dnb_mside_t *sd, void *const *b)
{
    const lrn_side_t *ls = (const lrn_side_t *)(const void *)sd->priv;
    const void *one = dnb_one(sd->dt), *zero = dnb_zero(sd->dt);
    if (sd->dir == DIR_FWD)
        return sd->lib->cudnnLRNCrossChannelForward(sd->h, ls->ld, CUDNN_LRN_CROSS_CHANNEL_DIM1,
                                                    one, ls->xd, b[F_X], zero, ls->xd, b[F_Y]);
    return sd->lib->cudnnLRNCrossChannelBackward(sd->h, ls->ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, one,
                                                 ls->xd, b[B_Y], ls->xd, b[B_DY], ls->xd, b[B_X],
                                                 zero, ls->xd, b[B_DX]);
}

/* Forward: y = x d^-beta with d = k + alpha/size sum x^2 over the window [c - lb, c + la]
 * (lb = (size - 1) / 2, la = size - 1 - lb): S = |y|, the window's sum and the power give
 * K = 2 size + 16. Backward: dx = dy d^-beta - 2 alpha beta / size x sum over the windows that
 * hold c of dy y / d: S = |dy| d^-beta + 2 |alpha| beta / size |x| sum |dy y| / d; the y read
 * is rounded to the data type while a library may recompute it from x: u_in. */
static void lrn_tolerance(const dnb_mtol_args_t *a, int t, double *S, dnb_tol_t *tol)
{
    (void)t;
    const lrn_shape_t *s = shape_of(a->p);
    const int64_t lb = (s->size - 1) / 2, la = s->size - 1 - lb, n = count_of(s);
    tol->k = 2 * s->size + 16;
    if (a->dir == DIR_FWD) {
#pragma omp parallel for schedule(static) if (n >= DNB_PAR_MIN)
        for (int64_t i = 0; i < n; i++)
            S[i] = fabs(a->out[F_Y][i]);
        return;
    }
    tol->u_in = dnb_unit_roundoff(tol->out_dt);
    const double *x = a->in[B_X], *y = a->in[B_Y], *dy = a->in[B_DY];
    double *d = malloc(sizeof(double) * (size_t)n + 1);
    if (d == NULL) { /* no room for the precise bound: a loose one */
        for (int64_t i = 0; i < n; i++)
            S[i] = fabs(dy[i]) + fabs(x[i] * dy[i] * y[i]) * s->size;
        return;
    }
#define OFF(ni, ci, hi, wi) dnb_off4(a->nhwc, s->c, s->h, s->w, ni, ci, hi, wi)
    /* pixels in OpenMP threads: each writes only its own pixel's elements */
#pragma omp parallel for collapse(2) schedule(static) if (n >= DNB_PAR_MIN)
    for (int64_t ni = 0; ni < s->n; ni++)
        for (int64_t hi = 0; hi < s->h; hi++)
            for (int64_t wi = 0; wi < s->w; wi++)
                for (int64_t c = 0; c < s->c; c++) {
                    double sum = 0;
                    for (int64_t j = c - lb; j <= c + la; j++)
                        if (j >= 0 && j < s->c) {
                            double v = x[OFF(ni, j, hi, wi)];
                            sum += v * v;
                        }
                    d[OFF(ni, c, hi, wi)] = s->k + s->alpha / (double)s->size * sum;
                }
    const double coef = 2.0 * fabs(s->alpha) * s->beta / (double)s->size;
#pragma omp parallel for collapse(2) schedule(static) if (n >= DNB_PAR_MIN)
    for (int64_t ni = 0; ni < s->n; ni++)
        for (int64_t hi = 0; hi < s->h; hi++)
            for (int64_t wi = 0; wi < s->w; wi++)
                for (int64_t c = 0; c < s->c; c++) {
                    const int64_t i = OFF(ni, c, hi, wi);
                    double sum = 0; /* windows of channels j whose window holds c */
                    for (int64_t j = c - la; j <= c + lb; j++)
                        if (j >= 0 && j < s->c) {
                            const int64_t q = OFF(ni, j, hi, wi);
                            sum += fabs(dy[q] * y[q]) / fabs(d[q]);
                        }
                    S[i] = fabs(dy[i]) * pow(fabs(d[i]), -s->beta) + coef * fabs(x[i]) * sum;
                }
#undef OFF
    free(d);
}

static const char *const lrn_impl_ops[] = {"FD_OP_LRN_FWD", "fwd", "FD_OP_LRN_BWD", "bwd", NULL};

static const dnb_memop_t lrn_memop = {
    .spec = lrn_spec,
    .missing = lrn_missing,
    .setup = lrn_setup,
    .release = lrn_release,
    .call = lrn_call,
    .tolerance = lrn_tolerance,
    .impl_ops = lrn_impl_ops,
};

static void lrn_run(const dnb_ctx_t *ctx, const dnb_problem_t *p, int dir, dnb_row_t *row)
{
    dnb_memop_run(&lrn_memop, ctx, p, dir, row);
}

static double lrn_bytes(const dnb_problem_t *p, int dir, const dnb_dt_t *dt)
{
    return dnb_memop_bytes(&lrn_memop, p, dir, dt);
}

static int lrn_impl(const char *name, dnb_opts_t *o, char *err, size_t err_size)
{
    return dnb_memop_impl(&lrn_memop, &dnb_op_lrn, name, o, err, err_size);
}

const dnb_op_t dnb_op_lrn = {
    .name = "lrn",
    .dirs = lrn_dirs,
    .parse = lrn_parse,
    .set_batch = lrn_set_batch,
    .format = lrn_format,
    .flop = lrn_flop,
    .bytes = lrn_bytes,
    .option = lrn_option,
    .impl = lrn_impl,
    .run = lrn_run,
};
