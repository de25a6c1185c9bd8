/* SPDX-License-Identifier: MIT */
/*
 * im2col.h - the column matrix of a convolution, one row at a time: the coordinates and valid
 * output ranges that both the explicit im2col (conv_gemm.c, the whole matrix in the workspace)
 * and the implicit GEMM (conv_implicit.c, panels gathered as they are multiplied) read x with.
 * Rows follow the filter's memory order (c, t0, t1, t2 for NCHW filters, t0, t1, t2, c for
 * NHWC), so the filter is a dense K/G x CRS matrix in either format.
 */
#ifndef FD_CPU_IM2COL_H_
#define FD_CPU_IM2COL_H_

#include "../core/conv.h"

/* Logical tap of memory tap tm along dim d (CUDNN_CONVOLUTION reads the filter reversed). */
static inline int64_t fd_col_tap(const fd_conv_problem_t *p, int d, int64_t tm)
{
    return p->cross_correlation ? tm : p->flt[d] - 1 - tm;
}

/* Outputs o in [*lo, *hi) read input o * stride - pad + t * dil inside [0, in) along dim d. */
static inline void fd_col_valid(const fd_conv_problem_t *p, int d, int64_t t, int64_t *lo,
                                int64_t *hi)
{
    int64_t a = p->pad[d] - t * p->dil[d], b = p->in[d] - 1 + p->pad[d] - t * p->dil[d];
    int64_t st = p->stride[d];
    *lo = a > 0 ? (a + st - 1) / st : 0;
    *hi = b < 0 ? 0 : b / st + 1;
    if (*hi > p->out[d])
        *hi = p->out[d];
    if (*lo > *hi)
        *lo = *hi;
}

/* Channel (within its group of cg) and memory taps of column-matrix row q: the filter is a
 * dense permutation of (c, t0, t1, t2), so each coordinate is (q / its stride) % its extent. */
static inline int64_t fd_col_coords(const fd_conv_problem_t *p, int64_t cg, int64_t q, int64_t *tm)
{
    for (int d = 0; d < 3; d++)
        tm[d] = p->flt[d] == 1 ? 0 : q / p->ws[2 + d] % p->flt[d];
    return cg == 1 ? 0 : q / p->ws[1] % cg;
}

#endif /* FD_CPU_IM2COL_H_ */
