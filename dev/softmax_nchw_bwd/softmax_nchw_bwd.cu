// SPDX-License-Identifier: MIT
// dev/softmax_nchw_bwd: sandbox for the softmax backward over channels on NCHW tensors
// (cudnnSoftmaxBackward, MODE_CHANNEL, alpha 1, beta 0; ACCURATE dx = y (dy - sum_c y dy),
// LOG dx = dy - exp(y) sum_c dy): for every (n, h, w) a reduction over c, whose elements are
// H * W apart. One file: a CPU reference in double (src/ref/softmax_ref.c's formula), v0 = a
// copy of the library kernels softmax_bwd_cols / softmax_bwd_cols16
// (src/cuda/softmax_kernels.cuh, shape from softmax.cu's sm_cols_shape), variants v1.., a
// checker (max ulps against the ref, bit identity against v0, the tests' gm_tol) and a
// CUDA-graph timer over rotated buffer sets. Usage: softmax_nchw_bwd [--only vN]. Prints
// `vN dtype problem us GB/s maxulp=.. bitid=yes|no ok|FAIL` (GB/s = (y + dy + dx bytes) / time)
// and a `copy` line (cudaMemcpy D2D, rotated: the ceiling). Exit 77 without a GPU.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math_constants.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

// ================================ v0: the library kernels =====================================
// softmax_bwd_cols_body<CPT, PV, CGM> as in src/cuda/softmax_kernels.cuh: block (32, CG), a
// grid-stride loop over tiles of 32 * PV pixels of one outer index; thread (lane, cg) holds
// channels cg * CPT .. + CPT - 1 of pixels lane * PV .. + PV - 1 (y and dy raw), its partial
// sum (channels in order) goes to shared memory and every thread adds the CG partials in group
// order; then dx from the held values. Runtime is_log, alpha, beta (the library's code).

#define SM_COLS_CG_MAX 16

struct geom_t { // the fields of sm_geom_t the kernel reads (t = 0 y, 1 dy, 2 dx)
    int no, is_log;
    int64_t odim[4];
    int64_t ost[3][4];
    int64_t rows, row_len;
    int64_t rst[3][1];
};

static __device__ __forceinline__ float v0_ld(const float *p, int i) { return p[i]; }
static __device__ __forceinline__ float v0_ld(const __half *p, int i) { return __half2float(p[i]); }
static __device__ __forceinline__ void v0_st(float *p, int i, float v) { p[i] = v; }
static __device__ __forceinline__ void v0_st(__half *p, int i, float v)
{
    p[i] = __float2half_rn(v);
}
static __device__ __forceinline__ void v0_blend(float *p, int i, double alpha, double beta,
                                                double v)
{
    double r = __dmul_rn(alpha, v);
    if (beta != 0.0)
        r = __dadd_rn(r, __dmul_rn(beta, (double)p[i]));
    p[i] = (float)r;
}
static __device__ __forceinline__ void v0_blend(__half *p, int i, double alpha, double beta,
                                                double v)
{
    double r = __dmul_rn(alpha, v);
    if (beta != 0.0)
        r = __dadd_rn(r, __dmul_rn(beta, (double)__half2float(p[i])));
    p[i] = __double2half(r);
}
static __device__ __forceinline__ float v0_term(int is_log, float y, float dy)
{
    return is_log ? dy : dy * y;
}
static __device__ __forceinline__ float v0_acc(int is_log, float y, float dy, float s)
{
    return is_log ? dy - expf(y) * s : y * (dy - s);
}
template <typename T, int PV> struct v0_pix_t {
    alignas(sizeof(T) * PV) T e[PV];
};

template <typename T, int CPT, int PV, int CGM>
static __device__ __forceinline__ void v0_body(const geom_t &g, const void *yv, const void *dyv,
                                               void *dxv, double alpha, double beta)
{
    __shared__ float red[CGM][32 * PV];
    typedef v0_pix_t<T, PV> pix_t;
    const T *y = (const T *)yv;
    const T *dy = (const T *)dyv;
    T *dx = (T *)dxv;
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
        int64_t base[3] = {p, p, p};
        int64_t r = outer;
        for (int d = g.no - 2; d >= 0; d--) {
            const int64_t i = r % g.odim[d];
            r /= g.odim[d];
            for (int t = 0; t < 3; t++)
                base[t] += i * g.ost[t][d];
        }
        const int nk = valid ? (int)(C - c0 < CPT ? C - c0 : CPT) : 0;
        const T *yp = y + base[0] + c0 * rs0, *gp = dy + base[1] + c0 * rs1;
        pix_t vy[CPT], vd[CPT];
#pragma unroll
        for (int k = 0; k < CPT; k++)
            if (k < nk) {
                vy[k] = *(const pix_t *)(yp + k * rs0);
                vd[k] = *(const pix_t *)(gp + k * rs1);
            }
        float part[PV];
#pragma unroll
        for (int q = 0; q < PV; q++)
            part[q] = 0;
#pragma unroll
        for (int k = 0; k < CPT; k++)
            if (k < nk)
#pragma unroll
                for (int q = 0; q < PV; q++)
                    part[q] += v0_term(g.is_log, v0_ld(vy[k].e, q), v0_ld(vd[k].e, q));
#pragma unroll
        for (int q = 0; q < PV; q++)
            red[cg][lane * PV + q] = part[q];
        __syncthreads();
        float s[PV];
#pragma unroll
        for (int q = 0; q < PV; q++) {
            s[q] = red[0][lane * PV + q];
            for (int j = 1; j < ncg; j++)
                s[q] += red[j][lane * PV + q];
        }
        T *dp = dx + base[2] + c0 * rs2;
#pragma unroll
        for (int k = 0; k < CPT; k++)
            if (k < nk) {
                pix_t *op = (pix_t *)(dp + k * rs2);
                pix_t w;
                if (beta != 0.0)
                    w = *op;
#pragma unroll
                for (int q = 0; q < PV; q++) {
                    const float v = v0_acc(g.is_log, v0_ld(vy[k].e, q), v0_ld(vd[k].e, q), s[q]);
                    if (plain)
                        v0_st(w.e, q, v);
                    else
                        v0_blend(w.e, q, alpha, beta, (double)v);
                }
                *op = w;
            }
        __syncthreads(); /* red is rewritten by the next tile */
    }
}

