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
 * - pow: for FLOAT, lrf_pow1 / lrf_pow8 below (tables of 16 entries, degree-7 log2 and
 *   degree-5 exp2 polynomials in double, relative error below 2^-40, measured 2^-41.7), and for
 *   beta = 0.75 (the usual exponent) lrf_pow34_*: float square roots and division, then one
 *   Newton step in double (also below 2^-40). Float outputs equal the ref's but for rare
 *   last-bit flips (none seen over 2.5e6 elements of tests/impl/test_cpu_lrn_fast.c, which holds
 *   them to a tolerance). Only IEEE operations and explicit fma: the AVX-512 rows, the general
 *   rows (target clones or generic) and every thread count give the same bits. libm's pow per
 *   element had the rows at ~15 ns per element, vmath.h's exp(y log s) (double, series with a
 *   division) at ~6. DOUBLE, HALF and BFLOAT16 keep libm's pow and the ref's bits.
 * - FLOAT with packed spatial dims runs the AVX-512 rows (lrf_*): NCHW-like ("plane": 16
 *   adjacent positions per unit, lanes along them, channel rows in stack buffers) and NHWC-like
 *   ("pixel": lanes along the channels of one pixel, the window as unaligned loads over the
 *   zero-padded squares). Same sums, same order, same pow as the general rows below.
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

/* ---- pow(s, y) for FLOAT (lrf_pow1 scalar, lrf_pow8 AVX-512: the same operations) ---------- */

/* s^y = 2^(y log2 s), table-driven so that short polynomials suffice: log2 s = e + log2(1 / INV[j])
 * + log2(1 + r), r = m INV[j] - 1 (one FMA; m the mantissa in [1, 2), j its top 4 bits, INV[j]
 * the reciprocal of the middle of j's interval rounded to double, so |r| <= 1/33) with log2(1 + r)
 * to degree 7 (truncation 2^-43); 2^t = 2^(k/16) 2^f, k = nearest(16 t), |f| <= 1/32, 2^f to
 * degree 5 (truncation 2^-42), 2^(k/16) = 2^(k >> 4) EX[k & 15]. Tables rounded to nearest from
 * 60-digit values. Relative error below 2^-40 (measured 2^-41.7 at worst against powl over
 * 2.4e7 random s in [2^-20, 2^60] and six exponents, a check outside the tree), so a float
 * output x s^-beta differs from the ref's by at most one rounding flip. Every step is an IEEE
 * operation or an explicit fma (correctly rounded on every ISA; the file compiles without
 * contraction), so lrf_pow1 and lrf_pow8 give the same bits: the AVX-512 rows, the clones and the
 * generic build agree. Edge inputs (s not a positive normal finite double, |y log2 s| > 1000) take
 * libm's pow, as the ref does. */
static const double lrf_inv[16] = {
    0x1.f07c1f07c1f08p-1, 0x1.d41d41d41d41dp-1, 0x1.bacf914c1bad0p-1, 0x1.a41a41a41a41ap-1,
    0x1.8f9c18f9c18fap-1, 0x1.7d05f417d05f4p-1, 0x1.6c16c16c16c17p-1, 0x1.5c9882b931057p-1,
    0x1.4e5e0a72f0539p-1, 0x1.4141414141414p-1, 0x1.3521cfb2b78c1p-1, 0x1.29e4129e4129ep-1,
    0x1.1f7047dc11f70p-1, 0x1.15b1e5f75270dp-1, 0x1.0c9714fbcda3bp-1, 0x1.0410410410410p-1};
static const double lrf_lg[16] = {
    0x1.6bad3758efd81p-5, 0x1.08c588cda79e5p-3, 0x1.acf5e2db4ec91p-3, 0x1.24407ab0e073ap-2,
    0x1.6e221cd9d0cddp-2, 0x1.b47ebf73882a1p-2, 0x1.f7a8568cb06cep-2, 0x1.1bf311e95d00ep-1,
    0x1.3abb3faa02168p-1, 0x1.5848226989d34p-1, 0x1.74b1fd64e0754p-1, 0x1.900e6160002cep-1,
    0x1.aa708f58014d4p-1, 0x1.c3e9ca2e1a055p-1, 0x1.dc899ab3ff56cp-1, 0x1.f45e08bcf0656p-1};
static const double lrf_ex[16] = {
    0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
    0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0, 0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0,
    0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
    0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0};
