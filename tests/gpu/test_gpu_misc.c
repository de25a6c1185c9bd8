/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_misc.c - the cuda rows of cudnnConvolutionBiasActivationForward, cudnnIm2Col, the
 * spatial transformer (grid generator fwd/bwd, sampler fwd/bwd) and the CTC loss (cudnnCTCLoss
 * with host label arrays, cudnnCTCLoss_v8 with device ones) against the ref backend, through the
 * public API (tests/gpu/gpu_mirror.h: guards, unchanged inputs, poisoned outputs, determinism).
 *
 * Every dtype the ref takes (FLOAT, DOUBLE, HALF, BFLOAT16), NCHW / NHWC / padded-strided
 * layouts, 4-d and 5-d where the op takes them, alpha/beta {1, 0} and {0.5, 0.25} (beta != 0:
 * the output is GM_INOUT), in-place z == y, every activation mode and NaN option, both CTC
 * normalisations, gradient modes and algorithms, impossible labels, odd sizes and one large
 * tensor (>= 4M elements) per op. Exact integer fills compare bit for bit where the op is exact
 * (conv-bias-act with IDENTITY / RELU / CLIPPED_RELU, im2col); the rest within gm_tol.
 * --smoke: a handful of small cases per op (compute-sanitizer).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_mirror.h"

static const cudnnDataType_t dts[4] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                       CUDNN_DATA_BFLOAT16};

/* ---- strided tensors ----------------------------------------------------------------------- */

enum { L_NCHW, L_NHWC, L_PADDED, L_COUNT };
static const char *const lay_name[L_COUNT] = {"nchw", "nhwc", "padded"};

typedef struct {
    int nd, dim[8], stride[8];
    int64_t extent; /* elements addressed: max offset + 1 */
} shape_t;

/* NCHW packed; NHWC (channels innermost); padded: NCHW order with a gap of 1 between
 * consecutive W elements and extra room at every level. */
static shape_t shape(int nd, const int *dim, int lay)
{
    shape_t s;
    memset(&s, 0, sizeof s);
    s.nd = nd;
    for (int i = 0; i < nd; i++)
        s.dim[i] = dim[i];
    if (lay == L_NHWC) {
        int acc = dim[1];
        s.stride[1] = 1;
        for (int i = nd - 1; i >= 2; i--)
            s.stride[i] = acc, acc *= dim[i];
        s.stride[0] = acc;
    } else {
        int acc = lay == L_PADDED ? 2 : 1;
        for (int i = nd - 1; i >= 0; i--) {
            s.stride[i] = acc;
            acc = acc * dim[i] + (lay == L_PADDED ? 3 : 0);
        }
    }
    s.extent = 1;
    for (int i = 0; i < nd; i++)
        s.extent += (int64_t)(dim[i] - 1) * s.stride[i];
    return s;
}

static cudnnTensorDescriptor_t tdesc(const shape_t *s, cudnnDataType_t dt)
{
    cudnnTensorDescriptor_t d;
    FD_EXPECT_STATUS(cudnnCreateTensorDescriptor(&d), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(d, dt, s->nd, s->dim, s->stride), CUDNN_STATUS_SUCCESS);
    return d;
}

static size_t bytes_of(int64_t n, cudnnDataType_t dt)
{
    return (size_t)n * fd_test_dtype_size(dt);
}

/* Fills n elements: small integers (exact) or reals in [lo, hi]. */
static void fill_vals(uint64_t seed, cudnnDataType_t dt, void *p, int64_t n, int exact, int lo,
                      int hi, double rlo, double rhi)
{
    fd_rng_t r;
    fd_rng_seed(&r, seed);
    if (exact)
        fd_fill_int(&r, dt, p, n, lo, hi, 1.0);
    else
        fd_fill_real(&r, dt, p, n, rlo, rhi);
}

static int ncases_run;

/* ==== convolution + bias + activation ====================================================== */

typedef struct {
    char label[200];
    int nsp, n, c, k, g, in[3], flt[3], pad[3], str[3], dil[3], mode;
    cudnnDataType_t dt, bias_dt;
    int lay_x, lay_y, lay_z;
    int z_is_y, exact, nan_in_z;
    double alpha1, alpha2;
    cudnnActivationMode_t act;
    cudnnNanPropagation_t nan_opt;
    double coef;
    int algo;
    shape_t xs, ys, zs, bs;
    int wdim[5];
    int64_t wcount;
} cba_t;

enum { CBA_X, CBA_W, CBA_Y, CBA_BIAS, CBA_Z };

static void cba_fill(int i, void *p, size_t bytes, void *ctx)
{
    cba_t *c = ctx;
    (void)bytes;
    uint64_t seed = fd_test_mix((uint64_t)(uintptr_t)c->label[0] + (uint64_t)ncases_run, (uint64_t)i);
    switch (i) {
    case CBA_X:
        fill_vals(seed, c->dt, p, c->xs.extent, c->exact, -2, 2, -1, 1);
        break;
    case CBA_W:
        fill_vals(seed, c->dt, p, c->wcount, c->exact, -2, 2, -1, 1);
        break;
    case CBA_BIAS:
        fill_vals(seed, c->bias_dt, p, c->bs.extent, c->exact, -3, 3, -1, 1);
        break;
    case CBA_Y: /* only as INOUT: z == y */
    case CBA_Z:
        fill_vals(seed, c->dt, p, (i == CBA_Y ? c->ys : c->zs).extent, c->exact, -4, 4, -1, 1);
        if (c->nan_in_z)
            fd_test_store(c->dt, p, 0, NAN);
        break;
    }
}

