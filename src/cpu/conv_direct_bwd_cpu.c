/* SPDX-License-Identifier: MIT */
/*
 * conv_direct_bwd_cpu.c - backward data as the direct forward row (conv_direct_cpu.c) on a
 * rewritten problem: FLOAT, groups 1, 1-d or 2-d, stride 1, filters above 1x1
 * (src/impls.def: fd_conv_bwd_data_direct_f32 serves BWD_DATA ALGO_1, whose contract allows
 * the forward row's workspace).
 *
 * With stride 1, dx[c][i] = sum over k, r of dy[k][i + pad - r * dil] * w[k][c][r] is a
 * forward cross-correlation of dy (C' = K channels) with the filter w'[c][k][r] =
 * w[k][c][R - 1 - r] (K' = C outputs) and pad' = (R - 1) * dil - pad. The forward problem
 * takes dy's strides as x's, dx's as y's, w's strides with K and C swapped (the forward row's
 * packing reads any filter strides; copying the filter to CKRS first was measured slower on
 * ResNet-50's 3x3 layers: the copy costs more than the packer's element-wise path), and the
 * other mode (the reversal is the flip CUDNN_CONVOLUTION applies, and a CUDNN_CONVOLUTION
 * problem's own reversal cancels it).
 * Declined: strides above 1 (the sum then takes every stride-th tap), pad > (R - 1) * dil
 * (pad' < 0: the forward row pads with a count of zeros), 1x1 filters (conv_1x1.c's plain
 * GEMM was faster on ResNet-50's 1x1 layers, 1 thread: 1.2 vs 1.3 ms at C 128 K 512 28x28,
 * 1.5 vs 3.4 ms at C 2048 K 512 7x7), filters of 2^18 elements or more over fewer than
 * 128 dx positions (below), and whatever the forward row declines. Bits: the forward row's, one fixed order per output, independent of
 * the thread count; the blend is ref's (alpha * acc + beta * dx in double, rounded once), and
 * as there, filter taps over the left / right padding multiply packed zeros (an Inf or NaN in
 * the filter gives NaN at those borders where ref does not).
 */
#include <stdio.h>

#include "gemm.h"

int fd_conv_fwd_direct_f32_applicable(const fd_conv_problem_t *p, char *why, size_t why_size);
size_t fd_conv_fwd_direct_f32_workspace(const fd_conv_problem_t *p);
cudnnStatus_t fd_conv_fwd_direct_f32_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);

/* The forward row packs the filter read with K and C swapped element by element; with few dx
 * positions per filter element that costs more than the arithmetic saves: ResNet-50's
 * layer4 3x3 (K = C = 512, 7x7, N = 1) took 3.8-4.3 ms here vs 3.0-3.5 ms in the im2col row
 * (1 thread), while 14x14 (196 positions) was already faster here. So large filters with
 * fewer than DB_MIN_POSITIONS positions are left to the next row. */
#define DB_BIG_FILTER (1 << 18)
#define DB_MIN_POSITIONS 128

/* The forward problem whose output is dx (see the header). */
static void db_forward(const fd_conv_problem_t *p, fd_conv_problem_t *f)
{
    *f = *p;
    f->dir = FD_CONV_FWD;
    f->c = p->k, f->k = p->c;
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++) {
        f->in[d] = p->out[d], f->out[d] = p->in[d];
        f->pad[d] = (p->flt[d] - 1) * p->dil[d] - p->pad[d];
    }
    f->cross_correlation = !p->cross_correlation;
    f->xdt = p->ydt, f->ydt = p->xdt;
    for (int i = 0; i < 2 + FD_CONV_SPATIAL_MAX; i++)
        f->xs[i] = p->ys[i], f->ys[i] = p->xs[i];
    f->ws[0] = p->ws[1], f->ws[1] = p->ws[0];
}

int fd_conv_bwd_data_direct_f32_applicable(const fd_conv_problem_t *p, char *why,
                                           size_t why_size)
{
    if (!fd_cpu_dtype_ok(p, CUDNN_DATA_FLOAT, why, why_size))
        return 0;
    int one = 1; /* every filter dim 1 */
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++) {
        if (p->stride[d] != 1) {
            snprintf(why, why_size,
                     "stride %lld along spatial dim %d: the direct backward row takes stride 1",
                     (long long)p->stride[d], d);
            return 0;
        }
        if (p->pad[d] > (p->flt[d] - 1) * p->dil[d]) {
            snprintf(why, why_size,
                     "pad %lld along spatial dim %d reaches beyond the dilated filter (%lld taps)",
                     (long long)p->pad[d], d, (long long)((p->flt[d] - 1) * p->dil[d] + 1));
            return 0;
        }
        one &= p->flt[d] == 1;
    }
    if (one) {
        snprintf(why, why_size, "1x1 filter: the 1x1 GEMM row is faster");
        return 0;
    }
    const int64_t fsize = p->k * p->c * p->flt[0] * p->flt[1] * p->flt[2];
    const int64_t positions = p->n * p->in[0] * p->in[1] * p->in[2];
    if (fsize >= DB_BIG_FILTER && positions < DB_MIN_POSITIONS) {
        snprintf(why, why_size,
                 "%lld dx positions for a %lld-element filter: packing the permuted filter "
                 "costs more than the im2col row",
                 (long long)positions, (long long)fsize);
        return 0;
    }
    fd_conv_problem_t f;
    db_forward(p, &f);
    return fd_conv_fwd_direct_f32_applicable(&f, why, why_size);
}

size_t fd_conv_bwd_data_direct_f32_workspace(const fd_conv_problem_t *p)
{
    fd_conv_problem_t f;
    db_forward(p, &f);
    return fd_conv_fwd_direct_f32_workspace(&f);
}

cudnnStatus_t fd_conv_bwd_data_direct_f32_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    fd_conv_problem_t f;
    db_forward(p, &f);
    fd_conv_args_t fa = *a;
    fa.x = a->y, fa.y = NULL;
    return fd_conv_fwd_direct_f32_run(&f, &fa);
}
