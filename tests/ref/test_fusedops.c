/* SPDX-License-Identifier: MIT */
/*
 * test_fusedops.c - the fused-ops API (cudnnFusedOps*): pack round trips for every label of
 * every op, then each of the seven sequences against
 *   - an oracle written here from the definitions (dense NCHW loops in double), exact on
 *     integer data, with hand-computed cases whose numbers are written below;
 *   - the equivalent sequence of classic calls (activation, convolution, conv-bias-activation,
 *     batch norm forward / inference / backward) run through the same library;
 * and the harness invariants: outputs poisoned before each run, guards of every buffer and of
 * the exact-size workspace intact, inputs unchanged, holes of padded outputs untouched,
 * NCHW / NHWC / padded layouts and the ref / cpu backends giving identical bits, re-runs
 * identical. The bitmask layout checked is the one documented in src/core/fusedops.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_test.h"

#define F32 CUDNN_DATA_FLOAT
#define F16 CUDNN_DATA_HALF
#define OK CUDNN_STATUS_SUCCESS

static cudnnHandle_t H_REF, H_CPU;

/* ---- tensors in any layout ------------------------------------------------------------------ */

enum { LAY_NCHW, LAY_NHWC, LAY_NCHW_PAD, LAY_NHWC_PAD, LAY_COUNT };
static const char *const lay_names[LAY_COUNT] = {"nchw", "nhwc", "nchw-padded", "nhwc-padded"};

typedef struct {
    cudnnDataType_t dt;
    int n, c, h, w;
    int s[4];
    int64_t extent;
    cudnnTensorDescriptor_t d;
} tens_t;

static void tens_make(tens_t *t, cudnnDataType_t dt, int n, int c, int h, int w, int layout)
{
    memset(t, 0, sizeof *t);
    t->dt = dt, t->n = n, t->c = c, t->h = h, t->w = w;
    int *s = t->s;
    switch (layout) {
    case LAY_NCHW:
        s[3] = 1, s[2] = w, s[1] = h * w, s[0] = c * h * w;
        break;
    case LAY_NHWC:
        s[1] = 1, s[3] = c, s[2] = w * c, s[0] = h * w * c;
        break;
    case LAY_NCHW_PAD:
        s[3] = 1, s[2] = w + 3, s[1] = (h + 1) * s[2], s[0] = (c + 2) * s[1];
        break;
    default:
        s[1] = 1, s[3] = c + 1, s[2] = (w + 2) * s[3], s[0] = (h + 1) * s[2];
        break;
    }
    t->extent = 1 + (int64_t)(n - 1) * s[0] + (int64_t)(c - 1) * s[1] + (int64_t)(h - 1) * s[2] +
                (int64_t)(w - 1) * s[3];
    cudnnCreateTensorDescriptor(&t->d);
    FD_EXPECT_STATUS(cudnnSetTensor4dDescriptorEx(t->d, dt, n, c, h, w, s[0], s[1], s[2], s[3]), OK);
}

static void tens_free(tens_t *t)
{
    cudnnDestroyTensorDescriptor(t->d);
}

static size_t tens_bytes(const tens_t *t)
{
    return (size_t)t->extent * fd_test_dtype_size(t->dt);
}

static int64_t tens_count(const tens_t *t)
{
    return (int64_t)t->n * t->c * t->h * t->w;
}

static int64_t tens_off(const tens_t *t, int n, int c, int h, int w)
{
    return (int64_t)n * t->s[0] + (int64_t)c * t->s[1] + (int64_t)h * t->s[2] + (int64_t)w * t->s[3];
}

/* canonical (dense NCHW, double) <-> buffer */
static void tens_put(const tens_t *t, void *buf, const double *v)
{
    int64_t i = 0;
    for (int n = 0; n < t->n; n++)
        for (int c = 0; c < t->c; c++)
            for (int h = 0; h < t->h; h++)
                for (int w = 0; w < t->w; w++)
                    fd_test_store(t->dt, buf, tens_off(t, n, c, h, w), v[i++]);
}

static void tens_get(const tens_t *t, const void *buf, double *v)
{
    int64_t i = 0;
    for (int n = 0; n < t->n; n++)
        for (int c = 0; c < t->c; c++)
            for (int h = 0; h < t->h; h++)
                for (int w = 0; w < t->w; w++)
                    v[i++] = fd_test_load(t->dt, buf, tens_off(t, n, c, h, w));
}

/* 1 when every element the tensor does not address still holds the 0xFF poison */
static int tens_holes_ok(const tens_t *t, const void *buf)
{
    char *mark = calloc((size_t)t->extent, 1);
    for (int n = 0; n < t->n; n++)
        for (int c = 0; c < t->c; c++)
            for (int h = 0; h < t->h; h++)
                for (int w = 0; w < t->w; w++)
                    mark[tens_off(t, n, c, h, w)] = 1;
    size_t es = fd_test_dtype_size(t->dt);
    int ok = 1;
    for (int64_t e = 0; e < t->extent && ok; e++)
        if (!mark[e])
            for (size_t b = 0; b < es; b++)
                ok &= ((const unsigned char *)buf)[(size_t)e * es + b] == 0xFF;
    free(mark);
    return ok;
}

typedef struct {
    cudnnDataType_t dt;
    int k, c, r, s, nhwc;
    cudnnFilterDescriptor_t d;
} filt_t;

static void filt_make(filt_t *f, cudnnDataType_t dt, int k, int c, int r, int s, int nhwc)
{
    f->dt = dt, f->k = k, f->c = c, f->r = r, f->s = s, f->nhwc = nhwc;
    cudnnCreateFilterDescriptor(&f->d);
    FD_EXPECT_STATUS(cudnnSetFilter4dDescriptor(f->d, dt, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, k, c, r, s), OK);
}

static int64_t filt_off(const filt_t *f, int k, int c, int r, int s)
{
    return f->nhwc ? (((int64_t)k * f->r + r) * f->s + s) * f->c + c : (((int64_t)k * f->c + c) * f->r + r) * f->s + s;
}

static size_t filt_bytes(const filt_t *f)
{
    return (size_t)f->k * f->c * f->r * f->s * fd_test_dtype_size(f->dt);
}

static void filt_put(const filt_t *f, void *buf, const double *v)
{
    int64_t i = 0;
    for (int k = 0; k < f->k; k++)
        for (int c = 0; c < f->c; c++)
            for (int r = 0; r < f->r; r++)
                for (int s = 0; s < f->s; s++)
                    fd_test_store(f->dt, buf, filt_off(f, k, c, r, s), v[i++]);
}

static void filt_get(const filt_t *f, const void *buf, double *v)
{
    int64_t i = 0;
    for (int k = 0; k < f->k; k++)
        for (int c = 0; c < f->c; c++)
            for (int r = 0; r < f->r; r++)
                for (int s = 0; s < f->s; s++)
                    v[i++] = fd_test_load(f->dt, buf, filt_off(f, k, c, r, s));
}

static double *dalloc(int64_t n)
{
    return calloc((size_t)(n > 0 ? n : 1), sizeof(double));
}

static void fill_ints(fd_rng_t *r, double *v, int64_t n, int lo, int hi)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = fd_rng_int(r, lo, hi);
}

static void fill_reals(fd_rng_t *r, cudnnDataType_t dt, double *v, int64_t n, double lo, double hi)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = fd_test_round(dt, lo + (hi - lo) * fd_rng_uniform(r));
}

static int same_bits(const double *a, const double *b, int64_t n)
{
    return memcmp(a, b, sizeof(double) * (size_t)n) == 0;
}

/* first index where |a - b| > tol_rel * (|b| + mag) + 1e-30, or -1 */
static int64_t first_far(const double *a, const double *b, int64_t n, double tol_rel, double mag)
{
    for (int64_t i = 0; i < n; i++)
        if (!(fabs(a[i] - b[i]) <= tol_rel * (fabs(b[i]) + mag) + 1e-30))
            return i;
    return -1;
}

/* ---- a plan and its buffers --------------------------------------------------------------- */

enum { R_NONE, R_IN, R_OUT, R_INOUT };
#define NPTR 24

typedef struct {
    cudnnFusedOps_t op;
    cudnnFusedOpsConstParamPack_t k;
    cudnnFusedOpsPlan_t plan;
    fd_buf_t b[NPTR];
    int role[NPTR];
    size_t ws;
    int has_acc, has_eps, has_factor;
    int64_t acc;
    double eps, factor;
    const char *what; /* the case, for failure lines */
} fx_t;

static void fx_begin(fx_t *f, cudnnFusedOps_t op, const char *what)
{
    memset(f, 0, sizeof *f);
    f->op = op;
    f->what = what;
    FD_EXPECT_STATUS(cudnnCreateFusedOpsConstParamPack(&f->k, op), OK);
    FD_EXPECT_STATUS(cudnnCreateFusedOpsPlan(&f->plan, op), OK);
}

static void fx_desc(fx_t *f, cudnnFusedOpsConstParamLabel_t label, const void *desc)
{
    FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(f->k, label, desc), OK);
}

static void fx_mode(fx_t *f, cudnnBatchNormMode_t mode)
{
    FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(f->k, CUDNN_PARAM_BN_MODE, &mode), OK);
}

/* Promises the pointer (16-byte aligned) and allocates its guarded, poisoned buffer. */
static void *fx_buf(fx_t *f, cudnnFusedOpsConstParamLabel_t ph, cudnnFusedOpsVariantParamLabel_t ptr, size_t bytes,
                    int role)
{
    cudnnFusedOpsPointerPlaceHolder_t v = CUDNN_PTR_16B_ALIGNED;
    FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(f->k, ph, &v), OK);
    f->b[ptr] = fd_buf_alloc(bytes);
    fd_buf_poison(&f->b[ptr]);
    f->role[ptr] = role;
    return f->b[ptr].data;
}

static cudnnStatus_t fx_make(fx_t *f, cudnnHandle_t h)
{
    size_t ws = 777;
    cudnnStatus_t st = cudnnMakeFusedOpsPlan(h, f->plan, f->k, &ws);
    if (st == OK)
        f->ws = ws;
    else
        FD_EXPECT(ws == 777, "%s: a rejected plan wrote its workspace size", f->what);
    return st;
}

/* Executes with an exact-size guarded workspace; checks guards and unchanged inputs. */
static cudnnStatus_t fx_exec(fx_t *f, cudnnHandle_t h)
{
    cudnnFusedOpsVariantParamPack_t v;
    FD_EXPECT_STATUS(cudnnCreateFusedOpsVariantParamPack(&v, f->op), OK);
    uint64_t hash[NPTR] = {0};
    for (int l = 0; l < NPTR; l++) {
        if (f->role[l] == R_NONE)
            continue;
        FD_EXPECT_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(v, (cudnnFusedOpsVariantParamLabel_t)l, f->b[l].data), OK);
        if (f->role[l] == R_OUT)
            fd_buf_poison(&f->b[l]);
        hash[l] = fd_buf_hash(&f->b[l]);
    }
    fd_buf_t ws = fd_buf_alloc(f->ws ? f->ws : 1);
    fd_buf_poison(&ws);
    if (f->ws)
        FD_EXPECT_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_PTR_WORKSPACE, ws.data), OK);
    size_t wsz = f->ws;
    FD_EXPECT_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &wsz), OK);
    if (f->has_acc)
        FD_EXPECT_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &f->acc), OK);
    if (f->has_eps)
        FD_EXPECT_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &f->eps), OK);
    if (f->has_factor)
        FD_EXPECT_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR, &f->factor), OK);
    cudnnStatus_t st = cudnnFusedOpsExecute(h, f->plan, v);
    for (int l = 0; l < NPTR; l++) {
        if (f->role[l] == R_NONE)
            continue;
        FD_EXPECT(fd_buf_guards_ok(&f->b[l]), "%s: guard of pointer label %d damaged", f->what, l);
        if (f->role[l] == R_IN || st != OK)
            FD_EXPECT(fd_buf_hash(&f->b[l]) == hash[l], "%s: buffer of pointer label %d changed%s", f->what, l,
                      f->role[l] == R_IN ? " (an input)" : " by a rejected call");
    }
    FD_EXPECT(fd_buf_guards_ok(&ws), "%s: workspace guard damaged (%zu bytes)", f->what, f->ws);
    fd_buf_free(&ws);
    cudnnDestroyFusedOpsVariantParamPack(v);
    return st;
}

static void fx_end(fx_t *f)
{
    for (int l = 0; l < NPTR; l++)
        if (f->role[l] != R_NONE)
            fd_buf_free(&f->b[l]);
    cudnnDestroyFusedOpsConstParamPack(f->k);
    cudnnDestroyFusedOpsPlan(f->plan);
}

static cudnnActivationDescriptor_t make_act(cudnnActivationMode_t mode, double coef)
{
    cudnnActivationDescriptor_t a;
    cudnnCreateActivationDescriptor(&a);
    FD_EXPECT_STATUS(cudnnSetActivationDescriptor(a, mode, CUDNN_NOT_PROPAGATE_NAN, coef), OK);
    return a;
}

static cudnnConvolutionDescriptor_t make_conv(int pad, int stride, int xcorr, cudnnDataType_t dt)
{
    cudnnConvolutionDescriptor_t c;
    cudnnCreateConvolutionDescriptor(&c);
    (void)dt;
    FD_EXPECT_STATUS(cudnnSetConvolution2dDescriptor(c, pad, pad, stride, stride, 1, 1,
                                                     xcorr ? CUDNN_CROSS_CORRELATION : CUDNN_CONVOLUTION, F32),
                     OK);
    return c;
}

static int out_dim(int in, int f, int pad, int stride)
{
    return 1 + (in + 2 * pad - f) / stride;
}

static double relu(double v)
{
    return v > 0 ? v : 0;
}

/* Dense NCHW cross-correlation / convolution of t (N C H W) with w (K C R S) at (n, k, p, q). */
typedef struct {
    int n, c, h, w, k, r, s, pad, stride, xcorr, p, q;
} geo_t;

static double conv_at(const geo_t *g, const double *t, const double *w, int n, int k, int p, int q)
{
    double acc = 0;
    for (int c = 0; c < g->c; c++)
        for (int r = 0; r < g->r; r++)
            for (int s = 0; s < g->s; s++) {
                int ih = p * g->stride - g->pad + r, iw = q * g->stride - g->pad + s;
                if (ih < 0 || ih >= g->h || iw < 0 || iw >= g->w)
                    continue;
                int rr = g->xcorr ? r : g->r - 1 - r, ss = g->xcorr ? s : g->s - 1 - s;
                acc += t[((n * g->c + c) * g->h + ih) * g->w + iw] * w[((k * g->c + c) * g->r + rr) * g->s + ss];
            }
    return acc;
}

static void geo_random(fd_rng_t *r, geo_t *g)
{
    g->n = fd_rng_int(r, 1, 2), g->c = fd_rng_int(r, 1, 5), g->h = fd_rng_int(r, 3, 6), g->w = fd_rng_int(r, 3, 6);
    g->k = fd_rng_int(r, 1, 4), g->r = fd_rng_int(r, 1, 3), g->s = fd_rng_int(r, 1, 3);
    g->pad = fd_rng_int(r, 0, 1), g->stride = fd_rng_int(r, 1, 2), g->xcorr = fd_rng_int(r, 0, 1);
    g->p = out_dim(g->h, g->r, g->pad, g->stride), g->q = out_dim(g->w, g->s, g->pad, g->stride);
}

/* ---- 1. pack round trips ---------------------------------------------------------------------- */

