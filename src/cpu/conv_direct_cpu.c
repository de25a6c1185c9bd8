/* SPDX-License-Identifier: MIT */
/*
 * conv_direct_cpu.c - direct forward convolution on the cpu backend: FLOAT, groups 1, 1-d or
 * 2-d, any filter size, padding, stride, dilation, tensor and filter strides, both modes
 * (src/impls.def: fd_conv_fwd_direct_f32 serves FWD DIRECT; it needs a workspace, so it does
 * not serve IMPLICIT_GEMM, whose contract is none).
 *
 * The user's tensors are copied into channel-blocked layouts in the caller's workspace, V
 * channels a block (V = 16 on AVX-512, 8 on AVX2 and the baseline path):
 *   x -> [image][C/V][Hp][sw][Wq][V]: zero-padded (no bounds checks in the kernel), and each
 *        padded row split into its sw stride phases (column c goes to phase c % sw, position
 *        c / sw), so the output columns of a tile read consecutive pixels whatever the stride;
 *   w -> [K/V][C][R][S][V]: V output channels of one (c, r, s) side by side, zero beyond K,
 *        flipped here for CUDNN_CONVOLUTION. Per K block this is a transpose of V filter rows
 *        (V x CRS: 16 x 16 blocks in registers on AVX-512), so a KCRS filter is read in order.
 * The kernel keeps V output channels x a tile of th x tw output pixels in vector registers (up
 * to 16 x 28 on AVX-512, 8 x 12 on AVX2) and walks (channel block, r, s, channel) adding
 * w-vector x broadcast x-pixel (FMA on AVX-512 / AVX2; multiply then add on the baseline path);
 * on AVX-512 the loop runs near the machine's peak (the 2-core Zen 5 VM, quiet, 2026-12-01: a
 * zmm FMA loop 275-286 GFLOP/s, two FMAs a cycle; ResNet-50's 3x3 layers 223-257 GFLOP/s,
 * packing included, at 56x56 to 7x7 outputs. Earlier figures of "1 zmm FMA per cycle" here were
 * measured while the machine was loaded). Filter rows over the padding are skipped (those output
 * rows get bands of their own); filter columns over it are multiplied by the zeros of the packed x,
 * as in the im2col and Winograd rows: the same sum for finite data, but a filter holding Inf
 * or NaN gives NaN at the left and right borders where ref (which skips them) does not.
 * Each output's sum is taken in one fixed order, by one thread: the bits do not depend on the
 * thread count. They do depend on the path (FMA or not, and V sets the order of channel
 * blocks), so the three paths agree bit for bit only on exact (integer) data.
 * The result is blended as ref does: alpha * acc + beta * y in double, rounded once; beta == 0
 * never reads y. AVX-512 transposes each row of a tile back to runs along W for NCHW outputs.
 * Threads (OpenMP, no BLAS inside): over K blocks, each thread packing its block of the filter
 * just before using it, when there are at least 4 blocks per thread; else the filter is packed
 * first and the threads share (image, K block, band of output rows) items; problems under 1M
 * multiply-adds run on one thread. Images are packed a chunk at a time (~16 MiB of x), so the
 * workspace stays bounded.
 *
 * AVX-512 refinements (2026-11-30; one thread, ResNet-50 N=1, min of 24 calls on the shared VM):
 * - K blocks go two at a time through dc_kernel512x2 (2 x 14 accumulators, each broadcast x
 *   value feeding two FMAs) when C >= 16; same order per output, so the same bits. Measured
 *   1-3% (measured on the loaded VM, where the one-block kernel already ran at the rate the
 *   load left it: ~118 GFLOP/s with the operands in L1; quiet, both shapes reach ~265).
 * - x rows with unit W stride are copied by 16 x 16 register transposes (dc_pack_row16), not
 *   element by element: 1x1 256 -> 64 at 56x56 1.45 -> 1.11 ms, 3x3 layers 2-5%.
 * - 1x1, pad 0, NCHW planes (y contiguous per channel; x too, or any x when strided): a GEMM
 *   kernel with the pixels as vectors (d1_kernel: 6 output channels x 4 vectors, w broadcast
 *   from the user's filter, y stored directly), no copies; a strided 1x1 gathers its pixels
 *   into the workspace first. Planes of 16 m + 1 pixels (7x7) add the last pixel as sums along
 *   the channels (d1e_kernel; its order differs, see there). 0.91-1.00 ms where the blocked
 *   path took 1.0-1.27 ms (stride-1 1x1 layers), 2.09 against 2.56 ms (1024 -> 2048, stride
 *   2, 7x7 out). Exact (integer) data stay exact: one FMA per product, float sums.
 *
 * AVX2 refinements (2026-12-04, the 2-vCPU Zen 3 VM without AVX-512; one thread, ResNet-50
 * N=1, min of 3 x 20 calls, dnnbench --cache=hot):
 * - K blocks go two at a time here too (dc_kernel256x2: 2 x 6 accumulators, 8 loads per 12
 *   FMAs instead of 13), same order, same bits: 3x3 / 2 128 -> 128 at 56x56 4.63 -> 3.83 ms,
 *   3x3 64 -> 64 at 56x56 3.90 -> 3.25 ms. Also with few channels (conv1, C = 3: 5.53 -> 4.57
 *   ms; on AVX-512 the one-block kernel's taller tiles won there).
 * - The pair kernel's (s, channel) loops of a filter row flattened into one loop over offset
 *   tables (dc_kernel256x2f; same order, same bits): conv1 3.72 -> 3.21 ms, 3x3 layers 5-9%.
 * - Outputs stored by 8 x 8 register transposes (dc_store8) and partial stores without
 *   vmaskmovps (slow on Zen): the scalar stores were a quarter of conv1 (4.57 -> 3.79 ms).
 * - The 1x1 GEMM path in an AVX2 form (d1y_kernel: 4 output channels x 3 vectors of 8 pixels;
 *   each block of 24 pixels first copied for all C, see d1y_items): the blocked path's bits;
 *   stride-1 1x1 layers 2.6-2.9 -> 1.11-1.19 ms (56x56 to 14x14), 7x7 planes 1.39-1.40 ms, the
 *   strided 256 -> 512 5.78 -> 2.37 ms (OpenBLAS's GEMM rows 1.37-1.5 ms on the same layers).
 *   Planes of 24 m + 1 pixels (7x7) add the last pixel as sums along the channels
 *   (d1y_extra: 8 partial sums, a fixed order that differs from the blocked kernel's, as
 *   d1e_kernel's on AVX-512): 512 -> 2048 and 2048 -> 512 at 7x7 1.38 -> 1.08 ms, the strided
 *   1024 -> 2048 to 7x7 2.87 -> 2.31 ms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define DC_X86 1
#else
#define DC_X86 0
#endif

#ifdef _OPENMP
#include <omp.h>
#endif

#include "../core/backend.h"
#include "gemm.h"

#define DC_CHUNK_FLOATS (4 * 1024 * 1024) /* packed x per image chunk (at least one image) */
#define DC_ACC_MAX 28                     /* accumulator vectors of the widest kernel */
#define DC_TH_MAX 4
#define DC_PAR_MACS (1 << 20) /* smaller problems run on one thread */
#define DC_L2_FLOATS (96 * 1024) /* 384 KiB: what the AVX2 loop order counts on keeping in L2 */
#define DC_FLAT_MAX 1024 /* (s, channel) steps of one filter row in dc_kernel256x2f's tables */

/* One tile's view of the packed data (floats). */
typedef struct {
    const float *x; /* packed x of the tile's image at its first output row / column, r = s = 0 */
    const float *w; /* packed filter of the tile's K block */
    float *out;     /* th * tw * V accumulators, pixel-major */
    int64_t cbn;    /* channel blocks */
    int64_t c_last; /* valid channels of the last block */
    int64_t r0, r1; /* filter rows [r0, r1) that fall inside x for every row of the tile */
    int64_t R, S;   /* filter */
    int64_t sw, dw_q, dw_ph; /* W stride; dilation as (positions, phases) in the split row */
    int64_t wq;              /* positions per phase */
    int64_t x_cb;            /* floats between channel blocks */
    int64_t r_step;          /* floats between filter rows: dil_h rows */
    int64_t row_step;        /* floats between output rows: stride_h rows */
    int64_t w_ci;            /* floats between filter channels: R * S * V */
    int64_t w_kb;            /* floats between the two K blocks of a pair kernel */
    /* The AVX2 pair kernel's (s, channel) steps of one filter row as offsets (dc_flat_fill):
     * x (position of tap s in the split row, plus the channel) and w (s * V + channel *
     * w_ci), for full channel blocks and for the last one. */
    const int32_t *xo_full, *wo_full, *xo_last, *wo_last;
    int64_t n_full, n_last;
} dc_tile_t;

typedef void (*dc_kernel_fn)(const dc_tile_t *t);

/* ---- the kernels ------------------------------------------------------------------------ */

/* The body of every vector kernel: NK K blocks (1 or 2; the second packed t->w_kb floats
 * after the first) x a tile of TH x TW pixels. NK, TH, TW are constants at each use, so the
 * loops over the tile unroll and the accumulators live in registers. Each output's sum runs
 * over (channel block, r, s, channel), one FMA each, whatever NK. */
