/* SPDX-License-Identifier: MIT */
/*
 * test_ctc.c - CTC loss (cudnnCTCLoss, cudnnCTCLoss_v8) against independent oracles.
 *
 * Oracles, sharing nothing with src/ref (which runs the extended-label alpha/beta recursions in
 * log space):
 *   - brute force: every one of the A^T alignment paths (T <= 5, A <= 3) is collapsed (merge
 *     repeats, drop blanks) and compared with the label; P sums the products of the matching
 *     paths, and the gradient with respect to the pre-softmax activations is written from its
 *     definition, y[t, k] - (sum of the matching paths with pi_t = k) / P;
 *   - a collapse automaton in probability space (state: labels emitted so far, last symbol a
 *     blank or not) for the costs of cases too long to enumerate; it is itself checked against
 *     the brute force.
 * Checked: hand cases with the numbers written here; a random sweep (normalisation NONE and
 * SOFTMAX, both gradient modes, both algorithms, f64/f32/f16/bf16, four probs/gradients layouts,
 * repeated labels, empty labels, input lengths below T, impossible samples) through cudnnCTCLoss
 * and cudnnCTCLoss_v8 on the ref and cpu backends with identical bits required; costs only
 * (gradients NULL); exact workspace (guarded, poisoned) and one byte short (BAD_PARAM, nothing
 * written); unchanged inputs; gradients by central finite differences in double in both modes;
 * longer sequences against the automaton; determinism.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_test.h"

#define OK(expr) FD_EXPECT_STATUS((expr), CUDNN_STATUS_SUCCESS)
#define MAXN 4
#define MAXL 16

static cudnnHandle_t handles[2];
static const cudnnDataType_t all_dt[4] = {CUDNN_DATA_DOUBLE, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF,
                                          CUDNN_DATA_BFLOAT16};

/* One problem, canonical: in[t][n][k] (activations for SOFTMAX, probabilities for NONE). */
typedef struct {
    cudnnDataType_t dt;
    int t, n, a;
    int softmax, skip_oob, algo;
    int lab[MAXN][MAXL], ll[MAXN], il[MAXN];
    double *in; /* t * n * a, already rounded to dt */
} ctc_case_t;

static double *dalloc(int64_t n)
{
    return calloc((size_t)n, sizeof(double));
}

static int64_t cidx(const ctc_case_t *c, int t, int n, int k)
{
    return ((int64_t)t * c->n + n) * c->a + k;
}

/* y[t][k] of sample n, from the rounded inputs. */
static void probs_of(const ctc_case_t *c, int n, double *y /* t * a */)
{
    for (int t = 0; t < c->t; t++) {
        double *row = y + (int64_t)t * c->a;
        for (int k = 0; k < c->a; k++)
            row[k] = c->in[cidx(c, t, n, k)];
        if (!c->softmax)
            continue;
        double m = row[0], s = 0;
        for (int k = 1; k < c->a; k++)
            if (row[k] > m)
                m = row[k];
        for (int k = 0; k < c->a; k++)
            s += exp(row[k] - m);
        for (int k = 0; k < c->a; k++)
            row[k] = exp(row[k] - m) / s;
    }
}

/* ---- oracle 1: brute force --------------------------------------------------------------------
 */

/* Returns P; fills g (t * a, only t < il) with sum of the matching paths having pi_t = k. */
static double brute_force(const ctc_case_t *c, int n, const double *y, double *g)
{
    int tn = c->il[n], a = c->a;
    int64_t paths = 1;
    for (int t = 0; t < tn; t++)
        paths *= a;
    for (int64_t i = 0; i < (int64_t)tn * a; i++)
        g[i] = 0;
    double p_total = 0;
    for (int64_t code = 0; code < paths; code++) {
        int pi[8], out[8], len = 0, prev = -1;
        int64_t rest = code;
        double prob = 1;
        for (int t = 0; t < tn; t++) {
            pi[t] = (int)(rest % a), rest /= a;
            prob *= y[(int64_t)t * a + pi[t]];
            if (pi[t] != 0 && pi[t] != prev)
                out[len++] = pi[t];
            prev = pi[t];
        }
        if (len != c->ll[n] || (len && memcmp(out, c->lab[n], sizeof(int) * len) != 0))
            continue;
        p_total += prob;
        for (int t = 0; t < tn; t++)
            g[(int64_t)t * a + pi[t]] += prob;
    }
    return p_total;
}

/* ---- oracle 2: collapse automaton -------------------------------------------------------------
 */

