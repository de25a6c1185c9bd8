/* SPDX-License-Identifier: MIT */
/*
 * test_conv_int8.c - INT8 forward convolution on the ref backend (src/ref/conv_int8_ref.c,
 * docs/int8.md) through the public API, against
 * - hand-computed cases (numbers worked out here: rounding ties, saturation, a 32-bit wrap),
 * - a brute-force oracle written in this file: int64 accumulation over logical arrays, reduced
 *   modulo 2^32 afterwards (not the ref's uint32 running sum), then the documented epilogue in
 *   float with its own round-half-even (not nearbyintf); tolerance 0: every output byte must
 *   match, for y INT8 / INT8x4 / UINT8x4 / INT8x32 and FLOAT (INT8_EXT_CONFIG, bit-identical
 *   float: both sides do alpha * (float)acc + beta * old in float, one rounding per operation),
 * - and the validation answers (BAD_PARAM for an INT8 tensor with C % 4 != 0, NOT_SUPPORTED
 *   for the wrong compute type, algorithm, layout, direction or type combination, y untouched).
 * Every run checks guard bytes around x, w, y and that x and w are unchanged.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fd_test.h"

typedef struct {
    const char *name;
    int nsp, n, c, k, groups;
    int in[3], f[3], pad[3], str[3], dil[3];
    int flip; /* CUDNN_CONVOLUTION */
    cudnnDataType_t xdt, ydt;
    int padded;   /* plain layouts: pixel stride C + 4 (a gap after every pixel) */
    int ynchw;    /* FLOAT y of a vectorised config: NCHW instead of NHWC */
    float alpha, beta;
    int algo;
    uint64_t seed;
} ic_case_t;

static int vect_of(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_INT8x32 ? 32 : (dt == CUDNN_DATA_INT8x4 || dt == CUDNN_DATA_UINT8x4) ? 4 : 1;
}

static cudnnDataType_t w_type(cudnnDataType_t xdt)
{
    return xdt == CUDNN_DATA_UINT8x4 ? CUDNN_DATA_INT8x4 : xdt;
}

/* A tensor of dims (n, c, sp...) and the element offset of each logical index. */
typedef struct {
    int nb;
    int dim[5];
    int64_t st[5]; /* element strides; c: of one vector step when v > 1 */
    int v;
    int64_t bytes;
} ic_layout_t;

static int64_t lay_off(const ic_layout_t *l, const int *idx)
{
    int64_t o = 0;
    for (int i = 0; i < l->nb; i++)
        o += i == 1 ? (int64_t)(idx[1] / l->v) * l->st[1] + idx[1] % l->v : (int64_t)idx[i] * l->st[i];
    return o;
}

/* Channels-last strides (C innermost, pixel stride C + gap). */
static void lay_nhwc(ic_layout_t *l, int nb, const int *dim, int gap, size_t esize)
{
    l->nb = nb, l->v = 1;
    memcpy(l->dim, dim, sizeof(int) * (size_t)nb);
    int64_t acc = dim[1] + gap;
    l->st[1] = 1;
    for (int i = nb - 1; i >= 2; i--) {
        l->st[i] = acc;
        acc *= dim[i];
    }
    l->st[0] = acc;
    l->bytes = acc * dim[0] * (int64_t)esize;
}

/* NCHW (v == 1) or NCHW_VECT_C packed strides, in elements. */
static void lay_nchw(ic_layout_t *l, int nb, const int *dim, int v, size_t esize)
{
    l->nb = nb, l->v = v;
    memcpy(l->dim, dim, sizeof(int) * (size_t)nb);
    int64_t acc = v;
    for (int i = nb - 1; i >= 0; i--) {
        l->st[i] = acc;
        acc *= i == 1 ? dim[1] / v : dim[i];
    }
    l->bytes = acc * (int64_t)esize;
}

static void set_tensor(cudnnTensorDescriptor_t d, cudnnDataType_t dt, const ic_layout_t *l)
{
    if (l->v > 1) {
        FD_EXPECT_STATUS(cudnnSetTensorNdDescriptorEx(d, CUDNN_TENSOR_NCHW_VECT_C, dt, l->nb, l->dim),
                         CUDNN_STATUS_SUCCESS);
        return;
    }
    int st[5];
    for (int i = 0; i < l->nb; i++)
        st[i] = (int)l->st[i];
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(d, dt, l->nb, l->dim, st), CUDNN_STATUS_SUCCESS);
}