#define DC_KERNEL_BODY(NK, VEC, V, ZERO, LOAD, BCAST, FMA, STORE)                                  \
    VEC acc[NK][DC_ACC_MAX / NK];                                                                  \
    _Pragma("GCC unroll 2") for (int b = 0; b < NK; b++)                                           \
        _Pragma("GCC unroll 32") for (int i = 0; i < TH * TW; i++) acc[b][i] = ZERO();             \
    for (int64_t cb = 0; cb < t->cbn; cb++) {                                                      \
        const int64_t cn = cb == t->cbn - 1 ? t->c_last : (V);                                     \
        const float *xc = t->x + cb * t->x_cb;                                                     \
        const float *wc = t->w + cb * t->w_ci * (V);                                               \
        for (int64_t r = t->r0; r < t->r1; r++) {                                                  \
            const float *xr = xc + r * t->r_step;                                                  \
            int64_t ph = 0, q = 0;                                                                 \
            for (int64_t s = 0; s < t->S; s++) {                                                   \
                const float *xs = xr + (ph * t->wq + q) * (V);                                     \
                const float *ws = wc + (r * t->S + s) * (V);                                       \
                for (int64_t ci = 0; ci < cn; ci++) {                                              \
                    VEC wv[NK];                                                                    \
                    _Pragma("GCC unroll 2") for (int b = 0; b < NK; b++) wv[b] =                   \
                        LOAD(ws + ci * t->w_ci + b * t->w_kb);                                     \
                    _Pragma("GCC unroll 8") for (int i = 0; i < TH; i++)                           \
                        _Pragma("GCC unroll 16") for (int j = 0; j < TW; j++)                      \
                    {                                                                              \
                        const VEC xb = BCAST(xs + i * t->row_step + j * (V) + ci);                 \
                        _Pragma("GCC unroll 2") for (int b = 0; b < NK; b++) acc[b][i * TW + j] =  \
                            FMA(wv[b], xb, acc[b][i * TW + j]);                                    \
                    }                                                                              \
                }                                                                                  \
                ph += t->dw_ph, q += t->dw_q;                                                      \
                if (ph >= t->sw)                                                                   \
                    ph -= t->sw, q++;                                                              \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    _Pragma("GCC unroll 2") for (int b = 0; b < NK; b++)                                           \
        _Pragma("GCC unroll 32") for (int i = 0; i < TH * TW; i++)                                 \
            STORE(t->out + (b * TH * TW + i) * (V), acc[b][i]);

#if DC_X86
#define DC_BCAST512(p) _mm512_set1_ps(*(p))
#define DC_BCAST256(p) _mm256_broadcast_ss(p)

static inline __attribute__((always_inline, target("avx512f"))) void
dc_kernel512(const dc_tile_t *t, const int TH, const int TW)
{
    DC_KERNEL_BODY(1, __m512, 16, _mm512_setzero_ps, _mm512_loadu_ps, DC_BCAST512, _mm512_fmadd_ps,
                   _mm512_storeu_ps)
}

static inline __attribute__((always_inline, target("avx2,fma"))) void
dc_kernel256(const dc_tile_t *t, const int TH, const int TW)
{
    DC_KERNEL_BODY(1, __m256, 8, _mm256_setzero_ps, _mm256_loadu_ps, DC_BCAST256, _mm256_fmadd_ps,
                   _mm256_storeu_ps)
}

/* Two K blocks at once: 2 x TH*TW accumulators (at most 28 on AVX-512, 12 on AVX2), each
 * broadcast x value feeding two FMAs from a register instead of one from memory, halving the
 * loads per FMA. On AVX-512 the gain is small (1-3%: the one-block kernel already runs near Zen
 * 4's one zmm FMA per cycle), mostly from the 14-pixel tiles' shorter edges; on AVX2 (16
 * registers, 8 x 12 one-block tiles: 13 loads per 12 FMAs) it is the difference between 60-78
 * and 85-99 GFLOP/s in L1 on the Zen 3 VM (one thread, 2026-12-04). Every output's sum keeps
 * the one-block kernel's order (channel block, r, s, channel; one FMA each), so the bits do not
 * change. */
static inline __attribute__((always_inline, target("avx512f"))) void
dc_kernel512x2(const dc_tile_t *t, const int TH, const int TW)
{
    DC_KERNEL_BODY(2, __m512, 16, _mm512_setzero_ps, _mm512_loadu_ps, DC_BCAST512, _mm512_fmadd_ps,
                   _mm512_storeu_ps)
}

static inline __attribute__((always_inline, target("avx2,fma"))) void
dc_kernel256x2(const dc_tile_t *t, const int TH, const int TW)
{
    DC_KERNEL_BODY(2, __m256, 8, _mm256_setzero_ps, _mm256_loadu_ps, DC_BCAST256, _mm256_fmadd_ps,
                   _mm256_storeu_ps)
}

/* dc_kernel256x2 with the (s, channel) loops of a filter row flattened into one loop over a
 * table of offsets (the tile's xo / wo): the same steps in the same order (channel block, r,
 * s, channel; one FMA each), so the same bits, without the per-tap bookkeeping between
 * channel loops of 8 (or 3: ResNet's conv1, where it took a fifth of the time). */
static inline __attribute__((always_inline, target("avx2,fma"))) void
dc_kernel256x2f(const dc_tile_t *t, const int TH, const int TW)
{
    __m256 a0[DC_ACC_MAX / 2], a1[DC_ACC_MAX / 2];
    _Pragma("GCC unroll 16") for (int i = 0; i < TH * TW; i++) a0[i] = a1[i] = _mm256_setzero_ps();
    const int64_t row_step = t->row_step, w_kb = t->w_kb;
    for (int64_t cb = 0; cb < t->cbn; cb++) {
        const int last = cb == t->cbn - 1;
        const int64_t n = last ? t->n_last : t->n_full;
        const int32_t *xo = last ? t->xo_last : t->xo_full, *wo = last ? t->wo_last : t->wo_full;
        const float *xc = t->x + cb * t->x_cb, *wc = t->w + cb * t->w_ci * 8;
        for (int64_t r = t->r0; r < t->r1; r++) {
            const float *xr = xc + r * t->r_step, *wr = wc + r * t->S * 8;
            for (int64_t e = 0; e < n; e++) {
                const float *xs = xr + xo[e], *ws = wr + wo[e];
                const __m256 w0 = _mm256_loadu_ps(ws), w1 = _mm256_loadu_ps(ws + w_kb);
                _Pragma("GCC unroll 8") for (int i = 0; i < TH; i++)
                    _Pragma("GCC unroll 16") for (int j = 0; j < TW; j++)
                {
                    const __m256 b = _mm256_broadcast_ss(xs + i * row_step + j * 8);
                    a0[i * TW + j] = _mm256_fmadd_ps(w0, b, a0[i * TW + j]);
                    a1[i * TW + j] = _mm256_fmadd_ps(w1, b, a1[i * TW + j]);
                }
            }
        }
    }
    _Pragma("GCC unroll 16") for (int i = 0; i < TH * TW; i++)
    {
        _mm256_storeu_ps(t->out + i * 8, a0[i]);
        _mm256_storeu_ps(t->out + (TH * TW + i) * 8, a1[i]);
    }
}

#define DC_P512(th, tw)                                                                            \
    static __attribute__((target("avx512f"))) void dc_kp512_##th##_##tw(const dc_tile_t *t)        \
    {                                                                                              \
        dc_kernel512x2(t, th, tw);                                                                 \
    }

#define DC_K512(th, tw)                                                                            \
    static __attribute__((target("avx512f"))) void dc_k512_##th##_##tw(const dc_tile_t *t)         \
    {                                                                                              \
        dc_kernel512(t, th, tw);                                                                   \
    }
#define DC_P256(th, tw)                                                                            \
    static __attribute__((target("avx2,fma"))) void dc_kp256_##th##_##tw(const dc_tile_t *t)       \
    {                                                                                              \
        dc_kernel256x2(t, th, tw);                                                                 \
    }
#define DC_F256(th, tw)                                                                            \
    static __attribute__((target("avx2,fma"))) void dc_kf256_##th##_##tw(const dc_tile_t *t)       \
    {                                                                                              \
        dc_kernel256x2f(t, th, tw);                                                                \
    }
#define DC_K256(th, tw)                                                                            \
    static __attribute__((target("avx2,fma"))) void dc_k256_##th##_##tw(const dc_tile_t *t)        \
    {                                                                                              \
        dc_kernel256(t, th, tw);                                                                   \
    }

/* Tiles of at most 28 (AVX-512: 32 registers) or 12 (AVX2: 16) accumulators; dc_tile_pick
 * never asks for more rows or columns than these. */
#define DC_COLS_1_TO_7(M, th) M(th, 1) M(th, 2) M(th, 3) M(th, 4) M(th, 5) M(th, 6) M(th, 7)
#define DC_COLS_8_TO_14(M, th) M(th, 8) M(th, 9) M(th, 10) M(th, 11) M(th, 12) M(th, 13) M(th, 14)
DC_COLS_1_TO_7(DC_K512, 1)
DC_COLS_8_TO_14(DC_K512, 1)
DC_COLS_1_TO_7(DC_K512, 2)
DC_COLS_8_TO_14(DC_K512, 2)
DC_COLS_1_TO_7(DC_K512, 3)
DC_K512(3, 8)
DC_K512(3, 9)
DC_COLS_1_TO_7(DC_K512, 4)
DC_COLS_1_TO_7(DC_P512, 1)
DC_COLS_8_TO_14(DC_P512, 1)
DC_COLS_1_TO_7(DC_P512, 2)
DC_P256(1, 1)
DC_P256(1, 2)
DC_P256(1, 3)
DC_P256(1, 4)
DC_P256(1, 5)
DC_P256(1, 6)
DC_P256(2, 1)
DC_P256(2, 2)
DC_P256(2, 3)
DC_F256(1, 1)
DC_F256(1, 2)
DC_F256(1, 3)
DC_F256(1, 4)
DC_F256(1, 5)
DC_F256(1, 6)
DC_F256(2, 1)
DC_F256(2, 2)
DC_F256(2, 3)
DC_COLS_1_TO_7(DC_K256, 1)
DC_K256(1, 8)
DC_K256(1, 9)
DC_K256(1, 10)
DC_K256(1, 11)
DC_K256(1, 12)
DC_COLS_1_TO_7(DC_K256, 2) /* 2 x 7 is never picked (14 > 12); kept for a uniform table */
DC_K256(3, 1)
DC_K256(3, 2)
DC_K256(3, 3)
DC_K256(3, 4)

#define DC_ROW7(isa, th)                                                                           \
    dc_k##isa##_##th##_1, dc_k##isa##_##th##_2, dc_k##isa##_##th##_3, dc_k##isa##_##th##_4,        \
        dc_k##isa##_##th##_5, dc_k##isa##_##th##_6, dc_k##isa##_##th##_7
#define DC_ROW14(isa, th)                                                                          \
    DC_ROW7(isa, th), dc_k##isa##_##th##_8, dc_k##isa##_##th##_9, dc_k##isa##_##th##_10,           \
        dc_k##isa##_##th##_11, dc_k##isa##_##th##_12, dc_k##isa##_##th##_13, dc_k##isa##_##th##_14

/* [th - 1][tw - 1]; NULL where the tile would not fit the registers. */
static const dc_kernel_fn dc_table512[DC_TH_MAX][14] = {
    {DC_ROW14(512, 1)},
    {DC_ROW14(512, 2)},
    {DC_ROW7(512, 3), dc_k512_3_8, dc_k512_3_9},
    {DC_ROW7(512, 4)},
};
/* The pair kernels: tiles of at most 14 pixels. */
static const dc_kernel_fn dc_table512x2[DC_TH_MAX][14] = {
    {DC_ROW14(p512, 1)},
    {DC_ROW7(p512, 2)},
    {NULL},
    {NULL},
};
/* AVX2 pairs: tiles of at most 6 pixels. */
static const dc_kernel_fn dc_table256x2[DC_TH_MAX][14] = {
    {dc_kp256_1_1, dc_kp256_1_2, dc_kp256_1_3, dc_kp256_1_4, dc_kp256_1_5, dc_kp256_1_6},
    {dc_kp256_2_1, dc_kp256_2_2, dc_kp256_2_3},
    {NULL},
    {NULL},
};
/* The same, flattened (dc_kernel256x2f). */
static const dc_kernel_fn dc_table256x2f[DC_TH_MAX][14] = {
    {dc_kf256_1_1, dc_kf256_1_2, dc_kf256_1_3, dc_kf256_1_4, dc_kf256_1_5, dc_kf256_1_6},
    {dc_kf256_2_1, dc_kf256_2_2, dc_kf256_2_3},
    {NULL},
    {NULL},
};
static const dc_kernel_fn dc_table256[DC_TH_MAX][14] = {
    {DC_ROW7(256, 1), dc_k256_1_8, dc_k256_1_9, dc_k256_1_10, dc_k256_1_11, dc_k256_1_12},
    {DC_ROW7(256, 2)},
    {dc_k256_3_1, dc_k256_3_2, dc_k256_3_3, dc_k256_3_4},
    {NULL},
};
#endif /* DC_X86 */

/* The baseline path: the same order, multiply then add (no FMA without the instruction). */
static void dc_kernel_generic(const dc_tile_t *t, int th, int tw)
{
    enum { V = 8 };
    float acc[DC_ACC_MAX * V];
    memset(acc, 0, sizeof(float) * (size_t)(th * tw * V));
    for (int64_t cb = 0; cb < t->cbn; cb++) {
        const int64_t cn = cb == t->cbn - 1 ? t->c_last : V;
        const float *xc = t->x + cb * t->x_cb;
        const float *wc = t->w + cb * V * t->w_ci;
        for (int64_t r = t->r0; r < t->r1; r++) {
            const float *xr = xc + r * t->r_step;
            int64_t ph = 0, q = 0;
            for (int64_t s = 0; s < t->S; s++) {
                const float *xs = xr + (ph * t->wq + q) * V;
                const float *ws = wc + (r * t->S + s) * V;
                for (int64_t ci = 0; ci < cn; ci++) {
                    const float *wv = ws + ci * t->w_ci;
                    for (int i = 0; i < th; i++)
                        for (int j = 0; j < tw; j++) {
                            const float xv = xs[i * t->row_step + j * V + ci];
                            float *a = acc + (i * tw + j) * V;
                            for (int l = 0; l < V; l++)
                                a[l] = a[l] + wv[l] * xv;
                        }
                }
                ph += t->dw_ph, q += t->dw_q;
                if (ph >= t->sw)
                    ph -= t->sw, q++;
            }
        }
    }
    memcpy(t->out, acc, sizeof(float) * (size_t)(th * tw * V));
}

/* ---- instruction-set choice --------------------------------------------------------------- */

typedef struct {
    int v;       /* lanes = channels per block */
    int acc_max; /* accumulator vectors */
    int th_max, tw_max;
    const dc_kernel_fn (*table)[14]; /* NULL: the generic kernel */
    const dc_kernel_fn (*pair)[14];  /* two K blocks a tile (NULL: none); tiles of at most
                                        acc_max / 2 pixels, th_max 2 */
    const dc_kernel_fn (*flat)[14];  /* the pair kernels over offset tables (NULL: none) */
} dc_isa_t;

static const dc_isa_t dc_isa_generic = {8, 12, 3, 12, NULL, NULL, NULL};

/* FREEDNN_CPU_ISA=avx512|avx2|generic caps the path, as for the depthwise row (tests run all
 * three on one machine; a request the CPU cannot honour falls to the next lower path). */
static const dc_isa_t *dc_isa_pick(void)
{
#if DC_X86
    static const dc_isa_t avx512 = {16, DC_ACC_MAX, 4, 14, dc_table512, dc_table512x2, NULL};
    static const dc_isa_t avx2 = {8, 12, 3, 12, dc_table256, dc_table256x2, dc_table256x2f};
    const char *cap = getenv("FREEDNN_CPU_ISA");
    int limit = !cap ? 2 : strcmp(cap, "generic") == 0 ? 0 : strcmp(cap, "avx2") == 0 ? 1 : 2;
    __builtin_cpu_init();
    if (limit >= 2 && __builtin_cpu_supports("avx512f"))
        return &avx512;
    if (limit >= 1 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return &avx2;
#endif
    return &dc_isa_generic;
}

static const dc_isa_t *dc_isa(void)
{
    static const dc_isa_t *isa; /* a benign race: every thread stores the same pointer */
    if (!isa)
        isa = dc_isa_pick();
    return isa;
}

/* ---- the plan ----------------------------------------------------------------------------- */

typedef struct {
    int64_t v;
    int64_t n, c, k, h, w, r, s, oh, ow;
    int64_t sh, sw, dh, dw, ph, pw;
    int64_t cbn, kbn, c_last;
    int64_t hp, wp, wq, x_row, x_cb, x_img; /* packed x: rows, padded width, per phase, steps */
    int64_t w_kb;                           /* packed filter floats per K block */
    int64_t chunk;                          /* images packed at a time */
    int64_t xp_floats, wp_floats;           /* each rounded up to 64 bytes */
    int th, tw;                             /* the tile (edges may be smaller) */
    int pair;                               /* K blocks go two at a time (isa->pair) */
    int64_t nrt;                            /* row bands per image */
    int64_t top, mid, bot, thm;             /* output rows [0, top) and [bot, oh): one band each
                                               (filter rows over the padding skipped);
                                               [top, bot): mid bands of up to thm rows */
} dc_plan_t;

static int64_t dc_round(int64_t floats)
{
    return (floats + 15) / 16 * 16;
}

static void dc_plan(const fd_conv_problem_t *p, const dc_isa_t *isa, dc_plan_t *q)
{
    memset(q, 0, sizeof *q);
    const int64_t v = isa->v;
    q->v = v;
    q->n = p->n, q->c = p->c, q->k = p->k;
    q->h = p->in[1], q->w = p->in[2], q->r = p->flt[1], q->s = p->flt[2];
    q->oh = p->out[1], q->ow = p->out[2];
    q->sh = p->stride[1], q->sw = p->stride[2], q->dh = p->dil[1], q->dw = p->dil[2];
    q->ph = p->pad[1], q->pw = p->pad[2];
    q->cbn = (q->c + v - 1) / v, q->kbn = (q->k + v - 1) / v;
    q->c_last = q->c - (q->cbn - 1) * v;
    q->hp = (q->oh - 1) * q->sh + (q->r - 1) * q->dh + 1;
    q->wp = (q->ow - 1) * q->sw + (q->s - 1) * q->dw + 1;
    q->wq = (q->wp + q->sw - 1) / q->sw;
    q->x_row = q->sw * q->wq * v, q->x_cb = q->hp * q->x_row, q->x_img = q->cbn * q->x_cb;
    q->w_kb = q->c * q->r * q->s * v;
    q->chunk = DC_CHUNK_FLOATS / q->x_img;
    q->chunk = q->chunk < 1 ? 1 : q->chunk > q->n ? q->n : q->chunk;
    q->xp_floats = dc_round(q->chunk * q->x_img);
    q->wp_floats = dc_round(q->kbn * q->w_kb);
    /* Columns split evenly into tiles of at most tw_max; then as many rows as the registers
     * allow. */
    /* With few channels (ResNet's conv1, C = 3) the loops around the channel loop dominate: on
     * AMD's AVX-512 (Zen 5) the one-block kernel's taller tiles measured faster (2.5 against 3.0
     * ms), on Intel's (the Sapphire Rapids VM, 2026-12-05) the pair kernel, whose broadcasts feed
     * two FMAs (1.98 -> 1.77 ms, 119 -> 133 GFLOP/s, min of 50 hot calls; onednn_vs_freednn
     * 0.62 -> 0.70) */
    q->pair = isa->pair != NULL && q->kbn >= 2 &&
              (q->c >= 16 || v == 8 || !(fd_backend_cpu_profile() & FD_CPU_PROFILE_ZEN));
    const int acc_max = q->pair ? isa->acc_max / 2 : isa->acc_max;
    const int tw_max = acc_max < isa->tw_max ? acc_max : isa->tw_max;
    int64_t nct = (q->ow + tw_max - 1) / tw_max;
    q->tw = (int)((q->ow + nct - 1) / nct);
    int64_t th = acc_max / q->tw;
    th = th > (q->pair ? 2 : isa->th_max) ? (q->pair ? 2 : isa->th_max) : th;
    q->th = (int)(th > q->oh ? q->oh : th);
    /* Rows whose filter taps reach into the padding get bands of their own, so those taps are
     * skipped, not multiplied by zeros (ref skips them: the same sum for finite data, and a
     * filter holding Inf gives no NaN there); the rows between are split evenly. */
    q->top = (q->ph + q->sh - 1) / q->sh;
    q->top = q->top > q->oh ? q->oh : q->top;
    const int64_t last = q->h - 1 + q->ph - (q->r - 1) * q->dh; /* largest oh * sh whose last
                                                                   filter row lies inside x */
    q->bot = last < 0 ? 0 : last / q->sh + 1;
    q->bot = q->bot > q->oh ? q->oh : q->bot < q->top ? q->top : q->bot;
    q->mid = (q->bot - q->top + q->th - 1) / q->th;
    q->thm = q->mid ? (q->bot - q->top + q->mid - 1) / q->mid : 1;
    q->nrt = q->top + q->mid + (q->oh - q->bot);
}

/* ---- packing ----------------------------------------------------------------------------- */

#if DC_X86
/* dst[m * 16 + i] = row i's element m, for rows i < kn (zero above) and elements m < mn of 16
 * rows ld floats apart; masked loads never read past element mn of a row. */
static __attribute__((target("avx512f"))) void dc_transpose16(const float *src, int64_t ld,
                                                              int64_t kn, int64_t mn, float *dst)
{
    const __mmask16 mask = (__mmask16)((1u << mn) - 1u);
    __m512 r[16], t[16];
    /* Fully unrolled, with masks instead of branches, so r[] and t[] stay in registers; a zero
     * mask (rows >= kn) reads no memory. */
#pragma GCC unroll 16
    for (int i = 0; i < 16; i++) {
        r[i] = _mm512_maskz_loadu_ps(i < kn ? mask : 0, src + i * ld);
        /* 16 rows are 16 streams, more than the hardware prefetcher follows well */
        _mm_prefetch((const char *)(src + i * ld + 64), _MM_HINT_T0);
    }
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) { /* per 128-bit lane: pairs of rows interleaved */
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++) { /* r[4g + j], lane L: column 4L + j of rows 4g .. 4g + 3 */
        r[4 * g + 0] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0x44);
        r[4 * g + 1] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0xEE);
        r[4 * g + 2] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0x44);
        r[4 * g + 3] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0xEE);
    }
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) { /* 4 x 4 transpose of 128-bit lanes across row groups */
        __m512 v0 = _mm512_shuffle_f32x4(r[j], r[4 + j], 0x44);
        __m512 v1 = _mm512_shuffle_f32x4(r[j], r[4 + j], 0xEE);
        __m512 v2 = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0x44);
        __m512 v3 = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0xEE);
        t[0 + j] = _mm512_shuffle_f32x4(v0, v2, 0x88);  /* column j */
        t[4 + j] = _mm512_shuffle_f32x4(v0, v2, 0xDD);  /* column 4 + j */
        t[8 + j] = _mm512_shuffle_f32x4(v1, v3, 0x88);  /* column 8 + j */
        t[12 + j] = _mm512_shuffle_f32x4(v1, v3, 0xDD); /* column 12 + j */
    }
