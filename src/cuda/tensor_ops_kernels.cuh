/* SPDX-License-Identifier: MIT */
/*
 * tensor_ops_kernels.cuh - the packed fast paths of tensor_ops.cu for one storage type.
 * tensor_ops.cu includes this once per type with FD_T (FLOAT, DOUBLE, HALF, BFLOAT16 storage)
 * and FD_SFX (f32, f64, f16, bf16) defined; nothing else includes it.
 *
 * The output is dense and 16-byte aligned (checked on the host); each thread moves
 * FD_CUDA_UNROLL 128-bit vectors of it per trip, loads first. An input operand reaches output
 * element e at (e / div) % mod (to_bcast_t): a tensor of the output's layout (div 1, mod the
 * size), a per-channel bias over NHWC (div 1, mod C) or NCHW (div H*W, mod C), a scalar (mod 1).
 * Operands whose index runs with the vector (div 1, mod a multiple of the vector) are read as
 * vectors too; the others element by element with an index stepped, not divided, per element.
 * The arithmetic is the generic kernels' (strided.cuh's typed loads, stores and blend, op_apply),
 * so the bits are theirs. Each output vector is read and written by one thread: in place is exact.
 */

#define FD_K(name) FD_CUDA_CAT(name, FD_SFX)
#define TO_VN ((int)(FD_CUDA_VEC_BYTES / sizeof(FD_T)))

FD_CUDA_VEC_OF(FD_T, FD_K(to_vec_t));

/* Operand values (as double) of output elements e .. e + TO_VN - 1 (e a multiple of TO_VN). */
static __device__ __forceinline__ void FD_K(to_gather)(const FD_T *a, const to_bcast_t &b,
                                                       int64_t e, double *v)
{
    if (b.vec) { /* e < mod: a tensor of the output's size; no 64-bit remainder then */
        const FD_K(to_vec_t) av = *(const FD_K(to_vec_t) *)(a + (e < b.mod ? e : e % b.mod));
#pragma unroll
        for (int j = 0; j < TO_VN; j++)
            v[j] = sd_ld(av.e, j);
        return;
    }
    const int64_t q = e / b.div;
    int64_t r = e - q * b.div, m = q % b.mod;
#pragma unroll
    for (int j = 0; j < TO_VN; j++) {
        v[j] = sd_ld(a, m);
        if (++r == b.div) {
            r = 0;
            if (++m == b.mod)
                m = 0;
        }
    }
}

/* The trip loop shared by the kernels below: BODY(i, e) handles output vector i (elements e..);
 * the macros name their parameters I_, E_ so they never meet the vectors' member .e. */
#define TO_PACKED_LOOP(TOTAL_, BODY)                                                               \
    const int64_t nv = (TOTAL_) / TO_VN;                                                           \
    const int64_t step = (int64_t)gridDim.x * blockDim.x * FD_CUDA_UNROLL;                         \
    for (int64_t i0 = (int64_t)blockIdx.x * blockDim.x * FD_CUDA_UNROLL + threadIdx.x;             \
         i0 < nv; i0 += step) {                                                                    \
        _Pragma("unroll") for (int u = 0; u < FD_CUDA_UNROLL; u++)                                 \
        {                                                                                          \
            const int64_t i = i0 + (int64_t)u * blockDim.x;                                        \
            if (i < nv)                                                                            \
                BODY(i, i * TO_VN)                                                                 \
        }                                                                                          \
    }

/* c = alpha * a (broadcast) + beta * c; also the transform of equal layouts (x as a). */
static __global__ void FD_K(tensor_add_packed)(int64_t total, const to_bcast_t ab, const void *av,
                                               void *cv, double alpha, double beta)
{
    typedef FD_K(to_vec_t) V;
    const FD_T *a = (const FD_T *)av; /* c may be a */
    V *c = (V *)cv;
#define TO_ADD_BODY(I_, E_)                                                                        \
    {                                                                                              \
        double va[TO_VN];                                                                          \
        V o;                                                                                       \
        FD_K(to_gather)(a, ab, (E_), va);                                                          \
        if (beta != 0.0)                                                                           \
            o = c[I_];                                                                             \
        _Pragma("unroll") for (int j = 0; j < TO_VN; j++)                                          \
            sd_blend(o.e, j, alpha, beta, va[j]);                                                  \
        c[I_] = o;                                                                                 \
    }
    TO_PACKED_LOOP(total, TO_ADD_BODY)
#undef TO_ADD_BODY
    const int64_t t = nv * TO_VN + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < total)
        sd_blend((FD_T *)cv, t, alpha, beta, sd_ld(a, (t / ab.div) % ab.mod));
}

