/* SPDX-License-Identifier: MIT */
/*
 * test_batchnorm.c - batch normalization (cudnnBatchNormalization*) against an independent
 * oracle written from the definitions on canonical dense arrays.
 *
 * - hand-computed training forward / backward (every number written below) and two cases
 *   whose outputs were read from NVIDIA cuDNN 9.19 on an H200 (plain f32 NCHW, and the fused
 *   BN + add + ReLU in NHWC half that cuDNN runs with SPATIAL_PERSISTENT);
 * - sweeps: f32 / f64 / f16 / bf16 x PER_ACTIVATION / SPATIAL / SPATIAL_PERSISTENT x 4-d / 5-d
 *   x NCHW / NHWC / padded / permuted x BN / BN_ACTIVATION / BN_ADD_ACTIVATION (every fused
 *   activation) x alpha / beta, forward training, inference and backward, each checked against
 *   the oracle within the tolerance of docs/testing.md, with guards, holes of padded outputs,
 *   unchanged inputs, NaN-poisoned outputs for beta = 0 and the exact reserve-space size;
 * - running averages over two calls (factor 1 does not read the old values), inference with
 *   the running statistics, saved statistics vs recomputation, M = 1;
 * - backward by central finite differences in double: dx, dscale, dbias and dz;
 * - every layout gives identical bits (the cpu handle: tests/impl/test_cpu_bn_fast.c); in place
 *   (y = x, dx = dy) equals out of place.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fd_test.h"

/* ---- canonical <-> strided ---------------------------------------------------------------- */

enum { L_NCHW, L_NHWC, L_PAD, L_PERM, L_COUNT };

typedef struct {
    int nd, dim[5], stride[5];
    int64_t count, extent;
} lay_t;

static lay_t lay_make(int nd, const int *dim, int kind)
{
    lay_t l = {.nd = nd, .count = 1, .extent = 1};
    memcpy(l.dim, dim, sizeof(int) * (size_t)nd);
    int order[5]; /* outermost first */
    for (int i = 0; i < nd; i++)
        order[i] = i;
    if (kind == L_NHWC) { /* N, spatial..., C */
        for (int i = 1; i < nd - 1; i++)
            order[i] = i + 1;
        order[nd - 1] = 1;
    } else if (kind == L_PERM) { /* reversed: W outermost, N innermost */
        for (int i = 0; i < nd; i++)
            order[i] = nd - 1 - i;
    }
    int64_t acc = 1;
    for (int k = nd - 1; k >= 0; k--) {
        l.stride[order[k]] = (int)acc;
        acc = acc * dim[order[k]] + (kind == L_PAD ? 2 : 0);
    }
    for (int i = 0; i < nd; i++) {
        l.count *= dim[i];
        l.extent += (int64_t)(dim[i] - 1) * l.stride[i];
    }
    return l;
}

/* Memory offset of canonical (row-major N, C, spatial) index i. */
static int64_t lay_off(const lay_t *l, int64_t i)
{
    int64_t off = 0;
    for (int d = l->nd - 1; d >= 0; d--) {
        off += (i % l->dim[d]) * l->stride[d];
        i /= l->dim[d];
    }
    return off;
}

typedef struct {
    lay_t l;
    cudnnDataType_t dt;
    cudnnTensorDescriptor_t d;
    fd_buf_t b;
    unsigned char *snap; /* the bytes before the call */
} ten_t;

static ten_t ten_new(int nd, const int *dim, int kind, cudnnDataType_t dt)
{
    ten_t t = {.l = lay_make(nd, dim, kind), .dt = dt};
    cudnnCreateTensorDescriptor(&t.d);
    cudnnStatus_t st = cudnnSetTensorNdDescriptor(t.d, dt, nd, t.l.dim, t.l.stride);
    FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "set tensor descriptor: %s", cudnnGetErrorString(st));
    t.b = fd_buf_alloc((size_t)t.l.extent * fd_test_dtype_size(dt));
    fd_buf_poison(&t.b);
    return t;
}

static void ten_put(ten_t *t, const double *v)
{
    for (int64_t i = 0; i < t->l.count; i++)
        fd_test_store(t->dt, t->b.data, lay_off(&t->l, i), v[i]);
}

static void ten_get(const ten_t *t, double *v)
{
    for (int64_t i = 0; i < t->l.count; i++)
        v[i] = fd_test_load(t->dt, t->b.data, lay_off(&t->l, i));
}

static void ten_snap(ten_t *t)
{
    free(t->snap);
    t->snap = malloc(t->b.size + 1);
    memcpy(t->snap, t->b.data, t->b.size);
}

/* Guards intact and (output) every byte outside the addressed elements unchanged, or (input)
 * every byte unchanged. */
static int ten_intact(const ten_t *t, int input)
{
    if (!fd_buf_guards_ok(&t->b))
        return 0;
    if (t->snap == NULL)
        return 1;
    if (input)
        return memcmp(t->snap, t->b.data, t->b.size) == 0;
    size_t es = fd_test_dtype_size(t->dt);
    unsigned char *hit = calloc((size_t)t->l.extent + 1, 1);
    for (int64_t i = 0; i < t->l.count; i++)
        hit[lay_off(&t->l, i)] = 1;
    int ok = 1;
    for (int64_t o = 0; o < t->l.extent && ok; o++)
        if (!hit[o] &&
            memcmp(t->snap + o * (int64_t)es, (unsigned char *)t->b.data + o * (int64_t)es, es))
            ok = 0;
    free(hit);
    return ok;
}

/* Guards of a buffer that may not have been allocated (plain entries take no workspace). */
static int guards_ok(const fd_buf_t *b)
{
    return b->base == NULL || fd_buf_guards_ok(b);
}

static void ten_free(ten_t *t)
{
    if (t->d == NULL)
        return;
    cudnnDestroyTensorDescriptor(t->d);
    fd_buf_free(&t->b);
    free(t->snap);
    memset(t, 0, sizeof *t);
}

/* ---- cases -------------------------------------------------------------------------------- */

enum { T_X, T_Y, T_Z, T_DY, T_DX, T_DZ, T_COUNT };

typedef struct {
    int nd, dim[5];
    cudnnDataType_t dt;
    cudnnBatchNormMode_t mode;
    cudnnBatchNormOps_t ops;
    cudnnActivationMode_t act;
    double coef, swish;
    int lay[T_COUNT];
    double alpha, beta, alpha_p, beta_p, eps, factor;
    int ex;        /* through the *Ex entries (always when ops != BN) */
    int save;      /* train: pass resultSaveMean / InvVariance */
    int use_saved; /* bwd: pass the saved statistics (else NULL: recomputed) */
    int run_null;  /* train: bit 0 resultRunningMean NULL, bit 1 resultRunningVariance NULL */
    uint64_t seed;
} bn_case_t;

static int64_t c_elems(const bn_case_t *c)
{
    int64_t e = 1;
    for (int i = 0; i < c->nd; i++)
        e *= c->dim[i];
    return e;
}
static int64_t c_spatial(const bn_case_t *c)
{
    int64_t s = 1;
    for (int i = 2; i < c->nd; i++)
        s *= c->dim[i];
    return s;
}
static int c_per_act(const bn_case_t *c)
{
    return c->mode == CUDNN_BATCHNORM_PER_ACTIVATION;
}
static int64_t c_groups(const bn_case_t *c)
{
    return c_per_act(c) ? c->dim[1] * c_spatial(c) : c->dim[1];
}
static int64_t c_m(const bn_case_t *c)
{
    return c_elems(c) / c_groups(c);
}
static cudnnDataType_t c_pdt(const bn_case_t *c)
{
    return c->dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}
/* The parameter group of canonical element i. */
static int64_t c_group_of(const bn_case_t *c, int64_t i)
{
    int64_t s = c_spatial(c), ch = (i / s) % c->dim[1];
    return c_per_act(c) ? ch * s + i % s : ch;
}

static void c_repro(const bn_case_t *c, char *buf, size_t n)
{
    static const char *const lays = "nhpq";
    int k = snprintf(buf, n, "bn dt=%s mode=%d ops=%d act=%d dims=", fd_test_dtype_short(c->dt),
                     (int)c->mode, (int)c->ops, (int)c->act);
    for (int i = 0; i < c->nd && k > 0 && (size_t)k < n; i++)
        k += snprintf(buf + k, n - (size_t)k, "%s%d", i ? "x" : "", c->dim[i]);
    if (k > 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k,
                 " lay=%c%c%c%c%c%c a=%g b=%g ap=%g bp=%g eps=%g f=%g ex=%d seed=0x%llx",
                 lays[c->lay[0]], lays[c->lay[1]], lays[c->lay[2]], lays[c->lay[3]],
                 lays[c->lay[4]], lays[c->lay[5]], c->alpha, c->beta, c->alpha_p, c->beta_p, c->eps,
                 c->factor, c->ex, (unsigned long long)c->seed);
}

/* Inputs and prior outputs on canonical arrays. */
typedef struct {
    double *x, *z, *dy, *yold, *dxold;                                  /* elements */
    double *scale, *bias, *rmean, *rvar, *emean, *evar, *dsold, *dbold; /* groups */
} bn_data_t;

static double *dnew(int64_t n)
{
    return calloc((size_t)n + 1, sizeof(double));
}

static bn_data_t data_new(const bn_case_t *c)
{
    int64_t e = c_elems(c), g = c_groups(c);
    bn_data_t d = {dnew(e), dnew(e), dnew(e), dnew(e), dnew(e), dnew(g), dnew(g),
                   dnew(g), dnew(g), dnew(g), dnew(g), dnew(g), dnew(g)};
    return d;
}

static void data_free(bn_data_t *d)
{
    double **p[] = {&d->x,     &d->z,    &d->dy,    &d->yold, &d->dxold, &d->scale, &d->bias,
                    &d->rmean, &d->rvar, &d->emean, &d->evar, &d->dsold, &d->dbold};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) {
        free(*p[i]);
        *p[i] = NULL;
    }
}