/* Row-major iteration over dims. Returns 0 after the last index. */
static int next_index(int nb, const int *dim, int *idx)
{
    for (int i = nb - 1; i >= 0; i--) {
        if (++idx[i] < dim[i])
            return 1;
        idx[i] = 0;
    }
    return 0;
}

static int32_t wrap32(int64_t s)
{
    uint32_t u = (uint32_t)((uint64_t)s & 0xffffffffu);
    return u <= 0x7fffffffu ? (int32_t)u : (int32_t)(-(int64_t)(0x100000000ull - u));
}

/* Round half to even, written out (the library uses nearbyintf). */
static float round_even(float v)
{
    float f = floorf(v), d = v - f;
    if (d > 0.5f)
        return f + 1.0f;
    if (d < 0.5f)
        return f;
    return fmodf(f, 2.0f) == 0.0f ? f : f + 1.0f;
}

static float epilogue(int32_t acc, float alpha, float beta, float old)
{
    float v = alpha * (float)acc;
    if (beta != 0.0f) {
        float b = beta * old;
        v = v + b;
    }
    return v;
}

static uint8_t to_int_byte(float v, int is_unsigned)
{
    float lo = is_unsigned ? 0.0f : -128.0f, hi = is_unsigned ? 255.0f : 127.0f;
    float r = v != v ? 0.0f : round_even(v);
    r = r < lo ? lo : r > hi ? hi : r;
    return is_unsigned ? (uint8_t)r : (uint8_t)(int8_t)r;
}

typedef struct {
    cudnnHandle_t h;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
} ic_ctx_t;

/* Builds x / w / y layouts of a case. */
static void case_layouts(const ic_case_t *c, ic_layout_t *xl, ic_layout_t *wl, ic_layout_t *yl, int *out)
{
    const int nb = c->nsp + 2, v = vect_of(c->xdt);
    int xdim[5] = {c->n, c->c}, wdim[5] = {c->k, c->c / c->groups}, ydim[5] = {c->n, c->k};
    for (int i = 0; i < c->nsp; i++) {
        xdim[2 + i] = c->in[i];
        wdim[2 + i] = c->f[i];
        int span = (c->f[i] - 1) * c->dil[i] + 1;
        ydim[2 + i] = out[i] = (c->in[i] + 2 * c->pad[i] - span) / c->str[i] + 1;
    }
    const size_t ysz = c->ydt == CUDNN_DATA_FLOAT ? 4 : 1;
    if (v == 1) {
        lay_nhwc(xl, nb, xdim, c->padded ? 4 : 0, 1);
        lay_nhwc(wl, nb, wdim, 0, 1);
        lay_nhwc(yl, nb, ydim, c->padded ? 4 : 0, ysz);
    } else {
        lay_nchw(xl, nb, xdim, v, 1);
        lay_nchw(wl, nb, wdim, v, 1);
        if (c->ydt == CUDNN_DATA_FLOAT && !c->ynchw)
            lay_nhwc(yl, nb, ydim, 0, 4);
        else
            lay_nchw(yl, nb, ydim, c->ydt == CUDNN_DATA_FLOAT ? 1 : v, ysz);
    }
}

