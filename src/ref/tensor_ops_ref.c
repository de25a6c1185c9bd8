/* SPDX-License-Identifier: MIT */
/*
 * tensor_ops_ref.c - reference elementwise tensor ops and layout transforms: AddTensor,
 * OpTensor, SetTensor, ScaleTensor, TransformTensor[Ex] / TransformFilter (one gather for
 * plain copies, padding, folding and unfolding; also the byte copy of ReorderFilterAndBias).
 *
 * Each output element is computed in double from fd_load'ed inputs and rounded once by
 * fd_store (integers: nearest even, saturated). The loops walk logical indices through the
 * views' strides, so every layout (NCHW, NHWC, padded, permuted, NCHW_VECT_C lanes) goes the
 * same way. beta == 0 never reads the output. No workspace, no allocation; deterministic.
 */
#include <math.h>

#include "../core/tensor_ops.h"

/* out = alpha * v + beta * out; beta == 0 never reads out (it may hold NaN). */
static void blend_store(const fd_tview_t *v, void *base, int64_t off, double alpha, double beta,
                        double value)
{
    double r = alpha * value;
    if (beta != 0.0)
        r += beta * fd_load(v->dtype, base, off);
    fd_store(v->dtype, base, off, r);
}

static int always(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1; /* the API entries admit only what the reference computes */
}

static size_t no_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

/* ---- AddTensor ---------------------------------------------------------------------------- */

int fd_tensor_add_ref_applicable(const void *p, char *why, size_t why_size)
{
    return always(p, why, why_size);
}
size_t fd_tensor_add_ref_workspace(const void *p)
{
    return no_workspace(p);
}

cudnnStatus_t fd_tensor_add_ref_run(const void *problem, const void *args)
{
    const fd_tensor_add_problem_t *p = problem;
    const fd_tensor_add_args_t *a = args;
    int64_t ci[FD_DIM_MAX] = {0}, ai[FD_DIM_MAX] = {0};
    const int nb = p->c.nb_dims;
    do {
        for (int i = 0; i < nb; i++)
            ai[i] = p->a.dim[i] == 1 ? 0 : ci[i];
        double v = fd_load(p->a.dtype, a->a, fd_tview_offset(&p->a, ai));
        blend_store(&p->c, a->c, fd_tview_offset(&p->c, ci), a->alpha, a->beta, v);
    } while (fd_index_next(ci, p->c.dim, nb));
    return CUDNN_STATUS_SUCCESS;
}

/* ---- OpTensor ----------------------------------------------------------------------------- */

static double op_min_max(double x, double y, int is_max, cudnnNanPropagation_t nan)
{
    if (isnan(x) || isnan(y)) {
        if (nan == CUDNN_PROPAGATE_NAN || (isnan(x) && isnan(y)))
            return NAN;
        return isnan(x) ? y : x; /* NOT_PROPAGATE: NaN compares false and is dropped */
    }
    if (is_max)
        return x > y ? x : y;
    return x < y ? x : y;
}

int fd_tensor_op_ref_applicable(const void *p, char *why, size_t why_size)
{
    return always(p, why, why_size);
}
size_t fd_tensor_op_ref_workspace(const void *p)
{
    return no_workspace(p);
}

cudnnStatus_t fd_tensor_op_ref_run(const void *problem, const void *args)
{
    const fd_tensor_op_problem_t *p = problem;
    const fd_tensor_op_args_t *a = args;
    const int unary = p->op == CUDNN_OP_TENSOR_SQRT || p->op == CUDNN_OP_TENSOR_NOT;
    int64_t ci[FD_DIM_MAX] = {0}, bi[FD_DIM_MAX] = {0};
    const int nb = p->c.nb_dims;
    do {
        double x = a->alpha1 * fd_load(p->a.dtype, a->a, fd_tview_offset(&p->a, ci)), y = 0.0, r;
        if (!unary) {
            for (int i = 0; i < nb; i++)
                bi[i] = p->b.dim[i] == 1 ? 0 : ci[i];
            y = a->alpha2 * fd_load(p->b.dtype, a->b, fd_tview_offset(&p->b, bi));
        }
        switch (p->op) {
        case CUDNN_OP_TENSOR_ADD:
            r = x + y;
            break;
        case CUDNN_OP_TENSOR_MUL:
            r = x * y;
            break;
        case CUDNN_OP_TENSOR_MIN:
            r = op_min_max(x, y, 0, p->nan);
            break;
        case CUDNN_OP_TENSOR_MAX:
            r = op_min_max(x, y, 1, p->nan);
            break;
        case CUDNN_OP_TENSOR_SQRT:
            r = sqrt(x);
            break;
        default: /* CUDNN_OP_TENSOR_NOT */
            r = 1.0 - x;
            break;
        }
        blend_store(&p->c, a->c, fd_tview_offset(&p->c, ci), 1.0, a->beta, r);
    } while (fd_index_next(ci, p->c.dim, nb));
    return CUDNN_STATUS_SUCCESS;
}

