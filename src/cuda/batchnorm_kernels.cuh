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

#undef FD_K
#undef FD_CAT
#undef FD_CAT2
