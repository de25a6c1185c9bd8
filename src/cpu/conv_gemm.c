/* SPDX-License-Identifier: MIT */
/*
 * conv_gemm.c - im2col + SGEMM/DGEMM convolution on the cpu backend, all three directions.
 *
 * Serves FWD GEMM and IMPLICIT_PRECOMP_GEMM (the "precomputation" is the whole column matrix),
 * BWD_DATA ALGO_1 and BWD_FILTER ALGO_1 / ALGO_3 (src/impls.def). FLOAT and DOUBLE with any
 * strides, groups, padding, dilation, both modes, 1 to 3 spatial dims; half and bfloat16 are
 * left to the ref rows. One image and one group at a time, so the workspace is bounded by one
 * image: col = (C/G)·T·R·S x P·Q elements, plus a K/G x P·Q staging matrix when y (dy) cannot be
 * handed to BLAS as it is (padded or permuted strides). GEMM mapping per image n, group g:
 *   fwd         y[K/G x PQ]     = w[K/G x CRS] · col[CRS x PQ]
 *   bwd data    col[CRS x PQ]   = w^T[CRS x K/G] · dy[K/G x PQ], then col2im adds into dx
 *   bwd filter  dw[K/G x CRS]  += dy[K/G x PQ] · col^T[PQ x CRS]   (summed over n in order)
 * The rows of col follow the filter's memory order (c, t, r, s for NCHW filters, t, r, s, c for
 * NHWC), so w and dw are dense K/G x CRS matrices in either format; CUDNN_CONVOLUTION's flip is
 * applied by im2col's indexing. Threads: BLAS always runs single-threaded (gemm.c); with more
 * than one of ours (fd_cpu_team_size), each image and group runs on our OpenMP team: forward
 * and bwd data split the GEMM into fixed pieces (then bwd data adds (channel, band of dx rows)
 * items into dx); bwd filter gives each thread whole pieces of col's rows, which it packs and
 * multiplies into the same columns of dw (no barrier).
 * The serial im2col / col2im beside a threaded GEMM held the backward directions near 1.5x
 * on two threads. Each thread owns what it writes and every element is summed in the serial
 * order (taps ascending in col2im; the GEMM split never changes bits), so the result does not
 * depend on the thread count; FLOAT GEMMs are sliced so OpenBLAS's does not either (gemm.h).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gemm.h"
#include "im2col.h"

/* ---- layout of one problem --------------------------------------------------------------- */

typedef struct {
    size_t es;            /* element size */
    int64_t cg, kg;       /* channels per group */
    int64_t taps, crs, l; /* filter taps, rows of col (cg * taps), output positions */
    int64_t y_rs, y_cs;   /* y (dy) of one image and group as a K/G x L view */
    int y_direct;         /* 1: BLAS reads / writes y (dy) in place; 0: staged */
} plan_t;

static void plan_make(const fd_conv_problem_t *p, plan_t *pl)
{
    pl->es = p->xdt == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float);
    pl->cg = p->c / p->groups, pl->kg = p->k / p->groups;
    pl->taps = p->flt[0] * p->flt[1] * p->flt[2];
    pl->crs = pl->cg * pl->taps;
    pl->l = p->out[0] * p->out[1] * p->out[2];
    int64_t unit;
    pl->y_direct = fd_cpu_flat_run(p->out, p->ys + 2, FD_CONV_SPATIAL_MAX, &unit);
    pl->y_rs = p->ys[1], pl->y_cs = unit;
    if (pl->y_direct)
        pl->y_direct = fd_cpu_view_ok(pl->kg, pl->l, &pl->y_rs, &pl->y_cs);
}

/* Element counts of the workspace: col, then the staging matrix when y is not direct. */
static int64_t col_elems(const plan_t *pl)
{
    return pl->crs * pl->l;
}
static int64_t stage_elems(const plan_t *pl)
{
    return pl->y_direct ? 0 : pl->kg * pl->l;
}