/* State (j, b): j labels emitted, b = 1 when the last symbol was the non-blank l[j - 1]. */
static double automaton(const ctc_case_t *c, int n, const double *y)
{
    int L = c->ll[n];
    const int *l = c->lab[n];
    double cur[2 * (MAXL + 1)], nxt[2 * (MAXL + 1)];
    for (int i = 0; i < 2 * (L + 1); i++)
        cur[i] = 0;
    cur[0] = 1; /* nothing emitted, "last" counts as a blank */
    for (int t = 0; t < c->il[n]; t++) {
        const double *yt = y + (int64_t)t * c->a;
        for (int i = 0; i < 2 * (L + 1); i++)
            nxt[i] = 0;
        for (int j = 0; j <= L; j++)
            for (int b = 0; b < 2; b++) {
                double p = cur[2 * j + b];
                if (p == 0)
                    continue;
                nxt[2 * j] += p * yt[0]; /* a blank */
                if (b)                   /* repeat of l[j-1]: merged */
                    nxt[2 * j + 1] += p * yt[l[j - 1]];
                if (j < L && !(b && l[j] == l[j - 1])) /* the next label */
                    nxt[2 * (j + 1) + 1] += p * yt[l[j]];
            }
        memcpy(cur, nxt, sizeof(double) * 2 * (L + 1));
    }
    return cur[2 * L] + cur[2 * L + 1];
}

/* ---- the library --------------------------------------------------------------------------------
 */

enum { LAY_PACKED, LAY_PADDED, LAY_BATCH_MAJOR, LAY_ALPHA_OUTER, LAY_COUNT };
static const char *const lay_name[LAY_COUNT] = {"packed", "padded", "batch-major",
                                                "alphabet-outer"};

typedef struct {
    int dim[3], stride[3];
    int64_t extent;
    fd_buf_t buf;
    cudnnTensorDescriptor_t desc;
} t3_t;

static void t3_make(t3_t *x, cudnnDataType_t dt, int t, int n, int a, int lay)
{
    memset(x, 0, sizeof *x);
    x->dim[0] = t, x->dim[1] = n, x->dim[2] = a;
    switch (lay) {
    case LAY_PADDED:
        x->stride[2] = 1, x->stride[1] = a + 2, x->stride[0] = n * (a + 2) + 3;
        break;
    case LAY_BATCH_MAJOR:
        x->stride[2] = 1, x->stride[0] = a, x->stride[1] = t * a;
        break;
    case LAY_ALPHA_OUTER:
        x->stride[0] = 1, x->stride[1] = t, x->stride[2] = t * n;
        break;
    default:
        x->stride[2] = 1, x->stride[1] = a, x->stride[0] = n * a;
    }
    x->extent = 1;
    for (int i = 0; i < 3; i++)
        x->extent += (int64_t)(x->dim[i] - 1) * x->stride[i];
    x->buf = fd_buf_alloc((size_t)x->extent * fd_test_dtype_size(dt));
    OK(cudnnCreateTensorDescriptor(&x->desc));
    OK(cudnnSetTensorNdDescriptor(x->desc, dt, 3, x->dim, x->stride));
}

static void t3_free(t3_t *x)
{
    fd_buf_free(&x->buf);
    cudnnDestroyTensorDescriptor(x->desc);
}

static int64_t t3_off(const t3_t *x, int t, int n, int k)
{
    return (int64_t)t * x->stride[0] + (int64_t)n * x->stride[1] + (int64_t)k * x->stride[2];
}

/* Results of one library run, canonical. */
typedef struct {
    double costs[MAXN];
    double *grads; /* t * n * a */
    cudnnStatus_t status;
} run_t;

typedef struct {
    int api_v8;    /* cudnnCTCLoss_v8 instead of cudnnCTCLoss */
    int with_grad; /* pass gradients */
    int lay_p, lay_g;
    int handle;
    long ws_delta;   /* workspace bytes relative to the query's answer */
    double grad_old; /* value the gradient buffer holds before the call (NaN: poisoned) */
} how_t;

static cudnnCTCLossDescriptor_t desc_for(const ctc_case_t *c, int max_label)
{
    cudnnCTCLossDescriptor_t d;
    OK(cudnnCreateCTCLossDescriptor(&d));
    OK(cudnnSetCTCLossDescriptor_v9(
        d, CUDNN_DATA_FLOAT,
        c->softmax ? CUDNN_LOSS_NORMALIZATION_SOFTMAX : CUDNN_LOSS_NORMALIZATION_NONE,
        c->skip_oob ? CUDNN_CTC_SKIP_OOB_GRADIENTS : CUDNN_CTC_ZERO_OOB_GRADIENTS, max_label));
    return d;
}

