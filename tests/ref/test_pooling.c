/* SPDX-License-Identifier: MIT */
/*
 * test_pooling.c - pooling forward and backward against an independent oracle.
 *
 * The oracle below is written from the definition, on canonical dense double arrays, and shares
 * nothing with src/ref: it enumerates every window tap k (o*stride - pad + k), classifies the
 * tap as inside the padded span [-pad, in + pad) and as readable (inside the input too), and
 * SCATTERS the backward pass (the library gathers). Max of a window: NaN when PROPAGATE and a
 * NaN is present, else the largest non-NaN readable value, never below -(max finite of the
 * type) (contract §1.7); its argmax is the first readable tap holding that value (the first
 * NaN with PROPAGATE).
 *
 * Checked: hand-computed cases with the numbers written here; the NaN table of contract §1.7
 * bit for bit (and the -max-finite value of every type); NaN/+inf/-inf injected at each tap of
 * a window; the output dims of contract §1.2.2 (pad -1, pad >= window); crop and ceil mode; a
 * random sweep (1d/2d/3d, every mode and NaN option, f32/f64/f16/bf16, integer fills compared
 * exactly for max, real fills under the tolerance) run in four layouts and on the ref and cpu
 * backends with identical bits required; poisoned outputs, guard zones, holes of padded
 * outputs, unchanged inputs, alpha/beta (beta = 0 over NaN never reads y); determinism;
 * backward by central finite differences in double and by the adjoint identity.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_tensor.h"
#include "fd_test.h"

#define OK(expr) FD_EXPECT_STATUS((expr), CUDNN_STATUS_SUCCESS)
#define MAXSP 3

/* ---- tensors in any layout ------------------------------------------------------------------ */

enum { L_NCHW, L_NHWC, L_PADDED, L_REVERSED, L_COUNT };
static const char *const layout_name[L_COUNT] = {"nchw", "nhwc", "padded", "reversed"};

typedef struct {
    cudnnDataType_t dt;
    fd_layout_t l;
    fd_buf_t buf;
    cudnnTensorDescriptor_t desc;
} tens_t;

/* padded: NCHW order with a hole after every element and 3 after every row. */
static void tens_make(tens_t *t, cudnnDataType_t dt, int nb, const int *dim, int layout)
{
    static const int order[L_COUNT] = {FD_ORDER_NCHW, FD_ORDER_NHWC, FD_ORDER_NCHW,
                                       FD_ORDER_REVERSED};
    memset(t, 0, sizeof *t);
    t->dt = dt;
    fd_layout_ordered(&t->l, nb, dim, order[layout], layout == L_PADDED ? 2 : 1,
                      layout == L_PADDED ? 3 : 0);
    t->buf = fd_layout_alloc(&t->l, dt);
    OK(cudnnCreateTensorDescriptor(&t->desc));
    OK(cudnnSetTensorNdDescriptor(t->desc, dt, nb, t->l.dim, t->l.stride));
}

static void tens_free(tens_t *t)
{
    cudnnDestroyTensorDescriptor(t->desc);
    fd_buf_free(&t->buf);
}

/* ---- the oracle --------------------------------------------------------------------------- */

typedef struct {
    int nsp;
    cudnnPoolingMode_t mode;
    int prop;
    cudnnDataType_t dt;
    int n, c;
    int in[MAXSP], win[MAXSP], pad[MAXSP], stride[MAXSP], out[MAXSP]; /* first nsp used */
} pcase_t;

static int is_max(cudnnPoolingMode_t m)
{
    return m == CUDNN_POOLING_MAX || m == CUDNN_POOLING_MAX_DETERMINISTIC;
}

/* -(largest finite value) of each storage type, from the formats' definitions. */
static double lowest_of(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE:
        return -DBL_MAX;
    case CUDNN_DATA_HALF:
        return -ldexp(2047.0, 5); /* (2^11 - 1) * 2^(15 - 10) */
    case CUDNN_DATA_BFLOAT16:
        return -ldexp(255.0, 120); /* (2^8 - 1) * 2^(127 - 7) */
    default:
        return -FLT_MAX;
    }
}

/* Floor output extent (in + 2 pad >= win assumed). */
static int out_floor(int in, int win, int pad, int stride)
{
    return (in + 2 * pad - win) / stride + 1;
}

/* Ceil-mode extent as frameworks define it: one more window when inexact, unless it would start
 * at or beyond the end of the input (of the cropped input when pad < 0). */
static int out_ceil(int in, int win, int pad, int stride)
{
    int o = (in + 2 * pad - win + stride - 1) / stride + 1;
    if ((o - 1) * stride - pad >= (pad < 0 ? in + pad : in))
        o--;
    return o;
}

/* Full-rank geometry: spatial dims padded to 3 with leading unit dims. */
typedef struct {
    int in[MAXSP], win[MAXSP], pad[MAXSP], stride[MAXSP], out[MAXSP];
} geo_t;

static void geo_of(const pcase_t *k, geo_t *g)
{
    int lead = MAXSP - k->nsp;
    for (int i = 0; i < MAXSP; i++) {
        int s = i - lead;
        g->in[i] = s >= 0 ? k->in[s] : 1;
        g->win[i] = s >= 0 ? k->win[s] : 1;
        g->pad[i] = s >= 0 ? k->pad[s] : 0;
        g->stride[i] = s >= 0 ? k->stride[s] : 1;
        g->out[i] = s >= 0 ? k->out[s] : 1;
    }
}

static int64_t x_count(const pcase_t *k)
{
    int64_t v = (int64_t)k->n * k->c;
    for (int i = 0; i < k->nsp; i++)
        v *= k->in[i];
    return v;
}

static int64_t y_count(const pcase_t *k)
{
    int64_t v = (int64_t)k->n * k->c;
    for (int i = 0; i < k->nsp; i++)
        v *= k->out[i];
    return v;
}

/* One window of (n, c) at output (o0, o1, o2): value, argmax (canonical x index or -1),
 * divisor (average modes), and sum |taps| for the tolerance. */
typedef struct {
    double value, abs_sum;
    int64_t argmax, count;
} owin_t;

static owin_t oracle_window(const pcase_t *k, const geo_t *g, const double *x, int64_t nc,
                            const int *o)
{
    owin_t r = {0.0, 0.0, -1, 0};
    int any_nan = 0, have = 0;
    double best = 0.0, sum = 0.0;
    int64_t span_count = 0, read_count = 0;
    int t[MAXSP];
    for (t[0] = 0; t[0] < g->win[0]; t[0]++)
        for (t[1] = 0; t[1] < g->win[1]; t[1]++)
            for (t[2] = 0; t[2] < g->win[2]; t[2]++) {
                int in_span = 1, readable = 1;
                int64_t lin = nc;
                for (int d = 0; d < MAXSP; d++) {
                    int pos = o[d] * g->stride[d] - g->pad[d] + t[d];
                    if (pos < -g->pad[d] || pos >= g->in[d] + g->pad[d])
                        in_span = 0;
                    if (pos < 0 || pos >= g->in[d])
                        readable = 0;
                    lin = lin * g->in[d] + pos;
                }
                readable = readable && in_span;
                span_count += in_span;
                if (!readable)
                    continue;
                read_count++;
                double v = x[lin];
                sum += v;
                r.abs_sum += fabs(v);
                if (isnan(v)) {
                    any_nan = 1;
                } else if (!have || v > best) {
                    best = v;
                    have = 1;
                }
            }
    if (is_max(k->mode)) {
        double low = lowest_of(k->dt);
        r.value = (k->prop && any_nan) ? NAN : (have && best > low ? best : low);
        /* second pass: the first readable tap holding the value */
        for (t[0] = 0; t[0] < g->win[0] && r.argmax < 0; t[0]++)
            for (t[1] = 0; t[1] < g->win[1] && r.argmax < 0; t[1]++)
                for (t[2] = 0; t[2] < g->win[2] && r.argmax < 0; t[2]++) {
                    int ok = 1;
                    int64_t lin = nc;
                    for (int d = 0; d < MAXSP; d++) {
                        int pos = o[d] * g->stride[d] - g->pad[d] + t[d];
                        if (pos < 0 || pos >= g->in[d] || pos < -g->pad[d] ||
                            pos >= g->in[d] + g->pad[d])
                            ok = 0;
                        lin = lin * g->in[d] + pos;
                    }
                    if (!ok)
                        continue;
                    double v = x[lin];
                    if (isnan(r.value) ? isnan(v) : v == r.value)
                        r.argmax = lin;
                }
        r.abs_sum = fabs(r.value);
        r.count = 1;
    } else {
        r.count = k->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? span_count : read_count;
        r.value = r.count > 0 ? sum / (double)r.count : 0.0;
        r.abs_sum = r.count > 0 ? r.abs_sum / (double)r.count : 0.0;
    }
    return r;
}

