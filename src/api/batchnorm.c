/* SPDX-License-Identifier: MIT */
/*
 * batchnorm.c - batch normalization: cudnnDeriveBNTensorDescriptor, forward inference, forward
 * training (plain and *Ex with a fused activation / add + activation), backward (plain and
 * *Ex), the *Ex workspace and reserve-space queries; and the problem builder that the cuDNN 8
 * normalization entries (normalization.c) share.
 *
 * Validation as observed on cuDNN 9.19 (contract §1.2.2): NULL data / scale / bias / mean /
 * variance / alpha / beta pointers, exactly one of resultSaveMean / resultSaveInvVariance (or
 * savedMean / savedInvVariance) NULL, epsilon < 0 (CUDNN_BN_MIN_EPSILON is 0; NaN passes, as in
 * 9.19), an invalid mode or bnOps, data ranks other than 4 and 5, mismatched dims or types,
 * negative strides, a parameter descriptor that is not the packed derived one -> BAD_PARAM;
 * data types other than FLOAT / DOUBLE / HALF / BFLOAT16 -> NOT_SUPPORTED. resultRunningMean and
 * resultRunningVariance may each be NULL (that one is then not updated, as 9.19). Any
 * exponentialAverageFactor is accepted; with factor 1 the old running values are not read.
 * In place: y may be x (or z), dx may be x or dy, dz may be x or dy, with the same strides;
 * other overlaps of an output with an input are NOT_SUPPORTED, of two outputs BAD_PARAM.
 * SPATIAL_PERSISTENT computes exactly what SPATIAL does (no overflow, so
 * cudnnQueryRuntimeError has nothing to report).
 */
#include <math.h>
#include <string.h>

#include "../core/batchnorm.h"
#include "../core/op.h"

/* ---- descriptors ---------------------------------------------------------------------- */

static int dtype_computed(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_DOUBLE || dt == CUDNN_DATA_HALF ||
           dt == CUDNN_DATA_BFLOAT16;
}

/* The parameter type cuDNN derives: DOUBLE for DOUBLE data, FLOAT for everything else. */
static cudnnDataType_t param_dtype(cudnnDataType_t x)
{
    return x == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}

static const char *mode_name(int per_activation)
{
    return per_activation ? "per-activation" : "per-channel";
}