static cudnnStatus_t cba_call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    cba_t *c = ctx;
    cudnnTensorDescriptor_t xd = tdesc(&c->xs, c->dt), yd = tdesc(&c->ys, c->dt);
    cudnnTensorDescriptor_t zd = tdesc(c->z_is_y ? &c->ys : &c->zs, c->dt), bd = tdesc(&c->bs, c->bias_dt);
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnActivationDescriptor_t ad;
    cudnnCreateFilterDescriptor(&wd);
    cudnnSetFilterNdDescriptor(wd, c->dt, CUDNN_TENSOR_NCHW, c->nsp + 2, c->wdim);
    cudnnCreateConvolutionDescriptor(&cd);
    cudnnDataType_t comp = c->dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    cudnnSetConvolutionNdDescriptor(cd, c->nsp, c->pad, c->str, c->dil, c->mode ? CUDNN_CROSS_CORRELATION : CUDNN_CONVOLUTION, comp);
    cudnnSetConvolutionGroupCount(cd, c->g);
    cudnnCreateActivationDescriptor(&ad);
    cudnnSetActivationDescriptor(ad, c->act, c->nan_opt, c->coef);
    double a1d = c->alpha1, a2d = c->alpha2;
    float a1f = (float)c->alpha1, a2f = (float)c->alpha2;
    int dbl = c->dt == CUDNN_DATA_DOUBLE;
    void *y = ptr[CBA_Y], *z = c->z_is_y ? y : ptr[CBA_Z];
    cudnnStatus_t st = cudnnConvolutionBiasActivationForward(
        h, dbl ? (void *)&a1d : (void *)&a1f, xd, ptr[CBA_X], wd, ptr[CBA_W], cd,
        (cudnnConvolutionFwdAlgo_t)c->algo, NULL, 0, dbl ? (void *)&a2d : (void *)&a2f, zd, z, bd,
        ptr[CBA_BIAS], ad, yd, y);
    cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyTensorDescriptor(zd), cudnnDestroyTensorDescriptor(bd);
    cudnnDestroyFilterDescriptor(wd), cudnnDestroyConvolutionDescriptor(cd);
    cudnnDestroyActivationDescriptor(ad);
    return st;
}

static void cba_run(cba_t *c)
{
    int nd = c->nsp + 2, xdim[5], ydim[5], bdim[5];
    xdim[0] = c->n, xdim[1] = c->c, ydim[0] = c->n, ydim[1] = c->k;
    c->wdim[0] = c->k, c->wdim[1] = c->c / c->g;
    c->wcount = (int64_t)c->k * (c->c / c->g);
    for (int i = 0; i < c->nsp; i++) {
        xdim[2 + i] = c->in[i];
        c->wdim[2 + i] = c->flt[i];
        c->wcount *= c->flt[i];
        ydim[2 + i] = 1 + (c->in[i] + 2 * c->pad[i] - ((c->flt[i] - 1) * c->dil[i] + 1)) / c->str[i];
    }
    for (int i = 0; i < nd; i++)
        bdim[i] = i == 1 ? c->k : 1;
    c->xs = shape(nd, xdim, c->lay_x);
    c->ys = shape(nd, ydim, c->lay_y);
    c->zs = shape(nd, ydim, c->lay_z);
    c->bs = shape(nd, bdim, L_NCHW);
    int64_t k = (int64_t)(c->c / c->g) * (c->wcount / ((int64_t)c->k * (c->c / c->g)));
    gm_case_t gc;
    memset(&gc, 0, sizeof gc);
    gc.label = c->label;
    gc.nbuf = c->z_is_y ? 4 : 5;
    gc.buf[CBA_X] = (gm_buf_t){"x", bytes_of(c->xs.extent, c->dt), c->dt, GM_IN, 0, 0};
    gc.buf[CBA_W] = (gm_buf_t){"w", bytes_of(c->wcount, c->dt), c->dt, GM_IN, 0, 0};
    gc.buf[CBA_Y] = (gm_buf_t){"y", bytes_of(c->ys.extent, c->dt), c->dt,
                               c->z_is_y ? GM_INOUT : GM_OUT, 0, 0};
    gc.buf[CBA_BIAS] = (gm_buf_t){"bias", bytes_of(c->bs.extent, c->bias_dt), c->bias_dt, GM_IN, 0, 0};
    if (!c->z_is_y)
        gc.buf[CBA_Z] = (gm_buf_t){"z", bytes_of(c->zs.extent, c->dt), c->dt, GM_IN, 0, 0};
    int exact_act = c->act == CUDNN_ACTIVATION_IDENTITY || c->act == CUDNN_ACTIVATION_RELU ||
                    c->act == CUDNN_ACTIVATION_CLIPPED_RELU;
    if (!(c->exact && exact_act))
        gm_tol(&gc.buf[CBA_Y], c->dt, k + 2);
    else if (c->nan_in_z) /* NaN payloads may differ: compare as values */
        gc.buf[CBA_Y].abs_tol = 1e-300;
    gc.det = 1;
    gc.fill = cba_fill;
    gc.call = cba_call;
    gc.ctx = c;
    gc.want = CUDNN_STATUS_SUCCESS;
    gm_run(&gc);
    ncases_run++;
}

typedef struct {
    int nsp, n, c, k, g, in[3], flt[3], pad[3], str[3], dil[3];
} cshape_t;

