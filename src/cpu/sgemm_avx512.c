/* SPDX-License-Identifier: MIT */
/*
 * sgemm_avx512.c - the cpu backend's own single-threaded AVX-512 FLOAT GEMM (gemm.h:
 * fd_cpu_sgemm_avx512), which fd_cpu_gemm uses for FLOAT instead of OpenBLAS's sgemm when the
 * CPU has AVX-512F (OpenBLAS may run narrower kernels: OPENBLAS_CORETYPE=Haswell on this
 * project's AMD Zen machines halves its speed, and the library must not change the user's
 * environment).
 *
 * Design (a BLIS-style loop nest, vectors along C's contiguous dimension):
 * - A column-major C is computed as its transpose (C^T = B^T A^T), so C is row-major below and
 *   each operand any of row-major, column-major or a general strided view.
 * - Loops: M in blocks of SG_MC rows; K in blocks of SG_KC; the A block (SG_MC x SG_KC) is packed
 *   once per (M, K) block into micro-panels of SG_MR rows (the SG_MR values of one k adjacent),
 *   kept in L2; then for every SG_NR = 32 columns of N one B micro-panel (SG_KC x 32, k-major,
 *   zero beyond N) is packed and kept in L1 while the micro-kernel runs over the A block's
 *   micro-panels. B is thus packed ceil(M / SG_MC) times, A once. A row-major B (the forward
 *   1x1 convolution's x in NCHW) is packed by the panel's first tile as it computes, from rows
 *   the previous panel's tiles prefetched into L2 (sg_kernel); other B views by sg_pack_b.
 * - Micro-kernel: SG_MR x 32 (12 x 2 zmm accumulators), one broadcast of A per row and two loads
 *   of B per k. Narrower tiles (fewer rows at M's edge, 16 columns at N's edge) are their own
 *   compile-time instantiations; columns past N are computed on the packed zeros and not
 *   stored: the last vector of a row at N's edge is a masked load / store (once per tile per K
 *   block, outside the k loop).
 * - Packing buffers live on the stack: SG_MC x SG_KC + SG_KC x SG_NR floats = 96 + 32 KiB (plus
 *   64 bytes of slack for the packers' overlapping full-vector stores). No heap allocation.
 * - Sum order: each C element is, per K block in increasing order, a float sum over k in
 *   increasing order (one FMA chain) scaled by alpha and added to C (the first block blends
 *   with beta; beta == 0 never reads C). The order depends on K only (not on M, N, the tile
 *   the element falls in or the thread count), so any split of C gives the same bits.
 * - Packers have vector paths for unit strides (16 x 16 transposes in registers for the
 *   transposing cases) and a scalar path for anything else.
 * Measured (dev/sgemm, one core of the Intel AVX-512 VM, 2026-12-05): the micro-kernel alone
 * runs at 200-210 GFLOP/s from L1 against 226-240 of register-only FMAs (bench/compare/fma_peak);
 * the separate B pack loop, fed from L3, had cost 22 % of the 64 x 3136 x 256 GEMM.
 * Builds everywhere: the AVX-512 code carries GCC target attributes, and fd_cpu_sgemm_avx512_ok
 * says at run time whether the CPU can run it (x86-64 GCC / Clang builds only).
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "gemm.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SG_X86 1
#else
#define SG_X86 0
#endif

#define SG_MR 12
#define SG_NR FD_CPU_SGEMM_NR
#define SG_KC FD_CPU_SGEMM_KC
#define SG_MC 96

int fd_cpu_sgemm_avx512_ok(void)
{
#if SG_X86
    static int ok = -1; /* a benign race: every thread stores the same value */
    if (ok < 0) {
        __builtin_cpu_init();
        ok = __builtin_cpu_supports("avx512f") ? 1 : 0;
    }
    return ok;
#else
    return 0;
#endif
}

#if SG_X86

#define SG_TARGET __attribute__((target("avx512f")))

/* ---- packing ----------------------------------------------------------------------------- */

