/* SPDX-License-Identifier: MIT */
/*
 * test_spatial_tf.c - spatial transformer (affine grid generator + bilinear sampler) against an
 * independent oracle.
 *
 * The oracle works on canonical dense double arrays and shares nothing with src/ref: it writes
 * the bilinear sample as a sum over EVERY input pixel of x times the hat kernel
 * max(0, 1 - |ix - xx|) max(0, 1 - |iy - yy|) (zero padding falls out of it), SCATTERS dx,
 * and differentiates the hat with its right derivative (-1 on [0, 1), +1 on [-1, 0)), which is
 * what the floor-based formula gives at the kinks. Coordinates: align_corners = True, i.e.
 * ix = (gx + 1) (W - 1) / 2 and target x_t = -1 + 2 w / (W - 1) (0 when W = 1).
 *
 * Checked: hand cases with the numbers written here (every dtype, exact); a sweep of random
 * shapes, dtypes, alpha/beta and three layouts (NCHW, NHWC, padded) in exact mode (dyadic grids,
 * integer data: bitwise equal to the oracle) and real mode (under the tolerance), on the ref and
 * cpu backends, with identical bits across layouts and backends; poisoned outputs (beta = 0 over
 * NaN never reads), guard zones, holes of padded outputs, unchanged inputs; dx across several
 * gather tiles; determinism; non-finite grid points; and finite differences in double (the
 * sampler away from kinks, the grid generator exactly: it is linear).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_test.h"

#define OK(expr) FD_EXPECT_STATUS((expr), CUDNN_STATUS_SUCCESS)

static cudnnHandle_t handles[2];
static const cudnnDataType_t all_dt[4] = {CUDNN_DATA_DOUBLE, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF,
                                          CUDNN_DATA_BFLOAT16};

/* ---- tensors in a layout -------------------------------------------------------------------- */

enum { L_NCHW, L_NHWC, L_PADDED, L_COUNT };
static const char *const layout_name[L_COUNT] = {"nchw", "nhwc", "padded"};

typedef struct {
    cudnnDataType_t dt;
    int dim[4], stride[4];
    int64_t extent;
    fd_buf_t buf;
    cudnnTensorDescriptor_t desc;
} tens_t;

static void tens_make(tens_t *t, cudnnDataType_t dt, int n, int c, int h, int w, int layout)
{
    memset(t, 0, sizeof *t);
    t->dt = dt;
    t->dim[0] = n, t->dim[1] = c, t->dim[2] = h, t->dim[3] = w;
    if (layout == L_NHWC) {
        t->stride[1] = 1, t->stride[3] = c, t->stride[2] = w * c, t->stride[0] = h * w * c;
    } else if (layout == L_PADDED) {
        t->stride[3] = 1, t->stride[2] = w + 2, t->stride[1] = (h + 1) * (w + 2);
        t->stride[0] = (c + 1) * t->stride[1];
    } else {
        t->stride[3] = 1, t->stride[2] = w, t->stride[1] = h * w, t->stride[0] = c * h * w;
    }
    t->extent = 1;
    for (int i = 0; i < 4; i++)
        t->extent += (int64_t)(t->dim[i] - 1) * t->stride[i];
    t->buf = fd_buf_alloc((size_t)t->extent * fd_test_dtype_size(dt));
    OK(cudnnCreateTensorDescriptor(&t->desc));
    OK(cudnnSetTensorNdDescriptor(t->desc, dt, 4, t->dim, t->stride));
}

static void tens_free(tens_t *t)
{
    fd_buf_free(&t->buf);
    cudnnDestroyTensorDescriptor(t->desc);
}

static int64_t tens_off(const tens_t *t, int64_t i) /* canonical NCHW index -> offset */
{
    int64_t w = i % t->dim[3], h = i / t->dim[3] % t->dim[2];
    int64_t c = i / ((int64_t)t->dim[3] * t->dim[2]) % t->dim[1];
    int64_t n = i / ((int64_t)t->dim[3] * t->dim[2] * t->dim[1]);
    return n * t->stride[0] + c * t->stride[1] + h * t->stride[2] + w * t->stride[3];
}

static int64_t tens_count(const tens_t *t)
{
    return (int64_t)t->dim[0] * t->dim[1] * t->dim[2] * t->dim[3];
}

static void tens_put(tens_t *t, const double *v)
{
    for (int64_t i = 0; i < tens_count(t); i++)
        fd_test_store(t->dt, t->buf.data, tens_off(t, i), v[i]);
}

static void tens_get(const tens_t *t, double *v)
{
    for (int64_t i = 0; i < tens_count(t); i++)
        v[i] = fd_test_load(t->dt, t->buf.data, tens_off(t, i));
}

/* Bytes of the elements a tensor does not address ("holes"): a copy of the buffer followed by a
 * mask of the addressed elements; holes_ok compares the unaddressed ones and frees it. */
static unsigned char *holes_save(const tens_t *t)
{
    size_t es = fd_test_dtype_size(t->dt), size = (size_t)t->extent * es;
    unsigned char *saved = malloc(size + (size_t)t->extent);
    memcpy(saved, t->buf.data, size);
    memset(saved + size, 0, (size_t)t->extent);
    for (int64_t i = 0; i < tens_count(t); i++)
        saved[size + tens_off(t, i)] = 1;
    return saved;
}

static int holes_ok(const tens_t *t, unsigned char *saved)
{
    size_t es = fd_test_dtype_size(t->dt), size = (size_t)t->extent * es;
    const unsigned char *mask = saved + size, *now = t->buf.data;
    int ok = 1;
    for (int64_t e = 0; e < t->extent; e++)
        if (!mask[e] && memcmp(now + e * es, saved + e * es, es) != 0)
            ok = 0;
    free(saved);
    return ok;
}

/* A packed buffer (theta, grid, dgrid) of n elements. */
static fd_buf_t packed(cudnnDataType_t dt, int64_t n, const double *v)
{
    fd_buf_t b = fd_buf_alloc((size_t)n * fd_test_dtype_size(dt));
    if (v)
        for (int64_t i = 0; i < n; i++)
            fd_test_store(dt, b.data, i, v[i]);
    return b;
}

static void packed_get(cudnnDataType_t dt, const fd_buf_t *b, int64_t n, double *v)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = fd_test_load(dt, b->data, i);
}