static int gemm_applicable(const fd_conv_problem_t *p, cudnnDataType_t dt, char *why,
                           size_t why_size)
{
    if (!fd_cpu_dtype_ok(p, dt, why, why_size))
        return 0;
    plan_t pl;
    plan_make(p, &pl);
    /* w and dw must be dense K x CRS (what fd_filter_strides gives for NCHW and NHWC) */
    int64_t last = 0;
    for (int i = 1; i < 2 + FD_CONV_SPATIAL_MAX; i++)
        last += ((i == 1 ? pl.cg : p->flt[i - 2]) - 1) * p->ws[i];
    if (p->ws[0] != pl.crs || last != pl.crs - 1) {
        snprintf(why, why_size, "filter strides are not a packed NCHW or NHWC layout");
        return 0;
    }
    if (pl.kg > INT_MAX || pl.crs > INT_MAX || pl.l > INT_MAX) {
        snprintf(why, why_size, "a GEMM dimension (K/G %lld, CRS %lld, PQ %lld) exceeds int",
                 (long long)pl.kg, (long long)pl.crs, (long long)pl.l);
        return 0;
    }
    return 1;
}

static size_t gemm_workspace(const fd_conv_problem_t *p)
{
    plan_t pl;
    plan_make(p, &pl);
    return (size_t)(col_elems(&pl) + stage_elems(&pl)) * pl.es;
}

/* ---- typed spans ------------------------------------------------------------------------ */

static void span_zero(size_t es, void *dst, int64_t n)
{
    memset(dst, 0, (size_t)n * es);
}

/* dst[i] = src[i * step], i < n (dst dense). */
static void span_gather(size_t es, void *dst, const void *src, int64_t n, int64_t step)
{
    if (step == 1) {
        memcpy(dst, src, (size_t)n * es);
    } else if (es == sizeof(float)) {
        float *d = dst;
        const float *s = src;
        for (int64_t i = 0; i < n; i++)
            d[i] = s[i * step];
    } else {
        double *d = dst;
        const double *s = src;
        for (int64_t i = 0; i < n; i++)
            d[i] = s[i * step];
    }
}

/* dst[i * step] += src[i], i < n. */
static void span_add(size_t es, void *dst, const void *src, int64_t n, int64_t step)
{
    if (es == sizeof(float)) {
        float *d = dst;
        const float *s = src;
        for (int64_t i = 0; i < n; i++)
            d[i * step] += s[i];
    } else {
        double *d = dst;
        const double *s = src;
        for (int64_t i = 0; i < n; i++)
            d[i * step] += s[i];
    }
}

/* dst[i * step] = beta * dst[i * step] (beta == 0 writes zeros without reading). */
static void span_scale(size_t es, void *dst, int64_t n, int64_t step, double beta)
{
    if (es == sizeof(float)) {
        float *d = dst, b = (float)beta;
        for (int64_t i = 0; i < n; i++)
            d[i * step] = beta == 0.0 ? 0.0f : b * d[i * step];
    } else {
        double *d = dst;
        for (int64_t i = 0; i < n; i++)
            d[i * step] = beta == 0.0 ? 0.0 : beta * d[i * step];
    }
}

/* dst[i * step] = alpha * src[i] + beta * dst[i * step], rounded once (as ref blends). */
static void span_blend(size_t es, void *dst, const void *src, int64_t n, int64_t step, double alpha,
                       double beta)
{
    if (es == sizeof(float)) {
        float *d = dst;
        const float *s = src;
        for (int64_t i = 0; i < n; i++) {
            double v = alpha * s[i];
            if (beta != 0.0)
                v += beta * d[i * step];
            d[i * step] = (float)v;
        }
    } else {
        double *d = dst;
        const double *s = src;
        for (int64_t i = 0; i < n; i++) {
            double v = alpha * s[i];
            if (beta != 0.0)
                v += beta * d[i * step];
            d[i * step] = v;
        }
    }
}

/* ---- im2col / col2im --------------------------------------------------------------------- */

/* Column-matrix row of channel c (within its group) and memory taps tm. */
static inline int64_t col_row(const fd_conv_problem_t *p, int64_t c, const int64_t *tm)
{
    return c * p->ws[1] + tm[0] * p->ws[2] + tm[1] * p->ws[3] + tm[2] * p->ws[4];
}

static inline void split_taps(const fd_conv_problem_t *p, int64_t q, int64_t *tm)
{
    tm[2] = q % p->flt[2];
    tm[1] = (q / p->flt[2]) % p->flt[1];
    tm[0] = q / (p->flt[2] * p->flt[1]);
}

/* Rows [q0, q1) of col[row][l] (dense, pl->l per row; rows in the filter's memory order) from
 * x of image n, channels of group g. */
