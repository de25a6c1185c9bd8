/* SPDX-License-Identifier: MIT */
/*
 * lrn_kernels.cuh - the kernels of lrn.cu for one storage type. lrn.cu includes this once per
 * type with FD_T (storage), FD_ACC (accumulator and pow: float, double for DOUBLE) and FD_SFX
 * (f32, f64, f16, bf16) defined. One thread per output element, grid-stride, in the order
 * lrn_geom_t.c_inner picks; every window sum is recomputed from the inputs in the reference's
 * order (src/ref/lrn_ref.c), so no scratch beyond divisive normalization's temp/temp2 is used.
 */

#define FD_K(name) FD_CUDA_CAT(name, FD_SFX)

/* ---- cross-channel LRN (tensors: 0 x, 1 y, 2 dy, 3 dx) ------------------------------------ */

/* s_c = k + alpha / n * sum of x_j^2 over j in [c - lb, c + la] within [0, C) */
static __device__ __forceinline__ FD_ACC FD_K(cc_scale)(const lrn_geom_t &g, const lrn_params_t &q,
                                                        const FD_T *x, int64_t base, int64_t c)
{
    const int64_t lo = c - q.lb < 0 ? 0 : c - q.lb;
    const int64_t hi = c + q.la > g.C - 1 ? g.C - 1 : c + q.la;
    FD_ACC sum = 0;
    for (int64_t j = lo; j <= hi; j++) {
        const FD_ACC v = fd_cuda_ld(x, base + j * g.st[0][1]);
        sum += v * v;
    }
    return (FD_ACC)(q.k + q.alpha_n * (double)sum);
}

static __global__ void FD_K(lrn_fwd)(const lrn_geom_t g, const lrn_params_t q, const void *xv,
                                     void *yv, double alpha, double beta)
{
    const FD_T *__restrict__ x = (const FD_T *)xv;
    FD_T *__restrict__ y = (FD_T *)yv;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < g.total;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t n, c, s[3];
        lrn_unflatten(g, e, &n, &c, s);
        const int64_t xb = lrn_offset(g, 0, n, 0, s); /* channel 0 of this column */
        const FD_ACC sc = FD_K(cc_scale)(g, q, x, xb, c);
        const FD_ACC xv_ = fd_cuda_ld(x, xb + c * g.st[0][1]);
        fd_cuda_blend(y, lrn_offset(g, 1, n, c, s), alpha, beta,
                      (double)(xv_ * fd_cuda_pow(sc, (FD_ACC)-q.beta)));
    }
}

/* dx_i = dy_i s_i^-beta - 2 beta alpha / n * x_i * sum_{c in [i - la, i + lb]} dy_c y_c / s_c */
static __global__ void FD_K(lrn_bwd)(const lrn_geom_t g, const lrn_params_t q, const void *xv,
                                     const void *yv, const void *dyv, void *dxv, double alpha,
                                     double beta)
{
    const FD_T *__restrict__ x = (const FD_T *)xv;
    const FD_T *__restrict__ y = (const FD_T *)yv;
    const FD_T *__restrict__ dy = (const FD_T *)dyv;
    FD_T *__restrict__ dx = (FD_T *)dxv;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < g.total;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t n, i, s[3];
        lrn_unflatten(g, e, &n, &i, s);
        const int64_t xb = lrn_offset(g, 0, n, 0, s), yb = lrn_offset(g, 1, n, 0, s);
        const int64_t dyb = lrn_offset(g, 2, n, 0, s);
        const int64_t lo = i - q.la < 0 ? 0 : i - q.la;
        const int64_t hi = i + q.lb > g.C - 1 ? g.C - 1 : i + q.lb;
        FD_ACC acc = 0;
        for (int64_t c = lo; c <= hi; c++) {
            const FD_ACC gc = fd_cuda_ld(dy, dyb + c * g.st[2][1]);
            const FD_ACC yc = fd_cuda_ld(y, yb + c * g.st[1][1]);
            acc += gc * yc / FD_K(cc_scale)(g, q, x, xb, c);
        }
        const FD_ACC si = FD_K(cc_scale)(g, q, x, xb, i);
        const FD_ACC gi = fd_cuda_ld(dy, dyb + i * g.st[2][1]);
        const FD_ACC xi = fd_cuda_ld(x, xb + i * g.st[0][1]);
        const FD_ACC v = gi * fd_cuda_pow(si, (FD_ACC)-q.beta) - (FD_ACC)q.coef * xi * acc;
        fd_cuda_blend(dx, lrn_offset(g, 3, n, i, s), alpha, beta, (double)v);
    }
}

