/* SPDX-License-Identifier: MIT */
/*
 * activation_cpu.c - cpu activation forward and backward (FD_OP_ACT_FWD / _BWD cpu rows).
 *
 * The elementwise engine of memop.h (any non-negative strides, NCHW and NHWC alike, threaded
 * in thread-count-independent units) with block kernels per direction. FLOAT, DOUBLE, HALF,
 * BFLOAT16; no workspace; y may be x (same strides). Outputs of FD_CPU_NT_MIN bytes or more
 * with beta = 0 are streamed (memop.h); FLOAT blocks on AVX-512 machines with whole aligned
 * 64-byte lines (fd_cpu_stream_z; 2026-11-30, seventh session: sigmoid and swish forward of
 * 25.7 MB 15-18% faster than through 16-byte stores, same bits).
 *
 * Decisions:
 * - Exact modes stay the ref's bits: RELU, CLIPPED_RELU and IDENTITY (both directions) and the
 *   SIGMOID / TANH derivatives (arithmetic on y) are vectorised restatements of
 *   src/core/activation.h in the same operation order, in double, rounded once. FLOAT with
 *   unit strides runs them in one pass from the tensors (no double blocks in memory). On a CPU
 *   with AVX2 (and, since 2026-12-06, with AVX-512: act_map8), FLOAT RELU / CLIPPED_RELU /
 *   IDENTITY with alpha 1, beta 0 are float maps from registers to the output (act_fwd8 /
 *   act_bwd8: every result is an input element, 0, NaN or a float coef, so no arithmetic
 *   rounds; 2026-12-04, n8c64h112w112, two threads, dnnbench median: RELU forward 2.05 ->
 *   0.85 ms, backward 1.9-3.0 -> 1.71 ms).
 * - Transcendental modes (the lead's product decision, 2026-11-30: no bit identity with ref for
 *   FLOAT): SIGMOID, TANH, ELU, SWISH forward and ELU, SWISH backward use vmath.h's float
 *   polynomials (fd_vsigmoidf, fd_vtanhf, fd_vexpm1f, fd_vswish1f for beta = 1, fd_vexpf_mneg,
 *   fd_vsigmoidf_m; 2026-11-30 sixth session: one product per exp and fewer FMAs, sigmoid
 *   1.4x, swish 1.5x, tanh / ELU 1.15x per element computed, vmath.h; FMAs
 *   explicit, nothing else contracted, so AVX-512 and AVX2+FMA give the same bits), x and dy
 *   read as floats, one pass, FLOAT alpha = 1 / beta = 0 written from float registers (else a
 *   double block blended in the ref's order). Bound for FLOAT against the ref (the ref's
 *   result is libm's double value rounded once), asserted by tests/impl/test_cpu_eltwise_fast.c
 *   over every float of [-100, 100] at step 1e-3 plus edges and log-uniform magnitudes: 4 ulp
 *   (measured 3 for TANH and general-beta SWISH, 2 for SIGMOID, ELU, ELU backward, beta-1
 *   SWISH); SWISH backward within
 *   8 * 2^-24 |dy| (s + |beta x s (1 - s)|), s = sigmoid(beta x) (measured 4; its root at
 *   beta x ~ -1.28 admits no relative bound). Beta = 1 backward (2026-12-01) takes
 *   tr_swish1_bwd for x >= -80: one exp, one division, s and 1 - s unscaled, dy (s u) (about
 *   half the operations of the scaled general form; measured 3.51 of the 8; n8c64h112w112,
 *   one thread, dnnbench median against main back to back: NCHW 3.07-3.16 -> 2.28-2.44 ms,
 *   NHWC 3.08-3.24 -> 2.33-2.42 ms, 0.57 -> 0.73-0.78 of 43.2 GB/s). HALF and BFLOAT16 keep the
 * ref's bits: the float result is within 2^-21 relative of the exact one, so where both ends of
 * +-2^-19 |v| blend and round to the same 16 bits the lane is final, and the others (about 2^-9 of
 * HALF lanes, zeros, infinities, NaN) are recomputed with the scalar definitions. SWISH backward of
 *   non-FLOAT data is declined (ref runs it): its NaN gradients' signs follow the operand order
 *   of the products, the compiler's choice, and an ASan build differed. Edge values as the ref:
 *   sigmoid(-inf) = 0, tanh(+-inf) = +-1, tanh(-0) = -0, ELU(-inf) = -coef, SWISH is +0 where
 *   beta x < -709.78 (the ref's s == 0 branch), x itself for a NaN x, and -0 / tiny
 *   subnormals for large negatives below that as the ref rounds them; exp overflow gives inf;
 *   NaN propagates (its sign and payload are not kept).
 * - ISA: the transcendental kernels are compiled for AVX-512 and AVX2+FMA and picked at run
 *   time (FREEDNN_CPU_ISA caps it); without either (fmaf would be a libm call per step) they
 *   fall back to the exact path: memop.h's vectorised double exp with a per-lane interval
 *   check, lanes it cannot vouch for recomputed by the scalar definitions (the ref's bits).
 *   DOUBLE always takes the scalar definitions. Results never depend on the thread count.
 *   On AVX2 without AVX-512 the forward SIGMOID, TANH, ELU (float coef) and SWISH (beta 1)
 *   and the backward ELU (float coef) and SWISH (beta 1) into a float block run as tr_y_
 *   kernels (2026-12-05): the same operations per element in intrinsics, four vectors in
 *   lockstep (same bits; FREEDNN_CPU_ACT_AVX2_C=1 runs the C).
 * - SWISH forward of a NaN x returns x itself, as the ref (fd_act_fwd_value).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3,fp-contract=off,no-trapping-math") /* value-neutral: selects vectorise */
#endif
#include "../core/activation.h"
#include "memop.h"
#include "vmath.h"

/* ---- transcendental modes in float (FLOAT, HALF, BFLOAT16 on AVX-512 / AVX2+FMA) ---------- */

typedef struct {
    cudnnActivationMode_t mode;
    int bwd;
    double coef, sbeta;
    float cf;     /* coef as a float (ELU in float when that is exact) */
    float bh, bl; /* the swish beta as a float pair: beta x = bh x + bl x to ~2^-48 */
    int y4;       /* AVX2 forward as tr_y4 (FREEDNN_CPU_ACT_AVX2_C=1: the C below) */
} tr_t;

/* v[i] = the mode at x[i] (backward: times dy[i]), in double, before the blend; or, with r not
 * NULL, r[i] = that value rounded to float (v unused). */
typedef void (*tr_fn)(const tr_t *t, int n, const float *x, const float *dy, double *v, float *r);

#define TR_INLINE static inline __attribute__((always_inline))

/* coef (e^x - 1) for x <= 0; e^x - 1 is relatively accurate, so the product is too. */
TR_INLINE double tr_elu(double coef, float x)
{
    float em = fd_vexpm1f(x);
    return x > 0.0f ? (double)x : coef * (double)em;
}

/* beta x as bh x + l, l = the float product's rounding error plus bl x. */
TR_INLINE float tr_bx(const tr_t *t, float x, float *l)
{
    float h = t->bh * x;
    *l = fmaf(t->bh, x, -h) + t->bl * x;
    return h;
}

/* x sigmoid(beta x) = (x q) 2^j: x q is normal, so the subnormal results of large negative
 * inputs are rounded once more at most. The ref returns +0 where its double sigmoid underflows
 * to 0 (beta x < -709.78) and x itself for a NaN x. */
TR_INLINE float tr_swish_hl(float x, float h, float l)
{
    float s2, qc, cs2, q = fd_vsigmoidf_m(h, l, &s2, &qc, &cs2);
    float r = x * q * s2; /* a second rounding only where the result is subnormal */
    r = h < -160.0f ? x * 0.0f : r; /* below the exp's clamp: |x| e^(beta x) rounds to 0 */
    r = h < -709.78f ? 0.0f : r;
    return x != x ? x : r;
}

TR_INLINE float tr_swish(const tr_t *t, float x)
{
    float l, h = tr_bx(t, x, &l);
    return tr_swish_hl(x, h, l);
}

/* dy coef e^x for x <= 0 (dy for x > 0), e^x = m 2^j (fd_vexpf_mneg): (dy (coef m)) 2^j in
 * float when coef is a float (roundings: the exp's, two products, the output's), else in
 * double. Below -170 e^x is taken as e^-170, which is wrong where |dy coef| > 1e29 (and an
 * infinite dy gives inf where the ref's exp(x) is 0, x < -745.13, and so NaN): the callers
 * recompute x < -170 by the ref's double expression (tr_elu_bwd_low). */
