/* SPDX-License-Identifier: MIT */
/*
 * conv_bwd_filter_implicit_gemm_f16_128xN__sm90.cu - backward filter (weight gradient) as a
 * warp-specialised split-K implicit GEMM on the sm_90a instructions: TMA loads into a 4-stage
 * shared-memory ring, mbarrier hand-off, wgmma with BOTH operands MN-major (transposed) from
 * shared memory, float accumulators in registers, float partials per split in the caller's
 * workspace, summed in split order by a second kernel. Row fd_conv_bwd_filter_implicit_gemm_
 * f16_128xN__sm90: BWD_FILTER ALGO_1 and ALGO_3, deterministic, HALF and BFLOAT16. On by
 * default on compute capability 9.0 since it ran clean on the H200 (test_gpu_conv_wgrad 3354 / 0,
 * memcheck / racecheck / initcheck, the sandbox's 7 ResNet-50 N=256 layers bitwise);
 * FREEDNN_WGMMA_WGRAD=0 turns it off, FREEDNN_WGMMA=0 turns every wgmma row off. The
 * dev/wgmma/wgrad.cu sandbox includes this file's device half (its Makefile extracts everything
 * from `#define WW_THREADS` to the host banner), with a checker and a timer. The sm_90a helpers
 * (mbarrier, TMA, wgmma and its descriptor, the tensor-map encoder, the CC 9.0 check) are in
 * wgmma_sm90.cuh, shared with the forward rows.
 *
 * GEMM mapping (the transpose of dw, so the large side of the small output is M):
 *   D[j, k] = sum_m X[m, j] * DY[m, k],  j = (f, c) in R*S*C (f the memory tap of KRSC dw),
 *   k in K, m = (n, p, q) the N*P*Q output pixels (the reduction, split across blocks);
 *   X[m, (f, c)] = x[n, p + t_r - pad_h, q + t_s - pad_w, c] (0 outside), t = f for
 *   cross-correlation and (R-1-f_r, S-1-f_s) for CUDNN_CONVOLUTION; DY[m, k] = dy[n, p, q, k].
 *   dw[k, f, c] = alpha * D[j, k] + beta * dw[k, f, c].
 * In memory both operands are [pixel][channel] (NHWC: channels contiguous), i.e. the reduction
 * index runs along rows: wgmma's A is M-major and B is N-major, which f16/bf16 wgmma reads from
 * shared memory with imm-trans-a = imm-trans-b = 1. One TMA box {64 channels, pixels} with
 * SWIZZLE_128B lands as 128-byte rows (one pixel each, 64 channels), 8-row 1024-byte swizzle
 * atoms stacked densely: exactly the MN-major 128B-swizzle canonical layout (PTX ISA, "Shared
 * Memory Matrix Layout": MN-major swizzled, LBO = offset between consecutive 64-element MN
 * groups, SBO = offset between consecutive 8-deep K groups). So: SBO = 1024 B, LBO = 8192 B
 * (each 64-channel chunk is its own 64-row, 8 KiB region), mode 1 (128B); a k16 step is 16 rows
 * = two whole atoms = +2048 B of start address (no intra-atom offset, base offset 0).
 *
 * Tile: 128 (two 64-channel j-chunks, one per consumer warpgroup; they may belong to different
 * taps) x BN output channels (64 when K <= 64, 128 when K <= 128, else 256) x 64 pixel rows per
 * stage. The pixel rows of a stage are one box of output pixels: 1x1 filters with pad 0 over
 * packed pixels read x and dy as [M][C] / [M][K] matrices (2-d boxes of 64 consecutive pixels,
 * TMA zero-fills the tail); everything else reads 4-d boxes {64, bw, bh, bni} of dy at
 * (k, q0, p0, n0) and of x at (c, q0*str_w + t_s - pad_w, p0*str_h + t_r - pad_h, n0), x's box
 * stepping the convolution's strides (TMA element strides, up to 4; FREEDNN_WGMMA_STRIDED=0
 * keeps strided problems off the rows) - the same pixels in the same order, TMA's zero fill
 * being the padding. The box never overhangs P or Q (bw == Q and bh divides P, with the same
 * bh rows of bni images; or bh = bni = 1 and bw divides Q; only the image count may overhang,
 * where both dy and x are zero-filled): so no x element outside the convolution's window is ever
 * multiplied (a non-finite x at a border cannot leak into a tap that does not read it, as ref).
 * bw*bh*bni rows are loaded; rows up to 64 are zeroed once in every stage, and 2 k16 steps run
 * per stage for boxes of <= 32 rows, else 4 (14x14 images: 2 rows of 14 in 2 images, 56 rows;
 * FREEDNN_WGMMA_WGRAD_STACK=0 stacks images only under whole-image boxes, as before: 2 rows of
 * one image, 28, 2 k16 steps). 4 stages of A 16 KiB
 * + B BN*128 B: 96 / 128 / 192 KiB + 1 KiB.
 * Block = 3 warpgroups: warpgroup 0 produces (one thread issues the TMA loads), warpgroups 1-2
 * consume (wgmma m64nBNk16, one batch left in flight; BN 256: setmaxnreg 40 / 232 as the
 * forward row). A consumer without a j-chunk (odd R*S*C/64, last tile) runs the same wgmma on a
 * stage region nobody loads and stores nothing (a branch around wgmma serialises it, C7518).
 *
 * Split-K: the pixel boxes are cut into S contiguous ranges, S a fixed function of the problem
 * (a cost model of a 132-SM part whatever the GPU: wave quantisation against the partials'
 * traffic, ww_splits; at most 128 splits, at least 8 boxes each), so the workspace and the bits
 * do not depend on the device. Workspace:
 * S * K * R*S*C floats, partial z at [z][k][j]. The reduce kernel sums z = 0..S-1 in order in
 * float (as the mma.sync row), blends alpha/beta in double, rounds once; beta == 0 never reads
 * dw. One launch (splitk.cuh) when a tile's S partials of 128 x BN floats fit its 256 KiB rule:
 * after their stores the 256 consumer threads fence, meet at named barrier 1 and take the tile's
 * ticket; the last block's consumers sum the tile (float4 loads through L2, the same order, so
 * the same bits) and write dw; the reduce kernel is not launched. ptxas (sm_90a): f16/bf16 BN
 * 64 / 128 / 256 64 / 93 / 168 registers (58 / 90 / 168 before the tail), tf32 105 / 144, 0
 * spills, 1 KiB of static shared memory (the last-block flag, padded by the dynamic region's
 * 1024-byte alignment). Rounding: float accumulation (wgmma's, then the split sum) vs ref's
 * double: integer-exact fills whose partial sums stay below 2^24 ulps are bit-identical.
 *
 * Limits (applicable): compute capability 9.0, HALF/BFLOAT16 x/dy/dw, 2-d, groups 1, strides up to 4,
 * dilation 1, C % 64 == 0, K % 8 == 0, NHWC x and dy with 16-byte strides, packed KRSC dw (what
 * the mma.sync row takes: a legal fallback), pixel boxes of >= 8 rows. Pointers not 16-byte
 * aligned (TMA's rule) run the naive direct kernel (it needs no workspace).
 *
 * Row fd_conv_bwd_filter_implicit_gemm_tf32_128xN__sm90 (issue 7): FLOAT x/dy/dw computed as
 * TF32, FLOAT compute under DEFAULT / TENSOR_OP / TENSOR_OP_ALLOW_CONVERSION math with
 * NVIDIA_TF32_OVERRIDE != 0 (conv_tc.cu's TF32 rule, fd_conv_tf32_allowed), the
 * same limits (C % 64 == 0 keeps the j-chunks of 64 channels and the whole plan / split / reduce
 * machinery). wgmma's .tf32 form has no transpose: both operands must be K-major in shared
 * memory, and here both arrive MN-major. So TMA loads the MN-major boxes
 * (32 floats = 128 bytes per pixel row, WT_ROWS = 32 pixel rows per stage) into a staging ring,
 * and the two consumer warpgroups rewrite each stage K-major (rows = channels, 128 bytes = the
 * stage's 32 pixels, TMA's 128B swizzle: exactly the layout of the forward row's verified
 * K-major operands, so its descriptors and k8 steps are reused) before running wgmma m64nBNk8
 * on the copy; see conv_wgrad_wgmma_tf32 for the hand-off. Shared memory: 3 staging stages + 3
 * K-major buffers of (A 16 KiB + B BN*128 B): BN 64 144 KiB, BN 128 192 KiB (+ 1 KiB); BN is
 * 64 for K <= 64, else 128 (256 would not fit twice). Boxes hold up to 32 rows (7x7 outputs:
 * one row of 4 images, 28 rows; with FREEDNN_WGMMA_WGRAD_STACK=0 a box of 7 rows, declined by
 * the < 8 rule and left to the mma.sync row). Rounding: the tensor core truncates
 * the floats to TF32 (< 2^-10 relative), float accumulation as the f16 row; small integers are
 * exact (bit-identical to ref). FREEDNN_WGMMA_TF32_WGRAD=0 turns this row off alone.
 */
