// SPDX-License-Identifier: MIT
// dev/pool_bwd - max-pool backward of ResNet's stem pool (3x3 window, stride 2, pad 1, NCHW,
// MAX, alpha / beta blend), llm.c-style sandbox: v0 = the library's pool_smb_max_bwd_* of
// src/cuda/pooling_smb.cuh (copied verbatim with the pooling_s2g.cuh helpers it uses), v1.. =
// candidate speed-ups, a CPU reference with src/ref/pooling_ref.c's semantics, a checker
// (max error in ulps against the reference, bit identity against v0) and a CUDA-graph timer
// over rotated buffer sets (footprint > 3 x the 50 MB L2). README.md has the versions.
// Usage: pool_bwd [--only vN] [--check] [--problem K | --inproc] [--list]. The problems run in
// child processes (a launch error loses only the version that made it). Exit 77 without a GPU,
// 1 when a check fails.
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
#include <type_traits>
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

// pool_s2_t of pooling.cu (the fields the backward kernels read)
typedef struct {
    int c, planes, in_h, in_w, out_h, out_w;
    int propagate;
    int xs_n, xs_c, xs_h, xs_w, gs_n, gs_c, gs_h, gs_w, ds_n, ds_c, ds_h, ds_w;
} pool_s2_t;

// ---- v0: verbatim from src/cuda/pooling_s2g.cuh (helpers) and pooling_smb.cuh ----------------
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

/* Tile geometry of a launch (host-chosen): R window rows a tile, nt tiles a plane, xw shared
 * x row in cells, ow1 = out_w + 1 windows a shared row. */
typedef struct {
    int R, nt, xw, ow1;
} pool_smb_t;

#define POOL_SMB_THREADS 256
#define POOL_SMB_MINB 5
#define POOL_SMB_UNR 3 /* x vectors a thread loads before it stores them (phase 0) */

static __host__ __device__ __forceinline__ int pool_smb_xcells(const pool_smb_t &m)
{
    return (2 * m.R + 3) * m.xw;
}
static __host__ __device__ __forceinline__ int pool_smb_wcells(const pool_smb_t &m)
{
    return (m.R + 1) * m.ow1;
}
static __host__ __forceinline__ size_t pool_smb_bytes(const pool_smb_t &m)
{
    return (size_t)pool_smb_xcells(m) * 4 + (size_t)pool_smb_wcells(m) * 5;
}

/* The 4 elements of a vector at p (16 bytes of FLOAT, 8 of a 16-bit type) as floats. */
static __device__ __forceinline__ float4 pool_smb_ld4(const void *p, const int ty)
{
    if (ty == POOL_S2G_F32)
        return *(const float4 *)p;
    const uint2 u = *(const uint2 *)p;
    return make_float4(pool_s2g_w16(u.x, 0, ty), pool_s2g_w16(u.x, 1, ty), pool_s2g_w16(u.y, 0, ty),
                       pool_s2g_w16(u.y, 1, ty));
}

/* A running (a, b) = divmod(e, d) for e = e0, e0 + step, ...: (qs, rs) = divmod(step, d). */
struct pool_smb_walk {
    int a, b, qs, rs, d;
    __device__ __forceinline__ pool_smb_walk(int e0, int step, int d_) : d(d_)
    {
        a = e0 / d, b = e0 - a * d, qs = step / d, rs = step - qs * d;
    }
    __device__ __forceinline__ void next()
    {
        a += qs, b += rs;
        if (b >= d)
            b -= d, a++;
    }
};

/* dx = alpha * acc + beta * dx (fd_cuda_blend's rule and roundings) for 2 elements at p (n2:
 * both, else the first only). */
static __device__ __forceinline__ void pool_smb_store2(void *p, double alpha, double beta,
                                                       double a0, double a1, bool n2, const int ty)
{
    double s0 = __dmul_rn(alpha, a0), s1 = __dmul_rn(alpha, a1);
    if (beta != 0.0) {
        s0 = __dadd_rn(s0, __dmul_rn(beta, (double)pool_s2g_ld(p, 0, ty)));
        if (n2)
            s1 = __dadd_rn(s1, __dmul_rn(beta, (double)pool_s2g_ld(p, 1, ty)));
    }
    const unsigned r0 = pool_s2g_bits(s0, ty), r1 = pool_s2g_bits(s1, ty);
    if (ty == POOL_S2G_F32) {
        if (n2)
            *(uint2 *)p = make_uint2(r0, r1);
        else
            *(unsigned *)p = r0;
    } else {
        if (n2)
            *(unsigned *)p = r0 | r1 << 16;
        else
            *(unsigned short *)p = (unsigned short)r0;
    }
}

static __device__ __forceinline__ void pool_smb_body(const pool_s2_t &q, const pool_smb_t &m,
                                                     const void *xv, const void *dyv, void *dxv,
                                                     double alpha, double beta, const int ty)
{
    extern __shared__ float4 pool_smb_mem[];
    float *xs = (float *)pool_smb_mem;
    const int xcells = pool_smb_xcells(m), wcells = pool_smb_wcells(m);
    float *gs = xs + xcells;
    signed char *cs = (signed char *)(gs + wcells);
    const int XW = m.xw, OW1 = m.ow1, W = q.in_w;
    const float ni = POOL_S2G_NINF;

    /* a plane's tiles are neighbouring blocks: their halo rows meet in L2 */
    const int b = (int)blockIdx.x, pl = b / m.nt, tile = b - pl * m.nt;
    const int n = pl / q.c, c = pl - n * q.c;
    const void *xc = pool_s2g_at(xv, n * q.xs_n + c * q.xs_c, ty);
    const void *dyc = pool_s2g_at(dyv, n * q.gs_n + c * q.gs_c, ty);
    void *dxc = pool_s2g_atw(dxv, n * q.ds_n + c * q.ds_c, ty);
    const int t0 = tile * m.R, xr0 = 2 * t0 - 1, XR = 2 * m.R + 3;
    const int tid = (int)threadIdx.x, nth = (int)blockDim.x;

    /* phase 0: dy of window rows t0 .. t0 + R (a thread's first POOL_SMB_UNR held), x rows
     * xr0 .. xr0 + XR - 1 in batches of POOL_SMB_UNR vectors a thread */
    float gv[POOL_SMB_UNR];
    {
        pool_smb_walk w(tid, nth, OW1);
#pragma unroll
        for (int u = 0; u < POOL_SMB_UNR; u++, w.next()) {
            const int i = t0 + w.a;
            gv[u] = w.a <= m.R && i < q.out_h && w.b < q.out_w
                        ? pool_s2g_ld(dyc, i * q.gs_h + w.b * q.gs_w, ty)
                        : 0.f;
        }
    }
    const int nv = (W + 3) / 4;
    {
        pool_smb_walk w(tid, nth, nv);
        for (int e0 = 0; e0 < XR * nv; e0 += POOL_SMB_UNR * nth) {
            float4 o[POOL_SMB_UNR];
            int at[POOL_SMB_UNR];
#pragma unroll
            for (int u = 0; u < POOL_SMB_UNR; u++, w.next()) {
                const int lr = w.a, c0 = 4 * w.b, row = xr0 + lr;
                o[u] = make_float4(ni, ni, ni, ni);
                at[u] = lr < XR ? lr * XW + 4 + c0 : -1;
                if (lr >= XR || row < 0 || row >= q.in_h)
                    continue;
                const void *p = pool_s2g_at(xc, row * q.xs_h + c0, ty);
                if (c0 + 3 < W) {
                    o[u] = pool_smb_ld4(p, ty);
                } else {
                    o[u].x = pool_s2g_ld(p, 0, ty);
                    if (c0 + 1 < W)
                        o[u].y = pool_s2g_ld(p, 1, ty);
                    if (c0 + 2 < W)
                        o[u].z = pool_s2g_ld(p, 2, ty);
                }
            }
#pragma unroll
            for (int u = 0; u < POOL_SMB_UNR; u++)
                if (at[u] >= 0)
                    *(float4 *)(xs + at[u]) = o[u];
        }
    }
#pragma unroll
    for (int u = 0; u < POOL_SMB_UNR; u++)
        if (tid + u * nth < wcells)
            gs[tid + u * nth] = gv[u];
    {
        pool_smb_walk w(tid + POOL_SMB_UNR * nth, nth, OW1);
        for (int e = tid + POOL_SMB_UNR * nth; e < wcells; e += nth, w.next()) {
            const int i = t0 + w.a;
            gs[e] = i < q.out_h && w.b < q.out_w ? pool_s2g_ld(dyc, i * q.gs_h + w.b * q.gs_w, ty)
                                                 : 0.f;
        }
    }
    /* pad cells: column -1 (cell 3) and the cells past the row's vectors */
    const int pc0 = 4 + 4 * nv, npc = 1 + XW - pc0;
    {
        pool_smb_walk w(tid, nth, npc);
        for (int e = tid; e < XR * npc; e += nth, w.next())
            xs[w.a * XW + (w.b == 0 ? 3 : pc0 + w.b - 1)] = ni;
    }
    __syncthreads();

    /* phase 1: the argmax of every window of the tile */
    {
        pool_smb_walk w(tid, nth, OW1);
        for (int e = tid; e < wcells; e += nth, w.next()) {
            const int li = w.a, j = w.b;
            int cd = -1;
            if (t0 + li < q.out_h && j < q.out_w) {
                /* cells: x rows 2 li .. 2 li + 2 of the tile, columns 2j - 1 .. 2j + 1 */
                const float *p = xs + 2 * li * XW + 3 + 2 * j;
                float img[9];
#pragma unroll
                for (int k = 0; k < 9; k++)
                    img[k] = p[(k / 3) * XW + k % 3];
                cd = pool_s2g_code(img, q.propagate);
            }
            cs[e] = (signed char)cd;
        }
    }
    __syncthreads();

    /* phase 2: a thread per 2 x 2 dx block (tile row pair lt, column pair s) */
    const int sp = (W + 1) / 2, pairs = min(m.R, (q.in_h + 1) / 2 - t0);
    pool_smb_walk w(tid, nth, sp);
    for (int e = tid; e < pairs * sp; e += nth, w.next()) {
        const int lt = w.a, s = w.b;
        const int k00 = lt * OW1 + s, k10 = k00 + OW1; /* windows (t, s), (t + 1, s) */
        const int c00 = cs[k00], c01 = cs[k00 + 1], c10 = cs[k10], c11 = cs[k10 + 1];
        const double g00 = gs[k00], g01 = gs[k00 + 1], g10 = gs[k10], g11 = gs[k10 + 1];
        double a00 = 0.0, a01 = 0.0, a10 = 0.0, a11 = 0.0;
        if (c00 == 4)
            a00 += g00;
        if (c00 == 5)
            a01 += g00;
        if (c01 == 3)
            a01 += g01;
        if (c00 == 7)
            a10 += g00;
        if (c10 == 1)
            a10 += g10;
        if (c00 == 8)
            a11 += g00;
        if (c01 == 6)
            a11 += g01;
        if (c10 == 2)
            a11 += g10;
        if (c11 == 0)
            a11 += g11;
        const int row = 2 * (t0 + lt), col = 2 * s;
        const bool n2 = col + 1 < W;
        pool_smb_store2(pool_s2g_atw(dxc, row * q.ds_h + col, ty), alpha, beta, a00, a01, n2, ty);
        if (row + 1 < q.in_h)
            pool_smb_store2(pool_s2g_atw(dxc, (row + 1) * q.ds_h + col, ty), alpha, beta, a10, a11,
                            n2, ty);
    }
}

/* v0 kernels: pool_smb_max_bwd_{f32,f16} renamed. */
#define POOL_SMB_KERNEL(name, ty)                                                                  \
    static __global__ void __launch_bounds__(POOL_SMB_THREADS, POOL_SMB_MINB)                      \
        name(const pool_s2_t q, const pool_smb_t m, const void *xv, const void *dyv, void *dxv,    \
             double alpha, double beta)                                                            \
    {                                                                                              \
        pool_smb_body(q, m, xv, dyv, dxv, alpha, beta, ty);                                        \
    }
POOL_SMB_KERNEL(v0_f32, POOL_S2G_F32)
POOL_SMB_KERNEL(v0_f16, POOL_S2G_F16)
#undef POOL_SMB_KERNEL

// ---- v1..: a lane per dx column pair walking down a strip of window rows ------------------------
//
// A warp owns one strip of a plane: window rows t0 .. t1 - 1 (t1 = min(t0 + R, (H + 1) / 2)),
// i.e. dx rows 2 t0 .. 2 t1 - 1; lane s owns dx columns 2s, 2s + 1 and window column s (the whole
// row in one warp: (W + 1) / 2 <= 32, else the host runs v0). Step t (t0 .. t1) evaluates window
// (t, s) from x rows 2t - 1 (kept from step t - 1), 2t, 2t + 1 (one 8-byte FLOAT / 4-byte 16-bit
// load each at columns 2s, 2s + 1; column 2s - 1 from lane s - 1 by a shuffle), its argmax code
// (pool_s2g_code) and dy; window (t, s + 1)'s code and dy come from lane s + 1 by shuffles.
// Then dx row 2t - 1 (t > t0) takes cells 7 / 8 of windows (t - 1, s), 6 of (t - 1, s + 1), 1 / 2
// of (t, s), 0 of (t, s + 1); dx row 2t (t < t1) cells 4 / 5 of (t, s) and 3 of (t, s + 1), each
// element summed in ascending (i, j) window order from +0 (unrouted terms add +0: the sum never
// is -0, so adding +0 changes no bits: src/ref's sum exactly when DBL). The loads of step t + 1
// are issued before step t's work. Windows t >= out_h or s >= out_w route nothing.

#define PC_THREADS 256
#define PC_FULL 0xffffffffu

template <int TY> struct pc_raw; // one x row's two cells of a lane, as loaded
template <> struct pc_raw<POOL_S2G_F32> {
    unsigned a, b;
};
template <> struct pc_raw<POOL_S2G_F16> {
    unsigned a; // both halves
};

template <int TY>
static __device__ __forceinline__ pc_raw<TY> pc_load(const void *xc, bool ok, int off, bool two)
{
    pc_raw<TY> o;
    if (TY == POOL_S2G_F32) {
        unsigned *w = (unsigned *)&o;
        w[0] = w[1] = 0xff800000u;
        if (ok) {
            const float *p = (const float *)xc + off;
            if (two) {
                const uint2 u = *(const uint2 *)p;
                w[0] = u.x, w[1] = u.y;
            } else {
                w[0] = *(const unsigned *)p;
            }
        }
    } else {
        unsigned *w = (unsigned *)&o;
        w[0] = 0xfc00fc00u;
        if (ok) {
            const unsigned short *p = (const unsigned short *)xc + off;
            w[0] = two ? *(const unsigned *)p : 0xfc000000u | *p;
        }
    }
    return o;
}

template <int TY>
static __device__ __forceinline__ void pc_cvt(const pc_raw<TY> &o, float *a, float *b)
{
    const unsigned *w = (const unsigned *)&o;
    if (TY == POOL_S2G_F32) {
        *a = __uint_as_float(w[0]), *b = __uint_as_float(w[1]);
    } else {
        *a = pool_s2g_w16(w[0], 0, TY), *b = pool_s2g_w16(w[0], 1, TY);
    }
}

// dx(r, 2s .. 2s + 1) = blend of (a0, a1) (sums in double, or float when !DBL)
template <int TY, bool DBL, typename A>
static __device__ __forceinline__ void pc_store(void *dxc, int off, double alpha, double beta,
                                                A a0, A a1, bool two)
{
    pool_smb_store2(pool_s2g_atw(dxc, off, TY), alpha, beta, (double)a0, (double)a1, two, TY);
}

// MODE 0: sums in double (src/ref's bits); 1: sums in float (within tolerance); 2 (alpha 1,
// beta 0 only, the launcher checks): the elements with at most 2 routed terms in float and
// rounded once to the type (exact: double rounding of a sum of two values of precision p through
// precision >= 2p + 2 is innocuous, 53 >= 2 x 24 + 2 and 24 >= 2 x 11 + 2), the (odd, odd)
// corner of up to 4 terms in double: src/ref's bits.
template <int TY>
static __device__ __forceinline__ unsigned pc_fbits(float v)
{
    return TY == POOL_S2G_F32 ? __float_as_uint(v) : __half_as_ushort(__float2half_rn(v));
}
template <int TY>
static __device__ __forceinline__ void pc_store_raw(void *dxc, int off, unsigned r0, unsigned r1,
                                                    bool two)
{
    void *p = pool_s2g_atw(dxc, off, TY);
    if (TY == POOL_S2G_F32) {
        if (two)
            *(uint2 *)p = make_uint2(r0, r1);
        else
            *(unsigned *)p = r0;
    } else {
        if (two)
            *(unsigned *)p = r0 | r1 << 16;
        else
            *(unsigned short *)p = (unsigned short)r0;
    }
}

