/* SPDX-License-Identifier: MIT */
/*
 * pooling.cu - pooling forward and backward on the GPU (rows fd_pool_fwd_cuda, fd_pool_bwd_cuda):
 * every mode (MAX and MAX_DETERMINISTIC are one deterministic code, both averages), both NaN
 * options, 1 to 3 spatial dims, floor and ceil output sizes, any padding (negative = crop), any
 * non-negative element strides; FLOAT, DOUBLE, HALF, BFLOAT16. No workspace.
 *
 * The semantics are src/ref/pooling_ref.c's, reproduced bit for bit: a max is a comparison
 * (exact in any type), window sums and the backward accumulation are done in double in the
 * reference's order (a window is a handful of terms, so double costs nothing against the
 * memory traffic). Forward: one thread per y element. Backward: a gather, one thread per dx
 * element looping over the windows that cover it; for max the argmax of each such window is
 * recomputed from x with the reference's tie rule (first position in D, H, W order; with
 * PROPAGATE_NAN the first NaN), so y is not read and no atomics are needed. Threads walk the
 * output with C innermost when its C stride is smaller than its W stride (NHWC, NDHWC) and W
 * innermost otherwise, which makes the stores and most loads coalesced in both layouts.
 * Channels-last calls with C stride 1, C and the other strides multiples of the 16-byte vector
 * and aligned pointers take pool_{fwd,bwd}_vec: a vector of channels per thread (8 halves, 4
 * floats), 128-bit loads and stores, each lane under the scalar rules in the scalar order, so
 * the same bits; grids of a few waves (fd_cuda_wave_blocks) walked by the grid-stride loop.
 * Max backward of 2-d (and 1-d) problems that are not channels-last takes pool_bwd_tile: a block
 * per 32 x 64 dx tile (16 x 32 until 2026-11-30; each window's dy is now staged in shared
 * memory with its argmax), each overlapping window's argmax found once into shared memory (the
 * gather found it once per covered element, 9 times for 3x3, with 64-bit index arithmetic:
 * 72 GB/s on the H200 against NVIDIA's 2.2 TB/s), the same sums in the same order, the same bits.
 * Max forward of 2-d (and 1-d) problems whose offsets fit 30 bits takes pool_max2d_*: the
 * channels-last vector kernel or, with W innermost, a (plane, outputs) grid, both with 32-bit
 * geometry clipped once per window (the general kernels unflatten five 64-bit coordinates and
 * count windows in double per output); the same scan, the same bits.
 * 2-d problems of stride 2 with windows of 2 or 3 and padding >= 0 (ResNet's 3x3 / 2 pad 1 max,
 * 2x2 / 2 averages), every mode, both directions, take the sweeps of pooling_s2.cuh first
 * (2026-11-30, seventh session: NCHW max bwd was 0.26x, avg 0.10-0.34x, NHWC max 0.14-0.70x of
 * NVIDIA's on the H200): threads walk down H keeping the shared window row in registers, and
 * the backward routes each window's dy to its own 2 x 2 dx block and its neighbours' without
 * recomputing any window per covered cell; the same sums in the same order, the same bits.
 * Channels-last max forward of those takes pool_s2_max_fwd_vec (2026-12-01, issue 7.4: the
 * sweep ran 0.58x / 0.65x NVIDIA's f32 / f16 rate): 16-byte vectors, the next step's rows in
 * flight during the max, lane-wise max chains (pool_vmax16) with the exact scan redone only
 * for NaN or zero results; the same bits. The W-innermost max forward takes
 * pool_s2_max_fwd_rows (same day, 0.83x / 0.82x): a 16-byte row vector per lane, the
 * neighbouring columns by shuffles, the same chains and redo; FLOAT / DOUBLE averages
 * pool_s2_avg_fwd_rows (0.74x for f32 2x2): the same rows, partial sums in double in
 * window_sum's order.
 * Max backward of 3x3 / 2 pad 1 takes the gathers of pooling_s2g.cuh (a thread per dx block,
 * every covering window's argmax recomputed from x, no loop, every load in flight): W innermost
 * FLOAT (FREEDNN_GPU_BW3, 0.65x -> 0.99x NVIDIA's rate) and HALF / BFLOAT16 (FREEDNN_GPU_BW5),
 * channels-last FLOAT / HALF / BFLOAT16 (FREEDNN_GPU_BW5: a 2 x 2 dx block of one 16-byte
 * channel vector a thread); the same sums in the same order, the same bits. With W innermost
 * they come after pooling_smb.cuh (FREEDNN_GPU_POOL_SMB, 2026-12-02: x and dy of a tile of
 * window rows staged in shared memory, each window's argmax once, a thread per 2 x 2 dx block;
 * f16 1.17x, f32 1.04x the gathers' rate on the H200), the same bits.
 * Channels-last averages of those (FLOAT / HALF / BFLOAT16, 16-byte vectors) take the gathers
 * of pooling_avgv.cuh (FREEDNN_GPU_POOL_AVGV, 2026-12-02: the sweeps pool_s2_{fwd,bwd}_vec ran
 * f16 n32c256h56w56 2x2 / 2 at 1574 / 378 GB/s on the H200, 8-byte vectors, one step's loads in
 * flight, and the backward read and masked x it does not need): a thread per y vector
 * forward (every window cell loaded before the sums), per 2 x 2 dx block backward (the dy of
 * the up to four covering windows loaded at once, each dy / count taken once per lane, added
 * per cell in ascending window order; 2x2 pad 0: one dy vector stored to four dx vectors),
 * 32-bit indices, no loops; the same sums in the same order, the same bits.
 * The common max forward of those (alpha 1, beta 0, pad 0 / 1, FLOAT / HALF / BFLOAT16, rows or
 * channel vectors 16-byte aligned) takes pooling_lean.cuh first (FREEDNN_GPU_POOL_LEAN,
 * 2026-12-02: the sweeps above ran at 54-110 registers, 2-4 blocks an SM): a thread per 16-byte
 * channel vector of y, or per 8-byte run of a y row, no loop, <= 32 registers (8 blocks an SM);
 * the same lane-wise max chains and exact-scan redo, the same bits.
 */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elem.cuh"
#include "fd_cuda.cuh"

extern "C" {
#include "../core/pooling.h"
}

/* The problem plus what the kernels derive once on the host. */
typedef struct {
    fd_pool_problem_t p;
    double lowest; /* start value of a max: the most negative finite value of the type */
    int is_max, include_pad;
    int c_inner; /* walk with C innermost (channels-last output) */
    int idx32;   /* the walked tensor has < 2^32 elements: its index divides in 32 bits */
} pool_geom_t;

/* The lean 2-d max forward (pooling_kernels.cuh, pool_max2d_*): 32-bit geometry, strides in
 * elements, the readable range [rlo, rhi) of rows and columns. */
typedef struct {
    int n, c, planes, out_h, out_w, win_h, win_w, pad_h, pad_w, s_h, s_w;
    int rlo_h, rhi_h, rlo_w, rhi_w, propagate;
    int xs_n, xs_c, xs_h, xs_w, ys_n, ys_c, ys_h, ys_w;
    double lowest;
} pool_max2d_t;

/* Readable range [lo, hi) of one window per dim and its two counts (src/core/pooling.h). */
typedef struct {
    int64_t lo[3], hi[3];
    double readable, padded;
} pool_window_t;

static __device__ __forceinline__ int64_t pool_max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}
static __device__ __forceinline__ int64_t pool_min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}
static __device__ __forceinline__ int64_t pool_floor_div(int64_t a, int64_t b) /* b > 0 */
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static __device__ __forceinline__ int pool_floor_div32(int a, int b) /* b > 0 */
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* pool_bwd_tile (pooling_kernels.cuh): dx tile per block, windows' argmax in shared memory. */
#define POOL_TILE_H 32
#define POOL_TILE_W 64
#define POOL_TILE_WIN 2560 /* windows overlapping one tile, at most (3x3 stride 1: 35 x 67) */

static __device__ __forceinline__ void pool_window_of(const fd_pool_problem_t &p, const int64_t *o,
                                                      pool_window_t *w)
{
    w->readable = 1;
    w->padded = 1;
    for (int d = 0; d < 3; d++) {
        const int64_t start = o[d] * p.stride[d] - p.pad[d], end = start + p.win[d];
        const int64_t rlo = pool_max64(0, -p.pad[d]), rhi = pool_min64(p.in[d], p.in[d] + p.pad[d]);
        w->lo[d] = pool_max64(start, rlo);
        w->hi[d] = pool_min64(end, rhi);
        w->readable *= (double)pool_max64(0, w->hi[d] - w->lo[d]);
        w->padded *= (double)pool_max64(
            0, pool_min64(end, p.in[d] + p.pad[d]) - pool_max64(start, -p.pad[d]));
    }
}

/* Element e of an (n, c, s0, s1, s2) walk, C innermost or s2 innermost. The 32-bit twin is
 * used below 2^32 elements: a 64-bit division is a long software sequence, five of them per
 * element against a 2x2 or 3x3 window's handful of loads (predicted, not yet measured). */
static __device__ __forceinline__ void pool_unflatten32(uint32_t C, const int64_t *sz, int c_inner,
                                                        uint32_t e, int64_t *n, int64_t *c,
                                                        int64_t *s)
{
    if (c_inner) {
        const uint32_t q = e / C;
        *c = e - q * C;
        e = q;
    }
    for (int d = 2; d >= 0; d--) {
        const uint32_t q = e / (uint32_t)sz[d];
        s[d] = e - q * (uint32_t)sz[d];
        e = q;
    }
    if (!c_inner) {
        const uint32_t q = e / C;
        *c = e - q * C;
        e = q;
    }
    *n = e;
}

