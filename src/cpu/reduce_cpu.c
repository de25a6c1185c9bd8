/* SPDX-License-Identifier: MIT */
/*
 * reduce_cpu.c - cpu cudnnReduceTensor (FD_OP_TENSOR_REDUCE cpu row): every operator (ADD,
 * MUL, MIN, MAX, AMAX, AVG, NORM1, NORM2, MUL_NO_ZEROS), both NaN options, indices.
 *
 * Decisions:
 * - FLOAT A and C (rx_*): two shapes, compiled for AVX-512, AVX2 and baseline and picked at
 *   run time (FREEDNN_CPU_ISA caps it; plain C without contraction: the same bits on all
 *   three). "Lanes": a kept dim contiguous in A (per-channel on NHWC, over C on NCHW): up to
 *   RX_W outputs advance together, each lane's slice in the ref's canonical order, 4 rows per
 *   sweep (same order), the next unit's rows prefetched into L2: bit-identical to the ref for
 *   every operator, except that fewer than RX_LUNITS units of a large tensor (per channel on
 *   NHWC: one unit of 64 lanes) cut each slice into up to 16 fixed pieces merged in piece
 *   order (rx_lpieces): sums and products reordered in double as in "runs", the select
 *   operators still exact. "Runs": the innermost reduced dim (in memory order) contiguous in A
 *   (per-channel on NCHW, over C on NHWC, full reductions): each run folded with RX_ACC
 *   partials (RX_SEL for the select operators) merged in a fixed order, few outputs cut into
 *   a fixed number of pieces (stack partials, merged in piece order): sums and products are
 *   reordered in double (tolerance-tested in tests/impl/test_cpu_smx_fast.c; exact on small
 *   integers), MIN / MAX / AMAX keep the ref's value and first-occurrence index exactly.
 *   "Short rows" (a special case of runs: one contiguous reduced dim of 16 .. 1024 elements,
 *   one kept dim, e.g. over C on NHWC): a unit takes 64 outputs, with no per-output state
 *   setup; the same sums as runs (on AVX-512 with the partials in two registers:
 *   rx_rows_sum_avx512, the same bits); the select operators from 16 partials merged by a
 *   tree, or on AVX-512 from a vector max / min and a compare mask for the first position (a
 *   slice of up to 64 takes no data-dependent branch). Both AVX-512 forms prefetch RX_PF
 *   elements ahead: n8c64h112w112 over C of NHWC, 2 threads, 2-vCPU Xeon, ADD 1.2-2.1 ->
 *   0.52-0.70 ms, MAX 1.9-2.1 -> 0.85-1.05 ms (docs/perf/cpu-memops-2026-12-04b.md).
 *   Lanes fold their select operators four rows per sweep, the state in registers between
 *   them (the order of the rows unchanged); on AVX-512 with explicit mask compares and blends
 *   (rx_lanes_sel_avx512: MAX over C of NCHW n8c64h112w112, 2 threads 0.76 -> 0.69-0.72 ms,
 *   1 thread 1.55 -> 1.40).
 * - Without indices (2026-12-05, AVX2 Zen 3): MIN / MAX / AMAX keep the value alone, the
 *   first occurrence's bits by a strict compare in the slice's order (lanes: rx_vo_sweep, all
 *   ISAs) or, for the short rows on AVX2, by a vector max / min with a best of zero re-read at
 *   its first occurrence (rx_rows_vo_avx2); whether a slice held a number at all is read back
 *   only for slices still at the start value. The index state's dozen operations per element
 *   became one: n8c64h112w112 MAX, two threads, min of 10 cold calls (bench/memops_extra),
 *   over C of NCHW 1.27-1.30 -> 0.86-0.89 ms, of NHWC 1.71 -> 0.74-0.82. (AVX-512 short rows
 *   keep rx_rows_sel_avx512 with or without indices: not measured here.) Lanes units are
 *   wider (RX_W 2048, was 256: the reduced elements' runs are 8 KiB instead of 1 KiB): ADD
 *   over C of NCHW, two threads, 1.17-1.30 -> 0.74-0.88 ms (1024 lanes: 0.95-1.03).
 * - Other dtypes and FLOAT shapes that are neither: bit-identical to src/ref/reduce_ref.c:
 *   every output accumulates its slice in double in the row-major order of the reduced dims,
 *   with the ref's operator steps (the select operators' first-occurrence and NaN rules
 *   included), and rounds once with the ref's blend. The order inside a slice is what makes
 *   the sum exact to the ref's, so it is kept; what is vectorised and cheapened is the rest:
 *   up to RD_LANES outputs advance together (lanes along the kept dim with the smallest stride
 *   in A), their elements are loaded in blocks along the innermost reduced dim (or across
 *   lanes, whichever is contiguous in A) instead of the ref's per-element index arithmetic,
 *   and contiguous reduced dims are merged. Lanes contiguous in A (a per-channel reduction of
 *   NHWC) go up to RD_LANES so that a unit owns whole cache lines; their blocks are folded
 *   lane-parallel (each lane's order unchanged).
 * - Threads: units are groups of lanes, runs or fixed pieces; an output (or piece) is computed
 *   by one thread in a fixed order, so results do not depend on OMP_NUM_THREADS (the lanes
 *   kind's pieces depend on the shape alone). No workspace, nothing allocated.
 * FLOAT, DOUBLE, HALF, BFLOAT16 for A and C; declines integer and vectorised int8 views and
 * negative strides (ref serves).
 */
#if defined(__GNUC__) && !defined(__clang__)
/* no-trapping-math: lets GCC turn float selects into blends on AVX2 (values unchanged) */
#pragma GCC optimize("O3,fp-contract=off,no-trapping-math")
#endif
#include <float.h>

#include "../core/tensor_ops.h"
#include "memop.h"

#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

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

/* acc[l] folds in b[l * sl + j * sj] for j < len, in j order. Lanes contiguous in the block
 * (sl == 1): the lanes advance together, a vector loop; each lane's order is unchanged. */
