/* SPDX-License-Identifier: MIT */
/*
 * test_contract_tensor_ops.c - the contract table of the tensor utilities: elementwise ops
 * (AddTensor, OpTensor and its descriptor, SetTensor, ScaleTensor), transforms (TransformTensor
 * [Ex], the transform descriptors, InitTransformDest, TransformFilter, ReorderFilterAndBias,
 * GetFoldedConvBackwardDataDescriptors) and reductions (descriptors, size queries,
 * ReduceTensor).
 *
 * Each row names the exact status, a word the rejection reason must contain, and the call. A
 * fresh fixture per row; after a rejection: the reason replaced the sentinel error and is not
 * empty, every data buffer hashes as before, every descriptor reads back as before (rejected
 * setters change nothing), guard zones intact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_test.h"

enum { B_A, B_B, B_C, B_IDX, B_F, B_BIAS, B_RF, B_RB, B_WS, B_COUNT };
static const size_t buf_bytes[B_COUNT] = {2048, 2048,        2048, 256, 32 * 32 * 9,
                                          128,  32 * 32 * 9, 128,  4096};
static const int buf_input[B_COUNT] = {[B_A] = 1, [B_B] = 1, [B_F] = 1, [B_BIAS] = 1};
static const char *const buf_names[B_COUNT] = {
    "A", "B", "C", "indices", "filter", "bias", "reordered filter", "reordered bias", "workspace"};

typedef struct {
    cudnnHandle_t h;
    /* tensors */
    cudnnTensorDescriptor_t a4, c4, b1, bbad, t5, h4, i8, i32, neg, ovl, tu, d4, cr, crbad, i64;
    cudnnTensorDescriptor_t dx, dy, dybad, x5, pdd, fgd, dd, fd4;
    cudnnFilterDescriptor_t fl, f8, ffd, fl5, flbad;
    cudnnConvolutionDescriptor_t cv, cvc, fcd;
    cudnnOpTensorDescriptor_t op, opu;
    cudnnReduceTensorDescriptor_t rd, rdu, rd64, rdd;
    cudnnTensorTransformDescriptor_t tr, tru, tp, tun, t1, t2, t3, t4;
    fd_buf_t buf[B_COUNT];
    float one, zero, half;
    double done, dzero;
    size_t wss; /* cudnnGetReductionWorkspaceSize of rd over a4 -> cr (B_WS holds it) */
    int setup_failed;
} fx_t;

static void setup_ok(fx_t *f, cudnnStatus_t st, const char *what)
{
    if (st != CUDNN_STATUS_SUCCESS) {
        f->setup_failed = 1;
        FD_EXPECT(0, "setup %s: %s", what, cudnnGetErrorString(st));
    }
}
#define S(x) setup_ok(f, (x), #x)
#define DIMS(...) ((const int[]){__VA_ARGS__})

