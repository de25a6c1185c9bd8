/* SPDX-License-Identifier: MIT */
/*
 * softmax_kernels.cuh - the kernels of softmax.cu for one storage type. softmax.cu includes this
 * once per type with FD_T (storage), FD_ACC (accumulator: float, double for DOUBLE) and FD_SFX
 * (f32, f64, f16, bf16) defined.
 *
 * Two shapes of the same computation (src/ref/softmax_ref.c's passes: max with NaN, sum, write):
 *   *_block: one block per row; thread t takes elements t, t + B, ... in order, then a fixed
 *            tree (xor butterfly in each warp, then the warps' partials read in order by every
 *            thread), so the bits never depend on scheduling;
 *   *_warp:  one warp per row, FD_CUDA_BLOCK / 32 rows per block: the *_block computation
 *            with 32 threads (lane l takes l, l + 32, ..., the same butterfly, lane 0's
 *            result broadcast), so bit-identical to a 32-thread block, without blocks of one
 *            warp capping the SM's occupancy (rows of 32 to 127 stride-1 elements);
 *   *_rows:  one thread per row, elements in order (rows whose elements are strided: the
 *            neighbouring threads then read neighbouring addresses).
 * Each output element is written by the thread that last read it, after every read of the row
 * (block: the reductions end with __syncthreads), so exact in-place calls work.
 */

#define FD_K(name) FD_CUDA_CAT(name, FD_SFX)

/* max that turns NaN into NaN (src/ref: any NaN makes the row max NaN) */
static __device__ __forceinline__ FD_ACC FD_K(sm_max)(FD_ACC a, FD_ACC b)
{
    return (a != a || b != b) ? (a != a ? a : b) : (b > a ? b : a);
}

static __device__ __forceinline__ FD_ACC FD_K(sm_block_max)(FD_ACC v, FD_ACC *sh)
{
    for (int o = 16; o > 0; o >>= 1)
        v = FD_K(sm_max)(v, __shfl_xor_sync(0xffffffffu, v, o));
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    __syncthreads(); /* sh may still be read by the previous reduction */
    if (lane == 0)
        sh[warp] = v;
    __syncthreads();
    FD_ACC m = sh[0];
    for (int i = 1; i < nw; i++)
        m = FD_K(sm_max)(m, sh[i]);
    return m;
}

static __device__ __forceinline__ FD_ACC FD_K(sm_block_sum)(FD_ACC v, FD_ACC *sh)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    __syncthreads();
    if (lane == 0)
        sh[warp] = v;
    __syncthreads();
    FD_ACC s = sh[0];
    for (int i = 1; i < nw; i++)
        s += sh[i];
    return s;
}

/* The warp's reductions: the butterfly of sm_block_*, then lane 0's value (as a one-warp
 * block reads sh[0]; lanes may differ in a NaN's payload). */
static __device__ __forceinline__ FD_ACC FD_K(sm_warp_max)(FD_ACC v)
{
    for (int o = 16; o > 0; o >>= 1)
        v = FD_K(sm_max)(v, __shfl_xor_sync(0xffffffffu, v, o));
    return __shfl_sync(0xffffffffu, v, 0);
}
static __device__ __forceinline__ FD_ACC FD_K(sm_warp_sum)(FD_ACC v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return __shfl_sync(0xffffffffu, v, 0);
}

/* softmax of row element x (already minus the max: d) given the row sum s and log(s) */
static __device__ __forceinline__ double FD_K(sm_fwd_value)(int is_log, FD_ACC d, FD_ACC s,
                                                            FD_ACC log_s)
{
    return is_log ? (double)(d - log_s) : (double)(fd_cuda_exp(d) / s);
}

static __global__ void FD_K(softmax_fwd_block)(const sm_geom_t g, const void *xv, void *yv,
                                               double alpha, double beta)
{
    __shared__ FD_ACC sh[32];
    const FD_T *x = (const FD_T *)xv; /* y may be x */
    FD_T *y = (FD_T *)yv;
    for (int64_t row = blockIdx.x; row < g.rows; row += gridDim.x) {
        int64_t ob[SM_TENSORS];
        sm_outer(g, row, ob);
        FD_ACC m = -(FD_ACC)CUDART_INF;
        for (int64_t r = threadIdx.x; r < g.row_len; r += blockDim.x)
            m = FD_K(sm_max)(m, fd_cuda_ld(x, ob[0] + sm_inner(g, 0, r)));
        m = FD_K(sm_block_max)(m, sh);
        FD_ACC s = 0;
        for (int64_t r = threadIdx.x; r < g.row_len; r += blockDim.x)
            s += fd_cuda_exp(fd_cuda_ld(x, ob[0] + sm_inner(g, 0, r)) - m);
        s = FD_K(sm_block_sum)(s, sh);
        const FD_ACC log_s = g.is_log ? fd_cuda_log(s) : (FD_ACC)0;
        for (int64_t r = threadIdx.x; r < g.row_len; r += blockDim.x) {
            const FD_ACC d = fd_cuda_ld(x, ob[0] + sm_inner(g, 0, r)) - m;
            fd_cuda_blend(y, ob[1] + sm_inner(g, 1, r), alpha, beta,
                          FD_K(sm_fwd_value)(g.is_log, d, s, log_s));
        }
    }
}

