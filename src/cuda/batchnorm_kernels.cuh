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
            if (write_stats) {
                const double keep = 1.0 - factor;
                /* unbiased: var * M / (M - 1), NaN for M = 1 as the ref and cuDNN 9.19 */
                const double unbiased = (double)var * (double)G.m / (double)(G.m - 1);
                if (run_meanv != NULL)
                    sd_blend((FD_P *)run_meanv, po, factor, keep, (double)mean);
                if (run_varv != NULL)
                    sd_blend((FD_P *)run_varv, po, factor, keep, unbiased);
                if (save_meanv != NULL) {
                    sd_st((FD_P *)save_meanv, po, (double)mean);
                    sd_st((FD_P *)save_invv, po, inv_d);
                }
            }
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

/* Mode 0: alpha * act(scale * xhat + bias) + beta * y; mode 1: alpha * dx + beta * dx (alpha 1,
 * beta 0: bn_st1, the same bits). */
static __device__ __forceinline__ void FD_K(bn_pk_out)(const bn_pk_t &P, int mode, FD_T *o, int j,
                                                       FD_A xv, FD_A dyv, const FD_K(bn_chan_t) & q,
                                                       double alpha, double beta)
{
    FD_A v;
    if (mode == 0) {
        const FD_A u = q.sc * (xv - q.mean) * q.inv + q.bi;
        v = P.ops == CUDNN_BATCHNORM_OPS_BN ? u : bn_act_fwd(P.act, u);
    } else {
        const FD_A xhat = (xv - q.mean) * q.inv;
        const FD_A gi = FD_K(bn_pk_grad)(P, dyv, xhat, q);
        v = q.sc * q.inv * (gi - q.mg - xhat * q.mgx);
    }
    if (alpha == 1.0 && beta == 0.0)
        bn_st1(o, j, v);
    else
        sd_blend(o, j, alpha, beta, (double)v);
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

/* Pass 1 (NCHW): per (channel, chunk) partial sums into ws + 4 C. dy is read in mode 1. */
static __global__ void FD_K(bn_pk_part_nchw)(const bn_pk_t P, int mode, const void *xv,
                                             const void *dyv, const void *scalev,
                                             const void *biasv, const void *smeanv,
                                             const void *sinvv, void *wsv)
{
    __shared__ FD_A p1[FD_CUDA_BLOCK], p2[FD_CUDA_BLOCK];
    const FD_T *__restrict__ x = (const FD_T *)xv;
    const FD_T *__restrict__ dy = (const FD_T *)dyv;
    FD_A *ws = (FD_A *)wsv;
    const int64_t ch = blockIdx.x / P.nch, j = blockIdx.x % P.nch;
    const int t = threadIdx.x;
    FD_K(bn_chan_t) q = {0, 0, 0, 0, 0, 0};
    FD_A k = 0;
    if (mode == 0)
        k = (FD_A)fd_cuda_ld(x, ch * P.s);
    else
        q = FD_K(bn_pk_chan)(P, ch, scalev, biasv, smeanv, sinvv, ws, 0);
    const int64_t k1 = j * P.cm + P.cm < P.m ? j * P.cm + P.cm : P.m;
    const int64_t v0 = j * P.cm / FD_VEC, v1 = k1 / FD_VEC;
    FD_A s1 = 0, s2 = 0;
    for (int64_t vi = v0 + t; vi < v1; vi += FD_CUDA_BLOCK) {
        const int64_t off = FD_K(bn_pk_off_nchw)(P, ch, vi);
        const FD_K(bn_vec_t) xa = *(const FD_K(bn_vec_t) *)(x + off);
        FD_K(bn_vec_t) da;
        if (mode == 1)
            da = *(const FD_K(bn_vec_t) *)(dy + off);
#pragma unroll
        for (int l = 0; l < FD_VEC; l++)
            FD_K(bn_pk_acc)(P, mode, (FD_A)fd_cuda_ld(xa.e, l),
                            mode == 1 ? (FD_A)fd_cuda_ld(da.e, l) : (FD_A)0, k, q, &s1, &s2);
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

/* Pass 1 (NHWC): per (column group, chunk); each thread sums FD_VEC channels over its rows,
 * the rows of one column meet in a fixed tree. */
static __global__ void FD_K(bn_pk_part_nhwc)(const bn_pk_t P, int mode, const void *xv,
                                             const void *dyv, const void *scalev,
                                             const void *biasv, const void *smeanv,
                                             const void *sinvv, void *wsv)
{
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
    /* rows of one column: shared slot (ty * cpb + tx) * FD_VEC + l, a tree over ty */
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

/* Pass 2: one warp per channel adds its chunks' partials (lane i: chunks i, i + 32, ..., then
 * a fixed butterfly; lane 0's total is used). Mode 0: mean, variance, 1 / std (ws, running
 * and saved statistics when write_stats); mode 1: dscale, dbias and the means of g and
 * g * xhat (ws). */
static __global__ void FD_K(bn_pk_combine)(const bn_pk_t P, int mode, const void *xv, void *wsv,
                                           int write_stats, void *run_meanv, void *run_varv,
                                           void *save_meanv, void *save_invv, double factor,
                                           void *dscalev, void *dbiasv, double alpha_p,
                                           double beta_p)
{
    FD_A *ws = (FD_A *)wsv;
    const int lane = threadIdx.x % 32;
    const int64_t ch = (int64_t)blockIdx.x * (FD_CUDA_BLOCK / 32) + threadIdx.x / 32;
    if (ch >= P.c)
        return; /* whole warps: the shuffles below see full warps only */
    const FD_A *part = ws + 4 * P.c + ch * P.nch * 2;
    FD_A s1 = 0, s2 = 0;
    for (int64_t j = lane; j < P.nch; j += 32) {
        s1 += part[2 * j];
        s2 += part[2 * j + 1];
    }
    for (int o = 16; o > 0; o >>= 1) {
        s1 += __shfl_xor_sync(0xffffffffu, s1, o);
        s2 += __shfl_xor_sync(0xffffffffu, s2, o);
    }
    if (lane != 0)
        return;
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
        if (write_stats) {
            const int64_t po = ch * P.mvs;
            const double keep = 1.0 - factor;
            const double unbiased = (double)var * (double)P.m / (double)(P.m - 1);
            if (run_meanv != NULL)
                sd_blend((FD_P *)run_meanv, po, factor, keep, (double)mean);
            if (run_varv != NULL)
                sd_blend((FD_P *)run_varv, po, factor, keep, unbiased);
            if (save_meanv != NULL) {
                sd_st((FD_P *)save_meanv, po, (double)mean);
                sd_st((FD_P *)save_invv, po, inv_d);
            }
        }
    } else {
        const int64_t so = ch * P.sbs;
        sd_blend((FD_P *)dscalev, so, alpha_p, beta_p, (double)s2);
        sd_blend((FD_P *)dbiasv, so, alpha_p, beta_p, (double)s1);
        ws[4 * ch + 2] = s1 / m;
        ws[4 * ch + 3] = s2 / m;
    }
}

/* Pass 3 (NCHW): y (mode 0) or dx (mode 1) of the block's chunk, one vector per thread per
 * trip; outv may be xv or dyv (in place: each element is read before it is written). */
static __global__ void FD_K(bn_pk_apply_nchw)(const bn_pk_t P, int mode, const void *xv,
                                              const void *dyv, void *outv, const void *scalev,
                                              const void *biasv, const void *smeanv,
                                              const void *sinvv, const void *wsv, double alpha,
                                              double beta)
{
    const FD_T *x = (const FD_T *)xv;
    const FD_T *dy = (const FD_T *)dyv;
    FD_T *out = (FD_T *)outv;
    const int64_t ch = blockIdx.x / P.nch, j = blockIdx.x % P.nch;
    const FD_K(bn_chan_t) q = FD_K(bn_pk_chan)(P, ch, scalev, biasv, smeanv, sinvv,
                                               (const FD_A *)wsv, mode == 1);
    const int64_t k1 = j * P.cm + P.cm < P.m ? j * P.cm + P.cm : P.m;
    const int64_t v0 = j * P.cm / FD_VEC, v1 = k1 / FD_VEC;
    for (int64_t vi = v0 + threadIdx.x; vi < v1; vi += FD_CUDA_BLOCK) {
        const int64_t off = FD_K(bn_pk_off_nchw)(P, ch, vi);
        const FD_K(bn_vec_t) xa = *(const FD_K(bn_vec_t) *)(x + off);
        FD_K(bn_vec_t) da, o;
        if (mode == 1)
            da = *(const FD_K(bn_vec_t) *)(dy + off);
        if (beta != 0.0)
            o = *(const FD_K(bn_vec_t) *)(out + off);
#pragma unroll
        for (int l = 0; l < FD_VEC; l++)
            FD_K(bn_pk_out)(P, mode, o.e, l, (FD_A)fd_cuda_ld(xa.e, l),
                            mode == 1 ? (FD_A)fd_cuda_ld(da.e, l) : (FD_A)0, q, alpha, beta);
        *(FD_K(bn_vec_t) *)(out + off) = o;
    }
}

/* Pass 3 (NHWC): the blocks of pass 1, each thread its FD_VEC channels over its rows. */
static __global__ void FD_K(bn_pk_apply_nhwc)(const bn_pk_t P, int mode, const void *xv,
                                              const void *dyv, void *outv, const void *scalev,
                                              const void *biasv, const void *smeanv,
                                              const void *sinvv, const void *wsv, double alpha,
                                              double beta)
{
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
#undef FD_BN_IV_KERNEL

#undef FD_VEC

#undef FD_K
#undef FD_CAT
#undef FD_CAT2
