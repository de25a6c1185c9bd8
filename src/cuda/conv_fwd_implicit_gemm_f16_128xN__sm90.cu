/* SPDX-License-Identifier: MIT */
/*
 * conv_fwd_implicit_gemm_f16_128xN__sm90.cu - forward convolution as a warp-specialised
 * implicit GEMM on the sm_90a instructions (TMA loads into a 4-stage shared-memory ring, mbarrier
 * hand-off, wgmma from shared memory, float accumulators in registers): the library form of the
 * dev/wgmma sandbox's v3 (BN 64 / 128) and v4 (BN 256), which ran bit-exact on the H200.
 * Row fd_conv_fwd_implicit_gemm_f16_128xN__sm90: FWD IMPLICIT_GEMM and IMPLICIT_PRECOMP_GEMM,
 * no workspace, deterministic, HALF and BFLOAT16 (the same wgmma with .bf16 operands). Row
 * fd_conv_fwd_implicit_gemm_tf32_128xN__sm90: the same kernel on FLOAT data computed as TF32
 * (wgmma m64nBNk8 .tf32), FLOAT compute under DEFAULT, TENSOR_OP or TENSOR_OP_ALLOW_CONVERSION
 * math with NVIDIA_TF32_OVERRIDE != 0 (conv_tc.cu's rules and messages).
 *
 * GEMM mapping: y[m, k] = alpha * sum_kk A[m, kk] B[k, kk] + beta * y[m, k], M = N*P*Q (m =
 * (n, oh, ow)), N = K, reduction R*S*C (kk = (r, s, c)); A[m, kk] = x[n, oh+r-pad_h, ow+s-pad_w, c]
 * (0 outside), B[k, kk] = w[k, t, c] where the memory tap t is (r, s) for cross-correlation and
 * (R-1-r, S-1-s) for CUDNN_CONVOLUTION (the flip is in the TMA coordinate of B, nothing else).
 * Both operands are K-major (kk contiguous: NHWC x, packed KRSC w), as wgmma reads them.
 * Tile 128 x BN x KE (one k-block = KE channels of one tap = one 128-byte swizzled TMA row: KE =
 * 64 16-bit elements, hence C % 64 == 0, or 32 floats for tf32, hence C % 32 == 0), BN = 256 when
 * K >= 256, 64 when K <= 64, else 128. 4 stages of A 16 KiB + B BN*128 B: 96 / 128 / 192 KiB +
 * barriers + 1 KiB alignment slack (limit 227 KiB), one block per SM, the same bytes for both
 * types; a tf32 k-block is 4 wgmma k8 steps of 32 bytes, as a 16-bit one is 4 k16 steps, so the
 * descriptors, the swizzle, the barriers and the epilogue's fragment layout are shared.
 * B's stage comes one of three ways (template BT): 0 a K-major TMA box of a packed KRSC filter
 * (forward; backward data's transposed filter); 1 MN-major TMA boxes of the KRSC filter itself
 * or a strided view of it (16-bit backward data: wgmma's B-transpose bit); 2 written K-major
 * into the swizzled stage by the producer warpgroup's 128 threads from the float KRSC filter or
 * a view (tf32 backward data, which wgmma cannot read transposed; the stage's full barrier then
 * counts those 128 arrivals besides A's bytes). Same shared-memory budget in all three.
 * Block = 3 warpgroups: warpgroup 0 the producer (one thread walks (r, s, c-chunk) and issues
 * the TMA loads; with BN 256 it gives registers back: setmaxnreg 40), warpgroups 1-2 the
 * consumers (64 rows x BN columns each, wgmma m64nBNk16 or, tf32, m64nBNk8; one batch left in
 * flight; BN 256: setmaxnreg 232). A is the x window of the tile's output pixels: 1x1 pad 0
 * filters over mergeable pixel strides read x as an [M][C] matrix (2-d box {KE, 128}); everything
 * else reads one 4-d box {KE c, bw, bh, bni} per (tap, c-chunk) at signed coordinates, TMA's zero fill
 * being the padding (tiles: bni whole images or a bh x bw rectangle, <= 128 pixels). Strided
 * convolutions (up to 8 per dim) take the same boxes with TMA element strides: the box of output
 * pixels (ow0.., oh0..) of tap (r, s) starts at x's (ow0*str_w + s - pad_w, oh0*str_h + r - pad_h)
 * and steps str_w / str_h pixels, so TMA lands exactly the A rows of those output pixels (no
 * gather, no residue split; FREEDNN_WGMMA_STRIDED=0 sends strided problems back to mma.sync).
 * ptxas (nvcc 13.0, sm_90a), registers per thread, 0 spills: see the row's comment in
 * src/impls.def (tf32 = f16 = bf16: [M][C] / tap boxes BN 64 63 / 68, BN 128 94 / 102, BN 256
 * 168 / 168); SASS: HGMMA.64x{64,128,256}x8.F32.TF32, 4 per tf32 kernel.
 * TF32 rounding: the floats go from global memory to the tensor core untouched (TMA copies bits),
 * and the tensor core reads each as TF32, keeping sign, exponent and the top 10 mantissa bits,
 * i.e. truncates (relative error < 2^-10), where the mma.sync row (conv_tc.cu) rounds to nearest
 * with cvt.rna (< 2^-11). Rounding here would cost a pass over each stage in shared memory; the
 * tests bound real data with u_in = 2^-10. Small integers (|v| < 2^11) are exact either way, so
 * integer-exact problems give ref's bits.
 *
 * Decisions. On by default where the current device is compute capability 9.0 (asked once per
 * device); FREEDNN_WGMMA=0 (read once) turns the row off, leaving the mma.sync rows (its library
 * form ran clean on the H200: GPU tier of 2026-11-30, docs/perf/gpu-tier-2026-11-30.md). The file is built by cmake/cuda.cmake
 * with sm_90a replacing sm_90 (a fat binary holding both would leave the pick to the driver);
 * other targets compile a kernel body that traps, and the host never launches it there. TMA
 * descriptors are encoded on the host per call (cuTensorMapEncodeTiled through the runtime's
 * driver entry point: the library links no libcuda) and passed as __grid_constant__ parameters:
 * no allocation, no synchronisation. The epilogue writes y by its strides (a half2 store per
 * column pair when y is channel-contiguous, else scalars), alpha/beta blended in double and
 * rounded once as ref (alpha 1, beta 0 rounds the float sum directly: the same bits); beta == 0
 * never reads y. With alpha 1, beta 0 and y rows of whole 16-byte vectors (K and every used
 * stride, 16-byte aligned), the tile goes through the free stages in shared memory and out in
 * whole rows of 16-byte stores (FREEDNN_WGMMA_STAGED_EPILOGUE=0 keeps the pair stores; the same
 * bits). A bounded wait that exceeds 20 s of GPU time traps (a protocol bug becomes an
 * error, not a hang). Calls with x or w not 16-byte aligned (TMA's rule) run the mma.sync row.
 * The tf32 rows (forward and backward data) are separate rows with the dtype in their names so
 * the dispatch log and dnnbench's --impl say which arithmetic ran; they share every function
 * here with the f16 rows (the element type picks the template instance). The sm_90a helpers
 * (mbarrier, TMA, wgmma and its descriptor, the tensor-map encoder, the CC 9.0 check) are in
 * wgmma_sm90.cuh, shared with the backward filter rows.
 */
#include <cuda.h> /* CUtensorMap and its enums only: no driver library is linked */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_cuda.cuh"
#include "wgmma_sm90.cuh"

#define WG_THREADS 384   /* 3 warpgroups */
#define WG_STAGES 4
#define WG_A_STAGE 16384 /* 128 rows x 128 bytes */
#define WG_BT_CHUNK 8192 /* MN-major B: one 64-column chunk of 64 k rows x 128 bytes */
#define WG_MAX_DEV WGX_MAX_DEV

/* What the kernel reads besides the two tensor maps. */
typedef struct {
    void *y;
    int64_t ys[4];    /* y strides (elements): n, k, oh, ow */
    int64_t m;        /* N*P*Q */
    int k, ktiles;    /* output channels, BN-wide column tiles */
    int kblocks;      /* R*S*C/KE (KE = 128 bytes of elements: 64 16-bit, 32 float) */
    int cchunks;      /* C/KE */
    int r, s, pad_h, pad_w, cross;
    int str_h, str_w;  /* convolution strides (the tap boxes step them: TMA element strides) */
    int n, p, q;
    int bw, bh, bni;  /* 4-d mode: output pixels of a tile, a (bni, bh, bw) box */
    int tiles_q, tiles_p;
    uint32_t tx_bytes; /* bytes one stage receives: A box + B box */
    uint32_t a_bytes;  /* A box bytes (<= WG_A_STAGE); the rest of the stage is zeroed once */
    int vec;           /* y channel-contiguous with even strides and 4-byte aligned */
    int vec16;         /* ... with every used stride and K whole 16-byte vectors, y 16-byte aligned */
    int plain;         /* alpha == 1 and beta == 0 */
    int tap;           /* the tap boxes (the grouped kernel's per-class choice; else the template's) */
    double alpha, beta;
    const void *wb;    /* BT 2: the float KRSC filter (or a view of it) the producers read B from */
    int64_t wbs[3];    /* its K, R and S strides (elements; C's is 1) */
} wg_args_t;

static size_t wg_smem_bytes(int bn)
{
    return (size_t)WG_STAGES * (WG_A_STAGE + (size_t)bn * 128) + 2 * WG_STAGES * 8 + 1024;
}

/* ---- device code (sm_90a only) ------------------------------------------------------------ */

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)

/* ---- element access of the epilogue --------------------------------------------------------- */

