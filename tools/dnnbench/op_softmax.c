/* SPDX-License-Identifier: MIT */
/*
 * op_softmax.c - dnnbench's softmax: cudnnSoftmaxForward and cudnnSoftmaxBackward, algorithms
 * accurate, log and fast, modes channel (over C, per n, h, w) and instance (over C, H, W per
 * n), NCHW or NHWC, through memop.c.
 *
 * Problem: "n2c16h28w28 algo=accurate mode=channel" (those are the defaults). The backward
 * reads the oracle's y. The tolerance counts the group's terms: K = group size + 16.
 */
#include <math.h>
#include <string.h>

#include "memop.h"

typedef struct softmax_shape {
    int64_t n, c, h, w;
    int algo, mode; /* indices of algo_names, mode_names */
} softmax_shape_t;
_Static_assert(sizeof(softmax_shape_t) <= DNB_PROBLEM_BYTES, "fits a dnb_problem_t");

enum { DIR_FWD, DIR_BWD };
static const char *const softmax_dirs[] = {"fwd", "bwd", NULL};
static const char *const algo_names[] = {"accurate", "log", "fast", NULL};
static const cudnnSoftmaxAlgorithm_t algo_enum[] = {CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_LOG,
                                                    CUDNN_SOFTMAX_FAST};
static const char *const mode_names[] = {"channel", "instance", NULL};
static const cudnnSoftmaxMode_t mode_enum[] = {CUDNN_SOFTMAX_MODE_CHANNEL,
                                               CUDNN_SOFTMAX_MODE_INSTANCE};
_Static_assert(sizeof algo_enum / sizeof algo_enum[0] == 3 &&
                   sizeof mode_enum / sizeof mode_enum[0] == 2,
               "one enum per name");

static const softmax_shape_t *shape_of(const dnb_problem_t *p)
{
    return (const softmax_shape_t *)(const void *)p->data;
}

static int64_t count_of(const softmax_shape_t *s)
{
    return s->n * s->c * s->h * s->w;
}

/* ---- problem text ------------------------------------------------------------------------ */

static int softmax_field(void *ctx, const char *key, const char *value, char *err, size_t err_size)
{
    softmax_shape_t *s = ctx;
    if (strcmp(key, "algo") == 0)
        return dnb_field_enum(key, value, algo_names, &s->algo, err, err_size);
    if (strcmp(key, "mode") == 0)
        return dnb_field_enum(key, value, mode_names, &s->mode, err, err_size);
    snprintf(err, err_size, "unknown field '%s' (known: algo mode)", key);
    return -1;
}

static int softmax_parse(const char *text, dnb_problem_t *p, char *err, size_t err_size)
{
    softmax_shape_t *s = (softmax_shape_t *)(void *)p->data;
    memset(s, 0, sizeof *s);
    int64_t d[4];
    if (dnb_parse_nchw(text, d, softmax_field, s, err, err_size))
        return -1;
    s->n = d[0], s->c = d[1], s->h = d[2], s->w = d[3];
    return 0;
}

static void softmax_set_batch(dnb_problem_t *p, int64_t n)
{
    ((softmax_shape_t *)(void *)p->data)->n = n;
}

static void softmax_format(const dnb_problem_t *p, char *buf, size_t size)
{
    const softmax_shape_t *s = shape_of(p);
    snprintf(buf, size, "n%lldc%lldh%lldw%lld algo=%s mode=%s", (long long)s->n, (long long)s->c,
             (long long)s->h, (long long)s->w, algo_names[s->algo], mode_names[s->mode]);
}

/* An estimate (for --ref-max-gflop): max, subtract, exp, sum, divide: ~5 per element forward,
 * ~4 backward. */
static double softmax_flop(const dnb_problem_t *p, int dir)
{
    return (double)count_of(shape_of(p)) * (dir == DIR_FWD ? 5.0 : 4.0);
}

static int softmax_option(const char *arg, char *err, size_t err_size)
{
    (void)arg, (void)err, (void)err_size;
    return 0;
}

