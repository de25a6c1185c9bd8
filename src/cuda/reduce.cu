/* SPDX-License-Identifier: MIT */
/*
 * reduce.cu - cudnnReduceTensor on the GPU: row fd_tensor_reduce_cuda, every
 * cudnnReduceTensorOp_t (ADD, MUL, MIN, MAX, AMAX, AVG, NORM1, NORM2, MUL_NO_ZEROS), both NaN
 * options, the flattened indices, with src/ref/reduce_ref.c's semantics.
 *
 * Slices of up to RD_SERIAL_MAX elements: one thread per output walks its slice in the ref's
 * order (row-major over the reduced dims), so the result is the ref's bit for bit. Longer
 * slices: one block per output, lane j takes positions j, j + 256, ... and the lanes' states
 * meet in a fixed shared-memory tree, so results are reproducible run after run. Accumulation
 * in double as the ref does. MIN / MAX / AMAX carry (value, index, found, NaN) and merge by
 * "strictly better, else the lower index", which is the ref's first occurrence whatever the
 * merge order; a propagated NaN keeps the lowest NaN index. No workspace.
 * FREEDNN_GPU_RD_FAST (default on; =0: only the two kernels above) gives the common calls the
 * lean kernels below (rd_seg, rd_col, rd_row, rd_fin2), with a workspace for keep=c.
 */
#include <float.h>
#include <stdio.h>
#include <string.h>

#include <math_constants.h>

#include "elem.cuh"
#include "pdl.cuh"
#include "strided.cuh"

extern "C" {
#include "../core/tensor_ops.h"
}

#define RD_SERIAL_MAX 64

typedef struct {
    cudnnReduceTensorOp_t op;
    int propagate, select, want_indices;
    cudnnDataType_t adt, cdt;
    double empty; /* MIN / MAX / AMAX of a slice without a value */
    int64_t count, outputs;
    int nr, nk;                              /* reduced dims, kept dims */
    int64_t rdim[FD_DIM_MAX], rst[FD_DIM_MAX]; /* reduced: extent, a stride (row-major) */
    int64_t kdim[FD_DIM_MAX], kst[FD_DIM_MAX], kcst[FD_DIM_MAX]; /* kept: extent, a / c stride */
} rd_geom_t;

typedef struct {
    double acc;
    uint32_t index;
    int found, nan;
} rd_state_t;

static __device__ __forceinline__ void rd_decompose(uint32_t r, int n, const int64_t *dim,
                                                    const int64_t *st, const int64_t *st2,
                                                    int64_t *off, int64_t *off2)
{
    for (int i = n - 1; i >= 0; i--) {
        const uint32_t d = (uint32_t)dim[i], q = r / d, idx = r - q * d;
        *off += (int64_t)idx * st[i];
        if (st2)
            *off2 += (int64_t)idx * st2[i];
        r = q;
    }
}

static __device__ __forceinline__ void rd_init(const rd_geom_t &G, rd_state_t *s)
{
    s->acc = G.op == CUDNN_REDUCE_TENSOR_MUL || G.op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS ? 1.0 : 0.0;
    s->index = 0, s->found = 0, s->nan = 0;
}

/* One element v at slice position pos (the ref's loop body). */
static __device__ __forceinline__ void rd_step(const rd_geom_t &G, rd_state_t *s, double v, uint32_t pos)
{
    switch (G.op) {
    case CUDNN_REDUCE_TENSOR_ADD:
    case CUDNN_REDUCE_TENSOR_AVG:
        s->acc = __dadd_rn(s->acc, v);
        return;
    case CUDNN_REDUCE_TENSOR_MUL:
        s->acc = __dmul_rn(s->acc, v);
        return;
    case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS:
        if (v != 0.0)
            s->acc = __dmul_rn(s->acc, v);
        return;
    case CUDNN_REDUCE_TENSOR_NORM1:
        s->acc = __dadd_rn(s->acc, fabs(v));
        return;
    case CUDNN_REDUCE_TENSOR_NORM2:
        s->acc = __dadd_rn(s->acc, __dmul_rn(v, v));
        return;
    default:
        break;
    }
    if (s->nan)
        return;
    if (isnan(v)) {
        if (G.propagate)
            s->acc = v, s->index = pos, s->found = 1, s->nan = 1;
        return;
    }
    if (G.op == CUDNN_REDUCE_TENSOR_AMAX)
        v = fabs(v);
    const int better = !s->found || (G.op == CUDNN_REDUCE_TENSOR_MIN ? v < s->acc : v > s->acc);
    if (better)
        s->acc = v, s->index = pos, s->found = 1;
}

/* s = s merged with t, as if the positions of both had been visited in order. */
static __device__ __forceinline__ void rd_merge(const rd_geom_t &G, rd_state_t *s, const rd_state_t *t)
{
    if (!G.select) {
        if (G.op == CUDNN_REDUCE_TENSOR_MUL || G.op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS)
            s->acc = __dmul_rn(s->acc, t->acc);
        else
            s->acc = __dadd_rn(s->acc, t->acc);
        return;
    }
    if (s->nan || t->nan) {
        if (t->nan && (!s->nan || t->index < s->index))
            *s = *t;
        return;
    }
    if (!t->found)
        return;
    if (!s->found) {
        *s = *t;
        return;
    }
    const int better = G.op == CUDNN_REDUCE_TENSOR_MIN ? t->acc < s->acc : t->acc > s->acc;
    if (better || (t->acc == s->acc && t->index < s->index))
        *s = *t;
}

/* The final value, blend and index of output o. */
static __device__ __forceinline__ void rd_finish(const rd_geom_t &G, const rd_state_t *s, int64_t o,
                                                 int64_t coff, void *c, uint32_t *indices,
                                                 double alpha, double beta)
{
    double r = s->acc;
    if (G.select)
        r = s->found ? s->acc : G.empty;
    else if (G.op == CUDNN_REDUCE_TENSOR_AVG)
        r = s->acc / (double)G.count;
    else if (G.op == CUDNN_REDUCE_TENSOR_NORM2)
        r = sqrt(s->acc);
    sd_blend_dt(G.cdt, c, coff, alpha, beta, r);
    if (indices != NULL) {
        const uint32_t idx = s->found ? s->index : 0;
        unsigned char *p = (unsigned char *)indices + o * 4; /* no alignment assumed */
        for (int b = 0; b < 4; b++)
            p[b] = (unsigned char)(idx >> (8 * b));
    }
}

