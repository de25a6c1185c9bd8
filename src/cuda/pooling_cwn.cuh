/* SPDX-License-Identifier: MIT */
/*
 * pooling_cwn.cuh - max-pool backward of ResNet's 3x3 / 2 pad 1 window channels-last (NHWC) by
 * column walks (FREEDNN_GPU_POOL_CWN), FLOAT, HALF, BFLOAT16: pool_cwn_max_bwd<TY, FAST>.
 * pooling.cu includes it once, after pooling_s2g.cuh (whose helpers it uses) and pooling_cw.cuh;
 * pool_cwn_ok decides, before pool_s2g_nhwc_ok. pool_s2g_max_bwd_nhwc_* (a thread per 2 x 2 dx
 * block, 25 x cells loaded and 4 windows evaluated for 4 dx cells) ran f16 n32c256h56w56 at 1817
 * GB/s, f32 n32c128h56w56 at 1949; this walk, dev/pool_bwd_nhwc's v2, ran 2440 / 2868 GB/s (x +
 * dy + dx bytes, H200, copy ceiling 4033, 2026-12-03), the same bits on both problems and 17
 * small shapes a type (ties, specials, blends). dnnbench --vs NVIDIA (graph, 2026-12-03 11:29
 * UTC): f16 1789 -> 2512 GB/s (3.39 -> 4.77x NVIDIA), f32 1877 -> 2772 (1.93 -> 2.84x).
 *
 * Decisions:
 * - A thread owns (n, strip of R window rows t0 .. t1 - 1, column pair s, 16-byte channel vector
 *   cv), cv fastest in the thread index: a warp stores 512 contiguous bytes of one pixel. Its
 *   dx cells are rows 2 t0 - 1 .. 2 t1 - 2 (row 2t - 1 lies in window rows t - 1 and t, row 2t
 *   in t only) at columns 2s (window column s only) and 2s + 1 (s and s + 1).
 * - It walks down the strip: step t loads x rows 2t and 2t + 1 at columns 2s - 1 .. 2s + 3
 *   (row 2t - 1 kept from step t - 1; cells outside x hold -inf, never picked), the dy of
 *   windows (t, s) and (t, s + 1), evaluates both windows' codes ((t, s + 1) again by the next
 *   column pair's thread: its cells are L1 hits), then stores dx rows 2t - 1 and 2t at both
 *   columns (4 16-byte stores). A strip after the first begins with a halo step (window row
 *   t0 - 1, no stores); the plane's last strip ends with a step for dx row 2 OH - 1 (H even).
 *   10 x loads a step for 4 compulsory cells against the gather's 25 for 4; 2 window
 *   evaluations a window against 4.
 * - Codes: pool_s2g_code per lane (FLOAT), pool_s2g_code2 on lane pairs (16-bit), code + 1 in
 *   4 bits a lane: window_max's first max, PROPAGATE_NAN's first NaN, none for a window of
 *   -inf / NaN / padding, src/ref's picks.
 * - Sums: src/ref adds the routed dy in double from 0.0 in ascending window order and rounds
 *   once after the blend. One kernel a type; inside it, with alpha 1 and beta 0, an element of
 *   at most two routed terms (all but the (odd, odd) cells) sums in float and rounds once to
 *   the type (__float2half_rn / __float2bfloat16_rn): double rounding of a sum of two values
 *   of precision p through precision >= 2p + 2 is innocuous (53 >= 2 x 24 + 2, 24 >= 2 x 11 + 2
 *   and 2 x 8 + 2), so these are src/ref's bits; the (odd, odd) cells (up to four terms) and
 *   other blends stay in double. alpha 1, beta 0 launch pool_cwn_max_bwd<TY, true>, whose
 *   lanes do not test the blend (dev/pool_bwd_nhwc v11: 2444 -> 2546 GB/s f16, 2874 -> 2941
 *   f32, H200, 2026-12-03 20:45 UTC; f32 PTX 1860 -> 1534 instructions; dnnbench --vs
 *   NVIDIA, graph, 21:03 UTC: f16 2512 -> 2606 GB/s, 4.93x NVIDIA; f32 2772 -> 2839, 2.91x);
 *   other blends pool_cwn_max_bwd<TY, false>.
 * - Strips of 14 window rows (FREEDNN_GPU_POOL_CWN_R; balanced): 224 blocks of 256 at the
 *   timed problems, under one wave at 2 an SM. Strips of 7 (448 blocks) ran 2374 / 2744, one
 *   strip a plane slower, a row of look-ahead (v6: 125-128 registers) 2293 / 2727, a warp of
 *   column-pair lanes with shuffles (v7..v10) slower still: the halo row a strip (1 / R extra
 *   x rows, L2 hits) costs less than a second wave.
 * - Needs pool_vec_ok (C a multiple of the vector, 16-byte aligned pointers and strides) and y
 *   of the floor sizes ((H + 1) / 2 x (W + 1) / 2: every dx cell under the walk, none past x).
 * - ptxas (CUDA 13, blocks of 256, 2 an SM): see POOL_CWN_MINB.
 */