static void run_lib(const ctc_case_t *c, const how_t *h, run_t *out, const char *ctx)
{
    cudnnDataType_t dt = c->dt;
    t3_t p, g;
    t3_make(&p, dt, c->t, c->n, c->a, h->lay_p);
    t3_make(&g, dt, c->t, c->n, c->a, h->lay_g);
    for (int t = 0; t < c->t; t++)
        for (int n = 0; n < c->n; n++)
            for (int k = 0; k < c->a; k++) {
                fd_test_store(dt, p.buf.data, t3_off(&p, t, n, k), c->in[cidx(c, t, n, k)]);
                if (!isnan(h->grad_old))
                    fd_test_store(dt, g.buf.data, t3_off(&g, t, n, k), h->grad_old);
            }
    if (isnan(h->grad_old))
        fd_buf_poison(&g.buf);
    int total = 0, max_label = 1;
    for (int n = 0; n < c->n; n++) {
        total += c->ll[n];
        if (c->ll[n] > max_label)
            max_label = c->ll[n];
    }
    fd_buf_t labels = fd_buf_alloc(sizeof(int) * (size_t)(total ? total : 1));
    fd_buf_t ll = fd_buf_alloc(sizeof(int) * (size_t)c->n),
             il = fd_buf_alloc(sizeof(int) * (size_t)c->n);
    int *lp = labels.data, off = 0;
    for (int n = 0; n < c->n; n++) {
        ((int *)ll.data)[n] = c->ll[n];
        ((int *)il.data)[n] = c->il[n];
        for (int i = 0; i < c->ll[n]; i++)
            lp[off++] = c->lab[n][i];
    }
    fd_buf_t costs = fd_buf_alloc(fd_test_dtype_size(dt) * (size_t)c->n);
    fd_buf_poison(&costs);
    cudnnCTCLossDescriptor_t d = desc_for(c, max_label);
    cudnnHandle_t hd = handles[h->handle];
    cudnnTensorDescriptor_t gdesc = h->with_grad ? g.desc : NULL;
    size_t need = 0;
    if (h->api_v8)
        OK(cudnnGetCTCLossWorkspaceSize_v8(hd, (cudnnCTCLossAlgo_t)c->algo, d, p.desc, gdesc,
                                           &need));
    else
        OK(cudnnGetCTCLossWorkspaceSize(hd, p.desc, gdesc, labels.data, ll.data, il.data,
                                        (cudnnCTCLossAlgo_t)c->algo, d, &need));
    size_t ws_size = (size_t)((long)need + h->ws_delta);
    fd_buf_t ws = fd_buf_alloc(ws_size ? ws_size : 1);
    fd_buf_poison(&ws); /* never assumed zeroed */
    uint64_t hp = fd_buf_hash(&p.buf), hl = fd_buf_hash(&labels), hll = fd_buf_hash(&ll),
             hil = fd_buf_hash(&il);
    uint64_t hg = fd_buf_hash(&g.buf), hc = fd_buf_hash(&costs);
    void *grads = h->with_grad ? g.buf.data : NULL;
    if (h->api_v8)
        out->status =
            cudnnCTCLoss_v8(hd, (cudnnCTCLossAlgo_t)c->algo, d, p.desc, p.buf.data, labels.data,
                            ll.data, il.data, costs.data, gdesc, grads, ws_size, ws.data);
    else
        out->status =
            cudnnCTCLoss(hd, p.desc, p.buf.data, labels.data, ll.data, il.data, costs.data, gdesc,
                         grads, (cudnnCTCLossAlgo_t)c->algo, d, ws.data, ws_size);
    FD_EXPECT(fd_buf_guards_ok(&p.buf) && fd_buf_guards_ok(&g.buf) && fd_buf_guards_ok(&costs) &&
                  fd_buf_guards_ok(&ws) && fd_buf_guards_ok(&labels),
              "%s: guard zones", ctx);
    FD_EXPECT(hp == fd_buf_hash(&p.buf) && hl == fd_buf_hash(&labels) && hll == fd_buf_hash(&ll) &&
                  hil == fd_buf_hash(&il),
              "%s: an input changed", ctx);
    if (out->status != CUDNN_STATUS_SUCCESS) {
        FD_EXPECT(hg == fd_buf_hash(&g.buf) && hc == fd_buf_hash(&costs), "%s: rejected call wrote",
                  ctx);
    } else if (!h->with_grad) {
        FD_EXPECT(hg == fd_buf_hash(&g.buf), "%s: gradients written though NULL was passed", ctx);
    }
    for (int n = 0; n < c->n; n++)
        out->costs[n] = fd_test_load(dt, costs.data, n);
    for (int t = 0; t < c->t; t++)
        for (int n = 0; n < c->n; n++)
            for (int k = 0; k < c->a; k++)
                out->grads[cidx(c, t, n, k)] = fd_test_load(dt, g.buf.data, t3_off(&g, t, n, k));
    cudnnDestroyCTCLossDescriptor(d);
    t3_free(&p), t3_free(&g);
    fd_buf_free(&labels), fd_buf_free(&ll), fd_buf_free(&il), fd_buf_free(&costs), fd_buf_free(&ws);
}

