/* SPDX-License-Identifier: MIT */
/*
 * op_pool.c - dnnbench's pooling: cudnnPoolingForward and cudnnPoolingBackward on 2-d problems,
 * modes max, max_det (CUDNN_POOLING_MAX_DETERMINISTIC), avg_incl and avg_excl (average counting
 * or excluding the padding), NCHW or NHWC, through the memory-bound driver (memop.c).
 *
 * Problem: "n2c16h28w28k3s2p1 mode=max" - window k, stride s, padding p for both axes (kw=,
 * sw=, pw= override the width's); defaults n1, w = h, k2, s = k, p0, mode=max.
 * Max pooling's x is tie-free inside every window (see pool_fill), so the position a backward
 * routes dy to is the same in every library; the backward reads the forward's y of the oracle.
 */
#include <inttypes.h>
#include <string.h>

#include "memop.h"

typedef struct pool_shape {
    int64_t n, c, h, w, kh, kw, sh, sw, ph, pw;
    int mode; /* index of mode_names */
} pool_shape_t;
_Static_assert(sizeof(pool_shape_t) <= DNB_PROBLEM_BYTES, "a pool shape fits a dnb_problem_t");

enum { DIR_FWD, DIR_BWD };
static const char *const pool_dirs[] = {"fwd", "bwd", NULL};
static const char *const mode_names[] = {"max", "avg_incl", "avg_excl", "max_det", NULL};
static const cudnnPoolingMode_t mode_enum[] = {
    CUDNN_POOLING_MAX, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
    CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, CUDNN_POOLING_MAX_DETERMINISTIC};
_Static_assert(sizeof mode_enum / sizeof mode_enum[0] ==
                   sizeof mode_names / sizeof mode_names[0] - 1,
               "one enum per mode name");

static const pool_shape_t *shape_of(const dnb_problem_t *p)
{
    return (const pool_shape_t *)(const void *)p->data;
}

static int is_max(const pool_shape_t *s)
{
    return mode_enum[s->mode] == CUDNN_POOLING_MAX ||
           mode_enum[s->mode] == CUDNN_POOLING_MAX_DETERMINISTIC;
}

static int64_t out_h(const pool_shape_t *s)
{
    return (s->h + 2 * s->ph - s->kh) / s->sh + 1;
}

static int64_t out_w(const pool_shape_t *s)
{
    return (s->w + 2 * s->pw - s->kw) / s->sw + 1;
}

/* ---- problem text ------------------------------------------------------------------------ */

static int pool_field(void *ctx, const char *key, const char *value, char *err, size_t err_size)
{
    pool_shape_t *s = ctx;
    if (strcmp(key, "mode") == 0)
        return dnb_field_enum(key, value, mode_names, &s->mode, err, err_size);
    int64_t *dst = strcmp(key, "kw") == 0   ? &s->kw
                   : strcmp(key, "sw") == 0 ? &s->sw
                   : strcmp(key, "pw") == 0 ? &s->pw
                                            : NULL;
    double v;
    if (dst == NULL) {
        snprintf(err, err_size, "unknown field '%s' (known: mode kw sw pw)", key);
        return -1;
    }
    if (dnb_field_double(key, value, 0, INT32_MAX, &v, err, err_size))
        return -1;
    *dst = (int64_t)v;
    return 0;
}

