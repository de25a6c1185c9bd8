/* SPDX-License-Identifier: MIT */
/*
 * test_cpu_memops2.c - the cpu backend's pooling rows (src/cpu/pooling_cpu.c; batch norm:
 * test_cpu_bn_fast.c) against the ref rows, through the public API with a ref handle and a cpu
 * handle on the same inputs (the helpers: memops_case.h).
 *
 * Every case runs the call on ref, on cpu with one OpenMP thread and on cpu with two, from the
 * same inputs and the same initial outputs (NaN-poisoned when beta = 0), and compares:
 * pooling (every mode, both NaN options, ties, NaN / inf inputs, crop and ceil-mode windows,
 * 1-d, 2-d, 3-d) must equal ref byte for byte (NaN payloads aside).
 * dtypes FLOAT, DOUBLE, HALF, BFLOAT16; layouts NCHW, NHWC, padded strides; alpha / beta (1, 0)
 * and (0.5, 0.25); odd sizes and sizes above the threading threshold.
 * Exception: FLOAT averages on the AVX-512 paths sum in float (product decisions 2026-11-30 and
 * 2026-12-01, docs/testing.md's cpu pooling row): there only the forward pass on integer and
 * tie fills (exact float sums) must equal ref's bytes; real fills and the backward pass (dy /
 * count is inexact) are held to the f32 accumulation bound of that row (pool_bound.h) and to
 * one thread == two threads.
 */
#define _GNU_SOURCE
#include "memops_case.h"
#include "pool_bound.h"

/* ---- pooling ----------------------------------------------------------------------------- */

/* Fills with few distinct values (ties) and, when specials, NaN / inf. */
static void fill_ties(cudnnDataType_t dt, void *p, size_t n, int specials)
{
    for (size_t i = 0; i < n; i++) {
        double v = floor(urand() * 4) - 2;
        if (specials && urand() < 0.03)
            v = urand() < 0.5 ? NAN : (urand() < 0.5 ? INFINITY : -INFINITY);
        put(dt, p, i, v);
    }
}

typedef struct {
    int nsp, win[3], pad[3], str[3];
    int ceil; /* 1: y has the ceil-mode size */
} pgeom_t;

/* 1 when a FLOAT case may sum in float and is not integer-exact there (the AVX-512 paths, and
 * the AVX2 NHWC box rows, also under FREEDNN_CPU_ISA=avx2: only generic keeps the ref's bits). */
static int float_inexact(cudnnDataType_t dt, cudnnPoolingMode_t mode, int bwd, int fillkind)
{
    const char *isa = getenv("FREEDNN_CPU_ISA");
    return dt == CUDNN_DATA_FLOAT &&
           (mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ||
            mode == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING) &&
           (!isa || strcmp(isa, "generic") != 0) && (bwd || fillkind == 2);
}

static void test_pool(int nb, const int *xdim, layout_t l, cudnnDataType_t dt, const pgeom_t *g,
                      cudnnPoolingMode_t mode, cudnnNanPropagation_t nan, double alpha,
                      double beta, int fillkind, const char *tag)
{
    char what[256];
    int ydim[5];
    ydim[0] = xdim[0], ydim[1] = xdim[1];
    for (int d = 0; d < g->nsp; d++) {
        int span = xdim[2 + d] + 2 * g->pad[d] - g->win[d];
        ydim[2 + d] = (g->ceil ? (span + g->str[d] - 1) / g->str[d] : span / g->str[d]) + 1;
    }
    shape_t xs = make_shape(nb, xdim, l), ys = make_shape(nb, ydim, l);
    cudnnPoolingDescriptor_t pd;
    CHECK(cudnnCreatePoolingDescriptor(&pd));
    CHECK(cudnnSetPoolingNdDescriptor(pd, mode, nan, g->nsp, g->win, g->pad, g->str));
    cudnnTensorDescriptor_t xd = desc_of(&xs, dt), yd = desc_of(&ys, dt);
    size_t xb = xs.extent * dt_size(dt), yb = ys.extent * dt_size(dt);
    void *x = malloc(xb), *dy = malloc(yb), *y = malloc(yb), *xc = malloc(xb);
    if (fillkind == 0)
        fill_ties(dt, x, xs.extent, 1);
    else
        fill(dt, x, xs.extent, fillkind == 1, 0);
    fill(dt, dy, ys.extent, fillkind != 2, 0);
    memcpy(xc, x, xb);
    unsigned char a8[8], b8[8];
    scal(dt, alpha, a8), scal(dt, beta, b8);
    cur_dt = dt;
    outbuf_t o;
    out_init(&o, dt, ys.extent, beta, 1);
    for (int r = 0; r < 3; r++)
        CHECK(cudnnPoolingForward(run_handle(r), pd, a8, xd, x, b8, yd, o.out[r]));
    memcpy(y, o.out[0], yb);
    snprintf(what, sizeof what, "pool fwd mode %d nan %d %s %s %dd win %d pad %d str %d%s a %g b %g fill %d",
             (int)mode, (int)nan, dt_name(dt), tag, g->nsp, g->win[0], g->pad[0], g->str[0],
             g->ceil ? " ceil" : "", alpha, beta, fillkind);
    const int k = pool_bound_k(g->nsp, g->win);
    if (float_inexact(dt, mode, 0, fillkind)) {
        float *mag = magnitudes(pd, xd, yd, x, y, dy, xs.extent, ys.extent, 0);
        box_check(&o, mag, k, alpha, beta, what);
        free(mag);
    } else
        out_check(&o, what);
    outbuf_t gx;
    out_init(&gx, dt, xs.extent, beta, 1);
    for (int r = 0; r < 3; r++)
        CHECK(cudnnPoolingBackward(run_handle(r), pd, a8, yd, y, yd, dy, xd, x, b8, xd, gx.out[r]));
    what[5] = 'b', what[6] = 'w', what[7] = 'd';
    if (float_inexact(dt, mode, 1, fillkind)) {
        float *mag = magnitudes(pd, xd, yd, x, y, dy, xs.extent, ys.extent, 1);
        box_check(&gx, mag, k, alpha, beta, what);
        free(mag);
    } else
        out_check(&gx, what);
    if (memcmp(x, xc, xb) != 0) {
        failures++;
        fprintf(stderr, "FAIL %s: x changed\n", what);
    }
    free(x), free(dy), free(y), free(xc);
    cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyPoolingDescriptor(pd);
}

