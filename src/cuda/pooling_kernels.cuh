/* SPDX-License-Identifier: MIT */
/*
 * pooling_kernels.cuh - the kernels of pooling.cu for one storage type. pooling.cu includes this
 * once per type with FD_T (storage), FD_ACC (what a max compares in: float, double for DOUBLE)
 * and FD_SFX (name suffix: f32, f64, f16, bf16) defined. Nothing else includes it.
 *
 * Both kernels walk their outputs with a grid-stride loop in 64-bit indices, in the order
 * pool_geom_t.c_inner picks (C innermost for channels-last outputs, W innermost otherwise) so
 * consecutive threads write consecutive addresses in both packed layouts.
 */

#define FD_K(name) FD_CUDA_CAT(name, FD_SFX)

/* Max of window w of (n, c): the value (the first NaN with PROPAGATE_NAN, else the largest
 * non-NaN value, else the start value) and the first position holding it (src/ref's rule:
 * the first position >= the start value, then strictly greater ones; a NaN ends the scan). */
static __device__ __forceinline__ FD_ACC FD_K(window_max)(const pool_geom_t &g, const FD_T *xc,
                                                          const pool_window_t &w, int64_t *pos,
                                                          int *found)
{
    const fd_pool_problem_t &p = g.p;
    FD_ACC m = (FD_ACC)g.lowest;
    *found = 0;
    for (int64_t i0 = w.lo[0]; i0 < w.hi[0]; i0++)
        for (int64_t i1 = w.lo[1]; i1 < w.hi[1]; i1++)
            for (int64_t i2 = w.lo[2]; i2 < w.hi[2]; i2++) {
                const FD_ACC v = fd_cuda_ld(xc, i0 * p.xs[2] + i1 * p.xs[3] + i2 * p.xs[4]);
                if (v != v) {
                    if (!p.propagate_nan)
                        continue;
                    pos[0] = i0, pos[1] = i1, pos[2] = i2;
                    *found = 1;
                    return v;
                }
                if (*found ? v > m : v >= m) {
                    m = v;
                    pos[0] = i0, pos[1] = i1, pos[2] = i2;
                    *found = 1;
                }
            }
    return m;
}

/* Sum of the readable positions of window w, in double and in src/ref's order, so an average
 * is bit-identical to the reference. */
static __device__ __forceinline__ double FD_K(window_sum)(const fd_pool_problem_t &p,
                                                          const FD_T *xc, const pool_window_t &w)
{
    double s = 0.0;
    for (int64_t i0 = w.lo[0]; i0 < w.hi[0]; i0++)
        for (int64_t i1 = w.lo[1]; i1 < w.hi[1]; i1++)
            for (int64_t i2 = w.lo[2]; i2 < w.hi[2]; i2++)
                s += (double)fd_cuda_ld(xc, i0 * p.xs[2] + i1 * p.xs[3] + i2 * p.xs[4]);
    return s;
}

/* y[n, c, o] = the window's max or average, blended; one thread per y element. */
static __global__ void FD_K(pool_fwd)(const pool_geom_t g, const void *xv, void *yv, double alpha,
                                      double beta)
{
    const fd_pool_problem_t &p = g.p;
    const FD_T *__restrict__ x = (const FD_T *)xv;
    FD_T *__restrict__ y = (FD_T *)yv;
    const int64_t total = p.n * p.c * p.out[0] * p.out[1] * p.out[2];
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t o[3], n, c;
        if (g.idx32)
            pool_unflatten32((uint32_t)p.c, p.out, g.c_inner, (uint32_t)e, &n, &c, o);
        else
            pool_unflatten(p.c, p.out, g.c_inner, e, &n, &c, o);
        pool_window_t w;
        pool_window_of(p, o, &w);
        const FD_T *xc = x + n * p.xs[0] + c * p.xs[1];
        double v;
        if (g.is_max) {
            int64_t pos[3];
            int found;
            v = (double)FD_K(window_max)(g, xc, w, pos, &found);
        } else {
            const double cnt = g.include_pad ? w.padded : w.readable;
            v = cnt > 0 ? FD_K(window_sum)(p, xc, w) / cnt : 0.0;
        }
        fd_cuda_blend(y, n * p.ys[0] + c * p.ys[1] + o[0] * p.ys[2] + o[1] * p.ys[3] +
                             o[2] * p.ys[4],
                      alpha, beta, v);
    }
}