static void fx_init(fx_t *f)
{
    memset(f, 0, sizeof *f);
    S(cudnnCreate(&f->h));
    cudnnTensorDescriptor_t *ts[] = {&f->a4, &f->c4,    &f->b1,  &f->bbad, &f->t5, &f->h4,
                                     &f->i8, &f->i32,   &f->neg, &f->ovl,  &f->tu, &f->d4,
                                     &f->cr, &f->crbad, &f->i64, &f->dx,   &f->dy, &f->dybad,
                                     &f->x5, &f->pdd,   &f->fgd, &f->dd,   &f->fd4};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        S(cudnnCreateTensorDescriptor(ts[i]));
    const cudnnDataType_t F32 = CUDNN_DATA_FLOAT;
    S(cudnnSetTensor4dDescriptor(f->a4, CUDNN_TENSOR_NCHW, F32, 2, 3, 4, 5));
    S(cudnnSetTensor4dDescriptor(f->c4, CUDNN_TENSOR_NCHW, F32, 2, 3, 4, 5));
    S(cudnnSetTensor4dDescriptor(f->b1, CUDNN_TENSOR_NCHW, F32, 1, 3, 1, 1));
    S(cudnnSetTensor4dDescriptor(f->bbad, CUDNN_TENSOR_NCHW, F32, 1, 2, 1, 1));
    S(cudnnSetTensorNdDescriptor(f->t5, F32, 5, DIMS(1, 2, 3, 4, 5), DIMS(120, 60, 20, 5, 1)));
    S(cudnnSetTensor4dDescriptor(f->h4, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 2, 3, 4, 5));
    S(cudnnSetTensor4dDescriptor(f->i8, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, 2, 3, 4, 5));
    S(cudnnSetTensor4dDescriptor(f->i32, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT32, 2, 3, 4, 5));
    S(cudnnSetTensor4dDescriptor(f->i64, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT64, 2, 3, 4, 5));
    S(cudnnSetTensor4dDescriptorEx(f->neg, F32, 2, 3, 4, 5, 60, 20, 5, -1));
    S(cudnnSetTensor4dDescriptorEx(f->ovl, F32, 2, 3, 4, 5, 1, 1, 1, 1));
    S(cudnnSetTensor4dDescriptor(f->d4, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 2, 3, 4, 5));
    S(cudnnSetTensor4dDescriptor(f->cr, CUDNN_TENSOR_NCHW, F32, 1, 3, 1, 1));
    S(cudnnSetTensor4dDescriptor(f->crbad, CUDNN_TENSOR_NCHW, F32, 1, 3, 2, 1));
    S(cudnnSetTensor4dDescriptor(f->dx, CUDNN_TENSOR_NCHW, F32, 2, 3, 8, 8));
    S(cudnnSetTensor4dDescriptor(f->dy, CUDNN_TENSOR_NCHW, F32, 2, 4, 4, 4));
    S(cudnnSetTensor4dDescriptor(f->dybad, CUDNN_TENSOR_NCHW, F32, 2, 4, 5, 5));
    S(cudnnSetTensor4dDescriptor(f->fd4, CUDNN_TENSOR_NCHW, F32, 2, 12, 4, 4));
    S(cudnnSetTensorNdDescriptor(f->x5, F32, 5, DIMS(2, 3, 4, 4, 4), DIMS(192, 64, 16, 4, 1)));
    cudnnFilterDescriptor_t *fs[] = {&f->fl, &f->f8, &f->ffd, &f->fl5, &f->flbad};
    for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++)
        S(cudnnCreateFilterDescriptor(fs[i]));
    S(cudnnSetFilter4dDescriptor(f->fl, F32, CUDNN_TENSOR_NCHW, 4, 3, 3, 3));
    S(cudnnSetFilter4dDescriptor(f->f8, CUDNN_DATA_INT8x32, CUDNN_TENSOR_NCHW_VECT_C, 32, 32, 3,
                                 3));
    S(cudnnSetFilterNdDescriptor(f->fl5, F32, CUDNN_TENSOR_NCHW, 5, DIMS(4, 3, 3, 3, 3)));
    S(cudnnSetFilter4dDescriptor(f->flbad, F32, CUDNN_TENSOR_NCHW, 4, 12, 3, 3));
    S(cudnnCreateConvolutionDescriptor(&f->cv));
    S(cudnnCreateConvolutionDescriptor(&f->cvc));
    S(cudnnCreateConvolutionDescriptor(&f->fcd));
    S(cudnnSetConvolution2dDescriptor(f->cv, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION, F32));
    S(cudnnSetConvolution2dDescriptor(f->cvc, 1, 1, 2, 2, 1, 1, CUDNN_CONVOLUTION, F32));
    S(cudnnCreateOpTensorDescriptor(&f->op));
    S(cudnnCreateOpTensorDescriptor(&f->opu));
    S(cudnnSetOpTensorDescriptor(f->op, CUDNN_OP_TENSOR_ADD, F32, CUDNN_NOT_PROPAGATE_NAN));
    S(cudnnCreateReduceTensorDescriptor(&f->rd));
    S(cudnnCreateReduceTensorDescriptor(&f->rdu));
    S(cudnnCreateReduceTensorDescriptor(&f->rd64));
    S(cudnnCreateReduceTensorDescriptor(&f->rdd));
    S(cudnnSetReduceTensorDescriptor(f->rd, CUDNN_REDUCE_TENSOR_MAX, F32, CUDNN_NOT_PROPAGATE_NAN,
                                     CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES));
    S(cudnnSetReduceTensorDescriptor(f->rd64, CUDNN_REDUCE_TENSOR_MIN, F32, CUDNN_NOT_PROPAGATE_NAN,
                                     CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_64BIT_INDICES));
    S(cudnnSetReduceTensorDescriptor(f->rdd, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_DOUBLE,
                                     CUDNN_NOT_PROPAGATE_NAN, CUDNN_REDUCE_TENSOR_NO_INDICES,
                                     CUDNN_32BIT_INDICES));
    cudnnTensorTransformDescriptor_t *xs[] = {&f->tr, &f->tru, &f->tp, &f->tun,
                                              &f->t1, &f->t2,  &f->t3, &f->t4};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        S(cudnnCreateTensorTransformDescriptor(xs[i]));
    const uint32_t f22[2] = {2, 2};
    S(cudnnSetTensorTransformDescriptor(f->tr, 4, CUDNN_TENSOR_NCHW, NULL, NULL, f22,
                                        CUDNN_TRANSFORM_FOLD));
    S(cudnnSetTensorTransformDescriptor(f->tp, 4, CUDNN_TENSOR_NHWC, NULL, NULL, NULL,
                                        CUDNN_TRANSFORM_FOLD));
    S(cudnnSetTensorTransformDescriptor(f->tun, 4, CUDNN_TENSOR_NCHW, NULL, NULL,
                                        (const uint32_t[]){2, 4}, CUDNN_TRANSFORM_UNFOLD));
    fd_rng_t r;
    fd_rng_seed(&r, 3);
    for (int b = 0; b < B_COUNT; b++) {
        f->buf[b] = fd_buf_alloc(buf_bytes[b]);
        if (buf_input[b])
            fd_fill_int(&r, CUDNN_DATA_UINT8, f->buf[b].data, (int64_t)buf_bytes[b], 0, 60, 0.9);
        else
            fd_buf_poison(&f->buf[b]);
    }
    f->one = 1, f->zero = 0, f->half = 0.5f, f->done = 1, f->dzero = 0;
    S(cudnnGetReductionWorkspaceSize(f->h, f->rd, f->a4, f->cr, &f->wss));
    if (f->wss > buf_bytes[B_WS])
        setup_ok(f, CUDNN_STATUS_INTERNAL_ERROR, "reduction workspace above the fixture's buffer");
}

