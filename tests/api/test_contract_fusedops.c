/* SPDX-License-Identifier: MIT */
/*
 * test_contract_fusedops.c - bad-input rows for the fused-ops API (cudnnFusedOps*): pack and
 * plan creation, attribute set/get, cudnnMakeFusedOpsPlan and cudnnFusedOpsExecute. Statuses as
 * documented in src/api/fusedops.c: BAD_PARAM for wrong or inconsistent arguments (a label of
 * another op, NULL, an invalid enum, a required attribute never set, a NULL or misaligned
 * pointer, a short workspace, out-of-range scalars), NOT_SUPPORTED for legal requests freednn
 * does not compute (a required operand promised CUDNN_PTR_NULL, PER_ACTIVATION, DOUBLE data,
 * non-binary activations with a bitmask, a convolution in place); executing a plan never made is
 * NOT_INITIALIZED, as cuDNN 9.27 answers.
 *
 * Every row gets a fresh fixture (a ref handle; an op-0 constant pack with every attribute set,
 * a plan made from it and a variant pack pointing at guarded buffers; the same for op 2) and
 * checks: the exact status; on rejection a new, non-empty cudnnGetLastErrorString containing the
 * row's word, every buffer byte-identical and the size out-parameter unwritten; always the
 * guards intact and the inputs unchanged. A failed cudnnMakeFusedOpsPlan leaves a made plan
 * usable.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_test.h"

#define OK CUDNN_STATUS_SUCCESS
#define BAD CUDNN_STATUS_BAD_PARAM
#define NS CUDNN_STATUS_NOT_SUPPORTED
#define F32 CUDNN_DATA_FLOAT
#define OP0 CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS
#define OP2 CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING
#define OP5 CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK

/* buffers: op 0 (x 2x4x5x5, w 3x4x3x3, y 2x3x5x5, eq scale/bias 4, sums 3, workspace) and
 * op 2 (C 3: sums, scale, bias, eq scale/bias, saved mean/invstd, running mean/var) */
enum { B_X, B_W, B_Y, B_SC, B_BI, B_SUM, B_SQ, B_WS,
       B2_SUM, B2_SQ, B2_S, B2_B, B2_ES, B2_EB, B2_SM, B2_SV, B2_RM, B2_RV, B_COUNT };
static const int is_input[B_COUNT] = {[B_X] = 1, [B_W] = 1, [B_SC] = 1, [B_BI] = 1, [B2_SUM] = 1, [B2_SQ] = 1,
                                      [B2_S] = 1, [B2_B] = 1};
#define BUF_BYTES 2048

typedef struct {
    cudnnHandle_t h;
    cudnnTensorDescriptor_t x, y, eq, st, unset, xd, x5, st16, y6, bm_small, bm_float, x16c;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t cv;
    cudnnActivationDescriptor_t relu, tanh_;
    cudnnFusedOpsConstParamPack_t k, k2;
    cudnnFusedOpsPlan_t plan, plan2, fresh;
    cudnnFusedOpsVariantParamPack_t v, v2;
    fd_buf_t buf[B_COUNT];
    void *d[B_COUNT];
    size_t ws, sz;
    int64_t acc;
    double eps, factor;
    int isnull;
    void *out_ptr;
} fx_t;

#define PH16 CUDNN_PTR_16B_ALIGNED

static void ph(cudnnFusedOpsConstParamPack_t k, cudnnFusedOpsConstParamLabel_t l, cudnnFusedOpsPointerPlaceHolder_t v)
{
    FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(k, l, &v), OK);
}

static void desc(cudnnFusedOpsConstParamPack_t k, cudnnFusedOpsConstParamLabel_t l, const void *d)
{
    FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(k, l, d), OK);
}

static void var(cudnnFusedOpsVariantParamPack_t v, cudnnFusedOpsVariantParamLabel_t l, void *p)
{
    FD_EXPECT_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(v, l, p), OK);
}

