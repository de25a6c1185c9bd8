/* SPDX-License-Identifier: MIT */
/*
 * softmax_cpu.c - cpu softmax forward and backward (FD_OP_SOFTMAX_FWD / _BWD cpu rows), every
 * algorithm (FAST, ACCURATE, LOG) and mode (INSTANCE, CHANNEL).
 *
 * Decisions:
 * - FLOAT (the common case) has its own path, no longer bit-identical to the ref: exp is
 *   vmath.h's vectorised fd_vexpf_diff64 (e^(x - max) 2^64, within 1 ulp of exp of the exact
 *   difference; libm's scalar exp held the rows at 5 ns per element), sums are in double but in
 *   lane order (16 partial sums in memory order for a dense row, merged in a fixed tree), and
 *   with alpha = 1, beta = 0 the output is E * (float)(2^-64 / sum): the 2^64 scale costs no
 *   product per element (the exp's subnormal results are rounded once, in that product).
 *   Outputs of FD_CPU_NT_MIN bytes or more that share no byte with x (ACCURATE / FAST, alpha =
 *   1, beta = 0) are written from the cached exps with streaming stores (smx_nt_want): no read
 *   for ownership of y, 8 bytes of traffic per element instead of 12; same bits. Measured worst
 *   against the ref (tests/impl/test_cpu_smx_fast.c): forward within 3.9 * 2^-24 relative, LOG
 *   forward within 1.8 * 2^-24 (|y| + 1); backward ACCURATE is exact for integer fills and
 *   matched the ref's bits on every real fill tried, backward LOG within 2 * 2^-24 (|dx| +
 *   exp(y) |sum dy|).
 *   Constant rows stay exact (exp(0) = 1). Two shapes take it, with identical strides in all
 *   tensors: dense rows (INSTANCE, CHANNEL on NHWC or 1x1 spatial), one row at a time, its
 *   exps cached up to SMX_CACHE elements (longer rows: maximum and sum per chunk, combined,
 *   x read twice); and CHANNEL with contiguous spatial positions (NCHW), up to SMX_W
 *   positions as vector lanes, each lane's row in canonical order, the next unit's data
 *   prefetched. Other float problems (padded INSTANCE rows, mixed strides) take the path below.
 *   A dense row's maximum is an integer max reduction over order-preserving bit patterns (the
 *   float select loop compiled scalar: a third of the forward's time), its 16 partial sums are
 *   kept in registers and folded through fresh arrays (same tree, same bits): 1.6-1.8x on the
 *   forward rows (INSTANCE, CHANNEL on NHWC, n256c1000), exp once per element as before.
 *   The f32 kernels are compiled for AVX-512 and AVX2+FMA and picked at run time
 *   (FREEDNN_CPU_ISA caps it); the exp uses fmaf explicitly and nothing else contracts, so both
 *   give the same bits. A machine with neither (or FREEDNN_CPU_ISA=generic) runs FLOAT on the
 *   bit-identical path below: libm's fmaf per step would cost more than libm's exp.
 * - AVX-512 forward (2026-11-30, seventh session): the f32 path is restated with intrinsics
 *   (the smx_z_ functions), the same operations in the same order, so the bits still equal the
 *   AVX2 build (the tests compare them). What changed is where the data lives: a LANES unit
 *   (NCHW CHANNEL) runs in sub-blocks of up to 64 positions whose maxima and double sums stay
 *   in registers across the channel walk (the C kept them in stack arrays: a load and a store
 *   per step) and whose exps (<= 16 KiB) stay in L1 between the sum pass and the scale pass,
 *   the next unit prefetched during the exp pass; dense rows of up to 128 elements (NHWC
 *   CHANNEL) are read once into registers (maximum, exps, sums, outputs without a buffer), two
 *   rows at a time (one row's dependent chain is longer than the out-of-order window); longer
 *   rows keep their 16 partial sums in two registers. A NaN is skipped by these maxima
 *   (max(NaN, m) = m) but its exp is NaN, so its sum and then every output of its row are NaN,
 *   as with the NaN maximum of the C path (long rows, combined per chunk, keep the NaN flag).
 *   Streamed outputs go out as whole aligned 64-byte lines: a LANES unit counts its lanes from
 *   the line holding its first output (partial first and last vectors stored normally);
 *   rows of 1024 or more elements that are not aligned go through an L1 block and
 *   fd_cpu_stream_z; shorter rows stream only when every row starts a line (else ordinary
 *   stores: see fd_softmax_fwd_cpu_run). Measured
 *   against this C compiled for AVX-512, same binary, one thread, loaded machine (min of 15,
 *   two rounds): n8c64h112w112 ACCURATE CHANNEL NCHW 3.8-4.0 ms vs 4.9-5.0, NHWC 5.7-5.8 vs
 *   6.4-6.6; in L2 (n2c64h16w32) NHWC 0.041 vs 0.059 ms, NCHW 0.034 vs 0.036; LOG INSTANCE and
 *   n256c1000 unchanged within the noise. Streaming LOG outputs too was slower (x is read
 *   again from L3 after the sums), so LOG keeps ordinary stores (rows longer than SMX_CACHE
 *   stream since 2026-12-01: fd_softmax_fwd_cpu_run). The backward stays the C on
 *   every ISA: intrinsic versions of its passes (sums in registers, streamed dx) measured
 *   8-20% slower in cache and no faster from DRAM.
 * - Register rows in batches of sixteen (2026-12-01, Zen 5): ACCURATE / FAST rows of up to 128
 *   elements with alpha = 1, beta = 0 (NHWC CHANNEL) run sixteen at a time (smx_z_rows16):
 *   maxima and double partial sums reduced for the batch by transposed shuffles, one division
 *   for sixteen rows, the rows' exps in L1 between passes, and the batch after next prefetched
 *   (the hardware prefetcher alone left the exp pass waiting on DRAM). Same operations and
 *   sums as the pair kernel, so the same bits. NHWC n8c64h112w112 forward, one thread, thread
 *   CPU time (the shared machine's wall times were not usable): 7.0 ms -> 2.05 ms. The dense
 *   row's exp pass (smx_z_expsum) prefetches the next row or chunk into L2 the same way: LOG
 *   INSTANCE n8c64h112w112 forward 2.86 -> 2.3 ms (its 16384-element chunks), n256c1000
 *   0.074 -> 0.069 ms. The backward's LANES units are 1024 positions wide (SMX_WB; the
 *   forward's stay 256, its exp buffer's limit): each channel's run is 4 KiB instead of 1 KiB,
 *   fewer DRAM pages opened per byte for the 64 strided runs of each tensor; NCHW
 *   n8c64h112w112 ACCURATE backward 3.8 -> 2.9-3.2 ms (512: 3.5, 2048: 3.0; units of 1024 x 64
 *   x 2 floats = 512 KiB stay in L2 between the passes). Farther lane prefetches and streamed
 *   dx were tried the same day: no faster, LOG backward slower.
 * - Exps summed in pairs, LOG written in float (2026-12-01, eighth session, Zen 5): the float ->
 *   double conversions of the sums were a third of the exp pass (L1 loop: 0.177 ns per element
 *   with them, 0.108 without). Two exps are now added in float, then converted once: a dense
 *   row's element i and i + 16 (32-element groups from the row's start, zero-padded: smx_acc),
 *   a LANES lane's channels c and c + 1. Each pair sum rounds once (<= 2^-24 of the pair, all
 *   terms positive), so the sum is within 2^-24 (1 + tiny) relative of the exact one. LOG with
 *   alpha = 1, beta = 0 writes y = (x - max) - (float)log(sum) in float (the double form cost two
 *   conversions each way per vector): |error| <= 2^-24 |y| (x - max) + 2^-24 |y| (the result) +
 *   the log's rounding, within the row's 4u (|y| + 1). Both stay within the tested bounds
 *   (tests/impl/test_cpu_smx_fast.c, docs/testing.md): worst seen forward ACCURATE 3.98u (was
 *   3.7u), LOG 1.9u (|y| + 1) (was 1.8u). n8c64h112w112, one thread, thread CPU time:
 *   NCHW CHANNEL 1.87 -> 1.77 ms, LOG INSTANCE 2.08 -> 1.80, NHWC CHANNEL 2.06 -> 1.86, NHWC LOG
 *   2.14 -> 1.83; n256c1000 0.070 -> 0.065.
 * - The row's max folded into the exp (2026-12-01, eighth session): rows (and LANES lanes)
 *   whose max m lies in [-64, 128] and that are not constant take vmath.h's fd_vexpf_piv64:
 *   x itself is reduced (Cody-Waite, exact), and e^(x - m) 2^64 comes out times a row factor
 *   e^-off that cancels in e / sum (LOG adds off to log(sum); long rows' chunk sums are
 *   multiplied by e^off before they are combined). No subtraction x - m, so no TwoSum
 *   correction: 12 vector operations per exp instead of 20, and no accuracy lost (x is exact,
 *   where x - m was not). Constant rows keep fd_vexpf_diff64 (exp(0) = 1: exact outputs), as
 *   do rows whose max is outside the range (where |k| could pass 255) or NaN (smx_ep: the
 *   choice, per row or per lane; an AVX-512 vector of lanes that mixes both computes both and
 *   blends, so the bits never depend on how lanes are grouped). The forward's maximum passes
 *   find the minimum too for that choice (register rows: one compare with the max per
 *   vector). Worst seen: forward ACCURATE 3.9u, LOG 2.5u (|y| + 1), both within the bounds;
 *   rows shifted by +-100 / 150 / -250 and constant lanes among varying ones have test cases.
 *   n8c64h112w112, one thread, thread CPU time, loaded machine: LOG INSTANCE 2.02 -> 1.66 ms
 *   (NCHW) / 2.00 -> 1.64 (NHWC), n256c1000 0.062 -> 0.052, NCHW CHANNEL 1.79 -> 1.78 (its
 *   lanes are bound by their 64 strided channel runs, not by the exp).
 * - Backward (2026-12-01, eighth session): ACCURATE / FAST on LANES (NCHW CHANNEL) streams dx
 *   (alpha = 1, beta = 0, dx apart from y and dy; fd_softmax_bwd_cpu_run); LOG with alpha = 1,
 *   beta = 0 computes dx = fmaf(-exp(y), (float)sum, dy) in float (smx_bwd_lanes: within the
 *   LOG bound; its sum of dy stays in double, which cancels). n8c64h112w112, one thread,
 *   thread CPU time: NCHW ACCURATE CHANNEL 3.2 -> 2.4-2.6 ms, LOG INSTANCE 2.75-2.85 ->
 *   2.3-2.4 ms (NCHW and NHWC).
 * - AVX2 forward (2026-12-04, Zen 3 without AVX-512): the smx_y_ kernels restate the AVX-512
 *   kernels' plan with 8-lane intrinsics, the same operations in the same order, so the bits
 *   are the C's (and the AVX-512 kernels'): LANES units in sub-blocks of 32 lanes with maxima
 *   and double sums in registers and the exps in L1, full-vector loops without mask tests,
 *   the exp pass without per-vector exp tests where every lane takes fd_vexpf_piv64; dense
 *   rows as vector passes (maximum, exp-sum, scale); rows of up to 128 elements (NHWC
 *   CHANNEL) eight at a time, their maxima and minima reduced by one transposed reduction,
 *   one division per four rows. The C above compiled for AVX2 left the lane exps scalar.
 *   FREEDNN_CPU_SMX_AVX2_C=1 runs that C at the AVX2 level instead (the tests compare the
 *   bits). In cache, one thread, loaded machine (ns per element): NCHW CHANNEL 2.2 -> 0.6,
 *   NHWC CHANNEL 1.1-1.4 -> 0.62; LOG INSTANCE and n256c1000 unchanged (0.52, 0.55: the C
 *   vectorised those). LANES LOG forward stays the C. The backward with alpha 1, beta 0 has
 *   AVX2 forms too (smx_y_bwd_row, smx_y_bwd_lanes: the C's double sums and products, LOG's
 *   fd_vexpf as smx_y_expf, same bits; other alpha / beta: the C): on Zen 3 it is bound by
 *   the float <-> double conversions (about one per cycle, 14 per 8 elements), 0.65-0.9 ns
 *   per element in cache, so it gained little (LOG INSTANCE 0.80 -> 0.65).
 *   n8c64h112w112, two threads, dnnbench (loaded machine, two runs, min of 10, ms):
 *   forward NCHW CHANNEL 8.2-8.3 -> 2.8-3.0, NHWC CHANNEL 3.5 -> 2.5, LOG INSTANCE NCHW
 *   3.1 -> 2.3-2.4, NHWC 2.9-3.7 -> 2.5-2.8; backward LOG INSTANCE NCHW 3.5-3.8 -> 2.5-2.9,
 *   NHWC 3.4-3.5 -> 2.9-3.3; backward ACCURATE CHANNEL NCHW 4.0 -> 3.7-4.1 (the C at the AVX2
 *   level in the same minute: 4.1), NHWC 2.9 -> 2.9-3.0; n256c1000 unchanged within the noise.
 * - DOUBLE, HALF, BFLOAT16: bit-identical to src/ref/softmax_ref.c: each row keeps the ref's
 *   passes and order (max with the NaN flag, then sum(exp(x - max)) in canonical element order
 *   in double, then outputs), exp and log are libm's scalar calls (a vectorised exp would not
 *   round like libm). What is vectorised is everything around them: up to SM_LANES
 *   independent rows advance together ("lanes" along the outer dim with the smallest output
 *   stride: W for CHANNEL on NCHW, N otherwise), so loads, max, sums and the blend run as
 *   short vector loops, and the strided index arithmetic of the ref (divisions per element)
 *   becomes an incremental walk.
 * - Forward ACCURATE / FAST keep exp(x - max) of the sum pass in a stack buffer (same value,
 *   computed once instead of twice) when a group of rows fits in SM_CACHE doubles; longer rows
 *   compute it again, as the ref does.
 * - Threads: units are groups of lanes (rows, or lane groups on the f32 path); a row is
 *   computed by one thread in a fixed order, so results do not depend on OMP_NUM_THREADS.
 *   Nothing allocates; no workspace. In-place (y == x, dx == dy or dx == y, identical strides)
 *   works: a group writes element r of its rows after its last read of element r.
 * FLOAT, DOUBLE, HALF, BFLOAT16 (all the API takes), 4-d and 5-d, any non-negative strides.
 */
#if defined(__GNUC__) && !defined(__clang__)
/* no-trapping-math: lets GCC turn float selects into blends on AVX2 (values unchanged) */
#pragma GCC optimize("O3,fp-contract=off,no-trapping-math")
#endif
#include "../core/softmax.h"
#include "memop.h"
#include "vmath.h"

#include <stdlib.h>

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

/* ---- the f32 path: vectorised exp, lane-parallel sums ------------------------------------- */

/* Float tensors whose elements sit at the same offsets in every tensor, in one of two shapes:
 * ROWS, each row one dense block of memory (INSTANCE on NCHW or NHWC, CHANNEL on NHWC or with
 * 1x1 spatial dims), walked in memory order; LANES, CHANNEL with the innermost spatial dims
 * contiguous (NCHW), where up to SMX_W positions advance together as vector lanes and each
 * lane's row is walked in canonical order. */
#define SMX_ROWS 1
#define SMX_LANES 2
#define SMX_W 256       /* lanes per LANES unit */
#define SMX_WB 1024     /* lanes per backward LANES unit */
#define SMX_CACHE 16384 /* floats of cached exp per unit (64 KiB of stack) */
#define SMX_ACC 16      /* partial sums of a ROWS row (fixed: the bits do not depend on the ISA) */
#define SMX_BLK 512     /* floats per block of a ROWS pass */

typedef struct {
    int kind, no, cache;
    int64_t len;                               /* elements per row */
    int64_t rst;                               /* LANES: stride between a row's elements */
    int64_t lanes, w;                          /* LANES: contiguous positions, lanes per unit */
    int64_t odim[FD_DIM_MAX], ost[FD_DIM_MAX]; /* the outer dims (rows, or lane groups) */
    int64_t outer, per, units, n;
    int nt; /* forward: y streamed (non-temporal stores; smx_nt_want) */
} smx_plan_t;

/* 0 when the problem is not one of the two shapes (the double path serves it). */
static int smx_plan(smx_plan_t *s, const struct cudnnTensorStruct *const *t, int nt,
                    cudnnSoftmaxMode_t mode)
{
    const struct cudnnTensorStruct *a = t[0];
    const int nb = a->nb_dims;
    memset(s, 0, sizeof *s);
    for (int i = 0; i < nt; i++) {
        if (t[i]->dtype != CUDNN_DATA_FLOAT)
            return 0;
        for (int d = 0; d < nb; d++)
            if (t[i]->stride[d] != a->stride[d] && a->dim[d] > 1)
                return 0;
    }
    int rd[FD_DIM_MAX], od[FD_DIM_MAX], nr = 0, no = 0;
    s->len = 1, s->n = 1;
    for (int d = 0; d < nb; d++) {
        s->n *= a->dim[d];
        if (a->dim[d] == 1)
            continue;
        if (mode == CUDNN_SOFTMAX_MODE_CHANNEL ? d == 1 : d >= 1)
            rd[nr++] = d, s->len *= a->dim[d];
        else
            od[no++] = d;
    }
    /* dense rows: the row dims' strides, smallest first, pack them with no gap */
    int used[FD_DIM_MAX] = {0}, dense = 1;
    int64_t expect = 1;
    for (int k = 0; k < nr && dense; k++) {
        int best = -1;
        for (int j = 0; j < nr; j++)
            if (!used[j] && (best < 0 || a->stride[rd[j]] < a->stride[rd[best]]))
                best = j;
        used[best] = 1;
        dense = a->stride[rd[best]] == expect;
        expect *= a->dim[rd[best]];
    }
    int keep = no; /* outer dims that stay outer */
    if (dense) {
        s->kind = SMX_ROWS;
    } else if (mode == CUDNN_SOFTMAX_MODE_CHANNEL && nr == 1) {
        s->lanes = 1;
        while (keep > 0 && od[keep - 1] >= 2 && a->stride[od[keep - 1]] == s->lanes)
            s->lanes *= a->dim[od[--keep]];
        if (s->lanes < 4)
            return 0;
        s->kind = SMX_LANES;
        s->rst = a->stride[rd[0]];
    } else {
        return 0;
    }
    s->no = keep;
    s->outer = 1;
    for (int k = 0; k < keep; k++) {
        s->odim[k] = a->dim[od[k]];
        s->ost[k] = a->stride[od[k]];
        s->outer *= s->odim[k];
    }
    if (s->kind == SMX_ROWS) {
        s->cache = s->len <= SMX_CACHE;
        s->per = s->len >= FD_CPU_UNIT ? 1 : FD_CPU_UNIT / s->len;
        s->units = (s->outer + s->per - 1) / s->per;
    } else {
        const int64_t wmax = nt == 3 ? SMX_WB : SMX_W;
        s->w = s->lanes < wmax ? s->lanes : wmax;
        s->cache = s->len * 16 <= SMX_CACHE;
        if (s->cache && s->len * s->w > SMX_CACHE)
            s->w = SMX_CACHE / s->len / 16 * 16;
        s->per = (s->lanes + s->w - 1) / s->w;
        s->units = s->outer * s->per;
    }
    return 1;
}