#pragma GCC unroll 16
    for (int m = 0; m < 16; m++)
        if (m < mn)
            _mm512_storeu_ps(dst + m * 16, t[m]);
}
/* 8 x 8 transpose in registers: on return r[j] lane i = old r[i] lane j. */
static inline __attribute__((always_inline, target("avx2,fma"))) void dc_tr8(__m256 r[8])
{
    __m256 t[8], u[8];
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) { /* rows 2i, 2i+1 interleaved per 128 bits */
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) { /* u[4h + c]: rows 4h .. 4h+3 of columns c (low), c + 4 */
        u[4 * h + 0] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0x44);
        u[4 * h + 1] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0xEE);
        u[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0x44);
        u[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0xEE);
    }
#pragma GCC unroll 4
    for (int c = 0; c < 4; c++) {
        r[c] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x20);
        r[c + 4] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x31);
    }
}

/* dc_transpose16 for 8 lanes (AVX2): dst[m * 8 + i] = row i's element m, for rows i < kn (zero
 * above) and elements m < mn <= 8 of 8 rows ld floats apart; masked loads never read past
 * element mn of a row. */
static __attribute__((target("avx2,fma"))) void dc_transpose8(const float *src, int64_t ld,
                                                              int64_t kn, int64_t mn, float *dst)
{
    const __m256i m =
        _mm256_cmpgt_epi32(_mm256_set1_epi32((int)mn), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256 r[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++)
        r[i] = i < kn
                   ? (mn == 8 ? _mm256_loadu_ps(src + i * ld) : _mm256_maskload_ps(src + i * ld, m))
                   : _mm256_setzero_ps();
    dc_tr8(r);
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++)
        if (j < mn)
            _mm256_storeu_ps(dst + j * 8, r[j]);
}
#endif