static __device__ __forceinline__ void pool_unflatten(int64_t C, const int64_t *sz, int c_inner,
                                                      int64_t e, int64_t *n, int64_t *c,
                                                      int64_t *s)
{
    if (c_inner) {
        *c = e % C;
        e /= C;
    }
    s[2] = e % sz[2];
    e /= sz[2];
    s[1] = e % sz[1];
    e /= sz[1];
    s[0] = e % sz[0];
    e /= sz[0];
    if (!c_inner) {
        *c = e % C;
        e /= C;
    }
    *n = e;
}

/* pool_s2_* (pooling_s2.cuh): 2-d, stride 2, windows of 2 or 3, padding >= 0; 32-bit geometry
 * and element strides (g*: y forward, dy backward; d*: dx). rows x cols: the window rows and
 * columns (forward) or the dx row and column pairs (backward) the threads sweep; chunk: window
 * rows per thread; wpr: warps per row of a plane (W-innermost kernels); planes: N * C (N for
 * the channels-last kernels). */
typedef struct {
    int c, planes, in_h, in_w, out_h, out_w, win_h, win_w, pad_h, pad_w;
    int rows, cols, chunk, nchunks, wpr;
    int seg, yvec; /* pool_s2_max_fwd_rows: lanes per row segment, y stored 8 bytes a lane */
    int is_max, include_pad, propagate;
    int xs_n, xs_c, xs_h, xs_w, gs_n, gs_c, gs_h, gs_w, ds_n, ds_c, ds_h, ds_w;
    double lowest;
    int zcheap; /* pool_s2_max_fwd_vec: zero lanes redo only when a cell is -0 (fd_cuda_bw2_on) */
    int tile_lg; /* pool_lean_nhwc_*: 1 << tile_lg output rows a tile (pooling_lean.cuh) */
} pool_s2_t;

/* 1 when a 16-byte vector of elements of `size` bytes holds a -0 (the sign bit alone): the
 * only bits that can make a zero maximum's sign differ from the lane-wise max chain's. */
static __device__ __forceinline__ bool pool_neg0(const uint4 &u, int size)
{
    const unsigned w[4] = {u.x, u.y, u.z, u.w};
    bool r = false;
    if (size == 8)
        return (w[0] == 0u && w[1] == 0x80000000u) || (w[2] == 0u && w[3] == 0x80000000u);
#pragma unroll
    for (int k = 0; k < 4; k++)
        r |= size == 4 ? w[k] == 0x80000000u
                       : (w[k] & 0xffffu) == 0x8000u || (w[k] >> 16) == 0x8000u;
    return r;
}

#define POOL_S2_FULL 0xffffffffu /* every lane of a warp (the backward's shuffles) */
#define POOL_S2_VEC_BYTES 8      /* channels per thread of the channels-last sweeps, in bytes */
/* pool_s2_max_fwd_rows' blocks of 256 an SM for 16-bit types: 3 on sm_90 (78 registers), 2 on
 * sm_80 (bf16 spilled at 3); 4 for the others (f32 54, f64 64 registers) */
/* pool_s2_bwd_occ's blocks of 256 an SM (FREEDNN_GPU_BW2): 5 (47 registers, sm_80 / sm_90);
 * DOUBLE 4 (it spilled at 5 on sm_80); 6 spilled every type */
#define POOL_S2_BWD_MINB(T) (sizeof(T) == 8 ? 4 : 5)
#define POOL_S2_ROWS_AVG_MINB 2 /* pool_s2_avg_fwd_rows' (the doubles of G partial sums) */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define POOL_S2_ROWS_MINB16 2
#else
#define POOL_S2_ROWS_MINB16 3
#endif

/* The 9-bit mask of a 3 x 3 window image from its row masks (the bottom row only for windows
 * 3 tall). */
static __device__ __forceinline__ int pool_s2_mask(const pool_s2_t &q, int okt, int okm, int okb)
{
    return okt | okm << 3 | (q.win_h == 3 ? okb << 6 : 0);
}

/* pool_avg22_fwd / _bwd's thread: vector v of vw along the written row, window row i, image n,
 * channel c; false past the last plane. */
static __device__ __forceinline__ bool pool_avg22_item(const pool_s2_t &q, int vw, int *v, int *i,
                                                       int *n, int *c)
{
    int e = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    *v = e % vw;
    e /= vw;
    *i = e % q.out_h;
    const int pl = e / q.out_h;
    *n = pl / q.c, *c = pl - *n * q.c;
    return pl < q.planes;
}

/* FREEDNN_GPU_BW2=0 turns off the second round of bandwidth variants (2026-12-01: the 16-byte
 * transpose of tensor_ops.cu, the zero test of pool_s2_max_fwd_vec, ...); read once per
 * process (a function-local static: C++ initialises it once, thread-safely). */
extern "C" int fd_cuda_bw2_on(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_BW2");
    return on;
}
/* FREEDNN_GPU_BW3=0 turns off the third round (2026-12-01, issue 7.4: the FLOAT 3x3 / 2 pad 1
 * max-pool backward gather pool_s2g_max_bwd_f32, the FLOAT LRN column kernels' power in lrn.cu,
 * softmax_wreg's FLOAT reciprocal in softmax.cu); read once per process, as above. */
extern "C" int fd_cuda_bw3_on(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_BW3");
    return on;
}

/* FREEDNN_GPU_BW5=0 turns off the fifth round (2026-12-01, issue 7.4: the 3x3 / 2 pad 1 max-pool
 * backward gathers of pooling_s2g.cuh for HALF / BFLOAT16 with W innermost and for FLOAT /
 * HALF / BFLOAT16 channels-last); read once per process, as above. */
extern "C" int fd_cuda_bw5_on(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_BW5");
    return on;
}

/* The divisor of window (i, j) whose readable cells are the bits of ok: pool_window_t's
 * readable or padded count (the same doubles: products of small integers). */
static __device__ __forceinline__ double pool_s2_count(const pool_s2_t &q, int i, int j, int ok)
{
    if (!q.include_pad)
        return (double)__popc(ok);
    const int sh = 2 * i - q.pad_h, sw = 2 * j - q.pad_w; /* >= -pad: max(start, -pad) = start */
    const int ph = min(sh + q.win_h, q.in_h + q.pad_h) - sh;
    const int pw = min(sw + q.win_w, q.in_w + q.pad_w) - sw;
    return (double)max(ph, 0) * (double)max(pw, 0);
}

/* Lane-wise max of the 16-byte vectors a and b of one storage type, into r (which may be a):
 * the NaN-ignoring max (a NaN lane takes the other operand), or with nan the NaN-propagating
 * one (PTX max.NaN, sm_80+). Only the value matters to the callers, which redo a lane whose
 * result is NaN or zero (payload and sign of zero) with the exact scan; other results are
 * the largest cell, whose bits no tie can change. Overloaded by the element pointer. */
static __device__ __forceinline__ float pool_fmax_nan(float a, float b)
{
    float r;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}
static __device__ __forceinline__ float pool_max1(float a, float b, bool nan)
{
    return nan ? pool_fmax_nan(a, b) : fmaxf(a, b);
}
static __device__ __forceinline__ double pool_max1(double a, double b, bool nan)
{
    return nan && a != a ? a : nan && b != b ? b : fmax(a, b);
}
static __device__ __forceinline__ void pool_vmax16(float *r, const float *a, const float *b,
                                                   bool nan)
{
#pragma unroll
    for (int l = 0; l < 4; l++)
        r[l] = nan ? pool_fmax_nan(a[l], b[l]) : fmaxf(a[l], b[l]);
}
static __device__ __forceinline__ void pool_vmax16(double *r, const double *a, const double *b,
                                                   bool nan)
{
#pragma unroll
    for (int l = 0; l < 2; l++)
        r[l] = nan && a[l] != a[l] ? a[l] : nan && b[l] != b[l] ? b[l] : fmax(a[l], b[l]);
}
static __device__ __forceinline__ void pool_vmax16(__half *r, const __half *a, const __half *b,
                                                   bool nan)
{
    __half2 *r2 = (__half2 *)r;
    const __half2 *a2 = (const __half2 *)a, *b2 = (const __half2 *)b;
#pragma unroll
    for (int l = 0; l < 4; l++)
        r2[l] = nan ? __hmax2_nan(a2[l], b2[l]) : __hmax2(a2[l], b2[l]);
}
static __device__ __forceinline__ void pool_vmax16(__nv_bfloat16 *r, const __nv_bfloat16 *a,
                                                   const __nv_bfloat16 *b, bool nan)
{
    __nv_bfloat162 *r2 = (__nv_bfloat162 *)r;
    const __nv_bfloat162 *a2 = (const __nv_bfloat162 *)a, *b2 = (const __nv_bfloat162 *)b;
#pragma unroll
    for (int l = 0; l < 4; l++)
        r2[l] = nan ? __hmax2_nan(a2[l], b2[l]) : __hmax2(a2[l], b2[l]);
}

/* ---- the kernels, once per storage type --------------------------------------------------- */

#define FD_STAMP_FILE "pooling_kernels.cuh"
#include "stamp_types.cuh"

/* after the stamped kernels */
#include "pooling_s2g.cuh"
#include "pooling_smb.cuh"

/* after pooling_s2g.cuh: its lane helpers (the column walks) */
#include "pooling_cw.cuh"
#include "pooling_cwn.cuh"

/* after pooling_s2g.cuh: its lane helpers */
#include "pooling_avgv.cuh"
/* after pooling_avgv.cuh: its item helper */
#include "pooling_lean.cuh"

