/* SPDX-License-Identifier: MIT */
/*
 * conv_smallc.cu - tensor-core convolution for few input channels (C = 1..4: DeepBench's speech
 * layers, C = 1 with 5x20 / 5x5 / 3x3 filters, and the RGB stems, C = 3), all three directions.
 * Rows (src/impls.def, ahead of the channel-padding rows of conv_tc_pad.cu, which pad C to 8 per
 * tap: 8x the MMA work and reduction length for C = 1, plus the copies):
 *   fd_conv_fwd_smallc         FWD IMPLICIT_GEMM, IMPLICIT_PRECOMP_GEMM   no workspace
 *   fd_conv_bwd_data_smallc    BWD_DATA ALGO_0, ALGO_1                    no workspace
 *   fd_conv_bwd_filter_smallc  BWD_FILTER ALGO_1, ALGO_3                  split partials
 *
 * The reduction axis is the flattened (r, s, c) of the filter in its memory-tap order, kk =
 * (r * S + s) * C + c, of length R*S*C padded once to the mma k (16 for HALF / BFLOAT16 on
 * m16n8k16, 8 for FLOAT as TF32 on m16n8k8), not C padded per tap. A per-kk table in shared
 * memory (built by each block: x offset of (c, tap), the tap's (dh, dw) window offset, the
 * filter offset) turns a (pixel, kk) pair into one predicated scalar load, so any x / y layout
 * (NCHW or NHWC: C is tiny) and any filter layout (KRSC, KCRS, any strides) are read in place,
 * with no copies and no alignment needs. CUDNN_CONVOLUTION reads the tap flipped in the table.
 *
 * Forward: y[m, k] = sum_kk A[m, kk] B[kk, k], m = (n, p, q): 128 pixels x BN (32 or 64, by K)
 * outputs per block, 8 warps of 16 pixels x BN; the reduction in chunks of 64 bytes (32 16-bit
 * elements or 16 floats: two mma k-steps) gathered by the threads into a double-buffered
 * [row][chunk + 16 bytes] tile (80-byte rows: the fragment loads' 8 rows x 4 words hit 32
 * distinct banks), one barrier per chunk. Steps past the padded length are skipped.
 * Backward filter: dw[k, kk] = sum_m dy[m, k] X[m, kk], X the forward's gather: 64 k x 64 kk
 * per block, the N*P*Q pixels split into fixed-length ranges (grid.z, a rule of the problem
 * alone: the bits do not depend on the GPU), both operands staged pixel-contiguous ([k][pixel],
 * [kk][pixel]) so the fragments are the forward's; float partials [split][K][R*S*C] in the
 * workspace, summed in split order by a second kernel that blends alpha / beta into dw in its
 * own layout. Deterministic: no atomics.
 *
 * Backward filter over row units (x channel-contiguous with contiguous rows: NHWC, or C = 1;
 * dy NHWC-like): the pixels walked one output-row segment at a time (qt <= 128 16-bit / 64 float
 * pixels), every x value the segment's windows read copied whole into a shared patch [tap
 * row][w][c] (each row of x one contiguous run), the B fragments read from the patch through
 * per-kk offsets plus the pixel's str_w * C (no per-element global gather), dy rows by 16-byte
 * cp.async into [pixel][k] and A by ldmatrix.trans; 64 k x 160 kk per block over a range of
 * units (four warps side by side over kk; over small R*S*C two or four warps share the columns
 * and split the unit's k steps), the gather kernel's partials and reduce; where consecutive
 * output rows share input rows, the rows kept in a ring and each unit copying only its new ones.
 * FREEDNN_SMALLC_ROWS=0 keeps the gather kernel.
 * On the H100 (2026-12-06, docs/perf/gpu-smallc-rows-2026-12-06-h100.md) the ResNet-50 stem's
 * backward filter at N = 256 ran 2.5-2.8x faster in HALF / BFLOAT16 / TF32 than before. A
 * forward over the same units (the filter tile staged once, A gathered from the patch) was
 * tried and ran slower than the forward kernel above on every few-channel DeepBench line and
 * the stem (HALF 1.34 against 1.25 ms at N = 256), so it was not kept.
 *
 * Backward data: dx[m, c] = sum over the valid (tap, k) of dy * w, per warp 64 dx pixels of one
 * row and one residue class of w modulo the stride, so every pixel of the warp has the same
 * valid taps and reads consecutive dy pixels: the A fragments are loaded straight from NHWC dy
 * with 16-byte loads (no shared staging, no barrier in the loop), the mma's n = 8 covers C; the
 * filter is staged once per block in shared memory, transposed to [tap][c][k] (<= 40 KiB). It
 * needs dy channel-contiguous with K and the strides whole 16-byte vectors; dx any layout.
 *
 * Numerics as conv_tc.cu: float accumulation (in another order than ref's), TF32 operands
 * rounded to nearest (cvt.rna) as they leave shared memory, alpha / beta blended in double and
 * rounded once (beta == 0 never reads the output); integer-exact problems give ref's bits.
 * FLOAT data runs only under the TF32 rule (fd_conv_tf32_allowed: FLOAT compute, not FMA_MATH,
 * NVIDIA_TF32_OVERRIDE != 0); the simt rows take the rest. FREEDNN_SMALLC=0 in the environment
 * (read once per process) turns these rows off, so the padding rows stay testable.
 *
 * Templates over the storage type (the operand type of the mma, as conv_tc_kernels.cuh), and
 * over BN for the forward tile width. ptxas sm_90 (nvcc 13, -O2), registers, 0 spills: forward
 * BN 32 / 64: f16 and bf16 86 / 96, tf32 64 / 80 (2 blocks of 256 per SM); backward filter
 * 72 / 72 / 71, its reduce 32; backward data 80 (3 blocks per SM; sm_80: 90, 2 blocks); the
 * row-unit backward filter 166 (128 threads, 3 blocks per SM; sm_80 167).
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_cuda.cuh"
#include "sm80_async.cuh"

#define SC_BM 128       /* forward: pixels per block */
#define SC_THREADS 256  /* 8 warps */
#define SC_KRMAX 512    /* largest R*S*C (the forward's shared tables) */
#define SC_WT 64        /* backward filter: k and kk per block */
#define SC_SPLIT_ROWS 32 /* backward filter splits are multiples of this many pixels */
#define SC_FAR (-(1 << 29)) /* a window origin no tap offset brings inside */

/* The problem as the kernels read it: 2-d (1-d has H = 1), element strides N, C, H, W. */
typedef struct {
    int n, c, k, h, w, p, q, r, s;
    int pad_h, pad_w, str_h, str_w, dil_h, dil_w, cross;
    int kred, kpad; /* R*S*C, and padded to the mma k */
    int64_t m;      /* N*P*Q */
    int64_t xs[4], ys[4], ws[4];
} sc_geom_t;

/* ---- element traits ------------------------------------------------------------------------ */

template <typename T> struct sc_traits;

