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

#undef FD_VEC
#undef FD_K