/* ---- comparison against the brute force ----------------------------------------------------- */

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

/* Checks costs and gradients of one run against the brute force. */
static void check_brute(const ctc_case_t *c, const run_t *r, int with_grad, double grad_old,
                        const char *ctx)
{
    double y[5 * 3 * 2], g[5 * 3 * 2];
    int bad = 0;
    for (int n = 0; n < c->n; n++) {
        probs_of(c, n, y);
        double p = brute_force(c, n, y, g);
        double want = -log(p);
        if (p == 0) {
            if (!(isinf(r->costs[n]) && r->costs[n] > 0))
                bad++,
                    printf("  %s: cost[%d] %.17g, want +inf (impossible)\n", ctx, n, r->costs[n]);
        } else if (!(fabs(r->costs[n] - want) <=
                     fd_tolerance(c->dt, CUDNN_DATA_DOUBLE, 64 * c->t, fabs(want) + 1, want))) {
            bad++, printf("  %s: cost[%d] %.17g, want %.17g\n", ctx, n, r->costs[n], want);
        }
        if (!with_grad)
            continue;
        for (int t = 0; t < c->t; t++)
            for (int k = 0; k < c->a; k++) {
                double got = r->grads[cidx(c, t, n, k)], w;
                int must_equal_old = 0;
                if (p == 0 && c->skip_oob)
                    must_equal_old = 1, w = grad_old;
                else if (p == 0 || t >= c->il[n])
                    w = 0;
                else
                    w = y[t * c->a + k] - g[t * c->a + k] / p;
                int ok;
                if (must_equal_old)
                    ok = isnan(grad_old) ? isnan(got) : got == fd_test_round(c->dt, grad_old);
                else if (w == 0 && (p == 0 || t >= c->il[n]))
                    ok = got == 0;
                else
                    ok = fabs(got - w) <= fd_tolerance(c->dt, CUDNN_DATA_DOUBLE, 256 * c->t, 2, w);
                if (!ok && bad++ < 4)
                    printf("  %s: grad[t%d n%d k%d] %.17g, want %.17g\n", ctx, t, n, k, got, w);
            }
    }
    FD_EXPECT(bad == 0, "%s: %d values differ from the brute force", ctx, bad);
}

/* ---- hand cases --------------------------------------------------------------------------------
 */

static void hand_case(const char *name, int t, int a, const double *y, const int *lab, int L,
                      double want_cost, const double *want_grad, int skip)
{
    for (int d = 0; d < 4; d++)
        for (int v8 = 0; v8 < 2; v8++) {
            ctc_case_t c;
            memset(&c, 0, sizeof c);
            c.dt = all_dt[d], c.t = t, c.n = 1, c.a = a, c.skip_oob = skip;
            c.ll[0] = L, c.il[0] = t;
            memcpy(c.lab[0], lab, sizeof(int) * (size_t)L);
            c.in = dalloc((int64_t)t * a);
            for (int i = 0; i < t * a; i++)
                c.in[i] = y[i];
            run_t r = {{0}, dalloc((int64_t)t * a), 0};
            how_t h = {v8, 1, LAY_PACKED, LAY_PACKED, d & 1, 0, NAN};
            char ctx[128];
            snprintf(ctx, sizeof ctx, "hand %s %s %s", name, fd_test_dtype_short(c.dt),
                     v8 ? "v8" : "v7");
            run_lib(&c, &h, &r, ctx);
            FD_EXPECT(r.status == CUDNN_STATUS_SUCCESS, "%s: status %d", ctx, (int)r.status);
            double tol = fd_tolerance(c.dt, CUDNN_DATA_DOUBLE, 64, fabs(want_cost) + 1, want_cost);
            FD_EXPECT(isinf(want_cost) ? r.costs[0] == want_cost
                                       : fabs(r.costs[0] - want_cost) <= tol,
                      "%s: cost %.17g want %.17g", ctx, r.costs[0], want_cost);
            int bad = 0;
            for (int i = 0; i < t * a; i++) {
                double w = want_grad ? want_grad[i] : 0;
                if (want_grad == NULL && skip)
                    bad += !isnan(r.grads[i]); /* left poisoned */
                else
                    bad +=
                        !(fabs(r.grads[i] - w) <= fd_tolerance(c.dt, CUDNN_DATA_DOUBLE, 64, 2, w));
            }
            FD_EXPECT(bad == 0, "%s: %d gradients differ", ctx, bad);
            free(c.in), free(r.grads);
        }
}