/* ---- rows (src/impls.def) ------------------------------------------------------------------ */

static double lowest_finite(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE:
        return -DBL_MAX;
    case CUDNN_DATA_HALF:
        return -65504.0;
    case CUDNN_DATA_BFLOAT16:
        return -0x1.fep127;
    default:
        return -FLT_MAX;
    }
}

/* s: strides N, C, D, H, W of the tensor the threads write. */
static pool_geom_t geom_of(const fd_pool_problem_t *p, const int64_t *s)
{
    pool_geom_t g;
    g.p = *p;
    g.lowest = lowest_finite(p->dt);
    g.is_max = p->mode == CUDNN_POOLING_MAX || p->mode == CUDNN_POOLING_MAX_DETERMINISTIC;
    g.include_pad = p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
    g.c_inner = p->c > 1 && s[1] < s[4];
    const int64_t *sz = s == p->ys ? p->out : p->in; /* forward walks y, backward dx */
    g.idx32 = p->n * p->c * sz[0] * sz[1] * sz[2] < ((int64_t)1 << 32);
    return g;
}

/* 1 when the tensors with strides ts[0..nt) and pointers ptr[0..nt) take the channels-last
 * packed kernels: C stride 1, C and every other stride a multiple of the vector width, 16-byte
 * aligned pointers (a misaligned or odd call takes the scalar kernels, same bits). */
static int pool_vec_ok(const fd_pool_problem_t *p, const int64_t *const *ts, const void *const *ptr,
                       int nt)
{
    const int64_t vec = FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(p->dt);
    if (p->c % vec != 0)
        return 0;
    for (int j = 0; j < nt; j++) {
        if (ts[j][1] != 1 || !fd_cuda_aligned16(ptr[j]))
            return 0;
        for (int d = 0; d < 2 + FD_POOL_SPATIAL_MAX; d++)
            if (d != 1 && ts[j][d] % vec != 0)
                return 0;
    }
    return 1;
}

/* 1 when max backward takes pool_bwd_tile: MAX / MAX_DETERMINISTIC, no depth (a 2-d or 1-d
 * problem), W innermost in dx, every extent, pad and product of positions in 32 bits, a grid of
 * fewer than 2^31 tiles, at most POOL_TILE_WIN windows overlapping a tile. */
static int pool_tile_ok(const fd_pool_problem_t *p, const pool_geom_t *g)
{
    if (!g->is_max || g->c_inner || p->in[0] != 1 || p->out[0] != 1 || p->win[0] != 1 || p->pad[0] != 0)
        return 0;
    const int64_t lim = (int64_t)1 << 30;
    for (int d = 1; d < 3; d++)
        if (p->in[d] >= lim || p->out[d] >= lim || p->win[d] >= lim || p->pad[d] >= lim || p->pad[d] <= -lim ||
            p->stride[d] < 1 || p->stride[d] >= lim)
            return 0;
    if (p->in[1] * p->in[2] >= ((int64_t)1 << 31))
        return 0; /* positions are 32-bit */
    const int64_t th = (p->in[1] + POOL_TILE_H - 1) / POOL_TILE_H, tw = (p->in[2] + POOL_TILE_W - 1) / POOL_TILE_W;
    if (p->n * p->c * th * tw >= ((int64_t)1 << 31) || p->n * p->c >= ((int64_t)1 << 31))
        return 0;
    /* windows overlapping TH consecutive rows: at most (TH - 1 + win) / stride + 1 */
    const int64_t wh = (POOL_TILE_H - 1 + p->win[1]) / p->stride[1] + 1;
    const int64_t ww = (POOL_TILE_W - 1 + p->win[2]) / p->stride[2] + 1;
    return wh * ww <= POOL_TILE_WIN;
}

/* 1 (and *q filled) when max forward takes pool_max2d_*: MAX / MAX_DETERMINISTIC, no depth,
 * positive strides, every extent, pad and offset of x and y below 2^30 (32-bit arithmetic;
 * negative strides are not taken). */
static int pool_max2d_ok(const fd_pool_problem_t *p, const pool_geom_t *g, pool_max2d_t *q)
{
    if (!g->is_max || p->in[0] != 1 || p->out[0] != 1 || p->win[0] != 1 || p->pad[0] != 0)
        return 0;
    const int64_t lim = (int64_t)1 << 30;
    int64_t xmax = 0, ymax = 0;
    const int64_t xd[5] = {p->n, p->c, 1, p->in[1], p->in[2]};
    const int64_t yd[5] = {p->n, p->c, 1, p->out[1], p->out[2]};
    for (int d = 0; d < 5; d++) {
        if (p->xs[d] < 0 || p->ys[d] < 0 || xd[d] >= lim || yd[d] >= lim)
            return 0;
        xmax += (xd[d] - 1) * p->xs[d];
        ymax += (yd[d] - 1) * p->ys[d];
    }
    if (xmax >= lim || ymax >= lim || p->n * p->c >= lim ||
        p->n * p->c * p->out[1] * p->out[2] >= lim)
        return 0;
    for (int d = 1; d < 3; d++)
        if (p->win[d] >= lim || p->pad[d] >= lim || p->pad[d] <= -lim || p->stride[d] < 1 ||
            p->stride[d] >= lim)
            return 0;
    q->n = (int)p->n, q->c = (int)p->c, q->planes = (int)(p->n * p->c);
    q->out_h = (int)p->out[1], q->out_w = (int)p->out[2];
    q->win_h = (int)p->win[1], q->win_w = (int)p->win[2];
    q->pad_h = (int)p->pad[1], q->pad_w = (int)p->pad[2];
    q->s_h = (int)p->stride[1], q->s_w = (int)p->stride[2];
    q->rlo_h = (int)(p->pad[1] < 0 ? -p->pad[1] : 0);
    q->rhi_h = (int)(p->pad[1] < 0 ? p->in[1] + p->pad[1] : p->in[1]);
    q->rlo_w = (int)(p->pad[2] < 0 ? -p->pad[2] : 0);
    q->rhi_w = (int)(p->pad[2] < 0 ? p->in[2] + p->pad[2] : p->in[2]);
    q->propagate = p->propagate_nan;
    q->xs_n = (int)p->xs[0], q->xs_c = (int)p->xs[1];
    q->xs_h = (int)p->xs[3], q->xs_w = (int)p->xs[4];
    q->ys_n = (int)p->ys[0], q->ys_c = (int)p->ys[1];
    q->ys_h = (int)p->ys[3], q->ys_w = (int)p->ys[4];
    q->lowest = g->lowest;
    return 1;
}

/* 1 (and *q filled) when the call takes pool_s2_{fwd,bwd}[_vec]: MAX, MAX_DETERMINISTIC or
 * an average of a 2-d problem, stride 2 with a 2 or 3 wide window in H and W, padding 0..1024
 * (no crop), extents below 2^28, non-negative strides with every offset of x, y / dy and dx
 * below 2^31, and fewer than 2^31 threads. vec: the bytes of channels per thread of the
 * channels-last kernels (POOL_S2_VEC_BYTES, FD_CUDA_VEC_BYTES for pool_s2_max_fwd_vec; the
 * caller checked pool_vec_ok), 0 for W innermost in the written tensor (NCHW-like). */
static int pool_s2_ok(const fd_pool_problem_t *p, const pool_geom_t *g, int bwd, int vec,
                      pool_s2_t *q)
{
    if (p->in[0] != 1 || p->out[0] != 1 || p->win[0] != 1 || p->pad[0] != 0)
        return 0;
    if (!vec && g->c_inner)
        return 0;
    const int64_t lim = (int64_t)1 << 28;
    for (int d = 1; d < 3; d++)
        if (p->stride[d] != 2 || p->win[d] < 2 || p->win[d] > 3 || p->pad[d] < 0 ||
            p->pad[d] > 1024 || p->in[d] >= lim || p->out[d] >= lim)
            return 0;
    const int64_t *ts[3] = {p->xs, bwd ? p->dys : p->ys, p->dxs};
    for (int k = 0; k < (bwd ? 3 : 2); k++) {
        const int64_t *sz = k == 1 ? p->out : p->in;
        const int64_t ext[5] = {p->n, p->c, 1, sz[1], sz[2]};
        int64_t mx = 0;
        for (int d = 0; d < 5; d++) {
            if (ts[k][d] < 0 || ext[d] >= ((int64_t)1 << 31))
                return 0;
            mx += (ext[d] - 1) * ts[k][d];
        }
        if (mx >= ((int64_t)1 << 31) - 64)
            return 0;
    }
    const int64_t vw = vec / (int64_t)fd_dtype_size(p->dt);
    const int64_t rows = bwd ? (p->in[1] + p->pad[1] + 1) / 2 : p->out[1];
    const int64_t cols = bwd ? (p->in[2] + p->pad[2] + 1) / 2 : p->out[2];
    const int64_t wpr = bwd ? (cols + 30) / 31 : (cols + 31) / 32;
    /* threads per chunk row: whole warps per plane row, or one per (n, column, vector) */
    const int64_t per = vec ? p->n * cols * (p->c / vw) : p->n * p->c * wpr * 32;
    /* 8 window rows per thread (a backward chunk costs one extra halo step), fewer while that
     * leaves under 1024 threads per SM (~2 waves of the channels-last backward, which holds 512
     * per SM at ~110 registers; ~1 of the others). Not measured yet: a guess to tune. */
    const int64_t target = (int64_t)fd_cuda_sm_count() * 1024;
    int64_t chunk = 8;
    while (chunk > 2 && per * ((rows + chunk - 1) / chunk) < target)
        chunk /= 2;
    const int64_t nchunks = (rows + chunk - 1) / chunk;
    if (per * nchunks >= ((int64_t)1 << 31) - FD_CUDA_BLOCK)
        return 0;
    q->c = (int)p->c, q->planes = (int)(vec ? p->n : p->n * p->c);
    q->in_h = (int)p->in[1], q->in_w = (int)p->in[2];
    q->out_h = (int)p->out[1], q->out_w = (int)p->out[2];
    q->win_h = (int)p->win[1], q->win_w = (int)p->win[2];
    q->pad_h = (int)p->pad[1], q->pad_w = (int)p->pad[2];
    q->seg = 0, q->yvec = 0, q->tile_lg = 0;
    q->rows = (int)rows, q->cols = (int)cols, q->chunk = (int)chunk;
    q->nchunks = (int)nchunks, q->wpr = (int)wpr;
    q->is_max = g->is_max, q->include_pad = g->include_pad, q->propagate = p->propagate_nan;
    q->xs_n = (int)p->xs[0], q->xs_c = (int)p->xs[1], q->xs_h = (int)p->xs[3];
    q->xs_w = (int)p->xs[4];
    q->gs_n = (int)ts[1][0], q->gs_c = (int)ts[1][1], q->gs_h = (int)ts[1][3];
    q->gs_w = (int)ts[1][4];
    q->ds_n = (int)p->dxs[0], q->ds_c = (int)p->dxs[1], q->ds_h = (int)p->dxs[3];
    q->ds_w = (int)p->dxs[4];
    q->lowest = g->lowest;
    q->zcheap = fd_cuda_bw2_on();
    return 1;
}

