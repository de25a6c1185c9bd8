/* SPDX-License-Identifier: MIT */
/*
 * tensor_ops_cpu.c - cpu rows of the elementwise tensor utilities: cudnnAddTensor,
 * cudnnOpTensor, cudnnSetTensor, cudnnScaleTensor, and cudnnTransformTensor when it is a plain
 * copy (no fold, no padding: a layout change such as NCHW <-> NHWC, with alpha / beta).
 *
 * Everything goes through memop.h's strided engine: broadcast operands get stride 0 along the
 * dims where they are 1, so a bias add is a row with increment 0 and a packed tensor is one
 * long row. Values are the ref's bit for bit (double arithmetic in the ref's order, one
 * rounding). Declined (the ref row serves them): integer and vectorised int8 types, folds and
 * paddings of the transform, negative strides. No workspace; thread-count independent.
 * Outputs of FD_CPU_NT_MIN bytes or more written with beta = 0 (OpTensor, AddTensor and
 * TransformTensor with beta = 0; not SetTensor) use streaming stores when they overlap no input
 * (memop.h): the bits are the same, the output lines are not read first. FLOAT OpTensor blocks
 * go out in whole 64-byte lines on AVX-512 (fd_cpu_stream_z, as the activation rows; 2026-12-01,
 * MAX with a per-channel operand, n8c64h112w112 one thread, thread CPU time: NCHW 1.82 -> 1.67
 * ms, NHWC 1.62 -> 1.49 ms). FLOAT MIN / MAX with alpha1 = alpha2 = 1, beta = 0 on AVX-512
 * go from registers to the output (op_minmax_avx512: no stack block, 64-byte streaming stores
 * from the output's first line boundary; 2026-12-01, MAX with a per-channel operand,
 * n8c64h112w112, one thread, dnnbench median against main back to back: NCHW 1.99-2.08 ->
 * 1.28-1.35 ms, NHWC 1.99-2.10 -> 1.41-1.51 ms, 0.57-0.60 -> 0.79-0.93 of 43.2 GB/s; same bits). A
 * FLOAT ADD / MUL / MIN / MAX with alpha1 = alpha2 = 1, beta = 0 on a CPU with AVX2 and no
 * AVX-512 are memop.h's float maps (op_map8; 2026-12-04, NCHW n8c64h112w112, two threads,
 * dnnbench median: MUL 1.5-2.5 -> 1.17-1.27 ms, MAX per channel 1.93 -> 1.08, MIN 1.66 -> 1.25;
 * same bits). A
 * TransformTensor of FLOAT whose input has a unit-stride dim other than the output's innermost one
 * (NCHW <-> NHWC) copies in 32 x 32 tiles (transpose_run). AddTensor / OpTensor with an operand
 * that repeats every row of packed tensors (NHWC with a 1xCx1x1 bias or per-channel operand) run as
 * flat runs over a replicated copy of that row (bcast_rows_run): same values, long runs.
 * FLOAT AddTensor without streaming stores blends in registers (add_run_f32: the same
 * operations, no double block; 2026-12-04, a per-channel bias on NCHW n8c64h112w112, two
 * threads, dnnbench median: 3.0-3.6 -> 1.8-2.0 ms on the 2-vCPU Xeon; same bits).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3,fp-contract=off,no-trapping-math") /* value-neutral: selects vectorise */
#endif
#include <stdlib.h>

#include "../core/tensor_ops.h"
#include "memop.h"
#include "vmath.h"

static int view_ok(const fd_tview_t *v, char *why, size_t why_size)
{
    if (v->vect > 1 || !fd_cpu_dtype_ok(v->dtype)) {
        snprintf(why, why_size, "%s%s stays with ref", fd_dtype_name(v->dtype),
                 v->vect > 1 ? " (vectorised layout)" : "");
        return 0;
    }
    return 1;
}

/* Strides of v over out's dims, 0 where v broadcasts (its dim is 1). */
static void bcast_strides(const fd_tview_t *v, const fd_tview_t *out, int64_t *s)
{
    for (int d = 0; d < out->nb_dims; d++)
        s[d] = v->dim[d] == 1 ? 0 : v->stride[d];
}

typedef struct {
    cudnnDataType_t dt[3];
    double alpha, alpha2, beta;
    cudnnOpTensorOp_t op;
    int propagate;
    double value;
    int nt;     /* streaming stores (fd_cpu_nt_want) */
    int avx512; /* sqrt_block's path */
    int z;      /* FLOAT blocks streamed with 64-byte stores (fd_cpu_stream_z) */
    int avx512mm; /* FLOAT MIN / MAX, alpha1 = alpha2 = 1, beta = 0: op_minmax_avx512 */
    int map8;     /* FLOAT ADD / MUL / MIN / MAX, alpha1 = alpha2 = 1, beta = 0 on AVX2: op_map8 */
} ew_ctx_t;

/* ---- a broadcast operand that repeats every row (NHWC bias, per-channel op) ---------------- */

#define BR_REP 4096 /* elements of the replicated broadcast operand: 4096 doubles at most */

