/* SPDX-License-Identifier: MIT */
/*
 * test_lrn.c - cross-channel LRN and divisive normalization against an independent oracle.
 *
 * - descriptor defaults (5, 1e-4, 0.75, 2) and set/get round trip;
 * - hand-computed values: odd and even windows (cuDNN's lookBehind/lookAhead split), means
 *   subtraction, and the alpha / n^d scaling of 5-d divisive normalization;
 * - every dtype x rank x window size x blend against naive loops on canonical dense arrays
 *   (backward oracles are written as full Jacobian sums, not as the adjoint window);
 * - layouts NCHW, NHWC, padded, permuted and the cpu handle give identical bits; guards, holes,
 *   unchanged inputs; in-place divisive normalization (x == y, x == dx, dy == dx) equals
 *   out-of-place; means NULL equals means = 0;
 * - backward by central finite differences in double (LRN dx; divisive normalization dx and
 *   dMeans).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fd_tensor.h"
#include "fd_test.h"

/* ---- canonical <-> strided ---------------------------------------------------------------- */

enum { L_NCHW, L_NHWC, L_PAD, L_PERM, L_COUNT };
static const char *const lay_name[L_COUNT] = {"nchw", "nhwc", "padded", "permuted"};

/* Packed NCHW and NHWC, NCHW with a gap of 3 after every dim, dims reversed (N innermost). */
static fd_layout_t lay_make(int nd, const int *dim, int kind)
{
    static const int order[L_COUNT] = {FD_ORDER_NCHW, FD_ORDER_NHWC, FD_ORDER_NCHW,
                                       FD_ORDER_REVERSED};
    fd_layout_t l;
    fd_layout_ordered(&l, nd, dim, order[kind], 1, kind == L_PAD ? 3 : 0);
    return l;
}

/* ---- problem ------------------------------------------------------------------------------ */

typedef struct {
    cudnnHandle_t h;
    int divnorm; /* 0: cross-channel LRN, 1: divisive normalization */
    int nd, dim[5];
    cudnnDataType_t dt;
    unsigned n;
    double la, lb, lk;  /* LRN alpha, beta, k */
    double alpha, beta; /* blend */
    int layout;
    int null_means;
} prob_t;

static int64_t count_of(const prob_t *p)
{
    int64_t c = 1;
    for (int d = 0; d < p->nd; d++)
        c *= p->dim[d];
    return c;
}

/* ---- oracle on canonical arrays ------------------------------------------------------------ */

/* coordinates of canonical index i */
static void coords(const prob_t *p, int64_t i, int64_t *c)
{
    for (int d = p->nd - 1; d >= 0; d--) {
        c[d] = i % p->dim[d];
        i /= p->dim[d];
    }
}

/* 1 when element j lies in the normalisation window of element c. */
static int in_window(const prob_t *p, const int64_t *c, const int64_t *j)
{
    int back = (int)(p->n - 1) / 2, ahead = (int)p->n - 1 - back;
    if (c[0] != j[0])
        return 0;
    if (!p->divnorm) {
        for (int d = 2; d < p->nd; d++)
            if (c[d] != j[d])
                return 0;
        return j[1] >= c[1] - back && j[1] <= c[1] + ahead;
    }
    if (c[1] != j[1])
        return 0;
    for (int d = 2; d < p->nd; d++)
        if (j[d] < c[d] - back || j[d] > c[d] + ahead)
            return 0;
    return 1;
}

static double window_scale(const prob_t *p)
{
    return p->divnorm ? p->la / pow(p->n, p->nd - 2) : p->la / p->n;
}

/* t = x - means; s_c = k + scale * sum_{j in W(c)} t_j^2 */
static void oracle_s(const prob_t *p, const double *t, double *s)
{
    int64_t N = count_of(p), cc[5], jj[5];
    for (int64_t c = 0; c < N; c++) {
        coords(p, c, cc);
        double sum = 0.0;
        for (int64_t j = 0; j < N; j++) {
            coords(p, j, jj);
            if (in_window(p, cc, jj))
                sum += t[j] * t[j];
        }
        s[c] = p->lk + window_scale(p) * sum;
    }
}

static void oracle_fwd(const prob_t *p, const double *t, double *y)
{
    int64_t N = count_of(p);
    double *s = malloc(sizeof(double) * (size_t)N);
    oracle_s(p, t, s);
    for (int64_t c = 0; c < N; c++)
        y[c] = t[c] * pow(s[c], -p->lb);
    free(s);
}

/* g_i = sum_c dy_c dy_c/dt_i, with dy_c/dt_i = [c == i] s_c^-b - t_c b s_c^(-b-1) scale 2 t_i [i in
 * W(c)]; abs_g gets the sum of the absolute terms (for the tolerance). */