/* The labels of each op, as documented in src/core/fusedops.h / src/api/fusedops.c. */
static const int op0_labels[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 18, -1};
static const int op1_labels[] = {0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 14, 15, -1};
static const int op2_labels[] = {2, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 3, 4, 5, -1};
static const int op3_labels[] = {2, 19, 20, 21, 24, 25, 3, 4, 5, -1};
static const int op4_labels[] = {0, 1, 2, 7, 8, 9, 3, 4, 5, 26, 27, 6, 12, 13, -1};
static const int op5_labels[] = {0, 1, 2, 3, 4, 5, 26, 27, 28, 29, 30, 6, 12, 13, 31, 32, -1};
static const int op6_labels[] = {2, 0, 1, 14, 15, 6, 31, 32, 19, 20, 21, 22, 23, 33, 34, 35, 36, 37, 38, -1};
static const int *const op_label_lists[7] = {op0_labels, op1_labels, op2_labels, op3_labels,
                                             op4_labels, op5_labels, op6_labels};
static const int op_scalar_mask[7] = {1, 1, 15, 9, 1, 1, 9}; /* bit i: label 100 + i */

static int in_list(const int *list, int v)
{
    for (; *list >= 0; list++)
        if (*list == v)
            return 1;
    return 0;
}

/* placeholder label -> variant pointer label */
static int ptr_of(int label)
{
    static const int map[39] = {-1, 0, -1, -1, 1, 2, -1, -1, -1, 3, -1, 4, -1, 5, -1, 6, -1, 7, 8, -1,
                                10, 11, 12, 13, 14, 15, -1, 16, -1, 17, 18, -1, 19, -1, 20, -1, 21, 22, 23};
    return map[label];
}

static int is_desc_label(int l)
{
    return l == 0 || l == 3 || l == 6 || l == 7 || l == 8 || l == 10 || l == 12 || l == 14 || l == 16 || l == 19 ||
           l == 26 || l == 28 || l == 31 || l == 33 || l == 35;
}

static void test_pack_round_trips(void)
{
    cudnnTensorDescriptor_t t, tget;
    cudnnFilterDescriptor_t w, wget;
    cudnnConvolutionDescriptor_t cv = make_conv(1, 2, 1, F32), cvget;
    cudnnActivationDescriptor_t act = make_act(CUDNN_ACTIVATION_CLIPPED_RELU, 6.0), actget;
    cudnnCreateTensorDescriptor(&t), cudnnCreateTensorDescriptor(&tget);
    cudnnCreateFilterDescriptor(&w), cudnnCreateFilterDescriptor(&wget);
    cudnnCreateConvolutionDescriptor(&cvget), cudnnCreateActivationDescriptor(&actget);
    cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NHWC, F16, 2, 3, 4, 5);
    cudnnSetFilter4dDescriptor(w, F16, CUDNN_TENSOR_NHWC, 6, 3, 3, 1);
    int checked = 0;
    for (int op = 0; op < 7; op++) {
        cudnnFusedOpsConstParamPack_t k;
        FD_EXPECT_STATUS(cudnnCreateFusedOpsConstParamPack(&k, (cudnnFusedOps_t)op), OK);
        for (int l = 0; l < 39; l++) {
            cudnnFusedOpsConstParamLabel_t label = (cudnnFusedOpsConstParamLabel_t)l;
            int isnull = 42;
            int member = in_list(op_label_lists[op], l);
            const void *setp;
            void *getp;
            cudnnFusedOpsPointerPlaceHolder_t phv = CUDNN_PTR_ELEM_ALIGNED, phget = (cudnnFusedOpsPointerPlaceHolder_t)9;
            cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL_PERSISTENT, modeget = (cudnnBatchNormMode_t)9;
            if (l == 7)
                setp = cv, getp = cvget;
            else if (l == 6)
                setp = act, getp = actget;
            else if (l == 8 || l == 10)
                setp = w, getp = wget;
            else if (is_desc_label(l))
                setp = t, getp = tget;
            else if (l == 2)
                setp = &mode, getp = &modeget;
            else
                setp = &phv, getp = &phget;
            if (!member) {
                FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(k, label, setp), CUDNN_STATUS_BAD_PARAM);
                FD_EXPECT_STATUS(cudnnGetFusedOpsConstParamPackAttribute(k, label, getp, &isnull), CUDNN_STATUS_BAD_PARAM);
                FD_EXPECT(isnull == 42, "op %d label %d: a refused get wrote isNULL", op, l);
                continue;
            }
            /* never set: isNULL = 1 and param untouched */
            FD_EXPECT_STATUS(cudnnGetFusedOpsConstParamPackAttribute(k, label, getp, &isnull), OK);
            FD_EXPECT(isnull == 1, "op %d label %d: isNULL %d before any set", op, l, isnull);
            FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(k, label, setp), OK);
            FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(k, label, NULL), CUDNN_STATUS_BAD_PARAM);
            FD_EXPECT_STATUS(cudnnGetFusedOpsConstParamPackAttribute(k, label, getp, &isnull), OK);
            FD_EXPECT(isnull == 0, "op %d label %d: isNULL %d after a set", op, l, isnull);
            checked++;
            if (l == 7) {
                int ph_, pw, u, v, dh, dw;
                cudnnConvolutionMode_t m;
                cudnnDataType_t ct;
                FD_EXPECT_STATUS(cudnnGetConvolution2dDescriptor(cvget, &ph_, &pw, &u, &v, &dh, &dw, &m, &ct), OK);
                FD_EXPECT(ph_ == 1 && pw == 1 && u == 2 && v == 2 && dh == 1 && m == CUDNN_CROSS_CORRELATION,
                          "op %d: CONV_DESC read back as pad %d stride %d mode %d", op, ph_, u, (int)m);
            } else if (l == 6) {
                cudnnActivationMode_t m;
                cudnnNanPropagation_t nan;
                double coef;
                FD_EXPECT_STATUS(cudnnGetActivationDescriptor(actget, &m, &nan, &coef), OK);
                FD_EXPECT(m == CUDNN_ACTIVATION_CLIPPED_RELU && coef == 6.0, "op %d: ACTIVATION_DESC read back %d %g", op,
                          (int)m, coef);
            } else if (l == 8 || l == 10) {
                cudnnDataType_t dt;
                cudnnTensorFormat_t fmt;
                int kk, cc, rr, ss;
                FD_EXPECT_STATUS(cudnnGetFilter4dDescriptor(wget, &dt, &fmt, &kk, &cc, &rr, &ss), OK);
                FD_EXPECT(dt == F16 && fmt == CUDNN_TENSOR_NHWC && kk == 6 && cc == 3 && rr == 3 && ss == 1,
                          "op %d label %d: filter read back %d %d %dx%dx%dx%d", op, l, (int)dt, (int)fmt, kk, cc, rr, ss);
            } else if (is_desc_label(l)) {
                cudnnDataType_t dt;
                int n, c, hh, ww, sn, sc, sh, sw;
                FD_EXPECT_STATUS(cudnnGetTensor4dDescriptor(tget, &dt, &n, &c, &hh, &ww, &sn, &sc, &sh, &sw), OK);
                FD_EXPECT(dt == F16 && n == 2 && c == 3 && hh == 4 && ww == 5 && sc == 1 && sw == 3 && sh == 15 && sn == 60,
                          "op %d label %d: tensor read back %d %dx%dx%dx%d / %d,%d,%d,%d", op, l, (int)dt, n, c, hh, ww,
                          sn, sc, sh, sw);
                cudnnSetTensor4dDescriptor(tget, CUDNN_TENSOR_NCHW, F32, 1, 1, 1, 1); /* next read must refill */
            } else if (l == 2) {
                FD_EXPECT(modeget == CUDNN_BATCHNORM_SPATIAL_PERSISTENT, "op %d: BN_MODE read back %d", op, (int)modeget);
                modeget = (cudnnBatchNormMode_t)9;
            } else {
                FD_EXPECT(phget == CUDNN_PTR_ELEM_ALIGNED, "op %d label %d: placeholder read back %d", op, l, (int)phget);
                /* overwrite with another value and read again */
                cudnnFusedOpsPointerPlaceHolder_t v2 = CUDNN_PTR_NULL;
                FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(k, label, &v2), OK);
                FD_EXPECT_STATUS(cudnnGetFusedOpsConstParamPackAttribute(k, label, &phget, &isnull), OK);
                FD_EXPECT(phget == CUDNN_PTR_NULL && isnull == 0, "op %d label %d: second placeholder read %d", op, l,
                          (int)phget);
                FD_EXPECT(ptr_of(l) >= 0, "op %d label %d: placeholder without a pointer", op, l);
            }
        }
        cudnnDestroyFusedOpsConstParamPack(k);

        /* variant pack: pointers of the op's placeholders, the workspace and its scalars */
        cudnnFusedOpsVariantParamPack_t v;
        FD_EXPECT_STATUS(cudnnCreateFusedOpsVariantParamPack(&v, (cudnnFusedOps_t)op), OK);
        for (int l = 0; l < 24; l++) {
            int member = l == 9;
            for (const int *p = op_label_lists[op]; *p >= 0; p++)
                member |= ptr_of(*p) == l;
            void *want = (void *)(uintptr_t)(4096 * (l + 1)), *got = (void *)1;
            cudnnStatus_t st = cudnnSetFusedOpsVariantParamPackAttribute(v, (cudnnFusedOpsVariantParamLabel_t)l, want);
            FD_EXPECT(st == (member ? OK : CUDNN_STATUS_BAD_PARAM), "op %d pointer label %d: set gave %s", op, l,
                      cudnnGetErrorString(st));
            st = cudnnGetFusedOpsVariantParamPackAttribute(v, (cudnnFusedOpsVariantParamLabel_t)l, &got);
            FD_EXPECT(st == (member ? OK : CUDNN_STATUS_BAD_PARAM) && (!member || got == want),
                      "op %d pointer label %d: get gave %s, %p", op, l, cudnnGetErrorString(st), got);
            checked += member;
        }
        for (int i = 0; i < 4; i++) {
            int member = (op_scalar_mask[op] >> i) & 1;
            cudnnFusedOpsVariantParamLabel_t label = (cudnnFusedOpsVariantParamLabel_t)(100 + i);
            size_t zs = 123456789, zg = 0;
            int64_t ns = -5, ng = 0;
            double ds = 0.125 * (i + 1), dg = 0;
            void *sp = i == 0 ? (void *)&zs : i == 1 ? (void *)&ns : (void *)&ds;
            void *gp = i == 0 ? (void *)&zg : i == 1 ? (void *)&ng : (void *)&dg;
            FD_EXPECT_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(v, label, sp), member ? OK : CUDNN_STATUS_BAD_PARAM);
            FD_EXPECT_STATUS(cudnnGetFusedOpsVariantParamPackAttribute(v, label, gp), member ? OK : CUDNN_STATUS_BAD_PARAM);
            if (member) {
                FD_EXPECT(i == 0 ? zg == zs : i == 1 ? ng == ns : dg == ds, "op %d scalar %d did not round-trip", op, 100 + i);
                checked++;
            }
        }
        cudnnDestroyFusedOpsVariantParamPack(v);
    }
    printf("pack round trips: %d attributes\n", checked);
    cudnnDestroyTensorDescriptor(t), cudnnDestroyTensorDescriptor(tget);
    cudnnDestroyFilterDescriptor(w), cudnnDestroyFilterDescriptor(wget);
    cudnnDestroyConvolutionDescriptor(cv), cudnnDestroyConvolutionDescriptor(cvget);
    cudnnDestroyActivationDescriptor(act), cudnnDestroyActivationDescriptor(actget);
}

/* Descriptors stored by handle are read when the plan is made: changing one afterwards, or
 * destroying it, does not change the made plan. */
static void test_descriptor_lifetime(void);

/* ---- 2. op 0: scale, bias, activation, conv, statistics ------------------------------------- */

typedef struct {
    geo_t g;
    cudnnDataType_t dt, eqdt;
    int scale, bias, act, ysum, ysq;
    double *x, *w, *sc, *bi; /* canonical inputs */
} c0_t;

static void c0_random(fd_rng_t *r, c0_t *c, int real)
{
    memset(c, 0, sizeof *c);
    geo_random(r, &c->g);
    c->dt = fd_rng_int(r, 0, 1) ? F16 : F32;
    c->eqdt = fd_rng_int(r, 0, 1) ? F16 : F32;
    c->scale = fd_rng_int(r, 0, 1), c->bias = fd_rng_int(r, 0, 1), c->act = fd_rng_int(r, 0, 1);
    c->ysum = fd_rng_int(r, 0, 1), c->ysq = fd_rng_int(r, 0, 1);
    const geo_t *g = &c->g;
    int64_t nx = (int64_t)g->n * g->c * g->h * g->w, nw = (int64_t)g->k * g->c * g->r * g->s;
    c->x = dalloc(nx), c->w = dalloc(nw), c->sc = dalloc(g->c), c->bi = dalloc(g->c);
    if (real) {
        fill_reals(r, c->dt, c->x, nx, -1, 1), fill_reals(r, c->dt, c->w, nw, -1, 1);
        fill_reals(r, c->eqdt, c->sc, g->c, -2, 2), fill_reals(r, c->eqdt, c->bi, g->c, -1, 1);
    } else {
        fill_ints(r, c->x, nx, -3, 3), fill_ints(r, c->w, nw, -2, 2);
        fill_ints(r, c->sc, g->c, -2, 2), fill_ints(r, c->bi, g->c, -2, 2);
    }
}

static void c0_free(c0_t *c)
{
    free(c->x), free(c->w), free(c->sc), free(c->bi);
}

/* t = act(scale x + bias) rounded to x's type, dense NCHW */
static double *transform_oracle(const geo_t *g, cudnnDataType_t dt, const double *x, const double *sc,
                                const double *bi, int scale, int bias, int act)
{
    int64_t nx = (int64_t)g->n * g->c * g->h * g->w;
    double *t = dalloc(nx);
    for (int64_t i = 0; i < nx; i++) {
        int c = (int)((i / ((int64_t)g->h * g->w)) % g->c);
        double v = x[i];
        if (scale)
            v *= sc[c];
        if (bias)
            v += bi[c];
        t[i] = fd_test_round(dt, act ? relu(v) : v);
    }
    return t;
}

static void c0_oracle(const c0_t *c, double *y, double *sum, double *sq)
{
    const geo_t *g = &c->g;
    double *t = transform_oracle(g, c->dt, c->x, c->sc, c->bi, c->scale, c->bias, c->act);
    for (int k = 0; k < g->k; k++) {
        double s = 0, q = 0;
        for (int n = 0; n < g->n; n++)
            for (int p = 0; p < g->p; p++)
                for (int qq = 0; qq < g->q; qq++) {
                    double v = fd_test_round(c->dt, conv_at(g, t, c->w, n, k, p, qq));
                    y[((n * g->k + k) * g->p + p) * g->q + qq] = v;
                    s += v, q += v * v;
                }
        sum[k] = fd_test_round(F32, s), sq[k] = fd_test_round(F32, q);
    }
    free(t);
}

