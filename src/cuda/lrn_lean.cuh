/* SPDX-License-Identifier: MIT */
/*
 * lrn_lean.cuh - the lean FLOAT column kernels of cross-channel LRN (lrn.cu includes it once,
 * after the stamped kernels; lrn_lean_ok decides): NCHW-like output, windows n of 1, 2, 3 or 5,
 * one chunk, the power by lrn_pow_fast's rule (|beta| <= 4), every column offset within 2^31.
 *
 * Why (Nsight Compute on the H200, 2026-12-01, n32c128h56w56, n 5): lrn_bwd_col_f32 issued 0.72
 * instructions a cycle per scheduler against NVIDIA's 0.34 for a 9% longer kernel, i.e. it was
 * bound by its instruction count, not by DRAM (2.0 TB/s). Per channel step the stamped kernels
 * spend most of their instructions on the exact scale (float -> double, a double multiply-add,
 * double -> float), the IEEE division dy y / s (a reciprocal, its refinement and a slow-path
 * test), the denormal scaling around lg2.approx / ex2.approx, and 64-bit index products for
 * every load and store. Here:
 * - s = fmaf(alpha / n, sum, k) in float (one rounding more than the double formula, a relative
 *   2^-24 in s, beta 2^-24 in s^-beta);
 * - s^-beta = ex2.approx.ftz(-beta lg2.approx.ftz(s)) where |p| <= 4, powf otherwise: the bits
 *   of lrn_pow_fast for every normal s (the ftz forms differ only for subnormal s, which now
 *   take powf);
 * - the backward's term dy y / s as a product with rcp.approx.ftz(s) (2^-23 relative; a scale
 *   beyond 2^126 gives 0 where the quotient is below 2^-126 |dy y|), y = x s^-beta from the
 *   step's own power (lrn.cu's product decision: y is not read);
 * - pointers advanced by the channel stride, no index products in the loop.
 * The forward and the backward compute s and s^-beta by the same expressions in the same
 * order, so the backward's y is the forward's output bits. The same sums in the same order as
 * the stamped kernels otherwise (window of squares k = 0 .. n - 1, the adjoint window, the
 * dx expression); the tolerance is docs/testing.md's cuda LRN row.
 */

static __device__ __forceinline__ float lrn_lg2_ftz(float s)
{
    float r;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(s));
    return r;
}
static __device__ __forceinline__ float lrn_ex2_ftz(float p)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(p));
    return r;
}
static __device__ __forceinline__ float lrn_rcp_ftz(float s)
{
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(s));
    return r;
}
/* powf out of line: the rare path (|p| > 4: s NaN, inf, 0, negative, subnormal or far from
 * 1) stays out of the unrolled loops, whose code it would otherwise repeat per step */
static __device__ __noinline__ float lrn_powf_call(float s, float e)
{
    return powf(s, e);
}
/* s^e by lrn_pow_fast's rule with the ftz approximations (the same bits for normal s) */
static __device__ __forceinline__ float lrn_pow_lean(float s, float e)
{
    const float p = e * lrn_lg2_ftz(s);
    return fabsf(p) <= 4.0f ? lrn_ex2_ftz(p) : lrn_powf_call(s, e);
}

/* The lean constants: alpha / n, k, -beta and the backward's coefficient in float. */
typedef struct {
    float an, k, nbeta, coef;
} lrn_lean_t;

/* Column e's element offset (64-bit, once a column) in tensor t at channel 0. */
static __device__ __forceinline__ int64_t lrn_lean_base(const lrn_geom_t &g, int t, int64_t e)
{
    int64_t s[3];
    const int64_t n = lrn_col_pos(g, g.sz[0] * g.sz[1] * g.sz[2], e, s);
    return lrn_offset(g, t, n, 0, s);
}

/* Forward: a column per thread, the window in registers, U channels of x loaded ahead (the
 * stamped lrn_fwd_col's walk). 3 blocks of 256 an SM. PLAIN: alpha 1, beta 0 (a plain store;
 * else the double blend), a template so that the blend's code is not in the plain loop. */