template <> struct sc_traits<__half> {
    typedef unsigned short bits;
    enum { KC = 32, KSTEP = 16 };
    static __device__ __forceinline__ void mma(float *d, const unsigned *a, const unsigned *b)
    {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    static __device__ __forceinline__ unsigned op(unsigned v) { return v; }
    static __device__ __forceinline__ float ld(const __half *p) { return __half2float(*p); }
    static __device__ __forceinline__ __half from_double(double v) { return __double2half(v); }
};

template <> struct sc_traits<__nv_bfloat16> {
    typedef unsigned short bits;
    enum { KC = 32, KSTEP = 16 };
    static __device__ __forceinline__ void mma(float *d, const unsigned *a, const unsigned *b)
    {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    static __device__ __forceinline__ unsigned op(unsigned v) { return v; }
    static __device__ __forceinline__ float ld(const __nv_bfloat16 *p) { return __bfloat162float(*p); }
    static __device__ __forceinline__ __nv_bfloat16 from_double(double v) { return __double2bfloat16(v); }
};

template <> struct sc_traits<float> {
    typedef unsigned bits;
    enum { KC = 16, KSTEP = 8 };
    static __device__ __forceinline__ void mma(float *d, const unsigned *a, const unsigned *b)
    {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    /* TF32: to nearest, ties away from zero, as cuBLAS and conv_tc.cu round */
    static __device__ __forceinline__ unsigned op(unsigned v)
    {
        unsigned r;
        asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(__uint_as_float(v)));
        return r;
    }
    static __device__ __forceinline__ float ld(const float *p) { return *p; }
    static __device__ __forceinline__ float from_double(double v) { return (float)v; }
};

/* Row stride of a staged tile in 32-bit words: 64 bytes of data + 16 of padding, so a
 * fragment load (8 rows x 4 consecutive words) touches 32 distinct banks. */
#define SC_LDW 20
/* ... in elements of T */
#define SC_LD(T) (SC_LDW * 4 / (int)sizeof(T))

/* One mma k-step's fragments from two staged tiles of 80-byte rows (a: rows ar.., b: rows
 * br..; word index ks * 8 = the step's first 32 bytes). For 16-bit data word (row, j) holds the
 * k pair 2j, 2j + 1; for float word j is k j: both give the m16n8k16 / m16n8k8 layouts
 * a = (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4), b = (n g, t), (n g, t + 4) in words. */
template <typename T>
static __device__ __forceinline__ void sc_frag(unsigned *a, const unsigned *ta, int ar, int ks, int lane)
{
    const int g = lane >> 2, t = lane & 3;
    const unsigned *p = ta + (ar + g) * SC_LDW + ks * 8 + t;
    a[0] = sc_traits<T>::op(p[0]);
    a[1] = sc_traits<T>::op(p[8 * SC_LDW]);
    a[2] = sc_traits<T>::op(p[4]);
    a[3] = sc_traits<T>::op(p[8 * SC_LDW + 4]);
}

template <typename T>
static __device__ __forceinline__ void sc_frag_b(unsigned *b, const unsigned *tb, int br, int ks, int lane)
{
    const unsigned *p = tb + (br + (lane >> 2)) * SC_LDW + ks * 8 + (lane & 3);
    b[0] = sc_traits<T>::op(p[0]);
    b[1] = sc_traits<T>::op(p[4]);
}

/* The reduction index kk = (r * S + s) * C + c (memory taps) as the gather reads it: *xo the
 * x offset of (c, logical tap), *d the tap's window offset (dh | dw << 16), *wo the filter
 * offset of (c, memory tap). */
static __device__ __forceinline__ void sc_tap(const sc_geom_t &g, int kk, int *xo, int *d, int *wo)
{
    const int c = kk % g.c, tap = kk / g.c;
    const int sm = tap % g.s, rm = tap / g.s;
    const int tr = g.cross ? rm : g.r - 1 - rm, ts = g.cross ? sm : g.s - 1 - sm;
    const int dh = tr * g.dil_h, dw = ts * g.dil_w;
    *xo = (int)(c * g.xs[1] + dh * g.xs[2] + dw * g.xs[3]);
    *d = dh | (dw << 16);
    *wo = (int)(c * g.ws[1] + rm * g.ws[2] + sm * g.ws[3]);
}

/* Pixel m = (n, p, q) of the output grid: x offset of its window origin (h0, w0), and y's. */
static __device__ __forceinline__ void sc_pixel(const sc_geom_t &g, int64_t m, int64_t *xb, int *h0,
                                                int *w0, int64_t *yb)
{
    const int q = (int)(m % g.q);
    const int64_t t = m / g.q;
    const int p = (int)(t % g.p);
    const int64_t n = t / g.p;
    *h0 = p * g.str_h - g.pad_h;
    *w0 = q * g.str_w - g.pad_w;
    *xb = n * g.xs[0] + (int64_t)*h0 * g.xs[2] + (int64_t)*w0 * g.xs[3];
    *yb = n * g.ys[0] + (int64_t)p * g.ys[2] + (int64_t)q * g.ys[3];
}

/* ---- forward ----------------------------------------------------------------------------- */

template <typename T, int BN>
static __global__ void __launch_bounds__(SC_THREADS, 2)
conv_fwd_smallc(const __grid_constant__ sc_geom_t g, const T *__restrict__ x, const T *__restrict__ w,
                T *__restrict__ y, double alpha, double beta)
{
    typedef typename sc_traits<T>::bits B;
    enum { KC = sc_traits<T>::KC, KSTEP = sc_traits<T>::KSTEP, RSTEP = SC_THREADS / KC };
    __shared__ __align__(16) B sa[2][SC_BM * SC_LD(T)];
    __shared__ __align__(16) B sb[2][BN * SC_LD(T)];
    __shared__ int tab_x[SC_KRMAX], tab_d[SC_KRMAX], tab_w[SC_KRMAX];
    __shared__ int64_t pix_x[SC_BM], pix_y[SC_BM];
    __shared__ int pix_h[SC_BM], pix_w[SC_BM];

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int64_t m0 = (int64_t)blockIdx.x * SC_BM;
    const int k0 = blockIdx.y * BN;
    for (int i = tid; i < g.kred; i += SC_THREADS)
        sc_tap(g, i, &tab_x[i], &tab_d[i], &tab_w[i]);
    if (tid < SC_BM) {
        const int64_t m = m0 + tid;
        int64_t xb = 0, yb = 0;
        int h0 = SC_FAR, w0 = SC_FAR;
        if (m < g.m)
            sc_pixel(g, m, &xb, &h0, &w0, &yb);
        pix_x[tid] = xb, pix_y[tid] = yb, pix_h[tid] = h0, pix_w[tid] = w0;
    }
    __syncthreads();

    const B *xb = (const B *)x, *wb = (const B *)w;
    const int kl = tid % KC, r0 = tid / KC;
    /* chunk ch of the reduction into buffer buf: this thread's column kl, rows r0 + j RSTEP */
    auto gather = [&](int ch, int buf) {
        const int kk = ch * KC + kl;
        int xo = 0, dh = SC_FAR, dw = 0, wo = 0;
        if (kk < g.kred) {
            const int d = tab_d[kk];
            xo = tab_x[kk], dh = d & 0xffff, dw = d >> 16, wo = tab_w[kk];
        }
        B va[SC_BM / RSTEP];
#pragma unroll
        for (int j = 0; j < SC_BM / RSTEP; j++) {
            const int row = r0 + j * RSTEP;
            const int h = pix_h[row] + dh, ww = pix_w[row] + dw;
            va[j] = (unsigned)h < (unsigned)g.h && (unsigned)ww < (unsigned)g.w ? xb[pix_x[row] + xo] : (B)0;
        }
        B vb[BN / RSTEP];
#pragma unroll
        for (int j = 0; j < BN / RSTEP; j++) {
            const int kabs = k0 + r0 + j * RSTEP;
            vb[j] = kk < g.kred && kabs < g.k ? wb[(int64_t)kabs * g.ws[0] + wo] : (B)0;
        }
#pragma unroll
        for (int j = 0; j < SC_BM / RSTEP; j++)
            sa[buf][(r0 + j * RSTEP) * SC_LD(T) + kl] = va[j];
#pragma unroll
        for (int j = 0; j < BN / RSTEP; j++)
            sb[buf][(r0 + j * RSTEP) * SC_LD(T) + kl] = vb[j];
    };

    float acc[BN / 8][4];
#pragma unroll
    for (int ni = 0; ni < BN / 8; ni++)
        acc[ni][0] = acc[ni][1] = acc[ni][2] = acc[ni][3] = 0.0f;

    const int nch = (g.kpad + KC - 1) / KC;
    gather(0, 0);
    __syncthreads();
    for (int ch = 0; ch < nch; ch++) {
        if (ch + 1 < nch)
            gather(ch + 1, (ch + 1) & 1);
        const unsigned *ta = (const unsigned *)sa[ch & 1], *tb = (const unsigned *)sb[ch & 1];
#pragma unroll
        for (int ks = 0; ks < KC / KSTEP; ks++) {
            if (ch * KC + ks * KSTEP >= g.kpad)
                break;
            unsigned af[4];
            sc_frag<T>(af, ta, warp * 16, ks, lane);
#pragma unroll
            for (int ni = 0; ni < BN / 8; ni++) {
                unsigned bf[2];
                sc_frag_b<T>(bf, tb, ni * 8, ks, lane);
                sc_traits<T>::mma(acc[ni], af, bf);
            }
        }
        __syncthreads();
    }

    /* epilogue: c0, c1 = (row g, cols 2t, 2t + 1), c2, c3 = row g + 8 */
#pragma unroll
    for (int half = 0; half < 2; half++) {
        const int row = warp * 16 + (lane >> 2) + 8 * half;
        if (m0 + row >= g.m)
            continue;
        T *yr = y + pix_y[row];
#pragma unroll
        for (int ni = 0; ni < BN / 8; ni++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const int col = k0 + ni * 8 + (lane & 3) * 2 + e;
                if (col >= g.k)
                    continue;
                T *py = yr + (int64_t)col * g.ys[1];
                double v = alpha * (double)acc[ni][2 * half + e];
                if (beta != 0.0)
                    v += beta * (double)sc_traits<T>::ld(py);
                *py = sc_traits<T>::from_double(v);
            }
    }
}

/* ---- backward filter ----------------------------------------------------------------------- */

/* Partials of one pixel range (blockIdx.z) for a 64 k x 64 kk tile: part[z][k][kk]. */
template <typename T>
static __global__ void __launch_bounds__(SC_THREADS, 2)
conv_bwd_filter_smallc(const __grid_constant__ sc_geom_t g, const T *__restrict__ x,
                       const T *__restrict__ dy, float *__restrict__ part, int64_t split_len)
{
    typedef typename sc_traits<T>::bits B;
    enum { PC = sc_traits<T>::KC, KSTEP = sc_traits<T>::KSTEP, RSTEP = SC_THREADS / PC };
    __shared__ __align__(16) B sx[2][SC_WT * SC_LD(T)];  /* [kk][pixel] */
    __shared__ __align__(16) B sdy[2][SC_WT * SC_LD(T)]; /* [k][pixel] */
    __shared__ int tab_x[SC_WT], tab_d[SC_WT];

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int j0 = blockIdx.x * SC_WT, k0 = blockIdx.y * SC_WT;
    const int64_t mbeg = (int64_t)blockIdx.z * split_len;
    const int64_t mend = mbeg + split_len < g.m ? mbeg + split_len : g.m;
    if (tid < SC_WT) {
        int xo = 0, d = 0, wo = 0; /* rows past R*S*C: masked by row < nj in the gather */
        if (j0 + tid < g.kred)
            sc_tap(g, j0 + tid, &xo, &d, &wo);
        tab_x[tid] = xo, tab_d[tid] = d;
    }
    __syncthreads();

    const B *xb = (const B *)x, *dyb = (const B *)dy;
    const int pl = tid % PC, r0 = tid / PC;
    const int nk = g.k - k0 < SC_WT ? g.k - k0 : SC_WT;     /* k rows of this tile */
    const int nj = g.kred - j0 < SC_WT ? g.kred - j0 : SC_WT; /* kk rows */
    auto gather = [&](int64_t ch, int buf) {
        const int64_t m = mbeg + ch * PC + pl;
        int64_t xp = 0, yp = 0;
        int h0 = SC_FAR, w0 = SC_FAR;
        const int ok = m < mend;
        if (ok)
            sc_pixel(g, m, &xp, &h0, &w0, &yp);
        B vx[SC_WT / RSTEP], vy[SC_WT / RSTEP];
#pragma unroll
        for (int j = 0; j < SC_WT / RSTEP; j++) {
            const int row = r0 + j * RSTEP;
            const int d = tab_d[row];
            const int h = h0 + (d & 0xffff), ww = w0 + (d >> 16);
            vx[j] = row < nj && (unsigned)h < (unsigned)g.h && (unsigned)ww < (unsigned)g.w
                        ? xb[xp + tab_x[row]]
                        : (B)0;
            vy[j] = ok && row < nk ? dyb[yp + (int64_t)(k0 + row) * g.ys[1]] : (B)0;
        }
#pragma unroll
        for (int j = 0; j < SC_WT / RSTEP; j++) {
            sx[buf][(r0 + j * RSTEP) * SC_LD(T) + pl] = vx[j];
            sdy[buf][(r0 + j * RSTEP) * SC_LD(T) + pl] = vy[j];
        }
    };

    /* warp: k rows wm * 16 (one m16 tile), kk columns wn * 32 (four n8 tiles) */
    const int wm = warp & 3, wn = warp >> 2;
    float acc[4][4];
#pragma unroll
    for (int ni = 0; ni < 4; ni++)
        acc[ni][0] = acc[ni][1] = acc[ni][2] = acc[ni][3] = 0.0f;
    const int64_t nch = mend > mbeg ? (mend - mbeg + PC - 1) / PC : 0;
    if (nch > 0) {
        gather(0, 0);
        __syncthreads();
    }
    for (int64_t ch = 0; ch < nch; ch++) {
        if (ch + 1 < nch)
            gather(ch + 1, (int)((ch + 1) & 1));
        const unsigned *ta = (const unsigned *)sdy[ch & 1], *tb = (const unsigned *)sx[ch & 1];
#pragma unroll
        for (int ks = 0; ks < PC / KSTEP; ks++) {
            unsigned af[4];
            sc_frag<T>(af, ta, wm * 16, ks, lane);
#pragma unroll
            for (int ni = 0; ni < 4; ni++) {
                unsigned bf[2];
                sc_frag_b<T>(bf, tb, wn * 32 + ni * 8, ks, lane);
                sc_traits<T>::mma(acc[ni], af, bf);
            }
        }
        __syncthreads();
    }
    float *out = part + (int64_t)blockIdx.z * g.k * g.kred;
#pragma unroll
    for (int half = 0; half < 2; half++) {
        const int k = k0 + wm * 16 + (lane >> 2) + 8 * half;
        if (k >= g.k)
            continue;
#pragma unroll
        for (int ni = 0; ni < 4; ni++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const int j = j0 + wn * 32 + ni * 8 + (lane & 3) * 2 + e;
                if (j < g.kred)
                    out[(int64_t)k * g.kred + j] = acc[ni][2 * half + e];
            }
    }
}

/* dw[k, kk] = alpha * (the splits summed in split order) + beta * dw, in dw's own layout. */
template <typename T>
static __global__ void conv_bwd_filter_smallc_reduce(const __grid_constant__ sc_geom_t g,
                                                     const float *__restrict__ part, int splits,
                                                     T *__restrict__ dw, double alpha, double beta)
{
    const int64_t total = (int64_t)g.k * g.kred;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        float sum = 0.0f;
        for (int z = 0; z < splits; z++)
            sum += part[(int64_t)z * total + e];
        const int k = (int)(e / g.kred), kk = (int)(e % g.kred);
        int xo, d, wo;
        sc_tap(g, kk, &xo, &d, &wo);
        T *p = dw + (int64_t)k * g.ws[0] + wo;
        double v = alpha * (double)sum;
        if (beta != 0.0)
            v += beta * (double)sc_traits<T>::ld(p);
        *p = sc_traits<T>::from_double(v);
    }
}

/* ---- backward filter over output-row units (channel-contiguous x and dy) -------------------- */

/* The other backward filter kernel: dw[k, kk] = sum_m dy[m, k] X[m, kk] as above, but the
 * reduction is walked in units of one output row segment (n, p, q0 .. q0 + qt): its dy pixels
 * are one contiguous run of rows in NHWC (16-byte cp.async copies into [pixel][k] rows of
 * SCR_LDY elements: 144 / 288 bytes, so the ldmatrix.trans phases and the float fragment loads
 * touch distinct banks), and every x value the unit's windows read is one patch of R rows x
 * ((qt - 1) str_w + (S - 1) dil_w + 1) pixels x C channels, copied whole (each row of x
 * contiguous, zeros outside the image) into [tap row][w][c]. The B fragments are read from the
 * patch through a per-column offset (logical tap row * row length + logical tap column * dil_w
 * * C + c) plus the pixel's str_w * C: no table, no per-element global gather, and x is read
 * from global memory once per tap row instead of once per (kk tile, tap, channel). Ring mode
 * (RING; where consecutive output rows share input rows, str_h < (R - 1) dil_h + 1, and P > 1):
 * units are ordered (n, seg, p), so a block walks the same columns down consecutive output rows,
 * and the input rows live in a ring of span + str_h slots (span = (R - 1) dil_h + 1) with its
 * first span - 1 slots repeated after the last, so a unit's rows are consecutive slots from its
 * first row's and the B offsets are the patch's plus one base per unit; a unit copies only the
 * str_h rows the one before did not read (the 7x7 stride-2 stem: 2 of 7 rows), into slots the
 * running unit does not read, and a unit that starts another run of rows copies all its rows
 * after a barrier. The A fragments are dy transposed: ldmatrix.trans for 16-bit data, 32-bit
 * loads for floats.
 * Block: 64 k x 40 WN kk, 4 warps of 64 k x 40 kk (4 m16 x 5 n8 tiles; tiles past R*S*C
 * skipped): WN = 4 warps side by side over kk where R*S*C > 80; where it is smaller (3x3 filters
 * of 1-4 channels, 5x5 of one) WR = 4 / WN warps share the kk columns and take every WR-th mma k
 * step of a unit instead, their sums added in warp order at the end (WR = 1 left three warps of
 * four idle on R*S*C <= 40). Its range of units (blockIdx.z) double-buffered: the next unit's
 * dy copies fly during this unit's mma, its x rows are copied after them. FREEDNN_SMALLC_ROWS_RING=0
 * copies a whole patch a unit, FREEDNN_SMALLC_ROWS_SHARE=0 keeps WR = 1 (A / B switches). Pixels
 * past the row's end and kk past R*S*C read
 * as zero (masks on the B words, zero-filled dy rows), so non-finite x seen only by them cannot
 * reach dw. The partials are the other kernel's ([split][K][R*S*C] floats, summed in split
 * order by conv_bwd_filter_smallc_reduce): deterministic. */
#define SCR_THREADS 128
#define SCR_NT 5                    /* n8 tiles per warp */
#define SCR_WJ (SCR_NT * 8)         /* kk columns per warp: 40 */
#define SCR_BJ(wr) (4 / (wr) * SCR_WJ) /* kk columns per block: 160 / 80 / 40 */
#define SCR_BK 64                   /* k rows per block */
#define SCR_LDY 72                  /* staged dy row stride, elements */
#define SCR_SMEM_MAX (72 * 1024)    /* dynamic shared memory cap: three blocks an SM */
#define SCR_BLOCKS 396              /* target grid: 3 blocks x 132 SMs (a fixed rule: bits) */
#define SCR_XR 32                   /* patch elements a thread loads ahead (registers; 40 spill) */
#define SCR_XR_RING 16              /* ring mode's: the str_h new rows of a unit are fewer */

typedef struct {
    int qt;            /* pixels per unit: a multiple of the mma k, <= SCR_QMAX(T) */
    int segs;          /* units per output row */
    int rw;            /* elements of one patch row: ((qt - 1) str_w + (S - 1) dil_w + 1) C */
    int patch;         /* elements of one patch buffer: R rw rounded up to 8 */
    int64_t units;     /* N P segs */
    int64_t per_split; /* units per blockIdx.z */
    int splits;
    int wr;            /* warps sharing a block's kk columns (the kernel's WR): 1, 2 or 4 */
    int ring;          /* 1: input rows kept in a ring (below), units ordered (n, seg, p) */
    int span;          /* input rows one output row's windows span: (R - 1) dil_h + 1 */
    int nr;            /* ring slots: span + str_h */
} scr_plan_t;

/* pixels per unit at most: 128 16-bit (8 k16 steps), 64 floats (8 k8 steps) */
#define SCR_QMAX(es) ((es) == 2 ? 128 : 64)

/* unit u: image n, output row p, first pixel q0, count pixels; units are ordered (n, p, seg),
 * or (n, seg, p) in ring mode, where consecutive units of a block are the same columns of
 * consecutive output rows */
template <bool RING>
static __device__ __forceinline__ void scr_unit(const sc_geom_t &g, const scr_plan_t &pl, int64_t u,
                                                int *n, int *p, int *q0, int *count)
{
    int seg;
    if (RING) {
        *p = (int)(u % g.p);
        const int64_t t = u / g.p;
        seg = (int)(t % pl.segs), *n = (int)(t / pl.segs);
    } else {
        seg = (int)(u % pl.segs);
        const int64_t t = u / pl.segs;
        *p = (int)(t % g.p), *n = (int)(t / g.p);
    }
    *q0 = seg * pl.qt;
    *count = g.q - *q0 < pl.qt ? g.q - *q0 : pl.qt;
}

/* rows of x to copy into shared memory: nrows input rows h0 + r hstep (r < nrows) of image n, each
 * the rw elements from column w0 on, element f = r rw + e stored at dst[start + f] wrapped at
 * wrap elements (and again wrap elements further where that is below dup) */
struct scr_rows_t {
    int64_t xo; /* element (n, 0, w0, 0) */
    int h0, hstep, nrows, lo, hi, nel, start, wrap, dup;
};

/* The tap rows of unit u (the patch: R rows h0 + r dil_h into one buffer), or in ring mode its
 * rows from h0 + first (first = 0: all span rows; span - str_h: the rows the unit before did not
 * read) into the ring, where input row h lives at slot h mod nr (rw elements a slot) and the
 * first span - 1 slots again after the last: a unit's rows are then consecutive slots from its
 * first row's, read through one base offset with no wrap. */
template <bool RING>
static __device__ __forceinline__ scr_rows_t scr_rows(const sc_geom_t &g, const scr_plan_t &pl,
                                                      int64_t u, int first)
{
    int n, p, q0, count;
    scr_unit<RING>(g, pl, u, &n, &p, &q0, &count);
    const int w0 = q0 * g.str_w - g.pad_w;
    scr_rows_t rs;
    rs.xo = (int64_t)n * g.xs[0] + (int64_t)w0 * g.c;
    rs.lo = -w0 * g.c, rs.hi = (g.w - w0) * g.c; /* row elements inside the image */
    rs.h0 = p * g.str_h - g.pad_h + first;
    if (RING) {
        rs.hstep = 1, rs.nrows = pl.span - first;
        rs.start = ((rs.h0 % pl.nr) + pl.nr) % pl.nr * pl.rw;
        rs.wrap = pl.nr * pl.rw, rs.dup = (pl.span - 1) * pl.rw;
    } else {
        rs.hstep = g.dil_h, rs.nrows = g.r;
        rs.start = 0, rs.wrap = 1 << 30, rs.dup = 0;
    }
    rs.nel = rs.nrows * pl.rw;
    return rs;
}

/* Elements f = base + tid + j * SCR_THREADS (j < XR) of rows rs: loaded into registers (zeros
 * outside the image) and stored apart, so the first chunk's loads can fly during the unit
 * before. */
template <typename B, int XR, bool RING>
static __device__ __forceinline__ void scr_x_load(const sc_geom_t &g, const scr_plan_t &pl,
                                                  const B *__restrict__ x, int64_t u, int first,
                                                  int base, int tid, B *v)
{
    const scr_rows_t rs = scr_rows<RING>(g, pl, u, first);
    int r = (base + tid) / pl.rw, e = base + tid - r * pl.rw;
#pragma unroll
    for (int j = 0; j < XR; j++) {
        B val = (B)0;
        const int h = rs.h0 + r * rs.hstep;
        if (r < rs.nrows && (unsigned)h < (unsigned)g.h && e >= rs.lo && e < rs.hi)
            val = x[rs.xo + (int64_t)h * g.xs[2] + e];
        v[j] = val;
        e += SCR_THREADS;
        while (e >= pl.rw)
            e -= pl.rw, r++;
    }
}

template <typename B, int XR, bool RING>
static __device__ __forceinline__ void scr_x_store(const sc_geom_t &g, const scr_plan_t &pl, B *dst,
                                                   int64_t u, int first, int base, int tid,
                                                   const B *v)
{
    const scr_rows_t rs = scr_rows<RING>(g, pl, u, first);
#pragma unroll
    for (int j = 0; j < XR; j++) {
        const int f = base + tid + j * SCR_THREADS;
        if (f < rs.nel) {
            int o = rs.start + f;
            if (o >= rs.wrap)
                o -= rs.wrap;
            dst[o] = v[j];
            if (o < rs.dup)
                dst[o + rs.wrap] = v[j];
        }
    }
}

/* the rest of the rows, after the first chunk (each call makes the rows' plan again: fewer
 * registers live beside the accumulators) */
template <typename B, int XR, bool RING>
static __device__ __forceinline__ void scr_x_rest(const sc_geom_t &g, const scr_plan_t &pl,
                                                  const B *__restrict__ x, int64_t u, int first,
                                                  B *dst, int tid, B *v)
{
    const int nel = scr_rows<RING>(g, pl, u, first).nel;
    for (int base = XR * SCR_THREADS; base < nel; base += XR * SCR_THREADS) {
        scr_x_load<B, XR, RING>(g, pl, x, u, first, base, tid, v);
        scr_x_store<B, XR, RING>(g, pl, dst, u, first, base, tid, v);
    }
}

template <typename T, int WR, bool RING>
static __global__ void __launch_bounds__(SCR_THREADS, 3)
conv_bwd_filter_smallc_rows(const __grid_constant__ sc_geom_t g, const __grid_constant__ scr_plan_t pl,
                            const T *__restrict__ x, const T *__restrict__ dy,
                            float *__restrict__ part)
{
    typedef typename sc_traits<T>::bits B;
    enum { KSTEP = sc_traits<T>::KSTEP, QMAX = SCR_QMAX(sizeof(T)), VEC = 16 / (int)sizeof(T),
           VPR = SCR_BK / VEC, XR = RING ? SCR_XR_RING : SCR_XR, WN = 4 / WR };
    extern __shared__ __align__(16) unsigned char scr_smem[];
    B *sdy = (B *)scr_smem;                /* [2][QMAX][SCR_LDY]: [pixel][k] */
    B *spx = sdy + 2 * QMAX * SCR_LDY;     /* [2][patch]: [tap row][w][c] */

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int gq = lane >> 2, tq = lane & 3;
    const int wn = warp % WN, wr = warp / WN; /* this warp's kk columns, its share of the k steps */
    const int j0 = blockIdx.x * SCR_BJ(WR) + wn * SCR_WJ, k0 = blockIdx.y * SCR_BK;
    const int64_t ubeg = (int64_t)blockIdx.z * pl.per_split;
    const int64_t uend = ubeg + pl.per_split < pl.units ? ubeg + pl.per_split : pl.units;
    const int pstep = g.str_w * g.c; /* patch elements from one pixel to the next */

    /* this thread's B column in each n8 tile: patch offset, and a mask zeroing kk >= R*S*C */
    int boff[SCR_NT];
    unsigned bmask[SCR_NT];
#pragma unroll
    for (int i = 0; i < SCR_NT; i++) {
        const int j = j0 + i * 8 + gq;
        boff[i] = 0, bmask[i] = 0u;
        if (j < g.kred) {
            const int c = j % g.c, tap = j / g.c;
            const int sm = tap % g.s, rm = tap / g.s;
            const int tr = g.cross ? rm : g.r - 1 - rm, ts = g.cross ? sm : g.s - 1 - sm;
            boff[i] = (RING ? tr * g.dil_h : tr) * pl.rw + ts * g.dil_w * g.c + c;
            bmask[i] = ~0u;
        }
    }
    const int nm = (g.k - k0 + 15) / 16; /* m16 tiles holding some k < K (>= 4: all) */

    float acc[4][SCR_NT][4];
#pragma unroll
    for (int mi = 0; mi < 4; mi++)
#pragma unroll
        for (int i = 0; i < SCR_NT; i++)
            acc[mi][i][0] = acc[mi][i][1] = acc[mi][i][2] = acc[mi][i][3] = 0.0f;

    /* dy rows of unit u into buffer b: 16-byte copies, zeros past count pixels and past K */
    auto copy_dy = [&](int64_t u, int b) {
        int n, p, q0, count;
        scr_unit<RING>(g, pl, u, &n, &p, &q0, &count);
        const T *row0 = dy + (int64_t)n * g.ys[0] + (int64_t)p * g.ys[2] + (int64_t)q0 * g.ys[3] + k0;
        B *dst = sdy + b * QMAX * SCR_LDY;
        for (int v = tid; v < pl.qt * VPR; v += SCR_THREADS) {
            const int row = v / VPR, cv = v % VPR;
            const int ok = row < count && k0 + cv * VEC < g.k;
            tc_cp_async16(dst + row * SCR_LDY + cv * VEC, ok ? row0 + (int64_t)row * g.ys[3] + cv * VEC : dy, ok);
        }
    };
    const B *xb = (const B *)x;

    B xv[XR];
    int64_t u = ubeg;
    if (u < uend) {
        copy_dy(u, 0);
        tc_cp_async_commit();
        scr_x_load<B, XR, RING>(g, pl, xb, u, 0, 0, tid, xv);
        scr_x_store<B, XR, RING>(g, pl, spx, u, 0, 0, tid, xv);
        scr_x_rest<B, XR, RING>(g, pl, xb, u, 0, spx, tid, xv);
        TC_CP_ASYNC_WAIT(0);
        __syncthreads();
    }
    for (int b = 0; u < uend; u++, b ^= 1) {
        /* the next unit's x: its whole patch into the other buffer; in ring mode the rows the
         * next output row adds (its str_h last rows) into slots this unit does not read, or,
         * where the next unit starts another run of rows, all its rows after this unit's mma */
        const bool more = u + 1 < uend, cont = more && RING && (u + 1) % g.p != 0;
        const int first = cont ? pl.span - g.str_h : 0;
        if (more) {
            copy_dy(u + 1, b ^ 1);
            if (!RING || cont)
                scr_x_load<B, XR, RING>(g, pl, xb, u + 1, first, 0, tid, xv);
        }
        tc_cp_async_commit();
        int n, p, q0, count;
        scr_unit<RING>(g, pl, u, &n, &p, &q0, &count);
        const B *ty = sdy + b * QMAX * SCR_LDY;
        const B *tx = RING ? spx + (((p * g.str_h - g.pad_h) % pl.nr) + pl.nr) % pl.nr * pl.rw
                              : spx + b * pl.patch;
        for (int kb = wr * KSTEP; kb < pl.qt; kb += WR * KSTEP) {
            unsigned af[4][4], m0, m1;
            const int pa = kb + (KSTEP == 16 ? 2 * tq : tq); /* this lane's first pixel */
            if (KSTEP == 16) {
#pragma unroll
                for (int mi = 0; mi < 4; mi++)
                    if (mi < nm)
                        tc_ldmatrix_x4_trans(af[mi], ty + (kb + (lane & 7) + ((lane >> 4) << 3)) * SCR_LDY +
                                                         mi * 16 + ((lane >> 3) & 1) * 8);
                /* pixels pa, pa + 1 (word 0) and pa + 8, pa + 9 (word 1) */
                m0 = (pa < count ? 0xffffu : 0u) | (pa + 1 < count ? 0xffff0000u : 0u);
                m1 = (pa + 8 < count ? 0xffffu : 0u) | (pa + 9 < count ? 0xffff0000u : 0u);
            } else {
                const unsigned *tw = (const unsigned *)ty;
#pragma unroll
                for (int mi = 0; mi < 4; mi++)
                    if (mi < nm) {
                        const unsigned *q = tw + pa * SCR_LDY + mi * 16 + gq;
                        af[mi][0] = sc_traits<T>::op(q[0]);
                        af[mi][1] = sc_traits<T>::op(q[8]);
                        af[mi][2] = sc_traits<T>::op(q[4 * SCR_LDY]);
                        af[mi][3] = sc_traits<T>::op(q[4 * SCR_LDY + 8]);
                    }
                m0 = pa < count ? ~0u : 0u;
                m1 = pa + 4 < count ? ~0u : 0u;
            }
#pragma unroll
            for (int i = 0; i < SCR_NT; i++) {
                if (j0 + i * 8 >= g.kred)
                    continue; /* warp-uniform: the whole n8 tile is past R*S*C */
                const B *col = tx + boff[i] + pa * pstep;
                unsigned bf[2];
                if (KSTEP == 16) {
                    bf[0] = ((unsigned)col[0] | (unsigned)col[pstep] << 16) & m0 & bmask[i];
                    bf[1] = ((unsigned)col[8 * pstep] | (unsigned)col[9 * pstep] << 16) & m1 & bmask[i];
                } else {
                    bf[0] = sc_traits<T>::op((unsigned)col[0]) & m0 & bmask[i];
                    bf[1] = sc_traits<T>::op((unsigned)col[4 * pstep]) & m1 & bmask[i];
                }
#pragma unroll
                for (int mi = 0; mi < 4; mi++)
                    if (mi < nm)
                        sc_traits<T>::mma(acc[mi][i], af[mi], bf);
            }
        }
        if (more) {
            B *dst = RING ? spx : spx + (b ^ 1) * pl.patch;
            if (RING && !cont) {
                __syncthreads(); /* every warp is done with this unit's rows */
                scr_x_load<B, XR, RING>(g, pl, xb, u + 1, 0, 0, tid, xv);
            }
            scr_x_store<B, XR, RING>(g, pl, dst, u + 1, first, 0, tid, xv);
            scr_x_rest<B, XR, RING>(g, pl, xb, u + 1, first, dst, tid, xv);
        }
        TC_CP_ASYNC_WAIT(0);
        __syncthreads();
    }

    if (WR > 1) {
        /* warps wr = 1 .. WR-1 hand their sums to warp wr = 0 of the same columns, which adds
         * them in wr order (the staging buffers are free: the loop ended on a barrier); slot
         * (wr - 1, wn), word (mi, i, e) of lane l at [slot][word][l] */
        float *red = (float *)scr_smem, *av = &acc[0][0][0];
        enum { W = 4 * SCR_NT * 4 };
        if (wr > 0) {
            float *d = red + ((wr - 1) * WN + wn) * W * 32 + lane;
#pragma unroll
            for (int w = 0; w < W; w++)
                d[w * 32] = av[w];
        }
        __syncthreads();
        if (wr > 0)
            return;
        for (int o = 1; o < WR; o++) {
            const float *d = red + ((o - 1) * WN + wn) * W * 32 + lane;
#pragma unroll
            for (int w = 0; w < W; w++)
                av[w] += d[w * 32];
        }
    }
    float *out = part + (int64_t)blockIdx.z * g.k * g.kred;
#pragma unroll
    for (int mi = 0; mi < 4; mi++)
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const int k = k0 + mi * 16 + gq + 8 * half;
            if (k >= g.k)
                continue;
#pragma unroll
            for (int i = 0; i < SCR_NT; i++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    const int j = j0 + i * 8 + 2 * tq + e;
                    if (j < g.kred)
                        out[(int64_t)k * g.kred + j] = acc[mi][i][2 * half + e];
                }
        }
}

