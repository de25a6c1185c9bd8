/* SPDX-License-Identifier: MIT */
/*
 * batchnorm_kernels.cuh - the kernels of batchnorm.cu for one data type. batchnorm.cu includes
 * this once per type with FD_T (data storage), FD_P (scale / bias / mean / variance storage:
 * float, double for DOUBLE data), FD_A (the accumulator: float, double for DOUBLE) and FD_SFX
 * (name suffix) defined. Nothing here is meant to be included anywhere else.
 *
 * The statistics kernels run one tile of groups per block (bn_geom_t: 1 group x 256 member
 * lanes when a group's members are the fast-moving addresses, 32 groups x 8 lanes when the
 * groups are), grid-striding over tiles. Lane j takes members j, j + lanes, ... in order; the
 * lanes' partial sums meet in a fixed shared-memory tree, so every bit is reproducible.
 */

#define FD_CAT2(a, b) a##_##b
#define FD_CAT(a, b) FD_CAT2(a, b)
#define FD_K(name) FD_CAT(name, FD_SFX)

/* Sum of v over the block's member lanes of each group column; every thread gets its column's
 * total. part[] holds FD_CUDA_BLOCK accumulators. */
static __device__ __forceinline__ FD_A FD_K(bn_tree)(FD_A *part, FD_A v, int tx, int ty, int gx,
                                                   int gy)
{
    part[ty * gx + tx] = v;
    __syncthreads();
    for (int s = gy / 2; s > 0; s >>= 1) {
        if (ty < s)
            part[ty * gx + tx] += part[(ty + s) * gx + tx];
        __syncthreads();
    }
    FD_A r = part[tx];
    __syncthreads(); /* part[] is reused by the next tree */
    return r;
}

/* Batch mean and biased variance of group g (two passes: the centred squares lose nothing to
 * cancellation). Every thread of the block calls it (it synchronises). */
static __device__ void FD_K(bn_stats)(const bn_geom_t &G, const FD_T *x, int64_t g, int valid,
                                      int tx, int ty, FD_A *part, FD_A *mean, FD_A *var)
{
    FD_A sum = 0;
    if (valid)
        for (int64_t k = ty; k < G.m; k += G.gy)
            sum += (FD_A)sd_ldf(x, bn_elem_off(G, BN_X, g, k));
    const FD_A mu = FD_K(bn_tree)(part, sum, tx, ty, G.gx, G.gy) / (FD_A)G.m;
    FD_A sq = 0;
    if (valid)
        for (int64_t k = ty; k < G.m; k += G.gy) {
            const FD_A d = (FD_A)sd_ldf(x, bn_elem_off(G, BN_X, g, k)) - mu;
            sq += d * d;
        }
    *mean = mu;
    *var = FD_K(bn_tree)(part, sq, tx, ty, G.gx, G.gy) / (FD_A)G.m;
}

/* y = alpha * act(scale * (x - mean) * inv + bias [+ z]) + beta * y, per element (inference). */
static __global__ void FD_K(bn_fwd_infer)(const bn_geom_t G, const sd_nd_t w, const void *xv,
                                          const void *zv, void *yv, const void *scalev,
                                          const void *biasv, const void *meanv, const void *varv,
                                          double alpha, double beta)
{
    const FD_T *__restrict__ x = (const FD_T *)xv;
    const FD_T *__restrict__ z = (const FD_T *)zv;
    FD_T *y = (FD_T *)yv;
    const FD_P *__restrict__ scale = (const FD_P *)scalev;
    const FD_P *__restrict__ bias = (const FD_P *)biasv;
    const FD_P *__restrict__ mean = (const FD_P *)meanv;
    const FD_P *__restrict__ var = (const FD_P *)varv;
    SD_GRID_LOOP(e, w.total)
    {
        int64_t off[5]; /* y, x, z, scale / bias, mean / variance */
        sd_nd_offsets<5>(w, e, off);
        const FD_A inv = (FD_A)(1.0 / sqrt((double)var[off[4]] + G.eps));
        FD_A u = (FD_A)scale[off[3]] * ((FD_A)sd_ldf(x, off[1]) - (FD_A)mean[off[4]]) * inv +
                 (FD_A)bias[off[3]];
        if (G.ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION)
            u += (FD_A)sd_ldf(z, off[2]);
        const FD_A v = G.ops == CUDNN_BATCHNORM_OPS_BN ? u : bn_act_fwd(G.act, u);
        sd_blend(y, off[0], alpha, beta, (double)v);
    }
}

/* The running statistics (blended with factor: mean and the unbiased variance var * M /
 * (M - 1), NaN for M = 1 as the ref and cuDNN 9.19) and the saved mean and 1 / std of one
 * group at parameter offset po; NULL outputs are skipped. */
static __device__ __forceinline__ void FD_K(bn_put_stats)(int64_t po, int64_t m, FD_A mean,
                                                          FD_A var, double inv_d, double factor,
                                                          void *run_meanv, void *run_varv,
                                                          void *save_meanv, void *save_invv)
{
    const double keep = 1.0 - factor;
    const double unbiased = (double)var * (double)m / (double)(m - 1);
    if (run_meanv != NULL)
        sd_blend((FD_P *)run_meanv, po, factor, keep, (double)mean);
    if (run_varv != NULL)
        sd_blend((FD_P *)run_varv, po, factor, keep, unbiased);
    if (save_meanv != NULL) {
        sd_st((FD_P *)save_meanv, po, (double)mean);
        sd_st((FD_P *)save_invv, po, inv_d);
    }
}

/* Training forward, one tile of groups per block: statistics (or, with from_ws, the mean and
 * 1 / std the first launch left in ws), the running / saved statistics (write_stats), ws
 * (write_ws), then y and the smooth activations' reserve (apply). */
static __global__ void FD_K(bn_fwd_train)(const bn_geom_t G, const void *xv, const void *zv,
                                          void *yv, const void *scalev, const void *biasv,
                                          void *run_meanv, void *run_varv, void *save_meanv,
                                          void *save_invv, double factor, double alpha,
                                          double beta, void *wsv, void *reserve, int from_ws,
                                          int write_stats, int write_ws, int apply)
{
    __shared__ FD_A part[FD_CUDA_BLOCK];
    const FD_T *x = (const FD_T *)xv;
    const FD_T *__restrict__ z = (const FD_T *)zv;
    FD_T *y = (FD_T *)yv;
    const FD_P *__restrict__ scale = (const FD_P *)scalev;
    const FD_P *__restrict__ bias = (const FD_P *)biasv;
    FD_A *ws = (FD_A *)wsv;
    const int tx = threadIdx.x % G.gx, ty = threadIdx.x / G.gx;
    const int64_t tiles = (G.groups + G.gx - 1) / G.gx;
    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int64_t g = tile * G.gx + tx;
        const int valid = g < G.groups;
        FD_A mean, var = 0, inv;
        double inv_d;
        if (from_ws) {
            mean = valid ? ws[2 * g] : (FD_A)0;
            inv = valid ? ws[2 * g + 1] : (FD_A)0;
            inv_d = (double)inv;
        } else {
            FD_K(bn_stats)(G, x, g, valid, tx, ty, part, &mean, &var);
            inv_d = 1.0 / sqrt((double)var + G.eps);
            inv = (FD_A)inv_d;
        }
        if (valid && ty == 0) {
            const int64_t po = bn_param_off(G, G.mv, g);
            if (write_stats)
                FD_K(bn_put_stats)(po, G.m, mean, var, inv_d, factor, run_meanv, run_varv,
                                   save_meanv, save_invv);
            if (write_ws) {
                ws[2 * g] = mean;
                ws[2 * g + 1] = inv;
            }
        }
        if (apply && valid) {
            const int64_t so = bn_param_off(G, G.sb, g);
            const FD_A sc = (FD_A)scale[so], bi = (FD_A)bias[so];
            for (int64_t k = ty; k < G.m; k += G.gy) {
                FD_A u = sc * ((FD_A)sd_ldf(x, bn_elem_off(G, BN_X, g, k)) - mean) * inv + bi;
                if (G.ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION)
                    u += (FD_A)sd_ldf(z, bn_elem_off(G, BN_Z, g, k));
                const FD_A v = G.ops == CUDNN_BATCHNORM_OPS_BN ? u : bn_act_fwd(G.act, u);
                if (reserve != NULL && !G.reserve_bits)
                    bn_reserve_put_u(G, reserve, bn_elem_index(G, g, k), (double)u);
                sd_blend(y, bn_elem_off(G, BN_Y, g, k), alpha, beta, (double)v);
            }
        }
        __syncthreads(); /* the next tile's trees reuse part[] */
    }
}

/* The RELU / CLIPPED_RELU reserve: byte b holds act'(u) != 0 of elements 8b .. 8b + 7 (N, C,
 * spatial order); one thread per byte, so no two threads share a byte. u as the apply pass
 * computes it, from the mean and 1 / std the statistics launch left in ws. */
static __global__ void FD_K(bn_reserve_bits)(const bn_geom_t G, const void *xv, const void *zv,
                                             const void *scalev, const void *biasv,
                                             const void *wsv, unsigned char *reserve, int64_t bytes)
{
    const FD_T *__restrict__ x = (const FD_T *)xv;
    const FD_T *__restrict__ z = (const FD_T *)zv;
    const FD_P *__restrict__ scale = (const FD_P *)scalev;
    const FD_P *__restrict__ bias = (const FD_P *)biasv;
    const FD_A *__restrict__ ws = (const FD_A *)wsv;
    const int64_t total = G.n * G.c * G.s;
    SD_GRID_LOOP(b, bytes)
    {
        unsigned bits = 0;
        for (int j = 0; j < 8; j++) {
            const int64_t e = b * 8 + j;
            if (e >= total)
                break;
            const int64_t s = e % G.s, t = e / G.s, c = t % G.c, n = t / G.c;
            const int64_t g = G.per_act ? c * G.s + s : c;
            const int64_t k = G.per_act ? n : n * G.s + s;
            const int64_t so = bn_param_off(G, G.sb, g);
            FD_A u = (FD_A)scale[so] * ((FD_A)sd_ldf(x, bn_elem_off(G, BN_X, g, k)) - ws[2 * g]) *
                         ws[2 * g + 1] +
                     (FD_A)bias[so];
            u += (FD_A)sd_ldf(z, bn_elem_off(G, BN_Z, g, k));
            if (bn_act_slope(G.act, u) != (FD_A)0)
                bits |= 1u << j;
        }
        reserve[b] = (unsigned char)bits;
    }
}

/* Backward, one tile of groups per block: statistics (saved or recomputed), the sums of
 * g = dy * act'(u) and g * xhat, dscale / dbias, then dx (and dz = g). */
static __global__ void FD_K(bn_bwd)(const bn_geom_t G, const void *xv, const void *dyv, void *dxv,
                                    void *dzv, const void *scalev, const void *biasv,
                                    const void *meanv, const void *invv, void *dscalev,
                                    void *dbiasv, double alpha, double beta, double alpha_p,
                                    double beta_p, const void *reserve)
{
    __shared__ FD_A part[FD_CUDA_BLOCK];
    __shared__ FD_A part2[FD_CUDA_BLOCK];
    const FD_T *x = (const FD_T *)xv;
    const FD_T *dy = (const FD_T *)dyv;
    FD_T *dx = (FD_T *)dxv;
    FD_T *dz = (FD_T *)dzv;
    const FD_P *__restrict__ scale = (const FD_P *)scalev;
    const FD_P *__restrict__ bias = (const FD_P *)biasv;
    const int tx = threadIdx.x % G.gx, ty = threadIdx.x / G.gx;
    const int64_t tiles = (G.groups + G.gx - 1) / G.gx;
    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int64_t g = tile * G.gx + tx;
        const int valid = g < G.groups;
        FD_A mean = 0, inv = 0;
        if (meanv != NULL) {
            if (valid) {
                const int64_t po = bn_param_off(G, G.mv, g);
                mean = (FD_A)((const FD_P *)meanv)[po];
                inv = (FD_A)((const FD_P *)invv)[po];
            }
        } else {
            FD_A var;
            FD_K(bn_stats)(G, x, g, valid, tx, ty, part, &mean, &var);
            inv = (FD_A)(1.0 / sqrt((double)var + G.eps));
        }
        FD_A sc = 0, bi = 0;
        int64_t so = 0;
        if (valid) {
            so = bn_param_off(G, G.sb, g);
            sc = (FD_A)scale[so];
            bi = biasv != NULL ? (FD_A)bias[so] : (FD_A)0;
        }
        FD_A sg = 0, sgx = 0;
        if (valid)
            for (int64_t k = ty; k < G.m; k += G.gy) {
                const FD_A xhat = ((FD_A)sd_ldf(x, bn_elem_off(G, BN_X, g, k)) - mean) * inv;
                const FD_A gi = bn_grad_in(G, (FD_A)sd_ldf(dy, bn_elem_off(G, BN_DY, g, k)), xhat,
                                           sc, bi, reserve, g, k);
                sg += gi;
                sgx += gi * xhat;
            }
        /* both trees at once: the same fixed order, one barrier sequence */
        part[ty * G.gx + tx] = sg;
        part2[ty * G.gx + tx] = sgx;
        __syncthreads();
        for (int s = G.gy / 2; s > 0; s >>= 1) {
            if (ty < s) {
                part[ty * G.gx + tx] += part[(ty + s) * G.gx + tx];
                part2[ty * G.gx + tx] += part2[(ty + s) * G.gx + tx];
            }
            __syncthreads();
        }
        const FD_A sum_g = part[tx], sum_gx = part2[tx];
        if (valid && ty == 0) {
            sd_blend((FD_P *)dscalev, so, alpha_p, beta_p, (double)sum_gx);
            sd_blend((FD_P *)dbiasv, so, alpha_p, beta_p, (double)sum_g);
        }
        const FD_A mg = sum_g / (FD_A)G.m, mgx = sum_gx / (FD_A)G.m;
        if (valid)
            for (int64_t k = ty; k < G.m; k += G.gy) {
                const FD_A xhat = ((FD_A)sd_ldf(x, bn_elem_off(G, BN_X, g, k)) - mean) * inv;
                const FD_A gi = bn_grad_in(G, (FD_A)sd_ldf(dy, bn_elem_off(G, BN_DY, g, k)), xhat,
                                           sc, bi, reserve, g, k);
                const FD_A d = sc * inv * (gi - mg - xhat * mgx);
                if (dz != NULL)
                    sd_st(dz, bn_elem_off(G, BN_Z, g, k), (double)gi);
                sd_blend(dx, bn_elem_off(G, BN_Y, g, k), alpha, beta, (double)d);
            }
        __syncthreads(); /* part[] / part2[] are reused by the next tile */
    }
}

/* ---- the packed multi-block path (bn_pk_t in batchnorm.cu; run for FLOAT, HALF, BFLOAT16,
 * stamped for every type so that one typed launch serves them) ------------------------------
 * Every kernel below walks the same blocks: NCHW, block b is (channel b / nch, chunk b % nch)
 * and its threads take consecutive vectors of the chunk's members; NHWC, block b is (column
 * group b % ncg, chunk b / ncg), thread (tx, ty) takes vector column cg * cpb + tx (vec
 * channels) and the chunk's rows ty, ty + rpp, ... So the chunking is a function of the
 * problem alone, and the partial sums of one chunk meet in a fixed tree: bit-reproducible on
 * any GPU. */

FD_CUDA_VEC_OF(FD_T, FD_K(bn_vec_t));
#define FD_VEC ((int)(FD_CUDA_VEC_BYTES / sizeof(FD_T)))

/* Per-channel values the apply passes and the gradient sums need. */
typedef struct {
    FD_A mean, inv, sc, bi, mg, mgx;
} FD_K(bn_chan_t);

static __device__ __forceinline__ FD_K(bn_chan_t)
    FD_K(bn_pk_chan)(const bn_pk_t &P, int64_t ch, const void *scalev, const void *biasv,
                     const void *smeanv, const void *sinvv, const FD_A *ws, int with_mg)
{
    FD_K(bn_chan_t) r;
    if (smeanv != NULL) {
        r.mean = (FD_A)((const FD_P *)smeanv)[ch * P.mvs];
        r.inv = (FD_A)((const FD_P *)sinvv)[ch * P.mvs];
    } else {
        r.mean = ws[4 * ch];
        r.inv = ws[4 * ch + 1];
    }
    r.sc = (FD_A)((const FD_P *)scalev)[ch * P.sbs];
    r.bi = biasv != NULL ? (FD_A)((const FD_P *)biasv)[ch * P.sbs] : (FD_A)0;
    r.mg = with_mg ? ws[4 * ch + 2] : (FD_A)0;
    r.mgx = with_mg ? ws[4 * ch + 3] : (FD_A)0;
    return r;
}

