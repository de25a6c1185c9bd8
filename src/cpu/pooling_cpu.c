/* SPDX-License-Identifier: MIT */
/*
 * pooling_cpu.c - cpu pooling forward and backward (FD_OP_POOL_FWD / _BWD cpu rows), every mode,
 * 1 to 3 spatial dims, any non-negative strides, FLOAT, DOUBLE, HALF, BFLOAT16. No workspace.
 *
 * Results are the ref's bit for bit (src/ref/pooling_ref.c, semantics in src/core/pooling.h),
 * for every mode including the averages: each output keeps the ref's order of operations (max
 * with the first-maximum tie rule and the NaN option, sums in double in D, H, W window order,
 * the same divisor, one rounding), so only the loop nest around it changes. One exception, a
 * product decision of 2026-11-30: FLOAT averages on the AVX-512 paths sum in float (the box
 * rows near the end of the file, stride 1 along W, both directions; forward also the lanes
 * along W of other strides and the NHWC streamed rows): within the f32 accumulation bound of
 * docs/testing.md, the ref's bits on integer fills forward.
 * Vectorisation: a block computes up to FD_CPU_BLK outputs at once ("lanes"), along C when C is
 * the smaller stride of x (NHWC; also when output rows are short) and along the innermost
 * spatial dim otherwise (NCHW: lane j is output w0 + j, its input a strided run of x). The
 * window loop is outside the lane loop, so each lane still visits its window in the ref's order.
 * Backward is a gather, as in the ref: each dx element sums its windows in ascending output
 * order. Max backward re-derives the argmax of each window from x (y is not read), per lane
 * along C; along W each window's argmax is found once per block and credited to the lane that
 * holds it, which is the same sum in the same order.
 * Threads: blocks are fixed by the problem (not the thread count) and each writes its own
 * outputs, so results do not depend on OMP_NUM_THREADS.
 * FLOAT problems with unit-stride W or C run the f32 AVX-512 paths at the end of the file
 * instead (same bits but for the FLOAT average forward and the box rows; see there); the
 * double blocks serve everything else, and every problem on a CPU without AVX-512
 * (FREEDNN_CPU_ISA=avx2|generic forces that).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3,fp-contract=off")
#endif
#include <float.h>
#include <stdlib.h>

#include "../core/pooling.h"
#include "memop.h"
#include "pool_avx2.h"

#define NSP FD_POOL_SPATIAL_MAX
#define BLK FD_CPU_BLK

static double lowest_finite(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE:
        return -DBL_MAX;
    case CUDNN_DATA_HALF:
        return -65504.0;
    case CUDNN_DATA_BFLOAT16:
        return -0x1.fep127;
    default:
        return -FLT_MAX;
    }
}

static int64_t floor_div(int64_t a, int64_t b) /* b > 0 */
{
    if (b == 1) /* strides 1 and 2 without a division (the rows call it per row: NCHW 3x3 / 2
                 * max backward in cache, n1c4h112w112, 0.037 -> 0.0355 ms) */
        return a;
    if (b == 2)
        return a >= 0 ? a / 2 : -((-a + 1) / 2);
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static int64_t ceil_div(int64_t a, int64_t b) /* b > 0 */
{
    return -floor_div(-a, b);
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int is_max(const fd_pool_problem_t *p)
{
    return p->mode == CUDNN_POOLING_MAX || p->mode == CUDNN_POOLING_MAX_DETERMINISTIC;
}

/* Window o along dim d: readable positions [*lo, *hi), and the readable / padded counts. */
static void win_dim(const fd_pool_problem_t *p, int d, int64_t o, int64_t *lo, int64_t *hi,
                    int64_t *readable, int64_t *padded)
{
    int64_t start = o * p->stride[d] - p->pad[d], end = start + p->win[d];
    int64_t rlo = max64(0, -p->pad[d]), rhi = min64(p->in[d], p->in[d] + p->pad[d]);
    *lo = max64(start, rlo);
    *hi = min64(end, rhi);
    *readable = max64(0, *hi - *lo);
    *padded = max64(0, min64(end, p->in[d] + p->pad[d]) - max64(start, -p->pad[d]));
}

/* The divisor of an average window from its per-dim counts, in the ref's order. */
static double count_of(const fd_pool_problem_t *p, const int64_t *r, const int64_t *pd)
{
    const int64_t *c = p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? pd : r;
    double w = 1;
    for (int d = 0; d < NSP; d++)
        w *= (double)c[d];
    return w;
}

/* 1 when lanes run along C. */
static int lanes_along_c(const int64_t *xs, int64_t rowlen)
{
    return xs[1] < xs[4] || rowlen < 16;
}

static int plan(const fd_pool_problem_t *p, int bwd, char *why, size_t why_size)
{
    if (!fd_cpu_dtype_ok(p->dt)) {
        snprintf(why, why_size, "%s stays with ref", fd_dtype_name(p->dt));
        return 0;
    }
    for (int i = 0; i < 2 + NSP; i++)
        if (p->xs[i] < 0 || p->ys[i] < 0 || (bwd && (p->dys[i] < 0 || p->dxs[i] < 0))) {
            snprintf(why, why_size, "negative strides");
            return 0;
        }
    return 1;
}

/* The f32 AVX-512 paths at the end of the file; 1 when one ran. */
static int pf_run(const fd_pool_problem_t *p, const fd_pool_args_t *a, int bwd);

static const char *at(const void *base, cudnnDataType_t dt, int64_t off)
{
    return (const char *)base + off * (int64_t)fd_dtype_size(dt);
}

/* ---- forward ------------------------------------------------------------------------------ */

/* Max / sum of one window position's values into the lanes' accumulators. */
FD_CPU_CLONES static void combine(int mx, int prop, int n, const double *restrict v,
                                  double *restrict acc)
{
    if (mx) {
        if (prop)
            for (int j = 0; j < n; j++)
                acc[j] = acc[j] == acc[j] && (v[j] > acc[j] || v[j] != v[j]) ? v[j] : acc[j];
        else
            for (int j = 0; j < n; j++)
                acc[j] = v[j] > acc[j] ? v[j] : acc[j];
    } else {
        for (int j = 0; j < n; j++)
            acc[j] += v[j];
    }
}

/* Outputs (n, c0 .. c0+len, o): lanes along C. */
static void fwd_block_c(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t n, int64_t c0,
                        int len, const int64_t *o)
{
    const int mx = is_max(p);
    double acc[BLK], v[BLK];
    int64_t lo[NSP], hi[NSP], r[NSP], pd[NSP];
    for (int d = 0; d < NSP; d++)
        win_dim(p, d, o[d], &lo[d], &hi[d], &r[d], &pd[d]);
    const double init = mx ? lowest_finite(p->dt) : 0.0;
    for (int j = 0; j < len; j++)
        acc[j] = init;
    const int64_t *s = p->xs;
    for (int64_t i0 = lo[0]; i0 < hi[0]; i0++)
        for (int64_t i1 = lo[1]; i1 < hi[1]; i1++)
            for (int64_t i2 = lo[2]; i2 < hi[2]; i2++) {
                int64_t off = n * s[0] + c0 * s[1] + i0 * s[2] + i1 * s[3] + i2 * s[4];
                fd_cpu_load(p->dt, at(a->x, p->dt, off), s[1], len, v);
                combine(mx, p->propagate_nan, len, v, acc);
            }
    if (!mx) {
        double cnt = count_of(p, r, pd);
        for (int j = 0; j < len; j++)
            acc[j] = cnt > 0 ? acc[j] / cnt : 0.0;
    }
    const int64_t *t = p->ys;
    int64_t yo = n * t[0] + c0 * t[1] + o[0] * t[2] + o[1] * t[3] + o[2] * t[4];
    fd_cpu_store(p->dt, (char *)at(a->out, p->dt, yo), t[1], len, acc, a->alpha, a->beta);
}

/* Outputs (n, c, o0, o1, w0 .. w0+len): lanes along the innermost spatial dim. */
static void fwd_block_w(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t n, int64_t c,
                        const int64_t *o, int64_t w0, int len)
{
    const int mx = is_max(p);
    double acc[BLK], v[BLK];
    int64_t lo[NSP], hi[NSP], r[NSP], pd[NSP];
    for (int d = 0; d < 2; d++)
        win_dim(p, d, o[d], &lo[d], &hi[d], &r[d], &pd[d]);
    const double init = mx ? lowest_finite(p->dt) : 0.0;
    for (int j = 0; j < len; j++)
        acc[j] = init;
    const int64_t *s = p->xs;
    const int64_t st = p->stride[2], pad = p->pad[2];
    const int64_t rlo = max64(0, -pad), rhi = min64(p->in[2], p->in[2] + pad);
    for (int64_t i0 = lo[0]; i0 < hi[0]; i0++)
        for (int64_t i1 = lo[1]; i1 < hi[1]; i1++)
            for (int64_t k = 0; k < p->win[2]; k++) {
                /* lane j reads i2 = (w0 + j) * st - pad + k; keep rlo <= i2 < rhi */
                int64_t b = w0 * st - pad + k;
                int64_t jlo = max64(0, ceil_div(rlo - b, st));
                int64_t jhi = min64(len, ceil_div(rhi - b, st));
                if (jlo >= jhi)
                    continue;
                int64_t off = n * s[0] + c * s[1] + i0 * s[2] + i1 * s[3] + (b + jlo * st) * s[4];
                fd_cpu_load(p->dt, at(a->x, p->dt, off), st * s[4], (int)(jhi - jlo), v);
                combine(mx, p->propagate_nan, (int)(jhi - jlo), v, acc + jlo);
            }
    if (!mx)
        for (int j = 0; j < len; j++) {
            int64_t l2, h2;
            win_dim(p, 2, w0 + j, &l2, &h2, &r[2], &pd[2]);
            double cnt = count_of(p, r, pd);
            acc[j] = cnt > 0 ? acc[j] / cnt : 0.0;
        }
    const int64_t *t = p->ys;
    int64_t yo = n * t[0] + c * t[1] + o[0] * t[2] + o[1] * t[3] + w0 * t[4];
    fd_cpu_store(p->dt, (char *)at(a->out, p->dt, yo), t[4], len, acc, a->alpha, a->beta);
}

int fd_pool_fwd_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    return plan(problem, 0, why, why_size);
}

size_t fd_pool_fwd_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

typedef void (*block_c_fn)(const fd_pool_problem_t *, const fd_pool_args_t *, int64_t, int64_t, int,
                           const int64_t *);
typedef void (*block_w_fn)(const fd_pool_problem_t *, const fd_pool_args_t *, int64_t, int64_t,
                           const int64_t *, int64_t, int);

/* Both directions: the written tensor (y forward, dx backward; spatial extent sp, strides st)
 * is cut into units of up to BLK lanes, along C when C is its unit stride (NHWC) and along W
 * otherwise; the units are fixed by the problem, not the thread count, and each writes only its
 * own outputs, so the bits do not depend on OMP_NUM_THREADS. */
static void walk_blocks(const fd_pool_problem_t *p, const fd_pool_args_t *a, const int64_t *sp,
                        const int64_t *st, block_c_fn block_c, block_w_fn block_w)
{
    const int lc = lanes_along_c(st, sp[2]);
    const int64_t lanes = lc ? p->c : sp[2];
    const int64_t nb = (lanes + BLK - 1) / BLK;
    /* units: (n, outer dims, lane block), the lane block fastest */
    const int64_t outer = lc ? sp[0] * sp[1] * sp[2] : p->c * sp[0] * sp[1];
    const int64_t units = p->n * outer * nb;
    const int64_t work = p->n * p->c * sp[0] * sp[1] * sp[2];
#pragma omp parallel for schedule(static) if (work >= FD_CPU_PAR_MIN / 4)
    for (int64_t u = 0; u < units; u++) {
        int64_t b = u % nb, rest = u / nb;
        int64_t l0 = b * BLK;
        int len = (int)min64(BLK, lanes - l0);
        int64_t o[NSP];
        if (lc) {
            o[2] = rest % sp[2], rest /= sp[2];
            o[1] = rest % sp[1], rest /= sp[1];
            o[0] = rest % sp[0];
            block_c(p, a, rest / sp[0], l0, len, o);
        } else {
            o[1] = rest % sp[1], rest /= sp[1];
            o[0] = rest % sp[0], rest /= sp[0];
            o[2] = 0; /* unused: the lanes are the W positions */
            block_w(p, a, rest / p->c, rest % p->c, o, l0, len);
        }
    }
}

cudnnStatus_t fd_pool_fwd_cpu_run(const void *problem, const void *args)
{
    const fd_pool_problem_t *p = problem;
    if (!pf_run(p, args, 0) && !fd_pool_avx2_nchw_run(p, args, 0) &&
        !fd_pool_avx2_nhwc_run(p, args, 0))
        walk_blocks(p, args, p->out, p->xs, fwd_block_c, fwd_block_w);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- backward ----------------------------------------------------------------------------- */

/* Windows containing input i along dim d: [*olo, *ohi]; 0 when none or i is unreadable. */
static int windows_of(const fd_pool_problem_t *p, int d, int64_t i, int64_t *olo, int64_t *ohi)
{
    int64_t rlo = max64(0, -p->pad[d]), rhi = min64(p->in[d], p->in[d] + p->pad[d]);
    *olo = max64(0, floor_div(i + p->pad[d] - p->win[d], p->stride[d]) + 1);
    *ohi = min64(p->out[d] - 1, floor_div(i + p->pad[d], p->stride[d]));
    return i >= rlo && i < rhi && *olo <= *ohi;
}

/* dx (n, c0 .. c0+len, i): lanes along C. */
static void bwd_block_c(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t n, int64_t c0,
                        int len, const int64_t *i)
{
    const int mx = is_max(p), prop = p->propagate_nan;
    const double init = lowest_finite(p->dt);
    double acc[BLK], g[BLK], v[BLK], m[BLK];
    unsigned char fnd[BLK], hit[BLK], done[BLK];
    int64_t olo[NSP], ohi[NSP], o[NSP];
    int any = 1;
    for (int d = 0; d < NSP; d++)
        any &= windows_of(p, d, i[d], &olo[d], &ohi[d]);
    for (int j = 0; j < len; j++)
        acc[j] = 0.0;
    const int64_t *s = p->xs, *t = p->dys;
    for (o[0] = olo[0]; any && o[0] <= ohi[0]; o[0]++)
        for (o[1] = olo[1]; o[1] <= ohi[1]; o[1]++)
            for (o[2] = olo[2]; o[2] <= ohi[2]; o[2]++) {
                int64_t lo[NSP], hi[NSP], r[NSP], pd[NSP];
                for (int d = 0; d < NSP; d++)
                    win_dim(p, d, o[d], &lo[d], &hi[d], &r[d], &pd[d]);
                int64_t go = n * t[0] + c0 * t[1] + o[0] * t[2] + o[1] * t[3] + o[2] * t[4];
                fd_cpu_load(p->dt, at(a->dy, p->dt, go), t[1], len, g);
                if (!mx) {
                    double cnt = count_of(p, r, pd);
                    for (int j = 0; j < len; j++)
                        acc[j] += g[j] / cnt;
                    continue;
                }
                for (int j = 0; j < len; j++)
                    m[j] = init, fnd[j] = 0, hit[j] = 0, done[j] = 0;
                int64_t k[NSP];
                for (k[0] = lo[0]; k[0] < hi[0]; k[0]++)
                    for (k[1] = lo[1]; k[1] < hi[1]; k[1]++)
                        for (k[2] = lo[2]; k[2] < hi[2]; k[2]++) {
                            int64_t off =
                                n * s[0] + c0 * s[1] + k[0] * s[2] + k[1] * s[3] + k[2] * s[4];
                            fd_cpu_load(p->dt, at(a->x, p->dt, off), s[1], len, v);
                            unsigned char here = k[0] == i[0] && k[1] == i[1] && k[2] == i[2];
                            for (int j = 0; j < len; j++) {
                                if (done[j])
                                    continue;
                                if (v[j] != v[j]) {
                                    if (prop)
                                        hit[j] = here, fnd[j] = 1, done[j] = 1;
                                    continue;
                                }
                                if (fnd[j] ? v[j] > m[j] : v[j] >= m[j])
                                    m[j] = v[j], hit[j] = here, fnd[j] = 1;
                            }
                        }
                for (int j = 0; j < len; j++)
                    if (fnd[j] && hit[j])
                        acc[j] += g[j];
            }
    const int64_t *q = p->dxs;
    int64_t xo = n * q[0] + c0 * q[1] + i[0] * q[2] + i[1] * q[3] + i[2] * q[4];
    fd_cpu_store(p->dt, (char *)at(a->out, p->dt, xo), q[1], len, acc, a->alpha, a->beta);
}

/* Argmax keys (i0 * in1 + i1) * in2 + i2, or -1, of windows (o0, o1, o2 .. o2+cnt) of x (n, c):
 * the ref's window_max per lane, the window loop outside the lanes as in fwd_block_w. */
static void argmax_lanes(const fd_pool_problem_t *p, const void *x, int64_t n, int64_t c,
                         const int64_t *o, int64_t o2, int cnt, int64_t *key)
{
    const int prop = p->propagate_nan;
    double m[BLK], v[BLK];
    unsigned char fnd[BLK], done[BLK];
    int64_t lo[NSP], hi[NSP], r, pd;
    for (int d = 0; d < 2; d++)
        win_dim(p, d, o[d], &lo[d], &hi[d], &r, &pd);
    const double init = lowest_finite(p->dt);
    for (int j = 0; j < cnt; j++)
        m[j] = init, fnd[j] = 0, done[j] = 0, key[j] = -1;
    const int64_t *s = p->xs;
    const int64_t st = p->stride[2], pad = p->pad[2];
    const int64_t rlo = max64(0, -pad), rhi = min64(p->in[2], p->in[2] + pad);
    for (int64_t i0 = lo[0]; i0 < hi[0]; i0++)
        for (int64_t i1 = lo[1]; i1 < hi[1]; i1++)
            for (int64_t k = 0; k < p->win[2]; k++) {
                int64_t b = o2 * st - pad + k;
                int64_t jlo = max64(0, ceil_div(rlo - b, st));
                int64_t jhi = min64(cnt, ceil_div(rhi - b, st));
                if (jlo >= jhi)
                    continue;
                int64_t off = n * s[0] + c * s[1] + i0 * s[2] + i1 * s[3] + (b + jlo * st) * s[4];
                fd_cpu_load(p->dt, at(x, p->dt, off), st * s[4], (int)(jhi - jlo), v + jlo);
                int64_t kb = (i0 * p->in[1] + i1) * p->in[2] + b;
                for (int64_t j = jlo; j < jhi; j++) {
                    if (done[j])
                        continue;
                    if (v[j] != v[j]) {
                        if (prop)
                            key[j] = kb + j * st, fnd[j] = 1, done[j] = 1;
                        continue;
                    }
                    if (fnd[j] ? v[j] > m[j] : v[j] >= m[j])
                        m[j] = v[j], key[j] = kb + j * st, fnd[j] = 1;
                }
            }
}

/* dx (n, c, i0, i1, w0 .. w0+len): lanes along the innermost spatial dim. */
static void bwd_block_w(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t n, int64_t c,
                        const int64_t *i, int64_t w0, int len)
{
    const int mx = is_max(p);
    double acc[BLK];
    int64_t olo[NSP], ohi[NSP], o[NSP];
    for (int j = 0; j < len; j++)
        acc[j] = 0.0;
    int any = windows_of(p, 0, i[0], &olo[0], &ohi[0]) & windows_of(p, 1, i[1], &olo[1], &ohi[1]);
    /* the lanes whose input is readable, and the windows along W touching any of them */
    const int64_t st = p->stride[2], pad = p->pad[2], win = p->win[2];
    const int64_t rlo = max64(0, -pad), rhi = min64(p->in[2], p->in[2] + pad);
    const int64_t jlo = max64(0, rlo - w0), jhi = min64(len, rhi - w0);
    if (jlo >= jhi)
        any = 0;
    else {
        olo[2] = max64(0, floor_div(w0 + jlo + pad - win, st) + 1);
        ohi[2] = min64(p->out[2] - 1, floor_div(w0 + jhi - 1 + pad, st));
    }
    const int64_t *t = p->dys;
    for (o[0] = olo[0]; any && o[0] <= ohi[0]; o[0]++)
        for (o[1] = olo[1]; o[1] <= ohi[1]; o[1]++) {
            int64_t grow = n * t[0] + c * t[1] + o[0] * t[2] + o[1] * t[3];
            int64_t l, h, r0 = 0, pd0 = 0, r1 = 0, pd1 = 0;
            if (!mx) {
                win_dim(p, 0, o[0], &l, &h, &r0, &pd0);
                win_dim(p, 1, o[1], &l, &h, &r1, &pd1);
            }
            if (mx) {
                /* each window's argmax once, credited to the lane holding it, in o2 order */
                const int64_t row = (i[0] * p->in[1] + i[1]) * p->in[2];
                for (int64_t b0 = olo[2]; b0 <= ohi[2]; b0 += BLK) {
                    int cnt = (int)min64(BLK, ohi[2] + 1 - b0);
                    int64_t key[BLK];
                    argmax_lanes(p, a->x, n, c, o, b0, cnt, key);
                    for (int q = 0; q < cnt; q++) {
                        int64_t j = key[q] - row - w0;
                        if (key[q] >= 0 && j >= jlo && j < jhi)
                            acc[j] += fd_load(p->dt, a->dy, grow + (b0 + q) * t[4]);
                    }
                }
                continue;
            }
            for (o[2] = olo[2]; o[2] <= ohi[2]; o[2]++) {
                double g = fd_load(p->dt, a->dy, grow + o[2] * t[4]);
                int64_t r2, pd2;
                win_dim(p, 2, o[2], &l, &h, &r2, &pd2);
                const int64_t rr[NSP] = {r0, r1, r2}, pp[NSP] = {pd0, pd1, pd2};
                double val = g / count_of(p, rr, pp);
                /* lanes inside window o[2]: o2 * st - pad <= w0 + j < o2 * st - pad + win */
                int64_t a0 = max64(jlo, o[2] * st - pad - w0);
                int64_t a1 = min64(jhi, o[2] * st - pad + win - w0);
                for (int64_t j = a0; j < a1; j++)
                    acc[j] += val;
            }
        }
    const int64_t *q = p->dxs;
    int64_t xo = n * q[0] + c * q[1] + i[0] * q[2] + i[1] * q[3] + w0 * q[4];
    fd_cpu_store(p->dt, (char *)at(a->out, p->dt, xo), q[4], len, acc, a->alpha, a->beta);
}

int fd_pool_bwd_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    return plan(problem, 1, why, why_size);
}

size_t fd_pool_bwd_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_pool_bwd_cpu_run(const void *problem, const void *args)
{
    const fd_pool_problem_t *p = problem;
    if (!pf_run(p, args, 1) && !fd_pool_avx2_nchw_run(p, args, 1) &&
        !fd_pool_avx2_nhwc_run(p, args, 1))
        walk_blocks(p, args, p->in, p->dxs, bwd_block_c, bwd_block_w);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- f32 AVX-512 paths -------------------------------------------------------------------- */

/* FLOAT problems whose lanes can be vector loads: W-unit-stride tensors (NCHW, padded rows;
 * 16 lanes along the output row) and C-unit-stride tensors (NHWC; lanes along C, 64 channels
 * per step). Each output is the ref's value by the same operations in the same order, as in
 * the double blocks above, so the bits are the ref's on every fill:
 * - max: float compares are exact, so the maximum runs in float. The accumulator starts at
 *   -inf and takes v when v > acc (vmaxps(v, acc) returns acc on NaN and on ties), which is
 *   the ref's rule (start at -FLT_MAX, first value taken when >= it, later ones when >) after
 *   a final max with -FLT_MAX; PROPAGATE_NAN ORs a NaN mask per lane. Splitting a window into
 *   its rows and folding the row maxima in order (ties keep the earlier) keeps the rule.
 * - average forward: NOT the ref's bits in general (within the box rows' bound, see there):
 *   each lane sums in float from +0.0 in window order (masked-out lanes add +0.0, exact: the
 *   running sum is never -0), so only each add's rounding differs from the ref's double sum;
 *   divided as the box rows (alpha 1, beta 0: pf_divf in float; otherwise the float sum in
 *   double through pf_div and the double blend). Lanes whose float sum is not finite (inf /
 *   NaN taps, or a float overflow the ref's double does not have) are not stored by the
 *   vector and are recomputed by the ref's formula (pf_fwd_one_w, pf_box_fwd_exact). 2x2 / 3x3
 *   stride-2 averages had been compute-bound on the double sums (n8c64h112w112, one thread:
 *   NCHW 0.46, NHWC 0.44 of the bandwidth).
 * - NCHW rows: outputs whose window columns are all readable run as vectors (stride 1: plain
 *   loads, 2: two loads and a permute, others: gathers); the few at the borders one by one.
 * - stride-1 averages (the box rows, 2-d, both directions, NCHW and NHWC): NOT the ref's bits
 *   in general: separable window sums in float (see there), divisions by the counts as a
 *   product corrected by one FMA step (pf_div / pf_divf: the correctly rounded quotient, as
 *   vdivpd / vdivps, at a third of its cost).
 * - NCHW max forward (2-d): each input row's maxima over every output column's taps once, into
 *   a ring, each output row folding its rows' (pf_fwd_w_hmax); 3-wide windows at stride 2 with
 *   pad 1 along an even W on contiguous rows take the plane's rows as one stream
 *   (pf_rowmax_plane: no per-row borders; n8c64h112w112 3x3 stride 2, one thread: 1.29 ->
 *   0.89 ms).
 * - NHWC forward (2-d, not the box rows): the input rows read once in order, into a ring of row
 *   maxima or of each open output row's float sums (pf_fwd_c_rows): the window rows streamed
 *   side by side ran 2-4x slower on Zen 5.
 * - NCHW max backward with stride 2 along W: argmax codes per output row (from each input
 *   row's argmax, found once), each dx row gathered from them (pf_bwd_w_max2), no scatter;
 *   with kw 3, alpha 1 and beta 0 the dx elements that take at most two windows sum in float
 *   (the same bits: see there). The border columns take the vector loads too (taps outside
 *   the row load as -inf), the load and store masks are made once per call, and the rings'
 *   slots advance without divisions: in cache, one thread, n1c32h112w112, 0.238 -> 0.211 ms.
 * - backward (2-d and 1-d; 3-d goes to the double blocks): NCHW keeps up to kh dx rows of one
 *   plane as double accumulators (a ring on the stack) and walks the output rows once: a max
 *   window's argmax is found once and its dy added to the one element; average windows add
 *   dy / count, taps in descending kx outside the column loop so that every dx element
 *   receives its windows in ascending order (and no masked store is reloaded at once, which
 *   stalls store forwarding). Non-overlapping average windows (kw <= sw, kh <= sh) write dx
 *   directly; 2-wide windows at stride 2 from column 0 with alpha 1 and beta 0 store each
 *   window's rounded dy / count into its two columns with a permute, 16 windows at a time.
 *   NHWC gathers per dx pixel: averages directly, max through int8 argmax codes of the output
 *   rows it needs (a ring on the stack); with alpha 1, beta 0, no NaN propagation and at most
 *   4 windows a pixel (3x3 stride 2) the codes come from the input rows read once in order
 *   and pixels in at most two windows sum in float (pf_bwd_c_max, same bits).
 * - The streamed reads of x prefetch PF_AHEAD bytes ahead (pf_ahead): Zen 5's hardware
 *   prefetchers left them waiting on memory (n8c64h112w112, one thread: 2x2 stride-2 average
 *   forward NCHW 1.75 -> 0.9 ms, NHWC 1.8 -> 1.0-1.2, NHWC 3x3 stride-2 max 1.6 -> 1.2-1.3).
 *   2-wide windows at stride 2 (NCHW forward averages) load each row's pairs once and take
 *   taps 0 / 1 from the even / odd lanes (the same sums in the same order).
 * - dx and y are written with plain stores (streaming stores measured 3x slower on the
 *   development VM), except NHWC packed runs larger than half the L3 with beta 0: backward's
 *   dx (stride-1 averages, max through pf_bwd_c_px4) and the stride-1 average forward's y
 *   (alpha 1): computed into a stack run and streamed with line-aligned 64-byte stores
 *   (pf_stream), no read-for-ownership (n8c64h112w112 3x3 stride 1, one thread: backward 2.6
 *   -> 1.9 ms, forward 2.55 -> 1.5 ms). NCHW dx rows streamed one by one ran slower (2.9 ->
 *   3.5 ms, 3x3 stride-2 max: a partial line at every row end); since 2026-12-06 the NCHW
 *   rows of the 3x3 stride-2 max backward and of the stride-1 averages (alpha 1, beta 0, rows
 *   contiguous) go through a stage that streams whole lines only, the partial last line
 *   carried into the next row (pf_stage_t). The NHWC rows of dy / count prefetch ahead
 *   (pf_ahead): 3.5 -> 2.6 ms there; the NCHW max backward's and box rows' x / dy rows as
 *   well. Intel VM (2 vCPU, AVX-512), two threads, n8c64h112w112, dnnbench median of 10, three
 *   interleaved runs against the code before: 3x3 stride-2 max backward 3.83-3.90 -> 2.42-2.65
 *   ms (0.55 -> 0.8 of the bandwidth), 3x3 stride-1 average forward 2.81-2.97 -> 1.88-2.01,
 *   backward 2.48-2.54 -> 1.57-1.81 (docs/perf/cpu-memops-2026-12-06b.md).
 * - Full vectors of x / dy are loaded with plain loads (fd_cpu_mload_ps / pf_mload8; stride-2
 *   pairs through contiguous masks), and per-lane selections (argmax hits) load whole vectors
 *   and select in registers: Zen 5 ran masked loads that miss the cache at a fraction of
 *   plain loads' speed (a streaming max: 39 GB/s plain, 6.8 GB/s under an all-ones mask).
 * Rows are flushed as alpha * acc (+ beta * old) in double, rounded once, as blend_store.
 * Chosen at run time when the CPU has AVX-512 F/BW/DQ/VL and BMI2 (FREEDNN_CPU_ISA=avx2 or
 * generic turns it off); the stack buffers bound the shapes taken (pf_kind, pf_run).
 */
#if defined(__GNUC__) && defined(__x86_64__)
#define PF_X86 1
#include <immintrin.h>
#define PF_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,bmi,bmi2")))

#else
#define PF_X86 0
#endif

#define PF_KW_MAX 64    /* window columns of the NCHW backward tap tables */
#define PF_ROWS_MAX 256 /* window rows (D x H) of one forward output row */
#define PF_RING 8192    /* doubles of dx rows (NCHW backward): kh * W */
#define PF_GUARD 32     /* doubles either side of the ring: masked vectors may point there */
#define PF_CODES 65536  /* bytes of argmax codes (NHWC max backward) */
#define PF_BAND 16      /* dx rows per NHWC backward unit */
#define PF_VALS 4096    /* output columns of one row (NCHW backward) */
#ifndef PF_AHEAD
#define PF_AHEAD 8192 /* bytes a streamed read prefetches ahead (pf_ahead) */
#endif
#define PF_GROUP 4      /* units (planes, output rows, dx bands) per call of a path */

#if PF_X86

static int pf_isa_ok(void)
{
    static int state = -1; /* a benign race: every thread stores the same value */
    if (state < 0) {
        /* FREEDNN_CPU_ISA=avx2|generic turns the paths off (tests run both on one machine) */
        const char *cap = getenv("FREEDNN_CPU_ISA");
        int limit = !cap ? 2 : strcmp(cap, "generic") == 0 ? 0 : strcmp(cap, "avx2") == 0 ? 1 : 2;
        __builtin_cpu_init();
        state = limit >= 2 && __builtin_cpu_supports("avx512f") &&
                __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("bmi2");
    }
    return state;
}

/* 1 for a positive normal power of two (the counts are integers, so normal when positive). */
static int is_pow2(double c)
{
    uint64_t b;
    memcpy(&b, &c, sizeof b);
    return c > 0 && (b & 0xfffffffffffffull) == 0 && (b >> 52) != 0;
}

/* 0: no fast path; 1: lanes along W (W stride 1); 2: lanes along C (C stride 1). */
static int pf_kind(const fd_pool_problem_t *p, int bwd)
{
    if (p->dt != CUDNN_DATA_FLOAT || !pf_isa_ok())
        return 0;
    const int64_t *t1 = bwd ? p->dys : p->ys, *t2 = bwd ? p->dxs : p->xs;
    for (int d = 0; d < NSP; d++) /* int32 lane indices and offsets stay far from overflow */
        if (p->in[d] + p->pad[d] + 16 * p->stride[d] + p->win[d] >= (1 << 29) ||
            p->out[d] >= (1 << 29))
            return 0;
    int wok = p->xs[4] == 1 && t1[4] == 1 && t2[4] == 1 && p->win[2] <= PF_KW_MAX;
    int cok = p->xs[1] == 1 && t1[1] == 1 && t2[1] == 1 &&
              (!bwd || (p->in[2] <= PF_VALS && p->out[1] <= PF_VALS && p->out[2] <= PF_VALS));
    if (bwd) {
        if (p->in[0] != 1 || p->out[0] != 1 || p->win[0] != 1 || p->pad[0] != 0)
            return 0; /* 3-d backward: the double blocks */
        wok = wok && p->win[1] * p->in[2] <= PF_RING && p->out[2] <= PF_VALS;
    } else {
        wok = wok && p->win[0] * p->win[1] <= PF_ROWS_MAX;
    }
    if (cok && (p->c >= 8 || !wok))
        return 2;
    return wok ? 1 : 0;
}

/* Prefetch of the line PF_AHEAD bytes past q into L1 (the address is never dereferenced, so
 * it may lie past the buffer). Zen 5's hardware prefetchers left the streaming rows waiting on
 * memory: 2x2 stride-2 average forward NCHW, n8c64h112w112, 1.75 -> 0.9 ms with 4-16 KiB ahead.
 * always_inline: GCC 12 drops the prefetch of a plain static inline helper called from an
 * always_inline function of another target (pf_rowarg_k lost both of its, silently). */
static inline __attribute__((always_inline)) void pf_ahead(const void *q)
{
    _mm_prefetch((const char *)((uintptr_t)q + PF_AHEAD), _MM_HINT_T0);
}

/* Lane mask of lanes [lo, hi). */
static inline __mmask16 pf_lanes(int64_t lo, int64_t hi)
{
    if (lo >= hi)
        return 0;
    return (__mmask16)(((1u << hi) - 1u) & ~((1u << lo) - 1u));
}

/* The loads of a stride-2 row of lanes (a prefix mask) as one contiguous 32-lane mask: lanes
 * 0 .. 2 len - 2 (the odd ones in between are read and dropped by the permute). Zen 4 / 5 ran
 * the sparse every-other-lane masks at a fraction of contiguous ones' speed. */
static inline uint32_t pf_pair_mask(__mmask16 lanes)
{
    const int len = __builtin_popcount(lanes);
    return len == 0 ? 0u : (uint32_t)((1ull << (2 * len - 1)) - 1u);
}

#define PF_NT 1024 /* floats of a dx run computed before it is streamed (pf_stream) */

/* 1 when the output (FLOAT; strides q, spatial dims sp) is written with streaming stores:
 * beta 0 and the output larger than FD_CPU_NT_MIN (half the L3), where the read-for-ownership
 * of each line is a third of the traffic and the lines are not read again soon; 64-byte
 * stores aligned to the line. */
static int pf_nt_ok(const fd_pool_problem_t *p, const fd_pool_args_t *a, const int64_t *q,
                    const int64_t *sp)
{
#ifdef FD_CPU_HAVE_STREAM_Z
    int64_t ext = 1;
    for (int d = 0; d < 5; d++) {
        const int64_t dim = d == 0 ? p->n : d == 1 ? p->c : sp[d - 2];
        ext += (dim - 1) * q[d];
    }
    return a->beta == 0.0 && (size_t)ext * sizeof(float) >= FD_CPU_NT_MIN;
#else
    (void)p, (void)a, (void)q, (void)sp;
    return 0;
#endif
}

/* n floats from src to dst with streaming stores (the unaligned head and tail in 16-byte
 * pieces, fd_cpu_stream_z); the caller fences once per unit. */
static void pf_stream(float *dst, const float *src, int64_t n)
{
#ifdef FD_CPU_HAVE_STREAM_Z
    fd_cpu_stream_z(dst, src, (size_t)n * sizeof(float));
#else
    memcpy(dst, src, (size_t)n * sizeof(float));
#endif
}

/* 8 floats under mask m, as a plain load when every lane is on (fd_cpu_mload_ps's reason). */
PF_AVX512 static inline __m256 pf_mload8(__mmask8 m, const float *p)
{
    return m == (__mmask8)0xFF ? _mm256_loadu_ps(p) : _mm256_maskz_loadu_ps(m, p);
}

PF_AVX512 static inline __m512d pf_lo(__m512 v)
{
    return _mm512_cvtps_pd(_mm512_castps512_ps256(v));
}

PF_AVX512 static inline __m512d pf_hi(__m512 v)
{
    return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}

/* y[j] = alpha * v[j] (+ beta * y[j]) for lanes j in m, v in two double halves. */
PF_AVX512 static inline void pf_store_d(float *y, __mmask16 m, __m512d lo, __m512d hi, double alpha,
                                        double beta)
{
    if (alpha != 1.0) {
        lo = _mm512_mul_pd(_mm512_set1_pd(alpha), lo);
        hi = _mm512_mul_pd(_mm512_set1_pd(alpha), hi);
    }
    if (beta != 0.0) {
        __m512 old = fd_cpu_mload_ps(m, y);
        lo = _mm512_add_pd(lo, _mm512_mul_pd(_mm512_set1_pd(beta), pf_lo(old)));
        hi = _mm512_add_pd(hi, _mm512_mul_pd(_mm512_set1_pd(beta), pf_hi(old)));
    }
    __m512 r =
        _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
    fd_cpu_mstore_ps(y, m, r);
}

/* A max result (float, -inf when nothing was taken) blended and stored. */
PF_AVX512 static inline void pf_store_max(float *y, __mmask16 m, __m512 acc, __mmask16 nan,
                                          double alpha, double beta)
{
    acc = _mm512_max_ps(acc, _mm512_set1_ps(-FLT_MAX));
    acc = _mm512_mask_mov_ps(acc, nan, _mm512_set1_ps(NAN));
    if (alpha == 1.0 && beta == 0.0)
        fd_cpu_mstore_ps(y, m, acc);
    else
        pf_store_d(y, m, pf_lo(acc), pf_hi(acc), alpha, beta);
}

/* v / cnt as the ref divides, given inv = 1 / cnt rounded to nearest (cnt 0: 0): the product
 * v * inv corrected by one FMA step, r = v - q cnt (exact), q + r inv, is the correctly rounded
 * quotient (Markstein's theorem; checked against division on 2.6e8 random quotients with counts
 * 1..256, half of them float-valued, none differed) at a third of vdivpd's cost. inf / NaN sums
 * keep v * inv. */
PF_AVX512 static inline __m512d pf_div(__m512d v, __m512d cnt, __m512d inv)
{
    const __m512d q0 = _mm512_mul_pd(v, inv);
    const __m512d r = _mm512_fnmadd_pd(q0, cnt, v);
    const __mmask8 fin =
        _mm512_cmp_pd_mask(_mm512_abs_pd(q0), _mm512_set1_pd(INFINITY), _CMP_LT_OQ);
    const __m512d q = _mm512_mask_fmadd_pd(r, fin, inv, q0);
    const __m512d res = _mm512_mask_mov_pd(q0, fin, q);
    return _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(cnt, _mm512_setzero_pd(), _CMP_GT_OQ), res);
}

/* v / c in float, correctly rounded (Markstein, as pf_div), given vf = 1 / c rounded to float;
 * c = 0 (no window): 0. Non-finite lanes take vdivps. */
PF_AVX512 static inline __m512 pf_divf(__m512 v, __m512 c, __m512 vf)
{
    const __m512 q0 = _mm512_mul_ps(v, vf);
    if (_mm512_fpclass_ps_mask(q0, 0x99) != 0) /* NaN, +-inf: a non-finite dy or a count 0 */
        return _mm512_maskz_div_ps(_mm512_cmp_ps_mask(c, _mm512_setzero_ps(), _CMP_GT_OQ), v, c);
    return _mm512_fmadd_ps(_mm512_fnmadd_ps(q0, c, v), vf, q0);
}

/* pf_div for the box rows: the three FMA-unit steps alone while every quotient estimate is
 * finite, pf_div's lane masks otherwise; the same results. */
PF_AVX512 static inline __m512d pf_div_fast(__m512d v, __m512d cnt, __m512d inv)
{
    const __m512d q0 = _mm512_mul_pd(v, inv);
    if (_mm512_fpclass_pd_mask(q0, 0x99) != 0) /* NaN, +-inf */
        return pf_div(v, cnt, inv);
    return _mm512_fmadd_pd(_mm512_fnmadd_pd(q0, cnt, v), inv, q0);
}

/* The forward float sum v, divided and stored as the ref (double quotient and blend). */
PF_AVX512 static inline void pf_box_out(float *y, __mmask16 m, __m512 v, __m512d c0, __m512d c1,
                                        __m512d i0, __m512d i1, double alpha, double beta)
{
    pf_store_d(y, m, pf_div_fast(pf_lo(v), c0, i0), pf_div_fast(pf_hi(v), c1, i1), alpha, beta);
}

static void pf_box_fwd_exact(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t n,
                             int64_t c, int64_t oh, int64_t ow);

/* ---- forward, lanes along W ---- */

/* The outputs whose window columns are all readable: [*a, *b) (the vector lanes; the few
 * others at the borders are computed one at a time). */
static void pf_interior(const fd_pool_problem_t *p, int64_t *a, int64_t *b)
{
    const int64_t sw = p->stride[2], pw = p->pad[2], kw = p->win[2], OW = p->out[2];
    const int64_t rlo = max64(0, -pw), rhi = min64(p->in[2], p->in[2] + pw);
    *a = min64(OW, max64(0, ceil_div(rlo + pw, sw)));
    *b = max64(*a, min64(OW, floor_div(rhi + pw - kw, sw) + 1));
}

/* Output ow of a row, one lane: the ref's window_max / window_sum on the readable taps. */
static void pf_fwd_one_w(const fd_pool_problem_t *p, const fd_pool_args_t *a,
                         const float *const *rows, int nrows, double cdh, float *y, int64_t ow)
{
    const int64_t sw = p->stride[2], pw = p->pad[2], kw = p->win[2];
    const int64_t rlo = max64(0, -pw), rhi = min64(p->in[2], p->in[2] + pw);
    const int64_t lo = max64(rlo, ow * sw - pw), hi = min64(rhi, ow * sw - pw + kw);
    double v;
    if (is_max(p)) {
        float m = -INFINITY;
        int nan = 0;
        for (int r = 0; r < nrows; r++)
            for (int64_t iw = lo; iw < hi; iw++) {
                float x = rows[r][iw];
                nan |= x != x;
                m = x > m ? x : m;
            }
        v = nan && p->propagate_nan ? NAN : m > -FLT_MAX ? m : -FLT_MAX;
    } else {
        double sum = 0.0;
        for (int r = 0; r < nrows; r++)
            for (int64_t iw = lo; iw < hi; iw++)
                sum += rows[r][iw];
        int64_t l, h, rw, pdw;
        win_dim(p, 2, ow, &l, &h, &rw, &pdw);
        double cnt =
            cdh * (double)(p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? pdw : rw);
        v = cnt > 0 ? sum / cnt : 0.0;
    }
    double r = a->alpha * v;
    if (a->beta != 0.0)
        r += a->beta * (double)y[ow];
    y[ow] = (float)r;
}

/* One output row: rows[] are the readable window rows (D, H order), cdh the product of their
 * D and H counts for the average's divisor (readable or padded per mode). Interior outputs
 * run 16 lanes at a time with no per-tap masks; the max of each window row is taken apart and
 * then folded into the earlier rows' (vmaxps keeps its second operand on ties, so the earliest
 * maximum still wins, as the ref's strict > does). */
PF_AVX512 static void pf_fwd_row_w(const fd_pool_problem_t *p, const fd_pool_args_t *a,
                                   const float *const *rows, int nrows, double cdh, float *y,
                                   int64_t owa, int64_t owb)
{
    const int64_t OW = p->out[2], kw = p->win[2], sw = p->stride[2], pw = p->pad[2];
    const int mx = is_max(p), prop = p->propagate_nan;
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i even = _mm512_add_epi32(iota, iota);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    const __m512i gidx = _mm512_mullo_epi32(iota, _mm512_set1_epi32((int)sw));
    for (int64_t ow = 0; ow < owa; ow++)
        pf_fwd_one_w(p, a, rows, nrows, cdh, y, ow);
    for (int64_t ow = owb; ow < OW; ow++)
        pf_fwd_one_w(p, a, rows, nrows, cdh, y, ow);
    const double c = cdh * (double)kw; /* the interior windows' count (c = 0: no rows) */
    const int plain = a->alpha == 1.0 && a->beta == 0.0;
    const __m512d vc = _mm512_set1_pd(c), rc = _mm512_set1_pd(c > 0 ? 1.0 / c : 0.0);
    const __m512 cf = _mm512_set1_ps((float)c), vf = _mm512_set1_ps(1.0f / (float)c);
    for (int64_t ow0 = owa; ow0 < owb; ow0 += 16) {
        const int len = (int)min64(16, owb - ow0);
        const __mmask16 lanes = pf_lanes(0, len);
        const int64_t b0 = ow0 * sw - pw;
        const uint32_t m32 = sw == 2 ? pf_pair_mask(lanes) : lanes;
        const __mmask16 mlo = (__mmask16)m32, mhi = (__mmask16)(m32 >> 16);
        /* plain loads when every tap's vectors end inside the row: masked loads that miss the
         * cache ran ~5x slower on Zen 5 (2x2 stride-2 average: 6.9 -> 1.2 ms) */
        const int whole = len == 16 && (sw == 1 || sw == 2) &&
                          b0 + kw - 1 + 16 * sw <= p->in[2];
#define PF_TAP(q)                                                                                  \
    (whole && sw == 1 ? _mm512_loadu_ps(q)                                                         \
     : whole          ? _mm512_permutex2var_ps(_mm512_loadu_ps(q), even, _mm512_loadu_ps((q) + 16)) \
     : sw == 1        ? fd_cpu_mload_ps(lanes, q)                                            \
     : sw == 2 ? _mm512_permutex2var_ps(fd_cpu_mload_ps(mlo, q), even,                       \
                                        fd_cpu_mload_ps(mhi, (q) + 16))                      \
               : _mm512_mask_i32gather_ps(_mm512_setzero_ps(), lanes, gidx, q, 4))
        if (mx) {
            __m512 acc = _mm512_set1_ps(-INFINITY);
            __mmask16 nan = 0;
            for (int r = 0; r < nrows; r++) {
                const float *q = rows[r] + b0;
                __m512 h = PF_TAP(q);
                if (prop)
                    nan |= _mm512_cmp_ps_mask(h, h, _CMP_UNORD_Q);
                h = _mm512_max_ps(h, _mm512_set1_ps(-INFINITY)); /* a NaN first tap drops */
                for (int64_t kx = 1; kx < kw; kx++) {
                    __m512 v = PF_TAP(q + kx);
                    h = _mm512_max_ps(v, h);
                    if (prop)
                        nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
                }
                acc = _mm512_max_ps(h, acc);
            }
            pf_store_max(y + ow0, lanes, acc, nan, a->alpha, a->beta);
            continue;
        }
        /* float sums from +0 in the ref's tap order (the box rows' bound; see the header) */
        __m512 sum = _mm512_setzero_ps();
        if (kw == 2 && sw == 2) {
            /* 2-wide windows at stride 2: the row's 2 len floats as two vectors (plain loads
             * but for a short last chunk), taps kx 0 / 1 their even / odd lanes: half the
             * loads of PF_TAP, and no masked load on a chunk of 8 (pf_pair_mask's 15 lanes
             * made the last 8 outputs of a 112-wide row two masked loads per tap) */
            const uint32_t m2 = len == 16 ? 0xFFFFFFFFu : (uint32_t)((1ull << (2 * len)) - 1u);
            for (int r = 0; r < nrows; r++) {
                const float *q = rows[r] + b0;
                pf_ahead(q), pf_ahead(q + 16);
                const __m512 lo = fd_cpu_mload_ps((__mmask16)m2, q);
                const __m512 hi = (m2 >> 16) != 0 ? fd_cpu_mload_ps((__mmask16)(m2 >> 16), q + 16)
                                                  : _mm512_setzero_ps();
                sum = _mm512_add_ps(sum, _mm512_permutex2var_ps(lo, even, hi));
                sum = _mm512_add_ps(sum, _mm512_permutex2var_ps(lo, odd, hi));
            }
        } else {
            for (int r = 0; r < nrows; r++) {
                const float *q = rows[r] + b0;
                for (int64_t kx = 0; kx < kw; kx++)
                    sum = _mm512_add_ps(sum, PF_TAP(q + kx));
            }
        }
#undef PF_TAP
        const __mmask16 bad = _mm512_mask_fpclass_ps_mask(lanes, sum, 0x99); /* NaN, +-inf */
        if (plain)
            fd_cpu_mstore_ps(y + ow0, lanes & ~bad, pf_divf(sum, cf, vf));
        else
            pf_box_out(y + ow0, lanes & ~bad, sum, vc, vc, rc, rc, a->alpha, a->beta);
        for (__mmask16 b = bad; b; b &= (__mmask16)(b - 1)) /* the ref's formula there */
            pf_fwd_one_w(p, a, rows, nrows, cdh, y, ow0 + __builtin_ctz(b));
    }
}

PF_AVX512 static void pf_fwd_w(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                               int64_t u1)
{
    const int64_t OD = p->out[0], OH = p->out[1];
    const int incl = p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
    const int64_t *s = p->xs, *t = p->ys;
    int64_t owa, owb;
    pf_interior(p, &owa, &owb);
    for (int64_t pl = u0; pl < u1; pl++) {
        const int64_t n = pl / p->c, c = pl % p->c;
        const float *xb = (const float *)a->x + n * s[0] + c * s[1];
        float *yb = (float *)a->out + n * t[0] + c * t[1];
        for (int64_t od = 0; od < OD; od++) {
            int64_t l0, h0, r0, pd0;
            win_dim(p, 0, od, &l0, &h0, &r0, &pd0);
            for (int64_t oh = 0; oh < OH; oh++) {
                int64_t l1, h1, r1, pd1;
                win_dim(p, 1, oh, &l1, &h1, &r1, &pd1);
                const float *rows[PF_ROWS_MAX];
                int nrows = 0;
                for (int64_t id = l0; id < h0; id++)
                    for (int64_t ih = l1; ih < h1; ih++)
                        rows[nrows++] = xb + id * s[2] + ih * s[3];
                double cdh = incl ? (double)pd0 * (double)pd1 : (double)r0 * (double)r1;
                pf_fwd_row_w(p, a, rows, nrows, cdh, yb + od * t[2] + oh * t[3], owa, owb);
            }
        }
    }
}

/* ---- forward max, lanes along W (2-d): window-row maxima once per input row ---- */

/* pf_fwd_row_w takes the maxima of each output row's window rows apart, so an input row shared
 * by two output rows (3x3 stride 2: one in two; stride 1: every row kh times) had its taps
 * loaded, permuted and compared again for each. Here the maximum of each input row over every
 * output column's taps (kx order, vmaxps keeping the earlier on ties and dropping NaN; NaN
 * stored when PROPAGATE_NAN and a tap is NaN) is computed once into a ring of kh rows of OW
 * floats, and each output row folds its rows' maxima in window order: the same operations in
 * the same order as pf_fwd_row_w, so the same bits. 3x3 stride 2 in cache: 14 us per 4 planes
 * (112x112) against 15-21 for pf_fwd_w; at full size it is bound by memory either way. */
#define PF_HRING 16384 /* floats of the row-max ring (64 KiB of stack) */

/* The maximum of output column ow's readable taps in one input row (NaN: PROPAGATE_NAN and a
 * NaN tap). */
static float pf_rowmax_one(const fd_pool_problem_t *p, const float *row, int64_t ow)
{
    const int64_t sw = p->stride[2], pw = p->pad[2], kw = p->win[2];
    const int64_t rlo = max64(0, -pw), rhi = min64(p->in[2], p->in[2] + pw);
    const int64_t lo = max64(rlo, ow * sw - pw), hi = min64(rhi, ow * sw - pw + kw);
    float m = -INFINITY;
    int nan = 0;
    for (int64_t iw = lo; iw < hi; iw++) {
        float x = row[iw];
        nan |= x != x;
        m = x > m ? x : m;
    }
    return nan && p->propagate_nan ? NAN : m;
}

/* h[ow] for every output column of one input row. */
PF_AVX512 static void pf_rowmax(const fd_pool_problem_t *p, const float *row, int64_t owa,
                                int64_t owb, float *h)
{
    const int64_t OW = p->out[2], kw = p->win[2], sw = p->stride[2], pw = p->pad[2];
    const int prop = p->propagate_nan;
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i even = _mm512_add_epi32(iota, iota);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    const __m512i gidx = _mm512_mullo_epi32(iota, _mm512_set1_epi32((int)sw));
    for (int64_t ow = 0; ow < owa; ow++)
        h[ow] = pf_rowmax_one(p, row, ow);
    for (int64_t ow = owb; ow < OW; ow++)
        h[ow] = pf_rowmax_one(p, row, ow);
    for (int64_t ow0 = owa; ow0 < owb; ow0 += 16) {
        const int len = (int)min64(16, owb - ow0);
        const __mmask16 lanes = pf_lanes(0, len);
        const uint32_t m32 = sw == 2 ? pf_pair_mask(lanes) : lanes;
        const __mmask16 mlo = (__mmask16)m32, mhi = (__mmask16)(m32 >> 16);
        const float *q = row + ow0 * sw - pw;
        pf_ahead(q), pf_ahead(q + 16);
        /* whole 32-float pairs when every tap's pair ends inside the row: AMD Zen 4 ran the
         * sparse-mask loads (every other lane) at a fraction of plain loads' speed */
        const int whole = sw == 2 && len == 16 && ow0 * sw - pw + kw - 1 + 32 <= p->in[2];
#define PF_TAP(q)                                                                                  \
    (sw == 1   ? fd_cpu_mload_ps(lanes, q)                                                   \
     : whole   ? _mm512_permutex2var_ps(_mm512_loadu_ps(q), even, _mm512_loadu_ps((q) + 16))        \
     : sw == 2 ? _mm512_permutex2var_ps(fd_cpu_mload_ps(mlo, q), even,                       \
                                        fd_cpu_mload_ps(mhi, (q) + 16))                      \
               : _mm512_mask_i32gather_ps(_mm512_setzero_ps(), lanes, gidx, q, 4))
        if (whole && kw == 3 && !prop) {
            /* the common 3-tap row: taps 0 and 1 from one pair (even and odd lanes), the same
             * maxima in the same order */
            const __m512 a = _mm512_loadu_ps(q), b = _mm512_loadu_ps(q + 16);
            __m512 m = _mm512_max_ps(_mm512_permutex2var_ps(a, even, b), _mm512_set1_ps(-INFINITY));
            m = _mm512_max_ps(_mm512_permutex2var_ps(a, odd, b), m);
            m = _mm512_max_ps(PF_TAP(q + 2), m);
            _mm512_storeu_ps(h + ow0, m);
            continue;
        }
        __m512 v = PF_TAP(q);
        __mmask16 nan = prop ? _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) : 0;
        __m512 m = _mm512_max_ps(v, _mm512_set1_ps(-INFINITY)); /* a NaN first tap drops */
        for (int64_t kx = 1; kx < kw; kx++) {
            v = PF_TAP(q + kx);
            m = _mm512_max_ps(v, m);
            if (prop)
                nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        }
#undef PF_TAP
        fd_cpu_mstore_ps(h + ow0, lanes, _mm512_mask_mov_ps(m, nan, _mm512_set1_ps(NAN)));
    }
}