TR_INLINE float tr_elu_bwd_f(float cf, float x, float dy)
{
    float s2, m = fd_vexpf_mneg(x, 0.0f, &s2); /* x > 0: a value selected away below */
    return x > 0.0f ? dy : dy * (cf * m) * s2;
}

TR_INLINE double tr_elu_bwd(double coef, float x, float dy)
{
    float s2, m = fd_vexpf_mneg(x, 0.0f, &s2);
    return x > 0.0f ? (double)dy : (double)dy * coef * ((double)m * (double)s2);
}

/* ELU backward for x < -170: the ref's dy coef exp(x) in double (x <= 0). */
static inline double tr_elu_bwd_low(double coef, float x, float dy)
{
    return (double)dy * coef * exp((double)x);
}

/* dy s (1 + beta x (1 - s)) (the ref's dy (s + beta x s (1 - s)) factored): s and 1 - s each
 * relatively accurate (fd_vsigmoidf_m), t = 1 + beta x (1 - s) with one rounding of the pair
 * product, then (dy q t) 2^j. Near the derivative's root (beta x ~ -1.28) t cancels: the error
 * is then absolute, a few 2^-24 |dy| (s + |beta x s (1 - s)|). An infinite x gives dy s (the
 * ref's limit); where the ref's double sigmoid underflows (beta x < -709.78), s = 0. */
TR_INLINE float tr_swish_bwd_hl(float dy, float h, float l)
{
    float s2, qc, cs2, q = fd_vsigmoidf_m(h, l, &s2, &qc, &cs2);
    float c = qc * cs2;
    float u = fmaf(h, c, 1.0f) + l * c;
    u = fabsf(h) == INFINITY ? 1.0f : u; /* x infinite, or beta x beyond float: c = 0 or s = 0 */
    float r = dy * q * u * s2;
    return h < -709.78f ? dy * 0.0f : r;
}

/* SWISH backward for beta = 1 and -80 <= x (NaN and x < -80: tr_swish_bwd_hl, see TR_BODY),
 * in fewer operations: e = e^-|x| 2^64 (fd_vexpf_neg64z, |x| clamped at 80: beyond it
 * 1 - s < 2^-115 and x (1 - s) rounds away), one division 1 / (2^64 + e), s and 1 - s as
 * 2^64 / (2^64 + e) and e / (2^64 + e) (which is which by the sign of x: each relatively
 * accurate, no cancellation), u = 1 + x (1 - s) in one fma, and dy (s u): s u is a normal
 * float (s >= e^-80), so only the last product can round into the subnormal range. No scaled
 * pairs, no infinity test (x = +inf: its clamp gives u = 1, s = 1: dy, the ref's limit). */
TR_INLINE float tr_swish1_bwd(float x, float dy)
{
    const int pos = x >= 0.0f;
    const float ax = fabsf(x) < 80.0f ? fabsf(x) : 80.0f;
    const float e = fd_vexpf_neg64z(-ax);
    const float inv = 1.0f / (0x1p64f + e);
    const float q1 = inv * 0x1p64f, qe = e * inv; /* the first exact */
    const float sg = pos ? q1 : qe, c = pos ? qe : q1;
    const float u = fmaf(pos ? ax : x, c, 1.0f);
    return dy * (sg * u);
}

TR_INLINE float tr_swish_bwd(const tr_t *t, float x, float dy)
{
    float l, h = tr_bx(t, x, &l);
    return tr_swish_bwd_hl(dy, h, l);
}

/* OUT[i] = (T)(the mode's value at x[i] (backward: times dy[i])), for OUT a double block (any
 * blend follows) or the float output itself (FLOAT, alpha = 1, beta = 0: no double pass). */
#define TR_BODY(T, OUT)                                                                          \
    do {                                                                                         \
        const double coef = t->coef;                                                             \
        if (t->bwd && t->mode == CUDNN_ACTIVATION_ELU) {                                         \
            const float cf = t->cf;                                                              \
            int low = 0;                                                                         \
            if (cf == coef)                                                                      \
                for (int i = 0; i < n; i++)                                                      \
                    OUT[i] = (T)tr_elu_bwd_f(cf, x[i], dy[i]);                                   \
            else                                                                                 \
                for (int i = 0; i < n; i++)                                                      \
                    OUT[i] = (T)tr_elu_bwd(coef, x[i], dy[i]);                                   \
            for (int i = 0; i < n; i++)                                                          \
                low |= x[i] < -170.0f;                                                           \
            for (int i = 0; low && i < n; i++) /* below -170: the ref's expression */            \
                if (x[i] < -170.0f)                                                              \
                    OUT[i] = (T)tr_elu_bwd_low(coef, x[i], dy[i]);                               \
        } else if (t->bwd && t->sbeta == 0.0) { /* s = 1/2: dy (1/2 + 0 x / 4) */                \
            for (int i = 0; i < n; i++) {                                                        \
                double g = fabsf(x[i]) == INFINITY ? 0.5 : 0.5 + 0.0 * (double)x[i];             \
                OUT[i] = (T)((double)dy[i] * g);                                                 \
            }                                                                                    \
        } else if (t->bwd && t->sbeta == 1.0) { /* the default: beta x = x exactly */            \
            int slow = 0;                                                                        \
            for (int i = 0; i < n; i++) {                                                        \
                OUT[i] = (T)tr_swish1_bwd(x[i], dy[i]);                                          \
                slow |= !(x[i] >= -80.0f);                                                       \
            }                                                                                    \
            for (int i = 0; slow && i < n; i++) /* NaN, x < -80: the scaled general form */       \
                if (!(x[i] >= -80.0f))                                                           \
                    OUT[i] = (T)tr_swish_bwd_hl(dy[i], x[i], 0.0f);                              \
        } else if (t->bwd) {                                                                     \
            for (int i = 0; i < n; i++)                                                          \
                OUT[i] = (T)tr_swish_bwd(t, x[i], dy[i]);                                        \
        } else if (t->mode == CUDNN_ACTIVATION_SIGMOID) {                                        \
            for (int i = 0; i < n; i++)                                                          \
                OUT[i] = (T)fd_vsigmoidf(x[i]);                                                  \
        } else if (t->mode == CUDNN_ACTIVATION_TANH) {                                           \
            for (int i = 0; i < n; i++)                                                          \
                OUT[i] = (T)fd_vtanhf(x[i]);                                                     \
        } else if (t->mode == CUDNN_ACTIVATION_ELU && t->cf == coef) { /* coef is a float */    \
            const float cf = t->cf;                                                              \
            for (int i = 0; i < n; i++) {                                                        \
                float em = fd_vexpm1f(x[i]);                                                     \
                OUT[i] = (T)(x[i] > 0.0f ? x[i] : cf * em);                                      \
            }                                                                                    \
        } else if (t->mode == CUDNN_ACTIVATION_ELU) {                                            \
            for (int i = 0; i < n; i++)                                                          \
                OUT[i] = (T)tr_elu(coef, x[i]);                                                  \
        } else if (t->sbeta == 0.0) { /* sigmoid(0) = 1/2 exactly (not 0 * inf) */              \
            for (int i = 0; i < n; i++)                                                          \
                OUT[i] = (T)((double)x[i] * 0.5);                                                \
        } else if (t->sbeta == 1.0) {                                                            \
            for (int i = 0; i < n; i++)                                                          \
                OUT[i] = (T)fd_vswish1f(x[i]);                                                   \
        } else {                                                                                 \
            for (int i = 0; i < n; i++)                                                          \
                OUT[i] = (T)tr_swish(t, x[i]);                                                   \
        }                                                                                        \
    } while (0)

