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
 */
#include <float.h>
#include <stdio.h>
#include <string.h>

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
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_tensor_reduce_cuda_run(const void *problem, const void *args)
{
    const fd_tensor_reduce_problem_t *p = (const fd_tensor_reduce_problem_t *)problem;
    const fd_tensor_reduce_args_t *a = (const fd_tensor_reduce_args_t *)args;
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