static __global__ void reduce_serial_kernel(const rd_geom_t G, const void *a, void *c,
                                            uint32_t *indices, double alpha, double beta)
{
    SD_GRID_LOOP(o, G.outputs)
    {
        int64_t abase = 0, coff = 0;
        rd_decompose((uint32_t)o, G.nk, G.kdim, G.kst, G.kcst, &abase, &coff);
        rd_state_t s;
        rd_init(G, &s);
        for (int64_t pos = 0; pos < G.count; pos++) {
            int64_t aoff = abase, unused = 0;
            rd_decompose((uint32_t)pos, G.nr, G.rdim, G.rst, NULL, &aoff, &unused);
            rd_step(G, &s, sd_ld_dt(G.adt, a, aoff), (uint32_t)pos);
        }
        rd_finish(G, &s, o, coff, c, indices, alpha, beta);
    }
}

static __global__ void reduce_block_kernel(const rd_geom_t G, const void *a, void *c,
                                           uint32_t *indices, double alpha, double beta)
{
    __shared__ rd_state_t part[FD_CUDA_BLOCK];
    const int tid = threadIdx.x;
    for (int64_t o = blockIdx.x; o < G.outputs; o += gridDim.x) {
        int64_t abase = 0, coff = 0;
        rd_decompose((uint32_t)o, G.nk, G.kdim, G.kst, G.kcst, &abase, &coff);
        rd_state_t s;
        rd_init(G, &s);
        for (int64_t pos = tid; pos < G.count; pos += FD_CUDA_BLOCK) {
            int64_t aoff = abase, unused = 0;
            rd_decompose((uint32_t)pos, G.nr, G.rdim, G.rst, NULL, &aoff, &unused);
            rd_step(G, &s, sd_ld_dt(G.adt, a, aoff), (uint32_t)pos);
        }
        part[tid] = s;
        __syncthreads();
        for (int h = FD_CUDA_BLOCK / 2; h > 0; h >>= 1) {
            if (tid < h) {
                rd_state_t m = part[tid];
                rd_merge(G, &m, &part[tid + h]);
                part[tid] = m;
            }
            __syncthreads();
        }
        if (tid == 0)
            rd_finish(G, &part[0], o, coff, c, indices, alpha, beta);
        __syncthreads(); /* part[] is reused for the next output */
    }
}

/* ---- the fast path (FREEDNN_GPU_RD_FAST, default on) ----------------------------------------
 *
 * The common calls: ADD, AVG, NORM1, NORM2, MIN, MAX, AMAX without indices, A and C of one of
 * FLOAT / HALF / BFLOAT16, A packed NCHW or NHWC 4-d, C 1xCx1x1 (keep=c) or Nx1xHxW (keep=nhw),
 * any alpha / beta. Four kernels, one pass over A each (the grid covers the tensor, no
 * grid-stride loop), 8- or 16-byte loads issued four at a time before they are used:
 *   rd_seg  keep=c NCHW: a channel is N planes of H*W; blocks of (chunk, channel), each thread 4
 *           16-byte vectors (coalesced: vector t + 256 u of the chunk); warp shuffles and a
 *           shared-memory step reduce the block; its state goes to the workspace (or to C when
 *           the channel is one chunk).
 *   rd_col  keep=c NHWC (rows: the N*H*W pixels, columns: C) and keep=nhw NCHW (per image, rows:
 *           the C planes, columns: H*W): a thread owns 4 consecutive columns and walks rt
 *           consecutive rows; rl row lanes of a block meet in a shared-memory tree; a block's
 *           states go to the workspace (keep=c: chunks of >= 64 rows, about one full-occupancy
 *           wave of blocks: FREEDNN_GPU_RD_BLOCKS) or to C (keep=nhw: 2, 4 or 8 row lanes, about
 *           RF_NHW_ROWS rows a thread; one lane when C <= 64).
 *   rd_row  keep=nhw NHWC: each row of C elements by L lanes (L = 1: one thread a row).
 *   rd_fin2 the second stage: 32 lanes an output merge its chunks' states (fixed order).
 * Accumulation in double as the ref (each term exact in double); sums meet in another order than
 * the ref's (tolerance: gm_tol, as the block kernel) except where a thread walks a whole slice
 * (keep=nhw with C <= 64: rd_row L = 1, rd_col rl = 1; keep=c NHWC slices of <= 64 pixels),
 * which is the ref's sequence bit for bit; keep=c NCHW slices of <= 64 elements stay on the
 * serial kernel. Fixed shapes and merge orders: identical bits run after run. MIN / MAX / AMAX
 * are exact in any order: MIN runs as MAX of -v (negation is exact), a state keeps the first
 * position of its value and merges prefer the lower one on ties (so -0 against +0 is the ref's
 * first occurrence); NaN as the ref: PROPAGATE_NAN gives NaN when any term is NaN, otherwise
 * NaNs are skipped and a slice of NaNs only gives the empty value. Stage-1 states in the
 * workspace are doubles: a sum, or a select value with NaN for "NaN propagated" / "no value".
 * Registers (-Xptxas -v, CUDA 13): see RD_FAST_REGS below the kernels. */

#define RF_U 4     /* vectors a thread loads before using them */
#define RF_V 4     /* rd_col: columns a thread */
#define RF_ROWS 64 /* rd_col keep=c: at least this many rows a chunk */
/* rd_col keep=nhw: rows a thread the row lanes aim at (dev/reduce_col on the H200, f32
 * n32c128h56w56: 16 rows a thread 3353 GB/s, 32 rows 3982-4086, 64 rows 3547; f16 c256: 32 rows
 * 3895-3940, 64 rows 2994) */
#define RF_NHW_ROWS 32

enum { RF_SUM = 0, RF_ABS = 1, RF_SQ = 2, RF_SEL = 3 };

typedef struct {
    int kind; /* RF_* */
    int mode; /* RF_SEL: 0 MAX, 1 MIN (as MAX of -v), 2 AMAX */
    int propagate, avg;
    double count, empty;
    cudnnDataType_t cdt;
    int64_t cst; /* C's stride between consecutive outputs */
    double alpha, beta;
} rf_fin_t;

typedef struct {
    double acc;
    uint32_t idx; /* RF_SEL: the first position of acc */
    uint32_t fl;  /* RF_SEL: 1 a value seen, 2 a NaN seen */
} rf_state_t;