/* K block kb of w -> [K/V][C][R][S][V], zero for k >= K; CUDNN_CONVOLUTION's flip applied here.
 * Rows of a KCRS filter (each K row one run of C * R * S) are read sequentially, V rows at a time,
 * and transposed in blocks of 16 elements (AVX-512 / AVX2: in registers); other filter layouts
 * element by element. */
static void dc_pack_filter(const fd_conv_problem_t *p, const dc_plan_t *q, const float *w,
                           float *dst, int simd, int64_t kb)
{
    const int64_t v = q->v, rs = q->r * q->s, crs = q->c * rs;
    const int flip = !p->cross_correlation;
    const int rows_flat = p->ws[4] == 1 && p->ws[3] == q->s && p->ws[1] == rs;
    const int fast = DC_X86 && rows_flat && simd && (v == 16 || v == 8);
    const int64_t kn = q->k - kb * v < v ? q->k - kb * v : v;
    const float *wk = w + kb * v * p->ws[0];
    float tmp[16 * 16];
    int64_t c = 0, r = 0, s = 0; /* source (c, r, s) of element m */
    for (int64_t m0 = 0; m0 < crs; m0 += 16) {
        const int64_t mn = crs - m0 < 16 ? crs - m0 : 16;
#if DC_X86
        if (fast) { /* (c, r, s) only serve the flip and other layouts */
            float *to = flip ? tmp : dst + m0 * v;
            if (v == 16) {
                dc_transpose16(wk + m0, p->ws[0], kn, mn, to);
            } else {
                dc_transpose8(wk + m0, p->ws[0], kn, mn < 8 ? mn : 8, to);
                if (mn > 8)
                    dc_transpose8(wk + m0 + 8, p->ws[0], kn, mn - 8, to + 64);
            }
            if (!flip)
                continue;
        }
#endif
        if (rows_flat && !fast) {
            for (int64_t kk = 0; kk < v; kk++)
                for (int64_t mm = 0; mm < mn; mm++)
                    tmp[mm * v + kk] = kk < kn ? wk[kk * p->ws[0] + m0 + mm] : 0.0f;
        }
        for (int64_t mm = 0; mm < mn; mm++) {
            float *d = dst + (flip ? c * rs + rs - 1 - (r * q->s + s) : m0 + mm) * v;
            if (rows_flat) {
                for (int64_t kk = 0; kk < v; kk++)
                    d[kk] = tmp[mm * v + kk];
            } else {
                const float *src = wk + c * p->ws[1] + r * p->ws[3] + s * p->ws[4];
                for (int64_t kk = 0; kk < v; kk++)
                    d[kk] = kk < kn ? src[kk * p->ws[0]] : 0.0f;
            }
            if (++s == q->s) {
                s = 0;
                if (++r == q->r)
                    r = 0, c++;
            }
        }
    }
}

#if DC_X86
/* One x row of one channel block, W contiguous (xs[4] == 1), 16 lanes: runs of 16 columns of
 * the cn channel rows (ld floats apart) transposed in registers (dc_transpose16; lanes >= cn
 * zero) into padded column pw + iw, i.e. phase (pw + iw) % sw, position (pw + iw) / sw. The
 * element-by-element gather it replaces was a quarter of a 1x1 layer's time at 256 channels. */
static __attribute__((target("avx512f"))) void dc_pack_row16(const float *src, int64_t ld,
                                                             int64_t cn, const dc_plan_t *q,
                                                             float *dst)
{
    float tmp[16 * 16] __attribute__((aligned(64)));
    /* the packed row holds padded columns [0, sw * wq): the last input columns may lie beyond
     * every output's reach */
    const int64_t end = q->w < q->sw * q->wq - q->pw ? q->w : q->sw * q->wq - q->pw;
    for (int64_t iw0 = 0; iw0 < end; iw0 += 16) {
        const int64_t mn = end - iw0 < 16 ? end - iw0 : 16;
        if (q->sw == 1) {
            dc_transpose16(src + iw0, ld, cn, mn, dst + (q->pw + iw0) * 16);
            continue;
        }
        dc_transpose16(src + iw0, ld, cn, mn, tmp);
        for (int64_t m = 0; m < mn; m++) {
            const int64_t col = q->pw + iw0 + m;
            _mm512_storeu_ps(dst + (col % q->sw * q->wq + col / q->sw) * 16,
                             _mm512_load_ps(tmp + m * 16));
        }
    }
}

/* dc_pack_row16 for 8 lanes (AVX2, dc_transpose8). */
static __attribute__((target("avx2,fma"))) void
dc_pack_row8(const float *src, int64_t ld, int64_t cn, const dc_plan_t *q, float *dst)
{
    float tmp[8 * 8] __attribute__((aligned(32)));
    const int64_t end = q->w < q->sw * q->wq - q->pw ? q->w : q->sw * q->wq - q->pw;
    for (int64_t iw0 = 0; iw0 < end; iw0 += 8) {
        const int64_t mn = end - iw0 < 8 ? end - iw0 : 8;
        if (q->sw == 1) {
            dc_transpose8(src + iw0, ld, cn, mn, dst + (q->pw + iw0) * 8);
            continue;
        }
        dc_transpose8(src + iw0, ld, cn, mn, tmp);
        for (int64_t m = 0; m < mn; m++) {
            const int64_t col = q->pw + iw0 + m;
            _mm256_storeu_ps(dst + (col % q->sw * q->wq + col / q->sw) * 8,
                             _mm256_load_ps(tmp + m * 8));
        }
    }
}
#endif

/* Images n0 .. n0 + nb of x -> [image][C/V][Hp][sw][Wq][V] with zero padding. Lanes beyond C
 * in the last block are not read by the kernel (the AVX-512 row copy zeroes them, the element
 * copy leaves them). */
static void dc_pack_x(const fd_conv_problem_t *p, const dc_plan_t *q, const float *x, int64_t n0,
                      int64_t nb, float *xp, int par, int simd)
{
    const int64_t v = q->v, rows = nb * q->cbn * q->hp;
    const int64_t xsw = p->xs[4];
    /* (C = 3: the element copy writes 3 lanes, this one 16; W = 1, a fully connected layer:
     * one column a transpose, slower than 16 element copies) */
    const int rows16 = DC_X86 && simd && xsw == 1 && q->c >= v && q->w >= 4;
    (void)rows16;
#pragma omp parallel for schedule(static) if (par)
    for (int64_t row = 0; row < rows; row++) {
        const int64_t img = row / (q->cbn * q->hp), cb = row / q->hp % q->cbn, hp = row % q->hp;
        const int64_t cn = cb == q->cbn - 1 ? q->c_last : v, ih = hp - q->ph;
        float *dst = xp + img * q->x_img + cb * q->x_cb + hp * q->x_row;
        if (ih < 0 || ih >= q->h) {
            memset(dst, 0, sizeof(float) * (size_t)q->x_row);
            continue;
        }
        const float *src = x + (n0 + img) * p->xs[0] + cb * v * p->xs[1] + ih * p->xs[3];
#if DC_X86
        if (rows16) {
            for (int64_t phase = 0; phase < q->sw; phase++) /* the padding columns */
                for (int64_t pos = 0; pos < q->wq; pos++) {
                    const int64_t iw = pos * q->sw + phase - q->pw;
                    if (iw < 0 || iw >= q->w)
                        memset(dst + (phase * q->wq + pos) * v, 0, sizeof(float) * (size_t)v);
                }
            if (v == 16)
                dc_pack_row16(src, p->xs[1], cn, q, dst);
            else
                dc_pack_row8(src, p->xs[1], cn, q, dst);
            continue;
        }
#endif
        for (int64_t phase = 0; phase < q->sw; phase++)
            for (int64_t pos = 0; pos < q->wq; pos++) {
                float *d = dst + (phase * q->wq + pos) * v;
                const int64_t iw = pos * q->sw + phase - q->pw;
                if (iw < 0 || iw >= q->w) {
                    memset(d, 0, sizeof(float) * (size_t)v);
                    continue;
                }
                const float *s = src + iw * xsw;
                for (int64_t ci = 0; ci < cn; ci++)
                    d[ci] = s[ci * p->xs[1]];
            }
    }
}

/* ---- the row ------------------------------------------------------------------------------ */

static int dc_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    if (!fd_cpu_dtype_ok(p, CUDNN_DATA_FLOAT, why, why_size))
        return 0;
    if (p->compute != CUDNN_DATA_FLOAT) {
        snprintf(why, why_size, "accumulates in float; compute type is %s",
                 fd_dtype_name(p->compute));
        return 0;
    }
    if (p->groups != 1) {
        snprintf(why, why_size, "groups %lld: the direct row takes groups 1 only",
                 (long long)p->groups);
        return 0;
    }
    if (p->nsp > 2) {
        snprintf(why, why_size, "1-d and 2-d only (%d-d problem)", p->nsp);
        return 0;
    }
    return 1;
}

static size_t dc_workspace_for(const fd_conv_problem_t *p, const dc_isa_t *isa)
{
    dc_plan_t q;
    dc_plan(p, isa, &q);
    return (size_t)(q.xp_floats + q.wp_floats) * sizeof(float);
}