#include <cuda.h> /* CUtensorMap and its enums only: no driver library is linked */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_cuda.cuh"
#include "splitk.cuh"
#include "wgmma_sm90.cuh"

#define WW_THREADS 384 /* 3 warpgroups */
#define WW_STAGES 4
#define WW_ROWS 64    /* pixel rows (reduction) per stage */
#define WW_CHUNK 8192 /* one 64-channel chunk of WW_ROWS rows: 64 x 128 bytes */
#define WW_A_STAGE (2 * WW_CHUNK)
#define WW_MAX_SPLITS 128
#define WW_MAX_DEV WGX_MAX_DEV

/* What the kernel reads besides the two tensor maps. */
typedef struct {
    float *part;       /* [splits][K][RSC] */
    int64_t rsc;       /* R*S*C */
    int64_t pblocks;   /* pixel boxes in all */
    int64_t split_len; /* pixel boxes per split */
    int k, c;
    int jchunks, cchunks; /* RSC/64, C/64 */
    int mtiles;           /* ceil(jchunks/2) */
    int r, s, pad_h, pad_w, cross;
    int str_h, str_w;     /* convolution strides: x's boxes step them (TMA element strides) */
    int bw, bh, bni;      /* 4-d mode: the pixel box */
    int tiles_q, tiles_p; /* boxes along Q, along P */
    int rows;             /* pixel rows a box fills: bw*bh*bni, or 64 */
    /* one launch (splitk.cuh): the tile counters (NULL: the reduce kernel runs), the splits,
     * dw (the row's type) with its strides K, C, R, S, the blend */
    unsigned *ctr;
    int splits;
    void *dw;
    int64_t ws0, ws1, ws3, ws4;
    double alpha, beta;
} ww_args_t;

static size_t ww_smem_bytes(int bn)
{
    return (size_t)WW_STAGES * (WW_A_STAGE + (size_t)bn * 128) + 2 * WW_STAGES * 8 + 1024;
}

/* ---- device code (sm_90a only) ------------------------------------------------------------ */

/* A k16 step of an MN-major operand: 16 rows = two atoms, in descriptor address units */
#define WW_DESC_KSTEP (2048 >> 4)

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* The channel and tap offsets of the block's A chunks jc0, jc0 + 1 (a missing second chunk
 * repeats the first: its loads are skipped). */
static __device__ __forceinline__ void ww_chunk_offsets(const ww_args_t &a, int jc0, int (&ac)[2],
                                                        int (&ah)[2], int (&aw)[2])
{
#pragma unroll
    for (int i = 0; i < 2; i++) {
        const int jc = jc0 + i < a.jchunks ? jc0 + i : jc0;
        const int f = jc / a.cchunks, fr = f / a.s, fs = f % a.s;
        ac[i] = (jc % a.cchunks) * 64;
        ah[i] = (a.cross ? fr : a.r - 1 - fr) - a.pad_h;
        aw[i] = (a.cross ? fs : a.s - 1 - fs) - a.pad_w;
    }
}

/* Thread 0: the stage barriers (full: the producer's arrive.expect_tx; empty: every consumer
 * thread), made visible to the async proxy (TMA complete_tx), and the tensor maps prefetched. */
template <int STAGES>
static __device__ __forceinline__ void ww_init(uint32_t bar_full, uint32_t bar_empty,
                                               const CUtensorMap *tmx, const CUtensorMap *tmdy)
{
#pragma unroll
    for (int st = 0; st < STAGES; st++) {
        wgx_mbar_init(bar_full + 8 * st, 1);
        wgx_mbar_init(bar_empty + 8 * st, 256);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)tmx) : "memory");
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)tmdy) : "memory");
}

/* The producer thread of both kernels: walks the split's pixel boxes (nblk from box pb0), one
 * stage each. A stage holds NAB boxes of x (CPB channels each, 64/CPB per j-chunk; those of the
 * block's first na chunks are loaded) at sa + st*sa_step, BOX bytes apart, and NBB boxes of dy
 * (the first nb loaded) at sb + st*sb_step. ROWS: the pixels of an [M][C] box. */
template <bool TAP, int STAGES, int ROWS, int CPB, int NAB, int NBB, uint32_t BOX>
static __device__ __forceinline__ void
ww_produce(const ww_args_t &a, const CUtensorMap *tmx, const CUtensorMap *tmdy, uint32_t bar_full,
           uint32_t bar_empty, uint32_t sa, uint32_t sa_step, uint32_t sb, uint32_t sb_step,
           int jc0, int na, int k0, int nb, int64_t pb0, int64_t nblk)
{
    constexpr int PER = 64 / CPB; /* x boxes per j-chunk */
    /* the A chunks' channel and tap offsets are fixed for the block */
    int ac[2], ah[2], aw[2];
    ww_chunk_offsets(a, jc0, ac, ah, aw);
    const uint32_t tx = (uint32_t)(PER * na + nb) * (uint32_t)a.rows * 128u;
    for (int64_t i = 0; i < nblk; i++) {
        const int st = (int)(i % STAGES);
        const uint32_t full = bar_full + 8 * st;
        /* round 0 waits on parity 1 of a fresh barrier, which counts as completed */
        wgx_mbar_wait(bar_empty + 8 * st, (uint32_t)((i / STAGES) & 1) ^ 1u);
        wgx_mbar_arrive_expect_tx(full, tx);
        const uint32_t pb = (uint32_t)(pb0 + i); /* < 2^31 (applicable) */
        const uint32_t dA = sa + st * sa_step, dB = sb + st * sb_step;
        if (TAP) {
            const uint32_t t = pb / (uint32_t)a.tiles_q;
            const int q0 = (int)(pb % (uint32_t)a.tiles_q) * a.bw,
                      p0 = (int)(t % (uint32_t)a.tiles_p) * a.bh,
                      n0 = (int)(t / (uint32_t)a.tiles_p) * a.bni;
#pragma unroll
            for (int c = 0; c < NAB; c++)
                if (c / PER < na)
                    wgx_tma_4d(dA + c * BOX, tmx, full, ac[c / PER] + CPB * (c % PER),
                               q0 * a.str_w + aw[c / PER], p0 * a.str_h + ah[c / PER], n0);
#pragma unroll
            for (int c = 0; c < NBB; c++)
                if (c < nb)
                    wgx_tma_4d(dB + c * BOX, tmdy, full, k0 + CPB * c, q0, p0, n0);
        } else {
            const int m0 = (int)(pb * ROWS); /* M <= INT32_MAX - 64 (ww_plan) */
#pragma unroll
            for (int c = 0; c < NAB; c++)
                if (c / PER < na)
                    wgx_tma_2d(dA + c * BOX, tmx, full, ac[c / PER] + CPB * (c % PER), m0);
#pragma unroll
            for (int c = 0; c < NBB; c++)
                if (c < nb)
                    wgx_tma_2d(dB + c * BOX, tmdy, full, k0 + CPB * c, m0);
        }
    }
}

/* Epilogue: partial z of D for j-chunk jc, columns k0.. . The thread holds rows (lane/4,
 * lane/4 + 8) of its warp's 16 (j within the chunk) and column pairs 8jj + 2*(lane%4) (k) of
 * every n8 block jj: acc[4jj + 2h + {0, 1}] belongs to row + 8h. part[z][k][j]: 8 lanes store
 * 32 contiguous bytes of one k row. */
