// SPDX-License-Identifier: MIT
// dev/lrn_nchw: sandbox for cross-channel LRN forward and backward on 16-bit NCHW tensors
// (cudnnLRNCrossChannelForward / Backward, CROSS_CHANNEL_DIM1, size 5, alpha 1 beta 0 blend,
// HALF and BFLOAT16). One file: a CPU reference in double rounded once to the type (src/ref/
// lrn_ref.c's formulas; the backward's y is the ref forward of x rounded to the type, as the
// tests' lrn_fill_y), v0 = the library's lrn_{fwd,bwd}_lean16 (src/cuda/lrn_lean.cuh, with
// lrn.cu's lrn16_chunk rule), variants v1.. (one template per direction), a checker (max ulps
// against the ref, bit identity against v0, the tests' gm_tol) and a CUDA-graph timer over
// rotated buffer sets. Usage: lrn_nchw [--only vN]. Prints
// `vN dtype dir problem us GB/s maxulp=.. bitid=yes|no ok|FAIL` (GB/s: forward x + y bytes,
// backward x + dy + dx bytes, as tools/dnnbench/op_lrn.c counts them). Exit 77 without a GPU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

// ================================ v0: the library kernels =====================================
// src/cuda/lrn_lean.cuh from `#define LRN16_V` to its end, verbatim but for the names
// (lrn16_ -> v0_, LRN16_ -> V0_, lrn16_t -> v0_plan_t, lrn_{fwd,bwd}_lean16 -> v0_{fwd,bwd},
// lrn_push -> v0_push_ring, FD_CUDA_BLOCK -> 256); lrn_push from src/cuda/lrn.cu.
template <int N, typename T>
static __device__ __forceinline__ void v0_push_ring(T (&w)[N], T v)
{
#pragma unroll
    for (int k = 0; k + 1 < N; k++)
        w[k] = w[k + 1];
    w[N - 1] = v;
}

#define V0_V 4 /* pixels a thread: 8 bytes of 16-bit storage */

/* 4 16-bit values (the low half first) as floats, exactly */
template <bool BF>
static __device__ __forceinline__ void v0_unpack(uint2 u, float (&v)[V0_V])
{
    const unsigned w[2] = {u.x, u.y};
#pragma unroll
    for (int h = 0; h < 2; h++) {
        if (BF) {
            v[2 * h] = __uint_as_float(w[h] << 16);
            v[2 * h + 1] = __uint_as_float(w[h] & 0xffff0000u);
        } else {
            v[2 * h] = __half2float(__ushort_as_half((unsigned short)(w[h] & 0xffffu)));
            v[2 * h + 1] = __half2float(__ushort_as_half((unsigned short)(w[h] >> 16)));
        }
    }
}
/* a 16-bit value as float, exactly (lane l of a packed vector) */
template <bool BF>
static __device__ __forceinline__ float v0_lane(uint2 u, int l)
{
    const unsigned w = l < 2 ? u.x : u.y, s = (l & 1) ? w >> 16 : w & 0xffffu;
    return BF ? __uint_as_float(s << 16) : __half2float(__ushort_as_half((unsigned short)s));
}
/* v rounded to nearest even in the storage type and back: the stored y's value */
template <bool BF>
static __device__ __forceinline__ float v0_round(float v)
{
    return BF ? __bfloat162float(__float2bfloat16_rn(v)) : __half2float(__float2half_rn(v));
}
/* v[0 .. 3] each rounded once to the storage type (lrn_st_acc's bits), packed */
template <bool BF>
static __device__ __forceinline__ uint2 v0_pack(const float (&v)[V0_V])
{
    unsigned w[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        if (BF) {
            const __nv_bfloat162 b = __floats2bfloat162_rn(v[2 * h], v[2 * h + 1]);
            w[h] = *reinterpret_cast<const unsigned *>(&b);
        } else {
            const __half2 b = __floats2half2_rn(v[2 * h], v[2 * h + 1]);
            w[h] = *reinterpret_cast<const unsigned *>(&b);
        }
    }
    return make_uint2(w[0], w[1]);
}
static __device__ __forceinline__ uint2 v0_ld(const unsigned short *p)
{
    return *reinterpret_cast<const uint2 *>(p);
}
/* w[0 .. W - 2] <- w[1 .. W - 1], w[W - 1] <- the 4 values of u: the window moved a channel */
template <int W, bool BF>
static __device__ __forceinline__ void v0_push(float (&w)[W][V0_V], uint2 u)
{
#pragma unroll
    for (int k = 0; k + 1 < W; k++)
#pragma unroll
        for (int l = 0; l < V0_V; l++)
            w[k][l] = w[k + 1][l];
    v0_unpack<BF>(u, w[W - 1]);
}
/* lane l's sum of the window's squares from +0 in the window's order (the stamped kernels') */
template <int W>
static __device__ __forceinline__ float v0_sumsq(const float (&w)[W][V0_V], int l)
{
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < W; k++)
        sum += w[k][l] * w[k][l];
    return sum;
}

/* The lean 16-bit kernels' plan (lrn.cu's v0_ok): cols columns of 4 pixels, pv of them an
 * image plane; per tensor (x, y or x, dy, dx) its N and C strides; chunks of cc channels; the
 * stamped kernels' constants (the scale in double as there). */
typedef struct {
    int64_t cols, pv, ns[3];
    int C, cc, cs[3];
    double an, k;
    float nbeta, coef;
} v0_plan_t;

/* Column e's channel-0 element offset in tensor t */
static __device__ __forceinline__ int64_t v0_base(const v0_plan_t &g, int t, int64_t e)
{
    const int64_t n = e / g.pv;
    return n * g.ns[t] + (e - n * g.pv) * V0_V;
}

/* the stamped kernels' scale: (float)(k + alpha_n * (double)sum), the same expression */
static __device__ __forceinline__ float v0_scale(const v0_plan_t &g, float sum)
{
    return (float)(g.k + g.an * (double)sum);
}

/* lrn16's blocks an SM (launch bounds) and channels of loads ahead (window 5: 2, else 4; 4
 * spilled at 40 registers forward, 80 backward). ptxas (CUDA 13, sm_90 / sm_80), 0 spills:
 * v0_fwd 38-40 registers (6 blocks of 256 an SM: 75% occupancy; the window of 4
 * pixels' floats is 4 n registers), v0_bwd 74-80 (3 blocks, 37.5%: the x and t windows
 * and the delayed s^-beta, 4 (2 n + (n + 1) / 2) registers, as lrn_bwd_lean's 3 blocks). */
#define V0_FWD_MINB 6
#define V0_FWD_U(W) ((W) >= 5 ? 2 : 4)
#define V0_BWD_MINB 3
#define V0_BWD_U(W) ((W) >= 5 ? 2 : 4)

/* Forward: lrn_fwd_lean's walk over channels [cs, ce) with 4 pixels a thread; x read from
 * cs - LB (the halo) to ce + LA. */