/* ---- backward data ------------------------------------------------------------------------- */

/* One warp computes 64 dx pixels of one row h and one residue class of w modulo the stride
 * (w = rw + str_w * (64 jb + j), j = 0..63: four m16 tiles), all C channels (the mma's n = 8,
 * columns >= C zero). Its pixels share every tap's validity, and the dy pixels a tap reads are
 * consecutive q, so the A fragments come straight from NHWC dy with 16-byte loads (lane t of a
 * quad loads channels [8t, 8t + 8) of a 32-channel chunk, 16-bit; [4t, 4t + 4) of 16, float)
 * with no shared-memory staging: the chunk's channels are permuted across the two mma k-steps
 * (word 2j of the vector is a0 of step j, word 2j + 1 a2), and the filter, staged once per
 * block in shared memory as wt[tap][c][K'] (K' = K rounded up to the chunk), is read with the
 * same permutation, so the sum is the same set of products. */
#define SC_DG_TILE 64   /* dx pixels per warp */
#define SC_DG_SMEM 40960 /* bytes of the staged filter */
/* blocks per SM: 3 (80 registers) where ptxas fits the loop without spills (sm_90); sm_80's
 * code needs a few more registers at that cap, so 2 there */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define SC_DG_MINB 2
#else
#define SC_DG_MINB 3
#endif