template <int TY, int MODE>
static __device__ __forceinline__ void pc_body(const pool_s2_t &q, int R, int nt, const void *xv,
                                               const void *dyv, void *dxv, double alpha,
                                               double beta)
{
    typedef typename std::conditional<MODE == 0, double, float>::type A;
    const float ni = POOL_S2G_NINF;
    const int lane = (int)(threadIdx.x & 31);
    const int wid = (int)((blockIdx.x * PC_THREADS + threadIdx.x) >> 5);
    const int pl = wid / nt;
    if (pl >= q.planes)
        return; // the whole warp
    const int strip = wid - pl * nt, n = pl / q.c, c = pl - n * q.c;
    const void *xc = pool_s2g_at(xv, n * q.xs_n + c * q.xs_c, TY);
    const void *dyc = pool_s2g_at(dyv, n * q.gs_n + c * q.gs_c, TY);
    void *dxc = pool_s2g_atw(dxv, n * q.ds_n + c * q.ds_c, TY);
    const int H = q.in_h, W = q.in_w, pairs = (H + 1) / 2;
    const int t0 = strip * R, t1 = min(t0 + R, pairs);
    const int s = lane, c0 = 2 * s;
    const bool live = c0 < W, two = c0 + 1 < W, wcol = s < q.out_w;
    const int dyo = s * q.gs_w;

    // row 2 t0 - 1
    float tl, ta, tb;
    {
        const int r = 2 * t0 - 1;
        pc_cvt<TY>(pc_load<TY>(xc, live && r >= 0, r * q.xs_h + c0, two), &ta, &tb);
        tl = __shfl_up_sync(PC_FULL, tb, 1);
        if (lane == 0)
            tl = ni;
    }
    pc_raw<TY> rm = pc_load<TY>(xc, live, 2 * t0 * q.xs_h + c0, two);
    pc_raw<TY> rb = pc_load<TY>(xc, live && 2 * t0 + 1 < H, (2 * t0 + 1) * q.xs_h + c0, two);
    float gq = wcol && t0 < q.out_h ? pool_s2g_ld(dyc, t0 * q.gs_h + dyo, TY) : 0.f;
    int pc = -1, pcn = -1; // window (t - 1, s), (t - 1, s + 1): codes and dy
    A pg = 0, pgn = 0;
    double pgd = 0.0, pgnd = 0.0; // MODE 2: the same in double (the corner's terms)
    for (int t = t0; t <= t1; t++) {
        // step t + 1's loads first (rows 2t + 2, 2t + 3, dy row t + 1)
        const bool more = t < t1;
        const int r2 = 2 * t + 2;
        const pc_raw<TY> nm = pc_load<TY>(xc, more && live && r2 < H, r2 * q.xs_h + c0, two);
        const pc_raw<TY> nb =
            pc_load<TY>(xc, more && live && r2 + 1 < H, (r2 + 1) * q.xs_h + c0, two);
        const float ng = more && wcol && t + 1 < q.out_h
                             ? pool_s2g_ld(dyc, (t + 1) * q.gs_h + dyo, TY)
                             : 0.f;
        float ma, mb, ba, bb;
        pc_cvt<TY>(rm, &ma, &mb);
        pc_cvt<TY>(rb, &ba, &bb);
        float ml = __shfl_up_sync(PC_FULL, mb, 1), bl = __shfl_up_sync(PC_FULL, bb, 1);
        if (lane == 0)
            ml = ni, bl = ni;
        int cd = -1;
        if (wcol && t < q.out_h) {
            const float img[9] = {tl, ta, tb, ml, ma, mb, bl, ba, bb};
            cd = pool_s2g_code(img, q.propagate);
        }
        int cn = __shfl_down_sync(PC_FULL, cd, 1);
        const float gnf = __shfl_down_sync(PC_FULL, gq, 1);
        if (lane == 31)
            cn = -1;
        const A g = (A)gq, gn = (A)gnf, z = 0;
        double gd = 0.0, gnd = 0.0;
        if (MODE == 2)
            gd = gq, gnd = gnf;
        const int r1 = 2 * t - 1;
        if (live && t > t0 && r1 < H) {
            A a0 = z + (pc == 7 ? pg : z);
            a0 += cd == 1 ? g : z;
            if (MODE == 2) {
                double d = 0.0 + (pc == 8 ? pgd : 0.0);
                d += pcn == 6 ? pgnd : 0.0;
                d += cd == 2 ? gd : 0.0;
                d += cn == 0 ? gnd : 0.0;
                pc_store_raw<TY>(dxc, r1 * q.ds_h + c0, pc_fbits<TY>((float)a0),
                                 pool_s2g_bits(d, TY), two);
            } else {
                A a1 = z + (pc == 8 ? pg : z);
                a1 += pcn == 6 ? pgn : z;
                a1 += cd == 2 ? g : z;
                a1 += cn == 0 ? gn : z;
                pc_store<TY, MODE == 0>(dxc, r1 * q.ds_h + c0, alpha, beta, a0, a1, two);
            }
        }
        if (live && more) { // row 2t < H: t < pairs
            const A a0 = z + (cd == 4 ? g : z);
            A a1 = z + (cd == 5 ? g : z);
            a1 += cn == 3 ? gn : z;
            if (MODE == 2)
                pc_store_raw<TY>(dxc, 2 * t * q.ds_h + c0, pc_fbits<TY>((float)a0),
                                 pc_fbits<TY>((float)a1), two);
            else
                pc_store<TY, MODE == 0>(dxc, 2 * t * q.ds_h + c0, alpha, beta, a0, a1, two);
        }
        pc = cd, pcn = cn, pg = g, pgn = gn, pgd = gd, pgnd = gnd;
        tl = bl, ta = ba, tb = bb;
        rm = nm, rb = nb, gq = ng;
    }
}

#define PC_KERNEL(name, ty, mode, minb)                                                             \
    static __global__ void __launch_bounds__(PC_THREADS, minb)                                     \
        name(const pool_s2_t q, int R, int nt, const void *xv, const void *dyv, void *dxv,         \
             double alpha, double beta)                                                            \
    {                                                                                              \
        pc_body<ty, mode>(q, R, nt, xv, dyv, dxv, alpha, beta);                                     \
    }
PC_KERNEL(v1_f32, POOL_S2G_F32, 0, 5)
PC_KERNEL(v1_f16, POOL_S2G_F16, 0, 5)
PC_KERNEL(v2_f32, POOL_S2G_F32, 1, 6)
PC_KERNEL(v2_f16, POOL_S2G_F16, 1, 6)
PC_KERNEL(v6_f32, POOL_S2G_F32, 2, 5)
PC_KERNEL(v6_f16, POOL_S2G_F16, 2, 5)
#undef PC_KERNEL

// ---- v8/v9: a lane per 4 dx columns (2 window columns), a half-warp per strip -------------------
//
// Half-warp h of a warp owns strip 2 wid + h (strips as v1's: plane, window rows t0 .. t1 - 1);
// lane m = lane & 15 owns dx columns 4m .. 4m + 3 and windows (t, 2m) = A, (t, 2m + 1) = B
// (W <= 64, else the host runs v0). Per x row one 16-byte FLOAT / 8-byte 16-bit load (per
// element in a row's partial last vector); column 4m - 1 from lane m - 1 by a shuffle (width
// 16). 16-bit data: the codes of A and B as the two lanes of one packed chain (pool_s2g_code2)
// on the cells paired by byte permutes ((4m - 1, 4m + 1), (4m, 4m + 2), (4m + 1, 4m + 3)). Window
// (t, 2m + 2) = N (cells 0, 3, 6 reach dx column 4m + 3) comes from lane m + 1 by shuffles. Rows
// 2t - 1 and 2t as in v1: e.g. dx (2t - 1, 4m + 1) adds cell 8 of (t - 1, A), 6 of (t - 1, B), 2
// of (t, A), 0 of (t, B). MODE 0: double sums; 2: v6's exact float / double split (alpha 1,
// beta 0). Both halves run R + 1 steps (shuffles need the whole warp); steps past a strip's t1
// or of a strip past the last are predicated off.

struct pc4_raw {
    unsigned w[4];
};

template <int TY>
static __device__ __forceinline__ pc4_raw pc4_load(const void *xc, bool ok, int off, int cnt)
{
    pc4_raw o;
    if (TY == POOL_S2G_F32) {
        o.w[0] = o.w[1] = o.w[2] = o.w[3] = 0xff800000u;
        if (ok) {
            const unsigned *p = (const unsigned *)xc + off;
            if (cnt >= 4) {
                const uint4 u = *(const uint4 *)p;
                o.w[0] = u.x, o.w[1] = u.y, o.w[2] = u.z, o.w[3] = u.w;
            } else {
                o.w[0] = p[0];
                if (cnt > 1)
                    o.w[1] = p[1];
                if (cnt > 2)
                    o.w[2] = p[2];
            }
        }
    } else {
        o.w[0] = o.w[1] = 0xfc00fc00u, o.w[2] = o.w[3] = 0u;
        if (ok) {
            const unsigned short *p = (const unsigned short *)xc + off;
            if (cnt >= 4) {
                const uint2 u = *(const uint2 *)p;
                o.w[0] = u.x, o.w[1] = u.y;
            } else {
                o.w[0] = cnt > 1 ? *(const unsigned *)p : 0xfc000000u | p[0];
                if (cnt > 2)
                    o.w[1] = 0xfc000000u | p[2];
            }
        }
    }
    return o;
}

// the bits of dx = alpha * a + beta * dx(p) (fd_cuda_blend's roundings)
template <int TY>
static __device__ __forceinline__ unsigned pc4_blend(const void *p, double alpha, double beta,
                                                     double a)
{
    double s = __dmul_rn(alpha, a);
    if (beta != 0.0)
        s = __dadd_rn(s, __dmul_rn(beta, (double)pool_s2g_ld(p, 0, TY)));
    return pool_s2g_bits(s, TY);
}

template <int TY>
static __device__ __forceinline__ void pc4_store(void *dxc, int off, const unsigned *r, int cnt)
{
    void *p = pool_s2g_atw(dxc, off, TY);
    if (TY == POOL_S2G_F32) {
        unsigned *u = (unsigned *)p;
        if (cnt >= 4) {
            *(uint4 *)u = make_uint4(r[0], r[1], r[2], r[3]);
        } else {
            u[0] = r[0];
            if (cnt > 1)
                u[1] = r[1];
            if (cnt > 2)
                u[2] = r[2];
        }
    } else {
        unsigned short *u = (unsigned short *)p;
        if (cnt >= 4) {
            *(uint2 *)u = make_uint2(r[0] | r[1] << 16, r[2] | r[3] << 16);
        } else {
            u[0] = (unsigned short)r[0];
            if (cnt > 1)
                u[1] = (unsigned short)r[1];
            if (cnt > 2)
                u[2] = (unsigned short)r[2];
        }
    }
}

// The codes of windows A and B from the rows top (kept), mid, bot of this lane and the left
// columns (shuffled before): FLOAT on floats, 16-bit packed.
template <int TY>
static __device__ __forceinline__ void pc4_codes(const pc4_raw &tp, unsigned tlw, const pc4_raw &md,
                                                 unsigned mlw, const pc4_raw &bt, unsigned blw,
                                                 int propagate, int *ca, int *cb)
{
    if (TY == POOL_S2G_F32) {
        const float a[9] = {__uint_as_float(tlw),     __uint_as_float(tp.w[0]),
                            __uint_as_float(tp.w[1]), __uint_as_float(mlw),
                            __uint_as_float(md.w[0]), __uint_as_float(md.w[1]),
                            __uint_as_float(blw),     __uint_as_float(bt.w[0]),
                            __uint_as_float(bt.w[1])};
        const float b[9] = {__uint_as_float(tp.w[1]), __uint_as_float(tp.w[2]),
                            __uint_as_float(tp.w[3]), __uint_as_float(md.w[1]),
                            __uint_as_float(md.w[2]), __uint_as_float(md.w[3]),
                            __uint_as_float(bt.w[1]), __uint_as_float(bt.w[2]),
                            __uint_as_float(bt.w[3])};
        *ca = pool_s2g_code(a, propagate);
        *cb = pool_s2g_code(b, propagate);
    } else {
        // per row: (left, a1), (a0, a2), (a1, a3); left = the high half of tlw / mlw / blw
        const unsigned c[9] = {
            __byte_perm(tlw, tp.w[0], 0x7632), __byte_perm(tp.w[0], tp.w[1], 0x5410),
            __byte_perm(tp.w[0], tp.w[1], 0x7632), __byte_perm(mlw, md.w[0], 0x7632),
            __byte_perm(md.w[0], md.w[1], 0x5410), __byte_perm(md.w[0], md.w[1], 0x7632),
            __byte_perm(blw, bt.w[0], 0x7632), __byte_perm(bt.w[0], bt.w[1], 0x5410),
            __byte_perm(bt.w[0], bt.w[1], 0x7632)};
        const unsigned cd = propagate ? pool_s2g_code2(c, true, TY) : pool_s2g_code2(c, false, TY);
        *ca = (int)(cd & 0xffffu) - 1;
        *cb = (int)(cd >> 16) - 1;
    }
}

template <int TY, int MODE>
static __device__ __forceinline__ void pc4_body(const pool_s2_t &q, int R, int nt, const void *xv,
                                                const void *dyv, void *dxv, double alpha,
                                                double beta)
{
    const unsigned nib = TY == POOL_S2G_F32 ? 0xff800000u : 0xfc00fc00u; // -inf word
    const int lane = (int)(threadIdx.x & 31), m = lane & 15;
    const int wid = (int)((blockIdx.x * PC_THREADS + threadIdx.x) >> 5);
    const int items = q.planes * nt, item = 2 * wid + (lane >> 4);
    if (2 * wid >= items)
        return; // the whole warp
    const bool act = item < items;
    const int pl = act ? item / nt : 0, strip = act ? item - pl * nt : 0, n = pl / q.c, c = pl - n * q.c;
    const void *xc = pool_s2g_at(xv, n * q.xs_n + c * q.xs_c, TY);
    const void *dyc = pool_s2g_at(dyv, n * q.gs_n + c * q.gs_c, TY);
    void *dxc = pool_s2g_atw(dxv, n * q.ds_n + c * q.ds_c, TY);
    const int H = q.in_h, W = q.in_w, pairs = (H + 1) / 2;
    const int t0 = strip * R, t1 = act ? min(t0 + R, pairs) : t0 - 1;
    const int c0 = 4 * m, cnt = W - c0; // cnt > 0: the lane holds dx columns
    const bool live = act && cnt > 0, okA = 2 * m < q.out_w, okB = 2 * m + 1 < q.out_w;
    const int dyo = 2 * m * q.gs_w;

    pc4_raw tp = pc4_load<TY>(xc, live && t0 > 0, (2 * t0 - 1) * q.xs_h + c0, cnt);
    unsigned tlw = __shfl_up_sync(PC_FULL, TY == POOL_S2G_F32 ? tp.w[3] : tp.w[1], 1, 16);
    if (m == 0)
        tlw = nib;
    pc4_raw rm = pc4_load<TY>(xc, live && 2 * t0 < H, 2 * t0 * q.xs_h + c0, cnt);
    pc4_raw rb = pc4_load<TY>(xc, live && 2 * t0 + 1 < H, (2 * t0 + 1) * q.xs_h + c0, cnt);
    const bool g0 = act && t0 < q.out_h;
    float gqa = g0 && okA ? pool_s2g_ld(dyc, t0 * q.gs_h + dyo, TY) : 0.f;
    float gqb = g0 && okB ? pool_s2g_ld(dyc, t0 * q.gs_h + dyo + q.gs_w, TY) : 0.f;
    int pa = -1, pb = -1, pn = -1; // window row t - 1: codes of A, B, N and their dy
    float pga = 0.f, pgb = 0.f, pgn = 0.f;
    for (int k = 0; k <= R; k++) {
        const int t = t0 + k;
        const bool on = t <= t1, more = t < t1;
        const int r2 = 2 * t + 2;
        const pc4_raw nm = pc4_load<TY>(xc, more && live && r2 < H, r2 * q.xs_h + c0, cnt);
        const pc4_raw nb = pc4_load<TY>(xc, more && live && r2 + 1 < H, (r2 + 1) * q.xs_h + c0, cnt);
        const bool gn1 = more && t + 1 < q.out_h;
        const float nga = gn1 && okA ? pool_s2g_ld(dyc, (t + 1) * q.gs_h + dyo, TY) : 0.f;
        const float ngb = gn1 && okB ? pool_s2g_ld(dyc, (t + 1) * q.gs_h + dyo + q.gs_w, TY) : 0.f;
        unsigned mlw = __shfl_up_sync(PC_FULL, TY == POOL_S2G_F32 ? rm.w[3] : rm.w[1], 1, 16);
        unsigned blw = __shfl_up_sync(PC_FULL, TY == POOL_S2G_F32 ? rb.w[3] : rb.w[1], 1, 16);
        if (m == 0)
            mlw = nib, blw = nib;
        int ca, cb;
        pc4_codes<TY>(tp, tlw, rm, mlw, rb, blw, q.propagate, &ca, &cb);
        if (!(on && t < q.out_h && okA))
            ca = -1;
        if (!(on && t < q.out_h && okB))
            cb = -1;
        int cn = __shfl_down_sync(PC_FULL, ca, 1, 16);
        const float gqn = __shfl_down_sync(PC_FULL, gqa, 1, 16);
        if (m == 15)
            cn = -1;
        const int r1 = 2 * t - 1;
        if (live && on && t > t0 && r1 < H) {
            unsigned r[4];
            void *p = pool_s2g_atw(dxc, r1 * q.ds_h + c0, TY);
            const double d1 = 0.0 + (pa == 8 ? (double)pga : 0.0) + (pb == 6 ? (double)pgb : 0.0) +
                              (ca == 2 ? (double)gqa : 0.0) + (cb == 0 ? (double)gqb : 0.0);
            const double d3 = 0.0 + (pb == 8 ? (double)pgb : 0.0) + (pn == 6 ? (double)pgn : 0.0) +
                              (cb == 2 ? (double)gqb : 0.0) + (cn == 0 ? (double)gqn : 0.0);
            if (MODE == 2) {
                r[0] = pc_fbits<TY>(0.f + (pa == 7 ? pga : 0.f) + (ca == 1 ? gqa : 0.f));
                r[2] = pc_fbits<TY>(0.f + (pb == 7 ? pgb : 0.f) + (cb == 1 ? gqb : 0.f));
                r[1] = pool_s2g_bits(d1, TY), r[3] = pool_s2g_bits(d3, TY);
            } else {
                const double d0 = 0.0 + (pa == 7 ? (double)pga : 0.0) + (ca == 1 ? (double)gqa : 0.0);
                const double d2 = 0.0 + (pb == 7 ? (double)pgb : 0.0) + (cb == 1 ? (double)gqb : 0.0);
                r[0] = pc4_blend<TY>(pool_s2g_at(p, 0, TY), alpha, beta, d0);
                r[1] = cnt > 1 ? pc4_blend<TY>(pool_s2g_at(p, 1, TY), alpha, beta, d1) : 0u;
                r[2] = cnt > 2 ? pc4_blend<TY>(pool_s2g_at(p, 2, TY), alpha, beta, d2) : 0u;
                r[3] = cnt > 3 ? pc4_blend<TY>(pool_s2g_at(p, 3, TY), alpha, beta, d3) : 0u;
            }
            pc4_store<TY>(dxc, r1 * q.ds_h + c0, r, cnt);
        }
        if (live && more) { // row 2t < H: t < pairs
            unsigned r[4];
            void *p = pool_s2g_atw(dxc, 2 * t * q.ds_h + c0, TY);
            if (MODE == 2) {
                r[0] = pc_fbits<TY>(0.f + (ca == 4 ? gqa : 0.f));
                r[1] = pc_fbits<TY>(0.f + (ca == 5 ? gqa : 0.f) + (cb == 3 ? gqb : 0.f));
                r[2] = pc_fbits<TY>(0.f + (cb == 4 ? gqb : 0.f));
                r[3] = pc_fbits<TY>(0.f + (cb == 5 ? gqb : 0.f) + (cn == 3 ? gqn : 0.f));
            } else {
                const double d0 = 0.0 + (ca == 4 ? (double)gqa : 0.0);
                const double d1 = 0.0 + (ca == 5 ? (double)gqa : 0.0) + (cb == 3 ? (double)gqb : 0.0);
                const double d2 = 0.0 + (cb == 4 ? (double)gqb : 0.0);
                const double d3 = 0.0 + (cb == 5 ? (double)gqb : 0.0) + (cn == 3 ? (double)gqn : 0.0);
                r[0] = pc4_blend<TY>(pool_s2g_at(p, 0, TY), alpha, beta, d0);
                r[1] = cnt > 1 ? pc4_blend<TY>(pool_s2g_at(p, 1, TY), alpha, beta, d1) : 0u;
                r[2] = cnt > 2 ? pc4_blend<TY>(pool_s2g_at(p, 2, TY), alpha, beta, d2) : 0u;
                r[3] = cnt > 3 ? pc4_blend<TY>(pool_s2g_at(p, 3, TY), alpha, beta, d3) : 0u;
            }
            pc4_store<TY>(dxc, 2 * t * q.ds_h + c0, r, cnt);
        }
        pa = ca, pb = cb, pn = cn, pga = gqa, pgb = gqb, pgn = gqn;
        tp = rb, tlw = blw;
        rm = nm, rb = nb, gqa = nga, gqb = ngb;
    }
}

