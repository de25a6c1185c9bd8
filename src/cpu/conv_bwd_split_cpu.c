/* SPDX-License-Identifier: MIT */
/*
 * conv_bwd_split_cpu.c - backward data of strided convolutions, split by residue class into
 * stride-1 forward problems of the direct row (conv_direct_cpu.c). FLOAT, groups 1, 1-d or
 * 2-d, a stride above 1 along some dim (dilation 1 along every strided dim); src/impls.def:
 * fd_conv_bwd_data_split_f32 serves BWD_DATA ALGO_1 (the forward row's workspace).
 *
 * Along a dim of stride s, dx[i] = sum over taps r with (i + pad - r) % s == 0 of
 * dy[(i + pad - r) / s] * w[r]: the dx positions of one residue class a = i % s see only the
 * taps r = r0, r0 + s, ... (r0 = (a + pad) % s), and dy at consecutive positions. So each of
 * the prod(s) classes is a stride-1 forward cross-correlation of dy (C' = K channels) with a
 * sub-filter of those taps (K' = C, reversed), writing a disjoint strided view of dx: the
 * same construction as src/cuda/conv_tc_dgrad.cu, and the stride-1 transformation of
 * conv_direct_bwd_cpu.c per class. Sub-filters and views are strides over the user's tensors
 * (the forward row packs any strides; the reversal is its other mode), so nothing is copied
 * here; a class whose pad' would be negative starts its dy view later instead. A class that
 * no tap reaches (a 2x2 filter at stride 3: five of nine) gets beta * dx (zeros for
 * beta == 0, dx never read).
 * Why: the im2col row runs its GEMM on OpenBLAS's threads and col2im on one thread around it
 * (the pthread OpenBLAS and our OpenMP cannot share the cores, gemm.h), which held the
 * strided layers at 1.4-1.65x on two threads; here everything runs in the direct row's
 * OpenMP loops, with no BLAS call and no column matrix.
 * Declined: dx with fewer than 16 channels (K' = C below one vector block: conv1's C = 3
 * leaves 13 of 16 lanes idle), filters of 2^18 elements or more over fewer than 128 dx
 * positions per class (the forward row repacks the filter, K and C swapped, which costs more
 * than the arithmetic there: the stride-1 row's measurement, conv_direct_bwd_cpu.c), and 1x1
 * filters (one class of a stride-2 1x1 is a plain 1x1 forward, where OpenBLAS's GEMM is
 * faster at one thread: ResNet-50's downsample layers, one thread, loaded machine, min of 6
 * interleaved runs: C 256 K 512 56x56 2.85 ms here vs 2.57 ms in the im2col row, C 512
 * K 1024 28x28 3.2 vs 2.5 ms; the 3x3 stride-2 layers: C = K = 128 56x56 2.57 vs 3.02 ms,
 * C = K = 256 28x28 2.65 vs 2.81 ms).
 * Bits: each dx element is one class's forward output, summed in the forward row's fixed
 * order whatever the thread count; the blend is ref's (alpha * acc + beta * dx in double,
 * rounded once). Real data differ from ref (double accumulation) and from the im2col row in
 * rounding only; filter taps over the left / right padding of a class multiply packed zeros,
 * as in the direct row (an Inf or NaN in the filter gives NaN there where ref does not).
 */
#include <stdio.h>

#include "gemm.h"

int fd_conv_fwd_direct_f32_applicable(const fd_conv_problem_t *p, char *why, size_t why_size);
size_t fd_conv_fwd_direct_f32_workspace(const fd_conv_problem_t *p);
cudnnStatus_t fd_conv_fwd_direct_f32_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);

#define SP_MIN_CHANNELS 16
#define SP_BIG_FILTER (1 << 18)
#define SP_MIN_POSITIONS 128

/* One residue class: the forward problem and where its three tensors start (elements). */
typedef struct {
    fd_conv_problem_t f;
    int64_t x_off, w_off, y_off; /* into dy, w and dx */
    int empty; /* 1: no tap reaches this class (dx = beta * dx there); 2: no dx positions */
} sp_class_t;

