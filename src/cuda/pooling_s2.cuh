/* SPDX-License-Identifier: MIT */
/*
 * pooling_s2.cuh - 2-d pooling of stride 2 with 2 or 3 wide windows (ResNet's 3x3 / 2 pad 1
 * max pool, the 2x2 / 2 average), forward and backward, every mode, for one storage type.
 * pooling_kernels.cuh includes it (so it is stamped per type with FD_T, FD_ACC, FD_K, FD_VEC);
 * pooling.cu's pool_s2_ok decides (pool_s2_t: 32-bit geometry and strides, pad >= 0).
 *
 * Decisions:
 * - Sweep down H. A thread owns one window column j (forward) or one column pair j, the dx
 *   columns 2j - pad_w and 2j - pad_w + 1 (backward), and walks a chunk of window rows
 *   i downwards. Window i spans rows 2i - pad_h + {0, 1, 2}; the last of them is the first of
 *   window i + 1, so it is kept in registers and each step loads two new rows of x (the general
 *   kernels read 9 cells per window, looping with runtime bounds: one load in flight at a time).
 *   Each step's loads are independent of the previous step's arithmetic, so they are all issued
 *   before the compare chain. Chunks (pool_s2_t.chunk window rows) give enough threads.
 * - Every window is evaluated on a 3 x 3 register image, cells outside the window or outside x
 *   masked by the bits of `ok`, in window_max's scan order and rule (first max; with
 *   PROPAGATE_NAN the first NaN ends the scan): the same value and argmax as pool_fwd /
 *   pool_bwd. Averages sum in double in the same row-major order, divided by the same count.
 * - Backward without atomics and without recomputing a window per covered cell: with stride 2
 *   and a window of at most 3, dx row 2i - pad (resp. column) is covered by windows i and, when
 *   the window is 3 tall, i - 1; row 2i - pad + 1 by window i only. So the four windows that
 *   touch a thread's 2 x 2 dx block are (i-1, j-1), (i-1, j), (i, j-1), (i, j): the thread
 *   evaluates (i, j) and keeps it for the next step as (i-1, j); (i, j-1) comes from the lane to
 *   its left (__shfl_up: warps overlap by one lane, lane 0 is a halo that writes nothing) or,
 *   channels-last, is evaluated by the thread itself. Each dx cell adds the dy (average:
 *   dy / count) of the windows routing to it in that ascending window order, in double, from
 *   0.0: src/ref's sum, the same bits. Every dx cell of the plane is written exactly once.
 * - A window's routing is a code: -1 nothing, 0..8 the argmax cell (3 * row + column within
 *   the window), 9 every cell (averages). The code of (i-1, j) for cell (0, c) is 6 + c, of
 *   (i, j-1) for cell (r, 0) is 3r + 2, of (i-1, j-1) for cell (0, 0) is 8.
 */

/* Max of the 3 x 3 image v (row-major) over the cells whose bit of ok is set: window_max's
 * rule and order; *code = the first max's cell, -1 when none (src/ref's found == 0). */
static __device__ __forceinline__ FD_ACC FD_K(s2_max)(const FD_ACC *v, int ok, int propagate,
                                                      FD_ACC lowest, int *code)
{
    FD_ACC m = lowest;
    int st = 0, cd = -1; /* st: 0 none yet, 1 found, 2 NaN (propagate: done) */
#pragma unroll
    for (int k = 0; k < 9; k++) {
        const FD_ACC e = v[k];
        if (((ok >> k) & 1) && st != 2) {
            if (e != e) {
                if (propagate)
                    m = e, st = 2, cd = k;
            } else if (st ? e > m : e >= m) {
                m = e, st = 1, cd = k;
            }
        }
    }
    *code = cd;
    return m;
}

/* Sum of the masked cells in double, row-major: window_sum's order. */
static __device__ __forceinline__ double FD_K(s2_sum)(const FD_ACC *v, int ok)
{
    double s = 0.0;
#pragma unroll
    for (int k = 0; k < 9; k++)
        if ((ok >> k) & 1)
            s += (double)v[k];
    return s;
}

/* One row of x at the three columns c0 + {0, 1, 2}: v[k] and bit k of the result when the
 * cell is inside x and k < win_w (unread cells are 0, never used). */
static __device__ __forceinline__ int FD_K(s2_row)(const pool_s2_t &q, const FD_T *xc, int row,
                                                   int c0, FD_ACC *v)
{
    int ok = 0;
    const bool rok = row >= 0 && row < q.in_h;
#pragma unroll
    for (int k = 0; k < 3; k++) {
        const int col = c0 + k;
        const bool o = rok && k < q.win_w && col >= 0 && col < q.in_w;
        v[k] = o ? fd_cuda_ld(xc, row * q.xs_h + col * q.xs_w) : (FD_ACC)0;
        ok |= o ? 1 << k : 0;
    }
    return ok;
}

/* ---- W innermost (NCHW): one lane per window column, warps along W ------------------------
 * Forward: thread = (plane, chunk of window rows, window column j); per step it loads 2 rows x
 * 3 columns of x (6 scalar loads; the third column is the next lane's first, an L1 hit, so
 * 2 x 2 elements = 16 B of f32 x per output) and stores one y; consecutive lanes =
 * consecutive j, so loads and stores are coalesced. */
static __global__ void FD_K(pool_s2_fwd)(const pool_s2_t q, const void *xv, void *yv, double alpha,
                                         double beta)
{
    const FD_T *__restrict__ x = (const FD_T *)xv;
    FD_T *__restrict__ y = (FD_T *)yv;
    const int w = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int j = (w % q.wpr) * 32 + (int)(threadIdx.x & 31);
    const int t = w / q.wpr, ch = t % q.nchunks, pl = t / q.nchunks;
    if (pl >= q.planes || j >= q.out_w)
        return;
    const int n = pl / q.c, c = pl - n * q.c;
    const FD_T *xc = x + (n * q.xs_n + c * q.xs_c);
    FD_T *yc = y + (n * q.gs_n + c * q.gs_c);
    const int i0 = ch * q.chunk, i1 = min(q.out_h, i0 + q.chunk), c0 = 2 * j - q.pad_w;
    FD_ACC v[9];
    int okt = FD_K(s2_row)(q, xc, 2 * i0 - q.pad_h, c0, v);
    for (int i = i0; i < i1; i++) {
        const int r = 2 * i - q.pad_h;
        const int okm = FD_K(s2_row)(q, xc, r + 1, c0, v + 3);
        const int okb = FD_K(s2_row)(q, xc, r + 2, c0, v + 6);
        const int ok = pool_s2_mask(q, okt, okm, okb);
        double val;
        if (q.is_max) {
            int code;
            val = (double)FD_K(s2_max)(v, ok, q.propagate, (FD_ACC)q.lowest, &code);
        } else {
            const double cnt = pool_s2_count(q, i, j, ok);
            val = cnt > 0 ? FD_K(s2_sum)(v, ok) / cnt : 0.0;
        }
        fd_cuda_blend(yc, i * q.gs_h + j * q.gs_w, alpha, beta, val);
        v[0] = v[6], v[1] = v[7], v[2] = v[8];
        okt = okb;
    }
}

