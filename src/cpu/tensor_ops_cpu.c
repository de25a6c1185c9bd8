/* SPDX-License-Identifier: MIT */
/*
 * tensor_ops_cpu.c - cpu rows of the elementwise tensor utilities: cudnnAddTensor,
 * cudnnOpTensor, cudnnSetTensor, cudnnScaleTensor, and cudnnTransformTensor when it is a plain
 * copy (no fold, no padding: a layout change such as NCHW <-> NHWC, with alpha / beta).
 *
 * Everything goes through memop.h's strided engine: broadcast operands get stride 0 along the
 * dims where they are 1, so a bias add is a row with increment 0 and a packed tensor is one
 * long row. Values are the ref's bit for bit (double arithmetic in the ref's order, one
 * rounding). Declined (the ref row serves them): integer and vectorised int8 types, folds and
 * paddings of the transform, negative strides. No workspace; thread-count independent.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3,fp-contract=off")
#endif
#include "../core/tensor_ops.h"
#include "memop.h"

static int view_ok(const fd_tview_t *v, char *why, size_t why_size)
{
    if (v->vect > 1 || !fd_cpu_dtype_ok(v->dtype)) {
        snprintf(why, why_size, "%s%s stays with ref", fd_dtype_name(v->dtype),
                 v->vect > 1 ? " (vectorised layout)" : "");
        return 0;
    }
    return 1;
}

/* Strides of v over out's dims, 0 where v broadcasts (its dim is 1). */
static void bcast_strides(const fd_tview_t *v, const fd_tview_t *out, int64_t *s)
{
    for (int d = 0; d < out->nb_dims; d++)
        s[d] = v->dim[d] == 1 ? 0 : v->stride[d];
}

typedef struct {
    cudnnDataType_t dt[3];
    double alpha, alpha2, beta;
    cudnnOpTensorOp_t op;
    int propagate;
    double value;
} ew_ctx_t;

/* ---- AddTensor / plain TransformTensor: out = alpha * in + beta * out -------------------- */

static void copy_run(const void *ctx, int len, char *const *ptr, const int64_t *inc)
{
    const ew_ctx_t *c = ctx;
    double v[FD_CPU_BLK];
    fd_cpu_load(c->dt[1], ptr[1], inc[1], len, v);
    fd_cpu_store(c->dt[0], ptr[0], inc[0], len, v, c->alpha, c->beta);
}

static int add_plan(const fd_tensor_add_problem_t *p, fd_cpu_ew_t *e, char *why, size_t why_size)
{
    if (!view_ok(&p->a, why, why_size) || !view_ok(&p->c, why, why_size))
        return 0;
    int64_t as[FD_DIM_MAX];
    bcast_strides(&p->a, &p->c, as);
    const int64_t *st[2] = {p->c.stride, as};
    const cudnnDataType_t dts[2] = {p->c.dtype, p->a.dtype};
    return fd_cpu_ew_plan(e, p->c.nb_dims, p->c.dim, 2, st, dts, why, why_size);
}

int fd_tensor_add_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    fd_cpu_ew_t e = {0};
    return add_plan(problem, &e, why, why_size);
}

size_t fd_tensor_add_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_tensor_add_cpu_run(const void *problem, const void *args)
{
    const fd_tensor_add_problem_t *p = problem;
    const fd_tensor_add_args_t *a = args;
    fd_cpu_ew_t e = {0};
    char why[128];
    add_plan(p, &e, why, sizeof why);
    ew_ctx_t c = {{p->c.dtype, p->a.dtype, p->a.dtype}, a->alpha, 0.0, a->beta, 0, 0, 0.0};
    char *base[2] = {(char *)a->c, (char *)a->a};
    fd_cpu_ew_run(&e, base, copy_run, &c);
    return CUDNN_STATUS_SUCCESS;
}

static int transform_plan(const fd_tensor_transform_problem_t *p, fd_cpu_ew_t *e, char *why,
                          size_t why_size)
{
    if (!view_ok(&p->x, why, why_size) || !view_ok(&p->y, why, why_size))
        return 0;
    if (p->kind != FD_XFORM_FOLD || p->x.nb_dims != p->y.nb_dims) {
        snprintf(why, why_size, "unfold stays with ref");
        return 0;
    }
    for (int d = 0; d < p->y.nb_dims; d++)
        if (p->fold[d] != 1 || p->pad_before[d] != 0 || p->x.dim[d] != p->y.dim[d]) {
            snprintf(why, why_size, "folding / padding stays with ref");
            return 0;
        }
    const int64_t *st[2] = {p->y.stride, p->x.stride};
    const cudnnDataType_t dts[2] = {p->y.dtype, p->x.dtype};
    return fd_cpu_ew_plan(e, p->y.nb_dims, p->y.dim, 2, st, dts, why, why_size);
}