/* Forward: y[] and the tolerance inputs per output element. */
static void oracle_fwd(const pcase_t *k, const double *x, double *y, double *yabs, int64_t *yterms)
{
    geo_t g;
    geo_of(k, &g);
    int64_t e = 0;
    int o[MAXSP];
    for (int64_t nc = 0; nc < (int64_t)k->n * k->c; nc++)
        for (o[0] = 0; o[0] < g.out[0]; o[0]++)
            for (o[1] = 0; o[1] < g.out[1]; o[1]++)
                for (o[2] = 0; o[2] < g.out[2]; o[2]++, e++) {
                    owin_t w = oracle_window(k, &g, x, nc, o);
                    y[e] = w.value;
                    yabs[e] = w.abs_sum;
                    yterms[e] = w.count;
                }
}

/* Backward by scatter: dx += dy routed to the argmax, or dy / count to every readable tap. */
static void oracle_bwd(const pcase_t *k, const double *x, const double *dy, double *dx,
                       double *dxabs, int64_t *dxterms)
{
    geo_t g;
    geo_of(k, &g);
    int64_t nx = x_count(k);
    for (int64_t i = 0; i < nx; i++)
        dx[i] = dxabs[i] = 0.0, dxterms[i] = 0;
    int64_t e = 0;
    int o[MAXSP], t[MAXSP];
    for (int64_t nc = 0; nc < (int64_t)k->n * k->c; nc++)
        for (o[0] = 0; o[0] < g.out[0]; o[0]++)
            for (o[1] = 0; o[1] < g.out[1]; o[1]++)
                for (o[2] = 0; o[2] < g.out[2]; o[2]++, e++) {
                    owin_t w = oracle_window(k, &g, x, nc, o);
                    if (is_max(k->mode)) {
                        if (w.argmax >= 0) {
                            dx[w.argmax] += dy[e];
                            dxabs[w.argmax] += fabs(dy[e]);
                            dxterms[w.argmax]++;
                        }
                        continue;
                    }
                    for (t[0] = 0; t[0] < g.win[0]; t[0]++)
                        for (t[1] = 0; t[1] < g.win[1]; t[1]++)
                            for (t[2] = 0; t[2] < g.win[2]; t[2]++) {
                                int ok = 1;
                                int64_t lin = nc;
                                for (int d = 0; d < MAXSP; d++) {
                                    int pos = o[d] * g.stride[d] - g.pad[d] + t[d];
                                    if (pos < 0 || pos >= g.in[d] || pos < -g.pad[d] ||
                                        pos >= g.in[d] + g.pad[d])
                                        ok = 0;
                                    lin = lin * g.in[d] + pos;
                                }
                                if (!ok)
                                    continue;
                                dx[lin] += dy[e] / (double)w.count;
                                dxabs[lin] += fabs(dy[e]) / (double)w.count;
                                dxterms[lin]++;
                            }
                }
}

/* ---- running the library ----------------------------------------------------------------- */

static cudnnHandle_t handles[2]; /* ref, cpu */

static cudnnPoolingDescriptor_t make_desc(const pcase_t *k)
{
    cudnnPoolingDescriptor_t d;
    OK(cudnnCreatePoolingDescriptor(&d));
    OK(cudnnSetPoolingNdDescriptor(d, k->mode,
                                   k->prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN, k->nsp,
                                   k->win, k->pad, k->stride));
    return d;
}

static void dims_of(const pcase_t *k, int is_y, int *dim)
{
    dim[0] = k->n;
    dim[1] = k->c;
    for (int i = 0; i < k->nsp; i++)
        dim[2 + i] = is_y ? k->out[i] : k->in[i];
}

typedef struct {
    double alpha, beta;
} scale_t;

static void scale_ptrs(cudnnDataType_t dt, const scale_t *s, double *ad, double *bd, float *af,
                       float *bf, const void **a, const void **b)
{
    *ad = s->alpha, *bd = s->beta, *af = (float)s->alpha, *bf = (float)s->beta;
    *a = dt == CUDNN_DATA_DOUBLE ? (const void *)ad : (const void *)af;
    *b = dt == CUDNN_DATA_DOUBLE ? (const void *)bd : (const void *)bf;
}

/* Compares got with alpha * ref + beta * old (exactly when `exact`; otherwise within the
 * bound of sums accumulated in `acc`); returns failures. */
static int compare(const char *what, const char *repro, cudnnDataType_t dt, int64_t count,
                   const double *got, const double *ref, const double *abs_sum,
                   const int64_t *terms, const double *old, const scale_t *s, int exact,
                   cudnnDataType_t acc)
{
    int bad = 0;
    for (int64_t i = 0; i < count; i++) {
        double want = s->alpha * ref[i];
        if (s->beta != 0.0)
            want += s->beta * old[i];
        int ok;
        if (isnan(want) || isnan(got[i])) {
            ok = isnan(want) && isnan(got[i]);
        } else if (exact || isinf(fd_test_round(dt, want))) { /* overflow is exact too */
            ok = got[i] == fd_test_round(dt, want);
        } else {
            double sum =
                fabs(s->alpha) * abs_sum[i] + (s->beta != 0.0 ? fabs(s->beta * old[i]) : 0.0);
            ok =
                fabs(got[i] - want) <= fd_tolerance(dt, acc, terms[i] + 2, sum, want);
        }
        if (!ok) {
            bad++;
            if (bad <= 3 && fd_test_should_print())
                printf("  %s[%lld]: got %.9g want %.9g (%s)\n", what, (long long)i, got[i], want,
                       repro);
        }
    }
    return bad;
}

typedef struct {
    const pcase_t *k;
    const double *x, *dy, *yold, *dxold; /* canonical, as stored in dt */
    const double *y, *yabs, *dx, *dxabs; /* oracle */
    const int64_t *yterms, *dxterms;
    scale_t s;
    int exact; /* integer data: max results compared exactly */
    char repro[256];
} job_t;

/* The cpu backend sums FLOAT averages in float (the stride-1 "box" rows of
 * src/cpu/pooling_cpu.c, and forward every other stride on its AVX-512 paths; a product
 * decision: docs/testing.md), so those results are held to the
 * f32 accumulation bound rather than to the ref's bits. */
static int cpu_float_sums(const pcase_t *k, int backend)
{
    return backend == 1 && k->dt == CUDNN_DATA_FLOAT && !is_max(k->mode);
}

/* Runs forward and backward in one layout on one backend; checks everything; returns the
 * canonical bits of y and dx in ybits/dxbits. */
