/* SPDX-License-Identifier: MIT */
/*
 * conv_simt.cu - FLOAT convolution as implicit GEMM on the CUDA cores (FFMA, float
 * accumulation), all three directions, any math type (the FMA_MATH path, and what FLOAT runs
 * when the tensor-core rows decline). Rows:
 *   fd_conv_fwd_simt_igemm        FWD IMPLICIT_GEMM, IMPLICIT_PRECOMP_GEMM    no workspace
 *   fd_conv_bwd_data_simt_igemm   BWD_DATA ALGO_0, ALGO_1                     no workspace
 *   fd_conv_bwd_filter_simt_igemm BWD_FILTER ALGO_1, ALGO_3                   split-K workspace
 *   fd_conv_bwd_data_simt_smallc  BWD_DATA ALGO_0, ALGO_1 for C < 16           no workspace
 *     (a direct kernel per residue class of the stride, at the end of this file)
 * (bwd filter ALGO_0 promises no workspace; the split-K partials need one, so it stays direct).
 *
 * GEMM mappings (t: logical tap, f: memory tap of the filter, t = f for cross-correlation and
 * FLT - 1 - f for convolution; "ch" is the reduced channel):
 *   fwd        y[m, k]  = sum_kk A[m, kk] B[kk, k]; m = (n, od, oh, ow), kk = (c, f) or (f, c);
 *              A = x at o * s - p + t * d (0 outside), B[kk, k] = w[k, c, f]
 *   bwd data   dx[m, c] = sum_kk A[m, kk] B[kk, c]; m = (n, id, ih, iw), kk = (k, f) or (f, k);
 *              A = dy at (i + p - t * d) / s where divisible and inside (strides > 1 are a
 *              predicated gather: most of their A tile is zeros), B[kk, c] = w[k, c, f]
 *   bwd filter dw[k, j] = sum_m A[k, m] B[m, j]; j = (c, f) or (f, c) in the filter's memory
 *              order, m = (n, od, oh, ow); A[k, m] = dy[m, k], B[m, j] = x gathered as in fwd.
 *              The m range is split (a fixed rule of the problem, not of the GPU) into float
 *              partial tiles in the workspace, summed in split order by a second kernel or,
 *              when the partials are small, by each tile's last block (one launch,
 *              splitk.cuh), so the bits never depend on scheduling or on the path; one split
 *              writes dw directly, no workspace.
 * The order of kk follows the filter's memory order (KCRS: channel outer; KRSC: channel inner)
 * unless the activations are channel-contiguous (NHWC), which then decide: channel inner.
 *
 * Tile: 128 x 128 per block, 8 along the reduction, 256 threads of 8 x 8 outputs (two 4 x 4
 * quads per dimension, read as float4 from shared memory), 4-stage ring of 4-byte cp.async
 * copies (zero-filled where the gather falls outside): 2 x 4 x 8 x 132 floats = 33 KiB, plus
 * the tap table of fwd / bwd data (512 taps: 10 KiB). Each operand's loader picks, per
 * problem, whether a warp runs along the reduction (channel-contiguous data, KRSC filter) or
 * along the tile's rows (NCHW data along ow, KCRS filter along c of bwd data), so global reads
 * are coalesced along whichever dimension is contiguous; rows are padded to 132 floats so both
 * store patterns are free of bank conflicts. Each thread keeps its reduction position as
 * (hi, lo) digits advanced by a precomputed step, and the tap table (smem) turns a tap into its
 * dilated offsets, so no division runs in the main loop (but for strided bwd data).
 * ptxas (sm_90, -O3): gather (fwd / bwd data) 127 registers, bwd filter 128, its reduction 32;
 * 0 spills, 0 stack; __launch_bounds__(256, 2), so two blocks share an SM. GEMMs of at most 64
 * columns (forward K, backward data C) run the gather on a 256 x 64 tile instead (8 x 8 per
 * thread as well, 3 stages, 41 KiB; 161 registers, sm_80 155; one block per SM), which fills
 * the FMAs the square tile left idle, where M gives at least 264 such blocks;
 * FREEDNN_SIMT_WIDE=0 keeps 128 x 128 (read once). Backward filter's GEMM has K rows: for few
 * output channels it runs 64 x 128 or 32 x 256 tiles of 128 threads (8 x 8 each, 4 stages,
 * 25 / 37 KiB; ptxas sm_90 168 / 203 registers, sm_80 154 / 185, 0 spills), the tile of least
 * padded area (simt_wtile); FREEDNN_SIMT_WGRAD_TILES=0 keeps 128 x 128 (read once).
 *
 * What they take (simt_check): FLOAT x, w, y; groups 1; any strides of x, y and the filter,
 * any pad / stride / dilation, 1 to 3 spatial dims; at most 512 filter taps (fwd, bwd data);
 * tensors whose offsets and positions fit the kernels' 32-bit index math (|offset| < 2^30).
 * Padding taps contribute 0 * w (as the tensor-core rows): a non-finite filter tap next to
 * padding gives NaN where ref skips the tap. Accumulation in float; alpha / beta blended in
 * double (no fma contraction) and rounded once, beta == 0 never reads the output: integer-exact
 * problems give ref's bits. Every row is deterministic.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fd_cuda.cuh"
#include "splitk.cuh"

#define SIMT_BM 128
#define SIMT_BN 128
#define SIMT_BK 8
#define SIMT_STAGES 4
#define SIMT_THREADS 256
#define SIMT_LD (SIMT_BM + 4) /* padded row of a staged [SIMT_BK][128] tile */
#define SIMT_MAX_TAPS 512
#define SIMT_FAR (-(1 << 30)) /* a position no tap offset brings back inside */
#define SIMT_LIMIT ((int64_t)1 << 30)

/* fwd / bwd data as the gather kernel reads it: A (x or dy) gathered, B the filter. */
typedef struct {
    int m, n, kred;        /* GEMM rows, columns, reduction */
    int sp[3];             /* radices of m after the batch index (fwd: out, bwd data: in) */
    int lim[3];            /* spatial extent of A (fwd: in, bwd data: out) */
    int bmul[3], badd[3];  /* position base of a row: index * bmul + badd */
    int gstr[3];           /* bwd data: the conv stride that must divide a position; else 1 */
    int strided;           /* some gstr > 1 */
    int as[5];             /* A strides: batch, channel, spatial */
    int bsn, bsch;         /* filter strides along the GEMM column and along the reduced channel */
    int nch, ntaps;
    int chan_outer;        /* kk = ch * ntaps + f; else kk = f * nch + ch */
    int lo_n, adv_hi, adv_lo; /* kk = hi * lo_n + lo; SIMT_BK = adv_hi * lo_n + adv_lo */
    int flt[3], tapd[3], wst[3]; /* taps per dim, signed dilation, filter tap strides */
    int cross;
    int a_kcontig, b_kcontig, out_mcontig; /* loader / epilogue orientations */
    int64_t os[5];         /* output strides */
} simt_geom_t;

/* bwd filter. */
typedef struct {
    int k, j, m;           /* GEMM rows (output channels), columns (c, f), reduction */
    int out[3], in[3], str[3], pad[3];
    int xs[5], ys[5];
    int nch, ntaps, chan_outer; /* j = c * ntaps + f, or f * nch + c */
    int flt[3], dil[3], cross;
    int adv[4];            /* SIMT_BK in the mixed radix (n, o0, o1, o2) */
    int a_mcontig, b_mcontig;
    int direct;            /* one split: blend into dw in the GEMM epilogue */
    int wk, wj;            /* the block's tile: 128 x 128, 64 x 128 or 32 x 256 (simt_wtile) */
    int64_t ws[5];         /* filter strides */
} simt_wgeom_t;

/* ---- device helpers ---------------------------------------------------------------------- */

/* 4 bytes global -> shared (a shared-window address), or 4 zero bytes when !ok (src-size 0
 * reads nothing). */
static __device__ __forceinline__ void simt_cp4s(uint32_t s, const float *gmem, int ok)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(gmem), "r"(ok ? 4 : 0));
}

/* The same from a generic pointer into shared memory. */
static __device__ __forceinline__ void simt_cp4(float *smem, const float *gmem, int ok)
{
    simt_cp4s((uint32_t)__cvta_generic_to_shared(smem), gmem, ok);
}

static __device__ __forceinline__ void simt_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::);
}

#define SIMT_WAIT(n) asm volatile("cp.async.wait_group %0;\n" ::"n"(n))

/* acc[8][8] += the [SIMT_BK][LA] and [SIMT_BK][LB] tiles at and bt: rows rm*4 + {0..3},
 * HM + rm*4 + {0..3} of A against columns cn*4 + {0..3}, HN + cn*4 + {0..3} of B (the 128 x 128
 * tiles: HM = HN = 64; the wide gather tile, 256 x 64: HM 128, HN 32). */
template <int LA = SIMT_LD, int HM = 64, int LB = SIMT_LD, int HN = 64>
static __device__ __forceinline__ void simt_fma_tile(float (*acc)[8], const float *at,
                                                     const float *bt, int rm, int cn)
{
#pragma unroll
    for (int k = 0; k < SIMT_BK; k++) {
        const float4 a0 = *(const float4 *)(at + k * LA + rm * 4);
        const float4 a1 = *(const float4 *)(at + k * LA + HM + rm * 4);
        const float4 b0 = *(const float4 *)(bt + k * LB + cn * 4);
        const float4 b1 = *(const float4 *)(bt + k * LB + HN + cn * 4);
        const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
        const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int j = 0; j < 8; j++)
                acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
}