static const cshape_t cshapes[] = {
    {2, 2, 3, 4, 1, {7, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {2, 1, 8, 12, 4, {5, 9}, {3, 3}, {1, 0}, {2, 1}, {1, 1}},   /* groups, stride */
    {2, 3, 5, 3, 1, {11, 8}, {3, 2}, {2, 1}, {1, 2}, {2, 1}},   /* dilation, odd */
    {2, 2, 6, 6, 6, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},    /* depthwise */
    {3, 2, 3, 4, 1, {4, 5, 6}, {2, 3, 3}, {1, 0, 1}, {1, 2, 1}, {1, 1, 1}}, /* 5-d */
    {2, 1, 1, 1, 1, {1, 1}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},    /* single element */
};

static void conv_bias_act(void)
{
    static const cudnnActivationMode_t acts[] = {
        CUDNN_ACTIVATION_IDENTITY, CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_CLIPPED_RELU,
        CUDNN_ACTIVATION_SIGMOID, CUDNN_ACTIVATION_TANH, CUDNN_ACTIVATION_ELU, CUDNN_ACTIVATION_SWISH};
    static const double ab[3][2] = {{1.0, 0.0}, {0.5, 0.25}, {1.0, 1.0}};
    const int nshape = (int)(sizeof cshapes / sizeof cshapes[0]);
    int turn = 0;
    for (int si = 0; si < nshape; si++)
        for (int t = 0; t < 4; t++)
            for (int ai = 0; ai < 7; ai++) {
                if (gm_smoke && (ai > 2 || si % 2 || t > 1))
                    continue;
                cba_t c;
                memset(&c, 0, sizeof c);
                const cshape_t *s = &cshapes[si];
                c.nsp = s->nsp, c.n = s->n, c.c = s->c, c.k = s->k, c.g = s->g;
                for (int i = 0; i < s->nsp; i++) {
                    c.in[i] = s->in[i], c.flt[i] = s->flt[i], c.pad[i] = s->pad[i];
                    c.str[i] = s->str[i], c.dil[i] = s->dil[i];
                }
                c.mode = turn % 2;
                c.dt = dts[t];
                c.bias_dt = (c.dt == CUDNN_DATA_HALF || c.dt == CUDNN_DATA_BFLOAT16) && turn % 2 ? CUDNN_DATA_FLOAT : c.dt;
                c.lay_x = turn % L_COUNT, c.lay_y = (turn / 3) % L_COUNT, c.lay_z = (turn / 2) % L_COUNT;
                c.z_is_y = turn % 4 == 3;
                if (c.z_is_y)
                    c.lay_z = c.lay_y;
                c.exact = turn % 5 != 4;
                c.nan_in_z = turn % 11 == 5;
                c.alpha1 = ab[turn % 3][0], c.alpha2 = ab[turn % 3][1];
                c.act = acts[ai];
                c.nan_opt = turn % 2 ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN;
                c.coef = c.act == CUDNN_ACTIVATION_CLIPPED_RELU ? 3.0 : 0.75;
                c.algo = turn % CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
                snprintf(c.label, sizeof c.label,
                         "conv_bias_act shape %d %s act %d x/y/z %s/%s/%s%s %s a1 %g a2 %g bias %s algo %d nan %d",
                         si, fd_test_dtype_short(c.dt), (int)c.act, lay_name[c.lay_x], lay_name[c.lay_y],
                         lay_name[c.lay_z], c.z_is_y ? " z=y" : "", c.exact ? "exact" : "real", c.alpha1,
                         c.alpha2, fd_test_dtype_short(c.bias_dt), c.algo, c.nan_in_z);
                cba_run(&c);
                turn++;
            }
    if (gm_smoke)
        return;
    /* large: y has 4 x 16 x 256 x 256 = 4M elements (grid-stride loops) */
    cba_t c;
    memset(&c, 0, sizeof c);
    c.nsp = 2, c.n = 4, c.c = 2, c.k = 16, c.g = 1;
    c.in[0] = c.in[1] = 256, c.flt[0] = c.flt[1] = 1, c.str[0] = c.str[1] = 1, c.dil[0] = c.dil[1] = 1;
    c.mode = 1, c.dt = CUDNN_DATA_FLOAT, c.bias_dt = CUDNN_DATA_FLOAT;
    c.lay_x = L_NHWC, c.lay_y = L_NHWC, c.z_is_y = 1, c.lay_z = L_NHWC, c.exact = 1;
    c.alpha1 = 1.0, c.alpha2 = 0.5, c.act = CUDNN_ACTIVATION_RELU, c.nan_opt = CUDNN_NOT_PROPAGATE_NAN;
    snprintf(c.label, sizeof c.label, "conv_bias_act large 4x2x256x256 -> 4x16 NHWC z=y");
    cba_run(&c);
}

/* ==== im2col ================================================================================= */

typedef struct {
    char label[160];
    cshape_t s;
    int mode, lay;
    cudnnDataType_t dt;
    shape_t xs;
    int64_t cols;
} i2c_t;

static void i2c_fill(int i, void *p, size_t bytes, void *ctx)
{
    i2c_t *c = ctx;
    (void)bytes;
    if (i == 0)
        fill_vals(fd_test_mix(0x12C, (uint64_t)ncases_run), c->dt, p, c->xs.extent, 1, -50, 50, 0, 0);
}

static cudnnStatus_t i2c_call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    i2c_t *c = ctx;
    int wdim[5] = {1, c->s.c, 1, 1, 1};
    for (int i = 0; i < c->s.nsp; i++)
        wdim[2 + i] = c->s.flt[i];
    cudnnTensorDescriptor_t xd = tdesc(&c->xs, c->dt);
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnCreateFilterDescriptor(&wd);
    cudnnSetFilterNdDescriptor(wd, c->dt, CUDNN_TENSOR_NCHW, c->s.nsp + 2, wdim);
    cudnnCreateConvolutionDescriptor(&cd);
    cudnnSetConvolutionNdDescriptor(cd, c->s.nsp, c->s.pad, c->s.str, c->s.dil,
                                    c->mode ? CUDNN_CROSS_CORRELATION : CUDNN_CONVOLUTION,
                                    c->dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT);
    cudnnStatus_t st = cudnnIm2Col(h, xd, ptr[0], wd, cd, ptr[1]);
    cudnnDestroyTensorDescriptor(xd), cudnnDestroyFilterDescriptor(wd), cudnnDestroyConvolutionDescriptor(cd);
    return st;
}

static void i2c_run(i2c_t *c)
{
    int xdim[5] = {c->s.n, c->s.c, 1, 1, 1};
    int64_t rows = c->s.n, width = c->s.c;
    for (int i = 0; i < c->s.nsp; i++) {
        xdim[2 + i] = c->s.in[i];
        rows *= 1 + (c->s.in[i] + 2 * c->s.pad[i] - ((c->s.flt[i] - 1) * c->s.dil[i] + 1)) / c->s.str[i];
        width *= c->s.flt[i];
    }
    c->xs = shape(c->s.nsp + 2, xdim, c->lay);
    c->cols = rows * width;
    gm_case_t gc;
    memset(&gc, 0, sizeof gc);
    gc.label = c->label;
    gc.nbuf = 2;
    gc.buf[0] = (gm_buf_t){"x", bytes_of(c->xs.extent, c->dt), c->dt, GM_IN, 0, 0};
    gc.buf[1] = (gm_buf_t){"col", bytes_of(c->cols, c->dt), c->dt, GM_OUT, 0, 0};
    gc.det = 1, gc.fill = i2c_fill, gc.call = i2c_call, gc.ctx = c, gc.want = CUDNN_STATUS_SUCCESS;
    gm_run(&gc);
    ncases_run++;
}

static void im2col(void)
{
    const int nshape = (int)(sizeof cshapes / sizeof cshapes[0]);
    int turn = 0;
    for (int si = 0; si < nshape; si++)
        for (int t = 0; t < 4; t++)
            for (int v = 0; v < 2; v++) {
                if (gm_smoke && (si % 2 || v))
                    continue;
                i2c_t c;
                memset(&c, 0, sizeof c);
                c.s = cshapes[si];
                c.s.g = 1; /* im2col has no groups */
                c.dt = dts[t], c.mode = turn % 2, c.lay = turn % L_COUNT;
                snprintf(c.label, sizeof c.label, "im2col shape %d %s %s mode %d", si,
                         fd_test_dtype_short(c.dt), lay_name[c.lay], c.mode);
                i2c_run(&c);
                turn++;
            }
    if (gm_smoke)
        return;
    i2c_t c; /* large: 2 x 4 x 128 x 128 with 3x3 taps = 4.7M col elements */
    memset(&c, 0, sizeof c);
    c.s = (cshape_t){2, 2, 4, 1, 1, {128, 128}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
    c.dt = CUDNN_DATA_HALF, c.mode = 1, c.lay = L_NHWC;
    snprintf(c.label, sizeof c.label, "im2col large 2x4x128x128 3x3 f16 nhwc");
    i2c_run(&c);
}

/* ==== spatial transformer ==================================================================== */

enum { STF_GRID_FWD, STF_GRID_BWD, STF_SAMPLER_FWD, STF_SAMPLER_BWD };

typedef struct {
    char label[200];
    int op;
    cudnnDataType_t dt;
    int n, c, hi, wi, ho, wo, lay_x, lay_y, lay_dx;
    double alpha, beta, alpha_g, beta_g;
    int grid_kind; /* 0 affine near identity, 1 random in [-1.3, 1.3], 2 dyadic points */
    shape_t xs, ys, dxs;
} stf_t;

static void stf_grid(const stf_t *c, void *g, uint64_t seed)
{
    fd_rng_t r;
    fd_rng_seed(&r, seed);
    for (int n = 0; n < c->n; n++) {
        double th[6] = {1 + 0.3 * (fd_rng_uniform(&r) - 0.5), 0.4 * (fd_rng_uniform(&r) - 0.5),
                        0.3 * (fd_rng_uniform(&r) - 0.5), 0.4 * (fd_rng_uniform(&r) - 0.5),
                        1 + 0.3 * (fd_rng_uniform(&r) - 0.5), 0.3 * (fd_rng_uniform(&r) - 0.5)};
        for (int h = 0; h < c->ho; h++)
            for (int w = 0; w < c->wo; w++) {
                double xt = c->wo > 1 ? -1.0 + 2.0 * w / (c->wo - 1) : 0.0;
                double yt = c->ho > 1 ? -1.0 + 2.0 * h / (c->ho - 1) : 0.0;
                int64_t o = (((int64_t)n * c->ho + h) * c->wo + w) * 2;
                double gx, gy;
                if (c->grid_kind == 0)
                    gx = th[0] * xt + th[1] * yt + th[2], gy = th[3] * xt + th[4] * yt + th[5];
                else if (c->grid_kind == 1)
                    gx = -1.3 + 2.6 * fd_rng_uniform(&r), gy = -1.3 + 2.6 * fd_rng_uniform(&r);
                else
                    gx = fd_rng_int(&r, -40, 40) / 32.0, gy = fd_rng_int(&r, -40, 40) / 32.0;
                fd_test_store(c->dt, g, o, gx);
                fd_test_store(c->dt, g, o + 1, gy);
            }
    }
}

/* Buffers: grid fwd: theta, grid. grid bwd: dgrid, dtheta. sampler fwd: x, grid, y.
 * sampler bwd: x, grid, dy, dx, dgrid. */
static void stf_fill(int i, void *p, size_t bytes, void *ctx)
{
    stf_t *c = ctx;
    uint64_t seed = fd_test_mix(0x57F + (uint64_t)ncases_run, (uint64_t)i);
    int64_t n = (int64_t)(bytes / fd_test_dtype_size(c->dt));
    switch (c->op) {
    case STF_GRID_FWD:
    case STF_GRID_BWD:
        if (i == 0)
            fill_vals(seed, c->dt, p, n, 0, 0, 0, -1.5, 1.5);
        break;
    case STF_SAMPLER_FWD:
        if (i == 1)
            stf_grid(c, p, seed);
        else if (i == 0 || c->beta != 0.0)
            fill_vals(seed, c->dt, p, n, 0, 0, 0, -1, 1);
        break;
    default:
        if (i == 1)
            stf_grid(c, p, seed);
        else if (i == 0 || i == 2 || (i == 3 && c->beta != 0.0) || (i == 4 && c->beta_g != 0.0))
            fill_vals(seed, c->dt, p, n, 0, 0, 0, -1, 1);
        break;
    }
}

static cudnnStatus_t stf_call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    stf_t *c = ctx;
    cudnnSpatialTransformerDescriptor_t sd;
    cudnnCreateSpatialTransformerDescriptor(&sd);
    int dim[4] = {c->n, c->c, c->ho, c->wo};
    cudnnSetSpatialTransformerNdDescriptor(sd, CUDNN_SAMPLER_BILINEAR, c->dt, 4, dim);
    int dbl = c->dt == CUDNN_DATA_DOUBLE;
    double ad = c->alpha, bd = c->beta, agd = c->alpha_g, bgd = c->beta_g;
    float af = (float)ad, bf = (float)bd, agf = (float)agd, bgf = (float)bgd;
    const void *al = dbl ? (void *)&ad : (void *)&af, *be = dbl ? (void *)&bd : (void *)&bf;
    const void *alg = dbl ? (void *)&agd : (void *)&agf, *beg = dbl ? (void *)&bgd : (void *)&bgf;
    cudnnStatus_t st;
    if (c->op == STF_GRID_FWD) {
        st = cudnnSpatialTfGridGeneratorForward(h, sd, ptr[0], ptr[1]);
    } else if (c->op == STF_GRID_BWD) {
        st = cudnnSpatialTfGridGeneratorBackward(h, sd, ptr[0], ptr[1]);
    } else if (c->op == STF_SAMPLER_FWD) {
        cudnnTensorDescriptor_t xd = tdesc(&c->xs, c->dt), yd = tdesc(&c->ys, c->dt);
        st = cudnnSpatialTfSamplerForward(h, sd, al, xd, ptr[0], ptr[1], be, yd, ptr[2]);
        cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd);
    } else {
        cudnnTensorDescriptor_t xd = tdesc(&c->xs, c->dt), dyd = tdesc(&c->ys, c->dt);
        cudnnTensorDescriptor_t dxd = tdesc(&c->dxs, c->dt);
        st = cudnnSpatialTfSamplerBackward(h, sd, al, xd, ptr[0], be, dxd, ptr[3], alg, dyd, ptr[2],
                                           ptr[1], beg, ptr[4]);
        cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(dyd), cudnnDestroyTensorDescriptor(dxd);
    }
    cudnnDestroySpatialTransformerDescriptor(sd);
    return st;
}