static void run_layout(const job_t *j, int layout, int backend, unsigned char *ybits,
                       unsigned char *dxbits)
{
    const pcase_t *k = j->k;
    int xd[5], yd[5], nb = k->nsp + 2;
    dims_of(k, 0, xd);
    dims_of(k, 1, yd);
    /* the mixed layout case (layout 4) puts x, y, dy, dx in different layouts */
    int lx = layout % L_COUNT, ly = layout == L_COUNT ? L_PADDED : layout;
    int ldy = layout == L_COUNT ? L_NHWC : layout, ldx = layout == L_COUNT ? L_REVERSED : layout;
    tens_t x, y, dy, dx;
    tens_make(&x, k->dt, nb, xd, lx);
    tens_make(&y, k->dt, nb, yd, ly);
    tens_make(&dy, k->dt, nb, yd, ldy);
    tens_make(&dx, k->dt, nb, xd, ldx);
    fd_buf_poison(&x.buf);
    fd_buf_poison(&dy.buf);
    fd_layout_scatter(&x.l, x.dt, x.buf.data, j->x);
    fd_layout_scatter(&dy.l, dy.dt, dy.buf.data, j->dy);
    fd_buf_poison(&y.buf);
    fd_buf_poison(&dx.buf);
    if (j->s.beta != 0.0) {
        fd_layout_scatter(&y.l, y.dt, y.buf.data, j->yold);
        fd_layout_scatter(&dx.l, dx.dt, dx.buf.data, j->dxold);
    }
    unsigned char *ysnap = malloc(y.buf.size), *dxsnap = malloc(dx.buf.size);
    memcpy(ysnap, y.buf.data, y.buf.size);
    memcpy(dxsnap, dx.buf.data, dx.buf.size);
    uint64_t hx = fd_buf_hash(&x.buf), hdy = fd_buf_hash(&dy.buf);

    cudnnPoolingDescriptor_t pd = make_desc(k);
    double ad, bd;
    float af, bf;
    const void *a, *b;
    scale_ptrs(k->dt, &j->s, &ad, &bd, &af, &bf, &a, &b);
    cudnnHandle_t h = handles[backend];
    char where[320];
    snprintf(where, sizeof where, "%s layout=%s backend=%s", j->repro,
             layout == L_COUNT ? "mixed" : layout_name[layout], backend ? "cpu" : "ref");

    cudnnStatus_t st = cudnnPoolingForward(h, pd, a, x.desc, x.buf.data, b, y.desc, y.buf.data);
    FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "forward: %s (%s)", cudnnGetErrorString(st), where);
    /* backward: y as the forward produced it (beta = 0 runs) or whatever y holds now */
    st = cudnnPoolingBackward(h, pd, a, y.desc, y.buf.data, dy.desc, dy.buf.data, x.desc,
                              x.buf.data, b, dx.desc, dx.buf.data);
    FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "backward: %s (%s)", cudnnGetErrorString(st), where);

    int64_t ny = y_count(k), nx = x_count(k);
    double *got = malloc(sizeof(double) * (size_t)(nx > ny ? nx : ny));
    fd_layout_gather(&y.l, y.dt, y.buf.data, got);
    const cudnnDataType_t acc = cpu_float_sums(k, backend) ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE;
    int bad = compare("y", where, k->dt, ny, got, j->y, j->yabs, j->yterms, j->yold, &j->s,
                      j->exact && is_max(k->mode), acc);
    FD_EXPECT(bad == 0, "forward: %d of %lld outputs wrong (%s)", bad, (long long)ny, where);
    fd_layout_gather(&dx.l, dx.dt, dx.buf.data, got);
    bad = compare("dx", where, k->dt, nx, got, j->dx, j->dxabs, j->dxterms, j->dxold, &j->s,
                  j->exact && is_max(k->mode), acc);
    FD_EXPECT(bad == 0, "backward: %d of %lld outputs wrong (%s)", bad, (long long)nx, where);

    FD_EXPECT(fd_buf_guards_ok(&x.buf) && fd_buf_guards_ok(&y.buf) && fd_buf_guards_ok(&dy.buf) &&
                  fd_buf_guards_ok(&dx.buf),
              "a guard zone was overwritten (%s)", where);
    FD_EXPECT(fd_buf_hash(&x.buf) == hx && fd_buf_hash(&dy.buf) == hdy,
              "an input was modified (%s)", where);
    FD_EXPECT(fd_layout_holes_equal(&y.l, y.dt, y.buf.data, ysnap) &&
                  fd_layout_holes_equal(&dx.l, dx.dt, dx.buf.data, dxsnap),
              "a hole between output elements was written (%s)", where);

    fd_layout_bits(&y.l, y.dt, y.buf.data, ybits);
    fd_layout_bits(&dx.l, dx.dt, dx.buf.data, dxbits);

    /* determinism: the same call again gives the same bits (beta = 0 only: beta != 0 reads y) */
    if (j->s.beta == 0.0) {
        size_t es = fd_test_dtype_size(k->dt);
        unsigned char *again = malloc((size_t)nx * es);
        fd_buf_poison(&dx.buf);
        OK(cudnnPoolingBackward(h, pd, a, y.desc, y.buf.data, dy.desc, dy.buf.data, x.desc,
                                x.buf.data, b, dx.desc, dx.buf.data));
        fd_layout_bits(&dx.l, dx.dt, dx.buf.data, again);
        FD_EXPECT(memcmp(again, dxbits, (size_t)nx * es) == 0, "backward not deterministic (%s)",
                  where);
        free(again);
    }
    free(got);
    free(ysnap);
    free(dxsnap);
    cudnnDestroyPoolingDescriptor(pd);
    tens_free(&x);
    tens_free(&y);
    tens_free(&dy);
    tens_free(&dx);
}

/* Every layout (and the mixed one) on both backends must give the same bits (but for the cpu
 * backend's float sums: cpu_float_sums). */
static void run_job(const job_t *j)
{
    size_t es = fd_test_dtype_size(j->k->dt);
    int64_t ny = y_count(j->k), nx = x_count(j->k);
    unsigned char *y0 = malloc((size_t)ny * es), *dx0 = malloc((size_t)nx * es);
    unsigned char *y1 = malloc((size_t)ny * es), *dx1 = malloc((size_t)nx * es);
    int first = 1;
    for (int layout = 0; layout <= L_COUNT; layout++)
        for (int backend = 0; backend < 2; backend++) {
            run_layout(j, layout, backend, first ? y0 : y1, first ? dx0 : dx1);
            if (!first && !cpu_float_sums(j->k, backend))
                FD_EXPECT(memcmp(y0, y1, (size_t)ny * es) == 0 &&
                              memcmp(dx0, dx1, (size_t)nx * es) == 0,
                          "layout %d backend %d: bits differ from nchw/ref (%s)", layout, backend,
                          j->repro);
            first = 0;
        }
    free(y0);
    free(dx0);
    free(y1);
    free(dx1);
}

