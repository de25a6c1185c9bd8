/* SPDX-License-Identifier: MIT */
/*
 * pool_avx2_nhwc.c - f32 AVX2 paths of cpu pooling (FD_OP_POOL_FWD / _BWD cpu rows) for 2-d
 * problems (1-d as rows of height 1) whose tensors have C as unit stride (NHWC, also with
 * padded pixels), both directions, every mode. Called by pooling_cpu.c where its AVX-512 paths
 * did not run; runs on CPUs with AVX2 + FMA and no AVX-512 (or with FREEDNN_CPU_ISA=avx2 on any
 * AVX2 CPU); returns 0 (the double blocks run) for other dtypes, 3-d, C not unit stride, shapes
 * beyond the stack buffers (rings of PA_RING bytes, PA_CODES codes, PA_COLS columns, PA_TAPS
 * max window taps), no AVX2 + FMA, FREEDNN_CPU_ISA=generic.
 * Lanes: 8 channels a vector. Results, as pooling_cpu.c's header states for its paths:
 * - max (both directions): the ref's bits. Forward streams the input rows once, each row's
 *   maximum over every output column's taps into a ring of kh rows, each output row folding its
 *   rows (vmaxps keeps the earlier operand on ties and drops a NaN; PROPAGATE_NAN ORs a NaN
 *   mask; the final max with -FLT_MAX is the ref's start value); three-tap rows and three-row
 *   folds of whole vectors without PROPAGATE_NAN run unrolled (the same operations): 3x3 / 2
 *   one thread in L2 / L3 1.85-2.0x (2026-12-05; the general loops, short and branchy, also
 *   ran 20 % slower or faster with the function's alignment in the library). Backward keeps
 *   int32 argmax codes (ky * kw + kx of the first maximum, -1 for none) of the output rows a
 *   band of dx rows needs (a ring on the stack) and gathers each dx pixel from them, no
 *   scatter: +0.0 plus the hit dy in window order, in float when alpha is 1, beta 0 and no
 *   lane of the vector has three hits (two floats summed in float are their double sum rounded
 *   once: 53 >= 2 * 24 + 2), in double otherwise.
 * - other averages (stride > 1 along W; stride 1 with negative padding or windows over 16):
 *   the ref's bits. Forward of windows of at most PA_FTAPS (16) taps (pa_fwd_avg) reads each
 *   output pixel's taps in place (the rows a window shares with the next one's come from the
 *   cache), +0.0 plus them in double in the ref's window order (vcvtps2pd of 4-channel
 *   halves); larger windows keep a double running sum per open output row (a ring), the input
 *   rows streamed once, the taps added in the same order. The quotient is the ref's (a
 *   power-of-two count as the exact product), the blend the ref's in double; y is streamed
 *   under the box rows' rule (pa_nt_ok). pa_fwd_avg against the ring (2026-12-07, this 2-vCPU
 *   Zen 3 VM, docs/perf/cpu-pool-avx2-nhwc-avg-2026-12-07.md): 2x2 / 2, n1c64h56w56 in cache,
 *   one thread 0.12 -> 0.055 ms; n8c64h112w112 two threads 2.2-2.5 -> 1.3-1.6 ms (the ring's
 *   loads, stores and tap loops cost ~70 cycles a vector of 8 outputs); 3x3 / 2 pad 1 in
 *   cache 0.20 -> 0.12 ms. The newest tap row is prefetched PA_AHEAD bytes ahead (pa_ahead:
 *   2x2 / 2 from memory, two threads, mean of six alternated medians 2.08 -> 1.90 ms).
 *   Backward gathers dy / count of each dx pixel's windows in double in window order; a
 *   pixel in one window with alpha 1, beta 0 takes the float quotient (correctly rounded: the
 *   double quotient rounded once), as pooling_cpu.c's NHWC direct path.
 * - stride-1 averages along W (the box rows, product decision 2026-11-30 of docs/testing.md):
 *   NOT the ref's bits in general, within the f32 accumulation bound stated there: the same
 *   operations as pooling_cpu.c's AVX-512 box rows (pf_box_fwd / pf_box_bwd: kw-tap row sums in
 *   float into a ring of kh rows, +0.0 plus the window's rows in row order; forward divided in
 *   float when alpha 1, beta 0, else in double with the double blend; backward dy / count in
 *   float and the blend in float; non-finite lanes recomputed by the ref's formula, each lane
 *   alone: pa_redo), so the same bits as that path, its NCHW rows and pool_avx2_nchw.c's NCHW
 *   box rows (quotients of sums below 2^-80 aside: vdivps here and in pool_avx2_nchw.c, the
 *   Markstein step in pooling_cpu.c).
 *   Plain rows (alpha 1, beta 0, three window rows, C a multiple of 8) run in one pass with
 *   one test for non-finite (forward also tiny) sums per row, the row redone when it fires.
 *   Three-tap row sums run unrolled (the same operations: forward's columns with three
 *   readable taps and C a multiple of 8, backward's dy / count rows of kw 3): 3x3 / 1 pad 1
 *   in cache, one thread, forward 0.15 -> 0.08 ms, backward 0.125 -> 0.105 ms (2026-12-07).
 *   From memory the rows waited on their reads: forward's x rows (the unrolled three-tap sums)
 *   and backward's dy rows are prefetched PA_AHEAD bytes ahead (pa_ahead; n8c64h112w112, two
 *   threads, mean of six alternated medians: forward 3.22 -> 2.90 ms, backward 3.72 -> 3.22).
 * Float quotients: correctly rounded (vdivps, or the product corrected by one FMA step where
 * both are finite and normal, which equals it: Markstein). Large beta-0 outputs packed along C
 * (dx of backward, y of the box forward) are written with streaming stores (no read for
 * ownership). Units are fixed by the problem (not the thread count) and each writes its own
 * outputs, so the bits do not depend on OMP_NUM_THREADS. No allocation: stack buffers only.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3,fp-contract=off")
#endif
#include <float.h>
#include <stdlib.h>

#include "../core/pooling.h"
#include "memop.h"
#include "pool_avx2.h"

#if defined(__GNUC__) && defined(__x86_64__)

#define PA_TGT __attribute__((target("avx2,fma")))

#define PA_RING 65536     /* bytes of the forward ring (row maxima / double running sums) */
#define PA_CODES 16384    /* int32 argmax codes of the max backward's output rows */
#define PA_COLS 4096      /* dx columns (backward), output columns (box rows) */
#define PA_BAND 16        /* dx rows per backward unit */
#define PA_FBAND 16       /* output rows per forward unit when the images alone are few units */
#define PA_BOX 32768      /* floats of the box rows' ring and dy / count row (128 KiB) */
#define PA_BOX_RING 28672 /* floats the NHWC strip of the box rows may use (as pooling_cpu.c) */
#define PA_GROUP 4        /* units per call of a path */
#define PA_TAPS 256       /* window taps of max backward (listed per pixel, pa_codes_row) */

#ifndef PA_AHEAD
#define PA_AHEAD 8192 /* bytes a streamed read prefetches ahead (pa_ahead) */
#endif

/* Prefetch of the line PA_AHEAD bytes past q (never dereferenced: it may lie past the tensor),
 * as pool_avx2_nchw.c's: two threads from memory left the box rows and the in-place averages
 * waiting on their x / dy rows. always_inline: GCC drops a plain inline helper's prefetch
 * inside another target's function. */
static inline __attribute__((always_inline)) void pa_ahead(const void *q)
{
    _mm_prefetch((const char *)((uintptr_t)q + PA_AHEAD), _MM_HINT_T0);
}

static int pa_isa_ok(void)
{
    static int state = -1; /* a benign race: every thread stores the same value */
    if (state < 0) {
        /* FREEDNN_CPU_ISA: generic turns the path off; avx2 takes it even on AVX-512 CPUs;
         * unset (or anything else) leaves AVX-512 CPUs to pooling_cpu.c's AVX-512 paths */
        const char *cap = getenv("FREEDNN_CPU_ISA");
        int limit = !cap ? 2 : strcmp(cap, "generic") == 0 ? 0 : strcmp(cap, "avx2") == 0 ? 1 : 2;
        __builtin_cpu_init();
        int avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                     __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
                     __builtin_cpu_supports("bmi2");
        state = limit >= 1 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                !(limit >= 2 && avx512);
    }
    return state;
}

