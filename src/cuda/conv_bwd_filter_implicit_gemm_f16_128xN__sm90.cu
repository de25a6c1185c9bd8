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
 * from `#define WW_THREADS` to the host banner), with a checker and a timer.
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
 * (k, q0, p0, n0) and of x at (c, q0 + t_s - pad_w, p0 + t_r - pad_h, n0) - the same pixels in
 * the same order, TMA's zero fill being the padding. The box never overhangs P or Q (bw == Q
 * and bh divides P, or bh = 1 and bw divides Q; only the image count may overhang, where both
 * dy and x are zero-filled): so no x element outside the convolution's window is ever
 * multiplied (a non-finite x at a border cannot leak into a tap that does not read it, as ref).
 * bw*bh*bni rows are loaded; rows up to 64 are zeroed once in every stage, and 2 k16 steps run
 * per stage for boxes of <= 32 rows (14x14 images: 2 rows of 14), else 4. 4 stages of A 16 KiB
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
 * dw. Rounding: float accumulation (wgmma's, then the split sum) vs ref's double: integer-exact
 * fills whose partial sums stay below 2^24 ulps are bit-identical.
 *
 * Limits (applicable): compute capability 9.0, HALF/BFLOAT16 x/dy/dw, 2-d, groups 1, stride 1,
 * dilation 1, C % 64 == 0, K % 8 == 0, NHWC x and dy with 16-byte strides, packed KRSC dw (what
 * the mma.sync row takes: a legal fallback), pixel boxes of >= 8 rows. Pointers not 16-byte
 * aligned (TMA's rule) run the naive direct kernel (it needs no workspace).
 */
#include <cuda.h> /* CUtensorMap and its enums only: no driver library is linked */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_cuda.cuh"

#define WW_THREADS 384 /* 3 warpgroups */
#define WW_STAGES 4
#define WW_ROWS 64    /* pixel rows (reduction) per stage */
#define WW_CHUNK 8192 /* one 64-channel chunk of WW_ROWS rows: 64 x 128 bytes */
#define WW_A_STAGE (2 * WW_CHUNK)
#define WW_MAX_SPLITS 128
#define WW_MAX_DEV 64

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
    int bw, bh, bni;      /* 4-d mode: the pixel box */
    int tiles_q, tiles_p; /* boxes along Q, along P */
    int rows;             /* pixel rows a box fills: bw*bh*bni, or 64 */
} ww_args_t;

static size_t ww_smem_bytes(int bn)
{
    return (size_t)WW_STAGES * (WW_A_STAGE + (size_t)bn * 128) + 2 * WW_STAGES * 8 + 1024;
}

/* ---- device code (sm_90a only) ------------------------------------------------------------ */

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

#define WW_WAIT_NS 20000000000ull /* 20 s: legal waits last microseconds */

static __device__ __forceinline__ uint32_t ww_smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

static __device__ __forceinline__ void ww_mbar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

static __device__ __forceinline__ void ww_mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile(
        "{\n.reg .b64 st;\nmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n}\n" ::"r"(bar),
        "r"(bytes)
        : "memory");
}

static __device__ __forceinline__ void ww_mbar_arrive(uint32_t bar)
{
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0];\n}\n" ::"r"(bar)
                 : "memory");
}

static __device__ __forceinline__ uint32_t ww_mbar_try(uint32_t bar, uint32_t parity)
{
    uint32_t ok;
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(ok)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return ok;
}

static __device__ __forceinline__ uint64_t ww_globaltimer(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(t));
    return t;
}

/* Waits for the phase of parity `parity`; a wait beyond WW_WAIT_NS traps (sticky error). */
static __device__ __forceinline__ void ww_mbar_wait(uint32_t bar, uint32_t parity)
{
    if (ww_mbar_try(bar, parity))
        return;
    const uint64_t t0 = ww_globaltimer();
    for (unsigned i = 1;; i++) {
        if (ww_mbar_try(bar, parity))
            return;
        if ((i & 1023u) == 0 && ww_globaltimer() - t0 > WW_WAIT_NS)
            __trap();
    }
}