/* out = alpha * v + beta * out in double, each step rounded (no fma: ref's bits), once to float. */
static __device__ __forceinline__ void simt_blend(float *out, double alpha, double beta, float v)
{
    double r = __dmul_rn(alpha, (double)v);
    if (beta != 0.0)
        r = __dadd_rn(r, __dmul_rn(beta, (double)*out));
    *out = (float)r;
}

/* Tile row / column of a thread's i-th (0..7) output: two quads of 4, H apart. */
template <int H = 64> static __device__ __forceinline__ int simt_quad(int t, int i)
{
    return (i < 4 ? 0 : H) + t * 4 + (i & 3);
}

/* ---- fwd and bwd data: A gathered, B the filter ------------------------------------------- */

/* Issues the copies of one A tile (NA elements per thread: rows a_row + 32 i, lane a_lane). */
template <int NA>
static __device__ __forceinline__ void simt_load_a(const simt_geom_t &g, const int4 *tab,
                                                   const float *A, float *dst, int kk, int hi,
                                                   int lo, const int *base, const int *p0,
                                                   const int *p1, const int *p2)
{
    const int valid = kk < g.kred;
    const int ch = g.chan_outer ? hi : lo;
    int f = g.chan_outer ? lo : hi;
    f = f < g.ntaps ? f : g.ntaps - 1;
    const int4 t = tab[f];
    if (!g.strided) {
        const int off = ch * g.as[1] + t.w;
#pragma unroll
        for (int i = 0; i < NA; i++) {
            const int ok = valid && (unsigned)(p0[i] + t.x) < (unsigned)g.lim[0] &&
                           (unsigned)(p1[i] + t.y) < (unsigned)g.lim[1] &&
                           (unsigned)(p2[i] + t.z) < (unsigned)g.lim[2];
            simt_cp4(dst + 32 * i, ok ? A + (base[i] + off) : A, ok);
        }
    } else {
#pragma unroll
        for (int i = 0; i < NA; i++) {
            const int q0 = p0[i] + t.x, q1 = p1[i] + t.y, q2 = p2[i] + t.z;
            int ok = valid && q0 >= 0 && q1 >= 0 && q2 >= 0;
            const int r0 = q0 / g.gstr[0], r1 = q1 / g.gstr[1], r2 = q2 / g.gstr[2];
            ok = ok && r0 * g.gstr[0] == q0 && r1 * g.gstr[1] == q1 && r2 * g.gstr[2] == q2 &&
                 r0 < g.lim[0] && r1 < g.lim[1] && r2 < g.lim[2];
            const int off = base[i] + ch * g.as[1] + r0 * g.as[2] + r1 * g.as[3] + r2 * g.as[4];
            simt_cp4(dst + 32 * i, ok ? A + off : A, ok);
        }
    }
}

/* Issues the copies of one B (filter) tile: NB columns b_col + 32 i, lane b_lane. */
template <int NB>
static __device__ __forceinline__ void simt_load_b(const simt_geom_t &g, const int *wtab,
                                                   const float *B, float *dst, int kk, int hi,
                                                   int lo, const int *base)
{
    const int valid = kk < g.kred;
    const int ch = g.chan_outer ? hi : lo;
    int f = g.chan_outer ? lo : hi;
    f = f < g.ntaps ? f : g.ntaps - 1;
    const int off = ch * g.bsch + wtab[f];
#pragma unroll
    for (int i = 0; i < NB; i++) {
        const int ok = valid && base[i] >= 0;
        simt_cp4(dst + 32 * i, ok ? B + (base[i] + off) : B, ok);
    }
}

/* kk += SIMT_BK in (hi, lo) digits. */
#define SIMT_ADVANCE(kk, hi, lo)                                                               \
    do {                                                                                       \
        (kk) += SIMT_BK;                                                                       \
        (lo) += g.adv_lo;                                                                      \
        (hi) += g.adv_hi;                                                                      \
        if ((lo) >= g.lo_n) {                                                                  \
            (lo) -= g.lo_n;                                                                    \
            ++(hi);                                                                            \
        }                                                                                      \
    } while (0)

/* WM rows x 128 * 128 / WM columns per block: 128 x 128, or 256 x 64 for GEMMs of at most 64
 * columns (forward K, backward data C), where the square tile left half its FMAs idle (ncu,
 * H100, ResNet-50's 1x1 256 -> 64 forward in NCHW: 80 % of the issue slots busy, NVIDIA's FFMA
 * kernel there a 256 x 64 tile); the wide tile runs 3 stages (static shared memory) and one
 * block per SM. */
template <int WM>
static __global__ void __launch_bounds__(SIMT_THREADS, WM == 128 ? 2 : 1)
    conv_simt_gather(const simt_geom_t g, const float *__restrict__ A,
                     const float *__restrict__ B, float *__restrict__ out, double alpha,
                     double beta)
{
    constexpr int WN = 128 * 128 / WM, LA = WM + 4, LB = WN + 4, NA = WM / 32, NB = WN / 32;
    constexpr int ST = WM == 128 ? SIMT_STAGES : 3;
    __shared__ __align__(16) float as[ST][SIMT_BK * LA];
    __shared__ __align__(16) float bs[ST][SIMT_BK * LB];
    __shared__ int4 tab[SIMT_MAX_TAPS]; /* per memory tap: signed dilated offsets, A offset */
    __shared__ int wtab[SIMT_MAX_TAPS]; /* per memory tap: filter offset */

    const int tid = threadIdx.x;
    for (int f = tid; f < g.ntaps; f += SIMT_THREADS) {
        const int f2 = f % g.flt[2], f1 = (f / g.flt[2]) % g.flt[1],
                  f0 = f / (g.flt[2] * g.flt[1]);
        const int t0 = g.cross ? f0 : g.flt[0] - 1 - f0;
        const int t1 = g.cross ? f1 : g.flt[1] - 1 - f1;
        const int t2 = g.cross ? f2 : g.flt[2] - 1 - f2;
        const int d0 = t0 * g.tapd[0], d1 = t1 * g.tapd[1], d2 = t2 * g.tapd[2];
        tab[f] = make_int4(d0, d1, d2, g.strided ? 0 : d0 * g.as[2] + d1 * g.as[3] + d2 * g.as[4]);
        wtab[f] = f0 * g.wst[0] + f1 * g.wst[1] + f2 * g.wst[2];
    }

    const int m0 = blockIdx.x * WM, n0 = blockIdx.y * WN;

    /* A loader: one reduction lane, NA rows 32 apart */
    const int a_lane = g.a_kcontig ? (tid & 7) : (tid >> 5);
    const int a_row = g.a_kcontig ? (tid >> 3) : (tid & 31);
    int a_base[NA], a_p0[NA], a_p1[NA], a_p2[NA];
#pragma unroll
    for (int i = 0; i < NA; i++) {
        const int m = m0 + a_row + 32 * i;
        if (m < g.m) {
            int r = m;
            const int q2 = r % g.sp[2];
            r /= g.sp[2];
            const int q1 = r % g.sp[1];
            r /= g.sp[1];
            const int q0 = r % g.sp[0];
            const int nb = r / g.sp[0];
            a_p0[i] = q0 * g.bmul[0] + g.badd[0];
            a_p1[i] = q1 * g.bmul[1] + g.badd[1];
            a_p2[i] = q2 * g.bmul[2] + g.badd[2];
            a_base[i] = nb * g.as[0] +
                        (g.strided ? 0 : a_p0[i] * g.as[2] + a_p1[i] * g.as[3] + a_p2[i] * g.as[4]);
        } else {
            a_p0[i] = SIMT_FAR, a_p1[i] = a_p2[i] = 0, a_base[i] = 0;
        }
    }
    /* B loader: one reduction lane, NB columns 32 apart (-1: past the GEMM's columns); the wide
     * tile's 64 columns x 8 lanes take two copies from each of 256 threads */
    const int b_lane = g.b_kcontig ? (tid & 7) : (tid >> 5);
    const int b_col = g.b_kcontig ? (tid >> 3) : (tid & 31);
    int b_base[NB];
#pragma unroll
    for (int i = 0; i < NB; i++) {
        const int col = n0 + b_col + 32 * i;
        b_base[i] = col < g.n ? col * g.bsn : -1;
    }
    int a_kk = a_lane, a_hi = a_lane / g.lo_n, a_lo = a_lane % g.lo_n;
    int b_kk = b_lane, b_hi = b_lane / g.lo_n, b_lo = b_lane % g.lo_n;
    float *const a_dst = &as[0][a_lane * LA + a_row];
    float *const b_dst = &bs[0][b_lane * LB + b_col];
    const int astage = SIMT_BK * LA, bstage = SIMT_BK * LB;

    /* the epilogue runs along the output's contiguous dimension: WM / 8 row quads, WN / 8
     * column quads */
    const int tx = tid % (WM / 8), ty = tid / (WM / 8);  /* along the rows */
    const int ux = tid % (WN / 8), uy = tid / (WN / 8);  /* along the columns */
    const int rm = g.out_mcontig ? tx : uy, cn = g.out_mcontig ? ty : ux;

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            acc[i][j] = 0.0f;

    __syncthreads(); /* the tap tables */
    const int ktiles = (g.kred + SIMT_BK - 1) / SIMT_BK;
    for (int s = 0; s < ST - 1; s++) {
        if (s < ktiles) {
            simt_load_a<NA>(g, tab, A, a_dst + s * astage, a_kk, a_hi, a_lo, a_base, a_p0, a_p1, a_p2);
            simt_load_b<NB>(g, wtab, B, b_dst + s * bstage, b_kk, b_hi, b_lo, b_base);
            SIMT_ADVANCE(a_kk, a_hi, a_lo);
            SIMT_ADVANCE(b_kk, b_hi, b_lo);
        }
        simt_commit();
    }
    for (int kt = 0; kt < ktiles; kt++) {
        SIMT_WAIT(ST - 2);
        __syncthreads(); /* tile kt landed for everyone; stage (kt - 1) % S is free */
        const int nxt = kt + ST - 1;
        if (nxt < ktiles) {
            const int st = nxt % ST;
            simt_load_a<NA>(g, tab, A, a_dst + st * astage, a_kk, a_hi, a_lo, a_base, a_p0, a_p1, a_p2);
            simt_load_b<NB>(g, wtab, B, b_dst + st * bstage, b_kk, b_hi, b_lo, b_base);
            SIMT_ADVANCE(a_kk, a_hi, a_lo);
            SIMT_ADVANCE(b_kk, b_hi, b_lo);
        }
        simt_commit();
        simt_fma_tile<LA, WM / 2, LB, WN / 2>(acc, as[kt % ST], bs[kt % ST], rm, cn);
    }
    SIMT_WAIT(0);

#pragma unroll
    for (int i = 0; i < 8; i++) {
        const int m = m0 + simt_quad<WM / 2>(rm, i);
        if (m >= g.m)
            continue;
        int r = m;
        const int q2 = r % g.sp[2];
        r /= g.sp[2];
        const int q1 = r % g.sp[1];
        r /= g.sp[1];
        const int q0 = r % g.sp[0];
        const int nb = r / g.sp[0];
        float *orow = out + (nb * g.os[0] + q0 * g.os[2] + q1 * g.os[3] + q2 * g.os[4]);
#pragma unroll
        for (int j = 0; j < 8; j++) {
            const int col = n0 + simt_quad<WN / 2>(cn, j);
            if (col < g.n)
                simt_blend(orow + col * g.os[1], alpha, beta, acc[i][j]);
        }
    }
}

