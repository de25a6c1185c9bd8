/* SPDX-License-Identifier: MIT */
/*
 * pool_avx2_nchw.c - f32 AVX2 paths of the cpu pooling row (FD_OP_POOL_FWD / _BWD) for tensors
 * with unit stride along W (NCHW, padded rows), 1-d and 2-d, strides 1 or 2 along W, pads
 * 0 .. window - 1. Called by pooling_cpu.c where its AVX-512 paths decline (a CPU without
 * AVX-512, or FREEDNN_CPU_ISA=avx2); returns 0 for everything else (other dtypes, 3-d, crop,
 * other strides, rows beyond the stack buffers, no AVX2 / FMA, FREEDNN_CPU_ISA=generic), which
 * the double blocks of pooling_cpu.c then compute.
 *
 * Results are the ref's bits for every mode except the box rows below: the operations and their
 * order are those of the ref (src/ref/pooling_ref.c), only the loop nest differs.
 * - box rows: 2-d averages of stride 1 along W (the shapes pooling_cpu.c's AVX-512 NCHW box
 *   rows take, within the PA_BOXF ring) are FLOAT, NOT the ref's bits in general (product
 *   decision 2026-11-30, docs/testing.md: within the f32 accumulation bound stated there), with
 *   the same operations in the same order as pf_box_fwd / pf_box_bwd / pf_box_bwd_row3 and as
 *   pool_avx2_nhwc.c's box rows, so NCHW and NHWC give the same bits (8 lanes along W here,
 *   8 channels there): kw-tap row sums in float in kx order (+0 lanes outside the row: masked
 *   loads) into a stack ring of kh rows, each output +0.0 plus its window's rows in row order;
 *   forward divided in float by the product corrected by one FMA step (fd_pool_avx2_divf: the
 * correctly rounded quotient; vdivps for tiny or non-finite estimates) with alpha 1 and beta 0,
 * else the double quotient and the double blend; backward dy / count by fd_pool_avx2_divf once per
 * dy row, its kw-tap sums for every dx column (pad kw - 1 - pw), the blend in float (alpha v, then
 *   + beta dx by one FMA). Lanes whose float sum (forward) or result (backward) is not finite
 *   are left out of the store and recomputed by the ref's formula (pa_box_fexact /
 *   pa_box_bexact): the ref's bits there. Plain rows (alpha 1, beta 0, three window rows) take
 *   the new row's tap sums in the same pass as the output row, with one test per row (a row
 *   that fires is redone by the general loop). Backward keeps the dy / count row between +0
 *   margins on the stack, so its tap sums are plain loads (one thread in L2 / L3 1.06-1.10x,
 *   2026-12-05). Streaming the y / dx rows (beta 0, outputs over FD_CPU_NT_MIN) showed no
 *   gain on the loaded 2-core VM (one thread forward 3.8-3.9 -> 3.9-4.3 ms), so the stores
 *   are plain.
 * - max forward: each input row's maxima over every output column's taps once (kx order), into
 *   a ring of kh rows; each output row folds its rows in window order. vmaxps(v, acc) returns
 *   acc on a tie and on a NaN v, so from -inf it is the ref's first-maximum rule (start at
 *   -FLT_MAX, first value taken when >= it, later ones when >) after a final max with -FLT_MAX;
 *   PROPAGATE_NAN ORs a NaN mask per lane. Padding taps read -inf (never taken): a row whose
 *   first or last vector reaches past it is first copied between -inf margins on the stack
 *   (pa_padrow), so every tap is a plain load (the per-tap masks of the two border vectors
 *   cost more than the copy: 3x3 / 2 one thread in L2, n1c8h112w112 1.2x, n1c64h56w56 1.8x,
 *   2026-12-05); the backward's row argmaxes the same.
 * - max backward, stride 2 along W: per input row the argmax (value, tap) of every window
 *   column, folded per output row into a code per window (ky * kw + kx, -1 for none; rows of
 *   codes and of dy in a ring with -1 / 0 margins); each dx row is gathered from the codes of
 *   the output rows holding it (column iw with iw + pw = 2 j + P is tap P + 2 t of window
 *   j - t), the hits summed from +0.0 in the ref's window order (output rows ascending, then
 *   windows ascending). With alpha 1 and beta 0, a vector whose lanes take at most two hits sums
 *   in float: a float sum of two floats from +0.0 is their double sum rounded once (double
 *   rounding is innocuous for one addition, 53 >= 2 * 24 + 2); otherwise the sums are double.
 *   3-wide windows with one or two output rows a dx row (3x3 / 2) take pa_dx3: odd columns
 *   (at most two hits) always in float, even ones in float unless a lane has three or four
 *   hits, then in double from the same masked terms (not the whole gather again): one thread
 *   in L2 1.25x (n1c8h112w112 and n1c64h56w56, 2026-12-05).
 * - average forward: double sums of the taps in the ref's order (padding taps add +0.0, which
 *   changes no sum that starts at +0.0), divided by the ref's count, blended in double, one
 *   rounding.
 * - average backward, stride 1 along W: each dy row's quotients dy / count in double once (a
 *   ring of kh rows with zero margins), each dx element the double sum of its windows'
 *   quotients in ascending (oh, ow) order, blended in double, one rounding.
 * - average backward, 2-wide windows at stride 2 from column 0 with kh <= sh (each dx element in
 *   at most one window): the quotient row once per output row, each value stored into both
 *   columns; with alpha 1 and beta 0 as vdivps + 0.0f (the double quotient's float rounding is
 *   the correctly rounded float quotient, innocuous again; + 0.0 maps -0 to +0 as the ref's
 *   0.0 + q), else in double.
 * - 3-wide max windows at stride 2 along W without NaN propagation (3x3 / 2, the benchmark's
 *   pooling) take fused rows instead (pa_fwd_max3s2, pa_bwd_max3s2; pa_s2k3): the same
 *   operations, with the border vectors' taps under load masks made once per call (no row copy
 *   between -inf margins, whose loads across two just-made stores waited on the store queue),
 *   each output row's new input rows read in its own pass (only the rows later output rows
 *   take go through the ring), and x / dy prefetched PA_AHEAD bytes ahead (pa_ahead: one
 *   thread from memory had waited on the rows). Backward (alpha 1, beta 0, a dx row in at most
 *   two output rows): a row's kx is its first tap equal to its maximum and a window's code
 *   comes from the first row whose maximum equals the window's (value compares ignore the sign
 *   of zero, as the ref's do; -1 where the maximum is -inf), codes and dy rows are made one
 *   output row ahead of the dx rows that read them (a load across two stores still in the
 *   store queue is not forwarded), and each dx row is gathered per parity of its columns
 *   (pa_dx3b: column 2 i + par is tap kx of window i + (par + pw - kx) / 2), whole aligned
 *   vectors that are streamed when dx is large, aligned and of whole lines (pa_bwd_nt).
 *   Measured (2026-12-06, 2-vCPU Zen 3 VM, 3x3 / 2 pad 1, dnnbench median, old and new
 *   interleaved; docs/perf/cpu-pool-avx2-s2-2026-12-06.md): in cache, n1c32h112w112, one thread
 *   forward 0.125-0.130 -> 0.078-0.079 ms, backward 0.347-0.354 -> 0.272-0.278; n8c64h112w112
 *   from memory, one thread forward 2.45-2.55 -> 1.79-1.93 ms, backward 5.83-5.84 -> 4.66-4.70;
 *   two threads forward 1.30-1.38 -> 1.07-1.38 ms (0.74-0.79 -> 0.74-0.92 of the bandwidth),
 *   backward 2.92-3.02 -> 2.38-2.53 (0.61-0.62 -> 0.73-0.76). Left: a dx vector with a lane of
 *   three or four hits (29% of the two-row vectors, on integer and real fills alike) redoes its
 *   sums in double after a mispredicted branch: 12-15% of the backward in cache (summing in
 *   double always costs the same).
 * Units are planes (groups of PA_GROUP), fixed by the problem: the bits do not depend on
 * OMP_NUM_THREADS. Stack buffers only; rows are read and written only inside their extents
 * (vectors that reach past a row border load under a mask and blend the fill in: a vector
 * assembled in memory stalled store forwarding: one thread, 3x3 / 2 max forward 15-24 -> 5-10
 * ms on the loaded VM).
 * Stride-2 taps come from vshufps of two loads in its lane order, restored once per output
 * vector; 3-wide max windows and 2-wide average windows at stride 2 load each pair once.
 * Measured (2026-12-04, 2-core Zen 3 VM shared with other builds, so one thread, n8c64h112w112,
 * min of 10, main -> here): 3x3 / 2 max forward 7.9 -> 2.4 ms, backward 84 -> 6.9; 2x2 / 2
 * average forward 7.5 -> 2.4, backward 22 -> 1.8; 3x3 / 1 pad 1 average forward 34 -> 9.4,
 * backward 144 -> 8.4 with the exact double sums (pa_fwd_avg1 / pa_bwd_avg1, which now take
 * only the stride-1 averages the box rows decline: 1-d, rings over PA_BOXF), then box rows
 * (same VM, more load, min of 10): forward 7.8 -> 3.6-4.0 ms one thread, 3.9-8 -> 2.1-3.4 two
 * threads; backward 8.3-12.7 -> 4.6-5.0 one thread, 4.2-6.9 -> 2.3-5.0 two threads; in cache
 * (n1c16h56w56, one thread, --cache=hot) forward 0.067-0.10 -> 0.033 ms, backward 0.069-0.10
 * -> 0.045 ms.
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

#include <immintrin.h>

#define PA_AVX2 __attribute__((target("avx2,fma")))
#define PA_MAXW 2048   /* columns of x / y / dy / dx rows */
#define PA_MAXK 16     /* window rows and columns */
#define PA_RINGF 16384 /* floats (and int32) of a max ring (64 KiB) */
#define PA_RINGD 8192  /* doubles of the average ring (64 KiB) */
#define PA_GROUP 4     /* planes per unit of threaded work */

static int pa_isa_ok(void)
{
    static int state = -1; /* a benign race: every thread stores the same value */
    if (state < 0) {
        const char *cap = getenv("FREEDNN_CPU_ISA");
        __builtin_cpu_init();
        state = !(cap && strcmp(cap, "generic") == 0) && __builtin_cpu_supports("avx2") &&
                __builtin_cpu_supports("fma");
    }
    return state;
}

static inline int64_t pa_max(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static inline int64_t pa_min(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* The least power of two >= k (k >= 1): ring slots by a mask, not a division per row. */
static inline int64_t pa_pow2(int64_t k)
{
    int64_t q = 1;
    while (q < k)
        q *= 2;
    return q;
}

static inline int64_t pa_fdiv(int64_t a, int64_t b) /* floor, b > 0 */
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static int pa_is_max(const fd_pool_problem_t *p)
{
    return p->mode == CUDNN_POOLING_MAX || p->mode == CUDNN_POOLING_MAX_DETERMINISTIC;
}

/* The divisor factor of window o along dim d (pads >= 0): padded or readable taps per mode. */
static double pa_cnt(const fd_pool_problem_t *p, int d, int64_t o)
{
    const int64_t st = o * p->stride[d] - p->pad[d], en = st + p->win[d];
    const int64_t c = p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                          ? pa_min(en, p->in[d] + p->pad[d]) - pa_max(st, -p->pad[d])
                          : pa_min(en, p->in[d]) - pa_max(st, 0);
    return (double)pa_max(0, c);
}

/* Output rows whose windows hold input row ih: [*olo, *ohi]; 0 when none. */
static int pa_rows_of(const fd_pool_problem_t *p, int64_t ih, int64_t *olo, int64_t *ohi)
{
    const int64_t kh = p->win[1], sh = p->stride[1], ph = p->pad[1];
    *olo = pa_max(0, pa_fdiv(ih + ph - kh, sh) + 1);
    *ohi = pa_min(p->out[1] - 1, pa_fdiv(ih + ph, sh));
    return *olo <= *ohi;
}

/* 8 floats of row[0, W) from column off, fill outside. */
PA_AVX2 static inline __m256 pa_ld(const float *row, int64_t off, int64_t W, float fill)
{
    if (off >= 0 && off + 8 <= W)
        return _mm256_loadu_ps(row + off);
    /* a border vector: a masked load (the lanes outside are not read), no store-forwarding
     * stall of a vector assembled in memory */
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const int64_t lo = pa_max(-1, pa_min(8, -off - 1)), hi = pa_max(0, pa_min(8, W - off));
    const __m256i in = _mm256_and_si256(_mm256_cmpgt_epi32(iota, _mm256_set1_epi32((int)lo)),
                                        _mm256_cmpgt_epi32(_mm256_set1_epi32((int)hi), iota));
    return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(row + off, in),
                            _mm256_castsi256_ps(in));
}

/* Tap kx of the 8 outputs whose windows start at column b of row[0, W) (fill outside): stride 1
 * a plain vector; stride 2 the columns b + kx + 2 j from vshufps of two vectors, in its lane
 * order [0 1 4 5 2 3 6 7] (every tap and row in the same order; pa_unshuf restores it once per
 * output vector instead of a cross-lane permute per tap). */
PA_AVX2 static inline __m256 pa_tap(const float *row, int64_t b, int64_t kx, int64_t sw, int64_t W,
                                    float fill, int border)
{
    if (sw == 1)
        return border ? pa_ld(row, b + kx, W, fill) : _mm256_loadu_ps(row + b + kx);
    const int64_t o = b + (kx & ~(int64_t)1);
    const __m256 v0 = border ? pa_ld(row, o, W, fill) : _mm256_loadu_ps(row + o);
    const __m256 v1 = border ? pa_ld(row, o + 8, W, fill) : _mm256_loadu_ps(row + o + 8);
    return kx & 1 ? _mm256_shuffle_ps(v0, v1, 0xDD) : _mm256_shuffle_ps(v0, v1, 0x88);
}

/* 1 when some tap of the 8 outputs from column b reads outside row[0, W) (pa_tap's loads check
 * the columns then; the other vectors load plainly). */
static inline int pa_border(int64_t b, int64_t sw, int64_t kw, int64_t W)
{
    return b < 0 || b + 8 * sw + kw > W;
}

/* pa_tap's stride-2 lane order back to column order. */
PA_AVX2 static inline __m256 pa_unshuf(__m256 v)
{
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), 0xD8));
}

