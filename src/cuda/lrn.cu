/* SPDX-License-Identifier: MIT */
/*
 * lrn.cu - cross-channel LRN and divisive normalization on the GPU, forward and backward (rows
 * fd_lrn_{fwd,bwd}_cuda, fd_divnorm_{fwd,bwd}_cuda): the formulas of src/core/lrn.h, 4-d and
 * 5-d, any non-negative strides, means or none, dMeans or none; FLOAT, DOUBLE, HALF, BFLOAT16
 * with float accumulation (double for DOUBLE). No workspace; deterministic.
 *
 * One thread per output element; every window sum is recomputed from the inputs (the cost is
 * n terms per element for LRN forward, n^2 for its backward and n^d resp. n^2d for divisive
 * normalization, with n <= CUDNN_LRN_MAX_N; the repeated loads hit L1). Threads walk C
 * innermost when the output's C stride is below its last spatial stride (channels-last), the
 * spatial position innermost otherwise: coalesced in NCHW and NHWC. Divisive normalization
 * uses its temp / temp2 scratch only when dx or y aliases an input (exact in place): the input
 * is first copied there, as src/ref does on every call.
 *
 * LRN forward with the spatial position innermost (NCHW) and a window n of 1, 2, 3, 5, 7, 9, 11
 * or 16 (FLOAT, HALF, BFLOAT16) takes lrn_fwd_col instead: a thread per (n, spatial) column
 * walking the channels with the window in registers, each x read once; the same sums in the
 * same order, so the same bits as lrn_fwd (the per-element kernel read each x n times, with
 * the channel stride of H * W between a window's loads: 0.28x NVIDIA's rate on the H200). Its
 * loads run one 8-channel batch ahead of the arithmetic (0.81x with loads and arithmetic in
 * turn), and alpha 1, beta 0 stores without the double blend (same bits).
 * LRN backward takes the same shapes: lrn_bwd_col (NCHW dx; the same windows and types) walks
 * the channels with x, the terms dy y / s and s^-beta in registers, each of x, y, dy read once
 * (lrn_bwd recomputed n window sums per element: 0.10x); channels-innermost dx (NHWC) with
 * C <= 1024 takes lrn_bwd_tile (whole pixels in shared memory, each s, term and power once per
 * element: 0.59x before). Both add the same terms in lrn_bwd's order: its bits. lrn_bwd_col
 * holds windows up to 5 at 3 blocks an SM with a 4-channel ring (2026-12-01: at 2 blocks the
 * benchmark's 392 blocks ran in 1.5 waves, 0.49x NVIDIA's rate). For HALF / BFLOAT16 both
 * column kernels take the power from __powf and the backward's quotient from __fdividef (not
 * lrn_fwd's / lrn_bwd's bits then: within gm_tol of the ref, far below the 16-bit rounding).
 * LRN forward with the channels innermost in x and y (C stride 1; FLOAT, HALF, BFLOAT16; C a
 * multiple of the 16-byte vector's V = 4 / 8 channels, at most 256 vectors; pixel strides
 * multiples of V; 16-byte aligned pointers; any window) takes lrn_fwd_nhwc (lrn_nhwc.cuh;
 * FREEDNN_GPU_LRN_NHWC=0 keeps lrn_fwd): a 16-byte channel vector a thread, whole pixels a
 * tile, the neighbours' vectors through 8 KiB of shared memory, x read and y written once
 * with 16-byte accesses (lrn_fwd read each x n times and blended in double: 249 / 494 GB/s
 * f16 / f32 on the H200, 2026-12-01). lrn_fwd_col's arithmetic term by term: FLOAT its bits
 * (lrn_fwd's with FREEDNN_GPU_BW3=0), HALF / BFLOAT16 its __powf. ptxas (sm_90 / sm_80):
 * alpha 1, beta 0 instantiations 38-48 registers, bounded at 5 blocks of 256 an SM (62.5%
 * occupancy), blended ones 48-64 at 4 (50%), 0 spills.
 * The backward with x, y, dy and dx so (the same limits) takes lrn_bwd_nhwc there (the same
 * mapping, one tile a trip: x, y, dy read and dx written once with 16-byte accesses; s, t and
 * s^-beta once per element, t through shared memory; FREEDNN_GPU_LRN_NHWC_BWD=0 keeps
 * lrn_bwd_tile, which staged whole pixels of x, y, dy as floats with 64-bit pixel offsets in
 * shared memory, 4 passes, scalar accesses: 646 / 337 GB/s f32 / f16): lrn_bwd_col's arithmetic
 * (FLOAT its bits, 16-bit __powf / __fdividef, where lrn_bwd_tile took powf and the division);
 * 8 KiB (FLOAT) / 12 KiB shared, 39-56 registers FLOAT, 48-64 16-bit, bounded at 4 blocks of
 * 256 an SM (50%; FLOAT n 5: 44 registers, 5 blocks), 0 spills.
 * HALF / BFLOAT16 with an NCHW-like x and output (dense planes of a multiple of 4 pixels), a
 * window of 1, 2, 3 or 5 and alpha 1, beta 0 take lrn_lean.cuh's lrn_{fwd,bwd}_lean16 instead
 * of the stamped column kernels (FREEDNN_GPU_LRN_LEAN16=0 keeps those): 4 pixels a thread
 * (8-byte accesses) over a chunk of the channels, the stamped kernels' arithmetic (the
 * forward's bits), the backward without reading y (lrn16_ok). Of those, the calls with alpha
 * >= 0, k >= 2^-126 and |beta| <= 4 take lrn_{fwd,bwd}_lean16f (lrn16f_plan;
 * FREEDNN_GPU_LRN16_F=0 keeps lrn_{fwd,bwd}_lean16): 2 pixels a thread (4-byte accesses), 8
 * resp. 3 blocks an SM with 4 channels resp. 6 steps loaded ahead, and the lean FLOAT kernels'
 * arithmetic (float scale, ftz lg2 / ex2 power, rcp: lean16's bits but for a rare last
 * rounding; gm_tol).
 * H200, 2026-12-03, f16 n32c256h56w56 n 5 (dev/lrn_nchw): forward 2549 -> 3265 GB/s, backward
 * 2160 -> 2733 (bf16 2492 -> 3244, 2003 -> 2640; copy 4027).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elem.cuh"
#include "fd_cuda.cuh"

extern "C" {
#include "../core/lrn.h"
}

#define LRN_TENSORS 4 /* LRN: x, y, dy, dx; divisive normalization: x-shaped, out */
#define LRN_TILE_ELEMS 1024   /* elements of an lrn_bwd_tile tile (whole pixels), at most */
#define LRN_TILE_SHARED 40960 /* its shared memory, at most (below the 48 KB default) */

/* Shape: N, C and 3 spatial sizes (padded at the end with 1); strides per tensor in the order
 * N, C, s0, s1, s2 (0 for a padded dim). */
