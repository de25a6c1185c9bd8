/* SPDX-License-Identifier: MIT */
/*
 * tensor_ops.h - descriptors and flat problems of the tensor utilities: elementwise ops
 * (cudnnAddTensor, cudnnOpTensor, cudnnSetTensor, cudnnScaleTensor), layout transforms
 * (cudnnTransformTensor[Ex], cudnnTransformFilter, the fold/unfold/pad descriptors,
 * cudnnReorderFilterAndBias) and reductions (cudnnReduceTensor).
 *
 * Every tensor reaches an implementation as an fd_tview_t: logical dims, strides counted in
 * scalars (bytes for the vectorised int8 layouts, whose channel dim is split into vectors of
 * `vect` lanes) and the scalar type. Only the API entries read descriptors.
 */
#ifndef FD_CORE_TENSOR_OPS_H_
#define FD_CORE_TENSOR_OPS_H_

#include "fd.h"

#define FD_MAGIC_OP_TENSOR 0x4f444e46u     /* "FNDO" */
#define FD_MAGIC_REDUCE_TENSOR 0x52444e46u /* "FNDR" */
#define FD_MAGIC_TRANSFORM 0x58444e46u     /* "FNDX" */

struct cudnnOpTensorStruct {
    uint32_t magic;
    int is_set;
    cudnnOpTensorOp_t op;
    cudnnDataType_t comp;
    cudnnNanPropagation_t nan;
};

struct cudnnReduceTensorStruct {
    uint32_t magic;
    int is_set;
    cudnnReduceTensorOp_t op;
    cudnnDataType_t comp;
    cudnnNanPropagation_t nan;
    cudnnReduceTensorIndices_t indices;
    cudnnIndicesType_t indices_type;
};

/* padBefore/padAfter cover every dim (N, C, spatial...); fold covers the spatial dims and is 1
 * for N and C here so that all arrays index by dim. */
struct cudnnTensorTransformStruct {
    uint32_t magic;
    int is_set;
    int nb_dims;
    cudnnTensorFormat_t format;
    int32_t pad_before[FD_DIM_MAX];
    int32_t pad_after[FD_DIM_MAX];
    uint32_t fold[FD_DIM_MAX];
    cudnnFoldingDirection_t direction;
};

/* ---- tensor views --------------------------------------------------------------------- */

typedef struct fd_tview {
    cudnnDataType_t dtype; /* scalar type: INT8 / UINT8 for the lanes of INT8x4, INT8x32, UINT8x4 */
    int nb_dims;
    int vect;                   /* 1, or the lanes of a vector along dim 1 (4 or 32) */
    int64_t dim[FD_DIM_MAX];    /* logical extents (dim 1 counts lanes, not vectors) */
    int64_t stride[FD_DIM_MAX]; /* in scalars; dim 1 of a vectorised view steps whole vectors */
} fd_tview_t;

/* Scalar offset of the element at index tuple idx. */
static inline int64_t fd_tview_offset(const fd_tview_t *v, const int64_t *idx)
{
    int64_t off = 0;
    for (int i = 0; i < v->nb_dims; i++) {
        if (v->vect > 1 && i == 1)
            off += (idx[i] / v->vect) * v->stride[i] + idx[i] % v->vect;
        else
            off += idx[i] * v->stride[i];
    }
    return off;
}

/* Advances idx over dims (row-major, last fastest); 0 once every tuple has been visited. */
static inline int fd_index_next(int64_t *idx, const int64_t *dim, int nb_dims)
{
    for (int i = nb_dims - 1; i >= 0; i--) {
        if (++idx[i] < dim[i])
            return 1;
        idx[i] = 0;
    }
    return 0;
}

int64_t fd_tview_elements(const fd_tview_t *v);

/* View of a set tensor descriptor (callers have run fd_tensor_check). */
void fd_tview_from_tensor(fd_tview_t *v, const struct cudnnTensorStruct *t);
/* View of a set filter descriptor: dims K, C, spatial...; NCHW, NHWC or NCHW_VECT_C layout. */
void fd_tview_from_filter(fd_tview_t *v, const struct cudnnFilterStruct *f);

/* Bytes [lo, hi] a view addresses from base (for aliasing checks; negative strides refused
 * by the callers before they ask). */
void fd_tview_span(const fd_tview_t *v, const void *base, uintptr_t *lo, uintptr_t *hi);
int fd_tview_same_layout(const fd_tview_t *a, const fd_tview_t *b); /* dims, strides, type */
/* 1 when no two index tuples share an address. */
int fd_tview_non_overlapping(const fd_tview_t *v);

