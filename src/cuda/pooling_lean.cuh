/* SPDX-License-Identifier: MIT */
/*
 * pooling_lean.cuh - the lean max-pool forward of stride 2 (FREEDNN_GPU_POOL_LEAN, default on,
 * 2026-12-02): MAX / MAX_DETERMINISTIC, both NaN options, windows of 2 or 3 in H and W, pad 0
 * or 1, alpha 1, beta 0, FLOAT / HALF / BFLOAT16, 16-byte aligned rows (NCHW-like) or channel
 * vectors (NHWC-like). pooling.cu includes it once, after pooling_avgv.cuh (whose item helper it
 * uses) and pooling_s2g.cuh (lane helpers); pool_lean_ok decides.
 *
 * Why: the sweeps pool_s2_max_fwd_vec (channels-last) and pool_s2_max_fwd_rows (W innermost)
 * keep a loop-carried window row and the next step's loads in registers: 54-110 registers,
 * 2-4 blocks of 256 an SM, and the H200 ran them at f16 / f32 NCHW 1610 / ~2800 GB/s and NHWC
 * 2820 / 3253 GB/s (n32 c256 / c128 56 x 56, 3x3 / 2 pad 1). The lean tensor, activation and
 * batch-norm kernels of the same days reached 3.6-4.1 TB/s with one 16-byte vector a thread,
 * a grid covering the tensor and only the common case's code (act_fwd_lean in
 * activation_kernels.cuh): this is that shape for the pooling forward.
 *
 * Decisions:
 * - Channels-last (pool_lean_nhwc_*): a thread per 16-byte channel vector of y (n, i, j,
 *   vector; the vector fastest, so a warp reads and writes 512 contiguous bytes a cell), the up
 *   to 9 cells of its window loaded as 16-byte vectors (the overlap with the neighbouring
 *   windows is served by L1 / L2), one 16-byte store.
 * - W innermost (pool_lean_nchw_*): a thread per G = 8 / sizeof(T) consecutive outputs of a y
 *   row (2 floats, 4 halves: one 8-byte store), which read the x columns 2 j0 .. 2 j0 + 2 G - 1
 *   (one aligned 16-byte vector a window row: 2 or 3 loads) plus one extra column, 2 j0 - 1 for
 *   pad 1, 2 j0 + 2 G for pad 0 and windows 3 wide (a scalar load a window row: it lies in the
 *   sector the neighbouring thread loads, so an L1 hit or the same miss). A row's last vector
 *   past the row's end is read per element (nothing past in_w is touched).
 * - Values: lane-wise max chains from the type's lowest finite value (window_max's start, so
 *   an all -inf, all NaN or empty window gives it too), cells outside x skipped; max.f32 /
 *   max.f16x2 / max.bf16x2 (NaN-ignoring), max.NaN with PROPAGATE_NAN. A max is one of its
 *   operands, so a result that is neither NaN nor zero is window_max's value with its only
 *   encoding: the same bits. The W-innermost kernel takes the column maxima first and then the
 *   windows' (the same set of cells, so the same value). A NaN result (only with PROPAGATE_NAN:
 *   window_max returns the first NaN's payload) or a zero result when some cell the thread read
 *   is -0 (the first zero in scan order wins; without a -0 every zero is +0) is redone by the
 *   exact scan (pool_lean_exact: s2_max's rule and order on the cells read again) and stored
 *   over the vector store as fd_cuda_blend stores it with alpha 1, beta 0 (pool_s2_max_fwd_vec
 *   and pool_s2_max_fwd_rows's expression): the same bits as those kernels in every case.
 * - No blend code: alpha 1 and beta 0, so the max (an input value) is stored as is.
 * - 32-bit index math: pool_s2_ok bounded every offset below 2^31 - 64, pool_lean_ok the
 *   threads below 2^31 - 256. One thread an item, no loop, no shared memory.
 * ptxas (CUDA 13, 0 spills, <= 32 registers) at POOL_LEAN_MINB blocks of 256 an SM: see the
 * define below.
 */

/* FREEDNN_GPU_POOL_LEAN=0 keeps these calls on pool_s2_max_fwd_vec / pool_s2_max_fwd_rows;
 * read once per process (a function-local static). */
