/* SPDX-License-Identifier: MIT */
/*
 * softmax_cpu.c - cpu softmax forward and backward (FD_OP_SOFTMAX_FWD / _BWD cpu rows), every
 * algorithm (FAST, ACCURATE, LOG) and mode (INSTANCE, CHANNEL).
 *
 * Decisions:
 * - Bit-identical to src/ref/softmax_ref.c: each row keeps the ref's passes and order (max with
 *   the NaN flag, then sum(exp(x - max)) in canonical element order in double, then outputs),
 *   exp and log are libm's scalar calls (a vectorised exp would not round like libm). What is
 *   vectorised is everything around them: up to SM_LANES independent rows advance together
 *   ("lanes" along the outer dim with the smallest output stride: W for CHANNEL on NCHW, N
 *   otherwise), so loads, max, sums and the blend run as short vector loops, and the strided
 *   index arithmetic of the ref (divisions per element) becomes an incremental walk.
 * - Forward ACCURATE / FAST keep exp(x - max) of the sum pass in a stack buffer (same value,
 *   computed once instead of twice) when a group of rows fits in SM_CACHE doubles; longer rows
 *   compute it again, as the ref does.
 * - Threads: units are groups of lanes; a row is computed by one thread in the ref's order, so
 *   results do not depend on OMP_NUM_THREADS. Nothing allocates; no workspace. In-place
 *   (y == x, dx == dy or dx == y, identical strides) works: a group writes element r of its
 *   rows after its last read of element r.
 * FLOAT, DOUBLE, HALF, BFLOAT16 (all the API takes), 4-d and 5-d, any non-negative strides.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3,fp-contract=off")
#endif
#include "../core/softmax.h"
#include "memop.h"

#define SM_LANES 16
#define SM_CACHE 4096 /* doubles of cached exp per group (32 KiB of stack) */
#define SM_MAXT 3

typedef struct {
    int nt, nr, no;
    int64_t rdim[FD_DIM_MAX], rst[SM_MAXT][FD_DIM_MAX]; /* row dims, canonical order */
    int64_t odim[FD_DIM_MAX], ost[SM_MAXT][FD_DIM_MAX]; /* the other outer dims */
    int64_t nl, lst[SM_MAXT];                           /* the lane dim: size, strides */
    int64_t row_len, others, chunks, n;
    int lanes, cache;
    int tr; /* blocks lane-interleaved (lanes contiguous, rows strided: CHANNEL on NCHW) */
    cudnnDataType_t dt;
    size_t esz;
} sm_plan_t;

/* tensors t[0..nt): the output first. */
static void plan(sm_plan_t *s, const struct cudnnTensorStruct *const *t, int nt,
                 cudnnSoftmaxMode_t mode, int may_cache)
{
    const int nb = t[0]->nb_dims;
    memset(s, 0, sizeof *s);
    s->nt = nt;
    s->dt = t[0]->dtype;
    s->esz = fd_dtype_size(s->dt);
    s->row_len = 1;
    s->n = 1;
    int lane_d = -1;
    for (int d = 0; d < nb; d++) {
        s->n *= t[0]->dim[d];
        int in_row = mode == CUDNN_SOFTMAX_MODE_CHANNEL ? d == 1 : d >= 1;
        if (t[0]->dim[d] == 1)
            continue;
        if (in_row) {
            s->row_len *= t[0]->dim[d];
            /* merge with the previous row dim when contiguous after it in every tensor: the
             * canonical order of the row is unchanged */
            int k = s->nr - 1, merge = k >= 0;
            for (int i = 0; i < nt && merge; i++)
                merge = s->rst[i][k] == (int64_t)t[i]->stride[d] * t[i]->dim[d];
            if (merge) {
                s->rdim[k] *= t[0]->dim[d];
                for (int i = 0; i < nt; i++)
                    s->rst[i][k] = t[i]->stride[d];
                continue;
            }
            s->rdim[s->nr] = t[0]->dim[d];
            for (int i = 0; i < nt; i++)
                s->rst[i][s->nr] = t[i]->stride[d];
            s->nr++;
        } else if (lane_d < 0 || t[0]->stride[d] <= t[0]->stride[lane_d]) {
            lane_d = d;
        }
    }
    if (s->nr == 0) { /* rows of one element */
        s->nr = 1;
        s->rdim[0] = 1;
    }
    s->nl = 1;
    s->others = 1;
    for (int d = 0; d < nb; d++) {
        int in_row = mode == CUDNN_SOFTMAX_MODE_CHANNEL ? d == 1 : d >= 1;
        if (in_row || t[0]->dim[d] == 1)
            continue;
        if (d == lane_d) {
            s->nl = t[0]->dim[d];
            for (int i = 0; i < nt; i++)
                s->lst[i] = t[i]->stride[d];
        } else {
            s->odim[s->no] = t[0]->dim[d];
            for (int i = 0; i < nt; i++)
                s->ost[i][s->no] = t[i]->stride[d];
            s->no++;
            s->others *= t[0]->dim[d];
        }
    }
    int64_t l = s->nl < SM_LANES ? s->nl : SM_LANES;
    s->cache = 0;
    if (may_cache && s->row_len <= SM_CACHE) {
        int64_t fit = SM_CACHE / s->row_len;
        l = l < fit ? l : fit;
        s->cache = 1;
    }
    /* few rows (INSTANCE with a small N): fewer lanes per unit, so that threads get units */
    if (s->others * ((s->nl + l - 1) / l) < 8 && l > 1) {
        int64_t want = (8 + s->others - 1) / s->others;
        int64_t l2 = (s->nl + want - 1) / want;
        l = l2 < l ? l2 : l;
    }
    s->lanes = (int)l;
    s->tr = s->lst[0] == 1 && s->rst[0][s->nr - 1] != 1;
    s->chunks = (s->nl + l - 1) / l;
}