/* In-register transpose of 16 vectors: on return r[j] lane i = old r[i] lane j. */
static inline __attribute__((always_inline, target("avx512f"))) void sg_tr16(__m512 r[16])
{
    __m512 t[16];
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) { /* t[2i], t[2i+1]: rows 2i and 2i+1 interleaved per 128 bits */
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++) { /* r[4g + j] lane 4L + q: row 4g + q, column 4L + j */
        r[4 * g + 0] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0x44);
        r[4 * g + 1] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0xEE);
        r[4 * g + 2] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0x44);
        r[4 * g + 3] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0xEE);
    }
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) { /* 128-bit blocks: block g of the result from r[4g + j] */
        __m512 u0 = _mm512_shuffle_f32x4(r[j], r[4 + j], 0x44);
        __m512 u1 = _mm512_shuffle_f32x4(r[j], r[4 + j], 0xEE);
        __m512 u2 = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0x44);
        __m512 u3 = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0xEE);
        t[j] = _mm512_shuffle_f32x4(u0, u2, 0x88);
        t[4 + j] = _mm512_shuffle_f32x4(u0, u2, 0xDD);
        t[8 + j] = _mm512_shuffle_f32x4(u1, u3, 0x88);
        t[12 + j] = _mm512_shuffle_f32x4(u1, u3, 0xDD);
    }
#pragma GCC unroll 16
    for (int i = 0; i < 16; i++)
        r[i] = t[i];
}

/* dst[kk * w + i] = src[i * ld + kk] for i < rows (<= 16, zero for rows <= i < w), kk < kc:
 * `rows` lines of kc contiguous floats, transposed into k-major slices of width w (12 or 32
 * at offset 0 or 16). Full-vector stores of 16: a slice narrower than 16 overlaps the next
 * one, which is written after it (the caller leaves 16 floats of slack after dst). */
static SG_TARGET void sg_pack_tr(const float *src, int64_t ld, int rows, int64_t kc, float *dst,
                                 int w)
{
    int64_t kk = 0;
    for (; kk + 16 <= kc; kk += 16) {
        __m512 r[16];
#pragma GCC unroll 16
        for (int i = 0; i < 16; i++)
            r[i] = i < rows ? _mm512_loadu_ps(src + i * ld + kk) : _mm512_setzero_ps();
        sg_tr16(r);
#pragma GCC unroll 16
        for (int j = 0; j < 16; j++)
            _mm512_storeu_ps(dst + (kk + j) * w, r[j]);
    }
    if (kk < kc) {
        const int rest = (int)(kc - kk);
        const __mmask16 mk = (__mmask16)((1u << rest) - 1u);
        __m512 r[16];
#pragma GCC unroll 16
        for (int i = 0; i < 16; i++)
            r[i] = _mm512_maskz_loadu_ps(i < rows ? mk : 0, src + i * ld + kk);
        sg_tr16(r);
        for (int j = 0; j < rest; j++)
            _mm512_storeu_ps(dst + (kk + j) * w, r[j]);
    }
}

/* Row tile p of the ceil(mc / SG_MR) tiles of a block of mc rows: [*lo, *hi), sizes differing
 * by at most one (a fringe of few rows would leave the FMA pipes waiting on latency). */
static inline void sg_tile(int64_t mc, int64_t p, int64_t *lo, int64_t *hi)
{
    const int64_t tiles = (mc + SG_MR - 1) / SG_MR;
    *lo = mc * p / tiles, *hi = mc * (p + 1) / tiles;
}

/* The A block: rows [0, mc) x k [k0, k0 + kc) of A(i, kk) = a[i * rs + (kk / inner) * ocs +
 * (kk % inner) * cs] (a plain strided view: inner >= k, gemm.h) into one micro-panel per row
 * tile (sg_tile), panel p at ap + p * SG_MR * kc, element (i, kk) at (kk - k0) * SG_MR + i (rows
 * past the tile's are not written: its kernel reads only its rows), one run of columns at a
 * time, each run of up to `inner` columns a strided view. */
