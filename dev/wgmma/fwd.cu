/* SPDX-License-Identifier: MIT */
/*
 * fwd.cu - sandbox for forward convolution with wgmma + TMA on sm_90a (issue 7), llm.c style:
 * one self-contained file with a CPU reference (small problems), a naive GPU reference, versions
 * 1..4 of a warp-specialised implicit-GEMM kernel, a checker and a timer (cudaEvent, median).
 *
 * GEMM mapping (fwd, NHWC x, KRSC w, NHWC y, stride 1, dilation 1, symmetric padding):
 *   y[m, k] = alpha * sum_kk A[m, kk] B[k, kk] + beta * y[m, k]
 *   m = (n, oh, ow)  (M = N*P*Q),  kk = (r, s, c)  (R*S*C),  A[m, kk] = x[n, oh+r-pad, ow+s-pad, c]
 *   B[k, kk] = w[k, r, s, c]  (w is already a row-major [K][R*S*C] matrix, K-major for wgmma)
 * Both operands are K-major ("kk" contiguous), the layout wgmma reads from shared memory without
 * a transpose. A k-block is 64 halves = 128 bytes of one (r, s) tap (C % 64 == 0), so one
 * 128B-swizzled TMA box row is one wgmma K-major row.
 *
 * Block: 384 threads = warpgroup 0 (producer: one thread issues TMA) + warpgroups 1, 2
 * (consumers, each 64 rows x BN columns with wgmma m64nBNk16). Tile 128 x BN x 64, STAGES-deep
 * smem ring of (A 16 KiB + B BN*128 B), full/empty mbarriers. See README.md for versions.
 *
 * Robustness: every mbarrier wait is bounded (clock64 budget); a timeout sets g_err and the
 * thread stops waiting but keeps executing the same instruction stream (so warpgroup-collective
 * wgmma stay aligned), which lets the kernel finish with garbage instead of hanging. The host
 * also polls each launch with a wall-clock watchdog; a hang or a sticky CUDA error re-executes
 * this program with --from <next version>.
 */
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- host error handling ------------------------------------------------------------------- */

static char **g_argv;
static int g_cur_version; /* version being run, for the re-exec after a fatal error */
static int g_only = 0;    /* --only V */
static int g_reps = 20;   /* --reps R */
static int g_small = 0;   /* --small: only the small problems */

/* A sticky error (illegal address, ...) poisons the context: restart the process after it. */
static void fatal_restart(const char *what, const char *file, int line)
{
    fprintf(stderr, "FATAL %s at %s:%d during version %d\n", what, file, line, g_cur_version);
    fflush(stdout);
    fflush(stderr);
    if (g_cur_version <= 0 || g_only)
        _exit(1);
    char from[16], reps[16];
    snprintf(from, sizeof from, "%d", g_cur_version + 1);
    snprintf(reps, sizeof reps, "%d", g_reps);
    char *args[] = {g_argv[0], (char *)"--from", from, (char *)"--reps", reps, g_small ? (char *)"--small" : NULL,
                    NULL};
    fprintf(stderr, "restarting: %s --from %s\n", g_argv[0], from);
    execv(g_argv[0], args);
    perror("execv");
    _exit(1);
}

#define CK(x)                                                                                    \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess)                                                                   \
            fatal_restart(cudaGetErrorString(e_), __FILE__, __LINE__);                           \
    } while (0)

/* ---- problem --------------------------------------------------------------------------------- */

struct Conv {
    int n, h, w, c, k, r, s, pad;
    float alpha, beta;
    int p, q; /* output height, width */
};

static Conv conv_make(int n, int h, int w, int c, int k, int r, int s, int pad, float alpha, float beta)
{
    Conv v = {n, h, w, c, k, r, s, pad, alpha, beta, h + 2 * pad - r + 1, w + 2 * pad - s + 1};
    return v;
}

static double conv_flops(const Conv &v)
{
    return 2.0 * v.n * v.p * v.q * (double)v.k * v.c * v.r * v.s;
}

/* ---- CPU reference (small problems only) ----------------------------------------------------- */

static void conv_cpu(const Conv &v, const __half *x, const __half *w, __half *y)
{
    for (int n = 0; n < v.n; n++)
        for (int oh = 0; oh < v.p; oh++)
            for (int ow = 0; ow < v.q; ow++)
                for (int k = 0; k < v.k; k++) {
                    float acc = 0.f;
                    for (int r = 0; r < v.r; r++)
                        for (int s = 0; s < v.s; s++) {
                            int ih = oh + r - v.pad, iw = ow + s - v.pad;
                            if (ih < 0 || ih >= v.h || iw < 0 || iw >= v.w)
                                continue;
                            const __half *xp = x + (((size_t)n * v.h + ih) * v.w + iw) * v.c;
                            const __half *wp = w + (((size_t)k * v.r + r) * v.s + s) * v.c;
                            for (int c = 0; c < v.c; c++)
                                acc += __half2float(xp[c]) * __half2float(wp[c]);
                        }
                    size_t o = (((size_t)n * v.p + oh) * v.q + ow) * v.k + k;
                    float old = v.beta != 0.f ? __half2float(y[o]) : 0.f;
                    y[o] = __float2half_rn(v.alpha * acc + v.beta * old);
                }
}

