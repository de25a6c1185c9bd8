/* SPDX-License-Identifier: MIT */
/*
 * fusedops.cu - the seven cudnnFusedOps_t sequences on the GPU (rows fd_fused_*_cuda of
 * src/impls.def; definitions in src/core/fusedops.h, semantics of src/ref/fusedops_ref.c).
 *
 * Decisions:
 * - Ops 0 and 1 hand the convolution to the direct rows of conv_direct.cu (float accumulation),
 *   as the ref hands it to its own rows. The transformed input t goes to the workspace dense in
 *   x's own memory order (not the ref's NCHW): the transform then reads and writes coalesced
 *   for NCHW and NHWC alike, and the conv problem gets t's strides. Same size as the ref's t.
 * - Op 4 is one kernel, one thread per y element: the direct conv's gather (float accumulation,
 *   conv_direct.cu's loop order) and the epilogue in double, rounded once as the ref; a thread
 *   reads its z element before writing the same y element, so z == y needs no scratch.
 * - Per-channel sums (op 0's statistics, op 6's dBias / dScale) are deterministic two-pass
 *   reductions in double: blocks of (channel group, chunk of rows) write partials to the
 *   workspace, then one thread per channel adds the chunks in order. The chunking is a fixed
 *   rule of the problem. Channel-contiguous data (NHWC) is read 32 channels x 8 rows per block,
 *   the rest one channel per block along the rows, so warps read consecutive addresses in both.
 * - Element-wise passes (transform, op 6's dx / dz) walk the data in the memory order of one of
 *   their tensors (dims sorted by its strides), 32-bit index division when the walk allows.
 *   Op 5 works on 32 rows x 32 channels tiles so each bitmask word is assembled whole in shared
 *   memory: the bitmask is only written, every word of it (padding bits 0), as the ref.
 * - Double arithmetic uses the _rn intrinsics wherever the ref's C would not contract a
 *   multiply-add, so exact data gives the ref's bits (finalisation and op 5 give them always).
 * No allocation, no synchronisation, no atomics; every launch on the handle's stream.
 */
#include <stdio.h>
#include <string.h>

#include "misc_dev.cuh"
extern "C" {
#include "../core/fusedops.h"
}

/* The direct convolution rows of src/impls.def (conv_direct.cu). */
extern "C" int fd_conv_fwd_direct_applicable(const fd_conv_problem_t *p, char *why,
                                             size_t why_size);
extern "C" cudnnStatus_t fd_conv_fwd_direct_run(const fd_conv_problem_t *p,
                                                const fd_conv_args_t *a);
extern "C" int fd_conv_bwd_filter_direct_applicable(const fd_conv_problem_t *p, char *why,
                                                    size_t why_size);
extern "C" cudnnStatus_t fd_conv_bwd_filter_direct_run(const fd_conv_problem_t *p,
                                                       const fd_conv_args_t *a);

#define FZ_BLOCK 256 /* every kernel here: the reductions rely on it */
_Static_assert(FZ_BLOCK == FD_CUDA_BLOCK, "the element-wise kernels share the block size");

/* ---- a walk over the N, C, H, W of a 4-d tensor in some tensor's memory order ------------ */

#define FZ_OPS 4 /* tensors addressed along one walk */

typedef struct {
    int64_t ext[4];         /* extents, innermost level first */
    int64_t st[FZ_OPS][4];  /* element stride of each tensor per level (0: not walked) */
    int64_t crd[4][4];      /* coordinate n, c, h, w per level: 1 where the level is that dim */
    int64_t total;
    int small; /* total fits 32 bits: 32-bit division */
} fz_walk_t;

static __device__ __forceinline__ void fz_at(const fz_walk_t &wk, int64_t e, int64_t *off,
                                             int64_t *crd)
{
#pragma unroll
    for (int k = 0; k < FZ_OPS; k++)
        off[k] = 0;
#pragma unroll
    for (int d = 0; d < 4; d++)
        crd[d] = 0;
#pragma unroll
    for (int l = 0; l < 4; l++) {
        int64_t i;
        if (wk.small) {
            const uint32_t q = (uint32_t)e, x = (uint32_t)wk.ext[l];
            i = q % x;
            e = q / x;
        } else {
            i = e % wk.ext[l];
            e /= wk.ext[l];
        }
#pragma unroll
        for (int k = 0; k < FZ_OPS; k++)
            off[k] += i * wk.st[k][l];
#pragma unroll
        for (int d = 0; d < 4; d++)
            crd[d] += i * wk.crd[d][l];
    }
}

/* Dims of t from innermost to outermost by its strides; ties and extent-1 dims keep NCHW's
 * order (extent-1 dims outermost), so a packed NCHW or NHWC tensor walks its memory linearly. */
static void fz_order(const fd_fused_tensor_t *t, int *lvl)
{
    const int64_t ext[4] = {t->n, t->c, t->h, t->w};
    int d[4] = {3, 2, 1, 0};
    for (int i = 1; i < 4; i++)
        for (int j = i; j > 0; j--) {
            const int64_t ka = ext[d[j - 1]] == 1 ? INT64_MAX : t->s[d[j - 1]];
            const int64_t kb = ext[d[j]] == 1 ? INT64_MAX : t->s[d[j]];
            if (kb >= ka)
                break;
            const int tmp = d[j];
            d[j] = d[j - 1];
            d[j - 1] = tmp;
        }
    memcpy(lvl, d, sizeof d);
}

