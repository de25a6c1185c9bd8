/* SPDX-License-Identifier: MIT */
/*
 * test_conv_fused.c - cudnnConvolutionBiasActivationForward and cudnnIm2Col against oracles
 * written here: a dense NCHW convolution loop, the activation formulas, and a GEMM of the
 * im2col matrix with the flattened filter (which must equal the convolution). Also hand values,
 * z aliasing y, alpha2 = 0 with z NULL, NHWC layout, half storage, canaries, unchanged inputs,
 * and bad-input rows (status, nothing written).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fd_test.h"

typedef struct {
    int n, c, h, w, k, r, s, pad, stride, dil, groups, xcorr;
} shape_t;

static int out_dim(int in, int f, int pad, int stride, int dil)
{
    return 1 + (in + 2 * pad - ((f - 1) * dil + 1)) / stride;
}

/* Dense NCHW oracle: y[n,k,p,q] = sum x[n, g*Cg+c, ...] * w[k, c, tap...]. */
static double conv_point(const shape_t *s, const double *x, const double *w, int n, int k, int p,
                         int q)
{
    int cg = s->c / s->groups, kg = s->k / s->groups, g = k / kg;
    double acc = 0;
    for (int c = 0; c < cg; c++)
        for (int r = 0; r < s->r; r++)
            for (int t = 0; t < s->s; t++) {
                int hh = p * s->stride - s->pad + r * s->dil,
                    ww = q * s->stride - s->pad + t * s->dil;
                if (hh < 0 || hh >= s->h || ww < 0 || ww >= s->w)
                    continue;
                int rr = s->xcorr ? r : s->r - 1 - r, tt = s->xcorr ? t : s->s - 1 - t;
                acc += x[((n * s->c + g * cg + c) * s->h + hh) * s->w + ww] *
                       w[((k * cg + c) * s->r + rr) * s->s + tt];
            }
    return acc;
}

static double act(cudnnActivationMode_t m, double coef, double v)
{
    switch (m) {
    case CUDNN_ACTIVATION_RELU:
        return v > 0 ? v : 0;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        return v < 0 ? 0 : v > coef ? coef : v;
    case CUDNN_ACTIVATION_SIGMOID:
        return 1 / (1 + exp(-v));
    case CUDNN_ACTIVATION_TANH:
        return tanh(v);
    default:
        return v;
    }
}

typedef struct {
    cudnnTensorDescriptor_t x, y, z, b;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    cudnnActivationDescriptor_t act;
} descs_t;

static void make_descs(descs_t *d, const shape_t *s, cudnnDataType_t dt, cudnnTensorFormat_t fmt,
                       cudnnActivationMode_t mode, double coef)
{
    cudnnCreateTensorDescriptor(&d->x), cudnnCreateTensorDescriptor(&d->y);
    cudnnCreateTensorDescriptor(&d->z), cudnnCreateTensorDescriptor(&d->b);
    cudnnCreateFilterDescriptor(&d->w), cudnnCreateConvolutionDescriptor(&d->conv);
    cudnnCreateActivationDescriptor(&d->act);
    int p = out_dim(s->h, s->r, s->pad, s->stride, s->dil),
        q = out_dim(s->w, s->s, s->pad, s->stride, s->dil);
    cudnnSetTensor4dDescriptor(d->x, fmt, dt, s->n, s->c, s->h, s->w);
    cudnnSetTensor4dDescriptor(d->y, fmt, dt, s->n, s->k, p, q);
    cudnnSetTensor4dDescriptor(d->z, fmt, dt, s->n, s->k, p, q);
    cudnnSetTensor4dDescriptor(d->b, CUDNN_TENSOR_NCHW, dt, 1, s->k, 1, 1);
    cudnnSetFilter4dDescriptor(d->w, dt, CUDNN_TENSOR_NCHW, s->k, s->c / s->groups, s->r, s->s);
    cudnnSetConvolution2dDescriptor(d->conv, s->pad, s->pad, s->stride, s->stride, s->dil, s->dil,
                                    s->xcorr ? CUDNN_CROSS_CORRELATION : CUDNN_CONVOLUTION,
                                    dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT);
    cudnnSetConvolutionGroupCount(d->conv, s->groups);
    cudnnSetActivationDescriptor(d->act, mode, CUDNN_NOT_PROPAGATE_NAN, coef);
}

