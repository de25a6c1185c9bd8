/* SPDX-License-Identifier: MIT */
/*
 * conv_tc_dgrad.cu - backward data of strided convolutions on the tensor cores (and on the FFMA
 * row, see below), split into stride-1 problems by residue class (rows fd_conv_bwd_data_tc_strided
 * and fd_conv_bwd_data_simt_strided, BWD_DATA ALGO_1: the only bwd data enum whose contract
 * allows the workspace the sub-filters live in).
 *
 * The tensor-core row (conv_tc.cu) gathers dy at (i + pad - t) / s for every tap t and zero-fills
 * the taps that do not divide: at stride 2 three quarters of its A tile is zeros. Here the dx
 * positions i = r + s * i' of one residue r (per spatial dim, 0 <= r < s) are computed alone:
 * only the taps t = t0 + s * j with t0 = (r + pad) mod s reach them, through dy index
 * o = i' + (r + pad - t0) / s - j. That is a stride-1 backward data (cross-correlation) with
 * taps j < R' = ceil((R - t0) / s), pad' = (r + pad - t0) / s, dx' of ceil((H - r) / s) positions
 * starting at r with strides s times dx's, dy unchanged; fd_conv_bwd_data_tc_igemm_run runs it
 * (its gather bounds-checks 0 <= o < P whatever in/out are, and writes dx with any strides).
 * CUDNN_CONVOLUTION's flip is applied while gathering the sub-filters (logical tap t reads
 * memory tap R - 1 - t), so every sub-problem is a cross-correlation. GEMM per residue, as in
 * conv_tc.cu: M = N * D' * H' * W', N = C, K = R'0 * R'1 * R'2 * K.
 *
 * Workspace: the sub-filters of every residue with taps, packed KRSC (gathered from any filter
 * layout by one kernel per call), each 256-byte aligned, then the inner row's own (none today).
 * Residues with R' = 0 in some dim get no term: dx = alpha * 0 + beta * dx by a blend kernel in
 * double with one rounding, as ref's blend_store (beta == 0 never reads dx). Every dx element
 * belongs to exactly one residue, so alpha / beta are applied once. Sub-problem launches follow
 * each other on the handle's stream; no allocation, no sync; deterministic.
 * Declined: groups != 1, dilation != 1, stride 1 everywhere (conv_tc.cu itself), more than
 * DG_MAX_RES residues, and whatever the tensor-core row declines on a sub-problem (data type,
 * math, C / K not multiples of the chunk, dy not channel-contiguous).
 *
 * On compute capability 9.0 a sub-problem that the sm_90a wgmma backward data row takes
 * (conv_fwd_implicit_gemm_f16_128xN__sm90.cu: HALF / BFLOAT16 with K % 64 == 0, FLOAT as TF32
 * with K % 32 == 0, pad' <= R' - 1: ResNet-50's stride-2 3x3 and 1x1 layers qualify) runs there
 * instead of on the mma.sync row, residue by residue (others keep the mma.sync row; the choice
 * is a function of the sub-problem and the device, so repeated calls give the same bits). That
 * row transposes the sub-filter into its own workspace, so the inner part of the workspace is
 * the largest sub-filter of any residue whatever the GPU (a size fixed by the problem alone; at
 * most the filter's size). FLOAT sub-problems on the wgmma row read their inputs as TF32 by
 * truncation, not rounding (see that file). FREEDNN_WGMMA=0 or FREEDNN_WGMMA_DGRAD=0 keeps every
 * residue on the mma.sync row. Grouped (2x2 strides at most: up to 4 residues): when every residue
 * with taps goes to the wgmma row, the gather writes the sub-filters transposed (packed CRSK, the
 * wgmma row's own layout) and one GEMM launch runs every residue, the tap-less ones blending in
 * its epilogue (fd_conv_bwd_data_wgmma_grouped): 2 launches per call instead of 1 + 2 per residue
 * with taps + 1 per tap-less residue, each residue the same GEMM as alone (the same bits).
 * FREEDNN_WGMMA_DGRAD_GROUPED=0 (read once) keeps the per-residue launches. With the filter's
 * channels contiguous the gather goes too (1 launch per call): each residue's sub-filter is a
 * strided view of the filter itself (view_filter), which the wgmma row reads as its stride-1
 * path reads the whole filter (HALF / BFLOAT16: MN-major by TMA; FLOAT, on problems of at most
 * 2^30 flop: loaded into the K-major tile by its producer warpgroup); the same tiles, the same
 * bits. FREEDNN_WGMMA_DGRAD_NOGATHER=0 (and, for FLOAT, FREEDNN_WGMMA_DGRAD_TF32_1L=0; read
 * once, in that file) keeps the gather, as do larger FLOAT problems.
 *
 * The same split runs FLOAT on the FFMA row (conv_simt.cu) as row fd_conv_bwd_data_simt_strided:
 * FMA math, or FLOAT problems the tensor-core rows decline. That row gathers dy over every tap
 * with a divisibility test, so at stride 2 three of four A elements are zeros and it reaches
 * 6 TFLOP/s on ResNet-50's strided layers; per residue it is a dense stride-1 GEMM. The FFMA
 * row needs no workspace of its own (the sub-filters only) and accumulates in float as it does
 * unsplit, so integer-exact problems keep ref's bits.
 */