static void oracle_bwd(const prob_t *p, const double *t, const double *dy, double *g, double *abs_g)
{
    int64_t N = count_of(p), cc[5], ii[5];
    double *s = malloc(sizeof(double) * (size_t)N);
    oracle_s(p, t, s);
    for (int64_t i = 0; i < N; i++) {
        coords(p, i, ii);
        double acc = 0.0, aacc = 0.0;
        for (int64_t c = 0; c < N; c++) {
            coords(p, c, cc);
            double d1 = c == i ? pow(s[c], -p->lb) : 0.0, d2 = 0.0;
            if (in_window(p, cc, ii))
                d2 = t[c] * p->lb * pow(s[c], -p->lb - 1.0) * window_scale(p) * 2.0 * t[i];
            acc += dy[c] * (d1 - d2);
            aacc += fabs(dy[c] * d1) + fabs(dy[c] * d2);
        }
        g[i] = acc;
        abs_g[i] = aacc;
    }
    free(s);
}

/* ---- running the library on canonical arrays ---------------------------------------------- */

static cudnnLRNDescriptor_t make_lrn(const prob_t *p)
{
    cudnnLRNDescriptor_t d;
    cudnnCreateLRNDescriptor(&d);
    FD_EXPECT_STATUS(cudnnSetLRNDescriptor(d, p->n, p->la, p->lb, p->lk), CUDNN_STATUS_SUCCESS);
    return d;
}

/* Forward. x, means canonical (means NULL or p->null_means: passed as NULL); out_old blended
 * when beta != 0; in_place: y written over x. */
static cudnnStatus_t run_fwd(const prob_t *p, const double *x, const double *means,
                             const double *out_old, double *y, unsigned char *raw, int in_place)
{
    fd_layout_t l = lay_make(p->nd, p->dim, p->layout);
    cudnnTensorDescriptor_t d = fd_layout_desc(&l, p->dt);
    cudnnLRNDescriptor_t nd = make_lrn(p);
    fd_buf_t bx = fd_layout_alloc(&l, p->dt), by = fd_layout_alloc(&l, p->dt),
             bm = fd_layout_alloc(&l, p->dt);
    fd_buf_t t1 = fd_layout_alloc(&l, p->dt), t2 = fd_layout_alloc(&l, p->dt);
    fd_buf_poison(&bx), fd_buf_poison(&by), fd_buf_poison(&bm), fd_buf_poison(&t1),
        fd_buf_poison(&t2);
    fd_layout_scatter(&l, p->dt, bx.data, x);
    if (means != NULL)
        fd_layout_scatter(&l, p->dt, bm.data, means);
    fd_buf_t *out = in_place ? &bx : &by;
    if (out_old != NULL && !in_place)
        fd_layout_scatter(&l, p->dt, by.data, out_old);
    uint64_t hx = fd_buf_hash(&bx), hm = fd_buf_hash(&bm);
    fd_scalar_t a = fd_scalar(p->dt, p->alpha), b = fd_scalar(p->dt, p->beta);
    cudnnStatus_t st;
    if (p->divnorm)
        st = cudnnDivisiveNormalizationForward(
            p->h, nd, CUDNN_DIVNORM_PRECOMPUTED_MEANS, &a, d, bx.data,
            (means == NULL || p->null_means) ? NULL : bm.data, t1.data, t2.data, &b, d, out->data);
    else
        st = cudnnLRNCrossChannelForward(p->h, nd, CUDNN_LRN_CROSS_CHANNEL_DIM1, &a, d, bx.data, &b,
                                         d, out->data);
    FD_EXPECT(fd_buf_guards_ok(&bx) && fd_buf_guards_ok(&by) && fd_buf_guards_ok(&bm) &&
                  fd_buf_guards_ok(&t1) && fd_buf_guards_ok(&t2),
              "fwd guards (%s)", lay_name[p->layout]);
    if (!in_place)
        FD_EXPECT(fd_buf_hash(&bx) == hx, "fwd modified x");
    FD_EXPECT(fd_buf_hash(&bm) == hm, "fwd modified means");
    FD_EXPECT(fd_layout_holes_poisoned(&l, p->dt, out->data), "fwd wrote a hole of y (%s)",
              lay_name[p->layout]);
    fd_layout_gather(&l, p->dt, out->data, y);
    if (raw != NULL)
        fd_layout_bits(&l, p->dt, out->data, raw);
    fd_buf_free(&bx), fd_buf_free(&by), fd_buf_free(&bm), fd_buf_free(&t1), fd_buf_free(&t2);
    cudnnDestroyTensorDescriptor(d);
    cudnnDestroyLRNDescriptor(nd);
    return st;
}