static SG_TARGET void sg_pack_a(int64_t mc, int64_t k0, int64_t kc, const float *a, int64_t rs,
                                int64_t cs, int64_t inner, int64_t ocs, float *ap)
{
    for (int64_t p = 0; p * SG_MR < mc; p++) {
        int64_t i0, i1;
        sg_tile(mc, p, &i0, &i1);
        const int mr = (int)(i1 - i0);
        for (int64_t j = k0; j < k0 + kc;) {
            const int64_t t = j % inner, len = inner - t < k0 + kc - j ? inner - t : k0 + kc - j;
            float *d = ap + p * SG_MR * kc + (j - k0) * SG_MR;
            const float *s = a + i0 * rs + j / inner * ocs + t * cs;
            if (cs == 1) {
                sg_pack_tr(s, rs, mr, len, d, SG_MR);
            } else if (rs == 1) { /* 16-float stores: each overlaps the next (the caller's slack) */
                const __mmask16 mrow = (__mmask16)((1u << mr) - 1u);
                for (int64_t kk = 0; kk < len; kk++)
                    _mm512_storeu_ps(d + kk * SG_MR, _mm512_maskz_loadu_ps(mrow, s + kk * cs));
            } else {
                for (int64_t kk = 0; kk < len; kk++)
                    for (int i = 0; i < mr; i++)
                        d[kk * SG_MR + i] = s[i * rs + kk * cs];
            }
            j += len;
        }
    }
}

/* One B micro-panel of a B that is not row-major (a row-major one is packed by the panel's first
 * tile, sg_kernel): k [0, kc) x columns [0, nr) of B(kk, j) = b[kk * rs + j * cs] into
 * bp[kk * SG_NR + j], zero for nr <= j < SG_NR. */
static SG_TARGET void sg_pack_b(int64_t kc, int nr, const float *b, int64_t rs, int64_t cs,
                                float *bp)
{
    if (rs == 1) {
        sg_pack_tr(b, cs, nr < 16 ? nr : 16, kc, bp, SG_NR);
        if (nr > 16)
            sg_pack_tr(b + 16 * cs, cs, nr - 16, kc, bp + 16, SG_NR);
        else /* the second half: zeros (the first half's stores overlapped it) */
            for (int64_t kk = 0; kk < kc; kk++)
                _mm512_storeu_ps(bp + kk * SG_NR + 16, _mm512_setzero_ps());
    } else {
        for (int64_t kk = 0; kk < kc; kk++)
            for (int j = 0; j < SG_NR; j++)
                bp[kk * SG_NR + j] = j < nr ? b[kk * rs + j * cs] : 0.0f;
    }
}

/* ---- micro-kernel ------------------------------------------------------------------------ */

/* C[i][j] (i < mr, j < nc <= 16 * nv) = alpha * sum_kk ap[kk * SG_MR + i] bp[kk * SG_NR + j]
 * + beta * C[i][j] (C not read when readc is 0), C[i][j] at c[i * ldc + j], or with `trans` at
 * c[i + j * ldc] (the tile transposed in registers, 16 x 16 at a time, and stored as rows of mr
 * masked lanes: a small N computed with M along the vectors).
 * With `pack` the tile reads B from its source rows (bsrc, masked to N) and writes the micro-panel
 * bp as it goes, for the panel's later tiles: the copy rides on load and store slots the FMAs
 * leave idle instead of running as a loop of its own (a separate pack loop took 8-22 % of
 * ResNet-50's 1x1 GEMMs). Every tile also prefetches its share of the next panel's source rows
 * into L2 (pf), one row per k step, so the packing tile finds them there. */
typedef struct {
    const float *ap;
    float *bp; /* the B micro-panel (written by a packing tile) */
    float *c;
    int64_t ldc, kc;
    int nc, readc;
    float alpha, beta;
    const float *bsrc; /* a packing tile's source: row kk of the panel at bsrc + kk * brs */
    int64_t brs;
    __mmask16 bm0, bm1; /* its columns [0, 16) and [16, 32) that lie inside N */
    /* the lines of the next panel's source this tile prefetches: pf_lines of them from offset
     * pf_off of the row at pf, in steps of 16 floats, rows pf_rs apart, pf_lpr lines a row */
    const float *pf;
    int64_t pf_rs, pf_lines;
    int pf_off, pf_lpr;
} sg_tile_t;

