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