#include <stdio.h>
#include <string.h>

#include "elem.cuh"

extern "C" {
int fd_conv_bwd_data_tc_igemm_applicable(const fd_conv_problem_t *p, char *why, size_t why_size);
size_t fd_conv_bwd_data_tc_igemm_workspace(const fd_conv_problem_t *p);
cudnnStatus_t fd_conv_bwd_data_tc_igemm_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);
int fd_conv_bwd_data_implicit_gemm_f16_128xN__sm90_applicable(const fd_conv_problem_t *p, char *why,
                                                              size_t why_size);
cudnnStatus_t fd_conv_bwd_data_implicit_gemm_f16_128xN__sm90_run(const fd_conv_problem_t *p,
                                                                const fd_conv_args_t *a);
int fd_conv_bwd_data_implicit_gemm_tf32_128xN__sm90_applicable(const fd_conv_problem_t *p, char *why,
                                                               size_t why_size);
cudnnStatus_t fd_conv_bwd_data_implicit_gemm_tf32_128xN__sm90_run(const fd_conv_problem_t *p,
                                                                 const fd_conv_args_t *a);
int fd_conv_bwd_data_simt_igemm_applicable(const fd_conv_problem_t *p, char *why, size_t why_size);
cudnnStatus_t fd_conv_bwd_data_simt_igemm_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);
int fd_conv_bwd_data_wgmma_grouped_on(void);
int fd_conv_bwd_data_wgmma_grouped(const fd_conv_problem_t *p, int ncls, int bt, const fd_conv_problem_t *q,
                                   const int *conv, void *const *dx, const void *const *wt, const fd_conv_args_t *a,
                                   cudnnStatus_t (*before)(void *), void *ctx, cudnnStatus_t *st);
int fd_conv_bwd_data_wgmma_grouped_hit(const fd_conv_problem_t *p, const fd_conv_args_t *a, cudnnStatus_t *st);
}

/* The stride-1 engine the residues run on: the tensor-core rows (fd_conv_bwd_data_tc_strided)
 * or the FFMA row (fd_conv_bwd_data_simt_strided: FLOAT under FMA math, and FLOAT problems the
 * tensor-core rows decline). */
typedef enum { DG_TC, DG_SIMT } dg_engine_t;

#define DG_ALIGN 256
/* residues of one call: the gather kernel's tables are sized by it (8 x 8 strides, 4 x 4 x 4) */
#define DG_MAX_RES 64
/* residues of one grouped wgmma launch (2x2 strides; its kernel's class table, WG_GROUP_MAX) */
#define DG_GROUP_MAX 4

typedef enum {
    DG_EMPTY, /* no dx position (H <= r in some dim) */
    DG_BLEND, /* positions but no tap (R' = 0 in some dim): dx = beta * dx */
    DG_CONV,  /* a stride-1 tensor-core problem */
} dg_kind_t;