/* Classes along dim d (stride s): class a covers dx positions a, a + s, ... */
static void sp_class(const fd_conv_problem_t *p, const int64_t *res, sp_class_t *cl)
{
    fd_conv_problem_t *f = &cl->f;
    *f = *p;
    f->dir = FD_CONV_FWD;
    f->c = p->k, f->k = p->c, f->groups = 1;
    f->cross_correlation = !p->cross_correlation;
    f->xdt = p->ydt, f->ydt = p->xdt;
    f->xs[0] = p->ys[0], f->xs[1] = p->ys[1];
    f->ys[0] = p->xs[0], f->ys[1] = p->xs[1];
    f->ws[0] = p->ws[1], f->ws[1] = p->ws[0];
    cl->x_off = cl->w_off = cl->y_off = 0;
    cl->empty = 0;
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++) {
        const int64_t s = p->stride[d], a = res[d], R = p->flt[d];
        const int64_t m = a < p->in[d] ? (p->in[d] - a + s - 1) / s : 0; /* dx positions */
        int64_t r0 = 0, taps = R, step = 1, dil = p->dil[d], c0 = p->pad[d];
        if (s > 1) { /* dilation 1 here (applicable) */
            r0 = (a + p->pad[d]) % s;
            taps = r0 < R ? (R - r0 + s - 1) / s : 0;
            step = s, dil = 1;
            c0 = (a + p->pad[d] - r0) / s;
        }
        /* dx[a + s * m'] = sum over j < taps of dy[m' + c0 - j * dil] * w_eff[r0 + j * step]:
         * a cross-correlation with the reversed sub-filter, pad' = (taps - 1) * dil - c0. */
        int64_t pad = (taps - 1) * dil - c0, shift = 0;
        if (pad < 0)
            shift = -pad, pad = 0;
        const int64_t in = p->out[d] - shift;
        if (m <= 0)
            cl->empty = 2;
        else if ((taps <= 0 || in <= 0) && !cl->empty)
            cl->empty = 1;
        f->in[d] = in > 0 ? in : 1, f->out[d] = m > 0 ? m : 1, f->flt[d] = taps > 0 ? taps : 1;
        f->pad[d] = pad, f->stride[d] = 1, f->dil[d] = dil;
        /* Memory tap of sub-tap j' (the forward row's effective tap j' reads memory tap j'
         * in its own mode, R' - 1 - j' in the other): cross-correlation problems read
         * r0 + t * step (and the forward row, in convolution mode, reverses); convolution
         * problems the mirror image. */
        const int64_t base = p->cross_correlation ? r0 : R - 1 - r0 - (taps - 1) * step;
        f->ws[2 + d] = step * p->ws[2 + d];
        cl->w_off += (taps > 0 ? base : 0) * p->ws[2 + d];
        f->xs[2 + d] = p->ys[2 + d];
        cl->x_off += shift * p->ys[2 + d];
        f->ys[2 + d] = s * p->xs[2 + d];
        cl->y_off += a * p->xs[2 + d];
    }
}

/* Calls fn on each class (in D, H, W order); stops at the first nonzero return. */
static int sp_each(const fd_conv_problem_t *p, int (*fn)(const sp_class_t *, void *), void *ctx)
{
    int64_t res[FD_CONV_SPATIAL_MAX];
    for (res[0] = 0; res[0] < p->stride[0]; res[0]++)
        for (res[1] = 0; res[1] < p->stride[1]; res[1]++)
            for (res[2] = 0; res[2] < p->stride[2]; res[2]++) {
                sp_class_t cl;
                sp_class(p, res, &cl);
                int rc = fn(&cl, ctx);
                if (rc)
                    return rc;
            }
    return 0;
}

typedef struct {
    char *why;
    size_t why_size;
    int64_t big;  /* filter elements */
    size_t bytes; /* largest workspace */
    const fd_conv_args_t *a;
    const fd_conv_problem_t *p;
    cudnnStatus_t st;
} sp_ctx_t;

static int sp_check(const sp_class_t *cl, void *v)
{
    sp_ctx_t *c = v;
    if (cl->empty)
        return 0;
    const int64_t positions = cl->f.n * cl->f.out[0] * cl->f.out[1] * cl->f.out[2];
    if (c->big >= SP_BIG_FILTER && positions < SP_MIN_POSITIONS) {
        snprintf(c->why, c->why_size,
                 "%lld dx positions per class for a %lld-element filter: packing the permuted "
                 "filter costs more than the im2col row",
                 (long long)positions, (long long)c->big);
        return 1;
    }
    return !fd_conv_fwd_direct_f32_applicable(&cl->f, c->why, c->why_size);
}

