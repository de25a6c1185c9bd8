/* SPDX-License-Identifier: MIT */
/*
 * vmath.h - float transcendental functions written so that a loop calling them vectorises
 * (softmax_cpu.c, activation_cpu.c; lrn_cpu.c reads the double ones): no branches, no table
 * lookups, bit casts through memcpy, integer work in 32-bit lanes (64-bit for the double
 * functions).
 *
 * Decisions:
 * - Accuracy is "a few ulp", not libm's correct-ish rounding: callers that must equal the ref
 *   bit for bit keep libm. fd_vexpf: Cody-Waite reduction x = k ln2 + r (ln2 split in a hi part
 *   whose product with any |k| <= 255 is exact, and a lo part), a degree-6 polynomial fitted
 *   for the least relative error on |r| <= ln2/2 (3.1e-9, below float's 6e-8; fd_vexpf_poly),
 *   and 2^k applied as two factors 2^(k/2) * 2^(k-k/2) so that subnormal results and k = 128
 *   need no branch. Measured against double exp over [-103.9, 88.7] (every 8th float): within
 *   0.91 ulp, and fd_vexpf_diff within 0.87 ulp of exp of the exact difference.
 * - Cost (the activation and softmax rows are compute-bound on them; Zen 4 retires about one
 *   512-bit FMA or product per cycle, and that port is the limit): where the argument is known
 *   to be <= 0 (softmax's x - max, sigmoid's and swish's -|x|), fd_vexpf_neg64 returns
 *   e^x 2^64, always a normal float, with 2^(k+64) taken from the reduction's own sum by one
 *   shift: one product instead of the two-factor scaling's six integer operations and two
 *   products, and callers fold the 2^-64 into a division or their 1 / sum, so values in the
 *   subnormal range are rounded once (fd_vsigmoidf's e / (1 + e) is now one rounding there).
 *   fd_vexpm1f takes its 2^k the same way, and a degree-5 (e^r - 1) / r (fd_vexpm1f_poly):
 *   measured against double expm1 over [-30, 80] (every 8th float) within 2.04 ulp (the
 *   degree-8 Taylor form: 1.87) for two FMAs fewer. Loop costs measured in L1 (AVX-512, cycles
 *   per element at 2.6 GHz, loaded machine): sigmoid 1.00 -> 0.71, tanh 0.91 -> 0.77, ELU 0.89
 *   -> 0.77, swish 1.39 -> 0.92, softmax's exp of x - max 0.84 -> 0.66.
 * - fd_vexpf_diff(x, m) = exp(x - m) with the rounding error of the float subtraction carried
 *   into r (TwoSum), so the result is as accurate as exp of the exact difference: softmax's
 *   exp(x - max) then stays within a few ulp however far x is from the max. fd_vexpf_diff64 is
 *   the same times 2^64 (softmax's 1 / sum carries the 2^-64).
 * - Double (fd_vlog, fd_vexp, for pow(s, y) = exp(y log s) in LRN): within a few ulp of
 *   double (measured: 27 ulp of double at worst for pow, from rounding y log s), so results
 *   rounded to float almost always equal libm's; no edge values handled (fd_vpow_ok says when
 *   the caller must use libm instead).
 * - Edge values of fd_vexpf as libm: NaN gives NaN, -inf gives +0, +inf and x > 88.73 give
 *   +inf, exp(0) is exactly 1 (so softmax of a constant row is exact).
 * - Float activations (activation_cpu.c): fd_vexpm1f (e^r - 1 as r P(r), so small |x| keep
 *   relative precision), fd_vtanhf (expm1(2x) / (expm1(2x) + 2): for x < 0 expm1 is in (-1, 0]
 *   and nothing cancels, so no fabs / copysign), fd_vsigmoidf and fd_vswish1f (from e^-|x| 2^64,
 *   so neither s nor 1 - s cancels), fd_vsigmoidf_m (keeps e as m 2^j for the products of
 *   general-beta swish that end in the subnormal range). Measured against the ref (libm in
 *   double, rounded once) over every float in [-100, 100] at step 1e-3: sigmoid 2 ulp, tanh 3,
 *   expm1-based ELU 2, swish 2 (beta 1) / 3 (the activation rows state and test 4).
 *   fd_vmath_isa picks the AVX-512 / AVX2+FMA / generic path for the callers that compile
 *   these for both vector ISAs (FREEDNN_CPU_ISA caps it).
 * - The polynomial and the reduction use fmaf explicitly: one rounding per step, the same on
 *   every path (an FMA instruction on AVX2+FMA and AVX-512, libm's exact fmaf elsewhere, slow
 *   but equal), and half the instructions of separate products and sums. The callers compile
 *   with FP contraction off, so nothing else fuses: the results do not depend on whether the
 *   loop ran as AVX-512, AVX2 or scalar code.
 */