/* The engine's plan of an NHWC tensor with a 1xCx1x1 operand merges to rows of C (the operand
 * has stride 0 across rows, 1 along them), and the engine would call fn once per row of C
 * elements (64 floats: the per-call costs dominated, 0.15 of the bandwidth). When every tensor
 * but bt is packed row after row (row stride = row length, unit stride) and bt repeats
 * (row stride 0), the rows are one flat run: bt's row is copied k times into a stack buffer
 * (k C <= BR_REP) and fn is called over runs of FD_CPU_BLK elements of the flat tensors with
 * the matching piece of the copy, the same calls as a packed full-size operand. Values are the
 * engine's: fn sees the same elements, only in longer runs. Units of whole repetitions (k C
 * elements, or more of them up to FD_CPU_UNIT) are split over threads: elementwise, any thread
 * count gives the same bits. Returns 0 (nothing done) when the pattern does not apply. */
static int bcast_rows_run(const fd_cpu_ew_t *e, char *const *base, int bt, fd_cpu_ew_fn fn,
                          const void *ctx)
{
    if (e->nd != 2)
        return 0;
    const int64_t D = e->dim[1], rows = e->dim[0];
    if (D > BR_REP / 2 || e->st[bt][0] != 0)
        return 0;
    for (int t = 0; t < e->nt; t++)
        if (t != bt && (e->st[t][1] != 1 || e->st[t][0] != D))
            return 0;
    const int64_t k = BR_REP / D, L = k * D;
    const size_t esz = e->esz[bt];
    double rep[BR_REP]; /* room for BR_REP elements of any dtype (8 bytes at most) */
    char *r = (char *)rep;
    for (int64_t j = 0; j < D; j++)
        memcpy(r + (size_t)j * esz, base[bt] + (size_t)(j * e->st[bt][1]) * esz, esz);
    for (int64_t i = 1; i < k; i++)
        memcpy(r + (size_t)(i * D) * esz, r, (size_t)D * esz);
    /* a unit: whole repetitions, about FD_CPU_UNIT elements (one sfence per unit) */
    const int64_t U = L * (FD_CPU_UNIT / L > 1 ? FD_CPU_UNIT / L : 1);
    const int64_t n = rows * D, units = (n + U - 1) / U;
    int64_t inc[FD_CPU_MAXT];
    for (int t = 0; t < e->nt; t++)
        inc[t] = 1;
#pragma omp parallel for schedule(static) if (n >= FD_CPU_PAR_MIN)
    for (int64_t u = 0; u < units; u++) {
        const int64_t u1 = (u + 1) * U < n ? (u + 1) * U : n;
        for (int64_t r0 = u * U; r0 < u1; r0 += L) { /* one repetition of the row copy */
            const int64_t r1 = r0 + L < u1 ? r0 + L : u1;
            for (int64_t c = r0; c < r1; c += FD_CPU_BLK) {
                const int len = (int)(r1 - c < FD_CPU_BLK ? r1 - c : FD_CPU_BLK);
                char *ptr[FD_CPU_MAXT];
                for (int t = 0; t < e->nt; t++)
                    ptr[t] = t == bt ? r + (size_t)(c - r0) * esz : base[t] + (size_t)c * e->esz[t];
                fn(ctx, len, ptr, inc);
            }
        }
#ifdef FD_CPU_X86
        _mm_sfence(); /* streaming stores of this unit, before the loop's barrier */
#endif
    }
    return 1;
}

/* ---- AddTensor / plain TransformTensor: out = alpha * in + beta * out -------------------- */

static void copy_run(const void *ctx, int len, char *const *ptr, const int64_t *inc)
{
    const ew_ctx_t *c = ctx;
    double v[FD_CPU_BLK];
    fd_cpu_load(c->dt[1], ptr[1], inc[1], len, v);
    fd_cpu_store_ex(c->dt[0], ptr[0], inc[0], len, v, c->alpha, c->beta, c->nt);
}

/* AddTensor on FLOAT c and a, c unit-stride and a unit-stride or one value (a bias along the
 * run): c = (float)(alpha (double)a + beta (double)c), copy_run's operations in its order (the
 * same bits) without the double block; alpha a once per run when a is one value. In the block
 * the load, blend and store of each element took 0.76 ns on one core with the data in cache, so
 * a per-channel bias add of NCHW n8c64h112w112 was bound by it at two threads (0.58-0.64 of the
 * bandwidth on the 2-vCPU Xeon, docs/perf/cpu-memops-2026-12-04.md). */
FD_CPU_CLONES static void add_f32(int n, float *o, const float *a, int64_t ia, double alpha,
                                  double beta)
{
    if (ia == 0) {
        const double u = alpha * (double)a[0];
        if (beta == 0.0)
            for (int i = 0; i < n; i++)
                o[i] = (float)u;
        else
            for (int i = 0; i < n; i++)
                o[i] = (float)(u + beta * (double)o[i]);
    } else if (beta == 0.0) {
        for (int i = 0; i < n; i++)
            o[i] = (float)(alpha * (double)a[i]);
    } else {
        for (int i = 0; i < n; i++)
            o[i] = (float)(alpha * (double)a[i] + beta * (double)o[i]);
    }
}

static void add_run_f32(const void *ctx, int len, char *const *ptr, const int64_t *inc)
{
    const ew_ctx_t *c = ctx;
    if (inc[0] != 1 || (inc[1] != 0 && inc[1] != 1)) {
        copy_run(ctx, len, ptr, inc);
        return;
    }
    add_f32(len, (float *)ptr[0], (const float *)ptr[1], inc[1], c->alpha, c->beta);
}

