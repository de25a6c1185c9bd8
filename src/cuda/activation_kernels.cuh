/* SPDX-License-Identifier: MIT */
/*
 * activation_kernels.cuh - the kernels of activation.cu for one storage type. activation.cu
 * includes this once per type with FD_T (storage), FD_ACC (the type the transcendental
 * functions run in: float, double for DOUBLE) and FD_SFX (f32, f64, f16, bf16) defined.
 *
 * The mode formulas are src/core/activation.h's, evaluated in double around the one
 * transcendental call (exp, expm1, tanh in FD_ACC; exp in double, as the ref, where FD_ACC's
 * would overflow or be subnormal: act_sigmoid, ELU backward): the piecewise modes (RELU,
 * CLIPPED_RELU, IDENTITY, the positive branch of ELU) and every derivative that needs no
 * transcendental are therefore bit-identical to the reference; the others differ by the float
 * function's few ulps.
 *
 * Two walks of the same per-element code: act_fwd / act_bwd follow the collapsed strides of
 * act_geom_t (any layout); act_fwd_packed / act_bwd_packed take tensors that are dense in one
 * common layout and 16-byte aligned (activation.cu checks both on the host) and move
 * FD_CUDA_UNROLL 128-bit vectors per thread per trip, every load of a trip issued before any
 * compute, the last total % VN elements by the first threads of block 0. Each vector is read
 * and written by one thread, so in-place calls stay exact. act_bwd_packed loads only the
 * operands the mode's derivative reads (y for SIGMOID / TANH, x for the others): ReLU
 * backward moves three streams, not four.
 */

#define FD_K(name) FD_CUDA_CAT(name, FD_SFX)

/* 1 / (1 + e^-v) for v given in double; the argument is split into FD_ACC's nearest value and
 * the remainder, e^-(hi + lo) = e^-hi (1 - lo) to first order, so a float exp loses nothing to
 * the rounding of a product such as swish's beta * x. Where e^-v is beyond float (v below
 * -88.7), double's exp, as the ref's: the sigmoid is then tiny but not 0 in double, and swish's
 * x s and its slope times a huge dy are not 0 in float (dy 3e38 at x -60, beta 1.5: -22). */
static __device__ __forceinline__ double FD_K(act_sigmoid)(double v)
{
    const FD_ACC hi = (FD_ACC)v;
    const double lo = isfinite(hi) ? v - (double)hi : 0.0; /* beyond FD_ACC: exp saturates */
    const double e = (double)fd_cuda_exp((FD_ACC)-hi);
    if (isinf(e))
        return 1.0 / (1.0 + exp(-v));
    return 1.0 / (1.0 + (lo == 0.0 ? e : e * (1.0 - lo)));
}

static __device__ __forceinline__ double FD_K(act_fwd_value)(const fd_act_params_t &a, FD_ACC xa)
{
    const double x = (double)xa;
    switch (a.mode) {
    case CUDNN_ACTIVATION_SIGMOID:
        return FD_K(act_sigmoid)(x);
    case CUDNN_ACTIVATION_RELU:
        if (a.propagate_nan && isnan(x))
            return x;
        return x > 0.0 ? x : 0.0;
    case CUDNN_ACTIVATION_TANH:
        return (double)fd_cuda_tanh(xa);
    case CUDNN_ACTIVATION_CLIPPED_RELU: {
        if (a.propagate_nan && (isnan(x) || isnan(a.coef)))
            return CUDART_NAN;
        const double v = x > 0.0 ? x : 0.0;
        return v > a.coef ? a.coef : v;
    }
    case CUDNN_ACTIVATION_ELU:
        return x > 0.0 ? x : __dmul_rn(a.coef, (double)fd_cuda_expm1(xa));
    case CUDNN_ACTIVATION_IDENTITY:
        return x;
    case CUDNN_ACTIVATION_SWISH: {
        const double s = FD_K(act_sigmoid)(a.swish_beta == 0.0 ? 0.0 : a.swish_beta * x);
        return s == 0.0 ? 0.0 : x * s;
    }
    }
    return CUDART_NAN;
}

