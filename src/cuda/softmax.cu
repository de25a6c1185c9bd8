/* SPDX-License-Identifier: MIT */
/*
 * softmax.cu - softmax forward and backward on the GPU (rows fd_softmax_fwd_cuda,
 * fd_softmax_bwd_cuda): FAST, ACCURATE and LOG (FAST computed as ACCURATE, as src/ref does),
 * INSTANCE and CHANNEL modes, 4-d and 5-d, any non-negative strides, exact in place (y == x,
 * dx == dy, dx == y); FLOAT, DOUBLE, HALF, BFLOAT16 with float accumulation (double for
 * DOUBLE). No workspace, no atomics, deterministic.
 *
 * The host splits the dims into row dims (INSTANCE: all but N; CHANNEL: C) and row-enumerating
 * dims, orders each set by the output's strides and merges runs contiguous in every tensor.
 * A row whose innermost element stride is 1 and that holds at least 32 elements (NCHW
 * INSTANCE, NHWC CHANNEL, classifier outputs) gets a block of its own with a fixed-order
 * reduction; otherwise (NCHW CHANNEL with a spatial extent, short rows) one thread walks each
 * row, so neighbouring threads read neighbouring rows' elements: coalesced either way. Rows
 * that would get a block of 32 threads (32 to 127 elements: NHWC CHANNEL with C = 64) run one
 * warp per row, eight rows to a block, with the same arithmetic (softmax_kernels.cuh).
 * FLOAT, HALF and BFLOAT16 rows that are one stride-1 run of 4 to 256 whole 16-byte vectors,
 * 16-byte aligned (NHWC CHANNEL up to C = 1024 floats / 2048 halves, NCHW INSTANCE of small
 * planes) take the rows-in-registers kernels first (*_wreg): 4 to 32 lanes a row, each row read
 * once and written once with 128-bit accesses (the block kernels read x three times). Their
 * reduction order differs from the block kernels' (per-lane partial, then a butterfly), so
 * their last bits may too: still deterministic and held to the ref within gm_tol.
 * Forward rows walked by one thread (strided: NCHW CHANNEL) of at least 32 elements in one
 * collapsed dim, FLOAT / HALF / BFLOAT16, take softmax_fwd_rows_online: max and sum in one
 * pass (the sum rescaled when the max grows), then the write: x read twice, not three times
 * from DRAM; the rescaling rounds differently (within gm_tol), NaN / inf rows as the ref.
 */
#include <stdio.h>
#include <string.h>

#include "elem.cuh"
#include "fd_cuda.cuh"

extern "C" {
#include "../core/softmax.h"
}

#include <math_constants.h>

#define SM_TENSORS 3 /* forward x, y; backward y, dy, dx */
#define SM_DIMS 4    /* at most 4 row dims (INSTANCE, 5-d) and 4 row-enumerating dims */

typedef struct {
    int is_log;
    int nr, no; /* collapsed row dims, collapsed row-enumerating dims (innermost last) */
    int64_t rdim[SM_DIMS], odim[SM_DIMS];
    int64_t rst[SM_TENSORS][SM_DIMS], ost[SM_TENSORS][SM_DIMS];
    int64_t row_len, rows;
} sm_geom_t;

/* Offset of element r of a row in tensor t, relative to the row's base. */
static __device__ __forceinline__ int64_t sm_inner(const sm_geom_t &g, int t, int64_t r)
{
    if (g.nr == 1)
        return r * g.rst[t][0];
    int64_t off = 0;
    for (int d = g.nr - 1; d >= 0; d--) {
        off += (r % g.rdim[d]) * g.rst[t][d];
        r /= g.rdim[d];
    }
    return off;
}

/* Base offsets of row `row` in every tensor. */
static __device__ __forceinline__ void sm_outer(const sm_geom_t &g, int64_t row, int64_t *base)
{
    for (int t = 0; t < SM_TENSORS; t++)
        base[t] = 0;
    for (int d = g.no - 1; d >= 0; d--) {
        const int64_t i = row % g.odim[d];
        row /= g.odim[d];
        for (int t = 0; t < SM_TENSORS; t++)
            base[t] += i * g.ost[t][d];
    }
}

/* ---- the kernels, once per storage type --------------------------------------------------- */

#define FD_STAMP_FILE "softmax_kernels.cuh"
#include "stamp_types.cuh"