/* Rows of a warp: the loop bound is uniform across the warp, so every lane reaches the shuffles. */
#define SM_WARP_ROWS(row)                                                                      \
    for (int64_t row = (int64_t)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);           \
         row < g.rows; row += (int64_t)gridDim.x * (blockDim.x >> 5))

static __global__ void FD_K(softmax_fwd_warp)(const sm_geom_t g, const void *xv, void *yv,
                                              double alpha, double beta)
{
    const FD_T *x = (const FD_T *)xv; /* y may be x */
    FD_T *y = (FD_T *)yv;
    const int lane = threadIdx.x & 31;
    SM_WARP_ROWS(row)
    {
        int64_t ob[SM_TENSORS];
        sm_outer(g, row, ob);
        FD_ACC m = -(FD_ACC)CUDART_INF;
        for (int64_t r = lane; r < g.row_len; r += 32)
            m = FD_K(sm_max)(m, fd_cuda_ld(x, ob[0] + sm_inner(g, 0, r)));
        m = FD_K(sm_warp_max)(m);
        FD_ACC s = 0;
        for (int64_t r = lane; r < g.row_len; r += 32)
            s += fd_cuda_exp(fd_cuda_ld(x, ob[0] + sm_inner(g, 0, r)) - m);
        s = FD_K(sm_warp_sum)(s);
        const FD_ACC log_s = g.is_log ? fd_cuda_log(s) : (FD_ACC)0;
        for (int64_t r = lane; r < g.row_len; r += 32) {
            const FD_ACC d = fd_cuda_ld(x, ob[0] + sm_inner(g, 0, r)) - m;
            fd_cuda_blend(y, ob[1] + sm_inner(g, 1, r), alpha, beta,
                          FD_K(sm_fwd_value)(g.is_log, d, s, log_s));
        }
    }
}

static __global__ void FD_K(softmax_fwd_rows)(const sm_geom_t g, const void *xv, void *yv,
                                              double alpha, double beta)
{
    const FD_T *x = (const FD_T *)xv;
    FD_T *y = (FD_T *)yv;
    for (int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; row < g.rows;
         row += (int64_t)gridDim.x * blockDim.x) {
        int64_t ob[SM_TENSORS];
        sm_outer(g, row, ob);
        FD_ACC m = -(FD_ACC)CUDART_INF;
        for (int64_t r = 0; r < g.row_len; r++)
            m = FD_K(sm_max)(m, fd_cuda_ld(x, ob[0] + sm_inner(g, 0, r)));
        FD_ACC s = 0;
        for (int64_t r = 0; r < g.row_len; r++)
            s += fd_cuda_exp(fd_cuda_ld(x, ob[0] + sm_inner(g, 0, r)) - m);
        const FD_ACC log_s = g.is_log ? fd_cuda_log(s) : (FD_ACC)0;
        for (int64_t r = 0; r < g.row_len; r++) {
            const FD_ACC d = fd_cuda_ld(x, ob[0] + sm_inner(g, 0, r)) - m;
            fd_cuda_blend(y, ob[1] + sm_inner(g, 1, r), alpha, beta,
                          FD_K(sm_fwd_value)(g.is_log, d, s, log_s));
        }
    }
}

/* softmax_fwd_rows with the max and the sum in one pass (online: the sum is rescaled by
 * exp(m_old - m_new) whenever the max grows), then the write pass: two reads of x instead of
 * three, for strided rows of at least 32 elements (NCHW CHANNEL), where each pass reads DRAM.
 * The rescaling changes the sum's rounding (a few ulps more than the three-pass order; held to
 * the ref within gm_tol). A -inf max (every element so far -inf) keeps the sum at 0, so a
 * later finite element starts it cleanly; NaN and +inf reach the sum as in the ref's order. */