#define PC4_KERNEL(name, ty, mode, minb)                                                           \
    static __global__ void __launch_bounds__(PC_THREADS, minb)                                     \
        name(const pool_s2_t q, int R, int nt, const void *xv, const void *dyv, void *dxv,         \
             double alpha, double beta)                                                            \
    {                                                                                              \
        pc4_body<ty, mode>(q, R, nt, xv, dyv, dxv, alpha, beta);                                   \
    }
PC4_KERNEL(v8_f32, POOL_S2G_F32, 0, 4)
PC4_KERNEL(v8_f16, POOL_S2G_F16, 0, 4)
PC4_KERNEL(v9_f32, POOL_S2G_F32, 2, 4)
PC4_KERNEL(v9_f16, POOL_S2G_F16, 2, 4)
#undef PC4_KERNEL

// ---- v12: verbatim from src/cuda/pooling_cw.cuh (the library's port of v9; kernels renamed,
// its bf16 instances and host table dropped) ---------------------------------------------------
#define POOL_CW_THREADS 256
/* blocks of 256 an SM: 4 (ptxas, CUDA 13: 55-61 registers sm_90, 55-63 sm_80, 0 spills; 5
 * spilled in dev/pool_bwd) */
#define POOL_CW_MINB 4

/* One x row's 4 cells of a lane as loaded: FLOAT w[0..3]; 16-bit w[0..1] (pairs). */
struct pool_cw_raw {
    unsigned w[4];
};

/* -inf in every lane of a word of the type */
static __device__ __forceinline__ unsigned pool_cw_ninf(const int ty)
{
    return pool_s2g_ninf16(ty).x;
}

/* The 4 cells of row vector p + off (cnt of them inside the row; ok: the row exists). */
template <int TY>
static __device__ __forceinline__ pool_cw_raw pool_cw_load(const void *xc, bool ok, int off,
                                                           int cnt)
{
    const unsigned ni = pool_cw_ninf(TY);
    pool_cw_raw o;
    o.w[0] = o.w[1] = ni;
    o.w[2] = o.w[3] = TY == POOL_S2G_F32 ? ni : 0u;
    if (!ok)
        return o;
    if (TY == POOL_S2G_F32) {
        const unsigned *p = (const unsigned *)xc + off;
        if (cnt >= 4) {
            const uint4 u = *(const uint4 *)p;
            o.w[0] = u.x, o.w[1] = u.y, o.w[2] = u.z, o.w[3] = u.w;
        } else {
            o.w[0] = p[0];
            if (cnt > 1)
                o.w[1] = p[1];
            if (cnt > 2)
                o.w[2] = p[2];
        }
    } else {
        const unsigned short *p = (const unsigned short *)xc + off;
        if (cnt >= 4) {
            const uint2 u = *(const uint2 *)p;
            o.w[0] = u.x, o.w[1] = u.y;
        } else {
            o.w[0] = cnt > 1 ? *(const unsigned *)p : (ni & 0xffff0000u) | p[0];
            if (cnt > 2)
                o.w[1] = (ni & 0xffff0000u) | p[2];
        }
    }
    return o;
}

/* The last cell's word (FLOAT) or pair word (16-bit: the cell in the high half) of a row. */
template <int TY>
static __device__ __forceinline__ unsigned pool_cw_last(const pool_cw_raw &r)
{
    return TY == POOL_S2G_F32 ? r.w[3] : r.w[1];
}

/* The storage bits of float v rounded once to the type. */
template <int TY>
static __device__ __forceinline__ unsigned pool_cw_fbits(float v)
{
    if (TY == POOL_S2G_F32)
        return __float_as_uint(v);
    if (TY == POOL_S2G_F16)
        return __half_as_ushort(__float2half_rn(v));
    return __bfloat16_as_ushort(__float2bfloat16_rn(v));
}

/* The bits of alpha * a + beta * (element at p) (fd_cuda_blend's roundings). */
template <int TY>
static __device__ __forceinline__ unsigned pool_cw_blend(const void *p, double alpha, double beta,
                                                         double a)
{
    double s = __dmul_rn(alpha, a);
    if (beta != 0.0)
        s = __dadd_rn(s, __dmul_rn(beta, (double)pool_s2g_ld(p, 0, TY)));
    return pool_s2g_bits(s, TY);
}

/* Stores the bits r[0..cnt - 1] (low halves for 16-bit) at dx row vector dxc + off. */
template <int TY>
static __device__ __forceinline__ void pool_cw_store(void *dxc, int off, const unsigned *r,
                                                     int cnt)
{
    void *p = pool_s2g_atw(dxc, off, TY);
    if (TY == POOL_S2G_F32) {
        unsigned *u = (unsigned *)p;
        if (cnt >= 4) {
            *(uint4 *)u = make_uint4(r[0], r[1], r[2], r[3]);
            return;
        }
        u[0] = r[0];
        if (cnt > 1)
            u[1] = r[1];
        if (cnt > 2)
            u[2] = r[2];
    } else {
        unsigned short *u = (unsigned short *)p;
        if (cnt >= 4) {
            *(uint2 *)u = make_uint2(r[0] | r[1] << 16, r[2] | r[3] << 16);
            return;
        }
        u[0] = (unsigned short)r[0];
        if (cnt > 1)
            u[1] = (unsigned short)r[1];
        if (cnt > 2)
            u[2] = (unsigned short)r[2];
    }
}

/* The codes of windows A and B from rows tp (top), md, bt of this lane and the words holding
 * column 4m - 1 (tl, ml, bl: shuffled from the left lane; -inf at the row start). */
template <int TY>
static __device__ __forceinline__ void pool_cw_codes(const pool_cw_raw &tp, unsigned tl,
                                                     const pool_cw_raw &md, unsigned ml,
                                                     const pool_cw_raw &bt, unsigned bl,
                                                     int propagate, int *ca, int *cb)
{
    if (TY == POOL_S2G_F32) {
        const float a[9] = {__uint_as_float(tl),      __uint_as_float(tp.w[0]),
                            __uint_as_float(tp.w[1]), __uint_as_float(ml),
                            __uint_as_float(md.w[0]), __uint_as_float(md.w[1]),
                            __uint_as_float(bl),      __uint_as_float(bt.w[0]),
                            __uint_as_float(bt.w[1])};
        const float b[9] = {__uint_as_float(tp.w[1]), __uint_as_float(tp.w[2]),
                            __uint_as_float(tp.w[3]), __uint_as_float(md.w[1]),
                            __uint_as_float(md.w[2]), __uint_as_float(md.w[3]),
                            __uint_as_float(bt.w[1]), __uint_as_float(bt.w[2]),
                            __uint_as_float(bt.w[3])};
        *ca = pool_s2g_code(a, propagate);
        *cb = pool_s2g_code(b, propagate);
        return;
    }
    /* per row the pairs (A's cell, B's cell): (4m - 1, 4m + 1), (4m, 4m + 2), (4m + 1, 4m + 3) */
    const unsigned c[9] = {__byte_perm(tl, tp.w[0], 0x7632),    __byte_perm(tp.w[0], tp.w[1], 0x5410),
                           __byte_perm(tp.w[0], tp.w[1], 0x7632), __byte_perm(ml, md.w[0], 0x7632),
                           __byte_perm(md.w[0], md.w[1], 0x5410), __byte_perm(md.w[0], md.w[1], 0x7632),
                           __byte_perm(bl, bt.w[0], 0x7632),    __byte_perm(bt.w[0], bt.w[1], 0x5410),
                           __byte_perm(bt.w[0], bt.w[1], 0x7632)};
    const unsigned cd = propagate ? pool_s2g_code2(c, true, TY) : pool_s2g_code2(c, false, TY);
    *ca = (int)(cd & 0xffffu) - 1;
    *cb = (int)(cd >> 16) - 1;
}

/* The routed dy of window code c for cell k (float; 0 when c != k) */
#define POOL_CW_F(c, k, g) ((c) == (k) ? (g) : 0.f)
#define POOL_CW_D(c, k, g) ((c) == (k) ? (double)(g) : 0.0)

/* Strips of R window rows, nt a plane; L lanes a strip; MODE 1: alpha 1, beta 0. */
template <int TY, int MODE, int L>
static __device__ __forceinline__ void pool_cw_body(const pool_s2_t &q, int R, int nt,
                                                    const void *xv, const void *dyv, void *dxv,
                                                    double alpha, double beta)
{
    const unsigned full = 0xffffffffu, ni = pool_cw_ninf(TY);
    const int lane = (int)(threadIdx.x & 31), m = lane & (L - 1);
    const int wid = (int)((blockIdx.x * POOL_CW_THREADS + threadIdx.x) >> 5);
    const int items = q.planes * nt, item0 = (32 / L) * wid, item = item0 + lane / L;
    if (item0 >= items)
        return; /* the whole warp */
    const bool act = item < items;
    const int pl = act ? item / nt : 0, strip = act ? item - pl * nt : 0;
    const int n = pl / q.c, c = pl - n * q.c;
    const void *xc = pool_s2g_at(xv, n * q.xs_n + c * q.xs_c, TY);
    const void *dyc = pool_s2g_at(dyv, n * q.gs_n + c * q.gs_c, TY);
    void *dxc = pool_s2g_atw(dxv, n * q.ds_n + c * q.ds_c, TY);
    const int H = q.in_h, W = q.in_w, pairs = (H + 1) / 2;
    const int t0 = strip * R, t1 = act ? min(t0 + R, pairs) : t0 - 1;
    const int c0 = 4 * m, cnt = W - c0; /* cnt > 0: the lane holds dx columns */
    const bool live = act && cnt > 0, okA = 2 * m < q.out_w, okB = 2 * m + 1 < q.out_w;
    const int dyo = 2 * m * q.gs_w;

    pool_cw_raw tp = pool_cw_load<TY>(xc, live && t0 > 0, (2 * t0 - 1) * q.xs_h + c0, cnt);
    unsigned tl = __shfl_up_sync(full, pool_cw_last<TY>(tp), 1, L);
    if (m == 0)
        tl = ni;
    pool_cw_raw rm = pool_cw_load<TY>(xc, live && 2 * t0 < H, 2 * t0 * q.xs_h + c0, cnt);
    pool_cw_raw rb = pool_cw_load<TY>(xc, live && 2 * t0 + 1 < H, (2 * t0 + 1) * q.xs_h + c0, cnt);
    const bool g0 = act && t0 < q.out_h;
    float ga = g0 && okA ? pool_s2g_ld(dyc, t0 * q.gs_h + dyo, TY) : 0.f;
    float gb = g0 && okB ? pool_s2g_ld(dyc, t0 * q.gs_h + dyo + q.gs_w, TY) : 0.f;
    int pa = -1, pb = -1, pn = -1; /* window row t - 1: codes of A, B, N and their dy */
    float pga = 0.f, pgb = 0.f, pgn = 0.f;
    for (int k = 0; k <= R; k++) {
        const int t = t0 + k;
        const bool on = t <= t1, more = t < t1;
        const int r2 = 2 * t + 2;
        const pool_cw_raw nm =
            pool_cw_load<TY>(xc, more && live && r2 < H, r2 * q.xs_h + c0, cnt);
        const pool_cw_raw nb =
            pool_cw_load<TY>(xc, more && live && r2 + 1 < H, (r2 + 1) * q.xs_h + c0, cnt);
        const bool gn = more && t + 1 < q.out_h;
        const float nga = gn && okA ? pool_s2g_ld(dyc, (t + 1) * q.gs_h + dyo, TY) : 0.f;
        const float ngb = gn && okB ? pool_s2g_ld(dyc, (t + 1) * q.gs_h + dyo + q.gs_w, TY) : 0.f;
        unsigned ml = __shfl_up_sync(full, pool_cw_last<TY>(rm), 1, L);
        unsigned bl = __shfl_up_sync(full, pool_cw_last<TY>(rb), 1, L);
        if (m == 0)
            ml = ni, bl = ni;
        int ca, cb;
        pool_cw_codes<TY>(tp, tl, rm, ml, rb, bl, q.propagate, &ca, &cb);
        if (!(on && t < q.out_h && okA))
            ca = -1;
        if (!(on && t < q.out_h && okB))
            cb = -1;
        int cn = __shfl_down_sync(full, ca, 1, L);
        const float gn_ = __shfl_down_sync(full, ga, 1, L);
        if (m == L - 1)
            cn = -1;
        const int r1 = 2 * t - 1;
        if (live && on && t > t0 && r1 < H) {
            unsigned r[4];
            const double d1 = 0.0 + POOL_CW_D(pa, 8, pga) + POOL_CW_D(pb, 6, pgb) +
                              POOL_CW_D(ca, 2, ga) + POOL_CW_D(cb, 0, gb);
            const double d3 = 0.0 + POOL_CW_D(pb, 8, pgb) + POOL_CW_D(pn, 6, pgn) +
                              POOL_CW_D(cb, 2, gb) + POOL_CW_D(cn, 0, gn_);
            if (MODE == 1) {
                r[0] = pool_cw_fbits<TY>(0.f + POOL_CW_F(pa, 7, pga) + POOL_CW_F(ca, 1, ga));
                r[2] = pool_cw_fbits<TY>(0.f + POOL_CW_F(pb, 7, pgb) + POOL_CW_F(cb, 1, gb));
                r[1] = pool_s2g_bits(d1, TY), r[3] = pool_s2g_bits(d3, TY);
            } else {
                const void *p = pool_s2g_at(dxc, r1 * q.ds_h + c0, TY);
                const double d0 = 0.0 + POOL_CW_D(pa, 7, pga) + POOL_CW_D(ca, 1, ga);
                const double d2 = 0.0 + POOL_CW_D(pb, 7, pgb) + POOL_CW_D(cb, 1, gb);
                r[0] = pool_cw_blend<TY>(p, alpha, beta, d0);
                r[1] = cnt > 1 ? pool_cw_blend<TY>(pool_s2g_at(p, 1, TY), alpha, beta, d1) : 0u;
                r[2] = cnt > 2 ? pool_cw_blend<TY>(pool_s2g_at(p, 2, TY), alpha, beta, d2) : 0u;
                r[3] = cnt > 3 ? pool_cw_blend<TY>(pool_s2g_at(p, 3, TY), alpha, beta, d3) : 0u;
            }
            pool_cw_store<TY>(dxc, r1 * q.ds_h + c0, r, cnt);
        }
        if (live && more) { /* row 2t < H: t < pairs */
            unsigned r[4];
            if (MODE == 1) {
                r[0] = pool_cw_fbits<TY>(0.f + POOL_CW_F(ca, 4, ga));
                r[1] = pool_cw_fbits<TY>(0.f + POOL_CW_F(ca, 5, ga) + POOL_CW_F(cb, 3, gb));
                r[2] = pool_cw_fbits<TY>(0.f + POOL_CW_F(cb, 4, gb));
                r[3] = pool_cw_fbits<TY>(0.f + POOL_CW_F(cb, 5, gb) + POOL_CW_F(cn, 3, gn_));
            } else {
                const void *p = pool_s2g_at(dxc, 2 * t * q.ds_h + c0, TY);
                const double d0 = 0.0 + POOL_CW_D(ca, 4, ga);
                const double d1 = 0.0 + POOL_CW_D(ca, 5, ga) + POOL_CW_D(cb, 3, gb);
                const double d2 = 0.0 + POOL_CW_D(cb, 4, gb);
                const double d3 = 0.0 + POOL_CW_D(cb, 5, gb) + POOL_CW_D(cn, 3, gn_);
                r[0] = pool_cw_blend<TY>(p, alpha, beta, d0);
                r[1] = cnt > 1 ? pool_cw_blend<TY>(pool_s2g_at(p, 1, TY), alpha, beta, d1) : 0u;
                r[2] = cnt > 2 ? pool_cw_blend<TY>(pool_s2g_at(p, 2, TY), alpha, beta, d2) : 0u;
                r[3] = cnt > 3 ? pool_cw_blend<TY>(pool_s2g_at(p, 3, TY), alpha, beta, d3) : 0u;
            }
            pool_cw_store<TY>(dxc, 2 * t * q.ds_h + c0, r, cnt);
        }
        pa = ca, pb = cb, pn = cn, pga = ga, pgb = gb, pgn = gn_;
        tp = rb, tl = bl;
        rm = nm, rb = nb, ga = nga, gb = ngb;
    }
}
#undef POOL_CW_F
#undef POOL_CW_D