static void stf_run(stf_t *c)
{
    int xdim[4] = {c->n, c->c, c->hi, c->wi}, ydim[4] = {c->n, c->c, c->ho, c->wo};
    c->xs = shape(4, xdim, c->lay_x);
    c->ys = shape(4, ydim, c->lay_y);
    c->dxs = shape(4, xdim, c->lay_dx);
    const int64_t ngrid = (int64_t)c->n * c->ho * c->wo * 2, ntheta = (int64_t)c->n * 6;
    const cudnnDataType_t dt = c->dt;
    gm_case_t gc;
    memset(&gc, 0, sizeof gc);
    gc.label = c->label;
    switch (c->op) {
    case STF_GRID_FWD:
        gc.nbuf = 2;
        gc.buf[0] = (gm_buf_t){"theta", bytes_of(ntheta, dt), dt, GM_IN, 0, 0};
        gc.buf[1] = (gm_buf_t){"grid", bytes_of(ngrid, dt), dt, GM_OUT, 0, 0};
        gm_tol(&gc.buf[1], dt, 3);
        break;
    case STF_GRID_BWD:
        gc.nbuf = 2;
        gc.buf[0] = (gm_buf_t){"dgrid", bytes_of(ngrid, dt), dt, GM_IN, 0, 0};
        gc.buf[1] = (gm_buf_t){"dtheta", bytes_of(ntheta, dt), dt, GM_OUT, 0, 0};
        gm_tol(&gc.buf[1], dt, (int64_t)c->ho * c->wo);
        gc.buf[1].abs_tol *= 4 * sqrt((double)c->ho * c->wo); /* sums of mixed signs */
        break;
    case STF_SAMPLER_FWD:
        gc.nbuf = 3;
        gc.buf[0] = (gm_buf_t){"x", bytes_of(c->xs.extent, dt), dt, GM_IN, 0, 0};
        gc.buf[1] = (gm_buf_t){"grid", bytes_of(ngrid, dt), dt, GM_IN, 0, 0};
        gc.buf[2] = (gm_buf_t){"y", bytes_of(c->ys.extent, dt), dt, c->beta != 0.0 ? GM_INOUT : GM_OUT, 0, 0};
        gm_tol(&gc.buf[2], dt, 4);
        break;
    default:
        gc.nbuf = 5;
        gc.buf[0] = (gm_buf_t){"x", bytes_of(c->xs.extent, dt), dt, GM_IN, 0, 0};
        gc.buf[1] = (gm_buf_t){"grid", bytes_of(ngrid, dt), dt, GM_IN, 0, 0};
        gc.buf[2] = (gm_buf_t){"dy", bytes_of(c->ys.extent, dt), dt, GM_IN, 0, 0};
        gc.buf[3] = (gm_buf_t){"dx", bytes_of(c->dxs.extent, dt), dt, c->beta != 0.0 ? GM_INOUT : GM_OUT, 0, 0};
        gc.buf[4] = (gm_buf_t){"dgrid", bytes_of(ngrid, dt), dt, c->beta_g != 0.0 ? GM_INOUT : GM_OUT, 0, 0};
        gm_tol(&gc.buf[3], dt, 16);
        gm_tol(&gc.buf[4], dt, 4 * c->c);
        gc.buf[4].abs_tol *= 4 * (c->wi + c->hi);
        break;
    }
    gc.det = 1, gc.fill = stf_fill, gc.call = stf_call, gc.ctx = c, gc.want = CUDNN_STATUS_SUCCESS;
    gm_run(&gc);
    ncases_run++;
}