static __global__ void FD_K(softmax_fwd_rows_online)(const sm_geom_t g, const void *xv, void *yv,
                                                     double alpha, double beta)
{
    const FD_T *x = (const FD_T *)xv;
    FD_T *y = (FD_T *)yv;
    for (int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; row < g.rows;
         row += (int64_t)gridDim.x * blockDim.x) {
        int64_t ob[SM_TENSORS];
        sm_outer(g, row, ob);
        const FD_T *xr = x + ob[0];
        const int64_t xs = g.rst[0][0];
        FD_ACC m = -(FD_ACC)CUDART_INF, s = 0;
        for (int64_t r = 0; r < g.row_len; r++) {
            const FD_ACC v = fd_cuda_ld(xr, r * xs);
            const FD_ACC mn = FD_K(sm_max)(m, v);
            if (mn == -(FD_ACC)CUDART_INF)
                continue; /* s stays 0 */
            if (mn != m)
                s = s * fd_cuda_exp(m - mn); /* m = -inf: 0 * 0 */
            m = mn;
            s += fd_cuda_exp(v - m);
        }
        if (m == -(FD_ACC)CUDART_INF)
            s = (FD_ACC)CUDART_NAN; /* as the ref's sum of exp(-inf - -inf) */
        const FD_ACC log_s = g.is_log ? fd_cuda_log(s) : (FD_ACC)0;
        FD_T *yr = y + ob[1];
        const int64_t ys = g.rst[1][0];
        for (int64_t r = 0; r < g.row_len; r++) {
            const FD_ACC d = fd_cuda_ld(xr, r * xs) - m;
            fd_cuda_blend(yr, r * ys, alpha, beta, FD_K(sm_fwd_value)(g.is_log, d, s, log_s));
        }
    }
}

/* Backward tensors: 0 y, 1 dy, 2 dx. LOG: dx = dy - exp(y) sum(dy); else dx = y (dy - sum(dy y)). */
static __device__ __forceinline__ FD_ACC FD_K(sm_bwd_term)(int is_log, FD_ACC y, FD_ACC dy)
{
    return is_log ? dy : dy * y;
}
static __device__ __forceinline__ double FD_K(sm_bwd_value)(int is_log, FD_ACC y, FD_ACC dy,
                                                            FD_ACC s)
{
    return is_log ? (double)(dy - fd_cuda_exp(y) * s) : (double)(y * (dy - s));
}

static __global__ void FD_K(softmax_bwd_block)(const sm_geom_t g, const void *yv, const void *dyv,
                                               void *dxv, double alpha, double beta)
{
    __shared__ FD_ACC sh[32];
    const FD_T *y = (const FD_T *)yv; /* dx may be y or dy */
    const FD_T *dy = (const FD_T *)dyv;
    FD_T *dx = (FD_T *)dxv;
    for (int64_t row = blockIdx.x; row < g.rows; row += gridDim.x) {
        int64_t ob[SM_TENSORS];
        sm_outer(g, row, ob);
        FD_ACC s = 0;
        for (int64_t r = threadIdx.x; r < g.row_len; r += blockDim.x)
            s += FD_K(sm_bwd_term)(g.is_log, fd_cuda_ld(y, ob[0] + sm_inner(g, 0, r)),
                                   fd_cuda_ld(dy, ob[1] + sm_inner(g, 1, r)));
        s = FD_K(sm_block_sum)(s, sh);
        for (int64_t r = threadIdx.x; r < g.row_len; r += blockDim.x) {
            const FD_ACC yv_ = fd_cuda_ld(y, ob[0] + sm_inner(g, 0, r));
            const FD_ACC dyv_ = fd_cuda_ld(dy, ob[1] + sm_inner(g, 1, r));
            fd_cuda_blend(dx, ob[2] + sm_inner(g, 2, r), alpha, beta,
                          FD_K(sm_bwd_value)(g.is_log, yv_, dyv_, s));
        }
    }
}

