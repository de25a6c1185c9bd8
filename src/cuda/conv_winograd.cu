/* SPDX-License-Identifier: MIT */
/*
 * conv_winograd.cu - non-fused Winograd F(4x4, 3x3) convolution on the CUDA cores for FLOAT,
 * all three directions (rows fd_conv_fwd_winograd_nonfused_f32,
 * fd_conv_bwd_data_winograd_nonfused_f32, fd_conv_bwd_filter_winograd_nonfused_f32: FWD
 * WINOGRAD / WINOGRAD_NONFUSED, BWD_DATA WINOGRAD / WINOGRAD_NONFUSED, BWD_FILTER
 * WINOGRAD_NONFUSED, each with a workspace as the cpu rows of src/cpu/conv_winograd.c). Forward
 * and backward data below; backward filter (the adjoint: dy's tiles through A, x's through B,
 * 36 GEMMs reducing over the tiles, G^T . G into dw) in its own section.
 *
 * One core computes a 3x3 stride-1 cross-correlation dst = alpha * corr(src, f) + beta * dst,
 * described by signed element strides exactly as the cpu row's plan:
 *   forward    src = x, dst = y, f(o = k, i = c, r, s) = w[k][c][r][s] (reversed for
 *              CUDNN_CONVOLUTION), pad as given;
 *   bwd data   src = dy, dst = dx, f(o = c, i = k, r, s) = w[k][c][2 - r][2 - s] (not reversed
 *              for CUDNN_CONVOLUTION), pad' = 2 - pad (negative for pad > 2: signed indices).
 * Four kernels per chunk of tiles, no atomics, so the bits never depend on scheduling:
 *   1. filter transform (once): U[xi][i][o] = (G g G^T)[xi], in double, rounded once; o is
 *      contiguous so the GEMM reads its A operand as float4 rows;
 *   2. input transform: V[xi][i][t] = (B^T d B)[xi] of the 6x6 input tile of output tile t, float;
 *   3. 36 batched GEMMs (blockIdx.z = xi): M[xi][o][t] = sum_i U[xi][i][o] V[xi][i][t].
 *      GEMM M = co (K fwd, C bwd data), N = tiles of the chunk, reduction = ci (C fwd, K bwd
 *      data). Tile 128 x 128 (8 x 8 per thread), 64 x 128 (4 x 8) or 64 x 64 (4 x 4), 256
 *      threads, 8 along the reduction, 4-stage ring of 16-byte cp.async copies (zero-filled
 *      past ci): 32 / 24 / 16 KiB of shared memory; both operands are staged reduction-major as they sit
 *      in memory, so no transposition and no bank conflicts (each thread's rows / columns are
 *      two quads 64 apart, read as float4);
 *   4. output transform: Y = A^T M A, blended as alpha * Y + beta * dst in double (no fma
 *      contraction) and rounded once; beta == 0 never reads dst.
 * Tiles of all images are numbered together (small images still give the GEMMs width) and run
 * in chunks of at most 64 MiB of V + M, so the workspace stays bounded.
 * Rounding: input / output transforms and the channel sums in float, so not exact on integer
 * data; docs/testing.md holds Winograd to a normwise 10x the f32 bound (the transforms mix a
 * tile's outputs with constants up to 8).
 * Workspace: 256 bytes of alignment slack, then U (36 * ci * kp), V (36 * ci * tp), M (36 * co
 * * tp) floats, kp = co rounded up to 4, tp = the chunk rounded up to 4 (float4 rows; the pad
 * lanes are written as zeros by the transforms, so nothing uninitialised is read).
 * ptxas (sm_90, nvcc 13.0): GEMM 128x128 121 registers (__launch_bounds__(256, 2)), 64x128 91,
 * 64x64 71; transforms: filter 48, input 64, output 56; backward filter's x 62, dy 40, dw 74;
 * 0 spills, 0 stack everywhere (sm_80: 128 / 88 / 71 for the GEMMs).
 * Takes: FLOAT x / w / y and compute, 2-d, 3x3, stride 1, dilation 1, any padding, groups 1, x /
 * y / filter of any strides (NCHW, NHWC, KCRS, KRSC...), both modes, any math type (Winograd is
 * allowed under FMA math, as in cuDNN). FREEDNN_WINOGRAD=0 turns the three rows off.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_cuda.cuh"

#define WG_M 4
#define WG_T 6
#define WG_X 36
#define WG_BK 8
#define WG_STAGES 4
#define WG_THREADS 256
/* V + M bytes per chunk: 64 MiB (FREEDNN_WINOGRAD_CHUNK_MIB overrides: a tuning knob, read
 * afresh by the workspace query and the run alike, and how the test reaches several chunks) */
#define WG_CHUNK_MIB 64
#define WG_ALIGN 256

typedef struct {
    int ci, co;                   /* in / out channels of the GEMM */
    int ih, iw, oh, ow;           /* src and dst spatial sizes */
    int pad_h, pad_w;             /* src row of dst row 0 is -pad_h */
    int th, tw;                   /* tiles per image along h, w */
    int64_t sn, sc, sh, sw;       /* src strides */
    int64_t dn, dc, dh, dw;       /* dst strides */
    int64_t f0, fo, fi, fr, fs;   /* filter: f0 + o * fo + i * fi + r * fr + s * fs */
    int64_t tiles, chunk;         /* tiles in all, per chunk */
    int kp, tp;                   /* co and chunk rounded up to 4 */
    int64_t uplane, vplane, mplane; /* floats per xi plane of U, V, M */
} wg_plan_t;

static int64_t wg_round4(int64_t v)
{
    return (v + 3) / 4 * 4;
}

static int64_t wg_round64(int64_t v)
{
    return (v + 63) / 64 * 64;
}

static int64_t wg_chunk_floats(void)
{
    return (int64_t)fd_env_long("FREEDNN_WINOGRAD_CHUNK_MIB", 1, 65536, WG_CHUNK_MIB) *
           (1024 * 1024 / 4);
}