/* dx[n, c, i] = sum over the windows o that cover i of dy[n, c, o] routed to i: the whole
 * dy / count for the averages, dy when i is the window's (recomputed) argmax for max. A
 * gather: one thread per dx element, windows in ascending D, H, W order, sum in double as
 * src/ref, so the result is bit-identical to it and needs no atomics. */
static __global__ void FD_K(pool_bwd)(const pool_geom_t g, const void *xv, const void *dyv,
                                      void *dxv, double alpha, double beta)
{
    const fd_pool_problem_t &p = g.p;
    const FD_T *__restrict__ x = (const FD_T *)xv;
    const FD_T *__restrict__ dy = (const FD_T *)dyv;
    FD_T *__restrict__ dx = (FD_T *)dxv;
    const int64_t total = p.n * p.c * p.in[0] * p.in[1] * p.in[2];
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t i[3], n, c, olo[3], ohi[3];
        if (g.idx32)
            pool_unflatten32((uint32_t)p.c, p.in, g.c_inner, (uint32_t)e, &n, &c, i);
        else
            pool_unflatten(p.c, p.in, g.c_inner, e, &n, &c, i);
        int empty = 0;
        for (int d = 0; d < 3; d++) {
            const int64_t rlo = pool_max64(0, -p.pad[d]);
            const int64_t rhi = pool_min64(p.in[d], p.in[d] + p.pad[d]);
            olo[d] = pool_max64(0, pool_floor_div(i[d] + p.pad[d] - p.win[d], p.stride[d]) + 1);
            ohi[d] = pool_min64(p.out[d] - 1, pool_floor_div(i[d] + p.pad[d], p.stride[d]));
            if (i[d] < rlo || i[d] >= rhi || olo[d] > ohi[d])
                empty = 1;
        }
        const FD_T *xc = x + n * p.xs[0] + c * p.xs[1];
        const FD_T *dyc = dy + n * p.dys[0] + c * p.dys[1];
        double acc = 0.0;
        if (!empty) {
            int64_t o[3];
            for (o[0] = olo[0]; o[0] <= ohi[0]; o[0]++)
                for (o[1] = olo[1]; o[1] <= ohi[1]; o[1]++)
                    for (o[2] = olo[2]; o[2] <= ohi[2]; o[2]++) {
                        pool_window_t w;
                        pool_window_of(p, o, &w);
                        const double gv = (double)fd_cuda_ld(
                            dyc, o[0] * p.dys[2] + o[1] * p.dys[3] + o[2] * p.dys[4]);
                        if (g.is_max) {
                            int64_t pos[3];
                            int found;
                            FD_K(window_max)(g, xc, w, pos, &found);
                            if (found && pos[0] == i[0] && pos[1] == i[1] && pos[2] == i[2])
                                acc += gv;
                        } else {
                            acc += gv / (g.include_pad ? w.padded : w.readable);
                        }
                    }
        }
        fd_cuda_blend(dx, n * p.dxs[0] + c * p.dxs[1] + i[0] * p.dxs[2] + i[1] * p.dxs[3] +
                              i[2] * p.dxs[4],
                      alpha, beta, acc);
    }
}

