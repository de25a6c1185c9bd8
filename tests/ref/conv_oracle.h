/* SPDX-License-Identifier: MIT */
/*
 * conv_oracle.h - an independent convolution oracle for the tests (DESIGN D9).
 *
 * Written from the definition, on canonical dense row-major double arrays, and sharing nothing
 * with src/ref: x is [N][C][spatial...], w is [K][C/G][spatial...], y is [N][K][spatial...].
 * One loop nest enumerates every "connection" (n, k, c, output position, filter tap) with its
 * input position o*stride - pad + tap*dilation; forward accumulates x*w into y, backward data
 * scatters dy*w into dx, backward filter scatters x*dy into dw (the library gathers instead).
 * Sums are kept in double-double (TwoSum + FMA TwoProduct), so the oracle's own rounding error
 * is ~2^-100 relative to sum|terms| and never eats into a tolerance; for each output element it
 * also returns sum|terms| and the number of terms, which the tolerance formula needs.
 */
#ifndef FD_CONV_ORACLE_H_
#define FD_CONV_ORACLE_H_

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef enum { CO_FWD = 0, CO_BWD_DATA = 1, CO_BWD_FILTER = 2, CO_BWD_BIAS = 3 } co_dir_t;

typedef struct {
    int nsp;                                      /* spatial dims: 1, 2 or 3 */
    int n, c, k, g;                               /* c and k count all channels; g divides both */
    int in[3], flt[3], pad[3], stride[3], dil[3]; /* first nsp entries used */
    int flip; /* 1: CUDNN_CONVOLUTION (filter taps reversed), 0: cross-correlation */
} co_shape_t;

/* Output extent along spatial dim i: floor((in + 2 pad - dilated span) / stride) + 1. */
static inline int co_out(const co_shape_t *s, int i)
{
    int span = (s->flt[i] - 1) * s->dil[i] + 1;
    return (s->in[i] + 2 * s->pad[i] - span) / s->stride[i] + 1;
}

static inline int64_t co_prod(const int *v, int n)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        p *= v[i];
    return p;
}

static inline int64_t co_x_count(const co_shape_t *s)
{
    return (int64_t)s->n * s->c * co_prod(s->in, s->nsp);
}
static inline int64_t co_w_count(const co_shape_t *s)
{
    return (int64_t)s->k * (s->c / s->g) * co_prod(s->flt, s->nsp);
}
static inline int64_t co_y_count(const co_shape_t *s)
{
    int64_t p = (int64_t)s->n * s->k;
    for (int i = 0; i < s->nsp; i++)
        p *= co_out(s, i);
    return p;
}

/* Element count of the output of a direction. */
static inline int64_t co_out_count(const co_shape_t *s, co_dir_t dir)
{
    return dir == CO_FWD          ? co_y_count(s)
           : dir == CO_BWD_DATA   ? co_x_count(s)
           : dir == CO_BWD_FILTER ? co_w_count(s)
                                  : (int64_t)s->k;
}

/* Per output element: the exact sum as a double-double, sum|terms| and the term count. */
typedef struct {
    int64_t count;
    double *hi, *lo, *abs_sum;
    int64_t *terms;
} co_acc_t;

static inline co_acc_t co_acc_new(int64_t count)
{
    co_acc_t a = {
        count, calloc((size_t)count + 1, sizeof(double)), calloc((size_t)count + 1, sizeof(double)),
        calloc((size_t)count + 1, sizeof(double)), calloc((size_t)count + 1, sizeof(int64_t))};
    if (!a.hi || !a.lo || !a.abs_sum || !a.terms)
        abort();
    return a;
}

static inline void co_acc_free(co_acc_t *a)
{
    free(a->hi), free(a->lo), free(a->abs_sum), free(a->terms);
    memset(a, 0, sizeof *a);
}

/* The sum, rounded once to double. */
static inline double co_acc_value(const co_acc_t *a, int64_t i)
{
    return a->hi[i] + a->lo[i];
}

/* acc[i] += p * q without losing a bit (while lo stays small against hi). */
static inline void co_acc_add(co_acc_t *a, int64_t i, double p, double q)
{
    double prod = p * q, perr = fma(p, q, -prod);
    double s = a->hi[i] + prod, bv = s - a->hi[i];
    double serr = (a->hi[i] - (s - bv)) + (prod - bv);
    a->hi[i] = s;
    a->lo[i] += serr + perr;
    a->abs_sum[i] += fabs(prod);
    a->terms[i]++;
}

