/* SPDX-License-Identifier: MIT */
/*
 * test_cpu_bn_fast.c - the cpu batch-norm rows (src/cpu/batchnorm_cpu.c: one-pass shifted
 * statistics, plane / rows / tile walks, vector kernels, streaming stores) against the ref rows,
 * through the public API: a ref handle and a cpu handle run with one and with two OpenMP
 * threads on the same inputs (helpers: memops_case.h; tolerances: fd_test.h's unit round-offs).
 *
 * What must hold:
 * - cpu with 1 and 2 threads: every output byte-identical (NaN payloads aside).
 * - every check again in children with FREEDNN_CPU_ISA=avx2 and =generic; the outputs of the
 *   cases that every ISA computes in double (all but FLOAT per activation and FLOAT spatial BN
 *   in NHWC order) byte-identical across the ISAs (a digest of them, parent vs children).
 * - inference: byte-identical to ref (the same element expression, in double), except per
 *   activation in FLOAT / DOUBLE: y = x fa + fb with fa = scale inv, fb = bias - mean fa (in
 *   double; inv is ref's 1 / sqrt(var + eps)), held to the tolerance below with
 *   S = |alpha| (|scale| inv (|x| + |mean|) + |bias|) + |beta y_old| and K = 8 (the fused form
 *   rounds five times where ref rounds four; both round once more to the storage type).
 * - training and backward, integer fills with M (values per statistic) a power of 2: the
 *   one-pass sums are exact, so saved mean / inverse std-dev, running statistics and dbias
 *   equal ref byte for byte (y not: the cpu rows may fold scale, inv, mean and bias into one
 *   multiply-add per element, in double).
 * - otherwise within a tolerance per element (the statistics sum M terms in double, in an
 *   order other than ref's; then both round to the storage type):
 *     |cpu - ref| <= 2 u_out |ref| + 2 (M + 8) 2^-53 S + tiny(out)
 *   FLOAT per activation: 2^-24 in place of 2^-53 in this bound and in inference's (the
 *   in-place kernels compute in float on AVX-512, docs/testing.md), and of the integer cases
 *   only saved mean and dbias stay byte-identical (1 / sqrt and the running blends round in
 *   float); the worst err / bound of those cases is printed at the end.
 *   2 u_out: both results are rounded once to the output type from doubles that may lie on
 *   either side of a rounding boundary (one ulp). The second term bounds the double-precision
 *   accumulation (K = M + 8 roundings, c = 2, docs/testing.md) relative to S, each output's
 *   sum of magnitudes: for the variance S covers a one-pass variance shifted by any member of
 *   the group, A = (var + max (x - mean)^2) / (var + eps) (the error relative to the variance
 *   of sum (x - K)^2 with |K - mean| <= max |x - mean|), so an unshifted one-pass formula
 *   fails the large-mean case (x = 1000 + U(-1/2, 1/2): E[x^2] / var = 1.2e7).
 *     save_mean: S = mean |x| + max |x - mean|; save_inv: S = inv (A + 1);
 *     running mean / var: (1 - f) |old| + f (the above, var scaled by M / (M - 1));
 *     y: S = |alpha| (|scale| inv (mean |x| + max |x - mean| + |x - mean| A) + |bias|);
 *     dbias: |alpha_p| sum |dy|; dscale: |alpha_p| sum |dy| (|x - mean| A + max |x - mean| +
 *     mean |x|) inv (mean |x|: ref's own mean carries u |mean|, which xhat sees);
 *     dx: |alpha scale| inv (|dy| + (sum |dy| + X S_dscale) / M) (1 + A), X = (|x - mean| +
 *     max |x - mean| + mean |x|) inv.
 * Cases: FLOAT, DOUBLE, HALF, BFLOAT16; NCHW, NHWC, padded W (declined: ref serves it), gaps
 * between images (NCHW and NHWC), x and y in different layouts (declined); spatial,
 * per activation, spatial persistent; 4-d and 5-d; alpha / beta (1, 0), (0.5, 0.25); factor
 * 0.25 and 1.0 (running statistics NaN-poisoned: must not be read); epsilon 1e-3 and 1e-5;
 * running statistics NULL; saved statistics NULL (training) and backward with / without them;
 * odd sizes, C above one lane tile (256), C = 64 and 96 (the rows walk's register chunks),
 * per activation with M = 1, images of 1 and 33 positions (the 16-position vector steps' tails)
 * and 16 images, NHWC with C a multiple of 16 (parameters transposed in 16 x 16 blocks),
 * sizes above the threading threshold and above the streaming-store threshold (4 MiB); the *Ex
 * entries with BN_ACTIVATION (RELU, ELU) and BN_ADD_ACTIVATION (declined: ref serves it).
 */
#define _GNU_SOURCE
#include "fd_test.h"
#include "memops_case.h"
#include <unistd.h>

enum { LY_NCHW, LY_NHWC, LY_PADDED, LY_GAP_NCHW, LY_GAP_NHWC, LY_MIXED, LY_COUNT };
static const char *ly_name[] = {"nchw", "nhwc", "padded", "gap-nchw", "gap-nhwc", "mixed"};

typedef struct {
    int nb, dim[5];
    int layout;
    cudnnDataType_t dt;
    cudnnBatchNormMode_t mode;
    double alpha, beta;
    int fillk; /* 0 integers, 1 reals, 2 large mean */
    double factor, eps;
    int run_null, save_null;
    cudnnBatchNormOps_t ops;
    cudnnActivationMode_t act;
    int yoff; /* > 0: y and dx start this many elements past a 64-byte boundary (canaries) */
} bcase_t;

/* Output buffers at a chosen 64-byte phase (the tile walk's aligned head): a copy of src at
 * (64-byte boundary) + off bytes, 0xA5 canaries in the off bytes before and 64 bytes after; the
 * malloc'd block's address sits in the 8 bytes before the boundary. */
static void *phase_alloc(const void *src, size_t bytes, size_t off)
{
    unsigned char *raw = malloc(bytes + off + 144);
    unsigned char *al = (unsigned char *)(((uintptr_t)raw + 16 + 63) & ~(uintptr_t)63);
    memcpy(al - sizeof raw, &raw, sizeof raw);
    memset(al, 0xA5, off);
    memcpy(al + off, src, bytes);
    memset(al + off + bytes, 0xA5, 64);
    return al + off;
}

/* Frees a phase_alloc block; 0 (and a FAIL line) when a canary byte changed. */
static int phase_free(void *p, size_t bytes, size_t off, const char *what)
{
    unsigned char *al = (unsigned char *)p - off, *raw;
    memcpy(&raw, al - sizeof raw, sizeof raw);
    int ok = 1;
    for (size_t i = 0; i < off; i++)
        ok &= al[i] == 0xA5;
    for (size_t i = 0; i < 64; i++)
        ok &= al[off + bytes + i] == 0xA5;
    if (!ok) {
        failures++;
        fprintf(stderr, "FAIL %s: a write outside the output\n", what);
    }
    free(raw);
    return ok;
}

