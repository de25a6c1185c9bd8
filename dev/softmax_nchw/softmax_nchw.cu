// SPDX-License-Identifier: MIT
// dev/softmax_nchw: sandbox for the softmax forward over channels on NCHW tensors
// (cudnnSoftmaxForward ACCURATE, MODE_CHANNEL, alpha 1, beta 0): for every (n, h, w) a softmax
// over c, whose elements are H * W apart. One file: a CPU reference in double (src/ref's
// formula), v0 = a copy of the library kernel softmax_fwd_cols (src/cuda/softmax_kernels.cuh,
// LEAN instantiation, with softmax.cu's sm_fcols_shape), variants v1.. with the same per-element
// arithmetic, a checker (max ulps against the ref, bit identity against v0, the tests' gm_tol)
// and a CUDA-graph timer. Usage: softmax_nchw [--only vN]. Prints
// `vN dtype problem us GB/s maxulp=.. bitid=yes|no ok|FAIL` (GB/s = (x + y bytes) / time).
// Exit 77 without a GPU. README.md lists the versions.
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

// ================================ v0: the library kernel ======================================
// softmax_fwd_cols<CPT, PV, LEAN = true> as in src/cuda/softmax_kernels.cuh: block (32, CG) =
// one tile of 32 * PV pixels of one image; thread (lane, cg) holds pixels lane * PV .. + PV - 1,
// channels cg * CPT .. + CPT - 1, all loaded at once, widened to float, then exp(x - max) in
// their place. Max: NaN-aware sm_max per thread, then every thread folds the CG partials in group
// order from shared memory; sum the same. 16-bit: __expf and the product by 1 / sum; FLOAT:
// expf and (g.mul_inv, FREEDNN_GPU_BW3 default on) the product by 1 / sum. Rounded once to T.

#define SM_FCOLS_CG_MAX 16

struct geom_t { // the fields of sm_geom_t that the LEAN kernel reads (t = 0 x, 1 y)
    int no;
    int64_t odim[4];
    int64_t ost[2][4];
    int64_t row_len;
    int64_t rst0[2];
    int mul_inv;
};

static __device__ __forceinline__ float v0_ld(const float *p, int i) { return p[i]; }
static __device__ __forceinline__ float v0_ld(const __half *p, int i) { return __half2float(p[i]); }
static __device__ __forceinline__ void v0_st(float *p, int i, float v) { p[i] = v; }
static __device__ __forceinline__ void v0_st(__half *p, int i, float v)
{
    p[i] = __float2half_rn(v);
}
static __device__ __forceinline__ float v0_max(float a, float b)
{
    return (a != a || b != b) ? (a != a ? a : b) : (b > a ? b : a);
}
template <typename T> static __device__ __forceinline__ float v0_exp(float v)
{
    return sizeof(T) == 2 ? __expf(v) : expf(v);
}
template <typename T, int PV> struct v0_pix_t {
    alignas(sizeof(T) * PV) T e[PV];
};
template <int N> struct word_of;
template <> struct word_of<2> {
    typedef unsigned short t;
};
template <> struct word_of<4> {
    typedef unsigned int t;
};