static int64_t pa_min(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t pa_max(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t pa_fdiv(int64_t a, int64_t b) /* floor, b > 0 */
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static int pa_is_max(const fd_pool_problem_t *p)
{
    return p->mode == CUDNN_POOLING_MAX || p->mode == CUDNN_POOLING_MAX_DETERMINISTIC;
}

static int pa_incl(const fd_pool_problem_t *p)
{
    return p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
}

/* Window o along dim d (1: H, 2: W): readable [*lo, *hi) and its divisor factor (readable or
 * padded count per mode), as the ref. */
static double pa_win(const fd_pool_problem_t *p, int d, int64_t o, int64_t *lo, int64_t *hi)
{
    const int64_t start = o * p->stride[d] - p->pad[d], end = start + p->win[d];
    const int64_t rlo = pa_max(0, -p->pad[d]), rhi = pa_min(p->in[d], p->in[d] + p->pad[d]);
    *lo = pa_max(start, rlo);
    *hi = pa_min(end, rhi);
    const int64_t rd = pa_max(0, *hi - *lo);
    const int64_t pd = pa_max(0, pa_min(end, p->in[d] + p->pad[d]) - pa_max(start, -p->pad[d]));
    return (double)(pa_incl(p) ? pd : rd);
}

/* Windows holding input i along dim d: [*olo, *ohi]; 0 when none or i is unreadable. */
static int pa_windows(const fd_pool_problem_t *p, int d, int64_t i, int64_t *olo, int64_t *ohi)
{
    const int64_t rlo = pa_max(0, -p->pad[d]), rhi = pa_min(p->in[d], p->in[d] + p->pad[d]);
    *olo = pa_max(0, pa_fdiv(i + p->pad[d] - p->win[d], p->stride[d]) + 1);
    *ohi = pa_min(p->out[d] - 1, pa_fdiv(i + p->pad[d], p->stride[d]));
    return i >= rlo && i < rhi && *olo <= *ohi;
}

/* 1 for a positive power of two (the counts are small integers). */
static int pa_pow2(double c)
{
    const int64_t i = (int64_t)c;
    return c >= 1 && (double)i == c && (i & (i - 1)) == 0;
}

/* 1 when the output (strides q over n, c, sp) is written with streaming stores: beta 0, larger
 * than half the L3, every vector of 8 channels aligned to 32 bytes. */
static int pa_nt_ok(const fd_pool_problem_t *p, const fd_pool_args_t *a, const int64_t *q,
                    const int64_t *sp)
{
    int64_t ext = 1;
    for (int d = 0; d < 5; d++)
        ext += ((d == 0 ? p->n : d == 1 ? p->c : sp[d - 2]) - 1) * q[d];
    return a->beta == 0.0 && (size_t)ext * sizeof(float) >= FD_CPU_NT_MIN && p->c % 8 == 0 &&
           q[0] % 8 == 0 && q[3] % 8 == 0 && q[4] % 8 == 0 && (uintptr_t)a->out % 32 == 0;
}

/* ---- vectors of 8 channels ---- */

static const int32_t pa_mtab[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};

/* Lanes [0, n) of a vector (n clamped to 0 .. 8). */
PA_TGT static inline __m256i pa_mask(int64_t n)
{
    n = n < 0 ? 0 : n > 8 ? 8 : n;
    return _mm256_loadu_si256((const __m256i *)(const void *)(pa_mtab + 8 - n));
}

/* n floats (8 when n >= 8) at q; the others 0. */
PA_TGT static inline __m256 pa_ld(const float *q, int64_t n)
{
    return n >= 8 ? _mm256_loadu_ps(q) : _mm256_maskload_ps(q, pa_mask(n));
}

/* The first n lanes of v to q (nt: a streaming store, q aligned, n = 8). */
PA_TGT static inline void pa_st(float *q, int64_t n, __m256 v, int nt)
{
    if (nt)
        _mm256_stream_ps(q, v);
    else if (n >= 8)
        _mm256_storeu_ps(q, v);
    else
        _mm256_maskstore_ps(q, pa_mask(n), v);
}

PA_TGT static inline __m256d pa_lo(__m256 v)
{
    return _mm256_cvtps_pd(_mm256_castps256_ps128(v));
}

PA_TGT static inline __m256d pa_hi(__m256 v)
{
    return _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
}

PA_TGT static inline __m256 pa_join(__m256d lo, __m256d hi)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)), _mm256_cvtpd_ps(hi),
                                1);
}

/* y = alpha v (+ beta y) in double, rounded once (the ref's blend), lanes [0, n). */
PA_TGT static inline void pa_st_d(float *y, int64_t n, __m256d lo, __m256d hi, double alpha,
                                  double beta, int nt)
{
    if (alpha != 1.0) {
        lo = _mm256_mul_pd(_mm256_set1_pd(alpha), lo);
        hi = _mm256_mul_pd(_mm256_set1_pd(alpha), hi);
    }
    if (beta != 0.0) {
        const __m256 old = pa_ld(y, n);
        lo = _mm256_add_pd(lo, _mm256_mul_pd(_mm256_set1_pd(beta), pa_lo(old)));
        hi = _mm256_add_pd(hi, _mm256_mul_pd(_mm256_set1_pd(beta), pa_hi(old)));
    }
    pa_st(y, n, pa_join(lo, hi), nt);
}

/* A max result (-inf when nothing was taken; NaN lanes in nan) blended and stored. */
PA_TGT static inline void pa_st_max(float *y, int64_t n, __m256 acc, __m256 nan, double alpha,
                                    double beta)
{
    acc = _mm256_max_ps(acc, _mm256_set1_ps(-FLT_MAX));
    acc = _mm256_blendv_ps(acc, _mm256_set1_ps(NAN), nan);
    if (alpha == 1.0 && beta == 0.0)
        pa_st(y, n, acc, 0);
    else
        pa_st_d(y, n, pa_lo(acc), pa_hi(acc), alpha, beta, 0);
}

/* v / c in double, correctly rounded (c > 0): a power of two as the exact product, else vdivpd. */
PA_TGT static inline __m256d pa_divd(__m256d v, double c)
{
    return pa_pow2(c) ? _mm256_mul_pd(v, _mm256_set1_pd(1.0 / c))
                      : _mm256_div_pd(v, _mm256_set1_pd(c));
}

PA_TGT static inline __m256 pa_nan(__m256 v)
{
    return _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
}

/* Lanes [0, n) of v that are NaN or +-inf, as bits. */
PA_TGT static inline int pa_nonfinite(__m256 v, int64_t n)
{
    const __m256 av = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v);
    const __m256 bad = _mm256_cmp_ps(av, _mm256_set1_ps(FLT_MAX), _CMP_NLE_UQ);
    return _mm256_movemask_ps(bad) & (int)((1u << (n > 8 ? 8 : n)) - 1u);
}

/* ---- the ref's formula for one element (lanes the float sums cannot give) ---- */

static void pa_fwd_exact(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t n, int64_t c,
                         int64_t oh, int64_t ow)
{
    int64_t l1, h1, l2, h2;
    const double cnt = pa_win(p, 1, oh, &l1, &h1) * pa_win(p, 2, ow, &l2, &h2);
    const int64_t *s = p->xs, *t = p->ys;
    const float *x = (const float *)a->x + n * s[0] + c * s[1];
    double sum = 0.0;
    for (int64_t ih = l1; ih < h1; ih++)
        for (int64_t iw = l2; iw < h2; iw++)
            sum += (double)x[ih * s[3] + iw * s[4]];
    float *y = (float *)a->out + n * t[0] + c * t[1] + oh * t[3] + ow * t[4];
    double v = a->alpha * (cnt > 0 ? sum / cnt : 0.0);
    if (a->beta != 0.0)
        v += a->beta * (double)*y;
    *y = (float)v;
}