static void im2col(const fd_conv_problem_t *p, const plan_t *pl, const void *x, int64_t n,
                   int64_t g, void *col, int64_t q0, int64_t q1)
{
    const size_t es = pl->es;
    const int64_t o1n = p->out[1], o2n = p->out[2];
    for (int64_t q = q0; q < q1; q++) {
        int64_t tm[3], lo[3], hi[3];
        const int64_t c = fd_col_coords(p, pl->cg, q, tm);
        for (int d = 0; d < 3; d++)
            fd_col_valid(p, d, fd_col_tap(p, d, tm[d]), &lo[d], &hi[d]);
        char *dst = fd_cpu_at(col, q * pl->l, es);
        const char *src = fd_cpu_at(x, n * p->xs[0] + (g * pl->cg + c) * p->xs[1], es);
        const int64_t t2 = fd_col_tap(p, 2, tm[2]), step = p->stride[2] * p->xs[4];
        const int64_t t0 = fd_col_tap(p, 0, tm[0]), t1 = fd_col_tap(p, 1, tm[1]);
        for (int64_t o0 = 0; o0 < p->out[0]; o0++) {
            if (o0 < lo[0] || o0 >= hi[0]) {
                span_zero(es, fd_cpu_at(dst, o0 * o1n * o2n, es), o1n * o2n);
                continue;
            }
            int64_t i0 = o0 * p->stride[0] - p->pad[0] + t0 * p->dil[0];
            for (int64_t o1 = 0; o1 < o1n; o1++) {
                char *row = fd_cpu_at(dst, (o0 * o1n + o1) * o2n, es);
                if (o1 < lo[1] || o1 >= hi[1]) {
                    span_zero(es, row, o2n);
                    continue;
                }
                int64_t i1 = o1 * p->stride[1] - p->pad[1] + t1 * p->dil[1];
                int64_t i2 = lo[2] * p->stride[2] - p->pad[2] + t2 * p->dil[2];
                span_zero(es, row, lo[2]);
                if (hi[2] > lo[2])
                    span_gather(es, fd_cpu_at(row, lo[2], es),
                                fd_cpu_at(src, i0 * p->xs[2] + i1 * p->xs[3] + i2 * p->xs[4], es),
                                hi[2] - lo[2], step);
                span_zero(es, fd_cpu_at(row, hi[2], es), o2n - hi[2]);
            }
        }
    }
}

static inline int64_t ceil_div(int64_t v, int64_t d)
{
    return v >= 0 ? (v + d - 1) / d : -(-v / d);
}

/* Channel c (within group g) of dx of image n, rows [i1a, i1b) along spatial dim 1 (all of dims
 * 0 and 2) = beta * dx + sum over taps of col (already scaled by alpha), taps added in
 * ascending order whatever the band, so bands never change bits. */
static void col2im_item(const fd_conv_problem_t *p, const plan_t *pl, const void *col, void *dx,
                        int64_t n, int64_t g, double beta, int64_t c, int64_t i1a, int64_t i1b)
{
    const size_t es = pl->es;
    const int64_t o1n = p->out[1], o2n = p->out[2];
    char *base = fd_cpu_at(dx, n * p->xs[0] + (g * pl->cg + c) * p->xs[1], es);
    if (beta != 1.0)
        for (int64_t i0 = 0; i0 < p->in[0]; i0++)
            for (int64_t i1 = i1a; i1 < i1b; i1++)
                span_scale(es, fd_cpu_at(base, i0 * p->xs[2] + i1 * p->xs[3], es), p->in[2],
                           p->xs[4], beta);
    for (int64_t q = 0; q < pl->taps; q++) {
        int64_t tm[3], lo[3], hi[3];
        split_taps(p, q, tm);
        for (int d = 0; d < 3; d++)
            fd_col_valid(p, d, fd_col_tap(p, d, tm[d]), &lo[d], &hi[d]);
        if (hi[2] <= lo[2])
            continue;
        const char *src = fd_cpu_at(col, col_row(p, c, tm) * pl->l, es);
        const int64_t t0 = fd_col_tap(p, 0, tm[0]), t1 = fd_col_tap(p, 1, tm[1]);
        const int64_t t2 = fd_col_tap(p, 2, tm[2]), step = p->stride[2] * p->xs[4];
        /* outputs o1 whose input row o1 * stride - pad + t1 * dil lies in [i1a, i1b) */
        const int64_t off1 = p->pad[1] - t1 * p->dil[1];
        int64_t b1 = ceil_div(i1a + off1, p->stride[1]), e1 = ceil_div(i1b + off1, p->stride[1]);
        b1 = b1 > lo[1] ? b1 : lo[1], e1 = e1 < hi[1] ? e1 : hi[1];
        for (int64_t o0 = lo[0]; o0 < hi[0]; o0++) {
            int64_t i0 = o0 * p->stride[0] - p->pad[0] + t0 * p->dil[0];
            for (int64_t o1 = b1; o1 < e1; o1++) {
                int64_t i1 = o1 * p->stride[1] - p->pad[1] + t1 * p->dil[1];
                int64_t i2 = lo[2] * p->stride[2] - p->pad[2] + t2 * p->dil[2];
                span_add(es, fd_cpu_at(base, i0 * p->xs[2] + i1 * p->xs[3] + i2 * p->xs[4], es),
                         fd_cpu_at(src, (o0 * o1n + o1) * o2n + lo[2], es), hi[2] - lo[2], step);
            }
        }
    }
}

