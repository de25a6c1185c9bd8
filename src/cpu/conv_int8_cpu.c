/* SPDX-License-Identifier: MIT */
/*
 * conv_int8_cpu.c - INT8 forward convolution on the cpu (fd_conv_fwd_int8_vnni), serving
 * IMPLICIT_PRECOMP_GEMM for INT8_CONFIG (y INT8) and INT8_EXT_CONFIG (y FLOAT): NHWC x with
 * unit C stride, KRSC filter, y with unit K stride, any groups whose C / groups is a multiple
 * of 4, padding, stride, dilation, 1 to 3 spatial dims, both modes.
 *
 * GEMM mapping (per group): M = output pixels along W, N = K / groups (16 per vector), reduction
 * T*R*S*C/groups in steps of 4 channels. The workspace holds the precomputation: x copied with
 * its padding made explicit (so the inner loop has no bounds checks), the filter packed as
 * [group][16 K][tap][C/4][16][4] bytes, and per output channel 128 * sum(w).
 * Paths, chosen at run time (FREEDNN_CPU_ISA=avx512|avx2|generic caps them, as for the direct
 * row): AVX512-VNNI vpdpbusd takes u8 x s8, so x is stored offset by 128 (x ^ 0x80, padding
 * 0x80 = x 0) and 128 * sum(w) is subtracted, all modulo 2^32; tile 6 pixels x 64 channels.
 * AVX2 sign-extends to 16 bits and uses vpmaddwd (vpmaddubsw would saturate), 2 pixels x 16
 * channels. Generic: scalar. 128 * sum(w) comes from vpdpbusd with all-ones bytes.
 * Every sum wraps in 32 bits like the ref's; the epilogue is the ref's float arithmetic in the
 * same order (no FMA: the build is ISO C, -ffp-contract=off), so the bits equal the ref's for
 * any thread count (each output is computed by one thread).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define I8_X86 1
#else
#define I8_X86 0
#endif

#include "../core/conv.h"

#define I8_PAR_MACS (1 << 22) /* smaller problems run on one thread */
#define I8_MR 6               /* pixels per AVX-512 tile */
#define I8_NR 4               /* 16-channel blocks per AVX-512 tile */
#define I8_ALIGN 64

typedef enum { I8_GENERIC = 0, I8_AVX2 = 1, I8_VNNI = 2 } i8_isa_t;

static i8_isa_t i8_isa_pick(void)
{
#if I8_X86
    const char *cap = getenv("FREEDNN_CPU_ISA");
    int limit = !cap ? 2 : strcmp(cap, "generic") == 0 ? 0 : strcmp(cap, "avx2") == 0 ? 1 : 2;
    __builtin_cpu_init();
    if (limit >= 2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni"))
        return I8_VNNI;
    if (limit >= 1 && __builtin_cpu_supports("avx2"))
        return I8_AVX2;
#endif
    return I8_GENERIC;
}

static i8_isa_t i8_isa(void)
{
    static int isa = -1; /* a benign race: every thread stores the same value */
    if (isa < 0)
        isa = (int)i8_isa_pick();
    return (i8_isa_t)isa;
}

/* ---- the plan ------------------------------------------------------------------------------ */

typedef struct {
    int64_t cg, kg, nkb, c4, taps;
    int64_t pd[FD_CONV_SPATIAL_MAX]; /* padded input extents */
    size_t xp_bytes, wp_bytes, corr_bytes;
} i8_plan_t;

static size_t round_up(size_t v)
{
    return (v + I8_ALIGN - 1) / I8_ALIGN * I8_ALIGN;
}

static void i8_plan(const fd_conv_problem_t *p, i8_plan_t *q)
{
    q->cg = p->c / p->groups;
    q->kg = p->k / p->groups;
    q->nkb = (q->kg + 15) / 16;
    q->c4 = q->cg / 4;
    q->taps = p->flt[0] * p->flt[1] * p->flt[2];
    int64_t pix = 1;
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++) {
        q->pd[d] = p->in[d] + 2 * p->pad[d];
        pix *= q->pd[d];
    }
    q->xp_bytes = round_up((size_t)(p->n * pix * p->c));
    q->wp_bytes = round_up((size_t)(p->groups * q->nkb * q->taps * q->c4 * 64));
    q->corr_bytes = round_up((size_t)(p->groups * q->nkb * 16) * sizeof(int32_t));
}