static size_t align_up(size_t b)
{
    return (b + DG_ALIGN - 1) / DG_ALIGN * DG_ALIGN;
}

static int residue_count(const fd_conv_problem_t *p)
{
    return (int)(p->stride[0] * p->stride[1] * p->stride[2]);
}

/* Residue index res (D slowest, W fastest) as per-dim residues. */
static void residue_of(const fd_conv_problem_t *p, int res, int64_t *r)
{
    r[2] = res % p->stride[2];
    res /= (int)p->stride[2];
    r[1] = res % p->stride[1];
    r[0] = res / p->stride[1];
}

/* Taps of the sub-problem of residue r along dim d: ceil((R - t0) / s), t0 = (r + pad) mod s. */
static int64_t sub_taps(const fd_conv_problem_t *p, int d, int64_t r)
{
    const int64_t s = p->stride[d], t0 = (r + p->pad[d]) % s;
    return p->flt[d] > t0 ? (p->flt[d] - t0 + s - 1) / s : 0;
}

/* q's filter as packed KRSC over q->flt (what the tensor-core row reads). */
static void pack_filter(fd_conv_problem_t *q)
{
    int64_t s = q->c;
    q->ws[1] = 1;
    for (int d = FD_CONV_SPATIAL_MAX - 1; d >= 0; d--) {
        q->ws[2 + d] = s;
        s *= q->flt[d];
    }
    q->ws[0] = s;
    q->wformat = CUDNN_TENSOR_NHWC;
}

/* The stride-1 problem of residue res, and the element offset of its first dx position. */
static dg_kind_t sub_problem(const fd_conv_problem_t *p, int res, fd_conv_problem_t *q, int64_t *dx_off)
{
    int64_t r[3];
    residue_of(p, res, r);
    *q = *p;
    *dx_off = 0;
    int empty = 0, tapless = 0;
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++) {
        const int64_t s = p->stride[d], t0 = (r[d] + p->pad[d]) % s;
        q->in[d] = p->in[d] > r[d] ? (p->in[d] - r[d] + s - 1) / s : 0;
        q->flt[d] = sub_taps(p, d, r[d]);
        q->pad[d] = (r[d] + p->pad[d] - t0) / s;
        q->stride[d] = 1;
        q->xs[2 + d] = p->xs[2 + d] * s;
        *dx_off += r[d] * p->xs[2 + d];
        empty |= q->in[d] == 0;
        tapless |= q->flt[d] == 0;
    }
    q->cross_correlation = 1; /* the flip happened in the gather */
    pack_filter(q);
    return empty ? DG_EMPTY : tapless ? DG_BLEND : DG_CONV;
}

/* Where each residue's sub-filter lies in the workspace (elements; -1: none), and the inner
 * row's part (bytes). */
typedef struct {
    int nres, nconv;
    int64_t woff[DG_MAX_RES];
    size_t inner, total;
} dg_plan_t;

static void plan(const fd_conv_problem_t *p, dg_engine_t eng, dg_plan_t *l)
{
    const size_t esz = fd_dtype_size(p->xdt);
    size_t at = 0, inner_ws = 0;
    l->nres = residue_count(p);
    l->nconv = 0;
    for (int res = 0; res < l->nres && res < DG_MAX_RES; res++) {
        fd_conv_problem_t q;
        int64_t off;
        l->woff[res] = -1;
        if (sub_problem(p, res, &q, &off) != DG_CONV)
            continue;
        l->woff[res] = (int64_t)(at / esz); /* at is a multiple of 256: whole elements */
        const size_t sub = (size_t)(q.k * q.ws[0]) * esz;
        at += align_up(sub);
        /* the mma.sync row's own, or the wgmma row's transposed sub-filter (as big as the
         * sub-filter), whichever is larger: reserved whether or not the GPU runs wgmma */
        size_t w = 0; /* the FFMA row needs none */
        if (eng == DG_TC) {
            w = fd_conv_bwd_data_tc_igemm_workspace(&q);
            w = sub > w ? sub : w;
        }
        inner_ws = w > inner_ws ? w : inner_ws;
        l->nconv++;
    }
    l->inner = at;
    l->total = at + inner_ws;
}

