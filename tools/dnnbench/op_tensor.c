/* SPDX-License-Identifier: MIT */
/*
 * op_tensor.c - dnnbench's elementwise tensor calls, forward only: cudnnAddTensor
 * (op=add_tensor: C = A + C, A a 1xCx1x1 bias by default), cudnnOpTensor (op=add, mul, min,
 * max: C = op(A, B), B full-size by default), cudnnTransformTensor (op=transform: C = A in
 * the other layout: --layout=nchw reads NCHW and writes NHWC, nhwc the reverse) and
 * cudnnReduceTensor (op=reduce: C = the reduction rop=add|mul|min|max|amax|avg|norm1|norm2|
 * mul_no_zeros (add by default) of A over the dims that C does not keep: keep=c, the default,
 * a 1xCx1x1 C (per-channel sums, as batch norm's statistics), keep=nhw an Nx1xHxW C (over the
 * channels); no indices, compute type FLOAT (DOUBLE for f64 data), the workspace the library
 * asks for), through memop.c.
 *
 * Problem: "n2c16h28w28 op=add_tensor" with bcast=c (the broadcast operand - A of AddTensor, B
 * of OpTensor - is 1xCx1x1) or bcast=none (full size). OpTensor's compute type is FLOAT
 * (DOUBLE for f64 data), as cuDNN's table asks.
 */
#include <string.h>

#include "memop.h"

typedef struct tensor_shape {
    int64_t n, c, h, w;
    int op;    /* index of op_names */
    int bcast; /* 1: the broadcast operand is 1xCx1x1 */
    int rop;   /* op=reduce: a cudnnReduceTensorOp_t (the index of rop_names) */
    int keep;  /* op=reduce: 0 keep=c (1xCx1x1), 1 keep=nhw (Nx1xHxW) */
} tensor_shape_t;
_Static_assert(sizeof(tensor_shape_t) <= DNB_PROBLEM_BYTES, "fits a dnb_problem_t");

static const char *const tensor_dirs[] = {"fwd", NULL};
enum { OP_ADD_TENSOR, OP_ADD, OP_MUL, OP_MIN, OP_MAX, OP_TRANSFORM, OP_REDUCE };
static const char *const op_names[] = {"add_tensor", "add",       "mul",    "min",
                                       "max",        "transform", "reduce", NULL};
static const cudnnOpTensorOp_t op_enum[] = {CUDNN_OP_TENSOR_ADD, CUDNN_OP_TENSOR_ADD,
                                            CUDNN_OP_TENSOR_MUL, CUDNN_OP_TENSOR_MIN,
                                            CUDNN_OP_TENSOR_MAX, CUDNN_OP_TENSOR_ADD /* unused */,
                                            CUDNN_OP_TENSOR_ADD /* unused */};
/* cudnnReduceTensorOp_t's values in order (ADD = 0 .. MUL_NO_ZEROS = 8) */
static const char *const rop_names[] = {"add", "mul",   "min",   "max",          "amax",
                                        "avg", "norm1", "norm2", "mul_no_zeros", NULL};
static const char *const keep_names[] = {"c", "nhw", NULL};
_Static_assert(sizeof op_enum / sizeof op_enum[0] == sizeof op_names / sizeof op_names[0] - 1,
               "one enum per op name");
static const char *const bcast_names[] = {"none", "c", NULL};

static const tensor_shape_t *shape_of(const dnb_problem_t *p)
{
    return (const tensor_shape_t *)(const void *)p->data;
}

static int64_t count_of(const tensor_shape_t *s)
{
    return s->n * s->c * s->h * s->w;
}

/* op=reduce: the elements of C */
static int64_t reduced_count(const tensor_shape_t *s)
{
    return s->keep ? s->n * s->h * s->w : s->c;
}

static int default_bcast(int op)
{
    return op == OP_ADD_TENSOR;
}

/* ---- problem text ------------------------------------------------------------------------ */

typedef struct tensor_parse {
    tensor_shape_t *s;
    int bcast_given;
} tensor_parse_t;

static int tensor_field(void *ctx, const char *key, const char *value, char *err, size_t err_size)
{
    tensor_parse_t *a = ctx;
    if (strcmp(key, "op") == 0)
        return dnb_field_enum(key, value, op_names, &a->s->op, err, err_size);
    if (strcmp(key, "bcast") == 0) {
        a->bcast_given = 1;
        return dnb_field_enum(key, value, bcast_names, &a->s->bcast, err, err_size);
    }
    if (strcmp(key, "rop") == 0)
        return dnb_field_enum(key, value, rop_names, &a->s->rop, err, err_size);
    if (strcmp(key, "keep") == 0)
        return dnb_field_enum(key, value, keep_names, &a->s->keep, err, err_size);
    snprintf(err, err_size, "unknown field '%s' (known: op bcast rop keep)", key);
    return -1;
}