template <typename T, int CPT, int PV>
static __global__ void __launch_bounds__(32 * SM_FCOLS_CG_MAX, 2)
    v0_fwd_cols(const geom_t g, const void *xv, void *yv, double alpha, double beta)
{
    (void)alpha, (void)beta; // LEAN: alpha 1, beta 0
    __shared__ float red_m[SM_FCOLS_CG_MAX][32 * PV], red_s[SM_FCOLS_CG_MAX][32 * PV];
    typedef v0_pix_t<T, PV> pix_t;
    const T *x = (const T *)xv;
    T *y = (T *)yv;
    const int lane = threadIdx.x, cg = threadIdx.y, ncg = blockDim.y;
    const int64_t C = g.row_len, S = g.odim[g.no - 1];
    const int64_t xs = g.rst0[0], ys = g.rst0[1];
    const int c0 = cg * CPT;
    const int nkv = (int)(C - c0 < CPT ? C - c0 : CPT);
    const int64_t outer = blockIdx.y;
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
    const bool valid = p < S;
    const int nk = valid ? nkv : 0;
    const T *xp = x + ox + p + c0 * xs;
    float e[CPT][PV], m[PV];
    {
        pix_t vx[CPT];
#pragma unroll
        for (int k = 0; k < CPT; k++)
            if (k < nk)
                vx[k] = *(const pix_t *)(xp + k * xs);
#pragma unroll
        for (int q = 0; q < PV; q++)
            m[q] = -(float)CUDART_INF;
#pragma unroll
        for (int k = 0; k < CPT; k++)
            if (k < nk)
#pragma unroll
                for (int q = 0; q < PV; q++) {
                    e[k][q] = v0_ld(vx[k].e, q);
                    m[q] = v0_max(m[q], e[k][q]);
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
            m[q] = v0_max(m[q], red_m[j][q * 32 + lane]);
    }
    float s[PV];
#pragma unroll
    for (int q = 0; q < PV; q++)
        s[q] = 0;
#pragma unroll
    for (int k = 0; k < CPT; k++)
        if (k < nk)
#pragma unroll
            for (int q = 0; q < PV; q++) {
                const float d = e[k][q] - m[q];
                const float ex = v0_exp<T>(d);
                s[q] += ex;
                e[k][q] = ex;
            }
#pragma unroll
    for (int q = 0; q < PV; q++)
        red_s[cg][q * 32 + lane] = s[q];
    __syncthreads();
    float lsi[PV];
#pragma unroll
    for (int q = 0; q < PV; q++) {
        s[q] = red_s[0][q * 32 + lane];
        for (int j = 1; j < ncg; j++)
            s[q] += red_s[j][q * 32 + lane];
        lsi[q] = (float)1 / s[q];
    }
    T *yp = y + oy + p + c0 * ys;
#pragma unroll
    for (int k = 0; k < CPT; k++)
        if (k < nk) {
            pix_t *op = (pix_t *)(yp + k * ys);
            pix_t w;
#pragma unroll
            for (int q = 0; q < PV; q++) {
                const float v = sizeof(T) == 2 || g.mul_inv ? e[k][q] * lsi[q] : e[k][q] / s[q];
                v0_st(w.e, q, v);
            }
            typedef typename word_of<sizeof(pix_t)>::t word_t;
            word_t u;
            memcpy(&u, &w, sizeof u);
            *(word_t *)op = u;
        }
}

// ================================ variants: shared pieces =====================================
// Per element they compute what v0 computes (see README.md for the bit-identity argument):
//   max:  NaN-propagating max (max.NaN.f32 / __hmax2_nan on the raw halves): v0's sm_max up to a
//         NaN's payload (the order of a max never matters otherwise);
//   exp:  16-bit: ex2.approx.ftz(d * 0x3FB8AA3B), d = x - max in float (v0's __expf is the same
//         product and ex2.approx without .ftz: they differ only below 2^-126, where v0's
//         output rounds to 0 in half as well and the sum, >= 1, absorbs it); FLOAT: expf(d);
//   sum:  each thread sums its G = v0's CPT channels in order from 0, the G-chunk sums are added
//         in chunk order (v0's grouping), so the same float sum;
//   out:  e * rcp.rn(sum) (v0's (float)1 / s; rcp_rn_sum), rounded once to T (a pair: one
//         cvt.rn.f16x2).
// RELAX (v5 only) leaves that: exp by ex2.approx.ftz(fma(x, log2 e, -max * log2 e)) for both
// types, i.e. FLOAT's expf replaced by the SFU exp (the library's softmax_wreg LEAN FLOAT row).

#define L2E_BITS 0x3FB8AA3B // the float __expf multiplies by (CUDA 13 PTX)

static __device__ __forceinline__ float ex2_ftz(float a)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
    return r;
}
static __device__ __forceinline__ float max_nan(float a, float b)
{
    float r;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}

// 1 / s rounded to nearest: the fast path of the compiler's rcp.rn.f32 (MUFU.RCP, then
// r + r (1 - s r) by two FMAs), which it takes for every s whose exponent field is not 0, 253,
// 254 or 255; its slow path (a CALL, whose ABI cost registers) is left out. The sums here lie in
// [1, 256] (the max's own exp is 1) or are NaN (NaN here too), so the bits are rcp.rn's.
static __device__ __forceinline__ float rcp_rn_sum(float s)
{
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(s));
    return fmaf(r, -fmaf(s, r, -1.0f), r);
}

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

// V consecutive elements of T as one access: widen, narrow, NaN-propagating max, -inf.
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
    static __device__ __forceinline__ void vmax(w_t &m, const w_t &w)
    {
        float a[V], b[V];
        to_f(m, a), to_f(w, b);
#pragma unroll
        for (int q = 0; q < V; q++)
            a[q] = max_nan(a[q], b[q]);
        m = from_f(a);
    }
    static __device__ __forceinline__ w_t ninf()
    {
        float a[V];
#pragma unroll
        for (int q = 0; q < V; q++)
            a[q] = -CUDART_INF_F;
        return from_f(a);
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
    static __device__ __forceinline__ void vmax(w_t &m, const w_t &w)
    {
        m = __half_as_ushort(__hmax_nan(__ushort_as_half(m), __ushort_as_half(w)));
    }
    static __device__ __forceinline__ w_t ninf() { return 0xfc00u; }
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
    static __device__ __forceinline__ void vmax(w_t &m, const w_t &w)
    {
        __half2 a[V / 2], b[V / 2];
        memcpy(a, &m, 2 * V), memcpy(b, &w, 2 * V);
#pragma unroll
        for (int i = 0; i < V / 2; i++)
            a[i] = __hmax2_nan(a[i], b[i]);
        memcpy(&m, a, 2 * V);
    }
    static __device__ __forceinline__ w_t ninf()
    {
        unsigned u[V / 2];
#pragma unroll
        for (int i = 0; i < V / 2; i++)
            u[i] = 0xfc00fc00u;
        w_t w;
        memcpy(&w, u, 2 * V);
        return w;
    }
};