static inline int64_t smx_outer_off(const smx_plan_t *s, int64_t o)
{
    int64_t off = 0;
    for (int k = s->no - 1; k >= 0; k--) {
        off += (o % s->odim[k]) * s->ost[k];
        o /= s->odim[k];
    }
    return off;
}

/* Offsets of the cnt consecutive outer indices from o (an odometer: smx_outer_off's divisions
 * once, then additions; per row they cost as much as a short row's compute). */
static inline void smx_outer_offs(const smx_plan_t *s, int64_t o, int cnt, int64_t *off)
{
    int64_t idx[FD_DIM_MAX], cur = 0, t = o;
    for (int k = s->no - 1; k >= 0; k--) {
        idx[k] = t % s->odim[k];
        t /= s->odim[k];
        cur += idx[k] * s->ost[k];
    }
    for (int r = 0; r < cnt; r++) {
        off[r] = cur;
        for (int k = s->no - 1; k >= 0; k--) {
            cur += s->ost[k];
            if (++idx[k] < s->odim[k])
                break;
            cur -= s->odim[k] * s->ost[k];
            idx[k] = 0;
        }
    }
}

/* 1 when row o starts at offset o * len (the outer dims packed behind the rows). */
static int smx_packed(const smx_plan_t *s)
{
    int64_t expect = s->len;
    for (int k = s->no - 1; k >= 0; k--) {
        if (s->ost[k] != expect)
            return 0;
        expect *= s->odim[k];
    }
    return 1;
}

#define SMX_INLINE static inline __attribute__((always_inline))

/* Sum of 16 partial sums in a fixed tree. */
SMX_INLINE double smx_fold(double *acc)
{
    /* the tree acc[j] += acc[j + h], h = 8, 4, 2, 1, through fresh arrays: written in place
     * it compiled to a serial chain of scalar adds, a cost per row that short rows felt */
    _Static_assert(SMX_ACC == 16, "the fold below is written for 16 partial sums");
    double a8[8], a4[4];
    for (int j = 0; j < 8; j++)
        a8[j] = acc[j] + acc[j + 8];
    for (int j = 0; j < 4; j++)
        a4[j] = a8[j] + a8[j + 4];
    return (a4[0] + a4[2]) + (a4[1] + a4[3]);
}

/* acc[l] += (double)(v[j + l] + v[j + 16 + l]) for every 32-element group j of v (v zero-padded
 * to a whole group): element i of a row lands in partial sum i % 16, added first in float to
 * its partner 16 elements on (2026-12-01: one float -> double conversion per two exps; the
 * conversions were a third of the exp pass). v starts a group (callers pass blocks of a
 * multiple of 32 elements, a row's last block excepted). */
SMX_INLINE void smx_acc(double *restrict acc, const float *restrict v, int n)
{
    double t[SMX_ACC]; /* a local copy stays in registers (through acc: a store per step) */
    memcpy(t, acc, sizeof t);
    int j = 0;
    for (; j + 2 * SMX_ACC <= n; j += 2 * SMX_ACC)
        for (int l = 0; l < SMX_ACC; l++)
            t[l] += (double)(v[j + l] + v[j + SMX_ACC + l]);
    for (int l = 0; l < SMX_ACC && j + l < n; l++)
        t[l] += (double)(v[j + l] + (j + SMX_ACC + l < n ? v[j + SMX_ACC + l] : 0.0f));
    memcpy(acc, t, sizeof t);
}

/* Maximum of a row with the ref's NaN rule (any NaN makes it NaN), as an integer reduction
 * (a float select loop stayed scalar): a float's bits b map to the signed integer
 * b ^ ((b >> 31) & 0x7fffffff), which orders like the floats (-0 just below +0; NaN is
 * flagged apart), and integer max and or reductions vectorise. */
SMX_INLINE float smx_max(const float *restrict x, int64_t n, float *mn)
{
    int32_t mk = INT32_MIN, nk = INT32_MAX, nan = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t b;
        memcpy(&b, x + i, sizeof b);
        int32_t k = b ^ ((b >> 31) & 0x7fffffff);
        mk = k > mk ? k : mk;
        nk = k < nk ? k : nk; /* the minimum too (smx_ep: constant rows) */
        nan |= (b & 0x7fffffff) > 0x7f800000;
    }
    int32_t b = nk ^ ((nk >> 31) & 0x7fffffff);
    memcpy(mn, &b, sizeof *mn);
    if (nan)
        return NAN;
    b = mk ^ ((mk >> 31) & 0x7fffffff);
    float r;
    memcpy(&r, &b, sizeof r);
    return r;
}

/* The exp of a row (or lane) with maximum m and minimum mn: fd_vexpf_piv64 where
 * fd_vexpf_piv_ok (the row's max folded into the reduction, no subtraction and no TwoSum
 * correction: vmath.h), else fd_vexpf_diff64. Both give e^(x - m) 2^64 up to the row factor
 * e^-off (off = 0 for the second), which cancels in e / sum; sums of the exps are "raw" sums
 * (smx_expsum), sum(e^(x - m)) = raw e^off. */
typedef struct {
    float m, lo, shr;
    int piv;
    double off;
} smx_ep_t;

SMX_INLINE smx_ep_t smx_ep(float m, float mn)
{
    smx_ep_t e = {m, 0.0f, 0.0f, fd_vexpf_piv_ok(m, mn), 0.0};
    if (e.piv)
        fd_vexpf_piv_params(m, &e.lo, &e.shr, &e.off);
    return e;
}

SMX_INLINE float smx_e(const smx_ep_t *e, float x)
{
    return e->piv ? fd_vexpf_piv64(x, e->lo, e->shr) : fd_vexpf_diff64(x, e->m);
}

/* sum(exp(x - m)) over n elements, in double; e (when not NULL) gets the exps times 2^64
 * (fd_vexpf_diff64: the caller's 1 / sum carries the 2^-64). */
SMX_INLINE double smx_expsum(const float *restrict x, int64_t n, const smx_ep_t *ep,
                             float *restrict e)
{
    double acc[SMX_ACC] = {0};
    float b[SMX_BLK];
    for (int64_t i = 0; i < n; i += SMX_BLK) {
        int len = (int)(n - i < SMX_BLK ? n - i : SMX_BLK);
        float *o = e ? e + i : b;
        if (ep->piv)
            for (int j = 0; j < len; j++)
                o[j] = fd_vexpf_piv64(x[i + j], ep->lo, ep->shr);
        else
            for (int j = 0; j < len; j++)
                o[j] = fd_vexpf_diff64(x[i + j], ep->m);
        smx_acc(acc, o, len);
    }
    return smx_fold(acc) * 0x1p-64; /* exact: a sum of normal floats >= 2^-86 */
}

/* y = alpha * v + beta * y in double, rounded once, as the ref's blend. */
#define SMX_BLEND(y, v, alpha, beta)                                                               \
    do {                                                                                           \
        double r_ = (alpha) * (v);                                                                 \
        if (beta_nz)                                                                               \
            r_ += (beta) * (double)(y);                                                            \
        (y) = (float)r_;                                                                           \
    } while (0)

/* y = e / sum for e = exp 2^64 (fd_vexpf_diff64) and inv = 2^-64 / sum: alpha = 1, beta = 0 as
 * one float product (the exp's own error dominates); otherwise in double with the ref's blend
 * (a constant row stays exact). */
SMX_INLINE void smx_scale_out(float *restrict e, float *y, int64_t n, double inv, double alpha,
                              double beta, int nt)
{
    const int beta_nz = beta != 0.0;
    const float invf = (float)inv;
    if (nt) { /* alpha = 1, beta = 0 (smx_nt_want): the same products, streamed from e */
        for (int64_t i = 0; i < n; i++)
            e[i] *= invf;
        fd_cpu_stream(y, e, (size_t)n * sizeof(float));
    } else if (alpha == 1.0 && !beta_nz)
        for (int64_t i = 0; i < n; i++)
            y[i] = e[i] * invf;
    else
        for (int64_t i = 0; i < n; i++)
            SMX_BLEND(y[i], (double)e[i] * inv, alpha, beta);
}

/* One dense row of the forward pass. */
SMX_INLINE void smx_fwd_row(const float *x, float *y, int64_t n, int is_log, double alpha,
                            double beta, float *restrict ebuf, int nt)
{
    const int beta_nz = beta != 0.0;
    float m, mn;
    double sum, off = 0.0; /* sum: raw (smx_ep) for rows up to SMX_CACHE */
    const int cache = n <= SMX_CACHE && !is_log;
    if (n <= SMX_CACHE) {
        m = smx_max(x, n, &mn);
        const smx_ep_t ep = smx_ep(m, mn);
        sum = smx_expsum(x, n, &ep, cache ? ebuf : NULL);
        off = ep.off;
    } else { /* long rows: maximum and sum per cache-sized chunk, combined; x is read twice */
        double mm = -INFINITY;
        sum = 0.0;
        for (int64_t i = 0; i < n; i += SMX_CACHE) {
            int64_t len = n - i < SMX_CACHE ? n - i : SMX_CACHE;
            float mc = smx_max(x + i, len, &mn);
            if (mc == -INFINITY) /* contributes 0, unless the whole row is -inf (below) */
                continue;
            const smx_ep_t ep = smx_ep(mc, mn);
            double sc = smx_expsum(x + i, len, &ep, NULL);
            if (ep.piv)
                sc *= exp(ep.off); /* raw -> sum(e^(x - mc)) */
            if (mc != mc || mm != mm) {
                mm = NAN;
            } else if (mc > mm) {
                sum = sum * exp(mm - mc) + sc;
                mm = mc;
            } else {
                sum += sc * exp(mc - mm);
            }
        }
        if (mm == -INFINITY) /* all -inf: 0/0, as the ref */
            sum = NAN;
        m = (float)mm;
        if (m != m)
            sum = NAN;
    }
    if (is_log) {
        const double ls = log(sum) + off, md = m;
        const float lsf = (float)ls;
        if (alpha == 1.0 && !beta_nz) /* in float: smx_log_out */
            for (int64_t i = 0; i < n; i++)
                y[i] = (x[i] - m) - lsf;
        else
            for (int64_t i = 0; i < n; i++) {
                double v = ((double)x[i] - md) - ls;
                SMX_BLEND(y[i], v, alpha, beta);
            }
    } else if (cache) {
        smx_scale_out(ebuf, y, n, 0x1p-64 / sum, alpha, beta, nt);
    } else {
        const double inv = 0x1p-64 / sum;
        float b[SMX_BLK];
        for (int64_t i = 0; i < n; i += SMX_BLK) {
            int len = (int)(n - i < SMX_BLK ? n - i : SMX_BLK);
            for (int j = 0; j < len; j++)
                b[j] = fd_vexpf_diff64(x[i + j], m);
            smx_scale_out(b, y + i, len, inv, alpha, beta, nt);
        }
    }
}

/* The next unit's part of a channel (the unit after this one continues every channel's run;
 * with one short run per channel, too many streams for the hardware prefetcher). Reading
 * past the tensor's end is harmless: a prefetch never faults. */
SMX_INLINE void smx_prefetch(const float *p, int w)
{
    for (int i = 0; i < w; i += 16)
        __builtin_prefetch(p + i, 0, 2); /* into L2: a unit ahead is more than L1 holds */
}

/* The same for an output (write intent: the store then finds its line owned). */
SMX_INLINE void smx_prefetchw(float *p, int w)
{
    for (int i = 0; i < w; i += 16)
        __builtin_prefetch(p + i, 1, 2);
}

/* w lanes of a LANES unit: element c of lane p at x[c * rst + p]. */
SMX_INLINE void smx_fwd_lanes(const float *x, float *y, int64_t len, int64_t rst, int w, int is_log,
                              int cache, double alpha, double beta, float *restrict ebuf, int nt)
{
    const int beta_nz = beta != 0.0;
    float mx[SMX_W], mn[SMX_W], z[SMX_W], lo[SMX_W], shr[SMX_W];
    double sum[SMX_W], f[SMX_W], off[SMX_W];
    int pv[SMX_W];
    for (int p = 0; p < w; p++)
        mx[p] = -INFINITY, mn[p] = INFINITY, z[p] = 0.0f, sum[p] = 0.0;
    for (int64_t c = 0; c < len; c++) {
        const float *xr = x + c * rst;
        smx_prefetch(xr + w, w);
        if (!nt) /* streamed: a line owned in the cache would only be read for nothing */
            smx_prefetchw(y + c * rst + w, w);
        for (int p = 0; p < w; p++) {
            float v = xr[p];
            z[p] += v - v; /* NaN after a NaN or an infinity: then rescanned (smx_max) */
            mx[p] = v > mx[p] ? v : mx[p];
            mn[p] = v < mn[p] ? v : mn[p];
        }
    }
    for (int p = 0; p < w; p++)
        if (z[p] != z[p])
            for (int64_t c = 0; c < len; c++)
                if (isnan(x[c * rst + p]))
                    mx[p] = NAN;
    for (int p = 0; p < w; p++) { /* each lane's exp (smx_ep) */
        pv[p] = fd_vexpf_piv_ok(mx[p], mn[p]);
        lo[p] = shr[p] = 0.0f, off[p] = 0.0;
        if (pv[p])
            fd_vexpf_piv_params(mx[p], &lo[p], &shr[p], &off[p]);
    }
#define SMX_LANE_E(xv, p)                                                                          \
    (pv[p] ? fd_vexpf_piv64((xv), lo[p], shr[p]) : fd_vexpf_diff64((xv), mx[p]))
    for (int64_t c = 0; c < len; c += 2) { /* channels in pairs, added in float (smx_acc) */
        const float *xr = x + c * rst;
        float e[2][SMX_W], *er = cache ? ebuf + c * w : e[0];
        float *er1 = cache && c + 1 < len ? er + w : e[1];
        const int two = c + 1 < len;
        for (int p = 0; p < w; p++)
            er[p] = SMX_LANE_E(xr[p], p);
        for (int p = 0; p < w; p++)
            er1[p] = two ? SMX_LANE_E(xr[rst + p], p) : 0.0f;
        for (int p = 0; p < w; p++)
            sum[p] += (double)(er[p] + er1[p]);
    }
    for (int p = 0; p < w; p++)
        sum[p] *= 0x1p-64; /* the exps were e 2^64 (fd_vexpf_diff64): exact */
    if (is_log) {
        float lf[SMX_W];
        for (int p = 0; p < w; p++)
            f[p] = log(sum[p]) + off[p], lf[p] = (float)f[p];
        for (int64_t c = 0; c < len; c++) {
            const float *xr = x + c * rst;
            float *yr = y + c * rst;
            if (alpha == 1.0 && !beta_nz) /* in float: smx_log_out */
                for (int p = 0; p < w; p++)
                    yr[p] = (xr[p] - mx[p]) - lf[p];
            else
                for (int p = 0; p < w; p++) {
                    double v = ((double)xr[p] - (double)mx[p]) - f[p];
                    SMX_BLEND(yr[p], v, alpha, beta);
                }
        }
        return;
    }
    float inv[SMX_W];
    for (int p = 0; p < w; p++)
        f[p] = 0x1p-64 / sum[p], inv[p] = (float)f[p]; /* for e 2^64 */
    const int plain = alpha == 1.0 && !beta_nz;
    for (int64_t c = 0; c < len; c++) {
        const float *xr = x + c * rst;
        float *yr = y + c * rst;
        float e[SMX_W];
        float *er = cache ? ebuf + c * w : e;
        if (!cache)
            for (int p = 0; p < w; p++)
                e[p] = SMX_LANE_E(xr[p], p);
        if (nt) { /* plain, by smx_nt_want: the same products, streamed */
            for (int p = 0; p < w; p++)
                er[p] *= inv[p];
            fd_cpu_stream(yr, er, (size_t)w * sizeof(float));
        } else if (plain)
            for (int p = 0; p < w; p++)
                yr[p] = er[p] * inv[p];
        else
            for (int p = 0; p < w; p++)
                SMX_BLEND(yr[p], (double)er[p] * f[p], alpha, beta);
    }
#undef SMX_LANE_E
}

SMX_INLINE void smx_fwd_unit(const smx_plan_t *s, const fd_softmax_fwd_args_t *a, int is_log,
                             int64_t u)
{
    float ebuf[SMX_CACHE];
    const float *x = a->x;
    float *y = a->y;
    if (s->kind == SMX_ROWS) {
        int64_t o1 = (u + 1) * s->per < s->outer ? (u + 1) * s->per : s->outer;
        for (int64_t o = u * s->per; o < o1; o++) {
            int64_t off = smx_outer_off(s, o);
            smx_fwd_row(x + off, y + off, s->len, is_log, a->alpha, a->beta, ebuf, s->nt);
        }
    } else {
        int64_t o = u / s->per, p0 = (u % s->per) * s->w;
        int w = (int)(s->lanes - p0 < s->w ? s->lanes - p0 : s->w);
        int64_t off = smx_outer_off(s, o) + p0;
        smx_fwd_lanes(x + off, y + off, s->len, s->rst, w, is_log, s->cache, a->alpha, a->beta,
                      ebuf, s->nt);
    }
#ifdef FD_CPU_X86
    if (s->nt)
        _mm_sfence(); /* this unit's streaming stores, before the parallel loop's barrier */
#endif
}

