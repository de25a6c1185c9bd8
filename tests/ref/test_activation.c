/* SPDX-License-Identifier: MIT */
/*
 * test_activation.c - activation forward and backward against an independent oracle.
 *
 * The oracle is written here from the definitions with formulas of its own (sigmoid split by
 * sign, tanh from expm1, explicit case analysis for the NaN options), sharing nothing with
 * src/core/activation.h. The backward oracle takes each mode's documented inputs: SIGMOID and
 * TANH from y, RELU / CLIPPED_RELU / ELU / SWISH from x, IDENTITY dx = dy - and the sweep feeds
 * a y unrelated to x, so using the wrong input shows.
 *
 * Checked: hand-computed values; the NaN table of contract §1.7 (ReLU, clipped ReLU) bit for bit
 * in every type, plus the decided coef = NaN / -1 behaviour; a random sweep (2-d to 8-d shapes,
 * every mode and NaN option, f32/f64/f16/bf16, integer fills compared exactly where the result
 * is exact, real fills under the tolerance), in four layouts plus a mixed one and on the ref and
 * cpu backends with identical bits required (except the cpu's float-polynomial FLOAT modes,
 * cpu_approx: a FLOAT accumulation tolerance, identical bits among the cpu runs), with
 * poisoned outputs, guard zones, holes of padded outputs, unchanged inputs, alpha/beta;
 * in-place forward (x == y) and backward (dx == dy); determinism; every backward mode by
 * central finite differences in double.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_tensor.h"
#include "fd_test.h"

#define OK(expr) FD_EXPECT_STATUS((expr), CUDNN_STATUS_SUCCESS)
#define NMODES 7

static const char *const mode_name[NMODES] = {"sigmoid", "relu",     "tanh", "clipped_relu",
                                              "elu",     "identity", "swish"};

/* ---- tensors in any layout ------------------------------------------------------------------ */

enum { L_NCHW, L_NHWC, L_PADDED, L_REVERSED, L_COUNT };
static const char *const layout_name[L_COUNT + 1] = {"nchw", "nhwc", "padded", "reversed", "mixed"};

typedef struct {
    cudnnDataType_t dt;
    fd_layout_t l;
    fd_buf_t buf;
    cudnnTensorDescriptor_t desc;
} tens_t;

/* padded: NCHW order with a hole after every element and row. */
static void tens_make(tens_t *t, cudnnDataType_t dt, int nb, const int *dim, int layout)
{
    static const int order[L_COUNT] = {FD_ORDER_NCHW, FD_ORDER_NHWC, FD_ORDER_NCHW,
                                       FD_ORDER_REVERSED};
    memset(t, 0, sizeof *t);
    t->dt = dt;
    fd_layout_ordered(&t->l, nb, dim, order[layout], layout == L_PADDED ? 2 : 1,
                      layout == L_PADDED ? 1 : 0);
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
    int mode, prop;
    double coef, swish;
} act_t;

static double o_sigmoid(double x)
{
    if (x >= 0)
        return 1.0 / (1.0 + exp(-x));
    double e = exp(x);
    return e / (1.0 + e);
}

static double o_tanh(double x)
{
    if (isnan(x))
        return x;
    if (fabs(x) > 20)
        return x > 0 ? 1.0 : -1.0;
    double e = expm1(2 * x);
    return e / (e + 2.0);
}

static double o_fwd_value(const act_t *a, double x, double *mag);

/* Forward value and sum |terms| (for the tolerance; NaN terms dropped by a max count 0). */
static double o_fwd(const act_t *a, double x, double *mag)
{
    double v = o_fwd_value(a, x, mag);
    if (isnan(*mag))
        *mag = isnan(v) ? 0.0 : fabs(v);
    return v;
}

static double o_fwd_value(const act_t *a, double x, double *mag)
{
    *mag = fabs(x);
    switch (a->mode) {
    case CUDNN_ACTIVATION_SIGMOID:
        return *mag = o_sigmoid(x);
    case CUDNN_ACTIVATION_RELU:
        if (isnan(x))
            return a->prop ? NAN : 0.0;
        return x <= 0 ? 0.0 : x;
    case CUDNN_ACTIVATION_TANH: {
        double t = o_tanh(x);
        *mag = fabs(t);
        return t;
    }
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        if (a->prop && (isnan(x) || isnan(a->coef)))
            return NAN;
        if (isnan(x) || x <= 0)
            x = 0.0; /* NOT_PROPAGATE: a NaN input is dropped by the max */
        if (!isnan(a->coef) && x > a->coef)
            return a->coef; /* NOT_PROPAGATE: a NaN ceiling is dropped by the min */
        return x;
    case CUDNN_ACTIVATION_ELU:
        if (x > 0)
            return x;
        *mag = fabs(a->coef) * (1 + exp(x));
        return a->coef * expm1(x);
    case CUDNN_ACTIVATION_IDENTITY:
        return x;
    case CUDNN_ACTIVATION_SWISH: {
        double s = a->swish == 0 ? 0.5 : o_sigmoid(a->swish * x);
        if (isinf(x)) /* the limit: x (s = 1) or 0 (s = 0) */
            return s == 0 ? 0.0 : x;
        *mag = fabs(x * s);
        return x * s;
    }
    }
    return NAN;
}