static void pa_bwd_exact(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t n, int64_t c,
                         int64_t ih, int64_t iw)
{
    int64_t olo[2], ohi[2], l, h;
    const int64_t *t = p->dys, *q = p->dxs;
    const float *dy = (const float *)a->dy + n * t[0] + c * t[1];
    double acc = 0.0;
    if (pa_windows(p, 1, ih, &olo[0], &ohi[0]) && pa_windows(p, 2, iw, &olo[1], &ohi[1]))
        for (int64_t oh = olo[0]; oh <= ohi[0]; oh++)
            for (int64_t ow = olo[1]; ow <= ohi[1]; ow++)
                acc += (double)dy[oh * t[3] + ow * t[4]] /
                       (pa_win(p, 1, oh, &l, &h) * pa_win(p, 2, ow, &l, &h));
    float *dx = (float *)a->out + n * q[0] + c * q[1] + ih * q[3] + iw * q[4];
    double v = a->alpha * acc;
    if (a->beta != 0.0)
        v += a->beta * (double)*dx;
    *dx = (float)v;
}

/* Lanes bad (bits) of the vector just stored at y (channels c ..; old: their values before)
 * by the ref's formula, each lane alone as pooling_cpu.c's box rows (the other lanes keep the
 * float results, so NCHW and NHWC agree). */
static void pa_redo(const fd_pool_problem_t *p, const fd_pool_args_t *a, int bwd, int64_t n,
                    int64_t c, int64_t h, int64_t w, int bad, float *y, const float *old)
{
    for (; bad; bad &= bad - 1) {
        const int j = __builtin_ctz((unsigned)bad);
        y[j] = old[j];
        (bwd ? pa_bwd_exact : pa_fwd_exact)(p, a, n, c + j, h, w);
    }
}

/* ---- forward: input rows streamed once (max: row maxima; other averages: double sums) ---- */

typedef struct {
    int64_t ck, cb; /* channels per unit, and per ring pixel (ck rounded up to 8) */
    int64_t slots;  /* ring rows: kh (max) or ceil(kh / sh) (open output rows) */
    int64_t band, nck, nband;
} pa_rows_t;

static int pa_rows_plan(const fd_pool_problem_t *p, pa_rows_t *g)
{
    const int mx = pa_is_max(p);
    const int64_t OW = p->out[2], kh = p->win[1], sh = p->stride[1];
    if (OW < 1 || p->out[1] < 1 || sh < 1 || kh < 1)
        return 0;
    g->slots = mx ? kh : (kh + sh - 1) / sh;
    const int64_t cap = PA_RING / (mx ? 4 : 8) / (g->slots * OW) / 8 * 8;
    if (cap < 8)
        return 0;
    const int64_t cb = (p->c + 7) / 8 * 8;
    g->ck = cb <= cap ? p->c : cap;
    g->cb = (g->ck + 7) / 8 * 8;
    g->nck = (p->c + g->ck - 1) / g->ck;
    g->band = p->n * g->nck >= 8 ? p->out[1] : pa_min(p->out[1], PA_FBAND);
    g->nband = (p->out[1] + g->band - 1) / g->band;
    return 1;
}

/* h[ow * cb + c] = the maximum of output column ow's readable taps in one input row (kx order,
 * NaN when PROPAGATE_NAN and a tap is NaN), channels [0, len). */
PA_TGT static void pa_rowmax(const fd_pool_problem_t *p, const float *row, int64_t len, int64_t cb,
                             float *h)
{
    const int64_t OW = p->out[2], ps = p->xs[4];
    const int prop = p->propagate_nan;
    const int whole = len % 8 == 0 && !prop;
    for (int64_t ow = 0; ow < OW; ow++) {
        int64_t lo, hi;
        pa_win(p, 2, ow, &lo, &hi);
        if (whole && hi - lo == 3) { /* the loop below for three taps, whole vectors */
            const float *r0 = row + lo * ps, *r1 = r0 + ps, *r2 = r1 + ps;
            for (int64_t c = 0; c < len; c += 8) {
                __m256 acc = _mm256_max_ps(_mm256_loadu_ps(r0 + c), _mm256_set1_ps(-INFINITY));
                acc = _mm256_max_ps(_mm256_loadu_ps(r1 + c), acc);
                _mm256_storeu_ps(h + ow * cb + c, _mm256_max_ps(_mm256_loadu_ps(r2 + c), acc));
            }
            continue;
        }
        for (int64_t c = 0; c < len; c += 8) {
            __m256 acc = _mm256_set1_ps(-INFINITY), nan = _mm256_setzero_ps();
            for (int64_t iw = lo; iw < hi; iw++) {
                const __m256 v = pa_ld(row + iw * ps + c, len - c);
                if (prop)
                    nan = _mm256_or_ps(nan, pa_nan(v));
                acc = _mm256_max_ps(v, acc); /* ties and NaN keep acc */
            }
            _mm256_storeu_ps(h + ow * cb + c, _mm256_blendv_ps(acc, _mm256_set1_ps(NAN), nan));
        }
    }
}

/* s[ow * cb + c] (+)= output column ow's readable taps in one input row, in double, kx order. */
PA_TGT static void pa_rowsum(const fd_pool_problem_t *p, const float *row, int64_t len, int64_t cb,
                             int first, double *s)
{
    const int64_t OW = p->out[2], ps = p->xs[4];
    for (int64_t ow = 0; ow < OW; ow++) {
        int64_t lo, hi;
        pa_win(p, 2, ow, &lo, &hi);
        double *sr = s + ow * cb;
        for (int64_t c = 0; c < len; c += 8) {
            __m256d s0 = first ? _mm256_setzero_pd() : _mm256_loadu_pd(sr + c);
            __m256d s1 = first ? _mm256_setzero_pd() : _mm256_loadu_pd(sr + c + 4);
            for (int64_t iw = lo; iw < hi; iw++) {
                const __m256 v = pa_ld(row + iw * ps + c, len - c);
                s0 = _mm256_add_pd(s0, pa_lo(v));
                s1 = _mm256_add_pd(s1, pa_hi(v));
            }
            _mm256_storeu_pd(sr + c, s0);
            _mm256_storeu_pd(sr + c + 4, s1);
        }
    }
}