// exp(x - m) as v0 (RELAX: the SFU form for both types); mL = m * log2 e (RELAX only).
template <typename T, bool RELAX>
static __device__ __forceinline__ float sm_exp(float x, float m, float mL)
{
    const float l2e = __int_as_float(L2E_BITS);
    if (RELAX)
        return ex2_ftz(fmaf(x, l2e, -mL));
    if (sizeof(T) == 2)
        return ex2_ftz(__fmul_rn(__fsub_rn(x, m), l2e));
    return expf(x - m);
}

// ================================ variants: the generic kernel ================================
// cols_kernel<T, V, G, LX, MINB, HOLD, FOLD1, RELAX, PREF>: block (LX, NG), NG = ceil(C / G)
// channel groups of G channels (G = v0's CPT: the sum's grouping), LX lanes along the pixels,
// each lane V consecutive pixels as one V * sizeof(T) access; tile P = LX * V pixels of one
// image. HOLD: 16-bit data keeps exp(x - max) in float registers (v0); otherwise it keeps the raw
// x (half the registers) and evaluates exp(x - max) again for the output (the same bits).
// FLOAT always keeps the exps in the registers of x. FOLD1: one thread per pixel folds the NG
// partials (max, then sum and its reciprocal) and leaves them in shared memory for the block
// (two more barriers); otherwise every thread folds all NG partials of its pixels, as v0.
// PREF: persistent blocks (grid = resident blocks) walking the tiles; each thread copies the
// next tile's x for itself (cp.async into its own shared-memory slots, issued after the
// current tile's first barrier) while the current tile is reduced and written, so x is in
// flight all the time without registers for it (needs FOLD1, !HOLD; 4-byte accesses or wider).
// Needs S % V == 0 (the host falls back to v0 otherwise) and C * S < 2^31.

#define NGMAX 16 // v0's SM_FCOLS_CG_MAX: C <= 256 with G = 16

template <typename T, int V, int G, int LX, bool FOLD1> struct cols_smem {
    static constexpr int P = LX * V;
    // FOLD1: [pixel][group] (stride NGMAX + 1: the folder's walk is conflict-free);
    // else v0's [group][q * LX + lane]
    float red_m[FOLD1 ? P * (NGMAX + 1) : NGMAX * P];
    float red_s[FOLD1 ? P * (NGMAX + 1) : NGMAX * P];
    alignas(16) float fin_m[FOLD1 ? P : 1];
    alignas(16) float fin_l[FOLD1 ? P : 1];
};

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

// One tile from its loaded x (raw[k], k < nk): reductions, exps, stores. FULL (block-uniform:
// an interior tile, C % G == 0) drops the per-channel guards.
// after_max() runs right after the first barrier (PREF: the next tile's copies; every raw value
// has been consumed by the max by then, so its staging slots may be overwritten).
template <typename T, int V, int G, int LX, bool HOLD, bool FOLD1, bool RELAX, bool FULL,
          bool CS, typename F>