/* Runs op 0 through the fused API; canonical outputs; returns the status. */
static cudnnStatus_t c0_run(const c0_t *c, cudnnHandle_t h, int layout, double *y, double *sum, double *sq,
                            size_t *ws_out)
{
    const geo_t *g = &c->g;
    tens_t x, yt, eq, st;
    filt_t w;
    tens_make(&x, c->dt, g->n, g->c, g->h, g->w, layout);
    tens_make(&yt, c->dt, g->n, g->k, g->p, g->q, layout);
    tens_make(&eq, c->eqdt, 1, g->c, 1, 1, LAY_NCHW);
    tens_make(&st, F32, 1, g->k, 1, 1, LAY_NCHW);
    filt_make(&w, c->dt, g->k, g->c, g->r, g->s, layout == LAY_NHWC || layout == LAY_NHWC_PAD);
    cudnnConvolutionDescriptor_t cv = make_conv(g->pad, g->stride, g->xcorr, c->dt);
    cudnnActivationDescriptor_t act = make_act(CUDNN_ACTIVATION_RELU, 0);
    fx_t f;
    fx_begin(&f, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS, "op 0");
    fx_mode(&f, CUDNN_BATCHNORM_SPATIAL_PERSISTENT);
    fx_desc(&f, CUDNN_PARAM_XDESC, x.d), fx_desc(&f, CUDNN_PARAM_WDESC, w.d), fx_desc(&f, CUDNN_PARAM_CONV_DESC, cv);
    fx_desc(&f, CUDNN_PARAM_YDESC, yt.d);
    tens_put(&x, fx_buf(&f, CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, tens_bytes(&x), R_IN), c->x);
    filt_put(&w, fx_buf(&f, CUDNN_PARAM_WDATA_PLACEHOLDER, CUDNN_PTR_WDATA, filt_bytes(&w), R_IN), c->w);
    fx_buf(&f, CUDNN_PARAM_YDATA_PLACEHOLDER, CUDNN_PTR_YDATA, tens_bytes(&yt), R_OUT);
    if (c->scale || c->bias)
        fx_desc(&f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eq.d);
    if (c->scale)
        tens_put(&eq, fx_buf(&f, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, tens_bytes(&eq), R_IN), c->sc);
    if (c->bias)
        tens_put(&eq, fx_buf(&f, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, tens_bytes(&eq), R_IN), c->bi);
    if (c->act)
        fx_desc(&f, CUDNN_PARAM_ACTIVATION_DESC, act);
    if (c->ysum || c->ysq)
        fx_desc(&f, CUDNN_PARAM_YSTATS_DESC, st.d);
    if (c->ysum)
        fx_buf(&f, CUDNN_PARAM_YSUM_PLACEHOLDER, CUDNN_PTR_YSUM, tens_bytes(&st), R_OUT);
    if (c->ysq)
        fx_buf(&f, CUDNN_PARAM_YSQSUM_PLACEHOLDER, CUDNN_PTR_YSQSUM, tens_bytes(&st), R_OUT);
    cudnnStatus_t s = fx_make(&f, h);
    if (s == OK) {
        *ws_out = f.ws;
        s = fx_exec(&f, h);
    }
    if (s == OK) {
        tens_get(&yt, f.b[CUDNN_PTR_YDATA].data, y);
        FD_EXPECT(tens_holes_ok(&yt, f.b[CUDNN_PTR_YDATA].data), "op 0 (%s): a hole of y was written", lay_names[layout]);
        if (c->ysum)
            tens_get(&st, f.b[CUDNN_PTR_YSUM].data, sum);
        if (c->ysq)
            tens_get(&st, f.b[CUDNN_PTR_YSQSUM].data, sq);
    }
    fx_end(&f);
    tens_free(&x), tens_free(&yt), tens_free(&eq), tens_free(&st);
    cudnnDestroyFilterDescriptor(w.d);
    cudnnDestroyConvolutionDescriptor(cv);
    cudnnDestroyActivationDescriptor(act);
    return s;
}

/* The classic sequence: scale/bias by loops, cudnnActivationForward, cudnnConvolutionForward,
 * sums by loops. Returns canonical y and sums. */
static void c0_classic(const c0_t *c, double *y, double *sum, double *sq)
{
    const geo_t *g = &c->g;
    tens_t x, yt;
    filt_t w;
    tens_make(&x, c->dt, g->n, g->c, g->h, g->w, LAY_NCHW);
    tens_make(&yt, c->dt, g->n, g->k, g->p, g->q, LAY_NCHW);
    filt_make(&w, c->dt, g->k, g->c, g->r, g->s, 0);
    int64_t nx = tens_count(&x);
    double *pre = dalloc(nx);
    for (int64_t i = 0; i < nx; i++) {
        int ch = (int)((i / ((int64_t)g->h * g->w)) % g->c);
        pre[i] = c->x[i] * (c->scale ? c->sc[ch] : 1.0) + (c->bias ? c->bi[ch] : 0.0);
    }
    void *tb = calloc(1, tens_bytes(&x)), *t2 = calloc(1, tens_bytes(&x)), *wb = calloc(1, filt_bytes(&w));
    void *yb = calloc(1, tens_bytes(&yt));
    tens_put(&x, tb, pre);
    filt_put(&w, wb, c->w);
    float one = 1, zero = 0;
    if (c->act) {
        cudnnActivationDescriptor_t a = make_act(CUDNN_ACTIVATION_RELU, 0);
        FD_EXPECT_STATUS(cudnnActivationForward(H_REF, a, &one, x.d, tb, &zero, x.d, t2), OK);
        memcpy(tb, t2, tens_bytes(&x));
        cudnnDestroyActivationDescriptor(a);
    }
    cudnnConvolutionDescriptor_t cv = make_conv(g->pad, g->stride, g->xcorr, c->dt);
    FD_EXPECT_STATUS(cudnnConvolutionForward(H_REF, &one, x.d, tb, w.d, wb, cv, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                                             NULL, 0, &zero, yt.d, yb),
                     OK);
    tens_get(&yt, yb, y);
    for (int k = 0; k < g->k; k++) {
        double s = 0, q = 0;
        for (int n = 0; n < g->n; n++)
            for (int i = 0; i < g->p * g->q; i++) {
                double v = y[(n * g->k + k) * g->p * g->q + i];
                s += v, q += v * v;
            }
        sum[k] = fd_test_round(F32, s), sq[k] = fd_test_round(F32, q);
    }
    free(pre), free(tb), free(t2), free(wb), free(yb);
    tens_free(&x), tens_free(&yt);
    cudnnDestroyFilterDescriptor(w.d);
    cudnnDestroyConvolutionDescriptor(cv);
}

static void test_op0(void)
{
    fd_rng_t r;
    fd_rng_seed(&r, fd_test_sweep_seed(0xF0));
    int cases = (int)(48 * fd_test_scale());
    for (int i = 0; i < cases; i++) {
        c0_t c;
        int real = i % 4 == 3;
        c0_random(&r, &c, real);
        const geo_t *g = &c.g;
        int64_t ny = (int64_t)g->n * g->k * g->p * g->q;
        double *y = dalloc(ny), *yo = dalloc(ny), *y2 = dalloc(ny);
        double *s = dalloc(g->k), *so = dalloc(g->k), *s2 = dalloc(g->k);
        double *q = dalloc(g->k), *qo = dalloc(g->k), *q2 = dalloc(g->k);
        char what[200];
        snprintf(what, sizeof what, "op 0 case %d: %s n%dc%dh%dw%d k%dr%ds%d p%d u%d %s scale %d bias %d act %d eq %s%s", i,
                 fd_test_dtype_short(c.dt), g->n, g->c, g->h, g->w, g->k, g->r, g->s, g->pad, g->stride,
                 g->xcorr ? "xcorr" : "conv", c.scale, c.bias, c.act, fd_test_dtype_short(c.eqdt), real ? " real" : "");
        size_t ws = 0;
        int layout = i % LAY_COUNT;
        FD_EXPECT_STATUS(c0_run(&c, H_REF, layout, y, s, q, &ws), OK);
        int transform = c.scale || c.bias || c.act;
        size_t want_ws = transform ? (size_t)(g->n * g->c * g->h * g->w) * fd_test_dtype_size(c.dt) : 0;
        FD_EXPECT(ws == want_ws, "%s: workspace %zu, want %zu", what, ws, want_ws);
        c0_oracle(&c, yo, so, qo);
        c0_classic(&c, y2, s2, q2);
        if (!real) {
            FD_EXPECT(same_bits(y, yo, ny), "%s: y differs from the oracle", what);
            FD_EXPECT(!c.ysum || same_bits(s, so, g->k), "%s: ySum differs from the oracle", what);
            FD_EXPECT(!c.ysq || same_bits(q, qo, g->k), "%s: ySqSum differs from the oracle", what);
        } else {
            int64_t at = first_far(y, yo, ny, 4 * fd_unit_roundoff(c.dt), 1e-3 * g->c * g->r * g->s);
            FD_EXPECT(at < 0, "%s: y[%lld] %g, oracle %g", what, (long long)at, at < 0 ? 0 : y[at], at < 0 ? 0 : yo[at]);
        }
        /* the classic sequence stores t and y as the fused op does: identical bits */
        FD_EXPECT(same_bits(y, y2, ny), "%s: y differs from activation + convolution", what);
        FD_EXPECT(!c.ysum || same_bits(s, s2, g->k), "%s: ySum differs from the sums of the classic y", what);
        FD_EXPECT(!c.ysq || same_bits(q, q2, g->k), "%s: ySqSum differs from the classic y", what);
        if (real || i < 4) { /* layouts, backends and re-runs give identical bits */
            for (int lay = 0; lay < LAY_COUNT; lay++) {
                FD_EXPECT_STATUS(c0_run(&c, lay % 2 ? H_CPU : H_REF, lay, y2, s2, q2, &ws), OK);
                FD_EXPECT(same_bits(y, y2, ny) && (!c.ysum || same_bits(s, s2, g->k)) &&
                              (!c.ysq || same_bits(q, q2, g->k)),
                          "%s: layout %s / backend %s differs", what, lay_names[lay], lay % 2 ? "cpu" : "ref");
            }
        }
        free(y), free(yo), free(y2), free(s), free(so), free(s2), free(q), free(qo), free(q2);
        c0_free(&c);
    }

    /* hand case: x = [1 0 -1 3] (1x1x2x2), scale 2, bias -1, ReLU -> t = [1 0 0 5];
     * w = 2 (1x1 filter) -> y = [2 0 0 10], ySum 12, ySqSum 104 */
    c0_t c;
    memset(&c, 0, sizeof c);
    c.g = (geo_t){1, 1, 2, 2, 1, 1, 1, 0, 1, 1, 2, 2};
    c.dt = F16, c.eqdt = F32, c.scale = c.bias = c.act = c.ysum = c.ysq = 1;
    double x[4] = {1, 0, -1, 3}, w[1] = {2}, sc[1] = {2}, bi[1] = {-1};
    c.x = x, c.w = w, c.sc = sc, c.bi = bi;
    double y[4], s[1], q[1];
    size_t ws;
    FD_EXPECT_STATUS(c0_run(&c, H_REF, LAY_NHWC, y, s, q, &ws), OK);
    FD_EXPECT(y[0] == 2 && y[1] == 0 && y[2] == 0 && y[3] == 10 && s[0] == 12 && q[0] == 104,
              "op 0 hand case: y = %g %g %g %g, sum %g, sqsum %g (want 2 0 0 10, 12, 104)", y[0], y[1], y[2], y[3], s[0],
              q[0]);
    FD_EXPECT(ws == 4 * 2, "op 0 hand case: workspace %zu, want 8 (t in half)", ws);
}

/* ---- 3. op 1: scale, bias, activation, then the filter gradient ---------------------------- */

static void c1_oracle(const c0_t *c, const double *dy, double *dw)
{
    const geo_t *g = &c->g;
    double *t = transform_oracle(g, c->dt, c->x, c->sc, c->bi, c->scale, c->bias, c->act);
    for (int k = 0; k < g->k; k++)
        for (int ch = 0; ch < g->c; ch++)
            for (int rr = 0; rr < g->r; rr++)
                for (int ss = 0; ss < g->s; ss++) {
                    int r0 = g->xcorr ? rr : g->r - 1 - rr, s0 = g->xcorr ? ss : g->s - 1 - ss; /* the tap */
                    double acc = 0;
                    for (int n = 0; n < g->n; n++)
                        for (int p = 0; p < g->p; p++)
                            for (int q = 0; q < g->q; q++) {
                                int ih = p * g->stride - g->pad + r0, iw = q * g->stride - g->pad + s0;
                                if (ih < 0 || ih >= g->h || iw < 0 || iw >= g->w)
                                    continue;
                                acc += t[((n * g->c + ch) * g->h + ih) * g->w + iw] * dy[((n * g->k + k) * g->p + p) * g->q + q];
                            }
                    dw[((k * g->c + ch) * g->r + rr) * g->s + ss] = fd_test_round(c->dt, acc);
                }
    free(t);
}

static cudnnStatus_t c1_run(const c0_t *c, const double *dyv, cudnnHandle_t h, int layout, double *dw, size_t *ws_out)
{
    const geo_t *g = &c->g;
    tens_t x, dy, eq;
    filt_t w;
    tens_make(&x, c->dt, g->n, g->c, g->h, g->w, layout);
    tens_make(&dy, c->dt, g->n, g->k, g->p, g->q, layout);
    tens_make(&eq, c->eqdt, 1, g->c, 1, 1, LAY_NCHW);
    filt_make(&w, c->dt, g->k, g->c, g->r, g->s, layout == LAY_NHWC || layout == LAY_NHWC_PAD);
    cudnnConvolutionDescriptor_t cv = make_conv(g->pad, g->stride, g->xcorr, c->dt);
    cudnnActivationDescriptor_t act = make_act(CUDNN_ACTIVATION_RELU, 0);
    fx_t f;
    fx_begin(&f, CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD, "op 1");
    fx_desc(&f, CUDNN_PARAM_XDESC, x.d), fx_desc(&f, CUDNN_PARAM_DWDESC, w.d), fx_desc(&f, CUDNN_PARAM_CONV_DESC, cv);
    fx_desc(&f, CUDNN_PARAM_DYDESC, dy.d);
    tens_put(&x, fx_buf(&f, CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, tens_bytes(&x), R_IN), c->x);
    tens_put(&dy, fx_buf(&f, CUDNN_PARAM_DYDATA_PLACEHOLDER, CUDNN_PTR_DYDATA, tens_bytes(&dy), R_IN), dyv);
    fx_buf(&f, CUDNN_PARAM_DWDATA_PLACEHOLDER, CUDNN_PTR_DWDATA, filt_bytes(&w), R_OUT);
    if (c->scale || c->bias)
        fx_desc(&f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eq.d);
    if (c->scale)
        tens_put(&eq, fx_buf(&f, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, tens_bytes(&eq), R_IN), c->sc);
    if (c->bias)
        tens_put(&eq, fx_buf(&f, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, tens_bytes(&eq), R_IN), c->bi);
    if (c->act)
        fx_desc(&f, CUDNN_PARAM_ACTIVATION_DESC, act);
    cudnnStatus_t s = fx_make(&f, h);
    if (s == OK) {
        *ws_out = f.ws;
        s = fx_exec(&f, h);
    }
    if (s == OK)
        filt_get(&w, f.b[CUDNN_PTR_DWDATA].data, dw);
    fx_end(&f);
    tens_free(&x), tens_free(&dy), tens_free(&eq);
    cudnnDestroyFilterDescriptor(w.d);
    cudnnDestroyConvolutionDescriptor(cv);
    cudnnDestroyActivationDescriptor(act);
    return s;
}

