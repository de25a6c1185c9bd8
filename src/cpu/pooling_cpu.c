/* SPDX-License-Identifier: MIT */
/*
 * pooling_cpu.c - cpu pooling forward and backward (FD_OP_POOL_FWD / _BWD cpu rows), every mode,
 * 1 to 3 spatial dims, any non-negative strides, FLOAT, DOUBLE, HALF, BFLOAT16. No workspace.
 *
 * Results are the ref's bit for bit (src/ref/pooling_ref.c, semantics in src/core/pooling.h),
 * for every mode including the averages: each output keeps the ref's order of operations (max
 * with the first-maximum tie rule and the NaN option, sums in double in D, H, W window order,
 * the same divisor, one rounding), so only the loop nest around it changes.
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
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3,fp-contract=off")
#endif
#include <float.h>

#include "../core/pooling.h"
#include "memop.h"

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
    walk_blocks(p, args, p->in, p->dxs, bwd_block_c, bwd_block_w);
    return CUDNN_STATUS_SUCCESS;
}