/* g = dy * act'(u), u recomputed from xhat (BN, BN_ACTIVATION; the path takes no reserve). */
static __device__ __forceinline__ FD_A FD_K(bn_pk_grad)(const bn_pk_t &P, FD_A dy, FD_A xhat,
                                                        const FD_K(bn_chan_t) & q)
{
    if (P.ops == CUDNN_BATCHNORM_OPS_BN_ACTIVATION)
        return dy * bn_act_slope(P.act, q.sc * xhat + q.bi);
    return dy;
}

/* Mode 0 sums (x - K, (x - K)^2), K the channel's first element (a shift that keeps the
 * one-pass variance free of cancellation); mode 1 sums (g, g * xhat). */
static __device__ __forceinline__ void FD_K(bn_pk_acc)(const bn_pk_t &P, int mode, FD_A xv,
                                                       FD_A dyv, FD_A k, const FD_K(bn_chan_t) & q,
                                                       FD_A *s1, FD_A *s2)
{
    if (mode == 0) {
        const FD_A a = xv - k;
        *s1 += a;
        *s2 += a * a;
    } else {
        const FD_A xhat = (xv - q.mean) * q.inv;
        const FD_A gi = FD_K(bn_pk_grad)(P, dyv, xhat, q);
        *s1 += gi;
        *s2 += gi * xhat;
    }
}

/* Mode 1's sums for ops BN (g = dy): bn_pk_acc's terms without its activation test, which
 * per lane kept the compiler from interleaving the lanes (the cluster kernels' apply gained
 * 10-18 % on the H200 from the same change). The same expressions, so the same bits. */
static __device__ __forceinline__ void
FD_K(bn_pk_acc_dy)(FD_A xv, FD_A dyv, const FD_K(bn_chan_t) & q, FD_A *s1, FD_A *s2)
{
    const FD_A xhat = (xv - q.mean) * q.inv;
    *s1 += dyv;
    *s2 += dyv * xhat;
}

/* The two halves of bn_pk_val, shared with the lean apply pass (the same expressions in the
 * same order, so the same bits): u = scale * (x - mean) * inv + bias; dx = scale * inv * (g -
 * mg - xhat * mgx). */
static __device__ __forceinline__ FD_A FD_K(bn_pk_u)(FD_A xv, const FD_K(bn_chan_t) & q)
{
    return q.sc * (xv - q.mean) * q.inv + q.bi;
}
static __device__ __forceinline__ FD_A FD_K(bn_pk_dx)(FD_A xhat, FD_A gi, const FD_K(bn_chan_t) & q)
{
    return q.sc * q.inv * (gi - q.mg - xhat * q.mgx);
}

/* Mode 0: y = act(scale * xhat + bias); mode 1: dx = scale * inv * (g - mg - xhat * mgx). */
static __device__ __forceinline__ FD_A FD_K(bn_pk_val)(const bn_pk_t &P, int mode, FD_A xv,
                                                       FD_A dyv, const FD_K(bn_chan_t) & q)
{
    if (mode == 0) {
        const FD_A u = FD_K(bn_pk_u)(xv, q);
        return P.ops == CUDNN_BATCHNORM_OPS_BN ? u : bn_act_fwd(P.act, u);
    }
    const FD_A xhat = (xv - q.mean) * q.inv;
    const FD_A gi = FD_K(bn_pk_grad)(P, dyv, xhat, q);
    return FD_K(bn_pk_dx)(xhat, gi, q);
}

/* Mode 0: alpha * y + beta * y; mode 1: alpha * dx + beta * dx (bn_pk_val's y, dx; alpha 1,
 * beta 0: bn_st1, the same bits). */
static __device__ __forceinline__ void FD_K(bn_pk_out)(const bn_pk_t &P, int mode, FD_T *o, int j,
                                                       FD_A xv, FD_A dyv, const FD_K(bn_chan_t) & q,
                                                       double alpha, double beta)
{
    const FD_A v = FD_K(bn_pk_val)(P, mode, xv, dyv, q);
    if (alpha == 1.0 && beta == 0.0)
        bn_st1(o, j, v);
    else
        sd_blend(o, j, alpha, beta, (double)v);
}

/* bn_pk_out with PLAIN (ops BN, alpha 1, beta 0) decided by the caller once: bn_pk_u /
 * bn_pk_dx stored by bn_st1 directly, the same bits without bn_pk_out's activation and blend
 * tests in every lane, which kept the compiler from interleaving a vector's lanes (the cluster
 * kernels: Nsight on the H200, 2026-12-03, f16 training 47.5 us against 40.6-42.0 for the
 * sandbox's branch-free copy at the same occupancy). */
template <bool PLAIN>
static __device__ __forceinline__ void
FD_K(bn_pk_out_k)(const bn_pk_t &P, int mode, FD_T *o, int j, FD_A xv, FD_A dyv,
                  const FD_K(bn_chan_t) & q, double alpha, double beta)
{
    if (PLAIN)
        bn_st1(o, j,
               mode == 0 ? FD_K(bn_pk_u)(xv, q) : FD_K(bn_pk_dx)((xv - q.mean) * q.inv, dyv, q));
    else
        FD_K(bn_pk_out)(P, mode, o, j, xv, dyv, q, alpha, beta);
}

/* NCHW member vector vi of channel ch: its element offset. */
static __device__ __forceinline__ int64_t FD_K(bn_pk_off_nchw)(const bn_pk_t &P, int64_t ch,
                                                                int64_t vi)
{
    const uint32_t k = (uint32_t)(vi * FD_VEC), n = k / (uint32_t)P.s;
    return (int64_t)n * P.c * P.s + ch * P.s + (int64_t)(k - n * (uint32_t)P.s);
}

/* Fixed tree over the block's threads of one FD_CUDA_BLOCK-sized shared array pair. */
static __device__ __forceinline__ void FD_K(bn_pk_tree2)(FD_A *a, FD_A *b, int t, int n)
{
    int p2 = 1;
    while (p2 < n)
        p2 <<= 1;
    for (int h = p2 / 2; h > 0; h >>= 1) {
        __syncthreads();
        if (t < h && t + h < n) {
            a[t] += a[t + h];
            b[t] += b[t + h];
        }
    }
    __syncthreads();
}

/* Pass 1 (NCHW) of chunk j of channel ch: the thread's sums over its vectors. PLAIN (mode 1,
 * ops BN: g = dy) adds them by bn_pk_acc_dy. */
template <int MODE, bool PLAIN>
static __device__ __forceinline__ void
FD_K(bn_pk_part_nchw_k)(const bn_pk_t &P, int64_t ch, int64_t j, const FD_T *__restrict__ x,
                        const FD_T *__restrict__ dy, FD_A k, const FD_K(bn_chan_t) & q, FD_A *s1,
                        FD_A *s2)
{
    const int64_t k1 = j * P.cm + P.cm < P.m ? j * P.cm + P.cm : P.m;
    const int64_t v0 = j * P.cm / FD_VEC, v1 = k1 / FD_VEC;
    for (int64_t vi = v0 + threadIdx.x; vi < v1; vi += FD_CUDA_BLOCK) {
        const int64_t off = FD_K(bn_pk_off_nchw)(P, ch, vi);
        const FD_K(bn_vec_t) xa = *(const FD_K(bn_vec_t) *)(x + off);
        FD_K(bn_vec_t) da;
        if (MODE == 1)
            da = *(const FD_K(bn_vec_t) *)(dy + off);
#pragma unroll
        for (int l = 0; l < FD_VEC; l++) {
            const FD_A xv = (FD_A)fd_cuda_ld(xa.e, l);
            const FD_A dv = MODE == 1 ? (FD_A)fd_cuda_ld(da.e, l) : (FD_A)0;
            if (PLAIN)
                FD_K(bn_pk_acc_dy)(xv, dv, q, s1, s2);
            else
                FD_K(bn_pk_acc)(P, MODE, xv, dv, k, q, s1, s2);
        }
    }
}

/* Pass 1 (NCHW): per (channel, chunk) partial sums into ws + 4 C. dy is read in mode 1. */
static __global__ void FD_K(bn_pk_part_nchw)(const bn_pk_t P, int mode, const void *xv,
                                             const void *dyv, const void *scalev,
                                             const void *biasv, const void *smeanv,
                                             const void *sinvv, void *wsv)
{
    fd_pdl_trigger(); /* bn_pk_combine may be scheduled once every block has started */
    __shared__ FD_A p1[FD_CUDA_BLOCK], p2[FD_CUDA_BLOCK];
    const FD_T *__restrict__ x = (const FD_T *)xv;
    const FD_T *__restrict__ dy = (const FD_T *)dyv;
    FD_A *ws = (FD_A *)wsv;
    const int64_t ch = blockIdx.x / P.nch, j = blockIdx.x % P.nch;
    const int t = threadIdx.x;
    FD_A s1 = 0, s2 = 0;
    if (mode == 0) {
        const FD_K(bn_chan_t) q = {0, 0, 0, 0, 0, 0};
        FD_K(bn_pk_part_nchw_k)<0, false>(P, ch, j, x, dy, (FD_A)fd_cuda_ld(x, ch * P.s), q, &s1,
                                          &s2);
    } else {
        const FD_K(bn_chan_t) q = FD_K(bn_pk_chan)(P, ch, scalev, biasv, smeanv, sinvv, ws, 0);
        if (P.ops == CUDNN_BATCHNORM_OPS_BN)
            FD_K(bn_pk_part_nchw_k)<1, true>(P, ch, j, x, dy, (FD_A)0, q, &s1, &s2);
        else
            FD_K(bn_pk_part_nchw_k)<1, false>(P, ch, j, x, dy, (FD_A)0, q, &s1, &s2);
    }
    p1[t] = s1;
    p2[t] = s2;
    FD_K(bn_pk_tree2)(p1, p2, t, FD_CUDA_BLOCK);
    if (t == 0) {
        FD_A *part = ws + 4 * P.c + (ch * P.nch + j) * 2;
        part[0] = p1[0];
        part[1] = p2[0];
    }
}

/* NHWC pass 1's end: the rows of one column meet in a fixed tree over ty (shared slot
 * (ty * cpb + tx) * FD_VEC + l), row 0 writes chunk j's partials of the column's channels.
 * Every thread of the block calls it (it synchronises). */
static __device__ __forceinline__ void FD_K(bn_pk_rows_out)(const bn_pk_t &P, int64_t j, int tx,
                                                            int ty, int64_t col, const FD_A *s1,
                                                            const FD_A *s2, FD_A *p1, FD_A *p2,
                                                            FD_A *ws)
{
    if (ty < P.rpp)
#pragma unroll
        for (int l = 0; l < FD_VEC; l++) {
            p1[(ty * P.cpb + tx) * FD_VEC + l] = s1[l];
            p2[(ty * P.cpb + tx) * FD_VEC + l] = s2[l];
        }
    int p2n = 1;
    while (p2n < P.rpp)
        p2n <<= 1;
    for (int h = p2n / 2; h > 0; h >>= 1) {
        __syncthreads();
        if (ty < h && ty + h < P.rpp)
#pragma unroll
            for (int l = 0; l < FD_VEC; l++) {
                p1[(ty * P.cpb + tx) * FD_VEC + l] += p1[((ty + h) * P.cpb + tx) * FD_VEC + l];
                p2[(ty * P.cpb + tx) * FD_VEC + l] += p2[((ty + h) * P.cpb + tx) * FD_VEC + l];
            }
    }
    __syncthreads();
    if (ty == 0 && col < P.cols)
#pragma unroll
        for (int l = 0; l < FD_VEC; l++) {
            FD_A *part = ws + 4 * P.c + ((col * FD_VEC + l) * P.nch + j) * 2;
            part[0] = p1[tx * FD_VEC + l];
            part[1] = p2[tx * FD_VEC + l];
        }
}

/* Pass 1 (NHWC): per (column group, chunk); each thread sums FD_VEC channels over its rows,
 * the rows of one column meet in a fixed tree. */
static __global__ void FD_K(bn_pk_part_nhwc)(const bn_pk_t P, int mode, const void *xv,
                                             const void *dyv, const void *scalev,
                                             const void *biasv, const void *smeanv,
                                             const void *sinvv, void *wsv)
{
    fd_pdl_trigger();
    __shared__ FD_A p1[FD_CUDA_BLOCK * FD_VEC], p2[FD_CUDA_BLOCK * FD_VEC];
    const FD_T *__restrict__ x = (const FD_T *)xv;
    const FD_T *__restrict__ dy = (const FD_T *)dyv;
    FD_A *ws = (FD_A *)wsv;
    const int64_t cg = blockIdx.x % P.ncg, j = blockIdx.x / P.ncg;
    const int tx = threadIdx.x % P.cpb, ty = threadIdx.x / P.cpb;
    const int64_t col = cg * P.cpb + tx;
    const int active = ty < P.rpp && col < P.cols;
    FD_A s1[FD_VEC], s2[FD_VEC];
#pragma unroll
    for (int l = 0; l < FD_VEC; l++)
        s1[l] = 0, s2[l] = 0;
    if (active) {
        FD_K(bn_chan_t) q[FD_VEC];
        FD_A k[FD_VEC];
#pragma unroll
        for (int l = 0; l < FD_VEC; l++) {
            const int64_t ch = col * FD_VEC + l;
            if (mode == 0) {
                k[l] = (FD_A)fd_cuda_ld(x, ch);
                q[l] = FD_K(bn_chan_t){0, 0, 0, 0, 0, 0};
            } else {
                k[l] = 0;
                q[l] = FD_K(bn_pk_chan)(P, ch, scalev, biasv, smeanv, sinvv, ws, 0);
            }
        }
        const int64_t r1 = j * P.cm + P.cm < P.m ? j * P.cm + P.cm : P.m;
        for (int64_t r = j * P.cm + ty; r < r1; r += P.rpp) {
            const int64_t off = r * P.c + col * FD_VEC;
            const FD_K(bn_vec_t) xa = *(const FD_K(bn_vec_t) *)(x + off);
            FD_K(bn_vec_t) da;
            if (mode == 1)
                da = *(const FD_K(bn_vec_t) *)(dy + off);
#pragma unroll
            for (int l = 0; l < FD_VEC; l++)
                FD_K(bn_pk_acc)(P, mode, (FD_A)fd_cuda_ld(xa.e, l),
                                mode == 1 ? (FD_A)fd_cuda_ld(da.e, l) : (FD_A)0, k[l], q[l],
                                &s1[l], &s2[l]);
        }
    }
    FD_K(bn_pk_rows_out)(P, j, tx, ty, col, s1, s2, p1, p2, ws);
}

/* Pass 2's end for channel ch, given the totals s1, s2 of its chunks' partials. Mode 0: mean,
 * variance, 1 / std (ws, running and saved statistics when write_stats); mode 1: dscale,
 * dbias and the means of g and g * xhat (ws). */
static __device__ __forceinline__ void FD_K(bn_pk_fin)(const bn_pk_t &P, int mode, int64_t ch,
                                                       FD_A s1, FD_A s2, const void *xv, FD_A *ws,
                                                       int write_stats, void *run_meanv,
                                                       void *run_varv, void *save_meanv,
                                                       void *save_invv, double factor,
                                                       void *dscalev, void *dbiasv, double alpha_p,
                                                       double beta_p)
{
    const FD_A m = (FD_A)P.m;
    if (mode == 0) {
        const FD_A k = (FD_A)fd_cuda_ld((const FD_T *)xv, P.nhwc ? ch : ch * P.s);
        const FD_A d = s1 / m;
        FD_A var = s2 / m - d * d;
        var = var < (FD_A)0 ? (FD_A)0 : var; /* rounding only; NaN passes */
        const FD_A mean = k + d;
        const double inv_d = 1.0 / sqrt((double)var + P.eps);
        ws[4 * ch] = mean;
        ws[4 * ch + 1] = (FD_A)inv_d;
        if (write_stats)
            FD_K(bn_put_stats)(ch * P.mvs, P.m, mean, var, inv_d, factor, run_meanv, run_varv,
                               save_meanv, save_invv);
    } else {
        const int64_t so = ch * P.sbs;
        sd_blend((FD_P *)dscalev, so, alpha_p, beta_p, (double)s2);
        sd_blend((FD_P *)dbiasv, so, alpha_p, beta_p, (double)s1);
        ws[4 * ch + 2] = s1 / m;
        ws[4 * ch + 3] = s2 / m;
    }
}

