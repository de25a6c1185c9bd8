/* SPDX-License-Identifier: MIT */
/*
 * pooling_s2g.cuh - FLOAT max-pool backward of ResNet's 3x3 / 2 pad 1 window with W innermost
 * as a gather (FREEDNN_GPU_BW3; pooling.cu includes it once, after the stamped kernels, and
 * pool_s2g_ok decides). The H-sweep (pool_s2_bwd / _occ) ran 0.65x NVIDIA's rate on the H200
 * (1334 vs 2041 GB/s, 2026-12-01) whatever its occupancy or look-ahead: each step waits on its
 * loads, its scalar loads and stores touch every other element of a row per instruction.
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
 */

/* Blocks of 256 an SM: 4 (64 registers, 0 spills, sm_80 / sm_90: 1024 threads an SM);
 * pool_s2g_max_bwd3_f32 (FREEDNN_GPU_BW3_S2G_MINB=3, for the A/B) 3 (72 registers). */
#define POOL_S2G_MINB 4
#define POOL_S2G_MINB3 3
#define POOL_S2G_NINF __int_as_float(0xff800000) /* -inf */

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

/* The loads of one x row (rok: the row is readable and the thread live): its vector at column
 * c0 = 4m (per element in the row's partial last vector) and the end lanes' neighbours hl
 * (column c0 - 1, lane 0) and hr (c0 + 4, c0 + 5, lane 31); cells outside x hold -inf. */
static __device__ __forceinline__ void pool_s2g_load(const float *xr, bool rok, int c0, int in_w,
                                                     int lane, float4 *o, float *hl, float2 *hr)
{
    const float ni = POOL_S2G_NINF;
    *o = make_float4(ni, ni, ni, ni);
    *hl = ni;
    *hr = make_float2(ni, ni);
    if (!rok)
        return;
    if (c0 + 3 < in_w) {
        *o = *(const float4 *)(xr + c0);
    } else {
        o->x = xr[c0]; /* c0 < in_w: the thread's group exists */
        if (c0 + 1 < in_w)
            o->y = xr[c0 + 1];
        if (c0 + 2 < in_w)
            o->z = xr[c0 + 2];
    }
    if (lane == 0 && c0 > 0)
        *hl = xr[c0 - 1];
    if (lane == 31 && c0 + 4 < in_w) {
        hr->x = xr[c0 + 4];
        if (c0 + 5 < in_w)
            hr->y = xr[c0 + 5];
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

/* dx = alpha * acc + beta * dx (fd_cuda_blend's rule and roundings) for a whole vector. */
static __device__ __forceinline__ void pool_s2g_store4(float *p, double alpha, double beta,
                                                       const double *acc)
{
    float4 old = make_float4(0.f, 0.f, 0.f, 0.f);
    if (beta != 0.0)
        old = *(const float4 *)p;
    const float ov[4] = {old.x, old.y, old.z, old.w};
    float r[4];
#pragma unroll
    for (int b = 0; b < 4; b++) {
        double s = __dmul_rn(alpha, acc[b]);
        if (beta != 0.0)
            s = __dadd_rn(s, __dmul_rn(beta, (double)ov[b]));
        r[b] = (float)s;
    }
    *(float4 *)p = make_float4(r[0], r[1], r[2], r[3]);
}

/* Thread e: column group m = e % groups, row pair t, plane; lanes along m. Threads past the
 * last plane load nothing and store nothing but take part in the shuffles. */
static __device__ __forceinline__ void pool_s2g_body(const pool_s2_t &q, int groups, int pairs,
                                                     const void *xv, const void *dyv, void *dxv,
                                                     double alpha, double beta)
{
    const float *__restrict__ x = (const float *)xv;
    const float *__restrict__ dy = (const float *)dyv;
    float *__restrict__ dx = (float *)dxv;
    const int lane = (int)(threadIdx.x & 31);
    const int e = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int m = e % groups, r = e / groups, t = r % pairs, pl0 = r / pairs;
    const bool live = pl0 < q.planes;
    const int pl = live ? pl0 : 0;
    const int n = pl / q.c, c = pl - n * q.c;
    const float *xc = x + (n * q.xs_n + c * q.xs_c);
    const float *dyc = dy + (n * q.gs_n + c * q.gs_c);
    float *dxc = dx + (n * q.ds_n + c * q.ds_c);
    const int c0 = 4 * m, x0 = 2 * t - 1; /* x row of image row 0 */

    /* every load first: five x rows, six dy */
    float4 o[5];
    float hl[5];
    float2 hr[5];
#pragma unroll
    for (int k = 0; k < 5; k++) {
        const int row = x0 + k;
        const bool rok = live && row >= 0 && row < q.in_h;
        pool_s2g_load(xc + (rok ? row * q.xs_h : 0), rok, c0, q.in_w, lane, &o[k], &hl[k], &hr[k]);
    }
    float g[2][3];
    bool wok[2][3];
#pragma unroll
    for (int di = 0; di < 2; di++)
#pragma unroll
        for (int dj = 0; dj < 3; dj++) {
            const int i = t + di, j = 2 * m + dj;
            wok[di][dj] = live && i < q.out_h && j < q.out_w;
            g[di][dj] = wok[di][dj] ? dyc[i * q.gs_h + j * q.gs_w] : 0.f;
        }

    float v[5][7]; /* x rows 2t - 1 .. 2t + 3, columns 4m - 1 .. 4m + 5 */
#pragma unroll
    for (int k = 0; k < 5; k++)
        pool_s2g_cols(o[k], hl[k], hr[k], lane, c0, q.in_w, v[k]);

    int code[2][3];
#pragma unroll
    for (int di = 0; di < 2; di++)
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
        float *p = dxc + row * q.ds_h + c0;
        if (c0 + 3 < q.in_w) {
            pool_s2g_store4(p, alpha, beta, acc);
        } else {
#pragma unroll
            for (int b = 0; b < 4; b++)
                if (c0 + b < q.in_w)
                    fd_cuda_blend(p, b, alpha, beta, acc[b]);
        }
    }
}

static __global__ void __launch_bounds__(FD_CUDA_BLOCK, POOL_S2G_MINB)
    pool_s2g_max_bwd_f32(const pool_s2_t q, int groups, int pairs, const void *xv, const void *dyv,
                         void *dxv, double alpha, double beta)
{
    pool_s2g_body(q, groups, pairs, xv, dyv, dxv, alpha, beta);
}
static __global__ void __launch_bounds__(FD_CUDA_BLOCK, POOL_S2G_MINB3)
    pool_s2g_max_bwd3_f32(const pool_s2_t q, int groups, int pairs, const void *xv, const void *dyv,
                          void *dxv, double alpha, double beta)
{
    pool_s2g_body(q, groups, pairs, xv, dyv, dxv, alpha, beta);
}