static __device__ __forceinline__ void
cols_tile(cols_smem<T, V, G, LX, FOLD1> &sh, const typename pk<T, V>::w_t *raw, int nk_,
          T *yp, int S, F after_max)
{
    const int nk = FULL ? G : nk_;
    typedef pk<T, V> P_;
    typedef typename P_::w_t w_t;
    constexpr int P = LX * V;
    constexpr bool H = HOLD || sizeof(T) == 4;
    const int tx = threadIdx.x, g = threadIdx.y, ng = blockDim.y;
    const int tid = g * LX + tx, nthr = LX * ng;
    const float l2e = __int_as_float(L2E_BITS);
#define RIDX(q) (FOLD1 ? (tx * V + (q)) * (NGMAX + 1) + g : g * P + (q) * LX + tx)
    // ---- max: on the raw elements (exact), NaN-propagating
    float m[V];
    {
        w_t mw = P_::ninf();
#pragma unroll
        for (int k = 0; k < G; k++)
            if (k < nk)
                P_::vmax(mw, raw[k]);
        P_::to_f(mw, m);
    }
#pragma unroll
    for (int q = 0; q < V; q++)
        sh.red_m[RIDX(q)] = m[q];
    __syncthreads();
    after_max();
    if (FOLD1) {
#pragma unroll 1
        for (int pp = tid; pp < P; pp += nthr) {
            const float *r = sh.red_m + pp * (NGMAX + 1);
            float a = r[0];
#pragma unroll 4
            for (int j = 1; j < ng; j++)
                a = max_nan(a, r[j]);
            sh.fin_m[pp] = a;
        }
        __syncthreads();
        lds_v<V>(sh.fin_m + tx * V, m);
    } else {
#pragma unroll
        for (int q = 0; q < V; q++) {
            float a = sh.red_m[q * LX + tx];
#pragma unroll 4
            for (int j = 1; j < ng; j++)
                a = max_nan(a, sh.red_m[j * P + q * LX + tx]);
            m[q] = a;
        }
    }
    float mL[V];
#pragma unroll
    for (int q = 0; q < V; q++)
        mL[q] = RELAX ? m[q] * l2e : 0.0f;
    // ---- exps and this thread's chunk sum
    float s[V], e[H ? G : 1][V];
#pragma unroll
    for (int q = 0; q < V; q++)
        s[q] = 0;
#pragma unroll
    for (int k = 0; k < G; k++)
        if (k < nk) {
            float f[V];
            P_::to_f(raw[k], f);
#pragma unroll
            for (int q = 0; q < V; q++) {
                const float ex = sm_exp<T, RELAX>(f[q], m[q], mL[q]);
                s[q] += ex;
                if (H)
                    e[H ? k : 0][q] = ex;
            }
        }
#pragma unroll
    for (int q = 0; q < V; q++)
        sh.red_s[RIDX(q)] = s[q];
    __syncthreads();
    float lsi[V];
    if (FOLD1) {
#pragma unroll 1
        for (int pp = tid; pp < P; pp += nthr) {
            const float *r = sh.red_s + pp * (NGMAX + 1);
            float a = r[0];
#pragma unroll 4
            for (int j = 1; j < ng; j++)
                a += r[j];
            sh.fin_l[pp] = rcp_rn_sum(a);
        }
        __syncthreads();
        lds_v<V>(sh.fin_l + tx * V, lsi);
    } else {
#pragma unroll
        for (int q = 0; q < V; q++) {
            float a = sh.red_s[q * LX + tx];
#pragma unroll 4
            for (int j = 1; j < ng; j++)
                a += sh.red_s[j * P + q * LX + tx];
            lsi[q] = rcp_rn_sum(a);
        }
    }
#undef RIDX
    // ---- output
#pragma unroll
    for (int k = 0; k < G; k++)
        if (k < nk) {
            float f[V];
            if (H) {
#pragma unroll
                for (int q = 0; q < V; q++)
                    f[q] = e[H ? k : 0][q] * lsi[q];
            } else {
                P_::to_f(raw[k], f);
#pragma unroll
                for (int q = 0; q < V; q++)
                    f[q] = sm_exp<T, RELAX>(f[q], m[q], mL[q]) * lsi[q];
            }
            if (CS)
                __stcs((w_t *)(yp + k * S), P_::from_f(f));
            else
                *(w_t *)(yp + k * S) = P_::from_f(f);
        }
}

template <typename T, int V, int G, int LX, bool FULL, bool CS>
static __device__ __forceinline__ void cols_load(typename pk<T, V>::w_t *raw, const T *xp, int nk_,
                                                 int S)
{
    typedef typename pk<T, V>::w_t w_t;
    const int nk = FULL ? G : nk_;
#pragma unroll
    for (int k = 0; k < G; k++)
        if (k < nk) // int offset: one IMAD.WIDE an address
            raw[k] = CS ? __ldcs((const w_t *)(xp + k * S)) : *(const w_t *)(xp + k * S);
}

// cp.async of B = 4, 8 or 16 bytes (16: .cg, not kept in L1)
template <int B> static __device__ __forceinline__ void cp_async(void *smem, const void *gmem)
{
    const unsigned sa = (unsigned)__cvta_generic_to_shared(smem);
    if (B == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa), "l"(gmem) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(sa), "l"(gmem), "n"(B)
                     : "memory");
}
static __device__ __forceinline__ void cp_async_commit(void)
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}
static __device__ __forceinline__ void cp_async_wait_all(void)
{
    asm volatile("cp.async.wait_all;" ::: "memory");
}

template <typename T, int V, int G, int LX, int MINB, bool HOLD, bool FOLD1, bool RELAX,
          bool PREF, bool CS>
