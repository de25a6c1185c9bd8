/* SPDX-License-Identifier: MIT */
/*
 * tensor_ops.cu - the elementwise tensor utilities on the GPU: rows fd_tensor_add_cuda
 * (cudnnAddTensor, broadcasting), fd_tensor_op_cuda (cudnnOpTensor, every cudnnOpTensorOp_t and
 * NaN option), fd_tensor_set_cuda, fd_tensor_scale_cuda and fd_tensor_transform_cuda
 * (cudnnTransformTensor[Ex], cudnnTransformFilter, fold / unfold / pad, the byte copies of
 * cudnnReorderFilterAndBias), with src/ref/tensor_ops_ref.c's semantics.
 *
 * Each output element is computed in double from exact loads and rounded once, as the ref
 * does, so results are bit-identical to it. Operand types are read at run time (OpTensor's
 * INT8 inputs may feed a FLOAT output); the switch is uniform across a warp. The elementwise
 * kernels walk the output in its memory order (strided.cuh), so every layout coalesces its
 * writes; the transform gathers in y's row-major order and takes the vectorised INT8 lanes.
 * One thread per element in grid-stride loops, no workspace, deterministic.
 */
#include <stdio.h>

#include "strided.cuh"

extern "C" {
#include "../core/tensor_ops.h"
}

/* ---- kernels ---------------------------------------------------------------------------- */

/* c = alpha * a (broadcast) + beta * c */
static __global__ void tensor_add_kernel(const sd_nd_t w, cudnnDataType_t dt, const void *a,
                                         void *c, double alpha, double beta)
{
    SD_GRID_LOOP(e, w.total)
    {
        int64_t off[2];
        sd_nd_offsets<2>(w, e, off);
        sd_blend_dt(dt, c, off[0], alpha, beta, sd_ld_dt(dt, a, off[1]));
    }
}

static __device__ __forceinline__ double op_min_max(double x, double y, int is_max, int propagate)
{
    if (isnan(x) || isnan(y)) {
        if (propagate || (isnan(x) && isnan(y)))
            return (double)NAN;
        return isnan(x) ? y : x; /* NOT_PROPAGATE: NaN compares false and is dropped */
    }
    if (is_max)
        return x > y ? x : y;
    return x < y ? x : y;
}

/* c = op(alpha1 * a, alpha2 * b) + beta * c */
static __global__ void tensor_op_kernel(const sd_nd_t w, cudnnOpTensorOp_t op, int propagate,
                                        cudnnDataType_t adt, cudnnDataType_t cdt, const void *a,
                                        const void *b, void *c, double alpha1, double alpha2,
                                        double beta)
{
    const int unary = op == CUDNN_OP_TENSOR_SQRT || op == CUDNN_OP_TENSOR_NOT;
    SD_GRID_LOOP(e, w.total)
    {
        int64_t off[3]; /* c, a, b */
        sd_nd_offsets<3>(w, e, off);
        /* no FMA contraction: the ref's C rounds each product */
        const double x = __dmul_rn(alpha1, sd_ld_dt(adt, a, off[1]));
        const double y = unary ? 0.0 : __dmul_rn(alpha2, sd_ld_dt(adt, b, off[2]));
        double r;
        switch (op) {
        case CUDNN_OP_TENSOR_ADD:
            r = __dadd_rn(x, y);
            break;
        case CUDNN_OP_TENSOR_MUL:
            r = __dmul_rn(x, y);
            break;
        case CUDNN_OP_TENSOR_MIN:
            r = op_min_max(x, y, 0, propagate);
            break;
        case CUDNN_OP_TENSOR_MAX:
            r = op_min_max(x, y, 1, propagate);
            break;
        case CUDNN_OP_TENSOR_SQRT:
            r = sqrt(x);
            break;
        default: /* CUDNN_OP_TENSOR_NOT */
            r = __dsub_rn(1.0, x);
            break;
        }
        sd_blend_dt(cdt, c, off[0], 1.0, beta, r);
    }
}