static __device__ __forceinline__ double wg_ld(const __half *p)
{
    return (double)__half2float(*p);
}
static __device__ __forceinline__ double wg_ld(const __nv_bfloat16 *p)
{
    return (double)__bfloat162float(*p);
}
static __device__ __forceinline__ double wg_ld(const float *p)
{
    return (double)*p;
}
static __device__ __forceinline__ void wg_st(float *p, double v)
{
    *p = (float)v;
}
static __device__ __forceinline__ void wg_st(__half *p, double v)
{
    *p = __double2half(v);
}
static __device__ __forceinline__ void wg_st(__nv_bfloat16 *p, double v)
{
    *p = __double2bfloat16(v);
}
static __device__ __forceinline__ void wg_ld2(const __half *p, double &a, double &b)
{
    const float2 f = __half22float2(*(const __half2 *)p);
    a = (double)f.x, b = (double)f.y;
}
static __device__ __forceinline__ void wg_ld2(const __nv_bfloat16 *p, double &a, double &b)
{
    const float2 f = __bfloat1622float2(*(const __nv_bfloat162 *)p);
    a = (double)f.x, b = (double)f.y;
}
static __device__ __forceinline__ void wg_ld2(const float *p, double &a, double &b)
{
    const float2 f = *(const float2 *)p;
    a = (double)f.x, b = (double)f.y;
}
static __device__ __forceinline__ void wg_st2f(float *p, float a, float b)
{
    *(float2 *)p = make_float2(a, b);
}
static __device__ __forceinline__ void wg_st2d(float *p, double a, double b)
{
    *(float2 *)p = make_float2((float)a, (float)b);
}
static __device__ __forceinline__ void wg_st2f(__half *p, float a, float b)
{
    *(__half2 *)p = __floats2half2_rn(a, b);
}
static __device__ __forceinline__ void wg_st2f(__nv_bfloat16 *p, float a, float b)
{
    *(__nv_bfloat162 *)p = __floats2bfloat162_rn(a, b);
}
static __device__ __forceinline__ void wg_st2d(__half *p, double a, double b)
{
    __half2 h;
    h.x = __double2half(a);
    h.y = __double2half(b);
    *(__half2 *)p = h;
}
static __device__ __forceinline__ void wg_st2d(__nv_bfloat16 *p, double a, double b)
{
    __nv_bfloat162 h;
    h.x = __double2bfloat16(a);
    h.y = __double2bfloat16(b);
    *(__nv_bfloat162 *)p = h;
}

#endif /* __CUDA_ARCH_FEAT_SM90_ALL */

/* ---- the kernel ------------------------------------------------------------------------------
 * Grid: one block per (column tile kt, row tile mt), kt fastest (blocks sharing an A tile run
 * together, as a 2-d grid of (ktiles, mtiles) would, without its 65535 limit on mtiles).
 * KE         : elements of a k-block (one 128-byte row): 64 of 16-bit T, 32 of float (tf32).
 * TAP = false: A is x as an [M][C] matrix, one 2-d box {KE, 128} at (c, m0).
 * TAP = true : A of k-block (r, s, cc) is the 4-d box {KE, bw, bh, bni} of x at (cc*KE,
 *              ow0*str_w+s-pad_w, oh0*str_h+r-pad_h, n0), stepping str_w / str_h pixels (the
 *              tensor map's element strides); its bni*bh*bw rows fill the first a_bytes of the
 *              stage, the rest is zeroed once (those rows' results are never stored).
 * REGS       : BN 256: the producer gives registers to the consumers' 128 accumulators. */
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* One k16 step (k8 of tf32): B K-major (BT false) or MN-major (BT true, 16-bit types only; a
 * member template, so no float instance of it is ever made) */
template <bool BT> struct wg_mma;
template <> struct wg_mma<false> {
    template <typename T, int R>
    static __device__ __forceinline__ void step(float (&acc)[R], uint64_t da, uint64_t db)
    {
        wgx_mma_k((const T *)0, acc, da, db);
    }
};
template <> struct wg_mma<true> {
    template <typename T, int R>
    static __device__ __forceinline__ void step(float (&acc)[R], uint64_t da, uint64_t db)
    {
        wgx_mma_kmn((const T *)0, acc, da, db);
    }
};
#endif

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* BT 2: the K-major B tile of one k-block, [BN rows n][32 floats kk] (n = nk0 + row: the GEMM's
 * column, the filter's c; kk = k0 + j: the filter's k), written by the producer warpgroup's 128
 * threads from the float KRSC filter at tap (tr, ts) into the layout the 128B-swizzled TMA box
 * would land: row n at n * 128 bytes, its 16-byte chunk q at (q ^ (n % 8)) * 16 (the stage is
 * 1024-byte aligned). A thread's unit: 4 rows x 4 k, four 16-byte loads along c (L2-resident),
 * transposed in registers, four 16-byte shared stores (all units' loads first, but BN 256's one
 * at a time: its producers keep 40 registers). Rows of c >= C are zeros (TMA's fill).
 * The bits are copied, so the tensor core reads the same TF32 as from the transposed filter. */
template <int BN>
static __device__ __forceinline__ void wg_fill_b(uint32_t dst, const wg_args_t &a, int nk0, int tr, int ts, int k0,
                                                 int tid)
{
    const float *w = (const float *)a.wb + tr * a.wbs[1] + ts * a.wbs[2] + nk0;
    const int64_t ks = a.wbs[0];
    /* units per thread, and those loaded together: all (BN 64: 1, 128: 2), or one at a time where
     * the producers keep 40 registers (BN 256: no spill) */
    constexpr int UNITS = BN / 64, U = BN == 256 ? 1 : UNITS;
#pragma unroll 1
    for (int r0 = 0; r0 < UNITS; r0 += U) {
        float4 v[U][4];
#pragma unroll
        for (int uu = 0; uu < U; uu++) {
            const int u = tid + 128 * (r0 + uu), i4 = u % (BN / 4), q = u / (BN / 4); /* rows 4*i4.., k 4q.. */
            if (nk0 + 4 * i4 < a.k) {
                const float *p = w + (k0 + 4 * q) * ks + 4 * i4;
                v[uu][0] = __ldg((const float4 *)p);
                v[uu][1] = __ldg((const float4 *)(p + ks));
                v[uu][2] = __ldg((const float4 *)(p + 2 * ks));
                v[uu][3] = __ldg((const float4 *)(p + 3 * ks));
            } else {
                v[uu][0] = v[uu][1] = v[uu][2] = v[uu][3] = make_float4(0.f, 0.f, 0.f, 0.f);
            }
        }
#pragma unroll
        for (int uu = 0; uu < U; uu++) {
            const int u = tid + 128 * (r0 + uu), i4 = u % (BN / 4), q = u / (BN / 4);
            const uint32_t d = dst + (4 * i4) * 128;
            const uint32_t x = (uint32_t)(4 * i4) & 7u; /* rows 4*i4 + ii: (x + ii) % 8 == x + ii */
            const float4 *vv = v[uu];
            asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(d + ((q ^ x) << 4)), "f"(vv[0].x),
                         "f"(vv[1].x), "f"(vv[2].x), "f"(vv[3].x)
                         : "memory");
            asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(d + 128 + ((q ^ (x + 1)) << 4)),
                         "f"(vv[0].y), "f"(vv[1].y), "f"(vv[2].y), "f"(vv[3].y)
                         : "memory");
            asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(d + 256 + ((q ^ (x + 2)) << 4)),
                         "f"(vv[0].z), "f"(vv[1].z), "f"(vv[2].z), "f"(vv[3].z)
                         : "memory");
            asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(d + 384 + ((q ^ (x + 3)) << 4)),
                         "f"(vv[0].w), "f"(vv[1].w), "f"(vv[2].w), "f"(vv[3].w)
                         : "memory");
        }
    }
}

/* y's element offset of tile row `row` (the output pixel m0 + row, or the tap box's pixel), or -1
 * where the tile has no pixel. */
static __device__ __forceinline__ int64_t wg_row_offset(const wg_args_t &a, bool tap, int row, int64_t m0, int n0,
                                                        int oh0, int ow0)
{
    int n, oh, ow;
    if (tap) {
        const int wi = row % a.bw, t = row / a.bw, hi = t % a.bh, ni = t / a.bh;
        n = n0 + ni, oh = oh0 + hi, ow = ow0 + wi;
        if (ni >= a.bni || n >= a.n || oh >= a.p || ow >= a.q)
            return -1;
    } else {
        const int64_t m = m0 + row;
        if (m >= a.m)
            return -1;
        ow = (int)(m % a.q);
        const int64_t t = m / a.q;
        oh = (int)(t % a.p);
        n = (int)(t / a.p);
    }
    return n * a.ys[0] + oh * a.ys[2] + ow * a.ys[3];
}
#endif

/* BT 0: B K-major by TMA (a packed KRSC filter); 1: B MN-major by TMA (the backward data's KRSC
 * filter itself, 16-bit types); 2: B K-major, written by the producer warpgroup from the float
 * KRSC filter (wg_fill_b: the tf32 backward data without its transpose launch) */
