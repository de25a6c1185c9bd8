// SPDX-License-Identifier: MIT
/*
 * dev/pool_fwd/pool_fwd.cu - sandbox for the stride-2 MAX-pool forward (windows 2 or 3, pad 0 or
 * 1, alpha 1, beta 0, FLOAT / HALF, NCHW with W innermost and NHWC channels-last), llm.c
 * dev/cuda style: one file, a CPU reference, kernel versions, a bitwise check and a CUDA-graph
 * timer. v0 is src/cuda/pooling_lean.cuh's pool_lean_{nchw,nhwc} (mapping, loads, redo path);
 * the others vary the mapping, the loads and the launch (README.md lists them). Self-contained:
 * no library header. Exit 77 without a GPU.
 *
 * Every version keeps the library's cheap test of a result that the lane-wise max chain may not
 * give bit-exactly (a lane that is NaN or zero) and redoes such lanes by the exact scan
 * (exact_max: the first maximum in row-major order, NaN ignored, or returned with propagate),
 * so the timing pays for that test. The timed fills have no zero and no NaN: the redo never
 * runs there; the 'zeros-nan' correctness shapes make it run.
 */
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(call)                                                                                   \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

enum { F32 = 0, F16 = 1 };   /* storage types (a template argument everywhere) */
enum { NCHW = 0, NHWC = 1 }; /* layouts */
/* Cache hints (bits): y stores st.global.cs; x loads ld.global.cs, ld.global.nc.L1::no_allocate
 * or ld.global.nc. */
enum { HY_CS = 1, HX_CS = 2, HX_NA = 4, HX_NC = 8 };
#define FULL_MASK 0xffffffffu

/* The flat problem (the library's pool_s2_t, reduced to what the forward reads). Element
 * strides; planes: N * C for NCHW, N for NHWC; yvec: y's strides are multiples of 8 bytes
 * (NCHW, y 8-byte aligned). */
struct Prob {
    int n, c, planes, in_h, in_w, out_h, out_w, win_h, win_w, pad_h, pad_w, propagate, yvec;
    int xs_n, xs_c, xs_h, xs_w, ys_n, ys_c, ys_h, ys_w;
    float lowest;
};

/* ---- device helpers ------------------------------------------------------------------------ */

template <int TY> __device__ __forceinline__ const void *at(const void *p, int i)
{
    return TY == F32 ? (const void *)((const float *)p + i) : (const void *)((const __half *)p + i);
}
template <int TY> __device__ __forceinline__ void *atw(void *p, int i)
{
    return TY == F32 ? (void *)((float *)p + i) : (void *)((__half *)p + i);
}

/* The type's lowest finite value in every lane of a word (window_max's start). */
template <int TY> __device__ __forceinline__ unsigned lowest_word()
{
    return TY == F32 ? 0xff7fffffu : 0xfbfffbffu;
}