/* Runs one case on h and checks every byte of y against the oracle. */
static void run_case(ic_ctx_t *t, const ic_case_t *c)
{
    const int nb = c->nsp + 2;
    int out[3];
    ic_layout_t xl, wl, yl;
    case_layouts(c, &xl, &wl, &yl, out);
    set_tensor(t->xd, c->xdt, &xl);
    set_tensor(t->yd, c->ydt, &yl);
    FD_EXPECT_STATUS(cudnnSetFilterNdDescriptor(t->wd, w_type(c->xdt),
                                                vect_of(c->xdt) > 1 ? CUDNN_TENSOR_NCHW_VECT_C
                                                                    : CUDNN_TENSOR_NHWC,
                                                nb, wl.dim),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionNdDescriptor(t->cd, c->nsp, c->pad, c->str, c->dil,
                                                     c->flip ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION,
                                                     CUDNN_DATA_INT32),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionGroupCount(t->cd, c->groups), CUDNN_STATUS_SUCCESS);

    /* y and w in one guarded block, y first, a guard-filled gap between: whatever the
     * allocator does, y never lies above w (see wy_gap_ok for why that matters) */
    const size_t ygap = ((size_t)yl.bytes + 63) / 64 * 64 + FD_GUARD_BYTES;
    fd_buf_t xb = fd_buf_alloc((size_t)xl.bytes), ywb = fd_buf_alloc(ygap + (size_t)wl.bytes);
    fd_buf_t yb = {NULL, ywb.data, (size_t)yl.bytes}, wb = {NULL, (uint8_t *)ywb.data + ygap, (size_t)wl.bytes};
    memset((uint8_t *)ywb.data + yl.bytes, FD_GUARD_BYTE, ygap - (size_t)yl.bytes);
    fd_rng_t r;
    fd_rng_seed(&r, c->seed);
    const int xu = c->xdt == CUDNN_DATA_UINT8x4;
    for (int64_t i = 0; i < xl.bytes; i++) /* gaps too: noise a wrong index would pick up */
        ((uint8_t *)xb.data)[i] = (uint8_t)fd_rng_int(&r, 0, 255);
    for (int64_t i = 0; i < wl.bytes; i++)
        ((uint8_t *)wb.data)[i] = (uint8_t)fd_rng_int(&r, 0, 255);
    if (c->ydt == CUDNN_DATA_FLOAT)
        for (int64_t i = 0; i < yl.bytes / 4; i++)
            ((float *)yb.data)[i] = c->beta != 0.0f ? (float)fd_rng_int(&r, -300, 300) * 0.25f : NAN;
    else if (c->beta != 0.0f)
        for (int64_t i = 0; i < yl.bytes; i++)
            ((uint8_t *)yb.data)[i] = (uint8_t)fd_rng_int(&r, 0, 255);
    else
        fd_buf_poison(&yb);
    uint8_t *y_before = malloc((size_t)yl.bytes);
    memcpy(y_before, yb.data, (size_t)yl.bytes);
    uint64_t hx = fd_buf_hash(&xb), hw = fd_buf_hash(&wb);

    size_t ws = 1;
    FD_EXPECT_STATUS(cudnnGetConvolutionForwardWorkspaceSize(t->h, t->xd, t->wd, t->cd, t->yd,
                                                             (cudnnConvolutionFwdAlgo_t)c->algo, &ws),
                     CUDNN_STATUS_SUCCESS);
    fd_buf_t wsb = fd_buf_alloc(ws ? ws : 1);
    cudnnStatus_t st = cudnnConvolutionForward(t->h, &c->alpha, t->xd, xb.data, t->wd, wb.data, t->cd,
                                               (cudnnConvolutionFwdAlgo_t)c->algo, wsb.data, ws,
                                               &c->beta, t->yd, yb.data);
    char msg[512] = "";
    if (st != CUDNN_STATUS_SUCCESS)
        cudnnGetLastErrorString(msg, sizeof msg);
    FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "%s: cudnnConvolutionForward returned %s (%s)", c->name,
              cudnnGetErrorString(st), msg);
    int gap_ok = 1;
    for (size_t i = (size_t)yl.bytes; i < ygap; i++)
        gap_ok &= ((uint8_t *)ywb.data)[i] == FD_GUARD_BYTE;
    FD_EXPECT(fd_buf_guards_ok(&xb) && fd_buf_guards_ok(&ywb) && gap_ok && fd_buf_guards_ok(&wsb),
              "%s: a guard was overwritten", c->name);
    FD_EXPECT(fd_buf_hash(&xb) == hx && fd_buf_hash(&wb) == hw, "%s: x or w changed", c->name);

    /* the oracle, element by element over y's logical index */
    const int cg = c->c / c->groups, kg = c->k / c->groups;
    int64_t bad = 0, checked = 0;
    int yi[5] = {0};
    uint8_t *touched = calloc((size_t)yl.bytes, 1);
    do {
        const int n = yi[0], k = yi[1], g = k / kg;
        int64_t s = 0;
        for (int ch = 0; ch < cg; ch++) {
            int ti[3] = {0};
            int fdim[3] = {1, 1, 1};
            for (int i = 0; i < c->nsp; i++)
                fdim[i] = c->f[i];
            do {
                int xi[5] = {n, g * cg + ch}, wi[5] = {k, ch}, ok = 1;
                for (int i = 0; i < c->nsp; i++) {
                    int pos = yi[2 + i] * c->str[i] - c->pad[i] + ti[i] * c->dil[i];
                    ok &= pos >= 0 && pos < c->in[i];
                    xi[2 + i] = pos;
                    wi[2 + i] = c->flip ? c->f[i] - 1 - ti[i] : ti[i];
                }
                if (!ok)
                    continue;
                uint8_t xbyte = ((uint8_t *)xb.data)[lay_off(&xl, xi)];
                int64_t xv = xu ? (int64_t)xbyte : (int64_t)(int8_t)xbyte;
                int64_t wv = (int8_t)((uint8_t *)wb.data)[lay_off(&wl, wi)];
                s += xv * wv;
            } while (next_index(c->nsp, fdim, ti));
        }
        const int64_t yo = lay_off(&yl, yi);
        checked++;
        if (c->ydt == CUDNN_DATA_FLOAT) {
            float old;
            memcpy(&old, y_before + yo * 4, 4);
            float want = epilogue(wrap32(s), c->alpha, c->beta, old), got;
            memcpy(&got, (uint8_t *)yb.data + yo * 4, 4);
            memset(touched + yo * 4, 1, 4);
            if (memcmp(&want, &got, 4) != 0 && bad++ < 3)
                FD_EXPECT(0, "%s: y at logical (%d, %d, ...) is %.9g, want %.9g (sum %lld)", c->name,
                          yi[0], yi[1], got, want, (long long)s);
        } else {
            const int yu = c->ydt == CUDNN_DATA_UINT8x4;
            float old = yu ? (float)y_before[yo] : (float)(int8_t)y_before[yo];
            uint8_t want = to_int_byte(epilogue(wrap32(s), c->alpha, c->beta, old), yu);
            uint8_t got = ((uint8_t *)yb.data)[yo];
            touched[yo] = 1;
            if (want != got && bad++ < 3)
                FD_EXPECT(0, "%s: y at logical (%d, %d, ...) is %d, want %d (sum %lld)", c->name,
                          yi[0], yi[1], yu ? got : (int8_t)got, yu ? want : (int8_t)want, (long long)s);
        }
    } while (next_index(nb, yl.dim, yi));
    for (int64_t i = 0; i < yl.bytes; i++) /* the gaps of a padded y are not written */
        if (!touched[i] && ((uint8_t *)yb.data)[i] != y_before[i] && bad++ < 3)
            FD_EXPECT(0, "%s: y byte %lld outside the tensor was written", c->name, (long long)i);
    FD_EXPECT(bad == 0, "%s: %lld of %lld outputs differ from the oracle", c->name, (long long)bad,
              (long long)checked);
    free(touched);
    free(y_before);
    fd_buf_free(&xb), fd_buf_free(&ywb), fd_buf_free(&wsb);
}