template <typename T, int BN, int TAPM, bool REGS, int BT>
static __device__ __forceinline__ void wg_body(const CUtensorMap *tmx, const CUtensorMap *tmw, const wg_args_t &a,
                                               unsigned tile)
{
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
    /* TAPM 0 / 1: the [M][C] or the tap boxes, fixed; 2: the class's own (a.tap, grouped kernel) */
    const bool TAP = TAPM == 2 ? a.tap != 0 : TAPM == 1;
    extern __shared__ __align__(1024) uint8_t wg_smem[];
    constexpr int KE = 128 / (int)sizeof(T); /* elements of a k-block: one 128-byte row */
    const uint32_t base = (wgx_smem_u32(wg_smem) + 1023u) & ~1023u;
    const uint32_t sA = base;
    const uint32_t sB = sA + WG_STAGES * WG_A_STAGE;
    const uint32_t bar_full = sB + WG_STAGES * BN * 128;
    const uint32_t bar_empty = bar_full + WG_STAGES * 8;
    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
    const int kt = (int)(tile % (unsigned)a.ktiles);
    const unsigned mt = tile / (unsigned)a.ktiles;
    const int nk0 = kt * BN;

    int64_t m0 = 0;
    int ow0 = 0, oh0 = 0, n0 = 0;
    if (TAP) {
        const unsigned t = mt / (unsigned)a.tiles_q;
        ow0 = (int)(mt % (unsigned)a.tiles_q) * a.bw;
        oh0 = (int)(t % (unsigned)a.tiles_p) * a.bh;
        n0 = (int)(t / (unsigned)a.tiles_p) * a.bni;
        /* rows past the box: zeros, written through the generic proxy and published to the
         * async proxy (wgmma reads shared memory through it) before the barrier below */
        for (uint32_t off = a.a_bytes + 16u * threadIdx.x; off < WG_A_STAGE; off += 16u * WG_THREADS)
#pragma unroll
            for (int st = 0; st < WG_STAGES; st++)
                asm volatile("st.shared.v4.u32 [%0], {%1, %1, %1, %1};\n" ::"r"(sA + st * WG_A_STAGE + off),
                             "r"(0)
                             : "memory");
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    } else {
        m0 = (int64_t)mt * 128;
    }

    if (threadIdx.x == 0) {
#pragma unroll
        for (int st = 0; st < WG_STAGES; st++) {
            /* the producer's arrive.expect_tx (BT 2: and every producer thread's B tile) */
            wgx_mbar_init(bar_full + 8 * st, BT == 2 ? 129 : 1);
            wgx_mbar_init(bar_empty + 8 * st, 256); /* every consumer thread */
        }
        /* the initialised barriers must be visible to the async proxy (TMA complete_tx) */
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)tmx) : "memory");
        asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)tmw) : "memory");
    }
    __syncthreads();

    if (wg == 0) {
        /* ---- producer: one thread walks (r, s, c-chunk), the order of w's reduction index (BT 2: the
         * whole warpgroup, which writes B) ---- */
        if (REGS)
            asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
        if (tid == 0 || BT == 2) {
            int r = 0, s = 0, cc = 0;
            for (int kb = 0; kb < a.kblocks; kb++) {
                const int st = kb % WG_STAGES;
                const uint32_t full = bar_full + 8 * st;
                /* round 0 waits on parity 1 of a fresh barrier, which counts as completed */
                wgx_mbar_wait(bar_empty + 8 * st, ((kb / WG_STAGES) & 1) ^ 1);
                const int tr = a.cross ? r : a.r - 1 - r, ts = a.cross ? s : a.s - 1 - s;
                if (tid == 0) {
                    wgx_mbar_arrive_expect_tx(full, a.tx_bytes);
                    if (TAP)
                        wgx_tma_4d(sA + st * WG_A_STAGE, tmx, full, cc * KE, ow0 * a.str_w + s - a.pad_w,
                                   oh0 * a.str_h + r - a.pad_h, n0);
                    else
                        wgx_tma_2d(sA + st * WG_A_STAGE, tmx, full, cc * KE, (int)m0);
                    if (BT == 1) {
                        /* BN / 64 boxes {64 c, 1, 1, 64 k} of w at (c, tap s, tap r, k) */
#pragma unroll
                        for (int g = 0; g < BN / 64; g++)
                            wgx_tma_4d(sB + st * BN * 128 + g * WG_BT_CHUNK, tmw, full, nk0 + 64 * g, ts, tr,
                                       cc * KE);
                    } else if (BT == 0) {
                        wgx_tma_2d(sB + st * BN * 128, tmw, full, ((tr * a.s + ts) * a.cchunks + cc) * KE, nk0);
                    }
                }
                if (BT == 2) {
                    /* every producer thread: its part of B, published to the async proxy (wgmma
                     * reads through it), then its arrival (a.tx_bytes counts A alone) */
                    wg_fill_b<BN>(sB + st * BN * 128, a, nk0, tr, ts, cc * KE, tid);
                    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
                    wgx_mbar_arrive(full);
                }
                if (++cc == a.cchunks) {
                    cc = 0;
                    if (++s == a.s) {
                        s = 0;
                        r++;
                    }
                }
            }
        }
        return;
    }

    /* ---- consumers: rows [64*cw, 64*cw + 64) of the tile, all BN columns ---- */
    if (REGS)
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
    const int cw = wg - 1;
    float acc[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; i++)
        acc[i] = 0.f;
    wgx_acc_fence(acc);
    for (int kb = 0; kb < a.kblocks; kb++) {
        const int st = kb % WG_STAGES;
        wgx_mbar_wait(bar_full + 8 * st, (kb / WG_STAGES) & 1);
        const uint64_t da = wgx_desc(sA + st * WG_A_STAGE + cw * 64 * 128, 1);
        /* MN-major B: LBO = one 64-column chunk, a k16 step = 16 rows = 2048 bytes */
        const uint64_t db = wgx_desc(sB + st * BN * 128, BT == 1 ? WG_BT_CHUNK >> 4 : 1);
        wgx_fence();
#pragma unroll
        for (int j = 0; j < 4; j++) /* 4 x 32 bytes (k16 of 16-bit, k8 of tf32) = the 128-byte rows */
            wg_mma<BT == 1>::template step<T>(acc, da + 2 * j, db + (BT == 1 ? (2048 >> 4) : 2) * j);
        wgx_commit();
        /* one batch stays in flight: the previous one has completed, its stage is free */
        wgx_wait<1>();
        if (kb >= 1)
            wgx_mbar_arrive(bar_empty + 8 * ((kb - 1) % WG_STAGES));
    }
    wgx_wait<0>();
    wgx_acc_fence(acc);

    /* ---- epilogue: the thread holds rows (lane/4, lane/4 + 8) of its warp's 16 and column pairs
     * 8j + 2*(lane%4) of every n8 block j: acc[4j + 2h + {0, 1}] belongs to row + 8h ---- */
    const int warp = tid / 32, lane = tid % 32;
    if (a.vec16 && a.plain) {
        /* Through shared memory: the pairs stored straight from the fragments write 8 rows x 16
         * bytes per warp instruction, half sectors, which held L2 at 85 % of its throughput with
         * DRAM at 32 % on a 1x1 64 -> 256 layer (ncu, H100). Each warpgroup writes its 64 x BN
         * tile into the stages (free once both consumer warpgroups are past their last wgmma:
         * named barrier 1 over their 256 threads), with each row's y offset (-1: no pixel), then
         * copies whole rows out in 16-byte vectors (its own named barrier 2 + cw between). */
        constexpr uint32_t PITCH = BN * sizeof(T) + 8 * sizeof(T); /* conflict-free pair stores */
        constexpr int CPR = BN * (int)sizeof(T) / 16;               /* 16-byte chunks per row */
        static_assert(2 * 64 * PITCH + 2 * 64 * 8 <= WG_STAGES * (WG_A_STAGE + BN * 128),
                      "the staged epilogue must fit in the stages");
        asm volatile("bar.sync 1, 256;\n" ::: "memory");
        uint8_t *const sm = wg_smem + (base - wgx_smem_u32(wg_smem));
        uint8_t *const tile = sm + (size_t)cw * 64 * PITCH;
        int64_t *const yoff = (int64_t *)(sm + 2 * 64 * PITCH) + cw * 64;
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int lr = warp * 16 + (lane >> 2) + 8 * h;
#pragma unroll
            for (int j = 0; j < BN / 8; j++)
                wg_st2f((T *)(tile + lr * PITCH) + j * 8 + (lane & 3) * 2, acc[4 * j + 2 * h],
                        acc[4 * j + 2 * h + 1]);
            if ((lane & 3) == 0)
                yoff[lr] = wg_row_offset(a, TAP, cw * 64 + lr, m0, n0, oh0, ow0);
        }
        if (cw == 0) /* immediate barrier ids: ptxas then reserves 4, not all 16 */
            asm volatile("bar.sync 2, 128;\n" ::: "memory");
        else
            asm volatile("bar.sync 3, 128;\n" ::: "memory");
        for (int i = tid; i < 64 * CPR; i += 128) {
            const int lr = i / CPR, ch = i % CPR, col = nk0 + ch * (16 / (int)sizeof(T));
            const int64_t off = yoff[lr];
            if (off >= 0 && col < a.k)
                *(uint4 *)((T *)a.y + off + col) = *(const uint4 *)(tile + lr * PITCH + ch * 16);
        }
        return;
    }
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int row = cw * 64 + warp * 16 + (lane >> 2) + 8 * h;
        const int64_t off = wg_row_offset(a, TAP, row, m0, n0, oh0, ow0);
        if (off < 0)
            continue;
        T *yr = (T *)a.y + off;
#pragma unroll
        for (int j = 0; j < BN / 8; j++) {
            const int col = nk0 + j * 8 + (lane & 3) * 2;
            if (col >= a.k) /* K is even: col < K means col + 1 < K */
                continue;
            const float f0 = acc[4 * j + 2 * h], f1 = acc[4 * j + 2 * h + 1];
            if (a.vec) {
                T *py = yr + col;
                if (a.plain) {
                    wg_st2f(py, f0, f1);
                } else {
                    double v0 = a.alpha * (double)f0, v1 = a.alpha * (double)f1;
                    if (a.beta != 0.0) {
                        double o0, o1;
                        wg_ld2(py, o0, o1);
                        v0 += a.beta * o0;
                        v1 += a.beta * o1;
                    }
                    wg_st2d(py, v0, v1);
                }
            } else {
                T *p0 = yr + col * a.ys[1], *p1 = p0 + a.ys[1];
                double v0 = a.alpha * (double)f0, v1 = a.alpha * (double)f1;
                if (a.beta != 0.0) {
                    v0 += a.beta * wg_ld(p0);
                    v1 += a.beta * wg_ld(p1);
                }
                wg_st(p0, v0);
                wg_st(p1, v1);
            }
        }
    }
#elif defined(__CUDA_ARCH__)
    /* no wgmma here; the host launches this only on compute capability 9.0, where the sm_90a
     * image is the one loaded: reaching this is a build error, made loud */
    (void)tmx, (void)tmw, (void)a, (void)tile;
    __trap();
#else
    (void)tmx, (void)tmw, (void)a, (void)tile;
#endif
}

template <typename T, int BN, bool TAP, bool REGS, int BT>
static __global__ void __launch_bounds__(WG_THREADS, 1)
    conv_fwd_wgmma(const __grid_constant__ CUtensorMap tmx, const __grid_constant__ CUtensorMap tmw,
                   const __grid_constant__ wg_args_t a)
{
    wg_body<T, BN, TAP ? 1 : 0, REGS, BT>(&tmx, &tmw, a, blockIdx.x);
}

/* The grouped backward data launch (the residue classes of a strided backward data, see the
 * backward data part below): class c owns tiles [start[c], start[c+1]) of the grid, with its own
 * maps and arguments (kblocks 0: a class without taps, whose epilogue blends alpha * 0). */
#define WG_GROUP_MAX 4
typedef struct {
    CUtensorMap tmx[WG_GROUP_MAX], tmw[WG_GROUP_MAX];
    wg_args_t a[WG_GROUP_MAX];
    unsigned start[WG_GROUP_MAX + 1];
    int ncls;
} wg_group_t;
static_assert(sizeof(wg_group_t) <= 4000, "the grouped kernel's parameters must fit 4 KiB");

/* BT 1 / 2: every class's B is a strided view of the KRSC filter, read MN-major by TMA (16-bit
 * types) or loaded K-major by the producers (FLOAT) */
template <typename T, int BN, bool REGS, int BT>
static __global__ void __launch_bounds__(WG_THREADS, 1) conv_dgrad_wgmma_grouped(const __grid_constant__ wg_group_t g)
{
    int c = 0;
    while (c + 1 < g.ncls && blockIdx.x >= g.start[c + 1])
        c++;
    wg_body<T, BN, 2, REGS, BT>(&g.tmx[c], &g.tmw[c], g.a[c], blockIdx.x - g.start[c]);
}