/* Base offsets (elements) of unit u's first row in every tensor; *nl: its lanes. */
static void unit_base(const sm_plan_t *s, int64_t u, int64_t *off, int *nl)
{
    int64_t o = u / s->chunks, c = u % s->chunks;
    for (int i = 0; i < s->nt; i++)
        off[i] = c * s->lanes * s->lst[i];
    for (int k = s->no - 1; k >= 0; k--) {
        int64_t j = o % s->odim[k];
        o /= s->odim[k];
        for (int i = 0; i < s->nt; i++)
            off[i] += j * s->ost[i][k];
    }
    int64_t left = s->nl - c * s->lanes;
    *nl = (int)(left < s->lanes ? left : s->lanes);
}

static inline const char *at(const sm_plan_t *s, const void *p, int64_t off)
{
    return (const char *)p + (size_t)off * s->esz;
}

/* A walk over the unit's rows in canonical order, in blocks: up to rb consecutive elements of
 * the innermost row dim, for all lanes at once. */
typedef struct {
    int64_t idx[FD_DIM_MAX], off[SM_MAXT]; /* outer row dims (all but the innermost) */
    int64_t j;                             /* position in the innermost dim */
    int len;                               /* the current block's length */
} sm_cur_t;

static inline void cur_start(const sm_plan_t *s, sm_cur_t *c, const int64_t *base, int rb)
{
    memset(c->idx, 0, sizeof c->idx);
    for (int i = 0; i < s->nt; i++)
        c->off[i] = base[i];
    c->j = 0;
    int64_t in = s->rdim[s->nr - 1];
    c->len = (int)(in < rb ? in : rb);
}

/* Moves to the next block; 0 at the end of the rows. */
static inline int cur_next(const sm_plan_t *s, sm_cur_t *c, int rb)
{
    const int k = s->nr - 1;
    const int64_t in = s->rdim[k];
    c->j += c->len;
    if (c->j >= in) {
        c->j = 0;
        int d = k - 1;
        for (; d >= 0; d--) {
            for (int i = 0; i < s->nt; i++)
                c->off[i] += s->rst[i][d];
            if (++c->idx[d] < s->rdim[d])
                break;
            c->idx[d] = 0;
            for (int i = 0; i < s->nt; i++)
                c->off[i] -= s->rdim[d] * s->rst[i][d];
        }
        if (d < 0)
            return 0;
    }
    c->len = (int)(in - c->j < rb ? in - c->j : rb);
    return 1;
}

/* buf[l * len + j] (buf[j * nl + l] when s->tr) = element (lane l, block position j) of
 * tensor t; loads run along whichever of the two is contiguous. */
static void load_block(const sm_plan_t *s, int t, const void *p, const sm_cur_t *c, int nl,
                       double *buf)
{
    const int k = s->nr - 1;
    const int64_t o = c->off[t] + c->j * s->rst[t][k];
    if (s->tr)
        for (int j = 0; j < c->len; j++)
            fd_cpu_load(s->dt, at(s, p, o + j * s->rst[t][k]), s->lst[t], nl, buf + j * nl);
    else
        for (int l = 0; l < nl; l++)
            fd_cpu_load(s->dt, at(s, p, o + l * s->lst[t]), s->rst[t][k], c->len, buf + l * c->len);
}