/* 0 when a size does not fit the kernels' index arithmetic. */
static int wg_plan(const fd_conv_problem_t *p, wg_plan_t *q)
{
    memset(q, 0, sizeof *q);
    int64_t ci, co, ih, iw, oh, ow, ph, pw;
    if (p->dir == FD_CONV_FWD) {
        ci = p->c, co = p->k;
        ih = p->in[1], iw = p->in[2], oh = p->out[1], ow = p->out[2];
        ph = p->pad[1], pw = p->pad[2];
        q->sn = p->xs[0], q->sc = p->xs[1], q->sh = p->xs[3], q->sw = p->xs[4];
        q->dn = p->ys[0], q->dc = p->ys[1], q->dh = p->ys[3], q->dw = p->ys[4];
        q->fo = p->ws[0], q->fi = p->ws[1], q->fr = p->ws[3], q->fs = p->ws[4];
        if (!p->cross_correlation) /* CUDNN_CONVOLUTION reads the filter reversed */
            q->f0 = 2 * q->fr + 2 * q->fs, q->fr = -q->fr, q->fs = -q->fs;
    } else {
        ci = p->k, co = p->c;
        ih = p->out[1], iw = p->out[2], oh = p->in[1], ow = p->in[2];
        ph = 2 - p->pad[1], pw = 2 - p->pad[2];
        q->sn = p->ys[0], q->sc = p->ys[1], q->sh = p->ys[3], q->sw = p->ys[4];
        q->dn = p->xs[0], q->dc = p->xs[1], q->dh = p->xs[3], q->dw = p->xs[4];
        q->fo = p->ws[1], q->fi = p->ws[0], q->fr = p->ws[3], q->fs = p->ws[4];
        if (p->cross_correlation) /* the adjoint of a correlation correlates with w rotated */
            q->f0 = 2 * q->fr + 2 * q->fs, q->fr = -q->fr, q->fs = -q->fs;
    }
    const int64_t th = (oh + WG_M - 1) / WG_M, tw = (ow + WG_M - 1) / WG_M;
    q->tiles = p->n * th * tw;
    int64_t chunk = wg_chunk_floats() / (WG_X * (ci + co));
    chunk = chunk / 128 * 128; /* whole GEMM column tiles but for the last chunk */
    if (chunk < 128)
        chunk = 128;
    if (chunk > q->tiles)
        chunk = q->tiles;
    const int64_t kp = wg_round4(co), tp = wg_round4(chunk);
    const int64_t lim = (int64_t)1 << 30;
    if (ci >= lim || co >= lim || ih >= lim || iw >= lim || oh >= lim || ow >= lim ||
        ph <= -lim || ph >= lim || pw <= -lim || pw >= lim || ci * kp >= lim || ci * tp >= lim ||
        co * tp >= lim || (co + 63) / 64 > 65535)
        return 0;
    q->ci = (int)ci, q->co = (int)co, q->ih = (int)ih, q->iw = (int)iw, q->oh = (int)oh,
    q->ow = (int)ow, q->pad_h = (int)ph, q->pad_w = (int)pw, q->th = (int)th, q->tw = (int)tw;
    q->chunk = chunk, q->kp = (int)kp, q->tp = (int)tp;
    q->uplane = ci * kp, q->vplane = ci * tp, q->mplane = co * tp;
    return 1;
}

static size_t wg_u_floats(const wg_plan_t *q)
{
    return (size_t)wg_round64(WG_X * q->uplane);
}
static size_t wg_v_floats(const wg_plan_t *q)
{
    return (size_t)wg_round64(WG_X * q->vplane);
}
static size_t wg_m_floats(const wg_plan_t *q)
{
    return (size_t)wg_round64(WG_X * q->mplane);
}

/* ---- transforms ---------------------------------------------------------------------------- */

/* out[j * os] = (G g)[j] for one column g of 3 (the cpu row's constants). */
static __device__ __forceinline__ void wg_g_column(double g0, double g1, double g2, double *out,
                                                   int os)
{
    const double sixth = 1.0 / 6.0, twelfth = 1.0 / 12.0, t24 = 1.0 / 24.0;
    const double s02 = g0 + g2;
    out[0] = 0.25 * g0;
    out[os] = -sixth * (s02 + g1);
    out[2 * os] = -sixth * (s02 - g1);
    const double e = t24 * g0 + sixth * g2, o = twelfth * g1;
    out[3 * os] = e + o;
    out[4 * os] = e - o;
    out[5 * os] = g2;
}

/* U[xi][i][o] for every i < ci, o < kp (zeros for o >= co): one thread per (i, o), o fastest,
 * so the 36 stores of a warp are coalesced. */
static __global__ void wg_filter_transform(const wg_plan_t q, const float *__restrict__ w,
                                           float *__restrict__ u)
{
    const int64_t total = (int64_t)q.ci * q.kp;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int i = (int)(e / q.kp), o = (int)(e % q.kp);
        float *dst = u + e;
        if (o >= q.co) {
#pragma unroll
            for (int x = 0; x < WG_X; x++)
                dst[x * q.uplane] = 0.0f;
            continue;
        }
        const float *f = w + q.f0 + o * q.fo + i * q.fi;
        double t[WG_T][3];
#pragma unroll
        for (int s = 0; s < 3; s++) /* t = G g */
            wg_g_column(f[s * q.fs], f[q.fr + s * q.fs], f[2 * q.fr + s * q.fs], &t[0][s], 3);
#pragma unroll
        for (int a = 0; a < WG_T; a++) { /* U = t G^T */
            double v[WG_T];
            wg_g_column(t[a][0], t[a][1], t[a][2], v, 1);
#pragma unroll
            for (int b = 0; b < WG_T; b++)
                dst[(a * WG_T + b) * q.uplane] = (float)v[b];
        }
    }
}