static int pool_lean_on(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_POOL_LEAN");
    return on;
}

/* Channels-last threads walk tiles of 1 << lg output rows (pool_lean_nhwc_body); default 0, row
 * by row. FREEDNN_GPU_POOL_TILE_ROWS (1, 2, 4 or 8; read once) sets the rows. dev/pool_fwd on the
 * H200 (3x3 / 2 pad 1, n32 56 x 56, 2026-12-03) had f16 c256 3319 -> 3607 GB/s with 4-row tiles,
 * but dnnbench, which rotates buffer sets, measured 3243 -> 3256 (the sandbox's gain was L2
 * holding part of its one input between calls), so the default stays row by row. */
static int pool_lean_tile_lg(void)
{
    static const long rows = fd_env_long("FREEDNN_GPU_POOL_TILE_ROWS", 0, 8, 0);
    return rows >= 8 ? 3 : rows >= 4 ? 2 : rows >= 2 ? 1 : 0;
}

/* A word of the type's lowest finite value in every lane (window_max's start value). */
static __device__ __forceinline__ unsigned pool_lean_low(const int ty)
{
    return ty == POOL_S2G_F32 ? 0xff7fffffu : ty == POOL_S2G_F16 ? 0xfbfffbffu : 0xff7fff7fu;
}

/* Lane-wise max of two words (NaN-ignoring; nan: NaN-propagating), pool_vmax16's ops. */
static __device__ __forceinline__ unsigned pool_lean_max(unsigned a, unsigned b, const bool nan,
                                                         const int ty)
{
    if (ty == POOL_S2G_F32) {
        const float x = __uint_as_float(a), y = __uint_as_float(b);
        return __float_as_uint(nan ? pool_fmax_nan(x, y) : fmaxf(x, y));
    }
    return pool_s2g_max2(a, b, nan, ty);
}

static __device__ __forceinline__ uint4 pool_lean_vmax(const uint4 &a, const uint4 &b,
                                                       const bool nan, const int ty)
{
    return make_uint4(pool_lean_max(a.x, b.x, nan, ty), pool_lean_max(a.y, b.y, nan, ty),
                      pool_lean_max(a.z, b.z, nan, ty), pool_lean_max(a.w, b.w, nan, ty));
}

/* Nonzero when a lane of w is NaN or zero (a result the chains may not have exactly). */
static __device__ __forceinline__ unsigned pool_lean_odd(unsigned w, const int ty)
{
    if (ty == POOL_S2G_F32)
        return !(fabsf(__uint_as_float(w)) > 0.0f);
    if (ty == POOL_S2G_F16) {
        __half2 x;
        memcpy(&x, &w, 4);
        return __hequ2_mask(x, __float2half2_rn(0.0f));
    }
    __nv_bfloat162 x;
    memcpy(&x, &w, 4);
    return __hequ2_mask(x, __float2bfloat162_rn(0.0f));
}

/* 1 when a lane of w is -0. */
static __device__ __forceinline__ bool pool_lean_neg0(unsigned w, const int ty)
{
    if (ty == POOL_S2G_F32)
        return w == 0x80000000u;
    return (w & 0xffffu) == 0x8000u || (w >> 16) == 0x8000u;
}

/* Lane l of the words w[] widened to float (l a literal after unrolling). */
static __device__ __forceinline__ float pool_lean_lane(const unsigned *w, int l, const int ty)
{
    if (ty == POOL_S2G_F32)
        return __uint_as_float(w[l]);
    return pool_s2g_w16(w[l >> 1], l, ty);
}

/* The 9-bit mask of window (r0, c0)'s cells (row-major, its first row and column) that lie in
 * the window and inside x. */
static __device__ __forceinline__ int pool_lean_mask(const pool_s2_t &q, int r0, int c0)
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

/* window_max of the cells ok (pool_lean_mask) of the window whose first cell is element off of
 * xc (sh, sw: its row and column strides): s2_max's rule and order on float (exact for the
 * three types), cells read again. */