int fd_conv_bwd_data_split_f32_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    if (!fd_cpu_dtype_ok(p, CUDNN_DATA_FLOAT, why, why_size))
        return 0;
    if (p->groups != 1 || p->nsp > 2) {
        snprintf(why, why_size, "groups %lld, %d-d: the split row takes groups 1, 1-d / 2-d",
                 (long long)p->groups, p->nsp);
        return 0;
    }
    int strided = 0;
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++) {
        if (p->stride[d] > 1 && p->dil[d] != 1) {
            snprintf(why, why_size, "stride %lld with dilation %lld along spatial dim %d",
                     (long long)p->stride[d], (long long)p->dil[d], d);
            return 0;
        }
        strided |= p->stride[d] > 1;
    }
    if (!strided) {
        snprintf(why, why_size, "stride 1: the direct backward row's case");
        return 0;
    }
    if (p->c < SP_MIN_CHANNELS) {
        snprintf(why, why_size, "%lld dx channels: fewer than one vector block", (long long)p->c);
        return 0;
    }
    if (p->flt[0] == 1 && p->flt[1] == 1 && p->flt[2] == 1) {
        snprintf(why, why_size, "1x1 filter: the im2col row's GEMM is faster at one thread");
        return 0;
    }
    sp_ctx_t c = {why,
                  why_size,
                  p->k * p->c * p->flt[0] * p->flt[1] * p->flt[2],
                  0,
                  NULL,
                  p,
                  CUDNN_STATUS_SUCCESS};
    return !sp_each(p, sp_check, &c);
}

static int sp_size(const sp_class_t *cl, void *v)
{
    sp_ctx_t *c = v;
    size_t b = cl->empty ? 0 : fd_conv_fwd_direct_f32_workspace(&cl->f);
    c->bytes = b > c->bytes ? b : c->bytes;
    return 0;
}

size_t fd_conv_bwd_data_split_f32_workspace(const fd_conv_problem_t *p)
{
    sp_ctx_t c = {NULL, 0, 0, 0, NULL, p, CUDNN_STATUS_SUCCESS};
    sp_each(p, sp_size, &c);
    return c.bytes;
}

/* dx of an empty class = beta * dx (beta == 0 writes zeros without reading). */
static void sp_blend_only(const fd_conv_problem_t *f, float *y, double beta)
{
    const int64_t rows = f->n * f->k * f->out[0] * f->out[1];
#pragma omp parallel for schedule(static) if (rows * f->out[2] >= (1 << 16))
    for (int64_t row = 0; row < rows; row++) {
        const int64_t o1 = row % f->out[1], o0 = row / f->out[1] % f->out[0];
        const int64_t k = row / (f->out[1] * f->out[0]) % f->k,
                      n = row / (f->out[1] * f->out[0] * f->k);
        float *d = y + n * f->ys[0] + k * f->ys[1] + o0 * f->ys[2] + o1 * f->ys[3];
        for (int64_t o2 = 0; o2 < f->out[2]; o2++)
            d[o2 * f->ys[4]] = beta == 0.0 ? 0.0f : (float)(beta * (double)d[o2 * f->ys[4]]);
    }
}

static int sp_exec(const sp_class_t *cl, void *v)
{
    sp_ctx_t *c = v;
    float *y = (float *)c->a->out + cl->y_off;
    if (cl->empty) {
        if (cl->empty == 1)
            sp_blend_only(&cl->f, y, c->a->beta);
        return 0;
    }
    fd_conv_args_t fa = *c->a;
    fa.x = (const float *)c->a->y + cl->x_off;
    fa.w = (const float *)c->a->w + cl->w_off;
    fa.y = NULL;
    fa.out = y;
    c->st = fd_conv_fwd_direct_f32_run(&cl->f, &fa);
    return c->st != CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t fd_conv_bwd_data_split_f32_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    sp_ctx_t c = {NULL, 0, 0, 0, a, p, CUDNN_STATUS_SUCCESS};
    sp_each(p, sp_exec, &c);
    return c.st;
}