/* ---- host: split and collapse the dims ---------------------------------------------------- */

/* The dims in `dims` (count m, outermost first by the key tensor's strides after sorting),
 * merged where contiguous in all nt tensors; out: count, sizes, strides per tensor. */
static int collapse(const struct cudnnTensorStruct *const *t, int nt, int key, const int *dims,
                    int m, int64_t *dim, int64_t (*st)[SM_DIMS])
{
    int order[SM_DIMS], k = 0;
    for (int i = 0; i < m; i++)
        if (t[0]->dim[dims[i]] != 1)
            order[k++] = dims[i];
    for (int i = 1; i < k; i++) { /* stable, largest key stride first */
        int v = order[i], j = i;
        while (j > 0 && t[key]->stride[order[j - 1]] < t[key]->stride[v]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    int n = 0;
    for (int i = 0; i < k; i++) {
        const int d = order[i];
        const int64_t size = t[0]->dim[d];
        int merge = n > 0;
        for (int j = 0; j < nt && merge; j++)
            merge = (int64_t)t[j]->stride[d] * size == st[j][n - 1];
        if (merge) {
            dim[n - 1] *= size;
            for (int j = 0; j < nt; j++)
                st[j][n - 1] = t[j]->stride[d];
        } else {
            dim[n] = size;
            for (int j = 0; j < nt; j++)
                st[j][n] = t[j]->stride[d];
            n++;
        }
    }
    if (n == 0) { /* every dim of the set is 1 */
        dim[0] = 1;
        for (int j = 0; j < nt; j++)
            st[j][0] = 0;
        n = 1;
    }
    return n;
}

static sm_geom_t geom_of(cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode,
                         const struct cudnnTensorStruct *const *t, int nt, int key)
{
    sm_geom_t g;
    memset(&g, 0, sizeof g);
    g.is_log = algo == CUDNN_SOFTMAX_LOG;
    int rd[FD_DIM_MAX], od[FD_DIM_MAX], nr = 0, no = 0;
    for (int d = 0; d < t[0]->nb_dims; d++) {
        const int in_row = mode == CUDNN_SOFTMAX_MODE_CHANNEL ? d == 1 : d >= 1;
        if (in_row)
            rd[nr++] = d;
        else
            od[no++] = d;
    }
    g.nr = collapse(t, nt, key, rd, nr, g.rdim, g.rst);
    g.no = collapse(t, nt, key, od, no, g.odim, g.ost);
    g.row_len = 1;
    g.rows = 1;
    for (int i = 0; i < g.nr; i++)
        g.row_len *= g.rdim[i];
    for (int i = 0; i < g.no; i++)
        g.rows *= g.odim[i];
    return g;
}

/* Block size of the block-per-row kernels, 0 for the thread-per-row ones. */
static unsigned block_threads(const sm_geom_t *g, int key)
{
    if (g->row_len < 32 || g->rst[key][g->nr - 1] != 1)
        return 0;
    unsigned t = 32;
    while (t < 512 && (int64_t)t * 4 < g->row_len)
        t *= 2;
    return t;
}

/* ---- rows in registers (softmax_kernels.cuh, *_wreg) ---------------------------------------- */

/* The (lanes per row, vectors per lane) shapes stamped; a row of rv vectors takes the first
 * that holds it. */
#define SM_WREG_SHAPES(X) X(4, 1) X(8, 1) X(16, 1) X(32, 1) X(32, 2) X(32, 4) X(32, 8)

/* Lanes per row (0: the path does not serve the call) and *nv, vectors per lane: FLOAT, HALF,
 * BFLOAT16; each tensor's row one stride-1 run of whole 16-byte vectors, its rows 16-byte
 * aligned; 4 to 256 vectors a row. */
static int sm_wreg_shape(const sm_geom_t *g, cudnnDataType_t dt, const void *const *ptr, int nt,
                         int *nv)
{
    if (dt != CUDNN_DATA_FLOAT && dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16)
        return 0;
    const int64_t vec = FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(dt);
    if (g->nr != 1 || g->row_len % vec != 0)
        return 0;
    for (int t = 0; t < nt; t++) {
        if (!fd_cuda_aligned16(ptr[t]) || (g->row_len > 1 && g->rst[t][0] != 1))
            return 0;
        for (int d = 0; d < g->no; d++)
            if (g->odim[d] > 1 && g->ost[t][d] % vec != 0)
                return 0;
    }
    const int64_t rv = g->row_len / vec;
    if (rv < 4 || rv > 32 * 8)
        return 0;
    int lpr = 4;
    while (lpr < 32 && lpr < rv)
        lpr *= 2;
    int n = 1;
    while ((int64_t)lpr * n < rv)
        n *= 2;
    *nv = n;
    return lpr;
}

#define SM_WREG_TYPED(kern, dt, lpr, nv, blocks, stream, ...)                                  \
    do {                                                                                       \
        if ((dt) == CUDNN_DATA_FLOAT)                                                          \
            kern##_f32<lpr, nv><<<(blocks), FD_CUDA_BLOCK, 0, (stream)>>>(__VA_ARGS__);        \
        else if ((dt) == CUDNN_DATA_HALF)                                                      \
            kern##_f16<lpr, nv><<<(blocks), FD_CUDA_BLOCK, 0, (stream)>>>(__VA_ARGS__);        \
        else                                                                                   \
            kern##_bf16<lpr, nv><<<(blocks), FD_CUDA_BLOCK, 0, (stream)>>>(__VA_ARGS__);       \
    } while (0)

/* Launches kern (softmax_fwd_wreg / softmax_bwd_wreg) in shape (lpr, nv) and checks it. */
#define SM_WREG_LAUNCH(kern, dt, lpr, nv, rows, stream)                                        \
    do {                                                                                       \
        const unsigned blocks_ = fd_cuda_blocks((rows), FD_CUDA_BLOCK / (lpr));                \
        switch ((lpr) * 16 + (nv)) {                                                           \
        SM_WREG_SHAPES(SM_WREG_CASE_##kern)                                                    \
        default:                                                                               \
            return fd_error(CUDNN_STATUS_INTERNAL_ERROR, __FILE__, __LINE__,                   \
                            "softmax: no register shape %d x %d", (lpr), (nv));               \
        }                                                                                      \
        FD_CUDA_LAUNCHED("%s on %s data (%u blocks, %d lanes x %d vectors a row)", #kern,      \
                         fd_dtype_name(dt), blocks_, (lpr), (nv));                            \
    } while (0)

/* ---- rows (src/impls.def) ------------------------------------------------------------------ */

static int sm_applicable(const struct cudnnTensorStruct *t, char *why, size_t why_size)
{
    if (!fd_cuda_elem_dtype_ok(t->dtype)) {
        snprintf(why, why_size, "%s data; the softmax kernels take FLOAT, DOUBLE, HALF, BFLOAT16",
                 fd_dtype_name(t->dtype));
        return 0;
    }
    if (t->nb_dims < 2 || t->nb_dims > 1 + SM_DIMS) {
        snprintf(why, why_size, "%d dims; the softmax kernels take 2 to %d", t->nb_dims,
                 1 + SM_DIMS);
        return 0;
    }
    return 1;
}

extern "C" int fd_softmax_fwd_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return sm_applicable(&((const fd_softmax_fwd_problem_t *)problem)->x, why, why_size);
}
extern "C" size_t fd_softmax_fwd_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_softmax_fwd_cuda_run(const void *problem, const void *args)
{
    const fd_softmax_fwd_problem_t *p = (const fd_softmax_fwd_problem_t *)problem;
    const fd_softmax_fwd_args_t *a = (const fd_softmax_fwd_args_t *)args;
    const struct cudnnTensorStruct *t[SM_TENSORS] = {&p->x, &p->y, &p->y};
    const sm_geom_t g = geom_of(p->algo, p->mode, t, SM_TENSORS, 1);
    const cudaStream_t stream = a->handle->stream;
    const void *ptrs[2] = {a->x, a->y};
    int nv = 0;
    const int lpr = sm_wreg_shape(&g, p->x.dtype, ptrs, 2, &nv);
    if (lpr) {
#define SM_WREG_CASE_softmax_fwd_wreg(L, N)                                                    \
    case L * 16 + N:                                                                           \
        SM_WREG_TYPED(softmax_fwd_wreg, p->x.dtype, L, N, blocks_, stream, g, a->x, a->y,      \
                      a->alpha, a->beta);                                                      \
        break;
        SM_WREG_LAUNCH(softmax_fwd_wreg, p->x.dtype, lpr, nv, g.rows, stream);
#undef SM_WREG_CASE_softmax_fwd_wreg
        return CUDNN_STATUS_SUCCESS;
    }
    const unsigned threads = block_threads(&g, 1);
    if (threads == 32) {
        const unsigned blocks = fd_cuda_blocks(g.rows, FD_CUDA_BLOCK / 32);
        FD_CUDA_TYPED_LAUNCH(p->x.dtype, softmax_fwd_warp, blocks, FD_CUDA_BLOCK, stream, g,
                             a->x, a->y, a->alpha, a->beta);
    } else if (threads) {
        const unsigned blocks = fd_cuda_blocks(g.rows, 1);
        FD_CUDA_TYPED_LAUNCH(p->x.dtype, softmax_fwd_block, blocks, threads, stream, g, a->x, a->y,
                             a->alpha, a->beta);
    } else if (g.nr == 1 && g.row_len >= 32 && p->x.dtype != CUDNN_DATA_DOUBLE) {
        const unsigned blocks = fd_cuda_blocks(g.rows, FD_CUDA_BLOCK);
        FD_CUDA_TYPED_LAUNCH(p->x.dtype, softmax_fwd_rows_online, blocks, FD_CUDA_BLOCK, stream,
                             g, a->x, a->y, a->alpha, a->beta);
    } else {
        const unsigned blocks = fd_cuda_blocks(g.rows, FD_CUDA_BLOCK);
        FD_CUDA_TYPED_LAUNCH(p->x.dtype, softmax_fwd_rows, blocks, FD_CUDA_BLOCK, stream, g, a->x,
                             a->y, a->alpha, a->beta);
    }
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_softmax_bwd_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return sm_applicable(&((const fd_softmax_bwd_problem_t *)problem)->y, why, why_size);
}
extern "C" size_t fd_softmax_bwd_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_softmax_bwd_cuda_run(const void *problem, const void *args)
{
    const fd_softmax_bwd_problem_t *p = (const fd_softmax_bwd_problem_t *)problem;
    const fd_softmax_bwd_args_t *a = (const fd_softmax_bwd_args_t *)args;
    const struct cudnnTensorStruct *t[SM_TENSORS] = {&p->y, &p->dy, &p->dx};
    const sm_geom_t g = geom_of(p->algo, p->mode, t, SM_TENSORS, 2);
    const cudaStream_t stream = a->handle->stream;
    const void *ptrs[3] = {a->y, a->dy, a->dx};
    int nv = 0;
    const int lpr = sm_wreg_shape(&g, p->y.dtype, ptrs, 3, &nv);
    if (lpr) {
#define SM_WREG_CASE_softmax_bwd_wreg(L, N)                                                    \
    case L * 16 + N:                                                                           \
        SM_WREG_TYPED(softmax_bwd_wreg, p->y.dtype, L, N, blocks_, stream, g, a->y, a->dy,     \
                      a->dx, a->alpha, a->beta);                                               \
        break;
        SM_WREG_LAUNCH(softmax_bwd_wreg, p->y.dtype, lpr, nv, g.rows, stream);
#undef SM_WREG_CASE_softmax_bwd_wreg
        return CUDNN_STATUS_SUCCESS;
    }
    const unsigned threads = block_threads(&g, 2);
    if (threads == 32) {
        const unsigned blocks = fd_cuda_blocks(g.rows, FD_CUDA_BLOCK / 32);
        FD_CUDA_TYPED_LAUNCH(p->y.dtype, softmax_bwd_warp, blocks, FD_CUDA_BLOCK, stream, g,
                             a->y, a->dy, a->dx, a->alpha, a->beta);
    } else if (threads) {
        const unsigned blocks = fd_cuda_blocks(g.rows, 1);
        FD_CUDA_TYPED_LAUNCH(p->y.dtype, softmax_bwd_block, blocks, threads, stream, g, a->y,
                             a->dy, a->dx, a->alpha, a->beta);
    } else {
        const unsigned blocks = fd_cuda_blocks(g.rows, FD_CUDA_BLOCK);
        FD_CUDA_TYPED_LAUNCH(p->y.dtype, softmax_bwd_rows, blocks, FD_CUDA_BLOCK, stream, g, a->y,
                             a->dy, a->dx, a->alpha, a->beta);
    }
    return CUDNN_STATUS_SUCCESS;
}