/* ---- cross-channel LRN, a column per thread (spatial innermost layouts) ---------------------
 * Thread per (n, spatial position), walking c with the window in registers (shift registers:
 * W is a template parameter so they stay in registers). Loads run LRN_COL_U channels ahead
 * of the arithmetic in a ring (slot u is refilled for channel c + U as soon as channel c has
 * taken it), so U loads per input stay in flight while the thread computes, with U registers
 * per input (loading a batch of U, then computing it, left the loads idle during the
 * arithmetic: 0.81x forward). The window sums add the squares in cc_scale's order with
 * out-of-range slots held at 0 (adding a leading or trailing +0 to a sum of squares, or to
 * the backward's sum of terms, which starts at +0 and so is never -0, changes no bit), then
 * the same scale (double, rounded to float) and powf: lrn_fwd's / lrn_bwd's bits, each input
 * read once instead of n (n^2 backward) times with a 64-bit unflatten per element. Bytes per
 * thread and channel: forward x in and y out,
 * backward x, y, dy in and dx out; each warp-wide access is 32 neighbouring pixels of one
 * channel (128 B for FLOAT). alpha 1, beta 0 stores the float rounded once (the blend's
 * result then) without the double blend. */
#define LRN_COL_U 8
/* The column kernels' s^e and a / s: for 16-bit storage (HALF, BFLOAT16) by the SFU
 * (__powf: exp2(e log2 s) on the SFU; a * rcp(s) with __fdividef: relative errors of a
 * few 1e-6 for s >= k >= 1e-5 and |e| <= 10, against the 2^-11 / 2^-8 of the final rounding;
 * s = +inf gives 0 and NaN NaN as powf). powf's ~40 instructions and the IEEE division were
 * most of a 16-bit element's work (f16 fwd / bwd ran 0.72x / 0.74x NVIDIA's rate on the
 * H200, 2026-12-01, at fewer elements a second than f32). FLOAT keeps the division and powf,
 * or under FREEDNN_GPU_BW3 (fast: q.fastpow) lrn.cu's lrn_pow_fast. */
#define LRN_FAST16 (sizeof(FD_T) == 2)
static __device__ __forceinline__ FD_ACC FD_K(lrn_col_pow)(FD_ACC s, FD_ACC e, int fast)
{
    if (LRN_FAST16)
        return (FD_ACC)__powf((float)s, (float)e);
    /* FLOAT under FREEDNN_GPU_BW3 (lrn.cu's lrn_pow_fast; q.fastpow) */
    return sizeof(FD_ACC) == 4 && fast ? (FD_ACC)lrn_pow_fast((float)s, (float)e)
                                       : fd_cuda_pow(s, e);
}
static __device__ __forceinline__ FD_ACC FD_K(lrn_col_div)(FD_ACC a, FD_ACC s)
{
    return LRN_FAST16 ? (FD_ACC)__fdividef((float)a, (float)s) : a / s;
}
/* lrn_fwd_col's blocks per SM to keep: ptxas then holds it at 42-56 registers, no spills
 * (70 for n = 5 without the bound: 3 blocks of 256 threads an SM where the batch-then-compute
 * version's 48 registers gave 5) */
#define LRN_COL_FWD_MINB 4
/* lrn_bwd_col's for windows up to 5: 3 blocks, with a ring of 4 channels ahead (8 spilled at
 * 80 registers). Unbounded with the ring of 8 it took 80-83 registers (n = 5), allocated as
 * 88: 2 blocks of 256 an SM, so the benchmark's N H W = 100352 columns (392 blocks) ran in 1.5
 * waves on the H200's 132 SMs, the second at half occupancy (0.49x NVIDIA's f32 rate,
 * 2026-12-01); bounded, ptxas (sm_90) gives n = 5 80 registers, n <= 3 64-72, 0 spills, and
 * the 392 blocks fit the 396 slots of one wave. Four steps ahead is still 12 loads in flight
 * per thread (36 KB an SM for FLOAT). Wider windows keep the ring of 8, unbounded (93-128). */