template <typename T>
static __global__ void __launch_bounds__(SC_THREADS, SC_DG_MINB)
conv_bwd_data_smallc(const __grid_constant__ sc_geom_t g, const T *__restrict__ dy,
                     const T *__restrict__ w, T *__restrict__ dx, int kp, int nj, double alpha, double beta)
{
    enum { E = 16 / (int)sizeof(T), CH = 4 * E };
    __shared__ __align__(16) T wt[SC_DG_SMEM / sizeof(T)];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int taps = g.r * g.s, rows = taps * g.c;
    /* wt[(tr * S + ts) * C + c][k] = w[k, memory tap of (tr, ts), c]; zero for k >= K */
    for (int i = tid; i < rows * kp; i += SC_THREADS) {
        const int k = i % kp, row = i / kp;
        const int c = row % g.c, tap = row / g.c;
        const int ts = tap % g.s, tr = tap / g.s;
        const int rm = g.cross ? tr : g.r - 1 - tr, sm = g.cross ? ts : g.s - 1 - ts;
        wt[i] = k < g.k ? w[(int64_t)k * g.ws[0] + c * g.ws[1] + rm * g.ws[2] + sm * g.ws[3]] : T(0.0f);
    }
    __syncthreads();

    int64_t task = (int64_t)blockIdx.x * (SC_THREADS / 32) + warp;
    const int jb = (int)(task % nj);
    task /= nj;
    const int rw = (int)(task % g.str_w);
    task /= g.str_w;
    const int h = (int)(task % g.h);
    const int64_t n = task / g.h;
    if (n >= g.n)
        return;
    const int gq = lane >> 2, t = lane & 3;
    const int j0 = jb * SC_DG_TILE;
    float acc[4][4];
#pragma unroll
    for (int mt = 0; mt < 4; mt++)
        acc[mt][0] = acc[mt][1] = acc[mt][2] = acc[mt][3] = 0.0f;
    const uint4 zero = make_uint4(0u, 0u, 0u, 0u);

    for (int tr = 0; tr < g.r; tr++) {
        const int pn = h + g.pad_h - tr * g.dil_h;
        if (pn % g.str_h != 0)
            continue;
        const int p = pn / g.str_h;
        if (p < 0 || p >= g.p)
            continue;
        const T *dyrow = dy + n * g.ys[0] + (int64_t)p * g.ys[2];
        for (int ts = 0; ts < g.s; ts++) {
            const int qn = rw + g.pad_w - ts * g.dil_w;
            if (qn % g.str_w != 0)
                continue;
            const int q0 = qn / g.str_w + j0; /* dy column of the tile's pixel j = 0 */
            /* this lane's pixel rows j = mt * 16 + gq + 8 * half = gq + 8 i (i = 2 mt + half)
             * read dy column q0 + gq + 8 i; bit i of okm: inside dy. (The address of a column
             * outside is formed only under its bit.) */
            const int qa = q0 + gq;
            unsigned okm = 0;
#pragma unroll
            for (int i = 0; i < 8; i++)
                okm |= (unsigned)(qa + 8 * i >= 0 && qa + 8 * i < g.q) << i;
            const T *src = dyrow + t * E;
            const T *wrow = wt + ((tr * g.s + ts) * g.c + (gq < g.c ? gq : 0)) * kp + t * E;
            for (int kc = 0; kc < kp; kc += CH) {
                uint4 va[8];
                const int kin = kc + t * E < g.k;
#pragma unroll
                for (int i = 0; i < 8; i++)
                    va[i] = (okm >> i & 1u) && kin
                                ? __ldg((const uint4 *)(src + (int64_t)(qa + 8 * i) * g.ys[3] + kc))
                                : zero;
                const uint4 vb = gq < g.c ? *(const uint4 *)(wrow + kc) : zero;
#pragma unroll
                for (int st = 0; st < 2; st++) {
                    unsigned b[2];
                    b[0] = sc_traits<T>::op(st ? vb.z : vb.x);
                    b[1] = sc_traits<T>::op(st ? vb.w : vb.y);
#pragma unroll
                    for (int mt = 0; mt < 4; mt++) {
                        const uint4 &lo = va[2 * mt], &hi = va[2 * mt + 1];
                        unsigned a[4];
                        a[0] = sc_traits<T>::op(st ? lo.z : lo.x);
                        a[1] = sc_traits<T>::op(st ? hi.z : hi.x);
                        a[2] = sc_traits<T>::op(st ? lo.w : lo.y);
                        a[3] = sc_traits<T>::op(st ? hi.w : hi.y);
                        sc_traits<T>::mma(acc[mt], a, b);
                    }
                }
            }
        }
    }

    /* c0, c1 = (row gq, channels 2t, 2t + 1), c2, c3 = row gq + 8 */
    if (2 * t >= g.c)
        return;
    T *base = dx + n * g.xs[0] + (int64_t)h * g.xs[2];
#pragma unroll
    for (int mt = 0; mt < 4; mt++)
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const int wpos = rw + (j0 + mt * 16 + gq + 8 * half) * g.str_w;
            if (wpos >= g.w)
                continue;
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const int c = 2 * t + e;
                if (c >= g.c)
                    continue;
                T *px = base + (int64_t)wpos * g.xs[3] + (int64_t)c * g.xs[1];
                double v = alpha * (double)acc[mt][2 * half + e];
                if (beta != 0.0)
                    v += beta * (double)sc_traits<T>::ld(px);
                *px = sc_traits<T>::from_double(v);
            }
        }
}