TR_INLINE void tr_block(const tr_t *t, int n, const float *restrict x, const float *restrict dy,
                        double *restrict v, float *restrict r)
{
    if (r)
        TR_BODY(float, r);
    else
        TR_BODY(double, v);
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,prefer-vector-width=512"))) static void
tr_block_avx512(const tr_t *t, int n, const float *x, const float *dy, double *v, float *r)
{
    tr_block(t, n, x, dy, v, r);
}
/* ---- AVX2 in lockstep (2026-12-05, Zen 3) -----------------------------------------------
 * SIGMOID, TANH, ELU (a float coef) and SWISH (beta 1) forward, ELU (a float coef) and SWISH
 * (beta 1) backward to a float block: vmath.h's functions (fd_vsigmoidf, fd_vtanhf,
 * fd_vexpm1f, fd_vswish1f) and tr_elu_bwd_f / tr_swish1_bwd step for step in intrinsics,
 * the same operations in the same order per element (an fmaf is one FMA instruction in the
 * C's AVX2 clone too), so the same bits; tests/impl/test_cpu_eltwise_fast.c compares them
 * with the C (FREEDNN_CPU_ACT_AVX2_C=1). What differs is the schedule: TR_YU vectors advance
 * stage by stage (each line below is one operation on each of them), so every stage offers
 * TR_YU independent operations. The C's vector loop issues one vector's ~20 dependent
 * operations (60 cycles of latency) after another, and Zen 3's floating-point scheduler held
 * too few of them to fill its pipes. n1c64h32w32 in L2, one thread, dnnbench median (ms):
 * forward sigmoid 0.038-0.050 -> 0.030-0.031, tanh 0.038 -> 0.034, ELU 0.040 -> 0.029, swish
 * 0.050 -> 0.043; backward ELU 0.045 -> 0.041, swish 0.062 -> 0.052 (GCC did not interleave
 * an unrolled loop of whole-vector calls: sigmoid 0.65 ns an element as the C, 0.53 here).
 * With alpha 1, beta 0, y sharing no byte with x or dy and no streaming (tr_finish) they store
 * straight into y instead of into a block copied out after (2026-12-05, n1c64h56w56 in cache,
 * one thread, min of 100 against the block: swish forward 1.04-1.09x, sigmoid 1.03-1.05x, ELU
 * 1.04-1.08x, ELU backward 1.01-1.06x). Streamed outputs keep the block and its whole-line copy:
 * streaming each vector as it was computed measured slower at two threads from DRAM (swish
 * n8c64h112w112: min 2.3-3.3 ms against 2.4; likely lines left half written between one
 * vector's stores and the next). */
#define TR_YU 4
#define TR_Y __attribute__((target("avx2,fma"), always_inline)) static inline
#define TR_EACH(...)                                                                               \
    _Pragma("GCC unroll 4") for (int u = 0; u < TR_YU; u++)                                        \
    {                                                                                              \
        __VA_ARGS__;                                                                               \
    }

/* The reduction of the exps: t = xc log2(e) + shift (its low bits k + the shift's), r = xc -
 * k ln2 in two steps (fd_vexpf_shift64 / fd_vexpm1f_core). */
TR_Y void tr_y_red(const __m256 *xc, __m256 shift, __m256 *t, __m256 *r)
{
    __m256 k[TR_YU];
    TR_EACH(t[u] = _mm256_fmadd_ps(xc[u], _mm256_set1_ps(0x1.715476p0f), shift));
    TR_EACH(k[u] = _mm256_sub_ps(t[u], shift));
    TR_EACH(r[u] = _mm256_fnmadd_ps(k[u], _mm256_set1_ps(0x1.62e400p-1f), xc[u]));
    TR_EACH(r[u] = _mm256_fnmadd_ps(k[u], _mm256_set1_ps(0x1.7f7d1cp-20f), r[u]));
}

/* p = c[0] r^(n-1) + ... by Horner (fd_vexpf_poly: n = 7; fd_vexpm1f_poly: n = 6). */
TR_Y void tr_y_horner(const __m256 *r, const float *c, int n, __m256 *p)
{
    TR_EACH(p[u] = _mm256_set1_ps(c[0]));
    for (int q = 1; q < n; q++)
        TR_EACH(p[u] = _mm256_fmadd_ps(p[u], r[u], _mm256_set1_ps(c[q])));
}

/* 2^(t's low nine bits - 127): the power of two of the reduction. */
TR_Y __m256 tr_y_pow2(__m256 t)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(t), 23));
}

/* fd_vexpf_poly's coefficients, highest degree first. */
static const float tr_y_expc[7] = {
    0x1.6a244ap-10f, 0x1.1239d4p-7f, 0x1.5558f2p-5f, 0x1.555492p-3f, 0x1.fffffcp-2f, 1.0f, 1.0f};

/* fd_vexpf_neg64z of xc (<= 0 or NaN). */
TR_Y void tr_y_exp64(const __m256 *xc, __m256 *e)
{
    __m256 t[TR_YU], r[TR_YU], p[TR_YU];
    tr_y_red(xc, _mm256_set1_ps(0x1.8p23f + 191.0f), t, r);
    tr_y_horner(r, tr_y_expc, 7, p);
    TR_EACH(e[u] = _mm256_mul_ps(p[u], tr_y_pow2(t[u])));
}

/* fd_vexpm1f_core of xc (clamped by the caller). */
TR_Y void tr_y_expm1(const __m256 *xc, __m256 *em)
{
    static const float c[6] = {0x1.6bec06p-10f, 0x1.122768p-7f, 0x1.555674p-5f,
                               0x1.5554b0p-3f,  0x1.fffffep-2f, 1.0f};
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 t[TR_YU], r[TR_YU], p[TR_YU], sc[TR_YU];
    tr_y_red(xc, _mm256_set1_ps(0x1.8p23f + 127.0f), t, r);
    tr_y_horner(r, c, 6, p);
    TR_EACH(p[u] = _mm256_mul_ps(p[u], r[u]));
    TR_EACH(sc[u] = tr_y_pow2(t[u]));
    /* fmaf(sc, q, -(1 - sc)): one rounding of sc q - (1 - sc) */
    TR_EACH(em[u] = _mm256_fmsub_ps(sc[u], p[u], _mm256_sub_ps(one, sc[u])));
}

/* -|x| clamped below at lo (fd_vmaxkf(lo, -fabsf(x)); NaN passes). */
TR_Y __m256 tr_y_negabs(__m256 x, float lo)
{
    return _mm256_max_ps(_mm256_set1_ps(lo), _mm256_or_ps(x, _mm256_set1_ps(-0.0f)));
}

/* TR_YU vectors of x at x to out (8 TR_YU elements). */
TR_Y void tr_y_sigmoid(const float *x, float *out)
{
    const __m256 two64 = _mm256_set1_ps(0x1p64f);
    __m256 xv[TR_YU], a[TR_YU], e[TR_YU];
    TR_EACH(xv[u] = _mm256_loadu_ps(x + 8 * u));
    TR_EACH(a[u] = tr_y_negabs(xv[u], -104.0f));
    tr_y_exp64(a, e);
    TR_EACH(a[u] = _mm256_blendv_ps(e[u], two64,
                                    _mm256_cmp_ps(xv[u], _mm256_setzero_ps(), _CMP_GE_OQ)));
    TR_EACH(_mm256_storeu_ps(out + 8 * u, _mm256_div_ps(a[u], _mm256_add_ps(two64, e[u]))));
}

TR_Y void tr_y_tanh(const float *x, float *out)
{
    __m256 xv[TR_YU], a[TR_YU], em[TR_YU];
    TR_EACH(xv[u] = _mm256_loadu_ps(x + 8 * u));
    TR_EACH(a[u] = _mm256_add_ps(xv[u], xv[u]));
    TR_EACH(a[u] = _mm256_blendv_ps(a[u], _mm256_set1_ps(19.0f),
                                    _mm256_cmp_ps(xv[u], _mm256_set1_ps(9.5f), _CMP_GT_OQ)));
    TR_EACH(a[u] = _mm256_blendv_ps(a[u], _mm256_set1_ps(-19.0f),
                                    _mm256_cmp_ps(xv[u], _mm256_set1_ps(-9.5f), _CMP_LT_OQ)));
    tr_y_expm1(a, em);
    TR_EACH(_mm256_storeu_ps(out + 8 * u,
                             _mm256_div_ps(em[u], _mm256_add_ps(em[u], _mm256_set1_ps(2.0f)))));
}

TR_Y void tr_y_elu(const float *x, float *out, float cf)
{
    __m256 xv[TR_YU], a[TR_YU], em[TR_YU];
    TR_EACH(xv[u] = _mm256_loadu_ps(x + 8 * u));
    /* x < -30 ? -30 : x, then > 88 ? 88 (max / min keep a NaN x: fd_vexpm1f) */
    TR_EACH(a[u] =
                _mm256_min_ps(_mm256_set1_ps(88.0f), _mm256_max_ps(_mm256_set1_ps(-30.0f), xv[u])));
    tr_y_expm1(a, em);
    TR_EACH(_mm256_storeu_ps(
        out + 8 * u, _mm256_blendv_ps(_mm256_mul_ps(_mm256_set1_ps(cf), em[u]), xv[u],
                                      _mm256_cmp_ps(xv[u], _mm256_setzero_ps(), _CMP_GT_OQ))));
}