/* ---- hand cases ------------------------------------------------------------------------------ */

/* 1x1 convolution of one NHWC pixel with C = 4, K = 4: y[k] = sum_c x[c] w[k][c], scaled. */
static void hand_1x1(ic_ctx_t *t, const int8_t x[4], const int8_t w[16], float alpha, float beta,
                     cudnnDataType_t ydt, const float *old, const float *want, const char *name)
{
    int dim[4] = {1, 4, 1, 1}, st[4] = {4, 1, 4, 4};
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->xd, CUDNN_DATA_INT8, 4, dim, st), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->yd, ydt, 4, dim, st), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetFilter4dDescriptor(t->wd, CUDNN_DATA_INT8, CUDNN_TENSOR_NHWC, 4, 4, 1, 1),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolution2dDescriptor(t->cd, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                                     CUDNN_DATA_INT32),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionGroupCount(t->cd, 1), CUDNN_STATUS_SUCCESS);
    float yf[4];
    int8_t y8[4];
    for (int i = 0; i < 4; i++)
        yf[i] = old ? old[i] : NAN, y8[i] = old ? (int8_t)old[i] : (int8_t)-1;
    void *y = ydt == CUDNN_DATA_FLOAT ? (void *)yf : (void *)y8;
    FD_EXPECT_STATUS(cudnnConvolutionForward(t->h, &alpha, t->xd, x, t->wd, w, t->cd,
                                             CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, NULL, 0,
                                             &beta, t->yd, y),
                     CUDNN_STATUS_SUCCESS);
    for (int i = 0; i < 4; i++) {
        float got = ydt == CUDNN_DATA_FLOAT ? yf[i] : (float)y8[i];
        FD_EXPECT(got == want[i], "%s: y[%d] = %g, want %g", name, i, got, want[i]);
    }
}

