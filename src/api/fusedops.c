/* SPDX-License-Identifier: MIT */
/*
 * fusedops.c - the fused-ops API (cudnnFusedOps*, cuDNN 7.6+): constant and variant packs as
 * attribute stores, plans, cudnnMakeFusedOpsPlan (validation, workspace size) and
 * cudnnFusedOpsExecute. The definitions of the seven sequences are in src/core/fusedops.h.
 *
 * Packs accept only the labels of their op (BAD_PARAM otherwise, as for a NULL param or an
 * invalid enum value). Descriptor attributes are stored by handle value and read when the plan
 * is made, which copies them: keep them alive and unchanged until then. Getting a descriptor
 * attribute fills a created descriptor of the same kind with the stored one's contents.
 * MakeFusedOpsPlan: a required attribute never set is BAD_PARAM naming the label; a required
 * pointer whose placeholder is CUDNN_PTR_NULL, or a combination the op does not define, is
 * NOT_SUPPORTED; inconsistent shapes are BAD_PARAM; types and layouts outside what we compute
 * (4-d FLOAT or HALF data, any strides; FLOAT statistics and BN parameters; FLOAT or HALF
 * equivalent scale/bias) are NOT_SUPPORTED. cuDNN itself restricts these ops to NHWC HALF data
 * on Volta and later; freednn computes a superset. Execute: every pointer whose placeholder is
 * not CUDNN_PTR_NULL must be non-NULL and keep its alignment promise, the workspace must be at
 * least the plan's size, the scalars the op reads must be set and in range (BAD_PARAM); a plan
 * never made is NOT_INITIALIZED (as cuDNN 9.27 answers).
 *
 * Each op has a row per backend in src/impls.def: ref (src/ref/fusedops_ref.c), cuda
 * (src/cuda/fusedops.cu); the cpu backend falls back to ref's. The plan keeps the row chosen
 * when it was made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/fusedops.h"
#include "../core/op.h"

/* ---- names and label tables ------------------------------------------------------------ */

static const char *const op_names[FD_FUSED_OPS_COUNT] = {
    "CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS",
    "CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD",
    "CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING",
    "CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE",
    "CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION",
    "CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK",
    "CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM",
};
_Static_assert(sizeof op_names / sizeof op_names[0] == FD_FUSED_OPS_COUNT, "one name per op");

static const char *const const_names[FD_FUSED_CONST_COUNT] = {
    "CUDNN_PARAM_XDESC",
    "CUDNN_PARAM_XDATA_PLACEHOLDER",
    "CUDNN_PARAM_BN_MODE",
    "CUDNN_PARAM_BN_EQSCALEBIAS_DESC",
    "CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER",
    "CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER",
    "CUDNN_PARAM_ACTIVATION_DESC",
    "CUDNN_PARAM_CONV_DESC",
    "CUDNN_PARAM_WDESC",
    "CUDNN_PARAM_WDATA_PLACEHOLDER",
    "CUDNN_PARAM_DWDESC",
    "CUDNN_PARAM_DWDATA_PLACEHOLDER",
    "CUDNN_PARAM_YDESC",
    "CUDNN_PARAM_YDATA_PLACEHOLDER",
    "CUDNN_PARAM_DYDESC",
    "CUDNN_PARAM_DYDATA_PLACEHOLDER",
    "CUDNN_PARAM_YSTATS_DESC",
    "CUDNN_PARAM_YSUM_PLACEHOLDER",
    "CUDNN_PARAM_YSQSUM_PLACEHOLDER",
    "CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC",
    "CUDNN_PARAM_BN_SCALE_PLACEHOLDER",
    "CUDNN_PARAM_BN_BIAS_PLACEHOLDER",
    "CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER",
    "CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER",
    "CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER",
    "CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER",
    "CUDNN_PARAM_ZDESC",
    "CUDNN_PARAM_ZDATA_PLACEHOLDER",
    "CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC",
    "CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER",
    "CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER",
    "CUDNN_PARAM_ACTIVATION_BITMASK_DESC",
    "CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER",
    "CUDNN_PARAM_DXDESC",
    "CUDNN_PARAM_DXDATA_PLACEHOLDER",
    "CUDNN_PARAM_DZDESC",
    "CUDNN_PARAM_DZDATA_PLACEHOLDER",
    "CUDNN_PARAM_BN_DSCALE_PLACEHOLDER",
    "CUDNN_PARAM_BN_DBIAS_PLACEHOLDER",
};
_Static_assert(sizeof const_names / sizeof const_names[0] == FD_FUSED_CONST_COUNT,
               "one name per constant label");

static const char *const ptr_names[FD_FUSED_PTR_COUNT] = {
    "CUDNN_PTR_XDATA",           "CUDNN_PTR_BN_EQSCALE",
    "CUDNN_PTR_BN_EQBIAS",       "CUDNN_PTR_WDATA",
    "CUDNN_PTR_DWDATA",          "CUDNN_PTR_YDATA",
    "CUDNN_PTR_DYDATA",          "CUDNN_PTR_YSUM",
    "CUDNN_PTR_YSQSUM",          "CUDNN_PTR_WORKSPACE",
    "CUDNN_PTR_BN_SCALE",        "CUDNN_PTR_BN_BIAS",
    "CUDNN_PTR_BN_SAVED_MEAN",   "CUDNN_PTR_BN_SAVED_INVSTD",
    "CUDNN_PTR_BN_RUNNING_MEAN", "CUDNN_PTR_BN_RUNNING_VAR",
    "CUDNN_PTR_ZDATA",           "CUDNN_PTR_BN_Z_EQSCALE",
    "CUDNN_PTR_BN_Z_EQBIAS",     "CUDNN_PTR_ACTIVATION_BITMASK",
    "CUDNN_PTR_DXDATA",          "CUDNN_PTR_DZDATA",
    "CUDNN_PTR_BN_DSCALE",       "CUDNN_PTR_BN_DBIAS",
};
_Static_assert(sizeof ptr_names / sizeof ptr_names[0] == FD_FUSED_PTR_COUNT,
               "one name per pointer label");

static const char *const scalar_names[FD_FUSED_SCALAR_COUNT] = {
    "CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES",
    "CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT",
    "CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR",
    "CUDNN_SCALAR_DOUBLE_BN_EPSILON",
};
_Static_assert(sizeof scalar_names / sizeof scalar_names[0] == FD_FUSED_SCALAR_COUNT,
               "one name per scalar label");

/* What the param of a constant label is. */
typedef enum { K_TENSOR, K_FILTER, K_CONV, K_ACT, K_PH, K_BN_MODE } const_kind_t;

static const unsigned char const_kind[FD_FUSED_CONST_COUNT] = {
    [CUDNN_PARAM_XDESC] = K_TENSOR,
    [CUDNN_PARAM_XDATA_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_BN_MODE] = K_BN_MODE,
    [CUDNN_PARAM_BN_EQSCALEBIAS_DESC] = K_TENSOR,
    [CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_ACTIVATION_DESC] = K_ACT,
    [CUDNN_PARAM_CONV_DESC] = K_CONV,
    [CUDNN_PARAM_WDESC] = K_FILTER,
    [CUDNN_PARAM_WDATA_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_DWDESC] = K_FILTER,
    [CUDNN_PARAM_DWDATA_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_YDESC] = K_TENSOR,
    [CUDNN_PARAM_YDATA_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_DYDESC] = K_TENSOR,
    [CUDNN_PARAM_DYDATA_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_YSTATS_DESC] = K_TENSOR,
    [CUDNN_PARAM_YSUM_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_YSQSUM_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC] = K_TENSOR,
    [CUDNN_PARAM_BN_SCALE_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_BN_BIAS_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_ZDESC] = K_TENSOR,
    [CUDNN_PARAM_ZDATA_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC] = K_TENSOR,
    [CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_ACTIVATION_BITMASK_DESC] = K_TENSOR,
    [CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_DXDESC] = K_TENSOR,
    [CUDNN_PARAM_DXDATA_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_DZDESC] = K_TENSOR,
    [CUDNN_PARAM_DZDATA_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_BN_DSCALE_PLACEHOLDER] = K_PH,
    [CUDNN_PARAM_BN_DBIAS_PLACEHOLDER] = K_PH,
};