static inline __attribute__((always_inline, target("avx512f"))) void
sg_kernel(const sg_tile_t *t, const int mr, const int nv, const int trans, const int pack)
{
    __m512 acc[SG_MR][2];
#pragma GCC unroll 12
    for (int i = 0; i < mr; i++) {
        acc[i][0] = _mm512_setzero_ps();
        acc[i][1] = _mm512_setzero_ps();
    }
    const float *ap = t->ap, *bs = t->bsrc, *pf = t->pf;
    float *bp = t->bp;
    int64_t pfn = t->pf_lines;
    int pfl = t->pf_off / 16;
#pragma GCC unroll 4
    for (int64_t kk = 0; kk < t->kc; kk++, ap += SG_MR, bp += SG_NR) {
#pragma GCC unroll 2
        for (int u = 0; u < 2; u++) /* two lines a k step */
            if (pfn > 0) {
                if (pfl == t->pf_lpr) /* the next row only when one more line is wanted */
                    pfl = 0, pf += t->pf_rs;
                /* an address, not an element: a line may start past the row's last float */
                _mm_prefetch((const char *)((uintptr_t)pf + 64u * (unsigned)pfl), _MM_HINT_T1);
                pfl++, pfn--;
            }
        __m512 b0, b1;
        if (pack) {
            b0 = _mm512_maskz_loadu_ps(t->bm0, bs);
            _mm512_store_ps(bp, b0);
            b1 = nv > 1 ? _mm512_maskz_loadu_ps(t->bm1, bs + 16) : b0;
            if (nv > 1)
                _mm512_store_ps(bp + 16, b1);
            bs += t->brs;
        } else {
            b0 = _mm512_load_ps(bp);
            b1 = nv > 1 ? _mm512_load_ps(bp + 16) : b0;
        }
#pragma GCC unroll 12
        for (int i = 0; i < mr; i++) {
            const __m512 av = _mm512_set1_ps(ap[i]);
            acc[i][0] = _mm512_fmadd_ps(av, b0, acc[i][0]);
            if (nv > 1)
                acc[i][1] = _mm512_fmadd_ps(av, b1, acc[i][1]);
        }
    }
    const __m512 va = _mm512_set1_ps(t->alpha), vb = _mm512_set1_ps(t->beta);
    if (trans) {
        const __mmask16 mrow = (__mmask16)((1u << mr) - 1u);
#pragma GCC unroll 2
        for (int v = 0; v < nv; v++) {
            __m512 r[16];
#pragma GCC unroll 16
            for (int i = 0; i < 16; i++)
                r[i] = i < mr ? _mm512_mul_ps(acc[i < mr ? i : 0][v], va) : _mm512_setzero_ps();
            sg_tr16(r);
            const int rows = t->nc - 16 * v < 16 ? t->nc - 16 * v : 16;
            for (int l = 0; l < rows; l++) {
                float *c = t->c + (16 * v + l) * t->ldc;
                __m512 x = r[l];
                if (t->readc)
                    x = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(mrow, c), x);
                _mm512_mask_storeu_ps(c, mrow, x);
            }
        }
        return;
    }
    const int last = (t->nc - 1) / 16; /* the vector holding column nc - 1 */
    const int rem = t->nc - 16 * last;
    const __mmask16 mlast = (__mmask16)(rem >= 16 ? 0xFFFFu : (1u << rem) - 1u);
#pragma GCC unroll 12
    for (int i = 0; i < mr; i++) {
        float *c = t->c + i * t->ldc;
#pragma GCC unroll 2
        for (int v = 0; v < nv; v++) {
            if (v > last)
                break;
            __m512 r = _mm512_mul_ps(acc[i][v], va);
            if (v < last || rem == 16) {
                if (t->readc)
                    r = _mm512_fmadd_ps(vb, _mm512_loadu_ps(c + 16 * v), r);
                _mm512_storeu_ps(c + 16 * v, r);
            } else {
                if (t->readc)
                    r = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(mlast, c + 16 * v), r);
                _mm512_mask_storeu_ps(c + 16 * v, mlast, r);
            }
        }
    }
}

