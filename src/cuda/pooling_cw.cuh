/* SPDX-License-Identifier: MIT */
/*
 * pooling_cw.cuh - max-pool backward of ResNet's 3x3 / 2 pad 1 window with W innermost by
 * column walks (FREEDNN_GPU_POOL_CW), FLOAT, HALF, BFLOAT16, rows of up to 128 elements (256
 * for 16-bit rows of 16-byte vectors). pooling.cu includes it once, after pooling_s2g.cuh
 * (whose helpers it uses); pool_cw_ok decides, before pool_smb_ok. pooling_smb.cuh's
 * shared-memory tiles ran f16 NCHW n32c256h56w56 at 1137 GB/s, f32 n32c128 at 2193 (H200,
 * 2026-12-02), ~110 instructions a dx element; dev/pool_bwd measured this walk (its v9 / v11 /
 * v12) at 2288-2360 / 3271-3286 GB/s, the same bits, and dnnbench the library with it (H200,
 * 2026-12-03 11:11 UTC, graph): f16 1136 -> 2327 GB/s (1.47 -> 3.02x NVIDIA), f32 2183 -> 3359
 * (1.07 -> 1.64x).
 *
 * Decisions:
 * - A strip is R window rows t0 .. t1 - 1 of one (n, c) plane, i.e. the dx rows 2 t0 ..
 *   2 t1 - 1 (row 2t lies in window row t only, row 2t - 1 in t - 1 and t). L lanes own a strip
 *   (L = 16: two strips a warp, W <= 64; L = 32: W <= 128); lane m owns dx columns 4m .. 4m + 3
 *   and the windows (t, 2m) = A and (t, 2m + 1) = B of every window row t.
 * - The lanes walk down the strip: step t evaluates A and B from x rows 2t - 1 (kept from step
 *   t - 1), 2t and 2t + 1, one 16-byte FLOAT / 8-byte 16-bit load a row (a row's partial last
 *   vector per element; cells outside x hold -inf, which the chains never pick), column 4m - 1
 *   from lane m - 1 by a shuffle; the loads of step t + 1 are issued before step t's work.
 *   Window (t, 2m + 2) = N (its cells 0, 3, 6 reach dx column 4m + 3) comes from lane m + 1 by
 *   shuffles. Then dx row 2t - 1 takes cells 6..8 of window row t - 1 (codes and dy kept) and
 *   0..2 of row t, dx row 2t cells 3..5 of row t: e.g. dx (2t - 1, 4m + 1) adds cell 8 of
 *   (t - 1, A), 6 of (t - 1, B), 2 of (t, A), 0 of (t, B), in that (ascending window) order.
 *   Each window's argmax is computed once a strip (twice at a strip's first row), against ~3
 *   times in the gathers of pooling_s2g.cuh; a dx element costs ~25 instructions.
 * - Argmaxes: pool_s2g_code (FLOAT) and, for the 16-bit types, A's and B's codes as the two
 *   lanes of one packed chain (pool_s2g_code2) on cells paired by byte permutes: window_max's
 *   first max, PROPAGATE_NAN's first NaN, -1 for none, src/ref's rule.
 * - Sums: src/ref adds the routed dy in double from 0.0 and rounds once after the blend. With
 *   alpha 1, beta 0 (MODE 1) an element of at most two routed terms (all but the (odd, odd)
 *   corners) is summed in float and rounded once to the type: double rounding of a sum of two
 *   values of precision p through precision >= 2p + 2 is innocuous (53 >= 2 x 24 + 2, 24 >=
 *   2 x 11 + 2), so these are src/ref's bits; the corners (up to four terms) stay in double.
 *   Other blends (MODE 0) sum in double and blend per element (fd_cuda_blend's roundings).
 * - Both halves of a warp run R + 1 steps (the shuffles need every lane); steps past a strip's
 *   last row and strips past the last are predicated off.
 * - Pointers: x and dx rows of whole 4-element vectors (pool_rows4_ok: 16-byte FLOAT and 8-byte
 *   16-bit accesses aligned); dy any strides, per element.
 * - HALF / BFLOAT16 rows of 16-byte vectors (pool_cw8_ok, FREEDNN_GPU_POOL_CW8) take 8 dx
 *   columns a lane (pool_cw8_body: one 16-byte x load and dx store a row, two packed chains a
 *   step; 8 lanes a strip up to W 64, 16 to 128, 32 to 256): dev/pool_bwd v14, f16 n32c256h56w56
 *   2339 -> 2435 GB/s, the stem's n32c64h112w112 2400 -> 2629 (H200, 2026-12-03, same bits);
 *   dnnbench (graph, 11:29 UTC) f16 n32c256h56w56 2332 -> 2469 GB/s (3.02 -> 3.20x NVIDIA).
 * - ptxas (CUDA 13, blocks of 256): see POOL_CW_MINB and POOL_CW8_MINB*.
 */