int fd_conv_fwd_int8_vnni_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    if (!fd_conv_is_int8(p) || p->xdt != CUDNN_DATA_INT8 || p->wdt != CUDNN_DATA_INT8 ||
        (p->ydt != CUDNN_DATA_INT8 && p->ydt != CUDNN_DATA_FLOAT)) {
        snprintf(why, why_size, "x/w/y are %s/%s/%s; this row takes INT8/INT8/INT8 or FLOAT",
                 fd_dtype_name(p->xdt), fd_dtype_name(p->wdt), fd_dtype_name(p->ydt));
        return 0;
    }
    if (p->xvect != 1 || p->wvect != 1 || p->yvect != 1 || p->xs[1] != 1 || p->ws[1] != 1 ||
        p->ys[1] != 1) {
        snprintf(why, why_size, "needs unit C strides in x, w (KRSC) and y (NHWC)");
        return 0;
    }
    if ((p->c / p->groups) % 4 != 0) {
        snprintf(why, why_size, "C / groups = %lld, not a multiple of 4",
                 (long long)(p->c / p->groups));
        return 0;
    }
    return 1;
}

size_t fd_conv_fwd_int8_vnni_workspace(const fd_conv_problem_t *p)
{
    i8_plan_t q;
    i8_plan(p, &q);
    return q.xp_bytes + q.wp_bytes + q.corr_bytes;
}

/* x -> [n][padded spatial][C], each byte XOR `offset`; padding is the value 0 (byte `offset`). */
static void i8_pack_x(const fd_conv_problem_t *p, const i8_plan_t *q, const int8_t *x, uint8_t *xp,
                      uint8_t offset, int par)
{
    const int64_t rows = p->n * q->pd[0] * q->pd[1], row_bytes = q->pd[2] * p->c;
#pragma omp parallel for schedule(static) if (par)
    for (int64_t row = 0; row < rows; row++) {
        const int64_t n = row / (q->pd[0] * q->pd[1]), i0 = row / q->pd[1] % q->pd[0] - p->pad[0],
                      i1 = row % q->pd[1] - p->pad[1];
        uint8_t *dst = xp + row * row_bytes;
        memset(dst, offset, (size_t)row_bytes);
        if (i0 < 0 || i0 >= p->in[0] || i1 < 0 || i1 >= p->in[1])
            continue;
        const uint32_t flip = offset * 0x01010101u;
        for (int64_t i2 = 0; i2 < p->in[2]; i2++) { /* C % 4 == 0: whole 4-byte words */
            const int8_t *src = x + n * p->xs[0] + i0 * p->xs[2] + i1 * p->xs[3] + i2 * p->xs[4];
            uint8_t *d = dst + (i2 + p->pad[2]) * p->c;
            for (int64_t c = 0; c < p->c; c += 4) {
                uint32_t v;
                memcpy(&v, src + c, 4);
                v ^= flip;
                memcpy(d + c, &v, 4);
            }
        }
    }
}

/* w -> [g][kb][tap][c4][16][4] (zeros past K / groups): 4-byte copies, C / groups % 4 == 0. */
static void i8_pack_w(const fd_conv_problem_t *p, const i8_plan_t *q, const int8_t *w, int8_t *wp, int par)
{
    const int64_t blocks = p->groups * q->nkb;
#pragma omp parallel for schedule(static) if (par)
    for (int64_t b = 0; b < blocks; b++) {
        const int64_t g = b / q->nkb, kb = b % q->nkb;
        int8_t *dst = wp + b * q->taps * q->c4 * 64;
        for (int lane = 0; lane < 16; lane++) {
            const int64_t kk = kb * 16 + lane;
            int64_t tap = 0;
            for (int64_t t0 = 0; t0 < p->flt[0]; t0++)
            for (int64_t t1 = 0; t1 < p->flt[1]; t1++)
            for (int64_t t2 = 0; t2 < p->flt[2]; t2++, tap++) {
                const int64_t m0 = p->cross_correlation ? t0 : p->flt[0] - 1 - t0;
                const int64_t m1 = p->cross_correlation ? t1 : p->flt[1] - 1 - t1;
                const int64_t m2 = p->cross_correlation ? t2 : p->flt[2] - 1 - t2;
                int8_t *d = dst + tap * q->c4 * 64 + lane * 4;
                if (kk >= q->kg) {
                    for (int64_t c4 = 0; c4 < q->c4; c4++)
                        memset(d + c4 * 64, 0, 4);
                    continue;
                }
                const int8_t *src = w + (g * q->kg + kk) * p->ws[0] + m0 * p->ws[2] + m1 * p->ws[3] +
                                    m2 * p->ws[4];
                for (int64_t c4 = 0; c4 < q->c4; c4++)
                    memcpy(d + c4 * 64, src + c4 * 4, 4);
            }
        }
    }
}