/* ---- staging of y / dy (only for layouts BLAS cannot address) ------------------------------ */

/* Offset of y (dy) element (n, channel k of group g, output position (o0, o1, *)). */
static inline int64_t y_off(const fd_conv_problem_t *p, const plan_t *pl, int64_t n, int64_t g,
                            int64_t k, int64_t o0, int64_t o1)
{
    return n * p->ys[0] + (g * pl->kg + k) * p->ys[1] + o0 * p->ys[2] + o1 * p->ys[3];
}

/* stage[k][l] = dy(n, g, k, l), k in [k0, k1). */
static void stage_pack(const fd_conv_problem_t *p, const plan_t *pl, const void *dy, int64_t n,
                       int64_t g, void *stage, int64_t k0, int64_t k1)
{
    for (int64_t k = k0; k < k1; k++)
        for (int64_t o0 = 0; o0 < p->out[0]; o0++)
            for (int64_t o1 = 0; o1 < p->out[1]; o1++)
                span_gather(
                    pl->es,
                    fd_cpu_at(stage, (k * p->out[0] + o0) * p->out[1] * p->out[2] + o1 * p->out[2],
                              pl->es),
                    fd_cpu_at(dy, y_off(p, pl, n, g, k, o0, o1), pl->es), p->out[2], p->ys[4]);
}

/* y(n, g, k, l) = alpha * stage[k][l] + beta * y(n, g, k, l), k in [k0, k1). */
static void stage_blend(const fd_conv_problem_t *p, const plan_t *pl, const void *stage, void *y,
                        int64_t n, int64_t g, double alpha, double beta, int64_t k0, int64_t k1)
{
    for (int64_t k = k0; k < k1; k++)
        for (int64_t o0 = 0; o0 < p->out[0]; o0++)
            for (int64_t o1 = 0; o1 < p->out[1]; o1++)
                span_blend(pl->es, fd_cpu_at(y, y_off(p, pl, n, g, k, o0, o1), pl->es),
                           fd_cpu_at(stage,
                                     (k * p->out[0] + o0) * p->out[1] * p->out[2] + o1 * p->out[2],
                                     pl->es),
                           p->out[2], p->ys[4], alpha, beta);
}

/* ---- the three directions ---------------------------------------------------------------- */

/* The fixed split of each image's GEMM (gemm.h: pieces depend on the shape, never on the thread
 * count): one piece below GEMM_TEAM_MACS, where a parallel region costs more than it saves. */
#define GEMM_TEAM_MACS (1 << 20)
static int small_gemm(const plan_t *pl)
{
    return pl->kg * pl->crs * pl->l < GEMM_TEAM_MACS;
}

/* Our team when there is more than one piece (1: the loops below on this thread). */
static int team_of(int parts)
{
    return parts > 1 ? fd_cpu_team_size() : 1;
}

#ifdef _OPENMP
#define TEAM_ID() omp_get_thread_num()
#define TEAM_N() omp_get_num_threads()
#else
#define TEAM_ID() 0
#define TEAM_N() 1
#endif

/* The work of one image and group, written for a team: called inside `omp parallel` or, with
 * one thread, directly (the orphaned barriers and loops then run as one thread's). */
typedef struct {
    const fd_conv_problem_t *p;
    const fd_conv_args_t *a;
    const plan_t *pl;
    void *col, *stage;
    int64_t n, g;
    int parts;     /* pieces of the GEMM (fwd, bwd data) or of col's rows (bwd filter) */
    int64_t bands; /* bwd data: col2im items per channel */
} job_t;

