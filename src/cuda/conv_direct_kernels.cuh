/* SPDX-License-Identifier: MIT */
/*
 * conv_direct_kernels.cuh - the kernels of conv_direct.cu for one storage type. conv_direct.cu
 * includes this once per type with FD_T (storage), FD_ACC (accumulator) and FD_SFX (the name
 * suffix: f32, f64, f16, bf16) defined; loads and stores go through conv_direct.cu's fd_ld and
 * fd_st overloads. Nothing here is meant to be included anywhere else.
 *
 * Every kernel takes the flat problem by value and walks its outputs with a grid-stride loop in
 * 64-bit indices. Output writes go through blend(): alpha * acc + beta * old computed in double
 * and rounded once (as src/ref does), the old value read only when beta != 0.
 */

#define FD_CAT2(a, b) a##_##b
#define FD_CAT(a, b) FD_CAT2(a, b)
#define FD_K(name) FD_CAT(name, FD_SFX)

static __device__ __forceinline__ void FD_K(blend)(FD_T *out, int64_t off, double alpha, double beta,
                                                   FD_ACC acc)
{
    double v = alpha * (double)acc;
    if (beta != 0.0)
        v += beta * (double)fd_ld(out, off);
    fd_st(out, off, v);
}

/* y[n, k, o] = sum over c of the group, taps t: x[n, c, o * stride - pad + t * dil] * w[k, c, t] */
static __global__ void FD_K(conv_fwd_direct)(const fd_conv_problem_t p, const void *xv, const void *wv,
                                             void *yv, double alpha, double beta)
{
    const FD_T *__restrict__ x = (const FD_T *)xv;
    const FD_T *__restrict__ w = (const FD_T *)wv;
    FD_T *__restrict__ y = (FD_T *)yv;
    const int64_t cgn = p.c / p.groups, kgn = p.k / p.groups;
    const int64_t total = p.n * p.k * p.out[0] * p.out[1] * p.out[2];
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t r = e;
        const int64_t o2 = r % p.out[2];
        r /= p.out[2];
        const int64_t o1 = r % p.out[1];
        r /= p.out[1];
        const int64_t o0 = r % p.out[0];
        r /= p.out[0];
        const int64_t k = r % p.k, n = r / p.k, g = k / kgn;
        FD_ACC acc = 0;
        for (int64_t cg = 0; cg < cgn; cg++) {
            const FD_T *xc = x + n * p.xs[0] + (g * cgn + cg) * p.xs[1];
            const FD_T *wc = w + k * p.ws[0] + cg * p.ws[1];
            for (int64_t t0 = 0; t0 < p.flt[0]; t0++) {
                const int64_t i0 = o0 * p.stride[0] - p.pad[0] + t0 * p.dil[0];
                if (i0 < 0 || i0 >= p.in[0])
                    continue;
                for (int64_t t1 = 0; t1 < p.flt[1]; t1++) {
                    const int64_t i1 = o1 * p.stride[1] - p.pad[1] + t1 * p.dil[1];
                    if (i1 < 0 || i1 >= p.in[1])
                        continue;
                    for (int64_t t2 = 0; t2 < p.flt[2]; t2++) {
                        const int64_t i2 = o2 * p.stride[2] - p.pad[2] + t2 * p.dil[2];
                        if (i2 < 0 || i2 >= p.in[2])
                            continue;
                        acc += (FD_ACC)fd_ld(xc, i0 * p.xs[2] + i1 * p.xs[3] + i2 * p.xs[4]) *
                               (FD_ACC)fd_ld(wc, tap(p, 0, t0) * p.ws[2] + tap(p, 1, t1) * p.ws[3] +
                                                     tap(p, 2, t2) * p.ws[4]);
                    }
                }
            }
        }
        FD_K(blend)(y, n * p.ys[0] + k * p.ys[1] + o0 * p.ys[2] + o1 * p.ys[3] + o2 * p.ys[4], alpha,
                    beta, acc);
    }
}