static double o_bwd_value(const act_t *a, double y, double dy, double x, double *mag);

/* dx from the documented inputs, and sum |terms|. */
static double o_bwd(const act_t *a, double y, double dy, double x, double *mag)
{
    double v = o_bwd_value(a, y, dy, x, mag);
    if (isnan(*mag))
        *mag = isnan(v) ? 0.0 : fabs(v);
    return v;
}

static double o_bwd_value(const act_t *a, double y, double dy, double x, double *mag)
{
    *mag = fabs(dy);
    switch (a->mode) {
    case CUDNN_ACTIVATION_SIGMOID:
        *mag = fabs(dy) * (fabs(y) + y * y);
        return dy * (y - y * y);
    case CUDNN_ACTIVATION_TANH:
        *mag = fabs(dy) * (1 + y * y);
        return dy * (1 - y) * (1 + y) + 0.0 * dy;
    case CUDNN_ACTIVATION_RELU:
        if (isnan(x))
            return a->prop ? NAN : 0.0;
        return x > 0 ? dy : 0.0;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        if (a->prop && (isnan(x) || isnan(a->coef)))
            return NAN;
        if (isnan(x) || x <= 0)
            return 0.0;
        if (!isnan(a->coef) && x >= a->coef)
            return 0.0;
        return dy;
    case CUDNN_ACTIVATION_ELU:
        if (x > 0)
            return dy;
        *mag = fabs(dy * a->coef * exp(x));
        return dy * a->coef * exp(x);
    case CUDNN_ACTIVATION_IDENTITY:
        return dy;
    case CUDNN_ACTIVATION_SWISH: {
        double b = a->swish, s = b == 0 ? 0.5 : o_sigmoid(b * x);
        if (isinf(x))
            return dy * s;
        double g = s * (1 + b * x * (1 - s));
        *mag = fabs(dy) * (fabs(s) + fabs(b * x * s * (1 - s))) * 2;
        return dy * g;
    }
    }
    return NAN;
}

/* ---- running the library -------------------------------------------------------------------- */

static cudnnHandle_t handles[2]; /* ref, cpu */