/* 1 when the input rows of p's planes can be taken as one stream (pf_rowmax_plane): 3-wide
 * windows at stride 2 with pad 1 along an even W (so OW = W / 2 and only each row's output 0
 * sees the padding), rows contiguous, no NaN tracking, the plane's maxima within the ring. */
static int pf_plane_ok(const fd_pool_problem_t *p)
{
    return p->win[2] == 3 && p->stride[2] == 2 && p->pad[2] == 1 && p->in[2] % 2 == 0 &&
           p->out[2] == p->in[2] / 2 && p->xs[3] == p->in[2] && !p->propagate_nan &&
           p->in[1] * p->out[2] <= PF_HRING;
}

/* 16 floats of the stream x[0, total) from offset off as one vector: a plain load when all
 * are inside, else the inside ones (the others 0). */
PF_AVX512 static inline __m512 pf_sload(const float *x, int64_t off, int64_t total)
{
    if (off >= 0 && off + 16 <= total)
        return _mm512_loadu_ps(x + off);
    return _mm512_maskz_loadu_ps(pf_lanes(max64(0, -off), min64(16, total - off)), x + off);
}

/* pf_rowmax of every row of a plane (pf_plane_ok), its rows taken as one stream: with W =
 * 2 OW, output j of the stream (row j / OW, column j % OW) has the taps x[2j - 1], x[2j],
 * x[2j + 1], the first of them padding (-inf, never taken) where j % OW = 0. The same maxima
 * in the same order as pf_rowmax's 3-tap path and pf_rowmax_one, so the same bits, without
 * the per-row border and tail work (3x3 stride-2 max forward NCHW, data in cache: ~28 GB/s
 * per row). Outputs [j1, j2) of the plane's nout = H * OW, into h[j1, j2): called per output
 * row for its new input rows, so the reads of x stay spread over the folds (one pass over the
 * whole plane first left memory idle during the folds: 1.26 ms against 0.93 for the 2x2
 * average's same traffic). */