/* dx[n, c, i] = sum over k of the group, taps t with i = o * stride - pad + t * dil:
 * dy[n, k, o] * w[k, c, t]; a gather, so no two threads write one element. */
static __global__ void FD_K(conv_bwd_data_direct)(const fd_conv_problem_t p, const void *wv,
                                                  const void *dyv, void *dxv, double alpha, double beta)
{
    const FD_T *__restrict__ w = (const FD_T *)wv;
    const FD_T *__restrict__ dy = (const FD_T *)dyv;
    FD_T *__restrict__ dx = (FD_T *)dxv;
    const int64_t cgn = p.c / p.groups, kgn = p.k / p.groups;
    const int64_t total = p.n * p.c * p.in[0] * p.in[1] * p.in[2];
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t r = e;
        const int64_t i2 = r % p.in[2];
        r /= p.in[2];
        const int64_t i1 = r % p.in[1];
        r /= p.in[1];
        const int64_t i0 = r % p.in[0];
        r /= p.in[0];
        const int64_t c = r % p.c, n = r / p.c, g = c / cgn, cg = c % cgn;
        FD_ACC acc = 0;
        for (int64_t t0 = 0; t0 < p.flt[0]; t0++) {
            const int64_t o0 = out_index(p, 0, i0, t0);
            if (o0 < 0)
                continue;
            for (int64_t t1 = 0; t1 < p.flt[1]; t1++) {
                const int64_t o1 = out_index(p, 1, i1, t1);
                if (o1 < 0)
                    continue;
                for (int64_t t2 = 0; t2 < p.flt[2]; t2++) {
                    const int64_t o2 = out_index(p, 2, i2, t2);
                    if (o2 < 0)
                        continue;
                    const int64_t yo = n * p.ys[0] + o0 * p.ys[2] + o1 * p.ys[3] + o2 * p.ys[4];
                    const int64_t wo = cg * p.ws[1] + tap(p, 0, t0) * p.ws[2] +
                                       tap(p, 1, t1) * p.ws[3] + tap(p, 2, t2) * p.ws[4];
                    for (int64_t kk = 0; kk < kgn; kk++) {
                        const int64_t k = g * kgn + kk;
                        acc += (FD_ACC)fd_ld(dy, yo + k * p.ys[1]) * (FD_ACC)fd_ld(w, wo + k * p.ws[0]);
                    }
                }
            }
        }
        FD_K(blend)(dx, n * p.xs[0] + c * p.xs[1] + i0 * p.xs[2] + i1 * p.xs[3] + i2 * p.xs[4],
                    alpha, beta, acc);
    }
}

/* dw[k, c, t] = sum over n, o: x[n, c, o * stride - pad + t * dil] * dy[n, k, o]. One block per
 * dw element: thread j takes terms j, j + B, j + 2B, ... in order, then a fixed tree over the
 * B partial sums, so the bits never depend on scheduling. */