/* One work item: output pixels o2 in [o2_0, o2_1) of row (n, o0, o1), group g, channel blocks
 * [kb0, kb0 + nb). */
typedef struct {
    const fd_conv_problem_t *p;
    const i8_plan_t *q;
    const uint8_t *xp;
    const int8_t *wp;
    const int32_t *corr;
    void *y;
    float alpha, beta;
} i8_ctx_t;

static inline int64_t i8_x_base(const i8_ctx_t *c, int64_t n, int64_t o0, int64_t o1)
{
    const fd_conv_problem_t *p = c->p;
    const i8_plan_t *q = c->q;
    return (((n * q->pd[0] + o0 * p->stride[0]) * q->pd[1] + o1 * p->stride[1]) * q->pd[2]) * p->c;
}

static inline int64_t i8_tap_off(const i8_ctx_t *c, int64_t t0, int64_t t1, int64_t t2)
{
    const fd_conv_problem_t *p = c->p;
    const i8_plan_t *q = c->q;
    return ((t0 * p->dil[0] * q->pd[1] + t1 * p->dil[1]) * q->pd[2] + t2 * p->dil[2]) * p->c;
}

static inline void *i8_y_at(const i8_ctx_t *c, int64_t n, int64_t o0, int64_t o1, int64_t o2, int64_t k)
{
    const fd_conv_problem_t *p = c->p;
    int64_t off = n * p->ys[0] + o0 * p->ys[2] + o1 * p->ys[3] + o2 * p->ys[4] + k;
    return p->ydt == CUDNN_DATA_FLOAT ? (void *)((float *)c->y + off) : (void *)((int8_t *)c->y + off);
}

/* ---- generic ------------------------------------------------------------------------------- */

static void i8_row_generic(const i8_ctx_t *c, int64_t n, int64_t o0, int64_t o1, int64_t g)
{
    const fd_conv_problem_t *p = c->p;
    const i8_plan_t *q = c->q;
    const int64_t xb = i8_x_base(c, n, o0, o1) + g * q->cg;
    for (int64_t o2 = 0; o2 < p->out[2]; o2++)
    for (int64_t kk = 0; kk < q->kg; kk++) {
        const int64_t kb = kk / 16, lane = kk % 16;
        const int8_t *wk = c->wp + (g * q->nkb + kb) * q->taps * q->c4 * 64 + lane * 4;
        uint32_t acc = 0;
        int64_t tap = 0;
        for (int64_t t0 = 0; t0 < p->flt[0]; t0++)
        for (int64_t t1 = 0; t1 < p->flt[1]; t1++)
        for (int64_t t2 = 0; t2 < p->flt[2]; t2++, tap++) {
            const int8_t *xs = (const int8_t *)c->xp + xb + o2 * p->stride[2] * p->c + i8_tap_off(c, t0, t1, t2);
            const int8_t *ws = wk + tap * q->c4 * 64;
            for (int64_t ch = 0; ch < q->cg; ch++)
                acc += (uint32_t)((int32_t)xs[ch] * ws[ch / 4 * 64 + ch % 4]);
        }
        int64_t yo = n * p->ys[0] + o0 * p->ys[2] + o1 * p->ys[3] + o2 * p->ys[4] + g * q->kg + kk;
        int32_t s = acc <= (uint32_t)INT32_MAX ? (int32_t)acc : -(int32_t)(~acc) - 1;
        fd_conv_int8_store(p->ydt, c->y, yo, s, c->alpha, c->beta);
    }
}