cudnnStatus_t fd_bn_derive(cudnnTensorDescriptor_t out, cudnnTensorDescriptor_t x,
                           int per_activation)
{
    FD_TRY(fd_tensor_check(x, "xDesc"));
    FD_CHECK(out != NULL, CUDNN_STATUS_BAD_PARAM, "the derived descriptor is NULL");
    FD_CHECK(out->magic == FD_MAGIC_TENSOR, CUDNN_STATUS_BAD_PARAM,
             "the derived descriptor (%p) is not a live tensor descriptor", (void *)out);
    struct cudnnTensorStruct t = {.magic = FD_MAGIC_TENSOR,
                                  .is_set = 1,
                                  .dtype = param_dtype(x->dtype),
                                  .nb_dims = x->nb_dims,
                                  .vect = 1};
    for (int i = 0; i < x->nb_dims; i++)
        t.dim[i] = i == 0 ? 1 : i == 1 || per_activation ? x->dim[i] : 1;
    int64_t acc = 1;
    for (int i = x->nb_dims - 1; i >= 0; i--) { /* packed NCHW; no larger than x, so int-safe */
        t.stride[i] = (int)acc;
        acc *= t.dim[i];
    }
    *out = t;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnDeriveBNTensorDescriptor(cudnnTensorDescriptor_t derivedBnDesc,
                                                        const cudnnTensorDescriptor_t xDesc,
                                                        cudnnBatchNormMode_t mode)
{
    FD_API(NULL);
    FD_CHECK(
        (int)mode >= 0 && (int)mode <= (int)CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
        CUDNN_STATUS_BAD_PARAM,
        "mode %d is not a cudnnBatchNormMode_t value (PER_ACTIVATION 0 .. SPATIAL_PERSISTENT 2)",
        (int)mode);
    return fd_bn_derive(derivedBnDesc, xDesc, mode == CUDNN_BATCHNORM_PER_ACTIVATION);
}

/* ---- the problem ---------------------------------------------------------------------- */

/* A data tensor other than x: same dims and type as x, no negative stride; an output may not
 * overlap itself. */
static cudnnStatus_t check_data(struct cudnnTensorStruct *dst, cudnnTensorDescriptor_t d,
                                const char *name, const struct cudnnTensorStruct *x, int output)
{
    FD_TRY(fd_tensor_check(d, name));
    FD_CHECK(d->nb_dims == x->nb_dims, CUDNN_STATUS_BAD_PARAM, "%s has %d dims but xDesc has %d",
             name, d->nb_dims, x->nb_dims);
    for (int i = 0; i < x->nb_dims; i++)
        FD_CHECK(d->dim[i] == x->dim[i], CUDNN_STATUS_BAD_PARAM,
                 "%s dim %d is %d but xDesc dim %d is %d; the shapes must match", name, i,
                 d->dim[i], i, x->dim[i]);
    FD_CHECK(d->dtype == x->dtype, CUDNN_STATUS_BAD_PARAM, "%s is %s but xDesc is %s", name,
             fd_dtype_name(d->dtype), fd_dtype_name(x->dtype));
    FD_CHECK(!fd_tensor_has_negative_stride(d), CUDNN_STATUS_BAD_PARAM,
             "%s has a negative stride; batch normalization does not take negative strides", name);
    FD_CHECK(!output || fd_tensor_is_non_overlapping(d), CUDNN_STATUS_BAD_PARAM,
             "%s is an output whose strides make elements overlap", name);
    *dst = *d;
    return CUDNN_STATUS_SUCCESS;
}

/* A parameter tensor: the packed shape cudnnDeriveBNTensorDescriptor gives, any dim order. */
static cudnnStatus_t check_param(struct cudnnTensorStruct *dst, cudnnTensorDescriptor_t d,
                                 const char *name, const struct cudnnTensorStruct *x,
                                 int per_activation)
{
    FD_TRY(fd_tensor_check(d, name));
    FD_CHECK(d->nb_dims == x->nb_dims, CUDNN_STATUS_BAD_PARAM, "%s has %d dims but xDesc has %d",
             name, d->nb_dims, x->nb_dims);
    for (int i = 0; i < x->nb_dims; i++) {
        int want = i == 0 ? 1 : i == 1 || per_activation ? x->dim[i] : 1;
        FD_CHECK(d->dim[i] == want, CUDNN_STATUS_BAD_PARAM,
                 "%s dim %d is %d; %s mode needs %d (see cudnnDeriveBNTensorDescriptor)", name, i,
                 d->dim[i], mode_name(per_activation), want);
    }
    FD_CHECK(d->dtype == param_dtype(x->dtype), CUDNN_STATUS_BAD_PARAM,
             "%s is %s; %s data needs %s parameters", name, fd_dtype_name(d->dtype),
             fd_dtype_name(x->dtype), fd_dtype_name(param_dtype(x->dtype)));
    FD_CHECK(!fd_tensor_has_negative_stride(d) && fd_tensor_is_non_overlapping(d) &&
                 fd_tensor_extent(d) == fd_tensor_elements(d),
             CUDNN_STATUS_BAD_PARAM, "%s is not packed (its strides leave gaps or overlap)", name);
    *dst = *d;
    return CUDNN_STATUS_SUCCESS;
}

/* Reads the fused activation from the activation family's descriptor. */
static cudnnStatus_t read_activation(fd_bn_act_t *act, const char *api, cudnnHandle_t handle,
                                     cudnnActivationDescriptor_t desc, cudnnBatchNormOps_t ops)
{
    (void)api, (void)handle;
    FD_CHECK(desc != NULL, CUDNN_STATUS_BAD_PARAM,
             "activationDesc is NULL but bnOps %d fuses an activation", (int)ops);
    FD_TRY(fd_act_desc_check(desc, "activationDesc"));
    cudnnActivationMode_t mode = desc->p.mode;
    FD_CHECK(mode != CUDNN_ACTIVATION_IDENTITY, CUDNN_STATUS_NOT_SUPPORTED,
             "CUDNN_ACTIVATION_IDENTITY is not fused into batch normalization (it serves "
             "cudnnConvolutionBiasActivationForward); use the plain BN ops");
    FD_CHECK(mode == CUDNN_ACTIVATION_RELU || mode == CUDNN_ACTIVATION_CLIPPED_RELU ||
                 mode == CUDNN_ACTIVATION_SIGMOID || mode == CUDNN_ACTIVATION_TANH ||
                 mode == CUDNN_ACTIVATION_ELU || mode == CUDNN_ACTIVATION_SWISH,
             CUDNN_STATUS_BAD_PARAM, "activation mode %d is not a cudnnActivationMode_t value",
             (int)mode);
    *act = desc->p;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t fd_bn_problem_init(fd_bn_problem_t *p, const char *api, cudnnHandle_t handle,
                                 fd_bn_dir_t dir, int per_activation, cudnnBatchNormOps_t ops,
                                 cudnnActivationDescriptor_t act, const fd_bn_descs_t *d,
                                 double epsilon)
{
    fd_bn_problem_t q;
    memset(&q, 0, sizeof q);
    q.dir = dir;
    q.per_activation = per_activation;
    q.ops = ops;
    q.epsilon = epsilon;
    FD_CHECK(
        (int)ops >= 0 && (int)ops <= (int)CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION,
        CUDNN_STATUS_BAD_PARAM,
        "bnOps %d is not a cudnnBatchNormOps_t value (BN 0, BN_ACTIVATION 1, BN_ADD_ACTIVATION 2)",
        (int)ops);
    FD_CHECK(!(epsilon < 0.0), CUDNN_STATUS_BAD_PARAM,
             "epsilon is %g; it must be at least CUDNN_BN_MIN_EPSILON (%g)", epsilon,
             (double)CUDNN_BN_MIN_EPSILON);
    FD_TRY(fd_tensor_check(d->x, "xDesc"));
    const struct cudnnTensorStruct *x = d->x;
    FD_CHECK(x->nb_dims == 4 || x->nb_dims == 5, CUDNN_STATUS_BAD_PARAM,
             "xDesc has %d dims; batch normalization takes 4-d and 5-d tensors", x->nb_dims);
    FD_CHECK(
        dtype_computed(x->dtype), CUDNN_STATUS_NOT_SUPPORTED,
        "batch normalization of %s data is not implemented (FLOAT, DOUBLE, HALF and BFLOAT16 are)",
        fd_dtype_name(x->dtype));
    FD_CHECK(!fd_tensor_has_negative_stride(x), CUDNN_STATUS_BAD_PARAM,
             "xDesc has a negative stride; batch normalization does not take negative strides");
    q.x = *x;
    if (dir == FD_BN_BWD) {
        FD_TRY(check_data(&q.dy, d->dy, "dyDesc", x, 0));
        FD_TRY(check_data(&q.dx, d->dx, "dxDesc", x, 1));
    } else {
        FD_TRY(check_data(&q.y, d->y, "yDesc", x, 1));
    }
    if (ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION) {
        if (dir == FD_BN_BWD) {
            FD_CHECK(d->dz != NULL, CUDNN_STATUS_BAD_PARAM,
                     "dzDesc is NULL but BN_ADD_ACTIVATION produces dz");
            FD_TRY(check_data(&q.dz, d->dz, "dzDesc", x, 1));
        } else {
            FD_CHECK(d->z != NULL, CUDNN_STATUS_BAD_PARAM,
                     "zDesc is NULL but BN_ADD_ACTIVATION adds z");
            FD_TRY(check_data(&q.z, d->z, "zDesc", x, 0));
        }
    }
    FD_TRY(check_param(&q.sb, d->sb,
                       dir == FD_BN_BWD ? "the scale/bias gradient descriptor"
                                        : "the scale/bias descriptor",
                       x, per_activation));
    FD_TRY(check_param(&q.mv, d->mv, "the mean/variance descriptor", x, per_activation));
    if (ops != CUDNN_BATCHNORM_OPS_BN)
        FD_TRY(read_activation(&q.act, api, handle, act, ops));
    *p = q;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- pointers ------------------------------------------------------------------------- */

enum { IN_DATA, OUT_DATA, IN_OTHER, OUT_OTHER };
typedef struct {
    const char *name;
    const void *ptr;
    const struct cudnnTensorStruct *t; /* NULL: `bytes` raw bytes */
    size_t bytes;
    int kind;
} span_t;

static void span_bounds(const span_t *s, uintptr_t *lo, uintptr_t *hi)
{
    size_t n =
        s->t != NULL ? (size_t)fd_tensor_extent(s->t) * fd_dtype_size(s->t->dtype) : s->bytes;
    *lo = (uintptr_t)s->ptr;
    *hi = *lo + n; /* exclusive */
}

static int same_layout(const struct cudnnTensorStruct *a, const struct cudnnTensorStruct *b)
{
    for (int i = 0; i < a->nb_dims; i++)
        if (a->dim[i] != 1 && a->stride[i] != b->stride[i])
            return 0;
    return 1;
}

/* An output against every other buffer of the call. */
static cudnnStatus_t check_spans(const span_t *s, int n)
{
    for (int i = 0; i < n; i++) {
        if (s[i].kind != OUT_DATA && s[i].kind != OUT_OTHER)
            continue;
        uintptr_t a0, a1;
        span_bounds(&s[i], &a0, &a1);
        for (int j = 0; j < n; j++) {
            if (j == i)
                continue;
            uintptr_t b0, b1;
            span_bounds(&s[j], &b0, &b1);
            if (a1 <= b0 || b1 <= a0 || a0 == a1 || b0 == b1)
                continue;
            int output = s[j].kind == OUT_DATA || s[j].kind == OUT_OTHER;
            FD_CHECK(!output, CUDNN_STATUS_BAD_PARAM, "the outputs %s and %s overlap", s[i].name,
                     s[j].name);
            if (s[i].kind == OUT_DATA && s[j].kind == IN_DATA && s[i].ptr == s[j].ptr) {
                FD_CHECK(same_layout(s[i].t, s[j].t), CUDNN_STATUS_BAD_PARAM,
                         "%s == %s (in place) but their descriptors have different strides",
                         s[i].name, s[j].name);
                continue;
            }
            FD_CHECK(0, CUDNN_STATUS_NOT_SUPPORTED,
                     "%s overlaps %s; only an exact in-place data tensor (same pointer, same "
                     "strides) is supported",
                     s[i].name, s[j].name);
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t fd_bn_check_pointers(const fd_bn_problem_t *p, const fd_bn_args_t *a)
{
    span_t s[16];
    int n = 0;
#define ADD(nm, pp, tt, by, kd)                                                                    \
    do {                                                                                           \
        if ((pp) != NULL)                                                                          \
            s[n++] = (span_t){nm, pp, tt, by, kd};                                                 \
    } while (0)
    ADD("x", a->x, &p->x, 0, IN_DATA);
    ADD("scale", a->scale, &p->sb, 0, IN_OTHER);
    if (p->ops == CUDNN_BATCHNORM_OPS_BN_ACTIVATION || p->dir != FD_BN_BWD)
        ADD("bias", a->bias, &p->sb, 0, IN_OTHER);
    size_t reserve = fd_bn_reserve_size(p->ops, p->act.mode, fd_bn_elements(p));
    if (p->dir == FD_BN_BWD) {
        ADD("dy", a->dy, &p->dy, 0, IN_DATA);
        ADD("dx", a->dx, &p->dx, 0, OUT_DATA);
        ADD("dz", a->dz, &p->dz, 0, OUT_DATA);
        ADD("savedMean", a->mean, &p->mv, 0, IN_OTHER);
        ADD("savedInvVariance", a->var, &p->mv, 0, IN_OTHER);
        ADD("dBnScale", a->dscale, &p->sb, 0, OUT_OTHER);
        ADD("dBnBias", a->dbias, &p->sb, 0, OUT_OTHER);
        ADD("reserveSpace", a->reserve, NULL, reserve, IN_OTHER);
    } else {
        ADD("y", a->y, &p->y, 0, OUT_DATA);
        ADD("z", a->z, &p->z, 0, IN_DATA);
        if (p->dir == FD_BN_INFER) {
            ADD("estimatedMean", a->mean, &p->mv, 0, IN_OTHER);
            ADD("estimatedVariance", a->var, &p->mv, 0, IN_OTHER);
        } else {
            ADD("resultRunningMean", a->run_mean, &p->mv, 0, OUT_OTHER);
            ADD("resultRunningVariance", a->run_var, &p->mv, 0, OUT_OTHER);
            ADD("resultSaveMean", a->save_mean, &p->mv, 0, OUT_OTHER);
            ADD("resultSaveInvVariance", a->save_inv, &p->mv, 0, OUT_OTHER);
            ADD("reserveSpace", a->reserve, NULL, reserve, OUT_OTHER);
        }
    }
#undef ADD
    return check_spans(s, n);
}

/* ---- dispatch ------------------------------------------------------------------------- */

static fd_op_t op_of(fd_bn_dir_t dir)
{
    return dir == FD_BN_INFER   ? FD_OP_BN_FWD_INFER
           : dir == FD_BN_TRAIN ? FD_OP_BN_FWD_TRAIN
                                : FD_OP_BN_BWD;
}

/* Workspace of the implementation that would run `p`. */
static cudnnStatus_t workspace_of(cudnnHandle_t handle, const fd_bn_problem_t *p, size_t *size)
{
    char why[512];
    const fd_op_impl_t *impl = fd_op_select(op_of(p->dir), handle->backend, p, why, sizeof why);
    FD_CHECK(impl != NULL, CUDNN_STATUS_NOT_SUPPORTED, "%s: %s", fd_op_name(op_of(p->dir)), why);
    *size = impl->workspace(p);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t fd_bn_run(cudnnHandle_t handle, const fd_bn_problem_t *p, const fd_bn_args_t *a)
{
    return fd_op_run(handle, op_of(p->dir), p, a);
}

/* Workspace and reserve space handed to an Ex / v8 call: enough, or BAD_PARAM before any write. */
static cudnnStatus_t check_buffers(cudnnHandle_t handle, const fd_bn_problem_t *p, void *ws,
                                   size_t ws_size, const void *reserve, size_t reserve_size)
{
    size_t need = 0;
    FD_TRY(workspace_of(handle, p, &need));
    FD_CHECK(ws_size >= need && (need == 0 || ws != NULL), CUDNN_STATUS_BAD_PARAM,
             "the workspace is %p with %zu bytes; this call needs %zu", ws, ws_size, need);
    size_t rneed = fd_bn_reserve_size(p->ops, p->act.mode, fd_bn_elements(p));
    FD_CHECK(reserve_size >= rneed && (rneed == 0 || reserve != NULL), CUDNN_STATUS_BAD_PARAM,
             "the reserve space is %p with %zu bytes; this call needs %zu (see "
             "cudnnGetBatchNormalizationTrainingExReserveSpaceSize)",
             reserve, reserve_size, rneed);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- shared entry bodies (also used by normalization.c through these wrappers) ---------- */

static cudnnStatus_t check_mode(cudnnBatchNormMode_t mode)
{
    FD_CHECK(
        (int)mode >= 0 && (int)mode <= (int)CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
        CUDNN_STATUS_BAD_PARAM,
        "mode %d is not a cudnnBatchNormMode_t value (PER_ACTIVATION 0 .. SPATIAL_PERSISTENT 2)",
        (int)mode);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t train(const char *api, cudnnHandle_t handle, cudnnBatchNormMode_t mode,
                           cudnnBatchNormOps_t ops, const void *alpha, const void *beta,
                           const fd_bn_descs_t *d, fd_bn_args_t *a, double epsilon,
                           cudnnActivationDescriptor_t act, void *ws, size_t ws_size,
                           size_t reserve_size, int check_ws)
{
    FD_TRY(check_mode(mode));
    FD_CHECK(alpha && beta && a->x && a->y && a->scale && a->bias, CUDNN_STATUS_BAD_PARAM,
             "a required pointer is NULL (alpha %p, beta %p, x %p, y %p, bnScale %p, bnBias %p)",
             alpha, beta, a->x, (void *)a->y, a->scale, a->bias);
    FD_CHECK((a->save_mean == NULL) == (a->save_inv == NULL), CUDNN_STATUS_BAD_PARAM,
             "exactly one of resultSaveMean (%p) and resultSaveInvVariance (%p) is NULL; pass both "
             "or neither",
             a->save_mean, a->save_inv);
    FD_CHECK(ops != CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION || a->z != NULL, CUDNN_STATUS_BAD_PARAM,
             "zData is NULL but BN_ADD_ACTIVATION adds z");
    fd_bn_problem_t p;
    FD_TRY(fd_bn_problem_init(&p, api, handle, FD_BN_TRAIN, mode == CUDNN_BATCHNORM_PER_ACTIVATION,
                              ops, act, d, epsilon));
    if (ops != CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION)
        a->z = NULL;
    if (check_ws) {
        FD_TRY(check_buffers(handle, &p, ws, ws_size, a->reserve, reserve_size));
        a->workspace = ws;
        a->workspace_size = ws_size;
    }
    a->reserve_size = fd_bn_reserve_size(p.ops, p.act.mode, fd_bn_elements(&p));
    if (a->reserve_size == 0)
        a->reserve = NULL;
    a->alpha = fd_scale_value(alpha, p.y.dtype);
    a->beta = fd_scale_value(beta, p.y.dtype);
    FD_TRY(fd_bn_check_pointers(&p, a));
    a->handle = handle;
    return fd_bn_run(handle, &p, a);
}

static cudnnStatus_t backward(const char *api, cudnnHandle_t handle, cudnnBatchNormMode_t mode,
                              cudnnBatchNormOps_t ops, const void *alphaD, const void *betaD,
                              const void *alphaP, const void *betaP, const fd_bn_descs_t *d,
                              fd_bn_args_t *a, double epsilon, cudnnActivationDescriptor_t act,
                              void *ws, size_t ws_size, size_t reserve_size, int check_ws)
{
    FD_TRY(check_mode(mode));
    FD_CHECK(alphaD && betaD && alphaP && betaP, CUDNN_STATUS_BAD_PARAM,
             "a scaling pointer is NULL (alphaDataDiff %p, betaDataDiff %p, alphaParamDiff %p, "
             "betaParamDiff %p)",
             alphaD, betaD, alphaP, betaP);
    FD_CHECK(a->x && a->dy && a->dx && a->scale && a->dscale && a->dbias, CUDNN_STATUS_BAD_PARAM,
             "a required pointer is NULL (x %p, dy %p, dx %p, bnScale %p, dBnScaleResult %p, "
             "dBnBiasResult %p)",
             a->x, a->dy, (void *)a->dx, a->scale, a->dscale, a->dbias);
    FD_CHECK(
        (a->mean == NULL) == (a->var == NULL), CUDNN_STATUS_BAD_PARAM,
        "exactly one of savedMean (%p) and savedInvVariance (%p) is NULL; pass both or neither",
        a->mean, a->var);
    FD_CHECK(ops != CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION || a->dz != NULL, CUDNN_STATUS_BAD_PARAM,
             "dzData is NULL but BN_ADD_ACTIVATION produces dz");
    FD_CHECK(ops != CUDNN_BATCHNORM_OPS_BN_ACTIVATION || a->bias != NULL, CUDNN_STATUS_BAD_PARAM,
             "bnBiasData is NULL but BN_ACTIVATION needs it to recompute the activation input");
    fd_bn_problem_t p;
    FD_TRY(fd_bn_problem_init(&p, api, handle, FD_BN_BWD, mode == CUDNN_BATCHNORM_PER_ACTIVATION,
                              ops, act, d, epsilon));
    if (ops != CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION)
        a->dz = NULL;
    if (ops != CUDNN_BATCHNORM_OPS_BN_ACTIVATION)
        a->bias = NULL;
    if (check_ws) {
        FD_TRY(check_buffers(handle, &p, ws, ws_size, a->reserve, reserve_size));
        a->workspace = ws;
        a->workspace_size = ws_size;
    }
    a->reserve_size = fd_bn_reserve_size(p.ops, p.act.mode, fd_bn_elements(&p));
    if (a->reserve_size == 0)
        a->reserve = NULL;
    a->alpha = fd_scale_value(alphaD, p.dx.dtype);
    a->beta = fd_scale_value(betaD, p.dx.dtype);
    a->alpha_param = fd_scale_value(alphaP, p.sb.dtype);
    a->beta_param = fd_scale_value(betaP, p.sb.dtype);
    FD_TRY(fd_bn_check_pointers(&p, a));
    a->handle = handle;
    return fd_bn_run(handle, &p, a);
}

static cudnnStatus_t infer(const char *api, cudnnHandle_t handle, int per_activation,
                           cudnnBatchNormOps_t ops, const void *alpha, const void *beta,
                           const fd_bn_descs_t *d, fd_bn_args_t *a, double epsilon,
                           cudnnActivationDescriptor_t act)
{
    FD_CHECK(alpha && beta && a->x && a->y && a->scale && a->bias && a->mean && a->var,
             CUDNN_STATUS_BAD_PARAM,
             "a required pointer is NULL (alpha %p, beta %p, x %p, y %p, scale %p, bias %p, "
             "estimatedMean %p, estimatedVariance %p)",
             alpha, beta, a->x, (void *)a->y, a->scale, a->bias, a->mean, a->var);
    FD_CHECK(ops != CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION || a->z != NULL, CUDNN_STATUS_BAD_PARAM,
             "z is NULL but the ADD_ACTIVATION ops add z");
    fd_bn_problem_t p;
    FD_TRY(fd_bn_problem_init(&p, api, handle, FD_BN_INFER, per_activation, ops, act, d, epsilon));
    if (ops != CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION)
        a->z = NULL;
    a->alpha = fd_scale_value(alpha, p.y.dtype);
    a->beta = fd_scale_value(beta, p.y.dtype);
    FD_TRY(fd_bn_check_pointers(&p, a));
    a->handle = handle;
    return fd_bn_run(handle, &p, a);
}

/* ---- entries -------------------------------------------------------------------------- */

cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationForwardInference(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t yDesc,
    void *y, const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale,
    const void *bnBias, const void *estimatedMean, const void *estimatedVariance, double epsilon)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(check_mode(mode));
    fd_bn_descs_t d = {
        .x = xDesc, .y = yDesc, .sb = bnScaleBiasMeanVarDesc, .mv = bnScaleBiasMeanVarDesc};
    fd_bn_args_t a = {.x = x,
                      .y = y,
                      .scale = bnScale,
                      .bias = bnBias,
                      .mean = estimatedMean,
                      .var = estimatedVariance};
    return infer(__func__, handle, mode == CUDNN_BATCHNORM_PER_ACTIVATION, CUDNN_BATCHNORM_OPS_BN,
                 alpha, beta, &d, &a, epsilon, NULL);
}

cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t yDesc,
    void *y, const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale,
    const void *bnBias, double exponentialAverageFactor, void *resultRunningMean,
    void *resultRunningVariance, double epsilon, void *resultSaveMean, void *resultSaveInvVariance)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    fd_bn_descs_t d = {
        .x = xDesc, .y = yDesc, .sb = bnScaleBiasMeanVarDesc, .mv = bnScaleBiasMeanVarDesc};
    fd_bn_args_t a = {.x = x,
                      .y = y,
                      .scale = bnScale,
                      .bias = bnBias,
                      .run_mean = resultRunningMean,
                      .run_var = resultRunningVariance,
                      .factor = exponentialAverageFactor,
                      .save_mean = resultSaveMean,
                      .save_inv = resultSaveInvVariance};
    return train(__func__, handle, mode, CUDNN_BATCHNORM_OPS_BN, alpha, beta, &d, &a, epsilon, NULL,
                 NULL, 0, 0, 0);
}

cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationForwardTrainingEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps, const void *alpha,
    const void *beta, const cudnnTensorDescriptor_t xDesc, const void *xData,
    const cudnnTensorDescriptor_t zDesc, const void *zData, const cudnnTensorDescriptor_t yDesc,
    void *yData, const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale,
    const void *bnBias, double exponentialAverageFactor, void *resultRunningMean,
    void *resultRunningVariance, double epsilon, void *resultSaveMean, void *resultSaveInvVariance,
    cudnnActivationDescriptor_t activationDesc, void *workspace, size_t workSpaceSizeInBytes,
    void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    fd_bn_descs_t d = {.x = xDesc,
                       .y = yDesc,
                       .z = zDesc,
                       .sb = bnScaleBiasMeanVarDesc,
                       .mv = bnScaleBiasMeanVarDesc};
    fd_bn_args_t a = {.x = xData,
                      .y = yData,
                      .z = zData,
                      .scale = bnScale,
                      .bias = bnBias,
                      .run_mean = resultRunningMean,
                      .run_var = resultRunningVariance,
                      .factor = exponentialAverageFactor,
                      .save_mean = resultSaveMean,
                      .save_inv = resultSaveInvVariance,
                      .reserve = reserveSpace};
    return train(__func__, handle, mode, bnOps, alpha, beta, &d, &a, epsilon, activationDesc,
                 workspace, workSpaceSizeInBytes, reserveSpaceSizeInBytes, 1);
}

cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationBackward(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alphaDataDiff,
    const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff,
    const cudnnTensorDescriptor_t xDesc, const void *x, const cudnnTensorDescriptor_t dyDesc,
    const void *dy, const cudnnTensorDescriptor_t dxDesc, void *dx,
    const cudnnTensorDescriptor_t dBnScaleBiasDesc, const void *bnScale, void *dBnScaleResult,
    void *dBnBiasResult, double epsilon, const void *savedMean, const void *savedInvVariance)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    fd_bn_descs_t d = {
        .x = xDesc, .dy = dyDesc, .dx = dxDesc, .sb = dBnScaleBiasDesc, .mv = dBnScaleBiasDesc};
    fd_bn_args_t a = {.x = x,
                      .dy = dy,
                      .dx = dx,
                      .scale = bnScale,
                      .dscale = dBnScaleResult,
                      .dbias = dBnBiasResult,
                      .mean = savedMean,
                      .var = savedInvVariance};
    return backward(__func__, handle, mode, CUDNN_BATCHNORM_OPS_BN, alphaDataDiff, betaDataDiff,
                    alphaParamDiff, betaParamDiff, &d, &a, epsilon, NULL, NULL, 0, 0, 0);
}

cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationBackwardEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
    const void *alphaDataDiff, const void *betaDataDiff, const void *alphaParamDiff,
    const void *betaParamDiff, const cudnnTensorDescriptor_t xDesc, const void *xData,
    const cudnnTensorDescriptor_t yDesc, const void *yData, const cudnnTensorDescriptor_t dyDesc,
    const void *dyData, const cudnnTensorDescriptor_t dzDesc, void *dzData,
    const cudnnTensorDescriptor_t dxDesc, void *dxData,
    const cudnnTensorDescriptor_t dBnScaleBiasDesc, const void *bnScaleData, const void *bnBiasData,
    void *dBnScaleData, void *dBnBiasData, double epsilon, const void *savedMean,
    const void *savedInvVariance, cudnnActivationDescriptor_t activationDesc, void *workSpace,
    size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    (void)yDesc, (void)yData; /* act'(u) comes from x and the statistics or the reserve space */
    fd_bn_descs_t d = {.x = xDesc,
                       .dy = dyDesc,
                       .dx = dxDesc,
                       .dz = dzDesc,
                       .sb = dBnScaleBiasDesc,
                       .mv = dBnScaleBiasDesc};
    fd_bn_args_t a = {.x = xData,
                      .dy = dyData,
                      .dx = dxData,
                      .dz = dzData,
                      .scale = bnScaleData,
                      .bias = bnBiasData,
                      .dscale = dBnScaleData,
                      .dbias = dBnBiasData,
                      .mean = savedMean,
                      .var = savedInvVariance,
                      .reserve = reserveSpace};
    return backward(__func__, handle, mode, bnOps, alphaDataDiff, betaDataDiff, alphaParamDiff,
                    betaParamDiff, &d, &a, epsilon, activationDesc, workSpace, workSpaceSizeInBytes,
                    reserveSpaceSizeInBytes, 1);
}

/* ---- Ex queries ----------------------------------------------------------------------- */

cudnnStatus_t CUDNNWINAPI cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
    const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t zDesc,
    const cudnnTensorDescriptor_t yDesc, const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
    const cudnnActivationDescriptor_t activationDesc, size_t *sizeInBytes)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK_NOT_NULL(sizeInBytes);
    FD_TRY(check_mode(mode));
    fd_bn_descs_t d = {.x = xDesc,
                       .y = yDesc,
                       .z = zDesc,
                       .sb = bnScaleBiasMeanVarDesc,
                       .mv = bnScaleBiasMeanVarDesc};
    fd_bn_problem_t p;
    FD_TRY(fd_bn_problem_init(&p, __func__, handle, FD_BN_TRAIN,
                              mode == CUDNN_BATCHNORM_PER_ACTIVATION, bnOps, activationDesc, &d,
                              0.0));
    return workspace_of(handle, &p, sizeInBytes);
}

cudnnStatus_t CUDNNWINAPI cudnnGetBatchNormalizationBackwardExWorkspaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
    const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t yDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnTensorDescriptor_t dzDesc,
    const cudnnTensorDescriptor_t dxDesc, const cudnnTensorDescriptor_t dBnScaleBiasDesc,
    const cudnnActivationDescriptor_t activationDesc, size_t *sizeInBytes)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK_NOT_NULL(sizeInBytes);
    FD_TRY(check_mode(mode));
    (void)yDesc;
    fd_bn_descs_t d = {.x = xDesc,
                       .dy = dyDesc,
                       .dx = dxDesc,
                       .dz = dzDesc,
                       .sb = dBnScaleBiasDesc,
                       .mv = dBnScaleBiasDesc};
    fd_bn_problem_t p;
    FD_TRY(fd_bn_problem_init(&p, __func__, handle, FD_BN_BWD,
                              mode == CUDNN_BATCHNORM_PER_ACTIVATION, bnOps, activationDesc, &d,
                              0.0));
    return workspace_of(handle, &p, sizeInBytes);
}