/* Backward: thread = (plane, chunk of column-pair rows, column pair j), lanes 1..31 of a warp
 * own 31 consecutive pairs, lane 0 the pair to their left (halo). Per step: 6 scalar loads of x,
 * one of dy, four shuffles, and its 2 x 2 dx block stored (coalesced across the lanes). The
 * chunk starts one step early (a halo step that writes nothing) to get window row i0 - 1. */
static __device__ __forceinline__ void FD_K(s2_bwd_body)(const pool_s2_t &q, const void *xv,
                                                         const void *dyv, void *dxv, double alpha,
                                                         double beta)
{
    const FD_T *__restrict__ x = (const FD_T *)xv;
    const FD_T *__restrict__ dy = (const FD_T *)dyv;
    FD_T *__restrict__ dx = (FD_T *)dxv;
    const int w = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int lane = (int)(threadIdx.x & 31);
    const int j = (w % q.wpr) * 31 - 1 + lane;
    const int t = w / q.wpr, ch = t % q.nchunks, pl = t / q.nchunks;
    if (pl >= q.planes)
        return; /* whole warps: the shuffles below see all 32 lanes */
    const int n = pl / q.c, c = pl - n * q.c;
    const FD_T *xc = x + (n * q.xs_n + c * q.xs_c);
    const FD_T *dyc = dy + (n * q.gs_n + c * q.gs_c);
    FD_T *dxc = dx + (n * q.ds_n + c * q.ds_c);
    const int i0 = ch * q.chunk, i1 = min(q.rows, i0 + q.chunk), c0 = 2 * j - q.pad_w;
    const bool owner = lane > 0 && j < q.cols;
    const bool jok = j >= 0 && j < q.out_w;
    FD_ACC v[9];
    int okt = FD_K(s2_row)(q, xc, 2 * (i0 - 1) - q.pad_h, c0, v);
    int bc = -1;      /* window (i-1, j): code and routed value */
    double bg = 0.0;
    for (int i = i0 - 1; i < i1; i++) {
        const int r = 2 * i - q.pad_h;
        const int okm = FD_K(s2_row)(q, xc, r + 1, c0, v + 3);
        const int okb = FD_K(s2_row)(q, xc, r + 2, c0, v + 6);
        const int ok = pool_s2_mask(q, okt, okm, okb);
        int dc = -1; /* window (i, j) */
        double dg = 0.0;
        if (jok && i >= 0 && i < q.out_h) {
            const double g = (double)fd_cuda_ld(dyc, i * q.gs_h + j * q.gs_w);
            if (q.is_max) {
                FD_K(s2_max)(v, ok, q.propagate, (FD_ACC)q.lowest, &dc);
                dg = g;
            } else {
                const double cnt = pool_s2_count(q, i, j, ok);
                dc = cnt > 0 ? 9 : -1;
                dg = g / cnt; /* used only when dc == 9 */
            }
        }
        const int ac = __shfl_up_sync(POOL_S2_FULL, bc, 1); /* (i-1, j-1) */
        const double ag = __shfl_up_sync(POOL_S2_FULL, bg, 1);
        const int cc = __shfl_up_sync(POOL_S2_FULL, dc, 1); /* (i, j-1) */
        const double cg = __shfl_up_sync(POOL_S2_FULL, dg, 1);
        if (owner && i >= i0) {
#pragma unroll
            for (int rr = 0; rr < 2; rr++)
#pragma unroll
                for (int cl = 0; cl < 2; cl++) {
                    const int row = r + rr, col = c0 + cl;
                    if (row < 0 || row >= q.in_h || col < 0 || col >= q.in_w)
                        continue;
                    double acc = 0.0;
                    if (rr == 0 && cl == 0 && q.win_h == 3 && q.win_w == 3 && (ac == 9 || ac == 8))
                        acc += ag;
                    if (rr == 0 && q.win_h == 3 && (bc == 9 || bc == 6 + cl))
                        acc += bg;
                    if (cl == 0 && q.win_w == 3 && (cc == 9 || cc == 3 * rr + 2))
                        acc += cg;
                    if (dc == 9 || dc == 3 * rr + cl)
                        acc += dg;
                    fd_cuda_blend(dxc, row * q.ds_h + col * q.ds_w, alpha, beta, acc);
                }
        }
        bc = dc, bg = dg;
        v[0] = v[6], v[1] = v[7], v[2] = v[8];
        okt = okb;
    }
}

static __global__ void FD_K(pool_s2_bwd)(const pool_s2_t q, const void *xv, const void *dyv,
                                         void *dxv, double alpha, double beta)
{
    FD_K(s2_bwd_body)(q, xv, dyv, dxv, alpha, beta);
}

/* The same sweep held to POOL_S2_BWD_MINB blocks of 256 an SM (FREEDNN_GPU_BW2; unbounded it
 * takes 56 registers on sm_90 (f32): 4 blocks, 1024 threads of 7 loads a step; f32 NCHW max
 * ran 0.70x NVIDIA's rate on the H200, 2026-12-01, and the look-ahead that added registers
 * (aa602f4) ran slower). More resident threads (f32 47 registers: 5 blocks, 1280 threads)
 * instead of more loads per thread; the same code, the same bits. */
static __global__ void __launch_bounds__(FD_CUDA_BLOCK, POOL_S2_BWD_MINB(FD_T))
    FD_K(pool_s2_bwd_occ)(const pool_s2_t q, const void *xv, const void *dyv, void *dxv,
                          double alpha, double beta)
{
    FD_K(s2_bwd_body)(q, xv, dyv, dxv, alpha, beta);
}

/* ---- channels-last packed (pool_vec_ok): 8 bytes of channels per thread -------------------
 * 8, not 16: the backward keeps 15 vectors of x, 4 of dy and its codes per thread, which at 16
 * bytes took ~150 registers (one block of 256 per SM); at 8 bytes the warps still read 256
 * contiguous bytes per access and twice as many threads are in flight. */

typedef struct __align__(POOL_S2_VEC_BYTES) {
    FD_T e[POOL_S2_VEC_BYTES / sizeof(FD_T)];
} FD_K(pool_s2v_t);
#define FD_S2V ((int)(POOL_S2_VEC_BYTES / sizeof(FD_T)))

/* One row of x at columns c0 + {0 .. nc), 16-byte vectors of channels cv * FD_S2V..: a[k] and
 * bit k of the result when the cell is inside x and within the window (k < lim). */
static __device__ __forceinline__ int FD_K(s2_vrow)(const pool_s2_t &q, const FD_T *xc, int row,
                                                    int c0, int nc, int klo, int khi,
                                                    FD_K(pool_s2v_t) *a)
{
    int ok = 0;
    const bool rok = row >= 0 && row < q.in_h;
#pragma unroll
    for (int k = 0; k < 5; k++) {
        if (k >= nc)
            break;
        const int col = c0 + k;
        const bool o = rok && k >= klo && k < khi && col >= 0 && col < q.in_w;
        if (o)
            a[k] = *(const FD_K(pool_s2v_t) *)(xc + (row * q.xs_h + col * q.xs_w));
        ok |= o ? 1 << k : 0;
    }
    return ok;
}

/* Lane l of the 3 x 3 image whose columns start at column k0 of the three rows t, m, b. */
static __device__ __forceinline__ void FD_K(s2_lane)(const FD_K(pool_s2v_t) *t,
                                                     const FD_K(pool_s2v_t) *m,
                                                     const FD_K(pool_s2v_t) *b, int k0, int l,
                                                     FD_ACC *v)
{
#pragma unroll
    for (int k = 0; k < 3; k++) {
        v[k] = fd_cuda_ld(t[k0 + k].e, l);
        v[3 + k] = fd_cuda_ld(m[k0 + k].e, l);
        v[6 + k] = fd_cuda_ld(b[k0 + k].e, l);
    }
}