/* Lanes [lo, hi) of v to d[lo .. hi). */
PA_AVX2 static inline void pa_st(float *d, __m256 v, int64_t lo, int64_t hi)
{
    if (lo == 0 && hi >= 8) {
        _mm256_storeu_ps(d, v);
        return;
    }
    float t[8];
    _mm256_storeu_ps(t, v);
    for (int64_t j = lo; j < hi && j < 8; j++)
        d[j] = t[j];
}

/* y[lo .. n) = alpha * v + beta * y, v in two double halves, rounded once (blend_store). */
PA_AVX2 static inline void pa_outd(float *y, __m256d v0, __m256d v1, int64_t lo, int64_t n,
                                   double alpha, double beta)
{
    if (alpha != 1.0) {
        v0 = _mm256_mul_pd(_mm256_set1_pd(alpha), v0);
        v1 = _mm256_mul_pd(_mm256_set1_pd(alpha), v1);
    }
    if (beta != 0.0) {
        float t[8] = {0};
        for (int64_t j = lo; j < n && j < 8; j++)
            t[j] = y[j];
        const __m256 old = _mm256_loadu_ps(t);
        v0 = _mm256_add_pd(
            v0, _mm256_mul_pd(_mm256_set1_pd(beta), _mm256_cvtps_pd(_mm256_castps256_ps128(old))));
        v1 = _mm256_add_pd(v1, _mm256_mul_pd(_mm256_set1_pd(beta),
                                             _mm256_cvtps_pd(_mm256_extractf128_ps(old, 1))));
    }
    pa_st(y, _mm256_set_m128(_mm256_cvtpd_ps(v1), _mm256_cvtpd_ps(v0)), lo, n);
}

/* The same for a float value (exact in double). */
PA_AVX2 static inline void pa_outf(float *y, __m256 v, int64_t lo, int64_t n, double alpha,
                                   double beta)
{
    if (alpha == 1.0 && beta == 0.0)
        pa_st(y, v, lo, n);
    else
        pa_outd(y, _mm256_cvtps_pd(_mm256_castps256_ps128(v)),
                _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), lo, n, alpha, beta);
}

/* A dx row in no window: alpha * 0.0 (+ beta * dx). */
static void pa_zero_row(float *d, int64_t W, double alpha, double beta)
{
    for (int64_t i = 0; i < W; i++) {
        double r = alpha * 0.0;
        if (beta != 0.0)
            r += beta * (double)d[i];
        d[i] = (float)r;
    }
}

/* ---- max forward ---- */

#define PA_PADL 16 /* fill columns before a padded row (pads are at most PA_MAXK - 1) */
#define PA_PADR 48 /* and after it: the last vector's taps reach at most pw + 15 past W */

/* row[0, W) copied to buf between fill margins (PA_PADL before, PA_PADR after): every tap of
 * every output column is then a plain load (a border vector's per-tap masks cost more than the
 * row's copy). Returns the copy's column 0. */
PA_AVX2 static const float *pa_padrow(const float *row, int64_t W, float *buf, float fill)
{
    const __m256 f = _mm256_set1_ps(fill);
    float *d = buf + PA_PADL;
    _mm256_store_ps(buf, f);
    _mm256_store_ps(buf + 8, f);
    int64_t i = 0;
    for (; i + 8 <= W; i += 8)
        _mm256_storeu_ps(d + i, _mm256_loadu_ps(row + i));
    _mm256_storeu_ps(d + i, pa_ld(row, i, W, fill));
    for (int64_t j = i + 8; j < W + PA_PADR; j += 8)
        _mm256_storeu_ps(d + j, f);
    return d;
}

/* h[ow] = the maximum of output column ow's taps in one input row (NaN where PROPAGATE_NAN
 * and a tap is NaN), whole vectors (the ring rows are a multiple of 8 long). */
PA_AVX2 static void pa_rowmax(const fd_pool_problem_t *p, const float *row, float *h)
{
    const int64_t W = p->in[2], OW = p->out[2], kw = p->win[2], sw = p->stride[2], pw = p->pad[2];
    const int prop = p->propagate_nan, fast3 = sw == 2 && kw == 3 && !prop;
    const __m256 ninf = _mm256_set1_ps(-INFINITY);
    float buf[PA_PADL + PA_MAXW + PA_PADR + 8] __attribute__((aligned(32)));
    if (pa_border(-pw, sw, kw, W) || pa_border((OW - 1) / 8 * 8 * sw - pw, sw, kw, W))
        row = pa_padrow(row, W, buf, -INFINITY);
    for (int64_t ow0 = 0; ow0 < OW; ow0 += 8) {
        const int64_t b = ow0 * sw - pw;
        const int border = 0;
        if (fast3 && !border) { /* pa_tap's taps 0, 1, 2 from four plain loads */
            const __m256 v0 = _mm256_loadu_ps(row + b), v1 = _mm256_loadu_ps(row + b + 8);
            const __m256 v2 = _mm256_loadu_ps(row + b + 2), v3 = _mm256_loadu_ps(row + b + 10);
            __m256 m = _mm256_max_ps(_mm256_shuffle_ps(v0, v1, 0x88), ninf);
            m = _mm256_max_ps(_mm256_shuffle_ps(v0, v1, 0xDD), m);
            _mm256_storeu_ps(h + ow0, _mm256_max_ps(_mm256_shuffle_ps(v2, v3, 0x88), m));
            continue;
        }
        __m256 m = ninf, nan = _mm256_setzero_ps();
        for (int64_t kx = 0; kx < kw; kx++) {
            const __m256 v = pa_tap(row, b, kx, sw, W, -INFINITY, border);
            if (prop)
                nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
            m = _mm256_max_ps(v, m);
        }
        if (prop)
            m = _mm256_blendv_ps(m, _mm256_set1_ps(NAN), nan);
        _mm256_storeu_ps(h + ow0, m);
    }
}

PA_AVX2 static void pa_fwd_max(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                               int64_t u1)
{
    const int64_t H = p->in[1], OH = p->out[1], OW = p->out[2];
    const int64_t kh = p->win[1], sh = p->stride[1], ph = p->pad[1], rs = (OW + 7) / 8 * 8;
    const int64_t sw = p->stride[2];
    const int prop = p->propagate_nan;
    const int64_t *s = p->xs, *t = p->ys;
    const double alpha = a->alpha, beta = a->beta;
    float ring[PA_RINGF];
    for (int64_t pl = u0; pl < u1; pl++) {
        const int64_t n = pl / p->c, c = pl % p->c;
        const float *xb = (const float *)a->x + n * s[0] + c * s[1];
        float *yb = (float *)a->out + n * t[0] + c * t[1];
        int64_t have = 0; /* input rows below have are in the ring (the last kh of them) */
        for (int64_t oh = 0; oh < OH; oh++) {
            const int64_t h0 = oh * sh - ph, lo = pa_max(h0, 0), hi = pa_min(h0 + kh, H);
            for (int64_t ih = pa_max(have, lo); ih < hi; ih++)
                pa_rowmax(p, xb + ih * s[3], ring + (ih % kh) * rs);
            have = pa_max(have, hi);
            float *y = yb + oh * t[3];
            const float *rp[PA_MAXK]; /* the window rows' maxima (no division per vector) */
            const int nr = (int)(hi - lo);
            for (int r = 0; r < nr; r++)
                rp[r] = ring + ((lo + r) % kh) * rs;
            for (int64_t ow0 = 0; ow0 < OW; ow0 += 8) {
                __m256 acc = _mm256_set1_ps(-INFINITY), nan = _mm256_setzero_ps();
                for (int r = 0; r < nr; r++) {
                    const __m256 v = _mm256_loadu_ps(rp[r] + ow0);
                    if (prop)
                        nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
                    acc = _mm256_max_ps(v, acc);
                }
                acc = _mm256_max_ps(acc, _mm256_set1_ps(-FLT_MAX));
                if (prop)
                    acc = _mm256_blendv_ps(acc, _mm256_set1_ps(NAN), nan);
                if (sw == 2)
                    acc = pa_unshuf(acc);
                pa_outf(y + ow0, acc, 0, OW - ow0, alpha, beta);
            }
        }
    }
}

/* ---- max backward, stride 2 along W ---- */

#define PA_R_MAX 16 /* output rows sharing a dx row, at most */

/* Row argmax of every output column of one input row: value hv (NaN: the first NaN when
 * PROPAGATE_NAN) and tap hk (-1: none), whole vectors. */
PA_AVX2 static void pa_rowarg(const fd_pool_problem_t *p, const float *row, float *hv, int32_t *hk)
{
    const int64_t W = p->in[2], OW = p->out[2], kw = p->win[2], pw = p->pad[2];
    const int prop = p->propagate_nan, fast3 = kw == 3 && !prop;
    float buf[PA_PADL + PA_MAXW + PA_PADR + 8] __attribute__((aligned(32)));
    if (pa_border(-pw, 2, kw, W) || pa_border((OW - 1) / 8 * 16 - pw, 2, kw, W))
        row = pa_padrow(row, W, buf, -INFINITY);
    for (int64_t ow0 = 0; ow0 < OW; ow0 += 8) {
        const int64_t b = 2 * ow0 - pw;
        const int border = 0;
        __m256 m = _mm256_set1_ps(-INFINITY), done = _mm256_setzero_ps();
        __m256 code = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
        if (fast3 && !border) { /* the loop below for taps 0, 1, 2 from four plain loads */
            const __m256 v0 = _mm256_loadu_ps(row + b), v1 = _mm256_loadu_ps(row + b + 8);
            const __m256 v2 = _mm256_loadu_ps(row + b + 2), v3 = _mm256_loadu_ps(row + b + 10);
            const __m256 t0 = _mm256_shuffle_ps(v0, v1, 0x88), t1 = _mm256_shuffle_ps(v0, v1, 0xDD);
            const __m256 t2 = _mm256_shuffle_ps(v2, v3, 0x88);
            __m256 gt = _mm256_cmp_ps(t0, m, _CMP_GT_OQ);
            m = _mm256_blendv_ps(m, t0, gt);
            code = _mm256_blendv_ps(code, _mm256_setzero_ps(), gt);
            gt = _mm256_cmp_ps(t1, m, _CMP_GT_OQ);
            m = _mm256_blendv_ps(m, t1, gt);
            code = _mm256_blendv_ps(code, _mm256_castsi256_ps(_mm256_set1_epi32(1)), gt);
            gt = _mm256_cmp_ps(t2, m, _CMP_GT_OQ);
            _mm256_storeu_ps(hv + ow0, _mm256_blendv_ps(m, t2, gt));
            _mm256_storeu_si256((__m256i *)(void *)(hk + ow0),
                                _mm256_castps_si256(_mm256_blendv_ps(
                                    code, _mm256_castsi256_ps(_mm256_set1_epi32(2)), gt)));
            continue;
        }
        for (int64_t kx = 0; kx < kw; kx++) {
            const __m256 v = pa_tap(row, b, kx, 2, W, -INFINITY, border);
            __m256 gt = _mm256_cmp_ps(v, m, _CMP_GT_OQ);
            if (prop) { /* the first NaN is taken and ends the row */
                const __m256 nn = _mm256_andnot_ps(done, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
                gt = _mm256_or_ps(_mm256_andnot_ps(done, gt), nn);
                done = _mm256_or_ps(done, nn);
            }
            m = _mm256_blendv_ps(m, v, gt);
            code = _mm256_blendv_ps(code, _mm256_castsi256_ps(_mm256_set1_epi32((int)kx)), gt);
        }
        _mm256_storeu_ps(hv + ow0, m);
        _mm256_storeu_si256((__m256i *)(void *)(hk + ow0), _mm256_castps_si256(code));
    }
}

/* Codes of one output row (window rows [lo, hi), the first at h0) from the row argmaxes in the
 * ring: rows folded in window order, a later row taken when strictly greater; with
 * PROPAGATE_NAN the first row holding a NaN gives its code and ends the window. -1 past OW. */
PA_AVX2 static void pa_codes_fold(const fd_pool_problem_t *p, const float *rv, const int32_t *rk,
                                  int64_t rs, int64_t h0, int64_t lo, int64_t hi, int32_t *crow)
{
    const int64_t OW = p->out[2], kw = p->win[2], kh = p->win[1];
    const int prop = p->propagate_nan;
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    int64_t slot[PA_MAXK]; /* the window rows' ring rows (no division per vector) */
    __m256i kyv[PA_MAXK];
    const int nr = (int)(hi - lo);
    for (int r = 0; r < nr; r++)
        slot[r] = ((lo + r) % kh) * rs, kyv[r] = _mm256_set1_epi32((int)((lo + r - h0) * kw));
    for (int64_t ow0 = 0; ow0 < OW; ow0 += 8) {
        __m256 m = _mm256_set1_ps(-INFINITY), done = _mm256_setzero_ps();
        __m256 code = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
        for (int r = 0; r < nr; r++) {
            const __m256 v = _mm256_loadu_ps(rv + slot[r] + ow0);
            const __m256i k = _mm256_add_epi32(
                _mm256_loadu_si256((const __m256i *)(const void *)(rk + slot[r] + ow0)), kyv[r]);
            __m256 gt = _mm256_cmp_ps(v, m, _CMP_GT_OQ);
            if (prop) {
                const __m256 nn = _mm256_andnot_ps(done, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
                gt = _mm256_or_ps(_mm256_andnot_ps(done, gt), nn);
                done = _mm256_or_ps(done, nn);
            }
            m = _mm256_blendv_ps(m, v, gt);
            code = _mm256_blendv_ps(code, _mm256_castsi256_ps(k), gt);
        }
        const __m256i in = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(OW - ow0)), iota);
        const __m256i cv =
            _mm256_blendv_epi8(_mm256_set1_epi32(-1), _mm256_castps_si256(pa_unshuf(code)), in);
        _mm256_storeu_si256((__m256i *)(void *)(crow + ow0), cv);
    }
}

