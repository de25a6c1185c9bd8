/* SPDX-License-Identifier: MIT */
/*
 * conv_1x1.c - 1x1 convolution (every filter dim 1, stride 1, pad 0) as a plain GEMM on the
 * tensors in place: no copy, no workspace. Serves FWD IMPLICIT_GEMM, IMPLICIT_PRECOMP_GEMM and
 * GEMM, BWD_DATA ALGO_0 / ALGO_1, BWD_FILTER ALGO_0 / ALGO_1 / ALGO_3 (src/impls.def). FLOAT and
 * DOUBLE, groups, 1 to 3 spatial dims; x and y must each be a BLAS matrix per image and group
 * (channel stride and one uniform spatial step, one of them 1: NCHW, NHWC, CHW-padded rows
 * are not), else the im2col rows take the problem. GEMM mapping per image n, group g:
 *   fwd         y[K/G x L]  = w[K/G x C/G] · x[C/G x L]      (NHWC: y^T[L x K] = x^T · w^T)
 *   bwd data    dx[C/G x L] = w^T[C/G x K/G] · dy[K/G x L]
 *   bwd filter  dw[K/G x C/G] += dy[K/G x L] · x^T[L x C/G]  (summed over n in order)
 * When the images follow each other in one run (NHWC with packed N) the batch is one GEMM with
 * L = N·H·W. Deterministic for any thread count (fixed pieces, K slices: gemm.h).
 * Threads: the backward GEMMs run in fixed pieces of C along its larger dimension (gemm.h:
 * fd_cpu_gemm_team), with more than one thread on our own team with BLAS single-threaded:
 * OpenBLAS's own threads synchronised on every 128-deep K slice, which made the backward filter
 * GEMM of ResNet-50's 1x1 64 -> 64 layer (64 x 64 x 3136) slower on two threads than on one.
 * The same pieces at any thread count, so the same bits. Forward runs the same way (BLAS's own
 * threads gave other bits at other thread counts on OpenBLAS's Haswell kernels: gemm.c).
 */
#include <limits.h>
#include <stdio.h>

#include "gemm.h"

typedef struct {
    size_t es;
    int64_t cg, kg;
    int64_t images, l;    /* GEMMs per group and their L (images = 1 when N is merged) */
    int64_t x_img, y_img; /* element step between the images of the loop */
    int64_t x_rs, x_cs, y_rs, y_cs;
    int ok; /* 1 when both views are BLAS matrices */
} plan_t;

/* Tensor t (strides s, channel count ch) as a ch x L view per image; 1 on success. */
static int view_of(const fd_conv_problem_t *p, const int64_t *s, int64_t ch, int merge_n,
                   int64_t *rs, int64_t *cs)
{
    int64_t ext[4] = {merge_n ? p->n : 1, p->out[0], p->out[1], p->out[2]};
    int64_t str[4] = {s[0], s[2], s[3], s[4]};
    int64_t unit;
    if (!fd_cpu_flat_run(ext, str, 4, &unit))
        return 0;
    *rs = s[1], *cs = unit;
    return fd_cpu_view_ok(ch, ext[0] * ext[1] * ext[2] * ext[3], rs, cs);
}

static void plan_make(const fd_conv_problem_t *p, plan_t *pl)
{
    pl->es = p->xdt == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float);
    pl->cg = p->c / p->groups, pl->kg = p->k / p->groups;
    int64_t l = p->out[0] * p->out[1] * p->out[2];
    if (p->n > 1 && view_of(p, p->xs, pl->cg, 1, &pl->x_rs, &pl->x_cs) &&
        view_of(p, p->ys, pl->kg, 1, &pl->y_rs, &pl->y_cs)) {
        pl->images = 1, pl->l = p->n * l, pl->x_img = pl->y_img = 0;
        pl->ok = 1;
        return;
    }
    pl->images = p->n, pl->l = l, pl->x_img = p->xs[0], pl->y_img = p->ys[0];
    pl->ok = view_of(p, p->xs, pl->cg, 0, &pl->x_rs, &pl->x_cs) &&
             view_of(p, p->ys, pl->kg, 0, &pl->y_rs, &pl->y_cs);
}

static int one_applicable(const fd_conv_problem_t *p, cudnnDataType_t dt, char *why,
                          size_t why_size)
{
    if (!fd_cpu_dtype_ok(p, dt, why, why_size))
        return 0;
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++)
        if (p->flt[d] != 1 || p->stride[d] != 1 || p->pad[d] != 0) {
            snprintf(why, why_size,
                     "not 1x1 stride 1 pad 0 (spatial dim %d: filter %lld, "
                     "stride %lld, pad %lld)",
                     d, (long long)p->flt[d], (long long)p->stride[d], (long long)p->pad[d]);
            return 0;
        }
    plan_t pl;
    plan_make(p, &pl);
    if (!pl.ok) {
        snprintf(why, why_size,
                 "x or y is not one BLAS matrix per image (padded or permuted "
                 "strides): im2col packs it");
        return 0;
    }
    if (pl.cg > INT_MAX || pl.kg > INT_MAX || pl.l > INT_MAX || p->ws[0] > INT_MAX) {
        snprintf(why, why_size, "a GEMM dimension (C/G %lld, K/G %lld, L %lld) exceeds int",
                 (long long)pl.cg, (long long)pl.kg, (long long)pl.l);
        return 0;
    }
    return 1;
}

