/* SPDX-License-Identifier: MIT */
/*
 * op_act.c - dnnbench's activations: cudnnActivationForward and cudnnActivationBackward, modes
 * relu, sigmoid, tanh, clipped_relu, elu and swish, NCHW or NHWC, through memop.c.
 *
 * Problem: "n2c16h28w28 mode=relu" with coef= (clipped_relu's ceiling, 1.5 by default; elu's
 * alpha, 1) and beta= (swish, 1). Inputs span [-2, 2) so that every branch is taken (reals
 * doubled; integers from {-2, -1, 1, 2}); an x equal to the clipped ceiling is moved off it,
 * since libraries may differ in the derivative there. The backward reads the oracle's y.
 */
#include <math.h>
#include <string.h>

#include "memop.h"

typedef struct act_shape {
    int64_t n, c, h, w;
    int mode; /* index of mode_names */
    double coef, beta;
} act_shape_t;
_Static_assert(sizeof(act_shape_t) <= DNB_PROBLEM_BYTES, "an act shape fits a dnb_problem_t");

enum { DIR_FWD, DIR_BWD };
static const char *const act_dirs[] = {"fwd", "bwd", NULL};
static const char *const mode_names[] = {"relu", "sigmoid", "tanh", "clipped_relu",
                                         "elu",  "swish",   NULL};
static const cudnnActivationMode_t mode_enum[] = {
    CUDNN_ACTIVATION_RELU,         CUDNN_ACTIVATION_SIGMOID, CUDNN_ACTIVATION_TANH,
    CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_ACTIVATION_ELU,     CUDNN_ACTIVATION_SWISH};
_Static_assert(sizeof mode_enum / sizeof mode_enum[0] ==
                   sizeof mode_names / sizeof mode_names[0] - 1,
               "one enum per mode name");

static const act_shape_t *shape_of(const dnb_problem_t *p)
{
    return (const act_shape_t *)(const void *)p->data;
}

static cudnnActivationMode_t mode_of(const act_shape_t *s)
{
    return mode_enum[s->mode];
}

static int64_t count_of(const act_shape_t *s)
{
    return s->n * s->c * s->h * s->w;
}

/* ---- problem text ------------------------------------------------------------------------ */

typedef struct act_parse {
    act_shape_t *s;
    int coef_given, beta_given;
} act_parse_t;

static int act_field(void *ctx, const char *key, const char *value, char *err, size_t err_size)
{
    act_parse_t *a = ctx;
    if (strcmp(key, "mode") == 0)
        return dnb_field_enum(key, value, mode_names, &a->s->mode, err, err_size);
    if (strcmp(key, "coef") == 0) {
        a->coef_given = 1;
        return dnb_field_double(key, value, -1e6, 1e6, &a->s->coef, err, err_size);
    }
    if (strcmp(key, "beta") == 0) {
        a->beta_given = 1;
        return dnb_field_double(key, value, -1e6, 1e6, &a->s->beta, err, err_size);
    }
    snprintf(err, err_size, "unknown field '%s' (known: mode coef beta)", key);
    return -1;
}

static int act_parse(const char *text, dnb_problem_t *p, char *err, size_t err_size)
{
    act_shape_t *s = (act_shape_t *)(void *)p->data;
    memset(s, 0, sizeof *s);
    act_parse_t a = {s, 0, 0};
    int64_t d[4];
    if (dnb_parse_nchw(text, d, act_field, &a, err, err_size))
        return -1;
    s->n = d[0], s->c = d[1], s->h = d[2], s->w = d[3];
    const cudnnActivationMode_t m = mode_of(s);
    if (a.coef_given && m != CUDNN_ACTIVATION_CLIPPED_RELU && m != CUDNN_ACTIVATION_ELU) {
        snprintf(err, err_size, "coef= is for mode=clipped_relu and mode=elu");
        return -1;
    }
    if (a.beta_given && m != CUDNN_ACTIVATION_SWISH) {
        snprintf(err, err_size, "beta= is for mode=swish");
        return -1;
    }
    if (!a.coef_given)
        s->coef = m == CUDNN_ACTIVATION_CLIPPED_RELU ? 1.5 : 1.0;
    if (!a.beta_given)
        s->beta = 1.0;
    return 0;
}