/* ---- the call ------------------------------------------------------------------------------ */

enum { F_X, F_Y };
enum { B_Y, B_DY, B_DX };

static void softmax_spec(const dnb_problem_t *p, int dir, dnb_mspec_t *sp)
{
    const int64_t n = count_of(shape_of(p));
    sp->derive_dir = -1;
    if (dir == DIR_FWD) {
        dnb_mspec_add(sp, "x", DNB_MT_IN, n);
        sp->primary = dnb_mspec_add(sp, "y", DNB_MT_OUT, n);
        return;
    }
    sp->t[dnb_mspec_add(sp, "y", DNB_MT_IN, n)].derived = 1;
    dnb_mspec_add(sp, "dy", DNB_MT_IN, n);
    sp->primary = dnb_mspec_add(sp, "dx", DNB_MT_OUT, n);
    sp->derive_dir = DIR_FWD;
}

typedef struct softmax_side {
    cudnnTensorDescriptor_t xd;
} softmax_side_t;
_Static_assert(sizeof(softmax_side_t) <= sizeof(((dnb_mside_t *)0)->priv), "fits priv");

static const char *softmax_missing(const dnb_lib_t *l, const dnb_problem_t *p, int dir)
{
    (void)p;
#define NEED(f)                                                                                    \
    if (l->f == NULL)                                                                              \
        return #f;
    NEED(cudnnCreateTensorDescriptor)
    NEED(cudnnDestroyTensorDescriptor)
    NEED(cudnnSetTensor4dDescriptor)
    if (dir == DIR_FWD) {
        NEED(cudnnSoftmaxForward)
    } else {
        NEED(cudnnSoftmaxBackward)
    }
#undef NEED
    return NULL;
}

static cudnnStatus_t softmax_setup(dnb_mside_t *sd, const char **what)
{
    softmax_side_t *ss = (softmax_side_t *)(void *)sd->priv;
    const softmax_shape_t *s = shape_of(sd->p);
    *what = "cudnnSetTensor4dDescriptor(x)";
    return dnb_mside_tensor(sd, &ss->xd, s->n, s->c, s->h, s->w);
}

static void softmax_release(dnb_mside_t *sd)
{
    dnb_mside_tensor_release(sd, &((softmax_side_t *)(void *)sd->priv)->xd);
}

static cudnnStatus_t softmax_call(const dnb_mside_t *sd, void *const *b)
{
    const softmax_side_t *ss = (const softmax_side_t *)(const void *)sd->priv;
    const softmax_shape_t *s = shape_of(sd->p);
    const void *one = dnb_one(sd->dt), *zero = dnb_zero(sd->dt);
    const cudnnSoftmaxAlgorithm_t algo = algo_enum[s->algo];
    const cudnnSoftmaxMode_t mode = mode_enum[s->mode];
    if (sd->dir == DIR_FWD)
        return sd->lib->cudnnSoftmaxForward(sd->h, algo, mode, one, ss->xd, b[F_X], zero, ss->xd,
                                            b[F_Y]);
    return sd->lib->cudnnSoftmaxBackward(sd->h, algo, mode, one, ss->xd, b[B_Y], ss->xd, b[B_DY],
                                         zero, ss->xd, b[B_DX]);
}

/* Per group (channel: the C values of one n, h, w; instance: the C H W values of one n), with
 * z = x - max: forward y = e^z / sum e^z, relative error ~ (1 + |z| + |x|) u per exp plus K u of
 * the sum: S = |y| (1 + |x| + |z|); log: y = z - log sum, S = |z| + |log sum| + 1. Backward
 * dx = y (dy - sum dy y): S = |y| (|dy| + sum |dy y|); log: dx = dy - e^y sum dy,
 * S = |dy| + e^y (1 + |y|) sum |dy|. */