#if I8_X86
/* ---- AVX2: vpmaddwd on 16-bit lanes ----------------------------------------------------------- */

/* y[0..7] = epilogue(acc), the ref's fd_conv_int8_store 8 lanes at a time (all 8 valid). */
static inline __attribute__((always_inline, target("avx2"))) void
i8_store256(__m256i acc, cudnnDataType_t ydt, void *y, float alpha, float beta)
{
    __m256 v = _mm256_mul_ps(_mm256_set1_ps(alpha), _mm256_cvtepi32_ps(acc));
    if (beta != 0.0f) {
        __m256 old;
        if (ydt == CUDNN_DATA_FLOAT) {
            old = _mm256_loadu_ps((const float *)y);
        } else {
            int64_t b8;
            memcpy(&b8, y, 8);
            old = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128(b8)));
        }
        v = _mm256_add_ps(v, _mm256_mul_ps(_mm256_set1_ps(beta), old));
    }
    if (ydt == CUDNN_DATA_FLOAT) {
        _mm256_storeu_ps((float *)y, v);
        return;
    }
    const __m256 ord = _mm256_cmp_ps(v, v, _CMP_ORD_Q); /* NaN -> 0, as the ref */
    v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(-128.0f)), _mm256_set1_ps(127.0f));
    __m256i r = _mm256_and_si256(_mm256_cvtps_epi32(v), _mm256_castps_si256(ord));
    int32_t t[8];
    _mm256_storeu_si256((__m256i *)t, r);
    for (int l = 0; l < 8; l++)
        ((int8_t *)y)[l] = (int8_t)t[l];
}

/* Up to 2 pixels x 16 channels; lanes hold (k, channel pair) sums, folded at the end. */
static inline __attribute__((always_inline, target("avx2"))) void
i8_tile_avx2(const i8_ctx_t *c, int64_t n, int64_t o0, int64_t o1, int64_t g, int64_t o2, int mr,
             int64_t kb)
{
    const fd_conv_problem_t *p = c->p;
    const i8_plan_t *q = c->q;
    const int64_t xb = i8_x_base(c, n, o0, o1) + g * q->cg + o2 * p->stride[2] * p->c;
    const int64_t xstep = p->stride[2] * p->c;
    const int8_t *wb = c->wp + (g * q->nkb + kb) * q->taps * q->c4 * 64;
    __m256i acc[2][4];
#pragma GCC unroll 2
    for (int m = 0; m < 2; m++)
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++)
            acc[m][j] = _mm256_setzero_si256();
    int64_t tap = 0;
    for (int64_t t0 = 0; t0 < p->flt[0]; t0++)
    for (int64_t t1 = 0; t1 < p->flt[1]; t1++)
    for (int64_t t2 = 0; t2 < p->flt[2]; t2++, tap++) {
        const uint8_t *xs = c->xp + xb + i8_tap_off(c, t0, t1, t2);
        const int8_t *ws = wb + tap * q->c4 * 64;
        for (int64_t c4 = 0; c4 < q->c4; c4++) {
            __m256i wv[4];
#pragma GCC unroll 4
            for (int j = 0; j < 4; j++)
                wv[j] = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(ws + c4 * 64 + j * 16)));