/* Lane-wise max of two words: NaN-ignoring (max.f32 / max.f16x2), NP: max.NaN. */
template <int TY, bool NP> __device__ __forceinline__ unsigned mx(unsigned a, unsigned b)
{
    unsigned r;
    if (TY == F32) {
        if (NP)
            asm("max.NaN.f32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
        else
            r = __float_as_uint(fmaxf(__uint_as_float(a), __uint_as_float(b)));
    } else {
        if (NP)
            asm("max.NaN.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
        else
            asm("max.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    }
    return r;
}
template <int TY, bool NP> __device__ __forceinline__ uint4 vmax(const uint4 &a, const uint4 &b)
{
    return make_uint4(mx<TY, NP>(a.x, b.x), mx<TY, NP>(a.y, b.y), mx<TY, NP>(a.z, b.z),
                      mx<TY, NP>(a.w, b.w));
}

/* Nonzero when a lane of w is NaN or zero: the cheap 'odd result' test. */
template <int TY> __device__ __forceinline__ unsigned odd(unsigned w)
{
    if (TY == F32)
        return !(fabsf(__uint_as_float(w)) > 0.0f);
    __half2 h;
    memcpy(&h, &w, 4);
    return __hequ2_mask(h, __float2half2_rn(0.0f));
}
template <int TY> __device__ __forceinline__ unsigned odd4(const uint4 &m)
{
    return odd<TY>(m.x) | odd<TY>(m.y) | odd<TY>(m.z) | odd<TY>(m.w);
}

/* 1 when a lane of w is -0. */
template <int TY> __device__ __forceinline__ bool neg0(unsigned w)
{
    if (TY == F32)
        return w == 0x80000000u;
    return (w & 0xffffu) == 0x8000u || (w >> 16) == 0x8000u;
}
template <int TY> __device__ __forceinline__ bool neg04(const uint4 &u)
{
    return neg0<TY>(u.x) || neg0<TY>(u.y) || neg0<TY>(u.z) || neg0<TY>(u.w);
}

/* Lane l of the words w[] as float (l a literal after unrolling). */
template <int TY> __device__ __forceinline__ float lane(const unsigned *w, int l)
{
    if (TY == F32)
        return __uint_as_float(w[l]);
    const unsigned h = l & 1 ? w[l >> 1] >> 16 : w[l >> 1] & 0xffffu;
    return __half2float(__ushort_as_half((unsigned short)h));
}

template <int TY> __device__ __forceinline__ float ldf(const void *p, int i)
{
    if (TY == F32)
        return ((const float *)p)[i];
    return __half2float(((const __half *)p)[i]);
}
/* Element i of p = v (v holds a value of the type: exact). */
template <int TY> __device__ __forceinline__ void stf(void *p, int i, float v)
{
    if (TY == F32)
        ((float *)p)[i] = v;
    else
        ((__half *)p)[i] = __float2half_rn(v);
}
/* Element i of p = the low bits of b. */
template <int TY> __device__ __forceinline__ void st1(void *p, int i, unsigned b)
{
    if (TY == F32)
        ((unsigned *)p)[i] = b;
    else
        ((unsigned short *)p)[i] = (unsigned short)b;
}

/* 16-byte and element loads of x under the hint H. */
template <int H> __device__ __forceinline__ uint4 ld16(const void *p)
{
    if (H & HX_CS)
        return __ldcs((const uint4 *)p);
    if (H & HX_NA) {
        uint4 r;
        asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
            : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
            : "l"(p));
        return r;
    }
    if (H & HX_NC)
        return __ldg((const uint4 *)p);
    return *(const uint4 *)p;
}
template <int TY, int H> __device__ __forceinline__ unsigned ld1(const void *p, int i)
{
    if (TY == F32) {
        const unsigned *q = (const unsigned *)p + i;
        if (H & HX_CS)
            return __ldcs(q);
        if (H & HX_NA) {
            unsigned r;
            asm("ld.global.nc.L1::no_allocate.u32 %0, [%1];" : "=r"(r) : "l"(q));
            return r;
        }
        if (H & HX_NC)
            return __ldg(q);
        return *q;
    }
    const unsigned short *q = (const unsigned short *)p + i;
    if (H & HX_CS)
        return __ldcs(q);
    if (H & HX_NA) {
        unsigned short r;
        asm("ld.global.nc.L1::no_allocate.u16 %0, [%1];" : "=h"(r) : "l"(q));
        return r;
    }
    if (H & HX_NC)
        return __ldg(q);
    return *q;
}
template <int H> __device__ __forceinline__ void st16(void *p, const uint4 &v)
{
    if (H & HY_CS)
        __stcs((uint4 *)p, v);
    else
        *(uint4 *)p = v;
}
template <int H> __device__ __forceinline__ void st8(void *p, const uint2 &v)
{
    if (H & HY_CS)
        __stcs((uint2 *)p, v);
    else
        *(uint2 *)p = v;
}

/* The 9-bit mask (row-major) of the cells of window (r0, c0) inside the window and inside x. */
__device__ __forceinline__ int win_mask(const Prob &q, int r0, int c0)
{
    int ok = 0;
#pragma unroll
    for (int k = 0; k < 9; k++) {
        const int kr = k / 3, kc = k % 3, row = r0 + kr, col = c0 + kc;
        ok |= kr < q.win_h && kc < q.win_w && (unsigned)row < (unsigned)q.in_h &&
                      (unsigned)col < (unsigned)q.in_w
                  ? 1 << k
                  : 0;
    }
    return ok;
}

/* window_max of the cells ok of the window whose first cell is element off of xc: the first
 * maximum in row-major order from the lowest finite value, NaN skipped (or returned with
 * propagate). The redo path: cells read again, scalar. */
template <int TY>
__device__ __forceinline__ float exact_max(const Prob &q, const void *xc, int off, int ok)
{
    float m = q.lowest;
    bool found = false;
#pragma unroll 1
    for (int k = 0; ok != 0; k++, ok >>= 1) {
        if (!(ok & 1))
            continue;
        const int kr = k / 3;
        const float e = ldf<TY>(xc, off + kr * q.xs_h + (k - 3 * kr) * q.xs_w);
        if (e != e) {
            if (q.propagate)
                return e;
            continue;
        }
        if (found ? e > m : e >= m)
            m = e, found = true;
    }
    return m;
}

/* ---- W innermost helpers ------------------------------------------------------------------- */

/* x's columns cb .. cb + L - 1 of the row at xr: the vector load when whole, else per element
 * (lowest past in_w; nothing past in_w is read). */
template <int TY, int H>
__device__ __forceinline__ uint4 row_vec(const void *xr, int cb, int in_w, unsigned lw)
{
    constexpr int L = TY == F32 ? 4 : 8;
    if (cb + L <= in_w)
        return ld16<H>(at<TY>(xr, cb));
    unsigned w[4] = {lw, lw, lw, lw};
#pragma unroll
    for (int l = 0; l < L; l++) {
        if (cb + l >= in_w)
            continue;
        const unsigned e = ld1<TY, 0>(xr, cb + l);
        if (TY == F32)
            w[l] = e;
        else
            w[l >> 1] = l & 1 ? (w[l >> 1] & 0xffffu) | e << 16 : (w[l >> 1] & 0xffff0000u) | e;
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* Element col of the row at xr in every lane of a word. */
template <int TY, int H> __device__ __forceinline__ unsigned col_word(const void *xr, int col)
{
    const unsigned e = ld1<TY, H>(xr, col);
    return TY == F32 ? e : e | e << 16;
}

/* Word k of the NV column-max vectors v; the extra column's word xe at k = -1 and k = 4 NV. */
template <int NV> __device__ __forceinline__ unsigned vword(const uint4 *v, unsigned xe, int k)
{
    if (k < 0 || k >= 4 * NV)
        return xe;
    const uint4 &u = v[k >> 2];
    const int c = k & 3;
    return c == 0 ? u.x : c == 1 ? u.y : c == 2 ? u.z : u.w;
}

/* Output g's max (FLOAT) or outputs g, g + 1's as one word (HALF) from the column maxima:
 * cells 2 g - PAD + {0, 1, 2 when wide}; element -1 and element 8 NV / (TY ? 1 : 2) are the
 * extra column's. */
template <int TY, bool NP, int NV, int PAD>
__device__ __forceinline__ unsigned out_word(const uint4 *v, unsigned xe, int g, bool wide)
{
    unsigned c[3];
#pragma unroll
    for (int d = 0; d < 3; d++) {
        const int k = 2 * g - PAD + d;
        if (TY == F32) {
            c[d] = vword<NV>(v, xe, k);
        } else { /* elements k and k + 2: the same half of words floor(k / 2) and the next */
            const int kw = (k + 2) / 2 - 1;
            c[d] = __byte_perm(vword<NV>(v, xe, kw), vword<NV>(v, xe, kw + 1),
                               (k + 2) & 1 ? 0x7632 : 0x5410);
        }
    }
    const unsigned r = mx<TY, NP>(c[0], c[1]);
    return wide ? mx<TY, NP>(r, c[2]) : r;
}

/* ---- v0: src/cuda/pooling_lean.cuh, ported (both layouts) ---------------------------------- */

/* pool_lean_nhwc_fix: NaN lanes, and zero lanes when a cell of the window holds -0, redone. */
template <int TY>
__device__ __forceinline__ void lib_nhwc_fix(const Prob &q, const void *xc, void *yp, uint4 m,
                                             int r0, int c0)
{
    constexpr int L = TY == F32 ? 4 : 8;
    const unsigned w[4] = {m.x, m.y, m.z, m.w};
    unsigned nl = 0, zl = 0;
#pragma unroll
    for (int l = 0; l < L; l++) {
        const float v = lane<TY>(w, l);
        nl |= v != v ? 1u << l : 0u;
        zl |= v == 0.0f ? 1u << l : 0u;
    }
    const int ok = win_mask(q, r0, c0), off = r0 * q.xs_h + c0 * q.xs_w;
    if (zl != 0) {
        bool neg = false;
#pragma unroll 1
        for (int k = 0; k < 9; k++) {
            if (!((ok >> k) & 1))
                continue;
            const int kr = k / 3;
            neg |= neg04<TY>(*(const uint4 *)at<TY>(xc, off + kr * q.xs_h + (k - 3 * kr) * q.xs_w));
        }
        if (!neg)
            zl = 0;
    }
#pragma unroll 1
    for (unsigned fix = nl | zl; fix != 0; fix &= fix - 1) {
        const int l = __ffs((int)fix) - 1;
        stf<TY>(yp, l, exact_max<TY>(q, at<TY>(xc, l), off, ok));
    }
}

template <int TY, bool NP>
__device__ __forceinline__ uint4 lib_nhwc_row(const Prob &q, const void *xc, int row, int c0,
                                              uint4 m)
{
    if ((unsigned)row >= (unsigned)q.in_h)
        return m;
#pragma unroll
    for (int kc = 0; kc < 3; kc++) {
        const int col = c0 + kc;
        if (kc < q.win_w && (unsigned)col < (unsigned)q.in_w)
            m = vmax<TY, NP>(m, *(const uint4 *)at<TY>(xc, row * q.xs_h + col * q.xs_w));
    }
    return m;
}

/* Thread = (n, i, j, vector cv), cv fastest. */
template <int TY, bool NP>
__device__ __forceinline__ void lib_nhwc_body(const Prob &q, int cvn, const void *x, void *y)
{
    constexpr int L = TY == F32 ? 4 : 8;
    int e = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int cv = e % cvn;
    e /= cvn;
    const int j = e % q.out_w;
    e /= q.out_w;
    const int i = e % q.out_h, n = e / q.out_h;
    if (n >= q.planes)
        return;
    const void *xc = at<TY>(x, n * q.xs_n + cv * L);
    const int r0 = 2 * i - q.pad_h, c0 = 2 * j - q.pad_w;
    const unsigned lw = lowest_word<TY>();
    uint4 m = make_uint4(lw, lw, lw, lw);
    if (TY == F32) { /* a row's 3 loads at a time (all 9 spilled at 32 registers) */
#pragma unroll 1
        for (int kr = 0; kr < q.win_h; kr++)
            m = lib_nhwc_row<TY, NP>(q, xc, r0 + kr, c0, m);
    } else {
#pragma unroll
        for (int kr = 0; kr < 3; kr++)
            if (kr < q.win_h)
                m = lib_nhwc_row<TY, NP>(q, xc, r0 + kr, c0, m);
    }
    void *yp = atw<TY>(y, n * q.ys_n + i * q.ys_h + j * q.ys_w + cv * L);
    *(uint4 *)yp = m;
    if (odd4<TY>(m) != 0)
        lib_nhwc_fix<TY>(q, xc, yp, m, r0, c0);
}

/* pool_lean_nchw_fix: as lib_nhwc_fix for the G outputs j0 .. of row i. */
template <int TY>
__device__ __forceinline__ void lib_nchw_fix(const Prob &q, const void *xc, void *yp, uint2 o,
                                             int i, int j0, int pad)
{
    constexpr int G = TY == F32 ? 2 : 4;
    const unsigned w[2] = {o.x, o.y};
    unsigned nl = 0, zl = 0;
#pragma unroll
    for (int g = 0; g < G; g++) {
        if (j0 + g >= q.out_w)
            continue;
        const float v = lane<TY>(w, g);
        nl |= v != v ? 1u << g : 0u;
        zl |= v == 0.0f ? 1u << g : 0u;
    }
    const int r0 = 2 * i - q.pad_h, cb = 2 * j0;
    if (zl != 0) {
        const unsigned lw = lowest_word<TY>();
        const int ce = pad ? cb - 1 : cb + 2 * G;
        bool neg = false;
#pragma unroll 1
        for (int kr = 0; kr < q.win_h; kr++) {
            const int row = r0 + kr;
            if (row < 0 || row >= q.in_h)
                continue;
            const void *xr = at<TY>(xc, row * q.xs_h);
            neg |= neg04<TY>(row_vec<TY, 0>(xr, cb, q.in_w, lw));
            if (ce >= 0 && ce < q.in_w)
                neg |= neg0<TY>(col_word<TY, 0>(xr, ce));
        }
        if (!neg)
            zl = 0;
    }
#pragma unroll 1
    for (unsigned fix = nl | zl; fix != 0; fix &= fix - 1) {
        const int g = __ffs((int)fix) - 1, c0 = 2 * (j0 + g) - pad;
        stf<TY>(yp, g, exact_max<TY>(q, xc, r0 * q.xs_h + c0, win_mask(q, r0, c0)));
    }
}

/* Thread = (plane, i, run t of G = 8 bytes of outputs), t fastest. */
template <int TY, bool NP, int PAD>
__device__ __forceinline__ void lib_nchw_body(const Prob &q, int segs, const void *x, void *y)
{
    constexpr int L = TY == F32 ? 4 : 8, G = L / 2;
    int e = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int t = e % segs;
    e /= segs;
    const int i = e % q.out_h, pl = e / q.out_h;
    if (pl >= q.planes)
        return;
    const int n = pl / q.c, c = pl - n * q.c;
    const void *xc = at<TY>(x, n * q.xs_n + c * q.xs_c);
    const int r0 = 2 * i - q.pad_h, cb = t * L, ce = PAD ? cb - 1 : cb + L;
    const bool wide = q.win_w == 3, xok = (PAD || wide) && ce >= 0 && ce < q.in_w;
    const unsigned lw = lowest_word<TY>();
    uint4 v = make_uint4(lw, lw, lw, lw);
    unsigned xe = lw;
#pragma unroll
    for (int kr = 0; kr < 3; kr++) {
        const int row = r0 + kr;
        if (kr < q.win_h && (unsigned)row < (unsigned)q.in_h) {
            const void *xr = at<TY>(xc, row * q.xs_h);
            v = vmax<TY, NP>(v, row_vec<TY, 0>(xr, cb, q.in_w, lw));
            if (xok)
                xe = mx<TY, NP>(xe, col_word<TY, 0>(xr, ce));
        }
    }
    uint2 o;
    o.x = out_word<TY, NP, 1, PAD>(&v, xe, 0, wide);
    o.y = out_word<TY, NP, 1, PAD>(&v, xe, TY == F32 ? 1 : 2, wide);
    const int j0 = t * G;
    void *yp = atw<TY>(y, n * q.ys_n + c * q.ys_c + i * q.ys_h + j0);
    if (q.yvec && j0 + G <= q.out_w) {
        *(uint2 *)yp = o;
    } else {
        const unsigned w[2] = {o.x, o.y};
#pragma unroll
        for (int g = 0; g < G; g++) {
            if (j0 + g >= q.out_w)
                continue;
            st1<TY>(yp, g, TY == F32 ? w[g] : g & 1 ? w[g >> 1] >> 16 : w[g >> 1]);
        }
    }
    if ((odd<TY>(o.x) | odd<TY>(o.y)) != 0)
        lib_nchw_fix<TY>(q, xc, yp, o, i, j0, PAD);
}

template <int TY>
static __global__ void __launch_bounds__(256, 8)
    lib_nhwc_k(const Prob q, int cvn, const void *x, void *y)
{
    if (q.propagate)
        lib_nhwc_body<TY, true>(q, cvn, x, y);
    else
        lib_nhwc_body<TY, false>(q, cvn, x, y);
}

template <int TY>
static __global__ void __launch_bounds__(256, 8)
    lib_nchw_k(const Prob q, int segs, const void *x, void *y)
{
    if (q.pad_w == 0) {
        if (q.propagate)
            lib_nchw_body<TY, true, 0>(q, segs, x, y);
        else
            lib_nchw_body<TY, false, 0>(q, segs, x, y);
    } else {
        if (q.propagate)
            lib_nchw_body<TY, true, 1>(q, segs, x, y);
        else
            lib_nchw_body<TY, false, 1>(q, segs, x, y);
    }
}

/* ---- W innermost, generic: GB bytes of y a thread, ROWS output rows ------------------------ */

/* The redo of a run's NaN / zero outputs (no -0 pre-test: never reached with these fills). */
template <int TY, int NW>
__device__ __forceinline__ void fix_run(const Prob &q, const void *xc, void *yp, const unsigned *o,
                                        int i, int j0, int pad)
{
    constexpr int G = TY == F32 ? NW : 2 * NW;
    unsigned bad = 0;
#pragma unroll
    for (int g = 0; g < G; g++) {
        const float v = lane<TY>(o, g);
        bad |= (v != v || v == 0.0f) && j0 + g < q.out_w ? 1u << g : 0u;
    }
    const int r0 = 2 * i - q.pad_h;
#pragma unroll 1
    for (; bad != 0; bad &= bad - 1) {
        const int g = __ffs((int)bad) - 1, c0 = 2 * (j0 + g) - pad;
        stf<TY>(yp, g, exact_max<TY>(q, xc, r0 * q.xs_h + c0, win_mask(q, r0, c0)));
    }
}

/* 8 bytes of outputs j0 .. j0 + G8 - 1 (words o0, o1) at yp: one 8-byte store when whole. */
template <int TY, int H>
__device__ __forceinline__ void store8(const Prob &q, void *yp, unsigned o0, unsigned o1, int j0)
{
    constexpr int G8 = TY == F32 ? 2 : 4;
    if (q.yvec && j0 + G8 <= q.out_w) {
        st8<H>(yp, make_uint2(o0, o1));
        return;
    }
    const unsigned w[2] = {o0, o1};
#pragma unroll
    for (int g = 0; g < G8; g++)
        if (j0 + g < q.out_w)
            st1<TY>(yp, g, TY == F32 ? w[g] : g & 1 ? w[g >> 1] >> 16 : w[g >> 1]);
}

/* A run of GB bytes of outputs: one 16-byte store when whole and aligned, else 8-byte halves. */
template <int TY, int GB, int H>
__device__ __forceinline__ void store_run(const Prob &q, void *yp, const unsigned *o, int j0)
{
    constexpr int G8 = TY == F32 ? 2 : 4;
    if constexpr (GB == 16) {
        if (q.yvec && j0 + 2 * G8 <= q.out_w && ((uintptr_t)yp & 15) == 0) {
            st16<H>(yp, make_uint4(o[0], o[1], o[2], o[3]));
            return;
        }
        store8<TY, H>(q, yp, o[0], o[1], j0);
        store8<TY, H>(q, (char *)yp + 8, o[2], o[3], j0 + G8);
    } else {
        store8<TY, H>(q, yp, o[0], o[1], j0);
    }
}

/* The extra column's column max from the neighbouring lane's vectors (the same rows): element
 * L - 1 of lane - 1's last vector (pad 1) or element 0 of lane + 1's first (pad 0). */
template <int TY, int PAD, int NV>
__device__ __forceinline__ unsigned nb_extra(const uint4 *v, unsigned mine, bool take)
{
    const unsigned src = PAD ? v[NV - 1].w : v[0].x;
    unsigned got = PAD ? __shfl_up_sync(FULL_MASK, src, 1) : __shfl_down_sync(FULL_MASK, src, 1);
    if (TY == F16)
        got = __byte_perm(got, 0, PAD ? 0x3232 : 0x1010);
    return take ? got : mine;
}

/* Thread = (plane, row set ib of ROWS output rows, run t of G = GB / sizeof(T) outputs), t
 * fastest (RL: the window-row loop not unrolled). Reads NV = GB / 8 aligned 16-byte vectors of
 * each window row (cols 2 j0 .. 2 j0 + 2 G - 1) and the extra column (2 j0 - 1 for pad 1,
 * 2 j0 + 2 G for pad 0 and windows 3 wide): loaded (SHFL false) or taken from the neighbouring
 * lane's column maxima (SHFL: only lanes 0 / 31 of a warp load it). ROWS 2: the 5 (4) rows of
 * two output rows, the middle one shared. */
template <int TY, int GB, int ROWS, bool SHFL, int H, bool RL, int PAD, bool NP>
__device__ __forceinline__ void nchw_body(const Prob &q, int segs, int rsets, const void *x,
                                          void *y)
{
    constexpr int L = TY == F32 ? 4 : 8, G = GB / (TY == F32 ? 4 : 2), NV = GB / 8, NW = GB / 4;
    constexpr int NR = ROWS == 2 ? 5 : 3;
    int e = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int t = e % segs;
    e /= segs;
    const int ib = e % rsets, pl = e / rsets;
    const bool live = pl < q.planes; /* dead lanes stay for the shuffles */
    if (!SHFL && !live)
        return;
    const int plc = live ? pl : q.planes - 1, n = plc / q.c, c = plc - n * q.c;
    const void *xc = at<TY>(x, n * q.xs_n + c * q.xs_c);
    const int i0 = ib * ROWS, r0 = 2 * i0 - q.pad_h, cb = t * 2 * G;
    const int ce = PAD ? cb - 1 : cb + 2 * G;
    const bool wide = q.win_w == 3, bot = ROWS == 2 && i0 + 1 < q.out_h;
    const bool need_e = (PAD || wide) && ce >= 0 && ce < q.in_w;
    const int lane_id = (int)(threadIdx.x & 31);
    const bool self_e = need_e && (!SHFL || (PAD ? lane_id == 0 : lane_id == 31 || t + 1 >= segs));
    const unsigned lw = lowest_word<TY>();
    uint4 vt[NV], vb[NV];
    unsigned et = lw, eb = lw;
#pragma unroll
    for (int k = 0; k < NV; k++)
        vt[k] = vb[k] = make_uint4(lw, lw, lw, lw);
#pragma unroll(RL ? 1 : NR)
    for (int kr = 0; kr < NR; kr++) {
        const int row = r0 + kr;
        const bool in_t = kr < q.win_h, in_b = bot && kr >= 2 && kr - 2 < q.win_h;
        if (live && (in_t || in_b) && (unsigned)row < (unsigned)q.in_h) {
            const void *xr = at<TY>(xc, row * q.xs_h);
            uint4 r[NV];
#pragma unroll
            for (int k = 0; k < NV; k++)
                r[k] = row_vec<TY, H>(xr, cb + k * L, q.in_w, lw);
            const unsigned xe = self_e ? col_word<TY, H>(xr, ce) : lw;
            if (in_t) {
#pragma unroll
                for (int k = 0; k < NV; k++)
                    vt[k] = vmax<TY, NP>(vt[k], r[k]);
                et = mx<TY, NP>(et, xe);
            }
            if (ROWS == 2 && in_b) {
#pragma unroll
                for (int k = 0; k < NV; k++)
                    vb[k] = vmax<TY, NP>(vb[k], r[k]);
                eb = mx<TY, NP>(eb, xe);
            }
        }
    }
    if constexpr (SHFL) {
        if (PAD || wide) { /* uniform: every lane shuffles */
            et = nb_extra<TY, PAD, NV>(vt, et, need_e && !self_e);
            if constexpr (ROWS == 2)
                eb = nb_extra<TY, PAD, NV>(vb, eb, need_e && !self_e);
        }
    }
    if (!live)
        return;
    const int j0 = t * G;
    unsigned o[NW];
#pragma unroll
    for (int w = 0; w < NW; w++)
        o[w] = out_word<TY, NP, NV, PAD>(vt, et, TY == F32 ? w : 2 * w, wide);
    void *yp = atw<TY>(y, n * q.ys_n + c * q.ys_c + i0 * q.ys_h + j0);
    store_run<TY, GB, H>(q, yp, o, j0);
    unsigned bad = 0;
#pragma unroll
    for (int w = 0; w < NW; w++)
        bad |= odd<TY>(o[w]);
    if (bad != 0)
        fix_run<TY, NW>(q, xc, yp, o, i0, j0, PAD);
    if constexpr (ROWS == 2) {
        if (!bot)
            return;
#pragma unroll
        for (int w = 0; w < NW; w++)
            o[w] = out_word<TY, NP, NV, PAD>(vb, eb, TY == F32 ? w : 2 * w, wide);
        yp = atw<TY>(yp, q.ys_h);
        store_run<TY, GB, H>(q, yp, o, j0);
        bad = 0;
#pragma unroll
        for (int w = 0; w < NW; w++)
            bad |= odd<TY>(o[w]);
        if (bad != 0)
            fix_run<TY, NW>(q, xc, yp, o, i0 + 1, j0, PAD);
    }
}

template <int TY, int GB, int ROWS, bool SHFL, int H, bool RL, int BLOCK, int MINB>
static __global__ void __launch_bounds__(BLOCK, MINB)
    nchw_k(const Prob q, int segs, int rsets, const void *x, void *y)
{
    if (q.pad_w == 0) {
        if (q.propagate)
            nchw_body<TY, GB, ROWS, SHFL, H, RL, 0, true>(q, segs, rsets, x, y);
        else
            nchw_body<TY, GB, ROWS, SHFL, H, RL, 0, false>(q, segs, rsets, x, y);
    } else {
        if (q.propagate)
            nchw_body<TY, GB, ROWS, SHFL, H, RL, 1, true>(q, segs, rsets, x, y);
        else
            nchw_body<TY, GB, ROWS, SHFL, H, RL, 1, false>(q, segs, rsets, x, y);
    }
}

/* ---- W innermost through shared memory: a block per band of output rows of a plane ------- */

/* Block = (plane, band of br output rows): the band's input rows copied once into shared memory
 * (16-byte loads, contiguous across the block: x read 1.0x, not 1.5x), then a thread per 8 bytes
 * of y as v0 reading shared memory. blockDim: br * segs rounded up to a warp (<= 512). */
#define SMEM_BLOCK_MAX 512
template <int TY, int H, int PAD, bool NP>
__device__ __forceinline__ void smem_body(const Prob &q, int segs, int br, int nbands,
                                          const void *x, void *y)
{
    constexpr int L = TY == F32 ? 4 : 8, G = L / 2, U = 4;
    extern __shared__ uint4 sm[];
    const int band = (int)blockIdx.x % nbands, pl = (int)blockIdx.x / nbands;
    const int n = pl / q.c, c = pl - n * q.c;
    const void *xc = at<TY>(x, n * q.xs_n + c * q.xs_c);
    const int i0 = band * br, i1 = min(q.out_h, i0 + br);
    const int rlo = max(0, 2 * i0 - q.pad_h), rhi = min(q.in_h, 2 * (i1 - 1) - q.pad_h + q.win_h);
    const int vpr = (q.in_w + L - 1) / L, nv = (rhi - rlo) * vpr, nt = (int)blockDim.x;
    for (int k0 = (int)threadIdx.x; k0 < nv; k0 += U * nt) {
        uint4 b[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int k = k0 + u * nt, r = k / vpr;
            if (k < nv)
                b[u] = ld16<H>(at<TY>(xc, (rlo + r) * q.xs_h + (k - r * vpr) * L));
        }
#pragma unroll
        for (int u = 0; u < U; u++)
            if (k0 + u * nt < nv)
                sm[k0 + u * nt] = b[u];
    }
    __syncthreads();
    const int it = (int)threadIdx.x;
    if (it >= (i1 - i0) * segs)
        return;
    const int il = it / segs, t = it - il * segs, i = i0 + il;
    const int r0 = 2 * i - q.pad_h, cb = t * L, ce = PAD ? cb - 1 : cb + L;
    const bool wide = q.win_w == 3, xok = (PAD || wide) && ce >= 0 && ce < q.in_w;
    const unsigned lw = lowest_word<TY>();
    uint4 v = make_uint4(lw, lw, lw, lw);
    unsigned xe = lw;
#pragma unroll
    for (int kr = 0; kr < 3; kr++) {
        const int row = r0 + kr;
        if (kr < q.win_h && (unsigned)row < (unsigned)q.in_h) {
            const uint4 *sr = sm + (row - rlo) * vpr;
            uint4 u = make_uint4(lw, lw, lw, lw);
            if (cb + L <= q.in_w) {
                u = sr[t];
            } else if (cb < q.in_w) { /* a partial vector; none past the row's last one */
                const uint4 s = sr[t];
                const unsigned sw[4] = {s.x, s.y, s.z, s.w};
                unsigned w[4] = {lw, lw, lw, lw};
#pragma unroll
                for (int l = 0; l < L; l++) {
                    if (cb + l >= q.in_w)
                        continue;
                    if (TY == F32)
                        w[l] = sw[l];
                    else
                        w[l >> 1] = l & 1 ? (w[l >> 1] & 0xffffu) | (sw[l >> 1] & 0xffff0000u)
                                          : (w[l >> 1] & 0xffff0000u) | (sw[l >> 1] & 0xffffu);
                }
                u = make_uint4(w[0], w[1], w[2], w[3]);
            }
            v = vmax<TY, NP>(v, u);
            if (xok) {
                unsigned ev;
                if (TY == F32) {
                    ev = ((const unsigned *)sr)[ce];
                } else {
                    ev = ((const unsigned short *)sr)[ce];
                    ev |= ev << 16;
                }
                xe = mx<TY, NP>(xe, ev);
            }
        }
    }
    unsigned o[2];
    o[0] = out_word<TY, NP, 1, PAD>(&v, xe, 0, wide);
    o[1] = out_word<TY, NP, 1, PAD>(&v, xe, TY == F32 ? 1 : 2, wide);
    const int j0 = t * G;
    void *yp = atw<TY>(y, n * q.ys_n + c * q.ys_c + i * q.ys_h + j0);
    store8<TY, H>(q, yp, o[0], o[1], j0);
    if ((odd<TY>(o[0]) | odd<TY>(o[1])) != 0)
        fix_run<TY, 2>(q, xc, yp, o, i, j0, PAD);
}

template <int TY, int H>
static __global__ void __launch_bounds__(SMEM_BLOCK_MAX, 2)
    smem_k(const Prob q, int segs, int br, int nbands, const void *x, void *y)
{
    if (q.pad_w == 0) {
        if (q.propagate)
            smem_body<TY, H, 0, true>(q, segs, br, nbands, x, y);
        else
            smem_body<TY, H, 0, false>(q, segs, br, nbands, x, y);
    } else {
        if (q.propagate)
            smem_body<TY, H, 1, true>(q, segs, br, nbands, x, y);
        else
            smem_body<TY, H, 1, false>(q, segs, br, nbands, x, y);
    }
}

/* ---- W innermost through a ring of bulk copies (sm_90): persistent blocks over units of planes */

/* Work unit u of the bulk versions: the pu whole planes p0 = u pu .. (fewer in the last unit when
 * planes % pu != 0), contiguous in x and in y. Returns the unit's plane count. */
__host__ __device__ __forceinline__ int unit_planes(int u, int pu, int planes, int *p0)
{
    *p0 = u * pu;
    return planes - *p0 < pu ? planes - *p0 : pu;
}

/* sm_90 only: mbarrier and 1-D bulk copy (cp.async.bulk) in inline PTX, shared addresses 32-bit. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ unsigned sh_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void mbar_init(uint64_t *b, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(sh_addr(b)), "r"(count)
                 : "memory");
}
/* Orders this thread's earlier generic-proxy shared accesses (and mbarrier.init) before later
 * async-proxy ones (the bulk copy's writes, its complete_tx). */
__device__ __forceinline__ void fence_async_shared()
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
/* One arrival (the barrier's count is 1) that also expects bytes of transactions: the phase
 * completes when the copy has written them all. */
__device__ __forceinline__ void mbar_arrive_tx(uint64_t *b, unsigned bytes)
{
    asm volatile("{\n\t.reg .b64 st;\n\t"
                 "mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n\t}" ::"r"(sh_addr(b)),
                 "r"(bytes)
                 : "memory");
}
/* bytes (a multiple of 16; both addresses 16-byte aligned) from global src to shared dst,
 * completing as transactions on the mbarrier b. */
__device__ __forceinline__ void bulk_g2s(void *dst, const void *src, unsigned bytes, uint64_t *b)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1], %2, [%3];" ::"r"(sh_addr(dst)),
                 "l"(src), "r"(bytes), "r"(sh_addr(b))
                 : "memory");
}
/* Until the phase of parity par of b has completed (acquire: the copy's data is visible). */
__device__ __forceinline__ void mbar_wait(uint64_t *b, unsigned par)
{
    unsigned done;
    do {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(sh_addr(b)), "r"(par)
                     : "memory");
    } while (!done);
}
#endif

/* v0's outputs j0 = t G .. of row i (lib_nchw_body after its index decode) with x's plane read
 * from xc, here a plane of the shared ring (same pitch as in x; generic loads, so row_vec,
 * col_word and lib_nchw_fix serve unchanged: nothing past in_w is read), y's plane at yc. */
template <int TY, bool NP, int PAD>
__device__ __forceinline__ void bulk_out(const Prob &q, const void *xc, void *yc, int i, int t)
{
    constexpr int L = TY == F32 ? 4 : 8, G = L / 2;
    const int r0 = 2 * i - q.pad_h, cb = t * L, ce = PAD ? cb - 1 : cb + L;
    const bool wide = q.win_w == 3, xok = (PAD || wide) && ce >= 0 && ce < q.in_w;
    const unsigned lw = lowest_word<TY>();
    uint4 v = make_uint4(lw, lw, lw, lw);
    unsigned xe = lw;
#pragma unroll
    for (int kr = 0; kr < 3; kr++) {
        const int row = r0 + kr;
        if (kr < q.win_h && (unsigned)row < (unsigned)q.in_h) {
            const void *xr = at<TY>(xc, row * q.xs_h);
            v = vmax<TY, NP>(v, row_vec<TY, 0>(xr, cb, q.in_w, lw));
            if (xok)
                xe = mx<TY, NP>(xe, col_word<TY, 0>(xr, ce));
        }
    }
    uint2 o;
    o.x = out_word<TY, NP, 1, PAD>(&v, xe, 0, wide);
    o.y = out_word<TY, NP, 1, PAD>(&v, xe, TY == F32 ? 1 : 2, wide);
    const int j0 = t * G;
    void *yp = atw<TY>(yc, i * q.ys_h + j0);
    if (q.yvec && j0 + G <= q.out_w) {
        *(uint2 *)yp = o;
    } else {
        const unsigned w[2] = {o.x, o.y};
#pragma unroll
        for (int g = 0; g < G; g++) {
            if (j0 + g >= q.out_w)
                continue;
            st1<TY>(yp, g, TY == F32 ? w[g] : g & 1 ? w[g >> 1] >> 16 : w[g >> 1]);
        }
    }
    if ((odd<TY>(o.x) | odd<TY>(o.y)) != 0)
        lib_nchw_fix<TY>(q, xc, yp, o, i, j0, PAD);
}

/* Persistent block b walks units b, b + gridDim.x, ... (k-th: stage k % S, parity (k / S) & 1).
 * Thread 0 issues each unit as one bulk copy of its planes (pu x planes' bytes, a multiple of 16)
 * into its stage; the first S at the start, then unit k + S into stage k % S once every thread
 * is past unit k (__syncthreads, then the proxy fence: the generic reads of the stage before the
 * async writes into it). Compute: v0's thread per 8 bytes of y over the unit's (plane, output
 * row, run) items, y stored straight to global. */
#define BULK_BLOCK_MAX 512
template <int TY, int S, bool NP, int PAD>
__device__ __forceinline__ void bulk_body(const Prob &q, int pu, int units, int segs, uint64_t *bar,
                                          const void *x, void *y)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int ES = TY == F32 ? 4 : 2;
    extern __shared__ uint4 sm[];
    char *ring = (char *)sm;
    const int pb = q.xs_c * ES, sb = pu * pb, nb = (int)gridDim.x, tid = (int)threadIdx.x;
    const auto issue = [&](int u, int s) {
        int p0;
        const unsigned bytes = (unsigned)(unit_planes(u, pu, q.planes, &p0) * pb);
        mbar_arrive_tx(bar + s, bytes);
        bulk_g2s(ring + s * sb, (const char *)x + (size_t)p0 * pb, bytes, bar + s);
    };
    if (tid == 0) {
#pragma unroll
        for (int s = 0; s < S; s++)
            mbar_init(bar + s, 1);
        fence_async_shared(); /* the initialised barriers visible to the async proxy */
#pragma unroll
        for (int s = 0; s < S; s++)
            if ((int)blockIdx.x + s * nb < units)
                issue((int)blockIdx.x + s * nb, s);
    }
    __syncthreads();
    for (int k = 0, u = (int)blockIdx.x; u < units; k++, u += nb) {
        const int s = k % S;
        mbar_wait(bar + s, (unsigned)(k / S) & 1u);
        int p0;
        const int np = unit_planes(u, pu, q.planes, &p0), items = np * q.out_h * segs;
        const char *xs = ring + s * sb;
        for (int it = tid; it < items; it += (int)blockDim.x) {
            const int r = it / segs, t = it - r * segs, p = r / q.out_h, i = r - p * q.out_h;
            bulk_out<TY, NP, PAD>(q, xs + p * pb, atw<TY>(y, (p0 + p) * q.ys_c), i, t);
        }
        __syncthreads();
        if (tid == 0 && u + S * nb < units) {
            fence_async_shared();
            issue(u + S * nb, s);
        }
    }
#endif
}