/* Forward: thread = (n, chunk, window column j, channel vector cv), cv fastest; per step 6
 * vector loads (2 rows x 3 columns, 96 B) and one vector store. */
static __global__ void FD_K(pool_s2_fwd_vec)(const pool_s2_t q, const void *xv, void *yv,
                                             double alpha, double beta)
{
    const FD_T *__restrict__ x = (const FD_T *)xv;
    FD_T *__restrict__ y = (FD_T *)yv;
    const int cv = q.c / FD_S2V;
    int e = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int v0 = e % cv;
    e /= cv;
    const int j = e % q.out_w;
    e /= q.out_w;
    const int ch = e % q.nchunks, n = e / q.nchunks;
    if (n >= q.planes)
        return; /* planes = N here */
    const FD_T *xc = x + (n * q.xs_n + v0 * FD_S2V);
    FD_T *yc = y + (n * q.gs_n + v0 * FD_S2V);
    const int i0 = ch * q.chunk, i1 = min(q.out_h, i0 + q.chunk), c0 = 2 * j - q.pad_w;
    FD_K(pool_s2v_t) rt[3], rm[3], rb[3];
    int okt = FD_K(s2_vrow)(q, xc, 2 * i0 - q.pad_h, c0, 3, 0, q.win_w, rt);
    for (int i = i0; i < i1; i++) {
        const int r = 2 * i - q.pad_h;
        const int okm = FD_K(s2_vrow)(q, xc, r + 1, c0, 3, 0, q.win_w, rm);
        const int okb = FD_K(s2_vrow)(q, xc, r + 2, c0, 3, 0, q.win_w, rb);
        const int ok = pool_s2_mask(q, okt, okm, okb);
        const double cnt = q.is_max ? 0.0 : pool_s2_count(q, i, j, ok);
        FD_T *yp = yc + (i * q.gs_h + j * q.gs_w);
        FD_K(pool_s2v_t) o;
        if (beta != 0.0)
            o = *(const FD_K(pool_s2v_t) *)yp;
#pragma unroll
        for (int l = 0; l < FD_S2V; l++) {
            FD_ACC v[9];
            FD_K(s2_lane)(rt, rm, rb, 0, l, v);
            double val;
            if (q.is_max) {
                int code;
                val = (double)FD_K(s2_max)(v, ok, q.propagate, (FD_ACC)q.lowest, &code);
            } else {
                val = cnt > 0 ? FD_K(s2_sum)(v, ok) / cnt : 0.0;
            }
            fd_cuda_blend(o.e, l, alpha, beta, val);
        }
        *(FD_K(pool_s2v_t) *)yp = o;
#pragma unroll
        for (int k = 0; k < 3; k++)
            rt[k] = rb[k];
        okt = okb;
    }
}

/* Backward: thread = (n, chunk, column pair j, channel vector cv), cv fastest. It evaluates
 * both windows of its step, (i, j-1) and (i, j), from 5 columns 2j - pad_w - 2 .. + 2 (10
 * vector loads per step; the rows kept as in the forward), keeps their codes (4 bits per lane)
 * and dy for the next step as (i-1, j-1) and (i-1, j), and stores its 2 x 2 block (4 vectors). */
static __global__ void FD_K(pool_s2_bwd_vec)(const pool_s2_t q, const void *xv, const void *dyv,
                                             void *dxv, double alpha, double beta)
{
    const FD_T *__restrict__ x = (const FD_T *)xv;
    const FD_T *__restrict__ dy = (const FD_T *)dyv;
    FD_T *__restrict__ dx = (FD_T *)dxv;
    const int cv = q.c / FD_S2V;
    int e = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int v0 = e % cv;
    e /= cv;
    const int j = e % q.cols;
    e /= q.cols;
    const int ch = e % q.nchunks, n = e / q.nchunks;
    if (n >= q.planes)
        return;
    const FD_T *xc = x + (n * q.xs_n + v0 * FD_S2V);
    const FD_T *dyc = dy + (n * q.gs_n + v0 * FD_S2V);
    FD_T *dxc = dx + (n * q.ds_n + v0 * FD_S2V);
    const int i0 = ch * q.chunk, i1 = min(q.rows, i0 + q.chunk);
    const int c0 = 2 * j - q.pad_w - 2; /* column 0: window j-1's first, column 2: window j's */
    const bool cok = j - 1 >= 0 && j - 1 < q.out_w, dok = j < q.out_w;
    /* columns 0..2 serve window j-1 (only if it exists), 2..4 window j (only its win_w) */
    const int klo = cok ? 0 : 2, khi = dok ? 2 + q.win_w : cok ? q.win_w : 0;
    FD_K(pool_s2v_t) rt[5], rm[5], rb[5];
    int okt = FD_K(s2_vrow)(q, xc, 2 * (i0 - 1) - q.pad_h, c0, 5, klo, khi, rt);
    uint32_t pa = 0, pb = 0; /* codes + 1 of (i-1, j-1), (i-1, j), 4 bits per lane */
    FD_K(pool_s2v_t) ga, gb; /* their dy */
    double na = 0.0, nb = 0.0; /* their counts (averages) */
    for (int i = i0 - 1; i < i1; i++) {
        const int r = 2 * i - q.pad_h;
        const int okm = FD_K(s2_vrow)(q, xc, r + 1, c0, 5, klo, khi, rm);
        const int okb = FD_K(s2_vrow)(q, xc, r + 2, c0, 5, klo, khi, rb);
        const bool iok = i >= 0 && i < q.out_h;
        const bool cv_ok = iok && cok, dv_ok = iok && dok;
        /* masks of the two windows: columns 0..2 (window j-1, all 3 when 3 wide), 2..4 */
        const int wc = q.win_w == 3 ? 7 : 3;
        const int okc = pool_s2_mask(q, okt & wc, okm & wc, okb & wc);
        const int okd = pool_s2_mask(q, (okt >> 2) & wc, (okm >> 2) & wc, (okb >> 2) & wc);
        FD_K(pool_s2v_t) gc, gd;
        if (cv_ok)
            gc = *(const FD_K(pool_s2v_t) *)(dyc + (i * q.gs_h + (j - 1) * q.gs_w));
        if (dv_ok)
            gd = *(const FD_K(pool_s2v_t) *)(dyc + (i * q.gs_h + j * q.gs_w));
        const double nc = q.is_max || !cv_ok ? 0.0 : pool_s2_count(q, i, j - 1, okc);
        const double nd = q.is_max || !dv_ok ? 0.0 : pool_s2_count(q, i, j, okd);
        uint32_t pc = 0, pd = 0;
#pragma unroll
        for (int l = 0; l < FD_S2V; l++) {
            FD_ACC v[9];
            int code;
            if (cv_ok) {
                if (q.is_max) {
                    FD_K(s2_lane)(rt, rm, rb, 0, l, v);
                    FD_K(s2_max)(v, okc, q.propagate, (FD_ACC)q.lowest, &code);
                } else {
                    code = nc > 0 ? 9 : -1;
                }
                pc |= (uint32_t)(code + 1) << (4 * l);
            }
            if (dv_ok) {
                if (q.is_max) {
                    FD_K(s2_lane)(rt, rm, rb, 2, l, v);
                    FD_K(s2_max)(v, okd, q.propagate, (FD_ACC)q.lowest, &code);
                } else {
                    code = nd > 0 ? 9 : -1;
                }
                pd |= (uint32_t)(code + 1) << (4 * l);
            }
        }
        if (i >= i0 && j < q.cols) {
#pragma unroll
            for (int rr = 0; rr < 2; rr++)
#pragma unroll
                for (int cl = 0; cl < 2; cl++) {
                    const int row = r + rr, col = c0 + 2 + cl;
                    if (row < 0 || row >= q.in_h || col < 0 || col >= q.in_w)
                        continue;
                    FD_T *dp = dxc + (row * q.ds_h + col * q.ds_w);
                    FD_K(pool_s2v_t) o;
                    if (beta != 0.0)
                        o = *(const FD_K(pool_s2v_t) *)dp;
#pragma unroll
                    for (int l = 0; l < FD_S2V; l++) {
                        const int ac = (int)((pa >> (4 * l)) & 15) - 1;
                        const int bc = (int)((pb >> (4 * l)) & 15) - 1;
                        const int cc = (int)((pc >> (4 * l)) & 15) - 1;
                        const int dc = (int)((pd >> (4 * l)) & 15) - 1;
                        double acc = 0.0;
                        if (rr == 0 && cl == 0 && q.win_h == 3 && q.win_w == 3 &&
                            (ac == 9 || ac == 8))
                            acc += q.is_max ? (double)fd_cuda_ld(ga.e, l)
                                            : (double)fd_cuda_ld(ga.e, l) / na;
                        if (rr == 0 && q.win_h == 3 && (bc == 9 || bc == 6 + cl))
                            acc += q.is_max ? (double)fd_cuda_ld(gb.e, l)
                                            : (double)fd_cuda_ld(gb.e, l) / nb;
                        if (cl == 0 && q.win_w == 3 && (cc == 9 || cc == 3 * rr + 2))
                            acc += q.is_max ? (double)fd_cuda_ld(gc.e, l)
                                            : (double)fd_cuda_ld(gc.e, l) / nc;
                        if (dc == 9 || dc == 3 * rr + cl)
                            acc += q.is_max ? (double)fd_cuda_ld(gd.e, l)
                                            : (double)fd_cuda_ld(gd.e, l) / nd;
                        fd_cuda_blend(o.e, l, alpha, beta, acc);
                    }
                    *(FD_K(pool_s2v_t) *)dp = o;
                }
        }
        pa = pc, pb = pd, ga = gc, gb = gd, na = nc, nb = nd;
#pragma unroll
        for (int k = 0; k < 5; k++)
            rt[k] = rb[k];
        okt = okb;
    }
}