#define POOL_CWN_THREADS 256
/* blocks of 256 an SM: 2 (ptxas, CUDA 13, general / FAST kernels: sm_90 f32 113 / 111, f16
 * 115 / 111, bf16 118 / 112 registers; sm_80 106 / 105, 108 / 105, 124 / 123; 0 spills) */
#define POOL_CWN_MINB 2

/* x cell (row, col) of the thread's channel vector; -inf outside x. */
template <int TY>
static __device__ __forceinline__ uint4 pool_cwn_ldx(const void *xc, const pool_s2_t &q, int row,
                                                     int col)
{
    if (row < 0 || row >= q.in_h || col < 0 || col >= q.in_w)
        return pool_s2g_ninf16(TY);
    return *(const uint4 *)pool_s2g_at(xc, row * q.xs_h + col * q.xs_w, TY);
}

/* x row `row` at the thread's 5 columns c0 .. c0 + 4. */
template <int TY>
static __device__ __forceinline__ void pool_cwn_row(uint4 *v, const void *xc, const pool_s2_t &q,
                                                    int row, int c0)
{
#pragma unroll
    for (int l = 0; l < 5; l++)
        v[l] = pool_cwn_ldx<TY>(xc, q, row, c0 + l);
}

/* The code word (code + 1 in bits 4l .. 4l + 3 of lane l) of the window on rows a, b, c at
 * columns off .. off + 2 (off a literal) of the thread's 5. */
template <int TY>
static __device__ __forceinline__ unsigned pool_cwn_code(const uint4 *a, const uint4 *b,
                                                         const uint4 *c, const int off, int prop)
{
    unsigned cw = 0u;
    if (TY != POOL_S2G_F32) {
#pragma unroll
        for (int p = 0; p < 4; p++) {
            unsigned v[9];
#pragma unroll
            for (int k = 0; k < 3; k++) {
                v[k] = pool_s2g_word(a[off + k], p);
                v[3 + k] = pool_s2g_word(b[off + k], p);
                v[6 + k] = pool_s2g_word(c[off + k], p);
            }
            const unsigned cd = prop ? pool_s2g_code2(v, true, TY) : pool_s2g_code2(v, false, TY);
            cw |= ((cd & 0xfu) | (cd >> 12 & 0xf0u)) << (8 * p);
        }
    } else {
#pragma unroll
        for (int l = 0; l < 4; l++) {
            float img[9];
#pragma unroll
            for (int k = 0; k < 3; k++) {
                img[k] = pool_s2g_lane16(a[off + k], l, TY);
                img[3 + k] = pool_s2g_lane16(b[off + k], l, TY);
                img[6 + k] = pool_s2g_lane16(c[off + k], l, TY);
            }
            cw |= (unsigned)(pool_s2g_code(img, prop) + 1) << (4 * l);
        }
    }
    return cw;
}

/* A term routed to a dx cell: a window's code word, the code + 1 that picks the cell, its dy. */
struct pool_cwn_term {
    unsigned w, k;
    uint4 g;
};

/* Stores the dx vector at p from NT terms in ascending window order. fast: alpha 1, beta 0
 * (float sums for NT <= 2, rounded once). */
template <int TY, int NT>
static __device__ __forceinline__ void pool_cwn_store(void *p, const pool_cwn_term *tm, bool fast,
                                                      double alpha, double beta)
{
    const int L = TY == POOL_S2G_F32 ? 4 : 8;
    uint4 old = make_uint4(0u, 0u, 0u, 0u);
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
            r[l] = TY == POOL_S2G_F32   ? __float_as_uint(acc)
                   : TY == POOL_S2G_F16 ? (unsigned)__half_as_ushort(__float2half_rn(acc))
                                        : (unsigned)__bfloat16_as_ushort(__float2bfloat16_rn(acc));
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
        *(uint4 *)p =
            make_uint4(r[0] | r[1] << 16, r[2] | r[3] << 16, r[4] | r[5] << 16, r[6] | r[7] << 16);
}

/* One thread's walk: cvn vectors a pixel, R window rows a strip, nst strips a plane. FAST: launched
 * for alpha 1, beta 0 only (no per-lane test of the blend in pool_cwn_store). */