/* ---- GPU reference: one thread per output, k fastest (x loads are warp broadcasts) ------------ */

__global__ void conv_ref_gpu(Conv v, const __half *x, const __half *w, __half *y)
{
    size_t total = (size_t)v.n * v.p * v.q * v.k;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
        int k = (int)(i % v.k);
        size_t m = i / v.k;
        int ow = (int)(m % v.q), oh = (int)((m / v.q) % v.p), n = (int)(m / ((size_t)v.q * v.p));
        float acc = 0.f;
        for (int r = 0; r < v.r; r++) {
            int ih = oh + r - v.pad;
            if (ih < 0 || ih >= v.h)
                continue;
            for (int s = 0; s < v.s; s++) {
                int iw = ow + s - v.pad;
                if (iw < 0 || iw >= v.w)
                    continue;
                const __half2 *xp = (const __half2 *)(x + (((size_t)n * v.h + ih) * v.w + iw) * v.c);
                const __half2 *wp = (const __half2 *)(w + (((size_t)k * v.r + r) * v.s + s) * v.c);
                for (int c = 0; c < v.c / 2; c++) {
                    float2 a = __half22float2(xp[c]), b = __half22float2(wp[c]);
                    acc += a.x * b.x;
                    acc += a.y * b.y;
                }
            }
        }
        float old = v.beta != 0.f ? __half2float(y[i]) : 0.f;
        y[i] = __float2half_rn(v.alpha * acc + v.beta * old);
    }
}

/* Integer-valued fill: k/8 with k in [-4, 4] (fp16-exact). Products are multiples of 1/64 and
 * every ResNet-50 sum stays far below 2^24/64, so fp32 accumulation is exact in any order and
 * every correct kernel matches the reference bit for bit. */
__global__ void fill_exact(__half *p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 0x9E3779B1u ^ seed;
        h ^= h >> 15;
        h *= 0x85EBCA77u;
        h ^= h >> 13;
        h *= 0xC2B2AE3Du;
        h ^= h >> 16;
        p[i] = __float2half_rn((float)((int)(h % 9u) - 4) * 0.125f);
    }
}

/* ---- device primitives (inline PTX, sm_90a) -------------------------------------------------- */

__device__ int g_err; /* set by a timed-out mbarrier wait */

#define SPIN_BUDGET_CYCLES (1ll << 31) /* about one second: legal waits last microseconds */

static __device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

static __device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

static __device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n}\n" ::"r"(bar),
                 "r"(bytes)
                 : "memory");
}

static __device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0];\n}\n" ::"r"(bar) : "memory");
}

static __device__ __forceinline__ uint32_t mbar_try(uint32_t bar, uint32_t parity)
{
    uint32_t ok;
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(ok)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return ok;
}

/* Wait for the phase of parity `parity` to complete, or give up (dead = 1, g_err = 1) after the
 * cycle budget or once another thread has given up. A dead thread never waits again. */
static __device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity, int &dead)
{
    if (dead || mbar_try(bar, parity))
        return;
    long long t0 = clock64();
    for (unsigned i = 1;; i++) {
        if (mbar_try(bar, parity))
            return;
        if ((i & 255u) == 0) {
            if (*(volatile int *)&g_err) {
                dead = 1;
                return;
            }
            if (clock64() - t0 > SPIN_BUDGET_CYCLES) {
                atomicExch(&g_err, 1);
                dead = 1;
                return;
            }
        }
    }
}

static __device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap *map, uint32_t bar, int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
                 "l"((uint64_t)map), "r"(bar), "r"(c0), "r"(c1)
                 : "memory");
}

static __device__ __forceinline__ void tma_load_4d(uint32_t dst, const CUtensorMap *map, uint32_t bar, int c0, int c1,
                                                   int c2, int c3)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(dst),
                 "l"((uint64_t)map), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
                 : "memory");
}

static __device__ __forceinline__ void tma_prefetch_desc(const CUtensorMap *map)
{
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)map) : "memory");
}

static __device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
static __device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> static __device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* Pins the accumulators in program order around wgmma: the async instructions write registers
 * behind the compiler's back, so reads/writes must not be scheduled across fence/wait. */