/* Real-valued fill, each value rounded to the type it is stored in. */
static void fill(fd_rng_t *r, double *v, int64_t n, double lo, double hi, cudnnDataType_t dt)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = fd_test_round(dt, lo + (hi - lo) * fd_rng_uniform(r));
}

static void data_fill(const bn_case_t *c, bn_data_t *d)
{
    fd_rng_t r;
    fd_rng_seed(&r, c->seed);
    int64_t e = c_elems(c), g = c_groups(c);
    cudnnDataType_t pdt = c_pdt(c);
    /* per-channel offsets make the means non-zero */
    for (int64_t i = 0; i < e; i++)
        d->x[i] = fd_test_round(c->dt, 0.5 * (double)(c_group_of(c, i) % 3) - 0.5 +
                                           2.0 * fd_rng_uniform(&r) - 1.0);
    fill(&r, d->z, e, -1, 1, c->dt);
    fill(&r, d->dy, e, -1, 1, c->dt);
    fill(&r, d->yold, e, -2, 2, c->dt);
    fill(&r, d->dxold, e, -2, 2, c->dt);
    fill(&r, d->scale, g, 0.25, 2, pdt);
    for (int64_t i = 0; i < g; i++)
        if (fd_rng_uniform(&r) < 0.3)
            d->scale[i] = -d->scale[i];
    fill(&r, d->bias, g, -1, 1, pdt);
    fill(&r, d->rmean, g, -1, 1, pdt);
    fill(&r, d->rvar, g, 0.5, 2, pdt);
    fill(&r, d->emean, g, -1, 1, pdt);
    fill(&r, d->evar, g, 0.25, 2, pdt);
    fill(&r, d->dsold, g, -2, 2, pdt);
    fill(&r, d->dbold, g, -2, 2, pdt);
}

/* ---- oracle: the definitions, on canonical arrays ----------------------------------------- */

static double o_sig(double v)
{
    return 1.0 / (1.0 + exp(-v));
}

static double o_act(const bn_case_t *c, double u)
{
    switch (c->act) {
    case CUDNN_ACTIVATION_RELU:
        return u > 0 ? u : 0;
    case CUDNN_ACTIVATION_CLIPPED_RELU: /* NOT_PROPAGATE_NAN: a NaN u gives 0, as ReLU's */
        return u > 0 ? (u >= c->coef ? c->coef : u) : 0;
    case CUDNN_ACTIVATION_SIGMOID:
        return o_sig(u);
    case CUDNN_ACTIVATION_TANH:
        return tanh(u);
    case CUDNN_ACTIVATION_ELU:
        return u > 0 ? u : c->coef * (exp(u) - 1.0);
    case CUDNN_ACTIVATION_SWISH:
        return u * o_sig(c->swish * u);
    default:
        return NAN;
    }
}

static double o_slope(const bn_case_t *c, double u)
{
    switch (c->act) {
    case CUDNN_ACTIVATION_RELU:
        return u > 0 ? 1 : 0;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        return u > 0 && u < c->coef ? 1 : 0;
    case CUDNN_ACTIVATION_SIGMOID:
        return o_sig(u) * (1 - o_sig(u));
    case CUDNN_ACTIVATION_TANH:
        return 1 - tanh(u) * tanh(u);
    case CUDNN_ACTIVATION_ELU:
        return u > 0 ? 1 : c->coef * exp(u);
    case CUDNN_ACTIVATION_SWISH: {
        double s = o_sig(c->swish * u);
        return s * (1 + c->swish * u * (1 - s));
    }
    default:
        return NAN;
    }
}

typedef struct {
    double *v, *u;                 /* act(u) and u per element */
    double *mean, *var, *unbiased; /* per group */
    double *inv;
} o_fwd_t;

/* Training forward with batch statistics (x, z, scale and bias may be perturbed copies). */
static o_fwd_t o_train(const bn_case_t *c, const double *x, const double *z, const double *scale,
                       const double *bias)
{
    int64_t e = c_elems(c), ng = c_groups(c);
    o_fwd_t o = {dnew(e), dnew(e), dnew(ng), dnew(ng), dnew(ng), dnew(ng)};
    double *cnt = dnew(ng);
    for (int64_t i = 0; i < e; i++) {
        o.mean[c_group_of(c, i)] += x[i];
        cnt[c_group_of(c, i)] += 1;
    }
    for (int64_t g = 0; g < ng; g++)
        o.mean[g] /= cnt[g];
    for (int64_t i = 0; i < e; i++) {
        double dev = x[i] - o.mean[c_group_of(c, i)];
        o.var[c_group_of(c, i)] += dev * dev;
    }
    for (int64_t g = 0; g < ng; g++) {
        o.unbiased[g] = o.var[g] / (cnt[g] - 1);
        o.var[g] /= cnt[g];
        o.inv[g] = 1.0 / sqrt(o.var[g] + c->eps);
    }
    for (int64_t i = 0; i < e; i++) {
        int64_t g = c_group_of(c, i);
        double u = scale[g] * (x[i] - o.mean[g]) / sqrt(o.var[g] + c->eps) + bias[g];
        if (c->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION)
            u += z[i];
        o.u[i] = u;
        o.v[i] = c->ops == CUDNN_BATCHNORM_OPS_BN ? u : o_act(c, u);
    }
    free(cnt);
    return o;
}

static void o_free(o_fwd_t *o)
{
    free(o->v), free(o->u), free(o->mean), free(o->var), free(o->unbiased), free(o->inv);
}

/* Backward from the batch statistics (mean, inv) and u: dx, dz unblended; ds, db unblended. */
static void o_bwd(const bn_case_t *c, const bn_data_t *d, const double *mean, const double *inv,
                  const double *u, double *dx, double *dz, double *ds, double *db, double *dxmag,
                  double *dsmag, double *dbmag)
{
    int64_t e = c_elems(c), ng = c_groups(c);
    double m = (double)c_m(c);
    double *gr = dnew(e);
    for (int64_t g = 0; g < ng; g++)
        ds[g] = db[g] = dsmag[g] = dbmag[g] = 0;
    for (int64_t i = 0; i < e; i++) {
        int64_t g = c_group_of(c, i);
        gr[i] = d->dy[i] * (c->ops == CUDNN_BATCHNORM_OPS_BN ? 1.0 : o_slope(c, u[i]));
        double xhat = (d->x[i] - mean[g]) * inv[g];
        db[g] += gr[i];
        ds[g] += gr[i] * xhat;
        dbmag[g] += fabs(gr[i]);
        dsmag[g] += fabs(gr[i] * xhat) + fabs(gr[i] * (fabs(d->x[i]) + fabs(mean[g])) * inv[g]);
    }
    for (int64_t i = 0; i < e; i++) {
        int64_t g = c_group_of(c, i);
        double xhat = (d->x[i] - mean[g]) * inv[g];
        dx[i] = d->scale[g] * inv[g] / m * (m * gr[i] - db[g] - xhat * ds[g]);
        dz[i] = gr[i];
        double xmag = (fabs(d->x[i]) + fabs(mean[g])) * inv[g];
        dxmag[i] = fabs(d->scale[g] * inv[g] / m) * (m * fabs(gr[i]) + dbmag[g] + xmag * dsmag[g]);
    }
    free(gr);
}

/* ---- comparisons -------------------------------------------------------------------------- */

/* |got - want| within the docs/testing.md bound for an output of type dt computed in double
 * over k terms of magnitude mag; NaN matches NaN. Returns the number of mismatches. */
static int64_t compare_mag(const char *what, const double *got, const double *want,
                           const double *mags, int64_t n, cudnnDataType_t dt, int64_t k,
                           const char *rep)
{
    double mag = 1.0;
    for (int64_t i = 0; i < n; i++)
        if (isfinite(want[i]) && fabs(want[i]) > mag)
            mag = fabs(want[i]);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        if ((isnan(want[i]) && isnan(got[i])) || (isinf(want[i]) && got[i] == want[i]))
            continue;
        double tol = fd_tolerance(dt, CUDNN_DATA_DOUBLE, 64 * k, mags != NULL ? mags[i] + 1.0 : mag,
                                  want[i]);
        if (!(fabs(got[i] - want[i]) <= tol)) {
            if (bad == 0 && fd_test_should_print())
                printf("  %s[%lld]: got %.17g want %.17g (tol %.3g); %s\n", what, (long long)i,
                       got[i], want[i], tol, rep);
            bad++;
        }
    }
    FD_EXPECT(bad == 0, "%s: %lld of %lld outside tolerance; %s", what, (long long)bad,
              (long long)n, rep);
    return bad;
}

/* The same, with one magnitude for all: the largest |want| (at least 1). */
static int64_t compare(const char *what, const double *got, const double *want, int64_t n,
                       cudnnDataType_t dt, int64_t k, const char *rep)
{
    return compare_mag(what, got, want, NULL, n, dt, k, rep);
}

static int64_t same_bits(const char *what, const double *a, const double *b, int64_t n,
                         const char *rep)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++)
        bad += memcmp(&a[i], &b[i], sizeof(double)) != 0 && !(isnan(a[i]) && isnan(b[i]));
    FD_EXPECT(bad == 0, "%s: %lld of %lld elements differ in bits; %s", what, (long long)bad,
              (long long)n, rep);
    return bad;
}

/* ---- running the library ------------------------------------------------------------------ */

typedef struct {
    cudnnStatus_t st;
    double *y, *dx, *dz;                           /* elements */
    double *rmean, *rvar, *smean, *sinv, *ds, *db; /* groups */
    unsigned char *reserve;                        /* what the forward left (ADD_ACTIVATION) */
    size_t reserve_size;
} bn_res_t;

