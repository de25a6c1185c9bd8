/* SPDX-License-Identifier: MIT */
/*
 * test_transform.c - layout transforms against oracles written here: cudnnTransformTensor
 * between NCHW / NHWC / padded / permuted layouts and every pair of FLOAT, DOUBLE, HALF,
 * BFLOAT16, INT8, UINT8, INT32 (exact for representable values; rounding and saturation by
 * hand), the vectorised INT8x4 / INT8x32 layouts lane by lane, the transform descriptors,
 * cudnnInitTransformDest, padding / folding / unfolding with cudnnTransformTensorEx and
 * cudnnTransformFilter, the folded strided backward-data pipeline of
 * cudnnGetFoldedConvBackwardDataDescriptors checked against the direct strided
 * cudnnConvolutionBackwardData, and cudnnReorderFilterAndBias (a copy in freednn).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_tensor.h"
#include "fd_test.h"

#define MAXD 8
#define CHECK(x) FD_EXPECT_STATUS((x), CUDNN_STATUS_SUCCESS)

static cudnnHandle_t h_ref, h_cpu;

static int64_t prod(const int *d, int n)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        p *= d[i];
    return p;
}

/* ---- cudnnTransformTensor: layouts x types ----------------------------------------------------
 */

static const cudnnDataType_t xtypes[] = {CUDNN_DATA_FLOAT,    CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                         CUDNN_DATA_BFLOAT16, CUDNN_DATA_INT8,   CUDNN_DATA_UINT8,
                                         CUDNN_DATA_INT32};
#define NXT ((int)(sizeof xtypes / sizeof xtypes[0]))

static int is_int(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_INT8 || dt == CUDNN_DATA_UINT8 || dt == CUDNN_DATA_INT32;
}

static void transform_case(uint64_t seed, cudnnDataType_t xt, cudnnDataType_t yt)
{
    fd_rng_t r;
    fd_rng_seed(&r, seed);
    int nb = fd_rng_int(&r, 0, 3) == 0 ? 5 : 4, dim[MAXD];
    for (int i = 0; i < nb; i++)
        dim[i] = fd_rng_int(&r, 1, 5);
    fd_layout_t lx, ly;
    int kx = fd_rng_int(&r, 0, FD_LAYOUT_COUNT - 1), ky = fd_rng_int(&r, 0, FD_LAYOUT_COUNT - 1);
    fd_layout_random(&lx, nb, dim, kx, &r);
    fd_layout_random(&ly, nb, dim, ky, &r);
    /* integer outputs get integer alpha/beta (no ties to round); values fit every type */
    static const double fa[] = {1, 0.5, -2}, fb[] = {0, 1, 0.25}, ia[] = {1, -1, 2},
                        ib[] = {0, 1, -1};
    double alpha = is_int(yt) ? ia[fd_rng_int(&r, 0, 2)] : fa[fd_rng_int(&r, 0, 2)];
    double beta = is_int(yt) ? ib[fd_rng_int(&r, 0, 2)] : fb[fd_rng_int(&r, 0, 2)];
    int64_t n = lx.count;
    double *vx = malloc(sizeof(double) * (size_t)n), *vy = malloc(sizeof(double) * (size_t)n);
    double *want = malloc(sizeof(double) * (size_t)n), *got = malloc(sizeof(double) * (size_t)n);
    int lo = xt == CUDNN_DATA_UINT8 ? 0 : -100;
    for (int64_t k = 0; k < n; k++) {
        vx[k] = fd_rng_int(&r, lo, 100);
        vy[k] = fd_test_round(yt, fd_rng_int(&r, yt == CUDNN_DATA_UINT8 ? 0 : -100, 100));
        double v = alpha * fd_test_round(xt, vx[k]);
        if (beta != 0)
            v += beta * vy[k];
        want[k] = fd_test_round(yt, v);
    }
    unsigned char *first = NULL;
    for (int hi = 0; hi < 2; hi++) {
        fd_tb_t X, Y;
        fd_tb_init(&X, &lx, xt);
        fd_tb_init(&Y, &ly, yt);
        fd_tb_scatter(&X, vx);
        fd_buf_poison(&Y.b);
        if (beta != 0)
            fd_tb_scatter(&Y, vy);
        fd_tb_snap(&Y);
        uint64_t hx = fd_buf_hash(&X.b);
        fd_scalar_t sa = fd_scalar(yt, alpha), sb = fd_scalar(yt, beta);
        cudnnStatus_t st =
            cudnnTransformTensor(hi ? h_cpu : h_ref, &sa, X.d, X.b.data, &sb, Y.d, Y.b.data);
        FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "transform seed=0x%llx: %s", (unsigned long long)seed,
                  cudnnGetErrorString(st));
        fd_tb_gather(&Y, got);
        int bad = -1;
        for (int64_t k = 0; k < n && bad < 0; k++)
            if (!fd_same_value(got[k], want[k]))
                bad = (int)k;
        FD_EXPECT(bad < 0,
                  "transform %s->%s %s->%s alpha %g beta %g seed=0x%llx: y[%d] = %g want %g",
                  fd_test_dtype_short(xt), fd_test_dtype_short(yt), fd_layout_name[kx],
                  fd_layout_name[ky], alpha, beta, (unsigned long long)seed, bad,
                  bad >= 0 ? got[bad] : 0.0, bad >= 0 ? want[bad] : 0.0);
        FD_EXPECT(fd_tb_holes_ok(&Y), "transform seed=0x%llx: guard or hole of y changed",
                  (unsigned long long)seed);
        FD_EXPECT(fd_buf_hash(&X.b) == hx && fd_buf_guards_ok(&X.b),
                  "transform seed=0x%llx: x changed", (unsigned long long)seed);
        if (hi == 0) {
            first = malloc(Y.b.size);
            memcpy(first, Y.b.data, Y.b.size);
        } else {
            FD_EXPECT(memcmp(first, Y.b.data, Y.b.size) == 0,
                      "transform seed=0x%llx: ref and cpu bytes differ", (unsigned long long)seed);
            free(first);
        }
        fd_tb_free(&X), fd_tb_free(&Y);
    }
    free(vx), free(vy), free(want), free(got);
}

/* Rounding and saturation by hand (the library rounds to nearest even, saturates integers and
 * maps NaN to 0 in integers). */