PA_TGT static void pa_fwd_rows(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                               int64_t u1)
{
    pa_rows_t g;
    pa_rows_plan(p, &g);
    const int64_t OH = p->out[1], OW = p->out[2], kh = p->win[1], sh = p->stride[1];
    const int mx = pa_is_max(p), prop = p->propagate_nan;
    const int64_t *s = p->xs, *t = p->ys, cb = g.cb;
    const double alpha = a->alpha, beta = a->beta;
    union {
        float f[PA_RING / 4];
        double d[PA_RING / 8];
    } ring;
    for (int64_t u = u0; u < u1; u++) {
        const int64_t ci = u % g.nck, bi = (u / g.nck) % g.nband, n = u / (g.nck * g.nband);
        const int64_t c0 = ci * g.ck, len = pa_min(g.ck, p->c - c0);
        const int64_t oh0 = bi * g.band, oh1 = pa_min(OH, oh0 + g.band);
        const float *xb = (const float *)a->x + n * s[0] + c0 * s[1];
        float *yb = (float *)a->out + n * t[0] + c0 * t[1];
        if (mx) {
            int64_t have = 0; /* input rows below have are in the ring */
            for (int64_t oh = oh0; oh < oh1; oh++) {
                int64_t lo, hi;
                pa_win(p, 1, oh, &lo, &hi);
                for (int64_t ih = pa_max(have, lo); ih < hi; ih++)
                    pa_rowmax(p, xb + ih * s[3], len, cb, ring.f + (ih % kh) * OW * cb);
                have = pa_max(have, hi);
                float *y = yb + oh * t[3];
                const float *rr[PA_RING / 32]; /* the window's rows in the ring (kh <= this) */
                for (int64_t ih = lo; ih < hi; ih++)
                    rr[ih - lo] = ring.f + (ih % kh) * OW * cb;
                const int plain3 =
                    hi - lo == 3 && len % 8 == 0 && !prop && alpha == 1.0 && beta == 0.0;
                for (int64_t ow = 0; ow < OW && plain3; ow++) /* the loop below, unrolled */
                    for (int64_t c = 0; c < len; c += 8) {
                        const int64_t o = ow * cb + c;
                        __m256 acc =
                            _mm256_max_ps(_mm256_loadu_ps(rr[0] + o), _mm256_set1_ps(-INFINITY));
                        acc = _mm256_max_ps(_mm256_loadu_ps(rr[1] + o), acc);
                        acc = _mm256_max_ps(_mm256_loadu_ps(rr[2] + o), acc);
                        _mm256_storeu_ps(y + ow * t[4] + c,
                                         _mm256_max_ps(acc, _mm256_set1_ps(-FLT_MAX)));
                    }
                for (int64_t ow = 0; ow < OW && !plain3; ow++)
                    for (int64_t c = 0; c < len; c += 8) {
                        __m256 acc = _mm256_set1_ps(-INFINITY), nan = _mm256_setzero_ps();
                        for (int64_t ih = lo; ih < hi; ih++) {
                            const __m256 v = _mm256_loadu_ps(rr[ih - lo] + ow * cb + c);
                            if (prop)
                                nan = _mm256_or_ps(nan, pa_nan(v));
                            acc = _mm256_max_ps(v, acc);
                        }
                        pa_st_max(y + ow * t[4] + c, len - c, acc, nan, alpha, beta);
                    }
            }
            continue;
        }
        /* averages: each output row's double sums start on its first window row and take the
         * rows as they stream by, in order; windows without a readable row give 0 */
        int64_t l0, h0, l1, h1;
        pa_win(p, 1, oh0, &l0, &h0);
        pa_win(p, 1, oh1 - 1, &l1, &h1);
        for (int64_t oh = oh0; oh < oh1; oh++) {
            int64_t lo, hi;
            pa_win(p, 1, oh, &lo, &hi);
            for (int64_t ow = 0; lo >= hi && ow < OW; ow++)
                for (int64_t c = 0; c < len; c += 8)
                    pa_st_d(yb + oh * t[3] + ow * t[4] + c, len - c, _mm256_setzero_pd(),
                            _mm256_setzero_pd(), alpha, beta, 0);
        }
        for (int64_t ih = pa_min(l0, l1); ih < pa_max(h0, h1); ih++)
            for (int64_t oh = pa_max(oh0, pa_fdiv(ih + p->pad[1] - kh, sh) + 1);
                 oh < oh1 && oh * sh - p->pad[1] <= ih; oh++) {
                int64_t lo, hi;
                const double ch = pa_win(p, 1, oh, &lo, &hi);
                if (ih < lo || ih >= hi)
                    continue;
                double *sums = ring.d + (oh % g.slots) * OW * cb;
                pa_rowsum(p, xb + ih * s[3], len, cb, ih == lo, sums);
                if (ih != hi - 1)
                    continue;
                float *y = yb + oh * t[3];
                for (int64_t ow = 0; ow < OW; ow++) {
                    int64_t lw, hw;
                    const double cnt = ch * pa_win(p, 2, ow, &lw, &hw);
                    for (int64_t c = 0; c < len; c += 8) {
                        __m256d v0 = _mm256_loadu_pd(sums + ow * cb + c);
                        __m256d v1 = _mm256_loadu_pd(sums + ow * cb + c + 4);
                        if (cnt > 0)
                            v0 = pa_divd(v0, cnt), v1 = pa_divd(v1, cnt);
                        else
                            v0 = v1 = _mm256_setzero_pd();
                        pa_st_d(y + ow * t[4] + c, len - c, v0, v1, alpha, beta, 0);
                    }
                }
            }
    }
}

/* ---- other averages of few taps: each output pixel summed from its taps in place ---- */

#define PA_FTAPS 16 /* window taps of the in-place average forward, at most */

/* Output rows per unit of the in-place forward (all of them when the images alone are enough
 * units). */
static int64_t pa_favg_band(const fd_pool_problem_t *p)
{
    return p->n >= 8 ? p->out[1] : pa_min(p->out[1], PA_FBAND);
}

/* +0.0 plus the taps at q + off[0 .. nt) in double, in window order, into *s0 (channels 0 .. 3)
 * and *s1 (4 .. 7); m channels left (full: m >= 8, plain loads). */
PA_TGT static inline __attribute__((always_inline)) void
pa_tapsum(int nt, const float *q, const int64_t *off, int64_t m, int full, __m256d *s0, __m256d *s1)
{
    __m256d a0 = _mm256_setzero_pd(), a1 = a0;
    for (int k = 0; k < nt; k++) {
        if (full) {
            a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm_loadu_ps(q + off[k])));
            a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm_loadu_ps(q + off[k] + 4)));
        } else {
            const __m256 v = pa_ld(q + off[k], m);
            a0 = _mm256_add_pd(a0, pa_lo(v));
            a1 = _mm256_add_pd(a1, pa_hi(v));
        }
    }
    *s0 = a0, *s1 = a1;
}

/* One output pixel, channels [0, len): the ref's double sum of its nt taps (x + off[k]) over
 * cnt (0 when cnt is not positive), blended, stored at y (vnt: streaming stores). */
PA_TGT static inline __attribute__((always_inline)) void pa_favg_px(int nt, const float *x,
                                                                    const int64_t *off, int64_t len,
                                                                    double cnt, double alpha,
                                                                    double beta, int vnt, float *y)
{
    const int p2 = pa_pow2(cnt), pos = cnt > 0;
    const __m256d vq = _mm256_set1_pd(p2 ? 1.0 / cnt : cnt);
    __m256d s0, s1;
    int64_t c = 0;
    for (; c + 8 <= len; c += 8) {
        if (nt > 0 && c % 16 == 0) /* the last tap's row: the newest one */
            pa_ahead(x + off[nt - 1] + c);
        pa_tapsum(nt, x + c, off, 8, 1, &s0, &s1);
        if (!pos)
            s0 = s1 = _mm256_setzero_pd();
        else if (p2)
            s0 = _mm256_mul_pd(s0, vq), s1 = _mm256_mul_pd(s1, vq);
        else
            s0 = _mm256_div_pd(s0, vq), s1 = _mm256_div_pd(s1, vq);
        pa_st_d(y + c, 8, s0, s1, alpha, beta, vnt);
    }
    if (c < len) {
        pa_tapsum(nt, x + c, off, len - c, 0, &s0, &s1);
        if (!pos)
            s0 = s1 = _mm256_setzero_pd();
        else
            s0 = pa_divd(s0, cnt), s1 = pa_divd(s1, cnt);
        pa_st_d(y + c, len - c, s0, s1, alpha, beta, 0);
    }
}

/* Averages forward (not the box rows) with at most PA_FTAPS taps a window: each output pixel
 * reads its taps where they are (rows of a window overlapping the next one's come from the
 * cache), the ref's sum, quotient and blend, the ref's bits; no ring. */
PA_TGT static void pa_fwd_avg(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                              int64_t u1)
{
    const int64_t OH = p->out[1], OW = p->out[2], band = pa_favg_band(p);
    const int64_t nband = (OH + band - 1) / band, *s = p->xs, *t = p->ys;
    const double alpha = a->alpha, beta = a->beta;
    const int vnt = pa_nt_ok(p, a, t, p->out);
    for (int64_t u = u0; u < u1; u++) {
        const int64_t n = u / nband, oh0 = (u % nband) * band, oh1 = pa_min(OH, oh0 + band);
        const float *xb = (const float *)a->x + n * s[0];
        float *yb = (float *)a->out + n * t[0];
        for (int64_t oh = oh0; oh < oh1; oh++) {
            int64_t l1, h1, l2, h2, off[PA_FTAPS];
            const double ch = pa_win(p, 1, oh, &l1, &h1);
            for (int64_t ow = 0; ow < OW; ow++) {
                const double cnt = ch * pa_win(p, 2, ow, &l2, &h2);
                int nt = 0;
                for (int64_t ih = l1; ih < h1; ih++)
                    for (int64_t iw = l2; iw < h2; iw++)
                        off[nt++] = ih * s[3] + iw * s[4];
                float *y = yb + oh * t[3] + ow * t[4];
                if (nt == 4) /* 2x2 (the common counts as constants: unrolled) */
                    pa_favg_px(4, xb, off, p->c, cnt, alpha, beta, vnt, y);
                else if (nt == 9)
                    pa_favg_px(9, xb, off, p->c, cnt, alpha, beta, vnt, y);
                else
                    pa_favg_px(nt, xb, off, p->c, cnt, alpha, beta, vnt, y);
            }
        }
    }
    if (vnt)
        _mm_sfence();
}

/* ---- stride-1 averages along W: the box rows (float sums, pooling_cpu.c's operations) ---- */

