/* SPDX-License-Identifier: MIT */
/*
 * activation.cu - activation forward and backward on the GPU (rows fd_act_fwd_cuda,
 * fd_act_bwd_cuda): every mode of src/core/activation.h (sigmoid, relu, tanh, clipped relu,
 * elu, identity, swish), both NaN options, 1 to 8 dims, any non-negative strides, exact in
 * place (output == input with the same strides); FLOAT, DOUBLE, HALF, BFLOAT16. No workspace.
 *
 * One thread per element, grid-stride. The host first reorders the dims by the output's
 * strides (largest first: an elementwise op may visit elements in any order), drops size-1
 * dims and merges dims that are contiguous in every tensor, so packed NCHW and NHWC both
 * become one dim walked with stride 1 (coalesced, no index division), while any other layout
 * still works through the general odometer. Values: see activation_kernels.cuh.
 *
 * Packed fast path: when the collapse leaves one dim of stride 1 in every tensor (all dense in
 * one common layout, whatever it is) and every pointer is 16-byte aligned, the *_packed
 * kernels run the same per-element code on 128-bit vectors, the grid capped at a few waves
 * (elem.cuh); the bits are the generic kernel's, only the walk differs. A misaligned pointer
 * (a sub-tensor view) takes the generic kernel.
 */
#include <stdio.h>
#include <string.h>

#include "elem.cuh"
#include "fd_cuda.cuh"

extern "C" {
#include "../core/activation.h"
}

#include <math_constants.h>

#define ACT_TENSORS 4 /* forward: x, y; backward: y, dy, x, dx */

/* The shape after reordering and merging: dim[nd - 1] is innermost. */
typedef struct {
    fd_act_params_t act;
    int nd;
    int64_t total;
    int64_t dim[FD_DIM_MAX];
    int64_t st[ACT_TENSORS][FD_DIM_MAX];
} act_geom_t;

/* Offsets of element e (row-major over the collapsed dims) in the first nt tensors. */
static __device__ __forceinline__ void act_offsets(const act_geom_t &g, int64_t e, int nt,
                                                   int64_t *off)
{
    for (int t = 0; t < nt; t++)
        off[t] = 0;
    if (g.nd == 1) { /* the packed case: no division */
        for (int t = 0; t < nt; t++)
            off[t] = e * g.st[t][0];
        return;
    }
    for (int d = g.nd - 1; d >= 0; d--) {
        const int64_t i = e % g.dim[d];
        e /= g.dim[d];
        for (int t = 0; t < nt; t++)
            off[t] += i * g.st[t][d];
    }
}

/* ---- the kernels, once per storage type --------------------------------------------------- */

#define FD_STAMP_FILE "activation_kernels.cuh"
#include "stamp_types.cuh"

/* ---- host: collapse the shape --------------------------------------------------------------- */