static int add_plan(const fd_tensor_add_problem_t *p, fd_cpu_ew_t *e, char *why, size_t why_size)
{
    if (!view_ok(&p->a, why, why_size) || !view_ok(&p->c, why, why_size))
        return 0;
    int64_t as[FD_DIM_MAX];
    bcast_strides(&p->a, &p->c, as);
    const int64_t *st[2] = {p->c.stride, as};
    const cudnnDataType_t dts[2] = {p->c.dtype, p->a.dtype};
    return fd_cpu_ew_plan(e, p->c.nb_dims, p->c.dim, 2, st, dts, why, why_size);
}

int fd_tensor_add_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    fd_cpu_ew_t e = {0};
    return add_plan(problem, &e, why, why_size);
}

size_t fd_tensor_add_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_tensor_add_cpu_run(const void *problem, const void *args)
{
    const fd_tensor_add_problem_t *p = problem;
    const fd_tensor_add_args_t *a = args;
    fd_cpu_ew_t e = {0};
    char why[128];
    add_plan(p, &e, why, sizeof why);
    char *base[2] = {(char *)a->c, (char *)a->a};
    ew_ctx_t c = {.dt = {p->c.dtype, p->a.dtype, p->a.dtype},
                  .alpha = a->alpha,
                  .beta = a->beta,
                  .nt = fd_cpu_nt_want(&e, base, a->beta)};
    /* FLOAT without streaming stores (those need copy_run's block): add_run_f32 */
    const fd_cpu_ew_fn fn =
        p->c.dtype == CUDNN_DATA_FLOAT && p->a.dtype == CUDNN_DATA_FLOAT && !c.nt ? add_run_f32
                                                                                  : copy_run;
    if (!bcast_rows_run(&e, base, 1, fn, &c))
        fd_cpu_ew_run(&e, base, fn, &c);
    return CUDNN_STATUS_SUCCESS;
}

static int transform_plan(const fd_tensor_transform_problem_t *p, fd_cpu_ew_t *e, char *why,
                          size_t why_size)
{
    if (!view_ok(&p->x, why, why_size) || !view_ok(&p->y, why, why_size))
        return 0;
    if (p->kind != FD_XFORM_FOLD || p->x.nb_dims != p->y.nb_dims) {
        snprintf(why, why_size, "unfold stays with ref");
        return 0;
    }
    for (int d = 0; d < p->y.nb_dims; d++)
        if (p->fold[d] != 1 || p->pad_before[d] != 0 || p->x.dim[d] != p->y.dim[d]) {
            snprintf(why, why_size, "folding / padding stays with ref");
            return 0;
        }
    const int64_t *st[2] = {p->y.stride, p->x.stride};
    const cudnnDataType_t dts[2] = {p->y.dtype, p->x.dtype};
    return fd_cpu_ew_plan(e, p->y.nb_dims, p->y.dim, 2, st, dts, why, why_size);
}

int fd_tensor_transform_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    fd_cpu_ew_t e = {0};
    return transform_plan(problem, &e, why, why_size);
}

size_t fd_tensor_transform_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

/* A layout change (NCHW <-> NHWC and the like) through the engine reads the input with a
 * large stride along the output's rows: one cache line and one scalar load per element. When
 * the input has a unit-stride dim j other than the output's innermost dim i, the copy goes in
 * TILE x TILE tiles instead: input rows along j are read whole, transposed in a stack buffer,
 * and written as output rows along i. Each output element is still computed exactly once from
 * the same value (a copy with the blend), so the bits and the thread-count independence are
 * those of the engine. Returns 0 when the plan has no such shape. */
#define TILE 32

/* One tile of FLOAT -> FLOAT: out[jj * os + ii] = (float)(alpha * in[ii * is + jj] (+ beta *
 * old)), in double as fd_cpu_store does; rows of TILE floats go out whole (streamed or not). */
FD_CPU_CLONES static void tile_f32(const float *in, int64_t is, float *out, int64_t os, int li,
                                   int lj, double alpha, double beta, int nt)
{
    float t[TILE * TILE];
    for (int ii = 0; ii < li; ii++)
        for (int jj = 0; jj < lj; jj++)
            t[jj * TILE + ii] = in[ii * is + jj];
    for (int jj = 0; jj < lj; jj++) {
        float r[TILE], *o = out + jj * os;
        const float *v = t + jj * TILE;
        if (beta == 0.0)
            for (int ii = 0; ii < li; ii++)
                r[ii] = (float)(alpha * (double)v[ii]);
        else
            for (int ii = 0; ii < li; ii++)
                r[ii] = (float)(alpha * (double)v[ii] + beta * (double)o[ii]);
        if (nt)
            fd_cpu_stream(o, r, sizeof(float) * (size_t)li);
        else
            memcpy(o, r, sizeof(float) * (size_t)li);
    }
}