static __device__ __forceinline__ float pool_lean_exact(const void *xc, int off, int ok, int sh,
                                                        int sw, float lowest, bool propagate,
                                                        const int ty)
{
    float m = lowest;
    bool found = false;
#pragma unroll 1
    for (int k = 0; ok != 0; k++, ok >>= 1) {
        if (!(ok & 1))
            continue;
        const int kr = k / 3;
        const float e = pool_s2g_ld(xc, off + kr * sh + (k - 3 * kr) * sw, ty);
        if (e != e) {
            if (propagate)
                return e;
            continue;
        }
        if (found ? e > m : e >= m)
            m = e, found = true;
    }
    return m;
}

/* ---- channels-last: a thread per 16-byte channel vector of y ------------------------------ */

/* The NaN / zero lanes of m (the stored vector at yp): zero lanes only when a cell of the window
 * holds -0; each redone by pool_lean_exact and stored as fd_cuda_blend(alpha, 0) stores it. */
static __device__ __forceinline__ void pool_lean_nhwc_fix(const pool_s2_t &q, const void *xc,
                                                          void *yp, uint4 m, int r0, int c0,
                                                          double alpha, const int ty)
{
    const int L = ty == POOL_S2G_F32 ? 4 : 8;
    const unsigned w[4] = {m.x, m.y, m.z, m.w};
    unsigned nl = 0, zl = 0;
#pragma unroll
    for (int l = 0; l < 8; l++) {
        if (l >= L)
            continue;
        const float v = pool_lean_lane(w, l, ty);
        nl |= v != v ? 1u << l : 0u;
        zl |= v == 0.0f ? 1u << l : 0u;
    }
    const int ok = pool_lean_mask(q, r0, c0), off = r0 * q.xs_h + c0 * q.xs_w;
    if (zl != 0) {
        bool neg = false;
#pragma unroll 1
        for (int k = 0; k < 9; k++) {
            if (!((ok >> k) & 1))
                continue;
            const int kr = k / 3;
            const uint4 u =
                *(const uint4 *)pool_s2g_at(xc, off + kr * q.xs_h + (k - 3 * kr) * q.xs_w, ty);
            neg |= pool_lean_neg0(u.x, ty) || pool_lean_neg0(u.y, ty) || pool_lean_neg0(u.z, ty) ||
                   pool_lean_neg0(u.w, ty);
        }
        if (!neg)
            zl = 0;
    }
#pragma unroll 1
    for (unsigned fix = nl | zl; fix != 0; fix &= fix - 1) {
        const int l = __ffs((int)fix) - 1;
        const float v =
            pool_lean_exact(xc, off + l, ok, q.xs_h, q.xs_w, (float)q.lowest, q.propagate != 0, ty);
        pool_s2g_blend1(yp, l, alpha, 0.0, (double)v, ty);
    }
}

/* m and the cells of x's row `row` at columns c0 + {0, 1, 2 when 3 wide}, lane-wise max. */
static __device__ __forceinline__ uint4 pool_lean_nhwc_row(const pool_s2_t &q, const void *xc,
                                                           int row, int c0, uint4 m, const bool nan,
                                                           const int ty)
{
    if ((unsigned)row >= (unsigned)q.in_h)
        return m;
#pragma unroll
    for (int kc = 0; kc < 3; kc++) {
        const int col = c0 + kc;
        if (kc < q.win_w && (unsigned)col < (unsigned)q.in_w)
            m = pool_lean_vmax(m, *(const uint4 *)pool_s2g_at(xc, row * q.xs_h + col * q.xs_w, ty),
                               nan, ty);
    }
    return m;
}

/* Thread = (n, row tile, j, row ti of the tile, vector cv), cv fastest: a block's warps cover
 * 1 << q.tile_lg output rows of a few columns, whose windows share x rows (the odd ones) as
 * well as columns, so more of a block's loads hit L1. tile_lg 0: (n, i, j, cv). */
