/* SPDX-License-Identifier: MIT */
/*
 * fusedops.h - the fused-ops API of cuDNN 7.6+ (cudnnFusedOps*): the constant pack, the variant
 * pack and the plan behind the opaque handles, the flat problem a made plan holds, and the
 * implementation interface of the seven fused sequences (src/api/fusedops.c builds and checks,
 * src/ref/fusedops_ref.c computes, src/cuda/fusedops.cu on the GPU).
 *
 * Definitions (per channel c; "eq" = the BN equivalent scale/bias, each stage in [brackets] is
 * skipped when its placeholder is CUDNN_PTR_NULL or never set; act = the activation descriptor,
 * identity when it is not set):
 *   0 SCALE_BIAS_ACTIVATION_CONV_BNSTATS  t = act([eqScale] x [+ eqBias]) rounded to x's type,
 *        y = conv(t, w), [ySum = sum y], [ySqSum = sum y^2] over N, H, W of y as stored.
 *   1 SCALE_BIAS_ACTIVATION_WGRAD  dw = conv_bwd_filter(t, dy), t as in 0.
 *   2 BN_FINALIZE_STATISTICS_TRAINING  with M = the accumulation count:
 *        mean = ySum / M, var = max(ySqSum / M - mean^2, 0), invstd = 1 / sqrt(var + eps),
 *        [eqScale = scale invstd], [eqBias = bias - mean scale invstd], [savedMean = mean],
 *        [savedInvStd = invstd], [runMean = (1 - f) runMean + f mean],
 *        [runVar = (1 - f) runVar + f var M / (M - 1)] (f = the exp-avg factor; the unbiased
 *        variance as cudnnBatchNormalizationForwardTraining, NaN for M = 1).
 *   3 BN_FINALIZE_STATISTICS_INFERENCE  eqScale = scale / sqrt(runVar + eps),
 *        eqBias = bias - runMean eqScale.
 *   4 CONV_SCALE_BIAS_ADD_ACTIVATION  y = act([eqScale] conv(x, w) [+ eqBias] [+ z]), one
 *        rounding (as cudnnConvolutionBiasActivationForward).
 *   5 SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK  u = [eqScale] x [+ eqBias]
 *        [+ ([zEqScale] z [+ zEqBias])], y = act(u), bitmask bit = act'(u) == 1. act must be
 *        RELU or CLIPPED_RELU (a derivative that is 0 or 1).
 *   6 DACTIVATION_FORK_DBATCHNORM  the backward pass of 5 when its x was batch-normalised with
 *        the saved statistics (eqScale = scale invstd, eqBias = bias - mean eqScale):
 *        g = bit ? dy : 0, [dz = g], xhat = (x - savedMean) savedInvStd, M = N H W,
 *        dBias = sum g, dScale = sum g xhat, dx = scale invstd (g - dBias / M - xhat dScale / M)
 *        (cudnnBatchNormalizationBackwardEx with BN_ADD_ACTIVATION, the bitmask standing in for
 *        the recomputed activation).
 * No alpha/beta: every output is overwritten and never read (running statistics excepted).
 *
 * Bitmask layout (ops 5 and 6; NVIDIA leaves it opaque): rows r = (n H + h) W + w, words per row
 * Cw = 2 ceil(C / 64); channel c of row r is bit c % 32 of int32 word r Cw + c / 32. The buffer
 * has ((N H W + 31) / 32 * 32) Cw words - the size frameworks allocate for cuDNN - and op 5
 * writes all of it (padding bits 0).
 */
#ifndef FD_CORE_FUSEDOPS_H_
#define FD_CORE_FUSEDOPS_H_

#include "activation.h"
#include "conv.h"

#define FD_MAGIC_FUSED_CONST 0x43464e46u   /* "FNFC" */
#define FD_MAGIC_FUSED_VARIANT 0x56464e46u /* "FNFV" */
#define FD_MAGIC_FUSED_PLAN 0x50464e46u    /* "FNFP" */

#define FD_FUSED_OPS_COUNT 7      /* cudnnFusedOps_t 0..6 */
#define FD_FUSED_CONST_COUNT 39   /* cudnnFusedOpsConstParamLabel_t 0..38 */
#define FD_FUSED_PTR_COUNT 24     /* CUDNN_PTR_* 0..23 */
#define FD_FUSED_SCALAR_FIRST 100 /* CUDNN_SCALAR_* 100..103 */
#define FD_FUSED_SCALAR_COUNT 4