/* ---- max backward by tiles (pool_bwd_tile) --------------------------------------------------
 * The gather above recomputes a window's argmax once per dx element the window covers (9 times
 * for 3x3), with 64-bit index arithmetic. Here a block owns a POOL_TILE_H x POOL_TILE_W tile of
 * one (n, c) plane of a 2-d (or 1-d) problem: phase 1 computes the argmax of every window that
 * overlaps the tile once (window_max's rule and scan order, 32-bit positions) into shared
 * memory, phase 2 gives each dx element of the tile the sum, in double and in ascending window
 * order, of dy over the windows whose argmax it is: the gather's result, the same bits. Phase 1
 * also copies each window's dy into shared memory, so phase 2 reads nothing from global memory
 * but its dx blend; tiles of 32 x 64 amortise the halo windows.
 * pooling.cu takes it for MAX / MAX_DETERMINISTIC with W innermost (not channels-last), 32-bit
 * extents and at most POOL_TILE_WIN overlapping windows per tile. */
static __global__ void FD_K(pool_bwd_tile)(const pool_geom_t g, const void *xv, const void *dyv,
                                           void *dxv, double alpha, double beta, int tiles_h,
                                           int tiles_w)
{
    __shared__ int arg[POOL_TILE_WIN];
    __shared__ FD_T gdy[POOL_TILE_WIN]; /* each window's dy, loaded once in phase 1 */
    const fd_pool_problem_t &p = g.p;
    const FD_T *__restrict__ x = (const FD_T *)xv;
    const FD_T *__restrict__ dy = (const FD_T *)dyv;
    FD_T *__restrict__ dx = (FD_T *)dxv;
    const int in_h = (int)p.in[1], in_w = (int)p.in[2], out_h = (int)p.out[1], out_w = (int)p.out[2];
    const int win_h = (int)p.win[1], win_w = (int)p.win[2], pad_h = (int)p.pad[1], pad_w = (int)p.pad[2];
    const int s_h = (int)p.stride[1], s_w = (int)p.stride[2];
    const uint32_t tiles = (uint32_t)tiles_h * (uint32_t)tiles_w;
    const uint32_t plane = blockIdx.x / tiles, t = blockIdx.x - plane * tiles;
    const uint32_t n = plane / (uint32_t)p.c, c = plane - n * (uint32_t)p.c;
    const int h0 = (int)(t / (uint32_t)tiles_w) * POOL_TILE_H, w0 = (int)(t % (uint32_t)tiles_w) * POOL_TILE_W;
    /* windows overlapping rows [h0, h0 + TH) and columns [w0, w0 + TW) */
    const int oh0 = max(0, pool_floor_div32(h0 + pad_h - win_h, s_h) + 1);
    const int oh1 = min(out_h - 1, pool_floor_div32(h0 + POOL_TILE_H - 1 + pad_h, s_h));
    const int ow0 = max(0, pool_floor_div32(w0 + pad_w - win_w, s_w) + 1);
    const int ow1 = min(out_w - 1, pool_floor_div32(w0 + POOL_TILE_W - 1 + pad_w, s_w));
    const int nwh = oh1 - oh0 + 1, nww = ow1 - ow0 + 1;
    const int rlo_h = max(0, -pad_h), rhi_h = min(in_h, in_h + pad_h);
    const int rlo_w = max(0, -pad_w), rhi_w = min(in_w, in_w + pad_w);
    const FD_T *xc = x + (int64_t)n * p.xs[0] + (int64_t)c * p.xs[1];
    const FD_T *dyc = dy + (int64_t)n * p.dys[0] + (int64_t)c * p.dys[1];
    if (nwh > 0 && nww > 0)
        for (int k = threadIdx.x; k < nwh * nww; k += blockDim.x) {
            const int oh = oh0 + k / nww, ow = ow0 + k % nww;
            const int sh = oh * s_h - pad_h, sw = ow * s_w - pad_w;
            const int lo_h = max(sh, rlo_h), hi_h = min(sh + win_h, rhi_h);
            const int lo_w = max(sw, rlo_w), hi_w = min(sw + win_w, rhi_w);
            FD_ACC m = (FD_ACC)g.lowest;
            int pos = -1, done = 0;
            for (int i1 = lo_h; i1 < hi_h && !done; i1++)
                for (int i2 = lo_w; i2 < hi_w; i2++) {
                    const FD_ACC v = fd_cuda_ld(xc, (int64_t)i1 * p.xs[3] + (int64_t)i2 * p.xs[4]);
                    if (v != v) {
                        if (!p.propagate_nan)
                            continue;
                        pos = i1 * in_w + i2; /* the first NaN ends the scan */
                        done = 1;
                        break;
                    }
                    if (pos >= 0 ? v > m : v >= m) {
                        m = v;
                        pos = i1 * in_w + i2;
                    }
                }
            arg[k] = pos;
            gdy[k] = dyc[(int64_t)oh * p.dys[3] + (int64_t)ow * p.dys[4]];
        }
    __syncthreads();
    for (int q = threadIdx.x; q < POOL_TILE_H * POOL_TILE_W; q += blockDim.x) {
        const int ih = h0 + q / POOL_TILE_W, iw = w0 + q % POOL_TILE_W;
        if (ih >= in_h || iw >= in_w)
            continue;
        double acc = 0.0;
        if (ih >= rlo_h && ih < rhi_h && iw >= rlo_w && iw < rhi_w) {
            const int key = ih * in_w + iw;
            const int a0 = max(0, pool_floor_div32(ih + pad_h - win_h, s_h) + 1);
            const int a1 = min(out_h - 1, pool_floor_div32(ih + pad_h, s_h));
            const int b0 = max(0, pool_floor_div32(iw + pad_w - win_w, s_w) + 1);
            const int b1 = min(out_w - 1, pool_floor_div32(iw + pad_w, s_w));
            for (int oh = a0; oh <= a1; oh++)
                for (int ow = b0; ow <= b1; ow++) {
                    const int k = (oh - oh0) * nww + (ow - ow0);
                    if (arg[k] == key)
                        acc += (double)fd_cuda_ld(gdy, k);
                }
        }
        fd_cuda_blend(dx, (int64_t)n * p.dxs[0] + (int64_t)c * p.dxs[1] + (int64_t)ih * p.dxs[3] +
                              (int64_t)iw * p.dxs[4],
                      alpha, beta, acc);
    }
}