typedef struct {
    int64_t cb, ck, rs; /* floats per column, columns per unit, floats per ring row */
    int64_t nck;
} pa_box_t;

static int pa_box_plan(const fd_pool_problem_t *p, int bwd, pa_box_t *g)
{
    if (pa_is_max(p) || p->stride[2] != 1 || p->pad[1] < 0 || p->pad[2] < 0 || p->win[1] > 16 ||
        p->win[2] > 16 || p->out[2] > PA_COLS || p->in[2] > PA_COLS || p->out[1] < 1)
        return 0;
    const int64_t ncol = bwd ? p->in[2] : p->out[2], kh = p->win[1], kw = p->win[2];
    g->cb = (p->c + 7) / 8 * 8;
    g->ck = pa_max(1, pa_min(ncol, PA_BOX_RING / ((kh + bwd) * g->cb)));
    g->rs = g->ck * g->cb;
    g->nck = (ncol + g->ck - 1) / g->ck;
    return kh * g->rs + (bwd ? (g->ck + kw - 1) * g->cb : 0) <= PA_BOX;
}

/* +0.0 plus rows rp[0 .. nr) at f, in row order. */
PA_TGT static inline __m256 pa_vsum(float *const *rp, int nr, int64_t f)
{
    __m256 s = _mm256_setzero_ps();
    for (int r = 0; r < nr; r++)
        s = _mm256_add_ps(s, _mm256_loadu_ps(rp[r] + f));
    return s;
}

/* One plain (alpha 1, beta 0) output row of the box forward with three window rows and C a
 * multiple of 8, columns [w0, w1): ((+0 + r0) + r1) + r2 divided by the Markstein step with no
 * test per vector; returns 0 when some sum was not finite or tiny (|v| < 2^-80, not 0), whose
 * quotient needs fd_pool_avx2_divf's checks or the ref's formula: the caller then redoes the row
 * (beta 0: the stores lose nothing). */
PA_TGT static int pa_box_row3(float *const *rp, const double *cw, double ch, int64_t w0, int64_t w1,
                              int64_t C, float *yr, int64_t ps, int nt)
{
    __m256 odd = _mm256_setzero_ps();
    const __m256 sign = _mm256_set1_ps(-0.0f), big = _mm256_set1_ps(FLT_MAX);
    const __m256 tiny = _mm256_set1_ps(0x1p-80f), zero = _mm256_setzero_ps();
    for (int64_t ow = w0; ow < w1; ow++) {
        const float cf = (float)(ch * cw[ow]);
        if (!(cf > 0))
            return 0; /* a window without a count: the general row gives 0 */
        const __m256 fc = _mm256_set1_ps(cf), fi = _mm256_set1_ps(1.0f / cf);
        const int64_t f0 = (ow - w0) * C;
        for (int64_t c = 0; c < C; c += 8) {
            const __m256 v =
                _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(zero, _mm256_load_ps(rp[0] + f0 + c)),
                                            _mm256_load_ps(rp[1] + f0 + c)),
                              _mm256_load_ps(rp[2] + f0 + c));
            const __m256 av = _mm256_andnot_ps(sign, v);
            odd = _mm256_or_ps(odd,
                               _mm256_or_ps(_mm256_cmp_ps(av, big, _CMP_NLE_UQ),
                                            _mm256_and_ps(_mm256_cmp_ps(av, tiny, _CMP_LT_OQ),
                                                          _mm256_cmp_ps(av, zero, _CMP_NEQ_OQ))));
            const __m256 q0 = _mm256_mul_ps(v, fi);
            pa_st(yr + ow * ps + c, 8, _mm256_fmadd_ps(_mm256_fnmadd_ps(q0, fc, v), fi, q0), nt);
        }
    }
    return !_mm256_movemask_ps(odd);
}

PA_TGT static void pa_box_fwd(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                              int64_t u1)
{
    pa_box_t g;
    pa_box_plan(p, 0, &g);
    const int64_t H = p->in[1], W = p->in[2], OH = p->out[1], OW = p->out[2], C = p->c;
    const int64_t kh = p->win[1], kw = p->win[2], sh = p->stride[1], ph = p->pad[1];
    const int64_t pw = p->pad[2], cb = g.cb, rs = g.rs, ps = p->xs[4];
    const int64_t *s = p->xs, *t = p->ys;
    const double alpha = a->alpha, beta = a->beta;
    const int plain = alpha == 1.0 && beta == 0.0;
    const int nt = plain && pa_nt_ok(p, a, t, p->out);
    float ring[PA_BOX] __attribute__((aligned(32)));
    double cw[PA_COLS];
    for (int64_t ow = 0; ow < OW; ow++) {
        int64_t l, h;
        cw[ow] = pa_win(p, 2, ow, &l, &h);
    }
    for (int64_t u = u0; u < u1; u++) {
        const int64_t n = u / g.nck, w0 = (u % g.nck) * g.ck, w1 = pa_min(OW, w0 + g.ck);
        const float *xb = (const float *)a->x + n * s[0];
        float *yb = (float *)a->out + n * t[0];
        int64_t have = 0; /* input rows summed: [.., have) */
        for (int64_t oh = 0; oh < OH; oh++) {
            const int64_t h0 = oh * sh - ph, lo = pa_max(h0, 0), hi = pa_min(h0 + kh, H);
            for (int64_t ih = pa_max(have, lo); ih < hi; ih++) {
                /* column ow: its readable taps in kx order, the first one as the start */
                const float *xr = xb + ih * s[3];
                float *d = ring + (ih % kh) * rs - w0 * cb;
                for (int64_t ow = w0; ow < w1; ow++) {
                    const int64_t k0 = pa_max(0, pw - ow), k1 = pa_min(kw, W + pw - ow);
                    if (k1 - k0 == 3 && C % 8 == 0) { /* the loop below for three taps */
                        const float *q = xr + (ow + k0 - pw) * ps;
                        for (int64_t c = 0; c < cb; c += 16)
                            pa_ahead(q + 2 * ps + c);
                        for (int64_t c = 0; c < cb; c += 8)
                            _mm256_store_ps(
                                d + ow * cb + c,
                                _mm256_add_ps(_mm256_add_ps(_mm256_loadu_ps(q + c),
                                                            _mm256_loadu_ps(q + ps + c)),
                                              _mm256_loadu_ps(q + 2 * ps + c)));
                        continue;
                    }
                    for (int64_t c = 0; c < cb; c += 8) {
                        __m256 v = _mm256_setzero_ps();
                        if (k0 < k1) {
                            const float *q = xr + (ow + k0 - pw) * ps + c;
                            v = pa_ld(q, C - c);
                            for (int64_t kx = k0 + 1; kx < k1; kx++)
                                v = _mm256_add_ps(v, pa_ld(q + (kx - k0) * ps, C - c));
                        }
                        _mm256_store_ps(d + ow * cb + c, v);
                    }
                }
            }
            have = pa_max(have, hi);
            float *rp[16];
            int nr = 0;
            for (int64_t ih = lo; ih < hi; ih++)
                rp[nr++] = ring + (ih % kh) * rs;
            int64_t l, h;
            const double ch = pa_win(p, 1, oh, &l, &h);
            float *yr = yb + oh * t[3];
            if (plain && nr == 3 && C % 8 == 0 && pa_box_row3(rp, cw, ch, w0, w1, C, yr, t[4], nt))
                continue; /* done: no sum needed fd_pool_avx2_divf's checks or the ref's formula */
            for (int64_t ow = w0; ow < w1; ow++) {
                const double cnt = ch * cw[ow];
                const float cf = (float)cnt;
                const __m256 fc = _mm256_set1_ps(cf), fi = _mm256_set1_ps(1.0f / cf);
                for (int64_t c = 0; c < C; c += 8) {
                    const __m256 v = pa_vsum(rp, nr, (ow - w0) * cb + c);
                    float *y = yr + ow * t[4] + c;
                    const int bad = pa_nonfinite(v, C - c);
                    float old[8]; /* the lanes the ref's formula blends with */
                    if (bad)
                        _mm256_storeu_ps(old, pa_ld(y, C - c));
                    if (cnt > 0 && plain)
                        pa_st(y, C - c, fd_pool_avx2_divf(v, fc, fi), nt);
                    else
                        pa_st_d(y, C - c,
                                cnt > 0 ? _mm256_div_pd(pa_lo(v), _mm256_set1_pd(cnt))
                                        : _mm256_setzero_pd(),
                                cnt > 0 ? _mm256_div_pd(pa_hi(v), _mm256_set1_pd(cnt))
                                        : _mm256_setzero_pd(),
                                alpha, beta, nt);
                    pa_redo(p, a, 0, n, c, oh, ow, bad, y, old);
                }
            }
        }
    }
    if (nt)
        _mm_sfence(); /* the streamed rows, before the parallel loop's barrier */
}