/* out = B^T in for one column of 6. */
static __device__ __forceinline__ void wg_bt6(const float *in, int is, float *out, int os)
{
    const float d0 = in[0], d1 = in[is], d2 = in[2 * is], d3 = in[3 * is], d4 = in[4 * is],
                d5 = in[5 * is];
    out[0] = 4.0f * d0 - 5.0f * d2 + d4;
    out[os] = -4.0f * d1 - 4.0f * d2 + d3 + d4;
    out[2 * os] = 4.0f * d1 - 4.0f * d2 - d3 + d4;
    out[3 * os] = -2.0f * d1 - d2 + 2.0f * d3 + d4;
    out[4 * os] = 2.0f * d1 - d2 - 2.0f * d3 + d4;
    out[5 * os] = 4.0f * d1 - 5.0f * d3 + d5;
}

/* d = B^T t B of the 6x6 tile t of a plane at rows h0.., columns w0.. (zero outside ih x iw;
 * strides sh, sw): the forward's input transform and backward filter's x transform. */
static __device__ __forceinline__ void wg_tile_btb(const float *__restrict__ base, int h0, int w0,
                                                   int ih, int iw, int64_t sh, int64_t sw,
                                                   float (&d)[WG_X])
{
    float tmp[WG_X];
#pragma unroll
    for (int a = 0; a < WG_T; a++)
#pragma unroll
        for (int b = 0; b < WG_T; b++) {
            const int hh = h0 + a, ww = w0 + b;
            d[a * WG_T + b] = (unsigned)hh < (unsigned)ih && (unsigned)ww < (unsigned)iw
                                  ? __ldg(base + (hh * sh + ww * sw))
                                  : 0.0f;
        }
#pragma unroll
    for (int b = 0; b < WG_T; b++) /* columns: tmp = B^T d */
        wg_bt6(d + b, WG_T, tmp + b, WG_T);
#pragma unroll
    for (int a = 0; a < WG_T; a++) /* rows: d = tmp B */
        wg_bt6(tmp + a * WG_T, 1, d + a * WG_T, 1);
}

/* V[xi][i][tt] for tiles t0 + tt, tt < nb (zeros for nb <= tt < tp): one thread per (i, tt),
 * tt fastest (coalesced stores; the loads of neighbouring tiles overlap in cache). */
static __global__ void wg_input_transform(const wg_plan_t q, const float *__restrict__ src,
                                          int64_t t0, int nb, float *__restrict__ v)
{
    const int64_t total = (int64_t)q.ci * q.tp;
    const int per_img = q.th * q.tw;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int i = (int)(e / q.tp), tt = (int)(e % q.tp);
        float *dst = v + e;
        if (tt >= nb) {
#pragma unroll
            for (int x = 0; x < WG_X; x++)
                dst[x * q.vplane] = 0.0f;
            continue;
        }
        const int64_t t = t0 + tt;
        const int64_t img = t / per_img;
        const int rem = (int)(t % per_img);
        const int h0 = (rem / q.tw) * WG_M - q.pad_h, w0 = (rem % q.tw) * WG_M - q.pad_w;
        float d[WG_X];
        wg_tile_btb(src + img * q.sn + i * q.sc, h0, w0, q.ih, q.iw, q.sh, q.sw, d);
#pragma unroll
        for (int x = 0; x < WG_X; x++)
            dst[x * q.vplane] = d[x];
    }
}

/* out = A^T in for one column of 6 -> 4. */
static __device__ __forceinline__ void wg_at4(const float *in, int is, float *out, int os)
{
    const float m0 = in[0], m1 = in[is], m2 = in[2 * is], m3 = in[3 * is], m4 = in[4 * is],
                m5 = in[5 * is];
    const float s12 = m1 + m2, d12 = m1 - m2, s34 = m3 + m4, d34 = m3 - m4;
    out[0] = m0 + s12 + s34;
    out[os] = d12 + 2.0f * d34;
    out[2 * os] = s12 + 4.0f * s34;
    out[3 * os] = d12 + 8.0f * d34 + m5;
}

/* dst of tiles t0 + tt, tt < nb = alpha * A^T M A + beta * dst: one thread per (o, tt), each
 * output element written by exactly one thread. */
static __global__ void wg_output_transform(const wg_plan_t q, const float *__restrict__ m,
                                           int64_t t0, int nb, float *__restrict__ dst,
                                           double alpha, double beta)
{
    const int64_t total = (int64_t)q.co * nb;
    const int per_img = q.th * q.tw;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int o = (int)(e / nb), tt = (int)(e % nb);
        const float *src = m + (int64_t)o * q.tp + tt;
        float in[WG_X], tmp[WG_M * WG_T], out[WG_M * WG_M];
#pragma unroll
        for (int x = 0; x < WG_X; x++)
            in[x] = src[x * q.mplane];
#pragma unroll
        for (int b = 0; b < WG_T; b++) /* tmp (4 x 6) = A^T in */
            wg_at4(in + b, WG_T, tmp + b, WG_T);
#pragma unroll
        for (int a = 0; a < WG_M; a++) /* out (4 x 4) = tmp A */
            wg_at4(tmp + a * WG_T, 1, out + a * WG_M, 1);
        const int64_t t = t0 + tt;
        const int64_t img = t / per_img;
        const int rem = (int)(t % per_img);
        const int h0 = (rem / q.tw) * WG_M, w0 = (rem % q.tw) * WG_M;
        float *base = dst + img * q.dn + o * q.dc;
#pragma unroll
        for (int a = 0; a < WG_M; a++)
#pragma unroll
            for (int b = 0; b < WG_M; b++) {
                if (h0 + a >= q.oh || w0 + b >= q.ow)
                    continue;
                float *y = base + (h0 + a) * q.dh + (w0 + b) * q.dw;
                double r = __dmul_rn(alpha, (double)out[a * WG_M + b]);
                if (beta != 0.0)
                    r = __dadd_rn(r, __dmul_rn(beta, (double)*y));
                *y = (float)r;
            }
    }
}

/* ---- the batched GEMM ---------------------------------------------------------------------- */

/* 16 bytes global -> shared, or 16 zero bytes when !ok (src-size 0 reads nothing). */
static __device__ __forceinline__ void wg_cp16(float *smem, const float *gmem, int ok)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem),
                 "r"(ok ? 16 : 0));
}

static __device__ __forceinline__ void wg_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::);
}

#define WG_WAIT(n) asm volatile("cp.async.wait_group %0;\n" ::"n"(n))