/* Moves o's outputs to phase off (bytes) when off > 0. */
static void phase_outputs(outbuf_t *o, size_t off)
{
    if (off == 0)
        return;
    for (int r = 0; r < 3; r++) {
        void *q = phase_alloc(o->out[r], o->bytes, off);
        free(o->out[r]);
        o->out[r] = q;
    }
}

static void free_output(outbuf_t *o, int r, size_t off, const char *what)
{
    if (off == 0)
        free(o->out[r]);
    else
        phase_free(o->out[r], o->bytes, off, what);
}

static shape_t shape_for(const bcase_t *k, int layout)
{
    layout_t base = layout == LY_NHWC || layout == LY_GAP_NHWC ? L_NHWC
                    : layout == LY_PADDED                      ? L_PADDED
                                                               : L_NCHW;
    shape_t s = make_shape(k->nb, k->dim, base);
    if (layout == LY_GAP_NCHW || layout == LY_GAP_NHWC) {
        s.str[0] += 5; /* a gap between images: the spatial dims still collapse */
        s.extent += (size_t)(k->dim[0] - 1) * 5;
    }
    return s;
}

/* Offset of element (n, c, s) of shape sh, s the row-major spatial index. */
static size_t off_of(const shape_t *sh, int n, int c, int64_t s)
{
    size_t o = (size_t)n * (size_t)sh->str[0] + (size_t)c * (size_t)sh->str[1];
    for (int d = sh->nb - 1; d >= 2; d--) {
        o += (size_t)(s % sh->dim[d]) * (size_t)sh->str[d];
        s /= sh->dim[d];
    }
    return o;
}

static void fill_case(cudnnDataType_t dt, void *p, size_t n, int fillk)
{
    for (size_t i = 0; i < n; i++) {
        double v = fillk == 0   ? floor(urand() * 9) - 4
                   : fillk == 1 ? urand() * 8 - 4
                                : 1000.0 + (urand() - 0.5);
        put(dt, p, i, v);
    }
}

static void fill_params(cudnnDataType_t pt, void *p, size_t n, double lo, double hi, int exact)
{
    for (size_t i = 0; i < n; i++)
        put(pt, p, i, exact ? floor(lo + (hi - lo) * urand()) : lo + (hi - lo) * urand());
}

/* Per-group statistics of the inputs, for the tolerances. */
typedef struct {
    double mean, var, maxdev, mabs, inv, A;
    double sdy, sdyx; /* sum |dy|, sum |dy| (|x - mean| A + maxdev + mabs) inv */
} gstat_t;

typedef struct {
    const bcase_t *k;
    shape_t xs, ys; /* x (and z); y, dy, dx */
    int64_t S, G, M;
    gstat_t *g;
} ctx_t;

static int64_t group_of(const ctx_t *c, int ch, int64_t s)
{
    return c->k->mode == CUDNN_BATCHNORM_PER_ACTIVATION ? (int64_t)ch * c->S + s : ch;
}

static void group_stats(ctx_t *c, const void *x, const void *dy)
{
    const bcase_t *k = c->k;
    cudnnDataType_t dt = k->dt;
    c->g = calloc((size_t)c->G, sizeof *c->g);
    for (int pass = 0; pass < 3; pass++)
        for (int n = 0; n < k->dim[0]; n++)
            for (int ch = 0; ch < k->dim[1]; ch++)
                for (int64_t s = 0; s < c->S; s++) {
                    gstat_t *g = &c->g[group_of(c, ch, s)];
                    double v = fd_test_load(dt, x, (int64_t)off_of(&c->xs, n, ch, s));
                    if (pass == 0) {
                        g->mean += v / (double)c->M;
                        g->mabs += fabs(v) / (double)c->M;
                    } else if (pass == 1) {
                        g->var += (v - g->mean) * (v - g->mean) / (double)c->M;
                        g->maxdev = fmax(g->maxdev, fabs(v - g->mean));
                    } else {
                        if (n == 0 && ch == 0 && s == 0)
                            for (int64_t i = 0; i < c->G; i++) {
                                gstat_t *h = &c->g[i];
                                h->inv = 1.0 / sqrt(h->var + k->eps);
                                h->A = (h->var + h->maxdev * h->maxdev) / (h->var + k->eps);
                            }
                        double e = fabs(fd_test_load(dt, dy, (int64_t)off_of(&c->ys, n, ch, s)));
                        g->sdy += e;
                        g->sdyx += e * (fabs(v - g->mean) * g->A + g->maxdev + g->mabs) * g->inv;
                    }
                }
}

/* The accumulation's unit round-off: 2^-53, or 2^-24 for FLOAT per activation (the cpu rows'
 * in-place kernels compute in float on AVX-512: docs/testing.md). */
static double u_acc = 0x1p-53;
static double tol_of(cudnnDataType_t dt, double want, double S, int64_t K)
{
    return 2.0 * fd_unit_roundoff(dt) * fabs(want) + 2.0 * (double)K * u_acc * S +
           fd_tolerance_tiny(dt);
}

/* The worst err / bound per output of the float-arithmetic cases (docs/testing.md's rows):
 * table 0 per activation, table 1 the spatial rows walk's training and backward, table 2 the
 * spatial plane walk's backward (wtab). */
static struct {
    const char *name;
    double r;
} worst[3][8];
static int wtab;
static void note_worst(const char *name, double r)
{
    int i = 0;
    while (i < 7 && worst[wtab][i].name != NULL && strcmp(worst[wtab][i].name, name) != 0)
        i++;
    worst[wtab][i].name = name;
    if (r > worst[wtab][i].r)
        worst[wtab][i].r = r;
}

/* The cpu rows take FLOAT spatial training and backward in C-unit-stride order in float on
 * AVX-512 and on AVX2 + FMA (batchnorm_cpu.c's rows walk) unless FREEDNN_CPU_ISA=generic holds
 * them off. */
static int rows_float_isa(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    const char *cap = getenv("FREEDNN_CPU_ISA");
    __builtin_cpu_init();
    if (cap && strcmp(cap, "generic") == 0)
        return 0;
    return __builtin_cpu_supports("avx512f") ||
           (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
#else
    return 0;
#endif
}

/* A digest (FNV-1a) of the cpu outputs of the cases every ISA computes in double: the
 * children with FREEDNN_CPU_ISA=avx2 / generic must print the parent's, so the AVX2 (and
 * AVX-512) kernels give the generic kernels' bits. */
static uint64_t digest = 1469598103934665603ull;
static int dig_on;
static void dig_add(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; dig_on && i < n; i++)
        digest = (digest ^ b[i]) * 1099511628211ull;
}

