/* SPDX-License-Identifier: MIT */
/*
 * tensor_ops.c - elementwise tensor calls: cudnnAddTensor, the op-tensor descriptor family
 * and cudnnOpTensor, cudnnSetTensor, cudnnScaleTensor; plus the tensor views every tensor
 * utility (transform.c, reduce.c) builds its problem from.
 *
 * Rules (cuDNN's documentation where it speaks, else the decision named):
 * - AddTensor: A and C have the same rank and data type (BAD_PARAM otherwise); each dim of A
 *   is C's or 1 and A is broadcast along the 1s; any rank 2..8 (cuDNN stops at 5).
 * - OpTensor: A has C's dims, each dim of B is C's or 1; A and B share a type; (A/B, C,
 *   compute) must be a row of cuDNN's table (FLOAT compute for FLOAT, HALF, BFLOAT16, INT8
 *   data, DOUBLE only with DOUBLE) or NOT_SUPPORTED. C may be A (same layout); C may be B only
 *   if it is also A (documented); other overlaps are BAD_PARAM. SQRT and NOT are unary:
 *   C = sqrt(alpha1 A) + beta C and C = 1 - alpha1 A + beta C; B, bDesc, alpha2 unread.
 *   MIN/MAX with NOT_PROPAGATE_NAN return the other operand when one is NaN.
 * - SetTensor: *valuePtr is one value of y's own data type, as the cuDNN guide specifies
 *   (a half for HALF tensors, not the float of the scaling-parameter convention); integer
 *   tensors are NOT_SUPPORTED.
 * - Negative strides are NOT_SUPPORTED; an output whose strides overlap is BAD_PARAM (except
 *   for SetTensor, where writing one value twice is harmless).
 */
#include <stdlib.h>
#include <string.h>

#include "../core/op.h"
#include "../core/tensor_ops.h"

/* ---- views ----------------------------------------------------------------------------- */

cudnnDataType_t fd_scalar_dtype(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_INT8x4:
    case CUDNN_DATA_INT8x32:
        return CUDNN_DATA_INT8;
    case CUDNN_DATA_UINT8x4:
        return CUDNN_DATA_UINT8;
    default:
        return dt;
    }
}

int fd_dtype_is_float(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_DOUBLE || dt == CUDNN_DATA_HALF ||
           dt == CUDNN_DATA_BFLOAT16;
}

const char *fd_format_name(cudnnTensorFormat_t f)
{
    switch (f) {
    case CUDNN_TENSOR_NCHW:
        return "CUDNN_TENSOR_NCHW";
    case CUDNN_TENSOR_NHWC:
        return "CUDNN_TENSOR_NHWC";
    case CUDNN_TENSOR_NCHW_VECT_C:
        return "CUDNN_TENSOR_NCHW_VECT_C";
    default:
        return "invalid";
    }
}

int64_t fd_tview_elements(const fd_tview_t *v)
{
    int64_t n = 1;
    for (int i = 0; i < v->nb_dims; i++)
        n *= v->dim[i];
    return n;
}

void fd_tview_from_tensor(fd_tview_t *v, const struct cudnnTensorStruct *t)
{
    memset(v, 0, sizeof *v);
    v->vect = t->vect > 1 ? t->vect : 1;
    v->dtype = fd_scalar_dtype(t->dtype);
    v->nb_dims = t->nb_dims;
    for (int i = 0; i < t->nb_dims; i++) {
        v->dim[i] = t->dim[i];
        v->stride[i] = (int64_t)t->stride[i] * v->vect;
    }
}

void fd_tview_from_filter(fd_tview_t *v, const struct cudnnFilterStruct *f)
{
    memset(v, 0, sizeof *v);
    v->dtype = fd_scalar_dtype(f->dtype);
    v->nb_dims = f->nb_dims;
    for (int i = 0; i < f->nb_dims; i++)
        v->dim[i] = f->dim[i];
    if (f->format == CUDNN_TENSOR_NCHW_VECT_C) {
        /* K, C / vect, spatial..., vect lanes innermost */
        v->vect = f->dtype == CUDNN_DATA_INT8x32 ? 32 : 4;
        int64_t acc = v->vect;
        for (int i = f->nb_dims - 1; i >= 2; i--) {
            v->stride[i] = acc;
            acc *= f->dim[i];
        }
        v->stride[1] = acc;
        v->stride[0] = acc * (f->dim[1] / v->vect);
        return;
    }
    v->vect = 1;
    fd_filter_strides(f, v->stride);
}