/* One [WG_BK][BW] tile of a reduction-major operand (rows of ld floats, ld % 4 == 0) starting
 * at reduction row r0, column c0: float4 copies, rows past nred and columns past ld zero. */
template <int BW>
static __device__ __forceinline__ void wg_load_tile(float *dst, const float *src, int r0, int c0,
                                                    int nred, int ld, int tid)
{
    constexpr int VEC = WG_BK * BW / 4;
#pragma unroll
    for (int it = 0; it < (VEC + WG_THREADS - 1) / WG_THREADS; it++) {
        const int j = tid + it * WG_THREADS;
        if (j >= VEC)
            break;
        const int row = j / (BW / 4), col = (j % (BW / 4)) * 4;
        const int ok = r0 + row < nred && c0 + col < ld;
        wg_cp16(dst + row * BW + col, ok ? src + ((int64_t)(r0 + row) * ld + c0 + col) : src, ok);
    }
}

/* M[z][o][t] = sum_i U[z][i][o] V[z][i][t] for one BM x BN tile; TM x TN outputs per thread,
 * in quads of 4 rows / columns, 64 apart. blockIdx.z = split * 36 + z: split sp sums i in
 * [sp * split_len, (sp + 1) * split_len) into its own planes M + sp * 36 * mplane, added to what
 * they hold when acc (backward filter's chunks of tiles; forward and backward data: one split,
 * acc 0). */
template <int BM, int BN, int TM, int TN>
static __global__ void __launch_bounds__(WG_THREADS, 2)
    wg_gemm(const wg_plan_t q, const float *__restrict__ u, const float *__restrict__ v,
            float *__restrict__ m, int split_len, int acc_in)
{
    static_assert((BM / TM) * (BN / TN) == WG_THREADS && BM / TM == 16 && BN / TN == 16,
                  "16 x 16 threads, quads 64 apart");
    __shared__ __align__(16) float as[WG_STAGES][WG_BK * BM];
    __shared__ __align__(16) float bs[WG_STAGES][WG_BK * BN];

    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
    const int n0 = blockIdx.x * BN, m0 = blockIdx.y * BM;
    const int64_t z = blockIdx.z % WG_X, sp = blockIdx.z / WG_X;
    const int r0 = (int)sp * split_len;
    const int r1 = q.ci - r0 < split_len ? q.ci : r0 + split_len;
    const float *A = u + z * q.uplane, *B = v + z * q.vplane;
    float *C = m + (sp * WG_X + z) * q.mplane;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;

    const int ktiles = (r1 - r0 + WG_BK - 1) / WG_BK;
#pragma unroll
    for (int s = 0; s < WG_STAGES - 1; s++) {
        if (s < ktiles) {
            wg_load_tile<BM>(as[s], A, r0 + s * WG_BK, m0, r1, q.kp, tid);
            wg_load_tile<BN>(bs[s], B, r0 + s * WG_BK, n0, r1, q.tp, tid);
        }
        wg_commit();
    }
    for (int kt = 0; kt < ktiles; kt++) {
        WG_WAIT(WG_STAGES - 2);
        __syncthreads(); /* stage kt landed for all; stage kt - 1 is free again */
        const int nxt = kt + WG_STAGES - 1;
        if (nxt < ktiles) {
            wg_load_tile<BM>(as[nxt % WG_STAGES], A, r0 + nxt * WG_BK, m0, r1, q.kp, tid);
            wg_load_tile<BN>(bs[nxt % WG_STAGES], B, r0 + nxt * WG_BK, n0, r1, q.tp, tid);
        }
        wg_commit();
        const float *at = as[kt % WG_STAGES], *bt = bs[kt % WG_STAGES];
#pragma unroll
        for (int k = 0; k < WG_BK; k++) {
            float a[TM], b[TN];
#pragma unroll
            for (int qd = 0; qd < TM / 4; qd++) {
                const float4 f = *(const float4 *)(at + k * BM + qd * 64 + ty * 4);
                a[qd * 4] = f.x, a[qd * 4 + 1] = f.y, a[qd * 4 + 2] = f.z, a[qd * 4 + 3] = f.w;
            }
#pragma unroll
            for (int qd = 0; qd < TN / 4; qd++) {
                const float4 f = *(const float4 *)(bt + k * BN + qd * 64 + tx * 4);
                b[qd * 4] = f.x, b[qd * 4 + 1] = f.y, b[qd * 4 + 2] = f.z, b[qd * 4 + 3] = f.w;
            }
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
    }
    WG_WAIT(0);

#pragma unroll
    for (int i = 0; i < TM; i++) {
        const int row = m0 + (i / 4) * 64 + ty * 4 + (i & 3);
        if (row >= q.co)
            continue;
#pragma unroll
        for (int qd = 0; qd < TN / 4; qd++) {
            const int col = n0 + qd * 64 + tx * 4;
            if (col >= q.tp)
                continue;
            float4 *c4 = (float4 *)(C + ((int64_t)row * q.tp + col));
            float4 r = make_float4(acc[i][qd * 4], acc[i][qd * 4 + 1], acc[i][qd * 4 + 2],
                                   acc[i][qd * 4 + 3]);
            if (acc_in) { /* the earlier chunks' sums first, then this chunk's */
                const float4 o = *c4;
                r = make_float4(o.x + r.x, o.y + r.y, o.z + r.z, o.w + r.w);
            }
            *c4 = r;
        }
    }
}

/* ---- backward filter ---------------------------------------------------------------------
 * dw = sum over dy's 4x4 tiles of G^T [ (A dY A^T) (.) (B^T d B) ] G: the forward's
 * y = A^T [ (G w G^T) (.) (B^T d B) ] A differentiated by w (src/cpu/conv_winograd.c's row, the
 * same arithmetic). Per chunk of tiles: x's 6x6 tiles through B (V[xi][t][c], c contiguous),
 * dy's 4x4 tiles (zero past dy) through A (E[xi][t][k], k contiguous), then 36 GEMMs
 * M[sp][xi][k][c] += sum_t E[xi][t][k] V[xi][t][c] on wg_gemm (reduction = the chunk's tiles,
 * split S ways so that small K x C still fill the GPU; each split's planes accumulate across the
 * chunks, in chunk order); last, per (k, c), the splits' 36 sums in split order, G^T . G in
 * double, alpha / beta, one rounding into dw (flipped taps for CUDNN_CONVOLUTION). */
typedef struct {
    int c, k, kp, cp;           /* channels, output channels, both rounded up to 4 */
    int ih, iw, oh, ow;         /* x and dy spatial sizes */
    int pad_h, pad_w, th, tw;   /* dy's tiles per image along h, w */
    int64_t xn, xc, xh, xw;     /* x strides */
    int64_t yn, yc, yh, yw;     /* dy strides */
    int64_t f0, fk, fc, fr, fs; /* dw: f0 + k * fk + c * fc + r * fr + s * fs */
    int64_t tiles, chunk;       /* tiles in all, per chunk */
    int splits, split_len;      /* of a chunk's tiles */
    int bm, bn;                 /* the GEMM tile */
} wgw_plan_t;

/* out = A in for one column of 4 -> 6 (the transpose of wg_at4's matrix). */
static __device__ __forceinline__ void wg_a6(const float *in, int is, float *out, int os)
{
    const float u0 = in[0], u1 = in[is], u2 = in[2 * is], u3 = in[3 * is];
    out[0] = u0;
    out[os] = u0 + u1 + u2 + u3;
    out[2 * os] = u0 - u1 + u2 - u3;
    out[3 * os] = u0 + 2.0f * u1 + 4.0f * u2 + 8.0f * u3;
    out[4 * os] = u0 - 2.0f * u1 + 4.0f * u2 - 8.0f * u3;
    out[5 * os] = u3;
}

/* V[xi][tt][c] = (B^T d B)[xi] of x's 6x6 tile under dy's tile t0 + tt, for tt < nb and c < cp
 * (zeros for c >= C): one thread per (tt, c), c fastest, so the 36 stores of a warp are
 * coalesced (plane: chunk * cp floats). */
static __global__ void wgw_x_transform(const wgw_plan_t q, const float *__restrict__ x, int64_t t0,
                                       int nb, float *__restrict__ v)
{
    const int64_t total = (int64_t)nb * q.cp, plane = q.chunk * q.cp;
    const int per_img = q.th * q.tw;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int tt = (int)(e / q.cp), c = (int)(e % q.cp);
        float *dst = v + e;
        if (c >= q.c) {
#pragma unroll
            for (int xi = 0; xi < WG_X; xi++)
                dst[xi * plane] = 0.0f;
            continue;
        }
        const int64_t t = t0 + tt, img = t / per_img;
        const int rem = (int)(t % per_img);
        const int h0 = (rem / q.tw) * WG_M - q.pad_h, w0 = (rem % q.tw) * WG_M - q.pad_w;
        float d[WG_X];
        wg_tile_btb(x + img * q.xn + c * q.xc, h0, w0, q.ih, q.iw, q.xh, q.xw, d);
#pragma unroll
        for (int xi = 0; xi < WG_X; xi++)
            dst[xi * plane] = d[xi];
    }
}