static void act_set_batch(dnb_problem_t *p, int64_t n)
{
    ((act_shape_t *)(void *)p->data)->n = n;
}

static void act_format(const dnb_problem_t *p, char *buf, size_t size)
{
    const act_shape_t *s = shape_of(p);
    const cudnnActivationMode_t m = mode_of(s);
    char extra[48] = "", v[32];
    if (m == CUDNN_ACTIVATION_CLIPPED_RELU || m == CUDNN_ACTIVATION_ELU) {
        dnb_fmt_double(v, sizeof v, s->coef);
        snprintf(extra, sizeof extra, " coef=%s", v);
    } else if (m == CUDNN_ACTIVATION_SWISH) {
        dnb_fmt_double(v, sizeof v, s->beta);
        snprintf(extra, sizeof extra, " beta=%s", v);
    }
    snprintf(buf, size, "n%lldc%lldh%lldw%lld mode=%s%s", (long long)s->n, (long long)s->c,
             (long long)s->h, (long long)s->w, mode_names[s->mode], extra);
}

/* An estimate (for --ref-max-gflop): 1 operation per element for the relu family, 10 for the
 * modes with an exponential; the backward 2 more. */
static double act_flop(const dnb_problem_t *p, int dir)
{
    const act_shape_t *s = shape_of(p);
    const cudnnActivationMode_t m = mode_of(s);
    double per = m == CUDNN_ACTIVATION_RELU || m == CUDNN_ACTIVATION_CLIPPED_RELU ? 1.0 : 10.0;
    return (double)count_of(s) * (per + (dir == DIR_BWD ? 2.0 : 0.0));
}

static int act_option(const char *arg, char *err, size_t err_size)
{
    (void)arg, (void)err, (void)err_size;
    return 0;
}

/* ---- the call ------------------------------------------------------------------------------ */

enum { F_X, F_Y };
enum { B_Y, B_DY, B_X, B_DX };

/* The modes whose derivative cuDNN computes from y (the rest: from x). */
static int reads_y(cudnnActivationMode_t m)
{
    return m == CUDNN_ACTIVATION_SIGMOID || m == CUDNN_ACTIVATION_TANH;
}

static void act_spec(const dnb_problem_t *p, int dir, dnb_mspec_t *sp)
{
    const act_shape_t *s = shape_of(p);
    const int64_t n = count_of(s);
    sp->derive_dir = -1;
    if (dir == DIR_FWD) {
        sp->t[dnb_mspec_add(sp, "x", DNB_MT_IN, n)].fill = DNB_FILL_OP;
        sp->primary = dnb_mspec_add(sp, "y", DNB_MT_OUT, n);
        return;
    }
    int y = dnb_mspec_add(sp, "y", DNB_MT_IN, n);
    sp->t[y].derived = 1;
    sp->t[y].traffic = reads_y(mode_of(s));
    dnb_mspec_add(sp, "dy", DNB_MT_IN, n);
    int x = dnb_mspec_add(sp, "x", DNB_MT_IN, n);
    sp->t[x].fill = DNB_FILL_OP;
    sp->t[x].traffic = !reads_y(mode_of(s));
    sp->primary = dnb_mspec_add(sp, "dx", DNB_MT_OUT, n);
    sp->derive_dir = DIR_FWD;
}