/* Scalar type of a descriptor dtype (INT8x4 -> INT8 ...) and whether the reference loads it. */
cudnnDataType_t fd_scalar_dtype(cudnnDataType_t dt);
int fd_dtype_is_float(cudnnDataType_t dt); /* FLOAT, DOUBLE, HALF, BFLOAT16 */
const char *fd_format_name(cudnnTensorFormat_t f);

/* ---- elementwise ------------------------------------------------------------------------ */

/* cudnnAddTensor: c = alpha * a (broadcast where a's dim is 1) + beta * c. */
typedef struct fd_tensor_add_problem {
    fd_tview_t a, c;
} fd_tensor_add_problem_t;
typedef struct fd_tensor_add_args {
    const void *a;
    void *c;
    double alpha, beta;
    cudnnHandle_t handle; /* its stream, on cuda */
} fd_tensor_add_args_t;

/* cudnnOpTensor: c = op(alpha1 * a, alpha2 * b) + beta * c; b broadcast; unary ops ignore b. */
typedef struct fd_tensor_op_problem {
    cudnnOpTensorOp_t op;
    cudnnNanPropagation_t nan;
    cudnnDataType_t comp;
    fd_tview_t a, b, c; /* b is a copy of c's view for the unary ops (never read) */
} fd_tensor_op_problem_t;
typedef struct fd_tensor_op_args {
    const void *a, *b;
    void *c;
    double alpha1, alpha2, beta;
    cudnnHandle_t handle; /* its stream, on cuda */
} fd_tensor_op_args_t;

/* cudnnSetTensor: every element of y = value. cudnnScaleTensor: y *= alpha. */
typedef struct fd_tensor_set_problem {
    fd_tview_t y;
} fd_tensor_set_problem_t;
typedef struct fd_tensor_set_args {
    void *y;
    double value;
    cudnnHandle_t handle; /* its stream, on cuda */
} fd_tensor_set_args_t;

typedef struct fd_tensor_scale_problem {
    fd_tview_t y;
} fd_tensor_scale_problem_t;
typedef struct fd_tensor_scale_args {
    void *y;
    double alpha;
    cudnnHandle_t handle; /* its stream, on cuda */
} fd_tensor_scale_args_t;

/* ---- transforms ------------------------------------------------------------------------- */

/* Every transform is a gather over y (y[i] = alpha * x[map(i)] + beta * y[i], 0 where map
 * falls outside x):
 *   FD_XFORM_FOLD (also plain copies and pure padding: fold 1, pads 0):
 *     x (n, c, s...) sits at y (n + pb[0], pb[1] + phase * C + c, (s + pb) / f ...), where
 *     phase = row-major index of ((s + pb) % f ...) over the fold factors and C = x's dim 1;
 *   FD_XFORM_UNFOLD: the inverse, x folded and y unfolded (C = y's dim 1). */
typedef enum { FD_XFORM_FOLD = 0, FD_XFORM_UNFOLD = 1 } fd_xform_kind_t;

typedef struct fd_tensor_transform_problem {
    fd_xform_kind_t kind;
    int64_t pad_before[FD_DIM_MAX]; /* per dim */
    int64_t fold[FD_DIM_MAX];       /* per dim, 1 for N and C */
    fd_tview_t x, y;
} fd_tensor_transform_problem_t;
typedef struct fd_tensor_transform_args {
    const void *x;
    void *y;
    double alpha, beta;
    cudnnHandle_t handle; /* its stream, on cuda */
} fd_tensor_transform_args_t;

/* Output dims of transform t applied to dims `in` (nb = t->nb_dims); BAD_PARAM with the reason
 * when a result is not positive or an unfold does not divide the channels. */
cudnnStatus_t fd_transform_dims(const struct cudnnTensorTransformStruct *t, const int64_t *in,
                                int64_t *out);
cudnnStatus_t fd_transform_check(cudnnTensorTransformDescriptor_t desc, const char *name);

/* ---- reduction -------------------------------------------------------------------------- */

/* cudnnReduceTensor: c = alpha * reduce(a over every dim where c is 1 and a is not) + beta * c.
 * indices (when non-NULL) receives, per element of c in row-major order of c's dims, the
 * row-major position of the selected element within its reduced slice. */
typedef struct fd_tensor_reduce_problem {
    cudnnReduceTensorOp_t op;
    cudnnNanPropagation_t nan;
    cudnnDataType_t comp;
    int want_indices;
    fd_tview_t a, c;
} fd_tensor_reduce_problem_t;
typedef struct fd_tensor_reduce_args {
    const void *a;
    void *c;
    uint32_t *indices;
    void *workspace;
    size_t workspace_size;
    double alpha, beta;
    cudnnHandle_t handle; /* its stream, on cuda */
} fd_tensor_reduce_args_t;

#endif /* FD_CORE_TENSOR_OPS_H_ */