static void fx_init(fx_t *f)
{
    memset(f, 0, sizeof *f);
    FD_EXPECT_STATUS(freednnCreateWithBackend(&f->h, FREEDNN_BACKEND_REF), OK);
    cudnnTensorDescriptor_t *all[] = {&f->x, &f->y, &f->eq, &f->st, &f->unset, &f->xd, &f->x5, &f->st16,
                                      &f->y6, &f->bm_small, &f->bm_float, &f->x16c};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        cudnnCreateTensorDescriptor(all[i]);
    cudnnSetTensor4dDescriptor(f->x, CUDNN_TENSOR_NHWC, F32, 2, 4, 5, 5);
    cudnnSetTensor4dDescriptor(f->y, CUDNN_TENSOR_NHWC, F32, 2, 3, 5, 5);
    cudnnSetTensor4dDescriptor(f->eq, CUDNN_TENSOR_NCHW, F32, 1, 4, 1, 1);
    cudnnSetTensor4dDescriptor(f->st, CUDNN_TENSOR_NCHW, F32, 1, 3, 1, 1);
    cudnnSetTensor4dDescriptor(f->xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 2, 4, 5, 5);
    const int d5[5] = {2, 4, 1, 5, 5}, s5[5] = {100, 25, 25, 5, 1};
    cudnnSetTensorNdDescriptor(f->x5, F32, 5, d5, s5);
    cudnnSetTensor4dDescriptor(f->st16, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 1, 3, 1, 1);
    cudnnSetTensor4dDescriptor(f->y6, CUDNN_TENSOR_NHWC, F32, 2, 3, 5, 6);
    /* op 5 on x (N H W = 50 -> 64 rows, C 4 -> 2 words): 128 words needed */
    cudnnSetTensor4dDescriptor(f->bm_small, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT32, 1, 127, 1, 1);
    cudnnSetTensor4dDescriptor(f->bm_float, CUDNN_TENSOR_NCHW, F32, 1, 128, 1, 1);
    cudnnSetTensor4dDescriptor(f->x16c, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 2, 4, 5, 5);
    cudnnCreateFilterDescriptor(&f->w);
    cudnnSetFilter4dDescriptor(f->w, F32, CUDNN_TENSOR_NHWC, 3, 4, 3, 3);
    cudnnCreateConvolutionDescriptor(&f->cv);
    cudnnSetConvolution2dDescriptor(f->cv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, F32);
    cudnnCreateActivationDescriptor(&f->relu), cudnnCreateActivationDescriptor(&f->tanh_);
    cudnnSetActivationDescriptor(f->relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0);
    cudnnSetActivationDescriptor(f->tanh_, CUDNN_ACTIVATION_TANH, CUDNN_NOT_PROPAGATE_NAN, 0);
    fd_rng_t r;
    fd_rng_seed(&r, 11);
    for (int b = 0; b < B_COUNT; b++) {
        f->buf[b] = fd_buf_alloc(BUF_BYTES);
        f->d[b] = f->buf[b].data;
        fd_buf_poison(&f->buf[b]);
        fd_fill_int(&r, F32, f->d[b], BUF_BYTES / 8, 1, 4, 1.0); /* positive values, poison beyond */
    }
    /* op 0: every attribute */
    cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
    FD_EXPECT_STATUS(cudnnCreateFusedOpsConstParamPack(&f->k, OP0), OK);
    FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(f->k, CUDNN_PARAM_BN_MODE, &mode), OK);
    desc(f->k, CUDNN_PARAM_XDESC, f->x), desc(f->k, CUDNN_PARAM_WDESC, f->w), desc(f->k, CUDNN_PARAM_CONV_DESC, f->cv);
    desc(f->k, CUDNN_PARAM_YDESC, f->y), desc(f->k, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, f->eq);
    desc(f->k, CUDNN_PARAM_YSTATS_DESC, f->st), desc(f->k, CUDNN_PARAM_ACTIVATION_DESC, f->relu);
    const cudnnFusedOpsConstParamLabel_t phs[] = {CUDNN_PARAM_XDATA_PLACEHOLDER, CUDNN_PARAM_WDATA_PLACEHOLDER,
                                                  CUDNN_PARAM_YDATA_PLACEHOLDER, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER,
                                                  CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, CUDNN_PARAM_YSUM_PLACEHOLDER,
                                                  CUDNN_PARAM_YSQSUM_PLACEHOLDER};
    for (size_t i = 0; i < sizeof phs / sizeof phs[0]; i++)
        ph(f->k, phs[i], PH16);
    FD_EXPECT_STATUS(cudnnCreateFusedOpsPlan(&f->plan, OP0), OK);
    FD_EXPECT_STATUS(cudnnCreateFusedOpsPlan(&f->fresh, OP0), OK);
    FD_EXPECT_STATUS(cudnnMakeFusedOpsPlan(f->h, f->plan, f->k, &f->ws), OK);
    FD_EXPECT(f->ws == 200 * 4 && f->ws <= BUF_BYTES, "op 0 workspace %zu, want 800 (t of 2x4x5x5 floats)", f->ws);
    FD_EXPECT_STATUS(cudnnCreateFusedOpsVariantParamPack(&f->v, OP0), OK);
    var(f->v, CUDNN_PTR_XDATA, f->d[B_X]), var(f->v, CUDNN_PTR_WDATA, f->d[B_W]), var(f->v, CUDNN_PTR_YDATA, f->d[B_Y]);
    var(f->v, CUDNN_PTR_BN_EQSCALE, f->d[B_SC]), var(f->v, CUDNN_PTR_BN_EQBIAS, f->d[B_BI]);
    var(f->v, CUDNN_PTR_YSUM, f->d[B_SUM]), var(f->v, CUDNN_PTR_YSQSUM, f->d[B_SQ]);
    var(f->v, CUDNN_PTR_WORKSPACE, f->d[B_WS]);
    var(f->v, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &f->ws);
    /* op 2: every attribute */
    FD_EXPECT_STATUS(cudnnCreateFusedOpsConstParamPack(&f->k2, OP2), OK);
    mode = CUDNN_BATCHNORM_SPATIAL;
    FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(f->k2, CUDNN_PARAM_BN_MODE, &mode), OK);
    desc(f->k2, CUDNN_PARAM_YSTATS_DESC, f->st), desc(f->k2, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, f->st);
    desc(f->k2, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, f->st);
    const cudnnFusedOpsConstParamLabel_t phs2[] = {
        CUDNN_PARAM_YSUM_PLACEHOLDER, CUDNN_PARAM_YSQSUM_PLACEHOLDER, CUDNN_PARAM_BN_SCALE_PLACEHOLDER,
        CUDNN_PARAM_BN_BIAS_PLACEHOLDER, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER,
        CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER, CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER,
        CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER};
    for (size_t i = 0; i < sizeof phs2 / sizeof phs2[0]; i++)
        ph(f->k2, phs2[i], CUDNN_PTR_ELEM_ALIGNED);
    FD_EXPECT_STATUS(cudnnCreateFusedOpsPlan(&f->plan2, OP2), OK);
    size_t ws2 = 99;
    FD_EXPECT_STATUS(cudnnMakeFusedOpsPlan(f->h, f->plan2, f->k2, &ws2), OK);
    FD_EXPECT(ws2 == 0, "op 2 workspace %zu, want 0", ws2);
    FD_EXPECT_STATUS(cudnnCreateFusedOpsVariantParamPack(&f->v2, OP2), OK);
    const cudnnFusedOpsVariantParamLabel_t l2[] = {CUDNN_PTR_YSUM, CUDNN_PTR_YSQSUM, CUDNN_PTR_BN_SCALE, CUDNN_PTR_BN_BIAS,
                                                   CUDNN_PTR_BN_EQSCALE, CUDNN_PTR_BN_EQBIAS, CUDNN_PTR_BN_SAVED_MEAN,
                                                   CUDNN_PTR_BN_SAVED_INVSTD, CUDNN_PTR_BN_RUNNING_MEAN,
                                                   CUDNN_PTR_BN_RUNNING_VAR};
    for (int i = 0; i < 10; i++)
        var(f->v2, l2[i], f->d[B2_SUM + i]);
    f->acc = 50, f->eps = 1e-5, f->factor = 0.1;
    var(f->v2, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &f->acc);
    var(f->v2, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &f->eps);
    var(f->v2, CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR, &f->factor);
    f->sz = 12345;
    f->isnull = 42;
}