#define POOL_CW_THREADS 256
/* blocks of 256 an SM: 4 (ptxas, CUDA 13: 54-60 registers sm_90, 54-63 sm_80, 0 spills; 5
 * spilled in dev/pool_bwd) */
#define POOL_CW_MINB 4
/* the 8-column kernels: MODE 1 4 on sm_90 (64 registers; sm_80 spilled at 4: 3, 72-79), MODE 0
 * 3 (76-80 registers; spilled at 4); 0 spills */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define POOL_CW8_MINB1 3
#else
#define POOL_CW8_MINB1 4
#endif
#define POOL_CW8_MINB0 3

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
template <int TY> static __device__ __forceinline__ unsigned pool_cw_last(const pool_cw_raw &r)
{
    return TY == POOL_S2G_F32 ? r.w[3] : r.w[1];
}

/* The storage bits of float v rounded once to the type. */
template <int TY> static __device__ __forceinline__ unsigned pool_cw_fbits(float v)
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
static __device__ __forceinline__ void pool_cw_store(void *dxc, int off, const unsigned *r, int cnt)
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
static __device__ __forceinline__ void
pool_cw_codes(const pool_cw_raw &tp, unsigned tl, const pool_cw_raw &md, unsigned ml,
              const pool_cw_raw &bt, unsigned bl, int propagate, int *ca, int *cb)
{
    if (TY == POOL_S2G_F32) {
        const float a[9] = {
            __uint_as_float(tl), __uint_as_float(tp.w[0]), __uint_as_float(tp.w[1]),
            __uint_as_float(ml), __uint_as_float(md.w[0]), __uint_as_float(md.w[1]),
            __uint_as_float(bl), __uint_as_float(bt.w[0]), __uint_as_float(bt.w[1])};
        const float b[9] = {
            __uint_as_float(tp.w[1]), __uint_as_float(tp.w[2]), __uint_as_float(tp.w[3]),
            __uint_as_float(md.w[1]), __uint_as_float(md.w[2]), __uint_as_float(md.w[3]),
            __uint_as_float(bt.w[1]), __uint_as_float(bt.w[2]), __uint_as_float(bt.w[3])};
        *ca = pool_s2g_code(a, propagate);
        *cb = pool_s2g_code(b, propagate);
        return;
    }
    /* per row the pairs (A's cell, B's cell): (4m - 1, 4m + 1), (4m, 4m + 2), (4m + 1, 4m + 3) */
    const unsigned c[9] = {
        __byte_perm(tl, tp.w[0], 0x7632),      __byte_perm(tp.w[0], tp.w[1], 0x5410),
        __byte_perm(tp.w[0], tp.w[1], 0x7632), __byte_perm(ml, md.w[0], 0x7632),
        __byte_perm(md.w[0], md.w[1], 0x5410), __byte_perm(md.w[0], md.w[1], 0x7632),
        __byte_perm(bl, bt.w[0], 0x7632),      __byte_perm(bt.w[0], bt.w[1], 0x5410),
        __byte_perm(bt.w[0], bt.w[1], 0x7632)};
    const unsigned cd = propagate ? pool_s2g_code2(c, true, TY) : pool_s2g_code2(c, false, TY);
    *ca = (int)(cd & 0xffffu) - 1;
    *cb = (int)(cd >> 16) - 1;
}