/* ---- the rows ------------------------------------------------------------------------------ */

extern "C" int fd_conv_tf32_allowed(const fd_conv_problem_t *p, char *why, size_t why_size);

/* FREEDNN_SMALLC=0: read once per process (a function-local static, initialised once). */
static int smallc_disabled(void)
{
    static const int off = !fd_env_on("FREEDNN_SMALLC");
    return off;
}

/* What both rows take: HALF / BFLOAT16, or FLOAT under the TF32 rule, for x, w and y; one
 * group; 1 <= C <= 4; 1-d or 2-d; R*S*C <= SC_KRMAX; offsets inside the kernels' int math. */
static int smallc_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    if (smallc_disabled()) {
        snprintf(why, why_size, "FREEDNN_SMALLC=0 in the environment turns the small-C rows off");
        return 0;
    }
    const cudnnDataType_t dt = p->xdt;
    if ((dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16 && dt != CUDNN_DATA_FLOAT) ||
        p->wdt != dt || p->ydt != dt) {
        snprintf(why, why_size, "x/w/y are %s/%s/%s; the small-C rows take HALF, BFLOAT16 or "
                 "FLOAT (as TF32) for all three", fd_dtype_name(p->xdt), fd_dtype_name(p->wdt),
                 fd_dtype_name(p->ydt));
        return 0;
    }
    if (dt == CUDNN_DATA_FLOAT && !fd_conv_tf32_allowed(p, why, why_size))
        return 0;
    if (p->groups != 1 || p->c < 1 || p->c > 4) {
        snprintf(why, why_size, "C = %lld in %lld groups; the small-C rows take 1 to 4 channels "
                 "in one group", (long long)p->c, (long long)p->groups);
        return 0;
    }
    if (p->in[0] != 1 || p->flt[0] != 1 || p->out[0] != 1) {
        snprintf(why, why_size, "a 3-d problem; the small-C rows take 1-d and 2-d");
        return 0;
    }
    const int64_t kred = p->c * p->flt[1] * p->flt[2];
    if (kred > SC_KRMAX) {
        snprintf(why, why_size, "R*S*C = %lld; the small-C rows take at most %d", (long long)kred,
                 SC_KRMAX);
        return 0;
    }
    const int64_t lim = (int64_t)1 << 30;
    const int64_t span_h = (p->flt[1] - 1) * p->dil[1], span_w = (p->flt[2] - 1) * p->dil[2];
    int64_t xo = (p->c - 1) * llabs(p->xs[1]) + span_h * llabs(p->xs[3]) + span_w * llabs(p->xs[4]);
    int64_t wo = (p->c - 1) * llabs(p->ws[1]) + (p->flt[1] - 1) * llabs(p->ws[3]) +
                 (p->flt[2] - 1) * llabs(p->ws[4]);
    int big = span_h >= 32768 || span_w >= 32768 || xo >= lim || wo >= lim || p->k >= lim;
    for (int d = 1; d < 3; d++)
        big |= p->in[d] + p->pad[d] + p->out[d] * p->stride[d] >= lim;
    if (big || (p->n * p->out[1] * p->out[2] + SC_BM - 1) / SC_BM >= 0x7fffffff ||
        (p->k + 63) / 64 > 65535) {
        snprintf(why, why_size, "a size reaches the small-C kernels' index limits");
        return 0;
    }
    return 1;
}