template <int R> static __device__ __forceinline__ void acc_fence(float (&d)[R])
{
#pragma unroll
    for (int i = 0; i < R; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

/* Shared-memory matrix descriptor, K-major operand in the 128-byte swizzle layout written by
 * TMA SWIZZLE_128B: rows of 128 bytes, 8-row (1024-byte) swizzle atoms stacked densely, so the
 * stride byte offset is 1024; the leading byte offset is unused for swizzled K-major layouts
 * (set to 1 by convention); bits 62-63 = 1 selects the 128B swizzle. The k16 step inside the
 * 128-byte row is done by advancing the start address 32 bytes (+2 in 16-byte units); the
 * hardware applies the swizzle to the final address, so tiles must be 1024-byte aligned. */
static __device__ __forceinline__ uint64_t smem_desc_sw128(uint32_t addr)
{
    return (uint64_t)((addr & 0x3FFFFu) >> 4) | (1ull << 16) | ((uint64_t)(1024 >> 4) << 32) | (1ull << 62);
}

/* ---- wgmma m64nNk16 f32 += f16 * f16, both operands K-major from shared memory -------------- */

/* d (N/2 floats per thread) += A (64 x 16, descriptor da) * B (16 x N, descriptor db); scale_d = 0
 * would ignore d. Immediates: scale-a = scale-b = 1, no transpose (both K-major). The operand
 * lists are long but regular (%0..%N/2-1 = d, then da, db, scale_d). */

static __device__ __forceinline__ void wgmma_n64(float (&d)[32], uint64_t da, uint64_t db, int scale_d)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
                 "}, %32, %33, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "l"(da), "l"(db), "r"(scale_d));
}

static __device__ __forceinline__ void wgmma_n128(float (&d)[64], uint64_t da, uint64_t db, int scale_d)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
                 "}, %64, %65, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                   "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                   "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(da), "l"(db), "r"(scale_d));
}

static __device__ __forceinline__ void wgmma_n256(float (&d)[128], uint64_t da, uint64_t db, int scale_d)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
                 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
                 "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
                 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
                 "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
                 "}, %128, %129, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                   "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                   "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                   "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                   "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                   "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                   "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                   "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
                   "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
                   "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                 : "l"(da), "l"(db), "r"(scale_d));
}

template <int BN> struct wgmma_bn;
template <> struct wgmma_bn<64> {
    static __device__ __forceinline__ void mma(float (&d)[32], uint64_t a, uint64_t b) { wgmma_n64(d, a, b, 1); }
};
template <> struct wgmma_bn<128> {
    static __device__ __forceinline__ void mma(float (&d)[64], uint64_t a, uint64_t b) { wgmma_n128(d, a, b, 1); }
};
template <> struct wgmma_bn<256> {
    static __device__ __forceinline__ void mma(float (&d)[128], uint64_t a, uint64_t b) { wgmma_n256(d, a, b, 1); }
};

/* ---- the kernel ------------------------------------------------------------------------------ */

struct KArgs {
    __half *y;
    int M, K;        /* GEMM rows (N*P*Q) and columns (output channels) */
    int kblocks;     /* R*S*C/64 */
    int cchunks, S;  /* C/64, filter width: the (r, s, c-chunk) walk of the producer */
    int pad;
    int N, P, Q;     /* output geometry (tap mode) */
    int bw, bh, bni; /* tap mode: the output pixels of one tile, a (bni, bh, bw) box */
    int tiles_q, tiles_p;
    uint32_t tx_bytes; /* bytes one stage receives: A box + B box */
    float alpha, beta;
};

#define A_STAGE_BYTES 16384 /* 128 rows x 128 bytes */
#define NTHREADS 384

static size_t smem_bytes(int bn, int stages)
{
    return (size_t)stages * (A_STAGE_BYTES + bn * 128) + 2 * stages * 8 + 1024; /* +1024: alignment */
}

/*
 * TAP = false: A is x viewed as a [M][C] matrix (1x1, pad 0, stride 1), one 2-d box {64, 128}.
 * TAP = true : A of k-block (r, s, cc) is the 4-d box {64 c, bw, bh, bni} of x at
 *              (cc*64, ow0+s-pad, oh0+r-pad, n0); TMA zero-fills out-of-range coordinates
 *              (negative included), which is exactly the convolution's zero padding.
 * INFLIGHT   : wgmma batches (one per k-block) left running when the consumer moves on; a stage
 *              is released only after its batch has completed.
 * REGS       : rebalance registers (producer 40, consumers 232) for the 128-register
 *              accumulators of BN = 256.
 */