FD_CPU_CLONES static void fold_block(cudnnReduceTensorOp_t op, int nl, int len, int sl, int sj,
                                     const double *restrict b, double *restrict acc)
{
    if (sl == 1 && op != CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS) {
        for (int j = 0; j < len; j++) {
            const double *q = b + j * sj;
            switch (op) {
            case CUDNN_REDUCE_TENSOR_ADD:
            case CUDNN_REDUCE_TENSOR_AVG:
                for (int l = 0; l < nl; l++)
                    acc[l] += q[l];
                break;
            case CUDNN_REDUCE_TENSOR_MUL:
                for (int l = 0; l < nl; l++)
                    acc[l] *= q[l];
                break;
            case CUDNN_REDUCE_TENSOR_NORM1:
                for (int l = 0; l < nl; l++)
                    acc[l] += fabs(q[l]);
                break;
            default: /* NORM2 */
                for (int l = 0; l < nl; l++)
                    acc[l] += q[l] * q[l];
                break;
            }
        }
        return;
    }
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

/* ---- FLOAT A with a contiguous innermost reduced run: lane-parallel folds ----------------- */

/* When A is FLOAT and the innermost reduced dim (after merging) is contiguous in A, a slice is
 * a set of contiguous runs, each folded with RX_ACC partial accumulators (element j of a run
 * into partial j % RX_ACC), the partials merged in a fixed tree: a vector loop instead of the
 * ref's serial chain. Sums and products in double change their rounding (tolerance-tested);
 * ADD / AVG / NORM1 / NORM2 of small integers stay exact. MIN / MAX / AMAX keep the ref's
 * result and index exactly: each partial keeps its first best (strictly better replaces), and
 * the merge takes the better value, on a tie the smaller position (the slice's first
 * occurrence); a propagated NaN takes the smallest NaN position. Few outputs (a full
 * reduction): each slice is cut into a fixed number of pieces (not the thread count), whose
 * partial results sit on the caller's stack and merge in piece order. */
#define RX_ACC 16
#define RX_PF 1024 /* elements prefetched ahead (rx_run_sum_pf, the short rows on AVX-512) */
#define RX_SEL                                                                                     \
    64              /* select partials: four vectors, so the state's store-to-load chains          \
                     * run side by side */
#define RX_MAXP 256 /* piece partials on the stack */
#define RX_PIECE 65536
#define RX_W 2048 /* lanes per unit (lanes kind; halved down to RX_WMIN for units) */
#define RX_WMIN 256
#define RX_LPF 16384       /* bytes a lanes piece prefetches ahead (rx_lpieces) */
#define RX_LUNITS 8        /* lanes reductions of fewer units are cut into pieces (rx_lpieces) */
#define RX_LPIECES 16      /* ... at most this many per unit */
#define RX_LPIECE_MIN 1024 /* ... of at least this many reduced elements */
#define RX_LSLOTS 1024     /* lane partials of the pieces on the stack */
#define RX_ROWS_MAX 1024   /* short rows: slices up to this long */
#define RX_ROWS_G 64       /* short rows: outputs per unit */

typedef struct {
    double v;
    uint32_t idx;
    int found, nan;
} rx_sel_t;

/* A lane's partial state over one piece of the lanes kind (rx_lpieces). */
typedef struct {
    double acc;
    float bv;
    uint32_t bi;
    int32_t st;
} rx_lpart_t;

typedef struct {
    int nr, nk, lanes;
    int64_t rdim[FD_DIM_MAX], rst[FD_DIM_MAX], rcm[FD_DIM_MAX]; /* reduced: A stride, position
                                                                 * multiplier; walk order */
    int64_t kdim[FD_DIM_MAX], kst[FD_DIM_MAX], kcs[FD_DIM_MAX]; /* kept: A, C strides */
    int64_t kcm[FD_DIM_MAX];                                    /* kept: row-major C index */
    int64_t count, outputs, pieces, plen, n;
    int64_t ll, lcs, lcm, w, chunks; /* lanes: the lane dim (A stride 1), C stride, C index */
    int64_t lpf;     /* lanes pieces (rx_lpieces): prefetch distance (elements) along the last
                      * reduced dim, 0 otherwise */
    int64_t lpieces; /* lanes: pieces of the reduced walk per unit (1: whole slices) */
    int rows;        /* short rows: RX_ROWS_G outputs per unit (rx_rows_unit) */
} rx_plan_t;

static int rx_plan(rx_plan_t *s, const fd_tensor_reduce_problem_t *p)
{
    const int nb = p->a.nb_dims;
    if (p->a.dtype != CUDNN_DATA_FLOAT || p->c.dtype != CUDNN_DATA_FLOAT)
        return 0;
    memset(s, 0, sizeof *s);
    int64_t cm[FD_DIM_MAX], m = 1, rm[FD_DIM_MAX], q = 1;
    for (int d = nb - 1; d >= 0; d--) {
        cm[d] = m, m *= p->c.dim[d];
        int red = p->c.dim[d] == 1 && p->a.dim[d] != 1;
        rm[d] = q, q *= red ? p->a.dim[d] : 1;
    }
    s->count = 1, s->outputs = 1, s->n = 1;
    int lane_k = -1;
    int rd[FD_DIM_MAX], nr = 0;
    for (int d = 0; d < nb; d++) {
        s->n *= p->a.dim[d];
        if (p->a.dim[d] == 1)
            continue;
        if (p->c.dim[d] == 1) {
            s->count *= p->a.dim[d];
            rd[nr++] = d;
        } else {
            s->outputs *= p->a.dim[d];
            int k = s->nk - 1; /* merged with the previous kept dim where A, C and the index
                                * all continue it (H and W of NCHW: longer lane runs) */
            if (k >= 0 && s->kst[k] == p->a.stride[d] * p->a.dim[d] &&
                s->kcs[k] == p->c.stride[d] * p->a.dim[d] && s->kcm[k] == cm[d] * p->a.dim[d]) {
                s->kdim[k] *= p->a.dim[d];
                s->kst[k] = p->a.stride[d], s->kcs[k] = p->c.stride[d], s->kcm[k] = cm[d];
                if (p->a.stride[d] == 1)
                    lane_k = k;
                continue;
            }
            if (p->a.stride[d] == 1)
                lane_k = s->nk;
            s->kdim[s->nk] = p->a.dim[d], s->kst[s->nk] = p->a.stride[d];
            s->kcs[s->nk] = p->c.stride[d], s->kcm[s->nk] = cm[d], s->nk++;
        }
    }
    if (nr == 0)
        return 0;
    if (lane_k >= 0 && s->kdim[lane_k] >= 16) {
        /* lanes: the kept dim contiguous in A; each lane's slice walked in canonical order
         * (the ref's order: bit-identical) */
        s->lanes = 1;
        for (int k = 0; k < nr; k++) {
            int d = rd[k];
            s->rdim[s->nr] = p->a.dim[d], s->rst[s->nr] = p->a.stride[d], s->rcm[s->nr] = rm[d];
            s->nr++;
        }
        s->ll = s->kdim[lane_k], s->lcs = s->kcs[lane_k], s->lcm = s->kcm[lane_k];
        for (int k = lane_k; k + 1 < s->nk; k++) { /* the lane dim leaves the outer dims */
            s->kdim[k] = s->kdim[k + 1], s->kst[k] = s->kst[k + 1];
            s->kcs[k] = s->kcs[k + 1], s->kcm[k] = s->kcm[k + 1];
        }
        s->nk--;
        s->outputs /= s->ll;
        /* wide units: each reduced element's run of lanes is w floats of one DRAM page, and
         * the strided runs of a unit (64 channel planes over C on NCHW) cost per run opened
         * (n8c64h112w112 ADD over C, two threads, AVX2 Zen 3: 256 lanes 1.17-1.30 ms, 1024
         * 0.95-1.03, 2048 0.74-0.88); halved while the tensor would have fewer than
         * RX_LUNITS units (the threads' share; below RX_WMIN rx_lpieces cuts pieces) */
        s->w = RX_W;
        while (s->w > RX_WMIN && s->outputs * ((s->ll + s->w - 1) / s->w) < RX_LUNITS)
            s->w /= 2;
        s->w = s->ll < s->w ? s->ll : s->w;
        s->chunks = (s->ll + s->w - 1) / s->w;
        s->pieces = 1;
        return 1;
    }
    /* reduced dims in memory order (largest A stride first), merged where contiguous */
    for (int i = 1; i < nr; i++)
        for (int j = i; j > 0 && p->a.stride[rd[j]] > p->a.stride[rd[j - 1]]; j--) {
            int t = rd[j];
            rd[j] = rd[j - 1], rd[j - 1] = t;
        }
    const int select = p->op == CUDNN_REDUCE_TENSOR_MIN || p->op == CUDNN_REDUCE_TENSOR_MAX ||
                       p->op == CUDNN_REDUCE_TENSOR_AMAX;
    for (int k = 0; k < nr; k++) {
        int d = rd[k], l = s->nr - 1;
        /* sums need no positions: memory-contiguous dims merge whatever their canonical
         * order (NHWC's W and C); the select operators' positions need both to continue */
        if (l >= 0 && s->rst[l] == p->a.stride[d] * p->a.dim[d] &&
            (!select || s->rcm[l] == rm[d] * p->a.dim[d])) {
            s->rdim[l] *= p->a.dim[d];
            s->rst[l] = p->a.stride[d], s->rcm[l] = rm[d];
            continue;
        }
        s->rdim[s->nr] = p->a.dim[d], s->rst[s->nr] = p->a.stride[d], s->rcm[s->nr] = rm[d];
        s->nr++;
    }
    if (s->rst[s->nr - 1] != 1 || s->rdim[s->nr - 1] < RX_ACC)
        return 0;
    if (s->nr == 1 && s->nk == 1 && s->count <= RX_ROWS_MAX && s->rcm[0] == 1) {
        /* many short contiguous slices (over C on NHWC): a unit takes RX_ROWS_G of them,
         * offsets by one multiply each, no per-output state on the stack */
        s->rows = 1;
        s->pieces = 1;
        s->plen = s->count;
        s->chunks = (s->outputs + RX_ROWS_G - 1) / RX_ROWS_G;
        return 1;
    }
    if (select && s->count < 4 * RX_SEL)
        return 0; /* short slices (over C on NHWC): the partials' merge costs more than the
                   * path below */
    s->pieces = 1;
    if (s->outputs < 16 && s->count >= 2 * RX_PIECE) {
        int64_t want = s->count / RX_PIECE, cap = RX_MAXP / s->outputs;
        s->pieces = want < cap ? want : cap;
    }
    s->plen = (s->count + s->pieces - 1) / s->pieces;
    return 1;
}

#define RX_INLINE static inline __attribute__((always_inline))

RX_INLINE double rx_tree(double *acc, int mul)
{
    for (int h = RX_ACC / 2; h > 0; h /= 2)
        for (int j = 0; j < h; j++)
            acc[j] = mul ? acc[j] * acc[j + h] : acc[j] + acc[j + h];
    return acc[0];
}

/* a better than b (b's position larger on a tie: the first occurrence wins). */
RX_INLINE int rx_better(const rx_sel_t *a, const rx_sel_t *b, int is_min)
{
    if (!a->found)
        return 0;
    if (!b->found)
        return 1;
    if (a->nan || b->nan)
        return a->nan && (!b->nan || a->idx < b->idx);
    if (a->v == b->v)
        return a->idx < b->idx;
    return is_min ? a->v < b->v : a->v > b->v;
}

/* Folds the run x[0 .. len) (slice positions pos0 ..) into the partials. */
RX_INLINE void rx_run_sum(cudnnReduceTensorOp_t op, const float *restrict x, int64_t len,
                          double *restrict acc)
{
    int64_t j = 0;
    switch (op) {
    case CUDNN_REDUCE_TENSOR_ADD:
    case CUDNN_REDUCE_TENSOR_AVG:
        for (; j + RX_ACC <= len; j += RX_ACC)
            for (int l = 0; l < RX_ACC; l++)
                acc[l] += (double)x[j + l];
        for (int l = 0; j < len; j++, l++)
            acc[l] += (double)x[j];
        break;
    case CUDNN_REDUCE_TENSOR_NORM1:
        for (; j + RX_ACC <= len; j += RX_ACC)
            for (int l = 0; l < RX_ACC; l++)
                acc[l] += fabs((double)x[j + l]);
        for (int l = 0; j < len; j++, l++)
            acc[l] += fabs((double)x[j]);
        break;
    case CUDNN_REDUCE_TENSOR_NORM2:
        for (; j + RX_ACC <= len; j += RX_ACC)
            for (int l = 0; l < RX_ACC; l++)
                acc[l] += (double)x[j + l] * (double)x[j + l];
        for (int l = 0; j < len; j++, l++)
            acc[l] += (double)x[j] * (double)x[j];
        break;
    case CUDNN_REDUCE_TENSOR_MUL:
        for (; j + RX_ACC <= len; j += RX_ACC)
            for (int l = 0; l < RX_ACC; l++)
                acc[l] *= (double)x[j + l];
        for (int l = 0; j < len; j++, l++)
            acc[l] *= (double)x[j];
        break;
    default: /* MUL_NO_ZEROS */
        for (; j + RX_ACC <= len; j += RX_ACC)
            for (int l = 0; l < RX_ACC; l++) {
                double v = x[j + l];
                acc[l] *= v != 0.0 ? v : 1.0;
            }
        for (int l = 0; j < len; j++, l++) {
            double v = x[j];
            acc[l] *= v != 0.0 ? v : 1.0;
        }
        break;
    }
}

/* ADD / AVG, NORM1 and NORM2 of a long run (a channel plane of a per-channel NCHW reduction)
 * with a software prefetch RX_PF elements ahead: Zen 5's prefetchers alone left ADD at 0.65 of
 * the bandwidth (0.98 -> 0.80 ms on n8c64h112w112); NORM1 / NORM2 took the plain loop until
 * 2026-12-06 (n8c64h112w112 per channel, Intel VM, min of 10 cold calls, bench/memops_extra,
 * two threads: NORM2 1.00-1.22 -> 0.73-0.82 ms, NORM1 1.23-1.36 -> 0.77-0.98, one thread NORM2
 * 2.82-3.00 -> 1.88-2.20; with bench/membw's 384 MiB pass before every sample, so that no
 * part of the tensor is left in the VM's large last-level cache, NORM2 1.35-1.53 -> 1.18-1.40,
 * NORM1 1.38-1.41 -> 1.23-1.34: docs/perf/cpu-memops-2026-12-06.md). The same partials and
 * expressions as rx_run_sum (element j into j % RX_ACC), so the same bits. A separate function:
 * with the prefetch inside rx_run_sum the short-row callers ran 2x slower. */
#define RX_RUN_PF(EXPR)                                                                            \
    do {                                                                                           \
        for (; j + RX_ACC <= len; j += RX_ACC) {                                                   \
            __builtin_prefetch(x + j + RX_PF);                                                     \
            for (int l = 0; l < RX_ACC; l++) {                                                     \
                const double v = (double)x[j + l];                                                 \
                acc[l] += (EXPR);                                                                  \
            }                                                                                      \
        }                                                                                          \
        for (int l = 0; j < len; j++, l++) {                                                       \
            const double v = (double)x[j];                                                         \
            acc[l] += (EXPR);                                                                      \
        }                                                                                          \
    } while (0)
RX_INLINE void rx_run_sum_pf(cudnnReduceTensorOp_t op, const float *restrict x, int64_t len,
                             double *restrict acc)
{
    int64_t j = 0;
    if (op == CUDNN_REDUCE_TENSOR_NORM2)
        RX_RUN_PF(v * v);
    else if (op == CUDNN_REDUCE_TENSOR_NORM1)
        RX_RUN_PF(fabs(v));
    else
        RX_RUN_PF(v);
}
#undef RX_RUN_PF

/* Select over a run (slice positions pos0 + j * pstep): per partial, the best value (|x| for
 * AMAX) at its smallest position (the walk is in memory order, not necessarily the slice's);
 * NaN: the first one reached when propagated (the merge then takes the smallest position),
 * skipped otherwise. Branch-free for the vectoriser: the state is in plain arrays. */
RX_INLINE void rx_run_sel(cudnnReduceTensorOp_t op, int prop, const float *restrict x, int64_t len,
                          uint32_t pos0, uint32_t pstep, float *restrict bv, uint32_t *restrict bi,
                          int32_t *restrict st)
{
    /* st: 0 nothing yet, 1 a value, 2 a propagated NaN (final) */
    const int is_min = op == CUDNN_REDUCE_TENSOR_MIN, amax = op == CUDNN_REDUCE_TENSOR_AMAX;
    int64_t j = 0;
#define RX_SEL_STEP(l, jj)                                                                         \
    do {                                                                                           \
        float v = x[jj];                                                                           \
        int32_t isn = v != v;                                                                      \
        float w = amax ? fabsf(v) : v;                                                             \
        uint32_t pos = pos0 + (uint32_t)(jj)*pstep;                                                \
        int32_t better =                                                                           \
            (is_min ? w < bv[l] : w > bv[l]) | (st[l] == 0) | ((w == bv[l]) & (pos < bi[l]));      \
        int32_t take = isn ? prop & ((st[l] != 2) | (pos < bi[l])) : (st[l] != 2) & better;        \
        bv[l] = take ? w : bv[l];                                                                  \
        bi[l] = take ? pos : bi[l];                                                                \
        st[l] = take ? 1 + isn : st[l];                                                            \
    } while (0)
    for (; j + RX_SEL <= len; j += RX_SEL)
        for (int l = 0; l < RX_SEL; l++)
            RX_SEL_STEP(l, j + l);
    for (int l = 0; j < len; j++, l++)
        RX_SEL_STEP(l, j);
#undef RX_SEL_STEP
}

/* Piece pc of output o: sum state into *sum, select state into *sel. */
RX_INLINE void rx_piece(const rx_plan_t *s, const fd_tensor_reduce_problem_t *p, const float *a,
                        int64_t o, int64_t pc, double *sum, rx_sel_t *sel)
{
    const cudnnReduceTensorOp_t op = p->op;
    const int select = op == CUDNN_REDUCE_TENSOR_MIN || op == CUDNN_REDUCE_TENSOR_MAX ||
                       op == CUDNN_REDUCE_TENSOR_AMAX;
    const int mul = op == CUDNN_REDUCE_TENSOR_MUL || op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS;
    int64_t base = 0, t = o;
    for (int k = s->nk - 1; k >= 0; k--) {
        base += (t % s->kdim[k]) * s->kst[k];
        t /= s->kdim[k];
    }
    const int kr = s->nr - 1;
    const int64_t inner = s->rdim[kr];
    int64_t f0 = pc * s->plen, f1 = f0 + s->plen < s->count ? f0 + s->plen : s->count;
    /* position of flat slice index f0 */
    int64_t idx[FD_DIM_MAX], off = 0, pbase = 0, r = f0 / inner;
    for (int d = kr - 1; d >= 0; d--) {
        idx[d] = r % s->rdim[d];
        r /= s->rdim[d];
        off += idx[d] * s->rst[d];
        pbase += idx[d] * s->rcm[d];
    }
    int64_t j = f0 % inner;
    double acc[RX_ACC];
    float bv[RX_SEL];
    uint32_t bi[RX_SEL];
    int32_t st[RX_SEL];
    for (int l = 0; l < RX_ACC; l++)
        acc[l] = mul ? 1.0 : 0.0;
    for (int l = 0; l < RX_SEL; l++)
        bv[l] = 0.0f, bi[l] = 0, st[l] = 0;
    for (int64_t f = f0; f < f1;) {
        int64_t len = inner - j < f1 - f ? inner - j : f1 - f;
        const float *x = a + base + off + j;
        if (select)
            rx_run_sel(op, p->nan == CUDNN_PROPAGATE_NAN, x, len,
                       (uint32_t)(pbase + j * s->rcm[kr]), (uint32_t)s->rcm[kr], bv, bi, st);
        else if (len >= 4 * RX_PF &&
                 (op == CUDNN_REDUCE_TENSOR_ADD || op == CUDNN_REDUCE_TENSOR_AVG ||
                  op == CUDNN_REDUCE_TENSOR_NORM1 || op == CUDNN_REDUCE_TENSOR_NORM2))
            rx_run_sum_pf(op, x, len, acc);
        else
            rx_run_sum(op, x, len, acc);
        f += len;
        j += len;
        if (j == inner) {
            j = 0;
            for (int d = kr - 1; d >= 0; d--) {
                off += s->rst[d], pbase += s->rcm[d];
                if (++idx[d] < s->rdim[d])
                    break;
                idx[d] = 0;
                off -= s->rdim[d] * s->rst[d], pbase -= s->rdim[d] * s->rcm[d];
            }
        }
    }
    if (!select) {
        *sum = rx_tree(acc, mul);
        return;
    }
    /* the partials merged with vector loops: the smallest NaN position if any, else the best
     * value and the smallest position holding it */
    const int is_min = op == CUDNN_REDUCE_TENSOR_MIN;
    /* (16-wide groups: a plain reduction loop stayed scalar) */
    uint32_t ni[RX_ACC], fo[RX_ACC], an[RX_ACC], xi[RX_ACC];
    float xv[RX_ACC];
    const float worst = is_min ? INFINITY : -INFINITY;
    for (int l = 0; l < RX_ACC; l++)
        ni[l] = UINT32_MAX, fo[l] = 0, an[l] = 0, xv[l] = worst, xi[l] = UINT32_MAX;
    for (int g = 0; g < RX_SEL; g += RX_ACC)
        for (int l = 0; l < RX_ACC; l++) {
            int32_t t = st[g + l];
            uint32_t i = bi[g + l];
            float v = bv[g + l];
            ni[l] = t == 2 && i < ni[l] ? i : ni[l];
            fo[l] |= (uint32_t)(t != 0);
            an[l] |= (uint32_t)(t == 2);
            xv[l] = t == 1 && (is_min ? v < xv[l] : v > xv[l]) ? v : xv[l];
        }
    uint32_t nanidx = UINT32_MAX, found = 0, anynan = 0;
    float bvv = worst;
    for (int l = 0; l < RX_ACC; l++) {
        nanidx = ni[l] < nanidx ? ni[l] : nanidx;
        found |= fo[l], anynan |= an[l];
        bvv = is_min ? (xv[l] < bvv ? xv[l] : bvv) : (xv[l] > bvv ? xv[l] : bvv);
    }
    for (int g = 0; g < RX_SEL; g += RX_ACC)
        for (int l = 0; l < RX_ACC; l++)
            xi[l] = st[g + l] == 1 && bv[g + l] == bvv && bi[g + l] < xi[l] ? bi[g + l] : xi[l];
    uint32_t bix = UINT32_MAX;
    for (int l = 0; l < RX_ACC; l++)
        bix = xi[l] < bix ? xi[l] : bix;
    /* the value held at that position: equal to bvv, but a zero's sign is the first
     * occurrence's, not that of whichever partial the merge met first */
    for (int l = 0; l < RX_SEL; l++)
        if (st[l] == 1 && bi[l] == bix && bv[l] == bvv)
            bvv = bv[l];
    rx_sel_t best = {0.0, 0, 0, 0};
    if (anynan)
        best = (rx_sel_t){NAN, nanidx, 1, 1};
    else if (found)
        best = (rx_sel_t){bvv, bix, 1, 0};
    *sel = best;
}

/* Output o from its merged state: the ref's finishing steps and blend. */
static void rx_finish(const rx_plan_t *s, const fd_tensor_reduce_problem_t *p,
                      const fd_tensor_reduce_args_t *a, int64_t o, double sum, const rx_sel_t *sel)
{
    const cudnnReduceTensorOp_t op = p->op;
    const int select = op == CUDNN_REDUCE_TENSOR_MIN || op == CUDNN_REDUCE_TENSOR_MAX ||
                       op == CUDNN_REDUCE_TENSOR_AMAX;
    double r = sum;
    if (select && sel->found) {
        r = sel->v;
    } else if (select) {
        const double big = p->comp == CUDNN_DATA_DOUBLE ? DBL_MAX : FLT_MAX;
        r = op == CUDNN_REDUCE_TENSOR_MIN ? big : op == CUDNN_REDUCE_TENSOR_MAX ? -big : 0.0;
    } else if (op == CUDNN_REDUCE_TENSOR_AVG) {
        r = sum / (double)s->count;
    } else if (op == CUDNN_REDUCE_TENSOR_NORM2) {
        r = sqrt(sum);
    }
    int64_t coff = 0, cidx = 0, t = o;
    for (int k = s->nk - 1; k >= 0; k--) {
        int64_t i = t % s->kdim[k];
        t /= s->kdim[k];
        coff += i * s->kcs[k];
        cidx += i * s->kcm[k];
    }
    float *c = (float *)a->c + coff;
    double out = a->alpha * r;
    if (a->beta != 0.0)
        out += a->beta * (double)*c;
    *c = (float)out;
    if (p->want_indices && a->indices != NULL) {
        uint32_t v = select && sel->found ? sel->idx : 0;
        memcpy((unsigned char *)a->indices + (size_t)cidx * sizeof v, &v, sizeof v);
    }
}

/* Lanes kind: w outputs contiguous in A advance together; each lane's slice in canonical
 * order with the ref's steps, so the results are the ref's bit for bit. */
static void rx_lanes_store(const rx_plan_t *s, const fd_tensor_reduce_problem_t *p,
                           const fd_tensor_reduce_args_t *a, int64_t o, int64_t l0, int w,
                           const double *acc, const float *bv, const uint32_t *bi,
                           const int32_t *st);

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#include <immintrin.h>
/* The lanes kind's select sweep on AVX-512: the rows x[0 .. nx) (positions pos, pos + 1, ...)
 * folded into the states of lanes [0, w), 16 at a time, the states in registers across the
 * rows; the steps of RX_LANE_SEL below (the same values, indices and states): a row's
 * element is taken where the state holds no NaN and it is a NaN with prop set, or a number
 * that beats the value (strictly) or the first number met. Full vectors use plain loads. */
__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl"))) static void
rx_lanes_sel_avx512(const float *const *x, int nx, int w, float *bv, uint32_t *bi, int32_t *st,
                    uint32_t pos, int is_min, int amax, int prop)
{
    const __m512i one = _mm512_set1_epi32(1), two = _mm512_set1_epi32(2);
    const __m512i zero = _mm512_setzero_si512();
    const __m512 absm = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
    const __mmask16 pm = prop ? 0xffff : 0;
    for (int l = 0; l < w; l += 16) {
        const __mmask16 m = w - l >= 16 ? 0xffff : (__mmask16)((1u << (w - l)) - 1);
        __m512 cv = _mm512_maskz_loadu_ps(m, bv + l);
        __m512i ci = _mm512_maskz_loadu_epi32(m, bi + l), cs = _mm512_maskz_loadu_epi32(m, st + l);
        for (int i = 0; i < nx; i++) {
            const __m512 v =
                m == 0xffff ? _mm512_loadu_ps(x[i] + l) : _mm512_maskz_loadu_ps(m, x[i] + l);
            const __mmask16 isn = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
            const __m512 q = amax ? _mm512_and_ps(v, absm) : v;
            /* q < cv for MIN, cv < q otherwise: one immediate (a constant at any -O level) */
            const __mmask16 better =
                _mm512_cmp_ps_mask(is_min ? q : cv, is_min ? cv : q, _CMP_LT_OQ) |
                _mm512_cmpeq_epi32_mask(cs, zero);
            const __mmask16 take =
                _mm512_cmpneq_epi32_mask(cs, two) & (__mmask16)((isn & pm) | (~isn & better));
            cv = _mm512_mask_mov_ps(cv, take, q);
            ci = _mm512_mask_mov_epi32(ci, take, _mm512_set1_epi32((int)(pos + (uint32_t)i)));
            cs = _mm512_mask_mov_epi32(cs, take, _mm512_mask_mov_epi32(one, isn, two));
        }
        _mm512_mask_storeu_ps(bv + l, m, cv);
        _mm512_mask_storeu_epi32(bi + l, m, ci);
        _mm512_mask_storeu_epi32(st + l, m, cs);
    }
}
#define RX_LANES_SEL512 1
#endif

/* The select operators without indices (the value alone, "vo"): a lane keeps its best value
 * only, q > cv ? q : cv (q < cv for MIN; q = |x| for AMAX), in the slice's order: a tie keeps
 * the value met first, so a zero's sign is the first occurrence's, as the ref's; a NaN
 * compares false and is skipped; with prop, nf records that the lane met one (its result is
 * then NaN, the ref's value for a propagated NaN). What the index state decided besides, that
 * the lane met a number at all, is read back after the walk (rx_lane_found) for the lanes
 * whose value is still the start value (+-inf): all NaN, or +-inf itself. A vector max / min
 * (or a compare and a blend) per element instead of the index state's dozen operations.
 * is_min, amax, prop: constants after inlining. */
RX_INLINE void rx_vo_sweep(const float *const *x, int nx, int w, float *restrict cv,
                           int32_t *restrict nf, const int is_min, const int amax, const int prop)
{
#define RX_VO_STEP(xr)                                                                             \
    do {                                                                                           \
        const float q = amax ? fabsf((xr)[l]) : (xr)[l];                                           \
        c = is_min ? (q < c ? q : c) : (q > c ? q : c);                                            \
        if (prop)                                                                                  \
            f |= q != q;                                                                           \
    } while (0)
    if (nx == 4) {
        const float *restrict x0 = x[0], *restrict x1 = x[1], *restrict x2 = x[2],
                              *restrict x3 = x[3];
        for (int l = 0; l < w; l++) {
            float c = cv[l];
            int32_t f = nf[l];
            RX_VO_STEP(x0);
            RX_VO_STEP(x1);
            RX_VO_STEP(x2);
            RX_VO_STEP(x3);
            cv[l] = c, nf[l] = f;
        }
        return;
    }
    for (int i = 0; i < nx; i++) {
        const float *restrict xi = x[i];
        for (int l = 0; l < w; l++) {
            float c = cv[l];
            int32_t f = nf[l];
            RX_VO_STEP(xi);
            cv[l] = c, nf[l] = f;
        }
    }
#undef RX_VO_STEP
}

/* 1 when lane a0l's slice holds a number (not NaN) among the canonical positions [pos0,
 * pos1): rx_vo_sweep's lanes still at their start value. */
static int rx_lane_found(const rx_plan_t *s, const float *a0l, int64_t pos0, int64_t pos1)
{
    int64_t idx[FD_DIM_MAX] = {0}, off = 0;
    const int kr = s->nr - 1;
    for (int64_t d = kr, r = pos0; d >= 0; d--) {
        idx[d] = r % s->rdim[d], r /= s->rdim[d];
        off += idx[d] * s->rst[d];
    }
    for (int64_t f = pos0; f < pos1; f++) {
        if (a0l[off] == a0l[off])
            return 1;
        for (int d = kr; d >= 0; d--) {
            off += s->rst[d];
            if (++idx[d] < s->rdim[d])
                break;
            idx[d] = 0;
            off -= s->rdim[d] * s->rst[d];
        }
    }
    return 0;
}

/* ... over the canonical positions [pos0, pos1) of each slice; the whole slice writes the
 * outputs, a piece its partial states to part[0 .. w). */
RX_INLINE void rx_lanes_unit(const rx_plan_t *s, const fd_tensor_reduce_problem_t *p,
                             const fd_tensor_reduce_args_t *a, int64_t u, int64_t l0, const int w,
                             int64_t pos0, int64_t pos1, rx_lpart_t *part, const int x512)
{
    const cudnnReduceTensorOp_t op = p->op;
    const int mul = op == CUDNN_REDUCE_TENSOR_MUL || op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS;
    const int is_min = op == CUDNN_REDUCE_TENSOR_MIN, amax = op == CUDNN_REDUCE_TENSOR_AMAX;
    const int prop = p->nan == CUDNN_PROPAGATE_NAN;
    const int vo = !(p->want_indices && a->indices != NULL) &&
                   (is_min || amax || op == CUDNN_REDUCE_TENSOR_MAX); /* rx_vo_sweep */
    int64_t o = u / s->chunks, base = l0, t = o;
    for (int k = s->nk - 1; k >= 0; k--) {
        base += (t % s->kdim[k]) * s->kst[k];
        t /= s->kdim[k];
    }
    const float *a0 = (const float *)a->a + base;
    double acc[RX_W];
    float bv[RX_W];
    uint32_t bi[RX_W];
    int32_t st[RX_W];
    const float vo0 = is_min ? INFINITY : -INFINITY; /* rx_vo_sweep's start value */
    for (int l = 0; l < w; l++)
        acc[l] = mul ? 1.0 : 0.0, bv[l] = vo ? vo0 : 0.0f, bi[l] = 0, st[l] = 0;
    int64_t idx[FD_DIM_MAX] = {0}, off = 0, left = pos1 - pos0;
    const int kr = s->nr - 1;
    for (int64_t d = kr, r = pos0; d >= 0; d--) {
        idx[d] = r % s->rdim[d], r /= s->rdim[d];
        off += idx[d] * s->rst[d];
    }
    uint32_t pos = (uint32_t)pos0;
    for (int more = left > 0; more;) {
        /* up to 4 consecutive reduced elements per sweep over the lanes: the accumulators
         * make one trip through memory per 4 rows, in the same order */
        const float *x[4];
        int nx = 0;
        while (nx < 4 && more) {
            x[nx++] = a0 + off;
            int d = kr;
            for (; d >= 0; d--) {
                off += s->rst[d];
                if (++idx[d] < s->rdim[d])
                    break;
                idx[d] = 0;
                off -= s->rdim[d] * s->rst[d];
            }
            more = d >= 0 && --left > 0;
        }
        if (s->lpf)
            for (int i = 0; i < nx; i++)
                for (int l = 0; l < w; l += 16)
                    __builtin_prefetch(x[i] + s->lpf + l, 0, 3);
        else
            for (int i = 0; i < nx; i++)
                for (int l = 0; l < w; l += 16) /* the next unit's lanes: a short run per
                                                 * reduced element is too many streams */
                    __builtin_prefetch(x[i] + w + l, 0, 2);
        const float *x0 = x[0], *x1 = x[nx > 1 ? 1 : 0], *x2 = x[nx > 2 ? 2 : 0],
                    *x3 = x[nx > 3 ? 3 : 0];
        switch (op) {
        case CUDNN_REDUCE_TENSOR_ADD:
        case CUDNN_REDUCE_TENSOR_AVG:
            if (nx == 4)
                for (int l = 0; l < w; l++)
                    acc[l] = (((acc[l] + (double)x0[l]) + (double)x1[l]) + (double)x2[l]) +
                             (double)x3[l];
            else
                for (int i = 0; i < nx; i++)
                    for (int l = 0; l < w; l++)
                        acc[l] += (double)x[i][l];
            break;
        case CUDNN_REDUCE_TENSOR_NORM1:
            for (int i = 0; i < nx; i++)
                for (int l = 0; l < w; l++)
                    acc[l] += fabs((double)x[i][l]);
            break;
        case CUDNN_REDUCE_TENSOR_NORM2:
            if (nx == 4)
                for (int l = 0; l < w; l++)
                    acc[l] = (((acc[l] + (double)x0[l] * (double)x0[l]) +
                               (double)x1[l] * (double)x1[l]) +
                              (double)x2[l] * (double)x2[l]) +
                             (double)x3[l] * (double)x3[l];
            else
                for (int i = 0; i < nx; i++)
                    for (int l = 0; l < w; l++)
                        acc[l] += (double)x[i][l] * (double)x[i][l];
            break;
        case CUDNN_REDUCE_TENSOR_MUL:
            for (int i = 0; i < nx; i++)
                for (int l = 0; l < w; l++)
                    acc[l] *= (double)x[i][l];
            break;
        case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS:
            for (int i = 0; i < nx; i++)
                for (int l = 0; l < w; l++) {
                    double v = x[i][l];
                    acc[l] *= v != 0.0 ? v : 1.0;
                }
            break;
        default: /* the ref's select_step, branch-free; the rows of a sweep in order, the
                  * state in registers between them */
            if (vo) { /* the value alone, st[] the NaN flags */
                if (is_min)
                    prop ? rx_vo_sweep(x, nx, w, bv, st, 1, 0, 1)
                         : rx_vo_sweep(x, nx, w, bv, st, 1, 0, 0);
                else if (amax)
                    prop ? rx_vo_sweep(x, nx, w, bv, st, 0, 1, 1)
                         : rx_vo_sweep(x, nx, w, bv, st, 0, 1, 0);
                else
                    prop ? rx_vo_sweep(x, nx, w, bv, st, 0, 0, 1)
                         : rx_vo_sweep(x, nx, w, bv, st, 0, 0, 0);
                break;
            }
#ifdef RX_LANES_SEL512
            if (x512) {
                rx_lanes_sel_avx512(x, nx, w, bv, bi, st, pos, is_min, amax, prop);
                break;
            }
#else
            (void)x512;
#endif
#define RX_LANE_SEL(xr, pr)                                                                        \
    do {                                                                                           \
        float v = (xr)[l];                                                                         \
        int32_t isn = v != v;                                                                      \
        float q = amax ? fabsf(v) : v;                                                             \
        int32_t better = (is_min ? q < cv : q > cv) | (cs == 0);                                   \
        int32_t take = (cs != 2) & (isn ? prop : better);                                          \
        cv = take ? q : cv;                                                                        \
        ci = take ? (pr) : ci;                                                                     \
        cs = take ? 1 + isn : cs;                                                                  \
    } while (0)
            if (nx == 4)
                for (int l = 0; l < w; l++) {
                    float cv = bv[l];
                    uint32_t ci = bi[l];
                    int32_t cs = st[l];
                    RX_LANE_SEL(x0, pos);
                    RX_LANE_SEL(x1, pos + 1);
                    RX_LANE_SEL(x2, pos + 2);
                    RX_LANE_SEL(x3, pos + 3);
                    bv[l] = cv, bi[l] = ci, st[l] = cs;
                }
            else
                for (int i = 0; i < nx; i++)
                    for (int l = 0; l < w; l++) {
                        float cv = bv[l];
                        uint32_t ci = bi[l];
                        int32_t cs = st[l];
                        RX_LANE_SEL(x[i], pos + (uint32_t)i);
                        bv[l] = cv, bi[l] = ci, st[l] = cs;
                    }
#undef RX_LANE_SEL
            break;
        }
        pos += (uint32_t)nx;
    }
    if (vo) /* the index state's st: 2 a propagated NaN, 1 a number met, 0 neither */
        for (int l = 0; l < w; l++)
            st[l] = st[l] ? 2 : bv[l] != vo0 || rx_lane_found(s, a0 + l, pos0, pos1) ? 1 : 0;
    if (part != NULL) {
        for (int l = 0; l < w; l++)
            part[l].acc = acc[l], part[l].bv = bv[l], part[l].bi = bi[l], part[l].st = st[l];
        return;
    }
    rx_lanes_store(s, p, a, o, l0, w, acc, bv, bi, st);
}

/* The outputs of lanes [l0, l0 + w) of output row o from their final states. */
static void rx_lanes_store(const rx_plan_t *s, const fd_tensor_reduce_problem_t *p,
                           const fd_tensor_reduce_args_t *a, int64_t o, int64_t l0, int w,
                           const double *acc, const float *bv, const uint32_t *bi,
                           const int32_t *st)
{
    const cudnnReduceTensorOp_t op = p->op;
    const int select = op == CUDNN_REDUCE_TENSOR_MIN || op == CUDNN_REDUCE_TENSOR_MAX ||
                       op == CUDNN_REDUCE_TENSOR_AMAX;
    int64_t coff = 0, cidx = 0, t = o;
    for (int k = s->nk - 1; k >= 0; k--) {
        int64_t i = t % s->kdim[k];
        t /= s->kdim[k];
        coff += i * s->kcs[k], cidx += i * s->kcm[k];
    }
    const double big = p->comp == CUDNN_DATA_DOUBLE ? DBL_MAX : FLT_MAX;
    float *c = a->c;
    for (int l = 0; l < w; l++) {
        double r = acc[l];
        if (select && st[l])
            r = st[l] == 2 ? NAN : bv[l];
        else if (select)
            r = op == CUDNN_REDUCE_TENSOR_MIN ? big : op == CUDNN_REDUCE_TENSOR_MAX ? -big : 0.0;
        else if (op == CUDNN_REDUCE_TENSOR_AVG)
            r = acc[l] / (double)s->count;
        else if (op == CUDNN_REDUCE_TENSOR_NORM2)
            r = sqrt(acc[l]);
        float *cp = c + coff + (l0 + l) * s->lcs;
        double out = a->alpha * r;
        if (a->beta != 0.0)
            out += a->beta * (double)*cp;
        *cp = (float)out;
        if (p->want_indices && a->indices != NULL) {
            uint32_t v = select && st[l] ? bi[l] : 0;
            memcpy((unsigned char *)a->indices + (size_t)(cidx + (l0 + l) * s->lcm) * sizeof v, &v,
                   sizeof v);
        }
    }
}

/* Short rows: output o's result r with the ref's blend, and its index when asked for. */
RX_INLINE void rx_rows_put(const rx_plan_t *s, const fd_tensor_reduce_args_t *a, int64_t o,
                           double r, int want_idx, uint32_t idx)
{
    float *cp = (float *)a->c + o * s->kcs[0];
    double out = a->alpha * r;
    if (a->beta != 0.0)
        out += a->beta * (double)*cp;
    *cp = (float)out;
    if (want_idx)
        memcpy((unsigned char *)a->indices + (size_t)(o * s->kcm[0]) * sizeof idx, &idx,
               sizeof idx);
}

/* Short rows: outputs o = u RX_ROWS_G .. (one kept dim, one contiguous reduced dim whose
 * position is the element's offset). Sums fold each slice exactly as rx_piece does (RX_ACC
 * partials, element j into partial j % RX_ACC, the same tree), so the bits are those of the
 * runs kind. The select operators: 16 partials (element j into j % 16) keep their best
 * non-NaN value (|x| for AMAX) at its first position and their first NaN, merged by a tree
 * in which a tie goes to the smaller position: the ref's first occurrence; the value is
 * re-read there (the sign of a zero). (rx_rows_sel_avx512: the same results another way.) */
RX_INLINE void rx_rows_unit(const rx_plan_t *s, const fd_tensor_reduce_problem_t *p,
                            const fd_tensor_reduce_args_t *a, int64_t u)
{
    const cudnnReduceTensorOp_t op = p->op;
    const int select = op == CUDNN_REDUCE_TENSOR_MIN || op == CUDNN_REDUCE_TENSOR_MAX ||
                       op == CUDNN_REDUCE_TENSOR_AMAX;
    const int mul = op == CUDNN_REDUCE_TENSOR_MUL || op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS;
    const int is_min = op == CUDNN_REDUCE_TENSOR_MIN, amax = op == CUDNN_REDUCE_TENSOR_AMAX;
    const int prop = p->nan == CUDNN_PROPAGATE_NAN;
    const int64_t len = s->count, o0 = u * RX_ROWS_G;
    const int64_t o1 = o0 + RX_ROWS_G < s->outputs ? o0 + RX_ROWS_G : s->outputs;
    const double big = p->comp == CUDNN_DATA_DOUBLE ? DBL_MAX : FLT_MAX;
    const float worst = is_min ? INFINITY : -INFINITY;
    const int want_idx = p->want_indices && a->indices != NULL;
    for (int64_t o = o0; o < o1; o++) {
        const float *restrict x = (const float *)a->a + o * s->kst[0];
        double r;
        uint32_t idx = 0;
        if (!select) {
            double acc[RX_ACC];
            for (int l = 0; l < RX_ACC; l++)
                acc[l] = mul ? 1.0 : 0.0;
            rx_run_sum(op, x, len, acc);
            r = rx_tree(acc, mul);
            if (op == CUDNN_REDUCE_TENSOR_AVG)
                r = r / (double)s->count;
            else if (op == CUDNN_REDUCE_TENSOR_NORM2)
                r = sqrt(r);
        } else {
            /* per lane l (elements j = l mod 16): its best and that best's first position
             * (positions rise along a lane, so strictly better keeps the first), its first
             * NaN; then a tree over the lanes, ties to the smaller position */
            float bv[16];
            uint32_t bi[16], ni[16];
            for (int l = 0; l < 16; l++)
                bv[l] = worst, bi[l] = UINT32_MAX, ni[l] = UINT32_MAX;
#define RX_ROWS_STEP(l, jj)                                                                        \
    do {                                                                                           \
        float v = x[jj];                                                                           \
        uint32_t pos = (uint32_t)(jj);                                                             \
        int32_t isn = v != v;                                                                      \
        float w = amax ? fabsf(v) : v;                                                             \
        int32_t take = (1 - isn) & ((is_min ? w < bv[l] : w > bv[l]) | (bi[l] == UINT32_MAX));     \
        bv[l] = take ? w : bv[l];                                                                  \
        bi[l] = take ? pos : bi[l];                                                                \
        ni[l] = (isn & (ni[l] == UINT32_MAX)) ? pos : ni[l];                                       \
    } while (0)
            int64_t j = 0;
            for (; j + 16 <= len; j += 16)
                for (int l = 0; l < 16; l++)
                    RX_ROWS_STEP(l, j + l);
            for (int l = 0; j < len; j++, l++)
                RX_ROWS_STEP(l, j);
#undef RX_ROWS_STEP
            for (int h = 8; h > 0; h /= 2)
                for (int l = 0; l < h; l++) {
                    float w = bv[l + h];
                    int32_t take =
                        (is_min ? w < bv[l] : w > bv[l]) | ((w == bv[l]) & (bi[l + h] < bi[l]));
                    bv[l] = take ? w : bv[l];
                    bi[l] = take ? bi[l + h] : bi[l];
                    ni[l] = ni[l + h] < ni[l] ? ni[l + h] : ni[l];
                }
            if (prop && ni[0] != UINT32_MAX) {
                idx = ni[0];
                r = NAN;
            } else if (bi[0] != UINT32_MAX) {
                idx = bi[0];
                r = amax ? fabsf(x[idx]) : x[idx];
            } else {
                r = is_min ? big : op == CUDNN_REDUCE_TENSOR_MAX ? -big : 0.0;
            }
        }
        rx_rows_put(s, a, o, r, want_idx, idx);
    }
}

/* Units: (output, piece); one piece per output finishes it at once. */
RX_INLINE void rx_unit(const rx_plan_t *s, const fd_tensor_reduce_problem_t *p,
                       const fd_tensor_reduce_args_t *a, int64_t u, double *psum, rx_sel_t *psel,
                       rx_lpart_t *lpart, const int x512)
{
    if (s->lanes) {
        /* lanes [l0, l0 + w) of output row g / chunks, piece pc of its slices */
        const int64_t P = s->lpieces, g = u / P, pc = u % P;
        const int64_t l0 = (g % s->chunks) * s->w, l1 = l0 + s->w < s->ll ? l0 + s->w : s->ll;
        rx_lanes_unit(s, p, a, g, l0, (int)(l1 - l0), s->count * pc / P, s->count * (pc + 1) / P,
                      P > 1 ? lpart + u * s->w : NULL, x512);
        return;
    }
    if (s->rows) {
        rx_rows_unit(s, p, a, u);
        return;
    }
    int64_t o = u / s->pieces, pc = u % s->pieces;
    double sum = 0.0;
    rx_sel_t sel = {0.0, 0, 0, 0};
    rx_piece(s, p, a->a, o, pc, &sum, &sel);
    if (s->pieces == 1)
        rx_finish(s, p, a, o, sum, &sel);
    else
        psum[u] = sum, psel[u] = sel;
}

typedef void (*rx_unit_fn)(const rx_plan_t *, const fd_tensor_reduce_problem_t *,
                           const fd_tensor_reduce_args_t *, int64_t, double *, rx_sel_t *,
                           rx_lpart_t *);
#define RX_VARIANT(suffix, attr, x512)                                                             \
    attr static void rx_unit_##suffix(const rx_plan_t *s, const fd_tensor_reduce_problem_t *p,     \
                                      const fd_tensor_reduce_args_t *a, int64_t u, double *psum,   \
                                      rx_sel_t *psel, rx_lpart_t *lpart)                           \
    {                                                                                              \
        rx_unit(s, p, a, u, psum, psel, lpart, x512);                                              \
    }
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
RX_VARIANT(avx512,
           __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,prefer-vector-width=512"))), 1)
RX_VARIANT(avx2, __attribute__((target("avx2"))), 0)
#define RX_X86 1
#endif
RX_VARIANT(base, , 0)

#ifdef RX_X86
/* Short rows, select operators, AVX-512: the same results as rx_rows_unit's select (value,
 * first-occurrence index, NaN rules) from two passes over each slice (the second from L1):
 * the best non-NaN value by vector max / min, then the first position equal to it (or, for a
 * propagated NaN, the first NaN) by a compare mask. The value is re-read at that position,
 * so which zero a vector max returns does not matter. */
__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl"))) static void
rx_rows_sel_avx512(const rx_plan_t *s, const fd_tensor_reduce_problem_t *p,
                   const fd_tensor_reduce_args_t *a, int64_t u)
{
    const cudnnReduceTensorOp_t op = p->op;
    const int is_min = op == CUDNN_REDUCE_TENSOR_MIN, amax = op == CUDNN_REDUCE_TENSOR_AMAX;
    const int prop = p->nan == CUDNN_PROPAGATE_NAN;
    const int64_t len = s->count, o0 = u * RX_ROWS_G;
    const int64_t o1 = o0 + RX_ROWS_G < s->outputs ? o0 + RX_ROWS_G : s->outputs;
    const double big = p->comp == CUDNN_DATA_DOUBLE ? DBL_MAX : FLT_MAX;
    const float worst = is_min ? INFINITY : -INFINITY;
    const int want_idx = p->want_indices && a->indices != NULL;
    const __m512 absm = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
    for (int64_t o = o0; o < o1; o++) {
        const float *x = (const float *)a->a + o * s->kst[0];
        __m512 best = _mm512_set1_ps(worst);
        __mmask16 anyn = 0;
        for (int64_t j = 0; j < len; j += 16) {
            const __mmask16 valid = len - j >= 16 ? 0xffff : (__mmask16)((1u << (len - j)) - 1);
            _mm_prefetch((const char *)(x + j + RX_PF), _MM_HINT_T0);
            __m512 v = _mm512_maskz_loadu_ps(valid, x + j);
            __mmask16 num = _mm512_mask_cmp_ps_mask(valid, v, v, _CMP_ORD_Q);
            anyn |= valid & (__mmask16)~num;
            if (amax)
                v = _mm512_and_ps(v, absm);
            best = is_min ? _mm512_mask_min_ps(best, num, best, v)
                          : _mm512_mask_max_ps(best, num, best, v);
        }
        float hb = is_min ? _mm512_reduce_min_ps(best) : _mm512_reduce_max_ps(best);
        const __m512 hbv = _mm512_set1_ps(hb);
        const int nan_mode = prop && anyn;
        int64_t idx = -1;
        /* 64 positions per mask, so that a slice of up to 64 takes no data-dependent branch */
        for (int64_t j0 = 0; j0 < len && idx < 0; j0 += 64) {
            uint64_t m64 = 0;
            for (int q = 0; q < 4 && j0 + 16 * q < len; q++) {
                const int64_t j = j0 + 16 * q;
                const __mmask16 valid = len - j >= 16 ? 0xffff : (__mmask16)((1u << (len - j)) - 1);
                __m512 v = _mm512_maskz_loadu_ps(valid, x + j);
                __mmask16 m;
                if (nan_mode) {
                    m = _mm512_mask_cmp_ps_mask(valid, v, v, _CMP_UNORD_Q);
                } else {
                    if (amax)
                        v = _mm512_and_ps(v, absm);
                    m = _mm512_mask_cmp_ps_mask(valid, v, hbv, _CMP_EQ_OQ);
                }
                m64 |= (uint64_t)m << (16 * q);
            }
            idx = m64 ? j0 + __builtin_ctzll(m64) : -1;
        }
        double r;
        if (nan_mode)
            r = NAN;
        else if (idx >= 0)
            r = amax ? fabsf(x[idx]) : x[idx];
        else
            r = is_min ? big : op == CUDNN_REDUCE_TENSOR_MAX ? -big : 0.0;
        float *cp = (float *)a->c + o * s->kcs[0];
        double out = a->alpha * r;
        if (a->beta != 0.0)
            out += a->beta * (double)*cp;
        *cp = (float)out;
        if (want_idx) {
            uint32_t iv = idx >= 0 ? (uint32_t)idx : 0;
            memcpy((unsigned char *)a->indices + (size_t)(o * s->kcm[0]) * sizeof iv, &iv,
                   sizeof iv);
        }
    }
}

/* Short rows, sums and products, AVX-512: rx_rows_unit's arithmetic in vectors, the same
 * bits. Partial l (element j into j % 16) is lane l of two double vectors (lo: 0..7, hi:
 * 8..15), each step the same operation on the same operands in the same order; a slice's tail
 * (len % 16 elements) goes into partials 0 .. tail - 1 by masked operations; rx_tree's levels
 * are lo + hi, then the halves of that (4 lanes), then 2, then 1. With the partials in memory
 * the compiled loop took about 30 cycles an output of 64 elements (0.21 ns an element on one
 * core in cache), which set the pace at two threads on a 25 GB/s machine. */
#define RX_AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl")))
RX_AVX512 RX_INLINE void rx_rows_sum_body(const rx_plan_t *s, const fd_tensor_reduce_problem_t *p,
                                          const fd_tensor_reduce_args_t *a, int64_t u,
                                          const cudnnReduceTensorOp_t op)
{
    const int mul = op == CUDNN_REDUCE_TENSOR_MUL || op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS;
    const int64_t len = s->count, o0 = u * RX_ROWS_G, full = len & ~(int64_t)15;
    const int64_t o1 = o0 + RX_ROWS_G < s->outputs ? o0 + RX_ROWS_G : s->outputs;
    const unsigned tail = (unsigned)(len - full);
    const __mmask8 mlo = (__mmask8)((1u << (tail < 8 ? tail : 8)) - 1),
                   mhi = (__mmask8)((1u << (tail > 8 ? tail - 8 : 0)) - 1);
    const __m512d absm = _mm512_castsi512_pd(_mm512_set1_epi64(0x7fffffffffffffffLL));
    const __m512d zero = _mm512_setzero_pd(), onev = _mm512_set1_pd(1.0);
    const __m512d init = mul ? onev : zero;
    const int want_idx = p->want_indices && a->indices != NULL;
    const double alpha = a->alpha, beta = a->beta;
    const float *const A = (const float *)a->a;
    float *const Cp = (float *)a->c;
    const int64_t ast = s->kst[0], cst = s->kcs[0];
    /* one step: acc (op)= f(v) on the lanes of m (all of them in the loop) */
#define RX_RS_STEP(acc, v, m)                                                                      \
    do {                                                                                           \
        __m512d v_ = (v);                                                                          \
        switch (op) {                                                                              \
        case CUDNN_REDUCE_TENSOR_NORM1:                                                            \
            v_ = _mm512_and_pd(v_, absm);                                                          \
            break;                                                                                 \
        case CUDNN_REDUCE_TENSOR_NORM2:                                                            \
            v_ = _mm512_mul_pd(v_, v_);                                                            \
            break;                                                                                 \
        case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS:                                                     \
            v_ = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(v_, zero, _CMP_NEQ_UQ), onev, v_);        \
            break;                                                                                 \
        default:                                                                                   \
            break;                                                                                 \
        }                                                                                          \
        acc = mul ? _mm512_mask_mul_pd(acc, (m), acc, v_) : _mm512_mask_add_pd(acc, (m), acc, v_); \
    } while (0)
    for (int64_t o = o0; o < o1; o++) {
        const float *restrict x = A + o * ast;
        __m512d lo = init, hi = init;
        for (int64_t j = 0; j < full; j += 16) {
            _mm_prefetch((const char *)(x + j + RX_PF), _MM_HINT_T0);
            RX_RS_STEP(lo, _mm512_cvtps_pd(_mm256_loadu_ps(x + j)), 0xff);
            RX_RS_STEP(hi, _mm512_cvtps_pd(_mm256_loadu_ps(x + j + 8)), 0xff);
        }
        if (tail) {
            RX_RS_STEP(lo, _mm512_cvtps_pd(_mm256_maskz_loadu_ps(mlo, x + full)), mlo);
            RX_RS_STEP(hi, _mm512_cvtps_pd(_mm256_maskz_loadu_ps(mhi, x + full + 8)), mhi);
        }
        const __m512d t8 = mul ? _mm512_mul_pd(lo, hi) : _mm512_add_pd(lo, hi);
        const __m256d a4 = _mm512_castpd512_pd256(t8), b4 = _mm512_extractf64x4_pd(t8, 1);
        const __m256d t4 = mul ? _mm256_mul_pd(a4, b4) : _mm256_add_pd(a4, b4);
        const __m128d a2 = _mm256_castpd256_pd128(t4), b2 = _mm256_extractf128_pd(t4, 1);
        const __m128d t2 = mul ? _mm_mul_pd(a2, b2) : _mm_add_pd(a2, b2);
        const double e0 = _mm_cvtsd_f64(t2), e1 = _mm_cvtsd_f64(_mm_unpackhi_pd(t2, t2));
        double r = mul ? e0 * e1 : e0 + e1;
        if (op == CUDNN_REDUCE_TENSOR_AVG)
            r = r / (double)s->count;
        else if (op == CUDNN_REDUCE_TENSOR_NORM2)
            r = sqrt(r);
        float *cp = Cp + o * cst;
        double out = alpha * r;
        if (beta != 0.0)
            out += beta * (double)*cp;
        *cp = (float)out;
        if (want_idx) {
            const uint32_t zi = 0;
            memcpy((unsigned char *)a->indices + (size_t)(o * s->kcm[0]) * sizeof zi, &zi,
                   sizeof zi);
        }
    }
#undef RX_RS_STEP
}