#pragma GCC unroll 2
            for (int m = 0; m < mr; m++) {
                int32_t x4;
                memcpy(&x4, xs + m * xstep + c4 * 4, 4);
                __m256i xv = _mm256_cvtepi8_epi16(_mm_set1_epi32(x4)); /* x0 x1 x2 x3 repeated */
#pragma GCC unroll 4
                for (int j = 0; j < 4; j++)
                    acc[m][j] = _mm256_add_epi32(acc[m][j], _mm256_madd_epi16(wv[j], xv));
            }
        }
    }
    const int64_t kn = q->kg - kb * 16 < 16 ? q->kg - kb * 16 : 16;
    for (int m = 0; m < mr && kn == 16; m++) {
        /* hadd folds the pairs as k0 k1 k4 k5 | k2 k3 k6 k7; the permute puts them in order */
        for (int h = 0; h < 2; h++) {
            __m256i f = _mm256_permute4x64_epi64(_mm256_hadd_epi32(acc[m][2 * h], acc[m][2 * h + 1]), 0xD8);
            i8_store256(f, p->ydt, i8_y_at(c, n, o0, o1, o2 + m, g * q->kg + kb * 16 + 8 * h), c->alpha,
                        c->beta);
        }
    }
    for (int m = 0; m < mr && kn < 16; m++) {
        int32_t lanes[32];
        for (int j = 0; j < 4; j++)
            _mm256_storeu_si256((__m256i *)(lanes + 8 * j), acc[m][j]);
        for (int64_t l = 0; l < kn; l++) {
            uint32_t s = (uint32_t)lanes[2 * l] + (uint32_t)lanes[2 * l + 1];
            int32_t v = s <= (uint32_t)INT32_MAX ? (int32_t)s : -(int32_t)(~s) - 1;
            int64_t yo = n * p->ys[0] + o0 * p->ys[2] + o1 * p->ys[3] + (o2 + m) * p->ys[4] +
                         g * q->kg + kb * 16 + l;
            fd_conv_int8_store(p->ydt, c->y, yo, v, c->alpha, c->beta);
        }
    }
}

static __attribute__((target("avx2"))) void i8_tile_avx2_1(const i8_ctx_t *c, int64_t n, int64_t o0,
                                                           int64_t o1, int64_t g, int64_t o2, int64_t kb)
{
    i8_tile_avx2(c, n, o0, o1, g, o2, 1, kb);
}

static __attribute__((target("avx2"))) void i8_tile_avx2_2(const i8_ctx_t *c, int64_t n, int64_t o0,
                                                           int64_t o1, int64_t g, int64_t o2, int64_t kb)
{
    i8_tile_avx2(c, n, o0, o1, g, o2, 2, kb);
}

static void i8_row_avx2(const i8_ctx_t *c, int64_t n, int64_t o0, int64_t o1, int64_t g)
{
    const int64_t ow = c->p->out[2];
    for (int64_t kb = 0; kb < c->q->nkb; kb++) {
        int64_t o2 = 0;
        for (; o2 + 2 <= ow; o2 += 2)
            i8_tile_avx2_2(c, n, o0, o1, g, o2, kb);
        if (o2 < ow)
            i8_tile_avx2_1(c, n, o0, o1, g, o2, kb);
    }
}

/* ---- AVX512-VNNI ------------------------------------------------------------------------------- */

#define I8_VNNI_TARGET "avx512f,avx512bw,avx512vl,avx512vnni"

/* y[0..15 under mk] = epilogue(acc): the ref's fd_conv_int8_store, 16 lanes at a time. */
static inline __attribute__((always_inline, target(I8_VNNI_TARGET))) void
i8_store512(__m512i acc, __mmask16 mk, cudnnDataType_t ydt, void *y, float alpha, float beta)
{
    __m512 v = _mm512_mul_ps(_mm512_set1_ps(alpha), _mm512_cvtepi32_ps(acc));
    if (beta != 0.0f) {
        __m512 old = ydt == CUDNN_DATA_FLOAT
                         ? _mm512_maskz_loadu_ps(mk, y)
                         : _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(mk, y)));
        v = _mm512_add_ps(v, _mm512_mul_ps(_mm512_set1_ps(beta), old));
    }
    if (ydt == CUDNN_DATA_FLOAT) {
        _mm512_mask_storeu_ps(y, mk, v);
        return;
    }
    __mmask16 ord = _mm512_cmp_ps_mask(v, v, _CMP_ORD_Q); /* NaN -> 0, as the ref */
    v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(-128.0f)), _mm512_set1_ps(127.0f));
    __m512i r = _mm512_maskz_cvtps_epi32(ord, v); /* MXCSR rounding: nearest even */
    _mm_mask_storeu_epi8(y, mk, _mm512_cvtepi32_epi8(r));
}

