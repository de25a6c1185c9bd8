/* SPDX-License-Identifier: MIT */
/*
 * conv_direct_bwd_cpu.c - backward data as the direct forward row (conv_direct_cpu.c) on a
 * rewritten problem: FLOAT, groups 1, 1-d or 2-d, stride 1, filters above 1x1
 * (src/impls.def: fd_conv_bwd_data_direct_f32 serves BWD_DATA ALGO_1, whose contract allows
 * the forward row's workspace); and backward filter of 1x1 stride-1 layers the same way
 * (fd_conv_bwd_filter_direct_f32, BWD_FILTER ALGO_3; second half of this file).
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
 * 128 dx positions (below), and whatever the forward row declines. Bits: the forward row's, one
 * fixed order per output, independent of the thread count; the blend is ref's (alpha * acc + beta *
 * dx in double, rounded once), and as there, filter taps over the left / right padding multiply
 * packed zeros (an Inf or NaN in the filter gives NaN at those borders where ref does not).
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

int fd_conv_bwd_data_direct_f32_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
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

/* ---- backward filter of 1x1 stride-1 layers as the direct forward row ---------------------
 *
 * dw[k][c] = sum over images and positions l of dy[k][l] * x[c][l] is a GEMM whose reduction
 * runs along l; the forward row computes exactly such a product when l plays its input
 * channel, k its output channel and c its output column: x' = x with channels l (stride the
 * unit step of x's positions), one row per image (H' = N images, read as the N filter rows
 * R' = N of a 1-row output, so the images' sums are one reduction) and columns c (stride
 * x's C stride); the filter w' = dy (K' = K, C' = L, R' = images); y' = dw (a 1 x C row per
 * output channel). When C is a multiple of 16 the columns are C / 16 rows of 16 instead
 * (3 x 8 register tiles rather than 1 x 14; measured 15-35% faster than the 1-row layout at
 * one thread), one image a call. So the whole product runs in the forward row's register
 * tiles on our own threads (OpenMP over blocks of K), with no BLAS call: the 1x1 GEMM row's
 * OpenBLAS threads and its K slices of 128 (each a small threaded call) are what kept this
 * direction's 2-thread speed-up near 1.6 (docs/perf/cpu-vs-onednn-2026-11-30.md). At one
 * thread it is slower than OpenBLAS (ResNet-50's 1x1 layers, N = 1, loaded machine, min of
 * 4 interleaved runs: 0.39 vs 0.29 ms at C = K = 64 56x56, 1.26-2.04 vs 1.05-1.16 ms on the
 * others), so it serves ALGO_3 only: the heuristic's first, ALGO_1, stays OpenBLAS, and Find
 * takes this row where it wins (two threads). In the 1-row layout images are taken
 * DBF_CHUNK floats of x at a time (at least one image), later calls blending with beta 1, so
 * the workspace stays bounded. Bits: each dw element is one tile's sum in one fixed order,
 * the same for any thread count; the forward row's blend (alpha * acc + beta * dw in double,
 * rounded once per call). Not the GEMM row's order: real data differ from it in rounding.
 */
#define DBF_CHUNK (4 * 1024 * 1024)

/* Output columns per row of y' (DBF_COLS when Q is a multiple, else all Q in one row): a
 * 1 x Q row runs in 1 x 14 tiles (one vector load per 14 FMAs); Q / 16 rows of 16 run in
 * 3 x 8 tiles, which reuse each loaded filter vector 24 times. */
#define DBF_COLS 16
static int64_t dbf_cols(int64_t q)
{
    return q % DBF_COLS == 0 ? DBF_COLS : q;
}

/* Images per forward call: in the 1-row layout as many as keep x' (L x Q per image) within
 * DBF_CHUNK floats (they are its filter rows); one in the Q / 16-row layout. */
static int64_t dw_images(int64_t q, int64_t l, int64_t n)
{
    if (dbf_cols(q) != q)
        return 1;
    int64_t per = l * q, nb = per > 0 ? DBF_CHUNK / per : 1;
    return nb < 1 ? 1 : nb > n ? n : nb;
}

/* dw[k][q] = sum over images and l < L of dy[k][l] * x[q][l] (K x Q outputs) as the FLOAT
 * forward problem f of nb images, its other fields copied from p; run with x' = x, w' = dy,
 * y' = dw. Element steps: xst = {l, q, image} of x, yst = {l, k, image} of dy, wst = {k, q}
 * of dw. */