/* x: [-2, 2), never exactly on the clipped ceiling. */
static void act_fill(const dnb_problem_t *p, int dir, int t, int nhwc, int real,
                     cudnnDataType_t tdt, dnb_rng_t *r, int64_t i0, double *v, int64_t n)
{
    (void)dir, (void)t, (void)nhwc, (void)i0;
    const act_shape_t *s = shape_of(p);
    if (real)
        dnb_fill_real(r, v, n, tdt == CUDNN_DATA_INT8 ? CUDNN_DATA_FLOAT : tdt);
    else
        dnb_fill_int(r, v, n, 1.0);
    for (int64_t i = 0; i < n; i++) {
        if (real)
            v[i] *= 2.0;
        if (mode_of(s) == CUDNN_ACTIVATION_CLIPPED_RELU && v[i] == s->coef)
            v[i] = dnb_round(tdt, s->coef - 0x1p-6);
    }
}

typedef struct act_side {
    cudnnTensorDescriptor_t xd;
    cudnnActivationDescriptor_t ad;
} act_side_t;
_Static_assert(sizeof(act_side_t) <= sizeof(((dnb_mside_t *)0)->priv), "fits priv");

static const char *act_missing(const dnb_lib_t *l, const dnb_problem_t *p, int dir)
{
#define NEED(f)                                                                                    \
    if (l->f == NULL)                                                                              \
        return #f;
    NEED(cudnnCreateTensorDescriptor)
    NEED(cudnnDestroyTensorDescriptor)
    NEED(cudnnSetTensor4dDescriptor)
    NEED(cudnnCreateActivationDescriptor)
    NEED(cudnnDestroyActivationDescriptor)
    NEED(cudnnSetActivationDescriptor)
    if (mode_of(shape_of(p)) == CUDNN_ACTIVATION_SWISH) {
        NEED(cudnnSetActivationDescriptorSwishBeta)
    }
    if (dir == DIR_FWD) {
        NEED(cudnnActivationForward)
    } else {
        NEED(cudnnActivationBackward)
    }
#undef NEED
    return NULL;
}

static cudnnStatus_t act_setup(dnb_mside_t *sd, const char **what)
{
    act_side_t *as = (act_side_t *)(void *)sd->priv;
    const act_shape_t *s = shape_of(sd->p);
    cudnnStatus_t st;
    *what = "cudnnSetTensor4dDescriptor(x)";
    if ((st = dnb_mside_tensor(sd, &as->xd, s->n, s->c, s->h, s->w)))
        return st;
    *what = "cudnnCreateActivationDescriptor";
    if ((st = sd->lib->cudnnCreateActivationDescriptor(&as->ad))) {
        as->ad = NULL;
        return st;
    }
    *what = "cudnnSetActivationDescriptor";
    if ((st = sd->lib->cudnnSetActivationDescriptor(as->ad, mode_of(s), CUDNN_NOT_PROPAGATE_NAN,
                                                    s->coef)))
        return st;
    if (mode_of(s) == CUDNN_ACTIVATION_SWISH) {
        *what = "cudnnSetActivationDescriptorSwishBeta";
        return sd->lib->cudnnSetActivationDescriptorSwishBeta(as->ad, s->beta);
    }
    return CUDNN_STATUS_SUCCESS;
}

static void act_release(dnb_mside_t *sd)
{
    act_side_t *as = (act_side_t *)(void *)sd->priv;
    dnb_mside_tensor_release(sd, &as->xd);
    if (as->ad)
        sd->lib->cudnnDestroyActivationDescriptor(as->ad);
    as->ad = NULL;
}

static cudnnStatus_t act_call(const dnb_mside_t *sd, void *const *b)
{
    const act_side_t *as = (const act_side_t *)(const void *)sd->priv;
    const void *one = dnb_one(sd->dt), *zero = dnb_zero(sd->dt);
    if (sd->dir == DIR_FWD)
        return sd->lib->cudnnActivationForward(sd->h, as->ad, one, as->xd, b[F_X], zero, as->xd,
                                               b[F_Y]);
    return sd->lib->cudnnActivationBackward(sd->h, as->ad, one, as->xd, b[B_Y], as->xd, b[B_DY],
                                            as->xd, b[B_X], zero, as->xd, b[B_DX]);
}