PA_TGT static void pa_box_bwd(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                              int64_t u1)
{
    pa_box_t g;
    pa_box_plan(p, 1, &g);
    const int64_t H = p->in[1], W = p->in[2], OW = p->out[2], C = p->c;
    const int64_t kh = p->win[1], kw = p->win[2], pw = p->pad[2], cb = g.cb, rs = g.rs;
    const int64_t *t = p->dys, *q = p->dxs;
    const float alpha = (float)a->alpha, beta = (float)a->beta;
    const int nt = pa_nt_ok(p, a, q, p->in);
    float ring[PA_BOX] __attribute__((aligned(32)));
    float *const row = ring + kh * rs; /* dy / count of the unit's columns of one row */
    float cw[PA_COLS];
    for (int64_t ow = 0; ow < OW; ow++) {
        int64_t l, h;
        cw[ow] = (float)pa_win(p, 2, ow, &l, &h);
    }
    for (int64_t u = u0; u < u1; u++) {
        const int64_t n = u / g.nck, w0 = (u % g.nck) * g.ck, w1 = pa_min(W, w0 + g.ck);
        /* dx columns [w0, w1) take dy columns ow = iw + pw - (kw - 1) .. iw + pw: the row
         * holds columns g0 .. g0 + ng, zero outside [0, OW) */
        const int64_t g0 = w0 + pw - (kw - 1), ng = w1 - w0 + kw - 1;
        memset(row, 0, (size_t)(ng * cb) * sizeof(float));
        const float *gb = (const float *)a->dy + n * t[0];
        float *dxb = (float *)a->out + n * q[0];
        int64_t have = 0; /* output rows summed: [.., have) */
        for (int64_t ih = 0; ih < H; ih++) {
            int64_t olo, ohi;
            float *dr = dxb + ih * q[3];
            const int ok = pa_windows(p, 1, ih, &olo, &ohi);
            for (int64_t oh = ok ? pa_max(have, olo) : 1; ok && oh <= ohi; oh++) {
                int64_t l, h;
                const float ch = (float)pa_win(p, 1, oh, &l, &h);
                const float *gr = gb + oh * t[3];
                for (int64_t ow = pa_max(0, g0); ow < pa_min(OW, g0 + ng); ow++) {
                    /* the ref's count (1 * H) * W is exact in float too */
                    const float cf = ch * cw[ow];
                    const __m256 vc = _mm256_set1_ps(cf), vi = _mm256_set1_ps(1.0f / cf);
                    for (int64_t c = 0; c < C; c += 16)
                        pa_ahead(gr + ow * t[4] + c);
                    for (int64_t c = 0; c < C; c += 8) {
                        const __m256 v = pa_ld(gr + ow * t[4] + c, C - c);
                        _mm256_storeu_ps(row + (ow - g0) * cb + c,
                                         cf > 0 ? fd_pool_avx2_divf(v, vc, vi)
                                                : _mm256_setzero_ps());
                    }
                }
                float *d = ring + (oh % kh) * rs;
                for (int64_t f = 0; kw == 3 && f < (w1 - w0) * cb; f += 8) /* unrolled */
                    _mm256_store_ps(d + f,
                                    _mm256_add_ps(_mm256_add_ps(_mm256_loadu_ps(row + f),
                                                                _mm256_loadu_ps(row + f + cb)),
                                                  _mm256_loadu_ps(row + f + 2 * cb)));
                for (int64_t f = 0; kw != 3 && f < (w1 - w0) * cb; f += 8) {
                    __m256 v = _mm256_loadu_ps(row + f);
                    for (int64_t kx = 1; kx < kw; kx++)
                        v = _mm256_add_ps(v, _mm256_loadu_ps(row + f + kx * cb));
                    _mm256_store_ps(d + f, v);
                }
            }
            if (ok)
                have = pa_max(have, ohi + 1);
            float *rp[16];
            int nr = 0;
            for (int64_t oh = olo; ok && oh <= ohi; oh++)
                rp[nr++] = ring + (oh % kh) * rs;
            if (nr == 3 && alpha == 1.0f && beta == 0.0f && C % 8 == 0 && q[4] == C) {
                /* the common row: ((+0 + r0) + r1) + r2 over the unit's packed pixels, one
                 * test for non-finite results per row (those pixels redone below) */
                const int64_t nf = (w1 - w0) * C;
                float *d = dr + w0 * C;
                __m256 odd = _mm256_setzero_ps();
                for (int64_t f = 0; f < nf; f += 8) {
                    const __m256 v = _mm256_add_ps(
                        _mm256_add_ps(_mm256_add_ps(_mm256_setzero_ps(), _mm256_load_ps(rp[0] + f)),
                                      _mm256_load_ps(rp[1] + f)),
                        _mm256_load_ps(rp[2] + f));
                    odd =
                        _mm256_or_ps(odd, _mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), v),
                                                        _mm256_set1_ps(FLT_MAX), _CMP_NLE_UQ));
                    pa_st(d + f, 8, v, nt);
                }
                for (int64_t f = 0; _mm256_movemask_ps(odd) && f < nf; f += 8)
                    for (int bad = pa_nonfinite(pa_vsum(rp, 3, f), 8); bad; bad &= bad - 1)
                        pa_bwd_exact(p, a, n, f % C + __builtin_ctz((unsigned)bad), ih, w0 + f / C);
                continue;
            }
            for (int64_t iw = w0; iw < w1; iw++)
                for (int64_t c = 0; c < C; c += 8) {
                    __m256 v = pa_vsum(rp, nr, (iw - w0) * cb + c);
                    float *dx = dr + iw * q[4] + c;
                    if (alpha != 1.0f)
                        v = _mm256_mul_ps(_mm256_set1_ps(alpha), v);
                    if (beta != 0.0f)
                        v = _mm256_fmadd_ps(_mm256_set1_ps(beta), pa_ld(dx, C - c), v);
                    const int bad = pa_nonfinite(v, C - c);
                    float old[8];
                    if (bad)
                        _mm256_storeu_ps(old, pa_ld(dx, C - c));
                    pa_st(dx, C - c, v, nt);
                    pa_redo(p, a, 1, n, c, ih, iw, bad, dx, old);
                }
        }
    }
    if (nt)
        _mm_sfence();
}

/* ---- backward: each dx pixel gathered from its windows (max through argmax codes) ---- */

typedef struct {
    int64_t ck, cb, R, nck, nband;
} pa_gat_t;

static int pa_gat_plan(const fd_pool_problem_t *p, pa_gat_t *g)
{
    const int64_t OW = p->out[2], kh = p->win[1], sh = p->stride[1];
    if (p->in[2] > PA_COLS || OW < 1 || sh < 1)
        return 0;
    g->R = (kh + sh - 1) / sh; /* output rows that share a dx row, at most */
    g->cb = (p->c + 7) / 8 * 8;
    g->ck = p->c;
    if (pa_is_max(p)) {
        if (kh * p->win[2] > PA_TAPS)
            return 0;
        const int64_t cap = PA_CODES / (g->R * OW) / 8 * 8;
        if (cap < 8)
            return 0;
        g->ck = g->cb <= cap ? p->c : cap;
        g->cb = (g->ck + 7) / 8 * 8;
    }
    g->nck = (p->c + g->ck - 1) / g->ck;
    g->nband = (p->in[1] + PA_BAND - 1) / PA_BAND;
    return 1;
}

/* Argmax codes of one output pixel, nv vectors of channels from x (the window's readable taps
 * at offsets off[0 .. nt) with codes kc, in window order; len channels left), into out: the
 * ref's rule, the first maximum (strict >; the first tap taken when > -inf, which is the ref's
 * >= -FLT_MAX on floats), NaN taken and final when PROPAGATE_NAN, skipped otherwise. */