/* The variant pointer each placeholder promises (-1: not a placeholder). */
static const signed char ph_ptr[FD_FUSED_CONST_COUNT] = {
    [CUDNN_PARAM_XDESC] = -1,
    [CUDNN_PARAM_XDATA_PLACEHOLDER] = CUDNN_PTR_XDATA,
    [CUDNN_PARAM_BN_MODE] = -1,
    [CUDNN_PARAM_BN_EQSCALEBIAS_DESC] = -1,
    [CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER] = CUDNN_PTR_BN_EQSCALE,
    [CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER] = CUDNN_PTR_BN_EQBIAS,
    [CUDNN_PARAM_ACTIVATION_DESC] = -1,
    [CUDNN_PARAM_CONV_DESC] = -1,
    [CUDNN_PARAM_WDESC] = -1,
    [CUDNN_PARAM_WDATA_PLACEHOLDER] = CUDNN_PTR_WDATA,
    [CUDNN_PARAM_DWDESC] = -1,
    [CUDNN_PARAM_DWDATA_PLACEHOLDER] = CUDNN_PTR_DWDATA,
    [CUDNN_PARAM_YDESC] = -1,
    [CUDNN_PARAM_YDATA_PLACEHOLDER] = CUDNN_PTR_YDATA,
    [CUDNN_PARAM_DYDESC] = -1,
    [CUDNN_PARAM_DYDATA_PLACEHOLDER] = CUDNN_PTR_DYDATA,
    [CUDNN_PARAM_YSTATS_DESC] = -1,
    [CUDNN_PARAM_YSUM_PLACEHOLDER] = CUDNN_PTR_YSUM,
    [CUDNN_PARAM_YSQSUM_PLACEHOLDER] = CUDNN_PTR_YSQSUM,
    [CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC] = -1,
    [CUDNN_PARAM_BN_SCALE_PLACEHOLDER] = CUDNN_PTR_BN_SCALE,
    [CUDNN_PARAM_BN_BIAS_PLACEHOLDER] = CUDNN_PTR_BN_BIAS,
    [CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER] = CUDNN_PTR_BN_SAVED_MEAN,
    [CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER] = CUDNN_PTR_BN_SAVED_INVSTD,
    [CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER] = CUDNN_PTR_BN_RUNNING_MEAN,
    [CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER] = CUDNN_PTR_BN_RUNNING_VAR,
    [CUDNN_PARAM_ZDESC] = -1,
    [CUDNN_PARAM_ZDATA_PLACEHOLDER] = CUDNN_PTR_ZDATA,
    [CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC] = -1,
    [CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER] = CUDNN_PTR_BN_Z_EQSCALE,
    [CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER] = CUDNN_PTR_BN_Z_EQBIAS,
    [CUDNN_PARAM_ACTIVATION_BITMASK_DESC] = -1,
    [CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER] = CUDNN_PTR_ACTIVATION_BITMASK,
    [CUDNN_PARAM_DXDESC] = -1,
    [CUDNN_PARAM_DXDATA_PLACEHOLDER] = CUDNN_PTR_DXDATA,
    [CUDNN_PARAM_DZDESC] = -1,
    [CUDNN_PARAM_DZDATA_PLACEHOLDER] = CUDNN_PTR_DZDATA,
    [CUDNN_PARAM_BN_DSCALE_PLACEHOLDER] = CUDNN_PTR_BN_DSCALE,
    [CUDNN_PARAM_BN_DBIAS_PLACEHOLDER] = CUDNN_PTR_BN_DBIAS,
};

#define L(x) (1ull << CUDNN_PARAM_##x)
#define EQ_SB (L(BN_EQSCALEBIAS_DESC) | L(BN_EQSCALE_PLACEHOLDER) | L(BN_EQBIAS_PLACEHOLDER))
#define BN_P (L(BN_SCALEBIAS_MEANVAR_DESC) | L(BN_SCALE_PLACEHOLDER) | L(BN_BIAS_PLACEHOLDER))
/* The constant labels each op reads; any other label is refused by its packs. */
static const uint64_t op_labels[FD_FUSED_OPS_COUNT] = {
    [CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS] =
        L(XDESC) | L(XDATA_PLACEHOLDER) | L(BN_MODE) | EQ_SB | L(ACTIVATION_DESC) | L(CONV_DESC) |
        L(WDESC) | L(WDATA_PLACEHOLDER) | L(YDESC) | L(YDATA_PLACEHOLDER) | L(YSTATS_DESC) |
        L(YSUM_PLACEHOLDER) | L(YSQSUM_PLACEHOLDER),
    [CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD] =
        L(XDESC) | L(XDATA_PLACEHOLDER) | L(BN_MODE) | EQ_SB | L(ACTIVATION_DESC) | L(CONV_DESC) |
        L(DWDESC) | L(DWDATA_PLACEHOLDER) | L(DYDESC) | L(DYDATA_PLACEHOLDER),
    [CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING] =
        L(BN_MODE) | L(YSTATS_DESC) | L(YSUM_PLACEHOLDER) | L(YSQSUM_PLACEHOLDER) | BN_P |
        L(BN_SAVED_MEAN_PLACEHOLDER) | L(BN_SAVED_INVSTD_PLACEHOLDER) |
        L(BN_RUNNING_MEAN_PLACEHOLDER) | L(BN_RUNNING_VAR_PLACEHOLDER) | EQ_SB,
    [CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE] =
        L(BN_MODE) | BN_P | L(BN_RUNNING_MEAN_PLACEHOLDER) | L(BN_RUNNING_VAR_PLACEHOLDER) | EQ_SB,
    [CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION] =
        L(XDESC) | L(XDATA_PLACEHOLDER) | L(BN_MODE) | L(CONV_DESC) | L(WDESC) |
        L(WDATA_PLACEHOLDER) | EQ_SB | L(ZDESC) | L(ZDATA_PLACEHOLDER) | L(ACTIVATION_DESC) |
        L(YDESC) | L(YDATA_PLACEHOLDER),
    [CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK] =
        L(XDESC) | L(XDATA_PLACEHOLDER) | L(BN_MODE) | EQ_SB | L(ZDESC) | L(ZDATA_PLACEHOLDER) |
        L(BN_Z_EQSCALEBIAS_DESC) | L(BN_Z_EQSCALE_PLACEHOLDER) | L(BN_Z_EQBIAS_PLACEHOLDER) |
        L(ACTIVATION_DESC) | L(YDESC) | L(YDATA_PLACEHOLDER) | L(ACTIVATION_BITMASK_DESC) |
        L(ACTIVATION_BITMASK_PLACEHOLDER),
    [CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM] =
        L(BN_MODE) | L(XDESC) | L(XDATA_PLACEHOLDER) | L(DYDESC) | L(DYDATA_PLACEHOLDER) |
        L(ACTIVATION_DESC) | L(ACTIVATION_BITMASK_DESC) | L(ACTIVATION_BITMASK_PLACEHOLDER) | BN_P |
        L(BN_SAVED_MEAN_PLACEHOLDER) | L(BN_SAVED_INVSTD_PLACEHOLDER) | L(DXDESC) |
        L(DXDATA_PLACEHOLDER) | L(DZDESC) | L(DZDATA_PLACEHOLDER) | L(BN_DSCALE_PLACEHOLDER) |
        L(BN_DBIAS_PLACEHOLDER),
};
#undef EQ_SB
#undef BN_P
#undef L

/* The scalars each op reads (bit i: CUDNN_SCALAR_* 100 + i); every op takes the workspace size. */
#define S(x) (1u << (CUDNN_SCALAR_##x - FD_FUSED_SCALAR_FIRST))
static const unsigned op_scalars[FD_FUSED_OPS_COUNT] = {
    [CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS] = S(SIZE_T_WORKSPACE_SIZE_IN_BYTES),
    [CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD] = S(SIZE_T_WORKSPACE_SIZE_IN_BYTES),
    [CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING] =
        S(SIZE_T_WORKSPACE_SIZE_IN_BYTES) | S(INT64_T_BN_ACCUMULATION_COUNT) |
        S(DOUBLE_BN_EXP_AVG_FACTOR) | S(DOUBLE_BN_EPSILON),
    [CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE] =
        S(SIZE_T_WORKSPACE_SIZE_IN_BYTES) | S(DOUBLE_BN_EPSILON),
    [CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION] = S(SIZE_T_WORKSPACE_SIZE_IN_BYTES),
    [CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK] = S(SIZE_T_WORKSPACE_SIZE_IN_BYTES),
    /* epsilon is accepted (frameworks pass it) but not read: the saved statistics are given */
    [CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM] =
        S(SIZE_T_WORKSPACE_SIZE_IN_BYTES) | S(DOUBLE_BN_EPSILON),
};
#undef S

/* The outputs of each op (variant pointer labels); every other used pointer is an input. The
 * running statistics of op 2 are read and written. */
#define P(x) (1u << CUDNN_PTR_##x)
static const uint32_t op_outputs[FD_FUSED_OPS_COUNT] = {
    [CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS] = P(YDATA) | P(YSUM) | P(YSQSUM),
    [CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD] = P(DWDATA),
    [CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING] = P(BN_EQSCALE) | P(BN_EQBIAS) |
                                                    P(BN_SAVED_MEAN) | P(BN_SAVED_INVSTD) |
                                                    P(BN_RUNNING_MEAN) | P(BN_RUNNING_VAR),
    [CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE] = P(BN_EQSCALE) | P(BN_EQBIAS),
    [CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION] = P(YDATA),
    [CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK] = P(YDATA) | P(ACTIVATION_BITMASK),
    [CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM] = P(DXDATA) | P(DZDATA) | P(BN_DSCALE) | P(BN_DBIAS),
};
#undef P