PF_AVX512 static void pf_rowmax_plane(const float *x, int64_t j1, int64_t j2, int64_t nout,
                                      int64_t OW, float *h)
{
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i even = _mm512_add_epi32(iota, iota);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    const int64_t total = 2 * nout;
    int64_t next = (j1 + OW - 1) / OW * OW; /* the next stream output that starts a row */
    for (int64_t j0 = j1; j0 < j2; j0 += 16) {
        __mmask16 first = 0;
        for (; next < j0 + 16; next += OW)
            first |= (__mmask16)(1u << (next - j0));
        const int64_t off = 2 * j0 - 1;
        __m512 a, b, a2, b2;
        if (off >= 0 && off + 34 <= total) {
            const float *q = x + off;
            pf_ahead(q), pf_ahead(q + 16);
            a = _mm512_loadu_ps(q), b = _mm512_loadu_ps(q + 16);
            a2 = _mm512_loadu_ps(q + 2), b2 = _mm512_loadu_ps(q + 18);
        } else {
            a = pf_sload(x, off, total), b = pf_sload(x, off + 16, total);
            a2 = pf_sload(x, off + 2, total), b2 = pf_sload(x, off + 18, total);
        }
        const __m512 t0 = _mm512_mask_mov_ps(_mm512_permutex2var_ps(a, even, b), first, ninf);
        __m512 m = _mm512_max_ps(t0, ninf); /* a NaN first tap drops */
        m = _mm512_max_ps(_mm512_permutex2var_ps(a, odd, b), m);
        m = _mm512_max_ps(_mm512_permutex2var_ps(a2, even, b2), m);
        fd_cpu_mstore_ps(h + j0, pf_lanes(0, min64(16, j2 - j0)), m);
    }
}

/* 1 when pf_fwd_w_hmax takes p (kind 1, forward). */
static int pf_hmax_ok(const fd_pool_problem_t *p)
{
    return is_max(p) && p->in[0] == 1 && p->out[0] == 1 && p->win[0] == 1 && p->pad[0] == 0 &&
           p->win[1] * ((p->out[2] + 15) / 16 * 16) <= PF_HRING;
}

PF_AVX512 static void pf_fwd_w_hmax(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                                    int64_t u1)
{
    const int64_t OH = p->out[1], OW = p->out[2], kh = p->win[1], rs = (OW + 15) / 16 * 16;
    const int prop = p->propagate_nan;
    const int64_t *s = p->xs, *t = p->ys;
    const double alpha = a->alpha, beta = a->beta;
    int64_t owa, owb;
    pf_interior(p, &owa, &owb);
    float ring[PF_HRING];
    /* plane: every row's maxima at once, row ih at ring + ih * OW (pf_rowmax_plane) */
    const int plane = pf_plane_ok(p);
    const int64_t wrap = plane ? INT64_MAX : kh, rstride = plane ? OW : rs;
    for (int64_t pl = u0; pl < u1; pl++) {
        const int64_t n = pl / p->c, c = pl % p->c;
        const float *xb = (const float *)a->x + n * s[0] + c * s[1];
        float *yb = (float *)a->out + n * t[0] + c * t[1];
        int64_t have = 0; /* input rows below have are in the ring (the last kh of them) */
        for (int64_t oh = 0; oh < OH; oh++) {
            int64_t lo, hi, r1, pd1;
            win_dim(p, 1, oh, &lo, &hi, &r1, &pd1);
            if (plane && hi > have)
                pf_rowmax_plane(xb, have * OW, hi * OW, p->in[1] * OW, OW, ring);
            for (int64_t ih = max64(have, lo); !plane && ih < hi; ih++)
                pf_rowmax(p, xb + ih * s[3], owa, owb, ring + (ih % kh) * rs);
            have = max64(have, hi);
            float *y = yb + oh * t[3];
            /* ring slot of row lo (no division per vector: it cost more than the maxima) */
            const int64_t sl0 = lo >= hi ? 0 : plane ? lo : lo % kh;
            for (int64_t ow0 = 0; ow0 < OW; ow0 += 16) {
                const __mmask16 lanes = pf_lanes(0, min64(16, OW - ow0));
                __m512 acc = _mm512_set1_ps(-INFINITY);
                __mmask16 nan = 0;
                for (int64_t ih = lo, sl = sl0; ih < hi; ih++, sl = sl + 1 == wrap ? 0 : sl + 1) {
                    const __m512 v = fd_cpu_mload_ps(lanes, ring + sl * rstride + ow0);
                    if (prop)
                        nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
                    acc = _mm512_max_ps(v, acc);
                }
                pf_store_max(y + ow0, lanes, acc, nan, alpha, beta);
            }
        }
    }
}

/* ---- forward, lanes along C ---- */

PF_AVX512 static void pf_fwd_c(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                               int64_t u1)
{
    const int64_t OD = p->out[0], OH = p->out[1], OW = p->out[2], C = p->c;
    const int mx = is_max(p), prop = p->propagate_nan;
    const int64_t *s = p->xs, *t = p->ys;
    const double alpha = a->alpha, beta = a->beta;
    for (int64_t u = u0; u < u1; u++) {
        int64_t oh = u % OH, od = (u / OH) % OD, n = u / (OH * OD);
        int64_t lo[NSP], hi[NSP], r[NSP], pd[NSP];
        win_dim(p, 0, od, &lo[0], &hi[0], &r[0], &pd[0]);
        win_dim(p, 1, oh, &lo[1], &hi[1], &r[1], &pd[1]);
        const float *xb = (const float *)a->x + n * s[0];
        float *yb = (float *)a->out + n * t[0] + od * t[2] + oh * t[3];
        for (int64_t ow = 0; ow < OW; ow++) {
            win_dim(p, 2, ow, &lo[2], &hi[2], &r[2], &pd[2]);
            const double cnt = count_of(p, r, pd);
            for (int64_t c0 = 0; c0 < C; c0 += 64) {
                __mmask16 cm[4];
                for (int q = 0; q < 4; q++)
                    cm[q] = pf_lanes(0, max64(0, min64(16, C - c0 - 16 * q)));
                float *y = yb + ow * t[4] + c0;
                if (mx) {
                    __m512 acc[4];
                    __mmask16 nan[4] = {0, 0, 0, 0};
                    for (int q = 0; q < 4; q++)
                        acc[q] = _mm512_set1_ps(-INFINITY);
                    for (int64_t i0 = lo[0]; i0 < hi[0]; i0++)
                        for (int64_t i1 = lo[1]; i1 < hi[1]; i1++)
                            for (int64_t i2 = lo[2]; i2 < hi[2]; i2++) {
                                const float *src = xb + i0 * s[2] + i1 * s[3] + i2 * s[4] + c0;
                                for (int q = 0; q < 4; q++) {
                                    __m512 v = fd_cpu_mload_ps(cm[q], src + 16 * q);
                                    acc[q] = _mm512_max_ps(v, acc[q]);
                                    if (prop)
                                        nan[q] |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
                                }
                            }
                    for (int q = 0; q < 4; q++)
                        if (cm[q])
                            pf_store_max(y + 16 * q, cm[q], acc[q], nan[q], alpha, beta);
                    continue;
                }
                __m512d acc[8];
                for (int q = 0; q < 8; q++)
                    acc[q] = _mm512_setzero_pd();
                for (int64_t i0 = lo[0]; i0 < hi[0]; i0++)
                    for (int64_t i1 = lo[1]; i1 < hi[1]; i1++)
                        for (int64_t i2 = lo[2]; i2 < hi[2]; i2++) {
                            const float *src = xb + i0 * s[2] + i1 * s[3] + i2 * s[4] + c0;
                            for (int q = 0; q < 4; q++) {
                                __m512 v = fd_cpu_mload_ps(cm[q], src + 16 * q);
                                acc[2 * q] = _mm512_add_pd(acc[2 * q], pf_lo(v));
                                acc[2 * q + 1] = _mm512_add_pd(acc[2 * q + 1], pf_hi(v));
                            }
                        }
                const __m512d vc = _mm512_set1_pd(cnt), rc = _mm512_set1_pd(1.0 / cnt);
                for (int q = 0; q < 8; q++)
                    acc[q] = pf_div(acc[q], vc, rc);
                for (int q = 0; q < 4; q++)
                    if (cm[q])
                        pf_store_d(y + 16 * q, cm[q], acc[2 * q], acc[2 * q + 1], alpha, beta);
            }
        }
    }
}

/* ---- forward, lanes along C (2-d): input rows streamed once ---- */

/* pf_fwd_c reads each output's window pixel by pixel, so the kh input rows of an output row
 * stream from memory side by side; on Zen 5 that interleaving ran at 4-15 GB/s against 25 for
 * the same loads row after row (n8c64h112w112 3x3 stride 2: 2.8-6.8 ms). Here the input rows
 * are read in order, each once per unit:
 * - max: each input row's maxima over every output column's readable taps (kx order, vmaxps
 *   keeping the earlier on ties and dropping NaN; NaN stored when PROPAGATE_NAN and a tap is
 *   NaN) go to a ring of kh rows, and each output row folds its rows' maxima in window order:
 *   pf_fwd_w_hmax's operations along C, so the same bits as pf_fwd_c.
 * - averages: each output row's float sums (a ring of the ceil(kh / sh) rows that can be open
 *   at once) start at +0.0 on its first window row and take each window row's taps in kx order
 *   as that row streams by: the ref's terms in the ref's order, each add rounded to float;
 *   divided and blended on the last window row as the lanes along W (non-finite sums: the
 *   ref's formula, pf_box_fwd_exact).
 * A unit is a band of output rows and a chunk of channels of one image, the chunk as wide as
 * the ring (PF_CROW floats; half of it for the sums) allows. 2-d problems only. */
#define PF_CROW 16384 /* floats of the ring (64 KiB; the sum ring uses half) */
#define PF_CBAND 16   /* output rows per unit when the images alone are too few units */

typedef struct {
    int64_t ck;    /* channels per unit (a multiple of 16, or all of C) */
    int64_t cr;    /* floats per ring pixel: ck rounded up to 16 */
    int64_t slots; /* ring rows: kh (max) or ceil(kh / sh) (averages) */
    int64_t band;  /* output rows per unit */
    int64_t nck, nband;
} pf_crow_t;

/* 1 when pf_fwd_c_rows takes p (kind 2, forward); fills g. */
static int pf_crow_plan(const fd_pool_problem_t *p, pf_crow_t *g)
{
    if (p->in[0] != 1 || p->out[0] != 1 || p->win[0] != 1 || p->pad[0] != 0 || p->out[1] < 1 ||
        p->out[2] < 1)
        return 0;
    const int64_t OW = p->out[2], kh = p->win[1], sh = p->stride[1];
    g->slots = is_max(p) ? kh : sh > 0 ? (kh + sh - 1) / sh : 0;
    if (g->slots < 1 || sh < 1 || g->slots * OW * 16 > (is_max(p) ? PF_CROW : PF_CROW / 2))
        return 0;
    const int64_t cap = (is_max(p) ? PF_CROW : PF_CROW / 2) / (g->slots * OW) / 16 * 16;
    const int64_t cr = (p->c + 15) / 16 * 16;
    g->ck = cr <= cap ? p->c : cap;
    g->cr = (g->ck + 15) / 16 * 16;
    g->nck = (p->c + g->ck - 1) / g->ck;
    g->band = p->n * g->nck >= 8 ? p->out[1] : min64(p->out[1], PF_CBAND);
    g->nband = (p->out[1] + g->band - 1) / g->band;
    return 1;
}

/* Lane masks of the 16-channel vectors of a chunk of len channels. */
static inline __mmask16 pf_cmask(int64_t len, int64_t c)
{
    return pf_lanes(0, max64(0, min64(16, len - c)));
}

/* ring row h[ow * cr + c] = max of output column ow's readable taps in one input row. */
PF_AVX512 static void pf_crow_max(const fd_pool_problem_t *p, const float *row, int64_t len,
                                  int64_t cr, float *h)
{
    const int64_t OW = p->out[2], sw = p->stride[2], pw = p->pad[2], kw = p->win[2];
    const int64_t rlo = max64(0, -pw), rhi = min64(p->in[2], p->in[2] + pw), ps = p->xs[4];
    const int prop = p->propagate_nan;
    for (int64_t ow = 0; ow < OW; ow++) {
        const int64_t lo = max64(rlo, ow * sw - pw), hi = min64(rhi, ow * sw - pw + kw);
        float *hr = h + ow * cr;
        for (int64_t c = 0; c < len; c += 16) {
            const __mmask16 m = pf_cmask(len, c);
            __m512 acc = _mm512_set1_ps(-INFINITY);
            __mmask16 nan = 0;
            for (int64_t iw = lo; iw < hi; iw++) {
                pf_ahead(row + iw * ps + c);
                const __m512 v = fd_cpu_mload_ps(m, row + iw * ps + c);
                if (prop)
                    nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
                acc = _mm512_max_ps(v, acc); /* a NaN first tap drops: acc stays -inf */
            }
            _mm512_storeu_ps(hr + c, _mm512_mask_mov_ps(acc, nan, _mm512_set1_ps(NAN)));
        }
    }
}

/* sums[ow * cr + c] (+)= output column ow's readable taps in one input row, in kx order. */
PF_AVX512 static void pf_crow_sum(const fd_pool_problem_t *p, const float *row, int64_t len,
                                  int64_t cr, int first, float *sums)
{
    const int64_t OW = p->out[2], sw = p->stride[2], pw = p->pad[2], kw = p->win[2];
    const int64_t rlo = max64(0, -pw), rhi = min64(p->in[2], p->in[2] + pw), ps = p->xs[4];
    for (int64_t ow = 0; ow < OW; ow++) {
        const int64_t lo = max64(rlo, ow * sw - pw), hi = min64(rhi, ow * sw - pw + kw);
        float *sr = sums + ow * cr;
        for (int64_t c = 0; c < len; c += 16) {
            const __mmask16 m = pf_cmask(len, c);
            __m512 s = first ? _mm512_setzero_ps() : _mm512_loadu_ps(sr + c);
            for (int64_t iw = lo; iw < hi; iw++) {
                pf_ahead(row + iw * ps + c);
                s = _mm512_add_ps(s, fd_cpu_mload_ps(m, row + iw * ps + c));
            }
            _mm512_storeu_ps(sr + c, s);
        }
    }
}

