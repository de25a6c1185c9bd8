/* SPDX-License-Identifier: MIT */
/*
 * dropout_cpu.c - cpu dropout forward and backward (FD_OP_DROPOUT_FWD / _BWD cpu rows; the
 * states initialisation stays with the ref row).
 *
 * Decisions:
 * - The same mask as src/ref/dropout_ref.c, bit for bit (docs/dropout.md): element i of the
 *   canonical order is kept iff word i % 4 of Philox4x32-10(block i / 4, call; seed) is >= the
 *   threshold. Each 4-element block's counter is independent of the others, so the generator
 *   runs as a loop over the blocks of a chunk that the compiler vectorises (32x32->64-bit
 *   multiplies), and chunks of the canonical index range are split across threads.
 * - Values as the ref: keep ? x * scale (in double, rounded once) : +0, written through the
 *   memop.h block store; the reserve space gets the mask bytes (1 kept, 0 dropped).
 * - Strides: each tensor is walked in canonical order by its own cursor (x and y may have
 *   different dims of the same element count), in runs along the innermost dim after merging
 *   the dims that are contiguous in canonical order (a packed tensor is one run).
 * - Threads: units of FD_CPU_UNIT canonical elements (a multiple of 4); every element's value
 *   depends only on its index, so results do not depend on OMP_NUM_THREADS. No allocation, no
 *   workspace; in-place (y == x, identical dims and strides) works, since a chunk is read
 *   whole before it is written.
 * - FLOAT with x and y both packed NCHW-like (canonical order) or both packed channels-last, on
 *   AVX-512 (+BW, DQ, BMI2): Philox with explicit intrinsics, 16 blocks per vector, two vectors
 *   at a time, and the kept elements as mask registers (run_f32_packed, run_f32_nhwc below);
 *   the same mask bytes and outputs, bit for bit (x * scale in float equals the ref's double
 *   product rounded once: scale is a float for FLOAT). On AVX2 + FMA (no AVX-512, or
 *   FREEDNN_CPU_ISA=avx2) the same two cases with 8-lane vectors (dr_f32_avx2, dr2_nhwc_unit:
 *   Philox four blocks per vector in 64-bit lanes, rounds 1 - 3 partly scalar, the kept
 *   elements as all-ones dwords), the same bits again. FREEDNN_CPU_ISA=generic or a CPU with
 *   neither takes the generic path. Why the generic path was slow on NHWC (4x the NCHW time
 *   forward): the mask follows the canonical order, so its cursor walks each channel's
 *   positions with a stride of C elements, one cache line per element, a whole image's lines
 *   revisited per channel; the vector paths draw per channel and walk memory in order.
 *   Whole tiles of 64 channels on AVX-512 walk the positions 32 at a time with each channel's
 *   keep bits as a 32-bit word, 16 channels a register (dr_nhwc_full: one bit test a vector;
 *   the general walk's 64-bit words took two tests and a merge a vector, its tile arrays in
 *   memory). 2026-12-06, Intel VM, n8c64h112w112: in cache (n1c64h56w56, one thread, min of
 *   300) forward 0.136 -> 0.127 ms, backward 0.050 -> 0.042; from DRAM, two threads, forward
 *   2.81-3.14 -> 2.45-2.75 ms (five interleaved pairs). Streaming the mask rows and an L2
 *   prefetch of the unit's x during the draws were tried the same day: no change.
 * FLOAT, DOUBLE, HALF, BFLOAT16 (all the API takes); negative strides are declined (the API
 * rejects them anyway).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3,fp-contract=off")
#endif
#include "../core/dropout.h"
#include "memop.h"

#include <stdlib.h>

#define DR_BLOCKS (FD_CPU_BLK / 4) /* Philox blocks per chunk */
#ifndef DR_PF
#define DR_PF 1024 /* elements of x prefetched ahead by the AVX-512 forward */
#endif

/* ---- the generator, vectorised across blocks ------------------------------------------- */

/* keep[j] for the 4 * nb elements of blocks b0 .. b0 + nb - 1. */
FD_CPU_CLONES static void philox_keep(uint64_t seed, uint64_t call, uint64_t b0, int nb,
                                      uint64_t threshold, unsigned char *restrict keep)
{
    uint32_t o0[DR_BLOCKS], o1[DR_BLOCKS], o2[DR_BLOCKS], o3[DR_BLOCKS];
    const uint32_t c2i = (uint32_t)call, c3i = (uint32_t)(call >> 32);
    const uint32_t k0i = (uint32_t)seed, k1i = (uint32_t)(seed >> 32);
    /* the state words live in 64-bit lanes (upper halves zero) so that the products are
     * single 32x32->64 vector multiplies without widening shuffles */
    const uint64_t m32 = 0xffffffffu;
    for (int j = 0; j < nb; j++) {
        uint64_t b = b0 + (uint64_t)j;
        uint64_t c0 = b & m32, c1 = b >> 32, c2 = c2i, c3 = c3i;
        uint64_t k0 = k0i, k1 = k1i;
        for (int round = 0; round < 10; round++) {
            uint64_t p0 = 0xD2511F53u * c0, p1 = 0xCD9E8D57u * c2;
            uint64_t n0 = ((p1 >> 32) ^ c1 ^ k0) & m32, n1 = p1 & m32;
            uint64_t n2 = ((p0 >> 32) ^ c3 ^ k1) & m32, n3 = p0 & m32;
            c0 = n0, c1 = n1, c2 = n2, c3 = n3;
            k0 = (k0 + 0x9E3779B9u) & m32;
            k1 = (k1 + 0xBB67AE85u) & m32;
        }
        o0[j] = (uint32_t)c0, o1[j] = (uint32_t)c1, o2[j] = (uint32_t)c2, o3[j] = (uint32_t)c3;
    }
    for (int j = 0; j < nb; j++) {
        keep[4 * j + 0] = (uint64_t)o0[j] >= threshold;
        keep[4 * j + 1] = (uint64_t)o1[j] >= threshold;
        keep[4 * j + 2] = (uint64_t)o2[j] >= threshold;
        keep[4 * j + 3] = (uint64_t)o3[j] >= threshold;
    }
}

/* ---- canonical-order cursors ------------------------------------------------------------ */

typedef struct {
    int nd;
    int64_t dim[FD_DIM_MAX], st[FD_DIM_MAX], idx[FD_DIM_MAX];
    int64_t off;
    cudnnDataType_t dt;
    size_t esz;
} dr_cur_t;