static int pool_parse(const char *text, dnb_problem_t *p, char *err, size_t err_size)
{
    pool_shape_t *s = (pool_shape_t *)(void *)p->data;
    static const char letters[] = "nchwksp";
    int64_t v[7];
    int given[7];
    memset(s, 0, sizeof *s);
    s->kw = s->sw = s->pw = -1; /* -1: as the height's */
    if (dnb_memop_parse(text, letters, v, given, pool_field, s, err, err_size))
        return -1;
    if (!given[1] || !given[2]) {
        snprintf(err, err_size, "'c' and 'h' are required (e.g. n2c16h28w28k3s2p1 mode=max)");
        return -1;
    }
    s->n = given[0] ? v[0] : 1, s->c = v[1], s->h = v[2], s->w = given[3] ? v[3] : s->h;
    s->kh = given[4] ? v[4] : 2, s->sh = given[5] ? v[5] : s->kh, s->ph = given[6] ? v[6] : 0;
    s->kw = s->kw < 0 ? s->kh : s->kw, s->sw = s->sw < 0 ? s->sh : s->sw;
    s->pw = s->pw < 0 ? s->ph : s->pw;
    if (s->n < 1 || s->c < 1 || s->h < 1 || s->w < 1 || s->kh < 1 || s->kw < 1 || s->sh < 1 ||
        s->sw < 1) {
        snprintf(err, err_size, "sizes, windows and strides must be positive");
        return -1;
    }
    if (s->ph >= s->kh || s->pw >= s->kw) {
        snprintf(err, err_size,
                 "padding %" PRId64 "x%" PRId64 " must be smaller than the %" PRId64 "x%" PRId64
                 " window",
                 s->ph, s->pw, s->kh, s->kw);
        return -1;
    }
    if (s->h + 2 * s->ph < s->kh || s->w + 2 * s->pw < s->kw) {
        snprintf(err, err_size,
                 "the %" PRId64 "x%" PRId64 " window does not fit the padded %" PRId64 "x%" PRId64
                 " input",
                 s->kh, s->kw, s->h + 2 * s->ph, s->w + 2 * s->pw);
        return -1;
    }
    return 0;
}

static void pool_set_batch(dnb_problem_t *p, int64_t n)
{
    ((pool_shape_t *)(void *)p->data)->n = n;
}

static void pool_format(const dnb_problem_t *p, char *buf, size_t size)
{
    const pool_shape_t *s = shape_of(p);
    char kw[24] = "", sw[24] = "", pw[24] = "";
    if (s->kw != s->kh)
        snprintf(kw, sizeof kw, " kw=%" PRId64, s->kw);
    if (s->sw != s->sh)
        snprintf(sw, sizeof sw, " sw=%" PRId64, s->sw);
    if (s->pw != s->ph)
        snprintf(pw, sizeof pw, " pw=%" PRId64, s->pw);
    snprintf(buf, size,
             "n%" PRId64 "c%" PRId64 "h%" PRId64 "w%" PRId64 "k%" PRId64 "s%" PRId64 "p%" PRId64
             "%s%s%s mode=%s",
             s->n, s->c, s->h, s->w, s->kh, s->sh, s->ph, kw, sw, pw, mode_names[s->mode]);
}

static double pool_flop(const dnb_problem_t *p, int dir)
{
    (void)dir; /* one compare or add per window element, either way */
    const pool_shape_t *s = shape_of(p);
    return (double)s->n * (double)s->c * (double)out_h(s) * (double)out_w(s) * (double)s->kh *
           (double)s->kw;
}

static int pool_option(const char *arg, char *err, size_t err_size)
{
    (void)arg, (void)err, (void)err_size;
    return 0;
}

/* ---- the call ------------------------------------------------------------------------------ */

/* Tensors: forward x, y; backward y (derived), dy, x, dx. */
enum { F_X, F_Y };
enum { B_Y, B_DY, B_X, B_DX };

static void pool_spec(const dnb_problem_t *p, int dir, dnb_mspec_t *sp)
{
    const pool_shape_t *s = shape_of(p);
    const int64_t nx = s->n * s->c * s->h * s->w, ny = s->n * s->c * out_h(s) * out_w(s);
    const int max = is_max(s);
    sp->abs_oracle = 1; /* avg is linear in x (dy); max is monotone in |x| and linear in dy */
    sp->derive_dir = -1;
    if (dir == DIR_FWD) {
        int x = dnb_mspec_add(sp, "x", DNB_MT_IN, nx);
        sp->t[x].linear = 1;
        sp->t[x].fill = max ? DNB_FILL_OP : DNB_FILL_DEFAULT;
        sp->primary = dnb_mspec_add(sp, "y", DNB_MT_OUT, ny);
        return;
    }
    int y = dnb_mspec_add(sp, "y", DNB_MT_IN, ny);
    sp->t[y].derived = 1;
    sp->t[y].traffic = 0; /* max recomputes it from x, avg does not need it */
    int dy = dnb_mspec_add(sp, "dy", DNB_MT_IN, ny);
    sp->t[dy].linear = 1;
    int x = dnb_mspec_add(sp, "x", DNB_MT_IN, nx);
    sp->t[x].fill = max ? DNB_FILL_OP : DNB_FILL_DEFAULT;
    sp->t[x].traffic = max; /* the argmax needs x; average pooling's gradient does not */
    sp->primary = dnb_mspec_add(sp, "dx", DNB_MT_OUT, nx);
    sp->derive_dir = DIR_FWD;
}