static void test_hand(void)
{
    /* T = 2, A = 2, uniform y, label "1": paths 11, 01, 10 -> P = 3/4 */
    static const double u2[4] = {0.5, 0.5, 0.5, 0.5};
    static const int l1[1] = {1};
    static const double g1[4] = {1.0 / 6, -1.0 / 6, 1.0 / 6, -1.0 / 6};
    hand_case("T2 '1'", 2, 2, u2, l1, 1, 0.28768207245178093 /* ln 4/3 */, g1, 0);
    /* T = 3, A = 2, label "1 1": the repeat needs a blank between, only path 1 0 1 -> P = 1/8 */
    static const double u3[6] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    static const int l11[2] = {1, 1};
    static const double g11[6] = {0.5, -0.5, -0.5, 0.5, 0.5, -0.5};
    hand_case("T3 '11'", 3, 2, u3, l11, 2, 2.0794415416798357 /* ln 8 */, g11, 0);
    /* T = 2, label "1 1": impossible (needs 3 steps) -> +inf; gradients zeroed or left */
    hand_case("T2 '11' zero", 2, 2, u2, l11, 2, INFINITY, NULL, 0);
    hand_case("T2 '11' skip", 2, 2, u2, l11, 2, INFINITY, NULL, 1);
    /* T = 2, A = 3, label "1 2" with y0 = (.25, .5, .25), y1 = (.5, .25, .25): only path 1 2,
     * P = .5 * .25 = 1/8; gradient = y - indicator of the path */
    static const double u12[6] = {0.25, 0.5, 0.25, 0.5, 0.25, 0.25};
    static const int l12[2] = {1, 2};
    static const double g12[6] = {0.25, -0.5, 0.25, 0.5, 0.25, -0.75};
    hand_case("T2 '12'", 2, 3, u12, l12, 2, 2.0794415416798357, g12, 0);
    /* empty label, T = 2: only the all-blank path, P = .5 * .5 */
    static const double g0[4] = {-0.5, 0.5, -0.5, 0.5};
    hand_case("T2 ''", 2, 2, u2, l1, 0, 1.3862943611198906 /* ln 4 */, g0, 0);
}

/* ---- random sweep against the brute force -------------------------------------------------------
 */

static void random_case(ctc_case_t *c, fd_rng_t *r, int max_t, int max_a, int max_l)
{
    memset(c, 0, sizeof *c);
    c->dt = all_dt[fd_rng_int(r, 0, 3)];
    c->t = fd_rng_int(r, 1, max_t), c->n = fd_rng_int(r, 1, MAXN - 1),
    c->a = fd_rng_int(r, 2, max_a);
    c->softmax = fd_rng_int(r, 0, 1), c->skip_oob = fd_rng_int(r, 0, 1),
    c->algo = fd_rng_int(r, 0, 1);
    for (int n = 0; n < c->n; n++) {
        c->il[n] = fd_rng_int(r, 1, c->t);
        c->ll[n] = fd_rng_int(r, 0, max_l);
        for (int i = 0; i < c->ll[n]; i++) /* repeats are likely with A = 2 or 3 */
            c->lab[n][i] = fd_rng_int(r, 1, c->a - 1);
    }
    c->in = dalloc((int64_t)c->t * c->n * c->a);
    for (int t = 0; t < c->t; t++)
        for (int n = 0; n < c->n; n++) {
            double u[32], s = 0;
            for (int k = 0; k < c->a; k++)
                u[k] = 4 * fd_rng_uniform(r) - 2, s += exp(u[k]);
            for (int k = 0; k < c->a; k++)
                c->in[cidx(c, t, n, k)] = fd_test_round(c->dt, c->softmax ? u[k] : exp(u[k]) / s);
        }
}