static cudnnSpatialTransformerDescriptor_t st_make(cudnnDataType_t dt, int n, int c, int h, int w)
{
    cudnnSpatialTransformerDescriptor_t st;
    OK(cudnnCreateSpatialTransformerDescriptor(&st));
    int dims[4] = {n, c, h, w};
    OK(cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, dt, 4, dims));
    return st;
}

static double *dalloc(int64_t n)
{
    return calloc((size_t)n, sizeof(double));
}

/* ---- oracle ---------------------------------------------------------------------------------- */

static double tcoord(int i, int size)
{
    return size > 1 ? -1.0 + 2.0 * i / (size - 1) : 0.0;
}

static void oracle_grid(const double *theta, int n, int h, int w, double *grid)
{
    for (int b = 0; b < n; b++)
        for (int i = 0; i < h; i++)
            for (int j = 0; j < w; j++) {
                const double *th = theta + 6 * b;
                double src[3] = {tcoord(j, w), tcoord(i, h), 1.0};
                for (int r = 0; r < 2; r++) {
                    double s = 0;
                    for (int k = 0; k < 3; k++)
                        s += th[3 * r + k] * src[k];
                    grid[(((int64_t)b * h + i) * w + j) * 2 + r] = s;
                }
            }
}

/* dtheta = sum over pixels of dgrid (outer) (x_t, y_t, 1); abs sums for the tolerance. */
static void oracle_grid_bwd(const double *dgrid, int n, int h, int w, double *dtheta, double *abs)
{
    for (int b = 0; b < n; b++)
        for (int r = 0; r < 2; r++)
            for (int k = 0; k < 3; k++) {
                double s = 0, sa = 0;
                for (int i = 0; i < h; i++)
                    for (int j = 0; j < w; j++) {
                        double src[3] = {tcoord(j, w), tcoord(i, h), 1.0};
                        double term = dgrid[(((int64_t)b * h + i) * w + j) * 2 + r] * src[k];
                        s += term, sa += fabs(term);
                    }
                dtheta[6 * b + 3 * r + k] = s;
                abs[6 * b + 3 * r + k] = sa;
            }
}

static double hat(double d)
{
    double v = 1.0 - fabs(d);
    return v > 0 ? v : 0.0;
}

static double hat_right_derivative(double d)
{
    if (d >= 0 && d < 1)
        return -1.0;
    if (d >= -1 && d < 0)
        return 1.0;
    return 0.0;
}

typedef struct {
    int n, c, hi, wi, ho, wo;
} shape_t;

/* Source coordinate of grid point g (pixel units), the library's own expression. */
static void source(const shape_t *s, const double *grid, int64_t g, double *ix, double *iy)
{
    *ix = (grid[2 * g] + 1.0) * (double)(s->wi - 1) * 0.5;
    *iy = (grid[2 * g + 1] + 1.0) * (double)(s->hi - 1) * 0.5;
}

/* y = sample(x, grid); yabs = sum of |terms| */
static void oracle_sample(const shape_t *s, const double *x, const double *grid, double *y,
                          double *yabs)
{
    for (int b = 0; b < s->n; b++)
        for (int i = 0; i < s->ho; i++)
            for (int j = 0; j < s->wo; j++) {
                int64_t g = ((int64_t)b * s->ho + i) * s->wo + j;
                double ix, iy;
                source(s, grid, g, &ix, &iy);
                for (int c = 0; c < s->c; c++) {
                    double acc = 0, aa = 0;
                    for (int yy = 0; yy < s->hi; yy++)
                        for (int xx = 0; xx < s->wi; xx++) {
                            if (!(fabs(ix - xx) <= 1 && fabs(iy - yy) <= 1))
                                continue;
                            /* each weight is exact only to ~u absolutely (1 - (1 - f) loses
                             * the low bits of a small f): the bound counts |v|, not |w v| */
                            double wgt = hat(ix - xx) * hat(iy - yy);
                            double v = x[(((int64_t)b * s->c + c) * s->hi + yy) * s->wi + xx];
                            acc += wgt * v, aa += fabs(v);
                        }
                    int64_t o = (((int64_t)b * s->c + c) * s->ho + i) * s->wo + j;
                    y[o] = acc, yabs[o] = aa;
                }
            }
}

/* dx (scattered) and dgrid from dy; abs sums of the terms. */
static void oracle_sample_bwd(const shape_t *s, const double *x, const double *grid,
                              const double *dy, double *dx, double *dxabs, double *dgrid,
                              double *dgabs)
{
    int64_t nx = (int64_t)s->n * s->c * s->hi * s->wi;
    for (int64_t i = 0; i < nx; i++)
        dx[i] = 0, dxabs[i] = 0;
    for (int b = 0; b < s->n; b++)
        for (int i = 0; i < s->ho; i++)
            for (int j = 0; j < s->wo; j++) {
                int64_t g = ((int64_t)b * s->ho + i) * s->wo + j;
                double ix, iy, gx = 0, gy = 0, ax = 0, ay = 0;
                source(s, grid, g, &ix, &iy);
                for (int c = 0; c < s->c; c++) {
                    double d = dy[(((int64_t)b * s->c + c) * s->ho + i) * s->wo + j];
                    for (int yy = 0; yy < s->hi; yy++)
                        for (int xx = 0; xx < s->wi; xx++) {
                            if (!(fabs(ix - xx) <= 1 && fabs(iy - yy) <= 1))
                                continue;
                            int64_t xi = (((int64_t)b * s->c + c) * s->hi + yy) * s->wi + xx;
                            double wgt = hat(ix - xx) * hat(iy - yy);
                            dx[xi] += wgt * d, dxabs[xi] += fabs(d); /* |d|: see oracle_sample */
                            double tx = d * x[xi] * hat_right_derivative(ix - xx) * hat(iy - yy);
                            double ty = d * x[xi] * hat(ix - xx) * hat_right_derivative(iy - yy);
                            gx += tx, ax += fabs(d * x[xi]);
                            gy += ty, ay += fabs(d * x[xi]);
                        }
                }
                double sx = (s->wi - 1) * 0.5, sy = (s->hi - 1) * 0.5;
                dgrid[2 * g] = gx * sx, dgabs[2 * g] = ax * sx;
                dgrid[2 * g + 1] = gy * sy, dgabs[2 * g + 1] = ay * sy;
            }
}