static void res_free(bn_res_t *r)
{
    free(r->y), free(r->dx), free(r->dz), free(r->rmean), free(r->rvar), free(r->smean);
    free(r->sinv), free(r->ds), free(r->db), free(r->reserve);
    memset(r, 0, sizeof *r);
}

typedef struct {
    int nd, dim[5];
    cudnnTensorDescriptor_t d;
    fd_buf_t b;
    cudnnDataType_t dt;
    unsigned char *snap;
} par_t; /* a parameter tensor, packed 1 x C x (1 or spatial) */

static par_t par_new(const bn_case_t *c, cudnnTensorDescriptor_t derived)
{
    par_t p = {.d = derived, .dt = c_pdt(c)};
    p.b = fd_buf_alloc((size_t)c_groups(c) * fd_test_dtype_size(p.dt));
    fd_buf_poison(&p.b);
    return p;
}

/* Packed 1 x C x ... in C, spatial order: canonical group index = memory index. */
static void par_put(par_t *p, const double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        fd_test_store(p->dt, p->b.data, i, v[i]);
}
static double *par_get(const par_t *p, int64_t n)
{
    double *v = dnew(n);
    for (int64_t i = 0; i < n; i++)
        v[i] = fd_test_load(p->dt, p->b.data, i);
    return v;
}
static void par_snap(par_t *p)
{
    p->snap = malloc(p->b.size + 1);
    memcpy(p->snap, p->b.data, p->b.size);
}
static int par_unchanged(const par_t *p)
{
    return fd_buf_guards_ok(&p->b) &&
           (p->snap == NULL || memcmp(p->snap, p->b.data, p->b.size) == 0);
}
static void par_free(par_t *p)
{
    fd_buf_free(&p->b);
    free(p->snap);
    p->snap = NULL;
}

static cudnnActivationDescriptor_t act_new(const bn_case_t *c)
{
    cudnnActivationDescriptor_t a;
    cudnnCreateActivationDescriptor(&a);
    FD_EXPECT(cudnnSetActivationDescriptor(a, c->act, CUDNN_NOT_PROPAGATE_NAN, c->coef) ==
                  CUDNN_STATUS_SUCCESS,
              "set activation descriptor");
    if (c->act == CUDNN_ACTIVATION_SWISH)
        cudnnSetActivationDescriptorSwishBeta(a, c->swish);
    return a;
}

static void scal(const bn_case_t *c, double v, float *f, double *dv)
{
    *f = (float)v;
    *dv = v;
    (void)c;
}
#define SCALE_PTR(c, f, d) ((c)->dt == CUDNN_DATA_DOUBLE ? (const void *)&(d) : (const void *)&(f))

/* Training forward. beta == 0 runs over a NaN-poisoned y. On success fills y, running and
 * saved statistics and a copy of the reserve space (exactly its reported size, guarded). */
static bn_res_t run_train(cudnnHandle_t h, const bn_case_t *c, const bn_data_t *d, const char *rep)
{
    bn_res_t r = {0};
    int64_t e = c_elems(c), ng = c_groups(c);
    ten_t x = ten_new(c->nd, c->dim, c->lay[T_X], c->dt),
          y = ten_new(c->nd, c->dim, c->lay[T_Y], c->dt);
    ten_t z = {0};
    int add = c->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
    if (add)
        z = ten_new(c->nd, c->dim, c->lay[T_Z], c->dt);
    cudnnTensorDescriptor_t pd;
    cudnnCreateTensorDescriptor(&pd);
    FD_EXPECT(cudnnDeriveBNTensorDescriptor(pd, x.d, c->mode) == CUDNN_STATUS_SUCCESS, "derive; %s",
              rep);
    par_t sc = par_new(c, pd), bi = par_new(c, pd), rm = par_new(c, pd), rv = par_new(c, pd),
          sm = par_new(c, pd), si = par_new(c, pd);
    ten_put(&x, d->x);
    if (add)
        ten_put(&z, d->z);
    if (c->beta != 0)
        ten_put(&y, d->yold);
    par_put(&sc, d->scale, ng), par_put(&bi, d->bias, ng), par_put(&rm, d->rmean, ng),
        par_put(&rv, d->rvar, ng);
    ten_snap(&x), ten_snap(&y), par_snap(&sc), par_snap(&bi);
    if (add)
        ten_snap(&z);
    cudnnActivationDescriptor_t act = c->ops != CUDNN_BATCHNORM_OPS_BN ? act_new(c) : NULL;
    float fa, fb;
    double da, db;
    scal(c, c->alpha, &fa, &da);
    scal(c, c->beta, &fb, &db);
    void *rmp = (c->run_null & 1) ? NULL : rm.b.data, *rvp = (c->run_null & 2) ? NULL : rv.b.data;
    void *smp = c->save ? sm.b.data : NULL, *sip = c->save ? si.b.data : NULL;
    fd_buf_t ws = {0}, res = {0};
    if (c->ex || c->ops != CUDNN_BATCHNORM_OPS_BN) {
        size_t wsz = 7, rsz = 7;
        cudnnStatus_t s1 = cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
            h, c->mode, c->ops, x.d, add ? z.d : NULL, y.d, pd, act, &wsz);
        cudnnStatus_t s2 = cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, c->mode, c->ops,
                                                                                act, x.d, &rsz);
        FD_EXPECT(s1 == CUDNN_STATUS_SUCCESS && s2 == CUDNN_STATUS_SUCCESS,
                  "size queries %d %d; %s", s1, s2, rep);
        ws = fd_buf_alloc(wsz);
        res = fd_buf_alloc(rsz);
        fd_buf_poison(&ws);
        fd_buf_poison(&res);
        r.st = cudnnBatchNormalizationForwardTrainingEx(
            h, c->mode, c->ops, SCALE_PTR(c, fa, da), SCALE_PTR(c, fb, db), x.d, x.b.data,
            add ? z.d : NULL, add ? z.b.data : NULL, y.d, y.b.data, pd, sc.b.data, bi.b.data,
            c->factor, rmp, rvp, c->eps, smp, sip, act, wsz ? ws.data : NULL, wsz,
            rsz ? res.data : NULL, rsz);
    } else {
        r.st = cudnnBatchNormalizationForwardTraining(
            h, c->mode, SCALE_PTR(c, fa, da), SCALE_PTR(c, fb, db), x.d, x.b.data, y.d, y.b.data,
            pd, sc.b.data, bi.b.data, c->factor, rmp, rvp, c->eps, smp, sip);
    }
    FD_EXPECT(r.st == CUDNN_STATUS_SUCCESS, "training forward: %s; %s", cudnnGetErrorString(r.st),
              rep);
    FD_EXPECT(ten_intact(&x, 1) && par_unchanged(&sc) && par_unchanged(&bi) &&
                  (!add || ten_intact(&z, 1)),
              "training forward changed an input; %s", rep);
    FD_EXPECT(ten_intact(&y, 0), "training forward wrote outside y's elements; %s", rep);
    FD_EXPECT(fd_buf_guards_ok(&rm.b) && fd_buf_guards_ok(&rv.b) && fd_buf_guards_ok(&sm.b) &&
                  fd_buf_guards_ok(&si.b) && guards_ok(&ws) && guards_ok(&res),
              "training forward overran a parameter, workspace or reserve buffer; %s", rep);
    r.y = dnew(e);
    ten_get(&y, r.y);
    r.rmean = par_get(&rm, ng), r.rvar = par_get(&rv, ng), r.smean = par_get(&sm, ng),
    r.sinv = par_get(&si, ng);
    r.reserve_size = res.size;
    r.reserve = malloc(res.size + 1);
    if (res.size > 0)
        memcpy(r.reserve, res.data, res.size);
    fd_buf_free(&ws), fd_buf_free(&res);
    par_free(&sc), par_free(&bi), par_free(&rm), par_free(&rv), par_free(&sm), par_free(&si);
    cudnnDestroyTensorDescriptor(pd);
    if (act)
        cudnnDestroyActivationDescriptor(act);
    ten_free(&x), ten_free(&y), ten_free(&z);
    return r;
}