static void fx_free(fx_t *f)
{
    cudnnTensorDescriptor_t ts[] = {f->a4, f->c4,    f->b1,  f->bbad, f->t5, f->h4,
                                    f->i8, f->i32,   f->neg, f->ovl,  f->tu, f->d4,
                                    f->cr, f->crbad, f->i64, f->dx,   f->dy, f->dybad,
                                    f->x5, f->pdd,   f->fgd, f->dd,   f->fd4};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        cudnnDestroyTensorDescriptor(ts[i]);
    cudnnFilterDescriptor_t fs[] = {f->fl, f->f8, f->ffd, f->fl5, f->flbad};
    for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++)
        cudnnDestroyFilterDescriptor(fs[i]);
    cudnnDestroyConvolutionDescriptor(f->cv);
    cudnnDestroyConvolutionDescriptor(f->cvc);
    cudnnDestroyConvolutionDescriptor(f->fcd);
    cudnnDestroyOpTensorDescriptor(f->op);
    cudnnDestroyOpTensorDescriptor(f->opu);
    cudnnDestroyReduceTensorDescriptor(f->rd);
    cudnnDestroyReduceTensorDescriptor(f->rdu);
    cudnnDestroyReduceTensorDescriptor(f->rd64);
    cudnnDestroyReduceTensorDescriptor(f->rdd);
    cudnnTensorTransformDescriptor_t xs[] = {f->tr, f->tru, f->tp, f->tun,
                                             f->t1, f->t2,  f->t3, f->t4};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        cudnnDestroyTensorTransformDescriptor(xs[i]);
    cudnnDestroy(f->h);
    for (int b = 0; b < B_COUNT; b++)
        fd_buf_free(&f->buf[b]);
}

/* ---- snapshots ------------------------------------------------------------------------------ */

typedef struct {
    cudnnStatus_t st;
    cudnnDataType_t dt;
    int nb, dim[8], stride[8];
} tsnap_t;
typedef struct {
    cudnnStatus_t st;
    int v[5];
} osnap_t;
typedef struct {
    cudnnStatus_t st;
    cudnnTensorFormat_t fmt;
    int32_t pb[8], pa[8];
    uint32_t fold[8];
    cudnnFoldingDirection_t dir;
} xsnap_t;
typedef struct {
    tsnap_t t[6];
    cudnnStatus_t fst;
    int fdim[8], fnb;
    cudnnDataType_t fdt;
    cudnnTensorFormat_t ffmt;
    cudnnStatus_t cst;
    int cpad[2];
    osnap_t op[2], rd[2];
    xsnap_t x[6];
    uint64_t hash[B_COUNT];
} snap_t;

static void snap_take(const fx_t *f, snap_t *s)
{
    memset(s, 0, sizeof *s);
    cudnnTensorDescriptor_t ts[6] = {f->a4, f->c4, f->tu, f->pdd, f->fgd, f->dd};
    for (int i = 0; i < 6; i++)
        s->t[i].st = cudnnGetTensorNdDescriptor(ts[i], 8, &s->t[i].dt, &s->t[i].nb, s->t[i].dim,
                                                s->t[i].stride);
    s->fst = cudnnGetFilterNdDescriptor(f->ffd, 8, &s->fdt, &s->ffmt, &s->fnb, s->fdim);
    int arr, st[2], dl[2];
    cudnnConvolutionMode_t mode;
    cudnnDataType_t ct;
    s->cst = cudnnGetConvolutionNdDescriptor(f->fcd, 2, &arr, s->cpad, st, dl, &mode, &ct);
    cudnnOpTensorDescriptor_t ops[2] = {f->op, f->opu};
    for (int i = 0; i < 2; i++) {
        cudnnOpTensorOp_t o;
        cudnnDataType_t c;
        cudnnNanPropagation_t n;
        s->op[i].st = cudnnGetOpTensorDescriptor(ops[i], &o, &c, &n);
        s->op[i].v[0] = (int)o, s->op[i].v[1] = (int)c, s->op[i].v[2] = (int)n;
        if (s->op[i].st != CUDNN_STATUS_SUCCESS)
            memset(s->op[i].v, 0, sizeof s->op[i].v);
    }
    cudnnReduceTensorDescriptor_t rds[2] = {f->rd, f->rdu};
    for (int i = 0; i < 2; i++) {
        cudnnReduceTensorOp_t o;
        cudnnDataType_t c;
        cudnnNanPropagation_t n;
        cudnnReduceTensorIndices_t ind;
        cudnnIndicesType_t it;
        s->rd[i].st = cudnnGetReduceTensorDescriptor(rds[i], &o, &c, &n, &ind, &it);
        s->rd[i].v[0] = (int)o, s->rd[i].v[1] = (int)c, s->rd[i].v[2] = (int)n,
        s->rd[i].v[3] = (int)ind, s->rd[i].v[4] = (int)it;
        if (s->rd[i].st != CUDNN_STATUS_SUCCESS)
            memset(s->rd[i].v, 0, sizeof s->rd[i].v);
    }
    cudnnTensorTransformDescriptor_t xs[6] = {f->tr, f->tru, f->t1, f->t2, f->t3, f->t4};
    for (int i = 0; i < 6; i++) {
        s->x[i].st = cudnnGetTensorTransformDescriptor(xs[i], 8, &s->x[i].fmt, s->x[i].pb,
                                                       s->x[i].pa, s->x[i].fold, &s->x[i].dir);
        if (s->x[i].st != CUDNN_STATUS_SUCCESS)
            memset(&s->x[i], 0, sizeof s->x[i]);
    }
    for (int b = 0; b < B_COUNT; b++)
        s->hash[b] = fd_buf_hash(&f->buf[b]);
}