/* ---- comparison ------------------------------------------------------------------------------ */

/* exact: got == want rounded to dt; else |got - want| <= tolerance(k, abs). */
static int close_enough(cudnnDataType_t dt, int exact, double got, double want, int64_t k,
                        double abs)
{
    if (exact)
        return got == fd_test_round(dt, want) || (isnan(got) && isnan(want));
    return fabs(got - want) <= fd_tolerance(dt, CUDNN_DATA_DOUBLE, k, abs, want);
}

static int compare(const char *what, const char *ctx, cudnnDataType_t dt, int exact,
                   const double *got, const double *want, const double *abs, int64_t n, int64_t k)
{
    int bad = 0;
    for (int64_t i = 0; i < n; i++)
        if (!close_enough(dt, exact, got[i], want[i], k, abs[i])) {
            if (bad++ < 3 && fd_test_should_print())
                printf("  %s %s [%lld]: got %.17g want %.17g\n", ctx, what, (long long)i, got[i],
                       want[i]);
        }
    FD_EXPECT(bad == 0, "%s %s: %d of %lld elements differ", ctx, what, bad, (long long)n);
    return bad == 0;
}

static double blend(double alpha, double r, double beta, double old)
{
    return beta != 0 ? alpha * r + beta * old : alpha * r;
}

/* ---- hand cases ------------------------------------------------------------------------------ */

/* x = [[1, 2], [3, 4]] sampled at six grid points of a 1 x 6 output. */
static const double h_x[4] = {1, 2, 3, 4};
static const double h_grid[12] = {0, 0, -1, -1, 1, 1, 0.5, -1, 2, 0, -5, 0};
/* (0,0): centre 2.5; (-1,-1): x00; (1,1): x11; (0.5,-1): ix .75 iy 0 -> 1.75; (2,0): ix 1.5,
 * iy .5 -> half the corners outside: .25*2 + .25*4 = 1.5; (-5,0): ix -2 -> 0 */
static const double h_y[6] = {2.5, 1, 4, 1.75, 1.5, 0};
/* dy = 1 everywhere: dx = sum of the weights landing on each pixel */
static const double h_dx[4] = {1.5, 1.25, 0.25, 1.5};
/* d/d(gx, gy) = (W - 1)/2 * d/d(ix, iy), right derivatives at integer coordinates */
static const double h_dgrid[12] = {0.5, 1, 0.5, 1, -2, -2, 0.5, 1, -1.5, 0.5, 0, 0};

/* grid generator: N = 1, H = 2, W = 3, theta = [[2, .5, .25], [-1, 3, .5]];
 * x_t = -1, 0, 1; y_t = -1, 1 */
static const double g_theta[6] = {2, 0.5, 0.25, -1, 3, 0.5};
static const double g_grid[12] = {-2.25, -1.5, -0.25, -2.5, 1.75, -3.5,
                                  -1.25, 4.5,  0.75,  3.5,  2.75, 2.5};
static const double g_dgrid[12] = {1, 0, 2, 1, 0, 3, -1, 1, 1, 0, 2, -2};
/* dtheta[r] = sum dgrid[.., r] * (x_t, y_t, 1): r = 0: x-part 1*-1 + 2*0 + 0*1 + -1*-1 + 1*0
 * + 2*1 = 2, y-part -(1 + 2 + 0) + (-1 + 1 + 2) = -1, sum 5; r = 1: x-part 0*-1 + 1*0 + 3*1
 * + 1*-1 + 0*0 + -2*1 = 0, y-part -(0 + 1 + 3) + (1 + 0 - 2) = -5, sum 3 */
static const double g_dtheta[6] = {2, -1, 5, 0, -5, 3};