static void fx_free(fx_t *f)
{
    cudnnTensorDescriptor_t all[] = {f->x, f->y, f->eq, f->st, f->unset, f->xd, f->x5, f->st16,
                                     f->y6, f->bm_small, f->bm_float, f->x16c};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        cudnnDestroyTensorDescriptor(all[i]);
    cudnnDestroyFilterDescriptor(f->w);
    cudnnDestroyConvolutionDescriptor(f->cv);
    cudnnDestroyActivationDescriptor(f->relu), cudnnDestroyActivationDescriptor(f->tanh_);
    cudnnDestroyFusedOpsConstParamPack(f->k), cudnnDestroyFusedOpsConstParamPack(f->k2);
    cudnnDestroyFusedOpsPlan(f->plan), cudnnDestroyFusedOpsPlan(f->plan2), cudnnDestroyFusedOpsPlan(f->fresh);
    cudnnDestroyFusedOpsVariantParamPack(f->v), cudnnDestroyFusedOpsVariantParamPack(f->v2);
    for (int b = 0; b < B_COUNT; b++)
        fd_buf_free(&f->buf[b]);
    cudnnDestroy(f->h);
}

/* An op-5 pack on x (NHWC 2x4x5x5) with ReLU and a bitmask descriptor `bm`. */
static cudnnFusedOpsConstParamPack_t op5_pack(fx_t *f, cudnnActivationDescriptor_t act, cudnnTensorDescriptor_t bm)
{
    cudnnFusedOpsConstParamPack_t k;
    cudnnCreateFusedOpsConstParamPack(&k, OP5);
    desc(k, CUDNN_PARAM_XDESC, f->x), desc(k, CUDNN_PARAM_YDESC, f->x), desc(k, CUDNN_PARAM_ACTIVATION_DESC, act);
    desc(k, CUDNN_PARAM_ACTIVATION_BITMASK_DESC, bm);
    ph(k, CUDNN_PARAM_XDATA_PLACEHOLDER, PH16), ph(k, CUDNN_PARAM_YDATA_PLACEHOLDER, PH16);
    ph(k, CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER, PH16);
    return k;
}

/* Makes an op-5 plan from k on a fresh plan; the pack is destroyed. */
static cudnnStatus_t make5(fx_t *f, cudnnFusedOpsConstParamPack_t k)
{
    cudnnFusedOpsPlan_t p;
    cudnnCreateFusedOpsPlan(&p, OP5);
    cudnnStatus_t st = cudnnMakeFusedOpsPlan(f->h, p, k, &f->sz);
    cudnnDestroyFusedOpsPlan(p);
    cudnnDestroyFusedOpsConstParamPack(k);
    return st;
}

static cudnnStatus_t make0(fx_t *f)
{
    return cudnnMakeFusedOpsPlan(f->h, f->fresh, f->k, &f->sz);
}

static cudnnStatus_t set_k(fx_t *f, cudnnFusedOpsConstParamLabel_t l, const void *p)
{
    return cudnnSetFusedOpsConstParamPackAttribute(f->k, l, p);
}

/* A fresh op-0 pack with every attribute of the fixture but `skip`. */
static cudnnFusedOpsConstParamPack_t pack0_without(fx_t *f, int skip)
{
    cudnnFusedOpsConstParamPack_t k;
    cudnnCreateFusedOpsConstParamPack(&k, OP0);
    for (int l = 0; l < 39; l++) {
        if (l == skip)
            continue;
        char buf[64];
        int isnull = 1;
        if (l == CUDNN_PARAM_XDESC || l == CUDNN_PARAM_YDESC || l == CUDNN_PARAM_BN_EQSCALEBIAS_DESC ||
            l == CUDNN_PARAM_YSTATS_DESC) {
            cudnnTensorDescriptor_t d = l == CUDNN_PARAM_XDESC ? f->x : l == CUDNN_PARAM_YDESC ? f->y
                                        : l == CUDNN_PARAM_YSTATS_DESC ? f->st : f->eq;
            desc(k, (cudnnFusedOpsConstParamLabel_t)l, d);
        } else if (l == CUDNN_PARAM_WDESC) {
            desc(k, CUDNN_PARAM_WDESC, f->w);
        } else if (l == CUDNN_PARAM_CONV_DESC) {
            desc(k, CUDNN_PARAM_CONV_DESC, f->cv);
        } else if (l == CUDNN_PARAM_ACTIVATION_DESC) {
            desc(k, CUDNN_PARAM_ACTIVATION_DESC, f->relu);
        } else if (cudnnGetFusedOpsConstParamPackAttribute(f->k, (cudnnFusedOpsConstParamLabel_t)l, buf, &isnull) == OK &&
                   !isnull) {
            FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(k, (cudnnFusedOpsConstParamLabel_t)l, buf), OK);
        }
    }
    return k;
}