static void free_descs(descs_t *d)
{
    cudnnDestroyTensorDescriptor(d->x), cudnnDestroyTensorDescriptor(d->y);
    cudnnDestroyTensorDescriptor(d->z), cudnnDestroyTensorDescriptor(d->b);
    cudnnDestroyFilterDescriptor(d->w), cudnnDestroyConvolutionDescriptor(d->conv);
    cudnnDestroyActivationDescriptor(d->act);
}

/* Offset of NCHW-logical (n,c,h,w) in a tensor of the given format. */
static int64_t off(cudnnTensorFormat_t fmt, int C, int H, int W, int n, int c, int h, int w)
{
    if (fmt == CUDNN_TENSOR_NHWC)
        return (((int64_t)n * H + h) * W + w) * C + c;
    return (((int64_t)n * C + c) * H + h) * W + w;
}

/* One randomized case: exact integer data; compares y with the oracle. in_place: z is y. */
static void run_case(cudnnHandle_t h, const shape_t *s, cudnnDataType_t dt, cudnnTensorFormat_t fmt,
                     cudnnActivationMode_t mode, double alpha1, double alpha2, int in_place,
                     int z_null, uint64_t seed)
{
    descs_t d;
    double coef = 6.0;
    make_descs(&d, s, dt, fmt, mode, coef);
    int P = out_dim(s->h, s->r, s->pad, s->stride, s->dil),
        Q = out_dim(s->w, s->s, s->pad, s->stride, s->dil);
    size_t es = fd_test_dtype_size(dt);
    int64_t xn = (int64_t)s->n * s->c * s->h * s->w,
            wn = (int64_t)s->k * (s->c / s->groups) * s->r * s->s;
    int64_t yn = (int64_t)s->n * s->k * P * Q;
    fd_buf_t x = fd_buf_alloc(xn * es), w = fd_buf_alloc(wn * es), y = fd_buf_alloc(yn * es);
    fd_buf_t z = fd_buf_alloc(yn * es), b = fd_buf_alloc(s->k * es);
    fd_rng_t rng;
    fd_rng_seed(&rng, seed);
    fd_fill_int(&rng, dt, x.data, xn, -3, 3, 0.7);
    fd_fill_int(&rng, dt, w.data, wn, -2, 2, 0.7);
    fd_fill_int(&rng, dt, z.data, yn, -4, 4, 0.9);
    fd_fill_int(&rng, dt, b.data, s->k, -5, 5, 1.0);
    if (in_place)
        memcpy(y.data, z.data, yn * es);
    else
        fd_buf_poison(&y);
    /* canonical NCHW copies for the oracle */
    double *xc = malloc(xn * sizeof(double)), *wc = malloc(wn * sizeof(double));
    double *zc = malloc(yn * sizeof(double));
    for (int n = 0; n < s->n; n++)
        for (int c = 0; c < s->c; c++)
            for (int i = 0; i < s->h; i++)
                for (int j = 0; j < s->w; j++)
                    xc[((n * s->c + c) * s->h + i) * s->w + j] =
                        fd_test_load(dt, x.data, off(fmt, s->c, s->h, s->w, n, c, i, j));
    for (int64_t i = 0; i < wn; i++)
        wc[i] = fd_test_load(dt, w.data, i);
    for (int n = 0; n < s->n; n++)
        for (int k = 0; k < s->k; k++)
            for (int p = 0; p < P; p++)
                for (int q = 0; q < Q; q++)
                    zc[((n * s->k + k) * P + p) * Q + q] =
                        fd_test_load(dt, z.data, off(fmt, s->k, P, Q, n, k, p, q));
    uint64_t hx = fd_buf_hash(&x), hw = fd_buf_hash(&w), hb = fd_buf_hash(&b), hz = fd_buf_hash(&z);
    float a1f = (float)alpha1, a2f = (float)alpha2;
    const void *a1 = dt == CUDNN_DATA_DOUBLE ? (const void *)&alpha1 : (const void *)&a1f;
    const void *a2 = dt == CUDNN_DATA_DOUBLE ? (const void *)&alpha2 : (const void *)&a2f;
    const void *zp = z_null ? NULL : in_place ? y.data : z.data;
    cudnnStatus_t st = cudnnConvolutionBiasActivationForward(
        h, a1, d.x, x.data, d.w, w.data, d.conv, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
        NULL, 0, a2, d.z, zp, d.b, b.data, d.act, d.y, y.data);
    FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "status %s", cudnnGetErrorString(st));
    int bad = 0;
    double max_err = 0;
    for (int n = 0; n < s->n && st == CUDNN_STATUS_SUCCESS; n++)
        for (int k = 0; k < s->k; k++)
            for (int p = 0; p < P; p++)
                for (int q = 0; q < Q; q++) {
                    double v = alpha1 * conv_point(s, xc, wc, n, k, p, q) +
                               (z_null ? 0 : alpha2 * zc[((n * s->k + k) * P + p) * Q + q]) +
                               fd_test_load(dt, b.data, k);
                    double want = fd_test_round(dt, act(mode, coef, v));
                    double got = fd_test_load(dt, y.data, off(fmt, s->k, P, Q, n, k, p, q));
                    double err = fabs(got - want);
                    double tol = (mode == CUDNN_ACTIVATION_SIGMOID || mode == CUDNN_ACTIVATION_TANH)
                                     ? 4 * fd_unit_roundoff(dt) + 1e-15
                                     : 0.0; /* exact data: everything else is exact */
                    max_err = fmax(max_err, err);
                    if (!(err <= tol))
                        bad++;
                }
    FD_EXPECT(bad == 0,
              "op=conv_bias_act dt=%s n%dc%dh%dw%d k%dr%ds%d p%d u%d d%d g%d xcorr=%d mode=%d "
              "alpha1=%g alpha2=%g in_place=%d z_null=%d seed=%llu: %d wrong, max err %g",
              fd_test_dtype_short(dt), s->n, s->c, s->h, s->w, s->k, s->r, s->s, s->pad, s->stride,
              s->dil, s->groups, s->xcorr, (int)mode, alpha1, alpha2, in_place, z_null,
              (unsigned long long)seed, bad, max_err);
    FD_EXPECT(fd_buf_guards_ok(&y) && fd_buf_guards_ok(&z), "canary around y or z damaged");
    FD_EXPECT(fd_buf_hash(&x) == hx && fd_buf_hash(&w) == hw && fd_buf_hash(&b) == hb,
              "an input changed");
    FD_EXPECT(in_place || fd_buf_hash(&z) == hz, "z changed");
    free(xc), free(wc), free(zc);
    fd_buf_free(&x), fd_buf_free(&w), fd_buf_free(&y), fd_buf_free(&z), fd_buf_free(&b);
    free_descs(&d);
}