/* ---- channels-last max forward, 16 bytes of channels per thread (pool_s2_max_fwd_vec) ----
 * The general sweep above ran 0.58x (f32) / 0.65x (f16) NVIDIA's rate on the H200 (n32 C 128 /
 * 256 56 x 56, 3x3 / 2 pad 1): 8-byte vectors, 48 B of loads per step issued only after the
 * previous step's arithmetic, and per lane the exact 9-cell scan (~60 instructions a lane, 4
 * lanes an 8-byte f16 vector: issue-bound at the copy rate). Here, for MAX / MAX_DETERMINISTIC:
 * - thread = (n, chunk of window rows, window column j, 16-byte channel vector), vector
 *   fastest: a warp reads 512 contiguous bytes per cell (one whole pixel for f32 C = 128, f16
 *   C = 256); the block's 8 warps are 8 neighbouring j, so the column shared by windows j and
 *   j + 1 is an L1 hit for one of them.
 * - Software pipelined: step i + 1's two rows (6 x 16 B) are loaded before step i's max, so
 *   every thread keeps 96 B in flight (~48 KB an SM at 2 blocks of 256).
 * - The value is a lane-wise max chain over the cells, 8 (or 5 for 2-tall / 2-wide windows)
 *   max ops a vector (f16 / bf16 as pairs: 4 max.f16x2 per vector and cell), cells outside x
 *   filled with the type's lowest finite value (window_max's start value, so an all -inf or
 *   empty window gives it too); NaN-propagating max with PROPAGATE_NAN. A lane whose result is
 *   NaN (only with PROPAGATE_NAN: the first NaN's payload) or zero (+0 / -0: the first in scan
 *   order) is redone with the exact scan s2_max: window_max's value in every case, the same
 *   bits. alpha 1, beta 0 with no such lane stores the vector as is (the blend of an exact
 *   value rounds to itself).
 * Bytes per output vector: 4 cells of x compulsory (16 B each) + the y store; loaded: 2 rows
 * x 3 columns per step (1.5x the compulsory x in L1 requests, the shared column an L1 hit),
 * plus one top row per chunk (1 / (2 chunk) more x from L2 / HBM). No shared memory; ptxas
 * (CUDA 13, sm_90): f32 110, f64 96, f16 / bf16 104 registers, 0 spills, __launch_bounds__
 * (256, 2) (a bound of 3 blocks spilled 40-400 bytes). The NaN / zero redo blends lane by
 * lane straight to y (a vector indexed by a loop would live in local memory). */

/* One row of x at columns c0 + {0, 1, 2}: a[k] (lo where the cell is outside x or the
 * window), bit k of the result when inside. */
static __device__ __forceinline__ int FD_K(s2_wrow)(const pool_s2_t &q, const FD_T *xc, int row,
                                                    int c0, const FD_K(pool_vec_t) &lo,
                                                    FD_K(pool_vec_t) *a)
{
    int ok = 0;
    const bool rok = row >= 0 && row < q.in_h;
#pragma unroll
    for (int k = 0; k < 3; k++) {
        const int col = c0 + k;
        const bool o = rok && k < q.win_w && col >= 0 && col < q.in_w;
        a[k] = o ? *(const FD_K(pool_vec_t) *)(xc + (row * q.xs_h + col * q.xs_w)) : lo;
        ok |= o ? 1 << k : 0;
    }
    return ok;
}

/* Lane-wise max of the three cells of row a (the max16 chain of pool_vmax16). */
static __device__ __forceinline__ FD_K(pool_vec_t) FD_K(s2_rmax)(const FD_K(pool_vec_t) *a,
                                                                 bool nan)
{
    FD_K(pool_vec_t) r;
    pool_vmax16(r.e, a[0].e, a[1].e, nan);
    pool_vmax16(r.e, r.e, a[2].e, nan);
    return r;
}

/* m = the lane-wise max of lo, mt (the top row's max), row m and, tall, row b; *mb = row b's
 * max (the next step's mt). */
static __device__ __forceinline__ void FD_K(s2_wmax)(const FD_K(pool_vec_t) &lo,
                                                     const FD_K(pool_vec_t) &mt,
                                                     const FD_K(pool_vec_t) *m,
                                                     const FD_K(pool_vec_t) *b, int tall,
                                                     bool nan, FD_K(pool_vec_t) *r,
                                                     FD_K(pool_vec_t) *mb)
{
    *r = FD_K(s2_rmax)(m, nan);
    *mb = FD_K(s2_rmax)(b, nan);
    pool_vmax16(r->e, r->e, mt.e, nan);
    if (tall)
        pool_vmax16(r->e, r->e, mb->e, nan);
    pool_vmax16(r->e, r->e, lo.e, nan);
}

