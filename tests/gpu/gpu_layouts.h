/* SPDX-License-Identifier: MIT */
/*
 * gpu_layouts.h - what the op-family GPU tests (test_gpu_pool_act.c, test_gpu_softmax_lrn.c)
 * share on top of gpu_mirror.h: the four storage types, the three layouts (NCHW, NHWC and an
 * "odd" permuted, padded one) with their strides and descriptors, alpha/beta pointers of the
 * right type, and seeded integer / real / special-value (NaN, -inf) fills. Included by one
 * translation unit per program.
 */
#ifndef FD_TESTS_GPU_LAYOUTS_H_
#define FD_TESTS_GPU_LAYOUTS_H_

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_mirror.h"

#define MAXD 8

static const cudnnDataType_t dtypes[4] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                          CUDNN_DATA_BFLOAT16};

/* ---- layouts ------------------------------------------------------------------------------ */

typedef enum { L_NCHW, L_NHWC, L_ODD } layout_t;
static const char *const layout_names[3] = {"nchw", "nhwc", "odd"};

/* Strides of dims[nd] in a layout; returns the element extent (max offset + 1). L_ODD: C
 * outermost, then N, then the spatial dims, each extent padded (innermost by 3, others by 1). */
static int64_t layout_strides(layout_t l, int nd, const int *dims, int *strides)
{
    int order[MAXD], k = 0;
    if (l == L_NCHW) {
        for (int d = 0; d < nd; d++)
            order[k++] = d;
    } else if (l == L_NHWC) {
        order[k++] = 0;
        for (int d = 2; d < nd; d++)
            order[k++] = d;
        order[k++] = 1;
    } else {
        order[k++] = 1;
        order[k++] = 0;
        for (int d = 2; d < nd; d++)
            order[k++] = d;
    }
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; i--) {
        const int d = order[i];
        strides[d] = (int)s;
        s *= dims[d] + (l == L_ODD ? (i == nd - 1 ? 3 : 1) : 0);
    }
    int64_t ext = 1;
    for (int d = 0; d < nd; d++)
        ext += (int64_t)(dims[d] - 1) * strides[d];
    return ext;
}

typedef struct {
    int nd, dim[MAXD], stride[MAXD];
    int64_t ext;
} tshape_t;

static tshape_t shape_of(layout_t l, int nd, const int *dims)
{
    tshape_t t = {0};
    t.nd = nd;
    memcpy(t.dim, dims, sizeof(int) * (size_t)nd);
    t.ext = layout_strides(l, nd, dims, t.stride);
    return t;
}

static cudnnTensorDescriptor_t tdesc(cudnnDataType_t dt, const tshape_t *t)
{
    cudnnTensorDescriptor_t d = NULL;
    FD_EXPECT_STATUS(cudnnCreateTensorDescriptor(&d), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(d, dt, t->nd, t->dim, t->stride),
                     CUDNN_STATUS_SUCCESS);
    return d;
}

static void scale_ptrs(cudnnDataType_t dt, double alpha, double beta, double *ad, double *bd,
                       float *af, float *bf, const void **pa, const void **pb)
{
    *ad = alpha, *bd = beta, *af = (float)alpha, *bf = (float)beta;
    *pa = dt == CUDNN_DATA_DOUBLE ? (const void *)ad : (const void *)af;
    *pb = dt == CUDNN_DATA_DOUBLE ? (const void *)bd : (const void *)bf;
}

/* ---- fills --------------------------------------------------------------------------------- */

/* SPECIAL: integers with NaN and -inf; LOW (test_gpu_pool_act's activation cases only): x below
 * -40, dy huge and infinite */
typedef enum { F_INT, F_REAL, F_SPECIAL, F_LOW } fill_t;

static void fill_buf(cudnnDataType_t dt, void *p, size_t bytes, fill_t f, uint64_t seed, double lo,
                     double hi)
{
    fd_rng_t r;
    fd_rng_seed(&r, seed);
    const int64_t n = (int64_t)(bytes / fd_test_dtype_size(dt));
    if (f == F_REAL) {
        fd_fill_real(&r, dt, p, n, lo, hi);
        return;
    }
    fd_fill_int(&r, dt, p, n, (int)lo, (int)hi, 0.8);
    if (f == F_SPECIAL)
        for (int64_t i = 0; i < n; i++) {
            int k = fd_rng_int(&r, 0, 15);
            if (k == 0)
                fd_test_store(dt, p, i, NAN);
            else if (k == 1)
                fd_test_store(dt, p, i, -INFINITY);
        }
}

#endif /* FD_TESTS_GPU_LAYOUTS_H_ */
