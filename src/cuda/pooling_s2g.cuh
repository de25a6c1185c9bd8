/* SPDX-License-Identifier: MIT */
/*
 * pooling_s2g.cuh - max-pool backward of ResNet's 3x3 / 2 pad 1 window as a gather: W innermost
 * for FLOAT (FREEDNN_GPU_BW3) and HALF / BFLOAT16 (FREEDNN_GPU_BW5), channels-last for FLOAT,
 * HALF, BFLOAT16 (FREEDNN_GPU_BW5, the second part of this file). pooling.cu includes it once,
 * after the stamped kernels; pool_s2g_ok / pool_s2g_nhwc_ok decide. The H-sweep (pool_s2_bwd /
 * _occ) ran 0.65x NVIDIA's rate on the H200 for FLOAT (1334 vs 2041 GB/s, 2026-12-01) whatever
 * its occupancy or look-ahead: each step waits on its loads, its scalar loads and stores touch
 * every other element of a row per instruction.
 *
 * Decisions:
 * - One thread per 2 x 4 block of dx: rows 2t, 2t + 1 and the 16-byte vector of columns
 *   4m .. 4m + 3, no loop and no state shared between threads but the shuffles below, so every
 *   load of a thread is in flight at once and a warp stores 2 x 512 contiguous bytes.
 * - With stride 2, window 3 and pad 1, window row i covers dx rows 2i - 1 .. 2i + 1: rows 2t and
 *   2t + 1 lie in window rows t and t + 1 only, columns 4m .. 4m + 3 in window columns 2m,
 *   2m + 1, 2m + 2. The thread evaluates those six windows from x rows 2t - 1 .. 2t + 3 and
 *   columns 4m - 1 .. 4m + 5 (its own aligned vector; column 4m - 1 from the lane to its left,
 *   4m + 4 and 4m + 5 from the lane to its right by shuffles; the warp's end lanes load them):
 *   windows are evaluated up to twice per row and 1.5 times per column across threads (compute
 *   is cheap here: the kernel reads x once from DRAM, the rest from L1 / registers).
 * - Each window's argmax is window_max's (first max, PROPAGATE_NAN's first NaN, unreadable
 *   cells skipped, -1 when nothing is found) by a branch-free chain (pool_s2g_code) over cells
 *   that hold -inf where they lie outside x (which the chain never picks: no masks, and the
 *   border lanes of a warp run no second path). Each dx cell adds the dy of the windows
 *   routing to it in ascending (i, j) order, in double from 0.0, then the alpha / beta blend:
 *   src/ref's sums, the same bits.
 * - Rows need x's and dx's 16-byte alignment (pool_s2g_ok); a row's last vector when W is not a
 *   multiple of 4 is read and written per element (nothing past the row is touched).
 * - HALF / BFLOAT16 (FREEDNN_GPU_BW5; pool_s2_bwd_occ ran 0.89x NVIDIA's rate for f16 n32 C 256
 *   56 x 56 on the H200, 683 vs 771 GB/s, 2026-12-01): the same code on 4 elements a lane (one
 *   8-byte load a row, widened to float: comparisons and dy exact), rows 8-byte aligned; the
 *   argmaxes of windows (t, j) and (t + 1, j) as the two lanes of one packed chain
 *   (pool_s2g_code2 on the cells packed back to 16-bit pairs: ~39 instructions for the two
 *   against ~54). Kept at 4 elements, not 8: the instructions per element are the chains' and
 *   the routing's whatever the width, and 8 would double the registers of x; a warp still
 *   moves 2 x 256 contiguous bytes of dx. Expected: near FLOAT's elements per second (half
 *   the bytes), ~1 TB/s (1.3x NVIDIA), not measured yet.
 */

/* Blocks of 256 an SM: 4 (64 registers, 0 spills, sm_80 / sm_90: 1024 threads an SM; the
 * HALF / BFLOAT16 kernels 64); pool_s2g_max_bwd3_f32 (FREEDNN_GPU_BW3_S2G_MINB=3, for the
 * A/B) 3 (70 registers). */