template <int BN>
static __device__ __forceinline__ void ww_store_part(const float (&acc)[BN / 2], const ww_args_t &a,
                                                     int64_t z, int k0, int jc, int tid)
{
    const int warp = tid / 32, lane = tid % 32;
    const int col0 = k0 + (lane & 3) * 2;
    const int64_t rsc = a.rsc;
    /* one pointer walked by 8 k rows per n8 block keeps the 128 accumulators' epilogue within
     * the consumers' registers (no 64-bit products per store) */
    float *pc =
        a.part + (z * (int64_t)a.k + col0) * rsc + (int64_t)jc * 64 + warp * 16 + (lane >> 2);
#pragma unroll
    for (int jj = 0; jj < BN / 8; jj++) {
        if (col0 + jj * 8 < a.k) { /* K % 8 == 0: col < K means col + 1 < K */
            pc[0] = acc[4 * jj];
            pc[rsc] = acc[4 * jj + 1];
            pc[8] = acc[4 * jj + 2];
            pc[rsc + 8] = acc[4 * jj + 3];
        }
        pc += 8 * rsc;
    }
}
#endif

/* Loads and stores of dw in the row's type: float in, double out, one rounding. */
static __device__ __forceinline__ float ww_ld(const __half *p)
{
    return __half2float(*p);
}
static __device__ __forceinline__ float ww_ld(const __nv_bfloat16 *p)
{
    return __bfloat162float(*p);
}
static __device__ __forceinline__ float ww_ld(const float *p)
{
    return *p;
}
static __device__ __forceinline__ void ww_st(float *p, double v)
{
    *p = (float)v;
}
static __device__ __forceinline__ void ww_st(__half *p, double v)
{
    *p = __double2half(v);
}
static __device__ __forceinline__ void ww_st(__nv_bfloat16 *p, double v)
{
    *p = __double2bfloat16(v);
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* One launch (splitk.cuh): the 256 consumer threads (t = 0..255) after their partial stores:
 * fence, named barrier 1, the ticket; the tile's last block sums rows k0.. (BN output channels)
 * and columns of j-chunks jc0, jc0 + na - 1 over the splits in order and blends into dw. */
template <typename T, int BN>
static __device__ __forceinline__ void ww_fused_tail(const ww_args_t &a, int tile, int k0, int jc0,
                                                     int na, int t)
{
    __shared__ unsigned ww_last;
    __threadfence();
    asm volatile("bar.sync 1, 256;\n" ::: "memory");
    if (t == 0)
        ww_last = fd_splitk_ticket(a.ctr + tile, a.splits) ? 1u : 0u;
    asm volatile("bar.sync 1, 256;\n" ::: "memory");
    if (ww_last == 0u)
        return;
    __threadfence(); /* the other blocks' partials, published by their fences, are read next */
    const int k1 = k0 + BN < a.k ? k0 + BN : a.k;
    T *dw = (T *)a.dw;
    const int64_t rsc = a.rsc, c = a.c, s = a.s;
    const double alpha = a.alpha, beta = a.beta;
    fd_splitk_sum_tile<4>(a.part, a.splits, (int64_t)a.k * rsc, rsc, k0, k1, (int64_t)jc0 * 64,
                       (int64_t)(jc0 + na) * 64, t, 256, [&](int k, int64_t j, const float *vs) {
                           /* C % 64 == 0: the four columns share the tap f */
                           const int64_t f = j / c, cc = j % c;
                           T *p = dw + k * a.ws0 + cc * a.ws1 + (f / s) * a.ws3 + (f % s) * a.ws4;
#pragma unroll
                           for (int e = 0; e < 4; e++) {
                               double o = alpha * (double)vs[e];
                               if (beta != 0.0)
                                   o += beta * (double)ww_ld(p + e * a.ws1);
                               ww_st(p + e * a.ws1, o);
                           }
                       });
}
#endif

/* ---- the GEMM kernel -------------------------------------------------------------------------
 * Grid: one block per (tile, split), the tile fastest (blocks reading the same pixels run
 * together); tile = (mt, nt), mt fastest: j-chunks 2mt and 2mt+1, output channels nt*BN.. .
 * TAP = false: x and dy as [M][C] / [M][K] matrices, box p of a split = pixels 64p .. 64p+63.
 * TAP = true : box p = (n-box, p-box, q-box) of tiles_q x tiles_p x ceil(N/bni) boxes, q fastest.
 * KS         : k16 steps per stage: 4 (up to 64 rows), 2 (4-d boxes of up to 32 rows).
 * REGS       : BN 256: the producer gives registers to the consumers' 128 accumulators. */
template <typename T, int BN, bool TAP, int KS, bool REGS>
static __global__ void __launch_bounds__(WW_THREADS, 1)
    conv_wgrad_wgmma(const __grid_constant__ CUtensorMap tmx,
                     const __grid_constant__ CUtensorMap tmdy, const ww_args_t a)
{
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ __align__(1024) uint8_t ww_smem[];
    const uint32_t base = (wgx_smem_u32(ww_smem) + 1023u) & ~1023u;
    const uint32_t sA = base;
    const uint32_t sB = sA + WW_STAGES * WW_A_STAGE;
    const uint32_t bar_full = sB + WW_STAGES * BN * 128;
    const uint32_t bar_empty = bar_full + WW_STAGES * 8;
    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
    const int tiles = a.mtiles * ((a.k + BN - 1) / BN);
    const int tile = (int)(blockIdx.x % (unsigned)tiles);
    const int64_t z = blockIdx.x / (unsigned)tiles;
    const int mt = tile % a.mtiles, nt = tile / a.mtiles;
    const int jc0 = 2 * mt;
    const int na = a.jchunks - jc0 < 2 ? a.jchunks - jc0 : 2; /* A chunks: 1 or 2 */
    const int k0 = nt * BN;
    const int nbk =
        (a.k - k0 + 63) / 64 < BN / 64 ? (a.k - k0 + 63) / 64 : BN / 64; /* B chunks loaded */
    const int64_t pb0 = z * a.split_len;
    const int64_t nblk = (a.pblocks - pb0 < a.split_len ? a.pblocks - pb0 : a.split_len);

    /* rows past the box in every chunk of every stage: zeros, written through the generic proxy
     * and published to the async proxy (wgmma reads through it) before the barrier below */
    if (a.rows < WW_ROWS) {
        const uint32_t chunks = WW_STAGES * (2 + BN / 64),
                       per = (WW_ROWS - (uint32_t)a.rows) * 8u; /* 16-B units */
        for (uint32_t i = threadIdx.x; i < chunks * per; i += WW_THREADS) {
            const uint32_t ch = i / per, off = (uint32_t)a.rows * 128u + (i % per) * 16u;
            asm volatile(
                "st.shared.v4.u32 [%0], {%1, %1, %1, %1};\n" ::"r"(sA + ch * WW_CHUNK + off), "r"(0)
                : "memory");
        }
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    }

    if (threadIdx.x == 0)
        ww_init<WW_STAGES>(bar_full, bar_empty, &tmx, &tmdy);
    __syncthreads();

    if (wg == 0) {
        /* ---- producer: one thread walks the split's pixel boxes ---- */
        if (REGS)
            asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
        if (tid == 0) /* 64-channel boxes: one per j-chunk, BN/64 of dy */
            ww_produce<TAP, WW_STAGES, WW_ROWS, 64, 2, BN / 64, WW_CHUNK>(
                a, &tmx, &tmdy, bar_full, bar_empty, sA, WW_A_STAGE, sB, BN * 128, jc0, na, k0, nbk,
                pb0, nblk);
        return;
    }

    /* ---- consumers: j-chunk jc0 + cw (64 rows of D), all BN columns ---- */
    if (REGS)
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
    const int cw = wg - 1;
    /* a consumer without a j-chunk (odd R*S*C/64, last tile) runs the same instructions on a
     * stale stage region and stores nothing: a branch around wgmma would serialise it (ptxas C7518)
     */
    const bool active = cw < na;
    float acc[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; i++)
        acc[i] = 0.f;
    wgx_acc_fence(acc);
    for (int64_t i = 0; i < nblk; i++) {
        const int st = (int)(i % WW_STAGES);
        wgx_mbar_wait(bar_full + 8 * st, (uint32_t)((i / WW_STAGES) & 1));
        const uint64_t da = wgx_desc(sA + st * WW_A_STAGE + cw * WW_CHUNK, WW_CHUNK >> 4);
        const uint64_t db = wgx_desc(sB + st * BN * 128, WW_CHUNK >> 4);
        wgx_fence();
#pragma unroll
        for (int j = 0; j < KS; j++) /* k16 steps over the box's pixel rows */
            wgx_mma_mn((const T *)0, acc, da + WW_DESC_KSTEP * j, db + WW_DESC_KSTEP * j);
        wgx_commit();
        /* one batch stays in flight: the previous one has completed, its stage is free */
        wgx_wait<1>();
        if (i >= 1)
            wgx_mbar_arrive(bar_empty + 8 * (int)((i - 1) % WW_STAGES));
    }
    wgx_wait<0>();
    wgx_acc_fence(acc);
    if (active)
        ww_store_part<BN>(acc, a, z, k0, jc0 + cw, tid);
    if (a.ctr != nullptr)
        ww_fused_tail<T, BN>(a, tile, k0, jc0, na, threadIdx.x - 128);
#elif defined(__CUDA_ARCH__)
    /* no wgmma here; the host launches this only on compute capability 9.0, where the sm_90a
     * image is the one loaded: reaching this is a build error, made loud */
    __trap();
#endif
}

/* dw[k, f, c] = alpha * sum_z part[z][k][j] + beta * dw (j = f*C + c): the splits in order in
 * float, the blend in double, one rounding; beta == 0 never reads dw. */
template <typename T>
static __global__ void conv_wgrad_reduce(const float *__restrict__ part, int splits, int64_t k,
                                         int64_t c, int64_t s, int64_t rsc, int64_t ws0,
                                         int64_t ws1, int64_t ws3, int64_t ws4, T *__restrict__ dw,
                                         double alpha, double beta)
{
    const int64_t total = k * rsc;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        float sum = 0.0f;
        for (int z = 0; z < splits; z++)
            sum += part[(int64_t)z * total + e];
        const int64_t kk = e / rsc, j = e % rsc, f = j / c, cc = j % c;
        T *p = dw + kk * ws0 + cc * ws1 + (f / s) * ws3 + (f % s) * ws4;
        double v = alpha * (double)sum;
        if (beta != 0.0)
            v += beta * (double)ww_ld(p);
        ww_st(p, v);
    }
}

