/* SPDX-License-Identifier: MIT */
/*
 * pooling_avgv.cuh - channels-last 2-d average pooling of stride 2 with windows of 2 or 3
 * (both average modes, padding >= 0: pool_s2_ok's set), FLOAT / HALF / BFLOAT16, forward and
 * backward (FREEDNN_GPU_POOL_AVGV, 2026-12-02). pooling.cu includes it once, after
 * pooling_s2g.cuh (whose lane helpers it uses); pool_avgv_ok decides.
 *
 * Why: these calls took the channels-last H-sweeps pool_s2_fwd_vec / pool_s2_bwd_vec: 8-byte
 * channel vectors (half a warp's 512-byte line per access), each step's loads issued after the
 * previous step's arithmetic (one step in flight), and the backward loaded and masked 5 columns
 * of x per step it does not need for an average. f16 n32 C 256 56 x 56 2x2 / 2 on the H200:
 * forward 1574 GB/s, backward 378 GB/s (NCHW's avg22 kernels: 3578 / 3322).
 *
 * Decisions:
 * - Forward: a thread per 16-byte channel vector of y (n, i, j, vector; the vector fastest, so
 *   a warp stores 512 contiguous bytes): every cell of its window loaded before the sums (2x2:
 *   4 x 16 B in flight, 3x3: 9), no loop-carried state. Per lane: the readable cells summed in
 *   double in row-major order from 0.0 (window_sum's order and terms; unreadable cells are
 *   skipped, not added), divided by the window's count (pool_s2_count's value: readable or
 *   padded cells, a product of small integers), 0.0 for an empty window, then the alpha / beta
 *   blend (__dmul_rn / __dadd_rn) rounded once: the same bits as pool_s2_fwd_vec and src/ref.
 *   A count that is a power of two multiplies by its reciprocal (exact: x / 2^k and x * 2^-k
 *   are the same real number, rounded the same way).
 * - Backward: a thread per 2 x 2 dx block (rows 2t, 2t + 1, columns 2s, 2s + 1) of one 16-byte
 *   channel vector, no loop: with stride 2 and windows of at most 3, those rows lie only in
 *   window rows ih - 1 and ih, ih = t + (pad_h + 1) / 2 (columns likewise), so the thread loads
 *   the dy of those (up to) four windows at once, then per lane takes dy / count of each once
 *   and adds, per dx cell, those of the windows covering it in ascending (i, j) order to 0.0:
 *   src/ref's sum, the same bits. Uncovered cells (a floor-mode odd edge) get 0.0, blended.
 *   x is not read.
 * - 2x2 / 2 pad 0 (pool_avgv_{fwd,bwd}22_*): the same bodies with the window literal, so the
 *   backward loads its one dy vector, computes one value per lane and stores it to the four
 *   cells (beta == 0: one packed vector stored four times).
 * - 32-bit index math: pool_s2_ok bounded every offset below 2^31 - 64, pool_avgv_ok the threads
 *   below 2^31 - 256. One thread per output item, no grid-stride loop.
 * ptxas (CUDA 13, 0 spills; registers and blocks an SM): at POOL_AVGV_MINB below.
 */

/* FREEDNN_GPU_POOL_AVGV=0 keeps the channels-last averages on the sweeps of pooling_s2.cuh;
 * read once per process (a function-local static). */
static int pool_avgv_on(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_POOL_AVGV");
    return on;
}

/* Cells of window i along one dim (start 2i - pad, width win) that count: inside [0, in) for
 * AVERAGE_COUNT_EXCLUDE_PADDING, inside [-pad, in + pad) with padding (start >= -pad). */
static __device__ __forceinline__ int pool_avgv_span(int i, int win, int pad, int in, int incl)
{
    const int st = 2 * i - pad;
    const int hi = min(st + win, incl ? in + pad : in), lo = incl ? st : max(st, 0);
    return max(hi - lo, 0);
}