/* The routed dy of window code c for cell k (float; 0 when c != k) */
#define POOL_CW_F(c, k, g) ((c) == (k) ? (g) : 0.f)
#define POOL_CW_D(c, k, g) ((c) == (k) ? (double)(g) : 0.0)

/* The bits r[0..3] of dx row 2t - 1 at the 4 columns of p (cnt of them inside the row, > 0)
 * from windows A, B, N of window rows t - 1 (codes pa, pb, pn, dy pga, pgb, pgn) and t (ca, cb,
 * cn; ga, gb, gn): column 0 adds cells 7, 1 of A; 1 cells 8, 6, 2, 0 of A, B, A, B; 2 cells 7,
 * 1 of B; 3 cells 8, 6, 2, 0 of B, N, B, N (ascending window order). */
template <int TY, int MODE>
static __device__ __forceinline__ void
pool_cw_odd(const void *p, int cnt, double alpha, double beta, int pa, int pb, int pn, float pga,
            float pgb, float pgn, int ca, int cb, int cn, float ga, float gb, float gn, unsigned *r)
{
    const double d1 = 0.0 + POOL_CW_D(pa, 8, pga) + POOL_CW_D(pb, 6, pgb) + POOL_CW_D(ca, 2, ga) +
                      POOL_CW_D(cb, 0, gb);
    const double d3 = 0.0 + POOL_CW_D(pb, 8, pgb) + POOL_CW_D(pn, 6, pgn) + POOL_CW_D(cb, 2, gb) +
                      POOL_CW_D(cn, 0, gn);
    if (MODE == 1) {
        r[0] = pool_cw_fbits<TY>(0.f + POOL_CW_F(pa, 7, pga) + POOL_CW_F(ca, 1, ga));
        r[2] = pool_cw_fbits<TY>(0.f + POOL_CW_F(pb, 7, pgb) + POOL_CW_F(cb, 1, gb));
        r[1] = pool_s2g_bits(d1, TY), r[3] = pool_s2g_bits(d3, TY);
        return;
    }
    const double d0 = 0.0 + POOL_CW_D(pa, 7, pga) + POOL_CW_D(ca, 1, ga);
    const double d2 = 0.0 + POOL_CW_D(pb, 7, pgb) + POOL_CW_D(cb, 1, gb);
    r[0] = pool_cw_blend<TY>(p, alpha, beta, d0);
    r[1] = cnt > 1 ? pool_cw_blend<TY>(pool_s2g_at(p, 1, TY), alpha, beta, d1) : 0u;
    r[2] = cnt > 2 ? pool_cw_blend<TY>(pool_s2g_at(p, 2, TY), alpha, beta, d2) : 0u;
    r[3] = cnt > 3 ? pool_cw_blend<TY>(pool_s2g_at(p, 3, TY), alpha, beta, d3) : 0u;
}

/* The bits of dx row 2t at the 4 columns of p from window row t: column 0 cell 4 of A; 1 cells
 * 5, 3 of A, B; 2 cell 4 of B; 3 cells 5, 3 of B, N. */
template <int TY, int MODE>
static __device__ __forceinline__ void pool_cw_even(const void *p, int cnt, double alpha,
                                                    double beta, int ca, int cb, int cn, float ga,
                                                    float gb, float gn, unsigned *r)
{
    if (MODE == 1) {
        r[0] = pool_cw_fbits<TY>(0.f + POOL_CW_F(ca, 4, ga));
        r[1] = pool_cw_fbits<TY>(0.f + POOL_CW_F(ca, 5, ga) + POOL_CW_F(cb, 3, gb));
        r[2] = pool_cw_fbits<TY>(0.f + POOL_CW_F(cb, 4, gb));
        r[3] = pool_cw_fbits<TY>(0.f + POOL_CW_F(cb, 5, gb) + POOL_CW_F(cn, 3, gn));
        return;
    }
    const double d0 = 0.0 + POOL_CW_D(ca, 4, ga);
    const double d1 = 0.0 + POOL_CW_D(ca, 5, ga) + POOL_CW_D(cb, 3, gb);
    const double d2 = 0.0 + POOL_CW_D(cb, 4, gb);
    const double d3 = 0.0 + POOL_CW_D(cb, 5, gb) + POOL_CW_D(cn, 3, gn);
    r[0] = pool_cw_blend<TY>(p, alpha, beta, d0);
    r[1] = cnt > 1 ? pool_cw_blend<TY>(pool_s2g_at(p, 1, TY), alpha, beta, d1) : 0u;
    r[2] = cnt > 2 ? pool_cw_blend<TY>(pool_s2g_at(p, 2, TY), alpha, beta, d2) : 0u;
    r[3] = cnt > 3 ? pool_cw_blend<TY>(pool_s2g_at(p, 3, TY), alpha, beta, d3) : 0u;
}
#undef POOL_CW_F
#undef POOL_CW_D