/* classic: scale/bias loops, cudnnActivationForward, cudnnConvolutionBackwardFilter */
static void c1_classic(const c0_t *c, const double *dyv, double *dw)
{
    const geo_t *g = &c->g;
    tens_t x, dy;
    filt_t w;
    tens_make(&x, c->dt, g->n, g->c, g->h, g->w, LAY_NCHW);
    tens_make(&dy, c->dt, g->n, g->k, g->p, g->q, LAY_NCHW);
    filt_make(&w, c->dt, g->k, g->c, g->r, g->s, 0);
    int64_t nx = tens_count(&x);
    double *pre = dalloc(nx);
    for (int64_t i = 0; i < nx; i++) {
        int ch = (int)((i / ((int64_t)g->h * g->w)) % g->c);
        pre[i] = c->x[i] * (c->scale ? c->sc[ch] : 1.0) + (c->bias ? c->bi[ch] : 0.0);
    }
    void *tb = calloc(1, tens_bytes(&x)), *t2 = calloc(1, tens_bytes(&x)), *wb = calloc(1, filt_bytes(&w));
    void *dyb = calloc(1, tens_bytes(&dy));
    tens_put(&x, tb, pre);
    tens_put(&dy, dyb, dyv);
    float one = 1, zero = 0;
    if (c->act) {
        cudnnActivationDescriptor_t a = make_act(CUDNN_ACTIVATION_RELU, 0);
        FD_EXPECT_STATUS(cudnnActivationForward(H_REF, a, &one, x.d, tb, &zero, x.d, t2), OK);
        memcpy(tb, t2, tens_bytes(&x));
        cudnnDestroyActivationDescriptor(a);
    }
    cudnnConvolutionDescriptor_t cv = make_conv(g->pad, g->stride, g->xcorr, c->dt);
    FD_EXPECT_STATUS(cudnnConvolutionBackwardFilter(H_REF, &one, x.d, tb, dy.d, dyb, cv, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1,
                                                    NULL, 0, &zero, w.d, wb),
                     OK);
    filt_get(&w, wb, dw);
    free(pre), free(tb), free(t2), free(wb), free(dyb);
    tens_free(&x), tens_free(&dy);
    cudnnDestroyFilterDescriptor(w.d);
    cudnnDestroyConvolutionDescriptor(cv);
}

static void test_op1(void)
{
    fd_rng_t r;
    fd_rng_seed(&r, fd_test_sweep_seed(0xF1));
    int cases = (int)(40 * fd_test_scale());
    for (int i = 0; i < cases; i++) {
        c0_t c;
        int real = i % 4 == 3;
        c0_random(&r, &c, real);
        const geo_t *g = &c.g;
        int64_t ndy = (int64_t)g->n * g->k * g->p * g->q, nw = (int64_t)g->k * g->c * g->r * g->s;
        double *dy = dalloc(ndy), *dw = dalloc(nw), *dwo = dalloc(nw), *dw2 = dalloc(nw);
        if (real)
            fill_reals(&r, c.dt, dy, ndy, -1, 1);
        else
            fill_ints(&r, dy, ndy, -2, 2);
        char what[160];
        snprintf(what, sizeof what, "op 1 case %d: %s n%dc%dh%dw%d k%dr%ds%d p%d u%d scale %d bias %d act %d%s", i,
                 fd_test_dtype_short(c.dt), g->n, g->c, g->h, g->w, g->k, g->r, g->s, g->pad, g->stride, c.scale, c.bias,
                 c.act, real ? " real" : "");
        size_t ws = 0;
        FD_EXPECT_STATUS(c1_run(&c, dy, H_REF, i % LAY_COUNT, dw, &ws), OK);
        c1_oracle(&c, dy, dwo);
        c1_classic(&c, dy, dw2);
        if (!real)
            FD_EXPECT(same_bits(dw, dwo, nw), "%s: dw differs from the oracle", what);
        else {
            int64_t at = first_far(dw, dwo, nw, 4 * fd_unit_roundoff(c.dt), 1e-3 * g->n * g->p * g->q);
            FD_EXPECT(at < 0, "%s: dw[%lld] %g, oracle %g", what, (long long)at, at < 0 ? 0 : dw[at], at < 0 ? 0 : dwo[at]);
        }
        FD_EXPECT(same_bits(dw, dw2, nw), "%s: dw differs from activation + backward filter", what);
        if (real)
            for (int lay = 0; lay < LAY_COUNT; lay++) {
                FD_EXPECT_STATUS(c1_run(&c, dy, lay % 2 ? H_CPU : H_REF, lay, dw2, &ws), OK);
                FD_EXPECT(same_bits(dw, dw2, nw), "%s: layout %s differs", what, lay_names[lay]);
            }
        free(dy), free(dw), free(dwo), free(dw2);
        c0_free(&c);
    }
}

/* ---- 4. ops 2 and 3: batch-norm finalisation ------------------------------------------------ */

typedef struct {
    int c;
    int64_t m;
    cudnnDataType_t eqdt;
    int eqs, eqb, saved, run;
    double eps, factor;
    double *sum, *sq, *scale, *bias, *rm, *rv; /* rm/rv: running values before the call */
} c2_t;

typedef struct {
    double *eqs, *eqb, *smean, *sinv, *rm, *rv;
} c2_out_t;

static void c2_out_alloc(c2_out_t *o, int c)
{
    o->eqs = dalloc(c), o->eqb = dalloc(c), o->smean = dalloc(c), o->sinv = dalloc(c), o->rm = dalloc(c), o->rv = dalloc(c);
}

static void c2_out_free(c2_out_t *o)
{
    free(o->eqs), free(o->eqb), free(o->smean), free(o->sinv), free(o->rm), free(o->rv);
}

static void c2_oracle(const c2_t *c, c2_out_t *o)
{
    for (int ch = 0; ch < c->c; ch++) {
        double mean = c->sum[ch] / (double)c->m;
        double var = c->sq[ch] / (double)c->m - mean * mean;
        if (var < 0)
            var = 0;
        double inv = 1 / sqrt(var + c->eps);
        o->eqs[ch] = fd_test_round(c->eqdt, c->scale[ch] * inv);
        o->eqb[ch] = fd_test_round(c->eqdt, c->bias[ch] - mean * c->scale[ch] * inv);
        o->smean[ch] = fd_test_round(F32, mean);
        o->sinv[ch] = fd_test_round(F32, inv);
        o->rm[ch] = fd_test_round(F32, (1 - c->factor) * c->rm[ch] + c->factor * mean);
        o->rv[ch] = fd_test_round(F32, (1 - c->factor) * c->rv[ch] + c->factor * var * (double)c->m / (double)(c->m - 1));
    }
}

static cudnnStatus_t c2_run(const c2_t *c, cudnnHandle_t h, c2_out_t *o)
{
    tens_t st, bp, eq;
    tens_make(&st, F32, 1, c->c, 1, 1, LAY_NCHW);
    tens_make(&bp, F32, 1, c->c, 1, 1, LAY_NCHW);
    tens_make(&eq, c->eqdt, 1, c->c, 1, 1, LAY_NCHW);
    fx_t f;
    fx_begin(&f, CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING, "op 2");
    fx_mode(&f, CUDNN_BATCHNORM_SPATIAL);
    fx_desc(&f, CUDNN_PARAM_YSTATS_DESC, st.d);
    tens_put(&st, fx_buf(&f, CUDNN_PARAM_YSUM_PLACEHOLDER, CUDNN_PTR_YSUM, tens_bytes(&st), R_IN), c->sum);
    tens_put(&st, fx_buf(&f, CUDNN_PARAM_YSQSUM_PLACEHOLDER, CUDNN_PTR_YSQSUM, tens_bytes(&st), R_IN), c->sq);
    if (c->eqs || c->eqb || c->saved || c->run)
        fx_desc(&f, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, bp.d);
    if (c->eqs || c->eqb) {
        fx_desc(&f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eq.d);
        tens_put(&bp, fx_buf(&f, CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PTR_BN_SCALE, tens_bytes(&bp), R_IN), c->scale);
    }
    if (c->eqb)
        tens_put(&bp, fx_buf(&f, CUDNN_PARAM_BN_BIAS_PLACEHOLDER, CUDNN_PTR_BN_BIAS, tens_bytes(&bp), R_IN), c->bias);
    if (c->eqs)
        fx_buf(&f, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, tens_bytes(&eq), R_OUT);
    if (c->eqb)
        fx_buf(&f, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, tens_bytes(&eq), R_OUT);
    if (c->saved) {
        fx_buf(&f, CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER, CUDNN_PTR_BN_SAVED_MEAN, tens_bytes(&bp), R_OUT);
        fx_buf(&f, CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER, CUDNN_PTR_BN_SAVED_INVSTD, tens_bytes(&bp), R_OUT);
    }
    if (c->run) {
        tens_put(&bp, fx_buf(&f, CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, CUDNN_PTR_BN_RUNNING_MEAN, tens_bytes(&bp), R_INOUT), c->rm);
        tens_put(&bp, fx_buf(&f, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER, CUDNN_PTR_BN_RUNNING_VAR, tens_bytes(&bp), R_INOUT), c->rv);
        f.has_factor = 1, f.factor = c->factor;
    }
    f.has_acc = 1, f.acc = c->m, f.has_eps = 1, f.eps = c->eps;
    cudnnStatus_t s = fx_make(&f, h);
    FD_EXPECT(s != OK || f.ws == 0, "op 2 reports a workspace of %zu", f.ws);
    if (s == OK)
        s = fx_exec(&f, h);
    if (s == OK) {
        if (c->eqs)
            tens_get(&eq, f.b[CUDNN_PTR_BN_EQSCALE].data, o->eqs);
        if (c->eqb)
            tens_get(&eq, f.b[CUDNN_PTR_BN_EQBIAS].data, o->eqb);
        if (c->saved) {
            tens_get(&bp, f.b[CUDNN_PTR_BN_SAVED_MEAN].data, o->smean);
            tens_get(&bp, f.b[CUDNN_PTR_BN_SAVED_INVSTD].data, o->sinv);
        }
        if (c->run) {
            tens_get(&bp, f.b[CUDNN_PTR_BN_RUNNING_MEAN].data, o->rm);
            tens_get(&bp, f.b[CUDNN_PTR_BN_RUNNING_VAR].data, o->rv);
        }
    }
    fx_end(&f);
    tens_free(&st), tens_free(&bp), tens_free(&eq);
    return s;
}

static void test_op2(void)
{
    fd_rng_t r;
    fd_rng_seed(&r, fd_test_sweep_seed(0xF2));
    int cases = (int)(32 * fd_test_scale());
    for (int i = 0; i < cases; i++) {
        /* y: N 2, H 3, W 4 (M 24) integers; its sums feed op 2 and y feeds the classic BN */
        c2_t c;
        memset(&c, 0, sizeof c);
        c.c = fd_rng_int(&r, 1, 7), c.m = 24;
        c.eqdt = i % 2 ? F16 : F32;
        c.eqs = fd_rng_int(&r, 0, 1), c.eqb = fd_rng_int(&r, 0, 1), c.saved = fd_rng_int(&r, 0, 1), c.run = fd_rng_int(&r, 0, 1);
        if (i < 2)
            c.eqs = c.eqb = c.saved = c.run = 1;
        c.eps = i % 3 ? 1e-5 : 0.0, c.factor = i % 4 == 0 ? 1.0 : 0.25;
        tens_t yt;
        tens_make(&yt, F32, 2, c.c, 3, 4, LAY_NCHW);
        int64_t ny = tens_count(&yt);
        double *y = dalloc(ny);
        fill_ints(&r, y, ny, -4, 4);
        c.sum = dalloc(c.c), c.sq = dalloc(c.c), c.scale = dalloc(c.c), c.bias = dalloc(c.c), c.rm = dalloc(c.c),
        c.rv = dalloc(c.c);
        for (int64_t e = 0; e < ny; e++) {
            int ch = (int)((e / 12) % c.c);
            c.sum[ch] += y[e], c.sq[ch] += y[e] * y[e];
        }
        fill_reals(&r, F32, c.scale, c.c, -2, 2), fill_reals(&r, F32, c.bias, c.c, -1, 1);
        fill_reals(&r, F32, c.rm, c.c, -1, 1), fill_reals(&r, F32, c.rv, c.c, 0.5, 2);
        c2_out_t o, w;
        c2_out_alloc(&o, c.c), c2_out_alloc(&w, c.c);
        char what[120];
        snprintf(what, sizeof what, "op 2 case %d: C %d eq %s eqs %d eqb %d saved %d run %d eps %g f %g", i, c.c,
                 fd_test_dtype_short(c.eqdt), c.eqs, c.eqb, c.saved, c.run, c.eps, c.factor);
        FD_EXPECT_STATUS(c2_run(&c, i % 2 ? H_CPU : H_REF, &o), OK);
        c2_oracle(&c, &w);
        double u = 4 * fd_unit_roundoff(c.eqdt);
        for (int ch = 0; ch < c.c; ch++) {
            FD_EXPECT(!c.eqs || fabs(o.eqs[ch] - w.eqs[ch]) <= u * fabs(w.eqs[ch]), "%s: eqScale[%d] %g, oracle %g", what, ch,
                      o.eqs[ch], w.eqs[ch]);
            FD_EXPECT(!c.eqb || fabs(o.eqb[ch] - w.eqb[ch]) <= u * (fabs(w.eqb[ch]) + fabs(c.bias[ch]) + 8 * fabs(w.eqs[ch])),
                      "%s: eqBias[%d] %g, oracle %g", what, ch, o.eqb[ch], w.eqb[ch]);
            FD_EXPECT(!c.saved || (o.smean[ch] == w.smean[ch] && fabs(o.sinv[ch] - w.sinv[ch]) <= 0x1p-22 * w.sinv[ch]),
                      "%s: saved %g %g, oracle %g %g", what, o.smean[ch], o.sinv[ch], w.smean[ch], w.sinv[ch]);
            FD_EXPECT(!c.run || (fabs(o.rm[ch] - w.rm[ch]) <= 0x1p-22 * (fabs(w.rm[ch]) + 4) &&
                                 fabs(o.rv[ch] - w.rv[ch]) <= 0x1p-22 * (fabs(w.rv[ch]) + 1)),
                      "%s: running %g %g, oracle %g %g", what, o.rm[ch], o.rv[ch], w.rm[ch], w.rv[ch]);
        }
        /* classic: cudnnBatchNormalizationForwardTraining on y gives the same statistics */
        if (c.saved && c.run) {
            tens_t p;
            tens_make(&p, F32, 1, c.c, 1, 1, LAY_NCHW);
            size_t pb = tens_bytes(&p);
            void *yb = calloc(1, tens_bytes(&yt)), *yo = calloc(1, tens_bytes(&yt)), *sb = calloc(1, pb), *bb = calloc(1, pb);
            void *rmb = calloc(1, pb), *rvb = calloc(1, pb), *smb = calloc(1, pb), *svb = calloc(1, pb);
            tens_put(&yt, yb, y), tens_put(&p, sb, c.scale), tens_put(&p, bb, c.bias);
            tens_put(&p, rmb, c.rm), tens_put(&p, rvb, c.rv);
            float one = 1, zero = 0;
            FD_EXPECT_STATUS(cudnnBatchNormalizationForwardTraining(H_REF, CUDNN_BATCHNORM_SPATIAL, &one, &zero, yt.d, yb, yt.d,
                                                                    yo, p.d, sb, bb, c.factor, rmb, rvb, c.eps, smb, svb),
                             OK);
            double *bm = dalloc(c.c), *bv = dalloc(c.c), *brm = dalloc(c.c), *brv = dalloc(c.c);
            tens_get(&p, smb, bm), tens_get(&p, svb, bv), tens_get(&p, rmb, brm), tens_get(&p, rvb, brv);
            int64_t at = first_far(o.smean, bm, c.c, 0x1p-22, 1e-6);
            FD_EXPECT(at < 0, "%s: savedMean differs from cudnnBatchNormalizationForwardTraining", what);
            at = first_far(o.sinv, bv, c.c, 0x1p-21, 0);
            FD_EXPECT(at < 0, "%s: savedInvStd[%lld] %g, batch norm %g", what, (long long)at, at < 0 ? 0 : o.sinv[at],
                      at < 0 ? 0 : bv[at]);
            FD_EXPECT(first_far(o.rm, brm, c.c, 0x1p-21, 1e-6) < 0 && first_far(o.rv, brv, c.c, 0x1p-21, 1e-6) < 0,
                      "%s: running statistics differ from cudnnBatchNormalizationForwardTraining", what);
            if (c.eqs)
                for (int ch = 0; ch < c.c; ch++)
                    FD_EXPECT(fabs(o.eqs[ch] - c.scale[ch] * bv[ch]) <= 4 * fd_unit_roundoff(c.eqdt) * fabs(c.scale[ch] * bv[ch]) + 1e-30,
                              "%s: eqScale[%d] is not scale x batch-norm invstd", what, ch);
            free(bm), free(bv), free(brm), free(brv);
            free(yb), free(yo), free(sb), free(bb), free(rmb), free(rvb), free(smb), free(svb);
            tens_free(&p);
        }
        c2_out_free(&o), c2_out_free(&w);
        free(y), free(c.sum), free(c.sq), free(c.scale), free(c.bias), free(c.rm), free(c.rv);
        tens_free(&yt);
    }

    /* hand case: ySum 8, ySqSum 32, M 4 -> mean 2, var 4, eps 0 -> invstd 0.5; scale 3, bias 1
     * -> eqScale 1.5, eqBias -2; running 0 / 1 with f 0.5 -> 1 and 0.5 + 0.5 * 4 * 4/3 */
    c2_t c = {1, 4, F32, 1, 1, 1, 1, 0.0, 0.5, NULL, NULL, NULL, NULL, NULL, NULL};
    double sum = 8, sq = 32, scale = 3, bias = 1, rm = 0, rv = 1;
    c.sum = &sum, c.sq = &sq, c.scale = &scale, c.bias = &bias, c.rm = &rm, c.rv = &rv;
    c2_out_t o;
    c2_out_alloc(&o, 1);
    FD_EXPECT_STATUS(c2_run(&c, H_REF, &o), OK);
    FD_EXPECT(o.eqs[0] == 1.5 && o.eqb[0] == -2 && o.smean[0] == 2 && o.sinv[0] == 0.5 && o.rm[0] == 1 &&
                  fabs(o.rv[0] - (0.5 + 8.0 / 3.0)) < 1e-6,
              "op 2 hand case: %g %g %g %g %g %g (want 1.5 -2 2 0.5 1 3.1667)", o.eqs[0], o.eqb[0], o.smean[0], o.sinv[0],
              o.rm[0], o.rv[0]);
    c2_out_free(&o);
}