/* 1 (and *q filled, its chunk re-chosen) when forward takes pool_s2_{max,avg}_fwd_rows (the
 * caller sends averages of 16-bit types to pool_s2_fwd, at >= 1.0x NVIDIA's rate there and the
 * average rows kernel at 2 blocks an SM for them): the W-innermost sweep's conditions
 * (pool_s2_ok, vec 0), x's W stride 1,
 * its other strides multiples of the 16-byte vector and x 16-byte aligned, pad_w <= 1, a row of
 * outputs in at most 32 lanes of G = vector / 2 outputs; yvec when y's W stride is 1, its other
 * strides and out_w are multiples of G and y is 8-byte aligned. */
static int pool_s2_rows_ok(const fd_pool_problem_t *p, const pool_geom_t *g, const void *x,
                           const void *y, pool_s2_t *q)
{
    const int64_t e = FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(p->dt), gw = e / 2;
    if (p->xs[4] != 1 || !fd_cuda_aligned16(x) || p->pad[2] > 1 || p->xs[0] % e != 0 ||
        p->xs[1] % e != 0 || p->xs[3] % e != 0 || (p->out[2] + gw - 1) / gw > 32 ||
        !pool_s2_ok(p, g, 0, 0, q))
        return 0;
    const int64_t seg = (p->out[2] + gw - 1) / gw, spw = 32 / seg, planes = p->n * p->c;
    /* 8 window rows per segment, fewer while that leaves under one full wave (2048 threads
     * an SM): each lane keeps 32 B of loads in flight, so a wave is ~64 KB an SM */
    const int64_t target = (int64_t)fd_cuda_sm_count() * 2048;
    int64_t chunk = 8;
    while (chunk > 2 && (planes * ((p->out[1] + chunk - 1) / chunk) + spw - 1) / spw * 32 < target)
        chunk /= 2;
    const int64_t nchunks = (p->out[1] + chunk - 1) / chunk;
    if ((planes * nchunks + spw - 1) / spw * 32 >= ((int64_t)1 << 31) - FD_CUDA_BLOCK)
        return 0;
    q->chunk = (int)chunk, q->nchunks = (int)nchunks, q->seg = (int)seg;
    const uintptr_t ya = (uintptr_t)y;
    q->yvec = p->ys[4] == 1 && p->out[2] % gw == 0 && p->ys[0] % gw == 0 && p->ys[1] % gw == 0 &&
              p->ys[3] % gw == 0 && ya % (uintptr_t)(gw * fd_dtype_size(p->dt)) == 0;
    return 1;
}

/* FREEDNN_GPU_BW3_S2G_MINB=3: pool_s2g's 3-blocks-an-SM instantiation (the A/B of its
 * occupancy); read once. */
static int s2g_minb_env(void)
{
    const char *e = getenv("FREEDNN_GPU_BW3_S2G_MINB");
    return e != NULL && strcmp(e, "3") == 0 ? 3 : 4;
}
static int s2g_minb(void)
{
    static const int b = s2g_minb_env();
    return b;
}

/* 1 when a max backward pool_s2_ok accepted has the gathers' window (pooling_s2g.cuh): 3 x 3,
 * pad 1 in H and W, of FLOAT, HALF or BFLOAT16. (Their max chain starts at -inf: no value of
 * these types lies between -inf and lowest_finite's start value, so the first pick is the
 * same.) */
static int pool_s2g_common_ok(const fd_pool_problem_t *p, const pool_geom_t *g, const pool_s2_t *q)
{
    return p->dt != CUDNN_DATA_DOUBLE && g->is_max && q->win_h == 3 && q->win_w == 3 &&
           q->pad_h == 1 && q->pad_w == 1;
}

/* 1 when x's and dx's rows are whole 4-element vectors (the W-innermost max-backward kernels):
 * W stride 1, the N, C and H strides multiples of 4, both pointers aligned to 4 elements. */
static int pool_rows4_ok(const fd_pool_problem_t *p, const void *x, const void *dx)
{
    const uintptr_t al = 4 * (uintptr_t)fd_dtype_size(p->dt) - 1;
    if (p->xs[4] != 1 || p->dxs[4] != 1 || ((uintptr_t)x & al) != 0 || ((uintptr_t)dx & al) != 0)
        return 0;
    const int64_t *ss[2] = {p->xs, p->dxs};
    for (int k = 0; k < 2; k++)
        if (ss[k][0] % 4 != 0 || ss[k][1] % 4 != 0 || ss[k][3] % 4 != 0)
            return 0;
    return 1;
}

/* 1 (and *groups, *pairs: the thread grid) when a max backward pool_s2_ok accepted (q, W
 * innermost) takes pool_s2g_max_bwd_{f32,f16,bf16} (pooling_s2g.cuh): pool_s2g_common_ok,
 * FLOAT under FREEDNN_GPU_BW3, HALF / BFLOAT16 under FREEDNN_GPU_BW5, W stride 1 in x and dx,
 * their other strides multiples of 4 and the pointers aligned to a lane's 4 elements (16 bytes
 * for FLOAT, 8 for the 16-bit types; dy: any strides), fewer than 2^31 threads. */
static int pool_s2g_ok(const fd_pool_problem_t *p, const pool_geom_t *g, const pool_s2_t *q,
                       const void *x, const void *dx, int *groups, int *pairs)
{
    const int on = p->dt == CUDNN_DATA_FLOAT ? fd_cuda_bw3_on() : fd_cuda_bw5_on();
    if (!on || !pool_s2g_common_ok(p, g, q) || !pool_rows4_ok(p, x, dx))
        return 0;
    const int64_t gr = (p->in[2] + 3) / 4, pr = (p->in[1] + 1) / 2;
    if ((int64_t)q->planes * pr * gr >= ((int64_t)1 << 31) - FD_CUDA_BLOCK)
        return 0;
    *groups = (int)gr, *pairs = (int)pr;
    return 1;
}

/* 1 (and the thread grid: *cvn vectors a pixel, *sp column pairs, *tp row pairs, *th threads
 * in tiles of 4 x 2 pairs) when a channels-last max backward (pool_vec_ok: C stride 1, C and
 * the other strides multiples of the 16-byte vector, aligned pointers) that pool_s2_ok
 * accepted takes pool_s2g_max_bwd_nhwc_{f32,f16,bf16} (pooling_s2g.cuh, FREEDNN_GPU_BW5):
 * pool_s2g_common_ok, fewer than 2^31 threads. */
static int pool_s2g_nhwc_ok(const fd_pool_problem_t *p, const pool_geom_t *g, const pool_s2_t *q,
                            int *cvn, int *sp, int *tp, int64_t *th)
{
    if (!fd_cuda_bw5_on() || !pool_s2g_common_ok(p, g, q))
        return 0;
    const int64_t v = p->c / (FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(p->dt));
    const int64_t s = (p->in[2] + 1) / 2, t = (p->in[1] + 1) / 2;
    *th = p->n * ((t + 3) / 4) * ((s + 1) / 2) * 8 * v;
    if (*th >= ((int64_t)1 << 31) - FD_CUDA_BLOCK)
        return 0;
    *cvn = (int)v, *sp = (int)s, *tp = (int)t;
    return 1;
}

/* FREEDNN_GPU_POOL_CWN=0 turns off the channels-last column walks of pooling_cwn.cuh
 * (2026-12-03, issue 7.4; pool_s2g_max_bwd_nhwc_* takes their cases); FREEDNN_GPU_POOL_CWN_R:
 * window rows a strip (1 .. 4096, default 14: dev/pool_bwd_nhwc's best). Read once per
 * process. */
static int pool_cwn_on(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_POOL_CWN");
    return on;
}
static int pool_cwn_rows(void)
{
    static const int r = (int)fd_env_long("FREEDNN_GPU_POOL_CWN_R", 1, 4096, 14);
    return r;
}

