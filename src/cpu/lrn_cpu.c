/* SPDX-License-Identifier: MIT */
/*
 * lrn_cpu.c - cpu cross-channel LRN forward and backward (FD_OP_LRN_FWD / _BWD cpu rows;
 * divisive normalization stays with the ref rows).
 *
 * Decisions:
 * - The ref's sums, in its order (bit-identical but for pow, below). The ref recomputes
 *   every window sum in channel order starting from 0.0; here the channels of a group of
 *   positions are loaded once into stack buffers with n - 1 zero rows around them, and every
 *   window is summed over all n rows of the padded buffer in the same order. The extra terms
 *   are +0.0 added to a sum that starts at +0.0 and never becomes -0.0 (squares are >= 0; an
 *   exactly cancelling sum rounds to +0.0), so they change no bit, and the loops have no edge
 *   cases and vectorise across positions. Backward uses the scales and the dy * y / s terms
 *   once per channel instead of recomputing them n times per element as the ref does: same
 *   values, same order.
 * - pow: for FLOAT, vmath.h's exp(y log s) in double, vectorised (lr_pow; libm's pow per
 *   element had the rows at ~15 ns per element): within a few ulp of double, so the float
 *   outputs equal the ref's except for rare last-bit flips (tolerance-tested). DOUBLE, HALF
 *   and BFLOAT16 keep libm's pow and the ref's bits.
 * - Lanes: up to LR_LANES positions (along the outer dim with the smallest output stride: W on
 *   NCHW, W on NHWC too, whose channel runs are read per lane and transposed). Units are groups
 *   of lanes, a position is computed by one thread: identical bits for any OMP_NUM_THREADS.
 *   Nothing allocates; no workspace.
 * FLOAT, DOUBLE, HALF, BFLOAT16, 4-d and 5-d, any non-negative strides; declines more than
 * LR_MAXC channels (the stack buffers) and other dtypes (ref serves).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3,fp-contract=off")
#endif
#include "../core/lrn.h"
#include "memop.h"
#include "vmath.h"

#define LR_LANES 16
#define LR_BUF 2048                        /* doubles per stack buffer */
#define LR_MAXC (LR_BUF - CUDNN_LRN_MAX_N) /* channels (plus the zero rows) per buffer */
#define LR_MAXT 4

typedef struct {
    int nt, no;
    int64_t C, cst[LR_MAXT];                            /* the channel dim */
    int64_t odim[FD_DIM_MAX], ost[LR_MAXT][FD_DIM_MAX]; /* outer dims but the lane dim */
    int64_t nl, lst[LR_MAXT];                           /* the lane dim */
    int64_t others, chunks, n;
    int lanes;
    cudnnDataType_t dt;
    size_t esz;
} lr_plan_t;