/* pool_cw_max_bwd{1,0}_{16,32}_{f32,f16,bf16}: MODE 1 (alpha 1, beta 0) / 0, L lanes a strip;
 * blocks of POOL_CW_THREADS, POOL_CW_MINB an SM. */
#define POOL_CW_KERNEL(name, ty, mode, l)                                                          \
    static __global__ void __launch_bounds__(POOL_CW_THREADS, POOL_CW_MINB)                        \
        name(const pool_s2_t q, int R, int nt, const void *xv, const void *dyv, void *dxv,         \
             double alpha, double beta)                                                            \
    {                                                                                              \
        pool_cw_body<ty, mode, l>(q, R, nt, xv, dyv, dxv, alpha, beta);                            \
    }
POOL_CW_KERNEL(v12_1_16_f32, POOL_S2G_F32, 1, 16)
POOL_CW_KERNEL(v12_0_16_f32, POOL_S2G_F32, 0, 16)
POOL_CW_KERNEL(v12_1_32_f32, POOL_S2G_F32, 1, 32)
POOL_CW_KERNEL(v12_0_32_f32, POOL_S2G_F32, 0, 32)
POOL_CW_KERNEL(v12_1_16_f16, POOL_S2G_F16, 1, 16)
POOL_CW_KERNEL(v12_0_16_f16, POOL_S2G_F16, 0, 16)
POOL_CW_KERNEL(v12_1_32_f16, POOL_S2G_F16, 1, 32)
POOL_CW_KERNEL(v12_0_32_f16, POOL_S2G_F16, 0, 32)
#undef POOL_CW_KERNEL

// blocks an SM (__launch_bounds__): the most that ptxas fits without spills (README.md)
#define V13_MINB 4
#define V15_MINB 8
#define V16_MINB 8
#define CW2_F(c, k, g) ((c) == (k) ? (g) : 0.f)
#define CW2_D(c, k, g) ((c) == (k) ? (double)(g) : 0.0)
// ---- v13 / v15 / v16: v12's walk (pool_cw_body) with the loads AHEAD steps ahead and NT threads
// a block. AHEAD 1 is v12's schedule: step t issues the x rows 2t + 2, 2t + 3 and the dy of window
// row t + 1 before its own work. AHEAD 2: step t issues those of window row t + 2 (rows 2t + 4,
// 2t + 5) and keeps row t + 1's, loaded one step earlier, in a second set of registers (f: the
// rows and dy of the next step), so two steps of loads are in flight a lane. Everything else
// (codes, routing, sums, stores, predicates) is pool_cw_body's, line for line.
template <int TY, int MODE, int L, int NT, int AHEAD>
static __device__ __forceinline__ void cw2_body(const pool_s2_t &q, int R, int nt, const void *xv,
                                                const void *dyv, void *dxv, double alpha,
                                                double beta)
{
    const unsigned full = 0xffffffffu, ni = pool_cw_ninf(TY);
    const int lane = (int)(threadIdx.x & 31), m = lane & (L - 1);
    const int wid = (int)((blockIdx.x * NT + threadIdx.x) >> 5);
    const int items = q.planes * nt, item0 = (32 / L) * wid, item = item0 + lane / L;
    if (item0 >= items)
        return; // the whole warp
    const bool act = item < items;
    const int pl = act ? item / nt : 0, strip = act ? item - pl * nt : 0;
    const int n = pl / q.c, c = pl - n * q.c;
    const void *xc = pool_s2g_at(xv, n * q.xs_n + c * q.xs_c, TY);
    const void *dyc = pool_s2g_at(dyv, n * q.gs_n + c * q.gs_c, TY);
    void *dxc = pool_s2g_atw(dxv, n * q.ds_n + c * q.ds_c, TY);
    const int H = q.in_h, W = q.in_w, pairs = (H + 1) / 2;
    const int t0 = strip * R, t1 = act ? min(t0 + R, pairs) : t0 - 1;
    const int c0 = 4 * m, cnt = W - c0; // cnt > 0: the lane holds dx columns
    const bool live = act && cnt > 0, okA = 2 * m < q.out_w, okB = 2 * m + 1 < q.out_w;
    const int dyo = 2 * m * q.gs_w;

    pool_cw_raw tp = pool_cw_load<TY>(xc, live && t0 > 0, (2 * t0 - 1) * q.xs_h + c0, cnt);
    unsigned tl = __shfl_up_sync(full, pool_cw_last<TY>(tp), 1, L);
    if (m == 0)
        tl = ni;
    pool_cw_raw rm = pool_cw_load<TY>(xc, live && 2 * t0 < H, 2 * t0 * q.xs_h + c0, cnt);
    pool_cw_raw rb = pool_cw_load<TY>(xc, live && 2 * t0 + 1 < H, (2 * t0 + 1) * q.xs_h + c0, cnt);
    const bool g0 = act && t0 < q.out_h;
    float ga = g0 && okA ? pool_s2g_ld(dyc, t0 * q.gs_h + dyo, TY) : 0.f;
    float gb = g0 && okB ? pool_s2g_ld(dyc, t0 * q.gs_h + dyo + q.gs_w, TY) : 0.f;
    // AHEAD 2: window row t0 + 1's rows and dy (exist when t0 + 1 <= t1)
    pool_cw_raw fm = pool_cw_load<TY>(xc, false, 0, 0), fb = fm;
    float fga = 0.f, fgb = 0.f;
    if (AHEAD == 2) {
        const bool more = t0 < t1;
        const int r2 = 2 * t0 + 2;
        fm = pool_cw_load<TY>(xc, more && live && r2 < H, r2 * q.xs_h + c0, cnt);
        fb = pool_cw_load<TY>(xc, more && live && r2 + 1 < H, (r2 + 1) * q.xs_h + c0, cnt);
        const bool gn = more && t0 + 1 < q.out_h;
        fga = gn && okA ? pool_s2g_ld(dyc, (t0 + 1) * q.gs_h + dyo, TY) : 0.f;
        fgb = gn && okB ? pool_s2g_ld(dyc, (t0 + 1) * q.gs_h + dyo + q.gs_w, TY) : 0.f;
    }
    int pa = -1, pb = -1, pn = -1; // window row t - 1: codes of A, B, N and their dy
    float pga = 0.f, pgb = 0.f, pgn = 0.f;
    for (int k = 0; k <= R; k++) {
        const int t = t0 + k;
        const bool on = t <= t1, more = t < t1;
        const int ta = t + AHEAD; // the window row whose rows and dy this step loads
        const bool want = ta <= t1;
        const int r2 = 2 * ta;
        const pool_cw_raw nm =
            pool_cw_load<TY>(xc, want && live && r2 < H, r2 * q.xs_h + c0, cnt);
        const pool_cw_raw nb =
            pool_cw_load<TY>(xc, want && live && r2 + 1 < H, (r2 + 1) * q.xs_h + c0, cnt);
        const bool gn = want && ta < q.out_h;
        const float nga = gn && okA ? pool_s2g_ld(dyc, ta * q.gs_h + dyo, TY) : 0.f;
        const float ngb = gn && okB ? pool_s2g_ld(dyc, ta * q.gs_h + dyo + q.gs_w, TY) : 0.f;
        unsigned ml = __shfl_up_sync(full, pool_cw_last<TY>(rm), 1, L);
        unsigned bl = __shfl_up_sync(full, pool_cw_last<TY>(rb), 1, L);
        if (m == 0)
            ml = ni, bl = ni;
        int ca, cb;
        pool_cw_codes<TY>(tp, tl, rm, ml, rb, bl, q.propagate, &ca, &cb);
        if (!(on && t < q.out_h && okA))
            ca = -1;
        if (!(on && t < q.out_h && okB))
            cb = -1;
        int cn = __shfl_down_sync(full, ca, 1, L);
        const float gn_ = __shfl_down_sync(full, ga, 1, L);
        if (m == L - 1)
            cn = -1;
        const int r1 = 2 * t - 1;
        if (live && on && t > t0 && r1 < H) {
            unsigned r[4];
            const double d1 = 0.0 + CW2_D(pa, 8, pga) + CW2_D(pb, 6, pgb) + CW2_D(ca, 2, ga) +
                              CW2_D(cb, 0, gb);
            const double d3 = 0.0 + CW2_D(pb, 8, pgb) + CW2_D(pn, 6, pgn) + CW2_D(cb, 2, gb) +
                              CW2_D(cn, 0, gn_);
            if (MODE == 1) {
                r[0] = pool_cw_fbits<TY>(0.f + CW2_F(pa, 7, pga) + CW2_F(ca, 1, ga));
                r[2] = pool_cw_fbits<TY>(0.f + CW2_F(pb, 7, pgb) + CW2_F(cb, 1, gb));
                r[1] = pool_s2g_bits(d1, TY), r[3] = pool_s2g_bits(d3, TY);
            } else {
                const void *p = pool_s2g_at(dxc, r1 * q.ds_h + c0, TY);
                const double d0 = 0.0 + CW2_D(pa, 7, pga) + CW2_D(ca, 1, ga);
                const double d2 = 0.0 + CW2_D(pb, 7, pgb) + CW2_D(cb, 1, gb);
                r[0] = pool_cw_blend<TY>(p, alpha, beta, d0);
                r[1] = cnt > 1 ? pool_cw_blend<TY>(pool_s2g_at(p, 1, TY), alpha, beta, d1) : 0u;
                r[2] = cnt > 2 ? pool_cw_blend<TY>(pool_s2g_at(p, 2, TY), alpha, beta, d2) : 0u;
                r[3] = cnt > 3 ? pool_cw_blend<TY>(pool_s2g_at(p, 3, TY), alpha, beta, d3) : 0u;
            }
            pool_cw_store<TY>(dxc, r1 * q.ds_h + c0, r, cnt);
        }
        if (live && more) { // row 2t < H: t < pairs
            unsigned r[4];
            if (MODE == 1) {
                r[0] = pool_cw_fbits<TY>(0.f + CW2_F(ca, 4, ga));
                r[1] = pool_cw_fbits<TY>(0.f + CW2_F(ca, 5, ga) + CW2_F(cb, 3, gb));
                r[2] = pool_cw_fbits<TY>(0.f + CW2_F(cb, 4, gb));
                r[3] = pool_cw_fbits<TY>(0.f + CW2_F(cb, 5, gb) + CW2_F(cn, 3, gn_));
            } else {
                const void *p = pool_s2g_at(dxc, 2 * t * q.ds_h + c0, TY);
                const double d0 = 0.0 + CW2_D(ca, 4, ga);
                const double d1 = 0.0 + CW2_D(ca, 5, ga) + CW2_D(cb, 3, gb);
                const double d2 = 0.0 + CW2_D(cb, 4, gb);
                const double d3 = 0.0 + CW2_D(cb, 5, gb) + CW2_D(cn, 3, gn_);
                r[0] = pool_cw_blend<TY>(p, alpha, beta, d0);
                r[1] = cnt > 1 ? pool_cw_blend<TY>(pool_s2g_at(p, 1, TY), alpha, beta, d1) : 0u;
                r[2] = cnt > 2 ? pool_cw_blend<TY>(pool_s2g_at(p, 2, TY), alpha, beta, d2) : 0u;
                r[3] = cnt > 3 ? pool_cw_blend<TY>(pool_s2g_at(p, 3, TY), alpha, beta, d3) : 0u;
            }
            pool_cw_store<TY>(dxc, 2 * t * q.ds_h + c0, r, cnt);
        }
        pa = ca, pb = cb, pn = cn, pga = ga, pgb = gb, pgn = gn_;
        tp = rb, tl = bl;
        if (AHEAD == 2) {
            rm = fm, rb = fb, ga = fga, gb = fgb;
            fm = nm, fb = nb, fga = nga, fgb = ngb;
        } else {
            rm = nm, rb = nb, ga = nga, gb = ngb;
        }
    }
}

#define CW2_KERNEL(name, ty, mode, l, nt, ahead, minb)                                             \
    static __global__ void __launch_bounds__(nt, minb)                                             \
        name(const pool_s2_t q, int R, int nt_, const void *xv, const void *dyv, void *dxv,        \
             double alpha, double beta)                                                            \
    {                                                                                              \
        cw2_body<ty, mode, l, nt, ahead>(q, R, nt_, xv, dyv, dxv, alpha, beta);                    \
    }