#ifndef FD_CPU_VMATH_H_
#define FD_CPU_VMATH_H_

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FD_VMATH_INLINE static inline __attribute__((always_inline))

/* max(k, x) for a constant k, NaN x passing through (the x86 max instruction's operand order). */
FD_VMATH_INLINE float fd_vmaxkf(float k, float x)
{
    return k > x ? k : x;
}

/* e^r for |r| <= ln2/2 (a little beyond: the reductions' k rounds to nearest): degree-6
 * polynomial with p(0) = 1 and p'(0) = 1 exactly, the other coefficients fitted for the least
 * maximum relative error (Lawson iteration on 2000 Chebyshev nodes, then rounded to float):
 * 3.1e-9 relative in exact arithmetic, 0.05 * 2^-24, against the degree-7 Taylor form's 5e-9
 * with one FMA more. exp(0) = p(0) = 1 exactly. */
FD_VMATH_INLINE float fd_vexpf_poly(float r)
{
    float p = 0x1.6a244ap-10f;
    p = fmaf(p, r, 0x1.1239d4p-7f);
    p = fmaf(p, r, 0x1.5558f2p-5f);
    p = fmaf(p, r, 0x1.555492p-3f);
    p = fmaf(p, r, 0x1.fffffcp-2f);
    p = fmaf(p, r, 1.0f);
    return fmaf(p, r, 1.0f);
}

/* (e^r - 1) / r for |r| <= ln2/2: degree 5, constant term 1 exactly, fitted as above for the
 * least relative error: 1.3e-8 (0.22 * 2^-24) in exact arithmetic (degree 6 would give 0.004 *
 * 2^-24 for one FMA more; the sweep's worst tanh and ELU errors did not move). */
FD_VMATH_INLINE float fd_vexpm1f_poly(float r)
{
    float u = 0x1.6bec06p-10f;
    u = fmaf(u, r, 0x1.122768p-7f);
    u = fmaf(u, r, 0x1.555674p-5f);
    u = fmaf(u, r, 0x1.5554b0p-3f);
    u = fmaf(u, r, 0x1.fffffep-2f);
    return fmaf(u, r, 1.0f);
}

/* e^(x + lo) times 2^64 for -104 <= x <= 0 (NaN gives NaN; lo a correction, |lo| <= ulp(x)):
 * always a normal float (>= 2^-86), so a caller that divides or scales by 2^-64 last rounds
 * once, into the subnormal range too. 2^(k+64) comes from the reduction's own sum: with the
 * shift 1.5 2^23 + 191, t's low nine bits are k + 191 in [41, 191], and shifted left by 23
 * they are the bits of 2^(k+64) (one shift; the two-factor 2^k of fd_vexpf_core costs six
 * integer operations and a product). */
FD_VMATH_INLINE float fd_vexpf_neg64(float xc, float lo)
{
    const float shift = 0x1.8p23f + 191.0f;
    float t = fmaf(xc, 0x1.715476p0f, shift);
    float k = t - shift;
    float r = fmaf(-k, 0x1.62e400p-1f, xc);
    r = fmaf(-k, 0x1.7f7d1cp-20f, r) + lo;
    float p = fd_vexpf_poly(r);
    uint32_t tb;
    memcpy(&tb, &t, sizeof tb);
    uint32_t sb = tb << 23;
    float s;
    memcpy(&s, &sb, sizeof s);
    return p * s;
}

/* fd_vexpf_neg64's steps without the correction, for a shift shr = 1.5 2^23 + j: t's low nine
 * bits are k + j, the power of two built from them 2^(k + j - 127), so the result is e^xc
 * 2^(j - 127). j = 191 gives e^xc 2^64 (fd_vexpf_neg64z); fd_vexpf_piv64 takes a per-row j. */