/* t[0] is the output. */
static void plan(lr_plan_t *s, const struct cudnnTensorStruct *const *t, int nt, unsigned win)
{
    memset(s, 0, sizeof *s);
    s->nt = nt;
    s->dt = t[0]->dtype;
    s->esz = fd_dtype_size(s->dt);
    s->C = t[0]->dim[1];
    s->n = 1;
    int lane_d = -1;
    for (int d = 0; d < t[0]->nb_dims; d++) {
        s->n *= t[0]->dim[d];
        if (d != 1 && t[0]->dim[d] > 1 && (lane_d < 0 || t[0]->stride[d] <= t[0]->stride[lane_d]))
            lane_d = d;
    }
    for (int i = 0; i < nt; i++)
        s->cst[i] = t[i]->stride[1];
    s->nl = 1;
    s->others = 1;
    for (int d = 0; d < t[0]->nb_dims; d++) {
        if (d == 1 || t[0]->dim[d] == 1)
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
    int64_t l = s->nl < LR_LANES ? s->nl : LR_LANES;
    int64_t fit = LR_BUF / (s->C + win);
    l = l < fit ? l : fit;
    s->lanes = (int)(l > 0 ? l : 1);
    s->chunks = (s->nl + s->lanes - 1) / s->lanes;
}

static void unit_base(const lr_plan_t *s, int64_t u, int64_t *off, int *nl)
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

/* buf[c * nl + l] = channel c of lane l of tensor i (C * nl <= LR_BUF). */
static void load_cl(const lr_plan_t *s, int i, const void *p, int64_t off, int nl, double *buf)
{
    const char *b = (const char *)p + (size_t)off * s->esz;
    if (s->cst[i] == 1 && s->lst[i] != 1 && s->C > 1) { /* channels contiguous: per lane */
        double tmp[LR_BUF];
        for (int l = 0; l < nl; l++) {
            fd_cpu_load(s->dt, b + (size_t)(l * s->lst[i]) * s->esz, 1, (int)s->C, tmp);
            for (int64_t c = 0; c < s->C; c++)
                buf[c * nl + l] = tmp[c];
        }
    } else {
        for (int64_t c = 0; c < s->C; c++)
            fd_cpu_load(s->dt, b + (size_t)(c * s->cst[i]) * s->esz, s->lst[i], nl, buf + c * nl);
    }
}

static void store_cl(const lr_plan_t *s, void *p, int64_t off, int nl, const double *v,
                     double alpha, double beta)
{
    char *b = (char *)p + (size_t)off * s->esz;
    if (s->cst[0] == 1 && s->lst[0] != 1 && s->C > 1) {
        double tmp[LR_BUF];
        for (int l = 0; l < nl; l++) {
            for (int64_t c = 0; c < s->C; c++)
                tmp[c] = v[c * nl + l];
            fd_cpu_store(s->dt, b + (size_t)(l * s->lst[0]) * s->esz, 1, (int)s->C, tmp, alpha,
                         beta);
        }
    } else {
        for (int64_t c = 0; c < s->C; c++)
            fd_cpu_store(s->dt, b + (size_t)(c * s->cst[0]) * s->esz, s->lst[0], nl, v + c * nl,
                         alpha, beta);
    }
}

/* sc[c * nl + l] = k + alpha / n * (sum of x^2 over the window of c), from sq: the squares
 * with lb zero rows before and la after (rows c .. c + n - 1 of sq are c's window). */
FD_CPU_CLONES static void scales(const fd_lrn_problem_t *p, int64_t C, int nl,
                                 const double *restrict sq, double *restrict sc)
{
    const int win = (int)p->n;
    for (int64_t c = 0; c < C; c++) {
        double sum[LR_LANES];
        for (int l = 0; l < nl; l++)
            sum[l] = 0.0;
        for (int k = 0; k < win; k++)
            for (int l = 0; l < nl; l++)
                sum[l] += sq[(c + k) * nl + l];
        for (int l = 0; l < nl; l++)
            sc[c * nl + l] = p->k + p->alpha / p->n * sum[l];
    }
}

/* v[i] = pow(v[i], y) for FLOAT outputs: vmath.h's exp(y log v) in vector loops, libm's
 * pow where that is not valid (v not positive normal finite, |y log v| > 700). Within a few
 * ulp of double, so the float results almost always equal the ref's (tests hold them to a
 * tolerance: test_cpu_smx_fast.c). */
FD_CPU_CLONES static void lr_pow(double *restrict v, int64_t n, double y)
{
    double l[LR_BUF], r[LR_BUF];
    for (int64_t i = 0; i < n; i++)
        l[i] = y * fd_vlog(v[i]);
    for (int64_t i = 0; i < n; i++)
        r[i] = fd_vexp(l[i]);
    for (int64_t i = 0; i < n; i++)
        v[i] = fd_vpow_ok(v[i], l[i]) ? r[i] : pow(v[i], y);
}

/* fwd tensors: 0 = y, 1 = x */
static void fwd_unit(const lr_plan_t *s, const fd_lrn_problem_t *p, const fd_lrn_args_t *a,
                     int64_t u)
{
    int64_t base[LR_MAXT];
    int nl;
    unit_base(s, u, base, &nl);
    const int lb = (int)(p->n - 1) / 2, la = (int)p->n - 1 - lb;
    const int64_t C = s->C;
    double x[LR_BUF], sq[LR_BUF], v[LR_BUF];
    load_cl(s, 1, a->x, base[1], nl, x);
    for (int i = 0; i < lb * nl; i++)
        sq[i] = 0.0;
    for (int64_t i = 0; i < C * nl; i++)
        sq[lb * nl + i] = x[i] * x[i];
    for (int i = 0; i < la * nl; i++)
        sq[(lb + C) * nl + i] = 0.0;
    scales(p, C, nl, sq, v);
    if (s->dt == CUDNN_DATA_FLOAT) {
        lr_pow(v, C * nl, -p->beta);
        for (int64_t i = 0; i < C * nl; i++)
            v[i] = x[i] * v[i];
    } else {
        for (int64_t i = 0; i < C * nl; i++)
            v[i] = x[i] * pow(v[i], -p->beta);
    }
    store_cl(s, a->out, base[0], nl, v, a->alpha, a->beta);
}

/* bwd tensors: 0 = dx, 1 = x, 2 = y, 3 = dy.
 * dx_i = dy_i s_i^-beta - 2 beta alpha / n * x_i * sum_{c = i - la .. i + lb} dy_c y_c / s_c */
static void bwd_unit(const lr_plan_t *s, const fd_lrn_problem_t *p, const fd_lrn_args_t *a,
                     int64_t u)
{
    int64_t base[LR_MAXT];
    int nl;
    unit_base(s, u, base, &nl);
    const int lb = (int)(p->n - 1) / 2, la = (int)p->n - 1 - lb;
    const int64_t C = s->C;
    const double coef = 2.0 * p->beta * p->alpha / p->n;
    double x[LR_BUF], g[LR_BUF], w[LR_BUF], sc[LR_BUF];
    load_cl(s, 1, a->x, base[1], nl, x);
    /* w: the squares, padded lb / la */
    for (int i = 0; i < lb * nl; i++)
        w[i] = 0.0;
    for (int64_t i = 0; i < C * nl; i++)
        w[lb * nl + i] = x[i] * x[i];
    for (int i = 0; i < la * nl; i++)
        w[(lb + C) * nl + i] = 0.0;
    scales(p, C, nl, w, sc);
    /* w: dy_c y_c / s_c, padded la before and lb after (the adjoint window) */
    load_cl(s, 2, a->y, base[2], nl, w + la * nl);
    load_cl(s, 3, a->dy, base[3], nl, g);
    for (int64_t i = 0; i < C * nl; i++)
        w[la * nl + i] = g[i] * w[la * nl + i] / sc[i];
    for (int i = 0; i < la * nl; i++)
        w[i] = 0.0;
    for (int i = 0; i < lb * nl; i++)
        w[(la + C) * nl + i] = 0.0;
    const int win = (int)p->n;
    const int vpow = s->dt == CUDNN_DATA_FLOAT;
    if (vpow) /* sc^-beta, in place: the w terms above already used sc itself */
        lr_pow(sc, C * nl, -p->beta);
    for (int64_t c = 0; c < C; c++) {
        double acc[LR_LANES];
        for (int l = 0; l < nl; l++)
            acc[l] = 0.0;
        for (int k = 0; k < win; k++)
            for (int l = 0; l < nl; l++)
                acc[l] += w[(c + k) * nl + l];
        for (int l = 0; l < nl; l++) {
            int64_t i = c * nl + l;
            double pw = vpow ? sc[i] : pow(sc[i], -p->beta);
            sc[i] = g[i] * pw - coef * x[i] * acc[l];
        }
    }
    store_cl(s, a->out, base[0], nl, sc, a->alpha, a->beta);
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
    if (t->dim[1] > LR_MAXC) {
        snprintf(why, why_size, "%d channels: more than the %d of the stack buffers", t->dim[1],
                 LR_MAXC);
        return 0;
    }
    return 1;
}

int fd_lrn_fwd_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_lrn_problem_t *p = problem;
    return check(&p->x, why, why_size) && check(&p->y, why, why_size);
}