/* The double sums of the 16 dx columns 2 j0 - pw .. + 16 (even columns from e, odd from o,
 * interleaved into t): the hits of nr output rows, rows ascending, windows ascending. */
PA_AVX2 static void pa_gather_d(int nr, const int32_t *const *crow, const float *const *grow,
                                const int32_t *kyk, int64_t kw, int64_t j0, __m256d *t)
{
    const int64_t tmax = (kw - 1) / 2;
    __m256d e0 = _mm256_setzero_pd(), e1 = e0, o0 = e0, o1 = e0;
    for (int r = 0; r < nr; r++)
        for (int64_t tt = tmax; tt >= 0; tt--) {
            const __m256i cv =
                _mm256_loadu_si256((const __m256i *)(const void *)(crow[r] + j0 - tt));
            const __m256 gv = _mm256_loadu_ps(grow[r] + j0 - tt);
            const int k0 = kyk[r] + (int)(2 * tt);
            const __m256 he = _mm256_and_ps(
                _mm256_castsi256_ps(_mm256_cmpeq_epi32(cv, _mm256_set1_epi32(k0))), gv);
            e0 = _mm256_add_pd(e0, _mm256_cvtps_pd(_mm256_castps256_ps128(he)));
            e1 = _mm256_add_pd(e1, _mm256_cvtps_pd(_mm256_extractf128_ps(he, 1)));
            if (2 * tt + 1 < kw) {
                const __m256 ho = _mm256_and_ps(
                    _mm256_castsi256_ps(_mm256_cmpeq_epi32(cv, _mm256_set1_epi32(k0 + 1))), gv);
                o0 = _mm256_add_pd(o0, _mm256_cvtps_pd(_mm256_castps256_ps128(ho)));
                o1 = _mm256_add_pd(o1, _mm256_cvtps_pd(_mm256_extractf128_ps(ho, 1)));
            }
        }
    /* [e0 o0 e1 o1], [e2 o2 e3 o3], .. */
    const __m256d l0 = _mm256_unpacklo_pd(e0, o0), h0 = _mm256_unpackhi_pd(e0, o0);
    const __m256d l1 = _mm256_unpacklo_pd(e1, o1), h1 = _mm256_unpackhi_pd(e1, o1);
    t[0] = _mm256_permute2f128_pd(l0, h0, 0x20), t[1] = _mm256_permute2f128_pd(l0, h0, 0x31);
    t[2] = _mm256_permute2f128_pd(l1, h1, 0x20), t[3] = _mm256_permute2f128_pd(l1, h1, 0x31);
}

/* A dx row (columns 2 j0 - pw .. + 16 a vector) in one or two window rows (3-wide windows at
 * stride 2, alpha 1, beta 0; codes and dy past the output row are -1 and 0): for each row, window j
 * - 1's tap 2 and window j's tap 0 hit the even column, window j's tap 1 the odd one. Odd columns
 * take at most two hits (one a row) and so sum in float (pa_bwd_max2's argument); even columns too
 * unless a lane of the vector takes three or four, when they are summed again in double from the
 * same four masked terms in the same order (the ref's bits: +0.0 terms for the misses change no sum
 * that starts at +0.0). */
/* One window row's terms of pa_dx3's vector at j0 (codes c, dy g, the row's tap base k):
 * t[0] window j - 1's tap 2 and t[1] window j's tap 0 (even columns), t[2] window j's tap 1
 * (odd columns), each dy where hit and +0 elsewhere; the even hits' masks added into *ne. */
PA_AVX2 static inline void pa_dx3_row(const int32_t *c, const float *g, int64_t j0, __m256i k,
                                      __m256 *t, __m256i *ne)
{
    const __m256i cp = _mm256_loadu_si256((const __m256i *)(const void *)(c + j0 - 1));
    const __m256i cc = _mm256_loadu_si256((const __m256i *)(const void *)(c + j0));
    const __m256 gc = _mm256_loadu_ps(g + j0);
    const __m256i h2 = _mm256_cmpeq_epi32(cp, _mm256_add_epi32(k, _mm256_set1_epi32(2)));
    const __m256i h0 = _mm256_cmpeq_epi32(cc, k);
    const __m256i h1 = _mm256_cmpeq_epi32(cc, _mm256_add_epi32(k, _mm256_set1_epi32(1)));
    t[0] = _mm256_and_ps(_mm256_castsi256_ps(h2), _mm256_loadu_ps(g + j0 - 1));
    t[1] = _mm256_and_ps(_mm256_castsi256_ps(h0), gc);
    t[2] = _mm256_and_ps(_mm256_castsi256_ps(h1), gc);
    *ne = _mm256_add_epi32(*ne, _mm256_add_epi32(h2, h0));
}

PA_AVX2 static void pa_dx3(float *dx, int64_t W, int64_t pw, int nr, const int32_t *const *crow,
                           const float *const *grow, const int32_t *kyk)
{
    const __m256i ka = _mm256_set1_epi32(kyk[0]), kb = _mm256_set1_epi32(kyk[nr - 1]);
    const __m256i two = _mm256_set1_epi32(-2); /* counts go down from 0: three hits are -3 */
    for (int64_t j0 = pw / 2; 2 * j0 - pw < W; j0 += 8) {
        const int64_t c0 = 2 * j0 - pw;
        float *d = dx + c0;
        __m256 ta[3], tb[3];
        __m256i ne = _mm256_setzero_si256();
        pa_dx3_row(crow[0], grow[0], j0, ka, ta, &ne);
        __m256 e = _mm256_add_ps(_mm256_add_ps(_mm256_setzero_ps(), ta[0]), ta[1]);
        __m256 o = _mm256_add_ps(_mm256_setzero_ps(), ta[2]);
        if (nr == 2) {
            pa_dx3_row(crow[1], grow[1], j0, kb, tb, &ne);
            e = _mm256_add_ps(_mm256_add_ps(e, tb[0]), tb[1]);
            o = _mm256_add_ps(o, tb[2]);
            const __m256i many = _mm256_cmpgt_epi32(two, ne);
            if (__builtin_expect(!_mm256_testz_si256(many, many), 0)) {
                const __m256 t[4] = {ta[0], ta[1], tb[0], tb[1]};
                __m256d lo = _mm256_setzero_pd(), hi = lo;
                for (int i = 0; i < 4; i++) {
                    lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(t[i])));
                    hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(t[i], 1)));
                }
                e = _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo));
            }
        }
        const __m256 l = _mm256_unpacklo_ps(e, o), h = _mm256_unpackhi_ps(e, o);
        const __m256 v0 = _mm256_permute2f128_ps(l, h, 0x20),
                     v1 = _mm256_permute2f128_ps(l, h, 0x31);
        if (c0 >= 0 && c0 + 16 <= W) {
            _mm256_storeu_ps(d, v0);
            _mm256_storeu_ps(d + 8, v1);
        } else { /* a border vector: the columns inside the row */
            const int64_t lo = pa_max(0, -c0), hi = pa_min(16, W - c0);
            pa_st(d, v0, lo, hi);
            if (hi > 8)
                pa_st(d + 8, v1, pa_max(0, lo - 8), hi - 8);
        }
    }
}

/* ---- 3-wide max windows at stride 2 along W: fused rows, border vectors under masks ---- */

#define PA_NB 8 /* border vectors of a row (the first, and the last ones) with kept masks */

/* The vectors of 8 outputs (v: windows from column b = 16 v - pw; taps loaded at b, b + 8,
 * b + 2, b + 10) split into [0, vlo) and [vhi, nv), which read past the row, and the
 * interior [vlo, vhi). 0 when the border vectors exceed PA_NB. */
static int pa_b3_geom(const fd_pool_problem_t *p, int64_t *nv, int64_t *vlo, int64_t *vhi)
{
    const int64_t W = p->in[2], pw = p->pad[2];
    *nv = (p->out[2] + 7) / 8;
    *vlo = pa_min(*nv, pw > 0 ? 1 : 0);
    *vhi = pa_max(*vlo, pa_min(*nv, pa_fdiv(W + pw - 18, 16) + 1));
    return *vlo + (*nv - *vhi) <= PA_NB;
}

/* The load masks of the border vectors: m[0] for vector 0 when vlo is 1, m[vlo + v - vhi] for
 * v >= vhi; lanes inside [0, W) of each of the four loads. */
PA_AVX2 static void pa_b3_masks(const fd_pool_problem_t *p, __m256i m[PA_NB][4])
{
    const int64_t W = p->in[2], pw = p->pad[2];
    int64_t nv, vlo, vhi;
    pa_b3_geom(p, &nv, &vlo, &vhi);
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    static const int off[4] = {0, 8, 2, 10};
    for (int64_t v = 0; v < nv; v++) {
        if (v >= vlo && v < vhi)
            continue;
        const int64_t i = v < vlo ? 0 : vlo + v - vhi;
        for (int k = 0; k < 4; k++) {
            const __m256i c =
                _mm256_add_epi32(iota, _mm256_set1_epi32((int)(16 * v - pw + off[k])));
            m[i][k] = _mm256_and_si256(_mm256_cmpgt_epi32(c, _mm256_set1_epi32(-1)),
                                       _mm256_cmpgt_epi32(_mm256_set1_epi32((int)W), c));
        }
    }
}

/* 8 floats at q under mask m, -inf in the lanes outside (not read). */
PA_AVX2 static inline __m256 pa_mld(const float *q, __m256i m)
{
    return _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), _mm256_maskload_ps(q, m),
                            _mm256_castsi256_ps(m));
}

/* Taps 0, 1, 2 of the 8 windows from column b of row (pa_tap's lane order); m: the vector's
 * four load masks, NULL inside the row. */
PA_AVX2 static inline __attribute__((always_inline)) void pa_taps3(const float *row, int64_t b,
                                                                   const __m256i *m, __m256 *t)
{
    __m256 a0, a1, c0, c1;
    if (m) {
        a0 = pa_mld(row + b, m[0]), a1 = pa_mld(row + b + 8, m[1]);
        c0 = pa_mld(row + b + 2, m[2]), c1 = pa_mld(row + b + 10, m[3]);
    } else {
        a0 = _mm256_loadu_ps(row + b), a1 = _mm256_loadu_ps(row + b + 8);
        c0 = _mm256_loadu_ps(row + b + 2), c1 = _mm256_loadu_ps(row + b + 10);
    }
    t[0] = _mm256_shuffle_ps(a0, a1, 0x88);
    t[1] = _mm256_shuffle_ps(a0, a1, 0xDD);
    t[2] = _mm256_shuffle_ps(c0, c1, 0x88);
}

/* The first maximum of three taps (vmaxps from -inf: a later tap only when greater, no NaN). */
PA_AVX2 static inline __m256 pa_max3(const __m256 *t)
{
    return _mm256_max_ps(t[2], _mm256_max_ps(t[1], _mm256_max_ps(t[0], _mm256_set1_ps(-INFINITY))));
}

#ifndef PA_AHEAD
#define PA_AHEAD 8192 /* bytes a streamed read prefetches ahead (pa_ahead) */
#endif

/* Prefetch of the line PA_AHEAD bytes past q (never dereferenced: it may lie past the tensor):
 * one thread from memory left the row reads waiting on it (the hardware prefetchers alone).
 * always_inline: GCC drops a plain inline helper's prefetch inside another target's function. */
static inline __attribute__((always_inline)) void pa_ahead(const void *q)
{
    _mm_prefetch((const char *)((uintptr_t)q + PA_AHEAD), _MM_HINT_T0);
}

/* The window rows of one output row: each from x (src, a new row; stored into its ring slot
 * when st, for the output rows after) or from its ring slot. */
typedef struct {
    int nr;
    const float *src[PA_MAXK];
    float *slot[PA_MAXK];
    int st[PA_MAXK];
} pa_rows3_t;

/* Forward, one vector of 8 outputs: the rows' tap maxima folded in row order. */
PA_AVX2 static inline __attribute__((always_inline)) __m256
pa_f3_vec(const pa_rows3_t *w, int64_t v, int64_t pw, const __m256i *m)
{
    __m256 acc = _mm256_set1_ps(-INFINITY);
    for (int r = 0; r < w->nr; r++) {
        __m256 h;
        if (w->src[r]) {
            __m256 t[3];
            pa_taps3(w->src[r], 16 * v - pw, m, t);
            h = pa_max3(t);
            if (w->st[r])
                _mm256_store_ps(w->slot[r] + 8 * v, h);
        } else {
            h = _mm256_load_ps(w->slot[r] + 8 * v);
        }
        acc = _mm256_max_ps(h, acc);
    }
    return pa_unshuf(_mm256_max_ps(acc, _mm256_set1_ps(-FLT_MAX)));
}