/* Max pooling's x: inside any window no two values are equal. Element (h, w) of image (n, c)
 * holds perm(h % kh, w % kw) * B + a random part below B, perm a random bijection of the
 * kh*kw residues per image; positions of one window have distinct residues, so distinct high
 * parts. Values stay within the exact integers of the type (kh*kw*B <= the exact limit, B <= 64;
 * windows beyond the limit - over 256 elements in bf16 - may tie). Reals: the same, scaled by a
 * power of two into [-1, 1). */
static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b, b = t;
    }
    return a;
}

static void pool_fill(const dnb_problem_t *p, int dir, int t, int nhwc, int real,
                      cudnnDataType_t tdt, dnb_rng_t *r, int64_t i0, double *v, int64_t n)
{
    (void)dir, (void)t;
    const pool_shape_t *s = shape_of(p);
    const uint64_t kk = (uint64_t)(s->kh * s->kw);
    double limit = dnb_exact_limit(tdt);
    limit = limit > 0 ? limit : 127; /* int8 */
    uint64_t B = limit / (double)kk >= 2 ? (uint64_t)(limit / (double)kk) : 1;
    B = B > 64 ? 64 : B;
    const int64_t half = (int64_t)(kk * B / 2);
    double scale = 1.0;
    while (real && scale * (double)half >= 1.0)
        scale *= 0.5;
    int64_t last_n = -1, last_c = -1;
    uint64_t hsh = 0, a = 1;
    for (int64_t k = 0; k < n; k++) {
        int64_t i = i0 + k, ni, ci, hi, wi;
        if (nhwc) { /* i = ((n H + h) W + w) C + c */
            ci = i % s->c, wi = (i / s->c) % s->w, hi = (i / (s->c * s->w)) % s->h;
            ni = i / (s->c * s->w * s->h);
        } else {
            wi = i % s->w, hi = (i / s->w) % s->h, ci = (i / (s->w * s->h)) % s->c;
            ni = i / (s->w * s->h * s->c);
        }
        /* perm(res) = (a res + b) mod kk with gcd(a, kk) = 1, a and b from the image's hash
         * (once a run of one image's elements) */
        if (ni != last_n || ci != last_c) {
            uint64_t img[2] = {(uint64_t)ni, (uint64_t)ci};
            hsh = dnb_hash(img, sizeof img, 0xcbf29ce484222325ull), a = 1 + hsh % kk;
            while (gcd64(a, kk) != 1)
                a = a % kk + 1;
            last_n = ni, last_c = ci;
        }
        uint64_t res = (uint64_t)((hi % s->kh) * s->kw + wi % s->kw);
        uint64_t high = (a * res + (hsh >> 32)) % kk;
        uint64_t low = dnb_hash(&r->s, sizeof r->s, (uint64_t)i) % B;
        v[k] = (double)((int64_t)(high * B + low) - half) * scale;
    }
}

typedef struct pool_side {
    cudnnTensorDescriptor_t xd, yd;
    cudnnPoolingDescriptor_t pd;
} pool_side_t;
_Static_assert(sizeof(pool_side_t) <= sizeof(((dnb_mside_t *)0)->priv), "fits priv");

static const char *pool_missing(const dnb_lib_t *l, const dnb_problem_t *p, int dir)
{
    (void)p;
#define NEED(f)                                                                                    \
    if (l->f == NULL)                                                                              \
        return #f;
    NEED(cudnnCreateTensorDescriptor)
    NEED(cudnnDestroyTensorDescriptor)
    NEED(cudnnSetTensor4dDescriptor)
    NEED(cudnnCreatePoolingDescriptor)
    NEED(cudnnDestroyPoolingDescriptor)
    NEED(cudnnSetPooling2dDescriptor)
    if (dir == DIR_FWD) {
        NEED(cudnnPoolingForward)
    } else {
        NEED(cudnnPoolingBackward)
    }
#undef NEED
    return NULL;
}