/* ---- the sub-filter gather: one kernel for every residue ------------------------------------ */

typedef struct {
    int64_t k, c;
    int flt[3], stride[3], padm[3]; /* padm: pad mod stride */
    int cross;
    int tnsp;                         /* write each sub-filter transposed: packed CRSK */
    int64_t ws[5];                    /* the caller's filter strides (K, C, taps) */
    int taps[3][DG_MAX_RES];          /* R' of dim d for per-dim residue r */
    int64_t off[DG_MAX_RES];          /* residue's sub-filter in the workspace, elements; -1 */
} dg_gather_t;

/* One thread per filter element, C fastest (coalesced reads from KRSC, writes in runs of C):
 * memory tap f is logical tap t (flipped for CUDNN_CONVOLUTION), t = t0 + s * j serves the
 * residue r with (r + pad) mod s = t0, at sub-tap j. A bit copy of elements of type E. */
template <typename E>
static __global__ void dgrad_gather(const __grid_constant__ dg_gather_t g, const E *__restrict__ w,
                                    E *__restrict__ ws)
{
    const int64_t total = g.k * g.flt[0] * g.flt[1] * g.flt[2] * g.c;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        int64_t i = e;
        const int64_t c = i % g.c;
        i /= g.c;
        int f[3];
        f[2] = (int)(i % g.flt[2]);
        i /= g.flt[2];
        f[1] = (int)(i % g.flt[1]);
        i /= g.flt[1];
        f[0] = (int)(i % g.flt[0]);
        const int64_t k = i / g.flt[0];
        int res = 0;
        int64_t tap = 0, ntaps = 1; /* sub-tap (j0, j1, j2) as one index, of ntaps */
#pragma unroll
        for (int d = 0; d < 3; d++) {
            const int t = g.cross ? f[d] : g.flt[d] - 1 - f[d];
            const int s = g.stride[d], t0 = t % s, r = (t0 - g.padm[d] + s) % s;
            res = res * s + r;
            tap = tap * g.taps[d][r] + t / s;
            ntaps *= g.taps[d][r];
        }
        const int64_t off = g.off[res];
        if (off < 0)
            continue; /* a residue without dx positions */
        ws[off + (g.tnsp ? (c * ntaps + tap) * g.k + k : (k * ntaps + tap) * g.c + c)] =
            w[k * g.ws[0] + c * g.ws[1] + f[0] * g.ws[2] + f[1] * g.ws[3] + f[2] * g.ws[4]];
    }
}