static sc_geom_t sc_geom(const fd_conv_problem_t *p)
{
    sc_geom_t g;
    g.n = (int)p->n, g.c = (int)p->c, g.k = (int)p->k;
    g.h = (int)p->in[1], g.w = (int)p->in[2], g.p = (int)p->out[1], g.q = (int)p->out[2];
    g.r = (int)p->flt[1], g.s = (int)p->flt[2];
    g.pad_h = (int)p->pad[1], g.pad_w = (int)p->pad[2];
    g.str_h = (int)p->stride[1], g.str_w = (int)p->stride[2];
    g.dil_h = (int)p->dil[1], g.dil_w = (int)p->dil[2];
    g.cross = p->cross_correlation;
    g.kred = g.c * g.r * g.s;
    const int kstep = p->xdt == CUDNN_DATA_FLOAT ? 8 : 16;
    g.kpad = (g.kred + kstep - 1) / kstep * kstep;
    g.m = p->n * p->out[1] * p->out[2];
    const int map[4] = {0, 1, 3, 4}; /* N, C, H, W of the 5-entry (N, C, D, H, W) strides */
    for (int d = 0; d < 4; d++)
        g.xs[d] = p->xs[map[d]], g.ys[d] = p->ys[map[d]], g.ws[d] = p->ws[map[d]];
    return g;
}

/* -- forward -- */