size_t fd_lrn_fwd_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_lrn_fwd_cpu_run(const void *problem, const void *args)
{
    const fd_lrn_problem_t *p = problem;
    const fd_lrn_args_t *a = args;
    const struct cudnnTensorStruct *t[2] = {&p->y, &p->x};
    lr_plan_t s;
    plan(&s, t, 2, p->n);
    const int64_t units = s.others * s.chunks;
#pragma omp parallel for schedule(static) if (s.n >= FD_CPU_PAR_MIN / 4 && units > 1)
    for (int64_t u = 0; u < units; u++)
        fwd_unit(&s, p, a, u);
    return CUDNN_STATUS_SUCCESS;
}

int fd_lrn_bwd_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_lrn_problem_t *p = problem;
    return check(&p->x, why, why_size) && check(&p->y, why, why_size) &&
           check(&p->dy, why, why_size) && check(&p->dx, why, why_size);
}

size_t fd_lrn_bwd_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_lrn_bwd_cpu_run(const void *problem, const void *args)
{
    const fd_lrn_problem_t *p = problem;
    const fd_lrn_args_t *a = args;
    const struct cudnnTensorStruct *t[4] = {&p->dx, &p->x, &p->y, &p->dy};
    lr_plan_t s;
    plan(&s, t, 4, p->n);
    const int64_t units = s.others * s.chunks;
#pragma omp parallel for schedule(static) if (s.n >= FD_CPU_PAR_MIN / 4 && units > 1)
    for (int64_t u = 0; u < units; u++)
        bwd_unit(&s, p, a, u);
    return CUDNN_STATUS_SUCCESS;
}