template <int K> static __device__ __forceinline__ void rf_init(rf_state_t &s)
{
    s.acc = K == RF_SEL ? -CUDART_INF : 0.0;
    s.idx = 0xffffffffu, s.fl = 0;
}

/* One term v at position pos (rd_step's arithmetic; MIN negated, AMAX absolute). */
template <int K>
static __device__ __forceinline__ void rf_step(rf_state_t &s, double v, int mode, uint32_t pos)
{
    if (K == RF_SUM) {
        s.acc = __dadd_rn(s.acc, v);
    } else if (K == RF_ABS) {
        s.acc = __dadd_rn(s.acc, fabs(v));
    } else if (K == RF_SQ) {
        s.acc = __dadd_rn(s.acc, __dmul_rn(v, v));
    } else {
        const double w = mode == 2 ? fabs(v) : mode == 1 ? -v : v;
        s.fl |= isnan(w) ? 2u : 1u;
        if (w > s.acc)
            s.acc = w, s.idx = pos;
    }
}

/* s = s merged with t (positions of either before the other: the lower position wins ties). */
template <int K> static __device__ __forceinline__ void rf_merge(rf_state_t &s, const rf_state_t &t)
{
    if (K != RF_SEL) {
        s.acc = __dadd_rn(s.acc, t.acc);
        return;
    }
    s.fl |= t.fl;
    if (t.acc > s.acc || (t.acc == s.acc && t.idx < s.idx))
        s.acc = t.acc, s.idx = t.idx;
}

/* The workspace double of a chunk's state. */
template <int K>
static __device__ __forceinline__ double rf_partial(const rf_fin_t &F, const rf_state_t &s)
{
    if (K != RF_SEL)
        return s.acc;
    return (F.propagate && (s.fl & 2u)) || !(s.fl & 1u) ? CUDART_NAN : s.acc;
}

/* Output o = the final value of s blended into C (rd_finish's arithmetic). */
template <int K>
static __device__ __forceinline__ void rf_finish(const rf_fin_t &F, const rf_state_t &s, void *c,
                                                 int64_t o)
{
    double r = s.acc;
    if (K == RF_SEL)
        r = F.propagate && (s.fl & 2u) ? CUDART_NAN
            : !(s.fl & 1u)             ? F.empty
            : F.mode == 1              ? -s.acc
                                       : s.acc;
    else if (F.avg)
        r = s.acc / F.count;
    else if (K == RF_SQ)
        r = sqrt(s.acc);
    sd_blend_dt(F.cdt, c, o * F.cst, F.alpha, F.beta, r);
}

/* Raw loads of 8 or 16 bytes, converted word by word. */
template <int B> struct rf_raw;
template <> struct rf_raw<16> {
    uint32_t w[4];
    __device__ __forceinline__ void ld(const void *p)
    {
        const uint4 u = __ldg((const uint4 *)p);
        w[0] = u.x, w[1] = u.y, w[2] = u.z, w[3] = u.w;
    }
};
template <> struct rf_raw<8> {
    uint32_t w[2];
    __device__ __forceinline__ void ld(const void *p)
    {
        const uint2 u = __ldg((const uint2 *)p);
        w[0] = u.x, w[1] = u.y;
    }
};
static __device__ __forceinline__ void rf_cvt(const float *, uint32_t w, float *f)
{
    f[0] = __uint_as_float(w);
}
static __device__ __forceinline__ void rf_cvt(const __half *, uint32_t w, float *f)
{
    f[0] = __half2float(__ushort_as_half((unsigned short)(w & 0xffffu)));
    f[1] = __half2float(__ushort_as_half((unsigned short)(w >> 16)));
}
static __device__ __forceinline__ void rf_cvt(const __nv_bfloat16 *, uint32_t w, float *f)
{
    f[0] = __uint_as_float(w << 16); /* bfloat16 -> float is the upper half-word */
    f[1] = __uint_as_float(w & 0xffff0000u);
}

/* The B / sizeof(T) elements of a raw vector as floats (exact). */
template <typename T, int B>
static __device__ __forceinline__ void rf_floats(const rf_raw<B> &r, float *f)
{
    constexpr int E = 4 / (int)sizeof(T);
#pragma unroll
    for (int i = 0; i < B / 4; i++)
        rf_cvt((const T *)0, r.w[i], f + i * E);
}

/* Every term of a raw vector r (elements at positions pos0, pos0 + 1, ...) into s. */
template <typename T, int K, int B>
static __device__ __forceinline__ void rf_steps(rf_state_t &s, const rf_raw<B> &r, int mode,
                                                uint32_t pos0)
{
    float f[B / sizeof(T)];
    rf_floats<T>(r, f);
#pragma unroll
    for (int e = 0; e < (int)(B / sizeof(T)); e++)
        rf_step<K>(s, (double)f[e], mode, pos0 + (uint32_t)e);
}

/* The B / sizeof(T) columns of a raw vector r (row position pos) into s[0 .. B / sizeof(T)). */
template <typename T, int K, int B>
static __device__ __forceinline__ void rf_col_steps(rf_state_t *s, const rf_raw<B> &r, int mode,
                                                    uint32_t pos)
{
    float f[B / sizeof(T)];
    rf_floats<T>(r, f);
#pragma unroll
    for (int e = 0; e < (int)(B / sizeof(T)); e++)
        rf_step<K>(s[e], (double)f[e], mode, pos);
}

/* Lane l takes lane l + h's state, h = width/2 .. 1, within groups of `width` lanes. */
template <int K> static __device__ __forceinline__ void rf_shfl_reduce(rf_state_t &s, int width)
{
    for (int h = width / 2; h > 0; h >>= 1) {
        rf_state_t t;
        t.acc = __shfl_down_sync(0xffffffffu, s.acc, h, width);
        if (K == RF_SEL) {
            t.idx = __shfl_down_sync(0xffffffffu, s.idx, h, width);
            t.fl = __shfl_down_sync(0xffffffffu, s.fl, h, width);
        }
        rf_merge<K>(s, t);
    }
}