static __global__ void FD_K(conv_bwd_filter_direct)(const fd_conv_problem_t p, const void *xv,
                                                    const void *dyv, void *dwv, double alpha,
                                                    double beta)
{
    __shared__ FD_ACC part[FD_CUDA_BLOCK];
    const FD_T *__restrict__ x = (const FD_T *)xv;
    const FD_T *__restrict__ dy = (const FD_T *)dyv;
    FD_T *__restrict__ dw = (FD_T *)dwv;
    const int64_t cgn = p.c / p.groups, kgn = p.k / p.groups;
    const int64_t nw = p.k * cgn * p.flt[0] * p.flt[1] * p.flt[2];
    const int64_t terms = p.n * p.out[0] * p.out[1] * p.out[2];
    const int tid = threadIdx.x;
    for (int64_t e = blockIdx.x; e < nw; e += gridDim.x) {
        int64_t r = e;
        const int64_t t2 = r % p.flt[2];
        r /= p.flt[2];
        const int64_t t1 = r % p.flt[1];
        r /= p.flt[1];
        const int64_t t0 = r % p.flt[0];
        r /= p.flt[0];
        const int64_t cg = r % cgn, k = r / cgn, c = (k / kgn) * cgn + cg;
        const FD_T *xc = x + c * p.xs[1];
        const FD_T *dyk = dy + k * p.ys[1];
        FD_ACC acc = 0;
        for (int64_t j = tid; j < terms; j += FD_CUDA_BLOCK) {
            int64_t q = j;
            const int64_t o2 = q % p.out[2];
            q /= p.out[2];
            const int64_t o1 = q % p.out[1];
            q /= p.out[1];
            const int64_t o0 = q % p.out[0], n = q / p.out[0];
            const int64_t i0 = o0 * p.stride[0] - p.pad[0] + t0 * p.dil[0];
            const int64_t i1 = o1 * p.stride[1] - p.pad[1] + t1 * p.dil[1];
            const int64_t i2 = o2 * p.stride[2] - p.pad[2] + t2 * p.dil[2];
            if (i0 < 0 || i0 >= p.in[0] || i1 < 0 || i1 >= p.in[1] || i2 < 0 || i2 >= p.in[2])
                continue;
            acc += (FD_ACC)fd_ld(xc, n * p.xs[0] + i0 * p.xs[2] + i1 * p.xs[3] + i2 * p.xs[4]) *
                   (FD_ACC)fd_ld(dyk, n * p.ys[0] + o0 * p.ys[2] + o1 * p.ys[3] + o2 * p.ys[4]);
        }
        part[tid] = acc;
        __syncthreads();
        for (int s = FD_CUDA_BLOCK / 2; s > 0; s >>= 1) {
            if (tid < s)
                part[tid] += part[tid + s];
            __syncthreads();
        }
        if (tid == 0)
            FD_K(blend)(dw, k * p.ws[0] + cg * p.ws[1] + tap(p, 0, t0) * p.ws[2] +
                                tap(p, 1, t1) * p.ws[3] + tap(p, 2, t2) * p.ws[4],
                        alpha, beta, part[0]);
        __syncthreads(); /* part[] is reused for the next element */
    }
}

/* db[k] = sum over n and the spatial positions of dy[n, k, ...]: one block per channel, the
 * same fixed-order scheme as the filter gradient. */
static __global__ void FD_K(conv_bwd_bias_direct)(const bias_geom_t b, const void *dyv, void *dbv,
                                                  double alpha, double beta)
{
    __shared__ FD_ACC part[FD_CUDA_BLOCK];
    const FD_T *__restrict__ dy = (const FD_T *)dyv;
    FD_T *__restrict__ db = (FD_T *)dbv;
    const int64_t terms = b.n * b.inner;
    const int tid = threadIdx.x;
    for (int64_t k = blockIdx.x; k < b.k; k += gridDim.x) {
        FD_ACC acc = 0;
        for (int64_t j = tid; j < terms; j += FD_CUDA_BLOCK) {
            int64_t q = j, off = k * b.sk;
#pragma unroll
            for (int i = FD_BIAS_SPATIAL_MAX - 1; i >= 0; i--) {
                off += (q % b.dim[i]) * b.stride[i];
                q /= b.dim[i];
            }
            acc += (FD_ACC)fd_ld(dy, off + q * b.sn);
        }
        part[tid] = acc;
        __syncthreads();
        for (int s = FD_CUDA_BLOCK / 2; s > 0; s >>= 1) {
            if (tid < s)
                part[tid] += part[tid + s];
            __syncthreads();
        }
        if (tid == 0)
            FD_K(blend)(db, k * b.db_stride, alpha, beta, part[0]);
        __syncthreads();
    }
}

#undef FD_K
#undef FD_CAT
#undef FD_CAT2