/* sg_k<trans><pack>_<mr>_<nv>: one instantiation per tile shape and mode */
#define SG_K1(tag, mr, nv, trans, pack)                                                            \
    static SG_TARGET void sg_k##tag##_##mr##_##nv(const sg_tile_t *t)                              \
    {                                                                                              \
        sg_kernel(t, mr, nv, trans, pack);                                                         \
    }
#define SG_K(mr, nv)                                                                               \
    SG_K1(nn, mr, nv, 0, 0) SG_K1(np, mr, nv, 0, 1) SG_K1(tn, mr, nv, 1, 0) SG_K1(tp, mr, nv, 1, 1)
#define SG_K2(mr) SG_K(mr, 1) SG_K(mr, 2)
/* clang-format off */
SG_K2(1) SG_K2(2) SG_K2(3) SG_K2(4) SG_K2(5) SG_K2(6) SG_K2(7) SG_K2(8) SG_K2(9) SG_K2(10)
SG_K2(11) SG_K2(12)
#undef SG_K2
#undef SG_K

#undef SG_K1
typedef void (*sg_kfn_t)(const sg_tile_t *t);
/* sg_table[mr - 1][trans][pack][nv - 1] */
#define SG_KV(tag, mr) {sg_k##tag##_##mr##_1, sg_k##tag##_##mr##_2}
#define SG_KP(mr) {{SG_KV(nn, mr), SG_KV(np, mr)}, {SG_KV(tn, mr), SG_KV(tp, mr)}}
static const sg_kfn_t sg_table[SG_MR][2][2][2] = {SG_KP(1), SG_KP(2),  SG_KP(3),  SG_KP(4),
                                                  SG_KP(5), SG_KP(6),  SG_KP(7),  SG_KP(8),
                                                  SG_KP(9), SG_KP(10), SG_KP(11), SG_KP(12)};
#undef SG_KP
#undef SG_KV
/* clang-format on */

/* ---- driver ------------------------------------------------------------------------------ */

/* C = beta * C (beta == 0: zeros, C not read) for k == 0. */
static void sg_scale(int64_t m, int64_t n, float beta, float *c, int64_t rs, int64_t cs)
{
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            c[i * rs + j * cs] = beta == 0.0f ? 0.0f : beta * c[i * rs + j * cs];
}

/* The source lines of the B panel that follows (ic, pc, jr) in sg_run's loop order, as rows of
 * lpr lines (row-major B: its kc rows of 32 floats; column-major: its 32 columns of kc floats;
 * other views: none), shared among the panel's `tiles` tiles by sg_pf_share. */
typedef struct {
    const float *base;
    int64_t rs, lines, share;
    int lpr;
} sg_pf_t;

/* B's size (floats) from which the tiles prefetch the next panel: half of L2 (sysconf; 2 MiB
 * where it does not say). A B that stays in L2 gains nothing from it and loses the load slots:
 * on the Intel VM (2 MiB L2, one thread, dnnbench --cache=hot) the prefetch took ResNet-50's 1x1
 * layers of 3.2 MB x from 150-157 to 166-172 GFLOP/s, its 4 MB 7x7 filters from 140-143 to
 * 145-149, and cost the 14x14 layers (0.2-0.8 MB) 5 % (172 -> 164). */
static int64_t sg_pf_min_floats(void)
{
    static int64_t min = 0; /* a benign race: every thread stores the same value */
    if (min == 0) {
        long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
        min = (l2 > 0 ? (int64_t)l2 : 2 << 20) / 2 / (int64_t)sizeof(float);
    }
    return min;
}

static void sg_pf_next(int64_t m, int64_t n, int64_t k, int64_t ic, int64_t pc, int64_t jr,
                       const float *b, int64_t b_rs, int64_t b_cs, int64_t tiles, sg_pf_t *pf)
{
    *pf = (sg_pf_t){.lpr = 1};
    if (b == NULL) /* B from a source: nothing to prefetch */
        return;
    int64_t nic = ic, npc = pc, njr = jr + SG_NR;
    if (njr >= n) {
        njr = 0, npc += SG_KC;
        if (npc >= k)
            npc = 0, nic += SG_MC;
    }
    const int64_t nkc = k - npc < SG_KC ? k - npc : SG_KC, nnr = n - njr < SG_NR ? n - njr : SG_NR;
    int64_t rows = 0, len = 0;
    pf->base = b + npc * b_rs + njr * b_cs, pf->rs = 0;
    if (nic >= m || k * n < sg_pf_min_floats()) /* done, or B stays in L2 by itself */
        ;
    else if (b_cs == 1)
        rows = nkc, len = SG_NR, pf->rs = b_rs;
    else if (b_rs == 1)
        rows = nnr, len = nkc, pf->rs = b_cs;
    pf->lpr = (int)((len + 30) / 16); /* offsets 0, 16, ... below len + 15: an unaligned row */
    pf->lines = rows * pf->lpr;
    pf->share = (pf->lines + tiles - 1) / tiles;
}