/* One dense row of the backward pass: ACCURATE/FAST dx = y * (dy - sum(dy * y)), LOG
 * dx = dy - exp(y) * sum(dy); the products dy * y are exact in double, as in the ref. */
SMX_INLINE void smx_bwd_row(const float *y, const float *g, float *dx, int64_t n, int is_log,
                            double alpha, double beta)
{
    const int beta_nz = beta != 0.0;
    double acc[SMX_ACC] = {0};
    int64_t i = 0;
    if (is_log) {
        for (; i + SMX_ACC <= n; i += SMX_ACC)
            for (int l = 0; l < SMX_ACC; l++)
                acc[l] += (double)g[i + l];
        for (int l = 0; i < n; i++, l++)
            acc[l] += (double)g[i];
    } else {
        for (; i + SMX_ACC <= n; i += SMX_ACC)
            for (int l = 0; l < SMX_ACC; l++)
                acc[l] += (double)g[i + l] * (double)y[i + l];
        for (int l = 0; i < n; i++, l++)
            acc[l] += (double)g[i] * (double)y[i];
    }
    const double sum = smx_fold(acc);
    if (is_log) {
        float b[SMX_BLK];
        const float sf = (float)sum;
        for (i = 0; i < n; i += SMX_BLK) {
            int len = (int)(n - i < SMX_BLK ? n - i : SMX_BLK);
            for (int j = 0; j < len; j++)
                b[j] = fd_vexpf(y[i + j]);
            if (alpha == 1.0 && !beta_nz) { /* in float, one rounding: smx_bwd_lanes */
                for (int j = 0; j < len; j++)
                    dx[i + j] = fmaf(-b[j], sf, g[i + j]);
                continue;
            }
            for (int j = 0; j < len; j++) {
                double v = (double)g[i + j] - (double)b[j] * sum;
                SMX_BLEND(dx[i + j], v, alpha, beta);
            }
        }
    } else {
        for (i = 0; i < n; i++) {
            double v = (double)y[i] * ((double)g[i] - sum);
            SMX_BLEND(dx[i], v, alpha, beta);
        }
    }
}

/* The next backward unit's part of a channel: dy, y (not read by LOG's sums), dx (unless
 * streamed). */
SMX_INLINE void smx_bwd_prefetch(const float *yr, const float *gr, float *dr, int w, int is_log,
                                 int nt)
{
    smx_prefetch(gr + w, w);
    if (!is_log)
        smx_prefetch(yr + w, w);
    if (!nt)
        smx_prefetchw(dr + w, w);
}

/* w lanes of a LANES unit, each lane's sum in canonical order. */
SMX_INLINE void smx_bwd_lanes(const float *y, const float *g, float *dx, int64_t len, int64_t rst,
                              int w, int is_log, double alpha, double beta, int nt)
{
    const int beta_nz = beta != 0.0;
    double sum[SMX_WB];
    for (int p = 0; p < w; p++)
        sum[p] = 0.0;
    for (int64_t c = 0; c < len; c++) {
        const float *yr = y + c * rst, *gr = g + c * rst;
        smx_bwd_prefetch(yr, gr, dx + c * rst, w, is_log, nt);
        if (is_log)
            for (int p = 0; p < w; p++)
                sum[p] += (double)gr[p];
        else
            for (int p = 0; p < w; p++)
                sum[p] += (double)gr[p] * (double)yr[p];
    }
    /* LOG with alpha = 1, beta = 0: dx = fmaf(-e, (float)s, dy), rounded once: |error| <= 2^-24
     * |dx| + e |s| (the exp's ulp, s's and the product's half ulps: about 2 2^-24), within
     * the row's 4 2^-24 (|dx| + e |s|) (the double form cost four conversions per vector) */
    float sf[SMX_WB];
    for (int p = 0; p < w; p++)
        sf[p] = (float)sum[p];
    for (int64_t c = 0; c < len; c++) {
        const float *yr = y + c * rst, *gr = g + c * rst;
        float *dr = dx + c * rst;
        if (is_log) {
            float e[SMX_WB];
            for (int p = 0; p < w; p++)
                e[p] = fd_vexpf(yr[p]);
            if (alpha == 1.0 && !beta_nz) /* dx = dy - e s in float, one rounding (below) */
                for (int p = 0; p < w; p++)
                    dr[p] = fmaf(-e[p], sf[p], gr[p]);
            else
                for (int p = 0; p < w; p++) {
                    double v = (double)gr[p] - (double)e[p] * sum[p];
                    SMX_BLEND(dr[p], v, alpha, beta);
                }
        } else if (nt) { /* alpha = 1, beta = 0: the same values, streamed */
            float ob[SMX_WB];
            for (int p = 0; p < w; p++)
                ob[p] = (float)((double)yr[p] * ((double)gr[p] - sum[p]));
            fd_cpu_stream(dr, ob, (size_t)w * sizeof(float));
        } else {
            for (int p = 0; p < w; p++) {
                double v = (double)yr[p] * ((double)gr[p] - sum[p]);
                SMX_BLEND(dr[p], v, alpha, beta);
            }
        }
    }
}

/* A backward unit with the row and lane kernels given (the C's above, or the AVX2 ones). */
typedef void (*smx_brow_fn)(const float *, const float *, float *, int64_t, int, double, double);
typedef void (*smx_blanes_fn)(const float *, const float *, float *, int64_t, int64_t, int, int,
                              double, double, int);
SMX_INLINE void smx_bwd_unit_k(const smx_plan_t *s, const fd_softmax_bwd_args_t *a, int is_log,
                               int64_t u, smx_brow_fn row, smx_blanes_fn lanes)
{
    const float *y = a->y, *g = a->dy;
    float *dx = a->dx;
    if (s->kind == SMX_ROWS) {
        int64_t o1 = (u + 1) * s->per < s->outer ? (u + 1) * s->per : s->outer;
        for (int64_t o = u * s->per; o < o1; o++) {
            int64_t off = smx_outer_off(s, o);
            row(y + off, g + off, dx + off, s->len, is_log, a->alpha, a->beta);
        }
    } else {
        int64_t o = u / s->per, p0 = (u % s->per) * s->w;
        int w = (int)(s->lanes - p0 < s->w ? s->lanes - p0 : s->w);
        int64_t off = smx_outer_off(s, o) + p0;
        lanes(y + off, g + off, dx + off, s->len, s->rst, w, is_log, a->alpha, a->beta, s->nt);
    }
#ifdef FD_CPU_X86
    if (s->nt)
        _mm_sfence(); /* this unit's streaming stores, before the parallel loop's barrier */
#endif
}

SMX_INLINE void smx_bwd_unit(const smx_plan_t *s, const fd_softmax_bwd_args_t *a, int is_log,
                             int64_t u)
{
    smx_bwd_unit_k(s, a, is_log, u, smx_bwd_row, smx_bwd_lanes);
}

/* The C above compiled for AVX2 + FMA; on AVX-512 the intrinsic kernels below (which fall back
 * to the same C, compiled for AVX-512, for LANES LOG forward). FREEDNN_CPU_ISA=avx512|avx2|
 * generic caps the choice, as for the convolution rows. Contraction is off and the FMAs are
 * explicit, so both give the same bits. */
typedef void (*smx_fwd_fn)(const smx_plan_t *, const fd_softmax_fwd_args_t *, int, int64_t);
typedef void (*smx_bwd_fn)(const smx_plan_t *, const fd_softmax_bwd_args_t *, int, int64_t);
#define SMX_VARIANT(suffix, attr)                                                                  \
    attr static void smx_fwd_unit_##suffix(const smx_plan_t *s, const fd_softmax_fwd_args_t *a,    \
                                           int is_log, int64_t u)                                  \
    {                                                                                              \
        smx_fwd_unit(s, a, is_log, u);                                                             \
    }                                                                                              \
    attr static void smx_bwd_unit_##suffix(const smx_plan_t *s, const fd_softmax_bwd_args_t *a,    \
                                           int is_log, int64_t u)                                  \
    {                                                                                              \
        smx_bwd_unit(s, a, is_log, u);                                                             \
    }
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
SMX_VARIANT(avx2, __attribute__((target("avx2,fma"))))
/* the backward on AVX-512 is this C (intrinsic versions of it measured 8-20% slower in cache
 * and no faster from DRAM, 2026-11-30, seventh session) */
__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,prefer-vector-width=512"))) static void
smx_bwd_unit_avx512(const smx_plan_t *s, const fd_softmax_bwd_args_t *a, int is_log, int64_t u)
{
    smx_bwd_unit(s, a, is_log, u);
}
#define SMX_X86 1

/* ---- AVX-512 kernels of the f32 path (same bits as the C above) ---------------------------
 * The C loops above keep per-lane state (maxima, double sums) in stack arrays, so every step of
 * a lane walk loads and stores them, and the NCHW lane unit's exps went to a 64 KiB buffer in
 * L2. These restate the same operations with intrinsics: a LANES unit runs in sub-blocks of up
 * to 64 lanes (4 vectors) whose maxima and double sums stay in registers, with the exps of a
 * sub-block (<= 16 KiB) in L1 between the sum pass and the scale pass; a dense row keeps its
 * 16 partial sums in two registers. smx_z_exp64 is fd_vexpf_diff64 operation for operation,
 * sums and folds are in the same order, so the bits equal the AVX2 build of the C above (the
 * tests compare them). */
#define SMX_Z __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,prefer-vector-width=512")))
#define SMX_ZI static inline __attribute__((always_inline)) SMX_Z

/* fd_vexpf_poly on 16 lanes. */
SMX_ZI __m512 smx_z_poly(__m512 r)
{
    __m512 p = _mm512_set1_ps(0x1.6a244ap-10f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0x1.1239d4p-7f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0x1.5558f2p-5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0x1.555492p-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0x1.fffffcp-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    return _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
}

/* p times the power of two held in t's low nine bits (fd_vexpf_neg64's shift). */
SMX_ZI __m512 smx_z_scale2(__m512 p, __m512 t)
{
    return _mm512_mul_ps(p, _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_castps_si512(t), 23)));
}

/* fd_vexpf_diff64(x, m) on 16 lanes; nm = -m. The "err only where s >= -128" select and the
 * addition of err are one masked addition (r + 0 = r for the lanes left out, up to the sign of
 * a zero r, which the polynomial maps to 1 either way). */
SMX_ZI __m512 smx_z_exp64(__m512 x, __m512 m, __m512 nm)
{
    const __m512 shift = _mm512_set1_ps(0x1.8p23f + 191.0f);
    __m512 s = _mm512_sub_ps(x, m);
    __m512 bb = _mm512_sub_ps(s, x);
    __m512 err = _mm512_add_ps(_mm512_sub_ps(x, _mm512_sub_ps(s, bb)), _mm512_sub_ps(nm, bb));
    __mmask16 ok = _mm512_cmp_ps_mask(s, _mm512_set1_ps(-128.0f), _CMP_GE_OQ);
    __m512 sc = _mm512_max_ps(_mm512_set1_ps(-104.0f), s); /* s < -104 ? -104 : s, NaN kept */
    __m512 t = _mm512_fmadd_ps(sc, _mm512_set1_ps(0x1.715476p0f), shift);
    __m512 k = _mm512_sub_ps(t, shift);
    __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0x1.62e400p-1f), sc);
    r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0x1.7f7d1cp-20f), r);
    r = _mm512_mask_add_ps(r, ok, r, err);
    return smx_z_scale2(smx_z_poly(r), t);
}

/* fd_vexpf_piv64 on 16 lanes (vmath.h: the row's max folded into shr). */
SMX_ZI __m512 smx_z_piv64(__m512 x, __m512 lo, __m512 shr)
{
    __m512 xc = _mm512_max_ps(lo, x); /* lo > x ? lo : x, NaN x kept */
    __m512 t = _mm512_fmadd_ps(xc, _mm512_set1_ps(0x1.715476p0f), shr);
    __m512 k = _mm512_sub_ps(t, shr);
    __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0x1.62e400p-1f), xc);
    r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0x1.7f7d1cp-20f), r);
    return smx_z_scale2(smx_z_poly(r), t);
}

/* smx_ep on 16 lanes (rows: the same m and mn in every lane). mode 1: every lane in valid
 * takes fd_vexpf_piv64, 0: none does, 2: some (both computed, blended: the C path chooses per
 * lane, and the lanes of a vector are not the C's groups). */
typedef struct {
    __m512 m, nm, lo, shr;
    __mmask16 pv;
    int mode;
} smx_zep_t;

SMX_ZI smx_zep_t smx_zep(__m512 m, __mmask16 varied, __mmask16 valid)
{
    const __m512 shift = _mm512_set1_ps(0x1.8p23f);
    smx_zep_t e;
    e.m = m;
    e.nm = _mm512_xor_ps(m, _mm512_set1_ps(-0.0f));
    e.pv = _mm512_cmp_ps_mask(m, _mm512_set1_ps(-64.0f), _CMP_GE_OQ) &
           _mm512_cmp_ps_mask(m, _mm512_set1_ps(128.0f), _CMP_LE_OQ) & varied;
    __m512 km = _mm512_sub_ps(_mm512_fmadd_ps(m, _mm512_set1_ps(0x1.715476p0f), shift), shift);
    e.lo = _mm512_sub_ps(m, _mm512_set1_ps(110.0f));
    e.shr = _mm512_sub_ps(_mm512_set1_ps(0x1.8p23f + 191.0f), km);
    const __mmask16 v = e.pv & valid;
    e.mode = v == valid ? 1 : v == 0 ? 0 : 2;
    return e;
}

/* A row's (smx_ep's choice, every lane); *off: smx_ep's off. */
SMX_ZI smx_zep_t smx_zep_row(float m, float mn, double *off)
{
    const smx_ep_t c = smx_ep(m, mn);
    *off = c.off;
    return smx_zep(_mm512_set1_ps(m), c.piv ? (__mmask16)0xFFFF : 0, 0xFFFF);
}

/* The same for a register row of NV vectors v (valid lanes mk) with maximum mf: a row whose
 * valid elements all equal mf is constant (mn = m). */
SMX_ZI smx_zep_t smx_zep_reg(const int NV, const __m512 *v, const __mmask16 *mk, float mf,
                             double *off)
{
    const __m512 mv = _mm512_set1_ps(mf);
    __mmask16 vr = 0;
    for (int i = 0; i < NV; i++)
        vr |= _mm512_mask_cmp_ps_mask(mk[i], v[i], mv, _CMP_NEQ_OQ);
    return smx_zep_row(mf, vr ? -INFINITY : mf, off);
}

SMX_ZI __m512 smx_z_e(const smx_zep_t *e, __m512 x)
{
    if (e->mode == 1)
        return smx_z_piv64(x, e->lo, e->shr);
    __m512 o = smx_z_exp64(x, e->m, e->nm);
    if (e->mode == 2)
        o = _mm512_mask_mov_ps(o, e->pv, smx_z_piv64(x, e->lo, e->shr));
    return o;
}

/* A vector of p under mask k, fill elsewhere: a plain load when k is full (Zen 5 runs masked
 * loads that miss the cache at a fraction of plain ones and its prefetchers do not follow
 * them; memop.h fd_cpu_mload_ps). Same value. */
SMX_ZI __m512 smx_z_ldm(__mmask16 k, const float *p, __m512 fill)
{
    return k == (__mmask16)0xFFFF ? _mm512_loadu_ps(p) : _mm512_mask_loadu_ps(fill, k, p);
}

SMX_ZI __m512d smx_z_lo(__m512 e)
{
    return _mm512_cvtps_pd(_mm512_castps512_ps256(e));
}

SMX_ZI __m512d smx_z_hi(__m512 e)
{
    return _mm512_cvtps_pd(_mm512_extractf32x8_ps(e, 1));
}

/* lo += (double) lanes 0-7 of a + b, hi += lanes 8-15: two exps added in float, then
 * converted once (smx_acc's pairs) */
SMX_ZI void smx_z_acc2(__m512d *lo, __m512d *hi, __m512 a, __m512 b)
{
    __m512 q = _mm512_add_ps(a, b);
    *lo = _mm512_add_pd(*lo, smx_z_lo(q));
    *hi = _mm512_add_pd(*hi, smx_z_hi(q));
}

SMX_ZI __m512 smx_z_join(__m256 lo, __m256 hi)
{
    return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
}

/* NV vectors of lanes (the last one masked by tail) of a LANES unit, ACCURATE / FAST: the
 * C path's smx_fwd_lanes for those lanes. pf: the distance to the next unit's lanes
 * (prefetched during the maximum pass); eb: len * 16 NV floats, or NULL (exps computed twice);
 * al: y streamed with aligned 64-byte stores. */