/* Pass 2 for channel ch, by one whole warp: the chunks' partials added (lane i: chunks i,
 * i + 32, ..., then a fixed butterfly; lane 0's total is used), then bn_pk_fin. The partials
 * are read through L2 (ld.global.cg): bn_gr_train_nhwc reads them in the kernel that wrote them. */
static __device__ __forceinline__ void
    FD_K(bn_pk_combine_ch)(const bn_pk_t &P, int mode, int64_t ch, const void *xv, FD_A *ws,
                           int write_stats, void *run_meanv, void *run_varv, void *save_meanv,
                           void *save_invv, double factor, void *dscalev, void *dbiasv,
                           double alpha_p, double beta_p)
{
    const int lane = threadIdx.x % 32;
    const FD_A *part = ws + 4 * P.c + ch * P.nch * 2;
    FD_A s1 = 0, s2 = 0;
#pragma unroll 4
    for (int64_t j = lane; j < P.nch; j += 32) {
        s1 += __ldcg(part + 2 * j);
        s2 += __ldcg(part + 2 * j + 1);
    }
    for (int o = 16; o > 0; o >>= 1) {
        s1 += __shfl_xor_sync(0xffffffffu, s1, o);
        s2 += __shfl_xor_sync(0xffffffffu, s2, o);
    }
    if (lane == 0)
        FD_K(bn_pk_fin)(P, mode, ch, s1, s2, xv, ws, write_stats, run_meanv, run_varv, save_meanv,
                        save_invv, factor, dscalev, dbiasv, alpha_p, beta_p);
}

/* Pass 2: one warp per channel (bn_pk_combine_ch). */
static __global__ void FD_K(bn_pk_combine)(const bn_pk_t P, int mode, const void *xv, void *wsv,
                                           int write_stats, void *run_meanv, void *run_varv,
                                           void *save_meanv, void *save_invv, double factor,
                                           void *dscalev, void *dbiasv, double alpha_p,
                                           double beta_p)
{
    fd_pdl_trigger(); /* the apply pass may be scheduled, */
    fd_pdl_wait();    /* it waits for the partials, as this waits for the partials pass */
    const int64_t ch = (int64_t)blockIdx.x * (FD_CUDA_BLOCK / 32) + threadIdx.x / 32;
    if (ch >= P.c)
        return; /* whole warps: the shuffles see full warps only */
    FD_K(bn_pk_combine_ch)
    (P, mode, ch, xv, (FD_A *)wsv, write_stats, run_meanv, run_varv, save_meanv, save_invv, factor,
     dscalev, dbiasv, alpha_p, beta_p);
}

/* Pass 3 (NCHW) of chunk j of channel ch, MODE and PLAIN (ops BN, alpha 1, beta 0) fixed. */
template <int MODE, bool PLAIN>
static __device__ __forceinline__ void
FD_K(bn_pk_apply_nchw_k)(const bn_pk_t &P, int64_t ch, int64_t j, const FD_T *x, const FD_T *dy,
                         FD_T *out, const FD_K(bn_chan_t) & q, double alpha, double beta)
{
    const int64_t k1 = j * P.cm + P.cm < P.m ? j * P.cm + P.cm : P.m;
    const int64_t v0 = j * P.cm / FD_VEC, v1 = k1 / FD_VEC;
    for (int64_t vi = v0 + threadIdx.x; vi < v1; vi += FD_CUDA_BLOCK) {
        const int64_t off = FD_K(bn_pk_off_nchw)(P, ch, vi);
        const FD_K(bn_vec_t) xa = *(const FD_K(bn_vec_t) *)(x + off);
        FD_K(bn_vec_t) da, o;
        if (MODE == 1)
            da = *(const FD_K(bn_vec_t) *)(dy + off);
        if (!PLAIN && beta != 0.0)
            o = *(const FD_K(bn_vec_t) *)(out + off);
#pragma unroll
        for (int l = 0; l < FD_VEC; l++)
            FD_K(bn_pk_out_k)<PLAIN>(P, MODE, o.e, l, (FD_A)fd_cuda_ld(xa.e, l),
                                     MODE == 1 ? (FD_A)fd_cuda_ld(da.e, l) : (FD_A)0, q, alpha,
                                     beta);
        *(FD_K(bn_vec_t) *)(out + off) = o;
    }
}

/* Pass 3 (NCHW): y (mode 0) or dx (mode 1) of the block's chunk, one vector per thread per
 * trip; outv may be xv or dyv (in place: each element is read before it is written). The mode
 * and the common call (ops BN, alpha 1, beta 0: bn_pk_out_k<true>) are decided once, as the
 * gradient pass decides ops BN (bn_pk_part_nchw_k<1, true>): H200 with the cluster kernels off
 * (the path of GPUs below compute capability 9.0), dnnbench graph GB/s, 2026-12-03: f16
 * n32c256h56w56 training 1585 -> 1991, backward 1929 -> 2127; f32 n32c128h56w56 1801 -> 1997,
 * 2022 -> 2076. */
static __global__ void FD_K(bn_pk_apply_nchw)(const bn_pk_t P, int mode, const void *xv,
                                              const void *dyv, void *outv, const void *scalev,
                                              const void *biasv, const void *smeanv,
                                              const void *sinvv, const void *wsv, double alpha,
                                              double beta)
{
    fd_pdl_wait(); /* for bn_pk_combine (launched after it as a programmatic dependent) */
    const FD_T *x = (const FD_T *)xv;
    const FD_T *dy = (const FD_T *)dyv;
    FD_T *out = (FD_T *)outv;
    const int64_t ch = blockIdx.x / P.nch, j = blockIdx.x % P.nch;
    const FD_K(bn_chan_t) q = FD_K(bn_pk_chan)(P, ch, scalev, biasv, smeanv, sinvv,
                                               (const FD_A *)wsv, mode == 1);
    const bool plain = P.ops == CUDNN_BATCHNORM_OPS_BN && alpha == 1.0 && beta == 0.0;
    if (mode == 0 && plain)
        FD_K(bn_pk_apply_nchw_k)<0, true>(P, ch, j, x, dy, out, q, alpha, beta);
    else if (mode == 0)
        FD_K(bn_pk_apply_nchw_k)<0, false>(P, ch, j, x, dy, out, q, alpha, beta);
    else if (plain)
        FD_K(bn_pk_apply_nchw_k)<1, true>(P, ch, j, x, dy, out, q, alpha, beta);
    else
        FD_K(bn_pk_apply_nchw_k)<1, false>(P, ch, j, x, dy, out, q, alpha, beta);
}

/* Pass 3 (NHWC): the blocks of pass 1, each thread its FD_VEC channels over its rows. */
static __global__ void FD_K(bn_pk_apply_nhwc)(const bn_pk_t P, int mode, const void *xv,
                                              const void *dyv, void *outv, const void *scalev,
                                              const void *biasv, const void *smeanv,
                                              const void *sinvv, const void *wsv, double alpha,
                                              double beta)
{
    fd_pdl_wait();
    const FD_T *x = (const FD_T *)xv;
    const FD_T *dy = (const FD_T *)dyv;
    FD_T *out = (FD_T *)outv;
    const int64_t cg = blockIdx.x % P.ncg, j = blockIdx.x / P.ncg;
    const int tx = threadIdx.x % P.cpb, ty = threadIdx.x / P.cpb;
    const int64_t col = cg * P.cpb + tx;
    if (ty >= P.rpp || col >= P.cols)
        return;
    FD_K(bn_chan_t) q[FD_VEC];
#pragma unroll
    for (int l = 0; l < FD_VEC; l++)
        q[l] = FD_K(bn_pk_chan)(P, col * FD_VEC + l, scalev, biasv, smeanv, sinvv,
                                (const FD_A *)wsv, mode == 1);
    const int64_t r1 = j * P.cm + P.cm < P.m ? j * P.cm + P.cm : P.m;
    for (int64_t r = j * P.cm + ty; r < r1; r += P.rpp) {
        const int64_t off = r * P.c + col * FD_VEC;
        const FD_K(bn_vec_t) xa = *(const FD_K(bn_vec_t) *)(x + off);
        FD_K(bn_vec_t) da, o;
        if (mode == 1)
            da = *(const FD_K(bn_vec_t) *)(dy + off);
        if (beta != 0.0)
            o = *(const FD_K(bn_vec_t) *)(out + off);
#pragma unroll
        for (int l = 0; l < FD_VEC; l++)
            FD_K(bn_pk_out)(P, mode, o.e, l, (FD_A)fd_cuda_ld(xa.e, l),
                            mode == 1 ? (FD_A)fd_cuda_ld(da.e, l) : (FD_A)0, q[l], alpha, beta);
        *(FD_K(bn_vec_t) *)(out + off) = o;
    }
}

/* ---- the second NHWC mapping of the packed path (bn_pk_t.v2; FREEDNN_GPU_BN_PK2) ------------
 * The blocks of the two passes above with more bytes in flight. Block b is (column group
 * b % ncg, chunk b / ncg; rev: chunk nch - 1 - b / ncg), at most BN_PK2_COLS vector columns a
 * group (spread evenly: cpb = ceil(cols / ncg)), rpp = 256 / cpb row lanes; a chunk is cm rows,
 * a multiple of BN_PK2_R * rpp (host: bn_pk_plan), so a row lane takes cm / (BN_PK2_R * rpp)
 * trips, each loading BN_PK2_R rows' 16-byte vectors (x; dy in mode 1; out when beta != 0 in
 * the apply pass) before any of their arithmetic (the last chunk's tail predicated). Rows are
 * accumulated in the order of the first mapping (r, r + rpp, ...), the per-element arithmetic
 * is bn_pk_acc / bn_pk_out's, and the rows of a column meet in bn_pk_rows_out's tree: the
 * chunking alone (a rule of the shape) sets the bits. The mode is a template parameter, so the
 * statistics kernel (mode 0) holds no per-channel parameters. The apply pass walks the chunks
 * in reverse of the pass before it (rev), so the rows that pass read last are still in L2.
 * n32 c256 56x56 HALF / c128 FLOAT: 1 group of 32 columns x 8 row lanes, cm 192 rows (6 trips
 * of 4 rows), 523 blocks; a thread keeps 4 vectors (x) or 8 (x, dy; apply with beta != 0: 12)
 * in flight. The mode 1 kernels and the apply kernels read the block's channels' parameters
 * from shared memory (bn_pk2_params, a channel a thread), once per trip and channel.
 * ptxas (no spills; registers sm_80 / sm_90 for FLOAT, HALF, BFLOAT16 -> blocks of 256 an SM):
 *   bn_pk2_part0_nhwc  62/64, 56/56, 56/72 -> 4 (BFLOAT16 sm_90: 3; launch bounds 4, BF16 3)
 *   bn_pk2_part1_nhwc  116/118, 61/62, 64/79 -> 2, 4, 3 (HALF / BFLOAT16: 2 rows a trip)
 *   bn_pk2_apply0_nhwc 88/96, 83/88, 85/102 -> 2
 *   bn_pk2_apply1_nhwc 126/126, 103/106, 105/127 -> 2
 *   bn_pk2_lean0_nhwc  56/56, 59/54, 64/64 -> 4 (launch bounds 4; 523 blocks: one wave)
 *   bn_pk2_lean1_nhwc  62/60, 62/60, 64/64 -> 4 (launch bounds 4)
 * The lean apply kernels (ops BN, alpha 1, beta 0; FREEDNN_GPU_BN_PK2_LEAN) re-read the channel
 * parameters from shared memory each trip, so the compiler does not hoist all FD_VEC channels'
 * of them out of the row loop (4 to 6 x FD_VEC registers): mean, inv, sc, bi (mode 1: mg) of a
 * channel side by side, one 128-bit load (FLOAT's doubles: two) in volatile asm (bn_lds4),
 * mgx through a volatile pointer; lanes of a warp read consecutive 16-byte entries. The first
 * form, four 32-bit volatile loads a channel, was MIO-bound on HALF (Nsight Compute: 36 us,
 * mio_throttle the top stall) and ran training 1535 -> 1725 GB/s, backward 1268 -> 1738 with
 * these loads (n32c256h56w56 f16, H200, 2026-12-02; FLOAT 1933 -> 1934, 1829 -> 1914). They
 * store with the select form of bn_st1 (bn_st1s: its per-element branches held registers); 4
 * rows a trip (x; 8 spilled at 64 registers for HALF / BFLOAT16) and 2 in mode 1 (x, dy; 4
 * spilled BFLOAT16). Shared memory 16 KiB (the rows' tree) + 6 KiB (mode 1 parameters) / 6 KiB
 * (apply; the lean passes 4 KiB more for the side-by-side copy). The first
 * mapping: 90-96 registers (2 blocks an SM), 512 blocks, one vector in flight a thread. */

/* The block's channels' parameters into sp (a channel a thread; every thread calls it, it
 * synchronises): mean, inv, sc, bi, and with with_mg mg, mgx. Column group cg. */
static __device__ __forceinline__ void FD_K(bn_pk2_params)(const bn_pk_t &P, int cg,
                                                           const void *scalev, const void *biasv,
                                                           const void *smeanv, const void *sinvv,
                                                           const FD_A *ws, int with_mg,
                                                           FD_A (*sp)[BN_PK2_COLS * FD_VEC])
{
    const int t = threadIdx.x, ch0 = cg * P.cpb * FD_VEC;
    if (t < P.cpb * FD_VEC && ch0 + t < P.c) {
        const FD_K(bn_chan_t) q =
            FD_K(bn_pk_chan)(P, ch0 + t, scalev, biasv, smeanv, sinvv, ws, with_mg);
        sp[0][t] = q.mean, sp[1][t] = q.inv, sp[2][t] = q.sc, sp[3][t] = q.bi;
        sp[4][t] = q.mg, sp[5][t] = q.mgx;
    }
    __syncthreads();
}

/* A trip's loads, all issued before any arithmetic: rows r + i * rpp < r1 (i < NR) of the
 * thread's column (xc, dc, oc: x, dy, out at the column), x, dy in mode 1, out when ld_out. */
template <int MODE, int NR>
static __device__ __forceinline__ void
    FD_K(bn_pk2_load)(const FD_T *xc, const FD_T *dc, const FD_T *oc, int r, int r1, int rpp,
                      int c, int ld_out, FD_K(bn_vec_t) * xa, FD_K(bn_vec_t) * da,
                      FD_K(bn_vec_t) * o)
{
#pragma unroll
    for (int i = 0; i < NR; i++)
        if (r + i * rpp < r1) {
            const int off = (r + i * rpp) * c;
            xa[i] = *(const FD_K(bn_vec_t) *)(xc + off);
            if (MODE == 1)
                da[i] = *(const FD_K(bn_vec_t) *)(dc + off);
            if (ld_out)
                o[i] = *(const FD_K(bn_vec_t) *)(oc + off);
        }
}

/* Pass 1 of chunk j, column group cg, by the whole block (it synchronises): the thread's sums
 * over its rows from global memory, then bn_pk_rows_out through the tree p1, p2 (FD_CUDA_BLOCK *
 * FD_VEC each). Mode 1 reads the block's channels' parameters from sp (bn_pk2_params). NR rows'
 * loads a trip (bn_pk2_part*: BN_PK2_R); the rows are summed in the same order whatever NR.
 * PLAIN (mode 1, ops BN: g = dy) adds them by bn_pk_acc_dy. */
template <int MODE, int NR, bool PLAIN = false>
static __device__ __forceinline__ void
FD_K(bn_pk2_part_job)(const bn_pk_t &P, int64_t j, int cg, const FD_T *__restrict__ x,
                      const FD_T *__restrict__ dy, FD_A (*sp)[BN_PK2_COLS * FD_VEC], FD_A *p1,
                      FD_A *p2, FD_A *ws)
{
    const int tx = threadIdx.x % P.cpb, ty = threadIdx.x / P.cpb;
    const int col = cg * P.cpb + tx;
    FD_A s1[FD_VEC], s2[FD_VEC];
#pragma unroll
    for (int l = 0; l < FD_VEC; l++)
        s1[l] = 0, s2[l] = 0;
    if (ty < P.rpp && col < P.cols) {
        FD_A k[FD_VEC]; /* mode 0: the shifts */
#pragma unroll
        for (int l = 0; l < FD_VEC; l++)
            k[l] = MODE == 0 ? (FD_A)fd_cuda_ld(x, col * FD_VEC + l) : (FD_A)0;
        const int c = (int)P.c, step = NR * P.rpp;
        const int r1 = (int)(j * P.cm + P.cm < P.m ? j * P.cm + P.cm : P.m);
        const FD_T *xc = x + col * FD_VEC, *dc = MODE == 1 ? dy + col * FD_VEC : dy;
        for (int r = (int)(j * P.cm) + ty; r < r1; r += step) {
            FD_K(bn_vec_t) xa[NR], da[NR];
            FD_K(bn_pk2_load)<MODE, NR>(xc, dc, NULL, r, r1, P.rpp, c, 0, xa, da, NULL);
#pragma unroll
            for (int l = 0; l < FD_VEC; l++) { /* a channel's parameters serve the trip's rows */
                const int e = tx * FD_VEC + l;
                const FD_K(bn_chan_t) q = {MODE == 1 ? sp[0][e] : (FD_A)0,
                                           MODE == 1 ? sp[1][e] : (FD_A)0,
                                           MODE == 1 ? sp[2][e] : (FD_A)0,
                                           MODE == 1 ? sp[3][e] : (FD_A)0, 0, 0};
#pragma unroll
                for (int i = 0; i < NR; i++)
                    if (r + i * P.rpp < r1) {
                        const FD_A xv = (FD_A)fd_cuda_ld(xa[i].e, l);
                        const FD_A dv = MODE == 1 ? (FD_A)fd_cuda_ld(da[i].e, l) : (FD_A)0;
                        if (PLAIN)
                            FD_K(bn_pk_acc_dy)(xv, dv, q, &s1[l], &s2[l]);
                        else
                            FD_K(bn_pk_acc)(P, MODE, xv, dv, k[l], q, &s1[l], &s2[l]);
                    }
            }
        }
    }
    FD_K(bn_pk_rows_out)(P, j, tx, ty, col, s1, s2, p1, p2, ws);
}