static __global__ void tensor_set_kernel(const sd_nd_t w, cudnnDataType_t dt, void *y, double value)
{
    SD_GRID_LOOP(e, w.total)
    {
        int64_t off[1];
        sd_nd_offsets<1>(w, e, off);
        sd_st_dt(dt, y, off[0], value);
    }
}

static __global__ void tensor_scale_kernel(const sd_nd_t w, cudnnDataType_t dt, void *y, double alpha)
{
    SD_GRID_LOOP(e, w.total)
    {
        int64_t off[1];
        sd_nd_offsets<1>(w, e, off);
        sd_st_dt(dt, y, off[0], __dmul_rn(alpha, sd_ld_dt(dt, y, off[0])));
    }
}

/* fd_tview_offset on the device (the vectorised lanes of dim 1 included). */
static __device__ __forceinline__ int64_t view_offset(const fd_tview_t &v, const int64_t *idx)
{
    int64_t off = 0;
    for (int i = 0; i < v.nb_dims; i++) {
        if (v.vect > 1 && i == 1)
            off += (idx[i] / v.vect) * v.stride[i] + idx[i] % v.vect;
        else
            off += idx[i] * v.stride[i];
    }
    return off;
}

/* The ref's fold_source / unfold_source: x's index of y's element yi, 0 in the padding. */
static __device__ int fold_source(const fd_tensor_transform_problem_t &p, const int64_t *yi,
                                  int64_t *xi)
{
    const int nb = p.x.nb_dims;
    int64_t phases = 1;
    for (int i = 2; i < nb; i++)
        phases *= p.fold[i];
    xi[0] = yi[0] - p.pad_before[0];
    const int64_t cc = yi[1] - p.pad_before[1];
    if (xi[0] < 0 || xi[0] >= p.x.dim[0] || cc < 0 || cc >= phases * p.x.dim[1])
        return 0;
    int64_t phase = cc / p.x.dim[1];
    xi[1] = cc % p.x.dim[1];
    for (int i = nb - 1; i >= 2; i--) {
        const int64_t ph = phase % p.fold[i];
        phase /= p.fold[i];
        xi[i] = yi[i] * p.fold[i] + ph - p.pad_before[i];
        if (xi[i] < 0 || xi[i] >= p.x.dim[i])
            return 0;
    }
    return 1;
}

static __device__ int unfold_source(const fd_tensor_transform_problem_t &p, const int64_t *yi,
                                    int64_t *xi)
{
    const int nb = p.x.nb_dims;
    int64_t phase = 0;
    for (int i = 2; i < nb; i++) {
        const int64_t s = yi[i] + p.pad_before[i];
        xi[i] = s / p.fold[i];
        phase = phase * p.fold[i] + s % p.fold[i];
    }
    xi[0] = yi[0] + p.pad_before[0];
    xi[1] = p.pad_before[1] + phase * p.y.dim[1] + yi[1];
    for (int i = 0; i < nb; i++)
        if (xi[i] < 0 || xi[i] >= p.x.dim[i])
            return 0;
    return 1;
}

/* y[i] = alpha * x[map(i)] + beta * y[i], 0 where map falls outside x. */
static __global__ void tensor_transform_kernel(const fd_tensor_transform_problem_t p, int64_t total,
                                               const void *x, void *y, double alpha, double beta)
{
    SD_GRID_LOOP(e, total)
    {
        int64_t yi[FD_DIM_MAX], xi[FD_DIM_MAX];
        int64_t r = e;
        for (int i = p.y.nb_dims - 1; i >= 0; i--) {
            yi[i] = r % p.y.dim[i];
            r /= p.y.dim[i];
        }
        const int inside = p.kind == FD_XFORM_UNFOLD ? unfold_source(p, yi, xi) : fold_source(p, yi, xi);
        const double v = inside ? sd_ld_dt(p.x.dtype, x, view_offset(p.x, xi)) : 0.0;
        sd_blend_dt(p.y.dtype, y, view_offset(p.y, yi), alpha, beta, v);
    }
}