/* 1 / cnt when cnt > 0 is a power of two (built from the exponent), else 0. */
static __device__ __forceinline__ double pool_avgv_rcp(int cnt)
{
    return cnt > 0 && (cnt & (cnt - 1)) == 0
               ? __longlong_as_double((long long)(1023 - (__ffs(cnt) - 1)) << 52)
               : 0.0;
}

/* v / cnt (cnt > 0), by the reciprocal rc when cnt is a power of two (pool_avgv_rcp; the same
 * bits: v / 2^k and v * 2^-k are the same real number, rounded once). */
static __device__ __forceinline__ double pool_avgv_div(double v, int cnt, double rc)
{
    return rc != 0.0 ? __dmul_rn(v, rc) : __ddiv_rn(v, (double)cnt);
}

/* Pack lane l's storage bits into a 16-byte vector's words. */
static __device__ __forceinline__ void pool_avgv_put(unsigned *w, int l, unsigned bits,
                                                     const int ty)
{
    if (ty == POOL_S2G_F32)
        w[l] = bits;
    else if (l & 1)
        w[l >> 1] |= bits << 16;
    else
        w[l >> 1] = bits;
}

/* This thread's item (n, row, column, vector) of a grid of n x rows x cols x cvn, the vector
 * fastest; false past the last image (planes = N here). */
static __device__ __forceinline__ bool pool_avgv_item(const pool_s2_t &q, int cvn, int cols,
                                                      int rows, int *cv, int *col, int *row,
                                                      int *n)
{
    int e = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    *cv = e % cvn;
    e /= cvn;
    *col = e % cols;
    e /= cols;
    *row = e % rows, *n = e / rows;
    return *n < q.planes;
}

/* The storage bits of lane l: alpha * v (+ beta * lane l of old when beta != 0), each product
 * and the sum rounded separately (fd_cuda_blend's rule), then once to the type. */
static __device__ __forceinline__ unsigned pool_avgv_blend(double v, double alpha, double beta,
                                                           const uint4 &old, int l, const int ty)
{
    double r = __dmul_rn(alpha, v);
    if (beta != 0.0)
        r = __dadd_rn(r, __dmul_rn(beta, (double)pool_s2g_lane16(old, l, ty)));
    return pool_s2g_bits(r, ty);
}

/* Forward: thread = (n, i, j, vector cv), cv fastest; W = 2 and pad 0 when lean (literal). */
static __device__ __forceinline__ void pool_avgv_fwd_body(const pool_s2_t &q, int cvn,
                                                          const void *xv, void *yv, double alpha,
                                                          double beta, const int ty,
                                                          const bool lean)
{
    const int L = ty == POOL_S2G_F32 ? 4 : 8; /* lanes of a 16-byte vector */
    const int wh = lean ? 2 : q.win_h, ww = lean ? 2 : q.win_w;
    const int ph = lean ? 0 : q.pad_h, pw = lean ? 0 : q.pad_w;
    int cv, j, i, n;
    if (!pool_avgv_item(q, cvn, q.out_w, q.out_h, &cv, &j, &i, &n))
        return;
    const void *xc = pool_s2g_at(xv, n * q.xs_n + cv * L, ty);
    void *yp = pool_s2g_atw(yv, n * q.gs_n + i * q.gs_h + j * q.gs_w + cv * L, ty);
    const int r0 = 2 * i - ph, c0 = 2 * j - pw;
    uint4 xr[3][3];
    int ok = 0; /* bit 3 kr + kc: cell (kr, kc) of the window is read */
#pragma unroll
    for (int kr = 0; kr < 3; kr++)
#pragma unroll
        for (int kc = 0; kc < 3; kc++) {
            const int row = r0 + kr, col = c0 + kc;
            xr[kr][kc] = make_uint4(0u, 0u, 0u, 0u);
            if ((lean ? kr < 2 && kc < 2 : kr < wh && kc < ww) && row >= 0 && row < q.in_h &&
                col >= 0 && col < q.in_w) {
                xr[kr][kc] = *(const uint4 *)pool_s2g_at(xc, row * q.xs_h + col * q.xs_w, ty);
                ok |= 1 << (3 * kr + kc);
            }
        }
    uint4 old = make_uint4(0u, 0u, 0u, 0u);
    if (beta != 0.0)
        old = *(const uint4 *)yp;
    const int cnt = pool_avgv_span(i, wh, ph, q.in_h, q.include_pad) *
                    pool_avgv_span(j, ww, pw, q.in_w, q.include_pad);
    const double rc = pool_avgv_rcp(cnt);
    unsigned r[4];
#pragma unroll
    for (int l = 0; l < 8; l++) {
        if (l >= L)
            continue;
        double s = 0.0;
#pragma unroll
        for (int k = 0; k < 9; k++)
            if ((!lean || (k / 3 < 2 && k % 3 < 2)) && ((ok >> k) & 1))
                s += (double)pool_s2g_lane16(xr[k / 3][k % 3], l, ty);
        pool_avgv_put(r, l,
                      pool_avgv_blend(cnt > 0 ? pool_avgv_div(s, cnt, rc) : 0.0, alpha, beta,
                                      old, l, ty),
                      ty);
    }
    *(uint4 *)yp = make_uint4(r[0], r[1], r[2], r[3]);
}