/* ---- the TF32 GEMM kernel (row fd_conv_bwd_filter_implicit_gemm_tf32_128xN__sm90) ----------
 * wgmma reads .tf32 operands K-major only, and both of this GEMM's operands arrive MN-major
 * (channels contiguous): the consumers transpose every stage. The producer is the f16 kernel's
 * (the same walk and boxes, 32-float boxes of WT_ROWS pixel rows); each consumer warpgroup
 * rewrites its own 64 j rows and half of the B boxes from the TMA staging stage into a K-major
 * 128B-swizzled operand buffer (row = channel, 128 bytes = the stage's 32 pixels: the layout
 * TMA gives the forward row's K-major operands, so its descriptors, k8 steps and fragment layout
 * are reused as they are), then wgmma runs on that buffer. Hand-off: staging stage -> consumers
 * by the full mbarrier (TMA complete_tx); consumers -> producer by the empty mbarrier as soon as
 * the stage is transposed; the K-major buffer's generic-proxy stores are published to wgmma's
 * async proxy by fence.proxy.async, then named barrier 1 over the 256 consumer threads (B is
 * shared). WT_KBUFS = 3 K-major buffers with one batch of wgmma left in flight: a consumer
 * rewrites buffer i % 3 at iteration i after barrier i - 1, which both consumers reach after
 * their wait_group 1 of iteration i - 2, i.e. after batch i - 3 (the last reader) completed.
 * Transpose: a thread moves a 4x4 block (4 pixels x 4 channels): 4 ld.shared.v4 along channels,
 * 4 st.shared.v4 along pixels; thread (u, d) of a box takes channel quad u, pixel quad (u + d) % 8,
 * so the 8 threads of each quarter-warp hit 8 distinct 16-byte bank groups on both sides under
 * the 128B swizzle (chunk ^ row % 8). Rows past the box (rows < 32), B boxes past K and the idle
 * consumer's A are written as zeros (no stale data reaches the tensor core). */
#define WT_ROWS 32 /* pixel rows per stage: one 128-byte K-major row of tf32 */
#define WT_STAGES 3
#define WT_KBUFS 3
#define WT_BOX 4096       /* one TMA box: WT_ROWS rows x 32 floats */
#define WT_A (4 * WT_BOX) /* A of a stage: 2 consumers x 2 boxes of 32 channels = 128 j rows */

static size_t wt_smem_bytes(int bn)
{
    return (size_t)(WT_STAGES + WT_KBUFS) * (WT_A + (size_t)bn * 128) + 2 * WT_STAGES * 8 + 1024;
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* One box: staging src (rows = pixels, 128B-swizzled by TMA) -> dst (rows = channels, the same
 * swizzle); pixels >= rows are zeros. */
static __device__ __forceinline__ void wt_transpose(uint32_t src, uint32_t dst, int cq, int mq,
                                                    int rows)
{
    float v[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int r = 4 * mq + i;
        if (r < rows)
            asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                         : "=f"(v[i][0]), "=f"(v[i][1]), "=f"(v[i][2]), "=f"(v[i][3])
                         : "r"(src + (uint32_t)r * 128u + ((uint32_t)(cq ^ (r & 7)) << 4))
                         : "memory");
        else
            v[i][0] = v[i][1] = v[i][2] = v[i][3] = 0.0f;
    }
#pragma unroll
    for (int e = 0; e < 4; e++) {
        const int r = 4 * cq + e;
        asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(
                         dst + (uint32_t)r * 128u + ((uint32_t)(mq ^ (r & 7)) << 4)),
                     "f"(v[0][e]), "f"(v[1][e]), "f"(v[2][e]), "f"(v[3][e])
                     : "memory");
    }
}
#endif

template <int BN, bool TAP>
static __global__ void __launch_bounds__(WW_THREADS, 1)
    conv_wgrad_wgmma_tf32(const __grid_constant__ CUtensorMap tmx,
                          const __grid_constant__ CUtensorMap tmdy, const ww_args_t a)
{
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ __align__(1024) uint8_t wt_smem[];
    constexpr uint32_t STG = WT_A + BN * 128; /* one staging stage = one K-major buffer */
    const uint32_t base = (wgx_smem_u32(wt_smem) + 1023u) & ~1023u;
    const uint32_t sS = base, sK = base + WT_STAGES * STG;
    const uint32_t bar_full = sK + WT_KBUFS * STG;
    const uint32_t bar_empty = bar_full + WT_STAGES * 8;
    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
    const int tiles = a.mtiles * ((a.k + BN - 1) / BN);
    const int tile = (int)(blockIdx.x % (unsigned)tiles);
    const int64_t z = blockIdx.x / (unsigned)tiles;
    const int mt = tile % a.mtiles, nt = tile / a.mtiles;
    const int jc0 = 2 * mt;
    const int na = a.jchunks - jc0 < 2 ? a.jchunks - jc0 : 2; /* 64-channel j-chunks: 1 or 2 */
    const int k0 = nt * BN;
    const int nbx =
        (a.k - k0 + 31) / 32 < BN / 32 ? (a.k - k0 + 31) / 32 : BN / 32; /* B boxes loaded */
    const int64_t pb0 = z * a.split_len;
    const int64_t nblk = (a.pblocks - pb0 < a.split_len ? a.pblocks - pb0 : a.split_len);

    if (threadIdx.x == 0)
        ww_init<WT_STAGES>(bar_full, bar_empty, &tmx, &tmdy);
    __syncthreads();

    if (wg == 0) {
        /* ---- producer: one thread walks the split's pixel boxes (the f16 kernel's walk) ---- */
        if (tid == 0) /* 32-float boxes: two per j-chunk, BN/32 of dy */
            ww_produce<TAP, WT_STAGES, WT_ROWS, 32, 4, BN / 32, WT_BOX>(
                a, &tmx, &tmdy, bar_full, bar_empty, sS, STG, sS + WT_A, STG, jc0, na, k0, nbx, pb0,
                nblk);
        return;
    }

    /* ---- consumers: transpose j-chunk jc0 + cw and half of B, then wgmma on them ---- */
    const int cw = wg - 1;
    const bool active = cw < na; /* the idle one transposes its B half and zeros, stores nothing */
    const int hb = tid >> 6, cq = tid & 7, mq = (cq + (tid >> 3)) & 7;
    float acc[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; i++)
        acc[i] = 0.f;
    wgx_acc_fence(acc);
    for (int64_t i = 0; i < nblk; i++) {
        const int st = (int)(i % WT_STAGES);
        const uint32_t stage = sS + st * STG, kbuf = sK + (uint32_t)(i % WT_KBUFS) * STG;
        wgx_mbar_wait(bar_full + 8 * st, (uint32_t)((i / WT_STAGES) & 1));
        wt_transpose(stage + (2 * cw + hb) * WT_BOX, kbuf + (2 * cw + hb) * WT_BOX, cq, mq,
                     active ? a.rows : 0);
#pragma unroll
        for (int bx = 2 * hb + cw; bx < BN / 32; bx += 4)
            wt_transpose(stage + WT_A + bx * WT_BOX, kbuf + WT_A + bx * WT_BOX, cq, mq,
                         bx < nbx ? a.rows : 0);
        /* the stores must be visible to wgmma (async proxy) before anyone's wgmma reads them */
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        wgx_mbar_arrive(bar_empty + 8 * st); /* this thread's reads of the stage are done */
        asm volatile("bar.sync 1, 256;\n" ::: "memory");
        const uint64_t da = wgx_desc(kbuf + cw * 2 * WT_BOX, 1);
        const uint64_t db = wgx_desc(kbuf + WT_A, 1);
        wgx_fence();
#pragma unroll
        for (int j = 0; j < 4; j++) /* 4 k8 steps of 32 bytes = the 32 pixels of a row */
            wgx_mma_k((const float *)0, acc, da + 2 * j, db + 2 * j);
        wgx_commit();
        wgx_wait<1>();
    }
    wgx_wait<0>();
    wgx_acc_fence(acc);
    if (active)
        ww_store_part<BN>(acc, a, z, k0, jc0 + cw, tid); /* the same fragment layout as f16 */
    if (a.ctr != nullptr)
        ww_fused_tail<float, BN>(a, tile, k0, jc0, na, threadIdx.x - 128);
#elif defined(__CUDA_ARCH__)
    __trap(); /* as the f16 kernel: launched on compute capability 9.0 (sm_90a image) only */
#endif
}