/* ---- host: gate, plan, tensor maps --------------------------------------------------------- */

extern "C" int fd_conv_fwd_tc_igemm_applicable(const fd_conv_problem_t *p, char *why, size_t why_size);
extern "C" cudnnStatus_t fd_conv_fwd_tc_igemm_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);

/* 1 unless environment variable `name` is "0". Each switch reads its variable once per process
 * (a function-local static: C++ initialises it once, thread-safely). */
static int wg_env_not0(const char *name)
{
    const char *e = getenv(name);
    return e == NULL || strcmp(e, "0") != 0;
}

/* FREEDNN_WGMMA_STRIDED=0 keeps strided forward problems off the row (they then run on the
 * mma.sync row, as before the strided boxes); read once per process. */
static int wg_strided_enabled(void)
{
    static const int on = wg_env_not0("FREEDNN_WGMMA_STRIDED");
    return on;
}

/* The switch for the backward filter rows too (one variable, one reading). */
extern "C" int fd_conv_wgmma_strided_on(void)
{
    return wg_strided_enabled();
}

/* FREEDNN_WGMMA_STAGED_EPILOGUE=0 keeps the pair stores straight from the fragments (the
 * epilogue before the staged one: A/B and bit checks); read once per process. */
static int wg_staged_epilogue_on(void)
{
    static const int on = wg_env_not0("FREEDNN_WGMMA_STAGED_EPILOGUE");
    return on;
}

/* FREEDNN_WGMMA=0 opts out */
static int wg_enabled(void)
{
    static const int on = wg_env_not0("FREEDNN_WGMMA");
    return on;
}

/* The launch geometry of a problem (a pure function of it: applicable and run agree). */
typedef struct {
    int tap;                     /* 4-d boxes per tap (else the [M][C] matrix) */
    int bn;                      /* 64, 128 or 256 */
    int bw, bh, bni, tiles_q, tiles_p;
    int esw, esh;                /* TMA element strides of the tap boxes along W and H */
    int64_t mtiles, ktiles;
} wg_plan_t;

/* Output-pixel box of a 4-d tile: bw x bh (x bni whole images) <= 128 pixels, the fewest tiles,
 * ties to the widest row; the traversed extents bw*esw <= W, bh*esh <= H and bni <= N keep the
 * box inside x's extents (none found: bw stays 0 and the row declines). */
static void wg_tap_tile(int64_t n, int64_t p, int64_t q, int64_t h, int64_t w, wg_plan_t *pl)
{
    int64_t best = -1;
    for (int64_t tw = 1; tw <= q && tw * pl->esw <= w && tw <= 128; tw++)
        for (int64_t th = 1; th <= p && th * pl->esh <= h && tw * th <= 128; th++) {
            int64_t maxn = (tw == q && th == p) ? 128 / (tw * th) : 1;
            if (maxn > n)
                maxn = n;
            for (int64_t tn = 1; tn <= maxn; tn++) {
                const int64_t tiles = ((n + tn - 1) / tn) * ((p + th - 1) / th) * ((q + tw - 1) / tw);
                if (best < 0 || tiles < best || (tiles == best && tw > pl->bw)) {
                    best = tiles;
                    pl->bw = (int)tw, pl->bh = (int)th, pl->bni = (int)tn;
                }
            }
        }
}

static void wg_plan(const fd_conv_problem_t *p, wg_plan_t *pl)
{
    memset(pl, 0, sizeof *pl);
    const int64_t h = p->in[1], w = p->in[2], m = p->n * p->out[1] * p->out[2];
    pl->bn = p->k >= 256 ? 256 : p->k <= 64 ? 64 : 128;
    pl->ktiles = (p->k + pl->bn - 1) / pl->bn;
    /* x as [M][C]: a 1x1 filter without padding over pixel strides that merge into one, x and y
     * of one pixel grid (always so for a plain stride-1 problem; a residue sub-problem of the
     * strided backward data, conv_tc_dgrad.cu, may pair other extents: those take tap boxes) */
    const int merged = (h == 1 || p->xs[3] == w * p->xs[4]) && (p->n == 1 || p->xs[0] == h * w * p->xs[4]);
    const int mat = p->flt[1] == 1 && p->flt[2] == 1 && p->pad[1] == 0 && p->pad[2] == 0 && merged &&
                    p->out[1] == h && p->out[2] == w && p->stride[1] == 1 && p->stride[2] == 1 &&
                    m <= INT32_MAX - 128 && p->xs[4] > 0;
    pl->tap = !mat;
    /* a stride steps the box (an output extent of 1 takes one element: unit step) */
    pl->esw = p->out[2] > 1 ? (int)p->stride[2] : 1;
    pl->esh = p->out[1] > 1 ? (int)p->stride[1] : 1;
    if (pl->tap) {
        wg_tap_tile(p->n, p->out[1], p->out[2], h, w, pl);
        if (pl->bw == 0)
            return; /* no box fits inside x (applicable declines) */
        pl->tiles_q = (int)((p->out[2] + pl->bw - 1) / pl->bw);
        pl->tiles_p = (int)((p->out[1] + pl->bh - 1) / pl->bh);
        pl->mtiles = (int64_t)pl->tiles_q * pl->tiles_p * ((p->n + pl->bni - 1) / pl->bni);
    } else {
        pl->mtiles = (m + 127) / 128;
    }
}

/* FLOAT data may run as TF32: conv_tc.cu's rule, shared by every tf32 row (so the mma.sync and
 * wgmma TF32 rows come and go together). */
extern "C" int fd_conv_tf32_allowed(const fd_conv_problem_t *p, char *why, size_t why_size);

/* The data types a row takes: tf32 = 0 HALF or BFLOAT16 everywhere, tf32 = 1 FLOAT everywhere
 * with FLOAT compute under a math type that allows TF32 (conv_tc.cu's tc_chunk rules). */
static int wg_types_ok(const fd_conv_problem_t *p, int tf32, char *why, size_t why_size)
{
    const cudnnDataType_t dt = p->xdt;
    if (!tf32) {
        if ((dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16) || p->wdt != dt || p->ydt != dt) {
            snprintf(why, why_size, "x/w/y are %s/%s/%s; the wgmma f16 row takes HALF or BFLOAT16 for all three "
                     "(FLOAT: the tf32 row)", fd_dtype_name(p->xdt), fd_dtype_name(p->wdt), fd_dtype_name(p->ydt));
            return 0;
        }
        return 1;
    }
    if (dt != CUDNN_DATA_FLOAT || p->wdt != dt || p->ydt != dt) {
        snprintf(why, why_size, "x/w/y are %s/%s/%s; the wgmma tf32 row takes FLOAT for all three "
                 "(HALF, BFLOAT16: the f16 row)", fd_dtype_name(p->xdt), fd_dtype_name(p->wdt),
                 fd_dtype_name(p->ydt));
        return 0;
    }
    return fd_conv_tf32_allowed(p, why, why_size);
}

/* What both forward rows check; tf32 picks the row (the data types and the k-block width). */
static int wg_fwd_applicable(const fd_conv_problem_t *p, int tf32, char *why, size_t why_size)
{
    if (!wg_enabled()) {
        snprintf(why, why_size, "the sm_90a wgmma row is turned off (FREEDNN_WGMMA=0)");
        return 0;
    }
#ifndef FD_WGMMA_SM90A
    snprintf(why, why_size, "built without sm_90a code (CUDA 12.0+ and sm_90 in CMAKE_CUDA_ARCHITECTURES "
             "are needed; cmake/cuda.cmake)");
    return 0;
#endif
    if (!wg_types_ok(p, tf32, why, why_size))
        return 0;
    if (p->nsp != 2) {
        snprintf(why, why_size, "%d spatial dims; the wgmma row takes 2", p->nsp);
        return 0;
    }
    if (!wg_strided_enabled() && (p->stride[1] != 1 || p->stride[2] != 1)) {
        snprintf(why, why_size, "stride %lldx%lld; the wgmma row's strided boxes are turned off "
                 "(FREEDNN_WGMMA_STRIDED=0)", (long long)p->stride[1], (long long)p->stride[2]);
        return 0;
    }
    if (p->stride[1] > 8 || p->stride[2] > 8 || p->dil[1] != 1 || p->dil[2] != 1) {
        snprintf(why, why_size, "stride %lldx%lld, dilation %lldx%lld; the wgmma row takes strides up to 8 "
                 "(TMA's element strides) and dilation 1", (long long)p->stride[1], (long long)p->stride[2],
                 (long long)p->dil[1], (long long)p->dil[2]);
        return 0;
    }
    /* a k-block is one 128-byte row of one tap: 64 16-bit channels or 32 floats; K in 16-byte
     * chunks (8 or 4 elements; the epilogue's column pairs need K even) */
    const int ke = tf32 ? 32 : 64, kq = tf32 ? 4 : 8;
    if (p->groups != 1 || p->c % ke != 0 || p->k % kq != 0) {
        snprintf(why, why_size, "groups %lld, C = %lld, K = %lld; the wgmma %s row needs groups 1, C %% %d == 0 "
                 "(a 128-byte k-block never straddles a tap) and K %% %d == 0", (long long)p->groups,
                 (long long)p->c, (long long)p->k, tf32 ? "tf32" : "f16", ke, kq);
        return 0;
    }
    /* NHWC x with 16-byte strides, packed KRSC w, the index limits: what the mma.sync row takes,
     * which also makes that row a legal fallback for misaligned pointers */
    if (!fd_conv_fwd_tc_igemm_applicable(p, why, why_size))
        return 0;
    for (int d = 0; d < 5; d++)
        if (p->xs[d] < 0 || p->xs[d] >= ((int64_t)1 << 40) / (int64_t)fd_dtype_size(p->xdt)) {
            snprintf(why, why_size, "x stride %lld of dim %d is beyond TMA's 2^40-byte limit", (long long)p->xs[d], d);
            return 0;
        }
    wg_plan_t pl;
    wg_plan(p, &pl);
    if (pl.tap && pl.bw == 0) {
        snprintf(why, why_size, "x of %lldx%lld pixels is narrower than one step of stride %lldx%lld; "
                 "the wgmma row's boxes stay inside x", (long long)p->in[1], (long long)p->in[2],
                 (long long)p->stride[1], (long long)p->stride[2]);
        return 0;
    }
    if (pl.mtiles * pl.ktiles > INT32_MAX) {
        snprintf(why, why_size, "%lld x %lld tiles exceed the grid", (long long)pl.mtiles, (long long)pl.ktiles);
        return 0;
    }
    return wgx_device_sm90(why, why_size);
}