/* Oracle + run for one case with the given canonical data. */
static void check_case(const pcase_t *k, const double *x, const double *dy, const double *yold,
                       const double *dxold, const scale_t *s, int exact, const char *tag)
{
    int64_t nx = x_count(k), ny = y_count(k);
    double *y = malloc(sizeof(double) * (size_t)ny), *yabs = malloc(sizeof(double) * (size_t)ny);
    double *dx = malloc(sizeof(double) * (size_t)nx), *dxabs = malloc(sizeof(double) * (size_t)nx);
    int64_t *yt = malloc(sizeof(int64_t) * (size_t)ny), *dxt = malloc(sizeof(int64_t) * (size_t)nx);
    oracle_fwd(k, x, y, yabs, yt);
    oracle_bwd(k, x, dy, dx, dxabs, dxt);
    job_t j = {k, x, dy, yold, dxold, y, yabs, dx, dxabs, yt, dxt, *s, exact, ""};
    int len = snprintf(j.repro, sizeof j.repro, "%s mode=%d prop=%d dt=%s n%dc%d in", tag,
                       (int)k->mode, k->prop, fd_test_dtype_short(k->dt), k->n, k->c);
    for (int i = 0; i < k->nsp && len < 200; i++)
        len +=
            snprintf(j.repro + len, sizeof j.repro - (size_t)len, "%s%d", i ? "x" : "", k->in[i]);
    for (int i = 0; i < k->nsp && len < 200; i++)
        len += snprintf(j.repro + len, sizeof j.repro - (size_t)len, " w%d p%d s%d o%d", k->win[i],
                        k->pad[i], k->stride[i], k->out[i]);
    snprintf(j.repro + len, sizeof j.repro - (size_t)len, " alpha=%g beta=%g", s->alpha, s->beta);
    run_job(&j);
    free(y);
    free(yabs);
    free(dx);
    free(dxabs);
    free(yt);
    free(dxt);
}

/* ---- hand-computed cases ------------------------------------------------------------------- */

/* Runs a 2-d float case (n = c = 1) and returns y in canonical order. */
static void run2d(cudnnPoolingMode_t mode, cudnnNanPropagation_t nan, int H, int W, const float *x,
                  int wh, int ww, int ph, int pw, int sh, int sw, int OH, int OW, float *y)
{
    cudnnPoolingDescriptor_t pd;
    cudnnTensorDescriptor_t xd, yd;
    OK(cudnnCreatePoolingDescriptor(&pd));
    OK(cudnnSetPooling2dDescriptor(pd, mode, nan, wh, ww, ph, pw, sh, sw));
    OK(cudnnCreateTensorDescriptor(&xd));
    OK(cudnnCreateTensorDescriptor(&yd));
    OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, H, W));
    OK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, OH, OW));
    float one = 1.0f, zero = 0.0f;
    memset(y, 0xFF, sizeof(float) * (size_t)(OH * OW));
    OK(cudnnPoolingForward(handles[0], pd, &one, xd, x, &zero, yd, y));
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyPoolingDescriptor(pd);
}

static void bwd2d(cudnnPoolingMode_t mode, int H, int W, const float *x, int wh, int ww, int ph,
                  int pw, int sh, int sw, int OH, int OW, const float *dy, float *dx)
{
    cudnnPoolingDescriptor_t pd;
    cudnnTensorDescriptor_t xd, yd;
    OK(cudnnCreatePoolingDescriptor(&pd));
    OK(cudnnSetPooling2dDescriptor(pd, mode, CUDNN_NOT_PROPAGATE_NAN, wh, ww, ph, pw, sh, sw));
    OK(cudnnCreateTensorDescriptor(&xd));
    OK(cudnnCreateTensorDescriptor(&yd));
    OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, H, W));
    OK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, OH, OW));
    float one = 1.0f, zero = 0.0f, y[64];
    memset(dx, 0xFF, sizeof(float) * (size_t)(H * W));
    OK(cudnnPoolingForward(handles[0], pd, &one, xd, x, &zero, yd, y));
    OK(cudnnPoolingBackward(handles[0], pd, &one, yd, y, yd, dy, xd, x, &zero, xd, dx));
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyPoolingDescriptor(pd);
}

static int same_floats(const float *a, const float *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!(a[i] == b[i] || (isnan(a[i]) && isnan(b[i]))))
            return 0;
    return 1;
}