static cudnnActivationDescriptor_t make_desc(const act_t *a)
{
    cudnnActivationDescriptor_t d;
    OK(cudnnCreateActivationDescriptor(&d));
    OK(cudnnSetActivationDescriptor(d, (cudnnActivationMode_t)a->mode,
                                    a->prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                                    a->coef));
    OK(cudnnSetActivationDescriptorSwishBeta(d, a->swish));
    return d;
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

/* The accumulation type the tolerance assumes: DOUBLE (one rounding of an exact value), FLOAT
 * while checking the cpu backend's float-polynomial modes (cpu_approx). */
static cudnnDataType_t cmp_acc = CUDNN_DATA_DOUBLE;

static int compare(const char *what, const char *repro, cudnnDataType_t dt, int64_t count,
                   const double *got, const double *ref, const double *mag, const double *old,
                   const scale_t *s, int exact)
{
    int bad = 0;
    for (int64_t i = 0; i < count; i++) {
        double want = s->alpha * ref[i];
        if (s->beta != 0.0)
            want += s->beta * old[i];
        int ok;
        if (isnan(want) || isnan(got[i]))
            ok = isnan(want) && isnan(got[i]);
        else if (exact || isinf(fd_test_round(dt, want)))
            ok = got[i] == fd_test_round(dt, want);
        else {
            double sum = fabs(s->alpha) * mag[i] + (s->beta != 0.0 ? fabs(s->beta * old[i]) : 0.0);
            ok = fabs(got[i] - want) <= fd_tolerance(dt, cmp_acc, 16, sum, want);
        }
        if (!ok) {
            bad++;
            if (bad <= 3 && fd_test_should_print())
                printf("  %s[%lld]: got %.17g want %.17g (%s)\n", what, (long long)i, got[i], want,
                       repro);
        }
    }
    return bad;
}

typedef struct {
    act_t a;
    cudnnDataType_t dt;
    int nb, dim[8];
    int64_t count;
    const double *x, *y, *dy, *yold, *dxold; /* canonical, as stored */
    const double *fy, *fmag, *bdx, *bmag;    /* oracle */
    scale_t s;
    int exact_fwd, exact_bwd;
    char repro[256];
} job_t;

/* 1 when the cpu backend computes this FLOAT mode with float polynomials (src/cpu/
 * activation_cpu.c: within 4 ulp of the ref, swish backward within 8 * 2^-24 |dy| (s + |bx s
 * (1 - s)|); product decision 2026-11-30): forward SIGMOID / TANH / ELU / SWISH, backward
 * ELU / SWISH. Those cpu results are held to the oracle with a FLOAT accumulation tolerance and
 * compared bit for bit with the other cpu runs only, not with ref. */
static int cpu_approx(const job_t *j, int bwd)
{
    if (j->dt != CUDNN_DATA_FLOAT)
        return 0;
    if (bwd)
        return j->a.mode == CUDNN_ACTIVATION_ELU || j->a.mode == CUDNN_ACTIVATION_SWISH;
    return j->a.mode == CUDNN_ACTIVATION_SIGMOID || j->a.mode == CUDNN_ACTIVATION_TANH ||
           j->a.mode == CUDNN_ACTIVATION_ELU || j->a.mode == CUDNN_ACTIVATION_SWISH;
}

/* Forward and backward in one layout on one backend (inplace: x == y and dx == dy, in one
 * layout); checks everything and returns the canonical bits of y and dx. */
static void run_layout(const job_t *j, int layout, int inplace, int backend, unsigned char *ybits,
                       unsigned char *dxbits)
{
    int lx = layout % L_COUNT, ly = layout == L_COUNT ? L_PADDED : layout;
    int ldy = layout == L_COUNT ? L_NHWC : layout, ldx = layout == L_COUNT ? L_REVERSED : layout;
    int lyin = layout == L_COUNT ? L_NCHW : layout; /* the y given to backward */
    tens_t x, y, yin, dy, dx;
    tens_make(&x, j->dt, j->nb, j->dim, lx);
    tens_make(&y, j->dt, j->nb, j->dim, ly);
    tens_make(&yin, j->dt, j->nb, j->dim, lyin);
    tens_make(&dy, j->dt, j->nb, j->dim, ldy);
    tens_make(&dx, j->dt, j->nb, j->dim, ldx);
    fd_buf_poison(&x.buf);
    fd_buf_poison(&yin.buf);
    fd_buf_poison(&dy.buf);
    fd_buf_poison(&y.buf);
    fd_buf_poison(&dx.buf);
    fd_layout_scatter(&x.l, x.dt, x.buf.data, j->x);
    fd_layout_scatter(&yin.l, yin.dt, yin.buf.data, j->y);
    fd_layout_scatter(&dy.l, dy.dt, dy.buf.data, j->dy);
    if (j->s.beta != 0.0) {
        fd_layout_scatter(&y.l, y.dt, y.buf.data, j->yold);
        fd_layout_scatter(&dx.l, dx.dt, dx.buf.data, j->dxold);
    }
    /* in place: the output is the input buffer, holding the input (which is then "old") */
    tens_t *yout = inplace ? &x : &y, *dxout = inplace ? &dy : &dx;
    unsigned char *ysnap = malloc(yout->buf.size), *dxsnap = malloc(dxout->buf.size);
    memcpy(ysnap, yout->buf.data, yout->buf.size);
    memcpy(dxsnap, dxout->buf.data, dxout->buf.size);
    uint64_t hx = fd_buf_hash(&x.buf), hyin = fd_buf_hash(&yin.buf), hdy = fd_buf_hash(&dy.buf);

    cudnnActivationDescriptor_t ad = make_desc(&j->a);
    double alphad, betad;
    float alphaf, betaf;
    const void *al, *be;
    scale_ptrs(j->dt, &j->s, &alphad, &betad, &alphaf, &betaf, &al, &be);
    cudnnHandle_t h = handles[backend];
    char where[400];
    snprintf(where, sizeof where, "%s layout=%s%s backend=%s", j->repro, layout_name[layout],
             inplace ? " in-place" : "", backend ? "cpu" : "ref");

    double *got = malloc(sizeof(double) * (size_t)j->count);
    /* backward first in the in-place run, since forward in place overwrites x */
    cudnnStatus_t st =
        cudnnActivationBackward(h, ad, al, yin.desc, yin.buf.data, dy.desc, dy.buf.data, x.desc,
                                x.buf.data, be, dxout->desc, dxout->buf.data);
    FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "backward: %s (%s)", cudnnGetErrorString(st), where);
    fd_layout_gather(&dxout->l, dxout->dt, dxout->buf.data, got);
    cmp_acc = backend && cpu_approx(j, 1) ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE;
    int bad = compare("dx", where, j->dt, j->count, got, j->bdx, j->bmag,
                      inplace ? j->dy : j->dxold, &j->s, j->exact_bwd);
    FD_EXPECT(bad == 0, "backward: %d of %lld outputs wrong (%s)", bad, (long long)j->count, where);
    FD_EXPECT(fd_layout_holes_equal(&dxout->l, dxout->dt, dxout->buf.data, dxsnap),
              "backward wrote a hole between elements (%s)", where);
    fd_layout_bits(&dxout->l, dxout->dt, dxout->buf.data, dxbits);

    st = cudnnActivationForward(h, ad, al, x.desc, x.buf.data, be, yout->desc, yout->buf.data);
    FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "forward: %s (%s)", cudnnGetErrorString(st), where);
    fd_layout_gather(&yout->l, yout->dt, yout->buf.data, got);
    cmp_acc = backend && cpu_approx(j, 0) ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE;
    bad = compare("y", where, j->dt, j->count, got, j->fy, j->fmag, inplace ? j->x : j->yold, &j->s,
                  j->exact_fwd);
    FD_EXPECT(bad == 0, "forward: %d of %lld outputs wrong (%s)", bad, (long long)j->count, where);
    FD_EXPECT(fd_layout_holes_equal(&yout->l, yout->dt, yout->buf.data, ysnap),
              "forward wrote a hole between elements (%s)", where);
    fd_layout_bits(&yout->l, yout->dt, yout->buf.data, ybits);

    FD_EXPECT(fd_buf_guards_ok(&x.buf) && fd_buf_guards_ok(&y.buf) && fd_buf_guards_ok(&yin.buf) &&
                  fd_buf_guards_ok(&dy.buf) && fd_buf_guards_ok(&dx.buf),
              "a guard zone was overwritten (%s)", where);
    FD_EXPECT(fd_buf_hash(&yin.buf) == hyin &&
                  (inplace || (fd_buf_hash(&x.buf) == hx && fd_buf_hash(&dy.buf) == hdy)),
              "an input was modified (%s)", where);

    if (!inplace && j->s.beta == 0.0) { /* determinism */
        size_t es = fd_test_dtype_size(j->dt);
        unsigned char *again = malloc((size_t)j->count * es);
        fd_buf_poison(&dx.buf);
        OK(cudnnActivationBackward(h, ad, al, yin.desc, yin.buf.data, dy.desc, dy.buf.data, x.desc,
                                   x.buf.data, be, dx.desc, dx.buf.data));
        fd_layout_bits(&dx.l, dx.dt, dx.buf.data, again);
        FD_EXPECT(memcmp(again, dxbits, (size_t)j->count * es) == 0,
                  "backward not deterministic (%s)", where);
        free(again);
    }
    free(got);
    free(ysnap);
    free(dxsnap);
    cudnnDestroyActivationDescriptor(ad);
    tens_free(&x);
    tens_free(&y);
    tens_free(&yin);
    tens_free(&dy);
    tens_free(&dx);
}