/* The walk over `order`'s dims in its memory order, addressing ops[k] (NULL: none). */
static fz_walk_t fz_walk_make(const fd_fused_tensor_t *order, const fd_fused_tensor_t *o0,
                              const fd_fused_tensor_t *o1, const fd_fused_tensor_t *o2,
                              const fd_fused_tensor_t *o3)
{
    const fd_fused_tensor_t *ops[FZ_OPS] = {o0, o1, o2, o3};
    const int64_t ext[4] = {order->n, order->c, order->h, order->w};
    fz_walk_t wk;
    memset(&wk, 0, sizeof wk);
    int lvl[4];
    fz_order(order, lvl);
    wk.total = 1;
    for (int l = 0; l < 4; l++) {
        wk.ext[l] = ext[lvl[l]];
        wk.total *= wk.ext[l];
        for (int k = 0; k < FZ_OPS; k++)
            wk.st[k][l] = ops[k] ? ops[k]->s[lvl[l]] : 0;
        wk.crd[lvl[l]][l] = 1;
    }
    wk.small = wk.total <= (int64_t)UINT32_MAX;
    return wk;
}

static __device__ __forceinline__ int64_t fz_off(const fd_fused_tensor_t &t, int64_t n, int64_t c,
                                                 int64_t h, int64_t w)
{
    return n * t.s[0] + c * t.s[1] + h * t.s[2] + w * t.s[3];
}

static __device__ __forceinline__ double fz_vld(const fd_fused_vec_t &v, const void *base,
                                                int64_t c)
{
    return fdm_ld(v.dt, base, c * v.s);
}

static __device__ __forceinline__ void fz_vst(const fd_fused_vec_t &v, void *base, int64_t c,
                                              double value)
{
    fdm_st(v.dt, base, c * v.s, value);
}

/* Bit c of bitmask row r (layout in src/core/fusedops.h). */
static __device__ __forceinline__ int fz_bit(const uint32_t *bm, int64_t words, int64_t r,
                                             int64_t c)
{
    return (int)((bm[r * words + c / 32] >> (c % 32)) & 1u);
}

static void *fz_ptr_if(const fd_fused_problem_t *p, const fd_fused_args_t *a, int label)
{
    return fd_fused_uses(p, label) ? a->ptr[label] : NULL;
}

/* ---- workspace: t (ops 0, 1), then double partial sums (ops 0, 6) ----------------------- */

/* Rows per chunk of the two-pass reductions: a fixed rule of the problem, so the bits never
 * depend on the device; at most 1024 chunks bound the partials. */
typedef struct {
    int minor;                   /* channels contiguous: 32 channels x 8 rows per block */
    int64_t c, rows, h, w;       /* row r = (n H + h) W + w */
    int64_t chunk_rows, chunks;
} fz_red_geom_t;

static fz_red_geom_t fz_red_geom(const fd_fused_tensor_t *t)
{
    fz_red_geom_t g;
    g.minor = t->c > 1 && t->s[1] == 1;
    g.c = t->c, g.h = t->h, g.w = t->w;
    g.rows = t->n * t->h * t->w;
    g.chunk_rows = g.minor ? 256 : 4096;
    g.chunks = (g.rows + g.chunk_rows - 1) / g.chunk_rows;
    if (g.chunks > 1024) {
        g.chunk_rows = (g.rows + 1023) / 1024;
        g.chunks = (g.rows + g.chunk_rows - 1) / g.chunk_rows;
    }
    return g;
}

/* Bytes of partials (2 doubles per channel and chunk) plus 16 to align them in any workspace. */
static size_t fz_red_bytes(const fz_red_geom_t *g)
{
    return (size_t)(g->chunks * g->c * 2) * sizeof(double) + 16;
}

static size_t fz_t_bytes(const fd_fused_problem_t *p)
{
    if (!p->transform)
        return 0;
    return (size_t)(p->x.n * p->x.c * p->x.h * p->x.w) * fd_dtype_size(p->x.dt);
}

static double *fz_align(void *base, size_t off)
{
    uintptr_t u = (uintptr_t)base + off;
    return (double *)((u + 15) & ~(uintptr_t)15);
}

/* ---- ops 0 and 1: t = act([eqScale] x [+ eqBias]) ------------------------------------------ */

static __global__ void fz_transform(const fz_walk_t wk, cudnnDataType_t dt, const void *x,
                                    const fd_fused_vec_t eq, const void *sc, const void *bi,
                                    const fd_act_params_t act, void *t)
{
    FDM_FOR(e, wk.total)
    {
        int64_t off[FZ_OPS], crd[4];
        fz_at(wk, e, off, crd);
        double v = fdm_ld(dt, x, off[0]);
        if (sc)
            v = __dmul_rn(v, fz_vld(eq, sc, crd[1]));
        if (bi)
            v = __dadd_rn(v, fz_vld(eq, bi, crd[1]));
        fdm_st(dt, t, e, fdm_act_fwd(act, v)); /* t is dense in the walk's order */
    }
}

/* Writes t to the workspace when the op transforms x; returns the conv input and sets cp's x
 * strides to t's. */