/* Positions c at canonical index i of t. */
static void cur_init(dr_cur_t *c, const struct cudnnTensorStruct *t, int64_t i)
{
    c->nd = 0;
    c->dt = t->dtype;
    c->esz = fd_dtype_size(t->dtype);
    for (int d = 0; d < t->nb_dims; d++) {
        if (t->dim[d] == 1)
            continue;
        if (c->nd > 0 && c->st[c->nd - 1] == (int64_t)t->stride[d] * t->dim[d]) {
            c->dim[c->nd - 1] *= t->dim[d];
            c->st[c->nd - 1] = t->stride[d];
            continue;
        }
        c->dim[c->nd] = t->dim[d];
        c->st[c->nd] = t->stride[d];
        c->nd++;
    }
    if (c->nd == 0) {
        c->nd = 1;
        c->dim[0] = 1;
        c->st[0] = 1;
    }
    c->off = 0;
    for (int d = c->nd - 1; d >= 0; d--) {
        c->idx[d] = i % c->dim[d];
        i /= c->dim[d];
        c->off += c->idx[d] * c->st[d];
    }
}

/* Length of the run from the cursor to the end of its innermost dim, at most n. */
static inline int cur_run(const dr_cur_t *c, int n)
{
    int64_t left = c->dim[c->nd - 1] - c->idx[c->nd - 1];
    return left < n ? (int)left : n;
}

/* Advances by len (<= cur_run) elements. */
static inline void cur_step(dr_cur_t *c, int len)
{
    int d = c->nd - 1;
    c->idx[d] += len;
    c->off += len * c->st[d];
    while (d > 0 && c->idx[d] == c->dim[d]) {
        c->off -= c->dim[d] * c->st[d];
        c->idx[d] = 0;
        d--;
        c->idx[d]++;
        c->off += c->st[d];
    }
}

static void cur_load(dr_cur_t *c, const void *base, int n, double *buf)
{
    for (int j = 0; j < n;) {
        int len = cur_run(c, n - j);
        fd_cpu_load(c->dt, (const char *)base + (size_t)c->off * c->esz, c->st[c->nd - 1], len,
                    buf + j);
        cur_step(c, len);
        j += len;
    }
}

static void cur_store(dr_cur_t *c, void *base, int n, const double *v)
{
    for (int j = 0; j < n;) {
        int len = cur_run(c, n - j);
        fd_cpu_store(c->dt, (char *)base + (size_t)c->off * c->esz, c->st[c->nd - 1], len, v + j,
                     1.0, 0.0);
        cur_step(c, len);
        j += len;
    }
}

FD_CPU_CLONES static void apply(int n, const unsigned char *restrict keep, double scale,
                                const double *restrict x, double *restrict v)
{
    /* a select through the bits (all zero = +0 for a dropped element, whatever x is): the
     * compiler vectorises this; the ?: form became a mispredicted branch */
    for (int j = 0; j < n; j++) {
        double t = x[j] * scale;
        uint64_t bits;
        memcpy(&bits, &t, sizeof bits);
        bits &= (uint64_t)0 - (uint64_t)keep[j];
        memcpy(&v[j], &bits, sizeof bits);
    }
}

/* ---- FLOAT, x and y packed in canonical order: AVX-512 ----------------------------------- */

/* For FLOAT the problem's scale is a float, so x * scale rounded once from double is exactly
 * the float product: the kernel multiplies in float (same bits). Philox runs on 16 blocks (64
 * elements) per vector, two vectors at a time: 32-bit lanes, the high halves of the 32x32
 * products from two mul_epu32 (even and odd lanes) and one masked in-pair swap, the low halves
 * from the same products and another (five ops per multiply: the earlier permute, shift and
 * blend took six, 7% of the forward time), the three-way xors as one ternary-logic op. The
 * four output words' keep masks (16 bits each) are interleaved into the 64-bit mask of the 64
 * consecutive elements with pdep. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#include <immintrin.h>
#define DR_X86 1
#define DR_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,bmi2")))

DR_AVX512 static inline __m512i dr_mulhilo(__m512i c, __m512i m, __m512i *lo)
{
    /* the high and low words of the even lanes' and the odd lanes' 64-bit products, in lane
     * order. even: c[2i] m as the 64-bit lane i (low word at dword 2i, high at 2i + 1); odd:
     * c[2i+1] m likewise. A masked in-pair swap puts each word where it belongs: one op per
     * result. */
    __m512i even = _mm512_mul_epu32(c, m);
    __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(c, 32), m);
    *lo = _mm512_mask_shuffle_epi32(even, 0xAAAA, odd, _MM_PERM_CDAB);
    return _mm512_mask_shuffle_epi32(odd, 0x5555, even, _MM_PERM_CDAB);
}

DR_AVX512 static inline uint64_t dr_interleave(__m512i c0, __m512i c1, __m512i c2, __m512i c3,
                                               uint64_t thr)
{
    uint16_t w0, w1, w2, w3;
    if (thr == 0) {
        w0 = w1 = w2 = w3 = 0xffff;
    } else if (thr > 0xffffffffu) {
        w0 = w1 = w2 = w3 = 0;
    } else {
        const __m512i t = _mm512_set1_epi32((int)(uint32_t)thr);
        w0 = _mm512_cmpge_epu32_mask(c0, t), w1 = _mm512_cmpge_epu32_mask(c1, t);
        w2 = _mm512_cmpge_epu32_mask(c2, t), w3 = _mm512_cmpge_epu32_mask(c3, t);
    }
    return _pdep_u64(w0, 0x1111111111111111ull) | _pdep_u64(w1, 0x2222222222222222ull) |
           _pdep_u64(w2, 0x4444444444444444ull) | _pdep_u64(w3, 0x8888888888888888ull);
}

/* The counter's first two words for blocks b .. b + 15: the high word gets the carry where
 * the low word wrapped. */
DR_AVX512 static inline void dr_ctr(uint64_t b, __m512i *c0, __m512i *c1)
{
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m512i blo = _mm512_set1_epi32((int)(uint32_t)b), hi = _mm512_set1_epi32((int)(b >> 32));
    *c0 = _mm512_add_epi32(blo, iota);
    *c1 = _mm512_mask_add_epi32(hi, _mm512_cmplt_epu32_mask(*c0, blo), hi, _mm512_set1_epi32(1));
}

/* Keep masks of the 128 elements of blocks b .. b + 31 (two independent generators side by
 * side: one alone leaves the multiplier latency exposed). */