static void dw_forward(const fd_conv_problem_t *p, int64_t k, int64_t q, int64_t l, int64_t nb,
                       const int64_t xst[3], const int64_t yst[3], const int64_t wst[2],
                       fd_conv_problem_t *f)
{
    const int64_t cols = dbf_cols(q), rows = q / cols;
    *f = *p;
    f->dir = FD_CONV_FWD;
    f->nsp = 2;
    f->n = 1, f->c = l, f->k = k, f->groups = 1;
    /* rows == 1: H' = the nb images, read as nb filter rows; else H' = Q / cols rows (nb 1) */
    const int64_t in[3] = {1, rows > 1 ? rows : nb, cols}, out[3] = {1, rows, cols};
    const int64_t flt[3] = {1, rows > 1 ? 1 : nb, 1};
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++) {
        f->in[d] = in[d], f->out[d] = out[d], f->flt[d] = flt[d];
        f->pad[d] = 0, f->stride[d] = 1, f->dil[d] = 1;
    }
    f->cross_correlation = 1;
    f->xdt = f->wdt = f->ydt = CUDNN_DATA_FLOAT; /* compute stays p's: FLOAT or declined */
    /* x' [1][L][H'][cols], w' [K][L][nb][1], y' [1][K][rows][cols] */
    f->xs[0] = 0, f->xs[1] = xst[0], f->xs[2] = 0;
    f->xs[3] = rows > 1 ? cols * xst[1] : xst[2], f->xs[4] = xst[1];
    f->ws[0] = yst[1], f->ws[1] = yst[0], f->ws[2] = 0, f->ws[3] = nb > 1 ? yst[2] : 1;
    f->ws[4] = 1;
    f->ys[0] = 0, f->ys[1] = wst[0], f->ys[2] = 0, f->ys[3] = cols * wst[1], f->ys[4] = wst[1];
}

/* The forward problem of nb images of a 1x1 problem p (see above); ux / uy: the unit steps of
 * x's and dy's positions. */
static void dbf_forward(const fd_conv_problem_t *p, int64_t l, int64_t ux, int64_t uy, int64_t nb,
                        fd_conv_problem_t *f)
{
    const int64_t xst[3] = {ux, p->xs[1], p->xs[0]}, yst[3] = {uy, p->ys[1], p->ys[0]};
    const int64_t wst[2] = {p->ws[0], p->ws[1]};
    dw_forward(p, p->k, p->c, l, nb, xst, yst, wst, f);
}

static int64_t dbf_images(const fd_conv_problem_t *p, int64_t l)
{
    return dw_images(p->c, l, p->n);
}

/* 1 when p is a 1x1 stride-1 pad-0 problem whose positions are one run in x and in dy. */
static int dbf_shape(const fd_conv_problem_t *p, int64_t *l, int64_t *ux, int64_t *uy)
{
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++)
        if (p->flt[d] != 1 || p->stride[d] != 1 || p->pad[d] != 0)
            return 0;
    *l = p->out[0] * p->out[1] * p->out[2];
    return fd_cpu_flat_run(p->in, p->xs + 2, FD_CONV_SPATIAL_MAX, ux) &&
           fd_cpu_flat_run(p->out, p->ys + 2, FD_CONV_SPATIAL_MAX, uy);
}

int fd_conv_bwd_filter_direct_f32_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    if (!fd_cpu_dtype_ok(p, CUDNN_DATA_FLOAT, why, why_size))
        return 0;
    int64_t l, ux, uy;
    if (!dbf_shape(p, &l, &ux, &uy)) {
        snprintf(why, why_size,
                 "not a 1x1 stride-1 pad-0 filter over positions that are one run in x and dy");
        return 0;
    }
    if (p->groups != 1) {
        snprintf(why, why_size, "groups %lld: the direct row takes groups 1 only",
                 (long long)p->groups);
        return 0;
    }
    fd_conv_problem_t f;
    dbf_forward(p, l, ux, uy, dbf_images(p, l), &f);
    return fd_conv_fwd_direct_f32_applicable(&f, why, why_size);
}

size_t fd_conv_bwd_filter_direct_f32_workspace(const fd_conv_problem_t *p)
{
    int64_t l, ux, uy;
    if (!dbf_shape(p, &l, &ux, &uy))
        return 0;
    fd_conv_problem_t f;
    dbf_forward(p, l, ux, uy, dbf_images(p, l), &f);
    return fd_conv_fwd_direct_f32_workspace(&f);
}

cudnnStatus_t fd_conv_bwd_filter_direct_f32_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    int64_t l, ux, uy;
    dbf_shape(p, &l, &ux, &uy);
    const int64_t chunk = dbf_images(p, l);
    for (int64_t n0 = 0; n0 < p->n; n0 += chunk) {
        const int64_t nb = p->n - n0 < chunk ? p->n - n0 : chunk;
        fd_conv_problem_t f;
        dbf_forward(p, l, ux, uy, nb, &f);
        fd_conv_args_t fa = *a;
        fa.x = (const float *)a->x + n0 * p->xs[0];
        fa.w = (const float *)a->y + n0 * p->ys[0];
        fa.y = NULL;
        fa.beta = n0 == 0 ? a->beta : 1.0;
        cudnnStatus_t st = fd_conv_fwd_direct_f32_run(&f, &fa);
        if (st != CUDNN_STATUS_SUCCESS)
            return st;
    }
    return CUDNN_STATUS_SUCCESS;
}