static void run_job(const job_t *j)
{
    size_t bytes = (size_t)j->count * fd_test_dtype_size(j->dt);
    unsigned char *y0 = malloc(bytes), *dx0 = malloc(bytes), *y1 = malloc(bytes),
                  *dx1 = malloc(bytes), *yc = malloc(bytes), *dxc = malloc(bytes);
    int first = 1, first_cpu = 1;
    for (int layout = 0; layout <= L_COUNT; layout++)
        for (int inplace = 0; inplace < (layout == L_COUNT ? 1 : 2); inplace++)
            for (int backend = 0; backend < 2; backend++) {
                run_layout(j, layout, inplace, backend, first ? y0 : y1, first ? dx0 : dx1);
                /* the cpu's float-polynomial modes: the first cpu run (nchw) is their baseline */
                const unsigned char *yb = backend && cpu_approx(j, 0) ? yc : y0;
                const unsigned char *dxb = backend && cpu_approx(j, 1) ? dxc : dx0;
                if (backend && first_cpu) {
                    memcpy(yc, y1, bytes), memcpy(dxc, dx1, bytes);
                    first_cpu = 0;
                }
                /* in place, beta != 0 blends a different "old" value: compare beta = 0 only */
                if (!first && (!inplace || j->s.beta == 0.0))
                    FD_EXPECT(memcmp(yb, y1, bytes) == 0 && memcmp(dxb, dx1, bytes) == 0,
                              "layout %s%s backend %d: bits differ from nchw/ref (%s)",
                              layout_name[layout], inplace ? " in-place" : "", backend, j->repro);
                first = 0;
            }
    free(y0);
    free(dx0);
    free(y1);
    free(dx1);
    free(yc);
    free(dxc);
}

/* ---- hand-computed values and the NaN table ------------------------------------------------ */

/* Applies mode to n float values (forward), returns them in out. */
static void fwd_floats(int mode, int prop, double coef, double swish, const float *in, float *out,
                       int n)
{
    act_t a = {mode, prop, coef, swish};
    cudnnActivationDescriptor_t d = make_desc(&a);
    cudnnTensorDescriptor_t t;
    OK(cudnnCreateTensorDescriptor(&t));
    OK(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, n));
    float one = 1, zero = 0;
    memset(out, 0xFF, sizeof(float) * (size_t)n);
    OK(cudnnActivationForward(handles[0], d, &one, t, in, &zero, t, out));
    cudnnDestroyTensorDescriptor(t);
    cudnnDestroyActivationDescriptor(d);
}

static void bwd_floats(int mode, int prop, double coef, const float *y, const float *dy,
                       const float *x, float *dx, int n)
{
    act_t a = {mode, prop, coef, 1.0};
    cudnnActivationDescriptor_t d = make_desc(&a);
    cudnnTensorDescriptor_t t;
    OK(cudnnCreateTensorDescriptor(&t));
    OK(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, n));
    float one = 1, zero = 0;
    memset(dx, 0xFF, sizeof(float) * (size_t)n);
    OK(cudnnActivationBackward(handles[0], d, &one, t, y, t, dy, t, x, &zero, t, dx));
    cudnnDestroyTensorDescriptor(t);
    cudnnDestroyActivationDescriptor(d);
}