template <typename T, int CPT, int PV>
static __global__ void __launch_bounds__(256)
    v0_bwd_cols(const geom_t g, const void *yv, const void *dyv, void *dxv, double alpha,
                double beta)
{
    v0_body<T, CPT, PV, 8>(g, yv, dyv, dxv, alpha, beta);
}

template <typename T, int CPT, int PV>
static __global__ void __launch_bounds__(32 * SM_COLS_CG_MAX, 1)
    v0_bwd_cols16(const geom_t g, const void *yv, const void *dyv, void *dxv, double alpha,
                  double beta)
{
    v0_body<T, CPT, PV, SM_COLS_CG_MAX>(g, yv, dyv, dxv, alpha, beta);
}

// ================================ variants: helpers ===========================================

template <int B> struct vec_of;
template <> struct vec_of<2> {
    typedef unsigned short t;
};
template <> struct vec_of<4> {
    typedef unsigned int t;
};
template <> struct vec_of<8> {
    typedef uint2 t;
};
template <> struct vec_of<16> {
    typedef uint4 t;
};

// V consecutive elements of T as one access word: widen, narrow (16-bit pairs by one cvt).
template <typename T, int V> struct pk;
template <int V> struct pk<float, V> {
    typedef typename vec_of<4 * V>::t w_t;
    static __device__ __forceinline__ void to_f(const w_t &w, float *f) { memcpy(f, &w, 4 * V); }
    static __device__ __forceinline__ w_t from_f(const float *f)
    {
        w_t w;
        memcpy(&w, f, 4 * V);
        return w;
    }
};
template <> struct pk<__half, 1> {
    typedef unsigned short w_t;
    static __device__ __forceinline__ void to_f(const w_t &w, float *f)
    {
        f[0] = __half2float(__ushort_as_half(w));
    }
    static __device__ __forceinline__ w_t from_f(const float *f)
    {
        return __half_as_ushort(__float2half_rn(f[0]));
    }
};
template <int V> struct pk<__half, V> { // V even: V / 2 half2 words
    typedef typename vec_of<2 * V>::t w_t;
    static __device__ __forceinline__ void to_f(const w_t &w, float *f)
    {
        __half2 h[V / 2];
        memcpy(h, &w, 2 * V);
#pragma unroll
        for (int i = 0; i < V / 2; i++) {
            const float2 t = __half22float2(h[i]);
            f[2 * i] = t.x, f[2 * i + 1] = t.y;
        }
    }
    static __device__ __forceinline__ w_t from_f(const float *f)
    {
        __half2 h[V / 2];
#pragma unroll
        for (int i = 0; i < V / 2; i++)
            h[i] = __floats2half2_rn(f[2 * i], f[2 * i + 1]);
        w_t w;
        memcpy(&w, h, 2 * V);
        return w;
    }
};

// An empty asm that the compiler must assume rewrites w: values derived from w before it (the
// widened floats, 64-bit addresses) cannot be reused after it, so they are not held in registers
// across the barriers; the raw words are (half the registers of floats for 16-bit data).
static __device__ __forceinline__ void opq(unsigned short &w) { asm volatile("" : "+h"(w)); }
static __device__ __forceinline__ void opq(unsigned &w) { asm volatile("" : "+r"(w)); }
static __device__ __forceinline__ void opq(uint2 &w) { asm volatile("" : "+r"(w.x), "+r"(w.y)); }
template <typename T> static __device__ __forceinline__ void opq(T *&p)
{
    asm volatile("" : "+l"(p));
}

template <int V> static __device__ __forceinline__ void lds_v(const float *p, float *o)
{
    if (V % 4 == 0) {
#pragma unroll
        for (int i = 0; i < V / 4; i++) {
            const float4 t = ((const float4 *)p)[i];
            o[4 * i] = t.x, o[4 * i + 1] = t.y, o[4 * i + 2] = t.z, o[4 * i + 3] = t.w;
        }
    } else if (V == 2) {
        const float2 t = *(const float2 *)p;
        o[0] = t.x, o[1] = t.y;
    } else {
        o[0] = p[0];
    }
}

