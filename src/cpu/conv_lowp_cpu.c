/* SPDX-License-Identifier: MIT */
/*
 * conv_lowp_cpu.c - HALF and BFLOAT16 convolution on the cpu backend, all three directions, by
 * conversion: the two inputs are widened to FLOAT copies in the workspace, the FLOAT rows of
 * this backend compute into a FLOAT output there, and the result is blended with alpha / beta
 * and rounded (to nearest even) into the caller's output.
 *
 * Rows (src/impls.def), each tied to one algorithm family of the FLOAT rows and serving only
 * enums whose contract allows a workspace (never FWD IMPLICIT_GEMM or BWD ALGO_0):
 *   fd_conv_fwd_gemm_lowp          FWD IMPLICIT_PRECOMP_GEMM, GEMM  -> the rows serving GEMM
 *   fd_conv_fwd_winograd_lowp      FWD WINOGRAD, WINOGRAD_NONFUSED  -> the rows serving WINOGRAD
 *   fd_conv_fwd_direct_lowp        FWD DIRECT                       -> the rows serving DIRECT
 *   fd_conv_bwd_data_algo1_lowp    BWD_DATA ALGO_1                  -> the rows serving ALGO_1
 *   fd_conv_bwd_data_winograd_lowp BWD_DATA WINOGRAD(_NONFUSED)     -> the rows serving WINOGRAD
 *   fd_conv_bwd_filter_algo1_lowp  BWD_FILTER ALGO_1, ALGO_3        -> the rows serving ALGO_1
 * The FLOAT row is the first cpu row of the table that takes the FLOAT problem for that enum,
 * the one dispatch would pick for FLOAT data (chosen without logging, so FREEDNN_LOG_DISPATCH
 * still names this row as the one that ran; a separate "runs ... on FLOAT copies" line names
 * the inner one). A problem no cpu FLOAT row takes is declined and goes to ref.
 *
 * Accumulation is FLOAT for computeType FLOAT and also for HALF / BFLOAT16 ("true half"): more
 * accurate than cuDNN's half accumulation, within both tolerances. Rounding differs from ref
 * (double accumulation, one rounding): the sum is rounded to float by the FLOAT row, the blend
 * alpha * acc + beta * old is taken in double (both products exact) and rounded to float, then
 * to the output type; integer data whose sums fit float and the output type comes out exact.
 * beta == 0 never reads the output. NaN outputs are the quiet NaN of their sign (payloads aside).
 *
 * The copies keep each tensor's dimension order, packed (so NHWC stays NHWC for the FLOAT row;
 * dense tensors convert as one run); the filter, always packed, keeps its format. Conversions:
 * AVX-512 (vcvtph2ps / vcvtps2ph; bf16 by 16-bit shifts and integer round-to-nearest-even, not
 * vcvtneps2bf16, which flushes subnormals), AVX2 + F16C, or scalar, chosen at run time
 * (FREEDNN_CPU_ISA caps it); all three give the same bits, so the result depends only on the
 * FLOAT row's (which are thread-count independent). Conversions run on one thread: they move a
 * few MB where the convolution does GFLOPs, and an OpenMP region beside the pthread OpenBLAS
 * costs more than it saves (src/cpu/gemm.h, above fd_cpu_team_size).
 * Workspace, exact: FLOAT copies of x, w and y (each rounded up to 64 bytes) + the FLOAT row's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LP_X86 1
#else
#define LP_X86 0
#endif

#include "../core/conv.h"

#define LP_DIMS (2 + FD_CONV_SPATIAL_MAX)
#define LP_ALIGN 64

/* ---- scalar conversions (the reference for every vector path) ----------------------------- */