/* The steady rows of 3x3 / 2: row 0 from the ring, rows 1 and 2 new, row 2 kept. */
PA_AVX2 static inline __attribute__((always_inline)) __m256
pa_f3_vec3(const pa_rows3_t *w, int64_t v, int64_t pw, const __m256i *m)
{
    __m256 t[3];
    __m256 acc = _mm256_max_ps(_mm256_load_ps(w->slot[0] + 8 * v), _mm256_set1_ps(-INFINITY));
    pa_taps3(w->src[1], 16 * v - pw, m, t);
    pa_ahead(w->src[1] + 16 * v);
    acc = _mm256_max_ps(pa_max3(t), acc);
    pa_taps3(w->src[2], 16 * v - pw, m, t);
    pa_ahead(w->src[2] + 16 * v);
    const __m256 h = pa_max3(t);
    _mm256_store_ps(w->slot[2] + 8 * v, h);
    acc = _mm256_max_ps(h, acc);
    return pa_unshuf(_mm256_max_ps(acc, _mm256_set1_ps(-FLT_MAX)));
}

/* Max forward, 3-wide windows at stride 2 along W, no NaN propagation: pa_fwd_max's operations
 * with each output row's new input rows' maxima computed in its own pass (no ring round trip
 * for rows no later output row takes) and the border vectors under masks made once (no copy of
 * the row). */
PA_AVX2 static void pa_fwd_max3s2(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                                  int64_t u1)
{
    const int64_t H = p->in[1], OH = p->out[1], OW = p->out[2];
    const int64_t kh = p->win[1], sh = p->stride[1], ph = p->pad[1], pw = p->pad[2];
    const int64_t rs = (OW + 7) / 8 * 8, nfull = OW / 8, km = pa_pow2(kh) - 1;
    const int64_t *s = p->xs, *t = p->ys;
    const double alpha = a->alpha, beta = a->beta;
    const int plain = alpha == 1.0 && beta == 0.0;
    int64_t nv, vlo, vhi;
    pa_b3_geom(p, &nv, &vlo, &vhi);
    __m256i mk[PA_NB][4];
    pa_b3_masks(p, mk);
    float ring[PA_RINGF] __attribute__((aligned(32)));
    for (int64_t pl = u0; pl < u1; pl++) {
        const int64_t n = pl / p->c, c = pl % p->c;
        const float *xb = (const float *)a->x + n * s[0] + c * s[1];
        float *yb = (float *)a->out + n * t[0] + c * t[1];
        int64_t have = 0; /* input rows below have are in the ring (slot ih & km) */
        for (int64_t oh = 0; oh < OH; oh++) {
            const int64_t h0 = oh * sh - ph, lo = pa_max(h0, 0), hi = pa_min(h0 + kh, H);
            const int64_t nxt = oh + 1 < OH ? h0 + sh : INT64_MAX; /* rows kept from here */
            pa_rows3_t w;
            w.nr = (int)(hi - lo);
            for (int r = 0; r < w.nr; r++) {
                const int64_t ih = lo + r;
                w.slot[r] = ring + (ih & km) * rs;
                w.src[r] = ih >= have ? xb + ih * s[3] : NULL;
                w.st[r] = ih >= have && ih >= nxt;
            }
            have = pa_max(have, hi);
            float *y = yb + oh * t[3];
            const int steady =
                w.nr == 3 && !w.src[0] && w.src[1] && w.src[2] && !w.st[1] && w.st[2];
            for (int64_t v = 0; v < nv; v++) {
                const int inner = v >= vlo && v < vhi;
                const __m256i *m = inner ? NULL : mk[v < vlo ? 0 : vlo + v - vhi];
                __m256 o;
                if (steady && inner) { /* the interior run, in one loop */
                    for (; v < vhi; v++) {
                        o = pa_f3_vec3(&w, v, pw, NULL);
                        if (plain && v < nfull)
                            _mm256_storeu_ps(y + 8 * v, o);
                        else
                            pa_outf(y + 8 * v, o, 0, OW - 8 * v, alpha, beta);
                    }
                    v--;
                    continue;
                }
                o = steady ? pa_f3_vec3(&w, v, pw, m) : pa_f3_vec(&w, v, pw, m);
                if (plain && v < nfull)
                    _mm256_storeu_ps(y + 8 * v, o);
                else
                    pa_outf(y + 8 * v, o, 0, OW - 8 * v, alpha, beta);
            }
        }
    }
}

/* Row argmax of one new row: its maximum *h and first tap holding it *k. */
PA_AVX2 static inline __attribute__((always_inline)) void
pa_arg3(const float *row, int64_t b, const __m256i *m, __m256 *h, __m256i *k)
{
    __m256 t[3];
    pa_taps3(row, b, m, t);
    *h = pa_max3(t);
    const __m256i e0 = _mm256_castps_si256(_mm256_cmp_ps(t[0], *h, _CMP_EQ_OQ));
    const __m256i e1 = _mm256_castps_si256(_mm256_cmp_ps(t[1], *h, _CMP_EQ_OQ));
    *k = _mm256_andnot_si256(e0, _mm256_add_epi32(_mm256_set1_epi32(2), e1));
}

/* Backward, one vector of 8 windows of one output row: each window row's maximum h and its
 * first tap holding it (kx: the first tap equal to h; x from the row when new, stored into the
 * ring when kept, else from the ring), then the window's code ky * 3 + kx of the first row whose
 * maximum equals the window's (the ref's first maximum in window order: the value compares
 * ignore the sign of zero, as the ref's do), -1 when the maximum is -inf (nothing taken). */
PA_AVX2 static inline __attribute__((always_inline)) __m256i
pa_b3_vec(const pa_rows3_t *w, float *const *kslot, const __m256i *ky3, int64_t v, int64_t pw,
          const __m256i *m)
{
    __m256 hv[PA_MAXK];
    __m256i kv[PA_MAXK];
    __m256 acc = _mm256_set1_ps(-INFINITY);
    for (int r = 0; r < w->nr; r++) {
        if (w->src[r]) {
            pa_arg3(w->src[r], 16 * v - pw, m, &hv[r], &kv[r]);
            if (w->st[r]) {
                _mm256_store_ps(w->slot[r] + 8 * v, hv[r]);
                _mm256_store_si256((__m256i *)(void *)(kslot[r] + 8 * v), kv[r]);
            }
        } else {
            hv[r] = _mm256_load_ps(w->slot[r] + 8 * v);
            kv[r] = _mm256_load_si256((const __m256i *)(const void *)(kslot[r] + 8 * v));
        }
        acc = _mm256_max_ps(hv[r], acc);
    }
    __m256i code = _mm256_set1_epi32(-1);
    for (int r = w->nr - 1; r >= 0; r--)
        code = _mm256_castps_si256(_mm256_blendv_ps(
            _mm256_castsi256_ps(code), _mm256_castsi256_ps(_mm256_add_epi32(kv[r], ky3[r])),
            _mm256_cmp_ps(hv[r], acc, _CMP_EQ_OQ)));
    const __m256 none = _mm256_cmp_ps(acc, _mm256_set1_ps(-INFINITY), _CMP_EQ_OQ);
    return _mm256_castps_si256(pa_unshuf(_mm256_or_ps(_mm256_castsi256_ps(code), none)));
}

/* pa_b3_vec for the steady rows of 3x3 / 2 (window rows h0 .. h0 + 2: row 0 from the ring,
 * rows 1 and 2 new, row 2 kept). */
PA_AVX2 static inline __attribute__((always_inline)) __m256i
pa_b3_vec3(const pa_rows3_t *w, float *const *kslot, int64_t v, int64_t pw, const __m256i *m)
{
    __m256 h1, h2;
    __m256i k1, k2;
    const __m256 h0 = _mm256_load_ps(w->slot[0] + 8 * v);
    const __m256i k0 = _mm256_load_si256((const __m256i *)(const void *)(kslot[0] + 8 * v));
    pa_arg3(w->src[1], 16 * v - pw, m, &h1, &k1);
    pa_arg3(w->src[2], 16 * v - pw, m, &h2, &k2);
    pa_ahead(w->src[1] + 16 * v);
    pa_ahead(w->src[2] + 16 * v);
    _mm256_store_ps(w->slot[2] + 8 * v, h2);
    _mm256_store_si256((__m256i *)(void *)(kslot[2] + 8 * v), k2);
    const __m256 acc =
        _mm256_max_ps(h2, _mm256_max_ps(h1, _mm256_max_ps(h0, _mm256_set1_ps(-INFINITY))));
    __m256 code = _mm256_cmp_ps(acc, _mm256_set1_ps(-INFINITY), _CMP_EQ_OQ); /* -1: none */
    const __m256 e1 = _mm256_cmp_ps(h1, acc, _CMP_EQ_OQ), e0 = _mm256_cmp_ps(h0, acc, _CMP_EQ_OQ);
    __m256 c = _mm256_castsi256_ps(_mm256_add_epi32(k2, _mm256_set1_epi32(6)));
    c = _mm256_blendv_ps(c, _mm256_castsi256_ps(_mm256_add_epi32(k1, _mm256_set1_epi32(3))), e1);
    c = _mm256_blendv_ps(c, _mm256_castsi256_ps(k0), e0);
    /* c is row 2's code where neither row 0 nor 1 holds acc: row 2 then does, or acc is -inf */
    code = _mm256_or_ps(code, c);
    return _mm256_castps_si256(pa_unshuf(code));
}

/* Vector v of an output row's codes (-1 past OW) and of its dy row (0 past OW) into the ring. */
PA_AVX2 static inline __attribute__((always_inline)) void
pa_b3_put(int32_t *crow, float *grow, const float *gsrc, int64_t v, int64_t OW, __m256i cv)
{
    if (8 * v + 8 <= OW) {
        _mm256_store_si256((__m256i *)(void *)(crow + 8 * v), cv);
        _mm256_store_ps(grow + 8 * v, _mm256_loadu_ps(gsrc + 8 * v));
        pa_ahead(gsrc + 8 * v);
        return;
    }
    const __m256i in = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(OW - 8 * v)),
                                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_store_si256((__m256i *)(void *)(crow + 8 * v),
                       _mm256_blendv_epi8(_mm256_set1_epi32(-1), cv, in));
    _mm256_store_ps(grow + 8 * v, pa_ld(gsrc, 8 * v, OW, 0.0f));
}

/* Columns [c, c + 8) of a dx row (those inside [0, W)): streamed when nt (c + 8 <= W: a whole
 * aligned vector), else stored. */
PA_AVX2 static inline void pa_dx_out(float *dx, int64_t c, int64_t W, __m256 v, int nt)
{
    if (c + 8 <= W) {
        if (nt)
            _mm256_stream_ps(dx + c, v);
        else
            _mm256_storeu_ps(dx + c, v);
    } else if (c < W) {
        pa_st(dx + c, v, 0, W - c);
    }
}

/* The dx columns 2 j0 .. 2 j0 + 15 of a row in one or two output rows (3-wide windows at stride 2,
 * alpha 1, beta 0; codes and dy rows with -1 / 0 past OW and before column 0), pw a constant:
 * column 2 i + par is tap kx of window i + d where d = (par + pw - kx) / 2 is whole, so each
 * parity takes one or two taps a row, from the code / dy vectors at j0 + d (d in -1 .. 1: the
 * caller stored those rows an output row earlier, so a load across two of their stores reads
 * the cache, not the store queue). The terms in the ref's order (rows ascending, then windows:
 * kx descending) in float from +0.0, except that a vector with a lane of three or four hits
 * (the parity of two taps, two rows) sums that parity again in double from the same terms:
 * pa_bwd_max2's argument. The two parities interleave into whole aligned dx vectors. */
PA_AVX2 static inline __attribute__((always_inline)) void
pa_dx3b_pw(float *dx, int64_t W, int nr, const int32_t *const *crow, const float *const *grow,
           const int32_t *kyk, int nt, const int pw)
{
    int nd[2], dd[2][2] = {{0}}, kk[2][2] = {{0}};
    for (int par = 0; par < 2; par++) {
        nd[par] = 0;
        for (int kx = 2; kx >= 0; kx--)
            if (((par + pw - kx) & 1) == 0)
                dd[par][nd[par]] = (par + pw - kx) / 2, kk[par][nd[par]++] = kx;
    }
    const int two = nd[0] == 2 ? 0 : 1; /* the parity of two taps a row */
    for (int64_t j0 = 0; 2 * j0 < W; j0 += 8) {
        __m256 sum[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()}, t[2][2];
        __m256i cnt = _mm256_setzero_si256();
        for (int r = 0; r < nr; r++) {
            const __m256i k = _mm256_set1_epi32(kyk[r]);
            for (int par = 0; par < 2; par++)
                for (int q = 0; q < nd[par]; q++) {
                    const int64_t o = j0 + dd[par][q];
                    const __m256i h = _mm256_cmpeq_epi32(
                        _mm256_loadu_si256((const __m256i *)(const void *)(crow[r] + o)),
                        _mm256_add_epi32(k, _mm256_set1_epi32(kk[par][q])));
                    const __m256 term =
                        _mm256_and_ps(_mm256_castsi256_ps(h), _mm256_loadu_ps(grow[r] + o));
                    sum[par] = _mm256_add_ps(sum[par], term);
                    if (par == two) {
                        t[r][q] = term;
                        cnt = _mm256_sub_epi32(cnt, h);
                    }
                }
        }
        if (nr == 2) {
            const __m256i many = _mm256_cmpgt_epi32(cnt, _mm256_set1_epi32(2));
            if (__builtin_expect(!_mm256_testz_si256(many, many), 0)) {
                __m256d lo = _mm256_setzero_pd(), hi = lo;
                for (int r = 0; r < 2; r++)
                    for (int q = 0; q < 2; q++) {
                        lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(t[r][q])));
                        hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(t[r][q], 1)));
                    }
                sum[two] = _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo));
            }
        }
        const __m256 l = _mm256_unpacklo_ps(sum[0], sum[1]), h = _mm256_unpackhi_ps(sum[0], sum[1]);
        pa_dx_out(dx, 2 * j0, W, _mm256_permute2f128_ps(l, h, 0x20), nt);
        pa_dx_out(dx, 2 * j0 + 8, W, _mm256_permute2f128_ps(l, h, 0x31), nt);
    }
}