// name_<mode>_<lanes>_<type>
#define CW2_KERNELS(v, nt, ahead, minb)                                                            \
    CW2_KERNEL(v##_1_16_f32, POOL_S2G_F32, 1, 16, nt, ahead, minb)                                 \
    CW2_KERNEL(v##_0_16_f32, POOL_S2G_F32, 0, 16, nt, ahead, minb)                                 \
    CW2_KERNEL(v##_1_32_f32, POOL_S2G_F32, 1, 32, nt, ahead, minb)                                 \
    CW2_KERNEL(v##_0_32_f32, POOL_S2G_F32, 0, 32, nt, ahead, minb)                                 \
    CW2_KERNEL(v##_1_16_f16, POOL_S2G_F16, 1, 16, nt, ahead, minb)                                 \
    CW2_KERNEL(v##_0_16_f16, POOL_S2G_F16, 0, 16, nt, ahead, minb)                                 \
    CW2_KERNEL(v##_1_32_f16, POOL_S2G_F16, 1, 32, nt, ahead, minb)                                 \
    CW2_KERNEL(v##_0_32_f16, POOL_S2G_F16, 0, 32, nt, ahead, minb)
CW2_KERNELS(v13, 256, 2, V13_MINB)
CW2_KERNELS(v15, 128, 1, V15_MINB)
CW2_KERNELS(v16, 128, 2, V16_MINB)
#undef CW2_KERNELS
#undef CW2_KERNEL
#undef CW2_F
#undef CW2_D

#define V14_THREADS 256
// blocks an SM: MODE 1 (alpha 1 beta 0) 4 on sm_90 (64 registers, 0 spills; sm_80 spills at 4),
// MODE 0 3 (spills at 4)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define V14_MINB1 3
#else
#define V14_MINB1 4
#endif
#define V14_MINB0 3
#define V17_MINB1 3
#define V17_MINB0 3
// ---- v14 (16-bit): a lane per 8 dx columns ------------------------------------------------------
//
// pool_cw_body's walk with lane m owning dx columns 8m .. 8m + 7 and the windows 4m .. 4m + 3 (A,
// B, C, D): per x row one 16-byte load (two of pool_cw_load's partial loads in a row's last
// vector), held as two pool_cw_raw halves (lo: columns 8m .. 8m + 3, hi: 8m + 4 .. 8m + 7). The
// codes of (A, B) are pool_cw_codes on (lo, column 8m - 1 shuffled from lane m - 1), those of
// (C, D) pool_cw_codes on (hi, lo's high word, whose high half is column 8m + 3): two packed
// chains a step. Window 4m + 4 (cells 0, 3, 6 reach column 8m + 7) is lane m + 1's A, by shuffle.
// dx columns 8m .. 8m + 3 are v12's lane sums on (A, B, N = C), 8m + 4 .. 8m + 7 on (C, D, N =
// the next lane's A), the same expressions; one 16-byte store a row. L lanes a strip (8: W <= 64,
// 16: W <= 128, 32: W <= 256); the host gate wants x / dx 16-byte aligned with strides of 8.
template <int TY>
static __device__ __forceinline__ void v14_load(const void *xc, bool ok, int off, int cnt,
                                                pool_cw_raw *lo, pool_cw_raw *hi)
{
    if (ok && cnt >= 8) {
        const uint4 u = *(const uint4 *)((const unsigned short *)xc + off);
        lo->w[0] = u.x, lo->w[1] = u.y, hi->w[0] = u.z, hi->w[1] = u.w;
        lo->w[2] = lo->w[3] = hi->w[2] = hi->w[3] = 0u;
        return;
    }
    *lo = pool_cw_load<TY>(xc, ok, off, cnt);
    *hi = pool_cw_load<TY>(xc, ok && cnt > 4, off + 4, cnt - 4);
}

#define V14_F(c, k, g) ((c) == (k) ? (g) : 0.f)
#define V14_D(c, k, g) ((c) == (k) ? (double)(g) : 0.0)
// dx row 2t - 1's 4 columns of a half (p: its first element, cnt inside the row, > 0): pool_cw_body
template <int TY, int MODE>
static __device__ __forceinline__ void v14_odd(const void *p, int cnt, double alpha, double beta,
                                               int pa, int pb, int pn, float pga, float pgb,
                                               float pgn, int ca, int cb, int cn, float ga,
                                               float gb, float gn, unsigned *r)
{
    const double d1 = 0.0 + V14_D(pa, 8, pga) + V14_D(pb, 6, pgb) + V14_D(ca, 2, ga) +
                      V14_D(cb, 0, gb);
    const double d3 = 0.0 + V14_D(pb, 8, pgb) + V14_D(pn, 6, pgn) + V14_D(cb, 2, gb) +
                      V14_D(cn, 0, gn);
    if (MODE == 1) {
        r[0] = pool_cw_fbits<TY>(0.f + V14_F(pa, 7, pga) + V14_F(ca, 1, ga));
        r[2] = pool_cw_fbits<TY>(0.f + V14_F(pb, 7, pgb) + V14_F(cb, 1, gb));
        r[1] = pool_s2g_bits(d1, TY), r[3] = pool_s2g_bits(d3, TY);
    } else {
        const double d0 = 0.0 + V14_D(pa, 7, pga) + V14_D(ca, 1, ga);
        const double d2 = 0.0 + V14_D(pb, 7, pgb) + V14_D(cb, 1, gb);
        r[0] = pool_cw_blend<TY>(p, alpha, beta, d0);
        r[1] = cnt > 1 ? pool_cw_blend<TY>(pool_s2g_at(p, 1, TY), alpha, beta, d1) : 0u;
        r[2] = cnt > 2 ? pool_cw_blend<TY>(pool_s2g_at(p, 2, TY), alpha, beta, d2) : 0u;
        r[3] = cnt > 3 ? pool_cw_blend<TY>(pool_s2g_at(p, 3, TY), alpha, beta, d3) : 0u;
    }
}
// dx row 2t's 4 columns of a half
template <int TY, int MODE>
static __device__ __forceinline__ void v14_even(const void *p, int cnt, double alpha, double beta,
                                                int ca, int cb, int cn, float ga, float gb,
                                                float gn, unsigned *r)
{
    if (MODE == 1) {
        r[0] = pool_cw_fbits<TY>(0.f + V14_F(ca, 4, ga));
        r[1] = pool_cw_fbits<TY>(0.f + V14_F(ca, 5, ga) + V14_F(cb, 3, gb));
        r[2] = pool_cw_fbits<TY>(0.f + V14_F(cb, 4, gb));
        r[3] = pool_cw_fbits<TY>(0.f + V14_F(cb, 5, gb) + V14_F(cn, 3, gn));
    } else {
        const double d0 = 0.0 + V14_D(ca, 4, ga);
        const double d1 = 0.0 + V14_D(ca, 5, ga) + V14_D(cb, 3, gb);
        const double d2 = 0.0 + V14_D(cb, 4, gb);
        const double d3 = 0.0 + V14_D(cb, 5, gb) + V14_D(cn, 3, gn);
        r[0] = pool_cw_blend<TY>(p, alpha, beta, d0);
        r[1] = cnt > 1 ? pool_cw_blend<TY>(pool_s2g_at(p, 1, TY), alpha, beta, d1) : 0u;
        r[2] = cnt > 2 ? pool_cw_blend<TY>(pool_s2g_at(p, 2, TY), alpha, beta, d2) : 0u;
        r[3] = cnt > 3 ? pool_cw_blend<TY>(pool_s2g_at(p, 3, TY), alpha, beta, d3) : 0u;
    }
}
#undef V14_F
#undef V14_D

// the 8 columns' bits lo[0..3], hi[0..3] at dx row vector dxc + off (cnt inside the row)
template <int TY>
static __device__ __forceinline__ void v14_store(void *dxc, int off, const unsigned *lo,
                                                 const unsigned *hi, int cnt)
{
    if (cnt >= 8) {
        *(uint4 *)pool_s2g_atw(dxc, off, TY) = make_uint4(
            lo[0] | lo[1] << 16, lo[2] | lo[3] << 16, hi[0] | hi[1] << 16, hi[2] | hi[3] << 16);
        return;
    }
    pool_cw_store<TY>(dxc, off, lo, cnt);
    if (cnt > 4)
        pool_cw_store<TY>(dxc, off + 4, hi, cnt - 4);
}

// AHEAD 1: v12's load schedule; 2 (v17): v13's, a second row pair (f) in flight
template <int TY, int MODE, int L, int AHEAD>
static __device__ __forceinline__ void v14_body(const pool_s2_t &q, int R, int nt, const void *xv,
                                                const void *dyv, void *dxv, double alpha,
                                                double beta)
{
    const unsigned full = 0xffffffffu, ni = pool_cw_ninf(TY);
    const int lane = (int)(threadIdx.x & 31), m = lane & (L - 1);
    const int wid = (int)((blockIdx.x * V14_THREADS + threadIdx.x) >> 5);
    const int items = q.planes * nt, item0 = (32 / L) * wid, item = item0 + lane / L;
    if (item0 >= items)
        return; // the whole warp
    const bool act = item < items;
    const int pl = act ? item / nt : 0, strip = act ? item - pl * nt : 0;
    const int n = pl / q.c, c = pl - n * q.c;
    const void *xc = pool_s2g_at(xv, n * q.xs_n + c * q.xs_c, TY);
    const void *dyc = pool_s2g_at(dyv, n * q.gs_n + c * q.gs_c, TY);
    void *dxc = pool_s2g_atw(dxv, n * q.ds_n + c * q.ds_c, TY);
    const int H = q.in_h, W = q.in_w, pairs = (H + 1) / 2;
    const int t0 = strip * R, t1 = act ? min(t0 + R, pairs) : t0 - 1;
    const int c0 = 8 * m, cnt = W - c0, j0 = 4 * m; // cnt > 0: the lane holds dx columns
    const bool live = act && cnt > 0;
    const bool okA = j0 < q.out_w, okB = j0 + 1 < q.out_w, okC = j0 + 2 < q.out_w,
               okD = j0 + 3 < q.out_w;
    const int dyo = j0 * q.gs_w;

    pool_cw_raw tp, tq, rm, rmh, rb, rbh; // rows 2t - 1, 2t, 2t + 1: lo and hi halves
    v14_load<TY>(xc, live && t0 > 0, (2 * t0 - 1) * q.xs_h + c0, cnt, &tp, &tq);
    unsigned tl = __shfl_up_sync(full, tq.w[1], 1, L);
    if (m == 0)
        tl = ni;
    v14_load<TY>(xc, live && 2 * t0 < H, 2 * t0 * q.xs_h + c0, cnt, &rm, &rmh);
    v14_load<TY>(xc, live && 2 * t0 + 1 < H, (2 * t0 + 1) * q.xs_h + c0, cnt, &rb, &rbh);
    const bool g0 = act && t0 < q.out_h;
    const int y0 = t0 * q.gs_h + dyo;
    float ga = g0 && okA ? pool_s2g_ld(dyc, y0, TY) : 0.f;
    float gb = g0 && okB ? pool_s2g_ld(dyc, y0 + q.gs_w, TY) : 0.f;
    float gc = g0 && okC ? pool_s2g_ld(dyc, y0 + 2 * q.gs_w, TY) : 0.f;
    float gd = g0 && okD ? pool_s2g_ld(dyc, y0 + 3 * q.gs_w, TY) : 0.f;
    // AHEAD 2: window row t0 + 1's rows and dy (exist when t0 + 1 <= t1)
    pool_cw_raw fm = pool_cw_load<TY>(xc, false, 0, 0), fmh = fm, fb = fm, fbh = fm;
    float fga = 0.f, fgb = 0.f, fgc = 0.f, fgd = 0.f;
    if (AHEAD == 2) {
        const bool more = t0 < t1;
        const int r2 = 2 * t0 + 2, y1 = (t0 + 1) * q.gs_h + dyo;
        v14_load<TY>(xc, more && live && r2 < H, r2 * q.xs_h + c0, cnt, &fm, &fmh);
        v14_load<TY>(xc, more && live && r2 + 1 < H, (r2 + 1) * q.xs_h + c0, cnt, &fb, &fbh);
        const bool gn = more && t0 + 1 < q.out_h;
        fga = gn && okA ? pool_s2g_ld(dyc, y1, TY) : 0.f;
        fgb = gn && okB ? pool_s2g_ld(dyc, y1 + q.gs_w, TY) : 0.f;
        fgc = gn && okC ? pool_s2g_ld(dyc, y1 + 2 * q.gs_w, TY) : 0.f;
        fgd = gn && okD ? pool_s2g_ld(dyc, y1 + 3 * q.gs_w, TY) : 0.f;
    }
    int pa = -1, pb = -1, pc = -1, pd = -1, pn = -1; // window row t - 1
    float pga = 0.f, pgb = 0.f, pgc = 0.f, pgd = 0.f, pgn = 0.f;
    for (int k = 0; k <= R; k++) {
        const int t = t0 + k;
        const bool on = t <= t1, more = t < t1;
        const int ta = t + AHEAD; // the window row whose rows and dy this step loads
        const bool want = ta <= t1;
        const int r2 = 2 * ta;
        pool_cw_raw nm, nmh, nb, nbh;
        v14_load<TY>(xc, want && live && r2 < H, r2 * q.xs_h + c0, cnt, &nm, &nmh);
        v14_load<TY>(xc, want && live && r2 + 1 < H, (r2 + 1) * q.xs_h + c0, cnt, &nb, &nbh);
        const bool gn = want && ta < q.out_h;
        const int y1 = ta * q.gs_h + dyo;
        const float nga = gn && okA ? pool_s2g_ld(dyc, y1, TY) : 0.f;
        const float ngb = gn && okB ? pool_s2g_ld(dyc, y1 + q.gs_w, TY) : 0.f;
        const float ngc = gn && okC ? pool_s2g_ld(dyc, y1 + 2 * q.gs_w, TY) : 0.f;
        const float ngd = gn && okD ? pool_s2g_ld(dyc, y1 + 3 * q.gs_w, TY) : 0.f;
        unsigned ml = __shfl_up_sync(full, rmh.w[1], 1, L);
        unsigned bl = __shfl_up_sync(full, rbh.w[1], 1, L);
        if (m == 0)
            ml = ni, bl = ni;
        int ca, cb, cc, cd;
        pool_cw_codes<TY>(tp, tl, rm, ml, rb, bl, q.propagate, &ca, &cb);
        pool_cw_codes<TY>(tq, tp.w[1], rmh, rm.w[1], rbh, rb.w[1], q.propagate, &cc, &cd);
        const bool ro = on && t < q.out_h;
        if (!(ro && okA))
            ca = -1;
        if (!(ro && okB))
            cb = -1;
        if (!(ro && okC))
            cc = -1;
        if (!(ro && okD))
            cd = -1;
        int cn = __shfl_down_sync(full, ca, 1, L);
        const float gn_ = __shfl_down_sync(full, ga, 1, L);
        if (m == L - 1)
            cn = -1;
        const int r1 = 2 * t - 1;
        if (live && on && t > t0 && r1 < H) {
            unsigned lo[4], hi[4] = {0u, 0u, 0u, 0u};
            const void *p = pool_s2g_at(dxc, r1 * q.ds_h + c0, TY);
            v14_odd<TY, MODE>(p, cnt, alpha, beta, pa, pb, pc, pga, pgb, pgc, ca, cb, cc, ga, gb,
                              gc, lo);
            if (cnt > 4)
                v14_odd<TY, MODE>(pool_s2g_at(p, 4, TY), cnt - 4, alpha, beta, pc, pd, pn, pgc,
                                  pgd, pgn, cc, cd, cn, gc, gd, gn_, hi);
            v14_store<TY>(dxc, r1 * q.ds_h + c0, lo, hi, cnt);
        }
        if (live && more) { // row 2t < H: t < pairs
            unsigned lo[4], hi[4] = {0u, 0u, 0u, 0u};
            const void *p = pool_s2g_at(dxc, 2 * t * q.ds_h + c0, TY);
            v14_even<TY, MODE>(p, cnt, alpha, beta, ca, cb, cc, ga, gb, gc, lo);
            if (cnt > 4)
                v14_even<TY, MODE>(pool_s2g_at(p, 4, TY), cnt - 4, alpha, beta, cc, cd, cn, gc,
                                   gd, gn_, hi);
            v14_store<TY>(dxc, 2 * t * q.ds_h + c0, lo, hi, cnt);
        }
        pa = ca, pb = cb, pc = cc, pd = cd, pn = cn;
        pga = ga, pgb = gb, pgc = gc, pgd = gd, pgn = gn_;
        tp = rb, tq = rbh, tl = bl;
        if (AHEAD == 2) {
            rm = fm, rmh = fmh, rb = fb, rbh = fbh;
            ga = fga, gb = fgb, gc = fgc, gd = fgd;
            fm = nm, fmh = nmh, fb = nb, fbh = nbh;
            fga = nga, fgb = ngb, fgc = ngc, fgd = ngd;
        } else {
            rm = nm, rmh = nmh, rb = nb, rbh = nbh;
            ga = nga, gb = ngb, gc = ngc, gd = ngd;
        }
    }
}

#define V14_KERNEL(name, mode, l, ahead, minb)                                                     \
    static __global__ void __launch_bounds__(V14_THREADS, minb)                                    \
        name(const pool_s2_t q, int R, int nt, const void *xv, const void *dyv, void *dxv,         \
             double alpha, double beta)                                                            \
    {                                                                                              \
        v14_body<POOL_S2G_F16, mode, l, ahead>(q, R, nt, xv, dyv, dxv, alpha, beta);               \
    }
#define V14_KERNELS(v, ahead, minb1, minb0)                                                        \
    V14_KERNEL(v##_1_8_f16, 1, 8, ahead, minb1)                                                    \
    V14_KERNEL(v##_0_8_f16, 0, 8, ahead, minb0)                                                    \
    V14_KERNEL(v##_1_16_f16, 1, 16, ahead, minb1)                                                  \
    V14_KERNEL(v##_0_16_f16, 0, 16, ahead, minb0)                                                  \
    V14_KERNEL(v##_1_32_f16, 1, 32, ahead, minb1)                                                  \
    V14_KERNEL(v##_0_32_f16, 0, 32, ahead, minb0)
V14_KERNELS(v14, 1, V14_MINB1, V14_MINB0)
V14_KERNELS(v17, 2, V17_MINB1, V17_MINB0)
#undef V14_KERNELS
#undef V14_KERNEL

// ---- host ------------------------------------------------------------------------------------
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
static uint32_t bits_of(double v, int ty)
{
    if (ty == F32) {
        const float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    return d2h(v);
}
static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
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

// Geometry: x and dx rows padded to 4 elements (the library's pool_rows4_ok), dy packed.
struct Geo {
    int pitch, oh, ow;
    size_t nx, ny; // elements of x / dx (with padding), dy
};
static Geo geo_of(const Spec &s)
{
    Geo g;
    g.pitch = (s.w + 3) / 4 * 4, g.oh = (s.h - 1) / 2 + 1, g.ow = (s.w - 1) / 2 + 1;
    g.nx = (size_t)s.n * s.c * s.h * g.pitch, g.ny = (size_t)s.n * s.c * g.oh * g.ow;
    return g;
}
static pool_s2_t prob_of(const Spec &s, const Geo &g)
{
    pool_s2_t q;
    memset(&q, 0, sizeof q);
    q.c = s.c, q.planes = s.n * s.c, q.in_h = s.h, q.in_w = s.w, q.out_h = g.oh, q.out_w = g.ow;
    q.propagate = s.prop;
    q.xs_w = 1, q.xs_h = g.pitch, q.xs_c = s.h * g.pitch, q.xs_n = s.c * q.xs_c;
    q.ds_w = 1, q.ds_h = q.xs_h, q.ds_c = q.xs_c, q.ds_n = q.xs_n;
    q.gs_w = 1, q.gs_h = g.ow, q.gs_c = g.oh * g.ow, q.gs_n = s.c * q.gs_c;
    return q;
}
static const double DX_OLD = 3.0; // dx (and its row padding) before a call

// Reference on planes p with p % step == 0: window_max's code per window, then src/ref's gather
// (windows in ascending (i, j), double sum from 0.0, blend, one rounding). ref holds the
// expected bits, mag the sum of |routed terms| (the tolerance of the float-sum variants).
static void reference(const Spec &s, const Geo &g, const std::vector<uint32_t> &x,
                      const std::vector<uint32_t> &dy, int step, std::vector<uint32_t> &ref,
                      std::vector<double> &mag)
{
    const int planes = s.n * s.c, H = s.h, W = s.w, OH = g.oh, OW = g.ow;
    const double lowest = s.ty == F32 ? -3.4028234663852886e38 : -65504.0;
    ref.assign(g.nx, bits_of(DX_OLD, s.ty));
    mag.assign(g.nx, 0.0);
#pragma omp parallel for schedule(dynamic, 4)
    for (int p = 0; p < planes; p += step) {
        const size_t xb = (size_t)p * H * g.pitch, yb = (size_t)p * OH * OW;
        std::vector<int> code((size_t)OH * OW);
        for (int i = 0; i < OH; i++)
            for (int j = 0; j < OW; j++) {
                double m = lowest;
                int found = 0, pos = -1;
                for (int r = 2 * i - 1; r <= 2 * i + 1; r++)
                    for (int cc = 2 * j - 1; cc <= 2 * j + 1; cc++) {
                        if (r < 0 || r >= H || cc < 0 || cc >= W)
                            continue;
                        const double v = val(x, xb + (size_t)r * g.pitch + cc, s.ty);
                        if (v != v) {
                            if (!s.prop)
                                continue;
                            pos = r * W + cc, found = 1;
                            goto done;
                        }
                        if (found ? v > m : v >= m)
                            m = v, pos = r * W + cc, found = 1;
                    }
            done:
                code[(size_t)i * OW + j] = found ? pos : -1;
            }
        for (int h = 0; h < H; h++)
            for (int w = 0; w < W; w++) {
                const int ilo = std::max(0, (h + 1 - 3 + 2 * 4) / 2 - 4 + 1);
                const int ihi = std::min(OH - 1, (h + 1) / 2);
                const int jlo = std::max(0, (w + 1 - 3 + 2 * 4) / 2 - 4 + 1);
                const int jhi = std::min(OW - 1, (w + 1) / 2);
                double acc = 0.0, mg = 0.0;
                for (int i = ilo; i <= ihi; i++)
                    for (int j = jlo; j <= jhi; j++)
                        if (code[(size_t)i * OW + j] == h * W + w) {
                            const double gv = val(dy, yb + (size_t)i * OW + j, s.ty);
                            acc += gv, mg += fabs(gv);
                        }
                double r = s.alpha * acc;
                if (s.beta != 0.0)
                    r += s.beta * DX_OLD;
                const size_t k = xb + (size_t)h * g.pitch + w;
                ref[k] = bits_of(r, s.ty), mag[k] = mg * fabs(s.alpha);
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

// ---- versions -----------------------------------------------------------------------------
struct Ctx {
    pool_s2_t q;
    int ty;
};

// pool_smb_ok's geometry (default target 4096 dx elements a tile)
static pool_smb_t smb_geom(const pool_s2_t &q)
{
    pool_smb_t m;
    const int W = q.in_w, sp = (W + 1) / 2, pairs = (q.in_h + 1) / 2;
    m.ow1 = (q.out_w > sp ? q.out_w : sp) + 1;
    const int need = 4 + (W + 3) / 4 * 4 + 1, last = 2 * m.ow1 + 4;
    m.xw = ((need > last ? need : last) + 3) / 4 * 4;
    int R = 4096 / (2 * W);
    R = R < 1 ? 1 : R > pairs ? pairs : R;
    for (;; R--) {
        m.nt = (pairs + R - 1) / R;
        m.R = (pairs + m.nt - 1) / m.nt;
        if (pool_smb_bytes(m) <= 48 * 1024 || R == 1)
            break;
    }
    return m;
}

static void launch_v0(const Ctx &k, const void *x, const void *dy, void *dx, double al, double be,
                      cudaStream_t st)
{
    const pool_s2_t &q = k.q;
    const pool_smb_t m = smb_geom(q);
    const unsigned blocks = (unsigned)(q.planes * m.nt);
    const size_t bytes = pool_smb_bytes(m);
    if (k.ty == F32)
        v0_f32<<<blocks, POOL_SMB_THREADS, bytes, st>>>(q, m, x, dy, dx, al, be);
    else
        v0_f16<<<blocks, POOL_SMB_THREADS, bytes, st>>>(q, m, x, dy, dx, al, be);
}

typedef void (*pc_kernel_t)(const pool_s2_t, int, int, const void *, const void *, void *, double,
                            double);
// the column-walk kernels: R window rows a strip (0: the whole plane); v0 when W > 64
static void launch_pc(const Ctx &k, pc_kernel_t f32k, pc_kernel_t f16k, int rows, const void *x,
                      const void *dy, void *dx, double al, double be, cudaStream_t st)
{
    const pool_s2_t &q = k.q;
    const int pairs = (q.in_h + 1) / 2;
    if ((q.in_w + 1) / 2 > 32) {
        launch_v0(k, x, dy, dx, al, be, st);
        return;
    }
    int R = rows <= 0 || rows > pairs ? pairs : rows;
    const int nt = (pairs + R - 1) / R;
    R = (pairs + nt - 1) / nt; // balanced strips
    const long long threads = (long long)q.planes * nt * 32;
    const unsigned blocks = (unsigned)((threads + PC_THREADS - 1) / PC_THREADS);
    (k.ty == F32 ? f32k : f16k)<<<blocks, PC_THREADS, 0, st>>>(q, R, nt, x, dy, dx, al, be);
}

// the half-warp kernels: as launch_pc, two strips a warp
static void launch_pc4(const Ctx &k, pc_kernel_t f32k, pc_kernel_t f16k, int rows, const void *x,
                       const void *dy, void *dx, double al, double be, cudaStream_t st)
{
    const pool_s2_t &q = k.q;
    const int pairs = (q.in_h + 1) / 2;
    if (q.in_w > 64) {
        launch_v0(k, x, dy, dx, al, be, st);
        return;
    }
    int R = rows <= 0 || rows > pairs ? pairs : rows;
    const int nt = (pairs + R - 1) / R;
    R = (pairs + nt - 1) / nt;
    const long long threads = ((long long)q.planes * nt + 1) / 2 * 32;
    const unsigned blocks = (unsigned)((threads + PC_THREADS - 1) / PC_THREADS);
    (k.ty == F32 ? f32k : f16k)<<<blocks, PC_THREADS, 0, st>>>(q, R, nt, x, dy, dx, al, be);
}

// pool_cw_ok's strips (src/cuda/pooling.cu): rows r0 (clamped to pairs), balanced, halved
// (down to 2) while the grid is under half a wave of 32 warps an SM; per: strips a warp (2 when
// W <= 64, else 1). Sets *R, *nt; returns the warps.
static int g_sms = 132; // the H200's; run_problems reads the device's
static long long cw_geom(const pool_s2_t &q, int r0, int per, int *R, int *nt)
{
    const int pairs = (q.in_h + 1) / 2;
    int r = r0 > pairs ? pairs : r0;
    const long long half_wave = (long long)g_sms * 16;
    long long warps;
    for (;;) {
        *nt = (pairs + r - 1) / r;
        r = (pairs + *nt - 1) / *nt;
        warps = ((long long)q.planes * *nt + per - 1) / per;
        if (r <= 2 || warps >= half_wave)
            break;
        r = (r + 1) / 2;
    }
    *R = r;
    return warps;
}

// v12's kernels and the variants built on it: [type][mode (1: alpha 1 beta 0)][lanes 16 / 32]
typedef pc_kernel_t cw_table_t[2][2][2];
static const cw_table_t cw_v12 = {{{v12_0_16_f32, v12_0_32_f32}, {v12_1_16_f32, v12_1_32_f32}},
                                  {{v12_0_16_f16, v12_0_32_f16}, {v12_1_16_f16, v12_1_32_f16}}};
static const cw_table_t cw_v13 = {{{v13_0_16_f32, v13_0_32_f32}, {v13_1_16_f32, v13_1_32_f32}},
                                  {{v13_0_16_f16, v13_0_32_f16}, {v13_1_16_f16, v13_1_32_f16}}};
static const cw_table_t cw_v15 = {{{v15_0_16_f32, v15_0_32_f32}, {v15_1_16_f32, v15_1_32_f32}},
                                  {{v15_0_16_f16, v15_0_32_f16}, {v15_1_16_f16, v15_1_32_f16}}};
static const cw_table_t cw_v16 = {{{v16_0_16_f32, v16_0_32_f32}, {v16_1_16_f32, v16_1_32_f32}},
                                  {{v16_0_16_f16, v16_0_32_f16}, {v16_1_16_f16, v16_1_32_f16}}};

// the library's launch of pool_cw (pool_cw_ok): L = 16 lanes a strip when W <= 64, 32 when
// W <= 128, else v0; rows r32 (FLOAT) / r16 (16-bit) a strip; threads a block
static void launch_cw(const Ctx &k, const cw_table_t &tb, int r32, int r16, int threads,
                      const void *x, const void *dy, void *dx, double al, double be,
                      cudaStream_t st)
{
    const pool_s2_t &q = k.q;
    if (q.in_w > 128) {
        launch_v0(k, x, dy, dx, al, be, st);
        return;
    }
    const int wide = q.in_w > 64;
    int R, nt;
    const long long warps = cw_geom(q, k.ty == F32 ? r32 : r16, wide ? 1 : 2, &R, &nt);
    const unsigned blocks = (unsigned)((warps * 32 + threads - 1) / threads);
    tb[k.ty][al == 1.0 && be == 0.0][wide]<<<blocks, threads, 0, st>>>(q, R, nt, x, dy, dx, al, be);
}

// v14's gate: 16-bit, W <= 256, x and dx 16-byte aligned with strides of 8 elements (its
// 16-byte vectors); else v12 (and v0 past W 128)
static bool v14_ok(const Ctx &k, const void *x, const void *dx)
{
    const pool_s2_t &q = k.q;
    const long long st = (long long)q.xs_h | q.xs_c | q.xs_n | q.ds_h | q.ds_c | q.ds_n;
    return k.ty != F32 && q.in_w <= 256 && q.xs_w == 1 && q.ds_w == 1 && st % 8 == 0 &&
           ((uintptr_t)x | (uintptr_t)dx) % 16 == 0;
}
// v14 (ahead 1) / v17 (ahead 2); not v14_ok: v12 / v13
static void launch_v14(const Ctx &k, int ahead, const void *x, const void *dy, void *dx, double al,
                       double be, cudaStream_t st)
{
    if (!v14_ok(k, x, dx)) {
        launch_cw(k, ahead == 2 ? cw_v13 : cw_v12, 14, 28, 256, x, dy, dx, al, be, st);
        return;
    }
    static const pc_kernel_t t14[2][3] = {{v14_0_8_f16, v14_0_16_f16, v14_0_32_f16},
                                          {v14_1_8_f16, v14_1_16_f16, v14_1_32_f16}};
    static const pc_kernel_t t17[2][3] = {{v17_0_8_f16, v17_0_16_f16, v17_0_32_f16},
                                          {v17_1_8_f16, v17_1_16_f16, v17_1_32_f16}};
    const pc_kernel_t(&tb)[2][3] = ahead == 2 ? t17 : t14;
    const pool_s2_t &q = k.q;
    const int li = q.in_w <= 64 ? 0 : q.in_w <= 128 ? 1 : 2, L = 8 << li;
    int R, nt;
    const long long warps = cw_geom(q, 28, 32 / L, &R, &nt);
    const unsigned blocks = (unsigned)((warps * 32 + V14_THREADS - 1) / V14_THREADS);
    tb[al == 1.0 && be == 0.0][li]<<<blocks, V14_THREADS, 0, st>>>(q, R, nt, x, dy, dx, al, be);
}

struct Version {
    const char *name, *what;
    int id;
};
static const Version versions[] = {
    {"v0", "library pool_smb_max_bwd (shared-memory tile)", 0},
    {"v1", "lane per column pair walking down strips of 14 window rows, double sums", 1},
    {"v2", "v1 with float sums", 2},
    {"v3", "v1, one strip a plane", 3},
    {"v4", "v1, strips of 7 window rows", 4},
    {"v5", "v2, strips of 7 window rows", 5},
    {"v6", "v1, sums of <= 2 terms in float when alpha 1 beta 0 (exact), strips of 14", 6},
    {"v7", "v6, strips of 7 window rows", 7},
    {"v8", "lane per 4 columns (2 windows), half-warp per strip of 14, double sums", 8},
    {"v9", "v8 with v6's exact float sums when alpha 1 beta 0", 9},
    {"v10", "v9, strips of 7 window rows", 10},
    {"v11", "v9, one strip a plane", 11},
    {"v12", "library pool_cw (v9's port: 16 / 32 lanes a strip, W <= 128)", 12},
    {"v13", "v12 with the loads two steps ahead", 13},
    {"v14", "16-bit: v12 with a lane per 8 columns (16-byte x / dx), 8 / 16 / 32 lanes a strip", 14},
    {"v15", "v12 with strips of 7 (FLOAT) / 14 (16-bit), blocks of 128", 15},
    {"v16", "v13 with v15's strips and blocks", 16},
    {"v17", "v14 with the loads two steps ahead (v13's schedule); FLOAT: v13", 17},
};
static const int nversions = (int)(sizeof versions / sizeof versions[0]);

static void launch(int id, const Ctx &k, const void *x, const void *dy, void *dx, double al,
                   double be, cudaStream_t st)
{
    switch (id) {
    case 0:
        launch_v0(k, x, dy, dx, al, be, st);
        break;
    case 1:
        launch_pc(k, v1_f32, v1_f16, 14, x, dy, dx, al, be, st);
        break;
    case 2:
        launch_pc(k, v2_f32, v2_f16, 14, x, dy, dx, al, be, st);
        break;
    case 3:
        launch_pc(k, v1_f32, v1_f16, 0, x, dy, dx, al, be, st);
        break;
    case 4:
        launch_pc(k, v1_f32, v1_f16, 7, x, dy, dx, al, be, st);
        break;
    case 5:
        launch_pc(k, v2_f32, v2_f16, 7, x, dy, dx, al, be, st);
        break;
    case 8:
    case 9:
    case 10:
    case 11: {
        const bool fast = id != 8 && al == 1.0 && be == 0.0;
        launch_pc4(k, fast ? v9_f32 : v8_f32, fast ? v9_f16 : v8_f16,
                   id == 10 ? 7 : id == 11 ? 0 : 14, x, dy, dx, al, be, st);
        break;
    }
    case 12:
        launch_cw(k, cw_v12, 14, 28, POOL_CW_THREADS, x, dy, dx, al, be, st);
        break;
    case 13:
        launch_cw(k, cw_v13, 14, 28, 256, x, dy, dx, al, be, st);
        break;
    case 14:
    case 17:
        launch_v14(k, id == 17 ? 2 : 1, x, dy, dx, al, be, st);
        break;
    case 15:
        launch_cw(k, cw_v15, 7, 14, 128, x, dy, dx, al, be, st);
        break;
    case 16:
        launch_cw(k, cw_v16, 7, 14, 128, x, dy, dx, al, be, st);
        break;
    default: // v6 / v7: the float fast path holds for alpha 1, beta 0 only
        if (al == 1.0 && be == 0.0)
            launch_pc(k, v6_f32, v6_f16, id == 6 ? 14 : 7, x, dy, dx, al, be, st);
        else
            launch_pc(k, v1_f32, v1_f16, id == 6 ? 14 : 7, x, dy, dx, al, be, st);
        break;
    }
}

// Host emulation of pc_body (the lane loop of a warp, shuffles as arrays), run on the small
// shapes before the GPU: checks the index math and routing of v1 against the reference bits.
static void emu_pc(const Spec &s, const Geo &g, const pool_s2_t &q, int rows,
                   const std::vector<uint32_t> &x, const std::vector<uint32_t> &dy,
                   std::vector<uint32_t> &dx)
{
    const int pairs = (q.in_h + 1) / 2, H = q.in_h, W = q.in_w;
    int R = rows <= 0 || rows > pairs ? pairs : rows;
    const int nt = (pairs + R - 1) / R;
    R = (pairs + nt - 1) / nt;
    const float ni = -INFINITY;
    dx.assign(g.nx, bits_of(DX_OLD, s.ty));
    auto xv = [&](size_t base, bool ok, int r, int c0, bool two, float *a, float *b) {
        *a = *b = ni;
        if (ok && r >= 0 && r < H) {
            *a = (float)val(x, base + (size_t)r * q.xs_h + c0, s.ty);
            if (two)
                *b = (float)val(x, base + (size_t)r * q.xs_h + c0 + 1, s.ty);
        }
    };
    for (int pl = 0; pl < q.planes; pl++)
        for (int strip = 0; strip < nt; strip++) {
            const size_t xb = (size_t)pl * q.xs_c, yb = (size_t)pl * q.gs_c;
            const int t0 = strip * R, t1 = std::min(t0 + R, pairs);
            float tl[32], ta[32], tb[32], ml[32], ma[32], mb[32], bl[32], ba[32], bb[32];
            int pc[32], pcn[32], cd[32], cn[32];
            double pg[32], pgn[32], gg[32], gn[32];
            for (int s_ = 0; s_ < 32; s_++) {
                xv(xb, 2 * s_ < W, 2 * t0 - 1, 2 * s_, 2 * s_ + 1 < W, &ta[s_], &tb[s_]);
                pc[s_] = pcn[s_] = -1, pg[s_] = pgn[s_] = 0;
            }
            for (int s_ = 0; s_ < 32; s_++)
                tl[s_] = s_ ? tb[s_ - 1] : ni;
            for (int t = t0; t <= t1; t++) {
                for (int s_ = 0; s_ < 32; s_++) {
                    const bool live = 2 * s_ < W, two = 2 * s_ + 1 < W;
                    xv(xb, live, 2 * t, 2 * s_, two, &ma[s_], &mb[s_]);
                    xv(xb, live, 2 * t + 1, 2 * s_, two, &ba[s_], &bb[s_]);
                    gg[s_] = s_ < q.out_w && t < q.out_h ? val(dy, yb + (size_t)t * q.gs_h + s_, s.ty)
                                                        : 0.0;
                }
                for (int s_ = 0; s_ < 32; s_++) {
                    ml[s_] = s_ ? mb[s_ - 1] : ni, bl[s_] = s_ ? bb[s_ - 1] : ni;
                    cd[s_] = -1;
                    if (s_ < q.out_w && t < q.out_h) {
                        const float img[9] = {tl[s_], ta[s_], tb[s_], ml[s_], ma[s_],
                                              mb[s_], bl[s_], ba[s_], bb[s_]};
                        int nm = 0;
                        for (int k = 0; k < 9; k++)
                            nm |= img[k] != img[k] ? 1 << k : 0;
                        if (q.propagate && nm) {
                            cd[s_] = __builtin_ctz(nm);
                        } else {
                            float m = ni;
                            for (int k = 0; k < 9; k++)
                                if (img[k] > m)
                                    m = img[k], cd[s_] = k;
                        }
                    }
                }
                for (int s_ = 0; s_ < 32; s_++) {
                    cn[s_] = s_ < 31 ? cd[s_ + 1] : -1;
                    gn[s_] = s_ < 31 ? gg[s_ + 1] : gg[s_];
                }
                for (int s_ = 0; s_ < 32; s_++) {
                    const bool live = 2 * s_ < W, two = 2 * s_ + 1 < W;
                    const int r1 = 2 * t - 1, c0 = 2 * s_;
                    double a[2][2];
                    a[0][0] = 0.0 + (pc[s_] == 7 ? pg[s_] : 0.0);
                    a[0][0] += cd[s_] == 1 ? gg[s_] : 0.0;
                    a[0][1] = 0.0 + (pc[s_] == 8 ? pg[s_] : 0.0);
                    a[0][1] += pcn[s_] == 6 ? pgn[s_] : 0.0;
                    a[0][1] += cd[s_] == 2 ? gg[s_] : 0.0;
                    a[0][1] += cn[s_] == 0 ? gn[s_] : 0.0;
                    a[1][0] = 0.0 + (cd[s_] == 4 ? gg[s_] : 0.0);
                    a[1][1] = 0.0 + (cd[s_] == 5 ? gg[s_] : 0.0);
                    a[1][1] += cn[s_] == 3 ? gn[s_] : 0.0;
                    for (int rr = 0; rr < 2; rr++) {
                        const int row = rr ? 2 * t : r1;
                        const bool go = rr ? live && t < t1 : live && t > t0 && r1 < H;
                        if (!go)
                            continue;
                        for (int cc = 0; cc < 1 + two; cc++) {
                            double r = s.alpha * a[rr][cc];
                            if (s.beta != 0.0)
                                r += s.beta * DX_OLD;
                            dx[xb + (size_t)row * q.ds_h + c0 + cc] = bits_of(r, s.ty);
                        }
                    }
                    pc[s_] = cd[s_], pcn[s_] = cn[s_], pg[s_] = gg[s_], pgn[s_] = gn[s_];
                    tl[s_] = bl[s_], ta[s_] = ba[s_], tb[s_] = bb[s_];
                }
            }
        }
}

static void make_data(const Spec &s, const Geo &g, std::vector<uint32_t> &x,
                      std::vector<uint32_t> &dy)
{ // x row padding holds the largest finite value (a read past W shows)
    x.assign(g.nx, s.ty == F32 ? 0x7f7fffffu : 0x7bffu);
    dy.resize(g.ny);
    for (size_t p = 0; p < (size_t)s.n * s.c; p++)
        for (int h = 0; h < s.h; h++)
            for (int w = 0; w < s.w; w++)
                x[(p * s.h + h) * g.pitch + w] = x_bits(s.ty, s.fill);
    for (size_t i = 0; i < g.ny; i++)
        dy[i] = dy_bits(s.ty, s.fill);
}

// Host emulation of pc4_body (v8): lane m of a strip holds dx columns 4m .. 4m + 3, windows 2m,
// 2m + 1; the codes by the scalar chain (pool_s2g_code2 is the library's, tested there).
static int emu_code(const float *img, int prop)
{
    int nm = 0, cd = -1;
    for (int k = 0; k < 9; k++)
        nm |= img[k] != img[k] ? 1 << k : 0;
    if (prop && nm)
        return __builtin_ctz(nm);
    float m = -INFINITY;
    for (int k = 0; k < 9; k++)
        if (img[k] > m)
            m = img[k], cd = k;
    return cd;
}
// L lanes a strip (16: v8..v11; 16 / 32: v12.., pool_cw_body's walk); cw: strips by cw_geom (the
// library's rule, rows as its default) instead of launch_pc4's.
static void emu_pc4(const Spec &s, const Geo &g, const pool_s2_t &q, int rows,
                    const std::vector<uint32_t> &x, const std::vector<uint32_t> &dy,
                    std::vector<uint32_t> &dx, int L = 16, bool cw = false)
{
    const int pairs = (q.in_h + 1) / 2, H = q.in_h, W = q.in_w;
    int R = rows <= 0 || rows > pairs ? pairs : rows;
    int nt = (pairs + R - 1) / R;
    R = (pairs + nt - 1) / nt;
    if (cw)
        cw_geom(q, rows, L == 16 ? 2 : 1, &R, &nt);
    dx.assign(g.nx, bits_of(DX_OLD, s.ty));
    for (int pl = 0; pl < q.planes; pl++)
        for (int strip = 0; strip < nt; strip++) {
            const size_t xb = (size_t)pl * q.xs_c, yb = (size_t)pl * q.gs_c;
            const int t0 = strip * R, t1 = std::min(t0 + R, pairs);
            auto X = [&](int r, int cc) -> float {
                return r < 0 || r >= H || cc < 0 || cc >= W
                           ? -INFINITY
                           : (float)val(x, xb + (size_t)r * q.xs_h + cc, s.ty);
            };
            auto G = [&](int t, int j) -> double {
                return t < q.out_h && j < q.out_w ? val(dy, yb + (size_t)t * q.gs_h + j, s.ty) : 0.0;
            };
            int pa[32], pb[32], pn[32], ca[32], cb[32], cn[32];
            double pga[32], pgb[32], pgn[32], ga[32], gb[32], gn[32];
            for (int m = 0; m < L; m++)
                pa[m] = pb[m] = pn[m] = -1, pga[m] = pgb[m] = pgn[m] = 0;
            for (int t = t0; t <= t1; t++) {
                for (int m = 0; m < L; m++)
                    for (int h = 0; h < 2; h++) {
                        const int j = 2 * m + h;
                        float img[9];
                        for (int k = 0; k < 9; k++)
                            img[k] = X(2 * t - 1 + k / 3, 2 * j - 1 + k % 3);
                        const bool ok = t < q.out_h && j < q.out_w;
                        (h ? cb : ca)[m] = ok ? emu_code(img, q.propagate) : -1;
                        (h ? gb : ga)[m] = G(t, j);
                    }
                for (int m = 0; m < L; m++)
                    cn[m] = m < L - 1 ? ca[m + 1] : -1, gn[m] = m < L - 1 ? ga[m + 1] : 0;
                for (int m = 0; m < L; m++) {
                    const int c0 = 4 * m, r1 = 2 * t - 1;
                    double a[2][4];
                    a[0][0] = 0.0 + (pa[m] == 7 ? pga[m] : 0.0) + (ca[m] == 1 ? ga[m] : 0.0);
                    a[0][1] = 0.0 + (pa[m] == 8 ? pga[m] : 0.0) + (pb[m] == 6 ? pgb[m] : 0.0) +
                              (ca[m] == 2 ? ga[m] : 0.0) + (cb[m] == 0 ? gb[m] : 0.0);
                    a[0][2] = 0.0 + (pb[m] == 7 ? pgb[m] : 0.0) + (cb[m] == 1 ? gb[m] : 0.0);
                    a[0][3] = 0.0 + (pb[m] == 8 ? pgb[m] : 0.0) + (pn[m] == 6 ? pgn[m] : 0.0) +
                              (cb[m] == 2 ? gb[m] : 0.0) + (cn[m] == 0 ? gn[m] : 0.0);
                    a[1][0] = 0.0 + (ca[m] == 4 ? ga[m] : 0.0);
                    a[1][1] = 0.0 + (ca[m] == 5 ? ga[m] : 0.0) + (cb[m] == 3 ? gb[m] : 0.0);
                    a[1][2] = 0.0 + (cb[m] == 4 ? gb[m] : 0.0);
                    a[1][3] = 0.0 + (cb[m] == 5 ? gb[m] : 0.0) + (cn[m] == 3 ? gn[m] : 0.0);
                    for (int rr = 0; rr < 2; rr++) {
                        const int row = rr ? 2 * t : r1;
                        const bool go = rr ? t < t1 : t > t0 && r1 < H;
                        for (int cc = 0; go && cc < 4 && c0 + cc < W; cc++) {
                            double r = s.alpha * a[rr][cc];
                            if (s.beta != 0.0)
                                r += s.beta * DX_OLD;
                            dx[xb + (size_t)row * q.ds_h + c0 + cc] = bits_of(r, s.ty);
                        }
                    }
                }
                for (int m = 0; m < L; m++)
                    pa[m] = ca[m], pb[m] = cb[m], pn[m] = cn[m], pga[m] = ga[m], pgb[m] = gb[m],
                    pgn[m] = gn[m];
            }
        }
}

// Host emulation of v14_body (16-bit): lane m of a strip holds the words of x columns 8m ..
// 8m + 7 of a row (-inf outside the plane's rows and W, as v14_load), the byte permutes of
// pool_cw_codes for (A, B) and (C, D) with the shuffled column 8m - 1 and lo's column 8m + 3, the
// two lanes of each packed chain unpacked to emu_code (the chain itself is the library's), N
// from the next lane; the sums are emu_pc4's. Strips: cw_geom with rows (L lanes a strip).
static unsigned emu_perm(unsigned a, unsigned b, unsigned sel)
{
    const uint64_t v = (uint64_t)b << 32 | a;
    unsigned r = 0;
    for (int i = 0; i < 4; i++)
        r |= (unsigned)((v >> (8 * ((sel >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
}
static void emu_pair_codes(const unsigned *tp, unsigned tl, const unsigned *md, unsigned ml,
                           const unsigned *bt, unsigned bl, int prop, int *ca, int *cb)
{
    const unsigned c[9] = {emu_perm(tl, tp[0], 0x7632), emu_perm(tp[0], tp[1], 0x5410),
                           emu_perm(tp[0], tp[1], 0x7632), emu_perm(ml, md[0], 0x7632),
                           emu_perm(md[0], md[1], 0x5410), emu_perm(md[0], md[1], 0x7632),
                           emu_perm(bl, bt[0], 0x7632), emu_perm(bt[0], bt[1], 0x5410),
                           emu_perm(bt[0], bt[1], 0x7632)};
    float a[9], b[9];
    for (int k = 0; k < 9; k++)
        a[k] = h2f((uint16_t)(c[k] & 0xffff)), b[k] = h2f((uint16_t)(c[k] >> 16));
    *ca = emu_code(a, prop), *cb = emu_code(b, prop);
}
static void emu_v14(const Spec &s, const Geo &g, const pool_s2_t &q, int rows, int L,
                    const std::vector<uint32_t> &x, const std::vector<uint32_t> &dy,
                    std::vector<uint32_t> &dx)
{
    const int H = q.in_h, W = q.in_w;
    const unsigned NI = 0xfc00u | 0xfc000000u;
    int R, nt;
    cw_geom(q, rows, 32 / L, &R, &nt);
    dx.assign(g.nx, bits_of(DX_OLD, s.ty));
    for (int pl = 0; pl < q.planes; pl++)
        for (int strip = 0; strip < nt; strip++) {
            const size_t xb = (size_t)pl * q.xs_c, yb = (size_t)pl * q.gs_c;
            const int t0 = strip * R, t1 = std::min(t0 + R, (H + 1) / 2);
            auto half = [&](int r, int cc) -> unsigned {
                return r < 0 || r >= H || cc >= W ? 0xfc00u : x[xb + (size_t)r * q.xs_h + cc];
            };
            auto row = [&](int r, int m, unsigned *w) { // w[0..3]: lo.w[0..1], hi.w[0..1]
                for (int k = 0; k < 4; k++)
                    w[k] = half(r, 8 * m + 2 * k) | half(r, 8 * m + 2 * k + 1) << 16;
            };
            auto G = [&](int t, int j) -> double {
                return t < q.out_h && j < q.out_w ? val(dy, yb + (size_t)t * q.gs_h + j, s.ty) : 0.0;
            };
            int pc[32][5], cc[32][5]; // codes A, B, C, D, N of window rows t - 1, t
            double pg[32][5], cg[32][5];
            for (int m = 0; m < L; m++)
                for (int i = 0; i < 5; i++)
                    pc[m][i] = -1, pg[m][i] = 0;
            for (int t = t0; t <= t1; t++) {
                unsigned w[32][3][4];
                for (int m = 0; m < L; m++)
                    for (int r = 0; r < 3; r++)
                        row(2 * t - 1 + r, m, w[m][r]);
                for (int m = 0; m < L; m++) {
                    unsigned lft[3]; // column 8m - 1 (high half) from lane m - 1
                    for (int r = 0; r < 3; r++)
                        lft[r] = m == 0 ? NI : w[m - 1][r][3];
                    emu_pair_codes(&w[m][0][0], lft[0], &w[m][1][0], lft[1], &w[m][2][0], lft[2],
                                   q.propagate, &cc[m][0], &cc[m][1]);
                    emu_pair_codes(&w[m][0][2], w[m][0][1], &w[m][1][2], w[m][1][1], &w[m][2][2],
                                   w[m][2][1], q.propagate, &cc[m][2], &cc[m][3]);
                    for (int i = 0; i < 4; i++) {
                        const int j = 4 * m + i;
                        if (!(t < q.out_h && j < q.out_w))
                            cc[m][i] = -1;
                        cg[m][i] = G(t, j);
                    }
                }
                for (int m = 0; m < L; m++)
                    cc[m][4] = m < L - 1 ? cc[m + 1][0] : -1, cg[m][4] = m < L - 1 ? cg[m + 1][0] : 0;
                for (int m = 0; m < L; m++)
                    for (int h = 0; h < 2; h++) { // columns 8m + 4h .. + 3: windows (2h, 2h + 1, 2h + 2)
                        const int c0 = 8 * m + 4 * h, r1 = 2 * t - 1, a = 2 * h, b = a + 1, nn = a + 2;
                        const int *P = pc[m], *C = cc[m];
                        const double *PG = pg[m], *CG = cg[m];
                        auto T = [](int code, int k, double v) { return code == k ? v : 0.0; };
                        double o[2][4];
                        o[0][0] = 0.0 + T(P[a], 7, PG[a]) + T(C[a], 1, CG[a]);
                        o[0][1] = 0.0 + T(P[a], 8, PG[a]) + T(P[b], 6, PG[b]) + T(C[a], 2, CG[a]) +
                                  T(C[b], 0, CG[b]);
                        o[0][2] = 0.0 + T(P[b], 7, PG[b]) + T(C[b], 1, CG[b]);
                        o[0][3] = 0.0 + T(P[b], 8, PG[b]) + T(P[nn], 6, PG[nn]) + T(C[b], 2, CG[b]) +
                                  T(C[nn], 0, CG[nn]);
                        o[1][0] = 0.0 + T(C[a], 4, CG[a]);
                        o[1][1] = 0.0 + T(C[a], 5, CG[a]) + T(C[b], 3, CG[b]);
                        o[1][2] = 0.0 + T(C[b], 4, CG[b]);
                        o[1][3] = 0.0 + T(C[b], 5, CG[b]) + T(C[nn], 3, CG[nn]);
                        for (int rr = 0; rr < 2; rr++) {
                            const int r = rr ? 2 * t : r1;
                            const bool go = rr ? t < t1 : t > t0 && r1 < H;
                            for (int k = 0; go && k < 4 && c0 + k < W; k++) {
                                double v = s.alpha * o[rr][k];
                                if (s.beta != 0.0)
                                    v += s.beta * DX_OLD;
                                dx[xb + (size_t)r * q.ds_h + c0 + k] = bits_of(v, s.ty);
                            }
                        }
                    }
                memcpy(pc, cc, sizeof pc);
                memcpy(pg, cg, sizeof pg);
            }
        }
}

// Checks dx (device) against ref on the reference planes, and the row padding (never written);
// *ulps: the largest distance in units of the last place; returns the mismatch count beyond
// the tolerance (exact bits when the version sums in double, else 4 eps x the routed |terms|).
static long check(const Spec &s, const Geo &g, int step, const std::vector<uint32_t> &got,
                  const std::vector<uint32_t> &ref, const std::vector<double> &mag, bool exact,
                  int64_t *ulps)
{
    long bad = 0;
    *ulps = 0;
    const double eps = s.ty == F32 ? ldexp(1.0, -23) : ldexp(1.0, -10);
    const double tiny = s.ty == F32 ? ldexp(1.0, -149) : ldexp(1.0, -24);
    const int planes = s.n * s.c;
    for (int p = 0; p < planes; p += step)
        for (int h = 0; h < s.h; h++)
            for (int w = 0; w < g.pitch; w++) {
                const size_t k = ((size_t)p * s.h + h) * g.pitch + w;
                const uint32_t a = got[k], b = ref[k];
                if (a == b || (is_nan(a, s.ty) && is_nan(b, s.ty)))
                    continue;
                int64_t u = is_nan(a, s.ty) || is_nan(b, s.ty) ? INT64_MAX
                                                               : llabs(ord(a, s.ty) - ord(b, s.ty));
                *ulps = std::max(*ulps, u);
                const bool tol = !exact && w < s.w && u != INT64_MAX &&
                                 fabs(val(got, k, s.ty) - val(ref, k, s.ty)) <=
                                     4 * eps * mag[k] + tiny;
                if (!tol && bad++ == 0)
                    printf("  first mismatch plane %d h %d w %d: got 0x%x want 0x%x\n", p, h, w, a,
                           b);
            }
    return bad;
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

// Buffer sets: x | dy | dx in one cudaMalloc (256-byte aligned), each part on a 256-byte
// boundary. pool_rows4_ok (the library's gate of v0) wants x and dx aligned to 4 elements. The
// first H200 run (2026-12-03) packed dx right after dy: dy of n1c3h30w29 has 675 elements, so
// FLOAT dx began at byte 14220 (4 mod 8) and v0's 8-byte store faulted ("misaligned address").
// packed: that old layout (the host address walk shows what it broke).
struct Lay {
    size_t xoff, dyoff, dxoff, setb;
};
static size_t up256(size_t b)
{
    return (b + 255) / 256 * 256;
}
static Lay lay_of(const Geo &g, int es, bool packed)
{
    Lay l;
    l.xoff = 0;
    l.dyoff = packed ? g.nx * es : up256(g.nx * es);
    l.dxoff = packed ? l.dyoff + g.ny * es : up256(l.dyoff + g.ny * es);
    l.setb = packed ? l.dxoff + g.nx * es : up256(l.dxoff + g.nx * es);
    return l;
}

struct HWalk { // pool_smb_walk on the host
    int a, b, qs, rs, d;
    HWalk(int e0, int step, int d_) : d(d_)
    {
        a = e0 / d, b = e0 - a * d, qs = step / d, rs = step - qs * d;
    }
    void next()
    {
        a += qs, b += rs;
        if (b >= d)
            b -= d, a++;
    }
};

// Host walk of every global and shared-memory access of v0 (its loops, pool_smb_walk and the
// geometry of smb_geom exactly, thread by thread), of pc_body (v1..v7) and pc4_body (v8..v11)
// for the buffer layout L: each access aligned to its size (the vector loads / stores: 2 or 4
// elements), inside its buffer and, for x / dx, inside the row's W columns; shared memory
// inside v0's pool_smb_bytes. Timed problems: planes 0, 1 and the last. Returns the violations,
// *first: the first one; *rows4: x and dx pointers as pool_rows4_ok wants (4 elements).
static long addr_check(const Spec &s, const Geo &g, const pool_s2_t &q, const Lay &L, char *first,
                       size_t fl, bool *rows4)
{
    const int es = s.ty == F32 ? 4 : 2, H = q.in_h, W = q.in_w, OH = q.out_h, OW = q.out_w;
    const int nth = POOL_SMB_THREADS;
    const long long nx = (long long)g.nx, ny = (long long)g.ny;
    long bad = 0;
    auto fail = [&](const char *what, long long at, int al) {
        if (bad++ == 0)
            snprintf(first, fl, "%s at byte %lld (%d-byte access)", what, at, al);
    };
    auto glob = [&](const char *what, size_t base, long long e, int cnt, long long lim, int col,
                    int wlim) {
        const long long at = (long long)base + e * es;
        if (at % (cnt * es) != 0 || e < 0 || e + cnt > lim || col < 0 || col + cnt > wlim)
            fail(what, at, cnt * es);
    };
    *rows4 = L.xoff % (4 * es) == 0 && L.dxoff % (4 * es) == 0;
    std::vector<int> pls;
    for (int pl = 0; pl < q.planes; pl++)
        if (!s.timed || pl < 2 || pl == q.planes - 1)
            pls.push_back(pl);
    { // v0
        const pool_smb_t m = smb_geom(q);
        const int XW = m.xw, OW1 = m.ow1, xcells = pool_smb_xcells(m), wcells = pool_smb_wcells(m);
        const int nv = (W + 3) / 4, XR = 2 * m.R + 3, pc0 = 4 + 4 * nv, npc = 1 + XW - pc0;
        const int sp = (W + 1) / 2;
        if (pool_smb_bytes(m) > 48 * 1024)
            fail("v0 shared bytes", (long long)pool_smb_bytes(m), 0);
        auto shx = [&](const char *what, long long cell, int cnt) {
            if (cell < 0 || cell + cnt > xcells || cell % cnt != 0)
                fail(what, cell * 4, cnt * 4);
        };
        for (int pl : pls)
            for (int tile = 0; tile < m.nt; tile++) {
                const int n = pl / q.c, c = pl - n * q.c;
                const long long xc = (long long)n * q.xs_n + (long long)c * q.xs_c;
                const long long dyc = (long long)n * q.gs_n + (long long)c * q.gs_c;
                const long long dxc = (long long)n * q.ds_n + (long long)c * q.ds_c;
                const int t0 = tile * m.R, xr0 = 2 * t0 - 1;
                for (int tid = 0; tid < nth; tid++) {
                    HWalk w(tid, nth, OW1);
                    for (int u = 0; u < POOL_SMB_UNR; u++, w.next())
                        if (w.a <= m.R && t0 + w.a < OH && w.b < OW)
                            glob("v0 dy load", L.dyoff,
                                 dyc + (long long)(t0 + w.a) * q.gs_h + (long long)w.b * q.gs_w, 1,
                                 ny, 0, 1);
                    HWalk v(tid, nth, nv);
                    for (int e0 = 0; e0 < XR * nv; e0 += POOL_SMB_UNR * nth)
                        for (int u = 0; u < POOL_SMB_UNR; u++, v.next()) {
                            const int lr = v.a, c0 = 4 * v.b, row = xr0 + lr;
                            if (lr < XR)
                                shx("v0 shared x store", (long long)lr * XW + 4 + c0, 4);
                            if (lr >= XR || row < 0 || row >= H)
                                continue;
                            const long long e = xc + (long long)row * q.xs_h + c0;
                            if (c0 + 3 < W)
                                glob("v0 x load", L.xoff, e, 4, nx, c0, W);
                            else
                                for (int k = 0; k < 3 && c0 + k < W; k++)
                                    glob("v0 x load", L.xoff, e + k, 1, nx, c0 + k, W);
                        }
                    HWalk w2(tid + POOL_SMB_UNR * nth, nth, OW1);
                    for (int e = tid + POOL_SMB_UNR * nth; e < wcells; e += nth, w2.next())
                        if (t0 + w2.a < OH && w2.b < OW)
                            glob("v0 dy load", L.dyoff,
                                 dyc + (long long)(t0 + w2.a) * q.gs_h + (long long)w2.b * q.gs_w,
                                 1, ny, 0, 1);
                    HWalk w3(tid, nth, npc);
                    for (int e = tid; e < XR * npc; e += nth, w3.next())
                        shx("v0 shared pad cell",
                            (long long)w3.a * XW + (w3.b == 0 ? 3 : pc0 + w3.b - 1), 1);
                }
                for (int e = 0; e < wcells; e++) { // phase 1
                    const int li = e / OW1, j = e - li * OW1;
                    if (t0 + li < OH && j < OW)
                        for (int k = 0; k < 9; k++)
                            shx("v0 shared window read",
                                2LL * li * XW + 3 + 2 * j + (k / 3) * XW + k % 3, 1);
                }
                const int pairs = std::min(m.R, (H + 1) / 2 - t0);
                for (int e = 0; e < pairs * sp; e++) { // phase 2
                    const int lt = e / sp, sc = e - lt * sp, k00 = lt * OW1 + sc;
                    if (k00 + OW1 + 1 >= wcells)
                        fail("v0 shared code / dy read", k00 + OW1 + 1, 1);
                    const int row = 2 * (t0 + lt), col = 2 * sc, cnt = col + 1 < W ? 2 : 1;
                    glob("v0 dx store", L.dxoff, dxc + (long long)row * q.ds_h + col, cnt, nx, col,
                         W);
                    if (row + 1 < H)
                        glob("v0 dx store", L.dxoff, dxc + (long long)(row + 1) * q.ds_h + col, cnt,
                             nx, col, W);
                }
            }
    }
    for (int pl : pls) { // v1..v11 (when they do not fall back to v0)
        const int n = pl / q.c, c = pl - n * q.c;
        const long long xc = (long long)n * q.xs_n + (long long)c * q.xs_c;
        const long long dyc = (long long)n * q.gs_n + (long long)c * q.gs_c;
        const long long dxc = (long long)n * q.ds_n + (long long)c * q.ds_c;
        for (int t = 0; t < OH; t++)
            for (int j = 0; j < OW; j++)
                glob("v1/v8 dy load", L.dyoff, dyc + (long long)t * q.gs_h + (long long)j * q.gs_w,
                     1, ny, 0, 1);
        for (int r = 0; r < H; r++) {
            const long long xe = xc + (long long)r * q.xs_h, de = dxc + (long long)r * q.ds_h;
            if ((W + 1) / 2 <= 32) // pc_body: lane s, columns 2s, 2s + 1
                for (int c0 = 0; c0 < W; c0 += 2) {
                    const int cnt = c0 + 1 < W ? 2 : 1;
                    glob("v1 x load", L.xoff, xe + c0, cnt, nx, c0, W);
                    glob("v1 dx store", L.dxoff, de + c0, cnt, nx, c0, W);
                }
            if (W <= 128) // pc4_body (W <= 64), pool_cw_body: lane m, columns 4m .. 4m + 3
                for (int c0 = 0; c0 < W; c0 += 4) {
                    const int cnt = W - c0;
                    if (cnt >= 4) {
                        glob("v8/v12 x load", L.xoff, xe + c0, 4, nx, c0, W);
                        glob("v8/v12 dx store", L.dxoff, de + c0, 4, nx, c0, W);
                        continue;
                    }
                    if (s.ty == F32 || cnt == 1) {
                        glob("v8/v12 x load", L.xoff, xe + c0, 1, nx, c0, W);
                        for (int k = 1; s.ty == F32 && k < cnt; k++)
                            glob("v8/v12 x load", L.xoff, xe + c0 + k, 1, nx, c0 + k, W);
                    } else {
                        glob("v8/v12 x load", L.xoff, xe + c0, 2, nx, c0, W);
                        if (cnt > 2)
                            glob("v8/v12 x load", L.xoff, xe + c0 + 2, 1, nx, c0 + 2, W);
                    }
                    for (int k = 0; k < cnt; k++)
                        glob("v8/v12 dx store", L.dxoff, de + c0 + k, 1, nx, c0 + k, W);
                }
        }
    }
    // v14 (16-bit, its gate: x / dx 16-byte aligned, strides of 8): lane m, columns 8m .. 8m + 7
    const bool g14 = s.ty != F32 && W <= 256 && q.xs_h % 8 == 0 && q.xs_c % 8 == 0 &&
                     q.xs_n % 8 == 0 && L.xoff % 16 == 0 && L.dxoff % 16 == 0;
    for (int pl : pls) {
        if (!g14)
            break;
        const int n = pl / q.c, c = pl - n * q.c;
        const long long xc = (long long)n * q.xs_n + (long long)c * q.xs_c;
        const long long dxc = (long long)n * q.ds_n + (long long)c * q.ds_c;
        for (int r = 0; r < H; r++) {
            const long long xe = xc + (long long)r * q.xs_h, de = dxc + (long long)r * q.ds_h;
            for (int c0 = 0; c0 < W; c0 += 8) {
                const int cnt = W - c0;
                if (cnt >= 8) {
                    glob("v14 x load", L.xoff, xe + c0, 8, nx, c0, W);
                    glob("v14 dx store", L.dxoff, de + c0, 8, nx, c0, W);
                    continue;
                }
                for (int h = 0; h < 2 && cnt - 4 * h > 0; h++) { // pool_cw_load / _store
                    const int cc = c0 + 4 * h, cn = cnt - 4 * h;
                    if (cn >= 4) {
                        glob("v14 x load", L.xoff, xe + cc, 4, nx, cc, W);
                        glob("v14 dx store", L.dxoff, de + cc, 4, nx, cc, W);
                        continue;
                    }
                    if (cn == 1)
                        glob("v14 x load", L.xoff, xe + cc, 1, nx, cc, W);
                    else
                        glob("v14 x load", L.xoff, xe + cc, 2, nx, cc, W);
                    if (cn > 2)
                        glob("v14 x load", L.xoff, xe + cc + 2, 1, nx, cc + 2, W);
                    for (int k = 0; k < cn; k++)
                        glob("v14 dx store", L.dxoff, de + cc + k, 1, nx, cc + k, W);
                }
            }
        }
    }
    return bad;
}

// The problems, in run order: the two timed ones first, then the small shapes (FLOAT, HALF).
static std::vector<Spec> all_specs()
{
    std::vector<Spec> v;
    v.push_back({F16, 32, 256, 56, 56, FILL_REAL, 0, 1, 0, true});
    v.push_back({F32, 32, 128, 56, 56, FILL_REAL, 0, 1, 0, true});
    v.push_back({F16, 32, 64, 112, 112, FILL_REAL, 0, 1, 0, true}); // ResNet-50's stem pool
    v.push_back({F32, 32, 64, 112, 112, FILL_REAL, 0, 1, 0, true});
    for (int ty = 0; ty < 2; ty++) {
        v.push_back({ty, 2, 3, 7, 9, FILL_REAL, 0, 1, 0, false});
        v.push_back({ty, 1, 4, 57, 57, FILL_REAL, 0, 1, 0, false});
        v.push_back({ty, 2, 2, 1, 1, FILL_REAL, 0, 1, 0, false});
        v.push_back({ty, 2, 2, 2, 3, FILL_TIES, 0, 1, 0, false});
        v.push_back({ty, 1, 3, 56, 56, FILL_TIES, 0, 1, 0, false});
        v.push_back({ty, 1, 2, 8, 10, FILL_EQUAL, 0, 1, 0, false});
        v.push_back({ty, 1, 3, 13, 64, FILL_TIES, 0, 1, 0, false});
        v.push_back({ty, 1, 2, 9, 63, FILL_REAL, 0, 1, 0, false});
        v.push_back({ty, 1, 2, 9, 65, FILL_REAL, 0, 1, 0, false}); // v1..: v0 fallback
        v.push_back({ty, 1, 3, 11, 15, FILL_SPECIAL, 0, 1, 0, false});
        v.push_back({ty, 1, 3, 11, 15, FILL_SPECIAL, 1, 1, 0, false});
        v.push_back({ty, 1, 3, 30, 29, FILL_SPECIAL, 1, 1, 0, false});
        v.push_back({ty, 1, 2, 10, 12, FILL_NINF, 1, 1, 0, false});
        v.push_back({ty, 1, 3, 9, 7, FILL_REAL, 0, 2, 0.5, false});
        v.push_back({ty, 2, 5, 29, 31, FILL_TIES, 1, -1, 0.25, false});
        // W 65 .. 128: v12.. with 32 lanes a strip (v1..v11 take v0)
        v.push_back({ty, 1, 3, 9, 112, FILL_REAL, 0, 1, 0, false});
        v.push_back({ty, 2, 2, 5, 125, FILL_TIES, 0, 1, 0, false});
        v.push_back({ty, 1, 2, 7, 128, FILL_TIES, 1, 1, 0, false});
        v.push_back({ty, 1, 3, 11, 97, FILL_SPECIAL, 1, 1, 0, false});
        v.push_back({ty, 1, 3, 11, 103, FILL_SPECIAL, 0, 1, 0, false});
        v.push_back({ty, 1, 2, 9, 101, FILL_REAL, 0, 2, 0.5, false});
        v.push_back({ty, 2, 3, 61, 113, FILL_TIES, 1, -1, 0.25, false});
        v.push_back({ty, 1, 2, 6, 129, FILL_REAL, 0, 1, 0, false}); // every version: v0
        v.push_back({ty, 1, 2, 7, 200, FILL_TIES, 1, 1, 0, false}); // v14 / v17 (f16): 32 lanes
    }
    return v;
}

// Host-only checks (any machine): the emulation of v1's and v8's lanes against the reference
// bits on the small shapes, and the address walk of every problem. Returns the failures.
static int host_checks(const std::vector<Spec> &specs)
{
    int fails = 0;
    { // v1's and v8's lanes (strips of 14, whole planes, 7)
        int ebad = 0, en = 0;
        for (const Spec &s : specs) {
            const Geo g = geo_of(s);
            const pool_s2_t q = prob_of(s, g);
            if (s.timed || s.w > 128)
                continue;
            std::vector<uint32_t> x, dy, ref, dx;
            std::vector<double> mag;
            make_data(s, g, x, dy);
            reference(s, g, x, dy, 1, ref, mag);
            const int rows[3] = {14, 0, 7}, cwrows[4] = {14, 28, 7, 2};
            const int L = s.w > 64 ? 32 : 16;
            for (int r = 0; r < 10; r++) {
                if (r < 6 && s.w > 64)
                    continue; // v1 / v8 take v0 there
                en++;
                if (r < 3)
                    emu_pc(s, g, q, rows[r], x, dy, dx);
                else if (r < 6)
                    emu_pc4(s, g, q, rows[r - 3], x, dy, dx);
                else
                    emu_pc4(s, g, q, cwrows[r - 6], x, dy, dx, L, true);
                int64_t u;
                if (check(s, g, 1, dx, ref, mag, true, &u)) {
                    printf("emu %s (rows %d) %s n%dc%dh%dw%d fill %d prop %d FAIL\n",
                           r < 3 ? "v1" : r < 6 ? "v8" : "v12", r < 6 ? rows[r % 3] : cwrows[r - 6],
                           ty_name(s.ty), s.n, s.c, s.h, s.w, s.fill, s.prop);
                    ebad++;
                }
            }
        }
        printf("host emulation of v1, v8 and v12 (16 / 32 lanes, the library's strips): %d of %d "
               "runs match the reference bits %s\n", en - ebad, en, ebad ? "FAIL" : "ok");
        fails += ebad;
        ebad = 0, en = 0;
        for (const Spec &s : specs) { // v14: 16-bit, W <= 256 (8 / 16 / 32 lanes as launch_v14)
            if (s.timed || s.ty == F32 || s.w > 256)
                continue;
            const Geo g = geo_of(s);
            const pool_s2_t q = prob_of(s, g);
            std::vector<uint32_t> x, dy, ref, dx;
            std::vector<double> mag;
            make_data(s, g, x, dy);
            reference(s, g, x, dy, 1, ref, mag);
            const int L = s.w <= 64 ? 8 : s.w <= 128 ? 16 : 32, rows[3] = {28, 7, 2};
            for (int r = 0; r < 3; r++, en++) {
                emu_v14(s, g, q, rows[r], L, x, dy, dx);
                int64_t u;
                if (check(s, g, 1, dx, ref, mag, true, &u)) {
                    printf("emu v14 (rows %d) %s n%dc%dh%dw%d fill %d prop %d FAIL\n", rows[r],
                           ty_name(s.ty), s.n, s.c, s.h, s.w, s.fill, s.prop);
                    ebad++;
                }
            }
        }
        printf("host emulation of v14 (byte permutes, 8 / 16 / 32 lanes): %d of %d runs match the "
               "reference bits %s\n", en - ebad, en, ebad ? "FAIL" : "ok");
        fails += ebad;
    }
    { // addresses: the layout used (must pass), and the first run's packed one (what it broke)
        int abad = 0, old = 0, oldr4 = 0;
        char oldl[512] = "";
        for (const Spec &s : specs) {
            const Geo g = geo_of(s);
            const pool_s2_t q = prob_of(s, g);
            const int es = s.ty == F32 ? 4 : 2;
            char first[160], pn[96];
            bool r4;
            pname_of(s, pn, sizeof pn);
            if (addr_check(s, g, q, lay_of(g, es, false), first, sizeof first, &r4) || !r4) {
                printf("address walk %s %s: %s FAIL\n", ty_name(s.ty), pn,
                       r4 ? first : "x / dx pointer off pool_rows4_ok");
                abad++;
            }
            const long nb = addr_check(s, g, q, lay_of(g, es, true), first, sizeof first, &r4);
            oldr4 += !r4;
            if (nb && old++ < 3) {
                const size_t k = strlen(oldl);
                snprintf(oldl + k, sizeof oldl - k, "%s%s %s: %s", old > 1 ? "; " : "",
                         ty_name(s.ty), pn, first);
            }
        }
        printf("host address walk of v0, v1, v8 / v12, v14 (alignment, bounds): %d of %d problems %s\n",
               (int)specs.size() - abad, (int)specs.size(), abad ? "FAIL" : "ok");
        printf("  the first run's packed sets: dx off pool_rows4_ok in %d problems, faulting "
               "accesses in %d%s%s\n", oldr4, old, old ? ": " : "", oldl);
        fails += abad;
    }
    fflush(stdout);
    return fails;
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
    CK(cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, 0)); // for cw_geom
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
        k.q = prob_of(s, g), k.ty = s.ty;
        char pname[96];
        pname_of(s, pname, sizeof pname);
        // host data: x row padding holds the largest finite value (a read past W shows)
        std::vector<uint32_t> x, dy;
        make_data(s, g, x, dy);
        std::vector<uint32_t> ref;
        std::vector<double> mag;
        reference(s, g, x, dy, step, ref, mag);
        // device: sets of x | dy | dx (lay_of: each part 256-byte aligned; the copy baseline
        // copies the first half of a set onto its second half); enough sets that the footprint
        // is > 150 MB
        const Lay L = lay_of(g, es, false);
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
        const double bytes = (double)(2 * (size_t)s.n * s.c * s.h * s.w + g.ny) * es;
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
            const bool exact = v.id != 2 && v.id != 5;
            const long bad = check(s, g, step, got, ref, mag, exact, &ulps);
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
                    printf("#S %d %d %d %lld %d\n", s.ty, vi, bad != 0, (long long)ulps, (int)bitid);
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
