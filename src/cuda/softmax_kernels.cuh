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
 * later finite element starts it cleanly; NaN and +inf reach the sum as in the ref's order.
 * Both passes load SM_ONLINE_U elements of the row before using them (2026-12-01: f16 NCHW
 * C = 64 ran 0.82x NVIDIA's rate on the H200; the guess, not yet profiled: few strided 2-byte
 * loads in flight a thread); the same operations in the same order, the same bits. ptxas
 * sm_90: 40 registers (f64 64), 0 spills. */
#define SM_ONLINE_U 8
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
        for (int64_t r0 = 0; r0 < g.row_len; r0 += SM_ONLINE_U) {
            FD_ACC vb[SM_ONLINE_U];
#pragma unroll
            for (int u = 0; u < SM_ONLINE_U; u++)
                vb[u] = r0 + u < g.row_len ? fd_cuda_ld(xr, (r0 + u) * xs) : (FD_ACC)0;
#pragma unroll
            for (int u = 0; u < SM_ONLINE_U; u++) {
                if (r0 + u >= g.row_len)
                    break;
                const FD_ACC v = vb[u];
                const FD_ACC mn = FD_K(sm_max)(m, v);
                if (mn == -(FD_ACC)CUDART_INF)
                    continue; /* s stays 0 */
                if (mn != m)
                    s = s * fd_cuda_exp(m - mn); /* m = -inf: 0 * 0 */
                m = mn;
                s += fd_cuda_exp(v - m);
            }
        }
        if (m == -(FD_ACC)CUDART_INF)
            s = (FD_ACC)CUDART_NAN; /* as the ref's sum of exp(-inf - -inf) */
        const FD_ACC log_s = g.is_log ? fd_cuda_log(s) : (FD_ACC)0;
        FD_T *yr = y + ob[1];
        const int64_t ys = g.rst[1][0];
        for (int64_t r0 = 0; r0 < g.row_len; r0 += SM_ONLINE_U) {
            FD_ACC vb[SM_ONLINE_U];
#pragma unroll
            for (int u = 0; u < SM_ONLINE_U; u++)
                vb[u] = r0 + u < g.row_len ? fd_cuda_ld(xr, (r0 + u) * xs) : (FD_ACC)0;
#pragma unroll
            for (int u = 0; u < SM_ONLINE_U; u++)
                if (r0 + u < g.row_len)
                    fd_cuda_blend(yr, (r0 + u) * ys, alpha, beta,
                                  FD_K(sm_fwd_value)(g.is_log, vb[u] - m, s, log_s));
        }
    }
}
#undef SM_ONLINE_U