static void pooling_suite(void)
{
    const pgeom_t geoms[] = {
        {2, {3, 3}, {1, 1}, {2, 2}, 0},  {2, {2, 2}, {0, 0}, {2, 2}, 0},
        {2, {3, 3}, {1, 1}, {1, 1}, 0},  {2, {2, 3}, {0, 1}, {2, 1}, 1},
        {2, {3, 2}, {-1, 0}, {1, 2}, 0}, {2, {5, 4}, {2, 1}, {3, 2}, 1},
    };
    const int x4[4] = {2, 5, 9, 11}, x4w[4] = {1, 3, 6, 37}, x5[5] = {2, 3, 4, 5, 6},
              x3[3] = {2, 4, 19};
    const pgeom_t g3 = {3, {2, 3, 2}, {0, 1, 1}, {2, 1, 2}, 0}, g1 = {1, {3}, {1}, {2}, 0};
    const double ab[2][2] = {{1.0, 0.0}, {0.5, 0.25}};
    for (int l = 0; l < L_COUNT; l++)
        for (int di = 0; di < 4; di++) {
            cudnnDataType_t dt = dtypes[di];
            for (int m = 0; m < 4; m++)
                for (int nan = 0; nan < 2; nan++) {
                    if (m >= 2 && nan == 1)
                        continue; /* the NaN option matters to the max modes only */
                    for (size_t gi = 0; gi < sizeof geoms / sizeof *geoms; gi++)
                        for (int k = 0; k < 2; k++) {
                            test_pool(4, x4, (layout_t)l, dt, &geoms[gi], (cudnnPoolingMode_t)m,
                                      (cudnnNanPropagation_t)nan, ab[k][0], ab[k][1], m < 2 ? 0 : 2,
                                      layout_name[l]);
                            test_pool(4, x4w, (layout_t)l, dt, &geoms[gi], (cudnnPoolingMode_t)m,
                                      (cudnnNanPropagation_t)nan, ab[k][0], ab[k][1], 1,
                                      layout_name[l]);
                        }
                    test_pool(5, x5, (layout_t)l, dt, &g3, (cudnnPoolingMode_t)m,
                              (cudnnNanPropagation_t)nan, 0.5, 0.25, m < 2 ? 0 : 2, layout_name[l]);
                    test_pool(3, x3, (layout_t)l, dt, &g1, (cudnnPoolingMode_t)m,
                              (cudnnNanPropagation_t)nan, 1, 0, m < 2 ? 0 : 2, layout_name[l]);
                }
        }
    /* above the threading threshold */
    const int big[4] = {2, 32, 64, 66}, bigw[4] = {1, 4, 130, 600};
    for (int l = 0; l < 2; l++)
        for (int m = 0; m < 4; m++) {
            test_pool(4, big, (layout_t)l, CUDNN_DATA_FLOAT, &geoms[0], (cudnnPoolingMode_t)m,
                      CUDNN_PROPAGATE_NAN, 0.5, 0.25, m < 2 ? 0 : 2, layout_name[l]);
            test_pool(4, bigw, (layout_t)l, CUDNN_DATA_FLOAT, &geoms[1], (cudnnPoolingMode_t)m,
                      CUDNN_NOT_PROPAGATE_NAN, 1, 0, m < 2 ? 0 : 2, layout_name[l]);
        }
}

int main(void)
{
    set_threads = (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    if (set_threads == NULL) {
        fprintf(stderr, "omp_set_num_threads not found\n");
        return 1;
    }
    CHECK(freednnCreateWithBackend(&h_ref, FREEDNN_BACKEND_REF));
    CHECK(freednnCreateWithBackend(&h_cpu, FREEDNN_BACKEND_CPU));
    pooling_suite();
    printf("test_cpu_memops2: %d cases, %d failures; float sums: largest err / tolerance %.3g\n",
           cases, failures, box_worst);
    cudnnDestroy(h_ref);
    cudnnDestroy(h_cpu);
    return failures ? 1 : 0;
}