template <int W, bool BF>
static __global__ void __launch_bounds__(256, V0_FWD_MINB)
    v0_fwd(const v0_plan_t g, const unsigned short *__restrict__ x,
                   unsigned short *__restrict__ y)
{
    constexpr int LB = (W - 1) / 2, LA = W - 1 - LB, U = V0_FWD_U(W);
    const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= g.cols)
        return;
    const int xsc = g.cs[0], ysc = g.cs[1];
    const int cs = (int)blockIdx.y * g.cc, ce = min(g.C, cs + g.cc), jend = min(g.C, ce + LA);
    const unsigned short *xc = x + v0_base(g, 0, e);
    float win[W][V0_V]; /* x[c - LB + k] for the channel c about to be written */
#pragma unroll
    for (int k = 0; k < W; k++) {
        const int j = cs + k - LB;
        const uint2 u = j >= 0 && j < g.C ? v0_ld(xc + (int64_t)j * xsc) : make_uint2(0, 0);
        v0_unpack<BF>(u, win[k]);
    }
    uint2 ahead[U]; /* ahead[u] = x[c + LA + 1] for c = c0 + u */
#pragma unroll
    for (int u = 0; u < U; u++) {
        const int j = cs + u + LA + 1;
        ahead[u] = j < jend ? v0_ld(xc + (int64_t)j * xsc) : make_uint2(0, 0);
    }
    int jn = cs + U + LA + 1; /* the next load: x[jn] at pn */
    const unsigned short *pn = xc + (int64_t)jn * xsc;
    unsigned short *py = y + v0_base(g, 1, e) + (int64_t)cs * ysc;
    for (int c0 = cs; c0 < ce; c0 += U) {
#pragma unroll
        for (int u = 0; u < U; u++) {
            if (c0 + u < ce) {
                float v[V0_V];
#pragma unroll
                for (int l = 0; l < V0_V; l++) {
                    const float sc = v0_scale(g, v0_sumsq(win, l));
                    v[l] = win[LB][l] * __powf(sc, g.nbeta);
                }
                *reinterpret_cast<uint2 *>(py) = v0_pack<BF>(v);
                py += ysc;
            }
            v0_push<W, BF>(win, ahead[u]);
            ahead[u] = jn < jend ? v0_ld(pn) : make_uint2(0, 0);
            jn++;
            pn += xsc;
        }
    }
}

/* Backward: lrn_bwd_lean's walk (step i appends x[i + W - 1] and dy[i + LB]; xw, the window
 * of s[i + LB], gives s[i + LB]^-beta, y[i + LB] = round16(x s^-beta) and t[i + LB] =
 * dy y / s; tw = t[i - LA .. i + LB] is dx[i]'s window; dy[i] and s[i]^-beta wait LB steps in
 * gr / pr) over the steps from i_s (-LB, or cs - (W - 1) for a later chunk: the t of dx[cs]'s
 * window) to ce, with 4 pixels a thread and a ring of UB steps of x and dy. */
template <int W, bool BF>
static __global__ void __launch_bounds__(256, V0_BWD_MINB)
    v0_bwd(const v0_plan_t g, const unsigned short *__restrict__ x,
                   const unsigned short *__restrict__ dy, unsigned short *__restrict__ dx)
{
    constexpr int LB = (W - 1) / 2, UB = V0_BWD_U(W);
    const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= g.cols)
        return;
    const int C = g.C, xsc = g.cs[0], gsc = g.cs[1], dsc = g.cs[2];
    const int cs = (int)blockIdx.y * g.cc, ce = min(C, cs + g.cc);
    const int xend = min(C, ce + W - 1), gend = min(C, ce + LB); /* x and dy read below */
    const int i_s = cs > 0 ? cs - (W - 1) : -LB;
    const unsigned short *xc = x + v0_base(g, 0, e), *gc = dy + v0_base(g, 1, e);
    /* the state before step i_s: xw[k] = x[i_s - 1 + k], nothing computed yet */
    float xw[W][V0_V], tw[W][V0_V], pr[LB + 1][V0_V];
    uint2 gr[LB + 1];
#pragma unroll
    for (int k = 0; k < W; k++) {
        const int j = i_s - 1 + k;
        const uint2 u = j >= 0 && j < C ? v0_ld(xc + (int64_t)j * xsc) : make_uint2(0, 0);
        v0_unpack<BF>(u, xw[k]);
#pragma unroll
        for (int l = 0; l < V0_V; l++)
            tw[k][l] = 0.0f;
    }
#pragma unroll
    for (int k = 0; k <= LB; k++) {
        gr[k] = make_uint2(0, 0);
#pragma unroll
        for (int l = 0; l < V0_V; l++)
            pr[k][l] = 0.0f;
    }
    /* slot u: step i's x[i + W - 1] and dy[i + LB] (i = i_s + u) */
    uint2 ax[UB], ag[UB];
#pragma unroll
    for (int u = 0; u < UB; u++) {
        const int jx = i_s + u + W - 1, jg = i_s + u + LB;
        ax[u] = jx >= 0 && jx < xend ? v0_ld(xc + (int64_t)jx * xsc) : make_uint2(0, 0);
        ag[u] = jg >= 0 && jg < gend ? v0_ld(gc + (int64_t)jg * gsc) : make_uint2(0, 0);
    }
    int jx = i_s + UB + W - 1, jg = i_s + UB + LB; /* the next loads: x[jx] at px, dy[jg] at pg */
    const unsigned short *px = xc + (int64_t)jx * xsc, *pg = gc + (int64_t)jg * gsc;
    unsigned short *pd = dx + v0_base(g, 2, e) + (int64_t)cs * dsc; /* dx[i], next i >= cs */
    for (int i0 = i_s; i0 < ce; i0 += UB) {
#pragma unroll
        for (int u = 0; u < UB; u++) {
            const int i = i0 + u;
            v0_push<W, BF>(xw, ax[u]);
            const bool live = i + LB >= 0 && i + LB < C;
            float t[V0_V], pw[V0_V];
#pragma unroll
            for (int l = 0; l < V0_V; l++) {
                t[l] = 0.0f, pw[l] = 0.0f;
                if (live) {
                    const float sc = v0_scale(g, v0_sumsq(xw, l));
                    pw[l] = __powf(sc, g.nbeta);
                    const float yv = v0_round<BF>(xw[LB][l] * pw[l]);
                    t[l] = __fdividef(v0_lane<BF>(ag[u], l) * yv, sc);
                }
            }
#pragma unroll
            for (int l = 0; l < V0_V; l++) {
#pragma unroll
                for (int k = 0; k + 1 < W; k++)
                    tw[k][l] = tw[k + 1][l];
                tw[W - 1][l] = t[l];
#pragma unroll
                for (int k = 0; k < LB; k++)
                    pr[k][l] = pr[k + 1][l];
                pr[LB][l] = pw[l];
            }
            v0_push_ring(gr, ag[u]);
            ax[u] = jx < xend ? v0_ld(px) : make_uint2(0, 0);
            ag[u] = jg < gend ? v0_ld(pg) : make_uint2(0, 0);
            jx++, px += xsc;
            jg++, pg += gsc;
            if (i >= cs && i < ce) {
                float v[V0_V];
#pragma unroll
                for (int l = 0; l < V0_V; l++) {
                    float acc = 0.0f;
#pragma unroll
                    for (int k = 0; k < W; k++)
                        acc += tw[k][l];
                    v[l] = v0_lane<BF>(gr[0], l) * pr[0][l] - g.coef * xw[0][l] * acc;
                }
                *reinterpret_cast<uint2 *>(pd) = v0_pack<BF>(v);
                pd += dsc;
            }
        }
    }
}