/* blockDim <= BULK_BLOCK_MAX; dynamic shared memory S pu planes; the S mbarriers static. */
template <int TY, int S>
static __global__ void __launch_bounds__(BULK_BLOCK_MAX, 2)
    bulk_k(const Prob q, int pu, int units, int segs, const void *x, void *y)
{
    __shared__ uint64_t bar[S];
    if (q.pad_w == 0) {
        if (q.propagate)
            bulk_body<TY, S, true, 0>(q, pu, units, segs, bar, x, y);
        else
            bulk_body<TY, S, false, 0>(q, pu, units, segs, bar, x, y);
    } else {
        if (q.propagate)
            bulk_body<TY, S, true, 1>(q, pu, units, segs, bar, x, y);
        else
            bulk_body<TY, S, false, 1>(q, pu, units, segs, bar, x, y);
    }
}

/* ---- channels-last, generic: CI x CJ outputs a thread, tile order TI ----------------------- */

/* The redo of a 16-byte vector's NaN / zero lanes (no -0 pre-test). */
template <int TY>
__device__ __forceinline__ void fix_vec(const Prob &q, const void *xc, void *yp, const uint4 &m,
                                        int r0, int c0)
{
    constexpr int L = TY == F32 ? 4 : 8;
    const unsigned w[4] = {m.x, m.y, m.z, m.w};
    unsigned bad = 0;
#pragma unroll
    for (int l = 0; l < L; l++) {
        const float v = lane<TY>(w, l);
        bad |= v != v || v == 0.0f ? 1u << l : 0u;
    }
    const int ok = win_mask(q, r0, c0), off = r0 * q.xs_h + c0 * q.xs_w;
#pragma unroll 1
    for (; bad != 0; bad &= bad - 1) {
        const int l = __ffs((int)bad) - 1;
        stf<TY>(yp, l, exact_max<TY>(q, at<TY>(xc, l), off, ok));
    }
}