static int transpose_run(const fd_cpu_ew_t *e, char *const *base, const ew_ctx_t *c)
{
    const int nd = e->nd, di = nd - 1;
    int dj = -1;
    if (c->dt[0] != CUDNN_DATA_FLOAT || c->dt[1] != CUDNN_DATA_FLOAT)
        return 0; /* through fd_cpu_load / fd_cpu_store, tiles lose to the engine's gathers */
    if (nd < 2 || e->st[0][di] != 1 || e->st[1][di] == 1)
        return 0;
    for (int d = 0; d < di; d++)
        if (e->st[1][d] == 1 && e->dim[d] > 1)
            dj = d;
    if (dj < 0)
        return 0;
    const int64_t ni = (e->dim[di] + TILE - 1) / TILE, nj = (e->dim[dj] + TILE - 1) / TILE;
    const int64_t outer = e->n / (e->dim[di] * e->dim[dj]), units = outer * ni * nj;
#pragma omp parallel for schedule(static) if (e->n >= FD_CPU_PAR_MIN)
    for (int64_t u = 0; u < units; u++) {
        int64_t ti = u % ni, tj = (u / ni) % nj, rem = u / (ni * nj);
        int64_t off0 = 0, off1 = 0;
        for (int d = nd - 2; d >= 0; d--) { /* the outer dims, innermost first */
            if (d == dj)
                continue;
            int64_t k = rem % e->dim[d];
            rem /= e->dim[d];
            off0 += k * e->st[0][d], off1 += k * e->st[1][d];
        }
        const int64_t i0 = ti * TILE, j0 = tj * TILE;
        const int li = (int)(e->dim[di] - i0 < TILE ? e->dim[di] - i0 : TILE);
        const int lj = (int)(e->dim[dj] - j0 < TILE ? e->dim[dj] - j0 : TILE);
        tile_f32((const float *)(const void *)base[1] + off1 + i0 * e->st[1][di] + j0, e->st[1][di],
                 (float *)(void *)base[0] + off0 + j0 * e->st[0][dj] + i0, e->st[0][dj], li, lj,
                 c->alpha, c->beta, c->nt);
#ifdef FD_CPU_X86
        _mm_sfence();
#endif
    }
    return 1;
}