/* The G groups of 4 cells of x row vector xc + off (G = 2: 16-bit only, one 16-byte load when
 * the 8 cells lie inside the row; cnt of them do, ok: the row exists). */
template <int TY, int G>
static __device__ __forceinline__ void pool_cw_loadg(const void *xc, bool ok, int off, int cnt,
                                                     pool_cw_raw *r)
{
    if (G == 2 && ok && cnt >= 8) {
        const uint4 u = *(const uint4 *)((const unsigned short *)xc + off);
        r[0].w[0] = u.x, r[0].w[1] = u.y, r[1].w[0] = u.z, r[1].w[1] = u.w;
        r[0].w[2] = r[0].w[3] = r[1].w[2] = r[1].w[3] = 0u;
        return;
    }
#pragma unroll
    for (int h = 0; h < G; h++)
        r[h] = pool_cw_load<TY>(xc, ok && cnt > 4 * h, off + 4 * h, cnt - 4 * h);
}

/* Stores the G groups' bits r[4h .. 4h + 3] at dx row vector dxc + off (G = 2: one 16-byte
 * store when the 8 columns lie inside the row). */
template <int TY, int G>
static __device__ __forceinline__ void pool_cw_storeg(void *dxc, int off, const unsigned *r,
                                                      int cnt)
{
    if (G == 2 && cnt >= 8) {
        *(uint4 *)pool_s2g_atw(dxc, off, TY) =
            make_uint4(r[0] | r[1] << 16, r[2] | r[3] << 16, r[4] | r[5] << 16, r[6] | r[7] << 16);
        return;
    }
#pragma unroll
    for (int h = 0; h < G; h++)
        if (cnt > 4 * h)
            pool_cw_store<TY>(dxc, off + 4 * h, r + 4 * h, cnt - 4 * h);
}

/* Strips of R window rows, nt a plane; L lanes a strip; MODE 1: alpha 1, beta 0; G groups of 4
 * dx columns a lane (windows 2G m .. 2G m + 2G - 1; group h's A and B are windows 2G m + 2h and
 * + 2h + 1, its N group h + 1's A or, for the last group, lane m + 1's first A). The library
 * instantiates G = 1: at G = 2 (16-bit) this schedule took 78 registers and spilled at 4 blocks
 * an SM, so 8 columns a lane are pool_cw8_body's. */
template <int TY, int MODE, int L, int G>
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
    const int c0 = 4 * G * m, cnt = W - c0; /* cnt > 0: the lane holds dx columns */
    const bool live = act && cnt > 0;
    const int j0 = 2 * G * m, dyo = j0 * q.gs_w;
    const int nw = q.out_w - j0; /* window j0 + i exists: i < nw */

    pool_cw_raw tp[G], rm[G], rb[G]; /* x rows 2t - 1, 2t, 2t + 1 */
    pool_cw_loadg<TY, G>(xc, live && t0 > 0, (2 * t0 - 1) * q.xs_h + c0, cnt, tp);
    unsigned tl = __shfl_up_sync(full, pool_cw_last<TY>(tp[G - 1]), 1, L);
    if (m == 0)
        tl = ni;
    pool_cw_loadg<TY, G>(xc, live && 2 * t0 < H, 2 * t0 * q.xs_h + c0, cnt, rm);
    pool_cw_loadg<TY, G>(xc, live && 2 * t0 + 1 < H, (2 * t0 + 1) * q.xs_h + c0, cnt, rb);
    float g[2 * G]; /* dy of window row t */
    const bool g0 = act && t0 < q.out_h;