cudnnStatus_t CUDNNWINAPI cudnnGetBatchNormalizationTrainingExReserveSpaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t xDesc,
    size_t *sizeInBytes)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK_NOT_NULL(sizeInBytes);
    FD_TRY(check_mode(mode));
    return fd_bn_reserve_query(__func__, handle, bnOps, activationDesc, xDesc, sizeInBytes);
}

cudnnStatus_t fd_bn_reserve_query(const char *api, cudnnHandle_t handle, cudnnBatchNormOps_t ops,
                                  cudnnActivationDescriptor_t act, cudnnTensorDescriptor_t xDesc,
                                  size_t *size)
{
    FD_CHECK(
        (int)ops >= 0 && (int)ops <= (int)CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION,
        CUDNN_STATUS_BAD_PARAM,
        "bnOps %d is not a cudnnBatchNormOps_t value (BN 0, BN_ACTIVATION 1, BN_ADD_ACTIVATION 2)",
        (int)ops);
    FD_TRY(fd_tensor_check(xDesc, "xDesc"));
    FD_CHECK(xDesc->nb_dims == 4 || xDesc->nb_dims == 5, CUDNN_STATUS_BAD_PARAM,
             "xDesc has %d dims; batch normalization takes 4-d and 5-d tensors", xDesc->nb_dims);
    FD_CHECK(
        dtype_computed(xDesc->dtype), CUDNN_STATUS_NOT_SUPPORTED,
        "batch normalization of %s data is not implemented (FLOAT, DOUBLE, HALF and BFLOAT16 are)",
        fd_dtype_name(xDesc->dtype));
    fd_bn_act_t a = {.mode = CUDNN_ACTIVATION_RELU};
    if (ops != CUDNN_BATCHNORM_OPS_BN)
        FD_TRY(read_activation(&a, api, handle, act, ops));
    *size = fd_bn_reserve_size(ops, a.mode, fd_tensor_elements(xDesc));
    return CUDNN_STATUS_SUCCESS;
}