template <int MODE>
static __device__ __forceinline__ void
    FD_K(bn_pk2_part_body)(const bn_pk_t &P, int rev, const FD_T *__restrict__ x,
                           const FD_T *__restrict__ dy, const void *scalev, const void *biasv,
                           const void *smeanv, const void *sinvv, FD_A *ws)
{
    __shared__ FD_A p1[FD_CUDA_BLOCK * FD_VEC], p2[FD_CUDA_BLOCK * FD_VEC];
    __shared__ FD_A sp[MODE == 1 ? 6 : 1][BN_PK2_COLS * FD_VEC]; /* mode 1: bn_pk2_params */
    const int cg = (int)(blockIdx.x % (unsigned)P.ncg);
    const int64_t jb = blockIdx.x / (unsigned)P.ncg, j = rev ? P.nch - 1 - jb : jb;
    if (MODE == 1)
        FD_K(bn_pk2_params)(P, cg, scalev, biasv, smeanv, sinvv, ws, 0, sp);
    /* rows a trip: BN_PK2_R, the 16-bit gradient sums 2 (BN_PK2_PART1_MINB; the same bits) */
    constexpr int NR = MODE == 1 && sizeof(FD_T) == 2 ? 2 : BN_PK2_R;
    if (MODE == 1 && P.ops == CUDNN_BATCHNORM_OPS_BN)
        FD_K(bn_pk2_part_job)<MODE, NR, true>(P, j, cg, x, dy, sp, p1, p2, ws);
    else
        FD_K(bn_pk2_part_job)<MODE, NR>(P, j, cg, x, dy, sp, p1, p2, ws);
}

/* The apply passes' start: the parameters of the block's columns into sp (every thread calls
 * it, it synchronises), the thread's rows r0, r0 + rpp, ... < r1 of the block's chunk, its
 * column lane *tx and vector column *col; 0 for a thread with no column or row lane. */
static __device__ __forceinline__ int FD_K(bn_pk2_apply_at)(const bn_pk_t &P, int rev, int mode,
                                                            const void *scalev, const void *biasv,
                                                            const void *smeanv, const void *sinvv,
                                                            const FD_A *ws,
                                                            FD_A (*sp)[BN_PK2_COLS * FD_VEC],
                                                            int *r0, int *r1, int *tx, int *col)
{
    const int cg = (int)(blockIdx.x % (unsigned)P.ncg);
    const int64_t jb = blockIdx.x / (unsigned)P.ncg, j = rev ? P.nch - 1 - jb : jb;
    *tx = threadIdx.x % P.cpb;
    const int ty = threadIdx.x / P.cpb;
    *col = cg * P.cpb + *tx;
    FD_K(bn_pk2_params)(P, cg, scalev, biasv, smeanv, sinvv, ws, mode, sp);
    if (ty >= P.rpp || *col >= P.cols)
        return 0;
    *r0 = (int)(j * P.cm) + ty;
    *r1 = (int)(j * P.cm + P.cm < P.m ? j * P.cm + P.cm : P.m);
    return 1;
}

template <int MODE>
static __device__ __forceinline__ void
    FD_K(bn_pk2_apply_body)(const bn_pk_t &P, int rev, const FD_T *x, const FD_T *dy, FD_T *out,
                            const void *scalev, const void *biasv, const void *smeanv,
                            const void *sinvv, const FD_A *ws, double alpha, double beta)
{
    __shared__ FD_A sp[6][BN_PK2_COLS * FD_VEC]; /* bn_pk2_params */
    int r0, r1, tx, col;
    if (!FD_K(bn_pk2_apply_at)(P, rev, MODE, scalev, biasv, smeanv, sinvv, ws, sp, &r0, &r1, &tx,
                               &col))
        return;
    const int c = (int)P.c, step = BN_PK2_R * P.rpp;
    const FD_T *xc = x + col * FD_VEC, *dc = MODE == 1 ? dy + col * FD_VEC : dy;
    FD_T *oc = out + col * FD_VEC;
    for (int r = r0; r < r1; r += step) {
        FD_K(bn_vec_t) xa[BN_PK2_R], da[BN_PK2_R], o[BN_PK2_R];
        FD_K(bn_pk2_load)<MODE, BN_PK2_R>(xc, dc, oc, r, r1, P.rpp, c, beta != 0.0, xa, da, o);
#pragma unroll
        for (int l = 0; l < FD_VEC; l++) { /* a channel's parameters serve the trip's rows */
            const int k = tx * FD_VEC + l;
            const FD_K(bn_chan_t) q = {sp[0][k], sp[1][k], sp[2][k], sp[3][k], sp[4][k], sp[5][k]};
#pragma unroll
            for (int i = 0; i < BN_PK2_R; i++)
                if (r + i * P.rpp < r1)
                    FD_K(bn_pk_out)(P, MODE, o[i].e, l, (FD_A)fd_cuda_ld(xa[i].e, l),
                                    MODE == 1 ? (FD_A)fd_cuda_ld(da[i].e, l) : (FD_A)0, q,
                                    alpha, beta);
        }
#pragma unroll
        for (int i = 0; i < BN_PK2_R; i++)
            if (r + i * P.rpp < r1)
                *(FD_K(bn_vec_t) *)(oc + (r + i * P.rpp) * c) = o[i];
    }
}

/* The lean apply pass (FREEDNN_GPU_BN_PK2_LEAN; the host takes it for ops BN, alpha 1, beta
 * 0): bn_pk2_apply_body without the blend (bn_st1 stores), the activations and out's loads,
 * NR rows a trip (the trip's rows all loaded before any store; each element's value is
 * bn_pk_u / bn_pk_dx of bn_pk_val, so the general pass's bits whatever the rows a trip). y (dx)
 * is written over the loaded x vectors. */
template <int MODE, int NR>
static __device__ __forceinline__ void
    FD_K(bn_pk2_lean_body)(const bn_pk_t &P, int rev, const FD_T *x, const FD_T *dy, FD_T *out,
                           const void *scalev, const void *biasv, const void *smeanv,
                           const void *sinvv, const FD_A *ws)
{
    __shared__ FD_A sp[6][BN_PK2_COLS * FD_VEC]; /* bn_pk2_params */
    /* mean, inv, sc and bi (mode 1: mg) of channel tx * FD_VEC + l side by side at
     * sq[l * BN_PK2_COLS + tx], for bn_lds4: a warp's lanes read consecutive entries */
    __shared__ __align__(4 * sizeof(FD_A)) FD_A sq[BN_PK2_COLS * FD_VEC][4];
    int r0 = 0, r1 = 0, tx = 0, col = 0;
    const int busy = FD_K(bn_pk2_apply_at)(P, rev & 1, MODE, scalev, biasv, smeanv, sinvv, ws, sp,
                                           &r0, &r1, &tx, &col);
    for (int t = threadIdx.x; t < P.cpb * FD_VEC; t += FD_CUDA_BLOCK) {
        FD_A *e = sq[t % FD_VEC * BN_PK2_COLS + t / FD_VEC];
        e[0] = sp[0][t], e[1] = sp[1][t], e[2] = sp[2][t], e[3] = sp[MODE == 0 ? 3 : 4][t];
    }
    __syncthreads();
    if (!busy)
        return;
    const int c = (int)P.c, rpp = P.rpp, step = NR * rpp;
    FD_T *oc = out + col * FD_VEC;
    const FD_T *xc = x + col * FD_VEC, *dc = MODE == 1 ? dy + col * FD_VEC : dy;
    const int trips = bn_pk2_trips(r0, r1, step), back = rev & 2;
    for (int u = 0; u < trips; u++) { /* rev bit 2: last trip first (bn_pk2_trips) */
        const int r = r0 + (back ? trips - 1 - u : u) * step;
        FD_K(bn_vec_t) xa[NR], da[NR];
        FD_K(bn_pk2_load)<MODE, NR>(xc, dc, NULL, r, r1, rpp, c, 0, xa, da, NULL);
#pragma unroll
        for (int l = 0; l < FD_VEC; l++) { /* a channel's parameters serve the trip's rows */
            const volatile FD_A *mgx = sp[5]; /* read each trip: not hoisted */
            FD_A w[4];
            bn_lds4(sq[l * BN_PK2_COLS + tx], w); /* volatile asm: not hoisted either */
            const FD_K(bn_chan_t) q = {w[0], w[1], w[2], MODE == 0 ? w[3] : (FD_A)0,
                                       MODE == 1 ? w[3] : (FD_A)0,
                                       MODE == 1 ? mgx[tx * FD_VEC + l] : (FD_A)0};
#pragma unroll
            for (int i = 0; i < NR; i++)
                if (r + i * rpp < r1) {
                    const FD_A xv = (FD_A)fd_cuda_ld(xa[i].e, l);
                    FD_A v;
                    if (MODE == 0)
                        v = FD_K(bn_pk_u)(xv, q);
                    else
                        v = FD_K(bn_pk_dx)((xv - q.mean) * q.inv, (FD_A)fd_cuda_ld(da[i].e, l),
                                           q);
                    bn_st1s(xa[i].e, l, v);
                }
        }
#pragma unroll
        for (int i = 0; i < NR; i++)
            if (r + i * rpp < r1)
                *(FD_K(bn_vec_t) *)(oc + (r + i * rpp) * c) = xa[i];
    }
}

/* Pass 1 (mode 0: the shifted statistics; mode 1: the gradient sums), pass 3 (mode 0: y;
 * mode 1: dx; outv may be xv or dyv: a trip loads its rows before it stores them). */
#define FD_BN_PK2_PART(name, mode, minb)                                                           \
    static __global__ void __launch_bounds__(FD_CUDA_BLOCK, minb)                                  \
        FD_K(name)(const bn_pk_t P, int rev, const void *xv, const void *dyv,                      \
                   const void *scalev, const void *biasv, const void *smeanv,                      \
                   const void *sinvv, void *wsv)                                                   \
    {                                                                                              \
        fd_pdl_trigger();                                                                          \
        FD_K(bn_pk2_part_body)<mode>(P, rev, (const FD_T *)xv, (const FD_T *)dyv, scalev,          \
                                     biasv, smeanv, sinvv, (FD_A *)wsv);                           \
    }
#define FD_BN_PK2_APPLY(name, mode, minb)                                                          \
    static __global__ void __launch_bounds__(FD_CUDA_BLOCK, minb)                                  \
        FD_K(name)(const bn_pk_t P, int rev, const void *xv, const void *dyv, void *outv,          \
                   const void *scalev, const void *biasv, const void *smeanv,                      \
                   const void *sinvv, const void *wsv, double alpha, double beta)                  \
    {                                                                                              \
        fd_pdl_wait();                                                                             \
        FD_K(bn_pk2_apply_body)<mode>(P, rev, (const FD_T *)xv, (const FD_T *)dyv,                 \
                                      (FD_T *)outv, scalev, biasv, smeanv, sinvv,                  \
                                      (const FD_A *)wsv, alpha, beta);                             \
    }
/* BFLOAT16 (FD_BN_BF16_MINB_LESS 1: its conversions take more registers) one block an SM
 * fewer in the statistics kernel */
#if defined(FD_BN_BF16_MINB_LESS) && FD_BN_BF16_MINB_LESS
FD_BN_PK2_PART(bn_pk2_part0_nhwc, 0, 3)
#else
FD_BN_PK2_PART(bn_pk2_part0_nhwc, 0, 4)
#endif
/* the gradient sums: HALF 4 blocks an SM, BFLOAT16 3 (at 4 it spilled on sm_90), both with 2
 * rows a trip (bn_pk2_part_body); they ran at 2 with 4 rows a trip (HALF 88 registers: 23 %
 * occupancy, 2.7 TB/s from DRAM on the H200, Nsight 2026-12-03). FLOAT 2 (its double sums). */
#if defined(FD_BN_BF16_MINB_LESS) && FD_BN_BF16_MINB_LESS
#define BN_PK2_PART1_MINB 3
#else
#define BN_PK2_PART1_MINB (sizeof(FD_T) == 2 ? 4 : 2)
#endif
FD_BN_PK2_PART(bn_pk2_part1_nhwc, 1, BN_PK2_PART1_MINB)
#undef BN_PK2_PART1_MINB
FD_BN_PK2_APPLY(bn_pk2_apply0_nhwc, 0, 2)
FD_BN_PK2_APPLY(bn_pk2_apply1_nhwc, 1, 2)
#define FD_BN_PK2_LEAN(name, mode, nr, minb)                                                       \
    static __global__ void __launch_bounds__(FD_CUDA_BLOCK, minb)                                  \
        FD_K(name)(const bn_pk_t P, int rev, const void *xv, const void *dyv, void *outv,          \
                   const void *scalev, const void *biasv, const void *smeanv,                      \
                   const void *sinvv, const void *wsv)                                             \
    {                                                                                              \
        fd_pdl_wait();                                                                             \
        FD_K(bn_pk2_lean_body)<mode, nr>(P, rev, (const FD_T *)xv, (const FD_T *)dyv,              \
                                         (FD_T *)outv, scalev, biasv, smeanv, sinvv,               \
                                         (const FD_A *)wsv);                                       \
    }
FD_BN_PK2_LEAN(bn_pk2_lean0_nhwc, 0, BN_PK2_LR0, 4)
FD_BN_PK2_LEAN(bn_pk2_lean1_nhwc, 1, BN_PK2_LR1, 4)
#undef FD_BN_PK2_PART
#undef FD_BN_PK2_APPLY
#undef FD_BN_PK2_LEAN

#ifdef FD_BN_CLUSTER
/* ---- the grid-resident training forward (bn_gr_t in batchnorm.cu; FLOAT, HALF, BFLOAT16) ------
 * bn_pk2_part0_nhwc + bn_pk_combine + bn_pk2_lean0_nhwc in one cooperative launch whose CTAs
 * (FD_CUDA_BLOCK threads, 2 an SM) all stay resident, so x is read from DRAM once where the
 * three launches read it twice. Jobs are bn_pk2_*'s blocks (column group job % ncg, chunk job /
 * ncg); CTA b of G keeps jobs b + h G (h < Q.hold) in shared memory and computes jobs
 * Q.hold G + b + k G from global memory (bn_pk2_part_job: the statistics pass's code).
 * 1. cp.async copies of the held chunks (rows r0.. of the group's cpb vector columns, a slot of
 *    cm x cpb vectors each), all in flight while the CTA sums its other chunks.
 * 2. The held chunks' sums from the copies: each thread its rows ty, ty + rpp, ... in the order
 *    bn_pk2_part_job takes them, bn_pk_acc, bn_pk_rows_out's tree: the same partials, the same
 *    bits as the three launches.
 * 3. Grid barrier (bn_gr_sync), bn_pk_combine_ch by the grid's warps (a channel a warp), grid
 *    barrier.
 * 4. y: the other chunks from global memory, last read first (their rows are the likeliest
 *    still in L2: Nsight Compute read 53.8 MB from DRAM for n32c128h56w56's 51.4), then the held
 *    chunks from shared memory; bn_pk2_lean_body's arithmetic (bn_pk_u, bn_st1s; the parameters
 *    side by side in the tree's space, bn_lds4): the same bits.
 * The chunks read from global memory take NR rows' loads a trip (the FD_BN_GR stamping).
 * Dynamic shared memory: the tree (2 x FD_CUDA_BLOCK x FD_VEC accumulators, 16 KiB for every
 * type), then Q.hold slots. The host (bn_gr_run) takes it for ops BN, alpha 1, beta 0.
 * Measured (H200, n32 56x56, graph replay, 2026-12-02): FLOAT c128 2120 GB/s against the three
 * launches' 1914 (+11%), HALF c256 1717 against 1726 (even: the host takes it for FLOAT only by
 * default); 24% occupancy (two CTAs of 256 an SM), so the chunks not held are latency-bound:
 * the loads of a trip per thread are what bounds them. Tried and dropped
 * (branch gpu-bn-gr-stream): every chunk through two cp.async slots at one CTA an SM (1905 /
 * 1317: the sums and stores of 8 warps an SM no longer hide the copies), odd CTAs applying
 * their held chunks first (1917: fewer L2 hits). */