static void test_hand(void)
{
    for (int d = 0; d < 4; d++) {
        cudnnDataType_t dt = all_dt[d];
        const char *dn = fd_test_dtype_short(dt);
        for (int hi = 0; hi < 2; hi++) {
            cudnnHandle_t h = handles[hi];
            char ctx[64];
            snprintf(ctx, sizeof ctx, "hand %s %s", dn, hi ? "cpu" : "ref");
            /* sampler */
            cudnnSpatialTransformerDescriptor_t st = st_make(dt, 1, 1, 1, 6);
            tens_t x, y, dx, dy;
            tens_make(&x, dt, 1, 1, 2, 2, L_NCHW);
            tens_make(&dx, dt, 1, 1, 2, 2, L_NCHW);
            tens_make(&y, dt, 1, 1, 1, 6, L_NCHW);
            tens_make(&dy, dt, 1, 1, 1, 6, L_NCHW);
            tens_put(&x, h_x);
            double ones[6] = {1, 1, 1, 1, 1, 1}, got[12];
            tens_put(&dy, ones);
            fd_buf_t grid = packed(dt, 12, h_grid), dgrid = packed(dt, 12, NULL);
            fd_buf_poison(&y.buf), fd_buf_poison(&dx.buf), fd_buf_poison(&dgrid);
            double one = 1, zero = 0;
            float onef = 1, zerof = 0;
            const void *a1 = dt == CUDNN_DATA_DOUBLE ? (const void *)&one : (const void *)&onef;
            const void *b0 = dt == CUDNN_DATA_DOUBLE ? (const void *)&zero : (const void *)&zerof;
            OK(cudnnSpatialTfSamplerForward(h, st, a1, x.desc, x.buf.data, grid.data, b0, y.desc,
                                            y.buf.data));
            tens_get(&y, got);
            double zabs[12] = {0};
            compare("y", ctx, dt, 1, got, h_y, zabs, 6, 1);
            OK(cudnnSpatialTfSamplerBackward(h, st, a1, x.desc, x.buf.data, b0, dx.desc,
                                             dx.buf.data, a1, dy.desc, dy.buf.data, grid.data, b0,
                                             dgrid.data));
            tens_get(&dx, got);
            compare("dx", ctx, dt, 1, got, h_dx, zabs, 4, 1);
            packed_get(dt, &dgrid, 12, got);
            compare("dgrid", ctx, dt, 1, got, h_dgrid, zabs, 12, 1);
            FD_EXPECT(fd_buf_guards_ok(&y.buf) && fd_buf_guards_ok(&dx.buf) &&
                          fd_buf_guards_ok(&dgrid),
                      "%s: guards", ctx);
            tens_free(&x), tens_free(&y), tens_free(&dx), tens_free(&dy);
            fd_buf_free(&grid), fd_buf_free(&dgrid);
            cudnnDestroySpatialTransformerDescriptor(st);

            /* grid generator */
            st = st_make(dt, 1, 7, 2, 3);
            fd_buf_t theta = packed(dt, 6, g_theta), g = packed(dt, 12, NULL);
            fd_buf_t dg = packed(dt, 12, g_dgrid), dth = packed(dt, 6, NULL);
            fd_buf_poison(&g), fd_buf_poison(&dth);
            OK(cudnnSpatialTfGridGeneratorForward(h, st, theta.data, g.data));
            packed_get(dt, &g, 12, got);
            compare("grid", ctx, dt, 1, got, g_grid, zabs, 12, 1);
            OK(cudnnSpatialTfGridGeneratorBackward(h, st, dg.data, dth.data));
            packed_get(dt, &dth, 6, got);
            compare("dtheta", ctx, dt, 1, got, g_dtheta, zabs, 6, 1);
            FD_EXPECT(fd_buf_guards_ok(&g) && fd_buf_guards_ok(&dth), "%s: grid guards", ctx);
            fd_buf_free(&theta), fd_buf_free(&g), fd_buf_free(&dg), fd_buf_free(&dth);
            cudnnDestroySpatialTransformerDescriptor(st);
        }
    }
    /* the oracle agrees with the hand numbers too */
    shape_t s = {1, 1, 2, 2, 1, 6};
    double y[6], ya[6], dx[4], dxa[4], dg[12], dga[12], ones[6] = {1, 1, 1, 1, 1, 1}, gr[12], th[6],
                                                        tha[6];
    oracle_sample(&s, h_x, h_grid, y, ya);
    oracle_sample_bwd(&s, h_x, h_grid, ones, dx, dxa, dg, dga);
    oracle_grid(g_theta, 1, 2, 3, gr);
    oracle_grid_bwd(g_dgrid, 1, 2, 3, th, tha);
    FD_EXPECT(!memcmp(y, h_y, sizeof y) && !memcmp(dx, h_dx, sizeof dx) &&
                  !memcmp(dg, h_dgrid, sizeof dg),
              "oracle sampler vs hand numbers");
    FD_EXPECT(!memcmp(gr, g_grid, sizeof gr) && !memcmp(th, g_dtheta, sizeof th),
              "oracle grid generator vs hand numbers");
}

/* ---- random sweep ---------------------------------------------------------------------------- */

typedef struct {
    double alpha, beta, alpha_g, beta_g;
} scales_t;

static const void *scale_ptr(cudnnDataType_t dt, double v, double *d, float *f)
{
    *d = v, *f = (float)v;
    return dt == CUDNN_DATA_DOUBLE ? (const void *)d : (const void *)f;
}

/* Results of one run, canonical, for the cross-layout / cross-backend bit comparison. */
typedef struct {
    double *y, *dx, *dgrid;
} results_t;

static const int exact_sizes[5] = {1, 2, 3, 5, 9}; /* (size - 1) / 2 dyadic */