/* Thread = (n, chunk, window column j, 16-byte channel vector cv), cv fastest. Live per
 * thread: the top row's max (1 vector), the step's two rows (6) and the next step's (6). */
static __global__ void __launch_bounds__(FD_CUDA_BLOCK, 2)
    FD_K(pool_s2_max_fwd_vec)(const pool_s2_t q, const void *xv, void *yv, double alpha,
                              double beta)
{
    const FD_T *__restrict__ x = (const FD_T *)xv;
    FD_T *__restrict__ y = (FD_T *)yv;
    const int cv = q.c / FD_VEC;
    int e = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int v0 = e % cv;
    e /= cv;
    const int j = e % q.out_w;
    e /= q.out_w;
    const int ch = e % q.nchunks, n = e / q.nchunks;
    if (n >= q.planes)
        return; /* planes = N here */
    const FD_T *xc = x + (n * q.xs_n + v0 * FD_VEC);
    FD_T *yc = y + (n * q.gs_n + v0 * FD_VEC);
    const int i0 = ch * q.chunk, i1 = min(q.out_h, i0 + q.chunk), c0 = 2 * j - q.pad_w;
    const int tall = q.win_h == 3;
    const bool plain = alpha == 1.0 && beta == 0.0, nan = q.propagate != 0;
    FD_K(pool_vec_t) lo;
#pragma unroll
    for (int l = 0; l < FD_VEC; l++)
        fd_cuda_st(lo.e, l, q.lowest);
    FD_K(pool_vec_t) mt, rm[3], rb[3], nm[3], nb[3];
    int okt = FD_K(s2_wrow)(q, xc, 2 * i0 - q.pad_h, c0, lo, rb);
    mt = nan ? FD_K(s2_rmax)(rb, true) : FD_K(s2_rmax)(rb, false);
    int nokm = FD_K(s2_wrow)(q, xc, 2 * i0 - q.pad_h + 1, c0, lo, nm);
    int nokb = FD_K(s2_wrow)(q, xc, 2 * i0 - q.pad_h + 2, c0, lo, nb);
    for (int i = i0; i < i1; i++) {
        const int r = 2 * i - q.pad_h;
        const int okm = nokm, okb = nokb;
#pragma unroll
        for (int k = 0; k < 3; k++)
            rm[k] = nm[k], rb[k] = nb[k];
        if (i + 1 < i1) { /* the next step's rows, in flight during this step's max */
            nokm = FD_K(s2_wrow)(q, xc, r + 3, c0, lo, nm);
            nokb = FD_K(s2_wrow)(q, xc, r + 4, c0, lo, nb);
        }
        FD_K(pool_vec_t) m, mb;
        if (nan)
            FD_K(s2_wmax)(lo, mt, rm, rb, tall, true, &m, &mb);
        else
            FD_K(s2_wmax)(lo, mt, rm, rb, tall, false, &m, &mb);
        mt = mb;
        bool nanl = false, zl = false;
#pragma unroll
        for (int l = 0; l < FD_VEC; l++) {
            const FD_ACC v = fd_cuda_ld(m.e, l);
            nanl |= v != v;
            zl |= v == (FD_ACC)0;
        }
        /* zx: zero lanes need the exact scan. Without a -0 among the window's cells every zero
         * cell is +0, so a zero maximum is +0 whichever zero the chain kept: the exact scan's
         * bits. zcheap tests that (the top row read again, L1 hits; the other two rows are
         * still in registers) instead of scanning every zero lane (ReLU outputs). */
        bool zx = zl;
        if (zl && q.zcheap) {
            FD_K(pool_vec_t) t[3];
            FD_K(s2_wrow)(q, xc, r, c0, lo, t);
            bool neg = false;
#pragma unroll
            for (int k = 0; k < 3; k++) {
                uint4 u[3];
                memcpy(&u[0], &t[k], 16);
                memcpy(&u[1], &rm[k], 16);
                memcpy(&u[2], &rb[k], 16);
                neg |= pool_neg0(u[0], (int)sizeof(FD_T)) || pool_neg0(u[1], (int)sizeof(FD_T)) ||
                       (tall && pool_neg0(u[2], (int)sizeof(FD_T)));
            }
            zx = neg;
        }
        const bool redo = nanl || zx;
        FD_T *yp = yc + (i * q.gs_h + j * q.gs_w);
        if (plain && !redo) {
            *(FD_K(pool_vec_t) *)yp = m;
        } else {
            /* NaN or zero lanes: the exact scan on the cells read again (L1 / L2 hits);
             * lane by lane blends (the vector stays in registers: no local copy) */
            const int ok = pool_s2_mask(q, okt, okm, okb);
#pragma unroll
            for (int l = 0; l < FD_VEC; l++) {
                FD_ACC val = fd_cuda_ld(m.e, l);
                if (val != val || (zx && val == (FD_ACC)0)) {
                    FD_ACC v[9];
#pragma unroll
                    for (int k = 0; k < 9; k++)
                        v[k] = (ok >> k) & 1 ? fd_cuda_ld(xc, (r + k / 3) * q.xs_h +
                                                                  (c0 + k % 3) * q.xs_w + l)
                                             : (FD_ACC)0;
                    int code;
                    val = FD_K(s2_max)(v, ok, q.propagate, (FD_ACC)q.lowest, &code);
                }
                fd_cuda_blend(yp, l, alpha, beta, (double)val);
            }
        }
        okt = okb;
    }
}

/* ---- W innermost (NCHW) max forward on 16-byte row vectors (pool_s2_max_fwd_rows) -------
 * pool_s2_fwd ran 0.83x (f32) / 0.82x (f16) NVIDIA's rate on the H200 (n32 C 128 / 256,
 * 56 x 56, 3x3 / 2 pad 1): one output per lane, 6 scalar loads a step (4 or 2 bytes each,
 * issued after the previous step's scan), 9-cell exact scans. Here, for MAX / MAX_DETERMINISTIC
 * with x's W stride 1, 16-byte aligned rows and pad_w <= 1 (pooling.cu's pool_s2_rows_ok):
 * - A lane owns E = 16 / sizeof(T) consecutive columns of x (one 16-byte load a row) and the
 *   G = E / 2 outputs j = t G .. t G + G - 1 whose windows start there; a segment of S =
 *   ceil(out_w / G) <= 32 lanes covers a row, 32 / S segments (plane, chunk of window rows)
 *   share a warp. A window's cells outside the lane's vector are the left lane's last column
 *   (__shfl_up) and the right lane's first (__shfl_down); the segment's first lane has column
 *   -1 (padding), its last loads the column after its vector itself. Every lane runs q.chunk
 *   steps (the shuffles need the whole warp), loads and stores predicated.
 * - Rows as pool_s2_max_fwd_vec: the next step's two row vectors are loaded before this
 *   step's max, the top row's window maxima kept from the previous step; lane-wise max chains
 *   over cells holding the type's lowest finite value outside x, exact scan (s2_max, cells
 *   read again) for NaN or zero results: window_max's value, the same bits.
 * Bytes per output: the 4 compulsory x cells (+ 1 / (2 chunk) for the chunk's top row) and
 * y; loads are full 16-byte row vectors with no re-read column (the old kernel's third column
 * was a second L1 request per output), stores G outputs (8 bytes) per lane. No shared memory;
 * ptxas (CUDA 13, sm_90): f32 54, f64 64, f16 / bf16 78 registers, 0 spills, bounded at 4
 * blocks of 256 an SM (3 for 16-bit types on sm_90, 2 on sm_80: POOL_S2_ROWS_MINB16): f32
 * keeps ~32 KB of row loads in flight an SM, f16 ~24 KB. The (pad_w, NaN option) pair is a
 * literal per inlined copy of the body, so the row image is indexed statically (registers).
 * Averages (pool_s2_avg_fwd_rows, FLOAT / DOUBLE: pooling.cu): the same rows with +0 outside
 * x, per output the top row's partial sum (double) carried from the previous step and
 * continued over the middle and bottom rows: window_sum's order and terms (a +0 term leaves a
 * sum begun at +0 unchanged), divided by pool_s2_count's divisor (readable rows x columns);
 * ptxas sm_90: f32 74, f64 62 registers (16-bit 103), 0 spills, 3 blocks an SM for f32. */