/* The largest of the paths' needs, so the size does not depend on FREEDNN_CPU_ISA. */
static size_t dc_workspace(const fd_conv_problem_t *p)
{
    static const dc_isa_t v16 = {16, DC_ACC_MAX, 4, 14, NULL, NULL, NULL};
    size_t a = dc_workspace_for(p, &v16), b = dc_workspace_for(p, &dc_isa_generic);
    return a > b ? a : b;
}

/* y[n][kb * V + kk][oh0 + i][ow0 + j] = alpha * acc + beta * y (double, rounded once). */
static void dc_store(const fd_conv_problem_t *p, const dc_plan_t *q, const float *acc, float *y,
                     int64_t n, int64_t kb, int64_t oh0, int64_t ow0, int th, int tw, double alpha,
                     double beta)
{
    const int64_t v = q->v, kn = q->k - kb * v < v ? q->k - kb * v : v;
    const int plain = alpha == 1.0 && beta == 0.0;
    for (int64_t kk = 0; kk < kn; kk++)
        for (int i = 0; i < th; i++) {
            float *yr =
                y + n * p->ys[0] + (kb * v + kk) * p->ys[1] + (oh0 + i) * p->ys[3] + ow0 * p->ys[4];
            const float *a = acc + (int64_t)i * tw * v + kk;
            if (plain) {
                for (int j = 0; j < tw; j++)
                    yr[j * p->ys[4]] = a[j * v];
            } else {
                for (int j = 0; j < tw; j++) {
                    double val = alpha * (double)a[j * v];
                    if (beta != 0.0)
                        val += beta * (double)yr[j * p->ys[4]];
                    yr[j * p->ys[4]] = (float)val;
                }
            }
        }
}

#if DC_X86
/* dc_store for 16 lanes and unit W stride: each row of the tile transposed to output channels
 * (dc_transpose16), then stored as runs of tw floats. */
static __attribute__((target("avx512f"))) void
dc_store16(const fd_conv_problem_t *p, const dc_plan_t *q, const float *acc, float *y, int64_t n,
           int64_t kb, int64_t oh0, int64_t ow0, int th, int tw, double alpha, double beta)
{
    const int64_t kn = q->k - kb * 16 < 16 ? q->k - kb * 16 : 16;
    const __mmask16 mask = (__mmask16)((1u << tw) - 1u);
    const int plain = alpha == 1.0 && beta == 0.0;
    float tmp[16 * 16] __attribute__((aligned(64)));
    for (int i = 0; i < th; i++) {
        dc_transpose16(acc + (int64_t)i * tw * 16, 16, tw, 16, tmp);
        float *yr = y + n * p->ys[0] + kb * 16 * p->ys[1] + (oh0 + i) * p->ys[3] + ow0;
        for (int64_t kk = 0; kk < kn; kk++, yr += p->ys[1]) {
            if (plain) {
                _mm512_mask_storeu_ps(yr, mask, _mm512_load_ps(tmp + kk * 16));
                continue;
            }
            for (int j = 0; j < tw; j++) {
                double val = alpha * (double)tmp[kk * 16 + j];
                if (beta != 0.0)
                    val += beta * (double)yr[j];
                yr[j] = (float)val;
            }
        }
    }
}

/* The first n (1 to 8) lanes of v to dst; no masked store (vmaskmovps stores are slow on AMD's
 * Zen cores). */
static inline __attribute__((always_inline, target("avx2,fma"))) void
dc_store_lanes(float *dst, __m256 v, int n)
{
    if (n == 8) {
        _mm256_storeu_ps(dst, v);
        return;
    }
    __m128 h = _mm256_castps256_ps128(v);
    if (n >= 4) {
        _mm_storeu_ps(dst, h);
        h = _mm256_extractf128_ps(v, 1), dst += 4, n -= 4;
    }
    if (n >= 2) {
        _mm_storel_pi((__m64 *)dst, h);
        h = _mm_movehl_ps(h, h), dst += 2, n -= 2;
    }
    if (n)
        _mm_store_ss(dst, h);
}

/* dc_store for 8 lanes, unit W stride, alpha 1 and beta 0: each row of the tile transposed
 * (dc_tr8, 8 pixels at a time) and stored as runs along W (the scalar loop took a quarter of
 * ResNet's conv1 on AVX2: 1.5 ns an output). */
static __attribute__((target("avx2,fma"))) void dc_store8(const fd_conv_problem_t *p,
                                                          const dc_plan_t *q, const float *acc,
                                                          float *y, int64_t n, int64_t kb,
                                                          int64_t oh0, int64_t ow0, int th, int tw)
{
    const int64_t kn = q->k - kb * 8 < 8 ? q->k - kb * 8 : 8;
    for (int i = 0; i < th; i++) {
        float *yr = y + n * p->ys[0] + kb * 8 * p->ys[1] + (oh0 + i) * p->ys[3] + ow0;
        for (int j0 = 0; j0 < tw; j0 += 8) {
            const int cnt = tw - j0 < 8 ? tw - j0 : 8;
            __m256 r[8];
#pragma GCC unroll 8
            for (int j = 0; j < 8; j++)
                r[j] = j < cnt ? _mm256_loadu_ps(acc + ((int64_t)i * tw + j0 + j) * 8)
                               : _mm256_setzero_ps();
            dc_tr8(r);
            for (int64_t kk = 0; kk < kn; kk++)
                dc_store_lanes(yr + kk * p->ys[1] + j0, r[kk], cnt);
        }
    }
}
#endif

/* One filter row's (s, channel) steps for cn channels, in the kernels' order (s, then the
 * channel): x offsets in the split row (tap s at phase ph, position q) and w offsets; returns
 * the count, S * cn. */
static int64_t dc_flat_fill(const dc_plan_t *q, int64_t cn, int32_t *xo, int32_t *wo)
{
    const int64_t v = q->v, w_ci = q->r * q->s * v;
    const int64_t dw_q = q->dw / q->sw, dw_ph = q->dw % q->sw;
    int64_t ph = 0, pos = 0, n = 0;
    for (int64_t s = 0; s < q->s; s++) {
        for (int64_t ci = 0; ci < cn; ci++, n++) {
            xo[n] = (int32_t)((ph * q->wq + pos) * v + ci);
            wo[n] = (int32_t)(s * v + ci * w_ci);
        }
        ph += dw_ph, pos += dw_q;
        if (ph >= q->sw)
            ph -= q->sw, pos++;
    }
    return n;
}

/* Output rows [oh0, oh0 + th) of K blocks kb .. kb + nk - 1 (nk 1 or 2; packed at wk, the
 * second q->w_kb floats after the first) of image n0 + img, every column tile. */
static void dc_band(const fd_conv_problem_t *p, const dc_plan_t *q, const dc_isa_t *isa,
                    const fd_conv_args_t *a, const float *xp, const float *wk, int64_t n0,
                    int64_t img, int64_t kb, int nk, int64_t rt)
{
    const int64_t v = q->v, kn = q->k - kb * v < nk * v ? q->k - kb * v : nk * v;
    int64_t oh0 = rt, r0 = 0, r1 = q->r;
    int th = 1;
    if (rt >= q->top && rt < q->top + q->mid) {
        oh0 = q->top + (rt - q->top) * q->thm;
        th = (int)(q->bot - oh0 < q->thm ? q->bot - oh0 : q->thm);
    } else {
        if (rt >= q->top)
            oh0 = q->bot + (rt - q->top - q->mid);
        const int64_t first = oh0 * q->sh - q->ph, end = q->h - first; /* x rows of tap 0 */
        r0 = first >= 0 ? 0 : (-first + q->dh - 1) / q->dh;
        r1 = end <= 0 ? 0 : (end - 1) / q->dh + 1;
        r1 = r1 > q->r ? q->r : r1;
        r0 = r0 > r1 ? r1 : r0;
    }
    float acc[DC_ACC_MAX * 16] __attribute__((aligned(64)));
    dc_tile_t t = {
        .w = wk,
        .out = acc,
        .cbn = q->cbn,
        .c_last = q->c_last,
        .r0 = r0,
        .r1 = r1,
        .R = q->r,
        .S = q->s,
        .sw = q->sw,
        .dw_q = q->dw / q->sw,
        .dw_ph = q->dw % q->sw,
        .wq = q->wq,
        .x_cb = q->x_cb,
        .r_step = q->dh * q->x_row,
        .row_step = q->sh * q->x_row,
        .w_ci = q->r * q->s * v,
        .w_kb = q->w_kb,
    };
    /* the flattened pair kernel's tables (dc_kernel256x2f), when a filter row's steps fit */
    int32_t xo[2][DC_FLAT_MAX], wo[2][DC_FLAT_MAX];
    const int flat = nk == 2 && isa->flat != NULL && q->s * v <= DC_FLAT_MAX;
    if (flat) {
        t.n_full = dc_flat_fill(q, v, xo[0], wo[0]);
        t.n_last = dc_flat_fill(q, q->c_last, xo[1], wo[1]);
        t.xo_full = xo[0], t.wo_full = wo[0], t.xo_last = xo[1], t.wo_last = wo[1];
    }
    for (int64_t ow0 = 0; ow0 < q->ow; ow0 += q->tw) {
        const int tw = (int)(q->ow - ow0 < q->tw ? q->ow - ow0 : q->tw);
        t.x = xp + img * q->x_img + oh0 * q->sh * q->x_row + ow0 * v;
        /* The tile's outputs are th x tw runs in V planes of y: ask for those lines (for
         * writing) before the arithmetic, so the stores after it do not wait for memory. */
        for (int64_t kk = 0; kk < kn; kk++)
            for (int i = 0; i < th; i++) {
                const float *yr = (const float *)a->out + (n0 + img) * p->ys[0] +
                                  (kb * v + kk) * p->ys[1] + (oh0 + i) * p->ys[3];
                __builtin_prefetch(yr + ow0 * p->ys[4], 1, 3);
                __builtin_prefetch(yr + (ow0 + tw - 1) * p->ys[4], 1, 3);
            }
        if (flat)
            isa->flat[th - 1][tw - 1](&t);
        else if (nk == 2)
            isa->pair[th - 1][tw - 1](&t);
        else if (isa->table)
            isa->table[th - 1][tw - 1](&t);
        else
            dc_kernel_generic(&t, th, tw);
        for (int b = 0; b < nk; b++) {
            const float *ab = acc + (int64_t)b * th * tw * v;
#if DC_X86
            if (v == 16 && p->ys[4] == 1) {
                dc_store16(p, q, ab, a->out, n0 + img, kb + b, oh0, ow0, th, tw, a->alpha,
                           a->beta);
                continue;
            }
            if (v == 8 && isa->table && p->ys[4] == 1 && a->alpha == 1.0 && a->beta == 0.0) {
                dc_store8(p, q, ab, a->out, n0 + img, kb + b, oh0, ow0, th, tw);
                continue;
            }
#endif
            dc_store(p, q, ab, a->out, n0 + img, kb + b, oh0, ow0, th, tw, a->alpha, a->beta);
        }
    }
}