static void test_hand_cases(void)
{
    float x16[16], y[64], dx[64];
    for (int i = 0; i < 16; i++)
        x16[i] = (float)(i + 1); /* 4x4: 1..16 row-major */

    run2d(CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 4, 4, x16, 2, 2, 0, 0, 2, 2, 2, 2, y);
    FD_EXPECT(same_floats(y, (const float[]){6, 8, 14, 16}, 4), "max 2x2/2 of 1..16: %g %g %g %g",
              y[0], y[1], y[2], y[3]);
    run2d(CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN, 4, 4, x16, 2, 2, 0,
          0, 2, 2, 2, 2, y);
    FD_EXPECT(same_floats(y, (const float[]){3.5f, 5.5f, 11.5f, 13.5f}, 4),
              "avg 2x2/2 of 1..16: %g %g %g %g", y[0], y[1], y[2], y[3]);

    /* 3x3 of 1..9, window 3, pad 1, stride 2 -> 2x2; windows at rows/cols -1..1 and 1..3 */
    float x9[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    run2d(CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, 3, x9, 3, 3, 1, 1, 2, 2, 2, 2, y);
    FD_EXPECT(same_floats(y, (const float[]){5, 6, 8, 9}, 4), "max 3x3 pad 1: %g %g %g %g", y[0],
              y[1], y[2], y[3]);
    run2d(CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN, 3, 3, x9, 3, 3, 1,
          1, 2, 2, 2, 2, y);
    /* corner sums 1+2+4+5 = 12, 2+3+5+6 = 16, 4+5+7+8 = 24, 5+6+8+9 = 28; divided by 9 */
    FD_EXPECT(same_floats(y, (const float[]){12.0f / 9, 16.0f / 9, 24.0f / 9, 28.0f / 9}, 4),
              "avg incl pad: %.9g %.9g %.9g %.9g", y[0], y[1], y[2], y[3]);
    run2d(CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN, 3, 3, x9, 3, 3, 1,
          1, 2, 2, 2, 2, y);
    FD_EXPECT(same_floats(y, (const float[]){3, 4, 6, 7}, 4), "avg excl pad: %g %g %g %g", y[0],
              y[1], y[2], y[3]);

    /* pad -1 crops: 8x8 of 8i+j, 2x2/2 -> 3x3, window (oh, ow) covers rows 2oh+1..2oh+2 */
    float x64[64];
    for (int i = 0; i < 64; i++)
        x64[i] = (float)i;
    run2d(CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 8, 8, x64, 2, 2, -1, -1, 2, 2, 3, 3, y);
    float want[9];
    for (int oh = 0; oh < 3; oh++)
        for (int ow = 0; ow < 3; ow++)
            want[oh * 3 + ow] = (float)((2 * oh + 2) * 8 + 2 * ow + 2);
    FD_EXPECT(same_floats(y, want, 9), "max with pad -1 (crop): y[0] %g y[8] %g", y[0], y[8]);
    run2d(CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN, 8, 8, x64, 2, 2, -1,
          -1, 2, 2, 3, 3, y);
    FD_EXPECT(y[0] == (9 + 10 + 17 + 18) / 4.0f, "avg excl with pad -1: y[0] %g, want 13.5", y[0]);

    /* pad 3 >= window 2: 8x8 -> 7x7; window (0,0) covers rows/cols -3..-2: padding only */
    run2d(CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 8, 8, x64, 2, 2, 3, 3, 2, 2, 7, 7, y);
    FD_EXPECT(y[0] == -FLT_MAX, "max over padding only: %g, want -FLT_MAX", y[0]);
    FD_EXPECT(y[1 * 7 + 2] == 2, "max window (1,2) rows -1..0 cols 1..2: %g, want 2", y[1 * 7 + 2]);
    FD_EXPECT(y[2 * 7 + 2] == 2 * 8 + 2, "max window (2,2) rows 1..2 cols 1..2: %g, want 18",
              y[2 * 7 + 2]);
    run2d(CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN, 8, 8, x64, 2, 2, 3,
          3, 2, 2, 7, 7, y);
    FD_EXPECT(y[0] == 0.0f, "avg excl over padding only: %g, want 0", y[0]);
    run2d(CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN, 8, 8, x64, 2, 2, 3,
          3, 2, 2, 7, 7, y);
    FD_EXPECT(y[0] == 0.0f && y[1 * 7 + 1] == 0.0f / 4 + 0.0f && y[1 * 7 + 2] == (1 + 2) / 4.0f,
              "avg incl with pad 3: %g %g %g", y[0], y[8], y[9]);

    /* ceil mode: 1x5, window 2, stride 2 -> floor 2, ceil 3; the third window holds x[4] only */
    float x5[5] = {1, 7, 3, 2, 9};
    run2d(CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 1, 5, x5, 1, 2, 0, 0, 1, 2, 1, 3, y);
    FD_EXPECT(same_floats(y, (const float[]){7, 3, 9}, 3), "max ceil mode: %g %g %g", y[0], y[1],
              y[2]);
    run2d(CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN, 1, 5, x5, 1, 2, 0,
          0, 1, 2, 1, 3, y);
    FD_EXPECT(same_floats(y, (const float[]){4, 2.5f, 9}, 3), "avg ceil mode: %g %g %g", y[0], y[1],
              y[2]);

    /* ceil mode with a crop: 1x9 of i^2, window 2, pad -1, stride 3 -> 3 windows starting at 1,
     * 4, 7; the last one is cut by the crop to x[7] alone */
    float xsq[9] = {0, 1, 4, 9, 16, 25, 36, 49, 64};
    run2d(CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 1, 9, xsq, 1, 2, 0, -1, 1, 3, 1, 3, y);
    FD_EXPECT(same_floats(y, (const float[]){4, 25, 49}, 3), "max ceil + crop: %g %g %g", y[0],
              y[1], y[2]);
    run2d(CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN, 1, 9, xsq, 1, 2, 0,
          -1, 1, 3, 1, 3, y);
    FD_EXPECT(same_floats(y, (const float[]){2.5f, 20.5f, 49}, 3), "avg incl ceil + crop: %g %g %g",
              y[0], y[1], y[2]);

    /* backward: ties go to the first max in window order; overlapping windows accumulate */
    float xt[4] = {3, 3, 1, 3}, dyt[1] = {5}, dxt[4];
    bwd2d(CUDNN_POOLING_MAX, 2, 2, xt, 2, 2, 0, 0, 1, 1, 1, 1, dyt, dxt);
    FD_EXPECT(same_floats(dxt, (const float[]){5, 0, 0, 0}, 4), "max bwd tie: %g %g %g %g", dxt[0],
              dxt[1], dxt[2], dxt[3]);
    bwd2d(CUDNN_POOLING_MAX_DETERMINISTIC, 2, 2, xt, 2, 2, 0, 0, 1, 1, 1, 1, dyt, dxt);
    FD_EXPECT(same_floats(dxt, (const float[]){5, 0, 0, 0}, 4), "max_det bwd tie: %g %g %g %g",
              dxt[0], dxt[1], dxt[2], dxt[3]);
    /* 1x4 [1 4 2 4], window 2 stride 1 -> y [4 4 4]; argmaxes 1, 1, 3 */
    float xo[4] = {1, 4, 2, 4}, dyo[3] = {1, 10, 100};
    bwd2d(CUDNN_POOLING_MAX, 1, 4, xo, 1, 2, 0, 0, 1, 1, 1, 3, dyo, dx);
    FD_EXPECT(same_floats(dx, (const float[]){0, 11, 0, 100}, 4), "max bwd overlap: %g %g %g %g",
              dx[0], dx[1], dx[2], dx[3]);
    bwd2d(CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, 1, 4, xo, 1, 2, 0, 0, 1, 1, 1, 3, dyo, dx);
    FD_EXPECT(same_floats(dx, (const float[]){0.5f, 5.5f, 55, 50}, 4),
              "avg bwd overlap: %g %g %g %g", dx[0], dx[1], dx[2], dx[3]);
    /* 3x3 of 1..9, window 3, pad 1, stride 2, exclude: dx[4] (center) is in all 4 windows */
    float dy4[4] = {4, 8, 12, 16};
    bwd2d(CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, 3, 3, x9, 3, 3, 1, 1, 2, 2, 2, 2, dy4, dx);
    FD_EXPECT(same_floats(dx, (const float[]){1, 3, 2, 4, 10, 6, 3, 7, 4}, 9),
              "avg excl bwd: %g %g %g / %g %g %g / %g %g %g", dx[0], dx[1], dx[2], dx[3], dx[4],
              dx[5], dx[6], dx[7], dx[8]);
    /* crop: positions outside [1, 7) get nothing */
    float dy9[9];
    for (int i = 0; i < 9; i++)
        dy9[i] = 1;
    bwd2d(CUDNN_POOLING_MAX, 8, 8, x64, 2, 2, -1, -1, 2, 2, 3, 3, dy9, dx);
    int routed = 1;
    for (int i = 0; i < 64; i++) {
        int r = i / 8, c = i % 8;
        float w = (r % 2 == 0 && c % 2 == 0 && r >= 2 && r <= 6 && c >= 2 && c <= 6) ? 1.0f : 0.0f;
        routed &= dx[i] == w;
    }
    FD_EXPECT(routed, "max bwd with crop: dy must go to x[2oh+2][2ow+2] only");
}

/* Windows, pads and strides near 2^30 on a 1x1x1 input: legal, cheap, and no count overflows
 * (the INCLUDE divisor is 2^90). */
static void test_huge_geometry(void)
{
    const int big = 1 << 30;
    cudnnTensorDescriptor_t xd, yd;
    OK(cudnnCreateTensorDescriptor(&xd));
    OK(cudnnCreateTensorDescriptor(&yd));
    OK(cudnnSetTensorNdDescriptor(xd, CUDNN_DATA_FLOAT, 5, (const int[]){1, 1, 1, 1, 1},
                                  (const int[]){1, 1, 1, 1, 1}));
    OK(cudnnSetTensorNdDescriptor(yd, CUDNN_DATA_FLOAT, 5, (const int[]){1, 1, 2, 2, 2},
                                  (const int[]){8, 8, 4, 2, 1}));
    const cudnnPoolingMode_t modes[3] = {CUDNN_POOLING_MAX,
                                         CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING,
                                         CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING};
    const float last[3] = {5.0f, 5.0f, 5.0f * 0x1p-90f}, first[3] = {-FLT_MAX, 0.0f, 0.0f};
    for (int m = 0; m < 3; m++) {
        cudnnPoolingDescriptor_t pd;
        OK(cudnnCreatePoolingDescriptor(&pd));
        OK(cudnnSetPoolingNdDescriptor(pd, modes[m], CUDNN_NOT_PROPAGATE_NAN, 3,
                                       (const int[]){big, big, big}, (const int[]){big, big, big},
                                       (const int[]){big, big, big}));
        int dims[5];
        OK(cudnnGetPoolingNdForwardOutputDim(pd, xd, 5, dims));
        FD_EXPECT(dims[2] == 2 && dims[3] == 2 && dims[4] == 2, "huge geometry dims %d %d %d",
                  dims[2], dims[3], dims[4]);
        float x = 5.0f, y[8], dy[8] = {1, 1, 1, 1, 1, 1, 1, 2}, dx = -1, one = 1, zero = 0;
        memset(y, 0xFF, sizeof y);
        OK(cudnnPoolingForward(handles[0], pd, &one, xd, &x, &zero, yd, y));
        FD_EXPECT(y[7] == last[m] && y[0] == first[m], "huge geometry mode %d: y[0] %g y[7] %g",
                  (int)modes[m], y[0], y[7]);
        OK(cudnnPoolingBackward(handles[0], pd, &one, yd, y, yd, dy, xd, &x, &zero, xd, &dx));
        FD_EXPECT(dx == (m == 2 ? 2.0f * 0x1p-90f : 2.0f), "huge geometry mode %d: dx %g",
                  (int)modes[m], dx);
        cudnnDestroyPoolingDescriptor(pd);
    }
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
}

/* ---- output dims (contract §1.2.2) ------------------------------------------------------------
 */

static void test_output_dims(void)
{
    cudnnPoolingDescriptor_t pd;
    cudnnTensorDescriptor_t xd;
    OK(cudnnCreatePoolingDescriptor(&pd));
    OK(cudnnCreateTensorDescriptor(&xd));
    OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 8, 8));
    int n, c, h, w;
    OK(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, -1, -1, 2,
                                   2));
    OK(cudnnGetPooling2dForwardOutputDim(pd, xd, &n, &c, &h, &w));
    FD_EXPECT(n == 1 && c == 3 && h == 3 && w == 3, "8x8 2x2/2 pad -1: %dx%dx%dx%d, want 1x3x3x3",
              n, c, h, w);
    OK(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 3, 3, 2,
                                   2));
    OK(cudnnGetPooling2dForwardOutputDim(pd, xd, &n, &c, &h, &w));
    FD_EXPECT(h == 7 && w == 7, "8x8 2x2/2 pad 3: %dx%d, want 7x7", h, w);
    OK(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                   CUDNN_PROPAGATE_NAN, 3, 2, 1, 0, 3, 4));
    OK(cudnnGetPooling2dForwardOutputDim(pd, xd, &n, &c, &h, &w));
    FD_EXPECT(h == 3 && w == 2, "8x8 3x2 pad 1,0 stride 3,4: %dx%d, want 3x2", h, w);
    int dims[5];
    cudnnTensorDescriptor_t x5;
    OK(cudnnCreateTensorDescriptor(&x5));
    OK(cudnnSetTensorNdDescriptor(x5, CUDNN_DATA_HALF, 5, (const int[]){2, 4, 5, 9, 7},
                                  (const int[]){4 * 5 * 9 * 7, 5 * 9 * 7, 9 * 7, 7, 1}));
    OK(cudnnSetPoolingNdDescriptor(pd, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3,
                                   (const int[]){2, 3, 3}, (const int[]){0, 1, 2},
                                   (const int[]){1, 2, 3}));
    OK(cudnnGetPoolingNdForwardOutputDim(pd, x5, 5, dims));
    FD_EXPECT(dims[0] == 2 && dims[1] == 4 && dims[2] == 4 && dims[3] == 5 && dims[4] == 3,
              "3-d output dims %d %d %d %d %d, want 2 4 4 5 3", dims[0], dims[1], dims[2], dims[3],
              dims[4]);
    /* round trip of the descriptor */
    cudnnPoolingMode_t m;
    cudnnNanPropagation_t np;
    int nb, wa[6], pa[6], sa[6];
    OK(cudnnGetPoolingNdDescriptor(pd, 6, &m, &np, &nb, wa, pa, sa));
    FD_EXPECT(m == CUDNN_POOLING_MAX && np == CUDNN_NOT_PROPAGATE_NAN && nb == 3 && wa[2] == 3 &&
                  pa[1] == 1 && sa[2] == 3,
              "Nd descriptor round trip");
    OK(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING,
                                   CUDNN_PROPAGATE_NAN, 5, 4, -1, 7, 2, 3));
    int wh, ww, ph, pw, sh, sw;
    OK(cudnnGetPooling2dDescriptor(pd, &m, &np, &wh, &ww, &ph, &pw, &sh, &sw));
    FD_EXPECT(m == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING && np == CUDNN_PROPAGATE_NAN &&
                  wh == 5 && ww == 4 && ph == -1 && pw == 7 && sh == 2 && sw == 3,
              "2d descriptor round trip");
    cudnnDestroyTensorDescriptor(x5);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyPoolingDescriptor(pd);
}

