/* SPDX-License-Identifier: MIT */
/*
 * normalization.c - the cuDNN 8 normalization API (cudnnDeriveNormTensorDescriptor,
 * cudnnNormalizationForwardInference / ForwardTraining / Backward and their workspace and
 * reserve-space queries), routed to batch normalization (src/api/batchnorm.c): PER_ACTIVATION
 * is CUDNN_BATCHNORM_PER_ACTIVATION, PER_CHANNEL is CUDNN_BATCHNORM_SPATIAL, the NORM_OPS match
 * the BATCHNORM_OPS, and scale/bias and mean/variance have their own descriptors.
 *
 * As cuDNN 9.19: an invalid mode, ops or algo is BAD_PARAM; groupCnt other than 1 is
 * NOT_SUPPORTED (cuDNN computes 1 only); CUDNN_NORM_ALGO_PERSIST with PER_ACTIVATION is
 * NOT_SUPPORTED (the persistent algorithm is per channel); STANDARD and PERSIST compute the
 * same result. Inference also takes the fused add and activation (cuDNN 9.19 answers
 * NOT_SUPPORTED there for most layouts; the mathematics are those of training).
 */
#include "../core/batchnorm.h"

_Static_assert((int)CUDNN_NORM_OPS_NORM == (int)CUDNN_BATCHNORM_OPS_BN &&
                   (int)CUDNN_NORM_OPS_NORM_ACTIVATION == (int)CUDNN_BATCHNORM_OPS_BN_ACTIVATION &&
                   (int)CUDNN_NORM_OPS_NORM_ADD_ACTIVATION ==
                       (int)CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION,
               "cudnnNormOps_t mirrors cudnnBatchNormOps_t");