static void test_sweep(void)
{
    uint64_t master = fd_test_sweep_seed(0xc7c10550), forced;
    int cases = (int)(300 * fd_test_scale()), only = fd_test_seed_forced(&forced);
    for (int i = 0; i < (only ? 1 : cases); i++) {
        uint64_t seed = only ? forced : fd_test_mix(master, i);
        fd_rng_t r;
        fd_rng_seed(&r, seed);
        ctc_case_t c;
        random_case(&c, &r, 5, 3, 2);
        int64_t ne = (int64_t)c.t * c.n * c.a;
        how_t base = {0, 1,  fd_rng_int(&r, 0, LAY_COUNT - 1), fd_rng_int(&r, 0, LAY_COUNT - 1), 0,
                      0, NAN};
        if (fd_rng_int(&r, 0, 1))
            base.grad_old = 0.75; /* the SKIP mode must leave this value */
        char ctx[200];
        snprintf(ctx, sizeof ctx, "sweep %s T%d N%d A%d %s %s algo%d %s/%s seed=0x%llx",
                 fd_test_dtype_short(c.dt), c.t, c.n, c.a, c.softmax ? "softmax" : "none",
                 c.skip_oob ? "skip" : "zero", c.algo, lay_name[base.lay_p], lay_name[base.lay_g],
                 (unsigned long long)seed);
        run_t first = {{0}, dalloc(ne), 0}, other = {{0}, dalloc(ne), 0};
        run_lib(&c, &base, &first, ctx);
        FD_EXPECT(first.status == CUDNN_STATUS_SUCCESS, "%s: status %d", ctx, (int)first.status);
        check_brute(&c, &first, 1, base.grad_old, ctx);
        /* the same bits through v8, on cpu, with other layouts, without gradients, other algo */
        for (int var = 0; var < 5; var++) {
            how_t h = base;
            ctc_case_t cv = c;
            const char *what = "";
            switch (var) {
            case 0:
                h.api_v8 = 1, what = "v8";
                break;
            case 1:
                h.handle = 1, what = "cpu";
                break;
            case 2:
                h.lay_p = (h.lay_p + 1) % LAY_COUNT, h.lay_g = (h.lay_g + 2) % LAY_COUNT,
                what = "layouts";
                break;
            case 3:
                h.with_grad = 0, what = "costs only";
                break;
            case 4:
                cv.algo = 1 - c.algo, h.ws_delta = 64, what = "other algo, larger workspace";
                break;
            }
            run_lib(&cv, &h, &other, ctx);
            int same = other.status == CUDNN_STATUS_SUCCESS;
            for (int n = 0; n < c.n; n++)
                same &= same_bits(other.costs[n], first.costs[n]);
            if (h.with_grad)
                for (int64_t i = 0; i < ne; i++)
                    same &= same_bits(other.grads[i], first.grads[i]);
            FD_EXPECT(same, "%s: %s gives other bits", ctx, what);
        }
        /* one byte short: BAD_PARAM, nothing written (run_lib checks the hashes) */
        how_t shrt = base;
        shrt.ws_delta = -1;
        run_lib(&c, &shrt, &other, ctx);
        FD_EXPECT(other.status == CUDNN_STATUS_BAD_PARAM, "%s: short workspace gives %d", ctx,
                  (int)other.status);
        free(c.in), free(first.grads), free(other.grads);
    }
}

/* ---- the automaton against the brute force, and longer sequences --------------------------------
 */

static void test_long(void)
{
    fd_rng_t r;
    fd_rng_seed(&r, 4242);
    /* the second oracle agrees with the first */
    int bad = 0;
    for (int i = 0; i < 200; i++) {
        ctc_case_t c;
        random_case(&c, &r, 5, 3, 3);
        double y[5 * 3], g[5 * 3];
        for (int n = 0; n < c.n; n++) {
            probs_of(&c, n, y);
            double p1 = brute_force(&c, n, y, g), p2 = automaton(&c, n, y);
            if (!(fabs(p1 - p2) <= 1e-14 * p1))
                bad++;
        }
        free(c.in);
    }
    FD_EXPECT(bad == 0, "automaton vs brute force: %d samples differ", bad);

    /* T up to 40, A up to 12, labels up to 12 with repeats: costs against the automaton; every
     * gradient row of a feasible sample sums to 0 in SOFTMAX mode (sum y = sum occupancy = 1) */
    for (int i = 0; i < 30; i++) {
        ctc_case_t c;
        random_case(&c, &r, 40, 12, 12);
        c.dt = CUDNN_DATA_DOUBLE;
        for (int n = 0; n < c.n; n++)
            if (fd_rng_int(&r, 0, 3) == 0 && c.ll[n] >= 2)
                c.lab[n][1] = c.lab[n][0]; /* force a repeat */
        int64_t ne = (int64_t)c.t * c.n * c.a;
        run_t res = {{0}, dalloc(ne), 0};
        how_t h = {i & 1, 1, i % LAY_COUNT, (i + 1) % LAY_COUNT, 0, 0, NAN};
        char ctx[96];
        snprintf(ctx, sizeof ctx, "long T%d N%d A%d %s case %d", c.t, c.n, c.a,
                 c.softmax ? "softmax" : "none", i);
        run_lib(&c, &h, &res, ctx);
        FD_EXPECT(res.status == CUDNN_STATUS_SUCCESS, "%s: status %d", ctx, (int)res.status);
        double *y = dalloc((int64_t)c.t * c.a);
        for (int n = 0; n < c.n; n++) {
            probs_of(&c, n, y);
            double p = automaton(&c, n, y), want = -log(p);
            int ok = p == 0 ? isinf(res.costs[n])
                            : fabs(res.costs[n] - want) <= 1e-12 * (fabs(want) + 1);
            FD_EXPECT(ok, "%s: cost[%d] %.17g want %.17g", ctx, n, res.costs[n], want);
            if (!c.softmax || p == 0)
                continue;
            for (int t = 0; t < c.t; t++) {
                double s = 0;
                for (int k = 0; k < c.a; k++)
                    s += res.grads[cidx(&c, t, n, k)];
                FD_EXPECT(fabs(s) <= 1e-12, "%s: gradient row t%d n%d sums to %g", ctx, t, n, s);
            }
        }
        free(y), free(c.in), free(res.grads);
    }
}