extern "C" int fd_conv_fwd_smallc_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    return smallc_applicable(p, why, why_size);
}

extern "C" size_t fd_conv_fwd_smallc_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}

template <typename T>
static cudnnStatus_t fwd_launch(const fd_conv_problem_t *p, const fd_conv_args_t *a, const sc_geom_t &g)
{
    const int bn = g.k <= 32 ? 32 : 64;
    const dim3 grid((unsigned)((g.m + SC_BM - 1) / SC_BM), (unsigned)((g.k + bn - 1) / bn));
    cudaStream_t s = a->handle->stream;
    if (bn == 32)
        conv_fwd_smallc<T, 32><<<grid, SC_THREADS, 0, s>>>(g, (const T *)a->x, (const T *)a->w,
                                                            (T *)a->out, a->alpha, a->beta);
    else
        conv_fwd_smallc<T, 64><<<grid, SC_THREADS, 0, s>>>(g, (const T *)a->x, (const T *)a->w,
                                                            (T *)a->out, a->alpha, a->beta);
    FD_CUDA_LAUNCHED("conv_fwd_smallc<%d> on %s data (grid %u x %u, stream %p)", bn,
                     fd_dtype_name(p->xdt), grid.x, grid.y, (void *)s);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" cudnnStatus_t fd_conv_fwd_smallc_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    const sc_geom_t g = sc_geom(p);
    switch (p->xdt) {
    case CUDNN_DATA_HALF:
        return fwd_launch<__half>(p, a, g);
    case CUDNN_DATA_BFLOAT16:
        return fwd_launch<__nv_bfloat16>(p, a, g);
    default:
        return fwd_launch<float>(p, a, g);
    }
}

/* -- backward filter -- */

/* Pixel ranges: enough blocks for ~4 per SM of a 132-SM part whatever the GPU (a fixed target:
 * the workspace and the bits depend on the problem only), at least 4 x SC_SPLIT_ROWS pixels
 * per range, at most 256 ranges. */
static void bwd_filter_splits(const sc_geom_t *g, int *splits, int64_t *split_len)
{
    const int64_t tiles = (int64_t)((g->kred + SC_WT - 1) / SC_WT) * ((g->k + SC_WT - 1) / SC_WT);
    int64_t s = (528 + tiles - 1) / tiles;
    const int64_t max_by_len = (g->m + 4 * SC_SPLIT_ROWS - 1) / (4 * SC_SPLIT_ROWS);
    if (s > max_by_len)
        s = max_by_len;
    if (s > 256)
        s = 256;
    if (s < 1)
        s = 1;
    int64_t len = (g->m + s - 1) / s;
    len = (len + SC_SPLIT_ROWS - 1) / SC_SPLIT_ROWS * SC_SPLIT_ROWS;
    if (len < SC_SPLIT_ROWS)
        len = SC_SPLIT_ROWS;
    *split_len = len;
    *splits = (int)((g->m + len - 1) / len);
    if (*splits < 1)
        *splits = 1;
}

/* FREEDNN_SMALLC_ROWS=0: the backward filter keeps the gather kernel (read once per process). */
static int scr_disabled(void)
{
    static const int off = !fd_env_on("FREEDNN_SMALLC_ROWS");
    return off;
}

/* FREEDNN_SMALLC_ROWS_RING=0: the row units copy every unit's whole patch (no ring of rows) */
static int scr_ring_off(void)
{
    static const int off = !fd_env_on("FREEDNN_SMALLC_ROWS_RING");
    return off;
}

/* FREEDNN_SMALLC_ROWS_SHARE=0: the row units' warps never share kk columns (WR = 1 always) */
static int scr_share_off(void)
{
    static const int off = !fd_env_on("FREEDNN_SMALLC_ROWS_SHARE");
    return off;
}

/* Whether the row-unit backward filter takes the problem, and its plan: x channel-contiguous
 * with each row contiguous (C stride 1 or C = 1, W stride C), dy channel-contiguous with K and
 * its N, H, W strides whole 16-byte vectors, all strides positive. Pixels per unit: the fewest
 * units a row (at most SCR_QMAX pixels each, a multiple of the mma k) whose patch buffers fit
 * shared memory. (Preferring units whose whole patch one register chunk holds, 64 pixels in
 * place of 112 on the HALF stem, ran 1.05 against 0.93 ms at N = 256 on the H100: the fixed cost
 * of twice the units outweighed the latency of the chunk loaded after the mma.) Then the units
 * split over about SCR_BLOCKS blocks (a rule of the problem alone: the bits and workspace depend
 * on it). */
static int scr_plan(const sc_geom_t *g, size_t es, scr_plan_t *pl, size_t *smem)
{
    if (scr_disabled())
        return 0;
    const int vec = (int)(16 / es);
    if (!((g->c == 1 || g->xs[1] == 1) && g->xs[3] == g->c && g->xs[0] > 0 && g->xs[2] > 0))
        return 0;
    if (g->ys[1] != 1 || g->k % vec != 0 || g->ys[0] <= 0 || g->ys[2] <= 0 || g->ys[3] <= 0 ||
        g->ys[0] % vec != 0 || g->ys[2] % vec != 0 || g->ys[3] % vec != 0)
        return 0;
    const int kstep = es == 2 ? 16 : 8, qmax = SCR_QMAX(es);
    const size_t fixed = (size_t)2 * qmax * SCR_LDY * es;
    /* ring mode where consecutive output rows share input rows: span + str_h slots plus the
     * span - 1 repeated, against two patches of R rows */
    const int span = (g->r - 1) * g->dil_h + 1;
    const int ring = g->str_h < span && g->p > 1 && !scr_ring_off();
    const int64_t ring_rows = 2 * span + g->str_h - 1;
    int qt = 0;
    int64_t wp = 0, patch = 0;
    size_t bytes = 0;
    for (int segs = (g->q + qmax - 1) / qmax; segs <= g->q; segs++) {
        const int t = ((g->q + segs - 1) / segs + kstep - 1) / kstep * kstep;
        const int64_t w = (int64_t)(t - 1) * g->str_w + (int64_t)(g->s - 1) * g->dil_w + 1;
        const int64_t pa = ((int64_t)g->r * w * g->c + 7) / 8 * 8;
        const size_t by = fixed + (ring ? (size_t)ring_rows * w * g->c : 2 * (size_t)pa) * es;
        if (by <= SCR_SMEM_MAX) {
            qt = t, wp = w, patch = pa, bytes = by;
            break;
        }
        if (t <= kstep)
            break;
    }
    if (qt == 0)
        return 0;
    pl->qt = qt, pl->segs = (g->q + qt - 1) / qt; /* qt rounded up may need fewer */
    pl->rw = (int)(wp * g->c), pl->patch = (int)patch;
    pl->ring = ring, pl->span = span, pl->nr = span + g->str_h;
    pl->units = (int64_t)g->n * g->p * pl->segs;
    /* warps sharing kk columns: as few as leave no warp without columns */
    pl->wr = g->kred <= SCR_WJ ? 4 : g->kred <= 2 * SCR_WJ ? 2 : 1;
    if (scr_share_off())
        pl->wr = 1;
    const int bj = SCR_BJ(pl->wr);
    const int64_t tiles = (int64_t)((g->kred + bj - 1) / bj) * ((g->k + SCR_BK - 1) / SCR_BK);
    int64_t sp = (SCR_BLOCKS + tiles - 1) / tiles;
    if (sp > pl->units)
        sp = pl->units;
    if (sp < 1)
        sp = 1;
    pl->per_split = (pl->units + sp - 1) / sp;
    pl->splits = (int)((pl->units + pl->per_split - 1) / pl->per_split);
    *smem = bytes;
    return 1;
}

static size_t bwd_filter_ws(const fd_conv_problem_t *p)
{
    const sc_geom_t g = sc_geom(p);
    int splits;
    int64_t len;
    bwd_filter_splits(&g, &splits, &len);
    scr_plan_t pl;
    size_t smem;
    /* the row-unit plan's partials, or the gather kernel's where a call's dy pointer is not
     * 16-byte aligned (selection cannot see pointers) */
    if (scr_plan(&g, fd_dtype_size(p->xdt), &pl, &smem) && pl.splits > splits)
        splits = pl.splits;
    return (size_t)splits * (size_t)g.k * (size_t)g.kred * sizeof(float);
}

extern "C" int fd_conv_bwd_filter_smallc_applicable(const fd_conv_problem_t *p, char *why,
                                                    size_t why_size)
{
    if (!smallc_applicable(p, why, why_size))
        return 0;
    /* HALF / BFLOAT16 with C >= 2 over more than 64 filter taps x channels, where the row-unit
     * kernel cannot run: the channel-padding row's 8-wide mma k fits these filters better than
     * the gather kernel; on the H200 (2026-12-01, bench/gpu_newrows.sh) the RGB 7x7 stems ran
     * 1.9x faster there (0.17 against 0.32 ms at N = 16), while C = 1 filters of 100 taps ran
     * 3-4x faster here and C = 3 3x3 tied (1.04-1.08) */
    const int64_t rsc = p->c * p->flt[1] * p->flt[2];
    const sc_geom_t g = sc_geom(p);
    scr_plan_t pl;
    size_t smem;
    if (p->xdt != CUDNN_DATA_FLOAT && p->c >= 2 && rsc > 64 &&
        !scr_plan(&g, fd_dtype_size(p->xdt), &pl, &smem)) {
        snprintf(why, why_size, "%s with C = %lld and R*S*C = %lld > 64 and the row units "
                 "declining (x or dy not channel-contiguous, the patch past shared memory, or "
                 "FREEDNN_SMALLC_ROWS=0): the channel-padding row is faster there",
                 fd_dtype_name(p->xdt), (long long)p->c, (long long)rsc);
        return 0;
    }
    return 1;
}