typedef struct {
    int64_t N, C, sz[3], total;
    int64_t st[LRN_TENSORS][5];
    int c_inner;
} lrn_geom_t;

typedef struct {
    int lb, la;     /* window [i - lb, i + la] */
    double k, beta; /* of the descriptor */
    double alpha_n; /* alpha / n (LRN) or alpha / n^d (divisive normalization) */
    double coef;    /* 2 beta alpha_n */
    int fastpow;    /* FLOAT column kernels: s^-beta by lrn_pow_fast (lrn_fast_on) */
} lrn_params_t;

static __device__ __forceinline__ void lrn_unflatten(const lrn_geom_t &g, int64_t e, int64_t *n,
                                                     int64_t *c, int64_t *s)
{
    if (g.c_inner) {
        *c = e % g.C;
        e /= g.C;
    }
    s[2] = e % g.sz[2];
    e /= g.sz[2];
    s[1] = e % g.sz[1];
    e /= g.sz[1];
    s[0] = e % g.sz[0];
    e /= g.sz[0];
    if (!g.c_inner) {
        *c = e % g.C;
        e /= g.C;
    }
    *n = e;
}

static __device__ __forceinline__ int64_t lrn_spatial(const lrn_geom_t &g, int t, const int64_t *s)
{
    return s[0] * g.st[t][2] + s[1] * g.st[t][3] + s[2] * g.st[t][4];
}

static __device__ __forceinline__ int64_t lrn_offset(const lrn_geom_t &g, int t, int64_t n,
                                                     int64_t c, const int64_t *s)
{
    return n * g.st[t][0] + c * g.st[t][1] + lrn_spatial(g, t, s);
}

/* p[i] = v rounded once to the storage type: fd_cuda_blend's result for alpha 1, beta 0 (the
 * double product 1 * v is v; double -> half / bfloat16 and float -> half / bfloat16 both round
 * the same value to nearest even), without its two float <-> double conversions. */
static __device__ __forceinline__ void lrn_st_acc(float *p, int64_t i, float v)
{
    p[i] = v;
}
static __device__ __forceinline__ void lrn_st_acc(double *p, int64_t i, double v)
{
    p[i] = v; /* lrn_bwd_tile_f64 */
}
static __device__ __forceinline__ void lrn_st_acc(__half *p, int64_t i, float v)
{
    p[i] = __float2half_rn(v);
}
static __device__ __forceinline__ void lrn_st_acc(__nv_bfloat16 *p, int64_t i, float v)
{
    p[i] = __float2bfloat16_rn(v);
}

/* ---- the kernels, once per storage type --------------------------------------------------- */

/* FLOAT s^e for the column kernels under FREEDNN_GPU_BW3 (2026-12-01: f32 NCHW ran 0.84x / 0.65x
 * NVIDIA's rate forward / backward on the H200 where the 16-bit kernels, with __powf, moved 2.4x
 * the elements a second; powf is ~40 dependent instructions per element): p = e log2 s by
 * lg2.approx (__log2f: absolute error <= 2^-22 for s in [0.5, 2], 2 ulp of log2 s outside)
 * and 2^p by ex2.approx (exp2f, 2 ulp) when |p| <= 4 (the host also holds |e| <= 4), powf
 * otherwise (s NaN, inf, 0, negative, denormal or far from 1: p is then NaN, inf or large).
 * Relative error of the power: ln 2 (2^-22 max(|e|, |p|) + 2^-24 |p|) + 2^-23 <= 16 * 2^-24,
 * against powf's few ulp; docs/testing.md's cuda LRN row. */
static __device__ __forceinline__ float lrn_pow_fast(float s, float e)
{
    const float p = e * __log2f(s);
    return fabsf(p) <= 4.0f ? exp2f(p) : powf(s, e);
}

/* The column kernels' column e: its image n (returned) and spatial position s, S pixels an
 * image (lrn_kernels.cuh and lrn_lean.cuh) */
static __device__ __forceinline__ int64_t lrn_col_pos(const lrn_geom_t &g, int64_t S, int64_t e,
                                                      int64_t *s)
{
    const int64_t n = e / S;
    int64_t r = e - n * S;
    s[2] = r % g.sz[2];
    r /= g.sz[2];
    s[1] = r % g.sz[1];
    s[0] = r / g.sz[1];
    return n;
}

/* w[0 .. N - 1] <- w[1 .. N - 1], v: the column kernels' register windows moved one channel
 * (unrolled; lrn_kernels.cuh and lrn_lean.cuh) */
template <int N, typename T>
static __device__ __forceinline__ void lrn_push(T (&w)[N], T v)
{
#pragma unroll
    for (int k = 0; k + 1 < N; k++)
        w[k] = w[k + 1];
    w[N - 1] = v;
}

/* lrn_{fwd,bwd}_nhwc's plan (lrn_nhwc.cuh): npix pixels (N times the spatial sizes) of nv
 * 16-byte channel vectors, P pixels a tile; flat: pixel e's channel 0 is at e * ps[t] in
 * tensor t (else lrn_col_pos / lrn_offset) */
typedef struct {
    int64_t npix, ps[LRN_TENSORS];
    int nv, P, flat;
} lrn_nhwc_t;
#define LRN_NHWC_BLOCK 256 /* lrn_fwd_nhwc's threads (a tile's vectors), at most */
#define LRN_NHWC_U 2       /* its tiles a trip: two 16-byte loads a thread in flight */
#define LRN_NHWC_MINB 4    /* its blocks an SM, at least (<= 64 registers: 50% occupancy) */
#define LRN_NHWC_BWD_MINB 4 /* lrn_bwd_nhwc's */

#define FD_STAMP_FILE "lrn_kernels.cuh"
#include "stamp_types.cuh"

#include "lrn_lean.cuh"

/* ---- host ------------------------------------------------------------------------------------ */

/* t[0..nt) share dims; `key` is the output the walk order follows. */
static lrn_geom_t geom_of(const struct cudnnTensorStruct *const *t, int nt, int key)
{
    lrn_geom_t g;
    memset(&g, 0, sizeof g);
    const struct cudnnTensorStruct *x = t[0];
    const int nsp = x->nb_dims - 2;
    g.N = x->dim[0];
    g.C = x->dim[1];
    g.total = g.N * g.C;
    for (int k = 0; k < 3; k++) {
        g.sz[k] = k < nsp ? x->dim[2 + k] : 1;
        g.total *= g.sz[k];
    }
    for (int j = 0; j < nt; j++)
        for (int i = 0; i < 5; i++)
            g.st[j][i] = i < 2 + nsp ? t[j]->stride[i] : 0;
    g.c_inner = g.C > 1 && t[key]->stride[1] < t[key]->stride[x->nb_dims - 1];
    return g;
}