// ================================ variants: the generic kernel ================================
// bcols_kernel<T, V, G, LX, NGM, MINB, FOLD1, LOG, CS>: block (LX, NG), NG = ceil(C / G) <= NGM
// channel groups of G channels, LX lanes along the pixels, each lane V consecutive pixels as one
// V * sizeof(T) access; one tile of P = LX * V pixels of one image a block (blockIdx.x the tile,
// blockIdx.y the image: no grid-stride loop, no 64-bit divisions). Thread (tx, g) loads its G
// channels of y and dy (raw words, 2 G loads in flight), sums dy y (LOG: dy) over them in
// channel order from 0 (v0's per-thread sum when G = v0's CPT; ACCURATE: a rounded product,
// then a rounded add, as v0, whose runtime select between dy y and dy (LOG) keeps the compiler
// from fusing them into an FMA: mul.f32, selp, add.f32 in its PTX), then:
//   FOLD1: partials [pixel][group] (stride NGM + 1), one thread a pixel adds them in group order
//          and leaves the sum in shared memory (2 barriers);
//   else:  v0's fold, every thread adds the NG partials of its pixels in group order.
// The output: dx = y (dy - s) (LOG: dy - expf(y) s), the same expressions as v0 (the same PTX:
// sub, mul; LOG expf, mul, sub), rounded once. FULL (block-uniform: an interior tile,
// C % G == 0) drops the per-channel guards. CS: ld.global.cs / st.global.cs (evict-first).
// 32-bit offsets inside an image: needs C * S < 2^31 and S % V == 0 (else the host falls back
// to v0).

template <int V, int LX, int NGM, bool FOLD1> struct bsmem {
    static constexpr int P = LX * V;
    float red[FOLD1 ? P * (NGM + 1) : NGM * P];
    alignas(16) float fin[FOLD1 ? P : 1];
};

template <typename T, int V, int G, int LX, int NGM, bool FOLD1, bool LOG, bool FULL, bool CS>
static __device__ __forceinline__ void bcols_tile(bsmem<V, LX, NGM, FOLD1> &sh, const T *yp,
                                                  const T *gp, T *dp, int nk_, int S)
{
    typedef pk<T, V> P_;
    typedef typename P_::w_t w_t;
    constexpr int P = LX * V;
    const int nk = FULL ? G : nk_;
    const int tx = threadIdx.x, g = threadIdx.y, ng = blockDim.y;
    w_t ry[G], rd[G];
    // the addresses walk one channel row at a time (opq: not all 2 G of them computed up front
    // and held while the loads are issued)
#pragma unroll
    for (int k = 0; k < G; k++) {
        if (k < nk) {
            ry[k] = CS ? __ldcs((const w_t *)yp) : *(const w_t *)yp;
            rd[k] = CS ? __ldcs((const w_t *)gp) : *(const w_t *)gp;
        }
        yp += S, gp += S;
        opq(yp), opq(gp);
    }
    float s[V];
#pragma unroll
    for (int q = 0; q < V; q++)
        s[q] = 0;
#pragma unroll
    for (int k = 0; k < G; k++)
        if (k < nk) {
            float fy[V], fd[V];
            P_::to_f(ry[k], fy);
            P_::to_f(rd[k], fd);
#pragma unroll
            for (int q = 0; q < V; q++)
                s[q] = LOG ? s[q] + fd[q] : __fadd_rn(s[q], __fmul_rn(fd[q], fy[q]));
        }
#define RIDX(q) (FOLD1 ? (tx * V + (q)) * (NGM + 1) + g : g * P + (q) * LX + tx)
#pragma unroll
    for (int q = 0; q < V; q++)
        sh.red[RIDX(q)] = s[q];
    __syncthreads();
    if (FOLD1) {
        const int tid = g * LX + tx, nthr = LX * ng;
#pragma unroll 1
        for (int pp = tid; pp < P; pp += nthr) {
            const float *r = sh.red + pp * (NGM + 1);
            float a = r[0];
#pragma unroll 4
            for (int j = 1; j < ng; j++)
                a += r[j];
            sh.fin[pp] = a;
        }
        __syncthreads();
        lds_v<V>(sh.fin + tx * V, s);
    } else {
#pragma unroll
        for (int q = 0; q < V; q++) {
            float a = sh.red[q * LX + tx];
#pragma unroll 4
            for (int j = 1; j < ng; j++)
                a += sh.red[j * P + q * LX + tx];
            s[q] = a;
        }
    }
#undef RIDX
    // after the barriers: the raw words held (not their widened floats)
#pragma unroll
    for (int k = 0; k < G; k++)
        if (k < nk)
            opq(ry[k]), opq(rd[k]);
#pragma unroll
    for (int k = 0; k < G; k++) {
        if (k < nk) {
            float fy[V], fd[V], o[V];
            P_::to_f(ry[k], fy);
            P_::to_f(rd[k], fd);
#pragma unroll
            for (int q = 0; q < V; q++)
                o[q] = LOG ? fd[q] - expf(fy[q]) * s[q] : fy[q] * (fd[q] - s[q]);
            if (CS)
                __stcs((w_t *)dp, P_::from_f(o));
            else
                *(w_t *)dp = P_::from_f(o);
        }
        dp += S;
        opq(dp);
    }
}