#if DC_X86
/* ---- 1x1 stride 1 on NCHW planes (AVX-512) ------------------------------------------------- */

/* With a 1x1 filter, stride 1 and no padding, and x and y planes of H*W contiguous floats per
 * channel (NCHW), y[k][p] = sum_c w[k][c] x[c][p] is a GEMM whose pixel rows are already
 * vectors: the tile is D1_MR output channels x NV vectors of 16 pixels, x loaded straight from
 * the tensor, w[k][c] broadcast straight from the filter, y stored straight as rows. No copy of
 * x, no filter transpose, no output transpose (the blocked path spent 25-35% of a 1x1 layer's
 * time on those). The sum of every output is the blocked path's: c = 0 .. C-1, one FMA each, so
 * the bits are the same as the blocked kernel's. Taken where the last vector of the plane
 * wastes at most 1/12 of the lanes (H*W of 49 would waste a quarter). */
#define D1_MR 6
#define D1_NV 4
#define D1_KCH 24 /* output channels per work item (4 tiles): K = 512 gives 22 items, an even
                     split for 2 threads (48 gave 11: 6 against 5) */

typedef struct {
    const float *x; /* x[c][p] at pixel p0: c stride xc */
    const float *w; /* w[k][c] of the tile's first k: k stride wk, c stride wc */
    float *y;       /* y[k][p] at pixel p0: k stride yk */
    int64_t xc, wk, wc, yk, c;
    __mmask16 last; /* lanes of the last vector */
    double alpha, beta;
} d1_tile_t;

static inline __attribute__((always_inline, target("avx512f"))) void
d1_kernel(const d1_tile_t *t, const int MR, const int NV)
{
    __m512 acc[D1_MR][D1_NV];
    _Pragma("GCC unroll 8") for (int i = 0; i < MR; i++)
        _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++) acc[i][j] = _mm512_setzero_ps();
    const float *xc = t->x, *wc = t->w;
    for (int64_t c = 0; c < t->c; c++, xc += t->xc, wc += t->wc) {
        __m512 xv[D1_NV];
        _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++) xv[j] =
            _mm512_maskz_loadu_ps(j == NV - 1 ? t->last : (__mmask16)0xFFFF, xc + j * 16);
        _Pragma("GCC unroll 8") for (int i = 0; i < MR; i++) {
            const __m512 b = _mm512_set1_ps(wc[i * t->wk]);
            _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++) acc[i][j] =
                _mm512_fmadd_ps(b, xv[j], acc[i][j]);
        }
    }
    const int plain = t->alpha == 1.0 && t->beta == 0.0;
    _Pragma("GCC unroll 8") for (int i = 0; i < MR; i++)
        _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++) {
        float *yr = t->y + i * t->yk + j * 16;
        const __mmask16 m = j == NV - 1 ? t->last : (__mmask16)0xFFFF;
        if (plain) {
            _mm512_mask_storeu_ps(yr, m, acc[i][j]);
            continue;
        }
        float a[16] __attribute__((aligned(64)));
        _mm512_store_ps(a, acc[i][j]);
        for (int l = 0; l < 16; l++) { /* as dc_store: double, rounded once; beta == 0 never
                                           reads y */
            if (!((m >> l) & 1))
                continue;
            double val = t->alpha * (double)a[l];
            if (t->beta != 0.0)
                val += t->beta * (double)yr[l];
            yr[l] = (float)val;
        }
    }
}

#define D1_K(mr, nv)                                                                               \
    static __attribute__((target("avx512f"))) void d1_k_##mr##_##nv(const d1_tile_t *t)           \
    {                                                                                              \
        d1_kernel(t, mr, nv);                                                                      \
    }
#define D1_KROW(mr) D1_K(mr, 1) D1_K(mr, 2) D1_K(mr, 3) D1_K(mr, 4)
D1_KROW(1)
D1_KROW(2)
D1_KROW(3)
D1_KROW(4)
D1_KROW(5)
D1_KROW(6)
#define D1_TROW(mr) {d1_k_##mr##_1, d1_k_##mr##_2, d1_k_##mr##_3, d1_k_##mr##_4}
static void (*const d1_table[D1_MR][D1_NV])(const d1_tile_t *) = {
    D1_TROW(1), D1_TROW(2), D1_TROW(3), D1_TROW(4), D1_TROW(5), D1_TROW(6),
};

/* H*W = 16 m + 1 (ResNet's 7x7 planes: 49): NV full vectors and one extra pixel whose sums run
 * along the channels, 16 at a time (its x values gathered, w[k][c .. c + 15] loaded as vectors,
 * a filter with unit channel stride), so no FMA is spent on empty lanes (a fourth, one-lane
 * vector would waste a quarter of them). The extra pixel's sum is 16 partial sums (c mod 16)
 * added by _mm512_reduce_add_ps: a fixed order, not the blocked kernel's; the other pixels keep
 * it. */
static inline __attribute__((always_inline, target("avx512f"))) void
d1e_kernel(const d1_tile_t *t, const int MR, const int NV)
{
    __m512 acc[D1_MR][D1_NV], ext[D1_MR];
    _Pragma("GCC unroll 8") for (int i = 0; i < MR; i++) {
        ext[i] = _mm512_setzero_ps();
        _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++) acc[i][j] = _mm512_setzero_ps();
    }
    const __m512i idx = _mm512_mullo_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_set1_epi32((int)t->xc));
    const float *xc = t->x, *wc = t->w;
    for (int64_t c0 = 0; c0 < t->c; c0 += 16) {
        const int cn = t->c - c0 < 16 ? (int)(t->c - c0) : 16;
        const __mmask16 cm = (__mmask16)((1u << cn) - 1u);
        const __m512 xe =
            _mm512_mask_i32gather_ps(_mm512_setzero_ps(), cm, idx, xc + NV * 16, 4);
        _Pragma("GCC unroll 8") for (int i = 0; i < MR; i++) ext[i] =
            _mm512_fmadd_ps(_mm512_maskz_loadu_ps(cm, wc + i * t->wk), xe, ext[i]);
        for (int cc = 0; cc < cn; cc++, xc += t->xc, wc += t->wc) {
            __m512 xv[D1_NV];
            _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++) xv[j] =
                _mm512_loadu_ps(xc + j * 16);
            _Pragma("GCC unroll 8") for (int i = 0; i < MR; i++) {
                const __m512 b = _mm512_set1_ps(wc[i * t->wk]);
                _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++) acc[i][j] =
                    _mm512_fmadd_ps(b, xv[j], acc[i][j]);
            }
        }
    }
    const int plain = t->alpha == 1.0 && t->beta == 0.0;
    _Pragma("GCC unroll 8") for (int i = 0; i < MR; i++) {
        float *yr = t->y + i * t->yk;
        const float e = _mm512_reduce_add_ps(ext[i]);
        if (plain) {
            _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++)
                _mm512_storeu_ps(yr + j * 16, acc[i][j]);
            yr[NV * 16] = e;
            continue;
        }
        float a[D1_NV * 16 + 1] __attribute__((aligned(64)));
        _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++) _mm512_store_ps(a + j * 16, acc[i][j]);
        a[NV * 16] = e;
        for (int l = 0; l <= NV * 16; l++) {
            double val = t->alpha * (double)a[l];
            if (t->beta != 0.0)
                val += t->beta * (double)yr[l];
            yr[l] = (float)val;
        }
    }
}

#define D1E_K(mr, nv)                                                                              \
    static __attribute__((target("avx512f"))) void d1e_k_##mr##_##nv(const d1_tile_t *t)          \
    {                                                                                              \
        d1e_kernel(t, mr, nv);                                                                     \
    }
#define D1E_KROW(mr) D1E_K(mr, 1) D1E_K(mr, 2) D1E_K(mr, 3)
D1E_KROW(1)
D1E_KROW(2)
D1E_KROW(3)
D1E_KROW(4)
D1E_KROW(5)
D1E_KROW(6)
#define D1E_TROW(mr) {d1e_k_##mr##_1, d1e_k_##mr##_2, d1e_k_##mr##_3}
static void (*const d1e_table[D1_MR][D1_NV - 1])(const d1_tile_t *) = {
    D1E_TROW(1), D1E_TROW(2), D1E_TROW(3), D1E_TROW(4), D1E_TROW(5), D1E_TROW(6),
};

/* The AVX2 form (16 registers): D1Y_MR = 4 output channels x D1Y_NV = 3 vectors of 8 pixels,
 * 12 accumulators, 3 loads of x and 4 broadcasts of w per 12 FMAs (a 6 x 2 tile takes 8 loads;
 * the one-K-block blocked kernel 13). The same sum per output (c = 0 .. C-1, one FMA each) as
 * the AVX2 blocked kernel, so the same bits. The last vector of a row may be partial (MASKED:
 * masked loads, partial stores; the lanes beyond the plane never read or written). */
#define D1Y_MR 4
#define D1Y_NV 3

static inline __attribute__((always_inline, target("avx2,fma"))) void
d1y_kernel(const d1_tile_t *t, const int MR, const int NV, const int MASKED)
{
    __m256 acc[D1Y_MR][D1Y_NV];
    _Pragma("GCC unroll 4") for (int i = 0; i < MR; i++)
        _Pragma("GCC unroll 3") for (int j = 0; j < NV; j++) acc[i][j] = _mm256_setzero_ps();
    const int tail = __builtin_popcount((unsigned)t->last);
    const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(MASKED ? tail : 8),
                                         _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const float *xc = t->x, *wc = t->w;
    for (int64_t c = 0; c < t->c; c++, xc += t->xc, wc += t->wc) {
        __m256 xv[D1Y_NV];
        _Pragma("GCC unroll 3") for (int j = 0; j < NV; j++) xv[j] =
            MASKED && j == NV - 1 ? _mm256_maskload_ps(xc + j * 8, m) : _mm256_loadu_ps(xc + j * 8);
        _Pragma("GCC unroll 4") for (int i = 0; i < MR; i++)
        {
            const __m256 b = _mm256_broadcast_ss(wc + i * t->wk);
            _Pragma("GCC unroll 3") for (int j = 0; j < NV; j++) acc[i][j] =
                _mm256_fmadd_ps(b, xv[j], acc[i][j]);
        }
    }
    const int plain = t->alpha == 1.0 && t->beta == 0.0;
    _Pragma("GCC unroll 4") for (int i = 0; i < MR; i++)
        _Pragma("GCC unroll 3") for (int j = 0; j < NV; j++)
    {
        float *yr = t->y + i * t->yk + j * 8;
        const int lanes = MASKED && j == NV - 1 ? tail : 8;
        if (plain) {
            dc_store_lanes(yr, acc[i][j], lanes);
            continue;
        }
        float a[8] __attribute__((aligned(32)));
        _mm256_store_ps(a, acc[i][j]);
        for (int l = 0; l < lanes; l++) { /* as dc_store: double, rounded once; beta == 0
                                             never reads y */
            double val = t->alpha * (double)a[l];
            if (t->beta != 0.0)
                val += t->beta * (double)yr[l];
            yr[l] = (float)val;
        }
    }
}