static __global__ void __launch_bounds__(LX *NGMAX, MINB)
    cols_kernel(const T *x, T *y, int C, int S, int tiles, int total)
{
    static_assert(!PREF || (FOLD1 && !HOLD && !CS), "PREF: FOLD1, raw x held, plain stores");
    typedef pk<T, V> P_;
    typedef typename P_::w_t w_t;
    constexpr int P = LX * V;
    __shared__ cols_smem<T, V, G, LX, FOLD1> sh;
    const int tx = threadIdx.x, g = threadIdx.y;
    const int c0 = g * G;
    const int nkv = C - c0 < G ? C - c0 : G;
    const bool cfull = C % G == 0;
    if constexpr (!PREF) {
        const int n = blockIdx.y;
        const int p0 = blockIdx.x * P + tx * V;
        const int nk = p0 < S ? nkv : 0;
        const size_t off = (size_t)n * C * S + c0 * S + p0;
        w_t raw[G];
        auto none = [] {};
        if (cfull && (int)(blockIdx.x + 1) * P <= S) {
            cols_load<T, V, G, LX, true, CS>(raw, x + off, nk, S);
            cols_tile<T, V, G, LX, HOLD, FOLD1, RELAX, true, CS>(sh, raw, nk, y + off, S, none);
        } else {
            cols_load<T, V, G, LX, false, CS>(raw, x + off, nk, S);
            cols_tile<T, V, G, LX, HOLD, FOLD1, RELAX, false, CS>(sh, raw, nk, y + off, S, none);
        }
    } else {
        // persistent: tile t's x was copied by this thread into its own staging slots
        // (stage[k][tid], no barrier needed) while tile t - gridDim.x was computed
        static_assert(sizeof(w_t) >= 4, "cp.async moves 4, 8 or 16 bytes");
        __shared__ w_t stage[G][LX * NGMAX];
        const int tid = g * LX + tx;
        // tile t: its x offset for this thread, channels held (0: pixels past S), interior
        auto decode = [&](int t_, size_t &off_, int &nk_) {
            const int n = t_ / tiles, tl = t_ - n * tiles, p0 = tl * P + tx * V;
            nk_ = p0 < S ? nkv : 0;
            off_ = (size_t)n * C * S + c0 * S + p0;
            return cfull && (tl + 1) * P <= S;
        };
        auto issue = [&](int t_) {
            size_t off_;
            int nk_;
            const bool full_ = decode(t_, off_, nk_);
            const T *xp = x + off_;
#pragma unroll
            for (int k = 0; k < G; k++) {
                if (full_ || k < nk_)
                    cp_async<sizeof(w_t)>(&stage[k][tid], xp);
                xp += S;
                asm volatile("" : "+l"(xp)); // one address live, not G (the exps are)
            }
            cp_async_commit();
        };
        if ((int)blockIdx.x < total)
            issue(blockIdx.x);
        for (int t = blockIdx.x; t < total; t += gridDim.x) {
            cp_async_wait_all();
            size_t off;
            int nk;
            const bool full = decode(t, off, nk);
            w_t raw[G];
#pragma unroll
            for (int k = 0; k < G; k++)
                if (full || k < nk)
                    raw[k] = stage[k][tid];
            auto next = [&] {
                if (t + (int)gridDim.x < total)
                    issue(t + gridDim.x);
            };
            if (full)
                cols_tile<T, V, G, LX, HOLD, FOLD1, RELAX, true, false>(sh, raw, nk, y + off, S,
                                                                        next);
            else
                cols_tile<T, V, G, LX, HOLD, FOLD1, RELAX, false, false>(sh, raw, nk, y + off, S,
                                                                         next);
        }
    }
}

// ==================================== host: problems ==========================================

enum { DT_F32, DT_F16 };
static const char *dt_name(int dt) { return dt == DT_F32 ? "f32" : "f16"; }
static size_t dt_size(int dt) { return dt == DT_F32 ? 4 : 2; }

struct prob_t {
    int dt, N, C, H, W;
    bool specials; // NaN / inf / -inf / underflowing columns (check problems)
    std::string name() const
    {
        char b[64];
        snprintf(b, sizeof b, "n%dc%dh%dw%d", N, C, H, W);
        return b;
    }
    int S() const { return H * W; }
    size_t elems() const { return (size_t)N * C * H * W; }
};

// softmax.cu's sm_fcols_shape for packed NCHW (the tensors of cudaMalloc: pairs whenever S is
// even): v0's CPT (0: the library takes another kernel), pv, cg.
static int fcols_shape(const prob_t &p, int *pv, int *cg)
{
    const int64_t S = p.S();
    if (p.C > 256 || S < 16 || p.N > 65535)
        return 0;
    *pv = p.dt != DT_F32 && S % 2 == 0 ? 2 : 1;
    int cpt = 2;
    while (cpt < 16 && ((p.C + cpt - 1) / cpt > SM_FCOLS_CG_MAX ||
                        ((p.C + cpt - 1) / cpt > 8 && cpt * *pv < 16)))
        cpt *= 2;
    *cg = (p.C + cpt - 1) / cpt;
    return cpt;
}

// ==================================== host: versions ==========================================

typedef bool (*launch_fn)(const prob_t &, const void *, void *, cudaStream_t);