static inline float f32_of_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint32_t bits_of_f32(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* float -> bfloat16, round to nearest even; NaN -> the quiet NaN of its sign (as fd_store). */
static inline uint16_t bf16_of_f32(float f)
{
    uint32_t u = bits_of_f32(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)(((u >> 16) & 0x8000u) | 0x7fc0u);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static inline float f32_of_lowp(cudnnDataType_t dt, uint16_t h)
{
    return dt == CUDNN_DATA_HALF ? (float)fd_f64_from_f16(h) : f32_of_bits((uint32_t)h << 16);
}

/* float -> lowp, round to nearest even (fd_f16_from_f64 of an exact float is one rounding). */
static inline uint16_t lowp_of_f32(cudnnDataType_t dt, float f)
{
    return dt == CUDNN_DATA_HALF ? fd_f16_from_f64((double)f) : bf16_of_f32(f);
}

/* The blended value, rounded to float: alpha * acc + beta * old in double (products exact). */
static inline float blend_f32(float acc, double alpha, double beta, const uint16_t *old,
                              cudnnDataType_t dt)
{
    double v = alpha * (double)acc;
    if (beta != 0.0)
        v += beta * (double)f32_of_lowp(dt, *old);
    return (float)v;
}

/* ---- run kernels: widen n elements (source step `step`), and blend-and-narrow a run ------- */

typedef void (*widen_fn)(cudnnDataType_t dt, float *dst, const uint16_t *src, int64_t n,
                         int64_t step);
typedef void (*narrow_fn)(cudnnDataType_t dt, uint16_t *dst, int64_t step, const float *src,
                          int64_t n, double alpha, double beta);

static void widen_base(cudnnDataType_t dt, float *dst, const uint16_t *src, int64_t n, int64_t step)
{
    for (int64_t i = 0; i < n; i++)
        dst[i] = f32_of_lowp(dt, src[i * step]);
}

static void narrow_base(cudnnDataType_t dt, uint16_t *dst, int64_t step, const float *src,
                        int64_t n, double alpha, double beta)
{
    for (int64_t i = 0; i < n; i++)
        dst[i * step] = lowp_of_f32(dt, blend_f32(src[i], alpha, beta, &dst[i * step], dt));
}

#if LP_X86
__attribute__((target("avx512f")))
static void widen_avx512(cudnnDataType_t dt, float *dst, const uint16_t *src, int64_t n,
                         int64_t step)
{
    int64_t i = 0;
    if (step == 1) {
        if (dt == CUDNN_DATA_HALF)
            for (; i + 16 <= n; i += 16)
                _mm512_storeu_ps(dst + i,
                                 _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(src + i))));
        else
            for (; i + 16 <= n; i += 16) {
                __m512i u = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(src + i)));
                _mm512_storeu_si512(dst + i, _mm512_slli_epi32(u, 16));
            }
    }
    widen_base(dt, dst + i, src + i * step, n - i, step);
}

/* The low and high 8 floats of a vector. */
__attribute__((target("avx512f")))
static inline __m256 lo8_avx512(__m512 v)
{
    return _mm512_castps512_ps256(v);
}
__attribute__((target("avx512f")))
static inline __m256 hi8_avx512(__m512 v)
{
    return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
}

/* 16 blended floats at src (old values at dst when beta != 0), before rounding to lowp. */
__attribute__((target("avx512f")))
static inline __m512 blend16_avx512(cudnnDataType_t dt, const uint16_t *dst, const float *src,
                                    double alpha, double beta)
{
    __m512 acc = _mm512_loadu_ps(src);
    if (alpha == 1.0 && beta == 0.0)
        return acc;
    const __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
    __m512d lo = _mm512_mul_pd(va, _mm512_cvtps_pd(lo8_avx512(acc)));
    __m512d hi = _mm512_mul_pd(va, _mm512_cvtps_pd(hi8_avx512(acc)));
    if (beta != 0.0) {
        __m256i o = _mm256_loadu_si256((const __m256i *)dst);
        __m512 old = dt == CUDNN_DATA_HALF
                         ? _mm512_cvtph_ps(o)
                         : _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(o), 16));
        lo = _mm512_add_pd(lo, _mm512_mul_pd(vb, _mm512_cvtps_pd(lo8_avx512(old))));
        hi = _mm512_add_pd(hi, _mm512_mul_pd(vb, _mm512_cvtps_pd(hi8_avx512(old))));
    }
    __m256 l = _mm512_cvtpd_ps(lo), h = _mm512_cvtpd_ps(hi);
    return _mm512_castpd_ps(
        _mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(l)), _mm256_castps_pd(h), 1));
}

__attribute__((target("avx512f")))
static void narrow_avx512(cudnnDataType_t dt, uint16_t *dst, int64_t step, const float *src,
                          int64_t n, double alpha, double beta)
{
    int64_t i = 0;
    if (step == 1)
        for (; i + 16 <= n; i += 16) {
            __m512 v = blend16_avx512(dt, dst + i, src + i, alpha, beta);
            __m256i r;
            if (dt == CUDNN_DATA_HALF) {
                r = _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            } else {
                __m512i u = _mm512_castps_si512(v);
                __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
                __m512i rne = _mm512_srli_epi32(
                    _mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff))), 16);
                __m512i mag = _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff));
                __mmask16 nan = _mm512_cmpgt_epu32_mask(mag, _mm512_set1_epi32(0x7f800000));
                __m512i qnan = _mm512_or_si512(
                    _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x8000)),
                    _mm512_set1_epi32(0x7fc0));
                r = _mm512_cvtepi32_epi16(_mm512_mask_blend_epi32(nan, rne, qnan));
            }
            _mm256_storeu_si256((__m256i *)(dst + i), r);
        }
    narrow_base(dt, dst + i * step, step, src + i, n - i, alpha, beta);
}