static void rounding_by_hand(void)
{
    static const struct {
        cudnnDataType_t yt;
        double in, want;
    } t[] = {
        {CUDNN_DATA_INT8, 2.5, 2},
        {CUDNN_DATA_INT8, 3.5, 4},
        {CUDNN_DATA_INT8, -2.5, -2},
        {CUDNN_DATA_INT8, 200, 127},
        {CUDNN_DATA_INT8, -300, -128},
        {CUDNN_DATA_INT8, NAN, 0},
        {CUDNN_DATA_UINT8, -5, 0},
        {CUDNN_DATA_UINT8, 300, 255},
        {CUDNN_DATA_UINT8, 0.5, 0},
        {CUDNN_DATA_INT32, 1.5, 2},
        {CUDNN_DATA_INT32, 3e9, 2147483647},
        {CUDNN_DATA_HALF, 1 + 0x1p-11, 1},
        {CUDNN_DATA_HALF, 1 + 3 * 0x1p-11, 1 + 0x1p-9},
        {CUDNN_DATA_HALF, 65520, INFINITY},
        {CUDNN_DATA_HALF, 0x1p-25, 0},
        {CUDNN_DATA_HALF, 0x1p-24, 0x1p-24},
        {CUDNN_DATA_BFLOAT16, 1 + 0x1p-8, 1},
        {CUDNN_DATA_BFLOAT16, 1 + 3 * 0x1p-8, 1 + 0x1p-6},
        {CUDNN_DATA_FLOAT, 1 + 0x1p-24, 1},
    };
    fd_layout_t l = {.nb = 4, .dim = {1, 1, 1, 1}, .stride = {1, 1, 1, 1}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        fd_tb_t X, Y;
        fd_tb_init(&X, &l, CUDNN_DATA_DOUBLE);
        fd_tb_init(&Y, &l, t[i].yt);
        fd_tb_scatter(&X, &t[i].in);
        float one = 1, zero = 0;
        FD_EXPECT_STATUS(cudnnTransformTensor(h_ref, &one, X.d, X.b.data, &zero, Y.d, Y.b.data),
                         CUDNN_STATUS_SUCCESS);
        double got;
        fd_tb_gather(&Y, &got);
        FD_EXPECT(got == t[i].want, "double %.17g -> %s gives %.17g, want %.17g", t[i].in,
                  fd_test_dtype_short(t[i].yt), got, t[i].want);
        fd_tb_free(&X), fd_tb_free(&Y);
    }
}

/* INT8 NCHW <-> INT8x4 / INT8x32 NCHW_VECT_C: lane c % v of vector c / v. */
static int64_t voff(int v, int C, int H, int W, int n, int c, int h, int w)
{
    return ((((int64_t)n * (C / v) + c / v) * H + h) * W + w) * v + c % v;
}