// ================================ the variants ================================================
// One forward and one backward template, v0's walk (the same steps, the same per-element
// expressions in the same order) with:
// - PV pixels a thread: 4 (8-byte accesses, v0's), 2 (4-byte: twice the threads, half the
//   registers of the windows) or 1 (2-byte: any H W, the odd-plane fallback);
// - U channels of loads ahead and MINB blocks an SM (launch bounds: the register cap);
// - MODE, the arithmetic:
//   0: v0's: s = (float)(k + an (double)sum), __powf(s, -beta), __fdividef;
//   1: v0's bits with the float <-> double conversions done by integer operations (F2F.F64 runs
//      at 16 a clock an SM on sm_90, as MUFU: two of them plus __powf's two MUFU an element
//      fill that pipe at ~25 us for the benchmark's 25.7 M elements), for alpha >= 0 and
//      k >= 2^-126 (cvt_f2d, cvt_d2f);
//   2: lrn_{fwd,bwd}_lean's FLOAT arithmetic: s = fmaf(an, sum, k) in float, s^-beta =
//      ex2.approx.ftz(-beta lg2.approx.ftz(s)) for every p (no powf call: its ABI spills; for
//      16-bit outputs lg2.approx's 2^-22 absolute error times |p| stays far below 2^-11 / 2^-8
//      for |p| < 100; the ftz forms need a normal s, i.e. the host would take this mode only for
//      k >= 2^-126 and alpha >= 0, where s >= k), the backward's quotient as a product with
//      rcp.approx.ftz(s); y still rounded to the type.
typedef struct {
    int64_t cols, pv, ns[3];
    int C, cc, cs[3];
    double an, k, an_lo; // an_lo = an 2^-64 (MODE 1)
    float anf, kf, nbeta, coef;
} plan_t;

// bit casts usable on the host (the host check of MODE 1's conversions runs the same code)
static __host__ __device__ __forceinline__ unsigned bits_f(float f)
{
    unsigned u;
    memcpy(&u, &f, 4);
    return u;
}
static __host__ __device__ __forceinline__ float f_bits(unsigned u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static __host__ __device__ __forceinline__ unsigned long long bits_d(double d)
{
    unsigned long long u;
    memcpy(&u, &d, 8);
    return u;
}
static __host__ __device__ __forceinline__ double d_bits(unsigned long long u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}
// MODE 1's conversions by integer operations alone (no F2F), within MODE 1's contract: alpha >=
// 0 and k >= 2^-126 (host side, else v0's arithmetic), so the scale k + an sum is NaN, +inf or
// >= 2^-126, and the window sum (from +0, squares added) is +0, subnormal, normal, +inf or NaN.
// (double)f for those f: the exponent rebiased (+896, or +1792 for inf / NaN), the mantissa
// shifted; a subnormal f (BFLOAT16 only: HALF squares are 0 or >= 2^-48) is first scaled by 2^64
// (exact) and its product with an taken with an 2^-64 instead (an_lo, exact): returns the double
// and which an to use. NaN: a NaN (its payload and sign as they come).
static __host__ __device__ __forceinline__ double cvt_f2d(float f, bool &tiny)
{
    const unsigned b = bits_f(f) & 0x7fffffffu;
    tiny = b < 0x00800000u;
    const unsigned a = tiny ? bits_f(f_bits(b) * 0x1p64f) : b;
    const unsigned hi = a == 0 ? 0u : (a >> 3) + (a >= 0x7f800000u ? 0x70000000u : 0x38000000u);
    return d_bits((unsigned long long)hi << 32 | (a << 29));
}
// (float)d rounded to nearest even for d NaN, +inf or >= 2^-126 (its exponent field >= 897): the
// top 23 mantissa bits, rounded by the 29 below them (a carry into the exponent is correct, also
// the one to inf); beyond float's range +inf, NaN a quiet NaN.
static __host__ __device__ __forceinline__ float cvt_d2f(double d)
{
    const unsigned long long u = bits_d(d);
    const unsigned hi = (unsigned)(u >> 32) & 0x7fffffffu, lo = (unsigned)u;
    unsigned r = ((hi - 0x38000000u) << 3) | (lo >> 29);
    const unsigned rem = lo & 0x1fffffffu;
    r += (unsigned)(rem > 0x10000000u) | ((unsigned)(rem == 0x10000000u) & r & 1u);
    const bool nan = hi > 0x7ff00000u || (hi == 0x7ff00000u && lo != 0);
    r = hi >= 0x47f00000u ? (nan ? 0x7fc00000u : 0x7f800000u) : r;
    return f_bits(r);
}

static __device__ __forceinline__ float lg2_ftz(float s)
{
    float r;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(s));
    return r;
}
static __device__ __forceinline__ float ex2_ftz(float p)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(p));
    return r;
}
static __device__ __forceinline__ float rcp_ftz(float s)
{
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(s));
    return r;
}

template <int MODE> struct arith;
template <> struct arith<0> {
    static __device__ __forceinline__ float scale(const plan_t &g, float sum)
    {
        return (float)(g.k + g.an * (double)sum);
    }
    static __device__ __forceinline__ float pw(float s, float e) { return __powf(s, e); }
    static __device__ __forceinline__ float quot(float a, float s) { return __fdividef(a, s); }
};
template <> struct arith<1> {
    static __device__ __forceinline__ float scale(const plan_t &g, float sum)
    {
        bool tiny;
        const double d = cvt_f2d(sum, tiny);
        return cvt_d2f(g.k + (tiny ? g.an_lo : g.an) * d);
    }
    static __device__ __forceinline__ float pw(float s, float e) { return __powf(s, e); }
    static __device__ __forceinline__ float quot(float a, float s) { return __fdividef(a, s); }
};
template <> struct arith<2> {
    static __device__ __forceinline__ float scale(const plan_t &g, float sum)
    {
        return fmaf(g.anf, sum, g.kf);
    }
    static __device__ __forceinline__ float pw(float s, float e)
    {
        return ex2_ftz(e * lg2_ftz(s));
    }
    static __device__ __forceinline__ float quot(float a, float s) { return a * rcp_ftz(s); }
};