/* Backward: thread = (n, t, s, vector cv), cv fastest: dx rows 2t, 2t + 1, columns 2s, 2s + 1;
 * tp, sp: the row and column pairs ((in + 1) / 2). */
static __device__ __forceinline__ void pool_avgv_bwd_body(const pool_s2_t &q, int cvn, int sp,
                                                          int tp, const void *dyv, void *dxv,
                                                          double alpha, double beta,
                                                          const int ty)
{
    const int L = ty == POOL_S2G_F32 ? 4 : 8;
    const int wh = q.win_h, ww = q.win_w, ph = q.pad_h, pw = q.pad_w;
    int cv, s, t, n;
    if (!pool_avgv_item(q, cvn, sp, tp, &cv, &s, &t, &n))
        return;
    const void *dyc = pool_s2g_at(dyv, n * q.gs_n + cv * L, ty);
    void *dxc = pool_s2g_atw(dxv, n * q.ds_n + cv * L, ty);
    /* candidate windows (ih - 1 + di, jh - 1 + dj), di, dj in {0, 1} */
    const int ih = t + ((ph + 1) >> 1), jh = s + ((pw + 1) >> 1);
    uint4 g[2][2];
    int cnt[2][2];
    double rc[2][2];
    int cov[2][2] = {{0, 0}, {0, 0}}; /* bit 2a + b: window covers dx cell (2t + a, 2s + b) */
#pragma unroll
    for (int di = 0; di < 2; di++)
#pragma unroll
        for (int dj = 0; dj < 2; dj++) {
            const int i = ih - 1 + di, j = jh - 1 + dj;
            g[di][dj] = make_uint4(0u, 0u, 0u, 0u);
            cnt[di][dj] = 1, rc[di][dj] = 1.0;
            if (i < 0 || i >= q.out_h || j < 0 || j >= q.out_w)
                continue;
            g[di][dj] = *(const uint4 *)pool_s2g_at(dyc, i * q.gs_h + j * q.gs_w, ty);
            cnt[di][dj] = pool_avgv_span(i, wh, ph, q.in_h, q.include_pad) *
                          pool_avgv_span(j, ww, pw, q.in_w, q.include_pad);
            rc[di][dj] = pool_avgv_rcp(cnt[di][dj]);
#pragma unroll
            for (int a = 0; a < 2; a++)
#pragma unroll
                for (int b = 0; b < 2; b++) {
                    const int rr = 2 * t + a - (2 * i - ph), cc = 2 * s + b - (2 * j - pw);
                    if (rr >= 0 && rr < wh && cc >= 0 && cc < ww)
                        cov[di][dj] |= 1 << (2 * a + b);
                }
        }
    bool in[4];
    uint4 old[4];
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const int row = 2 * t + (k >> 1), col = 2 * s + (k & 1);
        in[k] = row < q.in_h && col < q.in_w;
        old[k] = make_uint4(0u, 0u, 0u, 0u);
        if (beta != 0.0 && in[k])
            old[k] = *(const uint4 *)pool_s2g_at(dxc, row * q.ds_h + col * q.ds_w, ty);
    }
    unsigned r[4][4];