template <int W, int U, bool PLAIN>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK, 3)
    lrn_fwd_lean(const lrn_geom_t g, const lrn_lean_t q, const float *__restrict__ x,
                 float *__restrict__ y, double alpha, double beta)
{
    constexpr int LB = (W - 1) / 2, LA = W - 1 - LB;
    const int C = (int)g.C, xsc = (int)g.st[0][1], ysc = (int)g.st[1][1];
    const int64_t cols = g.total / g.C;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < cols;
         e += (int64_t)gridDim.x * blockDim.x) {
        const float *xc = x + lrn_lean_base(g, 0, e);
        float *yc = y + lrn_lean_base(g, 1, e);
        float win[W]; /* x[c - LB + k] for the channel c about to be written */
#pragma unroll
        for (int k = 0; k < W; k++) {
            const int j = k - LB;
            win[k] = j >= 0 && j < C ? xc[j * xsc] : 0.0f;
        }
        float ahead[U]; /* ahead[u] = x[c + LA + 1] for c = c0 + u */
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int j = u + LA + 1;
            ahead[u] = j < C ? xc[j * xsc] : 0.0f;
        }
        int jn = U + LA + 1; /* the next load: x[jn] at pn */
        const float *pn = xc + (int64_t)jn * xsc;
        float *py = yc;
        for (int c0 = 0; c0 < C; c0 += U) {
#pragma unroll
            for (int u = 0; u < U; u++) {
                if (c0 + u < C) {
                    float sum = 0.0f;
#pragma unroll
                    for (int k = 0; k < W; k++)
                        sum += win[k] * win[k];
                    const float v = win[LB] * lrn_pow_lean(fmaf(q.an, sum, q.k), q.nbeta);
                    if (PLAIN)
                        *py = v;
                    else
                        fd_cuda_blend(py, 0, alpha, beta, (double)v);
                    py += ysc;
                }
                lrn_push(win, ahead[u]);
                ahead[u] = jn < C ? *pn : 0.0f;
                jn++;
                pn += xsc;
            }
        }
    }
}

/* Backward: lrn_bwd_col's walk (step i from -LB appends x[i + W - 1] and dy[i + LB]; xw, the
 * window of s[i + LB], gives t[i + LB] = dy y / s and s[i + LB]^-beta; tw = t[i - LA .. i + LB]
 * is dx[i]'s window; dy[i] and s[i]^-beta wait LB steps in gr / pr) with y = x s^-beta and a
 * ring of UB steps of x and dy. 3 blocks of 256 an SM; PLAIN as in lrn_fwd_lean. */
template <int W, int UB, bool PLAIN>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK, 3)
    lrn_bwd_lean(const lrn_geom_t g, const lrn_lean_t q, const float *__restrict__ x,
                 const float *__restrict__ dy, float *__restrict__ dx, double alpha, double beta)
{
    constexpr int LB = (W - 1) / 2;
    const int C = (int)g.C, xsc = (int)g.st[0][1], gsc = (int)g.st[2][1], dsc = (int)g.st[3][1];
    const int64_t cols = g.total / g.C;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < cols;
         e += (int64_t)gridDim.x * blockDim.x) {
        const float *xc = x + lrn_lean_base(g, 0, e);
        const float *gc = dy + lrn_lean_base(g, 2, e);
        float *dc = dx + lrn_lean_base(g, 3, e);
        /* the state before step -LB: xw[k] = x[-LB - 1 + k] */
        float xw[W], tw[W], gr[LB + 1], pr[LB + 1];
#pragma unroll
        for (int k = 0; k < W; k++) {
            const int j = k - LB - 1;
            xw[k] = j >= 0 && j < C ? xc[j * xsc] : 0.0f;
            tw[k] = 0.0f;
        }
#pragma unroll
        for (int k = 0; k <= LB; k++)
            gr[k] = pr[k] = 0.0f;
        /* slot u: step i's x[i + W - 1] and dy[i + LB] (i = -LB + u: indices >= 0) */
        float ax[UB], ag[UB];
#pragma unroll
        for (int u = 0; u < UB; u++) {
            const int jx = u - LB + W - 1, jg = u;
            ax[u] = jx < C ? xc[jx * xsc] : 0.0f;
            ag[u] = jg < C ? gc[jg * gsc] : 0.0f;
        }
        int jx = UB - LB + W - 1, jg = UB; /* the next loads: x[jx] at px, dy[jg] at pg */
        const float *px = xc + (int64_t)jx * xsc, *pg = gc + (int64_t)jg * gsc;
        float *pd = dc; /* dx[i] for the next i >= 0 */
        for (int i0 = -LB; i0 < C; i0 += UB) {
#pragma unroll
            for (int u = 0; u < UB; u++) {
                const int i = i0 + u;
                lrn_push(xw, ax[u]);
                float t = 0.0f, pw = 0.0f;
                if (i + LB < C) {
                    float sum = 0.0f;
#pragma unroll
                    for (int k = 0; k < W; k++)
                        sum += xw[k] * xw[k];
                    const float sc = fmaf(q.an, sum, q.k);
                    pw = lrn_pow_lean(sc, q.nbeta);
                    t = ag[u] * (xw[LB] * pw) * lrn_rcp_ftz(sc);
                }
                lrn_push(tw, t);
                lrn_push(gr, ag[u]);
                lrn_push(pr, pw);
                ax[u] = jx < C ? *px : 0.0f;
                ag[u] = jg < C ? *pg : 0.0f;
                jx++, px += xsc;
                jg++, pg += gsc;
                if (i >= 0 && i < C) {
                    float acc = 0.0f;
#pragma unroll
                    for (int k = 0; k < W; k++)
                        acc += tw[k];
                    const float v = gr[0] * pr[0] - q.coef * xw[0] * acc;
                    if (PLAIN)
                        *pd = v;
                    else
                        fd_cuda_blend(pd, 0, alpha, beta, (double)v);
                    pd += dsc;
                }
            }
        }
    }
}