static cudnnStatus_t gather(const fd_conv_problem_t *p, const dg_plan_t *l, const void *w, void *ws, int tnsp,
                            cudaStream_t stream)
{
    dg_gather_t g;
    memset(&g, 0, sizeof g);
    g.k = p->k, g.c = p->c, g.cross = p->cross_correlation, g.tnsp = tnsp;
    for (int d = 0; d < 3; d++) {
        g.flt[d] = (int)p->flt[d], g.stride[d] = (int)p->stride[d];
        g.padm[d] = (int)(p->pad[d] % p->stride[d]);
        for (int r = 0; r < p->stride[d]; r++)
            g.taps[d][r] = (int)sub_taps(p, d, r);
    }
    memcpy(g.ws, p->ws, sizeof g.ws);
    for (int res = 0; res < l->nres; res++)
        g.off[res] = l->woff[res];
    const int64_t total = p->k * p->c * p->flt[0] * p->flt[1] * p->flt[2];
    const unsigned blocks = fd_cuda_blocks(total, FD_CUDA_BLOCK);
    static void *fc16[FD_CUDA_FCACHE], *fc32[FD_CUDA_FCACHE];
    const cudaError_t le =
        fd_dtype_size(p->xdt) == 2
            ? fd_cuda_launch_k(dgrad_gather<uint16_t>, fc16, dim3(blocks), dim3(FD_CUDA_BLOCK), 0, stream, g,
                               (const uint16_t *)w, (uint16_t *)ws)
            : fd_cuda_launch_k(dgrad_gather<uint32_t>, fc32, dim3(blocks), dim3(FD_CUDA_BLOCK), 0, stream, g,
                               (const uint32_t *)w, (uint32_t *)ws);
    FD_CUDA_LAUNCHED_AS(le, "sub-filter gather of %lld elements into %d residues (%s, stream %p)",
                        (long long)total, l->nconv, tnsp ? "transposed" : "KRSC", (void *)stream);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- dx = alpha * 0 + beta * dx on the positions of a residue without taps -------------------- */

/* The sub-tensor's dims (N, C, D', H', W') ordered by stride, outermost first, those of extent 1
 * dropped and nesting neighbours merged, so consecutive threads touch neighbouring addresses in
 * NCHW, NHWC or any packed order, and the per-element index math is a few 32-bit divisions
 * (small: the element count fits 32 bits). */
typedef struct {
    int nd, small;
    int64_t dim[5], st[5];
    int64_t total;
} dg_walk_t;

#define DG_BLEND_OF(T, sfx)                                                                    \
    static __global__ void dgrad_blend_##sfx(const __grid_constant__ dg_walk_t wk, void *dxv,  \
                                             double alpha, double beta)                        \
    {                                                                                          \
        T *dx = (T *)dxv;                                                                      \
        for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < wk.total;         \
             e += (int64_t)gridDim.x * blockDim.x) {                                           \
            int64_t off = 0;                                                                   \
            if (wk.small) {                                                                    \
                unsigned i = (unsigned)e;                                                      \
                for (int d = wk.nd - 1; d > 0; d--) {                                          \
                    off += (int64_t)(i % (unsigned)wk.dim[d]) * wk.st[d];                      \
                    i /= (unsigned)wk.dim[d];                                                  \
                }                                                                              \
                off += (int64_t)i * wk.st[0];                                                  \
            } else {                                                                           \
                int64_t i = e;                                                                 \
                for (int d = wk.nd - 1; d > 0; d--) {                                          \
                    off += (i % wk.dim[d]) * wk.st[d];                                         \
                    i /= wk.dim[d];                                                            \
                }                                                                              \
                off += i * wk.st[0];                                                           \
            }                                                                                  \
            fd_cuda_blend(dx, off, alpha, beta, 0.0);                                          \
        }                                                                                      \
    }
DG_BLEND_OF(float, f32)
DG_BLEND_OF(double, f64)
DG_BLEND_OF(__half, f16)
DG_BLEND_OF(__nv_bfloat16, bf16)
#undef DG_BLEND_OF

static dg_walk_t walk_of(const fd_conv_problem_t *q)
{
    int64_t dim[5] = {q->n, q->c, q->in[0], q->in[1], q->in[2]};
    int64_t st[5] = {q->xs[0], q->xs[1], q->xs[2], q->xs[3], q->xs[4]};
    for (int i = 1; i < 5; i++) /* insertion sort, largest stride first */
        for (int j = i; j > 0 && st[j - 1] < st[j]; j--) {
            const int64_t td = dim[j], ts = st[j];
            dim[j] = dim[j - 1], st[j] = st[j - 1];
            dim[j - 1] = td, st[j - 1] = ts;
        }
    dg_walk_t wk;
    wk.nd = 0;
    wk.total = 1;
    for (int d = 0; d < 5; d++) {
        wk.total *= dim[d];
        if (dim[d] == 1)
            continue;
        if (wk.nd > 0 && wk.st[wk.nd - 1] == st[d] * dim[d]) { /* nests: one run */
            wk.dim[wk.nd - 1] *= dim[d];
            wk.st[wk.nd - 1] = st[d];
            continue;
        }
        wk.dim[wk.nd] = dim[d], wk.st[wk.nd] = st[d];
        wk.nd++;
    }
    if (wk.nd == 0) /* a single element */
        wk.dim[0] = 1, wk.st[0] = 0, wk.nd = 1;
    wk.small = wk.total <= (int64_t)UINT32_MAX;
    return wk;
}