int fd_tensor_transform_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    fd_cpu_ew_t e = {0};
    return transform_plan(problem, &e, why, why_size);
}

size_t fd_tensor_transform_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_tensor_transform_cpu_run(const void *problem, const void *args)
{
    const fd_tensor_transform_problem_t *p = problem;
    const fd_tensor_transform_args_t *a = args;
    fd_cpu_ew_t e = {0};
    char why[128];
    transform_plan(p, &e, why, sizeof why);
    ew_ctx_t c = {{p->y.dtype, p->x.dtype, p->x.dtype}, a->alpha, 0.0, a->beta, 0, 0, 0.0};
    char *base[2] = {(char *)a->y, (char *)a->x};
    fd_cpu_ew_run(&e, base, copy_run, &c);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- OpTensor: c = op(alpha1 a, alpha2 b) + beta c ---------------------------------------- */

FD_CPU_CLONES static void op_block(const ew_ctx_t *c, int n, const double *restrict x,
                                   const double *restrict y, double *restrict r)
{
    const double a1 = c->alpha, a2 = c->alpha2;
    switch (c->op) {
    case CUDNN_OP_TENSOR_ADD:
        for (int i = 0; i < n; i++)
            r[i] = a1 * x[i] + a2 * y[i];
        break;
    case CUDNN_OP_TENSOR_MUL:
        for (int i = 0; i < n; i++)
            r[i] = (a1 * x[i]) * (a2 * y[i]);
        break;
    case CUDNN_OP_TENSOR_MIN:
    case CUDNN_OP_TENSOR_MAX: {
        const int is_max = c->op == CUDNN_OP_TENSOR_MAX, prop = c->propagate;
        for (int i = 0; i < n; i++) {
            double u = a1 * x[i], w = a2 * y[i];
            double m = is_max ? (u > w ? u : w) : (u < w ? u : w);
            int nu = isnan(u), nw = isnan(w);
            /* the ref's op_min_max: NOT_PROPAGATE drops a single NaN operand */
            double alt = (prop || (nu && nw)) ? NAN : (nu ? w : u);
            r[i] = (nu || nw) ? alt : m;
        }
        break;
    }
    case CUDNN_OP_TENSOR_SQRT:
        for (int i = 0; i < n; i++)
            r[i] = sqrt(a1 * x[i]);
        break;
    default: /* NOT */
        for (int i = 0; i < n; i++)
            r[i] = 1.0 - a1 * x[i];
        break;
    }
}

static int is_unary(cudnnOpTensorOp_t op)
{
    return op == CUDNN_OP_TENSOR_SQRT || op == CUDNN_OP_TENSOR_NOT;
}

static void op_run(const void *ctx, int len, char *const *ptr, const int64_t *inc)
{
    const ew_ctx_t *c = ctx;
    double x[FD_CPU_BLK], y[FD_CPU_BLK], r[FD_CPU_BLK];
    fd_cpu_load(c->dt[1], ptr[1], inc[1], len, x);
    if (!is_unary(c->op))
        fd_cpu_load(c->dt[2], ptr[2], inc[2], len, y);
    else
        memset(y, 0, (size_t)len * sizeof *y);
    op_block(c, len, x, y, r);
    fd_cpu_store(c->dt[0], ptr[0], inc[0], len, r, 1.0, c->beta);
}

static int op_plan(const fd_tensor_op_problem_t *p, fd_cpu_ew_t *e, char *why, size_t why_size)
{
    if (!view_ok(&p->a, why, why_size) || !view_ok(&p->c, why, why_size) ||
        (!is_unary(p->op) && !view_ok(&p->b, why, why_size)))
        return 0;
    int64_t bs[FD_DIM_MAX];
    if (is_unary(p->op))
        for (int d = 0; d < p->c.nb_dims; d++)
            bs[d] = 0; /* never read */
    else
        bcast_strides(&p->b, &p->c, bs);
    const int64_t *st[3] = {p->c.stride, p->a.stride, bs};
    const cudnnDataType_t dts[3] = {p->c.dtype, p->a.dtype, is_unary(p->op) ? p->a.dtype : p->b.dtype};
    return fd_cpu_ew_plan(e, p->c.nb_dims, p->c.dim, 3, st, dts, why, why_size);
}

int fd_tensor_op_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    fd_cpu_ew_t e = {0};
    return op_plan(problem, &e, why, why_size);
}