/* 1 (and *cvn vectors a pixel, *R window rows a strip, *nst strips a plane, *blocks) when a
 * channels-last max backward that pool_s2g_nhwc_ok would take (pool_vec_ok, pool_s2_ok,
 * pool_s2g_common_ok, FREEDNN_GPU_BW5) takes pool_cwn_max_bwd<TY, FAST> instead: y of the
 * floor sizes ((H + 1) / 2 x (W + 1) / 2: the walk writes every dx cell, none past x), a thread
 * per (n, strip, column pair of y, vector), fewer than 2^31 - 256 threads. Strips of
 * pool_cwn_rows, balanced. */
static int pool_cwn_ok(const fd_pool_problem_t *p, const pool_geom_t *g, const pool_s2_t *q,
                       int *cvn, int *R, int *nst, unsigned *blocks)
{
    if (!pool_cwn_on() || !fd_cuda_bw5_on() || !pool_s2g_common_ok(p, g, q))
        return 0;
    if (q->out_h != (q->in_h + 1) / 2 || q->out_w != (q->in_w + 1) / 2)
        return 0;
    const int64_t v = p->c / (FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(p->dt));
    const int r = pool_cwn_rows() < q->out_h ? pool_cwn_rows() : q->out_h;
    const int n = (q->out_h + r - 1) / r;
    const int64_t th = (int64_t)q->planes * n * q->out_w * v;
    if (th >= ((int64_t)1 << 31) - POOL_CWN_THREADS)
        return 0;
    *cvn = (int)v, *nst = n, *R = (q->out_h + n - 1) / n;
    *blocks = (unsigned)((th + POOL_CWN_THREADS - 1) / POOL_CWN_THREADS);
    return 1;
}

/* FREEDNN_GPU_POOL_SMB=0 turns off the shared-memory max backward of pooling_smb.cuh (2026-12-02,
 * issue 7.4); so do FREEDNN_GPU_BW3=0 and FREEDNN_GPU_BW5=0 (their children test the kernels
 * before it). FREEDNN_GPU_POOL_SMB_T: dx elements a tile (512 .. 65536, default 4096). Read
 * once per process. */
static int pool_smb_on(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_POOL_SMB");
    return on;
}
static int pool_smb_target(void)
{
    static const int t = (int)fd_env_long("FREEDNN_GPU_POOL_SMB_T", 512, 65536, 4096);
    return t;
}

/* 1 (and *m, *blocks, *bytes: the tiles, the grid, the dynamic shared memory) when a max
 * backward pool_s2_ok accepted (q, W innermost) takes pool_smb_max_bwd_{f32,f16,bf16}
 * (pooling_smb.cuh): pool_s2g_common_ok, x's and dx's W stride 1, their other strides
 * multiples of 4, the pointers aligned to 4 elements, a tile's shared memory within 48 KiB. */
static int pool_smb_ok(const fd_pool_problem_t *p, const pool_geom_t *g, const pool_s2_t *q,
                       const void *x, const void *dx, pool_smb_t *m, unsigned *blocks,
                       size_t *bytes)
{
    if (!pool_smb_on() || !fd_cuda_bw3_on() || !fd_cuda_bw5_on() || !pool_s2g_common_ok(p, g, q) ||
        !pool_rows4_ok(p, x, dx))
        return 0;
    const int W = q->in_w, sp = (W + 1) / 2, pairs = (q->in_h + 1) / 2;
    /* windows a shared row: every window of y and the right neighbour of the last column pair;
     * x row: column 0 at cell 4, up to the last window's right column (cell 2 ow1 + 3) */
    m->ow1 = (q->out_w > sp ? q->out_w : sp) + 1;
    const int need = 4 + (W + 3) / 4 * 4 + 1, last = 2 * m->ow1 + 4;
    m->xw = ((need > last ? need : last) + 3) / 4 * 4;
    int R = pool_smb_target() / (2 * W);
    R = R < 1 ? 1 : R > pairs ? pairs : R;
    for (;; R--) {
        m->nt = (pairs + R - 1) / R;
        m->R = (pairs + m->nt - 1) / m->nt;
        if (pool_smb_bytes(*m) <= 48 * 1024 || R == 1)
            break;
    }
    if (pool_smb_bytes(*m) > 48 * 1024 || (int64_t)q->planes * m->nt >= ((int64_t)1 << 31))
        return 0;
    *blocks = (unsigned)((int64_t)q->planes * m->nt), *bytes = pool_smb_bytes(*m);
    return 1;
}

/* FREEDNN_GPU_POOL_CW=0 turns off the column walks of pooling_cw.cuh (2026-12-03, issue 7.4;
 * pool_smb or the gathers take their cases); FREEDNN_GPU_POOL_CW_R: window rows a strip (1 ..
 * 4096; default 0: 14 for FLOAT, 28 for the 16-bit types, dev/pool_bwd's best). Read once per
 * process. */
static int pool_cw_on(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_POOL_CW");
    return on;
}
static int pool_cw_rows(void)
{
    static const int r = (int)fd_env_long("FREEDNN_GPU_POOL_CW_R", 0, 4096, 0);
    return r;
}
/* FREEDNN_GPU_POOL_CW8=0: the 16-bit types keep 4 dx columns a lane (read once per process). */
static int pool_cw8_on(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_POOL_CW8");
    return on;
}

/* 1 when the 16-bit rows take pool_cw8_*: 8 columns a lane, x and dx 16-byte aligned with their
 * N, C and H strides multiples of 8 elements (W stride 1: pool_rows4_ok). */
static int pool_cw8_ok(const fd_pool_problem_t *p, const void *x, const void *dx)
{
    if (p->dt == CUDNN_DATA_FLOAT || !pool_cw8_on() || (((uintptr_t)x | (uintptr_t)dx) & 15) != 0)
        return 0;
    const int64_t *ss[2] = {p->xs, p->dxs};
    for (int k = 0; k < 2; k++)
        if (ss[k][0] % 8 != 0 || ss[k][1] % 8 != 0 || ss[k][3] % 8 != 0)
            return 0;
    return 1;
}

/* 1 (and the kernel *k, *R window rows a strip, *nt strips a plane, *blocks) when a max backward
 * pool_s2_ok accepted (q, W innermost) takes pool_cw_max_bwd* (pooling_cw.cuh):
 * pool_s2g_common_ok, pool_rows4_ok, W <= 128 (16-bit rows of pool_cw8_ok: W <= 256, 8 dx
 * columns a lane), y no larger than the windows x holds (out_h <= (H + 1) / 2, out_w <= (W + 1)
 * / 2), under FREEDNN_GPU_BW3 / BW5 as pool_smb. Lanes a strip: the fewest of 16 / 32 (8 / 16 /
 * 32) that cover a row. Strips: the default rows, balanced, halved (down to 2) while the grid is
 * under half a wave of 32 warps an SM. */
static int pool_cw_ok(const fd_pool_problem_t *p, const pool_geom_t *g, const pool_s2_t *q,
                      const fd_pool_args_t *a, pool_cw_kernel_t *k, int *R, int *nt,
                      unsigned *blocks)
{
    if (!pool_cw_on() || !fd_cuda_bw3_on() || !fd_cuda_bw5_on() || !pool_s2g_common_ok(p, g, q) ||
        !pool_rows4_ok(p, a->x, a->out))
        return 0;
    const int W = q->in_w, pairs = (q->in_h + 1) / 2, g8 = pool_cw8_ok(p, a->x, a->out);
    if (W > (g8 ? 256 : 128) || q->out_w > (W + 1) / 2 || q->out_h > pairs)
        return 0;
    const int li = W <= 64 ? 0 : W <= 128 ? 1 : 2; /* lanes a strip: 16 << li (g8: 8 << li) */
    const int per = (g8 ? 4 : 2) >> li;            /* strips a warp */
    const int ty = p->dt == CUDNN_DATA_FLOAT ? 0 : p->dt == CUDNN_DATA_HALF ? 1 : 2;
    int r = pool_cw_rows() > 0 ? pool_cw_rows() : ty == 0 ? 14 : 28;
    r = r > pairs ? pairs : r;
    const int64_t half_wave = (int64_t)fd_cuda_sm_count() * 16;
    int64_t warps;
    for (;;) {
        *nt = (pairs + r - 1) / r;
        r = (pairs + *nt - 1) / *nt;
        warps = ((int64_t)q->planes * *nt + per - 1) / per;
        if (pool_cw_rows() > 0 || r <= 2 || warps >= half_wave)
            break;
        r = (r + 1) / 2;
    }
    if ((int64_t)q->planes * *nt >= ((int64_t)1 << 31) - 64 ||
        warps * 32 >= ((int64_t)1 << 31) - POOL_CW_THREADS)
        return 0;
    *R = r, *blocks = (unsigned)((warps * 32 + POOL_CW_THREADS - 1) / POOL_CW_THREADS);
    const int mode = a->alpha == 1.0 && a->beta == 0.0;
    *k = g8 ? pool_cw8_kernels[ty - 1][mode][li] : pool_cw_kernels[ty][mode][li];
    return 1;
}

/* 1 (and *q, the grid filled) when an average takes pool_avgv_{fwd,bwd}[22]_* (pooling_avgv.cuh,
 * FREEDNN_GPU_POOL_AVGV): FLOAT / HALF / BFLOAT16 channels-last calls (the caller checked
 * pool_vec_ok) that pool_s2_ok accepts with 16-byte vectors, fewer than 2^31 - 256 threads (one
 * per y vector forward, per 2 x 2 dx block of vectors backward). *lean: 2x2 windows, pad 0. */