template <int BN, int STAGES, bool TAP, int INFLIGHT, bool REGS>
__global__ void __launch_bounds__(NTHREADS, 1)
    conv_wgmma(const __grid_constant__ CUtensorMap tmx, const __grid_constant__ CUtensorMap tmw, const KArgs a)
{
    extern __shared__ uint8_t smem_raw[];
    const uint32_t base = (smem_u32(smem_raw) + 1023u) & ~1023u;
    const uint32_t sA = base;
    const uint32_t sB = sA + STAGES * A_STAGE_BYTES;
    const uint32_t bar_full = sB + STAGES * BN * 128;
    const uint32_t bar_empty = bar_full + STAGES * 8;
    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
    const int nk0 = blockIdx.x * BN;

    int m0 = 0, ow0 = 0, oh0 = 0, n0 = 0;
    if (TAP) {
        const int mt = blockIdx.y;
        const int tq = mt % a.tiles_q, t = mt / a.tiles_q;
        ow0 = tq * a.bw;
        oh0 = (t % a.tiles_p) * a.bh;
        n0 = (t / a.tiles_p) * a.bni;
    } else {
        m0 = blockIdx.y * 128;
    }

    if (threadIdx.x == 0) {
#pragma unroll
        for (int s = 0; s < STAGES; s++) {
            mbar_init(bar_full + 8 * s, 1);      /* the producer's arrive.expect_tx */
            mbar_init(bar_empty + 8 * s, 256);   /* every consumer thread */
        }
        /* make the initialised barriers visible to the async proxy (TMA complete_tx) */
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        tma_prefetch_desc(&tmx);
        tma_prefetch_desc(&tmw);
    }
    __syncthreads();

    if (wg == 0) {
        /* ---- producer warpgroup: one thread walks (r, s, c-chunk) and issues the loads ---- */
        if (REGS)
            asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
        if (tid == 0) {
            int dead = 0, r = 0, s = 0, cc = 0;
            for (int kb = 0; kb < a.kblocks; kb++) {
                const int st = kb % STAGES;
                const uint32_t full = bar_full + 8 * st;
                /* round 0 waits on parity 1 of a fresh barrier, which counts as completed */
                mbar_wait(bar_empty + 8 * st, ((kb / STAGES) & 1) ^ 1, dead);
                mbar_arrive_expect_tx(full, a.tx_bytes);
                if (TAP)
                    tma_load_4d(sA + st * A_STAGE_BYTES, &tmx, full, cc * 64, ow0 + s - a.pad, oh0 + r - a.pad, n0);
                else
                    tma_load_2d(sA + st * A_STAGE_BYTES, &tmx, full, kb * 64, m0);
                /* w is [K][R*S*C]; kk of this k-block is ((r*S + s)*C + cc*64) = kb*64 */
                tma_load_2d(sB + st * BN * 128, &tmw, full, kb * 64, nk0);
                if (++cc == a.cchunks) {
                    cc = 0;
                    if (++s == a.S) {
                        s = 0;
                        r++;
                    }
                }
            }
        }
        return;
    }

    /* ---- consumer warpgroups: rows [64*cw, 64*cw + 64) of the tile, all BN columns ---- */
    if (REGS)
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
    const int cw = wg - 1;
    float acc[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; i++)
        acc[i] = 0.f;
    acc_fence(acc);
    int dead = 0;
    for (int kb = 0; kb < a.kblocks; kb++) {
        const int st = kb % STAGES;
        mbar_wait(bar_full + 8 * st, (kb / STAGES) & 1, dead);
        const uint64_t da = smem_desc_sw128(sA + st * A_STAGE_BYTES + cw * 64 * 128);
        const uint64_t db = smem_desc_sw128(sB + st * BN * 128);
        wgmma_fence();
#pragma unroll
        for (int j = 0; j < 4; j++) /* 4 x k16 = the 64 halves of the 128-byte rows */
            wgmma_bn<BN>::mma(acc, da + 2 * j, db + 2 * j);
        wgmma_commit();
        if (INFLIGHT == 0) {
            wgmma_wait<0>();
            mbar_arrive(bar_empty + 8 * st);
        } else {
            wgmma_wait<INFLIGHT>();
            if (kb >= INFLIGHT)
                mbar_arrive(bar_empty + 8 * ((kb - INFLIGHT) % STAGES));
        }
    }
    wgmma_wait<0>();
    acc_fence(acc);

    /* ---- epilogue: thread holds rows (lane/4, lane/4 + 8) of its warp's 16, column pairs
     * 8j + 2*(lane%4) for every n8 block j: acc[4j + 2h + {0,1}] is row + 8h ---- */
    const int warp = tid / 32, lane = tid % 32;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int row = cw * 64 + warp * 16 + (lane >> 2) + 8 * h;
        long long m = -1;
        if (TAP) {
            const int wi = row % a.bw, t = row / a.bw, hi = t % a.bh, ni = t / a.bh;
            const int n = n0 + ni, oh = oh0 + hi, ow = ow0 + wi;
            if (ni < a.bni && n < a.N && oh < a.P && ow < a.Q)
                m = ((long long)n * a.P + oh) * a.Q + ow;
        } else if (m0 + row < a.M) {
            m = m0 + row;
        }
        if (m < 0)
            continue;
        __half *yr = a.y + m * a.K;
#pragma unroll
        for (int j = 0; j < BN / 8; j++) {
            const int col = nk0 + j * 8 + (lane & 3) * 2;
            if (col < a.K) {
                float v0 = a.alpha * acc[4 * j + 2 * h], v1 = a.alpha * acc[4 * j + 2 * h + 1];
                if (a.beta != 0.f) {
                    const float2 o = __half22float2(*(const __half2 *)(yr + col));
                    v0 += a.beta * o.x;
                    v1 += a.beta * o.y;
                }
                *(__half2 *)(yr + col) = __floats2half2_rn(v0, v1);
            }
        }
    }
}