/* ---- host: gate, plan, tensor maps --------------------------------------------------------- */

extern "C" int fd_conv_bwd_filter_tc_igemm_applicable(const fd_conv_problem_t *p, char *why,
                                                      size_t why_size);
extern "C" cudnnStatus_t fd_conv_bwd_filter_direct_run(const fd_conv_problem_t *p,
                                                       const fd_conv_args_t *a);

extern "C" int fd_conv_tf32_allowed(const fd_conv_problem_t *p, char *why, size_t why_size);
extern "C" int fd_conv_wgmma_strided_on(void);

/* FREEDNN_WGMMA_WGRAD=0 opts out of both backward filter rows, FREEDNN_WGMMA=0 out of every
 * wgmma row, FREEDNN_WGMMA_TF32_WGRAD=0 out of the tf32 row alone. Read once per process
 * (function-local statics: C++ initialises them once, thread-safely). */
static int ww_env_zero(const char *name)
{
    const char *e = getenv(name);
    return e != NULL && strcmp(e, "0") == 0;
}

static int ww_env_on(void)
{
    return !ww_env_zero("FREEDNN_WGMMA") && !ww_env_zero("FREEDNN_WGMMA_WGRAD");
}

static int ww_enabled(void)
{
    static const int on = ww_env_on();
    return on;
}

static int wt_enabled(void)
{
    static const int on = ww_enabled() && !ww_env_zero("FREEDNN_WGMMA_TF32_WGRAD");
    return on;
}

/* FREEDNN_WGMMA_WGRAD_STACK=0: a box spans several images only where it holds whole images (the
 * plan before images were stacked under boxes of part of an image's rows; for A/B runs). */
static int ww_stack_enabled(void)
{
    static const int on = !ww_env_zero("FREEDNN_WGMMA_WGRAD_STACK");
    return on;
}

/* The launch geometry of a problem (a pure function of it: applicable, workspace and run agree). */
typedef struct {
    int tap; /* 4-d pixel boxes (else [M][C] / [M][K] matrices) */
    int bn;  /* 64, 128 or 256 (tf32: 64 or 128) */
    int bw, bh, bni, tiles_q, tiles_p, rows;
    int esw, esh; /* x's TMA element strides along W and H (the convolution's, 1 for one pixel) */
    int64_t pblocks, mtiles, ntiles, split_len;
    int splits;
} ww_plan_t;

/* Largest divisor of v that is <= cap (>= 1). */
static int64_t ww_divisor(int64_t v, int64_t cap)
{
    for (int64_t d = cap < v ? cap : v; d > 1; d--)
        if (v % d == 0)
            return d;
    return 1;
}

/* Splits of the pixel boxes: the s in [1, min(128, boxes/8)] that minimises a fixed cost model
 * (constants of a 132-SM H100/H200, never of the GPU at hand, so the workspace and the bits are
 * a function of the problem): the GEMM at 600 TFLOP/s stretched by the wave quantisation of
 * tiles*s blocks, one per SM, plus the partials written and read back at 3 TB/s. Ties go to the
 * fewer splits. `flop` the whole GEMM, `outs` K*R*S*C. */
static int64_t ww_splits(int64_t tiles, int64_t pblocks, double flop, double outs)
{
    int64_t smax = (pblocks + 7) / 8;
    if (smax > WW_MAX_SPLITS)
        smax = WW_MAX_SPLITS;
    int64_t best = 1;
    double best_t = 0.0;
    for (int64_t s = 1; s <= smax; s++) {
        const int64_t blocks = tiles * s, waves = (blocks + 131) / 132;
        const double t = flop / 6e14 * (double)(waves * 132) / (double)blocks +
                         2.0 * (double)s * outs * 4.0 / 3e12;
        if (s == 1 || t < best_t * 0.999) {
            best = s;
            best_t = t;
        }
    }
    return best;
}

/* The tf32 row (p->xdt FLOAT) takes boxes of up to WT_ROWS pixel rows and BN <= 128 (its
 * shared memory holds staging and K-major copies); the f16 row WW_ROWS and BN <= 256. */
static void ww_plan(const fd_conv_problem_t *p, ww_plan_t *pl)
{
    memset(pl, 0, sizeof *pl);
    const int64_t h = p->in[1], w = p->in[2], pp = p->out[1], q = p->out[2], m = p->n * pp * q;
    const int64_t rsc = p->c * p->flt[1] * p->flt[2];
    const int tf32 = p->xdt == CUDNN_DATA_FLOAT;
    const int64_t cap = tf32 ? WT_ROWS : WW_ROWS;
    pl->bn = p->k <= 64 ? 64 : p->k <= 128 || tf32 ? 128 : 256;
    pl->ntiles = (p->k + pl->bn - 1) / pl->bn;
    pl->mtiles = (rsc / 64 + 1) / 2;
    /* [M][C]: a 1x1 filter without padding over pixel strides of x and dy that merge into one */
    const int xm =
        (h == 1 || p->xs[3] == w * p->xs[4]) && (p->n == 1 || p->xs[0] == h * w * p->xs[4]);
    const int ym =
        (pp == 1 || p->ys[3] == q * p->ys[4]) && (p->n == 1 || p->ys[0] == pp * q * p->ys[4]);
    const int mat = p->flt[1] == 1 && p->flt[2] == 1 && p->pad[1] == 0 && p->pad[2] == 0 && xm &&
                    ym && p->stride[1] == 1 && p->stride[2] == 1 && m <= INT32_MAX - WW_ROWS &&
                    p->xs[4] > 0 && p->ys[4] > 0;
    pl->tap = !mat;
    pl->esw = q > 1 ? (int)p->stride[2] : 1;
    pl->esh = pp > 1 ? (int)p->stride[1] : 1;
    if (pl->tap) {
        /* a box that never overhangs P or Q (see the header): whole rows when Q fits, as many
         * as divide P, and the same rows of as many images as fit (7x7 outputs in 32-row boxes:
         * one row of 4 images) */
        if (q <= cap) {
            pl->bw = (int)q;
            pl->bh = (int)ww_divisor(pp, cap / q);
            int64_t bni = 1;
            if (pl->bh == pp || ww_stack_enabled()) {
                bni = cap / (pl->bh * q);
                if (bni > p->n)
                    bni = p->n;
            }
            pl->bni = (int)bni;
        } else {
            pl->bw = (int)ww_divisor(q, cap);
            pl->bh = 1, pl->bni = 1;
        }
        pl->rows = pl->bw * pl->bh * pl->bni;
        pl->tiles_q = (int)(q / pl->bw);
        pl->tiles_p = (int)(pp / pl->bh);
        pl->pblocks = (int64_t)pl->tiles_q * pl->tiles_p * ((p->n + pl->bni - 1) / pl->bni);
    } else {
        pl->rows = (int)cap;
        pl->pblocks = (m + cap - 1) / cap;
    }
    const int64_t tiles = pl->mtiles * pl->ntiles > 0 ? pl->mtiles * pl->ntiles : 1;
    const int64_t s = ww_splits(tiles, pl->pblocks, 2.0 * (double)m * (double)p->k * (double)rsc,
                                (double)p->k * (double)rsc);
    pl->split_len = (pl->pblocks + s - 1) / s;
    pl->splits = (int)((pl->pblocks + pl->split_len - 1) / pl->split_len);
}