static int pool_avgv_ok(const fd_pool_problem_t *p, const pool_geom_t *g, int bwd, pool_s2_t *q,
                        int *cvn, int *sp, int *tp, int64_t *th, int *lean)
{
    if (g->is_max || p->dt == CUDNN_DATA_DOUBLE || !pool_avgv_on() ||
        !pool_s2_ok(p, g, bwd, FD_CUDA_VEC_BYTES, q))
        return 0;
    const int64_t v = p->c / (FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(p->dt));
    const int64_t s = bwd ? (p->in[2] + 1) / 2 : p->out[2];
    const int64_t t = bwd ? (p->in[1] + 1) / 2 : p->out[1];
    *th = p->n * t * s * v;
    if (*th >= ((int64_t)1 << 31) - FD_CUDA_BLOCK)
        return 0;
    *cvn = (int)v, *sp = (int)s, *tp = (int)t;
    *lean = q->win_h == 2 && q->win_w == 2 && q->pad_h == 0 && q->pad_w == 0;
    return 1;
}

/* Launches pool_avgv_ok's kernel: forward (dy, dx) = (x, y), backward (dy, dx). */
static cudnnStatus_t pool_avgv_launch(const fd_pool_problem_t *p, const fd_pool_args_t *a,
                                      const pool_s2_t *q, int bwd, int cvn, int sp, int tp,
                                      int64_t th, int lean)
{
    const unsigned blocks = (unsigned)((th + FD_CUDA_BLOCK - 1) / FD_CUDA_BLOCK);
    cudaStream_t st = a->handle->stream;
    const int k = (p->dt == CUDNN_DATA_FLOAT  ? 0
                   : p->dt == CUDNN_DATA_HALF ? 1
                                              : 2) +
                  3 * lean + 6 * bwd;
    switch (k) {
#define POOL_AVGV_FWD(n, kern)                                                                     \
    case n:                                                                                        \
        kern<<<blocks, FD_CUDA_BLOCK, 0, st>>>(*q, cvn, a->x, a->out, a->alpha, a->beta);          \
        break;
#define POOL_AVGV_BWD(n, kern)                                                                     \
    case n:                                                                                        \
        kern<<<blocks, FD_CUDA_BLOCK, 0, st>>>(*q, cvn, sp, tp, a->dy, a->out, a->alpha, a->beta); \
        break;
        POOL_AVGV_FWD(0, pool_avgv_fwd_f32)
        POOL_AVGV_FWD(1, pool_avgv_fwd_f16)
        POOL_AVGV_FWD(2, pool_avgv_fwd_bf16)
        POOL_AVGV_FWD(3, pool_avgv_fwd22_f32)
        POOL_AVGV_FWD(4, pool_avgv_fwd22_f16)
        POOL_AVGV_FWD(5, pool_avgv_fwd22_bf16)
        POOL_AVGV_BWD(6, pool_avgv_bwd_f32)
        POOL_AVGV_BWD(7, pool_avgv_bwd_f16)
        POOL_AVGV_BWD(8, pool_avgv_bwd_bf16)
        POOL_AVGV_BWD(9, pool_avgv_bwd22_f32)
        POOL_AVGV_BWD(10, pool_avgv_bwd22_f16)
    default:
        pool_avgv_bwd22_bf16<<<blocks, FD_CUDA_BLOCK, 0, st>>>(*q, cvn, sp, tp, a->dy, a->out,
                                                               a->alpha, a->beta);
        break;
#undef POOL_AVGV_FWD
#undef POOL_AVGV_BWD
    }
    FD_CUDA_LAUNCHED("pool_avgv_%s%s on %s data (%u blocks)", bwd ? "bwd" : "fwd", lean ? "22" : "",
                     fd_dtype_name(p->dt), blocks);
    return CUDNN_STATUS_SUCCESS;
}

/* 1 (and *q, the grid filled: *per vectors a pixel or runs a row, *th threads) when a forward
 * takes pool_lean_{nhwc,nchw}_* (pooling_lean.cuh, FREEDNN_GPU_POOL_LEAN): MAX /
 * MAX_DETERMINISTIC, alpha 1, beta 0, FLOAT / HALF / BFLOAT16, what pool_s2_ok accepts with
 * pad 0 or 1 in H and W; channels-last: vec_ok (C stride 1, C and the other strides multiples
 * of the 16-byte vector, aligned pointers); else W stride 1 in x and y, x's other strides
 * multiples of the vector and x 16-byte aligned (y is stored 8 bytes a run where its strides
 * are multiples of the run and y is 8-byte aligned: q->yvec, else per element); fewer than
 * 2^31 - 256 threads. */
static int pool_lean_ok(const fd_pool_problem_t *p, const pool_geom_t *g, int vec_ok,
                        const fd_pool_args_t *a, pool_s2_t *q, int *per, int64_t *th)
{
    if (!g->is_max || a->alpha != 1.0 || a->beta != 0.0 ||
        (p->dt != CUDNN_DATA_FLOAT && p->dt != CUDNN_DATA_HALF && p->dt != CUDNN_DATA_BFLOAT16) ||
        !pool_lean_on() || !pool_s2_ok(p, g, 0, vec_ok ? FD_CUDA_VEC_BYTES : 0, q) ||
        q->pad_h > 1 || q->pad_w > 1)
        return 0;
    const int64_t e = FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(p->dt), run = e / 2;
    if (vec_ok) {
        q->tile_lg = pool_lean_tile_lg();
        const int64_t tr = (int64_t)1 << q->tile_lg, rows = (p->out[1] + tr - 1) / tr * tr;
        *per = (int)(p->c / e);
        *th = p->n * rows * p->out[2] * *per;
    } else {
        if (p->xs[4] != 1 || p->ys[4] != 1 || !fd_cuda_aligned16(a->x) || p->xs[0] % e != 0 ||
            p->xs[1] % e != 0 || p->xs[3] % e != 0)
            return 0;
        *per = (int)((p->out[2] + run - 1) / run);
        *th = p->n * p->c * p->out[1] * *per;
        q->yvec = p->ys[0] % run == 0 && p->ys[1] % run == 0 && p->ys[3] % run == 0 &&
                  ((uintptr_t)a->out & (uintptr_t)(run * fd_dtype_size(p->dt) - 1)) == 0;
    }
    return *th < ((int64_t)1 << 31) - FD_CUDA_BLOCK;
}

/* Launches pool_lean_ok's kernel. */
static cudnnStatus_t pool_lean_launch(const fd_pool_problem_t *p, const fd_pool_args_t *a,
                                      const pool_s2_t *q, int vec_ok, int per, int64_t th)
{
    const unsigned blocks = (unsigned)((th + FD_CUDA_BLOCK - 1) / FD_CUDA_BLOCK);
    cudaStream_t st = a->handle->stream;
    const int k = (p->dt == CUDNN_DATA_FLOAT ? 0 : p->dt == CUDNN_DATA_HALF ? 1 : 2) + 3 * vec_ok;
    switch (k) {
#define POOL_LEAN_GO(n, kern)                                                                      \
    case n:                                                                                        \
        kern<<<blocks, FD_CUDA_BLOCK, 0, st>>>(*q, per, a->x, a->out, a->alpha);                   \
        break;
        POOL_LEAN_GO(0, pool_lean_nchw_f32)
        POOL_LEAN_GO(1, pool_lean_nchw_f16)
        POOL_LEAN_GO(2, pool_lean_nchw_bf16)
        POOL_LEAN_GO(3, pool_lean_nhwc_f32)
        POOL_LEAN_GO(4, pool_lean_nhwc_f16)
    default:
        pool_lean_nhwc_bf16<<<blocks, FD_CUDA_BLOCK, 0, st>>>(*q, per, a->x, a->out, a->alpha);
        break;
#undef POOL_LEAN_GO
    }
    FD_CUDA_LAUNCHED("pool_lean_%s on %s data (%u blocks)", vec_ok ? "nhwc" : "nchw",
                     fd_dtype_name(p->dt), blocks);
    return CUDNN_STATUS_SUCCESS;
}

/* Threads of a pool_s2 launch (pool_s2_ok bounded them below 2^31); vec as there. */
static unsigned pool_s2_blocks(const fd_pool_problem_t *p, const pool_s2_t *q, int vec)
{
    const int64_t vw = vec / (int64_t)fd_dtype_size(p->dt);
    const int64_t per = vec ? (int64_t)q->planes * q->cols * (q->c / vw)
                            : (int64_t)q->planes * q->wpr * 32;
    return (unsigned)((per * q->nchunks + FD_CUDA_BLOCK - 1) / FD_CUDA_BLOCK);
}

static int pool_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_pool_problem_t *p = (const fd_pool_problem_t *)problem;
    if (!fd_cuda_elem_dtype_ok(p->dt)) {
        snprintf(why, why_size, "%s data; the pooling kernels take FLOAT, DOUBLE, HALF, BFLOAT16",
                 fd_dtype_name(p->dt));
        return 0;
    }
    if (p->nsp < 1 || p->nsp > FD_POOL_SPATIAL_MAX) {
        snprintf(why, why_size, "%d spatial dims; the pooling kernels take 1 to 3", p->nsp);
        return 0;
    }
    return 1;
}

/* 1 when an average pool_s2_ok accepted (q, W innermost) takes pool_avg22_fwd / _bwd
 * (pooling_s2.cuh, FREEDNN_GPU_BW2): 2 x 2 windows without padding, W strides 1 in x and y
 * (forward) or dx (backward), the output's rows of whole 16-byte vectors (forward: out_w; backward:
 * in_w = 2 out_w and in_h = 2 out_h, every dx cell inside a window), those rows, planes and
 * pointers vector-aligned, at most 2^28 threads (one an item, no grid-stride loop). A forward
 * whose y rows, planes and pointer are only whole 8-byte half vectors (x's still 16-byte) takes
 * pool_avg22h_fwd: *half = 1. *items: the threads. */