DR_AVX512 static inline void dr_keep128(uint64_t b, const __m512i *k0, const __m512i *k1,
                                        __m512i c2i, __m512i c3i, uint64_t thr, uint64_t *m)
{
    const __m512i m0 = _mm512_set1_epi32((int)0xD2511F53u),
                  m1 = _mm512_set1_epi32((int)0xCD9E8D57u);
    __m512i a0, a1, a2 = c2i, a3 = c3i, b0, b1, b2 = c2i, b3 = c3i;
    dr_ctr(b, &a0, &a1);
    dr_ctr(b + 16, &b0, &b1);
    for (int r = 0; r < 10; r++) {
        __m512i la0, la2, lb0, lb2;
        __m512i ha0 = dr_mulhilo(a0, m0, &la0), ha2 = dr_mulhilo(a2, m1, &la2);
        __m512i hb0 = dr_mulhilo(b0, m0, &lb0), hb2 = dr_mulhilo(b2, m1, &lb2);
        a0 = _mm512_ternarylogic_epi32(ha2, a1, k0[r], 0x96);
        a2 = _mm512_ternarylogic_epi32(ha0, a3, k1[r], 0x96);
        a1 = la2, a3 = la0;
        b0 = _mm512_ternarylogic_epi32(hb2, b1, k0[r], 0x96);
        b2 = _mm512_ternarylogic_epi32(hb0, b3, k1[r], 0x96);
        b1 = lb2, b3 = lb0;
    }
    m[0] = dr_interleave(a0, a1, a2, a3, thr);
    m[1] = dr_interleave(b0, b1, b2, b3, thr);
}

/* Elements [i0, i1) (i0 a multiple of 4): forward draws and records the mask, backward reads
 * it. */
DR_AVX512 static void dr_f32_avx512(const float *x, float *y, unsigned char *mask, int64_t i0,
                                    int64_t i1, int fwd, uint64_t seed, uint64_t call, uint64_t thr,
                                    float scale)
{
    __m512i k0[10], k1[10];
    uint32_t a = (uint32_t)seed, b = (uint32_t)(seed >> 32);
    for (int r = 0; r < 10; r++) {
        k0[r] = _mm512_set1_epi32((int)a), k1[r] = _mm512_set1_epi32((int)b);
        a += 0x9E3779B9u, b += 0xBB67AE85u;
    }
    const __m512i c2 = _mm512_set1_epi32((int)(uint32_t)call);
    const __m512i c3 = _mm512_set1_epi32((int)(uint32_t)(call >> 32));
    const __m512 s = _mm512_set1_ps(scale);
    const __m512i one = _mm512_set1_epi8(1);
    uint64_t mm[2];
    /* y by streaming stores when it is 64-byte aligned here and large (no read for ownership,
     * no eviction of x's lines); in place (y == x) the lines were just read: plain stores */
    const int nt = ((uintptr_t)(y + i0) & 63) == 0 && (const float *)y != x &&
                   (size_t)(i1 - i0) * sizeof(float) >= 4096;
    for (int64_t i = i0; i < i1; i += 64) {
        const int64_t n = i1 - i < 64 ? i1 - i : 64;
        const uint64_t valid = n == 64 ? ~0ull : (1ull << n) - 1;
        uint64_t m;
        if (fwd) {
            if (((i - i0) & 127) == 0)
                dr_keep128((uint64_t)i / 4, k0, k1, c2, c3, thr, mm);
            m = mm[((i - i0) >> 6) & 1] & valid;
            const __m512i mb = _mm512_maskz_mov_epi8(m, one);
            if (n == 64)
                _mm512_storeu_si512((void *)(mask + i), mb);
            else
                _mm512_mask_storeu_epi8(mask + i, valid, mb);
        } else {
            /* full vectors by plain loads: Zen 5's masked loads that miss the cache are slow
             * and its prefetchers do not follow them (memop.h) */
            __m512i mb = n == 64 ? _mm512_loadu_si512((const void *)(mask + i))
                                 : _mm512_maskz_loadu_epi8(valid, mask + i);
            m = _mm512_test_epi8_mask(mb, mb);
        }
        if (n == 64) {
            /* x ahead of the generator's long dependency chains (the hardware prefetchers
             * alone left the forward at a third of the bandwidth) */
            for (int q = 0; q < 4; q++)
                _mm_prefetch((const char *)(x + i + DR_PF + 16 * q), _MM_HINT_T0);
            for (int q = 0; q < 4; q++) {
                const __mmask16 mq = (__mmask16)(m >> (16 * q));
                const __m512 v = _mm512_maskz_mul_ps(mq, _mm512_loadu_ps(x + i + 16 * q), s);
                if (nt)
                    _mm512_stream_ps(y + i + 16 * q, v);
                else
                    _mm512_storeu_ps(y + i + 16 * q, v);
            }
            continue;
        }
        for (int q = 0; q < 4; q++) {
            __mmask16 vq = (__mmask16)(valid >> (16 * q)), mq = (__mmask16)(m >> (16 * q));
            if (!vq)
                break;
            __m512 v = _mm512_maskz_loadu_ps(vq & mq, x + i + 16 * q);
            _mm512_mask_storeu_ps(y + i + 16 * q, vq, _mm512_maskz_mul_ps(mq, v, s));
        }
    }
    if (nt)
        _mm_sfence(); /* the streaming stores, before the parallel loop's barrier */
}

/* ---- FLOAT: AVX2 (+FMA: the cap's level; no FMA is used) ---------------------------------- */

/* The same arithmetic as the AVX-512 kernels above with 8-lane vectors. Philox keeps each
 * block's four state words in the low halves of 64-bit lanes, four blocks per vector: one
 * mul_epu32 is then a whole 32x32->64 product, its high word one 64-bit shift away, and the
 * garbage the high halves collect is never read (mul_epu32 reads only the low halves; the
 * xors are lane-wise). Eight ops per round for four blocks, against nine for eight-lane words
 * rebuilt with shuffles and blends. Four such vectors (16 blocks, 64 elements) go side by side
 * for the multiplier's latency. The counter's words 1 - 3 (the block's high word, the call)
 * are the same for the 16 blocks unless the low word wraps inside them (once every 2^34
 * elements: that draw goes through philox_keep), so the multiply of round 1's second pair and
 * of round 2's first pair are scalars, and rounds 1 - 3 take 3 + 4 + 7 ops instead of 24. The
 * words are then transposed into element order (the blocks sit in the lanes as 0, 2, 1, 3 so
 * that two unpacks do it) and compared, unsigned as a signed compare of sign-flipped words,
 * into one all-ones or zero dword per element. */
#define DR_AVX2 __attribute__((target("avx2,fma")))

typedef struct {
    __m256i k0[10], k1[10]; /* the round keys, in the low halves of the 64-bit lanes */
    __m256i x1, y2;         /* the call's round-1 and round-2 constants (dr2_keep64) */
    __m256i thr;            /* the threshold - 1, sign-flipped */
    uint64_t seed, call, threshold;
    uint32_t p1hi, k0a, k1b, k1c; /* round 1's constant product's high word; keys 0, 1, 2 */
    int all;                      /* -1: every element kept (threshold 0), 0: none kept, 1: draw */
} dr2_gen_t;