static lrn_params_t params_of(unsigned n, double alpha, double beta, double k, int d)
{
    lrn_params_t q;
    q.lb = (int)(n - 1) / 2;
    q.la = (int)n - 1 - q.lb;
    q.k = k;
    q.beta = beta;
    /* as src/ref: alpha / n, resp. alpha / pow(n, d) */
    q.alpha_n = d == 0 ? alpha / n : alpha / pow((double)n, d);
    q.coef = d == 0 ? 2.0 * beta * alpha / n : 2.0 * beta * alpha / pow((double)n, d);
    q.fastpow = 0;
    return q;
}

static int lrn_applicable(const struct cudnnTensorStruct *x, char *why, size_t why_size)
{
    if (!fd_cuda_elem_dtype_ok(x->dtype)) {
        snprintf(why, why_size, "%s data; the LRN kernels take FLOAT, DOUBLE, HALF, BFLOAT16",
                 fd_dtype_name(x->dtype));
        return 0;
    }
    if (x->nb_dims != 4 && x->nb_dims != 5) {
        snprintf(why, why_size, "%d dims; the LRN kernels take 4 and 5", x->nb_dims);
        return 0;
    }
    return 1;
}

/* ---- rows (src/impls.def) ------------------------------------------------------------------ */

extern "C" int fd_cuda_bw2_on(void); /* pooling.cu: FREEDNN_GPU_BW2, read once */
extern "C" int fd_cuda_bw3_on(void); /* pooling.cu: FREEDNN_GPU_BW3, read once */

/* 1 when the FLOAT column kernels take s^-beta from lrn_pow_fast (FREEDNN_GPU_BW3): |beta| <= 4
 * (the error bound below holds for |beta log2 s| <= 4 and |beta| <= 4). */
static int lrn_fast_on(cudnnDataType_t dt, double beta)
{
    return fd_cuda_bw3_on() && dt == CUDNN_DATA_FLOAT && fabs(beta) <= 4.0;
}

/* The column kernels' channel chunk (lrn_fwd_col / lrn_bwd_col's cc): C, one thread a column.
 * Chunks of fewer channels (grid y; a chunk re-reads the n - 1 channels before it, the backward
 * 2 (n - 1) steps, and computes the same values in the same order: the same bits) were tried
 * for the benchmark's 392-block grid (N H W = 100352 columns at C = 128, 3 blocks an SM):
 * 4 chunks forward / 2 backward measured no gain forward (0.84x NVIDIA both ways) and a loss
 * backward (0.65x -> 0.60x) on the H200 (docs/perf/gpu-membw-2026-12-01.md, tenth session), so
 * only FREEDNN_GPU_BW2_LRN_CHUNK=k (the tests: chunks of k channels) splits; FLOAT only (the
 * 16-bit kernels spill with the chunk bounds in registers). */
static int lrn_chunk_env(void)
{
    const char *e = getenv("FREEDNN_GPU_BW2_LRN_CHUNK");
    return e == NULL ? 0 : atoi(e);
}
/* FREEDNN_GPU_BW2_LRN_CHUNK=k > 0: chunks of k channels whatever the size (the tests' small
 * problems); read once per process. */
static int lrn_forced_chunk(void)
{
    static const int k = lrn_chunk_env();
    return k;
}

static int lrn_col_chunk(const lrn_geom_t *g, cudnnDataType_t dt)
{
    const int64_t C = g->C, cols = g->total / (C > 0 ? C : 1);
    const int one = (int)(C < INT32_MAX ? C : INT32_MAX);
    if (!fd_cuda_bw2_on() || cols <= 0 || dt != CUDNN_DATA_FLOAT)
        return one;
    if (lrn_forced_chunk() > 0) {
        const int64_t k =
            lrn_forced_chunk() > (C + 65534) / 65535 ? lrn_forced_chunk() : (C + 65534) / 65535;
        return (int)(k < one ? k : one);
    }
    return one;
}

/* FLOAT column kernels (one chunk) with more channels of look-ahead: lrn_fwd_col 16 instead of 8
 * for windows up to 11 (16 spilled at 3 blocks an SM), lrn_bwd_col a ring of 6 instead of 4 for
 * windows up to 5 (FREEDNN_GPU_BW3; FREEDNN_GPU_BW3_LRN_AHEAD=0 keeps 8 and 4 with the rest of
 * the round on, for the A/B); read once. */
static int lrn_ahead_env(void)
{
    const char *e = getenv("FREEDNN_GPU_BW3_LRN_AHEAD");
    return fd_cuda_bw3_on() && (e == NULL || strcmp(e, "0") != 0);
}
static int lrn_ahead(void)
{
    static const int on = lrn_ahead_env();
    return on;
}

/* The lean FLOAT column kernels (lrn_lean.cuh): FREEDNN_GPU_LRN_LEAN=0 keeps the stamped ones
 * (the A/B and the tests' rerun); read once. H200, 2026-12-01, n32c128h56w56 n 5 against NVIDIA
 * cuDNN 9.19 in the same run: forward 1.08x -> 1.88x, backward 0.86x -> 1.46x (3.42 TB/s); the
 * backward's ring of 6 steps instead of 8 measured 1.41x. */
static int lrn_lean(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_LRN_LEAN");
    return on;
}

/* 1 when the lean kernels take the call: FLOAT, the power by lrn_pow_fast's rule (q->fastpow),
 * windows of 1, 2, 3 or 5, the column walk (not channels-innermost) in one chunk, and each
 * column's channel offsets of every tensor within 2^31 elements. The backward then does not
 * read y: it takes the forward's output of x (the API's y; product decision of 2026-12-01,
 * docs/testing.md's cuda LRN row). */
static int lrn_lean_ok(const lrn_geom_t *g, const lrn_params_t *q, unsigned n, int cc, int nt)
{
    if (!lrn_lean() || !q->fastpow || g->c_inner || cc < g->C || g->C >= (1 << 30))
        return 0;
    if (n != 1 && n != 2 && n != 3 && n != 5)
        return 0;
    for (int t = 0; t < nt; t++)
        if (g->st[t][1] < 0 || (g->C + n) * g->st[t][1] >= ((int64_t)1 << 31))
            return 0;
    return 1;
}

/* X(window, plain) for the lean kernels' windows, both blends */
#define LRN_LEAN_WINDOWS(X) X(1, 1) X(2, 1) X(3, 1) X(5, 1) X(1, 0) X(2, 0) X(3, 0) X(5, 0)

static lrn_lean_t lean_of(const lrn_params_t *q)
{
    lrn_lean_t l;
    l.an = (float)q->alpha_n;
    l.k = (float)q->k;
    l.nbeta = (float)-q->beta;
    l.coef = (float)q->coef;
    return l;
}

/* The lean 16-bit column kernels (lrn_lean.cuh's lrn_{fwd,bwd}_lean16): FREEDNN_GPU_LRN_LEAN16
 * =0 keeps the stamped lrn_{fwd,bwd}_col_<f16,bf16> (the A/B and the tests' rerun), 1 (the
 * default) chunks the channels by lrn16_chunk's rule, k >= 2 chunks of max(k, 8) channels (the
 * A/B of the chunk size); read once. */