/* mr pixels x nr 16-channel blocks starting at kb. */
static inline __attribute__((always_inline, target(I8_VNNI_TARGET))) void
i8_tile_vnni(const i8_ctx_t *c, int64_t n, int64_t o0, int64_t o1, int64_t g, int64_t o2, int mr,
             int64_t kb, int nr)
{
    const fd_conv_problem_t *p = c->p;
    const i8_plan_t *q = c->q;
    const int64_t xb = i8_x_base(c, n, o0, o1) + g * q->cg + o2 * p->stride[2] * p->c;
    const int64_t xstep = p->stride[2] * p->c, wkb = q->taps * q->c4 * 64;
    const int8_t *wb = c->wp + (g * q->nkb + kb) * wkb;
    __m512i acc[I8_MR][I8_NR];
#pragma GCC unroll 6
    for (int m = 0; m < I8_MR; m++)
#pragma GCC unroll 4
        for (int j = 0; j < I8_NR; j++)
            acc[m][j] = _mm512_setzero_si512();
    int64_t tap = 0;
    for (int64_t t0 = 0; t0 < p->flt[0]; t0++)
    for (int64_t t1 = 0; t1 < p->flt[1]; t1++)
    for (int64_t t2 = 0; t2 < p->flt[2]; t2++, tap++) {
        const uint8_t *xs = c->xp + xb + i8_tap_off(c, t0, t1, t2);
        const int8_t *ws = wb + tap * q->c4 * 64;
        for (int64_t c4 = 0; c4 < q->c4; c4++) {
            __m512i wv[I8_NR];
#pragma GCC unroll 4
            for (int j = 0; j < nr; j++)
                wv[j] = _mm512_loadu_si512((const void *)(ws + j * wkb + c4 * 64));
#pragma GCC unroll 6
            for (int m = 0; m < mr; m++) {
                int32_t x4;
                memcpy(&x4, xs + m * xstep + c4 * 4, 4);
                __m512i xv = _mm512_set1_epi32(x4);
#pragma GCC unroll 4
                for (int j = 0; j < nr; j++)
                    acc[m][j] = _mm512_dpbusd_epi32(acc[m][j], xv, wv[j]);
            }
        }
    }
    const float alpha = c->alpha, beta = c->beta;
#pragma GCC unroll 4
    for (int j = 0; j < nr; j++) {
        const int64_t k0 = (kb + j) * 16, kn = q->kg - k0 < 16 ? q->kg - k0 : 16;
        const __mmask16 mk = (__mmask16)((1u << kn) - 1u);
        const __m512i corr = _mm512_loadu_si512((const void *)(c->corr + (g * q->nkb + kb + j) * 16));
#pragma GCC unroll 6
        for (int m = 0; m < mr; m++)
            i8_store512(_mm512_sub_epi32(acc[m][j], corr), mk, p->ydt,
                        i8_y_at(c, n, o0, o1, o2 + m, g * q->kg + k0), alpha, beta);
    }
}

/* corr[block * 16 + lane] = 128 * sum of the lane's filter bytes, modulo 2^32: vpdpbusd with
 * all-ones u8 sums the 4 bytes of each lane. */
static __attribute__((target(I8_VNNI_TARGET))) void i8_corr_vnni(const fd_conv_problem_t *p,
                                                                   const i8_plan_t *q, const int8_t *wp,
                                                                   int32_t *corr)
{
    const int64_t blocks = p->groups * q->nkb, per = q->taps * q->c4;
    const __m512i ones = _mm512_set1_epi8(1);
    for (int64_t b = 0; b < blocks; b++) {
        __m512i s = _mm512_setzero_si512();
        for (int64_t i = 0; i < per; i++)
            s = _mm512_dpbusd_epi32(s, ones, _mm512_loadu_si512((const void *)(wp + (b * per + i) * 64)));
        _mm512_storeu_si512((void *)(corr + b * 16), _mm512_slli_epi32(s, 7));
    }
}

#define I8_TILE_FN(mr, nr)                                                                     \
    static __attribute__((target(I8_VNNI_TARGET))) void i8_tile_vnni_##mr##_##nr(             \
        const i8_ctx_t *c, int64_t n, int64_t o0, int64_t o1, int64_t g, int64_t o2, int64_t kb) \
    {                                                                                          \
        i8_tile_vnni(c, n, o0, o1, g, o2, mr, kb, nr);                                         \
    }
#define I8_TILE_ROW(mr) I8_TILE_FN(mr, 1) I8_TILE_FN(mr, 2) I8_TILE_FN(mr, 3) I8_TILE_FN(mr, 4)
I8_TILE_ROW(1)
I8_TILE_ROW(2)
I8_TILE_ROW(3)
I8_TILE_ROW(4)
I8_TILE_ROW(5)
I8_TILE_ROW(6)