PA_AVX2 static void pa_dx3b(float *dx, int64_t W, int64_t pw, int nr, const int32_t *const *crow,
                            const float *const *grow, const int32_t *kyk, int nt)
{
    if (pw == 0)
        pa_dx3b_pw(dx, W, nr, crow, grow, kyk, nt, 0);
    else if (pw == 1)
        pa_dx3b_pw(dx, W, nr, crow, grow, kyk, nt, 1);
    else
        pa_dx3b_pw(dx, W, nr, crow, grow, kyk, nt, 2);
}

/* Codes of the ring of output rows: R rows of cs int32, the row at +8 (-1 margins); the dy
 * rows beside them (0 margins). */
#define PA_CODES 8192

PA_AVX2 static void pa_bwd_max2(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                                int64_t u1)
{
    const int64_t H = p->in[1], W = p->in[2], OW = p->out[2];
    const int64_t kh = p->win[1], kw = p->win[2], sh = p->stride[1], ph = p->pad[1], pw = p->pad[2];
    const int64_t R = (kh + sh - 1) / sh, cs = (OW + 7) / 8 * 8 + 32, rs = (OW + 7) / 8 * 8;
    const int64_t tmax = (kw - 1) / 2;
    const int64_t *s = p->xs, *t = p->dys, *q = p->dxs;
    const double alpha = a->alpha, beta = a->beta;
    const int plain = alpha == 1.0 && beta == 0.0;
    int32_t codes[PA_CODES], rk[PA_RINGF];
    float gbuf[PA_CODES], rv[PA_RINGF];
    for (int64_t i = 0; i < R * cs; i++)
        codes[i] = -1, gbuf[i] = 0.0f;
    for (int64_t pl = u0; pl < u1; pl++) {
        const int64_t n = pl / p->c, c = pl % p->c;
        const float *xp = (const float *)a->x + n * s[0] + c * s[1];
        const float *gp = (const float *)a->dy + n * t[0] + c * t[1];
        float *dxp = (float *)a->out + n * q[0] + c * q[1];
        int64_t have_hi = 0, rhave = 0; /* output rows with codes; input rows with argmaxes */
        for (int64_t ih = 0; ih < H; ih++) {
            int64_t olo, ohi;
            float *dx = dxp + ih * q[3];
            if (!pa_rows_of(p, ih, &olo, &ohi)) {
                pa_zero_row(dx, W, alpha, beta);
                continue;
            }
            for (int64_t oh = pa_max(have_hi, olo); oh <= ohi; oh++) {
                const int64_t h0 = oh * sh - ph, lo = pa_max(h0, 0), hi = pa_min(h0 + kh, H);
                for (int64_t r = pa_max(rhave, lo); r < hi; r++)
                    pa_rowarg(p, xp + r * s[3], rv + (r % kh) * rs, rk + (r % kh) * rs);
                rhave = pa_max(rhave, hi);
                pa_codes_fold(p, rv, rk, rs, h0, lo, hi, codes + (oh % R) * cs + 8);
                const float *gsrc = gp + oh * t[3];
                float *gdst = gbuf + (oh % R) * cs + 8;
                for (int64_t i0 = 0; i0 < OW; i0 += 8)
                    _mm256_storeu_ps(gdst + i0, pa_ld(gsrc, i0, OW, 0.0f));
            }
            have_hi = pa_max(have_hi, ohi + 1);
            const int32_t *crow[PA_R_MAX];
            const float *grow[PA_R_MAX];
            int32_t kyk[PA_R_MAX];
            const int nr = (int)(ohi - olo + 1);
            for (int r = 0; r < nr; r++) {
                const int64_t oh = olo + r;
                crow[r] = codes + (oh % R) * cs + 8;
                grow[r] = gbuf + (oh % R) * cs + 8;
                kyk[r] = (int32_t)((ih - (oh * sh - ph)) * kw);
            }
            /* a lane takes at most nr (tmax + 1) hits (even columns; odd ones fewer) */
            const int count = nr * (tmax + 1) > 2;
            if (plain && kw == 3 && nr <= 2) {
                pa_dx3(dx, W, pw, nr, crow, grow, kyk);
                continue;
            }
            for (int64_t j0 = pw / 2; 2 * j0 - pw < W; j0 += 8) {
                const int64_t c0 = 2 * j0 - pw, lo = pa_max(0, -c0), hi = pa_min(16, W - c0);
                if (plain) {
                    /* float sums, and the most hits of a lane (at most two: the double sums'
                     * bits) */
                    __m256 e = _mm256_setzero_ps(), o = e;
                    __m256i ne = _mm256_setzero_si256(), no = ne;
                    for (int r = 0; kw == 3 && r < nr; r++) { /* the loop below, unrolled */
                        const __m256i c1 =
                            _mm256_loadu_si256((const __m256i *)(const void *)(crow[r] + j0 - 1));
                        const __m256i c0 =
                            _mm256_loadu_si256((const __m256i *)(const void *)(crow[r] + j0));
                        const __m256 g1 = _mm256_loadu_ps(grow[r] + j0 - 1);
                        const __m256 g0 = _mm256_loadu_ps(grow[r] + j0);
                        const __m256i k = _mm256_set1_epi32(kyk[r]);
                        const __m256i h2 =
                            _mm256_cmpeq_epi32(c1, _mm256_add_epi32(k, _mm256_set1_epi32(2)));
                        const __m256i h0 = _mm256_cmpeq_epi32(c0, k);
                        const __m256i h1 =
                            _mm256_cmpeq_epi32(c0, _mm256_add_epi32(k, _mm256_set1_epi32(1)));
                        e = _mm256_add_ps(e, _mm256_and_ps(_mm256_castsi256_ps(h2), g1));
                        e = _mm256_add_ps(e, _mm256_and_ps(_mm256_castsi256_ps(h0), g0));
                        o = _mm256_add_ps(o, _mm256_and_ps(_mm256_castsi256_ps(h1), g0));
                        if (count)
                            ne = _mm256_sub_epi32(_mm256_sub_epi32(ne, h2), h0),
                            no = _mm256_sub_epi32(no, h1);
                    }
                    for (int r = 0; kw != 3 && r < nr; r++)
                        for (int64_t tt = tmax; tt >= 0; tt--) {
                            const __m256i cv = _mm256_loadu_si256(
                                (const __m256i *)(const void *)(crow[r] + j0 - tt));
                            const __m256 gv = _mm256_loadu_ps(grow[r] + j0 - tt);
                            const int k0 = kyk[r] + (int)(2 * tt);
                            const __m256i he = _mm256_cmpeq_epi32(cv, _mm256_set1_epi32(k0));
                            e = _mm256_add_ps(e, _mm256_and_ps(_mm256_castsi256_ps(he), gv));
                            ne = _mm256_sub_epi32(ne, he);
                            if (2 * tt + 1 < kw) {
                                const __m256i ho =
                                    _mm256_cmpeq_epi32(cv, _mm256_set1_epi32(k0 + 1));
                                o = _mm256_add_ps(o, _mm256_and_ps(_mm256_castsi256_ps(ho), gv));
                                no = _mm256_sub_epi32(no, ho);
                            }
                        }
                    const __m256i many =
                        _mm256_cmpgt_epi32(_mm256_max_epi32(ne, no), _mm256_set1_epi32(2));
                    if (!count || _mm256_testz_si256(many, many)) {
                        const __m256 l = _mm256_unpacklo_ps(e, o), h = _mm256_unpackhi_ps(e, o);
                        pa_st(dx + c0, _mm256_permute2f128_ps(l, h, 0x20), lo, hi);
                        if (hi > 8)
                            pa_st(dx + c0 + 8, _mm256_permute2f128_ps(l, h, 0x31),
                                  pa_max(0, lo - 8), hi - 8);
                        continue;
                    }
                }
                __m256d sum[4];
                pa_gather_d(nr, crow, grow, kyk, kw, j0, sum);
                pa_outd(dx + c0, sum[0], sum[1], lo, hi, alpha, beta);
                if (hi > 8)
                    pa_outd(dx + c0 + 8, sum[2], sum[3], pa_max(0, lo - 8), hi - 8, alpha, beta);
            }
        }
    }
}

/* 1 when pa_bwd_max3s2 streams dx (beta 0 here): dx over FD_CPU_NT_MIN bytes, apart from x and
 * dy, every row whole 64-byte lines (aligned, strides and W multiples of 16), so no line is
 * written in part. */
static int pa_bwd_nt(const fd_pool_problem_t *p, const fd_pool_args_t *a)
{
    const int64_t *q = p->dxs, *s = p->xs, *t = p->dys;
    const int64_t H = p->in[1], W = p->in[2], OH = p->out[1], OW = p->out[2];
    const uintptr_t d0 = (uintptr_t)a->out;
    const uintptr_t d1 =
        d0 + 4 * (uintptr_t)((p->n - 1) * q[0] + (p->c - 1) * q[1] + (H - 1) * q[3] + W);
    const uintptr_t x0 = (uintptr_t)a->x,
                    x1 = x0 + 4 * (uintptr_t)((p->n - 1) * s[0] + (p->c - 1) * s[1] +
                                              (H - 1) * s[3] + W);
    const uintptr_t g0 = (uintptr_t)a->dy,
                    g1 = g0 + 4 * (uintptr_t)((p->n - 1) * t[0] + (p->c - 1) * t[1] +
                                              (OH - 1) * t[3] + OW);
    return d0 % 64 == 0 && q[0] % 16 == 0 && q[1] % 16 == 0 && q[3] % 16 == 0 && W % 16 == 0 &&
           q[0] >= 0 && q[1] >= 0 && q[3] >= 0 && d1 - d0 >= FD_CPU_NT_MIN &&
           (x1 <= d0 || d1 <= x0) && (g1 <= d0 || d1 <= g0);
}

/* Max backward, 3-wide windows at stride 2 along W, alpha 1, beta 0, no NaN propagation, a dx
 * row in at most two output rows: pa_bwd_max2's codes with the row argmaxes, the window codes
 * and the dy row copy of each output row in one pass (the kx of a row: its first tap equal to
 * the row's maximum; border vectors under masks made once, no row copy; no division per dx
 * row), one output row ahead of the dx rows, each dx row by pa_dx3b (streamed: pa_bwd_nt). */
PA_AVX2 static void pa_bwd_max3s2(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                                  int64_t u1)
{
    const int64_t H = p->in[1], W = p->in[2], OH = p->out[1], OW = p->out[2];
    const int64_t kh = p->win[1], sh = p->stride[1], ph = p->pad[1], pw = p->pad[2];
    /* 4 slots (oh & 3) of codes and dy rows, at least R + 1 (R <= 2: the output rows of a dx
     * row): each row computed an output row before the dx rows read it */
    const int64_t R = 4, cs = (OW + 7) / 8 * 8 + 32, rs = (OW + 7) / 8 * 8, km = pa_pow2(kh) - 1;
    const int64_t *s = p->xs, *t = p->dys, *q = p->dxs;
    int64_t nv, vlo, vhi;
    pa_b3_geom(p, &nv, &vlo, &vhi);
    __m256i mk[PA_NB][4];
    pa_b3_masks(p, mk);
    int32_t codes[PA_CODES] __attribute__((aligned(32)));
    float gbuf[PA_CODES] __attribute__((aligned(32)));
    float rv[PA_RINGF] __attribute__((aligned(32)));
    int32_t rk[PA_RINGF] __attribute__((aligned(32)));
    for (int64_t i = 0; i < R * cs; i++)
        codes[i] = -1, gbuf[i] = 0.0f;
    const int nt = pa_bwd_nt(p, a);
    for (int64_t pl = u0; pl < u1; pl++) {
        const int64_t n = pl / p->c, c = pl % p->c;
        const float *xp = (const float *)a->x + n * s[0] + c * s[1];
        const float *gp = (const float *)a->dy + n * t[0] + c * t[1];
        float *dxp = (float *)a->out + n * q[0] + c * q[1];
        int64_t have_hi = 0, rhave = 0; /* output rows with codes; input rows in the ring */
        /* output rows holding dx row ih: [olo, ohi] with ohi = floor((ih + ph) / sh), olo =
         * floor((ih + ph - kh) / sh) + 1, kept as quotients and remainders */
        int64_t qa = pa_fdiv(ph, sh), ra = ph - qa * sh;
        int64_t qb = pa_fdiv(ph - kh, sh), rb = ph - kh - qb * sh;
        for (int64_t ih = 0; ih < H; ih++) {
            const int64_t olo = pa_max(0, qb + 1), ohi = pa_min(OH - 1, qa);
            if (++ra == sh)
                ra = 0, qa++;
            if (++rb == sh)
                rb = 0, qb++;
            float *dx = dxp + ih * q[3];
            if (olo > ohi) {
                pa_zero_row(dx, W, 1.0, 0.0);
                continue;
            }
            const int64_t oend = pa_min(OH - 1, ohi + 1); /* one output row ahead */
            for (int64_t oh = pa_max(have_hi, olo); oh <= oend; oh++) {
                const int64_t h0 = oh * sh - ph, lo = pa_max(h0, 0), hi = pa_min(h0 + kh, H);
                const int64_t nxt = oh + 1 < OH ? h0 + sh : INT64_MAX;
                pa_rows3_t w;
                float *kslot[PA_MAXK];
                __m256i ky3[PA_MAXK];
                w.nr = (int)(hi - lo);
                for (int r = 0; r < w.nr; r++) {
                    const int64_t ir = lo + r;
                    w.slot[r] = rv + (ir & km) * rs;
                    kslot[r] = (float *)(void *)(rk + (ir & km) * rs);
                    w.src[r] = ir >= rhave ? xp + ir * s[3] : NULL;
                    w.st[r] = ir >= rhave && ir >= nxt;
                    ky3[r] = _mm256_set1_epi32((int)(3 * (ir - h0)));
                }
                rhave = pa_max(rhave, hi);
                int32_t *crow = codes + (oh & 3) * cs + 8;
                float *grow = gbuf + (oh & 3) * cs + 8;
                const float *gsrc = gp + oh * t[3];
                const int steady = w.nr == 3 && lo == h0 && !w.src[0] && w.src[1] && w.src[2] &&
                                   !w.st[1] && w.st[2];
                for (int64_t v = 0; v < nv; v++) {
                    const int inner = v >= vlo && v < vhi;
                    const __m256i *m = inner ? NULL : mk[v < vlo ? 0 : vlo + v - vhi];
                    __m256i cv;
                    if (steady && inner) { /* the interior run, in one loop */
                        for (; v < vhi; v++)
                            pa_b3_put(crow, grow, gsrc, v, OW, pa_b3_vec3(&w, kslot, v, pw, NULL));
                        v--;
                        continue;
                    }
                    if (steady)
                        cv = pa_b3_vec3(&w, kslot, v, pw, m);
                    else if (inner)
                        cv = pa_b3_vec(&w, kslot, ky3, v, pw, NULL);
                    else
                        cv = pa_b3_vec(&w, kslot, ky3, v, pw, m);
                    pa_b3_put(crow, grow, gsrc, v, OW, cv);
                }
            }
            have_hi = pa_max(have_hi, oend + 1);
            const int32_t *crow[2];
            const float *grow[2];
            int32_t kyk[2];
            const int nr = (int)(ohi - olo + 1);
            for (int r = 0; r < nr; r++) {
                const int64_t oh = olo + r;
                crow[r] = codes + (oh & 3) * cs + 8;
                grow[r] = gbuf + (oh & 3) * cs + 8;
                kyk[r] = (int32_t)((ih - (oh * sh - ph)) * 3);
            }
            pa_dx3b(dx, W, pw, nr, crow, grow, kyk, nt);
        }
    }
    if (nt)
        _mm_sfence(); /* the streamed rows visible past the parallel loop's barrier */
}