static long lrn_lean16(void)
{
    static const long v = fd_env_long("FREEDNN_GPU_LRN_LEAN16", 0, 1L << 30, 1);
    return v;
}

/* 1 when tensor t's spatial dims (those above 1) nest densely from stride 1 (a plane of
 * contiguous pixels) */
static int lrn16_dense_plane(const lrn_geom_t *g, int t)
{
    int64_t next = 1;
    for (int d = 2; d >= 0; d--) {
        if (g->sz[d] == 1)
            continue;
        if (g->st[t][2 + d] != next)
            return 0;
        next *= g->sz[d];
    }
    return 1;
}

/* The chunk of channels a thread of lrn_{fwd,bwd}_lean16 walks: with bx blocks of columns, as
 * many chunks as fit one wave of minb blocks an SM (the benchmark's n32c256h56w56: 98 blocks,
 * 8 chunks of 32 channels forward, 4 of 64 backward; lrn_{fwd,bwd}_lean16f: 196 blocks, 5 of
 * 52, 2 of 128), at least 16 channels (the halo of W - 1 channels, 2 (W - 1) steps backward, is
 * re-read and recomputed per chunk); or the switch's k. At most 65535 chunks. */
static int lrn16_chunk(int64_t C, unsigned bx, int minb)
{
    int64_t cc;
    if (lrn_lean16() >= 2)
        cc = lrn_lean16() > 8 ? lrn_lean16() : 8;
    else {
        const int64_t slots = (int64_t)fd_cuda_sm_count() * minb;
        const int64_t chunks = slots / bx > 1 ? slots / bx : 1;
        cc = (C + chunks - 1) / chunks;
        cc = cc > 16 ? cc : 16;
    }
    if (cc < (C + 65534) / 65535)
        cc = (C + 65534) / 65535;
    return (int)(cc < C ? cc : C);
}

/* 1 (and *l) when lrn_{fwd,bwd}_lean16 take the call on the tensors ti[0 .. nt) of g (forward
 * x, y; backward x, dy, dx), pointers p[0 .. nt): HALF / BFLOAT16, alpha 1, beta 0, windows of
 * 1, 2, 3 or 5, the column walk (not channels-innermost), each tensor's plane dense with
 * S = D H W a multiple of 4 pixels, its C and N strides multiples of 4 (where C, N > 1), its
 * channel offsets within 2^31 elements and its pointer 8-byte aligned. */
static int lrn16_ok(const lrn_geom_t *g, const lrn_params_t *q, cudnnDataType_t dt, unsigned n,
                    const int *ti, const void *const *p, int nt, double alpha, double beta,
                    int minb, lrn16_t *l)
{
    if (lrn_lean16() == 0 || (dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16) ||
        g->c_inner || alpha != 1.0 || beta != 0.0 || g->total <= 0 || g->C >= (1 << 30))
        return 0;
    if (n != 1 && n != 2 && n != 3 && n != 5)
        return 0;
    const int64_t S = g->sz[0] * g->sz[1] * g->sz[2];
    /* the grid covers the columns (no grid-stride loop): fd_cuda_blocks' cap of 2^20 */
    if (S % LRN16_V != 0 || g->N * S / LRN16_V > ((int64_t)FD_CUDA_BLOCK << 20))
        return 0;
    for (int j = 0; j < nt; j++) {
        const int t = ti[j];
        const int64_t cst = g->st[t][1], nst = g->st[t][0];
        if (((uintptr_t)p[j] & (LRN16_V * 2 - 1)) != 0 || !lrn16_dense_plane(g, t))
            return 0;
        if ((g->C > 1 && cst % LRN16_V != 0) || (g->N > 1 && nst % LRN16_V != 0))
            return 0;
        if (cst < 0 || (g->C + 16) * cst >= ((int64_t)1 << 31))
            return 0;
        l->ns[j] = nst;
        l->cs[j] = (int)cst;
    }
    l->cols = g->N * S / LRN16_V;
    l->pv = S / LRN16_V;
    l->C = (int)g->C;
    l->cc = lrn16_chunk(g->C, fd_cuda_blocks(l->cols, FD_CUDA_BLOCK), minb);
    l->an = q->alpha_n;
    l->k = q->k;
    l->nbeta = (float)-q->beta;
    l->coef = (float)q->coef;
    l->anf = (float)q->alpha_n; /* lrn_{fwd,bwd}_lean16f's (lrn16f_plan) */
    l->kf = (float)q->k;
    return 1;
}

/* lrn_lean.cuh's lrn_{fwd,bwd}_lean16f for the calls lrn16_ok takes: FREEDNN_GPU_LRN16_F=0
 * keeps lrn_{fwd,bwd}_lean16 (the A/B and the tests' rerun); read once. */
static int lrn16f_on(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_LRN16_F");
    return on;
}

/* 1 (and *l re-planned for 2 pixels a thread and minb blocks an SM) when lrn_{fwd,bwd}_lean16f
 * take a call lrn16_ok planned in *l: their float scale and ftz power need a normal s, i.e.
 * alpha / n >= 0 and k >= 2^-126 (then s >= k, or NaN / inf), both finite in float; |beta| <= 4
 * as lrn_pow_fast's rule for the lean FLOAT kernels (lrn_fast_on); the columns within the
 * grid's 2^20 blocks. Else lrn_{fwd,bwd}_lean16 (their __powf and double scale take any
 * parameters). */
static int lrn16f_plan(const lrn_params_t *q, int minb, lrn16_t *l)
{
    const float anf = (float)q->alpha_n, kf = (float)q->k;
    const int64_t cols = l->cols * (LRN16_V / LRN16F_V);
    if (!lrn16f_on() || !(anf >= 0.0f && anf <= FLT_MAX) || !(kf >= FLT_MIN && kf <= FLT_MAX) ||
        !(fabs(q->beta) <= 4.0) || cols > ((int64_t)FD_CUDA_BLOCK << 20))
        return 0;
    l->cols = cols;
    l->pv = l->pv * (LRN16_V / LRN16F_V);
    l->cc = lrn16_chunk(l->C, fd_cuda_blocks(cols, FD_CUDA_BLOCK), minb);
    return 1;
}