extern "C" size_t fd_conv_bwd_filter_smallc_workspace(const fd_conv_problem_t *p)
{
    return bwd_filter_ws(p);
}

template <typename T>
static cudnnStatus_t bwd_filter_launch(const fd_conv_problem_t *p, const fd_conv_args_t *a,
                                       const sc_geom_t &g, int splits, int64_t len)
{
    cudaStream_t s = a->handle->stream;
    float *part = (float *)a->workspace;
    scr_plan_t pl;
    size_t smem;
    if (scr_plan(&g, sizeof(T), &pl, &smem) && ((uintptr_t)a->y & 15) == 0) {
        const int bj = SCR_BJ(pl.wr);
        const dim3 grid((unsigned)((g.kred + bj - 1) / bj), (unsigned)((g.k + SCR_BK - 1) / SCR_BK),
                        (unsigned)pl.splits);
        typedef void (*kern_t)(const sc_geom_t, const scr_plan_t, const T *, const T *, float *);
        static const kern_t kerns[2][3] = {
            {conv_bwd_filter_smallc_rows<T, 1, false>, conv_bwd_filter_smallc_rows<T, 2, false>,
             conv_bwd_filter_smallc_rows<T, 4, false>},
            {conv_bwd_filter_smallc_rows<T, 1, true>, conv_bwd_filter_smallc_rows<T, 2, true>,
             conv_bwd_filter_smallc_rows<T, 4, true>}};
        const kern_t kern = kerns[pl.ring][pl.wr == 4 ? 2 : pl.wr == 2 ? 1 : 0];
        FD_CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem),
                      "cudaFuncSetAttribute(%zu bytes of dynamic shared memory) for the small-C "
                      "backward filter's row units", smem);
        kern<<<grid, SCR_THREADS, smem, s>>>(g, pl, (const T *)a->x, (const T *)a->y, part);
        FD_CUDA_LAUNCHED("conv_bwd_filter_smallc_rows on %s data (grid %u x %u x %u, %d pixels a "
                         "unit, %d warps a column, %s, %zu bytes of shared memory, stream %p)",
                         fd_dtype_name(p->xdt), grid.x, grid.y, grid.z, pl.qt, pl.wr,
                         pl.ring ? "a ring of input rows" : "a patch a unit", smem, (void *)s);
        splits = pl.splits;
    } else {
        const dim3 grid((unsigned)((g.kred + SC_WT - 1) / SC_WT), (unsigned)((g.k + SC_WT - 1) / SC_WT),
                        (unsigned)splits);
        conv_bwd_filter_smallc<T><<<grid, SC_THREADS, 0, s>>>(g, (const T *)a->x, (const T *)a->y, part, len);
        FD_CUDA_LAUNCHED("conv_bwd_filter_smallc on %s data (grid %u x %u x %u, stream %p)",
                         fd_dtype_name(p->xdt), grid.x, grid.y, grid.z, (void *)s);
    }
    const unsigned rblocks = fd_cuda_blocks((int64_t)g.k * g.kred, FD_CUDA_BLOCK);
    conv_bwd_filter_smallc_reduce<T><<<rblocks, FD_CUDA_BLOCK, 0, s>>>(g, part, splits, (T *)a->out,
                                                                       a->alpha, a->beta);
    FD_CUDA_LAUNCHED("conv_bwd_filter_smallc_reduce on %s data (%u blocks, %d splits)",
                     fd_dtype_name(p->xdt), rblocks, splits);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" cudnnStatus_t fd_conv_bwd_filter_smallc_run(const fd_conv_problem_t *p,
                                                       const fd_conv_args_t *a)
{
    const sc_geom_t g = sc_geom(p);
    int splits;
    int64_t len;
    bwd_filter_splits(&g, &splits, &len);
    const size_t need = bwd_filter_ws(p);
    FD_CHECK(a->workspace_size >= need && a->workspace != NULL, CUDNN_STATUS_BAD_PARAM,
             "workspace of %zu bytes; the small-C backward filter needs %zu", a->workspace_size, need);
    switch (p->xdt) {
    case CUDNN_DATA_HALF:
        return bwd_filter_launch<__half>(p, a, g, splits, len);
    case CUDNN_DATA_BFLOAT16:
        return bwd_filter_launch<__nv_bfloat16>(p, a, g, splits, len);
    default:
        return bwd_filter_launch<float>(p, a, g, splits, len);
    }
}

/* -- backward data -- */

extern "C" cudnnStatus_t fd_conv_bwd_data_direct_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);

/* Channels of dy per 16-byte vector, and K rounded up to a chunk of four vectors. */
static int dg_vec(const fd_conv_problem_t *p)
{
    return p->xdt == CUDNN_DATA_FLOAT ? 4 : 8;
}

static int64_t dg_kp(const fd_conv_problem_t *p)
{
    const int64_t ch = 4 * dg_vec(p);
    return (p->k + ch - 1) / ch * ch;
}

/* Groups of SC_DG_TILE positions in one residue class of w (the largest class). */
static int dg_groups(const sc_geom_t &g)
{
    const int cls = (g.w + g.str_w - 1) / g.str_w;
    return (cls + SC_DG_TILE - 1) / SC_DG_TILE;
}

extern "C" int fd_conv_bwd_data_smallc_applicable(const fd_conv_problem_t *p, char *why,
                                                  size_t why_size)
{
    if (!smallc_applicable(p, why, why_size))
        return 0;
    const int e = dg_vec(p);
    if (p->k % e != 0) {
        snprintf(why, why_size, "K = %lld; the small-C backward data reads dy in 16-byte vectors: "
                 "K a multiple of %d", (long long)p->k, e);
        return 0;
    }
    if (p->ys[1] != 1 || (p->n > 1 && p->ys[0] % e != 0) || (p->out[1] > 1 && p->ys[3] % e != 0) ||
        (p->out[2] > 1 && p->ys[4] % e != 0)) {
        snprintf(why, why_size, "dy is not channel-contiguous (NHWC) with strides in whole 16-byte "
                 "vectors; the small-C backward data reads it in vectors");
        return 0;
    }
    const int64_t bytes = p->c * p->flt[1] * p->flt[2] * dg_kp(p) * (int64_t)fd_dtype_size(p->xdt);
    if (bytes > SC_DG_SMEM) {
        snprintf(why, why_size, "the filter takes %lld bytes of shared memory; the small-C "
                 "backward data stages at most %d", (long long)bytes, SC_DG_SMEM);
        return 0;
    }
    const int64_t tasks = p->n * p->in[1] * p->stride[2] *
                          (((p->in[2] + p->stride[2] - 1) / p->stride[2] + SC_DG_TILE - 1) / SC_DG_TILE);
    if ((tasks + 7) / 8 >= 0x7fffffff) {
        snprintf(why, why_size, "a size reaches the small-C backward data's grid limit");
        return 0;
    }
    return 1;
}

extern "C" size_t fd_conv_bwd_data_smallc_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}

template <typename T>
static cudnnStatus_t bwd_data_launch(const fd_conv_problem_t *p, const fd_conv_args_t *a,
                                     const sc_geom_t &g)
{
    const int nj = dg_groups(g);
    const int64_t tasks = (int64_t)g.n * g.h * g.str_w * nj;
    const unsigned blocks = (unsigned)((tasks + SC_THREADS / 32 - 1) / (SC_THREADS / 32));
    cudaStream_t s = a->handle->stream;
    conv_bwd_data_smallc<T><<<blocks, SC_THREADS, 0, s>>>(g, (const T *)a->y, (const T *)a->w,
                                                           (T *)a->out, (int)dg_kp(p), nj, a->alpha,
                                                           a->beta);
    FD_CUDA_LAUNCHED("conv_bwd_data_smallc on %s data (%u blocks, stream %p)", fd_dtype_name(p->xdt),
                     blocks, (void *)s);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" cudnnStatus_t fd_conv_bwd_data_smallc_run(const fd_conv_problem_t *p,
                                                     const fd_conv_args_t *a)
{
    if ((uintptr_t)a->y % 16 != 0)
        return fd_conv_bwd_data_direct_run(p, a); /* 16-byte loads need 16-byte alignment */
    const sc_geom_t g = sc_geom(p);
    switch (p->xdt) {
    case CUDNN_DATA_HALF:
        return bwd_data_launch<__half>(p, a, g);
    case CUDNN_DATA_BFLOAT16:
        return bwd_data_launch<__nv_bfloat16>(p, a, g);
    default:
        return bwd_data_launch<float>(p, a, g);
    }
}