/* ---- average forward ---- */

PA_AVX2 static void pa_fwd_avg(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                               int64_t u1)
{
    const int64_t H = p->in[1], W = p->in[2], OH = p->out[1], OW = p->out[2];
    const int64_t kh = p->win[1], kw = p->win[2], sh = p->stride[1], sw = p->stride[2];
    const int64_t ph = p->pad[1], pw = p->pad[2];
    const int64_t *s = p->xs, *t = p->ys;
    const double alpha = a->alpha, beta = a->beta;
    const int pair = sw == 2 && kw == 2;
    double cw[PA_MAXW + 8];
    for (int64_t ow = 0; ow < OW + 8; ow++)
        cw[ow] = ow < OW ? pa_cnt(p, 2, ow) : 1.0;
    for (int64_t pl = u0; pl < u1; pl++) {
        const int64_t n = pl / p->c, c = pl % p->c;
        const float *xb = (const float *)a->x + n * s[0] + c * s[1];
        float *yb = (float *)a->out + n * t[0] + c * t[1];
        for (int64_t oh = 0; oh < OH; oh++) {
            const int64_t h0 = oh * sh - ph, lo = pa_max(h0, 0), hi = pa_min(h0 + kh, H);
            const __m256d ch = _mm256_set1_pd(pa_cnt(p, 1, oh));
            float *y = yb + oh * t[3];
            for (int64_t ow0 = 0; ow0 < OW; ow0 += 8) {
                const int64_t b = ow0 * sw - pw;
                const int border = pa_border(b, sw, kw, W);
                __m256d s0 = _mm256_setzero_pd(), s1 = s0;
                for (int64_t ih = lo; ih < hi; ih++) {
                    const float *row = xb + ih * s[3];
                    if (pair && !border) { /* taps 0, 1 from the same two plain loads */
                        const __m256 v0 = _mm256_loadu_ps(row + b),
                                     v1 = _mm256_loadu_ps(row + b + 8);
                        const __m256 t0 = _mm256_shuffle_ps(v0, v1, 0x88);
                        const __m256 t1 = _mm256_shuffle_ps(v0, v1, 0xDD);
                        s0 = _mm256_add_pd(s0, _mm256_cvtps_pd(_mm256_castps256_ps128(t0)));
                        s1 = _mm256_add_pd(s1, _mm256_cvtps_pd(_mm256_extractf128_ps(t0, 1)));
                        s0 = _mm256_add_pd(s0, _mm256_cvtps_pd(_mm256_castps256_ps128(t1)));
                        s1 = _mm256_add_pd(s1, _mm256_cvtps_pd(_mm256_extractf128_ps(t1, 1)));
                        continue;
                    }
                    for (int64_t kx = 0; kx < kw; kx++) {
                        const __m256 v = pa_tap(row, b, kx, sw, W, 0.0f, border);
                        s0 = _mm256_add_pd(s0, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
                        s1 = _mm256_add_pd(s1, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
                    }
                }
                if (sw == 2) { /* pa_tap's lanes [0 1 4 5], [2 3 6 7] back to column order */
                    const __m256d u0 = s0;
                    s0 = _mm256_permute2f128_pd(u0, s1, 0x20);
                    s1 = _mm256_permute2f128_pd(u0, s1, 0x31);
                }
                const __m256d c0 = _mm256_mul_pd(ch, _mm256_loadu_pd(cw + ow0));
                const __m256d c1 = _mm256_mul_pd(ch, _mm256_loadu_pd(cw + ow0 + 4));
                pa_outd(y + ow0, _mm256_div_pd(s0, c0), _mm256_div_pd(s1, c1), 0, OW - ow0, alpha,
                        beta);
            }
        }
    }
}

/* Stride 1 along W: each input row converted to double once (a ring of kh rows, pw zeros
 * before the row, zeros after), the taps plain double loads: the same sums in the same order
 * as pa_fwd_avg, with a conversion per input element instead of one per tap. */
static int64_t pa_fwd_avg1_ds(const fd_pool_problem_t *p)
{
    return ((p->out[2] + 7) / 8 * 8 + p->win[2] + 15) / 8 * 8;
}

PA_AVX2 static void pa_fwd_avg1(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                                int64_t u1)
{
    const int64_t H = p->in[1], W = p->in[2], OH = p->out[1], OW = p->out[2];
    const int64_t kh = p->win[1], kw = p->win[2], sh = p->stride[1];
    const int64_t ph = p->pad[1], pw = p->pad[2], ds = pa_fwd_avg1_ds(p);
    const int64_t *s = p->xs, *t = p->ys;
    const double alpha = a->alpha, beta = a->beta;
    double ring[PA_RINGD], cw[PA_MAXW + 8];
    for (int64_t ow = 0; ow < OW + 8; ow++)
        cw[ow] = ow < OW ? pa_cnt(p, 2, ow) : 1.0;
    for (int64_t pl = u0; pl < u1; pl++) {
        const int64_t n = pl / p->c, c = pl % p->c;
        const float *xb = (const float *)a->x + n * s[0] + c * s[1];
        float *yb = (float *)a->out + n * t[0] + c * t[1];
        int64_t have = 0; /* input rows below have are in the ring (the last kh of them) */
        for (int64_t oh = 0; oh < OH; oh++) {
            const int64_t h0 = oh * sh - ph, lo = pa_max(h0, 0), hi = pa_min(h0 + kh, H);
            for (int64_t ih = pa_max(have, lo); ih < hi; ih++) {
                const float *xr = xb + ih * s[3];
                double *d = ring + (ih % kh) * ds;
                for (int64_t j = 0; j < ds; j += 8) {
                    const __m256 v = pa_ld(xr, j - pw, W, 0.0f);
                    _mm256_storeu_pd(d + j, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
                    _mm256_storeu_pd(d + j + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
                }
            }
            have = pa_max(have, hi);
            const double *rp[PA_MAXK];
            const int nr = (int)(hi - lo);
            for (int r = 0; r < nr; r++)
                rp[r] = ring + ((lo + r) % kh) * ds;
            const __m256d ch = _mm256_set1_pd(pa_cnt(p, 1, oh));
            float *y = yb + oh * t[3];
            for (int64_t ow0 = 0; ow0 < OW; ow0 += 8) {
                __m256d s0 = _mm256_setzero_pd(), s1 = s0;
                for (int r = 0; r < nr; r++)
                    for (int64_t kx = 0; kx < kw; kx++) {
                        s0 = _mm256_add_pd(s0, _mm256_loadu_pd(rp[r] + ow0 + kx));
                        s1 = _mm256_add_pd(s1, _mm256_loadu_pd(rp[r] + ow0 + kx + 4));
                    }
                const __m256d c0 = _mm256_mul_pd(ch, _mm256_loadu_pd(cw + ow0));
                const __m256d c1 = _mm256_mul_pd(ch, _mm256_loadu_pd(cw + ow0 + 4));
                pa_outd(y + ow0, _mm256_div_pd(s0, c0), _mm256_div_pd(s1, c1), 0, OW - ow0, alpha,
                        beta);
            }
        }
    }
}

/* ---- average backward ---- */

/* Stride 1 along W: dx[iw] = the sum over its output rows (ascending) and windows ow = iw + pw -
 * kw + 1 + k (k ascending) of dy / count, from a ring of quotient rows (PA_PADV zeros before
 * each row, zeros past OW). */
#define PA_PADV 16

PA_AVX2 static void pa_bwd_avg1(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                                int64_t u1)
{
    const int64_t H = p->in[1], W = p->in[2], OW = p->out[2];
    const int64_t kh = p->win[1], kw = p->win[2], pw = p->pad[2];
    const int64_t vs = PA_PADV + (OW + 7) / 8 * 8 + 32;
    const int64_t *t = p->dys, *q = p->dxs;
    const double alpha = a->alpha, beta = a->beta;
    double ring[PA_RINGD], cw[PA_MAXW + 8];
    for (int64_t ow = 0; ow < OW + 8; ow++)
        cw[ow] = ow < OW ? pa_cnt(p, 2, ow) : 1.0;
    for (int64_t i = 0; i < kh * vs; i++)
        ring[i] = 0.0;
    for (int64_t pl = u0; pl < u1; pl++) {
        const int64_t n = pl / p->c, c = pl % p->c;
        const float *gp = (const float *)a->dy + n * t[0] + c * t[1];
        float *dxp = (float *)a->out + n * q[0] + c * q[1];
        int64_t have = 0; /* output rows below have: quotients in the ring */
        for (int64_t ih = 0; ih < H; ih++) {
            int64_t olo, ohi;
            float *dx = dxp + ih * q[3];
            if (!pa_rows_of(p, ih, &olo, &ohi)) {
                pa_zero_row(dx, W, alpha, beta);
                continue;
            }
            for (int64_t oh = pa_max(have, olo); oh <= ohi; oh++) {
                const float *g = gp + oh * t[3];
                double *v = ring + (oh % kh) * vs + PA_PADV;
                const __m256d ch = _mm256_set1_pd(pa_cnt(p, 1, oh));
                for (int64_t o0 = 0; o0 < OW; o0 += 8) {
                    const __m256 gv = pa_ld(g, o0, OW, 0.0f);
                    const __m256d c0 = _mm256_mul_pd(ch, _mm256_loadu_pd(cw + o0));
                    const __m256d c1 = _mm256_mul_pd(ch, _mm256_loadu_pd(cw + o0 + 4));
                    _mm256_storeu_pd(
                        v + o0, _mm256_div_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(gv)), c0));
                    _mm256_storeu_pd(
                        v + o0 + 4,
                        _mm256_div_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(gv, 1)), c1));
                }
            }
            have = pa_max(have, ohi + 1);
            const double *vp[PA_MAXK]; /* each window row's quotients at dx column 0's first */
            const int nr = (int)(ohi - olo + 1);
            for (int r = 0; r < nr; r++)
                vp[r] = ring + ((olo + r) % kh) * vs + PA_PADV + pw - kw + 1;
            for (int64_t i0 = 0; i0 < W; i0 += 8) {
                __m256d s0 = _mm256_setzero_pd(), s1 = s0;
                for (int r = 0; r < nr; r++) {
                    const double *v = vp[r] + i0;
                    for (int64_t k = 0; k < kw; k++) {
                        s0 = _mm256_add_pd(s0, _mm256_loadu_pd(v + k));
                        s1 = _mm256_add_pd(s1, _mm256_loadu_pd(v + k + 4));
                    }
                }
                pa_outd(dx + i0, s0, s1, 0, W - i0, alpha, beta);
            }
        }
    }
}

/* 2-wide windows at stride 2 from column 0, kh <= sh: dx columns 2 j and 2 j + 1 of a row in
 * window row oh are alpha * (0.0 + dy[oh][j] / count) (+ beta dx); columns past the windows
 * (an odd W) take a zero dy, the same value. */