static void sampler_case(uint64_t seed, int exact)
{
    fd_rng_t r;
    fd_rng_seed(&r, seed);
    cudnnDataType_t dt = all_dt[fd_rng_int(&r, 0, 3)];
    shape_t s;
    s.n = fd_rng_int(&r, 1, 2), s.c = fd_rng_int(&r, 1, 3);
    s.hi = exact ? exact_sizes[fd_rng_int(&r, 0, 4)] : fd_rng_int(&r, 1, 7);
    s.wi = exact ? exact_sizes[fd_rng_int(&r, 0, 4)] : fd_rng_int(&r, 1, 7);
    s.ho = fd_rng_int(&r, 1, 5), s.wo = fd_rng_int(&r, 1, 5);
    static const double alphas[3] = {1, 0.5, -2}, betas[3] = {0, 1, 0.25};
    scales_t sc = {alphas[fd_rng_int(&r, 0, 2)], betas[fd_rng_int(&r, 0, 2)],
                   alphas[fd_rng_int(&r, 0, 2)], betas[fd_rng_int(&r, 0, 2)]};
    char ctx[200];
    snprintf(ctx, sizeof ctx, "sampler %s %s n%dc%d %dx%d->%dx%d a%g b%g ag%g bg%g seed=0x%llx",
             exact ? "exact" : "real", fd_test_dtype_short(dt), s.n, s.c, s.hi, s.wi, s.ho, s.wo,
             sc.alpha, sc.beta, sc.alpha_g, sc.beta_g, (unsigned long long)seed);

    int64_t nx = (int64_t)s.n * s.c * s.hi * s.wi, ny = (int64_t)s.n * s.c * s.ho * s.wo;
    int64_t ng = (int64_t)s.n * s.ho * s.wo * 2;
    double *x = dalloc(nx), *grid = dalloc(ng);
    double *dy = dalloc(ny), *yold = dalloc(ny);
    double *dxold = dalloc(nx), *dgold = dalloc(ng);
    for (int64_t i = 0; i < nx; i++) {
        x[i] = fd_test_round(dt, exact ? fd_rng_int(&r, -4, 4) : 2 * fd_rng_uniform(&r) - 1);
        dxold[i] = fd_test_round(dt, exact ? fd_rng_int(&r, -3, 3) : 2 * fd_rng_uniform(&r) - 1);
    }
    for (int64_t i = 0; i < ny; i++) {
        dy[i] = fd_test_round(dt, exact ? fd_rng_int(&r, -4, 4) : 2 * fd_rng_uniform(&r) - 1);
        yold[i] = fd_test_round(dt, exact ? fd_rng_int(&r, -3, 3) : 2 * fd_rng_uniform(&r) - 1);
    }
    for (int64_t i = 0; i < ng; i++) {
        grid[i] = fd_test_round(dt, exact ? fd_rng_int(&r, -12, 12) / 8.0
                                          : 2.6 * fd_rng_uniform(&r) - 1.3);
        dgold[i] = fd_test_round(dt, exact ? fd_rng_int(&r, -3, 3) : 2 * fd_rng_uniform(&r) - 1);
    }
    /* oracle */
    double *yr = dalloc(ny), *ya = dalloc(ny);
    double *dxr = dalloc(nx), *dxa = dalloc(nx);
    double *dgr = dalloc(ng), *dga = dalloc(ng);
    oracle_sample(&s, x, grid, yr, ya);
    oracle_sample_bwd(&s, x, grid, dy, dxr, dxa, dgr, dga);
    for (int64_t i = 0; i < ny; i++) {
        ya[i] = fabs(sc.alpha) * ya[i] + (sc.beta != 0 ? fabs(sc.beta * yold[i]) : 0);
        yr[i] = blend(sc.alpha, yr[i], sc.beta, yold[i]);
    }
    for (int64_t i = 0; i < nx; i++) {
        dxa[i] = fabs(sc.alpha) * dxa[i] + (sc.beta != 0 ? fabs(sc.beta * dxold[i]) : 0);
        dxr[i] = blend(sc.alpha, dxr[i], sc.beta, dxold[i]);
    }
    for (int64_t i = 0; i < ng; i++) {
        dga[i] = fabs(sc.alpha_g) * dga[i] + (sc.beta_g != 0 ? fabs(sc.beta_g * dgold[i]) : 0);
        dgr[i] = blend(sc.alpha_g, dgr[i], sc.beta_g, dgold[i]);
    }
    int64_t k_dx = (int64_t)s.ho * s.wo + 1, k_dg = 4 * (int64_t)s.c * 2 + 1;

    results_t first = {dalloc(ny), dalloc(nx), dalloc(ng)};
    double *got_y = dalloc(ny), *got_dx = dalloc(nx);
    double *got_dg = dalloc(ng);
    cudnnSpatialTransformerDescriptor_t st = st_make(dt, s.n, s.c, s.ho, s.wo);
    int run = 0;
    for (int hi = 0; hi < 2; hi++)
        for (int lay = 0; lay < L_COUNT; lay++, run++) {
            char rctx[260];
            snprintf(rctx, sizeof rctx, "%s %s %s", ctx, hi ? "cpu" : "ref", layout_name[lay]);
            tens_t tx, ty, tdx, tdy;
            tens_make(&tx, dt, s.n, s.c, s.hi, s.wi, lay);
            tens_make(&tdx, dt, s.n, s.c, s.hi, s.wi, lay);
            tens_make(&ty, dt, s.n, s.c, s.ho, s.wo, lay);
            tens_make(&tdy, dt, s.n, s.c, s.ho, s.wo, lay);
            tens_put(&tx, x);
            tens_put(&tdy, dy);
            fd_buf_t bg = packed(dt, ng, grid), bdg = packed(dt, ng, NULL);
            fd_buf_poison(&ty.buf), fd_buf_poison(&tdx.buf), fd_buf_poison(&bdg);
            if (sc.beta != 0)
                tens_put(&ty, yold), tens_put(&tdx, dxold);
            if (sc.beta_g != 0)
                for (int64_t i = 0; i < ng; i++)
                    fd_test_store(dt, bdg.data, i, dgold[i]);
            uint64_t hx = fd_buf_hash(&tx.buf), hg = fd_buf_hash(&bg), hdy = fd_buf_hash(&tdy.buf);
            unsigned char *holes_y = holes_save(&ty), *holes_dx = holes_save(&tdx);
            double ad, bd, agd, bgd;
            float af, bf, agf, bgf;
            const void *pa = scale_ptr(dt, sc.alpha, &ad, &af),
                       *pb = scale_ptr(dt, sc.beta, &bd, &bf);
            const void *pag = scale_ptr(dt, sc.alpha_g, &agd, &agf);
            const void *pbg = scale_ptr(dt, sc.beta_g, &bgd, &bgf);
            OK(cudnnSpatialTfSamplerForward(handles[hi], st, pa, tx.desc, tx.buf.data, bg.data, pb,
                                            ty.desc, ty.buf.data));
            OK(cudnnSpatialTfSamplerBackward(handles[hi], st, pa, tx.desc, tx.buf.data, pb,
                                             tdx.desc, tdx.buf.data, pag, tdy.desc, tdy.buf.data,
                                             bg.data, pbg, bdg.data));
            tens_get(&ty, got_y);
            tens_get(&tdx, got_dx);
            packed_get(dt, &bdg, ng, got_dg);
            compare("y", rctx, dt, exact, got_y, yr, ya, ny, 5);
            compare("dx", rctx, dt, exact, got_dx, dxr, dxa, nx, k_dx);
            compare("dgrid", rctx, dt, exact, got_dg, dgr, dga, ng, k_dg);
            FD_EXPECT(fd_buf_guards_ok(&tx.buf) && fd_buf_guards_ok(&ty.buf) &&
                          fd_buf_guards_ok(&tdx.buf) && fd_buf_guards_ok(&tdy.buf) &&
                          fd_buf_guards_ok(&bg) && fd_buf_guards_ok(&bdg),
                      "%s: guard zones", rctx);
            FD_EXPECT(hx == fd_buf_hash(&tx.buf) && hg == fd_buf_hash(&bg) &&
                          hdy == fd_buf_hash(&tdy.buf),
                      "%s: an input changed", rctx);
            FD_EXPECT(holes_ok(&ty, holes_y) & holes_ok(&tdx, holes_dx), "%s: holes written", rctx);
            if (run == 0) {
                memcpy(first.y, got_y, sizeof(double) * ny);
                memcpy(first.dx, got_dx, sizeof(double) * nx);
                memcpy(first.dgrid, got_dg, sizeof(double) * ng);
            } else {
                FD_EXPECT(!memcmp(first.y, got_y, sizeof(double) * ny) &&
                              !memcmp(first.dx, got_dx, sizeof(double) * nx) &&
                              !memcmp(first.dgrid, got_dg, sizeof(double) * ng),
                          "%s: bits differ from the ref/nchw run", rctx);
            }
            tens_free(&tx), tens_free(&ty), tens_free(&tdx), tens_free(&tdy);
            fd_buf_free(&bg), fd_buf_free(&bdg);
        }
    cudnnDestroySpatialTransformerDescriptor(st);
    free(x), free(grid), free(dy), free(yold), free(dxold), free(dgold);
    free(yr), free(ya), free(dxr), free(dxa), free(dgr), free(dga);
    free(first.y), free(first.dx), free(first.dgrid), free(got_y), free(got_dx), free(got_dg);
}