extern "C" int fd_conv_fwd_implicit_gemm_f16_128xN__sm90_applicable(const fd_conv_problem_t *p, char *why,
                                                                    size_t why_size)
{
    return wg_fwd_applicable(p, 0, why, why_size);
}

extern "C" int fd_conv_fwd_implicit_gemm_tf32_128xN__sm90_applicable(const fd_conv_problem_t *p, char *why,
                                                                     size_t why_size)
{
    return wg_fwd_applicable(p, 1, why, why_size);
}

extern "C" size_t fd_conv_fwd_implicit_gemm_f16_128xN__sm90_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}

extern "C" size_t fd_conv_fwd_implicit_gemm_tf32_128xN__sm90_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}

/* One 128B-swizzled tiled map of the row's data type (element strides estr, NULL: unit); 0 when
 * the driver refuses it. */
static int wg_map(CUtensorMap *map, cudnnDataType_t dt, int rank, const void *ptr, const cuuint64_t *dims,
                  const cuuint64_t *strides, const cuuint32_t *box, const cuuint32_t *estr, int *res)
{
    static const cuuint32_t one[5] = {1, 1, 1, 1, 1};
    return wgx_map_strided(map,
                           dt == CUDNN_DATA_HALF    ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                           : dt == CUDNN_DATA_FLOAT ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                                    : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
                           rank, ptr, dims, strides, box, estr != NULL ? estr : one, res);
}

/* Sets the dynamic shared-memory limit of one kernel once per device (attributes are per
 * device; repeating the call is harmless, so racing first calls are too). */
template <typename T, int BN, int G, int BT> /* G 0 / 1: conv_fwd_wgmma without / with TAP; 2: the grouped */
static cudaError_t wg_prepare(int dev)
{
    static int done[WG_MAX_DEV];
    const int cached = dev >= 0 && dev < WG_MAX_DEV;
    if (cached && __atomic_load_n(&done[dev], __ATOMIC_ACQUIRE))
        return cudaSuccess;
    const void *fn = G == 2 ? (const void *)conv_dgrad_wgmma_grouped<T, BN, BN == 256, BT>
                            : (const void *)conv_fwd_wgmma<T, BN, G == 1, BN == 256, BT>;
    const cudaError_t e =
        cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)wg_smem_bytes(BN));
    if (e == cudaSuccess && cached)
        __atomic_store_n(&done[dev], 1, __ATOMIC_RELEASE);
    return e;
}

template <typename T, int BN, bool TAP, int BT>
static cudnnStatus_t wg_launch(const fd_conv_problem_t *p, const fd_conv_args_t *a, const CUtensorMap &tmx,
                               const CUtensorMap &tmw, const wg_args_t &ka, unsigned blocks)
{
    int dev = -1;
    FD_CUDA_CHECK(cudaGetDevice(&dev), "cudaGetDevice for the wgmma row");
    const cudaError_t prep = wg_prepare<T, BN, TAP ? 1 : 0, BT>(dev);
    FD_CUDA_CHECK(prep, "cudaFuncSetAttribute(%zu bytes of dynamic shared memory) "
                  "for conv_fwd_wgmma BN %d", wg_smem_bytes(BN), BN);
    cudaStream_t s = a->handle->stream;
    static void *fc[FD_CUDA_FCACHE];
    const cudaError_t le = fd_cuda_launch_on(dev, conv_fwd_wgmma<T, BN, TAP, BN == 256, BT>, fc, dim3(blocks),
                                            dim3(WG_THREADS), (unsigned)wg_smem_bytes(BN), s, tmx, tmw, ka);
    FD_CUDA_LAUNCHED_AS(le, "conv_fwd_wgmma on %s data (BN %d, %s, B %s, %u blocks, stream %p)",
                        fd_dtype_name(p->xdt), BN, TAP ? "4-d tap boxes" : "[M][C] boxes",
                        BT == 1   ? "the KRSC filter MN-major"
                        : BT == 2 ? "K-major from the KRSC filter by the producers"
                                  : "K-major",
                        blocks, (void *)s);
    return CUDNN_STATUS_SUCCESS;
}

template <typename T, int BT = 0>
static cudnnStatus_t wg_dispatch(const fd_conv_problem_t *p, const fd_conv_args_t *a, const wg_plan_t &pl,
                                 const CUtensorMap &tmx, const CUtensorMap &tmw, const wg_args_t &ka)
{
    const unsigned blocks = (unsigned)(pl.mtiles * pl.ktiles);
    if (pl.tap)
        return pl.bn == 256 ? wg_launch<T, 256, true, BT>(p, a, tmx, tmw, ka, blocks)
               : pl.bn == 128 ? wg_launch<T, 128, true, BT>(p, a, tmx, tmw, ka, blocks)
                              : wg_launch<T, 64, true, BT>(p, a, tmx, tmw, ka, blocks);
    return pl.bn == 256 ? wg_launch<T, 256, false, BT>(p, a, tmx, tmw, ka, blocks)
           : pl.bn == 128 ? wg_launch<T, 128, false, BT>(p, a, tmx, tmw, ka, blocks)
                          : wg_launch<T, 64, false, BT>(p, a, tmx, tmw, ka, blocks);
}

/* The plan, the two maps and the kernel arguments of forward problem p on a's x, w, y, alpha
 * and beta (x and w 16-byte aligned). */
static cudnnStatus_t wg_fwd_prepare(const fd_conv_problem_t *p, const fd_conv_args_t *a, wg_plan_t &pl,
                                    CUtensorMap &tmx, CUtensorMap &tmw, wg_args_t &ka)
{
    FD_CHECK(wgx_encode() != NULL, CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER,
             "the driver has no cuTensorMapEncodeTiled (the wgmma row needs a CUDA 12 driver)");
    wg_plan(p, &pl);
    const int64_t c = p->c, h = p->in[1], w = p->in[2], rsc = p->flt[1] * p->flt[2] * c;
    const unsigned es = (unsigned)fd_dtype_size(p->xdt), ke = 128u / es;
    int res = 0;
    if (pl.tap) {
        const cuuint64_t dims[4] = {(cuuint64_t)c, (cuuint64_t)w, (cuuint64_t)h, (cuuint64_t)p->n};
        /* TMA takes a stride (a multiple of 16 bytes) for every dim: one of a single element,
         * never stepped, gets the dense stride over the dims inside it */
        const int64_t sw = w > 1 ? p->xs[4] : c, sh = h > 1 ? p->xs[3] : w * sw,
                      sn = p->n > 1 ? p->xs[0] : h * sh;
        const cuuint64_t str[3] = {(cuuint64_t)sw * es, (cuuint64_t)sh * es, (cuuint64_t)sn * es};
        /* a box of bw pixels at element stride esw traverses bw * esw of them */
        const cuuint32_t box[4] = {ke, (cuuint32_t)(pl.bw * pl.esw), (cuuint32_t)(pl.bh * pl.esh),
                                   (cuuint32_t)pl.bni};
        const cuuint32_t estr[4] = {1, (cuuint32_t)pl.esw, (cuuint32_t)pl.esh, 1};
        FD_CHECK(wg_map(&tmx, p->xdt, 4, a->x, dims, str, box, estr, &res), CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER,
                 "cuTensorMapEncodeTiled(x: %lldx%lldx%lldx%lld, box %ux%ux%ux%d, element strides 1x%dx%dx1) "
                 "returned %d", (long long)c, (long long)w, (long long)h, (long long)p->n, ke, box[1], box[2],
                 pl.bni, pl.esw, pl.esh, res);
    } else {
        const int64_t m = p->n * h * w;
        const cuuint64_t dims[2] = {(cuuint64_t)c, (cuuint64_t)m};
        const cuuint64_t str[1] = {(cuuint64_t)(m > 1 ? p->xs[4] : c) * es};
        const cuuint32_t box[2] = {ke, 128};
        FD_CHECK(wg_map(&tmx, p->xdt, 2, a->x, dims, str, box, NULL, &res), CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER,
                 "cuTensorMapEncodeTiled(x: %lldx%lld, box %ux128) returned %d", (long long)c, (long long)m, ke, res);
    }
    {
        const cuuint64_t dims[2] = {(cuuint64_t)rsc, (cuuint64_t)p->k};
        const cuuint64_t str[1] = {(cuuint64_t)rsc * es};
        const cuuint32_t box[2] = {ke, (cuuint32_t)pl.bn};
        FD_CHECK(wg_map(&tmw, p->xdt, 2, a->w, dims, str, box, NULL, &res), CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER,
                 "cuTensorMapEncodeTiled(w: %lldx%lld, box %ux%d) returned %d", (long long)rsc, (long long)p->k,
                 ke, pl.bn, res);
    }
    memset(&ka, 0, sizeof ka);
    ka.y = a->out;
    ka.ys[0] = p->ys[0], ka.ys[1] = p->ys[1], ka.ys[2] = p->ys[3], ka.ys[3] = p->ys[4];
    ka.m = p->n * p->out[1] * p->out[2];
    ka.k = (int)p->k;
    ka.ktiles = (int)pl.ktiles;
    ka.cchunks = (int)(c / ke);
    ka.kblocks = (int)(rsc / ke);
    ka.r = (int)p->flt[1], ka.s = (int)p->flt[2];
    ka.pad_h = (int)p->pad[1], ka.pad_w = (int)p->pad[2];
    ka.str_h = (int)p->stride[1], ka.str_w = (int)p->stride[2];
    ka.cross = p->cross_correlation;
    ka.n = (int)p->n, ka.p = (int)p->out[1], ka.q = (int)p->out[2];
    ka.bw = pl.bw, ka.bh = pl.bh, ka.bni = pl.bni;
    ka.tiles_q = pl.tiles_q, ka.tiles_p = pl.tiles_p;
    ka.a_bytes = pl.tap ? 128u * (uint32_t)(pl.bw * pl.bh * pl.bni) : (uint32_t)WG_A_STAGE;
    ka.tx_bytes = ka.a_bytes + 128u * (uint32_t)pl.bn;
    /* pair stores (half2, bfloat162, float2): channels contiguous, every used stride even, y
     * aligned to the pair (4 or 8 bytes) */
    int vec = p->ys[1] == 1 && ((uintptr_t)a->out % (2u * es)) == 0;
    const int64_t ext[4] = {p->n, p->k, p->out[1], p->out[2]};
    for (int d = 0; d < 4; d++)
        if (d != 1 && ext[d] > 1 && ka.ys[d] % 2 != 0)
            vec = 0;
    ka.vec = vec;
    /* 16-byte row copies of the staged epilogue: every used stride and K whole vectors */
    const int64_t v16 = 16 / (int64_t)es;
    int vec16 = vec && (uintptr_t)a->out % 16 == 0 && p->k % v16 == 0;
    for (int d = 0; d < 4; d++)
        if (d != 1 && ext[d] > 1 && ka.ys[d] % v16 != 0)
            vec16 = 0;
    ka.vec16 = vec16 && wg_staged_epilogue_on();
    ka.alpha = a->alpha, ka.beta = a->beta;
    ka.plain = a->alpha == 1.0 && a->beta == 0.0;
    ka.tap = pl.tap;
    return CUDNN_STATUS_SUCCESS;
}