static __device__ __forceinline__ double FD_K(act_bwd_value)(const fd_act_params_t &a, double y,
                                                             double dy, FD_ACC xa)
{
    const double x = (double)xa;
    switch (a.mode) {
    case CUDNN_ACTIVATION_SIGMOID:
        return __dmul_rn(__dmul_rn(dy, y), __dsub_rn(1.0, y));
    case CUDNN_ACTIVATION_RELU:
        if (a.propagate_nan && isnan(x))
            return x;
        return x > 0.0 ? dy : 0.0;
    case CUDNN_ACTIVATION_TANH:
        return __dmul_rn(dy, __dsub_rn(1.0, __dmul_rn(y, y)));
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        if (a.propagate_nan && (isnan(x) || isnan(a.coef)))
            return CUDART_NAN;
        return (x > 0.0 && !(x >= a.coef)) ? dy : 0.0;
    case CUDNN_ACTIVATION_ELU: {
        if (x > 0.0)
            return dy;
        /* below -87.3 a float e^x is subnormal or 0; the ref's double one keeps dy coef e^x for a
         * huge dy (3e38 at x -100: 1.1e-5), and inf, not NaN, for an infinite dy above -745 */
        const double e = x < -87.0 ? exp(x) : (double)fd_cuda_exp(xa);
        return __dmul_rn(__dmul_rn(dy, a.coef), e);
    }
    case CUDNN_ACTIVATION_IDENTITY:
        return dy;
    case CUDNN_ACTIVATION_SWISH: {
        const double b = a.swish_beta, s = FD_K(act_sigmoid)(b == 0.0 ? 0.0 : b * x);
        if (isinf(x))
            return __dmul_rn(dy, s);
        const double t = __dmul_rn(__dmul_rn(__dmul_rn(b, x), s), __dsub_rn(1.0, s));
        return __dmul_rn(dy, __dadd_rn(s, t));
    }
    }
    return CUDART_NAN;
}

/* The piecewise modes in FD_ACC itself, for the packed kernels' `exact` calls (alpha = 1,
 * beta = 0, a mode whose result is one of its inputs, a clipping coefficient exact in FD_ACC:
 * activation.cu decides): the same value as act_fwd_value / act_bwd_value, never rounded, so
 * fd_cuda_st_acc stores the bits fd_cuda_blend would. */
static __device__ __forceinline__ FD_ACC FD_K(act_fwd_exact)(const fd_act_params_t &a, FD_ACC x)
{
    if (a.mode == CUDNN_ACTIVATION_IDENTITY || (a.propagate_nan && isnan(x)))
        return x;
    const FD_ACC v = x > (FD_ACC)0 ? x : (FD_ACC)0;
    return a.mode == CUDNN_ACTIVATION_CLIPPED_RELU && v > (FD_ACC)a.coef ? (FD_ACC)a.coef : v;
}

static __device__ __forceinline__ FD_ACC FD_K(act_bwd_exact)(const fd_act_params_t &a, FD_ACC dy,
                                                             FD_ACC x)
{
    if (a.mode == CUDNN_ACTIVATION_IDENTITY)
        return dy;
    if (a.propagate_nan && isnan(x))
        return x;
    const int pass = a.mode == CUDNN_ACTIVATION_CLIPPED_RELU ? x > (FD_ACC)0 && !(x >= (FD_ACC)a.coef)
                                                             : x > (FD_ACC)0;
    return pass ? dy : (FD_ACC)0;
}

/* y = act(x), blended; one thread per element, in the collapsed order of act_geom_t. */
static __global__ void FD_K(act_fwd)(const act_geom_t g, const void *xv, void *yv, double alpha,
                                     double beta)
{
    /* no __restrict__: y may be x (in place, same strides: each element is read, then written
     * by the same thread) */
    const FD_T *x = (const FD_T *)xv;
    FD_T *y = (FD_T *)yv;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < g.total;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t off[4];
        act_offsets(g, e, 2, off);
        const double v = FD_K(act_fwd_value)(g.act, fd_cuda_ld(x, off[0]));
        fd_cuda_blend(y, off[1], alpha, beta, v);
    }
}

/* dx = act'(x) dy (from y where the mode's derivative is written in y), blended. */
static __global__ void FD_K(act_bwd)(const act_geom_t g, const void *yv, const void *dyv,
                                     const void *xv, void *dxv, double alpha, double beta)
{
    const FD_T *y = (const FD_T *)yv;
    const FD_T *dy = (const FD_T *)dyv;
    const FD_T *x = (const FD_T *)xv;
    FD_T *dx = (FD_T *)dxv;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < g.total;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t off[4];
        act_offsets(g, e, 4, off);
        const double v = FD_K(act_bwd_value)(g.act, (double)fd_cuda_ld(y, off[0]),
                                             (double)fd_cuda_ld(dy, off[1]),
                                             fd_cuda_ld(x, off[2]));
        fd_cuda_blend(dx, off[3], alpha, beta, v);
    }
}

FD_CUDA_VEC_OF(FD_T, FD_K(act_vec_t));
#define ACT_VN ((int)(FD_CUDA_VEC_BYTES / sizeof(FD_T)))