static cudnnStatus_t make0_without(fx_t *f, int skip)
{
    cudnnFusedOpsConstParamPack_t k = pack0_without(f, skip);
    cudnnStatus_t st = cudnnMakeFusedOpsPlan(f->h, f->fresh, k, &f->sz);
    cudnnDestroyFusedOpsConstParamPack(k);
    return st;
}

static cudnnStatus_t exec0(fx_t *f)
{
    return cudnnFusedOpsExecute(f->h, f->plan, f->v);
}

static cudnnStatus_t exec2(fx_t *f)
{
    return cudnnFusedOpsExecute(f->h, f->plan2, f->v2);
}

/* exec2 with one scalar changed (label, pointer to the new value) or, with val NULL, a fresh
 * variant pack without that scalar */
static cudnnStatus_t exec2_scalar(fx_t *f, cudnnFusedOpsVariantParamLabel_t l, void *val)
{
    if (val != NULL) {
        var(f->v2, l, val);
        return exec2(f);
    }
    cudnnFusedOpsVariantParamPack_t v;
    cudnnCreateFusedOpsVariantParamPack(&v, OP2);
    for (int i = 0; i < 24; i++) {
        void *p = NULL;
        if (cudnnGetFusedOpsVariantParamPackAttribute(f->v2, (cudnnFusedOpsVariantParamLabel_t)i, &p) == OK && p)
            var(v, (cudnnFusedOpsVariantParamLabel_t)i, p);
    }
    if (l != CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT)
        var(v, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &f->acc);
    if (l != CUDNN_SCALAR_DOUBLE_BN_EPSILON)
        var(v, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &f->eps);
    if (l != CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR)
        var(v, CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR, &f->factor);
    cudnnStatus_t st = cudnnFusedOpsExecute(f->h, f->plan2, v);
    cudnnDestroyFusedOpsVariantParamPack(v);
    return st;
}

/* op 2's plan with a new variant pack holding the fixture's pointers and scalars */
static cudnnStatus_t exec2_fresh(fx_t *f)
{
    cudnnFusedOpsVariantParamPack_t v;
    cudnnCreateFusedOpsVariantParamPack(&v, OP2);
    const cudnnFusedOpsVariantParamLabel_t l2[] = {CUDNN_PTR_YSUM, CUDNN_PTR_YSQSUM, CUDNN_PTR_BN_SCALE, CUDNN_PTR_BN_BIAS,
                                                   CUDNN_PTR_BN_EQSCALE, CUDNN_PTR_BN_EQBIAS, CUDNN_PTR_BN_SAVED_MEAN,
                                                   CUDNN_PTR_BN_SAVED_INVSTD, CUDNN_PTR_BN_RUNNING_MEAN,
                                                   CUDNN_PTR_BN_RUNNING_VAR};
    for (int i = 0; i < 10; i++)
        var(v, l2[i], f->d[B2_SUM + i]);
    int64_t acc = 50;
    double eps = 1e-5, factor = 0.1;
    var(v, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &acc);
    var(v, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &eps);
    var(v, CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR, &factor);
    cudnnStatus_t st = cudnnFusedOpsExecute(f->h, f->plan2, v);
    cudnnDestroyFusedOpsVariantParamPack(v);
    return st;
}

static char garbage[256];
#define GARBAGE_K ((cudnnFusedOpsConstParamPack_t)(void *)garbage)
#define GARBAGE_P ((cudnnFusedOpsPlan_t)(void *)garbage)
#define GARBAGE_V ((cudnnFusedOpsVariantParamPack_t)(void *)garbage)
#define PHV(v) (&(cudnnFusedOpsPointerPlaceHolder_t){(cudnnFusedOpsPointerPlaceHolder_t)(v)})
#define BNM(v) (&(cudnnBatchNormMode_t){(cudnnBatchNormMode_t)(v)})