/* Backward from saved statistics (smean / sinv, or NULL when !use_saved) and a reserve space. */
static bn_res_t run_bwd(cudnnHandle_t h, const bn_case_t *c, const bn_data_t *d,
                        const double *smean, const double *sinv, const unsigned char *reserve,
                        size_t reserve_size, const char *rep)
{
    bn_res_t r = {0};
    int64_t e = c_elems(c), ng = c_groups(c);
    int add = c->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
    ten_t x = ten_new(c->nd, c->dim, c->lay[T_X], c->dt),
          dy = ten_new(c->nd, c->dim, c->lay[T_DY], c->dt),
          dx = ten_new(c->nd, c->dim, c->lay[T_DX], c->dt), dz = {0};
    if (add)
        dz = ten_new(c->nd, c->dim, c->lay[T_DZ], c->dt);
    cudnnTensorDescriptor_t pd;
    cudnnCreateTensorDescriptor(&pd);
    cudnnDeriveBNTensorDescriptor(pd, x.d, c->mode);
    par_t sc = par_new(c, pd), bi = par_new(c, pd), ds = par_new(c, pd), db = par_new(c, pd),
          sm = par_new(c, pd), si = par_new(c, pd);
    ten_put(&x, d->x), ten_put(&dy, d->dy);
    if (c->beta != 0)
        ten_put(&dx, d->dxold);
    par_put(&sc, d->scale, ng), par_put(&bi, d->bias, ng);
    if (c->beta_p != 0)
        par_put(&ds, d->dsold, ng), par_put(&db, d->dbold, ng);
    if (c->use_saved)
        par_put(&sm, smean, ng), par_put(&si, sinv, ng);
    ten_snap(&x), ten_snap(&dy), ten_snap(&dx), par_snap(&sc), par_snap(&bi), par_snap(&sm),
        par_snap(&si);
    if (add)
        ten_snap(&dz);
    fd_buf_t res = fd_buf_alloc(reserve_size);
    if (reserve_size > 0)
        memcpy(res.data, reserve, reserve_size);
    uint64_t res_hash = fd_buf_hash(&res);
    cudnnActivationDescriptor_t act = c->ops != CUDNN_BATCHNORM_OPS_BN ? act_new(c) : NULL;
    float fa, fb, fap, fbp;
    double da, dbb, dap, dbp;
    scal(c, c->alpha, &fa, &da), scal(c, c->beta, &fb, &dbb), scal(c, c->alpha_p, &fap, &dap),
        scal(c, c->beta_p, &fbp, &dbp);
    const void *smp = c->use_saved ? sm.b.data : NULL, *sip = c->use_saved ? si.b.data : NULL;
    fd_buf_t ws = {0};
    if (c->ex || c->ops != CUDNN_BATCHNORM_OPS_BN) {
        size_t wsz = 7;
        cudnnStatus_t s1 = cudnnGetBatchNormalizationBackwardExWorkspaceSize(
            h, c->mode, c->ops, x.d, x.d, dy.d, add ? dz.d : NULL, dx.d, pd, act, &wsz);
        FD_EXPECT(s1 == CUDNN_STATUS_SUCCESS, "backward workspace query %d; %s", s1, rep);
        ws = fd_buf_alloc(wsz);
        fd_buf_poison(&ws);
        r.st = cudnnBatchNormalizationBackwardEx(
            h, c->mode, c->ops, SCALE_PTR(c, fa, da), SCALE_PTR(c, fb, dbb), SCALE_PTR(c, fap, dap),
            SCALE_PTR(c, fbp, dbp), x.d, x.b.data, NULL, NULL, dy.d, dy.b.data, add ? dz.d : NULL,
            add ? dz.b.data : NULL, dx.d, dx.b.data, pd, sc.b.data, bi.b.data, ds.b.data, db.b.data,
            c->eps, smp, sip, act, wsz ? ws.data : NULL, wsz, reserve_size ? res.data : NULL,
            reserve_size);
    } else {
        r.st = cudnnBatchNormalizationBackward(
            h, c->mode, SCALE_PTR(c, fa, da), SCALE_PTR(c, fb, dbb), SCALE_PTR(c, fap, dap),
            SCALE_PTR(c, fbp, dbp), x.d, x.b.data, dy.d, dy.b.data, dx.d, dx.b.data, pd, sc.b.data,
            ds.b.data, db.b.data, c->eps, smp, sip);
    }
    FD_EXPECT(r.st == CUDNN_STATUS_SUCCESS, "backward: %s; %s", cudnnGetErrorString(r.st), rep);
    FD_EXPECT(ten_intact(&x, 1) && ten_intact(&dy, 1) && par_unchanged(&sc) && par_unchanged(&bi) &&
                  par_unchanged(&sm) && par_unchanged(&si) && fd_buf_hash(&res) == res_hash &&
                  fd_buf_guards_ok(&res),
              "backward changed an input; %s", rep);
    FD_EXPECT(ten_intact(&dx, 0) && (!add || ten_intact(&dz, 0)) && fd_buf_guards_ok(&ds.b) &&
                  fd_buf_guards_ok(&db.b) && guards_ok(&ws),
              "backward wrote outside its outputs; %s", rep);
    r.dx = dnew(e), r.dz = dnew(e);
    ten_get(&dx, r.dx);
    if (add)
        ten_get(&dz, r.dz);
    r.ds = par_get(&ds, ng), r.db = par_get(&db, ng);
    fd_buf_free(&ws), fd_buf_free(&res);
    par_free(&sc), par_free(&bi), par_free(&ds), par_free(&db), par_free(&sm), par_free(&si);
    cudnnDestroyTensorDescriptor(pd);
    if (act)
        cudnnDestroyActivationDescriptor(act);
    ten_free(&x), ten_free(&dy), ten_free(&dx), ten_free(&dz);
    return r;
}

/* Inference with the estimated statistics d->emean / d->evar (or given ones). */
static bn_res_t run_infer(cudnnHandle_t h, const bn_case_t *c, const bn_data_t *d,
                          const double *mean, const double *var, const char *rep)
{
    bn_res_t r = {0};
    int64_t e = c_elems(c), ng = c_groups(c);
    ten_t x = ten_new(c->nd, c->dim, c->lay[T_X], c->dt),
          y = ten_new(c->nd, c->dim, c->lay[T_Y], c->dt);
    cudnnTensorDescriptor_t pd;
    cudnnCreateTensorDescriptor(&pd);
    cudnnDeriveBNTensorDescriptor(pd, x.d, c->mode);
    par_t sc = par_new(c, pd), bi = par_new(c, pd), em = par_new(c, pd), ev = par_new(c, pd);
    ten_put(&x, d->x);
    if (c->beta != 0)
        ten_put(&y, d->yold);
    par_put(&sc, d->scale, ng), par_put(&bi, d->bias, ng), par_put(&em, mean, ng),
        par_put(&ev, var, ng);
    ten_snap(&x), ten_snap(&y), par_snap(&sc), par_snap(&bi), par_snap(&em), par_snap(&ev);
    float fa, fb;
    double da, db;
    scal(c, c->alpha, &fa, &da), scal(c, c->beta, &fb, &db);
    r.st = cudnnBatchNormalizationForwardInference(
        h, c->mode, SCALE_PTR(c, fa, da), SCALE_PTR(c, fb, db), x.d, x.b.data, y.d, y.b.data, pd,
        sc.b.data, bi.b.data, em.b.data, ev.b.data, c->eps);
    FD_EXPECT(r.st == CUDNN_STATUS_SUCCESS, "inference: %s; %s", cudnnGetErrorString(r.st), rep);
    FD_EXPECT(ten_intact(&x, 1) && par_unchanged(&sc) && par_unchanged(&bi) && par_unchanged(&em) &&
                  par_unchanged(&ev),
              "inference changed an input; %s", rep);
    FD_EXPECT(ten_intact(&y, 0), "inference wrote outside y's elements; %s", rep);
    r.y = dnew(e);
    ten_get(&y, r.y);
    par_free(&sc), par_free(&bi), par_free(&em), par_free(&ev);
    cudnnDestroyTensorDescriptor(pd);
    ten_free(&x), ten_free(&y);
    return r;
}

/* ---- checks of one case against the oracle ------------------------------------------------- */

static double pick(fd_rng_t *r, const double *v, int n)
{
    return v[fd_rng_int(r, 0, n - 1)];
}

static int64_t nan_count(const double *v, int64_t n)
{
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        k += isnan(v[i]) != 0;
    return k;
}