static cudnnStatus_t pool_setup(dnb_mside_t *sd, const char **what)
{
    pool_side_t *ps = (pool_side_t *)(void *)sd->priv;
    const pool_shape_t *s = shape_of(sd->p);
    cudnnStatus_t st;
    *what = "cudnnSetTensor4dDescriptor(x)";
    if ((st = dnb_mside_tensor(sd, &ps->xd, s->n, s->c, s->h, s->w)))
        return st;
    *what = "cudnnSetTensor4dDescriptor(y)";
    if ((st = dnb_mside_tensor(sd, &ps->yd, s->n, s->c, out_h(s), out_w(s))))
        return st;
    *what = "cudnnCreatePoolingDescriptor";
    if ((st = sd->lib->cudnnCreatePoolingDescriptor(&ps->pd))) {
        ps->pd = NULL;
        return st;
    }
    *what = "cudnnSetPooling2dDescriptor";
    return sd->lib->cudnnSetPooling2dDescriptor(ps->pd, mode_enum[s->mode], CUDNN_NOT_PROPAGATE_NAN,
                                                (int)s->kh, (int)s->kw, (int)s->ph, (int)s->pw,
                                                (int)s->sh, (int)s->sw);
}

static void pool_release(dnb_mside_t *sd)
{
    pool_side_t *ps = (pool_side_t *)(void *)sd->priv;
    dnb_mside_tensor_release(sd, &ps->xd);
    dnb_mside_tensor_release(sd, &ps->yd);
    if (ps->pd)
        sd->lib->cudnnDestroyPoolingDescriptor(ps->pd);
    ps->pd = NULL;
}

static cudnnStatus_t pool_call(const dnb_mside_t *sd, void *const *b)
{
    const pool_side_t *ps = (const pool_side_t *)(const void *)sd->priv;
    const void *one = dnb_one(sd->dt), *zero = dnb_zero(sd->dt);
    if (sd->dir == DIR_FWD)
        return sd->lib->cudnnPoolingForward(sd->h, ps->pd, one, ps->xd, b[F_X], zero, ps->yd,
                                            b[F_Y]);
    return sd->lib->cudnnPoolingBackward(sd->h, ps->pd, one, ps->yd, b[B_Y], ps->yd, b[B_DY],
                                         ps->xd, b[B_X], zero, ps->xd, b[B_DX]);
}

/* S is the oracle on |x| (|dy|); K: the window's terms (avg adds kh*kw and divides), or the
 * windows that overlap one input (backward). Max forward picks an input: exact always. */
static void pool_tolerance(const dnb_mtol_args_t *a, int t, double *S, dnb_tol_t *tol)
{
    (void)t, (void)S;
    const pool_shape_t *s = shape_of(a->p);
    const int64_t overlap = ((s->kh + s->sh - 1) / s->sh) * ((s->kw + s->sw - 1) / s->sw);
    if (a->dir == DIR_FWD) {
        tol->k = s->kh * s->kw + 2;
        tol->exact = is_max(s);
    } else {
        tol->k = overlap + 2;
        tol->exact = is_max(s) && !a->fill_real; /* sums of routed integers */
    }
}

static const char *const pool_impl_ops[] = {"FD_OP_POOL_FWD", "fwd", "FD_OP_POOL_BWD", "bwd", NULL};

static const dnb_memop_t pool_memop = {
    .spec = pool_spec,
    .missing = pool_missing,
    .setup = pool_setup,
    .release = pool_release,
    .call = pool_call,
    .tolerance = pool_tolerance,
    .fill = pool_fill,
    .impl_ops = pool_impl_ops,
};

static void pool_run(const dnb_ctx_t *ctx, const dnb_problem_t *p, int dir, dnb_row_t *row)
{
    dnb_memop_run(&pool_memop, ctx, p, dir, row);
}

static double pool_bytes(const dnb_problem_t *p, int dir, const dnb_dt_t *dt)
{
    return dnb_memop_bytes(&pool_memop, p, dir, dt);
}

static int pool_impl(const char *name, dnb_opts_t *o, char *err, size_t err_size)
{
    return dnb_memop_impl(&pool_memop, &dnb_op_pool, name, o, err, err_size);
}

const dnb_op_t dnb_op_pool = {
    .name = "pool",
    .dirs = pool_dirs,
    .parse = pool_parse,
    .set_batch = pool_set_batch,
    .format = pool_format,
    .flop = pool_flop,
    .bytes = pool_bytes,
    .option = pool_option,
    .impl = pool_impl,
    .run = pool_run,
};