#define LRF_L1 0x1.71547652b82fep+0 /* (-1)^(i+1) / (i ln 2) */
#define LRF_L2 -0x1.71547652b82fep-1
#define LRF_L3 0x1.ec709dc3a03fdp-2
#define LRF_L4 -0x1.71547652b82fep-2
#define LRF_L5 0x1.2776c50ef9bfep-2
#define LRF_L6 -0x1.ec709dc3a03fdp-3
#define LRF_L7 0x1.a61762a7aded9p-3
#define LRF_E1 0x1.62e42fefa39efp-1 /* ln2^i / i! */
#define LRF_E2 0x1.ebfbdff82c58fp-3
#define LRF_E3 0x1.c6b08d704a0c0p-5
#define LRF_E4 0x1.3b2ab6fba4e77p-7
#define LRF_E5 0x1.5d87fe78a6731p-10
#define LRF_SHIFT 0x1.8p52
#define LRF_SHIFT_BITS 0x4338000000000000ll

static inline double lrf_pow1(double s, double y)
{
    if (!(s >= 0x1p-1022 && s <= 0x1.fffffffffffffp1023))
        return pow(s, y);
    uint64_t b;
    memcpy(&b, &s, sizeof b);
    const int64_t e = (int64_t)(b >> 52) - 1023;
    const int j = (int)((b >> 48) & 15);
    const uint64_t mb = (b & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
    double m;
    memcpy(&m, &mb, sizeof m);
    const double r = fma(m, lrf_inv[j], -1.0);
    double q = LRF_L7;
    q = fma(q, r, LRF_L6);
    q = fma(q, r, LRF_L5);
    q = fma(q, r, LRF_L4);
    q = fma(q, r, LRF_L3);
    q = fma(q, r, LRF_L2);
    q = fma(q, r, LRF_L1);
    const double lg = ((double)e + lrf_lg[j]) + q * r;
    const double t = y * lg;
    if (!(t >= -1000.0 && t <= 1000.0))
        return pow(s, y);
    const double sh = t * 16.0 + LRF_SHIFT;
    const double f = t - (sh - LRF_SHIFT) * 0.0625;
    int64_t k;
    memcpy(&k, &sh, sizeof k);
    k -= LRF_SHIFT_BITS;
    double p = LRF_E5;
    p = fma(p, f, LRF_E4);
    p = fma(p, f, LRF_E3);
    p = fma(p, f, LRF_E2);
    p = fma(p, f, LRF_E1);
    p = fma(p, f, 1.0);
    double v = lrf_ex[k & 15] * p;
    uint64_t vb;
    memcpy(&vb, &v, sizeof vb);
    vb += (uint64_t)(k >> 4) << 52;
    memcpy(&v, &vb, sizeof v);
    return v;
}

/* s^-0.75, the usual LRN exponent, without log and exp: q = 1 / (sqrt(s) sqrt(sqrt(s))) in float
 * (IEEE square roots and division: the same bits on every ISA; relative error below 2^-21), then
 * one Newton step in double on p^4 s^3 = 1: p = q - q (q^4 s^3 - 1) / 4, relative error below
 * 2^-40. s outside float's normal range takes lrf_pow1. */
static inline double lrf_pow34_1(double s)
{
    if (!(s >= 0x1p-126 && s <= 0x1p127))
        return lrf_pow1(s, -0.75);
    const float sf = (float)s, a = sqrtf(sf), b = sqrtf(a);
    const double q = (double)(1.0f / (a * b));
    const double q2 = q * q, q4 = q2 * q2, s3 = (s * s) * s;
    const double e = fma(q4, s3, -1.0);
    return fma(e * -0.25, q, q);
}

#if defined(__GNUC__) && defined(__x86_64__)
#define LRF_X86 1
#include <immintrin.h>
#include <stdlib.h>
#define LRF_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,fma")))
#else
#define LRF_X86 0
#endif

#if LRF_X86
/* FREEDNN_CPU_ISA=avx2|generic turns the AVX-512 rows off (read per call: the tests compare the
 * paths in one process). */
static int lrf_isa_ok(void)
{
    static int cpu = -1; /* a benign race: every thread stores the same value */
    if (cpu < 0) {
        __builtin_cpu_init();
        cpu = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
              __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
              __builtin_cpu_supports("fma");
    }
    const char *cap = getenv("FREEDNN_CPU_ISA");
    return cpu && (!cap || (strcmp(cap, "generic") != 0 && strcmp(cap, "avx2") != 0));
}

/* lrf_pow1 on 8 lanes, the same operations in the same order. */
LRF_AVX512 static inline __m512d lrf_pow8(__m512d s, double y)
{
    const __m512i b = _mm512_castpd_si512(s);
    const __m512i e = _mm512_sub_epi64(_mm512_srli_epi64(b, 52), _mm512_set1_epi64(1023));
    const __m512i j = _mm512_srli_epi64(b, 48); /* permutes read the low 4 bits */
    const __m512d m = _mm512_castsi512_pd(
        _mm512_or_si512(_mm512_and_si512(b, _mm512_set1_epi64(0x000fffffffffffffll)),
                        _mm512_set1_epi64(0x3ff0000000000000ll)));
    const __m512d inv =
        _mm512_permutex2var_pd(_mm512_loadu_pd(lrf_inv), j, _mm512_loadu_pd(lrf_inv + 8));
    const __m512d lgc =
        _mm512_permutex2var_pd(_mm512_loadu_pd(lrf_lg), j, _mm512_loadu_pd(lrf_lg + 8));
    const __m512d r = _mm512_fmadd_pd(m, inv, _mm512_set1_pd(-1.0));
    __m512d q = _mm512_set1_pd(LRF_L7);
    q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(LRF_L6));
    q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(LRF_L5));
    q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(LRF_L4));
    q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(LRF_L3));
    q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(LRF_L2));
    q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(LRF_L1));
    const __m512d lg =
        _mm512_add_pd(_mm512_add_pd(_mm512_cvtepi64_pd(e), lgc), _mm512_mul_pd(q, r));
    const __m512d t = _mm512_mul_pd(_mm512_set1_pd(y), lg);
    const __m512d sh =
        _mm512_add_pd(_mm512_mul_pd(t, _mm512_set1_pd(16.0)), _mm512_set1_pd(LRF_SHIFT));
    const __m512d f = _mm512_sub_pd(
        t, _mm512_mul_pd(_mm512_sub_pd(sh, _mm512_set1_pd(LRF_SHIFT)), _mm512_set1_pd(0.0625)));
    const __m512i k = _mm512_sub_epi64(_mm512_castpd_si512(sh), _mm512_set1_epi64(LRF_SHIFT_BITS));
    __m512d p = _mm512_set1_pd(LRF_E5);
    p = _mm512_fmadd_pd(p, f, _mm512_set1_pd(LRF_E4));
    p = _mm512_fmadd_pd(p, f, _mm512_set1_pd(LRF_E3));
    p = _mm512_fmadd_pd(p, f, _mm512_set1_pd(LRF_E2));
    p = _mm512_fmadd_pd(p, f, _mm512_set1_pd(LRF_E1));
    p = _mm512_fmadd_pd(p, f, _mm512_set1_pd(1.0));
    const __m512d ex =
        _mm512_permutex2var_pd(_mm512_loadu_pd(lrf_ex), k, _mm512_loadu_pd(lrf_ex + 8));
    __m512i v = _mm512_castpd_si512(_mm512_mul_pd(ex, p));
    v = _mm512_add_epi64(v, _mm512_slli_epi64(_mm512_srai_epi64(k, 4), 52));
    /* edge lanes: libm, as lrf_pow1 */
    const __mmask8 ok = _mm512_cmp_pd_mask(s, _mm512_set1_pd(0x1p-1022), _CMP_GE_OQ) &
                        _mm512_cmp_pd_mask(s, _mm512_set1_pd(0x1.fffffffffffffp1023), _CMP_LE_OQ) &
                        _mm512_cmp_pd_mask(t, _mm512_set1_pd(-1000.0), _CMP_GE_OQ) &
                        _mm512_cmp_pd_mask(t, _mm512_set1_pd(1000.0), _CMP_LE_OQ);
    __m512d res = _mm512_castsi512_pd(v);
    if (ok != 0xff) {
        double sv[8], rv[8];
        _mm512_storeu_pd(sv, s);
        _mm512_storeu_pd(rv, res);
        for (int i = 0; i < 8; i++)
            if (!((ok >> i) & 1))
                rv[i] = pow(sv[i], y);
        res = _mm512_loadu_pd(rv);
    }
    return res;
}