/* Hand case: 1x1x3x3 input 1..9, 2x2 filter of ones, bias -20, RELU: sums 12 16 24 28 -> 0 0 4 8.
 */
static void hand_case(cudnnHandle_t h)
{
    shape_t s = {1, 1, 3, 3, 1, 2, 2, 0, 1, 1, 1, 1};
    descs_t d;
    make_descs(&d, &s, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, CUDNN_ACTIVATION_RELU, 0);
    float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[4] = {1, 1, 1, 1}, b[1] = {-20}, y[4], z[4] = {0};
    float one = 1, zero = 0;
    FD_EXPECT_STATUS(cudnnConvolutionBiasActivationForward(
                         h, &one, d.x, x, d.w, w, d.conv, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                         NULL, 0, &zero, d.z, z, d.b, b, d.act, d.y, y),
                     CUDNN_STATUS_SUCCESS);
    const float want[4] = {0, 0, 4, 8};
    FD_EXPECT(memcmp(y, want, sizeof want) == 0, "hand case: got %g %g %g %g, want 0 0 4 8", y[0],
              y[1], y[2], y[3]);
    free_descs(&d);
}

/* im2col: col (N*P*Q x C*R*S) times the flattened filter (C*R*S x K) must be the convolution;
 * plus hand values of one tiny case. */