SMX_ZI void smx_z_lanes_nv(const int NV, const float *x, float *y, int64_t len, int64_t rst,
                           const __mmask16 *mk, int64_t pf, int nt, int al, double alpha,
                           double beta, float *restrict eb)
{
    const int beta_nz = beta != 0.0;
    __m512 mx[4], mn[4];
    smx_zep_t ep[4];
    for (int v = 0; v < NV; v++)
        mx[v] = _mm512_set1_ps(-INFINITY), mn[v] = _mm512_set1_ps(INFINITY);
    /* a NaN is skipped by the maximum here (max(NaN, m) = m), but its exp is NaN, so the lane's
     * sum and then every output of the lane are NaN, as with a NaN maximum */
    for (int64_t c = 0; c < len; c++) {
        const float *xr = x + c * rst;
        for (int v = 0; v < NV; v++) {
            __m512 a = fd_cpu_mload_ps(mk[v], xr + 16 * v);
            mx[v] = _mm512_max_ps(a, mx[v]);
            mn[v] = _mm512_min_ps(a, mn[v]); /* constant lanes keep fd_vexpf_diff64 (smx_ep) */
        }
    }
    for (int v = 0; v < NV; v++)
        ep[v] = smx_zep(mx[v], _mm512_cmp_ps_mask(mn[v], mx[v], _CMP_LT_OQ), mk[v]);
    __m512d sm[8];
    for (int v = 0; v < 2 * NV; v++)
        sm[v] = _mm512_setzero_pd();
    for (int64_t c = 0; c < len; c += 2) { /* channels in pairs (smx_fwd_lanes) */
        const float *xr = x + c * rst;
        const int two = c + 1 < len;
        /* the next unit's part of these rows, prefetched here, spread over the exp pass (the
         * longest one; issued all at once in the maximum pass, many were dropped) */
        for (int v = 0; v < NV; v++) {
            __builtin_prefetch(xr + pf + 16 * v, 0, 2);
            if (two)
                __builtin_prefetch(xr + rst + pf + 16 * v, 0, 2);
            if (!nt) {
                __builtin_prefetch(y + c * rst + pf + 16 * v, 1, 2);
                if (two)
                    __builtin_prefetch(y + (c + 1) * rst + pf + 16 * v, 1, 2);
            }
        }
        for (int v = 0; v < NV; v++) {
            __m512 e = smx_z_e(&ep[v], fd_cpu_mload_ps(mk[v], xr + 16 * v));
            __m512 e1 = _mm512_setzero_ps();
            if (two)
                e1 = smx_z_e(&ep[v], fd_cpu_mload_ps(mk[v], xr + rst + 16 * v));
            if (eb) {
                _mm512_store_ps(eb + (c * NV + v) * 16, e);
                if (two)
                    _mm512_store_ps(eb + ((c + 1) * NV + v) * 16, e1);
            }
            smx_z_acc2(&sm[2 * v], &sm[2 * v + 1], e, e1);
        }
    }
    __m512 inv[4];
    double f[64];
    for (int v = 0; v < NV; v++) {
        __m512d f0 = _mm512_div_pd(_mm512_set1_pd(0x1p-64),
                                   _mm512_mul_pd(sm[2 * v], _mm512_set1_pd(0x1p-64)));
        __m512d f1 = _mm512_div_pd(_mm512_set1_pd(0x1p-64),
                                   _mm512_mul_pd(sm[2 * v + 1], _mm512_set1_pd(0x1p-64)));
        inv[v] = smx_z_join(_mm512_cvtpd_ps(f0), _mm512_cvtpd_ps(f1));
        _mm512_storeu_pd(f + 16 * v, f0);
        _mm512_storeu_pd(f + 16 * v + 8, f1);
    }
    const int plain = alpha == 1.0 && !beta_nz;
    for (int64_t c = 0; c < len; c++) {
        const float *xr = x + c * rst;
        float *yr = y + c * rst;
        __m512 e[4];
        for (int v = 0; v < NV; v++)
            e[v] = eb ? _mm512_load_ps(eb + (c * NV + v) * 16)
                      : smx_z_e(&ep[v], fd_cpu_mload_ps(mk[v], xr + 16 * v));
        if (plain) {
            for (int v = 0; v < NV; v++) {
                __m512 o = _mm512_mul_ps(e[v], inv[v]);
                if (al && mk[v] == 0xffff)
                    _mm512_stream_ps(yr + 16 * v, o);
                else
                    fd_cpu_mstore_ps(yr + 16 * v, mk[v], o);
            }
        } else {
            float eo[64];
            for (int v = 0; v < NV; v++)
                _mm512_storeu_ps(eo + 16 * v, e[v]);
            for (int p = 0; p < 16 * NV; p++)
                if (mk[p / 16] >> (p % 16) & 1)
                    SMX_BLEND(yr[p], (double)eo[p] * f[p], alpha, beta);
        }
    }
}

/* Masks of the NV vectors at frame lanes f0, f0 + 16, ... for the lanes [lo, hi). */
SMX_ZI void smx_z_masks(__mmask16 *mk, int nv, int64_t f0, int64_t lo, int64_t hi)
{
    for (int v = 0; v < nv; v++) {
        int64_t s0 = f0 + 16 * v, a = lo - s0, b = hi - s0;
        a = a < 0 ? 0 : a;
        b = b > 16 ? 16 : b;
        mk[v] = (__mmask16)(((1u << b) - 1) & ~((1u << a) - 1));
    }
}

/* The lane frame of a LANES unit: with streamed stores, lanes are counted from the 64-byte
 * line that holds the unit's first output (sh lanes before it), so that every whole vector of
 * outputs is one aligned line (a streamed store needs that; the partial first and last vectors
 * take masked ordinary stores). Rows then share the alignment when their stride is a multiple
 * of 16 lanes. */
SMX_ZI int smx_z_shift(const float *out, int64_t rst, int nt, int *al)
{
    *al = nt && (uintptr_t)out % 4 == 0 && rst % 16 == 0;
    return *al ? (int)((uintptr_t)out / 4 % 16) : 0;
}

/* A LANES unit of w lanes, ACCURATE / FAST. */
SMX_Z static void smx_z_fwd_lanes(const float *x, float *y, int64_t len, int64_t rst, int w, int nt,
                                  double alpha, double beta, float *restrict ebuf)
{
    /* vectors per sub-block: as many as let the sub-block's exps fit the buffer */
    float *eb = len * 16 <= SMX_CACHE ? ebuf : NULL;
    int nvmax = !eb || len * 64 <= SMX_CACHE ? 4 : len * 32 <= SMX_CACHE ? 2 : 1;
    int al, sh = smx_z_shift(y, rst, nt, &al);
    const int64_t hi = sh + (int64_t)w;
    for (int64_t f0 = 0; f0 < hi; f0 += 16 * nvmax) {
        int nv = (int)((hi - f0 + 15) / 16);
        nv = nv < nvmax ? nv : nvmax;
        __mmask16 mk[4];
        smx_z_masks(mk, nv, f0, sh, hi);
        const float *xs = x - sh + f0;
        float *ys = y - sh + f0;
        switch (nv) {
        case 4:
            smx_z_lanes_nv(4, xs, ys, len, rst, mk, w, nt, al, alpha, beta, eb);
            break;
        case 3:
            smx_z_lanes_nv(3, xs, ys, len, rst, mk, w, nt, al, alpha, beta, eb);
            break;
        case 2:
            smx_z_lanes_nv(2, xs, ys, len, rst, mk, w, nt, al, alpha, beta, eb);
            break;
        default:
            smx_z_lanes_nv(1, xs, ys, len, rst, mk, w, nt, al, alpha, beta, eb);
            break;
        }
    }
}

/* smx_max on AVX-512: the maximum is exact in any order (a zero's sign does not matter: x - m
 * is then a zero and exp of it 1), any NaN makes it NaN. */
SMX_ZI float smx_z_max(const float *x, int64_t n, float *mn)
{
    __m512 m0 = _mm512_set1_ps(-INFINITY), m1 = m0, n0 = _mm512_set1_ps(INFINITY), n1 = n0;
    __mmask16 nan = 0;
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m512 a = _mm512_loadu_ps(x + i), b = _mm512_loadu_ps(x + i + 16);
        m0 = _mm512_max_ps(a, m0);
        m1 = _mm512_max_ps(b, m1);
        n0 = _mm512_min_ps(a, n0); /* the minimum too (smx_ep) */
        n1 = _mm512_min_ps(b, n1);
        nan |= _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q);
    }
    for (; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m512 a = _mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), k, x + i);
        m0 = _mm512_max_ps(a, m0);
        n0 = _mm512_mask_min_ps(n0, k, a, n0);
        nan |= _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q);
    }
    *mn = _mm512_reduce_min_ps(_mm512_min_ps(n0, n1));
    if (nan)
        return NAN;
    return _mm512_reduce_max_ps(_mm512_max_ps(m0, m1));
}

/* smx_expsum on AVX-512: element i in partial sum i % 16 (lo: 0-7, hi: 8-15), the same fold. */
SMX_ZI double smx_z_expsum(const float *restrict x, int64_t n, const smx_zep_t *ep,
                           float *restrict e)
{
    __m512d lo = _mm512_setzero_pd(), hi = lo;
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) { /* vectors in pairs (smx_acc) */
        /* the next row (or chunk) of a packed tensor into L2 meanwhile: its maximum pass then
         * does not wait on DRAM (harmless elsewhere: a prefetch never faults) */
        __builtin_prefetch(x + n + i, 0, 2);
        __builtin_prefetch(x + n + i + 16, 0, 2);
        __m512 v = smx_z_e(ep, _mm512_loadu_ps(x + i));
        __m512 w = smx_z_e(ep, _mm512_loadu_ps(x + i + 16));
        if (e) {
            _mm512_storeu_ps(e + i, v);
            _mm512_storeu_ps(e + i + 16, w);
        }
        smx_z_acc2(&lo, &hi, v, w);
    }
    if (i < n) { /* the last group, zero-padded */
        __mmask16 k0 = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1);
        __mmask16 k1 = n - i > 16 ? (__mmask16)((1u << (n - i - 16)) - 1) : 0;
        __m512 v = _mm512_maskz_mov_ps(k0, smx_z_e(ep, _mm512_maskz_loadu_ps(k0, x + i)));
        __m512 w = _mm512_maskz_mov_ps(k1, smx_z_e(ep, _mm512_maskz_loadu_ps(k1, x + i + 16)));
        if (e) {
            fd_cpu_mstore_ps(e + i, k0, v);
            fd_cpu_mstore_ps(e + i + 16, k1, w);
        }
        smx_z_acc2(&lo, &hi, v, w);
    }
    __m512d a8 = _mm512_add_pd(lo, hi);
    __m256d a4 = _mm256_add_pd(_mm512_castpd512_pd256(a8), _mm512_extractf64x4_pd(a8, 1));
    __m128d b = _mm_add_pd(_mm256_castpd256_pd128(a4), _mm256_extractf128_pd(a4, 1));
    double s = _mm_cvtsd_f64(b) + _mm_cvtsd_f64(_mm_unpackhi_pd(b, b));
    return s * 0x1p-64;
}

/* y = e * invf for alpha = 1, beta = 0 (smx_scale_out's plain and streamed cases; streamed
 * with 64-byte stores where y is aligned to them, else through fd_cpu_stream); the others as
 * smx_scale_out. */
SMX_ZI void smx_z_scale_out(float *restrict e, float *y, int64_t n, double inv, double alpha,
                            double beta, int nt)
{
    if (alpha != 1.0 || beta != 0.0) {
        smx_scale_out(e, y, n, inv, alpha, beta, nt);
        return;
    }
    const __m512 iv = _mm512_set1_ps((float)inv);
    if (nt && (uintptr_t)y % 64 != 0) { /* the products in place, then streamed by lines */
        int64_t i = 0;
        for (; i + 16 <= n; i += 16)
            _mm512_storeu_ps(e + i, _mm512_mul_ps(_mm512_loadu_ps(e + i), iv));
        for (; i < n; i++)
            e[i] *= (float)inv;
        fd_cpu_stream_z(y, e, (size_t)n * sizeof(float));
        return;
    }
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 o = _mm512_mul_ps(_mm512_loadu_ps(e + i), iv);
        if (nt)
            _mm512_stream_ps(y + i, o);
        else
            _mm512_storeu_ps(y + i, o);
    }
    if (i < n) {
        __mmask16 k = (__mmask16)((1u << (n - i)) - 1);
        fd_cpu_mstore_ps(y + i, k, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, e + i), iv));
    }
}

/* Output vector i of a register row: a streamed line where the row is aligned, else into
 * ob for one fd_cpu_stream_z of the row (nt), or an ordinary masked store. */
SMX_ZI void smx_z_put(float *y, float *ob, int i, __mmask16 mk, __m512 o, int nt, int al)
{
    if (al && mk == 0xffff)
        _mm512_stream_ps(y + 16 * i, o);
    else if (nt && !al)
        _mm512_storeu_ps(ob + 16 * i, o);
    else
        fd_cpu_mstore_ps(y + 16 * i, mk, o);
}

/* A dense row of at most 16 NV elements (NHWC CHANNEL rows, short INSTANCE rows) held in
 * registers: x read once, no exp buffer; the same operations and sums as smx_fwd_row. A NaN
 * is skipped by the maximum, but its exp (or LOG's sum) is NaN, so the row is NaN as with a
 * NaN maximum. */
SMX_ZI void smx_z_row_reg(const int NV, const float *x, float *y, int64_t n, int is_log,
                          double alpha, double beta, int nt)
{
    const int beta_nz = beta != 0.0;
    __m512 v[8], e[8];
    __mmask16 mk[8];
    __m512 m = _mm512_set1_ps(-INFINITY);
    for (int i = 0; i < NV; i++) {
        int64_t left = n - 16 * i;
        mk[i] = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
        v[i] = smx_z_ldm(mk[i], x + 16 * i, m);
        m = _mm512_max_ps(v[i], m);
    }
    const float mf = _mm512_reduce_max_ps(m);
    const __m512 mv = _mm512_set1_ps(mf);
    double off;
    const smx_zep_t ep = smx_zep_reg(NV, v, mk, mf, &off);
    __m512d lo = _mm512_setzero_pd(), hi = lo;
    for (int i = 0; i < NV; i++)
        e[i] = _mm512_maskz_mov_ps(mk[i], smx_z_e(&ep, v[i]));
    for (int i = 0; i < NV; i += 2) /* vectors in pairs (smx_acc) */
        smx_z_acc2(&lo, &hi, e[i], i + 1 < NV ? e[i + 1] : _mm512_setzero_ps());
    __m512d a8 = _mm512_add_pd(lo, hi);
    __m256d a4 = _mm256_add_pd(_mm512_castpd512_pd256(a8), _mm512_extractf64x4_pd(a8, 1));
    __m128d b = _mm_add_pd(_mm256_castpd256_pd128(a4), _mm256_extractf128_pd(a4, 1));
    const double sum = (_mm_cvtsd_f64(b) + _mm_cvtsd_f64(_mm_unpackhi_pd(b, b))) * 0x1p-64;
    const int plain = alpha == 1.0 && !beta_nz, al = nt && (uintptr_t)y % 64 == 0;
    float ob[128]; /* streamed outputs of a row not aligned to lines: one fd_cpu_stream_z */
    if (is_log) {
        const double ls = log(sum) + off, md = mf;
        if (plain) { /* in float: smx_log_out */
            const __m512 lsv = _mm512_set1_ps((float)ls);
            for (int i = 0; i < NV; i++)
                smx_z_put(y, ob, i, mk[i], _mm512_sub_ps(_mm512_sub_ps(v[i], mv), lsv), nt, al);
            if (nt && !al)
                fd_cpu_stream_z(y, ob, (size_t)n * sizeof(float));
        } else {
            for (int64_t i = 0; i < n; i++) {
                double t = ((double)x[i] - md) - ls;
                SMX_BLEND(y[i], t, alpha, beta);
            }
        }
        return;
    }
    const double inv = 0x1p-64 / sum;
    if (plain) {
        const __m512 iv = _mm512_set1_ps((float)inv);
        for (int i = 0; i < NV; i++)
            smx_z_put(y, ob, i, mk[i], _mm512_mul_ps(e[i], iv), nt, al);
        if (nt && !al)
            fd_cpu_stream_z(y, ob, (size_t)n * sizeof(float));
    } else {
        float eo[128];
        for (int i = 0; i < NV; i++)
            _mm512_storeu_ps(eo + 16 * i, e[i]);
        smx_scale_out(eo, y, n, inv, alpha, beta, 0);
    }
}

/* Two register rows (ACCURATE / FAST, alpha = 1, beta = 0) side by side, each exactly as
 * smx_z_row_reg: a row alone is a chain of dependent steps (maximum across the vector,
 * exps, fold, division) longer than the out-of-order window covers, so short rows (NHWC
 * CHANNEL) ran at their latency; two chains interleaved fill the gaps. */
SMX_ZI void smx_z_row_pair(const int NV, const float *const *xs, float *const *ys, int64_t n,
                           int nt)
{
    __m512 e[2][8], m[2];
    __mmask16 mk[8];
    for (int i = 0; i < NV; i++) {
        int64_t left = n - 16 * i;
        mk[i] = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
    }
    for (int r = 0; r < 2; r++) {
        m[r] = _mm512_set1_ps(-INFINITY);
        for (int i = 0; i < NV; i++) {
            e[r][i] = smx_z_ldm(mk[i], xs[r] + 16 * i, m[r]);
            m[r] = _mm512_max_ps(e[r][i], m[r]);
        }
    }
    __m512 iv[2];
    for (int r = 0; r < 2; r++) {
        const float mf = _mm512_reduce_max_ps(m[r]);
        double off;
        const smx_zep_t ep = smx_zep_reg(NV, e[r], mk, mf, &off);
        __m512d lo = _mm512_setzero_pd(), hi = lo;
        for (int i = 0; i < NV; i++)
            e[r][i] = _mm512_maskz_mov_ps(mk[i], smx_z_e(&ep, e[r][i]));
        for (int i = 0; i < NV; i += 2) /* vectors in pairs (smx_acc) */
            smx_z_acc2(&lo, &hi, e[r][i], i + 1 < NV ? e[r][i + 1] : _mm512_setzero_ps());
        __m512d a8 = _mm512_add_pd(lo, hi);
        __m256d a4 = _mm256_add_pd(_mm512_castpd512_pd256(a8), _mm512_extractf64x4_pd(a8, 1));
        __m128d b = _mm_add_pd(_mm256_castpd256_pd128(a4), _mm256_extractf128_pd(a4, 1));
        const double sum = (_mm_cvtsd_f64(b) + _mm_cvtsd_f64(_mm_unpackhi_pd(b, b))) * 0x1p-64;
        iv[r] = _mm512_set1_ps((float)(0x1p-64 / sum));
    }
    for (int r = 0; r < 2; r++) {
        const int al = nt && (uintptr_t)ys[r] % 64 == 0;
        float ob[128];
        for (int i = 0; i < NV; i++)
            smx_z_put(ys[r], ob, i, mk[i], _mm512_mul_ps(e[r][i], iv[r]), nt, al);
        if (nt && !al)
            fd_cpu_stream_z(ys[r], ob, (size_t)n * sizeof(float));
    }
}

SMX_Z static void smx_z_rows2(const float *x0, float *y0, const float *x1, float *y1, int64_t n,
                              int nt)
{
    const float *xs[2] = {x0, x1};
    float *ys[2] = {y0, y1};
    switch ((n + 15) / 16) {
#define SMX_Z_R2(nv)                                                                               \
    case nv:                                                                                       \
        smx_z_row_pair(nv, xs, ys, n, nt);                                                         \
        break;
        SMX_Z_R2(1)
        SMX_Z_R2(2)
        SMX_Z_R2(3)
        SMX_Z_R2(4)
        SMX_Z_R2(5)
        SMX_Z_R2(6)
        SMX_Z_R2(7)
    default:
        smx_z_row_pair(8, xs, ys, n, nt);
        break;
#undef SMX_Z_R2
    }
}