/* Training forward, inference with the new running statistics, backward; all vs the oracle. */
static void check_case(cudnnHandle_t h, const bn_case_t *c)
{
    char rep[400];
    c_repro(c, rep, sizeof rep);
    int64_t e = c_elems(c), ng = c_groups(c), m = c_m(c);
    bn_data_t d = data_new(c);
    data_fill(c, &d);
    cudnnDataType_t pdt = c_pdt(c);
    o_fwd_t o = o_train(c, d.x, d.z, d.scale, d.bias);

    /* training forward */
    bn_res_t t = run_train(h, c, &d, rep);
    if (t.st == CUDNN_STATUS_SUCCESS) {
        double *want = dnew(e), *mag = dnew(e);
        for (int64_t i = 0; i < e; i++) {
            int64_t g = c_group_of(c, i);
            want[i] = c->alpha * o.v[i] + (c->beta != 0 ? c->beta * d.yold[i] : 0.0);
            mag[i] = 2 * fabs(c->alpha) *
                         (fabs(d.scale[g]) * o.inv[g] * (fabs(d.x[i]) + fabs(o.mean[g])) +
                          fabs(d.bias[g]) + fabs(d.z[i])) +
                     fabs(c->beta * d.yold[i]);
        }
        compare_mag("y", t.y, want, mag, e, c->dt, m, rep);
        free(mag);
        if (c->beta == 0) /* the oracle has NaN only in degenerate groups (variance 0, eps 0) */
            FD_EXPECT(nan_count(t.y, e) == nan_count(want, e),
                      "beta = 0 over a NaN-poisoned y left NaN; %s", rep);
        double *wm = dnew(ng), *wv = dnew(ng);
        for (int64_t g = 0; g < ng; g++) {
            wm[g] =
                c->factor == 1.0 ? o.mean[g] : c->factor * o.mean[g] + (1 - c->factor) * d.rmean[g];
            wv[g] = c->factor == 1.0 ? o.unbiased[g]
                                     : c->factor * o.unbiased[g] + (1 - c->factor) * d.rvar[g];
        }
        /* a NULL running buffer is not updated; its twin still is (cuDNN 9.19) */
        if (!(c->run_null & 1))
            compare("running mean", t.rmean, wm, ng, pdt, m, rep);
        else
            same_bits("running mean buffer not passed", t.rmean, d.rmean, ng, rep);
        if (!(c->run_null & 2))
            compare("running variance", t.rvar, wv, ng, pdt, m, rep);
        else
            same_bits("running variance buffer not passed", t.rvar, d.rvar, ng, rep);
        if (c->save) {
            compare("saved mean", t.smean, o.mean, ng, pdt, m, rep);
            compare("saved inverse std-dev", t.sinv, o.inv, ng, pdt, m, rep);
        }
        size_t want_reserve = 0;
        if (c->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION)
            want_reserve =
                (c->act == CUDNN_ACTIVATION_RELU || c->act == CUDNN_ACTIVATION_CLIPPED_RELU)
                    ? (size_t)((e + 7) / 8)
                    : (size_t)e * sizeof(double);
        FD_EXPECT(t.reserve_size == want_reserve, "reserve space is %zu bytes, want %zu; %s",
                  t.reserve_size, want_reserve, rep);
        free(want), free(wm), free(wv);
    }

    /* inference with what training left in the running statistics (BN ops only) */
    if (t.st == CUDNN_STATUS_SUCCESS && c->ops == CUDNN_BATCHNORM_OPS_BN && c->run_null == 0 &&
        m > 1) {
        bn_res_t inf = run_infer(h, c, &d, t.rmean, t.rvar, rep);
        if (inf.st == CUDNN_STATUS_SUCCESS) {
            double *want = dnew(e), *mag = dnew(e);
            for (int64_t i = 0; i < e; i++) {
                int64_t g = c_group_of(c, i);
                double v =
                    d.scale[g] * (d.x[i] - t.rmean[g]) / sqrt(t.rvar[g] + c->eps) + d.bias[g];
                want[i] = c->alpha * v + (c->beta != 0 ? c->beta * d.yold[i] : 0.0);
                mag[i] = fabs(c->alpha) * (fabs(d.scale[g]) * (fabs(d.x[i]) + fabs(t.rmean[g])) /
                                               sqrt(t.rvar[g] + c->eps) +
                                           fabs(d.bias[g])) +
                         fabs(c->beta * d.yold[i]);
            }
            compare_mag("inference y", inf.y, want, mag, e, c->dt, m, rep);
            free(want), free(mag);
        }
        res_free(&inf);
    }

    /* backward, from the saved statistics of the forward call */
    if (t.st == CUDNN_STATUS_SUCCESS && m > 1) {
        bn_case_t cb = *c;
        cb.use_saved = c->save && c->use_saved;
        bn_res_t b = run_bwd(h, &cb, &d, t.smean, t.sinv, t.reserve, t.reserve_size, rep);
        if (b.st == CUDNN_STATUS_SUCCESS) {
            double *dx = dnew(e), *dz = dnew(e), *ds = dnew(ng), *db = dnew(ng);
            /* with saved statistics the library uses them as stored (rounded to the parameter
             * type); the oracle does the same */
            double *mean = dnew(ng), *inv = dnew(ng);
            for (int64_t g = 0; g < ng; g++) {
                mean[g] = cb.use_saved ? t.smean[g] : o.mean[g];
                inv[g] = cb.use_saved ? t.sinv[g] : o.inv[g];
            }
            /* u as the forward pass saw it: BN_ACTIVATION recomputes it from these statistics */
            double *u = dnew(e);
            for (int64_t i = 0; i < e; i++) {
                int64_t g = c_group_of(c, i);
                u[i] = c->ops == CUDNN_BATCHNORM_OPS_BN_ACTIVATION
                           ? d.scale[g] * (d.x[i] - mean[g]) * inv[g] + d.bias[g]
                           : o.u[i];
            }
            double *dxm = dnew(e), *dsm = dnew(ng), *dbm = dnew(ng);
            o_bwd(c, &d, mean, inv, u, dx, dz, ds, db, dxm, dsm, dbm);
            for (int64_t i = 0; i < e; i++) {
                dx[i] = c->alpha * dx[i] + (c->beta != 0 ? c->beta * d.dxold[i] : 0.0);
                dxm[i] = fabs(c->alpha) * dxm[i] + fabs(c->beta * d.dxold[i]);
            }
            for (int64_t g = 0; g < ng; g++) {
                ds[g] = c->alpha_p * ds[g] + (c->beta_p != 0 ? c->beta_p * d.dsold[g] : 0.0);
                db[g] = c->alpha_p * db[g] + (c->beta_p != 0 ? c->beta_p * d.dbold[g] : 0.0);
                dsm[g] = fabs(c->alpha_p) * dsm[g] + fabs(c->beta_p * d.dsold[g]);
                dbm[g] = fabs(c->alpha_p) * dbm[g] + fabs(c->beta_p * d.dbold[g]);
            }
            compare_mag("dx", b.dx, dx, dxm, e, c->dt, m, rep);
            if (c->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION)
                compare("dz", b.dz, dz, e, c->dt, 1, rep);
            compare_mag("dscale", b.ds, ds, dsm, ng, pdt, m, rep);
            compare_mag("dbias", b.db, db, dbm, ng, pdt, m, rep);
            free(dxm), free(dsm), free(dbm);
            if (c->beta == 0)
                FD_EXPECT(nan_count(b.dx, e) == nan_count(dx, e),
                          "betaDataDiff = 0 over a NaN-poisoned dx left NaN; %s", rep);
            free(dx), free(dz), free(ds), free(db), free(mean), free(inv), free(u);
        }
        res_free(&b);
    }
    res_free(&t);
    o_free(&o);
    data_free(&d);
}

/* ---- random cases ------------------------------------------------------------------------- */

static const cudnnDataType_t dtypes[4] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                          CUDNN_DATA_BFLOAT16};
static const cudnnActivationMode_t acts[6] = {
    CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_ACTIVATION_SIGMOID,
    CUDNN_ACTIVATION_TANH, CUDNN_ACTIVATION_ELU,          CUDNN_ACTIVATION_SWISH};

static bn_case_t case_gen(uint64_t seed, cudnnDataType_t dt, cudnnBatchNormMode_t mode,
                          cudnnBatchNormOps_t ops)
{
    fd_rng_t r;
    fd_rng_seed(&r, seed);
    bn_case_t c = {.dt = dt, .mode = mode, .ops = ops, .seed = seed};
    c.nd = fd_rng_int(&r, 0, 2) == 0 ? 5 : 4;
    c.dim[0] = fd_rng_int(&r, 1, 3);
    c.dim[1] = fd_rng_int(&r, 1, 5);
    for (int i = 2; i < c.nd; i++)
        c.dim[i] = fd_rng_int(&r, 1, c.nd == 5 ? 3 : 4);
    if (c_m(&c) < 2) /* keep the variance defined; M = 1 has its own test */
        c.dim[0] = 2;
    c.act = acts[fd_rng_int(&r, 0, 5)];
    c.coef = c.act == CUDNN_ACTIVATION_CLIPPED_RELU ? 1.5
             : c.act == CUDNN_ACTIVATION_ELU        ? 0.7
                                                    : 0.0;
    c.swish = 1.25;
    for (int i = 0; i < T_COUNT; i++)
        c.lay[i] = fd_rng_int(&r, 0, L_COUNT - 1);
    static const double alphas[3] = {1.0, 0.5, -2.0}, betas[3] = {0.0, 1.0, 0.25};
    c.alpha = pick(&r, alphas, 3), c.beta = pick(&r, betas, 3);
    c.alpha_p = pick(&r, alphas, 3), c.beta_p = pick(&r, betas, 3);
    static const double eps[3] = {1e-5, 1e-3, 0.0}, factors[3] = {0.1, 1.0, 0.5};
    c.eps = pick(&r, eps, 3);
    c.factor = pick(&r, factors, 3);
    c.ex = fd_rng_int(&r, 0, 1);
    c.save = fd_rng_int(&r, 0, 3) != 0;
    c.use_saved = fd_rng_int(&r, 0, 1);
    c.run_null = fd_rng_int(&r, 0, 7) == 0 ? fd_rng_int(&r, 1, 3) : 0;
    return c;
}

static void sweep(cudnnHandle_t h)
{
    int per_cell = (int)(24 * fd_test_scale()), runs = 0;
    if (per_cell < 1)
        per_cell = 1;
    uint64_t master = fd_test_sweep_seed(0xBA7C4ull);
    uint64_t forced;
    int only = fd_test_seed_forced(&forced);
    for (int t = 0; t < 4; t++)
        for (int mode = 0; mode < 3; mode++)
            for (int ops = 0; ops < 3; ops++)
                for (int i = 0; i < per_cell; i++) {
                    uint64_t seed =
                        fd_test_mix(master, (uint64_t)(((t * 3 + mode) * 3 + ops) * 100 + i));
                    if (only && seed != forced)
                        continue;
                    bn_case_t c = case_gen(seed, dtypes[t], (cudnnBatchNormMode_t)mode,
                                           (cudnnBatchNormOps_t)ops);
                    check_case(h, &c);
                    runs++;
                }
    printf("sweep: %d cases\n", runs);
}

/* ---- hand-computed ------------------------------------------------------------------------ */

static cudnnTensorDescriptor_t desc4(cudnnDataType_t dt, cudnnTensorFormat_t f, int n, int c,
                                     int hh, int w)
{
    cudnnTensorDescriptor_t d;
    cudnnCreateTensorDescriptor(&d);
    cudnnSetTensor4dDescriptor(d, f, dt, n, c, hh, w);
    return d;
}

static void expect_floats(const char *what, const float *got, const double *want, int n, double tol)
{
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (!(fabs((double)got[i] - want[i]) <= tol * (1.0 + fabs(want[i])))) {
            if (bad == 0)
                printf("  %s[%d]: got %.9g want %.9g\n", what, i, (double)got[i], want[i]);
            bad++;
        }
    FD_EXPECT(bad == 0, "%s: %d of %d wrong", what, bad, n);
}

/* x is 2x2x1x2 NCHW: channel 0 holds 1, 3, 1, 3 (mean 2, variance 1) and channel 1 holds
 * 2, 6, 6, 2 (mean 4, variance 4); scale (2, -1), bias (0.5, 3), epsilon 0. */