static void im2col_case(cudnnHandle_t h, const shape_t *grouped, uint64_t seed)
{
    shape_t one_group = *grouped; /* im2col sees all channels: the GEMM is ungrouped */
    one_group.groups = 1;
    const shape_t *s = &one_group;
    descs_t d;
    make_descs(&d, s, CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NCHW, CUDNN_ACTIVATION_IDENTITY, 0);
    int P = out_dim(s->h, s->r, s->pad, s->stride, s->dil),
        Q = out_dim(s->w, s->s, s->pad, s->stride, s->dil);
    int64_t rows = (int64_t)s->n * P * Q, cols = (int64_t)s->c * s->r * s->s;
    int64_t xn = (int64_t)s->n * s->c * s->h * s->w, wn = (int64_t)s->k * s->c * s->r * s->s;
    fd_buf_t x = fd_buf_alloc(xn * 8), col = fd_buf_alloc(rows * cols * 8);
    double *w = malloc(wn * 8);
    fd_rng_t rng;
    fd_rng_seed(&rng, seed);
    fd_fill_int(&rng, CUDNN_DATA_DOUBLE, x.data, xn, -3, 3, 0.8);
    fd_fill_int(&rng, CUDNN_DATA_DOUBLE, w, wn, -3, 3, 0.8);
    fd_buf_poison(&col);
    FD_EXPECT_STATUS(cudnnIm2Col(h, d.x, x.data, d.w, d.conv, col.data), CUDNN_STATUS_SUCCESS);
    const double *cd = col.data, *xd = x.data;
    int bad = 0;
    for (int n = 0; n < s->n; n++)
        for (int k = 0; k < s->k; k++)
            for (int p = 0; p < P; p++)
                for (int q = 0; q < Q; q++) {
                    double g = 0;
                    int64_t row = ((int64_t)n * P + p) * Q + q;
                    for (int64_t j = 0; j < cols; j++)
                        g += cd[row * cols + j] * w[k * cols + j];
                    if (g != conv_point(s, xd, w, n, k, p, q))
                        bad++;
                }
    FD_EXPECT(bad == 0,
              "im2col x filter != conv for n%dc%dh%dw%d k%dr%ds%d p%d u%d d%d xcorr=%d (%d wrong)",
              s->n, s->c, s->h, s->w, s->k, s->r, s->s, s->pad, s->stride, s->dil, s->xcorr, bad);
    FD_EXPECT(fd_buf_guards_ok(&col), "canary around col damaged");
    free(w);
    fd_buf_free(&x), fd_buf_free(&col);
    free_descs(&d);
}

static void im2col_hand(cudnnHandle_t h)
{
    /* 1x1x2x2 input [1 2; 3 4], 2x2 filter, pad 1, stride 2: output 2x2, patches hand-written. */
    shape_t s = {1, 1, 2, 2, 1, 2, 2, 1, 2, 1, 1, 1};
    descs_t d;
    make_descs(&d, &s, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, CUDNN_ACTIVATION_IDENTITY, 0);
    float x[4] = {1, 2, 3, 4}, col[16];
    FD_EXPECT_STATUS(cudnnIm2Col(h, d.x, x, d.w, d.conv, col), CUDNN_STATUS_SUCCESS);
    const float want[16] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0, 0};
    FD_EXPECT(memcmp(col, want, sizeof want) == 0, "im2col hand case differs");
    free_descs(&d);
}

