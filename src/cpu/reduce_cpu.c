/* SPDX-License-Identifier: MIT */
/*
 * reduce_cpu.c - cpu cudnnReduceTensor (FD_OP_TENSOR_REDUCE cpu row): every operator (ADD,
 * MUL, MIN, MAX, AMAX, AVG, NORM1, NORM2, MUL_NO_ZEROS), both NaN options, indices.
 *
 * Decisions:
 * - Bit-identical to src/ref/reduce_ref.c: every output accumulates its slice in double in the
 *   row-major order of the reduced dims, with the ref's operator steps (the select operators'
 *   first-occurrence and NaN rules included), and rounds once with the ref's blend. The order
 *   inside a slice is what makes the sum exact to the ref's, so it is kept; what is vectorised
 *   and cheapened is the rest: up to RD_LANES outputs advance together (lanes along the kept
 *   dim with the smallest stride in A), their elements are loaded in blocks along the innermost
 *   reduced dim (or across lanes, whichever is contiguous in A) instead of the ref's per-element
 *   index arithmetic, and contiguous reduced dims are merged. Lanes contiguous in A (a
 *   per-channel reduction of NHWC) go up to RD_LANES so that a unit owns whole cache lines.
 * - Threads: units are groups of lanes; an output is computed by one thread in the ref's order,
 *   so results do not depend on OMP_NUM_THREADS. No workspace, nothing allocated.
 * FLOAT, DOUBLE, HALF, BFLOAT16 for A and C; declines integer and vectorised int8 views and
 * negative strides (ref serves).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3,fp-contract=off")
#endif
#include <float.h>

#include "../core/tensor_ops.h"
#include "memop.h"

#define RD_LANES 64 /* lanes contiguous in A (tr); 16 otherwise */

/* tensors: 0 = C, 1 = A, 2 = the row-major index of the output (for indices) */
typedef struct {
    int nr, no;
    int64_t rdim[FD_DIM_MAX], rst[FD_DIM_MAX];    /* reduced dims (A's strides), merged */
    int64_t odim[FD_DIM_MAX], ost[3][FD_DIM_MAX]; /* kept dims but the lane dim */
    int64_t nl, lst[3];                           /* the lane dim */
    int64_t count, others, chunks, n;
    int lanes, tr;
} rd_plan_t;

static void plan(rd_plan_t *s, const fd_tensor_reduce_problem_t *p)
{
    const int nb = p->a.nb_dims;
    int64_t cm[FD_DIM_MAX], m = 1;
    for (int d = nb - 1; d >= 0; d--)
        cm[d] = m, m *= p->c.dim[d];
    memset(s, 0, sizeof *s);
    s->count = 1;
    s->n = 1;
    int lane_d = -1;
    for (int d = 0; d < nb; d++) {
        s->n *= p->a.dim[d];
        if (p->a.dim[d] == 1)
            continue;
        if (p->c.dim[d] == 1) { /* reduced */
            s->count *= p->a.dim[d];
            int k = s->nr - 1;
            if (k >= 0 && s->rst[k] == p->a.stride[d] * p->a.dim[d]) {
                s->rdim[k] *= p->a.dim[d];
                s->rst[k] = p->a.stride[d];
                continue;
            }
            s->rdim[s->nr] = p->a.dim[d];
            s->rst[s->nr] = p->a.stride[d];
            s->nr++;
        } else if (lane_d < 0 || p->a.stride[d] <= p->a.stride[lane_d]) {
            lane_d = d;
        }
    }
    if (s->nr == 0) {
        s->nr = 1;
        s->rdim[0] = 1;
        s->rst[0] = 1;
    }
    s->nl = 1;
    s->others = 1;
    for (int d = 0; d < nb; d++) {
        if (p->a.dim[d] == 1 || p->c.dim[d] == 1)
            continue;
        const int64_t st[3] = {p->c.stride[d], p->a.stride[d], cm[d]};
        if (d == lane_d) {
            s->nl = p->a.dim[d];
            for (int i = 0; i < 3; i++)
                s->lst[i] = st[i];
        } else {
            s->odim[s->no] = p->a.dim[d];
            for (int i = 0; i < 3; i++)
                s->ost[i][s->no] = st[i];
            s->no++;
            s->others *= p->a.dim[d];
        }
    }
    s->tr = s->lst[1] == 1 && s->rst[s->nr - 1] != 1;
    /* lanes contiguous in A: as many as fill whole cache lines several times over, each unit
     * reading its own lines; otherwise 16, and fewer when that leaves threads without units */
    const int64_t cap = s->tr ? RD_LANES : 16;
    int64_t l = s->nl < cap ? s->nl : cap;
    if (!s->tr && s->others * ((s->nl + l - 1) / l) < 8 && l > 1) {
        int64_t want = (8 + s->others - 1) / s->others;
        int64_t l2 = (s->nl + want - 1) / want;
        l = l2 < l ? l2 : l;
    }
    s->lanes = (int)l;
    s->chunks = (s->nl + l - 1) / l;
}