/* Compares got with want element-wise under tolerance fn(i) (exact when exact). */
static int printed;
static void cmp_tol(const char *what, const char *name, cudnnDataType_t dt, const void *want,
                    const void *got, size_t n, int exact,
                    double (*sfn)(const ctx_t *, size_t, double *), const ctx_t *c, int64_t K)
{
    cases++;
    if (exact) {
        if (!same_bits(dt, want, got, n * dt_size(dt))) {
            failures++;
            fprintf(stderr, "FAIL %s: %s differs from ref (exact case)\n", what, name);
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        double w = fd_test_load(dt, want, (int64_t)i), g = fd_test_load(dt, got, (int64_t)i);
        double old = 0;
        double S = sfn(c, i, &old);
        if (isnan(w) && isnan(g))
            continue;
        if (S < 0) /* not an element of the tensor (a gap) */
            continue;
        double t = tol_of(dt, w, S, K);
        if (u_acc == 0x1p-24 && t > 0)
            note_worst(name, fabs(g - w) / t);
        if (!(fabs(g - w) <= t)) {
            failures++;
            if (printed++ < 50)
                fprintf(stderr, "FAIL %s: %s[%zu] cpu %.17g ref %.17g (diff %.3g > tol %.3g)\n",
                        what, name, i, g, w, fabs(g - w), t);
            else
                fprintf(stderr, "FAIL %s: %s\n", what, name);
            return;
        }
    }
}

/* Bounds S per element; a parameter index i or a data offset i. */
static double *old_rm, *old_rv, *cur_sc, *cur_bi;
static double s_mean(const ctx_t *c, size_t i, double *o)
{
    (void)o;
    return c->g[i].mabs + c->g[i].maxdev;
}
static double s_inv(const ctx_t *c, size_t i, double *o)
{
    (void)o;
    return c->g[i].inv * (c->g[i].A + 1.0); /* + 1: the roundings of 1 / sqrt itself */
}
static double s_rmean(const ctx_t *c, size_t i, double *o)
{
    (void)o;
    double f = c->k->factor;
    return (1 - f) * fabs(old_rm[i]) + f * (c->g[i].mabs + c->g[i].maxdev);
}
static double s_rvar(const ctx_t *c, size_t i, double *o)
{
    (void)o;
    double f = c->k->factor, M = (double)c->M;
    const gstat_t *g = &c->g[i];
    return (1 - f) * fabs(old_rv[i]) + f * (g->var + g->maxdev * g->maxdev) * M / (M - 1);
}
static double s_dbias(const ctx_t *c, size_t i, double *o)
{
    (void)o;
    return fabs(c->k->alpha) * c->g[i].sdy;
}
static double s_dscale(const ctx_t *c, size_t i, double *o)
{
    (void)o;
    return fabs(c->k->alpha) * c->g[i].sdyx;
}

/* Offset in y's layout -> its group and x's offset of the element, or -1 in a gap. */
static int64_t data_group(const ctx_t *c, size_t off, size_t *xoff)
{
    const shape_t *sh = &c->ys;
    /* brute force over the shape is too slow: invert the strides (dims sorted by stride) */
    int order[5];
    for (int d = 0; d < sh->nb; d++)
        order[d] = d;
    for (int a = 0; a < sh->nb; a++)
        for (int b = a + 1; b < sh->nb; b++)
            if (sh->str[order[b]] > sh->str[order[a]]) {
                int t = order[a];
                order[a] = order[b];
                order[b] = t;
            }
    int idx[5];
    size_t rem = off;
    for (int a = 0; a < sh->nb; a++) {
        int d = order[a];
        idx[d] = (int)(rem / (size_t)sh->str[d]);
        rem %= (size_t)sh->str[d];
        if (idx[d] >= sh->dim[d])
            return -1;
    }
    if (rem != 0)
        return -1;
    int64_t s = 0;
    for (int d = 2; d < sh->nb; d++)
        s = s * sh->dim[d] + idx[d];
    *xoff = off_of(&c->xs, idx[0], idx[1], s);
    return group_of(c, idx[1], s);
}

static const void *cur_x, *cur_dy;
static double s_y(const ctx_t *c, size_t i, double *o)
{
    (void)o;
    size_t xo;
    int64_t g = data_group(c, i, &xo);
    if (g < 0)
        return -1;
    const gstat_t *q = &c->g[g];
    double x = fd_test_load(c->k->dt, cur_x, (int64_t)xo);
    return fabs(c->k->alpha) *
           (fabs(cur_sc[g]) * q->inv * (q->mabs + q->maxdev + fabs(x - q->mean) * q->A) +
            fabs(cur_bi[g]));
}
/* Per-activation inference, y = x fa + fb (fa = scale inv, fb = bias - mean fa, inv = 1 /
 * sqrt(var + eps) as ref's): some 5 roundings in double against ref's 4, relative to
 * S = |alpha| (|scale| inv (|x| + |mean|) + |bias|) + |beta y_old| (the blend is the same
 * expression on both sides); K = 8. */
static const void *cur_mu, *cur_va, *cur_yinit;
static cudnnDataType_t cur_pt;
static double s_yinf(const ctx_t *c, size_t i, double *o)
{
    (void)o;
    size_t xo;
    int64_t g = data_group(c, i, &xo);
    if (g < 0)
        return -1;
    const double x = fd_test_load(c->k->dt, cur_x, (int64_t)xo);
    const double mu = fd_test_load(cur_pt, cur_mu, g), va = fd_test_load(cur_pt, cur_va, g);
    const double old = c->k->beta != 0.0 ? fd_test_load(c->k->dt, cur_yinit, (int64_t)i) : 0.0;
    return fabs(c->k->alpha) *
               (fabs(cur_sc[g]) / sqrt(va + c->k->eps) * (fabs(x) + fabs(mu)) + fabs(cur_bi[g])) +
           fabs(c->k->beta * old);
}

static double s_dx(const ctx_t *c, size_t i, double *o)
{
    (void)o;
    size_t xo;
    int64_t g = data_group(c, i, &xo);
    if (g < 0)
        return -1;
    const gstat_t *q = &c->g[g];
    double x = fd_test_load(c->k->dt, cur_x, (int64_t)xo);
    double e = fabs(fd_test_load(c->k->dt, cur_dy, (int64_t)i));
    double xh = (fabs(x - q->mean) + q->maxdev + q->mabs) * q->inv;
    return fabs(c->k->alpha * cur_sc[g]) * q->inv * (e + (q->sdy + xh * q->sdyx) / (double)c->M) *
           (1 + q->A);
}

static int is_pow2(int64_t m)
{
    return m > 0 && (m & (m - 1)) == 0;
}

static void run_bn_case(const bcase_t *k)
{
    char what[320];
    ctx_t c = {k, shape_for(k, k->layout), shape_for(k, k->layout), 1, 0, 0, NULL};
    if (k->layout == LY_MIXED)
        c.ys = shape_for(k, LY_NHWC);
    const shape_t ys = c.ys;
    for (int d = 2; d < k->nb; d++)
        c.S *= k->dim[d];
    const int pa = k->mode == CUDNN_BATCHNORM_PER_ACTIVATION;
    c.G = pa ? (int64_t)k->dim[1] * c.S : k->dim[1];
    c.M = pa ? k->dim[0] : (int64_t)k->dim[0] * c.S;
    const cudnnDataType_t dt = k->dt;
    const cudnnDataType_t pt = dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    cudnnTensorDescriptor_t xd = desc_of(&c.xs, dt), yd = desc_of(&ys, dt), pd;
    CHECK(cudnnCreateTensorDescriptor(&pd));
    CHECK(cudnnDeriveBNTensorDescriptor(pd, xd, k->mode));
    const size_t np = (size_t)c.G, pb = np * dt_size(pt);
    const size_t xb = c.xs.extent * dt_size(dt);
    void *x = malloc(xb), *dy = malloc(xb), *z = malloc(xb), *sc = malloc(pb), *bi = malloc(pb),
         *mu = malloc(pb), *va = malloc(pb);
    const int exactfill = k->fillk == 0;
    fill_case(dt, x, c.xs.extent, k->fillk);
    fill_case(dt, dy, c.xs.extent, k->fillk == 2 ? 1 : k->fillk);
    fill_case(dt, z, c.xs.extent, k->fillk == 2 ? 1 : k->fillk);
    fill_params(pt, sc, np, 0.5, 2, 0), fill_params(pt, bi, np, -1, 1, 0);
    fill_params(pt, mu, np, -1, 1, 0), fill_params(pt, va, np, 0.25, 3, 0);
    group_stats(&c, x, dy);
    old_rm = malloc(np * sizeof(double)), old_rv = malloc(np * sizeof(double));
    cur_sc = malloc(np * sizeof(double)), cur_bi = malloc(np * sizeof(double));
    for (size_t i = 0; i < np; i++) {
        old_rm[i] = k->factor == 1.0 ? 0 : fd_test_load(pt, mu, (int64_t)i);
        old_rv[i] = k->factor == 1.0 ? 0 : fd_test_load(pt, va, (int64_t)i);
        cur_sc[i] = fd_test_load(pt, sc, (int64_t)i);
        cur_bi[i] = fd_test_load(pt, bi, (int64_t)i);
    }
    cur_x = x, cur_dy = dy;
    unsigned char a8[8], b8[8];
    scal(dt, k->alpha, a8), scal(dt, k->beta, b8);
    cur_dt = dt;
    snprintf(what, sizeof what,
             "bn %s %s %s %dd n%dc%d.. a %g b %g %s f %g eps %g%s%s ops %d act %d",
             k->mode == CUDNN_BATCHNORM_SPATIAL ? "spatial"
             : pa                               ? "per_act"
                                                : "persistent",
             dt_name(dt), ly_name[k->layout], k->nb, k->dim[0], k->dim[1], k->alpha, k->beta,
             k->fillk == 0   ? "int"
             : k->fillk == 1 ? "real"
                             : "mean1000",
             k->factor, k->eps, k->run_null ? " run=NULL" : "", k->save_null ? " save=NULL" : "",
             (int)k->ops, (int)k->act);
    char w2[400];
    const int exact = exactfill && is_pow2(c.M);
    /* FLOAT per activation computes in float: saved mean and dbias stay exact with integers
     * (sums below 2^24, one rounding of an exact value), the blends of the running statistics
     * and 1 / sqrt do not */
    const int pa_float = pa && dt == CUDNN_DATA_FLOAT;
    /* FLOAT spatial training and backward with C unit-stride on AVX-512 and AVX2 compute in
     * float too (the rows walk's rst_ / rbout_ / rbs_ / rbdx_f32_avx512 / _avx2, the same
     * operations lane for lane); with integers their sums stay exact (runs of at most 64 rows
     * summed in float), so do the statistics */
    const int rows_float = !pa && dt == CUDNN_DATA_FLOAT && k->ops == CUDNN_BATCHNORM_OPS_BN &&
                           (k->layout == LY_NHWC || k->layout == LY_GAP_NHWC) && rows_float_isa();
    /* FLOAT spatial backward with the spatial dims unit-stride (NCHW-like: the plane walk) on
     * AVX-512 and AVX2 computes its sums and dx in float too (rbs_ / rbdx_f32_*, the channel's
     * factors in every lane; since 2026-12-06); its training stays in double */
    const int plane_bn = !pa && dt == CUDNN_DATA_FLOAT && k->ops == CUDNN_BATCHNORM_OPS_BN &&
                         (k->layout == LY_NCHW || k->layout == LY_GAP_NCHW);
    const int plane_float = plane_bn && rows_float_isa();
    u_acc = pa_float || rows_float ? 0x1p-24 : 0x1p-53;
    wtab = rows_float;
    /* in double on every ISA: not FLOAT per activation nor FLOAT spatial C-unit-stride BN */
    dig_on = !pa_float && !(!pa && dt == CUDNN_DATA_FLOAT && k->ops == CUDNN_BATCHNORM_OPS_BN &&
                            (k->layout == LY_NHWC || k->layout == LY_GAP_NHWC));
    cudnnActivationDescriptor_t ad = NULL;
    if (k->ops != CUDNN_BATCHNORM_OPS_BN) {
        CHECK(cudnnCreateActivationDescriptor(&ad));
        CHECK(cudnnSetActivationDescriptor(ad, k->act, CUDNN_NOT_PROPAGATE_NAN, 1.0));
    }

    /* inference (plain BN): byte-identical to ref, except per activation in FLOAT / DOUBLE
     * (y = x fa + fb: within the tolerance) */
    if (k->ops == CUDNN_BATCHNORM_OPS_BN) {
        outbuf_t o;
        out_init(&o, dt, ys.extent, k->beta, exactfill);
        const size_t yoff = pa ? (size_t)k->yoff * dt_size(dt) : 0;
        phase_outputs(&o, yoff);
        for (int r = 0; r < 3; r++)
            CHECK(cudnnBatchNormalizationForwardInference(run_handle(r), k->mode, a8, b8, xd, x, yd,
                                                          o.out[r], pd, sc, bi, mu, va, k->eps));
        snprintf(w2, sizeof w2, "%s infer", what);
        if (pa && (dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_DOUBLE)) {
            cases++;
            if (!same_bits(dt, o.out[1], o.out[2], o.bytes)) {
                failures++;
                fprintf(stderr, "FAIL %s: 1 and 2 threads differ\n", w2);
            }
            cur_mu = mu, cur_va = va, cur_pt = pt, cur_yinit = o.init;
            cmp_tol(w2, "y", dt, o.out[0], o.out[1], ys.extent, 0, s_yinf, &c, 8);
            free(o.init);
            for (int r = 0; r < 3; r++)
                free_output(&o, r, yoff, w2);
        } else {
            dig_add(o.out[1], o.bytes);
            out_check(&o, w2);
        }
    }

    /* training */
    outbuf_t o;
    out_init(&o, dt, ys.extent, k->beta, exactfill);
    const size_t yoff = (size_t)k->yoff * dt_size(dt);
    phase_outputs(&o, yoff);
    void *rm[3], *rv[3], *sm[3], *si[3], *res[3];
    size_t ws_size = 0, res_size = 0;
    if (ad != NULL) {
        CHECK(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
            h_ref, k->mode, k->ops, xd, k->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION ? xd : NULL,
            yd, pd, ad, &ws_size));
        size_t w1 = 0;
        CHECK(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
            h_cpu, k->mode, k->ops, xd, k->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION ? xd : NULL,
            yd, pd, ad, &w1));
        ws_size = w1 > ws_size ? w1 : ws_size;
        CHECK(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h_ref, k->mode, k->ops, ad, xd,
                                                                   &res_size));
    }
    void *ws = malloc(ws_size + 64);
    for (int r = 0; r < 3; r++) {
        rm[r] = malloc(pb), rv[r] = malloc(pb), sm[r] = malloc(pb), si[r] = malloc(pb);
        res[r] = malloc(res_size + 1);
        if (k->factor == 1.0) {
            memset(rm[r], 0xff, pb), memset(rv[r], 0xff, pb); /* must not be read */
        } else {
            memcpy(rm[r], mu, pb), memcpy(rv[r], va, pb);
        }
        memset(sm[r], 0xff, pb), memset(si[r], 0xff, pb);
        void *rmp = k->run_null ? NULL : rm[r], *rvp = k->run_null ? NULL : rv[r];
        void *smp = k->save_null ? NULL : sm[r], *sip = k->save_null ? NULL : si[r];
        if (ad == NULL)
            CHECK(cudnnBatchNormalizationForwardTraining(run_handle(r), k->mode, a8, b8, xd, x, yd,
                                                         o.out[r], pd, sc, bi, k->factor, rmp, rvp,
                                                         k->eps, smp, sip));
        else
            CHECK(cudnnBatchNormalizationForwardTrainingEx(
                run_handle(r), k->mode, k->ops, a8, b8, xd, x,
                k->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION ? xd : NULL,
                k->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION ? z : NULL, yd, o.out[r], pd, sc,
                bi, k->factor, rmp, rvp, k->eps, smp, sip, ad, ws, ws_size, res[r], res_size));
    }
    snprintf(w2, sizeof w2, "%s train", what);
    /* cpu 1 vs 2 threads: identical */
    cases++;
    if (!same_bits(dt, o.out[1], o.out[2], o.bytes) || !same_bits(pt, rm[1], rm[2], pb) ||
        !same_bits(pt, rv[1], rv[2], pb) || !same_bits(pt, sm[1], sm[2], pb) ||
        !same_bits(pt, si[1], si[2], pb)) {
        failures++;
        fprintf(stderr, "FAIL %s: 1 and 2 threads differ\n", w2);
    }
    cmp_tol(w2, "y", dt, o.out[0], o.out[1], ys.extent, 0, s_y, &c, c.M + 8);
    dig_add(o.out[1], o.bytes);
    if (!k->run_null)
        dig_add(rm[1], pb), dig_add(rv[1], pb);
    if (!k->save_null)
        dig_add(sm[1], pb), dig_add(si[1], pb);
    if (!k->run_null) {
        cmp_tol(w2, "running_mean", pt, rm[0], rm[1], np, exact && !pa_float, s_rmean, &c, c.M + 4);
        cmp_tol(w2, "running_var", pt, rv[0], rv[1], np, exact && !pa_float, s_rvar, &c, c.M + 8);
    }
    if (!k->save_null) {
        cmp_tol(w2, "save_mean", pt, sm[0], sm[1], np, exact, s_mean, &c, c.M + 4);
        cmp_tol(w2, "save_inv", pt, si[0], si[1], np, exact && !pa_float, s_inv, &c, c.M + 8);
    }

    /* backward, with the ref's saved statistics and without */
    const double u_acc0 = u_acc;
    const int wtab0 = wtab, dig0 = dig_on;
    if (plane_float) /* float arithmetic */
        u_acc = 0x1p-24, wtab = 2;
    if (plane_bn) /* not in double on every ISA */
        dig_on = 0;
    for (int saved = 0; saved < 2; saved++) {
        if (saved && k->save_null)
            continue;
        if (k->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION && !saved)
            continue;
        outbuf_t g, gz;
        out_init(&g, dt, ys.extent, k->beta, exactfill);
        phase_outputs(&g, yoff);
        out_init(&gz, dt, ys.extent, 0.0, exactfill);
        void *ds[3], *db[3];
        size_t bws = 0;
        if (ad != NULL) {
            const cudnnTensorDescriptor_t dzd =
                k->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION ? yd : NULL;
            CHECK(cudnnGetBatchNormalizationBackwardExWorkspaceSize(h_ref, k->mode, k->ops, xd, yd,
                                                                    yd, dzd, yd, pd, ad, &bws));
            size_t w1 = 0;
            CHECK(cudnnGetBatchNormalizationBackwardExWorkspaceSize(h_cpu, k->mode, k->ops, xd, yd,
                                                                    yd, dzd, yd, pd, ad, &w1));
            bws = w1 > bws ? w1 : bws;
        }
        void *bw = malloc(bws + 64);
        for (int r = 0; r < 3; r++) {
            ds[r] = malloc(pb), db[r] = malloc(pb);
            memcpy(ds[r], va, pb), memcpy(db[r], mu, pb);
            const void *smp = saved ? sm[0] : NULL, *sip = saved ? si[0] : NULL;
            if (ad == NULL)
                CHECK(cudnnBatchNormalizationBackward(run_handle(r), k->mode, a8, b8, a8, b8, xd, x,
                                                      yd, dy, yd, g.out[r], pd, sc, ds[r], db[r],
                                                      k->eps, smp, sip));
            else
                CHECK(cudnnBatchNormalizationBackwardEx(
                    run_handle(r), k->mode, k->ops, a8, b8, a8, b8, xd, x, yd, o.out[0], yd, dy,
                    k->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION ? yd : NULL,
                    k->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION ? gz.out[r] : NULL, yd,
                    g.out[r], pd, sc, bi, ds[r], db[r], k->eps, smp, sip, ad, bw, bws, res[0],
                    res_size));
        }
        snprintf(w2, sizeof w2, "%s bwd%s", what, saved ? " saved" : "");
        cases++;
        if (!same_bits(dt, g.out[1], g.out[2], g.bytes) || !same_bits(pt, ds[1], ds[2], pb) ||
            !same_bits(pt, db[1], db[2], pb) || !same_bits(dt, gz.out[1], gz.out[2], gz.bytes)) {
            failures++;
            fprintf(stderr, "FAIL %s: 1 and 2 threads differ\n", w2);
        }
        /* dbias blends alpha_p sum dy + beta_p old: exact for integers in any order */
        cmp_tol(w2, "dbias", pt, db[0], db[1], np, exactfill && k->ops == CUDNN_BATCHNORM_OPS_BN,
                s_dbias, &c, c.M + 2);
        cmp_tol(w2, "dscale", pt, ds[0], ds[1], np, 0, s_dscale, &c, c.M + 4);
        cmp_tol(w2, "dx", dt, g.out[0], g.out[1], ys.extent, 0, s_dx, &c, c.M + 8);
        dig_add(g.out[1], g.bytes), dig_add(ds[1], pb), dig_add(db[1], pb);
        if (k->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION) {
            cases++;
            if (!same_bits(dt, gz.out[0], gz.out[1], gz.bytes)) {
                failures++;
                fprintf(stderr, "FAIL %s: dz differs from ref\n", w2);
            }
        }
        for (int r = 0; r < 3; r++)
            free(ds[r]), free(db[r]), free_output(&g, r, yoff, w2), free(gz.out[r]);
        free(g.init), free(gz.init), free(bw);
    }
    u_acc = u_acc0, wtab = wtab0, dig_on = dig0;
    for (int r = 0; r < 3; r++)
        free(rm[r]), free(rv[r]), free(sm[r]), free(si[r]), free(res[r]),
            free_output(&o, r, yoff, what);
    free(o.init), free(ws);
    free(x), free(dy), free(z), free(sc), free(bi), free(mu), free(va);
    free(old_rm), free(old_rv), free(cur_sc), free(cur_bi), free(c.g);
    if (ad != NULL)
        cudnnDestroyActivationDescriptor(ad);
    cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd),
        cudnnDestroyTensorDescriptor(pd);
}