/* Both forward rows: the element type (p->xdt) picks the kernel; ke elements make a k-block. */
/* What a plan keeps for the forward rows (fd_conv_args_t.state, core/conv_plan.c): the launch
 * geometry, the two tensor maps and the kernel arguments of the call its key describes; a call
 * with the same problem, pointers and scales launches with them as they are. The MN-major
 * backward data adds its filter map. */
typedef struct {
    fd_conv_state_key_t key;
    wg_plan_t pl;
    wg_args_t ka;
    CUtensorMap tmx, tmw, tmb;
} wg_state_t;
static_assert(sizeof(wg_state_t) <= FD_CONV_PLAN_STATE, "the forward rows' plan state");
static const char wg_fwd_tag = 0, wg_tnsp_tag = 0, wg_tf32_tag = 0;

static cudnnStatus_t wg_fwd_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    if ((((uintptr_t)a->x | (uintptr_t)a->w) % 16) != 0)
        return fd_conv_fwd_tc_igemm_run(p, a); /* TMA reads from 16-byte aligned addresses only */
    wg_state_t local, *st = a->state != NULL ? (wg_state_t *)a->state : &local;
    if (st == &local || !fd_conv_state_hit(&st->key, &wg_fwd_tag, p, a)) {
        st->key.tag = NULL;
        FD_TRY(wg_fwd_prepare(p, a, st->pl, st->tmx, st->tmw, st->ka));
        fd_conv_state_set(&st->key, &wg_fwd_tag, p, a);
    }
    if (p->xdt == CUDNN_DATA_HALF)
        return wg_dispatch<__half>(p, a, st->pl, st->tmx, st->tmw, st->ka);
    if (p->xdt == CUDNN_DATA_FLOAT)
        return wg_dispatch<float>(p, a, st->pl, st->tmx, st->tmw, st->ka);
    return wg_dispatch<__nv_bfloat16>(p, a, st->pl, st->tmx, st->tmw, st->ka);
}

extern "C" cudnnStatus_t fd_conv_fwd_implicit_gemm_f16_128xN__sm90_run(const fd_conv_problem_t *p,
                                                                      const fd_conv_args_t *a)
{
    return wg_fwd_run(p, a);
}

extern "C" cudnnStatus_t fd_conv_fwd_implicit_gemm_tf32_128xN__sm90_run(const fd_conv_problem_t *p,
                                                                       const fd_conv_args_t *a)
{
    return wg_fwd_run(p, a);
}

/* ---- backward data: the forward kernel on dy and a transposed filter ------------------------ */
/*
 * Stride-1 backward data is a forward convolution: dx = conv(dy, w') with w'[c][r][s][k] =
 * w[k][c][r][s] (K and C swapped, the taps left where they are), padding R-1-pad per dim and
 * the mode flipped. Cross-correlation's dx[h] sums dy[h + pad - r] w[r]; a forward pass over dy
 * with padding R-1-pad reads dy[h - (R-1-pad) + r'], the same element for r' = R-1-r, which is
 * CUDNN_CONVOLUTION's flipped tap of w'. The transposed filter is written into the workspace by
 * one small kernel on the handle's stream (C*R*S*K elements, packed KRSC as the forward row
 * needs), so the row serves ALGO_1 only (ALGO_0 promises no workspace).
 * GEMM (the forward row's, on the swapped problem): M = N*H*W (dx pixels), N = C, reduction
 * R*S*K; so it takes K % 64 == 0 and C % 8 == 0 (tf32 row: K % 32 == 0 and C % 4 == 0, the
 * transposed filter in float). Alpha/beta: the forward epilogue's blend into dx is backward
 * data's. On wherever the forward rows are (FREEDNN_WGMMA=0 turns all off); FREEDNN_WGMMA_DGRAD=0
 * turns both backward data rows off alone. The f16 row ran clean on the H200 (GPU tier of
 * 2026-11-30 run 5: 22 backward data cases against ref, memcheck/racecheck/initcheck).
 */
static int wg_dgrad_enabled(void)
{
    static const int on = wg_env_not0("FREEDNN_WGMMA_DGRAD");
    return on;
}

/* The forward problem whose y is p's dx; 0 with a reason when p is not of that form. */
static int wg_dgrad_problem(const fd_conv_problem_t *p, fd_conv_problem_t *q, char *why, size_t why_size)
{
    if (p->nsp != 2 || p->groups != 1) {
        snprintf(why, why_size, "%d spatial dims, %lld groups; the wgmma backward data row takes 2-d, 1 group", p->nsp,
                 (long long)p->groups);
        return 0;
    }
    for (int d = 1; d < FD_CONV_SPATIAL_MAX; d++)
        if (p->stride[d] != 1 || p->dil[d] != 1 || p->pad[d] > p->flt[d] - 1) {
            snprintf(why, why_size, "dim %d: stride %lld, dilation %lld, pad %lld of a %lld-tap filter; the wgmma "
                     "backward data row takes stride 1, dilation 1 and pad <= taps - 1 (strided: ALGO_1's split)",
                     d, (long long)p->stride[d], (long long)p->dil[d], (long long)p->pad[d], (long long)p->flt[d]);
            return 0;
        }
    *q = *p;
    q->dir = FD_CONV_FWD;
    q->c = p->k, q->k = p->c;
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++) {
        q->in[d] = p->out[d], q->out[d] = p->in[d];
        q->pad[d] = p->flt[d] - 1 - p->pad[d];
    }
    q->cross_correlation = !p->cross_correlation;
    for (int d = 0; d < 2 + FD_CONV_SPATIAL_MAX; d++)
        q->xs[d] = p->ys[d], q->ys[d] = p->xs[d];
    const int64_t taps = p->flt[1] * p->flt[2];
    q->ws[0] = taps * p->k, q->ws[1] = 1;
    q->ws[2] = taps * p->k, q->ws[3] = p->flt[2] * p->k, q->ws[4] = p->k;
    q->wformat = CUDNN_TENSOR_NHWC;
    return 1;
}

/* w'[c][r][s][k] = w[k][c][r][s], read through the caller's filter strides, written packed. */
template <typename T>
__global__ void wg_dgrad_filter(const T *__restrict__ w, T *__restrict__ wt, int k, int r, int s, int64_t total,
                                int64_t ws0, int64_t ws1, int64_t ws3, int64_t ws4)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t kk = i % k;
        int64_t t = i / k;
        const int64_t ss = t % s;
        t /= s;
        const int64_t rr = t % r, cc = t / r;
        wt[i] = w[kk * ws0 + cc * ws1 + rr * ws3 + ss * ws4];
    }
}

static int wg_dgrad_applicable(const fd_conv_problem_t *p, int tf32, char *why, size_t why_size)
{
    if (!wg_dgrad_enabled()) {
        snprintf(why, why_size, "the sm_90a wgmma backward data rows are turned off (FREEDNN_WGMMA_DGRAD=0)");
        return 0;
    }
    fd_conv_problem_t q;
    if (!wg_dgrad_problem(p, &q, why, why_size))
        return 0;
    return wg_fwd_applicable(&q, tf32, why, why_size);
}

extern "C" int fd_conv_bwd_data_implicit_gemm_f16_128xN__sm90_applicable(const fd_conv_problem_t *p, char *why,
                                                                         size_t why_size)
{
    return wg_dgrad_applicable(p, 0, why, why_size);
}

extern "C" int fd_conv_bwd_data_implicit_gemm_tf32_128xN__sm90_applicable(const fd_conv_problem_t *p, char *why,
                                                                          size_t why_size)
{
    return wg_dgrad_applicable(p, 1, why, why_size);
}

/* The transposed filter, in the data type (16-bit or float). */
static size_t wg_dgrad_workspace(const fd_conv_problem_t *p)
{
    return (size_t)(p->k * p->c * p->flt[1] * p->flt[2]) * fd_dtype_size(p->xdt);
}

extern "C" size_t fd_conv_bwd_data_implicit_gemm_f16_128xN__sm90_workspace(const fd_conv_problem_t *p)
{
    return wg_dgrad_workspace(p);
}

extern "C" size_t fd_conv_bwd_data_implicit_gemm_tf32_128xN__sm90_workspace(const fd_conv_problem_t *p)
{
    return wg_dgrad_workspace(p);
}

template <typename T>
static cudaError_t wg_dgrad_filter_launch(const fd_conv_problem_t *p, const fd_conv_args_t *a, int64_t total,
                                          unsigned blocks, cudaStream_t s)
{
    static void *fc[FD_CUDA_FCACHE];
    return fd_cuda_launch_k(wg_dgrad_filter<T>, fc, dim3(blocks), dim3(256), 0, s, (const T *)a->w,
                            (T *)a->workspace, (int)p->k, (int)p->flt[1], (int)p->flt[2], total, p->ws[0], p->ws[1],
                            p->ws[3], p->ws[4]);
}

/*
 * Without the transpose (16-bit types): the GEMM's B[c][(r, s, k)] = w[k][r][s][c] is, for one
 * k-block (a tap, 64 k), a [64 k][BN c] tile with c contiguous: MN-major, which wgmma reads with
 * imm-trans-b = 1 (16-bit types only). TMA lands it from the KRSC filter itself as BN / 64 boxes
 * {64 c, 1, 1, 64 k} of a 4-d map {C, S, R, K} (SWIZZLE_128B: 64 rows of 128 bytes per 64-column
 * chunk, the layout the backward filter rows read MN-major: LBO 8 KiB, SBO 1 KiB, a k16 step
 * +2048 bytes). The same products in the same order as the transposed filter's K-major tile:
 * one launch instead of two. Taken for HALF / BFLOAT16 with the filter's channels contiguous
 * (any other strides multiples of 16 bytes), w and dy 16-byte aligned;
 * FREEDNN_WGMMA_DGRAD_TNSP=0 (read once) keeps the transpose launch. The workspace the row asks
 * for is unchanged (a function of the problem), unused on this path.
 */