static void spatial_tf(void)
{
    static const int sizes[][6] = {/* n c hi wi ho wo */
                                   {2, 3, 8, 9, 7, 6},  {1, 1, 5, 5, 5, 5},   {3, 5, 17, 13, 11, 19},
                                   {2, 4, 1, 6, 3, 1},  {1, 6, 40, 37, 33, 29}, {2, 2, 3, 3, 24, 24}};
    static const double ab[2][2] = {{1.0, 0.0}, {0.5, 0.25}};
    const int nsz = (int)(sizeof sizes / sizeof sizes[0]);
    int turn = 0;
    for (int op = STF_GRID_FWD; op <= STF_SAMPLER_BWD; op++)
        for (int si = 0; si < nsz; si++)
            for (int t = 0; t < 4; t++) {
                if (gm_smoke && (si > 1 || t > 1))
                    continue;
                stf_t c;
                memset(&c, 0, sizeof c);
                c.op = op, c.dt = dts[t];
                c.n = sizes[si][0], c.c = sizes[si][1], c.hi = sizes[si][2], c.wi = sizes[si][3];
                c.ho = sizes[si][4], c.wo = sizes[si][5];
                if (op == STF_GRID_FWD || op == STF_GRID_BWD)
                    c.hi = c.ho, c.wi = c.wo;
                c.lay_x = turn % L_COUNT, c.lay_y = (turn + 1) % L_COUNT, c.lay_dx = (turn / 3) % L_COUNT;
                c.alpha = ab[turn % 2][0], c.beta = ab[turn % 2][1];
                c.alpha_g = ab[(turn / 2) % 2][0], c.beta_g = ab[(turn / 2) % 2][1];
                c.grid_kind = turn % 3;
                snprintf(c.label, sizeof c.label,
                         "stf op %d %s n%d c%d %dx%d -> %dx%d x/y/dx %s/%s/%s a/b %g/%g ag/bg %g/%g grid %d", op,
                         fd_test_dtype_short(c.dt), c.n, c.c, c.hi, c.wi, c.ho, c.wo, lay_name[c.lay_x],
                         lay_name[c.lay_y], lay_name[c.lay_dx], c.alpha, c.beta, c.alpha_g, c.beta_g,
                         c.grid_kind);
                stf_run(&c);
                turn++;
            }
    if (gm_smoke)
        return;
    for (int op = STF_GRID_FWD; op <= STF_SAMPLER_BWD; op++) { /* large */
        stf_t c;
        memset(&c, 0, sizeof c);
        c.op = op, c.dt = CUDNN_DATA_FLOAT, c.alpha = 1.0, c.alpha_g = 1.0;
        if (op <= STF_GRID_BWD)
            c.n = 8, c.c = 1, c.hi = c.ho = 512, c.wi = c.wo = 512; /* 4M grid values */
        else
            c.n = 4, c.c = 16, c.hi = 256, c.wi = 256, c.ho = 256, c.wo = 256; /* 4M y elements */
        c.lay_x = L_NCHW, c.lay_y = op == STF_SAMPLER_FWD ? L_NHWC : L_NCHW, c.lay_dx = L_NCHW;
        snprintf(c.label, sizeof c.label, "stf op %d large", op);
        stf_run(&c);
    }
}