/* Row `row` of the lane's vector: x's columns t E .. t E + E - 1, lo outside x or when the
 * lane is idle; *edge = column (t + 1) E for the segment's last lane (else lo). */
static __device__ __forceinline__ FD_K(pool_vec_t)
    FD_K(s2_rrow)(const pool_s2_t &q, const FD_T *xc, int row, int t, bool act,
                  const FD_K(pool_vec_t) &lo, FD_T *edge)
{
    FD_K(pool_vec_t) v = lo;
    *edge = lo.e[0];
    if (!act || row < 0 || row >= q.in_h)
        return v;
    const FD_T *xr = xc + row * q.xs_h;
    const int c0 = t * FD_VEC;
    if (c0 + FD_VEC <= q.in_w) {
        v = *(const FD_K(pool_vec_t) *)(xr + c0);
    } else {
#pragma unroll
        for (int l = 0; l < FD_VEC; l++)
            if (c0 + l < q.in_w)
                v.e[l] = xr[c0 + l];
    }
    if (t == q.seg - 1 && c0 + FD_VEC < q.in_w)
        *edge = xr[c0 + FD_VEC];
    return v;
}

/* The row image a[0 .. E + 1]: the left lane's last column, the vector, the right lane's
 * first column (segment edges: lo, and the last lane's own edge load). Every lane calls it. */
static __device__ __forceinline__ void FD_K(s2_rimg)(const FD_K(pool_vec_t) &v, FD_T edge,
                                                     int t, bool last, FD_ACC lo, FD_ACC *a)
{
#pragma unroll
    for (int l = 0; l < FD_VEC; l++)
        a[1 + l] = fd_cuda_ld(v.e, l);
    const FD_ACC left = __shfl_up_sync(POOL_S2_FULL, a[FD_VEC], 1);
    const FD_ACC right = __shfl_down_sync(POOL_S2_FULL, a[1], 1);
    a[0] = t == 0 ? lo : left;
    a[FD_VEC + 1] = last ? fd_cuda_ld(&edge, 0) : right;
}

#define FD_S2G (FD_VEC / 2) /* outputs per lane */

/* Max of output g's cells k < win_w in the row image a (pad: pad_w, a literal at the call). */
static __device__ __forceinline__ FD_ACC FD_K(s2_rwin)(const FD_ACC *a, int g, int pad, int wide,
                                                       bool nan)
{
    const int b = 1 + 2 * g - pad;
    FD_ACC r = pool_max1(a[b], a[b + 1], nan);
    return wide ? pool_max1(r, a[b + 2], nan) : r;
}

/* The sweep for one (pad_w, NaN option) pair, both literals at the call (static indices). */
static __device__ __forceinline__ void FD_K(s2_rows_body)(const pool_s2_t &q, const FD_T *xc,
                                                          FD_T *yc, int t, bool act, int i0,
                                                          int i1, double alpha, double beta,
                                                          const int pad, const bool nan)
{
    const bool last = t == q.seg - 1, plain = alpha == 1.0 && beta == 0.0;
    const int tall = q.win_h == 3, wide = q.win_w == 3;
    const FD_ACC low = (FD_ACC)q.lowest;
    FD_K(pool_vec_t) lo;
#pragma unroll
    for (int l = 0; l < FD_VEC; l++)
        fd_cuda_st(lo.e, l, q.lowest);
    FD_ACC a[FD_VEC + 2], mt[FD_S2G];
    FD_T em, eb;
    {
        const FD_K(pool_vec_t) v = FD_K(s2_rrow)(q, xc, 2 * i0 - q.pad_h, t, act, lo, &em);
        FD_K(s2_rimg)(v, em, t, last, low, a);
#pragma unroll
        for (int g = 0; g < FD_S2G; g++)
            mt[g] = FD_K(s2_rwin)(a, g, pad, wide, nan);
    }
    FD_K(pool_vec_t) nm = FD_K(s2_rrow)(q, xc, 2 * i0 - q.pad_h + 1, t, act, lo, &em);
    FD_K(pool_vec_t) nb = FD_K(s2_rrow)(q, xc, 2 * i0 - q.pad_h + 2, t, act, lo, &eb);
    for (int s = 0; s < q.chunk; s++) {
        const int i = i0 + s, r = 2 * i - q.pad_h;
        const bool on = act && i < i1;
        const FD_K(pool_vec_t) vm = nm, vb = nb;
        const FD_T cm = em, cb = eb;
        /* the next step's rows, in flight during this step's max */
        nm = FD_K(s2_rrow)(q, xc, r + 3, t, on && i + 1 < i1, lo, &em);
        nb = FD_K(s2_rrow)(q, xc, r + 4, t, on && i + 1 < i1, lo, &eb);
        FD_ACC m[FD_S2G];
        FD_K(s2_rimg)(vm, cm, t, last, low, a);
#pragma unroll
        for (int g = 0; g < FD_S2G; g++)
            m[g] = pool_max1(mt[g], FD_K(s2_rwin)(a, g, pad, wide, nan), nan);
        FD_K(s2_rimg)(vb, cb, t, last, low, a);
        bool redo = false;
#pragma unroll
        for (int g = 0; g < FD_S2G; g++) {
            const FD_ACC w = FD_K(s2_rwin)(a, g, pad, wide, nan);
            if (tall)
                m[g] = pool_max1(m[g], w, nan);
            m[g] = pool_max1(m[g], low, nan);
            mt[g] = w;
            redo |= m[g] != m[g] || m[g] == (FD_ACC)0;
        }
        if (!on)
            continue;
        const int j0 = t * FD_S2G;
        FD_T *yp = yc + (i * q.gs_h + j0 * q.gs_w);
        if (redo) { /* a NaN or zero result: the exact scan of every output, cells read again */
#pragma unroll 1
            for (int j = j0; j < min(j0 + FD_S2G, q.out_w); j++) {
                FD_ACC v[9];
                int ok = 0;
#pragma unroll
                for (int k = 0; k < 9; k++) {
                    const int row = r + k / 3, col = 2 * j - pad + k % 3;
                    const bool o = k / 3 < q.win_h && k % 3 < q.win_w && row >= 0 &&
                                   row < q.in_h && col >= 0 && col < q.in_w;
                    v[k] = o ? fd_cuda_ld(xc, row * q.xs_h + col) : (FD_ACC)0;
                    ok |= o ? 1 << k : 0;
                }
                int code;
                const FD_ACC val = FD_K(s2_max)(v, ok, q.propagate, low, &code);
                fd_cuda_blend(yc, i * q.gs_h + j * q.gs_w, alpha, beta, (double)val);
            }
        } else if (plain && q.yvec) {
            FD_K(pool_s2v_t) o;
#pragma unroll
            for (int g = 0; g < FD_S2G; g++)
                fd_cuda_st(o.e, g, (double)m[g]);
            *(FD_K(pool_s2v_t) *)yp = o;
        } else {
#pragma unroll
            for (int g = 0; g < FD_S2G; g++)
                if (j0 + g < q.out_w)
                    fd_cuda_blend(yp, g * q.gs_w, alpha, beta, (double)m[g]);
        }
    }
}