/* What both rows check; tf32 picks the row (data types, TF32 rules, box and tile sizes). */
static int ww_applicable(const fd_conv_problem_t *p, int tf32, char *why, size_t why_size)
{
    if (!ww_enabled() || (tf32 && !wt_enabled())) {
        snprintf(
            why, why_size,
            "the sm_90a wgmma backward filter %s row is turned off (%sFREEDNN_WGMMA_WGRAD=0 or "
            "FREEDNN_WGMMA=0)",
            tf32 ? "tf32" : "f16", tf32 ? "FREEDNN_WGMMA_TF32_WGRAD=0, " : "");
        return 0;
    }
#ifndef FD_WGMMA_SM90A
    snprintf(why, why_size,
             "built without sm_90a code (CUDA 12.0+ and sm_90 in CMAKE_CUDA_ARCHITECTURES "
             "are needed; cmake/cuda.cmake)");
    return 0;
#endif
    const cudnnDataType_t dt = p->xdt;
    if (!tf32 &&
        ((dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16) || p->wdt != dt || p->ydt != dt)) {
        snprintf(why, why_size,
                 "x/dw/dy are %s/%s/%s; the wgmma backward filter f16 row takes HALF or BFLOAT16 "
                 "for all three (FLOAT: the tf32 row)",
                 fd_dtype_name(p->xdt), fd_dtype_name(p->wdt), fd_dtype_name(p->ydt));
        return 0;
    }
    if (tf32) {
        if (dt != CUDNN_DATA_FLOAT || p->wdt != dt || p->ydt != dt) {
            snprintf(why, why_size,
                     "x/dw/dy are %s/%s/%s; the wgmma backward filter tf32 row takes FLOAT for "
                     "all three (HALF, BFLOAT16: the f16 row)",
                     fd_dtype_name(p->xdt), fd_dtype_name(p->wdt), fd_dtype_name(p->ydt));
            return 0;
        }
        if (!fd_conv_tf32_allowed(p, why, why_size))
            return 0;
    }
    if (p->nsp != 2) {
        snprintf(why, why_size, "%d spatial dims; the wgmma backward filter row takes 2", p->nsp);
        return 0;
    }
    if (!fd_conv_wgmma_strided_on() && (p->stride[1] != 1 || p->stride[2] != 1)) {
        snprintf(why, why_size,
                 "stride %lldx%lld; the wgmma rows' strided boxes are turned off "
                 "(FREEDNN_WGMMA_STRIDED=0)",
                 (long long)p->stride[1], (long long)p->stride[2]);
        return 0;
    }
    /* a box of at most 64 pixels at element stride <= 4 traverses <= 256 (TMA's box limit) */
    if (p->stride[1] > 4 || p->stride[2] > 4 || p->dil[1] != 1 || p->dil[2] != 1) {
        snprintf(why, why_size,
                 "stride %lldx%lld, dilation %lldx%lld; the wgmma backward filter row takes "
                 "strides up to 4 and dilation 1",
                 (long long)p->stride[1], (long long)p->stride[2], (long long)p->dil[1],
                 (long long)p->dil[2]);
        return 0;
    }
    if (p->groups != 1 || p->c % 64 != 0 || p->k % 8 != 0) {
        snprintf(why, why_size,
                 "groups %lld, C = %lld, K = %lld; the wgmma backward filter row needs groups 1, "
                 "C %% 64 == 0 (a 64-channel chunk never straddles a tap) and K %% 8 == 0",
                 (long long)p->groups, (long long)p->c, (long long)p->k);
        return 0;
    }
    /* NHWC x and dy with 16-byte strides, packed KRSC dw, the index limits */
    if (!fd_conv_bwd_filter_tc_igemm_applicable(p, why, why_size))
        return 0;
    const int64_t lim = ((int64_t)1 << 40) / (int64_t)fd_dtype_size(dt);
    for (int d = 0; d < 5; d++)
        if (p->xs[d] < 0 || p->xs[d] >= lim || p->ys[d] < 0 || p->ys[d] >= lim) {
            snprintf(why, why_size,
                     "x/dy strides %lld/%lld of dim %d are beyond TMA's 2^40-byte limit",
                     (long long)p->xs[d], (long long)p->ys[d], d);
            return 0;
        }
    if (p->in[1] > INT32_MAX / 2 || p->in[2] > INT32_MAX / 2 || p->n > INT32_MAX) {
        snprintf(why, why_size, "x extents beyond TMA's 32-bit coordinates");
        return 0;
    }
    ww_plan_t pl;
    ww_plan(p, &pl);
    if (pl.rows < 8) {
        snprintf(why, why_size,
                 "the output's %lldx%lld pixels give boxes of %d rows (P or Q without a divisor "
                 "near 64); the wgmma backward filter row needs >= 8",
                 (long long)p->out[1], (long long)p->out[2], pl.rows);
        return 0;
    }
    if (pl.mtiles * pl.ntiles * pl.splits > INT32_MAX || pl.pblocks > INT32_MAX) {
        snprintf(why, why_size, "%lld tiles x %d splits exceed the grid",
                 (long long)(pl.mtiles * pl.ntiles), pl.splits);
        return 0;
    }
    return wgx_device_sm90(why, why_size);
}

extern "C" int
fd_conv_bwd_filter_implicit_gemm_f16_128xN__sm90_applicable(const fd_conv_problem_t *p, char *why,
                                                            size_t why_size)
{
    return ww_applicable(p, 0, why, why_size);
}

extern "C" int
fd_conv_bwd_filter_implicit_gemm_tf32_128xN__sm90_applicable(const fd_conv_problem_t *p, char *why,
                                                             size_t why_size)
{
    return ww_applicable(p, 1, why, why_size);
}

/* Both rows: the float partials of every split (ww_plan sizes the splits by the data type). */
static size_t ww_workspace(const fd_conv_problem_t *p)
{
    ww_plan_t pl;
    ww_plan(p, &pl);
    return (size_t)pl.splits * (size_t)p->k * (size_t)(p->c * p->flt[1] * p->flt[2]) *
           sizeof(float);
}

extern "C" size_t
fd_conv_bwd_filter_implicit_gemm_f16_128xN__sm90_workspace(const fd_conv_problem_t *p)
{
    return ww_workspace(p);
}

extern "C" size_t
fd_conv_bwd_filter_implicit_gemm_tf32_128xN__sm90_workspace(const fd_conv_problem_t *p)
{
    return ww_workspace(p);
}

/* One 128B-swizzled tiled map of the row's data type (element strides estr); 0 when the driver
 * refuses it. */
static int ww_map(CUtensorMap *map, cudnnDataType_t dt, int rank, const void *ptr,
                  const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
                  const cuuint32_t *estr, int *res)
{
    return wgx_map_strided(map,
                           dt == CUDNN_DATA_HALF    ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                           : dt == CUDNN_DATA_FLOAT ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                                    : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
                           rank, ptr, dims, strides, box, estr, res);
}