PF_AVX512 static void pf_fwd_c_rows(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                                    int64_t u1)
{
    pf_crow_t g;
    pf_crow_plan(p, &g);
    const int64_t OH = p->out[1], OW = p->out[2], kh = p->win[1], sh = p->stride[1];
    const int mx = is_max(p), prop = p->propagate_nan;
    const int64_t *s = p->xs, *t = p->ys;
    const double alpha = a->alpha, beta = a->beta;
    const int plain = alpha == 1.0 && beta == 0.0;
    const int64_t cr = g.cr;
    struct {
        float f[PF_CROW];
    } ring;
    for (int64_t u = u0; u < u1; u++) {
        const int64_t ci = u % g.nck, bi = (u / g.nck) % g.nband, n = u / (g.nck * g.nband);
        const int64_t c0 = ci * g.ck, len = min64(g.ck, p->c - c0);
        const int64_t oh0 = bi * g.band, oh1 = min64(OH, oh0 + g.band);
        const float *xb = (const float *)a->x + n * s[0] + c0 * s[1];
        float *yb = (float *)a->out + n * t[0] + c0 * t[1];
        if (mx) {
            int64_t have = 0; /* input rows below have are in the ring */
            for (int64_t oh = oh0; oh < oh1; oh++) {
                int64_t lo, hi, r1, pd1;
                win_dim(p, 1, oh, &lo, &hi, &r1, &pd1);
                for (int64_t ih = max64(have, lo); ih < hi; ih++)
                    pf_crow_max(p, xb + ih * s[3], len, cr, ring.f + (ih % kh) * OW * cr);
                have = max64(have, hi);
                float *y = yb + oh * t[3];
                const int64_t sl0 = lo < hi ? lo % kh : 0; /* ring slot of row lo */
                for (int64_t ow = 0; ow < OW; ow++)
                    for (int64_t c = 0; c < len; c += 16) {
                        const __mmask16 m = pf_cmask(len, c);
                        __m512 acc = _mm512_set1_ps(-INFINITY);
                        __mmask16 nan = 0;
                        for (int64_t ih = lo, sl = sl0; ih < hi;
                             ih++, sl = sl + 1 == kh ? 0 : sl + 1) {
                            const __m512 v = _mm512_loadu_ps(ring.f + sl * OW * cr + ow * cr + c);
                            if (prop)
                                nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
                            acc = _mm512_max_ps(v, acc);
                        }
                        pf_store_max(y + ow * t[4] + c, m, acc, nan, alpha, beta);
                    }
            }
            continue;
        }
        /* averages: input rows from the band's first window row to its last, in order */
        int64_t l0, h0, l1, h1, rr, pd;
        win_dim(p, 1, oh0, &l0, &h0, &rr, &pd);
        win_dim(p, 1, oh1 - 1, &l1, &h1, &rr, &pd);
        for (int64_t oh = oh0; oh < oh1; oh++) { /* windows with no readable row: zeros */
            int64_t lo, hi;
            win_dim(p, 1, oh, &lo, &hi, &rr, &pd);
            if (lo >= hi)
                for (int64_t ow = 0; ow < OW; ow++)
                    for (int64_t c = 0; c < len; c += 16)
                        pf_store_d(yb + oh * t[3] + ow * t[4] + c, pf_cmask(len, c),
                                   _mm512_setzero_pd(), _mm512_setzero_pd(), alpha, beta);
        }
        for (int64_t ih = min64(l0, l1); ih < max64(h0, h1); ih++) {
            /* the band's output rows whose windows hold row ih, ascending */
            for (int64_t oh = max64(oh0, floor_div(ih + p->pad[1] - kh, sh) + 1);
                 oh < oh1 && oh * sh - p->pad[1] <= ih; oh++) {
                int64_t lo, hi, r1, pd1;
                win_dim(p, 1, oh, &lo, &hi, &r1, &pd1);
                if (ih < lo || ih >= hi)
                    continue;
                float *sums = ring.f + (oh % g.slots) * OW * cr;
                pf_crow_sum(p, xb + ih * s[3], len, cr, ih == lo, sums);
                if (ih != hi - 1)
                    continue;
                float *y = yb + oh * t[3];
                const double ch = p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                      ? (double)pd1
                                      : (double)r1;
                for (int64_t ow = 0; ow < OW; ow++) {
                    int64_t lw, hw, rw, pdw;
                    win_dim(p, 2, ow, &lw, &hw, &rw, &pdw);
                    const double cnt =
                        ch *
                        (double)(p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? pdw : rw);
                    const __m512d vc = _mm512_set1_pd(cnt);
                    const __m512d rc = _mm512_set1_pd(cnt > 0 ? 1.0 / cnt : 0.0);
                    const __m512 cf = _mm512_set1_ps((float)cnt);
                    const __m512 vf = _mm512_set1_ps(1.0f / (float)cnt);
                    for (int64_t c = 0; c < len; c += 16) {
                        const __mmask16 m = pf_cmask(len, c);
                        const __m512 v = _mm512_loadu_ps(sums + ow * cr + c);
                        const __mmask16 bad = _mm512_mask_fpclass_ps_mask(m, v, 0x99);
                        if (plain)
                            fd_cpu_mstore_ps(y + ow * t[4] + c, m & ~bad, pf_divf(v, cf, vf));
                        else
                            pf_box_out(y + ow * t[4] + c, m & ~bad, v, vc, vc, rc, rc, alpha,
                                       beta);
                        for (__mmask16 b = bad; b; b &= (__mmask16)(b - 1)) /* the ref's */
                            pf_box_fwd_exact(p, a, n, c0 + c + __builtin_ctz(b), oh, ow);
                    }
                }
            }
        }
    }
}

/* ---- backward, lanes along W (2-d) ---- */

/* dx row ih of a plane from its accumulators (NULL: none reached it). Plain stores: streaming
 * (non-temporal) stores measured 3x slower on the development VM. */
PF_AVX512 static void pf_flush_row(const double *acc, float *dx, int64_t W, double alpha,
                                   double beta)
{
    for (int64_t i0 = 0; i0 < W; i0 += 16) {
        const __mmask16 m = pf_lanes(0, min64(16, W - i0));
        __m512d lo = _mm512_setzero_pd(), hi = lo;
        if (acc) {
            lo = fd_cpu_mload_pd((__mmask8)m, acc + i0);
            hi = fd_cpu_mload_pd((__mmask8)(m >> 8), acc + i0 + 8);
        }
        pf_store_d(dx + i0, m, lo, hi, alpha, beta);
    }
}

/* The argmax of window (oh, ow) of one plane over rows [lo, hi), one lane: its offset in the
 * ring (slot of the row * W + column), or -1 when nothing beats the start value. */
static int64_t pf_argmax_one(const fd_pool_problem_t *p, const float *xp, int64_t lo, int64_t hi,
                             int64_t ow)
{
    const int64_t sw = p->stride[2], pw = p->pad[2], kw = p->win[2], W = p->in[2];
    const int64_t rlo = max64(0, -pw), rhi = min64(W, W + pw);
    const int64_t l = max64(rlo, ow * sw - pw), h = min64(rhi, ow * sw - pw + kw);
    float m = -INFINITY;
    int64_t pos = -1;
    for (int64_t ih = lo; ih < hi; ih++)
        for (int64_t iw = l; iw < h; iw++) {
            float v = xp[ih * p->xs[3] + iw];
            if (v != v) {
                if (p->propagate_nan)
                    return (ih % p->win[1]) * W + iw;
                continue;
            }
            if (v > m)
                m = v, pos = (ih % p->win[1]) * W + iw;
        }
    return pos;
}

PF_AVX512 static void pf_bwd_w(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                               int64_t u1)
{
    const int64_t H = p->in[1], W = p->in[2], OH = p->out[1], OW = p->out[2];
    const int64_t kh = p->win[1], kw = p->win[2], sh = p->stride[1], sw = p->stride[2];
    const int64_t ph = p->pad[1], pw = p->pad[2];
    const int64_t rlo_h = max64(0, -ph), rhi_h = min64(H, H + ph);
    const int64_t rlo = max64(0, -pw), rhi = min64(W, W + pw);
    const int mx = is_max(p), prop = p->propagate_nan;
    const int incl = p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
    const int64_t *s = p->xs, *t = p->dys, *q = p->dxs;
    const double alpha = a->alpha, beta = a->beta;
    int64_t owa, owb;
    pf_interior(p, &owa, &owb);
    /* per tap kx: the outputs whose column ow * sw - pw + kx is readable, [klo, khi) */
    int64_t klo[PF_KW_MAX], khi[PF_KW_MAX];
    for (int64_t kx = 0; kx < kw; kx++) {
        klo[kx] = min64(OW, max64(0, ceil_div(rlo + pw - kx, sw)));
        khi[kx] = max64(klo[kx], min64(OW, ceil_div(rhi + pw - kx, sw)));
    }
    /* per output column: the W factor of the average's divisor */
    double cw[PF_VALS];
    for (int64_t ow = 0; !mx && ow < OW; ow++) {
        int64_t l, h, rw, pdw;
        win_dim(p, 2, ow, &l, &h, &rw, &pdw);
        cw[ow] = (double)(incl ? pdw : rw);
    }
    for (int64_t pl = u0; pl < u1; pl++) {
        const int64_t n = pl / p->c, c = pl % p->c;
        const float *xp = (const float *)a->x + n * s[0] + c * s[1];
        const float *gp = (const float *)a->dy + n * t[0] + c * t[1];
        float *dxp = (float *)a->out + n * q[0] + c * q[1];
        double ringbuf[PF_RING + 2 * PF_GUARD], vals[PF_VALS + 16];
        double *ring = ringbuf + PF_GUARD;
        const __m512i iota =
            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        const __m512i even = _mm512_add_epi32(iota, iota);
        const __m512i iota_sw = _mm512_mullo_epi32(iota, _mm512_set1_epi32((int)sw));
        int64_t flushed = 0, zeroed = 0; /* rows [flushed, zeroed) are live in the ring */
        for (int64_t oh = 0; oh <= OH; oh++) {
            /* rows above this window's first row are complete (all of them after the last) */
            int64_t h0 = oh * sh - ph, to = oh == OH ? H : min64(H, max64(flushed, h0));
            for (; flushed < to; flushed++)
                pf_flush_row(flushed < zeroed ? ring + (flushed % kh) * W : NULL,
                             dxp + flushed * q[3], W, alpha, beta);
            zeroed = max64(zeroed, flushed);
            if (oh == OH)
                break;
            const int64_t lo = max64(h0, rlo_h), hi = min64(h0 + kh, rhi_h);
            if (lo >= hi)
                continue;
            for (; zeroed < hi; zeroed++)
                memset(ring + (zeroed % kh) * W, 0, (size_t)W * sizeof(double));
            const float *grow = gp + oh * t[3];
            if (mx) {
                /* each window's argmax once; its dy added to the one element, in ow order */
                for (int64_t ow = 0; ow < owa; ow++) {
                    int64_t pos = pf_argmax_one(p, xp, lo, hi, ow);
                    if (pos >= 0)
                        ring[pos] += (double)grow[ow];
                }
                for (int64_t ow0 = owa; ow0 < owb; ow0 += 16) {
                    const int len = (int)min64(16, owb - ow0);
                    const __mmask16 lanes = pf_lanes(0, len);
                    const int64_t b0 = ow0 * sw - pw;
                    const uint32_t m32 = sw == 2 ? pf_pair_mask(lanes) : lanes;
                    const __mmask16 mlo = (__mmask16)m32, mhi = (__mmask16)(m32 >> 16);
#define PF_TAP(q)                                                                                  \
    (sw == 1   ? fd_cpu_mload_ps(lanes, q)                                                   \
     : sw == 2 ? _mm512_permutex2var_ps(fd_cpu_mload_ps(mlo, q), even,                       \
                                        fd_cpu_mload_ps(mhi, (q) + 16))                      \
               : _mm512_mask_i32gather_ps(_mm512_setzero_ps(), lanes, iota_sw, q, 4))
                    __m512 m = _mm512_set1_ps(-INFINITY);
                    __m512i pos = _mm512_set1_epi32(-1);
                    if (prop) {
                        /* the first NaN wins and ends the window: one chain in window order */
                        __mmask16 done = 0;
                        for (int64_t ih = lo; ih < hi; ih++) {
                            const float *row = xp + ih * s[3] + b0;
                            const int64_t base = (ih % kh) * W + b0;
                            for (int64_t kx = 0; kx < kw; kx++) {
                                __m512 v = PF_TAP(row + kx);
                                __mmask16 gt =
                                    _mm512_mask_cmp_ps_mask(lanes & ~done, v, m, _CMP_GT_OQ);
                                __mmask16 nn =
                                    _mm512_mask_cmp_ps_mask(lanes & ~done, v, v, _CMP_UNORD_Q);
                                gt |= nn, done |= nn;
                                m = _mm512_mask_mov_ps(m, gt, v);
                                pos = _mm512_mask_mov_epi32(
                                    pos, gt,
                                    _mm512_add_epi32(iota_sw, _mm512_set1_epi32((int)(base + kx))));
                            }
                        }
                    } else {
                        /* each window row apart, then folded into the earlier rows' (strict >:
                         * the earliest maximum wins, as within a row) */
                        for (int64_t ih = lo; ih < hi; ih++) {
                            const float *row = xp + ih * s[3] + b0;
                            const int64_t base = (ih % kh) * W + b0;
                            __m512 hm = _mm512_set1_ps(-INFINITY);
                            __m512i hp = _mm512_set1_epi32(-1);
                            for (int64_t kx = 0; kx < kw; kx++) {
                                __m512 v = PF_TAP(row + kx);
                                __mmask16 gt = _mm512_cmp_ps_mask(v, hm, _CMP_GT_OQ);
                                hm = _mm512_mask_mov_ps(hm, gt, v);
                                hp = _mm512_mask_mov_epi32(
                                    hp, gt,
                                    _mm512_add_epi32(iota_sw, _mm512_set1_epi32((int)(base + kx))));
                            }
                            __mmask16 gt = _mm512_cmp_ps_mask(hm, m, _CMP_GT_OQ);
                            m = _mm512_mask_mov_ps(m, gt, hm);
                            pos = _mm512_mask_mov_epi32(pos, gt, hp);
                        }
                    }
#undef PF_TAP
                    int32_t pv[16];
                    float gv[16];
                    _mm512_storeu_si512(pv, pos);
                    _mm512_storeu_ps(gv, fd_cpu_mload_ps(lanes, grow + ow0));
                    for (int j = 0; j < len; j++)
                        if (pv[j] >= 0)
                            ring[pv[j]] += (double)gv[j];
                }
                for (int64_t ow = owb; ow < OW; ow++) {
                    int64_t pos = pf_argmax_one(p, xp, lo, hi, ow);
                    if (pos >= 0)
                        ring[pos] += (double)grow[ow];
                }
                continue;
            }
            /* average: vals[ow] = dy / count, the ref's division (a power-of-two count
             * multiplies by its exact reciprocal: the same rounding) */
            const double ch = (double)(incl ? min64(h0 + kh, H + ph) - max64(h0, -ph) : hi - lo);
            for (int64_t ow0 = 0; ow0 < OW; ow0 += 8) {
                const __mmask8 m8 = (__mmask8)pf_lanes(0, min64(8, OW - ow0));
                __m512d g = _mm512_cvtps_pd(pf_mload8(m8, grow + ow0));
                __m512d cnt =
                    _mm512_mul_pd(_mm512_set1_pd(ch), fd_cpu_mload_pd(m8, cw + ow0));
                _mm512_storeu_pd(
                    vals + ow0,
                    _mm512_maskz_div_pd(_mm512_cmp_pd_mask(cnt, _mm512_setzero_pd(), _CMP_GT_OQ), g,
                                        cnt));
            }
            /* taps in descending kx outside the output loop: each dx element receives its
             * windows in ascending order, and a vector is stored long before it is reloaded */
            for (int64_t ih = lo; ih < hi; ih++) {
                double *slot = ring + (ih % kh) * W;
                for (int64_t kx = kw - 1; kx >= 0; kx--) {
                    const int64_t o1 = khi[kx];
                    int64_t ow0 = klo[kx];
                    if (sw == 1) {
                        for (; ow0 < o1; ow0 += 8) {
                            const __mmask8 m8 = (__mmask8)pf_lanes(0, min64(8, o1 - ow0));
                            double *d = slot + ow0 - pw + kx;
                            __m512d r = fd_cpu_mload_pd(m8, d);
                            fd_cpu_mstore_pd(d, m8,
                                                  _mm512_add_pd(r, _mm512_loadu_pd(vals + ow0)));
                        }
                    } else if (sw == 2) {
                        const __m512i dup0 = _mm512_setr_epi64(0, 0, 1, 1, 2, 2, 3, 3);
                        const __m512i dup1 = _mm512_setr_epi64(4, 4, 5, 5, 6, 6, 7, 7);
                        for (; ow0 < o1; ow0 += 8) {
                            const uint32_t m16 =
                                _pdep_u32((uint32_t)pf_lanes(0, min64(8, o1 - ow0)), 0x5555u);
                            const __m512d v = _mm512_loadu_pd(vals + ow0);
                            double *d = slot + 2 * ow0 - pw + kx;
                            __m512d r0 = fd_cpu_mload_pd((__mmask8)m16, d);
                            __m512d r1 = fd_cpu_mload_pd((__mmask8)(m16 >> 8), d + 8);
                            fd_cpu_mstore_pd(
                                d, (__mmask8)m16,
                                _mm512_add_pd(r0, _mm512_permutexvar_pd(dup0, v)));
                            fd_cpu_mstore_pd(
                                d + 8, (__mmask8)(m16 >> 8),
                                _mm512_add_pd(r1, _mm512_permutexvar_pd(dup1, v)));
                        }
                    } else {
                        for (; ow0 < o1; ow0++)
                            slot[ow0 * sw - pw + kx] += vals[ow0];
                    }
                }
            }
        }
    }
}

/* NCHW average backward when no two windows overlap (kw <= sw, kh <= sh, sw 1 or 2): each dx
 * element is in at most one window, so its value is alpha * (0.0 + dy / count) (+ beta * dx),
 * the ref's sum of one term, written directly without the ring. */
PF_AVX512 static void pf_bwd_w_avg1(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                                    int64_t u1)
{
    const int64_t H = p->in[1], W = p->in[2], OH = p->out[1], OW = p->out[2];
    const int64_t kh = p->win[1], kw = p->win[2], sh = p->stride[1], sw = p->stride[2];
    const int64_t ph = p->pad[1], pw = p->pad[2];
    const int64_t rlo_h = max64(0, -ph), rhi_h = min64(H, H + ph);
    const int64_t rlo = max64(0, -pw), rhi = min64(W, W + pw);
    const int incl = p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
    const int64_t *t = p->dys, *q = p->dxs;
    const double alpha = a->alpha, beta = a->beta;
    const int dup2 = alpha == 1.0 && beta == 0.0 && kw == 2 && sw == 2 && pw == 0;
    /* dup2 rows of a large dx: built in wrow, streamed (no read for ownership of dx: 32 MB
     * of traffic instead of 58 for n8c64h112w112, whose median of six alternating rounds went
     * 2.14 -> 1.92 ms at two threads, 4.2 -> 3.7 ms at one) */
    const int nt = dup2 && q[4] == 1 && W <= PF_VALS && pf_nt_ok(p, a, q, p->in);
    float wrow[PF_VALS + 32] __attribute__((aligned(64)));
    int32_t col[PF_RING]; /* the window of each column, or -1 */
    for (int64_t iw = 0; iw < W; iw++) {
        const int64_t ow = floor_div(iw + pw, sw);
        const int ok = iw >= rlo && iw < rhi && ow >= 0 && ow < OW && iw + pw - ow * sw < kw;
        col[iw] = ok ? (int32_t)ow : -1;
    }
    double cw[PF_VALS];
    for (int64_t ow = 0; ow < OW; ow++) {
        int64_t l, h, rw, pdw;
        win_dim(p, 2, ow, &l, &h, &rw, &pdw);
        cw[ow] = (double)(incl ? pdw : rw);
    }
    /* the counts ch * cw of the last row factor and their reciprocals (0 for a count 0), kept
     * across planes: the quotients by pf_div_fast (the correctly rounded quotient, as the
     * ref's division; a -0 dy gives +0 here, which the +0.0 start of every use below makes
     * the same) instead of vdivpd, which set the pace in cache (2x2 / 2, one thread,
     * n1c4h112w112, min of 1000: 0.015-0.020 -> 0.012-0.015 ms) */
    double cnt[PF_VALS + 8], inv[PF_VALS + 8], have_ch = -1;
    for (int64_t pl = u0; pl < u1; pl++) {
        const int64_t n = pl / p->c, c = pl % p->c;
        const float *gp = (const float *)a->dy + n * t[0] + c * t[1];
        float *dxp = (float *)a->out + n * q[0] + c * q[1];
        double vals[PF_VALS + 16];
        float valsf[PF_VALS + 16];
        int64_t have = -1;
        for (int64_t ih = 0; ih < H; ih++) {
            const int64_t oh = floor_div(ih + ph, sh);
            float *dx = dxp + ih * q[3];
            if (ih < rlo_h || ih >= rhi_h || oh < 0 || oh >= OH || ih + ph - oh * sh >= kh) {
                pf_flush_row(NULL, dx, W, alpha, beta);
                continue;
            }
            if (oh != have) {
                int64_t l, h, rh, pdh;
                win_dim(p, 1, oh, &l, &h, &rh, &pdh);
                const double ch = (double)(incl ? pdh : rh);
                if (ch != have_ch) {
                    for (int64_t ow = 0; ow < OW; ow++) {
                        cnt[ow] = ch * cw[ow];
                        inv[ow] = cnt[ow] > 0 ? 1.0 / cnt[ow] : 0.0;
                    }
                    have_ch = ch;
                }
                const float *grow = gp + oh * t[3];
                for (int64_t ow0 = 0; ow0 < OW; ow0 += 8) {
                    const __mmask8 m8 = (__mmask8)pf_lanes(0, min64(8, OW - ow0));
                    __m512d g = _mm512_cvtps_pd(pf_mload8(m8, grow + ow0));
                    const __m512d v = pf_div_fast(g, fd_cpu_mload_pd(m8, cnt + ow0),
                                                  fd_cpu_mload_pd(m8, inv + ow0));
                    _mm512_storeu_pd(vals + ow0, v);
                    if (dup2) /* alpha * (0.0 + v), rounded once: the value the loop below stores */
                        _mm256_storeu_ps(valsf + ow0,
                                         _mm512_cvtpd_ps(_mm512_add_pd(_mm512_setzero_pd(), v)));
                }
                have = oh;
            }
            if (dup2) {
                /* 2-wide windows at stride 2 from column 0: columns 2j and 2j + 1 are window
                 * j's (none past OW), so a dx row is valsf with each value twice */
                const __m512i d0 =
                    _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
                const __m512i d1 = _mm512_add_epi32(d0, _mm512_set1_epi32(8));
                float *const dst = nt ? wrow : dx;
                for (int64_t j0 = 0; 2 * j0 < W; j0 += 16) {
                    const __m512 v =
                        fd_cpu_mload_ps(pf_lanes(0, min64(16, OW - j0)), valsf + j0);
                    fd_cpu_mstore_ps(dst + 2 * j0, pf_lanes(0, min64(16, W - 2 * j0)),
                                     _mm512_permutexvar_ps(d0, v));
                    fd_cpu_mstore_ps(dst + 2 * j0 + 16, pf_lanes(0, min64(16, W - 2 * j0 - 16)),
                                     _mm512_permutexvar_ps(d1, v));
                }
                if (nt)
                    pf_stream(dx, wrow, W);
                continue;
            }
            for (int64_t i0 = 0; i0 < W; i0 += 16) {
                const __mmask16 lanes = pf_lanes(0, min64(16, W - i0));
                const __m512i ci = _mm512_maskz_loadu_epi32(lanes, col + i0);
                const __mmask16 v = _mm512_mask_cmpge_epi32_mask(lanes, ci, _mm512_setzero_si512());
                __m512d lo = _mm512_setzero_pd(), hi = lo;
                if (v) {
                    const int32_t ob = col[i0 + __builtin_ctz(v)];
                    const __m512i rel = _mm512_sub_epi32(ci, _mm512_set1_epi32(ob));
                    const __m512d v0 = _mm512_loadu_pd(vals + ob),
                                  v1 = _mm512_loadu_pd(vals + ob + 8);
                    lo = _mm512_permutex2var_pd(
                        v0, _mm512_cvtepi32_epi64(_mm512_castsi512_si256(rel)), v1);
                    hi = _mm512_permutex2var_pd(
                        v0, _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(rel, 1)), v1);
                    lo = _mm512_maskz_add_pd((__mmask8)v, _mm512_setzero_pd(), lo);
                    hi = _mm512_maskz_add_pd((__mmask8)(v >> 8), _mm512_setzero_pd(), hi);
                }
                pf_store_d(dx + i0, lanes, lo, hi, alpha, beta);
            }
        }
    }
    if (nt)
        _mm_sfence(); /* the streamed rows, before the parallel loop's barrier */
}