DR_AVX2 static void dr2_gen_init(dr2_gen_t *g, uint64_t seed, uint64_t call, uint64_t thr)
{
    uint32_t a = (uint32_t)seed, b = (uint32_t)(seed >> 32), k0[10], k1[10];
    for (int r = 0; r < 10; r++) {
        k0[r] = a, k1[r] = b;
        g->k0[r] = _mm256_set1_epi64x(a), g->k1[r] = _mm256_set1_epi64x(b);
        a += 0x9E3779B9u, b += 0xBB67AE85u;
    }
    const uint64_t p1 = (uint64_t)(uint32_t)call * 0xCD9E8D57u; /* round 1: word 2 times M1 */
    g->x1 = _mm256_set1_epi64x((uint32_t)(call >> 32) ^ k1[0]);
    g->y2 = _mm256_set1_epi64x((uint32_t)p1 ^ k0[1]);
    g->p1hi = (uint32_t)(p1 >> 32), g->k0a = k0[0], g->k1b = k1[1], g->k1c = k1[2];
    g->seed = seed, g->call = call, g->threshold = thr;
    g->all = thr == 0 ? -1 : thr > 0xffffffffu ? 0 : 1;
    g->thr = _mm256_set1_epi32((int)(((uint32_t)thr - 1u) ^ 0x80000000u));
}

/* The keep mask of the 8 mask bytes at kb (nonzero: kept, as the ref's backward reads them). */
DR_AVX2 static inline __m256i dr2_mask8(const unsigned char *kb)
{
    const __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)kb));
    return _mm256_cmpgt_epi32(v, _mm256_setzero_si256());
}

/* Philox of dr2_keep64's four vectors (blocks b + 4v + (0, 2, 1, 3), their low words b4 + 4v;
 * z2, w3 its round-2 and round-3 constants), as keep masks into m[2v], m[2v + 1]. Three
 * vectors and one, or two and two, in sequence instead of four side by side were 10 - 15%
 * slower (the four spill a few registers, but the multiplier's latency stays hidden). */
DR_AVX2 static inline void dr2_chains(const dr2_gen_t *g, __m256i b4, __m256i z2, __m256i w3,
                                      __m256i *m)
{
    const __m256i m0 = _mm256_set1_epi64x(0xD2511F53u), m1 = _mm256_set1_epi64x(0xCD9E8D57u);
    const __m256i sign = _mm256_set1_epi32((int)0x80000000u);
    __m256i a0[4], a1[4], a2[4], a3[4];
    for (int v = 0; v < 4; v++) {
        /* round 1: words 2 and 3 from the block's low word */
        const __m256i p0 = _mm256_mul_epu32(_mm256_add_epi64(b4, _mm256_set1_epi64x(4 * v)), m0);
        const __m256i n2 = _mm256_xor_si256(_mm256_srli_epi64(p0, 32), g->x1);
        /* round 2: word 0 from word 2, word 2 from word 3 (word 3 is the constant lo(q0)) */
        const __m256i p1 = _mm256_mul_epu32(n2, m1);
        a0[v] = _mm256_xor_si256(_mm256_srli_epi64(p1, 32), g->y2);
        a1[v] = p1;
        a2[v] = _mm256_xor_si256(p0, z2);
        /* round 3: word 2's xor of the constant word 3 and key folded into w3 */
        const __m256i r0 = _mm256_mul_epu32(a0[v], m0), r1 = _mm256_mul_epu32(a2[v], m1);
        a0[v] = _mm256_xor_si256(_mm256_srli_epi64(r1, 32), _mm256_xor_si256(a1[v], g->k0[2]));
        a2[v] = _mm256_xor_si256(_mm256_srli_epi64(r0, 32), w3);
        a1[v] = r1, a3[v] = r0;
    }
#pragma GCC unroll 7
    for (int r = 3; r < 10; r++)
        for (int v = 0; v < 4; v++) {
            const __m256i p0 = _mm256_mul_epu32(a0[v], m0), p1 = _mm256_mul_epu32(a2[v], m1);
            a0[v] = _mm256_xor_si256(_mm256_srli_epi64(p1, 32), _mm256_xor_si256(a1[v], g->k0[r]));
            a2[v] = _mm256_xor_si256(_mm256_srli_epi64(p0, 32), _mm256_xor_si256(a3[v], g->k1[r]));
            a1[v] = p1, a3[v] = p0;
        }
    for (int v = 0; v < 4; v++) {
        /* dwords (w0, w1) and (w2, w3) per 64-bit lane; then each 128-bit half one block's
         * four words, in order */
        __m256i t01 = _mm256_blend_epi32(a0[v], _mm256_slli_epi64(a1[v], 32), 0xAA);
        __m256i t23 = _mm256_blend_epi32(a2[v], _mm256_slli_epi64(a3[v], 32), 0xAA);
        __m256i e0 = _mm256_unpacklo_epi64(t01, t23), e1 = _mm256_unpackhi_epi64(t01, t23);
        m[2 * v] = _mm256_cmpgt_epi32(_mm256_xor_si256(e0, sign), g->thr);
        m[2 * v + 1] = _mm256_cmpgt_epi32(_mm256_xor_si256(e1, sign), g->thr);
    }
}

/* m[q]: the keep masks of elements 8q .. 8q + 7 of blocks b .. b + 15. */
DR_AVX2 static inline void dr2_keep64(const dr2_gen_t *g, uint64_t b, __m256i *m)
{
    if (g->all <= 0) {
        for (int q = 0; q < 8; q++)
            m[q] = _mm256_set1_epi32(g->all);
        return;
    }
    if ((uint32_t)b > 0xffffffffu - 15) { /* the low word wraps: the plain generator */
        unsigned char kb[64];
        philox_keep(g->seed, g->call, b, 16, g->threshold, kb);
        for (int q = 0; q < 8; q++)
            m[q] = dr2_mask8(kb + 8 * q);
        return;
    }
    /* round 1 leaves words 0 and 1 the same in every lane; round 2 multiplies that word 0 */
    const uint32_t n0 = g->p1hi ^ (uint32_t)(b >> 32) ^ g->k0a;
    const uint64_t q0 = (uint64_t)n0 * 0xD2511F53u;
    const __m256i z2 = _mm256_set1_epi64x((uint32_t)(q0 >> 32) ^ g->k1b);
    const __m256i w3 = _mm256_set1_epi64x((uint32_t)q0 ^ g->k1c);
    const __m256i b4 = _mm256_add_epi64(_mm256_set1_epi64x((long long)(uint32_t)b),
                                        _mm256_setr_epi64x(0, 2, 1, 3));
    dr2_chains(g, b4, z2, w3, m);
}