static __global__ void FD_K(softmax_bwd_warp)(const sm_geom_t g, const void *yv, const void *dyv,
                                              void *dxv, double alpha, double beta)
{
    const FD_T *y = (const FD_T *)yv; /* dx may be y or dy */
    const FD_T *dy = (const FD_T *)dyv;
    FD_T *dx = (FD_T *)dxv;
    const int lane = threadIdx.x & 31;
    SM_WARP_ROWS(row)
    {
        int64_t ob[SM_TENSORS];
        sm_outer(g, row, ob);
        FD_ACC s = 0;
        for (int64_t r = lane; r < g.row_len; r += 32)
            s += FD_K(sm_bwd_term)(g.is_log, fd_cuda_ld(y, ob[0] + sm_inner(g, 0, r)),
                                   fd_cuda_ld(dy, ob[1] + sm_inner(g, 1, r)));
        s = FD_K(sm_warp_sum)(s);
        for (int64_t r = lane; r < g.row_len; r += 32) {
            const FD_ACC yv_ = fd_cuda_ld(y, ob[0] + sm_inner(g, 0, r));
            const FD_ACC dyv_ = fd_cuda_ld(dy, ob[1] + sm_inner(g, 1, r));
            fd_cuda_blend(dx, ob[2] + sm_inner(g, 2, r), alpha, beta,
                          FD_K(sm_bwd_value)(g.is_log, yv_, dyv_, s));
        }
    }
}

static __global__ void FD_K(softmax_bwd_rows)(const sm_geom_t g, const void *yv, const void *dyv,
                                              void *dxv, double alpha, double beta)
{
    const FD_T *y = (const FD_T *)yv;
    const FD_T *dy = (const FD_T *)dyv;
    FD_T *dx = (FD_T *)dxv;
    for (int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; row < g.rows;
         row += (int64_t)gridDim.x * blockDim.x) {
        int64_t ob[SM_TENSORS];
        sm_outer(g, row, ob);
        FD_ACC s = 0;
        for (int64_t r = 0; r < g.row_len; r++)
            s += FD_K(sm_bwd_term)(g.is_log, fd_cuda_ld(y, ob[0] + sm_inner(g, 0, r)),
                                   fd_cuda_ld(dy, ob[1] + sm_inner(g, 1, r)));
        for (int64_t r = 0; r < g.row_len; r++) {
            const FD_ACC yv_ = fd_cuda_ld(y, ob[0] + sm_inner(g, 0, r));
            const FD_ACC dyv_ = fd_cuda_ld(dy, ob[1] + sm_inner(g, 1, r));
            fd_cuda_blend(dx, ob[2] + sm_inner(g, 2, r), alpha, beta,
                          FD_K(sm_bwd_value)(g.is_log, yv_, dyv_, s));
        }
    }
}

/* ---- rows in registers (FLOAT, HALF, BFLOAT16; sm_wreg_shape in softmax.cu) ----------------
 * A row of row_len contiguous elements (16-byte aligned, a whole number of 16-byte vectors,
 * at most LPR * NV of them) is held by LPR lanes of a warp, lane j taking vectors j, j + LPR,
 * ..., in registers: one read of x (y and dy backward), one write, no re-reads. 32 / LPR rows
 * per warp for short rows. Each lane reduces its elements in order, then a fixed xor butterfly
 * over the row's lanes and the first lane's value broadcast: deterministic (the order differs
 * from the block kernels, so the last bits may too; the tests hold both to the ref). The
 * row loop is uniform across the block, so every lane reaches the shuffles. */

FD_CUDA_VEC_OF(FD_T, FD_K(sm_vec_t));
#define SM_VEC ((int)(FD_CUDA_VEC_BYTES / sizeof(FD_T)))