template <typename T, int V, int G, int LX, int NGM, int MINB, bool FOLD1, bool LOG, bool CS>
static __global__ void __launch_bounds__(LX *NGM, MINB)
    bcols_kernel(const T *y, const T *dy, T *dx, int C, int S)
{
    __shared__ bsmem<V, LX, NGM, FOLD1> sh;
    constexpr int P = LX * V;
    const int tx = threadIdx.x, g = threadIdx.y;
    const int c0 = g * G;
    const int nkv = C - c0 < G ? C - c0 : G;
    const int p0 = blockIdx.x * P + tx * V;
    const int nk = p0 < S ? nkv : 0;
    const size_t off = (size_t)blockIdx.y * C * S + c0 * S + p0;
    if (C % G == 0 && (int)(blockIdx.x + 1) * P <= S) // block-uniform
        bcols_tile<T, V, G, LX, NGM, FOLD1, LOG, true, CS>(sh, y + off, dy + off, dx + off, nk, S);
    else
        bcols_tile<T, V, G, LX, NGM, FOLD1, LOG, false, CS>(sh, y + off, dy + off, dx + off, nk,
                                                            S);
}

// ==================================== host: problems ==========================================

enum { DT_F32, DT_F16 };
static const char *dt_name(int dt) { return dt == DT_F32 ? "f32" : "f16"; }
static size_t dt_size(int dt) { return dt == DT_F32 ? 4 : 2; }

struct prob_t {
    int dt, N, C, H, W;
    bool log;      // CUDNN_SOFTMAX_LOG
    bool specials; // NaN / inf / zero columns (check problems)
    std::string name() const
    {
        char b[80];
        snprintf(b, sizeof b, "n%dc%dh%dw%d%s", N, C, H, W, log ? "-log" : "");
        return b;
    }
    int S() const { return H * W; }
    size_t elems() const { return (size_t)N * C * H * W; }
};

// softmax.cu's sm_cols_shape for packed NCHW (cudaMalloc'd tensors: pairs whenever S is even):
// v0's CPT (0: the library takes another kernel), pv, cg.
static int cols_shape(const prob_t &p, int *pv, int *cg)
{
    if (p.C > 256 || p.S() < 16)
        return 0;
    *pv = p.dt == DT_F16 && p.S() % 2 == 0 ? 2 : 1;
    int cpt = 2;
    if (p.C > 8 * 16) {
        cpt = 16;
    } else {
        while (cpt < 32 && (p.C + cpt - 1) / cpt > 8)
            cpt *= 2;
    }
    *cg = (p.C + cpt - 1) / cpt;
    if (p.dt != DT_F32 && *pv == 1 && cpt > 16)
        return 0;
    return cpt;
}

// ==================================== host: versions ==========================================

typedef bool (*launch_fn)(const prob_t &, const void *, const void *, void *, cudaStream_t);

static bool launch_v0(const prob_t &p, const void *y, const void *dy, void *dx, cudaStream_t st)
{
    int pv = 0, cg = 0;
    const int cpt = cols_shape(p, &pv, &cg);
    if (!cpt)
        return false;
    geom_t g;
    memset(&g, 0, sizeof g);
    g.no = 2;
    g.is_log = p.log;
    g.odim[0] = p.N, g.odim[1] = p.S();
    for (int t = 0; t < 3; t++)
        g.ost[t][0] = (int64_t)p.C * p.S(), g.ost[t][1] = 1, g.rst[t][0] = p.S();
    g.row_len = p.C;
    g.rows = (int64_t)p.N * p.S();
    const int64_t S = p.S();
    const int64_t total = (S + 32 * pv - 1) / (32 * pv) * p.N;
    const unsigned blocks = (unsigned)std::min<int64_t>(total, 1 << 20); // fd_cuda_blocks
    const dim3 threads(32, (unsigned)cg);
    if (cg > 8) {
        if (cpt != 16)
            return false;
        if (p.dt == DT_F32)
            v0_bwd_cols16<float, 16, 1><<<blocks, threads, 0, st>>>(g, y, dy, dx, 1.0, 0.0);
        else if (pv == 2)
            v0_bwd_cols16<__half, 16, 2><<<blocks, threads, 0, st>>>(g, y, dy, dx, 1.0, 0.0);
        else
            v0_bwd_cols16<__half, 16, 1><<<blocks, threads, 0, st>>>(g, y, dy, dx, 1.0, 0.0);
        return true;
    }
#define V0_CASE(CPT)                                                                               \
    case CPT:                                                                                      \
        if (p.dt == DT_F32)                                                                        \
            v0_bwd_cols<float, CPT, 1><<<blocks, threads, 0, st>>>(g, y, dy, dx, 1.0, 0.0);        \
        else if (pv == 2)                                                                          \
            v0_bwd_cols<__half, CPT, 2><<<blocks, threads, 0, st>>>(g, y, dy, dx, 1.0, 0.0);       \
        else                                                                                       \
            v0_bwd_cols<__half, CPT, 1><<<blocks, threads, 0, st>>>(g, y, dy, dx, 1.0, 0.0);       \
        break;
    switch (cpt) { // CPT 2 / 4 / 32 (C <= 32) are not stamped here: no problem below takes them
        V0_CASE(8)
        V0_CASE(16)
    default:
        return false;
    }
#undef V0_CASE
    return true;
}