static cudnnStatus_t check_mode(cudnnNormMode_t mode)
{
    FD_CHECK(mode == CUDNN_NORM_PER_ACTIVATION || mode == CUDNN_NORM_PER_CHANNEL,
             CUDNN_STATUS_BAD_PARAM,
             "mode %d is not a cudnnNormMode_t value (PER_ACTIVATION 0, PER_CHANNEL 1)", (int)mode);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t check_groups(int groupCnt)
{
    FD_CHECK(groupCnt == 1, CUDNN_STATUS_NOT_SUPPORTED,
             "groupCnt is %d; only 1 is computed (as in cuDNN)", groupCnt);
    return CUDNN_STATUS_SUCCESS;
}

/* mode, ops, algo and groupCnt of every compute entry and query. */
static cudnnStatus_t check_common(cudnnNormMode_t mode, cudnnNormOps_t ops, cudnnNormAlgo_t algo,
                                  int groupCnt)
{
    FD_TRY(check_mode(mode));
    FD_CHECK((int)ops >= 0 && (int)ops <= (int)CUDNN_NORM_OPS_NORM_ADD_ACTIVATION,
             CUDNN_STATUS_BAD_PARAM,
             "normOps %d is not a cudnnNormOps_t value (NORM 0, NORM_ACTIVATION 1, "
             "NORM_ADD_ACTIVATION 2)",
             (int)ops);
    FD_CHECK(algo == CUDNN_NORM_ALGO_STANDARD || algo == CUDNN_NORM_ALGO_PERSIST,
             CUDNN_STATUS_BAD_PARAM,
             "algo %d is not a cudnnNormAlgo_t value (STANDARD 0, PERSIST 1)", (int)algo);
    FD_TRY(check_groups(groupCnt));
    FD_CHECK(!(algo == CUDNN_NORM_ALGO_PERSIST && mode == CUDNN_NORM_PER_ACTIVATION),
             CUDNN_STATUS_NOT_SUPPORTED,
             "CUDNN_NORM_ALGO_PERSIST is a per-channel algorithm; PER_ACTIVATION takes STANDARD");
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t CUDNNWINAPI cudnnDeriveNormTensorDescriptor(
    cudnnTensorDescriptor_t derivedNormScaleBiasDesc,
    cudnnTensorDescriptor_t derivedNormMeanVarDesc, const cudnnTensorDescriptor_t xDesc,
    cudnnNormMode_t mode, int groupCnt)
{
    FD_API(NULL);
    FD_TRY(check_mode(mode));
    FD_TRY(check_groups(groupCnt));
    FD_TRY(fd_tensor_check(xDesc, "xDesc"));
    FD_CHECK(derivedNormScaleBiasDesc != NULL && derivedNormMeanVarDesc != NULL,
             CUDNN_STATUS_BAD_PARAM, "a derived descriptor is NULL (scale/bias %p, mean/var %p)",
             (void *)derivedNormScaleBiasDesc, (void *)derivedNormMeanVarDesc);
    FD_CHECK(derivedNormScaleBiasDesc->magic == FD_MAGIC_TENSOR &&
                 derivedNormMeanVarDesc->magic == FD_MAGIC_TENSOR,
             CUDNN_STATUS_BAD_PARAM, "a derived descriptor is not a live tensor descriptor");
    struct cudnnTensorStruct x = *xDesc; /* either output may be xDesc itself */
    FD_TRY(fd_bn_derive(derivedNormScaleBiasDesc, &x, mode == CUDNN_NORM_PER_ACTIVATION));
    return fd_bn_derive(derivedNormMeanVarDesc, &x, mode == CUDNN_NORM_PER_ACTIVATION);
}

cudnnStatus_t CUDNNWINAPI cudnnGetNormalizationForwardTrainingWorkspaceSize(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t zDesc,
    const cudnnTensorDescriptor_t yDesc, const cudnnTensorDescriptor_t normScaleBiasDesc,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t normMeanVarDesc,
    size_t *sizeInBytes, int groupCnt)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK_NOT_NULL(sizeInBytes);
    FD_TRY(check_common(mode, normOps, algo, groupCnt));
    fd_bn_descs_t d = {
        .x = xDesc, .y = yDesc, .z = zDesc, .sb = normScaleBiasDesc, .mv = normMeanVarDesc};
    fd_bn_problem_t p;
    FD_TRY(fd_bn_problem_init(&p, __func__, handle, FD_BN_TRAIN, mode == CUDNN_NORM_PER_ACTIVATION,
                              (cudnnBatchNormOps_t)normOps, activationDesc, &d, 0.0));
    return fd_bn_workspace_query(handle, &p, sizeInBytes);
}

cudnnStatus_t CUDNNWINAPI cudnnGetNormalizationBackwardWorkspaceSize(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t yDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnTensorDescriptor_t dzDesc,
    const cudnnTensorDescriptor_t dxDesc, const cudnnTensorDescriptor_t dNormScaleBiasDesc,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t normMeanVarDesc,
    size_t *sizeInBytes, int groupCnt)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK_NOT_NULL(sizeInBytes);
    FD_TRY(check_common(mode, normOps, algo, groupCnt));
    (void)yDesc;
    fd_bn_descs_t d = {.x = xDesc,
                       .dy = dyDesc,
                       .dx = dxDesc,
                       .dz = dzDesc,
                       .sb = dNormScaleBiasDesc,
                       .mv = normMeanVarDesc};
    fd_bn_problem_t p;
    FD_TRY(fd_bn_problem_init(&p, __func__, handle, FD_BN_BWD, mode == CUDNN_NORM_PER_ACTIVATION,
                              (cudnnBatchNormOps_t)normOps, activationDesc, &d, 0.0));
    return fd_bn_workspace_query(handle, &p, sizeInBytes);
}

cudnnStatus_t CUDNNWINAPI cudnnGetNormalizationTrainingReserveSpaceSize(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t xDesc,
    size_t *sizeInBytes, int groupCnt)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_CHECK_NOT_NULL(sizeInBytes);
    FD_TRY(check_common(mode, normOps, algo, groupCnt));
    return fd_bn_reserve_query(__func__, handle, (cudnnBatchNormOps_t)normOps, activationDesc,
                               xDesc, sizeInBytes);
}

cudnnStatus_t CUDNNWINAPI cudnnNormalizationForwardInference(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const void *alpha, const void *beta, const cudnnTensorDescriptor_t xDesc, const void *x,
    const cudnnTensorDescriptor_t normScaleBiasDesc, const void *normScale, const void *normBias,
    const cudnnTensorDescriptor_t normMeanVarDesc, const void *estimatedMean,
    const void *estimatedVariance, const cudnnTensorDescriptor_t zDesc, const void *z,
    cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t yDesc, void *y,
    double epsilon, int groupCnt)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(check_common(mode, normOps, algo, groupCnt));
    fd_bn_descs_t d = {
        .x = xDesc, .y = yDesc, .z = zDesc, .sb = normScaleBiasDesc, .mv = normMeanVarDesc};
    fd_bn_args_t a = {.x = x,
                      .y = y,
                      .z = z,
                      .scale = normScale,
                      .bias = normBias,
                      .mean = estimatedMean,
                      .var = estimatedVariance};
    return fd_bn_infer_entry(__func__, handle, mode == CUDNN_NORM_PER_ACTIVATION,
                             (cudnnBatchNormOps_t)normOps, alpha, beta, &d, &a, epsilon,
                             activationDesc);
}