/* K<W, bf16> on (bx, chunks) blocks for the call's window p->n and type dt (lrn16_ok's) */
#define LRN16_GO(K, ...)                                                                           \
    do {                                                                                           \
        const bool bf = dt == CUDNN_DATA_BFLOAT16;                                                 \
        switch (p->n * 2 + bf) {                                                                   \
        case 2: K<1, false><<<grid, FD_CUDA_BLOCK, 0, st>>>(__VA_ARGS__); break;                   \
        case 3: K<1, true><<<grid, FD_CUDA_BLOCK, 0, st>>>(__VA_ARGS__); break;                    \
        case 4: K<2, false><<<grid, FD_CUDA_BLOCK, 0, st>>>(__VA_ARGS__); break;                   \
        case 5: K<2, true><<<grid, FD_CUDA_BLOCK, 0, st>>>(__VA_ARGS__); break;                    \
        case 6: K<3, false><<<grid, FD_CUDA_BLOCK, 0, st>>>(__VA_ARGS__); break;                   \
        case 7: K<3, true><<<grid, FD_CUDA_BLOCK, 0, st>>>(__VA_ARGS__); break;                    \
        case 10: K<5, false><<<grid, FD_CUDA_BLOCK, 0, st>>>(__VA_ARGS__); break;                  \
        default: K<5, true><<<grid, FD_CUDA_BLOCK, 0, st>>>(__VA_ARGS__); break;                   \
        }                                                                                          \
    } while (0)

/* lrn_fwd_nhwc (lrn_nhwc.cuh) for channels-innermost FLOAT / HALF / BFLOAT16 forward calls:
 * FREEDNN_GPU_LRN_NHWC=0 keeps lrn_fwd (the A/B and the tests' rerun); read once. */
static int lrn_nhwc_on(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_LRN_NHWC");
    return on;
}

/* lrn_bwd_nhwc for channels-innermost backward calls too (FREEDNN_GPU_LRN_NHWC on):
 * FREEDNN_GPU_LRN_NHWC_BWD=0 keeps lrn_bwd_tile there (the A/B of the backward alone); read
 * once. */
static int lrn_nhwc_bwd(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_LRN_NHWC_BWD");
    return on;
}

/* Pixel e's offset in tensor t as e * *ps when the non-unit dims among N and the spatial ones
 * nest densely (each stride the next inner one's times its size: NHWC, also with padded
 * pixels); 0 otherwise. */
static int lrn_flat_pixels(const lrn_geom_t *g, int t, int64_t *ps)
{
    const int64_t size[4] = {g->N, g->sz[0], g->sz[1], g->sz[2]};
    const int64_t st[4] = {g->st[t][0], g->st[t][2], g->st[t][3], g->st[t][4]};
    int64_t unit = 0, next = 0;
    for (int d = 3; d >= 0; d--) {
        if (size[d] == 1)
            continue;
        if (unit == 0)
            unit = st[d], next = st[d];
        else if (st[d] != next)
            return 0;
        next *= size[d];
    }
    *ps = unit;
    return 1;
}

/* 1 (and *m) when lrn_{fwd,bwd}_nhwc take the call on the nt tensors p[0 .. nt) (forward x,
 * y; backward x, y, dy, dx): FLOAT / HALF / BFLOAT16, each with C stride 1, C a multiple of
 * the 16-byte vector's V channels and at most LRN_NHWC_BLOCK vectors (FLOAT 1024, 16-bit
 * 2048), every pixel stride (of N and the spatial dims of size above 1) a multiple of V, every
 * pointer 16-byte aligned. */
static int lrn_nhwc_ok(const lrn_geom_t *g, cudnnDataType_t dt, const void *const *p, int nt,
                       lrn_nhwc_t *m)
{
    if (!lrn_nhwc_on() || !g->c_inner || dt == CUDNN_DATA_DOUBLE || g->total <= 0)
        return 0;
    const int64_t V = FD_CUDA_VEC_BYTES / (dt == CUDNN_DATA_FLOAT ? 4 : 2);
    if (g->C % V != 0 || g->C / V > LRN_NHWC_BLOCK)
        return 0;
    const int64_t size[4] = {g->N, g->sz[0], g->sz[1], g->sz[2]};
    m->flat = 1;
    for (int t = 0; t < nt; t++) {
        if (!fd_cuda_aligned16(p[t]) || g->st[t][1] != 1)
            return 0;
        for (int d = 0; d < 4; d++)
            if (size[d] > 1 && g->st[t][d == 0 ? 0 : d + 1] % V != 0)
                return 0;
        m->flat = m->flat && lrn_flat_pixels(g, t, &m->ps[t]);
    }
    m->npix = g->total / g->C;
    m->nv = (int)(g->C / V);
    m->P = LRN_NHWC_BLOCK / m->nv;
    return 1;
}

/* K_<type><W, alpha 1 and beta 0> for the call's window p->n, type dt and blend (plain), on nb
 * blocks of `threads` on stream st, arguments ... then alpha, beta (lrn_{fwd,bwd}_nhwc) */
#define LRN_NHWC_GO(K, W, ...)                                                                     \
    do {                                                                                           \
        if (dt == CUDNN_DATA_FLOAT && plain)                                                       \
            K##_f32<W, true><<<nb, threads, 0, st>>>(__VA_ARGS__, 1.0, 0.0);                       \
        else if (dt == CUDNN_DATA_FLOAT)                                                           \
            K##_f32<W, false><<<nb, threads, 0, st>>>(__VA_ARGS__, a->alpha, a->beta);             \
        else if (dt == CUDNN_DATA_HALF && plain)                                                   \
            K##_f16<W, true><<<nb, threads, 0, st>>>(__VA_ARGS__, 1.0, 0.0);                       \
        else if (dt == CUDNN_DATA_HALF)                                                            \
            K##_f16<W, false><<<nb, threads, 0, st>>>(__VA_ARGS__, a->alpha, a->beta);             \
        else if (plain)                                                                            \
            K##_bf16<W, true><<<nb, threads, 0, st>>>(__VA_ARGS__, 1.0, 0.0);                      \
        else                                                                                       \
            K##_bf16<W, false><<<nb, threads, 0, st>>>(__VA_ARGS__, a->alpha, a->beta);            \
    } while (0)
#define LRN_NHWC_SWITCH(K, ...)                                                                    \
    switch (p->n) {                                                                                \
    case 1: LRN_NHWC_GO(K, 1, __VA_ARGS__); break;                                                 \
    case 2: LRN_NHWC_GO(K, 2, __VA_ARGS__); break;                                                 \
    case 3: LRN_NHWC_GO(K, 3, __VA_ARGS__); break;                                                 \
    case 4: LRN_NHWC_GO(K, 4, __VA_ARGS__); break;                                                 \
    case 5: LRN_NHWC_GO(K, 5, __VA_ARGS__); break;                                                 \
    case 6: LRN_NHWC_GO(K, 6, __VA_ARGS__); break;                                                 \
    case 7: LRN_NHWC_GO(K, 7, __VA_ARGS__); break;                                                 \
    case 8: LRN_NHWC_GO(K, 8, __VA_ARGS__); break;                                                 \
    case 9: LRN_NHWC_GO(K, 9, __VA_ARGS__); break;                                                 \
    case 10: LRN_NHWC_GO(K, 10, __VA_ARGS__); break;                                               \
    case 11: LRN_NHWC_GO(K, 11, __VA_ARGS__); break;                                               \
    case 12: LRN_NHWC_GO(K, 12, __VA_ARGS__); break;                                               \
    case 13: LRN_NHWC_GO(K, 13, __VA_ARGS__); break;                                               \
    case 14: LRN_NHWC_GO(K, 14, __VA_ARGS__); break;                                               \
    case 15: LRN_NHWC_GO(K, 15, __VA_ARGS__); break;                                               \
    case 16: LRN_NHWC_GO(K, 16, __VA_ARGS__); break;                                               \
    default:                                                                                       \
        return fd_error(CUDNN_STATUS_NOT_SUPPORTED, __FILE__, __LINE__,                            \
                        "LRN window %u outside [1, 16]", p->n);                                    \
    }