/* keep=c, NCHW: grid (chunks, C); hwv 16-byte vectors a plane, nvec = N * hwv a channel. */
template <typename T, int K>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK)
    rd_seg(const T *__restrict__ a, void *c, double *__restrict__ ws, const rf_fin_t F,
           uint32_t hwv, uint32_t nvec, uint32_t chans)
{
    constexpr int VE = 16 / (int)sizeof(T);
    __shared__ rf_state_t warp_s[FD_CUDA_BLOCK / 32];
    fd_pdl_trigger(); /* rd_fin2 may be scheduled once every block has started */
    const uint32_t ch = blockIdx.y;
    const uint32_t j0 = blockIdx.x * (FD_CUDA_BLOCK * RF_U) + threadIdx.x;
    rf_raw<16> r[RF_U];
#pragma unroll
    for (int u = 0; u < RF_U; u++) {
        const uint32_t j = j0 + (uint32_t)(u * FD_CUDA_BLOCK);
        if (j < nvec) {
            const uint32_t n = j / hwv;
            r[u].ld((const uint4 *)a + ((uint64_t)n * chans + ch) * hwv + (j - n * hwv));
        }
    }
    rf_state_t s;
    rf_init<K>(s);
#pragma unroll
    for (int u = 0; u < RF_U; u++) {
        const uint32_t j = j0 + (uint32_t)(u * FD_CUDA_BLOCK);
        if (j < nvec)
            rf_steps<T, K>(s, r[u], F.mode, j * VE);
    }
    rf_shfl_reduce<K>(s, 32);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        warp_s[warp] = s;
    __syncthreads();
    if (warp == 0) {
        if (lane < FD_CUDA_BLOCK / 32)
            s = warp_s[lane];
        else
            rf_init<K>(s);
        rf_shfl_reduce<K>(s, FD_CUDA_BLOCK / 32);
        if (lane == 0) {
            if (gridDim.x == 1)
                rf_finish<K>(F, s, c, ch);
            else
                ws[(uint64_t)blockIdx.x * chans + ch] = rf_partial<K>(F, s);
        }
    }
}

/* keep=c NHWC / keep=nhw NCHW: grid (column groups, row chunks, batch), blocks of cb x rl
 * threads; a thread takes V columns from cvi * V and rows [r0, r0 + rt) of `rows`, rows
 * rs elements apart, batches bs apart; output (z, column) is z * cols + column. V = RF_V (4),
 * or 2 for FLOAT sums on keep=c (rf_plan). A thread keeps 64 bytes of loads in flight: U = 4
 * rows of 16 bytes (FLOAT, V 4), 8 rows of 8 bytes (16-bit types, FLOAT V 2; 4 rows lost 7%
 * against 8 on keep=nhw f16, dev/reduce_col), 4 for the select operators (their states: 8 rows
 * of 16-bit types spilled at 4 blocks an SM). */
template <typename T, int K, int V> struct rf_col_occ { /* rd_col's blocks an SM (bounds) */
    static const int blocks = K == RF_SEL ? 4 : sizeof(T) * V == 16 ? 6 : 8;
};
template <typename T, int K, int V>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK, (rf_col_occ<T, K, V>::blocks))
    rd_col(const T *__restrict__ a, void *c, double *__restrict__ ws, const rf_fin_t F,
           uint32_t ncv, uint32_t cb, uint32_t rl, uint32_t rows, uint32_t rt, uint32_t rs,
           uint64_t bs)
{
    constexpr int B = V * (int)sizeof(T), U = K == RF_SEL ? 4 : 64 / B;
    __shared__ double s_acc[FD_CUDA_BLOCK * V];
    __shared__ uint32_t s_aux[K == RF_SEL ? FD_CUDA_BLOCK * V * 2 : 1];
    fd_pdl_trigger();
    const uint32_t tx = threadIdx.x % cb, ty = threadIdx.x / cb;
    const uint32_t cvi = blockIdx.x * cb + tx;
    const uint32_t r0 = (blockIdx.y * rl + ty) * rt;
    const uint32_t r1 = r0 + rt < rows ? r0 + rt : rows;
    rf_state_t s[V];
#pragma unroll
    for (int e = 0; e < V; e++)
        rf_init<K>(s[e]);
    if (cvi < ncv) {
        const T *p = a + blockIdx.z * bs + (uint64_t)cvi * V;
        uint32_t r = r0;
        for (; r + U <= r1; r += U) {
            rf_raw<B> v[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                v[u].ld(p + (uint64_t)(r + u) * rs);
#pragma unroll
            for (int u = 0; u < U; u++)
                rf_col_steps<T, K>(s, v[u], F.mode, r + u);
        }
        for (; r < r1; r++) {
            rf_raw<B> v;
            v.ld(p + (uint64_t)r * rs);
            rf_col_steps<T, K>(s, v, F.mode, r);
        }
    }
    if (rl > 1) {
#pragma unroll
        for (int e = 0; e < V; e++) {
            s_acc[threadIdx.x * V + e] = s[e].acc;
            if (K == RF_SEL) {
                s_aux[2 * (threadIdx.x * V + e)] = s[e].idx;
                s_aux[2 * (threadIdx.x * V + e) + 1] = s[e].fl;
            }
        }
        for (uint32_t h = 1; h < rl; h <<= 1) {
            __syncthreads();
            if (ty % (2 * h) == 0 && ty + h < rl) {
                const uint32_t q = (threadIdx.x + h * cb) * V;
#pragma unroll
                for (int e = 0; e < V; e++) {
                    rf_state_t t;
                    t.acc = s_acc[q + e];
                    if (K == RF_SEL)
                        t.idx = s_aux[2 * (q + e)], t.fl = s_aux[2 * (q + e) + 1];
                    rf_merge<K>(s[e], t);
                    s_acc[threadIdx.x * V + e] = s[e].acc;
                    if (K == RF_SEL) {
                        s_aux[2 * (threadIdx.x * V + e)] = s[e].idx;
                        s_aux[2 * (threadIdx.x * V + e) + 1] = s[e].fl;
                    }
                }
            }
        }
    }
    if (ty == 0 && cvi < ncv) {
        const uint64_t o0 = (uint64_t)blockIdx.z * ncv * V + (uint64_t)cvi * V;
#pragma unroll
        for (int e = 0; e < V; e++) {
            if (gridDim.y == 1)
                rf_finish<K>(F, s[e], c, (int64_t)(o0 + e));
            else
                ws[(uint64_t)blockIdx.y * gridDim.z * ncv * V + o0 + e] = rf_partial<K>(F, s[e]);
        }
    }
}

/* keep=nhw NHWC: `rows` rows of cv 16-byte vectors, 1 << lg lanes a row; lane j takes vectors
 * j, j + L, ... */
template <typename T, int K>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK)
    rd_row(const T *__restrict__ a, void *c, const rf_fin_t F, uint32_t rows, uint32_t cv, int lg)
{
    constexpr int VE = 16 / (int)sizeof(T);
    const uint32_t L = 1u << lg;
    const uint32_t g = blockIdx.x * FD_CUDA_BLOCK + threadIdx.x;
    const uint32_t row = g >> lg, lane = g & (L - 1);
    rf_state_t s;
    rf_init<K>(s);
    if (row < rows) {
        const uint4 *p = (const uint4 *)a + (uint64_t)row * cv;
        uint32_t k = lane;
        for (; k + (RF_U - 1) * L < cv; k += RF_U * L) {
            rf_raw<16> v[RF_U];
#pragma unroll
            for (int u = 0; u < RF_U; u++)
                v[u].ld(p + k + u * L);
#pragma unroll
            for (int u = 0; u < RF_U; u++)
                rf_steps<T, K>(s, v[u], F.mode, (k + u * L) * VE);
        }
        for (; k < cv; k += L) {
            rf_raw<16> v;
            v.ld(p + k);
            rf_steps<T, K>(s, v, F.mode, k * VE);
        }
    }
    if (L > 1)
        rf_shfl_reduce<K>(s, (int)L);
    if (row < rows && lane == 0)
        rf_finish<K>(F, s, c, row);
}