cudnnStatus_t CUDNNWINAPI cudnnNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const void *alpha, const void *beta, const cudnnTensorDescriptor_t xDesc, const void *xData,
    const cudnnTensorDescriptor_t normScaleBiasDesc, const void *normScale, const void *normBias,
    double exponentialAverageFactor, const cudnnTensorDescriptor_t normMeanVarDesc,
    void *resultRunningMean, void *resultRunningVariance, double epsilon, void *resultSaveMean,
    void *resultSaveInvVariance, cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t zDesc, const void *zData, const cudnnTensorDescriptor_t yDesc,
    void *yData, void *workspace, size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes, int groupCnt)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(check_common(mode, normOps, algo, groupCnt));
    fd_bn_descs_t d = {
        .x = xDesc, .y = yDesc, .z = zDesc, .sb = normScaleBiasDesc, .mv = normMeanVarDesc};
    fd_bn_args_t a = {.x = xData,
                      .y = yData,
                      .z = zData,
                      .scale = normScale,
                      .bias = normBias,
                      .run_mean = resultRunningMean,
                      .run_var = resultRunningVariance,
                      .factor = exponentialAverageFactor,
                      .save_mean = resultSaveMean,
                      .save_inv = resultSaveInvVariance,
                      .reserve = reserveSpace};
    return fd_bn_train_entry(__func__, handle, mode == CUDNN_NORM_PER_ACTIVATION,
                             (cudnnBatchNormOps_t)normOps, alpha, beta, &d, &a, epsilon,
                             activationDesc, workspace, workSpaceSizeInBytes,
                             reserveSpaceSizeInBytes);
}

cudnnStatus_t CUDNNWINAPI cudnnNormalizationBackward(
    cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
    const void *alphaDataDiff, const void *betaDataDiff, const void *alphaParamDiff,
    const void *betaParamDiff, const cudnnTensorDescriptor_t xDesc, const void *xData,
    const cudnnTensorDescriptor_t yDesc, const void *yData, const cudnnTensorDescriptor_t dyDesc,
    const void *dyData, const cudnnTensorDescriptor_t dzDesc, void *dzData,
    const cudnnTensorDescriptor_t dxDesc, void *dxData,
    const cudnnTensorDescriptor_t dNormScaleBiasDesc, const void *normScaleData,
    const void *normBiasData, void *dNormScaleData, void *dNormBiasData, double epsilon,
    const cudnnTensorDescriptor_t normMeanVarDesc, const void *savedMean,
    const void *savedInvVariance, cudnnActivationDescriptor_t activationDesc, void *workSpace,
    size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes, int groupCnt)
{
    FD_API(handle);
    FD_TRY(fd_handle_check(handle));
    FD_TRY(check_common(mode, normOps, algo, groupCnt));
    (void)yDesc, (void)yData; /* act'(u) comes from x and the statistics or the reserve space */
    fd_bn_descs_t d = {.x = xDesc,
                       .dy = dyDesc,
                       .dx = dxDesc,
                       .dz = dzDesc,
                       .sb = dNormScaleBiasDesc,
                       .mv = normMeanVarDesc};
    fd_bn_args_t a = {.x = xData,
                      .dy = dyData,
                      .dx = dxData,
                      .dz = dzData,
                      .scale = normScaleData,
                      .bias = normBiasData,
                      .dscale = dNormScaleData,
                      .dbias = dNormBiasData,
                      .mean = savedMean,
                      .var = savedInvVariance,
                      .reserve = reserveSpace};
    return fd_bn_backward_entry(__func__, handle, mode == CUDNN_NORM_PER_ACTIVATION,
                                (cudnnBatchNormOps_t)normOps, alphaDataDiff, betaDataDiff,
                                alphaParamDiff, betaParamDiff, &d, &a, epsilon, activationDesc,
                                workSpace, workSpaceSizeInBytes, reserveSpaceSizeInBytes);
}