/* ==== CTC loss =============================================================================== */

typedef struct {
    char label[200];
    int v8, t, n, a, maxlab, lay_p, lay_g, softmax, zero_oob, algo, grads, impossible;
    cudnnDataType_t dt, comp;
    int *lab_len, *in_len, total;
    shape_t ps, gs;
    size_t ws_bytes;
} ctc_t;

/* Buffers: probs, costs, grads, workspace, labels, labelLengths, inputLengths. */
enum { C_PROBS, C_COSTS, C_GRADS, C_WS, C_LABELS, C_LABLEN, C_INLEN };

static void ctc_fill(int i, void *p, size_t bytes, void *ctx)
{
    ctc_t *c = ctx;
    (void)bytes;
    fd_rng_t r;
    fd_rng_seed(&r, fd_test_mix(0xC7C + (uint64_t)ncases_run, (uint64_t)i));
    if (i == C_PROBS) {
        if (c->softmax) {
            fd_fill_real(&r, c->dt, p, c->ps.extent, -2.0, 2.0);
            return;
        }
        for (int t = 0; t < c->t; t++) /* rows of probabilities */
            for (int n = 0; n < c->n; n++) {
                double v[512], sum = 0.0;
                for (int k = 0; k < c->a; k++)
                    sum += v[k] = 0.05 + fd_rng_uniform(&r);
                for (int k = 0; k < c->a; k++)
                    fd_test_store(c->dt, p, (int64_t)t * c->ps.stride[0] + (int64_t)n * c->ps.stride[1] +
                                                (int64_t)k * c->ps.stride[2], v[k] / sum);
            }
    } else if (i == C_LABELS) {
        int *lab = p;
        for (int j = 0; j < c->total; j++)
            lab[j] = fd_rng_int(&r, 1, c->a - 1);
        if (c->total >= 2 && c->a > 2) /* a repeat, to exercise the no-skip rule */
            lab[1] = lab[0];
    } else if (i == C_LABLEN) {
        memcpy(p, c->lab_len, sizeof(int) * (size_t)c->n);
    } else if (i == C_INLEN) {
        memcpy(p, c->in_len, sizeof(int) * (size_t)c->n);
    }
}