#pragma unroll
    for (int i = 0; i < 2 * G; i++)
        g[i] = g0 && i < nw ? pool_s2g_ld(dyc, t0 * q.gs_h + dyo + i * q.gs_w, TY) : 0.f;
    int pc[2 * G + 1]; /* window row t - 1: codes of the lane's windows and of N */
    float pg[2 * G + 1];
#pragma unroll
    for (int i = 0; i <= 2 * G; i++)
        pc[i] = -1, pg[i] = 0.f;
    for (int k = 0; k <= R; k++) {
        const int t = t0 + k;
        const bool on = t <= t1, more = t < t1;
        const int r2 = 2 * t + 2;
        pool_cw_raw nm[G], nb[G];
        pool_cw_loadg<TY, G>(xc, more && live && r2 < H, r2 * q.xs_h + c0, cnt, nm);
        pool_cw_loadg<TY, G>(xc, more && live && r2 + 1 < H, (r2 + 1) * q.xs_h + c0, cnt, nb);
        const bool gn = more && t + 1 < q.out_h;
        float ng[2 * G];
#pragma unroll
        for (int i = 0; i < 2 * G; i++)
            ng[i] = gn && i < nw ? pool_s2g_ld(dyc, (t + 1) * q.gs_h + dyo + i * q.gs_w, TY) : 0.f;
        unsigned ml = __shfl_up_sync(full, pool_cw_last<TY>(rm[G - 1]), 1, L);
        unsigned bl = __shfl_up_sync(full, pool_cw_last<TY>(rb[G - 1]), 1, L);
        if (m == 0)
            ml = ni, bl = ni;
        int cc[2 * G + 1]; /* window row t: the lane's codes, then N */
#pragma unroll
        for (int h = 0; h < G; h++) {
            const unsigned lt = h ? pool_cw_last<TY>(tp[h - 1]) : tl;
            const unsigned lm = h ? pool_cw_last<TY>(rm[h - 1]) : ml;
            const unsigned lb = h ? pool_cw_last<TY>(rb[h - 1]) : bl;
            pool_cw_codes<TY>(tp[h], lt, rm[h], lm, rb[h], lb, q.propagate, &cc[2 * h],
                              &cc[2 * h + 1]);
        }
#pragma unroll
        for (int i = 0; i < 2 * G; i++)
            if (!(on && t < q.out_h && i < nw))
                cc[i] = -1;
        cc[2 * G] = __shfl_down_sync(full, cc[0], 1, L);
        const float gn_ = __shfl_down_sync(full, g[0], 1, L);
        if (m == L - 1)
            cc[2 * G] = -1;
        const int r1 = 2 * t - 1;
        if (live && on && t > t0 && r1 < H) {
            unsigned r[4 * G];
            const void *p = pool_s2g_at(dxc, r1 * q.ds_h + c0, TY);
#pragma unroll
            for (int h = 0; h < G; h++)
                if (cnt > 4 * h)
                    pool_cw_odd<TY, MODE>(pool_s2g_at(p, 4 * h, TY), cnt - 4 * h, alpha, beta,
                                          pc[2 * h], pc[2 * h + 1], pc[2 * h + 2], pg[2 * h],
                                          pg[2 * h + 1], pg[2 * h + 2], cc[2 * h], cc[2 * h + 1],
                                          cc[2 * h + 2], g[2 * h], g[2 * h + 1],
                                          h + 1 < G ? g[2 * h + 2] : gn_, r + 4 * h);
            pool_cw_storeg<TY, G>(dxc, r1 * q.ds_h + c0, r, cnt);
        }
        if (live && more) { /* row 2t < H: t < pairs */
            unsigned r[4 * G];
            const void *p = pool_s2g_at(dxc, 2 * t * q.ds_h + c0, TY);
#pragma unroll
            for (int h = 0; h < G; h++)
                if (cnt > 4 * h)
                    pool_cw_even<TY, MODE>(pool_s2g_at(p, 4 * h, TY), cnt - 4 * h, alpha, beta,
                                           cc[2 * h], cc[2 * h + 1], cc[2 * h + 2], g[2 * h],
                                           g[2 * h + 1], h + 1 < G ? g[2 * h + 2] : gn_, r + 4 * h);
            pool_cw_storeg<TY, G>(dxc, 2 * t * q.ds_h + c0, r, cnt);
        }
#pragma unroll
        for (int i = 0; i < 2 * G; i++)
            pc[i] = cc[i], pg[i] = g[i], g[i] = ng[i];
        pc[2 * G] = cc[2 * G], pg[2 * G] = gn_;
#pragma unroll
        for (int h = 0; h < G; h++)
            tp[h] = rb[h], rm[h] = nm[h], rb[h] = nb[h];
        tl = bl;
    }
}