/* ---- NaN table (contract §1.7) ------------------------------------------------------------ */

/* 2x2 max pool of one window in dtype dt; returns the output's raw bits. */
static uint64_t pool_window_bits(cudnnDataType_t dt, cudnnNanPropagation_t nan, const double *v)
{
    cudnnPoolingDescriptor_t pd;
    cudnnTensorDescriptor_t xd, yd;
    OK(cudnnCreatePoolingDescriptor(&pd));
    OK(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, nan, 2, 2, 0, 0, 2, 2));
    OK(cudnnCreateTensorDescriptor(&xd));
    OK(cudnnCreateTensorDescriptor(&yd));
    OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, dt, 1, 1, 2, 2));
    OK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, dt, 1, 1, 1, 1));
    unsigned char x[32], y[8];
    for (int i = 0; i < 4; i++)
        fd_test_store(dt, x, i, v[i]);
    memset(y, 0xFF, sizeof y);
    double one = 1, zero = 0;
    float onef = 1, zerof = 0;
    const void *a = dt == CUDNN_DATA_DOUBLE ? (const void *)&one : (const void *)&onef;
    const void *b = dt == CUDNN_DATA_DOUBLE ? (const void *)&zero : (const void *)&zerof;
    OK(cudnnPoolingForward(handles[0], pd, a, xd, x, b, yd, y));
    uint64_t bits = 0;
    memcpy(&bits, y, fd_test_dtype_size(dt));
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyPoolingDescriptor(pd);
    return bits;
}

static int bits_are_nan(cudnnDataType_t dt, uint64_t bits)
{
    unsigned char b[8];
    memcpy(b, &bits, 8);
    return isnan(fd_test_load(dt, b, 0));
}

static void test_nan_table(void)
{
    const double mixed[4] = {NAN, -1, 2, -INFINITY}, all_nan[4] = {NAN, NAN, NAN, NAN};
    const cudnnDataType_t dts[4] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                    CUDNN_DATA_BFLOAT16};
    /* -(max finite): f32 0xff7fffff, f64 0xffefffffffffffff, f16 0xfbff, bf16 0xff7f */
    const uint64_t lowest_bits[4] = {0xff7fffffull, 0xffefffffffffffffull, 0xfbffull, 0xff7full};
    const uint64_t two_bits[4] = {0x40000000ull, 0x4000000000000000ull, 0x4000ull, 0x4000ull};
    for (int t = 0; t < 4; t++) {
        cudnnDataType_t dt = dts[t];
        const char *name = fd_test_dtype_short(dt);
        uint64_t b = pool_window_bits(dt, CUDNN_NOT_PROPAGATE_NAN, mixed);
        FD_EXPECT(b == two_bits[t], "%s max [NaN,-1,2,-inf] NOT_PROPAGATE: bits %llx, want 2", name,
                  (unsigned long long)b);
        b = pool_window_bits(dt, CUDNN_PROPAGATE_NAN, mixed);
        FD_EXPECT(bits_are_nan(dt, b), "%s max [NaN,-1,2,-inf] PROPAGATE: bits %llx, want NaN",
                  name, (unsigned long long)b);
        b = pool_window_bits(dt, CUDNN_NOT_PROPAGATE_NAN, all_nan);
        FD_EXPECT(b == lowest_bits[t],
                  "%s max all-NaN NOT_PROPAGATE: bits %llx, want %llx (-max finite)", name,
                  (unsigned long long)b, (unsigned long long)lowest_bits[t]);
        b = pool_window_bits(dt, CUDNN_PROPAGATE_NAN, all_nan);
        FD_EXPECT(bits_are_nan(dt, b), "%s max all-NaN PROPAGATE: bits %llx, want NaN", name,
                  (unsigned long long)b);
        const double all_ninf[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
        b = pool_window_bits(dt, CUDNN_PROPAGATE_NAN, all_ninf);
        FD_EXPECT(b == lowest_bits[t],
                  "%s max all -inf: bits %llx, want -max finite (the start value)", name,
                  (unsigned long long)b);
    }
}