static cudnnStatus_t c3_run(int ch, cudnnDataType_t eqdt, const double *scale, const double *bias, const double *rm,
                            const double *rv, double eps, cudnnHandle_t h, double *eqs, double *eqb)
{
    tens_t bp, eq;
    tens_make(&bp, F32, 1, ch, 1, 1, LAY_NCHW);
    tens_make(&eq, eqdt, 1, ch, 1, 1, LAY_NCHW);
    fx_t f;
    fx_begin(&f, CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE, "op 3");
    fx_mode(&f, CUDNN_BATCHNORM_SPATIAL);
    fx_desc(&f, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, bp.d);
    fx_desc(&f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eq.d);
    tens_put(&bp, fx_buf(&f, CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PTR_BN_SCALE, tens_bytes(&bp), R_IN), scale);
    tens_put(&bp, fx_buf(&f, CUDNN_PARAM_BN_BIAS_PLACEHOLDER, CUDNN_PTR_BN_BIAS, tens_bytes(&bp), R_IN), bias);
    tens_put(&bp, fx_buf(&f, CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, CUDNN_PTR_BN_RUNNING_MEAN, tens_bytes(&bp), R_IN), rm);
    tens_put(&bp, fx_buf(&f, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER, CUDNN_PTR_BN_RUNNING_VAR, tens_bytes(&bp), R_IN), rv);
    fx_buf(&f, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, tens_bytes(&eq), R_OUT);
    fx_buf(&f, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, tens_bytes(&eq), R_OUT);
    f.has_eps = 1, f.eps = eps;
    cudnnStatus_t s = fx_make(&f, h);
    if (s == OK)
        s = fx_exec(&f, h);
    if (s == OK) {
        tens_get(&eq, f.b[CUDNN_PTR_BN_EQSCALE].data, eqs);
        tens_get(&eq, f.b[CUDNN_PTR_BN_EQBIAS].data, eqb);
    }
    fx_end(&f);
    tens_free(&bp), tens_free(&eq);
    return s;
}

static void test_op3(void)
{
    fd_rng_t r;
    fd_rng_seed(&r, fd_test_sweep_seed(0xF3));
    for (int i = 0; i < 8; i++) {
        int ch = fd_rng_int(&r, 1, 9);
        cudnnDataType_t eqdt = i % 2 ? F16 : F32;
        double eps = i % 3 ? 1e-3 : 0.0;
        double *sc = dalloc(ch), *bi = dalloc(ch), *rm = dalloc(ch), *rv = dalloc(ch), *es = dalloc(ch), *eb = dalloc(ch);
        fill_reals(&r, F32, sc, ch, -2, 2), fill_reals(&r, F32, bi, ch, -1, 1);
        fill_reals(&r, F32, rm, ch, -1, 1), fill_reals(&r, F32, rv, ch, 0.25, 3);
        FD_EXPECT_STATUS(c3_run(ch, eqdt, sc, bi, rm, rv, eps, i % 2 ? H_CPU : H_REF, es, eb), OK);
        double u = 2 * fd_unit_roundoff(eqdt);
        for (int c = 0; c < ch; c++) {
            double wes = sc[c] / sqrt(rv[c] + eps), web = bi[c] - rm[c] * wes;
            FD_EXPECT(fabs(es[c] - wes) <= u * fabs(wes) && fabs(eb[c] - web) <= u * (fabs(web) + fabs(bi[c]) + fabs(rm[c] * wes)),
                      "op 3 case %d channel %d: %g %g, oracle %g %g", i, c, es[c], eb[c], wes, web);
        }
        /* classic: cudnnBatchNormalizationForwardInference(x) == eqScale x + eqBias */
        tens_t x, p;
        tens_make(&x, F32, 2, ch, 2, 3, LAY_NHWC);
        tens_make(&p, F32, 1, ch, 1, 1, LAY_NCHW);
        int64_t nx = tens_count(&x);
        double *xv = dalloc(nx), *yv = dalloc(nx);
        fill_reals(&r, F32, xv, nx, -2, 2);
        void *xb = calloc(1, tens_bytes(&x)), *yb = calloc(1, tens_bytes(&x));
        void *sb = calloc(1, tens_bytes(&p)), *bb = calloc(1, tens_bytes(&p)), *mb = calloc(1, tens_bytes(&p)),
             *vb = calloc(1, tens_bytes(&p));
        tens_put(&x, xb, xv), tens_put(&p, sb, sc), tens_put(&p, bb, bi), tens_put(&p, mb, rm), tens_put(&p, vb, rv);
        float one = 1, zero = 0;
        double beps = eps > 0 ? eps : 1e-3; /* the classic call below uses the same epsilon */
        if (eps == 0)
            FD_EXPECT_STATUS(c3_run(ch, eqdt, sc, bi, rm, rv, beps, H_REF, es, eb), OK);
        FD_EXPECT_STATUS(cudnnBatchNormalizationForwardInference(H_REF, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x.d, xb, x.d, yb,
                                                                 p.d, sb, bb, mb, vb, beps),
                         OK);
        tens_get(&x, yb, yv);
        for (int64_t e = 0; e < nx; e++) {
            int c = (int)((e / 6) % ch);
            double mine = es[c] * xv[e] + eb[c];
            FD_EXPECT(fabs(mine - yv[e]) <= 8 * fd_unit_roundoff(eqdt) * (fabs(es[c] * xv[e]) + fabs(eb[c]) + fabs(yv[e])) + 1e-6,
                      "op 3 case %d: eqScale x + eqBias %g, batch-norm inference %g", i, mine, yv[e]);
        }
        free(xv), free(yv), free(xb), free(yb), free(sb), free(bb), free(mb), free(vb);
        tens_free(&x), tens_free(&p);
        free(sc), free(bi), free(rm), free(rv), free(es), free(eb);
    }
    /* hand case: scale 2, bias 1, running mean 3, running var 3, eps 1 -> eqScale 1, eqBias -2 */
    double sc = 2, bi = 1, rm = 3, rv = 3, es, eb;
    FD_EXPECT_STATUS(c3_run(1, F16, &sc, &bi, &rm, &rv, 1.0, H_REF, &es, &eb), OK);
    FD_EXPECT(es == 1 && eb == -2, "op 3 hand case: %g %g (want 1 -2)", es, eb);
}

/* ---- 5. op 4: conv, scale, bias, add, activation ------------------------------------------- */

typedef struct {
    geo_t g;
    cudnnDataType_t dt, eqdt;
    int scale, bias, z, act, in_place;
    double *x, *w, *sc, *bi, *zv;
} c4_t;

static void c4_oracle(const c4_t *c, double *y)
{
    const geo_t *g = &c->g;
    for (int n = 0; n < g->n; n++)
        for (int k = 0; k < g->k; k++)
            for (int p = 0; p < g->p; p++)
                for (int q = 0; q < g->q; q++) {
                    int64_t i = ((int64_t)(n * g->k + k) * g->p + p) * g->q + q;
                    double v = conv_at(g, c->x, c->w, n, k, p, q);
                    if (c->scale)
                        v *= c->sc[k];
                    if (c->bias)
                        v += c->bi[k];
                    if (c->z)
                        v += c->zv[i];
                    y[i] = fd_test_round(c->dt, c->act ? relu(v) : v);
                }
}

static cudnnStatus_t c4_run(const c4_t *c, cudnnHandle_t h, int layout, double *y)
{
    const geo_t *g = &c->g;
    tens_t x, yt, eq;
    filt_t w;
    tens_make(&x, c->dt, g->n, g->c, g->h, g->w, layout);
    tens_make(&yt, c->dt, g->n, g->k, g->p, g->q, layout);
    tens_make(&eq, c->eqdt, 1, g->k, 1, 1, LAY_NCHW);
    filt_make(&w, c->dt, g->k, g->c, g->r, g->s, layout == LAY_NHWC || layout == LAY_NHWC_PAD);
    cudnnConvolutionDescriptor_t cv = make_conv(g->pad, g->stride, g->xcorr, c->dt);
    cudnnActivationDescriptor_t act = make_act(CUDNN_ACTIVATION_RELU, 0);
    fx_t f;
    fx_begin(&f, CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION, "op 4");
    fx_desc(&f, CUDNN_PARAM_XDESC, x.d), fx_desc(&f, CUDNN_PARAM_WDESC, w.d), fx_desc(&f, CUDNN_PARAM_CONV_DESC, cv);
    fx_desc(&f, CUDNN_PARAM_YDESC, yt.d);
    tens_put(&x, fx_buf(&f, CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, tens_bytes(&x), R_IN), c->x);
    filt_put(&w, fx_buf(&f, CUDNN_PARAM_WDATA_PLACEHOLDER, CUDNN_PTR_WDATA, filt_bytes(&w), R_IN), c->w);
    void *yb = fx_buf(&f, CUDNN_PARAM_YDATA_PLACEHOLDER, CUDNN_PTR_YDATA, tens_bytes(&yt), c->in_place ? R_INOUT : R_OUT);
    if (c->scale || c->bias)
        fx_desc(&f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eq.d);
    if (c->scale)
        tens_put(&eq, fx_buf(&f, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, tens_bytes(&eq), R_IN), c->sc);
    if (c->bias)
        tens_put(&eq, fx_buf(&f, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, tens_bytes(&eq), R_IN), c->bi);
    if (c->z) {
        fx_desc(&f, CUDNN_PARAM_ZDESC, yt.d);
        if (c->in_place) { /* z is y itself: the same buffer under both labels */
            cudnnFusedOpsPointerPlaceHolder_t v = CUDNN_PTR_16B_ALIGNED;
            FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(f.k, CUDNN_PARAM_ZDATA_PLACEHOLDER, &v), OK);
            tens_put(&yt, yb, c->zv);
        } else {
            tens_put(&yt, fx_buf(&f, CUDNN_PARAM_ZDATA_PLACEHOLDER, CUDNN_PTR_ZDATA, tens_bytes(&yt), R_IN), c->zv);
        }
    }
    if (c->act)
        fx_desc(&f, CUDNN_PARAM_ACTIVATION_DESC, act);
    cudnnStatus_t s = fx_make(&f, h);
    FD_EXPECT(s != OK || f.ws == 0, "op 4 reports a workspace of %zu", f.ws);
    if (s == OK && c->in_place) {
        /* fx_exec knows one role per buffer: hand the pointer to ZDATA through a pack of our own */
        cudnnFusedOpsVariantParamPack_t v;
        cudnnCreateFusedOpsVariantParamPack(&v, f.op);
        cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_PTR_XDATA, f.b[CUDNN_PTR_XDATA].data);
        cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_PTR_WDATA, f.b[CUDNN_PTR_WDATA].data);
        cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_PTR_YDATA, yb);
        cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_PTR_ZDATA, yb);
        for (int l = 1; l <= 2; l++)
            if (f.role[l])
                cudnnSetFusedOpsVariantParamPackAttribute(v, (cudnnFusedOpsVariantParamLabel_t)l, f.b[l].data);
        s = cudnnFusedOpsExecute(h, f.plan, v);
        FD_EXPECT(fd_buf_guards_ok(&f.b[CUDNN_PTR_YDATA]), "op 4 in place: guard of y damaged");
        cudnnDestroyFusedOpsVariantParamPack(v);
    } else if (s == OK) {
        s = fx_exec(&f, h);
    }
    if (s == OK) {
        tens_get(&yt, yb, y);
        FD_EXPECT(tens_holes_ok(&yt, yb), "op 4 (%s): a hole of y was written", lay_names[layout]);
    }
    fx_end(&f);
    tens_free(&x), tens_free(&yt), tens_free(&eq);
    cudnnDestroyFilterDescriptor(w.d);
    cudnnDestroyConvolutionDescriptor(cv);
    cudnnDestroyActivationDescriptor(act);
    return s;
}