/* the operator a constant in each copy of the loop */
RX_AVX512 static void rx_rows_sum_avx512(const rx_plan_t *s, const fd_tensor_reduce_problem_t *p,
                                         const fd_tensor_reduce_args_t *a, int64_t u)
{
    switch (p->op) {
    case CUDNN_REDUCE_TENSOR_ADD:
        rx_rows_sum_body(s, p, a, u, CUDNN_REDUCE_TENSOR_ADD);
        break;
    case CUDNN_REDUCE_TENSOR_AVG:
        rx_rows_sum_body(s, p, a, u, CUDNN_REDUCE_TENSOR_AVG);
        break;
    case CUDNN_REDUCE_TENSOR_NORM1:
        rx_rows_sum_body(s, p, a, u, CUDNN_REDUCE_TENSOR_NORM1);
        break;
    case CUDNN_REDUCE_TENSOR_NORM2:
        rx_rows_sum_body(s, p, a, u, CUDNN_REDUCE_TENSOR_NORM2);
        break;
    case CUDNN_REDUCE_TENSOR_MUL:
        rx_rows_sum_body(s, p, a, u, CUDNN_REDUCE_TENSOR_MUL);
        break;
    default:
        rx_rows_sum_body(s, p, a, u, CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS);
        break;
    }
}