static int tensor_parse(const char *text, dnb_problem_t *p, char *err, size_t err_size)
{
    tensor_shape_t *s = (tensor_shape_t *)(void *)p->data;
    memset(s, 0, sizeof *s);
    tensor_parse_t a = {s, 0};
    int64_t d[4];
    if (dnb_parse_nchw(text, d, tensor_field, &a, err, err_size))
        return -1;
    s->n = d[0], s->c = d[1], s->h = d[2], s->w = d[3];
    if (!a.bcast_given)
        s->bcast = default_bcast(s->op);
    if ((s->op == OP_TRANSFORM || s->op == OP_REDUCE) && s->bcast) {
        snprintf(err, err_size, "op=%s takes no broadcast (bcast=c given)", op_names[s->op]);
        return -1;
    }
    if (s->op != OP_REDUCE && (s->rop != 0 || s->keep != 0)) {
        snprintf(err, err_size, "rop= and keep= belong to op=reduce (op=%s given)",
                 op_names[s->op]);
        return -1;
    }
    return 0;
}

static void tensor_set_batch(dnb_problem_t *p, int64_t n)
{
    ((tensor_shape_t *)(void *)p->data)->n = n;
}

static void tensor_format(const dnb_problem_t *p, char *buf, size_t size)
{
    const tensor_shape_t *s = shape_of(p);
    char bc[48] = "";
    if (s->bcast != default_bcast(s->op))
        snprintf(bc, sizeof bc, " bcast=%s", bcast_names[s->bcast]);
    else if (s->op == OP_REDUCE)
        snprintf(bc, sizeof bc, " rop=%s keep=%s", rop_names[s->rop], keep_names[s->keep]);
    snprintf(buf, size, "n%lldc%lldh%lldw%lld op=%s%s", (long long)s->n, (long long)s->c,
             (long long)s->h, (long long)s->w, op_names[s->op], bc);
}

static double tensor_flop(const dnb_problem_t *p, int dir)
{
    (void)dir;
    return (double)count_of(shape_of(p));
}

static int tensor_option(const char *arg, char *err, size_t err_size)
{
    (void)arg, (void)err, (void)err_size;
    return 0;
}

/* ---- the call ------------------------------------------------------------------------------ */

/* Tensors: AddTensor A, C (in-out); OpTensor A, B, C. */
enum { T_A, T_C_ADD };
enum { T_B = 1, T_C_OP };

static void tensor_spec(const dnb_problem_t *p, int dir, dnb_mspec_t *sp)
{
    (void)dir;
    const tensor_shape_t *s = shape_of(p);
    const int64_t n = count_of(s), nb = s->bcast ? s->c : n;
    sp->derive_dir = -1;
    sp->abs_oracle = 1; /* linear (add, mul) or selecting (min, max) */
    if (s->op == OP_REDUCE) { /* A in, C out (the kept dims) */
        sp->t[dnb_mspec_add(sp, "A", DNB_MT_IN, n)].linear = 1;
        sp->primary = dnb_mspec_add(sp, "C", DNB_MT_OUT, reduced_count(s));
        return;
    }
    if (s->op == OP_TRANSFORM) { /* A in, C out (the layout differs, the count does not) */
        sp->t[dnb_mspec_add(sp, "A", DNB_MT_IN, n)].linear = 1;
        sp->primary = dnb_mspec_add(sp, "C", DNB_MT_OUT, n);
        return;
    }
    if (s->op == OP_ADD_TENSOR) {
        sp->t[dnb_mspec_add(sp, "A", DNB_MT_IN, nb)].linear = 1;
        sp->primary = dnb_mspec_add(sp, "C", DNB_MT_INOUT, n);
        sp->t[sp->primary].linear = 1;
        return;
    }
    sp->t[dnb_mspec_add(sp, "A", DNB_MT_IN, n)].linear = 1;
    sp->t[dnb_mspec_add(sp, "B", DNB_MT_IN, nb)].linear = 1;
    sp->primary = dnb_mspec_add(sp, "C", DNB_MT_OUT, n);
}

typedef struct tensor_side {
    cudnnTensorDescriptor_t cd, bd; /* full, and the broadcast operand's (op=reduce: C's) */
    cudnnOpTensorDescriptor_t od;
    cudnnReduceTensorDescriptor_t rd;
    void *ws; /* op=reduce: the workspace the library asked for */
    size_t ws_bytes;
} tensor_side_t;
_Static_assert(sizeof(tensor_side_t) <= sizeof(((dnb_mside_t *)0)->priv), "fits priv");