#pragma unroll
    for (int l = 0; l < 8; l++) {
        if (l >= L)
            continue;
        double gq[2][2];
#pragma unroll
        for (int di = 0; di < 2; di++)
#pragma unroll
            for (int dj = 0; dj < 2; dj++)
                gq[di][dj] = pool_avgv_div((double)pool_s2g_lane16(g[di][dj], l, ty), cnt[di][dj],
                                           rc[di][dj]);
#pragma unroll
        for (int k = 0; k < 4; k++) {
            double acc = 0.0;
#pragma unroll
            for (int di = 0; di < 2; di++)
#pragma unroll
                for (int dj = 0; dj < 2; dj++)
                    if ((cov[di][dj] >> k) & 1)
                        acc += gq[di][dj];
            pool_avgv_put(r[k], l, pool_avgv_blend(acc, alpha, beta, old[k], l, ty), ty);
        }
    }
#pragma unroll
    for (int k = 0; k < 4; k++) {
        if (!in[k])
            continue;
        const int row = 2 * t + (k >> 1), col = 2 * s + (k & 1);
        *(uint4 *)pool_s2g_atw(dxc, row * q.ds_h + col * q.ds_w, ty) =
            make_uint4(r[k][0], r[k][1], r[k][2], r[k][3]);
    }
}

/* 0.0 + lane l of g / cnt (src/ref's sum of one window), 0.0 without a window. */
static __device__ __forceinline__ double pool_avgv_one(const uint4 &g, int l, bool wok, int cnt,
                                                       double rc, const int ty)
{
    double acc = 0.0;
    if (wok)
        acc += pool_avgv_div((double)pool_s2g_lane16(g, l, ty), cnt, rc);
    return acc;
}

/* Backward of 2x2 / 2 pad 0: dx block (2t, 2s) lies in window (t, s) alone (none past a
 * floor-mode edge): one dy vector, one value per lane, 0.0 + dy / count blended; with beta 0
 * one packed vector stored to the block's (up to) four cells. */
static __device__ __forceinline__ void pool_avgv_bwd22_body(const pool_s2_t &q, int cvn, int sp,
                                                            int tp, const void *dyv, void *dxv,
                                                            double alpha, double beta,
                                                            const int ty)
{
    const int L = ty == POOL_S2G_F32 ? 4 : 8;
    int cv, s, t, n;
    if (!pool_avgv_item(q, cvn, sp, tp, &cv, &s, &t, &n))
        return;
    void *dxc = pool_s2g_atw(dxv, n * q.ds_n + cv * L, ty);
    const bool wok = t < q.out_h && s < q.out_w;
    uint4 g = make_uint4(0u, 0u, 0u, 0u);
    int cnt = 1;
    if (wok) {
        g = *(const uint4 *)pool_s2g_at(dyv, n * q.gs_n + t * q.gs_h + s * q.gs_w + cv * L, ty);
        cnt = pool_avgv_span(t, 2, 0, q.in_h, q.include_pad) *
              pool_avgv_span(s, 2, 0, q.in_w, q.include_pad);
    }
    const double rc = pool_avgv_rcp(cnt);
    if (beta == 0.0) {
        unsigned r[4];
#pragma unroll
        for (int l = 0; l < 8; l++) {
            if (l >= L)
                continue;
            const double acc = pool_avgv_one(g, l, wok, cnt, rc, ty);
            pool_avgv_put(r, l, pool_avgv_blend(acc, alpha, 0.0, g, l, ty), ty);
        }
        const uint4 w = make_uint4(r[0], r[1], r[2], r[3]);
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int row = 2 * t + (k >> 1), col = 2 * s + (k & 1);
            if (row < q.in_h && col < q.in_w)
                *(uint4 *)pool_s2g_atw(dxc, row * q.ds_h + col * q.ds_w, ty) = w;
        }
        return;
    }
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const int row = 2 * t + (k >> 1), col = 2 * s + (k & 1);
        if (row >= q.in_h || col >= q.in_w)
            continue;
        void *p = pool_s2g_atw(dxc, row * q.ds_h + col * q.ds_w, ty);
        const uint4 old = *(const uint4 *)p;
        unsigned r[4];