/* Thread = (n, row tile, j block jb, ti, cv), cv fastest: CI output rows i0 = CI (TI tile + ti)
 * and CJ output columns j0 = CJ jb; the (2 CI + 1) x (2 CJ + 1) cells loaded once each (shared
 * cells serve two outputs). TI > 1: the TI row blocks of a tile are neighbours in thread order
 * (so a block's threads share window rows in L1). RL: the row loop not unrolled (one row's loads
 * at a time). */
template <int TY, int CI, int CJ, int TI, int H, bool RL, bool NP>
__device__ __forceinline__ void nhwc_body(const Prob &q, int cvn, const void *x, void *y)
{
    constexpr int L = TY == F32 ? 4 : 8, NR = 2 * CI + 1, NC = 2 * CJ + 1;
    int e = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int cv = e % cvn;
    e /= cvn;
    int ti = 0;
    if constexpr (TI > 1) {
        ti = e % TI;
        e /= TI;
    }
    const int njb = (q.out_w + CJ - 1) / CJ, jb = e % njb;
    e /= njb;
    const int nib = (q.out_h + CI - 1) / CI, nibt = (nib + TI - 1) / TI;
    const int ib = (e % nibt) * TI + ti, n = e / nibt;
    if (n >= q.planes || ib >= nib)
        return;
    const int i0 = ib * CI, j0 = jb * CJ, vi = min(CI, q.out_h - i0), vj = min(CJ, q.out_w - j0);
    const void *xc = at<TY>(x, n * q.xs_n + cv * L);
    const int r0 = 2 * i0 - q.pad_h, c0 = 2 * j0 - q.pad_w;
    const unsigned lw = lowest_word<TY>();
    uint4 m[CI][CJ];
#pragma unroll
    for (int a = 0; a < CI; a++)
#pragma unroll
        for (int b = 0; b < CJ; b++)
            m[a][b] = make_uint4(lw, lw, lw, lw);
    const int nr = RL && CI == 1 ? q.win_h : NR; /* RL, CI 1: v0 FLOAT's loop */
#pragma unroll(RL ? 1 : NR)
    for (int kr = 0; kr < nr; kr++) {
        const int row = r0 + kr;
        if ((unsigned)row >= (unsigned)q.in_h)
            continue;
#pragma unroll
        for (int kc = 0; kc < NC; kc++) {
            const int col = c0 + kc;
            bool need = false;
#pragma unroll
            for (int a = 0; a < CI; a++)
#pragma unroll
                for (int b = 0; b < CJ; b++)
                    need |= a < vi && b < vj && kr >= 2 * a && kr - 2 * a < q.win_h &&
                            kc >= 2 * b && kc - 2 * b < q.win_w;
            if (!need || (unsigned)col >= (unsigned)q.in_w)
                continue;
            const uint4 u = ld16<H>(at<TY>(xc, row * q.xs_h + col * q.xs_w));
#pragma unroll
            for (int a = 0; a < CI; a++)
#pragma unroll
                for (int b = 0; b < CJ; b++)
                    if (kr >= 2 * a && kr - 2 * a < q.win_h && kc >= 2 * b && kc - 2 * b < q.win_w)
                        m[a][b] = vmax<TY, NP>(m[a][b], u);
        }
    }
#pragma unroll
    for (int a = 0; a < CI; a++)
#pragma unroll
        for (int b = 0; b < CJ; b++) {
            if (a >= vi || b >= vj)
                continue;
            void *yp = atw<TY>(y, n * q.ys_n + (i0 + a) * q.ys_h + (j0 + b) * q.ys_w + cv * L);
            st16<H>(yp, m[a][b]);
            if (odd4<TY>(m[a][b]) != 0)
                fix_vec<TY>(q, xc, yp, m[a][b], r0 + 2 * a, c0 + 2 * b);
        }
}