/* ---- the lean 16-bit column kernels (HALF, BFLOAT16) -----------------------------------------
 * lrn.cu's lrn16_ok decides (FREEDNN_GPU_LRN_LEAN16): NCHW-like x and output, each plane dense
 * with S = D H W a multiple of 4, the C and N strides multiples of 4, 8-byte aligned pointers,
 * windows n of 1, 2, 3 or 5, alpha 1, beta 0. A thread walks a column of LRN16_V = 4
 * consecutive pixels (one 8-byte load or store a channel; a warp's access 256 contiguous
 * bytes) over a chunk [cs, ce) of the channels (grid y; the chunk re-reads the window's halo
 * of the chunk before it, an L2 hit, and computes the same values in the same order: the
 * chunks only give the benchmark's 25088 columns of 4 pixels enough threads, where the stamped
 * lrn_fwd_col_f16 took a pixel a thread, 2-byte accesses and 56 registers).
 * Per element the stamped 16-bit kernels' arithmetic, expression by expression: the window's
 * squares summed in float from +0 in the window's order (out-of-range channels +0), the scale
 * (float)(k + alpha_n * (double)sum), __powf(s, -beta), the forward's y = x s^-beta rounded
 * once to the storage type, the backward's dy y / s by __fdividef and dx = dy s^-beta -
 * coef x sum(t): lrn_fwd_col_<f16,bf16>'s bits. The backward does not read y: it takes
 * y = round16(x s^-beta) from its own step's power, the forward's output bits for that x
 * (the API's y), as lrn_bwd_lean does for FLOAT (product decision of 2026-12-02,
 * docs/testing.md's lean 16-bit row); with the API's y so, lrn_bwd_col_<f16,bf16>'s bits.
 * The window of x is held as floats (each x converted once); the loads ahead (U channels)
 * and the backward's delayed dy stay packed. */
#define LRN16_V 4 /* pixels a thread: 8 bytes of 16-bit storage */