#define POOL_S2G_MINB 4
#define POOL_S2G_MINB3 3
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

/* fd_cuda_blend of element i of p. */
static __device__ __forceinline__ void pool_s2g_blend1(void *p, int i, double alpha, double beta,
                                                       double v, const int ty)
{
    if (ty == POOL_S2G_F32)
        fd_cuda_blend((float *)p, i, alpha, beta, v);
    else if (ty == POOL_S2G_F16)
        fd_cuda_blend((__half *)p, i, alpha, beta, v);
    else
        fd_cuda_blend((__nv_bfloat16 *)p, i, alpha, beta, v);
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

/* The loads of one x row (rok: the row is readable and the thread live): its vector at column
 * c0 = 4m (16 bytes of FLOAT, 8 of a 16-bit type; per element in the row's partial last vector)
 * and the end lanes' neighbours hl (column c0 - 1, lane 0) and hr (c0 + 4, c0 + 5, lane 31);
 * cells outside x hold -inf. */
static __device__ __forceinline__ void pool_s2g_load(const void *xr, bool rok, int c0, int in_w,
                                                     int lane, float4 *o, float *hl, float2 *hr,
                                                     const int ty)
{
    const float ni = POOL_S2G_NINF;
    *o = make_float4(ni, ni, ni, ni);
    *hl = ni;
    *hr = make_float2(ni, ni);
    if (!rok)
        return;
    if (c0 + 3 < in_w) {
        if (ty == POOL_S2G_F32) {
            *o = *(const float4 *)pool_s2g_at(xr, c0, ty);
        } else {
            const uint2 u = *(const uint2 *)pool_s2g_at(xr, c0, ty);
            *o = make_float4(pool_s2g_w16(u.x, 0, ty), pool_s2g_w16(u.x, 1, ty),
                             pool_s2g_w16(u.y, 0, ty), pool_s2g_w16(u.y, 1, ty));
        }
    } else {
        o->x = pool_s2g_ld(xr, c0, ty); /* c0 < in_w: the thread's group exists */
        if (c0 + 1 < in_w)
            o->y = pool_s2g_ld(xr, c0 + 1, ty);
        if (c0 + 2 < in_w)
            o->z = pool_s2g_ld(xr, c0 + 2, ty);
    }
    if (lane == 0 && c0 > 0)
        *hl = pool_s2g_ld(xr, c0 - 1, ty);
    if (lane == 31 && c0 + 4 < in_w) {
        hr->x = pool_s2g_ld(xr, c0 + 4, ty);
        if (c0 + 5 < in_w)
            hr->y = pool_s2g_ld(xr, c0 + 5, ty);
    }
}

/* x row at columns 4m - 1 .. 4m + 5 into v[0..6] from the row's vector o (pool_s2g_load) and
 * the neighbours' by shuffles (the end lanes' own loads hl, hr); a neighbour's cell outside the
 * row (the lane to the left or right holds another row) is -inf. */
static __device__ __forceinline__ void pool_s2g_cols(const float4 &o, float hl, float2 hr, int lane,
                                                     int c0, int in_w, float *v)
{
    const float l = __shfl_up_sync(POOL_S2_FULL, o.w, 1);
    const float r0 = __shfl_down_sync(POOL_S2_FULL, o.x, 1);
    const float r1 = __shfl_down_sync(POOL_S2_FULL, o.y, 1);
    v[0] = c0 == 0 ? POOL_S2G_NINF : lane == 0 ? hl : l;
    v[1] = o.x, v[2] = o.y, v[3] = o.z, v[4] = o.w;
    v[5] = c0 + 4 >= in_w ? POOL_S2G_NINF : lane == 31 ? hr.x : r0;
    v[6] = c0 + 5 >= in_w ? POOL_S2G_NINF : lane == 31 ? hr.y : r1;
}

/* dx = alpha * acc + beta * dx (fd_cuda_blend's rule and roundings) for a whole vector of 4
 * (16 bytes of FLOAT, 8 of a 16-bit type). */
static __device__ __forceinline__ void pool_s2g_store4(void *p, double alpha, double beta,
                                                       const double *acc, const int ty)
{
    float ov[4] = {0.f, 0.f, 0.f, 0.f};
    if (beta != 0.0) {
        if (ty == POOL_S2G_F32) {
            const float4 old = *(const float4 *)p;
            ov[0] = old.x, ov[1] = old.y, ov[2] = old.z, ov[3] = old.w;
        } else {
            const uint2 u = *(const uint2 *)p;
#pragma unroll
            for (int b = 0; b < 4; b++)
                ov[b] = pool_s2g_w16(b < 2 ? u.x : u.y, b, ty);
        }
    }
    unsigned r[4];
#pragma unroll
    for (int b = 0; b < 4; b++) {
        double s = __dmul_rn(alpha, acc[b]);
        if (beta != 0.0)
            s = __dadd_rn(s, __dmul_rn(beta, (double)ov[b]));
        r[b] = pool_s2g_bits(s, ty);
    }
    if (ty == POOL_S2G_F32)
        *(uint4 *)p = make_uint4(r[0], r[1], r[2], r[3]);
    else
        *(uint2 *)p = make_uint2(r[0] | r[1] << 16, r[2] | r[3] << 16);
}

/* Thread e: column group m = e % groups, row pair t, plane; lanes along m. Threads past the
 * last plane load nothing and store nothing but take part in the shuffles. */
static __device__ __forceinline__ void pool_s2g_body(const pool_s2_t &q, int groups, int pairs,
                                                     const void *xv, const void *dyv, void *dxv,
                                                     double alpha, double beta, const int ty)
{
    const int lane = (int)(threadIdx.x & 31);
    const int e = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int m = e % groups, r = e / groups, t = r % pairs, pl0 = r / pairs;
    const bool live = pl0 < q.planes;
    const int pl = live ? pl0 : 0;
    const int n = pl / q.c, c = pl - n * q.c;
    const void *xc = pool_s2g_at(xv, n * q.xs_n + c * q.xs_c, ty);
    const void *dyc = pool_s2g_at(dyv, n * q.gs_n + c * q.gs_c, ty);
    void *dxc = pool_s2g_atw(dxv, n * q.ds_n + c * q.ds_c, ty);
    const int c0 = 4 * m, x0 = 2 * t - 1; /* x row of image row 0 */

    /* every load first: five x rows, six dy */
    float4 o[5];
    float hl[5];
    float2 hr[5];
#pragma unroll
    for (int k = 0; k < 5; k++) {
        const int row = x0 + k;
        const bool rok = live && row >= 0 && row < q.in_h;
        pool_s2g_load(pool_s2g_at(xc, rok ? row * q.xs_h : 0, ty), rok, c0, q.in_w, lane, &o[k],
                      &hl[k], &hr[k], ty);
    }
    float g[2][3];
    bool wok[2][3];
#pragma unroll
    for (int di = 0; di < 2; di++)
#pragma unroll
        for (int dj = 0; dj < 3; dj++) {
            const int i = t + di, j = 2 * m + dj;
            wok[di][dj] = live && i < q.out_h && j < q.out_w;
            g[di][dj] = wok[di][dj] ? pool_s2g_ld(dyc, i * q.gs_h + j * q.gs_w, ty) : 0.f;
        }

    float v[5][7]; /* x rows 2t - 1 .. 2t + 3, columns 4m - 1 .. 4m + 5 */
#pragma unroll
    for (int k = 0; k < 5; k++)
        pool_s2g_cols(o[k], hl[k], hr[k], lane, c0, q.in_w, v[k]);

    int code[2][3];
#pragma unroll
    for (int dj = 0; dj < 3 && ty != POOL_S2G_F32; dj++) {
        /* 16-bit: windows (t, 2m + dj) and (t + 1, 2m + dj) as the lanes of one packed chain */
        unsigned c[9];
#pragma unroll
        for (int k = 0; k < 9; k++)
            c[k] = pool_s2g_pack2(v[k / 3][2 * dj + k % 3], v[2 + k / 3][2 * dj + k % 3], ty);
        const unsigned cd =
            q.propagate ? pool_s2g_code2(c, true, ty) : pool_s2g_code2(c, false, ty);
        code[0][dj] = wok[0][dj] ? (int)(cd & 15u) - 1 : -1;
        code[1][dj] = wok[1][dj] ? (int)(cd >> 16) - 1 : -1;
    }
#pragma unroll
    for (int di = 0; di < 2 && ty == POOL_S2G_F32; di++)
#pragma unroll
        for (int dj = 0; dj < 3; dj++) {
            float img[9];
#pragma unroll
            for (int rr = 0; rr < 3; rr++)
#pragma unroll
                for (int cc = 0; cc < 3; cc++)
                    img[3 * rr + cc] = v[2 * di + rr][2 * dj + cc];
            code[di][dj] = wok[di][dj] ? pool_s2g_code(img, q.propagate) : -1;
        }

#pragma unroll
    for (int a = 0; a < 2; a++) {
        /* dx row 2t + a is image row a + 1, column 4m + b image column b + 1 */
        const int row = 2 * t + a;
        if (!live || row >= q.in_h)
            continue;
        double acc[4];
#pragma unroll
        for (int b = 0; b < 4; b++) {
            acc[b] = 0.0;
#pragma unroll
            for (int di = 0; di < 2; di++)
#pragma unroll
                for (int dj = 0; dj < 3; dj++) {
                    const int rr = a + 1 - 2 * di, cc = b + 1 - 2 * dj;
                    if (rr >= 0 && rr < 3 && cc >= 0 && cc < 3 && code[di][dj] == 3 * rr + cc)
                        acc[b] += (double)g[di][dj];
                }
        }
        void *p = pool_s2g_atw(dxc, row * q.ds_h + c0, ty);
        if (c0 + 3 < q.in_w) {
            pool_s2g_store4(p, alpha, beta, acc, ty);
        } else {
#pragma unroll
            for (int b = 0; b < 4; b++)
                if (c0 + b < q.in_w)
                    pool_s2g_blend1(p, b, alpha, beta, acc[b], ty);
        }
    }
}

/* The W-innermost gather kernels: pool_s2g_max_bwd_f32, pool_s2g_max_bwd3_f32 (the 3 blocks
 * an SM A/B), HALF / BFLOAT16 (FREEDNN_GPU_BW5: 4 elements = 8 bytes a row per lane, the same
 * code). */
#define POOL_S2G_KERNEL(name, minb, ty)                                                            \
    static __global__ void __launch_bounds__(FD_CUDA_BLOCK, minb)                                  \
        name(const pool_s2_t q, int groups, int pairs, const void *xv, const void *dyv,            \
             void *dxv, double alpha, double beta)                                                 \
    {                                                                                              \
        pool_s2g_body(q, groups, pairs, xv, dyv, dxv, alpha, beta, ty);                            \
    }
POOL_S2G_KERNEL(pool_s2g_max_bwd_f32, POOL_S2G_MINB, POOL_S2G_F32)
POOL_S2G_KERNEL(pool_s2g_max_bwd3_f32, POOL_S2G_MINB3, POOL_S2G_F32)
POOL_S2G_KERNEL(pool_s2g_max_bwd_f16, POOL_S2G_MINB, POOL_S2G_F16)
POOL_S2G_KERNEL(pool_s2g_max_bwd_bf16, POOL_S2G_MINB, POOL_S2G_BF16)
#undef POOL_S2G_KERNEL

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
POOL_S2G_NHWC_KERNEL(pool_s2g_max_bwd_nhwc_f32, POOL_S2G_F32)
POOL_S2G_NHWC_KERNEL(pool_s2g_max_bwd_nhwc_f16, POOL_S2G_F16)
POOL_S2G_NHWC_KERNEL(pool_s2g_max_bwd_nhwc_bf16, POOL_S2G_BF16)
#undef POOL_S2G_NHWC_KERNEL