/* Largest and smallest scalar offsets the view addresses. */
static void offset_range(const fd_tview_t *v, int64_t *lo, int64_t *hi)
{
    *lo = 0, *hi = 0;
    for (int i = 0; i < v->nb_dims; i++) {
        int64_t last = (v->vect > 1 && i == 1)
                           ? (v->dim[i] / v->vect - 1) * v->stride[i] + v->vect - 1
                           : (v->dim[i] - 1) * v->stride[i];
        if (last < 0)
            *lo += last;
        else
            *hi += last;
    }
}

void fd_tview_span(const fd_tview_t *v, const void *base, uintptr_t *lo, uintptr_t *hi)
{
    int64_t a, b;
    offset_range(v, &a, &b);
    int64_t es = (int64_t)fd_dtype_size(v->dtype);
    *lo = (uintptr_t)base + (uintptr_t)(a * es);
    *hi = (uintptr_t)base + (uintptr_t)((b + 1) * es - 1);
}

int fd_tview_same_layout(const fd_tview_t *a, const fd_tview_t *b)
{
    if (a->dtype != b->dtype || a->nb_dims != b->nb_dims || a->vect != b->vect)
        return 0;
    for (int i = 0; i < a->nb_dims; i++)
        if (a->dim[i] != b->dim[i] || a->stride[i] != b->stride[i])
            return 0;
    return 1;
}

int fd_tview_non_overlapping(const fd_tview_t *v)
{
    /* The lanes of a vectorised view are one more dim of stride 1. Sort the dims that have
     * more than one index by |stride|; each must step over the span of the smaller ones. */
    int64_t s[FD_DIM_MAX + 1], d[FD_DIM_MAX + 1];
    int n = 0;
    for (int i = 0; i < v->nb_dims; i++) {
        int64_t extent = (v->vect > 1 && i == 1) ? v->dim[i] / v->vect : v->dim[i];
        if (extent == 1)
            continue;
        s[n] = v->stride[i] < 0 ? -v->stride[i] : v->stride[i];
        d[n] = extent;
        n++;
    }
    if (v->vect > 1)
        s[n] = 1, d[n] = v->vect, n++;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && s[j] < s[j - 1]; j--) {
            int64_t ts = s[j], td = d[j];
            s[j] = s[j - 1], d[j] = d[j - 1];
            s[j - 1] = ts, d[j - 1] = td;
        }
    int64_t span = 1;
    for (int i = 0; i < n; i++) {
        if (s[i] < span)
            return 0;
        span = s[i] * d[i];
    }
    return 1;
}

/* 1 when the byte ranges of two views overlap. */
static int views_overlap(const fd_tview_t *a, const void *pa, const fd_tview_t *b, const void *pb)
{
    uintptr_t a0, a1, b0, b1;
    fd_tview_span(a, pa, &a0, &a1);
    fd_tview_span(b, pb, &b0, &b1);
    return a0 <= b1 && b0 <= a1;
}