/* c = op(alpha1 * a, alpha2 * b) + beta * c (a, b broadcast; b unread for the unary ops). */
static __global__ void FD_K(tensor_op_packed)(int64_t total, cudnnOpTensorOp_t op, int propagate,
                                              const to_bcast_t ab, const void *av,
                                              const to_bcast_t bb, const void *bv, void *cv,
                                              double alpha1, double alpha2, double beta)
{
    typedef FD_K(to_vec_t) V;
    const FD_T *a = (const FD_T *)av;
    const FD_T *b = (const FD_T *)bv;
    V *c = (V *)cv;
    const int unary = op == CUDNN_OP_TENSOR_SQRT || op == CUDNN_OP_TENSOR_NOT;
#define TO_OP_BODY(I_, E_)                                                                         \
    {                                                                                              \
        double va[TO_VN], vb[TO_VN];                                                               \
        V o;                                                                                       \
        FD_K(to_gather)(a, ab, (E_), va);                                                          \
        if (!unary)                                                                                \
            FD_K(to_gather)(b, bb, (E_), vb);                                                      \
        if (beta != 0.0)                                                                           \
            o = c[I_];                                                                             \
        _Pragma("unroll") for (int j = 0; j < TO_VN; j++)                                          \
        {                                                                                          \
            const double x = __dmul_rn(alpha1, va[j]);                                             \
            const double y = unary ? 0.0 : __dmul_rn(alpha2, vb[j]);                               \
            sd_blend(o.e, j, 1.0, beta, op_apply(op, propagate, x, y));                            \
        }                                                                                          \
        c[I_] = o;                                                                                 \
    }
    TO_PACKED_LOOP(total, TO_OP_BODY)
#undef TO_OP_BODY
    const int64_t t = nv * TO_VN + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < total) {
        const double x = __dmul_rn(alpha1, sd_ld(a, (t / ab.div) % ab.mod));
        const double y = unary ? 0.0 : __dmul_rn(alpha2, sd_ld(b, (t / bb.div) % bb.mod));
        sd_blend((FD_T *)cv, t, 1.0, beta, op_apply(op, propagate, x, y));
    }
}

/* c = op(alpha1 * a, alpha2 * b) + beta * c with a and b of c's own dense layout (no
 * broadcast) and total a multiple of the vector: tensor_op_packed's arithmetic without its
 * gathers, TO_DENSE_U vectors per thread per trip with every load of the trip issued before
 * any store (c may be a or b: each vector is still read and written by one thread). `exact`
 * (tensor_ops.cu's dense_exact) computes ADD / MUL in the storage type's float accumulator. */
static __global__ void FD_K(tensor_op_dense)(int64_t nv, cudnnOpTensorOp_t op, int propagate,
                                             const void *av, const void *bv, void *cv,
                                             double alpha1, double alpha2, double beta, int exact)
{
    typedef FD_K(to_vec_t) V;
    const V *a = (const V *)av;
    const V *b = (const V *)bv;
    V *c = (V *)cv;
    const int unary = op == CUDNN_OP_TENSOR_SQRT || op == CUDNN_OP_TENSOR_NOT;
    const int64_t step = (int64_t)gridDim.x * blockDim.x * TO_DENSE_U;
    for (int64_t i0 = (int64_t)blockIdx.x * blockDim.x * TO_DENSE_U + threadIdx.x; i0 < nv;
         i0 += step) {
        V va[TO_DENSE_U], vb[TO_DENSE_U], o[TO_DENSE_U];
#pragma unroll
        for (int u = 0; u < TO_DENSE_U; u++) {
            const int64_t i = i0 + (int64_t)u * blockDim.x;
            if (i < nv) {
                va[u] = a[i];
                if (!unary)
                    vb[u] = b[i];
                if (beta != 0.0)
                    o[u] = c[i];
            }
        }
#pragma unroll
        for (int u = 0; u < TO_DENSE_U; u++) {
            const int64_t i = i0 + (int64_t)u * blockDim.x;
            if (i < nv) {
if (exact) { /* ADD / MUL, alphas 1, beta 0: one float operation (tensor_ops.cu) */
#pragma unroll
                    for (int j = 0; j < TO_VN; j++) {
                        const auto x = fd_cuda_ld(va[u].e, j), y = fd_cuda_ld(vb[u].e, j);
                        fd_cuda_st_acc(o[u].e, j, op == CUDNN_OP_TENSOR_ADD ? x + y : x * y);
                    }
                } else {
#pragma unroll
                    for (int j = 0; j < TO_VN; j++) {
                        const double x = __dmul_rn(alpha1, sd_ld(va[u].e, j));
                        const double y = unary ? 0.0 : __dmul_rn(alpha2, sd_ld(vb[u].e, j));
                        sd_blend(o[u].e, j, 1.0, beta, op_apply(op, propagate, x, y));
                    }
                }
                c[i] = o[u];
            }
        }
    }
}

