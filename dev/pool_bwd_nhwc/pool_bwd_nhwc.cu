// SPDX-License-Identifier: MIT
// dev/pool_bwd_nhwc - max-pool backward of ResNet's stem pool (3x3 window, stride 2, pad 1,
// channels-last NHWC, MAX, alpha / beta blend), llm.c-style sandbox: v0 = the library's
// pool_s2g_max_bwd_nhwc_{f32,f16} of src/cuda/pooling_s2g.cuh (copied verbatim with the helpers
// it uses, kernels renamed), v1.. = column walks, a CPU reference with src/ref/pooling_ref.c's
// semantics, a checker (max error in ulps against the reference, bit identity against v0) and a
// CUDA-graph timer over rotated buffer sets (footprint > 3 x the 50 MB L2). README.md has the
// versions. Usage: pool_bwd_nhwc [--only vN] [--check] [--problem K | --inproc] [--list]. The
// problems run in child processes (a launch error loses only the version that made it). Exit 77
// without a GPU, 1 when a check fails.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#define CK(e)                                                                                      \
    do {                                                                                           \
        cudaError_t err_ = (e);                                                                    \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

// ---- the library's context (src/cuda/elem.cuh, pooling.cu), reduced to what v0 uses ----------
#define FD_CUDA_BLOCK 256
static __device__ __forceinline__ float fd_cuda_ld(const float *p, int64_t i)
{
    return p[i];
}
static __device__ __forceinline__ float fd_cuda_ld(const __half *p, int64_t i)
{
    return __half2float(p[i]);
}
static __device__ __forceinline__ float fd_cuda_ld(const __nv_bfloat16 *p, int64_t i)
{
    return __bfloat162float(p[i]);
}

// pool_s2_t of pooling.cu (the fields the backward kernels read; planes = N for channels-last)
typedef struct {
    int c, planes, in_h, in_w, out_h, out_w;
    int propagate;
    int xs_n, xs_c, xs_h, xs_w, gs_n, gs_c, gs_h, gs_w, ds_n, ds_c, ds_h, ds_w;
} pool_s2_t;

// ---- v0: verbatim from src/cuda/pooling_s2g.cuh (helpers, then the channels-last part) -------
#define POOL_S2G_NINF __int_as_float(0xff800000) /* -inf */

/* Storage types of the gathers, a literal at every call (the inlined bodies fold it): FLOAT,
 * HALF, BFLOAT16. Values are compared and routed as float (exact for the 16-bit types). */
#define POOL_S2G_F32 0
#define POOL_S2G_F16 1
#define POOL_S2G_BF16 2

/* Element i of p widened to float. */
static __device__ __forceinline__ float pool_s2g_ld(const void *p, int i, const int ty)
{
    return ty == POOL_S2G_F32   ? fd_cuda_ld((const float *)p, i)
           : ty == POOL_S2G_F16 ? fd_cuda_ld((const __half *)p, i)
                                : fd_cuda_ld((const __nv_bfloat16 *)p, i);
}

/* p + i elements. */
static __device__ __forceinline__ const void *pool_s2g_at(const void *p, int i, const int ty)
{
    return ty == POOL_S2G_F32 ? (const void *)((const float *)p + i)
                              : (const void *)((const __half *)p + i);
}

static __device__ __forceinline__ void *pool_s2g_atw(void *p, int i, const int ty)
{
    return ty == POOL_S2G_F32 ? (void *)((float *)p + i) : (void *)((__half *)p + i);
}

/* Lane l of a packed word of 16-bit elements (two a word) widened to float. */
static __device__ __forceinline__ float pool_s2g_w16(unsigned w, int l, const int ty)
{
    const unsigned h = l & 1 ? w >> 16 : w & 0xffffu;
    return ty == POOL_S2G_F16 ? __half2float(__ushort_as_half((unsigned short)h))
                              : __uint_as_float(h << 16);
}

/* The storage bits of v rounded once to the type (fd_cuda_st's rounding), in the low bits. */
static __device__ __forceinline__ unsigned pool_s2g_bits(double v, const int ty)
{
    if (ty == POOL_S2G_F32)
        return __float_as_uint((float)v);
    if (ty == POOL_S2G_F16)
        return __half_as_ushort(__double2half(v));
    return __bfloat16_as_ushort(__double2bfloat16(v));
}

/* The cell of one 3 x 3 image (row-major; unreadable cells hold -inf) that window_max picks
 * (s2_max_f32's code; -1 when it finds none), without branches: with PROPAGATE_NAN the first
 * NaN; else the chain e > m from m = -inf, which is the scan's rule with FLOAT's start value
 * -FLT_MAX (its first pick is the first e >= -FLT_MAX, i.e. e > -inf, and e > m after that;
 * NaN compares false in both; -inf, so an unreadable cell, is never picked). */
static __device__ __forceinline__ int pool_s2g_code(const float *v, int propagate)
{
    if (propagate) {
        int nm = 0;
#pragma unroll
        for (int k = 0; k < 9; k++)
            nm |= v[k] != v[k] ? 1 << k : 0;
        if (nm != 0)
            return __ffs(nm) - 1;
    }
    float m = POOL_S2G_NINF;
    int cd = -1;
#pragma unroll
    for (int k = 0; k < 9; k++)
        if (v[k] > m)
            m = v[k], cd = k;
    return cd;
}

/* The 16-byte vector of -inf cells of the type. */
static __device__ __forceinline__ uint4 pool_s2g_ninf16(const int ty)
{
    const unsigned w = ty == POOL_S2G_F32   ? 0xff800000u
                       : ty == POOL_S2G_F16 ? 0xfc00fc00u
                                            : 0xff80ff80u;
    return make_uint4(w, w, w, w);
}

/* Lane-wise max of two words of 16-bit pairs (NaN-ignoring; nan: NaN-propagating). */
static __device__ __forceinline__ unsigned pool_s2g_max2(unsigned a, unsigned b, const bool nan,
                                                         const int ty)
{
    unsigned r;
    if (ty == POOL_S2G_F16) {
        __half2 x, y, z;
        memcpy(&x, &a, 4);
        memcpy(&y, &b, 4);
        z = nan ? __hmax2_nan(x, y) : __hmax2(x, y);
        memcpy(&r, &z, 4);
    } else {
        __nv_bfloat162 x, y, z;
        memcpy(&x, &a, 4);
        memcpy(&y, &b, 4);
        z = nan ? __hmax2_nan(x, y) : __hmax2(x, y);
        memcpy(&r, &z, 4);
    }
    return r;
}

/* 0xffff in each 16-bit lane where a == b (ordered: NaN never equal; +0 == -0). */
static __device__ __forceinline__ unsigned pool_s2g_eq2(unsigned a, unsigned b, const int ty)
{
    if (ty == POOL_S2G_F16) {
        __half2 x, y;
        memcpy(&x, &a, 4);
        memcpy(&y, &b, 4);
        return __heq2_mask(x, y);
    }
    __nv_bfloat162 x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    return __heq2_mask(x, y);
}

/* 0xffff in each 16-bit lane of a that is NaN. */
static __device__ __forceinline__ unsigned pool_s2g_nan2(unsigned a, const int ty)
{
    if (ty == POOL_S2G_F16) {
        __half2 x;
        memcpy(&x, &a, 4);
        return __hneu2_mask(x, x);
    }
    __nv_bfloat162 x;
    memcpy(&x, &a, 4);
    return __hneu2_mask(x, x);
}

/* pool_s2g_code + 1 of one window for the two lanes of 16-bit pairs (c[9]: the window's cells
 * in scan order, -inf outside x), lane h's in bits 16h .. 16h + 3, packed: the lane-wise max m
 * (nan: NaN-propagating), then the first cell equal to m (with nan, or NaN: a lane whose m is
 * NaN holds a NaN, a lane whose m is not holds none), none where m is -inf (every cell -inf or,
 * without nan, NaN). The chain's pick: its first e > -inf, then each e > m, is the first cell
 * holding the largest non-NaN value (+0 == -0: the first zero); 9 selects by bit masks. */
static __device__ __forceinline__ unsigned pool_s2g_code2(const unsigned *c, const bool nan,
                                                          const int ty)
{
    unsigned m = c[0];
#pragma unroll
    for (int k = 1; k < 9; k++)
        m = pool_s2g_max2(m, c[k], nan, ty);
    unsigned cd = 0u;
#pragma unroll
    for (int k = 8; k >= 0; k--) {
        unsigned hit = pool_s2g_eq2(c[k], m, ty);
        if (nan)
            hit |= pool_s2g_nan2(c[k], ty);
        cd = (hit & (unsigned)(k + 1) * 0x00010001u) | (~hit & cd);
    }
    return cd & ~pool_s2g_eq2(m, pool_s2g_ninf16(ty).x, ty);
}

/* The 16-bit pair (lo, hi) of two floats that hold values of the type (exact: one cvt; a NaN
 * stays a NaN, its payload aside). */
static __device__ __forceinline__ unsigned pool_s2g_pack2(float lo, float hi, const int ty)
{
    unsigned r;
    if (ty == POOL_S2G_F16) {
        const __half2 h = __floats2half2_rn(lo, hi);
        memcpy(&r, &h, 4);
    } else {
        const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
        memcpy(&r, &h, 4);
    }
    return r;
}

/* ---- channels-last (NHWC) 3x3 / 2 pad 1 max backward gather (FREEDNN_GPU_BW5) -------------
 * pool_s2_bwd_vec (the H-sweep with 8-byte vectors) ran 0.79x NVIDIA's rate on the H200 (f32
 * n32 C 128 56 x 56: 769 vs 974 GB/s, 2026-12-01): 10 vector loads a step issued only when the
 * step begins, one step's loads in flight per thread. Here, for FLOAT, HALF, BFLOAT16:
 * - Thread = (n, tile of 4 row pairs x 2 column pairs, its row pair t and column pair s,
 *   16-byte channel vector cv), cv fastest: its dx block is rows 2t, 2t + 1 x columns 2s,
 *   2s + 1 of one vector (4 full 16-byte stores; a warp stores 512 contiguous bytes a cell).
 *   No loop and no state shared between threads. Row 2t lies in window row t only, row
 *   2t + 1 in t and t + 1 (columns likewise), so the four windows (t + di, s + dj) are all
 *   that route to the block: x rows 2t - 1 .. 2t + 3 x columns 2s - 1 .. 2s + 3 (25 cells).
 *   Each window is evaluated by the four threads whose blocks it touches (x re-reads are L1 /
 *   L2 hits). When C is one warp's vectors (f32 C 128, f16 C 256) a block is one tile: its
 *   8 x 4 dx cells read 9 x 5 x cells, 1.4x the compulsory ones (8 column pairs of one row
 *   pair would read 5 x 17, 2.7x).
 * - Loads in two halves: the four dy vectors and x rows 2t - 1 .. 2t + 1 (every compulsory x
 *   cell of the block), window row t's codes; then rows 2t + 2, 2t + 3 (row 2t + 1 kept) and
 *   window row t + 1's codes. All 25 cells at once took ~150 registers (spills at 2 blocks an
 *   SM); this way 512 threads an SM keep ~19 16-byte loads each in flight (~150 KB of L1
 *   requests an SM, ~40 KB of them first touches of DRAM lines).
 * - Per lane each window's argmax is pool_s2g_code's (window_max's first max / first NaN,
 *   cells outside x hold -inf), kept as code + 1 in 4 bits a lane; HALF / BFLOAT16 find it
 *   two lanes at a time (pool_s2g_code2: a packed max chain, then the first cell equal to the
 *   max by packed compares and bit selects, ~31 instructions a pair against ~70 a lane for
 *   the widened chain; the same picks). Each dx cell adds the dy of the windows routing to it
 *   in ascending (i, j) order, in double from 0.0, then the alpha / beta blend: src/ref's
 *   sums, the same bits.
 * Per dx element: 1 x and 0.25 dy elements read, 1 written (compulsory), 6.25 x requested
 * through L1 (the block's threads share most of them in L1 / L2); one
 * window code (~27 instructions for FLOAT, ~16 for the 16-bit pairs) plus routing and blend
 * (~15). Expected >= 1.5 TB/s for f32 (1.5x NVIDIA), not measured yet. No shared memory.
 * ptxas (CUDA 13): sm_90 f32 122, f16 / bf16 104 registers (sm_80: 120, 102, 124), 0 spills:
 * 2 blocks of 256 an SM (a bound of 3 spilled 84-300 bytes). */
#define POOL_S2G_NHWC_MINB 2

/* Lane l of a 16-byte vector of the type, widened to float. */
static __device__ __forceinline__ float pool_s2g_lane16(const uint4 &u, int l, const int ty)
{
    const unsigned w[4] = {u.x, u.y, u.z, u.w};
    if (ty == POOL_S2G_F32)
        return __uint_as_float(w[l]);
    return pool_s2g_w16(w[l >> 1], l, ty);
}

/* Word p of a 16-byte vector (p a literal). */
static __device__ __forceinline__ unsigned pool_s2g_word(const uint4 &u, int p)
{
    return p == 0 ? u.x : p == 1 ? u.y : p == 2 ? u.z : u.w;
}

static __device__ __forceinline__ void pool_s2g_nhwc_body(const pool_s2_t &q, int cvn, int spairs,
                                                          int tpairs, const void *xv,
                                                          const void *dyv, void *dxv, double alpha,
                                                          double beta, const int ty)
{
    const int L = ty == POOL_S2G_F32 ? 4 : 8; /* lanes of a 16-byte vector */
    int e = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int cv = e % cvn;
    e /= cvn;
    const int ls = e & 1, lt = e >> 1 & 3; /* the thread's place in its 4 x 2 tile of pairs */
    e >>= 3;
    const int nts = (spairs + 1) / 2, ntt = (tpairs + 3) / 4;
    const int s = 2 * (e % nts) + ls;
    e /= nts;
    const int t = 4 * (e % ntt) + lt, n = e / ntt;
    if (n >= q.planes || s >= spairs || t >= tpairs)
        return; /* planes = N here */
    const void *xc = pool_s2g_at(xv, n * q.xs_n + cv * L, ty);
    const void *dyc = pool_s2g_at(dyv, n * q.gs_n + cv * L, ty);
    void *dxc = pool_s2g_atw(dxv, n * q.ds_n + cv * L, ty);

    /* the four windows' dy, then two halves (di): x rows 2t - 1 + 2di .. 2t + 1 + 2di (row
     * 2t + 1 loaded once) and window row t + di's codes */
    uint4 xr[5][5], g[2][2];
    bool wok[2][2];
#pragma unroll
    for (int di = 0; di < 2; di++)
#pragma unroll
        for (int dj = 0; dj < 2; dj++) {
            const int i = t + di, j = s + dj;
            wok[di][dj] = i < q.out_h && j < q.out_w;
            g[di][dj] = make_uint4(0u, 0u, 0u, 0u);
            if (wok[di][dj])
                g[di][dj] = *(const uint4 *)pool_s2g_at(dyc, i * q.gs_h + j * q.gs_w, ty);
        }
    unsigned cw[2][2]; /* code + 1 of window (t + di, s + dj) in bits 4l .. 4l + 3 of lane l */
#pragma unroll
    for (int di = 0; di < 2; di++) {
#pragma unroll
        for (int k = 2 * di + (di ? 1 : 0); k < 2 * di + 3; k++)
#pragma unroll
            for (int l = 0; l < 5; l++) {
                const int row = 2 * t - 1 + k, col = 2 * s - 1 + l;
                xr[k][l] = pool_s2g_ninf16(ty);
                if (row >= 0 && row < q.in_h && col >= 0 && col < q.in_w)
                    xr[k][l] = *(const uint4 *)pool_s2g_at(xc, row * q.xs_h + col * q.xs_w, ty);
            }
#pragma unroll
        for (int dj = 0; dj < 2; dj++) {
            cw[di][dj] = 0u;
            if (ty != POOL_S2G_F32 && wok[di][dj]) { /* 16-bit: lane pairs (pool_s2g_code2) */
#pragma unroll
                for (int p = 0; p < 4; p++) {
                    unsigned c[9]; /* cell k: x row 2 di + k / 3, column 2 dj + k % 3 */
#pragma unroll
                    for (int k = 0; k < 9; k++)
                        c[k] = pool_s2g_word(xr[2 * di + k / 3][2 * dj + k % 3], p);
                    const unsigned cd =
                        q.propagate ? pool_s2g_code2(c, true, ty) : pool_s2g_code2(c, false, ty);
                    cw[di][dj] |= ((cd & 0xfu) | (cd >> 12 & 0xf0u)) << (8 * p);
                }
            }
#pragma unroll
            for (int l = 0; l < 8; l++) {
                if (ty != POOL_S2G_F32 || l >= L || !wok[di][dj])
                    continue;
                float img[9];
#pragma unroll
                for (int k = 0; k < 9; k++)
                    img[k] = pool_s2g_lane16(xr[2 * di + k / 3][2 * dj + k % 3], l, ty);
                cw[di][dj] |= (unsigned)(pool_s2g_code(img, q.propagate) + 1) << (4 * l);
            }
        }
    }

#pragma unroll
    for (int a = 0; a < 2; a++)
#pragma unroll
        for (int b = 0; b < 2; b++) {
            /* dx cell (2t + a, 2s + b): image row a + 1 of window t, a - 1 of window t + 1 */
            const int row = 2 * t + a, col = 2 * s + b;
            if (row >= q.in_h || col >= q.in_w)
                continue;
            void *p = pool_s2g_atw(dxc, row * q.ds_h + col * q.ds_w, ty);
            uint4 old = make_uint4(0u, 0u, 0u, 0u);
            if (beta != 0.0)
                old = *(const uint4 *)p;
            unsigned r[8];
#pragma unroll
            for (int l = 0; l < 8; l++) {
                if (l >= L)
                    continue;
                double acc = 0.0;
#pragma unroll
                for (int di = 0; di < 2; di++)
#pragma unroll
                    for (int dj = 0; dj < 2; dj++) {
                        const int rr = a + 1 - 2 * di, cc = b + 1 - 2 * dj;
                        if (rr >= 0 && cc >= 0 &&
                            ((cw[di][dj] >> (4 * l)) & 15u) == (unsigned)(3 * rr + cc + 1))
                            acc += (double)pool_s2g_lane16(g[di][dj], l, ty);
                    }
                double v = __dmul_rn(alpha, acc);
                if (beta != 0.0)
                    v = __dadd_rn(v, __dmul_rn(beta, (double)pool_s2g_lane16(old, l, ty)));
                r[l] = pool_s2g_bits(v, ty);
            }
            if (ty == POOL_S2G_F32)
                *(uint4 *)p = make_uint4(r[0], r[1], r[2], r[3]);
            else
                *(uint4 *)p = make_uint4(r[0] | r[1] << 16, r[2] | r[3] << 16, r[4] | r[5] << 16,
                                         r[6] | r[7] << 16);
        }
}

/* The channels-last kernels: pool_s2g_max_bwd_nhwc_{f32,f16,bf16}. */
#define POOL_S2G_NHWC_KERNEL(name, ty)                                                             \
    static __global__ void __launch_bounds__(FD_CUDA_BLOCK, POOL_S2G_NHWC_MINB)                    \
        name(const pool_s2_t q, int cvn, int spairs, int tpairs, const void *xv, const void *dyv,  \
             void *dxv, double alpha, double beta)                                                 \
    {                                                                                              \
        pool_s2g_nhwc_body(q, cvn, spairs, tpairs, xv, dyv, dxv, alpha, beta, ty);                 \
    }
POOL_S2G_NHWC_KERNEL(v0_f32, POOL_S2G_F32)
POOL_S2G_NHWC_KERNEL(v0_f16, POOL_S2G_F16)

// ---- v1..: column walks ---------------------------------------------------------------------
// A thread per (n, strip of R window rows, column pair s, 16-byte channel vector cv) walks down
// its strip: at step t it loads x rows 2t, 2t + 1 at columns 2s - 1 .. 2s + 3 (row 2t - 1 kept
// from the step before), finds the argmax codes of windows (t, s) (columns 2s - 1 .. 2s + 1) and
// (t, s + 1) (columns 2s + 1 .. 2s + 3: recomputed, its cells are the next column pair's, L1
// hits), and stores dx rows 2t - 1 (windows t - 1 and t) and 2t (window t only) at columns 2s
// (window column s only) and 2s + 1 (s and s + 1). A strip after the first begins with a halo
// step (window row t0 - 1, no stores); the plane's last strip ends with a step for dx row
// 2 OH - 1 (H even). Codes: v0's per lane (code + 1 in 4 bits; 16-bit lanes two at a time by
// pool_s2g_code2). Sums: double in ascending window order from 0.0 (src/ref's bits); FAST with
// alpha 1 beta 0: elements with <= 2 routed terms in float rounded once (double rounding
// through >= 2p + 2 bits is innocuous: the same bits), the (odd, odd) corner in double.
// SFAST 1: column pairs fastest in the thread index (else channel vectors); SFAST 2: a warp per
// (n, strip, cv), lane s = column pair (W <= 64, lanes past the row idle): window (t, s + 1)'s
// code and dy come from lane s + 1 by shuffles (3 x columns loaded, none recomputed). PREF: the
// next step's x row 2t + 2 loaded before this step's codes (one row ahead).
#define CW_THREADS 256
#define CW_MINB 2
#define CW_MINB_SHFL32 3 // v7..v10 FLOAT: 80 registers, 0 spills
#define CW_MINB_SHFL16 2 // 16-bit: 3 spilled 4 bytes

static __device__ __forceinline__ uint4 cw_zero()
{
    return make_uint4(0u, 0u, 0u, 0u);
}

// x cell (row, col) of the thread's channel vector; -inf outside x.
template <int TY>
static __device__ __forceinline__ uint4 cw_ldx(const void *xc, const pool_s2_t &q, int row, int col)
{
    if (row < 0 || row >= q.in_h || col < 0 || col >= q.in_w)
        return pool_s2g_ninf16(TY);
    return *(const uint4 *)pool_s2g_at(xc, row * q.xs_h + col * q.xs_w, TY);
}

// The code word (code + 1 in bits 4l .. 4l + 3 of lane l) of the window on rows a, b, c at
// columns off .. off + 2 (off a literal) of the thread's 5 columns.
template <int TY>
static __device__ __forceinline__ unsigned cw_code(const uint4 *a, const uint4 *b, const uint4 *c,
                                                   const int off, int prop)
{
    unsigned cw = 0u;
    if (TY != POOL_S2G_F32) {
#pragma unroll
        for (int p = 0; p < 4; p++) {
            unsigned v[9];
#pragma unroll
            for (int k = 0; k < 9; k++) {
                const uint4 &e = k < 3 ? a[off + k] : k < 6 ? b[off + k - 3] : c[off + k - 6];
                v[k] = pool_s2g_word(e, p);
            }
            const unsigned cd = prop ? pool_s2g_code2(v, true, TY) : pool_s2g_code2(v, false, TY);
            cw |= ((cd & 0xfu) | (cd >> 12 & 0xf0u)) << (8 * p);
        }
    } else {
#pragma unroll
        for (int l = 0; l < 4; l++) {
            float img[9];
#pragma unroll
            for (int k = 0; k < 9; k++) {
                const uint4 &e = k < 3 ? a[off + k] : k < 6 ? b[off + k - 3] : c[off + k - 6];
                img[k] = pool_s2g_lane16(e, l, TY);
            }
            cw |= (unsigned)(pool_s2g_code(img, prop) + 1) << (4 * l);
        }
    }
    return cw;
}

// One routed term: the code word of a window, the code + 1 that routes to the cell, its dy.
struct cw_term {
    unsigned w, k;
    uint4 g;
};

// dx vector at p from NT terms (ascending window order). fast: alpha 1 beta 0 (the float sums
// for NT <= 2).
template <int TY, int NT>
static __device__ __forceinline__ void cw_store(void *p, const cw_term *tm, bool fast, double alpha,
                                                double beta)
{
    const int L = TY == POOL_S2G_F32 ? 4 : 8;
    uint4 old = cw_zero();
    if (!fast && beta != 0.0)
        old = *(const uint4 *)p;
    unsigned r[8];
#pragma unroll
    for (int l = 0; l < 8; l++) {
        if (l >= L)
            continue;
        if (NT <= 2 && fast) {
            float acc = 0.f;
#pragma unroll
            for (int j = 0; j < NT; j++)
                if ((tm[j].w >> (4 * l) & 15u) == tm[j].k)
                    acc += pool_s2g_lane16(tm[j].g, l, TY);
            r[l] = TY == POOL_S2G_F32 ? __float_as_uint(acc)
                                      : (unsigned)__half_as_ushort(__float2half_rn(acc));
            continue;
        }
        double acc = 0.0;
#pragma unroll
        for (int j = 0; j < NT; j++)
            if ((tm[j].w >> (4 * l) & 15u) == tm[j].k)
                acc += (double)pool_s2g_lane16(tm[j].g, l, TY);
        double v = __dmul_rn(alpha, acc);
        if (beta != 0.0)
            v = __dadd_rn(v, __dmul_rn(beta, (double)pool_s2g_lane16(old, l, TY)));
        r[l] = pool_s2g_bits(v, TY);
    }
    if (TY == POOL_S2G_F32)
        *(uint4 *)p = make_uint4(r[0], r[1], r[2], r[3]);
    else
        *(uint4 *)p = make_uint4(r[0] | r[1] << 16, r[2] | r[3] << 16, r[4] | r[5] << 16,
                                 r[6] | r[7] << 16);
}

// The thread's place: (n, strip st, column pair s, channel vector cv) of thread e.
static __host__ __device__ __forceinline__ void cw_place(int e, int cvn, int sp, int nst,
                                                         int sfast, int *n, int *st, int *s,
                                                         int *cv)
{
    if (sfast == 2) { // lane = column pair (sp <= 32)
        *s = e & 31, e >>= 5;
        *cv = e % cvn, e /= cvn;
    } else if (sfast) {
        *s = e % sp, e /= sp;
        *cv = e % cvn, e /= cvn;
    } else {
        *cv = e % cvn, e /= cvn;
        *s = e % sp, e /= sp;
    }
    *st = e % nst, *n = e / nst;
}

template <int TY, int FAST, int SFAST, int PREF>
static __device__ __forceinline__ void cw_body(const pool_s2_t &q, int cvn, int R, int nst,
                                               const void *xv, const void *dyv, void *dxv,
                                               double alpha, double beta)
{
    const int L = TY == POOL_S2G_F32 ? 4 : 8;
    int n, st, s, cv;
    cw_place((int)(blockIdx.x * blockDim.x + threadIdx.x), cvn, q.out_w, nst, SFAST, &n, &st, &s,
             &cv);
    if (n >= q.planes)
        return; // SFAST 2: whole warps
    const bool live = s < q.out_w; // SFAST 2: lanes past the row load and store nothing
    const int NC = SFAST == 2 ? 3 : 5; // x columns a thread loads
    // FAST 2 (v11): launched for alpha 1, beta 0 only, so the test is gone from cw_store's lanes
    const bool fast = FAST == 2 || (FAST && alpha == 1.0 && beta == 0.0);
    const int prop = q.propagate;
    const void *xc = pool_s2g_at(xv, n * q.xs_n + cv * L, TY);
    const void *dyc = pool_s2g_at(dyv, n * q.gs_n + cv * L, TY);
    void *dxc = pool_s2g_atw(dxv, n * q.ds_n + cv * L, TY);
    const int t0 = st * R, t1 = min(t0 + R, q.out_h);
    const int tb = t0 > 0 ? t0 - 1 : 0, te = t1 == q.out_h ? t1 : t1 - 1;
    const int c0 = 2 * s - 1; // x column of the thread's column 0
    const bool has1 = s + 1 < q.out_w, odd = 2 * s + 1 < q.in_w;
    const int rl = live ? 0 : -4 * q.in_h - 8; // row offset: dead lanes read outside x

    // x rows 2t - 1, 2t, 2t + 1 at the 5 columns
    uint4 a[5], b[5], c[5];
    auto ldrow = [&](uint4 *v, int row) {
#pragma unroll
        for (int l = 0; l < 5; l++)
            if (l < NC)
                v[l] = cw_ldx<TY>(xc, q, row + rl, c0 + l);
    };
    ldrow(a, 2 * tb - 1);
    if (PREF)
        ldrow(b, 2 * tb);
    unsigned kp0 = 0u, kp1 = 0u; // code words of windows (t - 1, s), (t - 1, s + 1)
    uint4 gp0 = cw_zero(), gp1 = cw_zero();
    for (int t = tb; t <= te; t++) {
        // rows 2t (PREF: loaded by the step before) and 2t + 1; PREF: row 2t + 2 for the next
        // step issued before this step's codes
        uint4 nb[5];
        if (!PREF)
            ldrow(b, 2 * t);
        ldrow(c, 2 * t + 1);
        if (PREF)
            ldrow(nb, 2 * t + 2);
        const bool w = t < q.out_h;
        uint4 ng0 = cw_zero(), ng1 = cw_zero(); // dy of windows (t, s), (t, s + 1)
        if (w && live)
            ng0 = *(const uint4 *)pool_s2g_at(dyc, t * q.gs_h + s * q.gs_w, TY);
        if (SFAST != 2 && w && has1)
            ng1 = *(const uint4 *)pool_s2g_at(dyc, t * q.gs_h + (s + 1) * q.gs_w, TY);
        const unsigned k0 = w ? cw_code<TY>(a, b, c, 0, prop) : 0u;
        unsigned k1 = 0u;
        if (SFAST != 2) {
            k1 = w && has1 ? cw_code<TY>(a, b, c, 2, prop) : 0u;
        } else { // window (t, s + 1) is lane + 1's (t, s); w is the warp's
            k1 = __shfl_down_sync(0xffffffffu, k0, 1);
            ng1.x = __shfl_down_sync(0xffffffffu, ng0.x, 1);
            ng1.y = __shfl_down_sync(0xffffffffu, ng0.y, 1);
            ng1.z = __shfl_down_sync(0xffffffffu, ng0.z, 1);
            ng1.w = __shfl_down_sync(0xffffffffu, ng0.w, 1);
            if (!has1)
                k1 = 0u, ng1 = cw_zero();
        }
        if (live && t >= t0) {
            const int r = 2 * t - 1;
            if (r >= 0 && r < q.in_h) {
                void *p = pool_s2g_atw(dxc, r * q.ds_h + 2 * s * q.ds_w, TY);
                const cw_term e0[2] = {{kp0, 8u, gp0}, {k0, 2u, ng0}};
                cw_store<TY, 2>(p, e0, fast, alpha, beta);
                if (odd) {
                    const cw_term e1[4] = {{kp0, 9u, gp0}, {kp1, 7u, gp1}, {k0, 3u, ng0},
                                           {k1, 1u, ng1}};
                    cw_store<TY, 4>(pool_s2g_atw(p, q.ds_w, TY), e1, fast, alpha, beta);
                }
            }
            if (t < t1) {
                void *p = pool_s2g_atw(dxc, 2 * t * q.ds_h + 2 * s * q.ds_w, TY);
                const cw_term e0[1] = {{k0, 5u, ng0}};
                cw_store<TY, 1>(p, e0, fast, alpha, beta);
                if (odd) {
                    const cw_term e1[2] = {{k0, 6u, ng0}, {k1, 4u, ng1}};
                    cw_store<TY, 2>(pool_s2g_atw(p, q.ds_w, TY), e1, fast, alpha, beta);
                }
            }
        }
#pragma unroll
        for (int l = 0; l < 5; l++) {
            if (l < NC)
                a[l] = c[l];
            if (PREF)
                if (l < NC)
                    b[l] = nb[l];
        }
        kp0 = k0, kp1 = k1, gp0 = ng0, gp1 = ng1;
    }
}

#define CW_KERNEL(name, ty, fast, sfast, pref, minb)                                               \
    static __global__ void __launch_bounds__(CW_THREADS, minb)                                     \
        name(const pool_s2_t q, int cvn, int R, int nst, const void *xv, const void *dyv,          \
             void *dxv, double alpha, double beta)                                                 \
    {                                                                                              \
        cw_body<ty, fast, sfast, pref>(q, cvn, R, nst, xv, dyv, dxv, alpha, beta);                 \
    }
CW_KERNEL(v1_f32, POOL_S2G_F32, 0, 0, 0, CW_MINB)
CW_KERNEL(v1_f16, POOL_S2G_F16, 0, 0, 0, CW_MINB)
CW_KERNEL(v2_f32, POOL_S2G_F32, 1, 0, 0, CW_MINB)
CW_KERNEL(v2_f16, POOL_S2G_F16, 1, 0, 0, CW_MINB)
CW_KERNEL(v5_f32, POOL_S2G_F32, 1, 1, 0, CW_MINB)
CW_KERNEL(v5_f16, POOL_S2G_F16, 1, 1, 0, CW_MINB)
CW_KERNEL(v6_f32, POOL_S2G_F32, 1, 0, 1, CW_MINB)
CW_KERNEL(v6_f16, POOL_S2G_F16, 1, 0, 1, CW_MINB)
CW_KERNEL(v11_f32, POOL_S2G_F32, 2, 0, 0, CW_MINB)
CW_KERNEL(v11_f16, POOL_S2G_F16, 2, 0, 0, CW_MINB)
CW_KERNEL(v7_f32, POOL_S2G_F32, 1, 2, 0, CW_MINB_SHFL32)
CW_KERNEL(v7_f16, POOL_S2G_F16, 1, 2, 0, CW_MINB_SHFL16)
#undef CW_KERNEL

// ---- host: problems, data, reference ------------------------------------------------------
enum { F32 = POOL_S2G_F32, F16 = POOL_S2G_F16 };
enum { FILL_REAL, FILL_TIES, FILL_EQUAL, FILL_SPECIAL, FILL_NINF };

struct Spec {
    int ty, n, c, h, w, fill, prop;
    double alpha, beta;
    bool timed;
};

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static uint32_t rng()
{
    rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
    return (uint32_t)(rs >> 11);
}

static float h2f(uint16_t h)
{
    const uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
    if (e == 31)
        return m ? NAN : s ? -INFINITY : INFINITY;
    float v = e ? ldexpf((float)(m + 1024), (int)e - 25) : ldexpf((float)m, -24);
    return s ? -v : v;
}
static uint16_t d2h(double v) // round to nearest even, once
{
    const uint16_t sg = signbit(v) ? 0x8000 : 0;
    if (v != v)
        return 0x7e00;
    const double a = fabs(v);
    if (a >= 65520.0)
        return sg | 0x7c00;
    if (a < ldexp(1.0, -14))
        return sg | (uint16_t)nearbyint(ldexp(a, 24));
    int e;
    frexp(a, &e);
    int E = e - 1;
    uint32_t m = (uint32_t)nearbyint(ldexp(a, 10 - E));
    if (m == 2048)
        m = 1024, E++;
    if (E > 15)
        return sg | 0x7c00;
    return sg | (uint16_t)((E + 15) << 10) | (uint16_t)(m - 1024);
}
static double val(const std::vector<uint32_t> &b, size_t i, int ty)
{
    if (ty == F32) {
        float f;
        memcpy(&f, &b[i], 4);
        return f;
    }
    return h2f((uint16_t)b[i]);
}
static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static uint32_t bits_of(double v, int ty)
{
    return ty == F32 ? fbits((float)v) : d2h(v);
}
static uint32_t x_bits(int ty, int fill)
{
    static const float sp[10] = {-INFINITY, -INFINITY, NAN, 0.f, -0.f, 1.f, 2.f, -1.f, 2.f, NAN};
    float f = 0.f;
    switch (fill) {
    case FILL_REAL:
        f = ((float)(rng() & 0xffffff) / 16777216.f - 0.5f) * 16.f;
        break;
    case FILL_TIES:
        f = (float)(rng() % 3);
        break;
    case FILL_EQUAL:
        f = 1.f;
        break;
    case FILL_SPECIAL:
        f = sp[rng() % 10];
        break;
    default:
        f = -INFINITY;
    }
    return ty == F32 ? fbits(f) : (f != f ? 0x7e00u : d2h(f));
}
static uint32_t dy_bits(int ty, int fill)
{
    if (fill == FILL_REAL) {
        const float f = ((float)(rng() & 0xffffff) / 16777216.f - 0.5f) * 4.f;
        return ty == F32 ? fbits(f) : d2h(f);
    }
    const int k = (int)(rng() % 10) - 5; // -5 .. 4, and -0 for -5
    return bits_of(k == -5 ? -0.0 : (double)k, ty);
}

// Geometry: packed NHWC x / dx (N x H x W x C) and dy (N x OH x OW x C).
struct Geo {
    int oh, ow, L, cvn; // L: elements of a 16-byte vector, cvn: vectors a pixel
    size_t nx, ny;
};
static Geo geo_of(const Spec &s)
{
    Geo g;
    g.oh = (s.h - 1) / 2 + 1, g.ow = (s.w - 1) / 2 + 1, g.L = s.ty == F32 ? 4 : 8;
    g.cvn = s.c / g.L;
    g.nx = (size_t)s.n * s.h * s.w * s.c, g.ny = (size_t)s.n * g.oh * g.ow * s.c;
    return g;
}
static pool_s2_t prob_of(const Spec &s, const Geo &g)
{
    pool_s2_t q;
    memset(&q, 0, sizeof q);
    q.c = s.c, q.planes = s.n, q.in_h = s.h, q.in_w = s.w, q.out_h = g.oh, q.out_w = g.ow;
    q.propagate = s.prop;
    q.xs_c = 1, q.xs_w = s.c, q.xs_h = s.w * s.c, q.xs_n = s.h * q.xs_h;
    q.ds_c = 1, q.ds_w = q.xs_w, q.ds_h = q.xs_h, q.ds_n = q.xs_n;
    q.gs_c = 1, q.gs_w = s.c, q.gs_h = g.ow * s.c, q.gs_n = g.oh * q.gs_h;
    return q;
}
static size_t xi(const Spec &s, int n, int h, int w, int c)
{
    return (((size_t)n * s.h + h) * s.w + w) * s.c + c;
}
static size_t yi(const Spec &s, const Geo &g, int n, int i, int j, int c)
{
    return (((size_t)n * g.oh + i) * g.ow + j) * s.c + c;
}
static const double DX_OLD = 3.0; // dx before a call

static void make_data(const Spec &s, const Geo &g, std::vector<uint32_t> &x,
                      std::vector<uint32_t> &dy)
{
    x.resize(g.nx);
    dy.resize(g.ny);
    for (size_t i = 0; i < g.nx; i++)
        x[i] = x_bits(s.ty, s.fill);
    for (size_t i = 0; i < g.ny; i++)
        dy[i] = dy_bits(s.ty, s.fill);
}

// window_max's pick in window (n, i, j) of channel c: the x element index, -1 for none
// (src/ref: scan from lowest_finite, first >= then >, NaN skipped or, with PROPAGATE_NAN, the
// first NaN taken).
static long ref_pick(const Spec &s, const std::vector<uint32_t> &x, int n, int i, int j, int c)
{
    const double lowest = s.ty == F32 ? -3.4028234663852886e38 : -65504.0;
    double m = lowest;
    long pos = -1;
    for (int r = 2 * i - 1; r <= 2 * i + 1; r++)
        for (int cc = 2 * j - 1; cc <= 2 * j + 1; cc++) {
            if (r < 0 || r >= s.h || cc < 0 || cc >= s.w)
                continue;
            const size_t k = xi(s, n, r, cc, c);
            const double v = val(x, k, s.ty);
            if (v != v) {
                if (!s.prop)
                    continue;
                return (long)k;
            }
            if (pos >= 0 ? v > m : v >= m)
                m = v, pos = (long)k;
        }
    return pos;
}

// Reference on the (n, c) slices with (n * C + c) % step == 0: src/ref's gather (windows in
// ascending (i, j), double sum from 0.0, blend, one rounding) into ref (expected bits).
static void reference(const Spec &s, const Geo &g, const std::vector<uint32_t> &x,
                      const std::vector<uint32_t> &dy, int step, std::vector<uint32_t> &ref)
{
    const int H = s.h, W = s.w, OH = g.oh, OW = g.ow, planes = s.n * s.c;
    ref.assign(g.nx, bits_of(DX_OLD, s.ty));
#pragma omp parallel for schedule(dynamic, 1)
    for (int p = 0; p < planes; p += step) {
        const int n = p / s.c, c = p % s.c;
        std::vector<long> code((size_t)OH * OW);
        for (int i = 0; i < OH; i++)
            for (int j = 0; j < OW; j++)
                code[(size_t)i * OW + j] = ref_pick(s, x, n, i, j, c);
        for (int h = 0; h < H; h++)
            for (int w = 0; w < W; w++) {
                const size_t k = xi(s, n, h, w, c);
                const int ilo = std::max(0, (h - 1 + 1) / 2), ihi = std::min(OH - 1, (h + 1) / 2);
                const int jlo = std::max(0, (w - 1 + 1) / 2), jhi = std::min(OW - 1, (w + 1) / 2);
                double acc = 0.0;
                for (int i = ilo; i <= ihi; i++)
                    for (int j = jlo; j <= jhi; j++)
                        if (code[(size_t)i * OW + j] == (long)k)
                            acc += val(dy, yi(s, g, n, i, j, c), s.ty);
                double r = s.alpha * acc;
                if (s.beta != 0.0)
                    r += s.beta * DX_OLD;
                ref[k] = bits_of(r, s.ty);
            }
    }
}

static int64_t ord(uint32_t b, int ty) // monotone integer of a value's bits
{
    if (ty == F32)
        return b & 0x80000000u ? -(int64_t)(b & 0x7fffffffu) : (int64_t)b;
    return b & 0x8000u ? -(int64_t)(b & 0x7fffu) : (int64_t)b;
}
static bool is_nan(uint32_t b, int ty)
{
    return ty == F32 ? (b & 0x7fffffffu) > 0x7f800000u : (b & 0x7fffu) > 0x7c00u;
}

// *ulps: the largest distance in units of the last place over the checked slices; returns the
// mismatches (every version must give src/ref's bits).
static long check(const Spec &s, int step, const std::vector<uint32_t> &got,
                  const std::vector<uint32_t> &ref, int64_t *ulps)
{
    long bad = 0;
    *ulps = 0;
    for (int p = 0; p < s.n * s.c; p += step) {
        const int n = p / s.c, c = p % s.c;
        for (int h = 0; h < s.h; h++)
            for (int w = 0; w < s.w; w++) {
                const size_t k = xi(s, n, h, w, c);
                const uint32_t a = got[k], b = ref[k];
                if (a == b || (is_nan(a, s.ty) && is_nan(b, s.ty)))
                    continue;
                const int64_t u = is_nan(a, s.ty) || is_nan(b, s.ty)
                                      ? INT64_MAX
                                      : llabs(ord(a, s.ty) - ord(b, s.ty));
                *ulps = std::max(*ulps, u);
                if (bad++ == 0)
                    printf("  first mismatch n %d h %d w %d c %d: got 0x%x want 0x%x\n", n, h, w, c,
                           a, b);
            }
    }
    return bad;
}

// ---- versions -----------------------------------------------------------------------------
struct Ctx {
    pool_s2_t q;
    int ty, cvn;
};

static void launch_v0(const Ctx &k, const void *x, const void *dy, void *dx, double al, double be,
                      cudaStream_t st)
{ // pool_s2g_nhwc_ok's grid and pooling.cu's launch
    const pool_s2_t &q = k.q;
    const int64_t sp = (q.in_w + 1) / 2, tp = (q.in_h + 1) / 2;
    const int64_t th = (int64_t)q.planes * ((tp + 3) / 4) * ((sp + 1) / 2) * 8 * k.cvn;
    const unsigned blocks = (unsigned)((th + FD_CUDA_BLOCK - 1) / FD_CUDA_BLOCK);
    if (k.ty == F32)
        v0_f32<<<blocks, FD_CUDA_BLOCK, 0, st>>>(q, k.cvn, (int)sp, (int)tp, x, dy, dx, al, be);
    else
        v0_f16<<<blocks, FD_CUDA_BLOCK, 0, st>>>(q, k.cvn, (int)sp, (int)tp, x, dy, dx, al, be);
}

// The strips of R window rows (0: one a plane), balanced: *R rows, *nst strips.
static void cw_strips(int oh, int rows, int *R, int *nst)
{
    int r = rows <= 0 || rows > oh ? oh : rows;
    *nst = (oh + r - 1) / r;
    *R = (oh + *nst - 1) / *nst;
}

typedef void (*cw_kernel_t)(const pool_s2_t, int, int, int, const void *, const void *, void *,
                            double, double);
static void launch_cw(const Ctx &k, cw_kernel_t f32k, cw_kernel_t f16k, int rows, const void *x,
                      const void *dy, void *dx, double al, double be, cudaStream_t st,
                      int sfast = 0)
{
    const pool_s2_t &q = k.q;
    int R, nst;
    cw_strips(q.out_h, rows, &R, &nst);
    const long long th = (long long)q.planes * nst * (sfast == 2 ? 32 : q.out_w) * k.cvn;
    const unsigned blocks = (unsigned)((th + CW_THREADS - 1) / CW_THREADS);
    (k.ty == F32 ? f32k : f16k)<<<blocks, CW_THREADS, 0, st>>>(q, k.cvn, R, nst, x, dy, dx, al,
                                                                  be);
}

struct Version {
    const char *name, *what;
    int id, rows, fast, sfast;
};
static const Version versions[] = {
    {"v0", "library pool_s2g_max_bwd_nhwc (thread per 2 x 2 dx block, no loop)", 0, 0, 0, 0},
    {"v1", "column walk, channel vectors fastest, strips of 14, double sums", 1, 14, 0, 0},
    {"v2", "v1 with exact float sums (alpha 1 beta 0)", 2, 14, 1, 0},
    {"v3", "v2, strips of 7", 3, 7, 1, 0},
    {"v4", "v2, one strip a plane", 4, 0, 1, 0},
    {"v5", "v2 with column pairs fastest, strips of 4", 5, 4, 1, 1},
    {"v6", "v2 with the next step's x row 2t + 2 loaded before the codes, strips of 7", 6, 7, 1, 0},
    {"v7", "lane per column pair (32-lane rows), (t, s + 1) by shuffles, strips of 7", 7, 7, 1, 2},
    {"v8", "v7, strips of 4", 8, 4, 1, 2},
    {"v9", "v7, strips of 14", 9, 14, 1, 2},
    {"v10", "v7, strips of 10", 10, 10, 1, 2},
    {"v11", "v2 with alpha 1 / beta 0 fixed at compile time (no per-lane fast test; other alpha / beta: v2)", 11, 14, 1, 0},
};
static const int nversions = (int)(sizeof versions / sizeof versions[0]);

static void launch(int id, const Ctx &k, const void *x, const void *dy, void *dx, double al,
                   double be, cudaStream_t st)
{
    const int rows = versions[id].rows;
    switch (id) {
    case 0:
        launch_v0(k, x, dy, dx, al, be, st);
        break;
    case 1:
        launch_cw(k, v1_f32, v1_f16, rows, x, dy, dx, al, be, st);
        break;
    case 5:
        launch_cw(k, v5_f32, v5_f16, rows, x, dy, dx, al, be, st);
        break;
    case 6:
        launch_cw(k, v6_f32, v6_f16, rows, x, dy, dx, al, be, st);
        break;
    case 7:
    case 8:
    case 9:
    case 10: // rows wider than 64: v2
        if (k.q.out_w <= 32)
            launch_cw(k, v7_f32, v7_f16, rows, x, dy, dx, al, be, st, 2);
        else
            launch_cw(k, v2_f32, v2_f16, rows, x, dy, dx, al, be, st);
        break;
    case 11:
        if (al == 1.0 && be == 0.0)
            launch_cw(k, v11_f32, v11_f16, rows, x, dy, dx, al, be, st);
        else
            launch_cw(k, v2_f32, v2_f16, rows, x, dy, dx, al, be, st);
        break;
    default: // 2, 3, 4
        launch_cw(k, v2_f32, v2_f16, rows, x, dy, dx, al, be, st);
        break;
    }
}

// ---- host emulation of cw_body (index math, routing, sums), run before the GPU ------------
static int emu_code(const float *img, int prop) // pool_s2g_code + 1
{
    if (prop)
        for (int k = 0; k < 9; k++)
            if (img[k] != img[k])
                return k + 1;
    float m = -INFINITY;
    int cd = -1;
    for (int k = 0; k < 9; k++)
        if (img[k] > m)
            m = img[k], cd = k;
    return cd + 1;
}

// Runs every thread of launch_cw's grid; counts accesses that are out of bounds or misaligned
// (*bad) and dx elements not written exactly once (*dup). dx starts at DX_OLD.
static void emu_cw(const Spec &s, const Geo &g, const pool_s2_t &q, int rows, int sfast,
                   bool fastk, const std::vector<uint32_t> &x, const std::vector<uint32_t> &dy,
                   std::vector<uint32_t> &dx, long *bad, long *dup)
{
    const int L = g.L;
    int R, nst;
    cw_strips(q.out_h, rows, &R, &nst);
    const long long th = (long long)q.planes * nst * (sfast == 2 ? 32 : q.out_w) * g.cvn;
    const long long nth = (th + CW_THREADS - 1) / CW_THREADS * CW_THREADS;
    dx.assign(g.nx, bits_of(DX_OLD, s.ty));
    std::vector<int> wr(g.nx, 0);
    *bad = 0, *dup = 0;
    const bool fast = fastk && s.alpha == 1.0 && s.beta == 0.0;
    auto acc_ok = [&](long off, size_t lim) {
        if (off < 0 || off % L != 0 || (size_t)off + L > lim)
            return (*bad)++, false;
        return true;
    };
    for (long long e = 0; e < nth; e++) {
        int n, st, sx, cv;
        cw_place((int)e, g.cvn, q.out_w, nst, sfast, &n, &st, &sx, &cv);
        if (n >= q.planes || sx >= q.out_w) // sfast 2: a dead lane touches nothing
            continue;
        if (sfast == 2 && sx + 1 < q.out_w) { // window (t, s + 1) is lane + 1's (t, s)
            int n1, st1, s1, cv1;
            cw_place((int)e + 1, g.cvn, q.out_w, nst, sfast, &n1, &st1, &s1, &cv1);
            if (n1 != n || st1 != st || s1 != sx + 1 || cv1 != cv || (e + 1) / 32 != e / 32)
                (*bad)++;
        }
        const long xb = (long)n * q.xs_n + cv * L, yb = (long)n * q.gs_n + cv * L;
        const int t0 = st * R, t1 = std::min(t0 + R, q.out_h);
        const int tb = t0 > 0 ? t0 - 1 : 0, te = t1 == q.out_h ? t1 : t1 - 1;
        const int c0 = 2 * sx - 1;
        const bool has1 = sx + 1 < q.out_w, odd = 2 * sx + 1 < q.in_w;
        // cells [row 0..2][col 0..4][lane] of the window rows 2t - 1 .. 2t + 1
        std::vector<float> a(5 * 8), b(5 * 8), c(5 * 8);
        auto ldrow = [&](int row, std::vector<float> &v) {
            for (int l5 = 0; l5 < 5; l5++) {
                const int col = c0 + l5;
                for (int l = 0; l < L; l++)
                    v[l5 * 8 + l] = -INFINITY;
                if (row < 0 || row >= q.in_h || col < 0 || col >= q.in_w)
                    continue;
                const long off = xb + (long)row * q.xs_h + (long)col * q.xs_w;
                if (acc_ok(off, g.nx))
                    for (int l = 0; l < L; l++)
                        v[l5 * 8 + l] = (float)val(x, off + l, s.ty);
            }
        };
        auto code = [&](int off, int l) {
            float img[9];
            for (int k = 0; k < 9; k++) {
                const std::vector<float> &r = k < 3 ? a : k < 6 ? b : c;
                img[k] = r[(off + k % 3) * 8 + l];
            }
            return emu_code(img, s.prop);
        };
        auto ldy = [&](int t, int j, std::vector<double> &gv) {
            gv.assign(8, 0.0);
            const long off = yb + (long)t * q.gs_h + (long)j * q.gs_w;
            if (acc_ok(off, g.ny))
                for (int l = 0; l < L; l++)
                    gv[l] = val(dy, off + l, s.ty);
        };
        // term: (code word lanes, wanted code + 1, dy lanes)
        struct T {
            const std::vector<int> *k;
            int want;
            const std::vector<double> *gv;
        };
        auto store = [&](int row, int col, const std::vector<T> &tm) {
            const long off = xb + (long)row * q.ds_h + (long)col * q.ds_w;
            if (!acc_ok(off, g.nx))
                return;
            for (int l = 0; l < L; l++) {
                uint32_t r;
                if (fast && tm.size() <= 2) {
                    float f = 0.f;
                    for (const T &u : tm)
                        if ((*u.k)[l] == u.want)
                            f += (float)(*u.gv)[l];
                    r = s.ty == F32 ? fbits(f) : d2h((double)f);
                } else {
                    double d = 0.0;
                    for (const T &u : tm)
                        if ((*u.k)[l] == u.want)
                            d += (*u.gv)[l];
                    double v = s.alpha * d;
                    if (s.beta != 0.0)
                        v += s.beta * val(dx, off + l, s.ty);
                    r = bits_of(v, s.ty);
                }
                dx[off + l] = r, wr[off + l]++;
            }
        };
        ldrow(2 * tb - 1, a);
        std::vector<int> kp0(8, 0), kp1(8, 0), k0(8), k1(8);
        std::vector<double> gp0(8, 0.0), gp1(8, 0.0), g0(8), g1(8);
        for (int t = tb; t <= te; t++) {
            ldrow(2 * t, b), ldrow(2 * t + 1, c);
            g0.assign(8, 0.0), g1.assign(8, 0.0);
            const bool w = t < q.out_h;
            if (w)
                ldy(t, sx, g0);
            if (w && has1)
                ldy(t, sx + 1, g1);
            for (int l = 0; l < 8; l++) {
                k0[l] = w && l < L ? code(0, l) : 0;
                k1[l] = w && has1 && l < L ? code(2, l) : 0;
            }
            if (t >= t0) {
                const int r = 2 * t - 1;
                if (r >= 0 && r < q.in_h) {
                    store(r, 2 * sx, {{&kp0, 8, &gp0}, {&k0, 2, &g0}});
                    if (odd)
                        store(r, 2 * sx + 1,
                              {{&kp0, 9, &gp0}, {&kp1, 7, &gp1}, {&k0, 3, &g0}, {&k1, 1, &g1}});
                }
                if (t < t1) {
                    store(2 * t, 2 * sx, {{&k0, 5, &g0}});
                    if (odd)
                        store(2 * t, 2 * sx + 1, {{&k0, 6, &g0}, {&k1, 4, &g1}});
                }
            }
            a = c, kp0 = k0, kp1 = k1, gp0 = g0, gp1 = g1;
        }
    }
    for (size_t i = 0; i < g.nx; i++)
        *dup += wr[i] != 1;
}

static const char *fill_name[] = {"real", "ties", "equal", "special", "ninf"};

static const char *ty_name(int ty)
{
    return ty == F32 ? "f32" : "f16";
}
static void pname_of(const Spec &s, char *b, size_t n)
{
    snprintf(b, n, "n%dc%dh%dw%d/%s%s%s", s.n, s.c, s.h, s.w, fill_name[s.fill],
             s.prop ? "/propagate" : "", s.beta != 0 ? "/blend" : "");
}

// Buffer sets: x | dy | dx in one cudaMalloc, each part on a 256-byte boundary (16-byte vectors
// aligned, as pool_vec_ok wants).
struct Lay {
    size_t xoff, dyoff, dxoff, setb;
};
static size_t up256(size_t b)
{
    return (b + 255) / 256 * 256;
}
static Lay lay_of(const Geo &g, int es)
{
    Lay l;
    l.xoff = 0;
    l.dyoff = up256(g.nx * es);
    l.dxoff = up256(l.dyoff + g.ny * es);
    l.setb = up256(l.dxoff + g.nx * es);
    return l;
}

// The problems, in run order: the two timed ones first, then the small shapes (FLOAT, HALF);
// cv: C in 16-byte vectors.
static std::vector<Spec> all_specs()
{
    std::vector<Spec> v;
    v.push_back({F16, 32, 256, 56, 56, FILL_REAL, 0, 1, 0, true});
    v.push_back({F32, 32, 128, 56, 56, FILL_REAL, 0, 1, 0, true});
    for (int ty = 0; ty < 2; ty++) {
        const int L = ty == F32 ? 4 : 8;
        v.push_back({ty, 2, 1 * L, 7, 9, FILL_REAL, 0, 1, 0, false});
        v.push_back({ty, 1, 2 * L, 57, 57, FILL_REAL, 0, 1, 0, false});
        v.push_back({ty, 2, 1 * L, 1, 1, FILL_REAL, 0, 1, 0, false});
        v.push_back({ty, 1, 2 * L, 1, 20, FILL_REAL, 0, 1, 0, false});
        v.push_back({ty, 1, 2 * L, 21, 1, FILL_REAL, 0, 1, 0, false});
        v.push_back({ty, 2, 2 * L, 2, 3, FILL_TIES, 0, 1, 0, false});
        v.push_back({ty, 1, 3 * L, 56, 56, FILL_TIES, 0, 1, 0, false});
        v.push_back({ty, 1, 1 * L, 8, 10, FILL_EQUAL, 0, 1, 0, false});
        v.push_back({ty, 1, 3 * L, 13, 64, FILL_TIES, 0, 1, 0, false});
        v.push_back({ty, 1, 2 * L, 9, 63, FILL_REAL, 0, 1, 0, false});
        v.push_back({ty, 1, 32 * L, 15, 17, FILL_REAL, 0, 1, 0, false});
        v.push_back({ty, 1, 3 * L, 11, 15, FILL_SPECIAL, 0, 1, 0, false});
        v.push_back({ty, 1, 3 * L, 11, 15, FILL_SPECIAL, 1, 1, 0, false});
        v.push_back({ty, 1, 2 * L, 30, 29, FILL_SPECIAL, 1, 1, 0, false});
        v.push_back({ty, 1, 1 * L, 10, 12, FILL_NINF, 1, 1, 0, false});
        v.push_back({ty, 1, 2 * L, 9, 7, FILL_REAL, 0, 2, 0.5, false});
        v.push_back({ty, 2, 3 * L, 29, 31, FILL_TIES, 1, -1, 0.25, false});
    }
    return v;
}

// Host-only checks (any machine): the emulation of v1 .. v7's threads (strips of 14, 7, 4, 1 and
// whole planes; both thread orders; double and float sums) against the reference bits on the
// small shapes, with every access in bounds and aligned and every dx element written once.
static int host_checks(const std::vector<Spec> &specs)
{
    int ebad = 0, en = 0;
    long abad = 0, adup = 0;
    for (const Spec &s : specs) {
        if (s.timed)
            continue;
        const Geo g = geo_of(s);
        const pool_s2_t q = prob_of(s, g);
        std::vector<uint32_t> x, dy, ref, dx;
        make_data(s, g, x, dy);
        reference(s, g, x, dy, 1, ref);
        const int rows[5] = {14, 7, 4, 1, 0};
        for (int r = 0; r < 5; r++)
            for (int m = 0; m < 6; m++) {
                if (m % 3 == 2 && q.out_w > 32) // v8..v10 run v2 there
                    continue;
                long b, d;
                en++;
                emu_cw(s, g, q, rows[r], m % 3, m / 3, x, dy, dx, &b, &d);
                abad += b, adup += d;
                int64_t u;
                if (check(s, 1, dx, ref, &u) || b || d) {
                    printf("emu rows %d %s %s sums %s n%dc%dh%dw%d fill %d prop %d: %ld bad "
                           "accesses, %ld elements not written once FAIL\n",
                           rows[r], m % 3 == 2 ? "lane-s" : m % 3 ? "s-fastest" : "cv-fastest",
                           m / 3 ? "float" : "double",
                           ty_name(s.ty), s.n, s.c, s.h, s.w, s.fill, s.prop, b, d);
                    ebad++;
                }
            }
    }
    printf("host emulation of the column walks: %d of %d runs match the reference bits, %ld bad "
           "accesses, %ld dx elements not written once %s\n",
           en - ebad, en, abad, adup, ebad ? "FAIL" : "ok");
    fflush(stdout);
    return ebad;
}

// Small-shape results per (type, version): one summary line each at the end.
struct Agg {
    int bad, bitid, runs;
    int64_t ulps;
};
static std::vector<Agg> agg(2 * nversions, Agg{0, 1, 0, 0});
static void agg_add(int ty, int vi, int bad, int64_t ulps, int bitid)
{
    Agg &a = agg[ty * nversions + vi];
    a.bad += bad != 0, a.bitid &= bitid != 0, a.runs++, a.ulps = std::max(a.ulps, ulps);
}
static void print_summaries()
{
    for (int ty = 0; ty < 2; ty++)
        for (int vi = 0; vi < nversions; vi++) {
            const Agg &a = agg[ty * nversions + vi];
            if (a.runs > 0)
                printf("%s %s small-shapes(%d) - us - GB/s maxulp %lld bitid=%s %s\n",
                       versions[vi].name, ty_name(ty), a.runs, (long long)a.ulps,
                       a.bitid ? "yes" : "no", a.bad ? "FAIL" : "ok");
        }
}
// Set by --child: this process runs problems for the supervisor and writes markers on stdout
// ("#P k v": problem k, version v starts, v = -1 its setup; "#D k v": v's result printed; "#S
// ty v bad ulps bitid": a small-shape result; "#E fails": the range done).
static bool g_child = false;

// Runs problems first .. last - 1 (versions before vskip skipped in the first one; v0 rerun
// silently for bit identity when it was not the one that died). Returns the failed checks; a
// launch error prints its FAIL line and exits (3 in a child: the CUDA context is lost).
static int run_problems(const std::vector<Spec> &specs, int first, int last, int vskip, int only,
                        bool check_only)
{
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    int fails = 0;
    for (int si = first; si < last; si++) {
        const Spec &s = specs[si];
        if (g_child) {
            printf("#P %d -1\n", si);
            alarm(20); // a hang ends only this child
        }
        const Geo g = geo_of(s);
        const int es = s.ty == F32 ? 4 : 2, step = s.timed ? 7 : 1;
        Ctx k;
        k.q = prob_of(s, g), k.ty = s.ty, k.cvn = g.cvn;
        char pname[96];
        pname_of(s, pname, sizeof pname);
        std::vector<uint32_t> x, dy;
        make_data(s, g, x, dy);
        std::vector<uint32_t> ref;
        reference(s, g, x, dy, step, ref);
        // device: sets of x | dy | dx (lay_of: each part 256-byte aligned; the copy baseline
        // copies the first half of a set onto its second half); enough sets that the footprint
        // is > 150 MB
        const Lay L = lay_of(g, es);
        const size_t setb = L.setb, xoff = L.xoff, dyoff = L.dyoff, dxoff = L.dxoff;
        const int nsets = s.timed ? (int)std::max<size_t>(2, 160000000 / setb + 1) : 1;
        std::vector<unsigned char *> sets(nsets);
        std::vector<unsigned char> hx(g.nx * es), hy(g.ny * es);
        for (size_t i = 0; i < g.nx; i++)
            memcpy(&hx[i * es], &x[i], es);
        for (size_t i = 0; i < g.ny; i++)
            memcpy(&hy[i * es], &dy[i], es);
        // x and dy into every set (again after the copy baseline, which writes over the second
        // half of a set: the tail of dy and dx)
        auto upload = [&]() {
            for (int b = 0; b < nsets; b++) {
                CK(cudaMemcpy(sets[b] + xoff, hx.data(), hx.size(), cudaMemcpyHostToDevice));
                CK(cudaMemcpy(sets[b] + dyoff, hy.data(), hy.size(), cudaMemcpyHostToDevice));
            }
        };
        for (int b = 0; b < nsets; b++)
            CK(cudaMalloc(&sets[b], setb));
        upload();
        std::vector<unsigned char> dxold(g.nx * es);
        for (size_t i = 0; i < g.nx; i++) {
            const uint32_t b = bits_of(DX_OLD, s.ty);
            memcpy(&dxold[i * es], &b, es);
        }
        const double bytes = (double)(2 * g.nx + g.ny) * es; // x, dy read, dx written
        const int reps = nsets * std::max(1, 12 / nsets); // launches a graph replay
        auto time_graph = [&](auto &&body) -> double {
            cudaGraph_t gr;
            cudaGraphExec_t ex;
            CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
            for (int r = 0; r < reps; r++)
                body(sets[r % nsets]);
            CK(cudaStreamEndCapture(st, &gr));
            CK(cudaGraphInstantiate(&ex, gr, 0));
            for (int r = 0; r < 3; r++)
                CK(cudaGraphLaunch(ex, st));
            std::vector<float> ts;
            for (int r = 0; r < 15; r++) {
                CK(cudaEventRecord(e0, st));
                CK(cudaGraphLaunch(ex, st));
                CK(cudaEventRecord(e1, st));
                CK(cudaEventSynchronize(e1));
                float ms;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                ts.push_back(ms);
            }
            CK(cudaGraphExecDestroy(ex));
            CK(cudaGraphDestroy(gr));
            std::sort(ts.begin(), ts.end());
            return ts[ts.size() / 2] * 1e3 / reps; // us a launch
        };
        const bool resumed = si == first && vskip > 0;
        if (s.timed && !check_only && only < 0 && !resumed) {
            const double us = time_graph([&](unsigned char *b) {
                CK(cudaMemcpyAsync(b + setb / 2, b, setb / 2, cudaMemcpyDeviceToDevice, st));
            });
            printf("copy %s %s %.2f us %.0f GB/s (device copy of the same bytes: read + write)\n",
                   ty_name(s.ty), pname, us, 2.0 * (setb / 2) / us * 1e-3);
            upload();
        }
        std::vector<uint32_t> v0out;
        for (int vi = 0; vi < nversions; vi++) {
            const Version &v = versions[vi];
            if (only >= 0 && v.id != only && v.id != 0)
                continue;
            const bool quiet = resumed && vi < vskip; // v0 rerun for bit identity only
            if (quiet && !(vi == 0 && vskip > 1))
                continue;
            if (g_child)
                printf("#P %d %d\n", si, vi);
            CK(cudaMemcpy(sets[0] + dxoff, dxold.data(), dxold.size(), cudaMemcpyHostToDevice));
            launch(v.id, k, sets[0] + xoff, sets[0] + dyoff, sets[0] + dxoff, s.alpha, s.beta,
                   st);
            cudaError_t err = cudaStreamSynchronize(st);
            if (err == cudaSuccess)
                err = cudaGetLastError();
            if (err != cudaSuccess) {
                printf("%s %s %s launch error %s FAIL\n", v.name, ty_name(s.ty), pname,
                       cudaGetErrorString(err));
                fflush(stdout);
                exit(g_child ? 3 : 1); // the context is gone
            }
            std::vector<unsigned char> hd(g.nx * es);
            CK(cudaMemcpy(hd.data(), sets[0] + dxoff, hd.size(), cudaMemcpyDeviceToHost));
            std::vector<uint32_t> got(g.nx, 0);
            for (size_t i = 0; i < g.nx; i++)
                memcpy(&got[i], &hd[i * es], es);
            if (quiet) {
                v0out = got;
                continue;
            }
            int64_t ulps;
            const long bad = check(s, step, got, ref, &ulps);
            bool bitid = true;
            if (v.id == 0)
                v0out = got;
            else if (!v0out.empty())
                bitid = got == v0out;
            else
                bitid = false;
            if (bad)
                fails++;
            if (!s.timed) {
                if (g_child)
                    printf("#S %d %d %d %lld %d\n", s.ty, vi, bad != 0, (long long)ulps,
                           (int)bitid);
                else
                    agg_add(s.ty, vi, bad != 0, ulps, bitid);
                if (bad)
                    printf("%s %s %s %ld mismatches FAIL\n", v.name, ty_name(s.ty), pname, bad);
            } else {
                double us = 0;
                if (!check_only && !bad)
                    us = time_graph([&](unsigned char *b) {
                        launch(v.id, k, b + xoff, b + dyoff, b + dxoff, s.alpha, s.beta, st);
                    });
                printf("%s %s %s %.2f us %.0f GB/s maxulp %lld bitid=%s %s\n", v.name,
                       ty_name(s.ty), pname, us, us > 0 ? bytes / us * 1e-3 : 0.0,
                       (long long)ulps, bitid ? "yes" : "no", bad ? "FAIL" : "ok");
            }
            if (g_child)
                printf("#D %d %d\n", si, vi);
            fflush(stdout);
        }
        for (int b = 0; b < nsets; b++)
            CK(cudaFree(sets[b]));
    }
    if (g_child)
        alarm(0);
    return fails;
}

// Runs all problems in child processes (this binary with --child), one after another, reading
// their markers: when a child dies (a launch error loses the CUDA context; a signal; the 20 s
// watchdog a problem) the next child resumes after the version that was running. Returns the
// failures.
static int supervise(const std::vector<Spec> &specs, const char *self, int only, bool check_only)
{
    int fails = 0, first = 0, vskip = 0, deaths = 0;
    const int nspec = (int)specs.size();
    while (first < nspec) {
        char a1[16], a2[16], a3[16], a4[16];
        snprintf(a1, sizeof a1, "%d", first);
        snprintf(a2, sizeof a2, "%d", nspec);
        snprintf(a3, sizeof a3, "%d", vskip);
        snprintf(a4, sizeof a4, "v%d", only);
        std::vector<const char *> av = {self, "--child", a1, a2, a3};
        if (only >= 0)
            av.push_back("--only"), av.push_back(a4);
        if (check_only)
            av.push_back("--check");
        av.push_back(nullptr);
        int fd[2];
        if (pipe(fd) != 0) {
            perror("pipe");
            return fails + 1;
        }
        fflush(stdout);
        fflush(stderr);
        const pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return fails + 1;
        }
        if (pid == 0) {
            dup2(fd[1], 1);
            close(fd[0]);
            close(fd[1]);
            execv(self, (char *const *)av.data());
            perror("execv");
            _exit(127);
        }
        close(fd[1]);
        FILE *in = fdopen(fd[0], "r");
        int ck = -1, cv = -1, done_v = 0, done = 0;
        char line[1024];
        while (in && fgets(line, sizeof line, in)) {
            int a, b, c, e;
            long long u;
            if (line[0] != '#') {
                fputs(line, stdout);
                fflush(stdout);
            } else if (sscanf(line, "#P %d %d", &a, &b) == 2) {
                ck = a, cv = b, done_v = 0;
            } else if (sscanf(line, "#D %d %d", &a, &b) == 2) {
                done_v = 1;
            } else if (sscanf(line, "#S %d %d %d %lld %d", &a, &b, &c, &u, &e) == 5) {
                agg_add(a, b, c, (int64_t)u, e);
            } else if (sscanf(line, "#E %d", &a) == 1) {
                fails += a, done = 1;
            }
        }
        if (in)
            fclose(in);
        else
            close(fd[0]);
        int ws = 0;
        waitpid(pid, &ws, 0);
        if (done)
            break;
        fails++;
        char why[48];
        if (WIFEXITED(ws))
            snprintf(why, sizeof why, "exit %d", WEXITSTATUS(ws));
        else if (WIFSIGNALED(ws))
            snprintf(why, sizeof why, "signal %d%s", WTERMSIG(ws),
                     WTERMSIG(ws) == SIGALRM ? ", the 20 s watchdog" : "");
        else
            snprintf(why, sizeof why, "status 0x%x", ws);
        if (ck < 0) {
            printf("child died before its first problem (%s): giving up FAIL\n", why);
            break;
        }
        const Spec &s = specs[ck];
        char pn[96];
        pname_of(s, pn, sizeof pn);
        if (!(WIFEXITED(ws) && WEXITSTATUS(ws) == 3)) // 3: it printed the launch error itself
            printf("%s %s %s child died%s (%s) FAIL\n", cv >= 0 ? versions[cv].name : "setup",
                   ty_name(s.ty), pn, done_v ? " after this version's line" : "", why);
        if (cv >= 0 && !done_v && !s.timed)
            agg_add(s.ty, cv, 1, 0, 0);
        if (cv < 0 || cv + 1 >= nversions)
            first = ck + 1, vskip = 0;
        else
            first = ck, vskip = cv + 1;
        if (++deaths >= 12) {
            printf("%d children died: giving up FAIL\n", deaths);
            break;
        }
    }
    return fails;
}