/* classic: cudnnConvolutionBiasActivationForward with alpha1 = the (uniform) scale */
static void c4_classic(const c4_t *c, double *y)
{
    const geo_t *g = &c->g;
    tens_t x, yt, b;
    filt_t w;
    tens_make(&x, c->dt, g->n, g->c, g->h, g->w, LAY_NCHW);
    tens_make(&yt, c->dt, g->n, g->k, g->p, g->q, LAY_NCHW);
    tens_make(&b, c->dt, 1, g->k, 1, 1, LAY_NCHW);
    filt_make(&w, c->dt, g->k, g->c, g->r, g->s, 0);
    void *xb = calloc(1, tens_bytes(&x)), *yb = calloc(1, tens_bytes(&yt)), *zb = calloc(1, tens_bytes(&yt));
    void *bb = calloc(1, tens_bytes(&b)), *wb = calloc(1, filt_bytes(&w));
    tens_put(&x, xb, c->x), filt_put(&w, wb, c->w);
    double *zeros = dalloc(g->k);
    tens_put(&b, bb, c->bias ? c->bi : zeros);
    if (c->z)
        tens_put(&yt, zb, c->zv);
    float a1 = c->scale ? (float)c->sc[0] : 1.0f, a2 = c->z ? 1.0f : 0.0f;
    cudnnConvolutionDescriptor_t cv = make_conv(g->pad, g->stride, g->xcorr, c->dt);
    cudnnActivationDescriptor_t act = make_act(c->act ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY, 0);
    FD_EXPECT_STATUS(cudnnConvolutionBiasActivationForward(H_REF, &a1, x.d, xb, w.d, wb, cv,
                                                           CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, NULL, 0, &a2,
                                                           yt.d, zb, b.d, bb, act, yt.d, yb),
                     OK);
    tens_get(&yt, yb, y);
    free(xb), free(yb), free(zb), free(bb), free(wb), free(zeros);
    tens_free(&x), tens_free(&yt), tens_free(&b);
    cudnnDestroyFilterDescriptor(w.d);
    cudnnDestroyConvolutionDescriptor(cv);
    cudnnDestroyActivationDescriptor(act);
}

static void test_op4(void)
{
    fd_rng_t r;
    fd_rng_seed(&r, fd_test_sweep_seed(0xF4));
    int cases = (int)(40 * fd_test_scale());
    for (int i = 0; i < cases; i++) {
        c4_t c;
        memset(&c, 0, sizeof c);
        geo_random(&r, &c.g);
        const geo_t *g = &c.g;
        int real = i % 4 == 3;
        c.dt = fd_rng_int(&r, 0, 1) ? F16 : F32, c.eqdt = fd_rng_int(&r, 0, 1) ? F16 : F32;
        c.scale = fd_rng_int(&r, 0, 1), c.bias = fd_rng_int(&r, 0, 1), c.z = fd_rng_int(&r, 0, 1), c.act = fd_rng_int(&r, 0, 1);
        c.in_place = c.z && i % 3 == 0;
        int64_t nx = (int64_t)g->n * g->c * g->h * g->w, nw = (int64_t)g->k * g->c * g->r * g->s;
        int64_t ny = (int64_t)g->n * g->k * g->p * g->q;
        c.x = dalloc(nx), c.w = dalloc(nw), c.sc = dalloc(g->k), c.bi = dalloc(g->k), c.zv = dalloc(ny);
        if (real) {
            fill_reals(&r, c.dt, c.x, nx, -1, 1), fill_reals(&r, c.dt, c.w, nw, -1, 1), fill_reals(&r, c.dt, c.zv, ny, -1, 1);
            fill_reals(&r, c.eqdt, c.bi, g->k, -1, 1);
        } else {
            fill_ints(&r, c.x, nx, -3, 3), fill_ints(&r, c.w, nw, -2, 2), fill_ints(&r, c.zv, ny, -4, 4);
            fill_ints(&r, c.bi, g->k, -3, 3);
        }
        double s = fd_rng_int(&r, -2, 2); /* one scale for all channels: conv-bias-act's alpha1 */
        for (int k = 0; k < g->k; k++)
            c.sc[k] = s;
        double *y = dalloc(ny), *yo = dalloc(ny), *y2 = dalloc(ny);
        char what[160];
        snprintf(what, sizeof what, "op 4 case %d: %s n%dc%dh%dw%d k%dr%ds%d scale %d bias %d z %d act %d in-place %d%s", i,
                 fd_test_dtype_short(c.dt), g->n, g->c, g->h, g->w, g->k, g->r, g->s, c.scale, c.bias, c.z, c.act,
                 c.in_place, real ? " real" : "");
        FD_EXPECT_STATUS(c4_run(&c, H_REF, i % LAY_COUNT, y), OK);
        c4_oracle(&c, yo);
        if (!real)
            FD_EXPECT(same_bits(y, yo, ny), "%s: y differs from the oracle", what);
        else {
            int64_t at = first_far(y, yo, ny, 4 * fd_unit_roundoff(c.dt), 1e-3 * g->c * g->r * g->s);
            FD_EXPECT(at < 0, "%s: y[%lld] %g, oracle %g", what, (long long)at, at < 0 ? 0 : y[at], at < 0 ? 0 : yo[at]);
        }
        if (!real) { /* integer data: the order of the additions cannot matter */
            c4_classic(&c, y2); /* values, not bits: -1 x 0 is -0 here, -0 + 0 = +0 there */
            int64_t at = first_far(y, y2, ny, 0, 0);
            FD_EXPECT(at < 0, "%s: y[%lld] %g, cudnnConvolutionBiasActivationForward %g", what, (long long)at,
                      at < 0 ? 0 : y[at], at < 0 ? 0 : y2[at]);
        } else {
            for (int lay = 0; lay < LAY_COUNT; lay++) {
                FD_EXPECT_STATUS(c4_run(&c, lay % 2 ? H_CPU : H_REF, lay, y2), OK);
                FD_EXPECT(same_bits(y, y2, ny), "%s: layout %s differs", what, lay_names[lay]);
            }
        }
        free(y), free(yo), free(y2), free(c.x), free(c.w), free(c.sc), free(c.bi), free(c.zv);
    }
}

/* ---- 6. op 5: scale, bias, add, activation, bitmask ----------------------------------------- */

typedef struct {
    cudnnDataType_t dt, eqdt;
    int n, c, h, w;
    int scale, bias, z, zscale, zbias, clipped, in_place;
    double coef;
    double *x, *sc, *bi, *zv, *zsc, *zbi;
} c5_t;

static int64_t bm_words(int n, int c, int h, int w)
{
    return ((int64_t)n * h * w + 31) / 32 * 32 * ((c + 63) / 64 * 2);
}

/* y and the bitmask words (layout of src/core/fusedops.h, written out here) */
static void c5_oracle(const c5_t *c, double *y, uint32_t *bm, double *u_out)
{
    int64_t cw = (c->c + 63) / 64 * 2;
    memset(bm, 0, sizeof(uint32_t) * (size_t)bm_words(c->n, c->c, c->h, c->w));
    for (int n = 0; n < c->n; n++)
        for (int ch = 0; ch < c->c; ch++)
            for (int h = 0; h < c->h; h++)
                for (int w = 0; w < c->w; w++) {
                    int64_t i = ((int64_t)(n * c->c + ch) * c->h + h) * c->w + w;
                    double u = c->x[i] * (c->scale ? c->sc[ch] : 1) + (c->bias ? c->bi[ch] : 0);
                    if (c->z)
                        u += c->zv[i] * (c->zscale ? c->zsc[ch] : 1) + (c->zbias ? c->zbi[ch] : 0);
                    double a = c->clipped ? (u < 0 ? 0 : u > c->coef ? c->coef : u) : relu(u);
                    y[i] = fd_test_round(c->dt, a);
                    if (u_out)
                        u_out[i] = u;
                    int pass = c->clipped ? (u > 0 && u < c->coef) : u > 0;
                    int64_t row = ((int64_t)n * c->h + h) * c->w + w;
                    if (pass)
                        bm[row * cw + ch / 32] |= 1u << (ch % 32);
                }
}

static cudnnStatus_t c5_run(const c5_t *c, cudnnHandle_t h, int layout, double *y, uint32_t *bm)
{
    tens_t x, yt, eq, zeq, bt;
    int64_t words = bm_words(c->n, c->c, c->h, c->w);
    tens_make(&x, c->dt, c->n, c->c, c->h, c->w, layout);
    tens_make(&yt, c->dt, c->n, c->c, c->h, c->w, c->in_place ? layout : (layout + 1) % LAY_COUNT);
    tens_make(&eq, c->eqdt, 1, c->c, 1, 1, LAY_NCHW);
    tens_make(&zeq, F32, 1, c->c, 1, 1, LAY_NCHW);
    tens_make(&bt, CUDNN_DATA_INT32, (int)(words / ((c->c + 63) / 64 * 2)), (c->c + 63) / 64 * 2, 1, 1, LAY_NCHW);
    cudnnActivationDescriptor_t act = make_act(c->clipped ? CUDNN_ACTIVATION_CLIPPED_RELU : CUDNN_ACTIVATION_RELU, c->coef);
    fx_t f;
    fx_begin(&f, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK, "op 5");
    fx_mode(&f, CUDNN_BATCHNORM_SPATIAL_PERSISTENT);
    fx_desc(&f, CUDNN_PARAM_XDESC, x.d), fx_desc(&f, CUDNN_PARAM_YDESC, yt.d);
    fx_desc(&f, CUDNN_PARAM_ACTIVATION_DESC, act), fx_desc(&f, CUDNN_PARAM_ACTIVATION_BITMASK_DESC, bt.d);
    void *xb = fx_buf(&f, CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, tens_bytes(&x), c->in_place ? R_INOUT : R_IN);
    tens_put(&x, xb, c->x);
    if (!c->in_place)
        fx_buf(&f, CUDNN_PARAM_YDATA_PLACEHOLDER, CUDNN_PTR_YDATA, tens_bytes(&yt), R_OUT);
    else {
        cudnnFusedOpsPointerPlaceHolder_t v = CUDNN_PTR_16B_ALIGNED;
        FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(f.k, CUDNN_PARAM_YDATA_PLACEHOLDER, &v), OK);
    }
    fx_buf(&f, CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER, CUDNN_PTR_ACTIVATION_BITMASK, (size_t)words * 4, R_OUT);
    if (c->scale || c->bias)
        fx_desc(&f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eq.d);
    if (c->scale)
        tens_put(&eq, fx_buf(&f, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, tens_bytes(&eq), R_IN), c->sc);
    if (c->bias)
        tens_put(&eq, fx_buf(&f, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, tens_bytes(&eq), R_IN), c->bi);
    if (c->z) {
        fx_desc(&f, CUDNN_PARAM_ZDESC, x.d);
        tens_put(&x, fx_buf(&f, CUDNN_PARAM_ZDATA_PLACEHOLDER, CUDNN_PTR_ZDATA, tens_bytes(&x), R_IN), c->zv);
        if (c->zscale || c->zbias)
            fx_desc(&f, CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC, zeq.d);
        if (c->zscale)
            tens_put(&zeq, fx_buf(&f, CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_Z_EQSCALE, tens_bytes(&zeq), R_IN), c->zsc);
        if (c->zbias)
            tens_put(&zeq, fx_buf(&f, CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_Z_EQBIAS, tens_bytes(&zeq), R_IN), c->zbi);
    }
    cudnnStatus_t s = fx_make(&f, h);
    FD_EXPECT(s != OK || f.ws == 0, "op 5 reports a workspace of %zu", f.ws);
    if (s == OK && c->in_place) {
        cudnnFusedOpsVariantParamPack_t v;
        cudnnCreateFusedOpsVariantParamPack(&v, f.op);
        for (int l = 0; l < NPTR; l++)
            if (f.role[l])
                cudnnSetFusedOpsVariantParamPackAttribute(v, (cudnnFusedOpsVariantParamLabel_t)l, f.b[l].data);
        cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_PTR_YDATA, xb);
        fd_buf_poison(&f.b[CUDNN_PTR_ACTIVATION_BITMASK]);
        s = cudnnFusedOpsExecute(h, f.plan, v);
        cudnnDestroyFusedOpsVariantParamPack(v);
    } else if (s == OK) {
        s = fx_exec(&f, h);
    }
    if (s == OK) {
        const void *yb = c->in_place ? xb : f.b[CUDNN_PTR_YDATA].data;
        tens_get(&yt, yb, y);
        FD_EXPECT(tens_holes_ok(&yt, yb), "op 5 (%s): a hole of y was written", lay_names[layout]);
        memcpy(bm, f.b[CUDNN_PTR_ACTIVATION_BITMASK].data, (size_t)words * 4);
        FD_EXPECT(fd_buf_guards_ok(&f.b[CUDNN_PTR_ACTIVATION_BITMASK]), "op 5: bitmask guard damaged");
    }
    fx_end(&f);
    tens_free(&x), tens_free(&yt), tens_free(&eq), tens_free(&zeq), tens_free(&bt);
    cudnnDestroyActivationDescriptor(act);
    return s;
}

static void c5_random(fd_rng_t *r, c5_t *c, int real)
{
    memset(c, 0, sizeof *c);
    c->dt = fd_rng_int(r, 0, 1) ? F16 : F32, c->eqdt = fd_rng_int(r, 0, 1) ? F16 : F32;
    c->n = fd_rng_int(r, 1, 3), c->c = fd_rng_int(r, 1, 70), c->h = fd_rng_int(r, 1, 5), c->w = fd_rng_int(r, 1, 6);
    c->scale = fd_rng_int(r, 0, 1), c->bias = fd_rng_int(r, 0, 1), c->z = fd_rng_int(r, 0, 1);
    c->zscale = c->z && fd_rng_int(r, 0, 1), c->zbias = c->z && fd_rng_int(r, 0, 1);
    c->clipped = fd_rng_int(r, 0, 3) == 0, c->coef = 3;
    int64_t nx = (int64_t)c->n * c->c * c->h * c->w;
    c->x = dalloc(nx), c->zv = dalloc(nx), c->sc = dalloc(c->c), c->bi = dalloc(c->c), c->zsc = dalloc(c->c), c->zbi = dalloc(c->c);
    if (real) {
        fill_reals(r, c->dt, c->x, nx, -2, 2), fill_reals(r, c->dt, c->zv, nx, -2, 2);
        fill_reals(r, c->eqdt, c->sc, c->c, -2, 2), fill_reals(r, c->eqdt, c->bi, c->c, -1, 1);
        fill_reals(r, F32, c->zsc, c->c, -2, 2), fill_reals(r, F32, c->zbi, c->c, -1, 1);
    } else {
        fill_ints(r, c->x, nx, -4, 4), fill_ints(r, c->zv, nx, -4, 4);
        fill_ints(r, c->sc, c->c, -2, 2), fill_ints(r, c->bi, c->c, -2, 2);
        fill_ints(r, c->zsc, c->c, -2, 2), fill_ints(r, c->zbi, c->c, -2, 2);
    }
}

static void c5_free(c5_t *c)
{
    free(c->x), free(c->zv), free(c->sc), free(c->bi), free(c->zsc), free(c->zbi);
}