/* y of n <= NR row vectors v[] of vector column tx, the parameters of its FD_VEC channels from
 * sq (mean, inv, sc, bi side by side, bn_lds4: read once per call). */
template <int NR>
static __device__ __forceinline__ void FD_K(bn_gr_y)(FD_K(bn_vec_t) * v, int n, const FD_A (*sq)[4],
                                                     int tx)
{
#pragma unroll
    for (int l = 0; l < FD_VEC; l++) {
        FD_A w[4];
        bn_lds4(sq[l * BN_PK2_COLS + tx], w);
        const FD_K(bn_chan_t) q = {w[0], w[1], w[2], w[3], 0, 0};
#pragma unroll
        for (int i = 0; i < NR; i++)
            if (i < n)
                bn_st1s(v[i].e, l, FD_K(bn_pk_u)((FD_A)fd_cuda_ld(v[i].e, l), q));
    }
}

/* Column group cg's parameters into sq, as bn_pk2_params and bn_pk2_lean_body put them (the
 * statistics through L2: this launch wrote them). Every thread calls it; it synchronises. */
static __device__ __forceinline__ void FD_K(bn_gr_params)(const bn_pk_t &P, int cg,
                                                          const void *scalev, const void *biasv,
                                                          const FD_A *ws, FD_A (*sq)[4])
{
    __syncthreads(); /* the space's last readers are done */
    const int ch0 = cg * P.cpb * FD_VEC;
    for (int e = threadIdx.x; e < P.cpb * FD_VEC && ch0 + e < P.c; e += FD_CUDA_BLOCK) {
        const int64_t ch = ch0 + e;
        FD_A *q = sq[e % FD_VEC * BN_PK2_COLS + e / FD_VEC];
        q[0] = __ldcg(ws + 4 * ch);
        q[1] = __ldcg(ws + 4 * ch + 1);
        q[2] = (FD_A)((const FD_P *)scalev)[ch * P.sbs];
        q[3] = biasv != NULL ? (FD_A)((const FD_P *)biasv)[ch * P.sbs] : (FD_A)0;
    }
    __syncthreads();
}

static_assert(FD_VEC * sizeof(FD_A) * 2 * FD_CUDA_BLOCK == BN_GR_TREE_BYTES,
              "bn_gr_train_nhwc: the tree's bytes (host: BN_GR_TREE_BYTES)");

template <int NR>
static __device__ __forceinline__ void
    FD_K(bn_gr_train_body)(const bn_gr_t &Q, const void *xv, void *yv, const void *scalev,
                           const void *biasv, void *wsv, void *run_meanv, void *run_varv,
                           void *save_meanv, void *save_invv, double factor)
{
#if defined(__CUDA_ARCH__)
    extern __shared__ __align__(16) unsigned char bn_gr_smem[];
    const bn_pk_t &P = Q.P;
    const FD_T *x = (const FD_T *)xv;
    FD_T *y = (FD_T *)yv;
    FD_A *ws = (FD_A *)wsv;
    FD_A *p1 = (FD_A *)bn_gr_smem, *p2 = p1 + FD_CUDA_BLOCK * FD_VEC;
    FD_A(*sq)[4] = (FD_A(*)[4])bn_gr_smem; /* step 4: the tree's space */
    FD_K(bn_vec_t) *slots =
        (FD_K(bn_vec_t) *)(bn_gr_smem + 2 * FD_CUDA_BLOCK * FD_VEC * sizeof(FD_A));
    const int64_t G = gridDim.x, b = blockIdx.x, jobs = (int64_t)P.ncg * P.nch;
    const int64_t held = (int64_t)Q.hold * G;
    const int t = threadIdx.x, tx = t % P.cpb, ty = t / P.cpb, c = (int)P.c;
    int nh = 0; /* this CTA's held jobs */
    while (nh < Q.hold && b + nh * G < jobs)
        nh++;
    for (int h = 0; h < nh; h++) { /* 1 */
        const int64_t job = b + h * G, j = job / P.ncg;
        const int cg = (int)(job % P.ncg), r0 = (int)(j * P.cm);
        const int nr = (int)((j * P.cm + P.cm < P.m ? j * P.cm + P.cm : P.m) - r0);
        FD_K(bn_vec_t) *s = slots + (size_t)h * Q.slotv;
        for (int i = t; i < nr * P.cpb; i += FD_CUDA_BLOCK) {
            const int rl = i / P.cpb, col = cg * P.cpb + (i - rl * P.cpb);
            if (col < P.cols)
                bn_cl_cp16(&s[i], x + (int64_t)(r0 + rl) * c + col * FD_VEC);
        }
    }
    for (int64_t job = held + b; job < jobs; job += G)
        FD_K(bn_pk2_part_job)<0, NR>(P, job / P.ncg, (int)(job % P.ncg), x, NULL, NULL, p1, p2, ws);
    bn_cl_cp_wait();
    __syncthreads();
    for (int h = 0; h < nh; h++) { /* 2 */
        const int64_t job = b + h * G, j = job / P.ncg;
        const int cg = (int)(job % P.ncg), col = cg * P.cpb + tx;
        const int nr = (int)((j * P.cm + P.cm < P.m ? j * P.cm + P.cm : P.m) - j * P.cm);
        FD_A s1[FD_VEC], s2[FD_VEC];
#pragma unroll
        for (int l = 0; l < FD_VEC; l++)
            s1[l] = 0, s2[l] = 0;
        if (ty < P.rpp && col < P.cols) {
            FD_A k[FD_VEC];
#pragma unroll
            for (int l = 0; l < FD_VEC; l++)
                k[l] = (FD_A)fd_cuda_ld(x, col * FD_VEC + l);
            const FD_K(bn_chan_t) q0 = {0, 0, 0, 0, 0, 0};
            const FD_K(bn_vec_t) *s = slots + (size_t)h * Q.slotv + tx;
            for (int rl = ty; rl < nr; rl += P.rpp) {
                const FD_K(bn_vec_t) v = s[rl * P.cpb];
#pragma unroll
                for (int l = 0; l < FD_VEC; l++) {
                    const FD_A xv = (FD_A)fd_cuda_ld(v.e, l);
                    FD_K(bn_pk_acc)(P, 0, xv, (FD_A)0, k[l], q0, &s1[l], &s2[l]);
                }
            }
        }
        FD_K(bn_pk_rows_out)(P, j, tx, ty, col, s1, s2, p1, p2, ws);
    }
    bn_gr_sync(Q.ctr, (unsigned)G); /* 3 */
    const int64_t wstep = G * (FD_CUDA_BLOCK / 32); /* a channel a warp of the grid */
    for (int64_t ch = b * (FD_CUDA_BLOCK / 32) + t / 32; ch < P.c; ch += wstep) {
        FD_K(bn_pk_combine_ch)(P, 0, ch, xv, ws, 1, run_meanv, run_varv, save_meanv, save_invv,
                               factor, NULL, NULL, 0.0, 0.0);
    }
    bn_gr_sync(Q.ctr, 2 * (unsigned)G);
    bn_gr_exit(Q.ctr, 3 * (unsigned)G);
    /* 4: the chunks read from global memory first (last read first), then the held ones */
    int cur = -1; /* the column group whose parameters sq holds */
    const int64_t last = jobs - 1 - held - b < 0 ? -1 : held + b + (jobs - 1 - held - b) / G * G;
    for (int64_t job = last; job >= held; job -= G) {
        const int64_t j = job / P.ncg;
        const int cg = (int)(job % P.ncg), col = cg * P.cpb + tx;
        if (cg != cur)
            FD_K(bn_gr_params)(P, cg, scalev, biasv, ws, sq), cur = cg;
        if (ty >= P.rpp || col >= P.cols)
            continue;
        const int r1 = (int)(j * P.cm + P.cm < P.m ? j * P.cm + P.cm : P.m);
        const FD_T *xc = x + col * FD_VEC;
        FD_T *yc = y + col * FD_VEC;
        for (int r = (int)(j * P.cm) + ty; r < r1; r += NR * P.rpp) {
            FD_K(bn_vec_t) v[NR];
            FD_K(bn_pk2_load)<0, NR>(xc, NULL, NULL, r, r1, P.rpp, c, 0, v, NULL, NULL);
            const int n = (r1 - r + P.rpp - 1) / P.rpp;
            FD_K(bn_gr_y)<NR>(v, n, sq, tx);
#pragma unroll
            for (int i = 0; i < NR; i++)
                if (i < n)
                    *(FD_K(bn_vec_t) *)(yc + (r + i * P.rpp) * c) = v[i];
        }
    }
    for (int h = 0; h < nh; h++) {
        const int64_t job = b + h * G, j = job / P.ncg;
        const int cg = (int)(job % P.ncg), col = cg * P.cpb + tx;
        if (cg != cur)
            FD_K(bn_gr_params)(P, cg, scalev, biasv, ws, sq), cur = cg;
        if (ty >= P.rpp || col >= P.cols)
            continue;
        const int r0 = (int)(j * P.cm);
        const int nr = (int)((j * P.cm + P.cm < P.m ? j * P.cm + P.cm : P.m) - r0);
        const FD_K(bn_vec_t) *s = slots + (size_t)h * Q.slotv + tx;
        FD_T *yc = y + (int64_t)r0 * c + col * FD_VEC;
        for (int rl = ty; rl < nr; rl += BN_PK2_LR0 * P.rpp) {
            FD_K(bn_vec_t) v[BN_PK2_LR0];
            const int n = (nr - rl + P.rpp - 1) / P.rpp;
#pragma unroll
            for (int i = 0; i < BN_PK2_LR0; i++)
                if (i < n)
                    v[i] = s[(rl + i * P.rpp) * P.cpb];
            FD_K(bn_gr_y)<BN_PK2_LR0>(v, n, sq, tx);
#pragma unroll
            for (int i = 0; i < BN_PK2_LR0; i++)
                if (i < n)
                    *(FD_K(bn_vec_t) *)(yc + (int64_t)(rl + i * P.rpp) * c) = v[i];
        }
    }
#endif
}

/* NR: rows' loads a trip over the chunks that are not held: 8 (2026-12-02, H200, f32
 * n32c128h56w56, in a build whose CTAs took turns at the pass-4 order: 1972 against 1917 GB/s at
 * 4, one A/B; ptxas of the shipped stampings: FLOAT 110 registers sm_90, 114 sm_80, HALF 84,
 * no spills), BFLOAT16 4 (80 / 88 registers; 8 spilled at the 128 of two CTAs an SM). */
#define FD_BN_GR(name, nr)                                                                         \
    static __global__ void __launch_bounds__(FD_CUDA_BLOCK, BN_GR_CTAS_SM)                         \
        FD_K(name)(const bn_gr_t Q, const void *xv, void *yv, const void *scalev,                  \
                   const void *biasv, void *wsv, void *run_meanv, void *run_varv,                  \
                   void *save_meanv, void *save_invv, double factor)                               \
    {                                                                                              \
        FD_K(bn_gr_train_body)<nr>(Q, xv, yv, scalev, biasv, wsv, run_meanv, run_varv, save_meanv, \
                                   save_invv, factor);                                             \
    }
#if defined(FD_BN_BF16_MINB_LESS) && FD_BN_BF16_MINB_LESS
FD_BN_GR(bn_gr_train_nhwc, 4)
#else
FD_BN_GR(bn_gr_train_nhwc, 8)
#endif
#undef FD_BN_GR
#endif /* FD_BN_CLUSTER */

/* ---- the packed inference pass (bn_iv_t in batchnorm.cu) ------------------------------------
 * One read of x (and z), one write of y, 128-bit vectors. Each thread keeps one channel's
 * (NCHW: the plane's) or FD_VEC channels' (NHWC: its vector column's) mean, 1 / std, scale and
 * bias in registers and walks members, so 1 / sqrt is computed once per thread and plane /
 * column, not per element. Same per-element arithmetic as bn_fwd_infer: same bits. Two vectors
 * per trip, both loaded before either is stored (in place, y == x, they are distinct
 * addresses), so two 16-byte loads per operand are in flight. */

static __device__ __forceinline__ FD_K(bn_chan_t)
    FD_K(bn_iv_chan)(const bn_iv_t &V, int64_t ch, const void *scalev, const void *biasv,
                     const void *meanv, const void *varv)
{
    FD_K(bn_chan_t) r;
    r.mean = (FD_A)((const FD_P *)meanv)[ch * V.mvs];
    r.inv = (FD_A)(1.0 / sqrt((double)((const FD_P *)varv)[ch * V.mvs] + V.eps));
    r.sc = (FD_A)((const FD_P *)scalev)[ch * V.sbs];
    r.bi = (FD_A)((const FD_P *)biasv)[ch * V.sbs];
    r.mg = 0, r.mgx = 0;
    return r;
}

/* o.e[l] = alpha * act(scale * (x - mean) * inv + bias [+ z]) + beta * o.e[l]; PLAIN: ops BN
 * known at compile time (no activation code, fewer registers). */
template <bool PLAIN>
static __device__ __forceinline__ void FD_K(bn_iv_out)(const bn_iv_t &V, FD_T *o, int l, FD_A xv,
                                                       FD_A zv, const FD_K(bn_chan_t) & q,
                                                       double alpha, double beta)
{
    FD_A u = q.sc * (xv - q.mean) * q.inv + q.bi;
    if (!PLAIN && V.ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION)
        u += zv;
    const FD_A v = PLAIN || V.ops == CUDNN_BATCHNORM_OPS_BN ? u : bn_act_fwd(V.act, u);
    sd_blend(o, l, alpha, beta, (double)v);
}

/* Vectors off0 and off1 (off1 < 0: none) of one channel set q[] (NCHW: q[0] for every lane). */
template <bool PLAIN>
static __device__ __forceinline__ void FD_K(bn_iv_pair)(const bn_iv_t &V, const FD_T *x,
                                                        const FD_T *z, FD_T *y, int64_t off0,
                                                        int64_t off1, const FD_K(bn_chan_t) * q,
                                                        int per_lane, double alpha, double beta)
{
    const int has_z = !PLAIN && V.ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
    FD_K(bn_vec_t) x0, x1, z0, z1, o0, o1;
    x0 = *(const FD_K(bn_vec_t) *)(x + off0);
    if (has_z)
        z0 = *(const FD_K(bn_vec_t) *)(z + off0);
    if (off1 >= 0) {
        x1 = *(const FD_K(bn_vec_t) *)(x + off1);
        if (has_z)
            z1 = *(const FD_K(bn_vec_t) *)(z + off1);
    }
    if (beta != 0.0) {
        o0 = *(const FD_K(bn_vec_t) *)(y + off0);
        if (off1 >= 0)
            o1 = *(const FD_K(bn_vec_t) *)(y + off1);
    }
#pragma unroll
    for (int l = 0; l < FD_VEC; l++)
        FD_K(bn_iv_out)<PLAIN>(V, o0.e, l, (FD_A)fd_cuda_ld(x0.e, l),
                               has_z ? (FD_A)fd_cuda_ld(z0.e, l) : (FD_A)0, q[per_lane ? l : 0],
                               alpha, beta);
    *(FD_K(bn_vec_t) *)(y + off0) = o0;
    if (off1 >= 0) {
#pragma unroll
        for (int l = 0; l < FD_VEC; l++)
            FD_K(bn_iv_out)<PLAIN>(V, o1.e, l, (FD_A)fd_cuda_ld(x1.e, l),
                                   has_z ? (FD_A)fd_cuda_ld(z1.e, l) : (FD_A)0,
                                   q[per_lane ? l : 0], alpha, beta);
        *(FD_K(bn_vec_t) *)(y + off1) = o1;
    }
}

/* NCHW: V.tpp threads per (n, c) plane, FD_CUDA_BLOCK / V.tpp planes per block, grid-striding
 * over planes. */