static __global__ void FD_K(act_fwd_packed)(const fd_act_params_t act, int64_t total,
                                            const void *xv, void *yv, double alpha, double beta,
                                            int exact)
{
    typedef FD_K(act_vec_t) V;
    const V *x = (const V *)xv; /* y may be x */
    V *y = (V *)yv;
    const int64_t nv = total / ACT_VN, step = (int64_t)gridDim.x * blockDim.x * FD_CUDA_UNROLL;
    for (int64_t i0 = (int64_t)blockIdx.x * blockDim.x * FD_CUDA_UNROLL + threadIdx.x; i0 < nv;
         i0 += step) {
        V a[FD_CUDA_UNROLL], o[FD_CUDA_UNROLL];
#pragma unroll
        for (int u = 0; u < FD_CUDA_UNROLL; u++) {
            const int64_t i = i0 + (int64_t)u * blockDim.x;
            if (i < nv) {
                a[u] = x[i];
                if (beta != 0.0)
                    o[u] = y[i];
            }
        }
#pragma unroll
        for (int u = 0; u < FD_CUDA_UNROLL; u++) {
            const int64_t i = i0 + (int64_t)u * blockDim.x;
            if (i < nv) {
if (exact) {
#pragma unroll
                    for (int j = 0; j < ACT_VN; j++)
                        fd_cuda_st_acc(o[u].e, j, FD_K(act_fwd_exact)(act, fd_cuda_ld(a[u].e, j)));
                } else {
#pragma unroll
                    for (int j = 0; j < ACT_VN; j++)
                        fd_cuda_blend(o[u].e, j, alpha, beta,
                                      FD_K(act_fwd_value)(act, fd_cuda_ld(a[u].e, j)));
                }
                y[i] = o[u];
            }
        }
    }
    const int64_t t = nv * ACT_VN + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < total)
        fd_cuda_blend((FD_T *)yv, t, alpha, beta,
                      FD_K(act_fwd_value)(act, fd_cuda_ld((const FD_T *)xv, t)));
}

static __global__ void FD_K(act_bwd_packed)(const fd_act_params_t act, int64_t total,
                                            const void *yv, const void *dyv, const void *xv,
                                            void *dxv, double alpha, double beta, int exact)
{
    typedef FD_K(act_vec_t) V;
    const V *y = (const V *)yv; /* dx may be y or dy */
    const V *dy = (const V *)dyv;
    const V *x = (const V *)xv;
    V *dx = (V *)dxv;
    /* the derivatives read y (SIGMOID, TANH) or x (the others; IDENTITY neither): the unread
     * operand is not loaded (a quarter of ReLU backward's traffic) and reads as 0 */
    const int need_y = act.mode == CUDNN_ACTIVATION_SIGMOID || act.mode == CUDNN_ACTIVATION_TANH;
    const int need_x = !need_y && act.mode != CUDNN_ACTIVATION_IDENTITY;
    const int64_t nv = total / ACT_VN, step = (int64_t)gridDim.x * blockDim.x * FD_CUDA_UNROLL;
    for (int64_t i0 = (int64_t)blockIdx.x * blockDim.x * FD_CUDA_UNROLL + threadIdx.x; i0 < nv;
         i0 += step) {
        V vy[FD_CUDA_UNROLL], vdy[FD_CUDA_UNROLL], vx[FD_CUDA_UNROLL], o[FD_CUDA_UNROLL];
#pragma unroll
        for (int u = 0; u < FD_CUDA_UNROLL; u++) {
            const int64_t i = i0 + (int64_t)u * blockDim.x;
            if (i < nv) {
                if (need_y)
                    vy[u] = y[i];
                else
                    memset(&vy[u], 0, sizeof vy[u]);
                vdy[u] = dy[i];
                if (need_x)
                    vx[u] = x[i];
                else
                    memset(&vx[u], 0, sizeof vx[u]);
                if (beta != 0.0)
                    o[u] = dx[i];
            }
        }
#pragma unroll
        for (int u = 0; u < FD_CUDA_UNROLL; u++) {
            const int64_t i = i0 + (int64_t)u * blockDim.x;
            if (i < nv) {
if (exact) {
#pragma unroll
                    for (int j = 0; j < ACT_VN; j++)
                        fd_cuda_st_acc(o[u].e, j,
                                       FD_K(act_bwd_exact)(act, fd_cuda_ld(vdy[u].e, j),
                                                           fd_cuda_ld(vx[u].e, j)));
                } else {
#pragma unroll
                    for (int j = 0; j < ACT_VN; j++)
                        fd_cuda_blend(o[u].e, j, alpha, beta,
                                      FD_K(act_bwd_value)(act, (double)fd_cuda_ld(vy[u].e, j),
                                                          (double)fd_cuda_ld(vdy[u].e, j),
                                                          fd_cuda_ld(vx[u].e, j)));
                }
                dx[i] = o[u];
            }
        }
    }
    const int64_t t = nv * ACT_VN + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < total)
        fd_cuda_blend((FD_T *)dxv, t, alpha, beta,
                      FD_K(act_bwd_value)(act, (double)fd_cuda_ld((const FD_T *)yv, t),
                                          (double)fd_cuda_ld((const FD_T *)dyv, t),
                                          fd_cuda_ld((const FD_T *)xv, t)));
}