static int same(const float *a, const float *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!(a[i] == b[i] || (isnan(a[i]) && isnan(b[i]))))
            return 0;
    return 1;
}

static void test_hand_cases(void)
{
    const float x[4] = {0.0f, 1.0f, -1.0f, 2.0f};
    float y[4], dx[4];
    fwd_floats(CUDNN_ACTIVATION_SIGMOID, 0, 0, 1, x, y, 4);
    FD_EXPECT(same(y, (const float[]){0.5f, 0.731058598f, 0.268941432f, 0.880797088f}, 4),
              "sigmoid: %.9g %.9g %.9g %.9g", y[0], y[1], y[2], y[3]);
    fwd_floats(CUDNN_ACTIVATION_TANH, 0, 0, 1, x, y, 4);
    FD_EXPECT(same(y, (const float[]){0.0f, 0.761594176f, -0.761594176f, 0.964027584f}, 4),
              "tanh: %.9g %.9g %.9g %.9g", y[0], y[1], y[2], y[3]);
    fwd_floats(CUDNN_ACTIVATION_ELU, 0, 0.5, 1, x, y, 4);
    FD_EXPECT(same(y, (const float[]){0.0f, 1.0f, -0.316060275f, 2.0f}, 4),
              "elu(0.5): %.9g %.9g %.9g %.9g", y[0], y[1], y[2], y[3]);
    fwd_floats(CUDNN_ACTIVATION_SWISH, 0, 0, 1, x, y, 4);
    FD_EXPECT(same(y, (const float[]){0.0f, 0.731058598f, -0.268941432f, 1.76159418f}, 4),
              "swish(1): %.9g %.9g %.9g %.9g", y[0], y[1], y[2], y[3]);
    fwd_floats(CUDNN_ACTIVATION_SWISH, 0, 0, 2, x, y, 4);
    FD_EXPECT(same(y, (const float[]){0.0f, 0.880797088f, -0.119202919f, 1.96402752f}, 4),
              "swish(2): %.9g %.9g %.9g %.9g", y[0], y[1], y[2], y[3]);
    fwd_floats(CUDNN_ACTIVATION_IDENTITY, 0, 0, 1, x, y, 4);
    FD_EXPECT(same(y, x, 4), "identity");
    fwd_floats(CUDNN_ACTIVATION_CLIPPED_RELU, 0, 1.5, 1, x, y, 4);
    FD_EXPECT(same(y, (const float[]){0, 1, 0, 1.5f}, 4), "clipped relu 1.5: %g %g %g %g", y[0],
              y[1], y[2], y[3]);

    /* backward: sigmoid/tanh from y (x deliberately inconsistent), the others from x */
    const float ys[4] = {0.5f, 0.25f, 0.75f, 0.0f}, dys[4] = {4, 4, 4, 4}, xs[4] = {9, 9, 9, 9};
    bwd_floats(CUDNN_ACTIVATION_SIGMOID, 0, 0, ys, dys, xs, dx, 4);
    FD_EXPECT(same(dx, (const float[]){1.0f, 0.75f, 0.75f, 0.0f}, 4),
              "sigmoid bwd from y: %g %g %g %g", dx[0], dx[1], dx[2], dx[3]);
    bwd_floats(CUDNN_ACTIVATION_TANH, 0, 0, ys, dys, xs, dx, 4);
    FD_EXPECT(same(dx, (const float[]){3.0f, 3.75f, 1.75f, 4.0f}, 4),
              "tanh bwd from y: %g %g %g %g", dx[0], dx[1], dx[2], dx[3]);
    const float xr[4] = {0.0f, 1.5f, -1.0f, 1.0f}, yr[4] = {7, 7, 7, 7};
    bwd_floats(CUDNN_ACTIVATION_RELU, 0, 0, yr, dys, xr, dx, 4);
    FD_EXPECT(same(dx, (const float[]){0, 4, 0, 4}, 4), "relu bwd from x (0 at x = 0): %g %g %g %g",
              dx[0], dx[1], dx[2], dx[3]);
    bwd_floats(CUDNN_ACTIVATION_CLIPPED_RELU, 0, 1.5, yr, dys, xr, dx, 4);
    FD_EXPECT(same(dx, (const float[]){0, 0, 0, 4}, 4),
              "clipped relu bwd (0 at x = coef): %g %g %g %g", dx[0], dx[1], dx[2], dx[3]);
    bwd_floats(CUDNN_ACTIVATION_ELU, 0, 2.0, yr, dys, xr, dx, 4);
    FD_EXPECT(same(dx, (const float[]){8.0f, 4.0f, 2.9430356f, 4.0f}, 4),
              "elu bwd from x: %.9g %.9g %.9g %.9g", dx[0], dx[1], dx[2], dx[3]);
    bwd_floats(CUDNN_ACTIVATION_IDENTITY, 0, 0, yr, dys, xr, dx, 4);
    FD_EXPECT(same(dx, dys, 4), "identity bwd is dy");
    bwd_floats(CUDNN_ACTIVATION_SWISH, 0, 0, yr, dys, xr, dx, 4);
    /* swish'(x) = s + x s (1 - s), s = sigmoid(x): 0.5 at 0, 1.0412941 at 1.5, 0.0723295 at -1,
     * 0.9276705 at 1; times dy = 4 */
    FD_EXPECT(same(dx, (const float[]){2.0f, 4.16517639f, 0.289317966f, 3.71068215f}, 4),
              "swish bwd from x: %.9g %.9g %.9g %.9g", dx[0], dx[1], dx[2], dx[3]);
}