/* s0 + output g's cells k < win_w of the row image a, in double, column order (window_sum's
 * order continued; cells outside x hold +0, which adds nothing to a sum that started at +0) */
static __device__ __forceinline__ double FD_K(s2_rsum)(const FD_ACC *a, int g, int pad, int wide,
                                                       double s0)
{
    const int b = 1 + 2 * g - pad;
    double s = s0 + (double)a[b];
    s = s + (double)a[b + 1];
    return wide ? s + (double)a[b + 2] : s;
}

/* The averages' sweep (pad: pad_w, a literal at the call): per output the top row's partial
 * sum from the previous step, continued over the middle and (3 tall) bottom rows, divided by
 * pool_s2_count's divisor (excluding padding: readable rows x readable columns). */
static __device__ __forceinline__ void FD_K(s2_rows_avg)(const pool_s2_t &q, const FD_T *xc,
                                                         FD_T *yc, int t, bool act, int i0,
                                                         int i1, double alpha, double beta,
                                                         const int pad)
{
    const bool last = t == q.seg - 1, plain = alpha == 1.0 && beta == 0.0;
    const int tall = q.win_h == 3, wide = q.win_w == 3;
    FD_K(pool_vec_t) zv;
#pragma unroll
    for (int l = 0; l < FD_VEC; l++)
        fd_cuda_st(zv.e, l, 0.0);
    FD_ACC a[FD_VEC + 2];
    double st[FD_S2G];
    FD_T em, eb;
    {
        const FD_K(pool_vec_t) v = FD_K(s2_rrow)(q, xc, 2 * i0 - q.pad_h, t, act, zv, &em);
        FD_K(s2_rimg)(v, em, t, last, (FD_ACC)0, a);
#pragma unroll
        for (int g = 0; g < FD_S2G; g++)
            st[g] = FD_K(s2_rsum)(a, g, pad, wide, 0.0);
    }
    FD_K(pool_vec_t) nm = FD_K(s2_rrow)(q, xc, 2 * i0 - q.pad_h + 1, t, act, zv, &em);
    FD_K(pool_vec_t) nb = FD_K(s2_rrow)(q, xc, 2 * i0 - q.pad_h + 2, t, act, zv, &eb);
    for (int s = 0; s < q.chunk; s++) {
        const int i = i0 + s, r = 2 * i - q.pad_h;
        const bool on = act && i < i1;
        const FD_K(pool_vec_t) vm = nm, vb = nb;
        const FD_T cm = em, cb = eb;
        nm = FD_K(s2_rrow)(q, xc, r + 3, t, on && i + 1 < i1, zv, &em);
        nb = FD_K(s2_rrow)(q, xc, r + 4, t, on && i + 1 < i1, zv, &eb);
        double sm[FD_S2G];
        FD_K(s2_rimg)(vm, cm, t, last, (FD_ACC)0, a);
#pragma unroll
        for (int g = 0; g < FD_S2G; g++)
            sm[g] = FD_K(s2_rsum)(a, g, pad, wide, st[g]);
        FD_K(s2_rimg)(vb, cb, t, last, (FD_ACC)0, a);
#pragma unroll
        for (int g = 0; g < FD_S2G; g++) {
            if (tall)
                sm[g] = FD_K(s2_rsum)(a, g, pad, wide, sm[g]);
            st[g] = FD_K(s2_rsum)(a, g, pad, wide, 0.0);
        }
        if (!on)
            continue;
        int nr = 0; /* readable rows of window i */
#pragma unroll
        for (int rr = 0; rr < 3; rr++)
            nr += rr < q.win_h && r + rr >= 0 && r + rr < q.in_h;
        const int j0 = t * FD_S2G;
        FD_T *yp = yc + (i * q.gs_h + j0 * q.gs_w);
        double val[FD_S2G];
#pragma unroll
        for (int g = 0; g < FD_S2G; g++) {
            const int j = j0 + g, c0 = 2 * j - pad;
            int nc = 0;
#pragma unroll
            for (int k = 0; k < 3; k++)
                nc += k < q.win_w && c0 + k >= 0 && c0 + k < q.in_w;
            const double cnt = q.include_pad ? pool_s2_count(q, i, j, 0) : (double)(nr * nc);
            val[g] = cnt > 0 ? sm[g] / cnt : 0.0;
        }
        if (plain && q.yvec) {
            FD_K(pool_s2v_t) o;
#pragma unroll
            for (int g = 0; g < FD_S2G; g++)
                fd_cuda_st(o.e, g, val[g]);
            *(FD_K(pool_s2v_t) *)yp = o;
        } else {
#pragma unroll
            for (int g = 0; g < FD_S2G; g++)
                if (j0 + g < q.out_w)
                    fd_cuda_blend(yp, g * q.gs_w, alpha, beta, val[g]);
        }
    }
}

/* Thread = (warp: 32 / seg segments of seg lanes; segment: plane, chunk of window rows):
 * the lane's t, whether its segment exists, its x / y planes and window rows [i0, i1). */
static __device__ __forceinline__ bool FD_K(s2_rows_lane)(const pool_s2_t &q, const void *xv,
                                                          void *yv, const FD_T **xc, FD_T **yc,
                                                          int *t, int *i0, int *i1)
{
    const int w = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int lane = (int)(threadIdx.x & 31), spw = 32 / q.seg;
    const int sw = lane / q.seg;
    *t = lane - sw * q.seg;
    const int sg = w * spw + sw; /* segment: plane * nchunks + chunk */
    const bool act = sw < spw && sg < q.planes * q.nchunks;
    const int pl = act ? sg / q.nchunks : 0, ch = act ? sg - pl * q.nchunks : 0;
    const int n = pl / q.c, c = pl - n * q.c;
    *xc = (const FD_T *)xv + (n * q.xs_n + c * q.xs_c);
    *yc = (FD_T *)yv + (n * q.gs_n + c * q.gs_c);
    *i0 = ch * q.chunk, *i1 = min(q.out_h, *i0 + q.chunk);
    return act;
}