/* ---- bwd filter: split-K over m --------------------------------------------------------- */

/* A position of the reduction index m = (n, o0, o1, o2), advanced SIMT_BK at a time. */
typedef struct {
    int m, nb, o0, o1, o2;
} simt_mpos_t;

static __device__ __forceinline__ void simt_mpos_init(simt_mpos_t &p, const simt_wgeom_t &g, int m)
{
    p.m = m;
    p.o2 = m % g.out[2];
    m /= g.out[2];
    p.o1 = m % g.out[1];
    m /= g.out[1];
    p.o0 = m % g.out[0];
    p.nb = m / g.out[0];
}

/* Every digit of the step is below its radix, so each level carries at most once. */
static __device__ __forceinline__ void simt_mpos_advance(simt_mpos_t &p, const simt_wgeom_t &g)
{
    p.m += SIMT_BK;
    p.o2 += g.adv[3];
    int c = p.o2 >= g.out[2];
    p.o2 -= c ? g.out[2] : 0;
    p.o1 += g.adv[2] + c;
    c = p.o1 >= g.out[1];
    p.o1 -= c ? g.out[1] : 0;
    p.o0 += g.adv[1] + c;
    c = p.o0 >= g.out[0];
    p.o0 -= c ? g.out[0] : 0;
    p.nb += g.adv[0] + c;
}

/* Filter column j -> channel c and memory taps f0, f1, f2. */
static __device__ __forceinline__ void simt_wcol(const simt_wgeom_t &g, int j, int &c, int &f0,
                                                 int &f1, int &f2)
{
    int f;
    if (g.chan_outer)
        c = j / g.ntaps, f = j % g.ntaps;
    else
        f = j / g.nch, c = j % g.nch;
    f2 = f % g.flt[2];
    f1 = (f / g.flt[2]) % g.flt[1];
    f0 = f / (g.flt[2] * g.flt[1]);
}

/* WK output channels x WJ filter columns per block, WK * WJ / 64 threads of 8 x 8 outputs:
 * 128 x 128 (256 threads), and for problems of few output channels 64 x 128 and 32 x 256 (128
 * threads), where the square tile left half or three quarters of its rows idle (DeepBench's
 * K = 32 layers at 0.14-0.33 of NVIDIA's time on the H100). Each thread copies one m lane of
 * 8 * WK / T channels and 8 * WJ / T filter columns per stage, T / 8 apart. */
template <int WK, int WJ>
static __global__ void __launch_bounds__(WK * WJ / 64, 2)
    conv_simt_wgrad(const simt_wgeom_t g, const float *__restrict__ x,
                    const float *__restrict__ dy, float *__restrict__ part, int split_len,
                    float *__restrict__ dw, double alpha, double beta, unsigned *ctr, int splits)
{
    constexpr int T = WK * WJ / 64, CS = T / 8, NA = WK / CS, NB = WJ / CS, LA = WK + 4,
                  LB = WJ + 4;
    __shared__ __align__(16) float as[SIMT_STAGES][SIMT_BK * LA];
    __shared__ __align__(16) float bs[SIMT_STAGES][SIMT_BK * LB];

    const int tid = threadIdx.x;
    const int j0 = blockIdx.x * WJ, k0 = blockIdx.y * WK;
    const int mbeg = blockIdx.z * split_len;
    const int mend = g.m - mbeg < split_len ? g.m : mbeg + split_len;

    /* A = dy: one m lane, NA output channels CS apart (-1: past K) */
    const int a_lane = g.a_mcontig ? (tid & 7) : (tid / CS);
    const int a_col = g.a_mcontig ? (tid >> 3) : (tid % CS);
    const int a_k = k0 + a_col; /* and a_k + CS, ... */
    /* B = x: one m lane, NB filter columns CS apart, each a channel and a dilated tap */
    const int b_lane = g.b_mcontig ? (tid & 7) : (tid / CS);
    const int b_col = g.b_mcontig ? (tid >> 3) : (tid % CS);
    int b_t0[NB], b_t1[NB], b_t2[NB], b_off[NB];
#pragma unroll
    for (int i = 0; i < NB; i++) {
        const int j = j0 + b_col + CS * i;
        if (j < g.j) {
            int c, f0, f1, f2;
            simt_wcol(g, j, c, f0, f1, f2);
            b_t0[i] = (g.cross ? f0 : g.flt[0] - 1 - f0) * g.dil[0];
            b_t1[i] = (g.cross ? f1 : g.flt[1] - 1 - f1) * g.dil[1];
            b_t2[i] = (g.cross ? f2 : g.flt[2] - 1 - f2) * g.dil[2];
            b_off[i] = c * g.xs[1] + b_t0[i] * g.xs[2] + b_t1[i] * g.xs[3] + b_t2[i] * g.xs[4];
        } else {
            b_t0[i] = SIMT_FAR, b_t1[i] = b_t2[i] = 0, b_off[i] = 0;
        }
    }
    simt_mpos_t pa, pb;
    simt_mpos_init(pa, g, mbeg + a_lane);
    simt_mpos_init(pb, g, mbeg + b_lane);
    float *const a_dst = &as[0][a_lane * LA + a_col];
    float *const b_dst = &bs[0][b_lane * LB + b_col];
    constexpr int astage = SIMT_BK * LA, bstage = SIMT_BK * LB;
    /* rows: output channels, columns: j (contiguous) */
    const int tx = tid % (WJ / 8), ty = tid / (WJ / 8);

#define SIMT_WLOAD(st)                                                                         \
    do {                                                                                       \
        const int va = pa.m < mend;                                                            \
        const int yb = pa.nb * g.ys[0] + pa.o0 * g.ys[2] + pa.o1 * g.ys[3] + pa.o2 * g.ys[4];  \
        _Pragma("unroll") for (int i = 0; i < NA; i++) {                                       \
            const int ok = va && a_k + CS * i < g.k;                                           \
            simt_cp4(a_dst + (st) * astage + CS * i,                                           \
                     ok ? dy + (yb + (a_k + CS * i) * g.ys[1]) : dy, ok);                      \
        }                                                                                      \
        const int vb = pb.m < mend;                                                            \
        const int h0 = pb.o0 * g.str[0] - g.pad[0], h1 = pb.o1 * g.str[1] - g.pad[1],         \
                  h2 = pb.o2 * g.str[2] - g.pad[2];                                            \
        const int xb = pb.nb * g.xs[0] + h0 * g.xs[2] + h1 * g.xs[3] + h2 * g.xs[4];          \
        _Pragma("unroll") for (int i = 0; i < NB; i++) {                                       \
            const int ok = vb && (unsigned)(h0 + b_t0[i]) < (unsigned)g.in[0] &&               \
                           (unsigned)(h1 + b_t1[i]) < (unsigned)g.in[1] &&                     \
                           (unsigned)(h2 + b_t2[i]) < (unsigned)g.in[2];                       \
            simt_cp4(b_dst + (st) * bstage + CS * i, ok ? x + (xb + b_off[i]) : x, ok);        \
        }                                                                                      \
        simt_mpos_advance(pa, g);                                                              \
        simt_mpos_advance(pb, g);                                                              \
    } while (0)

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            acc[i][j] = 0.0f;

    const int ktiles = (mend - mbeg + SIMT_BK - 1) / SIMT_BK;
    for (int s = 0; s < SIMT_STAGES - 1; s++) {
        if (s < ktiles)
            SIMT_WLOAD(s);
        simt_commit();
    }
    for (int kt = 0; kt < ktiles; kt++) {
        SIMT_WAIT(SIMT_STAGES - 2);
        __syncthreads();
        const int nxt = kt + SIMT_STAGES - 1;
        if (nxt < ktiles)
            SIMT_WLOAD(nxt % SIMT_STAGES);
        simt_commit();
        simt_fma_tile<LA, WK / 2, LB, WJ / 2>(acc, as[kt % SIMT_STAGES], bs[kt % SIMT_STAGES], ty,
                                              tx);
    }
    SIMT_WAIT(0);
#undef SIMT_WLOAD

#pragma unroll
    for (int i = 0; i < 8; i++) {
        const int k = k0 + simt_quad<WK / 2>(ty, i);
        if (k >= g.k)
            continue;
#pragma unroll
        for (int jj = 0; jj < 8; jj++) {
            const int j = j0 + simt_quad<WJ / 2>(tx, jj);
            if (j >= g.j)
                continue;
            if (g.direct) {
                int c, f0, f1, f2;
                simt_wcol(g, j, c, f0, f1, f2);
                simt_blend(dw + (k * g.ws[0] + c * g.ws[1] + f0 * g.ws[2] + f1 * g.ws[3] +
                                 f2 * g.ws[4]),
                           alpha, beta, acc[i][jj]);
            } else {
                part[((int64_t)blockIdx.z * g.k + k) * g.j + j] = acc[i][jj];
            }
        }
    }
    if (g.direct || ctr == nullptr)
        return; /* one split blended above, or conv_simt_wgrad_reduce runs next */
    /* one launch (splitk.cuh): the tile's last block sums its splits in order and blends */
    if (!fd_splitk_last_block(ctr + blockIdx.y * gridDim.x + blockIdx.x, splits, tid))
        return;
    const int k1 = k0 + WK < g.k ? k0 + WK : g.k;
    const int j1 = j0 + WJ < g.j ? j0 + WJ : g.j;
    const auto st = [&](int k, int64_t j, const float *v, int n) {
        for (int e = 0; e < n; e++) {
            int c, f0, f1, f2;
            simt_wcol(g, (int)j + e, c, f0, f1, f2);
            simt_blend(dw + (k * g.ws[0] + c * g.ws[1] + f0 * g.ws[2] + f1 * g.ws[3] +
                             f2 * g.ws[4]),
                       alpha, beta, v[e]);
        }
    };
    const int64_t zs = (int64_t)g.k * g.j;
    if (g.j % 4 == 0) /* float4 loads (the host checked the workspace's alignment) */
        fd_splitk_sum_tile<4>(part, splits, zs, g.j, k0, k1, j0, j1, tid, T,
                              [&](int k, int64_t j, const float *v) { st(k, j, v, 4); });
    else
        fd_splitk_sum_tile<1>(part, splits, zs, g.j, k0, k1, j0, j1, tid, T,
                              [&](int k, int64_t j, const float *v) { st(k, j, v, 1); });
}