static void nan_row(cudnnDataType_t dt, int mode, int prop, double coef, const double *in,
                    const double *want, const char *what)
{
    act_t a = {mode, prop, coef, 1.0};
    cudnnActivationDescriptor_t d = make_desc(&a);
    cudnnTensorDescriptor_t t;
    OK(cudnnCreateTensorDescriptor(&t));
    OK(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, dt, 1, 1, 1, 4));
    unsigned char x[32], y[32], wantb[32];
    for (int i = 0; i < 4; i++) {
        fd_test_store(dt, x, i, in[i]);
        fd_test_store(dt, wantb, i, want[i]);
    }
    memset(y, 0xFF, sizeof y);
    double one = 1, zero = 0;
    float onef = 1, zerof = 0;
    int dbl = dt == CUDNN_DATA_DOUBLE;
    OK(cudnnActivationForward(handles[0], d, dbl ? (void *)&one : (void *)&onef, t, x,
                              dbl ? (void *)&zero : (void *)&zerof, t, y));
    size_t es = fd_test_dtype_size(dt);
    for (int i = 0; i < 4; i++) {
        double g = fd_test_load(dt, y, i);
        int ok = isnan(want[i]) ? isnan(g) : memcmp(y + i * es, wantb + i * es, es) == 0;
        FD_EXPECT(ok, "%s %s [%d]: got %g want %g", fd_test_dtype_short(dt), what, i, g, want[i]);
    }
    cudnnDestroyTensorDescriptor(t);
    cudnnDestroyActivationDescriptor(d);
}

static void test_nan_table(void)
{
    const double in[4] = {NAN, -1, 2, -INFINITY};
    const cudnnDataType_t dts[4] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                    CUDNN_DATA_BFLOAT16};
    for (int t = 0; t < 4; t++) {
        /* contract §1.7, observed on an H200 */
        nan_row(dts[t], CUDNN_ACTIVATION_RELU, 0, 0, in, (const double[]){0, 0, 2, 0},
                "relu NOT_PROPAGATE");
        nan_row(dts[t], CUDNN_ACTIVATION_RELU, 1, 0, in, (const double[]){NAN, 0, 2, 0},
                "relu PROPAGATE");
        nan_row(dts[t], CUDNN_ACTIVATION_CLIPPED_RELU, 0, 1.5, in, (const double[]){0, 0, 1.5, 0},
                "clipped(1.5) NOT_PROPAGATE");
        nan_row(dts[t], CUDNN_ACTIVATION_CLIPPED_RELU, 1, 1.5, in, (const double[]){NAN, 0, 1.5, 0},
                "clipped(1.5) PROPAGATE");
        /* decided: coef NaN (accepted like 9.19) clips nothing without propagation, gives NaN with
         */
        const double in2[4] = {NAN, -1, 2, INFINITY};
        nan_row(dts[t], CUDNN_ACTIVATION_CLIPPED_RELU, 0, NAN, in2,
                (const double[]){0, 0, 2, INFINITY}, "clipped(NaN) NOT_PROPAGATE");
        nan_row(dts[t], CUDNN_ACTIVATION_CLIPPED_RELU, 1, NAN, in2,
                (const double[]){NAN, NAN, NAN, NAN}, "clipped(NaN) PROPAGATE");
        nan_row(dts[t], CUDNN_ACTIVATION_CLIPPED_RELU, 0, -1, in2, (const double[]){-1, -1, -1, -1},
                "clipped(-1) NOT_PROPAGATE");
        /* other modes carry NaN whatever the option */
        nan_row(dts[t], CUDNN_ACTIVATION_SIGMOID, 0, 0, in,
                (const double[]){NAN, o_sigmoid(-1), o_sigmoid(2), 0}, "sigmoid");
        nan_row(dts[t], CUDNN_ACTIVATION_TANH, 0, 0, in2,
                (const double[]){NAN, tanh(-1), tanh(2), 1}, "tanh");
        nan_row(dts[t], CUDNN_ACTIVATION_ELU, 0, 1, in, (const double[]){NAN, expm1(-1), 2, -1},
                "elu");
        nan_row(dts[t], CUDNN_ACTIVATION_SWISH, 0, 0, in2,
                (const double[]){NAN, -o_sigmoid(-1), 2 * o_sigmoid(2), INFINITY}, "swish");
        nan_row(dts[t], CUDNN_ACTIVATION_SWISH, 0, 0, in,
                (const double[]){NAN, -o_sigmoid(-1), 2 * o_sigmoid(2), 0}, "swish -inf");
    }
}

/* ---- random sweep ------------------------------------------------------------------------- */