/* Bad inputs: the status, and y untouched. */
static void contract_rows(cudnnHandle_t h)
{
    shape_t s = {1, 2, 5, 5, 4, 3, 3, 1, 1, 1, 1, 1};
    descs_t d;
    make_descs(&d, &s, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, CUDNN_ACTIVATION_RELU, 0);
    float x[50] = {0}, w[72] = {0}, b[4] = {0}, z[100] = {0}, y[100], one = 1, zero = 0;
    cudnnTensorDescriptor_t badb, badz, unset;
    cudnnCreateTensorDescriptor(&badb), cudnnCreateTensorDescriptor(&badz),
        cudnnCreateTensorDescriptor(&unset);
    cudnnSetTensor4dDescriptor(badb, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 1, 1);
    cudnnSetTensor4dDescriptor(badz, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 4, 5, 4);
    cudnnActivationDescriptor_t unset_act;
    cudnnCreateActivationDescriptor(&unset_act);
    struct {
        const char *name;
        cudnnStatus_t want;
        cudnnStatus_t got;
    } rows[12];
    int n = 0;
#define ROW(nm, st, call)                                                                          \
    do {                                                                                           \
        memset(y, 0x5a, sizeof y);                                                                 \
        rows[n].name = nm, rows[n].want = st, rows[n].got = (call);                                \
        unsigned char *yb = (unsigned char *)y;                                                    \
        int untouched = 1;                                                                         \
        for (size_t i = 0; i < sizeof y; i++)                                                      \
            untouched &= yb[i] == 0x5a;                                                            \
        FD_EXPECT(untouched, "%s: y was written by a rejected call", nm);                          \
        n++;                                                                                       \
    } while (0)
    cudnnConvolutionFwdAlgo_t A = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    ROW("NULL handle", CUDNN_STATUS_BAD_PARAM,
        cudnnConvolutionBiasActivationForward(NULL, &one, d.x, x, d.w, w, d.conv, A, NULL, 0, &zero,
                                              d.z, z, d.b, b, d.act, d.y, y));
    ROW("NULL alpha1", CUDNN_STATUS_BAD_PARAM,
        cudnnConvolutionBiasActivationForward(h, NULL, d.x, x, d.w, w, d.conv, A, NULL, 0, &zero,
                                              d.z, z, d.b, b, d.act, d.y, y));
    ROW("NULL bias", CUDNN_STATUS_BAD_PARAM,
        cudnnConvolutionBiasActivationForward(h, &one, d.x, x, d.w, w, d.conv, A, NULL, 0, &zero,
                                              d.z, z, d.b, NULL, d.act, d.y, y));
    ROW("NULL z with alpha2 1", CUDNN_STATUS_BAD_PARAM,
        cudnnConvolutionBiasActivationForward(h, &one, d.x, x, d.w, w, d.conv, A, NULL, 0, &one,
                                              d.z, NULL, d.b, b, d.act, d.y, y));
    ROW("bias with 3 channels", CUDNN_STATUS_BAD_PARAM,
        cudnnConvolutionBiasActivationForward(h, &one, d.x, x, d.w, w, d.conv, A, NULL, 0, &zero,
                                              d.z, z, badb, b, d.act, d.y, y));
    ROW("z shape differs", CUDNN_STATUS_BAD_PARAM,
        cudnnConvolutionBiasActivationForward(h, &one, d.x, x, d.w, w, d.conv, A, NULL, 0, &zero,
                                              badz, z, d.b, b, d.act, d.y, y));
    ROW("y shape differs", CUDNN_STATUS_BAD_PARAM,
        cudnnConvolutionBiasActivationForward(h, &one, d.x, x, d.w, w, d.conv, A, NULL, 0, &zero,
                                              d.z, z, d.b, b, d.act, badz, y));
    ROW("unset zDesc", CUDNN_STATUS_BAD_PARAM,
        cudnnConvolutionBiasActivationForward(h, &one, d.x, x, d.w, w, d.conv, A, NULL, 0, &zero,
                                              unset, z, d.b, b, d.act, d.y, y));
    ROW("unset activation", CUDNN_STATUS_BAD_PARAM,
        cudnnConvolutionBiasActivationForward(h, &one, d.x, x, d.w, w, d.conv, A, NULL, 0, &zero,
                                              d.z, z, d.b, b, unset_act, d.y, y));
    ROW("algo 99", CUDNN_STATUS_NOT_SUPPORTED,
        cudnnConvolutionBiasActivationForward(h, &one, d.x, x, d.w, w, d.conv,
                                              (cudnnConvolutionFwdAlgo_t)99, NULL, 0, &zero, d.z, z,
                                              d.b, b, d.act, d.y, y));
    ROW("y is x", CUDNN_STATUS_NOT_SUPPORTED,
        cudnnConvolutionBiasActivationForward(h, &one, d.x, y, d.w, w, d.conv, A, NULL, 0, &zero,
                                              d.z, z, d.b, b, d.act, d.y, y));
    ROW("im2col NULL col", CUDNN_STATUS_BAD_PARAM, cudnnIm2Col(h, d.x, x, d.w, d.conv, NULL));
#undef ROW
    for (int i = 0; i < n; i++) {
        char why[256];
        cudnnGetLastErrorString(why, sizeof why);
        FD_EXPECT(rows[i].got == rows[i].want, "%s: got %s, want %s", rows[i].name,
                  cudnnGetErrorString(rows[i].got), cudnnGetErrorString(rows[i].want));
    }
    cudnnDestroyTensorDescriptor(badb), cudnnDestroyTensorDescriptor(badz),
        cudnnDestroyTensorDescriptor(unset);
    cudnnDestroyActivationDescriptor(unset_act);
    free_descs(&d);
}