template <bool PLAIN>
static __device__ __forceinline__ void
    FD_K(bn_iv_nchw_body)(const bn_iv_t &V, const void *xv, const void *zv, void *yv,
                         const void *scalev, const void *biasv, const void *meanv,
                         const void *varv, double alpha, double beta)
{
    const FD_T *x = (const FD_T *)xv;
    const FD_T *z = (const FD_T *)zv;
    FD_T *y = (FD_T *)yv;
    const int ppb = FD_CUDA_BLOCK / V.tpp;
    const int lane = threadIdx.x % V.tpp;
    for (int64_t pl = (int64_t)blockIdx.x * ppb + threadIdx.x / V.tpp; pl < V.planes;
         pl += (int64_t)gridDim.x * ppb) {
        const int64_t ch = (int64_t)((uint32_t)pl % (uint32_t)V.c);
        const FD_K(bn_chan_t) q = FD_K(bn_iv_chan)(V, ch, scalev, biasv, meanv, varv);
        const int64_t base = pl * V.s;
        for (int64_t v = lane; v < V.vps; v += 2 * V.tpp) {
            const int64_t v1 = v + V.tpp;
            FD_K(bn_iv_pair)<PLAIN>(V, x, z, y, base + v * FD_VEC,
                                    v1 < V.vps ? base + v1 * FD_VEC : -1, &q, 0, alpha, beta);
        }
    }
}

/* NHWC: thread (tx, ty) of block (column group b % ncg, row block b / ncg) takes vector column
 * cg * cpb + tx (FD_VEC channels) of rows rb * rpp + ty, then + nrb * rpp, ... */
template <bool PLAIN>
static __device__ __forceinline__ void
    FD_K(bn_iv_nhwc_body)(const bn_iv_t &V, const void *xv, const void *zv, void *yv,
                         const void *scalev, const void *biasv, const void *meanv,
                         const void *varv, double alpha, double beta)
{
    const FD_T *x = (const FD_T *)xv;
    const FD_T *z = (const FD_T *)zv;
    FD_T *y = (FD_T *)yv;
    const int64_t cg = blockIdx.x % V.ncg, rb = blockIdx.x / V.ncg;
    const int tx = threadIdx.x % V.cpb, ty = threadIdx.x / V.cpb;
    const int64_t col = cg * V.cpb + tx;
    if (ty >= V.rpp || col >= V.cols)
        return;
    FD_K(bn_chan_t) q[FD_VEC];
#pragma unroll
    for (int l = 0; l < FD_VEC; l++)
        q[l] = FD_K(bn_iv_chan)(V, col * FD_VEC + l, scalev, biasv, meanv, varv);
    const int64_t step = (int64_t)V.nrb * V.rpp;
    for (int64_t r = rb * V.rpp + ty; r < V.rows; r += 2 * step) {
        const int64_t r1 = r + step;
        FD_K(bn_iv_pair)<PLAIN>(V, x, z, y, r * V.c + col * FD_VEC,
                                r1 < V.rows ? r1 * V.c + col * FD_VEC : -1, q, 1, alpha, beta);
    }
}

/* The launched kernels: _bn for ops BN, the general ones for the activations and z (their
 * activation code wants more registers: 2 blocks of 256 per SM, against 3 for _bn). */
#define FD_BN_IV_KERNEL(name, body, plain, minb)                                               \
    static __global__ void __launch_bounds__(FD_CUDA_BLOCK, minb)                               \
        FD_K(name)(const bn_iv_t V, const void *xv, const void *zv, void *yv,                  \
                   const void *scalev, const void *biasv, const void *meanv, const void *varv, \
                   double alpha, double beta)                                                  \
    {                                                                                          \
        FD_K(body)<plain>(V, xv, zv, yv, scalev, biasv, meanv, varv, alpha, beta);             \
    }
FD_BN_IV_KERNEL(bn_iv_nchw, bn_iv_nchw_body, false, 2)
FD_BN_IV_KERNEL(bn_iv_nchw_bn, bn_iv_nchw_body, true, 3)
FD_BN_IV_KERNEL(bn_iv_nhwc, bn_iv_nhwc_body, false, 2)
/* NHWC _bn at 3 blocks spilled 4 bytes for BFLOAT16 on sm_90 (-Xptxas -warn-spills, which the
 * build now turns into an error): batchnorm.cu sets FD_BN_NHWC_BN_MINB 2 for that type only */
#ifndef FD_BN_NHWC_BN_MINB
#define FD_BN_NHWC_BN_MINB 3
#endif
FD_BN_IV_KERNEL(bn_iv_nhwc_bn, bn_iv_nhwc_body, true, FD_BN_NHWC_BN_MINB)
#undef FD_BN_NHWC_BN_MINB

/* ---- the packed inference pass, second mapping (FREEDNN_GPU_BN_IV2, default on) -------------
 * Same per-element arithmetic and store as above (bn_iv_chan, bn_iv_out: the same bits), more
 * bytes in flight and fewer 1 / sqrt per vector. Every trip a thread loads BN_IV2_K (4)
 * vectors of x (and z, and y when beta != 0), all before the parameter math of its first trip
 * and before any store (in place, y == x, the trip's vectors are distinct addresses), so 4
 * 16-byte loads per operand are in flight; later trips reuse the parameters.
 * NCHW (bn_iv2_nchw*): a piece is one (n, c) plane, or a segment of V.segl vectors of one when
 * the planes are too few to fill the device (V.nseg per plane, multiples of a trip); V.tpp
 * threads per piece (a power of two, 1..256, the smallest with 4 * tpp >= the vectors of a
 * piece, so a piece is mostly one trip), FD_CUDA_BLOCK / V.tpp pieces per block, grid-striding
 * over pieces; each thread computes its plane's parameters once per piece (after issuing the
 * loads). n32c256h56w56 HALF: 392 vectors a plane, tpp 128, two planes a block, threads of 3 or
 * 4 vectors; FLOAT 784, tpp 256.
 * NHWC (bn_iv2_nhwc*): block (column group b % ncg, row block b / ncg), at most BN_IV2_COLS
 * (32) vector columns a group, spread evenly (cpb = ceil(cols / ncg)), rpp = FD_CUDA_BLOCK / cpb
 * threads per column; thread (tx, ty) takes column cg * cpb + tx, rows rb * 4 rpp + ty + k rpp
 * (k = 0..3: the block's trip is 4 rpp consecutive rows), then + nrb * 4 rpp. The block's
 * cpb * FD_VEC channels' parameters are computed once per block, one channel per thread (HALF
 * cols 32: every thread one), into shared memory after the first trip's loads, and each thread
 * copies its FD_VEC channels' into registers. The grid: bn_iv_t.grid (batchnorm.cu: at most
 * BN_IV2_WAVES (2) full-occupancy waves, or FREEDNN_GPU_BN_IV2_BLOCKS).
 * Stampings: _bn0 (ops BN, beta 0: no y loads, no blend-with-y code, the fewest registers), _bn
 * (ops BN) and the general one. ptxas registers FLOAT / HALF / BFLOAT16, sm_90 (sm_80), no
 * spills, and the 256-thread blocks an SM they leave:
 *   nchw_bn0  48 / 56 / 72   (48 / 56 / 64):     5 / 4 / 3 blocks;
 *   nchw_bn   70 / 78 / 112  (70 / 75 / 78):     3 / 3 / 2;
 *   nchw      94 / 84 / 139  (88 / 82 / 86):     2 / 2 / 1;
 *   nhwc_bn0  80 / 76 / 99   (79 / 74 / 80):     3 / 3 / 2;
 *   nhwc_bn  103 / 106 / 142 (94 / 105 / 128):   2 / 2 / 1;
 *   nhwc     115 / 104 / 162 (112 / 106 / 110):  2 / 2 / 1.
 * (The first mapping, ops BN: nchw_bn 56 / 64 / 72 -> 4 / 4 / 3, nhwc_bn 80 / 80 / 102 -> 3 /
 * 3 / 2 blocks, but 1.5 vectors a thread and plane at n32 h56 w56 and, NHWC, FD_VEC 1 / sqrt
 * per thread for about 3 rows.) At HALF n32c256h56w56, NCHW: about 4 * 256 threads of 3-4
 * vectors in flight an SM (50 KiB) against 4 * 256 of 1-2 (25 KiB); NHWC (32 columns, rpp 8,
 * 3136 trips over the 2112 blocks of the 2-wave cap): 3 * 256 * 4 vectors (48 KiB), one
 * 1 / sqrt per thread against 8. */

typedef struct {
    FD_K(bn_vec_t) x[BN_IV2_K], z[BN_IV2_K], o[BN_IV2_K];
} FD_K(bn_iv2_buf_t);

/* Loads the first n vectors at off, off + step, ... (x, z with BN_ADD_ACTIVATION, y when
 * beta != 0; B0: beta is 0). */
template <bool PLAIN, bool B0>
static __device__ __forceinline__ void FD_K(bn_iv2_load)(const bn_iv_t &V, const FD_T *x,
                                                         const FD_T *z, const FD_T *y,
                                                         int64_t off, int64_t step, int n,
                                                         double beta, FD_K(bn_iv2_buf_t) & b)
{
    const int has_z = !PLAIN && V.ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
#pragma unroll
    for (int k = 0; k < BN_IV2_K; k++)
        if (k < n) {
            b.x[k] = *(const FD_K(bn_vec_t) *)(x + off + k * step);
            if (has_z)
                b.z[k] = *(const FD_K(bn_vec_t) *)(z + off + k * step);
            if (!B0 && beta != 0.0)
                b.o[k] = *(const FD_K(bn_vec_t) *)(y + off + k * step);
        }
}

/* y of the first n vectors at off, off + step, ... from b, channel set q[] (NCHW: q[0] for
 * every lane). */
template <bool PLAIN, bool B0>
static __device__ __forceinline__ void FD_K(bn_iv2_store)(const bn_iv_t &V, FD_T *y, int64_t off,
                                                          int64_t step, int n,
                                                          FD_K(bn_iv2_buf_t) & b,
                                                          const FD_K(bn_chan_t) * q, int per_lane,
                                                          double alpha, double beta)
{
    const int has_z = !PLAIN && V.ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
#pragma unroll
    for (int k = 0; k < BN_IV2_K; k++)
        if (k < n) {
            FD_K(bn_vec_t) o;
            if (!B0)
                o = b.o[k];
#pragma unroll
            for (int l = 0; l < FD_VEC; l++)
                FD_K(bn_iv_out)<PLAIN>(V, o.e, l, (FD_A)fd_cuda_ld(b.x[k].e, l),
                                       has_z ? (FD_A)fd_cuda_ld(b.z[k].e, l) : (FD_A)0,
                                       q[per_lane ? l : 0], alpha, B0 ? 0.0 : beta);
            uint4 u; /* one 128-bit store: nvcc split the NCHW kernels' struct store in 4-8 */
            memcpy(&u, &o, sizeof u);
            __stwb((uint4 *)(y + off + k * step), u);
        }
}

template <bool PLAIN, bool B0>
static __device__ __forceinline__ void
    FD_K(bn_iv2_nchw_body)(const bn_iv_t &V, const FD_T *x, const FD_T *z, FD_T *y,
                          const void *scalev, const void *biasv, const void *meanv,
                          const void *varv, double alpha, double beta)
{
    const int ppb = FD_CUDA_BLOCK / V.tpp;
    const int lane = threadIdx.x % V.tpp;
    const int64_t step = (int64_t)V.tpp * FD_VEC; /* elements between a thread's vectors */
    for (int64_t pc = (int64_t)blockIdx.x * ppb + threadIdx.x / V.tpp; pc < V.pieces;
         pc += (int64_t)gridDim.x * ppb) {
        const uint32_t pl = (uint32_t)pc / (uint32_t)V.nseg;
        const int64_t v0 = (int64_t)((uint32_t)pc - pl * (uint32_t)V.nseg) * V.segl;
        const int64_t v1 = v0 + V.segl < V.vps ? v0 + V.segl : V.vps;
        int64_t v = v0 + lane;
        if (v >= v1)
            continue;
        int64_t off = (int64_t)pl * V.s + v * FD_VEC;
        int n = (int)((v1 - v + V.tpp - 1) / V.tpp); /* this thread's vectors left */
        FD_K(bn_iv2_buf_t) b;
        FD_K(bn_iv2_load)<PLAIN, B0>(V, x, z, y, off, step, n, beta, b);
        const FD_K(bn_chan_t) q = FD_K(bn_iv_chan)(V, (int64_t)(pl % (uint32_t)V.c), scalev,
                                                   biasv, meanv, varv);
        for (;;) {
            FD_K(bn_iv2_store)<PLAIN, B0>(V, y, off, step, n, b, &q, 0, alpha, beta);
            n -= BN_IV2_K;
            if (n <= 0)
                break;
            off += BN_IV2_K * step;
            FD_K(bn_iv2_load)<PLAIN, B0>(V, x, z, y, off, step, n, beta, b);
        }
    }
}

template <bool PLAIN, bool B0>
static __device__ __forceinline__ void
    FD_K(bn_iv2_nhwc_body)(const bn_iv_t &V, const FD_T *x, const FD_T *z, FD_T *y,
                          const void *scalev, const void *biasv, const void *meanv,
                          const void *varv, double alpha, double beta)
{
    __shared__ FD_A par[4][BN_IV2_COLS * FD_VEC]; /* mean, 1 / std, scale, bias */
    const int cg = (int)(blockIdx.x % (unsigned)V.ncg);
    const int64_t rb = blockIdx.x / (unsigned)V.ncg;
    const int tx = threadIdx.x % V.cpb, ty = threadIdx.x / V.cpb;
    const int64_t col = (int64_t)cg * V.cpb + tx;
    const int64_t rpt = (int64_t)BN_IV2_K * V.rpp; /* rows of a block trip */
    const int64_t step = (int64_t)V.rpp * V.c;     /* elements between a thread's vectors */
    int64_t r = rb * rpt + ty;
    int64_t off = r * V.c + col * FD_VEC;
    /* this thread's rows left (0: idle) */
    int64_t n = ty < V.rpp && col < V.cols && r < V.rows ? (V.rows - r + V.rpp - 1) / V.rpp : 0;
    FD_K(bn_iv2_buf_t) b;
    FD_K(bn_iv2_load)<PLAIN, B0>(V, x, z, y, off, step, (int)(n < BN_IV2_K ? n : BN_IV2_K), beta,
                                 b);
    const int c0 = cg * V.cpb * FD_VEC;
    const int c1 = (cg * V.cpb + V.cpb < V.cols ? cg * V.cpb + V.cpb : V.cols) * FD_VEC;
    for (int i = threadIdx.x; i < c1 - c0; i += FD_CUDA_BLOCK) {
        const FD_K(bn_chan_t) t = FD_K(bn_iv_chan)(V, c0 + i, scalev, biasv, meanv, varv);
        par[0][i] = t.mean, par[1][i] = t.inv, par[2][i] = t.sc, par[3][i] = t.bi;
    }
    __syncthreads();
    if (n <= 0)
        return;
    FD_K(bn_chan_t) q[FD_VEC];
#pragma unroll
    for (int l = 0; l < FD_VEC; l++) {
        const int i = tx * FD_VEC + l;
        q[l].mean = par[0][i], q[l].inv = par[1][i], q[l].sc = par[2][i], q[l].bi = par[3][i];
        q[l].mg = 0, q[l].mgx = 0;
    }
    const int64_t skip = (int64_t)V.nrb * rpt; /* rows between a thread's trips */
    for (;;) {
        FD_K(bn_iv2_store)<PLAIN, B0>(V, y, off, step, (int)(n < BN_IV2_K ? n : BN_IV2_K), b, q, 1,
                                      alpha, beta);
        r += skip;
        if (r >= V.rows)
            break;
        off += skip * V.c;
        n = (V.rows - r + V.rpp - 1) / V.rpp;
        FD_K(bn_iv2_load)<PLAIN, B0>(V, x, z, y, off, step, (int)(n < BN_IV2_K ? n : BN_IV2_K),
                                     beta, b);
    }
}

/* _bn0: ops BN and beta 0 (no y loads, no blend code); _bn: ops BN; the general ones the
 * activations, z and any beta. */
#define FD_BN_IV2_KERNEL(name, body, plain, b0, minb)                                          \
    static __global__ void __launch_bounds__(FD_CUDA_BLOCK, minb)                               \
        FD_K(name)(const bn_iv_t V, const void *xv, const void *zv, void *yv,                  \
                   const void *scalev, const void *biasv, const void *meanv, const void *varv, \
                   double alpha, double beta)                                                  \
    {                                                                                          \
        FD_K(body)<plain, b0>(V, (const FD_T *)xv, (const FD_T *)zv, (FD_T *)yv, scalev, biasv, \
                              meanv, varv, alpha, beta);                                       \
    }