// PV packed 16-bit values (the low half the lower pixel)
template <int PV> struct vio;
template <> struct vio<1> {
    typedef unsigned short t;
    static __device__ __forceinline__ t zero() { return 0; }
    static __device__ __forceinline__ unsigned bits(t u, int) { return u; }
    static __device__ __forceinline__ t make(const unsigned short (&h)[1]) { return h[0]; }
};
template <> struct vio<2> {
    typedef unsigned t;
    static __device__ __forceinline__ t zero() { return 0u; }
    static __device__ __forceinline__ unsigned bits(t u, int l)
    {
        return l ? u >> 16 : u & 0xffffu;
    }
    static __device__ __forceinline__ t make(const unsigned short (&h)[2])
    {
        return (unsigned)h[0] | (unsigned)h[1] << 16;
    }
};
template <> struct vio<4> {
    typedef uint2 t;
    static __device__ __forceinline__ t zero() { return make_uint2(0u, 0u); }
    static __device__ __forceinline__ unsigned bits(t u, int l)
    {
        const unsigned w = l < 2 ? u.x : u.y;
        return (l & 1) ? w >> 16 : w & 0xffffu;
    }
    static __device__ __forceinline__ t make(const unsigned short (&h)[4])
    {
        return make_uint2((unsigned)h[0] | (unsigned)h[1] << 16,
                          (unsigned)h[2] | (unsigned)h[3] << 16);
    }
};
template <int PV>
static __device__ __forceinline__ typename vio<PV>::t vld(const unsigned short *p)
{
    return *reinterpret_cast<const typename vio<PV>::t *>(p);
}
template <int PV>
static __device__ __forceinline__ void vst(unsigned short *p, typename vio<PV>::t v)
{
    *reinterpret_cast<typename vio<PV>::t *>(p) = v;
}
template <bool BF> static __device__ __forceinline__ float h2f(unsigned b)
{
    return BF ? __uint_as_float(b << 16) : __half2float(__ushort_as_half((unsigned short)b));
}
template <bool BF> static __device__ __forceinline__ unsigned short f2h(float v)
{
    return BF ? __bfloat16_as_ushort(__float2bfloat16_rn(v)) : __half_as_ushort(__float2half_rn(v));
}
template <int PV, bool BF>
static __device__ __forceinline__ void unpack(typename vio<PV>::t u, float (&v)[PV])
{
#pragma unroll
    for (int l = 0; l < PV; l++)
        v[l] = h2f<BF>(vio<PV>::bits(u, l));
}
template <int PV, bool BF>
static __device__ __forceinline__ typename vio<PV>::t pack(const float (&v)[PV])
{
    unsigned short h[PV];
#pragma unroll
    for (int l = 0; l < PV; l++)
        h[l] = f2h<BF>(v[l]);
    return vio<PV>::make(h);
}
template <int W, int PV, bool BF>
static __device__ __forceinline__ void wpush(float (&w)[W][PV], typename vio<PV>::t u)
{
#pragma unroll
    for (int k = 0; k + 1 < W; k++)
#pragma unroll
        for (int l = 0; l < PV; l++)
            w[k][l] = w[k + 1][l];
    unpack<PV, BF>(u, w[W - 1]);
}
template <int W, int PV>
static __device__ __forceinline__ float sumsq(const float (&w)[W][PV], int l)
{
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < W; k++)
        sum += w[k][l] * w[k][l];
    return sum;
}
template <int PV> static __device__ __forceinline__ int64_t vbase(const plan_t &g, int t, int64_t e)
{
    const int64_t n = e / g.pv;
    return n * g.ns[t] + (e - n * g.pv) * PV;
}

// Forward: v0_fwd's walk with PV pixels, U loads ahead, MODE's arithmetic.
template <int W, bool BF, int PV, int U, int MINB, int MODE>
static __global__ void __launch_bounds__(256, MINB)
    vf_fwd(const plan_t g, const unsigned short *__restrict__ x, unsigned short *__restrict__ y)
{
    typedef typename vio<PV>::t vt;
    typedef arith<MODE> A;
    constexpr int LB = (W - 1) / 2, LA = W - 1 - LB;
    const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= g.cols)
        return;
    const int xsc = g.cs[0], ysc = g.cs[1];
    const int cs = (int)blockIdx.y * g.cc, ce = min(g.C, cs + g.cc), jend = min(g.C, ce + LA);
    const unsigned short *xc = x + vbase<PV>(g, 0, e);
    float win[W][PV]; // x[c - LB + k] for the channel c about to be written
#pragma unroll
    for (int k = 0; k < W; k++) {
        const int j = cs + k - LB;
        const vt u = j >= 0 && j < g.C ? vld<PV>(xc + (int64_t)j * xsc) : vio<PV>::zero();
        unpack<PV, BF>(u, win[k]);
    }
    vt ahead[U]; // ahead[u] = x[c + LA + 1] for c = c0 + u
#pragma unroll
    for (int u = 0; u < U; u++) {
        const int j = cs + u + LA + 1;
        ahead[u] = j < jend ? vld<PV>(xc + (int64_t)j * xsc) : vio<PV>::zero();
    }
    int jn = cs + U + LA + 1; // the next load: x[jn] at pn
    const unsigned short *pn = xc + (int64_t)jn * xsc;
    unsigned short *py = y + vbase<PV>(g, 1, e) + (int64_t)cs * ysc;
    for (int c0 = cs; c0 < ce; c0 += U) {
#pragma unroll
        for (int u = 0; u < U; u++) {
            if (c0 + u < ce) {
                float v[PV];
#pragma unroll
                for (int l = 0; l < PV; l++) {
                    const float sc = A::scale(g, sumsq<W, PV>(win, l));
                    v[l] = win[LB][l] * A::pw(sc, g.nbeta);
                }
                vst<PV>(py, pack<PV, BF>(v));
                py += ysc;
            }
            wpush<W, PV, BF>(win, ahead[u]);
            ahead[u] = jn < jend ? vld<PV>(pn) : vio<PV>::zero();
            jn++;
            pn += xsc;
        }
    }
}

// Backward: v0_bwd's walk (see there) with PV pixels, U steps of loads ahead, MODE.
template <int W, bool BF, int PV, int U, int MINB, int MODE>
static __global__ void __launch_bounds__(256, MINB)
    vf_bwd(const plan_t g, const unsigned short *__restrict__ x,
           const unsigned short *__restrict__ dy, unsigned short *__restrict__ dx)
{
    typedef typename vio<PV>::t vt;
    typedef arith<MODE> A;
    constexpr int LB = (W - 1) / 2;
    const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= g.cols)
        return;
    const int C = g.C, xsc = g.cs[0], gsc = g.cs[1], dsc = g.cs[2];
    const int cs = (int)blockIdx.y * g.cc, ce = min(C, cs + g.cc);
    const int xend = min(C, ce + W - 1), gend = min(C, ce + LB);
    const int i_s = cs > 0 ? cs - (W - 1) : -LB;
    const unsigned short *xc = x + vbase<PV>(g, 0, e), *gc = dy + vbase<PV>(g, 1, e);
    float xw[W][PV], tw[W][PV], pr[LB + 1][PV];
    vt gr[LB + 1];
#pragma unroll
    for (int k = 0; k < W; k++) {
        const int j = i_s - 1 + k;
        const vt u = j >= 0 && j < C ? vld<PV>(xc + (int64_t)j * xsc) : vio<PV>::zero();
        unpack<PV, BF>(u, xw[k]);
#pragma unroll
        for (int l = 0; l < PV; l++)
            tw[k][l] = 0.0f;
    }
#pragma unroll
    for (int k = 0; k <= LB; k++) {
        gr[k] = vio<PV>::zero();
#pragma unroll
        for (int l = 0; l < PV; l++)
            pr[k][l] = 0.0f;
    }
    vt ax[U], ag[U]; // slot u: step i's x[i + W - 1] and dy[i + LB] (i = i_s + u)