/* dw[k, j] = alpha * (the splits summed in split order) + beta * dw[k, j]. */
static __global__ void conv_simt_wgrad_reduce(const simt_wgeom_t g, const float *__restrict__ part,
                                              int splits, float *__restrict__ dw, double alpha,
                                              double beta)
{
    const int64_t total = (int64_t)g.k * g.j;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        float sum = 0.0f;
        for (int z = 0; z < splits; z++)
            sum += part[(int64_t)z * total + e];
        const int k = (int)(e / g.j), j = (int)(e % g.j);
        int c, f0, f1, f2;
        simt_wcol(g, j, c, f0, f1, f2);
        simt_blend(dw + (k * g.ws[0] + c * g.ws[1] + f0 * g.ws[2] + f1 * g.ws[3] + f2 * g.ws[4]),
                   alpha, beta, sum);
    }
}

/* ---- host side: what the kernels take, their geometry ----------------------------------- */

static int64_t simt_abs(int64_t v)
{
    return v < 0 ? -v : v;
}

/* Largest |offset| the gathers of an activation tensor can form (positions may run past the
 * tensor by the padding and the filter's reach before the bounds test discards them). */
static int64_t simt_act_reach(const fd_conv_problem_t *p, const int64_t *st, int64_t nch)
{
    int64_t r = p->n * simt_abs(st[0]) + nch * simt_abs(st[1]);
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++)
        r += (p->in[d] + p->out[d] * p->stride[d] + p->pad[d] + p->flt[d] * p->dil[d]) *
             simt_abs(st[2 + d]);
    return r;
}

/* Checks shared by the three directions: FLOAT, one group, positions and offsets in range. */
static int simt_check(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    if (p->xdt != CUDNN_DATA_FLOAT || p->wdt != CUDNN_DATA_FLOAT || p->ydt != CUDNN_DATA_FLOAT ||
        p->compute != CUDNN_DATA_FLOAT) {
        snprintf(why, why_size, "x/w/y/compute are %s/%s/%s/%s; the FFMA kernels take FLOAT for all",
                 fd_dtype_name(p->xdt), fd_dtype_name(p->wdt), fd_dtype_name(p->ydt),
                 fd_dtype_name(p->compute));
        return 0;
    }
    if (p->groups != 1) {
        snprintf(why, why_size, "%lld groups; the FFMA kernels take 1", (long long)p->groups);
        return 0;
    }
    int64_t pos = 0, wreach = p->k * simt_abs(p->ws[0]) + p->c * simt_abs(p->ws[1]);
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++) {
        const int64_t v = p->out[d] * p->stride[d] + p->flt[d] * p->dil[d] + p->in[d] + p->pad[d];
        pos = v > pos ? v : pos;
        wreach += p->flt[d] * simt_abs(p->ws[2 + d]);
    }
    const int64_t m_out = p->n * p->out[0] * p->out[1] * p->out[2];
    const int64_t m_in = p->n * p->in[0] * p->in[1] * p->in[2];
    if (pos >= ((int64_t)1 << 28) || wreach >= SIMT_LIMIT || simt_act_reach(p, p->xs, p->c) >= SIMT_LIMIT ||
        simt_act_reach(p, p->ys, p->k) >= SIMT_LIMIT || m_out >= SIMT_LIMIT || m_in >= SIMT_LIMIT ||
        p->k * p->c * p->flt[0] * p->flt[1] * p->flt[2] >= SIMT_LIMIT) {
        snprintf(why, why_size, "a size or offset reaches the FFMA kernels' 32-bit index limit (2^30)");
        return 0;
    }
    return 1;
}

/* Stride of the innermost filter tap dim with more than one tap (0: a single tap). */
static int64_t simt_tap_inner_stride(const fd_conv_problem_t *p)
{
    for (int d = FD_CONV_SPATIAL_MAX - 1; d >= 0; d--)
        if (p->flt[d] > 1)
            return p->ws[2 + d];
    return 0;
}

static simt_geom_t simt_geom(const fd_conv_problem_t *p)
{
    simt_geom_t g;
    const int fwd = p->dir == FD_CONV_FWD;
    const int64_t *as = fwd ? p->xs : p->ys, *os = fwd ? p->ys : p->xs;
    const int64_t nch = fwd ? p->c : p->k, ncol = fwd ? p->k : p->c;
    const int64_t *msp = fwd ? p->out : p->in, *lim = fwd ? p->in : p->out;
    g.ntaps = (int)(p->flt[0] * p->flt[1] * p->flt[2]);
    g.nch = (int)nch;
    g.m = (int)(p->n * msp[0] * msp[1] * msp[2]);
    g.n = (int)ncol;
    g.kred = g.ntaps * g.nch;
    g.strided = 0;
    for (int d = 0; d < 3; d++) {
        g.sp[d] = (int)msp[d], g.lim[d] = (int)lim[d];
        g.bmul[d] = fwd ? (int)p->stride[d] : 1;
        g.badd[d] = (int)(fwd ? -p->pad[d] : p->pad[d]);
        g.gstr[d] = fwd ? 1 : (int)p->stride[d];
        g.strided |= g.gstr[d] > 1;
        g.flt[d] = (int)p->flt[d];
        g.tapd[d] = (int)(fwd ? p->dil[d] : -p->dil[d]);
        g.wst[d] = (int)p->ws[2 + d];
    }
    for (int d = 0; d < 5; d++)
        g.as[d] = (int)as[d], g.os[d] = os[d];
    g.bsn = (int)(fwd ? p->ws[0] : p->ws[1]);
    g.bsch = (int)(fwd ? p->ws[1] : p->ws[0]);
    g.cross = p->cross_correlation;
    /* the reduction runs in the filter's memory order, unless A is channel-contiguous */
    const int64_t tap_inner = simt_tap_inner_stride(p);
    const int filter_ch_first = g.ntaps > 1 && simt_abs(g.bsch) > simt_abs(tap_inner);
    g.chan_outer = filter_ch_first && g.as[1] != 1;
    g.lo_n = g.chan_outer ? g.ntaps : g.nch;
    g.adv_hi = SIMT_BK / g.lo_n;
    g.adv_lo = SIMT_BK % g.lo_n;
    g.a_kcontig = !g.chan_outer && g.as[1] == 1;
    const int64_t kk_inner = g.chan_outer ? tap_inner : g.bsch;
    g.b_kcontig = kk_inner == 1 || g.bsn != 1;
    g.out_mcontig = os[1] != 1;
    return g;
}