static __device__ __forceinline__ void pool_lean_nhwc_body(const pool_s2_t &q, int cvn,
                                                           const void *xv, void *yv, double alpha,
                                                           const int ty, const bool nan)
{
    const int L = ty == POOL_S2G_F32 ? 4 : 8;
    int e = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int cv = e % cvn;
    e /= cvn;
    const int ti = e & ((1 << q.tile_lg) - 1);
    e >>= q.tile_lg;
    const int j = e % q.out_w;
    e /= q.out_w;
    const int nt = (q.out_h + (1 << q.tile_lg) - 1) >> q.tile_lg;
    const int i = ((e % nt) << q.tile_lg) + ti, n = e / nt;
    if (n >= q.planes || i >= q.out_h)
        return;
    const void *xc = pool_s2g_at(xv, n * q.xs_n + cv * L, ty);
    const int r0 = 2 * i - q.pad_h, c0 = 2 * j - q.pad_w;
    const unsigned lw = pool_lean_low(ty);
    uint4 m = make_uint4(lw, lw, lw, lw);
    if (ty == POOL_S2G_F32) { /* a row's 3 loads at a time: all 9 spilled at 32 registers */
#pragma unroll 1
        for (int kr = 0; kr < q.win_h; kr++)
            m = pool_lean_nhwc_row(q, xc, r0 + kr, c0, m, nan, ty);
    } else {
#pragma unroll
        for (int kr = 0; kr < 3; kr++)
            if (kr < q.win_h)
                m = pool_lean_nhwc_row(q, xc, r0 + kr, c0, m, nan, ty);
    }
    void *yp = pool_s2g_atw(yv, n * q.gs_n + i * q.gs_h + j * q.gs_w + cv * L, ty);
    *(uint4 *)yp = m;
    if ((pool_lean_odd(m.x, ty) | pool_lean_odd(m.y, ty) | pool_lean_odd(m.z, ty) |
         pool_lean_odd(m.w, ty)) != 0)
        pool_lean_nhwc_fix(q, xc, yp, m, r0, c0, alpha, ty);
}

/* ---- W innermost: a thread per G = 8 / sizeof(T) outputs of a y row ------------------------ */