/* 4 16-bit values (the low half first) as floats, exactly */
template <bool BF>
static __device__ __forceinline__ void lrn16_unpack(uint2 u, float (&v)[LRN16_V])
{
    const unsigned w[2] = {u.x, u.y};
#pragma unroll
    for (int h = 0; h < 2; h++) {
        if (BF) {
            v[2 * h] = __uint_as_float(w[h] << 16);
            v[2 * h + 1] = __uint_as_float(w[h] & 0xffff0000u);
        } else {
            v[2 * h] = __half2float(__ushort_as_half((unsigned short)(w[h] & 0xffffu)));
            v[2 * h + 1] = __half2float(__ushort_as_half((unsigned short)(w[h] >> 16)));
        }
    }
}
/* a 16-bit value as float, exactly (lane l of a packed vector) */
template <bool BF>
static __device__ __forceinline__ float lrn16_lane(uint2 u, int l)
{
    const unsigned w = l < 2 ? u.x : u.y, s = (l & 1) ? w >> 16 : w & 0xffffu;
    return BF ? __uint_as_float(s << 16) : __half2float(__ushort_as_half((unsigned short)s));
}
/* v rounded to nearest even in the storage type and back: the stored y's value */
template <bool BF>
static __device__ __forceinline__ float lrn16_round(float v)
{
    return BF ? __bfloat162float(__float2bfloat16_rn(v)) : __half2float(__float2half_rn(v));
}
/* v[0 .. 3] each rounded once to the storage type (lrn_st_acc's bits), packed */
template <bool BF>
static __device__ __forceinline__ uint2 lrn16_pack(const float (&v)[LRN16_V])
{
    unsigned w[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        if (BF) {
            const __nv_bfloat162 b = __floats2bfloat162_rn(v[2 * h], v[2 * h + 1]);
            w[h] = *reinterpret_cast<const unsigned *>(&b);
        } else {
            const __half2 b = __floats2half2_rn(v[2 * h], v[2 * h + 1]);
            w[h] = *reinterpret_cast<const unsigned *>(&b);
        }
    }
    return make_uint2(w[0], w[1]);
}
static __device__ __forceinline__ uint2 lrn16_ld(const unsigned short *p)
{
    return *reinterpret_cast<const uint2 *>(p);
}

/* The lean 16-bit kernels' plan (lrn.cu's lrn16_ok): cols columns of 4 pixels (2 for the
 * lean16f kernels, lrn16f_plan), pv of them an image plane; per tensor (x, y or x, dy, dx) its
 * N and C strides; chunks of cc channels; the stamped kernels' constants (the scale in double
 * as there; anf, kf: alpha / n and k in float for the lean16f kernels). */
typedef struct {
    int64_t cols, pv, ns[3];
    int C, cc, cs[3];
    double an, k;
    float nbeta, coef, anf, kf;
} lrn16_t;

/* the stamped kernels' scale: (float)(k + alpha_n * (double)sum), the same expression */
static __device__ __forceinline__ float lrn16_scale(const lrn16_t &g, float sum)
{
    return (float)(g.k + g.an * (double)sum);
}

/* lrn16's blocks an SM (launch bounds) and channels of loads ahead (window 5: 2, else 4; 4
 * spilled at 40 registers forward, 80 backward). ptxas (CUDA 13, sm_90 / sm_80), 0 spills:
 * lrn_fwd_lean16 38-40 registers (6 blocks of 256 an SM: 75% occupancy; the window of 4
 * pixels' floats is 4 n registers), lrn_bwd_lean16 74-80 (3 blocks, 37.5%: the x and t windows
 * and the delayed s^-beta, 4 (2 n + (n + 1) / 2) registers, as lrn_bwd_lean's 3 blocks). */
#define LRN16_FWD_MINB 6
#define LRN16_FWD_U(W) ((W) >= 5 ? 2 : 4)
#define LRN16_BWD_MINB 3
#define LRN16_BWD_U(W) ((W) >= 5 ? 2 : 4)