static int op_valid(cudnnFusedOps_t ops)
{
    return (int)ops >= 0 && (int)ops < FD_FUSED_OPS_COUNT;
}

static int const_label_of(cudnnFusedOps_t ops, int label)
{
    return label >= 0 && label < FD_FUSED_CONST_COUNT && ((op_labels[ops] >> label) & 1u);
}

/* The variant labels of an op: the pointers its placeholders name, the workspace, its scalars. */
static int variant_label_of(cudnnFusedOps_t ops, int label)
{
    if (label == CUDNN_PTR_WORKSPACE)
        return 1;
    if (label >= 0 && label < FD_FUSED_PTR_COUNT) {
        for (int l = 0; l < FD_FUSED_CONST_COUNT; l++)
            if (ph_ptr[l] == label && const_label_of(ops, l))
                return 1;
        return 0;
    }
    int s = label - FD_FUSED_SCALAR_FIRST;
    return s >= 0 && s < FD_FUSED_SCALAR_COUNT && ((op_scalars[ops] >> s) & 1u);
}

static const char *variant_name(int label)
{
    if (label >= 0 && label < FD_FUSED_PTR_COUNT)
        return ptr_names[label];
    int s = label - FD_FUSED_SCALAR_FIRST;
    return s >= 0 && s < FD_FUSED_SCALAR_COUNT ? scalar_names[s] : "invalid";
}

/* ---- objects ----------------------------------------------------------------------------- */

struct cudnnFusedOpsPlanStruct {
    uint32_t magic;
    cudnnFusedOps_t ops;
    int made; /* cudnnMakeFusedOpsPlan succeeded once */
    const fd_op_impl_t *impl;
    size_t workspace;
    fd_fused_problem_t p;
};