#define D1Y_K(mr, nv)                                                                              \
    static __attribute__((target("avx2,fma"))) void d1y_k_##mr##_##nv(const d1_tile_t *t)          \
    {                                                                                              \
        d1y_kernel(t, mr, nv, 0);                                                                  \
    }                                                                                              \
    static __attribute__((target("avx2,fma"))) void d1y_m_##mr##_##nv(const d1_tile_t *t)          \
    {                                                                                              \
        d1y_kernel(t, mr, nv, 1);                                                                  \
    }
#define D1Y_KROW(mr) D1Y_K(mr, 1) D1Y_K(mr, 2) D1Y_K(mr, 3)
D1Y_KROW(1)
D1Y_KROW(2)
D1Y_KROW(3)
D1Y_KROW(4)
#define D1Y_TROW(mr)                                                                               \
    {                                                                                              \
        d1y_k_##mr##_1, d1y_k_##mr##_2, d1y_k_##mr##_3                                             \
    }
#define D1Y_MROW(mr)                                                                               \
    {                                                                                              \
        d1y_m_##mr##_1, d1y_m_##mr##_2, d1y_m_##mr##_3                                             \
    }
/* [masked][mr - 1][nv - 1] */
static void (*const d1y_table[2][D1Y_MR][D1Y_NV])(const d1_tile_t *) = {
    {D1Y_TROW(1), D1Y_TROW(2), D1Y_TROW(3), D1Y_TROW(4)},
    {D1Y_MROW(1), D1Y_MROW(2), D1Y_MROW(3), D1Y_MROW(4)},
};

/* 1 when the last pixel block is NV full vectors and one pixel (d1e_kernel). */
static int d1_extra(const fd_conv_problem_t *p, const dc_plan_t *q)
{
    if (q->v != 16)
        return 0;
    const int64_t pl = q->oh * q->ow, rem = pl % (D1_NV * 16);
    const int64_t xc = q->sh > 1 || q->sw > 1 ? pl : p->xs[1]; /* the gather's step */
    return rem % 16 == 1 && rem > 1 && p->ws[1] == 1 && xc < ((int64_t)1 << 27);
}

/* 1 when the problem takes the path above (AVX-512, or its AVX2 form: the caller checks that
 * the ISA has vector kernels; v is their width). A strided 1x1 takes it too, on a copy of the
 * pixels it reads (x[c][i * sh][j * sw] -> [c][i][j], per image, in the workspace): the im2col
 * row's column matrix, without the GEMM's packing. */
static int d1_fits(const fd_conv_problem_t *p, const dc_plan_t *q, int threads)
{
    if (q->r != 1 || q->s != 1 || q->ph != 0 || q->pw != 0)
        return 0;
    const int64_t pl = q->oh * q->ow, pad = (pl + 15) / 16 * 16 - pl;
    const int sub = q->sh > 1 || q->sw > 1;
    if (q->v == 16 && pad * 12 > pl && !d1_extra(p, q))
        return 0;
    if (q->v == 16 && sub && q->c * dc_round(pl) > q->xp_floats + q->wp_floats)
        return 0; /* (never: the blocked copies hold more) */
    if (q->v != 16 && threads * q->c * (D1Y_NV * 8 + 1) > q->xp_floats + q->wp_floats)
        return 0; /* the AVX2 form's slots (d1y_items) */
    return (sub || (p->xs[4] == 1 && (q->h == 1 || p->xs[3] == q->w))) && p->ys[4] == 1 &&
           (q->oh == 1 || p->ys[3] == q->ow);
}

/* Images [n0, n0 + nb) of x (image step x_img, channel step xc, pixel step 1). */
static void d1_items(const fd_conv_problem_t *p, const dc_plan_t *q, const fd_conv_args_t *a,
                     int par, const float *x, int64_t x_img, int64_t xc, int64_t n0, int64_t nb)
{
    const int64_t pl = q->oh * q->ow, blk = D1_NV * 16, pbn = (pl + blk - 1) / blk;
    const int64_t kcn = (q->k + D1_KCH - 1) / D1_KCH, items = nb * pbn * kcn;
    const int extra = d1_extra(p, q);
    (void)par;
#pragma omp parallel for schedule(static) if (par)
    for (int64_t it = 0; it < items; it++) {
        /* pixel blocks innermost: a static split then cuts along K, so the short last block
         * (196 = 3 x 64 + 4 pixels) does not land on one thread */
        const int64_t img = it / (pbn * kcn), kc = it / pbn % kcn, pb = it % pbn;
        const int64_t p0 = pb * blk, pn = pl - p0 < blk ? pl - p0 : blk;
        const int nv = (int)((pn + 15) / 16);
        const int64_t tail = pn - (nv - 1) * 16;
        d1_tile_t t = {
            .x = x + img * x_img + p0,
            .xc = xc,
            .wk = p->ws[0],
            .wc = p->ws[1],
            .yk = p->ys[1],
            .c = q->c,
            .last = (__mmask16)(tail == 16 ? 0xFFFFu : (1u << tail) - 1u),
            .alpha = a->alpha,
            .beta = a->beta,
        };
        const int64_t k1 = (kc + 1) * D1_KCH < q->k ? (kc + 1) * D1_KCH : q->k;
        for (int64_t k0 = kc * D1_KCH; k0 < k1; k0 += D1_MR) {
            const int mr = (int)(k1 - k0 < D1_MR ? k1 - k0 : D1_MR);
            t.w = (const float *)a->w + k0 * p->ws[0];
            t.y = (float *)a->out + (n0 + img) * p->ys[0] + k0 * p->ys[1] + p0;
            if (extra && pb == pbn - 1)
                d1e_table[mr - 1][nv - 2](&t); /* nv - 1 full vectors and one pixel */
            else
                d1_table[mr - 1][nv - 1](&t);
        }
    }
}

/* The AVX2 form: per block of D1Y_NV * 8 output pixels, x[c][block] for every c is first
 * copied into the thread's slot of the workspace (C rows of 24 floats, 96 bytes apart; a
 * strided 1x1 gathers its pixels there, with no copy of the whole plane), then every output
 * channel's tile runs on the copy. Straight from the tensor, the block's rows lie a plane apart
 * (12544 bytes at 56x56, which maps the rows of a 256-channel block onto 16 of L1's 64 sets):
 * the 256 -> 64 layer at 56x56 took 1.63 ms that way with K innermost, 1.44 with pixel blocks
 * innermost (x then streams through L3 once per 24 output channels). `slots` holds one C x 25
 * slot per thread (d1_fits checks). Items are (image, block, half of K when the blocks are
 * few), each packing its own copy. */
/* xb[c][0 .. 23] = src[c * ld + 0 .. 23] for c < cn. */
static __attribute__((target("avx2,fma"))) void d1y_copy24(const float *src, int64_t ld, int64_t cn,
                                                           float *xb)
{
    for (int64_t c = 0; c < cn; c++, src += ld, xb += 24) {
        const __m256 a = _mm256_loadu_ps(src), b = _mm256_loadu_ps(src + 8),
                     d = _mm256_loadu_ps(src + 16);
        _mm256_storeu_ps(xb, a), _mm256_storeu_ps(xb + 8, b), _mm256_storeu_ps(xb + 16, d);
    }
}

/* Block pb of image img's x -> xb[c][24] for every c (pixels beyond the plane not written). */
/* Pixel blocks of the AVX2 form: 24 pixels each, the last one partial, except where the
 * plane is 24 m + 1 pixels (ResNet's 7x7: 49) and the filter has unit channel stride: then the
 * last block is 25 pixels, 24 in vectors and one summed along the channels (d1y_extra), not a
 * block of its own that costs 40% of a full one for one pixel. *pn: the pixels of block pb. */
static int64_t d1y_blocks(const fd_conv_problem_t *p, const dc_plan_t *q, int64_t pb, int64_t *pn)
{
    const int64_t blk = D1Y_NV * 8, pl = q->oh * q->ow;
    const int ext = pl % blk == 1 && pl > 1 && p->ws[1] == 1;
    const int64_t pbn = ext ? pl / blk : (pl + blk - 1) / blk;
    if (pn)
        *pn = ext && pb == pbn - 1 ? blk + 1 : pl - pb * blk < blk ? pl - pb * blk : blk;
    return pbn;
}

/* y[i * yk] (i < mr) = the dot products of rows i of w (wk floats apart, unit channel stride)
 * with xe[0 .. C), each as 8 partial sums over c mod 8, added in a fixed order; blended as
 * the kernels do. */
static __attribute__((target("avx2,fma"))) void d1y_extra(const float *w, int64_t wk,
                                                          const float *xe, int64_t C, int mr,
                                                          float *y, int64_t yk, double alpha,
                                                          double beta)
{
    __m256 acc[D1Y_MR];
    for (int i = 0; i < D1Y_MR; i++)
        acc[i] = _mm256_setzero_ps();
    int64_t c = 0;
    for (; c + 8 <= C; c += 8) {
        const __m256 xv = _mm256_loadu_ps(xe + c);
        for (int i = 0; i < mr; i++)
            acc[i] = _mm256_fmadd_ps(_mm256_loadu_ps(w + i * wk + c), xv, acc[i]);
    }
    if (c < C) {
        const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(C - c)),
                                             _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        const __m256 xv = _mm256_maskload_ps(xe + c, m);
        for (int i = 0; i < mr; i++)
            acc[i] = _mm256_fmadd_ps(_mm256_maskload_ps(w + i * wk + c, m), xv, acc[i]);
    }
    for (int i = 0; i < mr; i++) {
        __m128 h = _mm_add_ps(_mm256_castps256_ps128(acc[i]), _mm256_extractf128_ps(acc[i], 1));
        h = _mm_add_ps(h, _mm_movehl_ps(h, h));
        h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
        const float sum = _mm_cvtss_f32(h);
        if (alpha == 1.0 && beta == 0.0) {
            y[i * yk] = sum;
            continue;
        }
        double val = alpha * (double)sum;
        if (beta != 0.0)
            val += beta * (double)y[i * yk];
        y[i * yk] = (float)val;
    }
}