/* strides[t] for t < nt; `key` is the tensor whose stride order the walk follows (the output). */
static act_geom_t geom_of(const fd_act_problem_t *p, const int64_t *const *strides, int nt, int key)
{
    act_geom_t g;
    memset(&g, 0, sizeof g);
    g.act = p->act;
    g.total = 1;
    int order[FD_DIM_MAX], m = 0;
    for (int d = 0; d < p->nb_dims; d++) {
        g.total *= p->dim[d];
        if (p->dim[d] != 1)
            order[m++] = d;
    }
    /* stable insertion sort, largest output stride first */
    for (int i = 1; i < m; i++) {
        int v = order[i], j = i;
        while (j > 0 && strides[key][order[j - 1]] < strides[key][v]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    g.nd = 0;
    for (int i = 0; i < m; i++) {
        const int d = order[i];
        int merge = g.nd > 0;
        for (int t = 0; t < nt && merge; t++)
            merge = strides[t][d] * p->dim[d] == g.st[t][g.nd - 1];
        if (merge) { /* the previous (outer) dim steps exactly over this one */
            g.dim[g.nd - 1] *= p->dim[d];
            for (int t = 0; t < nt; t++)
                g.st[t][g.nd - 1] = strides[t][d];
        } else {
            g.dim[g.nd] = p->dim[d];
            for (int t = 0; t < nt; t++)
                g.st[t][g.nd] = strides[t][d];
            g.nd++;
        }
    }
    if (g.nd == 0) { /* a single element */
        g.nd = 1;
        g.dim[0] = 1;
    }
    return g;
}

/* 1 when the first nt tensors of g are dense in one common layout (one stride-1 dim). */
static int geom_packed(const act_geom_t *g, int nt)
{
    if (g->nd != 1)
        return 0;
    for (int t = 0; t < nt; t++)
        if (g->st[t][0] != 1)
            return 0;
    return 1;
}

/* Blocks of the packed kernels: one thread per FD_CUDA_UNROLL vectors, a few waves at most. */
static unsigned packed_blocks(const act_geom_t *g, cudnnDataType_t dt)
{
    const int64_t vn = FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(dt);
    return fd_cuda_wave_blocks((g->total / vn + FD_CUDA_UNROLL - 1) / FD_CUDA_UNROLL);
}

/* 1 when the packed kernels may store the piecewise result straight from the accumulator type
 * (act_fwd_exact / act_bwd_exact): alpha 1, beta 0, RELU / IDENTITY, or CLIPPED_RELU whose
 * coefficient float represents exactly (else the clip would round twice). The bits are those
 * of the double path: the value is one of the inputs, or 0, or the coefficient. */
static int act_exact(const fd_act_params_t *act, double alpha, double beta)
{
    if (alpha != 1.0 || beta != 0.0)
        return 0;
    return act->mode == CUDNN_ACTIVATION_RELU || act->mode == CUDNN_ACTIVATION_IDENTITY ||
           (act->mode == CUDNN_ACTIVATION_CLIPPED_RELU && (double)(float)act->coef == act->coef);
}

/* The `exact` calls (alpha 1, beta 0, a piecewise mode: the common ReLU) take act_*_lean<U>,
 * U vectors a thread, no grid-stride loop, 21-34 registers (full occupancy): U = 1 by default,
 * FREEDNN_GPU_ACT_LEAN=2 two vectors, =0 the packed kernels' exact branch (act_*_packed, 4
 * waves of 2 vectors a thread and trip, 50-64 registers); read once. H200, 2026-12-02, graph
 * GB/s of ReLU n32c256h56w56 f16 / n32c128h56w56 f32, NCHW (NHWC the same), against the
 * packed kernels: f16 forward 3293 -> 3895 (U = 2: 3786), backward 3772 -> 4121; f32 forward
 * 3760 -> 3905 (3794), backward 4102 -> 4116 (docs/perf/gpu-membw-2026-12-02.md). */
static int act_lean_u(void)
{
    static const int u = (int)fd_env_long("FREEDNN_GPU_ACT_LEAN", 0, 2, 1);
    return u;
}

/* The lean kernels' grid: blocks of FD_CUDA_BLOCK threads of u vectors covering `total`
 * elements of dt; 0 when it would not fit the grid's x dimension. */
static unsigned act_lean_blocks(int64_t total, cudnnDataType_t dt, int u)
{
    const int64_t nv = total / (FD_CUDA_VEC_BYTES / (int64_t)fd_dtype_size(dt));
    const int64_t b = (nv + (int64_t)FD_CUDA_BLOCK * u - 1) / ((int64_t)FD_CUDA_BLOCK * u);
    return b >= INT32_MAX ? 0u : (unsigned)(b < 1 ? 1 : b);
}

/* act_fwd_lean<U> / act_bwd_lean<U> of dt (one of act_applicable's four) on g blocks. */
template <int U>
static cudnnStatus_t act_fwd_lean_go(cudnnDataType_t dt, unsigned g, cudaStream_t s,
                                     const fd_act_params_t &act, int64_t total, const void *x,
                                     void *y)
{
    if (dt == CUDNN_DATA_FLOAT)
        act_fwd_lean_f32<U><<<g, FD_CUDA_BLOCK, 0, s>>>(act, total, x, y);
    else if (dt == CUDNN_DATA_DOUBLE)
        act_fwd_lean_f64<U><<<g, FD_CUDA_BLOCK, 0, s>>>(act, total, x, y);
    else if (dt == CUDNN_DATA_HALF)
        act_fwd_lean_f16<U><<<g, FD_CUDA_BLOCK, 0, s>>>(act, total, x, y);
    else
        act_fwd_lean_bf16<U><<<g, FD_CUDA_BLOCK, 0, s>>>(act, total, x, y);
    FD_CUDA_LAUNCHED("act_fwd_lean<%d> on %s data (%u blocks, stream %p)", U, fd_dtype_name(dt), g,
                     (void *)s);
    return CUDNN_STATUS_SUCCESS;
}
template <int U>
static cudnnStatus_t act_bwd_lean_go(cudnnDataType_t dt, unsigned g, cudaStream_t s,
                                     const fd_act_params_t &act, int64_t total, const void *dy,
                                     const void *x, void *dx)
{
    if (dt == CUDNN_DATA_FLOAT)
        act_bwd_lean_f32<U><<<g, FD_CUDA_BLOCK, 0, s>>>(act, total, dy, x, dx);
    else if (dt == CUDNN_DATA_DOUBLE)
        act_bwd_lean_f64<U><<<g, FD_CUDA_BLOCK, 0, s>>>(act, total, dy, x, dx);
    else if (dt == CUDNN_DATA_HALF)
        act_bwd_lean_f16<U><<<g, FD_CUDA_BLOCK, 0, s>>>(act, total, dy, x, dx);
    else
        act_bwd_lean_bf16<U><<<g, FD_CUDA_BLOCK, 0, s>>>(act, total, dy, x, dx);
    FD_CUDA_LAUNCHED("act_bwd_lean<%d> on %s data (%u blocks, stream %p)", U, fd_dtype_name(dt), g,
                     (void *)s);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- rows (src/impls.def) ------------------------------------------------------------------ */

static int act_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_act_problem_t *p = (const fd_act_problem_t *)problem;
    if (!fd_cuda_elem_dtype_ok(p->dt)) {
        snprintf(why, why_size, "%s data; the activation kernels take FLOAT, DOUBLE, HALF, "
                 "BFLOAT16", fd_dtype_name(p->dt));
        return 0;
    }
    return 1;
}

extern "C" int fd_act_fwd_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return act_applicable(problem, why, why_size);
}
extern "C" size_t fd_act_fwd_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_act_fwd_cuda_run(const void *problem, const void *args)
{
    const fd_act_problem_t *p = (const fd_act_problem_t *)problem;
    const fd_act_args_t *a = (const fd_act_args_t *)args;
    const int64_t *const strides[2] = {p->xs, p->ys};
    const act_geom_t g = geom_of(p, strides, 2, 1);
    if (geom_packed(&g, 2) && fd_cuda_aligned16(a->x) && fd_cuda_aligned16(a->out)) {
        const int u = act_exact(&g.act, a->alpha, a->beta) ? act_lean_u() : 0;
        const unsigned lb = u > 0 ? act_lean_blocks(g.total, p->dt, u) : 0;
        if (lb > 0)
            return u == 1 ? act_fwd_lean_go<1>(p->dt, lb, a->handle->stream, g.act, g.total, a->x,
                                               a->out)
                          : act_fwd_lean_go<2>(p->dt, lb, a->handle->stream, g.act, g.total, a->x,
                                               a->out);
        FD_CUDA_TYPED_LAUNCH(p->dt, act_fwd_packed, packed_blocks(&g, p->dt), FD_CUDA_BLOCK,
                             a->handle->stream, g.act, g.total, a->x, a->out, a->alpha, a->beta,
                             act_exact(&g.act, a->alpha, a->beta));
        return CUDNN_STATUS_SUCCESS;
    }
    const unsigned blocks = fd_cuda_blocks(g.total, FD_CUDA_BLOCK);
    FD_CUDA_TYPED_LAUNCH(p->dt, act_fwd, blocks, FD_CUDA_BLOCK, a->handle->stream, g, a->x, a->out,
                         a->alpha, a->beta);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_act_bwd_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return act_applicable(problem, why, why_size);
}
extern "C" size_t fd_act_bwd_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_act_bwd_cuda_run(const void *problem, const void *args)
{
    const fd_act_problem_t *p = (const fd_act_problem_t *)problem;
    const fd_act_args_t *a = (const fd_act_args_t *)args;
    const int64_t *const strides[4] = {p->ys, p->dys, p->xs, p->dxs};
    const act_geom_t g = geom_of(p, strides, 4, 3);
    if (geom_packed(&g, 4) && fd_cuda_aligned16(a->y) && fd_cuda_aligned16(a->dy) &&
        fd_cuda_aligned16(a->x) && fd_cuda_aligned16(a->out)) {
        const int u = act_exact(&g.act, a->alpha, a->beta) ? act_lean_u() : 0;
        const unsigned lb = u > 0 ? act_lean_blocks(g.total, p->dt, u) : 0;
        if (lb > 0)
            return u == 1 ? act_bwd_lean_go<1>(p->dt, lb, a->handle->stream, g.act, g.total, a->dy,
                                               a->x, a->out)
                          : act_bwd_lean_go<2>(p->dt, lb, a->handle->stream, g.act, g.total, a->dy,
                                               a->x, a->out);
        FD_CUDA_TYPED_LAUNCH(p->dt, act_bwd_packed, packed_blocks(&g, p->dt), FD_CUDA_BLOCK,
                             a->handle->stream, g.act, g.total, a->y, a->dy, a->x, a->out,
                             a->alpha, a->beta, act_exact(&g.act, a->alpha, a->beta));
        return CUDNN_STATUS_SUCCESS;
    }
    const unsigned blocks = fd_cuda_blocks(g.total, FD_CUDA_BLOCK);
    FD_CUDA_TYPED_LAUNCH(p->dt, act_bwd, blocks, FD_CUDA_BLOCK, a->handle->stream, g, a->y, a->dy,
                         a->x, a->out, a->alpha, a->beta);
    return CUDNN_STATUS_SUCCESS;
}