/* The second stage: blocks of RF_F2_OUTS outputs x RF_F2_LANES lanes; lane l of output o merges
 * the states ws[k * outs + o] of chunks k = l, l + RF_F2_LANES, ... in order, and the lanes meet
 * in a fixed shared-memory tree (a select state keeps its first chunk: ties go to the lower).
 * Launched as a programmatic dependent of the stage-1 kernel (pdl.cuh): it waits for that
 * kernel's states before its loads. */
#define RF_F2_OUTS 8
#define RF_F2_LANES (FD_CUDA_BLOCK / RF_F2_OUTS)
template <int K>
static __global__ void __launch_bounds__(FD_CUDA_BLOCK)
    rd_fin2(const double *__restrict__ ws, void *c, const rf_fin_t F, uint32_t outs, uint32_t parts)
{
    __shared__ double s_acc[FD_CUDA_BLOCK];
    __shared__ uint32_t s_aux[K == RF_SEL ? 2 * FD_CUDA_BLOCK : 1];
    const uint32_t oo = threadIdx.x % RF_F2_OUTS, kl = threadIdx.x / RF_F2_OUTS;
    const uint32_t o = blockIdx.x * RF_F2_OUTS + oo;
    rf_state_t s;
    rf_init<K>(s);
    fd_pdl_wait();
    if (o < outs) {
        uint32_t k = kl;
        for (; k + 3 * RF_F2_LANES < parts; k += 4 * RF_F2_LANES) {
            double v[4];
#pragma unroll
            for (int u = 0; u < 4; u++)
                v[u] = ws[(uint64_t)(k + u * RF_F2_LANES) * outs + o];
#pragma unroll
            for (int u = 0; u < 4; u++) {
                if (K == RF_SEL)
                    rf_step<RF_SEL>(s, v[u], 0, k + u * RF_F2_LANES);
                else
                    s.acc = __dadd_rn(s.acc, v[u]);
            }
        }
        for (; k < parts; k += RF_F2_LANES) {
            const double v = ws[(uint64_t)k * outs + o];
            if (K == RF_SEL)
                rf_step<RF_SEL>(s, v, 0, k);
            else
                s.acc = __dadd_rn(s.acc, v);
        }
    }
    s_acc[threadIdx.x] = s.acc;
    if (K == RF_SEL)
        s_aux[2 * threadIdx.x] = s.idx, s_aux[2 * threadIdx.x + 1] = s.fl;
    for (uint32_t h = 1; h < RF_F2_LANES; h <<= 1) {
        __syncthreads();
        if (kl % (2 * h) == 0) {
            const uint32_t q = threadIdx.x + h * RF_F2_OUTS;
            rf_state_t t;
            t.acc = s_acc[q];
            if (K == RF_SEL)
                t.idx = s_aux[2 * q], t.fl = s_aux[2 * q + 1];
            rf_merge<K>(s, t);
            s_acc[threadIdx.x] = s.acc;
            if (K == RF_SEL)
                s_aux[2 * threadIdx.x] = s.idx, s_aux[2 * threadIdx.x + 1] = s.fl;
        }
    }
    if (kl == 0 && o < outs)
        rf_finish<K>(F, s, c, o);
}

/* RD_FAST_REGS, -Xptxas -v (CUDA 13), sm_80 / sm_90, no spills; K = SUM, ABS, SQ / SEL:
 *   rd_seg  FLOAT 32 / 30, SEL 38 / 32; HALF, BFLOAT16 32 / 31-32, SEL 40 / 38-39
 *   rd_col  FLOAT 40 / 40 (launch bounds: 6 blocks of 256 an SM), SEL 64 / 62 (4 blocks);
 *           FLOAT V 2 32 / 32 (8 blocks); HALF, BFLOAT16 32 / 32 (8 blocks; 8 rows in flight),
 *           SEL 56 / 58-60; 8 KiB shared memory (V 2: 4; SEL 16)
 *   rd_row  32 / 32; SEL FLOAT 32 / 40, HALF 44 / 44, BFLOAT16 42 / 40
 *   rd_fin2 32 / 32, SEL 30 / 30; 2 KiB shared memory (SEL 4) */

/* ---- the fast path's host side ---- */

typedef struct {
    int shape; /* 0: not taken; 1 rd_seg, 2 rd_col keep=c, 3 rd_row, 4 rd_col keep=nhw */
    rf_fin_t F;
    size_t align;         /* A's alignment the kernel needs, bytes */
    uint32_t outs, parts; /* rd_fin2 when parts > 1 */
    /* rd_seg */
    uint32_t hwv, nvec, chans;
    /* rd_col */
    uint32_t v; /* columns a thread: RF_V, or 2 (FLOAT sums, keep=c) */
    uint32_t ncv, cb, rl, rows, rt, rs, nb;
    uint64_t bs;
    /* rd_row */
    uint32_t cv;
    int lg;
    dim3 grid;
    unsigned block;
} rf_plan_t;

static int rf_on(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_RD_FAST");
    return on;
}

/* FREEDNN_GPU_RD_NHW_ROWS=0: rd_col keep=nhw takes its row lanes from the column block (the
 * rule before 2026-12-03: the narrowest block with the fewest idle columns, 256 / cb lanes);
 * read once. */
static int rf_nhw_rows_on(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_RD_NHW_ROWS");
    return on;
}