/* x's columns cb .. cb + L - 1 of the row at xr (lo past in_w, the vector load when whole). */
static __device__ __forceinline__ uint4 pool_lean_row(const void *xr, int cb, int in_w, unsigned lw,
                                                      const int ty)
{
    const int L = ty == POOL_S2G_F32 ? 4 : 8;
    if (cb + L <= in_w)
        return *(const uint4 *)pool_s2g_at(xr, cb, ty);
    unsigned w[4] = {lw, lw, lw, lw};
#pragma unroll
    for (int l = 0; l < 8; l++) {
        if (l >= L || cb + l >= in_w)
            continue;
        if (ty == POOL_S2G_F32) {
            w[l] = ((const unsigned *)xr)[cb + l];
        } else {
            const unsigned h = ((const unsigned short *)xr)[cb + l];
            w[l >> 1] = l & 1 ? (w[l >> 1] & 0xffffu) | h << 16 : (w[l >> 1] & 0xffff0000u) | h;
        }
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* Element col of the row at xr in every lane of a word. */
static __device__ __forceinline__ unsigned pool_lean_col(const void *xr, int col, const int ty)
{
    if (ty == POOL_S2G_F32)
        return ((const unsigned *)xr)[col];
    const unsigned h = ((const unsigned short *)xr)[col];
    return h | h << 16;
}

/* Word k of the column maxima v with the extra column's word xe at k = -1 and k = L / 2 (FLOAT:
 * one element a word, L = 4 words). */
static __device__ __forceinline__ unsigned pool_lean_word(const uint4 &v, unsigned xe, int k)
{
    return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : k == 3 ? v.w : xe;
}

/* Output g's maximum (FLOAT) or outputs g, g + 1's as one word of pairs (16-bit types) from the
 * column maxima: cells 2 g - pad + {0, 1, 2 when wide}; element -1 and element L are the extra
 * column's (pad a literal, g a literal after unrolling). */
static __device__ __forceinline__ unsigned pool_lean_out(const uint4 &v, unsigned xe, int g,
                                                         const int pad, bool wide, const bool nan,
                                                         const int ty)
{
    unsigned c[3];
#pragma unroll
    for (int d = 0; d < 3; d++) {
        const int k = 2 * g - pad + d; /* -1 .. L */
        if (ty == POOL_S2G_F32) {
            c[d] = pool_lean_word(v, xe, k);
        } else { /* elements k and k + 2: the same half of words floor(k / 2) and the next */
            const int kw = (k + 2) / 2 - 1;
            c[d] = __byte_perm(pool_lean_word(v, xe, kw), pool_lean_word(v, xe, kw + 1),
                               (k + 2) & 1 ? 0x7632 : 0x5410);
        }
    }
    const unsigned r = pool_lean_max(c[0], c[1], nan, ty);
    return wide ? pool_lean_max(r, c[2], nan, ty) : r;
}

/* The NaN / zero outputs of the pair o (stored at yp, outputs j0 .. j0 + G - 1 of row i):
 * zero ones only when a cell the thread read holds -0; each redone by pool_lean_exact and
 * stored as fd_cuda_blend(alpha, 0) stores it. */
static __device__ __forceinline__ void pool_lean_nchw_fix(const pool_s2_t &q, const void *xc,
                                                          void *yp, uint2 o, int i, int j0, int pad,
                                                          double alpha, const int ty)
{
    const int G = ty == POOL_S2G_F32 ? 2 : 4;
    const unsigned w[2] = {o.x, o.y};
    unsigned nl = 0, zl = 0;
#pragma unroll
    for (int g = 0; g < 4; g++) {
        if (g >= G || j0 + g >= q.out_w)
            continue;
        const float v = pool_lean_lane(w, g, ty);
        nl |= v != v ? 1u << g : 0u;
        zl |= v == 0.0f ? 1u << g : 0u;
    }
    const int r0 = 2 * i - q.pad_h, cb = 2 * j0;
    if (zl != 0) {
        const unsigned lw = pool_lean_low(ty);
        const int L = 2 * G, ce = pad ? cb - 1 : cb + L;
        bool neg = false;
#pragma unroll 1
        for (int kr = 0; kr < q.win_h; kr++) {
            const int row = r0 + kr;
            if (row < 0 || row >= q.in_h)
                continue;
            const void *xr = pool_s2g_at(xc, row * q.xs_h, ty);
            const uint4 u = pool_lean_row(xr, cb, q.in_w, lw, ty);
            neg |= pool_lean_neg0(u.x, ty) || pool_lean_neg0(u.y, ty) || pool_lean_neg0(u.z, ty) ||
                   pool_lean_neg0(u.w, ty);
            if (ce >= 0 && ce < q.in_w)
                neg |= pool_lean_neg0(pool_lean_col(xr, ce, ty), ty);
        }
        if (!neg)
            zl = 0;
    }
#pragma unroll 1
    for (unsigned fix = nl | zl; fix != 0; fix &= fix - 1) {
        const int g = __ffs((int)fix) - 1, c0 = 2 * (j0 + g) - pad;
        const float v = pool_lean_exact(xc, r0 * q.xs_h + c0, pool_lean_mask(q, r0, c0), q.xs_h, 1,
                                        (float)q.lowest, q.propagate != 0, ty);
        pool_s2g_blend1(yp, g, alpha, 0.0, (double)v, ty);
    }
}

/* Thread = (plane, i, run t of G outputs), t fastest; segs = ceil(out_w / G) runs a row; pad =
 * pad_w, a literal. */
static __device__ __forceinline__ void pool_lean_nchw_body(const pool_s2_t &q, int segs,
                                                           const void *xv, void *yv, double alpha,
                                                           const int ty, const bool nan,
                                                           const int pad)
{
    const int L = ty == POOL_S2G_F32 ? 4 : 8, G = L / 2;
    int e = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int t = e % segs;
    e /= segs;
    const int i = e % q.out_h, pl = e / q.out_h;
    if (pl >= q.planes)
        return;
    const int n = pl / q.c, c = pl - n * q.c;
    const void *xc = pool_s2g_at(xv, n * q.xs_n + c * q.xs_c, ty);
    const int r0 = 2 * i - q.pad_h, cb = t * L, ce = pad ? cb - 1 : cb + L;
    const bool wide = q.win_w == 3, xok = (pad || wide) && ce >= 0 && ce < q.in_w;
    const unsigned lw = pool_lean_low(ty);
    uint4 v = make_uint4(lw, lw, lw, lw);
    unsigned xe = lw;
#pragma unroll
    for (int kr = 0; kr < 3; kr++) {
        const int row = r0 + kr;
        if (kr < q.win_h && (unsigned)row < (unsigned)q.in_h) {
            const void *xr = pool_s2g_at(xc, row * q.xs_h, ty);
            v = pool_lean_vmax(v, pool_lean_row(xr, cb, q.in_w, lw, ty), nan, ty);
            if (xok)
                xe = pool_lean_max(xe, pool_lean_col(xr, ce, ty), nan, ty);
        }
    }
    uint2 o; /* G outputs: 2 floats, or two words of two 16-bit outputs */
    o.x = pool_lean_out(v, xe, 0, pad, wide, nan, ty);
    o.y = pool_lean_out(v, xe, ty == POOL_S2G_F32 ? 1 : 2, pad, wide, nan, ty);
    const int j0 = t * G;
    void *yp = pool_s2g_atw(yv, n * q.gs_n + c * q.gs_c + i * q.gs_h + j0, ty);
    if (q.yvec && j0 + G <= q.out_w) {
        *(uint2 *)yp = o;
    } else {
        const unsigned w[2] = {o.x, o.y};
#pragma unroll
        for (int g = 0; g < 4; g++) {
            if (g >= G || j0 + g >= q.out_w)
                continue;
            if (ty == POOL_S2G_F32)
                ((unsigned *)yp)[g] = w[g];
            else
                ((unsigned short *)yp)[g] = (unsigned short)(g & 1 ? w[g >> 1] >> 16 : w[g >> 1]);
        }
    }
    if ((pool_lean_odd(o.x, ty) | pool_lean_odd(o.y, ty)) != 0)
        pool_lean_nchw_fix(q, xc, yp, o, i, j0, pad, alpha, ty);
}

/* Blocks of 256 an SM: 8, full occupancy (<= 32 registers). ptxas (CUDA 13), registers sm_90
 * (sm_80), 0 spills, no stack: pool_lean_nchw_f32 27 (26), _f16 30 (30), _bf16 30 (32);
 * pool_lean_nhwc_f32 32 (32), _f16 32 (32), _bf16 32 (32). The FLOAT channels-last kernel
 * loads a window row (3 vectors) at a time: all 9 in flight spilled 4 bytes at 32 registers
 * (the 16-bit ones keep all 9: rows unrolled). The redo paths are inlined (a called function
 * took the problem struct through the stack and spilled around the call). */
#define POOL_LEAN_MINB 8
#define POOL_LEAN_KERNELS(sfx, ty)                                                                 \
    static __global__ void __launch_bounds__(FD_CUDA_BLOCK, POOL_LEAN_MINB)                        \
        pool_lean_nhwc_##sfx(const pool_s2_t q, int cvn, const void *xv, void *yv, double alpha)   \
    {                                                                                              \
        if (q.propagate)                                                                           \
            pool_lean_nhwc_body(q, cvn, xv, yv, alpha, ty, true);                                  \
        else                                                                                       \
            pool_lean_nhwc_body(q, cvn, xv, yv, alpha, ty, false);                                 \
    }                                                                                              \
    static __global__ void __launch_bounds__(FD_CUDA_BLOCK, POOL_LEAN_MINB)                        \
        pool_lean_nchw_##sfx(const pool_s2_t q, int segs, const void *xv, void *yv, double alpha)  \
    {                                                                                              \
        if (q.pad_w == 0) {                                                                        \
            if (q.propagate)                                                                       \
                pool_lean_nchw_body(q, segs, xv, yv, alpha, ty, true, 0);                          \
            else                                                                                   \
                pool_lean_nchw_body(q, segs, xv, yv, alpha, ty, false, 0);                         \
        } else {                                                                                   \
            if (q.propagate)                                                                       \
                pool_lean_nchw_body(q, segs, xv, yv, alpha, ty, true, 1);                          \
            else                                                                                   \
                pool_lean_nchw_body(q, segs, xv, yv, alpha, ty, false, 1);                         \
        }                                                                                          \
    }
POOL_LEAN_KERNELS(f32, POOL_S2G_F32)
POOL_LEAN_KERNELS(f16, POOL_S2G_F16)
POOL_LEAN_KERNELS(bf16, POOL_S2G_BF16)
#undef POOL_LEAN_KERNELS