/* Backward. LRN: needs y (forward output). Divisive: means, and dMeans (out2, may be NULL).
 * in_place: 1 dx over dy, 2 dx over x (divisive only). */
static cudnnStatus_t run_bwd(const prob_t *p, const double *x, const double *y, const double *means,
                             const double *dy, const double *old, double *dx, double *dm,
                             unsigned char *raw, int in_place)
{
    fd_layout_t l = lay_make(p->nd, p->dim, p->layout);
    cudnnTensorDescriptor_t d = fd_layout_desc(&l, p->dt);
    cudnnLRNDescriptor_t nd = make_lrn(p);
    fd_buf_t bx = fd_layout_alloc(&l, p->dt), by = fd_layout_alloc(&l, p->dt),
             bm = fd_layout_alloc(&l, p->dt);
    fd_buf_t bdy = fd_layout_alloc(&l, p->dt), bdx = fd_layout_alloc(&l, p->dt),
             bdm = fd_layout_alloc(&l, p->dt);
    fd_buf_t t1 = fd_layout_alloc(&l, p->dt), t2 = fd_layout_alloc(&l, p->dt);
    fd_buf_t *all[8] = {&bx, &by, &bm, &bdy, &bdx, &bdm, &t1, &t2};
    for (int i = 0; i < 8; i++)
        fd_buf_poison(all[i]);
    fd_layout_scatter(&l, p->dt, bx.data, x);
    if (y != NULL)
        fd_layout_scatter(&l, p->dt, by.data, y);
    if (means != NULL)
        fd_layout_scatter(&l, p->dt, bm.data, means);
    fd_layout_scatter(&l, p->dt, bdy.data, dy);
    fd_buf_t *out = in_place == 1 ? &bdy : in_place == 2 ? &bx : &bdx;
    if (old != NULL && !in_place) {
        fd_layout_scatter(&l, p->dt, bdx.data, old);
        fd_layout_scatter(&l, p->dt, bdm.data, old);
    }
    uint64_t hx = fd_buf_hash(&bx), hy = fd_buf_hash(&by), hm = fd_buf_hash(&bm),
             hdy = fd_buf_hash(&bdy);
    fd_scalar_t a = fd_scalar(p->dt, p->alpha), b = fd_scalar(p->dt, p->beta);
    cudnnStatus_t st;
    if (p->divnorm)
        st = cudnnDivisiveNormalizationBackward(
            p->h, nd, CUDNN_DIVNORM_PRECOMPUTED_MEANS, &a, d, bx.data,
            (means == NULL || p->null_means) ? NULL : bm.data, bdy.data, t1.data, t2.data, &b, d,
            out->data, dm != NULL ? bdm.data : NULL);
    else
        st = cudnnLRNCrossChannelBackward(p->h, nd, CUDNN_LRN_CROSS_CHANNEL_DIM1, &a, d, by.data, d,
                                          bdy.data, d, bx.data, &b, d, out->data);
    int guards = 1;
    for (int i = 0; i < 8; i++)
        guards &= fd_buf_guards_ok(all[i]);
    FD_EXPECT(guards, "bwd guards (%s)", lay_name[p->layout]);
    FD_EXPECT((in_place == 2 || fd_buf_hash(&bx) == hx) && fd_buf_hash(&by) == hy &&
                  fd_buf_hash(&bm) == hm && (in_place == 1 || fd_buf_hash(&bdy) == hdy),
              "bwd modified an input");
    FD_EXPECT(fd_layout_holes_poisoned(&l, p->dt, out->data), "bwd wrote a hole of dx (%s)",
              lay_name[p->layout]);
    fd_layout_gather(&l, p->dt, out->data, dx);
    if (dm != NULL) {
        FD_EXPECT(fd_layout_holes_poisoned(&l, p->dt, bdm.data), "bwd wrote a hole of dMeans");
        fd_layout_gather(&l, p->dt, bdm.data, dm);
    }
    if (raw != NULL)
        fd_layout_bits(&l, p->dt, out->data, raw);
    for (int i = 0; i < 8; i++)
        fd_buf_free(all[i]);
    cudnnDestroyTensorDescriptor(d);
    cudnnDestroyLRNDescriptor(nd);
    return st;
}

/* ---- descriptor and hand-computed cases ---------------------------------------------------- */