static double sigmoid(double x)
{
    return x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}

/* S per element: the magnitudes the library's roundings are relative to (as in
 * tests/ref/test_activation.c); K = 16 for the modes with an exponential (a few roundings of
 * exp, a division, a product). relu and clipped_relu select a value: exact. The backward reads
 * a y rounded to the data type, which libraries that recompute from x do not see: u_in. */
static void act_tolerance(const dnb_mtol_args_t *a, int t, double *S, dnb_tol_t *tol)
{
    const act_shape_t *s = shape_of(a->p);
    const cudnnActivationMode_t m = mode_of(s);
    const int64_t n = a->s->t[t].count;
    const int sel = m == CUDNN_ACTIVATION_RELU || m == CUDNN_ACTIVATION_CLIPPED_RELU;
    tol->k = sel ? 1 : 16;
    tol->exact = sel;
    if (a->dir == DIR_FWD) {
        const double *x = a->in[F_X], *y = a->out[F_Y];
        for (int64_t i = 0; i < n; i++)
            S[i] = m == CUDNN_ACTIVATION_ELU && x[i] <= 0 ? fabs(s->coef) * (1.0 + exp(x[i]))
                                                          : fabs(y[i]);
        return;
    }
    const double *y = a->in[B_Y], *dy = a->in[B_DY], *x = a->in[B_X];
    if (!sel)
        tol->u_in = dnb_unit_roundoff(tol->out_dt);
    for (int64_t i = 0; i < n; i++) {
        const double g = fabs(dy[i]);
        switch (m) {
        case CUDNN_ACTIVATION_SIGMOID:
            S[i] = g * (fabs(y[i]) + y[i] * y[i]);
            break;
        case CUDNN_ACTIVATION_TANH:
            S[i] = g * (1.0 + y[i] * y[i]);
            break;
        case CUDNN_ACTIVATION_ELU: /* dy alpha e^x, or dy (y + alpha) from y */
            S[i] = x[i] > 0 ? g : g * (fabs(s->coef) * (exp(x[i]) + 1.0) + fabs(y[i]));
            break;
        case CUDNN_ACTIVATION_SWISH: {
            double sg = sigmoid(s->beta * x[i]);
            S[i] = 2.0 * g * (sg + fabs(s->beta * x[i] * sg * (1.0 - sg)));
            break;
        }
        default:
            S[i] = g;
        }
    }
}

static const char *const act_impl_ops[] = {"FD_OP_ACT_FWD", "fwd", "FD_OP_ACT_BWD", "bwd", NULL};

static const dnb_memop_t act_memop = {
    .spec = act_spec,
    .missing = act_missing,
    .setup = act_setup,
    .release = act_release,
    .call = act_call,
    .tolerance = act_tolerance,
    .fill = act_fill,
    .impl_ops = act_impl_ops,
};

static void act_run(const dnb_ctx_t *ctx, const dnb_problem_t *p, int dir, dnb_row_t *row)
{
    dnb_memop_run(&act_memop, ctx, p, dir, row);
}

static double act_bytes(const dnb_problem_t *p, int dir, const dnb_dt_t *dt)
{
    return dnb_memop_bytes(&act_memop, p, dir, dt);
}

static int act_impl(const char *name, dnb_opts_t *o, char *err, size_t err_size)
{
    return dnb_memop_impl(&act_memop, &dnb_op_act, name, o, err, err_size);
}

const dnb_op_t dnb_op_act = {
    .name = "act",
    .dirs = act_dirs,
    .parse = act_parse,
    .set_batch = act_set_batch,
    .format = act_format,
    .flop = act_flop,
    .bytes = act_bytes,
    .option = act_option,
    .impl = act_impl,
    .run = act_run,
};