/* ---- the v8 normalization entries' access to the bodies above ------------------------- */

cudnnStatus_t fd_bn_train_entry(const char *api, cudnnHandle_t handle, int per_activation,
                                cudnnBatchNormOps_t ops, const void *alpha, const void *beta,
                                const fd_bn_descs_t *d, fd_bn_args_t *a, double epsilon,
                                cudnnActivationDescriptor_t act, void *ws, size_t ws_size,
                                size_t reserve_size)
{
    return train(api, handle,
                 per_activation ? CUDNN_BATCHNORM_PER_ACTIVATION : CUDNN_BATCHNORM_SPATIAL, ops,
                 alpha, beta, d, a, epsilon, act, ws, ws_size, reserve_size, 1);
}

cudnnStatus_t fd_bn_backward_entry(const char *api, cudnnHandle_t handle, int per_activation,
                                   cudnnBatchNormOps_t ops, const void *alphaD, const void *betaD,
                                   const void *alphaP, const void *betaP, const fd_bn_descs_t *d,
                                   fd_bn_args_t *a, double epsilon, cudnnActivationDescriptor_t act,
                                   void *ws, size_t ws_size, size_t reserve_size)
{
    return backward(api, handle,
                    per_activation ? CUDNN_BATCHNORM_PER_ACTIVATION : CUDNN_BATCHNORM_SPATIAL, ops,
                    alphaD, betaD, alphaP, betaP, d, a, epsilon, act, ws, ws_size, reserve_size, 1);
}

cudnnStatus_t fd_bn_infer_entry(const char *api, cudnnHandle_t handle, int per_activation,
                                cudnnBatchNormOps_t ops, const void *alpha, const void *beta,
                                const fd_bn_descs_t *d, fd_bn_args_t *a, double epsilon,
                                cudnnActivationDescriptor_t act)
{
    return infer(api, handle, per_activation, ops, alpha, beta, d, a, epsilon, act);
}

cudnnStatus_t fd_bn_workspace_query(cudnnHandle_t handle, const fd_bn_problem_t *p, size_t *size)
{
    return workspace_of(handle, p, size);
}