static cudnnStatus_t blend(const fd_conv_problem_t *q, void *dx, double alpha, double beta,
                           cudaStream_t stream)
{
    const dg_walk_t wk = walk_of(q);
    const unsigned blocks = fd_cuda_blocks(wk.total, FD_CUDA_BLOCK);
    FD_CUDA_TYPED_LAUNCH(q->xdt, dgrad_blend, blocks, FD_CUDA_BLOCK, stream, wk, dx, alpha, beta);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- the stride-1 engine of one residue -------------------------------------------------------- */

/* 1 when the sm_90a wgmma backward data row takes sub-problem q (it checks the device, the
 * environment switches, the types and q's shape); its run then replaces the mma.sync row's. */
static int wgmma_takes(const fd_conv_problem_t *q)
{
    char why[400];
    if (q->xdt == CUDNN_DATA_FLOAT)
        return fd_conv_bwd_data_implicit_gemm_tf32_128xN__sm90_applicable(q, why, sizeof why);
    return fd_conv_bwd_data_implicit_gemm_f16_128xN__sm90_applicable(q, why, sizeof why);
}

static cudnnStatus_t sub_run(const fd_conv_problem_t *q, dg_engine_t eng, const fd_conv_args_t *b)
{
    if (eng == DG_SIMT)
        return fd_conv_bwd_data_simt_igemm_run(q, b);
    if (b->workspace_size >= (size_t)(q->k * q->ws[0]) * fd_dtype_size(q->xdt) && wgmma_takes(q))
        return q->xdt == CUDNN_DATA_FLOAT ? fd_conv_bwd_data_implicit_gemm_tf32_128xN__sm90_run(q, b)
                                          : fd_conv_bwd_data_implicit_gemm_f16_128xN__sm90_run(q, b);
    return fd_conv_bwd_data_tc_igemm_run(q, b);
}

/* ---- the split ------------------------------------------------------------------------------- */

static int strided_applicable(const fd_conv_problem_t *p, dg_engine_t eng, char *why, size_t why_size)
{
    const cudnnDataType_t dt = p->xdt;
    if (eng == DG_TC && dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16 && dt != CUDNN_DATA_FLOAT) {
        snprintf(why, why_size, "%s data; the tensor-core rows take HALF, BFLOAT16 or FLOAT",
                 fd_dtype_name(dt));
        return 0;
    }
    if (eng == DG_SIMT && dt != CUDNN_DATA_FLOAT) {
        snprintf(why, why_size, "%s data; the FFMA row takes FLOAT", fd_dtype_name(dt));
        return 0;
    }
    if (p->groups != 1) {
        snprintf(why, why_size, "%lld groups; the residue split serves one", (long long)p->groups);
        return 0;
    }
    int strided = 0;
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++) {
        if (p->dil[d] != 1) {
            snprintf(why, why_size, "dilation %lld: the residue split assumes dilation 1",
                     (long long)p->dil[d]);
            return 0;
        }
        strided |= p->stride[d] > 1;
    }
    if (!strided) {
        snprintf(why, why_size, "stride 1: fd_conv_bwd_data_%s_igemm takes it without a split",
                 eng == DG_TC ? "tc" : "simt");
        return 0;
    }
    const int nres = residue_count(p);
    if (nres > DG_MAX_RES) {
        snprintf(why, why_size, "strides %lldx%lldx%lld give %d residue classes; at most %d",
                 (long long)p->stride[0], (long long)p->stride[1], (long long)p->stride[2], nres,
                 DG_MAX_RES);
        return 0;
    }
    /* Every residue with positions must be a problem the engine's row takes; a residue
     * without taps is asked as if it had one, so the call's types, math and layouts pass the
     * same test whichever residues happen to compute. */
    for (int res = 0; res < nres; res++) {
        fd_conv_problem_t q;
        int64_t off;
        if (sub_problem(p, res, &q, &off) == DG_EMPTY)
            continue;
        for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++)
            q.flt[d] = q.flt[d] > 0 ? q.flt[d] : 1;
        pack_filter(&q);
        char inner_why[400];
        const int takes = eng == DG_TC ? fd_conv_bwd_data_tc_igemm_applicable(&q, inner_why, sizeof inner_why)
                                       : fd_conv_bwd_data_simt_igemm_applicable(&q, inner_why, sizeof inner_why);
        if (!takes) {
            int64_t r[3];
            residue_of(p, res, r);
            snprintf(why, why_size, "residue (%lld, %lld, %lld) as a stride-1 problem: %s",
                     (long long)r[0], (long long)r[1], (long long)r[2], inner_why);
            return 0;
        }
    }
    return 1;
}