static cudnnStatus_t fz_transform_run(const fd_fused_problem_t *p, const fd_fused_args_t *a,
                                      fd_conv_problem_t *cp, const void **xin)
{
    *xin = a->ptr[CUDNN_PTR_XDATA];
    if (!p->transform)
        return CUDNN_STATUS_SUCCESS;
    const fd_fused_tensor_t *x = &p->x;
    const fz_walk_t wk = fz_walk_make(x, x, NULL, NULL, NULL);
    int lvl[4];
    fz_order(x, lvl);
    int64_t ts[4], s = 1;
    for (int l = 0; l < 4; l++) {
        ts[lvl[l]] = s;
        s *= wk.ext[l];
    }
    cp->xs[0] = ts[0], cp->xs[1] = ts[1], cp->xs[2] = 0, cp->xs[3] = ts[2], cp->xs[4] = ts[3];
    void *t = a->ptr[CUDNN_PTR_WORKSPACE];
    const unsigned blocks = fd_cuda_blocks(wk.total, FZ_BLOCK);
    cudaStream_t stream = a->handle->stream;
    fz_transform<<<blocks, FZ_BLOCK, 0, stream>>>(
        wk, x->dt, a->ptr[CUDNN_PTR_XDATA], p->eq, fz_ptr_if(p, a, CUDNN_PTR_BN_EQSCALE),
        fz_ptr_if(p, a, CUDNN_PTR_BN_EQBIAS), p->act, t);
    FD_CUDA_LAUNCHED("fused transform (%u blocks, stream %p)", blocks, (void *)stream);
    *xin = t;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- per-channel two-pass reductions --------------------------------------------------------- */

enum { FZ_RED_STATS, FZ_RED_DBN };

typedef struct {
    int kind;
    fz_red_geom_t g;
    fd_fused_tensor_t a, b; /* STATS: a = y. DBN: a = x, b = dy */
    fd_fused_vec_t bnp;     /* DBN: saved mean and inverse std */
    int64_t bm_words;
} fz_red_t;

/* Pass 1: block (channel group, chunk) sums its rows' two terms per channel in double; thread
 * j takes rows j, j + step, ... in order, then a fixed tree (over all 256 threads, or over the
 * 8 row lanes of each channel in the 32 x 8 form). */
static __global__ void fz_reduce_part(const fz_red_t rd, const void *av, const void *bv,
                                      const uint32_t *bm, const void *mean, const void *inv,
                                      double *part)
{
    __shared__ double s0[FZ_BLOCK], s1[FZ_BLOCK];
    const fz_red_geom_t &g = rd.g;
    const int t = threadIdx.x;
    const int lane = g.minor ? (t & 31) : 0, rl = g.minor ? (t >> 5) : t;
    const int rstep = g.minor ? FZ_BLOCK / 32 : FZ_BLOCK;
    const int64_t groups = g.minor ? (g.c + 31) / 32 : g.c;
    for (int64_t blk = blockIdx.x; blk < groups * g.chunks; blk += gridDim.x) {
        const int64_t grp = blk % groups, j = blk / groups;
        const int64_t c = g.minor ? grp * 32 + lane : grp;
        const int64_t r0 = j * g.chunk_rows;
        const int64_t r1 = r0 + g.chunk_rows < g.rows ? r0 + g.chunk_rows : g.rows;
        double acc0 = 0.0, acc1 = 0.0;
        if (c < g.c) {
            double mu = 0.0, is = 0.0;
            if (rd.kind == FZ_RED_DBN)
                mu = fz_vld(rd.bnp, mean, c), is = fz_vld(rd.bnp, inv, c);
            for (int64_t r = r0 + rl; r < r1; r += rstep) {
                const int64_t w = r % g.w, q = r / g.w, h = q % g.h, n = q / g.h;
                if (rd.kind == FZ_RED_STATS) {
                    const double v = fdm_ld(rd.a.dt, av, fz_off(rd.a, n, c, h, w));
                    acc0 += v;
                    acc1 += __dmul_rn(v, v);
                } else {
                    const double gv = fz_bit(bm, rd.bm_words, r, c)
                                          ? fdm_ld(rd.b.dt, bv, fz_off(rd.b, n, c, h, w))
                                          : 0.0;
                    const double xv = fdm_ld(rd.a.dt, av, fz_off(rd.a, n, c, h, w));
                    const double xhat = __dmul_rn(__dsub_rn(xv, mu), is);
                    acc0 += gv;
                    acc1 += __dmul_rn(gv, xhat);
                }
            }
        }
        s0[t] = acc0;
        s1[t] = acc1;
        __syncthreads();
        for (int s = FZ_BLOCK / 2; s >= (g.minor ? 32 : 1); s >>= 1) {
            if (t < s) {
                s0[t] += s0[t + s];
                s1[t] += s1[t + s];
            }
            __syncthreads();
        }
        if ((g.minor ? t < 32 : t == 0) && c < g.c) {
            part[(j * g.c + c) * 2] = s0[t];
            part[(j * g.c + c) * 2 + 1] = s1[t];
        }
        __syncthreads(); /* s0 / s1 are reused by the next block index */
    }
}

/* Pass 2: one thread per channel adds the chunks in order. STATS stores ySum / ySqSum; DBN
 * keeps both sums in `sums` for dx and stores dBias / dScale. */
static __global__ void fz_reduce_finish(const fz_red_t rd, const double *part,
                                        const fd_fused_vec_t out, void *o0, void *o1,
                                        double *sums)
{
    FDM_FOR(c, rd.g.c)
    {
        double a0 = 0.0, a1 = 0.0;
        for (int64_t j = 0; j < rd.g.chunks; j++) {
            a0 += part[(j * rd.g.c + c) * 2];
            a1 += part[(j * rd.g.c + c) * 2 + 1];
        }
        if (sums) {
            sums[2 * c] = a0;
            sums[2 * c + 1] = a1;
        }
        if (o0)
            fz_vst(out, o0, c, a0);
        if (o1)
            fz_vst(out, o1, c, a1);
    }
}

/* Both passes; part must hold fz_red_bytes(&rd->g) - 16 bytes, 16-byte aligned. */
static cudnnStatus_t fz_reduce_run(const fz_red_t *rd, cudaStream_t stream, const void *a,
                                   const void *b, const uint32_t *bm, const void *mean,
                                   const void *inv, double *part, const fd_fused_vec_t *out,
                                   void *o0, void *o1, double *sums)
{
    const int64_t groups = rd->g.minor ? (rd->g.c + 31) / 32 : rd->g.c;
    const unsigned blocks = fd_cuda_blocks(groups * rd->g.chunks, 1);
    fz_reduce_part<<<blocks, FZ_BLOCK, 0, stream>>>(*rd, a, b, bm, mean, inv, part);
    FD_CUDA_LAUNCHED("fused per-channel partial sums (%u blocks, stream %p)", blocks,
                     (void *)stream);
    const unsigned fblocks = fd_cuda_blocks(rd->g.c, FZ_BLOCK);
    fz_reduce_finish<<<fblocks, FZ_BLOCK, 0, stream>>>(*rd, part, *out, o0, o1, sums);
    FD_CUDA_LAUNCHED("fused per-channel sums (%u blocks, stream %p)", fblocks, (void *)stream);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- op 0: conv(t, w) and the statistics of y ------------------------------------------------ */

static int fz_stats_used(const fd_fused_problem_t *p)
{
    return fd_fused_uses(p, CUDNN_PTR_YSUM) || fd_fused_uses(p, CUDNN_PTR_YSQSUM);
}

extern "C" int fd_fused_conv_bnstats_cuda_applicable(const void *problem, char *why,
                                                     size_t why_size)
{
    const fd_fused_problem_t *p = (const fd_fused_problem_t *)problem;
    return fd_conv_fwd_direct_applicable(&p->conv, why, why_size);
}

extern "C" size_t fd_fused_conv_bnstats_cuda_workspace(const void *problem)
{
    const fd_fused_problem_t *p = (const fd_fused_problem_t *)problem;
    size_t bytes = fz_t_bytes(p);
    if (fz_stats_used(p)) {
        const fz_red_geom_t g = fz_red_geom(&p->y);
        bytes += fz_red_bytes(&g);
    }
    return bytes;
}

extern "C" cudnnStatus_t fd_fused_conv_bnstats_cuda_run(const void *problem, const void *args)
{
    const fd_fused_problem_t *p = (const fd_fused_problem_t *)problem;
    const fd_fused_args_t *a = (const fd_fused_args_t *)args;
    fd_conv_problem_t cp = p->conv;
    const void *xin;
    FD_TRY(fz_transform_run(p, a, &cp, &xin));
    fd_conv_args_t ca;
    memset(&ca, 0, sizeof ca);
    ca.handle = a->handle;
    ca.x = xin;
    ca.w = a->ptr[CUDNN_PTR_WDATA];
    ca.out = a->ptr[CUDNN_PTR_YDATA];
    ca.alpha = 1.0;
    FD_TRY(fd_conv_fwd_direct_run(&cp, &ca));
    if (!fz_stats_used(p))
        return CUDNN_STATUS_SUCCESS;
    /* statistics of y as stored: the values a following batch norm reads */
    fz_red_t rd;
    memset(&rd, 0, sizeof rd);
    rd.kind = FZ_RED_STATS;
    rd.g = fz_red_geom(&p->y);
    rd.a = p->y;
    double *part = fz_align(a->ptr[CUDNN_PTR_WORKSPACE], fz_t_bytes(p));
    return fz_reduce_run(&rd, a->handle->stream, a->ptr[CUDNN_PTR_YDATA], NULL, NULL, NULL, NULL,
                         part, &p->stats, fz_ptr_if(p, a, CUDNN_PTR_YSUM),
                         fz_ptr_if(p, a, CUDNN_PTR_YSQSUM), NULL);
}

/* ---- op 1: conv_bwd_filter(t, dy) ------------------------------------------------------------ */

extern "C" int fd_fused_wgrad_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_fused_problem_t *p = (const fd_fused_problem_t *)problem;
    return fd_conv_bwd_filter_direct_applicable(&p->conv, why, why_size);
}

extern "C" size_t fd_fused_wgrad_cuda_workspace(const void *problem)
{
    return fz_t_bytes((const fd_fused_problem_t *)problem);
}

extern "C" cudnnStatus_t fd_fused_wgrad_cuda_run(const void *problem, const void *args)
{
    const fd_fused_problem_t *p = (const fd_fused_problem_t *)problem;
    const fd_fused_args_t *a = (const fd_fused_args_t *)args;
    fd_conv_problem_t cp = p->conv;
    const void *xin;
    FD_TRY(fz_transform_run(p, a, &cp, &xin));
    fd_conv_args_t ca;
    memset(&ca, 0, sizeof ca);
    ca.handle = a->handle;
    ca.x = xin;
    ca.y = a->ptr[CUDNN_PTR_DYDATA];
    ca.out = a->ptr[CUDNN_PTR_DWDATA];
    ca.alpha = 1.0;
    return fd_conv_bwd_filter_direct_run(&cp, &ca);
}

/* ---- ops 2 and 3: batch-norm finalisation, one thread per channel ---------------------------- */

typedef struct {
    const void *sum, *sq, *scale, *bias, *rmean_in, *rvar_in;
    void *eqs, *eqb, *smean, *sinv, *rmean, *rvar;
} fz_fin_ptrs_t;

static __global__ void fz_finalize_train(const fd_fused_vec_t st, const fd_fused_vec_t bnp,
                                         const fd_fused_vec_t eq, const fz_fin_ptrs_t q, double m,
                                         double f, double keep, double eps)
{
    FDM_FOR(c, st.c)
    {
        const double mean = __ddiv_rn(fz_vld(st, q.sum, c), m);
        double var = __dsub_rn(__ddiv_rn(fz_vld(st, q.sq, c), m), __dmul_rn(mean, mean));
        if (var < 0.0) /* E[y^2] - E[y]^2 may round below 0 */
            var = 0.0;
        const double inv = __ddiv_rn(1.0, __dsqrt_rn(__dadd_rn(var, eps)));
        if (q.eqs || q.eqb) {
            const double es = __dmul_rn(fz_vld(bnp, q.scale, c), inv);
            if (q.eqs)
                fz_vst(eq, q.eqs, c, es);
            if (q.eqb)
                fz_vst(eq, q.eqb, c, __dsub_rn(fz_vld(bnp, q.bias, c), __dmul_rn(mean, es)));
        }
        if (q.smean)
            fz_vst(bnp, q.smean, c, mean);
        if (q.sinv)
            fz_vst(bnp, q.sinv, c, inv);
        /* f == 1 replaces the running values without reading them (they may be NaN) */
        if (q.rmean)
            fz_vst(bnp, q.rmean, c,
                   __dadd_rn(__dmul_rn(f, mean),
                             keep != 0.0 ? __dmul_rn(keep, fz_vld(bnp, q.rmean_in, c)) : 0.0));
        if (q.rvar) {
            const double unbiased = __ddiv_rn(__dmul_rn(var, m), __dsub_rn(m, 1.0));
            fz_vst(bnp, q.rvar, c,
                   __dadd_rn(__dmul_rn(f, unbiased),
                             keep != 0.0 ? __dmul_rn(keep, fz_vld(bnp, q.rvar_in, c)) : 0.0));
        }
    }
}

extern "C" int fd_fused_bn_finalize_train_cuda_applicable(const void *problem, char *why,
                                                          size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1; /* src/api/fusedops.c admits FLOAT statistics, FLOAT or HALF eq: all computed */
}

extern "C" size_t fd_fused_bn_finalize_train_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

extern "C" cudnnStatus_t fd_fused_bn_finalize_train_cuda_run(const void *problem, const void *args)
{
    const fd_fused_problem_t *p = (const fd_fused_problem_t *)problem;
    const fd_fused_args_t *a = (const fd_fused_args_t *)args;
    fz_fin_ptrs_t q;
    memset(&q, 0, sizeof q);
    q.sum = a->ptr[CUDNN_PTR_YSUM], q.sq = a->ptr[CUDNN_PTR_YSQSUM];
    q.scale = fz_ptr_if(p, a, CUDNN_PTR_BN_SCALE), q.bias = fz_ptr_if(p, a, CUDNN_PTR_BN_BIAS);
    q.eqs = fz_ptr_if(p, a, CUDNN_PTR_BN_EQSCALE), q.eqb = fz_ptr_if(p, a, CUDNN_PTR_BN_EQBIAS);
    q.smean = fz_ptr_if(p, a, CUDNN_PTR_BN_SAVED_MEAN);
    q.sinv = fz_ptr_if(p, a, CUDNN_PTR_BN_SAVED_INVSTD);
    q.rmean = fz_ptr_if(p, a, CUDNN_PTR_BN_RUNNING_MEAN), q.rmean_in = q.rmean;
    q.rvar = fz_ptr_if(p, a, CUDNN_PTR_BN_RUNNING_VAR), q.rvar_in = q.rvar;
    const double m = (double)a->acc_count, f = a->exp_avg_factor, keep = 1.0 - f;
    const unsigned blocks = fd_cuda_blocks(p->stats.c, FZ_BLOCK);
    cudaStream_t stream = a->handle->stream;
    fz_finalize_train<<<blocks, FZ_BLOCK, 0, stream>>>(p->stats, p->bnp, p->eq, q, m, f, keep,
                                                       a->epsilon);
    FD_CUDA_LAUNCHED("fused bn finalize training (%u blocks, stream %p)", blocks, (void *)stream);
    return CUDNN_STATUS_SUCCESS;
}

static __global__ void fz_finalize_infer(const fd_fused_vec_t bnp, const fd_fused_vec_t eq,
                                         const fz_fin_ptrs_t q, double eps)
{
    FDM_FOR(c, bnp.c)
    {
        const double inv = __ddiv_rn(1.0, __dsqrt_rn(__dadd_rn(fz_vld(bnp, q.rvar_in, c), eps)));
        const double es = __dmul_rn(fz_vld(bnp, q.scale, c), inv);
        fz_vst(eq, q.eqs, c, es);
        fz_vst(eq, q.eqb, c,
               __dsub_rn(fz_vld(bnp, q.bias, c), __dmul_rn(fz_vld(bnp, q.rmean_in, c), es)));
    }
}

extern "C" int fd_fused_bn_finalize_infer_cuda_applicable(const void *problem, char *why,
                                                          size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1; /* FLOAT parameters, FLOAT or HALF eq: all computed */
}

extern "C" size_t fd_fused_bn_finalize_infer_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

extern "C" cudnnStatus_t fd_fused_bn_finalize_infer_cuda_run(const void *problem, const void *args)
{
    const fd_fused_problem_t *p = (const fd_fused_problem_t *)problem;
    const fd_fused_args_t *a = (const fd_fused_args_t *)args;
    fz_fin_ptrs_t q;
    memset(&q, 0, sizeof q);
    q.scale = a->ptr[CUDNN_PTR_BN_SCALE], q.bias = a->ptr[CUDNN_PTR_BN_BIAS];
    q.rmean_in = a->ptr[CUDNN_PTR_BN_RUNNING_MEAN], q.rvar_in = a->ptr[CUDNN_PTR_BN_RUNNING_VAR];
    q.eqs = a->ptr[CUDNN_PTR_BN_EQSCALE], q.eqb = a->ptr[CUDNN_PTR_BN_EQBIAS];
    const unsigned blocks = fd_cuda_blocks(p->bnp.c, FZ_BLOCK);
    cudaStream_t stream = a->handle->stream;
    fz_finalize_infer<<<blocks, FZ_BLOCK, 0, stream>>>(p->bnp, p->eq, q, a->epsilon);
    FD_CUDA_LAUNCHED("fused bn finalize inference (%u blocks, stream %p)", blocks, (void *)stream);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- op 4: y = act([eqScale] conv(x, w) [+ eqBias] [+ z]) ------------------------------------ */

/* Filter tap index in memory for tap t along dim d (CUDNN_CONVOLUTION flips the filter). */
static __device__ __forceinline__ int64_t fz_tap(const fd_conv_problem_t &p, int d, int64_t t)
{
    return p.cross_correlation ? t : p.flt[d] - 1 - t;
}

/* conv_direct.cu's forward gather at (n, k, o0, o1, o2), float accumulation in its order. */
static __device__ float fz_conv_point(const fd_conv_problem_t &p, const void *x, const void *w,
                                      int64_t n, int64_t k, int64_t o0, int64_t o1, int64_t o2)
{
    const int64_t cgn = p.c / p.groups, kgn = p.k / p.groups, g = k / kgn;
    float acc = 0.0f;
    for (int64_t cg = 0; cg < cgn; cg++) {
        const int64_t xc = n * p.xs[0] + (g * cgn + cg) * p.xs[1];
        const int64_t wc = k * p.ws[0] + cg * p.ws[1];
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
                    const float xv =
                        (float)fdm_ld(p.xdt, x, xc + i0 * p.xs[2] + i1 * p.xs[3] + i2 * p.xs[4]);
                    const float wv = (float)fdm_ld(
                        p.wdt, w, wc + fz_tap(p, 0, t0) * p.ws[2] + fz_tap(p, 1, t1) * p.ws[3] +
                                      fz_tap(p, 2, t2) * p.ws[4]);
                    acc += xv * wv;
                }
            }
        }
    }
    return acc;
}