/* The lean packed kernels (activation.cu: act_lean_u, the `exact` calls only:
 * alpha 1, beta 0, RELU / IDENTITY / CLIPPED_RELU with a coefficient exact in FD_ACC): no blend
 * code and no grid-stride loop, U vectors a thread, the grid covering the tensor, so few
 * registers and full occupancy; each element's value is act_fwd_exact / act_bwd_exact's, as in
 * act_*_packed's exact branch: the same bits. Block 0 takes the < ACT_VN elements past the last
 * whole vector. y may be x; dx may be dy or x (each thread reads its vectors before it writes). */
template <int U>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK)
    FD_K(act_fwd_lean)(const fd_act_params_t act, int64_t total, const void *xv, void *yv)
{
    typedef FD_K(act_vec_t) V;
    const V *x = (const V *)xv;
    V *y = (V *)yv;
    const int64_t nv = total / ACT_VN, i0 = (int64_t)blockIdx.x * (FD_CUDA_BLOCK * U) + threadIdx.x;
    V a[U];
#pragma unroll
    for (int u = 0; u < U; u++)
        if (i0 + u * FD_CUDA_BLOCK < nv)
            a[u] = x[i0 + u * FD_CUDA_BLOCK];
#pragma unroll
    for (int u = 0; u < U; u++)
        if (i0 + u * FD_CUDA_BLOCK < nv) {
#pragma unroll
            for (int j = 0; j < ACT_VN; j++)
                fd_cuda_st_acc(a[u].e, j, FD_K(act_fwd_exact)(act, fd_cuda_ld(a[u].e, j)));
            y[i0 + u * FD_CUDA_BLOCK] = a[u];
        }
    const int64_t t = nv * ACT_VN + threadIdx.x;
    if (blockIdx.x == 0 && t < total)
        fd_cuda_st_acc((FD_T *)yv, t, FD_K(act_fwd_exact)(act, fd_cuda_ld((const FD_T *)xv, t)));
}

template <int U>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK)
    FD_K(act_bwd_lean)(const fd_act_params_t act, int64_t total, const void *dyv, const void *xv,
                       void *dxv)
{
    typedef FD_K(act_vec_t) V;
    const V *dy = (const V *)dyv;
    const V *x = (const V *)xv;
    V *dx = (V *)dxv;
    const int need_x = act.mode != CUDNN_ACTIVATION_IDENTITY; /* the exact modes' derivatives */
    const int64_t nv = total / ACT_VN, i0 = (int64_t)blockIdx.x * (FD_CUDA_BLOCK * U) + threadIdx.x;
    V d[U], v[U];
#pragma unroll
    for (int u = 0; u < U; u++)
        if (i0 + u * FD_CUDA_BLOCK < nv) {
            d[u] = dy[i0 + u * FD_CUDA_BLOCK];
            if (need_x)
                v[u] = x[i0 + u * FD_CUDA_BLOCK];
            else
                memset(&v[u], 0, sizeof v[u]);
        }
#pragma unroll
    for (int u = 0; u < U; u++)
        if (i0 + u * FD_CUDA_BLOCK < nv) {
#pragma unroll
            for (int j = 0; j < ACT_VN; j++)
                fd_cuda_st_acc(d[u].e, j,
                               FD_K(act_bwd_exact)(act, fd_cuda_ld(d[u].e, j),
                                                   fd_cuda_ld(v[u].e, j)));
            dx[i0 + u * FD_CUDA_BLOCK] = d[u];
        }
    const int64_t t = nv * ACT_VN + threadIdx.x;
    if (blockIdx.x == 0 && t < total)
        fd_cuda_st_acc((FD_T *)dxv, t,
                       FD_K(act_bwd_exact)(act, fd_cuda_ld((const FD_T *)dyv, t),
                                           need_x ? fd_cuda_ld((const FD_T *)xv, t) : 0));
}

#undef ACT_VN
#undef FD_K