template <int LPR>
static __device__ __forceinline__ FD_ACC FD_K(sm_grp_max)(FD_ACC v)
{
#pragma unroll
    for (int o = LPR / 2; o > 0; o >>= 1)
        v = FD_K(sm_max)(v, __shfl_xor_sync(0xffffffffu, v, o));
    return __shfl_sync(0xffffffffu, v, 0, LPR);
}
template <int LPR>
static __device__ __forceinline__ FD_ACC FD_K(sm_grp_sum)(FD_ACC v)
{
#pragma unroll
    for (int o = LPR / 2; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return __shfl_sync(0xffffffffu, v, 0, LPR);
}

template <int LPR, int NV>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK)
    FD_K(softmax_fwd_wreg)(const sm_geom_t g, const void *xv, void *yv, double alpha,
                           double beta)
{
    const FD_T *x = (const FD_T *)xv; /* y may be x: the row is in registers before any store */
    FD_T *y = (FD_T *)yv;
    const int lane = threadIdx.x % LPR;
    const int64_t rpb = FD_CUDA_BLOCK / LPR, rv = g.row_len / SM_VEC;
    for (int64_t r0 = (int64_t)blockIdx.x * rpb; r0 < g.rows; r0 += (int64_t)gridDim.x * rpb) {
        const int64_t row = r0 + threadIdx.x / LPR;
        const bool valid = row < g.rows;
        int64_t ob[SM_TENSORS];
        sm_outer(g, valid ? row : 0, ob);
        FD_K(sm_vec_t) v[NV];
#pragma unroll
        for (int i = 0; i < NV; i++)
            if (valid && lane + i * LPR < rv)
                v[i] = *(const FD_K(sm_vec_t) *)(x + ob[0] + (int64_t)(lane + i * LPR) * SM_VEC);
        FD_ACC m = -(FD_ACC)CUDART_INF;
#pragma unroll
        for (int i = 0; i < NV; i++)
            if (valid && lane + i * LPR < rv)
#pragma unroll
                for (int l = 0; l < SM_VEC; l++)
                    m = FD_K(sm_max)(m, fd_cuda_ld(v[i].e, l));
        m = FD_K(sm_grp_max)<LPR>(m);
        FD_ACC s = 0;
#pragma unroll
        for (int i = 0; i < NV; i++)
            if (valid && lane + i * LPR < rv)
#pragma unroll
                for (int l = 0; l < SM_VEC; l++)
                    s += fd_cuda_exp(fd_cuda_ld(v[i].e, l) - m);
        s = FD_K(sm_grp_sum)<LPR>(s);
        const FD_ACC log_s = g.is_log ? fd_cuda_log(s) : (FD_ACC)0;
#pragma unroll
        for (int i = 0; i < NV; i++)
            if (valid && lane + i * LPR < rv) {
                FD_T *yo = y + ob[1] + (int64_t)(lane + i * LPR) * SM_VEC;
                FD_K(sm_vec_t) o;
                if (beta != 0.0)
                    o = *(const FD_K(sm_vec_t) *)yo;
#pragma unroll
                for (int l = 0; l < SM_VEC; l++)
                    fd_cuda_blend(o.e, l, alpha, beta,
                                  FD_K(sm_fwd_value)(g.is_log, fd_cuda_ld(v[i].e, l) - m, s,
                                                     log_s));
                *(FD_K(sm_vec_t) *)yo = o;
            }
    }
}

template <int LPR, int NV>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK)
    FD_K(softmax_bwd_wreg)(const sm_geom_t g, const void *yv, const void *dyv, void *dxv,
                           double alpha, double beta)
{
    const FD_T *y = (const FD_T *)yv; /* dx may be y or dy: both are in registers first */
    const FD_T *dy = (const FD_T *)dyv;
    FD_T *dx = (FD_T *)dxv;
    const int lane = threadIdx.x % LPR;
    const int64_t rpb = FD_CUDA_BLOCK / LPR, rv = g.row_len / SM_VEC;
    for (int64_t r0 = (int64_t)blockIdx.x * rpb; r0 < g.rows; r0 += (int64_t)gridDim.x * rpb) {
        const int64_t row = r0 + threadIdx.x / LPR;
        const bool valid = row < g.rows;
        int64_t ob[SM_TENSORS];
        sm_outer(g, valid ? row : 0, ob);
        FD_K(sm_vec_t) vy[NV], vd[NV];
#pragma unroll
        for (int i = 0; i < NV; i++)
            if (valid && lane + i * LPR < rv) {
                const int64_t k = (int64_t)(lane + i * LPR) * SM_VEC;
                vy[i] = *(const FD_K(sm_vec_t) *)(y + ob[0] + k);
                vd[i] = *(const FD_K(sm_vec_t) *)(dy + ob[1] + k);
            }
        FD_ACC s = 0;
#pragma unroll
        for (int i = 0; i < NV; i++)
            if (valid && lane + i * LPR < rv)
#pragma unroll
                for (int l = 0; l < SM_VEC; l++)
                    s += FD_K(sm_bwd_term)(g.is_log, fd_cuda_ld(vy[i].e, l),
                                           fd_cuda_ld(vd[i].e, l));
        s = FD_K(sm_grp_sum)<LPR>(s);
#pragma unroll
        for (int i = 0; i < NV; i++)
            if (valid && lane + i * LPR < rv) {
                FD_T *o_p = dx + ob[2] + (int64_t)(lane + i * LPR) * SM_VEC;
                FD_K(sm_vec_t) o;
                if (beta != 0.0)
                    o = *(const FD_K(sm_vec_t) *)o_p;
#pragma unroll
                for (int l = 0; l < SM_VEC; l++)
                    fd_cuda_blend(o.e, l, alpha, beta,
                                  FD_K(sm_bwd_value)(g.is_log, fd_cuda_ld(vy[i].e, l),
                                                     fd_cuda_ld(vd[i].e, l), s));
                *(FD_K(sm_vec_t) *)o_p = o;
            }
    }
}

#undef SM_VEC

#undef SM_WARP_ROWS
#undef FD_K