static void fwd_job(const job_t *j)
{
    const fd_conv_problem_t *p = j->p;
    const fd_conv_args_t *a = j->a;
    const plan_t *pl = j->pl;
    const int tid = TEAM_ID(), tn = TEAM_N();
    const void *w = fd_cpu_at(a->w, j->g * pl->kg * p->ws[0], pl->es);
    void *y = fd_cpu_at(a->out, j->n * p->ys[0] + j->g * pl->kg * p->ys[1], pl->es);
    int64_t lo, hi;
    fd_cpu_part(pl->crs, 1, tn, tid, &lo, &hi);
    im2col(p, pl, a->x, j->n, j->g, j->col, lo, hi);
#pragma omp barrier
    const int first = j->parts * tid / tn, last = j->parts * (tid + 1) / tn;
    if (pl->y_direct) {
        fd_cpu_gemm_pieces(first, last, j->parts, p->xdt, pl->kg, pl->l, pl->crs, a->alpha, w,
                           pl->crs, 1, j->col, pl->l, 1, a->beta, y, pl->y_rs, pl->y_cs);
        return;
    }
    fd_cpu_gemm_pieces(first, last, j->parts, p->xdt, pl->kg, pl->l, pl->crs, 1.0, w, pl->crs, 1,
                       j->col, pl->l, 1, 0.0, j->stage, pl->l, 1);
#pragma omp barrier
    fd_cpu_part(pl->kg, 1, tn, tid, &lo, &hi);
    stage_blend(p, pl, j->stage, a->out, j->n, j->g, a->alpha, a->beta, lo, hi);
}

static void bwd_data_job(const job_t *j)
{
    const fd_conv_problem_t *p = j->p;
    const fd_conv_args_t *a = j->a;
    const plan_t *pl = j->pl;
    const int tid = TEAM_ID(), tn = TEAM_N();
    const void *w = fd_cpu_at(a->w, j->g * pl->kg * p->ws[0], pl->es);
    const void *dy = fd_cpu_at(a->y, j->n * p->ys[0] + j->g * pl->kg * p->ys[1], pl->es);
    int64_t dy_rs = pl->y_rs, dy_cs = pl->y_cs;
    if (!pl->y_direct) {
        int64_t lo, hi;
        fd_cpu_part(pl->kg, 1, tn, tid, &lo, &hi);
        stage_pack(p, pl, a->y, j->n, j->g, j->stage, lo, hi);
        dy = j->stage, dy_rs = pl->l, dy_cs = 1;
#pragma omp barrier
    }
    fd_cpu_gemm_pieces(j->parts * tid / tn, j->parts * (tid + 1) / tn, j->parts, p->xdt, pl->crs,
                       pl->l, pl->kg, a->alpha, w, 1, pl->crs, dy, dy_rs, dy_cs, 0.0, j->col, pl->l,
                       1);
#pragma omp barrier
#pragma omp for schedule(dynamic, 1)
    for (int64_t it = 0; it < pl->cg * j->bands; it++) {
        const int64_t c = it / j->bands, b = it % j->bands;
        col2im_item(p, pl, j->col, a->out, j->n, j->g, a->beta, c, p->in[1] * b / j->bands,
                    p->in[1] * (b + 1) / j->bands);
    }
}

/* Thread t takes whole pieces of col's rows: packs them and computes the same columns of dw, so
 * no thread waits for another. */
static void bwd_filter_job(const job_t *j)
{
    const fd_conv_problem_t *p = j->p;
    const fd_conv_args_t *a = j->a;
    const plan_t *pl = j->pl;
    const int tid = TEAM_ID(), tn = TEAM_N();
    void *dw = fd_cpu_at(a->out, j->g * pl->kg * p->ws[0], pl->es);
    const void *dy = fd_cpu_at(a->y, j->n * p->ys[0] + j->g * pl->kg * p->ys[1], pl->es);
    int64_t dy_rs = pl->y_rs, dy_cs = pl->y_cs;
    if (!pl->y_direct) {
        int64_t lo, hi;
        fd_cpu_part(pl->kg, 1, tn, tid, &lo, &hi);
        stage_pack(p, pl, a->y, j->n, j->g, j->stage, lo, hi);
        dy = j->stage, dy_rs = pl->l, dy_cs = 1;
#pragma omp barrier
    }
    const double beta = j->n == 0 ? a->beta : 1.0;
    for (int i = j->parts * tid / tn; i < j->parts * (tid + 1) / tn; i++) {
        int64_t lo, hi;
        fd_cpu_part(pl->crs, 16, j->parts, i, &lo, &hi);
        if (hi <= lo)
            continue;
        im2col(p, pl, a->x, j->n, j->g, j->col, lo, hi);
        fd_cpu_gemm(p->xdt, pl->kg, hi - lo, pl->l, a->alpha, dy, dy_rs, dy_cs,
                    fd_cpu_at(j->col, lo * pl->l, pl->es), 1, pl->l, beta,
                    fd_cpu_at(dw, lo, pl->es), pl->crs, 1);
    }
}