/* ---- every residue in one GEMM launch (sm_90a wgmma) -------------------------------------------- */

/* What the grouped launch's first step needs: the sub-filters of every residue, transposed (the
 * wgmma backward data row's CRSK), written where the per-residue path keeps the KRSC ones. */
typedef struct {
    const fd_conv_problem_t *p;
    const dg_plan_t *l;
    const fd_conv_args_t *a;
} dg_group_ctx_t;

static cudnnStatus_t group_gather(void *ctx)
{
    const dg_group_ctx_t *g = (const dg_group_ctx_t *)ctx;
    return gather(g->p, g->l, g->a->w, g->a->workspace, 1, g->a->handle->stream);
}

/* Residue res's sub-filter (sub-problem q, with taps) as a view of p's filter w, no gather:
 * sub-tap j of dim d is logical tap t = t0 + s * j (t0 = (r + pad) mod s), memory tap t0 + s * j
 * (cross-correlation) or R - 1 - t0 - s * j (CUDNN_CONVOLUTION). Both step the memory taps by s:
 * the view starts at memory tap b (t0, or R - 1 - t0 - s * (R' - 1), the sub-tap R' - 1) and
 * steps s taps, and under CUDNN_CONVOLUTION the view is the sub-filter flipped, so q keeps p's
 * mode (the flip the gather applied is q's own). q's filter strides become the view's (tap
 * strides times s); returns its first element. */
static const void *view_filter(const fd_conv_problem_t *p, int res, fd_conv_problem_t *q, const void *w)
{
    int64_t r[3], at = 0;
    residue_of(p, res, r);
    for (int d = 0; d < FD_CONV_SPATIAL_MAX; d++) {
        const int64_t s = p->stride[d], t0 = (r[d] + p->pad[d]) % s;
        const int64_t b = p->cross_correlation ? t0 : p->flt[d] - 1 - t0 - s * (q->flt[d] - 1);
        at += b * p->ws[2 + d];
        q->ws[2 + d] = p->ws[2 + d] * s;
    }
    q->ws[0] = p->ws[0], q->ws[1] = p->ws[1];
    q->wformat = p->wformat;
    q->cross_correlation = p->cross_correlation;
    return (const char *)w + at * (int64_t)fd_dtype_size(p->wdt);
}

/* 1 when every residue with positions ran in one wgmma GEMM launch (status in *st), after one
 * sub-filter gather unless the residues' sub-filters could be read as views of the filter
 * (view_filter): the residues with taps must all be ones the wgmma row takes (as
 * sub_run would route them), the tap-less ones blend in that launch's epilogue. 0: nothing
 * launched. */
static int grouped_run(const fd_conv_problem_t *p, const dg_plan_t *l, const fd_conv_args_t *a, cudnnStatus_t *st)
{
    fd_conv_problem_t q[DG_GROUP_MAX], v[DG_GROUP_MAX];
    int conv[DG_GROUP_MAX];
    void *dx[DG_GROUP_MAX];
    const void *wt[DG_GROUP_MAX], *wv[DG_GROUP_MAX];
    const size_t esz = fd_dtype_size(p->xdt);
    int n = 0;
    if (l->nres > DG_GROUP_MAX)
        return 0;
    for (int res = 0; res < l->nres; res++) {
        int64_t off;
        const dg_kind_t kind = sub_problem(p, res, &q[n], &off);
        if (kind == DG_EMPTY)
            continue;
        if (kind == DG_CONV && !wgmma_takes(&q[n]))
            return 0;
        conv[n] = kind == DG_CONV;
        dx[n] = (char *)a->out + off * (int64_t)esz;
        wt[n] = conv[n] ? (const char *)a->workspace + (size_t)l->woff[res] * esz : NULL;
        v[n] = q[n];
        wv[n] = conv[n] ? view_filter(p, res, &v[n], a->w) : NULL;
        n++;
    }
    /* the views need the filter's channels contiguous (else the gather, which takes any strides) */
    if (p->ws[1] == 1 && fd_conv_bwd_data_wgmma_grouped(p, n, 1, v, conv, dx, wv, a, NULL, NULL, st))
        return 1;
    dg_group_ctx_t ctx = {p, l, a};
    return fd_conv_bwd_data_wgmma_grouped(p, n, 0, q, conv, dx, wt, a, group_gather, &ctx, st);
}