template <typename T, int V, int G, int LX, int NGM, int MINB, bool FOLD1, bool CS>
static bool run_cols(const prob_t &p, const void *y, const void *dy, void *dx, cudaStream_t st)
{
    const int S = p.S(), P = LX * V;
    const int ng = (p.C + G - 1) / G;
    if (S % V != 0 || (int64_t)p.C * S >= ((int64_t)1 << 31) || ng > NGM || p.N > 65535)
        return false;
    const dim3 blocks((unsigned)((S + P - 1) / P), (unsigned)p.N), threads(LX, (unsigned)ng);
    if (p.log)
        bcols_kernel<T, V, G, LX, NGM, MINB, FOLD1, true, CS>
            <<<blocks, threads, 0, st>>>((const T *)y, (const T *)dy, (T *)dx, p.C, S);
    else
        bcols_kernel<T, V, G, LX, NGM, MINB, FOLD1, false, CS>
            <<<blocks, threads, 0, st>>>((const T *)y, (const T *)dy, (T *)dx, p.C, S);
    return true;
}

// MINB from a register cap for blocks of T threads
#define MINB_OF(T, REGS) (65536 / ((T) * (REGS)) > 0 ? 65536 / ((T) * (REGS)) : 1)

// v0's (G = CPT, PV, NGM = 8 or 16) -> each version's shape.
template <int KIND, typename T, int G, int PV, int NGM>
static bool dispatch_kind(const prob_t &p, const void *y, const void *dy, void *dx,
                          cudaStream_t st)
{
    constexpr int VW = 8 / (int)sizeof(T); // 8-byte accesses: f16 4, f32 2
    constexpr int G2 = G / 2;              // v5: half the groups' channels, twice the groups
    switch (KIND) {
    case 1: // v0's mapping and bounds, trimmed arithmetic, one tile a block, v0's fold
        return run_cols<T, PV, G, 32, NGM, 1, false, false>(p, y, dy, dx, st);
    case 2: // + the fold once per pixel
        return run_cols<T, PV, G, 32, NGM, 1, true, false>(p, y, dy, dx, st);
    case 3: // + registers capped: G 16 at 64 (512 threads: 2 blocks; 256: 4), G 8 at 40
        return run_cols<T, PV, G, 32, NGM, MINB_OF(32 * NGM, G == 16 ? 64 : 40), true, false>(
            p, y, dy, dx, st);
    case 4: // 8-byte accesses (V = VW), 16 lanes a channel row (128 B), fold once
        return run_cols<T, VW, G, 16, NGM, MINB_OF(16 * NGM, G == 16 ? 128 : 64), true, false>(
            p, y, dy, dx, st);
    case 5: // v4 with groups of G / 2 channels (2 NGM groups): not v0's sum grouping
        return run_cols<T, VW, G2, 16, 2 * NGM, MINB_OF(32 * NGM, G2 == 8 ? 56 : 40), true,
                        false>(p, y, dy, dx, st);
    case 6: // v3 with evict-first hints
        return run_cols<T, PV, G, 32, NGM, MINB_OF(32 * NGM, G == 16 ? 64 : 40), true, true>(
            p, y, dy, dx, st);
    case 7: // v4 with evict-first hints
        return run_cols<T, VW, G, 16, NGM, MINB_OF(16 * NGM, G == 16 ? 128 : 64), true, true>(
            p, y, dy, dx, st);
    }
    return false;
}

template <int KIND>
static bool launch_kind(const prob_t &p, const void *y, const void *dy, void *dx,
                        cudaStream_t st)
{
    int pv = 0, cg = 0;
    const int G = cols_shape(p, &pv, &cg);
    if (p.dt == DT_F32) {
        if (G == 16 && cg > 8)
            return dispatch_kind<KIND, float, 16, 1, 16>(p, y, dy, dx, st);
        if (G == 16)
            return dispatch_kind<KIND, float, 16, 1, 8>(p, y, dy, dx, st);
        if (G == 8)
            return dispatch_kind<KIND, float, 8, 1, 8>(p, y, dy, dx, st);
    } else {
        if (G == 16 && cg > 8 && pv == 2)
            return dispatch_kind<KIND, __half, 16, 2, 16>(p, y, dy, dx, st);
        if (G == 16 && cg > 8)
            return dispatch_kind<KIND, __half, 16, 1, 16>(p, y, dy, dx, st);
        if (G == 16 && pv == 2)
            return dispatch_kind<KIND, __half, 16, 2, 8>(p, y, dy, dx, st);
        if (G == 8 && pv == 2)
            return dispatch_kind<KIND, __half, 8, 2, 8>(p, y, dy, dx, st);
        if (G == 8)
            return dispatch_kind<KIND, __half, 8, 1, 8>(p, y, dy, dx, st);
    }
    return false; // other shapes: not instantiated, v0 serves
}

struct version_t {
    const char *name;
    launch_fn fn;
};
static const version_t versions[] = {
    {"v0", launch_v0},      {"v1", launch_kind<1>}, {"v2", launch_kind<2>}, {"v3", launch_kind<3>},
    {"v4", launch_kind<4>}, {"v5", launch_kind<5>}, {"v6", launch_kind<6>}, {"v7", launch_kind<7>},
};

// ==================================== host: reference and check ===============================

static uint64_t lcg_state = 0x2545F4914F6CDD1DULL;
static double urand(void) // [0, 1)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 11) * 0x1p-53;
}