static __device__ __forceinline__ void ww_tma_2d(uint32_t dst, const CUtensorMap *map, uint32_t bar,
                                                 int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
                 "l"((uint64_t)map), "r"(bar), "r"(c0), "r"(c1)
                 : "memory");
}

static __device__ __forceinline__ void ww_tma_4d(uint32_t dst, const CUtensorMap *map, uint32_t bar,
                                                 int c0, int c1, int c2, int c3)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(dst),
                 "l"((uint64_t)map), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
                 : "memory");
}

static __device__ __forceinline__ void ww_fence()
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
static __device__ __forceinline__ void ww_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N> static __device__ __forceinline__ void ww_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* wgmma writes the accumulators behind the compiler's back: pin them in program order. */
template <int R> static __device__ __forceinline__ void ww_acc_fence(float (&d)[R])
{
#pragma unroll
    for (int i = 0; i < R; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

/* Shared-memory matrix descriptor of an MN-major operand in TMA's 128-byte swizzle: rows of 128
 * bytes = 64 MN elements of one reduction index, 8-row atoms 1024 bytes apart (SBO, bits 32-45,
 * >> 4), 64-element MN groups WW_CHUNK bytes apart (LBO, bits 16-29, >> 4; A spans one group, B
 * BN/64), mode bits 62-63 = 1 (128B). Regions are 1024-byte aligned, so base offset 0. */
static __device__ __forceinline__ uint64_t ww_desc(uint32_t addr)
{
    return (uint64_t)((addr & 0x3FFFFu) >> 4) | ((uint64_t)(WW_CHUNK >> 4) << 16) |
           ((uint64_t)(1024 >> 4) << 32) | (1ull << 62);
}
#define WW_DESC_KSTEP (2048 >> 4) /* 16 rows = two atoms, in descriptor address units */

/* ---- wgmma m64nBNk16, f32 += {f16, bf16} x {f16, bf16}, both operands MN-major in shared ---- */

#define WW_D4(i) "+f"(d[(i)]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3])
#define WW_D16(i) WW_D4(i), WW_D4((i) + 4), WW_D4((i) + 8), WW_D4((i) + 12)
#define WW_D32(i) WW_D16(i), WW_D16((i) + 16)
#define WW_D64(i) WW_D32(i), WW_D32((i) + 32)
#define WW_D128 WW_D64(0), WW_D64(64)
#define WW_DL32 WW_D32(0)
#define WW_DL64 WW_D64(0)
#define WW_DL128 WW_D128

#define WW_P32                                                                                     \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                       \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define WW_P64                                                                                     \
    WW_P32 ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "    \
           "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define WW_P128                                                                                    \
    WW_P64 ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "    \
           "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "      \
           "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, "      \
           "%110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, "  \
           "%124, %125, %126, %127"

/* d (NREG floats per thread) += A (64 x 16 at descriptor da) * B (16 x BN at db). Operands:
 * %0..%NREG-1 the accumulators, then da, db and the scale-d flag (always 1: d starts at 0).
 * Immediates: scale-a = scale-b = 1, imm-trans-a = imm-trans-b = 1 (M-major A, N-major B). */
#define WW_MMA(NAME, SHAPE, TY, NREG, PLIST, DLIST, SCALE_IDX, DA_IDX, DB_IDX)                     \
    static __device__ __forceinline__ void NAME(float(&d)[NREG], uint64_t da, uint64_t db)         \
    {                                                                                              \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" SCALE_IDX ", 0;\n"                       \
                     "wgmma.mma_async.sync.aligned." SHAPE ".f32." TY "." TY " {" PLIST "}, "      \
                     "%" DA_IDX ", %" DB_IDX ", p, 1, 1, 1, 1;\n}\n"                               \
                     : DLIST                                                                       \
                     : "l"(da), "l"(db), "r"(1));                                                  \
    }

WW_MMA(ww_mma_f16_n64, "m64n64k16", "f16", 32, WW_P32, WW_DL32, "34", "32", "33")
WW_MMA(ww_mma_f16_n128, "m64n128k16", "f16", 64, WW_P64, WW_DL64, "66", "64", "65")
WW_MMA(ww_mma_f16_n256, "m64n256k16", "f16", 128, WW_P128, WW_DL128, "130", "128", "129")
WW_MMA(ww_mma_bf16_n64, "m64n64k16", "bf16", 32, WW_P32, WW_DL32, "34", "32", "33")
WW_MMA(ww_mma_bf16_n128, "m64n128k16", "bf16", 64, WW_P64, WW_DL64, "66", "64", "65")
WW_MMA(ww_mma_bf16_n256, "m64n256k16", "bf16", 128, WW_P128, WW_DL128, "130", "128", "129")

static __device__ __forceinline__ void ww_mma(const __half *, float (&d)[32], uint64_t a,
                                              uint64_t b)
{
    ww_mma_f16_n64(d, a, b);
}
static __device__ __forceinline__ void ww_mma(const __half *, float (&d)[64], uint64_t a,
                                              uint64_t b)
{
    ww_mma_f16_n128(d, a, b);
}
static __device__ __forceinline__ void ww_mma(const __half *, float (&d)[128], uint64_t a,
                                              uint64_t b)
{
    ww_mma_f16_n256(d, a, b);
}
static __device__ __forceinline__ void ww_mma(const __nv_bfloat16 *, float (&d)[32], uint64_t a,
                                              uint64_t b)
{
    ww_mma_bf16_n64(d, a, b);
}
static __device__ __forceinline__ void ww_mma(const __nv_bfloat16 *, float (&d)[64], uint64_t a,
                                              uint64_t b)
{
    ww_mma_bf16_n128(d, a, b);
}
static __device__ __forceinline__ void ww_mma(const __nv_bfloat16 *, float (&d)[128], uint64_t a,
                                              uint64_t b)
{
    ww_mma_bf16_n256(d, a, b);
}

#endif /* __CUDA_ARCH_FEAT_SM90_ALL */

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
    const uint32_t base = (ww_smem_u32(ww_smem) + 1023u) & ~1023u;
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

    if (threadIdx.x == 0) {
#pragma unroll
        for (int st = 0; st < WW_STAGES; st++) {
            ww_mbar_init(bar_full + 8 * st, 1);    /* the producer's arrive.expect_tx */
            ww_mbar_init(bar_empty + 8 * st, 256); /* every consumer thread */
        }
        /* the initialised barriers must be visible to the async proxy (TMA complete_tx) */
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)&tmx) : "memory");
        asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)&tmdy) : "memory");
    }
    __syncthreads();

    if (wg == 0) {
        /* ---- producer: one thread walks the split's pixel boxes ---- */
        if (REGS)
            asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
        if (tid == 0) {
            /* the A chunks' channel and tap offsets are fixed for the block */
            int ac[2], ah[2], aw[2];
#pragma unroll
            for (int i = 0; i < 2; i++) {
                const int jc = jc0 + i < a.jchunks ? jc0 + i : jc0;
                const int f = jc / a.cchunks, fr = f / a.s, fs = f % a.s;
                ac[i] = (jc % a.cchunks) * 64;
                ah[i] = (a.cross ? fr : a.r - 1 - fr) - a.pad_h;
                aw[i] = (a.cross ? fs : a.s - 1 - fs) - a.pad_w;
            }
            const uint32_t tx = (uint32_t)(na + nbk) * (uint32_t)a.rows * 128u;
            for (int64_t i = 0; i < nblk; i++) {
                const int st = (int)(i % WW_STAGES);
                const uint32_t full = bar_full + 8 * st;
                /* round 0 waits on parity 1 of a fresh barrier, which counts as completed */
                ww_mbar_wait(bar_empty + 8 * st, (uint32_t)((i / WW_STAGES) & 1) ^ 1u);
                ww_mbar_arrive_expect_tx(full, tx);
                const uint32_t pb = (uint32_t)(pb0 + i); /* < 2^31 (applicable) */
                const uint32_t dA = sA + st * WW_A_STAGE, dB = sB + st * BN * 128;
                if (TAP) {
                    const uint32_t t = pb / (uint32_t)a.tiles_q;
                    const int q0 = (int)(pb % (uint32_t)a.tiles_q) * a.bw,
                              p0 = (int)(t % (uint32_t)a.tiles_p) * a.bh,
                              n0 = (int)(t / (uint32_t)a.tiles_p) * a.bni;
#pragma unroll
                    for (int c = 0; c < 2; c++)
                        if (c < na)
                            ww_tma_4d(dA + c * WW_CHUNK, &tmx, full, ac[c], q0 + aw[c], p0 + ah[c],
                                      n0);
#pragma unroll
                    for (int c = 0; c < BN / 64; c++)
                        if (c < nbk)
                            ww_tma_4d(dB + c * WW_CHUNK, &tmdy, full, k0 + 64 * c, q0, p0, n0);
                } else {
                    const int m0 = (int)(pb * WW_ROWS); /* M <= INT32_MAX - 64 (ww_plan) */
#pragma unroll
                    for (int c = 0; c < 2; c++)
                        if (c < na)
                            ww_tma_2d(dA + c * WW_CHUNK, &tmx, full, ac[c], m0);
#pragma unroll
                    for (int c = 0; c < BN / 64; c++)
                        if (c < nbk)
                            ww_tma_2d(dB + c * WW_CHUNK, &tmdy, full, k0 + 64 * c, m0);
                }
            }
        }
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
    ww_acc_fence(acc);
    for (int64_t i = 0; i < nblk; i++) {
        const int st = (int)(i % WW_STAGES);
        ww_mbar_wait(bar_full + 8 * st, (uint32_t)((i / WW_STAGES) & 1));
        const uint64_t da = ww_desc(sA + st * WW_A_STAGE + cw * WW_CHUNK);
        const uint64_t db = ww_desc(sB + st * BN * 128);
        ww_fence();
#pragma unroll
        for (int j = 0; j < KS; j++) /* k16 steps over the box's pixel rows */
            ww_mma((const T *)0, acc, da + WW_DESC_KSTEP * j, db + WW_DESC_KSTEP * j);
        ww_commit();
        /* one batch stays in flight: the previous one has completed, its stage is free */
        ww_wait<1>();
        if (i >= 1)
            ww_mbar_arrive(bar_empty + 8 * (int)((i - 1) % WW_STAGES));
    }
    ww_wait<0>();
    ww_acc_fence(acc);
    if (!active)
        return;

    /* ---- epilogue: partial z of D. The thread holds rows (lane/4, lane/4 + 8) of its warp's 16
     * (j within the chunk) and column pairs 8jj + 2*(lane%4) (k) of every n8 block jj:
     * acc[4jj + 2h + {0, 1}] belongs to row + 8h. part[z][k][j]: 8 lanes store 32 contiguous
     * bytes of one k row. ---- */
    const int warp = tid / 32, lane = tid % 32;
    const int col0 = k0 + (lane & 3) * 2;
    const int64_t rsc = a.rsc;
    /* one pointer walked by 8 k rows per n8 block keeps the 128 accumulators' epilogue within
     * the consumers' registers (no 64-bit products per store) */
    float *pc = a.part + (z * (int64_t)a.k + col0) * rsc + (int64_t)(jc0 + cw) * 64 + warp * 16 +
                (lane >> 2);
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
#elif defined(__CUDA_ARCH__)
    /* no wgmma here; the host launches this only on compute capability 9.0, where the sm_90a
     * image is the one loaded: reaching this is a build error, made loud */
    __trap();
#endif
}