static void test_descriptor(void)
{
    cudnnLRNDescriptor_t d;
    FD_EXPECT_STATUS(cudnnCreateLRNDescriptor(&d), CUDNN_STATUS_SUCCESS);
    unsigned n = 0;
    double a = 0, b = 0, k = 0;
    FD_EXPECT_STATUS(cudnnGetLRNDescriptor(d, &n, &a, &b, &k), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(n == 5 && a == 1e-4 && b == 0.75 && k == 2.0, "defaults %u %g %g %g", n, a, b, k);
    FD_EXPECT_STATUS(cudnnSetLRNDescriptor(d, 16, -3.5, 0.01, 1e-5), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnGetLRNDescriptor(d, &n, &a, &b, &k), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(n == 16 && a == -3.5 && b == 0.01 && k == 1e-5, "round trip %u %g %g %g", n, a, b, k);
    FD_EXPECT_STATUS(cudnnGetLRNDescriptor(d, NULL, NULL, &b, NULL), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnDestroyLRNDescriptor(d), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnDestroyLRNDescriptor(NULL), CUDNN_STATUS_SUCCESS);
}

static void expect_vals(const char *what, const double *got, const double *want, int n, double tol)
{
    for (int i = 0; i < n; i++)
        FD_EXPECT(fabs(got[i] - want[i]) <= tol * fabs(want[i]) + 1e-300,
                  "%s[%d] = %.17g, want %.17g", what, i, got[i], want[i]);
}

static void test_hand(cudnnHandle_t h)
{
    double y[3];
    /* x = [1, 2, 3] over C; n = 3 (window c-1..c+1), alpha / n = 1, beta = 1, k = 1 */
    prob_t p = {.h = h,
                .nd = 4,
                .dim = {1, 3, 1, 1},
                .dt = CUDNN_DATA_DOUBLE,
                .n = 3,
                .la = 3,
                .lb = 1,
                .lk = 1,
                .alpha = 1};
    double x[3] = {1, 2, 3};
    FD_EXPECT_STATUS(run_fwd(&p, x, NULL, NULL, y, NULL, 0), CUDNN_STATUS_SUCCESS);
    expect_vals("lrn n=3", y, (double[]){1.0 / 6, 2.0 / 15, 3.0 / 14}, 3, 1e-15);
    /* n = 2: lookBehind 0, lookAhead 1 (window c..c+1); alpha / n = 1 */
    p.n = 2, p.la = 2;
    FD_EXPECT_STATUS(run_fwd(&p, x, NULL, NULL, y, NULL, 0), CUDNN_STATUS_SUCCESS);
    expect_vals("lrn n=2", y, (double[]){1.0 / 6, 2.0 / 14, 3.0 / 10}, 3, 1e-15);
    /* n = 4: lookBehind 1, lookAhead 2 (c-1..c+2); alpha / n = 1, beta = 0.5: y = x / sqrt(s) */
    p.n = 4, p.la = 4, p.lb = 0.5;
    FD_EXPECT_STATUS(run_fwd(&p, x, NULL, NULL, y, NULL, 0), CUDNN_STATUS_SUCCESS);
    expect_vals("lrn n=4", y, (double[]){1 / sqrt(15.0), 2 / sqrt(15.0), 3 / sqrt(14.0)}, 3, 1e-15);
    /* divisive, 1x1x1x3 (W = 3), n = 3, alpha / n^2 = 1, beta = 1, k = 1 */
    p = (prob_t){.h = h,
                 .divnorm = 1,
                 .nd = 4,
                 .dim = {1, 1, 1, 3},
                 .dt = CUDNN_DATA_DOUBLE,
                 .n = 3,
                 .la = 9,
                 .lb = 1,
                 .lk = 1,
                 .alpha = 1};
    FD_EXPECT_STATUS(run_fwd(&p, x, NULL, NULL, y, NULL, 0), CUDNN_STATUS_SUCCESS);
    expect_vals("divnorm means NULL", y, (double[]){1.0 / 6, 2.0 / 15, 3.0 / 14}, 3, 1e-15);
    /* means = 1: t = [0, 1, 2] -> s = [2, 6, 6] -> y = [0, 1/6, 1/3] */
    double m[3] = {1, 1, 1};
    FD_EXPECT_STATUS(run_fwd(&p, x, m, NULL, y, NULL, 0), CUDNN_STATUS_SUCCESS);
    expect_vals("divnorm means 1", y, (double[]){0, 1.0 / 6, 1.0 / 3}, 3, 1e-15);
    /* 5-d: one element x = 2, n = 2, alpha = 8: alpha / n^3 = 1 -> s = 5, y = 0.4 */
    p = (prob_t){.h = h,
                 .divnorm = 1,
                 .nd = 5,
                 .dim = {1, 1, 1, 1, 1},
                 .dt = CUDNN_DATA_DOUBLE,
                 .n = 2,
                 .la = 8,
                 .lb = 1,
                 .lk = 1,
                 .alpha = 1};
    double x1 = 2;
    FD_EXPECT_STATUS(run_fwd(&p, &x1, NULL, NULL, y, NULL, 0), CUDNN_STATUS_SUCCESS);
    expect_vals("divnorm 5-d alpha/n^3", y, (double[]){0.4}, 1, 1e-15);
    /* 2-d spatial window of a 1x1x2x2 plane, n = 2 (window s..s+1 per dim), alpha / 4 = 1 */
    p = (prob_t){.h = h,
                 .divnorm = 1,
                 .nd = 4,
                 .dim = {1, 1, 2, 2},
                 .dt = CUDNN_DATA_DOUBLE,
                 .n = 2,
                 .la = 4,
                 .lb = 1,
                 .lk = 1,
                 .alpha = 1};
    double x4[4] = {1, 2, 3, 4}; /* s = [1+30, 1+4+16, 1+9+16, 1+16] */
    double y4[4];
    FD_EXPECT_STATUS(run_fwd(&p, x4, NULL, NULL, y4, NULL, 0), CUDNN_STATUS_SUCCESS);
    expect_vals("divnorm 2x2 window", y4, (double[]){1.0 / 31, 2.0 / 21, 3.0 / 26, 4.0 / 17}, 4,
                1e-15);
}

/* ---- sweep --------------------------------------------------------------------------------- */

static const cudnnDataType_t dtypes[4] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                          CUDNN_DATA_BFLOAT16};

static double tol_of(cudnnDataType_t dt, int64_t k, double abs_sum, double want)
{
    /* the reference computes in double and rounds once; pow() adds a few ulps of double */
    return fd_tolerance(dt, CUDNN_DATA_DOUBLE, k, abs_sum, want) + 1e-13 * (abs_sum + fabs(want));
}

/* One case: forward and backward against the oracle; the same bits from other layouts (all,
 * or one besides the case's own) and from the cpu handle; in-place divisive normalization. */
static void one_case(prob_t p, cudnnHandle_t hcpu, fd_rng_t *rng, int all_layouts)
{
    const int dn = p.divnorm;
    int64_t n = count_of(&p);
    size_t es = fd_test_dtype_size(p.dt);
    double *buf = malloc(sizeof(double) * (size_t)n * 12);
    double *x = buf, *m = x + n, *t = m + n, *old = t + n, *y = old + n, *want = y + n,
           *dy = want + n;
    double *dx = dy + n, *dm = dx + n, *g = dm + n, *ag = g + n, *tmp = ag + n;
    unsigned char *raw0 = malloc((size_t)n * es * 2), *raw1 = raw0 + (size_t)n * es;
    for (int64_t i = 0; i < n; i++) {
        x[i] = fd_test_round(p.dt, 6.0 * fd_rng_uniform(rng) - 3.0);
        m[i] = dn && !p.null_means ? fd_test_round(p.dt, 2.0 * fd_rng_uniform(rng) - 1.0) : 0.0;
        t[i] = x[i] - m[i];
        old[i] = fd_test_round(p.dt, 2.0 * fd_rng_uniform(rng) - 1.0);
        dy[i] = fd_test_round(p.dt, 2.0 * fd_rng_uniform(rng) - 1.0);
    }
    const double *mp = dn ? m : NULL, *oldp = p.beta != 0 ? old : NULL;
    /* forward */
    FD_EXPECT_STATUS(run_fwd(&p, x, mp, oldp, y, raw0, 0), CUDNN_STATUS_SUCCESS);
    oracle_fwd(&p, t, want);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double w = p.alpha * want[i] + (oldp ? p.beta * old[i] : 0.0);
        double as = fabs(p.alpha * want[i]) + fabs(p.beta * old[i]);
        if (!(fabs(y[i] - w) <= tol_of(p.dt, p.n, as, w)) && bad++ < 3)
            FD_EXPECT(0, "%s fwd %s n=%u nd=%d elem %lld: got %.17g want %.17g",
                      dn ? "divnorm" : "lrn", fd_test_dtype_short(p.dt), p.n, p.nd, (long long)i,
                      y[i], w);
    }
    FD_EXPECT(bad == 0, "%s fwd %s n=%u: %d mismatches", dn ? "divnorm" : "lrn",
              fd_test_dtype_short(p.dt), p.n, bad);
    for (int lay = 0; lay <= L_COUNT; lay++) {
        if (lay == p.layout || (!all_layouts && lay != L_COUNT && lay != (p.layout + 1) % L_COUNT))
            continue;
        prob_t p2 = p;
        if (lay == L_COUNT)
            p2.h = hcpu;
        else
            p2.layout = lay;
        FD_EXPECT_STATUS(run_fwd(&p2, x, mp, oldp, tmp, raw1, 0), CUDNN_STATUS_SUCCESS);
        /* cpu cross-channel LRN of FLOAT computes in float (src/cpu/lrn_cpu.c, product decision
         * 2026-11-30): held to its bound by tests/impl/test_cpu_lrn_fast.c, not to ref's bits */
        if (lay == L_COUNT && !dn && p.dt == CUDNN_DATA_FLOAT)
            continue;
        FD_EXPECT(memcmp(raw0, raw1, (size_t)n * es) == 0, "%s fwd %s: %s differs",
                  dn ? "divnorm" : "lrn", fd_test_dtype_short(p.dt),
                  lay == L_COUNT ? "cpu" : lay_name[lay]);
    }
    if (dn && p.beta == 0) {
        FD_EXPECT_STATUS(run_fwd(&p, x, mp, NULL, tmp, raw1, 1), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(memcmp(raw0, raw1, (size_t)n * es) == 0, "divnorm fwd in-place differs");
    }
    /* backward; LRN takes y = the library's forward output with alpha 1, beta 0 */
    prob_t pf = p;
    pf.alpha = 1, pf.beta = 0;
    double *yf = want; /* reuse */
    if (!dn) {
        FD_EXPECT_STATUS(run_fwd(&pf, x, NULL, NULL, yf, NULL, 0), CUDNN_STATUS_SUCCESS);
    }
    FD_EXPECT_STATUS(run_bwd(&p, x, dn ? NULL : yf, mp, dy, oldp, dx, dn ? dm : NULL, raw0, 0),
                     CUDNN_STATUS_SUCCESS);
    oracle_bwd(&p, t, dy, g, ag);
    bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double w = p.alpha * g[i] + (oldp ? p.beta * old[i] : 0.0);
        double as = fabs(p.alpha) * ag[i] + fabs(p.beta * old[i]);
        /* LRN: y enters rounded to dt */
        double tol = tol_of(p.dt, p.n, as, w) + (dn ? 0.0 : 4.0 * fd_unit_roundoff(p.dt) * as);
        if (!(fabs(dx[i] - w) <= tol) && bad++ < 3)
            FD_EXPECT(0, "%s bwd %s n=%u nd=%d elem %lld: got %.17g want %.17g (tol %g)",
                      dn ? "divnorm" : "lrn", fd_test_dtype_short(p.dt), p.n, p.nd, (long long)i,
                      dx[i], w, tol);
        if (dn) {
            double wm = -p.alpha * g[i] + (oldp ? p.beta * old[i] : 0.0);
            tol = tol_of(p.dt, p.n, as, wm);
            if (!(fabs(dm[i] - wm) <= tol) && bad++ < 3)
                FD_EXPECT(0, "divnorm dMeans %s elem %lld: got %.17g want %.17g",
                          fd_test_dtype_short(p.dt), (long long)i, dm[i], wm);
        }
    }
    FD_EXPECT(bad == 0, "%s bwd %s n=%u: %d mismatches", dn ? "divnorm" : "lrn",
              fd_test_dtype_short(p.dt), p.n, bad);
    for (int lay = 0; lay <= L_COUNT; lay++) {
        if (lay == p.layout || (!all_layouts && lay != L_COUNT && lay != (p.layout + 1) % L_COUNT))
            continue;
        prob_t p2 = p;
        if (lay == L_COUNT)
            p2.h = hcpu;
        else
            p2.layout = lay;
        FD_EXPECT_STATUS(run_bwd(&p2, x, dn ? NULL : yf, mp, dy, oldp, tmp, dn ? g : NULL, raw1, 0),
                         CUDNN_STATUS_SUCCESS);
        if (lay == L_COUNT && !dn && p.dt == CUDNN_DATA_FLOAT) /* as forward */
            continue;
        FD_EXPECT(memcmp(raw0, raw1, (size_t)n * es) == 0, "%s bwd %s: %s differs",
                  dn ? "divnorm" : "lrn", fd_test_dtype_short(p.dt),
                  lay == L_COUNT ? "cpu" : lay_name[lay]);
    }
    if (dn && p.beta == 0)
        for (int ip = 1; ip <= 2; ip++) {
            FD_EXPECT_STATUS(run_bwd(&p, x, NULL, mp, dy, NULL, tmp, NULL, raw1, ip),
                             CUDNN_STATUS_SUCCESS);
            FD_EXPECT(memcmp(raw0, raw1, (size_t)n * es) == 0, "divnorm bwd in-place (%s) differs",
                      ip == 1 ? "dx == dy" : "dx == x");
        }
    free(buf);
    free(raw0);
}