static void store_block(const sm_plan_t *s, int t, void *p, const sm_cur_t *c, int nl,
                        const double *v, double alpha, double beta)
{
    const int k = s->nr - 1;
    const int64_t o = c->off[t] + c->j * s->rst[t][k];
    if (s->tr)
        for (int j = 0; j < c->len; j++)
            fd_cpu_store(s->dt, (char *)at(s, p, o + j * s->rst[t][k]), s->lst[t], nl, v + j * nl,
                         alpha, beta);
    else
        for (int l = 0; l < nl; l++)
            fd_cpu_store(s->dt, (char *)at(s, p, o + l * s->lst[t]), s->rst[t][k], c->len,
                         v + l * c->len, alpha, beta);
}

FD_CPU_CLONES static void max_block(int nl, int len, int sl, int sj, const double *restrict b,
                                    double *restrict mx, int *restrict nan)
{
    for (int l = 0; l < nl; l++) {
        double m = mx[l];
        int n = nan[l];
        for (int j = 0; j < len; j++) {
            double v = b[l * sl + j * sj];
            n |= isnan(v);
            m = v > m ? v : m;
        }
        mx[l] = m, nan[l] = n;
    }
}

/* tensors: 0 = y, 1 = x */
static void fwd_unit(const sm_plan_t *s, const fd_softmax_fwd_problem_t *p,
                     const fd_softmax_fwd_args_t *a, int64_t u)
{
    int64_t base[SM_MAXT];
    int nl;
    unit_base(s, u, base, &nl);
    const int rb = FD_CPU_BLK / nl;
    const int is_log = p->algo == CUDNN_SOFTMAX_LOG, cache = s->cache && !is_log;
    double b[FD_CPU_BLK], v[FD_CPU_BLK], mx[SM_LANES], sum[SM_LANES], ls[SM_LANES];
    int nan[SM_LANES];
    double ebuf[SM_CACHE]; /* exp(x - max): element r of lane l at r * nl + l */
    for (int l = 0; l < nl; l++)
        mx[l] = -INFINITY, nan[l] = 0, sum[l] = 0.0;
    sm_cur_t c;
    cur_start(s, &c, base, rb);
    do {
        load_block(s, 1, a->x, &c, nl, b);
        max_block(nl, c.len, s->tr ? 1 : c.len, s->tr ? nl : 1, b, mx, nan);
    } while (cur_next(s, &c, rb));
    for (int l = 0; l < nl; l++)
        if (nan[l])
            mx[l] = NAN;
    int64_t r0 = 0;
    cur_start(s, &c, base, rb);
    do {
        load_block(s, 1, a->x, &c, nl, b);
        const int sl = s->tr ? 1 : c.len, sj = s->tr ? nl : 1;
        for (int l = 0; l < nl; l++) {
            double acc = sum[l], m = mx[l];
            for (int j = 0; j < c.len; j++) {
                double e = exp(b[l * sl + j * sj] - m);
                if (cache)
                    ebuf[(r0 + j) * nl + l] = e;
                acc += e;
            }
            sum[l] = acc;
        }
        r0 += c.len;
    } while (cur_next(s, &c, rb));
    if (is_log)
        for (int l = 0; l < nl; l++)
            ls[l] = log(sum[l]);
    r0 = 0;
    cur_start(s, &c, base, rb);
    do {
        const int len = c.len, sl = s->tr ? 1 : len, sj = s->tr ? nl : 1;
        if (cache && s->tr) {
            const double *e = ebuf + r0 * nl;
            for (int j = 0; j < len; j++)
                for (int l = 0; l < nl; l++)
                    v[j * nl + l] = e[j * nl + l] / sum[l];
        } else if (cache) {
            for (int l = 0; l < nl; l++)
                for (int j = 0; j < len; j++)
                    v[l * len + j] = ebuf[(r0 + j) * nl + l] / sum[l];
        } else {
            load_block(s, 1, a->x, &c, nl, b);
            for (int l = 0; l < nl; l++)
                for (int j = 0; j < len; j++) {
                    double d = b[l * sl + j * sj] - mx[l];
                    v[l * sl + j * sj] = is_log ? d - ls[l] : exp(d) / sum[l];
                }
        }
        store_block(s, 0, a->y, &c, nl, v, a->alpha, a->beta);
        r0 += len;
    } while (cur_next(s, &c, rb));
}