/* ---- host: tensor maps, plans, versions -------------------------------------------------------- */

static int encode_map(CUtensorMap *map, const void *ptr, int rank, const cuuint64_t *dims, const cuuint64_t *strides,
                      const cuuint32_t *box, char *why, size_t why_size)
{
    cuuint32_t estr[4] = {1, 1, 1, 1};
    CUresult r = cuTensorMapEncodeTiled(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, rank, (void *)ptr, dims, strides, box,
                                        estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        const char *s = NULL;
        cuGetErrorString(r, &s);
        snprintf(why, why_size, "cuTensorMapEncodeTiled(rank %d): %s", rank, s ? s : "?");
        return 0;
    }
    return 1;
}

/* Output-pixel box of a tap-mode tile: bw x bh (x bni whole images) <= 128 pixels, the fewest
 * tiles (least padding waste), ties to the widest row. */
static void tap_tile(const Conv &v, int *bw, int *bh, int *bni)
{
    long long best = -1;
    for (int tw = 1; tw <= v.q && tw <= 128; tw++)
        for (int th = 1; th <= v.p && tw * th <= 128; th++) {
            int maxn = (tw == v.q && th == v.p) ? 128 / (tw * th) : 1;
            if (maxn > v.n)
                maxn = v.n;
            for (int tn = 1; tn <= maxn; tn++) {
                long long tiles = (long long)((v.n + tn - 1) / tn) * ((v.p + th - 1) / th) * ((v.q + tw - 1) / tw);
                if (best < 0 || tiles < best || (tiles == best && tw > *bw)) {
                    best = tiles;
                    *bw = tw;
                    *bh = th;
                    *bni = tn;
                }
            }
        }
}

typedef void (*kern_t)(const CUtensorMap, const CUtensorMap, const KArgs);

struct Plan {
    kern_t kern;
    CUtensorMap tmx, tmw;
    KArgs a;
    dim3 grid;
    size_t smem;
    char tile[64];
};

template <int BN, int STAGES, bool TAP, int INFLIGHT, bool REGS>
static int plan_make(Plan *pl, const Conv &v, const __half *x, const __half *w, __half *y, char *why, size_t why_size)
{
    if (v.c % 64 || v.k % 8) {
        snprintf(why, why_size, "needs C %% 64 == 0 and K %% 8 == 0");
        return 0;
    }
    KArgs &a = pl->a;
    memset(&a, 0, sizeof a);
    a.y = y;
    a.M = v.n * v.p * v.q;
    a.K = v.k;
    a.cchunks = v.c / 64;
    a.kblocks = v.r * v.s * a.cchunks;
    a.S = v.s;
    a.pad = v.pad;
    a.N = v.n;
    a.P = v.p;
    a.Q = v.q;
    a.alpha = v.alpha;
    a.beta = v.beta;
    int mtiles;
    uint32_t a_bytes;
    if (TAP) {
        tap_tile(v, &a.bw, &a.bh, &a.bni);
        a.tiles_q = (v.q + a.bw - 1) / a.bw;
        a.tiles_p = (v.p + a.bh - 1) / a.bh;
        mtiles = a.tiles_q * a.tiles_p * ((v.n + a.bni - 1) / a.bni);
        cuuint64_t dims[4] = {(cuuint64_t)v.c, (cuuint64_t)v.w, (cuuint64_t)v.h, (cuuint64_t)v.n};
        cuuint64_t str[3] = {(cuuint64_t)v.c * 2, (cuuint64_t)v.w * v.c * 2, (cuuint64_t)v.h * v.w * v.c * 2};
        cuuint32_t box[4] = {64, (cuuint32_t)a.bw, (cuuint32_t)a.bh, (cuuint32_t)a.bni};
        if (!encode_map(&pl->tmx, x, 4, dims, str, box, why, why_size))
            return 0;
        a_bytes = 128u * a.bw * a.bh * a.bni;
        snprintf(pl->tile, sizeof pl->tile, "tap %dx%dx%d px, n%d", a.bni, a.bh, a.bw, BN);
    } else {
        mtiles = (a.M + 127) / 128;
        cuuint64_t dims[2] = {(cuuint64_t)v.c, (cuuint64_t)a.M};
        cuuint64_t str[1] = {(cuuint64_t)v.c * 2};
        cuuint32_t box[2] = {64, 128};
        if (!encode_map(&pl->tmx, x, 2, dims, str, box, why, why_size))
            return 0;
        a_bytes = A_STAGE_BYTES;
        snprintf(pl->tile, sizeof pl->tile, "gemm 128x%d", BN);
    }
    cuuint64_t wd[2] = {(cuuint64_t)v.r * v.s * v.c, (cuuint64_t)v.k};
    cuuint64_t ws[1] = {(cuuint64_t)v.r * v.s * v.c * 2};
    cuuint32_t wb[2] = {64, BN};
    if (!encode_map(&pl->tmw, w, 2, wd, ws, wb, why, why_size))
        return 0;
    a.tx_bytes = a_bytes + BN * 128;
    if (mtiles > 65535) {
        snprintf(why, why_size, "%d m-tiles exceed gridDim.y", mtiles);
        return 0;
    }
    pl->grid = dim3((v.k + BN - 1) / BN, mtiles, 1);
    pl->kern = conv_wgmma<BN, STAGES, TAP, INFLIGHT, REGS>;
    pl->smem = smem_bytes(BN, STAGES);
    CK(cudaFuncSetAttribute(pl->kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)pl->smem));
    return 1;
}