/* Runs direction `dir` of shape `s`:
 *   CO_FWD:        a = x, b = w,  out = y  (count co_y_count)
 *   CO_BWD_DATA:   a = dy, b = w, out = dx (count co_x_count)
 *   CO_BWD_FILTER: a = x, b = dy, out = dw (count co_w_count)
 *   CO_BWD_BIAS:   a = dy, b unused, out = db (count k)
 * `acc` must be fresh (co_acc_new of the output count). */
static inline void co_run(const co_shape_t *s, co_dir_t dir, const double *a, const double *b,
                          co_acc_t *acc)
{
    int in[3] = {1, 1, 1}, flt[3] = {1, 1, 1}, out[3] = {1, 1, 1};
    int pad[3] = {0, 0, 0}, str[3] = {1, 1, 1}, dil[3] = {1, 1, 1};
    for (int i = 0; i < s->nsp; i++) {
        in[i] = s->in[i], flt[i] = s->flt[i], out[i] = co_out(s, i);
        pad[i] = s->pad[i], str[i] = s->stride[i], dil[i] = s->dil[i];
    }
    const int64_t in_sp = (int64_t)in[0] * in[1] * in[2],
                  out_sp = (int64_t)out[0] * out[1] * out[2];
    const int64_t flt_sp = (int64_t)flt[0] * flt[1] * flt[2];
    const int cg_n = s->c / s->g, kg_n = s->k / s->g;
    if (dir == CO_BWD_BIAS) {
        for (int n = 0; n < s->n; n++)
            for (int k = 0; k < s->k; k++)
                for (int64_t o = 0; o < out_sp; o++)
                    co_acc_add(acc, k, a[((int64_t)n * s->k + k) * out_sp + o], 1.0);
        return;
    }
    for (int n = 0; n < s->n; n++)
        for (int k = 0; k < s->k; k++) {
            const int grp = k / kg_n;
            for (int o0 = 0; o0 < out[0]; o0++)
                for (int o1 = 0; o1 < out[1]; o1++)
                    for (int o2 = 0; o2 < out[2]; o2++) {
                        const int64_t yi = ((int64_t)n * s->k + k) * out_sp +
                                           ((int64_t)o0 * out[1] + o1) * out[2] + o2;
                        for (int cg = 0; cg < cg_n; cg++) {
                            const int c = grp * cg_n + cg;
                            for (int t0 = 0; t0 < flt[0]; t0++)
                                for (int t1 = 0; t1 < flt[1]; t1++)
                                    for (int t2 = 0; t2 < flt[2]; t2++) {
                                        const int i0 = o0 * str[0] - pad[0] + t0 * dil[0];
                                        const int i1 = o1 * str[1] - pad[1] + t1 * dil[1];
                                        const int i2 = o2 * str[2] - pad[2] + t2 * dil[2];
                                        if (i0 < 0 || i0 >= in[0] || i1 < 0 || i1 >= in[1] ||
                                            i2 < 0 || i2 >= in[2])
                                            continue; /* the tap falls on zero padding */
                                        /* CUDNN_CONVOLUTION pairs tap t with filter element F-1-t
                                         */
                                        const int f0 = s->flip ? flt[0] - 1 - t0 : t0;
                                        const int f1 = s->flip ? flt[1] - 1 - t1 : t1;
                                        const int f2 = s->flip ? flt[2] - 1 - t2 : t2;
                                        const int64_t xi = ((int64_t)n * s->c + c) * in_sp +
                                                           ((int64_t)i0 * in[1] + i1) * in[2] + i2;
                                        const int64_t wi = ((int64_t)k * cg_n + cg) * flt_sp +
                                                           ((int64_t)f0 * flt[1] + f1) * flt[2] +
                                                           f2;
                                        switch (dir) {
                                        case CO_FWD:
                                            co_acc_add(acc, yi, a[xi], b[wi]);
                                            break;
                                        case CO_BWD_DATA:
                                            co_acc_add(acc, xi, a[yi], b[wi]);
                                            break;
                                        default:
                                            co_acc_add(acc, wi, a[xi], b[yi]);
                                            break;
                                        }
                                    }
                        }
                    }
        }
}

#endif /* FD_CONV_ORACLE_H_ */