/* ---- rows ------------------------------------------------------------------------------------ */

#define OK CUDNN_STATUS_SUCCESS
#define BAD CUDNN_STATUS_BAD_PARAM
#define NS CUDNN_STATUS_NOT_SUPPORTED
#define H (f->h)
#define A (f->buf[B_A].data)
#define B (f->buf[B_B].data)
#define C (f->buf[B_C].data)
#define IDX (f->buf[B_IDX].data)
#define WS (f->buf[B_WS].data)
#define ONE (&f->one)
#define ZERO (&f->zero)
#define GARBAGE ((void *)garbage)
static _Alignas(64) unsigned char garbage[512];

/* clang-format off */
#define ROWS(X)                                                                                                     \
    /* ---- elementwise ---- */                                                                                     \
    X(add_ok, OK, NULL, cudnnAddTensor(H, ONE, f->b1, B, ZERO, f->c4, C))                                            \
    X(add_null_handle, BAD, "handle", cudnnAddTensor(NULL, ONE, f->b1, B, ZERO, f->c4, C))                           \
    X(add_garbage_handle, BAD, "handle", cudnnAddTensor((cudnnHandle_t)GARBAGE, ONE, f->b1, B, ZERO, f->c4, C))      \
    X(add_null_alpha, BAD, "NULL", cudnnAddTensor(H, NULL, f->b1, B, ZERO, f->c4, C))                                \
    X(add_null_c, BAD, "NULL", cudnnAddTensor(H, ONE, f->b1, B, ZERO, f->c4, NULL))                                  \
    X(add_unset_a, BAD, "never set", cudnnAddTensor(H, ONE, f->tu, B, ZERO, f->c4, C))                               \
    X(add_rank, BAD, "dims", cudnnAddTensor(H, ONE, f->t5, B, ZERO, f->c4, C))                                       \
    X(add_shape, BAD, "dim 1", cudnnAddTensor(H, ONE, f->bbad, B, ZERO, f->c4, C))                                   \
    X(add_types, BAD, "data type", cudnnAddTensor(H, ONE, f->h4, B, ZERO, f->c4, C))                                 \
    X(add_int8, NS, "INT8", cudnnAddTensor(H, ONE, f->i8, B, ZERO, f->i8, C))                                        \
    X(add_negative_stride, NS, "negative", cudnnAddTensor(H, ONE, f->b1, B, ZERO, f->neg, C))                        \
    X(add_overlapping_c, BAD, "overlapping", cudnnAddTensor(H, ONE, f->b1, B, ZERO, f->ovl, C))                      \
    X(add_partial_alias, BAD, "overlaps", cudnnAddTensor(H, ONE, f->a4, (char *)C + 4, ZERO, f->c4, C))              \
    X(op_create_null, BAD, "NULL", cudnnCreateOpTensorDescriptor(NULL))                                              \
    X(op_set_bad_op, BAD, "opTensorOp", cudnnSetOpTensorDescriptor(f->op, (cudnnOpTensorOp_t)6, CUDNN_DATA_FLOAT,    \
                                                                   CUDNN_NOT_PROPAGATE_NAN))                        \
    X(op_set_bad_nan, BAD, "NanOpt", cudnnSetOpTensorDescriptor(f->op, CUDNN_OP_TENSOR_MUL, CUDNN_DATA_FLOAT,        \
                                                                (cudnnNanPropagation_t)2))                          \
    X(op_set_bad_comp, BAD, "CompType", cudnnSetOpTensorDescriptor(f->op, CUDNN_OP_TENSOR_MUL, (cudnnDataType_t)99,  \
                                                                   CUDNN_NOT_PROPAGATE_NAN))                        \
    X(op_set_garbage, BAD, "live", cudnnSetOpTensorDescriptor((cudnnOpTensorDescriptor_t)GARBAGE,                    \
                                                              CUDNN_OP_TENSOR_MUL, CUDNN_DATA_FLOAT,                \
                                                              CUDNN_NOT_PROPAGATE_NAN))                             \
    X(op_get_unset, BAD, "never set", cudnnGetOpTensorDescriptor(f->opu, (cudnnOpTensorOp_t *)IDX,                   \
                                                                 (cudnnDataType_t *)IDX, (cudnnNanPropagation_t *)IDX)) \
    X(op_get_null_out, BAD, "NULL", cudnnGetOpTensorDescriptor(f->op, NULL, NULL, NULL))                             \
    X(op_unset_desc, BAD, "never set", cudnnOpTensor(H, f->opu, ONE, f->a4, A, ONE, f->b1, B, ZERO, f->c4, C))       \
    X(op_a_broadcast, BAD, "dim", cudnnOpTensor(H, f->op, ONE, f->b1, A, ONE, f->b1, B, ZERO, f->c4, C))             \
    X(op_b_shape, BAD, "dim 1", cudnnOpTensor(H, f->op, ONE, f->a4, A, ONE, f->bbad, B, ZERO, f->c4, C))             \
    X(op_ab_types, BAD, "share", cudnnOpTensor(H, f->op, ONE, f->a4, A, ONE, f->h4, B, ZERO, f->c4, C))              \
    X(op_comp_mismatch, NS, "combination", cudnnOpTensor(H, f->op, ONE, f->d4, A, ONE, f->d4, B, ZERO, f->d4, C))    \
    X(op_int32, NS, "combination", cudnnOpTensor(H, f->op, ONE, f->i32, A, ONE, f->i32, B, ZERO, f->i32, C))         \
    X(op_b_is_c_only, BAD, "B overlaps C", cudnnOpTensor(H, f->op, ONE, f->a4, A, ONE, f->c4, C, ZERO, f->c4, C))    \
    X(op_null_b, BAD, "NULL", cudnnOpTensor(H, f->op, ONE, f->a4, A, ONE, f->b1, NULL, ZERO, f->c4, C))              \
    X(op_null_handle, BAD, "handle", cudnnOpTensor(NULL, f->op, ONE, f->a4, A, ONE, f->b1, B, ZERO, f->c4, C))       \
    X(op_rank, BAD, "dims", cudnnOpTensor(H, f->op, ONE, f->a4, A, ONE, f->t5, B, ZERO, f->c4, C))                   \
    X(set_null_value, BAD, "NULL", cudnnSetTensor(H, f->c4, C, NULL))                                                \
    X(set_int8, NS, "INT8", cudnnSetTensor(H, f->i8, C, ONE))                                                        \
    X(set_unset, BAD, "never set", cudnnSetTensor(H, f->tu, C, ONE))                                                 \
    X(scale_null_alpha, BAD, "NULL", cudnnScaleTensor(H, f->c4, C, NULL))                                            \
    X(scale_overlapping, BAD, "overlapping", cudnnScaleTensor(H, f->ovl, C, ONE))                                    \
    X(scale_int32, NS, "INT32", cudnnScaleTensor(H, f->i32, C, ONE))                                                 \
    /* ---- transforms ---- */                                                                                      \
    X(tt_ok, OK, NULL, cudnnTransformTensor(H, ONE, f->a4, A, ZERO, f->h4, C))                                       \
    X(tt_dims, BAD, "dim", cudnnTransformTensor(H, ONE, f->a4, A, ZERO, f->t5, C))                                   \
    X(tt_in_place, BAD, "overlap", cudnnTransformTensor(H, ONE, f->a4, A, ZERO, f->c4, A))                           \
    X(tt_int64, NS, "INT64", cudnnTransformTensor(H, ONE, f->a4, A, ZERO, f->i64, C))                                \
    X(tt_null_alpha, BAD, "NULL", cudnnTransformTensor(H, NULL, f->a4, A, ZERO, f->c4, C))                           \
    X(tt_negative, NS, "negative", cudnnTransformTensor(H, ONE, f->neg, A, ZERO, f->c4, C))                          \
    X(tt_overlapping_y, BAD, "overlapping", cudnnTransformTensor(H, ONE, f->a4, A, ZERO, f->ovl, C))                 \
    X(tr_set_nb2, BAD, "nbDims", cudnnSetTensorTransformDescriptor(f->tr, 2, CUDNN_TENSOR_NCHW, NULL, NULL, NULL,    \
                                                                   CUDNN_TRANSFORM_FOLD))                           \
    X(tr_set_nb9, NS, "CUDNN_DIM_MAX", cudnnSetTensorTransformDescriptor(f->tr, 9, CUDNN_TENSOR_NCHW, NULL, NULL,    \
                                                                         NULL, CUDNN_TRANSFORM_FOLD))               \
    X(tr_set_format, BAD, "destFormat", cudnnSetTensorTransformDescriptor(f->tr, 4, (cudnnTensorFormat_t)7, NULL,    \
                                                                          NULL, NULL, CUDNN_TRANSFORM_FOLD))        \
    X(tr_set_vect, NS, "VECT", cudnnSetTensorTransformDescriptor(f->tr, 4, CUDNN_TENSOR_NCHW_VECT_C, NULL, NULL,     \
                                                                 NULL, CUDNN_TRANSFORM_FOLD))                       \
    X(tr_set_direction, BAD, "direction", cudnnSetTensorTransformDescriptor(f->tr, 4, CUDNN_TENSOR_NCHW, NULL, NULL, \
                                                                            NULL, (cudnnFoldingDirection_t)5))      \
    X(tr_set_negative_pad, BAD, "negative", cudnnSetTensorTransformDescriptor(f->tr, 4, CUDNN_TENSOR_NCHW,           \
                                                                              (const int32_t[]){0, 0, -1, 0}, NULL, \
                                                                              NULL, CUDNN_TRANSFORM_FOLD))          \
    X(tr_set_fold0, BAD, "foldA", cudnnSetTensorTransformDescriptor(f->tr, 4, CUDNN_TENSOR_NCHW, NULL, NULL,         \
                                                                    (const uint32_t[]){2, 0}, CUDNN_TRANSFORM_FOLD)) \
    X(tr_set_garbage, BAD, "live", cudnnSetTensorTransformDescriptor((cudnnTensorTransformDescriptor_t)GARBAGE, 4,  \
                                                                     CUDNN_TENSOR_NCHW, NULL, NULL, NULL,           \
                                                                     CUDNN_TRANSFORM_FOLD))                         \
    X(tr_get_nb2, BAD, "nbDimsRequested", cudnnGetTensorTransformDescriptor(f->tr, 2, (cudnnTensorFormat_t *)IDX,    \
                                                                            (int32_t *)IDX, (int32_t *)IDX,         \
                                                                            (uint32_t *)IDX,                        \
                                                                            (cudnnFoldingDirection_t *)IDX))        \
    X(tr_get_unset, BAD, "never set", cudnnGetTensorTransformDescriptor(f->tru, 4, (cudnnTensorFormat_t *)IDX,       \
                                                                        (int32_t *)IDX, (int32_t *)IDX,             \
                                                                        (uint32_t *)IDX,                            \
                                                                        (cudnnFoldingDirection_t *)IDX))            \
    X(init_rank, BAD, "dims", cudnnInitTransformDest(f->tr, f->t5, f->dd, (size_t *)IDX))                            \
    X(init_null_size, BAD, "NULL", cudnnInitTransformDest(f->tr, f->a4, f->dd, NULL))                                \
    X(init_unfold_channels, BAD, "multiple", cudnnInitTransformDest(f->tun, f->a4, f->dd, (size_t *)IDX))            \
    X(init_unset_transform, BAD, "never set", cudnnInitTransformDest(f->tru, f->a4, f->dd, (size_t *)IDX))           \
    X(ex_fold_beta, NS, "beta", cudnnTransformTensorEx(H, f->tr, ONE, f->dx, A, &f->half, f->fd4, C))                \
    X(ex_dest_dims, BAD, "cudnnInitTransformDest", cudnnTransformTensorEx(H, f->tr, ONE, f->a4, A, ZERO, f->c4, C))  \
    X(ex_rank, BAD, "dims", cudnnTransformTensorEx(H, f->tp, ONE, f->a4, A, ZERO, f->t5, C))                         \
    X(ex_null_data, BAD, "NULL", cudnnTransformTensorEx(H, f->tp, ONE, f->a4, NULL, ZERO, f->c4, C))                 \
    X(ex_unset_src, BAD, "never set", cudnnTransformTensorEx(H, f->tp, ONE, f->tu, A, ZERO, f->c4, C))               \
    X(filt_dest_dims, BAD, "cudnnInitTransformDest", cudnnTransformFilter(H, f->tr, ONE, f->fl, A, ZERO, f->fl, C))  \
    X(filt_rank, BAD, "dims", cudnnTransformFilter(H, f->tp, ONE, f->fl, A, ZERO, f->fl5, C))                        \
    X(reorder_float, NS, "INT8x32", cudnnReorderFilterAndBias(H, f->fl, CUDNN_DEFAULT_REORDER, f->buf[B_F].data,     \
                                                              f->buf[B_RF].data, 0, NULL, NULL))                    \
    X(reorder_null_bias, BAD, "NULL", cudnnReorderFilterAndBias(H, f->f8, CUDNN_DEFAULT_REORDER, f->buf[B_F].data,   \
                                                                f->buf[B_RF].data, 1, NULL, f->buf[B_RB].data))     \
    X(reorder_type, BAD, "reorderType", cudnnReorderFilterAndBias(H, f->f8, (cudnnReorderType_t)5, f->buf[B_F].data, \
                                                                  f->buf[B_RF].data, 0, NULL, NULL))                \
    X(reorder_alias, BAD, "overlaps", cudnnReorderFilterAndBias(H, f->f8, CUDNN_NO_REORDER, f->buf[B_F].data,        \
                                                                (char *)f->buf[B_F].data + 16, 0, NULL, NULL))      \
    X(fold_rank, BAD, "4 dims", cudnnGetFoldedConvBackwardDataDescriptors(                                           \
                                    H, f->fl5, f->dy, f->cv, f->x5, CUDNN_TENSOR_NCHW, f->ffd, f->pdd, f->fcd,      \
                                    f->fgd, f->t1, f->t2, f->t3, f->t4))                                            \
    X(fold_true_conv, NS, "CUDNN_CONVOLUTION", cudnnGetFoldedConvBackwardDataDescriptors(                            \
                                                   H, f->fl, f->dy, f->cvc, f->dx, CUDNN_TENSOR_NCHW, f->ffd,       \
                                                   f->pdd, f->fcd, f->fgd, f->t1, f->t2, f->t3, f->t4))             \
    X(fold_null_out, BAD, "gradUnfoldTransDesc", cudnnGetFoldedConvBackwardDataDescriptors(                          \
                                                     H, f->fl, f->dy, f->cv, f->dx, CUDNN_TENSOR_NCHW, f->ffd,      \
                                                     f->pdd, f->fcd, f->fgd, f->t1, f->t2, f->t3, NULL))            \
    X(fold_vect, NS, "VECT", cudnnGetFoldedConvBackwardDataDescriptors(H, f->fl, f->dy, f->cv, f->dx,                \
                                                                       CUDNN_TENSOR_NCHW_VECT_C, f->ffd, f->pdd,    \
                                                                       f->fcd, f->fgd, f->t1, f->t2, f->t3, f->t4)) \
    X(fold_dy_shape, BAD, "dim", cudnnGetFoldedConvBackwardDataDescriptors(H, f->fl, f->dybad, f->cv, f->dx,         \
                                                                           CUDNN_TENSOR_NCHW, f->ffd, f->pdd,       \
                                                                           f->fcd, f->fgd, f->t1, f->t2, f->t3,     \
                                                                           f->t4))                                  \
    X(fold_channels, BAD, "C", cudnnGetFoldedConvBackwardDataDescriptors(H, f->flbad, f->dy, f->cv, f->dx,           \
                                                                         CUDNN_TENSOR_NCHW, f->ffd, f->pdd, f->fcd, \
                                                                         f->fgd, f->t1, f->t2, f->t3, f->t4))       \
    X(fold_ok, OK, NULL, cudnnGetFoldedConvBackwardDataDescriptors(H, f->fl, f->dy, f->cv, f->dx, CUDNN_TENSOR_NHWC, \
                                                                   f->ffd, f->pdd, f->fcd, f->fgd, f->t1, f->t2,    \
                                                                   f->t3, f->t4))                                   \
    /* ---- reductions ---- */                                                                                      \
    X(rd_ok, OK, NULL, cudnnReduceTensor(H, f->rd, IDX, 256, WS, f->wss, ONE, f->a4, A, ZERO, f->cr, C))             \
    X(rd_set_op, BAD, "reduceTensorOp", cudnnSetReduceTensorDescriptor(f->rd, (cudnnReduceTensorOp_t)9,              \
                                                                       CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,   \
                                                                       CUDNN_REDUCE_TENSOR_NO_INDICES,              \
                                                                       CUDNN_32BIT_INDICES))                        \
    X(rd_set_comp, BAD, "CompType", cudnnSetReduceTensorDescriptor(f->rd, CUDNN_REDUCE_TENSOR_ADD,                   \
                                                                   (cudnnDataType_t)99, CUDNN_NOT_PROPAGATE_NAN,    \
                                                                   CUDNN_REDUCE_TENSOR_NO_INDICES,                  \
                                                                   CUDNN_32BIT_INDICES))                            \
    X(rd_set_nan, BAD, "NanOpt", cudnnSetReduceTensorDescriptor(f->rd, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT,    \
                                                                (cudnnNanPropagation_t)3,                           \
                                                                CUDNN_REDUCE_TENSOR_NO_INDICES,                     \
                                                                CUDNN_32BIT_INDICES))                               \
    X(rd_set_indices, BAD, "reduceTensorIndices", cudnnSetReduceTensorDescriptor(f->rd, CUDNN_REDUCE_TENSOR_ADD,     \
                                                                                 CUDNN_DATA_FLOAT,                  \
                                                                                 CUDNN_NOT_PROPAGATE_NAN,           \
                                                                                 (cudnnReduceTensorIndices_t)2,     \
                                                                                 CUDNN_32BIT_INDICES))              \
    X(rd_set_index_type, BAD, "IndicesType", cudnnSetReduceTensorDescriptor(f->rd, CUDNN_REDUCE_TENSOR_ADD,          \
                                                                            CUDNN_DATA_FLOAT,                       \
                                                                            CUDNN_NOT_PROPAGATE_NAN,                \
                                                                            CUDNN_REDUCE_TENSOR_NO_INDICES,         \
                                                                            (cudnnIndicesType_t)4))                 \
    X(rd_get_unset, BAD, "never set", cudnnGetReduceTensorDescriptor(                                                \
                                          f->rdu, (cudnnReduceTensorOp_t *)IDX, (cudnnDataType_t *)IDX,             \
                                          (cudnnNanPropagation_t *)IDX, (cudnnReduceTensorIndices_t *)IDX,          \
                                          (cudnnIndicesType_t *)IDX))                                               \
    X(rd_create_null, BAD, "NULL", cudnnCreateReduceTensorDescriptor(NULL))                                          \
    X(rd_isize_null, BAD, "NULL", cudnnGetReductionIndicesSize(H, f->rd, f->a4, f->cr, NULL))                        \
    X(rd_isize_shape, BAD, "dim 2", cudnnGetReductionIndicesSize(H, f->rd, f->a4, f->crbad, (size_t *)IDX))          \
    X(rd_wsize_rank, BAD, "dims", cudnnGetReductionWorkspaceSize(H, f->rd, f->t5, f->cr, (size_t *)IDX))             \
    X(rd_wsize_unset, BAD, "never set", cudnnGetReductionWorkspaceSize(H, f->rdu, f->a4, f->cr, (size_t *)IDX))      \
    X(rd_indices_small, BAD, "indices", cudnnReduceTensor(H, f->rd, IDX, 11, NULL, 0, ONE, f->a4, A, ZERO, f->cr, C)) \
    X(rd_indices_null, BAD, "indices", cudnnReduceTensor(H, f->rd, NULL, 256, NULL, 0, ONE, f->a4, A, ZERO, f->cr,   \
                                                         C))                                                        \
    X(rd_64bit_indices, NS, "32BIT", cudnnReduceTensor(H, f->rd64, IDX, 256, NULL, 0, ONE, f->a4, A, ZERO, f->cr,    \
                                                       C))                                                          \
    X(rd_mixed_double, NS, "DOUBLE", cudnnReduceTensor(H, f->rd, IDX, 256, NULL, 0, ONE, f->h4, A, ZERO, f->d4, C))  \
    X(rd_comp_double, NS, "DOUBLE", cudnnReduceTensor(H, f->rdd, NULL, 0, NULL, 0, ONE, f->a4, A, ZERO, f->cr, C))   \
    X(rd_int8, NS, "INT8", cudnnReduceTensor(H, f->rd, IDX, 256, NULL, 0, ONE, f->i8, A, ZERO, f->i8, C))            \
    X(rd_null_a, BAD, "NULL", cudnnReduceTensor(H, f->rd, IDX, 256, NULL, 0, ONE, f->a4, NULL, ZERO, f->cr, C))      \
    X(rd_alias, BAD, "overlaps", cudnnReduceTensor(H, f->rd, IDX, 256, NULL, 0, ONE, f->a4, A, ZERO, f->cr,          \
                                                   (char *)A + 8))                                                  \
    X(rd_unset_desc, BAD, "never set", cudnnReduceTensor(H, f->rdu, IDX, 256, NULL, 0, ONE, f->a4, A, ZERO, f->cr, C)) \
    X(rd_garbage_handle, BAD, "handle", cudnnReduceTensor((cudnnHandle_t)GARBAGE, f->rd, IDX, 256, NULL, 0, ONE,     \
                                                          f->a4, A, ZERO, f->cr, C))                                \
    X(rd_overlapping_c, BAD, "overlapping", cudnnReduceTensor(H, f->rd, IDX, 256, NULL, 0, ONE, f->a4, A, ZERO, f->ovl, \
                                                              C))