static void plan_launch(const Plan *pl, cudaStream_t st)
{
    pl->kern<<<pl->grid, NTHREADS, pl->smem, st>>>(pl->tmx, pl->tmw, pl->a);
    CK(cudaGetLastError());
}

static int is_1x1(const Conv &v) { return v.r == 1 && v.s == 1 && v.pad == 0; }

/* Versions: each returns 0 (with a reason) where it does not apply. Common limits: C % 64 == 0
 * (a k-block never straddles a filter tap), K % 8 == 0 (16-byte w rows, half2 stores). */
static int make_v1(Plan *pl, const Conv &v, const __half *x, const __half *w, __half *y, char *why, size_t n)
{
    if (!is_1x1(v))
        return snprintf(why, n, "1x1 only"), 0;
    return plan_make<128, 4, false, 0, false>(pl, v, x, w, y, why, n);
}

static int make_v2(Plan *pl, const Conv &v, const __half *x, const __half *w, __half *y, char *why, size_t n)
{
    if (!is_1x1(v))
        return snprintf(why, n, "1x1 only"), 0;
    return plan_make<128, 4, false, 1, false>(pl, v, x, w, y, why, n);
}

static int make_v3(Plan *pl, const Conv &v, const __half *x, const __half *w, __half *y, char *why, size_t n)
{
    if (is_1x1(v))
        return v.k <= 64 ? plan_make<64, 4, false, 1, false>(pl, v, x, w, y, why, n)
                         : plan_make<128, 4, false, 1, false>(pl, v, x, w, y, why, n);
    return v.k <= 64 ? plan_make<64, 4, true, 1, false>(pl, v, x, w, y, why, n)
                     : plan_make<128, 4, true, 1, false>(pl, v, x, w, y, why, n);
}

static int make_v4(Plan *pl, const Conv &v, const __half *x, const __half *w, __half *y, char *why, size_t n)
{
    if (v.k < 256)
        return snprintf(why, n, "K < 256"), 0;
    if (is_1x1(v))
        return plan_make<256, 4, false, 1, true>(pl, v, x, w, y, why, n);
    return plan_make<256, 4, true, 1, true>(pl, v, x, w, y, why, n);
}

struct Version {
    const char *name;
    int (*make)(Plan *, const Conv &, const __half *, const __half *, __half *, char *, size_t);
};

static const Version versions[] = {
    {"v1 1x1 tma+wgmma n128, 4 stages, wait(0)", make_v1},
    {"v2 1x1 as v1, 1 wgmma batch in flight", make_v2},
    {"v3 any RxS: per-tap 4-d TMA boxes, n64/n128", make_v3},
    {"v4 as v3, n256 tile, setmaxnreg 40/232", make_v4},
};
#define NVERSIONS ((int)(sizeof versions / sizeof versions[0]))

/* ---- checking and timing ----------------------------------------------------------------------- */

/* Waits for `ev` at most `seconds`; a kernel still running then is taken as a hang. */
static void watchdog(cudaEvent_t ev, double seconds)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        cudaError_t e = cudaEventQuery(ev);
        if (e == cudaSuccess)
            return;
        if (e != cudaErrorNotReady)
            fatal_restart(cudaGetErrorString(e), __FILE__, __LINE__);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if ((t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec) > seconds)
            fatal_restart("kernel still running after the watchdog limit (hang)", __FILE__, __LINE__);
        usleep(200);
    }
}

static int g_err_read(void)
{
    int e = 0;
    CK(cudaMemcpyFromSymbol(&e, g_err, sizeof e));
    return e;
}

static void g_err_clear(void)
{
    int z = 0;
    CK(cudaMemcpyToSymbol(g_err, &z, sizeof z));
}