PA_TGT static inline __attribute__((always_inline)) void
pa_codes_px(int nv, int prop, const float *x, const int64_t *off, const int32_t *kc, int nt,
            int64_t len, int32_t *out)
{
    __m256 m[4];
    __m256i code[4], done[4];
    for (int j = 0; j < nv; j++) {
        m[j] = _mm256_set1_ps(-INFINITY);
        code[j] = _mm256_set1_epi32(-1), done[j] = _mm256_setzero_si256();
    }
    for (int k = 0; k < nt; k++) {
        const __m256i kv = _mm256_set1_epi32(kc[k]);
        for (int j = 0; j < nv; j++) {
            const __m256 v = nv > 1 ? _mm256_loadu_ps(x + off[k] + 8 * j) : pa_ld(x + off[k], len);
            __m256i gt = _mm256_castps_si256(_mm256_cmp_ps(v, m[j], _CMP_GT_OQ));
            if (prop) {
                const __m256i nn = _mm256_andnot_si256(done[j], _mm256_castps_si256(pa_nan(v)));
                gt = _mm256_or_si256(_mm256_andnot_si256(done[j], gt), nn);
                done[j] = _mm256_or_si256(done[j], nn);
            }
            m[j] = _mm256_blendv_ps(m[j], v, _mm256_castsi256_ps(gt));
            code[j] = _mm256_blendv_epi8(code[j], kv, gt);
        }
    }
    for (int j = 0; j < nv; j++)
        _mm256_storeu_si256((__m256i *)(void *)(out + 8 * j), code[j]);
}

/* Argmax codes (ky * kw + kx, or -1) of output row oh, channels [0, len), into codes; 32
 * channels at a time where there are as many. */
PA_TGT static void pa_codes_row(const fd_pool_problem_t *p, const float *xb, int64_t oh,
                                int64_t len, int64_t cb, int32_t *codes)
{
    const int64_t OW = p->out[2], kw = p->win[2], *s = p->xs;
    const int prop = p->propagate_nan;
    int64_t lo1, hi1, lo2, hi2, off[PA_TAPS];
    int32_t kc[PA_TAPS];
    pa_win(p, 1, oh, &lo1, &hi1);
    const int64_t h0 = oh * p->stride[1] - p->pad[1];
    for (int64_t ow = 0; ow < OW; ow++) {
        pa_win(p, 2, ow, &lo2, &hi2);
        const int64_t w0 = ow * p->stride[2] - p->pad[2];
        int nt = 0;
        for (int64_t i1 = lo1; i1 < hi1; i1++)
            for (int64_t i2 = lo2; i2 < hi2; i2++, nt++)
                off[nt] = i1 * s[3] + i2 * s[4], kc[nt] = (int32_t)((i1 - h0) * kw + (i2 - w0));
        int32_t *out = codes + ow * cb;
        int64_t c = 0;
        for (; c + 32 <= len; c += 32) /* whole vectors (nv > 1: plain loads) */
            if (prop)
                pa_codes_px(4, 1, xb + c, off, kc, nt, len - c, out + c);
            else
                pa_codes_px(4, 0, xb + c, off, kc, nt, len - c, out + c);
        for (; c < len; c += 8)
            if (prop)
                pa_codes_px(1, 1, xb + c, off, kc, nt, len - c, out + c);
            else
                pa_codes_px(1, 0, xb + c, off, kc, nt, len - c, out + c);
    }
}

/* One dx pixel of max backward with alpha 1, beta 0 and nw <= 4 windows (code rows cr, dy
 * pixels gr, the pixel's tap kk in each, ascending window order), channels [0, len): the hit
 * dy of each window, then +0.0 plus them in window order, in float unless a lane of the
 * vector has three hits (then in double, rounded once). */
PA_TGT static inline __attribute__((always_inline)) void
pa_px_vec(int nw, const int32_t *const *cr, const float *const *gr, const int32_t *kk, int64_t c,
          int64_t n, int full, float *dx, int nt)
{
    __m256 v[4];
    __m256i hits = _mm256_setzero_si256();
    for (int i = 0; i < nw; i++) {
        const __m256i cv = _mm256_loadu_si256((const __m256i *)(const void *)(cr[i] + c));
        const __m256i h = _mm256_cmpeq_epi32(cv, _mm256_set1_epi32(kk[i]));
        const __m256 g = full ? _mm256_loadu_ps(gr[i] + c) : pa_ld(gr[i] + c, n);
        v[i] = _mm256_and_ps(g, _mm256_castsi256_ps(h));
        hits = _mm256_sub_epi32(hits, h);
    }
    const __m256i three = _mm256_cmpgt_epi32(hits, _mm256_set1_epi32(2));
    __m256 r = _mm256_setzero_ps();
    if (_mm256_testz_si256(three, three)) {
        for (int i = 0; i < nw; i++)
            r = _mm256_add_ps(r, v[i]);
    } else {
        __m256d r0 = _mm256_setzero_pd(), r1 = r0;
        for (int i = 0; i < nw; i++)
            r0 = _mm256_add_pd(r0, pa_lo(v[i])), r1 = _mm256_add_pd(r1, pa_hi(v[i]));
        r = pa_join(r0, r1);
    }
    if (full && nt)
        _mm256_stream_ps(dx + c, r);
    else if (full)
        _mm256_storeu_ps(dx + c, r);
    else
        pa_st(dx + c, n, r, 0);
}

PA_TGT static inline __attribute__((always_inline)) void pa_px(int nw, const int32_t *const *cr,
                                                               const float *const *gr,
                                                               const int32_t *kk, int64_t len,
                                                               float *dx, int nt)
{
    int64_t c = 0;
    for (; c + 8 <= len; c += 8)
        pa_px_vec(nw, cr, gr, kk, c, 8, 1, dx, nt);
    if (c < len)
        pa_px_vec(nw, cr, gr, kk, c, len - c, 0, dx, 0);
}