/* sm_80 only: the FLOAT one-cell kernels with a cache hint spilled 16 bytes at 32 registers. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define NHWC_MINB(m, h) ((h) != 0 && (m) == 8 ? 6 : (m))
#else
#define NHWC_MINB(m, h) (m)
#endif
template <int TY, int CI, int CJ, int TI, int H, bool RL, int BLOCK, int MINB>
static __global__ void __launch_bounds__(BLOCK, NHWC_MINB(MINB, H))
    nhwc_k(const Prob q, int cvn, const void *x, void *y)
{
    if (q.propagate)
        nhwc_body<TY, CI, CJ, TI, H, RL, true>(q, cvn, x, y);
    else
        nhwc_body<TY, CI, CJ, TI, H, RL, false>(q, cvn, x, y);
}

/* ---- baselines: a 16-byte copy of x, and x read with a quarter of it written (the pool's bytes)
 */
static __global__ void copy_k(const uint4 *__restrict__ a, uint4 *__restrict__ b, int nv)
{
    const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < nv)
        b[i] = a[i];
}
static __global__ void rd4wr1_k(const uint4 *__restrict__ a, uint4 *__restrict__ b, int nq)
{
    const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= nq)
        return;
    const uint4 p = a[i], r = a[i + nq], s = a[i + 2 * nq], u = a[i + 3 * nq];
    b[i] = make_uint4(p.x ^ r.x ^ s.x ^ u.x, p.y ^ r.y ^ s.y ^ u.y, p.z ^ r.z ^ s.z ^ u.z,
                      p.w ^ r.w ^ s.w ^ u.w);
}

/* ---- launchers ----------------------------------------------------------------------------- */

typedef void (*launch_t)(const Prob &, const void *, void *, cudaStream_t);

template <int TY>
static void launch_lib_nchw(const Prob &q, const void *x, void *y, cudaStream_t st)
{
    const int G = TY == F32 ? 2 : 4, segs = (q.out_w + G - 1) / G;
    const long long th = (long long)q.planes * q.out_h * segs;
    lib_nchw_k<TY><<<(unsigned)((th + 255) / 256), 256, 0, st>>>(q, segs, x, y);
}
template <int TY>
static void launch_lib_nhwc(const Prob &q, const void *x, void *y, cudaStream_t st)
{
    const int cvn = q.c / (TY == F32 ? 4 : 8);
    const long long th = (long long)q.planes * q.out_h * q.out_w * cvn;
    lib_nhwc_k<TY><<<(unsigned)((th + 255) / 256), 256, 0, st>>>(q, cvn, x, y);
}
template <int TY, int GB, int ROWS, bool SHFL, int H, bool RL, int BLOCK, int MINB>
static void launch_nchw(const Prob &q, const void *x, void *y, cudaStream_t st)
{
    const int G = GB / (TY == F32 ? 4 : 2), segs = (q.out_w + G - 1) / G;
    const int rsets = (q.out_h + ROWS - 1) / ROWS;
    const long long th = (long long)q.planes * rsets * segs;
    nchw_k<TY, GB, ROWS, SHFL, H, RL, BLOCK, MINB>
        <<<(unsigned)((th + BLOCK - 1) / BLOCK), BLOCK, 0, st>>>(q, segs, rsets, x, y);
}
template <int TY, int H>
static void launch_smem(const Prob &q, const void *x, void *y, cudaStream_t st)
{
    const int L = TY == F32 ? 4 : 8, G = L / 2, segs = (q.out_w + G - 1) / G;
    int br = std::max(1, std::min(q.out_h, SMEM_BLOCK_MAX / segs));
    const int nbands = (q.out_h + br - 1) / br;
    br = (q.out_h + nbands - 1) / nbands;
    const int threads = (br * segs + 31) / 32 * 32;
    const int vpr = (q.in_w + L - 1) / L, rows = 2 * (br - 1) + q.win_h;
    smem_k<TY, H><<<(unsigned)(q.planes * nbands), threads, (size_t)rows * vpr * 16, st>>>(
        q, segs, br, nbands, x, y);
}
/* The bulk versions (v14, v15): S stages of the most whole planes that fit in STAGE bytes. */
enum { V14_S = 4, V14_STAGE = 26 * 1024, V15_S = 2, V15_STAGE = 52 * 1024 };
#define BULK_SMEM_MAX (227 * 1024) /* sm_90's dynamic shared memory a block (opt-in) */
/* main sets bulk_timed on the timed problems: a grid of one wave and a note of the launch shape.
 * On the correctness-only ones a single block walks every unit, so the ring wraps around and
 * the short last units come after a wrap (with the full grid no such problem would wrap). */
static bool bulk_timed = false;

/* Planes a unit: the most whole planes of pb bytes in stage bytes, at least 1, at most all. */
static int bulk_pu(int pb, int planes, int stage)
{
    return std::max(1, std::min(planes, stage / pb));
}