/* FREEDNN_SIMT_WGRAD_TILES=0 keeps the 128 x 128 backward filter tile for every problem (A/B);
 * read once. */
static int simt_wtiles_on(void)
{
    static const int on = fd_env_on("FREEDNN_SIMT_WGRAD_TILES");
    return on;
}

/* The backward filter tile: of 128 x 128, 64 x 128 and 32 x 256, the one whose tiles cover
 * K x J with the least padded area, the smaller tiles' area weighted by 1.1 and 1.2 for their
 * 1.5 and 2.25 times as many copies per FMA (ties: the larger tile). A function of the problem
 * only, so the splits, the workspace and the bits are too. */
static void simt_wtile(simt_wgeom_t *g)
{
    static const int wk[3] = {128, 64, 32}, wj[3] = {128, 128, 256};
    static const double weight[3] = {1.0, 1.1, 1.2};
    g->wk = 128, g->wj = 128;
    if (!simt_wtiles_on())
        return;
    double best = 0.0;
    for (int t = 0; t < 3; t++) {
        const int64_t rows = (g->k + wk[t] - 1) / wk[t], cols = (g->j + wj[t] - 1) / wj[t];
        if (rows > 65535)
            continue;
        const double area = weight[t] * (double)(rows * wk[t]) * (double)(cols * wj[t]);
        if (t == 0 || area < best) {
            best = area;
            g->wk = wk[t], g->wj = wj[t];
        }
    }
}

static simt_wgeom_t simt_wgeom(const fd_conv_problem_t *p)
{
    simt_wgeom_t g;
    g.ntaps = (int)(p->flt[0] * p->flt[1] * p->flt[2]);
    g.nch = (int)p->c;
    g.k = (int)p->k;
    g.j = g.ntaps * g.nch;
    g.m = (int)(p->n * p->out[0] * p->out[1] * p->out[2]);
    for (int d = 0; d < 3; d++) {
        g.out[d] = (int)p->out[d], g.in[d] = (int)p->in[d], g.str[d] = (int)p->stride[d];
        g.pad[d] = (int)p->pad[d], g.flt[d] = (int)p->flt[d], g.dil[d] = (int)p->dil[d];
    }
    for (int d = 0; d < 5; d++)
        g.xs[d] = (int)p->xs[d], g.ys[d] = (int)p->ys[d], g.ws[d] = p->ws[d];
    g.cross = p->cross_correlation;
    const int64_t tap_inner = simt_tap_inner_stride(p);
    /* j in the filter's memory order unless x is channel-contiguous (then the gather of x runs
     * along c; the order of j moves sums, never changes them) */
    g.chan_outer = g.ntaps > 1 && simt_abs(p->ws[1]) > simt_abs(tap_inner) && g.xs[1] != 1;
    /* SIMT_BK as digits of (n, o0, o1, o2) */
    int r = SIMT_BK;
    g.adv[3] = r % g.out[2];
    r /= g.out[2];
    g.adv[2] = r % g.out[1];
    r /= g.out[1];
    g.adv[1] = r % g.out[0];
    g.adv[0] = r / g.out[0];
    /* NCHW-like data runs along m (ow); channel-contiguous data along k / j */
    g.a_mcontig = g.ys[1] != 1;
    g.b_mcontig = g.xs[1] != 1;
    g.direct = 0;
    simt_wtile(&g);
    return g;
}

/* Splits of the m reduction: as many threads as two waves of two 256-thread blocks on a 132-SM
 * part (528 blocks of 128 x 128, 1056 of the 128-thread tiles, whose 168 / 203 registers hold
 * 3 / 2 blocks an SM), whatever the GPU (a fixed target keeps the workspace size and the bits
 * independent of the device), at least 16 reduction tiles per split, at most 128 splits. One
 * split needs no workspace. */
static void simt_wgrad_splits(const simt_wgeom_t *g, int *splits, int *split_len)
{
    const int64_t tiles = (int64_t)((g->k + g->wk - 1) / g->wk) * ((g->j + g->wj - 1) / g->wj);
    const int64_t target = (int64_t)528 * (128 * 128) / ((int64_t)g->wk * g->wj);
    int64_t s = (target + tiles - 1) / tiles;
    const int64_t max_by_len = ((int64_t)g->m + 16 * SIMT_BK - 1) / (16 * SIMT_BK);
    if (s > max_by_len)
        s = max_by_len;
    if (s > 128)
        s = 128;
    if (s < 1)
        s = 1;
    int64_t len = ((int64_t)g->m + s - 1) / s;
    len = (len + SIMT_BK - 1) / SIMT_BK * SIMT_BK;
    *split_len = (int)len;
    *splits = (int)(((int64_t)g->m + len - 1) / len);
}

static size_t simt_wgrad_ws(const simt_wgeom_t *g)
{
    int splits, len;
    simt_wgrad_splits(g, &splits, &len);
    return splits > 1 ? (size_t)splits * (size_t)g->k * (size_t)g->j * sizeof(float) : 0;
}

/* -- forward and backward data -- */

static int simt_gather_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    if (!simt_check(p, why, why_size))
        return 0;
    const int64_t taps = p->flt[0] * p->flt[1] * p->flt[2];
    if (taps > SIMT_MAX_TAPS) {
        snprintf(why, why_size, "%lld filter taps; the FFMA kernels' tap table holds %d",
                 (long long)taps, SIMT_MAX_TAPS);
        return 0;
    }
    const int64_t cols = p->dir == FD_CONV_FWD ? p->k : p->c;
    if ((cols + SIMT_BN - 1) / SIMT_BN > 65535) {
        snprintf(why, why_size, "%lld GEMM columns exceed the grid's 65535 tiles", (long long)cols);
        return 0;
    }
    return 1;
}

/* FREEDNN_SIMT_WIDE=0 keeps the 128 x 128 tile for every gather problem (A/B); read once. */
static int simt_wide_on(void)
{
    static const int on = fd_env_on("FREEDNN_SIMT_WIDE");
    return on;
}

static cudnnStatus_t simt_gather_run(const fd_conv_problem_t *p, const float *A, const float *B,
                                     const fd_conv_args_t *a)
{
    const simt_geom_t g = simt_geom(p);
    /* the wide tile halves the blocks: only where it still fills two waves of one block per SM
     * on 132 SMs (DeepBench's 1x1 stride-2 backward data at N = 8 / 16, 49 wide blocks a class,
     * ran 9-14 % slower wide); either tile gives the same bits (one thread sums each output in
     * the same order), so the rule only moves time */
    const int wide = g.n <= 64 && (g.m + 255) / 256 >= 264 && simt_wide_on();
    const int wm = wide ? 256 : SIMT_BM, wn = wide ? 64 : SIMT_BN;
    const dim3 grid((unsigned)((g.m + wm - 1) / wm), (unsigned)((g.n + wn - 1) / wn));
    cudaStream_t s = a->handle->stream;
    static void *fc[FD_CUDA_FCACHE], *fcw[FD_CUDA_FCACHE];
    const cudaError_t le =
        wide ? fd_cuda_launch_k(conv_simt_gather<256>, fcw, grid, dim3(SIMT_THREADS), 0, s, g, A, B, (float *)a->out,
                                a->alpha, a->beta)
             : fd_cuda_launch_k(conv_simt_gather<128>, fc, grid, dim3(SIMT_THREADS), 0, s, g, A, B, (float *)a->out,
                                a->alpha, a->beta);
    FD_CUDA_LAUNCHED_AS(le, "conv_simt_gather %s, %d x %d tiles (grid %u x %u, stream %p)",
                        p->dir == FD_CONV_FWD ? "fwd" : "bwd data", wm, wn, grid.x, grid.y, (void *)s);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_conv_fwd_simt_igemm_applicable(const fd_conv_problem_t *p, char *why,
                                                 size_t why_size)
{
    return simt_gather_applicable(p, why, why_size);
}

extern "C" size_t fd_conv_fwd_simt_igemm_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}

extern "C" cudnnStatus_t fd_conv_fwd_simt_igemm_run(const fd_conv_problem_t *p,
                                                    const fd_conv_args_t *a)
{
    return simt_gather_run(p, (const float *)a->x, (const float *)a->w, a);
}

/* Backward data's GEMM columns are C: below SIMT_MIN_DGRAD_C a 128-wide tile is mostly idle
 * (H200, ResNet-50 stem C = 3, N = 32: 48.7 ms here against 4.35 ms on the naive kernel;
 * docs/perf/gpu-table-2026-11-30.md), so those problems go to fd_conv_bwd_data_simt_smallc
 * below, or to the naive kernel where that row declines. */
#define SIMT_MIN_DGRAD_C 16

extern "C" int fd_conv_bwd_data_simt_igemm_applicable(const fd_conv_problem_t *p, char *why,
                                                      size_t why_size)
{
    if (p->c < SIMT_MIN_DGRAD_C) {
        snprintf(why, why_size, "C = %lld: below %d channels the naive kernel serves backward data faster",
                 (long long)p->c, SIMT_MIN_DGRAD_C);
        return 0;
    }
    return simt_gather_applicable(p, why, why_size);
}