/* E[xi][tt][k] = (A dY A^T)[xi] of dy's 4x4 tile t0 + tt (zero past dy), for k < kp (zeros
 * for k >= K): one thread per (tt, k), k fastest (plane: chunk * kp floats). */
static __global__ void wgw_dy_transform(const wgw_plan_t q, const float *__restrict__ dy,
                                        int64_t t0, int nb, float *__restrict__ eo)
{
    const int64_t total = (int64_t)nb * q.kp, plane = q.chunk * q.kp;
    const int per_img = q.th * q.tw;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int tt = (int)(e / q.kp), k = (int)(e % q.kp);
        float *dst = eo + e;
        if (k >= q.k) {
#pragma unroll
            for (int xi = 0; xi < WG_X; xi++)
                dst[xi * plane] = 0.0f;
            continue;
        }
        const int64_t t = t0 + tt, img = t / per_img;
        const int rem = (int)(t % per_img);
        const int h0 = (rem / q.tw) * WG_M, w0 = (rem % q.tw) * WG_M;
        const float *base = dy + img * q.yn + k * q.yc;
        float d[WG_M * WG_M], tmp[WG_T * WG_M], out[WG_X];
#pragma unroll
        for (int a = 0; a < WG_M; a++)
#pragma unroll
            for (int b = 0; b < WG_M; b++)
                d[a * WG_M + b] = h0 + a < q.oh && w0 + b < q.ow
                                      ? __ldg(base + ((h0 + a) * q.yh + (w0 + b) * q.yw))
                                      : 0.0f;
#pragma unroll
        for (int b = 0; b < WG_M; b++) /* columns: tmp (6 x 4) = A d */
            wg_a6(d + b, WG_M, tmp + b, WG_M);
#pragma unroll
        for (int a = 0; a < WG_T; a++) /* rows: out (6 x 6) = tmp A^T */
            wg_a6(tmp + a * WG_M, 1, out + a * WG_T, 1);
#pragma unroll
        for (int xi = 0; xi < WG_X; xi++)
            dst[xi * plane] = out[xi];
    }
}

/* out[j * os] = (G^T m)[j] for one column of 6 -> 3, in double. */
static __device__ __forceinline__ void wg_gt3(const double *m, int is, double *out, int os)
{
    const double sixth = 1.0 / 6.0, twelfth = 1.0 / 12.0, t24 = 1.0 / 24.0;
    const double s12 = m[is] + m[2 * is], s34 = m[3 * is] + m[4 * is];
    out[0] = 0.25 * m[0] - sixth * s12 + t24 * s34;
    out[os] = sixth * (m[2 * is] - m[is]) + twelfth * (m[3 * is] - m[4 * is]);
    out[2 * os] = sixth * (s34 - s12) + m[5 * is];
}

/* dw[k][c] = alpha * G^T (sum over the splits, in order, of M[sp][.][k][c]) G + beta * dw: one
 * thread per (k, c), c fastest (coalesced reads of M); double after the float split sums, one
 * rounding; beta == 0 never reads dw. */