/* Why a bulk version can't run the problem (nullptr: it can). A unit is one copy, so x's planes
 * must follow each other (and y's, which it indexes by plane) and be a multiple of 16 bytes
 * (the copy's size and alignment unit); S stages of one plane must fit in shared memory. */
template <int S, int STAGE> static const char *bulk_skip(const Prob &q, int ty, int major)
{
    const long long pb = (long long)q.xs_c * (ty == F32 ? 4 : 2);
    if (major < 9)
        return "needs sm_90 cp.async.bulk";
    if (q.xs_w != 1 || q.xs_c < q.in_h * q.xs_h || q.xs_n != q.c * q.xs_c || q.ys_w != 1 ||
        q.ys_n != q.c * q.ys_c)
        return "planes not contiguous";
    if (pb % 16 != 0)
        return "plane bytes not a multiple of 16";
    if (S * bulk_pu((int)pb, q.planes, STAGE) * pb > BULK_SMEM_MAX)
        return "planes too large for shared memory";
    return nullptr;
}

template <int TY, int ID, int S, int STAGE>
static void launch_bulk(const Prob &q, const void *x, void *y, cudaStream_t st)
{
    const int G = TY == F32 ? 2 : 4, segs = (q.out_w + G - 1) / G;
    const int pb = q.xs_c * (TY == F32 ? 4 : 2);
    const int pu = bulk_pu(pb, q.planes, STAGE), units = (q.planes + pu - 1) / pu;
    const int items = pu * q.out_h * segs, passes = (items + BULK_BLOCK_MAX - 1) / BULK_BLOCK_MAX;
    const int threads = ((items + passes - 1) / passes + 31) / 32 * 32, smem = S * pu * pb;
    /* the attribute and occupancy queries once a shape (so not inside a graph capture) */
    static int c_threads = -1, c_smem = -1, c_grid = 0;
    if (threads != c_threads || smem != c_smem) {
        int sms = 0, per_sm = 0;
        CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        CK(cudaFuncSetAttribute(bulk_k<TY, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bulk_k<TY, S>, threads, smem));
        if (per_sm < 1) {
            fprintf(stderr, "v%d: no block of %d threads, %d B fits an SM\n", ID, threads, smem);
            exit(1);
        }
        c_threads = threads, c_smem = smem, c_grid = per_sm * sms;
        if (bulk_timed)
            printf("# v%d %s: %d planes a unit (%d units), %d stages x %d B, %d threads, %d blocks "
                   "x %d SMs\n",
                   ID, TY == F32 ? "f32" : "f16", pu, units, S, pu * pb, threads, per_sm, sms);
    }
    if (((uintptr_t)x & 15) != 0) {
        fprintf(stderr, "v%d: x not 16-byte aligned\n", ID);
        exit(1);
    }
    const int grid = bulk_timed ? std::min(units, c_grid) : 1;
    bulk_k<TY, S><<<(unsigned)grid, threads, (size_t)smem, st>>>(q, pu, units, segs, x, y);
}
template <int TY, int CI, int CJ, int TI, int H, bool RL, int BLOCK, int MINB>
static void launch_nhwc(const Prob &q, const void *x, void *y, cudaStream_t st)
{
    const int cvn = q.c / (TY == F32 ? 4 : 8);
    const int nib = (q.out_h + CI - 1) / CI, nibt = (nib + TI - 1) / TI;
    const int njb = (q.out_w + CJ - 1) / CJ;
    const long long th = (long long)q.planes * nibt * TI * njb * cvn;
    nhwc_k<TY, CI, CJ, TI, H, RL, BLOCK, MINB>
        <<<(unsigned)((th + BLOCK - 1) / BLOCK), BLOCK, 0, st>>>(q, cvn, x, y);
}

/* ---- versions ------------------------------------------------------------------------------ */

/* skip: why the version can't run a problem on a device of compute capability major (nullptr:
 * it can); the main loop prints a skip line instead of running it. nullptr: runs everything. */
typedef const char *(*skip_t)(const Prob &, int ty, int major);
struct Version {
    int id, layout;
    launch_t f[2]; /* [F32], [F16] */
    const char *what;
    skip_t skip;
};

/* V_NCHW(id, GB, ROWS, SHFL, H, BLOCK, MINB f32, MINB f16, what); V_NCHWR adds RL before BLOCK.
 * V_BULK(id, S, STAGE, what): bulk_k's S stages of at most STAGE bytes.
 * V_NHWC(id, CI, CJ, TI, H, RL for f32, BLOCK, MINB f32, MINB f16, what). */
// clang-format off
#define V_NCHW(id, GB, R, SH, H, B, M32, M16, what) \
    V_NCHWR(id, GB, R, SH, H, false, B, M32, M16, what)
#define V_NCHWR(id, GB, R, SH, H, RL, B, M32, M16, what) \
    {id, NCHW, {launch_nchw<F32, GB, R, SH, H, RL, B, M32>, \
                launch_nchw<F16, GB, R, SH, H, RL, B, M16>}, what, nullptr}
#define V_BULK(id, S, STAGE, what) \
    {id, NCHW, {launch_bulk<F32, id, S, STAGE>, launch_bulk<F16, id, S, STAGE>}, what, \
     bulk_skip<S, STAGE>}
#define V_NHWC(id, CI, CJ, TI, H, RL32, B, M32, M16, what) \
    {id, NHWC, {launch_nhwc<F32, CI, CJ, TI, H, RL32, B, M32>, \
                launch_nhwc<F16, CI, CJ, TI, H, false, B, M16>}, what, nullptr}

static const Version versions[] = {
    {0, NCHW, {launch_lib_nchw<F32>, launch_lib_nchw<F16>}, "library pool_lean_nchw (8 B of y)",
     nullptr},
    {0, NHWC, {launch_lib_nhwc<F32>, launch_lib_nhwc<F16>}, "library pool_lean_nhwc (1 cell)",
     nullptr},
    /* W innermost */
    V_NCHW(1, 8, 1, false, 0, 256, 8, 8, "generic at v0's parameters"),
    V_NCHW(2, 16, 1, false, 0, 256, 6, 5, "16 B of y a thread"),
    V_NCHW(3, 8, 1, true, 0, 256, 8, 8, "8 B of y, extra column by shuffle"),
    V_NCHW(4, 16, 1, true, 0, 256, 5, 5, "16 B of y, extra column by shuffle"),
    V_NCHW(5, 8, 2, true, 0, 256, 5, 6, "8 B of y x 2 rows (5 x rows), shuffle"),
    V_NCHW(6, 16, 2, true, 0, 256, 4, 4, "16 B of y x 2 rows (5 x rows), shuffle"),
    V_NCHW(7, 16, 1, true, HY_CS, 256, 5, 5, "v4 + y st.cs"),
    V_NCHW(8, 16, 1, true, HY_CS | HX_CS, 256, 4, 4, "v4 + x ld.cs + y st.cs"),
    V_NCHW(9, 16, 1, true, HY_CS | HX_NA, 256, 4, 4, "v4 + x ld.nc.L1::no_allocate + y st.cs"),
    V_NCHW(10, 16, 1, true, 0, 128, 10, 10, "v4, blocks of 128"),
    V_NCHW(11, 16, 1, true, 0, 512, 2, 2, "v4, blocks of 512"),
    V_NCHW(12, 8, 1, true, HX_NC, 256, 6, 5, "v3 + x ld.global.nc"),
    {13, NCHW, {launch_smem<F32, 0>, launch_smem<F16, 0>}, "band of rows via shared memory",
     nullptr},
    V_BULK(14, V14_S, V14_STAGE, "persistent, 4 stages of bulk-copied planes (~25 KiB each)"),
    V_BULK(15, V15_S, V15_STAGE, "v14 with 2 stages of twice the planes (the same ring bytes)"),
    /* channels-last */
    V_NHWC(20, 1, 1, 1, 0, true, 256, 8, 8, "generic at v0's parameters"),
    V_NHWC(21, 1, 2, 1, 0, false, 256, 6, 6, "2 output columns (15 loads)"),
    V_NHWC(22, 2, 1, 1, 0, false, 256, 6, 6, "2 output rows (15 loads)"),
    V_NHWC(23, 1, 1, 2, 0, true, 256, 8, 8, "v0 in 2-row tile order"),
    V_NHWC(24, 1, 1, 4, 0, true, 256, 8, 8, "v0 in 4-row tile order"),
    V_NHWC(25, 1, 2, 2, 0, false, 256, 6, 6, "2 columns, 2-row tile order"),
    V_NHWC(26, 1, 1, 1, HY_CS, true, 256, 8, 8, "v20 + y st.cs"),
    V_NHWC(27, 1, 1, 1, HY_CS | HX_CS, true, 256, 8, 8, "v20 + x ld.cs + y st.cs"),
    V_NHWC(28, 1, 1, 1, HX_NC, true, 256, 8, 8, "v20 + x ld.global.nc"),
    V_NHWC(29, 2, 2, 1, 0, false, 256, 5, 5, "2 x 2 outputs (25 loads)"),
    V_NHWC(30, 1, 1, 1, 0, true, 128, 16, 16, "v20, blocks of 128"),
    V_NHWC(31, 1, 2, 1, HY_CS, false, 256, 6, 6, "v21 + y st.cs"),
};
// clang-format on
static const int nversions = (int)(sizeof versions / sizeof versions[0]);

/* ---- host: problems, fills, reference, check, timing --------------------------------------- */

/* fill 0: random finite nonzero bits (the timed problems); 1: small integers with +-0 and NaN
 * (correctness only: the redo paths run; the chains' zero and NaN-ignoring cases). */
struct Spec {
    const char *name;
    int layout, ty, n, c, h, w, win_h, win_w, pad_h, pad_w, timed, fill;
};