PA_AVX2 static void pa_bwd_avg_dup2(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                                    int64_t u1)
{
    const int64_t H = p->in[1], W = p->in[2], OH = p->out[1], OW = p->out[2];
    const int64_t kh = p->win[1], sh = p->stride[1], ph = p->pad[1];
    const int64_t *t = p->dys, *q = p->dxs;
    const double alpha = a->alpha, beta = a->beta;
    const int plain = alpha == 1.0 && beta == 0.0;
    double cw[PA_MAXW + 8];
    float vf[PA_MAXW + 8];
    double vd[PA_MAXW + 8];
    for (int64_t ow = 0; ow < OW + 8; ow++)
        cw[ow] = ow < OW ? pa_cnt(p, 2, ow) : 1.0;
    const int64_t nj = (W + 1) / 2; /* windows' columns j of a row, including a zero one */
    for (int64_t pl = u0; pl < u1; pl++) {
        const int64_t n = pl / p->c, c = pl % p->c;
        const float *gp = (const float *)a->dy + n * t[0] + c * t[1];
        float *dxp = (float *)a->out + n * q[0] + c * q[1];
        int64_t have = -1;
        for (int64_t ih = 0; ih < H; ih++) {
            float *dx = dxp + ih * q[3];
            const int64_t oh = pa_fdiv(ih + ph, sh);
            if (oh < 0 || oh >= OH || ih + ph - oh * sh >= kh) {
                pa_zero_row(dx, W, alpha, beta);
                continue;
            }
            if (oh != have) {
                const float *g = gp + oh * t[3];
                const double ch = pa_cnt(p, 1, oh);
                for (int64_t j0 = 0; j0 < nj; j0 += 8) {
                    const __m256 gv = pa_ld(g, j0, OW, 0.0f);
                    const __m256d c0 = _mm256_mul_pd(_mm256_set1_pd(ch), _mm256_loadu_pd(cw + j0));
                    const __m256d c1 =
                        _mm256_mul_pd(_mm256_set1_pd(ch), _mm256_loadu_pd(cw + j0 + 4));
                    if (plain) {
                        const __m256 cf =
                            _mm256_set_m128(_mm256_cvtpd_ps(c1), _mm256_cvtpd_ps(c0)); /* exact */
                        _mm256_storeu_ps(vf + j0,
                                         _mm256_add_ps(_mm256_div_ps(gv, cf), _mm256_setzero_ps()));
                    } else {
                        const __m256d z = _mm256_setzero_pd();
                        _mm256_storeu_pd(
                            vd + j0,
                            _mm256_add_pd(
                                z, _mm256_div_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(gv)), c0)));
                        _mm256_storeu_pd(
                            vd + j0 + 4,
                            _mm256_add_pd(
                                z,
                                _mm256_div_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(gv, 1)), c1)));
                    }
                }
                have = oh;
            }
            if (plain) {
                for (int64_t j0 = 0; j0 < nj; j0 += 8) {
                    const __m256 v = _mm256_loadu_ps(vf + j0);
                    const __m256 l = _mm256_unpacklo_ps(v, v), h = _mm256_unpackhi_ps(v, v);
                    const int64_t c0 = 2 * j0;
                    pa_st(dx + c0, _mm256_permute2f128_ps(l, h, 0x20), 0, W - c0);
                    if (W - c0 > 8)
                        pa_st(dx + c0 + 8, _mm256_permute2f128_ps(l, h, 0x31), 0, W - c0 - 8);
                }
            } else {
                for (int64_t j0 = 0; j0 < nj; j0 += 4) {
                    const __m256d v = _mm256_loadu_pd(vd + j0);
                    const int64_t c0 = 2 * j0;
                    pa_outd(dx + c0, _mm256_permute4x64_pd(v, 0x50), _mm256_permute4x64_pd(v, 0xFA),
                            0, W - c0, alpha, beta);
                }
            }
        }
    }
}

/* ---- stride-1 averages: the box rows (float sums, pooling_cpu.c's AVX-512 operations) ---- */

#define PA_BOXF 32768 /* floats of the box rows' ring (128 KiB of stack) */

/* 1 when the box rows take p (after pa_pick's checks: pads 0 .. window - 1, so every count is
 * positive): 2-d stride-1 averages along W whose kh ring rows fit PA_BOXF. */
static int pa_box_ok(const fd_pool_problem_t *p, int bwd)
{
    const int64_t rs = ((bwd ? p->in[2] : p->out[2]) + 7) / 8 * 8;
    return !pa_is_max(p) && p->nsp == 2 && p->stride[2] == 1 && p->win[1] * rs <= PA_BOXF;
}

/* Lanes of the bit set m (bit j: lane j) as a vector mask. */
PA_AVX2 static inline __m256i pa_bits(int m)
{
    const __m256i b = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(m), b), b);
}

/* Lanes [0, n) of v that are NaN or +-inf, as bits. */
PA_AVX2 static inline int pa_nonfin(__m256 v, int64_t n)
{
    const __m256 av = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v);
    return _mm256_movemask_ps(_mm256_cmp_ps(av, _mm256_set1_ps(FLT_MAX), _CMP_NLE_UQ)) &
           (int)((1u << (n > 8 ? 8 : n)) - 1u);
}

/* Lanes that are NaN, +-inf or nonzero below 2^-80 in magnitude (whose quotient needs
 * fd_pool_avx2_divf's checks or the ref's formula), ORed into odd. */
PA_AVX2 static inline __m256 pa_odd(__m256 odd, __m256 v)
{
    const __m256 av = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v), z = _mm256_setzero_ps();
    const __m256 tiny = _mm256_and_ps(_mm256_cmp_ps(av, _mm256_set1_ps(0x1p-80f), _CMP_LT_OQ),
                                      _mm256_cmp_ps(av, z, _CMP_NEQ_OQ));
    return _mm256_or_ps(
        odd, _mm256_or_ps(_mm256_cmp_ps(av, _mm256_set1_ps(FLT_MAX), _CMP_NLE_UQ), tiny));
}

/* The kw-tap sum of the 8 columns whose windows start at column b of row[0, W), +0 outside,
 * in kx order (pf_hsum_w's operations). */
PA_AVX2 static inline __m256 pa_hvec(const float *row, int64_t b, int64_t W, int64_t kw)
{
    __m256 s;
    if (b >= 0 && b + 8 + kw - 1 <= W) {
        if (kw == 3)
            return _mm256_add_ps(
                _mm256_add_ps(_mm256_loadu_ps(row + b), _mm256_loadu_ps(row + b + 1)),
                _mm256_loadu_ps(row + b + 2));
        s = _mm256_loadu_ps(row + b);
        for (int64_t kx = 1; kx < kw; kx++)
            s = _mm256_add_ps(s, _mm256_loadu_ps(row + b + kx));
        return s;
    }
    s = pa_ld(row, b, W, 0.0f);
    for (int64_t kx = 1; kx < kw; kx++)
        s = _mm256_add_ps(s, pa_ld(row, b + kx, W, 0.0f));
    return s;
}

/* pa_hvec of 8 outputs whose taps are all readable at p (a padded row): plain loads. */
PA_AVX2 static inline __m256 pa_hvec_p(const float *p, int64_t kw)
{
    __m256 s = _mm256_loadu_ps(p);
    for (int64_t kx = 1; kx < kw; kx++)
        s = _mm256_add_ps(s, _mm256_loadu_ps(p + kx));
    return s;
}

/* +0.0 plus the rows rp[0 .. nr) at f, in row order. */
PA_AVX2 static inline __m256 pa_vsum(float *const *rp, int nr, int64_t f)
{
    __m256 s = _mm256_setzero_ps();
    for (int r = 0; r < nr; r++)
        s = _mm256_add_ps(s, _mm256_load_ps(rp[r] + f));
    return s;
}

/* The ref's formula for output (n, c, oh, ow) (a lane whose float sum is not finite). */
static void pa_box_fexact(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t n, int64_t c,
                          int64_t oh, int64_t ow)
{
    const int64_t h0 = oh * p->stride[1] - p->pad[1], w0 = ow - p->pad[2];
    const int64_t *s = p->xs;
    const float *x = (const float *)a->x + n * s[0] + c * s[1];
    double sum = 0.0;
    for (int64_t ih = pa_max(h0, 0); ih < pa_min(h0 + p->win[1], p->in[1]); ih++)
        for (int64_t iw = pa_max(w0, 0); iw < pa_min(w0 + p->win[2], p->in[2]); iw++)
            sum += (double)x[ih * s[3] + iw];
    const double cnt = pa_cnt(p, 1, oh) * pa_cnt(p, 2, ow);
    float *y = (float *)a->out + n * p->ys[0] + c * p->ys[1] + oh * p->ys[3] + ow;
    double v = a->alpha * (cnt > 0 ? sum / cnt : 0.0);
    if (a->beta != 0.0)
        v += a->beta * (double)*y;
    *y = (float)v;
}

/* The same for dx (n, c, ih, iw): the double sum of dy / count over its windows. */
static void pa_box_bexact(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t n, int64_t c,
                          int64_t ih, int64_t iw)
{
    int64_t olo, ohi;
    const int64_t *t = p->dys, *q = p->dxs;
    const float *dy = (const float *)a->dy + n * t[0] + c * t[1];
    double acc = 0.0;
    if (pa_rows_of(p, ih, &olo, &ohi))
        for (int64_t oh = olo; oh <= ohi; oh++)
            for (int64_t ow = pa_max(0, iw + p->pad[2] - p->win[2] + 1);
                 ow <= pa_min(p->out[2] - 1, iw + p->pad[2]); ow++)
                acc += (double)dy[oh * t[3] + ow] / (pa_cnt(p, 1, oh) * pa_cnt(p, 2, ow));
    float *dx = (float *)a->out + n * q[0] + c * q[1] + ih * q[3] + iw;
    double v = a->alpha * acc;
    if (a->beta != 0.0)
        v += a->beta * (double)*dx;
    *dx = (float)v;
}

/* The counts of one row: cf = ch cw (exact in float: the ref's count), vf = 1 / cf in float,
 * for the row factor ch (-1: none yet); cw is 1 past OW (finite lanes past the row). */
typedef struct {
    float cw[PA_MAXW + 8] __attribute__((aligned(32)));
    float cf[PA_MAXW + 8] __attribute__((aligned(32)));
    float vf[PA_MAXW + 8] __attribute__((aligned(32)));
    float ch;
} pa_boxcnt_t;

static void pa_boxcnt_init(const fd_pool_problem_t *p, pa_boxcnt_t *k)
{
    for (int64_t ow = 0; ow < p->out[2] + 8; ow++)
        k->cw[ow] = ow < p->out[2] ? (float)pa_cnt(p, 2, ow) : 1.0f;
    k->ch = -1;
}

/* k's counts for output row oh, 8 a vector (kept while the row factor stays). */
PA_AVX2 static inline void pa_boxcnt_row(const fd_pool_problem_t *p, pa_boxcnt_t *k, int64_t oh)
{
    const float ch = (float)pa_cnt(p, 1, oh);
    if (ch == k->ch)
        return;
    for (int64_t ow = 0; ow < p->out[2]; ow += 8) {
        const __m256 c = _mm256_mul_ps(_mm256_set1_ps(ch), _mm256_load_ps(k->cw + ow));
        _mm256_store_ps(k->cf + ow, c);
        _mm256_store_ps(k->vf + ow, _mm256_div_ps(_mm256_set1_ps(1.0f), c));
    }
    k->ch = ch;
}

/* One plain (alpha 1, beta 0) forward output row of three window rows: when xr is given, the
 * new row's tap sums (pa_hvec, into rn) in the same pass; y = ((+0 + r0) + r1) + rn divided by
 * the Markstein step without a test per vector. Returns 0 when some sum was not finite or tiny
 * (the caller redoes the row; rn is complete, beta 0 loses nothing). */
PA_AVX2 static int pa_box_row3(const float *xr, int64_t W, int64_t pw, int64_t kw, const float *r0,
                               const float *r1, float *rn, const float *cf, const float *vf,
                               float *y, int64_t OW)
{
    __m256 odd = _mm256_setzero_ps();
    for (int64_t o = 0; o < OW; o += 8) {
        __m256 h;
        if (xr) {
            h = pa_hvec(xr, o - pw, W, kw);
            _mm256_store_ps(rn + o, h);
        } else {
            h = _mm256_load_ps(rn + o);
        }
        const __m256 v =
            _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_setzero_ps(), _mm256_load_ps(r0 + o)),
                                        _mm256_load_ps(r1 + o)),
                          h);
        odd = pa_odd(odd, v);
        const __m256 vi = _mm256_load_ps(vf + o), q0 = _mm256_mul_ps(v, vi);
        const __m256 r = _mm256_fmadd_ps(_mm256_fnmadd_ps(q0, _mm256_load_ps(cf + o), v), vi, q0);
        if (o + 8 <= OW)
            _mm256_storeu_ps(y + o, r);
        else
            pa_st(y + o, r, 0, OW - o);
    }
    return !_mm256_movemask_ps(odd);
}

/* Forward: each input row's kw-tap sums once into a ring of kh rows, each output row +0.0 plus
 * its window's rows in row order, divided in float (alpha 1, beta 0) or in double with the
 * double blend; lanes whose sum is not finite take the ref's formula (pf_box_fwd's rows). */