/* ---- finite differences in double
 * ---------------------------------------------------------------- */

/* The library's input from activations u: u itself (SOFTMAX) or softmax(u) (NONE). */
static void fill_input(ctc_case_t *c, const double *u)
{
    for (int t = 0; t < c->t; t++)
        for (int n = 0; n < c->n; n++) {
            double s = 0;
            for (int k = 0; k < c->a; k++)
                s += exp(u[cidx(c, t, n, k)]);
            for (int k = 0; k < c->a; k++)
                c->in[cidx(c, t, n, k)] =
                    c->softmax ? u[cidx(c, t, n, k)] : exp(u[cidx(c, t, n, k)]) / s;
        }
}

static void test_finite_differences(void)
{
    fd_rng_t r;
    fd_rng_seed(&r, 31337);
    for (int mode = 0; mode < 2;
         mode++) { /* 0: NONE (probs = softmax(u) by the test), 1: SOFTMAX */
        ctc_case_t c;
        memset(&c, 0, sizeof c);
        c.dt = CUDNN_DATA_DOUBLE, c.t = 7, c.n = 2, c.a = 4, c.softmax = mode;
        c.il[0] = 7, c.il[1] = 5;
        c.ll[0] = 3, c.lab[0][0] = 2, c.lab[0][1] = 2, c.lab[0][2] = 3; /* a repeat */
        c.ll[1] = 2, c.lab[1][0] = 1, c.lab[1][1] = 3;
        int64_t ne = (int64_t)c.t * c.n * c.a;
        double *u = dalloc(ne);
        for (int64_t i = 0; i < ne; i++)
            u[i] = 2 * fd_rng_uniform(&r) - 1;
        c.in = dalloc(ne);
        fill_input(&c, u);
        run_t base = {{0}, dalloc(ne), 0}, pr = {{0}, dalloc(ne), 0}, mr = {{0}, dalloc(ne), 0};
        how_t h = {mode, 1, LAY_PADDED, LAY_ALPHA_OUTER, 0, 0, NAN};
        run_lib(&c, &h, &base, "fd base");
        h.with_grad = 0;
        const double eps = 1e-6;
        int bad = 0;
        for (int64_t i = 0; i < ne; i++) {
            int n = (int)(i / c.a % c.n);
            double save = u[i];
            u[i] = save + eps, fill_input(&c, u), run_lib(&c, &h, &pr, "fd +");
            u[i] = save - eps, fill_input(&c, u), run_lib(&c, &h, &mr, "fd -");
            u[i] = save;
            double num = (pr.costs[n] - mr.costs[n]) / (2 * eps), an = base.grads[i];
            if (!(fabs(num - an) <= 1e-7 * (1 + fabs(an))) && bad++ < 4)
                printf("  fd %s grad[%lld]: numeric %.12g analytic %.12g\n",
                       mode ? "softmax" : "none", (long long)i, num, an);
        }
        FD_EXPECT(bad == 0, "finite differences (%s): %d gradients differ",
                  mode ? "SOFTMAX" : "NONE", bad);
        free(u), free(c.in), free(base.grads), free(pr.grads), free(mr.grads);
    }
}

/* ---- descriptors, determinism, v8 label limit
 * ------------------------------------------------------ */