/* ---- the lean 16-bit kernels with float arithmetic (lrn_{fwd,bwd}_lean16f) -------------------
 * lrn.cu's lrn16f_plan decides (FREEDNN_GPU_LRN16_F, default on) among the calls lrn16_ok gives
 * lrn_{fwd,bwd}_lean16: alpha / n >= 0 and k >= 2^-126, both finite in float, |beta| <= 4.
 * Mapping: lrn_{fwd,bwd}_lean16's walk (the same steps, windows and chunking rule, lrn16_chunk
 * with these kernels' blocks an SM) with LRN16F_V = 2 consecutive pixels a thread: one 4-byte
 * load or store a channel (a warp's access 128 contiguous bytes), twice the threads of the
 * 4-pixel kernels and half their window registers, so the forward runs 8 blocks of 256 an SM
 * (full occupancy) with 4 channels of x loaded ahead and the backward 3 blocks with a ring of 6
 * steps of x and dy (36 KB in flight an SM against 4 pixels' 24 KB).
 * Arithmetic: the lean FLOAT kernels' (lrn_{fwd,bwd}_lean): s = fmaf(alpha / n, sum, k) in
 * float (one rounding more than the stamped (float)(k + alpha_n (double)sum): no F2F.F64, which
 * runs at MUFU's 16 a clock an SM on sm_90), s^-beta = ex2.approx.ftz(-beta lg2.approx.ftz(s)),
 * the backward's dy y / s as a product with rcp.approx.ftz(s); y = round16(x s^-beta) and dx
 * as lrn_bwd_lean16 (the backward does not read y). No powf fallback where |p| > 4, unlike
 * lrn_pow_lean: the stamped 16-bit kernels' __powf is ex2.approx(-beta lg2.approx(s)) for every
 * p already, and the ftz forms give its bits for every normal s (the host's alpha >= 0, k >=
 * 2^-126: s >= k, or NaN / inf) but flush a power below 2^-126 (s > 2^(126 / beta) > 2^31) to 0:
 * the HALF outputs do not change (|x|, |dy| < 2^16: that term is below 2^-110), BFLOAT16 loses
 * at most 2^-126 max(|x|, |dy|) there; the quotient beyond s = 2^126 is 0 as __fdividef's was.
 * H200, 2026-12-03 (dev/lrn_nchw v3 forward, v9 backward; graph replay over rotated buffers,
 * copy ceiling 4027 GB/s), n32c256h56w56 n 5: f16 forward 2549 -> 3265 GB/s, backward 2160 ->
 * 2733; bf16 forward 2492 -> 3244, backward 2003 -> 2640; lrn_{fwd,bwd}_lean16's bits on the
 * sandbox's problems (the benchmark row, C 1, 3, 6, 33, 70, partial blocks, three parameter
 * sets) but the f16 backward of n2c70h10w10 with alpha 1 (last bits; both within 1 ulp of the
 * ref): the float scale moves a rounding now and then; docs/testing.md's lean16f row.
 * ptxas (CUDA 13, sm_90 / sm_80), 0 spills: lrn_fwd_lean16f 30-32 registers (8 blocks of 256
 * an SM: full occupancy), lrn_bwd_lean16f 64-78 (3 blocks, 37.5%). */
#define LRN16F_V 2        /* pixels a thread: 4 bytes of 16-bit storage */
#define LRN16F_FWD_MINB 8 /* forward blocks of 256 an SM (launch bounds: <= 32 registers) */
#define LRN16F_FWD_U 4    /* its channels of x loaded ahead */
#define LRN16F_BWD_MINB 3 /* backward blocks an SM */
#define LRN16F_BWD_U 6    /* its ring of steps of x and dy loaded ahead */

/* a 16-bit value as float, exactly (lane l of a packed pair, the low half first) */
template <bool BF> static __device__ __forceinline__ float lrn16f_lane(unsigned u, int l)
{
    const unsigned s = l ? u >> 16 : u & 0xffffu;
    return BF ? __uint_as_float(s << 16) : __half2float(__ushort_as_half((unsigned short)s));
}
/* v[0], v[1] each rounded once to the storage type, packed */
template <bool BF>
static __device__ __forceinline__ unsigned lrn16f_pack(const float (&v)[LRN16F_V])
{
    unsigned short h[LRN16F_V];
#pragma unroll
    for (int l = 0; l < LRN16F_V; l++)
        h[l] = BF ? __bfloat16_as_ushort(__float2bfloat16_rn(v[l]))
                  : __half_as_ushort(__float2half_rn(v[l]));
    return (unsigned)h[0] | (unsigned)h[1] << 16;
}
static __device__ __forceinline__ unsigned lrn16f_ld(const unsigned short *p)
{
    return *reinterpret_cast<const unsigned *>(p);
}
/* the lean scale and power (s normal: the host's conditions) */
static __device__ __forceinline__ float lrn16f_scale(const lrn16_t &g, float sum)
{
    return fmaf(g.anf, sum, g.kf);
}
static __device__ __forceinline__ float lrn16f_pow(float s, float e)
{
    return lrn_ex2_ftz(e * lrn_lg2_ftz(s));
}

/* A thread's column unit of the two 16-bit families, for the walks below: lrn16_p4 (lrn_*_lean16:
 * LRN16_V = 4 pixels, 8-byte accesses, the stamped kernels' double scale, __powf, __fdividef)
 * and lrn16_p2 (lrn_*_lean16f: LRN16F_V = 2 pixels, 4-byte accesses, the float scale, the ftz
 * lg2 / ex2 power and the product with rcp). The walks are the same steps in the same order. */