static void grid_case(uint64_t seed, int exact)
{
    fd_rng_t r;
    fd_rng_seed(&r, seed);
    cudnnDataType_t dt = all_dt[fd_rng_int(&r, 0, 3)];
    int n = fd_rng_int(&r, 1, 3), c = fd_rng_int(&r, 1, 4);
    int h = exact ? exact_sizes[fd_rng_int(&r, 0, 4)] : fd_rng_int(&r, 1, 8);
    int w = exact ? exact_sizes[fd_rng_int(&r, 0, 4)] : fd_rng_int(&r, 1, 8);
    int64_t ng = (int64_t)n * h * w * 2;
    char ctx[160];
    snprintf(ctx, sizeof ctx, "grid %s %s n%d %dx%d seed=0x%llx", exact ? "exact" : "real",
             fd_test_dtype_short(dt), n, h, w, (unsigned long long)seed);
    double theta[18], dtheta_r[18], dtheta_a[18], *grid_r = dalloc(ng);
    double *dgrid = dalloc(ng), *got = dalloc(ng);
    for (int i = 0; i < 6 * n; i++)
        theta[i] =
            fd_test_round(dt, exact ? fd_rng_int(&r, -8, 8) / 4.0 : 4 * fd_rng_uniform(&r) - 2);
    for (int64_t i = 0; i < ng; i++)
        dgrid[i] = fd_test_round(dt, exact ? fd_rng_int(&r, -4, 4) : 2 * fd_rng_uniform(&r) - 1);
    oracle_grid(theta, n, h, w, grid_r);
    oracle_grid_bwd(dgrid, n, h, w, dtheta_r, dtheta_a);
    cudnnSpatialTransformerDescriptor_t st = st_make(dt, n, c, h, w);
    double first[18];
    for (int hi = 0; hi < 2; hi++) {
        fd_buf_t bt = packed(dt, 6 * n, theta), bg = packed(dt, ng, NULL);
        fd_buf_t bdg = packed(dt, ng, dgrid), bdt = packed(dt, 6 * n, NULL);
        fd_buf_poison(&bg), fd_buf_poison(&bdt);
        uint64_t ht = fd_buf_hash(&bt), hdg = fd_buf_hash(&bdg);
        OK(cudnnSpatialTfGridGeneratorForward(handles[hi], st, bt.data, bg.data));
        OK(cudnnSpatialTfGridGeneratorBackward(handles[hi], st, bdg.data, bdt.data));
        packed_get(dt, &bg, ng, got);
        for (int64_t i = 0; i < ng; i++) {
            /* abs sum of theta . (x_t, y_t, 1): bounded by 3 max|theta| */
            double a = 0;
            for (int k = 0; k < 3; k++)
                a += fabs(theta[6 * (i / (2 * h * w)) + 3 * (i % 2) + k]);
            int ok = close_enough(dt, exact, got[i], grid_r[i], 3, a);
            FD_EXPECT(ok, "%s %s: grid[%lld] got %.17g want %.17g", ctx, hi ? "cpu" : "ref",
                      (long long)i, got[i], grid_r[i]);
            if (!ok)
                break;
        }
        double gt[18];
        packed_get(dt, &bdt, 6 * n, gt);
        compare("dtheta", ctx, dt, exact, gt, dtheta_r, dtheta_a, 6 * n, (int64_t)h * w);
        if (hi == 0)
            memcpy(first, gt, sizeof(double) * 6 * n);
        else
            FD_EXPECT(!memcmp(first, gt, sizeof(double) * 6 * n), "%s: ref and cpu bits differ",
                      ctx);
        FD_EXPECT(fd_buf_guards_ok(&bt) && fd_buf_guards_ok(&bg) && fd_buf_guards_ok(&bdg) &&
                      fd_buf_guards_ok(&bdt),
                  "%s: guard zones", ctx);
        FD_EXPECT(ht == fd_buf_hash(&bt) && hdg == fd_buf_hash(&bdg), "%s: an input changed", ctx);
        fd_buf_free(&bt), fd_buf_free(&bg), fd_buf_free(&bdg), fd_buf_free(&bdt);
    }
    cudnnDestroySpatialTransformerDescriptor(st);
    free(grid_r), free(dgrid), free(got);
}

static void test_sweep(void)
{
    uint64_t master = fd_test_sweep_seed(0x5f7a11ed);
    uint64_t forced;
    if (fd_test_seed_forced(&forced)) {
        sampler_case(forced, 1), sampler_case(forced, 0), grid_case(forced, 1),
            grid_case(forced, 0);
        return;
    }
    int cases = (int)(200 * fd_test_scale());
    for (int i = 0; i < cases; i++) {
        sampler_case(fd_test_mix(master, 2 * i), i & 1);
        grid_case(fd_test_mix(master, 2 * i + 1), i & 1);
    }
}

/* ---- gather tiles, determinism, non-finite grid points --------------------------------------- */