/* ---- backward, lanes along C (2-d) ---- */

/* Argmax codes (ky * kw + kx, or -1) of output row oh, every ow and channel, into codes. */
PF_AVX512 static void pf_codes_row(const fd_pool_problem_t *p, const float *xb, int64_t oh,
                                   int8_t *codes)
{
    const int64_t OW = p->out[2], C = p->c, kw = p->win[2];
    const int64_t *s = p->xs;
    const int prop = p->propagate_nan;
    int64_t lo1, hi1, lo2, hi2, r, pd;
    win_dim(p, 1, oh, &lo1, &hi1, &r, &pd);
    const int64_t h0 = oh * p->stride[1] - p->pad[1];
    for (int64_t ow = 0; ow < OW; ow++) {
        win_dim(p, 2, ow, &lo2, &hi2, &r, &pd);
        const int64_t w0 = ow * p->stride[2] - p->pad[2];
        for (int64_t c0 = 0; c0 < C; c0 += 64) {
            __mmask16 cm[4], done[4] = {0, 0, 0, 0};
            __m512 m[4];
            __m128i code[4];
            for (int qq = 0; qq < 4; qq++) {
                cm[qq] = pf_lanes(0, max64(0, min64(16, C - c0 - 16 * qq)));
                m[qq] = _mm512_set1_ps(-INFINITY);
                code[qq] = _mm_set1_epi8(-1);
            }
            for (int64_t i1 = lo1; i1 < hi1; i1++) /* the window rows side by side: ahead */
                for (int qq = 0; qq < 4; qq++)
                    pf_ahead(xb + i1 * s[3] + (hi2 - 1) * s[4] + c0 + 16 * qq);
            for (int64_t i1 = lo1; !prop && i1 < hi1; i1++) /* no NaN to track: fewer masks */
                for (int64_t i2 = lo2; i2 < hi2; i2++) {
                    const float *src = xb + i1 * s[3] + i2 * s[4] + c0;
                    const __m128i kc = _mm_set1_epi8((char)((i1 - h0) * kw + (i2 - w0)));
                    for (int qq = 0; qq < 4; qq++) {
                        __m512 v = fd_cpu_mload_ps(cm[qq], src + 16 * qq);
                        __mmask16 gt = _mm512_cmp_ps_mask(v, m[qq], _CMP_GT_OQ);
                        m[qq] = _mm512_mask_mov_ps(m[qq], gt, v);
                        code[qq] = _mm_mask_mov_epi8(code[qq], gt, kc);
                    }
                }
            for (int64_t i1 = lo1; prop && i1 < hi1; i1++)
                for (int64_t i2 = lo2; i2 < hi2; i2++) {
                    const float *src = xb + i1 * s[3] + i2 * s[4] + c0;
                    const __m128i kc = _mm_set1_epi8((char)((i1 - h0) * kw + (i2 - w0)));
                    for (int qq = 0; qq < 4; qq++) {
                        const __mmask16 k = cm[qq] & (__mmask16)~done[qq];
                        __m512 v = fd_cpu_mload_ps(cm[qq], src + 16 * qq);
                        __mmask16 gt = _mm512_mask_cmp_ps_mask(k, v, m[qq], _CMP_GT_OQ);
                        if (prop) {
                            __mmask16 nn = _mm512_mask_cmp_ps_mask(k, v, v, _CMP_UNORD_Q);
                            gt |= nn, done[qq] |= nn;
                        }
                        m[qq] = _mm512_mask_mov_ps(m[qq], gt, v);
                        code[qq] = _mm_mask_mov_epi8(code[qq], gt, kc);
                    }
                }
            for (int qq = 0; qq < 4; qq++)
                if (cm[qq] == (__mmask16)0xFFFF) /* fd_cpu_mstore_ps's reason */
                    _mm_storeu_si128((__m128i *)(codes + ow * C + c0 + 16 * qq), code[qq]);
                else if (cm[qq])
                    _mm_mask_storeu_epi8(codes + ow * C + c0 + 16 * qq, cm[qq], code[qq]);
        }
    }
}

/* +0.0 plus the max-backward terms v[0 .. nw) in order, rounded once to float: in float when
 * h3 (the lanes with three hits or more) is empty, since a lane with at most two nonzero
 * terms has their double sum rounded once as its float sum (53 >= 2 * 24 + 2; +0.0 turns -0
 * into +0 in both), in double otherwise. */
PF_AVX512 static inline __attribute__((always_inline)) __m512 pf_hits_sum(const __m512 *v, int nw,
                                                                          __mmask16 h3)
{
    if (!h3) {
        __m512 acc = _mm512_setzero_ps();
        for (int i = 0; i < nw; i++)
            acc = _mm512_add_ps(acc, v[i]);
        return acc;
    }
    __m512d lo = _mm512_setzero_pd(), hi = lo;
    for (int i = 0; i < nw; i++) {
        lo = _mm512_add_pd(lo, pf_lo(v[i]));
        hi = _mm512_add_pd(hi, pf_hi(v[i]));
    }
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
}

/* One dx pixel of max backward with alpha 1, beta 0 and at most 4 windows (nw; code rows cr,
 * dy pixels gr, this pixel's tap in each kk, in ascending window order): per 16 channels the
 * hits of every window, then the sum of the hit dy from +0.0 in window order. A sum of at
 * most two floats rounded once from double is their float sum (pf_bwd_w_max2: double
 * rounding is innocuous for one addition), so pixels in at most two windows (3x3 stride 2:
 * three in four) sum in float, 16 lanes a vector, with the ref's bits. The double sums and
 * blend had kept NHWC 3x3 stride-2 max backward compute-bound (n8c64h112w112, one thread 4.5
 * ms). Pixels in three or four windows: pf_hits_sum, float unless a lane of the vector has
 * three hits. A test per vector was judged to mispredict on Zen 5 (a shared corner is often
 * the maximum of all its windows); on the 2-vCPU Xeon of 2026-12-04 it paid: in cache, one
 * thread, n1c64h56w56, 0.128 -> 0.120 ms; n8c64h112w112 from memory, two threads, median of
 * six rounds 4.20 -> 3.46 ms (docs/perf/cpu-memops-2026-12-04b.md). */
PF_AVX512 static inline __attribute__((always_inline)) void pf_bwd_c_pxn(int nw, const int8_t *const *cr, const float *const *gr,
                                   const int8_t *kk, int64_t C, float *dx)
{
    for (int64_t c = 0; c < C; c += 16) {
        const __mmask16 m = pf_lanes(0, min64(16, C - c));
        __m512 v[4];
        __mmask16 one = 0, two = 0, h3 = 0; /* lanes with at least 1, 2, 3 hits */
        for (int i = 0; i < nw; i++) {
            const __m128i cv = m == (__mmask16)0xFFFF
                                   ? _mm_loadu_si128((const __m128i *)(cr[i] + c))
                                   : _mm_maskz_loadu_epi8(m, cr[i] + c);
            const __mmask16 h = _mm_mask_cmpeq_epi8_mask(m, cv, _mm_set1_epi8((char)kk[i]));
            __m512 g = fd_cpu_mload_ps(m, gr[i] + c);
            __asm__("" : "+v"(g)); /* a whole load, not folded into a masked one (slow) */
            v[i] = _mm512_maskz_mov_ps(h, g);
            h3 |= two & h, two |= one & h, one |= h;
        }
        /* float sums unless some lane has three hits (from nw 3: the same element the maximum
         * of three windows, rare) */
        fd_cpu_mstore_ps(dx + c, m, pf_hits_sum(v, nw, h3));
    }
}

/* pf_bwd_c_pxn with the window count a constant (unrolled, the vectors in registers). */
PF_AVX512 static inline __attribute__((always_inline)) void pf_bwd_c_px4(int nw,
                                                                          const int8_t *const *cr,
                                                                          const float *const *gr,
                                                                          const int8_t *kk,
                                                                          int64_t C, float *dx)
{
    if (nw == 1) /* the common counts as constants; 0 and 3 (borders) as they come */
        pf_bwd_c_pxn(1, cr, gr, kk, C, dx);
    else if (nw == 2)
        pf_bwd_c_pxn(2, cr, gr, kk, C, dx);
    else if (nw == 4)
        pf_bwd_c_pxn(4, cr, gr, kk, C, dx);
    else
        pf_bwd_c_pxn(nw, cr, gr, kk, C, dx);
}

PF_AVX512 static void pf_bwd_c(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                               int64_t u1)
{
    const int64_t H = p->in[1], W = p->in[2], OH = p->out[1], OW = p->out[2], C = p->c;
    const int64_t kh = p->win[1], kw = p->win[2], sh = p->stride[1], sw = p->stride[2];
    const int64_t ph = p->pad[1], pw = p->pad[2];
    const int mx = is_max(p);
    const int64_t nband = (H + PF_BAND - 1) / PF_BAND;
    const int64_t R = (kh + sh - 1) / sh; /* output rows that share a dx row, at most */
    const int64_t *s = p->xs, *t = p->dys, *q = p->dxs;
    const double alpha = a->alpha, beta = a->beta;
    double chv[PF_VALS]; /* the H factor of each output row's divisor */
    /* non-overlapping average windows, alpha 1, beta 0: each dx pixel takes one dy pixel's
     * quotient (or +0), in float, the same bits (NHWC 2x2 stride 2: the double sums and blend
     * had kept the row compute-bound) */
    const int direct = !mx && kw <= sw && kh <= sh && alpha == 1.0 && beta == 0.0;
    const int fmax = mx && alpha == 1.0 && beta == 0.0; /* pf_bwd_c_px4's float sums */
    /* every pixel through pf_bwd_c_px4 or direct, dx packed along C and large: rows of pixels
     * into tmp, streamed (pf_stream; direct since 2026-12-04: NHWC 2x2 / 2 average
     * n8c64h112w112 from memory, median of six alternating rounds, two threads 2.12 -> 1.77
     * ms, one 3.9 -> 3.4 ms on the 2-vCPU Xeon) */
    const int nt = ((fmax && R * ((kw + sw - 1) / sw) <= 4) || direct) && C <= PF_NT && q[4] == C &&
                   pf_nt_ok(p, a, q, p->in);
    for (int64_t oh = 0; !mx && oh < OH; oh++) {
        int64_t l, h, rh, pdh;
        win_dim(p, 1, oh, &l, &h, &rh, &pdh);
        chv[oh] = (double)(p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? pdh : rh);
    }
    for (int64_t u = u0; u < u1; u++) {
        const int64_t n = u / nband, ih0 = (u % nband) * PF_BAND, ih1 = min64(H, ih0 + PF_BAND);
        const float *xb = (const float *)a->x + n * s[0];
        const float *gb = (const float *)a->dy + n * t[0];
        float *dxb = (float *)a->out + n * q[0];
        int8_t codes[PF_CODES];
        int64_t have_lo = 0, have_hi = 0;   /* output rows [have_lo, have_hi) hold codes */
        int32_t wlo[PF_VALS], whi[PF_VALS]; /* the windows of each column; whi < wlo: none */
        double cw[PF_VALS];                 /* the W factor of each window's divisor */
        for (int64_t iw = 0; iw < W; iw++) {
            int64_t l, h;
            int ok = windows_of(p, 2, iw, &l, &h);
            wlo[iw] = ok ? (int32_t)l : 1, whi[iw] = ok ? (int32_t)h : 0;
        }
        for (int64_t ow = 0; !mx && ow < OW; ow++) {
            int64_t l, h, rw, pdw;
            win_dim(p, 2, ow, &l, &h, &rw, &pdw);
            cw[ow] = (double)(p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? pdw : rw);
        }
        for (int64_t ih = ih0; ih < ih1; ih++) {
            int64_t olo, ohi;
            int rows_ok = windows_of(p, 1, ih, &olo, &ohi);
            if (rows_ok && mx) {
                if (olo >= have_hi || olo < have_lo)
                    have_lo = have_hi = olo;
                for (; have_hi <= ohi; have_hi++)
                    pf_codes_row(p, xb, have_hi, codes + (have_hi % R) * OW * C);
                have_lo = olo;
            }
            float tmp[PF_NT] __attribute__((aligned(64)));
            for (int64_t iw = 0, i0 = 0; iw < W; iw++) {
                const int64_t wl = wlo[iw], wh = whi[iw];
                const int ok = rows_ok && wl <= wh;
                float *dx = nt ? tmp + (iw - i0) * C : dxb + ih * q[3] + iw * q[4];
                if (fmax && (!ok || (ohi - olo + 1) * (wh - wl + 1) <= 4)) {
                    const int8_t *cr[4];
                    const float *gr[4];
                    int8_t kk[4];
                    int nw = 0;
                    for (int64_t oh = olo; ok && oh <= ohi; oh++)
                        for (int64_t ow = wl; ow <= wh; ow++, nw++) {
                            cr[nw] = codes + (oh % R) * OW * C + ow * C;
                            gr[nw] = gb + oh * t[3] + ow * t[4];
                            kk[nw] = (int8_t)((ih - (oh * sh - ph)) * kw + (iw - (ow * sw - pw)));
                        }
                    pf_bwd_c_px4(nw, cr, gr, kk, C, dx);
                } else if (direct && (!ok || chv[olo] * cw[wl] > 0)) {
                    /* at most one window: +0 + dy / count, rounded once (pf_divf: the float
                     * quotient, correctly rounded, is the double one rounded to float; its
                     * FMA step already turns -0 into +0, the add keeps that explicit) */
                    const float cf = ok ? (float)(chv[olo] * cw[wl]) : 1.0f;
                    const __m512 fc = _mm512_set1_ps(cf), fi = _mm512_set1_ps(1.0f / cf);
                    const float *g = ok ? gb + olo * t[3] + wl * t[4] : NULL;
                    for (int64_t c = 0; c < C; c += 16) {
                        const __mmask16 m = pf_lanes(0, min64(16, C - c));
                        const __m512 v = ok ? pf_divf(fd_cpu_mload_ps(m, g + c), fc, fi)
                                            : _mm512_setzero_ps();
                        fd_cpu_mstore_ps(dx + c, m, _mm512_add_ps(_mm512_setzero_ps(), v));
                    }
                } else {
                    for (int64_t c0 = 0; c0 < C; c0 += 64) {
                        __mmask16 cm[4] = {0xffff, 0xffff, 0xffff, 0xffff};
                        __m512d acc[8];
                        if (C - c0 < 64)
                            for (int qq = 0; qq < 4; qq++)
                                cm[qq] = pf_lanes(0, max64(0, min64(16, C - c0 - 16 * qq)));
                        for (int qq = 0; qq < 8; qq++)
                            acc[qq] = _mm512_setzero_pd();
                        for (int64_t oh = olo; ok && oh <= ohi; oh++) {
                            const double chh = mx ? 0 : chv[oh];
                            const int8_t *crow = codes + (oh % R) * OW * C;
                            for (int64_t ow = wl; ow <= wh; ow++) {
                                const float *g = gb + oh * t[3] + ow * t[4] + c0;
                                if (mx) {
                                    const int64_t k =
                                        (ih - (oh * sh - ph)) * kw + (iw - (ow * sw - pw));
                                    const __m128i kc = _mm_set1_epi8((char)k);
                                    for (int qq = 0; qq < 4; qq++) {
                                        /* no branch on hit: it is data, and would mispredict;
                                         * lanes without a hit add 0.0, exact */
                                        const __mmask16 hit = _mm_mask_cmpeq_epi8_mask(
                                            cm[qq],
                                            _mm_maskz_loadu_epi8(cm[qq],
                                                                 crow + ow * C + c0 + 16 * qq),
                                            kc);
                                        /* a whole-vector load, then the hits (a masked load
                                         * that misses the cache is slow on Zen 5) */
                                        __m512 v = _mm512_maskz_mov_ps(
                                            hit, fd_cpu_mload_ps(cm[qq], g + 16 * qq));
                                        acc[2 * qq] = _mm512_add_pd(acc[2 * qq], pf_lo(v));
                                        acc[2 * qq + 1] = _mm512_add_pd(acc[2 * qq + 1], pf_hi(v));
                                    }
                                    continue;
                                }
                                const double cnt = chh * cw[ow]; /* (1 * H) * W: exact */
                                const int p2 = is_pow2(cnt);
                                const __m512d vc = _mm512_set1_pd(cnt),
                                              rc = _mm512_set1_pd(1.0 / cnt);
                                for (int qq = 0; qq < 4; qq++) {
                                    __m512 v = fd_cpu_mload_ps(cm[qq], g + 16 * qq);
                                    __m512d v0 = pf_lo(v), v1 = pf_hi(v);
                                    v0 = p2 ? _mm512_mul_pd(v0, rc) : _mm512_div_pd(v0, vc);
                                    v1 = p2 ? _mm512_mul_pd(v1, rc) : _mm512_div_pd(v1, vc);
                                    acc[2 * qq] = _mm512_add_pd(acc[2 * qq], v0);
                                    acc[2 * qq + 1] = _mm512_add_pd(acc[2 * qq + 1], v1);
                                }
                            }
                        }
                        for (int qq = 0; qq < 4; qq++)
                            if (cm[qq])
                                pf_store_d(dx + c0 + 16 * qq, cm[qq], acc[2 * qq], acc[2 * qq + 1],
                                           alpha, beta);
                    }
                }
                if (nt && (iw + 1 - i0 == PF_NT / C || iw + 1 == W)) {
                    pf_stream(dxb + ih * q[3] + i0 * C, tmp, (iw + 1 - i0) * C);
                    i0 = iw + 1;
                }
            }
        }
    }
    if (nt)
        _mm_sfence(); /* the streamed rows, before the parallel loop's barrier */
}

/* NHWC max backward, alpha 1, beta 0, no NaN propagation, at most 4 windows a pixel (3x3
 * stride 2): pf_bwd_c's units and gather (pf_bwd_c_px4), but the argmax codes come from the
 * input rows read once each, in order: each row's maximum over every output column's taps
 * (kx of the first maximum) is folded into the running maximum and code of every open output
 * row that holds it (strict >, rows ascending: the window's first maximum, as pf_codes_row's
 * chain; a window without a taken tap keeps -1). pf_codes_row read the kh window rows side by
 * side, which Zen 5 ran at a fraction of the bandwidth (n8c64h112w112, one thread: codes ~2.5
 * of 4.4 ms). Open rows' maxima: a ring of R rows (oh % R); codes: a ring of 2 R rows (oh %
 * 2R: a dx row's output rows stay while the rows after them start). Rows of cb (C rounded up
 * to 16) channels. */
#define PF_RUN 7168    /* floats of the open rows' maxima (28 KiB) */
#define PF_RCODES 16384 /* int8 codes of the 2 R code rows */
#define PF_RCOLS 1024   /* dx columns */

static int pf_bwd_c_max_ok(const fd_pool_problem_t *p, const fd_pool_args_t *a)
{
    const int64_t R = (p->win[1] + p->stride[1] - 1) / p->stride[1];
    const int64_t cb = (p->c + 15) / 16 * 16, OW = p->out[2];
    return is_max(p) && !p->propagate_nan && a->alpha == 1.0 && a->beta == 0.0 &&
           R * ((p->win[2] + p->stride[2] - 1) / p->stride[2]) <= 4 && p->win[1] * p->win[2] <= 127 &&
           R * OW * cb <= PF_RUN && 2 * R * OW * cb <= PF_RCODES && p->in[2] <= PF_RCOLS;
}

/* Folds input row r (at xr) into the open output rows [olo, ohi] (those from ofirst on). */
PF_AVX512 static void pf_max_row_fold(const fd_pool_problem_t *p, const float *xr, int64_t r,
                                      int64_t olo, int64_t ohi, float *run, int8_t *codes,
                                      int64_t R, int64_t cb)
{
    const int64_t OW = p->out[2], C = p->c, kw = p->win[2], sh = p->stride[1], ph = p->pad[1];
    const int64_t s4 = p->xs[4];
    if (ohi - olo + 1 > 4)
        return; /* not taken (pf_bwd_c_max_ok: R <= 4) */
    float *mrow[4];
    int8_t *crow[4];
    int8_t koff[4];
    int first[4];
    const int no = (int)(ohi - olo + 1);
    for (int i = 0; i < no; i++) {
        const int64_t oh = olo + i, h0 = oh * sh - ph;
        mrow[i] = run + (oh % R) * OW * cb;
        crow[i] = codes + (oh % (2 * R)) * OW * cb;
        koff[i] = (int8_t)((r - h0) * kw);
        first[i] = r == max64(h0, max64(0, -ph)); /* the window's first readable row */
    }
    int64_t ahead = 0; /* pixels below: prefetched */
    for (int64_t ow = 0; ow < OW; ow++) {
        int64_t lo2, hi2, rd, pd;
        win_dim(p, 2, ow, &lo2, &hi2, &rd, &pd);
        const int64_t w0 = ow * p->stride[2] - p->pad[2];
        for (; ahead < hi2; ahead++)
            for (int64_t c = 0; c < C; c += 16)
                pf_ahead(xr + ahead * s4 + c);
        for (int64_t c = 0; c < C; c += 16) {
            const __mmask16 m = pf_lanes(0, min64(16, C - c));
            __m512 v = _mm512_set1_ps(-INFINITY);
            __m128i k = _mm_set1_epi8(-1);
            for (int64_t i2 = lo2; i2 < hi2; i2++) {
                const __m512 x = fd_cpu_mload_ps(m, xr + i2 * s4 + c);
                const __mmask16 gt = _mm512_cmp_ps_mask(x, v, _CMP_GT_OQ);
                v = _mm512_mask_mov_ps(v, gt, x);
                k = _mm_mask_mov_epi8(k, gt, _mm_set1_epi8((char)(i2 - w0)));
            }
            for (int i = 0; i < no; i++) {
                float *mv = mrow[i] + ow * cb + c;
                int8_t *cv = crow[i] + ow * cb + c;
                const __m128i kc = _mm_add_epi8(k, _mm_set1_epi8((char)koff[i]));
                if (first[i]) {
                    /* a lane whose row took no tap (k -1, v -inf) keeps -1 */
                    const __mmask16 taken =
                        _mm512_cmp_ps_mask(v, _mm512_set1_ps(-INFINITY), _CMP_GT_OQ);
                    _mm512_storeu_ps(mv, v);
                    _mm_storeu_si128((__m128i *)cv, _mm_mask_mov_epi8(_mm_set1_epi8(-1), taken, kc));
                    continue;
                }
                const __m512 old = _mm512_loadu_ps(mv);
                const __mmask16 gt = _mm512_cmp_ps_mask(v, old, _CMP_GT_OQ);
                _mm512_storeu_ps(mv, _mm512_mask_mov_ps(old, gt, v));
                _mm_storeu_si128((__m128i *)cv,
                                 _mm_mask_mov_epi8(_mm_loadu_si128((const __m128i *)cv), gt, kc));
            }
        }
    }
}