cudnnStatus_t fd_tensor_transform_cpu_run(const void *problem, const void *args)
{
    const fd_tensor_transform_problem_t *p = problem;
    const fd_tensor_transform_args_t *a = args;
    fd_cpu_ew_t e = {0};
    char why[128];
    transform_plan(p, &e, why, sizeof why);
    char *base[2] = {(char *)a->y, (char *)a->x};
    ew_ctx_t c = {.dt = {p->y.dtype, p->x.dtype, p->x.dtype},
                  .alpha = a->alpha,
                  .beta = a->beta,
                  .nt = fd_cpu_nt_want(&e, base, a->beta)};
    if (!transpose_run(&e, base, &c))
        fd_cpu_ew_run(&e, base, copy_run, &c);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- OpTensor: c = op(alpha1 a, alpha2 b) + beta c ---------------------------------------- */

/* r[i] = sqrt(r[i]), correctly rounded (IEEE sqrt, as libm's). Written with intrinsics because
 * GCC keeps the errno check of sqrt() (no per-function -fno-math-errno), which stops the
 * vectoriser: AVX-512 when the CPU has it (FREEDNN_CPU_ISA=avx2|generic caps it), else SSE2,
 * which every x86-64 has. */
#ifdef FD_CPU_X86
__attribute__((target("avx512f"))) static void sqrt_avx512(int n, double *r)
{
    int i = 0;
    for (; i + 8 <= n; i += 8)
        _mm512_storeu_pd(r + i, _mm512_sqrt_pd(_mm512_loadu_pd(r + i)));
    for (; i < n; i++)
        _mm_store_sd(r + i, _mm_sqrt_sd(_mm_setzero_pd(), _mm_load_sd(r + i)));
}

static void sqrt_sse2(int n, double *r)
{
    int i = 0;
    for (; i + 2 <= n; i += 2)
        _mm_storeu_pd(r + i, _mm_sqrt_pd(_mm_loadu_pd(r + i)));
    for (; i < n; i++)
        _mm_store_sd(r + i, _mm_sqrt_sd(_mm_setzero_pd(), _mm_load_sd(r + i)));
}

static int use_avx512(void)
{
    const char *cap = getenv("FREEDNN_CPU_ISA");
    __builtin_cpu_init();
    return (!cap || strcmp(cap, "avx512") == 0) && __builtin_cpu_supports("avx512f");
}
#endif

static void sqrt_block(int n, double *r, int avx512)
{
#ifdef FD_CPU_X86
    if (avx512)
        sqrt_avx512(n, r);
    else
        sqrt_sse2(n, r);
#else
    (void)avx512;
    for (int i = 0; i < n; i++)
        r[i] = sqrt(r[i]);
#endif
}

FD_CPU_CLONES static void op_block(const ew_ctx_t *c, int n, const double *restrict x,
                                   const double *restrict y, double *restrict r)
{
    const double a1 = c->alpha, a2 = c->alpha2;
    switch (c->op) {
    case CUDNN_OP_TENSOR_ADD:
        for (int i = 0; i < n; i++)
            r[i] = a1 * x[i] + a2 * y[i];
        break;
    case CUDNN_OP_TENSOR_MUL:
        for (int i = 0; i < n; i++)
            r[i] = (a1 * x[i]) * (a2 * y[i]);
        break;
    case CUDNN_OP_TENSOR_MIN:
    case CUDNN_OP_TENSOR_MAX: {
        const int is_max = c->op == CUDNN_OP_TENSOR_MAX, prop = c->propagate;
        for (int i = 0; i < n; i++) {
            double u = a1 * x[i], w = a2 * y[i];
            double m = is_max ? (u > w ? u : w) : (u < w ? u : w);
            int nu = isnan(u), nw = isnan(w);
            /* the ref's op_min_max: NOT_PROPAGATE drops a single NaN operand */
            double alt = (prop || (nu && nw)) ? NAN : (nu ? w : u);
            r[i] = (nu || nw) ? alt : m;
        }
        break;
    }
    case CUDNN_OP_TENSOR_SQRT:
        for (int i = 0; i < n; i++)
            r[i] = a1 * x[i];
        sqrt_block(n, r, c->avx512);
        break;
    default: /* NOT */
        for (int i = 0; i < n; i++)
            r[i] = 1.0 - a1 * x[i];
        break;
    }
}

static int is_unary(cudnnOpTensorOp_t op)
{
    return op == CUDNN_OP_TENSOR_SQRT || op == CUDNN_OP_TENSOR_NOT;
}

/* FLOAT a, b, c with a and c of unit stride and b of stride 1 or 0 (a broadcast): ADD, MUL,
 * MIN, MAX in one pass, with op_block's and fd_cpu_store's operations in their order (the
 * store's alpha is 1: 1 * r is r), so the same bits. out may not be a or old. */
#define OP_F32_LOOP(EXPR)                                                                      \
    do {                                                                                       \
        if (beta == 0.0)                                                                       \
            for (int i = 0; i < n; i++) {                                                      \
                const double u = a1 * (double)x[i], w = a2 * (double)y[i * yinc];              \
                out[i] = (float)(EXPR);                                                        \
            }                                                                                  \
        else                                                                                   \
            for (int i = 0; i < n; i++) {                                                      \
                const double u = a1 * (double)x[i], w = a2 * (double)y[i * yinc];              \
                out[i] = (float)((EXPR) + beta * (double)old[i]);                              \
            }                                                                                  \
    } while (0)

/* op_block's MIN / MAX with the ref's NaN rule */
#define OP_MINMAX(CMP)                                                                         \
    ((isnan(u) || isnan(w)) ? ((prop || (isnan(u) && isnan(w))) ? NAN : (isnan(u) ? w : u))   \
                            : ((u CMP w) ? u : w))

/* alpha1 = alpha2 = 1, beta = 0 in float: the same bits as in double, because a double holds
 * the exact sum or product of two floats rounded at most once more finely than 2 * 24 + 2 bits
 * (so rounding it to float is rounding the exact result once), and a min / max is one of its
 * operands (NaN: the default NaN, as (float)NAN). Half the instructions per element. */
#define OPF_MINMAX(CMP)                                                                        \
    ((isnan(u) || isnan(w)) ? ((prop || (isnan(u) && isnan(w))) ? NAN : (isnan(u) ? w : u))   \
                            : ((u CMP w) ? u : w))
#define OPF_LOOP(EXPR)                                                                         \
    for (int i = 0; i < n; i++) {                                                              \
        const float u = x[i], w = y[i * yinc];                                                 \
        out[i] = (EXPR);                                                                       \
    }

FD_CPU_CLONES static void op_f32_unit(const ew_ctx_t *c, int n, const float *restrict x,
                                      const float *restrict y, int64_t yinc, float *restrict out)
{
    const int prop = c->propagate;
    switch (c->op) {
    case CUDNN_OP_TENSOR_ADD:
        OPF_LOOP(u + w);
        break;
    case CUDNN_OP_TENSOR_MUL:
        OPF_LOOP(u * w);
        break;
    case CUDNN_OP_TENSOR_MIN:
        OPF_LOOP(OPF_MINMAX(<));
        break;
    default:
        OPF_LOOP(OPF_MINMAX(>));
        break;
    }
}

FD_CPU_CLONES static void op_f32(const ew_ctx_t *c, int n, const float *restrict x,
                                 const float *restrict y, int64_t yinc, const float *restrict old,
                                 float *restrict out)
{
    const double a1 = c->alpha, a2 = c->alpha2, beta = c->beta;
    const int prop = c->propagate;
    if (a1 == 1.0 && a2 == 1.0 && beta == 0.0) {
        op_f32_unit(c, n, x, y, yinc, out);
        return;
    }
    if (yinc == 0) { /* the broadcast operand is one value for the whole run */
        switch (c->op) {
        case CUDNN_OP_TENSOR_ADD:
            OP_F32_LOOP(u + w);
            break;
        case CUDNN_OP_TENSOR_MUL:
            OP_F32_LOOP(u * w);
            break;
        case CUDNN_OP_TENSOR_MIN:
            OP_F32_LOOP(OP_MINMAX(<));
            break;
        default:
            OP_F32_LOOP(OP_MINMAX(>));
            break;
        }
        return;
    }
    switch (c->op) {
    case CUDNN_OP_TENSOR_ADD:
        OP_F32_LOOP(u + w);
        break;
    case CUDNN_OP_TENSOR_MUL:
        OP_F32_LOOP(u * w);
        break;
    case CUDNN_OP_TENSOR_MIN:
        OP_F32_LOOP(OP_MINMAX(<));
        break;
    default:
        OP_F32_LOOP(OP_MINMAX(>));
        break;
    }
}

#ifdef FD_CPU_X86
/* op_f32_unit's MIN / MAX (OPF_MINMAX) on the lanes m of 16 floats: the x86 min / max
 * instructions return their second operand when either is NaN, and (u < w) ? u : w /
 * (u > w) ? u : w otherwise, OPF_MINMAX's non-NaN value; lanes with a NaN take OPF_MINMAX's
 * rule: the default NaN when NaN propagates or both are NaN, else the other operand. */
__attribute__((target("avx512f"))) static inline __m512 op_minmax16(int mx, int prop, __m512 u,
                                                                    __m512 w)
{
    __m512 r = mx ? _mm512_max_ps(u, w) : _mm512_min_ps(u, w);
    const __mmask16 un = _mm512_cmp_ps_mask(u, u, _CMP_UNORD_Q);
    const __mmask16 wn = _mm512_cmp_ps_mask(w, w, _CMP_UNORD_Q);
    if (un | wn) {
        const __m512 qnan = _mm512_set1_ps(NAN);
        if (prop) {
            r = _mm512_mask_mov_ps(r, un | wn, qnan);
        } else {
            r = _mm512_mask_mov_ps(r, wn & ~un, u);
            r = _mm512_mask_mov_ps(r, un & wn, qnan); /* un alone: r is w already */
        }
    }
    return r;
}

/* FLOAT MIN / MAX with alpha1 = alpha2 = 1, beta = 0 on AVX-512 (c->avx512mm): op_f32_unit's
 * values from registers to out, no stack block and no second pass. x in plain full-vector
 * loads (masked only for the partial first and last vectors), b a vector (yinc 1: the
 * replicated row of bcast_rows_run, in L1) or one value (yinc 0). With c->z, out goes in
 * 64-byte streaming stores from its first 64-byte boundary, the pieces before and after
 * through memop.h's 16-byte streaming stores (a tensor from malloc starts 16 bytes into a
 * line: plain stores there would read the line first, as the NHWC row did before, 0.64 of
 * the bandwidth). Without c->z plain stores; out may be x (each vector is read before it is
 * written). */
__attribute__((target("avx512f"))) static void op_minmax_avx512(const ew_ctx_t *c, int n,
                                                                const float *x, const float *y,
                                                                int64_t yinc, float *out)
{
    const int mx = c->op == CUDNN_OP_TENSOR_MAX, prop = c->propagate;
    const int nt = c->z && ((uintptr_t)out & 3) == 0;
    const __m512 yb = _mm512_set1_ps(y[0]);
    int i = nt ? (int)(((64 - ((uintptr_t)out & 63)) & 63) / 4) : 0; /* to the first boundary */
    i = i < n ? i : n;
    if (i > 0) {
        const __mmask16 m = (__mmask16)((1u << i) - 1u);
        float tmp[16];
        const __m512 w = yinc ? _mm512_maskz_loadu_ps(m, y) : yb;
        _mm512_storeu_ps(tmp, op_minmax16(mx, prop, _mm512_maskz_loadu_ps(m, x), w));
        fd_cpu_stream(out, tmp, sizeof(float) * (size_t)i);
    }
    for (; i + 16 <= n; i += 16) {
        const __m512 w = yinc ? _mm512_loadu_ps(y + i) : yb;
        const __m512 r = op_minmax16(mx, prop, _mm512_loadu_ps(x + i), w);
        if (nt)
            _mm512_stream_ps(out + i, r);
        else
            _mm512_storeu_ps(out + i, r);
    }
    if (i < n) {
        const __mmask16 m = (__mmask16)((1u << (n - i)) - 1u);
        const __m512 w = yinc ? _mm512_maskz_loadu_ps(m, y + i) : yb;
        const __m512 r = op_minmax16(mx, prop, _mm512_maskz_loadu_ps(m, x + i), w);
        if (nt) {
            float tmp[16];
            _mm512_storeu_ps(tmp, r);
            fd_cpu_stream(out + i, tmp, sizeof(float) * (size_t)(n - i));
        } else {
            _mm512_mask_storeu_ps(out + i, m, r);
        }
    }
}
#endif

#ifdef FD_CPU_HAVE_AVX2_MAP
/* op_minmax16 in 8 lanes (blends for the NaN lanes) */
__attribute__((target("avx2"))) static inline __m256 op_minmax8(int mx, int prop, __m256 u,
                                                                __m256 w)
{
    __m256 r = mx ? _mm256_max_ps(u, w) : _mm256_min_ps(u, w);
    const __m256 un = _mm256_cmp_ps(u, u, _CMP_UNORD_Q), wn = _mm256_cmp_ps(w, w, _CMP_UNORD_Q);
    if (_mm256_movemask_ps(_mm256_or_ps(un, wn))) {
        const __m256 qnan = _mm256_set1_ps(NAN);
        if (prop) {
            r = _mm256_blendv_ps(r, qnan, _mm256_or_ps(un, wn));
        } else {
            r = _mm256_blendv_ps(r, u, _mm256_andnot_ps(un, wn));
            r = _mm256_blendv_ps(r, qnan, _mm256_and_ps(un, wn)); /* un alone: r is w already */
        }
    }
    return r;
}

/* FLOAT ADD / MUL / MIN / MAX with alpha1 = alpha2 = 1 and beta = 0 on a CPU with AVX2 and no
 * AVX-512 (c->map8): op_f32_unit's values (one float operation: the bits of the double one
 * rounded once; MIN / MAX op_minmax16's rule) as memop.h's float map from registers to out,
 * streamed when c->nt; b a vector (yinc 1) or one value (yinc 0). */
__attribute__((target("avx2"))) static void op_map8(const ew_ctx_t *c, int n, const float *x,
                                                    const float *y, int64_t yinc, float *out)
{
    const int prop = c->propagate, mx = c->op == CUDNN_OP_TENSOR_MAX;
    const __m256 yb = _mm256_set1_ps(y[0]);
#define OP_MAP8()                                                                                  \
    do {                                                                                           \
        if (yinc) {                                                                                \
            FD_CPU_AVX2_MAP(n, out, c->nt, OPV);                                                   \
        } else {                                                                                   \
            FD_CPU_AVX2_MAP(n, out, c->nt, OPB);                                                   \
        }                                                                                          \
    } while (0)
#define OPV(i, m, f) OPE(FD_CPU_LD8(x + (i), m, f), FD_CPU_LD8(y + (i), m, f))
#define OPB(i, m, f) OPE(FD_CPU_LD8(x + (i), m, f), yb)
    switch (c->op) {
    case CUDNN_OP_TENSOR_ADD:
#define OPE(u, w) _mm256_add_ps(u, w)
        OP_MAP8();
#undef OPE
        break;
    case CUDNN_OP_TENSOR_MUL:
#define OPE(u, w) _mm256_mul_ps(u, w)
        OP_MAP8();
#undef OPE
        break;
    default: /* MIN, MAX */
#define OPE(u, w) op_minmax8(mx, prop, u, w)
        OP_MAP8();
#undef OPE
        break;
    }
#undef OPV
#undef OPB
#undef OP_MAP8
}
#endif

static void op_run(const void *ctx, int len, char *const *ptr, const int64_t *inc)
{
    const ew_ctx_t *c = ctx;
#ifdef FD_CPU_X86
#ifdef FD_CPU_HAVE_AVX2_MAP
    if (c->map8 && inc[0] == 1 && inc[1] == 1 && (inc[2] == 0 || inc[2] == 1)) {
        op_map8(c, len, (const float *)(const void *)ptr[1], (const float *)(const void *)ptr[2],
                inc[2], (float *)(void *)ptr[0]);
        return;
    }
#endif
    if (c->avx512mm && inc[0] == 1 && inc[1] == 1 && (inc[2] == 0 || inc[2] == 1)) {
        op_minmax_avx512(c, len, (const float *)(const void *)ptr[1],
                         (const float *)(const void *)ptr[2], inc[2], (float *)(void *)ptr[0]);
        return;
    }
#endif
    if (c->dt[0] == CUDNN_DATA_FLOAT && c->dt[1] == CUDNN_DATA_FLOAT && c->dt[2] == CUDNN_DATA_FLOAT &&
        !is_unary(c->op) && inc[0] == 1 && inc[1] == 1 && (inc[2] == 0 || inc[2] == 1)) {
        float r[FD_CPU_BLK];
        op_f32(c, len, (const float *)(const void *)ptr[1], (const float *)(const void *)ptr[2], inc[2],
               (const float *)(const void *)ptr[0], r);
#ifdef FD_CPU_HAVE_STREAM_Z
        if (c->z) {
            fd_cpu_stream_z(ptr[0], r, sizeof(float) * (size_t)len);
            return;
        }
#endif
        if (c->nt)
            fd_cpu_stream(ptr[0], r, sizeof(float) * (size_t)len);
        else
            memcpy(ptr[0], r, sizeof(float) * (size_t)len);
        return;
    }
    double x[FD_CPU_BLK], y[FD_CPU_BLK], r[FD_CPU_BLK];
    fd_cpu_load(c->dt[1], ptr[1], inc[1], len, x);
    if (!is_unary(c->op))
        fd_cpu_load(c->dt[2], ptr[2], inc[2], len, y);
    else
        memset(y, 0, (size_t)len * sizeof *y);
    op_block(c, len, x, y, r);
    fd_cpu_store_ex(c->dt[0], ptr[0], inc[0], len, r, 1.0, c->beta, c->nt);
}

static int op_plan(const fd_tensor_op_problem_t *p, fd_cpu_ew_t *e, char *why, size_t why_size)
{
    if (!view_ok(&p->a, why, why_size) || !view_ok(&p->c, why, why_size) ||
        (!is_unary(p->op) && !view_ok(&p->b, why, why_size)))
        return 0;
    int64_t bs[FD_DIM_MAX];
    if (is_unary(p->op))
        for (int d = 0; d < p->c.nb_dims; d++)
            bs[d] = 0; /* never read */
    else
        bcast_strides(&p->b, &p->c, bs);
    const int64_t *st[3] = {p->c.stride, p->a.stride, bs};
    const cudnnDataType_t dts[3] = {p->c.dtype, p->a.dtype, is_unary(p->op) ? p->a.dtype : p->b.dtype};
    return fd_cpu_ew_plan(e, p->c.nb_dims, p->c.dim, 3, st, dts, why, why_size);
}

int fd_tensor_op_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    fd_cpu_ew_t e = {0};
    return op_plan(problem, &e, why, why_size);
}