/* Bitwise comparison (the data are integer-exact); prints the first mismatches. */
static long long compare(const Conv &v, const __half *got, const __half *ref)
{
    long long bad = 0, total = (long long)v.n * v.p * v.q * v.k;
    const uint16_t *g = (const uint16_t *)got, *r = (const uint16_t *)ref;
    for (long long i = 0; i < total; i++) {
        if (g[i] == r[i])
            continue;
        if (bad < 5) {
            long long m = i / v.k;
            printf("      mismatch n=%lld oh=%lld ow=%lld k=%lld: got %g (0x%04x) want %g (0x%04x)\n",
                   m / ((long long)v.p * v.q), (m / v.q) % v.p, m % v.q, i % v.k, __half2float(got[i]), g[i],
                   __half2float(ref[i]), r[i]);
        }
        bad++;
    }
    return bad;
}

static void fill(__half *d, size_t n, uint32_t seed)
{
    fill_exact<<<1024, 256>>>(d, n, seed);
    CK(cudaGetLastError());
}

struct Case {
    const char *name;
    Conv v;
    __half *x, *w, *y, *y0, *yref; /* device; y0 = initial y (beta != 0), yref = reference */
    __half *hy, *href;             /* host copies for the comparison */
    size_t nx, nw, ny;
};