static void test_op5(void)
{
    fd_rng_t r;
    fd_rng_seed(&r, fd_test_sweep_seed(0xF5));
    int cases = (int)(48 * fd_test_scale());
    for (int i = 0; i < cases; i++) {
        c5_t c;
        int real = i % 4 == 3;
        c5_random(&r, &c, real);
        c.in_place = i % 5 == 1;
        int64_t nx = (int64_t)c.n * c.c * c.h * c.w, words = bm_words(c.n, c.c, c.h, c.w);
        double *y = dalloc(nx), *yo = dalloc(nx), *y2 = dalloc(nx), *u = dalloc(nx);
        uint32_t *bm = calloc((size_t)words, 4), *bmo = calloc((size_t)words, 4), *bm2 = calloc((size_t)words, 4);
        char what[160];
        snprintf(what, sizeof what, "op 5 case %d: %s n%dc%dh%dw%d scale %d bias %d z %d zs %d zb %d %s in-place %d%s", i,
                 fd_test_dtype_short(c.dt), c.n, c.c, c.h, c.w, c.scale, c.bias, c.z, c.zscale, c.zbias,
                 c.clipped ? "clipped" : "relu", c.in_place, real ? " real" : "");
        FD_EXPECT_STATUS(c5_run(&c, H_REF, i % LAY_COUNT, y, bm), OK);
        c5_oracle(&c, yo, bmo, u);
        FD_EXPECT(same_bits(y, yo, nx), "%s: y differs from the oracle", what);
        FD_EXPECT(memcmp(bm, bmo, (size_t)words * 4) == 0, "%s: bitmask differs from the documented layout", what);
        /* classic: u by loops (stored in y's type), then cudnnActivationForward */
        tens_t xt;
        tens_make(&xt, c.dt, c.n, c.c, c.h, c.w, LAY_NCHW);
        void *ub = calloc(1, tens_bytes(&xt)), *yb = calloc(1, tens_bytes(&xt));
        tens_put(&xt, ub, u);
        float one = 1, zero = 0;
        cudnnActivationDescriptor_t a = make_act(c.clipped ? CUDNN_ACTIVATION_CLIPPED_RELU : CUDNN_ACTIVATION_RELU, c.coef);
        FD_EXPECT_STATUS(cudnnActivationForward(H_REF, a, &one, xt.d, ub, &zero, xt.d, yb), OK);
        tens_get(&xt, yb, y2);
        FD_EXPECT(same_bits(y, y2, nx), "%s: y differs from the classic activation", what);
        cudnnDestroyActivationDescriptor(a);
        free(ub), free(yb);
        tens_free(&xt);
        if (real && !c.in_place)
            for (int lay = 0; lay < LAY_COUNT; lay++) {
                FD_EXPECT_STATUS(c5_run(&c, lay % 2 ? H_CPU : H_REF, lay, y2, bm2), OK);
                FD_EXPECT(same_bits(y, y2, nx) && memcmp(bm, bm2, (size_t)words * 4) == 0, "%s: layout %s differs", what,
                          lay_names[lay]);
            }
        free(y), free(yo), free(y2), free(u), free(bm), free(bmo), free(bm2);
        c5_free(&c);
    }
    /* hand case: C 1, x = [1 -2], eqScale 2, eqBias 1, z = [0 1] -> u = [3 -2], y = [3 0]; the
     * bitmask has 32 rows of 2 words: word 0 = 1 (row 0, channel 0), the other 63 are 0 */
    c5_t c;
    memset(&c, 0, sizeof c);
    c.dt = F32, c.eqdt = F32, c.n = 1, c.c = 1, c.h = 1, c.w = 2, c.scale = c.bias = c.z = 1;
    double x[2] = {1, -2}, zv[2] = {0, 1}, sc = 2, bi = 1, y[2];
    c.x = x, c.zv = zv, c.sc = &sc, c.bi = &bi;
    uint32_t bm[64];
    FD_EXPECT_STATUS(c5_run(&c, H_REF, LAY_NCHW, y, bm), OK);
    int rest_zero = 1;
    for (int i = 1; i < 64; i++)
        rest_zero &= bm[i] == 0;
    FD_EXPECT(y[0] == 3 && y[1] == 0 && bm[0] == 1 && rest_zero, "op 5 hand case: y %g %g, words %u %u ...", y[0], y[1], bm[0],
              bm[2]);
}

/* ---- 7. op 6: dReLU by the bitmask, fork dz, batch-norm backward ---------------------------- */

typedef struct {
    cudnnDataType_t dt;
    int n, c, h, w, dz;
    double *x, *dy, *u, *scale, *mean, *inv; /* u: the forward pre-activation (mask = u > 0) */
} c6_t;

typedef struct {
    double *dx, *dz, *ds, *db;
} c6_out_t;

static void c6_oracle(const c6_t *c, c6_out_t *o)
{
    const int64_t hw = (int64_t)c->h * c->w;
    const double m = (double)c->n * hw;
    for (int ch = 0; ch < c->c; ch++) {
        double sg = 0, sgx = 0;
        for (int n = 0; n < c->n; n++)
            for (int64_t e = 0; e < hw; e++) {
                int64_t i = ((int64_t)n * c->c + ch) * hw + e;
                double g = c->u[i] > 0 ? c->dy[i] : 0;
                sg += g, sgx += g * (c->x[i] - c->mean[ch]) * c->inv[ch];
                o->dz[i] = fd_test_round(c->dt, g);
            }
        for (int n = 0; n < c->n; n++)
            for (int64_t e = 0; e < hw; e++) {
                int64_t i = ((int64_t)n * c->c + ch) * hw + e;
                double g = c->u[i] > 0 ? c->dy[i] : 0, xhat = (c->x[i] - c->mean[ch]) * c->inv[ch];
                o->dx[i] = fd_test_round(c->dt, c->scale[ch] * c->inv[ch] * (g - sg / m - xhat * sgx / m));
            }
        o->ds[ch] = fd_test_round(F32, sgx), o->db[ch] = fd_test_round(F32, sg);
    }
}

/* bitmask of u > 0 in the documented layout */
static void make_bitmask(int n, int c, int h, int w, const double *u, uint32_t *bm)
{
    int64_t cw = (c + 63) / 64 * 2;
    memset(bm, 0, sizeof(uint32_t) * (size_t)bm_words(n, c, h, w));
    for (int nn = 0; nn < n; nn++)
        for (int ch = 0; ch < c; ch++)
            for (int hh = 0; hh < h; hh++)
                for (int ww = 0; ww < w; ww++)
                    if (u[((int64_t)(nn * c + ch) * h + hh) * w + ww] > 0)
                        bm[(((int64_t)nn * h + hh) * w + ww) * cw + ch / 32] |= 1u << (ch % 32);
}

static cudnnStatus_t c6_run(const c6_t *c, cudnnHandle_t h, int layout, c6_out_t *o)
{
    tens_t x, dy, dx, p, bt;
    int64_t words = bm_words(c->n, c->c, c->h, c->w), cw = (c->c + 63) / 64 * 2;
    tens_make(&x, c->dt, c->n, c->c, c->h, c->w, layout);
    tens_make(&dy, c->dt, c->n, c->c, c->h, c->w, (layout + 1) % LAY_COUNT);
    tens_make(&dx, c->dt, c->n, c->c, c->h, c->w, (layout + 2) % LAY_COUNT);
    tens_make(&p, F32, 1, c->c, 1, 1, LAY_NCHW);
    tens_make(&bt, CUDNN_DATA_INT32, (int)(words / cw), (int)cw, 1, 1, LAY_NCHW);
    uint32_t *bm = calloc((size_t)words, 4);
    make_bitmask(c->n, c->c, c->h, c->w, c->u, bm);
    cudnnActivationDescriptor_t act = make_act(CUDNN_ACTIVATION_RELU, 0);
    fx_t f;
    fx_begin(&f, CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM, "op 6");
    fx_mode(&f, CUDNN_BATCHNORM_SPATIAL_PERSISTENT);
    fx_desc(&f, CUDNN_PARAM_XDESC, x.d), fx_desc(&f, CUDNN_PARAM_DYDESC, dy.d), fx_desc(&f, CUDNN_PARAM_DXDESC, dx.d);
    fx_desc(&f, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, p.d), fx_desc(&f, CUDNN_PARAM_ACTIVATION_BITMASK_DESC, bt.d);
    fx_desc(&f, CUDNN_PARAM_ACTIVATION_DESC, act);
    tens_put(&x, fx_buf(&f, CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PTR_XDATA, tens_bytes(&x), R_IN), c->x);
    tens_put(&dy, fx_buf(&f, CUDNN_PARAM_DYDATA_PLACEHOLDER, CUDNN_PTR_DYDATA, tens_bytes(&dy), R_IN), c->dy);
    memcpy(fx_buf(&f, CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER, CUDNN_PTR_ACTIVATION_BITMASK, (size_t)words * 4, R_IN), bm,
           (size_t)words * 4);
    tens_put(&p, fx_buf(&f, CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PTR_BN_SCALE, tens_bytes(&p), R_IN), c->scale);
    tens_put(&p, fx_buf(&f, CUDNN_PARAM_BN_BIAS_PLACEHOLDER, CUDNN_PTR_BN_BIAS, tens_bytes(&p), R_IN), c->scale); /* unread */
    tens_put(&p, fx_buf(&f, CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER, CUDNN_PTR_BN_SAVED_MEAN, tens_bytes(&p), R_IN), c->mean);
    tens_put(&p, fx_buf(&f, CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER, CUDNN_PTR_BN_SAVED_INVSTD, tens_bytes(&p), R_IN), c->inv);
    fx_buf(&f, CUDNN_PARAM_DXDATA_PLACEHOLDER, CUDNN_PTR_DXDATA, tens_bytes(&dx), R_OUT);
    fx_buf(&f, CUDNN_PARAM_BN_DSCALE_PLACEHOLDER, CUDNN_PTR_BN_DSCALE, tens_bytes(&p), R_OUT);
    fx_buf(&f, CUDNN_PARAM_BN_DBIAS_PLACEHOLDER, CUDNN_PTR_BN_DBIAS, tens_bytes(&p), R_OUT);
    if (c->dz) {
        fx_desc(&f, CUDNN_PARAM_DZDESC, x.d);
        fx_buf(&f, CUDNN_PARAM_DZDATA_PLACEHOLDER, CUDNN_PTR_DZDATA, tens_bytes(&x), R_OUT);
    }
    f.has_eps = 1, f.eps = 1e-5;
    cudnnStatus_t s = fx_make(&f, h);
    FD_EXPECT(s != OK || f.ws == 0, "op 6 reports a workspace of %zu", f.ws);
    if (s == OK)
        s = fx_exec(&f, h);
    if (s == OK) {
        tens_get(&dx, f.b[CUDNN_PTR_DXDATA].data, o->dx);
        FD_EXPECT(tens_holes_ok(&dx, f.b[CUDNN_PTR_DXDATA].data), "op 6: a hole of dx was written");
        if (c->dz)
            tens_get(&x, f.b[CUDNN_PTR_DZDATA].data, o->dz);
        tens_get(&p, f.b[CUDNN_PTR_BN_DSCALE].data, o->ds);
        tens_get(&p, f.b[CUDNN_PTR_BN_DBIAS].data, o->db);
    }
    fx_end(&f);
    free(bm);
    tens_free(&x), tens_free(&dy), tens_free(&dx), tens_free(&p), tens_free(&bt);
    cudnnDestroyActivationDescriptor(act);
    return s;
}

static void c6_alloc(c6_out_t *o, int64_t n, int c)
{
    o->dx = dalloc(n), o->dz = dalloc(n), o->ds = dalloc(c), o->db = dalloc(c);
}

static void c6_free(c6_out_t *o)
{
    free(o->dx), free(o->dz), free(o->ds), free(o->db);
}

static void test_op6(void)
{
    fd_rng_t r;
    fd_rng_seed(&r, fd_test_sweep_seed(0xF6));
    int cases = (int)(32 * fd_test_scale());
    for (int i = 0; i < cases; i++) {
        c6_t c;
        memset(&c, 0, sizeof c);
        c.dt = i % 2 ? F16 : F32;
        c.n = fd_rng_int(&r, 1, 3), c.c = fd_rng_int(&r, 1, 40), c.h = fd_rng_int(&r, 1, 4), c.w = fd_rng_int(&r, 2, 5);
        c.dz = i % 3 != 0;
        int64_t nx = (int64_t)c.n * c.c * c.h * c.w;
        c.x = dalloc(nx), c.dy = dalloc(nx), c.u = dalloc(nx);
        c.scale = dalloc(c.c), c.mean = dalloc(c.c), c.inv = dalloc(c.c);
        fill_reals(&r, c.dt, c.x, nx, -2, 2), fill_reals(&r, c.dt, c.dy, nx, -1, 1);
        for (int64_t e = 0; e < nx; e++)
            c.u[e] = fd_rng_int(&r, 0, 1) ? 1.0 : -1.0;
        fill_reals(&r, F32, c.scale, c.c, -2, 2), fill_reals(&r, F32, c.mean, c.c, -0.5, 0.5), fill_reals(&r, F32, c.inv, c.c, 0.5, 2);
        c6_out_t o, w, o2;
        c6_alloc(&o, nx, c.c), c6_alloc(&w, nx, c.c), c6_alloc(&o2, nx, c.c);
        char what[120];
        snprintf(what, sizeof what, "op 6 case %d: %s n%dc%dh%dw%d dz %d", i, fd_test_dtype_short(c.dt), c.n, c.c, c.h, c.w, c.dz);
        FD_EXPECT_STATUS(c6_run(&c, H_REF, i % LAY_COUNT, &o), OK);
        c6_oracle(&c, &w);
        double m = (double)c.n * c.h * c.w, ud = fd_unit_roundoff(c.dt);
        for (int ch = 0; ch < c.c; ch++) {
            FD_EXPECT(fabs(o.ds[ch] - w.ds[ch]) <= 1e-6 * (fabs(w.ds[ch]) + m) && fabs(o.db[ch] - w.db[ch]) <= 1e-6 * (fabs(w.db[ch]) + m),
                      "%s: dScale/dBias[%d] %g %g, oracle %g %g", what, ch, o.ds[ch], o.db[ch], w.ds[ch], w.db[ch]);
        }
        for (int64_t e = 0; e < nx; e++) {
            int ch = (int)((e / (c.h * c.w)) % c.c);
            double mag = fabs(c.scale[ch] * c.inv[ch]) * (1 + fabs(w.db[ch]) / m + 4 * fabs(w.ds[ch]) / m);
            FD_EXPECT(fabs(o.dx[e] - w.dx[e]) <= 2 * ud * fabs(w.dx[e]) + 1e-9 * mag, "%s: dx[%lld] %g, oracle %g", what,
                      (long long)e, o.dx[e], w.dx[e]);
            if (!(fabs(o.dx[e] - w.dx[e]) <= 2 * ud * fabs(w.dx[e]) + 1e-9 * mag))
                break;
        }
        FD_EXPECT(!c.dz || same_bits(o.dz, w.dz, nx), "%s: dz differs from the masked dy", what);
        /* classic: cudnnActivationBackward (ReLU at u) then cudnnBatchNormalizationBackward */
        if (c.dt == F32) {
            tens_t xt, p;
            tens_make(&xt, F32, c.n, c.c, c.h, c.w, LAY_NCHW);
            tens_make(&p, F32, 1, c.c, 1, 1, LAY_NCHW);
            size_t xbytes = tens_bytes(&xt), pbytes = tens_bytes(&p);
            void *ub = calloc(1, xbytes), *yb = calloc(1, xbytes), *dyb = calloc(1, xbytes), *gb = calloc(1, xbytes);
            void *xb = calloc(1, xbytes), *dxb = calloc(1, xbytes);
            void *sb = calloc(1, pbytes), *mb = calloc(1, pbytes), *vb = calloc(1, pbytes), *dsb = calloc(1, pbytes),
                 *dbb = calloc(1, pbytes);
            double *yv = dalloc(nx);
            for (int64_t e = 0; e < nx; e++)
                yv[e] = relu(c.u[e]);
            tens_put(&xt, ub, c.u), tens_put(&xt, yb, yv), tens_put(&xt, dyb, c.dy), tens_put(&xt, xb, c.x);
            tens_put(&p, sb, c.scale), tens_put(&p, mb, c.mean), tens_put(&p, vb, c.inv);
            float one = 1, zero = 0;
            cudnnActivationDescriptor_t a = make_act(CUDNN_ACTIVATION_RELU, 0);
            FD_EXPECT_STATUS(cudnnActivationBackward(H_REF, a, &one, xt.d, yb, xt.d, dyb, xt.d, ub, &zero, xt.d, gb), OK);
            FD_EXPECT_STATUS(cudnnBatchNormalizationBackward(H_REF, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, xt.d, xb,
                                                             xt.d, gb, xt.d, dxb, p.d, sb, dsb, dbb, 1e-5, mb, vb),
                             OK);
            tens_get(&xt, dxb, o2.dx), tens_get(&xt, gb, o2.dz), tens_get(&p, dsb, o2.ds), tens_get(&p, dbb, o2.db);
            FD_EXPECT(!c.dz || same_bits(o.dz, o2.dz, nx), "%s: dz differs from cudnnActivationBackward", what);
            int64_t at = first_far(o.dx, o2.dx, nx, 1e-5, 1e-5);
            FD_EXPECT(at < 0, "%s: dx[%lld] %g, batch-norm backward %g", what, (long long)at, at < 0 ? 0 : o.dx[at],
                      at < 0 ? 0 : o2.dx[at]);
            FD_EXPECT(first_far(o.ds, o2.ds, c.c, 1e-5, 1e-4) < 0 && first_far(o.db, o2.db, c.c, 1e-5, 1e-4) < 0,
                      "%s: dScale / dBias differ from cudnnBatchNormalizationBackward", what);
            cudnnDestroyActivationDescriptor(a);
            free(ub), free(yb), free(dyb), free(gb), free(xb), free(dxb), free(sb), free(mb), free(vb), free(dsb), free(dbb), free(yv);
            tens_free(&xt), tens_free(&p);
        }
        if (i < 4) /* layouts and backends: identical bits */
            for (int lay = 0; lay < LAY_COUNT; lay++) {
                FD_EXPECT_STATUS(c6_run(&c, lay % 2 ? H_CPU : H_REF, lay, &o2), OK);
                FD_EXPECT(same_bits(o.dx, o2.dx, nx) && same_bits(o.ds, o2.ds, c.c) && same_bits(o.db, o2.db, c.c) &&
                              (!c.dz || same_bits(o.dz, o2.dz, nx)),
                          "%s: layout %s differs", what, lay_names[lay]);
            }
        c6_free(&o), c6_free(&w), c6_free(&o2);
        free(c.x), free(c.dy), free(c.u), free(c.scale), free(c.mean), free(c.inv);
    }
    /* hand case: C 1, 1x1x1x4, x = [0 1 3 4], mean 2, invstd 1 -> xhat [-2 -1 1 2]; mask from
     * u = [+ + - +]; dy = [1 2 3 4] -> g = [1 2 0 4], dBias 7, dScale 4; scale 2, M 4:
     * dx = 2 (g - 7/4 - xhat) = [2.5 2.5 -5.5 0.5]; dz = g */
    c6_t c = {F32, 1, 1, 1, 4, 1, NULL, NULL, NULL, NULL, NULL, NULL};
    double x[4] = {0, 1, 3, 4}, dy[4] = {1, 2, 3, 4}, u[4] = {1, 1, -1, 1}, sc = 2, mean = 2, inv = 1;
    c.x = x, c.dy = dy, c.u = u, c.scale = &sc, c.mean = &mean, c.inv = &inv;
    c6_out_t o;
    c6_alloc(&o, 4, 1);
    FD_EXPECT_STATUS(c6_run(&c, H_REF, LAY_NHWC, &o), OK);
    FD_EXPECT(o.dx[0] == 2.5 && o.dx[1] == 2.5 && o.dx[2] == -5.5 && o.dx[3] == 0.5 && o.db[0] == 7 && o.ds[0] == 4 &&
                  o.dz[0] == 1 && o.dz[1] == 2 && o.dz[2] == 0 && o.dz[3] == 4,
              "op 6 hand case: dx %g %g %g %g dScale %g dBias %g dz %g %g %g %g", o.dx[0], o.dx[1], o.dx[2], o.dx[3], o.ds[0],
              o.db[0], o.dz[0], o.dz[1], o.dz[2], o.dz[3]);
    c6_free(&o);
}