static void hand_case(cudnnHandle_t h)
{
    cudnnTensorDescriptor_t x = desc4(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, 2, 1, 2), p;
    cudnnCreateTensorDescriptor(&p);
    FD_EXPECT_STATUS(cudnnDeriveBNTensorDescriptor(p, x, CUDNN_BATCHNORM_SPATIAL),
                     CUDNN_STATUS_SUCCESS);
    const float xv[8] = {1, 3, 2, 6, 1, 3, 6, 2}, scale[2] = {2, -1}, bias[2] = {0.5f, 3};
    float y[8], rm[2] = {0, 0}, rv[2] = {1, 1}, sm[2], si[2];
    const float one = 1, zero = 0;
    FD_EXPECT_STATUS(cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero,
                                                            x, xv, x, y, p, scale, bias, 0.5, rm,
                                                            rv, 0.0, sm, si),
                     CUDNN_STATUS_SUCCESS);
    /* xhat: channel 0 -1, 1, -1, 1; channel 1 -1, 1, 1, -1 */
    const double wy[8] = {-1.5, 2.5, 4, 2, -1.5, 2.5, 2, 4};
    expect_floats("hand y", y, wy, 8, 0);
    const double wrm[2] = {1, 2}; /* 0.5 * 0 + 0.5 * mean */
    const double wrv[2] = {0.5 + 0.5 * 4.0 / 3.0, 0.5 + 0.5 * 16.0 / 3.0}; /* unbiased 4/3, 16/3 */
    const double wsm[2] = {2, 4}, wsi[2] = {1, 0.5};
    expect_floats("hand running mean", rm, wrm, 2, 0);
    expect_floats("hand running variance", rv, wrv, 2, 1e-7);
    expect_floats("hand saved mean", sm, wsm, 2, 0);
    expect_floats("hand saved inverse std-dev", si, wsi, 2, 0);
    /* backward: channel 0 dy 1, 2, 3, 4 -> dbias 10, dscale 2, dx = 0.5 (4 dy - 10 - 2 xhat);
     * channel 1 dy 4, 0, 0, 0 -> dbias 4, dscale -4, dx = -0.125 (4 dy - 4 + 4 xhat) */
    const float dy[8] = {1, 2, 4, 0, 3, 4, 0, 0};
    float dx[8], ds[2], db[2];
    FD_EXPECT_STATUS(cudnnBatchNormalizationBackward(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one,
                                                     &zero, x, xv, x, dy, x, dx, p, scale, ds, db,
                                                     0.0, sm, si),
                     CUDNN_STATUS_SUCCESS);
    const double wdx[8] = {-2, -2, -1, 0, 2, 2, 0, 1}, wds[2] = {2, -4}, wdb[2] = {10, 4};
    expect_floats("hand dx", dx, wdx, 8, 0);
    expect_floats("hand dscale", ds, wds, 2, 0);
    expect_floats("hand dbias", db, wdb, 2, 0);
    /* the same without saved statistics (recomputed, epsilon 0) */
    FD_EXPECT_STATUS(cudnnBatchNormalizationBackward(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one,
                                                     &zero, x, xv, x, dy, x, dx, p, scale, ds, db,
                                                     0.0, NULL, NULL),
                     CUDNN_STATUS_SUCCESS);
    expect_floats("hand dx recomputed", dx, wdx, 8, 0);
    /* inference with mean (2, 4) and variance (1, 4): the training y again */
    const float em[2] = {2, 4}, ev[2] = {1, 4};
    FD_EXPECT_STATUS(cudnnBatchNormalizationForwardInference(h, CUDNN_BATCHNORM_SPATIAL, &one,
                                                             &zero, x, xv, x, y, p, scale, bias, em,
                                                             ev, 0.0),
                     CUDNN_STATUS_SUCCESS);
    expect_floats("hand inference y", y, wy, 8, 0);
    /* BN_ACTIVATION with ReLU: y = max(y, 0); backward masks dy where u <= 0 */
    cudnnActivationDescriptor_t relu;
    cudnnCreateActivationDescriptor(&relu);
    cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0);
    FD_EXPECT_STATUS(cudnnBatchNormalizationForwardTrainingEx(
                         h, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, &one, &zero,
                         x, xv, NULL, NULL, x, y, p, scale, bias, 1.0, NULL, NULL, 0.0, sm, si,
                         relu, NULL, 0, NULL, 0),
                     CUDNN_STATUS_SUCCESS);
    const double wyr[8] = {0, 2.5, 4, 2, 0, 2.5, 2, 4};
    expect_floats("hand relu y", y, wyr, 8, 0);
    /* channel 0 keeps dy at xhat = 1 (2 and 4): g = 0, 2, 0, 4 -> sum 6, sum g xhat 6,
     * dx = 0.5 (4 g - 6 - 6 xhat) = 0, -2, 0, 2; channel 1 all u > 0: as before */
    FD_EXPECT_STATUS(cudnnBatchNormalizationBackwardEx(
                         h, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN_ACTIVATION, &one, &zero,
                         &one, &zero, x, xv, x, y, x, dy, NULL, NULL, x, dx, p, scale, bias, ds, db,
                         0.0, sm, si, relu, NULL, 0, NULL, 0),
                     CUDNN_STATUS_SUCCESS);
    const double wdxr[8] = {0, -2, -1, 0, 0, 2, 0, 1}, wdsr[2] = {6, -4}, wdbr[2] = {6, 4};
    expect_floats("hand relu dx", dx, wdxr, 8, 0);
    expect_floats("hand relu dscale", ds, wdsr, 2, 0);
    expect_floats("hand relu dbias", db, wdbr, 2, 0);
    cudnnDestroyActivationDescriptor(relu);
    cudnnDestroyTensorDescriptor(p);
    cudnnDestroyTensorDescriptor(x);
}

/* Outputs of NVIDIA cuDNN 9.19 (H200), read with a throw-away probe: float NCHW 2x2x1x2,
 * epsilon 1e-5, scale 1, bias 0. */
static void cudnn_anchor_plain(cudnnHandle_t h)
{
    cudnnTensorDescriptor_t x = desc4(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, 2, 1, 2), p;
    cudnnCreateTensorDescriptor(&p);
    cudnnDeriveBNTensorDescriptor(p, x, CUDNN_BATCHNORM_SPATIAL);
    const float xv[8] = {1, 2, 10, 20, 3, 6, 30, 40}, dy[8] = {1, -2, 3, 0.5f, -1, 4, 2, 1};
    const float scale[2] = {1, 1}, bias[2] = {0, 0}, one = 1, zero = 0;
    float y[8], rm[2] = {0, 0}, rv[2] = {1, 1}, sm[2], si[2], dx[8], ds[2], db[2];
    FD_EXPECT_STATUS(cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero,
                                                            x, xv, x, y, p, scale, bias, 1.0, rm,
                                                            rv, 1e-5, sm, si),
                     CUDNN_STATUS_SUCCESS);
    const double ry[8] = {-1.069045, -0.5345224, -1.341641, -0.4472135,
                          0.0,       1.603567,   0.4472137, 1.341641};
    const double rrm[2] = {3, 25}, rrv[2] = {4.666667, 166.6667};
    expect_floats("cuDNN y", y, ry, 8, 2e-6);
    expect_floats("cuDNN running mean", rm, rrm, 2, 1e-6);
    expect_floats("cuDNN running variance", rv, rrv, 2, 1e-6);
    FD_EXPECT_STATUS(cudnnBatchNormalizationBackward(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one,
                                                     &zero, x, xv, x, dy, x, dx, p, scale, ds, db,
                                                     1e-5, sm, si),
                     CUDNN_STATUS_SUCCESS);
    const double rdx[8] = {1.183581,   -0.878144, 0.06260991, -0.1207477,
                           -0.8017825, 0.4963456, 0.05366563, 0.004472137};
    const double rds[2] = {6.41426, -2.012461}, rdb[2] = {2, 6.5};
    expect_floats("cuDNN dx", dx, rdx, 8, 2e-6);
    expect_floats("cuDNN dscale", ds, rds, 2, 2e-6);
    expect_floats("cuDNN dbias", db, rdb, 2, 0);
    cudnnDestroyTensorDescriptor(p);
    cudnnDestroyTensorDescriptor(x);
}

/* cuDNN 9.19: BN + add + ReLU, NHWC half 2x4x1x2, SPATIAL_PERSISTENT, epsilon 0, factor 1;
 * x[i] = (7i mod 11) - 5, z[i] = (3i mod 5) - 2, dy[i] = (5i mod 7) - 3 in memory order. */