static __global__ void wgw_filter_out(const wgw_plan_t q, const float *__restrict__ m,
                                      float *__restrict__ dw, double alpha, double beta)
{
    const int64_t total = (int64_t)q.k * q.c, plane = (int64_t)q.k * q.cp;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int k = (int)(e / q.c), c = (int)(e % q.c);
        const float *src = m + (int64_t)k * q.cp + c;
        float sum[WG_X];
#pragma unroll
        for (int xi = 0; xi < WG_X; xi++)
            sum[xi] = src[xi * plane];
        for (int sp = 1; sp < q.splits; sp++) { /* 36 independent loads a split */
            const float *ssp = src + (int64_t)sp * WG_X * plane;
#pragma unroll
            for (int xi = 0; xi < WG_X; xi++)
                sum[xi] += ssp[xi * plane];
        }
        double mm[WG_X], t[3 * WG_T], r[9];
#pragma unroll
        for (int xi = 0; xi < WG_X; xi++)
            mm[xi] = (double)sum[xi];
#pragma unroll
        for (int b = 0; b < WG_T; b++) /* t (3 x 6) = G^T m */
            wg_gt3(mm + b, WG_T, t + b, WG_T);
#pragma unroll
        for (int a = 0; a < 3; a++) /* r (3 x 3) = t G */
            wg_gt3(t + a * WG_T, 1, r + a * 3, 1);
        float *f = dw + q.f0 + k * q.fk + c * q.fc;
#pragma unroll
        for (int a = 0; a < 3; a++)
#pragma unroll
            for (int b = 0; b < 3; b++) {
                float *y = f + a * q.fr + b * q.fs;
                double val = __dmul_rn(alpha, r[a * 3 + b]);
                if (beta != 0.0)
                    val = __dadd_rn(val, __dmul_rn(beta, (double)*y));
                *y = (float)val;
            }
    }
}

/* ---- host side ----------------------------------------------------------------------------- */

/* FREEDNN_WINOGRAD=0 in the environment turns the three rows off (read once per process): the
 * generic GPU conv test (tests/gpu/test_gpu_conv.c) holds every enum to ref's bits on integer
 * data, which Winograd's transforms do not keep. */
static int wg_env_off(void)
{
    const char *e = getenv("FREEDNN_WINOGRAD");
    return e != NULL && strcmp(e, "0") == 0;
}

/* Backward filter's plan; 0 when a size does not fit the kernels' index arithmetic. Chunks of
 * tiles hold at most the chunk budget of E + V; the GEMM tile follows K and C as the forward's
 * rule; the splits give the 36 GEMMs at least 528 blocks (two waves of two blocks on a 132-SM
 * part, whatever the GPU: the workspace and the bits are a function of the problem) with at
 * least 64 tiles each, at most 64 splits. */
static int wgw_plan(const fd_conv_problem_t *p, wgw_plan_t *q)
{
    memset(q, 0, sizeof *q);
    const int64_t c = p->c, k = p->k, ih = p->in[1], iw = p->in[2], oh = p->out[1],
                  ow = p->out[2];
    q->xn = p->xs[0], q->xc = p->xs[1], q->xh = p->xs[3], q->xw = p->xs[4];
    q->yn = p->ys[0], q->yc = p->ys[1], q->yh = p->ys[3], q->yw = p->ys[4];
    q->fk = p->ws[0], q->fc = p->ws[1], q->fr = p->ws[3], q->fs = p->ws[4];
    if (!p->cross_correlation) /* CUDNN_CONVOLUTION's dw is the correlation's, taps reversed */
        q->f0 = 2 * q->fr + 2 * q->fs, q->fr = -q->fr, q->fs = -q->fs;
    const int64_t th = (oh + WG_M - 1) / WG_M, tw = (ow + WG_M - 1) / WG_M;
    const int64_t kp = wg_round4(k), cp = wg_round4(c);
    q->tiles = p->n * th * tw;
    int64_t chunk = wg_chunk_floats() / (WG_X * (kp + cp));
    chunk = chunk / WG_BK * WG_BK;
    if (chunk < WG_BK)
        chunk = WG_BK;
    if (chunk > q->tiles)
        chunk = q->tiles;
    /* as many chunks as the budget needs, of even sizes (a short last chunk ran its GEMMs at
     * half the rate: ResNet-50's 3x3 512 on 7x7 at N = 256, 448 + 448 + 128 tiles) */
    const int64_t nchunks = (q->tiles + chunk - 1) / chunk;
    if (nchunks > 1) {
        chunk = (q->tiles + nchunks - 1) / nchunks;
        chunk = (chunk + WG_BK - 1) / WG_BK * WG_BK;
    }
    q->bm = k >= 128 && c >= 128 ? 128 : 64;
    q->bn = c >= 128 ? 128 : 64;
    const int64_t blocks = WG_X * ((k + q->bm - 1) / q->bm) * ((cp + q->bn - 1) / q->bn);
    int64_t sp = (528 + blocks - 1) / blocks;
    const int64_t by_len = (chunk + 63) / 64;
    if (sp > by_len)
        sp = by_len;
    if (sp > 64)
        sp = 64;
    if (sp < 1)
        sp = 1;
    int64_t len = (chunk + sp - 1) / sp;
    len = (len + WG_BK - 1) / WG_BK * WG_BK;
    sp = (chunk + len - 1) / len;
    const int64_t lim = (int64_t)1 << 30;
    if (c >= lim || k >= lim || ih >= lim || iw >= lim || oh >= lim || ow >= lim ||
        p->pad[1] >= lim || p->pad[2] >= lim || chunk * kp >= lim || chunk * cp >= lim ||
        k * cp >= lim || (k + 63) / 64 > 65535 || WG_X * sp > 65535)
        return 0;
    q->c = (int)c, q->k = (int)k, q->kp = (int)kp, q->cp = (int)cp;
    q->ih = (int)ih, q->iw = (int)iw, q->oh = (int)oh, q->ow = (int)ow;
    q->pad_h = (int)p->pad[1], q->pad_w = (int)p->pad[2], q->th = (int)th, q->tw = (int)tw;
    q->chunk = chunk, q->splits = (int)sp, q->split_len = (int)len;
    return 1;
}