static void test_descriptor_modes(void)
{
    cudnnCTCLossDescriptor_t d;
    OK(cudnnCreateCTCLossDescriptor(&d));
    cudnnDataType_t comp;
    cudnnLossNormalizationMode_t norm;
    cudnnNanPropagation_t nan;
    cudnnCTCGradMode_t gm;
    int maxl;
    OK(cudnnSetCTCLossDescriptorEx(d, CUDNN_DATA_DOUBLE, CUDNN_LOSS_NORMALIZATION_SOFTMAX,
                                   CUDNN_PROPAGATE_NAN));
    OK(cudnnGetCTCLossDescriptor_v9(d, &comp, &norm, &gm, &maxl));
    FD_EXPECT(comp == CUDNN_DATA_DOUBLE && norm == CUDNN_LOSS_NORMALIZATION_SOFTMAX &&
                  gm == CUDNN_CTC_SKIP_OOB_GRADIENTS && maxl == 256,
              "Ex -> v9 getter: %d %d %d %d", (int)comp, (int)norm, (int)gm, maxl);
    OK(cudnnSetCTCLossDescriptor(d, CUDNN_DATA_FLOAT));
    OK(cudnnGetCTCLossDescriptorEx(d, &comp, &norm, &nan));
    FD_EXPECT(comp == CUDNN_DATA_FLOAT && norm == CUDNN_LOSS_NORMALIZATION_NONE &&
                  nan == CUDNN_NOT_PROPAGATE_NAN,
              "7.0 setter resets to NONE / zeroed OOB gradients");
    OK(cudnnSetCTCLossDescriptor_v8(d, CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_NONE,
                                    CUDNN_PROPAGATE_NAN, 9));
    OK(cudnnGetCTCLossDescriptor_v8(d, &comp, &norm, &nan, &maxl));
    FD_EXPECT(nan == CUDNN_PROPAGATE_NAN && maxl == 9, "v8 round trip");
    OK(cudnnGetCTCLossDescriptor(d, &comp));
    FD_EXPECT(comp == CUDNN_DATA_FLOAT, "7.0 getter");
    OK(cudnnDestroyCTCLossDescriptor(d));

    /* the v8 workspace follows maxLabelLength; labels longer than it are BAD_PARAM */
    ctc_case_t c;
    memset(&c, 0, sizeof c);
    c.dt = CUDNN_DATA_FLOAT, c.t = 6, c.n = 1, c.a = 3, c.il[0] = 6, c.ll[0] = 3;
    c.lab[0][0] = 1, c.lab[0][1] = 2, c.lab[0][2] = 1;
    c.in = dalloc(18);
    for (int i = 0; i < 18; i++)
        c.in[i] = 1.0 / 3;
    cudnnTensorDescriptor_t pd;
    OK(cudnnCreateTensorDescriptor(&pd));
    int dims[3] = {6, 1, 3}, strides[3] = {3, 3, 1};
    OK(cudnnSetTensorNdDescriptor(pd, CUDNN_DATA_FLOAT, 3, dims, strides));
    size_t s2, s3, s9;
    cudnnCTCLossDescriptor_t d2 = desc_for(&c, 2), d3 = desc_for(&c, 3), d9 = desc_for(&c, 9);
    OK(cudnnGetCTCLossWorkspaceSize_v8(handles[0], CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, d2, pd, pd,
                                       &s2));
    OK(cudnnGetCTCLossWorkspaceSize_v8(handles[0], CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, d3, pd, pd,
                                       &s3));
    OK(cudnnGetCTCLossWorkspaceSize_v8(handles[0], CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, d9, pd, pd,
                                       &s9));
    FD_EXPECT(s2 < s3 && s3 < s9, "v8 workspace grows with maxLabelLength: %zu %zu %zu", s2, s3,
              s9);
    float probs[18], costs[1] = {-7}, grads[18];
    for (int i = 0; i < 18; i++)
        probs[i] = 1.0f / 3, grads[i] = -7;
    int labels[3] = {1, 2, 1}, ll[1] = {3}, il[1] = {6};
    void *ws = malloc(s9);
    FD_EXPECT_STATUS(cudnnCTCLoss_v8(handles[0], CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, d2, pd, probs,
                                     labels, ll, il, costs, pd, grads, s9, ws),
                     CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT(costs[0] == -7 && grads[0] == -7 && grads[17] == -7,
              "v8 label too long: nothing written");
    OK(cudnnCTCLoss_v8(handles[0], CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, d3, pd, probs, labels, ll, il,
                       costs, pd, grads, s3, ws));
    /* determinism: a second run, other handle, gives the same bits */
    float costs2[1], grads2[18];
    OK(cudnnCTCLoss_v8(handles[1], CUDNN_CTC_LOSS_ALGO_NON_DETERMINISTIC, d9, pd, probs, labels, ll,
                       il, costs2, pd, grads2, s9, ws));
    FD_EXPECT(!memcmp(costs, costs2, sizeof costs) && !memcmp(grads, grads2, sizeof grads),
              "re-run (other handle, algo, maxLabelLength) gives other bits");
    free(ws), free(c.in);
    cudnnDestroyCTCLossDescriptor(d2), cudnnDestroyCTCLossDescriptor(d3),
        cudnnDestroyCTCLossDescriptor(d9);
    cudnnDestroyTensorDescriptor(pd);
}

int main(void)
{
    OK(freednnCreateWithBackend(&handles[0], FREEDNN_BACKEND_REF));
    OK(freednnCreateWithBackend(&handles[1], FREEDNN_BACKEND_CPU));
    test_hand();
    test_sweep();
    test_long();
    test_finite_differences();
    test_descriptor_modes();
    cudnnDestroy(handles[0]);
    cudnnDestroy(handles[1]);
    return fd_test_finish();
}