/* Every image and group of direction `job` on a team of nt (one: directly). */
static void run_jobs(const fd_conv_problem_t *p, const fd_conv_args_t *a, const plan_t *pl,
                     void (*job)(const job_t *), int parts, int64_t bands, int group_outer)
{
    job_t j = {p, a, pl,    a->workspace, fd_cpu_at(a->workspace, col_elems(pl), pl->es),
               0, 0, parts, bands};
    const int nt = team_of(parts);
    if (nt > 1)
        fd_cpu_blas_serial_begin();
    const int64_t outer = group_outer ? p->groups : p->n, inner = group_outer ? p->n : p->groups;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            j.n = group_outer ? i : o, j.g = group_outer ? o : i;
            if (nt == 1) {
                job(&j);
                continue;
            }
#pragma omp parallel num_threads(nt)
            job(&j);
        }
    if (nt > 1)
        fd_cpu_blas_serial_end();
}

/* col2im items per channel: bands of dx rows (dim 1) when there are too few channels to share
 * among the team (conv1: 3). Bands never change bits (col2im_item). */
static int64_t col2im_bands(const fd_conv_problem_t *p, const plan_t *pl)
{
    int64_t want = (16 + pl->cg - 1) / pl->cg;
    return want < 1 ? 1 : want > p->in[1] ? p->in[1] : want;
}

static cudnnStatus_t fwd_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    plan_t pl;
    plan_make(p, &pl);
    /* Our team over fixed pieces, as the backward directions: BLAS's own threads gave other
     * bits at other thread counts on OpenBLAS's Haswell kernels (gemm.c). */
    run_jobs(p, a, &pl, fwd_job, small_gemm(&pl) ? 1 : fd_cpu_gemm_parts(pl.kg, pl.l), 1, 0);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t bwd_data_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    plan_t pl;
    plan_make(p, &pl);
    run_jobs(p, a, &pl, bwd_data_job, small_gemm(&pl) ? 1 : fd_cpu_gemm_parts(pl.crs, pl.l),
             col2im_bands(p, &pl), 0);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t bwd_filter_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    plan_t pl;
    plan_make(p, &pl);
    run_jobs(p, a, &pl, bwd_filter_job, small_gemm(&pl) ? 1 : fd_cpu_split_parts(pl.crs), 1, 1);
    return CUDNN_STATUS_SUCCESS;
}

/* One row per direction and data type (the determinism flag differs: src/impls.def). */
#define GEMM_ROW(dir, sfx, dt)                                                                     \
    int fd_conv_##dir##_gemm_##sfx##_applicable(const fd_conv_problem_t *p, char *why,             \
                                                size_t why_size)                                   \
    {                                                                                              \
        return gemm_applicable(p, dt, why, why_size);                                              \
    }                                                                                              \
    size_t fd_conv_##dir##_gemm_##sfx##_workspace(const fd_conv_problem_t *p)                      \
    {                                                                                              \
        return gemm_workspace(p);                                                                  \
    }                                                                                              \
    cudnnStatus_t fd_conv_##dir##_gemm_##sfx##_run(const fd_conv_problem_t *p,                     \
                                                   const fd_conv_args_t *a)                        \
    {                                                                                              \
        return dir##_run(p, a);                                                                    \
    }
GEMM_ROW(fwd, f32, CUDNN_DATA_FLOAT)
GEMM_ROW(fwd, f64, CUDNN_DATA_DOUBLE)
GEMM_ROW(bwd_data, f32, CUDNN_DATA_FLOAT)
GEMM_ROW(bwd_data, f64, CUDNN_DATA_DOUBLE)
GEMM_ROW(bwd_filter, f32, CUDNN_DATA_FLOAT)
GEMM_ROW(bwd_filter, f64, CUDNN_DATA_DOUBLE)