/* clang-format on */

typedef struct {
    const char *name;
    cudnnStatus_t want;
    const char *needle;
    cudnnStatus_t (*call)(fx_t *f);
} row_t;

#define DEFINE_ROW(name, want, needle, expr)                                                       \
    static cudnnStatus_t row_##name(fx_t *f)                                                       \
    {                                                                                              \
        (void)f;                                                                                   \
        return (expr);                                                                             \
    }
ROWS(DEFINE_ROW)
#undef DEFINE_ROW
#define LIST_ROW(name, want, needle, expr) {#name, want, needle, row_##name},
static const row_t rows[] = {ROWS(LIST_ROW)};
#undef LIST_ROW

static void run_row(const row_t *r)
{
    fx_t fx, *f = &fx;
    fx_init(f);
    if (f->setup_failed) {
        fx_free(f);
        return;
    }
    snap_t before, after;
    snap_take(f, &before);
    cudnnCreateTensorDescriptor(NULL); /* sentinel error */
    char sentinel[512], last[512];
    cudnnGetLastErrorString(sentinel, sizeof sentinel);
    cudnnStatus_t st = r->call(f);
    cudnnGetLastErrorString(last, sizeof last);
    FD_EXPECT(st == r->want, "%s: returned %s, want %s (reason: %s)", r->name,
              cudnnGetErrorString(st), cudnnGetErrorString(r->want), last);
    for (int b = 0; b < B_COUNT; b++)
        FD_EXPECT(fd_buf_guards_ok(&f->buf[b]), "%s: guard of %s changed", r->name, buf_names[b]);
    if (r->want != CUDNN_STATUS_SUCCESS && st == r->want) {
        FD_EXPECT(last[0] != '\0' && strcmp(last, sentinel) != 0,
                  "%s: the rejection left no reason", r->name);
        if (r->needle)
            FD_EXPECT(strstr(last, r->needle) != NULL, "%s: reason \"%s\" does not mention \"%s\"",
                      r->name, last, r->needle);
        snap_take(f, &after);
        for (int b = 0; b < B_COUNT; b++)
            FD_EXPECT(before.hash[b] == after.hash[b], "%s: buffer %s was written", r->name,
                      buf_names[b]);
        FD_EXPECT(memcmp(before.t, after.t, sizeof before.t) == 0,
                  "%s: a tensor descriptor changed", r->name);
        FD_EXPECT(before.fst == after.fst &&
                      memcmp(before.fdim, after.fdim, sizeof before.fdim) == 0,
                  "%s: the folded filter descriptor changed", r->name);
        FD_EXPECT(before.cst == after.cst &&
                      memcmp(before.cpad, after.cpad, sizeof before.cpad) == 0,
                  "%s: the folded convolution descriptor changed", r->name);
        FD_EXPECT(memcmp(before.op, after.op, sizeof before.op) == 0,
                  "%s: an op-tensor descriptor changed", r->name);
        FD_EXPECT(memcmp(before.rd, after.rd, sizeof before.rd) == 0,
                  "%s: a reduce descriptor changed", r->name);
        FD_EXPECT(memcmp(before.x, after.x, sizeof before.x) == 0,
                  "%s: a transform descriptor changed", r->name);
    }
    fx_free(f);
}

int main(void)
{
    const int n = (int)(sizeof rows / sizeof rows[0]);
    int fam[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        run_row(&rows[i]);
        fam[rows[i].name[0] == 'r' && rows[i].name[1] == 'd' ? 2
            : (strncmp(rows[i].name, "add", 3) == 0 || strncmp(rows[i].name, "op", 2) == 0 ||
               strncmp(rows[i].name, "set", 3) == 0 || strncmp(rows[i].name, "scale", 5) == 0)
                ? 0
                : 1]++;
    }
    printf("%d rows: %d elementwise, %d transform, %d reduce\n", n, fam[0], fam[1], fam[2]);
    FD_EXPECT(fam[0] >= 10 && fam[1] >= 10 && fam[2] >= 10, "at least 10 rows per sub-family");
    return fd_test_finish();
}