/* 1 when x[0 .. n) holds a number (not NaN). */
static int rx_any_number(const float *x, int64_t n)
{
    for (int64_t j = 0; j < n; j++)
        if (x[j] == x[j])
            return 1;
    return 0;
}

/* Short rows' select without indices on AVX2 (the value alone: rx_vo_sweep's rule, file
 * above): per row a vector max / min over its vectors in two chains (a NaN element is
 * skipped: max_ps(v, m) keeps m), one cross-lane reduction (no NaN left, so any order gives
 * the value), with prop one unordered compare per two vectors. The value's first occurrence,
 * which the ref reports, has its bits but for a zero's sign: a best of zero is re-read at the
 * first element equal to zero (AMAX's |x| is +0 anyway); a row still at the start value
 * (+-inf) holding no number gets the empty result. Per row ~20 vector operations, against the
 * index-tracking C's state per element (n8c64h112w112 MAX over C of NHWC, Zen 3, two threads:
 * see docs/perf). is_min, amax, prop: constants after inlining (rx_rows_vo_avx2 below). */
__attribute__((target("avx2"), always_inline)) static inline void
rx_rows_vo_k(const rx_plan_t *s, const fd_tensor_reduce_problem_t *p,
             const fd_tensor_reduce_args_t *a, int64_t u, const int is_min, const int amax,
             const int prop)
{
    const int64_t len = s->count, o0 = u * RX_ROWS_G;
    const int64_t o1 = o0 + RX_ROWS_G < s->outputs ? o0 + RX_ROWS_G : s->outputs;
    const double big = p->comp == CUDNN_DATA_DOUBLE ? DBL_MAX : FLT_MAX;
    const float worst = is_min ? INFINITY : -INFINITY;
    const __m256 wv = _mm256_set1_ps(worst);
    const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    static const int32_t mt[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    const int tail = (int)(len % 8);
    const __m256i tm = _mm256_loadu_si256((const __m256i *)(const void *)(mt + 8 - tail));
#define RX_VO_Q(v) (amax ? _mm256_and_ps((v), absm) : (v))
#define RX_VO_F(v, m) (is_min ? _mm256_min_ps((v), (m)) : _mm256_max_ps((v), (m)))
    for (int64_t o = o0; o < o1; o++) {
        const float *x = (const float *)a->a + o * s->kst[0];
        for (int64_t j = 0; j < len; j += 16)
            _mm_prefetch((const char *)(x + RX_PF + j), _MM_HINT_T0);
        __m256 m0 = wv, m1 = wv, nan = _mm256_setzero_ps();
        int64_t j = 0;
        for (; j + 16 <= len; j += 16) {
            const __m256 v0 = RX_VO_Q(_mm256_loadu_ps(x + j)),
                         v1 = RX_VO_Q(_mm256_loadu_ps(x + j + 8));
            m0 = RX_VO_F(v0, m0), m1 = RX_VO_F(v1, m1);
            if (prop)
                nan = _mm256_or_ps(nan, _mm256_cmp_ps(v0, v1, _CMP_UNORD_Q));
        }
        for (; j + 8 <= len; j += 8) {
            const __m256 v = RX_VO_Q(_mm256_loadu_ps(x + j));
            m0 = RX_VO_F(v, m0);
            if (prop)
                nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        }
        if (tail) { /* the lanes past the row keep the start value */
            const __m256 v = _mm256_blendv_ps(wv, RX_VO_Q(_mm256_maskload_ps(x + j, tm)),
                                              _mm256_castsi256_ps(tm));
            m0 = RX_VO_F(v, m0);
            if (prop)
                nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        }
        __m256 m = RX_VO_F(m1, m0);
        m = RX_VO_F(m, _mm256_permute2f128_ps(m, m, 1));
        m = RX_VO_F(m, _mm256_shuffle_ps(m, m, 0x4e));
        m = RX_VO_F(m, _mm256_shuffle_ps(m, m, 0xb1));
        float v = _mm256_cvtss_f32(m);
        double r = v;
        if (prop && _mm256_movemask_ps(nan)) {
            r = NAN;
        } else if (v == 0.0f && !amax) {
            for (j = 0; j < len && x[j] != 0.0f; j++)
                ;
            r = x[j];
        } else if (v == worst && !rx_any_number(x, len)) {
            r = is_min ? big : p->op == CUDNN_REDUCE_TENSOR_MAX ? -big : 0.0;
        }
        rx_rows_put(s, a, o, r, 0, 0);
    }
#undef RX_VO_Q
#undef RX_VO_F
}

__attribute__((target("avx2"))) static void rx_rows_vo_avx2(const rx_plan_t *s,
                                                            const fd_tensor_reduce_problem_t *p,
                                                            const fd_tensor_reduce_args_t *a,
                                                            int64_t u)
{
    const int prop = p->nan == CUDNN_PROPAGATE_NAN;
    if (p->op == CUDNN_REDUCE_TENSOR_MIN)
        prop ? rx_rows_vo_k(s, p, a, u, 1, 0, 1) : rx_rows_vo_k(s, p, a, u, 1, 0, 0);
    else if (p->op == CUDNN_REDUCE_TENSOR_AMAX)
        prop ? rx_rows_vo_k(s, p, a, u, 0, 1, 1) : rx_rows_vo_k(s, p, a, u, 0, 1, 0);
    else
        prop ? rx_rows_vo_k(s, p, a, u, 0, 0, 1) : rx_rows_vo_k(s, p, a, u, 0, 0, 0);
}

/* Short rows' ADD / AVG / NORM1 / NORM2 on AVX2: rx_rows_unit's sums (element j into double
 * partial j % 16, the tail in C, rx_tree), the 16 partials in four registers across a row's
 * full groups of 16: the same bits. The auto-vectorised C ran 2.0 ms on one thread for
 * n8c64h112w112 ADD over C of NHWC (1.05 at two: 0.73 of the bandwidth; docs/perf). op: a
 * constant after inlining (rx_rows_sum_avx2 below). */
__attribute__((target("avx2"), always_inline)) static inline void
rx_rows_sum_k(const rx_plan_t *s, const fd_tensor_reduce_problem_t *p,
              const fd_tensor_reduce_args_t *a, int64_t u, const cudnnReduceTensorOp_t op)
{
    const int64_t len = s->count, o0 = u * RX_ROWS_G, full = len & ~(int64_t)15;
    const int64_t o1 = o0 + RX_ROWS_G < s->outputs ? o0 + RX_ROWS_G : s->outputs;
    const __m256d absm = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
    const int want_idx = p->want_indices && a->indices != NULL;
    for (int64_t o = o0; o < o1; o++) {
        const float *restrict x = (const float *)a->a + o * s->kst[0];
        __m256d q[4] = {_mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd(),
                        _mm256_setzero_pd()};
        for (int64_t j = 0; j < full; j += 16) {
            _mm_prefetch((const char *)(x + j + RX_PF), _MM_HINT_T0);
            for (int k = 0; k < 4; k++) {
                __m256d v = _mm256_cvtps_pd(_mm_loadu_ps(x + j + 4 * k));
                if (op == CUDNN_REDUCE_TENSOR_NORM1)
                    v = _mm256_and_pd(v, absm);
                else if (op == CUDNN_REDUCE_TENSOR_NORM2)
                    v = _mm256_mul_pd(v, v);
                q[k] = _mm256_add_pd(q[k], v);
            }
        }
        double acc[RX_ACC];
        for (int k = 0; k < 4; k++)
            _mm256_storeu_pd(acc + 4 * k, q[k]);
        for (int64_t j = full, l = 0; j < len; j++, l++) {
            const double v = x[j];
            acc[l] += op == CUDNN_REDUCE_TENSOR_NORM1   ? fabs(v)
                      : op == CUDNN_REDUCE_TENSOR_NORM2 ? v * v
                                                        : v;
        }
        double r = rx_tree(acc, 0);
        if (op == CUDNN_REDUCE_TENSOR_AVG)
            r = r / (double)s->count;
        else if (op == CUDNN_REDUCE_TENSOR_NORM2)
            r = sqrt(r);
        rx_rows_put(s, a, o, r, want_idx, 0);
    }
}

__attribute__((target("avx2"))) static void rx_rows_sum_avx2(const rx_plan_t *s,
                                                             const fd_tensor_reduce_problem_t *p,
                                                             const fd_tensor_reduce_args_t *a,
                                                             int64_t u)
{
    switch (p->op) {
    case CUDNN_REDUCE_TENSOR_NORM1:
        rx_rows_sum_k(s, p, a, u, CUDNN_REDUCE_TENSOR_NORM1);
        break;
    case CUDNN_REDUCE_TENSOR_NORM2:
        rx_rows_sum_k(s, p, a, u, CUDNN_REDUCE_TENSOR_NORM2);
        break;
    case CUDNN_REDUCE_TENSOR_AVG:
        rx_rows_sum_k(s, p, a, u, CUDNN_REDUCE_TENSOR_AVG);
        break;
    default: /* ADD */
        rx_rows_sum_k(s, p, a, u, CUDNN_REDUCE_TENSOR_ADD);
        break;
    }
}
#endif

/* FREEDNN_CPU_ISA=avx512|avx2|generic caps the path (the three give the same bits). */
static rx_unit_fn rx_pick(void)
{
#ifdef RX_X86
    const char *cap = getenv("FREEDNN_CPU_ISA");
    int limit = !cap ? 2 : strcmp(cap, "generic") == 0 ? 0 : strcmp(cap, "avx2") == 0 ? 1 : 2;
    __builtin_cpu_init();
    if (limit >= 2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        return rx_unit_avx512;
    if (limit >= 1 && __builtin_cpu_supports("avx2"))
        return rx_unit_avx2;
#endif
    return rx_unit_base;
}

/* Lanes with few units (a per-channel reduction of NHWC: 64 lanes, one output row) cut each
 * unit's slices into a fixed number of pieces of the canonical walk (not the thread count):
 * every piece reads whole rows of its own range of A, its partial states sit on the caller's
 * stack and merge in piece order (rx_lpieces_merge). Sums and products are then reordered in
 * double as in the runs kind; the select operators keep the ref's value and first index
 * exactly. The lanes split across the team that this replaces (each lane's order, the ref's
 * bits) read part of every row on each thread: n8c64h112w112 ADD, 2 threads, 0.65-0.93 ms
 * against 0.50-0.56 for the full reduction of the same tensor. Each piece prefetches RX_LPF
 * bytes ahead along the last reduced dim. */
static void rx_lpieces(rx_plan_t *s)
{
    s->lpieces = 1;
    const int64_t units = s->outputs * s->chunks;
    if (!s->lanes || units >= RX_LUNITS || s->n < FD_CPU_PAR_MIN)
        return;
    int64_t pc = s->count / RX_LPIECE_MIN, cap = RX_LSLOTS / (units * s->w);
    pc = pc < RX_LPIECES ? pc : RX_LPIECES;
    pc = pc < cap ? pc : cap;
    if (pc < 2)
        return;
    s->lpieces = pc;
    const int64_t st = s->rst[s->nr - 1] * (int64_t)sizeof(float);
    if (st > 0 && st <= RX_LPF / 4)
        s->lpf = (RX_LPF / st) * s->rst[s->nr - 1];
}

/* The pieces' partial states of every lanes unit merged in piece order, then written. */
static void rx_lpieces_merge(const rx_plan_t *s, const fd_tensor_reduce_problem_t *p,
                             const fd_tensor_reduce_args_t *a, const rx_lpart_t *lpart)
{
    const cudnnReduceTensorOp_t op = p->op;
    const int mul = op == CUDNN_REDUCE_TENSOR_MUL || op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS;
    const int is_min = op == CUDNN_REDUCE_TENSOR_MIN;
    const int64_t P = s->lpieces;
    double acc[RX_W];
    float bv[RX_W];
    uint32_t bi[RX_W];
    int32_t st[RX_W];
    for (int64_t g = 0; g < s->outputs * s->chunks; g++) {
        const int64_t l0 = (g % s->chunks) * s->w;
        const int w = (int)(l0 + s->w < s->ll ? s->w : s->ll - l0);
        for (int l = 0; l < w; l++) {
            const rx_lpart_t *q = lpart + g * P * s->w + l;
            double v = q->acc;
            rx_lpart_t b = *q;
            for (int64_t pc = 1; pc < P; pc++) {
                const rx_lpart_t *n = q + pc * s->w;
                v = mul ? v * n->acc : v + n->acc;
                /* the state a sequential walk would reach: a propagated NaN stays, a later
                 * piece's wins on a strict improvement (first occurrence) or a NaN */
                if (b.st != 2 &&
                    (n->st == 2 ||
                     (n->st == 1 && (b.st == 0 || (is_min ? n->bv < b.bv : n->bv > b.bv)))))
                    b = *n;
            }
            acc[l] = v, bv[l] = b.bv, bi[l] = b.bi, st[l] = b.st;
        }
        rx_lanes_store(s, p, a, g / s->chunks, l0, w, acc, bv, bi, st);
    }
}

static void rx_run(const rx_plan_t *s, const fd_tensor_reduce_problem_t *p,
                   const fd_tensor_reduce_args_t *a)
{
    double psum[RX_MAXP];
    rx_sel_t psel[RX_MAXP];
    rx_lpart_t lpart[RX_LSLOTS];
    const rx_unit_fn fn = rx_pick();
    const int64_t units =
        s->rows ? s->chunks : s->outputs * (s->lanes ? s->chunks * s->lpieces : s->pieces);
#ifdef RX_X86
    const int select = p->op == CUDNN_REDUCE_TENSOR_MIN || p->op == CUDNN_REDUCE_TENSOR_MAX ||
                       p->op == CUDNN_REDUCE_TENSOR_AMAX;
    if (s->rows && fn == rx_unit_avx512 && select) {
#pragma omp parallel for schedule(static) if (s->n >= FD_CPU_PAR_MIN && units > 1)
        for (int64_t u = 0; u < units; u++)
            rx_rows_sel_avx512(s, p, a, u);
        return;
    }
    if (s->rows && fn == rx_unit_avx2 && select && !(p->want_indices && a->indices != NULL)) {
#pragma omp parallel for schedule(static) if (s->n >= FD_CPU_PAR_MIN && units > 1)
        for (int64_t u = 0; u < units; u++)
            rx_rows_vo_avx2(s, p, a, u);
        return;
    }
    if (s->rows && fn == rx_unit_avx2 &&
        (p->op == CUDNN_REDUCE_TENSOR_ADD || p->op == CUDNN_REDUCE_TENSOR_AVG ||
         p->op == CUDNN_REDUCE_TENSOR_NORM1 || p->op == CUDNN_REDUCE_TENSOR_NORM2)) {
#pragma omp parallel for schedule(static) if (s->n >= FD_CPU_PAR_MIN && units > 1)
        for (int64_t u = 0; u < units; u++)
            rx_rows_sum_avx2(s, p, a, u);
        return;
    }
    if (s->rows && fn == rx_unit_avx512 && !select) {
#pragma omp parallel for schedule(static) if (s->n >= FD_CPU_PAR_MIN && units > 1)
        for (int64_t u = 0; u < units; u++)
            rx_rows_sum_avx512(s, p, a, u);
        return;
    }
#endif
#pragma omp parallel for schedule(static) if (s->n >= FD_CPU_PAR_MIN && units > 1)
    for (int64_t u = 0; u < units; u++)
        fn(s, p, a, u, psum, psel, lpart);
    if (s->lanes && s->lpieces > 1)
        rx_lpieces_merge(s, p, a, lpart);
    if (s->lanes || s->rows || s->pieces == 1)
        return;
    const int mul = p->op == CUDNN_REDUCE_TENSOR_MUL || p->op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS;
    for (int64_t o = 0; o < s->outputs; o++) {
        double sum = psum[o * s->pieces];
        rx_sel_t best = psel[o * s->pieces];
        for (int64_t pc = 1; pc < s->pieces; pc++) {
            const int64_t u = o * s->pieces + pc;
            sum = mul ? sum * psum[u] : sum + psum[u];
            if (rx_better(&psel[u], &best, p->op == CUDNN_REDUCE_TENSOR_MIN))
                best = psel[u];
        }
        rx_finish(s, p, a, o, sum, &best);
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
    rx_plan_t x;
    if (rx_plan(&x, p)) {
        rx_lpieces(&x);
        rx_run(&x, p, a);
        return CUDNN_STATUS_SUCCESS;
    }
    rd_plan_t s;
    plan(&s, p);
    const int64_t units = s.others * s.chunks;
#pragma omp parallel for schedule(static) if (s.n >= FD_CPU_PAR_MIN && units > 1)
    for (int64_t u = 0; u < units; u++)
        run_unit(&s, p, a, u);
    return CUDNN_STATUS_SUCCESS;
}