static void test_sweep(void)
{
    static const cudnnDataType_t dts[4] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                           CUDNN_DATA_BFLOAT16};
    static const scale_t scales[4] = {{1, 0}, {0.5, 0}, {-2, 0.25}, {1, 1}};
    uint64_t master = fd_test_sweep_seed(0xAC71);
    int cases = (int)(800 * fd_test_scale());
    for (int ci = 0; ci < cases; ci++) {
        uint64_t seed;
        if (!fd_test_seed_forced(&seed))
            seed = fd_test_mix(master, (uint64_t)ci);
        else if (ci > 0)
            break;
        fd_rng_t r;
        fd_rng_seed(&r, seed);
        job_t j;
        memset(&j, 0, sizeof j);
        j.a.mode = fd_rng_int(&r, 0, NMODES - 1);
        j.a.prop = fd_rng_int(&r, 0, 1);
        int cpick = fd_rng_int(&r, 0, 9);
        j.a.coef = cpick == 0 ? NAN : cpick == 1 ? -1.0 : fd_rng_int(&r, 1, 6) * 0.5;
        j.a.swish = fd_rng_int(&r, -4, 8) * 0.25;
        j.dt = dts[fd_rng_int(&r, 0, 3)];
        j.nb = fd_rng_int(&r, 0, 15) == 0 ? 8 : fd_rng_int(&r, 2, 5);
        j.count = 1;
        for (int d = 0; d < j.nb; d++) {
            j.dim[d] = fd_rng_int(&r, 1, j.nb > 5 ? 2 : 5);
            j.count *= j.dim[d];
        }
        int integer = fd_rng_int(&r, 0, 1);
        size_t n = (size_t)j.count;
        double *buf = malloc(sizeof(double) * n * 9);
        double *x = buf, *y = buf + n, *dy = buf + 2 * n, *yold = buf + 3 * n, *dxold = buf + 4 * n;
        double *fy = buf + 5 * n, *fmag = buf + 6 * n, *bdx = buf + 7 * n, *bmag = buf + 8 * n;
        for (size_t i = 0; i < n; i++) {
            double special = fd_rng_uniform(&r);
            x[i] =
                integer ? fd_rng_int(&r, -6, 6) : fd_test_round(j.dt, -6 + 12 * fd_rng_uniform(&r));
            if (special < 0.03)
                x[i] = special < 0.01 ? NAN : special < 0.02 ? INFINITY : -INFINITY;
            /* a y unrelated to x (in [-1, 1]): the backward must use the documented input */
            y[i] = integer ? fd_rng_int(&r, -4, 4) * 0.25
                           : fd_test_round(j.dt, -1 + 2 * fd_rng_uniform(&r));
            dy[i] =
                integer ? fd_rng_int(&r, -4, 4) : fd_test_round(j.dt, -2 + 4 * fd_rng_uniform(&r));
            yold[i] = fd_rng_int(&r, -3, 3);
            dxold[i] = fd_rng_int(&r, -3, 3);
            fy[i] = o_fwd(&j.a, x[i], &fmag[i]);
            bdx[i] = o_bwd(&j.a, y[i], dy[i], x[i], &bmag[i]);
        }
        /* exact: the result is an input, a coef or an exact product of them */
        int m = j.a.mode;
        int exact_coef = isnan(j.a.coef) || j.a.coef == -1.0 || j.a.coef == floor(j.a.coef * 2) / 2;
        j.exact_fwd = integer && (m == CUDNN_ACTIVATION_RELU || m == CUDNN_ACTIVATION_IDENTITY ||
                                  (m == CUDNN_ACTIVATION_CLIPPED_RELU && exact_coef));
        j.exact_bwd = integer && (m == CUDNN_ACTIVATION_RELU || m == CUDNN_ACTIVATION_IDENTITY ||
                                  m == CUDNN_ACTIVATION_CLIPPED_RELU ||
                                  m == CUDNN_ACTIVATION_SIGMOID || m == CUDNN_ACTIVATION_TANH);
        j.x = x, j.y = y, j.dy = dy, j.yold = yold, j.dxold = dxold;
        j.fy = fy, j.fmag = fmag, j.bdx = bdx, j.bmag = bmag;
        j.s = scales[fd_rng_int(&r, 0, 3)];
        int len = snprintf(j.repro, sizeof j.repro,
                           "sweep seed=0x%llx %s prop=%d coef=%g swish=%g dt=%s dims",
                           (unsigned long long)seed, mode_name[m], j.a.prop, j.a.coef, j.a.swish,
                           fd_test_dtype_short(j.dt));
        for (int d = 0; d < j.nb; d++)
            len += snprintf(j.repro + len, sizeof j.repro - (size_t)len, "%s%d", d ? "x" : " ",
                            j.dim[d]);
        snprintf(j.repro + len, sizeof j.repro - (size_t)len, " alpha=%g beta=%g", j.s.alpha,
                 j.s.beta);
        run_job(&j);
        free(buf);
    }
}

/* ---- every backward mode by central finite differences (double) ------------------------------ */