/* One NaN / +inf / -inf at each tap of a 3x3 window (values 1..9 shuffled), both options, all
 * modes, forward and backward. */
static void test_injection(void)
{
    const int base[9] = {4, 9, 2, 3, 5, 7, 8, 1, 6}; /* max 9 at tap 1 */
    const double specials[3] = {NAN, INFINITY, -INFINITY};
    const cudnnPoolingMode_t modes[4] = {CUDNN_POOLING_MAX, CUDNN_POOLING_MAX_DETERMINISTIC,
                                         CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                         CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING};
    for (int m = 0; m < 4; m++)
        for (int prop = 0; prop < 2; prop++)
            for (int sp = 0; sp < 3; sp++)
                for (int at = 0; at < 9; at++) {
                    pcase_t k = {2,      modes[m], prop,   CUDNN_DATA_FLOAT, 1,     1,
                                 {3, 3}, {3, 3},   {0, 0}, {1, 1},           {1, 1}};
                    double x[9], dy[1] = {3}, yold[1] = {0}, dxold[9] = {0};
                    for (int i = 0; i < 9; i++)
                        x[i] = base[i];
                    x[at] = specials[sp];
                    /* the expected values written out, then the oracle cross-checked against them
                     */
                    double want;
                    int route = -1;
                    if (is_max(modes[m])) {
                        if (sp == 0 && prop)
                            want = NAN, route = at;
                        else if (sp == 1)
                            want = INFINITY, route = at;
                        else
                            want = at == 1 ? 8 : 9, route = at == 1 ? 6 : 1;
                    } else {
                        want = sp == 0 ? NAN : specials[sp];
                    }
                    double y[1], yabs[1], dx[9], dxabs[9];
                    int64_t yt[1], dxt[9];
                    oracle_fwd(&k, x, y, yabs, yt);
                    oracle_bwd(&k, x, dy, dx, dxabs, dxt);
                    int oracle_ok = isnan(want) ? isnan(y[0]) : y[0] == want;
                    if (route >= 0)
                        for (int i = 0; i < 9; i++)
                            oracle_ok &= dx[i] == (i == route ? 3 : 0);
                    FD_EXPECT(oracle_ok,
                              "oracle disagrees with the written injection table (mode %d prop %d "
                              "special %g at %d)",
                              (int)modes[m], prop, specials[sp], at);
                    scale_t s = {1, 0};
                    check_case(&k, x, dy, yold, dxold, &s, 1, "inject");
                }
}

/* ---- random sweep ------------------------------------------------------------------------- */

static void random_case(fd_rng_t *r, pcase_t *k, int *ceil_used)
{
    static const cudnnDataType_t dts[4] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                           CUDNN_DATA_BFLOAT16};
    memset(k, 0, sizeof *k);
    k->nsp = fd_rng_int(r, 1, 3);
    k->mode = (cudnnPoolingMode_t)fd_rng_int(r, 0, 3);
    k->prop = fd_rng_int(r, 0, 1);
    k->dt = dts[fd_rng_int(r, 0, 3)];
    k->n = fd_rng_int(r, 1, 2);
    k->c = fd_rng_int(r, 1, 3);
    *ceil_used = 0;
    for (int i = 0; i < k->nsp; i++) {
        int small = k->nsp == 3;
        for (;;) {
            k->in[i] = fd_rng_int(r, 1, small ? 5 : 9);
            k->win[i] = fd_rng_int(r, 1, small ? 3 : 4);
            k->stride[i] = fd_rng_int(r, 1, 3);
            int pick = fd_rng_int(r, 0, 5); /* crop, none, usual, >= window */
            k->pad[i] = pick == 0   ? -1
                        : pick <= 2 ? 0
                        : pick <= 4 ? fd_rng_int(r, 1, k->win[i] - 1 > 0 ? k->win[i] - 1 : 1)
                                    : k->win[i];
            if (k->in[i] + 2 * k->pad[i] >= k->win[i])
                break;
        }
        k->out[i] = out_floor(k->in[i], k->win[i], k->pad[i], k->stride[i]);
        if (fd_rng_int(r, 0, 2) == 0) {
            int oc = out_ceil(k->in[i], k->win[i], k->pad[i], k->stride[i]);
            if (oc > k->out[i]) { /* (with pad >= window the rule can drop a floor window) */
                *ceil_used = 1;
                k->out[i] = oc;
            }
        }
    }
}

/* FLOAT averages at stride 2 (and 3x3 stride 1) on rows long enough for the cpu backend's
 * full 16-lane vectors plus a partial one (NCHW: 13x45 -> 22 or 23 outputs a row) and channels
 * past one 16-lane vector (NHWC lanes along C: C = 19), real fills with every scale: the float
 * window sums of pf_fwd_row_w / pf_fwd_c_rows held to the bound (check_case, all layouts). */
static void test_float_strides(void)
{
    static const struct {
        int win, pad, stride;
    } geo[] = {{2, 0, 2}, {3, 1, 2}, {3, 0, 2}, {3, 1, 1}};
    static const scale_t scales[2] = {{1, 0}, {-2, 0.25}};
    fd_rng_t r;
    fd_rng_seed(&r, 0x5f10a7);
    for (int gi = 0; gi < 4; gi++)
        for (int m = 2; m < 4; m++)
            for (int si = 0; si < 2; si++) {
                pcase_t k = {2, (cudnnPoolingMode_t)m, 0, CUDNN_DATA_FLOAT, 1, si ? 19 : 2,
                             {0}, {0}, {0}, {0}, {0}};
                const int in[2] = {13, 45};
                for (int i = 0; i < 2; i++) {
                    k.in[i] = in[i], k.win[i] = geo[gi].win, k.pad[i] = geo[gi].pad;
                    k.stride[i] = geo[gi].stride;
                    k.out[i] = out_floor(k.in[i], k.win[i], k.pad[i], k.stride[i]);
                }
                int64_t nx = x_count(&k), ny = y_count(&k);
                double *x = malloc(sizeof(double) * (size_t)nx),
                       *dxold = malloc(sizeof(double) * (size_t)nx);
                double *dy = malloc(sizeof(double) * (size_t)ny),
                       *yold = malloc(sizeof(double) * (size_t)ny);
                for (int64_t i = 0; i < nx; i++) {
                    x[i] = fd_test_round(k.dt, -4 + 8 * fd_rng_uniform(&r));
                    dxold[i] = fd_rng_int(&r, -4, 4);
                }
                for (int64_t i = 0; i < ny; i++) {
                    dy[i] = fd_test_round(k.dt, -1 + 2 * fd_rng_uniform(&r));
                    yold[i] = fd_rng_int(&r, -4, 4);
                }
                char tag[64];
                snprintf(tag, sizeof tag, "float strides win %d stride %d c %d", geo[gi].win,
                         geo[gi].stride, k.c);
                check_case(&k, x, dy, yold, dxold, &scales[si], 0, tag);
                free(x), free(dxold), free(dy), free(yold);
            }
}