/* E, V (one chunk each) and the splits' M planes, in floats. */
static size_t wgw_e_floats(const wgw_plan_t *q)
{
    return (size_t)wg_round64(WG_X * q->chunk * q->kp);
}
static size_t wgw_v_floats(const wgw_plan_t *q)
{
    return (size_t)wg_round64(WG_X * q->chunk * q->cp);
}
static size_t wgw_m_floats(const wgw_plan_t *q)
{
    return (size_t)wg_round64((int64_t)q->splits * WG_X * q->k * q->cp);
}

static int wg_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    static const int off = wg_env_off();
    if (off) {
        snprintf(why, why_size, "FREEDNN_WINOGRAD=0 turns the cuda Winograd rows off");
        return 0;
    }
    if (p->xdt != CUDNN_DATA_FLOAT || p->wdt != CUDNN_DATA_FLOAT || p->ydt != CUDNN_DATA_FLOAT ||
        p->compute != CUDNN_DATA_FLOAT) {
        snprintf(why, why_size,
                 "x/w/y/compute are %s/%s/%s/%s; the Winograd kernels take FLOAT for all",
                 fd_dtype_name(p->xdt), fd_dtype_name(p->wdt), fd_dtype_name(p->ydt),
                 fd_dtype_name(p->compute));
        return 0;
    }
    if (p->nsp != 2) {
        snprintf(why, why_size, "Winograd F(4x4,3x3) is 2-d only (%d-d problem)", p->nsp);
        return 0;
    }
    if (p->groups != 1) {
        snprintf(why, why_size, "%lld groups; the Winograd kernels take 1", (long long)p->groups);
        return 0;
    }
    if (p->flt[1] != 3 || p->flt[2] != 3) {
        snprintf(why, why_size, "Winograd F(4x4,3x3) needs a 3x3 filter (%lldx%lld)",
                 (long long)p->flt[1], (long long)p->flt[2]);
        return 0;
    }
    if (p->stride[1] != 1 || p->stride[2] != 1 || p->dil[1] != 1 || p->dil[2] != 1) {
        snprintf(why, why_size, "Winograd F(4x4,3x3) needs stride 1 and dilation 1");
        return 0;
    }
    wg_plan_t q;
    wgw_plan_t qw;
    if (p->dir == FD_CONV_BWD_FILTER ? !wgw_plan(p, &qw) : !wg_plan(p, &q)) {
        snprintf(why, why_size, "a size reaches the Winograd kernels' 32-bit index limit (2^30)");
        return 0;
    }
    return 1;
}

static size_t wg_workspace(const fd_conv_problem_t *p)
{
    if (p->dir == FD_CONV_BWD_FILTER) {
        wgw_plan_t q;
        wgw_plan(p, &q);
        return WG_ALIGN + (wgw_e_floats(&q) + wgw_v_floats(&q) + wgw_m_floats(&q)) * sizeof(float);
    }
    wg_plan_t q;
    wg_plan(p, &q);
    return WG_ALIGN + (wg_u_floats(&q) + wg_v_floats(&q) + wg_m_floats(&q)) * sizeof(float);
}

/* Backward filter: per chunk the two transforms and the split GEMMs (the planes accumulate
 * after the first chunk), then the filter transform of the sums into dw. */