/* The mask bytes (1 kept, 0 dropped) of the 64 elements of m, to kb. */
DR_AVX2 static inline void dr2_bytes(const __m256i *m, unsigned char *kb)
{
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7), one = _mm256_set1_epi8(1);
    for (int h = 0; h < 2; h++) {
        __m256i w = _mm256_packs_epi16(_mm256_packs_epi32(m[4 * h], m[4 * h + 1]),
                                       _mm256_packs_epi32(m[4 * h + 2], m[4 * h + 3]));
        w = _mm256_and_si256(_mm256_permutevar8x32_epi32(w, order), one);
        _mm256_storeu_si256((__m256i *)(kb + 32 * h), w);
    }
}

/* Elements [i0, i1) packed (i0 a multiple of 4), as dr_f32_avx512. */
DR_AVX2 static void dr_f32_avx2(const float *x, float *y, unsigned char *mask, int64_t i0,
                                int64_t i1, int fwd, uint64_t seed, uint64_t call, uint64_t thr,
                                float scale)
{
    dr2_gen_t g;
    dr2_gen_init(&g, seed, call, thr);
    const __m256 s = _mm256_set1_ps(scale);
    /* streaming stores of y as on AVX-512 (32-byte aligned here) */
    const int nt = ((uintptr_t)(y + i0) & 31) == 0 && (const float *)y != x &&
                   (size_t)(i1 - i0) * sizeof(float) >= 4096;
    for (int64_t i = i0; i < i1; i += 64) {
        const int n = i1 - i < 64 ? (int)(i1 - i) : 64;
        __m256i m[8];
        unsigned char kb[64];
        const unsigned char *k = mask + i;
        if (fwd)
            dr2_keep64(&g, (uint64_t)i / 4, m);
        if (n < 64) { /* the tensor's last elements */
            if (fwd) {
                dr2_bytes(m, kb);
                memcpy(mask + i, kb, (size_t)n);
                k = kb;
            }
            for (int j = 0; j < n; j++)
                y[i + j] = k[j] ? x[i + j] * scale : 0.0f;
            break;
        }
        if (fwd)
            dr2_bytes(m, mask + i);
        else
            for (int q = 0; q < 8; q++)
                m[q] = dr2_mask8(mask + i + 8 * q);
        for (int q = 0; q < 4; q++)
            _mm_prefetch((const char *)(x + i + DR_PF + 16 * q), _MM_HINT_T0);
        for (int q = 0; q < 8; q++) {
            const __m256 v = _mm256_and_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i + 8 * q), s),
                                           _mm256_castsi256_ps(m[q]));
            if (nt)
                _mm256_stream_ps(y + i + 8 * q, v);
            else
                _mm256_storeu_ps(y + i + 8 * q, v);
        }
    }
    if (nt)
        _mm_sfence();
}

/* 2: AVX-512 (F, BW, DQ) and BMI2; 1: AVX2 and FMA; 0: neither, or capped by
 * FREEDNN_CPU_ISA=avx2|generic (read per call: the tests run every path on one machine). */