extern "C" int fd_lrn_fwd_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return lrn_applicable(&((const fd_lrn_problem_t *)problem)->x, why, why_size);
}
extern "C" size_t fd_lrn_fwd_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_lrn_fwd_cuda_run(const void *problem, const void *args)
{
    const fd_lrn_problem_t *p = (const fd_lrn_problem_t *)problem;
    const fd_lrn_args_t *a = (const fd_lrn_args_t *)args;
    const struct cudnnTensorStruct *t[2] = {&p->x, &p->y};
    const lrn_geom_t g = geom_of(t, 2, 1);
    const cudnnDataType_t dt = p->x.dtype;
    lrn_params_t q = params_of(p->n, p->alpha, p->beta, p->k, 0);
    q.fastpow = lrn_fast_on(dt, p->beta);
    if (!g.c_inner && dt != CUDNN_DATA_DOUBLE) {
        /* lrn_fwd_col: a column of channels (a chunk of cc) per thread, the window in
         * registers */
        const int cc = lrn_col_chunk(&g, dt);
        const dim3 cblocks(fd_cuda_blocks(g.total / g.C, FD_CUDA_BLOCK),
                           (unsigned)((g.C + cc - 1) / cc));
        cudaStream_t st = a->handle->stream;
        lrn16_t l16;
        const int ti16[2] = {0, 1};
        const void *p16[2] = {a->x, a->out};
        if (lrn16_ok(&g, &q, dt, p->n, ti16, p16, 2, a->alpha, a->beta, LRN16_FWD_MINB, &l16)) {
            const int f = lrn16f_plan(&q, LRN16F_FWD_MINB, &l16);
            const dim3 grid(fd_cuda_blocks(l16.cols, FD_CUDA_BLOCK),
                            (unsigned)((l16.C + l16.cc - 1) / l16.cc));
            const unsigned short *x = (const unsigned short *)a->x;
            unsigned short *y = (unsigned short *)a->out;
            if (f)
                LRN16_GO(lrn_fwd_lean16f, l16, x, y);
            else
                LRN16_GO(lrn_fwd_lean16, l16, x, y);
            FD_CUDA_LAUNCHED("lrn_fwd_lean16%s<%u> on %s data (%u x %u blocks, chunks of %d "
                             "channels)",
                             f ? "f" : "", p->n, fd_dtype_name(dt), grid.x, grid.y, l16.cc);
            return CUDNN_STATUS_SUCCESS;
        }
        if (dt == CUDNN_DATA_FLOAT && lrn_lean_ok(&g, &q, p->n, cc, 2)) {
            const lrn_lean_t l = lean_of(&q);
            const float *x = (const float *)a->x;
            float *y = (float *)a->out;
            const bool plain = a->alpha == 1.0 && a->beta == 0.0;
            switch (p->n * 2 + plain) {
#define LRN_LEAN_FWD(W, P)                                                                         \
    case W * 2 + P:                                                                                \
        lrn_fwd_lean<W, 16, P><<<cblocks, FD_CUDA_BLOCK, 0, st>>>(g, l, x, y, a->alpha, a->beta);  \
        break;
                LRN_LEAN_WINDOWS(LRN_LEAN_FWD)
#undef LRN_LEAN_FWD
            }
            FD_CUDA_LAUNCHED("lrn_fwd_lean<%u> (%u blocks)", p->n, cblocks.x);
            return CUDNN_STATUS_SUCCESS;
        }
        int done = 1;
        switch (p->n) {
#define LRN_COL_CASE(W)                                                                            \
    case W:                                                                                        \
        if (dt == CUDNN_DATA_FLOAT && cc < g.C)                                                    \
            lrn_fwd_col_f32<W, true>                                                               \
                <<<cblocks, FD_CUDA_BLOCK, 0, st>>>(g, q, a->x, a->out, a->alpha, a->beta, cc);    \
        else if (dt == CUDNN_DATA_FLOAT && lrn_ahead())                                            \
            lrn_fwd_col_f32<W, false, (W <= 11 ? 16 : 8)>                                          \
                <<<cblocks, FD_CUDA_BLOCK, 0, st>>>(g, q, a->x, a->out, a->alpha, a->beta, cc);    \
        else if (dt == CUDNN_DATA_FLOAT)                                                           \
            lrn_fwd_col_f32<W, false>                                                              \
                <<<cblocks, FD_CUDA_BLOCK, 0, st>>>(g, q, a->x, a->out, a->alpha, a->beta, cc);    \
        else if (dt == CUDNN_DATA_HALF)                                                            \
            lrn_fwd_col_f16<W, false>                                                              \
                <<<cblocks, FD_CUDA_BLOCK, 0, st>>>(g, q, a->x, a->out, a->alpha, a->beta, cc);    \
        else                                                                                       \
            lrn_fwd_col_bf16<W, false>                                                             \
                <<<cblocks, FD_CUDA_BLOCK, 0, st>>>(g, q, a->x, a->out, a->alpha, a->beta, cc);    \
        break;
            LRN_COL_CASE(1)
            LRN_COL_CASE(2)
            LRN_COL_CASE(3)
            LRN_COL_CASE(5)
            LRN_COL_CASE(7)
            LRN_COL_CASE(9)
            LRN_COL_CASE(11)
            LRN_COL_CASE(16)
#undef LRN_COL_CASE
        default:
            done = 0; /* other windows: lrn_fwd */
        }
        if (done) {
            FD_CUDA_LAUNCHED("lrn_fwd_col<%u> on %s data (%u blocks, chunks of %d channels)", p->n,
                             fd_dtype_name(dt), cblocks.x * cblocks.y, cc);
            return CUDNN_STATUS_SUCCESS;
        }
    }
    lrn_nhwc_t m;
    const void *tp[2] = {a->x, a->out};
    if (lrn_nhwc_ok(&g, dt, tp, 2, &m)) {
        /* lrn_fwd_nhwc: a 16-byte channel vector a thread, P pixels a tile, U tiles a trip */
        const unsigned threads = (unsigned)((m.P * m.nv + 31) / 32 * 32);
        const unsigned nb = fd_cuda_blocks(m.npix, (int64_t)LRN_NHWC_U * m.P);
        cudaStream_t st = a->handle->stream;
        const bool plain = a->alpha == 1.0 && a->beta == 0.0;
        LRN_NHWC_SWITCH(lrn_fwd_nhwc, g, q, m, a->x, a->out);
        FD_CUDA_LAUNCHED("lrn_fwd_nhwc<%u> on %s data (%u blocks of %u, %d pixels a tile%s)",
                         p->n, fd_dtype_name(dt), nb, threads, m.P, m.flat ? "" : ", strided");
        return CUDNN_STATUS_SUCCESS;
    }
    const unsigned blocks = fd_cuda_blocks(g.total, FD_CUDA_BLOCK);
    FD_CUDA_TYPED_LAUNCH(p->x.dtype, lrn_fwd, blocks, FD_CUDA_BLOCK, a->handle->stream, g, q, a->x,
                         a->out, a->alpha, a->beta);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_lrn_bwd_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return lrn_applicable(&((const fd_lrn_problem_t *)problem)->x, why, why_size);
}
extern "C" size_t fd_lrn_bwd_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_lrn_bwd_cuda_run(const void *problem, const void *args)
{
    const fd_lrn_problem_t *p = (const fd_lrn_problem_t *)problem;
    const fd_lrn_args_t *a = (const fd_lrn_args_t *)args;
    const struct cudnnTensorStruct *t[4] = {&p->x, &p->y, &p->dy, &p->dx};
    const lrn_geom_t g = geom_of(t, 4, 3);
    const cudnnDataType_t dt = p->x.dtype;
    lrn_params_t q = params_of(p->n, p->alpha, p->beta, p->k, 0);
    q.fastpow = lrn_fast_on(dt, p->beta);
    if (!g.c_inner && dt != CUDNN_DATA_DOUBLE) {
        /* lrn_bwd_col: a column of channels (a chunk of cc) per thread, the windows in
         * registers */
        const int cc = lrn_col_chunk(&g, dt);
        const dim3 cblocks(fd_cuda_blocks(g.total / g.C, FD_CUDA_BLOCK),
                           (unsigned)((g.C + cc - 1) / cc));
        cudaStream_t st = a->handle->stream;
        lrn16_t l16;
        const int ti16[3] = {0, 2, 3};
        const void *p16[3] = {a->x, a->dy, a->out};
        if (lrn16_ok(&g, &q, dt, p->n, ti16, p16, 3, a->alpha, a->beta, LRN16_BWD_MINB, &l16)) {
            const int f = lrn16f_plan(&q, LRN16F_BWD_MINB, &l16);
            const dim3 grid(fd_cuda_blocks(l16.cols, FD_CUDA_BLOCK),
                            (unsigned)((l16.C + l16.cc - 1) / l16.cc));
            const unsigned short *x = (const unsigned short *)a->x,
                                 *dy = (const unsigned short *)a->dy;
            unsigned short *dx = (unsigned short *)a->out;
            if (f)
                LRN16_GO(lrn_bwd_lean16f, l16, x, dy, dx);
            else
                LRN16_GO(lrn_bwd_lean16, l16, x, dy, dx);
            FD_CUDA_LAUNCHED("lrn_bwd_lean16%s<%u> on %s data (%u x %u blocks, chunks of %d "
                             "channels; y not read)",
                             f ? "f" : "", p->n, fd_dtype_name(dt), grid.x, grid.y, l16.cc);
            return CUDNN_STATUS_SUCCESS;
        }
        if (dt == CUDNN_DATA_FLOAT && lrn_lean_ok(&g, &q, p->n, cc, 4)) {
            const lrn_lean_t l = lean_of(&q);
            const float *x = (const float *)a->x, *dy = (const float *)a->dy;
            float *dx = (float *)a->out;
            const bool plain = a->alpha == 1.0 && a->beta == 0.0;
            switch (p->n * 2 + plain) {
#define LRN_LEAN_BWD(W, P)                                                                         \
    case W * 2 + P:                                                                                \
        lrn_bwd_lean<W, 8, P>                                                                      \
            <<<cblocks, FD_CUDA_BLOCK, 0, st>>>(g, l, x, dy, dx, a->alpha, a->beta);               \
        break;
                LRN_LEAN_WINDOWS(LRN_LEAN_BWD)
#undef LRN_LEAN_BWD
            }
            FD_CUDA_LAUNCHED("lrn_bwd_lean<%u> (%u blocks; y not read)", p->n, cblocks.x);
            return CUDNN_STATUS_SUCCESS;
        }
        int done = 1;
        switch (p->n) {
#define LRN_COL_CASE(W)                                                                            \
    case W:                                                                                        \
        if (dt == CUDNN_DATA_FLOAT && cc < g.C)                                                    \
            lrn_bwd_col_f32<W, true><<<cblocks, FD_CUDA_BLOCK, 0, st>>>(                           \
                g, q, a->x, a->y, a->dy, a->out, a->alpha, a->beta, cc);                           \
        else if (dt == CUDNN_DATA_FLOAT && W <= 5 && lrn_ahead())                                  \
            lrn_bwd_col_f32<W, false, (W <= 5 ? 6 : 8)><<<cblocks, FD_CUDA_BLOCK, 0, st>>>(        \
                g, q, a->x, a->y, a->dy, a->out, a->alpha, a->beta, cc);                           \
        else if (dt == CUDNN_DATA_FLOAT)                                                           \
            lrn_bwd_col_f32<W, false><<<cblocks, FD_CUDA_BLOCK, 0, st>>>(                          \
                g, q, a->x, a->y, a->dy, a->out, a->alpha, a->beta, cc);                           \
        else if (dt == CUDNN_DATA_HALF)                                                            \
            lrn_bwd_col_f16<W, false><<<cblocks, FD_CUDA_BLOCK, 0, st>>>(                          \
                g, q, a->x, a->y, a->dy, a->out, a->alpha, a->beta, cc);                           \
        else                                                                                       \
            lrn_bwd_col_bf16<W, false><<<cblocks, FD_CUDA_BLOCK, 0, st>>>(                         \
                g, q, a->x, a->y, a->dy, a->out, a->alpha, a->beta, cc);                           \
        break;
            LRN_COL_CASE(1)
            LRN_COL_CASE(2)
            LRN_COL_CASE(3)
            LRN_COL_CASE(5)
            LRN_COL_CASE(7)
            LRN_COL_CASE(9)
            LRN_COL_CASE(11)
            LRN_COL_CASE(16)
#undef LRN_COL_CASE
        default:
            done = 0; /* other windows: lrn_bwd */
        }
        if (done) {
            FD_CUDA_LAUNCHED("lrn_bwd_col<%u> on %s data (%u blocks, chunks of %d channels)", p->n,
                             fd_dtype_name(dt), cblocks.x * cblocks.y, cc);
            return CUDNN_STATUS_SUCCESS;
        }
    }
    lrn_nhwc_t m;
    const void *tp[4] = {a->x, a->y, a->dy, a->out};
    if (lrn_nhwc_bwd() && lrn_nhwc_ok(&g, dt, tp, 4, &m)) {
        /* lrn_bwd_nhwc: a 16-byte channel vector a thread, P pixels a tile */
        const unsigned threads = (unsigned)((m.P * m.nv + 31) / 32 * 32);
        const unsigned nb = fd_cuda_blocks(m.npix, m.P);
        cudaStream_t st = a->handle->stream;
        const bool plain = a->alpha == 1.0 && a->beta == 0.0;
        LRN_NHWC_SWITCH(lrn_bwd_nhwc, g, q, m, a->x, a->y, a->dy, a->out);
        FD_CUDA_LAUNCHED("lrn_bwd_nhwc<%u> on %s data (%u blocks of %u, %d pixels a tile%s)",
                         p->n, fd_dtype_name(dt), nb, threads, m.P, m.flat ? "" : ", strided");
        return CUDNN_STATUS_SUCCESS;
    }
    if (g.c_inner && g.C <= LRN_TILE_ELEMS) {
        /* lrn_bwd_tile: whole pixels (P of them, P * C <= LRN_TILE_ELEMS) in shared memory */
        const size_t acc = dt == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float);
        const size_t per_pixel =
            4 * sizeof(int64_t) + (2 * (size_t)(g.C + p->n - 1) + 2 * (size_t)g.C) * acc;
        int P = (int)(LRN_TILE_ELEMS / g.C);
        if ((size_t)P * per_pixel > LRN_TILE_SHARED) /* small C: the pads and offsets weigh */
            P = (int)(LRN_TILE_SHARED / per_pixel);  /* >= 1: 33 KB for C 1024, n 16, DOUBLE */
        const int64_t tiles = (g.total / g.C + P - 1) / P;
        const size_t shm = (size_t)P * per_pixel;
        const unsigned tb = fd_cuda_blocks(tiles, 1);
        cudaStream_t st = a->handle->stream;
        if (dt == CUDNN_DATA_FLOAT)
            lrn_bwd_tile_f32<<<tb, FD_CUDA_BLOCK, shm, st>>>(g, q, P, a->x, a->y, a->dy, a->out,
                                                             a->alpha, a->beta);
        else if (dt == CUDNN_DATA_DOUBLE)
            lrn_bwd_tile_f64<<<tb, FD_CUDA_BLOCK, shm, st>>>(g, q, P, a->x, a->y, a->dy, a->out,
                                                             a->alpha, a->beta);
        else if (dt == CUDNN_DATA_HALF)
            lrn_bwd_tile_f16<<<tb, FD_CUDA_BLOCK, shm, st>>>(g, q, P, a->x, a->y, a->dy, a->out,
                                                             a->alpha, a->beta);
        else
            lrn_bwd_tile_bf16<<<tb, FD_CUDA_BLOCK, shm, st>>>(g, q, P, a->x, a->y, a->dy, a->out,
                                                              a->alpha, a->beta);
        FD_CUDA_LAUNCHED("lrn_bwd_tile on %s data (%u blocks, %d pixels a tile, %zu B shared)",
                         fd_dtype_name(dt), tb, P, shm);
        return CUDNN_STATUS_SUCCESS;
    }
    const unsigned blocks = fd_cuda_blocks(g.total, FD_CUDA_BLOCK);
    FD_CUDA_TYPED_LAUNCH(p->x.dtype, lrn_bwd, blocks, FD_CUDA_BLOCK, a->handle->stream, g, q, a->x,
                         a->y, a->dy, a->out, a->alpha, a->beta);
    return CUDNN_STATUS_SUCCESS;
}