__attribute__((target("avx2,f16c")))
static void widen_avx2(cudnnDataType_t dt, float *dst, const uint16_t *src, int64_t n,
                       int64_t step)
{
    int64_t i = 0;
    if (step == 1) {
        if (dt == CUDNN_DATA_HALF)
            for (; i + 8 <= n; i += 8)
                _mm256_storeu_ps(dst + i,
                                 _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
        else
            for (; i + 8 <= n; i += 8) {
                __m256i u = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(src + i)));
                _mm256_storeu_si256((__m256i *)(dst + i), _mm256_slli_epi32(u, 16));
            }
    }
    widen_base(dt, dst + i, src + i * step, n - i, step);
}

__attribute__((target("avx2,f16c")))
static inline __m256 blend8_avx2(cudnnDataType_t dt, const uint16_t *dst, const float *src,
                                 double alpha, double beta)
{
    __m256 acc = _mm256_loadu_ps(src);
    if (alpha == 1.0 && beta == 0.0)
        return acc;
    const __m256d va = _mm256_set1_pd(alpha), vb = _mm256_set1_pd(beta);
    __m256d lo = _mm256_mul_pd(va, _mm256_cvtps_pd(_mm256_castps256_ps128(acc)));
    __m256d hi = _mm256_mul_pd(va, _mm256_cvtps_pd(_mm256_extractf128_ps(acc, 1)));
    if (beta != 0.0) {
        __m128i o = _mm_loadu_si128((const __m128i *)dst);
        __m256 old = dt == CUDNN_DATA_HALF
                         ? _mm256_cvtph_ps(o)
                         : _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(o), 16));
        lo = _mm256_add_pd(lo, _mm256_mul_pd(vb, _mm256_cvtps_pd(_mm256_castps256_ps128(old))));
        hi = _mm256_add_pd(hi, _mm256_mul_pd(vb, _mm256_cvtps_pd(_mm256_extractf128_ps(old, 1))));
    }
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)), _mm256_cvtpd_ps(hi),
                                1);
}

__attribute__((target("avx2,f16c")))
static void narrow_avx2(cudnnDataType_t dt, uint16_t *dst, int64_t step, const float *src,
                        int64_t n, double alpha, double beta)
{
    int64_t i = 0;
    if (step == 1)
        for (; i + 8 <= n; i += 8) {
            __m256 v = blend8_avx2(dt, dst + i, src + i, alpha, beta);
            __m128i r;
            if (dt == CUDNN_DATA_HALF) {
                r = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            } else {
                __m256i u = _mm256_castps_si256(v);
                __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
                __m256i rne = _mm256_srli_epi32(
                    _mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff))), 16);
                __m256i mag = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff));
                /* signed compare is right here: both sides are non-negative as int32 */
                __m256i nan = _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(0x7f800000));
                __m256i qnan = _mm256_or_si256(
                    _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x8000)),
                    _mm256_set1_epi32(0x7fc0));
                __m256i w = _mm256_blendv_epi8(rne, qnan, nan);
                /* 8 values below 2^16 -> 8 uint16: pack within lanes, then gather the halves */
                r = _mm256_castsi256_si128(
                    _mm256_permute4x64_epi64(_mm256_packus_epi32(w, w), 0x08));
            }
            _mm_storeu_si128((__m128i *)(dst + i), r);
        }
    narrow_base(dt, dst + i * step, step, src + i, n - i, alpha, beta);
}
#endif

typedef struct {
    widen_fn widen;
    narrow_fn narrow;
} lp_isa_t;