typedef struct {
    fz_walk_t wk; /* over y in y's memory order: tensor 0 = y, 1 = z */
    fd_conv_problem_t conv;
    fd_fused_vec_t eq;
    cudnnDataType_t ydt, zdt;
    fd_act_params_t act;
} fz_csba_t;

static __global__ void fz_conv_scale_bias_add_act(const fz_csba_t k, const void *x, const void *w,
                                                  const void *sc, const void *bi, const void *z,
                                                  void *y)
{
    FDM_FOR(e, k.wk.total)
    {
        int64_t off[FZ_OPS], crd[4];
        fz_at(k.wk, e, off, crd);
        double v = (double)fz_conv_point(k.conv, x, w, crd[0], crd[1], 0, crd[2], crd[3]);
        if (sc)
            v = __dmul_rn(v, fz_vld(k.eq, sc, crd[1]));
        if (bi)
            v = __dadd_rn(v, fz_vld(k.eq, bi, crd[1]));
        if (z) /* read before y is written: z may be y itself */
            v = __dadd_rn(v, fdm_ld(k.zdt, z, off[1]));
        fdm_st(k.ydt, y, off[0], fdm_act_fwd(k.act, v));
    }
}

extern "C" int fd_fused_conv_scale_bias_add_act_cuda_applicable(const void *problem, char *why,
                                                                size_t why_size)
{
    const fd_fused_problem_t *p = (const fd_fused_problem_t *)problem;
    const fd_conv_problem_t *c = &p->conv;
    if (!fdm_host_dtype_ok(c->xdt) || c->wdt != c->xdt || c->ydt != c->xdt) {
        snprintf(why, why_size, "x/w/y are %s/%s/%s; the fused kernel takes one of FLOAT, DOUBLE, "
                 "HALF, BFLOAT16 for all three", fd_dtype_name(c->xdt), fd_dtype_name(c->wdt),
                 fd_dtype_name(c->ydt));
        return 0;
    }
    if (c->nsp != 2 || c->in[0] != 1 || c->out[0] != 1 || c->flt[0] != 1) {
        snprintf(why, why_size, "%d spatial dims; the fused kernel walks 4-d y", c->nsp);
        return 0;
    }
    return 1;
}