/* A divisive-normalization call's geometry, parameters, grid and stream. */
typedef struct {
    lrn_geom_t g;
    lrn_params_t q;
    unsigned blocks;
    cudaStream_t stream;
    cudnnDataType_t dt;
} dn_call_t;

static dn_call_t dn_call_of(const fd_divnorm_problem_t *p, const fd_divnorm_args_t *a)
{
    const struct cudnnTensorStruct *t[2] = {&p->x, &p->out};
    dn_call_t c;
    c.g = geom_of(t, 2, 1);
    c.q = params_of(p->n, p->alpha, p->beta, p->k, p->x.nb_dims - 2);
    c.blocks = fd_cuda_blocks(c.g.total, FD_CUDA_BLOCK);
    c.stream = a->handle->stream;
    c.dt = p->x.dtype;
    return c;
}

/* *use = in, or (the output overwrites it) its copy in temp, queued first: the kernels read
 * their inputs after they wrote some of the output. */
static cudnnStatus_t dn_input(const dn_call_t &c, const void *in, const void *out, void *temp,
                              const void **use)
{
    *use = in;
    if (out != in)
        return CUDNN_STATUS_SUCCESS;
    FD_CUDA_TYPED_LAUNCH(c.dt, dn_copy, c.blocks, FD_CUDA_BLOCK, c.stream, c.g, in, temp);
    *use = temp;
    return CUDNN_STATUS_SUCCESS;
}