/* The 16-bit walk with 8 dx columns a lane (FREEDNN_GPU_POOL_CW8; dev/pool_bwd v14): lane m owns
 * columns 8m .. 8m + 7 and windows 4m .. 4m + 3 (A, B, C, D); a x row is one 16-byte load, held
 * as two 4-cell groups (lo, hi); (A, B) are pool_cw_codes on lo with column 8m - 1 from lane
 * m - 1, (C, D) on hi with lo's last word; window 4m + 4 (N of hi) is lane m + 1's A. dx
 * columns 8m .. 8m + 3 are pool_cw_odd / _even on (A, B, C), 8m + 4 .. 8m + 7 on (C, D, N): the
 * same sums; one 16-byte store a row. pool_cw_body at G = 2 is the same walk but needed 78
 * registers (spilling at 4 blocks an SM); this schedule, the sandbox's, fits 64. */
template <int TY, int MODE, int L>
static __device__ __forceinline__ void pool_cw8_body(const pool_s2_t &q, int R, int nt,
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
    const int c0 = 8 * m, cnt = W - c0, j0 = 4 * m; /* cnt > 0: the lane holds dx columns */
    const bool live = act && cnt > 0;
    const bool okA = j0 < q.out_w, okB = j0 + 1 < q.out_w, okC = j0 + 2 < q.out_w,
               okD = j0 + 3 < q.out_w;
    const int dyo = j0 * q.gs_w;

    pool_cw_raw tp[2], rm[2], rb[2]; /* x rows 2t - 1, 2t, 2t + 1: lo, hi */
    pool_cw_loadg<TY, 2>(xc, live && t0 > 0, (2 * t0 - 1) * q.xs_h + c0, cnt, tp);
    unsigned tl = __shfl_up_sync(full, tp[1].w[1], 1, L);
    if (m == 0)
        tl = ni;
    pool_cw_loadg<TY, 2>(xc, live && 2 * t0 < H, 2 * t0 * q.xs_h + c0, cnt, rm);
    pool_cw_loadg<TY, 2>(xc, live && 2 * t0 + 1 < H, (2 * t0 + 1) * q.xs_h + c0, cnt, rb);
    const bool g0 = act && t0 < q.out_h;
    const int y0 = t0 * q.gs_h + dyo;
    float ga = g0 && okA ? pool_s2g_ld(dyc, y0, TY) : 0.f;
    float gb = g0 && okB ? pool_s2g_ld(dyc, y0 + q.gs_w, TY) : 0.f;
    float gc = g0 && okC ? pool_s2g_ld(dyc, y0 + 2 * q.gs_w, TY) : 0.f;
    float gd = g0 && okD ? pool_s2g_ld(dyc, y0 + 3 * q.gs_w, TY) : 0.f;
    int pa = -1, pb = -1, pc = -1, pd = -1, pn = -1; /* window row t - 1 */
    float pga = 0.f, pgb = 0.f, pgc = 0.f, pgd = 0.f, pgn = 0.f;
    for (int k = 0; k <= R; k++) {
        const int t = t0 + k;
        const bool on = t <= t1, more = t < t1;
        const int r2 = 2 * t + 2;
        pool_cw_raw nm[2], nb[2];
        pool_cw_loadg<TY, 2>(xc, more && live && r2 < H, r2 * q.xs_h + c0, cnt, nm);
        pool_cw_loadg<TY, 2>(xc, more && live && r2 + 1 < H, (r2 + 1) * q.xs_h + c0, cnt, nb);
        const bool gn = more && t + 1 < q.out_h;
        const int y1 = (t + 1) * q.gs_h + dyo;
        const float nga = gn && okA ? pool_s2g_ld(dyc, y1, TY) : 0.f;
        const float ngb = gn && okB ? pool_s2g_ld(dyc, y1 + q.gs_w, TY) : 0.f;
        const float ngc = gn && okC ? pool_s2g_ld(dyc, y1 + 2 * q.gs_w, TY) : 0.f;
        const float ngd = gn && okD ? pool_s2g_ld(dyc, y1 + 3 * q.gs_w, TY) : 0.f;
        unsigned ml = __shfl_up_sync(full, rm[1].w[1], 1, L);
        unsigned bl = __shfl_up_sync(full, rb[1].w[1], 1, L);
        if (m == 0)
            ml = ni, bl = ni;
        int ca, cb, cc, cd;
        pool_cw_codes<TY>(tp[0], tl, rm[0], ml, rb[0], bl, q.propagate, &ca, &cb);
        pool_cw_codes<TY>(tp[1], tp[0].w[1], rm[1], rm[0].w[1], rb[1], rb[0].w[1], q.propagate, &cc,
                          &cd);
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
            unsigned r[8] = {0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u};
            const void *p = pool_s2g_at(dxc, r1 * q.ds_h + c0, TY);
            pool_cw_odd<TY, MODE>(p, cnt, alpha, beta, pa, pb, pc, pga, pgb, pgc, ca, cb, cc, ga,
                                  gb, gc, r);
            if (cnt > 4)
                pool_cw_odd<TY, MODE>(pool_s2g_at(p, 4, TY), cnt - 4, alpha, beta, pc, pd, pn, pgc,
                                      pgd, pgn, cc, cd, cn, gc, gd, gn_, r + 4);
            pool_cw_storeg<TY, 2>(dxc, r1 * q.ds_h + c0, r, cnt);
        }
        if (live && more) { /* row 2t < H: t < pairs */
            unsigned r[8] = {0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u};
            const void *p = pool_s2g_at(dxc, 2 * t * q.ds_h + c0, TY);
            pool_cw_even<TY, MODE>(p, cnt, alpha, beta, ca, cb, cc, ga, gb, gc, r);
            if (cnt > 4)
                pool_cw_even<TY, MODE>(pool_s2g_at(p, 4, TY), cnt - 4, alpha, beta, cc, cd, cn, gc,
                                       gd, gn_, r + 4);
            pool_cw_storeg<TY, 2>(dxc, 2 * t * q.ds_h + c0, r, cnt);
        }
        pa = ca, pb = cb, pc = cc, pd = cd, pn = cn;
        pga = ga, pgb = gb, pgc = gc, pgd = gd, pgn = gn_;
        tp[0] = rb[0], tp[1] = rb[1], tl = bl;
        rm[0] = nm[0], rm[1] = nm[1], rb[0] = nb[0], rb[1] = nb[1];
        ga = nga, gb = ngb, gc = ngc, gd = ngd;
    }
}