/* ---- host side -------------------------------------------------------------------------- */

/* The walker over c's dims; operand 0 is c, the others broadcast where their dim is 1. */
static void walker(sd_nd_t *w, const fd_tview_t *c, const fd_tview_t *const *ops, int nops)
{
    int64_t st[FD_ND_OPS][FD_DIM_MAX];
    const int64_t *sp[FD_ND_OPS];
    for (int o = 0; o < nops; o++) {
        const fd_tview_t *v = o == 0 ? c : ops[o - 1];
        for (int i = 0; i < c->nb_dims; i++)
            st[o][i] = v->dim[i] == 1 && c->dim[i] != 1 ? 0 : v->stride[i];
        sp[o] = st[o];
    }
    sd_nd_init(w, c->nb_dims, c->dim, nops, sp);
}

static int view_ok(const fd_tview_t *v, const char *name, char *why, size_t why_size)
{
    if (!sd_dtype_ok(v->dtype)) {
        snprintf(why, why_size, "%s is %s; the cuda tensor kernels take FLOAT, DOUBLE, HALF, "
                 "BFLOAT16, INT8, UINT8, INT32, INT64", name, fd_dtype_name(v->dtype));
        return 0;
    }
    if (v->vect != 1) {
        snprintf(why, why_size, "%s has %d-lane vectors; the elementwise kernels take plain layouts",
                 name, v->vect);
        return 0;
    }
    if (v->nb_dims < 1 || v->nb_dims > FD_ND_DIMS) {
        snprintf(why, why_size, "%s has %d dims", name, v->nb_dims);
        return 0;
    }
    return 1;
}

#define LAUNCHED(what, blocks, stream)                                                         \
    FD_CUDA_LAUNCHED("%s (%u blocks, stream %p)", what, (unsigned)(blocks), (void *)(stream))

/* ---- rows (src/impls.def) --------------------------------------------------------------- */