static void test_sweep(void)
{
    uint64_t master = fd_test_sweep_seed(0x9001);
    int cases = (int)(1000 * fd_test_scale());
    static const scale_t scales[4] = {{1, 0}, {0.5, 0}, {-2, 0.25}, {1, 1}};
    int ceil_cases = 0;
    for (int ci = 0; ci < cases; ci++) {
        uint64_t seed;
        if (!fd_test_seed_forced(&seed))
            seed = fd_test_mix(master, (uint64_t)ci);
        else if (ci > 0)
            break;
        fd_rng_t r;
        fd_rng_seed(&r, seed);
        pcase_t k;
        int ceil_used;
        random_case(&r, &k, &ceil_used);
        ceil_cases += ceil_used;
        int64_t nx = x_count(&k), ny = y_count(&k);
        double *x = malloc(sizeof(double) * (size_t)nx),
               *dxold = malloc(sizeof(double) * (size_t)nx);
        double *dy = malloc(sizeof(double) * (size_t)ny),
               *yold = malloc(sizeof(double) * (size_t)ny);
        int integer = ci % 2 == 0;
        for (int64_t i = 0; i < nx; i++) {
            x[i] = integer ? (fd_rng_uniform(&r) < 0.9 ? fd_rng_int(&r, -8, 8) : 0)
                           : fd_test_round(k.dt, -4 + 8 * fd_rng_uniform(&r));
            dxold[i] = fd_rng_int(&r, -4, 4);
        }
        for (int64_t i = 0; i < ny; i++) {
            dy[i] =
                integer ? fd_rng_int(&r, -4, 4) : fd_test_round(k.dt, -1 + 2 * fd_rng_uniform(&r));
            yold[i] = fd_rng_int(&r, -4, 4);
        }
        const scale_t *s = &scales[fd_rng_int(&r, 0, 3)];
        char tag[64];
        snprintf(tag, sizeof tag, "sweep seed=0x%llx", (unsigned long long)seed);
        check_case(&k, x, dy, yold, dxold, s, integer, tag);
        free(x);
        free(dxold);
        free(dy);
        free(yold);
    }
    FD_EXPECT(cases < 50 || ceil_cases > 0, "the sweep drew no ceil-mode case");
}

/* ---- backward by finite differences and the adjoint identity (double) --------------------------
 */

static void fwd_double(cudnnPoolingDescriptor_t pd, cudnnTensorDescriptor_t xd, const double *x,
                       cudnnTensorDescriptor_t yd, double *y)
{
    double one = 1, zero = 0;
    OK(cudnnPoolingForward(handles[0], pd, &one, xd, x, &zero, yd, y));
}

static void test_gradients(void)
{
    static const struct {
        int nsp, in[3], win[3], pad[3], stride[3];
    } shapes[] = {
        {2, {5, 6}, {3, 2}, {1, 0}, {2, 1}},
        {2, {6, 6}, {2, 2}, {-1, 3}, {2, 2}}, /* crop, and pad >= window */
        {1, {9}, {3}, {2}, {2}},
        {3, {3, 4, 3}, {2, 2, 2}, {0, 1, 1}, {1, 2, 1}},
    };
    const cudnnPoolingMode_t modes[4] = {CUDNN_POOLING_MAX, CUDNN_POOLING_MAX_DETERMINISTIC,
                                         CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                         CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING};
    fd_rng_t r;
    fd_rng_seed(&r, 77);
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (int m = 0; m < 4; m++) {
            pcase_t k = {
                shapes[si].nsp, modes[m], 0, CUDNN_DATA_DOUBLE, 2, 2, {0}, {0}, {0}, {0}, {0}};
            for (int i = 0; i < k.nsp; i++) {
                k.in[i] = shapes[si].in[i], k.win[i] = shapes[si].win[i];
                k.pad[i] = shapes[si].pad[i], k.stride[i] = shapes[si].stride[i];
                k.out[i] = out_floor(k.in[i], k.win[i], k.pad[i], k.stride[i]);
            }
            int nb = k.nsp + 2, xd_[5], yd_[5];
            dims_of(&k, 0, xd_);
            dims_of(&k, 1, yd_);
            tens_t tx, ty;
            tens_make(&tx, CUDNN_DATA_DOUBLE, nb, xd_, L_NCHW);
            tens_make(&ty, CUDNN_DATA_DOUBLE, nb, yd_, L_NCHW);
            int64_t nx = tx.l.count, ny = ty.l.count;
            double *x = malloc(sizeof(double) * (size_t)nx),
                   *dx = malloc(sizeof(double) * (size_t)nx);
            double *dy = malloc(sizeof(double) * (size_t)ny),
                   *y = malloc(sizeof(double) * (size_t)ny);
            double *yp = malloc(sizeof(double) * (size_t)ny),
                   *ym = malloc(sizeof(double) * (size_t)ny);
            /* distinct values (gaps >= 0.05) so a small step never changes an argmax */
            for (int64_t i = 0; i < nx; i++)
                x[i] = (double)((i * 37) % nx) * 0.05 - 1.0 + 1e-3 * fd_rng_uniform(&r);
            for (int64_t i = 0; i < ny; i++)
                dy[i] = -1 + 2 * fd_rng_uniform(&r);
            cudnnPoolingDescriptor_t pd = make_desc(&k);
            fwd_double(pd, tx.desc, x, ty.desc, y);
            double one = 1, zero = 0;
            OK(cudnnPoolingBackward(handles[1], pd, &one, ty.desc, y, ty.desc, dy, tx.desc, x,
                                    &zero, tx.desc, dx));
            const double h = 1e-6;
            int bad = 0;
            for (int64_t i = 0; i < nx; i++) {
                double keep = x[i];
                x[i] = keep + h;
                fwd_double(pd, tx.desc, x, ty.desc, yp);
                x[i] = keep - h;
                fwd_double(pd, tx.desc, x, ty.desc, ym);
                x[i] = keep;
                double g = 0;
                for (int64_t e = 0; e < ny; e++)
                    g += dy[e] * (yp[e] - ym[e]) / (2 * h);
                if (fabs(g - dx[i]) > 1e-7 * (1 + fabs(g))) {
                    bad++;
                    if (bad <= 3 && fd_test_should_print())
                        printf("  fd shape %zu mode %d dx[%lld]: library %.12g, finite differences "
                               "%.12g\n",
                               si, (int)modes[m], (long long)i, dx[i], g);
                }
            }
            FD_EXPECT(bad == 0, "finite differences: %d of %lld gradients off (shape %zu, mode %d)",
                      bad, (long long)nx, si, (int)modes[m]);
            if (!is_max(modes[m])) { /* linear: <dy, P x> = <P^T dy, x> */
                double lhs = 0, rhs = 0;
                for (int64_t e = 0; e < ny; e++)
                    lhs += dy[e] * y[e];
                for (int64_t i = 0; i < nx; i++)
                    rhs += dx[i] * x[i];
                FD_EXPECT(fabs(lhs - rhs) <= 1e-12 * (1 + fabs(lhs)),
                          "adjoint identity: %.17g vs %.17g (shape %zu, "
                          "mode %d)",
                          lhs, rhs, si, (int)modes[m]);
            }
            cudnnDestroyPoolingDescriptor(pd);
            free(x), free(dx), free(dy), free(y), free(yp), free(ym);
            tens_free(&tx);
            tens_free(&ty);
        }
}

int main(void)
{
    OK(freednnCreateWithBackend(&handles[0], FREEDNN_BACKEND_REF));
    OK(freednnCreateWithBackend(&handles[1], FREEDNN_BACKEND_CPU));
    test_hand_cases();
    test_output_dims();
    test_huge_geometry();
    test_nan_table();
    test_injection();
    test_gradients();
    test_float_strides();
    test_sweep();
    cudnnDestroy(handles[0]);
    cudnnDestroy(handles[1]);
    return fd_test_finish();
}