/* rd_col keep=c's grid target: FREEDNN_GPU_RD_BLOCKS blocks when set (read once), else one
 * full-occupancy wave (the SMs times the blocks of 256 an SM holds at rd_col's launch bounds:
 * 8 for 16-bit sums, 6 for FLOAT sums, 4 for the select operators). */
static uint64_t rf_col_target(int sel, int64_t es, uint32_t v)
{
    static const long fixed = fd_env_long("FREEDNN_GPU_RD_BLOCKS", 0, 1L << 24, 0);
    if (fixed > 0)
        return (uint64_t)fixed;
    const int per_sm = sel       ? rf_col_occ<float, RF_SEL, RF_V>::blocks
                       : v == 2  ? rf_col_occ<float, RF_SUM, 2>::blocks / 2 /* half a wave */
                       : es == 4 ? rf_col_occ<float, RF_SUM, RF_V>::blocks
                                 : rf_col_occ<__half, RF_SUM, RF_V>::blocks;
    return (uint64_t)fd_cuda_sm_count() * (uint64_t)per_sm;
}

/* FREEDNN_GPU_RD_COL2=0: FLOAT sums on keep=c NHWC keep 4 columns a thread and a full wave (the
 * shape before 2026-12-03); read once. */
static int rf_col2_on(void)
{
    static const int on = fd_env_on("FREEDNN_GPU_RD_COL2");
    return on;
}

/* rd_col's column block: ncv itself when <= 32 (or when one row lane, up to 256), else the
 * width among 32 .. 256 that leaves the fewest idle columns (the narrowest on ties). */
static uint32_t rf_col_block(uint32_t ncv, int one_lane)
{
    if (ncv <= 32 || (one_lane && ncv <= FD_CUDA_BLOCK))
        return ncv;
    if (one_lane)
        return FD_CUDA_BLOCK;
    uint32_t best = 32;
    uint64_t best_slots = ~0ull;
    for (uint32_t cb = 32; cb <= FD_CUDA_BLOCK; cb *= 2) {
        const uint64_t slots = ((uint64_t)ncv + cb - 1) / cb * cb;
        if (slots < best_slots)
            best = cb, best_slots = slots;
    }
    return best;
}

/* rd_col's columns a thread on keep=c NHWC: 2 for FLOAT sums (8-byte loads, 8 rows in flight,
 * half a wave of blocks: dev/reduce_col on the H200, f32 n32c128h56w56 14.6 us against 16.8-17.6
 * with 4 columns and a full wave, whose 784 chunk states made the second stage 2.3-3 us of it),
 * else RF_V. */
static uint32_t rf_keepc_v(cudnnDataType_t dt, int kind)
{
    return dt == CUDNN_DATA_FLOAT && kind != RF_SEL && rf_col2_on() ? 2u : (uint32_t)RF_V;
}

/* Whether v's 4 dims are packed in the order perm (outermost first); dims of 1 match anything. */
static int rf_packed(const fd_tview_t *v, const int *perm)
{
    int64_t acc = 1;
    for (int i = 3; i >= 0; i--) {
        const int d = perm[i];
        if (v->dim[d] != 1 && v->stride[d] != acc)
            return 0;
        acc *= v->dim[d];
    }
    return 1;
}

