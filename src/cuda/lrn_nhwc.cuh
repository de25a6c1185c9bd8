/* SPDX-License-Identifier: MIT */
/*
 * lrn_nhwc.cuh - cross-channel LRN forward and backward with the channels innermost (NHWC),
 * 16-byte vectors of channels (lrn_kernels.cuh includes it once per storage type; lrn.cu's
 * lrn_nhwc_ok decides, FLOAT, HALF and BFLOAT16 are launched, FREEDNN_GPU_LRN_NHWC=0 keeps
 * lrn_fwd and lrn_bwd_tile; the backward: lrn_bwd_nhwc at the end).
 *
 * lrn_fwd (one thread per element, n loads and a double blend each) moved 249 GB/s (f16) and
 * 494 GB/s (f32) on the H200 for NHWC n 5. Here a thread owns one 16-byte vector of V channels
 * (V = 4 floats, 8 halves / bfloat16s) of one pixel: a block of T <= 256 threads takes
 * P = 256 / (C / V) whole pixels (T = P C / V rounded up to a warp; the lanes past P C / V only
 * join the barriers) and LRN_NHWC_U such tiles a trip. Each thread loads its vector once
 * (16-byte coalesced: a pixel's C / V vectors are neighbours in thread order), writes it to
 * shared memory, and after a barrier reads the neighbours' vectors that its window reaches
 * (ceil(lb / V) to the left, ceil(la / V) to the right: one each side for n <= 9 FLOAT and every
 * n for the 16-bit types; channels outside [0, C) as +0), then computes its V outputs in
 * registers and stores them with one 16-byte store (alpha 1, beta 0; blends go element by
 * element through fd_cuda_blend). x is read once from DRAM and y written once.
 *
 * Arithmetic: lrn_fwd_col's, term by term: the window sum of squares k = 0 .. n - 1 in the
 * window's channel order from +0, one fma a term as lrn_fwd's and lrn_fwd_col's contracted
 * `sum += a * a` (written out: a plain `sum += a * a` here had nvcc square each w slot once
 * and add the products, another rounding; the +0 slots outside [0, C) change no bit: the sum
 * is never -0, and fma(a, a, +0) is lrn_fwd_col's first product a * a), the scale
 * k + alpha / n * sum in double rounded to the accumulator, the power by lrn_col_pow
 * (HALF / BFLOAT16 __powf; FLOAT powf, or lrn_pow_fast under FREEDNN_GPU_BW3: q.fastpow), the
 * product with x in the accumulator, one rounding to the storage type (alpha 1, beta 0, same bits
 * as sd_blend) or the double blend. So FLOAT gives lrn_fwd_col's bits for the same x (and
 * lrn_fwd's when FREEDNN_GPU_BW3=0: powf); HALF / BFLOAT16 lrn_fwd_col's __powf contract
 * (docs/testing.md). Shared memory: LRN_NHWC_U * 256 * 16 = 8 KiB a block (static); registers
 * and occupancy in lrn.cu's header comment.
 */

FD_CUDA_VEC_OF(FD_T, FD_K(lrn_vec_t));

/* channel k of vector v widened to the accumulator */
static __device__ __forceinline__ FD_ACC FD_K(lrn_vec_ld)(const FD_K(lrn_vec_t) & v, int k)
{
    return fd_cuda_ld(v.e, k);
}

/* pixel e's channel-0 offsets o[t] in tensors t < NT */
template <int NT>
static __device__ __forceinline__ void FD_K(lrn_nhwc_pix)(const lrn_geom_t &g, const lrn_nhwc_t &m,
                                                          int64_t S, int64_t e, int64_t *o)
{
    if (m.flat) {
#pragma unroll
        for (int t = 0; t < NT; t++)
            o[t] = e * m.ps[t];
        return;
    }
    int64_t s[3];
    const int64_t n = lrn_col_pos(g, S, e, s);
#pragma unroll
    for (int t = 0; t < NT; t++)
        o[t] = lrn_offset(g, t, n, 0, s);
}