template <bool BF> struct lrn16_p4 {
    typedef uint2 raw;
    enum { V = LRN16_V };
    static __device__ __forceinline__ raw ld(const unsigned short *p)
    {
        return lrn16_ld(p);
    }
    static __device__ __forceinline__ raw none()
    {
        return make_uint2(0, 0);
    }
    static __device__ __forceinline__ void unpack(raw u, float (&v)[V])
    {
        lrn16_unpack<BF>(u, v);
    }
    static __device__ __forceinline__ float lane(raw u, int l)
    {
        return lrn16_lane<BF>(u, l);
    }
    static __device__ __forceinline__ raw pack(const float (&v)[V])
    {
        return lrn16_pack<BF>(v);
    }
    static __device__ __forceinline__ float round(float v)
    {
        return lrn16_round<BF>(v);
    }
    static __device__ __forceinline__ float scale(const lrn16_t &g, float sum)
    {
        return lrn16_scale(g, sum);
    }
    static __device__ __forceinline__ float power(float s, float e)
    {
        return __powf(s, e);
    }
    static __device__ __forceinline__ float quot(float a, float s)
    {
        return __fdividef(a, s);
    }
};
template <bool BF> struct lrn16_p2 {
    typedef unsigned raw;
    enum { V = LRN16F_V };
    static __device__ __forceinline__ raw ld(const unsigned short *p)
    {
        return lrn16f_ld(p);
    }
    static __device__ __forceinline__ raw none()
    {
        return 0u;
    }
    static __device__ __forceinline__ void unpack(raw u, float (&v)[V])
    {
#pragma unroll
        for (int l = 0; l < V; l++)
            v[l] = lrn16f_lane<BF>(u, l);
    }
    static __device__ __forceinline__ float lane(raw u, int l)
    {
        return lrn16f_lane<BF>(u, l);
    }
    static __device__ __forceinline__ raw pack(const float (&v)[V])
    {
        return lrn16f_pack<BF>(v);
    }
    static __device__ __forceinline__ float round(float v)
    {
        return lrn16_round<BF>(v);
    }
    static __device__ __forceinline__ float scale(const lrn16_t &g, float sum)
    {
        return lrn16f_scale(g, sum);
    }
    static __device__ __forceinline__ float power(float s, float e)
    {
        return lrn16f_pow(s, e);
    }
    static __device__ __forceinline__ float quot(float a, float s)
    {
        return a * lrn_rcp_ftz(s);
    }
};

/* w[0 .. W - 2] <- w[1 .. W - 1], w[W - 1] <- the T::V values of u: the window moved a channel */
template <class T, int W>
static __device__ __forceinline__ void lrn16_push(float (&w)[W][T::V], typename T::raw u)
{
#pragma unroll
    for (int k = 0; k + 1 < W; k++)
#pragma unroll
        for (int l = 0; l < T::V; l++)
            w[k][l] = w[k + 1][l];
    T::unpack(u, w[W - 1]);
}
/* lane l's sum of the window's squares from +0 in the window's order (the stamped kernels') */
template <int V, int W>
static __device__ __forceinline__ float lrn16_sumsq(const float (&w)[W][V], int l)
{
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < W; k++)
        sum += w[k][l] * w[k][l];
    return sum;
}
/* Column e's (V pixels) channel-0 element offset in tensor t */
template <int V>
static __device__ __forceinline__ int64_t lrn16_base(const lrn16_t &g, int t, int64_t e)
{
    const int64_t n = e / g.pv;
    return n * g.ns[t] + (e - n * g.pv) * V;
}

/* Forward: lrn_fwd_lean's walk over channels [cs, ce) with T::V pixels a thread and U channels
 * of x loaded ahead; x read from cs - LB (the halo) to ce + LA. */
template <class T, int W, int U>
static __device__ __forceinline__ void lrn16_fwd_walk(const lrn16_t &g,
                                                      const unsigned short *__restrict__ x,
                                                      unsigned short *__restrict__ y)
{
    constexpr int LB = (W - 1) / 2, LA = W - 1 - LB, V = T::V;
    typedef typename T::raw raw;
    const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= g.cols)
        return;
    const int xsc = g.cs[0], ysc = g.cs[1];
    const int cs = (int)blockIdx.y * g.cc, ce = min(g.C, cs + g.cc), jend = min(g.C, ce + LA);
    const unsigned short *xc = x + lrn16_base<V>(g, 0, e);
    float win[W][V]; /* x[c - LB + k] for the channel c about to be written */