static int dr_isa(void)
{
    const char *cap = getenv("FREEDNN_CPU_ISA");
    int limit = !cap ? 2 : strcmp(cap, "generic") == 0 ? 0 : strcmp(cap, "avx2") == 0 ? 1 : 2;
    __builtin_cpu_init();
    if (limit >= 2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("bmi2"))
        return 2;
    if (limit >= 1 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return 1;
    return 0;
}
#endif

/* 1 when t's elements are packed in canonical (row-major) order. */
static int dr_packed(const struct cudnnTensorStruct *t)
{
    int64_t expect = 1;
    for (int d = t->nb_dims - 1; d >= 0; d--) {
        if (t->dim[d] != 1 && t->stride[d] != expect)
            return 0;
        expect *= t->dim[d];
    }
    return 1;
}

/* The packed FLOAT case on AVX-512; 0 when it does not apply. */
static int run_f32_packed(const fd_dropout_problem_t *p, const fd_dropout_args_t *a, int fwd,
                          uint64_t seed, uint64_t call)
{
#ifdef DR_X86
    if (p->in.dtype != CUDNN_DATA_FLOAT || p->out.dtype != CUDNN_DATA_FLOAT || !dr_packed(&p->in) ||
        !dr_packed(&p->out) || (double)(float)p->scale != p->scale)
        return 0;
    const int isa = dr_isa();
    if (!isa)
        return 0;
    const int64_t units = (p->count + FD_CPU_UNIT - 1) / FD_CPU_UNIT;
#pragma omp parallel for schedule(static) if (p->count >= FD_CPU_PAR_MIN)
    for (int64_t u = 0; u < units; u++) {
        int64_t i0 = u * FD_CPU_UNIT,
                i1 = i0 + FD_CPU_UNIT < p->count ? i0 + FD_CPU_UNIT : p->count;
        if (isa == 2)
            dr_f32_avx512(a->in, a->out, a->reserve, i0, i1, fwd, seed, call, p->threshold,
                          (float)p->scale);
        else
            dr_f32_avx2(a->in, a->out, a->reserve, i0, i1, fwd, seed, call, p->threshold,
                        (float)p->scale);
    }
    return 1;
#else
    (void)p, (void)a, (void)fwd, (void)seed, (void)call;
    return 0;
#endif
}

/* ---- FLOAT, x and y both packed channels-last (NHWC / NDHWC): AVX-512 -------------------- */

/* The mask is drawn over the canonical (NCHW) index, so a channel's positions are consecutive
 * canonical elements while memory holds the channels of a position together. A unit takes up
 * to DR_CG channels x DR_PT positions: it draws each channel's run of canonical elements into
 * a bit row (and writes its mask bytes, contiguous in the reserve space), then walks the
 * positions in memory order, each 16 channels' keep bits of a position gathered from the bit
 * rows with two vector bit tests. */
#define DR_PT 1020 /* positions per unit: 3 of misalignment + 1020 fill 8 draws of 128 */
#define DR_CG 64   /* channels per unit: a position's 64 channels are 4 whole cache lines */
#define DR_PW (DR_PT / 64 + 4) /* bit-row words: the run, its misalignment, the draw's overrun */

#ifdef DR_X86
/* Bits [off, off + 64) of the row (word-aligned storage). */
static inline uint64_t dr_bits(const uint64_t *row, int64_t off)
{
    int64_t w = off >> 6;
    int sh = (int)(off & 63);
    return sh ? (row[w] >> sh) | (row[w + 1] << (64 - sh)) : row[w];
}

/* dr_nhwc_unit's element walk for a whole tile of DR_CG = 64 channels: per 32 positions, each
 * channel's keep bits as one 32-bit word, 16 channels a vector, so one bit test gives a
 * vector's 16 keep bits (the words stay in four registers over the 32 positions). */
DR_AVX512 static void dr_nhwc_full(const uint64_t (*rows)[DR_PW], const int64_t *roff, int64_t np,
                                   const float *x, float *y, int64_t C, __m512 s, int nts)
{
    for (int64_t j = 0; j < np; j += 32) {
        uint32_t w[DR_CG] __attribute__((aligned(64)));
        for (int c = 0; c < DR_CG; c++)
            w[c] = (uint32_t)dr_bits(rows[c], roff[c] + j);
        const __m512i w0 = _mm512_load_si512(w), w1 = _mm512_load_si512(w + 16);
        const __m512i w2 = _mm512_load_si512(w + 32), w3 = _mm512_load_si512(w + 48);
        __m512i bit = _mm512_set1_epi32(1);
        const int64_t len = np - j < 32 ? np - j : 32;
        const float *xp = x + j * C;
        float *yp = y + j * C;
        for (int64_t q = 0; q < len; q++, xp += C, yp += C) {
            for (int t = 0; t < 4; t++) /* x ahead (DR_PF) */
                _mm_prefetch((const char *)(xp + DR_PF / 64 * C + 16 * t), _MM_HINT_T0);
            const __m512 v0 =
                _mm512_maskz_mul_ps(_mm512_test_epi32_mask(w0, bit), _mm512_loadu_ps(xp), s);
            const __m512 v1 =
                _mm512_maskz_mul_ps(_mm512_test_epi32_mask(w1, bit), _mm512_loadu_ps(xp + 16), s);
            const __m512 v2 =
                _mm512_maskz_mul_ps(_mm512_test_epi32_mask(w2, bit), _mm512_loadu_ps(xp + 32), s);
            const __m512 v3 =
                _mm512_maskz_mul_ps(_mm512_test_epi32_mask(w3, bit), _mm512_loadu_ps(xp + 48), s);
            if (nts) {
                _mm512_stream_ps(yp, v0), _mm512_stream_ps(yp + 16, v1);
                _mm512_stream_ps(yp + 32, v2), _mm512_stream_ps(yp + 48, v3);
            } else {
                _mm512_storeu_ps(yp, v0), _mm512_storeu_ps(yp + 16, v1);
                _mm512_storeu_ps(yp + 32, v2), _mm512_storeu_ps(yp + 48, v3);
            }
            bit = _mm512_slli_epi32(bit, 1);
        }
    }
}

DR_AVX512 static void dr_nhwc_unit(const fd_dropout_problem_t *p, const fd_dropout_args_t *a,
                                   int fwd, uint64_t seed, uint64_t call, int64_t n, int64_t c0,
                                   int64_t p0, int64_t C, int64_t S)
{
    __m512i k0[10], k1[10];
    uint32_t ka = (uint32_t)seed, kb = (uint32_t)(seed >> 32);
    for (int r = 0; r < 10; r++) {
        k0[r] = _mm512_set1_epi32((int)ka), k1[r] = _mm512_set1_epi32((int)kb);
        ka += 0x9E3779B9u, kb += 0xBB67AE85u;
    }
    const __m512i c2 = _mm512_set1_epi32((int)(uint32_t)call);
    const __m512i c3 = _mm512_set1_epi32((int)(uint32_t)(call >> 32));
    const int cg = (int)(C - c0 < DR_CG ? C - c0 : DR_CG), nt = (cg + 15) / 16;
    const int64_t np = S - p0 < DR_PT ? S - p0 : DR_PT;
    unsigned char *mask = a->reserve;
    uint64_t rows[DR_CG][DR_PW];
    int64_t roff[DR_CG];
    const __m512i one = _mm512_set1_epi8(1);
    for (int c = 0; c < cg; c++) {
        const int64_t base = ((n * C + c0 + c) * S) + p0; /* canonical index of (n, c, p0) */
        const int64_t ib = base & ~(int64_t)3;
        roff[c] = base - ib;
        const int64_t need = roff[c] + np;
        if (fwd) {
            for (int64_t j = 0; j < need; j += 128)
                dr_keep128((uint64_t)(ib + j) / 4, k0, k1, c2, c3, p->threshold, &rows[c][j >> 6]);
            for (int64_t j = 0; j < np; j += 64) {
                int64_t len = np - j < 64 ? np - j : 64;
                uint64_t valid = len == 64 ? ~0ull : (1ull << len) - 1;
                uint64_t m = dr_bits(rows[c], roff[c] + j) & valid;
                if (len == 64)
                    _mm512_storeu_si512((void *)(mask + base + j), _mm512_maskz_mov_epi8(m, one));
                else
                    _mm512_mask_storeu_epi8(mask + base + j, valid, _mm512_maskz_mov_epi8(m, one));
            }
        } else {
            roff[c] = 0;
            for (int64_t j = 0; j < np; j += 64) {
                int64_t len = np - j < 64 ? np - j : 64;
                uint64_t valid = len == 64 ? ~0ull : (1ull << len) - 1;
                __m512i mb = len == 64 ? _mm512_loadu_si512((const void *)(mask + base + j))
                                       : _mm512_maskz_loadu_epi8(valid, mask + base + j);
                rows[c][j >> 6] = _mm512_test_epi8_mask(mb, mb);
            }
        }
    }
    const float *x = a->in;
    float *y = a->out;
    const __m512 s = _mm512_set1_ps((float)p->scale);
    /* streaming stores of y where every full vector is 64-byte aligned, not in place */
    const int nts = ((uintptr_t)(y + c0) & 63) == 0 && C % 16 == 0 && (const float *)y != x;
    if (cg == DR_CG) {
        dr_nhwc_full(rows, roff, np, x + ((n * S) + p0) * C + c0, y + ((n * S) + p0) * C + c0, C, s,
                     nts);
        if (nts)
            _mm_sfence(); /* the streaming stores, before the parallel loop's barrier */
        return;
    }
    __mmask16 cm[DR_CG / 16];
    for (int t = 0; t < nt; t++)
        cm[t] = (__mmask16)(cg - 16 * t >= 16 ? 0xffff : (1u << (cg - 16 * t)) - 1);
    for (int64_t j = 0; j < np; j += 64) {
        uint64_t w[DR_CG] = {0};
        for (int c = 0; c < cg; c++)
            w[c] = dr_bits(rows[c], roff[c] + j);
        __m512i lo[DR_CG / 16], hi[DR_CG / 16];
        for (int t = 0; t < nt; t++)
            lo[t] = _mm512_loadu_si512(w + 16 * t), hi[t] = _mm512_loadu_si512(w + 16 * t + 8);
        __m512i bit = _mm512_set1_epi64(1);
        const int64_t len = np - j < 64 ? np - j : 64;
        const float *xp = x + ((n * S) + p0 + j) * C + c0;
        float *yp = y + ((n * S) + p0 + j) * C + c0;
        for (int64_t q = 0; q < len; q++) {
            /* x ahead (see DR_PF); a prefetch past the tensor's end is harmless */
            for (int t = 0; t < nt; t++)
                _mm_prefetch((const char *)(xp + (q + DR_PF / 64) * C + 16 * t), _MM_HINT_T0);
            for (int t = 0; t < nt; t++) {
                __mmask16 m = (__mmask16)(_mm512_test_epi64_mask(lo[t], bit) |
                                          (_mm512_test_epi64_mask(hi[t], bit) << 8)) &
                              cm[t];
                if (cm[t] == (__mmask16)0xFFFF) { /* plain loads and stores (memop.h: Zen 5) */
                    const __m512 v = _mm512_maskz_mul_ps(m, _mm512_loadu_ps(xp + q * C + 16 * t), s);
                    if (nts)
                        _mm512_stream_ps(yp + q * C + 16 * t, v);
                    else
                        _mm512_storeu_ps(yp + q * C + 16 * t, v);
                    continue;
                }
                __m512 v = _mm512_maskz_loadu_ps(m, xp + q * C + 16 * t);
                _mm512_mask_storeu_ps(yp + q * C + 16 * t, cm[t], _mm512_maskz_mul_ps(m, v, s));
            }
            bit = _mm512_slli_epi64(bit, 1);
        }
    }
    if (nts)
        _mm_sfence(); /* the streaming stores, before the parallel loop's barrier */
}

/* The channels-last unit of dr_nhwc_unit on AVX2. Each channel's run of canonical elements is
 * drawn (or, backward, read from the reserve space) as mask bytes and turned into 32-bit
 * words of keep bits stored position-chunk-major, wb[chunk][channel]: the words of 8
 * consecutive channels for 32 positions are then one vector, and a position's 8 keep bits
 * are its sign bits after one variable shift (a blend by the sign selects x * s or +0).
 * Channel groups of fewer than 8 (C % 8) go element by element. Forward, the tile's x is
 * prefetched during the draws; the walk's stores still do not overlap the draws (one thread,
 * in cache: 30% over the NCHW time). Pipelines that walked one position between draws (over
 * 64-position sub-tiles: slower, its per-draw bookkeeping; a unit's walk during the next
 * unit's draws: the same time) did not pay, so the two phases stay. */
DR_AVX2 static void dr2_nhwc_unit(const fd_dropout_problem_t *p, const fd_dropout_args_t *a,
                                  int fwd, uint64_t seed, uint64_t call, int64_t n, int64_t c0,
                                  int64_t p0, int64_t C, int64_t S)
{
    dr2_gen_t g;
    dr2_gen_init(&g, seed, call, p->threshold);
    const int cg = (int)(C - c0 < DR_CG ? C - c0 : DR_CG), nv = cg / 8;
    const int np = (int)(S - p0 < DR_PT ? S - p0 : DR_PT);
    unsigned char *mask = a->reserve;
    uint32_t wb[(DR_PT + 31) / 32][DR_CG];
    unsigned char kb[(DR_PT + 3 + 63) / 64 * 64];
    const float *x = a->in;
    float *y = a->out;
    const float *xt = x + ((n * S) + p0) * C + c0; /* the tile's first position */
    /* forward: the tile's x into the cache while the masks are drawn (the walk below then
     * reads it from L2: the draws, compute-bound, and the reads overlap), a share of its
     * positions after each draw */
    const int draws = cg * ((np + 3 + 63) / 64);
    int qpf = 0, acc = 0;
    /* the channels' runs of mask bytes, a channel (backward: four) ahead: 64 short runs S
     * bytes apart that the hardware prefetchers hardly pick up (n8c64h112w112, one thread,
     * cold, forward: 6.5 -> 5.9 ms) */
    const int ahead = fwd ? 1 : 4;
    for (int c = 0; c < cg && c < ahead; c++)
        for (int j = 0; j < np + 63; j += 64)
            _mm_prefetch((const char *)(mask + ((n * C + c0 + c) * S) + p0 + j), _MM_HINT_T0);
    for (int c = 0; c < cg; c++) {
        const int64_t base = ((n * C + c0 + c) * S) + p0; /* canonical index of (n, c, p0) */
        const unsigned char *k = mask + base;
        if (c + ahead < cg)
            for (int j = 0; j < np + 63; j += 64)
                _mm_prefetch((const char *)(mask + base + ahead * S + j), _MM_HINT_T0);
        if (fwd) {
            const int64_t ib = base & ~(int64_t)3;
            const int off = (int)(base - ib);
            for (int j = 0; j < off + np; j += 64) {
                __m256i m[8];
                dr2_keep64(&g, (uint64_t)(ib + j) / 4, m);
                dr2_bytes(m, kb + j);
                for (acc += np; acc >= draws && qpf < np; acc -= draws, qpf++) {
                    for (int t = 0; t < cg; t += 16)
                        _mm_prefetch((const char *)(xt + qpf * C + t), _MM_HINT_T0);
                    _mm_prefetch((const char *)(xt + qpf * C + cg - 1), _MM_HINT_T0);
                }
            }
            memcpy(mask + base, kb + off, (size_t)np);
            k = kb + off;
        }
        for (int j = 0; j < np; j += 32) {
            uint32_t w = 0;
            if (np - j >= 32) {
                const __m256i v = _mm256_loadu_si256((const __m256i *)(k + j));
                w = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_setzero_si256()));
            } else {
                for (int q = 0; q < np - j; q++)
                    w |= (uint32_t)(k[j + q] != 0) << q;
            }
            wb[j / 32][c] = w;
        }
    }
    const float scale = (float)p->scale;
    const __m256 s = _mm256_set1_ps(scale), zero = _mm256_setzero_ps();
    /* streaming stores of y where every full vector is 32-byte aligned, not in place */
    const int nts = ((uintptr_t)(y + c0) & 31) == 0 && C % 8 == 0 && (const float *)y != x;
    for (int j = 0; j < np; j += 32) {
        const int len = np - j < 32 ? np - j : 32;
        const uint32_t *wr = wb[j / 32];
        const float *xp = x + ((n * S) + p0 + j) * C + c0;
        float *yp = y + ((n * S) + p0 + j) * C + c0;
        for (int q = 0; q < len; q++) {
            for (int t = 0; t < cg; t += 16) /* x ahead (see DR_PF) */
                _mm_prefetch((const char *)(xp + (q + DR_PF / 64) * C + t), _MM_HINT_T0);
            const __m256i sh = _mm256_set1_epi32(31 - q);
            for (int t = 0; t < nv; t++) {
                const __m256i kw =
                    _mm256_sllv_epi32(_mm256_loadu_si256((const __m256i *)(wr + 8 * t)), sh);
                const __m256 v =
                    _mm256_blendv_ps(zero, _mm256_mul_ps(_mm256_loadu_ps(xp + q * C + 8 * t), s),
                                     _mm256_castsi256_ps(kw));
                if (nts)
                    _mm256_stream_ps(yp + q * C + 8 * t, v);
                else
                    _mm256_storeu_ps(yp + q * C + 8 * t, v);
            }
            for (int c = 8 * nv; c < cg; c++)
                yp[q * C + c] = (wr[c] >> q) & 1 ? xp[q * C + c] * scale : 0.0f;
        }
    }
    if (nts)
        _mm_sfence();
}
#endif