typedef void (*i8_tile_fn)(const i8_ctx_t *, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);
#define I8_TILE_ENTRY(mr) {i8_tile_vnni_##mr##_1, i8_tile_vnni_##mr##_2, i8_tile_vnni_##mr##_3, i8_tile_vnni_##mr##_4}
static const i8_tile_fn i8_tiles[I8_MR][I8_NR] = {I8_TILE_ENTRY(1), I8_TILE_ENTRY(2), I8_TILE_ENTRY(3),
                                                   I8_TILE_ENTRY(4), I8_TILE_ENTRY(5), I8_TILE_ENTRY(6)};

/* Channel blocks [kb0, kb1) of one output row. */
static void i8_row_vnni(const i8_ctx_t *c, int64_t n, int64_t o0, int64_t o1, int64_t g, int64_t kb0,
                        int64_t kb1)
{
    /* as few tiles as 6-pixel tiles need, their widths balanced (14 = 5 + 5 + 4, not 6 + 6 + 2:
     * a narrow tile loads the same filter vectors for fewer products) */
    const int64_t ow = c->p->out[2], tiles = (ow + I8_MR - 1) / I8_MR;
    for (int64_t kb = kb0; kb < kb1; kb += I8_NR) {
        const int nr = (int)(kb1 - kb < I8_NR ? kb1 - kb : I8_NR);
        for (int64_t t = 0, o2 = 0; t < tiles; t++) {
            const int mr = (int)(ow / tiles + (t < ow % tiles));
            i8_tiles[mr - 1][nr - 1](c, n, o0, o1, g, o2, kb);
            o2 += mr;
        }
    }
}
#endif /* I8_X86 */

cudnnStatus_t fd_conv_fwd_int8_vnni_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    i8_plan_t q;
    i8_plan(p, &q);
    const i8_isa_t isa = i8_isa();
    uint8_t *ws = a->workspace;
    uint8_t *xp = ws;
    int8_t *wp = (int8_t *)(ws + q.xp_bytes);
    int32_t *corr = (int32_t *)(void *)(ws + q.xp_bytes + q.wp_bytes);
    const double macs = (double)p->n * p->k * p->out[0] * p->out[1] * p->out[2] * q.cg * q.taps;
    const int par = macs >= I8_PAR_MACS;
    i8_pack_x(p, &q, a->x, xp, isa == I8_VNNI ? 0x80 : 0x00, par);
    i8_pack_w(p, &q, a->w, wp, par);
#if I8_X86
    if (isa == I8_VNNI)
        i8_corr_vnni(p, &q, wp, corr);
#endif
    i8_ctx_t c = {p, &q, xp, wp, corr, a->out, (float)a->alpha, (float)a->beta};
    const int64_t rows = p->n * p->out[0] * p->out[1];
    /* work items: chunks of 4 channel blocks (the VNNI tile's width) x groups x rows, rows
     * fastest: consecutive items reuse one filter slab (taps * C/groups * 64 bytes) from L2 */
    const int64_t chunks = isa == I8_VNNI ? (q.nkb + I8_NR - 1) / I8_NR : 1;
    const int64_t items = rows * p->groups * chunks;
#pragma omp parallel for schedule(static) if (par)
    for (int64_t it = 0; it < items; it++) {
        const int64_t row = it % rows, g = it / rows % p->groups, ch = it / rows / p->groups;
        const int64_t n = row / (p->out[0] * p->out[1]), o0 = row / p->out[1] % p->out[0],
                      o1 = row % p->out[1];
#if I8_X86
        if (isa == I8_VNNI) {
            const int64_t kb0 = ch * I8_NR, kb1 = kb0 + I8_NR < q.nkb ? kb0 + I8_NR : q.nkb;
            i8_row_vnni(&c, n, o0, o1, g, kb0, kb1);
            continue;
        }
        if (isa == I8_AVX2) {
            i8_row_avx2(&c, n, o0, o1, g);
            continue;
        }
#endif
        (void)ch;
        i8_row_generic(&c, n, o0, o1, g);
    }
    return CUDNN_STATUS_SUCCESS;
}