FD_VMATH_INLINE float fd_vexpf_shift64(float xc, float shr)
{
    float t = fmaf(xc, 0x1.715476p0f, shr);
    float k = t - shr;
    float r = fmaf(-k, 0x1.62e400p-1f, xc);
    r = fmaf(-k, 0x1.7f7d1cp-20f, r);
    float p = fd_vexpf_poly(r);
    uint32_t tb;
    memcpy(&tb, &t, sizeof tb);
    uint32_t sb = tb << 23;
    float s;
    memcpy(&s, &sb, sizeof s);
    return p * s;
}

/* The same without the correction (one addition fewer where lo would be 0). */
FD_VMATH_INLINE float fd_vexpf_neg64z(float xc)
{
    return fd_vexpf_shift64(xc, 0x1.8p23f + 191.0f);
}

/* exp(x + lo) = m * *s2 for a tiny correction lo (|lo| <= ulp(x)): m = p 2^(k>>1) is a normal
 * float and *s2 = 2^(k-(k>>1)) a power of two, so a caller that multiplies m into other factors
 * before *s2 keeps full precision where e^x itself would be subnormal (swish of large
 * negatives). fd_vexpf2 returns m * *s2 (the product order of the earlier single function, so
 * softmax's bits are unchanged). */
FD_VMATH_INLINE float fd_vexpf_core(float xc, float lo, float *s2)
{
    const float shift = 0x1.8p23f; /* adding it rounds to an integer held in the low bits */
    float t = fmaf(xc, 0x1.715476p0f, shift);
    float k = t - shift;
    float r = fmaf(-k, 0x1.62e400p-1f, xc);
    r = fmaf(-k, 0x1.7f7d1cp-20f, r) + lo;
    float p = fd_vexpf_poly(r);
    int32_t ti;
    memcpy(&ti, &t, sizeof ti);
    int32_t ki = ti - 0x4B400000; /* k, in [-150, 128] */
    int32_t k1 = ki >> 1, k2 = ki - k1;
    uint32_t b1 = (uint32_t)(k1 + 127) << 23, b2 = (uint32_t)(k2 + 127) << 23;
    float s1;
    memcpy(&s1, &b1, sizeof s1);
    memcpy(s2, &b2, sizeof *s2);
    return p * s1;
}

FD_VMATH_INLINE float fd_vexpf_m(float x, float lo, float *s2)
{
    float xc = x < -104.0f ? -104.0f : x;
    xc = xc > 89.0f ? 89.0f : xc; /* NaN passes through both */
    return fd_vexpf_core(xc, lo, s2);
}

/* The same for x <= 0 or NaN (one clamp fewer), clamped at -170 rather than -104: m and *s2
 * stay normal down to k = -252, and a caller that multiplies m by a large factor before *s2
 * (swish: x e^(beta x)) must not see e^-104 where e^x is far smaller. */
FD_VMATH_INLINE float fd_vexpf_mneg(float x, float lo, float *s2)
{
    return fd_vexpf_core(x < -170.0f ? -170.0f : x, lo, s2);
}

FD_VMATH_INLINE float fd_vexpf2(float x, float lo)
{
    float s2, m = fd_vexpf_m(x, lo, &s2);
    return m * s2;
}

FD_VMATH_INLINE float fd_vexpf(float x)
{
    return fd_vexpf2(x, 0.0f);
}

/* exp(x - m) for x <= m (m a maximum), with the subtraction's rounding error kept (TwoSum);
 * only differences above -128 carry the correction (the others give 0 or NaN anyway). */
FD_VMATH_INLINE float fd_vexpf_diff(float x, float m)
{
    float s = x - m;
    float bb = s - x;
    float err = (x - (s - bb)) + (-m - bb);
    err = s >= -128.0f ? err : 0.0f; /* s <= 0 or NaN: x <= m is the caller's promise */
    float e = fd_vexpf_neg64(s < -104.0f ? -104.0f : s, err); /* no upper clamp needed */
    return e * 0x1p-64f; /* the one rounding where the result is subnormal */
}