static void test_gradients(void)
{
    const int n = 64;
    cudnnTensorDescriptor_t t;
    OK(cudnnCreateTensorDescriptor(&t));
    OK(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_DOUBLE, 3, (const int[]){2, 4, 8},
                                  (const int[]){32, 8, 1}));
    double x[64], y[64], dy[64], dx[64], xp[64], xm[64], yp[64], ym[64], one = 1, zero = 0;
    fd_rng_t r;
    fd_rng_seed(&r, 5);
    for (int i = 0; i < n; i++) {
        /* away from the kinks at 0 and at the clipping ceiling 2.5 */
        double v = 0.1 + 4.4 * fd_rng_uniform(&r);
        x[i] = (i % 2 ? -v : v);
        if (fabs(x[i] - 2.5) < 0.05)
            x[i] += 0.2;
        dy[i] = -1 + 2 * fd_rng_uniform(&r);
    }
    const act_t acts[] = {
        {CUDNN_ACTIVATION_SIGMOID, 0, 0, 1}, {CUDNN_ACTIVATION_RELU, 0, 0, 1},
        {CUDNN_ACTIVATION_TANH, 0, 0, 1},    {CUDNN_ACTIVATION_CLIPPED_RELU, 1, 2.5, 1},
        {CUDNN_ACTIVATION_ELU, 0, 0.7, 1},   {CUDNN_ACTIVATION_IDENTITY, 0, 0, 1},
        {CUDNN_ACTIVATION_SWISH, 0, 0, 1.5}, {CUDNN_ACTIVATION_SWISH, 0, 0, -0.75},
        {CUDNN_ACTIVATION_ELU, 1, 2.0, 1}};
    for (size_t ai = 0; ai < sizeof acts / sizeof acts[0]; ai++) {
        cudnnActivationDescriptor_t d = make_desc(&acts[ai]);
        OK(cudnnActivationForward(handles[0], d, &one, t, x, &zero, t, y));
        OK(cudnnActivationBackward(handles[1], d, &one, t, y, t, dy, t, x, &zero, t, dx));
        const double h = 1e-6;
        for (int i = 0; i < n; i++) {
            xp[i] = x[i] + h;
            xm[i] = x[i] - h;
        }
        OK(cudnnActivationForward(handles[0], d, &one, t, xp, &zero, t, yp));
        OK(cudnnActivationForward(handles[0], d, &one, t, xm, &zero, t, ym));
        int bad = 0;
        for (int i = 0; i < n; i++) {
            double g = dy[i] * (yp[i] - ym[i]) / (2 * h);
            if (fabs(g - dx[i]) > 1e-7 * (1 + fabs(g))) {
                bad++;
                if (bad <= 3 && fd_test_should_print())
                    printf("  %s dx[%d] at x=%g: library %.12g, finite differences %.12g\n",
                           mode_name[acts[ai].mode], i, x[i], dx[i], g);
            }
        }
        FD_EXPECT(bad == 0,
                  "%s (coef %g, swish %g): %d of %d gradients disagree with finite differences",
                  mode_name[acts[ai].mode], acts[ai].coef, acts[ai].swish, bad, n);
        cudnnDestroyActivationDescriptor(d);
    }
    cudnnDestroyTensorDescriptor(t);
}

/* The descriptor round trip, and swish beta independent of the mode setter. */
static void test_descriptor(void)
{
    cudnnActivationDescriptor_t d;
    OK(cudnnCreateActivationDescriptor(&d));
    double beta = 0;
    OK(cudnnGetActivationDescriptorSwishBeta(d, &beta));
    FD_EXPECT(beta == 1.0, "default swish beta %g, want 1", beta);
    OK(cudnnSetActivationDescriptorSwishBeta(d, 0.375));
    OK(cudnnSetActivationDescriptor(d, CUDNN_ACTIVATION_ELU, CUDNN_PROPAGATE_NAN, -2.5));
    cudnnActivationMode_t m;
    cudnnNanPropagation_t np;
    double coef;
    OK(cudnnGetActivationDescriptor(d, &m, &np, &coef));
    OK(cudnnGetActivationDescriptorSwishBeta(d, &beta));
    FD_EXPECT(m == CUDNN_ACTIVATION_ELU && np == CUDNN_PROPAGATE_NAN && coef == -2.5 &&
                  beta == 0.375,
              "round trip: mode %d nan %d coef %g beta %g", (int)m, (int)np, coef, beta);
    OK(cudnnSetActivationDescriptor(d, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_NOT_PROPAGATE_NAN,
                                    NAN));
    OK(cudnnGetActivationDescriptor(d, &m, &np, &coef));
    FD_EXPECT(m == CUDNN_ACTIVATION_CLIPPED_RELU && isnan(coef), "coef NaN is kept");
    OK(cudnnDestroyActivationDescriptor(d));
}

int main(void)
{
    OK(freednnCreateWithBackend(&handles[0], FREEDNN_BACKEND_REF));
    OK(freednnCreateWithBackend(&handles[1], FREEDNN_BACKEND_CPU));
    test_descriptor();
    test_hand_cases();
    test_nan_table();
    test_gradients();
    test_sweep();
    cudnnDestroy(handles[0]);
    cudnnDestroy(handles[1]);
    return fd_test_finish();
}