/* The plan of problem p (from the problem alone: the workspace query gets the same answer). */
static int rf_plan(const fd_tensor_reduce_problem_t *p, rf_plan_t *P)
{
    *P = rf_plan_t(); /* zeros, then dim3s of 1 */
    if (!rf_on() || p->want_indices || p->a.nb_dims != 4 || p->c.nb_dims != 4 || p->a.vect != 1 ||
        p->c.vect != 1 || p->a.dtype != p->c.dtype)
        return 0;
    const cudnnDataType_t dt = p->a.dtype;
    if (dt != CUDNN_DATA_FLOAT && dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16)
        return 0;
    rf_fin_t &F = P->F;
    switch (p->op) {
    case CUDNN_REDUCE_TENSOR_ADD:
    case CUDNN_REDUCE_TENSOR_AVG:
        F.kind = RF_SUM;
        break;
    case CUDNN_REDUCE_TENSOR_NORM1:
        F.kind = RF_ABS;
        break;
    case CUDNN_REDUCE_TENSOR_NORM2:
        F.kind = RF_SQ;
        break;
    case CUDNN_REDUCE_TENSOR_MAX:
        F.kind = RF_SEL, F.mode = 0, F.empty = -FLT_MAX;
        break;
    case CUDNN_REDUCE_TENSOR_MIN:
        F.kind = RF_SEL, F.mode = 1, F.empty = FLT_MAX;
        break;
    case CUDNN_REDUCE_TENSOR_AMAX:
        F.kind = RF_SEL, F.mode = 2, F.empty = 0.0;
        break;
    default:
        return 0;
    }
    F.avg = p->op == CUDNN_REDUCE_TENSOR_AVG;
    F.propagate = p->nan == CUDNN_PROPAGATE_NAN;
    F.cdt = p->c.dtype;
    const int64_t N = p->a.dim[0], C = p->a.dim[1], H = p->a.dim[2], W = p->a.dim[3];
    const int64_t HW = H * W, es = (int64_t)fd_dtype_size(dt), VE = 16 / es;
    static const int nchw[4] = {0, 1, 2, 3}, nhwc[4] = {0, 2, 3, 1};
    const int a_nchw = rf_packed(&p->a, nchw), a_nhwc = rf_packed(&p->a, nhwc);
    const int64_t *cd = p->c.dim;
    const int keep_c = cd[0] == 1 && cd[1] == C && cd[2] == 1 && cd[3] == 1;
    const int keep_nhw =
        !keep_c && cd[0] == N && cd[1] == 1 && cd[2] == H && cd[3] == W && rf_packed(&p->c, nchw);
    if (keep_c) {
        const uint32_t kv = rf_keepc_v(dt, F.kind);
        F.count = (double)(N * HW);
        F.cst = C > 1 ? p->c.stride[1] : 1;
        if (a_nchw && HW % VE == 0 && N * HW > RD_SERIAL_MAX && C <= 65535) {
            P->shape = 1, P->align = 16;
            P->hwv = (uint32_t)(HW / VE), P->nvec = (uint32_t)(N * HW / VE), P->chans = (uint32_t)C;
            const int64_t per = (int64_t)FD_CUDA_BLOCK * RF_U;
            P->parts = (uint32_t)((P->nvec + per - 1) / per);
            P->grid = dim3(P->parts, (unsigned)C, 1);
            P->block = FD_CUDA_BLOCK;
        } else if (a_nhwc && C % kv == 0) {
            P->shape = 2, P->v = kv, P->align = (size_t)(kv * es);
            P->rows = (uint32_t)(N * HW), P->rs = (uint32_t)C, P->nb = 1, P->bs = 0;
            P->ncv = (uint32_t)(C / P->v);
            const int exact = N * HW <= RD_SERIAL_MAX;
            P->cb = rf_col_block(P->ncv, exact);
            P->rl = exact ? 1 : FD_CUDA_BLOCK / P->cb;
            /* chunks of >= RF_ROWS rows (the states stay a few % of A), else rf_col_target's
             * blocks in all */
            const uint32_t gx = (P->ncv + P->cb - 1) / P->cb;
            const uint64_t tb = rf_col_target(F.kind == RF_SEL, es, P->v);
            const uint64_t by_rows = (RF_ROWS + P->rl - 1) / P->rl,
                           by_blocks = ((uint64_t)P->rows * gx + tb * P->rl - 1) / (tb * P->rl);
            P->rt = exact ? P->rows : (uint32_t)(by_rows > by_blocks ? by_rows : by_blocks);
            uint64_t chunks =
                ((uint64_t)P->rows + (uint64_t)P->rl * P->rt - 1) / ((uint64_t)P->rl * P->rt);
            if (chunks > 65535) {
                P->rt = (uint32_t)(((uint64_t)P->rows + 65535ull * P->rl - 1) / (65535ull * P->rl));
                chunks =
                    ((uint64_t)P->rows + (uint64_t)P->rl * P->rt - 1) / ((uint64_t)P->rl * P->rt);
            }
            P->parts = (uint32_t)chunks;
            P->grid = dim3((P->ncv + P->cb - 1) / P->cb, P->parts, 1);
            P->block = P->cb * P->rl;
        } else {
            return 0;
        }
        P->outs = (uint32_t)C;
    } else if (keep_nhw) {
        F.count = (double)C;
        F.cst = 1;
        if (a_nhwc && C % VE == 0) {
            P->shape = 3, P->align = 16;
            P->rows = (uint32_t)(N * HW), P->cv = (uint32_t)(C / VE);
            int lg = 0;
            if (C > RD_SERIAL_MAX)
                while (lg < 5 && (2u << lg) * RF_U <= P->cv)
                    lg++;
            P->lg = lg;
            const uint64_t threads = (uint64_t)P->rows << lg;
            P->grid = dim3((unsigned)((threads + FD_CUDA_BLOCK - 1) / FD_CUDA_BLOCK), 1, 1);
            P->block = FD_CUDA_BLOCK;
        } else if (a_nchw && HW % RF_V == 0 && N <= 65535) {
            P->shape = 4, P->v = RF_V, P->align = (size_t)(RF_V * es);
            P->rows = (uint32_t)C, P->rs = (uint32_t)HW, P->nb = (uint32_t)N,
            P->bs = (uint64_t)C * HW;
            P->ncv = (uint32_t)(HW / RF_V);
            if (C <= RD_SERIAL_MAX || !rf_nhw_rows_on()) { /* one lane: the ref's order */
                const int exact = C <= RD_SERIAL_MAX;
                P->cb = rf_col_block(P->ncv, exact);
                P->rl = exact ? 1 : FD_CUDA_BLOCK / P->cb;
            } else { /* 2, 4 or 8 row lanes: about RF_NHW_ROWS rows a thread */
                uint32_t rl = 2;
                while (rl < 8 && (int64_t)rl * 2 * RF_NHW_ROWS <= C)
                    rl *= 2;
                P->rl = rl;
                P->cb = P->ncv < FD_CUDA_BLOCK / rl ? P->ncv : FD_CUDA_BLOCK / rl;
            }
            P->rt = (uint32_t)((C + P->rl - 1) / P->rl);
            P->parts = 1;
            P->grid = dim3((P->ncv + P->cb - 1) / P->cb, 1, P->nb);
            P->block = P->cb * P->rl;
        } else {
            return 0;
        }
        P->outs = (uint32_t)(N * HW);
    } else {
        return 0;
    }
    return 1;
}

static size_t rf_workspace(const rf_plan_t *P)
{
    return (P->shape == 1 || P->shape == 2) && P->parts > 1
               ? (size_t)P->parts * P->outs * sizeof(double)
               : 0;
}

/* rd_col<T, K, P.v>: V = 2 only for FLOAT sums (the only plans that take it). */
template <typename T, int K> struct rf_col_launch {
    static void go(const rf_plan_t &P, const T *a, void *c, double *ws, cudaStream_t st)
    {
        rd_col<T, K, RF_V><<<P.grid, P.block, 0, st>>>(a, c, ws, P.F, P.ncv, P.cb, P.rl, P.rows,
                                                       P.rt, P.rs, P.bs);
    }
};
template <int K> struct rf_col_launch<float, K> {
    static void go(const rf_plan_t &P, const float *a, void *c, double *ws, cudaStream_t st)
    {
        if (P.v == 2 && K != RF_SEL)
            rd_col<float, K, K == RF_SEL ? RF_V : 2><<<P.grid, P.block, 0, st>>>(
                a, c, ws, P.F, P.ncv, P.cb, P.rl, P.rows, P.rt, P.rs, P.bs);
        else
            rd_col<float, K, RF_V><<<P.grid, P.block, 0, st>>>(a, c, ws, P.F, P.ncv, P.cb, P.rl,
                                                               P.rows, P.rt, P.rs, P.bs);
    }
};

template <typename T, int K>
static void rf_launch_k(const rf_plan_t &P, const void *a, void *c, double *ws, cudaStream_t st)
{
    const T *at = (const T *)a;
    switch (P.shape) {
    case 1:
        rd_seg<T, K><<<P.grid, P.block, 0, st>>>(at, c, ws, P.F, P.hwv, P.nvec, P.chans);
        break;
    case 2:
    case 4:
        rf_col_launch<T, K>::go(P, at, c, ws, st);
        break;
    default:
        rd_row<T, K><<<P.grid, P.block, 0, st>>>(at, c, P.F, P.rows, P.cv, P.lg);
        break;
    }
}