static int pool_avg22_ok(const fd_pool_problem_t *p, const pool_geom_t *g, const pool_s2_t *q,
                         int bwd, const void *x, const void *out, int64_t *items, int *half)
{
    if (!fd_cuda_bw2_on() || g->is_max || q->win_h != 2 || q->win_w != 2 || q->pad_h != 0 ||
        q->pad_w != 0)
        return 0;
    const int64_t vec = FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(p->dt);
    const int64_t *os = bwd ? p->dxs : p->ys; /* the written tensor: vectors */
    const int64_t row = bwd ? q->in_w : q->out_w;
    *half = 0;
    if (!bwd && vec > 1 && row % vec != 0 && row % (vec / 2) == 0 &&
        ((uintptr_t)out & (FD_CUDA_VEC_BYTES / 2 - 1)) == 0)
        *half = 1;
    const int64_t ov = *half ? vec / 2 : vec; /* outputs a thread */
    if (os[4] != 1 || row % ov != 0 || os[3] % ov != 0 || os[1] % ov != 0 || os[0] % ov != 0 ||
        (!*half && !fd_cuda_aligned16(out)))
        return 0;
    if (bwd && (q->in_w != 2 * q->out_w || q->in_h != 2 * q->out_h))
        return 0;
    if (!bwd && (p->xs[4] != 1 || p->xs[3] % vec != 0 || p->xs[1] % vec != 0 ||
                 p->xs[0] % vec != 0 || !fd_cuda_aligned16(x)))
        return 0;
    *items = (int64_t)q->planes * q->out_h * (row / ov);
    return *items <= ((int64_t)1 << 28); /* one thread an item: fd_cuda_blocks' cap */
}