// clang-format off
static const Spec specs[] = {
    {"n32c256h56w56", NCHW, F16, 32, 256, 56, 56, 3, 3, 1, 1, 1, 0},
    {"n32c128h56w56", NCHW, F32, 32, 128, 56, 56, 3, 3, 1, 1, 1, 0},
    {"n32c256h56w56", NHWC, F16, 32, 256, 56, 56, 3, 3, 1, 1, 1, 0},
    {"n32c128h56w56", NHWC, F32, 32, 128, 56, 56, 3, 3, 1, 1, 1, 0},
#define ODD(lay, ty)                                                                               \
    {"n2c24h57w55/3x3p1", lay, ty, 2, 24, 57, 55, 3, 3, 1, 1, 0, 0},                               \
        {"n2c24h57w55/2x2p0", lay, ty, 2, 24, 57, 55, 2, 2, 0, 0, 0, 0},                           \
        {"n2c24h57w55/3x3p0", lay, ty, 2, 24, 57, 55, 3, 3, 0, 0, 0, 0},                           \
        {"n2c24h57w55/2x2p1", lay, ty, 2, 24, 57, 55, 2, 2, 1, 1, 0, 0},                           \
        {"n2c24h57w55/3x2p10", lay, ty, 2, 24, 57, 55, 3, 2, 1, 0, 0, 0},                          \
        {"n3c40h20w18/2x3p01", lay, ty, 3, 40, 20, 18, 2, 3, 0, 1, 0, 0},                          \
        {"n1c16h7w9/3x3p1", lay, ty, 1, 16, 7, 9, 3, 3, 1, 1, 0, 0},                               \
        {"n2c8h16w16/2x2p1", lay, ty, 2, 8, 16, 16, 2, 2, 1, 1, 0, 0},                             \
        {"n2c24h57w55/3x3p1/zeros-nan", lay, ty, 2, 24, 57, 55, 3, 3, 1, 1, 0, 1},                 \
        {"n2c24h56w56/3x3p0/zeros-nan", lay, ty, 2, 24, 56, 56, 3, 3, 0, 0, 0, 1},                 \
        {"n2c16h16w16/2x2p1/zeros-nan", lay, ty, 2, 16, 16, 16, 2, 2, 1, 1, 0, 1}
    ODD(NCHW, F32), ODD(NCHW, F16), ODD(NHWC, F32), ODD(NHWC, F16),
#undef ODD
};
// clang-format on

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng()
{ /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The value of the type's bits b as float (HALF widened exactly). */
static float to_float(uint32_t b, int ty)
{
    uint32_t f = b;
    if (ty == F16) {
        const uint32_t s = (b & 0x8000u) << 16, e = (b >> 10) & 0x1fu;
        uint32_t m = b & 0x3ffu;
        if (e == 0x1f) {
            f = s | 0x7f800000u | m << 13;
        } else if (e != 0) {
            f = s | (e + 112) << 23 | m << 13;
        } else if (m == 0) {
            f = s;
        } else { /* subnormal: normalise */
            int k = 0;
            while (!(m & 0x400u))
                m <<= 1, k++;
            f = s | (uint32_t)(113 - k) << 23 | (m & 0x3ffu) << 13;
        }
    }
    float r;
    memcpy(&r, &f, 4);
    return r;
}

/* fill 0: random finite nonzero bits, never the type's largest finite value (the pitch
 * filler); fill 1: +0, -0, two NaNs, -1 .. -4, +1 (zero maxima and NaN cells common). */
static uint32_t rand_bits(int ty, int fill)
{
    if (fill) {
        static const uint32_t v32[8] = {0u,          0x80000000u, 0x7fc00000u, 0xffc00001u,
                                        0xbf800000u, 0xc0000000u, 0xc0800000u, 0x3f800000u};
        static const uint32_t v16[8] = {0u,      0x8000u, 0x7e00u, 0xfe01u,
                                        0xbc00u, 0xc000u, 0xc400u, 0x3c00u};
        static const int pick[16] = {0, 0, 0, 1, 1, 1, 2, 3, 4, 4, 5, 5, 6, 6, 7, 4};
        const int k = pick[rng() % 16];
        return ty == F32 ? v32[k] : v16[k];
    }
    for (;;) {
        const uint32_t r = (uint32_t)rng();
        if (ty == F32) {
            if ((r & 0x7f800000u) != 0x7f800000u && (r & 0x7fffffffu) != 0 &&
                (r & 0x7fffffffu) != 0x7f7fffffu)
                return r;
        } else {
            const uint32_t h = r & 0xffffu;
            if ((h & 0x7c00u) != 0x7c00u && (h & 0x7fffu) != 0 && (h & 0x7fffu) != 0x7bffu)
                return h;
        }
    }
}

static Prob make_prob(const Spec &s)
{
    Prob q;
    memset(&q, 0, sizeof q);
    const int L = s.ty == F32 ? 4 : 8, run = s.ty == F32 ? 2 : 4;
    q.n = s.n, q.c = s.c, q.in_h = s.h, q.in_w = s.w, q.win_h = s.win_h, q.win_w = s.win_w;
    q.pad_h = s.pad_h, q.pad_w = s.pad_w, q.propagate = 0;
    q.out_h = (s.h + 2 * s.pad_h - s.win_h) / 2 + 1;
    q.out_w = (s.w + 2 * s.pad_w - s.win_w) / 2 + 1;
    q.lowest = s.ty == F32 ? -3.402823466e38f : -65504.0f;
    if (s.layout == NCHW) { /* x rows padded to the 16-byte vector (the library requires it) */
        const int pitch = (s.w + L - 1) / L * L;
        q.planes = s.n * s.c;
        q.xs_w = 1, q.xs_h = pitch, q.xs_c = s.h * pitch, q.xs_n = s.c * q.xs_c;
        q.ys_w = 1, q.ys_h = q.out_w, q.ys_c = q.out_h * q.out_w, q.ys_n = s.c * q.ys_c;
        q.yvec = q.ys_h % run == 0 && q.ys_c % run == 0 && q.ys_n % run == 0;
    } else {
        q.planes = s.n;
        q.xs_c = 1, q.xs_w = s.c, q.xs_h = s.w * s.c, q.xs_n = s.h * s.w * s.c;
        q.ys_c = 1, q.ys_w = s.c, q.ys_h = q.out_w * s.c, q.ys_n = q.out_h * q.ys_h;
        q.yvec = 1;
    }
    return q;
}

/* x's bits (pitch padding filled with the largest finite value: a version that reads past a
 * row's end gets it as its max) and the reference y. */
static void make_data(const Spec &s, const Prob &q, std::vector<uint32_t> &x,
                      std::vector<uint32_t> &yref)
{
    const size_t nx = (size_t)s.n * q.xs_n;
    const size_t ny = (size_t)s.n * s.c * q.out_h * q.out_w;
    x.assign(nx, s.ty == F32 ? 0x7f7fffffu : 0x7bffu);
    for (int n = 0; n < s.n; n++)
        for (int c = 0; c < s.c; c++)
            for (int h = 0; h < s.h; h++)
                for (int w = 0; w < s.w; w++)
                    x[(size_t)n * q.xs_n + (size_t)c * q.xs_c + (size_t)h * q.xs_h +
                      (size_t)w * q.xs_w] = rand_bits(s.ty, s.fill);
    yref.assign(ny, 0);
    const uint32_t low = s.ty == F32 ? 0xff7fffffu : 0xfbffu;
    for (int n = 0; n < s.n; n++)
        for (int c = 0; c < s.c; c++)
            for (int i = 0; i < q.out_h; i++)
                for (int j = 0; j < q.out_w; j++) {
                    /* window_max: row-major scan from the lowest finite value, NaN skipped,
                     * the first of equal maxima kept (so the first of +0 / -0) */
                    uint32_t m = low;
                    float mv = to_float(low, s.ty);
                    bool found = false;
                    for (int kr = 0; kr < s.win_h; kr++)
                        for (int kc = 0; kc < s.win_w; kc++) {
                            const int row = 2 * i - s.pad_h + kr, col = 2 * j - s.pad_w + kc;
                            if (row < 0 || row >= s.h || col < 0 || col >= s.w)
                                continue;
                            const uint32_t b = x[(size_t)n * q.xs_n + (size_t)c * q.xs_c +
                                                 (size_t)row * q.xs_h + (size_t)col * q.xs_w];
                            const float e = to_float(b, s.ty);
                            if (e != e)
                                continue;
                            if (found ? e > mv : e >= mv)
                                m = b, mv = e, found = true;
                        }
                    yref[(size_t)n * q.ys_n + (size_t)c * q.ys_c + (size_t)i * q.ys_h +
                         (size_t)j * q.ys_w] = m;
                }
}

static const char *lay_name(int l)
{
    return l == NCHW ? "nchw" : "nhwc";
}
static const char *ty_name(int t)
{
    return t == F32 ? "f32" : "f16";
}

/* Bitwise compare of y (device) against yref; prints the first mismatch. */
static bool check(const Spec &s, const Prob &q, const void *dy, const std::vector<uint32_t> &yref)
{
    const size_t ny = yref.size(), es = s.ty == F32 ? 4 : 2;
    std::vector<unsigned char> h(ny * es);
    CK(cudaMemcpy(h.data(), dy, ny * es, cudaMemcpyDeviceToHost));
    for (int n = 0; n < s.n; n++)
        for (int c = 0; c < s.c; c++)
            for (int i = 0; i < q.out_h; i++)
                for (int j = 0; j < q.out_w; j++) {
                    const size_t k = (size_t)n * q.ys_n + (size_t)c * q.ys_c + (size_t)i * q.ys_h +
                                     (size_t)j * q.ys_w;
                    uint32_t got = 0;
                    memcpy(&got, &h[k * es], es);
                    if (got != yref[k]) {
                        printf("  first mismatch at n %d c %d i %d j %d: got 0x%0*x want 0x%0*x\n",
                               n, c, i, j, (int)(2 * es), got, (int)(2 * es), yref[k]);
                        return false;
                    }
                }
    return true;
}

enum { GRAPH_LAUNCHES = 20, WARMUP = 5, REPS = 20 };

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t k = v.size();
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/* Median microseconds per launch: GRAPH_LAUNCHES launches in one graph, replayed. */
template <typename F> static double time_graph(F launch_once, cudaStream_t st)
{
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    for (int k = 0; k < GRAPH_LAUNCHES; k++)
        launch_once();
    CK(cudaStreamEndCapture(st, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    for (int k = 0; k < WARMUP; k++)
        CK(cudaGraphLaunch(ge, st));
    CK(cudaStreamSynchronize(st));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<double> us;
    for (int k = 0; k < REPS; k++) {
        CK(cudaEventRecord(e0, st));
        CK(cudaGraphLaunch(ge, st));
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        us.push_back(1e3 * ms / GRAPH_LAUNCHES);
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    return median(us);
}

static bool wanted(const std::vector<int> &only, int id)
{
    return only.empty() || std::find(only.begin(), only.end(), id) != only.end();
}

/* Host checks (no GPU needed). The bulk versions' walk as bulk_body does it: block b's k-th unit
 * b + k grid is waited on in stage k % S at parity (k / S) & 1, so it must be the unit issued
 * last into that stage (at the start, or after unit k - S) with k / S phases of the stage done;
 * every plane is copied exactly once, in copies of 16-byte multiples no larger than the stage,
 * and no copy is left in flight. Then the NCHW problems the bulk versions take have 16-byte
 * planes and stages within shared memory. Prints one line (and a line a failure or a skipped
 * problem); false on a failure. */
static bool host_checks()
{
    struct Walk {
        int planes, pu, grid, s;
    };
    /* the timed shapes' walks (264 = 2 blocks x 132 SMs), last units short (planes % pu), fewer
     * units than blocks, units < S grid, one plane */
    static const Walk walks[] = {{8192, 4, 264, 4}, {4096, 2, 264, 4}, {8192, 8, 264, 2},
                                 {4096, 4, 264, 2}, {120, 27, 2, 4},   {1001, 4, 264, 4},
                                 {1001, 8, 7, 2},   {1003, 4, 5, 3},   {5, 8, 3, 4},
                                 {48, 2, 132, 4},   {1, 1, 1, 4}};
    const long long pb = 6272; /* f16 56 x 56 */
    bool ok = true;
    for (const Walk &w : walks) {
        const int units = (w.planes + w.pu - 1) / w.pu;
        std::vector<int> seen(w.planes, 0);
        bool wok = true;
        for (int b = 0; b < w.grid; b++) {
            std::vector<int> inflight(w.s, -1), done(w.s, 0);
            for (int s = 0; s < w.s; s++)
                if (b + s * w.grid < units)
                    inflight[s] = b + s * w.grid;
            for (int k = 0, u = b; u < units; k++, u += w.grid) {
                const int s = k % w.s;
                wok &= inflight[s] == u && done[s] == k / w.s;
                inflight[s] = -1, done[s]++;
                int p0;
                const int np = unit_planes(u, w.pu, w.planes, &p0);
                const bool in = np >= 1 && np <= w.pu && p0 >= 0 && p0 + np <= w.planes;
                wok &= in && np * pb % 16 == 0 && p0 * pb % 16 == 0;
                for (int p = 0; in && p < np; p++)
                    seen[p0 + p]++;
                if (u + w.s * w.grid < units)
                    inflight[s] = u + w.s * w.grid;
            }
            for (int s = 0; s < w.s; s++)
                wok &= inflight[s] == -1;
        }
        for (int p = 0; p < w.planes; p++)
            wok &= seen[p] == 1;
        if (!wok)
            printf("# host check FAIL: bulk walk planes %d, %d a unit, grid %d, %d stages\n",
                   w.planes, w.pu, w.grid, w.s);
        ok &= wok;
    }
    int served = 0, problems = 0;
    std::string timed; /* the timed problems' stages */
    for (const Spec &sp : specs) {
        if (sp.layout != NCHW)
            continue;
        const Prob q = make_prob(sp);
        const long long b = (long long)q.xs_c * (sp.ty == F32 ? 4 : 2);
        const int ss[2] = {V14_S, V15_S}, stage[2] = {V14_STAGE, V15_STAGE};
        const char *why[2] = {bulk_skip<V14_S, V14_STAGE>(q, sp.ty, 9),
                              bulk_skip<V15_S, V15_STAGE>(q, sp.ty, 9)};
        problems++;
        for (int v = 0; v < 2; v++) {
            if (why[v] != nullptr) {
                printf("# host note: v%d skips nchw %s %s (%s)\n", 14 + v, ty_name(sp.ty), sp.name,
                       why[v]);
                continue;
            }
            served++;
            const int pu = bulk_pu((int)b, q.planes, stage[v]);
            const long long sb = pu * b;
            const bool sok = b % 16 == 0 && sb % 16 == 0 && ss[v] * sb <= BULK_SMEM_MAX;
            if (!sok)
                printf("# host check FAIL: v%d nchw %s %s: plane %lld B, stage %lld B\n", 14 + v,
                       ty_name(sp.ty), sp.name, b, sb);
            ok &= sok;
            if (sp.timed) {
                char t[96];
                snprintf(t, sizeof t, "%sv%d %s %d stages of %d x %lld B",
                         timed.empty() ? "" : ", ", 14 + v, ty_name(sp.ty), ss[v], pu, b);
                timed += t;
            }
        }
    }
    printf("# host checks %s: bulk walk (%d cases), bulk stages (%d of %d version x NCHW problem "
           "served; planes, stages 16-byte multiples, S stages <= %d B; timed: %s)\n",
           ok ? "ok" : "FAIL", (int)(sizeof walks / sizeof walks[0]), served, 2 * problems,
           BULK_SMEM_MAX, timed.c_str());
    return ok;
}

int main(int argc, char **argv)
{
    std::vector<int> only;
    bool check_only = false;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--only") && a + 1 < argc) {
            for (char *p = argv[++a]; *p;) { /* v3 or 3, comma-separated */
                if (*p == 'v' || *p == ',') {
                    p++;
                    continue;
                }
                char *end;
                only.push_back((int)strtol(p, &end, 10));
                if (end == p) {
                    fprintf(stderr, "--only: bad version list '%s'\n", argv[a]);
                    return 2;
                }
                p = end;
            }
        } else if (!strcmp(argv[a], "--check")) {
            check_only = true;
        } else {
            fprintf(stderr, "usage: %s [--only vN[,vM...]] [--check]\n", argv[0]);
            return 2;
        }
    }
    if (!host_checks())
        return 1;
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("no GPU\n");
        return 77;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("# %s, sm_%d%d, %d SMs, L2 %d MB; GB/s = (x + y bytes) / time; %d launches a graph, "
           "median of %d replays\n",
           prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.l2CacheSize >> 20,
           GRAPH_LAUNCHES, REPS);
    printf("# version layout dtype problem us GB/s status\n");
    cudaStream_t st;
    CK(cudaStreamCreate(&st)); /* blocking: ordered after the synchronous copies */
    int fails = 0;
    std::vector<std::array<int, 2>> odd_fail(nversions, {0, 0}), odd_seen(nversions, {0, 0});
    std::vector<std::array<int, 2>> odd_skip(nversions, {0, 0});
    for (const Spec &s : specs) {
        const Prob q = make_prob(s);
        std::vector<uint32_t> hx, yref;
        make_data(s, q, hx, yref);
        const size_t es = s.ty == F32 ? 4 : 2, nx = hx.size(), ny = yref.size();
        std::vector<unsigned char> xb(nx * es);
        for (size_t k = 0; k < nx; k++)
            memcpy(&xb[k * es], &hx[k], es);
        void *dx, *dy;
        CK(cudaMalloc(&dx, nx * es));
        CK(cudaMalloc(&dy, ny * es));
        CK(cudaMemcpy(dx, xb.data(), nx * es, cudaMemcpyHostToDevice));
        CK(cudaDeviceSynchronize());
        const double bytes = (double)es * ((double)s.n * s.c * s.h * s.w + (double)ny);
        if (s.timed && !check_only && only.empty()) { /* the card's ceiling on this buffer */
            void *dz;
            CK(cudaMalloc(&dz, nx * es));
            const int nv = (int)(nx * es / 16), nq = nv / 4;
            const double tc = time_graph(
                [&] {
                    copy_k<<<(nv + 255) / 256, 256, 0, st>>>((const uint4 *)dx, (uint4 *)dz, nv);
                },
                st);
            printf("copy   %s %s %s %8.2f %7.0f -\n", lay_name(s.layout), ty_name(s.ty), s.name, tc,
                   2.0 * nx * es / tc * 1e-3);
            const double tr = time_graph(
                [&] {
                    rd4wr1_k<<<(nq + 255) / 256, 256, 0, st>>>((const uint4 *)dx, (uint4 *)dz, nq);
                },
                st);
            printf("rd4wr1 %s %s %s %8.2f %7.0f -\n", lay_name(s.layout), ty_name(s.ty), s.name, tr,
                   1.25 * nx * es / tr * 1e-3);
            CK(cudaFree(dz));
        }
        for (const Version &v : versions) {
            if (v.layout != s.layout || !wanted(only, v.id))
                continue;
            const launch_t f = v.f[s.ty];
            char tag[16];
            snprintf(tag, sizeof tag, "v%d", v.id);
            const char *why = v.skip ? v.skip(q, s.ty, prop.major) : nullptr;
            if (why != nullptr) { /* the version doesn't serve this problem / device */
                if (!s.timed)
                    odd_skip[&v - versions][s.ty]++;
                printf("%-6s %s %s %s - - skip (%s)\n", tag, lay_name(s.layout), ty_name(s.ty),
                       s.name, why);
                continue;
            }
            bulk_timed = s.timed != 0;
            CK(cudaMemsetAsync(dy, 0xff, ny * es, st)); /* NaN: an unwritten output fails */
            f(q, dx, dy, st);
            CK(cudaGetLastError());
            CK(cudaStreamSynchronize(st));
            const bool ok = check(s, q, dy, yref);
            fails += !ok;
            if (!s.timed) { /* odd shapes: a FAIL line now, a summary line a version at the end */
                odd_fail[&v - versions][s.ty] += !ok;
                odd_seen[&v - versions][s.ty]++;
                if (!ok)
                    printf("%-6s %s %s %s - - FAIL\n", tag, lay_name(s.layout), ty_name(s.ty),
                           s.name);
                continue;
            }
            if (check_only) {
                printf("%-6s %s %s %s - - %s\n", tag, lay_name(s.layout), ty_name(s.ty), s.name,
                       ok ? "ok" : "FAIL");
                continue;
            }
            const double us = time_graph([&] { f(q, dx, dy, st); }, st);
            CK(cudaGetLastError());
            printf("%-6s %s %s %s %8.2f %7.0f %s\n", tag, lay_name(s.layout), ty_name(s.ty), s.name,
                   us, bytes / us * 1e-3, ok ? "ok" : "FAIL");
        }
        fflush(stdout);
        CK(cudaFree(dx));
        CK(cudaFree(dy));
    }
    for (int k = 0; k < nversions; k++)
        for (int ty = 0; ty < 2; ty++)
            if (odd_seen[k][ty] || odd_skip[k][ty]) { /* skip: none of them run */
                const char *res = odd_fail[k][ty] ? "FAIL" : odd_seen[k][ty] ? "ok" : "skip";
                printf("v%-5d %s %s odd-shapes(%d) - - %s\n", versions[k].id,
                       lay_name(versions[k].layout), ty_name(ty), odd_seen[k][ty], res);
            }
    printf("# %d failure(s)\n", fails);
    return fails ? 1 : 0;
}