template <typename T>
static void rf_launch_t(const rf_plan_t &P, const void *a, void *c, double *ws, cudaStream_t st)
{
    switch (P.F.kind) {
    case RF_SUM:
        rf_launch_k<T, RF_SUM>(P, a, c, ws, st);
        break;
    case RF_ABS:
        rf_launch_k<T, RF_ABS>(P, a, c, ws, st);
        break;
    case RF_SQ:
        rf_launch_k<T, RF_SQ>(P, a, c, ws, st);
        break;
    default:
        rf_launch_k<T, RF_SEL>(P, a, c, ws, st);
        break;
    }
}

/* Whether A and the workspace are aligned for plan P (else today's kernels take the call). */
static int rf_aligned(const rf_plan_t &P, const fd_tensor_reduce_args_t *a)
{
    return (uintptr_t)a->a % P.align == 0 &&
           (rf_workspace(&P) == 0 || (uintptr_t)a->workspace % sizeof(double) == 0);
}

/* Runs plan P (rf_aligned). */
static cudnnStatus_t rf_run(const rf_plan_t &P, const fd_tensor_reduce_args_t *a, cudaStream_t st)
{
    const size_t ws_need = rf_workspace(&P);
    rf_plan_t Q = P;
    Q.F.alpha = a->alpha, Q.F.beta = a->beta;
    double *ws = ws_need ? (double *)a->workspace : NULL;
    const cudnnDataType_t dt = Q.F.cdt;
    if (dt == CUDNN_DATA_FLOAT)
        rf_launch_t<float>(Q, a->a, a->c, ws, st);
    else if (dt == CUDNN_DATA_HALF)
        rf_launch_t<__half>(Q, a->a, a->c, ws, st);
    else
        rf_launch_t<__nv_bfloat16>(Q, a->a, a->c, ws, st);
    FD_CUDA_LAUNCHED("reduce fast shape %d (%u x %u x %u blocks of %u, stream %p)", Q.shape,
                     Q.grid.x, Q.grid.y, Q.grid.z, Q.block, (void *)st);
    if (ws_need) {
        const unsigned b = (Q.outs + RF_F2_OUTS - 1) / RF_F2_OUTS;
        const cudaError_t e =
            fd_cuda_launch_pdl(Q.F.kind == RF_SEL  ? rd_fin2<RF_SEL>
                               : Q.F.kind == RF_SQ ? rd_fin2<RF_SQ>
                                                   : rd_fin2<RF_SUM>,
                               dim3(b), dim3(FD_CUDA_BLOCK), 0, st, ws, a->c, Q.F, Q.outs, Q.parts);
        FD_CUDA_LAUNCHED_AS(e, "rd_fin2 (%u blocks, %u chunks, stream %p)", b, Q.parts, (void *)st);
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- row (src/impls.def) ------------------------------------------------------------------ */

extern "C" int fd_tensor_reduce_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_tensor_reduce_problem_t *p = (const fd_tensor_reduce_problem_t *)problem;
    const fd_tview_t *v[2] = {&p->a, &p->c};
    for (int i = 0; i < 2; i++)
        if (!sd_dtype_ok(v[i]->dtype) || v[i]->vect != 1) {
            snprintf(why, why_size, "%s is %s (%d lanes); the reduce kernels take plain FLOAT, "
                     "DOUBLE, HALF, BFLOAT16, INT8, UINT8, INT32, INT64",
                     i ? "C" : "A", fd_dtype_name(v[i]->dtype), v[i]->vect);
            return 0;
        }
    return 1;
}
extern "C" size_t fd_tensor_reduce_cuda_workspace(const void *problem)
{
    rf_plan_t P;
    return rf_plan((const fd_tensor_reduce_problem_t *)problem, &P) ? rf_workspace(&P) : 0;
}
extern "C" cudnnStatus_t fd_tensor_reduce_cuda_run(const void *problem, const void *args)
{
    const fd_tensor_reduce_problem_t *p = (const fd_tensor_reduce_problem_t *)problem;
    const fd_tensor_reduce_args_t *a = (const fd_tensor_reduce_args_t *)args;
    {
        rf_plan_t P;
        if (rf_plan(p, &P) && rf_aligned(P, a))
            return rf_run(P, a, a->handle->stream);
    }
    rd_geom_t G;
    memset(&G, 0, sizeof G);
    G.op = p->op;
    G.propagate = p->nan == CUDNN_PROPAGATE_NAN;
    G.select = p->op == CUDNN_REDUCE_TENSOR_MIN || p->op == CUDNN_REDUCE_TENSOR_MAX ||
               p->op == CUDNN_REDUCE_TENSOR_AMAX;
    G.adt = p->a.dtype, G.cdt = p->c.dtype;
    const double big = p->comp == CUDNN_DATA_DOUBLE ? DBL_MAX : FLT_MAX;
    G.empty = p->op == CUDNN_REDUCE_TENSOR_MIN ? big : p->op == CUDNN_REDUCE_TENSOR_MAX ? -big : 0.0;
    G.count = 1, G.outputs = 1;
    for (int i = 0; i < p->a.nb_dims; i++) {
        const int reduced = p->c.dim[i] == 1 && p->a.dim[i] != 1;
        if (reduced) {
            G.rdim[G.nr] = p->a.dim[i], G.rst[G.nr] = p->a.stride[i];
            G.count *= p->a.dim[i];
            G.nr++;
        } else {
            G.kdim[G.nk] = p->c.dim[i], G.kst[G.nk] = p->a.stride[i], G.kcst[G.nk] = p->c.stride[i];
            G.outputs *= p->c.dim[i];
            G.nk++;
        }
    }
    uint32_t *indices = p->want_indices ? a->indices : NULL;
    cudaStream_t st = a->handle->stream;
    if (G.count <= RD_SERIAL_MAX) {
        const unsigned blocks = fd_cuda_blocks(G.outputs, FD_CUDA_BLOCK);
        reduce_serial_kernel<<<blocks, FD_CUDA_BLOCK, 0, st>>>(G, a->a, a->c, indices, a->alpha, a->beta);
        FD_CUDA_LAUNCHED("reduce_serial_kernel (%u blocks, stream %p)", blocks, (void *)st);
    } else {
        const unsigned blocks = fd_cuda_blocks(G.outputs, 1);
        reduce_block_kernel<<<blocks, FD_CUDA_BLOCK, 0, st>>>(G, a->a, a->c, indices, a->alpha, a->beta);
        FD_CUDA_LAUNCHED("reduce_block_kernel (%u blocks, stream %p)", blocks, (void *)st);
    }
    return CUDNN_STATUS_SUCCESS;
}