static cudnnStatus_t ctc_call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    ctc_t *c = ctx;
    cudnnCTCLossDescriptor_t d;
    cudnnCreateCTCLossDescriptor(&d);
    cudnnNanPropagation_t gm = c->zero_oob ? CUDNN_NOT_PROPAGATE_NAN : CUDNN_PROPAGATE_NAN;
    cudnnLossNormalizationMode_t nm = c->softmax ? CUDNN_LOSS_NORMALIZATION_SOFTMAX : CUDNN_LOSS_NORMALIZATION_NONE;
    if (c->v8)
        cudnnSetCTCLossDescriptor_v8(d, c->comp, nm, gm, c->maxlab);
    else
        cudnnSetCTCLossDescriptorEx(d, c->comp, nm, gm);
    cudnnTensorDescriptor_t pd = tdesc(&c->ps, c->dt), gd = tdesc(&c->gs, c->dt);
    void *g = c->grads ? ptr[C_GRADS] : NULL;
    size_t ws = 0;
    cudnnStatus_t st;
    if (c->v8) {
        st = cudnnGetCTCLossWorkspaceSize_v8(h, (cudnnCTCLossAlgo_t)c->algo, d, pd, c->grads ? gd : NULL, &ws);
        FD_EXPECT(st == CUDNN_STATUS_SUCCESS && ws <= c->ws_bytes, "%s: workspace %zu > %zu", c->label, ws, c->ws_bytes);
        st = cudnnCTCLoss_v8(h, (cudnnCTCLossAlgo_t)c->algo, d, pd, ptr[C_PROBS], ptr[C_LABELS], ptr[C_LABLEN],
                             ptr[C_INLEN], ptr[C_COSTS], gd, g, ws, ptr[C_WS]);
    } else {
        st = cudnnGetCTCLossWorkspaceSize(h, pd, c->grads ? gd : NULL, ptr[C_LABELS], ptr[C_LABLEN], ptr[C_INLEN],
                                          (cudnnCTCLossAlgo_t)c->algo, d, &ws);
        FD_EXPECT(st == CUDNN_STATUS_SUCCESS && ws <= c->ws_bytes, "%s: workspace %zu > %zu", c->label, ws, c->ws_bytes);
        st = cudnnCTCLoss(h, pd, ptr[C_PROBS], ptr[C_LABELS], ptr[C_LABLEN], ptr[C_INLEN], ptr[C_COSTS], gd, g,
                          (cudnnCTCLossAlgo_t)c->algo, d, ptr[C_WS], ws);
    }
    cudnnDestroyTensorDescriptor(pd), cudnnDestroyTensorDescriptor(gd);
    cudnnDestroyCTCLossDescriptor(d);
    return st;
}

/* The larger of the two handles' workspace needs (the buffer serves both). */
static size_t ctc_ws(ctc_t *c, const int *labels)
{
    size_t best = 0;
    cudnnHandle_t hs[2] = {gm_ref, gm_cuda};
    for (int i = 0; i < 2; i++) {
        cudnnCTCLossDescriptor_t d;
        cudnnCreateCTCLossDescriptor(&d);
        cudnnSetCTCLossDescriptor_v8(d, c->comp, c->softmax ? CUDNN_LOSS_NORMALIZATION_SOFTMAX : CUDNN_LOSS_NORMALIZATION_NONE,
                                     CUDNN_NOT_PROPAGATE_NAN, c->maxlab);
        cudnnTensorDescriptor_t pd = tdesc(&c->ps, c->dt), gd = tdesc(&c->gs, c->dt);
        size_t ws = 0;
        if (c->v8)
            FD_EXPECT_STATUS(cudnnGetCTCLossWorkspaceSize_v8(hs[i], (cudnnCTCLossAlgo_t)c->algo, d, pd, gd, &ws),
                             CUDNN_STATUS_SUCCESS);
        else
            FD_EXPECT_STATUS(cudnnGetCTCLossWorkspaceSize(hs[i], pd, gd, labels, c->lab_len, c->in_len,
                                                          (cudnnCTCLossAlgo_t)c->algo, d, &ws),
                             CUDNN_STATUS_SUCCESS);
        best = ws > best ? ws : best;
        cudnnDestroyTensorDescriptor(pd), cudnnDestroyTensorDescriptor(gd);
        cudnnDestroyCTCLossDescriptor(d);
    }
    return best;
}