/* ---- 8. a training step through ops 0, 2, 5, 6 against the classic calls ------------------- */

/* The chain the fused ops exist for: conv + statistics (0), finalize (2), normalise + add +
 * ReLU with a bitmask (5), then the backward pass (6) from that bitmask. Classic: conv,
 * cudnnBatchNormalizationForwardTraining, add + activation, activation backward, batch-norm
 * backward. */
static void test_chain(void)
{
    fd_rng_t r;
    fd_rng_seed(&r, 0xC4A1);
    c0_t c;
    memset(&c, 0, sizeof c);
    c.g = (geo_t){2, 3, 5, 4, 6, 3, 3, 1, 1, 1, 5, 4};
    c.dt = F32, c.eqdt = F32, c.ysum = c.ysq = 1;
    const geo_t *g = &c.g;
    int64_t nx = (int64_t)g->n * g->c * g->h * g->w, nw = (int64_t)g->k * g->c * g->r * g->s;
    int64_t ny = (int64_t)g->n * g->k * g->p * g->q, m = (int64_t)g->n * g->p * g->q;
    c.x = dalloc(nx), c.w = dalloc(nw), c.sc = dalloc(g->c), c.bi = dalloc(g->c);
    fill_reals(&r, F32, c.x, nx, -1, 1), fill_reals(&r, F32, c.w, nw, -1, 1);
    double *y = dalloc(ny), *sum = dalloc(g->k), *sq = dalloc(g->k);
    size_t ws;
    FD_EXPECT_STATUS(c0_run(&c, H_REF, LAY_NHWC, y, sum, sq, &ws), OK);
    /* op 2 */
    c2_t f2;
    memset(&f2, 0, sizeof f2);
    f2.c = g->k, f2.m = m, f2.eqdt = F32, f2.eqs = f2.eqb = f2.saved = f2.run = 1, f2.eps = 1e-5, f2.factor = 0.1;
    f2.sum = sum, f2.sq = sq, f2.scale = dalloc(g->k), f2.bias = dalloc(g->k), f2.rm = dalloc(g->k), f2.rv = dalloc(g->k);
    fill_reals(&r, F32, f2.scale, g->k, 0.5, 2), fill_reals(&r, F32, f2.bias, g->k, -0.5, 0.5);
    for (int k = 0; k < g->k; k++)
        f2.rv[k] = 1;
    c2_out_t st;
    c2_out_alloc(&st, g->k);
    FD_EXPECT_STATUS(c2_run(&f2, H_REF, &st), OK);
    /* op 5: u = eqScale y + eqBias + z */
    c5_t f5;
    memset(&f5, 0, sizeof f5);
    f5.dt = F32, f5.eqdt = F32, f5.n = g->n, f5.c = g->k, f5.h = g->p, f5.w = g->q, f5.scale = f5.bias = f5.z = 1;
    f5.x = y, f5.sc = st.eqs, f5.bi = st.eqb, f5.zv = dalloc(ny);
    fill_reals(&r, F32, f5.zv, ny, -0.5, 0.5);
    double *out = dalloc(ny), *u = dalloc(ny), *tmp = dalloc(ny);
    uint32_t *bm = calloc((size_t)bm_words(g->n, g->k, g->p, g->q), 4), *bmo = calloc((size_t)bm_words(g->n, g->k, g->p, g->q), 4);
    FD_EXPECT_STATUS(c5_run(&f5, H_REF, LAY_NHWC, out, bm), OK);
    c5_oracle(&f5, tmp, bmo, u);
    /* op 6 from that bitmask (the test's own bitmask equals op 5's: checked in test_op5) */
    c6_t f6 = {F32, g->n, g->k, g->p, g->q, 1, y, NULL, u, f2.scale, st.smean, st.sinv};
    f6.dy = dalloc(ny);
    fill_reals(&r, F32, f6.dy, ny, -1, 1);
    c6_out_t o;
    c6_alloc(&o, ny, g->k);
    FD_EXPECT_STATUS(c6_run(&f6, H_REF, LAY_NHWC, &o), OK);

    /* classic forward: BN training on y, + z, ReLU */
    tens_t yt, p;
    tens_make(&yt, F32, g->n, g->k, g->p, g->q, LAY_NCHW);
    tens_make(&p, F32, 1, g->k, 1, 1, LAY_NCHW);
    size_t yb_ = tens_bytes(&yt), pb = tens_bytes(&p);
    void *ybuf = calloc(1, yb_), *bnb = calloc(1, yb_), *sb = calloc(1, pb), *bb = calloc(1, pb), *rmb = calloc(1, pb),
         *rvb = calloc(1, pb), *smb = calloc(1, pb), *svb = calloc(1, pb);
    double *ones = dalloc(g->k), *zeros = dalloc(g->k), *bn = dalloc(ny);
    for (int k = 0; k < g->k; k++)
        ones[k] = 1;
    tens_put(&yt, ybuf, y), tens_put(&p, sb, f2.scale), tens_put(&p, bb, f2.bias), tens_put(&p, rmb, zeros), tens_put(&p, rvb, ones);
    float one = 1, zero = 0;
    FD_EXPECT_STATUS(cudnnBatchNormalizationForwardTraining(H_REF, CUDNN_BATCHNORM_SPATIAL, &one, &zero, yt.d, ybuf, yt.d, bnb,
                                                            p.d, sb, bb, 0.1, rmb, rvb, 1e-5, smb, svb),
                     OK);
    tens_get(&yt, bnb, bn);
    int64_t bad = -1;
    for (int64_t e = 0; e < ny && bad < 0; e++) {
        double want = relu(bn[e] + f5.zv[e]);
        if (!(fabs(out[e] - want) <= 1e-5 * (1 + fabs(want))))
            bad = e;
    }
    FD_EXPECT(bad < 0, "chain: op 5 output[%lld] %g, batch norm + z + ReLU %g", (long long)bad, bad < 0 ? 0 : out[bad],
              bad < 0 ? 0 : relu(bn[bad] + f5.zv[bad]));
    /* classic backward: BN backward of g = dy * (u > 0) */
    void *gb = calloc(1, yb_), *dxb = calloc(1, yb_), *dsb = calloc(1, pb), *dbb = calloc(1, pb);
    double *gv = dalloc(ny), *dx = dalloc(ny), *ds = dalloc(g->k), *db = dalloc(g->k);
    for (int64_t e = 0; e < ny; e++)
        gv[e] = u[e] > 0 ? f6.dy[e] : 0;
    tens_put(&yt, gb, gv);
    FD_EXPECT_STATUS(cudnnBatchNormalizationBackward(H_REF, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, yt.d, ybuf, yt.d,
                                                     gb, yt.d, dxb, p.d, sb, dsb, dbb, 1e-5, smb, svb),
                     OK);
    tens_get(&yt, dxb, dx), tens_get(&p, dsb, ds), tens_get(&p, dbb, db);
    int64_t at = first_far(o.dx, dx, ny, 1e-4, 1e-4);
    FD_EXPECT(at < 0, "chain: op 6 dx[%lld] %g, classic %g", (long long)at, at < 0 ? 0 : o.dx[at], at < 0 ? 0 : dx[at]);
    FD_EXPECT(first_far(o.ds, ds, g->k, 1e-4, 1e-3) < 0 && first_far(o.db, db, g->k, 1e-5, 1e-4) < 0,
              "chain: op 6 dScale / dBias differ from the classic backward");
    FD_EXPECT(memcmp(bm, bmo, (size_t)bm_words(g->n, g->k, g->p, g->q) * 4) == 0, "chain: op 5 bitmask");
    free(ybuf), free(bnb), free(sb), free(bb), free(rmb), free(rvb), free(smb), free(svb), free(ones), free(zeros), free(bn);
    free(gb), free(dxb), free(dsb), free(dbb), free(gv), free(dx), free(ds), free(db);
    tens_free(&yt), tens_free(&p);
    c6_free(&o);
    free(f6.dy), free(out), free(u), free(tmp), free(bm), free(bmo), free(f5.zv);
    c2_out_free(&st);
    free(f2.scale), free(f2.bias), free(f2.rm), free(f2.rv);
    free(y), free(sum), free(sq);
    c0_free(&c);
}

static void test_descriptor_lifetime(void)
{
    /* op 3 with C = 2: make the plan, then change and destroy the descriptors; execute still
     * uses what the plan copied */
    tens_t bp, eq;
    tens_make(&bp, F32, 1, 2, 1, 1, LAY_NCHW);
    tens_make(&eq, F32, 1, 2, 1, 1, LAY_NCHW);
    fx_t f;
    fx_begin(&f, CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE, "lifetime");
    fx_mode(&f, CUDNN_BATCHNORM_SPATIAL);
    fx_desc(&f, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, bp.d);
    fx_desc(&f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, eq.d);
    double sc[2] = {2, 4}, bi[2] = {1, 0}, rm[2] = {3, 1}, rv[2] = {3, 15};
    tens_put(&bp, fx_buf(&f, CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PTR_BN_SCALE, 8, R_IN), sc);
    tens_put(&bp, fx_buf(&f, CUDNN_PARAM_BN_BIAS_PLACEHOLDER, CUDNN_PTR_BN_BIAS, 8, R_IN), bi);
    tens_put(&bp, fx_buf(&f, CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, CUDNN_PTR_BN_RUNNING_MEAN, 8, R_IN), rm);
    tens_put(&bp, fx_buf(&f, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER, CUDNN_PTR_BN_RUNNING_VAR, 8, R_IN), rv);
    fx_buf(&f, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PTR_BN_EQSCALE, 8, R_OUT);
    fx_buf(&f, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PTR_BN_EQBIAS, 8, R_OUT);
    f.has_eps = 1, f.eps = 1;
    FD_EXPECT_STATUS(fx_make(&f, H_REF), OK);
    /* a different shape in the descriptor after the plan: the plan keeps C = 2 */
    cudnnSetTensor4dDescriptor(eq.d, CUDNN_TENSOR_NCHW, F16, 1, 7, 1, 1);
    tens_free(&bp);
    FD_EXPECT_STATUS(fx_exec(&f, H_REF), OK);
    double es[2], eb[2];
    eq.dt = F32, eq.c = 2;
    tens_get(&eq, f.b[CUDNN_PTR_BN_EQSCALE].data, es);
    tens_get(&eq, f.b[CUDNN_PTR_BN_EQBIAS].data, eb);
    FD_EXPECT(es[0] == 1 && eb[0] == -2 && es[1] == 1 && eb[1] == -1, "lifetime: %g %g %g %g (want 1 -2 1 -1)", es[0], eb[0],
              es[1], eb[1]);
    FD_EXPECT_STATUS(fx_exec(&f, H_REF), OK); /* and again: the plan stays usable */
    fx_end(&f);
    tens_free(&eq);
}

int main(void)
{
    FD_EXPECT_STATUS(freednnCreateWithBackend(&H_REF, FREEDNN_BACKEND_REF), OK);
    FD_EXPECT_STATUS(freednnCreateWithBackend(&H_CPU, FREEDNN_BACKEND_CPU), OK);
    test_pack_round_trips();
    test_descriptor_lifetime();
    test_op0();
    test_op1();
    test_op2();
    test_op3();
    test_op4();
    test_op5();
    test_op6();
    test_chain();
    cudnnDestroy(H_REF);
    cudnnDestroy(H_CPU);
    return fd_test_finish();
}