/* BFLOAT16 (its double -> bfloat16 rounding takes more registers) one block an SM fewer:
 * batchnorm.cu sets FD_BN_BF16_MINB_LESS 1 for that type */
#ifndef FD_BN_BF16_MINB_LESS
#define FD_BN_BF16_MINB_LESS 0
#endif
FD_BN_IV2_KERNEL(bn_iv2_nchw, bn_iv2_nchw_body, false, false, 2 - FD_BN_BF16_MINB_LESS)
FD_BN_IV2_KERNEL(bn_iv2_nchw_bn, bn_iv2_nchw_body, true, false, 3 - FD_BN_BF16_MINB_LESS)
FD_BN_IV2_KERNEL(bn_iv2_nchw_bn0, bn_iv2_nchw_body, true, true, 4 - FD_BN_BF16_MINB_LESS)
FD_BN_IV2_KERNEL(bn_iv2_nhwc, bn_iv2_nhwc_body, false, false, 2 - FD_BN_BF16_MINB_LESS)
FD_BN_IV2_KERNEL(bn_iv2_nhwc_bn, bn_iv2_nhwc_body, true, false, 2 - FD_BN_BF16_MINB_LESS)
FD_BN_IV2_KERNEL(bn_iv2_nhwc_bn0, bn_iv2_nhwc_body, true, true, 3 - FD_BN_BF16_MINB_LESS)
#undef FD_BN_BF16_MINB_LESS
#undef FD_BN_IV2_KERNEL
#undef FD_BN_IV_KERNEL

#ifdef FD_BN_IV3
/* ---- the lean inference pass (FREEDNN_GPU_BN_IV3, default 3: both; FLOAT, HALF, BFLOAT16) ---
 * The common call only (batchnorm.cu, bn_iv3_usable: ops BN, alpha 1, beta 0, the data
 * bn_iv_usable takes; NHWC C at most BN_IV3_NHWC_C): act_fwd_lean's shape, one 16-byte vector a
 * thread and trip, no blend code, so few registers and full occupancy. Each thread loads its
 * first vector first; the block's parameters are computed once per block into shared memory
 * meanwhile (bn_iv_chan: the same expressions), and each thread reads its channel's four with
 * 128-bit shared loads. The value is bn_iv_out's u written identically, stored with bn_st1s:
 * sd_blend's bits at alpha 1, beta 0 (one rounding of u), so the bits of bn_iv_* / bn_iv2_* /
 * bn_fwd_infer. y may be x (each vector is read and written by its own thread).
 * NCHW (bn_iv3_nchw): the grid covers the tensor, a vector a thread; a vector lies in one
 * plane; the block's FD_CUDA_BLOCK vectors span planes p0 .. p1 (at most FD_CUDA_BLOCK of them:
 * 2 at 56x56 HALF / FLOAT), thread t < p1 - p0 + 1 computes plane p0 + t's channel's
 * parameters into slot t (bn_lds4 reads them).
 * NHWC (bn_iv3_nhwc): block b takes V.r3 trips of FD_CUDA_BLOCK consecutive vectors from
 * b * r3 * FD_CUDA_BLOCK (batchnorm.cu, bn_iv3_trips: n32 56x56 on the H200 r3 = 6), thread t
 * vectors + t, + t + FD_CUDA_BLOCK, ... (one in flight, the next loaded after the store: the
 * lean kernels' one vector a thread); a vector holds FD_VEC consecutive channels of vector
 * column v % cols (stepped by FD_CUDA_BLOCK % cols a trip, no divide). The block builds all C
 * channels' table once: thread e < C builds entry e = l * cols + col (channel col * FD_VEC + l)
 * with 128-bit stores, and a warp's lanes (consecutive columns) read consecutive entries:
 * bn_tab_put / bn_tab_get's layout, no bank conflicts, 4 shared wavefronts a warp and
 * 128-bit load, 32 a warp's 32 vectors (one shared cycle a vector: about 45% of the SM's
 * shared pipe at 3.6 TB/s). The first bn_iv3_nhwc (f32 3623 -> 2439 GB/s against bn_iv2_nhwc
 * on the H200) built the table every FD_CUDA_BLOCK vectors (8 rows at C 256 HALF / 128 FLOAT:
 * a double 1 / sqrt per 1-2 vectors), with scalar stores 8-way conflicted, and FLOAT's 32-byte
 * entries read at a 32-byte lane stride took 8 wavefronts a 128-bit load: two shared cycles a
 * vector, about the whole pipe (a reading, not profiled; the r3-trip kernel ran f16 3465 GB/s, f32
 * 3536 against bn_iv2_nhwc's 2894 / 3643). Only the first vector and the thread's
 * vector index stay live across the table's divisions (a trip counter, not the block's end:
 * FLOAT had 40 registers, or spilled at 32).
 * Channels and planes in 32-bit arithmetic (bn_iv_usable: below 2^31 elements).
 * ptxas (CUDA 13) registers FLOAT / HALF / BFLOAT16, no spills, static shared memory:
 *   bn_iv3_nchw  sm_90 30 / 28 / 31, sm_80 30 / 27 / 27; 8 / 4 / 4 KiB;
 *   bn_iv3_nhwc  sm_90 32 / 32 / 32, sm_80 32 / 32 / 32; 8 / 8 / 8 KiB (launch bounds: 8
 *                blocks an SM, which bn_iv3_trips counts on);
 * so 8 blocks of 256 an SM (full occupancy; 64 KiB of shared memory at most). One 128-bit
 * global load and store a thread and trip (PTX ld / st.global.v4). */

/* Element l of a (x on entry) becomes y, with parameters w = (mean, inv, sc,
 * bi): bn_iv_out's u, written identically (the same contraction: sub, mul, fma). */
static __device__ __forceinline__ void FD_K(bn_iv3_apply)(FD_K(bn_vec_t) & a, const FD_A *w,
                                                         int l)
{
    const FD_K(bn_chan_t) q = {w[0], w[1], w[2], w[3], 0, 0};
    const FD_A xv = (FD_A)fd_cuda_ld(a.e, l);
    const FD_A u = q.sc * (xv - q.mean) * q.inv + q.bi;
    bn_st1s(a.e, l, u);
}

/* The 128-bit store of a to y[v] (one store: see bn_iv2_store). */
static __device__ __forceinline__ void FD_K(bn_iv3_put)(void *yv, uint32_t v,
                                                       const FD_K(bn_vec_t) & a)
{
    uint4 u;
    memcpy(&u, &a, sizeof u);
    ((uint4 *)yv)[v] = u;
}

static __global__ void __launch_bounds__(FD_CUDA_BLOCK)
    FD_K(bn_iv3_nchw)(const bn_iv_t V, const void *xv, void *yv, const void *scalev,
                      const void *biasv, const void *meanv, const void *varv)
{
    __shared__ __align__(4 * sizeof(FD_A)) FD_A sq[FD_CUDA_BLOCK][4]; /* mean, inv, sc, bi */
    const uint32_t nv = V.nv3, vps = V.div3, v0 = blockIdx.x * FD_CUDA_BLOCK;
    const uint32_t v = v0 + threadIdx.x, p0 = v0 / vps;
    FD_K(bn_vec_t) a;
    if (v < nv)
        a = ((const FD_K(bn_vec_t) *)xv)[v];
    const uint32_t last = (nv - v0 < FD_CUDA_BLOCK ? nv - 1 : v0 + FD_CUDA_BLOCK - 1) / vps;
    if (p0 + threadIdx.x <= last) {
        const uint32_t ch = (p0 + threadIdx.x) % (uint32_t)V.c;
        const FD_K(bn_chan_t) t = FD_K(bn_iv_chan)(V, ch, scalev, biasv, meanv, varv);
        sq[threadIdx.x][0] = t.mean, sq[threadIdx.x][1] = t.inv;
        sq[threadIdx.x][2] = t.sc, sq[threadIdx.x][3] = t.bi;
    }
    __syncthreads();
    if (v >= nv)
        return;
    FD_A w[4];
    bn_lds4(sq[v / vps - p0], w);
#pragma unroll
    for (int l = 0; l < FD_VEC; l++)
        FD_K(bn_iv3_apply)(a, w, l);
    FD_K(bn_iv3_put)(yv, v, a);
}

static __global__ void __launch_bounds__(FD_CUDA_BLOCK, 2048 / FD_CUDA_BLOCK)
    FD_K(bn_iv3_nhwc)(const bn_iv_t V, const void *xv, void *yv, const void *scalev,
                      const void *biasv, const void *meanv, const void *varv)
{
    enum { N = BN_IV3_NHWC_C(FD_VEC) }; /* table entries */
    /* channel col * FD_VEC + l's parameters at entry l * cols + col (bn_tab_put) */
    __shared__ __align__(16) FD_A sq[4 * N];
    const FD_K(bn_vec_t) *x = (const FD_K(bn_vec_t) *)xv;
    const uint32_t nv = V.nv3, cols = V.div3, span = V.r3 * FD_CUDA_BLOCK;
    uint32_t v = blockIdx.x * span + threadIdx.x;
    FD_K(bn_vec_t) a;
    if (v < nv) /* the first trip: v < the block's end when v < nv */
        a = x[v];
    for (uint32_t e = threadIdx.x; e < cols * FD_VEC; e += FD_CUDA_BLOCK) {
        const uint32_t l = e / cols, col = e - l * cols;
        const FD_K(bn_chan_t) t =
            FD_K(bn_iv_chan)(V, (int64_t)(col * FD_VEC + l), scalev, biasv, meanv, varv);
        bn_tab_put<N>(sq, e, t.mean, t.inv, t.sc, t.bi);
    }
    __syncthreads();
    if (v >= nv)
        return;
    uint32_t col = v % cols;
    for (uint32_t k = V.r3;;) { /* k: this block's trips left, counting this one */
#pragma unroll
        for (int l = 0; l < FD_VEC; l++) {
            FD_A w[4];
            bn_tab_get<N>(sq, l * cols + col, w);
            FD_K(bn_iv3_apply)(a, w, l);
        }
        FD_K(bn_iv3_put)(yv, v, a);
        v += FD_CUDA_BLOCK;
        if (--k == 0 || v >= nv)
            return;
        a = x[v];
        col += V.step3; /* (v + FD_CUDA_BLOCK) % cols: step3 = FD_CUDA_BLOCK % cols */
        col = col >= cols ? col - cols : col;
    }
}
#endif /* FD_BN_IV3 */

#ifdef FD_BN_CLUSTER
/* ---- the cluster kernels (bn_cl_t in batchnorm.cu; FLOAT, HALF, BFLOAT16 only) ---------------
 * bn_cl_train (training forward) and bn_cl_bwd (backward) share the mapping and the helpers
 * below. Mapping: a cluster of Q.k CTAs (2..16) per channel, cluster c = channel c, CTA rank r
 * takes the channel's member vectors [r * vpc, min((r + 1) * vpc, nv)) in N, H * W order (the
 * last CTAs may get fewer, or none): a split fixed by the shape alone. BN_CL_THREADS threads,
 * at least 2 CTAs an SM (launch bounds; at <= 64 registers and 52-KiB shares 4 fit; the 16-bit
 * training forward 8, BN_CL_TRAIN_MINB, for its 25-KiB shares), dynamic shared memory vpc * 16
 * bytes per copied tensor (x for the forward, x and dy for the backward: vpc * 32), at most 52
 * KiB (host: bn_cl_cap) or for larger channels BN_CL_CTA_BYTES (104 KiB), plus a few static
 * words; K (host: bn_cl_plan) the smallest of 2, 4, 8, 16 that fits, at least 8 while the
 * shares keep 16 KiB (n32 56x56: forward f16 K = 8, 25 KiB a CTA; f32 K = 8, backward f16 K = 8,
 * f32 K = 16, 49 KiB a CTA).
 * Every CTA, an empty one too, reaches every cluster barrier.
 * bn_cl_train:
 * 1. cp.async 16-byte copies of the share, DRAM -> shared memory, all in flight at once: x is
 *    read from DRAM once (bn_cl_load).
 * 2. One-pass shifted statistics over the shared copy (bn_cl_stats1): each thread sums x - s
 *    and its square over its vectors (i = t, t + 256, ...; lanes 0..VEC-1 in order) in FD_A,
 *    s = the channel's first element; a fixed warp butterfly, warp 0's xor tree over the 8
 *    warps, the CTA's partials into red[0..1]; a cluster sync (bn_cl_sync); lanes 0..K-1 of
 *    warp 0 read the K ranks' partials (DSMEM, __cluster_map_shared_rank) and a fixed xor tree
 *    adds them: every CTA gets the same bits (bn_cl_sum). FREEDNN_GPU_BN_CL_1PASS=0: bn_stats'
 *    two passes (bn_cl_stats: the mean, then the centred squares, two cluster syncs). Rank 0's
 *    thread 0 writes the running and saved statistics (bn_fwd_train's formulas).
 * 3. A cluster barrier arrive (this CTA is done reading the others' shared memory), y from the
 *    shared copy with 128-bit streaming stores (bn_pk_val's mode 0; alpha 1, beta 0 in the
 *    accumulator type only: bn_cl_out), the barrier's wait: no CTA leaves while another may
 *    still read its red[] words.
 *    Traffic per channel: N * H * W * size bytes read once, as many written (and read,
 *    beta != 0). ptxas sm_90: FLOAT 64 registers, HALF 32, BFLOAT16 32 (BN_CL_TRAIN_MINB),
 *    no spills, 160 / 80 bytes of static shared memory besides the share.
 * bn_cl_bwd:
 * 1. cp.async copies of the share of x (buf[0, vpc)) and of dy (buf[vpc, 2 vpc)): both read
 *    from DRAM once.
 * 2. Saved mean and 1 / std given: read; NULL: recomputed as bn_bwd does (bn_stats' two-pass
 *    statistics, inv = 1 / sqrt(var + epsilon) rounded to FD_A), by bn_cl_stats over the x copy
 *    (red[0], red[1], two cluster syncs).
 * 3. bn_bwd's gradient sums (g = dy * act'(u), sum g, sum g * xhat) over both copies, per thread
 *    in FD_A, both through one bn_cl_sum (red[2], red[3], one cluster sync); rank 0's thread 0
 *    blends dscale / dbias with alpha_param / beta_param (bn_bwd's sd_blend); each CTA's thread
 *    0 puts the means of g and g * xhat in stat[].
 * 4. Arrive, dx from the two copies with 128-bit streaming stores (bn_pk_val's mode 1; alpha
 *    1, beta 0 in the accumulator type only), wait.
 *    Traffic per channel: N * H * W * size bytes of x and of dy read once, dx written (and read,
 *    beta != 0): 3 N H W size against 5 for the per-tile and packed paths. ptxas sm_90: FLOAT
 *    64 registers, HALF 48, BFLOAT16 52, no spills, 192 / 96 bytes of static shared memory
 *    besides the shares.
 * On sm_80 the bodies are traps: the host launches them on compute capability 9.0+ only. */

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/* The cluster's sums of v[0..N) over all its threads, in every lane of warp 0 of every CTA
 * (the other threads get 0): per value a warp butterfly, warp 0 adds the 8 warps' partials (lane
 * w takes warp w's, an xor tree over 8 lanes) into red[0..N), one cluster sync, then lane r < k
 * of warp 0 reads rank r's partials through DSMEM (all of them in flight at once: one remote
 * latency, not k) and an xor tree over k lanes adds them. The same bits in every lane and every
 * CTA: each xor pair adds the same two values (IEEE addition commutes), the tree is fixed.
 * Every thread of the cluster calls it; wpart holds N * BN_CL_THREADS / 32 words.
 * dev/bn_cluster v1 / v4 (H200, 2026-12-03): the parallel rank reads and warp-0 reduce +2-4 %. */