/* The branches are picked by x's sign bit (blendv reads only that), not by x >= 0: the two
 * differ at -0, where both give -0 ((-0 e) / d = -0 / (d 2^-64)), and at NaN, which the last
 * blend replaces by x; no mask registers (four fewer live vectors: the C's bits, fewer spills). */
TR_Y void tr_y_swish(const float *x, float *out)
{
    const __m256 two64 = _mm256_set1_ps(0x1p64f);
    __m256 xv[TR_YU], a[TR_YU], e[TR_YU];
    TR_EACH(xv[u] = _mm256_loadu_ps(x + 8 * u));
    TR_EACH(a[u] = tr_y_negabs(xv[u], -128.0f));
    tr_y_exp64(a, e);
    TR_EACH(a[u] = _mm256_add_ps(two64, e[u])); /* d */
    TR_EACH(a[u] = _mm256_blendv_ps(_mm256_mul_ps(a[u], _mm256_set1_ps(0x1p-64f)), a[u], xv[u]));
    TR_EACH(e[u] = _mm256_mul_ps(xv[u], _mm256_blendv_ps(_mm256_set1_ps(1.0f), e[u], xv[u])));
    TR_EACH(e[u] = _mm256_div_ps(e[u], a[u]));
    TR_EACH(e[u] =
                _mm256_andnot_ps(_mm256_cmp_ps(xv[u], _mm256_set1_ps(-709.78f), _CMP_LT_OQ), e[u]));
    TR_EACH(_mm256_storeu_ps(
        out + 8 * u, _mm256_blendv_ps(e[u], xv[u], _mm256_cmp_ps(xv[u], xv[u], _CMP_UNORD_Q))));
}

/* tr_elu_bwd_f: dy for x > 0, else (dy (cf m)) 2^j with e^x = m 2^j (fd_vexpf_mneg's split
 * of 2^k into two factors, the reduction's r + 0.0f included: it maps -0 to +0). Returns
 * nonzero when some x is below -170 (the caller's to redo, as tr_elu_bwd_f's). */
TR_Y int tr_y_elu_bwd(const float *x, const float *dy, float *out, float cf)
{
    const __m256i bias = _mm256_set1_epi32(127);
    __m256 xv[TR_YU], a[TR_YU], t[TR_YU], r[TR_YU], p[TR_YU], low = _mm256_setzero_ps();
    __m256i k1[TR_YU], k2[TR_YU];
    TR_EACH(xv[u] = _mm256_loadu_ps(x + 8 * u));
    TR_EACH(low = _mm256_or_ps(low, _mm256_cmp_ps(xv[u], _mm256_set1_ps(-170.0f), _CMP_LT_OQ)));
    TR_EACH(a[u] = _mm256_max_ps(_mm256_set1_ps(-170.0f), xv[u])); /* x < -170 ? -170 : x */
    tr_y_red(a, _mm256_set1_ps(0x1.8p23f), t, r);
    TR_EACH(r[u] = _mm256_add_ps(r[u], _mm256_setzero_ps()));
    tr_y_horner(r, tr_y_expc, 7, p);
    TR_EACH(k1[u] = _mm256_sub_epi32(_mm256_castps_si256(t[u]), _mm256_set1_epi32(0x4B400000)));
    TR_EACH(k2[u] = _mm256_sub_epi32(k1[u], _mm256_srai_epi32(k1[u], 1)));
    TR_EACH(k1[u] = _mm256_srai_epi32(k1[u], 1));
    TR_EACH(p[u] = _mm256_mul_ps(
                p[u], _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k1[u], bias), 23))));
    TR_EACH(a[u] = _mm256_loadu_ps(dy + 8 * u));
    TR_EACH(p[u] = _mm256_mul_ps(a[u], _mm256_mul_ps(_mm256_set1_ps(cf), p[u])));
    TR_EACH(p[u] = _mm256_mul_ps(
                p[u], _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k2[u], bias), 23))));
    TR_EACH(_mm256_storeu_ps(
        out + 8 * u,
        _mm256_blendv_ps(p[u], a[u], _mm256_cmp_ps(xv[u], _mm256_setzero_ps(), _CMP_GT_OQ))));
    return _mm256_movemask_ps(low);
}

/* tr_swish1_bwd (its lanes below -80 and NaN are the caller's to redo). */
TR_Y void tr_y_swish1_bwd(const float *x, const float *dy, float *out)
{
    const __m256 two64 = _mm256_set1_ps(0x1p64f), sign = _mm256_set1_ps(-0.0f);
    __m256 xv[TR_YU], ax[TR_YU], e[TR_YU], inv[TR_YU], pos[TR_YU], q1[TR_YU];
    TR_EACH(xv[u] = _mm256_loadu_ps(x + 8 * u));
    TR_EACH(pos[u] = _mm256_cmp_ps(xv[u], _mm256_setzero_ps(), _CMP_GE_OQ));
    /* |x| < 80 ? |x| : 80 */
    TR_EACH(ax[u] = _mm256_min_ps(_mm256_andnot_ps(sign, xv[u]), _mm256_set1_ps(80.0f)));
    TR_EACH(e[u] = _mm256_xor_ps(ax[u], sign));
    tr_y_exp64(e, e);
    TR_EACH(inv[u] = _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_add_ps(two64, e[u])));
    TR_EACH(q1[u] = _mm256_mul_ps(inv[u], two64));
    TR_EACH(e[u] = _mm256_mul_ps(e[u], inv[u]));             /* qe */
    TR_EACH(inv[u] = _mm256_blendv_ps(e[u], q1[u], pos[u])); /* sg */
    TR_EACH(q1[u] = _mm256_blendv_ps(q1[u], e[u], pos[u]));  /* c */
    TR_EACH(e[u] = _mm256_fmadd_ps(_mm256_blendv_ps(xv[u], ax[u], pos[u]), q1[u],
                                   _mm256_set1_ps(1.0f)));
    TR_EACH(_mm256_storeu_ps(
        out + 8 * u, _mm256_mul_ps(_mm256_loadu_ps(dy + 8 * u), _mm256_mul_ps(inv[u], e[u]))));
}

/* 1 when t's mode and direction have a tr_y_ kernel. */
static int tr_y4_mode(const tr_t *t)
{
    if (t->bwd)
        return (t->mode == CUDNN_ACTIVATION_ELU && t->cf == t->coef) ||
               (t->mode == CUDNN_ACTIVATION_SWISH && t->sbeta == 1.0);
    return t->mode == CUDNN_ACTIVATION_SIGMOID || t->mode == CUDNN_ACTIVATION_TANH ||
           (t->mode == CUDNN_ACTIVATION_ELU && t->cf == t->coef) ||
           (t->mode == CUDNN_ACTIVATION_SWISH && t->sbeta == 1.0);
}

/* r[0 .. n) by the tr_y_ kernel, 8 TR_YU elements at a time; the rest by the C (its bits). */
__attribute__((target("avx2,fma"))) static int tr_y4(const tr_t *t, int n, const float *x,
                                                     const float *dy, float *r)
{
    const int m = n / (8 * TR_YU) * (8 * TR_YU);
    if (t->bwd && t->mode == CUDNN_ACTIVATION_ELU) { /* below -170 by the ref's expression */
        int low = 0;
        for (int i = 0; i < m; i += 8 * TR_YU)
            low |= tr_y_elu_bwd(x + i, dy + i, r + i, t->cf);
        for (int i = 0; low && i < m; i++)
            if (x[i] < -170.0f)
                r[i] = (float)tr_elu_bwd_low(t->coef, x[i], dy[i]);
        return m;
    }
    if (t->bwd) { /* SWISH, beta 1: NaN and x < -80 by the scaled general form, as TR_BODY */
        int slow = 0;
        for (int i = 0; i < m; i += 8 * TR_YU) {
            tr_y_swish1_bwd(x + i, dy + i, r + i);
            for (int j = 0; j < 8 * TR_YU; j++)
                slow |= !(x[i + j] >= -80.0f);
        }
        for (int i = 0; slow && i < m; i++)
            if (!(x[i] >= -80.0f))
                r[i] = tr_swish_bwd_hl(dy[i], x[i], 0.0f);
        return m;
    }
    for (int i = 0; i < m; i += 8 * TR_YU)
        switch (t->mode) {
        case CUDNN_ACTIVATION_SIGMOID:
            tr_y_sigmoid(x + i, r + i);
            break;
        case CUDNN_ACTIVATION_TANH:
            tr_y_tanh(x + i, r + i);
            break;
        case CUDNN_ACTIVATION_ELU:
            tr_y_elu(x + i, r + i, t->cf);
            break;
        default: /* SWISH, beta 1 */
            tr_y_swish(x + i, r + i);
            break;
        }
    return m;
}