#define LRN_COL_BWD_MINB(W) ((W) <= 5 ? 3 : 1)
#define LRN_COL_BWD_U ((W) <= 5 ? 4 : 8)

/* U: the look-ahead in channels (LRN_COL_U; lrn.cu launches FLOAT with 16 under
 * FREEDNN_GPU_BW3: the power there takes a few instructions, so 8 channels of arithmetic hide
 * less of the load latency; 3 blocks an SM: it spilled at 4, and the benchmark's 392 blocks fill
 * 396 slots then); the same arithmetic in the same order whatever U. */
template <int W, bool CH, int U = LRN_COL_U>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK, U > LRN_COL_U ? 3 : LRN_COL_FWD_MINB)
    FD_K(lrn_fwd_col)(const lrn_geom_t g, const lrn_params_t q, const void *xv, void *yv,
                      double alpha, double beta, int cc)
{
    const FD_T *__restrict__ x = (const FD_T *)xv;
    FD_T *__restrict__ y = (FD_T *)yv;
    constexpr int LB = (W - 1) / 2, LA = W - 1 - LB;
    const bool plain = alpha == 1.0 && beta == 0.0;
    const int64_t S = g.sz[0] * g.sz[1] * g.sz[2], cols = g.N * S;
    /* CH: grid y is the channel chunks [cs, ce) of cc (lrn.cu's lrn_col_chunk); else one
     * (the 16-bit kernels spill at their bound of 64 registers with chunk bounds held) */
    const int64_t cs = CH ? (int64_t)blockIdx.y * cc : 0, ce = CH ? min(g.C, cs + cc) : g.C;
    const int64_t jend = CH ? min(g.C, ce + LA) : g.C; /* x the chunk reads: [cs - LB, jend) */
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < cols;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t s[3];
        const int64_t n = lrn_col_pos(g, S, e, s);
        const FD_T *xc = x + lrn_offset(g, 0, n, 0, s);
        FD_T *yc = y + lrn_offset(g, 1, n, 0, s);
        const int64_t xsc = g.st[0][1], ysc = g.st[1][1];
        /* win[k] = x[c - LB + k] (0 outside [0, C)) for the channel c about to be written */
        FD_ACC win[W];
#pragma unroll
        for (int k = 0; k < W; k++) {
            const int64_t j = cs + k - LB;
            win[k] = j >= 0 && j < g.C ? fd_cuda_ld(xc, j * xsc) : (FD_ACC)0;
        }
        FD_ACC ahead[U]; /* ahead[u] = x[c + LA + 1] for c = c0 + u */
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int64_t j = cs + u + LA + 1;
            ahead[u] = j < g.C ? fd_cuda_ld(xc, j * xsc) : (FD_ACC)0;
        }
        for (int64_t c0 = cs; c0 < ce; c0 += U) {
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int64_t c = c0 + u;
                if (c < ce) {
                    FD_ACC sum = 0;
#pragma unroll
                    for (int k = 0; k < W; k++)
                        sum += win[k] * win[k];
                    const FD_ACC sc = (FD_ACC)(q.k + q.alpha_n * (double)sum);
                    const FD_ACC v = win[LB] * FD_K(lrn_col_pow)(sc, (FD_ACC)-q.beta, q.fastpow);
                    if (plain)
                        lrn_st_acc(yc, c * ysc, v);
                    else
                        fd_cuda_blend(yc, c * ysc, alpha, beta, (double)v);
                }
                lrn_push(win, ahead[u]);
                const int64_t j = c + U + LA + 1; /* the slot's next use: c + U */
                ahead[u] = j < jend ? fd_cuda_ld(xc, j * xsc) : (FD_ACC)0;
            }
        }
    }
}

/* lrn_bwd's dx, a column per thread. Step i (from -LB, so the look-ahead fills) appends
 * x[i + W - 1], dy[i + LB] and y[i + LB]; then xw = x[i .. i + W - 1], the window of
 * s[i + LB], gives t[i + LB] = dy y / s and s[i + LB]^-beta; tw = t[i - LA .. i + LB] is the
 * window of dx[i] (the adjoint one), and dy[i], s[i]^-beta wait LB steps in gr / pr. */
