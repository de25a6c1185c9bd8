/* SPDX-License-Identifier: MIT */
/*
 * pooling_smb.cuh - max-pool backward of ResNet's 3x3 / 2 pad 1 window with W innermost through
 * shared memory (FREEDNN_GPU_POOL_SMB), FLOAT, HALF, BFLOAT16. pooling.cu includes it once,
 * after pooling_s2g.cuh (whose helpers it uses); pool_smb_ok decides. The gathers of
 * pooling_s2g.cuh ran f16 NCHW n32c256h56w56 at 970 GB/s, f32 n32c128 at 2124 (H200,
 * 2026-12-02): about 200 G dx elements a second for both types, bound by their instructions
 * (every window's argmax evaluated by the 3 threads whose dx blocks it touches, routing per
 * element over 6 windows). A first version of this file (generic loops with integer divisions
 * per item, channels-last too; branch gpu-pool-smb) ran 0.59x / 0.60x the gathers.
 *
 * Decisions:
 * - A block owns one tile: R window rows t0 .. t0 + R - 1 of one (n, c) plane, so the dx rows
 *   2 t0 .. 2 t0 + 2R - 1 (row 2i lies in window row i only, row 2i + 1 in i and i + 1). It
 *   needs window rows t0 .. t0 + R (the last one is the next tile's first too) and x rows
 *   2 t0 - 1 .. 2 t0 + 2R + 1.
 * - Phase 0, every load of a thread in flight before it stores any: those x rows into shared
 *   memory as float (exact for the 16-bit types) by 4-element vectors (16 bytes of FLOAT, 8 of
 *   the 16-bit types; a row's partial last vector per element), cells outside x and the pad
 *   columns -inf (the chain never picks one); the dy of the R + 1 window rows as float.
 * - Phase 1: each window's argmax once (pool_s2g_code: window_max's first max, PROPAGATE_NAN's
 *   first NaN, -1 for none) into a byte; windows past y hold -1.
 * - Phase 2: a thread per 2 x 2 dx block (rows 2t, 2t + 1, columns 2s, 2s + 1): the codes and
 *   dy of windows (t, s), (t, s + 1), (t + 1, s), (t + 1, s + 1); cell (2t, 2s) takes window
 *   (t, s) cell 4 only, (2t, 2s + 1) cells 5 and 3 of (t, s), (t, s + 1), (2t + 1, 2s) cells 7
 *   and 1 of (t, s), (t + 1, s), (2t + 1, 2s + 1) cells 8, 6, 2, 0 of all four; each dx cell
 *   adds them in that order (ascending (i, j)), in double from 0.0, then the alpha / beta blend:
 *   src/ref's sums and roundings, the same bits. Two 2-element stores (8 bytes of FLOAT, 4 of
 *   the 16-bit types) a thread; a warp writes 2 x 64 contiguous columns.
 * - Every loop walks its items with a running (row, column) pair (one division at the start):
 *   no division per item.
 * - Shared memory (dynamic, pool_smb_bytes): x (2R + 3) x XW floats (XW: the row with its pad
 *   cells, x column 0 at cell 4 so the 4-float stores are aligned), dy (R + 1) x (OW + 1)
 *   floats and codes (R + 1) x (OW + 1) bytes (column OW: -1, the right neighbour of the last
 *   window of an odd W). n32 56 x 56 planes: one tile a plane (R = 28), 19.3 KB.
 * - ptxas (CUDA 13): sm_90 47-48 registers, sm_80 39-47, 0 spills at 5 blocks of 256 an SM
 *   (POOL_SMB_UNR 4 spilled 4 bytes in the sm_90 BFLOAT16 kernel).
 * Measured (H200, 2026-12-02, dnnbench --graph, n32 56 x 56, docs/perf/gpu-membw-2026-12-02.md):
 * f16 C 256 968 -> 1137 GB/s (1.26 -> 1.47x NVIDIA), f32 C 128 2114 -> 2193 (1.03 -> 1.07x);
 * tiles of 2048 dx elements (two a plane) lost (877, 1781). Still bound by instructions, not
 * bytes: both types run ~220 G dx elements a second.
 */

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

/* pool_smb_max_bwd_{f32,f16,bf16}: blocks of POOL_SMB_THREADS, POOL_SMB_MINB an SM. */
#define POOL_SMB_KERNEL(name, ty)                                                                  \
    static __global__ void __launch_bounds__(POOL_SMB_THREADS, POOL_SMB_MINB)                      \
        name(const pool_s2_t q, const pool_smb_t m, const void *xv, const void *dyv, void *dxv,    \
             double alpha, double beta)                                                            \
    {                                                                                              \
        pool_smb_body(q, m, xv, dyv, dxv, alpha, beta, ty);                                        \
    }
POOL_SMB_KERNEL(pool_smb_max_bwd_f32, POOL_S2G_F32)
POOL_SMB_KERNEL(pool_smb_max_bwd_f16, POOL_S2G_F16)
POOL_SMB_KERNEL(pool_smb_max_bwd_bf16, POOL_S2G_BF16)
#undef POOL_SMB_KERNEL