/* ROW(name, status, word in the reason (NULL for SUCCESS), body returning the status) */
#define ROWS                                                                                                        \
    ROW(create_const_null_out, BAD, "constPack", return cudnnCreateFusedOpsConstParamPack(NULL, OP0);)              \
    ROW(create_const_op_7, BAD, "ops 7", cudnnFusedOpsConstParamPack_t k = NULL;                                    \
        cudnnStatus_t s = cudnnCreateFusedOpsConstParamPack(&k, (cudnnFusedOps_t)7); FD_EXPECT(k == NULL, "written"); \
        return s;)                                                                                                  \
    ROW(create_const_op_neg1, BAD, "ops -1", cudnnFusedOpsConstParamPack_t k = NULL;                                \
        return cudnnCreateFusedOpsConstParamPack(&k, (cudnnFusedOps_t)-1);)                                         \
    ROW(create_var_op_7, BAD, "ops 7", cudnnFusedOpsVariantParamPack_t v = NULL;                                    \
        return cudnnCreateFusedOpsVariantParamPack(&v, (cudnnFusedOps_t)7);)                                        \
    ROW(create_var_null_out, BAD, "varPack", return cudnnCreateFusedOpsVariantParamPack(NULL, OP2);)                \
    ROW(create_plan_op_int_max, BAD, "ops 2147483647", cudnnFusedOpsPlan_t p = NULL;                                \
        return cudnnCreateFusedOpsPlan(&p, (cudnnFusedOps_t)INT_MAX);)                                              \
    ROW(create_plan_null_out, BAD, "plan", return cudnnCreateFusedOpsPlan(NULL, OP0);)                              \
    ROW(destroy_const_null_ok, OK, NULL, return cudnnDestroyFusedOpsConstParamPack(NULL);)                          \
    ROW(destroy_plan_null_ok, OK, NULL, return cudnnDestroyFusedOpsPlan(NULL);)                                     \
    ROW(destroy_const_garbage, BAD, "not a live", return cudnnDestroyFusedOpsConstParamPack(GARBAGE_K);)            \
    ROW(destroy_plan_garbage, BAD, "not a live", return cudnnDestroyFusedOpsPlan(GARBAGE_P);)                       \
    ROW(destroy_var_garbage, BAD, "not a live", return cudnnDestroyFusedOpsVariantParamPack(GARBAGE_V);)            \
    /* constant pack attributes */                                                                                  \
    ROW(set_label_of_other_op, BAD, "not an attribute", return set_k(f, CUDNN_PARAM_DXDESC, f->x);)                 \
    ROW(set_bitmask_desc_on_op0, BAD, "CUDNN_PARAM_ACTIVATION_BITMASK_DESC",                                        \
        return set_k(f, CUDNN_PARAM_ACTIVATION_BITMASK_DESC, f->x);)                                                \
    ROW(set_label_39, BAD, "paramLabel 39", return set_k(f, (cudnnFusedOpsConstParamLabel_t)39, f->x);)             \
    ROW(set_label_neg1, BAD, "paramLabel -1", return set_k(f, (cudnnFusedOpsConstParamLabel_t)-1, f->x);)           \
    ROW(set_null_param, BAD, "param is NULL", return set_k(f, CUDNN_PARAM_XDESC, NULL);)                            \
    ROW(set_null_placeholder, BAD, "param is NULL", return set_k(f, CUDNN_PARAM_XDATA_PLACEHOLDER, NULL);)          \
    ROW(set_placeholder_3, BAD, "value 3", return set_k(f, CUDNN_PARAM_XDATA_PLACEHOLDER, PHV(3));)                 \
    ROW(set_placeholder_neg1, BAD, "value -1", return set_k(f, CUDNN_PARAM_YDATA_PLACEHOLDER, PHV(-1));)            \
    ROW(set_bn_mode_3, BAD, "value 3", return set_k(f, CUDNN_PARAM_BN_MODE, BNM(3));)                               \
    ROW(set_unset_tensor_desc, BAD, "never set", return set_k(f, CUDNN_PARAM_XDESC, f->unset);)                     \
    ROW(set_filter_as_tensor, BAD, "not a live tensor", return set_k(f, CUDNN_PARAM_YDESC, (const void *)f->w);)    \
    ROW(set_tensor_as_conv, BAD, "not a live convolution", return set_k(f, CUDNN_PARAM_CONV_DESC, f->x);)           \
    ROW(set_garbage_pack, BAD, "not a live",                                                                        \
        return cudnnSetFusedOpsConstParamPackAttribute(GARBAGE_K, CUDNN_PARAM_XDESC, f->x);)                        \
    ROW(get_null_isnull, BAD, "isNULL",                                                                             \
        return cudnnGetFusedOpsConstParamPackAttribute(f->k, CUDNN_PARAM_XDESC, f->unset, NULL);)                   \
    ROW(get_null_param, BAD, "param is NULL",                                                                       \
        return cudnnGetFusedOpsConstParamPackAttribute(f->k, CUDNN_PARAM_BN_MODE, NULL, &f->isnull);)               \
    ROW(get_into_filter, BAD, "not a live tensor",                                                                  \
        return cudnnGetFusedOpsConstParamPackAttribute(f->k, CUDNN_PARAM_XDESC, (void *)f->w, &f->isnull);)         \
    ROW(get_label_of_other_op, BAD, "not an attribute",                                                             \
        return cudnnGetFusedOpsConstParamPackAttribute(f->k, CUDNN_PARAM_ZDESC, f->unset, &f->isnull);)             \
    ROW(get_ok, OK, NULL, return cudnnGetFusedOpsConstParamPackAttribute(f->k, CUDNN_PARAM_XDESC, f->unset, &f->isnull);) \
    /* variant pack attributes */                                                                                   \
    ROW(var_label_50, BAD, "paramLabel 50",                                                                         \
        return cudnnSetFusedOpsVariantParamPackAttribute(f->v, (cudnnFusedOpsVariantParamLabel_t)50, f->d[B_X]);)   \
    ROW(var_label_104, BAD, "paramLabel 104",                                                                       \
        return cudnnSetFusedOpsVariantParamPackAttribute(f->v, (cudnnFusedOpsVariantParamLabel_t)104, &f->eps);)    \
    ROW(var_label_of_other_op, BAD, "not a variant",                                                                \
        return cudnnSetFusedOpsVariantParamPackAttribute(f->v, CUDNN_PTR_DXDATA, f->d[B_X]);)                       \
    ROW(var_scalar_of_other_op, BAD, "CUDNN_SCALAR_DOUBLE_BN_EPSILON",                                              \
        return cudnnSetFusedOpsVariantParamPackAttribute(f->v, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &f->eps);)           \
    ROW(var_scalar_null, BAD, "ptr is NULL",                                                                        \
        return cudnnSetFusedOpsVariantParamPackAttribute(f->v, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, NULL);) \
    ROW(var_get_null, BAD, "ptr is NULL", return cudnnGetFusedOpsVariantParamPackAttribute(f->v, CUDNN_PTR_XDATA, NULL);) \
    ROW(var_get_ok, OK, NULL, return cudnnGetFusedOpsVariantParamPackAttribute(f->v, CUDNN_PTR_XDATA, &f->out_ptr);) \
    ROW(var_garbage_pack, BAD, "not a live",                                                                        \
        return cudnnSetFusedOpsVariantParamPackAttribute(GARBAGE_V, CUDNN_PTR_XDATA, f->d[B_X]);)                   \
    /* making a plan */                                                                                             \
    ROW(make_ok, OK, NULL, return make0(f);)                                                                        \
    ROW(make_null_handle, BAD, "handle", return cudnnMakeFusedOpsPlan(NULL, f->fresh, f->k, &f->sz);)               \
    ROW(make_null_plan, BAD, "plan", return cudnnMakeFusedOpsPlan(f->h, NULL, f->k, &f->sz);)                       \
    ROW(make_null_pack, BAD, "constPack", return cudnnMakeFusedOpsPlan(f->h, f->fresh, NULL, &f->sz);)              \
    ROW(make_null_size, BAD, "workspaceSizeInBytes", return cudnnMakeFusedOpsPlan(f->h, f->fresh, f->k, NULL);)     \
    ROW(make_ops_mismatch, BAD, "created for", return cudnnMakeFusedOpsPlan(f->h, f->fresh, f->k2, &f->sz);)        \
    ROW(make_missing_ydesc, BAD, "CUDNN_PARAM_YDESC is not set", return make0_without(f, CUDNN_PARAM_YDESC);)       \
    ROW(make_missing_conv, BAD, "CUDNN_PARAM_CONV_DESC is not set", return make0_without(f, CUDNN_PARAM_CONV_DESC);) \
    ROW(make_missing_x_placeholder, BAD, "CUDNN_PARAM_XDATA_PLACEHOLDER is not set",                                \
        return make0_without(f, CUDNN_PARAM_XDATA_PLACEHOLDER);)                                                    \
    ROW(make_missing_eq_desc, BAD, "CUDNN_PARAM_BN_EQSCALEBIAS_DESC is not set",                                    \
        return make0_without(f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC);)                                                  \
    ROW(make_missing_stats_desc, BAD, "CUDNN_PARAM_YSTATS_DESC is not set",                                         \
        return make0_without(f, CUDNN_PARAM_YSTATS_DESC);)                                                          \
    ROW(make_x_placeholder_null, NS, "CUDNN_PTR_NULL", set_k(f, CUDNN_PARAM_XDATA_PLACEHOLDER, PHV(CUDNN_PTR_NULL)); \
        return make0(f);)                                                                                           \
    ROW(make_per_activation, NS, "PER_ACTIVATION", set_k(f, CUDNN_PARAM_BN_MODE, BNM(CUDNN_BATCHNORM_PER_ACTIVATION)); \
        return make0(f);)                                                                                           \
    ROW(make_double_x, NS, "FLOAT and HALF", set_k(f, CUDNN_PARAM_XDESC, f->xd); return make0(f);)                  \
    ROW(make_5d_x, NS, "4-d", set_k(f, CUDNN_PARAM_XDESC, f->x5); return make0(f);)                                 \
    ROW(make_mixed_types, NS, "mixed", set_k(f, CUDNN_PARAM_XDESC, f->x16c); return make0(f);)                      \
    ROW(make_y_wrong_dims, BAD, "yDesc dim 3", set_k(f, CUDNN_PARAM_YDESC, f->y6); return make0(f);)                \
    ROW(make_eq_wrong_shape, BAD, "1 x 4 x 1 x 1", set_k(f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, f->st); return make0(f);) \
    ROW(make_stats_half, NS, "FLOAT", set_k(f, CUDNN_PARAM_YSTATS_DESC, f->st16); return make0(f);)                 \
    ROW(make_stats_wrong_channels, BAD, "1 x 3 x 1 x 1", set_k(f, CUDNN_PARAM_YSTATS_DESC, f->eq); return make0(f);) \
    ROW(make_op5_tanh, NS, "RELU or CLIPPED_RELU", return make5(f, op5_pack(f, f->tanh_, f->bm_small));)            \
    ROW(make_op5_bitmask_small, BAD, "need 128", return make5(f, op5_pack(f, f->relu, f->bm_small));)               \
    ROW(make_op5_bitmask_float, BAD, "INT32", return make5(f, op5_pack(f, f->relu, f->bm_float));)                  \
    ROW(make_op5_zscale_without_z, NS, "needs z", cudnnFusedOpsConstParamPack_t k = op5_pack(f, f->relu, f->bm_small); \
        ph(k, CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER, PH16); return make5(f, k);)                                     \
    ROW(make_op5_no_activation, BAD, "CUDNN_PARAM_ACTIVATION_DESC is not set", cudnnFusedOpsConstParamPack_t k;     \
        cudnnCreateFusedOpsConstParamPack(&k, OP5); desc(k, CUDNN_PARAM_XDESC, f->x);                               \
        ph(k, CUDNN_PARAM_XDATA_PLACEHOLDER, PH16); ph(k, CUDNN_PARAM_YDATA_PLACEHOLDER, PH16);                     \
        ph(k, CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER, PH16); return make5(f, k);)                               \
    ROW(make_op2_no_bn_mode, BAD, "CUDNN_PARAM_BN_MODE is not set", cudnnFusedOpsConstParamPack_t k;                \
        cudnnCreateFusedOpsConstParamPack(&k, OP2); cudnnStatus_t s = cudnnMakeFusedOpsPlan(f->h, f->plan2, k, &f->sz); \
        cudnnDestroyFusedOpsConstParamPack(k); return s;)                                                           \
    ROW(make_op2_eqbias_without_bias, NS, "CUDNN_PARAM_BN_BIAS_PLACEHOLDER",                                        \
        FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(f->k2, CUDNN_PARAM_BN_BIAS_PLACEHOLDER,           \
                                                                 PHV(CUDNN_PTR_NULL)), OK);                        \
        return cudnnMakeFusedOpsPlan(f->h, f->plan2, f->k2, &f->sz);)                                               \
    /* executing */                                                                                                 \
    ROW(exec_ok, OK, NULL, return exec0(f);)                                                                        \
    ROW(exec_op2_ok, OK, NULL, return exec2(f);)                                                                    \
    ROW(exec_null_handle, BAD, "handle", return cudnnFusedOpsExecute(NULL, f->plan, f->v);)                         \
    ROW(exec_null_plan, BAD, "plan", return cudnnFusedOpsExecute(f->h, NULL, f->v);)                                \
    ROW(exec_null_varpack, BAD, "varPack", return cudnnFusedOpsExecute(f->h, f->plan, NULL);)                       \
    ROW(exec_unmade_plan, CUDNN_STATUS_NOT_INITIALIZED, "never made", return cudnnFusedOpsExecute(f->h, f->fresh, f->v);)                    \
    ROW(exec_var_ops_mismatch, BAD, "created for", return cudnnFusedOpsExecute(f->h, f->plan, f->v2);)              \
    ROW(exec_null_x, BAD, "CUDNN_PTR_XDATA is NULL", var(f->v, CUDNN_PTR_XDATA, NULL); return exec0(f);)            \
    ROW(exec_null_ysum, BAD, "CUDNN_PTR_YSUM is NULL", var(f->v, CUDNN_PTR_YSUM, NULL); return exec0(f);)           \
    ROW(exec_misaligned_x, BAD, "aligned", var(f->v, CUDNN_PTR_XDATA, (char *)f->d[B_X] + 4); return exec0(f);)     \
    ROW(exec_misaligned_elem, BAD, "CUDNN_PTR_ELEM_ALIGNED", var(f->v2, CUDNN_PTR_BN_SCALE, (char *)f->d[B2_S] + 2); \
        return exec2(f);)                                                                                           \
    ROW(exec_short_workspace, BAD, "needs 800", f->ws = 799;                                                        \
        var(f->v, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &f->ws); return exec0(f);)                           \
    ROW(exec_null_workspace, BAD, "CUDNN_PTR_WORKSPACE is NULL", var(f->v, CUDNN_PTR_WORKSPACE, NULL);              \
        return exec0(f);)                                                                                           \
    ROW(exec_y_is_x, NS, "in place", var(f->v, CUDNN_PTR_YDATA, f->d[B_X]); return exec0(f);)                       \
    ROW(exec_sum_overlaps_y, BAD, "overlaps", var(f->v, CUDNN_PTR_YSUM, (char *)f->d[B_Y] + 16); return exec0(f);)  \
    ROW(exec_workspace_overlaps_x, BAD, "overlaps", var(f->v, CUDNN_PTR_WORKSPACE, f->d[B_X]); return exec0(f);)    \
    ROW(exec_acc_count_0, BAD, "ACCUMULATION_COUNT is 0", int64_t z = 0;                                            \
        return exec2_scalar(f, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &z);)                                    \
    ROW(exec_acc_count_neg, BAD, "ACCUMULATION_COUNT is -3", int64_t z = -3;                                        \
        return exec2_scalar(f, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &z);)                                    \
    ROW(exec_acc_count_unset, BAD, "ACCUMULATION_COUNT is not set",                                                 \
        return exec2_scalar(f, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, NULL);)                                  \
    ROW(exec_eps_negative, BAD, "EPSILON is -", double e = -1e-9;                                                   \
        return exec2_scalar(f, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &e);)                                                \
    ROW(exec_eps_nan, BAD, "EPSILON is", double e = NAN; return exec2_scalar(f, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &e);) \
    ROW(exec_eps_unset, BAD, "EPSILON is not set", return exec2_scalar(f, CUDNN_SCALAR_DOUBLE_BN_EPSILON, NULL);)   \
    ROW(exec_factor_unset, BAD, "EXP_AVG_FACTOR is not set",                                                        \
        return exec2_scalar(f, CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR, NULL);)                                       \
    ROW(exec_eps_zero_ok, OK, NULL, double e = 0; return exec2_scalar(f, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &e);)      \
    ROW(exec_running_aliases_saved, BAD, "overlaps", var(f->v2, CUDNN_PTR_BN_RUNNING_MEAN, f->d[B2_SM]);            \
        return exec2(f);)