/* tensors: 0 = dx, 1 = y, 2 = dy */
static void bwd_unit(const sm_plan_t *s, const fd_softmax_bwd_problem_t *p,
                     const fd_softmax_bwd_args_t *a, int64_t u)
{
    int64_t base[SM_MAXT];
    int nl;
    unit_base(s, u, base, &nl);
    const int rb = FD_CPU_BLK / nl;
    const int is_log = p->algo == CUDNN_SOFTMAX_LOG;
    double g[FD_CPU_BLK], y[FD_CPU_BLK], v[FD_CPU_BLK], sum[SM_LANES];
    for (int l = 0; l < nl; l++)
        sum[l] = 0.0;
    sm_cur_t c;
    cur_start(s, &c, base, rb);
    do {
        const int len = c.len, sl = s->tr ? 1 : len, sj = s->tr ? nl : 1;
        load_block(s, 2, a->dy, &c, nl, g);
        if (!is_log)
            load_block(s, 1, a->y, &c, nl, y);
        if (s->tr && !is_log) { /* the lanes' sums advance together: a vector loop */
            for (int j = 0; j < len; j++)
                for (int l = 0; l < nl; l++)
                    sum[l] += g[j * nl + l] * y[j * nl + l];
        } else if (s->tr) {
            for (int j = 0; j < len; j++)
                for (int l = 0; l < nl; l++)
                    sum[l] += g[j * nl + l];
        } else {
            for (int l = 0; l < nl; l++) {
                double acc = sum[l];
                if (is_log)
                    for (int j = 0; j < len; j++)
                        acc += g[l * sl + j * sj];
                else
                    for (int j = 0; j < len; j++)
                        acc += g[l * sl + j * sj] * y[l * sl + j * sj];
                sum[l] = acc;
            }
        }
    } while (cur_next(s, &c, rb));
    cur_start(s, &c, base, rb);
    do {
        const int len = c.len, sl = s->tr ? 1 : len, sj = s->tr ? nl : 1;
        load_block(s, 2, a->dy, &c, nl, g);
        load_block(s, 1, a->y, &c, nl, y);
        for (int l = 0; l < nl; l++) {
            const double sm = sum[l];
            if (is_log)
                for (int j = 0; j < len; j++) {
                    int i = l * sl + j * sj;
                    v[i] = g[i] - exp(y[i]) * sm;
                }
            else
                for (int j = 0; j < len; j++) {
                    int i = l * sl + j * sj;
                    v[i] = y[i] * (g[i] - sm);
                }
        }
        store_block(s, 0, a->dx, &c, nl, v, a->alpha, a->beta);
    } while (cur_next(s, &c, rb));
}

static int check(const struct cudnnTensorStruct *t, char *why, size_t why_size)
{
    if (!fd_cpu_dtype_ok(t->dtype)) {
        snprintf(why, why_size, "%s stays with ref", fd_dtype_name(t->dtype));
        return 0;
    }
    if (fd_tensor_has_negative_stride(t)) {
        snprintf(why, why_size, "negative strides");
        return 0;
    }
    return 1;
}

int fd_softmax_fwd_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_softmax_fwd_problem_t *p = problem;
    return check(&p->x, why, why_size) && check(&p->y, why, why_size);
}

size_t fd_softmax_fwd_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_softmax_fwd_cpu_run(const void *problem, const void *args)
{
    const fd_softmax_fwd_problem_t *p = problem;
    const fd_softmax_fwd_args_t *a = args;
    const struct cudnnTensorStruct *t[2] = {&p->y, &p->x};
    sm_plan_t s;
    plan(&s, t, 2, p->mode, p->algo != CUDNN_SOFTMAX_LOG);
    const int64_t units = s.others * s.chunks;
#pragma omp parallel for schedule(static) if (s.n >= FD_CPU_PAR_MIN && units > 1)
    for (int64_t u = 0; u < units; u++)
        fwd_unit(&s, p, a, u);
    return CUDNN_STATUS_SUCCESS;
}

int fd_softmax_bwd_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_softmax_bwd_problem_t *p = problem;
    return check(&p->y, why, why_size) && check(&p->dy, why, why_size) &&
           check(&p->dx, why, why_size);
}

size_t fd_softmax_bwd_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_softmax_bwd_cpu_run(const void *problem, const void *args)
{
    const fd_softmax_bwd_problem_t *p = problem;
    const fd_softmax_bwd_args_t *a = args;
    const struct cudnnTensorStruct *t[3] = {&p->dx, &p->y, &p->dy};
    sm_plan_t s;
    plan(&s, t, 3, p->mode, 0);
    const int64_t units = s.others * s.chunks;
#pragma omp parallel for schedule(static) if (s.n >= FD_CPU_PAR_MIN && units > 1)
    for (int64_t u = 0; u < units; u++)
        bwd_unit(&s, p, a, u);
    return CUDNN_STATUS_SUCCESS;
}