template <int TY, bool FAST>
static __device__ __forceinline__ void pool_cwn_body(const pool_s2_t &q, int cvn, int R, int nst,
                                                     const void *xv, const void *dyv, void *dxv,
                                                     double alpha, double beta)
{
    const int L = TY == POOL_S2G_F32 ? 4 : 8;
    int e = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int cv = e % cvn;
    e /= cvn;
    const int s = e % q.out_w;
    e /= q.out_w;
    const int st = e % nst, n = e / nst;
    if (n >= q.planes) /* planes = N here */
        return;
    const bool fast = FAST || (alpha == 1.0 && beta == 0.0);
    const int prop = q.propagate;
    const void *xc = pool_s2g_at(xv, n * q.xs_n + cv * L, TY);
    const void *dyc = pool_s2g_at(dyv, n * q.gs_n + cv * L, TY);
    void *dxc = pool_s2g_atw(dxv, n * q.ds_n + cv * L, TY);
    const int t0 = st * R, t1 = min(t0 + R, q.out_h);
    const int tb = t0 > 0 ? t0 - 1 : 0, te = t1 == q.out_h ? t1 : t1 - 1;
    const int c0 = 2 * s - 1; /* x column of the thread's column 0 */
    const bool has1 = s + 1 < q.out_w, odd = 2 * s + 1 < q.in_w;

    uint4 a[5], b[5], c[5]; /* x rows 2t - 1, 2t, 2t + 1 */
    pool_cwn_row<TY>(a, xc, q, 2 * tb - 1, c0);
    unsigned kp0 = 0u, kp1 = 0u; /* code words of windows (t - 1, s), (t - 1, s + 1) */
    uint4 gp0 = make_uint4(0u, 0u, 0u, 0u), gp1 = gp0;
    for (int t = tb; t <= te; t++) {
        pool_cwn_row<TY>(b, xc, q, 2 * t, c0);
        pool_cwn_row<TY>(c, xc, q, 2 * t + 1, c0);
        const bool w = t < q.out_h;
        uint4 g0 = make_uint4(0u, 0u, 0u, 0u), g1 = g0; /* dy of windows (t, s), (t, s + 1) */
        if (w)
            g0 = *(const uint4 *)pool_s2g_at(dyc, t * q.gs_h + s * q.gs_w, TY);
        if (w && has1)
            g1 = *(const uint4 *)pool_s2g_at(dyc, t * q.gs_h + (s + 1) * q.gs_w, TY);
        const unsigned k0 = w ? pool_cwn_code<TY>(a, b, c, 0, prop) : 0u;
        const unsigned k1 = w && has1 ? pool_cwn_code<TY>(a, b, c, 2, prop) : 0u;
        if (t >= t0) {
            const int r = 2 * t - 1; /* cells 6..8 of window row t - 1, 0..2 of row t */
            if (r >= 0 && r < q.in_h) {
                void *p = pool_s2g_atw(dxc, r * q.ds_h + 2 * s * q.ds_w, TY);
                const pool_cwn_term e0[2] = {{kp0, 8u, gp0}, {k0, 2u, g0}};
                pool_cwn_store<TY, 2>(p, e0, fast, alpha, beta);
                if (odd) {
                    const pool_cwn_term e1[4] = {
                        {kp0, 9u, gp0}, {kp1, 7u, gp1}, {k0, 3u, g0}, {k1, 1u, g1}};
                    pool_cwn_store<TY, 4>(pool_s2g_atw(p, q.ds_w, TY), e1, fast, alpha, beta);
                }
            }
            if (t < t1) { /* dx row 2t: cells 3..5 of window row t */
                void *p = pool_s2g_atw(dxc, 2 * t * q.ds_h + 2 * s * q.ds_w, TY);
                const pool_cwn_term e0[1] = {{k0, 5u, g0}};
                pool_cwn_store<TY, 1>(p, e0, fast, alpha, beta);
                if (odd) {
                    const pool_cwn_term e1[2] = {{k0, 6u, g0}, {k1, 4u, g1}};
                    pool_cwn_store<TY, 2>(pool_s2g_atw(p, q.ds_w, TY), e1, fast, alpha, beta);
                }
            }
        }
#pragma unroll
        for (int l = 0; l < 5; l++)
            a[l] = c[l];
        kp0 = k0, kp1 = k1, gp0 = g0, gp1 = g1;
    }
}

/* pool_cwn_max_bwd<TY, FAST>: FAST for alpha 1, beta 0 (pool_cwn_kernel picks). */
template <int TY, bool FAST>
static __global__ void __launch_bounds__(POOL_CWN_THREADS, POOL_CWN_MINB)
    pool_cwn_max_bwd(const pool_s2_t q, int cvn, int R, int nst, const void *xv, const void *dyv,
                     void *dxv, double alpha, double beta)
{
    pool_cwn_body<TY, FAST>(q, cvn, R, nst, xv, dyv, dxv, alpha, beta);
}

typedef void (*pool_cwn_fn)(const pool_s2_t, int, int, int, const void *, const void *, void *,
                            double, double);

/* The walk for type ty (POOL_S2G_*) and the blend alpha, beta. */
static pool_cwn_fn pool_cwn_kernel(int ty, double alpha, double beta)
{
    const bool fast = alpha == 1.0 && beta == 0.0;
    if (ty == POOL_S2G_F32)
        return fast ? pool_cwn_max_bwd<POOL_S2G_F32, true> : pool_cwn_max_bwd<POOL_S2G_F32, false>;
    if (ty == POOL_S2G_F16)
        return fast ? pool_cwn_max_bwd<POOL_S2G_F16, true> : pool_cwn_max_bwd<POOL_S2G_F16, false>;
    return fast ? pool_cwn_max_bwd<POOL_S2G_BF16, true> : pool_cwn_max_bwd<POOL_S2G_BF16, false>;
}