__attribute__((target("avx2,fma"))) static void tr_block_avx2(const tr_t *t, int n, const float *x,
                                                              const float *dy, double *v, float *r)
{
    int m = 0;
    if (r && t->y4)
        m = tr_y4(t, n, x, dy, r);
    if (m < n)
        tr_block(t, n - m, x + m, dy ? dy + m : NULL, v ? v + m : NULL, r ? r + m : NULL);
}
#define TR_X86 1
#endif

/* The float kernel for this call, or NULL (DOUBLE, exact modes, no AVX2+FMA: the double path). */
static tr_fn tr_pick(const fd_act_params_t *a, int bwd, cudnnDataType_t dt, tr_t *t)
{
    const cudnnActivationMode_t m = a->mode;
    int want = bwd ? m == CUDNN_ACTIVATION_ELU || m == CUDNN_ACTIVATION_SWISH
                   : m == CUDNN_ACTIVATION_SIGMOID || m == CUDNN_ACTIVATION_TANH ||
                         m == CUDNN_ACTIVATION_ELU || m == CUDNN_ACTIVATION_SWISH;
    /* SWISH backward has a root (beta x ~ -1.28) near which no relative bound holds, so the
     * 16-bit types cannot be bracketed: they keep the scalar definitions */
    if (!want || dt == CUDNN_DATA_DOUBLE ||
        (bwd && m == CUDNN_ACTIVATION_SWISH && dt != CUDNN_DATA_FLOAT))
        return NULL;
    t->mode = m, t->bwd = bwd, t->coef = a->coef, t->sbeta = a->swish_beta;
    t->cf = (float)a->coef;
    t->bh = (float)a->swish_beta;
    t->bl = (float)(a->swish_beta - (double)t->bh);
#ifdef TR_X86
    int isa = fd_vmath_isa();
    t->y4 = isa == FD_VMATH_AVX2 && tr_y4_mode(t) && getenv("FREEDNN_CPU_ACT_AVX2_C") == NULL;
    return isa == FD_VMATH_AVX512 ? tr_block_avx512 : isa == FD_VMATH_AVX2 ? tr_block_avx2 : NULL;
#else
    return NULL;
#endif
}

/* The block as floats: FLOAT with unit stride in place, else converted through scratch. */
static const float *tr_floats(cudnnDataType_t dt, const char *p, int64_t inc, int n, float *buf,
                              double *scratch)
{
    if (dt == CUDNN_DATA_FLOAT && inc == 1)
        return (const float *)(const void *)p;
    fd_cpu_load(dt, p, inc, n, scratch);
    for (int i = 0; i < n; i++)
        buf[i] = (float)scratch[i]; /* exact: FLOAT, HALF and BFLOAT16 values are floats */
    return buf;
}

typedef struct {
    const fd_act_params_t *act;
    cudnnDataType_t dt;
    double alpha, beta;
    int nt;   /* streaming stores (fd_cpu_nt_want) */
    tr_fn tr; /* the float transcendental kernel, or NULL */
    tr_t trp;
    int z;  /* streamed FLOAT blocks go out in 64-byte stores (act_stream_z) */
    int m8; /* FLOAT exact modes as AVX2 float maps (act_map8) */
} act_ctx_t;

/* 1 where streamed FLOAT blocks go out through fd_cpu_stream_z (AVX-512 machines; measured
 * 2026-11-30 on the loaded helper machine, sigmoid / swish forward of 25.7 MB, min of 30: 15-18%
 * faster than the 16-byte stores). */
static int act_stream_z(void)
{
#ifdef FD_CPU_HAVE_STREAM_Z
    return fd_vmath_isa() == FD_VMATH_AVX512;
#else
    return 0;
#endif
}

/* out = r (len floats): streamed (c->nt) or copied. */
static void act_put_f32(const act_ctx_t *c, char *out, const float *r, int len)
{
#ifdef FD_CPU_HAVE_STREAM_Z
    if (c->z) {
        fd_cpu_stream_z(out, r, sizeof(float) * (size_t)len);
        return;
    }
#endif
    if (c->nt)
        fd_cpu_stream(out, r, sizeof(float) * (size_t)len);
    else
        memcpy(out, r, sizeof(float) * (size_t)len);
}

/* Forward SIGMOID, TANH, ELU, SWISH and backward ELU with memop.h's exp: within 2^-46
 * relative of the exact value (measured, tests/impl/test_cpu_eltwise_fast.c), or NaN where the
 * lane must take the scalar path (NaN or infinite x, arguments outside the range where the
 * approximation is claimed: |x| > 64 through a reciprocal, x < -700 through expm1). */
FD_CPU_CLONES static void approx_block(const fd_act_params_t *a, int bwd, int n,
                                       const double *restrict x, const double *restrict dy,
                                       double *restrict v)
{
    const double coef = a->coef, sb = a->swish_beta;
    if (bwd) { /* ELU: x > 0 ? dy : dy * coef * e^x */
        for (int i = 0; i < n; i++) {
            double r = dy[i] * coef * fd_cpu_exp_v(x[i]);
            v[i] = x[i] > 0.0 ? dy[i] : x[i] >= -700.0 ? r : NAN;
        }
        return;
    }
    switch (a->mode) {
    case CUDNN_ACTIVATION_SIGMOID: /* |x| <= 64 keeps 1 + e^-x within fd_cpu_recip_v's range */
        for (int i = 0; i < n; i++) {
            double r = fd_cpu_recip_v(1.0 + fd_cpu_exp_v(-x[i]));
            v[i] = fabs(x[i]) <= 64.0 ? r : NAN;
        }
        break;
    case CUDNN_ACTIVATION_TANH: /* e / (e + 2), e = expm1(2|x|): no cancellation near 0 */
        for (int i = 0; i < n; i++) {
            double ax = fabs(x[i]), em = fd_cpu_expm1_v(2.0 * ax);
            double r = ax > 20.0 ? 1.0 : em * fd_cpu_recip_v(em + 2.0); /* 1 - tanh(20) < 2^-56 */
            r = ax == ax ? r : NAN;
            v[i] = copysign(r, x[i]);
        }
        break;
    case CUDNN_ACTIVATION_ELU:
        for (int i = 0; i < n; i++) {
            double r = coef * fd_cpu_expm1_v(x[i]);
            v[i] = x[i] > 0.0 ? x[i] : x[i] >= -700.0 ? r : NAN;
        }
        break;
    default: /* SWISH: x sigmoid(beta x) */
        if (sb == 0.0) { /* sigmoid(0) = 1 / (1 + 1), exactly: not 0 * inf */
            for (int i = 0; i < n; i++)
                v[i] = x[i] * 0.5;
            break;
        }
        for (int i = 0; i < n; i++) {
            double bx = sb * x[i], sg = fd_cpu_recip_v(1.0 + fd_cpu_exp_v(-bx));
            v[i] = fabs(bx) <= 64.0 ? x[i] * sg : NAN;
        }
        break;
    }
}

/* Marks (bad[i] = 1) the lanes whose output might differ from the one an exact v would give:
 * any value within rel |v| + floor of v[i] (bracket: 2^-40 |v| + 2^-1070) blends (alpha, beta,
 * old) and rounds to the same bits when both ends of that interval do. Returns the number
 * marked. */
FD_CPU_CLONES static int bracket_eps(cudnnDataType_t dt, int n, const double *restrict v,
                                     const double *restrict old, double alpha, double beta,
                                     unsigned char *restrict bad, double rel, double floor)
{
    int count = 0;
    double lo[FD_CPU_BLK], hi[FD_CPU_BLK];
    for (int i = 0; i < n; i++) {
        double e = fabs(v[i]) * rel + floor;
        lo[i] = alpha * (v[i] - e), hi[i] = alpha * (v[i] + e);
    }
    if (beta != 0.0)
        for (int i = 0; i < n; i++)
            lo[i] += beta * old[i], hi[i] += beta * old[i];
    uint32_t bl[FD_CPU_BLK], bh[FD_CPU_BLK]; /* the output's bits at both ends */
    if (dt == CUDNN_DATA_FLOAT)
        for (int i = 0; i < n; i++)
            bl[i] = fd_cpu_bits_of_f32((float)lo[i]), bh[i] = fd_cpu_bits_of_f32((float)hi[i]);
    else if (dt == CUDNN_DATA_HALF)
        for (int i = 0; i < n; i++)
            bl[i] = fd_cpu_f16_store(lo[i]), bh[i] = fd_cpu_f16_store(hi[i]);
    else
        for (int i = 0; i < n; i++)
            bl[i] = fd_cpu_bf16_store(lo[i]), bh[i] = fd_cpu_bf16_store(hi[i]);
    for (int i = 0; i < n; i++) {
        int b = (bl[i] != bh[i]) | !(fabs(v[i]) < INFINITY);
        bad[i] = (unsigned char)b;
        count += b;
    }
    return count;
}