/* Sixteen register rows (ACCURATE / FAST, alpha = 1, beta = 0) of at most 16 NV elements, each
 * with smx_z_row_reg's operations and sums (same bits), but with the per-row horizontal steps
 * done for all sixteen rows at once (2026-12-01, Zen 5): a row's vertical maximum vector and its
 * 8 double partial sums (a8 = lo + hi) go to small L1 buffers, and one transposed reduction per
 * batch (two shuffles and a max / add per pair of vectors, halving the count at each level)
 * turns them into sixteen maxima and sixteen sums in one vector each, then one division for the
 * sixteen 2^-64 / sum. The double tree is the row's: a4[j] = a8[j] + a8[j + 4], b[j] = a4[j] +
 * a4[j + 2], b[0] + b[1]. The pair kernel above ran each row as a chain of dependent steps
 * (reduce, exp, fold, division: about 190 cycles a row at 64 elements, 0.16 of the bandwidth on
 * NHWC n8c64h112w112); here the three passes over the batch are independent across rows, so
 * the core runs them at throughput. The exps stay in an L1 buffer between the sum and scale
 * passes. Slot s of a reduction takes row SMX_PF(s) / SMX_PD(s) so that lane r ends as row r.
 * nt: y streamed; the caller only sets it when every row starts a 64-byte line and n % 16 == 0. */
#define SMX_PF(s) (4 * ((s) % 4) + (s) / 4)
/* out[r] = the maximum (mn: minimum) of the 16 lanes of b[r], for the 16 r at once: two
 * shuffles and a max per pair of vectors, halving the count at each level; slot s takes row
 * SMX_PF(s) so that lane r ends as row r. */
SMX_ZI __m512 smx_z_mm(__m512 a, __m512 b, int mn)
{
    return mn ? _mm512_min_ps(a, b) : _mm512_max_ps(a, b);
}

SMX_ZI void smx_z_tr16(float (*b)[16], int mn, float *out)
{
    __m512 a[8], c[4], d[2];
    for (int i = 0; i < 8; i++) {
        __m512 p = _mm512_load_ps(b[SMX_PF(2 * i)]), q = _mm512_load_ps(b[SMX_PF(2 * i + 1)]);
        a[i] = smx_z_mm(_mm512_shuffle_f32x4(p, q, 0x44), _mm512_shuffle_f32x4(p, q, 0xEE), mn);
    }
    for (int i = 0; i < 4; i++)
        c[i] = smx_z_mm(_mm512_shuffle_f32x4(a[2 * i], a[2 * i + 1], 0x88),
                        _mm512_shuffle_f32x4(a[2 * i], a[2 * i + 1], 0xDD), mn);
    for (int i = 0; i < 2; i++)
        d[i] = smx_z_mm(_mm512_shuffle_ps(c[2 * i], c[2 * i + 1], 0x44),
                        _mm512_shuffle_ps(c[2 * i], c[2 * i + 1], 0xEE), mn);
    _mm512_store_ps(out, smx_z_mm(_mm512_shuffle_ps(d[0], d[1], 0x88),
                                  _mm512_shuffle_ps(d[0], d[1], 0xDD), mn));
}
#define SMX_PD(s) (((s) & 8) + ((s) & 4 ? 2 * ((s) & 3) + 1 : 2 * ((s) & 3)))
SMX_ZI void smx_z_rows16_nv(const int NV, const float *const *xs, float *const *ys, int64_t n,
                            int nt)
{
    float mb[16][16] __attribute__((aligned(64))), nb[16][16] __attribute__((aligned(64)));
    double db[16][8] __attribute__((aligned(64)));
    float eb[16][128] __attribute__((aligned(64)));
    float mx[16] __attribute__((aligned(64))), iv[16] __attribute__((aligned(64)));
    float mnr[16] __attribute__((aligned(64))), lo16[16] __attribute__((aligned(64)));
    float sh16[16] __attribute__((aligned(64)));
    __mmask16 mk[8];
    for (int i = 0; i < NV; i++) {
        int64_t left = n - 16 * i;
        mk[i] = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
    }
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    const __m512 pinf = _mm512_set1_ps(INFINITY);
    for (int r = 0; r < 16; r++) { /* vertical maxima (a NaN is skipped: see smx_z_row_reg) and
                                    * minima (smx_ep) */
        __m512 m = ninf, mn = pinf;
        for (int i = 0; i < NV; i++) {
            __m512 a = _mm512_mask_loadu_ps(ninf, mk[i], xs[r] + 16 * i);
            m = _mm512_max_ps(a, m);
            mn = _mm512_mask_min_ps(mn, mk[i], a, mn);
        }
        _mm512_store_ps(mb[r], m);
        _mm512_store_ps(nb[r], mn);
    }
    smx_z_tr16(mb, 0, mx);
    smx_z_tr16(nb, 1, mnr);
    /* the sixteen rows' exps at once (smx_zep for lanes = rows: the same operations as smx_ep's
     * per row, so the C path's bits); mode per row from its bit */
    const smx_zep_t e16 =
        smx_zep(_mm512_load_ps(mx),
                _mm512_cmp_ps_mask(_mm512_load_ps(mnr), _mm512_load_ps(mx), _CMP_LT_OQ), 0xFFFF);
    _mm512_store_ps(lo16, e16.lo);
    _mm512_store_ps(sh16, e16.shr);
    for (int r = 0; r < 16; r++) { /* exps and the row's 8 double partial sums */
        for (int i = 0; i < NV; i++) /* packed rows: the batch after next (a prefetch never
                                      * faults; other layouts just waste it) */
            __builtin_prefetch(xs[r] + 32 * n + 16 * i, 0, 3);
        __m512d lo = _mm512_setzero_pd(), hi = lo;
        __m512 e[8];
        if (e16.pv >> r & 1) {
            const __m512 lv = _mm512_set1_ps(lo16[r]), sv = _mm512_set1_ps(sh16[r]);
            for (int i = 0; i < NV; i++)
                e[i] = smx_z_piv64(_mm512_maskz_loadu_ps(mk[i], xs[r] + 16 * i), lv, sv);
        } else {
            const __m512 mv = _mm512_set1_ps(mx[r]), nm = _mm512_set1_ps(-mx[r]);
            for (int i = 0; i < NV; i++)
                e[i] = smx_z_exp64(_mm512_maskz_loadu_ps(mk[i], xs[r] + 16 * i), mv, nm);
        }
        for (int i = 0; i < NV; i++) {
            e[i] = _mm512_maskz_mov_ps(mk[i], e[i]);
            _mm512_store_ps(eb[r] + 16 * i, e[i]);
        }
        for (int i = 0; i < NV; i += 2) /* vectors in pairs (smx_acc) */
            smx_z_acc2(&lo, &hi, e[i], i + 1 < NV ? e[i + 1] : _mm512_setzero_ps());
        _mm512_store_pd(db[r], _mm512_add_pd(lo, hi));
    }
    {
        __m512d a[8], b[4], sm[2];
        for (int i = 0; i < 8; i++) {
            __m512d p = _mm512_load_pd(db[SMX_PD(2 * i)]),
                    q = _mm512_load_pd(db[SMX_PD(2 * i + 1)]);
            a[i] =
                _mm512_add_pd(_mm512_shuffle_f64x2(p, q, 0x44), _mm512_shuffle_f64x2(p, q, 0xEE));
        }
        for (int i = 0; i < 4; i++)
            b[i] = _mm512_add_pd(_mm512_shuffle_f64x2(a[2 * i], a[2 * i + 1], 0x88),
                                 _mm512_shuffle_f64x2(a[2 * i], a[2 * i + 1], 0xDD));
        const __m512d k64 = _mm512_set1_pd(0x1p-64);
        for (int i = 0; i < 2; i++) {
            __m512d t = _mm512_add_pd(_mm512_unpacklo_pd(b[2 * i], b[2 * i + 1]),
                                      _mm512_unpackhi_pd(b[2 * i], b[2 * i + 1]));
            sm[i] = _mm512_div_pd(k64, _mm512_mul_pd(t, k64)); /* 2^-64 / sum, sum exact */
        }
        _mm512_store_ps(iv, smx_z_join(_mm512_cvtpd_ps(sm[0]), _mm512_cvtpd_ps(sm[1])));
    }
    for (int r = 0; r < 16; r++) {
        const __m512 ivr = _mm512_set1_ps(iv[r]);
        for (int i = 0; i < NV; i++) {
            __m512 o = _mm512_mul_ps(_mm512_load_ps(eb[r] + 16 * i), ivr);
            if (nt)
                _mm512_stream_ps(ys[r] + 16 * i, o);
            else
                fd_cpu_mstore_ps(ys[r] + 16 * i, mk[i], o);
        }
    }
}

/* not inlined: inside smx_fwd_unit_z (with the exp choice of 2026-12-01) its loops compiled
 * 25% slower where y is not streamed (NHWC n8c64h112w112, 16-byte aligned: 2.1 -> 2.7 ms) */
__attribute__((noinline)) SMX_Z static void smx_z_rows16(const float *const *xs, float *const *ys,
                                                         int64_t n, int nt)
{
    switch ((n + 15) / 16) {
#define SMX_Z_R16(nv)                                                                              \
    case nv:                                                                                       \
        smx_z_rows16_nv(nv, xs, ys, n, nt);                                                        \
        break;
        SMX_Z_R16(1)
        SMX_Z_R16(2)
        SMX_Z_R16(3)
        SMX_Z_R16(4)
        SMX_Z_R16(5)
        SMX_Z_R16(6)
        SMX_Z_R16(7)
    default:
        smx_z_rows16_nv(8, xs, ys, n, nt);
        break;
#undef SMX_Z_R16
    }
}

/* smx_fwd_row on AVX-512 (same passes, same bits); LOG outputs streamed too when nt. */
SMX_Z static void smx_z_fwd_row(const float *x, float *y, int64_t n, int is_log, double alpha,
                                double beta, float *restrict ebuf, int nt)
{
    const int beta_nz = beta != 0.0;
    switch ((n + 15) / 16) {
#define SMX_Z_ROW(nv)                                                                              \
    case nv:                                                                                       \
        smx_z_row_reg(nv, x, y, n, is_log, alpha, beta, nt);                                       \
        return;
        SMX_Z_ROW(1)
        SMX_Z_ROW(2)
        SMX_Z_ROW(3)
        SMX_Z_ROW(4)
        SMX_Z_ROW(5)
        SMX_Z_ROW(6)
        SMX_Z_ROW(7)
        SMX_Z_ROW(8)
#undef SMX_Z_ROW
    default:
        break;
    }
    float m, mn;
    double sum, off = 0.0; /* as smx_fwd_row */
    const int cache = n <= SMX_CACHE && !is_log;
    if (n <= SMX_CACHE) {
        m = smx_z_max(x, n, &mn);
        const smx_zep_t ep = smx_zep_row(m, mn, &off);
        sum = smx_z_expsum(x, n, &ep, cache ? ebuf : NULL);
    } else {
        double mm = -INFINITY;
        sum = 0.0;
        for (int64_t i = 0; i < n; i += SMX_CACHE) {
            int64_t len = n - i < SMX_CACHE ? n - i : SMX_CACHE;
            float mc = smx_z_max(x + i, len, &mn);
            if (mc == -INFINITY)
                continue;
            double oc;
            const smx_zep_t ep = smx_zep_row(mc, mn, &oc);
            double sc = smx_z_expsum(x + i, len, &ep, NULL);
            if (ep.mode == 1)
                sc *= exp(oc);
            if (mc != mc || mm != mm) {
                mm = NAN;
            } else if (mc > mm) {
                sum = sum * exp(mm - mc) + sc;
                mm = mc;
            } else {
                sum += sc * exp(mc - mm);
            }
        }
        if (mm == -INFINITY)
            sum = NAN;
        m = (float)mm;
        if (m != m)
            sum = NAN;
    }
    if (is_log) {
        const double ls = log(sum) + off, md = m;
        if (alpha == 1.0 && !beta_nz) { /* in float: smx_log_out */
            const __m512 mv = _mm512_set1_ps(m), lsv = _mm512_set1_ps((float)ls);
            const float lsf = (float)ls;
            const int al = nt && (uintptr_t)y % 64 == 0, buf = nt && !al;
            float ob[SMX_BLK];
            for (int64_t i0 = 0; i0 < n; i0 += SMX_BLK) {
                int64_t len = n - i0 < SMX_BLK ? n - i0 : SMX_BLK, i = 0;
                float *yo = buf ? ob : y + i0; /* unaligned streamed rows: a block in L1 */
                const float *xi = x + i0;
                for (; i + 16 <= len; i += 16) {
                    __m512 o = _mm512_sub_ps(_mm512_sub_ps(_mm512_loadu_ps(xi + i), mv), lsv);
                    if (al)
                        _mm512_stream_ps(yo + i, o);
                    else
                        _mm512_storeu_ps(yo + i, o);
                }
                for (; i < len; i++)
                    yo[i] = (xi[i] - m) - lsf;
                if (buf)
                    fd_cpu_stream_z(y + i0, ob, (size_t)len * sizeof(float));
            }
        } else {
            for (int64_t i = 0; i < n; i++) {
                double v = ((double)x[i] - md) - ls;
                SMX_BLEND(y[i], v, alpha, beta);
            }
        }
    } else if (cache) {
        smx_z_scale_out(ebuf, y, n, 0x1p-64 / sum, alpha, beta, nt);
    } else {
        const double inv = 0x1p-64 / sum;
        const __m512 mv = _mm512_set1_ps(m), nm = _mm512_set1_ps(-m);
        float b[SMX_BLK];
        for (int64_t i = 0; i < n; i += SMX_BLK) {
            int len = (int)(n - i < SMX_BLK ? n - i : SMX_BLK);
            int j = 0;
            for (; j + 16 <= len; j += 16)
                _mm512_storeu_ps(b + j, smx_z_exp64(_mm512_loadu_ps(x + i + j), mv, nm));
            for (; j < len; j++)
                b[j] = fd_vexpf_diff64(x[i + j], m);
            smx_z_scale_out(b, y + i, len, inv, alpha, beta, nt);
        }
    }
}

SMX_Z static void smx_fwd_unit_z(const smx_plan_t *s, const fd_softmax_fwd_args_t *a, int is_log,
                                 int64_t u)
{
    float ebuf[SMX_CACHE] __attribute__((aligned(64)));
    const float *x = a->x;
    float *y = a->y;
    if (s->kind == SMX_ROWS) {
        int64_t o1 = (u + 1) * s->per < s->outer ? (u + 1) * s->per : s->outer, o = u * s->per;
        const int nt = s->nt; /* short rows: aligned ones only (fd_softmax_fwd_cpu_run) */
        if (!is_log && a->alpha == 1.0 && a->beta == 0.0 && s->len <= 128) {
            const float *xs[16];
            float *ys[16];
            int64_t off[16];
            for (; o + 16 <= o1; o += 16) {
                smx_outer_offs(s, o, 16, off);
                for (int r = 0; r < 16; r++)
                    xs[r] = x + off[r], ys[r] = y + off[r];
                smx_z_rows16(xs, ys, s->len, nt);
            }
        }
        if (!is_log && a->alpha == 1.0 && a->beta == 0.0 && s->len <= 128)
            for (; o + 1 < o1; o += 2) {
                int64_t off0 = smx_outer_off(s, o), off1 = smx_outer_off(s, o + 1);
                smx_z_rows2(x + off0, y + off0, x + off1, y + off1, s->len, nt);
            }
        for (; o < o1; o++) {
            int64_t off = smx_outer_off(s, o);
            smx_z_fwd_row(x + off, y + off, s->len, is_log, a->alpha, a->beta, ebuf, nt);
        }
    } else if (is_log) {
        smx_fwd_unit(s, a, is_log, u);
        return;
    } else {
        int64_t o = u / s->per, p0 = (u % s->per) * s->w;
        int w = (int)(s->lanes - p0 < s->w ? s->lanes - p0 : s->w);
        int64_t off = smx_outer_off(s, o) + p0;
        smx_z_fwd_lanes(x + off, y + off, s->len, s->rst, w, s->nt, a->alpha, a->beta, ebuf);
    }
    if (s->nt)
        _mm_sfence();
}

/* ---- AVX2 + FMA kernels of the f32 path (same bits as the C above) -------------------------
 * 2026-12-04 (Zen 3, AVX2 only): the C above compiled for AVX2 left the lane unit's exps in
 * scalar code (the per-lane choice of exp did not vectorise) and kept maxima and sums in stack
 * arrays: NCHW n8c64h112w112 CHANNEL forward 9.3 ms, 0.17 of the bandwidth. These restate the
 * AVX-512 kernels' plan with 8-lane vectors and the same operations in the same order
 * (smx_y_exp64 is fd_vexpf_diff64 step for step, smx_y_piv64 fd_vexpf_piv64; sums, folds and
 * divisions as smx_expsum / smx_fwd_lanes), so the bits are the C's, hence the AVX-512
 * kernels'; tests/impl/test_cpu_smx_fast.c compares them with the C (FREEDNN_CPU_SMX_AVX2_C=1
 * runs the C at the AVX2 level). LANES units (NCHW CHANNEL, ACCURATE / FAST) run in sub-blocks
 * of up to 32 lanes whose maxima and double sums stay in registers and whose exps stay in L1;
 * dense rows take vector maximum, exp-sum and scale passes; rows of up to 128 elements
 * (ACCURATE / FAST, alpha 1, beta 0: NHWC CHANNEL) run eight at a time, each pass over the
 * eight rows independent across rows. LANES LOG forward stays the C; the backward (alpha 1,
 * beta 0) restates the C's passes. Where every lane takes fd_vexpf_piv64, the exps of four
 * vectors run in lockstep (smx_y_piv64_4; same operations, same bits): one thread in L3,
 * n1c64h56w56, 2026-12-05: NCHW CHANNEL forward 1.07-1.09x, LOG INSTANCE 1.07-1.08x, NHWC
 * CHANNEL 1.02x. */