/* w[HL V + j] = x[v V + j] for j in [-HL V, (HR + 1) V): thread i's own vector xr (channel
 * vector v of its pixel, nv of them) and its neighbours' from sh, +0 outside [0, C) */
template <int HL, int HR>
static __device__ __forceinline__ void FD_K(lrn_nhwc_xwin)(const FD_K(lrn_vec_t) * sh, int i, int v,
                                                           int nv, const FD_K(lrn_vec_t) & xr,
                                                           FD_ACC *w)
{
    constexpr int V = FD_CUDA_VEC_BYTES / (int)sizeof(FD_T), O = HL * V;
#pragma unroll
    for (int h = 1; h <= HL; h++) {
        const bool in = v - h >= 0;
        const FD_K(lrn_vec_t) nb = sh[in ? i - h : i];
#pragma unroll
        for (int k = 0; k < V; k++)
            w[O - h * V + k] = in ? FD_K(lrn_vec_ld)(nb, k) : (FD_ACC)0;
    }
#pragma unroll
    for (int k = 0; k < V; k++)
        w[O + k] = FD_K(lrn_vec_ld)(xr, k);
#pragma unroll
    for (int h = 1; h <= HR; h++) {
        /* i + h past the block: a thread past the tile's last whole pixel (its result unused),
         * whose neighbour would be outside sh (compute-sanitizer's racecheck saw the backward
         * read tsh that way, 2026-12-02) */
        const bool in = v + h < nv && i + h < LRN_NHWC_BLOCK;
        const FD_K(lrn_vec_t) nb = sh[in ? i + h : i];
#pragma unroll
        for (int k = 0; k < V; k++)
            w[O + h * V + k] = in ? FD_K(lrn_vec_ld)(nb, k) : (FD_ACC)0;
    }
}

template <int W, bool PLAIN>
static __global__ void __launch_bounds__(LRN_NHWC_BLOCK, PLAIN ? LRN_NHWC_MINB + 1 : LRN_NHWC_MINB)
    FD_K(lrn_fwd_nhwc)(const lrn_geom_t g, const lrn_params_t q, const lrn_nhwc_t m,
                       const void *xv, void *yv, double alpha, double beta)
{
    constexpr int V = FD_CUDA_VEC_BYTES / (int)sizeof(FD_T), U = LRN_NHWC_U;
    constexpr int LB = (W - 1) / 2, LA = W - 1 - LB;
    constexpr int HL = (LB + V - 1) / V, HR = (LA + V - 1) / V; /* neighbour vectors */
    constexpr int O = HL * V;                                   /* own vector's first slot */
    __shared__ FD_K(lrn_vec_t) sh[U][LRN_NHWC_BLOCK];
    const FD_T *__restrict__ x = (const FD_T *)xv;
    FD_T *__restrict__ y = (FD_T *)yv;
    const FD_ACC nbeta = (FD_ACC)-q.beta;
    const int i = threadIdx.x, p = i / m.nv, v = i - p * m.nv;
    const bool act = p < m.P;
    const int64_t S = g.sz[0] * g.sz[1] * g.sz[2], tile = (int64_t)U * m.P;
    for (int64_t t0 = (int64_t)blockIdx.x * tile; t0 < m.npix; t0 += (int64_t)gridDim.x * tile) {
        FD_K(lrn_vec_t) xr[U];
        int64_t yo[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int64_t e = t0 + u * m.P + p;
            yo[u] = -1;
            if (act && e < m.npix) {
                int64_t o[2];
                FD_K(lrn_nhwc_pix)<2>(g, m, S, e, o);
                yo[u] = o[1];
                xr[u] = *(const FD_K(lrn_vec_t) *)(x + o[0] + (int64_t)v * V);
            } else {
#pragma unroll
                for (int k = 0; k < V; k++)
                    xr[u].e[k] = (FD_T)0.0f;
            }
            sh[u][i] = xr[u];
        }
        __syncthreads();
#pragma unroll
        for (int u = 0; u < U; u++) {
            if (yo[u] < 0)
                continue;
            FD_ACC w[(HL + 1 + HR) * V]; /* w[O + j] = x[v V + j] */
            FD_K(lrn_nhwc_xwin)<HL, HR>(sh[u], i, v, m.nv, xr[u], w);
            FD_K(lrn_vec_t) out;
            const int64_t yb = yo[u] + (int64_t)v * V;
#pragma unroll
            for (int c = 0; c < V; c++) {
                FD_ACC sum = 0; /* an fma a term (header comment) */
#pragma unroll
                for (int k = 0; k < W; k++)
                    sum = fma(w[O + c - LB + k], w[O + c - LB + k], sum);
                const FD_ACC sc = (FD_ACC)(q.k + q.alpha_n * (double)sum);
                const FD_ACC r = w[O + c] * FD_K(lrn_col_pow)(sc, nbeta, q.fastpow);
                if (PLAIN)
                    lrn_st_acc(out.e, c, r);
                else
                    fd_cuda_blend(y, yb + c, alpha, beta, (double)r);
            }
            if (PLAIN)
                *(FD_K(lrn_vec_t) *)(y + yb) = out;
        }
        __syncthreads(); /* the next trip rewrites sh */
    }
}