#pragma unroll
        for (int l = 0; l < 8; l++) {
            if (l >= L)
                continue;
            const double acc = pool_avgv_one(g, l, wok, cnt, rc, ty);
            pool_avgv_put(r, l, pool_avgv_blend(acc, alpha, beta, old, l, ty), ty);
        }
        *(uint4 *)p = make_uint4(r[0], r[1], r[2], r[3]);
    }
}

/* Blocks of 256 an SM. ptxas (CUDA 13), registers sm_90 (sm_80), 0 spills:
 * pool_avgv_fwd_*: f32 94 (94), f16 / bf16 74 (74): 2 blocks (a bound of 3 spilled);
 * pool_avgv_bwd_*: f32 102 (102), f16 / bf16 92 (92): 2 blocks (3 spilled);
 * pool_avgv_fwd22_*: f32 62, f16 / bf16 52: 4 (f16: 1024 threads x 64 B of x in flight);
 * pool_avgv_bwd22_*: f32 56 (54), f16 / bf16 46: 4 and 5 (16 B of dy feed 64 B of dx stores). */
#define POOL_AVGV_MINB 2
#define POOL_AVGV_MINB22 4
#define POOL_AVGV_KERNELS(sfx, ty)                                                                 \
    static __global__ void __launch_bounds__(FD_CUDA_BLOCK, POOL_AVGV_MINB)                       \
        pool_avgv_fwd_##sfx(const pool_s2_t q, int cvn, const void *xv, void *yv, double alpha,    \
                            double beta)                                                           \
    {                                                                                              \
        pool_avgv_fwd_body(q, cvn, xv, yv, alpha, beta, ty, false);                                \
    }                                                                                              \
    static __global__ void __launch_bounds__(FD_CUDA_BLOCK, POOL_AVGV_MINB22)                     \
        pool_avgv_fwd22_##sfx(const pool_s2_t q, int cvn, const void *xv, void *yv, double alpha,  \
                              double beta)                                                         \
    {                                                                                              \
        pool_avgv_fwd_body(q, cvn, xv, yv, alpha, beta, ty, true);                                 \
    }                                                                                              \
    static __global__ void __launch_bounds__(FD_CUDA_BLOCK, POOL_AVGV_MINB)                       \
        pool_avgv_bwd_##sfx(const pool_s2_t q, int cvn, int sp, int tp, const void *dyv,           \
                            void *dxv, double alpha, double beta)                                  \
    {                                                                                              \
        pool_avgv_bwd_body(q, cvn, sp, tp, dyv, dxv, alpha, beta, ty);                             \
    }                                                                                              \
    static __global__ void __launch_bounds__(FD_CUDA_BLOCK, POOL_AVGV_MINB22)                     \
        pool_avgv_bwd22_##sfx(const pool_s2_t q, int cvn, int sp, int tp, const void *dyv,         \
                              void *dxv, double alpha, double beta)                                \
    {                                                                                              \
        pool_avgv_bwd22_body(q, cvn, sp, tp, dyv, dxv, alpha, beta, ty);                           \
    }
POOL_AVGV_KERNELS(f32, POOL_S2G_F32)
POOL_AVGV_KERNELS(f16, POOL_S2G_F16)
POOL_AVGV_KERNELS(bf16, POOL_S2G_BF16)
#undef POOL_AVGV_KERNELS