/* lrf_pow34_1 on 16 lanes (two halves of 8 doubles): the float steps on one vector. */
LRF_AVX512 static inline void lrf_pow34_16(__m512d *lo, __m512d *hi)
{
    const __m512d s0 = *lo, s1 = *hi;
    const __m512 sf =
        _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(s0)), _mm512_cvtpd_ps(s1), 1);
    const __m512 a = _mm512_sqrt_ps(sf), b = _mm512_sqrt_ps(a);
    const __m512 qf = _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_mul_ps(a, b));
    __m512d r[2];
    for (int h = 0; h < 2; h++) {
        const __m512d s = h ? s1 : s0;
        const __m512d q =
            _mm512_cvtps_pd(h ? _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(qf), 1))
                              : _mm512_castps512_ps256(qf));
        const __m512d q2 = _mm512_mul_pd(q, q), q4 = _mm512_mul_pd(q2, q2);
        const __m512d s3 = _mm512_mul_pd(_mm512_mul_pd(s, s), s);
        const __m512d e = _mm512_fmadd_pd(q4, s3, _mm512_set1_pd(-1.0));
        r[h] = _mm512_fmadd_pd(_mm512_mul_pd(e, _mm512_set1_pd(-0.25)), q, q);
        const __mmask8 ok = _mm512_cmp_pd_mask(s, _mm512_set1_pd(0x1p-126), _CMP_GE_OQ) &
                            _mm512_cmp_pd_mask(s, _mm512_set1_pd(0x1p127), _CMP_LE_OQ);
        if (ok != 0xff)
            r[h] = _mm512_mask_mov_pd(lrf_pow8(s, -0.75), ok, r[h]);
    }
    *lo = r[0], *hi = r[1];
}