static void softmax_tolerance(const dnb_mtol_args_t *a, int t, double *S, dnb_tol_t *tol)
{
    (void)t;
    const softmax_shape_t *s = shape_of(a->p);
    const int channel = mode_enum[s->mode] == CUDNN_SOFTMAX_MODE_CHANNEL;
    const int is_log = algo_enum[s->algo] == CUDNN_SOFTMAX_LOG;
    const int64_t g_size = channel ? s->c : s->c * s->h * s->w;
    const int64_t groups = channel ? s->n * s->h * s->w : s->n;
    tol->k = g_size + 16;
    /* groups in OpenMP threads: each writes only its own members */
#pragma omp parallel for schedule(static) if (groups * g_size >= DNB_PAR_MIN)
    for (int64_t g = 0; g < groups; g++) {
        /* member j of group g: (n, c, h, w) */
        const int64_t n = channel ? g / (s->h * s->w) : g;
        const int64_t hw = channel ? g % (s->h * s->w) : 0;
#define OFF(j)                                                                                     \
    (channel ? dnb_off4(a->nhwc, s->c, s->h, s->w, n, (j), hw / s->w, hw % s->w)                   \
             : dnb_off4(a->nhwc, s->c, s->h, s->w, n, (j) / (s->h * s->w), ((j) / s->w) % s->h,    \
                        (j) % s->w))
        if (a->dir == DIR_FWD) {
            const double *x = a->in[F_X], *y = a->out[F_Y];
            double mx = -INFINITY;
            for (int64_t j = 0; j < g_size; j++)
                mx = fmax(mx, x[OFF(j)]);
            for (int64_t j = 0; j < g_size; j++) {
                const int64_t i = OFF(j);
                const double z = x[i] - mx;
                S[i] = is_log ? fabs(z) + fabs(z - y[i]) + 1.0
                              : fabs(y[i]) * (1.0 + fabs(x[i]) + fabs(z));
            }
        } else {
            const double *y = a->in[B_Y], *dy = a->in[B_DY];
            double dot = 0, sdy = 0;
            for (int64_t j = 0; j < g_size; j++) {
                const int64_t i = OFF(j);
                dot += fabs(dy[i] * y[i]);
                sdy += fabs(dy[i]);
            }
            for (int64_t j = 0; j < g_size; j++) {
                const int64_t i = OFF(j);
                S[i] = is_log ? fabs(dy[i]) + exp(y[i]) * (1.0 + fabs(y[i])) * sdy
                              : fabs(y[i]) * (fabs(dy[i]) + dot);
            }
        }
#undef OFF
    }
}

static const char *const softmax_impl_ops[] = {"FD_OP_SOFTMAX_FWD", "fwd", "FD_OP_SOFTMAX_BWD",
                                               "bwd", NULL};

static const dnb_memop_t softmax_memop = {
    .spec = softmax_spec,
    .missing = softmax_missing,
    .setup = softmax_setup,
    .release = softmax_release,
    .call = softmax_call,
    .tolerance = softmax_tolerance,
    .impl_ops = softmax_impl_ops,
};

static void softmax_run(const dnb_ctx_t *ctx, const dnb_problem_t *p, int dir, dnb_row_t *row)
{
    dnb_memop_run(&softmax_memop, ctx, p, dir, row);
}

static double softmax_bytes(const dnb_problem_t *p, int dir, const dnb_dt_t *dt)
{
    return dnb_memop_bytes(&softmax_memop, p, dir, dt);
}

static int softmax_impl(const char *name, dnb_opts_t *o, char *err, size_t err_size)
{
    return dnb_memop_impl(&softmax_memop, &dnb_op_softmax, name, o, err, err_size);
}

const dnb_op_t dnb_op_softmax = {
    .name = "softmax",
    .dirs = softmax_dirs,
    .parse = softmax_parse,
    .set_batch = softmax_set_batch,
    .format = softmax_format,
    .flop = softmax_flop,
    .bytes = softmax_bytes,
    .option = softmax_option,
    .impl = softmax_impl,
    .run = softmax_run,
};