static int dn_applicable(const void *problem, char *why, size_t why_size)
{
    return lrn_applicable(&((const fd_divnorm_problem_t *)problem)->x, why, why_size);
}

extern "C" int fd_divnorm_fwd_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return dn_applicable(problem, why, why_size);
}
extern "C" size_t fd_divnorm_fwd_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_divnorm_fwd_cuda_run(const void *problem, const void *args)
{
    const fd_divnorm_problem_t *p = (const fd_divnorm_problem_t *)problem;
    const fd_divnorm_args_t *a = (const fd_divnorm_args_t *)args;
    const dn_call_t c = dn_call_of(p, a);
    const void *x;
    FD_TRY(dn_input(c, a->x, a->out, a->temp, &x));
    FD_CUDA_TYPED_LAUNCH(c.dt, dn_fwd, c.blocks, FD_CUDA_BLOCK, c.stream, c.g, c.q, x, a->means,
                         a->out, a->alpha, a->beta);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_divnorm_bwd_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return dn_applicable(problem, why, why_size);
}
extern "C" size_t fd_divnorm_bwd_cuda_workspace(const void *problem)
{
    return fd_divnorm_fwd_cuda_workspace(problem);
}
extern "C" cudnnStatus_t fd_divnorm_bwd_cuda_run(const void *problem, const void *args)
{
    const fd_divnorm_problem_t *p = (const fd_divnorm_problem_t *)problem;
    const fd_divnorm_args_t *a = (const fd_divnorm_args_t *)args;
    const dn_call_t c = dn_call_of(p, a);
    const void *x, *dy;
    FD_TRY(dn_input(c, a->x, a->out, a->temp, &x));
    FD_TRY(dn_input(c, a->dy, a->out, a->temp2, &dy));
    FD_CUDA_TYPED_LAUNCH(c.dt, dn_bwd, c.blocks, FD_CUDA_BLOCK, c.stream, c.g, c.q, x, a->means, dy,
                         a->out, a->dmeans, a->alpha, a->beta);
    return CUDNN_STATUS_SUCCESS;
}