/* Tile p's share of pf's lines into t. */
static void sg_pf_share(const sg_pf_t *pf, int64_t p, sg_tile_t *t)
{
    const int64_t q0 = p * pf->share < pf->lines ? p * pf->share : pf->lines;
    const int64_t q1 = q0 + pf->share < pf->lines ? q0 + pf->share : pf->lines;
    t->pf_lines = q1 - q0, t->pf_rs = pf->rs, t->pf_lpr = pf->lpr;
    if (q1 > q0) { /* only then: pf->base is b's first element, rows within it */
        t->pf = pf->base + q0 / pf->lpr * pf->rs;
        t->pf_off = (int)(q0 % pf->lpr * 16);
    }
}

/* B from b (strides b_rs, b_cs) or, when src is not NULL, from src's callbacks (gemm.h). */
static SG_TARGET void sg_run(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                             int64_t a_rs, int64_t a_cs, int64_t a_inner, int64_t a_ocs,
                             const float *b, int64_t b_rs, int64_t b_cs, fd_cpu_bsource_t *src,
                             float beta, float *c, int64_t ldc, int trans)
{
    float apack[SG_MC * SG_KC + 16] __attribute__((aligned(64)));
    float bpack[SG_KC * SG_NR + 16] __attribute__((aligned(64)));
    /* (M block, K block) pairs, M blocks outermost; with a source K blocks outermost, so each
     * K block's `block` runs once and the source may keep its panels for every M block (each
     * element still sums its K blocks in order: the same bits) */
    const int64_t nmb = (m + SG_MC - 1) / SG_MC, nkb = (k + SG_KC - 1) / SG_KC;
    for (int64_t blk = 0; blk < nmb * nkb; blk++) {
        const int64_t ib = src != NULL ? blk % nmb : blk / nkb;
        const int64_t ic = ib * SG_MC, pc = (src != NULL ? blk / nmb : blk % nkb) * SG_KC;
        const int64_t mc = m - ic < SG_MC ? m - ic : SG_MC;
        {
            const int64_t kc = k - pc < SG_KC ? k - pc : SG_KC;
            sg_tile_t t;
            t.kc = kc, t.ldc = ldc, t.alpha = alpha;
            t.beta = pc == 0 ? beta : 1.0f;
            t.readc = pc > 0 || beta != 0.0f;
            sg_pack_a(mc, pc, kc, a + ic * a_rs, a_rs, a_cs, a_inner, a_ocs, apack);
            if (src != NULL && ib == 0)
                src->block(src, pc, kc);
            for (int64_t jr = 0; jr < n; jr += SG_NR) {
                const int nr = (int)(n - jr < SG_NR ? n - jr : SG_NR);
                /* row-major B: the first tile packs the panel (sg_kernel) */
                const int fused = src == NULL && b_cs == 1;
                if (fused) {
                    t.bsrc = b + pc * b_rs + jr, t.brs = b_rs;
                    t.bm0 = (__mmask16)(nr >= 16 ? 0xFFFFu : (1u << nr) - 1u);
                    t.bm1 = (__mmask16)(nr >= 32   ? 0xFFFFu
                                        : nr <= 16 ? 0u
                                                   : (1u << (nr - 16)) - 1u);
                }
                t.bp = bpack, t.nc = nr;
                if (src != NULL)
                    t.bp = src->panel(src, pc, kc, jr, nr, bpack);
                else if (!fused)
                    sg_pack_b(kc, nr, b + pc * b_rs + jr * b_cs, b_rs, b_cs, bpack);
                const int nv = nr > 16 ? 2 : 1;
                const int64_t tiles = (mc + SG_MR - 1) / SG_MR;
                sg_pf_t pf;
                sg_pf_next(m, n, k, ic, pc, jr, b, b_rs, b_cs, tiles, &pf);
                for (int64_t p = 0; p < tiles; p++) {
                    int64_t i0, i1;
                    sg_tile(mc, p, &i0, &i1);
                    t.ap = apack + p * SG_MR * kc;
                    t.c = trans ? c + (ic + i0) + jr * ldc : c + (ic + i0) * ldc + jr;
                    sg_pf_share(&pf, p, &t);
                    sg_table[i1 - i0 - 1][trans][fused && p == 0][nv - 1](&t);
                }
            }
        }
    }
}