static const double blends[][2] = {{1, 0}, {0.5, 0}, {-2, 0.25}, {1, 1}};

static void test_sweep(cudnnHandle_t href, cudnnHandle_t hcpu, fd_rng_t *rng)
{
    static const int shapes[][6] = {
        {4, 2, 7, 3, 2, 0}, {4, 1, 3, 4, 5, 0}, {5, 1, 4, 2, 3, 2}, {4, 2, 1, 1, 3, 0}};
    static const unsigned ns[] = {1, 2, 3, 5, 16};
    int cases = 0;
    for (int dn = 0; dn < 2; dn++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (int ti = 0; ti < 4; ti++)
                for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
                    int variant = (int)(si + (size_t)ti + ni);
                    prob_t p = {.h = href,
                                .divnorm = dn,
                                .nd = shapes[si][0],
                                .dt = dtypes[ti],
                                .n = ns[ni],
                                .la = variant % 2 ? 1e-2 : 2.0,
                                .lb = variant % 3 ? 0.75 : 1.5,
                                .lk = variant % 2 ? 2.0 : 1.0,
                                .alpha = blends[variant % 4][0],
                                .beta = blends[variant % 4][1],
                                .null_means = dn && variant % 5 == 0};
                    if (dn && ns[ni] == 16 && p.nd == 5)
                        continue; /* the backward oracle is O(window^2); this one adds nothing */
                    memcpy(p.dim, &shapes[si][1], sizeof(int) * 5);
                    one_case(p, hcpu, rng, 1);
                    cases++;
                }
    printf("lrn/divnorm fixed sweep: %d cases\n", cases);
}