#define SMX_Y __attribute__((target("avx2,fma")))
#define SMX_YI static inline __attribute__((always_inline)) SMX_Y
#define SMX_YNV 4 /* vectors per LANES sub-block (even: a 64-byte line is two vectors) */

/* fd_vexpf_poly's coefficients, highest degree first. */
static const float smx_y_pc[7] = {
    0x1.6a244ap-10f, 0x1.1239d4p-7f, 0x1.5558f2p-5f, 0x1.555492p-3f, 0x1.fffffcp-2f, 1.0f, 1.0f};

/* fd_vexpf_poly on 8 lanes. */
SMX_YI __m256 smx_y_poly(__m256 r)
{
    __m256 p = _mm256_set1_ps(smx_y_pc[0]);
    for (int q = 1; q < 7; q++)
        p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(smx_y_pc[q]));
    return p;
}

/* p times the power of two held in t's low nine bits (fd_vexpf_neg64's shift). */
SMX_YI __m256 smx_y_scale2(__m256 p, __m256 t)
{
    return _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(t), 23)));
}

/* fd_vexpf_diff64(x, m) on 8 lanes; nm = -m. err & (s >= -128) is the C's select (+0 where it
 * is off: r + 0 = r up to a zero's sign, which the polynomial maps to 1 either way). */
SMX_YI __m256 smx_y_exp64(__m256 x, __m256 m, __m256 nm)
{
    const __m256 shift = _mm256_set1_ps(0x1.8p23f + 191.0f);
    __m256 s = _mm256_sub_ps(x, m);
    __m256 bb = _mm256_sub_ps(s, x);
    __m256 err = _mm256_add_ps(_mm256_sub_ps(x, _mm256_sub_ps(s, bb)), _mm256_sub_ps(nm, bb));
    err = _mm256_and_ps(_mm256_cmp_ps(s, _mm256_set1_ps(-128.0f), _CMP_GE_OQ), err);
    __m256 sc = _mm256_max_ps(_mm256_set1_ps(-104.0f), s); /* s < -104 ? -104 : s, NaN kept */
    __m256 t = _mm256_fmadd_ps(sc, _mm256_set1_ps(0x1.715476p0f), shift);
    __m256 k = _mm256_sub_ps(t, shift);
    __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0x1.62e400p-1f), sc);
    r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0x1.7f7d1cp-20f), r);
    r = _mm256_add_ps(r, err);
    return smx_y_scale2(smx_y_poly(r), t);
}

/* fd_vexpf_piv64 on 8 lanes. */
SMX_YI __m256 smx_y_piv64(__m256 x, __m256 lo, __m256 shr)
{
    __m256 xc = _mm256_max_ps(lo, x); /* lo > x ? lo : x, NaN x kept */
    __m256 t = _mm256_fmadd_ps(xc, _mm256_set1_ps(0x1.715476p0f), shr);
    __m256 k = _mm256_sub_ps(t, shr);
    __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0x1.62e400p-1f), xc);
    r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0x1.7f7d1cp-20f), r);
    return smx_y_scale2(smx_y_poly(r), t);
}

/* smx_y_piv64 on four vectors in lockstep (each statement one operation on each of them):
 * the same operations on each, so the same bits. One vector's chain of ~15 dependent
 * operations after another left Zen 3's scheduler too few to fill its pipes (activation_cpu.c's
 * TR_EACH kernels, the same finding). */
#define SMX_EACH(...)                                                                              \
    _Pragma("GCC unroll 4") for (int u = 0; u < 4; u++)                                            \
    {                                                                                              \
        __VA_ARGS__;                                                                               \
    }

SMX_YI void smx_y_piv64_4(const __m256 *x, const __m256 *lo, const __m256 *shr, __m256 *o)
{
    __m256 xc[4], t[4], k[4], r[4], p[4];
    SMX_EACH(xc[u] = _mm256_max_ps(lo[u], x[u]));
    SMX_EACH(t[u] = _mm256_fmadd_ps(xc[u], _mm256_set1_ps(0x1.715476p0f), shr[u]));
    SMX_EACH(k[u] = _mm256_sub_ps(t[u], shr[u]));
    SMX_EACH(r[u] = _mm256_fnmadd_ps(k[u], _mm256_set1_ps(0x1.62e400p-1f), xc[u]));
    SMX_EACH(r[u] = _mm256_fnmadd_ps(k[u], _mm256_set1_ps(0x1.7f7d1cp-20f), r[u]));
    SMX_EACH(p[u] = _mm256_set1_ps(smx_y_pc[0]));
    for (int q = 1; q < 7; q++)
        SMX_EACH(p[u] = _mm256_fmadd_ps(p[u], r[u], _mm256_set1_ps(smx_y_pc[q])));
    SMX_EACH(o[u] = smx_y_scale2(p[u], t[u]));
}

/* smx_ep on 8 lanes (smx_zep's rule): pv all-ones where a lane takes fd_vexpf_piv64; mode 1:
 * every valid lane does, 0: none, 2: some (both computed and blended). */
typedef struct {
    __m256 m, nm, lo, shr, pv;
    int mode;
} smx_yep_t;

SMX_YI smx_yep_t smx_yep(__m256 m, __m256 varied, int valid)
{
    const __m256 shift = _mm256_set1_ps(0x1.8p23f);
    smx_yep_t e;
    e.m = m;
    e.nm = _mm256_xor_ps(m, _mm256_set1_ps(-0.0f));
    e.pv = _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(m, _mm256_set1_ps(-64.0f), _CMP_GE_OQ),
                                       _mm256_cmp_ps(m, _mm256_set1_ps(128.0f), _CMP_LE_OQ)),
                         varied);
    __m256 km = _mm256_sub_ps(_mm256_fmadd_ps(m, _mm256_set1_ps(0x1.715476p0f), shift), shift);
    e.lo = _mm256_sub_ps(m, _mm256_set1_ps(110.0f));
    e.shr = _mm256_sub_ps(_mm256_set1_ps(0x1.8p23f + 191.0f), km);
    const int v = _mm256_movemask_ps(e.pv) & valid;
    e.mode = v == valid ? 1 : v == 0 ? 0 : 2;
    return e;
}

/* A row's: smx_ep's choice in every lane. */
SMX_YI smx_yep_t smx_yep_row(const smx_ep_t *c)
{
    smx_yep_t e;
    e.m = _mm256_set1_ps(c->m);
    e.nm = _mm256_set1_ps(-c->m);
    e.lo = _mm256_set1_ps(c->lo);
    e.shr = _mm256_set1_ps(c->shr);
    e.pv = _mm256_setzero_ps();
    e.mode = c->piv;
    return e;
}

/* smx_y_e for a known mode (1: every lane fd_vexpf_piv64; else by e->mode), so that loops over
 * rows whose lanes all take fd_vexpf_piv64 carry no test. */
SMX_YI __m256 smx_y_em(const int piv, const smx_yep_t *e, __m256 x)
{
    if (piv || e->mode == 1)
        return smx_y_piv64(x, e->lo, e->shr);
    __m256 o = smx_y_exp64(x, e->m, e->nm);
    if (e->mode == 2)
        o = _mm256_blendv_ps(o, smx_y_piv64(x, e->lo, e->shr), e->pv);
    return o;
}

SMX_YI __m256 smx_y_e(const smx_yep_t *e, __m256 x)
{
    return smx_y_em(0, e, x);
}

/* The lane mask of k (bit l: lane l) as a vector for maskload / maskstore. */
SMX_YI __m256i smx_y_mask(int k)
{
    const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    __m256i b = _mm256_and_si256(_mm256_set1_epi32(k), bit);
    return _mm256_cmpeq_epi32(b, bit);
}

/* 8 floats at p under mask k (zero elsewhere): a plain load when k is full. */
SMX_YI __m256 smx_y_ld(int k, const float *p)
{
    return k == 0xff ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, smx_y_mask(k));
}

SMX_YI void smx_y_st(float *p, int k, __m256 v)
{
    if (k == 0xff)
        _mm256_storeu_ps(p, v);
    else if (k)
        _mm256_maskstore_ps(p, smx_y_mask(k), v);
}

/* lo += (double) lanes 0-3 of a + b, hi += lanes 4-7 (smx_acc's pairs). */
SMX_YI void smx_y_acc2(__m256d *lo, __m256d *hi, __m256 a, __m256 b)
{
    __m256 q = _mm256_add_ps(a, b);
    *lo = _mm256_add_pd(*lo, _mm256_cvtps_pd(_mm256_castps256_ps128(q)));
    *hi = _mm256_add_pd(*hi, _mm256_cvtps_pd(_mm256_extractf128_ps(q, 1)));
}

/* Channels c and c + 1 (TWO; else c alone) of the exp pass of smx_y_lanes_nv: exps (into eb)
 * and their sums in float, then in double; PIV 1 when every lane takes fd_vexpf_piv64. */
SMX_YI void smx_y_lanes_pair(const int PIV, const int TWO, const int NV, const float *x,
                             const float *y, int64_t c, int64_t rst, const int *mk, int64_t pf,
                             int nt, const smx_yep_t *ep, __m256d *sm, float *restrict eb)
{
    const float *xr = x + c * rst;
    for (int v = 0; v < NV; v += 2) { /* the next unit's lines (smx_z_lanes_nv) */
        __builtin_prefetch(xr + pf + 8 * v, 0, 2);
        if (TWO)
            __builtin_prefetch(xr + rst + pf + 8 * v, 0, 2);
        if (!nt) {
            __builtin_prefetch(y + c * rst + pf + 8 * v, 1, 2);
            if (TWO)
                __builtin_prefetch(y + (c + 1) * rst + pf + 8 * v, 1, 2);
        }
    }
    __m256 e[4], e1[4];
    if (PIV && NV == 4) { /* the common sub-block: four vectors in lockstep */
        const __m256 lo[4] = {ep[0].lo, ep[1].lo, ep[2].lo, ep[3].lo};
        const __m256 shr[4] = {ep[0].shr, ep[1].shr, ep[2].shr, ep[3].shr};
        __m256 xv[4];
        SMX_EACH(xv[u] = smx_y_ld(mk[u], xr + 8 * u));
        smx_y_piv64_4(xv, lo, shr, e);
        if (TWO) {
            SMX_EACH(xv[u] = smx_y_ld(mk[u], xr + rst + 8 * u));
            smx_y_piv64_4(xv, lo, shr, e1);
        } else {
            SMX_EACH(e1[u] = _mm256_setzero_ps());
        }
    } else {
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) {
            e[v] = smx_y_em(PIV, &ep[v], smx_y_ld(mk[v], xr + 8 * v));
            e1[v] = TWO ? smx_y_em(PIV, &ep[v], smx_y_ld(mk[v], xr + rst + 8 * v))
                        : _mm256_setzero_ps();
        }
    }
#pragma GCC unroll 4
    for (int v = 0; v < NV; v++) {
        if (eb) {
            _mm256_store_ps(eb + (c * NV + v) * 8, e[v]);
            if (TWO)
                _mm256_store_ps(eb + ((c + 1) * NV + v) * 8, e1[v]);
        }
        smx_y_acc2(&sm[2 * v], &sm[2 * v + 1], e[v], e1[v]);
    }
}

/* The exp pass of smx_y_lanes_nv (channels in pairs, as smx_fwd_lanes). */
SMX_YI void smx_y_lanes_exps(const int PIV, const int NV, const float *x, const float *y,
                             int64_t len, int64_t rst, const int *mk, int64_t pf, int nt,
                             const smx_yep_t *ep, __m256d *sm, float *restrict eb)
{
    int64_t c = 0;
    for (; c + 1 < len; c += 2)
        smx_y_lanes_pair(PIV, 1, NV, x, y, c, rst, mk, pf, nt, ep, sm, eb);
    if (c < len)
        smx_y_lanes_pair(PIV, 0, NV, x, y, c, rst, mk, pf, nt, ep, sm, eb);
}

/* The maximum pass of smx_y_lanes_nv (FULL: every mask whole). */
SMX_YI void smx_y_lanes_max(const int FULL, const int NV, const float *x, int64_t len, int64_t rst,
                            const int *mk, __m256 *mx, __m256 *mn)
{
    for (int64_t c = 0; c < len; c++) {
        const float *xr = x + c * rst;
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) {
            __m256 a = FULL ? _mm256_loadu_ps(xr + 8 * v) : smx_y_ld(mk[v], xr + 8 * v);
            mx[v] = _mm256_max_ps(a, mx[v]);
            mn[v] = _mm256_min_ps(a, mn[v]);
        }
    }
}

/* NV vectors of lanes (masks mk) of a LANES unit, ACCURATE / FAST: smx_fwd_lanes for those
 * lanes (smx_z_lanes_nv's plan). pf: the distance to the next unit's lanes; eb: len * 8 NV
 * floats or NULL (exps computed twice); al: vectors whose 64-byte line is wholly in the
 * sub-block are streamed (the frame starts a line: smx_z_shift). */
SMX_YI void smx_y_lanes_nv(const int NV, const float *x, float *y, int64_t len, int64_t rst,
                           const int *mk, int64_t pf, int nt, int al, double alpha, double beta,
                           float *restrict eb)
{
    const int beta_nz = beta != 0.0;
    __m256 mx[4], mn[4];
    smx_yep_t ep[4];
    for (int v = 0; v < NV; v++)
        mx[v] = _mm256_set1_ps(-INFINITY), mn[v] = _mm256_set1_ps(INFINITY);
    int full = 1; /* every vector whole (the common case): plain loads and stores, no tests */
    for (int v = 0; v < NV; v++)
        full &= mk[v] == 0xff;
    /* a NaN is skipped by the maximum (max(NaN, m) = m), but its exp is NaN: the lane is NaN */
    if (full)
        smx_y_lanes_max(1, NV, x, len, rst, mk, mx, mn);
    else
        smx_y_lanes_max(0, NV, x, len, rst, mk, mx, mn);
    for (int v = 0; v < NV; v++)
        ep[v] = smx_yep(mx[v], _mm256_cmp_ps(mn[v], mx[v], _CMP_LT_OQ), mk[v]);
    __m256d sm[8];
    for (int v = 0; v < 2 * NV; v++)
        sm[v] = _mm256_setzero_pd();
    int all = 1; /* every lane takes fd_vexpf_piv64 (the common case): no per-vector test */
    for (int v = 0; v < NV; v++)
        all &= ep[v].mode == 1;
    if (all)
        smx_y_lanes_exps(1, NV, x, y, len, rst, mk, pf, nt, ep, sm, eb);
    else
        smx_y_lanes_exps(0, NV, x, y, len, rst, mk, pf, nt, ep, sm, eb);
    __m256 inv[4];
    double f[32];
    for (int v = 0; v < NV; v++) {
        const __m256d k64 = _mm256_set1_pd(0x1p-64);
        __m256d f0 = _mm256_div_pd(k64, _mm256_mul_pd(sm[2 * v], k64));
        __m256d f1 = _mm256_div_pd(k64, _mm256_mul_pd(sm[2 * v + 1], k64));
        inv[v] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(f0)),
                                      _mm256_cvtpd_ps(f1), 1);
        _mm256_storeu_pd(f + 8 * v, f0);
        _mm256_storeu_pd(f + 8 * v + 4, f1);
    }
    const int plain = alpha == 1.0 && !beta_nz;
    int st[4]; /* vectors streamed: full, with their line's other half full */
    for (int v = 0; v < NV; v++)
        st[v] = al && mk[v] == 0xff && (v ^ 1) < NV && mk[v ^ 1] == 0xff;
    for (int64_t c = 0; c < len; c++) {
        const float *xr = x + c * rst;
        float *yr = y + c * rst;
        __m256 e[4];
        if (eb)
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++)
                e[v] = _mm256_load_ps(eb + (c * NV + v) * 8);
        else
            for (int v = 0; v < NV; v++)
                e[v] = smx_y_e(&ep[v], smx_y_ld(mk[v], xr + 8 * v));
        if (plain && full && al && NV % 2 == 0) { /* every line whole: streamed */
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++)
                _mm256_stream_ps(yr + 8 * v, _mm256_mul_ps(e[v], inv[v]));
        } else if (plain && full && !al) {
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++)
                _mm256_storeu_ps(yr + 8 * v, _mm256_mul_ps(e[v], inv[v]));
        } else if (plain) {
            for (int v = 0; v < NV; v++) {
                __m256 o = _mm256_mul_ps(e[v], inv[v]);
                if (st[v])
                    _mm256_stream_ps(yr + 8 * v, o);
                else
                    smx_y_st(yr + 8 * v, mk[v], o);
            }
        } else {
            float eo[32];
            for (int v = 0; v < NV; v++)
                _mm256_storeu_ps(eo + 8 * v, e[v]);
            for (int p = 0; p < 8 * NV; p++)
                if (mk[p / 8] >> (p % 8) & 1)
                    SMX_BLEND(yr[p], (double)eo[p] * f[p], alpha, beta);
        }
    }
}

/* A LANES unit of w lanes, ACCURATE / FAST (smx_z_fwd_lanes with 8-lane vectors). */
SMX_Y static void smx_y_fwd_lanes(const float *x, float *y, int64_t len, int64_t rst, int w, int nt,
                                  double alpha, double beta, float *restrict ebuf)
{
    float *eb = len * 16 <= SMX_CACHE ? ebuf : NULL;
    const int nvmax = !eb || len * 32 <= SMX_CACHE ? SMX_YNV : 2;
    int al = nt && (uintptr_t)y % 4 == 0 && rst % 16 == 0;
    const int sh = al ? (int)((uintptr_t)y / 4 % 16) : 0;
    const int64_t hi = sh + (int64_t)w;
    for (int64_t f0 = 0; f0 < hi; f0 += 8 * nvmax) {
        int nv = (int)((hi - f0 + 7) / 8);
        nv = nv < nvmax ? nv : nvmax;
        int mk[4];
        for (int v = 0; v < nv; v++) {
            int64_t s0 = f0 + 8 * v, a = sh - s0, b = hi - s0;
            a = a < 0 ? 0 : a;
            b = b > 8 ? 8 : b;
            mk[v] = ((1 << b) - 1) & ~((1 << a) - 1);
        }
        const float *xs = x - sh + f0;
        float *ys = y - sh + f0;
        switch (nv) {
        case 4:
            smx_y_lanes_nv(4, xs, ys, len, rst, mk, w, nt, al, alpha, beta, eb);
            break;
        case 3:
            smx_y_lanes_nv(3, xs, ys, len, rst, mk, w, nt, al, alpha, beta, eb);
            break;
        case 2:
            smx_y_lanes_nv(2, xs, ys, len, rst, mk, w, nt, al, alpha, beta, eb);
            break;
        default:
            smx_y_lanes_nv(1, xs, ys, len, rst, mk, w, nt, al, alpha, beta, eb);
            break;
        }
    }
}