int main(int argc, char **argv)
{
    int only = -1, problem = -1, cfirst = -1, clast = 0, cskip = 0;
    bool check_only = false, inproc = false, list = false;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--only") && a + 1 < argc) {
            const char *v = argv[++a];
            only = atoi(v + (v[0] == 'v'));
        } else if (!strcmp(argv[a], "--check")) {
            check_only = true;
        } else if (!strcmp(argv[a], "--problem") && a + 1 < argc) {
            problem = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--inproc")) {
            inproc = true;
        } else if (!strcmp(argv[a], "--list")) {
            list = true;
        } else if (!strcmp(argv[a], "--child") && a + 3 < argc) {
            cfirst = atoi(argv[a + 1]), clast = atoi(argv[a + 2]), cskip = atoi(argv[a + 3]);
            a += 3;
        } else {
            fprintf(stderr,
                    "usage: %s [--only vN] [--check] [--problem K | --inproc] [--list]\n",
                    argv[0]);
            return 2;
        }
    }
    const std::vector<Spec> specs = all_specs();
    const int nspec = (int)specs.size();
    if (list) {
        for (int k = 0; k < nspec; k++) {
            char pn[96];
            pname_of(specs[k], pn, sizeof pn);
            printf("%d %s %s%s\n", k, ty_name(specs[k].ty), pn, specs[k].timed ? " (timed)" : "");
        }
        return 0;
    }
    if (cfirst >= 0) { // a child of supervise
        if (cfirst >= nspec || clast > nspec || cfirst >= clast)
            return 2;
        g_child = true;
        setvbuf(stdout, NULL, _IOLBF, 0);
        const int f = run_problems(specs, cfirst, clast, cskip, only, check_only);
        printf("#E %d\n", f);
        return f ? 1 : 0;
    }
    if (problem >= nspec) {
        fprintf(stderr, "--problem: 0 .. %d (--list)\n", nspec - 1);
        return 2;
    }
    int fails = host_checks(specs);
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("no GPU\n");
        return 77;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
    fflush(stdout);
    if (problem >= 0 || inproc) {
        fails += run_problems(specs, problem >= 0 ? problem : 0, problem >= 0 ? problem + 1 : nspec,
                              0, only, check_only);
    } else {
        char self[4096];
        const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n > 0)
            self[n] = 0;
        else
            snprintf(self, sizeof self, "%s", argv[0]);
        fails += supervise(specs, self, only, check_only);
    }
    print_summaries();
    printf("%s\n", fails ? "SOME CHECKS FAILED" : "all checks passed");
    return fails ? 1 : 0;
}