PA_TGT static void pa_bwd_gather(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                                 int64_t u1)
{
    pa_gat_t g;
    pa_gat_plan(p, &g);
    const int64_t H = p->in[1], W = p->in[2], OW = p->out[2], R = g.R, cb = g.cb;
    const int64_t kw = p->win[2], sh = p->stride[1], sw = p->stride[2];
    const int64_t ph = p->pad[1], pw = p->pad[2];
    const int mx = pa_is_max(p);
    const int64_t *s = p->xs, *t = p->dys, *q = p->dxs;
    const double alpha = a->alpha, beta = a->beta;
    const int plain = alpha == 1.0 && beta == 0.0;
    const int nt = pa_nt_ok(p, a, q, p->in);
    int32_t codes[PA_CODES] __attribute__((aligned(32)));
    int32_t wlo[PA_COLS], whi[PA_COLS]; /* the windows of each column; whi < wlo: none */
    double cw[PA_COLS];                 /* the W factor of each window's divisor */
    for (int64_t iw = 0; iw < W; iw++) {
        int64_t l, h;
        const int ok = pa_windows(p, 2, iw, &l, &h);
        wlo[iw] = ok ? (int32_t)l : 1, whi[iw] = ok ? (int32_t)h : 0;
    }
    for (int64_t ow = 0; ow < OW; ow++) {
        int64_t l, h;
        cw[ow] = pa_win(p, 2, ow, &l, &h);
    }
    for (int64_t u = u0; u < u1; u++) {
        const int64_t ci = u % g.nck, bi = (u / g.nck) % g.nband, n = u / (g.nck * g.nband);
        const int64_t c0 = ci * g.ck, len = pa_min(g.ck, p->c - c0);
        const int64_t ih0 = bi * PA_BAND, ih1 = pa_min(H, ih0 + PA_BAND);
        const float *xb = (const float *)a->x + n * s[0] + c0 * s[1];
        const float *gb = (const float *)a->dy + n * t[0] + c0 * t[1];
        float *dxb = (float *)a->out + n * q[0] + c0 * q[1];
        int64_t have_lo = 0, have_hi = 0; /* output rows [have_lo, have_hi) hold codes */
        for (int64_t ih = ih0; ih < ih1; ih++) {
            int64_t olo = 0, ohi = -1;
            const int rows_ok = pa_windows(p, 1, ih, &olo, &ohi);
            if (!rows_ok)
                olo = 0, ohi = -1;
            if (rows_ok && mx) {
                if (olo >= have_hi || olo < have_lo)
                    have_lo = have_hi = olo;
                for (; have_hi <= ohi; have_hi++)
                    pa_codes_row(p, xb, have_hi, len, cb, codes + (have_hi % R) * OW * cb);
                have_lo = olo;
            }
            double chv[64]; /* the H factors of this row's windows (at most R <= 64 here) */
            for (int64_t oh = olo; oh <= ohi && oh - olo < 64; oh++) {
                int64_t l, h;
                chv[oh - olo] = pa_win(p, 1, oh, &l, &h);
            }
            for (int64_t iw = 0; iw < W; iw++) {
                const int64_t wl = wlo[iw], wh = whi[iw];
                const int64_t nw = wl <= wh ? (ohi - olo + 1) * (wh - wl + 1) : 0;
                float *dx = dxb + ih * q[3] + iw * q[4];
                if (mx && plain && nw <= 4) {
                    const int32_t *cr[4];
                    const float *gr[4];
                    int32_t kk[4];
                    int k = 0;
                    for (int64_t oh = olo; nw && oh <= ohi; oh++)
                        for (int64_t ow = wl; ow <= wh; ow++, k++) {
                            cr[k] = codes + (oh % R) * OW * cb + ow * cb;
                            gr[k] = gb + oh * t[3] + ow * t[4];
                            kk[k] = (int32_t)((ih - (oh * sh - ph)) * kw + (iw - (ow * sw - pw)));
                        }
                    if (nw == 1) /* the common counts as constants (unrolled) */
                        pa_px(1, cr, gr, kk, len, dx, nt);
                    else if (nw == 2)
                        pa_px(2, cr, gr, kk, len, dx, nt);
                    else if (nw == 4)
                        pa_px(4, cr, gr, kk, len, dx, nt);
                    else
                        pa_px((int)nw, cr, gr, kk, len, dx, nt);
                    continue;
                }
                if (!mx && plain && nw == 1 && pa_pow2(chv[0] * cw[wl])) {
                    /* one window, a power-of-two count: +0 + dy * (1 / count), the exact
                     * quotient rounded once (2x2 stride 2) */
                    const __m256 f = _mm256_set1_ps((float)(1.0 / (chv[0] * cw[wl])));
                    const float *gv = gb + olo * t[3] + wl * t[4];
                    int64_t c = 0;
                    for (; c + 8 <= len; c += 8)
                        pa_st(dx + c, 8,
                              _mm256_add_ps(_mm256_setzero_ps(),
                                            _mm256_mul_ps(_mm256_loadu_ps(gv + c), f)),
                              nt);
                    if (c < len)
                        pa_st(dx + c, len - c,
                              _mm256_add_ps(_mm256_setzero_ps(),
                                            _mm256_mul_ps(pa_ld(gv + c, len - c), f)),
                              0);
                    continue;
                }
                for (int64_t c = 0; c < len; c += 8) {
                    const int64_t m = len - c;
                    const int vnt = nt && m >= 8;
                    if (!mx && plain && nw <= 1) {
                        /* one window: +0 + dy / count in float (the double quotient rounded) */
                        __m256 r = _mm256_setzero_ps();
                        if (nw) {
                            const float cf = (float)(chv[0] * cw[wl]);
                            const __m256 gv = pa_ld(gb + olo * t[3] + wl * t[4] + c, m);
                            r = fd_pool_avx2_divf(gv, _mm256_set1_ps(cf),
                                                  _mm256_set1_ps(1.0f / cf));
                            r = _mm256_add_ps(_mm256_setzero_ps(), r);
                        }
                        pa_st(dx + c, m, r, vnt);
                        continue;
                    }
                    __m256d r0 = _mm256_setzero_pd(), r1 = r0;
                    for (int64_t oh = olo; nw && oh <= ohi; oh++)
                        for (int64_t ow = wl; ow <= wh; ow++) {
                            __m256 gv = pa_ld(gb + oh * t[3] + ow * t[4] + c, m);
                            if (mx) {
                                const int32_t kk =
                                    (int32_t)((ih - (oh * sh - ph)) * kw + (iw - (ow * sw - pw)));
                                const __m256i cv = _mm256_loadu_si256(
                                    (const __m256i *)(const void *)(codes + (oh % R) * OW * cb +
                                                                    ow * cb + c));
                                gv = _mm256_and_ps(gv, _mm256_castsi256_ps(_mm256_cmpeq_epi32(
                                                           cv, _mm256_set1_epi32(kk))));
                                r0 = _mm256_add_pd(r0, pa_lo(gv));
                                r1 = _mm256_add_pd(r1, pa_hi(gv));
                            } else {
                                int64_t l, h;
                                const double cnt =
                                    (oh - olo < 64 ? chv[oh - olo] : pa_win(p, 1, oh, &l, &h)) *
                                    cw[ow];
                                r0 = _mm256_add_pd(r0, pa_divd(pa_lo(gv), cnt));
                                r1 = _mm256_add_pd(r1, pa_divd(pa_hi(gv), cnt));
                            }
                        }
                    pa_st_d(dx + c, m, r0, r1, alpha, beta, vnt);
                }
            }
        }
    }
    if (nt)
        _mm_sfence();
}

typedef void (*pa_fn)(const fd_pool_problem_t *, const fd_pool_args_t *, int64_t, int64_t);

/* Units [0, units) of fn in groups of PA_GROUP, the groups spread over the threads (the OpenMP
 * loop stays outside the AVX2 functions, as pooling_cpu.c's pf_par). */
static void pa_par(pa_fn fn, const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t units)
{
    const int64_t groups = (units + PA_GROUP - 1) / PA_GROUP;
    const int64_t work = p->n * p->c * p->in[1] * p->in[2];
#pragma omp parallel for schedule(static) if (work >= FD_CPU_PAR_MIN / 4 && groups > 1)
    for (int64_t gi = 0; gi < groups; gi++)
        fn(p, a, gi * PA_GROUP, pa_min(units, (gi + 1) * PA_GROUP));
}

int fd_pool_avx2_nhwc_run(const fd_pool_problem_t *p, const fd_pool_args_t *a, int bwd)
{
    if (p->dt != CUDNN_DATA_FLOAT || !pa_isa_ok())
        return 0;
    if (p->in[0] != 1 || p->out[0] != 1 || p->win[0] != 1 || p->pad[0] != 0)
        return 0; /* 1-d and 3-d: the double blocks */
    const int64_t *t1 = bwd ? p->dys : p->ys, *t2 = bwd ? p->dxs : p->xs;
    if (p->xs[1] != 1 || t1[1] != 1 || t2[1] != 1 || p->c < 1 || p->n < 1)
        return 0;
    for (int d = 1; d < 3; d++)
        if (p->in[d] < 1 || p->out[d] < 1 || p->stride[d] < 1 || p->win[d] < 1 ||
            p->in[d] + p->pad[d] + p->win[d] >= (1 << 29) || p->out[d] >= (1 << 29))
            return 0;
    pa_box_t box;
    if (pa_box_plan(p, bwd, &box)) {
        pa_par(bwd ? pa_box_bwd : pa_box_fwd, p, a, p->n * box.nck);
        return 1;
    }
    if (!bwd && !pa_is_max(p) && p->win[1] * p->win[2] <= PA_FTAPS) {
        const int64_t band = pa_favg_band(p);
        pa_par(pa_fwd_avg, p, a, p->n * ((p->out[1] + band - 1) / band));
        return 1;
    }
    if (!bwd) {
        pa_rows_t g;
        if (!pa_rows_plan(p, &g))
            return 0;
        pa_par(pa_fwd_rows, p, a, p->n * g.nband * g.nck);
        return 1;
    }
    pa_gat_t g;
    if (!pa_gat_plan(p, &g))
        return 0;
    pa_par(pa_bwd_gather, p, a, p->n * g.nband * g.nck);
    return 1;
}

#else

int fd_pool_avx2_nhwc_run(const fd_pool_problem_t *p, const fd_pool_args_t *a, int bwd)
{
    (void)p, (void)a, (void)bwd;
    return 0;
}

#endif