/* y = value (one rounding per element, as the generic kernel) */
static __global__ void FD_K(tensor_set_packed)(int64_t total, void *yv, double value)
{
    typedef FD_K(to_vec_t) V;
    V *y = (V *)yv;
    V o;
#pragma unroll
    for (int j = 0; j < TO_VN; j++)
        sd_st(o.e, j, value);
#define TO_SET_BODY(I_, E_) y[I_] = o;
    TO_PACKED_LOOP(total, TO_SET_BODY)
#undef TO_SET_BODY
    const int64_t t = nv * TO_VN + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < total)
        sd_st((FD_T *)yv, t, value);
}

/* y = alpha * y */
static __global__ void FD_K(tensor_scale_packed)(int64_t total, void *yv, double alpha)
{
    typedef FD_K(to_vec_t) V;
    V *y = (V *)yv;
#define TO_SCALE_BODY(I_, E_)                                                                      \
    {                                                                                              \
        V o = y[I_];                                                                               \
        _Pragma("unroll") for (int j = 0; j < TO_VN; j++)                                          \
            sd_st(o.e, j, __dmul_rn(alpha, sd_ld(o.e, j)));                                        \
        y[I_] = o;                                                                                 \
    }
    TO_PACKED_LOOP(total, TO_SCALE_BODY)
#undef TO_SCALE_BODY
    const int64_t t = nv * TO_VN + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < total)
        sd_st((FD_T *)yv, t, __dmul_rn(alpha, sd_ld((const FD_T *)yv, t)));
}

/* ---- the lean kernels (tensor_ops.cu: to_lean_on, FREEDNN_GPU_TO_LEAN=0 turns them off) ----
 * One 16-byte vector a thread, the grid covering the nv vectors of C (no grid-stride loop, no
 * tail: the host takes only totals that are a multiple of the vector), 32-bit indices (nv <
 * 2^31), only the common case's code, so few registers and full occupancy (the shape of
 * activation_kernels.cuh's act_fwd_lean). Each output vector is read and written by one thread.
 *
 * tensor_bias_lean<B, M>: cudnnAddTensor with alpha 1 and beta B (1: c = c + a, the bias add;
 * 0: c = a, a broadcast copy that never reads C), tensor_add_packed's cases where A reaches
 * output element e at (e / div) % mod with, for M:
 *   0 (TO_LEAN_PLANE): one element of A a vector, at (i / dq) % mq (dq = div / VN, mq = mod;
 *     div a multiple of the vector: NCHW's per-channel bias, H W a multiple of it; or mod 1, a
 *     scalar A, dq = mq = 1);
 *   1 (TO_LEAN_RUNV): div 1, mod a multiple of the vector, A 16-byte aligned: the VN consecutive
 *     elements of A at (i % mq) * VN (mq = mod / VN) as one vector load (NHWC's per-channel
 *     bias, C a multiple of the vector; an A of C's own shape);
 *   2 (TO_LEAN_RUNS): the same with A not aligned, VN scalar loads.
 * Same bits as tensor_add_packed (sd_blend: r = alpha * a, r = r + beta * c in double, rounded
 * once by sd_st), argued per element where neither operand is NaN:
 * - B = 0: r = 1 * a = a exactly (a double holds every FLOAT / HALF / BFLOAT16 value), and
 *   rounding a value of the storage type to that type returns it (-0, subnormals, +-Inf
 *   included): the lean kernel copies a's bits.
 * - B = 1: r = RN53(a + c) (1 * x is exact), stored RN_p(RN53(a + c)); the lean kernel stores
 *   RN_p(RN24(a + c)) (one float addition, then fd_cuda_st_acc's __float2half_rn /
 *   __float2bfloat16_rn; nothing for FLOAT, p = 24). For the sum of two p-bit values, a first
 *   rounding to q >= 2p + 2 bits never changes the second rounding to p (double rounding is
 *   innocuous for +, -, x, /, sqrt at that margin: Figueroa 1995, the argument tensor_ops.cu's
 *   dense_exact rests on): FLOAT p = 24, q = 53 >= 50; HALF p = 11 and BFLOAT16 p = 8 with
 *   q = 24 >= 24 and >= 18 here, q = 53 on the old path. So both sides are RN_p(a + c), the
 *   correctly rounded sum. Overflow: the threshold (the midpoint above the largest finite
 *   value) has p + 1 bits, exact on both grids, so both sides overflow alike to
 *   +-Inf; an exact sum in the subnormal range is representable (both operands are multiples
 *   of the smallest subnormal), no rounding at all; x + (-x) is +0 and -0 + -0 is -0 on both
 *   (round to nearest); Inf + finite is that Inf on both. The build has no flush-to-zero.
 * - NaN (an input NaN, or Inf - Inf): the NaN bits a GPU produces in float and in double
 *   arithmetic (and sd_st's canonical 16-bit NaN by sign) are not argued here: a thread whose
 *   vector meets a NaN recomputes the whole vector with tensor_add_packed's exact expression
 *   (sd_blend with the caller's alpha and beta), so those bits are the old path's by
 *   construction. The check costs a compare per element; NaN vectors are the rare case.
 * Registers (-Xptxas -v, CUDA 13, __launch_bounds__(256, 8): at most 32, no spills), sm_80 /
 * sm_90 for <B, M> = <0,0> <0,1> <0,2> <1,0> <1,1> <1,2>:
 *   f32   12/12 24/22 24/22 24/24 30/30 26/27
 *   f16   16/17 27/28 28/28 28/31 32/32 32/32
 *   bf16  17/16 18/27 18/28 24/29 29/32 29/32
 * (without the 8-block bound bf16 <1, 1> took 34 on sm_90: 6 blocks an SM). */