static __device__ __forceinline__ float ww_ld(const __half *p)
{
    return __half2float(*p);
}
static __device__ __forceinline__ float ww_ld(const __nv_bfloat16 *p)
{
    return __bfloat162float(*p);
}
static __device__ __forceinline__ void ww_st(__half *p, double v)
{
    *p = __double2half(v);
}
static __device__ __forceinline__ void ww_st(__nv_bfloat16 *p, double v)
{
    *p = __double2bfloat16(v);
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

/* ---- host: gate, plan, tensor maps --------------------------------------------------------- */

extern "C" int fd_conv_bwd_filter_tc_igemm_applicable(const fd_conv_problem_t *p, char *why,
                                                      size_t why_size);
extern "C" cudnnStatus_t fd_conv_bwd_filter_direct_run(const fd_conv_problem_t *p,
                                                       const fd_conv_args_t *a);

/* FREEDNN_WGMMA_WGRAD=0 opts out of this row, FREEDNN_WGMMA=0 out of every wgmma row. Read once per process (function-local statics: C++ initialises them once,
 * thread-safely). */
static int ww_env_on(void)
{
    const char *all = getenv("FREEDNN_WGMMA"), *e = getenv("FREEDNN_WGMMA_WGRAD");
    if (all != NULL && strcmp(all, "0") == 0)
        return 0;
    return e == NULL || strcmp(e, "0") != 0;
}

static int ww_enabled(void)
{
    static const int on = ww_env_on();
    return on;
}

/* 1 when the current device is compute capability 9.0 (sm_90a code runs there only); cached per
 * device id (0 unknown, 1 yes, 2 no); racing first calls store the same. */
static int ww_device_sm90(char *why, size_t why_size)
{
    static int cache[WW_MAX_DEV];
    int dev = -1, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, why_size,
                 "cudaGetDevice failed: no current CUDA device for the sm_90a wgmma row");
        return 0;
    }
    int v = dev >= 0 && dev < WW_MAX_DEV ? __atomic_load_n(&cache[dev], __ATOMIC_ACQUIRE) : 0;
    if (v == 0) {
        if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
            (void)cudaGetLastError();
            snprintf(why, why_size, "device %d: its compute capability cannot be read", dev);
            return 0;
        }
        v = major == 9 && minor == 0 ? 1 : 2;
        if (dev >= 0 && dev < WW_MAX_DEV)
            __atomic_store_n(&cache[dev], v, __ATOMIC_RELEASE);
    }
    if (v != 1) {
        snprintf(why, why_size,
                 "device %d is not compute capability 9.0; the wgmma row runs on sm_90a "
                 "(H100/H200) only",
                 dev);
        return 0;
    }
    return 1;
}