/* FREEDNN_CPU_ISA=avx512|avx2|generic caps the path, as for the other cpu kernels. */
static lp_isa_t pick_isa(void)
{
    lp_isa_t isa = {widen_base, narrow_base};
    const char *cap = getenv("FREEDNN_CPU_ISA");
    int limit = !cap ? 2 : strcmp(cap, "generic") == 0 ? 0 : strcmp(cap, "avx2") == 0 ? 1 : 2;
#if LP_X86
    __builtin_cpu_init();
    if (limit >= 2 && __builtin_cpu_supports("avx512f")) {
        isa.widen = widen_avx512, isa.narrow = narrow_avx512;
    } else if (limit >= 1 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c")) {
        isa.widen = widen_avx2, isa.narrow = narrow_avx2;
    }
#else
    (void)limit;
#endif
    return isa;
}

/* ---- strided tensors and their packed FLOAT copies ---------------------------------------- */

/* One tensor of the problem (x, w or y) as extents and element strides, outermost first. */
typedef struct {
    int64_t ext[LP_DIMS], str[LP_DIMS];
} lp_tensor_t;

static void tensor_of(const fd_conv_problem_t *p, int which, lp_tensor_t *t)
{
    const int64_t *sp = which == 0 ? p->in : p->out;
    const int64_t *s = which == 0 ? p->xs : which == 1 ? p->ws : p->ys;
    t->ext[0] = which == 1 ? p->k : p->n;
    t->ext[1] = which == 0 ? p->c : which == 1 ? p->c / p->groups : p->k;
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++)
        t->ext[2 + d] = which == 1 ? p->flt[d] : sp[d];
    memcpy(t->str, s, sizeof t->str);
}

static int64_t tensor_count(const lp_tensor_t *t)
{
    int64_t n = 1;
    for (int d = 0; d < LP_DIMS; d++)
        n *= t->ext[d];
    return n;
}

/* Packed strides in t's own dimension order (largest stride outermost; ties keep the
 * descriptor's order), so the FLOAT row sees the caller's layout without its gaps. */
static void packed_strides(const lp_tensor_t *t, int64_t *packed)
{
    int order[LP_DIMS];
    for (int d = 0; d < LP_DIMS; d++)
        order[d] = d;
    for (int i = 1; i < LP_DIMS; i++) /* stable insertion sort, stride descending */
        for (int j = i; j > 0 && t->str[order[j]] > t->str[order[j - 1]]; j--) {
            int tmp = order[j];
            order[j] = order[j - 1], order[j - 1] = tmp;
        }
    int64_t acc = 1;
    for (int i = LP_DIMS - 1; i >= 0; i--) {
        packed[order[i]] = acc;
        acc *= t->ext[order[i]];
    }
}

/* A copy between a strided tensor (a) and its packed image (b) as nested loops: dims of
 * extent 1 dropped, innermost first, neighbours merged where both sides are contiguous. */
typedef struct {
    int nd;
    int64_t ext[LP_DIMS], sa[LP_DIMS], sb[LP_DIMS];
} lp_walk_t;

static void walk_make(const lp_tensor_t *t, const int64_t *packed, lp_walk_t *w)
{
    int order[LP_DIMS], n = 0;
    for (int d = 0; d < LP_DIMS; d++)
        if (t->ext[d] > 1)
            order[n++] = d;
    for (int i = 1; i < n; i++) /* innermost (smallest packed stride) first */
        for (int j = i; j > 0 && packed[order[j]] < packed[order[j - 1]]; j--) {
            int tmp = order[j];
            order[j] = order[j - 1], order[j - 1] = tmp;
        }
    w->nd = 0;
    for (int i = 0; i < n; i++) {
        int d = order[i];
        if (w->nd > 0) {
            int q = w->nd - 1;
            if (t->str[d] == w->sa[q] * w->ext[q] && packed[d] == w->sb[q] * w->ext[q]) {
                w->ext[q] *= t->ext[d];
                continue;
            }
        }
        w->ext[w->nd] = t->ext[d], w->sa[w->nd] = t->str[d], w->sb[w->nd] = packed[d];
        w->nd++;
    }
    if (w->nd == 0) { /* one element */
        w->nd = 1, w->ext[0] = 1, w->sa[0] = 1, w->sb[0] = 1;
    }
}