/* UB: the ring's channels (LRN_COL_BWD_U; lrn.cu launches FLOAT windows up to 5 without chunks
 * with 6 under FREEDNN_GPU_BW3: 18 loads in flight a thread at the same 3 blocks an SM, 80
 * registers, 0 spills; 8 spilled, and 6 with chunks); the same arithmetic whatever UB. */
template <int W, bool CH, int UB = LRN_COL_BWD_U>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK, LRN_COL_BWD_MINB(W))
    FD_K(lrn_bwd_col)(const lrn_geom_t g, const lrn_params_t q, const void *xv, const void *yv,
                      const void *dyv, void *dxv, double alpha, double beta, int cc)
{
    const FD_T *__restrict__ x = (const FD_T *)xv;
    const FD_T *__restrict__ y = (const FD_T *)yv;
    const FD_T *__restrict__ dy = (const FD_T *)dyv;
    FD_T *__restrict__ dx = (FD_T *)dxv;
    constexpr int LB = (W - 1) / 2;
    const bool plain = alpha == 1.0 && beta == 0.0;
    const FD_ACC nbeta = (FD_ACC)-q.beta;
    const int64_t C = g.C, S = g.sz[0] * g.sz[1] * g.sz[2], cols = g.N * S;
    /* CH: grid y is the channel chunks (else one); chunk [cs, ce) of cc (lrn.cu's lrn_col_chunk)
     * writes dx[cs, ce); its first step i_s makes t[cs - LA] (the first of dx[cs]'s window); steps
     * before cs write nothing, t of channels outside [0, C) stays 0 */
    const int64_t cs = CH ? (int64_t)blockIdx.y * cc : 0, ce = CH ? min(C, cs + cc) : C;
    const int64_t i_s = cs > 0 ? cs - (W - 1) : -LB;
    /* what the chunk reads: x below xend (t up to ce - 1 + LB), dy and y below gend */
    const int64_t xend = CH ? min(C, ce + W - 1) : C, gend = CH ? min(C, ce + LB) : C;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < cols;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t s[3];
        const int64_t n = lrn_col_pos(g, S, e, s);
        const FD_T *xc = x + lrn_offset(g, 0, n, 0, s);
        const FD_T *yc = y + lrn_offset(g, 1, n, 0, s);
        const FD_T *gc = dy + lrn_offset(g, 2, n, 0, s);
        FD_T *dc = dx + lrn_offset(g, 3, n, 0, s);
        const int64_t xsc = g.st[0][1], ysc = g.st[1][1], gsc = g.st[2][1], dsc = g.st[3][1];
        /* the state before step i_s: xw[k] = x[i_s - 1 + k], nothing computed yet */
        FD_ACC xw[W], tw[W], gr[LB + 1], pr[LB + 1];
#pragma unroll
        for (int k = 0; k < W; k++) {
            const int64_t j = i_s - 1 + k;
            xw[k] = j >= 0 && j < C ? fd_cuda_ld(xc, j * xsc) : (FD_ACC)0;
            tw[k] = 0;
        }
#pragma unroll
        for (int k = 0; k <= LB; k++)
            gr[k] = pr[k] = 0;
        /* ring slot u holds step i's loads for i = i0 + u: x[i + W - 1], dy[i + LB],
         * y[i + LB] (both indices >= 0), refilled for step i + U once consumed */
        FD_ACC ax[UB], ag[UB], ay[UB];
#pragma unroll
        for (int u = 0; u < UB; u++) {
            const int64_t jx = i_s + u + W - 1, jg = i_s + u + LB; /* jx >= 0 */
            const bool gin = (!CH || jg >= 0) && jg < C;
            ax[u] = jx < C ? fd_cuda_ld(xc, jx * xsc) : (FD_ACC)0;
            ag[u] = gin ? fd_cuda_ld(gc, jg * gsc) : (FD_ACC)0;
            ay[u] = gin ? fd_cuda_ld(yc, jg * ysc) : (FD_ACC)0;
        }
        for (int64_t i0 = i_s; i0 < ce; i0 += UB) {
#pragma unroll
            for (int u = 0; u < UB; u++) {
                const int64_t i = i0 + u;
                lrn_push(xw, ax[u]);
                FD_ACC t = 0, pw = 0;
                if ((!CH || i + LB >= 0) && i + LB < C) {
                    FD_ACC sum = 0;
#pragma unroll
                    for (int k = 0; k < W; k++)
                        sum += xw[k] * xw[k];
                    const FD_ACC sc = (FD_ACC)(q.k + q.alpha_n * (double)sum);
                    t = FD_K(lrn_col_div)(ag[u] * ay[u], sc);
                    pw = FD_K(lrn_col_pow)(sc, nbeta, q.fastpow);
                }
                lrn_push(tw, t);
                lrn_push(gr, ag[u]);
                lrn_push(pr, pw);
                {
                    const int64_t jx = i + UB + W - 1, jg = i + UB + LB;
                    ax[u] = jx < xend ? fd_cuda_ld(xc, jx * xsc) : (FD_ACC)0;
                    ag[u] = jg < gend ? fd_cuda_ld(gc, jg * gsc) : (FD_ACC)0;
                    ay[u] = jg < gend ? fd_cuda_ld(yc, jg * ysc) : (FD_ACC)0;
                }
                if (i >= cs && i < ce) {
                    FD_ACC acc = 0;
#pragma unroll
                    for (int k = 0; k < W; k++)
                        acc += tw[k];
                    const FD_ACC v = gr[0] * pr[0] - (FD_ACC)q.coef * xw[0] * acc;
                    if (plain)
                        lrn_st_acc(dc, i * dsc, v);
                    else
                        fd_cuda_blend(dc, i * dsc, alpha, beta, (double)v);
                }
            }
        }
    }
}
#undef LRN_COL_U
#undef LRN_FAST16
#undef LRN_COL_FWD_MINB
#undef LRN_COL_BWD_MINB
#undef LRN_COL_BWD_U