extern "C" int fd_tensor_add_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_tensor_add_problem_t *p = (const fd_tensor_add_problem_t *)problem;
    return view_ok(&p->a, "A", why, why_size) && view_ok(&p->c, "C", why, why_size);
}
extern "C" size_t fd_tensor_add_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_tensor_add_cuda_run(const void *problem, const void *args)
{
    const fd_tensor_add_problem_t *p = (const fd_tensor_add_problem_t *)problem;
    const fd_tensor_add_args_t *a = (const fd_tensor_add_args_t *)args;
    const fd_tview_t *ops[1] = {&p->a};
    sd_nd_t w;
    walker(&w, &p->c, ops, 2);
    const unsigned blocks = fd_cuda_blocks(w.total, FD_CUDA_BLOCK);
    cudaStream_t st = a->handle->stream;
    tensor_add_kernel<<<blocks, FD_CUDA_BLOCK, 0, st>>>(w, p->c.dtype, a->a, a->c, a->alpha, a->beta);
    LAUNCHED("tensor_add_kernel", blocks, st);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_tensor_op_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_tensor_op_problem_t *p = (const fd_tensor_op_problem_t *)problem;
    return view_ok(&p->a, "A", why, why_size) && view_ok(&p->b, "B", why, why_size) &&
           view_ok(&p->c, "C", why, why_size);
}
extern "C" size_t fd_tensor_op_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_tensor_op_cuda_run(const void *problem, const void *args)
{
    const fd_tensor_op_problem_t *p = (const fd_tensor_op_problem_t *)problem;
    const fd_tensor_op_args_t *a = (const fd_tensor_op_args_t *)args;
    const fd_tview_t *ops[2] = {&p->a, &p->b};
    sd_nd_t w;
    walker(&w, &p->c, ops, 3);
    const unsigned blocks = fd_cuda_blocks(w.total, FD_CUDA_BLOCK);
    cudaStream_t st = a->handle->stream;
    tensor_op_kernel<<<blocks, FD_CUDA_BLOCK, 0, st>>>(
        w, p->op, p->nan == CUDNN_PROPAGATE_NAN, p->a.dtype, p->c.dtype, a->a, a->b, a->c, a->alpha1,
        a->alpha2, a->beta);
    LAUNCHED("tensor_op_kernel", blocks, st);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_tensor_set_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return view_ok(&((const fd_tensor_set_problem_t *)problem)->y, "y", why, why_size);
}
extern "C" size_t fd_tensor_set_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_tensor_set_cuda_run(const void *problem, const void *args)
{
    const fd_tensor_set_problem_t *p = (const fd_tensor_set_problem_t *)problem;
    const fd_tensor_set_args_t *a = (const fd_tensor_set_args_t *)args;
    sd_nd_t w;
    walker(&w, &p->y, NULL, 1);
    const unsigned blocks = fd_cuda_blocks(w.total, FD_CUDA_BLOCK);
    cudaStream_t st = a->handle->stream;
    tensor_set_kernel<<<blocks, FD_CUDA_BLOCK, 0, st>>>(w, p->y.dtype, a->y, a->value);
    LAUNCHED("tensor_set_kernel", blocks, st);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_tensor_scale_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return view_ok(&((const fd_tensor_scale_problem_t *)problem)->y, "y", why, why_size);
}
extern "C" size_t fd_tensor_scale_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_tensor_scale_cuda_run(const void *problem, const void *args)
{
    const fd_tensor_scale_problem_t *p = (const fd_tensor_scale_problem_t *)problem;
    const fd_tensor_scale_args_t *a = (const fd_tensor_scale_args_t *)args;
    sd_nd_t w;
    walker(&w, &p->y, NULL, 1);
    const unsigned blocks = fd_cuda_blocks(w.total, FD_CUDA_BLOCK);
    cudaStream_t st = a->handle->stream;
    tensor_scale_kernel<<<blocks, FD_CUDA_BLOCK, 0, st>>>(w, p->y.dtype, a->y, a->alpha);
    LAUNCHED("tensor_scale_kernel", blocks, st);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_tensor_transform_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    const fd_tensor_transform_problem_t *p = (const fd_tensor_transform_problem_t *)problem;
    const fd_tview_t *v[2] = {&p->x, &p->y};
    for (int i = 0; i < 2; i++)
        if (!sd_dtype_ok(v[i]->dtype) || v[i]->nb_dims < 1 || v[i]->nb_dims > FD_DIM_MAX) {
            snprintf(why, why_size, "%s is %s with %d dims; the transform kernel takes FLOAT, "
                     "DOUBLE, HALF, BFLOAT16, INT8, UINT8, INT32, INT64 lanes, 1 to %d dims",
                     i ? "y" : "x", fd_dtype_name(v[i]->dtype), v[i]->nb_dims, FD_DIM_MAX);
            return 0;
        }
    return 1;
}
extern "C" size_t fd_tensor_transform_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_tensor_transform_cuda_run(const void *problem, const void *args)
{
    const fd_tensor_transform_problem_t *p = (const fd_tensor_transform_problem_t *)problem;
    const fd_tensor_transform_args_t *a = (const fd_tensor_transform_args_t *)args;
    int64_t total = 1;
    for (int i = 0; i < p->y.nb_dims; i++)
        total *= p->y.dim[i];
    const unsigned blocks = fd_cuda_blocks(total, FD_CUDA_BLOCK);
    cudaStream_t st = a->handle->stream;
    tensor_transform_kernel<<<blocks, FD_CUDA_BLOCK, 0, st>>>(*p, total, a->x, a->y, a->alpha, a->beta);
    LAUNCHED("tensor_transform_kernel", blocks, st);
    return CUDNN_STATUS_SUCCESS;
}