/* Random shapes, window, parameters, layout and blend; FD_TEST_SCALE multiplies the count. */
static void test_random(cudnnHandle_t href, cudnnHandle_t hcpu, fd_rng_t *rng)
{
    static const double las[] = {1e-4, 0.1, 1.0, 3.0}, lbs[] = {0.01, 0.5, 0.75, 2.0},
                        lks[] = {1e-5, 1.0, 2.0};
    int per = (int)(60 * fd_test_scale());
    for (int dn = 0; dn < 2; dn++)
        for (int ti = 0; ti < 4; ti++)
            for (int c = 0; c < per; c++) {
                prob_t p = {.h = href,
                            .divnorm = dn,
                            .dt = dtypes[ti],
                            .nd = fd_rng_int(rng, 0, 3) == 0 ? 5 : 4};
                p.dim[0] = fd_rng_int(rng, 1, 2);
                p.dim[1] = fd_rng_int(rng, 1, dn ? 3 : 17);
                for (int d = 2; d < p.nd; d++)
                    p.dim[d] = fd_rng_int(rng, 1, p.nd == 5 ? 4 : 7);
                p.n = (unsigned)fd_rng_int(rng, 1, dn && p.nd == 5 ? 5 : 16);
                p.la = las[fd_rng_int(rng, 0, 3)];
                p.lb = lbs[fd_rng_int(rng, 0, 3)];
                p.lk = lks[fd_rng_int(rng, 0, 2)];
                if (p.lk < 1e-3 && p.lb > 1.0)
                    p.lk = 0.5; /* keeps s^-beta of an all-zero window finite in half precision */
                int abk = fd_rng_int(rng, 0, 3);
                p.alpha = blends[abk][0];
                p.beta = blends[abk][1];
                p.layout = fd_rng_int(rng, 0, L_COUNT - 1);
                p.null_means = dn && fd_rng_int(rng, 0, 3) == 0;
                one_case(p, hcpu, rng, 0);
            }
    printf("lrn/divnorm random sweep: %d cases\n", 8 * per);
}