/* ---- channels-last packed path: FD_VEC channels per thread, 128-bit loads and stores -------
 * Taken when every tensor of the call has C stride 1, the other strides and C are multiples
 * of FD_VEC and the pointers are 16-byte aligned (pooling.cu decides). Lane l of a vector is
 * channel cv * FD_VEC + l and follows exactly the scalar kernels' per-element rules and
 * order, so the results are the same bits. */

FD_CUDA_VEC_OF(FD_T, FD_K(pool_vec_t));
#define FD_VEC ((int)(FD_CUDA_VEC_BYTES / sizeof(FD_T)))

/* Per-lane max of window w (window_max's rule; state 0 none yet, 1 found, 2 NaN seen: done),
 * with the flattened position of each lane's argmax when pos != NULL. */
static __device__ __forceinline__ void FD_K(window_max_vec)(const pool_geom_t &g, const FD_T *xc,
                                                            const pool_window_t &w, FD_ACC *m,
                                                            int *state, int64_t *pos)
{
    const fd_pool_problem_t &p = g.p;
#pragma unroll
    for (int l = 0; l < FD_VEC; l++)
        m[l] = (FD_ACC)g.lowest, state[l] = 0;
    for (int64_t i0 = w.lo[0]; i0 < w.hi[0]; i0++)
        for (int64_t i1 = w.lo[1]; i1 < w.hi[1]; i1++)
            for (int64_t i2 = w.lo[2]; i2 < w.hi[2]; i2++) {
                const FD_K(pool_vec_t) xa = *(const FD_K(pool_vec_t) *)(
                    xc + i0 * p.xs[2] + i1 * p.xs[3] + i2 * p.xs[4]);
                const int64_t key = (i0 * p.in[1] + i1) * p.in[2] + i2;
#pragma unroll
                for (int l = 0; l < FD_VEC; l++) {
                    const FD_ACC v = fd_cuda_ld(xa.e, l);
                    if (state[l] == 2)
                        continue;
                    if (v != v) {
                        if (!p.propagate_nan)
                            continue;
                        m[l] = v, state[l] = 2;
                        if (pos != NULL)
                            pos[l] = key;
                    } else if (state[l] ? v > m[l] : v >= m[l]) {
                        m[l] = v, state[l] = 1;
                        if (pos != NULL)
                            pos[l] = key;
                    }
                }
            }
}