static cudnnStatus_t wgw_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    wgw_plan_t q;
    wgw_plan(p, &q);
    const size_t need = wg_workspace(p);
    FD_CHECK(a->workspace_size >= need && a->workspace != NULL, CUDNN_STATUS_BAD_PARAM,
             "workspace of %zu bytes; the Winograd backward filter row needs %zu",
             a->workspace_size, need);
    const uintptr_t base = ((uintptr_t)a->workspace + WG_ALIGN - 1) / WG_ALIGN * WG_ALIGN;
    float *e = (float *)base, *v = e + wgw_e_floats(&q), *m = v + wgw_v_floats(&q);
    cudaStream_t s = a->handle->stream;
    /* the GEMM's view: reduction = the chunk's tiles, rows K (E rows of kp), columns C (V rows
     * of cp) */
    wg_plan_t g;
    memset(&g, 0, sizeof g);
    g.co = q.k, g.kp = q.kp, g.tp = q.cp;
    g.uplane = q.chunk * q.kp, g.vplane = q.chunk * q.cp, g.mplane = (int64_t)q.k * q.cp;
    const dim3 grid((unsigned)((q.cp + q.bn - 1) / q.bn), (unsigned)((q.k + q.bm - 1) / q.bm),
                    (unsigned)(WG_X * q.splits));
    for (int64_t t0 = 0; t0 < q.tiles; t0 += q.chunk) {
        const int nb = (int)(q.tiles - t0 < q.chunk ? q.tiles - t0 : q.chunk);
        unsigned blocks = fd_cuda_blocks((int64_t)nb * q.cp, FD_CUDA_BLOCK);
        wgw_x_transform<<<blocks, FD_CUDA_BLOCK, 0, s>>>(q, (const float *)a->x, t0, nb, v);
        FD_CUDA_LAUNCHED("wgw_x_transform (%u blocks, tiles %lld + %d)", blocks, (long long)t0, nb);
        blocks = fd_cuda_blocks((int64_t)nb * q.kp, FD_CUDA_BLOCK);
        wgw_dy_transform<<<blocks, FD_CUDA_BLOCK, 0, s>>>(q, (const float *)a->y, t0, nb, e);
        FD_CUDA_LAUNCHED("wgw_dy_transform (%u blocks, tiles %lld + %d)", blocks, (long long)t0,
                         nb);
        g.ci = nb;
        const int acc = t0 > 0;
        if (q.bm == 128)
            wg_gemm<128, 128, 8, 8><<<grid, WG_THREADS, 0, s>>>(g, e, v, m, q.split_len, acc);
        else if (q.bn == 128)
            wg_gemm<64, 128, 4, 8><<<grid, WG_THREADS, 0, s>>>(g, e, v, m, q.split_len, acc);
        else
            wg_gemm<64, 64, 4, 4><<<grid, WG_THREADS, 0, s>>>(g, e, v, m, q.split_len, acc);
        FD_CUDA_LAUNCHED("wg_gemm %dx%d bwd filter (grid %u x %u x %u, %d splits of %d tiles)",
                         q.bm, q.bn, grid.x, grid.y, grid.z, q.splits, q.split_len);
    }
    const unsigned blocks = fd_cuda_blocks((int64_t)q.k * q.c, FD_CUDA_BLOCK);
    wgw_filter_out<<<blocks, FD_CUDA_BLOCK, 0, s>>>(q, m, (float *)a->out, a->alpha, a->beta);
    FD_CUDA_LAUNCHED("wgw_filter_out (%u blocks, %d splits)", blocks, q.splits);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t wg_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    wg_plan_t q;
    wg_plan(p, &q);
    const size_t need = wg_workspace(p);
    FD_CHECK(a->workspace_size >= need && a->workspace != NULL, CUDNN_STATUS_BAD_PARAM,
             "workspace of %zu bytes; the Winograd rows need %zu", a->workspace_size, need);
    const uintptr_t base = ((uintptr_t)a->workspace + WG_ALIGN - 1) / WG_ALIGN * WG_ALIGN;
    float *u = (float *)base, *v = u + wg_u_floats(&q), *m = v + wg_v_floats(&q);
    const float *src = (const float *)(p->dir == FD_CONV_FWD ? a->x : a->y);
    float *dst = (float *)a->out;
    cudaStream_t s = a->handle->stream;
    const char *dir = p->dir == FD_CONV_FWD ? "fwd" : "bwd data";

    unsigned blocks = fd_cuda_blocks((int64_t)q.ci * q.kp, FD_CUDA_BLOCK);
    wg_filter_transform<<<blocks, FD_CUDA_BLOCK, 0, s>>>(q, (const float *)a->w, u);
    FD_CUDA_LAUNCHED("wg_filter_transform %s (%u blocks, stream %p)", dir, blocks, (void *)s);
    for (int64_t t0 = 0; t0 < q.tiles; t0 += q.chunk) {
        const int nb = (int)(q.tiles - t0 < q.chunk ? q.tiles - t0 : q.chunk);
        blocks = fd_cuda_blocks((int64_t)q.ci * q.tp, FD_CUDA_BLOCK);
        wg_input_transform<<<blocks, FD_CUDA_BLOCK, 0, s>>>(q, src, t0, nb, v);
        FD_CUDA_LAUNCHED("wg_input_transform %s (%u blocks, tiles %lld + %d)", dir, blocks,
                         (long long)t0, nb);
        /* 128 x 128 tiles when both GEMM dims fill them and they still give two waves of
         * two blocks on a 132-SM part; 64 x 128 for few output channels and many tiles; else
         * 64 x 64 (small images at small N) */
        const int64_t cols128 = (nb + 127) / 128;
        if (q.co >= 128 && nb >= 128 && WG_X * ((q.co + 127) / 128) * cols128 >= 528) {
            const dim3 grid((unsigned)((q.tp + 127) / 128), (unsigned)((q.co + 127) / 128), WG_X);
            wg_gemm<128, 128, 8, 8><<<grid, WG_THREADS, 0, s>>>(q, u, v, m, q.ci, 0);
            FD_CUDA_LAUNCHED("wg_gemm 128x128 %s (grid %u x %u x %u)", dir, grid.x, grid.y, grid.z);
        } else if (nb >= 128 && WG_X * ((q.co + 63) / 64) * cols128 >= 528) {
            const dim3 grid((unsigned)((q.tp + 127) / 128), (unsigned)((q.co + 63) / 64), WG_X);
            wg_gemm<64, 128, 4, 8><<<grid, WG_THREADS, 0, s>>>(q, u, v, m, q.ci, 0);
            FD_CUDA_LAUNCHED("wg_gemm 64x128 %s (grid %u x %u x %u)", dir, grid.x, grid.y, grid.z);
        } else {
            const dim3 grid((unsigned)((q.tp + 63) / 64), (unsigned)((q.co + 63) / 64), WG_X);
            wg_gemm<64, 64, 4, 4><<<grid, WG_THREADS, 0, s>>>(q, u, v, m, q.ci, 0);
            FD_CUDA_LAUNCHED("wg_gemm 64x64 %s (grid %u x %u x %u)", dir, grid.x, grid.y, grid.z);
        }
        blocks = fd_cuda_blocks((int64_t)q.co * nb, FD_CUDA_BLOCK);
        wg_output_transform<<<blocks, FD_CUDA_BLOCK, 0, s>>>(q, m, t0, nb, dst, a->alpha,
                                                             a->beta);
        FD_CUDA_LAUNCHED("wg_output_transform %s (%u blocks)", dir, blocks);
    }
    return CUDNN_STATUS_SUCCESS;
}

/* The three rows' entry points (src/impls.def). */
#define WG_ROW(dir, run)                                                                           \
    extern "C" int fd_conv_##dir##_winograd_nonfused_f32_applicable(const fd_conv_problem_t *p,    \
                                                                    char *why, size_t why_size)    \
    {                                                                                              \
        return wg_applicable(p, why, why_size);                                                    \
    }                                                                                              \
    extern "C" size_t fd_conv_##dir##_winograd_nonfused_f32_workspace(const fd_conv_problem_t *p)  \
    {                                                                                              \
        return wg_workspace(p);                                                                    \
    }                                                                                              \
    extern "C" cudnnStatus_t fd_conv_##dir##_winograd_nonfused_f32_run(const fd_conv_problem_t *p, \
                                                                       const fd_conv_args_t *a)    \
    {                                                                                              \
        return run(p, a);                                                                          \
    }
WG_ROW(fwd, wg_run)
WG_ROW(bwd_data, wg_run)
WG_ROW(bwd_filter, wgw_run)