/* means NULL and means = 0 give the same bits */
static void test_null_means(cudnnHandle_t h, fd_rng_t *rng)
{
    prob_t p = {.h = h,
                .divnorm = 1,
                .nd = 4,
                .dim = {2, 2, 3, 4},
                .dt = CUDNN_DATA_FLOAT,
                .n = 3,
                .la = 1,
                .lb = 0.75,
                .lk = 2,
                .alpha = 1};
    enum { N = 48 };
    double x[N], z[N] = {0}, dy[N], y[N];
    unsigned char r0[N * 4], r1[N * 4];
    for (int i = 0; i < N; i++)
        x[i] = fd_test_round(p.dt, 4 * fd_rng_uniform(rng) - 2),
        dy[i] = fd_test_round(p.dt, fd_rng_uniform(rng));
    run_fwd(&p, x, z, NULL, y, r0, 0);
    p.null_means = 1;
    run_fwd(&p, x, z, NULL, y, r1, 0);
    FD_EXPECT(memcmp(r0, r1, sizeof r0) == 0, "divnorm fwd: means NULL differs from means = 0");
    run_bwd(&p, x, NULL, z, dy, NULL, y, NULL, r0, 0);
    p.null_means = 0;
    run_bwd(&p, x, NULL, z, dy, NULL, y, NULL, r1, 0);
    FD_EXPECT(memcmp(r0, r1, sizeof r0) == 0, "divnorm bwd: means NULL differs from means = 0");
}