/* pool_fwd on FD_VEC channels of one (n, o) position per thread and trip. */
static __global__ void FD_K(pool_fwd_vec)(const pool_geom_t g, const void *xv, void *yv,
                                          double alpha, double beta)
{
    const fd_pool_problem_t &p = g.p;
    const FD_T *__restrict__ x = (const FD_T *)xv;
    FD_T *__restrict__ y = (FD_T *)yv;
    const int64_t cv = p.c / FD_VEC, total = p.n * cv * p.out[0] * p.out[1] * p.out[2];
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t o[3], n, c;
        if (g.idx32)
            pool_unflatten32((uint32_t)cv, p.out, 1, (uint32_t)e, &n, &c, o);
        else
            pool_unflatten(cv, p.out, 1, e, &n, &c, o);
        pool_window_t w;
        pool_window_of(p, o, &w);
        const FD_T *xc = x + n * p.xs[0] + c * FD_VEC;
        double v[FD_VEC];
        if (g.is_max) {
            FD_ACC m[FD_VEC];
            int state[FD_VEC];
            FD_K(window_max_vec)(g, xc, w, m, state, NULL);
#pragma unroll
            for (int l = 0; l < FD_VEC; l++)
                v[l] = (double)m[l];
        } else {
#pragma unroll
            for (int l = 0; l < FD_VEC; l++)
                v[l] = 0.0;
            for (int64_t i0 = w.lo[0]; i0 < w.hi[0]; i0++)
                for (int64_t i1 = w.lo[1]; i1 < w.hi[1]; i1++)
                    for (int64_t i2 = w.lo[2]; i2 < w.hi[2]; i2++) {
                        const FD_K(pool_vec_t) xa = *(const FD_K(pool_vec_t) *)(
                            xc + i0 * p.xs[2] + i1 * p.xs[3] + i2 * p.xs[4]);
#pragma unroll
                        for (int l = 0; l < FD_VEC; l++)
                            v[l] += (double)fd_cuda_ld(xa.e, l);
                    }
            const double cnt = g.include_pad ? w.padded : w.readable;
#pragma unroll
            for (int l = 0; l < FD_VEC; l++)
                v[l] = cnt > 0 ? v[l] / cnt : 0.0;
        }
        FD_T *yp = y + n * p.ys[0] + c * FD_VEC + o[0] * p.ys[2] + o[1] * p.ys[3] + o[2] * p.ys[4];
        FD_K(pool_vec_t) r;
        if (beta != 0.0)
            r = *(const FD_K(pool_vec_t) *)yp;
#pragma unroll
        for (int l = 0; l < FD_VEC; l++)
            fd_cuda_blend(r.e, l, alpha, beta, v[l]);
        *(FD_K(pool_vec_t) *)yp = r;
    }
}