/* smx_max on AVX2 (exact in any order; any NaN makes it NaN). */
SMX_YI float smx_y_max(const float *x, int64_t n, float *mn)
{
    __m256 m0 = _mm256_set1_ps(-INFINITY), m1 = m0, n0 = _mm256_set1_ps(INFINITY), n1 = n0;
    __m256 nan = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
        m0 = _mm256_max_ps(a, m0);
        m1 = _mm256_max_ps(b, m1);
        n0 = _mm256_min_ps(a, n0);
        n1 = _mm256_min_ps(b, n1);
        nan = _mm256_or_ps(nan, _mm256_cmp_ps(a, b, _CMP_UNORD_Q));
    }
    float mb[8], nb[8];
    _mm256_storeu_ps(mb, _mm256_max_ps(m0, m1));
    _mm256_storeu_ps(nb, _mm256_min_ps(n0, n1));
    int isnan_ = _mm256_movemask_ps(nan) != 0;
    float m = mb[0], l = nb[0];
    for (int j = 1; j < 8; j++)
        m = mb[j] > m ? mb[j] : m, l = nb[j] < l ? nb[j] : l;
    for (; i < n; i++) {
        float v = x[i];
        m = v > m ? v : m;
        l = v < l ? v : l;
        isnan_ |= v != v;
    }
    *mn = l;
    return isnan_ ? NAN : m;
}

/* The fold of smx_fold for the 16 partial sums in a0 (0-3), a1 (4-7), a2 (8-11), a3 (12-15). */
SMX_YI double smx_y_fold(__m256d a0, __m256d a1, __m256d a2, __m256d a3)
{
    __m256d a4 = _mm256_add_pd(_mm256_add_pd(a0, a2), _mm256_add_pd(a1, a3));
    __m128d b = _mm_add_pd(_mm256_castpd256_pd128(a4), _mm256_extractf128_pd(a4, 1));
    return _mm_cvtsd_f64(b) + _mm_cvtsd_f64(_mm_unpackhi_pd(b, b));
}

/* smx_expsum on AVX2: element i in partial sum i % 16, pairs (i, i + 16) added in float. e, when
 * not NULL, gets whole 32-element groups (the last one zero-padded: callers' buffers hold
 * SMX_CACHE, a multiple of 32). */
SMX_YI double smx_y_expsum_m(const int PIV, const float *restrict x, int64_t n, const smx_yep_t *ep,
                             float *restrict e)
{
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
    for (int64_t i = 0; i < n; i += 32) {
        __m256 v[4];
        if (i + 32 <= n) {
            /* the next row (or chunk) of a packed tensor into L2 meanwhile (smx_z_expsum) */
            __builtin_prefetch(x + n + i, 0, 2);
            __builtin_prefetch(x + n + i + 16, 0, 2);
            if (PIV) { /* four vectors in lockstep */
                const __m256 l4[4] = {ep->lo, ep->lo, ep->lo, ep->lo};
                const __m256 s4[4] = {ep->shr, ep->shr, ep->shr, ep->shr};
                __m256 xv[4];
                SMX_EACH(xv[u] = _mm256_loadu_ps(x + i + 8 * u));
                smx_y_piv64_4(xv, l4, s4, v);
            } else {
#pragma GCC unroll 4
                for (int j = 0; j < 4; j++)
                    v[j] = smx_y_em(PIV, ep, _mm256_loadu_ps(x + i + 8 * j));
            }
        } else { /* the last group, zero-padded */
            for (int j = 0; j < 4; j++) {
                int64_t left = n - i - 8 * j;
                int k = left >= 8 ? 0xff : left <= 0 ? 0 : (1 << left) - 1;
                __m256i km = smx_y_mask(k);
                v[j] = _mm256_and_ps(_mm256_castsi256_ps(km),
                                     smx_y_e(ep, _mm256_maskload_ps(x + i + 8 * j, km)));
            }
        }
        if (e)
            for (int j = 0; j < 4; j++)
                _mm256_storeu_ps(e + i + 8 * j, v[j]);
        smx_y_acc2(&a0, &a1, v[0], v[2]);
        smx_y_acc2(&a2, &a3, v[1], v[3]);
    }
    return smx_y_fold(a0, a1, a2, a3) * 0x1p-64;
}

SMX_YI double smx_y_expsum(const float *restrict x, int64_t n, const smx_yep_t *ep,
                           float *restrict e)
{
    return ep->mode == 1 ? smx_y_expsum_m(1, x, n, ep, e) : smx_y_expsum_m(0, x, n, ep, e);
}

/* y = e * invf (alpha 1, beta 0; streamed when nt), else smx_scale_out. */
SMX_YI void smx_y_scale_out(float *restrict e, float *y, int64_t n, double inv, double alpha,
                            double beta, int nt)
{
    if (alpha != 1.0 || beta != 0.0 || (nt && (uintptr_t)y % 32 != 0)) {
        smx_scale_out(e, y, n, inv, alpha, beta, nt);
        return;
    }
    const __m256 iv = _mm256_set1_ps((float)inv);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 o = _mm256_mul_ps(_mm256_loadu_ps(e + i), iv);
        if (nt)
            _mm256_stream_ps(y + i, o);
        else
            _mm256_storeu_ps(y + i, o);
    }
    for (; i < n; i++)
        y[i] = e[i] * (float)inv;
}

/* smx_fwd_row on AVX2 (same passes, same bits). */
SMX_Y static void smx_y_fwd_row(const float *x, float *y, int64_t n, int is_log, double alpha,
                                double beta, float *restrict ebuf, int nt)
{
    const int beta_nz = beta != 0.0;
    float m, mn;
    double sum, off = 0.0;
    const int cache = n <= SMX_CACHE && !is_log;
    if (n <= SMX_CACHE) {
        m = smx_y_max(x, n, &mn);
        const smx_ep_t c = smx_ep(m, mn);
        const smx_yep_t ep = smx_yep_row(&c);
        sum = smx_y_expsum(x, n, &ep, cache ? ebuf : NULL);
        off = c.off;
    } else {
        double mm = -INFINITY;
        sum = 0.0;
        for (int64_t i = 0; i < n; i += SMX_CACHE) {
            int64_t len = n - i < SMX_CACHE ? n - i : SMX_CACHE;
            float mc = smx_y_max(x + i, len, &mn);
            if (mc == -INFINITY)
                continue;
            const smx_ep_t c = smx_ep(mc, mn);
            const smx_yep_t ep = smx_yep_row(&c);
            double sc = smx_y_expsum(x + i, len, &ep, NULL);
            if (c.piv)
                sc *= exp(c.off);
            if (mc != mc || mm != mm) {
                mm = NAN;
            } else if (mc > mm) {
                sum = sum * exp(mm - mc) + sc;
                mm = mc;
            } else {
                sum += sc * exp(mc - mm);
            }
        }
        if (mm == -INFINITY)
            sum = NAN;
        m = (float)mm;
        if (m != m)
            sum = NAN;
    }
    if (is_log) {
        const double ls = log(sum) + off, md = m;
        if (alpha == 1.0 && !beta_nz) { /* in float: smx_log_out */
            const __m256 mv = _mm256_set1_ps(m), lsv = _mm256_set1_ps((float)ls);
            const float lsf = (float)ls;
            const int st = nt && (uintptr_t)y % 32 == 0;
            int64_t i = 0;
            for (; i + 8 <= n; i += 8) {
                __m256 o = _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), mv), lsv);
                if (st)
                    _mm256_stream_ps(y + i, o);
                else
                    _mm256_storeu_ps(y + i, o);
            }
            for (; i < n; i++)
                y[i] = (x[i] - m) - lsf;
        } else {
            for (int64_t i = 0; i < n; i++) {
                double v = ((double)x[i] - md) - ls;
                SMX_BLEND(y[i], v, alpha, beta);
            }
        }
    } else if (cache) {
        smx_y_scale_out(ebuf, y, n, 0x1p-64 / sum, alpha, beta, nt);
    } else {
        const double inv = 0x1p-64 / sum;
        const __m256 mv = _mm256_set1_ps(m), nm = _mm256_set1_ps(-m);
        float b[SMX_BLK];
        for (int64_t i = 0; i < n; i += SMX_BLK) {
            int len = (int)(n - i < SMX_BLK ? n - i : SMX_BLK);
            int j = 0;
            for (; j + 8 <= len; j += 8)
                _mm256_storeu_ps(b + j, smx_y_exp64(_mm256_loadu_ps(x + i + j), mv, nm));
            for (; j < len; j++)
                b[j] = fd_vexpf_diff64(x[i + j], m);
            smx_y_scale_out(b, y + i, len, inv, alpha, beta, nt);
        }
    }
}

/* Eight dense rows of at most 8 NV elements (ACCURATE / FAST, alpha 1, beta 0: NHWC CHANNEL),
 * each with smx_fwd_row's operations and sums (same bits), in passes over the eight rows
 * (maxima; exps and partial sums; the eight divisions as two vectors; outputs) whose steps are
 * independent across rows: one row alone is a chain of dependent steps longer than the
 * out-of-order window (smx_z_rows16_nv). nt: y streamed; the caller only sets it when every row
 * starts a 64-byte line and n % 16 == 0. */
/* out[r] = the maximum (mn: minimum) of the 8 lanes of b[SMX_YSL(r)]... for the 8 rows at once:
 * slot s holds row SMX_YSL(s) so that lane r of the result is row r (max and min are exact in
 * any order). */
#define SMX_YSL(s) ((s) % 2 ? 4 + (s) / 2 : (s) / 2)
SMX_YI __m256 smx_y_mm(__m256 a, __m256 b, int mn)
{
    return mn ? _mm256_min_ps(a, b) : _mm256_max_ps(a, b);
}

SMX_YI __m256 smx_y_tr8(const __m256 *b, int mn)
{
    __m256 t[4], u[2];
    for (int i = 0; i < 4; i++) {
        __m256 p = b[SMX_YSL(2 * i)], q = b[SMX_YSL(2 * i + 1)];
        t[i] = smx_y_mm(_mm256_permute2f128_ps(p, q, 0x20), _mm256_permute2f128_ps(p, q, 0x31), mn);
    }
    for (int i = 0; i < 2; i++)
        u[i] = smx_y_mm(_mm256_shuffle_ps(t[2 * i], t[2 * i + 1], 0x44),
                        _mm256_shuffle_ps(t[2 * i], t[2 * i + 1], 0xEE), mn);
    return smx_y_mm(_mm256_shuffle_ps(u[0], u[1], 0x88), _mm256_shuffle_ps(u[0], u[1], 0xDD), mn);
}

SMX_YI void smx_y_rows8_nv(const int NV, const int FULL, const float *const *xs, float *const *ys,
                           int64_t n, int nt)
{
    float eb[8][128] __attribute__((aligned(32)));
    double db[8][4] __attribute__((aligned(32)));
    float iv[8], m8[8], nm8[8], lo8[8], sh8[8];
    __m256 mb[8], nb[8];
    int mk[16], nanr = 0;
    for (int i = 0; i < NV; i++) {
        int64_t left = n - 8 * i;
        mk[i] = FULL || left >= 8 ? 0xff : (1 << left) - 1;
    }
    const __m256 ninf = _mm256_set1_ps(-INFINITY), pinf = _mm256_set1_ps(INFINITY);
    for (int r = 0; r < 8; r++) { /* vertical maxima (NaN flagged, as smx_max) and minima */
        __m256 m = ninf, mn = pinf, nan = _mm256_setzero_ps();
        for (int i = 0; i < NV; i++) {
            __m256 a = FULL ? _mm256_loadu_ps(xs[r] + 8 * i) : smx_y_ld(mk[i], xs[r] + 8 * i);
            if (!FULL && mk[i] != 0xff) {
                __m256 k = _mm256_castsi256_ps(smx_y_mask(mk[i]));
                m = _mm256_max_ps(_mm256_blendv_ps(ninf, a, k), m);
                mn = _mm256_min_ps(_mm256_blendv_ps(pinf, a, k), mn);
            } else {
                m = _mm256_max_ps(a, m);
                mn = _mm256_min_ps(a, mn);
            }
            nan = _mm256_or_ps(nan, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
        }
        mb[r] = m, nb[r] = mn;
        nanr |= (_mm256_movemask_ps(nan) != 0) << r;
    }
    /* the eight rows' smx_ep at once (smx_yep's operations are smx_ep's, lane by lane); a row
     * with a NaN gets the NaN maximum of smx_max */
    __m256 mx = smx_y_tr8(mb, 0);
    const __m256 mnv = smx_y_tr8(nb, 1);
    mx = _mm256_blendv_ps(mx, _mm256_set1_ps(NAN), _mm256_castsi256_ps(smx_y_mask(nanr)));
    const smx_yep_t e8 = smx_yep(mx, _mm256_cmp_ps(mnv, mx, _CMP_LT_OQ), 0xff);
    const int pv = _mm256_movemask_ps(e8.pv);
    _mm256_storeu_ps(m8, e8.m);
    _mm256_storeu_ps(nm8, e8.nm);
    _mm256_storeu_ps(lo8, e8.lo);
    _mm256_storeu_ps(sh8, e8.shr);
    for (int r = 0; r < 8; r++) {       /* exps and the row's partial sums, folded to a4 */
        for (int i = 0; i < NV; i += 2) /* packed rows: the batch after next (smx_z_rows16_nv) */
            __builtin_prefetch(xs[r] + 16 * n + 8 * i, 0, 3);
        __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
        __m256 v[16];
        if (pv >> r & 1) {
            const __m256 lv = _mm256_set1_ps(lo8[r]), sv = _mm256_set1_ps(sh8[r]);
            const __m256 l4[4] = {lv, lv, lv, lv}, s4[4] = {sv, sv, sv, sv};
            int i = 0;
            for (; i + 4 <= NV; i += 4) { /* four vectors in lockstep */
                __m256 xv[4];
                SMX_EACH(xv[u] = FULL ? _mm256_loadu_ps(xs[r] + 8 * (i + u))
                                      : smx_y_ld(mk[i + u], xs[r] + 8 * (i + u)));
                smx_y_piv64_4(xv, l4, s4, v + i);
            }
#pragma GCC unroll 4
            for (; i < NV; i++)
                v[i] = smx_y_piv64(
                    FULL ? _mm256_loadu_ps(xs[r] + 8 * i) : smx_y_ld(mk[i], xs[r] + 8 * i), lv, sv);
        } else {
            const __m256 mv = _mm256_set1_ps(m8[r]), nm = _mm256_set1_ps(nm8[r]);
            for (int i = 0; i < NV; i++)
                v[i] = smx_y_exp64(smx_y_ld(mk[i], xs[r] + 8 * i), mv, nm);
        }
#pragma GCC unroll 16
        for (int i = 0; i < NV; i++) {
            if (!FULL && mk[i] != 0xff)
                v[i] = _mm256_and_ps(_mm256_castsi256_ps(smx_y_mask(mk[i])), v[i]);
            _mm256_store_ps(eb[r] + 8 * i, v[i]);
        }
        const __m256 z = _mm256_setzero_ps();
#pragma GCC unroll 4
        for (int g = 0; g < NV; g += 4) { /* 32-element groups: (i, i + 16) in float */
            smx_y_acc2(&a0, &a1, v[g], g + 2 < NV ? v[g + 2] : z);
            if (g + 1 < NV)
                smx_y_acc2(&a2, &a3, v[g + 1], g + 3 < NV ? v[g + 3] : z);
        }
        _mm256_store_pd(db[r], _mm256_add_pd(_mm256_add_pd(a0, a2), _mm256_add_pd(a1, a3)));
    }
    for (int h = 0; h < 2; h++) { /* rows 4h .. 4h + 3: b = a4[0..1] + a4[2..3], b0 + b1 */
        __m256d p0 = _mm256_load_pd(db[4 * h]), p1 = _mm256_load_pd(db[4 * h + 1]);
        __m256d p2 = _mm256_load_pd(db[4 * h + 2]), p3 = _mm256_load_pd(db[4 * h + 3]);
        __m256d b01 = _mm256_add_pd(_mm256_permute2f128_pd(p0, p1, 0x20),
                                    _mm256_permute2f128_pd(p0, p1, 0x31));
        __m256d b23 = _mm256_add_pd(_mm256_permute2f128_pd(p2, p3, 0x20),
                                    _mm256_permute2f128_pd(p2, p3, 0x31));
        __m256d s = _mm256_hadd_pd(b01, b23); /* rows 0, 2, 1, 3 of the four */
        const __m256d k64 = _mm256_set1_pd(0x1p-64);
        __m256d q = _mm256_div_pd(k64, _mm256_mul_pd(s, k64));
        __m128 qf = _mm256_cvtpd_ps(q);
        float t[4];
        _mm_storeu_ps(t, qf);
        iv[4 * h] = t[0], iv[4 * h + 1] = t[2], iv[4 * h + 2] = t[1], iv[4 * h + 3] = t[3];
    }
    for (int r = 0; r < 8; r++) {
        const __m256 ivr = _mm256_set1_ps(iv[r]);
#pragma GCC unroll 16
        for (int i = 0; i < NV; i++) {
            __m256 o = _mm256_mul_ps(_mm256_load_ps(eb[r] + 8 * i), ivr);
            if (nt)
                _mm256_stream_ps(ys[r] + 8 * i, o);
            else if (FULL)
                _mm256_storeu_ps(ys[r] + 8 * i, o);
            else
                smx_y_st(ys[r] + 8 * i, mk[i], o);
        }
    }
}

__attribute__((noinline)) SMX_Y static void smx_y_rows8(const float *const *xs, float *const *ys,
                                                        int64_t n, int nt)
{
    switch ((n + 7) / 8) {
#define SMX_Y_R8(nv)                                                                               \
    case nv:                                                                                       \
        if (n % 8 == 0)                                                                            \
            smx_y_rows8_nv(nv, 1, xs, ys, n, nt);                                                  \
        else                                                                                       \
            smx_y_rows8_nv(nv, 0, xs, ys, n, nt);                                                  \
        break;
        SMX_Y_R8(1)
        SMX_Y_R8(2)
        SMX_Y_R8(3)
        SMX_Y_R8(4)
        SMX_Y_R8(5)
        SMX_Y_R8(6)
        SMX_Y_R8(7)
        SMX_Y_R8(8)
        SMX_Y_R8(9)
        SMX_Y_R8(10)
        SMX_Y_R8(11)
        SMX_Y_R8(12)
        SMX_Y_R8(13)
        SMX_Y_R8(14)
        SMX_Y_R8(15)
    default:
        if (n % 8 == 0)
            smx_y_rows8_nv(16, 1, xs, ys, n, nt);
        else
            smx_y_rows8_nv(16, 0, xs, ys, n, nt);
        break;
#undef SMX_Y_R8
    }
}

SMX_Y static void smx_fwd_unit_y(const smx_plan_t *s, const fd_softmax_fwd_args_t *a, int is_log,
                                 int64_t u)
{
    float ebuf[SMX_CACHE] __attribute__((aligned(32)));
    const float *x = a->x;
    float *y = a->y;
    if (s->kind == SMX_ROWS) {
        int64_t o1 = (u + 1) * s->per < s->outer ? (u + 1) * s->per : s->outer, o = u * s->per;
        const int nt = s->nt;
        if (!is_log && a->alpha == 1.0 && a->beta == 0.0 && s->len <= 128) {
            const float *xs[8];
            float *ys[8];
            int64_t off[8];
            for (; o + 8 <= o1; o += 8) {
                smx_outer_offs(s, o, 8, off);
                for (int r = 0; r < 8; r++)
                    xs[r] = x + off[r], ys[r] = y + off[r];
                smx_y_rows8(xs, ys, s->len, nt);
            }
        }
        for (; o < o1; o++) {
            int64_t off = smx_outer_off(s, o);
            smx_y_fwd_row(x + off, y + off, s->len, is_log, a->alpha, a->beta, ebuf, nt);
        }
    } else if (is_log) {
        smx_fwd_unit(s, a, is_log, u);
        return;
    } else {
        int64_t o = u / s->per, p0 = (u % s->per) * s->w;
        int w = (int)(s->lanes - p0 < s->w ? s->lanes - p0 : s->w);
        int64_t off = smx_outer_off(s, o) + p0;
        smx_y_fwd_lanes(x + off, y + off, s->len, s->rst, w, s->nt, a->alpha, a->beta, ebuf);
    }
    if (s->nt)
        _mm_sfence();
}

/* fd_vexpf on 8 lanes (the backward LOG's exp(y)): the clamps, the reduction and the two-factor
 * 2^k of fd_vexpf_m / fd_vexpf_core, operation for operation (the + lo of a zero lo is kept:
 * it turns a -0 r into +0, which the polynomial maps to 1 either way). */
SMX_YI __m256 smx_y_expf(__m256 x)
{
    const __m256 shift = _mm256_set1_ps(0x1.8p23f);
    __m256 xc = _mm256_max_ps(_mm256_set1_ps(-104.0f), x); /* x < -104 ? -104 : x, NaN kept */
    xc = _mm256_min_ps(_mm256_set1_ps(89.0f), xc);         /* xc > 89 ? 89 : xc, NaN kept */
    __m256 t = _mm256_fmadd_ps(xc, _mm256_set1_ps(0x1.715476p0f), shift);
    __m256 k = _mm256_sub_ps(t, shift);
    __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0x1.62e400p-1f), xc);
    r = _mm256_add_ps(_mm256_fnmadd_ps(k, _mm256_set1_ps(0x1.7f7d1cp-20f), r), _mm256_setzero_ps());
    __m256 p = smx_y_poly(r);
    __m256i ki = _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_set1_epi32(0x4B400000));
    __m256i k1 = _mm256_srai_epi32(ki, 1), k2 = _mm256_sub_epi32(ki, k1);
    const __m256i b127 = _mm256_set1_epi32(127);
    __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k1, b127), 23));
    __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k2, b127), 23));
    return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
}