/* s^-beta on 16 lanes in place. */
LRF_AVX512 static inline void lrf_pow16(__m512d *lo, __m512d *hi, double beta)
{
    if (beta == 0.75) {
        lrf_pow34_16(lo, hi);
    } else {
        *lo = lrf_pow8(*lo, -beta);
        *hi = lrf_pow8(*hi, -beta);
    }
}

/* ---- the AVX-512 rows (FLOAT, packed spatial dims) ---------------------------------------- */

/* Two layouts, each read with full vectors: "plane" (NCHW-like: the spatial dims packed with unit
 * stride; a unit is 16 adjacent positions of one image, all channels, lanes along the positions)
 * and "pixel" (NHWC-like: unit channel stride, spatial dims packed over a pixel stride; a unit
 * is 16 pixels, lanes along the channels). Same sums in the same order as the rows above (and
 * the ref): squares padded with zero rows, each window summed from its first channel; backward
 * w = dy y / s padded the same way, its sums started from +0.0. 16 positions or pixels per unit
 * whatever the thread count. */
#define LRF_BUF 4096 /* doubles per stack buffer (three in backward: 96 KiB) */

typedef struct {
    int mode;            /* 1 plane, 2 pixel */
    int64_t N, C, S;     /* images, channels, positions */
    int64_t pw;          /* positions per unit (16) */
    int64_t s0[LR_MAXT]; /* per tensor: image stride */
    int64_t s1[LR_MAXT]; /* channel stride (plane) */
    int64_t ps[LR_MAXT]; /* position stride (pixel) */
} lrf_plan_t;

/* 1 when tensor t addresses position sp at sp * ps (the spatial dims packed over ps). */
static int lrf_packed(const struct cudnnTensorStruct *t, int64_t ps)
{
    int64_t want = ps;
    for (int d = t->nb_dims - 1; d >= 2; d--) {
        if (t->dim[d] > 1 && t->stride[d] != want)
            return 0;
        want *= t->dim[d];
    }
    return 1;
}