static bool launch_v0(const prob_t &p, const void *x, void *y, cudaStream_t st)
{
    int pv = 0, cg = 0;
    const int cpt = fcols_shape(p, &pv, &cg);
    if (!cpt)
        return false;
    geom_t g;
    memset(&g, 0, sizeof g);
    g.no = 2;
    g.odim[0] = p.N, g.odim[1] = p.S();
    for (int t = 0; t < 2; t++)
        g.ost[t][0] = (int64_t)p.C * p.S(), g.ost[t][1] = 1, g.rst0[t] = p.S();
    g.row_len = p.C;
    g.mul_inv = 1;
    const int64_t S = p.S();
    const dim3 blocks((unsigned)((S + 32 * pv - 1) / (32 * pv)), (unsigned)p.N);
    const dim3 threads(32, (unsigned)cg);
#define V0_CASE(CPT)                                                                               \
    case CPT:                                                                                      \
        if (p.dt == DT_F32)                                                                        \
            v0_fwd_cols<float, CPT, 1><<<blocks, threads, 0, st>>>(g, x, y, 1.0, 0.0);             \
        else if (pv == 2)                                                                          \
            v0_fwd_cols<__half, CPT, 2><<<blocks, threads, 0, st>>>(g, x, y, 1.0, 0.0);            \
        else                                                                                       \
            v0_fwd_cols<__half, CPT, 1><<<blocks, threads, 0, st>>>(g, x, y, 1.0, 0.0);            \
        break;
    switch (cpt) { // CPT 2 / 4 (C <= 32) are not stamped here: no problem below takes them
        V0_CASE(8)
        V0_CASE(16)
    default:
        return false;
    }
#undef V0_CASE
    return true;
}

// Variant shapes. `kind`: 1..8 = v1..v8. Each picks (V, LX) from v0's (pv, G) and the dtype.
template <typename T, int V, int G, int LX, int MINB, bool HOLD, bool FOLD1, bool RELAX,
          bool PREF, bool CS = false>
static bool run_cols(const prob_t &p, const void *x, void *y, cudaStream_t st)
{
    const int S = p.S(), P = LX * V;
    if (S % V != 0 || (int64_t)p.C * S >= ((int64_t)1 << 31))
        return false;
    const int ng = (p.C + G - 1) / G;
    const int tiles = (S + P - 1) / P, total = tiles * p.N;
    auto kern = cols_kernel<T, V, G, LX, MINB, HOLD, FOLD1, RELAX, PREF, CS>;
    dim3 blocks, threads(LX, (unsigned)ng);
    if (PREF) {
        static int grid[NGMAX + 1]; // resident blocks, per instantiation and group count
        if (!grid[ng]) {
            int dev = 0, sms = 0, per = 0;
            CK(cudaGetDevice(&dev));
            CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, LX * ng, 0));
            grid[ng] = sms * std::max(per, 1);
        }
        blocks = dim3((unsigned)std::min(grid[ng], total));
    } else {
        blocks = dim3((unsigned)tiles, (unsigned)p.N);
    }
    kern<<<blocks, threads, 0, st>>>((const T *)x, (T *)y, p.C, S, tiles, total);
    return true;
}

// MINB from a register cap for blocks of LX * NGMAX threads
#define MINB_OF(LX, REGS) (65536 / ((LX) * NGMAX * (REGS)) > 0 ? 65536 / ((LX) * NGMAX * (REGS)) : 1)

// v1 / v2 / v3 / v6: v0's pixel mapping (LX 32, V = pv); v4 / v5 / v7 / v8: 128 bytes of x a thread
// (V * G * sizeof(T) = 128), LX lanes covering 128 contiguous bytes of a channel row.
template <int KIND, typename T, int G, int PV> static bool dispatch_kind(const prob_t &p,
                                                                         const void *x, void *y,
                                                                         cudaStream_t st)
{
    constexpr int VW = 128 / (G * (int)sizeof(T));  // wide V: f16 G16 4, G8 8; f32 G16 2, G8 4
    constexpr int LXW = 128 / (VW * (int)sizeof(T)); // 16 or 8
    switch (KIND) {
    case 1: // trimmed arithmetic on v0's mapping, v0's fold
        return run_cols<T, PV, G, 32, 2, true, false, false, false>(p, x, y, st);
    case 2: // + the fold once per pixel
        return run_cols<T, PV, G, 32, 2, true, true, false, false>(p, x, y, st);
    case 3: // + raw x held (16-bit), exps evaluated twice; occupancy (40 / 32 registers)
        return run_cols<T, PV, G, 32, MINB_OF(32, G == 16 ? 40 : 32), false, true, false, false>(
            p, x, y, st);
    case 4: // wide accesses, raw held, fold once
        return run_cols<T, VW, G, LXW, MINB_OF(LXW, 64), false, true, false, false>(p, x, y, st);
    case 5: // v4 + RELAX (not bit-identical: FLOAT's expf by the SFU)
        return run_cols<T, VW, G, LXW, MINB_OF(LXW, 64), false, true, true, false>(p, x, y, st);
    case 6: // v3 persistent, the next tile's x copied ahead (cp.async, 4-byte accesses or wider)
        if constexpr (PV * sizeof(T) >= 4)
            return run_cols<T, PV, G, 32, MINB_OF(32, 64), false, true, false, true>(p, x, y, st);
        return false;
    case 7: // v4 persistent, the next tile's x copied ahead
        return run_cols<T, VW, G, LXW, MINB_OF(LXW, sizeof(T) == 4 ? 96 : G == 8 ? 80 : 64), false,
                        true, false, true>(p, x, y, st);
    case 8: // v4 with evict-first hints: ld.global.cs for x, st.global.cs for y
        return run_cols<T, VW, G, LXW, MINB_OF(LXW, 64), false, true, false, false, true>(p, x, y,
                                                                                        st);
    }
    return false;
}