template <int N>
static __device__ __forceinline__ void FD_K(bn_cl_sum)(FD_A *v, FD_A *wpart, FD_A *red, int k)
{
    const int nw = BN_CL_THREADS / 32, lane = threadIdx.x & 31;
#pragma unroll
    for (int j = 0; j < N; j++) {
        for (int o = 16; o > 0; o >>= 1)
            v[j] += __shfl_xor_sync(0xffffffffu, v[j], o);
        if (lane == 0)
            wpart[j * nw + (threadIdx.x >> 5)] = v[j];
    }
    __syncthreads();
    if (threadIdx.x < 32)
#pragma unroll
        for (int j = 0; j < N; j++) {
            FD_A t = lane < nw ? wpart[j * nw + lane] : (FD_A)0;
            for (int o = nw / 2; o > 0; o >>= 1)
                t += __shfl_xor_sync(0xffffffffu, t, o);
            if (lane == 0)
                red[j] = t;
        }
    bn_cl_sync();
    if (threadIdx.x < 32) {
        FD_A t[N];
#pragma unroll
        for (int j = 0; j < N; j++)
            t[j] = lane < k ? *(const FD_A *)__cluster_map_shared_rank(&red[j], (unsigned)lane)
                            : (FD_A)0;
        for (int o = k >> 1; o > 0; o >>= 1)
#pragma unroll
            for (int j = 0; j < N; j++)
                t[j] += __shfl_xor_sync(0xffffffffu, t[j], o);
#pragma unroll
        for (int j = 0; j < N; j++)
            v[j] = t[j];
    } else {
#pragma unroll
        for (int j = 0; j < N; j++)
            v[j] = 0;
    }
}

/* The CTA's share of x (and of dy, dy != NULL) into buf[0, nvl) (and buf[vpc, vpc + nvl)):
 * cp.async copies, all in flight at once; bn_cl_land waits for them. The kernels read their
 * scalars (the shift, scale, bias, saved statistics) between the two, so those global reads
 * wait under the share's loads instead of after them (dev/bn_cluster v11, H200 2026-12-03:
 * training +1-2 %, backward +6 %). */
static __device__ __forceinline__ void FD_K(bn_cl_load)(const bn_cl_t &Q, int64_t ch, uint32_t v0,
                                                        int nvl, FD_K(bn_vec_t) * buf,
                                                        const FD_T *x, const FD_T *dy)
{
    for (int i = threadIdx.x; i < nvl; i += BN_CL_THREADS) {
        const int64_t off = FD_K(bn_pk_off_nchw)(Q.P, ch, v0 + (uint32_t)i);
        bn_cl_cp16(&buf[i], x + off);
        if (dy != NULL)
            bn_cl_cp16(&buf[Q.vpc + i], dy + off);
    }
}

/* The channel's two-pass mean and biased variance over the cluster's copies of x, bn_stats'
 * formula in FD_A (bn_cl_sum into red[0], then red[1]): the mean to every thread; thread 0
 * gets *var and *inv_d = 1 / sqrt(var + epsilon) and sets stat[0] = mean, stat[1] = (FD_A)
 * *inv_d (seen by the CTA's threads after their next barrier). */
static __device__ __forceinline__ FD_A FD_K(bn_cl_stats)(const bn_cl_t &Q,
                                                         const FD_K(bn_vec_t) * buf, int nvl,
                                                         FD_A *wpart, FD_A *red, FD_A *stat,
                                                         FD_A *var, double *inv_d)
{
    FD_A s[1] = {0};
    for (int i = threadIdx.x; i < nvl; i += BN_CL_THREADS) {
        const FD_K(bn_vec_t) a = buf[i];
#pragma unroll
        for (int l = 0; l < FD_VEC; l++)
            s[0] += (FD_A)fd_cuda_ld(a.e, l);
    }
    FD_K(bn_cl_sum)<1>(s, wpart, &red[0], Q.k);
    if (threadIdx.x == 0)
        stat[0] = s[0] / (FD_A)Q.P.m;
    __syncthreads();
    const FD_A mean = stat[0];

    FD_A q[1] = {0};
    for (int i = threadIdx.x; i < nvl; i += BN_CL_THREADS) {
        const FD_K(bn_vec_t) a = buf[i];
#pragma unroll
        for (int l = 0; l < FD_VEC; l++) {
            const FD_A d = (FD_A)fd_cuda_ld(a.e, l) - mean;
            q[0] += d * d;
        }
    }
    FD_K(bn_cl_sum)<1>(q, wpart, &red[1], Q.k);
    if (threadIdx.x == 0) {
        *var = q[0] / (FD_A)Q.P.m;
        *inv_d = 1.0 / sqrt((double)*var + Q.P.eps);
        stat[1] = (FD_A)*inv_d;
    }
    return mean;
}

/* The training forward's statistics in one cluster reduction (bn_cl_sum of two values): per
 * thread the sum and the sum of squares of d = x - s in FD_A, s = x0 the channel's first element
 * x[0, c, 0, 0] read by the caller (0 when it is not finite, so an Inf or NaN in x gives
 * bn_stats' mean);
 * mean = s + S1 / m, var = max(0, (S2 - S1^2 / m) / m). The shift keeps the cancellation to the
 * spread of the data about one of its own values (FLOAT accumulates in double; HALF / BFLOAT16 in
 * float: dev/bn_cluster's double reference saw <= 2.8e-7 relative on the mean and variance, the
 * two passes 1.8e-7). Thread 0 gets *var, *inv_d and sets stat[0] = mean, stat[1] = (FD_A)
 * *inv_d (seen by the CTA after its next barrier); the others get mean 0. Q.two_pass
 * (FREEDNN_GPU_BN_CL_1PASS=0) takes bn_cl_stats' two passes instead. dev/bn_cluster v2 (H200,
 * 2026-12-03): one cluster reduction instead of two, +5 % HALF, +7 % FLOAT training. */
static __device__ __forceinline__ FD_A FD_K(bn_cl_stats1)(const bn_cl_t &Q, FD_A x0,
                                                          const FD_K(bn_vec_t) * buf, int nvl,
                                                          FD_A *wpart, FD_A *red, FD_A *stat,
                                                          FD_A *var, double *inv_d)
{
    if (Q.two_pass)
        return FD_K(bn_cl_stats)(Q, buf, nvl, wpart, red, stat, var, inv_d);
    const FD_A sft = isfinite((double)x0) ? x0 : (FD_A)0;
    FD_A a[2] = {0, 0};
    for (int i = threadIdx.x; i < nvl; i += BN_CL_THREADS) {
        const FD_K(bn_vec_t) e = buf[i];
#pragma unroll
        for (int l = 0; l < FD_VEC; l++) {
            const FD_A d = (FD_A)fd_cuda_ld(e.e, l) - sft;
            a[0] += d;
            a[1] += d * d;
        }
    }
    FD_K(bn_cl_sum)<2>(a, wpart, red, Q.k);
    FD_A mean = 0;
    if (threadIdx.x == 0) {
        const FD_A m = (FD_A)Q.P.m;
        mean = sft + a[0] / m;
        const FD_A v = (a[1] - a[0] * a[0] / m) / m;
        *var = v < (FD_A)0 ? (FD_A)0 : v; /* NaN stays NaN */
        *inv_d = 1.0 / sqrt((double)*var + Q.P.eps);
        stat[0] = mean;
        stat[1] = (FD_A)*inv_d;
    }
    return mean;
}
#endif

/* y (mode 0) or dx (mode 1) of the CTA's share from its shared copies, 128-bit streaming
 * stores (st.global.cs: nothing reads them again in this kernel; out read first when
 * beta != 0). PLAIN (ops BN, alpha 1, beta 0: bn_cl_apply decides once): bn_pk_out_k<true>. */
template <bool PLAIN>
static __device__ __forceinline__ void
FD_K(bn_cl_apply_k)(const bn_cl_t &Q, int mode, int64_t ch, uint32_t v0, int nvl,
                    const FD_K(bn_vec_t) * buf, FD_T *__restrict__ out, const FD_K(bn_chan_t) & q,
                    double alpha, double beta)
{
    for (int i = threadIdx.x; i < nvl; i += BN_CL_THREADS) {
        const int64_t off = FD_K(bn_pk_off_nchw)(Q.P, ch, v0 + (uint32_t)i);
        const FD_K(bn_vec_t) a = buf[i];
        FD_K(bn_vec_t) d, o;
        if (mode == 1)
            d = buf[Q.vpc + i];
        if (!PLAIN && beta != 0.0)
            o = *(const FD_K(bn_vec_t) *)(out + off);
#pragma unroll
        for (int l = 0; l < FD_VEC; l++)
            FD_K(bn_pk_out_k)<PLAIN>(Q.P, mode, o.e, l, (FD_A)fd_cuda_ld(a.e, l),
                                     mode == 1 ? (FD_A)fd_cuda_ld(d.e, l) : (FD_A)0, q, alpha,
                                     beta);
        uint4 u;
        memcpy(&u, &o, sizeof u);
        __stcs((uint4 *)(out + off), u);
    }
}
static __device__ __forceinline__ void
FD_K(bn_cl_apply)(const bn_cl_t &Q, int mode, int64_t ch, uint32_t v0, int nvl,
                  const FD_K(bn_vec_t) * buf, FD_T *__restrict__ out, const FD_K(bn_chan_t) & q,
                  double alpha, double beta)
{
    if (Q.P.ops == CUDNN_BATCHNORM_OPS_BN && alpha == 1.0 && beta == 0.0)
        FD_K(bn_cl_apply_k)<true>(Q, mode, ch, v0, nvl, buf, out, q, alpha, beta);
    else
        FD_K(bn_cl_apply_k)<false>(Q, mode, ch, v0, nvl, buf, out, q, alpha, beta);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
extern __shared__ FD_K(bn_vec_t) FD_K(bn_cl_buf)[]; /* the CTA's share of x (and of dy) */
#endif

static __global__ void __launch_bounds__(BN_CL_THREADS, BN_CL_TRAIN_MINB(sizeof(FD_T)))
    FD_K(bn_cl_train)(const bn_cl_t Q, const void *xv, void *yv, const void *scalev,
                      const void *biasv, void *run_meanv, void *run_varv, void *save_meanv,
                      void *save_invv, double factor, double alpha, double beta)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ FD_A wpart[2 * BN_CL_THREADS / 32];
    __shared__ FD_A red[2];  /* this CTA's partials (bn_cl_stats1; read via DSMEM) */
    __shared__ FD_A stat[2]; /* the channel's mean and 1 / std, for this CTA's threads */
    FD_K(bn_vec_t) *buf = FD_K(bn_cl_buf);
    const unsigned rank = __clusterRelativeBlockRank();
    const int64_t ch = blockIdx.x / (unsigned)Q.k;
    uint32_t v0;
    const int nvl = bn_cl_share(Q, rank, &v0);

    FD_K(bn_cl_load)(Q, ch, v0, nvl, buf, (const FD_T *)xv, NULL);
    FD_K(bn_chan_t) qc; /* the scalars read while the share lands */
    const FD_A x0 = (FD_A)fd_cuda_ld((const FD_T *)xv + FD_K(bn_pk_off_nchw)(Q.P, ch, 0), 0);
    qc.sc = (FD_A)((const FD_P *)scalev)[ch * Q.P.sbs];
    qc.bi = (FD_A)((const FD_P *)biasv)[ch * Q.P.sbs];
    qc.mg = 0, qc.mgx = 0;
    bn_cl_land();
    FD_A var = 0;
    double inv_d = 0;
    const FD_A mean = FD_K(bn_cl_stats1)(Q, x0, buf, nvl, wpart, red, stat, &var, &inv_d);
    if (threadIdx.x == 0 && rank == 0)
        FD_K(bn_put_stats)(ch * Q.P.mvs, Q.P.m, mean, var, inv_d, factor, run_meanv, run_varv,
                           save_meanv, save_invv);
    /* this CTA is done with the others' shared memory (release: after thread 0's reads) */
    __cluster_barrier_arrive();
    __syncthreads();

    qc.mean = stat[0];
    qc.inv = stat[1];
    FD_K(bn_cl_apply)(Q, 0, ch, v0, nvl, buf, (FD_T *)yv, qc, alpha, beta);
    __cluster_barrier_wait();
#else
    (void)Q, (void)xv, (void)yv, (void)scalev, (void)biasv, (void)run_meanv, (void)run_varv;
    (void)save_meanv, (void)save_invv, (void)factor, (void)alpha, (void)beta;
    __trap(); /* the host launches it on compute capability 9.0 and later only */
#endif
}

/* The thread's sums of g and g * xhat over its vectors of the share (x at buf, dy at buf +
 * Q.vpc); PLAIN: ops BN (bn_pk_acc_dy), else bn_pk_acc's mode 1. */
template <bool PLAIN>
static __device__ __forceinline__ void FD_K(bn_cl_gsum)(const bn_cl_t &Q,
                                                        const FD_K(bn_vec_t) * buf, int nvl,
                                                        const FD_K(bn_chan_t) & qc, FD_A *g)
{
    for (int i = threadIdx.x; i < nvl; i += BN_CL_THREADS) {
        const FD_K(bn_vec_t) a = buf[i], d = buf[Q.vpc + i];
#pragma unroll
        for (int l = 0; l < FD_VEC; l++) {
            const FD_A xv = (FD_A)fd_cuda_ld(a.e, l), dv = (FD_A)fd_cuda_ld(d.e, l);
            if (PLAIN)
                FD_K(bn_pk_acc_dy)(xv, dv, qc, &g[0], &g[1]);
            else
                FD_K(bn_pk_acc)(Q.P, 1, xv, dv, (FD_A)0, qc, &g[0], &g[1]);
        }
    }
}

static __global__ void __launch_bounds__(BN_CL_THREADS, 2)
    FD_K(bn_cl_bwd)(const bn_cl_t Q, const void *xv, const void *dyv, void *dxv,
                    const void *scalev, const void *biasv, const void *meanv, const void *invv,
                    void *dscalev, void *dbiasv, double alpha, double beta, double alpha_p,
                    double beta_p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ FD_A wpart[2 * BN_CL_THREADS / 32];
    __shared__ FD_A red[4];  /* sum x, sum (x - mean)^2 (NULL saved statistics), sum g, g xhat */
    __shared__ FD_A stat[4]; /* mean, 1 / std, the means of g and g * xhat */
    FD_K(bn_vec_t) *buf = FD_K(bn_cl_buf);
    const unsigned rank = __clusterRelativeBlockRank();
    const int64_t ch = blockIdx.x / (unsigned)Q.k;
    uint32_t v0;
    const int nvl = bn_cl_share(Q, rank, &v0);

    FD_K(bn_cl_load)(Q, ch, v0, nvl, buf, (const FD_T *)xv, (const FD_T *)dyv);
    FD_K(bn_chan_t) qc; /* the scalars read while the shares land */
    qc.sc = (FD_A)((const FD_P *)scalev)[ch * Q.P.sbs];
    qc.bi = biasv != NULL ? (FD_A)((const FD_P *)biasv)[ch * Q.P.sbs] : (FD_A)0;
    qc.mg = 0, qc.mgx = 0;
    if (meanv != NULL) {
        qc.mean = (FD_A)((const FD_P *)meanv)[ch * Q.P.mvs];
        qc.inv = (FD_A)((const FD_P *)invv)[ch * Q.P.mvs];
    }
    bn_cl_land();
    if (meanv == NULL) {
        FD_A var = 0;
        double inv_d = 0;
        qc.mean = FD_K(bn_cl_stats)(Q, buf, nvl, wpart, red, stat, &var, &inv_d);
        __syncthreads();
        qc.inv = stat[1];
    }
    FD_A g[2] = {0, 0}; /* sum g, sum g * xhat */
    if (Q.P.ops == CUDNN_BATCHNORM_OPS_BN) /* g = dy: no activation test in the lanes */
        FD_K(bn_cl_gsum)<true>(Q, buf, nvl, qc, g);
    else
        FD_K(bn_cl_gsum)<false>(Q, buf, nvl, qc, g);
    FD_K(bn_cl_sum)<2>(g, wpart, &red[2], Q.k);
    if (threadIdx.x == 0) {
        if (rank == 0) {
            sd_blend((FD_P *)dscalev, ch * Q.P.sbs, alpha_p, beta_p, (double)g[1]);
            sd_blend((FD_P *)dbiasv, ch * Q.P.sbs, alpha_p, beta_p, (double)g[0]);
        }
        stat[2] = g[0] / (FD_A)Q.P.m;
        stat[3] = g[1] / (FD_A)Q.P.m;
    }
    /* this CTA is done with the others' shared memory (release: after thread 0's reads) */
    __cluster_barrier_arrive();
    __syncthreads();

    qc.mg = stat[2], qc.mgx = stat[3];
    FD_K(bn_cl_apply)(Q, 1, ch, v0, nvl, buf, (FD_T *)dxv, qc, alpha, beta);
    __cluster_barrier_wait();
#else
    (void)Q, (void)xv, (void)dyv, (void)dxv, (void)scalev, (void)biasv, (void)meanv, (void)invv;
    (void)dscalev, (void)dbiasv, (void)alpha, (void)beta, (void)alpha_p, (void)beta_p;
    __trap(); /* the host launches it on compute capability 9.0 and later only */
#endif
}
#endif /* FD_BN_CLUSTER */

#undef FD_VEC

#undef FD_K
#undef FD_CAT
#undef FD_CAT2