/* 1 when t is packed channels-last: C innermost, then the spatial dims, then N. */
static int dr_channels_last(const struct cudnnTensorStruct *t, int64_t *C, int64_t *S)
{
    const int nb = t->nb_dims;
    *C = t->dim[1];
    if (t->stride[1] != 1 && t->dim[1] != 1)
        return 0;
    int64_t expect = t->dim[1];
    *S = 1;
    for (int d = nb - 1; d >= 2; d--) {
        if (t->dim[d] != 1 && t->stride[d] != expect)
            return 0;
        expect *= t->dim[d];
        *S *= t->dim[d];
    }
    return t->dim[0] == 1 || t->stride[0] == expect;
}

/* The channels-last FLOAT case on AVX-512 (x and y alike); 0 when it does not apply. */
static int run_f32_nhwc(const fd_dropout_problem_t *p, const fd_dropout_args_t *a, int fwd,
                        uint64_t seed, uint64_t call)
{
#ifdef DR_X86
    int64_t C, S, C2, S2;
    if (p->in.dtype != CUDNN_DATA_FLOAT || p->out.dtype != CUDNN_DATA_FLOAT ||
        p->in.nb_dims != p->out.nb_dims || !dr_channels_last(&p->in, &C, &S) ||
        !dr_channels_last(&p->out, &C2, &S2) || C != C2 || S != S2 ||
        p->in.dim[0] != p->out.dim[0] || (double)(float)p->scale != p->scale)
        return 0;
    const int isa = dr_isa();
    if (!isa)
        return 0;
    const int64_t N = p->in.dim[0], ctiles = (C + DR_CG - 1) / DR_CG;
    const int64_t ptiles = (S + DR_PT - 1) / DR_PT;
    const int64_t units = N * ctiles * ptiles;
#pragma omp parallel for schedule(static) if (p->count >= FD_CPU_PAR_MIN)
    for (int64_t u = 0; u < units; u++) {
        /* channel tiles innermost: the tiles of one position range share its cache lines */
        int64_t ctl = u % ctiles, pt = (u / ctiles) % ptiles, n = u / (ptiles * ctiles);
        if (isa == 2)
            dr_nhwc_unit(p, a, fwd, seed, call, n, ctl * DR_CG, pt * DR_PT, C, S);
        else
            dr2_nhwc_unit(p, a, fwd, seed, call, n, ctl * DR_CG, pt * DR_PT, C, S);
    }
    return 1;
#else
    (void)p, (void)a, (void)fwd, (void)seed, (void)call;
    return 0;
#endif
}