PF_AVX512 static void pf_bwd_c_max(const fd_pool_problem_t *p, const fd_pool_args_t *a,
                                   int64_t u0, int64_t u1)
{
    const int64_t H = p->in[1], W = p->in[2], OW = p->out[2], C = p->c;
    const int64_t kh = p->win[1], kw = p->win[2], sh = p->stride[1], sw = p->stride[2];
    const int64_t ph = p->pad[1], pw = p->pad[2];
    const int64_t nband = (H + PF_BAND - 1) / PF_BAND;
    const int64_t R = (kh + sh - 1) / sh, cb = (C + 15) / 16 * 16;
    const int64_t *s = p->xs, *t = p->dys, *q = p->dxs;
    const int nt = C <= PF_NT && q[4] == C && pf_nt_ok(p, a, q, p->in);
    float run[PF_RUN] __attribute__((aligned(64)));
    int8_t codes[PF_RCODES] __attribute__((aligned(64)));
    float tmp[PF_NT] __attribute__((aligned(64)));
    int16_t wlo[PF_RCOLS], whi[PF_RCOLS]; /* the windows of each column; whi < wlo: none */
    for (int64_t iw = 0; iw < W; iw++) {
        int64_t l, h;
        const int ok = windows_of(p, 2, iw, &l, &h);
        wlo[iw] = (int16_t)(ok ? l : 1), whi[iw] = (int16_t)(ok ? h : 0);
    }
    for (int64_t u = u0; u < u1; u++) {
        const int64_t n = u / nband, ih0 = (u % nband) * PF_BAND, ih1 = min64(H, ih0 + PF_BAND);
        const float *xb = (const float *)a->x + n * s[0];
        const float *gb = (const float *)a->dy + n * t[0];
        float *dxb = (float *)a->out + n * q[0];
        int64_t ofirst = -1, rnext = 0; /* output rows from ofirst; input rows below rnext done */
        for (int64_t ih = ih0; ih < ih1; ih++) {
            int64_t olo, ohi;
            const int rows_ok = windows_of(p, 1, ih, &olo, &ohi);
            if (rows_ok) {
                if (ofirst < 0) { /* the band's first output row: its window's rows from the top */
                    ofirst = olo;
                    rnext = max64(0, ofirst * sh - ph);
                }
                /* input rows through the last window row of ohi */
                const int64_t need = min64(H, min64(ohi * sh - ph + kh, H + ph));
                for (; rnext < need; rnext++) {
                    int64_t rlo, rhi;
                    if (!windows_of(p, 1, rnext, &rlo, &rhi))
                        continue;
                    pf_max_row_fold(p, xb + rnext * s[3], rnext, max64(rlo, ofirst), rhi, run,
                                    codes, R, cb);
                }
            }
            const int8_t *crh[4];
            const float *grh[4];
            int kyh[4];
            const int nrow = rows_ok ? (int)(ohi - olo + 1) : 0;
            for (int i = 0; i < nrow; i++) {
                const int64_t oh = olo + i;
                crh[i] = codes + (oh % (2 * R)) * OW * cb;
                grh[i] = gb + oh * t[3];
                kyh[i] = (int)((ih - (oh * sh - ph)) * kw);
            }
            int64_t gahead = 0; /* dy pixels of the last output row below: prefetched */
            for (int64_t iw = 0, i0 = 0; iw < W; iw++) {
                const int64_t wl = wlo[iw], wh = whi[iw];
                for (; nrow > 0 && gahead <= wh; gahead++) /* dy rows are read here first */
                    for (int64_t c = 0; c < C; c += 16)
                        pf_ahead(grh[nrow - 1] + gahead * t[4] + c);
                const int8_t *cr[4];
                const float *gr[4];
                int8_t kk[4];
                int nw = 0;
                for (int i = 0; wl <= wh && i < nrow; i++)
                    for (int64_t ow = wl; ow <= wh && nw < 4; ow++, nw++) {
                        cr[nw] = crh[i] + ow * cb;
                        gr[nw] = grh[i] + ow * t[4];
                        kk[nw] = (int8_t)(kyh[i] + (iw - (ow * sw - pw)));
                    }
                float *dx = nt ? tmp + (iw - i0) * C : dxb + ih * q[3] + iw * q[4];
                pf_bwd_c_px4(nw, cr, gr, kk, C, dx);
                if (nt && (iw + 1 - i0 == PF_NT / C || iw + 1 == W)) {
                    pf_stream(dxb + ih * q[3] + i0 * C, tmp, (iw + 1 - i0) * C);
                    i0 = iw + 1;
                }
            }
        }
    }
    if (nt)
        _mm_sfence(); /* the streamed rows, before the parallel loop's barrier */
}

/* ---- NCHW max backward with stride 2 along W: argmax codes, dx rows gathered ---- */

/* The ring path above scatters each window's dy into its argmax with a scalar loop, which made
 * 3x3 stride-2 max backward compute-bound. Here each output row's argmax is kept as a code per
 * window (ky * kw + kx, -1 for none; rows in a ring on the stack, -1 columns around) and every
 * dx row is gathered from the codes of the output rows that hold it: with stride 2, column iw
 * with iw + pw = 2 j + P (P its parity) is tap kx = P + 2 t of window j - t, so 8 values of j
 * at once give the 8 even and the 8 odd columns of a 16-column stretch, from 8-lane compares
 * of the codes and masked loads of dy, summed in double in the ref's window order (output rows
 * ascending, then windows ascending: t descending) from +0.0; lanes without a hit add +0.0,
 * which changes no bit. The two halves are interleaved and stored as dx columns at once (alpha,
 * beta in double, one rounding). The codes come from each input row's argmax over every
 * window's taps, found once per input row (3x3 stride 2 shares one row in two between output
 * rows) and folded per output row in window order (pf_codes_fold).
 * kw 3, alpha 1, beta 0 (the common case): a dx element in a row of one window row takes at
 * most two windows (even class: taps 2 and 0 of windows j - 1 and j; odd class: tap 1 of j),
 * and in a row of two window rows the odd class still takes at most two. A float sum of two
 * floats from +0.0 is their double sum rounded once (double rounding is innocuous for one
 * addition since 53 >= 2 * 24 + 2; 0.0 + v is exact, and maps -0 to +0 in both), so those sum
 * in float, 16 windows per vector instead of 8, with the same bits. This took the in-cache
 * time of 3x3 stride-2 max backward from 42 to 33-35 us per 4 planes (112x112) on the
 * development VM. The even class of a two-row dx row (up to four windows) sums in float too
 * when no lane of the vector has more than two hits (the same argument: at most two nonzero
 * terms), in double otherwise (2026-12-04; NHWC's pf_bwd_c_pxn the same: 0.036 -> 0.034 ms).
 * Taken for 2-d max pooling with sw = 2, kw <= 8, 0 <= pw and ph. */
#define PF_CODES_W 4096 /* int32 codes of the ring of output rows (16 KiB of stack) */
#define PF_MAX2_R 16     /* output rows sharing a dx row, at most */
#define PF_ARING 2560    /* floats (and int32 taps) of the ring of input-row maxima */

/* The row maxima hv and their taps hk of every output column of one input row (stride 2): the
 * first maximum of the column's readable taps (pf_argmax_one's rule; the first NaN when
 * PROPAGATE_NAN), its tap kx in hk (-1: none). Taps outside the row load as -inf, which never
 * beats the start value -inf and is no NaN: they are skipped as the ref skips them, so the
 * border columns take the vector loop too. kw and prop are constants where inlined. */
PF_AVX512 static inline __attribute__((always_inline)) void
pf_rowarg_k(const fd_pool_problem_t *p, int64_t kw, int prop, const uint64_t *xm, const float *row,
            float *hv, int32_t *hk)
{
    const int64_t OW = p->out[2], pw = p->pad[2];
    const __m512i even =
        _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    for (int64_t ow0 = 0; ow0 < OW; ow0 += 16) {
        const __mmask16 lanes = pf_lanes(0, min64(16, OW - ow0));
        const uint64_t vm = xm[ow0 / 16]; /* pf_rowarg_masks */
        pf_ahead(row + 2 * ow0), pf_ahead(row + 2 * ow0 + 16);
        __m512 m = ninf;
        __m512i code = _mm512_set1_epi32(-1);
        __mmask16 done = 0;
        for (int64_t kx = 0; kx < kw; kx++) {
            const float *q = row + 2 * ow0 - pw + kx;
            __m512 v;
            if (vm >> 63) { /* whole 32-float pairs: plain loads */
                v = _mm512_permutex2var_ps(_mm512_loadu_ps(q), even, _mm512_loadu_ps(q + 16));
            } else { /* the readable ones of the 32 columns from q */
                const uint32_t m32 = (uint32_t)(vm >> kx);
                v = _mm512_permutex2var_ps(
                    _mm512_mask_loadu_ps(ninf, (__mmask16)m32, q), even,
                    _mm512_mask_loadu_ps(ninf, (__mmask16)(m32 >> 16), q + 16));
            }
            __mmask16 gt;
            if (prop) {
                /* the first NaN is taken and ends the row (its value marks the row) */
                const __mmask16 live = lanes & (__mmask16)~done;
                const __mmask16 nn = _mm512_mask_cmp_ps_mask(live, v, v, _CMP_UNORD_Q);
                gt = _mm512_mask_cmp_ps_mask(live, v, m, _CMP_GT_OQ) | nn;
                done |= nn;
            } else {
                gt = _mm512_cmp_ps_mask(v, m, _CMP_GT_OQ);
            }
            m = _mm512_mask_mov_ps(m, gt, v);
            code = _mm512_mask_mov_epi32(code, gt, _mm512_set1_epi32((int)kx));
        }
        /* whole vectors into the ring (its rows are a vector longer than OW): masked stores
         * whose off lanes cross a page took a microcode assist on Zen 5 */
        _mm512_storeu_ps(hv + ow0, m);
        _mm512_storeu_si512(hk + ow0, code);
    }
}

/* pf_rowarg_k with the common window (3 taps, no NaN propagation) unrolled. */
PF_AVX512 static void pf_rowarg(const fd_pool_problem_t *p, const uint64_t *xm, const float *row,
                                float *hv, int32_t *hk)
{
    if (p->win[2] == 3 && !p->propagate_nan)
        pf_rowarg_k(p, 3, 0, xm, row, hv, hk);
    else
        pf_rowarg_k(p, p->win[2], p->propagate_nan, xm, row, hv, hk);
}

/* The slot d rows before slot sl of a ring of n rows (0 <= d <= n). */
static inline int64_t pf_ring_back(int64_t sl, int64_t d, int64_t n)
{
    return sl - d < 0 ? sl - d + n : sl - d;
}

/* pf_rowarg's loads per vector of 16 output columns (ow0 = 16 v): bit j of xm[v] set when column
 * 32 v - pw + j of the row is readable (j < 63), bit 63 when all 31 + kw columns that the
 * vector's taps load are (plain loads). */
static void pf_rowarg_masks(const fd_pool_problem_t *p, uint64_t *xm)
{
    const int64_t OW = p->out[2], pw = p->pad[2], W = p->in[2], kw = p->win[2];
    for (int64_t v = 0; 16 * v < OW; v++) {
        const int64_t b = 32 * v - pw;
        uint64_t m = 0;
        for (int64_t j = 0; j < 63; j++)
            m |= (uint64_t)(b + j >= 0 && b + j < W) << j;
        xm[v] = m | (uint64_t)(b >= 0 && b + kw - 1 + 32 <= W) << 63;
    }
}

/* The 32 dx columns c .. c + 31 of a row of W, lo and hi halves, under the mask of its columns
 * (bit j: column c + j lies in the row). */
PF_AVX512 static inline void pf_store32(float *dx, uint32_t m, __m512 lo, __m512 hi)
{
    if (m == ~0u) {
        _mm512_storeu_ps(dx, lo);
        _mm512_storeu_ps(dx + 16, hi);
    } else {
        fd_cpu_mstore_ps(dx, (__mmask16)m, lo);
        fd_cpu_mstore_ps(dx + 16, (__mmask16)(m >> 16), hi);
    }
}

/* Codes of output row oh (window rows [lo, hi), the first at h0) from the row maxima in the
 * ring: the rows folded in window order, a later row taken when strictly greater (the earliest
 * maximum wins, as in pf_argmax_one's single chain); with PROPAGATE_NAN the first row holding a
 * NaN gives its first NaN's code and ends the window, which is where the chain stops. */
PF_AVX512 static void pf_codes_fold(const fd_pool_problem_t *p, const float *rv, const int32_t *rk,
                                    int64_t rs, int64_t h0, int64_t lo, int64_t hi, int64_t sl0,
                                    int32_t *crow)
{
    const int64_t OW = p->out[2], kw = p->win[2], kh = p->win[1];
    const int prop = p->propagate_nan; /* sl0: the ring slot of row lo */
    for (int64_t ow0 = 0; ow0 < OW; ow0 += 16) {
        const __mmask16 lanes = pf_lanes(0, min64(16, OW - ow0));
        __m512 m = _mm512_set1_ps(-INFINITY);
        __m512i code = _mm512_set1_epi32(-1);
        __mmask16 done = 0;
        for (int64_t ih = lo, sl = sl0; ih < hi; ih++, sl = sl + 1 == kh ? 0 : sl + 1) {
            const int64_t slot = sl * rs + ow0;
            const __m512 v = _mm512_loadu_ps(rv + slot); /* whole vectors (pf_rowarg's) */
            const __m512i k = _mm512_add_epi32(_mm512_loadu_si512(rk + slot),
                                               _mm512_set1_epi32((int)((ih - h0) * kw)));
            __mmask16 gt;
            if (prop) {
                const __mmask16 live = lanes & (__mmask16)~done;
                const __mmask16 nn = _mm512_mask_cmp_ps_mask(live, v, v, _CMP_UNORD_Q);
                gt = _mm512_mask_cmp_ps_mask(live, v, m, _CMP_GT_OQ) | nn;
                done |= nn;
            } else {
                gt = _mm512_cmp_ps_mask(v, m, _CMP_GT_OQ);
            }
            m = _mm512_mask_mov_ps(m, gt, v);
            code = _mm512_mask_mov_epi32(code, gt, k);
        }
        /* a whole vector, -1 past OW (the code rows have room) */
        _mm512_storeu_si512(crow + ow0, _mm512_mask_mov_epi32(_mm512_set1_epi32(-1), lanes, code));
    }
}

/* A contiguous output written row by row with streaming stores and no partial line between
 * rows: each row is computed into buf after the pend floats still waiting for the rest of their
 * line, the whole lines are streamed to d and the rest moves to the front. */
typedef struct {
    float *d;     /* where buf[0] goes */
    int64_t pend; /* floats in buf before the next row */
    float buf[PF_VALS + 32] __attribute__((aligned(64)));
} pf_stage_t;

static void pf_stage_start(pf_stage_t *st, float *d)
{
    st->d = d, st->pend = 0;
}

/* Streams the whole lines of buf[0, pend + w) (all of it when last), keeps the rest. */
static void pf_stage_flush(pf_stage_t *st, int64_t w, int last)
{
    const int64_t total = st->pend + w;
    const uintptr_t d = (uintptr_t)st->d, e = (uintptr_t)(st->d + total) & ~(uintptr_t)63;
    const int64_t n = last ? total : e > d ? (int64_t)((e - d) / sizeof(float)) : 0;
    if (n <= 0) {
        st->pend = total;
        return;
    }
    pf_stream(st->d, st->buf, n);
    memmove(st->buf, st->buf + n, (size_t)(total - n) * sizeof(float));
    st->d += n, st->pend = total - n;
}

static void pf_stage_push(pf_stage_t *st, int64_t w)
{
    pf_stage_flush(st, w, 0);
}

static void pf_stage_end(pf_stage_t *st, int64_t w)
{
    pf_stage_flush(st, w, 1);
}

/* A row of w at row written in place instead: the rows before streamed, the stage restarted
 * after it. */
static float *pf_stage_skip(pf_stage_t *st, float *row, int64_t w)
{
    pf_stage_end(st, 0);
    pf_stage_start(st, row + w);
    return row;
}

/* 1 when pf_bwd_w_max2 takes p (kind 1, backward). */
static int pf_max2_ok(const fd_pool_problem_t *p)
{
    const int64_t R = (p->win[1] + p->stride[1] - 1) / p->stride[1];
    return is_max(p) && p->stride[2] == 2 && p->win[2] <= 8 && p->pad[2] >= 0 && p->pad[1] >= 0 &&
           R <= PF_MAX2_R && p->pad[2] < p->win[2] && R * (p->out[2] + 32) <= PF_CODES_W &&
           p->in[2] + p->pad[2] + 48 <= PF_VALS &&
           p->win[1] * ((p->out[2] + 15) / 16 * 16 + 16) <= PF_ARING;
}

PF_AVX512 static void pf_bwd_w_max2(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                                    int64_t u1)
{
    const int64_t H = p->in[1], W = p->in[2], OW = p->out[2];
    const int64_t kw = p->win[2], sh = p->stride[1], ph = p->pad[1], pw = p->pad[2];
    const int64_t R = (p->win[1] + sh - 1) / sh,
                  cs = OW + 32; /* code rows: 8 columns of -1 before */
    const int64_t tmax = (kw - 1) / 2;
    const int64_t *s = p->xs, *t = p->dys, *q = p->dxs;
    const double alpha = a->alpha, beta = a->beta;
    const __m512i il0 = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11);
    const __m512i il1 = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
    int32_t codes[PF_CODES_W], rk[PF_ARING];
    float rv[PF_ARING], gbuf[PF_CODES_W]; /* gbuf: the dy rows of the codes, zeros around */
    for (int64_t i = 0; i < R * cs; i++)
        gbuf[i] = 0.0f;
    /* ring rows of the row maxima: a vector longer than OW, whole-vector stores */
    const int64_t rs = (OW + 15) / 16 * 16 + 16, kh = p->win[1];
    for (int64_t i = 0; i < kh * rs; i++)
        rv[i] = 0.0f, rk[i] = -1;
    const int nt = q[4] == 1 && q[3] == W && pf_nt_ok(p, a, q, p->in);
    pf_stage_t st;
    uint64_t xm[PF_CODES_W / 16];  /* pf_rowarg's loads (OW < PF_CODES_W) */
    uint32_t dm[PF_VALS / 32 + 2]; /* the dx columns of each 32-column store (pf_store32) */
    pf_rowarg_masks(p, xm);
    for (int64_t j0 = pw / 2; 2 * j0 < pw + W; j0 += 16) {
        const int64_t c = 2 * j0 - pw;
        dm[(j0 - pw / 2) / 16] = (uint32_t)pf_lanes(max64(0, -c), min64(16, W - c)) |
                                 (uint32_t)pf_lanes(max64(0, -c - 16), min64(16, W - c - 16)) << 16;
    }
    for (int64_t pl = u0; pl < u1; pl++) {
        const int64_t n = pl / p->c, c = pl % p->c;
        const float *xp = (const float *)a->x + n * s[0] + c * s[1];
        const float *gp = (const float *)a->dy + n * t[0] + c * t[1];
        float *dxp = (float *)a->out + n * q[0] + c * q[1];
        for (int64_t i = 0; i < R * cs; i++)
            codes[i] = -1;
        /* output rows below have_hi: codes in their ring, the next at slot hsl; input rows
         * below rhave: maxima in theirs, the next at slot rsl */
        int64_t have_hi = 0, hsl = 0, rhave = 0, rsl = 0;
        pf_stage_start(&st, dxp);
        for (int64_t ih = 0; ih < H; ih++) {
            int64_t olo, ohi;
            if (nt && ih > 0) /* the row before, computed into the stage */
                pf_stage_push(&st, W);
            float *dx = nt ? st.buf + st.pend : dxp + ih * q[3];
            if (!windows_of(p, 1, ih, &olo, &ohi)) {
                pf_flush_row(NULL, dx, W, alpha, beta);
                continue;
            }
            const int64_t oh0 = max64(have_hi, olo);
            int64_t osl = oh0 == have_hi ? hsl : oh0 % R;
            for (int64_t oh = oh0; oh <= ohi; oh++, osl = osl + 1 == R ? 0 : osl + 1) {
                const int64_t h0 = oh * sh - ph, lo = max64(h0, 0), hi = min64(h0 + kh, H);
                const int64_t r0 = max64(rhave, lo);
                int64_t sl = r0 == rhave ? rsl : r0 % kh;
                for (int64_t r = r0; r < hi; r++, sl = sl + 1 == kh ? 0 : sl + 1)
                    pf_rowarg(p, xm, xp + r * s[3], rv + sl * rs, rk + sl * rs);
                if (hi > rhave) /* rows below hi now in the ring (hi - lo <= kh) */
                    rhave = hi, rsl = sl;
                pf_codes_fold(p, rv, rk, rs, h0, lo, hi, pf_ring_back(rsl, hi - lo, kh),
                              codes + osl * cs + 8);
                /* its dy row beside them: the taps below load whole vectors and select */
                const float *gsrc = gp + oh * t[3];
                float *gdst = gbuf + osl * cs + 8;
                for (int64_t i0 = 0; i0 < OW; i0 += 16) { /* whole vectors into the row */
                    const __mmask16 m = pf_lanes(0, min64(16, OW - i0));
                    pf_ahead(gsrc + i0);
                    _mm512_storeu_ps(gdst + i0, fd_cpu_mload_ps(m, gsrc + i0));
                }
            }
            if (ohi + 1 > have_hi)
                have_hi = ohi + 1, hsl = osl;
            /* per output row: its codes, its dy row and the codes of this dx row's taps */
            const int32_t *crow[PF_MAX2_R];
            const float *grow[PF_MAX2_R];
            int32_t kyk[PF_MAX2_R];
            const int nr = (int)(ohi - olo + 1);
            for (int r = 0; r < nr; r++) { /* rows olo .. ohi: the last nr below have_hi */
                const int64_t sl = pf_ring_back(hsl, nr - r, R);
                crow[r] = codes + sl * cs + 8;
                grow[r] = gbuf + sl * cs + 8;
                kyk[r] = (int32_t)((ih - ((olo + r) * sh - ph)) * kw);
            }
            if (kw == 3 && nr == 1 && alpha == 1.0 && beta == 0.0) {
                /* one window row, kw 3: an even column (P 0) takes at most two windows, an
                 * odd one at most one, and a sum of two floats rounded once from double is
                 * their float sum (double rounding is innocuous for one addition: 53 >= 2 *
                 * 24 + 2), so float sums from +0.0 in the same order give the same bits, 16
                 * windows at a time */
                const __m512 z = _mm512_setzero_ps();
                const __m512i k = _mm512_set1_epi32(kyk[0]);
                const __m512i k1 = _mm512_add_epi32(k, _mm512_set1_epi32(1));
                const __m512i k2 = _mm512_add_epi32(k, _mm512_set1_epi32(2));
                const __m512i lo16 =
                    _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
                const __m512i hi16 = _mm512_add_epi32(lo16, _mm512_set1_epi32(8));
                for (int64_t j0 = pw / 2; 2 * j0 < pw + W; j0 += 16) {
                    const __m512i c1 = _mm512_loadu_si512(crow[0] + j0 - 1);
                    const __m512i c0 = _mm512_loadu_si512(crow[0] + j0);
                    const float *g = grow[0] + j0;
                    __m512 e = _mm512_add_ps(z, _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(c1, k2),
                                                                    _mm512_loadu_ps(g - 1)));
                    e = _mm512_add_ps(
                        e, _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(c0, k), _mm512_loadu_ps(g)));
                    const __m512 o =
                        _mm512_add_ps(z, _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(c0, k1),
                                                             _mm512_loadu_ps(g)));
                    pf_store32(dx + 2 * j0 - pw, dm[(j0 - pw / 2) / 16],
                               _mm512_permutex2var_ps(e, lo16, o),
                               _mm512_permutex2var_ps(e, hi16, o));
                }
                continue;
            }
            if (kw == 3 && nr == 2 && alpha == 1.0 && beta == 0.0) {
                /* two window rows: an odd column takes at most two windows (float sums, as
                 * above), an even one up to four (double sums, rounded once) */
                const __m512 z = _mm512_setzero_ps();
                const __m512i lo16 =
                    _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
                const __m512i hi16 = _mm512_add_epi32(lo16, _mm512_set1_epi32(8));
                for (int64_t j0 = pw / 2; 2 * j0 < pw + W; j0 += 16) {
                    __m512 ev[4], o = z;
                    __mmask16 one = 0, two = 0, h3 = 0; /* even lanes with 1, 2, 3+ hits */
                    for (int r = 0; r < 2; r++) {
                        const __m512i c1 = _mm512_loadu_si512(crow[r] + j0 - 1);
                        const __m512i c0 = _mm512_loadu_si512(crow[r] + j0);
                        const __m512i k = _mm512_set1_epi32(kyk[r]);
                        const float *g = grow[r] + j0;
                        const __mmask16 h2 =
                            _mm512_cmpeq_epi32_mask(c1, _mm512_add_epi32(k, _mm512_set1_epi32(2)));
                        const __mmask16 h0 = _mm512_cmpeq_epi32_mask(c0, k);
                        const __mmask16 h1 =
                            _mm512_cmpeq_epi32_mask(c0, _mm512_add_epi32(k, _mm512_set1_epi32(1)));
                        ev[2 * r] = _mm512_maskz_mov_ps(h2, _mm512_loadu_ps(g - 1));
                        ev[2 * r + 1] = _mm512_maskz_mov_ps(h0, _mm512_loadu_ps(g));
                        h3 |= two & h2, two |= one & h2, one |= h2;
                        h3 |= two & h0, two |= one & h0, one |= h0;
                        o = _mm512_add_ps(o, _mm512_maskz_mov_ps(h1, _mm512_loadu_ps(g)));
                    }
                    /* the even class's four terms in window order */
                    const __m512 e = pf_hits_sum(ev, 4, h3);
                    pf_store32(dx + 2 * j0 - pw, dm[(j0 - pw / 2) / 16],
                               _mm512_permutex2var_ps(e, lo16, o),
                               _mm512_permutex2var_ps(e, hi16, o));
                }
                continue;
            }
            for (int64_t j0 = pw / 2; 2 * j0 < pw + W; j0 += 8) {
                __m512d e = _mm512_setzero_pd(), o = _mm512_setzero_pd();
                for (int r = 0; kw == 3 && r < nr; r++) { /* the common window, unrolled */
                    const __m256i c1 = _mm256_loadu_si256((const __m256i *)(crow[r] + j0 - 1));
                    const __m256i c0 = _mm256_loadu_si256((const __m256i *)(crow[r] + j0));
                    const float *g = grow[r] + j0;
                    const __m256i k = _mm256_set1_epi32(kyk[r]);
                    const __mmask8 h2 =
                        _mm256_cmpeq_epi32_mask(c1, _mm256_add_epi32(k, _mm256_set1_epi32(2)));
                    const __mmask8 h0 = _mm256_cmpeq_epi32_mask(c0, k);
                    const __mmask8 h1 =
                        _mm256_cmpeq_epi32_mask(c0, _mm256_add_epi32(k, _mm256_set1_epi32(1)));
                    e = _mm512_add_pd(
                        e, _mm512_cvtps_pd(_mm256_maskz_mov_ps(h2, _mm256_loadu_ps(g - 1))));
                    e = _mm512_add_pd(e,
                                      _mm512_cvtps_pd(_mm256_maskz_mov_ps(h0, _mm256_loadu_ps(g))));
                    o = _mm512_add_pd(o,
                                      _mm512_cvtps_pd(_mm256_maskz_mov_ps(h1, _mm256_loadu_ps(g))));
                }
                for (int r = 0; kw != 3 && r < nr; r++) {
                    for (int64_t tt = tmax; tt >= 0; tt--) {
                        const __m256i cv = _mm256_loadu_si256((const __m256i *)(crow[r] + j0 - tt));
                        const float *g = grow[r] + j0 - tt;
                        const int32_t k0 = kyk[r] + (int32_t)(2 * tt);
                        const __mmask8 he = _mm256_cmpeq_epi32_mask(cv, _mm256_set1_epi32(k0));
                        e = _mm512_add_pd(
                            e, _mm512_cvtps_pd(_mm256_maskz_mov_ps(he, _mm256_loadu_ps(g))));
                        if (2 * tt + 1 < kw) {
                            const __mmask8 ho =
                                _mm256_cmpeq_epi32_mask(cv, _mm256_set1_epi32(k0 + 1));
                            o = _mm512_add_pd(
                                o, _mm512_cvtps_pd(_mm256_maskz_mov_ps(ho, _mm256_loadu_ps(g))));
                        }
                    }
                }
                /* columns c .. c + 16 of dx, interleaved and flushed at once */
                const int64_t c = 2 * j0 - pw;
                pf_store_d(dx + c, pf_lanes(max64(0, -c), min64(16, W - c)),
                           _mm512_permutex2var_pd(e, il0, o), _mm512_permutex2var_pd(e, il1, o),
                           alpha, beta);
            }
        }
        if (nt)
            pf_stage_end(&st, W);
    }
    if (nt)
        _mm_sfence(); /* the streamed rows, before the parallel loop's barrier */
}