/* (double) lanes 0-3 and 4-7 of a. */
SMX_YI __m256d smx_y_dlo(__m256 a)
{
    return _mm256_cvtps_pd(_mm256_castps256_ps128(a));
}

SMX_YI __m256d smx_y_dhi(__m256 a)
{
    return _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1));
}

/* (float)((double)y * ((double)g - s)) for 8 lanes (the ACCURATE backward, alpha 1, beta 0). */
SMX_YI __m256 smx_y_bacc(__m256 y, __m256 g, __m256d slo, __m256d shi)
{
    __m128 lo = _mm256_cvtpd_ps(_mm256_mul_pd(smx_y_dlo(y), _mm256_sub_pd(smx_y_dlo(g), slo)));
    __m128 hi = _mm256_cvtpd_ps(_mm256_mul_pd(smx_y_dhi(y), _mm256_sub_pd(smx_y_dhi(g), shi)));
    return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}

/* smx_bwd_row on AVX2 for alpha 1, beta 0 (same sums, same bits; others: the C). */
SMX_Y static void smx_y_bwd_row(const float *y, const float *g, float *dx, int64_t n, int is_log,
                                double alpha, double beta)
{
    if (alpha != 1.0 || beta != 0.0) {
        smx_bwd_row(y, g, dx, n, is_log, alpha, beta);
        return;
    }
    /* element i in partial sum i % 16: a0 0-3, a1 4-7, a2 8-11, a3 12-15 (masked lanes add
     * +0, which leaves a sum unchanged: no sum is -0) */
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
    for (int64_t i = 0; i < n; i += 16) {
        __m256 g0, g1, y0 = _mm256_setzero_ps(), y1 = y0;
        if (i + 16 <= n) {
            g0 = _mm256_loadu_ps(g + i), g1 = _mm256_loadu_ps(g + i + 8);
            if (!is_log)
                y0 = _mm256_loadu_ps(y + i), y1 = _mm256_loadu_ps(y + i + 8);
        } else {
            int64_t l0 = n - i, l1 = n - i - 8;
            const int k0 = l0 >= 8 ? 0xff : (1 << l0) - 1, k1 = l1 <= 0 ? 0 : (1 << l1) - 1;
            g0 = smx_y_ld(k0, g + i), g1 = smx_y_ld(k1, g + i + 8);
            if (!is_log)
                y0 = smx_y_ld(k0, y + i), y1 = smx_y_ld(k1, y + i + 8);
        }
        if (is_log) {
            a0 = _mm256_add_pd(a0, smx_y_dlo(g0)), a1 = _mm256_add_pd(a1, smx_y_dhi(g0));
            a2 = _mm256_add_pd(a2, smx_y_dlo(g1)), a3 = _mm256_add_pd(a3, smx_y_dhi(g1));
        } else {
            a0 = _mm256_add_pd(a0, _mm256_mul_pd(smx_y_dlo(g0), smx_y_dlo(y0)));
            a1 = _mm256_add_pd(a1, _mm256_mul_pd(smx_y_dhi(g0), smx_y_dhi(y0)));
            a2 = _mm256_add_pd(a2, _mm256_mul_pd(smx_y_dlo(g1), smx_y_dlo(y1)));
            a3 = _mm256_add_pd(a3, _mm256_mul_pd(smx_y_dhi(g1), smx_y_dhi(y1)));
        }
    }
    const double sum = smx_y_fold(a0, a1, a2, a3);
    int64_t i = 0;
    if (is_log) { /* dx = fmaf(-exp(y), (float)sum, dy): smx_bwd_row */
        const __m256 sf = _mm256_set1_ps((float)sum);
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(dx + i, _mm256_fnmadd_ps(smx_y_expf(_mm256_loadu_ps(y + i)), sf,
                                                      _mm256_loadu_ps(g + i)));
        for (; i < n; i++)
            dx[i] = fmaf(-fd_vexpf(y[i]), (float)sum, g[i]);
    } else {
        const __m256d sv = _mm256_set1_pd(sum);
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(dx + i,
                             smx_y_bacc(_mm256_loadu_ps(y + i), _mm256_loadu_ps(g + i), sv, sv));
        for (; i < n; i++)
            dx[i] = (float)((double)y[i] * ((double)g[i] - sum));
    }
}

/* smx_bwd_lanes on AVX2 for alpha 1, beta 0 (each lane's sum in canonical order, as the C;
 * others: the C). */
SMX_Y static void smx_y_bwd_lanes(const float *y, const float *g, float *dx, int64_t len,
                                  int64_t rst, int w, int is_log, double alpha, double beta, int nt)
{
    if (alpha != 1.0 || beta != 0.0) {
        smx_bwd_lanes(y, g, dx, len, rst, w, is_log, alpha, beta, nt);
        return;
    }
    double sum[SMX_WB] __attribute__((aligned(32)));
    float ob[SMX_WB] __attribute__((aligned(32)));
    const int wv = w / 8 * 8, kt = (1 << (w - wv)) - 1; /* whole vectors, the tail's mask */
    for (int p = 0; p < w; p += 4)
        _mm256_store_pd(sum + p, _mm256_setzero_pd());
    for (int64_t c = 0; c < len; c++) {
        const float *yr = y + c * rst, *gr = g + c * rst;
        smx_bwd_prefetch(yr, gr, dx + c * rst, w, is_log, nt);
        for (int p = 0; p < w; p += 8) {
            const int k = p < wv ? 0xff : kt;
            __m256 gv = smx_y_ld(k, gr + p);
            __m256d lo = smx_y_dlo(gv), hi = smx_y_dhi(gv);
            if (!is_log) {
                __m256 yv = smx_y_ld(k, yr + p);
                lo = _mm256_mul_pd(lo, smx_y_dlo(yv));
                hi = _mm256_mul_pd(hi, smx_y_dhi(yv));
            }
            _mm256_store_pd(sum + p, _mm256_add_pd(_mm256_load_pd(sum + p), lo));
            _mm256_store_pd(sum + p + 4, _mm256_add_pd(_mm256_load_pd(sum + p + 4), hi));
        }
    }
    float sf[SMX_WB] __attribute__((aligned(32)));
    if (is_log)
        for (int p = 0; p < w; p += 8)
            _mm256_store_ps(sf + p,
                            _mm256_insertf128_ps(
                                _mm256_castps128_ps256(_mm256_cvtpd_ps(_mm256_load_pd(sum + p))),
                                _mm256_cvtpd_ps(_mm256_load_pd(sum + p + 4)), 1));
    for (int64_t c = 0; c < len; c++) {
        const float *yr = y + c * rst, *gr = g + c * rst;
        float *dr = dx + c * rst, *o = nt ? ob : dr;
        for (int p = 0; p < w; p += 8) {
            const int k = p < wv ? 0xff : kt;
            __m256 yv = smx_y_ld(k, yr + p), gv = smx_y_ld(k, gr + p), r;
            if (is_log)
                r = _mm256_fnmadd_ps(smx_y_expf(yv), _mm256_load_ps(sf + p), gv);
            else
                r = smx_y_bacc(yv, gv, _mm256_load_pd(sum + p), _mm256_load_pd(sum + p + 4));
            if (nt)
                _mm256_store_ps(ob + p, r);
            else
                smx_y_st(o + p, k, r);
        }
        if (nt)
            fd_cpu_stream(dr, ob, (size_t)w * sizeof(float));
    }
}

SMX_Y static void smx_bwd_unit_y(const smx_plan_t *s, const fd_softmax_bwd_args_t *a, int is_log,
                                 int64_t u)
{
    smx_bwd_unit_k(s, a, is_log, u, smx_y_bwd_row, smx_y_bwd_lanes);
}

/* 0 when FREEDNN_CPU_SMX_AVX2_C=1: the AVX2 level runs the C above instead of the smx_y_
 * kernels (the tests compare their bits). */
static int smx_y_on(void)
{
    const char *c = getenv("FREEDNN_CPU_SMX_AVX2_C");
    return !c || strcmp(c, "1") != 0;
}
#endif

/* 2 AVX-512, 1 AVX2 + FMA, 0 neither: then the f32 path is not taken (without a vector FMA
 * the exp's fmaf calls cost more than libm's exp), and FLOAT gets the ref's bits below. */
static int smx_isa(void)
{
    const char *cap = getenv("FREEDNN_CPU_ISA");
    int limit = !cap ? 2 : strcmp(cap, "generic") == 0 ? 0 : strcmp(cap, "avx2") == 0 ? 1 : 2;
#ifdef SMX_X86
    __builtin_cpu_init();
    if (limit >= 2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        return 2;
    if (limit >= 1 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return 1;
#else
    (void)limit;
#endif
    return 0;
}

/* 1 when the forward f32 path should stream y: ACCURATE / FAST written as e * (1 / sum) (alpha
 * = 1, beta = 0), an output of FD_CPU_NT_MIN bytes or more (smaller ones stay in the cache for
 * their reader), sharing no byte with x (the f32 path's tensors have identical strides, so one
 * span serves both). A written line then costs no read for ownership: 8 bytes of traffic per
 * element instead of 12. Same bits. (LOG, written from x, keeps ordinary stores: the caller
 * checks.) */
static int smx_nt_span(const struct cudnnTensorStruct *t, const void *out, const void *in)
{
    size_t span = 1;
    for (int d = 0; d < t->nb_dims; d++)
        span += (size_t)(t->dim[d] - 1) * (size_t)t->stride[d];
    span *= sizeof(float);
    const uintptr_t y = (uintptr_t)out, x = (uintptr_t)in;
    return span >= FD_CPU_NT_MIN && (y >= x + span || x >= y + span);
}

static int smx_nt_want(const struct cudnnTensorStruct *const *t, const fd_softmax_fwd_args_t *a)
{
    if (a->alpha != 1.0 || a->beta != 0.0)
        return 0;
    return smx_nt_span(t[0], a->y, a->x);
}

/* 0 when the f32 path does not run here (no AVX2 + FMA). */
static int smx_fwd(const smx_plan_t *s, const fd_softmax_fwd_args_t *a, int is_log)
{
#ifdef SMX_X86
    int isa = smx_isa();
    if (isa == 0)
        return 0;
    smx_fwd_fn fn = isa == 2 ? smx_fwd_unit_z : smx_y_on() ? smx_fwd_unit_y : smx_fwd_unit_avx2;
#pragma omp parallel for schedule(static) if (s->n >= FD_CPU_PAR_MIN && s->units > 1)
    for (int64_t u = 0; u < s->units; u++)
        fn(s, a, is_log, u);
    return 1;
#else
    (void)s, (void)a, (void)is_log;
    return 0;
#endif
}

static int smx_bwd(const smx_plan_t *s, const fd_softmax_bwd_args_t *a, int is_log)
{
#ifdef SMX_X86
    int isa = smx_isa();
    if (isa == 0)
        return 0;
    smx_bwd_fn fn = isa == 2     ? smx_bwd_unit_avx512
                    : smx_y_on() ? smx_bwd_unit_y
                                 : smx_bwd_unit_avx2;
#pragma omp parallel for schedule(static) if (s->n >= FD_CPU_PAR_MIN && s->units > 1)
    for (int64_t u = 0; u < s->units; u++)
        fn(s, a, is_log, u);
    return 1;
#else
    (void)s, (void)a, (void)is_log;
    return 0;
#endif
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
    smx_plan_t f;
    if (smx_plan(&f, t, 2, p->mode)) {
        /* LOG streams only rows longer than SMX_CACHE (x is then read again from L3 after
         * the chunked sums either way): n8c64h112w112 INSTANCE 2.3-2.4 -> 2.1-2.3 ms,
         * 2026-12-01; shorter LOG rows measured slower streamed (2026-11-30) */
        f.nt = (p->algo != CUDNN_SOFTMAX_LOG || f.len > SMX_CACHE) && smx_nt_want(t, a);
        /* short rows stream only where every row starts a line: an unaligned row's two partial
         * lines (streamed per row, or a unit's rows staged and streamed as one span) measured
         * 1.2-1.5x slower than ordinary stores (NHWC n8c64h112w112, 2026-11-30, seventh
         * session; the AVX2 path's 16-byte streams alike) */
        if (f.kind == SMX_ROWS && f.len < 1024 &&
            !((uintptr_t)a->y % 64 == 0 && f.len % 16 == 0 && smx_packed(&f)))
            f.nt = 0;
        if (smx_fwd(&f, a, p->algo == CUDNN_SOFTMAX_LOG))
            return CUDNN_STATUS_SUCCESS;
    }
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
    smx_plan_t f;
    if (smx_plan(&f, t, 3, p->mode)) {
        /* ACCURATE / FAST LANES (NCHW CHANNEL) stream dx when it shares no byte with y or dy:
         * no read for ownership of dx (12 bytes of traffic per element instead of 16), and
         * the unit's y and dy stay in L2 for the second pass: n8c64h112w112 3.2 -> 2.4-2.6
         * ms (2026-12-01, eighth session; the earlier try of 2026-12-01 measured wall times
         * on a loaded machine). LOG rows (INSTANCE) measured slower streamed (2.6 -> 3.2). */
        f.nt = f.kind == SMX_LANES && p->algo != CUDNN_SOFTMAX_LOG && a->alpha == 1.0 &&
               a->beta == 0.0 && smx_nt_span(t[0], a->dx, a->y) && smx_nt_span(t[0], a->dx, a->dy);
        if (smx_bwd(&f, a, p->algo == CUDNN_SOFTMAX_LOG))
            return CUDNN_STATUS_SUCCESS;
    }
    sm_plan_t s;
    plan(&s, t, 3, p->mode, 0);
    const int64_t units = s.others * s.chunks;
#pragma omp parallel for schedule(static) if (s.n >= FD_CPU_PAR_MIN && units > 1)
    for (int64_t u = 0; u < units; u++)
        bwd_unit(&s, p, a, u);
    return CUDNN_STATUS_SUCCESS;
}