/* Units of FD_CPU_UNIT canonical elements; forward draws the mask (and writes it to the
 * reserve space), backward reads it. */
static void run_all(const fd_dropout_problem_t *p, const fd_dropout_args_t *a, int fwd,
                    uint64_t seed, uint64_t call)
{
    const int64_t units = (p->count + FD_CPU_UNIT - 1) / FD_CPU_UNIT;
    unsigned char *mask = a->reserve;
    if (run_f32_packed(p, a, fwd, seed, call) || run_f32_nhwc(p, a, fwd, seed, call))
        return;
#pragma omp parallel for schedule(static) if (p->count >= FD_CPU_PAR_MIN)
    for (int64_t u = 0; u < units; u++) {
        int64_t i0 = u * FD_CPU_UNIT,
                i1 = i0 + FD_CPU_UNIT < p->count ? i0 + FD_CPU_UNIT : p->count;
        dr_cur_t ci, co;
        cur_init(&ci, &p->in, i0);
        cur_init(&co, &p->out, i0);
        double x[FD_CPU_BLK], v[FD_CPU_BLK];
        unsigned char keep[FD_CPU_BLK];
        for (int64_t i = i0; i < i1; i += FD_CPU_BLK) {
            int n = (int)(i1 - i < FD_CPU_BLK ? i1 - i : FD_CPU_BLK);
            const unsigned char *k = mask + i;
            if (fwd) {
                philox_keep(seed, call, (uint64_t)i / 4, (n + 3) / 4, p->threshold, keep);
                memcpy(mask + i, keep, (size_t)n);
                k = keep;
            }
            cur_load(&ci, a->in, n, x);
            apply(n, k, p->scale, x, v);
            cur_store(&co, a->out, n, v);
        }
    }
}

static int check(const fd_dropout_problem_t *p, char *why, size_t why_size)
{
    if (!fd_cpu_dtype_ok(p->in.dtype) || !fd_cpu_dtype_ok(p->out.dtype)) {
        snprintf(why, why_size, "%s stays with ref", fd_dtype_name(p->in.dtype));
        return 0;
    }
    if (fd_tensor_has_negative_stride(&p->in) || fd_tensor_has_negative_stride(&p->out)) {
        snprintf(why, why_size, "negative strides");
        return 0;
    }
    return 1;
}

int fd_dropout_fwd_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    return check(problem, why, why_size);
}

size_t fd_dropout_fwd_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_dropout_fwd_cpu_run(const void *problem, const void *args)
{
    const fd_dropout_problem_t *p = problem;
    const fd_dropout_args_t *a = args;
    uint64_t seed, call;
    FD_TRY(fd_dropout_states_read(a->states, &seed, &call)); /* host memory: verified as on ref */
    run_all(p, a, 1, seed, call);
    fd_dropout_states_set_calls(a->states, call + 1);
    return CUDNN_STATUS_SUCCESS;
}

int fd_dropout_bwd_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    return check(problem, why, why_size);
}

size_t fd_dropout_bwd_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_dropout_bwd_cpu_run(const void *problem, const void *args)
{
    const fd_dropout_problem_t *p = problem;
    const fd_dropout_args_t *a = args;
    run_all(p, a, 0, 0, 0);
    return CUDNN_STATUS_SUCCESS;
}