static size_t one_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}

/* The filter of group g: a dense K/G x C/G matrix (spatial dims are all 1, so the NCHW and
 * NHWC formats coincide: ws[0] = C/G, ws[1] = 1). */
static const void *w_of(const fd_conv_problem_t *p, const plan_t *pl, const void *w, int64_t g)
{
    return fd_cpu_at(w, g * pl->kg * p->ws[0], pl->es);
}

/* Our team for GEMMs of m x n x k (1: the same pieces one after another on this thread):
 * below ONE_TEAM_MACS a parallel region costs more than it saves. The pieces depend on the
 * shape only (fd_cpu_gemm_team), so this choice never changes bits. */
#define ONE_TEAM_MACS (1 << 19)
static int team_for(int64_t m, int64_t n, int64_t k)
{
    return m * n * k < ONE_TEAM_MACS ? 1 : fd_cpu_team_size();
}

static cudnnStatus_t fwd_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    plan_t pl;
    plan_make(p, &pl);
    const int nt = team_for(pl.kg, pl.l, pl.cg);
    for (int64_t n = 0; n < pl.images; n++)
        for (int64_t g = 0; g < p->groups; g++)
            fd_cpu_gemm_team(nt, p->xdt, pl.kg, pl.l, pl.cg, a->alpha, w_of(p, &pl, a->w, g), p->ws[0],
                        p->ws[1], fd_cpu_at(a->x, n * pl.x_img + g * pl.cg * p->xs[1], pl.es),
                        pl.x_rs, pl.x_cs, a->beta,
                        fd_cpu_at(a->out, n * pl.y_img + g * pl.kg * p->ys[1], pl.es), pl.y_rs,
                        pl.y_cs);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t bwd_data_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    plan_t pl;
    plan_make(p, &pl);
    const int nt = team_for(pl.cg, pl.l, pl.kg);
    for (int64_t n = 0; n < pl.images; n++)
        for (int64_t g = 0; g < p->groups; g++)
            fd_cpu_gemm_team(
                nt, p->xdt, pl.cg, pl.l, pl.kg, a->alpha, w_of(p, &pl, a->w, g), p->ws[1], p->ws[0],
                fd_cpu_at(a->y, n * pl.y_img + g * pl.kg * p->ys[1], pl.es), pl.y_rs, pl.y_cs,
                a->beta, fd_cpu_at(a->out, n * pl.x_img + g * pl.cg * p->xs[1], pl.es), pl.x_rs,
                pl.x_cs);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t bwd_filter_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    plan_t pl;
    plan_make(p, &pl);
    const int nt = team_for(pl.kg, pl.cg, pl.l);
    for (int64_t g = 0; g < p->groups; g++) {
        void *dw = fd_cpu_at(a->out, g * pl.kg * p->ws[0], pl.es);
        for (int64_t n = 0; n < pl.images; n++)
            fd_cpu_gemm_team(nt, p->xdt, pl.kg, pl.cg, pl.l, a->alpha,
                             fd_cpu_at(a->y, n * pl.y_img + g * pl.kg * p->ys[1], pl.es), pl.y_rs,
                             pl.y_cs, fd_cpu_at(a->x, n * pl.x_img + g * pl.cg * p->xs[1], pl.es),
                             pl.x_cs, pl.x_rs, n == 0 ? a->beta : 1.0, dw, p->ws[0], p->ws[1]);
    }
    return CUDNN_STATUS_SUCCESS;
}

/* One row per direction and data type (the determinism flag differs: src/impls.def). */
#define ONE_ROW(dir, sfx, dt)                                                                      \
    int fd_conv_##dir##_1x1_##sfx##_applicable(const fd_conv_problem_t *p, char *why,              \
                                               size_t why_size)                                    \
    {                                                                                              \
        return one_applicable(p, dt, why, why_size);                                               \
    }                                                                                              \
    size_t fd_conv_##dir##_1x1_##sfx##_workspace(const fd_conv_problem_t *p)                       \
    {                                                                                              \
        return one_workspace(p);                                                                   \
    }                                                                                              \
    cudnnStatus_t fd_conv_##dir##_1x1_##sfx##_run(const fd_conv_problem_t *p,                      \
                                                  const fd_conv_args_t *a)                         \
    {                                                                                              \
        return dir##_run(p, a);                                                                    \
    }
ONE_ROW(fwd, f32, CUDNN_DATA_FLOAT)
ONE_ROW(fwd, f64, CUDNN_DATA_DOUBLE)
ONE_ROW(bwd_data, f32, CUDNN_DATA_FLOAT)
ONE_ROW(bwd_data, f64, CUDNN_DATA_DOUBLE)
ONE_ROW(bwd_filter, f32, CUDNN_DATA_FLOAT)
ONE_ROW(bwd_filter, f64, CUDNN_DATA_DOUBLE)