/* FLOAT spatial backward and training near a large mean (NHWC: the rows walk; NCHW: the plane
 * walk, whose backward computes in float since 2026-12-06 and whose training stays in
 * double, so the same bounds hold there with room): x = 1000 +
 * U(-1/2, 1/2), dy correlated with xhat, statistics computed (not saved ones). A float mean
 * alone rounds by up to 2^-14 here, which moves every xhat by about 2^-13 of itself (dx and y
 * off by ~2e-4 of their size); the float kernels carry the mean as two floats. Backward bound
 * per element, u = 2^-24, in the terms' own size (no |mean| term):
 *   |cpu - ref| <= 2 u_out |ref| + 16 u T + 72 u |coef| (sum |dy| + |xhat| sum |dy xhat|) / M,
 *   T = |coef| (|dy| + |mg| + |xhat mgx|), coef = scale inv (the runs of 64 rows summed in
 *   float give the last term); training's below. */
static void large_mean_case(int nchw)
{
    const int n = 4, ch = 16, h = 32, w = 40;
    const size_t e = (size_t)n * ch * h * w;
    const int64_t M = (int64_t)n * h * w;
    /* the channel of element i */
#define LM_CH(i) (nchw ? (int)((i) / ((size_t)h * w) % ch) : (int)((i) % ch))
    cudnnTensorDescriptor_t xd, pd;
    CHECK(cudnnCreateTensorDescriptor(&xd));
    CHECK(cudnnCreateTensorDescriptor(&pd));
    CHECK(cudnnSetTensor4dDescriptor(xd, nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC,
                                     CUDNN_DATA_FLOAT, n, ch, h, w));
    CHECK(cudnnDeriveBNTensorDescriptor(pd, xd, CUDNN_BATCHNORM_SPATIAL));
    float *x = malloc(e * 4), *dy = malloc(e * 4), *d[2];
    float sc[16], ds[2][16], db[2][16];
    for (size_t i = 0; i < e; i++) {
        x[i] = (float)(1000.0 + urand() - 0.5);
        dy[i] = (float)(0.7 * (x[i] - 1000.0) * 3.4 + urand() - 0.5);
    }
    for (int c = 0; c < ch; c++)
        sc[c] = (float)(0.5 + urand());
    const float one = 1.0f, zero = 0.0f;
    for (int r = 0; r < 2; r++) {
        d[r] = malloc(e * 4);
        CHECK(cudnnBatchNormalizationBackward(r ? h_cpu : h_ref, CUDNN_BATCHNORM_SPATIAL, &one,
                                              &zero, &one, &zero, xd, x, xd, dy, xd, d[r], pd, sc,
                                              ds[r], db[r], 1e-5, NULL, NULL));
    }
    double mean[16] = {0}, var[16] = {0}, sdy[16] = {0}, sdyx[16] = {0}, sady[16] = {0},
           sadyx[16] = {0};
    for (size_t i = 0; i < e; i++)
        mean[LM_CH(i)] += x[i] / (double)M;
    for (size_t i = 0; i < e; i++)
        var[LM_CH(i)] += (x[i] - mean[LM_CH(i)]) * (x[i] - mean[LM_CH(i)]) / (double)M;
    for (size_t i = 0; i < e; i++) {
        const int c = LM_CH(i);
        const double xh = (x[i] - mean[c]) / sqrt(var[c] + 1e-5);
        sdy[c] += dy[i], sdyx[c] += dy[i] * xh;
        sady[c] += fabs(dy[i]), sadyx[c] += fabs(dy[i] * xh);
    }
    int bad = 0;
    double worst_r = 0;
    for (size_t i = 0; i < e; i++) {
        const int c = LM_CH(i);
        const double inv = 1.0 / sqrt(var[c] + 1e-5), coef = fabs(sc[c] * inv);
        const double xh = fabs(x[i] - mean[c]) * inv, mg = fabs(sdy[c]) / (double)M,
                     mgx = fabs(sdyx[c]) / (double)M;
        const double T = coef * (fabs(dy[i]) + mg + xh * mgx);
        const double tol = 0x1p-23 * fabs(d[0][i]) + 16 * 0x1p-24 * T +
                           72 * 0x1p-24 * coef * (sady[c] + xh * sadyx[c]) / (double)M;
        const double err = fabs((double)d[1][i] - d[0][i]);
        if (err / tol > worst_r)
            worst_r = err / tol;
        if (!(err <= tol) && bad++ == 0)
            fprintf(stderr, "FAIL bn large mean: dx[%zu] cpu %.9g ref %.9g (err %.3g > %.3g)\n", i,
                    d[1][i], d[0][i], err, tol);
    }
    cases++;
    failures += bad > 0;
    /* training: y = scale (x - mean) inv + bias within
     *   2 u_out |ref| + u (16 |bias| + 128 |coef| (|x - mean| + max |x - mean|))
     * (the statistics' runs of 64 rows summed in float move the mean by at most 32 u max|x - K|) */
    float bi[16], rm[16], rv[16];
    for (int c = 0; c < ch; c++)
        bi[c] = (float)(urand() - 0.5), rm[c] = 0.0f, rv[c] = 1.0f;
    for (int r = 0; r < 2; r++)
        CHECK(cudnnBatchNormalizationForwardTraining(r ? h_cpu : h_ref, CUDNN_BATCHNORM_SPATIAL,
                                                     &one, &zero, xd, x, xd, d[r], pd, sc, bi, 0.5,
                                                     rm, rv, 1e-5, NULL, NULL));
    double maxdev[16] = {0}, worst_y = 0;
    for (size_t i = 0; i < e; i++)
        if (fabs(x[i] - mean[LM_CH(i)]) > maxdev[LM_CH(i)])
            maxdev[LM_CH(i)] = fabs(x[i] - mean[LM_CH(i)]);
    int bad_y = 0;
    for (size_t i = 0; i < e; i++) {
        const int c = LM_CH(i);
        const double coef = fabs(sc[c] / sqrt(var[c] + 1e-5)), dev = fabs(x[i] - mean[c]);
        const double tol =
            0x1p-23 * fabs(d[0][i]) + 0x1p-24 * (16 * fabs(bi[c]) + 128 * coef * (dev + maxdev[c]));
        const double err = fabs((double)d[1][i] - d[0][i]);
        if (err / tol > worst_y)
            worst_y = err / tol;
        if (!(err <= tol) && bad_y++ == 0)
            fprintf(stderr, "FAIL bn large mean: y[%zu] cpu %.9g ref %.9g (err %.3g > %.3g)\n", i,
                    d[1][i], d[0][i], err, tol);
    }
    cases++;
    failures += bad_y > 0;
    printf("bn large mean (%s FLOAT): dx worst err / bound %.3g, training y %.3g\n",
           nchw ? "NCHW" : "NHWC", worst_r, worst_y);
    free(x), free(dy), free(d[0]), free(d[1]);
    cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(pd);
#undef LM_CH
}