/* ---- cross-channel LRN backward, channels innermost (NHWC): pixel tiles in shared memory ----
 * lrn_bwd recomputed n window sums of n squares and n divisions for every element (n^2 L1
 * loads): 0.59x NVIDIA's rate on the H200 for NHWC. Here a block takes P whole pixels (P * C
 * <= 1024 elements, lrn.cu), loads x, dy and y once with the channels innermost (coalesced:
 * about 4 elements per thread and input in flight), then computes each s_c, t_c = dy y / s_c
 * and s_c^-beta once from shared memory and each dx from the window of t: n + n shared loads an
 * element. The shared rows are padded with the window's zeros (xs: lb leading, la trailing;
 * ts: la leading, lb trailing), so the sums run over whole windows in cc_scale's / lrn_bwd's
 * order with +0 terms outside [0, C): lrn_bwd's bits. Shared memory: 4 P pixel offsets
 * (64-bit) and P (2 (C + n - 1) + 2 C) floats, sized by lrn.cu at launch. */
static __global__ void __launch_bounds__(FD_CUDA_BLOCK)
    FD_K(lrn_bwd_tile)(const lrn_geom_t g, const lrn_params_t q, int P, const void *xv,
                       const void *yv, const void *dyv, void *dxv, double alpha, double beta)
{
    extern __shared__ __align__(16) unsigned char FD_K(lrn_sh)[];
    const FD_T *__restrict__ x = (const FD_T *)xv;
    const FD_T *__restrict__ y = (const FD_T *)yv;
    const FD_T *__restrict__ dy = (const FD_T *)dyv;
    FD_T *__restrict__ dx = (FD_T *)dxv;
    const bool plain = alpha == 1.0 && beta == 0.0;
    const int C = (int)g.C, W = q.lb + q.la + 1, CW = C + W - 1;
    int64_t *pb = (int64_t *)FD_K(lrn_sh); /* [4][P]: the pixels' channel-0 offsets */
    FD_ACC *xs = (FD_ACC *)(pb + 4 * P);   /* [P][CW]: x[c] at lb + c */
    FD_ACC *ts = xs + P * CW;              /* [P][CW]: t[c] at la + c */
    FD_ACC *ps = ts + P * CW;              /* [P][C]: y, then s^-beta */
    FD_ACC *gs = ps + P * C;               /* [P][C]: dy */
    const int64_t S = g.sz[0] * g.sz[1] * g.sz[2], npix = g.N * S, tiles = (npix + P - 1) / P;
    const int64_t xsc = g.st[0][1], ysc = g.st[1][1], gsc = g.st[2][1], dsc = g.st[3][1];
    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int64_t p0 = tile * P;
        const int np = (int)(npix - p0 < P ? npix - p0 : P), ne = np * C;
        for (int p = threadIdx.x; p < np; p += blockDim.x) {
            int64_t s[3];
            const int64_t e = p0 + p, n = e / S;
            int64_t r = e - n * S;
            s[2] = r % g.sz[2];
            r /= g.sz[2];
            s[1] = r % g.sz[1];
            s[0] = r / g.sz[1];
            for (int t = 0; t < 4; t++)
                pb[t * P + p] = lrn_offset(g, t, n, 0, s);
        }
        for (int i = threadIdx.x; i < np * (W - 1); i += blockDim.x) {
            const int p = i / (W - 1), k = i - p * (W - 1);
            xs[p * CW + (k < q.lb ? k : C + k)] = 0;
            ts[p * CW + (k < q.la ? k : C + k)] = 0;
        }
        __syncthreads();
        for (int i = threadIdx.x; i < ne; i += blockDim.x) {
            const int p = i / C, c = i - p * C;
            xs[p * CW + q.lb + c] = fd_cuda_ld(x, pb[p] + c * xsc);
            ps[i] = fd_cuda_ld(y, pb[P + p] + c * ysc);
            gs[i] = fd_cuda_ld(dy, pb[2 * P + p] + c * gsc);
        }
        __syncthreads();
        for (int i = threadIdx.x; i < ne; i += blockDim.x) {
            const int p = i / C, c = i - p * C;
            const FD_ACC *xw = xs + p * CW + c; /* x[c - lb .. c + la] */
            FD_ACC sum = 0;
            for (int k = 0; k < W; k++)
                sum += xw[k] * xw[k];
            const FD_ACC sc = (FD_ACC)(q.k + q.alpha_n * (double)sum);
            ts[p * CW + q.la + c] = gs[i] * ps[i] / sc;
            ps[i] = fd_cuda_pow(sc, (FD_ACC)-q.beta);
        }
        __syncthreads();
        for (int i = threadIdx.x; i < ne; i += blockDim.x) {
            const int p = i / C, c = i - p * C;
            const FD_ACC *tw = ts + p * CW + c; /* t[c - la .. c + lb] */
            FD_ACC acc = 0;
            for (int k = 0; k < W; k++)
                acc += tw[k];
            const FD_ACC v = gs[i] * ps[i] - (FD_ACC)q.coef * xs[p * CW + q.lb + c] * acc;
            if (plain)
                lrn_st_acc(dx, pb[3 * P + p] + c * dsc, v);
            else
                fd_cuda_blend(dx, pb[3 * P + p] + c * dsc, alpha, beta, (double)v);
        }
        __syncthreads(); /* the next tile rewrites the shared rows */
    }
}