typedef cudnnStatus_t (*row_fn)(fx_t *f);
typedef struct {
    const char *name;
    cudnnStatus_t want;
    const char *word;
    row_fn call;
} row_t;

#define ROW(name, st, word, ...)                                                                                    \
    static cudnnStatus_t row_##name(fx_t *f)                                                                        \
    {                                                                                                               \
        (void)f;                                                                                                    \
        __VA_ARGS__                                                                                                 \
    }
ROWS
#undef ROW

static const row_t rows[] = {
#define ROW(name, st, word, ...) {#name, st, word, row_##name},
    ROWS
#undef ROW
};

static void run_row(const row_t *r)
{
    fx_t fx, *f = &fx;
    fx_init(f);
    uint64_t before[B_COUNT];
    for (int b = 0; b < B_COUNT; b++)
        before[b] = fd_buf_hash(&f->buf[b]);
    /* a sentinel error, so a rejection must write its own reason */
    cudnnSetTensor4dDescriptor(NULL, CUDNN_TENSOR_NCHW, F32, 1, 1, 1, 1);
    char sentinel[512], msg[512];
    cudnnGetLastErrorString(sentinel, sizeof sentinel);
    cudnnStatus_t st = r->call(f);
    FD_EXPECT(st == r->want, "%s: got %s, want %s", r->name, cudnnGetErrorString(st), cudnnGetErrorString(r->want));
    for (int b = 0; b < B_COUNT; b++) {
        FD_EXPECT(fd_buf_guards_ok(&f->buf[b]), "%s: guard of buffer %d damaged", r->name, b);
        if (is_input[b] || st != OK)
            FD_EXPECT(fd_buf_hash(&f->buf[b]) == before[b], "%s: buffer %d changed%s", r->name, b,
                      is_input[b] ? " (an input)" : " by a rejected call");
    }
    if (st != OK) {
        cudnnGetLastErrorString(msg, sizeof msg);
        FD_EXPECT(msg[0] != '\0' && strcmp(msg, sentinel) != 0, "%s: no reason recorded (\"%s\")", r->name, msg);
        FD_EXPECT(r->word == NULL || strstr(msg, r->word) != NULL, "%s: reason \"%s\" lacks \"%s\"", r->name, msg, r->word);
        FD_EXPECT(f->sz == 12345, "%s: a rejected call wrote its size", r->name);
        FD_EXPECT(f->isnull == 42, "%s: a rejected call wrote isNULL", r->name);
        /* the fixture's made plans still run (with a variant pack the row did not touch) */
        FD_EXPECT_STATUS(exec2_fresh(f), OK);
    }
    fx_free(f);
}