static void case_init(Case *cs, const char *name, Conv v, int cpu_check)
{
    cs->name = name;
    cs->v = v;
    cs->nx = (size_t)v.n * v.h * v.w * v.c;
    cs->nw = (size_t)v.k * v.r * v.s * v.c;
    cs->ny = (size_t)v.n * v.p * v.q * v.k;
    CK(cudaMalloc(&cs->x, cs->nx * 2));
    CK(cudaMalloc(&cs->w, cs->nw * 2));
    CK(cudaMalloc(&cs->y, cs->ny * 2));
    CK(cudaMalloc(&cs->y0, cs->ny * 2));
    CK(cudaMalloc(&cs->yref, cs->ny * 2));
    cs->hy = (__half *)malloc(cs->ny * 2);
    cs->href = (__half *)malloc(cs->ny * 2);
    if (!cs->hy || !cs->href) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    fill(cs->x, cs->nx, 0x1234u + v.c);
    fill(cs->w, cs->nw, 0xBEEFu + v.k);
    fill(cs->y0, cs->ny, 0x5151u);
    CK(cudaMemcpy(cs->yref, cs->y0, cs->ny * 2, cudaMemcpyDeviceToDevice));
    conv_ref_gpu<<<4096, 256>>>(v, cs->x, cs->w, cs->yref);
    CK(cudaGetLastError());
    CK(cudaMemcpy(cs->href, cs->yref, cs->ny * 2, cudaMemcpyDeviceToHost));
    if (cpu_check) { /* validate the GPU reference against the CPU one */
        __half *hx = (__half *)malloc(cs->nx * 2), *hw = (__half *)malloc(cs->nw * 2);
        __half *hc = (__half *)malloc(cs->ny * 2);
        CK(cudaMemcpy(hx, cs->x, cs->nx * 2, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hw, cs->w, cs->nw * 2, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hc, cs->y0, cs->ny * 2, cudaMemcpyDeviceToHost));
        conv_cpu(v, hx, hw, hc);
        long long bad = compare(v, cs->href, hc);
        printf("  %-34s gpu reference vs cpu reference: %s (%lld mismatches)\n", name, bad ? "FAIL" : "ok", bad);
        free(hx);
        free(hw);
        free(hc);
    }
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Runs version `vi` on one case: correctness first, then (timed) the median of g_reps runs. */
static void run_case(int vi, Case *cs, int timed)
{
    const Conv &v = cs->v;
    Plan pl;
    char why[256] = "";
    if (!versions[vi].make(&pl, v, cs->x, cs->w, cs->y, why, sizeof why)) {
        printf("    v%d %-34s n/a (%s)\n", vi + 1, cs->name, why);
        return;
    }
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    if (v.beta != 0.f)
        CK(cudaMemcpy(cs->y, cs->y0, cs->ny * 2, cudaMemcpyDeviceToDevice));
    else
        CK(cudaMemset(cs->y, 0xFF, cs->ny * 2)); /* NaN: an unwritten output cannot pass */
    g_err_clear();
    plan_launch(&pl, 0);
    CK(cudaEventRecord(e1, 0));
    watchdog(e1, 20.0);
    int err = g_err_read();
    CK(cudaMemcpy(cs->hy, cs->y, cs->ny * 2, cudaMemcpyDeviceToHost));
    long long bad = compare(v, cs->hy, cs->href);
    char status[64];
    if (err)
        snprintf(status, sizeof status, "TIMEOUT (mbarrier wait gave up)");
    else if (bad)
        snprintf(status, sizeof status, "FAIL %lld/%zu", bad, cs->ny);
    else
        snprintf(status, sizeof status, "ok");
    if (!timed || err) {
        printf("    v%d %-34s %-22s %s\n", vi + 1, cs->name, pl.tile, status);
        goto out;
    }
    {
        float ms[256];
        int reps = g_reps > 256 ? 256 : g_reps;
        for (int i = 0; i < 2; i++)
            plan_launch(&pl, 0);
        for (int i = 0; i < reps; i++) {
            CK(cudaEventRecord(e0, 0));
            plan_launch(&pl, 0);
            CK(cudaEventRecord(e1, 0));
            watchdog(e1, 20.0);
            CK(cudaEventElapsedTime(&ms[i], e0, e1));
        }
        qsort(ms, reps, sizeof ms[0], cmp_float);
        float med = ms[reps / 2];
        printf("    v%d %-34s %-22s %-8s %8.3f ms %7.1f TFLOP/s\n", vi + 1, cs->name, pl.tile, status, med,
               conv_flops(v) / (med * 1e-3) / 1e12);
        if (g_err_read())
            printf("      (a timed run hit the mbarrier timeout)\n");
    }
out:
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
}

int main(int argc, char **argv)
{
    g_argv = argv;
    int from = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--from") && i + 1 < argc)
            from = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            g_only = from = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            g_reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--small"))
            g_small = 1;
        else {
            printf("usage: %s [--from V] [--only V] [--reps R] [--small]\n", argv[0]);
            return 2;
        }
    }
    if (g_reps < 1)
        g_reps = 1;
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("no CUDA device; nothing to do\n");
        return 77;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
    if (prop.major != 9) {
        printf("needs an sm_90 GPU (wgmma, TMA); nothing to do\n");
        return 0;
    }
    CK(cudaFree(0));

    /* Small cases against the CPU reference: partial M tiles, K not a multiple of the tile,
     * pad 0 / 1 / 2, 5x5, several images per tap tile, beta != 0. */
    static Case small[5];
    printf("small problems (exact integer data, bitwise checks):\n");
    case_init(&small[0], "1x1 n3 7x9 c128 k192 a.5 b.25", conv_make(3, 7, 9, 128, 192, 1, 1, 0, 0.5f, 0.25f), 1);
    case_init(&small[1], "3x3 p1 n2 9x11 c64 k128", conv_make(2, 9, 11, 64, 128, 3, 3, 1, 1.f, 0.f), 1);
    case_init(&small[2], "3x3 p0 n3 10x6 c128 k256 a.5 b.25", conv_make(3, 10, 6, 128, 256, 3, 3, 0, 0.5f, 0.25f), 1);
    case_init(&small[3], "5x5 p2 n5 5x4 c64 k64", conv_make(5, 5, 4, 64, 64, 5, 5, 2, 1.f, 0.f), 1);
    case_init(&small[4], "1x1 n2 9x7 c192 k320 a.5 b.25", conv_make(2, 9, 7, 192, 320, 1, 1, 0, 0.5f, 0.25f), 1);

    /* ResNet-50 NHWC fp16 layers at N = 256 (stride 1), alpha 1, beta 0. */
    static Case layer[7];
    int nlayers = 0;
    if (!g_small) {
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        const struct {
            const char *name;
            Conv v;
        } L[7] = {
            {"3x3 64->64 56x56", conv_make(256, 56, 56, 64, 64, 3, 3, 1, 1.f, 0.f)},
            {"3x3 128->128 28x28", conv_make(256, 28, 28, 128, 128, 3, 3, 1, 1.f, 0.f)},
            {"3x3 256->256 14x14", conv_make(256, 14, 14, 256, 256, 3, 3, 1, 1.f, 0.f)},
            {"3x3 512->512 7x7", conv_make(256, 7, 7, 512, 512, 3, 3, 1, 1.f, 0.f)},
            {"1x1 256->64 56x56", conv_make(256, 56, 56, 256, 64, 1, 1, 0, 1.f, 0.f)},
            {"1x1 64->256 56x56", conv_make(256, 56, 56, 64, 256, 1, 1, 0, 1.f, 0.f)},
            {"1x1 1024->256 14x14", conv_make(256, 14, 14, 1024, 256, 1, 1, 0, 1.f, 0.f)},
        };
        printf("ResNet-50 layers, N=256 (reference: naive GPU kernel):\n");
        for (int i = 0; i < 7; i++) {
            CK(cudaEventRecord(e0, 0));
            case_init(&layer[i], L[i].name, L[i].v, 0);
            CK(cudaEventRecord(e1, 0));
            watchdog(e1, 60.0);
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            printf("  %-34s %.1f GFLOP, reference + setup %.1f ms\n", L[i].name, conv_flops(L[i].v) / 1e9, ms);
            nlayers++;
        }
        CK(cudaEventDestroy(e0));
        CK(cudaEventDestroy(e1));
    }

    for (int vi = from - 1; vi < NVERSIONS; vi++) {
        if (vi < 0)
            continue;
        g_cur_version = vi + 1;
        printf("%s\n", versions[vi].name);
        for (int i = 0; i < 5; i++)
            run_case(vi, &small[i], 0);
        for (int i = 0; i < nlayers; i++)
            run_case(vi, &layer[i], 1);
        fflush(stdout);
        if (g_only)
            break;
    }
    printf("done\n");
    return 0;
}