/* The constant pack. Descriptor attributes are kept by handle value, as cuDNN keeps them: the
 * caller keeps those descriptors alive and unchanged until cudnnMakeFusedOpsPlan, which copies
 * their contents into the plan (after that they may be changed or destroyed). */
struct cudnnFusedOpsConstParamStruct {
    uint32_t magic;
    cudnnFusedOps_t ops;
    uint64_t set;                           /* bit l: label l was set */
    const void *desc[FD_FUSED_CONST_COUNT]; /* *_DESC labels: the descriptor handle */
    int value[FD_FUSED_CONST_COUNT];        /* *_PLACEHOLDER labels and BN_MODE: the enum */
};

/* The variant pack: pointers as given (never dereferenced here), scalars by value. */
struct cudnnFusedOpsVariantParamStruct {
    uint32_t magic;
    cudnnFusedOps_t ops;
    void *ptr[FD_FUSED_PTR_COUNT];
    unsigned scalar_set; /* bit i: CUDNN_SCALAR_* 100 + i was set */
    size_t workspace_size;
    int64_t acc_count;
    double exp_avg_factor, epsilon;
};

/* A 4-d data tensor, flattened: sizes and element strides in N, C, H, W order. */
typedef struct fd_fused_tensor {
    cudnnDataType_t dt;
    int64_t n, c, h, w;
    int64_t s[4];
} fd_fused_tensor_t;

/* A 1 x C x 1 x 1 per-channel operand (every pointer of one descriptor shares it). */
typedef struct fd_fused_vec {
    cudnnDataType_t dt;
    int64_t c, s; /* channels, element stride along C */
} fd_fused_vec_t;

/* What a made plan keeps. Only the problem builder (src/api/fusedops.c) reads descriptors. */
typedef struct fd_fused_problem {
    cudnnFusedOps_t op;
    /* Per variant pointer label (cudnnFusedOpsVariantParamLabel_t 0..23): the placeholder
     * promise (CUDNN_PTR_NULL: the plan does not use the pointer), the element size the
     * ELEM_ALIGNED promise refers to, and the bytes the pointer addresses. */
    unsigned char ph[FD_FUSED_PTR_COUNT];
    size_t esize[FD_FUSED_PTR_COUNT];
    size_t span[FD_FUSED_PTR_COUNT];
    int transform;          /* ops 0 and 1: a scale, bias or activation precedes the conv */
    fd_conv_problem_t conv; /* ops 0, 1, 4; for 0 and 1 with `transform`, x strides address
                               the packed NCHW copy t in the workspace */
    fd_fused_tensor_t x, y, z, dy, dx, dz; /* the data tensors of the op (others zeroed) */
    fd_fused_vec_t eq;                     /* BN_EQSCALEBIAS_DESC: eqScale and eqBias */
    fd_fused_vec_t zeq;                    /* BN_Z_EQSCALEBIAS_DESC (op 5) */
    fd_fused_vec_t stats;                  /* YSTATS_DESC: ySum and ySqSum */
    fd_fused_vec_t bnp;  /* BN_SCALEBIAS_MEANVAR_DESC: scale, bias, saved and running */
    fd_act_params_t act; /* IDENTITY when ACTIVATION_DESC was not set */
    int64_t bm_words;    /* ops 5, 6: int32 words per bitmask row (Cw) */
    int64_t bm_rows;     /* ops 5, 6: rows N H W rounded up to 32 */
} fd_fused_problem_t;

static inline int fd_fused_uses(const fd_fused_problem_t *p, int ptr_label)
{
    return p->ph[ptr_label] != CUDNN_PTR_NULL;
}

/* Pointers and scalars of one cudnnFusedOpsExecute, checked against the plan. */
typedef struct fd_fused_args {
    cudnnHandle_t handle;          /* its stream, on cuda */
    void *ptr[FD_FUSED_PTR_COUNT]; /* indexed by cudnnFusedOpsVariantParamLabel_t */
    size_t workspace_size;
    int64_t acc_count;
    double exp_avg_factor, epsilon;
} fd_fused_args_t;


/* Bitmask geometry shared by the builder, the reference and the tests' documentation. */
static inline int64_t fd_fused_bitmask_words_per_row(int64_t c)
{
    return (c + 63) / 64 * 2;
}
static inline int64_t fd_fused_bitmask_rows(int64_t nhw)
{
    return (nhw + 31) / 32 * 32;
}

#endif /* FD_CORE_FUSEDOPS_H_ */