static const char *tensor_missing(const dnb_lib_t *l, const dnb_problem_t *p, int dir)
{
    (void)dir;
#define NEED(f)                                                                                    \
    if (l->f == NULL)                                                                              \
        return #f;
    NEED(cudnnCreateTensorDescriptor)
    NEED(cudnnDestroyTensorDescriptor)
    NEED(cudnnSetTensor4dDescriptor)
    if (shape_of(p)->op == OP_ADD_TENSOR) {
        NEED(cudnnAddTensor)
    } else if (shape_of(p)->op == OP_TRANSFORM) {
        NEED(cudnnTransformTensor)
    } else if (shape_of(p)->op == OP_REDUCE) {
        NEED(cudnnCreateReduceTensorDescriptor)
        NEED(cudnnDestroyReduceTensorDescriptor)
        NEED(cudnnSetReduceTensorDescriptor)
        NEED(cudnnGetReductionWorkspaceSize)
        NEED(cudnnReduceTensor)
    } else {
        NEED(cudnnCreateOpTensorDescriptor)
        NEED(cudnnDestroyOpTensorDescriptor)
        NEED(cudnnSetOpTensorDescriptor)
        NEED(cudnnOpTensor)
    }
#undef NEED
    return NULL;
}

static cudnnStatus_t tensor_setup(dnb_mside_t *sd, const char **what)
{
    tensor_side_t *ts = (tensor_side_t *)(void *)sd->priv;
    const tensor_shape_t *s = shape_of(sd->p);
    cudnnStatus_t st;
    *what = "cudnnSetTensor4dDescriptor(C)";
    if ((st = dnb_mside_tensor(sd, &ts->cd, s->n, s->c, s->h, s->w)))
        return st;
    if (s->op == OP_TRANSFORM) { /* bd: C, in the other layout */
        *what = "cudnnSetTensor4dDescriptor(C, the other layout)";
        if ((st = sd->lib->cudnnCreateTensorDescriptor(&ts->bd))) {
            ts->bd = NULL;
            return st;
        }
        return sd->lib->cudnnSetTensor4dDescriptor(
            ts->bd, sd->nhwc ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC, sd->dt, (int)s->n,
            (int)s->c, (int)s->h, (int)s->w);
    }
    if (s->op == OP_REDUCE) {
        *what = "cudnnSetTensor4dDescriptor(C, the kept dims)";
        if ((st = s->keep ? dnb_mside_tensor(sd, &ts->bd, s->n, 1, s->h, s->w)
                          : dnb_mside_tensor(sd, &ts->bd, 1, s->c, 1, 1)))
            return st;
        *what = "cudnnCreateReduceTensorDescriptor";
        if ((st = sd->lib->cudnnCreateReduceTensorDescriptor(&ts->rd))) {
            ts->rd = NULL;
            return st;
        }
        *what = "cudnnSetReduceTensorDescriptor";
        if ((st = sd->lib->cudnnSetReduceTensorDescriptor(
                 ts->rd, (cudnnReduceTensorOp_t)s->rop, dnb_param_dt(sd->dt),
                 CUDNN_NOT_PROPAGATE_NAN, CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES)))
            return st;
        *what = "cudnnGetReductionWorkspaceSize";
        if ((st = sd->lib->cudnnGetReductionWorkspaceSize(sd->h, ts->rd, ts->cd, ts->bd,
                                                          &ts->ws_bytes)))
            return st;
        *what = "allocating the reduction's workspace";
        ts->ws = dnb_mside_scratch(sd, ts->ws_bytes);
        return ts->ws != NULL ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_ALLOC_FAILED;
    }
    *what = "cudnnSetTensor4dDescriptor(the broadcast operand)";
    if ((st = s->bcast ? dnb_mside_tensor(sd, &ts->bd, 1, s->c, 1, 1)
                       : dnb_mside_tensor(sd, &ts->bd, s->n, s->c, s->h, s->w)))
        return st;
    if (s->op == OP_ADD_TENSOR)
        return CUDNN_STATUS_SUCCESS;
    *what = "cudnnCreateOpTensorDescriptor";
    if ((st = sd->lib->cudnnCreateOpTensorDescriptor(&ts->od))) {
        ts->od = NULL;
        return st;
    }
    *what = "cudnnSetOpTensorDescriptor";
    return sd->lib->cudnnSetOpTensorDescriptor(ts->od, op_enum[s->op], dnb_param_dt(sd->dt),
                                               CUDNN_NOT_PROPAGATE_NAN);
}