size_t fd_tensor_op_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_tensor_op_cpu_run(const void *problem, const void *args)
{
    const fd_tensor_op_problem_t *p = problem;
    const fd_tensor_op_args_t *a = args;
    fd_cpu_ew_t e = {0};
    char why[128];
    op_plan(p, &e, why, sizeof why);
    char *base[3] = {(char *)a->c, (char *)a->a, (char *)(is_unary(p->op) ? a->a : a->b)};
    ew_ctx_t c = {.dt = {p->c.dtype, p->a.dtype, is_unary(p->op) ? p->a.dtype : p->b.dtype},
                  .alpha = a->alpha1,
                  .alpha2 = a->alpha2,
                  .beta = a->beta,
                  .op = p->op,
                  .propagate = p->nan == CUDNN_PROPAGATE_NAN,
                  .nt = fd_cpu_nt_want(&e, base, a->beta)};
#ifdef FD_CPU_X86
    /* FLOAT in and out, c = a op b: one float operation is the double one rounded once */
    const int unit = p->c.dtype == CUDNN_DATA_FLOAT && p->a.dtype == CUDNN_DATA_FLOAT &&
                     p->b.dtype == CUDNN_DATA_FLOAT && a->alpha1 == 1.0 && a->alpha2 == 1.0 &&
                     a->beta == 0.0;
    const int minmax = p->op == CUDNN_OP_TENSOR_MIN || p->op == CUDNN_OP_TENSOR_MAX;
    c.avx512 = p->op == CUDNN_OP_TENSOR_SQRT && use_avx512();
    c.avx512mm = minmax && unit && use_avx512();
#ifdef FD_CPU_HAVE_AVX2_MAP
    c.map8 = (minmax || p->op == CUDNN_OP_TENSOR_ADD || p->op == CUDNN_OP_TENSOR_MUL) && unit &&
             fd_vmath_isa() == FD_VMATH_AVX2;
#endif
#ifdef FD_CPU_HAVE_STREAM_Z
    /* whole 64-byte lines per streamed store, as the activation rows (2026-12-01) */
    c.z = c.nt && use_avx512();
#endif
#endif
    if (is_unary(p->op) || !bcast_rows_run(&e, base, 2, op_run, &c))
        fd_cpu_ew_run(&e, base, op_run, &c);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- SetTensor / ScaleTensor ------------------------------------------------------------- */

static void set_run(const void *ctx, int len, char *const *ptr, const int64_t *inc)
{
    const ew_ctx_t *c = ctx;
    double v[FD_CPU_BLK];
    for (int i = 0; i < len; i++)
        v[i] = c->value;
    fd_cpu_store_ex(c->dt[0], ptr[0], inc[0], len, v, 1.0, 0.0, c->nt); /* 1 * value: exact */
}

static void scale_run(const void *ctx, int len, char *const *ptr, const int64_t *inc)
{
    const ew_ctx_t *c = ctx;
    double v[FD_CPU_BLK];
    fd_cpu_load(c->dt[0], ptr[0], inc[0], len, v);
    fd_cpu_store(c->dt[0], ptr[0], inc[0], len, v, c->alpha, 0.0);
}

static int one_plan(const fd_tview_t *y, fd_cpu_ew_t *e, char *why, size_t why_size)
{
    if (!view_ok(y, why, why_size))
        return 0;
    const int64_t *st[1] = {y->stride};
    const cudnnDataType_t dts[1] = {y->dtype};
    return fd_cpu_ew_plan(e, y->nb_dims, y->dim, 1, st, dts, why, why_size);
}

int fd_tensor_set_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    fd_cpu_ew_t e = {0};
    return one_plan(&((const fd_tensor_set_problem_t *)problem)->y, &e, why, why_size);
}