static int lrf_plan(lrf_plan_t *f, const struct cudnnTensorStruct *const *t, int nt, unsigned win)
{
    if (t[0]->dtype != CUDNN_DATA_FLOAT || !lrf_isa_ok())
        return 0;
    f->N = t[0]->dim[0];
    f->C = t[0]->dim[1];
    f->S = 1;
    for (int d = 2; d < t[0]->nb_dims; d++)
        f->S *= t[0]->dim[d];
    int plane = 1, pixel = 1;
    for (int i = 0; i < nt; i++) {
        plane &= lrf_packed(t[i], 1);
        pixel &= (t[i]->stride[1] == 1 || f->C == 1) &&
                 lrf_packed(t[i], t[i]->stride[t[i]->nb_dims - 1]) &&
                 t[i]->stride[t[i]->nb_dims - 1] >= f->C;
        f->s0[i] = t[i]->stride[0];
        f->s1[i] = t[i]->stride[1];
        f->ps[i] = t[i]->stride[t[i]->nb_dims - 1];
    }
    /* 16 positions per unit: 32 and 64 (longer runs per channel row) measured slower, the
     * larger buffers no longer stay in L1 */
    f->pw = 16;
    if (plane && (f->C + win + 1) * 16 <= LRF_BUF) {
        f->mode = 1;
    } else if (pixel && f->C + win + 32 <= LRF_BUF) {
        f->mode = 2;
    } else {
        return 0;
    }
    return 1;
}

static inline __mmask16 lrf_lanes(int64_t n)
{
    return n >= 16 ? (__mmask16)0xffff : n <= 0 ? 0 : (__mmask16)((1u << n) - 1u);
}

LRF_AVX512 static inline __m512d lrf_lo(__m512 v)
{
    return _mm512_cvtps_pd(_mm512_castps512_ps256(v));
}

LRF_AVX512 static inline __m512d lrf_hi(__m512 v)
{
    return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}

/* y = alpha v (+ beta y), rounded once, lanes m (fd_cpu_store's order). */
LRF_AVX512 static inline void lrf_store(float *y, __mmask16 m, __m512d lo, __m512d hi, double alpha,
                                        double beta)
{
    if (alpha != 1.0) { /* 1 * v is v: skipping it changes no bit */
        lo = _mm512_mul_pd(_mm512_set1_pd(alpha), lo);
        hi = _mm512_mul_pd(_mm512_set1_pd(alpha), hi);
    }
    if (beta != 0.0) {
        const __m512 old = _mm512_maskz_loadu_ps(m, y);
        lo = _mm512_add_pd(lo, _mm512_mul_pd(_mm512_set1_pd(beta), lrf_lo(old)));
        hi = _mm512_add_pd(hi, _mm512_mul_pd(_mm512_set1_pd(beta), lrf_hi(old)));
    }
    _mm512_mask_storeu_ps(
        y, m,
        _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1));
}

/* s = k + alpha / n * sum, the ref's scale. */
LRF_AVX512 static inline __m512d lrf_scale(const fd_lrn_problem_t *p, __m512d sum)
{
    return _mm512_add_pd(_mm512_set1_pd(p->k), _mm512_mul_pd(_mm512_set1_pd(p->alpha / p->n), sum));
}

/* Squares of the unit's pw positions of every channel into rows lb .. lb + C of sq (pw doubles
 * per row), zero rows around (plane). n: the positions left in the tensor. */
LRF_AVX512 static void lrf_squares_plane(const float *x, int64_t cs, int64_t C, int64_t pw,
                                         int64_t n, int lb, int la, double *sq)
{
    memset(sq, 0, (size_t)(lb * pw) * sizeof(double));
    memset(sq + (lb + C) * pw, 0, (size_t)(la * pw) * sizeof(double));
    for (int64_t c = 0; c < C; c++)
        for (int64_t b = 0; b < pw; b += 16) {
            const __m512 v = _mm512_maskz_loadu_ps(lrf_lanes(n - b), x + c * cs + b);
            const __m512d lo = lrf_lo(v), hi = lrf_hi(v);
            _mm512_storeu_pd(sq + (lb + c) * pw + b, _mm512_mul_pd(lo, lo));
            _mm512_storeu_pd(sq + (lb + c) * pw + b + 8, _mm512_mul_pd(hi, hi));
        }
}

/* The same for one pixel: lanes along the channels, sq[lb + c], zeros around. */
LRF_AVX512 static void lrf_squares_pixel(const float *x, int64_t C, int lb, int la, double *sq)
{
    memset(sq, 0, (size_t)lb * sizeof(double));
    for (int64_t c0 = 0; c0 < C; c0 += 16) {
        const __m512 v = _mm512_maskz_loadu_ps(lrf_lanes(C - c0), x + c0);
        const __m512d lo = lrf_lo(v), hi = lrf_hi(v);
        _mm512_storeu_pd(sq + lb + c0, _mm512_mul_pd(lo, lo));
        _mm512_storeu_pd(sq + lb + c0 + 8, _mm512_mul_pd(hi, hi));
    }
    memset(sq + lb + C, 0, (size_t)(la + 16) * sizeof(double));
}