#pragma unroll
    for (int k = 0; k < W; k++) {
        const int j = cs + k - LB;
        T::unpack(j >= 0 && j < g.C ? T::ld(xc + (int64_t)j * xsc) : T::none(), win[k]);
    }
    raw ahead[U]; /* ahead[u] = x[c + LA + 1] for c = c0 + u */
#pragma unroll
    for (int u = 0; u < U; u++) {
        const int j = cs + u + LA + 1;
        ahead[u] = j < jend ? T::ld(xc + (int64_t)j * xsc) : T::none();
    }
    int jn = cs + U + LA + 1; /* the next load: x[jn] at pn */
    const unsigned short *pn = xc + (int64_t)jn * xsc;
    unsigned short *py = y + lrn16_base<V>(g, 1, e) + (int64_t)cs * ysc;
    for (int c0 = cs; c0 < ce; c0 += U) {
#pragma unroll
        for (int u = 0; u < U; u++) {
            if (c0 + u < ce) {
                float v[V];
#pragma unroll
                for (int l = 0; l < V; l++) {
                    const float sc = T::scale(g, lrn16_sumsq(win, l));
                    v[l] = win[LB][l] * T::power(sc, g.nbeta);
                }
                *reinterpret_cast<raw *>(py) = T::pack(v);
                py += ysc;
            }
            lrn16_push<T, W>(win, ahead[u]);
            ahead[u] = jn < jend ? T::ld(pn) : T::none();
            jn++;
            pn += xsc;
        }
    }
}

/* Backward: lrn_bwd_lean's walk (step i appends x[i + W - 1] and dy[i + LB]; xw, the window
 * of s[i + LB], gives s[i + LB]^-beta, y[i + LB] = round16(x s^-beta) and t[i + LB] =
 * dy y / s; tw = t[i - LA .. i + LB] is dx[i]'s window; dy[i] and s[i]^-beta wait LB steps in
 * gr / pr) over the steps from i_s (-LB, or cs - (W - 1) for a later chunk: the t of dx[cs]'s
 * window) to ce, with T::V pixels a thread and a ring of UB steps of x and dy. */
template <class T, int W, int UB>
static __device__ __forceinline__ void
lrn16_bwd_walk(const lrn16_t &g, const unsigned short *__restrict__ x,
               const unsigned short *__restrict__ dy, unsigned short *__restrict__ dx)
{
    constexpr int LB = (W - 1) / 2, V = T::V;
    typedef typename T::raw raw;
    const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= g.cols)
        return;
    const int C = g.C, xsc = g.cs[0], gsc = g.cs[1], dsc = g.cs[2];
    const int cs = (int)blockIdx.y * g.cc, ce = min(C, cs + g.cc);
    const int xend = min(C, ce + W - 1), gend = min(C, ce + LB); /* x and dy read below */
    const int i_s = cs > 0 ? cs - (W - 1) : -LB;
    const unsigned short *xc = x + lrn16_base<V>(g, 0, e), *gc = dy + lrn16_base<V>(g, 1, e);
    /* the state before step i_s: xw[k] = x[i_s - 1 + k], nothing computed yet */
    float xw[W][V], tw[W][V], pr[LB + 1][V];
    raw gr[LB + 1];
#pragma unroll
    for (int k = 0; k < W; k++) {
        const int j = i_s - 1 + k;
        T::unpack(j >= 0 && j < C ? T::ld(xc + (int64_t)j * xsc) : T::none(), xw[k]);
#pragma unroll
        for (int l = 0; l < V; l++)
            tw[k][l] = 0.0f;
    }
#pragma unroll
    for (int k = 0; k <= LB; k++) {
        gr[k] = T::none();
#pragma unroll
        for (int l = 0; l < V; l++)
            pr[k][l] = 0.0f;
    }
    /* slot u: step i's x[i + W - 1] and dy[i + LB] (i = i_s + u) */
    raw ax[UB], ag[UB];