#pragma unroll
    for (int u = 0; u < U; u++) {
        const int jx = i_s + u + W - 1, jg = i_s + u + LB;
        ax[u] = jx >= 0 && jx < xend ? vld<PV>(xc + (int64_t)jx * xsc) : vio<PV>::zero();
        ag[u] = jg >= 0 && jg < gend ? vld<PV>(gc + (int64_t)jg * gsc) : vio<PV>::zero();
    }
    int jx = i_s + U + W - 1, jg = i_s + U + LB;
    const unsigned short *px = xc + (int64_t)jx * xsc, *pg = gc + (int64_t)jg * gsc;
    unsigned short *pd = dx + vbase<PV>(g, 2, e) + (int64_t)cs * dsc;
    for (int i0 = i_s; i0 < ce; i0 += U) {
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int i = i0 + u;
            wpush<W, PV, BF>(xw, ax[u]);
            const bool live = i + LB >= 0 && i + LB < C;
            float t[PV], pw[PV];
#pragma unroll
            for (int l = 0; l < PV; l++) {
                t[l] = 0.0f, pw[l] = 0.0f;
                if (live) {
                    const float sc = A::scale(g, sumsq<W, PV>(xw, l));
                    pw[l] = A::pw(sc, g.nbeta);
                    const float yv = h2f<BF>(f2h<BF>(xw[LB][l] * pw[l]));
                    t[l] = A::quot(h2f<BF>(vio<PV>::bits(ag[u], l)) * yv, sc);
                }
            }
#pragma unroll
            for (int l = 0; l < PV; l++) {
#pragma unroll
                for (int k = 0; k + 1 < W; k++)
                    tw[k][l] = tw[k + 1][l];
                tw[W - 1][l] = t[l];
#pragma unroll
                for (int k = 0; k < LB; k++)
                    pr[k][l] = pr[k + 1][l];
                pr[LB][l] = pw[l];
            }
            v0_push_ring(gr, ag[u]);
            ax[u] = jx < xend ? vld<PV>(px) : vio<PV>::zero();
            ag[u] = jg < gend ? vld<PV>(pg) : vio<PV>::zero();
            jx++, px += xsc;
            jg++, pg += gsc;
            if (i >= cs && i < ce) {
                float v[PV];
#pragma unroll
                for (int l = 0; l < PV; l++) {
                    float acc = 0.0f;
#pragma unroll
                    for (int k = 0; k < W; k++)
                        acc += tw[k][l];
                    v[l] = h2f<BF>(vio<PV>::bits(gr[0], l)) * pr[0][l] - g.coef * xw[0][l] * acc;
                }
                vst<PV>(pd, pack<PV, BF>(v));
                pd += dsc;
            }
        }
    }
}

// ================================ host ========================================================
typedef unsigned short u16;
typedef void (*fwd_fn)(bool bf, const plan_t &g, dim3 grid, cudaStream_t st, const u16 *x, u16 *y);
typedef void (*bwd_fn)(bool bf, const plan_t &g, dim3 grid, cudaStream_t st, const u16 *x,
                       const u16 *dy, u16 *dx);

static v0_plan_t v0_plan_of(const plan_t &g)
{
    v0_plan_t p;
    memset(&p, 0, sizeof p);
    p.cols = g.cols, p.pv = g.pv, p.C = g.C, p.cc = g.cc, p.an = g.an, p.k = g.k;
    for (int t = 0; t < 3; t++)
        p.ns[t] = g.ns[t], p.cs[t] = g.cs[t];
    p.nbeta = g.nbeta, p.coef = g.coef;
    return p;
}
static void v0_fwd_go(bool bf, const plan_t &g, dim3 grid, cudaStream_t st, const u16 *x, u16 *y)
{
    if (bf)
        v0_fwd<5, true><<<grid, 256, 0, st>>>(v0_plan_of(g), x, y);
    else
        v0_fwd<5, false><<<grid, 256, 0, st>>>(v0_plan_of(g), x, y);
}
static void v0_bwd_go(bool bf, const plan_t &g, dim3 grid, cudaStream_t st, const u16 *x,
                      const u16 *dy, u16 *dx)
{
    if (bf)
        v0_bwd<5, true><<<grid, 256, 0, st>>>(v0_plan_of(g), x, dy, dx);
    else
        v0_bwd<5, false><<<grid, 256, 0, st>>>(v0_plan_of(g), x, dy, dx);
}
template <int PV, int U, int MINB, int MODE>
static void vf_fwd_go(bool bf, const plan_t &g, dim3 grid, cudaStream_t st, const u16 *x, u16 *y)
{
    if (bf)
        vf_fwd<5, true, PV, U, MINB, MODE><<<grid, 256, 0, st>>>(g, x, y);
    else
        vf_fwd<5, false, PV, U, MINB, MODE><<<grid, 256, 0, st>>>(g, x, y);
}
template <int PV, int U, int MINB, int MODE>
static void vf_bwd_go(bool bf, const plan_t &g, dim3 grid, cudaStream_t st, const u16 *x,
                      const u16 *dy, u16 *dx)
{
    if (bf)
        vf_bwd<5, true, PV, U, MINB, MODE><<<grid, 256, 0, st>>>(g, x, dy, dx);
    else
        vf_bwd<5, false, PV, U, MINB, MODE><<<grid, 256, 0, st>>>(g, x, dy, dx);
}

struct version_t {
    const char *name;
    int pv, minb_f, minb_b;
    fwd_fn f;
    bwd_fn b;
};
static const version_t versions[] = {
    {"v0", 4, V0_FWD_MINB, V0_BWD_MINB, v0_fwd_go, v0_bwd_go},
    {"v1", 4, 6, 3, vf_fwd_go<4, 2, 6, 1>, vf_bwd_go<4, 2, 3, 1>},
    {"v2", 4, 6, 3, vf_fwd_go<4, 2, 6, 2>, vf_bwd_go<4, 2, 3, 2>},
    {"v3", 2, 8, 4, vf_fwd_go<2, 4, 8, 2>, vf_bwd_go<2, 4, 4, 2>},
    {"v4", 2, 8, 3, vf_fwd_go<2, 4, 8, 1>, vf_bwd_go<2, 4, 3, 1>},
    {"v5", 4, 5, 2, vf_fwd_go<4, 4, 5, 2>, vf_bwd_go<4, 4, 2, 2>},
    {"v6", 1, 6, 6, vf_fwd_go<1, 4, 6, 2>, vf_bwd_go<1, 4, 6, 2>},
    {"v7", 4, 5, 2, vf_fwd_go<4, 4, 5, 1>, vf_bwd_go<4, 4, 2, 1>},
    {"v8", 2, 8, 4, vf_fwd_go<2, 2, 8, 1>, vf_bwd_go<2, 4, 4, 1>},
    {"v9", 2, 6, 3, vf_fwd_go<2, 8, 6, 2>, vf_bwd_go<2, 6, 3, 2>},
};
static const int nversions = (int)(sizeof versions / sizeof versions[0]);

struct problem_t {
    int N, C, H, W;
    double alpha, beta, k;
    bool bf, big;
};
static const problem_t problems[] = {
    {32, 256, 56, 56, 1e-4, 0.75, 2.0, false, true}, // the benchmark row
    {32, 256, 56, 56, 1e-4, 0.75, 2.0, true, true},
    {2, 3, 5, 4, 1.0, 0.75, 1.0, false, false},     // C < 5
    {2, 6, 4, 6, 1.0, 0.75, 1.0, false, false},     // C = 6
    {1, 1, 8, 8, 1.0, 0.75, 1.0, false, false},     // C = 1
    {2, 70, 10, 10, 1.0, 0.75, 1.0, false, false},  // chunks of 16, the last partial
    {4, 33, 6, 6, 1e-3, 2.0, 1.0, true, false},     // a last chunk of one channel
    {2, 300, 2, 3, 1.0, 0.75, 1.0, false, false},   // S = 6: not PV 4
    {3, 37, 7, 7, 1.0, 0.75, 1.0, false, false},    // odd S: PV 1 only
    {5, 20, 30, 30, 1e-4, 0.75, 2.0, true, false},  // a partial block of columns
    {3, 19, 9, 9, 1.0, 0.75, 1.0, true, false},     // odd S, BFLOAT16
};
static const int nproblems = (int)(sizeof problems / sizeof problems[0]);