static bcase_t base_case(int nb, const int *dim, int layout, cudnnDataType_t dt,
                         cudnnBatchNormMode_t mode)
{
    bcase_t k;
    memset(&k, 0, sizeof k);
    k.nb = nb;
    memcpy(k.dim, dim, sizeof(int) * (size_t)nb);
    k.layout = layout, k.dt = dt, k.mode = mode;
    k.alpha = 1, k.beta = 0, k.fillk = 1, k.factor = 0.25, k.eps = 1e-3;
    k.ops = CUDNN_BATCHNORM_OPS_BN, k.act = CUDNN_ACTIVATION_RELU;
    return k;
}

/* This program with --child, env prepended: 1 when it passed and printed digest `want`. */
static int child(const char *env, uint64_t want)
{
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return 0;
    self[len] = '\0';
    char cmd[4400], line[512];
    snprintf(cmd, sizeof cmd, "%s '%s' --child", env, self);
    FILE *f = popen(cmd, "r");
    if (f == NULL)
        return 0;
    int same = 0;
    unsigned long long d;
    while (fgets(line, sizeof line, f) != NULL) {
        fputs(line, stdout);
        if (sscanf(line, "digest %llx", &d) == 1)
            same = d == (unsigned long long)want;
    }
    const int rc = pclose(f);
    if (!same)
        fprintf(stderr, "FAIL %s: the double-arithmetic outputs differ from the parent's\n", env);
    return rc == 0 && same;
}