size_t fd_tensor_op_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_tensor_op_cpu_run(const void *problem, const void *args)
{
    const fd_tensor_op_problem_t *p = problem;
    const fd_tensor_op_args_t *a = args;
    fd_cpu_ew_t e = {0};
    char why[128];
    op_plan(p, &e, why, sizeof why);
    ew_ctx_t c = {{p->c.dtype, p->a.dtype, is_unary(p->op) ? p->a.dtype : p->b.dtype},
                  a->alpha1, a->alpha2, a->beta, p->op, p->nan == CUDNN_PROPAGATE_NAN, 0.0};
    char *base[3] = {(char *)a->c, (char *)a->a, (char *)(is_unary(p->op) ? a->a : a->b)};
    fd_cpu_ew_run(&e, base, op_run, &c);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- SetTensor / ScaleTensor ------------------------------------------------------------- */

static void set_run(const void *ctx, int len, char *const *ptr, const int64_t *inc)
{
    const ew_ctx_t *c = ctx;
    double v[FD_CPU_BLK];
    for (int i = 0; i < len; i++)
        v[i] = c->value;
    fd_cpu_store(c->dt[0], ptr[0], inc[0], len, v, 1.0, 0.0); /* 1 * value: exact, as fd_store */
}

static void scale_run(const void *ctx, int len, char *const *ptr, const int64_t *inc)
{
    const ew_ctx_t *c = ctx;
    double v[FD_CPU_BLK];
    fd_cpu_load(c->dt[0], ptr[0], inc[0], len, v);
    fd_cpu_store(c->dt[0], ptr[0], inc[0], len, v, c->alpha, 0.0);
}

static int one_plan(const fd_tview_t *y, fd_cpu_ew_t *e, char *why, size_t why_size)
{
    if (!view_ok(y, why, why_size))
        return 0;
    const int64_t *st[1] = {y->stride};
    const cudnnDataType_t dts[1] = {y->dtype};
    return fd_cpu_ew_plan(e, y->nb_dims, y->dim, 1, st, dts, why, why_size);
}

int fd_tensor_set_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    fd_cpu_ew_t e = {0};
    return one_plan(&((const fd_tensor_set_problem_t *)problem)->y, &e, why, why_size);
}

size_t fd_tensor_set_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_tensor_set_cpu_run(const void *problem, const void *args)
{
    const fd_tensor_set_problem_t *p = problem;
    const fd_tensor_set_args_t *a = args;
    fd_cpu_ew_t e = {0};
    char why[128];
    one_plan(&p->y, &e, why, sizeof why);
    ew_ctx_t c = {{p->y.dtype, p->y.dtype, p->y.dtype}, 1.0, 0.0, 0.0, 0, 0, a->value};
    char *base[1] = {(char *)a->y};
    fd_cpu_ew_run(&e, base, set_run, &c);
    return CUDNN_STATUS_SUCCESS;
}

int fd_tensor_scale_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    fd_cpu_ew_t e = {0};
    return one_plan(&((const fd_tensor_scale_problem_t *)problem)->y, &e, why, why_size);
}

size_t fd_tensor_scale_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_tensor_scale_cpu_run(const void *problem, const void *args)
{
    const fd_tensor_scale_problem_t *p = problem;
    const fd_tensor_scale_args_t *a = args;
    fd_cpu_ew_t e = {0};
    char why[128];
    one_plan(&p->y, &e, why, sizeof why);
    ew_ctx_t c = {{p->y.dtype, p->y.dtype, p->y.dtype}, a->alpha, 0.0, 0.0, 0, 0, 0.0};
    char *base[1] = {(char *)a->y};
    fd_cpu_ew_run(&e, base, scale_run, &c);
    return CUDNN_STATUS_SUCCESS;
}