static cudnnStatus_t const_pack_check(cudnnFusedOpsConstParamPack_t k, const char *name)
{
    FD_CHECK(k != NULL, CUDNN_STATUS_BAD_PARAM, "%s is NULL", name);
    FD_CHECK(k->magic == FD_MAGIC_FUSED_CONST, CUDNN_STATUS_BAD_PARAM,
             "%s (%p) is not a live fused-ops constant pack", name, (void *)k);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t variant_pack_check(cudnnFusedOpsVariantParamPack_t v, const char *name)
{
    FD_CHECK(v != NULL, CUDNN_STATUS_BAD_PARAM, "%s is NULL", name);
    FD_CHECK(v->magic == FD_MAGIC_FUSED_VARIANT, CUDNN_STATUS_BAD_PARAM,
             "%s (%p) is not a live fused-ops variant pack", name, (void *)v);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t plan_check(cudnnFusedOpsPlan_t plan)
{
    FD_CHECK(plan != NULL, CUDNN_STATUS_BAD_PARAM, "plan is NULL");
    FD_CHECK(plan->magic == FD_MAGIC_FUSED_PLAN, CUDNN_STATUS_BAD_PARAM,
             "plan (%p) is not a live fused-ops plan", (void *)plan);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t ops_check(cudnnFusedOps_t ops)
{
    FD_CHECK(op_valid(ops), CUDNN_STATUS_BAD_PARAM, "ops %d is not a cudnnFusedOps_t value (0..%d)",
             (int)ops, FD_FUSED_OPS_COUNT - 1);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI
cudnnCreateFusedOpsConstParamPack(cudnnFusedOpsConstParamPack_t *constPack, cudnnFusedOps_t ops)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(constPack);
    FD_TRY(ops_check(ops));
    struct cudnnFusedOpsConstParamStruct *k = calloc(1, sizeof *k);
    FD_CHECK(k != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
             "cannot allocate a fused-ops constant pack (%zu bytes)", sizeof *k);
    k->magic = FD_MAGIC_FUSED_CONST;
    k->ops = ops;
    *constPack = k;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI
cudnnDestroyFusedOpsConstParamPack(cudnnFusedOpsConstParamPack_t constPack)
{
    FD_API(NULL);
    if (constPack == NULL)
        return CUDNN_STATUS_SUCCESS;
    FD_TRY(const_pack_check(constPack, "constPack"));
    constPack->magic = 0;
    free(constPack);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI
cudnnCreateFusedOpsVariantParamPack(cudnnFusedOpsVariantParamPack_t *varPack, cudnnFusedOps_t ops)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(varPack);
    FD_TRY(ops_check(ops));
    struct cudnnFusedOpsVariantParamStruct *v = calloc(1, sizeof *v);
    FD_CHECK(v != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
             "cannot allocate a fused-ops variant pack (%zu bytes)", sizeof *v);
    v->magic = FD_MAGIC_FUSED_VARIANT;
    v->ops = ops;
    *varPack = v;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI
cudnnDestroyFusedOpsVariantParamPack(cudnnFusedOpsVariantParamPack_t varPack)
{
    FD_API(NULL);
    if (varPack == NULL)
        return CUDNN_STATUS_SUCCESS;
    FD_TRY(variant_pack_check(varPack, "varPack"));
    varPack->magic = 0;
    free(varPack);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnCreateFusedOpsPlan(cudnnFusedOpsPlan_t *plan, cudnnFusedOps_t ops)
{
    FD_API(NULL);
    FD_CHECK_NOT_NULL(plan);
    FD_TRY(ops_check(ops));
    struct cudnnFusedOpsPlanStruct *pl = calloc(1, sizeof *pl);
    FD_CHECK(pl != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
             "cannot allocate a fused-ops plan (%zu bytes)", sizeof *pl);
    pl->magic = FD_MAGIC_FUSED_PLAN;
    pl->ops = ops;
    *plan = pl;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnDestroyFusedOpsPlan(cudnnFusedOpsPlan_t plan)
{
    FD_API(NULL);
    if (plan == NULL)
        return CUDNN_STATUS_SUCCESS;
    FD_TRY(plan_check(plan));
    plan->magic = 0;
    free(plan);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- constant pack attributes -------------------------------------------------------------- */

static cudnnStatus_t const_label_check(cudnnFusedOpsConstParamPack_t k, int label)
{
    FD_CHECK(label >= 0 && label < FD_FUSED_CONST_COUNT, CUDNN_STATUS_BAD_PARAM,
             "paramLabel %d is not a cudnnFusedOpsConstParamLabel_t value (0..%d)", label,
             FD_FUSED_CONST_COUNT - 1);
    FD_CHECK(const_label_of(k->ops, label), CUDNN_STATUS_BAD_PARAM, "%s is not an attribute of %s",
             const_names[label], op_names[k->ops]);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetFusedOpsConstParamPackAttribute(
    cudnnFusedOpsConstParamPack_t constPack, cudnnFusedOpsConstParamLabel_t paramLabel,
    const void *param)
{
    FD_API(NULL);
    FD_TRY(const_pack_check(constPack, "constPack"));
    const int label = (int)paramLabel;
    FD_TRY(const_label_check(constPack, label));
    FD_CHECK(param != NULL, CUDNN_STATUS_BAD_PARAM, "param is NULL (setting %s)",
             const_names[label]);
    const char *name = const_names[label];
    int value = 0;
    switch ((const_kind_t)const_kind[label]) {
    case K_TENSOR:
        FD_TRY(fd_tensor_check((cudnnTensorDescriptor_t)param, name));
        break;
    case K_FILTER:
        FD_TRY(fd_filter_check((cudnnFilterDescriptor_t)param, name));
        break;
    case K_CONV:
        FD_TRY(fd_conv_desc_check((cudnnConvolutionDescriptor_t)param, name));
        break;
    case K_ACT:
        FD_TRY(fd_act_desc_check((cudnnActivationDescriptor_t)param, name));
        break;
    case K_PH:
        value = (int)*(const cudnnFusedOpsPointerPlaceHolder_t *)param;
        FD_CHECK(value >= CUDNN_PTR_NULL && value <= CUDNN_PTR_16B_ALIGNED, CUDNN_STATUS_BAD_PARAM,
                 "%s value %d is not a cudnnFusedOpsPointerPlaceHolder_t (0..2)", name, value);
        break;
    case K_BN_MODE:
        value = (int)*(const cudnnBatchNormMode_t *)param;
        FD_CHECK(value >= CUDNN_BATCHNORM_PER_ACTIVATION &&
                     value <= CUDNN_BATCHNORM_SPATIAL_PERSISTENT,
                 CUDNN_STATUS_BAD_PARAM, "%s value %d is not a cudnnBatchNormMode_t (0..2)", name,
                 value);
        break;
    }
    if (const_kind[label] == K_PH || const_kind[label] == K_BN_MODE) {
        constPack->value[label] = value;
        constPack->desc[label] = NULL;
    } else {
        constPack->desc[label] = param; /* by handle: read when the plan is made */
    }
    constPack->set |= 1ull << label;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnGetFusedOpsConstParamPackAttribute(
    const cudnnFusedOpsConstParamPack_t constPack, cudnnFusedOpsConstParamLabel_t paramLabel,
    void *param, int *isNULL)
{
    FD_API(NULL);
    FD_TRY(const_pack_check(constPack, "constPack"));
    const int label = (int)paramLabel;
    FD_TRY(const_label_check(constPack, label));
    FD_CHECK(param != NULL, CUDNN_STATUS_BAD_PARAM, "param is NULL (getting %s)",
             const_names[label]);
    FD_CHECK_NOT_NULL(isNULL);
    if (!((constPack->set >> label) & 1u)) {
        *isNULL = 1; /* never set: param is left as it is */
        return CUDNN_STATUS_SUCCESS;
    }
    const void *src = constPack->desc[label];
    switch ((const_kind_t)const_kind[label]) {
    case K_TENSOR: {
        cudnnTensorDescriptor_t dst = param;
        FD_CHECK(dst->magic == FD_MAGIC_TENSOR, CUDNN_STATUS_BAD_PARAM,
                 "param (%p) is not a live tensor descriptor; getting %s fills a created one",
                 param, const_names[label]);
        FD_TRY(fd_tensor_check((cudnnTensorDescriptor_t)src, const_names[label]));
        memmove(dst, src, sizeof *dst);
        break;
    }
    case K_FILTER: {
        cudnnFilterDescriptor_t dst = param;
        FD_CHECK(dst->magic == FD_MAGIC_FILTER, CUDNN_STATUS_BAD_PARAM,
                 "param (%p) is not a live filter descriptor; getting %s fills a created one",
                 param, const_names[label]);
        FD_TRY(fd_filter_check((cudnnFilterDescriptor_t)src, const_names[label]));
        memmove(dst, src, sizeof *dst);
        break;
    }
    case K_CONV: {
        cudnnConvolutionDescriptor_t dst = param;
        FD_CHECK(dst->magic == FD_MAGIC_CONV, CUDNN_STATUS_BAD_PARAM,
                 "param (%p) is not a live convolution descriptor; getting %s fills a created one",
                 param, const_names[label]);
        FD_TRY(fd_conv_desc_check((cudnnConvolutionDescriptor_t)src, const_names[label]));
        memmove(dst, src, sizeof *dst);
        break;
    }
    case K_ACT: {
        cudnnActivationDescriptor_t dst = param;
        FD_CHECK(dst->magic == FD_MAGIC_ACT, CUDNN_STATUS_BAD_PARAM,
                 "param (%p) is not a live activation descriptor; getting %s fills a created one",
                 param, const_names[label]);
        FD_TRY(fd_act_desc_check((cudnnActivationDescriptor_t)src, const_names[label]));
        memmove(dst, src, sizeof *dst);
        break;
    }
    case K_PH:
        *(cudnnFusedOpsPointerPlaceHolder_t *)param =
            (cudnnFusedOpsPointerPlaceHolder_t)constPack->value[label];
        break;
    case K_BN_MODE:
        *(cudnnBatchNormMode_t *)param = (cudnnBatchNormMode_t)constPack->value[label];
        break;
    }
    *isNULL = 0;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- variant pack attributes --------------------------------------------------------------- */

static cudnnStatus_t variant_label_check(cudnnFusedOpsVariantParamPack_t v, int label)
{
    int is_ptr = label >= 0 && label < FD_FUSED_PTR_COUNT;
    int is_scalar =
        label >= FD_FUSED_SCALAR_FIRST && label < FD_FUSED_SCALAR_FIRST + FD_FUSED_SCALAR_COUNT;
    FD_CHECK(is_ptr || is_scalar, CUDNN_STATUS_BAD_PARAM,
             "paramLabel %d is not a cudnnFusedOpsVariantParamLabel_t value (0..%d, %d..%d)", label,
             FD_FUSED_PTR_COUNT - 1, FD_FUSED_SCALAR_FIRST,
             FD_FUSED_SCALAR_FIRST + FD_FUSED_SCALAR_COUNT - 1);
    FD_CHECK(variant_label_of(v->ops, label), CUDNN_STATUS_BAD_PARAM, "%s is not a variant of %s",
             variant_name(label), op_names[v->ops]);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnSetFusedOpsVariantParamPackAttribute(
    cudnnFusedOpsVariantParamPack_t varPack, cudnnFusedOpsVariantParamLabel_t paramLabel, void *ptr)
{
    FD_API(NULL);
    FD_TRY(variant_pack_check(varPack, "varPack"));
    const int label = (int)paramLabel;
    FD_TRY(variant_label_check(varPack, label));
    if (label < FD_FUSED_PTR_COUNT) {
        varPack->ptr[label] = ptr; /* NULL clears it */
        return CUDNN_STATUS_SUCCESS;
    }
    FD_CHECK(ptr != NULL, CUDNN_STATUS_BAD_PARAM,
             "ptr is NULL; %s is set through a host pointer to its value", variant_name(label));
    switch (label) {
    case CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES:
        memcpy(&varPack->workspace_size, ptr, sizeof varPack->workspace_size);
        break;
    case CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT:
        memcpy(&varPack->acc_count, ptr, sizeof varPack->acc_count);
        break;
    case CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR:
        memcpy(&varPack->exp_avg_factor, ptr, sizeof varPack->exp_avg_factor);
        break;
    default:
        memcpy(&varPack->epsilon, ptr, sizeof varPack->epsilon);
        break;
    }
    varPack->scalar_set |= 1u << (label - FD_FUSED_SCALAR_FIRST);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI
cudnnGetFusedOpsVariantParamPackAttribute(const cudnnFusedOpsVariantParamPack_t varPack,
                                          cudnnFusedOpsVariantParamLabel_t paramLabel, void *ptr)
{
    FD_API(NULL);
    FD_TRY(variant_pack_check(varPack, "varPack"));
    const int label = (int)paramLabel;
    FD_TRY(variant_label_check(varPack, label));
    FD_CHECK(ptr != NULL, CUDNN_STATUS_BAD_PARAM, "ptr is NULL (getting %s)", variant_name(label));
    switch (label) {
    case CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES:
        memcpy(ptr, &varPack->workspace_size, sizeof varPack->workspace_size);
        break;
    case CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT:
        memcpy(ptr, &varPack->acc_count, sizeof varPack->acc_count);
        break;
    case CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR:
        memcpy(ptr, &varPack->exp_avg_factor, sizeof varPack->exp_avg_factor);
        break;
    case CUDNN_SCALAR_DOUBLE_BN_EPSILON:
        memcpy(ptr, &varPack->epsilon, sizeof varPack->epsilon);
        break;
    default: /* a pointer label: ptr is a host void** */
        memcpy(ptr, &varPack->ptr[label], sizeof(void *));
        break;
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- the problem builders (the only readers of descriptors) ------------------------------ */

static int has(cudnnFusedOpsConstParamPack_t k, int label)
{
    return (int)((k->set >> label) & 1u);
}

/* A placeholder's promise; CUDNN_PTR_NULL when never set. */
static int ph(cudnnFusedOpsConstParamPack_t k, int label)
{
    return has(k, label) ? k->value[label] : CUDNN_PTR_NULL;
}

static cudnnStatus_t need_attr(cudnnFusedOpsConstParamPack_t k, int label)
{
    FD_CHECK(has(k, label), CUDNN_STATUS_BAD_PARAM, "%s is not set; %s needs it",
             const_names[label], op_names[k->ops]);
    return CUDNN_STATUS_SUCCESS;
}

/* A pointer the op cannot do without: never set is BAD_PARAM, CUDNN_PTR_NULL NOT_SUPPORTED. */
static cudnnStatus_t need_ptr(cudnnFusedOpsConstParamPack_t k, int label)
{
    FD_TRY(need_attr(k, label));
    FD_CHECK(k->value[label] != CUDNN_PTR_NULL, CUDNN_STATUS_NOT_SUPPORTED,
             "%s is CUDNN_PTR_NULL; %s is not defined without that operand", const_names[label],
             op_names[k->ops]);
    return CUDNN_STATUS_SUCCESS;
}

/* Records that the plan uses the pointer of placeholder `label` (if its promise is not NULL). */
static void use_ptr(fd_fused_problem_t *p, cudnnFusedOpsConstParamPack_t k, int label, size_t esize,
                    size_t span)
{
    int ptr = ph_ptr[label];
    p->ph[ptr] = (unsigned char)ph(k, label);
    p->esize[ptr] = esize;
    p->span[ptr] = span;
}

static cudnnTensorDescriptor_t tensor_attr(cudnnFusedOpsConstParamPack_t k, int label)
{
    return (cudnnTensorDescriptor_t)k->desc[label];
}

static int data_type_computed(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_HALF;
}

/* A 4-d FLOAT or HALF data tensor; outputs may not overlap themselves. */
static cudnnStatus_t data_tensor(cudnnFusedOpsConstParamPack_t k, int label, int is_output,
                                 fd_fused_tensor_t *t)
{
    const char *name = const_names[label];
    FD_TRY(need_attr(k, label));
    cudnnTensorDescriptor_t d = tensor_attr(k, label);
    FD_TRY(fd_tensor_check(d, name));
    FD_CHECK(d->nb_dims == 4, CUDNN_STATUS_NOT_SUPPORTED,
             "%s has %d dims; the fused ops take 4-d (N, C, H, W) tensors", name, d->nb_dims);
    FD_CHECK(data_type_computed(d->dtype), CUDNN_STATUS_NOT_SUPPORTED,
             "%s is %s; the fused ops compute FLOAT and HALF data", name, fd_dtype_name(d->dtype));
    FD_CHECK(!fd_tensor_has_negative_stride(d), CUDNN_STATUS_NOT_SUPPORTED,
             "%s has a negative stride; the fused ops do not take them", name);
    if (is_output)
        FD_CHECK(fd_tensor_is_non_overlapping(d), CUDNN_STATUS_BAD_PARAM,
                 "%s has overlapping strides; an output may not alias itself", name);
    t->dt = d->dtype;
    t->n = d->dim[0], t->c = d->dim[1], t->h = d->dim[2], t->w = d->dim[3];
    for (int i = 0; i < 4; i++)
        t->s[i] = d->stride[i];
    return CUDNN_STATUS_SUCCESS;
}

static size_t tensor_span(const fd_fused_tensor_t *t)
{
    int64_t e = 1 + (t->n - 1) * t->s[0] + (t->c - 1) * t->s[1] + (t->h - 1) * t->s[2] +
                (t->w - 1) * t->s[3];
    return (size_t)e * fd_dtype_size(t->dt);
}

static int same_dims(const fd_fused_tensor_t *a, const fd_fused_tensor_t *b)
{
    return a->n == b->n && a->c == b->c && a->h == b->h && a->w == b->w;
}

/* A data tensor shaped and typed like `like` (named `like_name`). */
static cudnnStatus_t data_like(cudnnFusedOpsConstParamPack_t k, int label, int is_output,
                               const fd_fused_tensor_t *like, int like_label, fd_fused_tensor_t *t)
{
    FD_TRY(data_tensor(k, label, is_output, t));
    FD_CHECK(same_dims(t, like), CUDNN_STATUS_BAD_PARAM,
             "%s is %lldx%lldx%lldx%lld but %s is %lldx%lldx%lldx%lld", const_names[label],
             (long long)t->n, (long long)t->c, (long long)t->h, (long long)t->w,
             const_names[like_label], (long long)like->n, (long long)like->c, (long long)like->h,
             (long long)like->w);
    FD_CHECK(t->dt == like->dt, CUDNN_STATUS_NOT_SUPPORTED,
             "%s is %s but %s is %s; mixed data types", const_names[label], fd_dtype_name(t->dt),
             const_names[like_label], fd_dtype_name(like->dt));
    return CUDNN_STATUS_SUCCESS;
}

/* A 1 x C x 1 x 1 per-channel descriptor; c < 0 takes C from the descriptor. FLOAT, or also
 * HALF when half_ok (the equivalent scale/bias). */
static cudnnStatus_t chan_vec(cudnnFusedOpsConstParamPack_t k, int label, int64_t c, int half_ok,
                              fd_fused_vec_t *v)
{
    const char *name = const_names[label];
    FD_TRY(need_attr(k, label));
    cudnnTensorDescriptor_t d = tensor_attr(k, label);
    FD_TRY(fd_tensor_check(d, name));
    if (c < 0 && d->nb_dims == 4)
        c = d->dim[1];
    FD_CHECK(d->nb_dims == 4 && d->dim[0] == 1 && d->dim[1] == c && d->dim[2] == 1 &&
                 d->dim[3] == 1,
             CUDNN_STATUS_BAD_PARAM, "%s has %d dims (%d x %d ...); it must be 1 x %lld x 1 x 1",
             name, d->nb_dims, d->dim[0], d->nb_dims > 1 ? d->dim[1] : 0, (long long)c);
    FD_CHECK(d->dtype == CUDNN_DATA_FLOAT || (half_ok && d->dtype == CUDNN_DATA_HALF),
             CUDNN_STATUS_NOT_SUPPORTED, "%s is %s; it is computed as FLOAT%s", name,
             fd_dtype_name(d->dtype), half_ok ? " or HALF" : "");
    FD_CHECK(d->stride[1] > 0 || c == 1, CUDNN_STATUS_NOT_SUPPORTED,
             "%s has a negative stride; the fused ops do not take them", name);
    v->dt = d->dtype;
    v->c = c;
    v->s = c == 1 ? 0 : d->stride[1];
    return CUDNN_STATUS_SUCCESS;
}

static size_t vec_span(const fd_fused_vec_t *v)
{
    return (size_t)((v->c - 1) * v->s + 1) * fd_dtype_size(v->dt);
}

/* Registers the pointers of the placeholders in `labels` (0-terminated list, all of vector v). */
static void use_vec_ptrs(fd_fused_problem_t *p, cudnnFusedOpsConstParamPack_t k,
                         const fd_fused_vec_t *v, const int *labels, int count)
{
    for (int i = 0; i < count; i++)
        use_ptr(p, k, labels[i], fd_dtype_size(v->dt), vec_span(v));
}

/* The equivalent scale/bias pair of x (or z): optional; the descriptor is needed when used. */
static cudnnStatus_t eq_pair(fd_fused_problem_t *p, cudnnFusedOpsConstParamPack_t k, int64_t c,
                             int desc, int scale_ph, int bias_ph, fd_fused_vec_t *v)
{
    if (ph(k, scale_ph) == CUDNN_PTR_NULL && ph(k, bias_ph) == CUDNN_PTR_NULL)
        return CUDNN_STATUS_SUCCESS;
    FD_TRY(chan_vec(k, desc, c, 1, v));
    const int labels[2] = {scale_ph, bias_ph};
    use_vec_ptrs(p, k, v, labels, 2);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t bn_mode(cudnnFusedOpsConstParamPack_t k, int required)
{
    if (!has(k, CUDNN_PARAM_BN_MODE)) {
        FD_CHECK(!required, CUDNN_STATUS_BAD_PARAM, "CUDNN_PARAM_BN_MODE is not set; %s needs it",
                 op_names[k->ops]);
        return CUDNN_STATUS_SUCCESS;
    }
    FD_CHECK(k->value[CUDNN_PARAM_BN_MODE] != CUDNN_BATCHNORM_PER_ACTIVATION,
             CUDNN_STATUS_NOT_SUPPORTED,
             "CUDNN_PARAM_BN_MODE is CUDNN_BATCHNORM_PER_ACTIVATION; the fused ops are per channel "
             "(SPATIAL or SPATIAL_PERSISTENT)");
    return CUDNN_STATUS_SUCCESS;
}

/* The activation descriptor: identity when absent; ops 5 and 6 need a 0/1 derivative. */
static cudnnStatus_t activation(fd_fused_problem_t *p, cudnnFusedOpsConstParamPack_t k, int binary)
{
    p->act.mode = CUDNN_ACTIVATION_IDENTITY;
    if (!has(k, CUDNN_PARAM_ACTIVATION_DESC))
        return CUDNN_STATUS_SUCCESS;
    cudnnActivationDescriptor_t a =
        (cudnnActivationDescriptor_t)k->desc[CUDNN_PARAM_ACTIVATION_DESC];
    FD_TRY(fd_act_desc_check(a, "CUDNN_PARAM_ACTIVATION_DESC"));
    if (binary)
        FD_CHECK(
            a->p.mode == CUDNN_ACTIVATION_RELU || a->p.mode == CUDNN_ACTIVATION_CLIPPED_RELU,
            CUDNN_STATUS_NOT_SUPPORTED,
            "CUDNN_PARAM_ACTIVATION_DESC has mode %d; %s keeps the activation's derivative in a "
            "bitmask, so it must be RELU or CLIPPED_RELU",
            (int)a->p.mode, op_names[k->ops]);
    p->act = a->p;
    return CUDNN_STATUS_SUCCESS;
}

/* The conv of ops 0, 1 and 4: descriptor checks of the classic calls, then 2-d FLOAT/HALF. */
static cudnnStatus_t conv_part(fd_fused_problem_t *p, cudnnFusedOpsConstParamPack_t k,
                               fd_conv_dir_t dir, int wlabel, int ylabel)
{
    FD_TRY(need_attr(k, CUDNN_PARAM_CONV_DESC));
    FD_TRY(need_attr(k, wlabel));
    FD_TRY(data_tensor(k, CUDNN_PARAM_XDESC, 0, &p->x));
    FD_TRY(data_tensor(k, ylabel, dir == FD_CONV_FWD, dir == FD_CONV_FWD ? &p->y : &p->dy));
    FD_TRY(fd_conv_problem_init(
        &p->conv, dir, tensor_attr(k, CUDNN_PARAM_XDESC), (cudnnFilterDescriptor_t)k->desc[wlabel],
        (cudnnConvolutionDescriptor_t)k->desc[CUDNN_PARAM_CONV_DESC], tensor_attr(k, ylabel)));
    const fd_conv_problem_t *c = &p->conv;
    size_t wbytes = (size_t)(c->k * (c->c / c->groups) * c->flt[0] * c->flt[1] * c->flt[2]) *
                    fd_dtype_size(c->wdt);
    use_ptr(p, k,
            wlabel == CUDNN_PARAM_WDESC ? CUDNN_PARAM_WDATA_PLACEHOLDER
                                        : CUDNN_PARAM_DWDATA_PLACEHOLDER,
            fd_dtype_size(c->wdt), wbytes);
    use_ptr(p, k, CUDNN_PARAM_XDATA_PLACEHOLDER, fd_dtype_size(p->x.dt), tensor_span(&p->x));
    const fd_fused_tensor_t *y = dir == FD_CONV_FWD ? &p->y : &p->dy;
    use_ptr(p, k,
            dir == FD_CONV_FWD ? CUDNN_PARAM_YDATA_PLACEHOLDER : CUDNN_PARAM_DYDATA_PLACEHOLDER,
            fd_dtype_size(y->dt), tensor_span(y));
    return CUDNN_STATUS_SUCCESS;
}

/* Ops 0 and 1: the optional scale / bias / activation on x; t is packed NCHW in the workspace. */
static cudnnStatus_t x_transform(fd_fused_problem_t *p, cudnnFusedOpsConstParamPack_t k)
{
    FD_TRY(eq_pair(p, k, p->x.c, CUDNN_PARAM_BN_EQSCALEBIAS_DESC,
                   CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, &p->eq));
    FD_TRY(activation(p, k, 0));
    p->transform = fd_fused_uses(p, CUDNN_PTR_BN_EQSCALE) ||
                   fd_fused_uses(p, CUDNN_PTR_BN_EQBIAS) || has(k, CUDNN_PARAM_ACTIVATION_DESC);
    if (p->transform) {
        fd_conv_problem_t *c = &p->conv;
        c->xs[4] = 1;
        c->xs[3] = p->x.w;
        c->xs[2] = 0; /* the absent depth dim */
        c->xs[1] = p->x.h * p->x.w;
        c->xs[0] = p->x.c * p->x.h * p->x.w;
    }
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t build_conv_bnstats(fd_fused_problem_t *p, cudnnFusedOpsConstParamPack_t k)
{
    FD_TRY(need_ptr(k, CUDNN_PARAM_XDATA_PLACEHOLDER));
    FD_TRY(need_ptr(k, CUDNN_PARAM_WDATA_PLACEHOLDER));
    FD_TRY(need_ptr(k, CUDNN_PARAM_YDATA_PLACEHOLDER));
    FD_TRY(bn_mode(k, 0));
    FD_TRY(conv_part(p, k, FD_CONV_FWD, CUDNN_PARAM_WDESC, CUDNN_PARAM_YDESC));
    FD_TRY(x_transform(p, k));
    if (ph(k, CUDNN_PARAM_YSUM_PLACEHOLDER) != CUDNN_PTR_NULL ||
        ph(k, CUDNN_PARAM_YSQSUM_PLACEHOLDER) != CUDNN_PTR_NULL) {
        FD_TRY(chan_vec(k, CUDNN_PARAM_YSTATS_DESC, p->y.c, 0, &p->stats));
        const int labels[2] = {CUDNN_PARAM_YSUM_PLACEHOLDER, CUDNN_PARAM_YSQSUM_PLACEHOLDER};
        use_vec_ptrs(p, k, &p->stats, labels, 2);
    }
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t build_wgrad(fd_fused_problem_t *p, cudnnFusedOpsConstParamPack_t k)
{
    FD_TRY(need_ptr(k, CUDNN_PARAM_XDATA_PLACEHOLDER));
    FD_TRY(need_ptr(k, CUDNN_PARAM_DYDATA_PLACEHOLDER));
    FD_TRY(need_ptr(k, CUDNN_PARAM_DWDATA_PLACEHOLDER));
    FD_TRY(bn_mode(k, 0));
    FD_TRY(conv_part(p, k, FD_CONV_BWD_FILTER, CUDNN_PARAM_DWDESC, CUDNN_PARAM_DYDESC));
    return x_transform(p, k);
}

/* BN_SCALEBIAS_MEANVAR_DESC and the pointers of `labels` that are used. */
static cudnnStatus_t bn_params(fd_fused_problem_t *p, cudnnFusedOpsConstParamPack_t k, int64_t c,
                               const int *labels, int count)
{
    int any = 0;
    for (int i = 0; i < count; i++)
        any |= ph(k, labels[i]) != CUDNN_PTR_NULL;
    if (!any)
        return CUDNN_STATUS_SUCCESS;
    FD_TRY(chan_vec(k, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, c, 0, &p->bnp));
    use_vec_ptrs(p, k, &p->bnp, labels, count);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t build_bn_finalize_train(fd_fused_problem_t *p, cudnnFusedOpsConstParamPack_t k)
{
    FD_TRY(bn_mode(k, 1));
    FD_TRY(need_ptr(k, CUDNN_PARAM_YSUM_PLACEHOLDER));
    FD_TRY(need_ptr(k, CUDNN_PARAM_YSQSUM_PLACEHOLDER));
    int eqs = ph(k, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER) != CUDNN_PTR_NULL;
    int eqb = ph(k, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER) != CUDNN_PTR_NULL;
    if (eqs || eqb) /* eqScale = scale invstd, eqBias = bias - mean eqScale */
        FD_TRY(need_ptr(k, CUDNN_PARAM_BN_SCALE_PLACEHOLDER));
    if (eqb)
        FD_TRY(need_ptr(k, CUDNN_PARAM_BN_BIAS_PLACEHOLDER));
    FD_TRY(chan_vec(k, CUDNN_PARAM_YSTATS_DESC, -1, 0, &p->stats));
    const int64_t c = p->stats.c;
    const int stats[2] = {CUDNN_PARAM_YSUM_PLACEHOLDER, CUDNN_PARAM_YSQSUM_PLACEHOLDER};
    use_vec_ptrs(p, k, &p->stats, stats, 2);
    const int params[6] = {
        CUDNN_PARAM_BN_SCALE_PLACEHOLDER,        CUDNN_PARAM_BN_BIAS_PLACEHOLDER,
        CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER,   CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER,
        CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER};
    FD_TRY(bn_params(p, k, c, params, 6));
    return eq_pair(p, k, c, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER,
                   CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, &p->eq);
}

static cudnnStatus_t build_bn_finalize_infer(fd_fused_problem_t *p, cudnnFusedOpsConstParamPack_t k)
{
    FD_TRY(bn_mode(k, 1));
    const int params[4] = {CUDNN_PARAM_BN_SCALE_PLACEHOLDER, CUDNN_PARAM_BN_BIAS_PLACEHOLDER,
                           CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER,
                           CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER};
    for (int i = 0; i < 4; i++)
        FD_TRY(need_ptr(k, params[i]));
    FD_TRY(need_ptr(k, CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER));
    FD_TRY(need_ptr(k, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER));
    FD_TRY(chan_vec(k, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, -1, 0, &p->bnp));
    FD_TRY(bn_params(p, k, p->bnp.c, params, 4));
    return eq_pair(p, k, p->bnp.c, CUDNN_PARAM_BN_EQSCALEBIAS_DESC,
                   CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, &p->eq);
}

/* z of ops 4 and 5: optional, shaped and typed like y. */
static cudnnStatus_t z_part(fd_fused_problem_t *p, cudnnFusedOpsConstParamPack_t k)
{
    if (ph(k, CUDNN_PARAM_ZDATA_PLACEHOLDER) == CUDNN_PTR_NULL)
        return CUDNN_STATUS_SUCCESS;
    FD_TRY(data_like(k, CUDNN_PARAM_ZDESC, 0, &p->y, CUDNN_PARAM_YDESC, &p->z));
    use_ptr(p, k, CUDNN_PARAM_ZDATA_PLACEHOLDER, fd_dtype_size(p->z.dt), tensor_span(&p->z));
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t build_conv_scale_bias_add_act(fd_fused_problem_t *p,
                                                   cudnnFusedOpsConstParamPack_t k)
{
    FD_TRY(need_ptr(k, CUDNN_PARAM_XDATA_PLACEHOLDER));
    FD_TRY(need_ptr(k, CUDNN_PARAM_WDATA_PLACEHOLDER));
    FD_TRY(need_ptr(k, CUDNN_PARAM_YDATA_PLACEHOLDER));
    FD_TRY(bn_mode(k, 0));
    FD_TRY(conv_part(p, k, FD_CONV_FWD, CUDNN_PARAM_WDESC, CUDNN_PARAM_YDESC));
    FD_TRY(eq_pair(p, k, p->y.c, CUDNN_PARAM_BN_EQSCALEBIAS_DESC,
                   CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, &p->eq));
    FD_TRY(z_part(p, k));
    return activation(p, k, 0);
}

/* The bitmask of ops 5 and 6: packed INT32 with room for the layout of src/core/fusedops.h. */
static cudnnStatus_t bitmask_part(fd_fused_problem_t *p, cudnnFusedOpsConstParamPack_t k)
{
    const int label = CUDNN_PARAM_ACTIVATION_BITMASK_DESC;
    const char *name = const_names[label];
    FD_TRY(need_attr(k, label));
    cudnnTensorDescriptor_t d = tensor_attr(k, label);
    FD_TRY(fd_tensor_check(d, name));
    p->bm_words = fd_fused_bitmask_words_per_row(p->x.c);
    p->bm_rows = fd_fused_bitmask_rows(p->x.n * p->x.h * p->x.w);
    const int64_t words = p->bm_rows * p->bm_words, elements = fd_tensor_elements(d);
    FD_CHECK(d->dtype == CUDNN_DATA_INT32, CUDNN_STATUS_BAD_PARAM,
             "%s is %s; the activation bitmask is CUDNN_DATA_INT32 words", name,
             fd_dtype_name(d->dtype));
    FD_CHECK(!fd_tensor_has_negative_stride(d) && fd_tensor_is_non_overlapping(d) &&
                 fd_tensor_extent(d) == elements,
             CUDNN_STATUS_BAD_PARAM,
             "%s is not packed; the bitmask is a dense array of int32 words", name);
    FD_CHECK(elements >= words, CUDNN_STATUS_BAD_PARAM,
             "%s has %lld elements; N*H*W = %lld rounded up to %lld rows of %lld words (C = %lld) "
             "need %lld",
             name, (long long)elements, (long long)(p->x.n * p->x.h * p->x.w),
             (long long)p->bm_rows, (long long)p->bm_words, (long long)p->x.c, (long long)words);
    use_ptr(p, k, CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER, sizeof(int32_t),
            (size_t)words * sizeof(int32_t));
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t build_scale_bias_add_act_bitmask(fd_fused_problem_t *p,
                                                      cudnnFusedOpsConstParamPack_t k)
{
    FD_TRY(need_ptr(k, CUDNN_PARAM_XDATA_PLACEHOLDER));
    FD_TRY(need_ptr(k, CUDNN_PARAM_YDATA_PLACEHOLDER));
    FD_TRY(need_ptr(k, CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER));
    FD_TRY(need_attr(k, CUDNN_PARAM_ACTIVATION_DESC));
    FD_TRY(bn_mode(k, 0));
    FD_TRY(data_tensor(k, CUDNN_PARAM_XDESC, 0, &p->x));
    FD_TRY(data_like(k, CUDNN_PARAM_YDESC, 1, &p->x, CUDNN_PARAM_XDESC, &p->y));
    use_ptr(p, k, CUDNN_PARAM_XDATA_PLACEHOLDER, fd_dtype_size(p->x.dt), tensor_span(&p->x));
    use_ptr(p, k, CUDNN_PARAM_YDATA_PLACEHOLDER, fd_dtype_size(p->y.dt), tensor_span(&p->y));
    FD_TRY(eq_pair(p, k, p->x.c, CUDNN_PARAM_BN_EQSCALEBIAS_DESC,
                   CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER, CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER, &p->eq));
    FD_TRY(z_part(p, k));
    int zs = ph(k, CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER),
        zb = ph(k, CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER);
    FD_CHECK((zs == CUDNN_PTR_NULL && zb == CUDNN_PTR_NULL) || fd_fused_uses(p, CUDNN_PTR_ZDATA),
             CUDNN_STATUS_NOT_SUPPORTED,
             "CUDNN_PARAM_BN_Z_EQSCALE/EQBIAS_PLACEHOLDER are set but z is not "
             "(CUDNN_PARAM_ZDATA_PLACEHOLDER is CUDNN_PTR_NULL); a scale or bias of z needs z");
    FD_TRY(eq_pair(p, k, p->x.c, CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC,
                   CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER, CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER,
                   &p->zeq));
    FD_TRY(activation(p, k, 1));
    return bitmask_part(p, k);
}

static cudnnStatus_t build_dact_dbn(fd_fused_problem_t *p, cudnnFusedOpsConstParamPack_t k)
{
    const int required[] = {CUDNN_PARAM_XDATA_PLACEHOLDER,
                            CUDNN_PARAM_DYDATA_PLACEHOLDER,
                            CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER,
                            CUDNN_PARAM_BN_SCALE_PLACEHOLDER,
                            CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER,
                            CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER,
                            CUDNN_PARAM_DXDATA_PLACEHOLDER};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        FD_TRY(need_ptr(k, required[i]));
    FD_TRY(bn_mode(k, 1));
    FD_TRY(data_tensor(k, CUDNN_PARAM_XDESC, 0, &p->x));
    FD_TRY(data_like(k, CUDNN_PARAM_DYDESC, 0, &p->x, CUDNN_PARAM_XDESC, &p->dy));
    FD_TRY(data_like(k, CUDNN_PARAM_DXDESC, 1, &p->x, CUDNN_PARAM_XDESC, &p->dx));
    use_ptr(p, k, CUDNN_PARAM_XDATA_PLACEHOLDER, fd_dtype_size(p->x.dt), tensor_span(&p->x));
    use_ptr(p, k, CUDNN_PARAM_DYDATA_PLACEHOLDER, fd_dtype_size(p->dy.dt), tensor_span(&p->dy));
    use_ptr(p, k, CUDNN_PARAM_DXDATA_PLACEHOLDER, fd_dtype_size(p->dx.dt), tensor_span(&p->dx));
    if (ph(k, CUDNN_PARAM_DZDATA_PLACEHOLDER) != CUDNN_PTR_NULL) {
        FD_TRY(data_like(k, CUDNN_PARAM_DZDESC, 1, &p->x, CUDNN_PARAM_XDESC, &p->dz));
        use_ptr(p, k, CUDNN_PARAM_DZDATA_PLACEHOLDER, fd_dtype_size(p->dz.dt), tensor_span(&p->dz));
    }
    const int params[6] = {
        CUDNN_PARAM_BN_SCALE_PLACEHOLDER,      CUDNN_PARAM_BN_BIAS_PLACEHOLDER,
        CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER, CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER,
        CUDNN_PARAM_BN_DSCALE_PLACEHOLDER,     CUDNN_PARAM_BN_DBIAS_PLACEHOLDER};
    FD_TRY(bn_params(p, k, p->x.c, params, 6));
    FD_TRY(activation(p, k, 1));
    return bitmask_part(p, k);
}

typedef cudnnStatus_t (*fused_builder_t)(fd_fused_problem_t *p, cudnnFusedOpsConstParamPack_t k);
static const fused_builder_t builders[FD_FUSED_OPS_COUNT] = {
    build_conv_bnstats,
    build_wgrad,
    build_bn_finalize_train,
    build_bn_finalize_infer,
    build_conv_scale_bias_add_act,
    build_scale_bias_add_act_bitmask,
    build_dact_dbn,
};
_Static_assert(sizeof builders / sizeof builders[0] == FD_FUSED_OPS_COUNT, "one builder per op");

cudnnStatus_t CUDNNWINAPI cudnnMakeFusedOpsPlan(cudnnHandle_t handle, cudnnFusedOpsPlan_t plan,
                                                const cudnnFusedOpsConstParamPack_t constPack,
                                                size_t *workspaceSizeInBytes)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(plan_check(plan));
    FD_TRY(const_pack_check(constPack, "constPack"));
    FD_CHECK_NOT_NULL(workspaceSizeInBytes);
    FD_CHECK(constPack->ops == plan->ops, CUDNN_STATUS_BAD_PARAM,
             "constPack was created for %s but plan for %s", op_names[constPack->ops],
             op_names[plan->ops]);
    fd_fused_problem_t p;
    memset(&p, 0, sizeof p);
    p.op = plan->ops;
    FD_TRY(builders[p.op](&p, constPack));
    char why[512];
    const fd_op_impl_t *impl =
        fd_op_select((fd_op_t)(FD_OP_FUSED_FIRST + (int)p.op), handle->backend, &p, why, sizeof why);
    FD_CHECK(impl != NULL, CUDNN_STATUS_NOT_SUPPORTED, "%s: %s", op_names[p.op], why);
    /* commit only now: a rejected call leaves the plan as it was */
    plan->p = p;
    plan->impl = impl;
    plan->workspace = impl->workspace(&plan->p);
    plan->made = 1;
    *workspaceSizeInBytes = plan->workspace;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- execution ------------------------------------------------------------------------------ */

static int spans_overlap(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
    return a0 < b0 + nb && b0 < a0 + na;
}

/* The data tensor behind pointer label l (for exact in-place checks), or NULL. */
static const fd_fused_tensor_t *tensor_of(const fd_fused_problem_t *p, int l)
{
    switch (l) {
    case CUDNN_PTR_XDATA:
        return &p->x;
    case CUDNN_PTR_YDATA:
        return &p->y;
    case CUDNN_PTR_ZDATA:
        return &p->z;
    default:
        return NULL;
    }
}

/* In-place forms the reference computes element by element: y = z (op 4), y = x or y = z
 * (op 5), when the two are the same tensor (pointer, dims, strides and type). */
static int exact_alias_ok(const fd_fused_problem_t *p, int out, int in, void *const *ptr)
{
    if (out != CUDNN_PTR_YDATA || ptr[out] != ptr[in])
        return 0;
    if (!(p->op == CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION && in == CUDNN_PTR_ZDATA) &&
        !(p->op == CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK &&
          (in == CUDNN_PTR_XDATA || in == CUDNN_PTR_ZDATA)))
        return 0;
    const fd_fused_tensor_t *a = tensor_of(p, out), *b = tensor_of(p, in);
    return memcmp(a, b, sizeof *a) == 0;
}

static cudnnStatus_t check_overlaps(const fd_fused_problem_t *p, void *const *ptr, size_t ws)
{
    const uint32_t outs = op_outputs[p->op];
    for (int o = 0; o < FD_FUSED_PTR_COUNT; o++) {
        int o_used = o == CUDNN_PTR_WORKSPACE ? ws > 0 : fd_fused_uses(p, o);
        int o_out = o == CUDNN_PTR_WORKSPACE || ((outs >> o) & 1u);
        if (!o_used || !o_out)
            continue;
        size_t o_span = o == CUDNN_PTR_WORKSPACE ? ws : p->span[o];
        for (int i = 0; i < FD_FUSED_PTR_COUNT; i++) {
            int i_used = i == CUDNN_PTR_WORKSPACE ? ws > 0 : fd_fused_uses(p, i);
            if (i == o || !i_used)
                continue;
            int i_out = i == CUDNN_PTR_WORKSPACE || ((outs >> i) & 1u);
            if (i_out && i < o) /* each pair of outputs once */
                continue;
            size_t i_span = i == CUDNN_PTR_WORKSPACE ? ws : p->span[i];
            if (!spans_overlap(ptr[o], o_span, ptr[i], i_span) ||
                (!i_out && exact_alias_ok(p, o, i, ptr)))
                continue;
            int conv_input =
                (p->op == CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS ||
                 p->op == CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD ||
                 p->op == CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION) &&
                (i == CUDNN_PTR_XDATA || i == CUDNN_PTR_WDATA || i == CUDNN_PTR_DYDATA) &&
                o != CUDNN_PTR_WORKSPACE;
            FD_CHECK(!conv_input, CUDNN_STATUS_NOT_SUPPORTED,
                     "%s overlaps %s; a convolution is not computed in place", ptr_names[o],
                     ptr_names[i]);
            return fd_error(CUDNN_STATUS_BAD_PARAM, __FILE__, __LINE__,
                            "%s (%p, %zu bytes) overlaps %s (%p, %zu bytes)", ptr_names[o], ptr[o],
                            o_span, ptr_names[i], ptr[i], i_span);
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

static int scalar_set(cudnnFusedOpsVariantParamPack_t v, int label)
{
    return (int)((v->scalar_set >> (label - FD_FUSED_SCALAR_FIRST)) & 1u);
}

static cudnnStatus_t check_scalars(const fd_fused_problem_t *p, cudnnFusedOpsVariantParamPack_t v)
{
    if (p->op != CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING &&
        p->op != CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE)
        return CUDNN_STATUS_SUCCESS;
    FD_CHECK(scalar_set(v, CUDNN_SCALAR_DOUBLE_BN_EPSILON), CUDNN_STATUS_BAD_PARAM,
             "CUDNN_SCALAR_DOUBLE_BN_EPSILON is not set; %s needs it", op_names[p->op]);
    FD_CHECK(v->epsilon >= 0.0, CUDNN_STATUS_BAD_PARAM,
             "CUDNN_SCALAR_DOUBLE_BN_EPSILON is %g; it must be >= 0 (CUDNN_BN_MIN_EPSILON)",
             v->epsilon);
    if (p->op != CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING)
        return CUDNN_STATUS_SUCCESS;
    FD_CHECK(scalar_set(v, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT), CUDNN_STATUS_BAD_PARAM,
             "CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT is not set; %s needs it", op_names[p->op]);
    FD_CHECK(v->acc_count >= 1, CUDNN_STATUS_BAD_PARAM,
             "CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT is %lld; the statistics need at least 1 "
             "element",
             (long long)v->acc_count);
    if (fd_fused_uses(p, CUDNN_PTR_BN_RUNNING_MEAN) || fd_fused_uses(p, CUDNN_PTR_BN_RUNNING_VAR))
        FD_CHECK(
            scalar_set(v, CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR), CUDNN_STATUS_BAD_PARAM,
            "CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR is not set; the running statistics need it");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnFusedOpsExecute(cudnnHandle_t handle, const cudnnFusedOpsPlan_t plan,
                                               cudnnFusedOpsVariantParamPack_t varPack)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(plan_check(plan));
    FD_CHECK(plan->made, CUDNN_STATUS_NOT_INITIALIZED,
             "plan was never made (call cudnnMakeFusedOpsPlan first)");
    FD_TRY(variant_pack_check(varPack, "varPack"));
    FD_CHECK(varPack->ops == plan->ops, CUDNN_STATUS_BAD_PARAM,
             "varPack was created for %s but plan for %s", op_names[varPack->ops],
             op_names[plan->ops]);
    const fd_fused_problem_t *p = &plan->p;
    const fd_op_impl_t *impl = plan->impl;
    FD_CHECK(impl->backend == handle->backend ||
                 (impl->backend == FD_BACKEND_REF && handle->backend == FD_BACKEND_CPU),
             CUDNN_STATUS_NOT_SUPPORTED,
             "the plan was made for the %s backend (%s); this handle's backend cannot run it",
             impl->backend == FD_BACKEND_REF   ? "ref"
             : impl->backend == FD_BACKEND_CPU ? "cpu"
                                               : "cuda",
             impl->name);
    for (int l = 0; l < FD_FUSED_PTR_COUNT; l++) {
        if (!fd_fused_uses(p, l))
            continue;
        const void *ptr = varPack->ptr[l];
        FD_CHECK(ptr != NULL, CUDNN_STATUS_BAD_PARAM,
                 "%s is NULL but the plan's placeholder promised it", ptr_names[l]);
        size_t align = p->ph[l] == CUDNN_PTR_16B_ALIGNED ? 16 : p->esize[l];
        FD_CHECK((uintptr_t)ptr % align == 0, CUDNN_STATUS_BAD_PARAM,
                 "%s (%p) is not aligned to %zu bytes as its placeholder (%s) promised",
                 ptr_names[l], ptr, align,
                 p->ph[l] == CUDNN_PTR_16B_ALIGNED ? "CUDNN_PTR_16B_ALIGNED"
                                                   : "CUDNN_PTR_ELEM_ALIGNED");
    }
    const size_t need = plan->workspace;
    const size_t have = scalar_set(varPack, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES)
                            ? varPack->workspace_size
                            : 0;
    if (need > 0) {
        FD_CHECK(have >= need, CUDNN_STATUS_BAD_PARAM,
                 "CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES is %zu but the plan needs %zu", have,
                 need);
        FD_CHECK(varPack->ptr[CUDNN_PTR_WORKSPACE] != NULL, CUDNN_STATUS_BAD_PARAM,
                 "CUDNN_PTR_WORKSPACE is NULL but the plan needs %zu bytes of workspace", need);
    }
    FD_TRY(check_scalars(p, varPack));
    fd_fused_args_t a;
    memset(&a, 0, sizeof a);
    for (int l = 0; l < FD_FUSED_PTR_COUNT; l++)
        if (fd_fused_uses(p, l))
            a.ptr[l] = varPack->ptr[l];
    a.ptr[CUDNN_PTR_WORKSPACE] = need > 0 ? varPack->ptr[CUDNN_PTR_WORKSPACE] : NULL;
    FD_TRY(check_overlaps(p, a.ptr, need));
    a.handle = handle;
    a.workspace_size = have;
    a.acc_count = varPack->acc_count;
    a.exp_avg_factor = varPack->exp_avg_factor;
    a.epsilon = varPack->epsilon;
    return impl->run(p, &a);
}