#pragma unroll
    for (int u = 0; u < UB; u++) {
        const int jx = i_s + u + W - 1, jg = i_s + u + LB;
        ax[u] = jx >= 0 && jx < xend ? T::ld(xc + (int64_t)jx * xsc) : T::none();
        ag[u] = jg >= 0 && jg < gend ? T::ld(gc + (int64_t)jg * gsc) : T::none();
    }
    int jx = i_s + UB + W - 1, jg = i_s + UB + LB; /* the next loads: x[jx] at px, dy[jg] at pg */
    const unsigned short *px = xc + (int64_t)jx * xsc, *pg = gc + (int64_t)jg * gsc;
    unsigned short *pd = dx + lrn16_base<V>(g, 2, e) + (int64_t)cs * dsc; /* dx[i], i >= cs */
    for (int i0 = i_s; i0 < ce; i0 += UB) {
#pragma unroll
        for (int u = 0; u < UB; u++) {
            const int i = i0 + u;
            lrn16_push<T, W>(xw, ax[u]);
            const bool live = i + LB >= 0 && i + LB < C;
            float t[V], pw[V];
#pragma unroll
            for (int l = 0; l < V; l++) {
                t[l] = 0.0f, pw[l] = 0.0f;
                if (live) {
                    const float sc = T::scale(g, lrn16_sumsq(xw, l));
                    pw[l] = T::power(sc, g.nbeta);
                    const float yv = T::round(xw[LB][l] * pw[l]);
                    t[l] = T::quot(T::lane(ag[u], l) * yv, sc);
                }
            }
#pragma unroll
            for (int l = 0; l < V; l++) {
#pragma unroll
                for (int k = 0; k + 1 < W; k++)
                    tw[k][l] = tw[k + 1][l];
                tw[W - 1][l] = t[l];
#pragma unroll
                for (int k = 0; k < LB; k++)
                    pr[k][l] = pr[k + 1][l];
                pr[LB][l] = pw[l];
            }
            lrn_push(gr, ag[u]);
            ax[u] = jx < xend ? T::ld(px) : T::none();
            ag[u] = jg < gend ? T::ld(pg) : T::none();
            jx++, px += xsc;
            jg++, pg += gsc;
            if (i >= cs && i < ce) {
                float v[V];
#pragma unroll
                for (int l = 0; l < V; l++) {
                    float acc = 0.0f;
#pragma unroll
                    for (int k = 0; k < W; k++)
                        acc += tw[k][l];
                    v[l] = T::lane(gr[0], l) * pr[0][l] - g.coef * xw[0][l] * acc;
                }
                *reinterpret_cast<raw *>(pd) = T::pack(v);
                pd += dsc;
            }
        }
    }
}

/* The kernels: lrn16_p4 at 6 / 3 blocks an SM, lrn16_p2 at 8 / 3 (LRN16*_MINB, LRN16*_U). */
template <int W, bool BF>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK, LRN16_FWD_MINB)
    lrn_fwd_lean16(const lrn16_t g, const unsigned short *__restrict__ x,
                   unsigned short *__restrict__ y)
{
    lrn16_fwd_walk<lrn16_p4<BF>, W, LRN16_FWD_U(W)>(g, x, y);
}
template <int W, bool BF>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK, LRN16_BWD_MINB)
    lrn_bwd_lean16(const lrn16_t g, const unsigned short *__restrict__ x,
                   const unsigned short *__restrict__ dy, unsigned short *__restrict__ dx)
{
    lrn16_bwd_walk<lrn16_p4<BF>, W, LRN16_BWD_U(W)>(g, x, dy, dx);
}
template <int W, bool BF>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK, LRN16F_FWD_MINB)
    lrn_fwd_lean16f(const lrn16_t g, const unsigned short *__restrict__ x,
                    unsigned short *__restrict__ y)
{
    lrn16_fwd_walk<lrn16_p2<BF>, W, LRN16F_FWD_U>(g, x, y);
}
template <int W, bool BF>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK, LRN16F_BWD_MINB)
    lrn_bwd_lean16f(const lrn16_t g, const unsigned short *__restrict__ x,
                    const unsigned short *__restrict__ dy, unsigned short *__restrict__ dx)
{
    lrn16_bwd_walk<lrn16_p2<BF>, W, LRN16F_BWD_U>(g, x, dy, dx);
}