/* The same times 2^64, unrounded where exp(x - m) is subnormal: a normal float, never 0 (a
 * difference below -104, -inf included, gives e^-104 2^64, which a caller's product by
 * 2^-64 / sum, sum >= 1, rounds to 0 as exp(x - m) / sum does). One product fewer per element
 * for softmax, which scales by 1 / sum anyway. */
FD_VMATH_INLINE float fd_vexpf_diff64(float x, float m)
{
    float s = x - m;
    float bb = s - x;
    float err = (x - (s - bb)) + (-m - bb);
    err = s >= -128.0f ? err : 0.0f;
    return fd_vexpf_neg64(s < -104.0f ? -104.0f : s, err);
}

/* Softmax's exp(x - m) 2^64 without the subtraction (2026-12-01, eighth session): the row's
 * max m is folded into the reduction's shift instead, e^(x - m) 2^64 = e^x 2^(64 - km) *
 * e^(km ln2 - m) with km = round(m / ln2), and the last factor (one per row, in [e^-0.35,
 * e^0.35]) cancels in e / sum (LOG adds its log, fd_vexpf_piv_params' off, to log(sum)). x is
 * reduced exactly as fd_vexpf reduces it (Cody-Waite, exact for |k| <= 255), so the result is as
 * accurate as fd_vexpf_diff64's without its TwoSum correction: 12 operations instead of 20.
 * Valid where fd_vexpf_piv_ok(m, mn) (m the row's max, mn its min): m in [-64, 128] keeps
 * every clamped x in [m - 110, m] within |k| <= 251 and the exponent field in [31, 191]; a
 * constant row (mn = m) keeps fd_vexpf_diff64, whose exp(0) = 1 exactly makes it exact. NaN m
 * fails the test. x below lo = m - 110 gives e^(lo - m) 2^64, which a product by 2^-64 / sum
 * (sum >= e^-0.35) rounds to 0 as exp(x - m) / sum does. */
FD_VMATH_INLINE int fd_vexpf_piv_ok(float m, float mn)
{
    return m >= -64.0f && m <= 128.0f && mn < m;
}

/* The row's parameters: lo, shr = 1.5 2^23 + 191 - km (t's low nine bits are then k - km + 191),
 * off = km ln2 - m in double (the sum of the exps times 2^-64 is sum(e^(x - m)) e^-off). */
FD_VMATH_INLINE void fd_vexpf_piv_params(float m, float *lo, float *shr, double *off)
{
    const float shift = 0x1.8p23f;
    const float km = fmaf(m, 0x1.715476p0f, shift) - shift;
    *lo = m - 110.0f;
    *shr = (shift + 191.0f) - km;
    *off = (double)km * 0x1.62e42fefa39efp-1 - (double)m;
}

FD_VMATH_INLINE float fd_vexpf_piv64(float x, float lo, float shr)
{
    return fd_vexpf_shift64(fd_vmaxkf(lo, x), shr); /* NaN x passes through the clamp */
}

/* ---- float: the activation rows' transcendental modes (activation_cpu.c) ------------------ */

/* e^x - 1 for x <= 88 (larger x: a wrong finite value; callers clamp or select): e^x = 2^k e^r
 * as in fd_vexpf_m, with e^r - 1 = r P(r) (Taylor to r^8: truncation below 6e-10 relative) so
 * that small |x| (k = 0) keep full relative precision, and 2^k e^r - 1 = fma(2^k, e^r - 1,
 * 2^k - 1), one rounding (2^k - 1 is exact for k <= 24; x below -30 gives -1, as e^x < 2^-43
 * rounds away). NaN gives NaN. */
FD_VMATH_INLINE float fd_vexpm1f_core(float xc)
{
    const float shift = 0x1.8p23f + 127.0f;
    float t = fmaf(xc, 0x1.715476p0f, shift);
    float k = t - shift;
    float r = fmaf(-k, 0x1.62e400p-1f, xc);
    r = fmaf(-k, 0x1.7f7d1cp-20f, r);
    float q = fd_vexpm1f_poly(r) * r;
    uint32_t tb;
    memcpy(&tb, &t, sizeof tb);
    uint32_t b = tb << 23; /* t's low nine bits are k + 127, in [83, 254]: the bits of 2^k */
    float sc;
    memcpy(&sc, &b, sizeof sc);
    /* -(1 - 2^k), not 2^k - 1 (the same value): at k = 0 it is -0, so x = -0 keeps its sign */
    return fmaf(sc, q, -(1.0f - sc));
}