typedef struct {
    double acc;
    uint32_t index;
    int found, nan;
} rd_state_t;

/* The ref's select_step. */
static inline void select_step(rd_state_t *s, cudnnReduceTensorOp_t op, int prop, double v,
                               uint32_t pos)
{
    if (s->nan)
        return;
    if (isnan(v)) {
        if (prop)
            s->acc = v, s->index = pos, s->found = 1, s->nan = 1;
        return;
    }
    if (op == CUDNN_REDUCE_TENSOR_AMAX)
        v = fabs(v);
    int better = !s->found || (op == CUDNN_REDUCE_TENSOR_MIN ? v < s->acc : v > s->acc);
    if (better)
        s->acc = v, s->index = pos, s->found = 1;
}

/* acc[l] folds in b[l * sl + j * sj] for j < len, in j order. */
FD_CPU_CLONES static void fold_block(cudnnReduceTensorOp_t op, int nl, int len, int sl, int sj,
                                     const double *restrict b, double *restrict acc)
{
    for (int l = 0; l < nl; l++) {
        double x = acc[l];
        const double *q = b + l * sl;
        switch (op) {
        case CUDNN_REDUCE_TENSOR_ADD:
        case CUDNN_REDUCE_TENSOR_AVG:
            for (int j = 0; j < len; j++)
                x += q[j * sj];
            break;
        case CUDNN_REDUCE_TENSOR_MUL:
            for (int j = 0; j < len; j++)
                x *= q[j * sj];
            break;
        case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS:
            for (int j = 0; j < len; j++)
                if (q[j * sj] != 0.0)
                    x *= q[j * sj];
            break;
        case CUDNN_REDUCE_TENSOR_NORM1:
            for (int j = 0; j < len; j++)
                x += fabs(q[j * sj]);
            break;
        default: /* NORM2 */
            for (int j = 0; j < len; j++)
                x += q[j * sj] * q[j * sj];
            break;
        }
        acc[l] = x;
    }
}