static int wg_tnsp_enabled(void)
{
    static const int on = wg_env_not0("FREEDNN_WGMMA_DGRAD_TNSP");
    return on;
}

/* The 4-d map {C, S, R, K} of the filter at w with p's strides (the KRSC filter, or a strided
 * view of it: the grouped strided launch below) for the MN-major B, dy at dy; 0 when the map
 * cannot take them (not 16-bit, channels not contiguous, misaligned pointers or strides). */
static int wg_krsc_mn_map(const fd_conv_problem_t *p, const void *w, const void *dy, CUtensorMap *map)
{
    if ((p->xdt != CUDNN_DATA_HALF && p->xdt != CUDNN_DATA_BFLOAT16) || p->ws[1] != 1 ||
        (((uintptr_t)w | (uintptr_t)dy) % 16) != 0)
        return 0;
    const int64_t es = 2, c = p->c, r = p->flt[1], s = p->flt[2], k = p->k;
    /* a dim of one element, never stepped, gets the dense stride over the dims inside it */
    const int64_t ss = s > 1 ? p->ws[4] : c, sr = r > 1 ? p->ws[3] : s * ss, sk = k > 1 ? p->ws[0] : r * sr;
    const int64_t st[3] = {ss * es, sr * es, sk * es};
    for (int d = 0; d < 3; d++)
        if (st[d] <= 0 || st[d] % 16 != 0 || st[d] >= ((int64_t)1 << 40))
            return 0;
    const cuuint64_t dims[4] = {(cuuint64_t)c, (cuuint64_t)s, (cuuint64_t)r, (cuuint64_t)k};
    const cuuint64_t str[3] = {(cuuint64_t)st[0], (cuuint64_t)st[1], (cuuint64_t)st[2]};
    const cuuint32_t box[4] = {64, 1, 1, 64};
    int res = 0;
    return wgx_encode() != NULL && wg_map(map, p->xdt, 4, w, dims, str, box, NULL, &res);
}

/* The 4-d map of p's KRSC filter for the MN-major B; 0 when this path does not take p. */
static int wg_dgrad_tnsp_map(const fd_conv_problem_t *p, const fd_conv_args_t *a, CUtensorMap *map)
{
    return wg_tnsp_enabled() && wg_krsc_mn_map(p, a->w, a->y, map);
}

/*
 * Without the transpose (FLOAT as TF32): wgmma reads TF32 B K-major only, so the producer
 * warpgroup writes each stage's B tile itself (wg_fill_b, BT 2): for k-block (tap, 32 k) and
 * columns c, B[c][k] = w[k][tap][c], read with 16-byte loads along c from the KRSC filter and
 * stored transposed into the 128B-swizzled K-major layout TMA would have landed from the
 * transposed filter; its stage's full barrier counts those 128 threads' arrivals besides the A
 * box's bytes. The same tile, the same products in the same order: the transpose path's bits,
 * one launch. Taken for FLOAT with the filter's channels contiguous, its other strides multiples
 * of 4 elements, w and dy 16-byte aligned, on small problems (below); otherwise, and under
 * FREEDNN_WGMMA_DGRAD_TF32_1L=0 (read once), the transpose launch (and the strided FLOAT grouped
 * launch's gather).
 */
/*
 * Only for small problems, by default: the producers' 16-byte loads keep fewer bytes in flight
 * than TMA, so on the H200 (2026-12-01, bench/gpu_conv_ab.sh, ResNet-50 N = 32, docs/perf/
 * gpu-host-2026-12-01.md) the GEMM ran at 0.46-0.92x the transpose path's speed from 3.3 GFLOP
 * up, and 1.2x at 0.8 GFLOP, where the transpose launch (a launch floor of host time and ~3 us on
 * the GPU) is what costs. So: FREEDNN_WGMMA_DGRAD_TF32_1L unset, the one launch up to 2^30 flop
 * (2 N K C R S P Q of the whole problem); "0" never; "1" always (the tests' setting).
 */
static int wg_tf32_1l_takes(const fd_conv_problem_t *p)
{
    static const int mode = [] {
        const char *e = getenv("FREEDNN_WGMMA_DGRAD_TF32_1L");
        return e == NULL ? 2 : strcmp(e, "0") == 0 ? 0 : strcmp(e, "1") == 0 ? 1 : 2;
    }();
    if (mode != 2)
        return mode;
    double flop = 2.0 * (double)p->n * (double)p->k * (double)(p->c / p->groups);
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++)
        flop *= (double)p->out[d] * (double)p->flt[d];
    return flop <= 1073741824.0;
}

/* 1 when BT 2 can read p's float filter at w (strides p->ws: the filter, or a view of it) with
 * 16-byte loads. */
static int wg_b_ok(const fd_conv_problem_t *p, const void *w)
{
    return p->xdt == CUDNN_DATA_FLOAT && p->ws[1] == 1 && (uintptr_t)w % 16 == 0 && p->c % 4 == 0 &&
           p->ws[0] % 4 == 0 && p->ws[3] % 4 == 0 && p->ws[4] % 4 == 0;
}

/* wg_b_ok, and then ka's B source set to w. */
static int wg_b_source(const fd_conv_problem_t *p, const void *w, wg_args_t *ka)
{
    if (!wg_b_ok(p, w))
        return 0;
    ka->wb = w;
    ka->wbs[0] = p->ws[0], ka->wbs[1] = p->ws[3], ka->wbs[2] = p->ws[4];
    ka->tx_bytes = ka->a_bytes; /* B arrives by the producers' stores, not by TMA */
    return 1;
}

static cudnnStatus_t wg_dgrad_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    fd_conv_problem_t q;
    char why[256];
    FD_CHECK(wg_dgrad_problem(p, &q, why, sizeof why), CUDNN_STATUS_INTERNAL_ERROR, "%s", why);
    const int64_t total = p->k * p->c * p->flt[1] * p->flt[2];
    const size_t need = wg_dgrad_workspace(p);
    FD_CHECK(a->workspace != NULL && a->workspace_size >= need, CUDNN_STATUS_BAD_PARAM,
             "the wgmma backward data row needs %zu bytes of workspace, got %zu", need, a->workspace_size);
    wg_state_t local, *st = a->state != NULL ? (wg_state_t *)a->state : &local;
    fd_conv_args_t b = *a;
    b.x = a->y, b.y = NULL; /* b.w: the K-major map made below is replaced by tmb */
    b.workspace = NULL, b.workspace_size = 0, b.state = NULL;
    int tnsp = st != &local && fd_conv_state_hit(&st->key, &wg_tnsp_tag, p, a);
    if (!tnsp) {
        tnsp = wg_dgrad_tnsp_map(p, a, &st->tmb); /* tmb is no part of the forward row's state */
        if (tnsp) {
            st->key.tag = NULL;
            FD_TRY(wg_fwd_prepare(&q, &b, st->pl, st->tmx, st->tmw, st->ka));
            fd_conv_state_set(&st->key, &wg_tnsp_tag, p, a);
        }
    }
    if (tnsp) {
        if (p->xdt == CUDNN_DATA_HALF)
            return wg_dispatch<__half, 1>(&q, &b, st->pl, st->tmx, st->tmb, st->ka);
        return wg_dispatch<__nv_bfloat16, 1>(&q, &b, st->pl, st->tmx, st->tmb, st->ka);
    }
    int f1 = st != &local && fd_conv_state_hit(&st->key, &wg_tf32_tag, p, a);
    if (!f1 && wg_tf32_1l_takes(p) && (uintptr_t)a->y % 16 == 0 && wg_b_ok(p, a->w)) {
        st->key.tag = NULL;
        FD_TRY(wg_fwd_prepare(&q, &b, st->pl, st->tmx, st->tmw, st->ka)); /* its tmw is never read */
        f1 = wg_b_source(p, a->w, &st->ka);
        fd_conv_state_set(&st->key, &wg_tf32_tag, p, a);
    }
    if (f1)
        return wg_dispatch<float, 2>(&q, &b, st->pl, st->tmx, st->tmw, st->ka);
    cudaStream_t s = a->handle->stream;
    const unsigned blocks = fd_cuda_blocks(total, 256);
    const cudaError_t le = p->xdt == CUDNN_DATA_HALF    ? wg_dgrad_filter_launch<__half>(p, a, total, blocks, s)
                           : p->xdt == CUDNN_DATA_FLOAT ? wg_dgrad_filter_launch<float>(p, a, total, blocks, s)
                                                        : wg_dgrad_filter_launch<__nv_bfloat16>(p, a, total, blocks, s);
    FD_CUDA_LAUNCHED_AS(le, "wg_dgrad_filter on %s data (%lld elements, stream %p)", fd_dtype_name(p->xdt),
                        (long long)total, (void *)s);
    b.w = a->workspace;
    b.state = a->state; /* the forward row's state, keyed by q and the workspace's filter */
    return wg_fwd_run(&q, &b);
}

extern "C" cudnnStatus_t fd_conv_bwd_data_implicit_gemm_f16_128xN__sm90_run(const fd_conv_problem_t *p,
                                                                           const fd_conv_args_t *a)
{
    return wg_dgrad_run(p, a);
}

extern "C" cudnnStatus_t fd_conv_bwd_data_implicit_gemm_tf32_128xN__sm90_run(const fd_conv_problem_t *p,
                                                                            const fd_conv_args_t *a)
{
    return wg_dgrad_run(p, a);
}

/* ---- strided backward data in one GEMM launch ------------------------------------------------ */
/*
 * conv_tc_dgrad.cu splits a strided backward data into residue classes, each a stride-1 backward
 * data whose transposed sub-filter it gathers for all classes in one launch; here every class is
 * the forward problem wg_dgrad_run would launch for it (the same plan, maps and arguments: the
 * same GEMM, so the same bits), all of them in one grid (conv_dgrad_wgmma_grouped, class c owning
 * a run of tiles), and a class without taps (dx = alpha * 0 + beta * dx) is a class of no
 * k-block whose epilogue blends, as conv_tc_dgrad.cu's blend kernel does (alpha * 0 is +-0 exactly,
 * so the sum with beta * dx rounds once either way). Two launches per call instead of one gather
 * plus two per class (and one per tap-less class). Taken when every class fits (at most
 * WG_GROUP_MAX, one BN, dy and the sub-filters 16-byte aligned); FREEDNN_WGMMA_DGRAD_GROUPED=0
 * (read once) keeps the per-class launches.
 * Without the gather (bt = 1): class (a, b)'s sub-filter is a strided view of the KRSC filter
 * (conv_tc_dgrad.cu's view_filter: its taps w[k][b_h + s_h*i][b_w + s_w*j][c], the tap strides
 * times the convolution strides, the base tap b per dim, the class's mode chosen so that its flip
 * reads the gather's sub-filter tap), read as the stride-1 row reads the whole filter: HALF /
 * BFLOAT16 MN-major with one map per class (wg_krsc_mn_map), FLOAT by the producers (wg_b_source,
 * BT 2; also under FREEDNN_WGMMA_DGRAD_TF32_1L): the same B tile in every k-block, so the same
 * products in the same order, one launch per call. FREEDNN_WGMMA_DGRAD_NOGATHER=0 (read once)
 * keeps the gather; so does a filter whose views cannot be read so (channels not contiguous, a
 * view not 16-byte aligned). A plan keeps the whole launch, keyed by the strided problem and every
 * pointer and scale: its calls launch it straight away (fd_conv_bwd_data_wgmma_grouped_hit).
 */