/* A failed re-make of a made plan leaves it as it was: still made, same workspace, and it
 * computes what it computed before. A failed setter leaves the attribute as it was. */
static void atomicity(void)
{
    fx_t fx, *f = &fx;
    fx_init(f);
    fd_buf_poison(&f->buf[B_Y]);
    FD_EXPECT_STATUS(exec0(f), OK);
    uint64_t y0 = fd_buf_hash(&f->buf[B_Y]);
    set_k(f, CUDNN_PARAM_YDESC, f->y6);
    size_t ws = 5;
    FD_EXPECT_STATUS(cudnnMakeFusedOpsPlan(f->h, f->plan, f->k, &ws), BAD);
    FD_EXPECT(ws == 5, "failed make wrote the size");
    fd_buf_poison(&f->buf[B_Y]);
    FD_EXPECT_STATUS(exec0(f), OK);
    FD_EXPECT(fd_buf_hash(&f->buf[B_Y]) == y0, "a failed make changed what the plan computes");
    /* failed sets keep the previous value */
    FD_EXPECT_STATUS(set_k(f, CUDNN_PARAM_XDATA_PLACEHOLDER, PHV(7)), BAD);
    FD_EXPECT_STATUS(set_k(f, CUDNN_PARAM_XDESC, f->unset), BAD);
    cudnnFusedOpsPointerPlaceHolder_t got = CUDNN_PTR_NULL;
    int isnull = 1;
    FD_EXPECT_STATUS(cudnnGetFusedOpsConstParamPackAttribute(f->k, CUDNN_PARAM_XDATA_PLACEHOLDER, &got, &isnull), OK);
    FD_EXPECT(got == CUDNN_PTR_16B_ALIGNED && isnull == 0, "a failed set changed the placeholder (%d)", (int)got);
    cudnnTensorDescriptor_t t;
    cudnnCreateTensorDescriptor(&t);
    FD_EXPECT_STATUS(cudnnGetFusedOpsConstParamPackAttribute(f->k, CUDNN_PARAM_XDESC, t, &isnull), OK);
    int n, c, h, w, s0, s1, s2, s3;
    cudnnDataType_t dt;
    FD_EXPECT_STATUS(cudnnGetTensor4dDescriptor(t, &dt, &n, &c, &h, &w, &s0, &s1, &s2, &s3), OK);
    FD_EXPECT(n == 2 && c == 4 && h == 5 && w == 5 && s1 == 1, "a failed set changed XDESC");
    cudnnDestroyTensorDescriptor(t);
    fx_free(f);
}

int main(void)
{
    const int n = (int)(sizeof rows / sizeof rows[0]);
    for (int i = 0; i < n; i++)
        run_row(&rows[i]);
    atomicity();
    printf("%d contract rows\n", n);
    return fd_test_finish();
}