/* ---- SetTensor / ScaleTensor --------------------------------------------------------------- */

int fd_tensor_set_ref_applicable(const void *p, char *why, size_t why_size)
{
    return always(p, why, why_size);
}
size_t fd_tensor_set_ref_workspace(const void *p)
{
    return no_workspace(p);
}

cudnnStatus_t fd_tensor_set_ref_run(const void *problem, const void *args)
{
    const fd_tensor_set_problem_t *p = problem;
    const fd_tensor_set_args_t *a = args;
    int64_t yi[FD_DIM_MAX] = {0};
    do
        fd_store(p->y.dtype, a->y, fd_tview_offset(&p->y, yi), a->value);
    while (fd_index_next(yi, p->y.dim, p->y.nb_dims));
    return CUDNN_STATUS_SUCCESS;
}

int fd_tensor_scale_ref_applicable(const void *p, char *why, size_t why_size)
{
    return always(p, why, why_size);
}
size_t fd_tensor_scale_ref_workspace(const void *p)
{
    return no_workspace(p);
}

cudnnStatus_t fd_tensor_scale_ref_run(const void *problem, const void *args)
{
    const fd_tensor_scale_problem_t *p = problem;
    const fd_tensor_scale_args_t *a = args;
    int64_t yi[FD_DIM_MAX] = {0};
    do {
        int64_t off = fd_tview_offset(&p->y, yi);
        fd_store(p->y.dtype, a->y, off, a->alpha * fd_load(p->y.dtype, a->y, off));
    } while (fd_index_next(yi, p->y.dim, p->y.nb_dims));
    return CUDNN_STATUS_SUCCESS;
}

/* ---- transforms ----------------------------------------------------------------------------- */

/* Index in x of y's element yi for a fold (plain copies and padding are folds by 1); 0 when
 * it falls in the padding. */
static int fold_source(const fd_tensor_transform_problem_t *p, const int64_t *yi, int64_t *xi)
{
    const fd_tview_t *x = &p->x;
    const int nb = x->nb_dims;
    int64_t phases = 1;
    for (int i = 2; i < nb; i++)
        phases *= p->fold[i];
    xi[0] = yi[0] - p->pad_before[0];
    int64_t cc = yi[1] - p->pad_before[1];
    if (xi[0] < 0 || xi[0] >= x->dim[0] || cc < 0 || cc >= phases * x->dim[1])
        return 0;
    int64_t phase = cc / x->dim[1];
    xi[1] = cc % x->dim[1];
    for (int i = nb - 1; i >= 2; i--) { /* the last spatial dim's phase varies fastest */
        int64_t ph = phase % p->fold[i];
        phase /= p->fold[i];
        xi[i] = yi[i] * p->fold[i] + ph - p->pad_before[i];
        if (xi[i] < 0 || xi[i] >= x->dim[i])
            return 0;
    }
    return 1;
}

/* Index in the folded x of the unfolded y's element yi. */
static int unfold_source(const fd_tensor_transform_problem_t *p, const int64_t *yi, int64_t *xi)
{
    const fd_tview_t *x = &p->x;
    const int nb = x->nb_dims;
    int64_t phase = 0;
    for (int i = 2; i < nb; i++) {
        int64_t s = yi[i] + p->pad_before[i];
        xi[i] = s / p->fold[i];
        phase = phase * p->fold[i] + s % p->fold[i];
    }
    xi[0] = yi[0] + p->pad_before[0];
    xi[1] = p->pad_before[1] + phase * p->y.dim[1] + yi[1];
    for (int i = 0; i < nb; i++)
        if (xi[i] < 0 || xi[i] >= x->dim[i])
            return 0;
    return 1;
}

int fd_tensor_transform_ref_applicable(const void *p, char *why, size_t why_size)
{
    return always(p, why, why_size);
}
size_t fd_tensor_transform_ref_workspace(const void *p)
{
    return no_workspace(p);
}

cudnnStatus_t fd_tensor_transform_ref_run(const void *problem, const void *args)
{
    const fd_tensor_transform_problem_t *p = problem;
    const fd_tensor_transform_args_t *a = args;
    int64_t yi[FD_DIM_MAX] = {0}, xi[FD_DIM_MAX] = {0};
    do {
        int inside = p->kind == FD_XFORM_UNFOLD ? unfold_source(p, yi, xi) : fold_source(p, yi, xi);
        double v = inside ? fd_load(p->x.dtype, a->x, fd_tview_offset(&p->x, xi)) : 0.0;
        blend_store(&p->y, a->y, fd_tview_offset(&p->y, yi), a->alpha, a->beta, v);
    } while (fd_index_next(yi, p->y.dim, p->y.nb_dims));
    return CUDNN_STATUS_SUCCESS;
}