static double half_bits_to_double(uint16_t h) { return (double)__half2float(__ushort_as_half(h)); }
static uint16_t double_to_half_bits(double v) { return __half_as_ushort(__double2half(v)); }

static double val_of(int dt, const void *buf, size_t i)
{
    if (dt == DT_F32)
        return (double)((const float *)buf)[i];
    return half_bits_to_double(((const uint16_t *)buf)[i]);
}
// ordered integer of the bits (monotone in the value), for ulp distances
static int64_t ord_of(int dt, const void *buf, size_t i)
{
    if (dt == DT_F32) {
        int32_t b;
        memcpy(&b, (const char *)buf + 4 * i, 4);
        return b < 0 ? -(int64_t)(b & 0x7fffffff) : (int64_t)b;
    }
    const uint16_t b = ((const uint16_t *)buf)[i];
    return (b & 0x8000) ? -(int64_t)(b & 0x7fff) : (int64_t)b;
}
static bool isnan_of(int dt, const void *buf, size_t i) { return std::isnan(val_of(dt, buf, i)); }

// Images checked against the ref: all of the small problems, every 7th of the big ones.
static bool checked(const prob_t &p, int n)
{
    return !(p.N >= 16 && p.C * p.S() > 100000) || n % 7 == 0;
}

// src/ref/softmax_ref.c's backward for one NCHW tensor (checked images): sum in double of dy y
// (LOG: dy) in channel order, then y (dy - sum) (LOG: dy - exp(y) sum).
static void reference(const prob_t &p, const std::vector<double> &y, const std::vector<double> &g,
                      std::vector<double> &r)
{
    const int C = p.C;
    const size_t S = p.S();
    for (int n = 0; n < p.N; n++) {
        if (!checked(p, n))
            continue;
        for (size_t q = 0; q < S; q++) {
            const size_t b = (size_t)n * C * S + q;
            double sum = 0.0;
            for (int c = 0; c < C; c++)
                sum += p.log ? g[b + c * S] : g[b + c * S] * y[b + c * S];
            for (int c = 0; c < C; c++) {
                const double yv = y[b + c * S], gv = g[b + c * S];
                r[b + c * S] = p.log ? gv - exp(yv) * sum : yv * (gv - sum);
            }
        }
    }
}

struct check_t {
    int64_t maxulp;
    bool ok, bitid;
};

static int32_t ord_rounded(int dt, double v)
{
    if (dt == DT_F32) {
        const float f = (float)v;
        return (int32_t)ord_of(DT_F32, &f, 0);
    }
    const uint16_t h = double_to_half_bits(v);
    return (int32_t)ord_of(DT_F16, &h, 0);
}

// max ulps against the ref rounded to the type, the tests' gm_tol (tests/gpu/gpu_mirror.c:
// |got - ref| <= r (1 + |ref|) + tiny, r = 4u + 2 (C + 16) 2^-24; the k of the backward's
// call taken as C + 16, as the forward sandbox), bit identity with v0 over the whole tensor (NaN
// matches NaN).
static check_t check(const prob_t &p, const std::vector<double> &ref, const void *got,
                     const void *v0)
{
    const int dt = p.dt;
    const size_t n = p.elems(), es = dt_size(dt), img = (size_t)p.C * p.S();
    const double u = dt == DT_F32 ? 0x1p-24 : 0x1p-11;
    const double r = 4 * u + 2.0 * (p.C + 16) * 0x1p-24, tiny = dt == DT_F32 ? 0x1p-126 : 0x1p-24;
    const bool same = memcmp(got, v0, n * es) == 0; // else element by element (NaN payloads)
    check_t c = {0, true, true};
    for (size_t i = 0; i < n; i++) {
        if (!same && c.bitid &&
            memcmp((const char *)got + i * es, (const char *)v0 + i * es, es) != 0 &&
            !(isnan_of(dt, got, i) && isnan_of(dt, v0, i)))
            c.bitid = false;
        if (!checked(p, (int)(i / img)))
            continue;
        const double gv = val_of(dt, got, i), rf = ref[i];
        if (std::isnan(rf) || std::isnan(gv)) {
            if (!(std::isnan(rf) && std::isnan(gv)))
                c.ok = false, c.maxulp = INT64_MAX;
            continue;
        }
        if (std::isinf(rf) || std::isinf(gv)) {
            if (rf != gv)
                c.ok = false, c.maxulp = INT64_MAX;
            continue;
        }
        if (std::fabs(gv - rf) > r * (1 + std::fabs(rf)) + tiny)
            c.ok = false;
        const int64_t d = std::llabs(ord_of(dt, got, i) - (int64_t)ord_rounded(dt, rf));
        if (c.maxulp != INT64_MAX)
            c.maxulp = std::max(c.maxulp, d);
    }
    return c;
}

// Host emulation of bcols_kernel's index math for one image: every (channel, pixel) loaded and
// stored by exactly one (tile, lane, group, k, q), FULL exactly where every thread's guards pass.
static bool cover_ok(int C, int S, int V, int G, int LX)
{
    const int P = LX * V, ng = (C + G - 1) / G, tiles = (S + P - 1) / P;
    std::vector<int> hits((size_t)C * S, 0);
    for (int bx = 0; bx < tiles; bx++) {
        const bool full = C % G == 0 && (bx + 1) * P <= S;
        for (int g = 0; g < ng; g++)
            for (int tx = 0; tx < LX; tx++) {
                const int c0 = g * G, nkv = C - c0 < G ? C - c0 : G, p0 = bx * P + tx * V;
                const int nk = p0 < S ? nkv : 0;
                if (full && nk != G)
                    return false;
                for (int k = 0; k < nk; k++)
                    for (int q = 0; q < V; q++) {
                        const long o = (long)(c0 + k) * S + p0 + q;
                        if (p0 + q >= S || o >= (long)C * S)
                            return false;
                        hits[o]++;
                    }
            }
    }
    for (int h : hits)
        if (h != 1)
            return false;
    return true;
}