#endif /* SG_X86 */

void fd_cpu_sgemm_avx512(int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t a_rs,
                         int64_t a_cs, const float *b, int64_t b_rs, int64_t b_cs, float beta,
                         float *c, int64_t c_rs, int64_t c_cs)
{
    if (m <= 0 || n <= 0)
        return;
    if (n == 1)
        c_cs = 1;
    if (m == 1)
        c_rs = c_cs == 1 ? n : 1;
    if (c_cs != 1) { /* column-major C: compute C^T = B^T A^T, row-major */
        const float *t = a;
        int64_t s;
        a = b, b = t;
        s = m, m = n, n = s;
        s = a_rs, a_rs = b_cs, b_cs = s;
        s = a_cs, a_cs = b_rs, b_rs = s;
        c_rs = c_cs, c_cs = 1;
    }
    if (k <= 0) {
        sg_scale(m, n, beta, c, c_rs, c_cs);
        return;
    }
#if SG_X86
    /* N's last vector partly empty and M's less so: M along the vectors (C^T = B^T A^T with the
     * tiles stored transposed), e.g. N = 49 (7 x 7 pixels): 49 of 64 lanes busy, not 64 of 64 */
    const int64_t pad_m = (m + 15) / 16 * 16, pad_n = (n + 15) / 16 * 16;
    if (pad_m * n * 10 < m * pad_n * 9) {
        sg_run(n, m, k, alpha, b, b_cs, b_rs, k, 0, a, a_cs, a_rs, NULL, beta, c, c_rs, 1);
        return;
    }
    sg_run(m, n, k, alpha, a, a_rs, a_cs, k, 0, b, b_rs, b_cs, NULL, beta, c, c_rs, 0);
#else
    (void)alpha, (void)a, (void)b;
#endif
}

void fd_cpu_sgemm_avx512_src2(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                              int64_t a_rs, int64_t a_cs, int64_t a_inner, int64_t a_ocs,
                              fd_cpu_bsource_t *src, float beta, float *c, int64_t c_rs,
                              int64_t c_cs)
{
    if (m <= 0 || n <= 0)
        return;
    if (k <= 0) {
        sg_scale(m, n, beta, c, c_rs, c_cs);
        return;
    }
#if SG_X86
    if (a_inner <= 0 || a_inner > k)
        a_inner = k;
    /* a column-major C: the same tiles stored transposed (sg_kernel's trans) */
    if (c_cs == 1)
        sg_run(m, n, k, alpha, a, a_rs, a_cs, a_inner, a_ocs, NULL, 0, 0, src, beta, c, c_rs, 0);
    else
        sg_run(m, n, k, alpha, a, a_rs, a_cs, a_inner, a_ocs, NULL, 0, 0, src, beta, c, c_cs, 1);
#else
    (void)alpha, (void)a, (void)a_rs, (void)a_cs, (void)a_inner, (void)a_ocs, (void)src;
#endif
}

void fd_cpu_sgemm_avx512_src(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                             int64_t a_rs, int64_t a_cs, fd_cpu_bsource_t *src, float beta,
                             float *c, int64_t c_rs, int64_t c_cs)
{
    fd_cpu_sgemm_avx512_src2(m, n, k, alpha, a, a_rs, a_cs, k, 0, src, beta, c, c_rs, c_cs);
}