template <int B, int M>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK, 2048 / FD_CUDA_BLOCK)
    FD_K(tensor_bias_lean)(uint32_t nv, uint32_t dq, uint32_t mq, const void *av, void *cv,
                           double alpha, double beta)
{
    typedef FD_K(to_vec_t) V;
    const uint32_t i = blockIdx.x * FD_CUDA_BLOCK + threadIdx.x;
    if (i >= nv)
        return;
    const FD_T *a = (const FD_T *)av; /* c may be a (M 1, an A of C's shape) */
    V *c = (V *)cv;
    V va, o;
    if (M == TO_LEAN_PLANE) {
        const FD_T s = a[(i / dq) % mq];
#pragma unroll
        for (int j = 0; j < TO_VN; j++)
            va.e[j] = s;
    } else if (M == TO_LEAN_RUNV) {
        va = ((const V *)av)[i % mq];
    } else {
        const FD_T *r = a + (size_t)(i % mq) * TO_VN;
#pragma unroll
        for (int j = 0; j < TO_VN; j++)
            va.e[j] = r[j];
    }
    if (B)
        o = c[i];
    bool nan = false;
#pragma unroll
    for (int j = 0; j < TO_VN; j++) {
        if (B) {
            const auto s = fd_cuda_ld(va.e, j) + fd_cuda_ld(o.e, j);
            nan |= isnan(s);
            fd_cuda_st_acc(o.e, j, s);
        } else {
            nan |= isnan(fd_cuda_ld(va.e, j));
            o.e[j] = va.e[j];
        }
    }
    if (nan) { /* tensor_add_packed's expression, bit for bit */
        if (B)
            o = c[i]; /* not written yet: this thread owns the vector */
#pragma unroll
        for (int j = 0; j < TO_VN; j++)
            sd_blend(o.e, j, alpha, beta, sd_ld(va.e, j));
    }
    c[i] = o;
}

/* tensor_op_lean<MUL>: cudnnOpTensor ADD (MUL 0) or MUL (1) with A, B, C of one dense layout,
 * alphas 1, beta 0 (tensor_ops.cu's dense_exact calls): tensor_op_dense's exact branch for one
 * vector a thread, its expression per element (one float operation, fd_cuda_st_acc), so the
 * same bits. c may be a or b. Registers (ADD and MUL alike) sm_80 / sm_90: f32 18/22,
 * f16 26/26, bf16 26/24 (tensor_op_dense: 72-80, 127 for bf16 on sm_90). */
template <int MUL>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK, 2048 / FD_CUDA_BLOCK)
    FD_K(tensor_op_lean)(uint32_t nv, const void *av, const void *bv, void *cv)
{
    typedef FD_K(to_vec_t) V;
    const uint32_t i = blockIdx.x * FD_CUDA_BLOCK + threadIdx.x;
    if (i >= nv)
        return;
    V x = ((const V *)av)[i];
    const V y = ((const V *)bv)[i];
#pragma unroll
    for (int j = 0; j < TO_VN; j++) {
        const auto p = fd_cuda_ld(x.e, j), q = fd_cuda_ld(y.e, j);
        fd_cuda_st_acc(x.e, j, MUL ? p * q : p + q);
    }
    ((V *)cv)[i] = x;
}

#undef TO_PACKED_LOOP
#undef TO_VN
#undef FD_K