static void run_unit(const rd_plan_t *s, const fd_tensor_reduce_problem_t *p,
                     const fd_tensor_reduce_args_t *a, int64_t u)
{
    int64_t o = u / s->chunks, ch = u % s->chunks, base[3];
    for (int i = 0; i < 3; i++)
        base[i] = ch * s->lanes * s->lst[i];
    for (int k = s->no - 1; k >= 0; k--) {
        int64_t j = o % s->odim[k];
        o /= s->odim[k];
        for (int i = 0; i < 3; i++)
            base[i] += j * s->ost[i][k];
    }
    const int64_t left = s->nl - ch * s->lanes;
    const int nl = (int)(left < s->lanes ? left : s->lanes), rb = FD_CPU_BLK / nl;
    const cudnnReduceTensorOp_t op = p->op;
    const int select = op == CUDNN_REDUCE_TENSOR_MIN || op == CUDNN_REDUCE_TENSOR_MAX ||
                       op == CUDNN_REDUCE_TENSOR_AMAX;
    const int prop = p->nan == CUDNN_PROPAGATE_NAN;
    const size_t aes = fd_dtype_size(p->a.dtype);
    const char *abase = (const char *)a->a + (size_t)base[1] * aes;
    double acc[RD_LANES], b[FD_CPU_BLK];
    rd_state_t st[RD_LANES];
    const double init =
        op == CUDNN_REDUCE_TENSOR_MUL || op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS ? 1.0 : 0.0;
    for (int l = 0; l < nl; l++) {
        acc[l] = init;
        st[l] = (rd_state_t){0.0, 0, 0, 0};
    }
    /* walk the reduced dims: outer ones by an odometer, the innermost in blocks */
    const int k = s->nr - 1;
    const int64_t inner = s->rdim[k], ist = s->rst[k];
    int64_t idx[FD_DIM_MAX] = {0}, off = 0;
    uint32_t pos = 0;
    for (;;) {
        for (int64_t j0 = 0; j0 < inner; j0 += rb) {
            const int len = (int)(inner - j0 < rb ? inner - j0 : rb);
            const char *q = abase + (size_t)(off + j0 * ist) * aes;
            if (s->tr)
                for (int j = 0; j < len; j++)
                    fd_cpu_load(p->a.dtype, q + (size_t)(j * ist) * aes, 1, nl, b + j * nl);
            else
                for (int l = 0; l < nl; l++)
                    fd_cpu_load(p->a.dtype, q + (size_t)(l * s->lst[1]) * aes, ist, len,
                                b + l * len);
            const int sl = s->tr ? 1 : len, sj = s->tr ? nl : 1;
            if (select) {
                for (int l = 0; l < nl; l++)
                    for (int j = 0; j < len; j++)
                        select_step(&st[l], op, prop, b[l * sl + j * sj], pos + (uint32_t)j);
            } else {
                fold_block(op, nl, len, sl, sj, b, acc);
            }
            pos += (uint32_t)len;
        }
        int d = k - 1;
        for (; d >= 0; d--) {
            off += s->rst[d];
            if (++idx[d] < s->rdim[d])
                break;
            idx[d] = 0;
            off -= s->rdim[d] * s->rst[d];
        }
        if (d < 0)
            break;
    }
    double r[RD_LANES];
    const double big = p->comp == CUDNN_DATA_DOUBLE ? DBL_MAX : FLT_MAX;
    for (int l = 0; l < nl; l++) {
        if (select && st[l].found)
            r[l] = st[l].acc;
        else if (select) /* only NaNs, not propagated: the ref's empty_select */
            r[l] = op == CUDNN_REDUCE_TENSOR_MIN ? big : op == CUDNN_REDUCE_TENSOR_MAX ? -big : 0.0;
        else if (op == CUDNN_REDUCE_TENSOR_AVG)
            r[l] = acc[l] / (double)s->count;
        else if (op == CUDNN_REDUCE_TENSOR_NORM2)
            r[l] = sqrt(acc[l]);
        else
            r[l] = acc[l];
    }
    const size_t ces = fd_dtype_size(p->c.dtype);
    fd_cpu_store(p->c.dtype, (char *)a->c + (size_t)base[0] * ces, s->lst[0], nl, r, a->alpha,
                 a->beta);
    if (p->want_indices && a->indices != NULL)
        for (int l = 0; l < nl; l++) {
            uint32_t v = st[l].found ? st[l].index : 0;
            memcpy((unsigned char *)a->indices + (size_t)(base[2] + l * s->lst[2]) * sizeof v, &v,
                   sizeof v);
        }
}

int fd_tensor_reduce_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_tensor_reduce_problem_t *p = problem;
    const fd_tview_t *v[2] = {&p->a, &p->c};
    for (int t = 0; t < 2; t++) {
        if (!fd_cpu_dtype_ok(v[t]->dtype) || v[t]->vect != 1) {
            snprintf(why, why_size, "%s stays with ref", fd_dtype_name(v[t]->dtype));
            return 0;
        }
        for (int d = 0; d < v[t]->nb_dims; d++)
            if (v[t]->stride[d] < 0) {
                snprintf(why, why_size, "negative strides");
                return 0;
            }
    }
    return 1;
}

size_t fd_tensor_reduce_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_tensor_reduce_cpu_run(const void *problem, const void *args)
{
    const fd_tensor_reduce_problem_t *p = problem;
    const fd_tensor_reduce_args_t *a = args;
    rd_plan_t s;
    plan(&s, p);
    const int64_t units = s.others * s.chunks;
#pragma omp parallel for schedule(static) if (s.n >= FD_CPU_PAR_MIN && units > 1)
    for (int64_t u = 0; u < units; u++)
        run_unit(&s, p, a, u);
    return CUDNN_STATUS_SUCCESS;
}