extern "C" int fd_conv_bwd_data_wgmma_grouped_on(void)
{
    static const int on = wg_env_not0("FREEDNN_WGMMA_DGRAD_GROUPED");
    return on;
}

extern "C" int fd_conv_bwd_data_wgmma_nogather_on(void)
{
    static const int on = wg_env_not0("FREEDNN_WGMMA_DGRAD_NOGATHER");
    return on;
}

template <typename T, int BN, int BT>
static cudnnStatus_t wg_grouped_launch(const wg_group_t &g, cudnnDataType_t dt, cudaStream_t s)
{
    int dev = -1;
    FD_CUDA_CHECK(cudaGetDevice(&dev), "cudaGetDevice for the wgmma row");
    const cudaError_t prep = wg_prepare<T, BN, 2, BT>(dev);
    FD_CUDA_CHECK(prep, "cudaFuncSetAttribute(%zu bytes of dynamic shared memory) for conv_dgrad_wgmma_grouped "
                  "BN %d", wg_smem_bytes(BN), BN);
    const unsigned blocks = g.start[g.ncls];
    static void *fc[FD_CUDA_FCACHE];
    const cudaError_t le = fd_cuda_launch_on(dev, conv_dgrad_wgmma_grouped<T, BN, BN == 256, BT>, fc, dim3(blocks),
                                            dim3(WG_THREADS), (unsigned)wg_smem_bytes(BN), s, g);
    FD_CUDA_LAUNCHED_AS(le, "conv_dgrad_wgmma_grouped on %s data (BN %d, %d classes, B %s, %u blocks, stream %p)",
                        fd_dtype_name(dt), BN, g.ncls, BT == 1   ? "the KRSC filter's views MN-major"
                        : BT == 2 ? "K-major from the KRSC filter's views by the producers"
                                  : "K-major",
                        blocks,
                        (void *)s);
    return CUDNN_STATUS_SUCCESS;
}

template <typename T, int BT>
static cudnnStatus_t wg_grouped_dispatch(const wg_group_t &g, int bn, cudnnDataType_t dt, cudaStream_t s)
{
    return bn == 256 ? wg_grouped_launch<T, 256, BT>(g, dt, s)
           : bn == 128 ? wg_grouped_launch<T, 128, BT>(g, dt, s)
                       : wg_grouped_launch<T, 64, BT>(g, dt, s);
}

/* bt: the filter views (16-bit: MN-major by TMA, BT 1; FLOAT: by the producers, BT 2) */
static cudnnStatus_t wg_grouped_run(const wg_group_t &g, int bn, int bt, cudnnDataType_t dt, cudaStream_t s)
{
    if (dt == CUDNN_DATA_FLOAT)
        return bt ? wg_grouped_dispatch<float, 2>(g, bn, dt, s) : wg_grouped_dispatch<float, 0>(g, bn, dt, s);
    if (dt == CUDNN_DATA_HALF)
        return bt ? wg_grouped_dispatch<__half, 1>(g, bn, dt, s) : wg_grouped_dispatch<__half, 0>(g, bn, dt, s);
    return bt ? wg_grouped_dispatch<__nv_bfloat16, 1>(g, bn, dt, s)
              : wg_grouped_dispatch<__nv_bfloat16, 0>(g, bn, dt, s);
}

/* What a plan keeps for the grouped launch: its maps, arguments and tile split. */
typedef struct {
    fd_conv_state_key_t key; /* the strided problem and a's pointers and scales */
    fd_conv_problem_t q[WG_GROUP_MAX];
    int conv[WG_GROUP_MAX];
    void *dx[WG_GROUP_MAX];
    const void *wt[WG_GROUP_MAX];
    wg_group_t g;
    int bn, ncls;
} wg_group_state_t;
static_assert(sizeof(wg_group_state_t) <= FD_CONV_PLAN_STATE, "the grouped backward data's plan state");
static const char wg_group_tag = 0, wg_group_bt_tag = 0; /* the gathered / the viewed sub-filters */

/* ncls stride-1 backward data classes q[c] of strided problem p (conv[c]: with taps; else
 * tap-less, flt 0 somewhere) writing dx[c], on a's dy, alpha and beta. bt 0: class c's transposed sub-filter, packed CRSK, is
 * at wt[c] (written by before(ctx), the sub-filter gather); bt 1 (16-bit types): its KRSC
 * sub-filter is the view at wt[c] with q[c]'s filter strides, read MN-major (before may be NULL).
 * Returns 0 when the classes do not fit one launch (nothing launched: the caller runs them
 * another way); else 1, having called before(ctx) (if any) and launched the GEMM, the status in
 * *st. Every class with taps must be one the wgmma backward data row takes. */
extern "C" int fd_conv_bwd_data_wgmma_grouped(const fd_conv_problem_t *p, int ncls, int bt, const fd_conv_problem_t *q,
                                              const int *conv, void *const *dx, const void *const *wt,
                                              const fd_conv_args_t *a, cudnnStatus_t (*before)(void *), void *ctx,
                                              cudnnStatus_t *st)
{
    if (!fd_conv_bwd_data_wgmma_grouped_on() || ncls < 1 || ncls > WG_GROUP_MAX || (uintptr_t)a->y % 16 != 0)
        return 0;
    if (bt && (!fd_conv_bwd_data_wgmma_nogather_on() || (q[0].xdt == CUDNN_DATA_FLOAT && !wg_tf32_1l_takes(p))))
        return 0;
    const char *tag = bt ? &wg_group_bt_tag : &wg_group_tag;
    /* a plan's state: reused when every input of this function is what it was */
    wg_group_state_t *gs = (wg_group_state_t *)a->state;
    const size_t n = (size_t)ncls;
    if (gs != NULL && gs->ncls == ncls && fd_conv_state_hit(&gs->key, tag, p, a) &&
        memcmp(gs->q, q, n * sizeof *q) == 0 && memcmp(gs->conv, conv, n * sizeof *conv) == 0 &&
        memcmp(gs->dx, dx, n * sizeof *dx) == 0 && memcmp(gs->wt, wt, n * sizeof *wt) == 0) {
        *st = before != NULL ? before(ctx) : CUDNN_STATUS_SUCCESS;
        if (*st == CUDNN_STATUS_SUCCESS)
            *st = wg_grouped_run(gs->g, gs->bn, bt, q[0].xdt, a->handle->stream);
        return 1;
    }
    wg_group_t g;
    memset(&g, 0, sizeof g);
    int bn = 0, any = 0;
    int64_t start = 0;
    for (int c = 0; c < ncls; c++) {
        fd_conv_problem_t sub = q[c], f;
        if (conv[c]) {
            if ((uintptr_t)wt[c] % 16 != 0)
                return 0;
            any = 1;
        } else {
            /* the epilogue alone: a 1-tap stand-in gives the output tiling, no k-block is read */
            for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++)
                sub.flt[d] = 1, sub.pad[d] = 0;
        }
        char why[400];
        if (!wg_dgrad_problem(&sub, &f, why, sizeof why))
            return 0;
        fd_conv_args_t b = *a;
        b.x = a->y, b.w = conv[c] ? wt[c] : a->y, b.y = NULL, b.out = dx[c];
        b.workspace = NULL, b.workspace_size = 0, b.state = NULL;
        wg_plan_t pl;
        if (wg_fwd_prepare(&f, &b, pl, g.tmx[c], g.tmw[c], g.a[c]) != CUDNN_STATUS_SUCCESS)
            return 0;
        /* the view's map replaces the K-major one made above (a tap-less class reads no B) */
        if (bt && conv[c] &&
            !(q[c].xdt == CUDNN_DATA_FLOAT ? wg_b_source(&q[c], wt[c], &g.a[c])
                                           : wg_krsc_mn_map(&q[c], wt[c], a->y, &g.tmw[c])))
            return 0;
        if (pl.tap && pl.bw == 0)
            return 0;
        if (!conv[c])
            g.a[c].kblocks = 0;
        if (bn != 0 && pl.bn != bn)
            return 0;
        bn = pl.bn;
        g.start[c] = (unsigned)start;
        start += pl.mtiles * pl.ktiles;
        if (start > INT32_MAX)
            return 0;
    }
    if (!any)
        return 0;
    g.start[ncls] = (unsigned)start;
    g.ncls = ncls;
    if (gs != NULL) {
        gs->g = g, gs->bn = bn, gs->ncls = ncls;
        memcpy(gs->q, q, n * sizeof *q), memcpy(gs->conv, conv, n * sizeof *conv);
        memcpy(gs->dx, dx, n * sizeof *dx), memcpy(gs->wt, wt, n * sizeof *wt);
        fd_conv_state_set(&gs->key, tag, p, a);
    }
    *st = before != NULL ? before(ctx) : CUDNN_STATUS_SUCCESS;
    if (*st == CUDNN_STATUS_SUCCESS)
        *st = wg_grouped_run(g, bn, bt, q[0].xdt, a->handle->stream);
    return 1;
}

/* The one-launch call of a plan: when a->state holds the gather-free grouped launch made for
 * strided problem p on a's pointers and scales (everything it derived the classes, maps and
 * arguments from: the switches are read once, the device is the plan's), launches it as it is
 * and returns 1, the status in *st, skipping the split's per-class checks; else 0, nothing
 * launched. */
extern "C" int fd_conv_bwd_data_wgmma_grouped_hit(const fd_conv_problem_t *p, const fd_conv_args_t *a,
                                                  cudnnStatus_t *st)
{
    const wg_group_state_t *gs = (const wg_group_state_t *)a->state;
    if (gs == NULL || !fd_conv_state_hit(&gs->key, &wg_group_bt_tag, p, a))
        return 0;
    *st = wg_grouped_run(gs->g, gs->bn, 1, p->xdt, a->handle->stream);
    return 1;
}