FD_VMATH_INLINE float fd_vexpm1f(float x)
{
    float xc = x < -30.0f ? -30.0f : x;
    return fd_vexpm1f_core(xc > 88.0f ? 88.0f : xc); /* NaN passes through both */
}

/* tanh(x) = sign(x) em / (em + 2), em = e^(2|x|) - 1: no cancellation near 0 (tiny x give x
 * exactly); |x| > 9.5 gives +-1 (1 - tanh(9.5) < 2^-26). NaN gives NaN, -0 gives -0. */
FD_VMATH_INLINE float fd_vtanhf(float x)
{
    float a2 = x > 9.5f ? 19.0f : x + x; /* x + x: exact, and not on the FMA ports */
    a2 = x < -9.5f ? -19.0f : a2;
    float em = fd_vexpm1f_core(a2); /* in [-1, e^19 - 1] or NaN */
    return em / (em + 2.0f);
}

/* sigmoid(h + l) for a float pair (|l| <= ulp(h); ignored where |h| >= 128) in scaled form:
 * sigmoid = returned q times *s2, 1 - sigmoid = *qc times *cs2 (*s2, *cs2 powers of two). With
 * e = e^-|h + l| (never overflows), sigmoid = (h >= 0 ? 1 : e) / (1 + e) and its complement
 * (h >= 0 ? e : 1) / (1 + e): both relatively accurate for every h (no 1 - s cancellation),
 * and e stays m 2^j so that values deep in the subnormal range are not rounded before the
 * caller's last product (swish). */
FD_VMATH_INLINE float fd_vsigmoidf_m(float h, float l, float *s2, float *qc, float *cs2)
{
    const int pos = h >= 0.0f; /* NaN: either branch, NaN out */
    l = fabsf(h) < 128.0f ? l : 0.0f;
    float j2, m = fd_vexpf_mneg(pos ? -h : h, pos ? -l : l, &j2);
    float inv = 1.0f / (1.0f + m * j2);
    *s2 = pos ? 1.0f : j2;
    *cs2 = pos ? j2 : 1.0f;
    *qc = pos ? m * inv : inv;
    return pos ? inv : m * inv;
}

/* sigmoid(x) = 1 / (1 + e^-x) as e / (1 + e) or 1 / (1 + e), e = e^-|x|: one division, no
 * overflow; sigmoid(-inf) = 0, sigmoid(+inf) = 1, NaN gives NaN. */
FD_VMATH_INLINE float fd_vsigmoidf(float x)
{
    float e = fd_vexpf_neg64z(fd_vmaxkf(-104.0f, -fabsf(x))); /* e^-|x| 2^64 */
    return (x >= 0.0f ? 0x1p64f : e) / (0x1p64f + e);
}

/* x sigmoid(x) (SWISH with beta = 1): e = e^-|x| 2^64 as in fd_vsigmoidf; x >= 0 gives
 * x / (1 + e^-x), x < 0 gives (x e) / (2^64 + e) (x e is normal for -128 <= x: the one rounding
 * into the subnormal range is the division's). Below -128 |x| e^x rounds to 0: -0 as the ref's
 * double product rounds it, and +0 below -709.78 (the ref's sigmoid underflows to 0 there);
 * NaN gives x itself (the ref's rule). */
FD_VMATH_INLINE float fd_vswish1f(float x)
{
    const int pos = x >= 0.0f;
    float e = fd_vexpf_neg64z(fd_vmaxkf(-128.0f, -fabsf(x)));
    float d = 0x1p64f + e;
    /* below -128 the clamped e makes |x e| 2^-64 < 2^-160 for |x| <= 709.78: -0 unaided */
    float r = (x * (pos ? 1.0f : e)) / (pos ? d * 0x1p-64f : d);
    r = x < -709.78f ? 0.0f : r;
    return x != x ? x : r;
}