int main(void)
{
    cudnnHandle_t ref, cpu;
    FD_EXPECT_STATUS(freednnCreateWithBackend(&ref, FREEDNN_BACKEND_REF), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(freednnCreateWithBackend(&cpu, FREEDNN_BACKEND_CPU), CUDNN_STATUS_SUCCESS);
    hand_case(ref);
    im2col_hand(ref);
    contract_rows(ref);

    const cudnnActivationMode_t modes[] = {CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_IDENTITY,
                                           CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_ACTIVATION_SIGMOID,
                                           CUDNN_ACTIVATION_TANH};
    const cudnnDataType_t dts[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                   CUDNN_DATA_BFLOAT16};
    fd_rng_t rng;
    fd_rng_seed(&rng, fd_test_sweep_seed(0xb1a5ac7ull));
    for (int i = 0; i < 120; i++) {
        shape_t s;
        s.groups = fd_rng_int(&rng, 1, 3);
        s.n = fd_rng_int(&rng, 1, 2);
        s.c = s.groups * fd_rng_int(&rng, 1, 3);
        s.k = s.groups * fd_rng_int(&rng, 1, 3);
        s.r = fd_rng_int(&rng, 1, 3), s.s = fd_rng_int(&rng, 1, 3);
        s.dil = fd_rng_int(&rng, 1, 2), s.pad = fd_rng_int(&rng, 0, 2),
        s.stride = fd_rng_int(&rng, 1, 2);
        s.h = fd_rng_int(&rng, (s.r - 1) * s.dil + 1, 8),
        s.w = fd_rng_int(&rng, (s.s - 1) * s.dil + 1, 8);
        s.xcorr = fd_rng_int(&rng, 0, 1);
        cudnnDataType_t dt = dts[i % 4];
        cudnnTensorFormat_t fmt = (i / 4) % 2 ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
        cudnnActivationMode_t mode = modes[i % 5];
        double alpha1 = (i % 3) == 0 ? 1.0 : (i % 3) == 1 ? 0.5 : -2.0;
        double alpha2 = (i % 7) == 0 ? 0.0 : (i % 2) ? 1.0 : 0.25;
        int in_place = (i % 6) == 1, z_null = alpha2 == 0.0 && (i % 2);
        run_case(i % 2 ? cpu : ref, &s, dt, fmt, mode, alpha1, alpha2, in_place, z_null,
                 fd_test_mix(0xfeedull, (uint64_t)i));
        im2col_case(ref, &s, fd_test_mix(0x12c0ull, (uint64_t)i));
    }
    cudnnDestroy(ref);
    cudnnDestroy(cpu);
    return fd_test_finish();
}