/* A 4-d map {channels, W, H, N} of an NHWC tensor (strides s: N, C, D, H, W in elements) with
 * box {128 bytes of channels, bw, bh, bni}. TMA takes a stride (a multiple of 16 bytes) for
 * every dim: one of a single element, never stepped, gets the dense stride over the dims inside
 * it. */
static int ww_map4(CUtensorMap *map, cudnnDataType_t dt, const void *ptr, int64_t ch, int64_t hh,
                   int64_t ww, int64_t n, const int64_t *s, const ww_plan_t &pl, int esw, int esh,
                   int *res)
{
    const cuuint64_t es = (cuuint64_t)fd_dtype_size(dt);
    const cuuint64_t dims[4] = {(cuuint64_t)ch, (cuuint64_t)ww, (cuuint64_t)hh, (cuuint64_t)n};
    const int64_t sw = ww > 1 ? s[4] : ch, sh = hh > 1 ? s[3] : ww * sw,
                  sn = n > 1 ? s[0] : hh * sh;
    const cuuint64_t str[3] = {(cuuint64_t)sw * es, (cuuint64_t)sh * es, (cuuint64_t)sn * es};
    /* bw pixels at element stride esw traverse bw * esw of them */
    const cuuint32_t box[4] = {(cuuint32_t)(128 / es), (cuuint32_t)(pl.bw * esw),
                               (cuuint32_t)(pl.bh * esh), (cuuint32_t)pl.bni};
    const cuuint32_t estr[4] = {1, (cuuint32_t)esw, (cuuint32_t)esh, 1};
    return ww_map(map, dt, 4, ptr, dims, str, box, estr, res);
}

/* A 2-d map {channels, M} of pixels that merge into one stride, box {128 bytes, pl.rows}. */
static int ww_map2(CUtensorMap *map, cudnnDataType_t dt, const void *ptr, int64_t ch, int64_t m,
                   int64_t pix, const ww_plan_t &pl, int *res)
{
    const cuuint64_t es = (cuuint64_t)fd_dtype_size(dt);
    const cuuint64_t dims[2] = {(cuuint64_t)ch, (cuuint64_t)m};
    const cuuint64_t str[1] = {(cuuint64_t)(m > 1 ? pix : ch) * es};
    const cuuint32_t box[2] = {(cuuint32_t)(128 / es), (cuuint32_t)pl.rows};
    static const cuuint32_t one[2] = {1, 1};
    return ww_map(map, dt, 2, ptr, dims, str, box, one, res);
}

typedef void (*ww_kernel_t)(const CUtensorMap, const CUtensorMap, const ww_args_t);

/* Sets the dynamic shared-memory limit of kernel K once per device (attributes are per device;
 * repeating the call is harmless, so racing first calls are too). */
template <ww_kernel_t K> static cudnnStatus_t ww_prepare(size_t smem, int bn, int &dev)
{
    static int done[WW_MAX_DEV];
    dev = -1;
    FD_CUDA_CHECK(cudaGetDevice(&dev), "cudaGetDevice for the wgmma backward filter row");
    const int cached = dev >= 0 && dev < WW_MAX_DEV;
    if (cached && __atomic_load_n(&done[dev], __ATOMIC_ACQUIRE))
        return CUDNN_STATUS_SUCCESS;
    FD_CUDA_CHECK(cudaFuncSetAttribute(K, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem),
                  "cudaFuncSetAttribute(%zu bytes of dynamic shared memory) "
                  "for the wgmma backward filter kernel, BN %d",
                  smem, bn);
    if (cached)
        __atomic_store_n(&done[dev], 1, __ATOMIC_RELEASE);
    return CUDNN_STATUS_SUCCESS;
}

/* The second kernel of both rows: the splits summed in order, blended into dw. */
template <typename T>
static cudnnStatus_t ww_reduce(const fd_conv_problem_t *p, const fd_conv_args_t *a,
                               const ww_args_t &ka, const ww_plan_t &pl)
{
    cudaStream_t s = a->handle->stream;
    const int64_t total = p->k * ka.rsc;
    const unsigned rblocks = fd_cuda_blocks(total, FD_CUDA_BLOCK);
    conv_wgrad_reduce<T><<<rblocks, FD_CUDA_BLOCK, 0, s>>>(
        ka.part, pl.splits, p->k, p->c, p->flt[2], ka.rsc, p->ws[0], p->ws[1], p->ws[3], p->ws[4],
        (T *)a->out, a->alpha, a->beta);
    FD_CUDA_LAUNCHED("conv_wgrad_reduce on %s data (%u blocks, %d splits)", fd_dtype_name(p->xdt),
                     rblocks, pl.splits);
    return CUDNN_STATUS_SUCCESS;
}

/* The one-launch form's counters for a tile of 128 x BN partials, or NULL (splitk.cuh). */
static unsigned *ww_counters(const fd_conv_args_t *a, const ww_plan_t &pl, int bn)
{
    return fd_cuda_splitk_counters(a->handle, pl.mtiles * pl.ntiles, pl.splits,
                                   (size_t)128 * (size_t)bn * sizeof(float), a->workspace);
}

template <typename T, int BN, bool TAP, int KS>
static cudnnStatus_t ww_launch(const fd_conv_problem_t *p, const fd_conv_args_t *a,
                               const CUtensorMap &tmx, const CUtensorMap &tmdy, ww_args_t ka,
                               const ww_plan_t &pl)
{
    int dev = -1;
    const cudnnStatus_t prep =
        ww_prepare<conv_wgrad_wgmma<T, BN, TAP, KS, BN == 256>>(ww_smem_bytes(BN), BN, dev);
    if (prep != CUDNN_STATUS_SUCCESS)
        return prep;
    cudaStream_t s = a->handle->stream;
    const unsigned blocks = (unsigned)(pl.mtiles * pl.ntiles * pl.splits);
    ka.ctr = ww_counters(a, pl, BN);
    static void *fc[FD_CUDA_FCACHE];
    const cudaError_t le = fd_cuda_launch_on(dev, conv_wgrad_wgmma<T, BN, TAP, KS, BN == 256>, fc, dim3(blocks),
                                            dim3(WW_THREADS), (unsigned)ww_smem_bytes(BN), s, tmx, tmdy, ka);
    FD_CUDA_LAUNCHED_AS(le,
        "conv_wgrad_wgmma on %s data (BN %d, %s of %d rows, %d k16 steps, %u blocks, %d splits, "
        "%s, stream %p)",
        fd_dtype_name(p->xdt), BN, TAP ? "4-d pixel boxes" : "[M][C] boxes", pl.rows, KS, blocks,
        pl.splits, ka.ctr != NULL ? "one launch" : "reduce kernel", (void *)s);
    return ka.ctr != NULL ? CUDNN_STATUS_SUCCESS : ww_reduce<T>(p, a, ka, pl);
}

template <int BN, bool TAP>
static cudnnStatus_t wt_launch(const fd_conv_problem_t *p, const fd_conv_args_t *a,
                               const CUtensorMap &tmx, const CUtensorMap &tmdy, ww_args_t ka,
                               const ww_plan_t &pl)
{
    int dev = -1;
    const cudnnStatus_t prep = ww_prepare<conv_wgrad_wgmma_tf32<BN, TAP>>(wt_smem_bytes(BN), BN, dev);
    if (prep != CUDNN_STATUS_SUCCESS)
        return prep;
    cudaStream_t s = a->handle->stream;
    const unsigned blocks = (unsigned)(pl.mtiles * pl.ntiles * pl.splits);
    ka.ctr = ww_counters(a, pl, BN);
    static void *fc[FD_CUDA_FCACHE];
    const cudaError_t le = fd_cuda_launch_on(dev, conv_wgrad_wgmma_tf32<BN, TAP>, fc, dim3(blocks), dim3(WW_THREADS),
                                            (unsigned)wt_smem_bytes(BN), s, tmx, tmdy, ka);
    FD_CUDA_LAUNCHED_AS(le, "conv_wgrad_wgmma_tf32 (BN %d, %s of %d rows, %u blocks, %d splits, %s, "
                     "stream %p)",
                     BN, TAP ? "4-d pixel boxes" : "[M][C] boxes", pl.rows, blocks, pl.splits,
                     ka.ctr != NULL ? "one launch" : "reduce kernel", (void *)s);
    return ka.ctr != NULL ? CUDNN_STATUS_SUCCESS : ww_reduce<float>(p, a, ka, pl);
}