// v rounded once to a 16-bit float of M mantissa bits and exponent bias B (E exponent bits)
static u16 round16(double v, bool bf)
{
    const int M = bf ? 7 : 10, E = bf ? 8 : 5, B = bf ? 127 : 15, EMAX = (1 << E) - 1;
    if (std::isnan(v))
        return bf ? 0x7fc0 : 0x7e00;
    const u16 sgn = std::signbit(v) ? (u16)(1u << 15) : 0;
    const double a = fabs(v);
    if (std::isinf(a))
        return sgn | (u16)(EMAX << M);
    const int emin = 1 - B;
    if (a < ldexp(1.0, emin)) // subnormal (a carry to 2^M is the smallest normal's encoding)
        return sgn | (u16)nearbyint(ldexp(a, M - emin));
    int ex;
    frexp(a, &ex);
    int e = ex - 1; // a in [2^e, 2^(e + 1))
    double m = nearbyint(ldexp(a, M - e));
    if (m == ldexp(1.0, M + 1))
        e++, m = ldexp(1.0, M);
    if (e + B >= EMAX)
        return sgn | (u16)(EMAX << M);
    return sgn | (u16)((e + B) << M) | (u16)((int)m - (1 << M));
}
static double val16(u16 h, bool bf)
{
    if (bf) {
        const unsigned u = (unsigned)h << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    const int e = (h >> 10) & 31, m = h & 1023;
    const double s = (h & 0x8000) ? -1.0 : 1.0;
    if (e == 31)
        return m ? NAN : s * INFINITY;
    return e ? s * ldexp(1024.0 + m, e - 25) : s * ldexp((double)m, -24);
}
static bool isnan16(u16 h, bool bf)
{
    return bf ? ((h & 0x7f80) == 0x7f80 && (h & 0x7f)) : ((h & 0x7c00) == 0x7c00 && (h & 0x3ff));
}
static long ulp_dist(u16 a, u16 b)
{
    const long ia = (a & 0x8000) ? -(long)(a & 0x7fff) : (long)a;
    const long ib = (b & 0x8000) ? -(long)(b & 0x7fff) : (long)b;
    return labs(ia - ib);
}

// The reference of one column (image n, pixel sp): src/ref/lrn_ref.c's formulas in double,
// the backward's y = the forward of x rounded to the type (lrn_fill_y), each output rounded once.
static void ref_column(const problem_t &p, bool bwd, const u16 *x, const u16 *dy, int64_t n,
                       int64_t sp, u16 *out, std::vector<double> &s, std::vector<double> &yr)
{
    const int64_t S = (int64_t)p.H * p.W, C = p.C;
    const int lb = 2, la = 2, size = 5;
    const int64_t b = n * C * S + sp;
    for (int64_t c = 0; c < C; c++) {
        double sum = 0.0;
        for (int64_t j = std::max<int64_t>(0, c - lb); j <= std::min<int64_t>(C - 1, c + la); j++) {
            const double v = val16(x[b + j * S], p.bf);
            sum += v * v;
        }
        s[c] = p.k + p.alpha / size * sum;
        yr[c] = val16(x[b + c * S], p.bf) * pow(s[c], -p.beta);
    }
    if (!bwd) {
        for (int64_t c = 0; c < C; c++)
            out[b + c * S] = round16(yr[c], p.bf);
        return;
    }
    for (int64_t c = 0; c < C; c++)
        yr[c] = val16(round16(yr[c], p.bf), p.bf);
    const double coef = 2.0 * p.beta * p.alpha / size;
    for (int64_t i = 0; i < C; i++) {
        double acc = 0.0;
        for (int64_t c = std::max<int64_t>(0, i - la); c <= std::min<int64_t>(C - 1, i + lb); c++)
            acc += val16(dy[b + c * S], p.bf) * yr[c] / s[c];
        const double v = val16(dy[b + i * S], p.bf) * pow(s[i], -p.beta) -
                         coef * val16(x[b + i * S], p.bf) * acc;
        out[b + i * S] = round16(v, p.bf);
    }
}

// lrn.cu's lrn16_chunk (its default rule): as many chunks as fit one wave of minb blocks an SM
static int chunk_of(int64_t C, int64_t bx, int minb, int sms)
{
    const int64_t slots = (int64_t)sms * minb;
    const int64_t chunks = slots / bx > 1 ? slots / bx : 1;
    int64_t cc = (C + chunks - 1) / chunks;
    cc = cc > 16 ? cc : 16;
    if (cc < (C + 65534) / 65535)
        cc = (C + 65534) / 65535;
    return (int)(cc < C ? cc : C);
}

static uint32_t hash32(uint64_t i)
{
    uint64_t z = i * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ull;
    return (uint32_t)(z ^ (z >> 29));
}

// MODE 1's conversions against the host's (which round to nearest even): every float class
// (random bits), and doubles of exponent field 897 .. 2047 (random, and near the rounding ties)
static int host_check_cvt(void)
{
    long bad = 0;
    for (uint64_t i = 0; i < 4000000; i++) {
        const float f = f_bits(i < 1000 ? (unsigned)i : hash32(i)); // i < 1000: subnormals
        bool tiny;
        const double d = cvt_f2d(f, tiny), r = (double)fabsf(f);
        const double dv = tiny ? d * 0x1p-64 : d;
        if (std::isnan(r) ? !std::isnan(dv) : bits_d(dv) != bits_d(r))
            bad++;
        const unsigned long long m =
            ((unsigned long long)hash32(i + 77777777) << 32 | hash32(i + 99999999)) &
            0x000fffffffffffffull;
        const unsigned long long ex = 897 + hash32(i + 5) % (2048 - 897);
        unsigned long long v = ex << 52 | m;
        if (i & 1) // the low 29 bits at and around one half
            v = (v & ~0x1fffffffull) |
                (unsigned long long)(0x10000000ll + (long long)(hash32(i) % 5) - 2);
        if (i % 7 == 0) // exponents at float's top
            v = (unsigned long long)(1150 + hash32(i) % 2) << 52 | (v & 0x000fffffffffffffull);
        const double dd = d_bits(v);
        const float ff = cvt_d2f(dd), rf = (float)dd;
        if (std::isnan(rf) ? !std::isnan(ff) : bits_f(ff) != bits_f(rf))
            bad++;
    }
    printf("host check of MODE 1's conversions: %ld mismatches in 8000000 %s\n", bad,
           bad ? "FAIL" : "ok");
    return bad == 0;
}

// Host emulation of vf_fwd / vf_bwd's walk (PV 1, W 5): the values are tags (channel j + 1;
// 0 = out of range), so every window, ring and store is checked against the channel it must
// hold, and every channel of every chunking (chunks of 16 or more, as lrn16_chunk) is stored once.
static int emu_verbose; // prints the first failed check of emu_walk
#define EMU_CHECK(c)                                                                               \
    do {                                                                                           \
        if (!(c) && ok && emu_verbose)                                                             \
            printf("emu_walk<%d, %d>(C %d, cc %d) chunk %d: %s\n", W, U, C, cc, cs, #c);           \
        ok = ok && (c);                                                                            \
    } while (0)
template <int W, int U> static bool emu_walk(int C, int cc)
{
    constexpr int LB = (W - 1) / 2, LA = W - 1 - LB;
    auto X = [&](int j) { return j >= 0 && j < C ? j + 1 : 0; };
    std::vector<int> fw(C, 0), bw(C, 0);
    bool ok = true;
    for (int cs = 0; cs < C; cs += cc) {
        const int ce = std::min(C, cs + cc), jend = std::min(C, ce + LA);
        int win[W], ahead[U];
        for (int k = 0; k < W; k++)
            win[k] = X(cs + k - LB);
        for (int u = 0; u < U; u++) {
            const int j = cs + u + LA + 1;
            ahead[u] = j < jend ? j + 1 : 0;
        }
        int jn = cs + U + LA + 1;
        for (int c0 = cs; c0 < ce; c0 += U)
            for (int u = 0; u < U; u++) {
                if (c0 + u < ce) {
                    for (int k = 0; k < W; k++)
                        EMU_CHECK(win[k] == X(c0 + u - LB + k));
                    fw[c0 + u]++;
                }
                for (int k = 0; k + 1 < W; k++)
                    win[k] = win[k + 1];
                win[W - 1] = ahead[u];
                ahead[u] = jn < jend ? jn + 1 : 0;
                jn++;
            }
        // backward: t, dy and p tags are the channel's tag (0 when not live)
        const int xend = std::min(C, ce + W - 1), gend = std::min(C, ce + LB);
        const int i_s = cs > 0 ? cs - (W - 1) : -LB;
        int xw[W], tw[W], pr[LB + 1], gr[LB + 1], ax[U], ag[U];
        for (int k = 0; k < W; k++)
            xw[k] = X(i_s - 1 + k), tw[k] = 0;
        for (int k = 0; k <= LB; k++)
            gr[k] = pr[k] = 0;
        for (int u = 0; u < U; u++) {
            const int jx = i_s + u + W - 1, jg = i_s + u + LB;
            ax[u] = jx >= 0 && jx < xend ? jx + 1 : 0;
            ag[u] = jg >= 0 && jg < gend ? jg + 1 : 0;
        }
        int jx = i_s + U + W - 1, jg = i_s + U + LB;
        for (int i0 = i_s; i0 < ce; i0 += U)
            for (int u = 0; u < U; u++) {
                const int i = i0 + u;
                for (int k = 0; k + 1 < W; k++)
                    xw[k] = xw[k + 1];
                xw[W - 1] = ax[u];
                const bool live = i + LB >= 0 && i + LB < C;
                const bool used = live && i < ce; // steps i >= ce (the last trip's) are unused
                for (int k = 0; k < W && used; k++) // s[i + LB]'s window
                    EMU_CHECK(xw[k] == X(i + k));
                EMU_CHECK((!used || (xw[LB] == X(i + LB) && ag[u] == X(i + LB))));
                const int t = live ? X(i + LB) : 0;
                for (int k = 0; k + 1 < W; k++)
                    tw[k] = tw[k + 1];
                tw[W - 1] = t;
                for (int k = 0; k < LB; k++)
                    pr[k] = pr[k + 1], gr[k] = gr[k + 1];
                pr[LB] = t, gr[LB] = ag[u];
                ax[u] = jx < xend ? jx + 1 : 0;
                ag[u] = jg < gend ? jg + 1 : 0;
                jx++, jg++;
                if (i >= cs && i < ce) {
                    for (int k = 0; k < W; k++) // dx[i]'s adjoint window t[i - LA .. i + LB]
                        EMU_CHECK(tw[k] == X(i - LA + k));
                    EMU_CHECK(gr[0] == X(i) && pr[0] == X(i) && xw[0] == X(i));
                    bw[i]++;
                }
            }
    }
    for (int c = 0; c < C; c++)
        for (const int cs = -1; cs < 0;) { // cs: EMU_CHECK's message
            EMU_CHECK(fw[c] == 1 && bw[c] == 1);
            break;
        }
    return ok;
}
static int host_check_walk(void)
{
    long bad = 0, n = 0;
    for (int C = 1; C <= 80; C++)
        for (int cc = std::min(C, 16); cc <= C; cc++, n += 4)
            bad += !emu_walk<5, 2>(C, cc) + !emu_walk<5, 4>(C, cc) + !emu_walk<5, 6>(C, cc) +
                   !emu_walk<5, 8>(C, cc);
    printf("host emulation of the walk (W 5, U 2, 4, 6, 8, C 1 .. 80, every chunk >= 16): "
           "%ld of %ld bad %s\n", bad, n, bad ? "FAIL" : "ok");
    return bad == 0;
}

#define NSET_BIG 4 // buffer sets rotated in the timed graph: >= 411 MB forward, 617 MB backward
#define REP 20     // launches a graph
#define SAMPLES 15 // timed replays (after 3 warm-up ones)

static double time_graph(cudaStream_t st, cudaGraphExec_t ex)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 3; i++)
        CK(cudaGraphLaunch(ex, st));
    std::vector<float> ms(SAMPLES);
    for (int i = 0; i < SAMPLES; i++) {
        CK(cudaEventRecord(a, st));
        CK(cudaGraphLaunch(ex, st));
        CK(cudaEventRecord(b, st));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&ms[i], a, b));
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::sort(ms.begin(), ms.end());
    return ms[SAMPLES / 2] * 1e3 / REP; // us a launch
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--only vN]\n", argv[0]);
            return 2;
        }
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("no GPU\n");
        return 77;
    }
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    bool all_ok = host_check_cvt() != 0;
    all_ok = host_check_walk() != 0 && all_ok;
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    for (int pi = 0; pi < nproblems; pi++) {
        const problem_t &p = problems[pi];
        const int64_t S = (int64_t)p.H * p.W, cnt = (int64_t)p.N * p.C * S;
        const size_t bytes1 = (size_t)cnt * 2;
        const int nset = p.big ? NSET_BIG : 1;
        char pname[96];
        snprintf(pname, sizeof pname, "n%dc%dh%dw%d,a=%g,b=%g,k=%g", p.N, p.C, p.H, p.W, p.alpha,
                 p.beta, p.k);
        const char *dts = p.bf ? "bf16" : "f16";
        std::vector<u16> hx(cnt), hg(cnt), ref(cnt), out(cnt), out0(cnt);
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < cnt; i++) {
            hx[i] = round16(((int)(hash32(2 * i + pi) % 4001) - 2000) / 1000.0, p.bf);
            hg[i] = round16(((int)(hash32(2 * i + 1 + pi) % 4001) - 2000) / 1000.0, p.bf);
        }
        // the images checked: all of a small problem, every 7th of a big one
        const int nstep = p.big ? 7 : 1;
        u16 *dx_[NSET_BIG], *dg_[NSET_BIG], *do_[NSET_BIG];
        for (int s = 0; s < nset; s++) {
            CK(cudaMalloc(&dx_[s], bytes1));
            CK(cudaMalloc(&dg_[s], bytes1));
            CK(cudaMalloc(&do_[s], bytes1));
            CK(cudaMemcpy(dx_[s], hx.data(), bytes1, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(dg_[s], hg.data(), bytes1, cudaMemcpyHostToDevice));
        }
        if (p.big) { // the ceiling: a device copy of one tensor, rotated (read + write bytes)
            cudaGraph_t gr;
            cudaGraphExec_t ex;
            CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
            for (int r = 0; r < REP; r++)
                CK(cudaMemcpyAsync(do_[r % nset], dx_[r % nset], bytes1, cudaMemcpyDeviceToDevice,
                                   st));
            CK(cudaStreamEndCapture(st, &gr));
            CK(cudaGraphInstantiate(&ex, gr, 0));
            const double us = time_graph(st, ex);
            printf("copy %s - %s %.2f %.0f\n", dts, pname, us, 2.0 * bytes1 / us / 1e3);
            CK(cudaGraphExecDestroy(ex));
            CK(cudaGraphDestroy(gr));
        }
        for (int dir = 0; dir < 2; dir++) {
            const bool bwd = dir == 1;
            const double K = bwd ? 16 * 5 + 16 : 8 * 5 + 16;
            const double rtol = 4.0 * ldexp(1.0, p.bf ? -8 : -11) + 2.0 * K * ldexp(1.0, -24);
            const double tbytes = (bwd ? 3.0 : 2.0) * bytes1;
#pragma omp parallel
            {
                std::vector<double> s(p.C), yr(p.C);
#pragma omp for schedule(dynamic, 64)
                for (int64_t col = 0; col < (int64_t)p.N * S; col++) {
                    const int64_t n = col / S, sp = col % S;
                    if (n % nstep == 0)
                        ref_column(p, bwd, hx.data(), hg.data(), n, sp, ref.data(), s, yr);
                }
            }
            bool have0 = false;
            for (int vi = 0; vi < nversions; vi++) {
                const version_t &v = versions[vi];
                if (only && strcmp(only, v.name) != 0 && strcmp(v.name, "v0") != 0)
                    continue;
                const bool quiet = only && strcmp(only, v.name) != 0; // v0 for bit identity only
                if (S % v.pv != 0) {
                    if (!quiet)
                        printf("%s %s %s %s - - n/a (H W not a multiple of %d)\n", v.name, dts,
                               bwd ? "bwd" : "fwd", pname, v.pv);
                    continue;
                }
                plan_t g;
                memset(&g, 0, sizeof g);
                g.cols = p.N * S / v.pv, g.pv = S / v.pv, g.C = p.C;
                for (int t = 0; t < 3; t++)
                    g.ns[t] = (int64_t)p.C * S, g.cs[t] = (int)S;
                const int64_t bx = (g.cols + 255) / 256;
                g.cc = chunk_of(p.C, bx, bwd ? v.minb_b : v.minb_f, sms);
                g.an = p.alpha / 5, g.k = p.k, g.an_lo = ldexp(g.an, -64);
                g.anf = (float)g.an, g.kf = (float)p.k, g.nbeta = (float)-p.beta;
                g.coef = (float)(2.0 * p.beta * p.alpha / 5);
                const dim3 grid((unsigned)bx, (unsigned)((p.C + g.cc - 1) / g.cc));
                auto launch = [&](int s) {
                    if (bwd)
                        v.b(p.bf, g, grid, st, dx_[s], dg_[s], do_[s]);
                    else
                        v.f(p.bf, g, grid, st, dx_[s], do_[s]);
                };
                CK(cudaMemset(do_[0], 0xff, bytes1)); // NaN: an element not written fails
                launch(0);
                cudaError_t le = cudaGetLastError();
                if (le == cudaSuccess)
                    le = cudaStreamSynchronize(st);
                if (le != cudaSuccess) {
                    printf("%s %s %s %s - - launch error %s FAIL\n", v.name, dts,
                           bwd ? "bwd" : "fwd", pname, cudaGetErrorString(le));
                    all_ok = false;
                    if (le != cudaErrorInvalidConfiguration && le != cudaErrorLaunchOutOfResources)
                        return 1; // a sticky error: the context is gone
                    continue;
                }
                CK(cudaMemcpy(out.data(), do_[0], bytes1, cudaMemcpyDeviceToHost));
                long maxulp = 0, nbad = 0;
                bool nanmis = false, bitid = true;
                if (vi > 0 && have0)
                    for (int64_t i = 0; i < cnt; i++)
                        if (out[i] != out0[i] && !(isnan16(out[i], p.bf) && isnan16(out0[i], p.bf)))
                            bitid = false;
                for (int64_t i = 0; i < cnt; i++) {
                    if ((i / ((int64_t)p.C * S)) % nstep != 0) {
                        i += (int64_t)p.C * S - 1; // the next image
                        continue;
                    }
                    const bool a = isnan16(out[i], p.bf), b = isnan16(ref[i], p.bf);
                    if (a || b) {
                        if (a != b)
                            nanmis = true, nbad++;
                        continue;
                    }
                    maxulp = std::max(maxulp, ulp_dist(out[i], ref[i]));
                    const double o = val16(out[i], p.bf), r = val16(ref[i], p.bf);
                    if (!(fabs(o - r) <= rtol * (1.0 + fabs(r)) + 1e-30))
                        nbad++;
                }
                if (vi == 0) {
                    out0 = out;
                    have0 = true;
                }
                double us = 0.0;
                if (p.big && !quiet) {
                    cudaGraph_t gr;
                    cudaGraphExec_t ex;
                    CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
                    for (int r = 0; r < REP; r++)
                        launch(r % nset);
                    CK(cudaStreamEndCapture(st, &gr));
                    CK(cudaGraphInstantiate(&ex, gr, 0));
                    us = time_graph(st, ex);
                    CK(cudaGraphExecDestroy(ex));
                    CK(cudaGraphDestroy(gr));
                }
                if (quiet)
                    continue;
                const bool ok = nbad == 0;
                all_ok = all_ok && ok;
                char ut[32], gt[32], mu[32];
                snprintf(ut, sizeof ut, p.big ? "%.2f" : "-", us);
                snprintf(gt, sizeof gt, p.big ? "%.0f" : "-", tbytes / us / 1e3);
                snprintf(mu, sizeof mu, nanmis ? "nan" : "%ld", maxulp);
                printf("%s %s %s %s %s %s maxulp=%s bitid=%s %s (chunk %d, grid %ux%u)\n", v.name,
                       dts, bwd ? "bwd" : "fwd", pname, ut, gt, mu,
                       vi == 0 ? "yes" : have0 ? (bitid ? "yes" : "no") : "-",
                       ok ? "ok" : "FAIL", g.cc, grid.x, grid.y);
                fflush(stdout);
            }
        }
        for (int s = 0; s < nset; s++) {
            CK(cudaFree(dx_[s]));
            CK(cudaFree(dg_[s]));
            CK(cudaFree(do_[s]));
        }
    }
    CK(cudaStreamDestroy(st));
    return all_ok ? 0 : 1;
}