/* Backward tensors: 0 y, 1 dy, 2 dx. LOG: dx = dy - exp(y) sum(dy); else dx = y (dy - sum(dy y)). */
static __device__ __forceinline__ FD_ACC FD_K(sm_bwd_term)(int is_log, FD_ACC y, FD_ACC dy)
{
    return is_log ? dy : dy * y;
}
static __device__ __forceinline__ FD_ACC FD_K(sm_bwd_acc)(int is_log, FD_ACC y, FD_ACC dy,
                                                          FD_ACC s)
{
    return is_log ? dy - fd_cuda_exp(y) * s : y * (dy - s);
}
static __device__ __forceinline__ double FD_K(sm_bwd_value)(int is_log, FD_ACC y, FD_ACC dy,
                                                            FD_ACC s)
{
    return (double)FD_K(sm_bwd_acc)(is_log, y, dy, s);
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
 * softmax_wreg<LPR, NV, BWD> serves forward (BWD 0: a = x, out = y) and backward (BWD 1:
 * a = y, b = dy, out = dx) with one text. A row of row_len contiguous elements (16-byte
 * aligned, a whole number of 16-byte vectors, at most LPR * NV of them) is held by LPR lanes of
 * a warp, lane j taking vectors j, j + LPR, ..., j + (NV - 1) LPR widened to FD_ACC in
 * registers: one read of x (y and dy backward), one write, no re-reads. 32 / LPR rows per warp.
 * Mapping / bytes per thread: NV 16-byte loads per input in flight per lane (softmax.cu picks
 * NV = 4 where the row allows: NHWC C = 128 floats is 8 lanes x 4 float4, 64 B a lane, four
 * rows a warp, 3 + 1 shuffles per reduction instead of 5 + 1 with a warp a row). Forward keeps
 * exp(x - max) in the registers of x (not LOG), so each exp is evaluated once (the sum and the
 * output use the same value: the bits of evaluating it twice). Each lane reduces its elements
 * in order, then a fixed xor butterfly over the row's lanes and the first lane's value
 * broadcast: deterministic (the order differs from the block kernels, so the last bits may
 * too; the tests hold both to the ref). The row loop is uniform across the block, so every
 * lane reaches the shuffles. alpha 1, beta 0 stores the value rounded once from FD_ACC (what
 * the blend gives then), without the double blend. */

FD_CUDA_VEC_OF(FD_T, FD_K(sm_vec_t));
#define SM_VEC ((int)(FD_CUDA_VEC_BYTES / sizeof(FD_T)))

/* 16-bit storage (HALF, BFLOAT16) in the forward: exp by the SFU (__expf: a few float ulps,
 * 2 + 1.16 |x| at most, against the 2^-11 / 2^-8 of the final rounding) and the division by the
 * row sum as a product with its reciprocal (one more float rounding), so a lane's 32 elements
 * (f16 C = 256) cost a few instructions each instead of ~20 (f16 ran 0.76x NVIDIA's rate on
 * the H200, 2026-12-01, where f32 with 16 elements a lane was >= 1x: predicted issue-bound, not
 * yet profiled). FLOAT and DOUBLE keep expf / exp and the division; FLOAT's softmax_wreg forward
 * multiplies by the reciprocal too under FREEDNN_GPU_BW3 (g.mul_inv: one more rounding, <= 1.5
 * ulp against 0.5, inside gm_tol; f32 NHWC ran 0.92x NVIDIA's rate, 2026-12-01). */
#define SM_FAST16 (sizeof(FD_T) == 2)
static __device__ __forceinline__ FD_ACC FD_K(sm_exp_fwd)(FD_ACC v)
{
    return SM_FAST16 ? (FD_ACC)__expf((float)v) : fd_cuda_exp(v);
}

/* The xor butterflies over the LPR lanes of a row (log2(LPR) shuffle rounds), then (sm_grp_*)
 * the row's first lane's value broadcast. */
template <int LPR>
static __device__ __forceinline__ FD_ACC FD_K(sm_bfly_max)(FD_ACC v)
{
#pragma unroll
    for (int o = LPR / 2; o > 0; o >>= 1)
        v = FD_K(sm_max)(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
template <int LPR>
static __device__ __forceinline__ FD_ACC FD_K(sm_bfly_sum)(FD_ACC v)
{
#pragma unroll
    for (int o = LPR / 2; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
template <int LPR>
static __device__ __forceinline__ FD_ACC FD_K(sm_grp_max)(FD_ACC v)
{
    return __shfl_sync(0xffffffffu, FD_K(sm_bfly_max)<LPR>(v), 0, LPR);
}
template <int LPR>
static __device__ __forceinline__ FD_ACC FD_K(sm_grp_sum)(FD_ACC v)
{
    return __shfl_sync(0xffffffffu, FD_K(sm_bfly_sum)<LPR>(v), 0, LPR);
}

/* LEAN (softmax.cu's sm_lean_ok): not LOG, alpha 1 and beta 0, and in the forward the product
 * by 1 / sum with exp(x - max) by __expf (what the 16-bit types and FLOAT under sm_fast_exp and
 * g.mul_inv compute): the same values with the runtime tests, the blend and the exact exp out
 * of the code, and the registers held to SM_LEAN_MINB blocks an SM (Nsight Compute, H200,
 * 2026-12-01, f32 n32c128h56w56 NHWC forward: 48 registers, 52% of the warps an SM resident,
 * 2.3 cycles a issued instruction waiting for instructions; NVIDIA's kernel 32 registers, 80%;
 * backward 56 registers, 41%, against 37 and 64%). Blocks of 256 threads an SM (ptxas -v,
 * sm_80 / sm_90, no spills): FLOAT forward rows of up to 4 vectors a lane 6 (at most 40
 * registers), 8 vectors 4; backward up to 2 vectors 5, 4 vectors 4, 8 unbounded; the 16-bit
 * types (8 elements a vector) as FLOAT with half the vectors. */
#define SM_LEAN_MINB32(NV, BWD)                                                                \
    ((BWD) ? ((NV) <= 2 ? 5 : (NV) <= 4 ? 4 : 1) : (NV) <= 4 ? 6 : (NV) <= 8 ? 4 : 1)
#define SM_LEAN_MINB(NV, BWD)                                                                  \
    (sizeof(FD_T) == 4 ? SM_LEAN_MINB32(NV, BWD) : (NV) >= 2 ? SM_LEAN_MINB32((NV) * 2, BWD) : \
                                                  (BWD) ? 5 : 6)
template <int LPR, int NV, int BWD, bool LEAN = false>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK, LEAN ? SM_LEAN_MINB(NV, BWD) : 1)
    FD_K(softmax_wreg)(const sm_geom_t g, const void *av, const void *bv, void *ov, double alpha,
                       double beta)
{
    const FD_T *a = (const FD_T *)av; /* forward x, backward y */
    const FD_T *b = (const FD_T *)bv; /* backward dy (forward: unused) */
    FD_T *o = (FD_T *)ov; /* may alias a or b: the row is in registers before any store */
    constexpr int OT = BWD ? 2 : 1; /* the output's tensor in sm_geom_t */
    const bool plain = LEAN || (alpha == 1.0 && beta == 0.0);
    const int is_log = LEAN ? 0 : g.is_log;
    const int lane = threadIdx.x % LPR;
    const int64_t rpb = FD_CUDA_BLOCK / LPR, rv = g.row_len / SM_VEC;
    for (int64_t r0 = (int64_t)blockIdx.x * rpb; r0 < g.rows; r0 += (int64_t)gridDim.x * rpb) {
        const int64_t row = r0 + threadIdx.x / LPR;
        const bool valid = row < g.rows;
        int64_t ob[SM_TENSORS];
        sm_outer(g, valid ? row : 0, ob);
        /* raw vectors (16-bit data: half the registers of floats; backward converts at use) */
        FD_K(sm_vec_t) ra[NV], rb[BWD ? NV : 1];
#pragma unroll
        for (int i = 0; i < NV; i++)
            if (valid && lane + i * LPR < rv) {
                const int64_t k = (int64_t)(lane + i * LPR) * SM_VEC;
                ra[i] = *(const FD_K(sm_vec_t) *)(a + ob[0] + k);
                if (BWD)
                    rb[BWD ? i : 0] = *(const FD_K(sm_vec_t) *)(b + ob[1] + k);
            } else {
#pragma unroll
                for (int l = 0; l < SM_VEC; l++)
                    fd_cuda_st(ra[i].e, l, 0.0); /* never used: defined all the same */
            }
        /* forward: x widened, then exp(x - m) in its place (not LOG) */
        FD_ACC va[BWD ? 1 : NV][SM_VEC];
        FD_ACC m = 0, s = 0, log_s = 0, inv_s = 0;
        if (!BWD) {
            m = -(FD_ACC)CUDART_INF;
#pragma unroll
            for (int i = 0; i < NV; i++)
#pragma unroll
                for (int l = 0; l < SM_VEC; l++) {
                    va[BWD ? 0 : i][l] = fd_cuda_ld(ra[i].e, l);
                    if (valid && lane + i * LPR < rv)
                        m = FD_K(sm_max)(m, va[BWD ? 0 : i][l]);
                }
            m = FD_K(sm_grp_max)<LPR>(m);
#pragma unroll
            for (int i = 0; i < NV; i++)
                if (valid && lane + i * LPR < rv)
#pragma unroll
                    for (int l = 0; l < SM_VEC; l++) {
                        const FD_ACC d = va[BWD ? 0 : i][l] - m;
                        const FD_ACC e = LEAN ? (FD_ACC)__expf((float)d) : FD_K(sm_exp_fwd)(d);
                        s += e;
                        if (!is_log)
                            va[BWD ? 0 : i][l] = e;
                    }
            s = FD_K(sm_grp_sum)<LPR>(s);
            log_s = is_log ? fd_cuda_log(s) : (FD_ACC)0;
            inv_s = (FD_ACC)1 / s;
        } else {
#pragma unroll
            for (int i = 0; i < NV; i++)
                if (valid && lane + i * LPR < rv)
#pragma unroll
                    for (int l = 0; l < SM_VEC; l++)
                        s += FD_K(sm_bwd_term)(is_log, fd_cuda_ld(ra[i].e, l),
                                               fd_cuda_ld(rb[BWD ? i : 0].e, l));
            s = FD_K(sm_grp_sum)<LPR>(s);
        }
#pragma unroll
        for (int i = 0; i < NV; i++)
            if (valid && lane + i * LPR < rv) {
                FD_T *op = o + ob[OT] + (int64_t)(lane + i * LPR) * SM_VEC;
                FD_K(sm_vec_t) w;
                if (!LEAN && beta != 0.0)
                    w = *(const FD_K(sm_vec_t) *)op;
#pragma unroll
                for (int l = 0; l < SM_VEC; l++) {
                    /* forward: the softmax (va holds exp(x - m)) or x - m - log(s) */
                    const FD_ACC v = BWD ? FD_K(sm_bwd_acc)(is_log, fd_cuda_ld(ra[i].e, l),
                                                            fd_cuda_ld(rb[BWD ? i : 0].e, l), s)
                                         : is_log ? va[BWD ? 0 : i][l] - m - log_s
                                         : SM_FAST16 || LEAN || g.mul_inv
                                             ? va[BWD ? 0 : i][l] * inv_s
                                                     : va[BWD ? 0 : i][l] / s;
                    if (plain)
                        sm_st_acc(w.e, l, v);
                    else
                        fd_cuda_blend(w.e, l, alpha, beta, (double)v);
                }
                *(FD_K(sm_vec_t) *)op = w;
            }
    }
}

/* ---- lean rows: one 16-byte vector a lane (softmax.cu sm_lean2_lanes, FREEDNN_GPU_SM_LEAN2) --
 * The calls of softmax_wreg's LEAN instantiations (not LOG, alpha 1, beta 0, the same values:
 * softmax.cu sm_lean_values) whose rows are exactly L 16-byte vectors, L = 4, 8, 16, 32 (NHWC
 * CHANNEL C = 128 / 64 floats: 32 / 16 lanes a row; C = 256 / 64 halves: 32 / 8 lanes), in
 * act_fwd_lean's shape: thread t of the grid holds vector t % L of row t / L (each tensor's
 * rows one stride apart: sa, sb, so), the grid covers every row (no grid-stride loop, no
 * sm_outer divisions), no blend, LOG or lane-count code, so few registers and 8 blocks of 256
 * threads an SM. The arithmetic is softmax_wreg<L, 1, BWD, true>'s op for op (the lane's
 * elements in order, then the xor butterfly over the row's L lanes), without its broadcast of
 * the row's first lane: after a butterfly every lane of the row holds the same sum (each round
 * computes a + b on one lane and b + a on its partner) and the same max up to the sign of a
 * zero or a NaN's payload, neither of which reaches an output (x - (+0) and x - (-0) differ at
 * most in a zero's sign and exp(+-0) = 1; a NaN max makes the row's outputs NaN): log2(L)
 * shuffle rounds a reduction. The load is issued first (backward: y and dy), every access one
 * 128-bit ld / st.global (st.global.cs under cs: FREEDNN_GPU_SM_LEAN2=2). The last block's
 * rows past the end load nothing, reduce zeros in their own lane groups (every lane reaches the
 * full-warp shuffles) and store nothing. In place (o == a or b): a lane stores only the vector
 * it loaded, after its load.
 * ptxas -v -warn-spills (CUDA 13), registers sm_90 (sm_80), L = 4, 8, 16, 32: FLOAT forward
 * 20, 18, 18, 18 (20, 19, 19, 18), backward 19, 19, 21, 21 (23 each); HALF / BFLOAT16 forward 22
 * (22), backward 28, 28, 28, 30 (HALF 26, 28, 28, 30; BFLOAT16 28, 28, 30, 30); no spills, no
 * stack; all <= 32, so 8 blocks of 256 an SM (full occupancy). PTX: one ld / st.global.v4 an
 * input / the output, log2(L) shfl.bfly a reduction, no divisions (softmax_wreg<32, 1, 0, true>:
 * 7 div.s64 of sm_outer, 12 shuffles, 38 registers). */
template <int L, int BWD>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK, 2048 / FD_CUDA_BLOCK)
    FD_K(softmax_lean)(int64_t rows, int64_t sa, int64_t sb, int64_t so, const void *av,
                       const void *bv, void *ov, int cs)
{
    typedef FD_K(sm_vec_t) V;
    const int64_t row = ((int64_t)blockIdx.x * FD_CUDA_BLOCK + threadIdx.x) / L;
    const int64_t k = (int64_t)(threadIdx.x % L) * SM_VEC;
    const bool valid = row < rows;
    V va, vb;
    if (valid) {
        uint4 u = *(const uint4 *)((const FD_T *)av + row * sa + k);
        memcpy(&va, &u, sizeof va);
        if (BWD) {
            u = *(const uint4 *)((const FD_T *)bv + row * sb + k);
            memcpy(&vb, &u, sizeof vb);
        }
    } else {
        memset(&va, 0, sizeof va); /* never stored */
        memset(&vb, 0, sizeof vb);
    }
    V w;
    if (!BWD) {
        FD_ACC e[SM_VEC], m = -(FD_ACC)CUDART_INF, s = 0;
#pragma unroll
        for (int l = 0; l < SM_VEC; l++) {
            e[l] = fd_cuda_ld(va.e, l);
            m = FD_K(sm_max)(m, e[l]);
        }
        m = FD_K(sm_bfly_max)<L>(m);
#pragma unroll
        for (int l = 0; l < SM_VEC; l++) {
            e[l] = (FD_ACC)__expf((float)(e[l] - m));
            s += e[l];
        }
        s = FD_K(sm_bfly_sum)<L>(s);
        const FD_ACC inv_s = (FD_ACC)1 / s;
#pragma unroll
        for (int l = 0; l < SM_VEC; l++)
            sm_st_acc(w.e, l, e[l] * inv_s);
    } else {
        FD_ACC s = 0;
#pragma unroll
        for (int l = 0; l < SM_VEC; l++)
            s += FD_K(sm_bwd_term)(0, fd_cuda_ld(va.e, l), fd_cuda_ld(vb.e, l));
        s = FD_K(sm_bfly_sum)<L>(s);
#pragma unroll
        for (int l = 0; l < SM_VEC; l++)
            sm_st_acc(w.e, l, FD_K(sm_bwd_acc)(0, fd_cuda_ld(va.e, l), fd_cuda_ld(vb.e, l), s));
    }
    if (valid) {
        uint4 u;
        memcpy(&u, &w, sizeof u);
        uint4 *op = (uint4 *)((FD_T *)ov + row * so + k);
        if (cs)
            __stcs(op, u);
        else
            *op = u;
    }
}

#undef SM_VEC
#undef SM_LEAN_MINB
#undef SM_LEAN_MINB32

/* ---- backward, strided rows: channel groups over a pixel tile (softmax.cu sm_cols_shape) ----
 * NCHW CHANNEL backward: the rows' elements are C channels H * W apart, the pixels (the
 * innermost row-enumerating dim) stride 1 in y, dy and dx. softmax_bwd_rows walked each row
 * twice from DRAM (its columns x C did not stay in cache between the passes); here a block of
 * (32, CG) threads takes 32 * PV pixels of one outer index, warp cg holds channels
 * [cg * CPT, cg * CPT + CPT) of them in registers (y and dy, raw: CPT * 2 loads of PV elements
 * in flight per thread, 32-bit registers: C = 128 floats is CPT 16 x CG 8, 128 B of y and dy a
 * thread; f16 C = 256 is CPT 16 x CG 16 with PV 2, 128 B), each warp-wide load 128 B of one
 * channel row (64 B for 16-bit data with PV 1). The per-thread partial sums (channels in
 * order) meet in shared memory and every thread adds the CG partials in order: one read of y
 * and dy, one write of dx, deterministic; the grouping differs from the ref's sequential order
 * (held within gm_tol). In place (dx == y or dy): every element is in registers before the
 * barrier and written by the thread that read it. */

#define SM_COLS_CG_MAX 16   /* channel groups (warps) a block: softmax_bwd_cols16 */
#define SM_COLS_ROW_MAX 256 /* longest row (channels) the column kernels take */

template <int PV>
struct FD_K(sm_pix_t) {
    alignas(sizeof(FD_T) * PV) FD_T e[PV];
};

/* The body of softmax_bwd_cols (at most 8 groups, blocks of up to 256, the bound it had when
 * it was measured) and softmax_bwd_cols16 (up to 16 groups, 512 threads: the C = 256 shapes
 * 16 x 16 since 2026-12-02). Separate kernels because the launch bound steers ptxas: under one
 * bound of 512 the 8-group FLOAT CPT 8 kernel took 102 registers instead of 80 (2 blocks an SM
 * instead of 3: f32 n16c64h112w112 2898 -> 1878 GB/s on the H200), and the bound written
 * (512) without its minimum 1 had ptxas give HALF CPT 16 pairs 64 registers and spill. */
template <int CPT, int PV, int CGM>
static __device__ __forceinline__ void FD_K(softmax_bwd_cols_body)(const sm_geom_t &g,
                                                                  const void *yv, const void *dyv,
                                                                  void *dxv, double alpha,
                                                                  double beta)
{
    __shared__ FD_ACC red[CGM][32 * PV];
    typedef FD_K(sm_pix_t)<PV> pix_t;
    const FD_T *y = (const FD_T *)yv;
    const FD_T *dy = (const FD_T *)dyv;
    FD_T *dx = (FD_T *)dxv;
    const bool plain = alpha == 1.0 && beta == 0.0;
    const int lane = threadIdx.x, cg = threadIdx.y, ncg = blockDim.y;
    const int64_t C = g.row_len, S = g.odim[g.no - 1];
    const int64_t tiles = (S + 32 * PV - 1) / (32 * PV), total = tiles * (g.rows / S);
    const int64_t rs0 = g.rst[0][0], rs1 = g.rst[1][0], rs2 = g.rst[2][0];
    const int c0 = cg * CPT;
    for (int64_t blk = blockIdx.x; blk < total; blk += gridDim.x) {
        const int64_t outer = blk / tiles;
        const int64_t p = (blk - outer * tiles) * (32 * PV) + (int64_t)lane * PV;
        const bool valid = p < S; /* PV divides S */
        int64_t base[SM_TENSORS] = {p, p, p};
        int64_t r = outer;
        for (int d = g.no - 2; d >= 0; d--) {
            const int64_t i = r % g.odim[d];
            r /= g.odim[d];
            for (int t = 0; t < SM_TENSORS; t++)
                base[t] += i * g.ost[t][d];
        }
        /* channels c0 .. c0 + nk - 1 (none past a partial tile's end) */
        const int nk = valid ? (int)(C - c0 < CPT ? C - c0 : CPT) : 0;
        const FD_T *yp = y + base[0] + c0 * rs0, *gp = dy + base[1] + c0 * rs1;
        pix_t vy[CPT], vd[CPT];
#pragma unroll
        for (int k = 0; k < CPT; k++)
            if (k < nk) {
                vy[k] = *(const pix_t *)(yp + k * rs0);
                vd[k] = *(const pix_t *)(gp + k * rs1);
            }
        FD_ACC part[PV];
#pragma unroll
        for (int q = 0; q < PV; q++)
            part[q] = 0;
#pragma unroll
        for (int k = 0; k < CPT; k++)
            if (k < nk)
#pragma unroll
                for (int q = 0; q < PV; q++)
                    part[q] += FD_K(sm_bwd_term)(g.is_log, fd_cuda_ld(vy[k].e, q),
                                                 fd_cuda_ld(vd[k].e, q));
#pragma unroll
        for (int q = 0; q < PV; q++)
            red[cg][lane * PV + q] = part[q];
        __syncthreads();
        FD_ACC s[PV];
#pragma unroll
        for (int q = 0; q < PV; q++) {
            s[q] = red[0][lane * PV + q];
            for (int j = 1; j < ncg; j++)
                s[q] += red[j][lane * PV + q];
        }
        FD_T *dp = dx + base[2] + c0 * rs2;
#pragma unroll
        for (int k = 0; k < CPT; k++)
            if (k < nk) {
                pix_t *op = (pix_t *)(dp + k * rs2);
                pix_t w;
                if (beta != 0.0)
                    w = *op;
#pragma unroll
                for (int q = 0; q < PV; q++) {
                    const FD_ACC v = FD_K(sm_bwd_acc)(g.is_log, fd_cuda_ld(vy[k].e, q),
                                                      fd_cuda_ld(vd[k].e, q), s[q]);
                    if (plain)
                        sm_st_acc(w.e, q, v);
                    else
                        fd_cuda_blend(w.e, q, alpha, beta, (double)v);
                }
                *op = w;
            }
        __syncthreads(); /* red is rewritten by the next tile */
    }
}

template <int CPT, int PV>
static __global__ void __launch_bounds__(256)
    FD_K(softmax_bwd_cols)(const sm_geom_t g, const void *yv, const void *dyv, void *dxv,
                           double alpha, double beta)
{
    FD_K(softmax_bwd_cols_body)<CPT, PV, 8>(g, yv, dyv, dxv, alpha, beta);
}

template <int CPT, int PV>
static __global__ void __launch_bounds__(32 * SM_COLS_CG_MAX, 1)
    FD_K(softmax_bwd_cols16)(const sm_geom_t g, const void *yv, const void *dyv, void *dxv,
                             double alpha, double beta)
{
    FD_K(softmax_bwd_cols_body)<CPT, PV, SM_COLS_CG_MAX>(g, yv, dyv, dxv, alpha, beta);
}

/* ---- backward, strided rows, alpha 1 / beta 0: softmax_bwd_cols_lean (FREEDNN_GPU_SM_BCOLS3) -
 * The calls of softmax_bwd_cols / softmax_bwd_cols16 with alpha 1 and beta 0 (ACCURATE, FAST
 * and LOG, FLOAT / HALF / BFLOAT16, HALF pairs where sm_cols_pairs allows them, CPT 2 .. 16:
 * C <= 256 under sm_cols_shape's default groups; at most 65535 outer indices and images of
 * < 2^31 elements: softmax.cu sm_bcols_lean_ok), in their channel groups, bit-identical to them,
 * with the overhead cut (dev/softmax_nchw_bwd's v3; v1 and v2 there measure the steps).
 * Mapping: block (32, CG) = one tile of 32 PV pixels of one outer index (blockIdx.x the tile,
 * blockIdx.y the outer index: no grid-stride loop, no 64-bit divisions); thread (lane, cg) loads
 * channels [cg CPT, cg CPT + CPT) of pixels lane PV .. + PV - 1 of y and dy as raw words (2 CPT
 * loads in flight, the addresses walked one channel row at a time), sums dy y (LOG: dy) over
 * them in channel order from 0 (ACCURATE: a rounded product, then a rounded add, as
 * sm_bwd_term's runtime select between dy y and dy keeps softmax_bwd_cols' mul and add apart),
 * leaves the partial in shared memory [pixel][group]; one thread a pixel adds the CG partials in
 * group order (softmax_bwd_cols has every thread of the pixel repeat that fold: 16 loads and
 * adds a pixel a thread at C = 256) and leaves the sum in shared memory (2 barriers); then
 * dx = y (dy - s) (LOG: dy - expf(y) s), sm_bwd_acc's expressions, rounded once (a HALF pair by
 * one cvt, as the per-element roundings). The raw words are held across the barriers, not their
 * widened floats (sm_raw_opaque); LOG is a template argument (no runtime selects), the blend
 * code is gone, offsets inside an outer index's image are 32-bit, and the per-channel guards
 * stay only in edge tiles (a block-uniform path for tiles of whole pixels and groups).
 * __launch_bounds__ cap the registers at 64 for CPT 16 (2 blocks of 512, 4 of 256 an SM) and 40
 * below (6 blocks of 256; sm_bcols_lean_minb).
 * Bits: the same per-thread sums, the same group order, the same output expressions, so the same
 * values, NaN and inf included (only a NaN's payload may differ). dev/softmax_nchw_bwd, H200,
 * 2026-12-03, graph replay over rotated buffers (> 3 x L2), GB/s = (y + dy + dx bytes) / time,
 * softmax_bwd_cols(16) -> v3 (this kernel's arithmetic and shapes; a device-to-device copy of
 * one tensor ran 3959-4035 in the same run): f16 n32c256h56w56 1556 -> 4051 (99.07 -> 38.05 us),
 * f16 n32c64h112w112 2424 -> 4051, LOG 2200 -> 4026, f32 n32c128h56w56 2955 -> 4035,
 * f32 n16c64h112w112 2913 -> 4049; every output identical there (FLOAT and HALF, 9 small shapes:
 * odd pixel counts, C not a multiple of CPT, partial tiles, NaN / +inf / overflowing dy /
 * constant columns, LOG; v6, the same with evict-first hints, was within 0.3 %: not taken).
 * Tail pixels (nk = 0) load and store nothing and leave 0 partials in their own slots, which no
 * valid pixel reads. In place (dx == y or dx == dy): every element of y and dy a thread reads is
 * in its registers before the first barrier, and it writes only those elements of dx, after the
 * second.
 * ptxas -v -warn-spills (CUDA 13), registers sm_90 (sm_80 where it differs), ACCURATE and LOG
 * alike unless two figures: CPT 2 and 4 36 (FLOAT CPT 4 LOG 38), CPT 8 40 (BFLOAT16 ACCURATE
 * sm_80 39), CPT 16 64 (8 and 16 groups, every type, HALF pairs too); the two old kernels held
 * 56-86 on these shapes (dev/softmax_nchw_bwd's table). 0 bytes spilled, no stack frame in any.
 * Shared memory 32 PV (NGM + 1) x 4 B of partials and 32 PV x 4 B of sums: 1.3 KiB (PV 1,
 * NGM 8) to 4.5 KiB (PV 2, NGM 16) a block. */

static __device__ __forceinline__ void FD_K(sm_ptr_opaque)(const FD_T *&p)
{
    asm volatile("" : "+l"(p));
}
static __device__ __forceinline__ void FD_K(sm_ptr_opaque)(FD_T *&p)
{
    asm volatile("" : "+l"(p));
}

/* One tile: yp, gp, dp the thread's first channel row in y, dy and dx; ys, gs, xs their
 * channel strides; nk_ its channels (0: pixels past the image's). FULL (block-uniform: every
 * pixel of the tile valid, C a multiple of CPT) drops the per-channel guards. */
template <int CPT, int PV, int NGM, bool LOG, bool FULL>
static __device__ __forceinline__ void
FD_K(softmax_bwd_cols_lean_tile)(sm_bcols_lean_sh<PV, NGM> &sh, const FD_T *yp, const FD_T *gp,
                                 FD_T *dp, int nk_, int ys, int gs, int xs)
{
    typedef typename sm_word_of<sizeof(FD_T) * PV>::t word_t;
    const FD_T *const tag = NULL; /* the storage type, for the sm_raw_* overloads */
    constexpr int P = 32 * PV, NS = NGM + 1;
    const int nk = FULL ? CPT : nk_;
    const int lane = threadIdx.x, cg = threadIdx.y, ncg = blockDim.y;
    word_t ry[CPT], rd[CPT];
#pragma unroll
    for (int k = 0; k < CPT; k++) {
        if (k < nk) {
            ry[k] = *(const word_t *)yp;
            rd[k] = *(const word_t *)gp;
        }
        yp += ys, gp += gs;
        FD_K(sm_ptr_opaque)(yp), FD_K(sm_ptr_opaque)(gp);
    }
    float s[PV];
#pragma unroll
    for (int q = 0; q < PV; q++)
        s[q] = 0;
#pragma unroll
    for (int k = 0; k < CPT; k++)
        if (k < nk) {
            float fy[PV], fd[PV];
            sm_raw_wide(tag, ry[k], fy);
            sm_raw_wide(tag, rd[k], fd);
#pragma unroll
            for (int q = 0; q < PV; q++)
                s[q] = LOG ? s[q] + fd[q] : __fadd_rn(s[q], __fmul_rn(fd[q], fy[q]));
        }
#pragma unroll
    for (int q = 0; q < PV; q++)
        sh.red[(lane * PV + q) * NS + cg] = s[q];
    __syncthreads();
#pragma unroll 1
    for (int pp = cg * 32 + lane; pp < P; pp += 32 * ncg) {
        const float *r = sh.red + pp * NS;
        float a = r[0];
#pragma unroll 4
        for (int j = 1; j < ncg; j++)
            a += r[j];
        sh.fin[pp] = a;
    }
    __syncthreads();
    if (PV == 2) {
        const float2 t = *(const float2 *)(sh.fin + lane * PV);
        s[0] = t.x, s[PV - 1] = t.y;
    } else {
        s[0] = sh.fin[lane];
    }
    /* after the barriers: the raw words held, not their widened floats */
#pragma unroll
    for (int k = 0; k < CPT; k++)
        if (k < nk)
            sm_raw_opaque(ry[k]), sm_raw_opaque(rd[k]);
#pragma unroll
    for (int k = 0; k < CPT; k++) {
        if (k < nk) {
            float fy[PV], fd[PV], o[PV];
            sm_raw_wide(tag, ry[k], fy);
            sm_raw_wide(tag, rd[k], fd);
#pragma unroll
            for (int q = 0; q < PV; q++)
                o[q] = LOG ? fd[q] - expf(fy[q]) * s[q] : fy[q] * (fd[q] - s[q]);
            word_t w;
            sm_raw_narrow(tag, &w, o);
            *(word_t *)dp = w;
        }
        dp += xs;
        FD_K(sm_ptr_opaque)(dp);
    }
}

/* ys, gs, xs: the channel strides of y, dy and dx; S: the pixels of an outer index (the
 * innermost row-enumerating dim, stride 1). */
template <int CPT, int PV, int NGM, bool LOG>
static __global__ void __launch_bounds__(32 * NGM, sm_bcols_lean_minb<CPT, NGM>::v)
    FD_K(softmax_bwd_cols_lean)(const sm_geom_t g, const void *yv, const void *dyv, void *dxv,
                                int ys, int gs, int xs, int S)
{
    __shared__ sm_bcols_lean_sh<PV, NGM> sh;
    const FD_T *y = (const FD_T *)yv; /* dx may be y or dy */
    const FD_T *dy = (const FD_T *)dyv;
    FD_T *dx = (FD_T *)dxv;
    const int lane = threadIdx.x, cg = threadIdx.y;
    const int C = (int)g.row_len, c0 = cg * CPT;
    const int nkv = C - c0 < CPT ? C - c0 : CPT; /* the last group may hold fewer */
    /* the outer index's offsets (at most 65535 outer indices: every outer dim but the
     * innermost fits 32 bits; the outermost index is what remains of blockIdx.y) */
    int64_t oy = 0, og = 0, ox = 0;
    unsigned r = blockIdx.y;
    for (int d = g.no - 2; d > 0; d--) {
        const unsigned i = r % (unsigned)g.odim[d];
        r /= (unsigned)g.odim[d];
        oy += i * g.ost[0][d];
        og += i * g.ost[1][d];
        ox += i * g.ost[2][d];
    }
    if (g.no > 1) {
        oy += r * g.ost[0][0];
        og += r * g.ost[1][0];
        ox += r * g.ost[2][0];
    }
    const int p = (int)blockIdx.x * (32 * PV) + lane * PV;
    const int nk = p < S ? nkv : 0; /* PV divides S */
    const FD_T *yp = y + oy + (c0 * ys + p), *gp = dy + og + (c0 * gs + p);
    FD_T *dp = dx + ox + (c0 * xs + p);
    if (C % CPT == 0 && ((int)blockIdx.x + 1) * (32 * PV) <= S)
        FD_K(softmax_bwd_cols_lean_tile)<CPT, PV, NGM, LOG, true>(sh, yp, gp, dp, CPT, ys, gs, xs);
    else
        FD_K(softmax_bwd_cols_lean_tile)<CPT, PV, NGM, LOG, false>(sh, yp, gp, dp, nk, ys, gs, xs);
}

/* ---- forward, strided rows: channel groups over a pixel tile (softmax.cu sm_fcols_shape) ----
 * The forward twin of softmax_bwd_cols for the same calls (NCHW CHANNEL: C <= 256 channels
 * H * W apart, the pixels stride 1 in x and y), behind FREEDNN_GPU_SM_FCOLS.
 * softmax_fwd_rows_online read each row twice from DRAM (the columns x C do not stay in L2)
 * and a warp's access was 32 pixels (64 B for 16-bit data). Mapping: block (32, CG) = one tile
 * of 32 * PV pixels of one outer index (blockIdx.x the tile, blockIdx.y the outer index: one
 * tile a block, no grid-stride loop, so no per-channel address stays live across tiles; with
 * the loop ptxas held them and spilled); thread (lane, cg) holds pixels lane * PV .. + PV - 1
 * of the tile, channels [cg * CPT, cg * CPT + CPT), loaded all at once (CPT loads in flight a
 * thread; HALF and BFLOAT16 pairs are one 32-bit load, 128 B a warp), widened to FD_ACC, then
 * exp(x - max) in their place (x - max for LOG): x read once, y written once, each exp
 * evaluated once. Max: each thread's channels in order, the CG partials through shared memory
 * read in group order by every thread (exact; the ref's NaN rule by sm_max); sum: the same with
 * the exp values. The passes are the ref's (max, sum of exp(x - max), write), so a NaN makes
 * its pixel's column NaN, +inf gives NaN (inf - inf) and a column of -inf NaN (0 / 0), as
 * src/ref; only the sum's grouping differs (per thread, then the groups in order: within
 * gm_tol). Values as softmax_wreg's generic forward: the 16-bit types take exp from the SFU and
 * multiply by 1 / sum; FLOAT expf and the division (the product under g.mul_inv,
 * FREEDNN_GPU_BW3); LOG (x - max) - log(sum). alpha 1, beta 0 stores the value rounded once
 * without the double blend; LEAN (not LOG, alpha 1, beta 0; the same values) drops the blend
 * and LOG code and holds the registers to 2 blocks of 512 threads an SM. Barriers: max and sum
 * have their own shared arrays (two barriers, the block ends after the second); every thread
 * reaches both (tail pixels: nk = 0, no loads or stores, partials -inf / 0 in their own
 * columns, which no valid pixel reads). In place (y == x): each element is written by the
 * thread that read it, after its read.
 * ptxas -v -warn-spills (CUDA 13), LEAN, sm_90 (sm_80): FLOAT C = 64 CPT 8 x CG 8 (256 threads)
 * 40 (34) registers, 6 blocks = 75% of an SM's 2048 threads; C = 128 CPT 16 x CG 8 47 (40),
 * 5 blocks = 62%; C = 256 CPT 16 x CG 16 (512) 47 (40), 2 blocks = 50%; HALF / BFLOAT16 pairs
 * C = 64 CPT 8 x CG 8 x PV 2 48 (48), 5 blocks = 62%; C = 128 CPT 8 x CG 16 the same 48,
 * 2 blocks = 50%; C = 256 CPT 16 x CG 16 x PV 2 62 / 61 (64), 2 blocks = 50%; one element a
 * lane (odd pixel counts) CPT 16 64; generic (blend, LOG; __launch_bounds__(512, 1)) 34 to 80;
 * no spills anywhere; shared memory 2 x 16 x 32 PV x 4 B = 4 KiB (PV 1), 8 KiB (PV 2) a block,
 * laid out [group][q][lane] (no bank conflicts); 16-bit pairs stored as one 32-bit access. */

#define SM_FCOLS_CG_MAX 16

template <int CPT, int PV, bool LEAN>
static __global__ void __launch_bounds__(32 * SM_FCOLS_CG_MAX, LEAN ? 2 : 1)
    FD_K(softmax_fwd_cols)(const sm_geom_t g, const void *xv, void *yv, double alpha,
                           double beta)
{
    __shared__ FD_ACC red_m[SM_FCOLS_CG_MAX][32 * PV], red_s[SM_FCOLS_CG_MAX][32 * PV];
    typedef FD_K(sm_pix_t)<PV> pix_t;
    const FD_T *x = (const FD_T *)xv; /* y may be x */
    FD_T *y = (FD_T *)yv;
    const bool plain = LEAN || (alpha == 1.0 && beta == 0.0);
    const int is_log = LEAN ? 0 : g.is_log;
    const int lane = threadIdx.x, cg = threadIdx.y, ncg = blockDim.y;
    const int64_t C = g.row_len, S = g.odim[g.no - 1];
    const int64_t xs = g.rst[0][0], ys = g.rst[1][0];
    const int c0 = cg * CPT;
    /* nk: channels c0 .. c0 + nk - 1 of a valid pixel (the last group may hold fewer) */
    const int nkv = (int)(C - c0 < CPT ? C - c0 : CPT);
    /* one tile a block: blockIdx.x the tile of pixels, blockIdx.y the outer index (softmax.cu
     * takes at most 65535 of them); no loop, so no per-channel address is held across tiles */
    const int64_t outer = blockIdx.y;
    /* the outer dims' offsets (the outermost index is what remains of `outer`) */
    int64_t ox = 0, oy = 0, r = outer;
    for (int d = g.no - 2; d > 0; d--) {
        const int64_t i = r % g.odim[d];
        r /= g.odim[d];
        ox += i * g.ost[0][d];
        oy += i * g.ost[1][d];
    }
    if (g.no > 1) {
        ox += r * g.ost[0][0];
        oy += r * g.ost[1][0];
    }
    const int64_t p = (int64_t)blockIdx.x * (32 * PV) + lane * PV;
    const bool valid = p < S; /* PV divides S */
    const int nk = valid ? nkv : 0;
    const FD_T *xp = x + ox + p + c0 * xs;
    FD_ACC e[CPT][PV], m[PV];
    {
        pix_t vx[CPT];
#pragma unroll
        for (int k = 0; k < CPT; k++)
            if (k < nk)
                vx[k] = *(const pix_t *)(xp + k * xs);
#pragma unroll
        for (int q = 0; q < PV; q++)
            m[q] = -(FD_ACC)CUDART_INF;
#pragma unroll
        for (int k = 0; k < CPT; k++)
            if (k < nk)
#pragma unroll
                for (int q = 0; q < PV; q++) {
                    e[k][q] = fd_cuda_ld(vx[k].e, q);
                    m[q] = FD_K(sm_max)(m[q], e[k][q]);
                }
    }
#pragma unroll
    for (int q = 0; q < PV; q++)
        red_m[cg][q * 32 + lane] = m[q];
    __syncthreads();
#pragma unroll
    for (int q = 0; q < PV; q++) {
        m[q] = red_m[0][q * 32 + lane];
        for (int j = 1; j < ncg; j++)
            m[q] = FD_K(sm_max)(m[q], red_m[j][q * 32 + lane]);
    }
    FD_ACC s[PV];
#pragma unroll
    for (int q = 0; q < PV; q++)
        s[q] = 0;
#pragma unroll
    for (int k = 0; k < CPT; k++)
        if (k < nk)
#pragma unroll
            for (int q = 0; q < PV; q++) {
                const FD_ACC d = e[k][q] - m[q];
                const FD_ACC ex = FD_K(sm_exp_fwd)(d);
                s[q] += ex;
                e[k][q] = is_log ? d : ex;
            }
#pragma unroll
    for (int q = 0; q < PV; q++)
        red_s[cg][q * 32 + lane] = s[q];
    __syncthreads();
    FD_ACC lsi[PV]; /* LOG: log(sum); else 1 / sum */
#pragma unroll
    for (int q = 0; q < PV; q++) {
        s[q] = red_s[0][q * 32 + lane];
        for (int j = 1; j < ncg; j++)
            s[q] += red_s[j][q * 32 + lane];
        lsi[q] = is_log ? fd_cuda_log(s[q]) : (FD_ACC)1 / s[q];
    }
    FD_T *yp = y + oy + p + c0 * ys;
#pragma unroll
    for (int k = 0; k < CPT; k++)
        if (k < nk) {
            pix_t *op = (pix_t *)(yp + k * ys);
            pix_t w;
            if (!LEAN && beta != 0.0)
                w = *op;
#pragma unroll
            for (int q = 0; q < PV; q++) {
                const FD_ACC v = is_log ? e[k][q] - lsi[q]
                                 : SM_FAST16 || g.mul_inv ? e[k][q] * lsi[q]
                                                          : e[k][q] / s[q];
                if (plain)
                    sm_st_acc(w.e, q, v);
                else
                    fd_cuda_blend(w.e, q, alpha, beta, (double)v);
            }
            /* one access (16-bit pairs: the struct copy was two 16-bit stores) */
            typedef typename sm_word_of<sizeof(pix_t)>::t word_t;
            word_t u;
            memcpy(&u, &w, sizeof u);
            *(word_t *)op = u;
        }
}

/* ---- forward, strided rows, alpha 1 / beta 0: softmax_fwd_cols_lean (FREEDNN_GPU_SM_FCOLS3) --
 * The calls of softmax_fwd_cols<CPT, PV, true> (not LOG, alpha 1, beta 0; FLOAT under g.mul_inv,
 * whose product it computes; softmax.cu sm_fcols_lean_ok) in its block and thread mapping,
 * bit-identical to it, with the per-element work cut (dev/softmax_nchw's v3; v1 and v2 there
 * measure the steps):
 *   max:  on the raw elements (sm_raw_max: max.NaN.f32, or one max.NaN.{f16,bf16}[x2] a word)
 *         instead of sm_max's NaN tests and selects on each widened element;
 *   exp:  sm_fcols_exp, sm_exp_fwd's bits (HALF without __expf's denormal fix-up: see there why
 *         no output changes); 16-bit data keeps the raw x in registers (half the registers of
 *         the floats) and evaluates exp(x - max) again for the output (the same bits), FLOAT
 *         keeps the exps in the registers of x;
 *   fold: the CG partials folded once a pixel (thread t takes pixels t, t + 32 CG, ..., groups
 *         in order: the max, then the sum and its reciprocal), the results through shared
 *         memory: 4 barriers instead of 2, where softmax_fwd_cols has every thread of a pixel
 *         fold all CG partials again (16 x 2 loads and ops a pixel a thread at C = 256);
 *   out:  e * sm_rcp_sum(sum) (rcp.rn's fast path inline: its bits for every row sum, no CALL),
 *         a pair rounded by one cvt;
 *   the rest: 32-bit offsets inside an outer index's image (one IMAD.WIDE an address; softmax.cu
 *         takes images of < 2^31 elements), the outer index split by 32-bit divisions (64-bit
 *         ones are a CALL each: with them ptxas spilled even at 64 registers), the per-channel
 *         guards only in edge tiles (a block-uniform path for tiles of whole pixels and
 *         groups), the y address formed at the store from the image base in shared memory
 *         (held in registers from the start, HALF CPT 16 PV 1 spilled 4 bytes on sm_90);
 *         __launch_bounds__ for 40 registers at CPT 16 (3 blocks of 512 threads an SM) and 32
 *         below (4 blocks), BFLOAT16 pairs at CPT 16 64 (2 blocks; sm_fcols_lean_minb).
 * Bits: the max is exact in any order (a NaN anywhere gives NaN either way, only its payload may
 * differ); each thread sums its CPT channels in order from 0 and the CG partial sums are added
 * in group order, softmax_fwd_cols' grouping; exp and reciprocal give its bits. So NaN, +inf
 * and a column of -inf give NaN as there. dev/softmax_nchw, H200, 2026-12-03, graph replay,
 * GB/s = (x + y bytes) / time, softmax_fwd_cols -> v3 (this kernel's arithmetic and shapes):
 * f16 n32c256h56w56 1871 -> 3679, f16 n32c64h112w112 1833 -> 3810, f32 n32c128h56w56
 * 1841 -> 3811, f32 n16c64h112w112 2042 -> 3830; every output identical to softmax_fwd_cols'
 * there (NaN / +inf / -inf / underflowing / constant columns, odd pixel counts, partial groups
 * and tiles; FLOAT and HALF only there; the port, BFLOAT16 too and columns whose outputs are
 * bfloat16 denormals, in place as well, against softmax_fwd_cols' LEAN instantiation on the
 * H200 the same day by a one-off harness: every output identical). Tail
 * pixels (nk = 0) load and store nothing and leave -inf / 0 partials in their own slots, which
 * no valid pixel reads. In place (y == x): each element is written by the thread that read it,
 * after the block's last barrier.
 * ptxas -v -warn-spills (CUDA 13), registers sm_90 / sm_80 by CPT x PV (softmax_fwd_cols'
 * LEAN instantiation: 34-64 on sm_90, under a bound of 2 blocks of 512):
 *   FLOAT     2 x 1 28 / 28, 4 x 1 28 / 28, 8 x 1 32 / 32, 16 x 1 40 / 40;
 *   HALF      2 x 1 and 2 x 2 28 / 28, 4 x 1 and 4 x 2 28 / 28, 8 x 1 and 8 x 2 32 / 32,
 *             16 x 1 and 16 x 2 40 / 40;
 *   BFLOAT16  as HALF, but 4 x 2 32 / 28 and 16 x 2 58 / 58 (its bound of 64: at 40 it spilled
 *             16 bytes on sm_90);
 * 0 bytes spilled, no stack frame in any. Shared memory: the partials [pixel][group] with a
 * stride of 17 (the folder's walk is conflict-free), 2 x 32 PV x 17 x 4 B, the results
 * 2 x 32 PV x 4 B and the y base: 4.6 KiB (PV 1), 9.2 KiB (PV 2) a block. */

template <int CPT, int PV> struct FD_K(sm_fcols_lean_sh) {
    float red_m[32 * PV * (SM_FCOLS_CG_MAX + 1)]; /* the groups' partials, [pixel][group] */
    float red_s[32 * PV * (SM_FCOLS_CG_MAX + 1)];
    float fin_m[32 * PV] __attribute__((aligned(8))); /* the pixel's max */
    float fin_l[32 * PV] __attribute__((aligned(8))); /* 1 / the pixel's sum */
    FD_T *yb;                                         /* y of the block's outer index */
};

/* One tile from the thread's raw words raw[k], k < nk; ys: y's channel stride. FULL
 * (block-uniform: every pixel of the tile valid, C a multiple of CPT) drops the per-channel
 * guards. */
template <int CPT, int PV, bool FULL>
static __device__ __forceinline__ void
FD_K(softmax_fwd_cols_lean_tile)(FD_K(sm_fcols_lean_sh) < CPT, PV > &sh,
                                 const typename sm_word_of<sizeof(FD_T) * PV>::t *raw, int nk_,
                                 int ys)
{
    typedef typename sm_word_of<sizeof(FD_T) * PV>::t word_t;
    const FD_T *const tag = NULL;            /* the storage type, for the sm_raw_* overloads */
    const float *const ftag = NULL;          /* float partials */
    constexpr bool hold = sizeof(FD_T) == 4; /* FLOAT: the exps stay in the registers of x */
    constexpr int P = 32 * PV, NS = SM_FCOLS_CG_MAX + 1;
    const int nk = FULL ? CPT : nk_;
    const int lane = threadIdx.x, cg = threadIdx.y, ncg = blockDim.y;
    const int tid = cg * 32 + lane, nthr = 32 * ncg;
    float m[PV];
    {
        word_t mw;
        sm_raw_ninf(tag, &mw);
#pragma unroll
        for (int k = 0; k < CPT; k++)
            if (k < nk)
                mw = sm_raw_max(tag, mw, raw[k]);
        sm_raw_wide(tag, mw, m);
    }
#pragma unroll
    for (int q = 0; q < PV; q++)
        sh.red_m[(lane * PV + q) * NS + cg] = m[q];
    __syncthreads();
#pragma unroll 1
    for (int pp = tid; pp < P; pp += nthr) {
        const float *r = sh.red_m + pp * NS;
        unsigned a = __float_as_uint(r[0]);
#pragma unroll 4
        for (int j = 1; j < ncg; j++)
            a = sm_raw_max(ftag, a, __float_as_uint(r[j]));
        sh.fin_m[pp] = __uint_as_float(a);
    }
    __syncthreads();
    if (PV == 2) {
        const float2 t = *(const float2 *)(sh.fin_m + lane * PV);
        m[0] = t.x, m[PV - 1] = t.y;
    } else {
        m[0] = sh.fin_m[lane];
    }
    float s[PV], e[hold ? CPT : 1][PV];
#pragma unroll
    for (int q = 0; q < PV; q++)
        s[q] = 0;
#pragma unroll
    for (int k = 0; k < CPT; k++)
        if (k < nk) {
            float f[PV];
            sm_raw_wide(tag, raw[k], f);
#pragma unroll
            for (int q = 0; q < PV; q++) {
                const float ex = sm_fcols_exp(tag, f[q] - m[q]);
                s[q] += ex;
                if (hold)
                    e[hold ? k : 0][q] = ex;
            }
        }
#pragma unroll
    for (int q = 0; q < PV; q++)
        sh.red_s[(lane * PV + q) * NS + cg] = s[q];
    __syncthreads();
#pragma unroll 1
    for (int pp = tid; pp < P; pp += nthr) {
        const float *r = sh.red_s + pp * NS;
        float a = r[0];
#pragma unroll 4
        for (int j = 1; j < ncg; j++)
            a += r[j];
        sh.fin_l[pp] = sm_rcp_sum(a);
    }
    __syncthreads();
    float lsi[PV];
    if (PV == 2) {
        const float2 t = *(const float2 *)(sh.fin_l + lane * PV);
        lsi[0] = t.x, lsi[PV - 1] = t.y;
    } else {
        lsi[0] = sh.fin_l[lane];
    }
    /* y's offset inside the image (< 2^31: softmax.cu), formed here from the thread's indices */
    const int yo = cg * CPT * ys + (int)blockIdx.x * P + lane * PV;
#pragma unroll
    for (int k = 0; k < CPT; k++)
        if (k < nk) {
            float f[PV];
            if (hold) {
#pragma unroll
                for (int q = 0; q < PV; q++)
                    f[q] = e[hold ? k : 0][q] * lsi[q];
            } else {
                sm_raw_wide(tag, raw[k], f);
#pragma unroll
                for (int q = 0; q < PV; q++)
                    f[q] = sm_fcols_exp(tag, f[q] - m[q]) * lsi[q];
            }
            word_t w;
            sm_raw_narrow(tag, &w, f);
            *(word_t *)(sh.yb + (yo + k * ys)) = w;
        }
}

/* xs, ys: the channel strides of x and y; S: the pixels of an outer index (the innermost
 * row-enumerating dim, stride 1). */
template <int CPT, int PV>
static __global__ void __launch_bounds__(32 * SM_FCOLS_CG_MAX, sm_fcols_lean_minb<FD_T, CPT, PV>::v)
    FD_K(softmax_fwd_cols_lean)(const sm_geom_t g, const void *xv, void *yv, int xs, int ys, int S)
{
    typedef typename sm_word_of<sizeof(FD_T) * PV>::t word_t;
    __shared__ FD_K(sm_fcols_lean_sh)<CPT, PV> sh;
    const FD_T *x = (const FD_T *)xv; /* y may be x */
    FD_T *y = (FD_T *)yv;
    const int lane = threadIdx.x, cg = threadIdx.y;
    const int C = (int)g.row_len, c0 = cg * CPT;
    const int nkv = C - c0 < CPT ? C - c0 : CPT; /* the last group may hold fewer */
    /* one tile a block (blockIdx.x the tile, blockIdx.y the outer index, at most 65535: every
     * outer dim but the innermost fits 32 bits), as softmax_fwd_cols */
    int64_t ox = 0, oy = 0;
    unsigned r = blockIdx.y;
    for (int d = g.no - 2; d > 0; d--) {
        const unsigned i = r % (unsigned)g.odim[d];
        r /= (unsigned)g.odim[d];
        ox += i * g.ost[0][d];
        oy += i * g.ost[1][d];
    }
    if (g.no > 1) {
        ox += r * g.ost[0][0];
        oy += r * g.ost[1][0];
    }
    if (lane == 0 && cg == 0)
        sh.yb = y + oy; /* read after the tile's barriers */
    const int p = (int)blockIdx.x * (32 * PV) + lane * PV;
    const int nk = p < S ? nkv : 0; /* PV divides S */
    const FD_T *xp = x + ox + (c0 * xs + p);
    word_t raw[CPT];
    if (C % CPT == 0 && ((int)blockIdx.x + 1) * (32 * PV) <= S) {
#pragma unroll
        for (int k = 0; k < CPT; k++)
            raw[k] = *(const word_t *)(xp + k * xs);
        FD_K(softmax_fwd_cols_lean_tile)<CPT, PV, true>(sh, raw, CPT, ys);
    } else {
#pragma unroll
        for (int k = 0; k < CPT; k++)
            if (k < nk)
                raw[k] = *(const word_t *)(xp + k * xs);
        FD_K(softmax_fwd_cols_lean_tile)<CPT, PV, false>(sh, raw, nk, ys);
    }
}

#undef SM_FAST16
#undef SM_WARP_ROWS
#undef FD_K