/* Calls the inner kernel once per innermost run: a (strided) and b (packed) offsets. */
#define LP_WALK(w, OA, OB, BODY)                                                               \
    do {                                                                                       \
        int64_t idx_[LP_DIMS] = {0};                                                           \
        int64_t OA = 0, OB = 0;                                                                \
        for (;;) {                                                                             \
            BODY;                                                                              \
            int q_ = 1;                                                                        \
            for (; q_ < (w)->nd; q_++) {                                                       \
                OA += (w)->sa[q_], OB += (w)->sb[q_];                                          \
                if (++idx_[q_] < (w)->ext[q_])                                                 \
                    break;                                                                     \
                OA -= (w)->sa[q_] * (w)->ext[q_], OB -= (w)->sb[q_] * (w)->ext[q_];            \
                idx_[q_] = 0;                                                                  \
            }                                                                                  \
            if (q_ >= (w)->nd)                                                                 \
                break;                                                                         \
        }                                                                                      \
    } while (0)

static void widen_tensor(const lp_isa_t *isa, cudnnDataType_t dt, const lp_tensor_t *t,
                         const int64_t *packed, float *dst, const uint16_t *src)
{
    lp_walk_t w;
    walk_make(t, packed, &w);
    LP_WALK(&w, oa, ob, isa->widen(dt, dst + ob, src + oa, w.ext[0], w.sa[0]));
}

static void narrow_tensor(const lp_isa_t *isa, cudnnDataType_t dt, const lp_tensor_t *t,
                          const int64_t *packed, uint16_t *dst, const float *src, double alpha,
                          double beta)
{
    lp_walk_t w;
    walk_make(t, packed, &w);
    LP_WALK(&w, oa, ob, isa->narrow(dt, dst + oa, w.sa[0], src + ob, w.ext[0], alpha, beta));
}

/* ---- the FLOAT problem and its row -------------------------------------------------------- */

typedef struct {
    fd_conv_problem_t p32;         /* the problem on the packed FLOAT copies */
    lp_tensor_t t[3];              /* x, w, y as the caller gave them */
    int64_t packed[3][LP_DIMS];    /* their copies' strides */
    size_t off[3], inner_off;      /* byte offsets in the workspace */
    const fd_conv_impl_t *inner;   /* the FLOAT row */
    size_t inner_ws, total_ws;
} lp_plan_t;

static size_t round_up(size_t v)
{
    return (v + LP_ALIGN - 1) / LP_ALIGN * LP_ALIGN;
}

/* The first cpu row that serves `algo` for p32, as dispatch orders them (no logging). */
static const fd_conv_impl_t *float_row(const fd_conv_problem_t *p32, int algo, char *why,
                                       size_t why_size)
{
    size_t used = 0;
    if (why_size)
        why[0] = '\0';
    for (int i = 0; i < fd_conv_impl_count; i++) {
        const fd_conv_impl_t *impl = &fd_conv_impls[i];
        if (impl->backend != FD_BACKEND_CPU || impl->dir != p32->dir ||
            !(impl->algo_mask & (1u << algo)))
            continue;
        char reason[256] = "";
        if (impl->applicable(p32, reason, sizeof reason))
            return impl;
        if (used < why_size) {
            int n = snprintf(why + used, why_size - used, "%s%s: %s", used ? "; " : "",
                             impl->name, reason);
            used += n > 0 ? (size_t)n : 0;
        }
    }
    return NULL;
}

/* 1 with *pl filled when a FLOAT row can compute p; else 0 and the reason. */
static int plan_make(const fd_conv_problem_t *p, int algo, lp_plan_t *pl, char *why,
                     size_t why_size)
{
    if (p->xdt != CUDNN_DATA_HALF && p->xdt != CUDNN_DATA_BFLOAT16) {
        snprintf(why, why_size, "%s data; this row is HALF / BFLOAT16", fd_dtype_name(p->xdt));
        return 0;
    }
    if (p->wdt != p->xdt || p->ydt != p->xdt) {
        snprintf(why, why_size, "mixed data types");
        return 0;
    }
    for (int d = 0; d < LP_DIMS; d++)
        if (p->xs[d] < 0 || p->ys[d] < 0 || p->ws[d] < 0) {
            snprintf(why, why_size, "negative strides");
            return 0;
        }
    pl->p32 = *p;
    pl->p32.xdt = pl->p32.wdt = pl->p32.ydt = pl->p32.compute = CUDNN_DATA_FLOAT;
    pl->p32.math = CUDNN_DEFAULT_MATH;
    size_t off = 0;
    for (int i = 0; i < 3; i++) {
        tensor_of(p, i, &pl->t[i]);
        packed_strides(&pl->t[i], pl->packed[i]);
        pl->off[i] = off;
        off += round_up((size_t)tensor_count(&pl->t[i]) * sizeof(float));
    }
    memcpy(pl->p32.xs, pl->packed[0], sizeof pl->p32.xs);
    memcpy(pl->p32.ws, pl->packed[1], sizeof pl->p32.ws);
    memcpy(pl->p32.ys, pl->packed[2], sizeof pl->p32.ys);
    char reason[512];
    pl->inner = float_row(&pl->p32, algo, reason, sizeof reason);
    if (pl->inner == NULL) {
        snprintf(why, why_size, "no cpu FLOAT row takes the FLOAT copy (%s)",
                 reason[0] ? reason : "none serves this algorithm");
        return 0;
    }
    pl->inner_off = off;
    pl->inner_ws = pl->inner->workspace(&pl->p32);
    pl->total_ws = off + pl->inner_ws;
    return 1;
}