/* ---- divisive normalization (tensors: 0 x-shaped (x, means, temp, temp2, dy), 1 out) ------- */

/* dst = src element by element over the x-shaped addresses (the in-place copies). */
static __global__ void FD_K(dn_copy)(const lrn_geom_t g, const void *srcv, void *dstv)
{
    const FD_T *__restrict__ src = (const FD_T *)srcv;
    FD_T *__restrict__ dst = (FD_T *)dstv;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < g.total;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t n, c, s[3];
        lrn_unflatten(g, e, &n, &c, s);
        const int64_t off = lrn_offset(g, 0, n, c, s);
        dst[off] = src[off];
    }
}

/* t = x - means (means NULL: x) at x-shaped offset off */
static __device__ __forceinline__ FD_ACC FD_K(dn_t)(const FD_T *x, const FD_T *means, int64_t off)
{
    FD_ACC v = fd_cuda_ld(x, off);
    if (means != NULL)
        v -= fd_cuda_ld(means, off);
    return v;
}

/* s = k + alpha / n^d * sum of t^2 over the window [s - lb, s + la] of each spatial dim */
static __device__ __forceinline__ FD_ACC FD_K(dn_scale)(const lrn_geom_t &g, const lrn_params_t &q,
                                                        const FD_T *x, const FD_T *means,
                                                        int64_t base, const int64_t *s)
{
    int64_t lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = s[k] - q.lb < 0 ? 0 : s[k] - q.lb;
        hi[k] = s[k] + q.la > g.sz[k] - 1 ? g.sz[k] - 1 : s[k] + q.la;
    }
    FD_ACC sum = 0;
    for (int64_t j0 = lo[0]; j0 <= hi[0]; j0++)
        for (int64_t j1 = lo[1]; j1 <= hi[1]; j1++)
            for (int64_t j2 = lo[2]; j2 <= hi[2]; j2++) {
                const FD_ACC t = FD_K(dn_t)(
                    x, means, base + j0 * g.st[0][2] + j1 * g.st[0][3] + j2 * g.st[0][4]);
                sum += t * t;
            }
    return (FD_ACC)(q.k + q.alpha_n * (double)sum);
}