template <typename T>
static cudnnStatus_t ww_dispatch(const fd_conv_problem_t *p, const fd_conv_args_t *a,
                                 const ww_plan_t &pl, const CUtensorMap &tmx,
                                 const CUtensorMap &tmdy, const ww_args_t &ka)
{
    if (pl.tap && pl.rows <= 32)
        return pl.bn == 256   ? ww_launch<T, 256, true, 2>(p, a, tmx, tmdy, ka, pl)
               : pl.bn == 128 ? ww_launch<T, 128, true, 2>(p, a, tmx, tmdy, ka, pl)
                              : ww_launch<T, 64, true, 2>(p, a, tmx, tmdy, ka, pl);
    if (pl.tap)
        return pl.bn == 256   ? ww_launch<T, 256, true, 4>(p, a, tmx, tmdy, ka, pl)
               : pl.bn == 128 ? ww_launch<T, 128, true, 4>(p, a, tmx, tmdy, ka, pl)
                              : ww_launch<T, 64, true, 4>(p, a, tmx, tmdy, ka, pl);
    return pl.bn == 256   ? ww_launch<T, 256, false, 4>(p, a, tmx, tmdy, ka, pl)
           : pl.bn == 128 ? ww_launch<T, 128, false, 4>(p, a, tmx, tmdy, ka, pl)
                          : ww_launch<T, 64, false, 4>(p, a, tmx, tmdy, ka, pl);
}

static cudnnStatus_t wt_dispatch(const fd_conv_problem_t *p, const fd_conv_args_t *a,
                                 const ww_plan_t &pl, const CUtensorMap &tmx,
                                 const CUtensorMap &tmdy, const ww_args_t &ka)
{
    if (pl.tap)
        return pl.bn == 128 ? wt_launch<128, true>(p, a, tmx, tmdy, ka, pl)
                            : wt_launch<64, true>(p, a, tmx, tmdy, ka, pl);
    return pl.bn == 128 ? wt_launch<128, false>(p, a, tmx, tmdy, ka, pl)
                        : wt_launch<64, false>(p, a, tmx, tmdy, ka, pl);
}

/* The plan, the two maps and the kernel arguments of problem p on a's x, dy, dw, workspace and
 * scales (x and dy 16-byte aligned). */
static cudnnStatus_t ww_derive(const fd_conv_problem_t *p, const fd_conv_args_t *a, ww_plan_t &pl,
                               CUtensorMap &tmx, CUtensorMap &tmdy, ww_args_t &ka)
{
    FD_CHECK(wgx_encode() != NULL, CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER,
             "the driver has no cuTensorMapEncodeTiled (the wgmma row needs a CUDA 12 driver)");
    ww_plan(p, &pl);
    const size_t need = ww_workspace(p);
    FD_CHECK(a->workspace != NULL && a->workspace_size >= need, CUDNN_STATUS_BAD_PARAM,
             "the wgmma backward filter row needs %zu bytes of workspace (%d splits), got %zu",
             need, pl.splits, a->workspace_size);
    const int64_t c = p->c, k = p->k, h = p->in[1], w = p->in[2], pp = p->out[1], q = p->out[2];
    int res = 0;
    if (pl.tap) {
        FD_CHECK(ww_map4(&tmx, p->xdt, a->x, c, h, w, p->n, p->xs, pl, pl.esw, pl.esh, &res),
                 CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER,
                 "cuTensorMapEncodeTiled(x: %lldx%lldx%lldx%lld, box Cx%dx%dx%d) returned %d",
                 (long long)c, (long long)w, (long long)h, (long long)p->n, pl.bw, pl.bh, pl.bni,
                 res);
        FD_CHECK(ww_map4(&tmdy, p->xdt, a->y, k, pp, q, p->n, p->ys, pl, 1, 1, &res),
                 CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER,
                 "cuTensorMapEncodeTiled(dy: %lldx%lldx%lldx%lld, box Cx%dx%dx%d) returned %d",
                 (long long)k, (long long)q, (long long)pp, (long long)p->n, pl.bw, pl.bh, pl.bni,
                 res);
    } else {
        const int64_t m = p->n * pp * q;
        FD_CHECK(ww_map2(&tmx, p->xdt, a->x, c, m, p->xs[4], pl, &res),
                 CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER,
                 "cuTensorMapEncodeTiled(x: %lldx%lld, box of %d rows) returned %d", (long long)c,
                 (long long)m, pl.rows, res);
        FD_CHECK(ww_map2(&tmdy, p->xdt, a->y, k, m, p->ys[4], pl, &res),
                 CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER,
                 "cuTensorMapEncodeTiled(dy: %lldx%lld, box of %d rows) returned %d", (long long)k,
                 (long long)m, pl.rows, res);
    }
    memset(&ka, 0, sizeof ka);
    ka.part = (float *)a->workspace;
    ka.rsc = c * p->flt[1] * p->flt[2];
    ka.pblocks = pl.pblocks;
    ka.split_len = pl.split_len;
    ka.k = (int)k, ka.c = (int)c;
    ka.jchunks = (int)(ka.rsc / 64), ka.cchunks = (int)(c / 64);
    ka.mtiles = (int)pl.mtiles;
    ka.r = (int)p->flt[1], ka.s = (int)p->flt[2];
    ka.pad_h = (int)p->pad[1], ka.pad_w = (int)p->pad[2];
    ka.str_h = (int)p->stride[1], ka.str_w = (int)p->stride[2];
    ka.cross = p->cross_correlation;
    ka.bw = pl.bw, ka.bh = pl.bh, ka.bni = pl.bni;
    ka.tiles_q = pl.tiles_q, ka.tiles_p = pl.tiles_p;
    ka.rows = pl.rows;
    ka.splits = pl.splits;
    ka.dw = a->out;
    ka.ws0 = p->ws[0], ka.ws1 = p->ws[1], ka.ws3 = p->ws[3], ka.ws4 = p->ws[4];
    ka.alpha = a->alpha, ka.beta = a->beta;
    ka.ctr = NULL; /* the launch picks the one-launch form's counters */
    return CUDNN_STATUS_SUCCESS;
}

/* What a plan keeps for these rows (fd_conv_args_t.state, core/conv_plan.c): ww_derive's results
 * for the call its key describes, launched as they are by a call with the same problem, pointers
 * and scales (the split-K counters are still picked per launch). */
typedef struct {
    fd_conv_state_key_t key;
    ww_plan_t pl;
    ww_args_t ka;
    CUtensorMap tmx, tmdy;
} ww_state_t;
static_assert(sizeof(ww_state_t) <= FD_CONV_PLAN_STATE, "the backward filter rows' plan state");
static const char ww_tag = 0;

/* Both rows: the data type (p->xdt) picks the kernels. */
static cudnnStatus_t ww_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    if ((((uintptr_t)a->x | (uintptr_t)a->y) % 16) != 0)
        return fd_conv_bwd_filter_direct_run(p, a); /* TMA reads 16-byte aligned addresses only */
    ww_state_t local, *st = a->state != NULL ? (ww_state_t *)a->state : &local;
    if (st == &local || !fd_conv_state_hit(&st->key, &ww_tag, p, a)) {
        st->key.tag = NULL;
        FD_TRY(ww_derive(p, a, st->pl, st->tmx, st->tmdy, st->ka));
        fd_conv_state_set(&st->key, &ww_tag, p, a);
    }
    if (p->xdt == CUDNN_DATA_HALF)
        return ww_dispatch<__half>(p, a, st->pl, st->tmx, st->tmdy, st->ka);
    if (p->xdt == CUDNN_DATA_FLOAT)
        return wt_dispatch(p, a, st->pl, st->tmx, st->tmdy, st->ka);
    return ww_dispatch<__nv_bfloat16>(p, a, st->pl, st->tmx, st->tmdy, st->ka);
}

extern "C" cudnnStatus_t
fd_conv_bwd_filter_implicit_gemm_f16_128xN__sm90_run(const fd_conv_problem_t *p,
                                                     const fd_conv_args_t *a)
{
    return ww_run(p, a);
}

extern "C" cudnnStatus_t
fd_conv_bwd_filter_implicit_gemm_tf32_128xN__sm90_run(const fd_conv_problem_t *p,
                                                      const fd_conv_args_t *a)
{
    return ww_run(p, a);
}