extern "C" size_t fd_fused_conv_scale_bias_add_act_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

extern "C" cudnnStatus_t fd_fused_conv_scale_bias_add_act_cuda_run(const void *problem,
                                                                   const void *args)
{
    const fd_fused_problem_t *p = (const fd_fused_problem_t *)problem;
    const fd_fused_args_t *a = (const fd_fused_args_t *)args;
    const void *z = fz_ptr_if(p, a, CUDNN_PTR_ZDATA);
    fz_csba_t k;
    memset(&k, 0, sizeof k);
    k.wk = fz_walk_make(&p->y, &p->y, z ? &p->z : NULL, NULL, NULL);
    k.conv = p->conv;
    k.eq = p->eq;
    k.ydt = p->y.dt;
    k.zdt = p->z.dt;
    k.act = p->act;
    const unsigned blocks = fd_cuda_blocks(k.wk.total, FZ_BLOCK);
    cudaStream_t stream = a->handle->stream;
    fz_conv_scale_bias_add_act<<<blocks, FZ_BLOCK, 0, stream>>>(
        k, a->ptr[CUDNN_PTR_XDATA], a->ptr[CUDNN_PTR_WDATA], fz_ptr_if(p, a, CUDNN_PTR_BN_EQSCALE),
        fz_ptr_if(p, a, CUDNN_PTR_BN_EQBIAS), z, a->ptr[CUDNN_PTR_YDATA]);
    FD_CUDA_LAUNCHED("fused conv scale bias add act (%u blocks, stream %p)", blocks,
                     (void *)stream);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- op 5: y = act(u), bitmask of act'(u) ---------------------------------------------- */

typedef struct {
    fd_fused_tensor_t x, y, z;
    fd_fused_vec_t eq, zeq;
    fd_act_params_t act;
    int minor;             /* x's channels contiguous: lanes along channels, else along rows */
    int64_t nhw, bm_words, bm_rows;
} fz_sba_t;

typedef struct {
    const void *x, *z, *sc, *bi, *zsc, *zbi;
    void *y;
    uint32_t *bm;
} fz_sba_ptrs_t;

/* One block per tile of 32 bitmask rows x one word (32 channels): 8 warps compute its 1024
 * elements (lanes along channels when they are contiguous, along rows otherwise), each element
 * read and written by one thread (so y may be x or z), bits through shared memory, then one
 * thread per row writes the whole word. */
static __global__ void fz_scale_bias_add_act_bitmask(const fz_sba_t k, const fz_sba_ptrs_t q)
{
    __shared__ unsigned char flag[32][33];
    const int t = threadIdx.x, tx = t & 31, ty = t >> 5;
    const int64_t tiles = k.bm_rows / 32 * k.bm_words;
    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int64_t j = tile % k.bm_words, r0 = tile / k.bm_words * 32;
        for (int i = 0; i < 32 / (FZ_BLOCK / 32); i++) {
            const int rr = k.minor ? ty + (FZ_BLOCK / 32) * i : tx;
            const int cc = k.minor ? tx : ty + (FZ_BLOCK / 32) * i;
            const int64_t r = r0 + rr, c = 32 * j + cc;
            int bit = 0;
            if (r < k.nhw && c < k.x.c) {
                const int64_t w = r % k.x.w, qq = r / k.x.w, h = qq % k.x.h, n = qq / k.x.h;
                double u = fdm_ld(k.x.dt, q.x, fz_off(k.x, n, c, h, w));
                if (q.sc)
                    u = __dmul_rn(u, fz_vld(k.eq, q.sc, c));
                if (q.bi)
                    u = __dadd_rn(u, fz_vld(k.eq, q.bi, c));
                if (q.z) {
                    double zv = fdm_ld(k.z.dt, q.z, fz_off(k.z, n, c, h, w));
                    if (q.zsc)
                        zv = __dmul_rn(zv, fz_vld(k.zeq, q.zsc, c));
                    if (q.zbi)
                        zv = __dadd_rn(zv, fz_vld(k.zeq, q.zbi, c));
                    u = __dadd_rn(u, zv);
                }
                const double v = fdm_act_fwd(k.act, u);
                fdm_st(k.y.dt, q.y, fz_off(k.y, n, c, h, w), v);
                bit = fdm_act_bwd(k.act, v, 1.0, u) == 1.0;
            }
            flag[rr][cc] = (unsigned char)bit;
        }
        __syncthreads();
        if (t < 32) {
            uint32_t word = 0;
            for (int b = 0; b < 32; b++)
                word |= (uint32_t)flag[t][b] << b;
            q.bm[(r0 + t) * k.bm_words + j] = word;
        }
        __syncthreads(); /* flag is reused by the next tile */
    }
}