PA_AVX2 static void pa_box_fwd(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                               int64_t u1)
{
    const int64_t H = p->in[1], W = p->in[2], OH = p->out[1], OW = p->out[2];
    const int64_t kh = p->win[1], kw = p->win[2], sh = p->stride[1], ph = p->pad[1];
    const int64_t pw = p->pad[2], rs = (OW + 7) / 8 * 8;
    const int64_t *s = p->xs, *t = p->ys;
    const double alpha = a->alpha, beta = a->beta;
    const int plain = alpha == 1.0 && beta == 0.0;
    float ring[PA_BOXF] __attribute__((aligned(32)));
    pa_boxcnt_t k;
    pa_boxcnt_init(p, &k);
    const float *const cf = k.cf, *const vf = k.vf;
    for (int64_t pl = u0; pl < u1; pl++) {
        const int64_t n = pl / p->c, c = pl % p->c;
        const float *xb = (const float *)a->x + n * s[0] + c * s[1];
        float *yb = (float *)a->out + n * t[0] + c * t[1];
        int64_t have = 0; /* input rows summed: [.., have) */
        for (int64_t oh = 0; oh < OH; oh++) {
            const int64_t h0 = oh * sh - ph, lo = pa_max(h0, 0), hi = pa_min(h0 + kh, H);
            pa_boxcnt_row(p, &k, oh);
            float *rp[PA_MAXK];
            int nr = 0;
            for (int64_t ih = lo; ih < hi; ih++)
                rp[nr++] = ring + (ih % kh) * rs;
            float *yr = yb + oh * t[3];
            const int64_t ih0 = pa_max(have, lo);
            if (plain && nr == 3 && ih0 == hi - 1) {
                /* one new row: its sums and the output row in one pass */
                have = hi;
                if (pa_box_row3(xb + ih0 * s[3], W, pw, kw, rp[0], rp[1], rp[2], cf, vf, yr, OW))
                    continue;
            } else {
                for (int64_t ih = ih0; ih < hi; ih++)
                    for (int64_t o = 0; o < rs; o += 8)
                        _mm256_store_ps(ring + (ih % kh) * rs + o,
                                        pa_hvec(xb + ih * s[3], o - pw, W, kw));
                have = pa_max(have, hi);
                if (plain && nr == 3 &&
                    pa_box_row3(NULL, W, pw, kw, rp[0], rp[1], rp[2], cf, vf, yr, OW))
                    continue;
            }
            for (int64_t o = 0; o < OW; o += 8) {
                const int64_t nl = pa_min(8, OW - o);
                const __m256 v = pa_vsum(rp, nr, o);
                const int bad = pa_nonfin(v, nl);
                __m256 r;
                if (plain) {
                    r = fd_pool_avx2_divf(v, _mm256_load_ps(cf + o), _mm256_load_ps(vf + o));
                } else {
                    /* the ref's double quotient (the counts are exact in float) and blend */
                    const __m256 fc = _mm256_load_ps(cf + o);
                    __m256d q0 = _mm256_div_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)),
                                               _mm256_cvtps_pd(_mm256_castps256_ps128(fc)));
                    __m256d q1 = _mm256_div_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)),
                                               _mm256_cvtps_pd(_mm256_extractf128_ps(fc, 1)));
                    if (alpha != 1.0) {
                        q0 = _mm256_mul_pd(_mm256_set1_pd(alpha), q0);
                        q1 = _mm256_mul_pd(_mm256_set1_pd(alpha), q1);
                    }
                    if (beta != 0.0) {
                        const __m256 old = pa_ld(yr + o, 0, nl, 0.0f);
                        q0 = _mm256_add_pd(
                            q0, _mm256_mul_pd(_mm256_set1_pd(beta),
                                              _mm256_cvtps_pd(_mm256_castps256_ps128(old))));
                        q1 = _mm256_add_pd(
                            q1, _mm256_mul_pd(_mm256_set1_pd(beta),
                                              _mm256_cvtps_pd(_mm256_extractf128_ps(old, 1))));
                    }
                    r = _mm256_set_m128(_mm256_cvtpd_ps(q1), _mm256_cvtpd_ps(q0));
                }
                _mm256_maskstore_ps(yr + o, pa_bits(((1 << nl) - 1) & ~bad), r);
                for (int b = bad; b; b &= b - 1)
                    pa_box_fexact(p, a, n, c, oh, o + __builtin_ctz((unsigned)b));
            }
        }
    }
}

/* Backward: each dy row's quotients dy / count (fd_pool_avx2_divf) once, their kw-tap sums for
 * every dx column (pa_hvec with pad kw - 1 - pw) into a ring of kh rows, each dx row +0.0 plus its
 * windows' rows in row order, the blend in float; lanes whose result is not finite take the
 * ref's formula (pf_box_bwd's rows; its fused 3 x 3 row is the same operations). */
PA_AVX2 static void pa_box_bwd(const fd_pool_problem_t *p, const fd_pool_args_t *a, int64_t u0,
                               int64_t u1)
{
    const int64_t H = p->in[1], W = p->in[2], OW = p->out[2];
    const int64_t kh = p->win[1], kw = p->win[2], pv = kw - 1 - p->pad[2], rs = (W + 7) / 8 * 8;
    const int64_t *t = p->dys, *q = p->dxs;
    const float alpha = (float)a->alpha, beta = (float)a->beta;
    const int plain = alpha == 1.0f && beta == 0.0f;
    float ring[PA_BOXF] __attribute__((aligned(32)));
    /* dy / count of one row, between +0 margins (PA_PADL before; after, up to 16 past the
     * longer of the quotient row and the rounded dx row): every window's taps are plain loads,
     * the margins the zero fill pa_hvec's border loads blend in (the quotients past OW are +0
     * too: count 1); the vectors that overhang a dx row past W read only zeros and quotients,
     * never unset floats */
    float qrb[PA_PADL + PA_MAXW + 8 + 16] __attribute__((aligned(32)));
    float *const qr = qrb + PA_PADL;
    const int64_t qe = (OW + 7) / 8 * 8; /* the quotient stores end here */
    for (int64_t i = 0; i < PA_PADL; i++)
        qrb[i] = 0.0f;
    for (int64_t i = qe; i < pa_max(qe, rs) + 16; i++) /* reads end before rs + 15 */
        qr[i] = 0.0f;
    pa_boxcnt_t k;
    pa_boxcnt_init(p, &k);
    const float *const cf = k.cf, *const vf = k.vf;
    for (int64_t pl = u0; pl < u1; pl++) {
        const int64_t n = pl / p->c, c = pl % p->c;
        const float *gb = (const float *)a->dy + n * t[0] + c * t[1];
        float *dxb = (float *)a->out + n * q[0] + c * q[1];
        int64_t have = 0; /* output rows summed: [.., have) */
        for (int64_t ih = 0; ih < H; ih++) {
            int64_t olo = 1, ohi = 0;
            float *dr = dxb + ih * q[3];
            const int ok = pa_rows_of(p, ih, &olo, &ohi);
            int fused = 0;
            for (int64_t oh = ok ? pa_max(have, olo) : 1; ok && oh <= ohi; oh++) {
                pa_boxcnt_row(p, &k, oh);
                const float *g = gb + oh * t[3];
                for (int64_t o = 0; o < OW; o += 8)
                    _mm256_store_ps(qr + o,
                                    fd_pool_avx2_divf(pa_ld(g, o, OW, 0.0f), _mm256_load_ps(cf + o),
                                                      _mm256_load_ps(vf + o)));
                /* the last new row of a plain 3-row dx row: its sums in the dx pass below */
                fused = plain && oh == ohi && ohi - olo == 2;
                if (!fused)
                    for (int64_t i = 0; i < rs; i += 8)
                        _mm256_store_ps(ring + (oh % kh) * rs + i, pa_hvec_p(qr + i - pv, kw));
            }
            if (ok)
                have = pa_max(have, ohi + 1);
            float *rp[PA_MAXK];
            int nr = 0;
            for (int64_t oh = olo; ok && oh <= ohi; oh++)
                rp[nr++] = ring + (oh % kh) * rs;
            if (plain && nr == 3) {
                __m256 odd = _mm256_setzero_ps();
                for (int64_t i = 0; i < W; i += 8) {
                    __m256 h;
                    if (fused) {
                        h = pa_hvec_p(qr + i - pv, kw);
                        _mm256_store_ps(rp[2] + i, h);
                    } else {
                        h = _mm256_load_ps(rp[2] + i);
                    }
                    const __m256 v = _mm256_add_ps(
                        _mm256_add_ps(_mm256_add_ps(_mm256_setzero_ps(), _mm256_load_ps(rp[0] + i)),
                                      _mm256_load_ps(rp[1] + i)),
                        h);
                    odd =
                        _mm256_or_ps(odd, _mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), v),
                                                        _mm256_set1_ps(FLT_MAX), _CMP_NLE_UQ));
                    if (i + 8 <= W)
                        _mm256_storeu_ps(dr + i, v);
                    else
                        pa_st(dr + i, v, 0, W - i);
                }
                for (int64_t i = 0; _mm256_movemask_ps(odd) && i < W; i += 8)
                    for (int b = pa_nonfin(pa_vsum(rp, 3, i), W - i); b; b &= b - 1)
                        pa_box_bexact(p, a, n, c, ih, i + __builtin_ctz((unsigned)b));
                continue;
            }
            for (int64_t i = 0; i < W; i += 8) {
                const int64_t nl = pa_min(8, W - i);
                __m256 v = pa_vsum(rp, nr, i);
                if (alpha != 1.0f)
                    v = _mm256_mul_ps(_mm256_set1_ps(alpha), v);
                if (beta != 0.0f)
                    v = _mm256_fmadd_ps(_mm256_set1_ps(beta), pa_ld(dr + i, 0, nl, 0.0f), v);
                const int bad = pa_nonfin(v, nl);
                _mm256_maskstore_ps(dr + i, pa_bits(((1 << nl) - 1) & ~bad), v);
                for (int b = bad; b; b &= b - 1)
                    pa_box_bexact(p, a, n, c, ih, i + __builtin_ctz((unsigned)b));
            }
        }
    }
}

/* ---- dispatch ---- */

typedef void (*pa_fn)(const fd_pool_problem_t *, const fd_pool_args_t *, int64_t, int64_t);

/* Planes [0, n c) of fn in groups of PA_GROUP spread over the threads (the OpenMP loop outside
 * the target functions: clang does not give an outlined body its function's target). */
static void pa_par(pa_fn fn, const fd_pool_problem_t *p, const fd_pool_args_t *a)
{
    const int64_t units = p->n * p->c, groups = (units + PA_GROUP - 1) / PA_GROUP;
    const int64_t work = units * p->in[1] * p->in[2];
#pragma omp parallel for schedule(static) if (work >= FD_CPU_PAR_MIN / 4 && groups > 1)
    for (int64_t g = 0; g < groups; g++)
        fn(p, a, g * PA_GROUP, pa_min(units, (g + 1) * PA_GROUP));
}

/* 1 for the max windows of pa_fwd_max3s2 / pa_bwd_max3s2 (3 wide at stride 2 along W, no NaN
 * propagation, the ring of kh rounded up to a power of two within PA_RINGF, border vectors
 * within PA_NB). */
static int pa_s2k3(const fd_pool_problem_t *p)
{
    int64_t nv, vlo, vhi;
    return pa_is_max(p) && !p->propagate_nan && p->win[2] == 3 && p->stride[2] == 2 &&
           pa_pow2(p->win[1]) * ((p->out[2] + 7) / 8 * 8) <= PA_RINGF &&
           pa_b3_geom(p, &nv, &vlo, &vhi);
}

/* The path for p, or NULL. */
static pa_fn pa_pick(const fd_pool_problem_t *p, int bwd)
{
    if (p->dt != CUDNN_DATA_FLOAT || p->in[0] != 1 || p->out[0] != 1 || p->win[0] != 1 ||
        p->pad[0] != 0)
        return NULL;
    const int64_t *t = bwd ? p->dys : p->ys, *u = bwd ? p->dxs : p->xs;
    if (p->xs[4] != 1 || t[4] != 1 || u[4] != 1 || p->in[2] > PA_MAXW || p->out[2] > PA_MAXW ||
        p->out[2] < 1 || p->out[1] < 1)
        return NULL;
    for (int d = 1; d < 3; d++)
        if (p->pad[d] < 0 || p->pad[d] >= p->win[d] || p->win[d] > PA_MAXK || p->stride[d] < 1 ||
            p->stride[d] > PA_MAXK)
            return NULL;
    const int64_t kh = p->win[1], kw = p->win[2], sh = p->stride[1], sw = p->stride[2];
    const int64_t OW = p->out[2], rs = (OW + 7) / 8 * 8;
    if (sw > 2 || !pa_isa_ok())
        return NULL;
    if (pa_box_ok(p, bwd))
        return bwd ? pa_box_bwd : pa_box_fwd;
    if (!bwd)
        return pa_is_max(p)                                    ? (kh * rs > PA_RINGF ? NULL
                                                                  : pa_s2k3(p)       ? pa_fwd_max3s2
                                                                                     : pa_fwd_max)
               : sw == 1 && kh * pa_fwd_avg1_ds(p) <= PA_RINGD ? pa_fwd_avg1
                                                               : pa_fwd_avg;
    if (pa_is_max(p)) {
        const int64_t R = (kh + sh - 1) / sh;
        return sw == 2 && kw <= 8 && R <= PA_R_MAX && R * (rs + 32) <= PA_CODES &&
                       kh * rs <= PA_RINGF
                   ? pa_bwd_max2
                   : NULL;
    }
    if (sw == 1)
        return kh * (PA_PADV + rs + 32) <= PA_RINGD ? pa_bwd_avg1 : NULL;
    if (kw == 2 && p->pad[2] == 0 && kh <= sh)
        return pa_bwd_avg_dup2;
    return NULL;
}

int fd_pool_avx2_nchw_run(const fd_pool_problem_t *p, const fd_pool_args_t *a, int bwd)
{
    pa_fn fn = pa_pick(p, bwd);
    /* pa_bwd_max2's 3-wide windows with alpha 1, beta 0 and a dx row in at most two output rows */
    if (fn == pa_bwd_max2 && pa_s2k3(p) && a->alpha == 1.0 && a->beta == 0.0 &&
        p->win[1] <= 2 * p->stride[1] && 4 * ((p->out[2] + 7) / 8 * 8 + 32) <= PA_CODES)
        fn = pa_bwd_max3s2;
    if (!fn)
        return 0;
    pa_par(fn, p, a);
    return 1;
}

#else

int fd_pool_avx2_nchw_run(const fd_pool_problem_t *p, const fd_pool_args_t *a, int bwd)
{
    (void)p, (void)a, (void)bwd;
    return 0;
}

#endif