/* Window sums of 16 lanes at q, rows 16 doubles apart (plane) or 1 (pixel), in channel order
 * from start = +0.0: (start + q[0]) + q[step] + ... */
LRF_AVX512 static inline void lrf_wsum(const double *q, int win, int64_t step, __m512d start,
                                       __m512d *lo, __m512d *hi)
{
    __m512d s0 = _mm512_add_pd(start, _mm512_loadu_pd(q));
    __m512d s1 = _mm512_add_pd(start, _mm512_loadu_pd(q + 8));
    for (int k = 1; k < win; k++) {
        s0 = _mm512_add_pd(s0, _mm512_loadu_pd(q + k * step));
        s1 = _mm512_add_pd(s1, _mm512_loadu_pd(q + k * step + 8));
    }
    *lo = s0, *hi = s1;
}

/* fwd tensors: 0 = y, 1 = x */
LRF_AVX512 static void lrf_fwd_unit(const lrf_plan_t *f, const fd_lrn_problem_t *p,
                                    const fd_lrn_args_t *a, int64_t u)
{
    const int win = (int)p->n, lb = (win - 1) / 2, la = win - 1 - lb;
    const int64_t C = f->C, P = f->pw, nbk = (f->S + P - 1) / P, n = u / nbk, sp0 = (u % nbk) * P;
    double sq[LRF_BUF];
    const __m512d z = _mm512_setzero_pd();
    if (f->mode == 1) {
        const float *x = (const float *)a->x + n * f->s0[1] + sp0;
        float *y = (float *)a->out + n * f->s0[0] + sp0;
        lrf_squares_plane(x, f->s1[1], C, P, f->S - sp0, lb, la, sq);
        for (int64_t c = 0; c < C; c++)
            for (int64_t b = 0; b < P; b += 16) {
                const __mmask16 m = lrf_lanes(f->S - sp0 - b);
                if (!m)
                    break;
                __m512d s0, s1;
                lrf_wsum(sq + c * P + b, win, P, z, &s0, &s1);
                s0 = lrf_scale(p, s0), s1 = lrf_scale(p, s1);
                lrf_pow16(&s0, &s1, p->beta);
                const __m512 v = _mm512_maskz_loadu_ps(m, x + c * f->s1[1] + b);
                lrf_store(y + c * f->s1[0] + b, m, _mm512_mul_pd(lrf_lo(v), s0),
                          _mm512_mul_pd(lrf_hi(v), s1), a->alpha, a->beta);
            }
        return;
    }
    const int64_t sp1 = sp0 + P < f->S ? sp0 + P : f->S;
    for (int64_t sp = sp0; sp < sp1; sp++) {
        const float *x = (const float *)a->x + n * f->s0[1] + sp * f->ps[1];
        float *y = (float *)a->out + n * f->s0[0] + sp * f->ps[0];
        lrf_squares_pixel(x, C, lb, la, sq);
        for (int64_t c0 = 0; c0 < C; c0 += 16) {
            const __mmask16 m = lrf_lanes(C - c0);
            __m512d s0, s1;
            lrf_wsum(sq + c0, win, 1, z, &s0, &s1);
            s0 = lrf_scale(p, s0), s1 = lrf_scale(p, s1);
            lrf_pow16(&s0, &s1, p->beta);
            const __m512 v = _mm512_maskz_loadu_ps(m, x + c0);
            lrf_store(y + c0, m, _mm512_mul_pd(lrf_lo(v), s0), _mm512_mul_pd(lrf_hi(v), s1),
                      a->alpha, a->beta);
        }
    }
}

/* bwd tensors: 0 = dx, 1 = x, 2 = y, 3 = dy.
 * dx_i = dy_i s_i^-beta - 2 beta alpha / n * x_i * sum_{c = i - la .. i + lb} dy_c y_c / s_c */