extern "C" int fd_fused_scale_bias_add_act_bitmask_cuda_applicable(const void *problem, char *why,
                                                                   size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1; /* 4-d FLOAT / HALF data, any strides, RELU / CLIPPED_RELU: all computed */
}

extern "C" size_t fd_fused_scale_bias_add_act_bitmask_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

extern "C" cudnnStatus_t fd_fused_scale_bias_add_act_bitmask_cuda_run(const void *problem,
                                                                      const void *args)
{
    const fd_fused_problem_t *p = (const fd_fused_problem_t *)problem;
    const fd_fused_args_t *a = (const fd_fused_args_t *)args;
    fz_sba_t k;
    memset(&k, 0, sizeof k);
    k.x = p->x, k.y = p->y, k.z = p->z, k.eq = p->eq, k.zeq = p->zeq, k.act = p->act;
    k.minor = p->x.c > 1 && p->x.s[1] == 1;
    k.nhw = p->x.n * p->x.h * p->x.w;
    k.bm_words = p->bm_words, k.bm_rows = p->bm_rows;
    fz_sba_ptrs_t q;
    q.x = a->ptr[CUDNN_PTR_XDATA];
    q.z = fz_ptr_if(p, a, CUDNN_PTR_ZDATA);
    q.sc = fz_ptr_if(p, a, CUDNN_PTR_BN_EQSCALE), q.bi = fz_ptr_if(p, a, CUDNN_PTR_BN_EQBIAS);
    q.zsc = fz_ptr_if(p, a, CUDNN_PTR_BN_Z_EQSCALE);
    q.zbi = fz_ptr_if(p, a, CUDNN_PTR_BN_Z_EQBIAS);
    q.y = a->ptr[CUDNN_PTR_YDATA];
    q.bm = (uint32_t *)a->ptr[CUDNN_PTR_ACTIVATION_BITMASK];
    const unsigned blocks = fd_cuda_blocks(k.bm_rows / 32 * k.bm_words, 1);
    cudaStream_t stream = a->handle->stream;
    fz_scale_bias_add_act_bitmask<<<blocks, FZ_BLOCK, 0, stream>>>(k, q);
    FD_CUDA_LAUNCHED("fused scale bias add act bitmask (%u blocks, stream %p)", blocks,
                     (void *)stream);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- op 6: dReLU (bitmask), fork dz, batch-norm backward ------------------------------------- */

typedef struct {
    fz_walk_t wk; /* over dx in dx's memory order: tensor 0 = dx, 1 = x, 2 = dy, 3 = dz */
    cudnnDataType_t dxdt, xdt, dydt, dzdt;
    fd_fused_vec_t bnp;
    int64_t h, w, bm_words;
    double m;
} fz_dbn_t;

typedef struct {
    const void *x, *dy, *scale, *mean, *inv;
    const uint32_t *bm;
    const double *sums; /* per channel: sum g, sum g xhat */
    void *dx, *dz;
} fz_dbn_ptrs_t;

static __global__ void fz_dact_dbn_dx(const fz_dbn_t k, const fz_dbn_ptrs_t q)
{
    FDM_FOR(e, k.wk.total)
    {
        int64_t off[FZ_OPS], crd[4];
        fz_at(k.wk, e, off, crd);
        const int64_t c = crd[1], r = (crd[0] * k.h + crd[2]) * k.w + crd[3];
        const double g = fz_bit(q.bm, k.bm_words, r, c) ? fdm_ld(k.dydt, q.dy, off[2]) : 0.0;
        if (q.dz)
            fdm_st(k.dzdt, q.dz, off[3], g);
        const double scale = fz_vld(k.bnp, q.scale, c), mean = fz_vld(k.bnp, q.mean, c);
        const double inv = fz_vld(k.bnp, q.inv, c);
        const double sg = q.sums[2 * c], sgx = q.sums[2 * c + 1];
        const double xhat = __dmul_rn(__dsub_rn(fdm_ld(k.xdt, q.x, off[1]), mean), inv);
        /* scale inv (g - sum_g / m - xhat sum_gx / m), in the ref's order */
        const double d = __dsub_rn(__dsub_rn(g, __ddiv_rn(sg, k.m)),
                                   __ddiv_rn(__dmul_rn(xhat, sgx), k.m));
        fdm_st(k.dxdt, q.dx, off[0], __dmul_rn(__dmul_rn(scale, inv), d));
    }
}

static fz_red_t fz_dbn_red(const fd_fused_problem_t *p)
{
    fz_red_t rd;
    memset(&rd, 0, sizeof rd);
    rd.kind = FZ_RED_DBN;
    rd.g = fz_red_geom(&p->x);
    rd.a = p->x;
    rd.b = p->dy;
    rd.bnp = p->bnp;
    rd.bm_words = p->bm_words;
    return rd;
}

extern "C" int fd_fused_dact_dbn_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1; /* 4-d FLOAT / HALF data, any strides, FLOAT parameters: all computed */
}