static void vect_transforms(void)
{
    const int N = 2, C = 64, H = 3, W = 2;
    const int64_t n = (int64_t)N * C * H * W;
    fd_rng_t r;
    fd_rng_seed(&r, 11);
    fd_buf_t plain = fd_buf_alloc((size_t)n), vec = fd_buf_alloc((size_t)n),
             back = fd_buf_alloc((size_t)n);
    fd_buf_t f32 = fd_buf_alloc((size_t)n * 4);
    int8_t *p = plain.data;
    for (int64_t i = 0; i < n; i++)
        p[i] = (int8_t)fd_rng_int(&r, -128, 127);
    cudnnTensorDescriptor_t dp, dv, df;
    cudnnCreateTensorDescriptor(&dp);
    cudnnCreateTensorDescriptor(&dv);
    cudnnCreateTensorDescriptor(&df);
    FD_EXPECT_STATUS(cudnnSetTensor4dDescriptor(dp, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, N, C, H, W),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(
        cudnnSetTensor4dDescriptor(df, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, N, C, H, W),
        CUDNN_STATUS_SUCCESS);
    const int lanes[2] = {4, 32};
    const cudnnDataType_t vt[2] = {CUDNN_DATA_INT8x4, CUDNN_DATA_INT8x32};
    float one = 1, zero = 0;
    for (int k = 0; k < 2; k++) {
        FD_EXPECT_STATUS(
            cudnnSetTensor4dDescriptor(dv, CUDNN_TENSOR_NCHW_VECT_C, vt[k], N, C, H, W),
            CUDNN_STATUS_SUCCESS);
        fd_buf_poison(&vec);
        uint64_t hp = fd_buf_hash(&plain);
        FD_EXPECT_STATUS(cudnnTransformTensor(h_ref, &one, dp, plain.data, &zero, dv, vec.data),
                         CUDNN_STATUS_SUCCESS);
        const int8_t *v = vec.data;
        int bad = 0;
        for (int a = 0; a < N; a++)
            for (int c = 0; c < C; c++)
                for (int y = 0; y < H; y++)
                    for (int x = 0; x < W; x++)
                        bad += v[voff(lanes[k], C, H, W, a, c, y, x)] !=
                               p[((a * C + c) * H + y) * W + x];
        FD_EXPECT(bad == 0, "INT8 NCHW -> %d-lane NCHW_VECT_C: %d elements misplaced", lanes[k],
                  bad);
        FD_EXPECT(fd_buf_hash(&plain) == hp && fd_buf_guards_ok(&vec),
                  "vect transform: input or guard changed");
        fd_buf_poison(&back);
        FD_EXPECT_STATUS(cudnnTransformTensor(h_cpu, &one, dv, vec.data, &zero, dp, back.data),
                         CUDNN_STATUS_SUCCESS);
        FD_EXPECT(memcmp(back.data, plain.data, (size_t)n) == 0,
                  "%d-lane NCHW_VECT_C -> INT8 NCHW is not the inverse", lanes[k]);
        /* vectorised -> FLOAT NHWC, then FLOAT -> vectorised with beta: 0.5 * v + 1 * v -> rounded
         */
        FD_EXPECT_STATUS(cudnnTransformTensor(h_ref, &one, dv, vec.data, &zero, df, f32.data),
                         CUDNN_STATUS_SUCCESS);
        const float *ff = f32.data;
        bad = 0;
        for (int a = 0; a < N; a++)
            for (int c = 0; c < C; c++)
                for (int y = 0; y < H; y++)
                    for (int x = 0; x < W; x++)
                        bad += ff[((a * H + y) * W + x) * C + c] !=
                               (float)p[((a * C + c) * H + y) * W + x];
        FD_EXPECT(bad == 0, "%d-lane NCHW_VECT_C -> FLOAT NHWC: %d elements wrong", lanes[k], bad);
        float half = 0.5f;
        FD_EXPECT_STATUS(cudnnTransformTensor(h_ref, &half, df, f32.data, &one, dv, vec.data),
                         CUDNN_STATUS_SUCCESS);
        bad = 0;
        for (int a = 0; a < N; a++)
            for (int c = 0; c < C; c++)
                for (int y = 0; y < H; y++)
                    for (int x = 0; x < W; x++) {
                        double s = 1.5 * p[((a * C + c) * H + y) * W + x];
                        double w = nearbyint(s); /* ties to even */
                        w = w > 127 ? 127 : w < -128 ? -128 : w;
                        bad += v[voff(lanes[k], C, H, W, a, c, y, x)] != (int8_t)w;
                    }
        FD_EXPECT(bad == 0, "FLOAT -> %d-lane with beta: %d elements wrong", lanes[k], bad);
    }
    cudnnDestroyTensorDescriptor(dp);
    cudnnDestroyTensorDescriptor(dv);
    cudnnDestroyTensorDescriptor(df);
    fd_buf_free(&plain), fd_buf_free(&vec), fd_buf_free(&back), fd_buf_free(&f32);
}

/* ---- transform descriptors: fold / unfold / pad ---------------------------------------------- */

/* The fold from its definition, scattering x: pad, then (n, c, s) -> (n + pb0, pb1 + phase C + c,
 * (s + pb) / f), phase = row-major index of the (s + pb) % f; the rest zero. */
static void fold_oracle(const double *x, int nb, const int *xd, const int *pb, const int *pa,
                        const unsigned *fold, int *yd, double *y)
{
    int F = 1;
    for (int i = 2; i < nb; i++)
        F *= (int)fold[i - 2];
    yd[0] = xd[0] + pb[0] + pa[0];
    yd[1] = (xd[1] + pb[1] + pa[1]) * F;
    for (int i = 2; i < nb; i++)
        yd[i] = (xd[i] + pb[i] + pa[i] + (int)fold[i - 2] - 1) / (int)fold[i - 2];
    int64_t ny = prod(yd, nb), nx = prod(xd, nb);
    for (int64_t k = 0; k < ny; k++)
        y[k] = 0;
    for (int64_t k = 0; k < nx; k++) {
        int idx[MAXD], yi[MAXD];
        int64_t rest = k;
        for (int i = nb - 1; i >= 0; i--) {
            idx[i] = (int)(rest % xd[i]);
            rest /= xd[i];
        }
        int phase = 0;
        for (int i = 2; i < nb; i++) {
            int s = idx[i] + pb[i];
            phase = phase * (int)fold[i - 2] + s % (int)fold[i - 2];
            yi[i] = s / (int)fold[i - 2];
        }
        yi[0] = idx[0] + pb[0];
        yi[1] = pb[1] + phase * xd[1] + idx[1];
        int64_t o = 0;
        for (int i = 0; i < nb; i++)
            o = o * yd[i] + yi[i];
        y[o] = x[k];
    }
}

static void fold_case(uint64_t seed)
{
    fd_rng_t r;
    fd_rng_seed(&r, seed);
    int nb = fd_rng_int(&r, 0, 2) == 0 ? 5 : 4, xd[MAXD], pb[MAXD], pa[MAXD];
    unsigned fold[MAXD];
    cudnnDataType_t dt = (cudnnDataType_t[]){CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_DOUBLE,
                                             CUDNN_DATA_INT8}[fd_rng_int(&r, 0, 3)];
    for (int i = 0; i < nb; i++) {
        xd[i] = fd_rng_int(&r, 1, 5);
        pb[i] = fd_rng_int(&r, 0, 2) == 0 ? fd_rng_int(&r, 1, 2) : 0;
        pa[i] = fd_rng_int(&r, 0, 2) == 0 ? fd_rng_int(&r, 1, 2) : 0;
        if (i >= 2)
            fold[i - 2] = (unsigned)fd_rng_int(&r, 1, 3);
    }
    cudnnTensorFormat_t fmt = fd_rng_int(&r, 0, 1) ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    cudnnTensorTransformDescriptor_t t, u;
    cudnnCreateTensorTransformDescriptor(&t);
    cudnnCreateTensorTransformDescriptor(&u);
    FD_EXPECT_STATUS(
        cudnnSetTensorTransformDescriptor(t, (uint32_t)nb, fmt, pb, pa, fold, CUDNN_TRANSFORM_FOLD),
        CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetTensorTransformDescriptor(u, (uint32_t)nb, fmt, pb, pa, fold,
                                                       CUDNN_TRANSFORM_UNFOLD),
                     CUDNN_STATUS_SUCCESS);
    fd_layout_t lx;
    int kx = fd_rng_int(&r, 0, FD_LAYOUT_COUNT - 1);
    fd_layout_random(&lx, nb, xd, kx, &r);
    int64_t nx = lx.count;
    double *vx = malloc(sizeof(double) * (size_t)nx);
    for (int64_t k = 0; k < nx; k++)
        vx[k] = fd_rng_int(&r, -60, 60);
    int yd[MAXD];
    int64_t ny_max = 1;
    for (int i = 0; i < nb; i++)
        ny_max *= xd[i] + pb[i] + pa[i] + 3;
    ny_max *= 27;
    double *want = malloc(sizeof(double) * (size_t)ny_max),
           *got = malloc(sizeof(double) * (size_t)ny_max);
    fold_oracle(vx, nb, xd, pb, pa, fold, yd, want);
    double alpha = fd_rng_int(&r, 0, 1) ? 1.0 : -2.0;
    int64_t ny = prod(yd, nb);
    for (int64_t k = 0; k < ny; k++)
        want[k] = fd_test_round(dt, alpha * want[k]);

    fd_tb_t X;
    fd_tb_init(&X, &lx, dt);
    fd_tb_scatter(&X, vx);
    cudnnTensorDescriptor_t dd, ud;
    cudnnCreateTensorDescriptor(&dd);
    cudnnCreateTensorDescriptor(&ud);
    size_t bytes = 0;
    FD_EXPECT_STATUS(cudnnInitTransformDest(t, X.d, dd, &bytes), CUDNN_STATUS_SUCCESS);
    cudnnDataType_t gdt;
    int gnb, gd[MAXD], gs[MAXD];
    FD_EXPECT_STATUS(cudnnGetTensorNdDescriptor(dd, MAXD, &gdt, &gnb, gd, gs),
                     CUDNN_STATUS_SUCCESS);
    int dims_ok = gnb == nb && gdt == dt && bytes == (size_t)ny * fd_test_dtype_size(dt);
    for (int i = 0; i < nb && dims_ok; i++)
        dims_ok = gd[i] == yd[i];
    int64_t want_c_stride = fmt == CUDNN_TENSOR_NHWC ? 1 : prod(yd + 2, nb - 2);
    FD_EXPECT(dims_ok && gs[1] == want_c_stride,
              "cudnnInitTransformDest seed=0x%llx: wrong dims/strides/size",
              (unsigned long long)seed);
    /* run the fold into the destination InitTransformDest describes */
    fd_layout_t ly = {.nb = gnb, .dim = {0}, .stride = {0}};
    memcpy(ly.dim, gd, sizeof gd);
    memcpy(ly.stride, gs, sizeof gs);
    fd_buf_t yb = fd_buf_alloc((size_t)ny * fd_test_dtype_size(dt));
    fd_buf_poison(&yb);
    fd_scalar_t sa = fd_scalar(dt, alpha), s0 = fd_scalar(dt, 0), s1 = fd_scalar(dt, 1),
                sh = fd_scalar(dt, 0.5);
    uint64_t hx = fd_buf_hash(&X.b);
    FD_EXPECT_STATUS(cudnnTransformTensorEx(h_ref, t, &sa, X.d, X.b.data, &s0, dd, yb.data),
                     CUDNN_STATUS_SUCCESS);
    for (int64_t k = 0; k < ny; k++)
        got[k] = fd_test_load(dt, yb.data, fd_layout_offset(&ly, k));
    int bad = -1;
    for (int64_t k = 0; k < ny && bad < 0; k++)
        if (got[k] != want[k])
            bad = (int)k;
    FD_EXPECT(bad < 0, "fold %s seed=0x%llx: y[%d] = %g want %g", fd_test_dtype_short(dt),
              (unsigned long long)seed, bad, bad >= 0 ? got[bad] : 0.0, bad >= 0 ? want[bad] : 0.0);
    FD_EXPECT(fd_buf_guards_ok(&yb) && fd_buf_hash(&X.b) == hx,
              "fold seed=0x%llx: guard or input changed", (unsigned long long)seed);
    int nonplain = 0;
    for (int i = 0; i < nb; i++)
        nonplain |= pb[i] || pa[i] || (i >= 2 && fold[i - 2] > 1);
    if (nonplain)
        FD_EXPECT_STATUS(cudnnTransformTensorEx(h_ref, t, &s1, X.d, X.b.data, &sh, dd, yb.data),
                         CUDNN_STATUS_NOT_SUPPORTED);
    /* unfold back with alpha and beta: 0.5 * unfold(y) + 1 * old. The fold rounds extents up,
     * so the unfolded dims are y's times the fold minus the padding, possibly larger than x's;
     * the extra cells are the fold's zeros. */
    int folded = 0;
    for (int i = 2; i < nb; i++)
        folded |= fold[i - 2] > 1;
    if (folded && dt != CUDNN_DATA_INT8) {
        int uw[MAXD];
        uw[0] = xd[0], uw[1] = xd[1];
        for (int i = 2; i < nb; i++)
            uw[i] = yd[i] * (int)fold[i - 2] - pb[i] - pa[i];
        size_t ub = 0;
        FD_EXPECT_STATUS(cudnnInitTransformDest(u, dd, ud, &ub), CUDNN_STATUS_SUCCESS);
        int ud_nb, udd[MAXD], uds[MAXD];
        cudnnDataType_t udt;
        FD_EXPECT_STATUS(cudnnGetTensorNdDescriptor(ud, MAXD, &udt, &ud_nb, udd, uds),
                         CUDNN_STATUS_SUCCESS);
        int same = ud_nb == nb;
        for (int i = 0; i < nb && same; i++)
            same = udd[i] == uw[i];
        FD_EXPECT(same, "unfold of a fold seed=0x%llx: InitTransformDest gives the wrong dims",
                  (unsigned long long)seed);
        fd_layout_t lu;
        fd_layout_random(&lu, nb, uw, kx, &r);
        int64_t nu = lu.count;
        fd_tb_t Z;
        fd_tb_init(&Z, &lu, dt);
        double *old = calloc((size_t)nu, sizeof(double)), *zz = calloc((size_t)nu, sizeof(double));
        for (int64_t k = 0; k < nu; k++)
            old[k] = fd_rng_int(&r, -9, 9);
        fd_tb_scatter(&Z, old);
        fd_tb_snap(&Z);
        FD_EXPECT_STATUS(cudnnTransformTensorEx(h_cpu, u, &sh, dd, yb.data, &s1, Z.d, Z.b.data),
                         CUDNN_STATUS_SUCCESS);
        fd_tb_gather(&Z, zz);
        bad = -1;
        for (int64_t k = 0; k < nu && bad < 0; k++) {
            int64_t rest = k, xk = 0;
            int inside = 1;
            for (int i = nb - 1; i >= 0; i--) {
                int ix = (int)(rest % uw[i]);
                rest /= uw[i];
                inside &= ix < xd[i];
            }
            rest = k;
            int64_t mul = 1;
            for (int i = nb - 1; i >= 0; i--) {
                xk += (rest % uw[i]) * mul;
                rest /= uw[i];
                mul *= xd[i];
            }
            double xv = inside ? fd_test_round(dt, alpha * vx[xk]) : 0.0;
            if (zz[k] != fd_test_round(dt, 0.5 * xv + old[k]))
                bad = (int)k;
        }
        FD_EXPECT(bad < 0, "unfold(fold(x)) seed=0x%llx: element %d wrong",
                  (unsigned long long)seed, bad);
        FD_EXPECT(fd_tb_holes_ok(&Z), "unfold seed=0x%llx: guard or hole changed",
                  (unsigned long long)seed);
        free(old), free(zz);
        fd_tb_free(&Z);
    }
    fd_buf_free(&yb);
    fd_tb_free(&X);
    cudnnDestroyTensorDescriptor(dd);
    cudnnDestroyTensorDescriptor(ud);
    cudnnDestroyTensorTransformDescriptor(t);
    cudnnDestroyTensorTransformDescriptor(u);
    free(vx), free(want), free(got);
}

static void transform_desc_by_hand(void)
{
    cudnnTensorTransformDescriptor_t t;
    cudnnCreateTensorTransformDescriptor(&t);
    const int32_t pb[4] = {0, 1, 1, 0}, pa[4] = {0, 1, 0, 1};
    const uint32_t f23[2] = {2, 3};
    FD_EXPECT_STATUS(cudnnSetTensorTransformDescriptor(t, 4, CUDNN_TENSOR_NCHW, pb, pa, f23,
                                                       CUDNN_TRANSFORM_FOLD),
                     CUDNN_STATUS_SUCCESS);
    cudnnTensorFormat_t fmt;
    int32_t gb[4], ga[4];
    uint32_t gf[2];
    cudnnFoldingDirection_t dir;
    FD_EXPECT_STATUS(cudnnGetTensorTransformDescriptor(t, 4, &fmt, gb, ga, gf, &dir),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(fmt == CUDNN_TENSOR_NCHW && dir == CUDNN_TRANSFORM_FOLD &&
                  memcmp(gb, pb, sizeof gb) == 0 && memcmp(ga, pa, sizeof ga) == 0 && gf[0] == 2 &&
                  gf[1] == 3,
              "transform descriptor round trip");
    /* 1x2x5x6 padded to 1x4x6x7 and folded by 2x3: 1 x 24 x 3 x 3 (hand-computed) */
    cudnnTensorDescriptor_t s, d;
    cudnnCreateTensorDescriptor(&s);
    cudnnCreateTensorDescriptor(&d);
    FD_EXPECT_STATUS(cudnnSetTensor4dDescriptor(s, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 2, 5, 6),
                     CUDNN_STATUS_SUCCESS);
    size_t bytes;
    FD_EXPECT_STATUS(cudnnInitTransformDest(t, s, d, &bytes), CUDNN_STATUS_SUCCESS);
    cudnnDataType_t dt;
    int n, c, h, w, sn, sc, sh, sw;
    FD_EXPECT_STATUS(cudnnGetTensor4dDescriptor(d, &dt, &n, &c, &h, &w, &sn, &sc, &sh, &sw),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(n == 1 && c == 24 && h == 3 && w == 3 && sn == 216 && sc == 9 && sh == 3 && sw == 1 &&
                  bytes == 864,
              "fold dims by hand: %dx%dx%dx%d strides %d,%d,%d,%d bytes %zu", n, c, h, w, sn, sc,
              sh, sw, bytes);
    /* element x(0, 1, 2, 4) lands at padded (0, 2, 3, 4): phase (3 % 2) * 3 + 4 % 3 = 4,
     * channel 1 + 4 * 2 + 1 = 10, spatial (1, 1) */
    float xs[60], ys[216];
    for (int i = 0; i < 60; i++)
        xs[i] = (float)(i + 1);
    float one = 1, zero = 0;
    FD_EXPECT_STATUS(cudnnTransformTensorEx(h_ref, t, &one, s, xs, &zero, d, ys),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(ys[10 * 9 + 1 * 3 + 1] == xs[(1 * 5 + 2) * 6 + 4],
              "fold by hand: y(0,10,1,1) = %g want %g", ys[10 * 9 + 4], xs[(1 * 5 + 2) * 6 + 4]);
    FD_EXPECT(ys[0] == 0 && ys[9 * 24 - 1] == 0, "fold by hand: channel padding is zero");
    /* a transform with no padding and no folding is a layout change and takes beta */
    FD_EXPECT_STATUS(cudnnSetTensorTransformDescriptor(t, 4, CUDNN_TENSOR_NHWC, NULL, NULL, NULL,
                                                       CUDNN_TRANSFORM_FOLD),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnInitTransformDest(t, s, d, &bytes), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnGetTensor4dDescriptor(d, &dt, &n, &c, &h, &w, &sn, &sc, &sh, &sw),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(n == 1 && c == 2 && h == 5 && w == 6 && sc == 1 && sw == 2 && sh == 12 && sn == 60,
              "NHWC destination by hand: %dx%dx%dx%d strides %d,%d,%d,%d", n, c, h, w, sn, sc, sh,
              sw);
    float two = 2, half = 0.5f;
    for (int i = 0; i < 60; i++)
        ys[i] = -2;
    FD_EXPECT_STATUS(cudnnTransformTensorEx(h_ref, t, &two, s, xs, &half, d, ys),
                     CUDNN_STATUS_SUCCESS);
    int bad = 0;
    for (int cc = 0; cc < 2; cc++)
        for (int i = 0; i < 30; i++)
            bad += ys[i * 2 + cc] != 2 * xs[cc * 30 + i] - 1;
    FD_EXPECT(bad == 0, "layout change with alpha and beta: %d wrong", bad);
    cudnnDestroyTensorDescriptor(s);
    cudnnDestroyTensorDescriptor(d);
    cudnnDestroyTensorTransformDescriptor(t);
}

/* A vectorised source folds lane by lane: INT8x4 1x8x3x4, pads {0,0,1,0}/{0,0,0,0}, fold 2x2. */
static void vect_fold(void)
{
    const int N = 1, C = 8, Hh = 3, W = 4;
    int8_t vx[96];
    double canon[96], want[512];
    for (int c = 0; c < C; c++)
        for (int y = 0; y < Hh; y++)
            for (int x = 0; x < W; x++) {
                int v = (c * 31 + y * 7 + x * 3) % 100 - 50;
                canon[(c * Hh + y) * W + x] = v;
                vx[voff(4, C, Hh, W, 0, c, y, x)] = (int8_t)v;
            }
    const int xd[4] = {N, C, Hh, W}, pb[4] = {0, 0, 1, 0}, pa[4] = {0, 0, 0, 0};
    const unsigned f22[2] = {2, 2};
    int yd[4];
    fold_oracle(canon, 4, xd, pb, pa, f22, yd, want);
    cudnnTensorDescriptor_t s, d;
    cudnnTensorTransformDescriptor_t t;
    cudnnCreateTensorDescriptor(&s), cudnnCreateTensorDescriptor(&d);
    cudnnCreateTensorTransformDescriptor(&t);
    FD_EXPECT_STATUS(
        cudnnSetTensor4dDescriptor(s, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, N, C, Hh, W),
        CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetTensorTransformDescriptor(t, 4, CUDNN_TENSOR_NCHW, pb, pa, f22,
                                                       CUDNN_TRANSFORM_FOLD),
                     CUDNN_STATUS_SUCCESS);
    size_t bytes = 0;
    FD_EXPECT_STATUS(cudnnInitTransformDest(t, s, d, &bytes), CUDNN_STATUS_SUCCESS);
    int64_t ny = prod(yd, 4);
    FD_EXPECT(bytes == (size_t)ny, "INT8x4 fold destination: %zu bytes, want %lld", bytes,
              (long long)ny);
    fd_buf_t out = fd_buf_alloc((size_t)ny);
    fd_buf_poison(&out);
    float one = 1, zero = 0;
    FD_EXPECT_STATUS(cudnnTransformTensorEx(h_ref, t, &one, s, vx, &zero, d, out.data),
                     CUDNN_STATUS_SUCCESS);
    const int8_t *o = out.data;
    int bad = 0;
    for (int64_t k = 0; k < ny; k++)
        bad += o[k] != (int8_t)want[k];
    FD_EXPECT(bad == 0 && fd_buf_guards_ok(&out), "INT8x4 fold: %d elements wrong", bad);
    fd_buf_free(&out);
    cudnnDestroyTensorDescriptor(s), cudnnDestroyTensorDescriptor(d);
    cudnnDestroyTensorTransformDescriptor(t);
}

/* Filters fold like tensors, K padded like N: 2x3x3x3, pads {0,0,1,1}/{2,1,0,0}, fold 2x2 ->
 * 4x16x2x2. */
static void filter_transforms(void)
{
    cudnnTensorTransformDescriptor_t t;
    cudnnCreateTensorTransformDescriptor(&t);
    const int32_t fb[4] = {0, 0, 1, 1}, fa[4] = {2, 1, 0, 0};
    const uint32_t f22[2] = {2, 2};
    FD_EXPECT_STATUS(cudnnSetTensorTransformDescriptor(t, 4, CUDNN_TENSOR_NCHW, fb, fa, f22,
                                                       CUDNN_TRANSFORM_FOLD),
                     CUDNN_STATUS_SUCCESS);
    cudnnFilterDescriptor_t fs, fd2, fn;
    cudnnCreateFilterDescriptor(&fs);
    cudnnCreateFilterDescriptor(&fd2);
    cudnnCreateFilterDescriptor(&fn);
    FD_EXPECT_STATUS(
        cudnnSetFilter4dDescriptor(fs, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2, 3, 3, 3),
        CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(
        cudnnSetFilter4dDescriptor(fd2, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, 16, 2, 2),
        CUDNN_STATUS_SUCCESS);
    double w[54], want[256];
    float wf[54];
    for (int i = 0; i < 54; i++)
        w[i] = i + 1, wf[i] = (float)(i + 1);
    int xd[4] = {2, 3, 3, 3}, yd[4];
    const int pbi[4] = {0, 0, 1, 1}, pai[4] = {2, 1, 0, 0};
    fold_oracle(w, 4, xd, pbi, pai, f22, yd, want);
    FD_EXPECT(yd[0] == 4 && yd[1] == 16 && yd[2] == 2 && yd[3] == 2, "filter fold oracle dims");
    fd_buf_t out = fd_buf_alloc(256 * 4);
    fd_buf_poison(&out);
    float one = 1, zero = 0;
    FD_EXPECT_STATUS(cudnnTransformFilter(h_ref, t, &one, fs, wf, &zero, fd2, out.data),
                     CUDNN_STATUS_SUCCESS);
    const float *o = out.data;
    int bad = 0;
    for (int i = 0; i < 256; i++)
        bad += o[i] != (float)want[i];
    FD_EXPECT(bad == 0 && fd_buf_guards_ok(&out),
              "cudnnTransformFilter pads K and C and folds the taps: %d wrong", bad);
    /* a plain NCHW -> NHWC filter relayout (KCRS -> KRSC) with alpha and beta */
    FD_EXPECT_STATUS(cudnnSetTensorTransformDescriptor(t, 4, CUDNN_TENSOR_NHWC, NULL, NULL, NULL,
                                                       CUDNN_TRANSFORM_FOLD),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(
        cudnnSetFilter4dDescriptor(fn, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, 2, 3, 3, 3),
        CUDNN_STATUS_SUCCESS);
    float *on = out.data;
    for (int i = 0; i < 54; i++)
        on[i] = 1;
    float two = 2;
    FD_EXPECT_STATUS(cudnnTransformFilter(h_ref, t, &two, fs, wf, &one, fn, out.data),
                     CUDNN_STATUS_SUCCESS);
    bad = 0;
    for (int k = 0; k < 2; k++)
        for (int c = 0; c < 3; c++)
            for (int rr = 0; rr < 3; rr++)
                for (int s = 0; s < 3; s++)
                    bad += on[((k * 3 + rr) * 3 + s) * 3 + c] !=
                           2 * wf[((k * 3 + c) * 3 + rr) * 3 + s] + 1;
    FD_EXPECT(bad == 0, "filter KCRS -> KRSC relayout: %d wrong", bad);
    fd_buf_free(&out);
    cudnnDestroyFilterDescriptor(fs);
    cudnnDestroyFilterDescriptor(fd2);
    cudnnDestroyFilterDescriptor(fn);
    cudnnDestroyTensorTransformDescriptor(t);
}

/* ---- the folded strided backward-data pipeline ---------------------------------------------- */

static void *alloc_filter(cudnnFilterDescriptor_t f, size_t *bytes)
{
    FD_EXPECT_STATUS(cudnnGetFilterSizeInBytes(f, bytes), CUDNN_STATUS_SUCCESS);
    return calloc(1, *bytes + 8);
}

static void *alloc_tensor(cudnnTensorDescriptor_t t, size_t *bytes)
{
    FD_EXPECT_STATUS(cudnnGetTensorSizeInBytes(t, bytes), CUDNN_STATUS_SUCCESS);
    return calloc(1, *bytes + 8);
}

static void folded_dgrad_case(uint64_t seed)
{
    fd_rng_t r;
    fd_rng_seed(&r, seed);
    const int N = fd_rng_int(&r, 1, 2), C = fd_rng_int(&r, 1, 3), K = fd_rng_int(&r, 1, 3);
    int H = fd_rng_int(&r, 4, 9), W = fd_rng_int(&r, 4, 9), R = fd_rng_int(&r, 1, 4),
        S = fd_rng_int(&r, 1, 4);
    int su = fd_rng_int(&r, 1, 3), sv = fd_rng_int(&r, 1, 3), ph = fd_rng_int(&r, 0, R - 1),
        pw = fd_rng_int(&r, 0, S - 1);
    int dh = su == 1 && fd_rng_int(&r, 0, 2) == 0 ? 2 : 1,
        dw = sv == 1 && fd_rng_int(&r, 0, 2) == 0 ? 2 : 1;
    if ((R - 1) * dh + 1 > H + 2 * ph)
        dh = 1;
    if ((S - 1) * dw + 1 > W + 2 * pw)
        dw = 1;
    cudnnTensorFormat_t tf = fd_rng_int(&r, 0, 1) ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    cudnnDataType_t dt = fd_rng_int(&r, 0, 1) ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    cudnnTensorDescriptor_t xd, yd, pdd, fgd;
    cudnnFilterDescriptor_t wd, ffd;
    cudnnConvolutionDescriptor_t cd, fcd;
    cudnnTensorTransformDescriptor_t tfil, tdiff, tgf, tgu;
    cudnnCreateTensorDescriptor(&xd), cudnnCreateTensorDescriptor(&yd),
        cudnnCreateTensorDescriptor(&pdd);
    cudnnCreateTensorDescriptor(&fgd), cudnnCreateFilterDescriptor(&wd),
        cudnnCreateFilterDescriptor(&ffd);
    cudnnCreateConvolutionDescriptor(&cd), cudnnCreateConvolutionDescriptor(&fcd);
    cudnnCreateTensorTransformDescriptor(&tfil), cudnnCreateTensorTransformDescriptor(&tdiff);
    cudnnCreateTensorTransformDescriptor(&tgf), cudnnCreateTensorTransformDescriptor(&tgu);
    FD_EXPECT_STATUS(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, dt, N, C, H, W),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetFilter4dDescriptor(wd, dt, CUDNN_TENSOR_NCHW, K, C, R, S),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(
        cudnnSetConvolution2dDescriptor(cd, ph, pw, su, sv, dh, dw, CUDNN_CROSS_CORRELATION, dt),
        CUDNN_STATUS_SUCCESS);
    int on, oc, oh, ow;
    FD_EXPECT_STATUS(cudnnGetConvolution2dForwardOutputDim(cd, xd, wd, &on, &oc, &oh, &ow),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, dt, on, oc, oh, ow),
                     CUDNN_STATUS_SUCCESS);
    cudnnStatus_t st = cudnnGetFoldedConvBackwardDataDescriptors(
        h_ref, wd, yd, cd, xd, tf, ffd, pdd, fcd, fgd, tfil, tdiff, tgf, tgu);
    FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "folded descriptors seed=0x%llx: %s",
              (unsigned long long)seed, cudnnGetErrorString(st));
    if (st != CUDNN_STATUS_SUCCESS)
        return;
    /* the folded problem is a stride-1, pad-0 convolution */
    int pads[2], strides[2], dils[2], arr;
    cudnnConvolutionMode_t mode;
    cudnnDataType_t ct;
    FD_EXPECT_STATUS(cudnnGetConvolutionNdDescriptor(fcd, 2, &arr, pads, strides, dils, &mode, &ct),
                     CUDNN_STATUS_SUCCESS);
    int strided = su > 1 || sv > 1;
    FD_EXPECT(arr == 2 && pads[0] == (strided ? 0 : ph) && pads[1] == (strided ? 0 : pw) &&
                  strides[0] == 1 && strides[1] == 1 && dils[0] == dh && dils[1] == dw &&
                  mode == CUDNN_CROSS_CORRELATION && ct == dt,
              "folded convolution descriptor seed=0x%llx", (unsigned long long)seed);
    cudnnDataType_t fdt;
    cudnnTensorFormat_t ffmt;
    int fk, fc, fr, fs;
    FD_EXPECT_STATUS(cudnnGetFilter4dDescriptor(ffd, &fdt, &ffmt, &fk, &fc, &fr, &fs),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(fk == K && fc == C * su * sv && fr == (R + su - 1) / su && fs == (S + sv - 1) / sv &&
                  ffmt == tf,
              "folded filter %dx%dx%dx%d seed=0x%llx", fk, fc, fr, fs, (unsigned long long)seed);

    size_t bx, bw, by, bwf, bdy, bdxf;
    double *w = alloc_filter(wd, &bw), *dy = alloc_tensor(yd, &by), *dx = alloc_tensor(xd, &bx),
           *dx2 = alloc_tensor(xd, &bx), *old = alloc_tensor(xd, &bx);
    void *wf = alloc_filter(ffd, &bwf), *dyp = alloc_tensor(pdd, &bdy),
         *dxf = alloc_tensor(fgd, &bdxf);
    size_t es = dt == CUDNN_DATA_DOUBLE ? 8 : 4;
    for (size_t i = 0; i < bw / es; i++)
        fd_test_store(dt, w, (int64_t)i, fd_rng_int(&r, -3, 3));
    for (size_t i = 0; i < by / es; i++)
        fd_test_store(dt, dy, (int64_t)i, fd_rng_int(&r, -3, 3));
    for (size_t i = 0; i < bx / es; i++)
        fd_test_store(dt, old, (int64_t)i, fd_rng_int(&r, -3, 3));
    fd_scalar_t one = fd_scalar(dt, 1), zero = fd_scalar(dt, 0);
    size_t ws = 0;
    FD_EXPECT_STATUS(cudnnGetConvolutionBackwardDataWorkspaceSize(
                         h_ref, wd, yd, cd, xd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, &ws),
                     CUDNN_STATUS_SUCCESS);
    void *work = malloc(ws + 1);
    /* direct strided backward data */
    FD_EXPECT_STATUS(cudnnConvolutionBackwardData(h_ref, &one, wd, w, yd, dy, cd,
                                                  CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, work, ws,
                                                  &zero, xd, dx),
                     CUDNN_STATUS_SUCCESS);
    /* folded: fold w, pad dy, stride-1 backward data, unfold dx */
    FD_EXPECT_STATUS(cudnnTransformFilter(h_ref, tfil, &one, wd, w, &zero, ffd, wf),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnTransformTensorEx(h_ref, tdiff, &one, yd, dy, &zero, pdd, dyp),
                     CUDNN_STATUS_SUCCESS);
    size_t ws2 = 0;
    FD_EXPECT_STATUS(cudnnGetConvolutionBackwardDataWorkspaceSize(
                         h_ref, ffd, pdd, fcd, fgd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, &ws2),
                     CUDNN_STATUS_SUCCESS);
    void *work2 = malloc(ws2 + 1);
    FD_EXPECT_STATUS(cudnnConvolutionBackwardData(h_ref, &one, ffd, wf, pdd, dyp, fcd,
                                                  CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, work2, ws2,
                                                  &zero, fgd, dxf),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnTransformTensorEx(h_ref, tgu, &one, fgd, dxf, &zero, xd, dx2),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(memcmp(dx, dx2, bx) == 0,
              "folded dgrad n%dc%dh%dw%d k%dr%ds%d p%d,%d u%d,%d d%d,%d %s seed=0x%llx differs "
              "from the direct one",
              N, C, H, W, K, R, S, ph, pw, su, sv, dh, dw,
              tf == CUDNN_TENSOR_NHWC ? "nhwc" : "nchw", (unsigned long long)seed);
    /* beta = 1: carry the old dx through the grad fold */
    memcpy(dx, old, bx);
    FD_EXPECT_STATUS(cudnnConvolutionBackwardData(h_ref, &one, wd, w, yd, dy, cd,
                                                  CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, work, ws, &one,
                                                  xd, dx),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnTransformTensorEx(h_ref, tgf, &one, xd, old, &zero, fgd, dxf),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnConvolutionBackwardData(h_ref, &one, ffd, wf, pdd, dyp, fcd,
                                                  CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, work2, ws2,
                                                  &one, fgd, dxf),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnTransformTensorEx(h_ref, tgu, &one, fgd, dxf, &zero, xd, dx2),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(memcmp(dx, dx2, bx) == 0,
              "folded dgrad with beta = 1 seed=0x%llx differs from the direct one",
              (unsigned long long)seed);
    free(w), free(dy), free(dx), free(dx2), free(old), free(wf), free(dyp), free(dxf), free(work),
        free(work2);
    cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd),
        cudnnDestroyTensorDescriptor(pdd);
    cudnnDestroyTensorDescriptor(fgd), cudnnDestroyFilterDescriptor(wd),
        cudnnDestroyFilterDescriptor(ffd);
    cudnnDestroyConvolutionDescriptor(cd), cudnnDestroyConvolutionDescriptor(fcd);
    cudnnDestroyTensorTransformDescriptor(tfil), cudnnDestroyTensorTransformDescriptor(tdiff);
    cudnnDestroyTensorTransformDescriptor(tgf), cudnnDestroyTensorTransformDescriptor(tgu);
}

/* ---- cudnnReorderFilterAndBias -----------------------------------------------------------------
 */

static void reorder(void)
{
    cudnnFilterDescriptor_t f;
    cudnnCreateFilterDescriptor(&f);
    FD_EXPECT_STATUS(
        cudnnSetFilter4dDescriptor(f, CUDNN_DATA_INT8x32, CUDNN_TENSOR_NCHW_VECT_C, 32, 64, 3, 3),
        CUDNN_STATUS_SUCCESS);
    const size_t fb = 32 * 64 * 9, bb = 32 * 4;
    fd_buf_t w = fd_buf_alloc(fb), w2 = fd_buf_alloc(fb), b = fd_buf_alloc(bb),
             b2 = fd_buf_alloc(bb);
    fd_rng_t r;
    fd_rng_seed(&r, 5);
    for (size_t i = 0; i < fb; i++)
        ((unsigned char *)w.data)[i] = (unsigned char)fd_rng_int(&r, 0, 255);
    float *bias = b.data;
    for (int i = 0; i < 32; i++)
        bias[i] = 0.25f * (float)i - 3;
    bias[5] = NAN;
    uint64_t hw = fd_buf_hash(&w), hb = fd_buf_hash(&b);
    for (int type = 0; type < 2; type++) {
        fd_buf_poison(&w2);
        fd_buf_poison(&b2);
        uint64_t hb2 = fd_buf_hash(&b2);
        cudnnReorderType_t rt = type ? CUDNN_NO_REORDER : CUDNN_DEFAULT_REORDER;
        FD_EXPECT_STATUS(cudnnReorderFilterAndBias(h_ref, f, rt, w.data, w2.data, 0, NULL, NULL),
                         CUDNN_STATUS_SUCCESS);
        FD_EXPECT(memcmp(w.data, w2.data, fb) == 0 && fd_buf_hash(&b2) == hb2,
                  "reorder %d: filter not copied", type);
        fd_buf_poison(&w2);
        FD_EXPECT_STATUS(
            cudnnReorderFilterAndBias(h_cpu, f, rt, w.data, w2.data, 1, b.data, b2.data),
            CUDNN_STATUS_SUCCESS);
        FD_EXPECT(memcmp(w.data, w2.data, fb) == 0 && memcmp(b.data, b2.data, bb) == 0,
                  "reorder %d with bias: not a byte copy", type);
        FD_EXPECT(fd_buf_guards_ok(&w2) && fd_buf_guards_ok(&b2) && fd_buf_hash(&w) == hw &&
                      fd_buf_hash(&b) == hb,
                  "reorder %d: guards or inputs changed", type);
    }
    fd_buf_free(&w), fd_buf_free(&w2), fd_buf_free(&b), fd_buf_free(&b2);
    cudnnDestroyFilterDescriptor(f);
}

int main(void)
{
    fd_handles_create(&h_ref, &h_cpu);
    uint64_t master = fd_test_sweep_seed(0x7a5f0), one;
    if (fd_test_seed_forced(&one)) {
        transform_case(one, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF);
        fold_case(one);
        folded_dgrad_case(one);
        return fd_test_finish();
    }
    rounding_by_hand();
    vect_transforms();
    transform_desc_by_hand();
    filter_transforms();
    vect_fold();
    reorder();
    int n = 0, reps = (int)(4 * fd_test_scale());
    if (reps < 1)
        reps = 1;
    for (int a = 0; a < NXT; a++)
        for (int b = 0; b < NXT; b++)
            for (int rep = 0; rep < reps; rep++)
                transform_case(fd_test_mix(master, (uint64_t)n++), xtypes[a], xtypes[b]);
    for (int i = 0; i < 40 * reps; i++)
        fold_case(fd_test_mix(master, 10000u + (uint64_t)i));
    for (int i = 0; i < 30 * reps; i++)
        folded_dgrad_case(fd_test_mix(master, 20000u + (uint64_t)i));
    cudnnDestroy(h_ref);
    cudnnDestroy(h_cpu);
    return fd_test_finish();
}