static void ctc_run(ctc_t *c, uint64_t seed)
{
    fd_rng_t r;
    fd_rng_seed(&r, seed);
    int lab_len[256], in_len[256];
    c->lab_len = lab_len, c->in_len = in_len, c->total = 0;
    for (int n = 0; n < c->n; n++) {
        lab_len[n] = fd_rng_int(&r, 0, c->maxlab);
        int need = 2 * lab_len[n] + 1 < c->t ? lab_len[n] + lab_len[n] / 2 : c->t;
        in_len[n] = fd_rng_int(&r, need < 1 ? 1 : need > c->t ? c->t : need, c->t);
        c->total += lab_len[n];
    }
    if (c->impossible && c->n > 1) /* sample 1 cannot be aligned: cost +inf */
        c->total += c->maxlab - lab_len[1], lab_len[1] = c->maxlab, in_len[1] = 1 > c->maxlab - 1 ? 1 : c->maxlab - 1;
    if (c->v8 == 0 && c->total > 0 && c->maxlab > 0) /* the classic call takes max over the data */
        (void)0;
    int dim[3] = {c->t, c->n, c->a};
    c->ps = shape(3, dim, c->lay_p);
    c->gs = shape(3, dim, c->lay_g);
    int *labels = calloc((size_t)c->total + 1, sizeof(int));
    ctc_fill(C_LABELS, labels, 0, c); /* only for the classic size query; fill repeats it */
    c->ws_bytes = ctc_ws(c, labels);
    free(labels);
    gm_case_t gc;
    memset(&gc, 0, sizeof gc);
    gc.label = c->label;
    gc.nbuf = 7;
    gm_role_t lr = c->v8 ? GM_IN : GM_HOST;
    gc.buf[C_PROBS] = (gm_buf_t){"probs", bytes_of(c->ps.extent, c->dt), c->dt, GM_IN, 0, 0};
    gc.buf[C_COSTS] = (gm_buf_t){"costs", bytes_of(c->n, c->dt), c->dt, GM_OUT, 0, 0};
    gc.buf[C_GRADS] = (gm_buf_t){"grads", c->grads ? bytes_of(c->gs.extent, c->dt) : 0, c->dt, GM_OUT, 0, 0};
    gc.buf[C_WS] = (gm_buf_t){"workspace", c->ws_bytes, CUDNN_DATA_INT8, GM_WS, 0, 0};
    gc.buf[C_LABELS] = (gm_buf_t){"labels", sizeof(int) * (size_t)c->total, CUDNN_DATA_INT32, lr, 0, 0};
    gc.buf[C_LABLEN] = (gm_buf_t){"labelLengths", sizeof(int) * (size_t)c->n, CUDNN_DATA_INT32, lr, 0, 0};
    gc.buf[C_INLEN] = (gm_buf_t){"inputLengths", sizeof(int) * (size_t)c->n, CUDNN_DATA_INT32, lr, 0, 0};
    gm_tol(&gc.buf[C_COSTS], c->dt, 8 * c->t);
    gm_tol(&gc.buf[C_GRADS], c->dt, 8 * c->t);
    gc.det = 1, gc.fill = ctc_fill, gc.call = ctc_call, gc.ctx = c, gc.want = CUDNN_STATUS_SUCCESS;
    gm_run(&gc);
    ncases_run++;
}

static void ctc(void)
{
    static const int sizes[][4] = {/* t n a maxlab */
                                   {1, 1, 2, 0},   {6, 3, 5, 2},    {20, 4, 7, 6},
                                   {33, 5, 29, 10}, {50, 2, 3, 12}, {120, 6, 40, 30}};
    const int nsz = (int)(sizeof sizes / sizeof sizes[0]);
    int turn = 0;
    for (int v8 = 0; v8 < 2; v8++)
        for (int si = 0; si < nsz; si++)
            for (int t = 0; t < 4; t++) {
                if (gm_smoke && (si == 0 || si > 2 || t > 1))
                    continue;
                ctc_t c;
                memset(&c, 0, sizeof c);
                c.v8 = v8, c.t = sizes[si][0], c.n = sizes[si][1], c.a = sizes[si][2];
                c.maxlab = sizes[si][3] > 0 ? sizes[si][3] : 1;
                if (si == 0)
                    c.maxlab = 0 + 1;
                c.dt = dts[t];
                c.comp = turn % 2 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
                c.lay_p = turn % L_COUNT, c.lay_g = (turn / 3) % L_COUNT;
                if (c.lay_p == L_NHWC)
                    c.lay_p = L_NCHW; /* "channels" is N here: keep A innermost or padded */
                if (c.lay_g == L_NHWC)
                    c.lay_g = L_PADDED;
                c.softmax = (turn / 2) % 2, c.zero_oob = (turn / 4) % 2, c.algo = turn % 2;
                c.grads = turn % 7 != 6;
                c.impossible = turn % 5 == 2;
                snprintf(c.label, sizeof c.label,
                         "ctc %s %s comp %s T%d N%d A%d L%d probs/grads %s/%s softmax %d zero_oob %d algo %d grads %d impossible %d",
                         v8 ? "v8" : "classic", fd_test_dtype_short(c.dt), fd_test_dtype_short(c.comp), c.t, c.n, c.a,
                         c.maxlab, lay_name[c.lay_p], lay_name[c.lay_g], c.softmax, c.zero_oob, c.algo, c.grads,
                         c.impossible);
                ctc_run(&c, fd_test_mix(0xC7C0, (uint64_t)turn));
                turn++;
            }
    if (gm_smoke)
        return;
    for (int v8 = 0; v8 < 2; v8++) { /* large: probs 400 x 64 x 160 = 4.1M */
        ctc_t c;
        memset(&c, 0, sizeof c);
        c.v8 = v8, c.t = 400, c.n = 64, c.a = 160, c.maxlab = 60, c.dt = CUDNN_DATA_FLOAT, c.comp = CUDNN_DATA_FLOAT;
        c.softmax = 1, c.zero_oob = 1, c.grads = 1, c.lay_p = L_NCHW, c.lay_g = L_NCHW;
        snprintf(c.label, sizeof c.label, "ctc %s large 400x64x160", v8 ? "v8" : "classic");
        ctc_run(&c, 0xB16 + (uint64_t)v8);
    }
}

int main(int argc, char **argv)
{
    gm_init(argc, argv, "test_gpu_misc");
    conv_bias_act();
    im2col();
    spatial_tf();
    ctc();
    return gm_finish();
}