static int lowp_applicable(const fd_conv_problem_t *p, int algo, char *why, size_t why_size)
{
    lp_plan_t pl;
    return plan_make(p, algo, &pl, why, why_size);
}

static size_t lowp_workspace(const fd_conv_problem_t *p, int algo)
{
    lp_plan_t pl;
    char why[512];
    return plan_make(p, algo, &pl, why, sizeof why) ? pl.total_ws : 0;
}

static cudnnStatus_t lowp_run(const fd_conv_problem_t *p, const fd_conv_args_t *a, int algo,
                              const char *name)
{
    lp_plan_t pl;
    char why[512];
    FD_CHECK(plan_make(p, algo, &pl, why, sizeof why), CUDNN_STATUS_INTERNAL_ERROR,
             "%s was chosen but cannot run: %s", name, why);
    FD_CHECK(a->workspace_size >= pl.total_ws && (pl.total_ws == 0 || a->workspace != NULL),
             CUDNN_STATUS_BAD_PARAM, "%s needs %zu bytes of workspace, got %zu", name,
             pl.total_ws, a->workspace_size);
    if (fd_env_flag("FREEDNN_LOG_DISPATCH"))
        fd_log_info("dispatch: %s runs %s on FLOAT copies", name, pl.inner->name);
    const lp_isa_t isa = pick_isa();
    char *ws = a->workspace;
    float *buf[3] = {(float *)(ws + pl.off[0]), (float *)(ws + pl.off[1]),
                     (float *)(ws + pl.off[2])};
    /* which of x, w, y is the output: fwd y, bwd data dx, bwd filter dw */
    const int out = p->dir == FD_CONV_FWD ? 2 : p->dir == FD_CONV_BWD_DATA ? 0 : 1;
    const void *in_ptr[3] = {a->x, a->w, a->y};
    for (int i = 0; i < 3; i++)
        if (i != out)
            widen_tensor(&isa, p->xdt, &pl.t[i], pl.packed[i], buf[i], in_ptr[i]);
    fd_conv_args_t a32 = *a;
    a32.x = out == 0 ? NULL : buf[0];
    a32.w = out == 1 ? NULL : buf[1];
    a32.y = out == 2 ? NULL : buf[2];
    a32.out = buf[out];
    a32.alpha = 1.0, a32.beta = 0.0;
    a32.workspace = pl.inner_ws ? ws + pl.inner_off : NULL;
    a32.workspace_size = pl.inner_ws;
    FD_TRY(pl.inner->run(&pl.p32, &a32));
    narrow_tensor(&isa, p->xdt, &pl.t[out], pl.packed[out], a->out, buf[out], a->alpha, a->beta);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- the rows ------------------------------------------------------------------------------ */

#define LP_ROW(name, algo)                                                                     \
    int name##_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)              \
    {                                                                                          \
        return lowp_applicable(p, (algo), why, why_size);                                      \
    }                                                                                          \
    size_t name##_workspace(const fd_conv_problem_t *p)                                        \
    {                                                                                          \
        return lowp_workspace(p, (algo));                                                      \
    }                                                                                          \
    cudnnStatus_t name##_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)              \
    {                                                                                          \
        return lowp_run(p, a, (algo), #name);                                                  \
    }

LP_ROW(fd_conv_fwd_gemm_lowp, CUDNN_CONVOLUTION_FWD_ALGO_GEMM)
LP_ROW(fd_conv_fwd_winograd_lowp, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD)
LP_ROW(fd_conv_fwd_direct_lowp, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT)
LP_ROW(fd_conv_bwd_data_algo1_lowp, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1)
LP_ROW(fd_conv_bwd_data_winograd_lowp, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD)
LP_ROW(fd_conv_bwd_filter_algo1_lowp, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1)