static void test_large_and_determinism(void)
{
    /* 40 x 30 = 1200 input pixels: two dx tiles of the reference's gather */
    shape_t s = {1, 2, 40, 30, 9, 7};
    cudnnDataType_t dt = CUDNN_DATA_FLOAT;
    int64_t nx = (int64_t)s.n * s.c * s.hi * s.wi, ny = (int64_t)s.n * s.c * s.ho * s.wo;
    int64_t ng = (int64_t)s.n * s.ho * s.wo * 2;
    fd_rng_t r;
    fd_rng_seed(&r, 77);
    double *x = dalloc(nx), *dy = dalloc(ny), grid[2 * 63];
    for (int64_t i = 0; i < nx; i++)
        x[i] = fd_rng_int(&r, -4, 4);
    for (int64_t i = 0; i < ny; i++)
        dy[i] = fd_rng_int(&r, -4, 4);
    for (int64_t i = 0; i < ng; i++)
        grid[i] = fd_rng_int(&r, -9, 9) / 8.0; /* spread over the whole input, some outside */
    double *dxr = dalloc(nx), *dxa = dalloc(nx), dgr[126], dga[126];
    oracle_sample_bwd(&s, x, grid, dy, dxr, dxa, dgr, dga);
    cudnnSpatialTransformerDescriptor_t st = st_make(dt, s.n, s.c, s.ho, s.wo);
    tens_t tx, tdx, tdy;
    tens_make(&tx, dt, s.n, s.c, s.hi, s.wi, L_NHWC);
    tens_make(&tdx, dt, s.n, s.c, s.hi, s.wi, L_PADDED);
    tens_make(&tdy, dt, s.n, s.c, s.ho, s.wo, L_NCHW);
    tens_put(&tx, x), tens_put(&tdy, dy);
    fd_buf_t bg = packed(dt, ng, grid), bdg = packed(dt, ng, NULL);
    float one = 1, zero = 0;
    double *got = dalloc(nx), *again = dalloc(nx);
    uint64_t hash_dx = 0, hash_dg = 0;
    for (int rep = 0; rep < 3; rep++) {
        fd_buf_poison(&tdx.buf), fd_buf_poison(&bdg);
        OK(cudnnSpatialTfSamplerBackward(handles[rep % 2], st, &one, tx.desc, tx.buf.data, &zero,
                                         tdx.desc, tdx.buf.data, &one, tdy.desc, tdy.buf.data,
                                         bg.data, &zero, bdg.data));
        tens_get(&tdx, rep ? again : got);
        if (rep == 0) {
            compare("dx", "tiles 40x30 f32", dt, 1, got, dxr, dxa, nx, 64);
            double gg[126];
            packed_get(dt, &bdg, ng, gg);
            compare("dgrid", "tiles 40x30 f32", dt, 1, gg, dgr, dga, ng, 16);
            hash_dx = fd_buf_hash(&tdx.buf), hash_dg = fd_buf_hash(&bdg);
        } else {
            FD_EXPECT(hash_dx == fd_buf_hash(&tdx.buf) && hash_dg == fd_buf_hash(&bdg),
                      "determinism: re-run %d differs", rep);
        }
    }
    FD_EXPECT(fd_buf_guards_ok(&tdx.buf) && fd_buf_guards_ok(&bdg), "tiles: guard zones");
    tens_free(&tx), tens_free(&tdx), tens_free(&tdy);
    fd_buf_free(&bg), fd_buf_free(&bdg);
    cudnnDestroySpatialTransformerDescriptor(st);
    free(x), free(dy), free(dxr), free(dxa), free(got), free(again);
}