static __global__ void FD_K(dn_fwd)(const lrn_geom_t g, const lrn_params_t q, const void *xv,
                                    const void *meansv, void *yv, double alpha, double beta)
{
    const FD_T *x = (const FD_T *)xv; /* a copy in temp when y is x */
    const FD_T *means = (const FD_T *)meansv;
    FD_T *y = (FD_T *)yv;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < g.total;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t n, c, s[3];
        lrn_unflatten(g, e, &n, &c, s);
        const int64_t base = lrn_offset(g, 0, n, c, s) - lrn_spatial(g, 0, s);
        const FD_ACC t = FD_K(dn_t)(x, means, base + lrn_spatial(g, 0, s));
        const FD_ACC sc = FD_K(dn_scale)(g, q, x, means, base, s);
        fd_cuda_blend(y, lrn_offset(g, 1, n, c, s), alpha, beta,
                      (double)(t * fd_cuda_pow(sc, (FD_ACC)-q.beta)));
    }
}

/* g_i = dy_i s_i^-beta - 2 beta alpha / n^d * t_i * sum_{c: i in W(c)} dy_c t_c s_c^(-beta-1);
 * dx = g, dMeans = -g. x and dy are copies in temp / temp2 when dx aliases them. */
static __global__ void FD_K(dn_bwd)(const lrn_geom_t g, const lrn_params_t q, const void *xv,
                                    const void *meansv, const void *dyv, void *dxv, void *dmv,
                                    double alpha, double beta)
{
    const FD_T *x = (const FD_T *)xv;
    const FD_T *means = (const FD_T *)meansv;
    const FD_T *dy = (const FD_T *)dyv;
    FD_T *dx = (FD_T *)dxv;
    FD_T *dm = (FD_T *)dmv;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < g.total;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t n, ch, s[3];
        lrn_unflatten(g, e, &n, &ch, s);
        const int64_t base = lrn_offset(g, 0, n, ch, s) - lrn_spatial(g, 0, s);
        int64_t lo[3], hi[3], c[3];
        for (int k = 0; k < 3; k++) {
            lo[k] = s[k] - q.la < 0 ? 0 : s[k] - q.la;
            hi[k] = s[k] + q.lb > g.sz[k] - 1 ? g.sz[k] - 1 : s[k] + q.lb;
        }
        FD_ACC acc = 0;
        for (c[0] = lo[0]; c[0] <= hi[0]; c[0]++)
            for (c[1] = lo[1]; c[1] <= hi[1]; c[1]++)
                for (c[2] = lo[2]; c[2] <= hi[2]; c[2]++) {
                    const int64_t off = base + lrn_spatial(g, 0, c);
                    const FD_ACC sc = FD_K(dn_scale)(g, q, x, means, base, c);
                    acc += fd_cuda_ld(dy, off) * FD_K(dn_t)(x, means, off) *
                           fd_cuda_pow(sc, (FD_ACC)(-q.beta - 1.0));
                }
        const int64_t off = base + lrn_spatial(g, 0, s);
        const FD_ACC si = FD_K(dn_scale)(g, q, x, means, base, s);
        const FD_ACC grad = fd_cuda_ld(dy, off) * fd_cuda_pow(si, (FD_ACC)-q.beta) -
                            (FD_ACC)q.coef * FD_K(dn_t)(x, means, off) * acc;
        const int64_t out = lrn_offset(g, 1, n, ch, s);
        fd_cuda_blend(dx, out, alpha, beta, (double)grad);
        if (dm != NULL)
            fd_cuda_blend(dm, out, alpha, beta, -(double)grad);
    }
}

/* ---- cross-channel LRN forward, channels innermost: 16-byte channel vectors -------------- */
#include "lrn_nhwc.cuh"

#undef FD_K