static void d1y_pack(const fd_conv_problem_t *p, const dc_plan_t *q, const float *x, int64_t img,
                     int64_t pb, float *xb)
{
    const int64_t blk = D1Y_NV * 8, p0 = pb * blk;
    int64_t pn;
    d1y_blocks(p, q, pb, &pn);
    const float *xi = x + img * p->xs[0];
    if (pn == blk + 1) { /* the extra pixel's channels in a row after the block */
        const int64_t e = p0 + blk, i = e / q->ow, j = e % q->ow;
        const float *src = xi + i * q->sh * p->xs[3] + j * q->sw * p->xs[4];
        for (int64_t c = 0; c < q->c; c++)
            xb[q->c * blk + c] = src[c * p->xs[1]];
        pn = blk;
    }
    if (q->sh == 1 && q->sw == 1 && pn == blk) { /* three vectors a channel: a memcpy call
                                                       each cost 0.2 ms of a 1.2 ms layer */
        d1y_copy24(xi + p0, p->xs[1], q->c, xb);
        return;
    }
    if (q->sh == 1 && q->sw == 1) {
        for (int64_t c = 0; c < q->c; c++)
            memcpy(xb + c * blk, xi + c * p->xs[1] + p0, (size_t)pn * sizeof(float));
        return;
    }
    int64_t off[D1Y_NV * 8];
    for (int64_t e = 0; e < pn; e++) {
        const int64_t i = (p0 + e) / q->ow, j = (p0 + e) % q->ow;
        off[e] = i * q->sh * p->xs[3] + j * q->sw * p->xs[4];
    }
    for (int64_t c = 0; c < q->c; c++)
        for (int64_t e = 0; e < pn; e++)
            xb[c * blk + e] = xi[c * p->xs[1] + off[e]];
}

/* Output channels [k0, k1) of pixel block pb of image img, x packed at xb. */
static void d1y_run_block(const fd_conv_problem_t *p, const dc_plan_t *q, const fd_conv_args_t *a,
                          int64_t img, int64_t pb, const float *xb, int64_t k0, int64_t k1)
{
    const int64_t blk = D1Y_NV * 8, p0 = pb * blk;
    int64_t pn;
    d1y_blocks(p, q, pb, &pn);
    const int extra = pn == blk + 1;
    pn = extra ? blk : pn;
    const int nv = (int)((pn + 7) / 8);
    const int64_t tail = pn - (nv - 1) * 8;
    d1_tile_t t = {
        .x = xb,
        .xc = blk,
        .wk = p->ws[0],
        .wc = p->ws[1],
        .yk = p->ys[1],
        .c = q->c,
        .last = (__mmask16)((1u << tail) - 1u),
        .alpha = a->alpha,
        .beta = a->beta,
    };
    for (int64_t k = k0; k < k1; k += D1Y_MR) {
        const int mr = (int)(k1 - k < D1Y_MR ? k1 - k : D1Y_MR);
        t.w = (const float *)a->w + k * p->ws[0];
        t.y = (float *)a->out + img * p->ys[0] + k * p->ys[1] + p0;
        d1y_table[tail != 8][mr - 1][nv - 1](&t);
        if (extra)
            d1y_extra(t.w, p->ws[0], xb + q->c * blk, q->c, mr, t.y + blk, p->ys[1], a->alpha,
                      a->beta);
    }
}

static void d1y_items(const fd_conv_problem_t *p, const dc_plan_t *q, const fd_conv_args_t *a,
                      int par, float *slots)
{
    const int64_t blk = D1Y_NV * 8, pbn = d1y_blocks(p, q, 0, NULL);
#ifdef _OPENMP
    const int nt = par ? omp_get_max_threads() : 1;
#else
    const int nt = 1;
#endif
    const int64_t kparts = q->n * pbn >= 8 * (int64_t)nt || q->k < 2 * D1_KCH ? 1 : 2;
    const int64_t items = q->n * pbn * kparts, kt = (q->k + D1Y_MR - 1) / D1Y_MR;
    (void)par;
#pragma omp parallel if (par)
    {
#ifdef _OPENMP
        float *xb = slots + (int64_t)omp_get_thread_num() * q->c * (blk + 1);
#else
        float *xb = slots;
#endif
#pragma omp for schedule(static)
        for (int64_t it = 0; it < items; it++) {
            const int64_t img = it / (pbn * kparts), pb = it / kparts % pbn, kp = it % kparts;
            d1y_pack(p, q, a->x, img, pb, xb);
            const int64_t k0 = kt * kp / kparts * D1Y_MR, k1e = kt * (kp + 1) / kparts * D1Y_MR;
            d1y_run_block(p, q, a, img, pb, xb, k0, k1e < q->k ? k1e : q->k);
        }
    }
}

static cudnnStatus_t d1_run(const fd_conv_problem_t *p, const dc_plan_t *q,
                            const fd_conv_args_t *a, int par, float *xw)
{
    const float *x = a->x;
    if (q->v != 16) {
        d1y_items(p, q, a, par, xw);
        return CUDNN_STATUS_SUCCESS;
    }
    if (q->sh == 1 && q->sw == 1) {
        d1_items(p, q, a, par, x, p->xs[0], p->xs[1], 0, q->n);
        return CUDNN_STATUS_SUCCESS;
    }
    const int64_t pl = q->oh * q->ow;
    for (int64_t n = 0; n < q->n; n++) {
#pragma omp parallel for schedule(static) if (par)
        for (int64_t row = 0; row < q->c * q->oh; row++) {
            const int64_t c = row / q->oh, i = row % q->oh;
            const float *src = x + n * p->xs[0] + c * p->xs[1] + i * q->sh * p->xs[3];
            float *dst = xw + c * dc_round(pl) + i * q->ow; /* rows on cache lines */
            for (int64_t j = 0; j < q->ow; j++)
                dst[j] = src[j * q->sw * p->xs[4]];
        }
        d1_items(p, q, a, par, xw, 0, dc_round(pl), n, 1);
    }
    return CUDNN_STATUS_SUCCESS;
}
#endif /* DC_X86 */

/* With enough K blocks per thread, each thread takes a contiguous range of K blocks and packs
 * each block into one slot (its range's first) right before computing with it: the block is
 * still in its cache, and the packed filter never travels to memory (for 512 x 512 x 3 x 3
 * filters, packing all of it first and reading it back cost as much as the arithmetic at 7x7
 * outputs). Otherwise the filter is packed first and the threads share (image, K block, row
 * band) items. The bits are the same either way: each output is one tile's, summed in one
 * order. */
static cudnnStatus_t dc_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    const dc_isa_t *isa = dc_isa();
    dc_plan_t q;
    dc_plan(p, isa, &q);
    float *xp = a->workspace, *wp = xp + q.xp_floats;
    const int simd = isa->table != NULL;
    /* Small problems stay on one thread: a parallel region costs more than they do, and the
     * idle threads then spin while the caller works. */
    const int par = q.n * q.k * q.oh * q.ow * q.c * q.r * q.s >= DC_PAR_MACS;
#ifdef _OPENMP
    const int threads = par ? omp_get_max_threads() : 1;
#else
    const int threads = 1;
#endif
    /* AVX2, when the packed x of an image is well beyond L2 (3 x DC_L2_FLOATS) or the packed
     * filter fits half of it: the filter is packed first and the items walk K innermost within
     * chunks of K blocks whose packed filter fits half of L2, so each band of x comes from L3
     * once per chunk, not once per K group. Measured on the shared Zen 3 VM (min of 4 x 10
     * calls): conv1 (1.7 MB of packed x, read four times) ran at 3.9 or 5-7 ms from one process
     * to the next, now 3.9; the stride-2 3x3 128 -> 128 layer at 56x56 (1.7 MB, eight times)
     * 3.89 -> 3.74 ms on one thread, 3.02 -> 1.90 on two; the 28x28 3x3 layers (0.9 MB) were
     * 2-8% slower this way and keep the per-K-block order. */
    const int64_t kg = q.pair ? 2 : 1, kgn = (q.kbn + kg - 1) / kg; /* K groups */
    const int chunked = q.v == 8 && (q.x_img > 3 * DC_L2_FLOATS || q.wp_floats <= DC_L2_FLOATS / 2);
    int64_t kcg = kgn; /* K groups per chunk */
    if (chunked) {
        kcg = DC_L2_FLOATS / 2 / (q.w_kb * kg);
        kcg = kcg < 1 ? 1 : kcg > kgn ? kgn : kcg;
    }
    const int fused = !chunked && (threads == 1 || q.kbn >= 4 * (int64_t)threads);
#if DC_X86
    if (simd && d1_fits(p, &q, threads))
        return d1_run(p, &q, a, par, xp); /* xp holds at least C * oh * ow floats */
#endif
    for (int64_t n0 = 0; n0 < q.n; n0 += q.chunk) {
        const int64_t nb = q.n - n0 < q.chunk ? q.n - n0 : q.chunk;
        dc_pack_x(p, &q, a->x, n0, nb, xp, par, simd);
        if (fused) {
#pragma omp parallel if (par)
            {
#ifdef _OPENMP
                const int64_t nt = omp_get_num_threads(), tid = omp_get_thread_num();
#else
                const int64_t nt = 1, tid = 0;
#endif
                const int64_t lo = q.kbn * tid / nt, hi = q.kbn * (tid + 1) / nt;
                float *slot = wp + lo * q.w_kb;
                for (int64_t kb = lo; kb < hi;) {
                    const int nk = q.pair && hi - kb >= 2 ? 2 : 1;
                    for (int b = 0; b < nk; b++)
                        dc_pack_filter(p, &q, a->w, slot + b * q.w_kb, simd, kb + b);
                    for (int64_t img = 0; img < nb; img++)
                        for (int64_t rt = 0; rt < q.nrt; rt++)
                            dc_band(p, &q, isa, a, xp, slot, n0, img, kb, nk, rt);
                    kb += nk;
                }
            }
            continue;
        }
        if (n0 == 0) {
#pragma omp parallel for schedule(static) if (par)
            for (int64_t kb = 0; kb < q.kbn; kb++)
                dc_pack_filter(p, &q, a->w, wp + kb * q.w_kb, simd, kb);
        }
        if (chunked) {
            for (int64_t g0 = 0; g0 < kgn; g0 += kcg) {
                const int64_t gn = kgn - g0 < kcg ? kgn - g0 : kcg;
#pragma omp parallel for schedule(static) if (par)
                for (int64_t item = 0; item < nb * q.nrt * gn; item++) {
                    const int64_t kb = (g0 + item % gn) * kg, rt = item / gn % q.nrt;
                    const int nk = (int)(q.kbn - kb < kg ? q.kbn - kb : kg);
                    dc_band(p, &q, isa, a, xp, wp + kb * q.w_kb, n0, item / (gn * q.nrt), kb, nk,
                            rt);
                }
            }
            continue;
        }
        const int64_t per_img = kgn * q.nrt;
#pragma omp parallel for schedule(static) if (par)
        for (int64_t item = 0; item < nb * per_img; item++) {
            const int64_t kb = item / q.nrt % kgn * kg;
            const int nk = (int)(q.kbn - kb < kg ? q.kbn - kb : kg);
            dc_band(p, &q, isa, a, xp, wp + kb * q.w_kb, n0, item / per_img, kb, nk, item % q.nrt);
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

int fd_conv_fwd_direct_f32_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    return dc_applicable(p, why, why_size);
}
size_t fd_conv_fwd_direct_f32_workspace(const fd_conv_problem_t *p)
{
    return dc_workspace(p);
}
cudnnStatus_t fd_conv_fwd_direct_f32_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    return dc_run(p, a);
}