/* The partials, then the final sums (2 doubles per channel). */
extern "C" size_t fd_fused_dact_dbn_cuda_workspace(const void *problem)
{
    const fd_fused_problem_t *p = (const fd_fused_problem_t *)problem;
    const fz_red_t rd = fz_dbn_red(p);
    return fz_red_bytes(&rd.g) + (size_t)(2 * p->x.c) * sizeof(double);
}

extern "C" cudnnStatus_t fd_fused_dact_dbn_cuda_run(const void *problem, const void *args)
{
    const fd_fused_problem_t *p = (const fd_fused_problem_t *)problem;
    const fd_fused_args_t *a = (const fd_fused_args_t *)args;
    const fz_red_t rd = fz_dbn_red(p);
    double *part = fz_align(a->ptr[CUDNN_PTR_WORKSPACE], 0);
    double *sums = part + rd.g.chunks * rd.g.c * 2;
    const uint32_t *bm = (const uint32_t *)a->ptr[CUDNN_PTR_ACTIVATION_BITMASK];
    cudaStream_t stream = a->handle->stream;
    FD_TRY(fz_reduce_run(&rd, stream, a->ptr[CUDNN_PTR_XDATA], a->ptr[CUDNN_PTR_DYDATA], bm,
                         a->ptr[CUDNN_PTR_BN_SAVED_MEAN], a->ptr[CUDNN_PTR_BN_SAVED_INVSTD], part,
                         &p->bnp, fz_ptr_if(p, a, CUDNN_PTR_BN_DBIAS),
                         fz_ptr_if(p, a, CUDNN_PTR_BN_DSCALE), sums));
    void *dz = fz_ptr_if(p, a, CUDNN_PTR_DZDATA);
    fz_dbn_t k;
    memset(&k, 0, sizeof k);
    k.wk = fz_walk_make(&p->dx, &p->dx, &p->x, &p->dy, dz ? &p->dz : NULL);
    k.dxdt = p->dx.dt, k.xdt = p->x.dt, k.dydt = p->dy.dt, k.dzdt = p->dz.dt;
    k.bnp = p->bnp;
    k.h = p->x.h, k.w = p->x.w, k.bm_words = p->bm_words;
    k.m = (double)(p->x.n * p->x.h * p->x.w);
    fz_dbn_ptrs_t q;
    q.x = a->ptr[CUDNN_PTR_XDATA], q.dy = a->ptr[CUDNN_PTR_DYDATA];
    q.scale = a->ptr[CUDNN_PTR_BN_SCALE], q.mean = a->ptr[CUDNN_PTR_BN_SAVED_MEAN];
    q.inv = a->ptr[CUDNN_PTR_BN_SAVED_INVSTD];
    q.bm = bm, q.sums = sums, q.dx = a->ptr[CUDNN_PTR_DXDATA], q.dz = dz;
    const unsigned blocks = fd_cuda_blocks(k.wk.total, FZ_BLOCK);
    fz_dact_dbn_dx<<<blocks, FZ_BLOCK, 0, stream>>>(k, q);
    FD_CUDA_LAUNCHED("fused dact dbn dx (%u blocks, stream %p)", blocks, (void *)stream);
    return CUDNN_STATUS_SUCCESS;
}