// ==================================== main ====================================================

struct set_t {
    void *y, *dy, *dx;
};

int main(int argc, char **argv)
{
    const char *only = nullptr;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--only vN]\n", argv[0]);
            return 2;
        }
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("no GPU\n");
        return 77;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("# %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);

    const prob_t probs[] = {
        {DT_F16, 32, 256, 56, 56, false, false},  {DT_F16, 32, 64, 112, 112, false, false},
        {DT_F32, 32, 128, 56, 56, false, false},  {DT_F32, 16, 64, 112, 112, false, false},
        {DT_F16, 32, 64, 112, 112, true, false}, // LOG on a benchmark size
        // correctness shapes: odd pixel count (16-bit one element a lane; the 8-byte variants
        // fall back), partial channel groups, partial tiles, NaN / inf / zero columns
        {DT_F16, 3, 37, 9, 11, false, true},      {DT_F32, 3, 37, 9, 11, false, true},
        {DT_F16, 2, 200, 6, 12, false, true},     {DT_F32, 3, 100, 4, 10, false, true},
        {DT_F16, 2, 50, 5, 8, false, true},       {DT_F32, 2, 200, 6, 12, false, true},
        {DT_F16, 2, 200, 6, 12, true, true},      {DT_F32, 3, 100, 4, 10, true, true},
        {DT_F16, 3, 37, 9, 11, true, true},
    };
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    int fails = 0;
    const size_t l2 = (size_t)std::max(prop.l2CacheSize, 50 << 20);
    for (const prob_t &p : probs) {
        const size_t n = p.elems(), bytes = n * dt_size(p.dt), C = p.C, S = p.S();
        // fill: y a softmax (LOG: log softmax) over c of uniform [-4, 4), dy uniform [-1, 1),
        // both rounded to the type
        std::vector<double> yd(n), gd(n), ref(n, 0.0);
        std::vector<double> col(C);
        for (int nn = 0; nn < p.N; nn++)
            for (size_t q = 0; q < S; q++) {
                const size_t b = (size_t)nn * C * S + q;
                double sum = 0;
                for (size_t c = 0; c < C; c++)
                    sum += col[c] = exp(urand() * 8.0 - 4.0);
                for (size_t c = 0; c < C; c++) {
                    yd[b + c * S] = p.log ? log(col[c] / sum) : col[c] / sum;
                    gd[b + c * S] = urand() * 2.0 - 1.0;
                }
            }
        if (p.specials) {
            auto at = [&](std::vector<double> &v, int nn, size_t c, size_t q) -> double & {
                return v[(nn * C + c) * S + q];
            };
            at(gd, 1 % p.N, 3, 7) = NAN;          // a NaN dy: the column NaN
            at(yd, 2 % p.N, C - 1, 0) = INFINITY; // +inf y in the last (partial) group
            for (size_t c = 0; c < C; c++)        // dy 0 over a column: dx 0 (or -0)
                at(gd, 0, c, 5) = 0.0;
            for (size_t c = 0; c < C; c++) // a constant column
                at(yd, p.N - 1, c, S - 2) = p.log ? -log((double)C) : 1.0 / (double)C,
                                 at(gd, p.N - 1, c, S - 2) = 0.5;
            at(gd, 0, C / 2, S - 1) = -1e30; // a dy that overflows the type: -inf
        }
        std::vector<uint8_t> yh(bytes), gh(bytes), oh(bytes), o0(bytes);
        for (size_t i = 0; i < n; i++) {
            if (p.dt == DT_F32) {
                const float a = (float)yd[i], b = (float)gd[i];
                memcpy(&yh[4 * i], &a, 4), memcpy(&gh[4 * i], &b, 4);
                yd[i] = a, gd[i] = b;
            } else {
                const uint16_t a = double_to_half_bits(yd[i]), b = double_to_half_bits(gd[i]);
                memcpy(&yh[2 * i], &a, 2), memcpy(&gh[2 * i], &b, 2);
                yd[i] = half_bits_to_double(a), gd[i] = half_bits_to_double(b);
            }
        }
        reference(p, yd, gd, ref);
        // buffer sets: the timed graph rotates over enough of them that the footprint is > 3 L2
        // (the small check problems: one set, their times are not the point)
        const int nsets =
            p.specials ? 1 : (int)std::min<size_t>(16, std::max<size_t>(2, l2 / bytes + 1));
        std::vector<set_t> sets(nsets);
        for (set_t &s : sets) {
            CK(cudaMalloc(&s.y, bytes));
            CK(cudaMalloc(&s.dy, bytes));
            CK(cudaMalloc(&s.dx, bytes));
            CK(cudaMemcpy(s.y, yh.data(), bytes, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(s.dy, gh.data(), bytes, cudaMemcpyHostToDevice));
        }
        CK(cudaMemset(sets[0].dx, 0xff, bytes));
        {
            int pv = 0, cg = 0;
            const int cpt = cols_shape(p, &pv, &cg), vw = 8 / (int)dt_size(p.dt);
            const int S_ = p.S();
            if (cpt && !(cover_ok(p.C, S_, pv, cpt, 32) &&
                         (S_ % vw || (cover_ok(p.C, S_, vw, cpt, 16) &&
                                      cover_ok(p.C, S_, vw, cpt / 2, 16))))) {
                printf("# %s %s: index emulation FAIL\n", dt_name(p.dt), p.name().c_str());
                fails++;
            }
        }
        if (!launch_v0(p, sets[0].y, sets[0].dy, sets[0].dx, st)) {
            printf("# %s %s: not a softmax_bwd_cols shape, skipped\n", dt_name(p.dt),
                   p.name().c_str());
            for (set_t &s : sets)
                {
                CK(cudaFree(s.y));
                CK(cudaFree(s.dy));
                CK(cudaFree(s.dx));
            }
            continue;
        }
        CK(cudaGetLastError());
        CK(cudaStreamSynchronize(st));
        CK(cudaMemcpy(o0.data(), sets[0].dx, bytes, cudaMemcpyDeviceToHost));
        // times 20 launches (rotating the sets) in a graph: 5 warm-up replays, median of 20
        auto time_graph = [&](auto launch) {
            cudaGraph_t graph;
            cudaGraphExec_t exec;
            CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
            for (int i = 0; i < 20; i++)
                launch(sets[i % nsets]);
            CK(cudaStreamEndCapture(st, &graph));
            CK(cudaGraphInstantiate(&exec, graph, 0));
            for (int i = 0; i < 5; i++)
                CK(cudaGraphLaunch(exec, st));
            CK(cudaStreamSynchronize(st));
            std::vector<float> ms;
            for (int i = 0; i < 20; i++) {
                CK(cudaEventRecord(e0, st));
                CK(cudaGraphLaunch(exec, st));
                CK(cudaEventRecord(e1, st));
                CK(cudaEventSynchronize(e1));
                float t = 0;
                CK(cudaEventElapsedTime(&t, e0, e1));
                ms.push_back(t);
            }
            CK(cudaGraphExecDestroy(exec));
            CK(cudaGraphDestroy(graph));
            std::sort(ms.begin(), ms.end());
            return 0.5 * (ms[9] + ms[10]) * 1000.0 / 20.0;
        };
        if (!p.specials) { // the ceiling: y copied to dx (2 x bytes moved), rotated
            const double us = time_graph([&](const set_t &s) {
                CK(cudaMemcpyAsync(s.dx, s.y, bytes, cudaMemcpyDeviceToDevice, st));
            });
            printf("copy %s %s %.2f %.0f (D2D of one tensor, %d sets of %.0f MB)\n", dt_name(p.dt),
                   p.name().c_str(), us, 2.0 * (double)bytes / (us * 1e-6) / 1e9, nsets,
                   3.0 * (double)bytes / 1e6);
        }
        for (const version_t &v : versions) {
            if (only && strcmp(only, v.name))
                continue;
            CK(cudaMemset(sets[0].dx, 0xff, bytes));
            bool fb = false;
            launch_fn fn = v.fn;
            if (!fn(p, sets[0].y, sets[0].dy, sets[0].dx, st)) {
                fb = true, fn = launch_v0;
                fn(p, sets[0].y, sets[0].dy, sets[0].dx, st);
            }
            const cudaError_t le = cudaGetLastError();
            const cudaError_t se = cudaStreamSynchronize(st);
            if (le != cudaSuccess || se != cudaSuccess) {
                printf("%s %s %s launch error: %s FAIL\n", v.name, dt_name(p.dt),
                       p.name().c_str(), cudaGetErrorString(le != cudaSuccess ? le : se));
                fflush(stdout);
                fails++;
                if (se != cudaSuccess) // sticky: the context is gone
                    return 1;
                continue;
            }
            CK(cudaMemcpy(oh.data(), sets[0].dx, bytes, cudaMemcpyDeviceToHost));
            const check_t c = check(p, ref, oh.data(), o0.data());
            const double us =
                time_graph([&](const set_t &s) { fn(p, s.y, s.dy, s.dx, st); });
            const double gbs = 3.0 * (double)bytes / (us * 1e-6) / 1e9;
            char ulp[32];
            if (c.maxulp == INT64_MAX)
                snprintf(ulp, sizeof ulp, "nan");
            else
                snprintf(ulp, sizeof ulp, "%lld", (long long)c.maxulp);
            printf("%s %s %s %.2f %.0f maxulp=%s bitid=%s %s%s\n", v.name, dt_name(p.dt),
                   p.name().c_str(), us, gbs, ulp, c.bitid ? "yes" : "no", c.ok ? "ok" : "FAIL",
                   fb ? " (fallback: v0)" : "");
            fflush(stdout);
            fails += !c.ok;
        }
        for (set_t &s : sets)
            {
                CK(cudaFree(s.y));
                CK(cudaFree(s.dy));
                CK(cudaFree(s.dx));
            }
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    CK(cudaStreamDestroy(st));
    return fails ? 1 : 0;
}