extern "C" int fd_pool_fwd_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return pool_applicable(problem, why, why_size);
}
extern "C" size_t fd_pool_fwd_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_pool_fwd_cuda_run(const void *problem, const void *args)
{
    const fd_pool_problem_t *p = (const fd_pool_problem_t *)problem;
    const fd_pool_args_t *a = (const fd_pool_args_t *)args;
    const pool_geom_t g = geom_of(p, p->ys);
    const int64_t *ts[2] = {p->xs, p->ys};
    const void *ptr[2] = {a->x, a->out};
    const int vec_ok = pool_vec_ok(p, ts, ptr, 2);
    pool_s2_t s2;
    int64_t items;
    int half, per;
    if (pool_lean_ok(p, &g, vec_ok, a, &s2, &per, &items))
        return pool_lean_launch(p, a, &s2, vec_ok, per, items);
    if (!vec_ok && !g.is_max && pool_s2_ok(p, &g, 0, 0, &s2) &&
        pool_avg22_ok(p, &g, &s2, 0, a->x, a->out, &items, &half)) {
        if (half)
            FD_CUDA_TYPED_LAUNCH(p->dt, pool_avg22h_fwd, fd_cuda_blocks(items, FD_CUDA_BLOCK),
                                 FD_CUDA_BLOCK, a->handle->stream, s2, a->x, a->out, a->alpha,
                                 a->beta);
        else
            FD_CUDA_TYPED_LAUNCH(p->dt, pool_avg22_fwd, fd_cuda_blocks(items, FD_CUDA_BLOCK),
                                 FD_CUDA_BLOCK, a->handle->stream, s2, a->x, a->out, a->alpha,
                                 a->beta);
        return CUDNN_STATUS_SUCCESS;
    }
    if (vec_ok && g.is_max && pool_s2_ok(p, &g, 0, FD_CUDA_VEC_BYTES, &s2)) {
        FD_CUDA_TYPED_LAUNCH(p->dt, pool_s2_max_fwd_vec, pool_s2_blocks(p, &s2, FD_CUDA_VEC_BYTES),
                             FD_CUDA_BLOCK, a->handle->stream, s2, a->x, a->out, a->alpha, a->beta);
        return CUDNN_STATUS_SUCCESS;
    }
    if (!vec_ok && (g.is_max || fd_dtype_size(p->dt) >= 4) &&
        pool_s2_rows_ok(p, &g, a->x, a->out, &s2)) {
        const int64_t spw = 32 / s2.seg;
        const int64_t warps = ((int64_t)s2.planes * s2.nchunks + spw - 1) / spw;
        const unsigned blocks = (unsigned)((warps * 32 + FD_CUDA_BLOCK - 1) / FD_CUDA_BLOCK);
        if (g.is_max)
            FD_CUDA_TYPED_LAUNCH(p->dt, pool_s2_max_fwd_rows, blocks, FD_CUDA_BLOCK,
                                 a->handle->stream, s2, a->x, a->out, a->alpha, a->beta);
        else
            FD_CUDA_TYPED_LAUNCH(p->dt, pool_s2_avg_fwd_rows, blocks, FD_CUDA_BLOCK,
                                 a->handle->stream, s2, a->x, a->out, a->alpha, a->beta);
        return CUDNN_STATUS_SUCCESS;
    }
    int cvn, sp, tp, lean;
    int64_t th;
    if (vec_ok && pool_avgv_ok(p, &g, 0, &s2, &cvn, &sp, &tp, &th, &lean))
        return pool_avgv_launch(p, a, &s2, 0, cvn, sp, tp, th, lean);
    if (pool_s2_ok(p, &g, 0, vec_ok ? POOL_S2_VEC_BYTES : 0, &s2)) {
        if (vec_ok)
            FD_CUDA_TYPED_LAUNCH(p->dt, pool_s2_fwd_vec, pool_s2_blocks(p, &s2, POOL_S2_VEC_BYTES),
                                 FD_CUDA_BLOCK, a->handle->stream, s2, a->x, a->out, a->alpha,
                                 a->beta);
        else
            FD_CUDA_TYPED_LAUNCH(p->dt, pool_s2_fwd, pool_s2_blocks(p, &s2, 0), FD_CUDA_BLOCK,
                                 a->handle->stream, s2, a->x, a->out, a->alpha, a->beta);
        return CUDNN_STATUS_SUCCESS;
    }
    pool_max2d_t q;
    if (pool_max2d_ok(p, &g, &q)) {
        if (vec_ok) {
            const int64_t vec = FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(p->dt);
            const int64_t items = p->n * (p->c / vec) * p->out[1] * p->out[2];
            FD_CUDA_TYPED_LAUNCH(p->dt, pool_max2d_vec, fd_cuda_wave_blocks(items), FD_CUDA_BLOCK,
                                 a->handle->stream, q, a->x, a->out, a->alpha, a->beta);
            return CUDNN_STATUS_SUCCESS;
        }
        if (!g.c_inner) {
            const dim3 grid((unsigned)((q.out_h * q.out_w + FD_CUDA_BLOCK - 1) / FD_CUDA_BLOCK),
                            (unsigned)(q.planes < 65535 ? q.planes : 65535));
            cudaStream_t st = a->handle->stream;
            switch (p->dt) {
            case CUDNN_DATA_FLOAT:
                pool_max2d_plane_f32<<<grid, FD_CUDA_BLOCK, 0, st>>>(q, a->x, a->out, a->alpha,
                                                                      a->beta);
                break;
            case CUDNN_DATA_DOUBLE:
                pool_max2d_plane_f64<<<grid, FD_CUDA_BLOCK, 0, st>>>(q, a->x, a->out, a->alpha,
                                                                      a->beta);
                break;
            case CUDNN_DATA_HALF:
                pool_max2d_plane_f16<<<grid, FD_CUDA_BLOCK, 0, st>>>(q, a->x, a->out, a->alpha,
                                                                      a->beta);
                break;
            default:
                pool_max2d_plane_bf16<<<grid, FD_CUDA_BLOCK, 0, st>>>(q, a->x, a->out, a->alpha,
                                                                      a->beta);
                break;
            }
            FD_CUDA_LAUNCHED("pool_max2d_plane on %s data (%u x %u blocks)", fd_dtype_name(p->dt),
                             grid.x, grid.y);
            return CUDNN_STATUS_SUCCESS;
        }
    }
    if (vec_ok) {
        const int64_t vec = FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(p->dt);
        const int64_t items = p->n * (p->c / vec) * p->out[0] * p->out[1] * p->out[2];
        FD_CUDA_TYPED_LAUNCH(p->dt, pool_fwd_vec, fd_cuda_wave_blocks(items), FD_CUDA_BLOCK,
                             a->handle->stream, g, a->x, a->out, a->alpha, a->beta);
        return CUDNN_STATUS_SUCCESS;
    }
    const int64_t total = p->n * p->c * p->out[0] * p->out[1] * p->out[2];
    const unsigned blocks = fd_cuda_blocks(total, FD_CUDA_BLOCK);
    FD_CUDA_TYPED_LAUNCH(p->dt, pool_fwd, blocks, FD_CUDA_BLOCK, a->handle->stream, g, a->x,
                         a->out, a->alpha, a->beta);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_pool_bwd_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return pool_applicable(problem, why, why_size);
}
extern "C" size_t fd_pool_bwd_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_pool_bwd_cuda_run(const void *problem, const void *args)
{
    const fd_pool_problem_t *p = (const fd_pool_problem_t *)problem;
    const fd_pool_args_t *a = (const fd_pool_args_t *)args;
    const pool_geom_t g = geom_of(p, p->dxs);
    const int64_t *ts[3] = {p->xs, p->dys, p->dxs};
    const void *ptr[3] = {a->x, a->dy, a->out};
    const int vec_ok = pool_vec_ok(p, ts, ptr, 3);
    pool_s2_t s2;
    int64_t items;
    int half; /* backward: always 0 */
    if (!vec_ok && !g.is_max && pool_s2_ok(p, &g, 1, 0, &s2) &&
        pool_avg22_ok(p, &g, &s2, 1, a->x, a->out, &items, &half)) {
        FD_CUDA_TYPED_LAUNCH(p->dt, pool_avg22_bwd, fd_cuda_blocks(items, FD_CUDA_BLOCK),
                             FD_CUDA_BLOCK, a->handle->stream, s2, a->dy, a->out, a->alpha,
                             a->beta);
        return CUDNN_STATUS_SUCCESS;
    }
    int cvn, sp, tp, lean;
    int64_t th;
    if (vec_ok && pool_avgv_ok(p, &g, 1, &s2, &cvn, &sp, &tp, &th, &lean))
        return pool_avgv_launch(p, a, &s2, 1, cvn, sp, tp, th, lean);
    if (pool_s2_ok(p, &g, 1, vec_ok ? POOL_S2_VEC_BYTES : 0, &s2)) {
        pool_cw_kernel_t cwk;
        int cr, cnt;
        unsigned cb;
        if (!vec_ok && pool_cw_ok(p, &g, &s2, a, &cwk, &cr, &cnt, &cb)) {
            cwk<<<cb, POOL_CW_THREADS, 0, a->handle->stream>>>(s2, cr, cnt, a->x, a->dy, a->out,
                                                               a->alpha, a->beta);
            FD_CUDA_LAUNCHED("pool_cw_max_bwd on %s data (%u blocks, strips of %d window rows, %d "
                             "a plane)",
                             fd_dtype_name(p->dt), cb, cr, cnt);
            return CUDNN_STATUS_SUCCESS;
        }
        pool_smb_t sm;
        unsigned sb;
        size_t sbytes;
        if (!vec_ok && pool_smb_ok(p, &g, &s2, a->x, a->out, &sm, &sb, &sbytes)) {
            cudaStream_t st = a->handle->stream;
            if (p->dt == CUDNN_DATA_FLOAT)
                pool_smb_max_bwd_f32<<<sb, POOL_SMB_THREADS, sbytes, st>>>(
                    s2, sm, a->x, a->dy, a->out, a->alpha, a->beta);
            else if (p->dt == CUDNN_DATA_HALF)
                pool_smb_max_bwd_f16<<<sb, POOL_SMB_THREADS, sbytes, st>>>(
                    s2, sm, a->x, a->dy, a->out, a->alpha, a->beta);
            else
                pool_smb_max_bwd_bf16<<<sb, POOL_SMB_THREADS, sbytes, st>>>(
                    s2, sm, a->x, a->dy, a->out, a->alpha, a->beta);
            FD_CUDA_LAUNCHED("pool_smb_max_bwd on %s data (%u blocks of %d window rows, %zu "
                             "bytes)",
                             fd_dtype_name(p->dt), sb, sm.R, sbytes);
            return CUDNN_STATUS_SUCCESS;
        }
        int groups, pairs;
        if (!vec_ok && pool_s2g_ok(p, &g, &s2, a->x, a->out, &groups, &pairs)) {
            const int64_t th = (int64_t)s2.planes * pairs * groups;
            const unsigned blocks = (unsigned)((th + FD_CUDA_BLOCK - 1) / FD_CUDA_BLOCK);
            if (p->dt == CUDNN_DATA_HALF || p->dt == CUDNN_DATA_BFLOAT16) {
                if (p->dt == CUDNN_DATA_HALF)
                    pool_s2g_max_bwd_f16<<<blocks, FD_CUDA_BLOCK, 0, a->handle->stream>>>(
                        s2, groups, pairs, a->x, a->dy, a->out, a->alpha, a->beta);
                else
                    pool_s2g_max_bwd_bf16<<<blocks, FD_CUDA_BLOCK, 0, a->handle->stream>>>(
                        s2, groups, pairs, a->x, a->dy, a->out, a->alpha, a->beta);
                FD_CUDA_LAUNCHED("pool_s2g_max_bwd on %s data (%u blocks)", fd_dtype_name(p->dt),
                                 blocks);
                return CUDNN_STATUS_SUCCESS;
            }
            if (s2g_minb() == 3)
                pool_s2g_max_bwd3_f32<<<blocks, FD_CUDA_BLOCK, 0, a->handle->stream>>>(
                    s2, groups, pairs, a->x, a->dy, a->out, a->alpha, a->beta);
            else
                pool_s2g_max_bwd_f32<<<blocks, FD_CUDA_BLOCK, 0, a->handle->stream>>>(
                    s2, groups, pairs, a->x, a->dy, a->out, a->alpha, a->beta);
            FD_CUDA_LAUNCHED("pool_s2g_max_bwd_f32 (%u blocks, %d an SM)", blocks, s2g_minb());
            return CUDNN_STATUS_SUCCESS;
        }
        int nr, nst;
        unsigned nb;
        if (vec_ok && pool_cwn_ok(p, &g, &s2, &cvn, &nr, &nst, &nb)) {
            const int ty = p->dt == CUDNN_DATA_FLOAT  ? POOL_S2G_F32
                           : p->dt == CUDNN_DATA_HALF ? POOL_S2G_F16
                                                      : POOL_S2G_BF16;
            pool_cwn_kernel(ty, a->alpha, a->beta)<<<nb, POOL_CWN_THREADS, 0, a->handle->stream>>>(
                s2, cvn, nr, nst, a->x, a->dy, a->out, a->alpha, a->beta);
            FD_CUDA_LAUNCHED("pool_cwn_max_bwd on %s data (%u blocks, strips of %d window rows, %d "
                             "a plane)",
                             fd_dtype_name(p->dt), nb, nr, nst);
            return CUDNN_STATUS_SUCCESS;
        }
        if (vec_ok && pool_s2g_nhwc_ok(p, &g, &s2, &cvn, &sp, &tp, &th)) {
            const unsigned blocks = (unsigned)((th + FD_CUDA_BLOCK - 1) / FD_CUDA_BLOCK);
            cudaStream_t st = a->handle->stream;
            if (p->dt == CUDNN_DATA_FLOAT)
                pool_s2g_max_bwd_nhwc_f32<<<blocks, FD_CUDA_BLOCK, 0, st>>>(
                    s2, cvn, sp, tp, a->x, a->dy, a->out, a->alpha, a->beta);
            else if (p->dt == CUDNN_DATA_HALF)
                pool_s2g_max_bwd_nhwc_f16<<<blocks, FD_CUDA_BLOCK, 0, st>>>(
                    s2, cvn, sp, tp, a->x, a->dy, a->out, a->alpha, a->beta);
            else
                pool_s2g_max_bwd_nhwc_bf16<<<blocks, FD_CUDA_BLOCK, 0, st>>>(
                    s2, cvn, sp, tp, a->x, a->dy, a->out, a->alpha, a->beta);
            FD_CUDA_LAUNCHED("pool_s2g_max_bwd_nhwc on %s data (%u blocks)", fd_dtype_name(p->dt),
                             blocks);
            return CUDNN_STATUS_SUCCESS;
        }
        if (vec_ok)
            FD_CUDA_TYPED_LAUNCH(p->dt, pool_s2_bwd_vec, pool_s2_blocks(p, &s2, POOL_S2_VEC_BYTES),
                                 FD_CUDA_BLOCK, a->handle->stream, s2, a->x, a->dy, a->out,
                                 a->alpha, a->beta);
        else if (fd_cuda_bw2_on())
            FD_CUDA_TYPED_LAUNCH(p->dt, pool_s2_bwd_occ, pool_s2_blocks(p, &s2, 0), FD_CUDA_BLOCK,
                                 a->handle->stream, s2, a->x, a->dy, a->out, a->alpha, a->beta);
        else
            FD_CUDA_TYPED_LAUNCH(p->dt, pool_s2_bwd, pool_s2_blocks(p, &s2, 0), FD_CUDA_BLOCK,
                                 a->handle->stream, s2, a->x, a->dy, a->out, a->alpha, a->beta);
        return CUDNN_STATUS_SUCCESS;
    }
    if (vec_ok) {
        const int64_t vec = FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(p->dt);
        const int64_t items = p->n * (p->c / vec) * p->in[0] * p->in[1] * p->in[2];
        FD_CUDA_TYPED_LAUNCH(p->dt, pool_bwd_vec, fd_cuda_wave_blocks(items), FD_CUDA_BLOCK,
                             a->handle->stream, g, a->x, a->dy, a->out, a->alpha, a->beta);
        return CUDNN_STATUS_SUCCESS;
    }
    if (pool_tile_ok(p, &g)) {
        const int th = (int)((p->in[1] + POOL_TILE_H - 1) / POOL_TILE_H);
        const int tw = (int)((p->in[2] + POOL_TILE_W - 1) / POOL_TILE_W);
        const unsigned blocks = (unsigned)(p->n * p->c * th * tw);
        FD_CUDA_TYPED_LAUNCH(p->dt, pool_bwd_tile, blocks, FD_CUDA_BLOCK, a->handle->stream, g, a->x,
                             a->dy, a->out, a->alpha, a->beta, th, tw);
        return CUDNN_STATUS_SUCCESS;
    }
    const int64_t total = p->n * p->c * p->in[0] * p->in[1] * p->in[2];
    const unsigned blocks = fd_cuda_blocks(total, FD_CUDA_BLOCK);
    FD_CUDA_TYPED_LAUNCH(p->dt, pool_bwd, blocks, FD_CUDA_BLOCK, a->handle->stream, g, a->x,
                         a->dy, a->out, a->alpha, a->beta);
    return CUDNN_STATUS_SUCCESS;
}