/* pool_bwd on FD_VEC channels of one (n, i) position per thread and trip. */
static __global__ void FD_K(pool_bwd_vec)(const pool_geom_t g, const void *xv, const void *dyv,
                                          void *dxv, double alpha, double beta)
{
    const fd_pool_problem_t &p = g.p;
    const FD_T *__restrict__ x = (const FD_T *)xv;
    const FD_T *__restrict__ dy = (const FD_T *)dyv;
    FD_T *__restrict__ dx = (FD_T *)dxv;
    const int64_t cv = p.c / FD_VEC, total = p.n * cv * p.in[0] * p.in[1] * p.in[2];
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t i[3], n, c, olo[3], ohi[3];
        if (g.idx32)
            pool_unflatten32((uint32_t)cv, p.in, 1, (uint32_t)e, &n, &c, i);
        else
            pool_unflatten(cv, p.in, 1, e, &n, &c, i);
        int empty = 0;
        for (int d = 0; d < 3; d++) {
            const int64_t rlo = pool_max64(0, -p.pad[d]);
            const int64_t rhi = pool_min64(p.in[d], p.in[d] + p.pad[d]);
            olo[d] = pool_max64(0, pool_floor_div(i[d] + p.pad[d] - p.win[d], p.stride[d]) + 1);
            ohi[d] = pool_min64(p.out[d] - 1, pool_floor_div(i[d] + p.pad[d], p.stride[d]));
            if (i[d] < rlo || i[d] >= rhi || olo[d] > ohi[d])
                empty = 1;
        }
        const FD_T *xc = x + n * p.xs[0] + c * FD_VEC;
        const FD_T *dyc = dy + n * p.dys[0] + c * FD_VEC;
        const int64_t key = (i[0] * p.in[1] + i[1]) * p.in[2] + i[2];
        double acc[FD_VEC];
#pragma unroll
        for (int l = 0; l < FD_VEC; l++)
            acc[l] = 0.0;
        if (!empty) {
            int64_t o[3];
            for (o[0] = olo[0]; o[0] <= ohi[0]; o[0]++)
                for (o[1] = olo[1]; o[1] <= ohi[1]; o[1]++)
                    for (o[2] = olo[2]; o[2] <= ohi[2]; o[2]++) {
                        pool_window_t w;
                        pool_window_of(p, o, &w);
                        const FD_K(pool_vec_t) ga = *(const FD_K(pool_vec_t) *)(
                            dyc + o[0] * p.dys[2] + o[1] * p.dys[3] + o[2] * p.dys[4]);
                        if (g.is_max) {
                            FD_ACC m[FD_VEC];
                            int state[FD_VEC];
                            int64_t pos[FD_VEC];
                            FD_K(window_max_vec)(g, xc, w, m, state, pos);
#pragma unroll
                            for (int l = 0; l < FD_VEC; l++)
                                if (state[l] != 0 && pos[l] == key)
                                    acc[l] += (double)fd_cuda_ld(ga.e, l);
                        } else {
                            const double cnt = g.include_pad ? w.padded : w.readable;
#pragma unroll
                            for (int l = 0; l < FD_VEC; l++)
                                acc[l] += (double)fd_cuda_ld(ga.e, l) / cnt;
                        }
                    }
        }
        FD_T *dxp = dx + n * p.dxs[0] + c * FD_VEC + i[0] * p.dxs[2] + i[1] * p.dxs[3] +
                    i[2] * p.dxs[4];
        FD_K(pool_vec_t) r;
        if (beta != 0.0)
            r = *(const FD_K(pool_vec_t) *)dxp;
#pragma unroll
        for (int l = 0; l < FD_VEC; l++)
            fd_cuda_blend(r.e, l, alpha, beta, acc[l]);
        *(FD_K(pool_vec_t) *)dxp = r;
    }
}

/* ---- 2-d max forward, lean (pool_max2d_t in pooling.cu) -------------------------------------
 * MAX / MAX_DETERMINISTIC of a 2-d (or 1-d) problem whose offsets fit 31 bits: window_max's
 * rule and scan order with 32-bit positions and a window clipped once, so the same bits as
 * pool_fwd / pool_fwd_vec at a fraction of their index arithmetic (the general kernels unflatten
 * five 64-bit coordinates and count the window in double per output). */

/* One step of window_max's scan: state 0 none yet, 1 found, 2 a NaN (PROPAGATE: done). */
static __device__ __forceinline__ void FD_K(max2d_step)(FD_ACC v, int propagate, FD_ACC *m,
                                                        int *state)
{
    if (*state == 2)
        return;
    if (v != v) {
        if (propagate)
            *m = v, *state = 2;
    } else if (*state ? v > *m : v >= *m) {
        *m = v, *state = 1;
    }
}

/* NCHW-like (W innermost in y): blockIdx.y walks the (n, c) planes, the x threads the plane's
 * outputs; one 32-bit division per output. */