static int bracket(cudnnDataType_t dt, int n, const double *restrict v, const double *restrict old,
                   double alpha, double beta, unsigned char *restrict bad)
{
    return bracket_eps(dt, n, v, old, alpha, beta, bad, 0x1p-40, 0x1p-1070);
}

/* 1 when the n floats at a and at b share no byte. */
static int tr_apart(const float *a, const float *b, int n)
{
    const uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b, len = (uintptr_t)n * sizeof(float);
    return pa + len <= pb || pb + len <= pa;
}

/* The float kernel's block to the output: FLOAT with unit stride, alpha = 1 and beta = 0
 * straight from float registers (streamed when c->nt), anything else blended from doubles. */
static void tr_finish(const act_ctx_t *c, int len, char *out, int64_t inc, const float *x,
                      const float *dy, double *v)
{
    if (c->dt == CUDNN_DATA_FLOAT && inc == 1 && c->alpha == 1.0 && c->beta == 0.0) {
        float *o = (float *)(void *)out;
        if (c->trp.y4 && !c->nt && tr_apart(o, x, len) && (!dy || tr_apart(o, dy, len))) {
            c->tr(&c->trp, len, x, dy, NULL, o); /* straight to out, no block copy */
            return;
        }
        float r[FD_CPU_BLK];
        c->tr(&c->trp, len, x, dy, NULL, r); /* a buffer: out may be x (in place) */
        act_put_f32(c, out, r, len);
        return;
    }
    c->tr(&c->trp, len, x, dy, v, NULL);
    if (c->dt != CUDNN_DATA_FLOAT) {
        /* HALF, BFLOAT16: the float kernel is within 2^-21 relative (4 float ulp, measured;
         * 2^-19 allowed) of the exact value, so where both ends of that interval blend and
         * round to the same 16 bits, so does the exact value: the ref's bits, with the few
         * other lanes (and infinities, NaN) recomputed by the scalar definitions */
        double old[FD_CPU_BLK];
        unsigned char bad[FD_CPU_BLK];
        if (c->beta != 0.0)
            fd_cpu_load(c->dt, out, inc, len, old);
        if (bracket_eps(c->dt, len, v, old, c->alpha, c->beta, bad, 0x1p-19, 0x1p-140) > 0)
            for (int i = 0; i < len; i++)
                if (bad[i])
                    v[i] = dy ? fd_act_bwd_value(c->act, 0.0, dy[i], x[i])
                              : fd_act_fwd_value(c->act, x[i]);
    }
    fd_cpu_store_ex(c->dt, out, inc, len, v, c->alpha, c->beta, c->nt);
}

static int approx_mode(const fd_act_params_t *a, int bwd)
{
    if (bwd)
        return a->mode == CUDNN_ACTIVATION_ELU;
    return a->mode == CUDNN_ACTIVATION_SIGMOID || a->mode == CUDNN_ACTIVATION_TANH ||
           a->mode == CUDNN_ACTIVATION_ELU || a->mode == CUDNN_ACTIVATION_SWISH;
}

FD_CPU_CLONES static void fwd_block(const fd_act_params_t *a, int n, const double *restrict x,
                                    double *restrict v)
{
    const int prop = a->propagate_nan;
    const double coef = a->coef;
    switch (a->mode) {
    case CUDNN_ACTIVATION_RELU:
        for (int i = 0; i < n; i++) {
            double r = x[i] > 0.0 ? x[i] : 0.0;
            v[i] = prop && isnan(x[i]) ? x[i] : r;
        }
        break;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        for (int i = 0; i < n; i++) {
            double r = x[i] > 0.0 ? x[i] : 0.0;
            r = r > coef ? coef : r;
            v[i] = prop && (isnan(x[i]) || isnan(coef)) ? NAN : r;
        }
        break;
    case CUDNN_ACTIVATION_IDENTITY:
        for (int i = 0; i < n; i++)
            v[i] = x[i];
        break;
    default:
        for (int i = 0; i < n; i++)
            v[i] = fd_act_fwd_value(a, x[i]);
        break;
    }
}

FD_CPU_CLONES static void bwd_block(const fd_act_params_t *a, int n, const double *restrict y,
                                    const double *restrict dy, const double *restrict x,
                                    double *restrict v)
{
    const int prop = a->propagate_nan;
    const double coef = a->coef;
    switch (a->mode) {
    case CUDNN_ACTIVATION_SIGMOID:
        for (int i = 0; i < n; i++)
            v[i] = dy[i] * y[i] * (1.0 - y[i]);
        break;
    case CUDNN_ACTIVATION_TANH:
        for (int i = 0; i < n; i++)
            v[i] = dy[i] * (1.0 - y[i] * y[i]);
        break;
    case CUDNN_ACTIVATION_RELU:
        for (int i = 0; i < n; i++) {
            double r = x[i] > 0.0 ? dy[i] : 0.0;
            v[i] = prop && isnan(x[i]) ? x[i] : r;
        }
        break;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        for (int i = 0; i < n; i++) {
            double r = (x[i] > 0.0 && !(x[i] >= coef)) ? dy[i] : 0.0;
            v[i] = prop && (isnan(x[i]) || isnan(coef)) ? NAN : r;
        }
        break;
    case CUDNN_ACTIVATION_IDENTITY:
        for (int i = 0; i < n; i++)
            v[i] = dy[i];
        break;
    default:
        for (int i = 0; i < n; i++)
            v[i] = fd_act_bwd_value(a, y[i], dy[i], x[i]);
        break;
    }
}

/* v from the vectorised exp, with the lanes bracket() cannot vouch for recomputed by the
 * scalar definitions (FLOAT, HALF and BFLOAT16 outputs). */
static void approx_fix(const act_ctx_t *c, int bwd, int len, char *out, int64_t inc,
                       const double *x, const double *y, const double *dy, double *v)
{
    double old[FD_CPU_BLK];
    unsigned char bad[FD_CPU_BLK];
    approx_block(c->act, bwd, len, x, dy, v);
    if (c->beta != 0.0)
        fd_cpu_load(c->dt, out, inc, len, old);
    if (bracket(c->dt, len, v, old, c->alpha, c->beta, bad) == 0)
        return;
    for (int i = 0; i < len; i++)
        if (bad[i])
            v[i] = bwd ? fd_act_bwd_value(c->act, y[i], dy[i], x[i]) : fd_act_fwd_value(c->act, x[i]);
}

/* FLOAT with unit strides, RELU / CLIPPED_RELU / IDENTITY: the mode, the blend and the
 * rounding in one pass (no double blocks in memory), with fwd_block's and fd_cpu_store's
 * operations in their order, so the same bits. r may not be x or old (the caller's buffer). */
#define FWD_F32_LOOP(EXPR)                                                                     \
    do {                                                                                       \
        if (beta == 0.0)                                                                       \
            for (int i = 0; i < n; i++) {                                                      \
                const double xv = x[i];                                                        \
                (void)xv;                                                                      \
                r[i] = (float)(alpha * (EXPR));                                                \
            }                                                                                  \
        else                                                                                   \
            for (int i = 0; i < n; i++) {                                                      \
                const double xv = x[i];                                                        \
                (void)xv;                                                                      \
                r[i] = (float)(alpha * (EXPR) + beta * (double)old[i]);                        \
            }                                                                                  \
    } while (0)

FD_CPU_CLONES static void fwd_f32(const fd_act_params_t *a, int n, const float *restrict x,
                                  const float *restrict old, float *restrict r, double alpha,
                                  double beta)
{
    const double coef = a->coef;
    const int prop = a->propagate_nan, cnan = isnan(coef);
    switch (a->mode) {
    case CUDNN_ACTIVATION_RELU:
        if (prop)
            FWD_F32_LOOP(isnan(xv) ? xv : xv > 0.0 ? xv : 0.0);
        else
            FWD_F32_LOOP(xv > 0.0 ? xv : 0.0);
        break;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        if (prop && cnan)
            FWD_F32_LOOP(NAN);
        else if (prop)
            FWD_F32_LOOP(isnan(xv) ? NAN : (xv > 0.0 ? xv : 0.0) > coef ? coef : (xv > 0.0 ? xv : 0.0));
        else
            FWD_F32_LOOP((xv > 0.0 ? xv : 0.0) > coef ? coef : (xv > 0.0 ? xv : 0.0));
        break;
    default: /* IDENTITY */
        FWD_F32_LOOP(xv);
        break;
    }
}