size_t fd_tensor_set_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_tensor_set_cpu_run(const void *problem, const void *args)
{
    const fd_tensor_set_problem_t *p = problem;
    const fd_tensor_set_args_t *a = args;
    fd_cpu_ew_t e = {0};
    char why[128];
    one_plan(&p->y, &e, why, sizeof why);
    char *base[1] = {(char *)a->y};
    /* no streaming stores: a write-only pass measured slower with them on Zen 4 (its plain
     * stores of whole lines already skip the read-for-ownership) */
    ew_ctx_t c = {.dt = {p->y.dtype, p->y.dtype, p->y.dtype}, .alpha = 1.0, .value = a->value};
    fd_cpu_ew_run(&e, base, set_run, &c);
    return CUDNN_STATUS_SUCCESS;
}

int fd_tensor_scale_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    fd_cpu_ew_t e = {0};
    return one_plan(&((const fd_tensor_scale_problem_t *)problem)->y, &e, why, why_size);
}

size_t fd_tensor_scale_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_tensor_scale_cpu_run(const void *problem, const void *args)
{
    const fd_tensor_scale_problem_t *p = problem;
    const fd_tensor_scale_args_t *a = args;
    fd_cpu_ew_t e = {0};
    char why[128];
    one_plan(&p->y, &e, why, sizeof why);
    ew_ctx_t c = {.dt = {p->y.dtype, p->y.dtype, p->y.dtype}, .alpha = a->alpha};
    char *base[1] = {(char *)a->y};
    fd_cpu_ew_run(&e, base, scale_run, &c);
    return CUDNN_STATUS_SUCCESS;
}