/* The launch geometry of a problem (a pure function of it: applicable, workspace and run agree). */
typedef struct {
    int tap; /* 4-d pixel boxes (else [M][C] / [M][K] matrices) */
    int bn;  /* 64, 128 or 256 */
    int bw, bh, bni, tiles_q, tiles_p, rows;
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

static void ww_plan(const fd_conv_problem_t *p, ww_plan_t *pl)
{
    memset(pl, 0, sizeof *pl);
    const int64_t h = p->in[1], w = p->in[2], pp = p->out[1], q = p->out[2], m = p->n * pp * q;
    const int64_t rsc = p->c * p->flt[1] * p->flt[2];
    pl->bn = p->k <= 64 ? 64 : p->k <= 128 ? 128 : 256;
    pl->ntiles = (p->k + pl->bn - 1) / pl->bn;
    pl->mtiles = (rsc / 64 + 1) / 2;
    /* [M][C]: a 1x1 filter without padding over pixel strides of x and dy that merge into one */
    const int xm =
        (h == 1 || p->xs[3] == w * p->xs[4]) && (p->n == 1 || p->xs[0] == h * w * p->xs[4]);
    const int ym =
        (pp == 1 || p->ys[3] == q * p->ys[4]) && (p->n == 1 || p->ys[0] == pp * q * p->ys[4]);
    const int mat = p->flt[1] == 1 && p->flt[2] == 1 && p->pad[1] == 0 && p->pad[2] == 0 && xm &&
                    ym && m <= INT32_MAX - WW_ROWS && p->xs[4] > 0 && p->ys[4] > 0;
    pl->tap = !mat;
    if (pl->tap) {
        /* a box that never overhangs P or Q (see the header): whole rows when Q fits */
        if (q <= WW_ROWS) {
            pl->bw = (int)q;
            pl->bh = (int)ww_divisor(pp, WW_ROWS / q);
            int64_t bni = 1;
            if (pl->bh == pp) {
                bni = WW_ROWS / (pp * q);
                if (bni > p->n)
                    bni = p->n;
            }
            pl->bni = (int)bni;
        } else {
            pl->bw = (int)ww_divisor(q, WW_ROWS);
            pl->bh = 1, pl->bni = 1;
        }
        pl->rows = pl->bw * pl->bh * pl->bni;
        pl->tiles_q = (int)(q / pl->bw);
        pl->tiles_p = (int)(pp / pl->bh);
        pl->pblocks = (int64_t)pl->tiles_q * pl->tiles_p * ((p->n + pl->bni - 1) / pl->bni);
    } else {
        pl->rows = WW_ROWS;
        pl->pblocks = (m + WW_ROWS - 1) / WW_ROWS;
    }
    const int64_t tiles = pl->mtiles * pl->ntiles > 0 ? pl->mtiles * pl->ntiles : 1;
    const int64_t s = ww_splits(tiles, pl->pblocks, 2.0 * (double)m * (double)p->k * (double)rsc,
                                (double)p->k * (double)rsc);
    pl->split_len = (pl->pblocks + s - 1) / s;
    pl->splits = (int)((pl->pblocks + pl->split_len - 1) / pl->split_len);
}

extern "C" int
fd_conv_bwd_filter_implicit_gemm_f16_128xN__sm90_applicable(const fd_conv_problem_t *p, char *why,
                                                            size_t why_size)
{
    if (!ww_enabled()) {
        snprintf(why, why_size,
                 "the sm_90a wgmma backward filter row is turned off (FREEDNN_WGMMA_WGRAD=0 or "
                 "FREEDNN_WGMMA=0)");
        return 0;
    }
#ifndef FD_WGMMA_SM90A
    snprintf(why, why_size,
             "built without sm_90a code (CUDA 12.0+ and sm_90 in CMAKE_CUDA_ARCHITECTURES "
             "are needed; cmake/cuda.cmake)");
    return 0;
#endif
    const cudnnDataType_t dt = p->xdt;
    if ((dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16) || p->wdt != dt || p->ydt != dt) {
        snprintf(why, why_size,
                 "x/dw/dy are %s/%s/%s; the wgmma backward filter row takes HALF or BFLOAT16 for "
                 "all three",
                 fd_dtype_name(p->xdt), fd_dtype_name(p->wdt), fd_dtype_name(p->ydt));
        return 0;
    }
    if (p->nsp != 2) {
        snprintf(why, why_size, "%d spatial dims; the wgmma backward filter row takes 2", p->nsp);
        return 0;
    }
    if (p->stride[1] != 1 || p->stride[2] != 1 || p->dil[1] != 1 || p->dil[2] != 1) {
        snprintf(why, why_size,
                 "stride %lldx%lld, dilation %lldx%lld; the wgmma backward filter row takes 1x1 "
                 "and 1x1",
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
    for (int d = 0; d < 5; d++)
        if (p->xs[d] < 0 || p->xs[d] >= ((int64_t)1 << 39) || p->ys[d] < 0 ||
            p->ys[d] >= ((int64_t)1 << 39)) {
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
    return ww_device_sm90(why, why_size);
}

extern "C" size_t
fd_conv_bwd_filter_implicit_gemm_f16_128xN__sm90_workspace(const fd_conv_problem_t *p)
{
    ww_plan_t pl;
    ww_plan(p, &pl);
    return (size_t)pl.splits * (size_t)p->k * (size_t)(p->c * p->flt[1] * p->flt[2]) *
           sizeof(float);
}

/* cuTensorMapEncodeTiled without linking libcuda: the runtime hands out the driver's entry. */
typedef CUresult (*ww_encode_fn_t)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                   const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                   const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                   CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

static ww_encode_fn_t ww_encode_lookup(void)
{
    void *fn = NULL;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                     cudaEnableDefault, &q);
#else
    cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &q);
#endif
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return (ww_encode_fn_t)fn;
}

static ww_encode_fn_t ww_encode(void)
{
    static const ww_encode_fn_t fn = ww_encode_lookup();
    return fn;
}

/* One 128B-swizzled tiled map; 0 when the driver refuses it (res holds its code). */
static int ww_map(CUtensorMap *map, cudnnDataType_t dt, int rank, const void *ptr,
                  const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
                  int *res)
{
    static const cuuint32_t one[4] = {1, 1, 1, 1};
    const CUresult r = ww_encode()(
        map,
        dt == CUDNN_DATA_HALF ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        (cuuint32_t)rank, (void *)ptr, dims, strides, box, one, CU_TENSOR_MAP_INTERLEAVE_NONE,
        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    *res = (int)r;
    return r == CUDA_SUCCESS;
}

/* A 4-d map {channels, W, H, N} of an NHWC tensor (strides s: N, C, D, H, W in elements) with
 * box {64, bw, bh, bni}. TMA takes a stride (a multiple of 16 bytes) for every dim: one of a
 * single element, never stepped, gets the dense stride over the dims inside it. */
static int ww_map4(CUtensorMap *map, cudnnDataType_t dt, const void *ptr, int64_t ch, int64_t hh,
                   int64_t ww, int64_t n, const int64_t *s, const ww_plan_t &pl, int *res)
{
    const cuuint64_t dims[4] = {(cuuint64_t)ch, (cuuint64_t)ww, (cuuint64_t)hh, (cuuint64_t)n};
    const int64_t sw = ww > 1 ? s[4] : ch, sh = hh > 1 ? s[3] : ww * sw,
                  sn = n > 1 ? s[0] : hh * sh;
    const cuuint64_t str[3] = {(cuuint64_t)sw * 2u, (cuuint64_t)sh * 2u, (cuuint64_t)sn * 2u};
    const cuuint32_t box[4] = {64, (cuuint32_t)pl.bw, (cuuint32_t)pl.bh, (cuuint32_t)pl.bni};
    return ww_map(map, dt, 4, ptr, dims, str, box, res);
}

/* A 2-d map {channels, M} of pixels that merge into one stride, box {64, 64}. */
static int ww_map2(CUtensorMap *map, cudnnDataType_t dt, const void *ptr, int64_t ch, int64_t m,
                   int64_t pix, int *res)
{
    const cuuint64_t dims[2] = {(cuuint64_t)ch, (cuuint64_t)m};
    const cuuint64_t str[1] = {(cuuint64_t)(m > 1 ? pix : ch) * 2u};
    const cuuint32_t box[2] = {64, WW_ROWS};
    return ww_map(map, dt, 2, ptr, dims, str, box, res);
}

/* Sets the dynamic shared-memory limit of one kernel once per device (attributes are per
 * device; repeating the call is harmless, so racing first calls are too). */
template <typename T, int BN, bool TAP, int KS> static cudaError_t ww_prepare(int dev)
{
    static int done[WW_MAX_DEV];
    const int cached = dev >= 0 && dev < WW_MAX_DEV;
    if (cached && __atomic_load_n(&done[dev], __ATOMIC_ACQUIRE))
        return cudaSuccess;
    const cudaError_t e =
        cudaFuncSetAttribute(conv_wgrad_wgmma<T, BN, TAP, KS, BN == 256>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize, (int)ww_smem_bytes(BN));
    if (e == cudaSuccess && cached)
        __atomic_store_n(&done[dev], 1, __ATOMIC_RELEASE);
    return e;
}

template <typename T, int BN, bool TAP, int KS>
static cudnnStatus_t ww_launch(const fd_conv_problem_t *p, const fd_conv_args_t *a,
                               const CUtensorMap &tmx, const CUtensorMap &tmdy, const ww_args_t &ka,
                               const ww_plan_t &pl)
{
    int dev = -1;
    FD_CUDA_CHECK(cudaGetDevice(&dev), "cudaGetDevice for the wgmma backward filter row");
    const cudaError_t prep = ww_prepare<T, BN, TAP, KS>(dev);
    FD_CUDA_CHECK(prep,
                  "cudaFuncSetAttribute(%zu bytes of dynamic shared memory) "
                  "for conv_wgrad_wgmma BN %d",
                  ww_smem_bytes(BN), BN);
    cudaStream_t s = a->handle->stream;
    const unsigned blocks = (unsigned)(pl.mtiles * pl.ntiles * pl.splits);
    conv_wgrad_wgmma<T, BN, TAP, KS, BN == 256>
        <<<blocks, WW_THREADS, ww_smem_bytes(BN), s>>>(tmx, tmdy, ka);
    FD_CUDA_LAUNCHED(
        "conv_wgrad_wgmma on %s data (BN %d, %s of %d rows, %d k16 steps, %u blocks, %d splits, "
        "stream %p)",
        fd_dtype_name(p->xdt), BN, TAP ? "4-d pixel boxes" : "[M][C] boxes", pl.rows, KS, blocks,
        pl.splits, (void *)s);
    const int64_t total = p->k * ka.rsc;
    const unsigned rblocks = fd_cuda_blocks(total, FD_CUDA_BLOCK);
    conv_wgrad_reduce<T><<<rblocks, FD_CUDA_BLOCK, 0, s>>>(
        ka.part, pl.splits, p->k, p->c, p->flt[2], ka.rsc, p->ws[0], p->ws[1], p->ws[3], p->ws[4],
        (T *)a->out, a->alpha, a->beta);
    FD_CUDA_LAUNCHED("conv_wgrad_reduce on %s data (%u blocks, %d splits)", fd_dtype_name(p->xdt),
                     rblocks, pl.splits);
    return CUDNN_STATUS_SUCCESS;
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

extern "C" cudnnStatus_t
fd_conv_bwd_filter_implicit_gemm_f16_128xN__sm90_run(const fd_conv_problem_t *p,
                                                     const fd_conv_args_t *a)
{
    if ((((uintptr_t)a->x | (uintptr_t)a->y) % 16) != 0)
        return fd_conv_bwd_filter_direct_run(p, a); /* TMA reads 16-byte aligned addresses only */
    FD_CHECK(ww_encode() != NULL, CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER,
             "the driver has no cuTensorMapEncodeTiled (the wgmma row needs a CUDA 12 driver)");
    ww_plan_t pl;
    ww_plan(p, &pl);
    const size_t need = fd_conv_bwd_filter_implicit_gemm_f16_128xN__sm90_workspace(p);
    FD_CHECK(a->workspace != NULL && a->workspace_size >= need, CUDNN_STATUS_BAD_PARAM,
             "the wgmma backward filter row needs %zu bytes of workspace (%d splits), got %zu",
             need, pl.splits, a->workspace_size);
    const int64_t c = p->c, k = p->k, h = p->in[1], w = p->in[2], pp = p->out[1], q = p->out[2];
    CUtensorMap tmx, tmdy;
    int res = 0;
    if (pl.tap) {
        FD_CHECK(ww_map4(&tmx, p->xdt, a->x, c, h, w, p->n, p->xs, pl, &res),
                 CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER,
                 "cuTensorMapEncodeTiled(x: %lldx%lldx%lldx%lld, box 64x%dx%dx%d) returned %d",
                 (long long)c, (long long)w, (long long)h, (long long)p->n, pl.bw, pl.bh, pl.bni,
                 res);
        FD_CHECK(ww_map4(&tmdy, p->xdt, a->y, k, pp, q, p->n, p->ys, pl, &res),
                 CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER,
                 "cuTensorMapEncodeTiled(dy: %lldx%lldx%lldx%lld, box 64x%dx%dx%d) returned %d",
                 (long long)k, (long long)q, (long long)pp, (long long)p->n, pl.bw, pl.bh, pl.bni,
                 res);
    } else {
        const int64_t m = p->n * pp * q;
        FD_CHECK(ww_map2(&tmx, p->xdt, a->x, c, m, p->xs[4], &res),
                 CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER,
                 "cuTensorMapEncodeTiled(x: %lldx%lld, box 64x64) returned %d", (long long)c,
                 (long long)m, res);
        FD_CHECK(ww_map2(&tmdy, p->xdt, a->y, k, m, p->ys[4], &res),
                 CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER,
                 "cuTensorMapEncodeTiled(dy: %lldx%lld, box 64x64) returned %d", (long long)k,
                 (long long)m, res);
    }
    ww_args_t ka;
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
    ka.cross = p->cross_correlation;
    ka.bw = pl.bw, ka.bh = pl.bh, ka.bni = pl.bni;
    ka.tiles_q = pl.tiles_q, ka.tiles_p = pl.tiles_p;
    ka.rows = pl.rows;
    if (p->xdt == CUDNN_DATA_HALF)
        return ww_dispatch<__half>(p, a, pl, tmx, tmdy, ka);
    return ww_dispatch<__nv_bfloat16>(p, a, pl, tmx, tmdy, ka);
}