static cudnnStatus_t strided_run(const fd_conv_problem_t *p, dg_engine_t eng, const fd_conv_args_t *a)
{
    /* a plan's gather-free grouped launch for this very call: its one launch, nothing else (the
     * workspace size was checked against the row's need by the caller, core's conv_run) */
    cudnnStatus_t hit = CUDNN_STATUS_SUCCESS;
    if (eng == DG_TC && a->state != NULL && fd_conv_bwd_data_wgmma_grouped_hit(p, a, &hit))
        return hit;
    dg_plan_t l;
    plan(p, eng, &l);
    FD_CHECK(l.nres <= DG_MAX_RES, CUDNN_STATUS_NOT_SUPPORTED,
             "%d residue classes; the strided backward data split takes at most %d", l.nres,
             DG_MAX_RES);
    FD_CHECK(a->workspace_size >= l.total && (l.total == 0 || a->workspace != NULL),
             CUDNN_STATUS_BAD_PARAM,
             "workspace of %zu bytes; the strided backward data split needs %zu (%d "
             "sub-filters)",
             a->workspace_size, l.total, l.nconv);
    const size_t esz = fd_dtype_size(p->xdt);
    cudaStream_t s = a->handle->stream;
    char *ws = (char *)a->workspace;
    if (eng == DG_TC && l.nconv > 0 && fd_conv_bwd_data_wgmma_grouped_on()) {
        cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
        if (grouped_run(p, &l, a, &st))
            return st;
    }
    if (l.nconv > 0)
        FD_TRY(gather(p, &l, a->w, ws, 0, s));
    for (int res = 0; res < l.nres; res++) {
        fd_conv_problem_t q;
        int64_t off;
        const dg_kind_t kind = sub_problem(p, res, &q, &off);
        void *dx = (char *)a->out + off * (int64_t)esz;
        if (kind == DG_BLEND) {
            FD_TRY(blend(&q, dx, a->alpha, a->beta, s));
        } else if (kind == DG_CONV) {
            fd_conv_args_t b = *a;
            b.w = ws + (size_t)l.woff[res] * esz;
            b.out = dx;
            b.workspace = ws + l.inner;
            b.workspace_size = a->workspace_size - l.inner;
            FD_TRY(sub_run(&q, eng, &b));
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- the rows ---------------------------------------------------------------------------------- */

#define DG_ROW(name, eng)                                                                      \
    extern "C" int fd_conv_bwd_data_##name##_applicable(const fd_conv_problem_t *p, char *why, \
                                                        size_t why_size)                       \
    {                                                                                          \
        return strided_applicable(p, eng, why, why_size);                                      \
    }                                                                                          \
    extern "C" size_t fd_conv_bwd_data_##name##_workspace(const fd_conv_problem_t *p)          \
    {                                                                                          \
        dg_plan_t l;                                                                           \
        plan(p, eng, &l);                                                                      \
        return l.total;                                                                        \
    }                                                                                          \
    extern "C" cudnnStatus_t fd_conv_bwd_data_##name##_run(const fd_conv_problem_t *p,         \
                                                           const fd_conv_args_t *a)            \
    {                                                                                          \
        return strided_run(p, eng, a);                                                         \
    }
DG_ROW(tc_strided, DG_TC)
DG_ROW(simt_strided, DG_SIMT)
#undef DG_ROW