extern "C" size_t fd_conv_bwd_data_simt_igemm_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}

extern "C" cudnnStatus_t fd_conv_bwd_data_simt_igemm_run(const fd_conv_problem_t *p,
                                                         const fd_conv_args_t *a)
{
    return simt_gather_run(p, (const float *)a->y, (const float *)a->w, a);
}

/* -- backward filter -- */

extern "C" int fd_conv_bwd_filter_simt_igemm_applicable(const fd_conv_problem_t *p, char *why,
                                                        size_t why_size)
{
    if (!simt_check(p, why, why_size))
        return 0;
    if ((p->k + SIMT_BM - 1) / SIMT_BM > 65535) {
        snprintf(why, why_size, "K = %lld exceeds the grid's 65535 row tiles", (long long)p->k);
        return 0;
    }
    return 1;
}

extern "C" size_t fd_conv_bwd_filter_simt_igemm_workspace(const fd_conv_problem_t *p)
{
    const simt_wgeom_t g = simt_wgeom(p);
    return simt_wgrad_ws(&g);
}

extern "C" cudnnStatus_t fd_conv_bwd_filter_simt_igemm_run(const fd_conv_problem_t *p,
                                                           const fd_conv_args_t *a)
{
    simt_wgeom_t g = simt_wgeom(p);
    int splits, len;
    simt_wgrad_splits(&g, &splits, &len);
    const size_t need = simt_wgrad_ws(&g);
    FD_CHECK(a->workspace_size >= need, CUDNN_STATUS_BAD_PARAM,
             "workspace of %zu bytes; the FFMA backward filter needs %zu", a->workspace_size, need);
    g.direct = splits == 1;
    const dim3 grid((unsigned)((g.j + g.wj - 1) / g.wj), (unsigned)((g.k + g.wk - 1) / g.wk),
                    (unsigned)splits);
    cudaStream_t s = a->handle->stream;
    float *part = (float *)a->workspace, *dw = (float *)a->out;
    /* partials of 4-byte columns not a multiple of 4 are summed one float at a time: a quarter
     * of the loads in flight, so a quarter of the byte rule's partials (splitk.cuh) */
    unsigned *ctr = g.direct ? NULL
                             : fd_cuda_splitk_counters(a->handle, (int64_t)grid.x * grid.y, splits,
                                                       (size_t)g.wk * g.wj * sizeof(float) *
                                                           (g.j % 4 == 0 ? 1 : 4),
                                                       part);
    static void *fc[FD_CUDA_FCACHE], *fc64[FD_CUDA_FCACHE], *fc32[FD_CUDA_FCACHE];
    const float *x = (const float *)a->x, *dy = (const float *)a->y;
    const unsigned nt = (unsigned)(g.wk * g.wj / 64);
    const cudaError_t le =
        g.wk == 32   ? fd_cuda_launch_k(conv_simt_wgrad<32, 256>, fc32, grid, dim3(nt), 0, s, g, x,
                                        dy, part, len, dw, a->alpha, a->beta, ctr, splits)
        : g.wk == 64 ? fd_cuda_launch_k(conv_simt_wgrad<64, 128>, fc64, grid, dim3(nt), 0, s, g, x,
                                        dy, part, len, dw, a->alpha, a->beta, ctr, splits)
                     : fd_cuda_launch_k(conv_simt_wgrad<128, 128>, fc, grid, dim3(nt), 0, s, g, x,
                                        dy, part, len, dw, a->alpha, a->beta, ctr, splits);
    FD_CUDA_LAUNCHED_AS(le, "conv_simt_wgrad %d x %d (grid %u x %u x %u, %s, stream %p)", g.wk,
                        g.wj, grid.x, grid.y, grid.z,
                        g.direct ? "one split" : ctr != NULL ? "one launch" : "reduce kernel",
                        (void *)s);
    if (!g.direct && ctr == NULL) {
        const unsigned rblocks = fd_cuda_blocks((int64_t)g.k * g.j, FD_CUDA_BLOCK);
        conv_simt_wgrad_reduce<<<rblocks, FD_CUDA_BLOCK, 0, s>>>(g, part, splits, dw, a->alpha,
                                                                 a->beta);
        FD_CUDA_LAUNCHED("conv_simt_wgrad_reduce (%u blocks, %d splits)", rblocks, splits);
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- backward data for few channels (C < SIMT_MIN_DGRAD_C): direct, per residue class ----- *
 *
 * Row fd_conv_bwd_data_simt_smallc, BWD_DATA ALGO_0 and ALGO_1, no workspace: FLOAT, 2-d (or
 * 1-d), one group, dilation 1, 1 <= C < 16. Backward data's GEMM has C columns, so a 128-wide
 * tile leaves most FMAs idle; here every thread owns SD_PX consecutive dx positions of one row
 * and residue class and CT channels, and the block a tile of SD_TH x SD_TW of them.
 *
 * Residue classes (as conv_tc_dgrad.cu, but inside one launch): dx positions i = r + s i' of
 * residue r (per dim) receive only the taps t = t0 + s j with t0 = (r + pad) mod s, from dy at
 * o = i' + pad' - j with pad' = (r + pad - t0) / s, j < R' = ceil((R - t0) / s). Per class this
 * is a dense stride-1 correlation of R' x S' taps: no divisibility test, no zero products.
 * Blocks enumerate (image, tile row, tile column, class, channel group), class and group fastest,
 * so the blocks reading one dy region run together and share it in L2.
 *
 * Per stage of SD_KC channels of dy: the dy rows the tile reads (SD_TH + R' - 1 of SD_TW + S' - 1
 * columns, zero outside dy), row pitch = 4 mod 8 floats, and the class's filter taps as
 * [k][j][S' in reverse, padded to 4][channel, padded to CP], both by 4-byte cp.async, two stages
 * in flight. A thread takes the taps of a filter row four at a time: its window of dy is 8 + 3
 * consecutive floats (three 16-byte loads; a quarter warp is 4 column groups of 8 floats in two
 * rows, pitch 4 mod 8: no bank conflict) and the taps' weights one 16-byte broadcast per tap
 * (CT = 3, 4) or per 4 taps (CT = 1); 4 x 8 x CT FMAs. C > 4 runs ceil(C / 4) channel groups of
 * CT = ceil(C / groups) channels; lanes of a group past C carry zero weights and are not stored.
 *
 * Padding: positions outside dy are staged as zeros, so a non-finite weight next to the border
 * gives NaN where ref skips the tap (as the other FFMA and tensor-core rows). Accumulation in
 * float, in a fixed order; the blend as simt_blend: integer-exact problems give ref's bits, and
 * the result does not depend on the launch. ptxas (nvcc 13, -O3), registers for CT = 1 / 2 /
 * 3 / 4, 0 spills: sm_90 78 / 77 / 95 / 96, sm_80 76 / 75 / 94 / 96; __launch_bounds__(128, 4),
 * so four blocks of two 47 KiB stages (the stem) share an SM. H100, the ResNet-50 stem at N =
 * 256: 3.10 ms against NVIDIA's 4.10 (docs/perf/gpu-conv-2026-12-06b-h100.md).
 */
#define SD_TH 16
#define SD_TW 64
#define SD_PX 8
#define SD_THREADS 128
#define SD_KC 4
#define SD_TBL 512                   /* R' * S'pad * CP entries of the filter table */
#define SD_SMEM (96 * 1024)          /* dynamic shared memory: two stages of dy and filter */

typedef struct {
    int n, c, k, h, w, p, q;
    int r, s, pad_h, pad_w, str_h, str_w, cross;
    int ncg, ncls, tiles_h, tiles_w; /* channel groups, classes, tiles of the largest class */
    int pitch, stage_dy, stage_w;    /* floats: a staged dy row, one stage of dy, of filter */
    int vec;                         /* dy rows staged in 16-byte copies (see sd_cols) */
    int xs[5], ys[5], ws[5];
} sd_geom_t;

/* acc[px][c] += sum over NT taps u of window[px + u] * wt[u * CP + c]; the window starts at
 * drow (16-byte aligned), the taps' weights at wrow (16-byte aligned, zero past the real taps). */
template <int CT, int NT>
static __device__ __forceinline__ void sd_taps(float (*acc)[CT], const float *drow, const float *wrow)
{
    enum { CP = CT == 3 ? 4 : CT, NV = (SD_PX + NT - 1 + 3) / 4, NW = (NT * CP + 3) / 4 };
    float d[NV * 4], wt[NW * 4];
#pragma unroll
    for (int v = 0; v < NV; v++) {
        const float4 t = *(const float4 *)(drow + 4 * v);
        d[4 * v] = t.x, d[4 * v + 1] = t.y, d[4 * v + 2] = t.z, d[4 * v + 3] = t.w;
    }
#pragma unroll
    for (int v = 0; v < NW; v++) {
        const float4 t = *(const float4 *)(wrow + 4 * v);
        wt[4 * v] = t.x, wt[4 * v + 1] = t.y, wt[4 * v + 2] = t.z, wt[4 * v + 3] = t.w;
    }
#pragma unroll
    for (int u = 0; u < NT; u++)
#pragma unroll
        for (int px = 0; px < SD_PX; px++)
#pragma unroll
            for (int c = 0; c < CT; c++)
                acc[px][c] = fmaf(d[px + u], wt[u * CP + c], acc[px][c]);
}

/* A lane's staged dy columns and their offsets in a dy row, the same for every row and stage of
 * a block, so the loader forms only a row offset per row. 4-byte copies: columns lane + 32 i (i <
 * SD_LCOLS, SD_LCOLS * 32 >= the row pitch), bit i of ok: inside dy and the tile. 16-byte copies
 * (g.vec: dy rows contiguous, 16-byte aligned, and the tile's first staged column a multiple of 4,
 * see the kernel): columns 4 lane .. 4 lane + 3, bytes[0] of them inside dy (a chunk crossing the
 * row's end is zero-filled past it), 0 past the pitch. */
#define SD_LCOLS 4
typedef struct {
    int off[SD_LCOLS];
    unsigned ok;
} sd_cols_t;

static __device__ __forceinline__ sd_cols_t sd_cols(const sd_geom_t &g, int wcols, int ocol0, int lane)
{
    sd_cols_t c;
    c.ok = 0;
    if (g.vec) {
        const int col = 4 * lane, oc = ocol0 + col;
        const int in = col < g.pitch && oc >= 0 && oc < g.q;
        c.off[0] = in ? oc : 0;
        c.ok = in ? 4 * min(g.q - oc, 4) : 0;
        return c;
    }
#pragma unroll
    for (int i = 0; i < SD_LCOLS; i++) {
        const int col = lane + 32 * i, oc = ocol0 + col;
        const int in = col < wcols && oc >= 0 && oc < g.q;
        c.off[i] = in ? oc * g.ys[4] : 0;
        c.ok |= (unsigned)in << i;
    }
    return c;
}

/* cp.async of 16 bytes with `bytes` of them read (the rest zero-filled). The loader passes
 * shared-window addresses formed once per block (simt_cp4s): through simt_cp4's generic
 * pointer the conversion was redone for every copy. */
static __device__ __forceinline__ void sd_cp16(uint32_t s, const float *gmem, unsigned bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(bytes));
}

/* One stage: dy channels k0 .. k0 + SD_KC - 1 of the tile's rows (a warp per row, lanes along
 * the columns, zeros outside dy and (4-byte copies) past the row's wcols, up to the pitch) and
 * their filter taps by the table. */
static __device__ __forceinline__ void sd_stage(const sd_geom_t &g, const float *dyn, const float *w,
                                                const int *tbl, int tn, uint32_t sdy, uint32_t sw, int k0,
                                                int rows, int orow0, const sd_cols_t &cols)
{
    const int tid = threadIdx.x, lane = tid & 31;
    int kc = 0, row = tid >> 5; /* rows >= SD_TH > the warps: the first row is in stage 0 */
    for (int pr = row; pr < SD_KC * rows; pr += SD_THREADS / 32) {
        const int k = k0 + kc, o = orow0 + row;
        const int rok = k < g.k && o >= 0 && o < g.p;
        const unsigned ok = rok ? cols.ok : 0u;
        /* one int offset per copy (inside the image: |offset| < 2^30), one widening add */
        const int ro = rok ? k * g.ys[1] + o * g.ys[3] : 0;
        if (g.vec) {
            if (4 * lane < g.pitch)
                sd_cp16(sdy + 4u * (uint32_t)(pr * g.pitch + 4 * lane), dyn + (ro + cols.off[0]), ok);
        } else {
            const uint32_t dst = sdy + 4u * (uint32_t)(pr * g.pitch + lane);
#pragma unroll
            for (int i = 0; i < SD_LCOLS; i++)
                if (lane + 32 * i < g.pitch)
                    simt_cp4s(dst + 128u * i, dyn + (ro + cols.off[i]), (int)(ok >> i & 1u));
        }
        row += SD_THREADS / 32;
        if (row >= rows)
            row -= rows, kc++;
    }
    for (int e = tid; e < SD_KC * tn; e += SD_THREADS) {
        const int kc = e / tn, off = tbl[e - kc * tn], k = k0 + kc;
        const int ok = k < g.k && off >= 0;
        simt_cp4s(sw + 4u * (uint32_t)e, ok ? w + k * g.ws[0] + off : w, ok);
    }
}

template <int CT>
static __global__ void __launch_bounds__(SD_THREADS, 4)
conv_simt_dgrad_smallc(const __grid_constant__ sd_geom_t g, const float *__restrict__ dy,
                       const float *__restrict__ w, float *__restrict__ dx, double alpha, double beta)
{
    enum { CP = CT == 3 ? 4 : CT };
    extern __shared__ __align__(16) float sd_smem[];
    __shared__ int tbl[SD_TBL];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    int64_t b = blockIdx.x;
    const int cg = (int)(b % g.ncg);
    b /= g.ncg;
    const int cls = (int)(b % g.ncls);
    b /= g.ncls;
    const int tw = (int)(b % g.tiles_w);
    b /= g.tiles_w;
    const int th = (int)(b % g.tiles_h);
    const int n = (int)(b / g.tiles_h);
    const int rh = cls / g.str_w, rw = cls - rh * g.str_w;
    /* this class: first taps, tap counts, offsets and extent */
    const int t0h = (rh + g.pad_h) % g.str_h, t0w = (rw + g.pad_w) % g.str_w;
    const int rr = t0h < g.r ? (g.r - t0h + g.str_h - 1) / g.str_h : 0;
    const int rs = t0w < g.s ? (g.s - t0w + g.str_w - 1) / g.str_w : 0;
    const int hc = (g.h - rh + g.str_h - 1) / g.str_h, wc = (g.w - rw + g.str_w - 1) / g.str_w;
    /* the class's first dy column of tile column 0 is cbase: with 16-byte copies the tiles start
     * sh columns early, so that every tile's first staged column is a multiple of 4 */
    const int cbase = (rw + g.pad_w - t0w) / g.str_w - (rs - 1);
    const int sh = g.vec ? cbase & 3 : 0;
    const int i0 = th * SD_TH, j0 = tw * SD_TW - sh;
    if (i0 >= hc || j0 >= wc)
        return; /* a smaller class than the grid's largest */
    const int c0 = cg * CT;
    const int cx = (warp & 1) * 4 + (lane & 3), ry = (warp >> 1) * 8 + (lane >> 2);
    float acc[SD_PX][CT];
#pragma unroll
    for (int px = 0; px < SD_PX; px++)
#pragma unroll
        for (int c = 0; c < CT; c++)
            acc[px][c] = 0.0f;

    if (rr > 0 && rs > 0) {
        const int sp = (rs + 3) & ~3, tn = rr * sp * CP;
        for (int e = tid; e < tn; e += SD_THREADS) {
            const int cc = e % CP, sidx = e / CP % sp, j = e / (CP * sp);
            int off = -1;
            if (sidx < rs && cc < CT && c0 + cc < g.c) {
                const int tr = t0h + g.str_h * j, ts = t0w + g.str_w * (rs - 1 - sidx);
                const int mr = g.cross ? tr : g.r - 1 - tr, ms = g.cross ? ts : g.s - 1 - ts;
                off = (c0 + cc) * g.ws[1] + mr * g.ws[3] + ms * g.ws[4];
            }
            tbl[e] = off;
        }
        __syncthreads();
        const int rows = SD_TH + rr - 1, wcols = SD_TW + rs - 1;
        const int orow0 = i0 + (rh + g.pad_h - t0h) / g.str_h - (rr - 1);
        const int ocol0 = j0 + cbase;
        const float *dyn = dy + (int64_t)n * g.ys[0];
        float *sdy = sd_smem, *sw = sd_smem + 2 * g.stage_dy;
        const int nst = (g.k + SD_KC - 1) / SD_KC, full = rs & ~3, tail = rs & 3;
        const sd_cols_t cols = sd_cols(g, wcols, ocol0, lane);
        const uint32_t sdy_s = (uint32_t)__cvta_generic_to_shared(sdy), sw_s = (uint32_t)__cvta_generic_to_shared(sw);
        sd_stage(g, dyn, w, tbl, tn, sdy_s, sw_s, 0, rows, orow0, cols);
        simt_commit();
        for (int st = 0; st < nst; st++) {
            const int cur = st & 1;
            if (st + 1 < nst) {
                sd_stage(g, dyn, w, tbl, tn, sdy_s + 4u * (uint32_t)((cur ^ 1) * g.stage_dy),
                         sw_s + 4u * (uint32_t)((cur ^ 1) * g.stage_w), (st + 1) * SD_KC, rows, orow0, cols);
                simt_commit();
                SIMT_WAIT(1);
            } else {
                SIMT_WAIT(0);
            }
            __syncthreads();
            const float *sd = sdy + cur * g.stage_dy + (ry + rr - 1) * g.pitch + cx * SD_PX;
            const float *swc = sw + cur * g.stage_w;
            for (int kc = 0; kc < SD_KC; kc++)
                for (int j = 0; j < rr; j++) {
                    const float *drow = sd + (kc * rows - j) * g.pitch;
                    const float *wrow = swc + kc * tn + j * sp * CP;
                    for (int u = 0; u < full; u += 4)
                        sd_taps<CT, 4>(acc, drow + u, wrow + u * CP);
                    if (tail == 3)
                        sd_taps<CT, 3>(acc, drow + full, wrow + full * CP);
                    else if (tail == 2)
                        sd_taps<CT, 2>(acc, drow + full, wrow + full * CP);
                    else if (tail == 1)
                        sd_taps<CT, 1>(acc, drow + full, wrow + full * CP);
                }
            __syncthreads();
        }
    }

    const int i = i0 + ry;
    if (i >= hc)
        return;
    float *dxr = dx + (int64_t)n * g.xs[0] + (rh + g.str_h * i) * g.xs[3];
#pragma unroll
    for (int px = 0; px < SD_PX; px++) {
        const int jj = j0 + cx * SD_PX + px;
        if (jj >= wc)
            break;
        if (jj < 0)
            continue;
#pragma unroll
        for (int c = 0; c < CT; c++)
            if (c0 + c < g.c)
                simt_blend(dxr + (rw + g.str_w * jj) * g.xs[4] + (c0 + c) * g.xs[1], alpha, beta, acc[px][c]);
    }
}

/* Channels per block: groups of at most 4, as even as they come (C = 5: 3 + 2, C = 7: 4 + 3). */
static int sd_ct(int64_t c)
{
    const int64_t groups = (c + 3) / 4;
    return (int)((c + groups - 1) / groups);
}

static size_t sd_smem_bytes(const sd_geom_t *g)
{
    return 2 * ((size_t)g->stage_dy + (size_t)g->stage_w) * sizeof(float);
}

/* Tile columns of the largest class: wc class positions, the tiles starting up to 3 columns
 * early with 16-byte copies (the kernel's sh). */
static int sd_tiles_w(int wc, int vec)
{
    return (wc + (vec ? 3 : 0) + SD_TW - 1) / SD_TW;
}

/* The launch geometry; 0 when the problem needs more shared memory than SD_SMEM or a longer
 * filter table than SD_TBL (why says which). */
static int sd_geom(const fd_conv_problem_t *p, sd_geom_t *g, char *why, size_t why_size)
{
    g->n = (int)p->n, g->c = (int)p->c, g->k = (int)p->k;
    g->h = (int)p->in[1], g->w = (int)p->in[2], g->p = (int)p->out[1], g->q = (int)p->out[2];
    g->r = (int)p->flt[1], g->s = (int)p->flt[2];
    g->pad_h = (int)p->pad[1], g->pad_w = (int)p->pad[2];
    g->str_h = (int)p->stride[1], g->str_w = (int)p->stride[2];
    g->cross = p->cross_correlation;
    const int ct = sd_ct(p->c), cp = ct == 3 ? 4 : ct;
    g->ncg = (int)((p->c + ct - 1) / ct);
    g->ncls = g->str_h * g->str_w;
    /* the largest class: residue 0's extent, ceil(R / s) x ceil(S / s) taps */
    const int hc = (g->h + g->str_h - 1) / g->str_h, wc = (g->w + g->str_w - 1) / g->str_w;
    g->tiles_h = (hc + SD_TH - 1) / SD_TH;
    /* 16-byte copies: dy rows contiguous and every row start a multiple of 4 floats (the pointer's
     * alignment is checked per call); their tiles start up to 3 columns early (the kernel's sh) */
    g->vec = p->ys[4] == 1 && (p->n == 1 || p->ys[0] % 4 == 0) && (p->k == 1 || p->ys[1] % 4 == 0) &&
             (p->out[1] == 1 || p->ys[3] % 4 == 0);
    g->tiles_w = sd_tiles_w(wc, g->vec);
    const int rmax = (g->r + g->str_h - 1) / g->str_h, smax = (g->s + g->str_w - 1) / g->str_w;
    const int spmax = (smax + 3) & ~3;
    /* a window's 16-byte loads reach column 8 * 7 + S' - NT + 11 (NT = S' mod 4 = 2 at most:
     * SD_TW + S' + 1); the loader zero-fills the columns past SD_TW + S' - 1 */
    int pitch = (SD_TW + smax + 2 + 3) & ~3;
    if (pitch % 8 == 0)
        pitch += 4;
    g->pitch = pitch;
    g->stage_dy = SD_KC * (SD_TH + rmax - 1) * pitch;
    g->stage_w = SD_KC * rmax * spmax * cp;
    const int64_t tbl = (int64_t)rmax * spmax * cp;
    const size_t bytes = sd_smem_bytes(g);
    for (int d = 0; d < 5; d++)
        g->xs[d] = (int)p->xs[d], g->ys[d] = (int)p->ys[d], g->ws[d] = (int)p->ws[d];
    if (tbl > SD_TBL || bytes > SD_SMEM || pitch > 32 * SD_LCOLS) {
        snprintf(why, why_size, "%d x %d taps per residue class (%lld table entries, %zu bytes of "
                 "shared memory, staged rows of %d floats); the few-channel backward data takes %d "
                 "entries, %d bytes and rows of %d", rmax, smax, (long long)tbl, bytes, pitch, SD_TBL,
                 SD_SMEM, 32 * SD_LCOLS);
        return 0;
    }
    return 1;
}

extern "C" int fd_conv_bwd_data_simt_smallc_applicable(const fd_conv_problem_t *p, char *why,
                                                       size_t why_size)
{
    if (!simt_check(p, why, why_size))
        return 0;
    if (p->c >= SIMT_MIN_DGRAD_C) {
        snprintf(why, why_size, "C = %lld; the few-channel backward data takes C < %d (the GEMM row the rest)",
                 (long long)p->c, SIMT_MIN_DGRAD_C);
        return 0;
    }
    if (p->in[0] != 1 || p->out[0] != 1 || p->flt[0] != 1 || p->pad[0] != 0) {
        snprintf(why, why_size, "a 3-d problem; the few-channel backward data takes 1-d and 2-d");
        return 0;
    }
    if (p->dil[1] != 1 || p->dil[2] != 1) {
        snprintf(why, why_size, "dilation %lld x %lld; the few-channel backward data takes 1",
                 (long long)p->dil[1], (long long)p->dil[2]);
        return 0;
    }
    sd_geom_t g;
    if (!sd_geom(p, &g, why, why_size))
        return 0;
    const int64_t blocks = (int64_t)g.n * g.tiles_h * g.tiles_w * g.ncls * g.ncg;
    if (blocks >= 0x7fffffff) {
        snprintf(why, why_size, "%lld blocks; the few-channel backward data's grid holds 2^31 - 1",
                 (long long)blocks);
        return 0;
    }
    return 1;
}

extern "C" size_t fd_conv_bwd_data_simt_smallc_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}

#define SD_MAX_DEV 64

/* The kernel's dynamic shared-memory limit raised to SD_SMEM, once per device. */
template <int CT> static cudnnStatus_t sd_prepare(void)
{
    static int done[SD_MAX_DEV];
    int dev = -1;
    FD_CUDA_CHECK(cudaGetDevice(&dev), "cudaGetDevice for the few-channel backward data");
    const int cached = dev >= 0 && dev < SD_MAX_DEV;
    if (cached && __atomic_load_n(&done[dev], __ATOMIC_ACQUIRE))
        return CUDNN_STATUS_SUCCESS;
    FD_CUDA_CHECK(cudaFuncSetAttribute(conv_simt_dgrad_smallc<CT>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       SD_SMEM),
                  "cudaFuncSetAttribute(%d bytes of dynamic shared memory) for the few-channel "
                  "backward data, %d channels per block", SD_SMEM, CT);
    if (cached)
        __atomic_store_n(&done[dev], 1, __ATOMIC_RELEASE);
    return CUDNN_STATUS_SUCCESS;
}

template <int CT> static cudnnStatus_t sd_launch(const sd_geom_t &g, const fd_conv_args_t *a)
{
    const cudnnStatus_t st = sd_prepare<CT>();
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    const unsigned blocks = (unsigned)((int64_t)g.n * g.tiles_h * g.tiles_w * g.ncls * g.ncg);
    const unsigned smem = (unsigned)sd_smem_bytes(&g);
    cudaStream_t s = a->handle->stream;
    static void *fc[FD_CUDA_FCACHE];
    const cudaError_t le = fd_cuda_launch_k(conv_simt_dgrad_smallc<CT>, fc, dim3(blocks), dim3(SD_THREADS), smem,
                                            s, g, (const float *)a->y, (const float *)a->w, (float *)a->out,
                                            a->alpha, a->beta);
    FD_CUDA_LAUNCHED_AS(le, "conv_simt_dgrad_smallc, %d channels per block (%u blocks, %u bytes of shared "
                        "memory, stream %p)", CT, blocks, smem, (void *)s);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" cudnnStatus_t fd_conv_bwd_data_simt_smallc_run(const fd_conv_problem_t *p,
                                                          const fd_conv_args_t *a)
{
    sd_geom_t g;
    char why[256];
    FD_CHECK(sd_geom(p, &g, why, sizeof why), CUDNN_STATUS_NOT_SUPPORTED, "%s", why);
    if (g.vec && (uintptr_t)a->y % 16 != 0) {
        g.vec = 0;
        g.tiles_w = sd_tiles_w((g.w + g.str_w - 1) / g.str_w, 0);
    }
    switch (sd_ct(p->c)) {
    case 1:
        return sd_launch<1>(g, a);
    case 2:
        return sd_launch<2>(g, a);
    case 3:
        return sd_launch<3>(g, a);
    default:
        return sd_launch<4>(g, a);
    }
}