/* pool_cw_max_bwd{1,0}_{16,32}_{f32,f16,bf16}: MODE 1 (alpha 1, beta 0) / 0, L lanes a strip,
 * 4 dx columns a lane; pool_cw8_max_bwd{1,0}_{8,16,32}_{f16,bf16}: 8 columns a lane (16-bit
 * types). Blocks of POOL_CW_THREADS, POOL_CW_MINB (8 columns: POOL_CW8_MINB1 / _MINB0) an SM. */
#define POOL_CW_KERNEL(name, body, ty, mode, l, minb)                                              \
    static __global__ void __launch_bounds__(POOL_CW_THREADS, minb)                                \
        name(const pool_s2_t q, int R, int nt, const void *xv, const void *dyv, void *dxv,         \
             double alpha, double beta)                                                            \
    {                                                                                              \
        body(q, R, nt, xv, dyv, dxv, alpha, beta);                                                 \
    }
#define POOL_CW_KERNELS(sfx, ty)                                                                   \
    POOL_CW_KERNEL(pool_cw_max_bwd1_16_##sfx, (pool_cw_body<ty, 1, 16, 1>), ty, 1, 16,             \
                   POOL_CW_MINB)                                                                   \
    POOL_CW_KERNEL(pool_cw_max_bwd0_16_##sfx, (pool_cw_body<ty, 0, 16, 1>), ty, 0, 16,             \
                   POOL_CW_MINB)                                                                   \
    POOL_CW_KERNEL(pool_cw_max_bwd1_32_##sfx, (pool_cw_body<ty, 1, 32, 1>), ty, 1, 32,             \
                   POOL_CW_MINB)                                                                   \
    POOL_CW_KERNEL(pool_cw_max_bwd0_32_##sfx, (pool_cw_body<ty, 0, 32, 1>), ty, 0, 32, POOL_CW_MINB)
#define POOL_CW8_KERNELS(sfx, ty)                                                                  \
    POOL_CW_KERNEL(pool_cw8_max_bwd1_8_##sfx, (pool_cw8_body<ty, 1, 8>), ty, 1, 8, POOL_CW8_MINB1) \
    POOL_CW_KERNEL(pool_cw8_max_bwd0_8_##sfx, (pool_cw8_body<ty, 0, 8>), ty, 0, 8, POOL_CW8_MINB0) \
    POOL_CW_KERNEL(pool_cw8_max_bwd1_16_##sfx, (pool_cw8_body<ty, 1, 16>), ty, 1, 16,              \
                   POOL_CW8_MINB1)                                                                 \
    POOL_CW_KERNEL(pool_cw8_max_bwd0_16_##sfx, (pool_cw8_body<ty, 0, 16>), ty, 0, 16,              \
                   POOL_CW8_MINB0)                                                                 \
    POOL_CW_KERNEL(pool_cw8_max_bwd1_32_##sfx, (pool_cw8_body<ty, 1, 32>), ty, 1, 32,              \
                   POOL_CW8_MINB1)                                                                 \
    POOL_CW_KERNEL(pool_cw8_max_bwd0_32_##sfx, (pool_cw8_body<ty, 0, 32>), ty, 0, 32,              \
                   POOL_CW8_MINB0)
POOL_CW_KERNELS(f32, POOL_S2G_F32)
POOL_CW_KERNELS(f16, POOL_S2G_F16)
POOL_CW_KERNELS(bf16, POOL_S2G_BF16)
POOL_CW8_KERNELS(f16, POOL_S2G_F16)
POOL_CW8_KERNELS(bf16, POOL_S2G_BF16)
#undef POOL_CW8_KERNELS
#undef POOL_CW_KERNELS
#undef POOL_CW_KERNEL

typedef void (*pool_cw_kernel_t)(const pool_s2_t, int, int, const void *, const void *, void *,
                                 double, double);
/* [type][mode][lanes 16 / 32] */
static const pool_cw_kernel_t pool_cw_kernels[3][2][2] = {
    {{pool_cw_max_bwd0_16_f32, pool_cw_max_bwd0_32_f32},
     {pool_cw_max_bwd1_16_f32, pool_cw_max_bwd1_32_f32}},
    {{pool_cw_max_bwd0_16_f16, pool_cw_max_bwd0_32_f16},
     {pool_cw_max_bwd1_16_f16, pool_cw_max_bwd1_32_f16}},
    {{pool_cw_max_bwd0_16_bf16, pool_cw_max_bwd0_32_bf16},
     {pool_cw_max_bwd1_16_bf16, pool_cw_max_bwd1_32_bf16}}};
/* [16-bit type][mode][lanes 8 / 16 / 32] */
static const pool_cw_kernel_t pool_cw8_kernels[2][2][3] = {
    {{pool_cw8_max_bwd0_8_f16, pool_cw8_max_bwd0_16_f16, pool_cw8_max_bwd0_32_f16},
     {pool_cw8_max_bwd1_8_f16, pool_cw8_max_bwd1_16_f16, pool_cw8_max_bwd1_32_f16}},
    {{pool_cw8_max_bwd0_8_bf16, pool_cw8_max_bwd0_16_bf16, pool_cw8_max_bwd0_32_bf16},
     {pool_cw8_max_bwd1_8_bf16, pool_cw8_max_bwd1_16_bf16, pool_cw8_max_bwd1_32_bf16}}};