static void hand_cases(ic_ctx_t *t)
{
    /* x = (1, 2, 3, 4); rows of w give sums 1, 3, 5, -7 */
    static const int8_t x[4] = {1, 2, 3, 4};
    static const int8_t w[16] = {1, 0, 0, 0, /* 1 */ 1, 1, 0, 0, /* 3 */ -1, 0, 2, 0, /* 5 */
                                 1, 0, 0, -2 /* -7 */};
    static const float sums[4] = {1, 3, 5, -7};
    hand_1x1(t, x, w, 1.0f, 0.0f, CUDNN_DATA_FLOAT, NULL, sums, "hand ext alpha 1");
    /* alpha 0.5: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -3.5 -> -4 (ties to even) */
    static const float half[4] = {0, 2, 2, -4};
    hand_1x1(t, x, w, 0.5f, 0.0f, CUDNN_DATA_INT8, NULL, half, "hand ties to even");
    /* alpha 100: 100, 300 -> 127, 500 -> 127, -700 -> -128 */
    static const float sat[4] = {100, 127, 127, -128};
    hand_1x1(t, x, w, 100.0f, 0.0f, CUDNN_DATA_INT8, NULL, sat, "hand saturation");
    /* beta: y = 2 * sum + 0.5 * old with old = (10, -10, 3, 1): 7, 1, 11.5 -> 12, -13.5 -> -14 */
    static const float old[4] = {10, -10, 3, 1};
    static const float blend[4] = {7, 1, 12, -14};
    hand_1x1(t, x, w, 2.0f, 0.5f, CUDNN_DATA_INT8, old, blend, "hand beta int8");
    static const float blend_f[4] = {7, 1, 11.5f, -13.5f};
    hand_1x1(t, x, w, 2.0f, 0.5f, CUDNN_DATA_FLOAT, old, blend_f, "hand beta float");
    /* NaN alpha: the float result is NaN, the INT8 one 0 */
    static const float zeros[4] = {0, 0, 0, 0};
    hand_1x1(t, x, w, NAN, 0.0f, CUDNN_DATA_INT8, NULL, zeros, "hand NaN alpha int8");

    /* The wrap: x and w all -128, C = 4096, 6x6 filter on a 6x6 input: one output summing
     * 147456 products of 16384 = 2415919104 = 2^31 + 268435456, which wraps to -1879048192
     * (exact in float). With alpha 1 / 2^24 the INT8 output is -112. */
    {
        enum { C = 4096, R = 6 };
        int dim[4] = {1, C, R, R}, one[4] = {1, C, 1, 1};
        FD_EXPECT_STATUS(cudnnSetTensorNdDescriptorEx(t->xd, CUDNN_TENSOR_NHWC, CUDNN_DATA_INT8, 4, dim),
                         CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(cudnnSetFilter4dDescriptor(t->wd, CUDNN_DATA_INT8, CUDNN_TENSOR_NHWC, 4, C, R, R),
                         CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(cudnnSetConvolution2dDescriptor(t->cd, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                                         CUDNN_DATA_INT32),
                         CUDNN_STATUS_SUCCESS);
        one[1] = 4;
        int8_t *xv = malloc(C * R * R), *wv = malloc(4 * C * R * R);
        memset(xv, 0x80, C * R * R);
        memset(wv, 0x80, 4 * C * R * R);
        float yf[4];
        int8_t y8[4];
        float a1 = 1.0f, a2 = 1.0f / 16777216.0f, b0 = 0.0f;
        FD_EXPECT_STATUS(cudnnSetTensorNdDescriptorEx(t->yd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 4, one),
                         CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(cudnnConvolutionForward(t->h, &a1, t->xd, xv, t->wd, wv, t->cd,
                                                 CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, NULL, 0, &b0,
                                                 t->yd, yf),
                         CUDNN_STATUS_SUCCESS);
        FD_EXPECT(yf[0] == -1879048192.0f && yf[3] == -1879048192.0f, "wrap: y = %.10g, want -1879048192",
                  yf[0]);
        FD_EXPECT_STATUS(cudnnSetTensorNdDescriptorEx(t->yd, CUDNN_TENSOR_NHWC, CUDNN_DATA_INT8, 4, one),
                         CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(cudnnConvolutionForward(t->h, &a2, t->xd, xv, t->wd, wv, t->cd,
                                                 CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, NULL, 0, &b0,
                                                 t->yd, y8),
                         CUDNN_STATUS_SUCCESS);
        FD_EXPECT(y8[0] == -112 && y8[2] == -112, "wrap int8: y = %d, want -112", y8[0]);
        free(xv), free(wv);
    }
}

/* ---- validation ------------------------------------------------------------------------------ */

typedef struct {
    const char *name;
    cudnnDataType_t xdt, wdt, ydt, comp;
    cudnnTensorFormat_t xfmt, wfmt, yfmt;
    int c, k, algo, bwd;
    cudnnStatus_t want;
    const char *says; /* a word the error string must contain */
} ic_bad_t;

static void validation(ic_ctx_t *t)
{
    const cudnnDataType_t I8 = CUDNN_DATA_INT8, F32 = CUDNN_DATA_FLOAT, I32 = CUDNN_DATA_INT32,
                          X4 = CUDNN_DATA_INT8x4, U8 = CUDNN_DATA_UINT8;
    const cudnnTensorFormat_t NHWC = CUDNN_TENSOR_NHWC, NCHW = CUDNN_TENSOR_NCHW, VECT = CUDNN_TENSOR_NCHW_VECT_C;
    const cudnnStatus_t NS = CUDNN_STATUS_NOT_SUPPORTED, BAD = CUDNN_STATUS_BAD_PARAM, OK = CUDNN_STATUS_SUCCESS;
    const ic_bad_t rows[] = {
        {"ok int8 precomp", I8, I8, I8, I32, NHWC, NHWC, NHWC, 8, 8, 1, 0, OK, NULL},
        {"ok int8 implicit", I8, I8, I8, I32, NHWC, NHWC, NHWC, 8, 8, 0, 0, OK, NULL},
        {"ok ext", I8, I8, F32, I32, NHWC, NHWC, NHWC, 8, 6, 1, 0, OK, NULL},
        {"ok int8x4", X4, X4, X4, I32, VECT, VECT, VECT, 8, 8, 1, 0, OK, NULL},
        {"ok int8x4 ext nchw", X4, X4, F32, I32, VECT, VECT, NCHW, 8, 5, 0, 0, OK, NULL},
        {"x C % 4", I8, I8, I8, I32, NHWC, NHWC, NHWC, 6, 8, 1, 0, BAD, "multiple of 4"},
        {"y K % 4", I8, I8, I8, I32, NHWC, NHWC, NHWC, 8, 6, 1, 0, BAD, "multiple of 4"},
        {"compute float", I8, I8, I8, F32, NHWC, NHWC, NHWC, 8, 8, 1, 0, NS, "INT32"},
        {"float data int32 compute", F32, F32, F32, I32, NCHW, NCHW, NCHW, 8, 8, 1, 0, NS, "INT32"},
        {"algo GEMM", I8, I8, I8, I32, NHWC, NHWC, NHWC, 8, 8, 2, 0, NS, "IMPLICIT"},
        {"algo DIRECT", I8, I8, I8, I32, NHWC, NHWC, NHWC, 8, 8, 3, 0, NS, "IMPLICIT"},
        {"algo WINOGRAD", I8, I8, I8, I32, NHWC, NHWC, NHWC, 8, 8, 6, 0, NS, "IMPLICIT"},
        {"nchw x", I8, I8, I8, I32, NCHW, NHWC, NHWC, 8, 8, 1, 0, NS, "NHWC"},
        {"nchw y", I8, I8, I8, I32, NHWC, NHWC, NCHW, 8, 8, 1, 0, NS, "NHWC"},
        {"nchw filter", I8, I8, I8, I32, NHWC, NCHW, NHWC, 8, 8, 1, 0, NS, "KRSC"},
        {"int8x4 to int8", X4, X4, I8, I32, VECT, VECT, NHWC, 8, 8, 1, 0, NS, "configuration"},
        {"int8 x, int8x4 w", I8, X4, I8, I32, NHWC, VECT, NHWC, 8, 8, 1, 0, NS, "configuration"},
        {"uint8 x", U8, I8, I8, I32, NHWC, NHWC, NHWC, 8, 8, 1, 0, NS, "UINT8"},
        {"int32 y", I8, I8, I32, I32, NHWC, NHWC, NHWC, 8, 8, 1, 0, NS, "configuration"},
        {"backward data", I8, I8, I8, I32, NHWC, NHWC, NHWC, 8, 8, 1, 1, NS, "forward only"},
        {"backward filter", I8, I8, I8, I32, NHWC, NHWC, NHWC, 8, 8, 1, 2, NS, "forward only"},
    };
    int8_t x[2 * 8 * 5 * 5], w[8 * 8 * 9];
    memset(x, 1, sizeof x);
    memset(w, 1, sizeof w);
    fd_buf_t yb = fd_buf_alloc(2 * 8 * 5 * 5 * 4);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const ic_bad_t *b = &rows[i];
        FD_EXPECT_STATUS(cudnnSetTensor4dDescriptor(t->xd, b->xfmt, b->xdt, 2, b->c, 5, 5), CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(cudnnSetTensor4dDescriptor(t->yd, b->yfmt, b->ydt, 2, b->k, 5, 5), CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(cudnnSetFilter4dDescriptor(t->wd, b->wdt, b->wfmt, b->k, b->c, 3, 3), CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(cudnnSetConvolution2dDescriptor(t->cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, b->comp),
                         CUDNN_STATUS_SUCCESS);
        fd_buf_poison(&yb);
        uint64_t before = fd_buf_hash(&yb);
        float one = 1.0f, zero = 0.0f;
        cudnnStatus_t st;
        if (b->bwd == 1)
            st = cudnnConvolutionBackwardData(t->h, &one, t->wd, w, t->yd, yb.data, t->cd,
                                              (cudnnConvolutionBwdDataAlgo_t)b->algo, NULL, 0, &zero, t->xd, x);
        else if (b->bwd == 2)
            st = cudnnConvolutionBackwardFilter(t->h, &one, t->xd, x, t->yd, yb.data, t->cd,
                                                (cudnnConvolutionBwdFilterAlgo_t)b->algo, NULL, 0, &zero, t->wd, w);
        else
            st = cudnnConvolutionForward(t->h, &one, t->xd, x, t->wd, w, t->cd,
                                         (cudnnConvolutionFwdAlgo_t)b->algo, NULL, 0, &zero, t->yd, yb.data);
        char msg[1024] = "";
        cudnnGetLastErrorString(msg, sizeof msg);
        FD_EXPECT(st == b->want, "validation %s: got %s, want %s (%s)", b->name, cudnnGetErrorString(st),
                  cudnnGetErrorString(b->want), msg);
        if (b->want != OK) {
            FD_EXPECT(fd_buf_hash(&yb) == before, "validation %s: y was written", b->name);
            FD_EXPECT(strstr(msg, b->says) != NULL, "validation %s: the reason '%s' does not say '%s'",
                      b->name, msg, b->says);
        }
        FD_EXPECT(fd_buf_guards_ok(&yb), "validation %s: y guard", b->name);
    }
    fd_buf_free(&yb);
}

/* y right after w in memory, not overlapping it: the aliasing check must size an INT8x32 filter
 * as 1 byte per element (fd_dtype_size gives 32 per vector); see docs/int8.md. */
static void wy_gap_ok(ic_ctx_t *t)
{
    int xdim[4] = {1, 32, 3, 3};
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptorEx(t->xd, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x32, 4, xdim),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptorEx(t->yd, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x32, 4, xdim),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetFilter4dDescriptor(t->wd, CUDNN_DATA_INT8x32, CUDNN_TENSOR_NCHW_VECT_C, 32, 32, 1, 1),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolution2dDescriptor(t->cd, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                                     CUDNN_DATA_INT32),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionGroupCount(t->cd, 1), CUDNN_STATUS_SUCCESS);
    static int8_t x[288], wy[1024 + 288];
    float one = 1.0f, zero = 0.0f;
    FD_EXPECT_STATUS(cudnnConvolutionForward(t->h, &one, t->xd, x, t->wd, wy, t->cd,
                                             CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, NULL, 0,
                                             &zero, t->yd, wy + 1024),
                     CUDNN_STATUS_SUCCESS);
}

/* ---- randomized cases against the oracle ------------------------------------------------------ */

static void random_cases(ic_ctx_t *t)
{
    static const cudnnDataType_t xdts[] = {CUDNN_DATA_INT8, CUDNN_DATA_INT8, CUDNN_DATA_INT8x4,
                                           CUDNN_DATA_UINT8x4, CUDNN_DATA_INT8x32};
    static const float ab[][2] = {{1.0f, 0.0f}, {0.0078125f, 0.0f}, {0.5f, 1.0f}, {-0.003f, 0.5f},
                                  {1.0f / 1024.0f, -1.0f}, {1e-4f, 0.0f}, {3.0f, 0.0f}};
    const uint64_t master = fd_test_sweep_seed(0x1e8c0417u);
    const int count = (int)(160 * fd_test_scale());
    char name[160];
    for (int i = 0; i < count; i++) {
        fd_rng_t r;
        fd_rng_seed(&r, fd_test_mix(master, (uint64_t)i));
        ic_case_t c;
        memset(&c, 0, sizeof c);
        c.seed = fd_rng_next(&r);
        c.xdt = xdts[i % 5];
        const int v = vect_of(c.xdt);
        const int ext = fd_rng_int(&r, 0, 2) == 0;
        c.ydt = ext && c.xdt != CUDNN_DATA_INT8x32 ? CUDNN_DATA_FLOAT
                : c.xdt == CUDNN_DATA_INT8 ? CUDNN_DATA_INT8 : c.xdt;
        c.nsp = v > 1 ? 2 : fd_rng_int(&r, 1, 3);
        c.groups = fd_rng_int(&r, 0, 3) == 0 ? 2 : 1;
        const int cmul = v > 1 ? v : 4, kmul = c.ydt == CUDNN_DATA_FLOAT ? 1 : cmul;
        c.c = c.groups * cmul * fd_rng_int(&r, 1, v == 32 ? 1 : 3);
        c.k = c.groups * kmul * fd_rng_int(&r, 1, v == 32 ? 1 : 5);
        c.n = fd_rng_int(&r, 1, 2);
        for (int d = 0; d < c.nsp; d++) {
            c.f[d] = fd_rng_int(&r, 1, 3);
            c.dil[d] = fd_rng_int(&r, 0, 3) == 0 ? 2 : 1;
            c.str[d] = fd_rng_int(&r, 1, 2);
            c.pad[d] = fd_rng_int(&r, 0, c.f[d]);
            int span = (c.f[d] - 1) * c.dil[d] + 1;
            c.in[d] = fd_rng_int(&r, span > 2 ? span : 2, c.nsp == 3 ? 5 : 9);
        }
        c.flip = fd_rng_int(&r, 0, 1);
        c.padded = v == 1 && fd_rng_int(&r, 0, 1);
        c.ynchw = fd_rng_int(&r, 0, 1);
        c.alpha = ab[i % 7][0], c.beta = ab[(i / 7) % 7][1];
        c.algo = fd_rng_int(&r, 0, 1);
        snprintf(name, sizeof name, "random %d (%s -> %s, %dd, g%d, c%d k%d, a %g b %g, seed 0x%llx)", i,
                 fd_test_dtype_short(c.xdt), fd_test_dtype_short(c.ydt), c.nsp, c.groups, c.c, c.k,
                 (double)c.alpha, (double)c.beta, (unsigned long long)c.seed);
        c.name = name;
        run_case(t, &c);
    }
}

int main(void)
{
    ic_ctx_t t;
    FD_EXPECT_STATUS(freednnCreateWithBackend(&t.h, FREEDNN_BACKEND_REF), CUDNN_STATUS_SUCCESS);
    cudnnCreateTensorDescriptor(&t.xd);
    cudnnCreateTensorDescriptor(&t.yd);
    cudnnCreateFilterDescriptor(&t.wd);
    cudnnCreateConvolutionDescriptor(&t.cd);
    hand_cases(&t);
    validation(&t);
    wy_gap_ok(&t);
    random_cases(&t);
    cudnnDestroyTensorDescriptor(t.xd);
    cudnnDestroyTensorDescriptor(t.yd);
    cudnnDestroyFilterDescriptor(t.wd);
    cudnnDestroyConvolutionDescriptor(t.cd);
    cudnnDestroy(t.h);
    return fd_test_finish();
}