static cudnnStatus_t no_negative_strides(cudnnTensorDescriptor_t t, const char *name)
{
    FD_CHECK(!fd_tensor_has_negative_stride(t), CUDNN_STATUS_NOT_SUPPORTED,
             "%s has a negative stride; tensor operations do not take them", name);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t same_rank(cudnnTensorDescriptor_t a, const char *an, cudnnTensorDescriptor_t c,
                               const char *cn)
{
    FD_CHECK(a->nb_dims == c->nb_dims, CUDNN_STATUS_BAD_PARAM, "%s has %d dims but %s has %d", an,
             a->nb_dims, cn, c->nb_dims);
    return CUDNN_STATUS_SUCCESS;
}

/* Each dim of `a` equals c's (or, when `broadcast`, is 1). */
static cudnnStatus_t dims_fit(cudnnTensorDescriptor_t a, const char *an, cudnnTensorDescriptor_t c,
                              const char *cn, int broadcast)
{
    FD_TRY(same_rank(a, an, c, cn));
    for (int i = 0; i < a->nb_dims; i++)
        FD_CHECK(a->dim[i] == c->dim[i] || (broadcast && a->dim[i] == 1), CUDNN_STATUS_BAD_PARAM,
                 "%s dim %d is %d but %s dim %d is %d (%s)", an, i, a->dim[i], cn, i, c->dim[i],
                 broadcast ? "each dim must equal it or be 1" : "the dims must be equal");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t output_ok(cudnnTensorDescriptor_t t, const char *name)
{
    FD_CHECK(fd_tensor_is_non_overlapping(t), CUDNN_STATUS_BAD_PARAM,
             "the output %s has overlapping strides; outputs may not alias themselves", name);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- cudnnAddTensor ---------------------------------------------------------------------- */

cudnnStatus_t CUDNNWINAPI cudnnAddTensor(cudnnHandle_t handle, const void *alpha,
                                         const cudnnTensorDescriptor_t aDesc, const void *A,
                                         const void *beta, const cudnnTensorDescriptor_t cDesc,
                                         void *C)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK(alpha && beta && A && C, CUDNN_STATUS_BAD_PARAM,
             "a pointer is NULL (alpha %p, beta %p, A %p, C %p)", alpha, beta, A, C);
    FD_TRY(fd_tensor_check(aDesc, "aDesc"));
    FD_TRY(fd_tensor_check(cDesc, "cDesc"));
    FD_TRY(dims_fit(aDesc, "aDesc", cDesc, "cDesc", 1));
    FD_CHECK(aDesc->dtype == cDesc->dtype, CUDNN_STATUS_BAD_PARAM,
             "aDesc is %s but cDesc is %s; cudnnAddTensor needs one data type",
             fd_dtype_name(aDesc->dtype), fd_dtype_name(cDesc->dtype));
    FD_CHECK(fd_dtype_is_float(cDesc->dtype), CUDNN_STATUS_NOT_SUPPORTED,
             "cudnnAddTensor on %s data is not implemented (FLOAT, DOUBLE, HALF, BFLOAT16 are)",
             fd_dtype_name(cDesc->dtype));
    FD_TRY(no_negative_strides(aDesc, "aDesc"));
    FD_TRY(no_negative_strides(cDesc, "cDesc"));
    FD_TRY(output_ok(cDesc, "cDesc"));
    fd_tensor_add_problem_t p;
    fd_tview_from_tensor(&p.a, aDesc);
    fd_tview_from_tensor(&p.c, cDesc);
    if (views_overlap(&p.a, A, &p.c, C))
        FD_CHECK(A == C && fd_tview_same_layout(&p.a, &p.c), CUDNN_STATUS_BAD_PARAM,
                 "A overlaps C; in-place needs A == C with identical descriptors");
    fd_tensor_add_args_t a = {A, C, fd_scale_value(alpha, cDesc->dtype),
                              fd_scale_value(beta, cDesc->dtype), handle};
    return fd_op_run(handle, FD_OP_TENSOR_ADD, &p, &a);
}

/* ---- op-tensor descriptors ---------------------------------------------------------------- */

static cudnnStatus_t op_desc_live(cudnnOpTensorDescriptor_t d, const char *name)
{
    FD_CHECK(d != NULL, CUDNN_STATUS_BAD_PARAM, "%s is NULL", name);
    FD_CHECK(d->magic == FD_MAGIC_OP_TENSOR, CUDNN_STATUS_BAD_PARAM,
             "%s (%p) is not a live op-tensor descriptor", name, (void *)d);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnCreateOpTensorDescriptor(cudnnOpTensorDescriptor_t *opTensorDesc)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(opTensorDesc);
    struct cudnnOpTensorStruct *d = calloc(1, sizeof *d);
    FD_CHECK(d != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
             "cannot allocate an op-tensor descriptor (%zu bytes)", sizeof *d);
    d->magic = FD_MAGIC_OP_TENSOR;
    *opTensorDesc = d;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyOpTensorDescriptor(cudnnOpTensorDescriptor_t opTensorDesc)
{
    FD_API(NULL);
    if (opTensorDesc == NULL)
        return CUDNN_STATUS_SUCCESS;
    FD_TRY(op_desc_live(opTensorDesc, "opTensorDesc"));
    opTensorDesc->magic = 0;
    free(opTensorDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetOpTensorDescriptor(cudnnOpTensorDescriptor_t opTensorDesc,
                                                     cudnnOpTensorOp_t opTensorOp,
                                                     cudnnDataType_t opTensorCompType,
                                                     cudnnNanPropagation_t opTensorNanOpt)
{
    FD_API(NULL);
    FD_TRY(op_desc_live(opTensorDesc, "opTensorDesc"));
    FD_CHECK((int)opTensorOp >= CUDNN_OP_TENSOR_ADD && (int)opTensorOp <= CUDNN_OP_TENSOR_NOT,
             CUDNN_STATUS_BAD_PARAM, "opTensorOp %d is not a cudnnOpTensorOp_t value",
             (int)opTensorOp);
    FD_CHECK(fd_dtype_is_valid(opTensorCompType), CUDNN_STATUS_BAD_PARAM,
             "opTensorCompType %d is not a cudnnDataType_t value", (int)opTensorCompType);
    FD_CHECK(opTensorNanOpt == CUDNN_NOT_PROPAGATE_NAN || opTensorNanOpt == CUDNN_PROPAGATE_NAN,
             CUDNN_STATUS_BAD_PARAM, "opTensorNanOpt %d is not a cudnnNanPropagation_t value",
             (int)opTensorNanOpt);
    opTensorDesc->op = opTensorOp;
    opTensorDesc->comp = opTensorCompType;
    opTensorDesc->nan = opTensorNanOpt;
    opTensorDesc->is_set = 1;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetOpTensorDescriptor(const cudnnOpTensorDescriptor_t opTensorDesc,
                                                     cudnnOpTensorOp_t *opTensorOp,
                                                     cudnnDataType_t *opTensorCompType,
                                                     cudnnNanPropagation_t *opTensorNanOpt)
{
    FD_API(NULL);
    FD_TRY(op_desc_live(opTensorDesc, "opTensorDesc"));
    FD_CHECK(opTensorDesc->is_set, CUDNN_STATUS_BAD_PARAM,
             "opTensorDesc was created but never set (call cudnnSetOpTensorDescriptor first)");
    FD_CHECK(opTensorOp && opTensorCompType && opTensorNanOpt, CUDNN_STATUS_BAD_PARAM,
             "an output pointer is NULL");
    *opTensorOp = opTensorDesc->op;
    *opTensorCompType = opTensorDesc->comp;
    *opTensorNanOpt = opTensorDesc->nan;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- cudnnOpTensor ----------------------------------------------------------------------- */

/* cuDNN's table of (A and B, C, compute type) combinations. */
static int op_types_ok(cudnnDataType_t ab, cudnnDataType_t c, cudnnDataType_t comp)
{
    static const struct {
        cudnnDataType_t ab, c;
    } float_rows[] = {
        {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},    {CUDNN_DATA_INT8, CUDNN_DATA_FLOAT},
        {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},     {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT},
        {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF},     {CUDNN_DATA_HALF, CUDNN_DATA_HALF},
        {CUDNN_DATA_INT8, CUDNN_DATA_INT8},      {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8},
        {CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16}, {CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16},
    };
    if (comp == CUDNN_DATA_DOUBLE)
        return ab == CUDNN_DATA_DOUBLE && c == CUDNN_DATA_DOUBLE;
    if (comp != CUDNN_DATA_FLOAT)
        return 0;
    for (size_t i = 0; i < sizeof float_rows / sizeof float_rows[0]; i++)
        if (float_rows[i].ab == ab && float_rows[i].c == c)
            return 1;
    return 0;
}

cudnnStatus_t CUDNNWINAPI cudnnOpTensor(cudnnHandle_t handle,
                                        const cudnnOpTensorDescriptor_t opTensorDesc,
                                        const void *alpha1, const cudnnTensorDescriptor_t aDesc,
                                        const void *A, const void *alpha2,
                                        const cudnnTensorDescriptor_t bDesc, const void *B,
                                        const void *beta, const cudnnTensorDescriptor_t cDesc,
                                        void *C)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(op_desc_live(opTensorDesc, "opTensorDesc"));
    FD_CHECK(opTensorDesc->is_set, CUDNN_STATUS_BAD_PARAM,
             "opTensorDesc was created but never set (call cudnnSetOpTensorDescriptor first)");
    const int unary =
        opTensorDesc->op == CUDNN_OP_TENSOR_SQRT || opTensorDesc->op == CUDNN_OP_TENSOR_NOT;
    FD_CHECK(alpha1 && beta && A && C, CUDNN_STATUS_BAD_PARAM,
             "a pointer is NULL (alpha1 %p, beta %p, A %p, C %p)", alpha1, beta, A, C);
    FD_CHECK(unary || (alpha2 && B), CUDNN_STATUS_BAD_PARAM,
             "alpha2 (%p) or B (%p) is NULL; the binary operators read both", alpha2, B);
    FD_TRY(fd_tensor_check(aDesc, "aDesc"));
    FD_TRY(fd_tensor_check(cDesc, "cDesc"));
    if (!unary)
        FD_TRY(fd_tensor_check(bDesc, "bDesc"));
    FD_TRY(dims_fit(aDesc, "aDesc", cDesc, "cDesc", 0));
    if (!unary) {
        FD_TRY(dims_fit(bDesc, "bDesc", cDesc, "cDesc", 1));
        FD_CHECK(aDesc->dtype == bDesc->dtype, CUDNN_STATUS_BAD_PARAM,
                 "aDesc is %s but bDesc is %s; A and B must share a data type",
                 fd_dtype_name(aDesc->dtype), fd_dtype_name(bDesc->dtype));
    }
    FD_CHECK(op_types_ok(aDesc->dtype, cDesc->dtype, opTensorDesc->comp),
             CUDNN_STATUS_NOT_SUPPORTED,
             "A/B %s, C %s with opTensorCompType %s is not a supported combination (FLOAT compute "
             "for FLOAT, HALF, BFLOAT16 and INT8 data, DOUBLE compute for DOUBLE data)",
             fd_dtype_name(aDesc->dtype), fd_dtype_name(cDesc->dtype),
             fd_dtype_name(opTensorDesc->comp));
    FD_TRY(no_negative_strides(aDesc, "aDesc"));
    if (!unary)
        FD_TRY(no_negative_strides(bDesc, "bDesc"));
    FD_TRY(no_negative_strides(cDesc, "cDesc"));
    FD_TRY(output_ok(cDesc, "cDesc"));

    fd_tensor_op_problem_t p;
    p.op = opTensorDesc->op;
    p.nan = opTensorDesc->nan;
    p.comp = opTensorDesc->comp;
    fd_tview_from_tensor(&p.a, aDesc);
    fd_tview_from_tensor(&p.c, cDesc);
    if (unary)
        p.b = p.c;
    else
        fd_tview_from_tensor(&p.b, bDesc);
    int a_is_c = A == C && fd_tview_same_layout(&p.a, &p.c);
    if (views_overlap(&p.a, A, &p.c, C))
        FD_CHECK(a_is_c, CUDNN_STATUS_BAD_PARAM,
                 "A overlaps C; in-place needs A == C with identical descriptors");
    if (!unary && views_overlap(&p.b, B, &p.c, C))
        FD_CHECK(a_is_c && B == C && fd_tview_same_layout(&p.b, &p.c), CUDNN_STATUS_BAD_PARAM,
                 "B overlaps C; B may be C only when A is C too, all with identical descriptors");
    cudnnDataType_t sdt = cDesc->dtype;
    fd_tensor_op_args_t a = {A,
                             unary ? NULL : B,
                             C,
                             fd_scale_value(alpha1, sdt),
                             unary ? 0.0 : fd_scale_value(alpha2, sdt),
                             fd_scale_value(beta, sdt), handle};
    return fd_op_run(handle, FD_OP_TENSOR_OP, &p, &a);
}

/* ---- cudnnSetTensor / cudnnScaleTensor --------------------------------------------------- */

cudnnStatus_t CUDNNWINAPI cudnnSetTensor(cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc,
                                         void *y, const void *valuePtr)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK(y && valuePtr, CUDNN_STATUS_BAD_PARAM, "a pointer is NULL (y %p, valuePtr %p)", y,
             valuePtr);
    FD_TRY(fd_tensor_check(yDesc, "yDesc"));
    FD_CHECK(fd_dtype_is_float(yDesc->dtype), CUDNN_STATUS_NOT_SUPPORTED,
             "cudnnSetTensor on %s data is not implemented (FLOAT, DOUBLE, HALF, BFLOAT16 are)",
             fd_dtype_name(yDesc->dtype));
    FD_TRY(no_negative_strides(yDesc, "yDesc"));
    fd_tensor_set_problem_t p;
    fd_tview_from_tensor(&p.y, yDesc);
    /* valuePtr holds one value of y's own data type (cuDNN's documented contract). */
    fd_tensor_set_args_t a = {y, fd_load(yDesc->dtype, valuePtr, 0), handle};
    return fd_op_run(handle, FD_OP_TENSOR_SET, &p, &a);
}

cudnnStatus_t CUDNNWINAPI cudnnScaleTensor(cudnnHandle_t handle,
                                           const cudnnTensorDescriptor_t yDesc, void *y,
                                           const void *alpha)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK(y && alpha, CUDNN_STATUS_BAD_PARAM, "a pointer is NULL (y %p, alpha %p)", y, alpha);
    FD_TRY(fd_tensor_check(yDesc, "yDesc"));
    FD_CHECK(fd_dtype_is_float(yDesc->dtype), CUDNN_STATUS_NOT_SUPPORTED,
             "cudnnScaleTensor on %s data is not implemented (FLOAT, DOUBLE, HALF, BFLOAT16 are)",
             fd_dtype_name(yDesc->dtype));
    FD_TRY(no_negative_strides(yDesc, "yDesc"));
    FD_TRY(output_ok(yDesc, "yDesc"));
    fd_tensor_scale_problem_t p;
    fd_tview_from_tensor(&p.y, yDesc);
    fd_tensor_scale_args_t a = {y, fd_scale_value(alpha, yDesc->dtype), handle};
    return fd_op_run(handle, FD_OP_TENSOR_SCALE, &p, &a);
}