LRF_AVX512 static void lrf_bwd_unit(const lrf_plan_t *f, const fd_lrn_problem_t *p,
                                    const fd_lrn_args_t *a, int64_t u)
{
    const int win = (int)p->n, lb = (win - 1) / 2, la = win - 1 - lb;
    const int64_t C = f->C, P = f->pw, nbk = (f->S + P - 1) / P, n = u / nbk, sp0 = (u % nbk) * P;
    const double coef = 2.0 * p->beta * p->alpha / p->n;
    const __m512d z = _mm512_setzero_pd(), vcoef = _mm512_set1_pd(coef);
    double sq[LRF_BUF], w[LRF_BUF], pw[LRF_BUF];
    if (f->mode == 1) {
        const float *x = (const float *)a->x + n * f->s0[1] + sp0;
        const float *yv = (const float *)a->y + n * f->s0[2] + sp0;
        const float *g = (const float *)a->dy + n * f->s0[3] + sp0;
        float *dx = (float *)a->out + n * f->s0[0] + sp0;
        lrf_squares_plane(x, f->s1[1], C, P, f->S - sp0, lb, la, sq);
        memset(w, 0, (size_t)(la * P) * sizeof(double));
        memset(w + (la + C) * P, 0, (size_t)(lb * P) * sizeof(double));
        for (int64_t c = 0; c < C; c++)
            for (int64_t b = 0; b < P; b += 16) {
                const __mmask16 m = lrf_lanes(f->S - sp0 - b);
                __m512d s0, s1;
                lrf_wsum(sq + c * P + b, win, P, z, &s0, &s1);
                s0 = lrf_scale(p, s0), s1 = lrf_scale(p, s1);
                __m512d p0 = s0, p1 = s1;
                lrf_pow16(&p0, &p1, p->beta);
                _mm512_storeu_pd(pw + c * P + b, p0);
                _mm512_storeu_pd(pw + c * P + b + 8, p1);
                /* lanes past the tensor: 0 * 0 / k = +0 */
                const __m512 gv = _mm512_maskz_loadu_ps(m, g + c * f->s1[3] + b);
                const __m512 yy = _mm512_maskz_loadu_ps(m, yv + c * f->s1[2] + b);
                _mm512_storeu_pd(w + (la + c) * P + b,
                                 _mm512_div_pd(_mm512_mul_pd(lrf_lo(gv), lrf_lo(yy)), s0));
                _mm512_storeu_pd(w + (la + c) * P + b + 8,
                                 _mm512_div_pd(_mm512_mul_pd(lrf_hi(gv), lrf_hi(yy)), s1));
            }
        for (int64_t c = 0; c < C; c++)
            for (int64_t b = 0; b < P; b += 16) {
                const __mmask16 m = lrf_lanes(f->S - sp0 - b);
                if (!m)
                    break;
                __m512d a0, a1;
                lrf_wsum(w + c * P + b, win, P, z, &a0, &a1);
                const __m512 gv = _mm512_maskz_loadu_ps(m, g + c * f->s1[3] + b);
                const __m512 xv = _mm512_maskz_loadu_ps(m, x + c * f->s1[1] + b);
                const __m512d r0 =
                    _mm512_sub_pd(_mm512_mul_pd(lrf_lo(gv), _mm512_loadu_pd(pw + c * P + b)),
                                  _mm512_mul_pd(_mm512_mul_pd(vcoef, lrf_lo(xv)), a0));
                const __m512d r1 =
                    _mm512_sub_pd(_mm512_mul_pd(lrf_hi(gv), _mm512_loadu_pd(pw + c * P + b + 8)),
                                  _mm512_mul_pd(_mm512_mul_pd(vcoef, lrf_hi(xv)), a1));
                lrf_store(dx + c * f->s1[0] + b, m, r0, r1, a->alpha, a->beta);
            }
        return;
    }
    const int64_t sp1 = sp0 + P < f->S ? sp0 + P : f->S;
    for (int64_t sp = sp0; sp < sp1; sp++) {
        const float *x = (const float *)a->x + n * f->s0[1] + sp * f->ps[1];
        const float *yv = (const float *)a->y + n * f->s0[2] + sp * f->ps[2];
        const float *g = (const float *)a->dy + n * f->s0[3] + sp * f->ps[3];
        float *dx = (float *)a->out + n * f->s0[0] + sp * f->ps[0];
        lrf_squares_pixel(x, C, lb, la, sq);
        memset(w, 0, (size_t)la * sizeof(double));
        for (int64_t c0 = 0; c0 < C; c0 += 16) {
            const __mmask16 m = lrf_lanes(C - c0);
            __m512d s0, s1;
            lrf_wsum(sq + c0, win, 1, z, &s0, &s1);
            s0 = lrf_scale(p, s0), s1 = lrf_scale(p, s1);
            __m512d p0 = s0, p1 = s1;
            lrf_pow16(&p0, &p1, p->beta);
            _mm512_storeu_pd(pw + c0, p0);
            _mm512_storeu_pd(pw + c0 + 8, p1);
            const __m512 gv = _mm512_maskz_loadu_ps(m, g + c0);
            const __m512 yy = _mm512_maskz_loadu_ps(m, yv + c0);
            /* lanes past C: 0 * 0 / k = +0, the zero padding the windows need */
            _mm512_storeu_pd(w + la + c0, _mm512_div_pd(_mm512_mul_pd(lrf_lo(gv), lrf_lo(yy)), s0));
            _mm512_storeu_pd(w + la + c0 + 8,
                             _mm512_div_pd(_mm512_mul_pd(lrf_hi(gv), lrf_hi(yy)), s1));
        }
        memset(w + la + C, 0, (size_t)(lb + 16) * sizeof(double));
        for (int64_t c0 = 0; c0 < C; c0 += 16) {
            const __mmask16 m = lrf_lanes(C - c0);
            __m512d a0, a1;
            lrf_wsum(w + c0, win, 1, z, &a0, &a1);
            const __m512 gv = _mm512_maskz_loadu_ps(m, g + c0);
            const __m512 xv = _mm512_maskz_loadu_ps(m, x + c0);
            const __m512d r0 = _mm512_sub_pd(_mm512_mul_pd(lrf_lo(gv), _mm512_loadu_pd(pw + c0)),
                                             _mm512_mul_pd(_mm512_mul_pd(vcoef, lrf_lo(xv)), a0));
            const __m512d r1 =
                _mm512_sub_pd(_mm512_mul_pd(lrf_hi(gv), _mm512_loadu_pd(pw + c0 + 8)),
                              _mm512_mul_pd(_mm512_mul_pd(vcoef, lrf_hi(xv)), a1));
            lrf_store(dx + c0, m, r0, r1, a->alpha, a->beta);
        }
    }
}