static int fwd_f32_mode(cudnnActivationMode_t m)
{
    return m == CUDNN_ACTIVATION_RELU || m == CUDNN_ACTIVATION_CLIPPED_RELU ||
           m == CUDNN_ACTIVATION_IDENTITY;
}

#ifdef FD_CPU_HAVE_AVX2_MAP
/* FLOAT RELU / CLIPPED_RELU / IDENTITY with alpha = 1 and beta = 0 on AVX2 (act_map8): the
 * values of fwd_f32 / bwd_f32 as float maps from registers to the output (FD_CPU_AVX2_MAP).
 * Each result is an input element (a NaN quieted, as its round trip through double makes it),
 * +0, the default NaN, or coef, which act_map8 requires to be a float: so each comparison
 * with coef decides as the double one and the bits are the ref's. */
__attribute__((target("avx2"))) static inline __m256 act_relu8(__m256 x, int prop)
{
    __m256 r = _mm256_and_ps(x, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ));
    return prop
               ? _mm256_or_ps(r, _mm256_and_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q), fd_cpu_quiet8(x)))
               : r;
}

__attribute__((target("avx2"))) static inline __m256 act_clip8(__m256 x, __m256 cf, int prop)
{
    const __m256 m = act_relu8(x, 0);
    const __m256 r = _mm256_blendv_ps(m, cf, _mm256_cmp_ps(m, cf, _CMP_GT_OQ));
    return prop ? _mm256_blendv_ps(r, _mm256_set1_ps(NAN), _mm256_cmp_ps(x, x, _CMP_UNORD_Q)) : r;
}

/* the backward gradient dy where x passes (x > 0, and for CLIPPED_RELU x < coef), else +0 */
__attribute__((target("avx2"))) static inline __m256 act_drelu8(__m256 x, __m256 dy, int clip,
                                                                __m256 cf, int prop)
{
    __m256 keep = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ);
    if (clip)
        keep = _mm256_andnot_ps(_mm256_cmp_ps(x, cf, _CMP_GE_OQ), keep);
    const __m256 r = _mm256_and_ps(fd_cpu_quiet8(dy), keep);
    if (!prop)
        return r;
    const __m256 xn = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    return clip ? _mm256_blendv_ps(r, _mm256_set1_ps(NAN), xn)
                : _mm256_or_ps(r, _mm256_and_ps(xn, fd_cpu_quiet8(x)));
}

__attribute__((target("avx2"))) static void act_fwd8(const act_ctx_t *c, int n, const float *x,
                                                     float *out)
{
    const int prop = c->act->propagate_nan;
    const __m256 cf = _mm256_set1_ps((float)c->act->coef);
    switch (c->act->mode) {
    case CUDNN_ACTIVATION_RELU:
#define V(i, m, f) act_relu8(FD_CPU_LD8(x + (i), m, f), prop)
        FD_CPU_AVX2_MAP(n, out, c->nt, V);
#undef V
        break;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
#define V(i, m, f) act_clip8(FD_CPU_LD8(x + (i), m, f), cf, prop)
        FD_CPU_AVX2_MAP(n, out, c->nt, V);
#undef V
        break;
    default: /* IDENTITY */
#define V(i, m, f) fd_cpu_quiet8(FD_CPU_LD8(x + (i), m, f))
        FD_CPU_AVX2_MAP(n, out, c->nt, V);
#undef V
        break;
    }
}

__attribute__((target("avx2"))) static void act_bwd8(const act_ctx_t *c, int n, const float *dy,
                                                     const float *x, float *out)
{
    const int prop = c->act->propagate_nan;
    const __m256 cf = _mm256_set1_ps((float)c->act->coef);
    switch (c->act->mode) {
    case CUDNN_ACTIVATION_RELU:
#define V(i, m, f) act_drelu8(FD_CPU_LD8(x + (i), m, f), FD_CPU_LD8(dy + (i), m, f), 0, cf, prop)
        FD_CPU_AVX2_MAP(n, out, c->nt, V);
#undef V
        break;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
#define V(i, m, f) act_drelu8(FD_CPU_LD8(x + (i), m, f), FD_CPU_LD8(dy + (i), m, f), 1, cf, prop)
        FD_CPU_AVX2_MAP(n, out, c->nt, V);
#undef V
        break;
    default: /* IDENTITY */
#define V(i, m, f) fd_cpu_quiet8(FD_CPU_LD8(dy + (i), m, f))
        FD_CPU_AVX2_MAP(n, out, c->nt, V);
#undef V
        break;
    }
}
#endif

/* 1 where act_fwd8 / act_bwd8 serve the call: FLOAT, alpha = 1, beta = 0, an exact mode (a
 * CLIPPED_RELU coef that is a float or NaN, unless NaN propagation makes every output NaN),
 * AVX2 (since 2026-12-06 also on AVX-512 machines, where it beat the double rows: Intel VM,
 * n8c64h112w112, two threads, dnnbench median of 10, three interleaved runs: RELU forward
 * 1.68-1.91 -> 1.35-1.46 ms, backward 2.08-2.23 -> 1.65-1.78, CLIPPED_RELU forward 1.85-1.95
 * -> 1.55-1.60, backward 2.48-2.67 -> 2.06-2.21; in cache, n1c64h56w56, one thread, RELU
 * forward 0.048 -> 0.022 ms min). */
static int act_map8(const fd_act_problem_t *p, double alpha, double beta)
{
#ifdef FD_CPU_HAVE_AVX2_MAP
    const double coef = p->act.coef;
    if (p->dt != CUDNN_DATA_FLOAT || alpha != 1.0 || beta != 0.0 || !fwd_f32_mode(p->act.mode) ||
        (p->act.mode == CUDNN_ACTIVATION_CLIPPED_RELU && !isnan(coef) &&
         (double)(float)coef != coef))
        return 0;
    /* a NaN coef with NaN propagation makes every output NaN (fwd_f32 / bwd_f32); the maps
     * would clip nothing instead (until 2026-12-06 they did: test_exact_modes) */
    if (p->act.mode == CUDNN_ACTIVATION_CLIPPED_RELU && isnan(coef) && p->act.propagate_nan)
        return 0;
    return fd_vmath_isa() == FD_VMATH_AVX2 || fd_vmath_isa() == FD_VMATH_AVX512;
#else
    (void)p, (void)alpha, (void)beta;
    return 0;
#endif
}

static void fwd_run(const void *ctx, int len, char *const *ptr, const int64_t *inc)
{
    const act_ctx_t *c = ctx;
#ifdef FD_CPU_HAVE_AVX2_MAP
    if (c->m8 && inc[0] == 1 && inc[1] == 1) {
        act_fwd8(c, len, (const float *)(const void *)ptr[1], (float *)(void *)ptr[0]);
        return;
    }
#endif
    if (c->dt == CUDNN_DATA_FLOAT && inc[0] == 1 && inc[1] == 1 && fwd_f32_mode(c->act->mode)) {
        float r[FD_CPU_BLK];
        fwd_f32(c->act, len, (const float *)(const void *)ptr[1], (const float *)(const void *)ptr[0],
                r, c->alpha, c->beta);
        act_put_f32(c, ptr[0], r, len);
        return;
    }
    double x[FD_CPU_BLK], v[FD_CPU_BLK];
    if (c->tr) {
        float xb[FD_CPU_BLK];
        const float *xf = tr_floats(c->dt, ptr[1], inc[1], len, xb, v);
        tr_finish(c, len, ptr[0], inc[0], xf, NULL, v);
        return;
    }
    fd_cpu_load(c->dt, ptr[1], inc[1], len, x);
    if (c->dt != CUDNN_DATA_DOUBLE && approx_mode(c->act, 0))
        approx_fix(c, 0, len, ptr[0], inc[0], x, NULL, NULL, v);
    else
        fwd_block(c->act, len, x, v);
    fd_cpu_store_ex(c->dt, ptr[0], inc[0], len, v, c->alpha, c->beta, c->nt);
}

/* FLOAT with unit strides, the exact backward modes: bwd_block's expressions and
 * fd_cpu_store's blend in one pass, same order, same bits. Only the tensors a mode reads are
 * touched (y for SIGMOID / TANH, x for RELU / CLIPPED_RELU). */