/* The backward's terms t = dy y / s of one 16-byte channel vector, in the accumulator */
typedef struct __align__(FD_CUDA_VEC_BYTES) {
    FD_ACC e[FD_CUDA_VEC_BYTES / sizeof(FD_T)];
} FD_K(lrn_tvec_t);

/* lrn_bwd's dx with the channels innermost in x, y, dy and dx: the forward's mapping (a 16-byte
 * channel vector a thread, P whole pixels a tile, one tile a trip). Each thread loads its x, y
 * and dy vectors once; x goes to shared memory; after a barrier it takes s of its V channels
 * from the window of x (the forward's fma chain and double scale), t = dy y / s (lrn_col_div)
 * and s^-beta (lrn_col_pow), writes t to shared memory; after a second barrier it sums the
 * adjoint window t[c - la .. c + lb] (ceil(la / V) vectors to the left, ceil(lb / V) to the
 * right, +0 outside [0, C)) in lrn_bwd's order and stores dx = dy s^-beta - coef x sum with
 * one 16-byte store (alpha 1, beta 0). lrn_bwd_col's arithmetic term by term: FLOAT its bits
 * (lrn_bwd's with FREEDNN_GPU_BW3=0), HALF / BFLOAT16 its __powf / __fdividef. x, y, dy read
 * and dx written once from DRAM; shared memory 4 KiB of x and 4 (FLOAT) or 8 KiB of t. */