/* 1 when an AVX-512 row ran. */
static int lrf_run(const fd_lrn_problem_t *p, const fd_lrn_args_t *a,
                   const struct cudnnTensorStruct *const *t, int nt, int bwd)
{
    lrf_plan_t f;
    if (!lrf_plan(&f, t, nt, p->n))
        return 0;
    const int64_t units = f.N * ((f.S + f.pw - 1) / f.pw);
#pragma omp parallel for schedule(static) if (f.N * f.C * f.S >= FD_CPU_PAR_MIN / 4 && units > 1)
    for (int64_t u = 0; u < units; u++) {
        if (bwd)
            lrf_bwd_unit(&f, p, a, u);
        else
            lrf_fwd_unit(&f, p, a, u);
    }
    return 1;
}
#else
static int lrf_run(const fd_lrn_problem_t *p, const fd_lrn_args_t *a,
                   const struct cudnnTensorStruct *const *t, int nt, int bwd)
{
    (void)p, (void)a, (void)t, (void)nt, (void)bwd;
    return 0;
}
#endif /* LRF_X86 */

/* v[i] = pow(v[i], y) for FLOAT outputs: lrf_pow1, the AVX-512 rows' function, so that every
 * path gives the same bits. */
FD_CPU_CLONES static void lr_pow(double *restrict v, int64_t n, double y)
{
    if (y == -0.75)
        for (int64_t i = 0; i < n; i++)
            v[i] = lrf_pow34_1(v[i]);
    else
        for (int64_t i = 0; i < n; i++)
            v[i] = lrf_pow1(v[i], y);
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
    if (lrf_run(p, a, t, 2, 0))
        return CUDNN_STATUS_SUCCESS;
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
    if (lrf_run(p, a, t, 4, 1))
        return CUDNN_STATUS_SUCCESS;
    lr_plan_t s;
    plan(&s, t, 4, p->n);
    const int64_t units = s.others * s.chunks;
#pragma omp parallel for schedule(static) if (s.n >= FD_CPU_PAR_MIN / 4 && units > 1)
    for (int64_t u = 0; u < units; u++)
        bwd_unit(&s, p, a, u);
    return CUDNN_STATUS_SUCCESS;
}