static void tensor_release(dnb_mside_t *sd)
{
    tensor_side_t *ts = (tensor_side_t *)(void *)sd->priv;
    dnb_mside_tensor_release(sd, &ts->cd);
    dnb_mside_tensor_release(sd, &ts->bd);
    if (ts->od)
        sd->lib->cudnnDestroyOpTensorDescriptor(ts->od);
    ts->od = NULL;
    if (ts->rd)
        sd->lib->cudnnDestroyReduceTensorDescriptor(ts->rd);
    ts->rd = NULL;
    dnb_mside_scratch_free(sd, ts->ws);
    ts->ws = NULL;
}

static cudnnStatus_t tensor_call(const dnb_mside_t *sd, void *const *b)
{
    const tensor_side_t *ts = (const tensor_side_t *)(const void *)sd->priv;
    const void *one = dnb_one(sd->dt), *zero = dnb_zero(sd->dt);
    if (shape_of(sd->p)->op == OP_ADD_TENSOR) /* C = A + C: a bias added to an activation */
        return sd->lib->cudnnAddTensor(sd->h, one, ts->bd, b[T_A], one, ts->cd, b[T_C_ADD]);
    if (shape_of(sd->p)->op == OP_TRANSFORM) /* C (other layout) = A */
        return sd->lib->cudnnTransformTensor(sd->h, one, ts->cd, b[T_A], zero, ts->bd, b[T_C_ADD]);
    if (shape_of(sd->p)->op == OP_REDUCE) /* C (the kept dims) = the reduction of A */
        return sd->lib->cudnnReduceTensor(sd->h, ts->rd, NULL, 0, ts->ws, ts->ws_bytes, one, ts->cd,
                                          b[T_A], zero, ts->bd, b[T_C_ADD]);
    return sd->lib->cudnnOpTensor(sd->h, ts->od, one, ts->cd, b[T_A], one, ts->bd, b[T_B], zero,
                                  ts->cd, b[T_C_OP]);
}

/* S is the oracle on |A|, |B| (|C|): one operation per element, K = 1; min and max select an
 * operand (exact), and with integer fills every result is exact. op=reduce: K = the slice's
 * length (a sum, a product, or a norm's sum of squares), MIN / MAX / AMAX select (exact). */
static void tensor_tolerance(const dnb_mtol_args_t *a, int t, double *S, dnb_tol_t *tol)
{
    (void)t, (void)S;
    const tensor_shape_t *s = shape_of(a->p);
    const int op = s->op;
    if (op == OP_REDUCE) {
        const cudnnReduceTensorOp_t r = (cudnnReduceTensorOp_t)s->rop;
        tol->k = count_of(s) / (reduced_count(s) > 0 ? reduced_count(s) : 1);
        tol->exact = r == CUDNN_REDUCE_TENSOR_MIN || r == CUDNN_REDUCE_TENSOR_MAX ||
                     r == CUDNN_REDUCE_TENSOR_AMAX;
        return;
    }
    tol->k = 1;
    tol->exact = op == OP_MIN || op == OP_MAX || op == OP_TRANSFORM || !a->fill_real;
}

static const char *const tensor_impl_ops[] = {"FD_OP_TENSOR_ADD",
                                              "fwd",
                                              "FD_OP_TENSOR_OP",
                                              "fwd",
                                              "FD_OP_TENSOR_TRANSFORM",
                                              "fwd",
                                              "FD_OP_TENSOR_REDUCE",
                                              "fwd",
                                              NULL};

static const dnb_memop_t tensor_memop = {
    .spec = tensor_spec,
    .missing = tensor_missing,
    .setup = tensor_setup,
    .release = tensor_release,
    .call = tensor_call,
    .tolerance = tensor_tolerance,
    .impl_ops = tensor_impl_ops,
};

static void tensor_run(const dnb_ctx_t *ctx, const dnb_problem_t *p, int dir, dnb_row_t *row)
{
    dnb_memop_run(&tensor_memop, ctx, p, dir, row);
}

static double tensor_bytes(const dnb_problem_t *p, int dir, const dnb_dt_t *dt)
{
    return dnb_memop_bytes(&tensor_memop, p, dir, dt);
}

static int tensor_impl(const char *name, dnb_opts_t *o, char *err, size_t err_size)
{
    return dnb_memop_impl(&tensor_memop, &dnb_op_tensor, name, o, err, err_size);
}

const dnb_op_t dnb_op_tensor = {
    .name = "tensor",
    .dirs = tensor_dirs,
    .parse = tensor_parse,
    .set_batch = tensor_set_batch,
    .format = tensor_format,
    .flop = tensor_flop,
    .bytes = tensor_bytes,
    .option = tensor_option,
    .impl = tensor_impl,
    .run = tensor_run,
};