/* FD_VMATH_AVX512 (AVX-512 F/DQ/BW/VL), FD_VMATH_AVX2 (AVX2 + FMA) or 0;
 * FREEDNN_CPU_ISA=avx512|avx2|generic caps it (tests compare the paths on one machine). The
 * fmaf calls above are instructions only where the caller's function is compiled for one of
 * the first two. */
#define FD_VMATH_AVX512 2
#define FD_VMATH_AVX2 1
static inline int fd_vmath_isa(void)
{
    const char *cap = getenv("FREEDNN_CPU_ISA");
    int limit = !cap ? 2 : strcmp(cap, "generic") == 0 ? 0 : strcmp(cap, "avx2") == 0 ? 1 : 2;
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
    __builtin_cpu_init();
    if (limit >= 2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        return FD_VMATH_AVX512;
    if (limit >= 1 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return FD_VMATH_AVX2;
#else
    (void)limit;
#endif
    return 0;
}

/* ---- double: pow(s, y) for s > 0, as exp(y log s) (LRN's scale^-beta) --------------------- */

/* log(s) for a positive normal finite s, within a few ulp of double: s = 2^e m with m in
 * [sqrt(1/2), sqrt(2)) (chosen with integer compares: no float select), log m =
 * 2 atanh(f), f = (m - 1) / (m + 1), |f| < 0.172, series to f^23 (truncation 2e-20). */
FD_VMATH_INLINE double fd_vlog(double s)
{
    int64_t b;
    memcpy(&b, &s, sizeof b);
    int64_t mb = (b & 0x000fffffffffffffll) | 0x3ff0000000000000ll;
    int64_t hi = mb > 0x3ff6a09e667f3bcdll; /* m > sqrt(2): halve it (signed compare: AVX2) */
    mb -= hi << 52;
    /* the exponent as a double without an int64 conversion (none before AVX-512DQ): its bits
     * under 2^52's */
    int64_t eb = ((b >> 52) + hi) | 0x4330000000000000ll;
    double m, ef;
    memcpy(&m, &mb, sizeof m);
    memcpy(&ef, &eb, sizeof ef);
    double f = (m - 1.0) / (m + 1.0), f2 = f * f;
    double q = 1.0 / 23.0;
    q = q * f2 + 1.0 / 21.0;
    q = q * f2 + 1.0 / 19.0;
    q = q * f2 + 1.0 / 17.0;
    q = q * f2 + 1.0 / 15.0;
    q = q * f2 + 1.0 / 13.0;
    q = q * f2 + 1.0 / 11.0;
    q = q * f2 + 1.0 / 9.0;
    q = q * f2 + 1.0 / 7.0;
    q = q * f2 + 1.0 / 5.0;
    q = q * f2 + 1.0 / 3.0;
    double lm = 2.0 * f + 2.0 * f * f2 * q;
    double ed = (ef - 0x1p52) - 1023.0;
    return ed * 0x1.62e42fefa3800p-1 + (ed * 0x1.ef35793c7673p-45 + lm);
}

/* exp(x) for |x| <= 700 (callers check), within a few ulp of double: Taylor to degree 13 on
 * |r| <= ln2/2 (truncation 5e-18). */
FD_VMATH_INLINE double fd_vexp(double x)
{
    const double shift = 0x1.8p52;
    double t = x * 0x1.71547652b82fep0 + shift;
    double k = t - shift;
    double r = (x - k * 0x1.62e42fefa3800p-1) - k * 0x1.ef35793c7673p-45;
    double p = 1.0 / 6227020800.0;
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    int64_t ti;
    memcpy(&ti, &t, sizeof ti);
    uint64_t sb = (uint64_t)((ti & 0xfffff) + 1023 - 0x80000) << 52; /* k: t's low bits */
    double sc;
    memcpy(&sc, &sb, sizeof sc);
    return p * sc;
}

/* 1 when fd_vpow(s, y) is valid: s positive normal finite and |y log s| <= 700; the caller
 * computes the others with libm's pow. */
FD_VMATH_INLINE int fd_vpow_ok(double s, double ylogs)
{
    return s >= 0x1p-1022 && s <= 0x1.fffffffffffffp1023 && ylogs >= -700.0 && ylogs <= 700.0;
}

#endif /* FD_CPU_VMATH_H_ */