template <int W, bool PLAIN>
static __global__ void __launch_bounds__(LRN_NHWC_BLOCK, LRN_NHWC_BWD_MINB)
    FD_K(lrn_bwd_nhwc)(const lrn_geom_t g, const lrn_params_t q, const lrn_nhwc_t m,
                       const void *xv, const void *yv, const void *dyv, void *dxv, double alpha,
                       double beta)
{
    constexpr int V = FD_CUDA_VEC_BYTES / (int)sizeof(FD_T);
    constexpr int LB = (W - 1) / 2, LA = W - 1 - LB;
    constexpr int HL = (LB + V - 1) / V, HR = (LA + V - 1) / V; /* x vectors for s */
    constexpr int TL = (LA + V - 1) / V, TR = (LB + V - 1) / V; /* t vectors for dx */
    constexpr int O = HL * V, OT = TL * V;
    __shared__ FD_K(lrn_vec_t) xsh[LRN_NHWC_BLOCK];
    __shared__ FD_K(lrn_tvec_t) tsh[LRN_NHWC_BLOCK];
    const FD_T *__restrict__ x = (const FD_T *)xv;
    const FD_T *__restrict__ y = (const FD_T *)yv;
    const FD_T *__restrict__ dy = (const FD_T *)dyv;
    FD_T *__restrict__ dx = (FD_T *)dxv;
    const FD_ACC nbeta = (FD_ACC)-q.beta;
    const int i = threadIdx.x, p = i / m.nv, v = i - p * m.nv;
    const bool act = p < m.P;
    const int64_t S = g.sz[0] * g.sz[1] * g.sz[2];
    for (int64_t t0 = (int64_t)blockIdx.x * m.P; t0 < m.npix; t0 += (int64_t)gridDim.x * m.P) {
        const int64_t e = t0 + p;
        const bool live = act && e < m.npix;
        FD_K(lrn_vec_t) xr, yr, gr;
        int64_t o[4];
        if (live) {
            FD_K(lrn_nhwc_pix)<4>(g, m, S, e, o);
            const int64_t vo = (int64_t)v * V;
            xr = *(const FD_K(lrn_vec_t) *)(x + o[0] + vo);
            yr = *(const FD_K(lrn_vec_t) *)(y + o[1] + vo);
            gr = *(const FD_K(lrn_vec_t) *)(dy + o[2] + vo);
        } else {
#pragma unroll
            for (int k = 0; k < V; k++)
                xr.e[k] = yr.e[k] = gr.e[k] = (FD_T)0.0f;
            o[3] = 0;
        }
        xsh[i] = xr;
        __syncthreads();
        FD_K(lrn_tvec_t) tr;
        FD_ACC pw[V];
        {
            FD_ACC w[(HL + 1 + HR) * V]; /* w[O + j] = x[v V + j] */
            FD_K(lrn_nhwc_xwin)<HL, HR>(xsh, i, v, m.nv, xr, w);
#pragma unroll
            for (int c = 0; c < V; c++) {
                FD_ACC sum = 0; /* the forward's fma chain */
#pragma unroll
                for (int k = 0; k < W; k++)
                    sum = fma(w[O + c - LB + k], w[O + c - LB + k], sum);
                const FD_ACC sc = (FD_ACC)(q.k + q.alpha_n * (double)sum);
                tr.e[c] = FD_K(lrn_col_div)(FD_K(lrn_vec_ld)(gr, c) * FD_K(lrn_vec_ld)(yr, c), sc);
                pw[c] = FD_K(lrn_col_pow)(sc, nbeta, q.fastpow);
            }
        }
        tsh[i] = tr;
        __syncthreads();
        if (live) {
            /* tw[OT + j] = t[v V + j] for j in [-TL V, (TR + 1) V), +0 outside [0, C) */
            FD_ACC tw[(TL + 1 + TR) * V];
#pragma unroll
            for (int h = 1; h <= TL; h++) {
                const bool in = v - h >= 0;
#pragma unroll
                for (int k = 0; k < V; k++)
                    tw[OT - h * V + k] = in ? tsh[in ? i - h : i].e[k] : (FD_ACC)0;
            }
#pragma unroll
            for (int k = 0; k < V; k++)
                tw[OT + k] = tr.e[k];
#pragma unroll
            for (int h = 1; h <= TR; h++) {
                const bool in = v + h < m.nv;
#pragma unroll
                for (int k = 0; k < V; k++)
                    tw[OT + h * V + k] = in ? tsh[in ? i + h : i].e[k] : (FD_ACC)0;
            }
            FD_K(lrn_vec_t) out;
            const int64_t db = o[3] + (int64_t)v * V;
#pragma unroll
            for (int c = 0; c < V; c++) {
                FD_ACC acc = 0;
#pragma unroll
                for (int k = 0; k < W; k++)
                    acc += tw[OT + c - LA + k];
                const FD_ACC r = FD_K(lrn_vec_ld)(gr, c) * pw[c] -
                                 (FD_ACC)q.coef * FD_K(lrn_vec_ld)(xr, c) * acc;
                if (PLAIN)
                    lrn_st_acc(out.e, c, r);
                else
                    fd_cuda_blend(dx, db + c, alpha, beta, (double)r);
            }
            if (PLAIN)
                *(FD_K(lrn_vec_t) *)(dx + db) = out;
        }
        __syncthreads(); /* the next trip rewrites xsh and tsh */
    }
}