static void cudnn_anchor_add_relu(cudnnHandle_t h)
{
    cudnnTensorDescriptor_t x = desc4(CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 2, 4, 1, 2), p;
    cudnnCreateTensorDescriptor(&p);
    cudnnDeriveBNTensorDescriptor(p, x, CUDNN_BATCHNORM_SPATIAL_PERSISTENT);
    uint16_t xv[16], zv[16], dyv[16], y[16], dx[16], dz[16];
    for (int i = 0; i < 16; i++) {
        xv[i] = fd_test_f16_from_double((double)((i * 7) % 11) - 5);
        zv[i] = fd_test_f16_from_double((double)((i * 3) % 5) - 2);
        dyv[i] = fd_test_f16_from_double((double)((i * 5) % 7) - 3);
    }
    const float scale[4] = {1, 0.5f, 2, -1}, bias[4] = {0.5f, 0, -0.5f, 1}, one = 1, zero = 0,
                half = 0.5f;
    float rm[4] = {0}, rv[4] = {0}, sm[4], si[4], ds[4], db[4];
    cudnnActivationDescriptor_t relu;
    cudnnCreateActivationDescriptor(&relu);
    cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0);
    size_t rs = 0;
    FD_EXPECT_STATUS(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(
                         h, CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
                         CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION, relu, x, &rs),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(rs == 2, "reserve for 16 elements with ReLU is %zu bytes, want 2", rs);
    unsigned char reserve[8];
    FD_EXPECT_STATUS(cudnnBatchNormalizationForwardTrainingEx(
                         h, CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
                         CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION, &one, &zero, x, xv, x, zv, x, y, p,
                         scale, bias, 1.0, rm, rv, 0.0, sm, si, relu, NULL, 0, reserve, rs),
                     CUDNN_STATUS_SUCCESS);
    const double ry[16] = {0,      1.3926,  0, 1.666,  1.3223,  0,      2.1445, 0.07019,
                           1.6777, 0.58838, 0, 3.4746, 0.65088, 1.6074, 1.8018, 0};
    int bad = 0;
    for (int i = 0; i < 16; i++)
        bad += !(fabs(fd_test_f16_to_double(y[i]) - ry[i]) <= 2e-3 * (1 + fabs(ry[i])));
    FD_EXPECT(bad == 0, "cuDNN add+relu y: %d of 16 differ", bad);
    const double rsm[4] = {-1.5, 0, 1.5, 0.25}, rsi[4] = {0.328798, 0.392232, 0.328798, 0.280745};
    const double rrv[4] = {12.3333, 8.66667, 12.3333, 16.9167};
    expect_floats("cuDNN add+relu saved mean", sm, rsm, 4, 1e-6);
    expect_floats("cuDNN add+relu saved inverse std-dev", si, rsi, 4, 2e-6);
    expect_floats("cuDNN add+relu running variance", rv, rrv, 4, 2e-5);
    FD_EXPECT_STATUS(cudnnBatchNormalizationBackwardEx(h, CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
                                                       CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION, &half,
                                                       &zero, &one, &zero, x, xv, x, y, x, dyv, x,
                                                       dz, x, dx, p, scale, bias, ds, db, 0.0, sm,
                                                       si, relu, NULL, 0, reserve, rs),
                     CUDNN_STATUS_SUCCESS);
    /* dz = dy masked, not scaled by alphaDataDiff; dx scaled by 0.5 */
    const double rdz[16] = {0, 2, 0, -2, 3, 0, -1, -3, 2, 0, 0, 3, 1, -1, -3, 0};
    const double rdx[16] = {-0.15332, 0.12634,   -0.075562, -0.11133,  0.17993,  0.043365,
                            0.28882,  0.36792,   0.1488,    -0.092407, 0.039978, -0.1355,
                            -0.17554, -0.077332, -0.25317,  -0.12103};
    int bdz = 0, bdx = 0;
    for (int i = 0; i < 16; i++) {
        bdz += fd_test_f16_to_double(dz[i]) != rdz[i];
        bdx += !(fabs(fd_test_f16_to_double(dx[i]) - rdx[i]) <= 2e-3 * (1 + fabs(rdx[i])));
    }
    FD_EXPECT(bdz == 0 && bdx == 0, "cuDNN add+relu backward: dz %d, dx %d of 16 differ", bdz, bdx);
    const double rds[4] = {1.97279, 2.35339, -4.27437, -6.87825}, rdb[4] = {6, 1, -4, -2};
    expect_floats("cuDNN add+relu dscale", ds, rds, 4, 2e-5);
    expect_floats("cuDNN add+relu dbias", db, rdb, 4, 0);
    cudnnDestroyActivationDescriptor(relu);
    cudnnDestroyTensorDescriptor(p);
    cudnnDestroyTensorDescriptor(x);
}

/* ---- running averages, M = 1 ---------------------------------------------------------------- */

static void running_two_calls(cudnnHandle_t h)
{
    bn_case_t c = {.nd = 4,
                   .dim = {3, 2, 2, 3},
                   .dt = CUDNN_DATA_DOUBLE,
                   .mode = CUDNN_BATCHNORM_SPATIAL,
                   .alpha = 1,
                   .eps = 1e-5,
                   .save = 1,
                   .seed = 0x2C411};
    char rep[400];
    c_repro(&c, rep, sizeof rep);
    bn_data_t d1 = data_new(&c), d2 = data_new(&c);
    data_fill(&c, &d1);
    c.seed++;
    data_fill(&c, &d2);
    /* call 1: factor 1 over NaN running buffers (never read); call 2: factor 0.25 */
    int64_t ng = c_groups(&c);
    for (int64_t g = 0; g < ng; g++)
        d1.rmean[g] = d1.rvar[g] = NAN;
    c.factor = 1.0;
    bn_res_t r1 = run_train(h, &c, &d1, rep);
    FD_EXPECT(nan_count(r1.rmean, ng) == 0 && nan_count(r1.rvar, ng) == 0,
              "factor 1 read the old (NaN) running values; %s", rep);
    for (int64_t g = 0; g < ng; g++)
        d2.rmean[g] = r1.rmean[g], d2.rvar[g] = r1.rvar[g];
    c.factor = 0.25;
    bn_res_t r2 = run_train(h, &c, &d2, rep);
    o_fwd_t o1 = o_train(&c, d1.x, d1.z, d1.scale, d1.bias),
            o2 = o_train(&c, d2.x, d2.z, d2.scale, d2.bias);
    double wm[8], wv[8];
    for (int64_t g = 0; g < ng; g++) {
        wm[g] = 0.75 * o1.mean[g] + 0.25 * o2.mean[g];
        wv[g] = 0.75 * o1.unbiased[g] + 0.25 * o2.unbiased[g];
    }
    compare("running mean after two calls", r2.rmean, wm, ng, CUDNN_DATA_DOUBLE, c_m(&c), rep);
    compare("running variance after two calls", r2.rvar, wv, ng, CUDNN_DATA_DOUBLE, c_m(&c), rep);
    /* the unbiased variance: M / (M - 1) times the biased (saved) one */
    for (int64_t g = 0; g < ng; g++)
        wv[g] = o1.var[g] * (double)c_m(&c) / (double)(c_m(&c) - 1);
    compare("running variance is unbiased", r1.rvar, wv, ng, CUDNN_DATA_DOUBLE, c_m(&c), rep);
    o_free(&o1), o_free(&o2);
    res_free(&r1), res_free(&r2);
    data_free(&d1), data_free(&d2);
}

/* One element per group: y = bias (xhat = 0 with epsilon > 0), running variance NaN (0 / 0), as
 * cuDNN 9.19. */
static void single_element(cudnnHandle_t h)
{
    for (int mode = 0; mode < 2; mode++) {
        bn_case_t c = {.nd = 4,
                       .dim = {1, 3, mode == 0 ? 2 : 1, mode == 0 ? 2 : 1},
                       .dt = CUDNN_DATA_FLOAT,
                       .mode = (cudnnBatchNormMode_t)mode,
                       .alpha = 1,
                       .eps = 1e-5,
                       .factor = 0.5,
                       .save = 1,
                       .seed = 0x51};
        char rep[400];
        c_repro(&c, rep, sizeof rep);
        bn_data_t d = data_new(&c);
        data_fill(&c, &d);
        bn_res_t r = run_train(h, &c, &d, rep);
        int64_t e = c_elems(&c), ng = c_groups(&c);
        int bad = 0;
        for (int64_t i = 0; i < e; i++)
            bad += r.y[i] != d.bias[c_group_of(&c, i)];
        FD_EXPECT(bad == 0, "M = 1: y is not the bias at %d elements; %s", bad, rep);
        FD_EXPECT(nan_count(r.rvar, ng) == ng, "M = 1: running variance should be NaN (0 / 0); %s",
                  rep);
        for (int64_t g = 0; g < ng; g++)
            bad += r.rmean[g] != (float)(0.5 * d.rmean[g] + 0.5 * d.x[g]);
        FD_EXPECT(bad == 0, "M = 1: running mean wrong; %s", rep);
        res_free(&r);
        data_free(&d);
    }
}

/* ---- finite differences (double) --------------------------------------------------------- */

/* L = sum w * y through the oracle's training forward. */
static double loss(const bn_case_t *c, const double *w, const double *x, const double *z,
                   const double *s, const double *b)
{
    o_fwd_t o = o_train(c, x, z, s, b);
    double l = 0;
    for (int64_t i = 0; i < c_elems(c); i++)
        l += w[i] * o.v[i];
    o_free(&o);
    return l;
}

static double fd_grad(const bn_case_t *c, const bn_data_t *d, int which, int64_t j)
{
    int64_t e = c_elems(c), ng = c_groups(c);
    double *x = dnew(e), *z = dnew(e), *s = dnew(ng), *b = dnew(ng);
    memcpy(x, d->x, sizeof(double) * (size_t)e), memcpy(z, d->z, sizeof(double) * (size_t)e);
    memcpy(s, d->scale, sizeof(double) * (size_t)ng),
        memcpy(b, d->bias, sizeof(double) * (size_t)ng);
    double *v = which == 0 ? x : which == 1 ? z : which == 2 ? s : b;
    const double hstep = 1e-6, v0 = v[j];
    v[j] = v0 + hstep;
    double lp = loss(c, d->dy, x, z, s, b);
    v[j] = v0 - hstep;
    double lm = loss(c, d->dy, x, z, s, b);
    free(x), free(z), free(s), free(b);
    return (lp - lm) / (2 * hstep);
}

/* No pre-activation value within 1e-3 of a kink (ReLU and ELU with coef != 1 at 0, clipped
 * ReLU at 0 and coef). */
static int smooth_enough(const bn_case_t *c, const bn_data_t *d)
{
    if (c->ops == CUDNN_BATCHNORM_OPS_BN ||
        (c->act != CUDNN_ACTIVATION_RELU && c->act != CUDNN_ACTIVATION_CLIPPED_RELU &&
         c->act != CUDNN_ACTIVATION_ELU))
        return 1;
    o_fwd_t o = o_train(c, d->x, d->z, d->scale, d->bias);
    int ok = 1;
    for (int64_t i = 0; i < c_elems(c); i++)
        if (fabs(o.u[i]) < 1e-3 ||
            (c->act == CUDNN_ACTIVATION_CLIPPED_RELU && fabs(o.u[i] - c->coef) < 1e-3))
            ok = 0;
    o_free(&o);
    return ok;
}