#define BWD_F32_LOOP(EXPR)                                                                     \
    do {                                                                                       \
        if (beta == 0.0)                                                                       \
            for (int i = 0; i < n; i++)                                                        \
                r[i] = (float)(alpha * (EXPR));                                                \
        else                                                                                   \
            for (int i = 0; i < n; i++)                                                        \
                r[i] = (float)(alpha * (EXPR) + beta * (double)old[i]);                        \
    } while (0)
#define YV ((double)y[i])
#define GV ((double)dy[i])
#define XV ((double)x[i])

/* g when `keep`, else +0.0; g is an argument, so it is read either way (a plain load). */
static inline double pick(int keep, double g)
{
    return keep ? g : 0.0;
}

FD_CPU_CLONES static void bwd_f32(const fd_act_params_t *a, int n, const float *restrict y,
                                  const float *restrict dy, const float *restrict x,
                                  const float *restrict old, float *restrict r, double alpha,
                                  double beta)
{
    const double coef = a->coef;
    const int prop = a->propagate_nan, cnan = isnan(coef);
    switch (a->mode) {
    case CUDNN_ACTIVATION_SIGMOID:
        BWD_F32_LOOP(GV * YV * (1.0 - YV));
        break;
    case CUDNN_ACTIVATION_TANH:
        BWD_F32_LOOP(GV * (1.0 - YV * YV));
        break;
    /* dy is read through pick() whatever x is: written as `x > 0 ? dy : 0`, GCC loaded dy
     * under a mask computed from x (vmovups {k}), so each dy load waited for its x; on AMD
     * Zen 4 that held RELU backward at 0.37 of the copy bandwidth (forward 1.1) */
    case CUDNN_ACTIVATION_RELU:
        if (prop)
            BWD_F32_LOOP(isnan(XV) ? XV : pick(XV > 0.0, GV));
        else
            BWD_F32_LOOP(pick(XV > 0.0, GV));
        break;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        if (prop && cnan)
            BWD_F32_LOOP(NAN);
        else if (prop)
            BWD_F32_LOOP(isnan(XV) ? NAN : pick(XV > 0.0 && !(XV >= coef), GV));
        else
            BWD_F32_LOOP(pick(XV > 0.0 && !(XV >= coef), GV));
        break;
    default: /* IDENTITY */
        BWD_F32_LOOP(GV);
        break;
    }
}
#undef YV
#undef GV
#undef XV

static void bwd_run(const void *ctx, int len, char *const *ptr, const int64_t *inc)
{
    const act_ctx_t *c = ctx;
    double y[FD_CPU_BLK], dy[FD_CPU_BLK], x[FD_CPU_BLK], v[FD_CPU_BLK];
    const cudnnActivationMode_t m = c->act->mode;
#ifdef FD_CPU_HAVE_AVX2_MAP
    if (c->m8 && inc[0] == 1 && inc[2] == 1 && inc[3] == 1) {
        act_bwd8(c, len, (const float *)(const void *)ptr[2], (const float *)(const void *)ptr[3],
                 (float *)(void *)ptr[0]);
        return;
    }
#endif
    if (c->tr) {
        float xb[FD_CPU_BLK], gb[FD_CPU_BLK];
        const float *xf = tr_floats(c->dt, ptr[3], inc[3], len, xb, v);
        const float *gf = tr_floats(c->dt, ptr[2], inc[2], len, gb, v);
        tr_finish(c, len, ptr[0], inc[0], xf, gf, v);
        return;
    }
    if (c->dt == CUDNN_DATA_FLOAT && inc[0] == 1 && inc[1] == 1 && inc[2] == 1 && inc[3] == 1 &&
        (fwd_f32_mode(m) || m == CUDNN_ACTIVATION_SIGMOID || m == CUDNN_ACTIVATION_TANH)) {
        float r[FD_CPU_BLK];
        bwd_f32(c->act, len, (const float *)(const void *)ptr[1],
                (const float *)(const void *)ptr[2], (const float *)(const void *)ptr[3],
                (const float *)(const void *)ptr[0], r, c->alpha, c->beta);
        act_put_f32(c, ptr[0], r, len);
        return;
    }
    /* IDENTITY never looks at y or x, SIGMOID and TANH never at x, the others never at y */
    if (m == CUDNN_ACTIVATION_SIGMOID || m == CUDNN_ACTIVATION_TANH)
        fd_cpu_load(c->dt, ptr[1], inc[1], len, y);
    else
        memset(y, 0, (size_t)len * sizeof *y);
    fd_cpu_load(c->dt, ptr[2], inc[2], len, dy);
    if (m != CUDNN_ACTIVATION_IDENTITY && m != CUDNN_ACTIVATION_SIGMOID &&
        m != CUDNN_ACTIVATION_TANH)
        fd_cpu_load(c->dt, ptr[3], inc[3], len, x);
    else
        memset(x, 0, (size_t)len * sizeof *x);
    if (c->dt != CUDNN_DATA_DOUBLE && approx_mode(c->act, 1))
        approx_fix(c, 1, len, ptr[0], inc[0], x, y, dy, v);
    else
        bwd_block(c->act, len, y, dy, x, v);
    fd_cpu_store_ex(c->dt, ptr[0], inc[0], len, v, c->alpha, c->beta, c->nt);
}

static int plan(const fd_act_problem_t *p, int bwd, fd_cpu_ew_t *e, char *why, size_t why_size)
{
    if (!fd_cpu_dtype_ok(p->dt)) {
        snprintf(why, why_size, "%s stays with ref", fd_dtype_name(p->dt));
        return 0;
    }
    if (bwd && p->act.mode == CUDNN_ACTIVATION_SWISH && p->dt != CUDNN_DATA_FLOAT) {
        /* its NaN gradients' signs follow the operand order of x * s products, which is the
         * compiler's choice (an ASan build differed from ref): only FLOAT, held to a tolerance,
         * runs here */
        snprintf(why, why_size, "swish backward of %s data stays with ref", fd_dtype_name(p->dt));
        return 0;
    }
    const int64_t *fs[2] = {p->ys, p->xs};
    const int64_t *bs[4] = {p->dxs, p->ys, p->dys, p->xs};
    const cudnnDataType_t dts[4] = {p->dt, p->dt, p->dt, p->dt};
    return bwd ? fd_cpu_ew_plan(e, p->nb_dims, p->dim, 4, bs, dts, why, why_size)
               : fd_cpu_ew_plan(e, p->nb_dims, p->dim, 2, fs, dts, why, why_size);
}

int fd_act_fwd_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    fd_cpu_ew_t e = {0};
    return plan(problem, 0, &e, why, why_size);
}

size_t fd_act_fwd_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_act_fwd_cpu_run(const void *problem, const void *args)
{
    const fd_act_problem_t *p = problem;
    const fd_act_args_t *a = args;
    fd_cpu_ew_t e = {0};
    char why[128];
    plan(p, 0, &e, why, sizeof why);
    char *base[2] = {(char *)a->out, (char *)a->x};
    act_ctx_t c = {&p->act, p->dt, a->alpha, a->beta, fd_cpu_nt_want(&e, base, a->beta),
                   NULL,    {0},   0,        0};
    c.tr = tr_pick(&p->act, 0, p->dt, &c.trp);
    c.z = c.nt && act_stream_z();
    c.m8 = act_map8(p, a->alpha, a->beta);
    fd_cpu_ew_run(&e, base, fwd_run, &c);
    return CUDNN_STATUS_SUCCESS;
}

int fd_act_bwd_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    fd_cpu_ew_t e = {0};
    return plan(problem, 1, &e, why, why_size);
}

size_t fd_act_bwd_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_act_bwd_cpu_run(const void *problem, const void *args)
{
    const fd_act_problem_t *p = problem;
    const fd_act_args_t *a = args;
    fd_cpu_ew_t e = {0};
    char why[128];
    plan(p, 1, &e, why, sizeof why);
    char *base[4] = {(char *)a->out, (char *)a->y, (char *)a->dy, (char *)a->x};
    act_ctx_t c = {&p->act, p->dt, a->alpha, a->beta, fd_cpu_nt_want(&e, base, a->beta),
                   NULL,    {0},   0,        0};
    c.tr = tr_pick(&p->act, 1, p->dt, &c.trp);
    c.z = c.nt && act_stream_z();
    c.m8 = act_map8(p, a->alpha, a->beta);
    fd_cpu_ew_run(&e, base, bwd_run, &c);
    return CUDNN_STATUS_SUCCESS;
}