/* ---- finite differences (double) ----------------------------------------------------------- */

static void test_gradcheck(cudnnHandle_t h, fd_rng_t *rng)
{
    static const int shapes[][6] = {{4, 2, 5, 2, 2, 0}, {5, 1, 2, 2, 3, 2}};
    for (int dn = 0; dn < 2; dn++)
        for (int si = 0; si < 2; si++)
            for (unsigned nwin = 2; nwin <= 3; nwin++) {
                prob_t p = {.h = h,
                            .divnorm = dn,
                            .nd = shapes[si][0],
                            .dt = CUDNN_DATA_DOUBLE,
                            .n = nwin,
                            .la = 0.8,
                            .lb = 0.75,
                            .lk = 1.5,
                            .alpha = 1};
                memcpy(p.dim, &shapes[si][1], sizeof(int) * 5);
                int64_t n = count_of(&p);
                double *b = malloc(sizeof(double) * (size_t)n * 9);
                double *x = b, *m = x + n, *w = m + n, *y = w + n, *dx = y + n, *dm = dx + n,
                       *xp = dm + n, *mp = xp + n, *yp = mp + n;
                for (int64_t i = 0; i < n; i++) {
                    x[i] = 3 * fd_rng_uniform(rng) - 1.5;
                    m[i] = dn ? fd_rng_uniform(rng) - 0.5 : 0.0;
                    w[i] = 2 * fd_rng_uniform(rng) - 1;
                }
                run_fwd(&p, x, dn ? m : NULL, NULL, y, NULL, 0);
                FD_EXPECT_STATUS(
                    run_bwd(&p, x, y, dn ? m : NULL, w, NULL, dx, dn ? dm : NULL, NULL, 0),
                    CUDNN_STATUS_SUCCESS);
                double worst = 0.0, worst_m = 0.0;
                for (int wrt = 0; wrt < (dn ? 2 : 1); wrt++)
                    for (int64_t i = 0; i < n; i++) {
                        const double hs = 1e-5;
                        double l[2];
                        for (int s = 0; s < 2; s++) {
                            memcpy(xp, x, sizeof(double) * (size_t)n);
                            memcpy(mp, m, sizeof(double) * (size_t)n);
                            (wrt ? mp : xp)[i] += s ? -hs : hs;
                            run_fwd(&p, xp, dn ? mp : NULL, NULL, yp, NULL, 0);
                            l[s] = 0;
                            for (int64_t j = 0; j < n; j++)
                                l[s] += w[j] * yp[j];
                        }
                        double num = (l[0] - l[1]) / (2 * hs);
                        if (wrt)
                            worst_m = fmax(worst_m, fabs(num - dm[i]));
                        else
                            worst = fmax(worst, fabs(num - dx[i]));
                    }
                FD_EXPECT(worst < 1e-8 && worst_m < 1e-8,
                          "%s gradcheck nd=%d n=%u: dx err %g, dMeans err %g",
                          dn ? "divnorm" : "lrn", p.nd, nwin, worst, worst_m);
                free(b);
            }
}

int main(void)
{
    cudnnHandle_t href, hcpu;
    FD_EXPECT_STATUS(freednnCreateWithBackend(&href, FREEDNN_BACKEND_REF), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(freednnCreateWithBackend(&hcpu, FREEDNN_BACKEND_CPU), CUDNN_STATUS_SUCCESS);
    fd_rng_t rng;
    fd_rng_seed(&rng, fd_test_sweep_seed(0x14a2f00dull));
    test_descriptor();
    test_hand(href);
    test_null_means(href, &rng);
    test_sweep(href, hcpu, &rng);
    test_random(href, hcpu, &rng);
    test_gradcheck(href, &rng);
    cudnnDestroy(href);
    cudnnDestroy(hcpu);
    return fd_test_finish();
}