/* ---- stride-1 averages (both layouts): box sums over rows converted once ---- */

/* Stride-1 averages ("box" rows), FLOAT, NOT bit-identical with ref in general (product decision
 * 2026-11-30, docs/testing.md): the ref's double sums of all kh x kw taps per output (9
 * dependent adds of 8 lanes per 8 outputs for 3x3) kept these rows compute-bound at ~0.3 of one
 * thread's bandwidth, and separable double sums were still load/store-bound (in-cache time only
 * 1.1-1.4x better). Here the window sums are separable and in float: each input row (forward)
 * or each row of dy / count (backward) gets its kw-tap sums along W once, in tap order, into a
 * ring of kh rows on the stack; every output adds the (readable) rows of its window to +0.0 in
 * row order (the zero start keeps a window of -0 taps at +0, as the ref's sum from +0.0). Taps
 * outside the input (forward) or windows outside y (backward) are +0 lanes. So each output's
 * terms are the ref's, grouped by rows, each add rounded to float.
 * - Forward, alpha 1 and beta 0: the float sum divided in float by q = v * (1 / cnt) corrected
 *   by one FMA step (Markstein: the correctly rounded quotient; pf_divf). Other alpha / beta:
 *   the float sum converted to double, divided as the ref (pf_div) and blended in double,
 *   rounded once (pf_store_d). When the float sums are exact (integer fills whose partial sums
 *   stay below 2^24, or terms of one small exponent range) both are the ref's bits: the double
 *   path is the ref's arithmetic, and rounding the quotient once to float equals the ref's
 *   double quotient rounded to float for every integer sum below 2^24 and count up to 256
 *   (checked exhaustively; the Markstein step equals vdivps on 4.6e8 random quotients). Otherwise
 *   |cpu - ref| is within the f32 accumulation bound of docs/testing.md (K = kh kw terms).
 * - Backward: dy / count in float (pf_divf), sums in float, the alpha / beta blend in float
 *   (alpha v, then + beta dx by one FMA): within the same bound with K = the windows of the
 *   element plus the division's rounding.
 * - Lanes whose float sum (forward) or result (backward) is not finite (inf / NaN inputs, or a
 *   float overflow that the ref's double does not have) are left out of the vector store and
 *   recomputed by the ref's formula (pf_box_*_exact): the ref's bits there.
 * Columns: NCHW lanes are 16 adjacent outputs (cb = 1 float per ring column, a unit is one
 * plane; the kw = 3 row sums take the neighbours by valignd from one load per vector); NHWC
 * lanes are 16 channels, a ring column holds all channels of a pixel (cb = C rounded up to 16)
 * and a unit is a run of ck output (forward) or dx (backward) columns of one image, all rows,
 * ck chosen so that the kh ring rows (and backward's dy / count row) fit PF_BOX_RING floats:
 * whole rows of 112 pixels x 64 channels (L2; units of L1-sized strips read x in 8 KiB pieces
 * a row apart, 1.1-2.6x slower on Zen 5). Each output's operations are
 * the same in both layouts and for any split, so NCHW and NHWC give the same bits and
 * OMP_NUM_THREADS does not change them. Measured (shared 2-core VM, one thread, n8c64h112w112
 * 3x3 s1 p1 exclude): NCHW forward 5.5 -> 2.6-3.3 ms, backward 6.3 -> 3.3-3.8 ms; NHWC forward
 * 8.1 -> 5.4-5.9 ms, backward 12.5 -> 5.4-6.4 ms (NHWC stays memory-stalled on the x / dy
 * loads and y stores; not understood yet). */
#define PF_BOX 32768   /* floats of the ring and the dy / count row (128 KiB of stack) */
#define PF_BOXCOL 1024 /* output (forward) / input (backward) columns of one row, at most */
#define PF_BOX_RING 28672 /* floats of the NHWC ring and dy / count row (112 KiB: L2) */

typedef struct {
    int64_t cb;   /* floats per ring column: 1 (NCHW) or C rounded up to 16 (NHWC) */
    int64_t rs;   /* floats per ring row */
    int64_t nsum; /* floats of window sums per row (NCHW: columns rounded up to 16) */
    int64_t trs;  /* floats of the backward dy / count row */
    int64_t ck;   /* NHWC: output (forward) / dx (backward) columns per unit; NCHW: all */
} pf_box_t;

/* 1 when the stride-1 average path takes p (kind from pf_kind); fills g. */
static int pf_box_plan(const fd_pool_problem_t *p, int bwd, int kind, pf_box_t *g)
{
    if (is_max(p) || kind == 0 || p->in[0] != 1 || p->out[0] != 1 || p->win[0] != 1 ||
        p->pad[0] != 0 || p->stride[2] != 1 || p->pad[1] < 0 || p->pad[2] < 0 || p->win[1] > 16 ||
        p->win[2] > 16 || p->out[2] > PF_BOXCOL || p->in[2] > PF_BOXCOL)
        return 0;
    const int64_t W = p->in[2], OW = p->out[2], kw = p->win[2];
    const int64_t ncol = bwd ? W : OW;
    g->cb = kind == 2 ? (p->c + 15) / 16 * 16 : 1;
    /* NHWC: a unit is a run of ck columns, all rows, so that its kh ring rows (and the dy /
     * count row) stay within PF_BOX_RING floats; NCHW: a unit is a plane */
    g->ck = kind == 2 ? max64(1, min64(ncol, PF_BOX_RING / ((p->win[1] + bwd) * g->cb))) : ncol;
    g->nsum = kind == 2 ? g->ck * g->cb : (ncol + 15) / 16 * 16;
    g->rs = (g->nsum + 15) / 16 * 16;
    /* backward: NCHW dy / count at row[0 .. OW); NHWC the ck + kw - 1 columns of dy / count
     * the unit's dx columns read */
    g->trs = 0;
    if (bwd)
        g->trs = kind == 2 ? (g->ck + kw - 1) * g->cb : (OW + 15) / 16 * 16;
    return p->win[1] * g->rs + g->trs <= PF_BOX;
}

/* The W factors of the counts (per output column) and the rows' (per output row). */
static double pf_cw(const fd_pool_problem_t *p, int64_t ow)
{
    int64_t l, h, r, pd;
    win_dim(p, 2, ow, &l, &h, &r, &pd);
    return (double)(p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? pd : r);
}

static double pf_ch(const fd_pool_problem_t *p, int64_t oh)
{
    int64_t l, h, r, pd;
    win_dim(p, 1, oh, &l, &h, &r, &pd);
    return (double)(p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? pd : r);
}

/* cw[ow] = pf_cw(p, ow), once per call of a box path. */
static void pf_cws(const fd_pool_problem_t *p, double *cw)
{
    for (int64_t ow = 0; ow < p->out[2]; ow++)
        cw[ow] = pf_cw(p, ow);
}

/* cnt[ow] = ch * cw[ow] and inv[ow] = 1 / cnt[ow] (the ref's count: (1 * ch) * cw, exact);
 * the float copies for the backward quotients (1 / cnt rounded to float from float). The W
 * factors come from pf_cws, once per call, and the callers keep the counts of the last row
 * factor across their units (a 3 x 3 / 1 window's planes need two sets, not three per plane):
 * NCHW backward in cache, one thread, n1c4h112w112, 0.0244 -> 0.0233 ms. */
static void pf_counts(const fd_pool_problem_t *p, double ch, const double *cw, double *cnt,
                      double *inv, float *cf, float *vf)
{
    for (int64_t ow = 0; ow < p->out[2]; ow++) {
        cnt[ow] = ch * cw[ow];
        inv[ow] = 1.0 / cnt[ow];
        cf[ow] = (float)cnt[ow];
        vf[ow] = 1.0f / cf[ow];
    }
}

/* alpha v (+ beta y) in float, lanes m; returns the lanes whose result is not finite (not
 * stored). */
PF_AVX512 static inline __mmask16 pf_store_f(float *y, __mmask16 m, __m512 v, float alpha,
                                             float beta)
{
    if (alpha != 1.0f)
        v = _mm512_mul_ps(_mm512_set1_ps(alpha), v);
    if (beta != 0.0f)
        v = _mm512_fmadd_ps(_mm512_set1_ps(beta), fd_cpu_mload_ps(m, y), v);
    const __mmask16 bad = _mm512_mask_fpclass_ps_mask(m, v, 0x99);
    fd_cpu_mstore_ps(y, m & ~bad, v); /* y stays the old value where the ref's is due */
    return bad;
}

/* Lanes j of a 16-column vector at column b whose column b + j lies in [0, n). */
static inline __mmask16 pf_cols(int64_t b, int64_t n)
{
    return pf_lanes(max64(0, -b), min64(16, max64(0, n - b)));
}

/* Forward row sums of input row xr into dst: NCHW, column ow = sum over kx of x[ow + kx - pw]
 * (+0 outside [0, W)), in kx order. Each input vector is loaded once: tap kx of the 16
 * outputs at o is lanes kx .. kx + 15 of the pair (x[o - pw ..], x[o - pw + 16 ..]), taken by
 * valignd for kw = 3 (the other widths load every tap). */
PF_AVX512 static void pf_hsum_w(const float *xr, int64_t W, int64_t pw, int64_t kw, int64_t nsum,
                                float *dst)
{
    if (kw == 3) {
        int64_t b = -pw;
        __m512 l0 = fd_cpu_mload_ps(pf_cols(b, W), xr + b);
        for (int64_t o = 0; o < nsum; o += 16, b += 16) {
            pf_ahead(xr + b + 16);
            const __m512 l1 = b + 32 <= W && b + 16 >= 0
                                  ? _mm512_loadu_ps(xr + b + 16)
                                  : fd_cpu_mload_ps(pf_cols(b + 16, W), xr + b + 16);
            const __m512i i0 = _mm512_castps_si512(l0), i1 = _mm512_castps_si512(l1);
            __m512 sum = _mm512_add_ps(l0, _mm512_castsi512_ps(_mm512_alignr_epi32(i1, i0, 1)));
            sum = _mm512_add_ps(sum, _mm512_castsi512_ps(_mm512_alignr_epi32(i1, i0, 2)));
            _mm512_store_ps(dst + o, sum);
            l0 = l1;
        }
        return;
    }
    for (int64_t o = 0; o < nsum; o += 16) {
        const int64_t b = o - pw;
        __m512 sum;
        if (b >= 0 && b + 15 + kw - 1 < W) {
            sum = _mm512_loadu_ps(xr + b);
            for (int64_t kx = 1; kx < kw; kx++)
                sum = _mm512_add_ps(sum, _mm512_loadu_ps(xr + b + kx));
        } else {
            sum = fd_cpu_mload_ps(pf_cols(b, W), xr + b);
            for (int64_t kx = 1; kx < kw; kx++)
                sum = _mm512_add_ps(sum, fd_cpu_mload_ps(pf_cols(b + kx, W), xr + b + kx));
        }
        _mm512_store_ps(dst + o, sum);
    }
}

/* The same along pixels (NHWC) for columns [ow0, ow1): column ow (cb floats, at dst +
 * (ow - ow0) cb) = sum over kx of pixel ow + kx - pw. */
PF_AVX512 static void pf_hsum_c(const float *xr, int64_t ps, int64_t W, int64_t pw, int64_t kw,
                                int64_t ow0, int64_t ow1, int64_t C, int64_t cb, float *dst,
                                const float *next)
{
    dst -= ow0 * cb;
    for (int64_t ow = ow0; ow < ow1; ow++) {
        const int64_t k0 = max64(0, pw - ow), k1 = min64(kw, W + pw - ow); /* readable taps */
        for (int64_t c = 0; c < cb; c += 16) {
            /* the next row's pixels, a row of work ahead (no gain measured on the loaded
             * VM; NHWC stays memory-stalled, see the section header) */
            if (next && ow < W)
                _mm_prefetch((const char *)(next + ow * ps + c), _MM_HINT_T0);
            const __mmask16 cm = pf_lanes(0, min64(16, C - c));
            __m512 s = _mm512_setzero_ps();
            if (k0 < k1) {
                const float *q = xr + (ow + k0 - pw) * ps + c;
                s = fd_cpu_mload_ps(cm, q);
                for (int64_t kx = k0 + 1; kx < k1; kx++)
                    s = _mm512_add_ps(s, fd_cpu_mload_ps(cm, q + (kx - k0) * ps));
            }
            _mm512_storeu_ps(dst + ow * cb + c, s);
        }
    }
}

/* dst[f] = sum over kx < kw of src[f + kx cb], f in [0, n) (n a multiple of 16). */
PF_AVX512 static void pf_hsum_t(const float *src, int64_t cb, int64_t kw, int64_t n, float *dst)
{
    for (int64_t f = 0; f < n; f += 16) {
        __m512 s = _mm512_loadu_ps(src + f);
        for (int64_t kx = 1; kx < kw; kx++)
            s = _mm512_add_ps(s, _mm512_loadu_ps(src + f + kx * cb));
        _mm512_storeu_ps(dst + f, s);
    }
}

/* +0.0 plus the rows rp[0 .. nr) at f, in row order. */
PF_AVX512 static inline __m512 pf_vsum(float *const *rp, int nr, int64_t f)
{
    __m512 s = _mm512_setzero_ps();
    for (int r = 0; r < nr; r++)
        s = _mm512_add_ps(s, _mm512_loadu_ps(rp[r] + f));
    return s;
}

/* pf_vsum of 3 rows. */
PF_AVX512 static inline __m512 pf_vsum3(float *const *rp, int64_t f)
{
    const __m512 s = _mm512_add_ps(_mm512_setzero_ps(), _mm512_loadu_ps(rp[0] + f));
    return _mm512_add_ps(_mm512_add_ps(s, _mm512_loadu_ps(rp[1] + f)), _mm512_loadu_ps(rp[2] + f));
}

/* One NCHW output row of a plain (alpha 1, beta 0) forward with three window rows and every
 * count positive: y = ((+0 + r0) + r1) + r2, divided by pf_divf's steps, with no branch in the
 * loop; returns 1 when some sum was not finite (those outputs are wrong and must be redone;
 * beta = 0, so nothing is lost by the store). */
PF_AVX512 static int pf_box_row3(const float *r0, const float *r1, const float *r2, const float *cf,
                                 const float *vf, float *y, int64_t OW)
{
    __mmask16 bad = 0;
    for (int64_t o = 0; o < OW; o += 16) {
        const __m512 v =
            _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_setzero_ps(), _mm512_load_ps(r0 + o)),
                                        _mm512_load_ps(r1 + o)),
                          _mm512_load_ps(r2 + o));
        const __m512 vi = _mm512_load_ps(vf + o), q0 = _mm512_mul_ps(v, vi);
        const __m512 q = _mm512_fmadd_ps(_mm512_fnmadd_ps(q0, _mm512_load_ps(cf + o), v), vi, q0);
        bad |= _mm512_fpclass_ps_mask(v, 0x99);
        if (o + 16 <= OW)
            _mm512_storeu_ps(y + o, q);
        else
            fd_cpu_mstore_ps(y + o, pf_lanes(0, OW - o), q);
    }
    return bad != 0;
}

/* y = ((+0 + r0) + r1) + r2 for one NCHW row of n (alpha 1, beta 0), no branch in the loop;
 * returns 1 when some result is not finite (to be redone; beta = 0 loses nothing). */
PF_AVX512 static int pf_box_sum3(const float *r0, const float *r1, const float *r2, float *y,
                                 int64_t n)
{
    __mmask16 bad = 0;
    for (int64_t o = 0; o < n; o += 16) {
        const __m512 v =
            _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_setzero_ps(), _mm512_load_ps(r0 + o)),
                                        _mm512_load_ps(r1 + o)),
                          _mm512_load_ps(r2 + o));
        bad |= _mm512_fpclass_ps_mask(v, 0x99);
        if (o + 16 <= n)
            _mm512_storeu_ps(y + o, v);
        else
            fd_cpu_mstore_ps(y + o, pf_lanes(0, n - o), v);
    }
    return bad != 0;
}

/* One NCHW backward row of 3 x 3 windows, pad 1 along W (OW = W), alpha 1, beta 0, when this
 * dx row's windows are output rows olo, olo + 1 and a new one (ring rows r0, r1 and rn): in one
 * pass over the columns, the new dy row's quotients (pf_divf, 16 columns a block, zero past
 * OW), their 3-tap sums into rn (left neighbour + block + right neighbour, pf_hsum_w's order
 * for its pad 1, the neighbours taken by valignd from the adjacent blocks) and dx = ((+0 + r0)
 * + r1) + rn (pf_box_sum3's order): the same operations as the three passes of the general
 * rows, without their two row buffers' stores and loads. In cache, one thread, n1c4h112w112,
 * min of 1000: 0.0235 -> 0.0176 ms; n8c64h112w112 from memory, two threads, median of six
 * alternating rounds: 4.3 -> 3.35 ms (2-vCPU Xeon; streaming the dx rows on top was no faster
 * there). Returns 1 when some dx is not finite (to be redone; rn is complete). */
PF_AVX512 static int pf_box_bwd_row3(const float *g, const float *cf, const float *vf, int64_t OW,
                                     const float *r0, const float *r1, float *rn, float *dx,
                                     int64_t W)
{
    const __m512 z = _mm512_setzero_ps();
    __mmask16 bad = 0;
    __m512 qp = z, qc = pf_divf(fd_cpu_mload_ps(pf_lanes(0, min64(16, OW)), g), _mm512_load_ps(cf),
                                _mm512_load_ps(vf));
    for (int64_t i0 = 0; i0 < W; i0 += 16) {
        const int64_t j = i0 + 16;
        pf_ahead(g + j);
        const __m512 qn = j < OW ? pf_divf(fd_cpu_mload_ps(pf_lanes(0, min64(16, OW - j)), g + j),
                                           _mm512_load_ps(cf + j), _mm512_load_ps(vf + j))
                                 : z;
        const __m512i ip = _mm512_castps_si512(qp), ic = _mm512_castps_si512(qc),
                      in = _mm512_castps_si512(qn);
        const __m512 left = _mm512_castsi512_ps(_mm512_alignr_epi32(ic, ip, 15));
        const __m512 right = _mm512_castsi512_ps(_mm512_alignr_epi32(in, ic, 1));
        const __m512 h = _mm512_add_ps(_mm512_add_ps(left, qc), right);
        _mm512_store_ps(rn + i0, h);
        const __m512 v = _mm512_add_ps(
            _mm512_add_ps(_mm512_add_ps(z, _mm512_load_ps(r0 + i0)), _mm512_load_ps(r1 + i0)), h);
        bad |= _mm512_fpclass_ps_mask(v, 0x99);
        if (i0 + 16 <= W)
            _mm512_storeu_ps(dx + i0, v);
        else
            fd_cpu_mstore_ps(dx + i0, pf_lanes(0, W - i0), v);
        qp = qc, qc = qn;
    }
    return bad != 0;
}

/* Units: NCHW one plane; NHWC a run of g->ck columns (of y forward, of dx backward). */
static int64_t pf_box_units(const fd_pool_problem_t *p, const pf_box_t *g, int bwd)
{
    if (g->cb == 1)
        return p->n * p->c;
    return p->n * (((bwd ? p->in[2] : p->out[2]) + g->ck - 1) / g->ck);
}

/* Outputs the float sums cannot give (a non-finite sum: inf / NaN inputs, or float overflow
 * where the ref's double does not): the ref's double sum in its order, its division and
 * blend, for output (n, c, oh, ow). */