static void finite_differences(cudnnHandle_t h)
{
    int runs = 0;
    for (int mode = 0; mode < 2; mode++)
        for (int ops = 0; ops < 3; ops++)
            for (int a = 0; a < (ops ? 6 : 1); a++) {
                bn_case_t c = case_gen(fd_test_mix(0xFD, (uint64_t)((mode * 3 + ops) * 8 + a)),
                                       CUDNN_DATA_DOUBLE, (cudnnBatchNormMode_t)mode,
                                       (cudnnBatchNormOps_t)ops);
                c.act = acts[a];
                c.coef = c.act == CUDNN_ACTIVATION_CLIPPED_RELU ? 1.5
                         : c.act == CUDNN_ACTIVATION_ELU        ? 0.7
                                                                : 0.0;
                c.alpha = c.alpha_p = 1, c.beta = c.beta_p = 0, c.eps = 1e-4, c.save = 1;
                char rep[400];
                bn_data_t d = data_new(&c);
                for (int tries = 0; tries < 20; tries++, c.seed++) {
                    data_fill(&c, &d);
                    if (smooth_enough(&c, &d))
                        break;
                }
                c_repro(&c, rep, sizeof rep);
                bn_res_t t = run_train(h, &c, &d, rep);
                bn_res_t b = run_bwd(h, &c, &d, t.smean, t.sinv, t.reserve, t.reserve_size, rep);
                int64_t e = c_elems(&c), ng = c_groups(&c);
                double *num = dnew(e);
                for (int64_t j = 0; j < e; j++)
                    num[j] = fd_grad(&c, &d, 0, j);
                int bad = 0;
                for (int64_t j = 0; j < e; j++)
                    bad += !(fabs(b.dx[j] - num[j]) <= 1e-6 * (1 + fabs(num[j])));
                FD_EXPECT(bad == 0, "finite differences: dx wrong at %d of %lld; %s", bad,
                          (long long)e, rep);
                if (ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION) {
                    bad = 0;
                    for (int64_t j = 0; j < e; j++)
                        bad +=
                            !(fabs(b.dz[j] - fd_grad(&c, &d, 1, j)) <= 1e-6 * (1 + fabs(b.dz[j])));
                    FD_EXPECT(bad == 0, "finite differences: dz wrong at %d; %s", bad, rep);
                }
                bad = 0;
                for (int64_t g = 0; g < ng; g++) {
                    double ns = fd_grad(&c, &d, 2, g), nb = fd_grad(&c, &d, 3, g);
                    bad += !(fabs(b.ds[g] - ns) <= 1e-6 * (1 + fabs(ns)));
                    bad += !(fabs(b.db[g] - nb) <= 1e-6 * (1 + fabs(nb)));
                }
                FD_EXPECT(bad == 0, "finite differences: dscale / dbias wrong at %d; %s", bad, rep);
                free(num);
                res_free(&t), res_free(&b);
                data_free(&d);
                runs++;
            }
    printf("finite differences: %d cases\n", runs);
}

/* ---- invariance: layouts, backends, Ex vs plain, saved vs recomputed, in place ----------- */

typedef struct {
    bn_res_t t, b;
} both_t;

static both_t run_both(cudnnHandle_t h, const bn_case_t *c, const bn_data_t *d, const char *rep)
{
    both_t r;
    r.t = run_train(h, c, d, rep);
    r.b = run_bwd(h, c, d, r.t.smean, r.t.sinv, r.t.reserve, r.t.reserve_size, rep);
    return r;
}

static void both_same(const char *what, const bn_case_t *c, const both_t *a, const both_t *b,
                      const char *rep)
{
    int64_t e = c_elems(c), ng = c_groups(c);
    char w[160];
    snprintf(w, sizeof w, "%s: y", what);
    same_bits(w, a->t.y, b->t.y, e, rep);
    snprintf(w, sizeof w, "%s: running / saved", what);
    same_bits(w, a->t.rvar, b->t.rvar, ng, rep);
    same_bits(w, a->t.sinv, b->t.sinv, ng, rep);
    snprintf(w, sizeof w, "%s: dx", what);
    same_bits(w, a->b.dx, b->b.dx, e, rep);
    snprintf(w, sizeof w, "%s: dz", what);
    same_bits(w, a->b.dz, b->b.dz, e, rep);
    snprintf(w, sizeof w, "%s: dscale / dbias", what);
    same_bits(w, a->b.ds, b->b.ds, ng, rep);
    same_bits(w, a->b.db, b->b.db, ng, rep);
}

static void both_free(both_t *r)
{
    res_free(&r->t), res_free(&r->b);
}

static void invariance(cudnnHandle_t h, cudnnHandle_t hcpu)
{
    int runs = 0;
    for (int t = 0; t < 4; t++)
        for (int mode = 0; mode < 3; mode++) {
            bn_case_t c = case_gen(fd_test_mix(0x1A7, (uint64_t)(t * 3 + mode)), dtypes[t],
                                   (cudnnBatchNormMode_t)mode, (cudnnBatchNormOps_t)(mode % 3));
            c.save = 1, c.use_saved = 1, c.run_null = 0;
            for (int i = 0; i < T_COUNT; i++)
                c.lay[i] = L_NCHW;
            char rep[400];
            c_repro(&c, rep, sizeof rep);
            bn_data_t d = data_new(&c);
            data_fill(&c, &d);
            both_t base = run_both(h, &c, &d, rep);
            for (int l = 1; l < L_COUNT; l++) {
                bn_case_t cl = c;
                for (int i = 0; i < T_COUNT; i++)
                    cl.lay[i] = (l + i) % L_COUNT; /* mixed layouts across the tensors too */
                both_t r = run_both(h, &cl, &d, rep);
                both_same("layout", &c, &base, &r, rep);
                both_free(&r);
            }
            /* the cpu handle's rows take one-pass statistics (last bits differ from ref):
             * tests/impl/test_cpu_bn_fast.c holds them to a tolerance */
            (void)hcpu;
            if (c.ops == CUDNN_BATCHNORM_OPS_BN) {
                bn_case_t ce = c;
                ce.ex = !c.ex;
                both_t r = run_both(h, &ce, &d, rep);
                both_same("Ex vs plain entry", &c, &base, &r, rep);
                both_free(&r);
            }
            if (c.dt == CUDNN_DATA_DOUBLE) { /* saved statistics are exact in double */
                bn_case_t cr = c;
                cr.use_saved = 0;
                both_t r = run_both(h, &cr, &d, rep);
                both_same("recomputed statistics", &c, &base, &r, rep);
                both_free(&r);
            }
            both_free(&base);
            data_free(&d);
            runs++;
        }
    printf("invariance: %d cases\n", runs);
}

/* y = x and dx = dy in place give the out-of-place bits. */
static void in_place(cudnnHandle_t h)
{
    cudnnTensorDescriptor_t x = desc4(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, 2, 3, 2, 2), p;
    cudnnCreateTensorDescriptor(&p);
    cudnnDeriveBNTensorDescriptor(p, x, CUDNN_BATCHNORM_SPATIAL);
    float xv[24], buf[24], y[24], dy[24], dx[24], sc[3] = {1, -0.5f, 2}, bi[3] = {0, 1, -1}, sm[3],
                                                  si[3], ds[3], db[3], ds2[3], db2[3];
    for (int i = 0; i < 24; i++)
        xv[i] = (float)((i * 5) % 7) - 2.5f, dy[i] = (float)((i * 3) % 5) - 1.5f;
    const float one = 1, zero = 0;
    cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x, xv, x, y, p,
                                           sc, bi, 1.0, NULL, NULL, 1e-5, sm, si);
    memcpy(buf, xv, sizeof buf);
    FD_EXPECT_STATUS(cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero,
                                                            x, buf, x, buf, p, sc, bi, 1.0, NULL,
                                                            NULL, 1e-5, NULL, NULL),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(memcmp(buf, y, sizeof y) == 0,
              "training forward with y = x differs from out of place");
    memcpy(buf, xv, sizeof buf);
    float em[3] = {0.5f, -1, 0.25f}, ev[3] = {1, 2, 0.5f};
    cudnnBatchNormalizationForwardInference(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x, xv, x, y, p,
                                            sc, bi, em, ev, 1e-5);
    FD_EXPECT_STATUS(cudnnBatchNormalizationForwardInference(h, CUDNN_BATCHNORM_SPATIAL, &one,
                                                             &zero, x, buf, x, buf, p, sc, bi, em,
                                                             ev, 1e-5),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(memcmp(buf, y, sizeof y) == 0, "inference with y = x differs from out of place");
    cudnnBatchNormalizationBackward(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, x, xv, x,
                                    dy, x, dx, p, sc, ds, db, 1e-5, sm, si);
    memcpy(buf, dy, sizeof buf);
    FD_EXPECT_STATUS(cudnnBatchNormalizationBackward(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one,
                                                     &zero, x, xv, x, buf, x, buf, p, sc, ds2, db2,
                                                     1e-5, sm, si),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(memcmp(buf, dx, sizeof dx) == 0 && memcmp(ds, ds2, sizeof ds) == 0,
              "backward with dx = dy differs from out of place");
    cudnnDestroyTensorDescriptor(p);
    cudnnDestroyTensorDescriptor(x);
}

static cudnnHandle_t handle_of(freednnBackend_t b)
{
    cudnnHandle_t h = NULL;
    cudnnStatus_t st = freednnCreateWithBackend(&h, b);
    FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "freednnCreateWithBackend(%d): %s", (int)b,
              cudnnGetErrorString(st));
    return h;
}

int main(void)
{
    cudnnHandle_t h = handle_of(FREEDNN_BACKEND_REF), hcpu = handle_of(FREEDNN_BACKEND_CPU);
    if (h == NULL || hcpu == NULL)
        return fd_test_finish();
    hand_case(h);
    cudnn_anchor_plain(h);
    cudnn_anchor_add_relu(h);
    running_two_calls(h);
    single_element(h);
    in_place(h);
    finite_differences(h);
    invariance(h, hcpu);
    sweep(h);
    cudnnDestroy(h);
    cudnnDestroy(hcpu);
    return fd_test_finish();
}