int main(int argc, char **argv)
{
    const int is_child = argc > 1 && strcmp(argv[1], "--child") == 0;
    set_threads = (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    if (set_threads == NULL) {
        fprintf(stderr, "omp_set_num_threads not found\n");
        return 1;
    }
    CHECK(freednnCreateWithBackend(&h_ref, FREEDNN_BACKEND_REF));
    CHECK(freednnCreateWithBackend(&h_cpu, FREEDNN_BACKEND_CPU));
    const cudnnBatchNormMode_t modes[3] = {CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_PER_ACTIVATION,
                                           CUDNN_BATCHNORM_SPATIAL_PERSISTENT};
    /* odd sizes; M a power of 2 (2x8x4 spatial, N = 8 per activation) for the exact cases */
    const int d_odd[4] = {3, 5, 7, 9}, d_pow2[4] = {8, 3, 4, 8}, d5[5] = {2, 3, 4, 3, 5};
    const int d_wide[4] = {2, 37, 3, 5}, d_tiles[4] = {2, 300, 3, 3};
    const double ab[2][2] = {{1.0, 0.0}, {0.5, 0.25}};
    for (int ly = 0; ly < LY_COUNT; ly++)
        for (int di = 0; di < 4; di++)
            for (int m = 0; m < 3; m++)
                for (int fk = 0; fk < 2; fk++)
                    for (int abk = 0; abk < 2; abk++) {
                        bcase_t k = base_case(4, d_odd, ly, dtypes[di], modes[m]);
                        k.fillk = fk, k.alpha = ab[abk][0], k.beta = ab[abk][1];
                        run_bn_case(&k);
                        k = base_case(4, d_pow2, ly, dtypes[di], modes[m]);
                        k.fillk = fk, k.alpha = ab[abk][0], k.beta = ab[abk][1];
                        run_bn_case(&k);
                        if (abk == 0) {
                            k = base_case(4, d_wide, ly, dtypes[di], modes[m]);
                            k.fillk = fk;
                            run_bn_case(&k);
                            k = base_case(5, d5, ly, dtypes[di], modes[m]);
                            k.fillk = fk;
                            run_bn_case(&k);
                        }
                    }
    /* factor 1 (running statistics poisoned), epsilon, NULL statistics, more lane tiles */
    for (int ly = 0; ly < 2; ly++)
        for (int m = 0; m < 2; m++) {
            bcase_t k = base_case(4, d_odd, ly, CUDNN_DATA_FLOAT, modes[m]);
            k.factor = 1.0;
            run_bn_case(&k);
            k = base_case(4, d_odd, ly, CUDNN_DATA_FLOAT, modes[m]);
            k.eps = 1e-5, k.run_null = 1;
            run_bn_case(&k);
            k = base_case(4, d_odd, ly, CUDNN_DATA_DOUBLE, modes[m]);
            k.save_null = 1, k.run_null = 1;
            run_bn_case(&k);
            k = base_case(4, d_tiles, ly, CUDNN_DATA_FLOAT, modes[m]);
            run_bn_case(&k);
            k.fillk = 0;
            run_bn_case(&k);
        }
    /* the rows walk's register chunks (64 lanes for the statistics, 32 for the backward sums)
     * and the per-lane AVX-512 element passes: C = 64 (whole chunks, packed rows run four at a
     * time), C = 96 (a partial statistics chunk), M a power of 2 with integer fills (exact) */
    const int d_c64[4] = {4, 64, 8, 8}, d_c96[4] = {2, 96, 5, 7};
    for (int ly = 0; ly < 2; ly++)
        for (int m = 0; m < 2; m++)
            for (int di = 0; di < 2; di++)
                for (int fk = 0; fk < 2; fk++) {
                    bcase_t k = base_case(4, d_c64, ly, dtypes[di], modes[m]);
                    k.fillk = fk;
                    run_bn_case(&k);
                    k = base_case(4, d_c96, ly, dtypes[di], modes[m]);
                    k.fillk = fk, k.alpha = 0.5, k.beta = 0.25;
                    run_bn_case(&k);
                }
    /* per activation (tile walk, 16 positions per vector step): one image (M = 1: variance 0,
     * unbiased variance 0 / 0 = NaN), images of 1 and 33 positions (all tail), 16 images */
    const int d_pa[4][4] = {{1, 5, 7, 9}, {3, 1, 1, 1}, {5, 3, 1, 11}, {16, 4, 6, 7}};
    for (int ly = 0; ly < 4; ly++)
        for (int i = 0; i < 4; i++)
            for (int fk = 0; fk < 2; fk++) {
                bcase_t k = base_case(4, d_pa[i], ly, CUDNN_DATA_FLOAT,
                                      CUDNN_BATCHNORM_PER_ACTIVATION);
                k.fillk = fk;
                if (fk)
                    k.alpha = 0.5, k.beta = 0.25;
                run_bn_case(&k);
            }
    /* per activation, packed images a multiple of 64 bytes apart: outputs at every 4-byte
     * phase of a line (the tile walk's short head tile, then whole-line tiles), one and eight
     * images, FLOAT NCHW and NHWC, and the ordinary walk for DOUBLE */
    const int d_ph[2][4] = {{8, 4, 4, 8}, {1, 2, 9, 17}};
    for (int ly = 0; ly < 2; ly++)
        for (int i = 0; i < 2; i++)
            for (int off = 0; off < 16; off += (i ? 5 : 1)) {
                bcase_t k =
                    base_case(4, d_ph[i], ly, CUDNN_DATA_FLOAT, CUDNN_BATCHNORM_PER_ACTIVATION);
                k.yoff = off, k.fillk = off & 1;
                if (off % 3 == 0)
                    k.alpha = 0.5, k.beta = 0.25;
                run_bn_case(&k);
                if (off < 8 && i == 0) {
                    k.dt = CUDNN_DATA_DOUBLE, k.yoff = off;
                    run_bn_case(&k);
                }
            }
    /* the in-place FLOAT per-activation kernels without saved or running statistics, with
     * factor 1 (running statistics not read) */
    for (int i = 0; i < 2; i++) {
        bcase_t k =
            base_case(4, d_ph[i], LY_NCHW, CUDNN_DATA_FLOAT, CUDNN_BATCHNORM_PER_ACTIVATION);
        k.save_null = 1, k.yoff = 3;
        run_bn_case(&k);
        k.save_null = 0, k.run_null = 1, k.fillk = 0;
        run_bn_case(&k);
        k.run_null = 0, k.factor = 1.0, k.fillk = 2;
        run_bn_case(&k);
    }
    /* per activation above the streaming-store threshold (4.7 MB outputs), FLOAT NCHW: rows
     * streamed in 32-byte and in 16-byte stores (outputs 0 and 4 floats past a line) */
    {
        const int d_big[4] = {8, 16, 96, 96};
        for (int off = 0; off <= 4; off += 4) {
            bcase_t k =
                base_case(4, d_big, LY_NCHW, CUDNN_DATA_FLOAT, CUDNN_BATCHNORM_PER_ACTIVATION);
            k.yoff = off, k.fillk = 1;
            run_bn_case(&k);
        }
    }
    /* per activation in NHWC order with C a multiple of 16 (the transposing kernels): a short
     * last block of positions (S = 35, 33), two channel chunks (C = 80), 8 images, gaps between
     * images, factor 1 (running statistics not read), no running / saved statistics, outputs
     * off a 64-byte boundary */
    const int d_tr[3][4] = {{3, 80, 5, 7}, {8, 16, 4, 4}, {2, 32, 3, 11}};
    for (int ly = LY_NHWC; ly <= LY_GAP_NHWC; ly += LY_GAP_NHWC - LY_NHWC)
        for (int i = 0; i < 3; i++) {
            bcase_t k = base_case(4, d_tr[i], ly, CUDNN_DATA_FLOAT, CUDNN_BATCHNORM_PER_ACTIVATION);
            k.fillk = i & 1;
            if (i == 2)
                k.alpha = 0.5, k.beta = 0.25;
            run_bn_case(&k);
            k.factor = 1.0, k.yoff = 1 + i;
            run_bn_case(&k);
            k.factor = 0.25, k.run_null = 1, k.save_null = 1, k.yoff = 0;
            run_bn_case(&k);
        }
    /* a large mean: the shifted one-pass variance stays accurate */
    const int d_mean[4] = {4, 6, 17, 19};
    for (int ly = 0; ly < 2; ly++)
        for (int m = 0; m < 2; m++)
            for (int di = 0; di < 2; di++) {
                bcase_t k = base_case(4, d_mean, ly, dtypes[di], modes[m]);
                k.fillk = 2;
                run_bn_case(&k);
            }
    /* the fused activations of the *Ex entries */
    const cudnnActivationMode_t acts[2] = {CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_ELU};
    for (int ly = 0; ly < 2; ly++)
        for (int m = 0; m < 2; m++)
            for (int ai = 0; ai < 2; ai++)
                for (int di = 0; di < 3; di += 2) {
                    bcase_t k = base_case(4, d_odd, ly, dtypes[di], modes[m]);
                    k.ops = CUDNN_BATCHNORM_OPS_BN_ACTIVATION, k.act = acts[ai];
                    run_bn_case(&k);
                    k.ops = CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
                    run_bn_case(&k);
                }
    /* threaded sizes, and the streaming stores (4 MiB outputs, beta = 0) */
    const int big[4] = {4, 40, 41, 43}, huge[4] = {2, 16, 130, 258};
    for (int ly = 0; ly < 2; ly++)
        for (int m = 0; m < 2; m++) {
            bcase_t k = base_case(4, big, ly, CUDNN_DATA_FLOAT, modes[m]);
            k.alpha = 0.5, k.beta = 0.25;
            run_bn_case(&k);
            k = base_case(4, huge, ly, CUDNN_DATA_FLOAT, modes[m]);
            run_bn_case(&k);
        }
    /* the spatial backward's line-aligned streaming stores (rbdx_f32_avx512): dx 1, 5 and 12
     * floats past a 64-byte boundary, integer and real fills, and x = 1000 + U(-1/2, 1/2) (the
     * float mean's low part); NHWC (the rows walk): 16 channels (packed rows run as one stream)
     * and 40 (rows of 240 lanes: vectors cross a row's end); NCHW (the plane walk's float
     * backward since 2026-12-06, packed runs of LMAX lanes): planes of 33 540 (runs of LMAX and
     * a tail) and 13 390 */
    const int huge40[4] = {2, 40, 130, 103}, lys[2] = {LY_NHWC, LY_NCHW};
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < 4; i++) {
            bcase_t k = base_case(4, i == 1 ? huge40 : huge, lys[l], CUDNN_DATA_FLOAT,
                                  CUDNN_BATCHNORM_SPATIAL);
            k.yoff = i == 0 ? 1 : i == 1 ? 5 : i == 2 ? 12 : 0;
            k.fillk = i == 2 ? 0 : i == 3 ? 2 : 1;
            run_bn_case(&k);
        }
    large_mean_case(0);
    large_mean_case(1);
    for (int t = 0; t < 3; t++) {
        printf("FLOAT %s (float arithmetic), worst err / bound:",
               t == 2   ? "spatial backward, spatial unit-stride (plane walk)"
               : t == 1 ? "spatial training / backward, C unit-stride"
                        : "per activation");
        for (int i = 0; i < 8 && worst[t][i].name != NULL; i++)
            printf(" %s %.3g", worst[t][i].name, worst[t][i].r);
        printf("\n");
    }
    const char *isa = getenv("FREEDNN_CPU_ISA");
    printf("test_cpu_bn_fast (%s): %d cases, %d failures\n", isa ? isa : "default path", cases,
           failures);
    printf("digest %016llx\n", (unsigned long long)digest);
    fflush(stdout);
    /* The ISA children repeat every check on the avx2 and generic paths (not under
     * AddressSanitizer: the normal build runs them) */
#ifdef __SANITIZE_ADDRESS__
    const int run_children = 0;
#else
    const int run_children = 1;
#endif
    if (!is_child && run_children) {
        if (!child("FREEDNN_CPU_ISA=avx2", digest)) {
            failures++;
            fprintf(stderr, "FAIL the checks with FREEDNN_CPU_ISA=avx2\n");
        }
        if (!child("FREEDNN_CPU_ISA=generic", digest)) {
            failures++;
            fprintf(stderr, "FAIL the checks with FREEDNN_CPU_ISA=generic\n");
        }
    }
    cudnnDestroy(h_ref);
    cudnnDestroy(h_cpu);
    return failures ? 1 : 0;
}