static void pf_box_fwd_exact(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t n,
                             int64_t c, int64_t oh, int64_t ow)
{
    int64_t lo[2], hi[2], r[2], pd[2];
    win_dim(p, 1, oh, &lo[0], &hi[0], &r[0], &pd[0]);
    win_dim(p, 2, ow, &lo[1], &hi[1], &r[1], &pd[1]);
    const int64_t *s = p->xs, *t = p->ys;
    const float *x = (const float *)a->x + n * s[0] + c * s[1];
    double sum = 0.0;
    for (int64_t ih = lo[0]; ih < hi[0]; ih++)
        for (int64_t iw = lo[1]; iw < hi[1]; iw++)
            sum += (double)x[ih * s[3] + iw * s[4]];
    const int incl = p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
    const double cnt = (double)(incl ? pd[0] : r[0]) * (double)(incl ? pd[1] : r[1]);
    float *y = (float *)a->out + n * t[0] + c * t[1] + oh * t[3] + ow * t[4];
    double v = a->alpha * (cnt > 0 ? sum / cnt : 0.0);
    if (a->beta != 0.0)
        v += a->beta * (double)*y;
    *y = (float)v;
}

/* The same for dx (n, c, ih, iw): the ref's double sum of dy / count over its windows. */
static void pf_box_bwd_exact(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t n,
                             int64_t c, int64_t ih, int64_t iw)
{
    int64_t olo[2], ohi[2];
    const int64_t *t = p->dys, *q = p->dxs;
    const float *dy = (const float *)a->dy + n * t[0] + c * t[1];
    double acc = 0.0;
    if (windows_of(p, 1, ih, &olo[0], &ohi[0]) && windows_of(p, 2, iw, &olo[1], &ohi[1]))
        for (int64_t oh = olo[0]; oh <= ohi[0]; oh++)
            for (int64_t ow = olo[1]; ow <= ohi[1]; ow++)
                acc += (double)dy[oh * t[3] + ow * t[4]] / (pf_ch(p, oh) * pf_cw(p, ow));
    float *dx = (float *)a->out + n * q[0] + c * q[1] + ih * q[3] + iw * q[4];
    double v = a->alpha * acc;
    if (a->beta != 0.0)
        v += a->beta * (double)*dx;
    *dx = (float)v;
}

/* Lanes of m holding NaN or +-inf. */
PF_AVX512 static inline __mmask16 pf_nonfinite(__mmask16 m, __m512 v)
{
    return _mm512_mask_fpclass_ps_mask(m, v, 0x99);
}

/* The lanes a streamed NHWC run left to the ref's formula (bad: one mask per 16 channels of
 * the pixels [i0, i1) of row h, C a multiple of 16), recomputed after the stream. */
static void pf_box_redo(const fd_pool_problem_t *p, const fd_pool_args_t *a, int bwd, int64_t n,
                        int64_t h, int64_t i0, int64_t i1, const __mmask16 *bad)
{
    for (int64_t i = i0, k = 0; i < i1; i++)
        for (int64_t c = 0; c < p->c; c += 16, k++)
            for (unsigned b = bad[k]; b; b &= b - 1)
                (bwd ? pf_box_bwd_exact : pf_box_fwd_exact)(p, a, n, c + __builtin_ctz(b), h, i);
}

PF_AVX512 static void pf_box_fwd(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                                 int64_t u1)
{
    pf_box_t g;
    pf_box_plan(p, 0, pf_kind(p, 0), &g);
    const int64_t H = p->in[1], W = p->in[2], OH = p->out[1], OW = p->out[2], C = p->c;
    const int64_t kh = p->win[1], kw = p->win[2], sh = p->stride[1], ph = p->pad[1];
    const int64_t pw = p->pad[2], cb = g.cb, rs = g.rs;
    const int64_t nck = (OW + g.ck - 1) / g.ck;
    const int64_t *s = p->xs, *t = p->ys;
    const double alpha = a->alpha, beta = a->beta;
    const int plain = alpha == 1.0 && beta == 0.0; /* the quotient in float is the result */
    /* NHWC packed y, alpha 1, beta 0, larger than half the L3: streamed (pf_stream) */
    const int nt = cb > 1 && plain && C % 16 == 0 && C <= PF_NT && t[4] == C &&
                   pf_nt_ok(p, a, t, p->out);
    /* NCHW: a plane's rows of pf_box_row3 through a stage, streamed without partial lines
     * between them; the other rows (borders, non-finite lanes) written in place */
    const int ntw = cb == 1 && plain && t[4] == 1 && t[3] == OW && pf_nt_ok(p, a, t, p->out);
    pf_stage_t st;
    float ring[PF_BOX] __attribute__((aligned(64)));
    float cf[PF_BOXCOL + 16] __attribute__((aligned(64)));
    float vf[PF_BOXCOL + 16] __attribute__((aligned(64)));
    double cnt[PF_BOXCOL + 16], inv[PF_BOXCOL + 16];
    double cw[PF_BOXCOL + 16];
    pf_cws(p, cw);
    /* the counts of row factor have_ch, kept from unit to unit (they do not depend on it) */
    double have_ch = -1;
    int cpos = 0; /* every count of the row is positive */
    for (int64_t u = u0; u < u1; u++) {
        const int64_t n = cb == 1 ? u / C : u / nck;
        const int64_t c0 = cb == 1 ? u % C : 0;
        const int64_t w0 = cb == 1 ? 0 : (u % nck) * g.ck, w1 = min64(OW, w0 + g.ck);
        const float *xb = (const float *)a->x + n * s[0] + c0 * s[1];
        float *yb = (float *)a->out + n * t[0] + c0 * t[1];
        int64_t have_hi = 0; /* input rows summed: [.., have_hi) */
        pf_stage_start(&st, yb);
        for (int64_t oh = 0; oh < OH; oh++) {
            const int64_t h0 = oh * sh - ph, lo = max64(h0, 0), hi = min64(h0 + kh, H);
            for (int64_t ih = max64(have_hi, lo); ih < hi; ih++) {
                float *d = ring + (ih % kh) * rs;
                if (cb == 1)
                    pf_hsum_w(xb + ih * s[3], W, pw, kw, g.nsum, d);
                else
                    pf_hsum_c(xb + ih * s[3], s[4], W, pw, kw, w0, w1, C, cb, d,
                              ih + 1 < H ? xb + (ih + 1) * s[3] : NULL);
            }
            have_hi = max64(have_hi, hi);
            float *rp[16];
            int nr = 0;
            for (int64_t ih = lo; ih < hi; ih++)
                rp[nr++] = ring + (ih % kh) * rs;
            const double ch = pf_ch(p, oh);
            if (ch != have_ch) {
                pf_counts(p, ch, cw, cnt, inv, cf, vf);
                have_ch = ch;
                cpos = ch > 0;
                for (int64_t ow = 0; ow < OW; ow++)
                    cpos &= cf[ow] > 0;
                for (int64_t ow = OW; ow < (OW + 15) / 16 * 16; ow++)
                    cf[ow] = vf[ow] = 1.0f; /* lanes past the row: finite */
            }
            float *yr = ntw ? st.buf + st.pend : yb + oh * t[3];
            /* lanes whose float sum is not finite are left out of the vector store and
             * recomputed as the ref */
            if (cb == 1 && plain && nr == 3 && cpos &&
                !pf_box_row3(rp[0], rp[1], rp[2], cf, vf, yr, OW)) {
                if (ntw)
                    pf_stage_push(&st, OW);
            } else if (cb == 1) {
                if (ntw) /* this row in place */
                    yr = pf_stage_skip(&st, yb + oh * t[3], OW);
                for (int64_t ow0 = 0; ow0 < OW; ow0 += 16) {
                    const __m512 v = nr == 3 ? pf_vsum3(rp, ow0) : pf_vsum(rp, nr, ow0);
                    const __mmask16 bad = pf_nonfinite(pf_lanes(0, min64(16, OW - ow0)), v);
                    const __mmask16 m = pf_lanes(0, min64(16, OW - ow0)) & ~bad;
                    if (plain) {
                        fd_cpu_mstore_ps(yr + ow0, m,
                                              pf_divf(v, fd_cpu_mload_ps(m, cf + ow0),
                                                      fd_cpu_mload_ps(m, vf + ow0)));
                    } else {
                        const __mmask8 m0 = (__mmask8)m, m1 = (__mmask8)(m >> 8);
                        pf_box_out(yr + ow0, m, v, fd_cpu_mload_pd(m0, cnt + ow0),
                                   fd_cpu_mload_pd(m1, cnt + ow0 + 8),
                                   fd_cpu_mload_pd(m0, inv + ow0),
                                   fd_cpu_mload_pd(m1, inv + ow0 + 8), alpha, beta);
                    }
                    for (int j = 0; bad && j < 16; j++)
                        if (bad >> j & 1)
                            pf_box_fwd_exact(p, a, n, c0, oh, ow0 + j);
                }
            } else if (nt) {
                /* outputs [i0, i1) into tmp, streamed to the y run, then the ref's lanes */
                for (int64_t i0 = w0; i0 < w1; i0 += PF_NT / C) {
                    const int64_t i1 = min64(w1, i0 + PF_NT / C);
                    float tmp[PF_NT] __attribute__((aligned(64)));
                    __mmask16 bad[PF_NT / 16], any = 0;
                    for (int64_t ow = i0, k = 0; ow < i1; ow++) {
                        const __m512 fc = _mm512_set1_ps(cf[ow]), fi = _mm512_set1_ps(vf[ow]);
                        for (int64_t c = 0; c < C; c += 16, k++) {
                            const __m512 v = nr == 3 ? pf_vsum3(rp, (ow - w0) * cb + c)
                                                     : pf_vsum(rp, nr, (ow - w0) * cb + c);
                            bad[k] = pf_nonfinite((__mmask16)0xFFFF, v);
                            any |= bad[k];
                            _mm512_store_ps(tmp + (ow - i0) * C + c, pf_divf(v, fc, fi));
                        }
                    }
                    pf_stream(yr + i0 * C, tmp, (i1 - i0) * C);
                    if (any)
                        pf_box_redo(p, a, 0, n, oh, i0, i1, bad);
                }
            } else {
                for (int64_t ow = w0; ow < w1; ow++) {
                    const __m512 fc = _mm512_set1_ps(cf[ow]), fi = _mm512_set1_ps(vf[ow]);
                    const __m512d vc = _mm512_set1_pd(cnt[ow]), vi = _mm512_set1_pd(inv[ow]);
                    for (int64_t c = 0; c < C; c += 16) {
                        const __m512 v = nr == 3 ? pf_vsum3(rp, (ow - w0) * cb + c)
                                                 : pf_vsum(rp, nr, (ow - w0) * cb + c);
                        const __mmask16 bad = pf_nonfinite(pf_lanes(0, min64(16, C - c)), v);
                        const __mmask16 m = pf_lanes(0, min64(16, C - c)) & ~bad;
                        if (plain)
                            fd_cpu_mstore_ps(yr + ow * t[4] + c, m, pf_divf(v, fc, fi));
                        else
                            pf_box_out(yr + ow * t[4] + c, m, v, vc, vc, vi, vi, alpha, beta);
                        for (int j = 0; bad && j < 16; j++)
                            if (bad >> j & 1)
                                pf_box_fwd_exact(p, a, n, c + j, oh, ow);
                    }
                }
            }
        }
        if (ntw)
            pf_stage_end(&st, 0);
    }
    if (nt || ntw)
        _mm_sfence(); /* the streamed rows, before the parallel loop's barrier */
}

PF_AVX512 static void pf_box_bwd(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                                 int64_t u1)
{
    pf_box_t g;
    pf_box_plan(p, 1, pf_kind(p, 1), &g);
    const int64_t H = p->in[1], W = p->in[2], OW = p->out[2], C = p->c;
    const int64_t kh = p->win[1], kw = p->win[2];
    const int64_t pw = p->pad[2], cb = g.cb, rs = g.rs;
    const int64_t nck = (W + g.ck - 1) / g.ck;
    const int64_t *t = p->dys, *q = p->dxs;
    const float alpha = (float)a->alpha, beta = (float)a->beta;
    float ring[PF_BOX] __attribute__((aligned(64)));
    float cf[PF_BOXCOL + 16] __attribute__((aligned(64)));
    float vf[PF_BOXCOL + 16] __attribute__((aligned(64)));
    double cnt[PF_BOXCOL + 16], inv[PF_BOXCOL + 16];
    double cw[PF_BOXCOL + 16];
    pf_cws(p, cw);
    /* the counts of row factor have_ch, kept from unit to unit (they do not depend on it) */
    double have_ch = -1;
    float *const row = ring + kh * rs; /* dy / count of one row */
    /* NHWC packed dx, beta 0, larger than half the L3: streaming stores (pf_stream) */
    const int nt = cb > 1 && pf_nt_ok(p, a, q, p->in) && C % 16 == 0 && C <= PF_NT && q[4] == C;
    /* NCHW, alpha 1, beta 0: a plane's dx rows through a stage, streamed without partial
     * lines between them; rows redone as the ref (non-finite lanes) written in place */
    const int ntw = cb == 1 && alpha == 1.0f && beta == 0.0f && q[4] == 1 && q[3] == W &&
                    pf_nt_ok(p, a, q, p->in);
    pf_stage_t st;
    /* NCHW 3 x 3, pad 1 along W, alpha 1, beta 0: rows whose windows take one new dy row run
     * pf_box_bwd_row3 */
    const int row3 =
        cb == 1 && kh == 3 && kw == 3 && pw == 1 && OW == W && alpha == 1.0f && beta == 0.0f;
    for (int64_t u = u0; u < u1; u++) {
        const int64_t n = cb == 1 ? u / C : u / nck;
        const int64_t c0 = cb == 1 ? u % C : 0;
        /* dx columns [w0, w1); NHWC: dy / count columns ow = w0 + pw - (kw - 1) + j at row +
         * j cb, zero outside [0, OW) */
        const int64_t w0 = cb == 1 ? 0 : (u % nck) * g.ck, w1 = min64(W, w0 + g.ck);
        const int64_t g0 = w0 + pw - (kw - 1), ng = w1 - w0 + kw - 1;
        if (cb > 1)
            memset(row, 0, (size_t)(ng * cb) * sizeof(float));
        const float *gb = (const float *)a->dy + n * t[0] + c0 * t[1];
        float *dxb = (float *)a->out + n * q[0] + c0 * q[1];
        int64_t have_hi = 0; /* rows of window sums computed: [.., have_hi) */
        pf_stage_start(&st, dxb);
        for (int64_t ih = 0; ih < H; ih++) {
            int64_t olo, ohi;
            float *dr = ntw ? st.buf + st.pend : dxb + ih * q[3];
            if (!windows_of(p, 1, ih, &olo, &ohi)) {
                if (cb == 1) {
                    for (int64_t i = 0; i < W; i += 16)
                        pf_store_f(dr + i, pf_lanes(0, min64(16, W - i)), _mm512_setzero_ps(),
                                   alpha, beta);
                    if (ntw)
                        pf_stage_push(&st, W);
                } else
                    for (int64_t iw = w0; iw < w1; iw++)
                        for (int64_t c = 0; c < C; c += 16)
                            pf_store_f(dr + iw * q[4] + c, pf_lanes(0, min64(16, C - c)),
                                       _mm512_setzero_ps(), alpha, beta);
                continue;
            }
            const int fused = row3 && max64(have_hi, olo) == ohi && ohi - olo == 2;
            for (int64_t oh = max64(have_hi, olo); oh <= ohi; oh++) {
                const double ch = pf_ch(p, oh);
                if (ch != have_ch) {
                    pf_counts(p, ch, cw, cnt, inv, cf, vf);
                    have_ch = ch;
                    for (int64_t ow = OW; ow < (OW + 15) / 16 * 16; ow++)
                        cf[ow] = vf[ow] = 1.0f; /* lanes past the row: finite */
                }
                if (fused)
                    break; /* the row and its sums: pf_box_bwd_row3 below */
                const float *gr = gb + oh * t[3];
                if (cb == 1) {
                    /* NCHW: dy / count at row[0 ..), then the sums of dx column iw over
                     * ow = iw + pw - (kw - 1) .. iw + pw, which is pf_hsum_w's forward window
                     * with pad kw - 1 - pw */
                    for (int64_t ow0 = 0; ow0 < OW; ow0 += 16) {
                        const __mmask16 m = pf_lanes(0, min64(16, OW - ow0));
                        fd_cpu_mstore_ps(row + ow0, m,
                                              pf_divf(fd_cpu_mload_ps(m, gr + ow0),
                                                      _mm512_load_ps(cf + ow0),
                                                      _mm512_load_ps(vf + ow0)));
                    }
                    pf_hsum_w(row, OW, kw - 1 - pw, kw, g.nsum, ring + (oh % kh) * rs);
                    continue;
                } else {
                    for (int64_t ow = max64(0, g0); ow < min64(OW, g0 + ng); ow++) {
                        const __m512 vc = _mm512_set1_ps(cf[ow]), vi = _mm512_set1_ps(vf[ow]);
                        for (int64_t c = 0; c < C; c += 16) {
                            const __mmask16 m = pf_lanes(0, min64(16, C - c));
                            pf_ahead(gr + ow * t[4] + c);
                            fd_cpu_mstore_ps(
                                row + (ow - g0) * cb + c, m,
                                pf_divf(fd_cpu_mload_ps(m, gr + ow * t[4] + c), vc, vi));
                        }
                    }
                }
                pf_hsum_t(row, cb, kw, (w1 - w0) * cb, ring + (oh % kh) * rs);
            }
            have_hi = max64(have_hi, ohi + 1);
            float *rp[16];
            int nr = 0;
            for (int64_t oh = olo; oh <= ohi; oh++)
                rp[nr++] = ring + (oh % kh) * rs;
            /* a non-finite result (inf / NaN in dy, float overflow) is recomputed as the ref */
            if (fused &&
                !pf_box_bwd_row3(gb + ohi * t[3], cf, vf, OW, rp[0], rp[1], rp[2], dr, W)) {
                if (ntw)
                    pf_stage_push(&st, W);
            } else if (fused) {
                if (ntw) /* this row in place */
                    dr = pf_stage_skip(&st, dxb + ih * q[3], W);
                for (int64_t i0 = 0; i0 < W; i0 += 16) { /* the rows are complete: as below */
                    const __mmask16 m = pf_lanes(0, min64(16, W - i0));
                    const __mmask16 bad = pf_store_f(dr + i0, m, pf_vsum(rp, nr, i0), alpha, beta);
                    for (int j = 0; bad && j < 16; j++)
                        if (bad >> j & 1)
                            pf_box_bwd_exact(p, a, n, c0, ih, i0 + j);
                }
            } else if (cb == 1 && nr == 3 && alpha == 1.0f && beta == 0.0f &&
                       !pf_box_sum3(rp[0], rp[1], rp[2], dr, W)) {
                if (ntw)
                    pf_stage_push(&st, W);
            } else if (cb == 1) {
                if (ntw) /* this row in place */
                    dr = pf_stage_skip(&st, dxb + ih * q[3], W);
                for (int64_t i0 = 0; i0 < W; i0 += 16) {
                    const __mmask16 m = pf_lanes(0, min64(16, W - i0));
                    const __mmask16 bad = pf_store_f(dr + i0, m, pf_vsum(rp, nr, i0), alpha, beta);
                    for (int j = 0; bad && j < 16; j++)
                        if (bad >> j & 1)
                            pf_box_bwd_exact(p, a, n, c0, ih, i0 + j);
                }
            } else if (nt) {
                /* pixels [i0, i1) into tmp, streamed to the dx run, then the ref's lanes */
                for (int64_t i0 = w0; i0 < w1; i0 += PF_NT / C) {
                    const int64_t i1 = min64(w1, i0 + PF_NT / C);
                    float tmp[PF_NT] __attribute__((aligned(64)));
                    __mmask16 bad[PF_NT / 16], any = 0;
                    for (int64_t iw = i0, k = 0; iw < i1; iw++)
                        for (int64_t c = 0; c < C; c += 16, k++) {
                            const int64_t o = (iw - w0) * cb + c;
                            bad[k] = pf_store_f(tmp + (iw - i0) * C + c, (__mmask16)0xFFFF,
                                                nr == 3 ? pf_vsum3(rp, o) : pf_vsum(rp, nr, o),
                                                alpha, 0.0f);
                            any |= bad[k];
                        }
                    pf_stream(dr + i0 * C, tmp, (i1 - i0) * C);
                    if (any)
                        pf_box_redo(p, a, 1, n, ih, i0, i1, bad);
                }
            } else {
                for (int64_t iw = w0; iw < w1; iw++)
                    for (int64_t c = 0; c < C; c += 16) {
                        const int64_t o = (iw - w0) * cb + c;
                        const __mmask16 bad =
                            pf_store_f(dr + iw * q[4] + c, pf_lanes(0, min64(16, C - c)),
                                       nr == 3 ? pf_vsum3(rp, o) : pf_vsum(rp, nr, o), alpha, beta);
                        for (int j = 0; bad && j < 16; j++)
                            if (bad >> j & 1)
                                pf_box_bwd_exact(p, a, n, c + j, ih, iw);
                    }
            }
        }
        if (ntw)
            pf_stage_end(&st, 0);
    }
    if (nt || ntw)
        _mm_sfence(); /* the streamed rows, before the parallel loop's barrier */
}

#endif /* PF_X86 */

#if PF_X86
typedef void (*pf_fn)(const fd_pool_problem_t *, const fd_pool_args_t *, int64_t, int64_t);

/* Units [0, units) of fn in groups of PF_GROUP, the groups spread over the threads. The
 * OpenMP loop stays outside the AVX-512 functions (clang does not give an outlined loop body
 * its function's target), and each group sets up its tables once. Every unit writes its own
 * outputs in a fixed order, so the split does not change the bits. */
static void pf_par(pf_fn fn, const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t units)
{
    const int64_t groups = (units + PF_GROUP - 1) / PF_GROUP;
    int64_t work = p->n * p->c;
    for (int d = 0; d < NSP; d++)
        work *= p->in[d];
#pragma omp parallel for schedule(static) if (work >= FD_CPU_PAR_MIN / 4 && groups > 1)
    for (int64_t g = 0; g < groups; g++)
        fn(p, a, g * PF_GROUP, min64(units, (g + 1) * PF_GROUP));
}
#endif

/* 1 when a fast path ran. */
static int pf_run(const fd_pool_problem_t *p, const fd_pool_args_t *a, int bwd)
{
#if PF_X86
    const int kind = pf_kind(p, bwd);
    if (kind == 0)
        return 0;
    if (bwd && kind == 2 && is_max(p)) {
        /* int8 codes, and the rows of codes one dx row needs must fit */
        const int64_t R = (p->win[1] + p->stride[1] - 1) / p->stride[1];
        if (p->win[1] * p->win[2] > 127 || R * p->out[2] * p->c > PF_CODES)
            return 0;
    }
    const int64_t planes = p->n * p->c;
    pf_box_t box;
    pf_crow_t crow;
    if (pf_box_plan(p, bwd, kind, &box)) {
        pf_par(bwd ? pf_box_bwd : pf_box_fwd, p, a, pf_box_units(p, &box, bwd));
        return 1;
    }
    if (!bwd && kind == 1 && pf_hmax_ok(p))
        pf_par(pf_fwd_w_hmax, p, a, planes);
    else if (!bwd && kind == 1)
        pf_par(pf_fwd_w, p, a, planes);
    else if (!bwd && pf_crow_plan(p, &crow))
        pf_par(pf_fwd_c_rows, p, a, p->n * crow.nband * crow.nck);
    else if (!bwd)
        pf_par(pf_fwd_c, p, a, p->n * p->out[0] * p->out[1]);
    else if (kind == 1 && !is_max(p) && p->win[2] <= p->stride[2] && p->win[1] <= p->stride[1] &&
             p->stride[2] <= 2)
        pf_par(pf_bwd_w_avg1, p, a, planes);
    else if (kind == 1 && pf_max2_ok(p))
        pf_par(pf_bwd_w_max2, p, a, planes);
    else if (kind == 1)
        pf_par(pf_bwd_w, p, a, planes);
    else if (pf_bwd_c_max_ok(p, a))
        pf_par(pf_bwd_c_max, p, a, p->n * ((p->in[1] + PF_BAND - 1) / PF_BAND));
    else
        pf_par(pf_bwd_c, p, a, p->n * ((p->in[1] + PF_BAND - 1) / PF_BAND));
    return 1;
#else
    (void)p, (void)a, (void)bwd;
    return 0;
#endif
}