template <int KIND> static bool launch_kind(const prob_t &p, const void *x, void *y,
                                            cudaStream_t st)
{
    int pv = 0, cg = 0;
    const int G = fcols_shape(p, &pv, &cg);
    if (p.dt == DT_F32) {
        if (G == 16)
            return dispatch_kind<KIND, float, 16, 1>(p, x, y, st);
        if (G == 8)
            return dispatch_kind<KIND, float, 8, 1>(p, x, y, st);
    } else {
        if (G == 16 && pv == 2)
            return dispatch_kind<KIND, __half, 16, 2>(p, x, y, st);
        if (G == 16)
            return dispatch_kind<KIND, __half, 16, 1>(p, x, y, st);
        if (G == 8 && pv == 2)
            return dispatch_kind<KIND, __half, 8, 2>(p, x, y, st);
        if (G == 8)
            return dispatch_kind<KIND, __half, 8, 1>(p, x, y, st);
    }
    return false; // other CPT: not instantiated, v0 serves
}

struct version_t {
    const char *name;
    launch_fn fn;
};
static const version_t versions[] = {
    {"v0", launch_v0},          {"v1", launch_kind<1>}, {"v2", launch_kind<2>},
    {"v3", launch_kind<3>},     {"v4", launch_kind<4>}, {"v5", launch_kind<5>},
    {"v6", launch_kind<6>},     {"v7", launch_kind<7>}, {"v8", launch_kind<8>},
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

// the value of element i of a device-format buffer
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

// src/ref/softmax_ref.c for one NCHW tensor: max (NaN anywhere: NaN), sum of exp(x - max) in
// double, exp(x - max) / sum.
static void reference(const prob_t &p, const std::vector<double> &x, std::vector<double> &r)
{
    const int C = p.C;
    const size_t S = p.S();
    std::vector<double> ex(C);
    for (int n = 0; n < p.N; n++)
        for (size_t q = 0; q < S; q++) {
            const size_t b = (size_t)n * C * S + q;
            double mx = -INFINITY;
            int nan = 0;
            for (int c = 0; c < C; c++) {
                const double v = x[b + c * S];
                nan |= std::isnan(v);
                mx = v > mx ? v : mx;
            }
            if (nan)
                mx = NAN;
            double sum = 0.0;
            for (int c = 0; c < C; c++)
                sum += ex[c] = exp(x[b + c * S] - mx);
            for (int c = 0; c < C; c++)
                r[b + c * S] = ex[c] / sum;
        }
}

struct check_t {
    int64_t maxulp;
    bool ok, bitid;
};

// The ref rounded once to the type, as ordered integers (ulp distances are differences).
static std::vector<int32_t> ref_ord(const prob_t &p, const std::vector<double> &ref)
{
    std::vector<int32_t> o(ref.size());
    for (size_t i = 0; i < ref.size(); i++) {
        if (p.dt == DT_F32) {
            const float f = (float)ref[i];
            o[i] = (int32_t)ord_of(DT_F32, &f, 0);
        } else {
            const uint16_t h = double_to_half_bits(ref[i]);
            o[i] = (int32_t)ord_of(DT_F16, &h, 0);
        }
    }
    return o;
}

// max ulps against the ref rounded to the type, the tests' gm_tol (tests/gpu/gpu_mirror.c:
// |got - ref| <= r (1 + |ref|) + tiny, r = 4u + 2 (C + 16) 2^-24), bit identity with v0 (NaN
// matches NaN).
static check_t check(const prob_t &p, const std::vector<double> &ref,
                     const std::vector<int32_t> &rord, const void *got, const void *v0)
{
    const int dt = p.dt;
    const size_t n = p.elems(), es = dt_size(dt);
    const double u = dt == DT_F32 ? 0x1p-24 : 0x1p-11;
    const double r = 4 * u + 2.0 * (p.C + 16) * 0x1p-24, tiny = dt == DT_F32 ? 0x1p-126 : 0x1p-24;
    check_t c = {0, true, true};
    for (size_t i = 0; i < n; i++) {
        const double g = val_of(dt, got, i), rf = ref[i];
        if (memcmp((const char *)got + i * es, (const char *)v0 + i * es, es) != 0 &&
            !(std::isnan(g) && isnan_of(dt, v0, i)))
            c.bitid = false;
        if (std::isnan(rf) || std::isnan(g)) {
            if (!(std::isnan(rf) && std::isnan(g)))
                c.ok = false, c.maxulp = INT64_MAX;
            continue;
        }
        if (std::fabs(g - rf) > r * (1 + std::fabs(rf)) + tiny)
            c.ok = false;
        const int64_t d = std::llabs(ord_of(dt, got, i) - (int64_t)rord[i]);
        if (c.maxulp != INT64_MAX)
            c.maxulp = std::max(c.maxulp, d);
    }
    return c;
}

// ==================================== main ====================================================

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
    printf("# %s, %d SMs\n", prop.name, prop.multiProcessorCount);

    const prob_t probs[] = {
        {DT_F16, 32, 256, 56, 56, false},  {DT_F16, 32, 64, 112, 112, false},
        {DT_F32, 32, 128, 56, 56, false},  {DT_F32, 16, 64, 112, 112, false},
        // correctness shapes: odd pixel count (16-bit one element a lane; the wide variants
        // fall back), partial channel groups, partial tiles, NaN / inf / -inf / underflow
        {DT_F16, 3, 37, 9, 11, true},      {DT_F32, 3, 37, 9, 11, true},
        {DT_F16, 2, 200, 6, 12, true},     {DT_F32, 3, 100, 4, 10, true},
        {DT_F16, 2, 50, 5, 8, true},
    };
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    int fails = 0;
    for (const prob_t &p : probs) {
        const size_t n = p.elems(), bytes = n * dt_size(p.dt);
        // fill: uniform [-8, 8) rounded to the type
        std::vector<double> xd(n), ref(n);
        std::vector<uint8_t> xh(bytes), yh(bytes), y0(bytes);
        for (size_t i = 0; i < n; i++) {
            double v = urand() * 16.0 - 8.0;
            xd[i] = v;
        }
        if (p.specials) {
            const size_t S = p.S(), C = p.C;
            auto at = [&](int nn, int c, size_t q) -> double & { return xd[(nn * C + c) * S + q]; };
            for (size_t c = 0; c < C; c++)
                at(0, c, 5) = -INFINITY; // column of -inf: NaN
            at(1 % p.N, 3, 7) = NAN;                 // one NaN: the column NaN
            at(2 % p.N, C - 1, 0) = INFINITY;        // +inf in the last (partial) group: NaN
            at(0, C / 2, S - 1) = -INFINITY;         // one -inf in the last pixel: 0 there
            for (size_t c = 0; c < C; c++)           // underflow: exp(-100) below 2^-126
                at(p.N - 1, c, S / 2) = c == 1 ? 0.0 : -100.0;
            for (size_t c = 0; c < C; c++)           // a constant column: exact 1 / C
                at(p.N - 1, c, S - 2) = 3.0;
        }
        for (size_t i = 0; i < n; i++) {
            if (p.dt == DT_F32) {
                const float f = (float)xd[i];
                memcpy(&xh[4 * i], &f, 4);
                xd[i] = f;
            } else {
                const uint16_t h = double_to_half_bits(xd[i]);
                memcpy(&xh[2 * i], &h, 2);
                xd[i] = half_bits_to_double(h);
            }
        }
        reference(p, xd, ref);
        const std::vector<int32_t> rord = ref_ord(p, ref);
        void *dx = nullptr, *dy = nullptr;
        CK(cudaMalloc(&dx, bytes));
        CK(cudaMalloc(&dy, bytes));
        CK(cudaMemcpy(dx, xh.data(), bytes, cudaMemcpyHostToDevice));
        // v0's output: the bit-identity reference
        CK(cudaMemset(dy, 0xff, bytes));
        if (!launch_v0(p, dx, dy, st)) {
            printf("# %s %s: not a softmax_fwd_cols shape, skipped\n", dt_name(p.dt),
                   p.name().c_str());
            CK(cudaFree(dx));
            CK(cudaFree(dy));
            continue;
        }
        CK(cudaGetLastError());
        CK(cudaStreamSynchronize(st));
        CK(cudaMemcpy(y0.data(), dy, bytes, cudaMemcpyDeviceToHost));
        for (const version_t &v : versions) {
            if (only && strcmp(only, v.name))
                continue;
            CK(cudaMemset(dy, 0xff, bytes));
            bool fb = false;
            launch_fn fn = v.fn;
            if (!fn(p, dx, dy, st)) {
                fb = true, fn = launch_v0;
                fn(p, dx, dy, st);
            }
            CK(cudaGetLastError());
            CK(cudaStreamSynchronize(st));
            CK(cudaMemcpy(yh.data(), dy, bytes, cudaMemcpyDeviceToHost));
            const check_t c = check(p, ref, rord, yh.data(), y0.data());
            // timing: 20 launches in a graph, 5 warm-up replays, median of 20 timed
            cudaGraph_t graph;
            cudaGraphExec_t exec;
            CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
            for (int i = 0; i < 20; i++)
                fn(p, dx, dy, st);
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
            const double us = 0.5 * (ms[9] + ms[10]) * 1000.0 / 20.0;
            const double gbs = 2.0 * (double)bytes / (us * 1e-6) / 1e9;
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
        CK(cudaFree(dx));
        CK(cudaFree(dy));
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    CK(cudaStreamDestroy(st));
    return fails ? 1 : 0;
}