static void test_nonfinite_grid(void)
{
    /* a NaN or infinite coordinate reads every corner as outside: sample 0, no gradient */
    cudnnDataType_t dt = CUDNN_DATA_FLOAT;
    cudnnSpatialTransformerDescriptor_t st = st_make(dt, 1, 1, 1, 4);
    tens_t x, y, dx, dy;
    tens_make(&x, dt, 1, 1, 3, 3, L_NCHW), tens_make(&dx, dt, 1, 1, 3, 3, L_NCHW);
    tens_make(&y, dt, 1, 1, 1, 4, L_NCHW), tens_make(&dy, dt, 1, 1, 1, 4, L_NCHW);
    double xv[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, ones[4] = {1, 1, 1, 1};
    tens_put(&x, xv), tens_put(&dy, ones);
    double gv[8] = {NAN, 0, 0, INFINITY, -INFINITY, 0, 0, 0};
    fd_buf_t g = packed(dt, 8, gv), dg = packed(dt, 8, NULL);
    fd_buf_poison(&y.buf), fd_buf_poison(&dx.buf), fd_buf_poison(&dg);
    float one = 1, zero = 0;
    OK(cudnnSpatialTfSamplerForward(handles[0], st, &one, x.desc, x.buf.data, g.data, &zero, y.desc,
                                    y.buf.data));
    OK(cudnnSpatialTfSamplerBackward(handles[0], st, &one, x.desc, x.buf.data, &zero, dx.desc,
                                     dx.buf.data, &one, dy.desc, dy.buf.data, g.data, &zero,
                                     dg.data));
    double yv[4], dxv[9], dgv[8];
    tens_get(&y, yv), tens_get(&dx, dxv), packed_get(dt, &dg, 8, dgv);
    FD_EXPECT(yv[0] == 0 && yv[1] == 0 && yv[2] == 0 && yv[3] == 5,
              "non-finite grid: y %g %g %g %g", yv[0], yv[1], yv[2], yv[3]);
    int ok = 1;
    for (int i = 0; i < 9; i++)
        ok &= dxv[i] == (i == 4 ? 1 : 0);
    for (int i = 0; i < 6; i++)
        ok &= dgv[i] == 0;
    FD_EXPECT(ok, "non-finite grid: only the finite point (centre) gets gradients");
    tens_free(&x), tens_free(&y), tens_free(&dx), tens_free(&dy);
    fd_buf_free(&g), fd_buf_free(&dg);
    cudnnDestroySpatialTransformerDescriptor(st);
}

/* ---- finite differences in double ------------------------------------------------------------ */

/* f(x, grid) = <dy, sample(x, grid)> evaluated by the library (double). */
static double lib_objective(cudnnSpatialTransformerDescriptor_t st, tens_t *x, tens_t *y,
                            const double *xv, fd_buf_t *g, const double *dy)
{
    double one = 1, zero = 0, v[512];
    tens_put(x, xv);
    OK(cudnnSpatialTfSamplerForward(handles[0], st, &one, x->desc, x->buf.data, g->data, &zero,
                                    y->desc, y->buf.data));
    tens_get(y, v);
    double f = 0;
    for (int64_t i = 0; i < tens_count(y); i++)
        f += dy[i] * v[i];
    return f;
}

static void test_finite_differences(void)
{
    cudnnDataType_t dt = CUDNN_DATA_DOUBLE;
    shape_t s = {2, 2, 4, 5, 3, 3};
    fd_rng_t r;
    fd_rng_seed(&r, 99);
    int64_t nx = (int64_t)s.n * s.c * s.hi * s.wi, ny = (int64_t)s.n * s.c * s.ho * s.wo;
    int64_t ng = (int64_t)s.n * s.ho * s.wo * 2;
    double x[160], dy[36], grid[36];
    for (int64_t i = 0; i < nx; i++)
        x[i] = 2 * fd_rng_uniform(&r) - 1;
    for (int64_t i = 0; i < ny; i++)
        dy[i] = 2 * fd_rng_uniform(&r) - 1;
    /* grid points whose pixel coordinates keep fractional parts in [0.2, 0.8]: no kink within h;
     * a few land half outside the input (pixel -0.5 or W - 0.5) */
    for (int64_t i = 0; i < ng; i++) {
        int size = (i % 2) ? s.hi : s.wi;
        double pix = fd_rng_int(&r, -1, size - 1) + 0.2 + 0.6 * fd_rng_uniform(&r);
        grid[i] = pix * 2.0 / (size - 1) - 1.0;
    }
    cudnnSpatialTransformerDescriptor_t st = st_make(dt, s.n, s.c, s.ho, s.wo);
    tens_t tx, ty, tdx, tdy;
    tens_make(&tx, dt, s.n, s.c, s.hi, s.wi, L_NHWC);
    tens_make(&tdx, dt, s.n, s.c, s.hi, s.wi, L_NCHW);
    tens_make(&ty, dt, s.n, s.c, s.ho, s.wo, L_PADDED);
    tens_make(&tdy, dt, s.n, s.c, s.ho, s.wo, L_NCHW);
    tens_put(&tx, x), tens_put(&tdy, dy);
    fd_buf_t bg = packed(dt, ng, grid), bdg = packed(dt, ng, NULL);
    double one = 1, zero = 0;
    OK(cudnnSpatialTfSamplerBackward(handles[0], st, &one, tx.desc, tx.buf.data, &zero, tdx.desc,
                                     tdx.buf.data, &one, tdy.desc, tdy.buf.data, bg.data, &zero,
                                     bdg.data));
    double dx[160], dg[36];
    tens_get(&tdx, dx), packed_get(dt, &bdg, ng, dg);
    /* dx: f is linear in x, so a central difference with step 1 is exact up to rounding */
    int bad = 0;
    for (int64_t i = 0; i < nx; i++) {
        double xp[160];
        memcpy(xp, x, sizeof xp);
        xp[i] = x[i] + 1;
        double fp = lib_objective(st, &tx, &ty, xp, &bg, dy);
        xp[i] = x[i] - 1;
        double fm = lib_objective(st, &tx, &ty, xp, &bg, dy);
        double num = (fp - fm) / 2;
        if (fabs(num - dx[i]) > 1e-12)
            bad++,
                printf("  fd dx[%lld]: numeric %.15g analytic %.15g\n", (long long)i, num, dx[i]);
    }
    FD_EXPECT(bad == 0, "finite differences: %d dx elements differ", bad);
    bad = 0;
    const double h = 1e-6;
    for (int64_t i = 0; i < ng; i++) {
        double save = grid[i];
        fd_test_store(dt, bg.data, i, save + h);
        double fp = lib_objective(st, &tx, &ty, x, &bg, dy);
        fd_test_store(dt, bg.data, i, save - h);
        double fm = lib_objective(st, &tx, &ty, x, &bg, dy);
        fd_test_store(dt, bg.data, i, save);
        double num = (fp - fm) / (2 * h);
        if (fabs(num - dg[i]) > 1e-7 * (1 + fabs(dg[i])))
            bad++, printf("  fd dgrid[%lld]: numeric %.15g analytic %.15g\n", (long long)i, num,
                          dg[i]);
    }
    FD_EXPECT(bad == 0, "finite differences: %d dgrid elements differ", bad);

    /* grid generator: <dgrid, grid(theta)> is linear in theta, step 1 exact */
    cudnnSpatialTransformerDescriptor_t gst = st_make(dt, 2, 1, 4, 3);
    double theta[12], dgrid[48];
    for (int i = 0; i < 12; i++)
        theta[i] = 2 * fd_rng_uniform(&r) - 1;
    for (int i = 0; i < 48; i++)
        dgrid[i] = 2 * fd_rng_uniform(&r) - 1;
    fd_buf_t bt = packed(dt, 12, theta), bgr = packed(dt, 48, NULL), bdgr = packed(dt, 48, dgrid);
    fd_buf_t bdt = packed(dt, 12, NULL);
    OK(cudnnSpatialTfGridGeneratorBackward(handles[0], gst, bdgr.data, bdt.data));
    double dth[12];
    packed_get(dt, &bdt, 12, dth);
    bad = 0;
    for (int k = 0; k < 12; k++) {
        double f[2];
        for (int sgn = 0; sgn < 2; sgn++) {
            fd_test_store(dt, bt.data, k, theta[k] + (sgn ? -1 : 1));
            OK(cudnnSpatialTfGridGeneratorForward(handles[0], gst, bt.data, bgr.data));
            double gv[48];
            packed_get(dt, &bgr, 48, gv);
            f[sgn] = 0;
            for (int i = 0; i < 48; i++)
                f[sgn] += dgrid[i] * gv[i];
        }
        fd_test_store(dt, bt.data, k, theta[k]);
        double num = (f[0] - f[1]) / 2;
        if (fabs(num - dth[k]) > 1e-12)
            bad++, printf("  fd dtheta[%d]: numeric %.15g analytic %.15g\n", k, num, dth[k]);
    }
    FD_EXPECT(bad == 0, "finite differences: %d dtheta elements differ", bad);
    fd_buf_free(&bt), fd_buf_free(&bgr), fd_buf_free(&bdgr), fd_buf_free(&bdt);
    cudnnDestroySpatialTransformerDescriptor(gst);
    tens_free(&tx), tens_free(&ty), tens_free(&tdx), tens_free(&tdy);
    fd_buf_free(&bg), fd_buf_free(&bdg);
    cudnnDestroySpatialTransformerDescriptor(st);
}

int main(void)
{
    OK(freednnCreateWithBackend(&handles[0], FREEDNN_BACKEND_REF));
    OK(freednnCreateWithBackend(&handles[1], FREEDNN_BACKEND_CPU));
    test_hand();
    test_sweep();
    test_large_and_determinism();
    test_nonfinite_grid();
    test_finite_differences();
    cudnnDestroy(handles[0]);
    cudnnDestroy(handles[1]);
    return fd_test_finish();
}