static __global__ void __launch_bounds__(FD_CUDA_BLOCK, sizeof(FD_T) == 2 ? POOL_S2_ROWS_MINB16 : 4)
    FD_K(pool_s2_max_fwd_rows)(const pool_s2_t q, const void *xv, void *yv, double alpha,
                               double beta)
{
    const FD_T *xc;
    FD_T *yc;
    int t, i0, i1;
    const bool act = FD_K(s2_rows_lane)(q, xv, yv, &xc, &yc, &t, &i0, &i1);
    if (q.pad_w == 0) {
        if (q.propagate)
            FD_K(s2_rows_body)(q, xc, yc, t, act, i0, i1, alpha, beta, 0, true);
        else
            FD_K(s2_rows_body)(q, xc, yc, t, act, i0, i1, alpha, beta, 0, false);
    } else {
        if (q.propagate)
            FD_K(s2_rows_body)(q, xc, yc, t, act, i0, i1, alpha, beta, 1, true);
        else
            FD_K(s2_rows_body)(q, xc, yc, t, act, i0, i1, alpha, beta, 1, false);
    }
}

/* Averages (both modes), the same mapping. */
static __global__ void __launch_bounds__(FD_CUDA_BLOCK, POOL_S2_ROWS_AVG_MINB)
    FD_K(pool_s2_avg_fwd_rows)(const pool_s2_t q, const void *xv, void *yv, double alpha,
                               double beta)
{
    const FD_T *xc;
    FD_T *yc;
    int t, i0, i1;
    const bool act = FD_K(s2_rows_lane)(q, xv, yv, &xc, &yc, &t, &i0, &i1);
    if (q.pad_w == 0)
        FD_K(s2_rows_avg)(q, xc, yc, t, act, i0, i1, alpha, beta, 0);
    else
        FD_K(s2_rows_avg)(q, xc, yc, t, act, i0, i1, alpha, beta, 1);
}

/* ---- 2 x 2 / 2 averages without padding, W innermost, whole vectors (pool_avg22_ok) -------
 * FREEDNN_GPU_BW2 (2026-12-01): the general sweeps ran 0.93x (forward, pool_s2_avg_fwd_rows) and
 * 0.88x (backward, pool_s2_bwd: 6 scalar x loads, shuffles and 4 scalar dx stores a step, for a
 * routing that is fixed here) NVIDIA's rate for f32 NCHW n32 C 128 56 x 56 on the H200. Every
 * window is whole (pad 0, floor sizes), so its count is 4 in both average modes and each dx
 * cell of rows / columns below 2 out is covered by exactly one window.
 * Forward: thread = (plane, window row i, FD_VEC outputs), 2 rows x 2 vectors of x loaded, one
 * vector of y stored; each sum is s2_sum's (0.0, then the cells in row-major order, in
 * double) divided by 4.0, blended: pool_s2_avg_fwd_rows' bits.
 * Backward: thread = (plane, window row i, one dx vector of each of the rows 2i and 2i + 1),
 * FD_VEC / 2 dy values; dx = 0.0 + dy / 4.0 in double, blended: pool_s2_bwd's value for a cell
 * routed from one window (its sum starts at 0.0), the same bits. The caller guarantees
 * in = 2 out (no uncovered dx cell), W strides 1, rows, planes and pointers vector-aligned. */
/* OV outputs a thread (FD_VEC, or FD_VEC / 2 for rows of whole half vectors: pool_avg22h_fwd),
 * one OV-wide store of y; x's 2 OV cells of each of the window rows as whole 16-byte vectors. */
template <int OV> struct alignas(OV * sizeof(FD_T)) FD_K(pool_ovec_t) {
    FD_T e[OV];
};
template <int OV>
static __device__ __forceinline__ void FD_K(avg22_fwd_at)(const pool_s2_t &q, const void *xv,
                                                          void *yv, double alpha, double beta)
{
    typedef FD_K(pool_vec_t) V;
    typedef FD_K(pool_ovec_t)<OV> W;
    constexpr int NV = 2 * OV / FD_VEC; /* x vectors a window row */
    int v, i, n, c;
    if (!pool_avg22_item(q, q.out_w / OV, &v, &i, &n, &c))
        return;
    const FD_T *xr = (const FD_T *)xv + (n * q.xs_n + c * q.xs_c + 2 * i * q.xs_h + 2 * v * OV);
    FD_T *yp = (FD_T *)yv + (n * q.gs_n + c * q.gs_c + i * q.gs_h + v * OV);
    V a[NV], b[NV];
#pragma unroll
    for (int k = 0; k < NV; k++)
        a[k] = *(const V *)(xr + k * FD_VEC), b[k] = *(const V *)(xr + q.xs_h + k * FD_VEC);
    W w;
    if (beta != 0.0)
        w = *(const W *)yp;
#pragma unroll
    for (int o = 0; o < OV; o++) {
        const V &ra = a[2 * o / FD_VEC], &rb = b[2 * o / FD_VEC];
        const int l = 2 * o % FD_VEC;
        double sum = 0.0;
        sum += (double)fd_cuda_ld(ra.e, l);
        sum += (double)fd_cuda_ld(ra.e, l + 1);
        sum += (double)fd_cuda_ld(rb.e, l);
        sum += (double)fd_cuda_ld(rb.e, l + 1);
        fd_cuda_blend(w.e, o, alpha, beta, sum / 4.0);
    }
    *(W *)yp = w;
}

static __global__ void FD_K(pool_avg22_fwd)(const pool_s2_t q, const void *xv, void *yv,
                                            double alpha, double beta)
{
    FD_K(avg22_fwd_at)<FD_VEC>(q, xv, yv, alpha, beta);
}

/* 2026-12-01, fourteenth session (under FREEDNN_GPU_BW2, as the kernels above): f16 NCHW n32
 * C 256 56 x 56 (rows of 28 outputs, not whole 8-half vectors) took the general pool_s2_fwd at
 * 0.68x NVIDIA's rate; rows of whole half vectors (8 bytes) take this: FD_VEC / 2 outputs a
 * thread, one 16-byte x vector of each window row, the same sums and bits. */
static __global__ void FD_K(pool_avg22h_fwd)(const pool_s2_t q, const void *xv, void *yv,
                                             double alpha, double beta)
{
    FD_K(avg22_fwd_at)<(FD_VEC > 1 ? FD_VEC / 2 : 1)>(q, xv, yv, alpha, beta);
}

static __global__ void FD_K(pool_avg22_bwd)(const pool_s2_t q, const void *dyv, void *dxv,
                                            double alpha, double beta)
{
    typedef FD_K(pool_vec_t) V;
    constexpr int H = FD_VEC / 2 > 0 ? FD_VEC / 2 : 1; /* dy values a dx vector */
    int v, i, n, c;
    if (!pool_avg22_item(q, q.in_w / FD_VEC, &v, &i, &n, &c))
        return;
    const FD_T *g = (const FD_T *)dyv + (n * q.gs_n + c * q.gs_c + i * q.gs_h + v * H * q.gs_w);
    FD_T *d = (FD_T *)dxv + (n * q.ds_n + c * q.ds_c + 2 * i * q.ds_h + v * FD_VEC);
    double val[H];
#pragma unroll
    for (int k = 0; k < H; k++)
        val[k] = 0.0 + (double)fd_cuda_ld(g, k * q.gs_w) / 4.0;
#pragma unroll
    for (int rr = 0; rr < 2; rr++) {
        V *dp = (V *)(d + rr * q.ds_h);
        V w;
        if (beta != 0.0)
            w = *dp;
#pragma unroll
        for (int l = 0; l < FD_VEC; l++)
            fd_cuda_blend(w.e, l, alpha, beta, val[l / 2]);
        *dp = w;
    }
}

#undef FD_S2G
#undef FD_S2V