static __global__ void FD_K(pool_max2d_plane)(const pool_max2d_t q, const void *xv, void *yv,
                                              double alpha, double beta)
{
    const FD_T *__restrict__ x = (const FD_T *)xv;
    FD_T *__restrict__ y = (FD_T *)yv;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= q.out_h * q.out_w)
        return;
    const int oh = t / q.out_w, ow = t - oh * q.out_w;
    const int sh = oh * q.s_h - q.pad_h, sw = ow * q.s_w - q.pad_w;
    const int lo_h = max(sh, q.rlo_h), hi_h = min(sh + q.win_h, q.rhi_h);
    const int lo_w = max(sw, q.rlo_w), hi_w = min(sw + q.win_w, q.rhi_w);
    for (int pl = blockIdx.y; pl < q.planes; pl += gridDim.y) {
        const int n = pl / q.c, c = pl - n * q.c;
        const FD_T *xc = x + (n * q.xs_n + c * q.xs_c);
        FD_ACC m = (FD_ACC)q.lowest;
        int state = 0;
        for (int i1 = lo_h; i1 < hi_h; i1++)
            for (int i2 = lo_w; i2 < hi_w; i2++)
                FD_K(max2d_step)(fd_cuda_ld(xc, i1 * q.xs_h + i2 * q.xs_w), q.propagate, &m,
                                 &state);
        fd_cuda_blend(y, n * q.ys_n + c * q.ys_c + oh * q.ys_h + ow * q.ys_w, alpha, beta,
                      (double)m);
    }
}

/* Channels-last packed (pool_vec_ok): FD_VEC channels of one output pixel per thread and
 * trip, lane-wise the same scan. */
static __global__ void FD_K(pool_max2d_vec)(const pool_max2d_t q, const void *xv, void *yv,
                                            double alpha, double beta)
{
    const FD_T *__restrict__ x = (const FD_T *)xv;
    FD_T *__restrict__ y = (FD_T *)yv;
    const int cv = q.c / FD_VEC;
    const int total = q.n * q.out_h * q.out_w * cv;
    for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < total; e += gridDim.x * blockDim.x) {
        int r = e / cv;
        const int c = (e - r * cv) * FD_VEC;
        int t = r / q.out_w;
        const int ow = r - t * q.out_w;
        const int n = t / q.out_h, oh = t - n * q.out_h;
        const int sh = oh * q.s_h - q.pad_h, sw = ow * q.s_w - q.pad_w;
        const int lo_h = max(sh, q.rlo_h), hi_h = min(sh + q.win_h, q.rhi_h);
        const int lo_w = max(sw, q.rlo_w), hi_w = min(sw + q.win_w, q.rhi_w);
        const FD_T *xc = x + (n * q.xs_n + c);
        FD_ACC m[FD_VEC];
        int state[FD_VEC];
#pragma unroll
        for (int l = 0; l < FD_VEC; l++)
            m[l] = (FD_ACC)q.lowest, state[l] = 0;
        for (int i1 = lo_h; i1 < hi_h; i1++)
            for (int i2 = lo_w; i2 < hi_w; i2++) {
                const FD_K(pool_vec_t) xa =
                    *(const FD_K(pool_vec_t) *)(xc + (i1 * q.xs_h + i2 * q.xs_w));
#pragma unroll
                for (int l = 0; l < FD_VEC; l++)
                    FD_K(max2d_step)(fd_cuda_ld(xa.e, l), q.propagate, &m[l], &state[l]);
            }
        FD_T *yp = y + (n * q.ys_n + c + oh * q.ys_h + ow * q.ys_w);
        FD_K(pool_vec_t) o;
        if (beta != 0.0)
            o = *(const FD_K(pool_vec_t) *)yp;
#pragma unroll
        for (int l = 0; l < FD_VEC; l++)
            fd_cuda_blend(o.e, l, alpha, beta, (double)m[l]);
        *(FD_K(pool_vec_t) *)yp = o;
    }
}

/* stride-2 windows of 2 or 3: the sweeps (pool_s2_t) */
#include "pooling_s2.cuh"

#undef FD_VEC
#undef FD_K
