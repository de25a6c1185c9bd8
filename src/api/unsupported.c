/* SPDX-License-Identifier: MIT */
/*
 * unsupported.c - every function of the public headers that nothing implements yet.
 *
 * Each one returns CUDNN_STATUS_NOT_SUPPORTED, writes nothing, and leaves "<function> is not
 * supported by freednn yet: <reason>" for cudnnGetLastErrorString. The reason names the work
 * that will implement it; tools/gen_support_matrix.py copies it into docs/support-matrix.md.
 * Parameter lists are copied from our headers. Implementing a function means deleting its line
 * here and defining it in the file of its family (src/api/<family>.c).
 */
#include "../core/fd.h"

/* ---- Tensor layout transforms (padding, folding, format conversion) - cudnn_ops.h */

FD_UNSUPPORTED(cudnnCreateTensorTransformDescriptor,
               (cudnnTensorTransformDescriptor_t *transformDesc),
               "tensor layout transforms land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetTensorTransformDescriptor,
               (cudnnTensorTransformDescriptor_t transformDesc, const uint32_t nbDims,
                const cudnnTensorFormat_t destFormat, const int32_t padBeforeA[],
                const int32_t padAfterA[], const uint32_t foldA[],
                const cudnnFoldingDirection_t direction),
               "tensor layout transforms land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetTensorTransformDescriptor,
               (cudnnTensorTransformDescriptor_t transformDesc, uint32_t nbDimsRequested,
                cudnnTensorFormat_t *destFormat, int32_t padBeforeA[], int32_t padAfterA[],
                uint32_t foldA[], cudnnFoldingDirection_t *direction),
               "tensor layout transforms land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnDestroyTensorTransformDescriptor,
               (cudnnTensorTransformDescriptor_t transformDesc),
               "tensor layout transforms land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnInitTransformDest,
               (const cudnnTensorTransformDescriptor_t transformDesc,
                const cudnnTensorDescriptor_t srcDesc, cudnnTensorDescriptor_t destDesc,
                size_t *destSizeInBytes),
               "tensor layout transforms land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnTransformTensor,
               (cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t xDesc,
                const void *x, const void *beta, const cudnnTensorDescriptor_t yDesc, void *y),
               "tensor layout transforms land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnTransformTensorEx,
               (cudnnHandle_t handle, const cudnnTensorTransformDescriptor_t transDesc,
                const void *alpha, const cudnnTensorDescriptor_t srcDesc, const void *srcData,
                const void *beta, const cudnnTensorDescriptor_t destDesc, void *destData),
               "tensor layout transforms land with the op-families work (issue 3)")

/* ---- Elementwise tensor operations - cudnn_ops.h */

FD_UNSUPPORTED(cudnnAddTensor,
               (cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t aDesc,
                const void *A, const void *beta, const cudnnTensorDescriptor_t cDesc, void *C),
               "elementwise tensor operations land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnCreateOpTensorDescriptor, (cudnnOpTensorDescriptor_t *opTensorDesc),
               "elementwise tensor operations land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetOpTensorDescriptor,
               (cudnnOpTensorDescriptor_t opTensorDesc, cudnnOpTensorOp_t opTensorOp,
                cudnnDataType_t opTensorCompType, cudnnNanPropagation_t opTensorNanOpt),
               "elementwise tensor operations land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetOpTensorDescriptor,
               (const cudnnOpTensorDescriptor_t opTensorDesc, cudnnOpTensorOp_t *opTensorOp,
                cudnnDataType_t *opTensorCompType, cudnnNanPropagation_t *opTensorNanOpt),
               "elementwise tensor operations land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnDestroyOpTensorDescriptor, (cudnnOpTensorDescriptor_t opTensorDesc),
               "elementwise tensor operations land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnOpTensor,
               (cudnnHandle_t handle, const cudnnOpTensorDescriptor_t opTensorDesc,
                const void *alpha1, const cudnnTensorDescriptor_t aDesc, const void *A,
                const void *alpha2, const cudnnTensorDescriptor_t bDesc, const void *B,
                const void *beta, const cudnnTensorDescriptor_t cDesc, void *C),
               "elementwise tensor operations land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetTensor,
               (cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc, void *y,
                const void *valuePtr),
               "elementwise tensor operations land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnScaleTensor,
               (cudnnHandle_t handle, const cudnnTensorDescriptor_t yDesc, void *y,
                const void *alpha),
               "elementwise tensor operations land with the op-families work (issue 3)")

/* ---- Reductions - cudnn_ops.h */

FD_UNSUPPORTED(cudnnCreateReduceTensorDescriptor,
               (cudnnReduceTensorDescriptor_t *reduceTensorDesc),
               "tensor reductions land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetReduceTensorDescriptor,
               (cudnnReduceTensorDescriptor_t reduceTensorDesc,
                cudnnReduceTensorOp_t reduceTensorOp, cudnnDataType_t reduceTensorCompType,
                cudnnNanPropagation_t reduceTensorNanOpt,
                cudnnReduceTensorIndices_t reduceTensorIndices,
                cudnnIndicesType_t reduceTensorIndicesType),
               "tensor reductions land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetReduceTensorDescriptor,
               (const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                cudnnReduceTensorOp_t *reduceTensorOp, cudnnDataType_t *reduceTensorCompType,
                cudnnNanPropagation_t *reduceTensorNanOpt,
                cudnnReduceTensorIndices_t *reduceTensorIndices,
                cudnnIndicesType_t *reduceTensorIndicesType),
               "tensor reductions land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnDestroyReduceTensorDescriptor, (cudnnReduceTensorDescriptor_t reduceTensorDesc),
               "tensor reductions land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetReductionIndicesSize,
               (cudnnHandle_t handle, const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                const cudnnTensorDescriptor_t aDesc, const cudnnTensorDescriptor_t cDesc,
                size_t *sizeInBytes),
               "tensor reductions land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetReductionWorkspaceSize,
               (cudnnHandle_t handle, const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                const cudnnTensorDescriptor_t aDesc, const cudnnTensorDescriptor_t cDesc,
                size_t *sizeInBytes),
               "tensor reductions land with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnReduceTensor,
               (cudnnHandle_t handle, const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                void *indices, size_t indicesSizeInBytes, void *workspace,
                size_t workspaceSizeInBytes, const void *alpha, const cudnnTensorDescriptor_t aDesc,
                const void *A, const void *beta, const cudnnTensorDescriptor_t cDesc, void *C),
               "tensor reductions land with the op-families work (issue 3)")

/* ---- Filter (convolution weight) descriptors - cudnn_ops.h */

FD_UNSUPPORTED(
    cudnnTransformFilter,
    (cudnnHandle_t handle, const cudnnTensorTransformDescriptor_t transDesc, const void *alpha,
     const cudnnFilterDescriptor_t srcDesc, const void *srcData, const void *beta,
     const cudnnFilterDescriptor_t destDesc, void *destData),
    "filter layout transforms land with the tensor transforms of the op-families work (issue 3)")

/* ---- Batch normalization - cudnn_ops.h */

FD_UNSUPPORTED(cudnnDeriveBNTensorDescriptor,
               (cudnnTensorDescriptor_t derivedBnDesc, const cudnnTensorDescriptor_t xDesc,
                cudnnBatchNormMode_t mode),
               "batch normalization lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize,
               (cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
                const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t zDesc,
                const cudnnTensorDescriptor_t yDesc,
                const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
                const cudnnActivationDescriptor_t activationDesc, size_t *sizeInBytes),
               "batch normalization lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetBatchNormalizationBackwardExWorkspaceSize,
               (cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
                const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t yDesc,
                const cudnnTensorDescriptor_t dyDesc, const cudnnTensorDescriptor_t dzDesc,
                const cudnnTensorDescriptor_t dxDesc,
                const cudnnTensorDescriptor_t dBnScaleBiasDesc,
                const cudnnActivationDescriptor_t activationDesc, size_t *sizeInBytes),
               "batch normalization lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetBatchNormalizationTrainingExReserveSpaceSize,
               (cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
                const cudnnActivationDescriptor_t activationDesc,
                const cudnnTensorDescriptor_t xDesc, size_t *sizeInBytes),
               "batch normalization lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnBatchNormalizationForwardInference,
               (cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alpha,
                const void *beta, const cudnnTensorDescriptor_t xDesc, const void *x,
                const cudnnTensorDescriptor_t yDesc, void *y,
                const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale,
                const void *bnBias, const void *estimatedMean, const void *estimatedVariance,
                double epsilon),
               "batch normalization lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnBatchNormalizationForwardTraining,
               (cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alpha,
                const void *beta, const cudnnTensorDescriptor_t xDesc, const void *x,
                const cudnnTensorDescriptor_t yDesc, void *y,
                const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale,
                const void *bnBias, double exponentialAverageFactor, void *resultRunningMean,
                void *resultRunningVariance, double epsilon, void *resultSaveMean,
                void *resultSaveInvVariance),
               "batch normalization lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnBatchNormalizationForwardTrainingEx,
               (cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
                const void *alpha, const void *beta, const cudnnTensorDescriptor_t xDesc,
                const void *xData, const cudnnTensorDescriptor_t zDesc, const void *zData,
                const cudnnTensorDescriptor_t yDesc, void *yData,
                const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale,
                const void *bnBias, double exponentialAverageFactor, void *resultRunningMean,
                void *resultRunningVariance, double epsilon, void *resultSaveMean,
                void *resultSaveInvVariance, cudnnActivationDescriptor_t activationDesc,
                void *workspace, size_t workSpaceSizeInBytes, void *reserveSpace,
                size_t reserveSpaceSizeInBytes),
               "batch normalization lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnBatchNormalizationBackward,
               (cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void *alphaDataDiff,
                const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff,
                const cudnnTensorDescriptor_t xDesc, const void *x,
                const cudnnTensorDescriptor_t dyDesc, const void *dy,
                const cudnnTensorDescriptor_t dxDesc, void *dx,
                const cudnnTensorDescriptor_t dBnScaleBiasDesc, const void *bnScale,
                void *dBnScaleResult, void *dBnBiasResult, double epsilon, const void *savedMean,
                const void *savedInvVariance),
               "batch normalization lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnBatchNormalizationBackwardEx,
               (cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t bnOps,
                const void *alphaDataDiff, const void *betaDataDiff, const void *alphaParamDiff,
                const void *betaParamDiff, const cudnnTensorDescriptor_t xDesc, const void *xData,
                const cudnnTensorDescriptor_t yDesc, const void *yData,
                const cudnnTensorDescriptor_t dyDesc, const void *dyData,
                const cudnnTensorDescriptor_t dzDesc, void *dzData,
                const cudnnTensorDescriptor_t dxDesc, void *dxData,
                const cudnnTensorDescriptor_t dBnScaleBiasDesc, const void *bnScaleData,
                const void *bnBiasData, void *dBnScaleData, void *dBnBiasData, double epsilon,
                const void *savedMean, const void *savedInvVariance,
                cudnnActivationDescriptor_t activationDesc, void *workSpace,
                size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes),
               "batch normalization lands with the op-families work (issue 3)")

/* ---- Generic normalization (cuDNN 8 API) - cudnn_ops.h */

FD_UNSUPPORTED(cudnnDeriveNormTensorDescriptor,
               (cudnnTensorDescriptor_t derivedNormScaleBiasDesc,
                cudnnTensorDescriptor_t derivedNormMeanVarDesc, const cudnnTensorDescriptor_t xDesc,
                cudnnNormMode_t mode, int groupCnt),
               "generic normalization lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetNormalizationForwardTrainingWorkspaceSize,
               (cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps,
                cudnnNormAlgo_t algo, const cudnnTensorDescriptor_t xDesc,
                const cudnnTensorDescriptor_t zDesc, const cudnnTensorDescriptor_t yDesc,
                const cudnnTensorDescriptor_t normScaleBiasDesc,
                const cudnnActivationDescriptor_t activationDesc,
                const cudnnTensorDescriptor_t normMeanVarDesc, size_t *sizeInBytes, int groupCnt),
               "generic normalization lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetNormalizationBackwardWorkspaceSize,
               (cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps,
                cudnnNormAlgo_t algo, const cudnnTensorDescriptor_t xDesc,
                const cudnnTensorDescriptor_t yDesc, const cudnnTensorDescriptor_t dyDesc,
                const cudnnTensorDescriptor_t dzDesc, const cudnnTensorDescriptor_t dxDesc,
                const cudnnTensorDescriptor_t dNormScaleBiasDesc,
                const cudnnActivationDescriptor_t activationDesc,
                const cudnnTensorDescriptor_t normMeanVarDesc, size_t *sizeInBytes, int groupCnt),
               "generic normalization lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetNormalizationTrainingReserveSpaceSize,
               (cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps,
                cudnnNormAlgo_t algo, const cudnnActivationDescriptor_t activationDesc,
                const cudnnTensorDescriptor_t xDesc, size_t *sizeInBytes, int groupCnt),
               "generic normalization lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnNormalizationForwardInference,
               (cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps,
                cudnnNormAlgo_t algo, const void *alpha, const void *beta,
                const cudnnTensorDescriptor_t xDesc, const void *x,
                const cudnnTensorDescriptor_t normScaleBiasDesc, const void *normScale,
                const void *normBias, const cudnnTensorDescriptor_t normMeanVarDesc,
                const void *estimatedMean, const void *estimatedVariance,
                const cudnnTensorDescriptor_t zDesc, const void *z,
                cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t yDesc,
                void *y, double epsilon, int groupCnt),
               "generic normalization lands with the op-families work (issue 3)")
FD_UNSUPPORTED(
    cudnnNormalizationForwardTraining,
    (cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
     const void *alpha, const void *beta, const cudnnTensorDescriptor_t xDesc, const void *xData,
     const cudnnTensorDescriptor_t normScaleBiasDesc, const void *normScale, const void *normBias,
     double exponentialAverageFactor, const cudnnTensorDescriptor_t normMeanVarDesc,
     void *resultRunningMean, void *resultRunningVariance, double epsilon, void *resultSaveMean,
     void *resultSaveInvVariance, cudnnActivationDescriptor_t activationDesc,
     const cudnnTensorDescriptor_t zDesc, const void *zData, const cudnnTensorDescriptor_t yDesc,
     void *yData, void *workspace, size_t workSpaceSizeInBytes, void *reserveSpace,
     size_t reserveSpaceSizeInBytes, int groupCnt),
    "generic normalization lands with the op-families work (issue 3)")
FD_UNSUPPORTED(
    cudnnNormalizationBackward,
    (cudnnHandle_t handle, cudnnNormMode_t mode, cudnnNormOps_t normOps, cudnnNormAlgo_t algo,
     const void *alphaDataDiff, const void *betaDataDiff, const void *alphaParamDiff,
     const void *betaParamDiff, const cudnnTensorDescriptor_t xDesc, const void *xData,
     const cudnnTensorDescriptor_t yDesc, const void *yData, const cudnnTensorDescriptor_t dyDesc,
     const void *dyData, const cudnnTensorDescriptor_t dzDesc, void *dzData,
     const cudnnTensorDescriptor_t dxDesc, void *dxData,
     const cudnnTensorDescriptor_t dNormScaleBiasDesc, const void *normScaleData,
     const void *normBiasData, void *dNormScaleData, void *dNormBiasData, double epsilon,
     const cudnnTensorDescriptor_t normMeanVarDesc, const void *savedMean,
     const void *savedInvVariance, cudnnActivationDescriptor_t activationDesc, void *workSpace,
     size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes, int groupCnt),
    "generic normalization lands with the op-families work (issue 3)")

/* ---- Spatial transformer (affine grid generation + bilinear sampling) - cudnn_ops.h */

FD_UNSUPPORTED(cudnnCreateSpatialTransformerDescriptor,
               (cudnnSpatialTransformerDescriptor_t *stDesc),
               "the spatial transformer lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetSpatialTransformerNdDescriptor,
               (cudnnSpatialTransformerDescriptor_t stDesc, cudnnSamplerType_t samplerType,
                cudnnDataType_t dataType, const int nbDims, const int dimA[]),
               "the spatial transformer lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnDestroySpatialTransformerDescriptor,
               (cudnnSpatialTransformerDescriptor_t stDesc),
               "the spatial transformer lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSpatialTfGridGeneratorForward,
               (cudnnHandle_t handle, const cudnnSpatialTransformerDescriptor_t stDesc,
                const void *theta, void *grid),
               "the spatial transformer lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSpatialTfGridGeneratorBackward,
               (cudnnHandle_t handle, const cudnnSpatialTransformerDescriptor_t stDesc,
                const void *dgrid, void *dtheta),
               "the spatial transformer lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSpatialTfSamplerForward,
               (cudnnHandle_t handle, cudnnSpatialTransformerDescriptor_t stDesc, const void *alpha,
                const cudnnTensorDescriptor_t xDesc, const void *x, const void *grid,
                const void *beta, cudnnTensorDescriptor_t yDesc, void *y),
               "the spatial transformer lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSpatialTfSamplerBackward,
               (cudnnHandle_t handle, cudnnSpatialTransformerDescriptor_t stDesc, const void *alpha,
                const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                const cudnnTensorDescriptor_t dxDesc, void *dx, const void *alphaDgrid,
                const cudnnTensorDescriptor_t dyDesc, const void *dy, const void *grid,
                const void *betaDgrid, void *dgrid),
               "the spatial transformer lands with the op-families work (issue 3)")

/* ---- Algorithm descriptors and performance records (cuDNN 7.1-8.x API) - cudnn_ops.h */

FD_UNSUPPORTED(cudnnCreateAlgorithmDescriptor, (cudnnAlgorithmDescriptor_t *algoDesc),
               "algorithm descriptors land with the RNN Find API of the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetAlgorithmDescriptor,
               (cudnnAlgorithmDescriptor_t algoDesc, cudnnAlgorithm_t algorithm),
               "algorithm descriptors land with the RNN Find API of the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetAlgorithmDescriptor,
               (const cudnnAlgorithmDescriptor_t algoDesc, cudnnAlgorithm_t *algorithm),
               "algorithm descriptors land with the RNN Find API of the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnCopyAlgorithmDescriptor,
               (const cudnnAlgorithmDescriptor_t src, cudnnAlgorithmDescriptor_t dest),
               "algorithm descriptors land with the RNN Find API of the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnDestroyAlgorithmDescriptor, (cudnnAlgorithmDescriptor_t algoDesc),
               "algorithm descriptors land with the RNN Find API of the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnCreateAlgorithmPerformance,
               (cudnnAlgorithmPerformance_t *algoPerf, int numberToCreate),
               "algorithm descriptors land with the RNN Find API of the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetAlgorithmPerformance,
               (cudnnAlgorithmPerformance_t algoPerf, cudnnAlgorithmDescriptor_t algoDesc,
                cudnnStatus_t status, float time, size_t memory),
               "algorithm descriptors land with the RNN Find API of the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetAlgorithmPerformance,
               (const cudnnAlgorithmPerformance_t algoPerf, cudnnAlgorithmDescriptor_t *algoDesc,
                cudnnStatus_t *status, float *time, size_t *memory),
               "algorithm descriptors land with the RNN Find API of the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnDestroyAlgorithmPerformance,
               (cudnnAlgorithmPerformance_t *algoPerf, int numberToDestroy),
               "algorithm descriptors land with the RNN Find API of the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetAlgorithmSpaceSize,
               (cudnnHandle_t handle, cudnnAlgorithmDescriptor_t algoDesc,
                size_t *algoSpaceSizeInBytes),
               "algorithm descriptors land with the RNN Find API of the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSaveAlgorithm,
               (cudnnHandle_t handle, cudnnAlgorithmDescriptor_t algoDesc, void *algoSpace,
                size_t algoSpaceSizeInBytes),
               "algorithm descriptors land with the RNN Find API of the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnRestoreAlgorithm,
               (cudnnHandle_t handle, void *algoSpace, size_t algoSpaceSizeInBytes,
                cudnnAlgorithmDescriptor_t algoDesc),
               "algorithm descriptors land with the RNN Find API of the op-families work (issue 3)")

/* ---- Forward convolution: fused, im2col and int8 reordering - cudnn_cnn.h */

FD_UNSUPPORTED(cudnnReorderFilterAndBias,
               (cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc,
                cudnnReorderType_t reorderType, const void *filterData, void *reorderedFilterData,
                int reorderBias, const void *biasData, void *reorderedBiasData),
               "int8 filter reordering lands with int8 convolution")

/* ---- Backward convolution: folded backward data - cudnn_cnn.h */

FD_UNSUPPORTED(cudnnGetFoldedConvBackwardDataDescriptors,
               (const cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc,
                const cudnnTensorDescriptor_t diffDesc, const cudnnConvolutionDescriptor_t convDesc,
                const cudnnTensorDescriptor_t gradDesc, const cudnnTensorFormat_t transformFormat,
                cudnnFilterDescriptor_t foldedFilterDesc, cudnnTensorDescriptor_t paddedDiffDesc,
                cudnnConvolutionDescriptor_t foldedConvDesc, cudnnTensorDescriptor_t foldedGradDesc,
                cudnnTensorTransformDescriptor_t filterFoldTransDesc,
                cudnnTensorTransformDescriptor_t diffPadTransDesc,
                cudnnTensorTransformDescriptor_t gradFoldTransDesc,
                cudnnTensorTransformDescriptor_t gradUnfoldTransDesc),
               "folded backward-data descriptors land with the tensor transforms of the "
               "op-families work (issue 3)")

/* ---- Fused operations (cudnnFusedOps*) - cudnn_cnn.h */

FD_UNSUPPORTED(cudnnCreateFusedOpsConstParamPack,
               (cudnnFusedOpsConstParamPack_t *constPack, cudnnFusedOps_t ops),
               "fused-ops plans are not planned yet")
FD_UNSUPPORTED(cudnnDestroyFusedOpsConstParamPack, (cudnnFusedOpsConstParamPack_t constPack),
               "fused-ops plans are not planned yet")
FD_UNSUPPORTED(cudnnSetFusedOpsConstParamPackAttribute,
               (cudnnFusedOpsConstParamPack_t constPack, cudnnFusedOpsConstParamLabel_t paramLabel,
                const void *param),
               "fused-ops plans are not planned yet")
FD_UNSUPPORTED(cudnnGetFusedOpsConstParamPackAttribute,
               (const cudnnFusedOpsConstParamPack_t constPack,
                cudnnFusedOpsConstParamLabel_t paramLabel, void *param, int *isNULL),
               "fused-ops plans are not planned yet")
FD_UNSUPPORTED(cudnnCreateFusedOpsVariantParamPack,
               (cudnnFusedOpsVariantParamPack_t *varPack, cudnnFusedOps_t ops),
               "fused-ops plans are not planned yet")
FD_UNSUPPORTED(cudnnDestroyFusedOpsVariantParamPack, (cudnnFusedOpsVariantParamPack_t varPack),
               "fused-ops plans are not planned yet")
FD_UNSUPPORTED(cudnnSetFusedOpsVariantParamPackAttribute,
               (cudnnFusedOpsVariantParamPack_t varPack,
                cudnnFusedOpsVariantParamLabel_t paramLabel, void *ptr),
               "fused-ops plans are not planned yet")
FD_UNSUPPORTED(cudnnGetFusedOpsVariantParamPackAttribute,
               (const cudnnFusedOpsVariantParamPack_t varPack,
                cudnnFusedOpsVariantParamLabel_t paramLabel, void *ptr),
               "fused-ops plans are not planned yet")
FD_UNSUPPORTED(cudnnCreateFusedOpsPlan, (cudnnFusedOpsPlan_t *plan, cudnnFusedOps_t ops),
               "fused-ops plans are not planned yet")
FD_UNSUPPORTED(cudnnDestroyFusedOpsPlan, (cudnnFusedOpsPlan_t plan),
               "fused-ops plans are not planned yet")
FD_UNSUPPORTED(cudnnMakeFusedOpsPlan,
               (cudnnHandle_t handle, cudnnFusedOpsPlan_t plan,
                const cudnnFusedOpsConstParamPack_t constPack, size_t *workspaceSizeInBytes),
               "fused-ops plans are not planned yet")
FD_UNSUPPORTED(cudnnFusedOpsExecute,
               (cudnnHandle_t handle, const cudnnFusedOpsPlan_t plan,
                cudnnFusedOpsVariantParamPack_t varPack),
               "fused-ops plans are not planned yet")

/* ---- RNN descriptor - cudnn_adv.h */

FD_UNSUPPORTED(cudnnCreateRNNDescriptor, (cudnnRNNDescriptor_t *rnnDesc),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnDestroyRNNDescriptor, (cudnnRNNDescriptor_t rnnDesc),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetRNNDescriptor_v8,
               (cudnnRNNDescriptor_t rnnDesc, cudnnRNNAlgo_t algo, cudnnRNNMode_t cellMode,
                cudnnRNNBiasMode_t biasMode, cudnnDirectionMode_t dirMode,
                cudnnRNNInputMode_t inputMode, cudnnDataType_t dataType, cudnnDataType_t mathPrec,
                cudnnMathType_t mathType, int32_t inputSize, int32_t hiddenSize, int32_t projSize,
                int32_t numLayers, cudnnDropoutDescriptor_t dropoutDesc, uint32_t auxFlags),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetRNNDescriptor_v8,
               (cudnnRNNDescriptor_t rnnDesc, cudnnRNNAlgo_t *algo, cudnnRNNMode_t *cellMode,
                cudnnRNNBiasMode_t *biasMode, cudnnDirectionMode_t *dirMode,
                cudnnRNNInputMode_t *inputMode, cudnnDataType_t *dataType,
                cudnnDataType_t *mathPrec, cudnnMathType_t *mathType, int32_t *inputSize,
                int32_t *hiddenSize, int32_t *projSize, int32_t *numLayers,
                cudnnDropoutDescriptor_t *dropoutDesc, uint32_t *auxFlags),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetRNNDescriptor,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, const int hiddenSize,
                const int numLayers, cudnnDropoutDescriptor_t dropoutDesc,
                cudnnRNNInputMode_t inputMode, cudnnDirectionMode_t direction, cudnnRNNMode_t mode,
                cudnnRNNAlgo_t algo, cudnnDataType_t mathPrec),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetRNNDescriptor,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int *hiddenSize, int *numLayers,
                cudnnDropoutDescriptor_t *dropoutDesc, cudnnRNNInputMode_t *inputMode,
                cudnnDirectionMode_t *direction, cudnnRNNMode_t *mode, cudnnRNNAlgo_t *algo,
                cudnnDataType_t *mathPrec),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetRNNDescriptor_v6,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, const int hiddenSize,
                const int numLayers, cudnnDropoutDescriptor_t dropoutDesc,
                cudnnRNNInputMode_t inputMode, cudnnDirectionMode_t direction, cudnnRNNMode_t mode,
                cudnnRNNAlgo_t algo, cudnnDataType_t mathPrec),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetRNNDescriptor_v5,
               (cudnnRNNDescriptor_t rnnDesc, int hiddenSize, int numLayers,
                cudnnDropoutDescriptor_t dropoutDesc, cudnnRNNInputMode_t inputMode,
                cudnnDirectionMode_t direction, cudnnRNNMode_t mode, cudnnDataType_t mathPrec),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetRNNMatrixMathType, (cudnnRNNDescriptor_t rnnDesc, cudnnMathType_t mType),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetRNNMatrixMathType, (cudnnRNNDescriptor_t rnnDesc, cudnnMathType_t *mType),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetRNNBiasMode, (cudnnRNNDescriptor_t rnnDesc, cudnnRNNBiasMode_t biasMode),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetRNNBiasMode, (cudnnRNNDescriptor_t rnnDesc, cudnnRNNBiasMode_t *biasMode),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnRNNSetClip,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t clipMode,
                cudnnNanPropagation_t clipNanOpt, double lclip, double rclip),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnRNNGetClip,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t *clipMode,
                cudnnNanPropagation_t *clipNanOpt, double *lclip, double *rclip),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnRNNSetClip_v8,
               (cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t clipMode,
                cudnnNanPropagation_t clipNanOpt, double lclip, double rclip),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnRNNSetClip_v9,
               (cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t clipMode, double lclip,
                double rclip),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnRNNGetClip_v8,
               (cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t *clipMode,
                cudnnNanPropagation_t *clipNanOpt, double *lclip, double *rclip),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnRNNGetClip_v9,
               (cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t *clipMode, double *lclip,
                double *rclip),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetRNNProjectionLayers,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, const int recProjSize,
                const int outProjSize),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetRNNProjectionLayers,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, int *recProjSize,
                int *outProjSize),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetRNNPaddingMode,
               (cudnnRNNDescriptor_t rnnDesc, cudnnRNNPaddingMode_t paddingMode),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetRNNPaddingMode,
               (cudnnRNNDescriptor_t rnnDesc, cudnnRNNPaddingMode_t *paddingMode),
               "RNN lands with the op-families work (issue 3)")

/* ---- RNN persistent kernels - cudnn_adv.h */

FD_UNSUPPORTED(cudnnCreatePersistentRNNPlan,
               (cudnnRNNDescriptor_t rnnDesc, const int minibatch, const cudnnDataType_t dataType,
                cudnnPersistentRNNPlan_t *plan),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnDestroyPersistentRNNPlan, (cudnnPersistentRNNPlan_t plan),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetPersistentRNNPlan,
               (cudnnRNNDescriptor_t rnnDesc, cudnnPersistentRNNPlan_t plan),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnBuildRNNDynamic,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int miniBatch),
               "RNN lands with the op-families work (issue 3)")

/* ---- RNN buffer sizes and weight layout - cudnn_adv.h */

FD_UNSUPPORTED(cudnnGetRNNWorkspaceSize,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                const cudnnTensorDescriptor_t *xDesc, size_t *sizeInBytes),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetRNNTrainingReserveSize,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                const cudnnTensorDescriptor_t *xDesc, size_t *sizeInBytes),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetRNNParamsSize,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                const cudnnTensorDescriptor_t xDesc, size_t *sizeInBytes, cudnnDataType_t dataType),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetRNNTempSpaceSizes,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnForwardMode_t fwdMode,
                cudnnRNNDataDescriptor_t xDesc, size_t *workSpaceSize, size_t *reserveSpaceSize),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetRNNWeightSpaceSize,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, size_t *weightSpaceSize),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetRNNLinLayerMatrixParams,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int pseudoLayer,
                const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
                const void *w, const int linLayerID, cudnnFilterDescriptor_t linLayerMatDesc,
                void **linLayerMat),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetRNNLinLayerBiasParams,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int pseudoLayer,
                const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
                const void *w, const int linLayerID, cudnnFilterDescriptor_t linLayerBiasDesc,
                void **linLayerBias),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetRNNWeightParams,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int32_t pseudoLayer,
                size_t weightSpaceSize, const void *weightSpace, int32_t linLayerID,
                cudnnTensorDescriptor_t mDesc, void **mAddr, cudnnTensorDescriptor_t bDesc,
                void **bAddr),
               "RNN lands with the op-families work (issue 3)")

/* ---- RNN data descriptor - cudnn_adv.h */

FD_UNSUPPORTED(cudnnCreateRNNDataDescriptor, (cudnnRNNDataDescriptor_t *rnnDataDesc),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnDestroyRNNDataDescriptor, (cudnnRNNDataDescriptor_t rnnDataDesc),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetRNNDataDescriptor,
               (cudnnRNNDataDescriptor_t rnnDataDesc, cudnnDataType_t dataType,
                cudnnRNNDataLayout_t layout, int maxSeqLength, int batchSize, int vectorSize,
                const int seqLengthArray[], void *paddingFill),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetRNNDataDescriptor,
               (cudnnRNNDataDescriptor_t rnnDataDesc, cudnnDataType_t *dataType,
                cudnnRNNDataLayout_t *layout, int *maxSeqLength, int *batchSize, int *vectorSize,
                int arrayLengthRequested, int seqLengthArray[], void *paddingFill),
               "RNN lands with the op-families work (issue 3)")

/* ---- RNN forward - cudnn_adv.h */

FD_UNSUPPORTED(cudnnRNNForwardInference,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                const cudnnTensorDescriptor_t *xDesc, const void *x,
                const cudnnTensorDescriptor_t hxDesc, const void *hx,
                const cudnnTensorDescriptor_t cxDesc, const void *cx,
                const cudnnFilterDescriptor_t wDesc, const void *w,
                const cudnnTensorDescriptor_t *yDesc, void *y, const cudnnTensorDescriptor_t hyDesc,
                void *hy, const cudnnTensorDescriptor_t cyDesc, void *cy, void *workspace,
                size_t workSpaceSizeInBytes),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnRNNForwardTraining,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                const cudnnTensorDescriptor_t *xDesc, const void *x,
                const cudnnTensorDescriptor_t hxDesc, const void *hx,
                const cudnnTensorDescriptor_t cxDesc, const void *cx,
                const cudnnFilterDescriptor_t wDesc, const void *w,
                const cudnnTensorDescriptor_t *yDesc, void *y, const cudnnTensorDescriptor_t hyDesc,
                void *hy, const cudnnTensorDescriptor_t cyDesc, void *cy, void *workspace,
                size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(
    cudnnRNNForwardInferenceEx,
    (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const cudnnRNNDataDescriptor_t xDesc,
     const void *x, const cudnnTensorDescriptor_t hxDesc, const void *hx,
     const cudnnTensorDescriptor_t cxDesc, const void *cx, const cudnnFilterDescriptor_t wDesc,
     const void *w, const cudnnRNNDataDescriptor_t yDesc, void *y,
     const cudnnTensorDescriptor_t hyDesc, void *hy, const cudnnTensorDescriptor_t cyDesc, void *cy,
     const cudnnRNNDataDescriptor_t kDesc, const void *keys, const cudnnRNNDataDescriptor_t cDesc,
     void *cAttn, const cudnnRNNDataDescriptor_t iDesc, void *iAttn,
     const cudnnRNNDataDescriptor_t qDesc, void *queries, void *workSpace,
     size_t workSpaceSizeInBytes),
    "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(
    cudnnRNNForwardTrainingEx,
    (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const cudnnRNNDataDescriptor_t xDesc,
     const void *x, const cudnnTensorDescriptor_t hxDesc, const void *hx,
     const cudnnTensorDescriptor_t cxDesc, const void *cx, const cudnnFilterDescriptor_t wDesc,
     const void *w, const cudnnRNNDataDescriptor_t yDesc, void *y,
     const cudnnTensorDescriptor_t hyDesc, void *hy, const cudnnTensorDescriptor_t cyDesc, void *cy,
     const cudnnRNNDataDescriptor_t kDesc, const void *keys, const cudnnRNNDataDescriptor_t cDesc,
     void *cAttn, const cudnnRNNDataDescriptor_t iDesc, void *iAttn,
     const cudnnRNNDataDescriptor_t qDesc, void *queries, void *workSpace,
     size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes),
    "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnRNNForward,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnForwardMode_t fwdMode,
                const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t xDesc, const void *x,
                cudnnRNNDataDescriptor_t yDesc, void *y, cudnnTensorDescriptor_t hDesc,
                const void *hx, void *hy, cudnnTensorDescriptor_t cDesc, const void *cx, void *cy,
                size_t weightSpaceSize, const void *weightSpace, size_t workSpaceSize,
                void *workSpace, size_t reserveSpaceSize, void *reserveSpace),
               "RNN lands with the op-families work (issue 3)")

/* ---- RNN backward - cudnn_adv.h */

FD_UNSUPPORTED(
    cudnnRNNBackwardData,
    (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
     const cudnnTensorDescriptor_t *yDesc, const void *y, const cudnnTensorDescriptor_t *dyDesc,
     const void *dy, const cudnnTensorDescriptor_t dhyDesc, const void *dhy,
     const cudnnTensorDescriptor_t dcyDesc, const void *dcy, const cudnnFilterDescriptor_t wDesc,
     const void *w, const cudnnTensorDescriptor_t hxDesc, const void *hx,
     const cudnnTensorDescriptor_t cxDesc, const void *cx, const cudnnTensorDescriptor_t *dxDesc,
     void *dx, const cudnnTensorDescriptor_t dhxDesc, void *dhx,
     const cudnnTensorDescriptor_t dcxDesc, void *dcx, void *workspace, size_t workSpaceSizeInBytes,
     void *reserveSpace, size_t reserveSpaceSizeInBytes),
    "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnRNNBackwardWeights,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                const cudnnTensorDescriptor_t *xDesc, const void *x,
                const cudnnTensorDescriptor_t hxDesc, const void *hx,
                const cudnnTensorDescriptor_t *yDesc, const void *y, const void *workspace,
                size_t workSpaceSizeInBytes, const cudnnFilterDescriptor_t dwDesc, void *dw,
                const void *reserveSpace, size_t reserveSpaceSizeInBytes),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(
    cudnnRNNBackwardDataEx,
    (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const cudnnRNNDataDescriptor_t yDesc,
     const void *y, const cudnnRNNDataDescriptor_t dyDesc, const void *dy,
     const cudnnRNNDataDescriptor_t dcDesc, const void *dcAttn,
     const cudnnTensorDescriptor_t dhyDesc, const void *dhy, const cudnnTensorDescriptor_t dcyDesc,
     const void *dcy, const cudnnFilterDescriptor_t wDesc, const void *w,
     const cudnnTensorDescriptor_t hxDesc, const void *hx, const cudnnTensorDescriptor_t cxDesc,
     const void *cx, const cudnnRNNDataDescriptor_t dxDesc, void *dx,
     const cudnnTensorDescriptor_t dhxDesc, void *dhx, const cudnnTensorDescriptor_t dcxDesc,
     void *dcx, const cudnnRNNDataDescriptor_t dkDesc, void *dkeys, void *workSpace,
     size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes),
    "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnRNNBackwardWeightsEx,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                const cudnnRNNDataDescriptor_t xDesc, const void *x,
                const cudnnTensorDescriptor_t hxDesc, const void *hx,
                const cudnnRNNDataDescriptor_t yDesc, const void *y, void *workSpace,
                size_t workSpaceSizeInBytes, const cudnnFilterDescriptor_t dwDesc, void *dw,
                void *reserveSpace, size_t reserveSpaceSizeInBytes),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnRNNBackwardData_v8,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, const int32_t devSeqLengths[],
                cudnnRNNDataDescriptor_t yDesc, const void *y, const void *dy,
                cudnnRNNDataDescriptor_t xDesc, void *dx, cudnnTensorDescriptor_t hDesc,
                const void *hx, const void *dhy, void *dhx, cudnnTensorDescriptor_t cDesc,
                const void *cx, const void *dcy, void *dcx, size_t weightSpaceSize,
                const void *weightSpace, size_t workSpaceSize, void *workSpace,
                size_t reserveSpaceSize, void *reserveSpace),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnRNNBackwardWeights_v8,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnWgradMode_t addGrad,
                const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t xDesc, const void *x,
                cudnnTensorDescriptor_t hDesc, const void *hx, cudnnRNNDataDescriptor_t yDesc,
                const void *y, size_t weightSpaceSize, void *dweightSpace, size_t workSpaceSize,
                void *workSpace, size_t reserveSpaceSize, void *reserveSpace),
               "RNN lands with the op-families work (issue 3)")

/* ---- RNN algorithm search (v7 Find API; removed by NVIDIA in 9.0) - cudnn_adv.h */

FD_UNSUPPORTED(cudnnSetRNNAlgorithmDescriptor,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                cudnnAlgorithmDescriptor_t algoDesc),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetRNNForwardInferenceAlgorithmMaxCount,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, int *count),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(
    cudnnFindRNNForwardInferenceAlgorithmEx,
    (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
     const cudnnTensorDescriptor_t *xDesc, const void *x, const cudnnTensorDescriptor_t hxDesc,
     const void *hx, const cudnnTensorDescriptor_t cxDesc, const void *cx,
     const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnTensorDescriptor_t *yDesc,
     void *y, const cudnnTensorDescriptor_t hyDesc, void *hy, const cudnnTensorDescriptor_t cyDesc,
     void *cy, const float findIntensity, const int requestedAlgoCount, int *returnedAlgoCount,
     cudnnAlgorithmPerformance_t *perfResults, void *workspace, size_t workSpaceSizeInBytes),
    "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetRNNForwardTrainingAlgorithmMaxCount,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, int *count),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnFindRNNForwardTrainingAlgorithmEx,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                const cudnnTensorDescriptor_t *xDesc, const void *x,
                const cudnnTensorDescriptor_t hxDesc, const void *hx,
                const cudnnTensorDescriptor_t cxDesc, const void *cx,
                const cudnnFilterDescriptor_t wDesc, const void *w,
                const cudnnTensorDescriptor_t *yDesc, void *y, const cudnnTensorDescriptor_t hyDesc,
                void *hy, const cudnnTensorDescriptor_t cyDesc, void *cy, const float findIntensity,
                const int requestedAlgoCount, int *returnedAlgoCount,
                cudnnAlgorithmPerformance_t *perfResults, void *workspace,
                size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetRNNBackwardDataAlgorithmMaxCount,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, int *count),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(
    cudnnFindRNNBackwardDataAlgorithmEx,
    (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
     const cudnnTensorDescriptor_t *yDesc, const void *y, const cudnnTensorDescriptor_t *dyDesc,
     const void *dy, const cudnnTensorDescriptor_t dhyDesc, const void *dhy,
     const cudnnTensorDescriptor_t dcyDesc, const void *dcy, const cudnnFilterDescriptor_t wDesc,
     const void *w, const cudnnTensorDescriptor_t hxDesc, const void *hx,
     const cudnnTensorDescriptor_t cxDesc, const void *cx, const cudnnTensorDescriptor_t *dxDesc,
     void *dx, const cudnnTensorDescriptor_t dhxDesc, void *dhx,
     const cudnnTensorDescriptor_t dcxDesc, void *dcx, const float findIntensity,
     const int requestedAlgoCount, int *returnedAlgoCount, cudnnAlgorithmPerformance_t *perfResults,
     void *workspace, size_t workSpaceSizeInBytes, void *reserveSpace,
     size_t reserveSpaceSizeInBytes),
    "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetRNNBackwardWeightsAlgorithmMaxCount,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, int *count),
               "RNN lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnFindRNNBackwardWeightsAlgorithmEx,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                const cudnnTensorDescriptor_t *xDesc, const void *x,
                const cudnnTensorDescriptor_t hxDesc, const void *hx,
                const cudnnTensorDescriptor_t *yDesc, const void *y, const float findIntensity,
                const int requestedAlgoCount, int *returnedAlgoCount,
                cudnnAlgorithmPerformance_t *perfResults, const void *workspace,
                size_t workSpaceSizeInBytes, const cudnnFilterDescriptor_t dwDesc, void *dw,
                const void *reserveSpace, size_t reserveSpaceSizeInBytes),
               "RNN lands with the op-families work (issue 3)")

/* ---- Sequence data and multi-head attention - cudnn_adv.h */

FD_UNSUPPORTED(cudnnCreateSeqDataDescriptor, (cudnnSeqDataDescriptor_t *seqDataDesc),
               "multi-head attention lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnDestroySeqDataDescriptor, (cudnnSeqDataDescriptor_t seqDataDesc),
               "multi-head attention lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetSeqDataDescriptor,
               (cudnnSeqDataDescriptor_t seqDataDesc, cudnnDataType_t dataType, int nbDims,
                const int dimA[], const cudnnSeqDataAxis_t axes[], size_t seqLengthArraySize,
                const int seqLengthArray[], void *paddingFill),
               "multi-head attention lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetSeqDataDescriptor,
               (const cudnnSeqDataDescriptor_t seqDataDesc, cudnnDataType_t *dataType, int *nbDims,
                int nbDimsRequested, int dimA[], cudnnSeqDataAxis_t axes[],
                size_t *seqLengthArraySize, size_t seqLengthSizeRequested, int seqLengthArray[],
                void *paddingFill),
               "multi-head attention lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnCreateAttnDescriptor, (cudnnAttnDescriptor_t *attnDesc),
               "multi-head attention lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnDestroyAttnDescriptor, (cudnnAttnDescriptor_t attnDesc),
               "multi-head attention lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetAttnDescriptor,
               (cudnnAttnDescriptor_t attnDesc, unsigned attnMode, int nHeads, double smScaler,
                cudnnDataType_t dataType, cudnnDataType_t computePrec, cudnnMathType_t mathType,
                cudnnDropoutDescriptor_t attnDropoutDesc, cudnnDropoutDescriptor_t postDropoutDesc,
                int qSize, int kSize, int vSize, int qProjSize, int kProjSize, int vProjSize,
                int oProjSize, int qoMaxSeqLength, int kvMaxSeqLength, int maxBatchSize,
                int maxBeamSize),
               "multi-head attention lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetAttnDescriptor,
               (cudnnAttnDescriptor_t attnDesc, unsigned *attnMode, int *nHeads, double *smScaler,
                cudnnDataType_t *dataType, cudnnDataType_t *computePrec, cudnnMathType_t *mathType,
                cudnnDropoutDescriptor_t *attnDropoutDesc,
                cudnnDropoutDescriptor_t *postDropoutDesc, int *qSize, int *kSize, int *vSize,
                int *qProjSize, int *kProjSize, int *vProjSize, int *oProjSize, int *qoMaxSeqLength,
                int *kvMaxSeqLength, int *maxBatchSize, int *maxBeamSize),
               "multi-head attention lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetMultiHeadAttnBuffers,
               (cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
                size_t *weightSizeInBytes, size_t *workSpaceSizeInBytes,
                size_t *reserveSpaceSizeInBytes),
               "multi-head attention lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetMultiHeadAttnWeights,
               (cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
                cudnnMultiHeadAttnWeightKind_t wKind, size_t weightSizeInBytes, const void *weights,
                cudnnTensorDescriptor_t wDesc, void **wAddr),
               "multi-head attention lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnMultiHeadAttnForward,
               (cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc, int currIdx,
                const int loWinIdx[], const int hiWinIdx[], const int devSeqLengthsQO[],
                const int devSeqLengthsKV[], const cudnnSeqDataDescriptor_t qDesc,
                const void *queries, const void *residuals, const cudnnSeqDataDescriptor_t kDesc,
                const void *keys, const cudnnSeqDataDescriptor_t vDesc, const void *values,
                const cudnnSeqDataDescriptor_t oDesc, void *out, size_t weightSizeInBytes,
                const void *weights, size_t workSpaceSizeInBytes, void *workSpace,
                size_t reserveSpaceSizeInBytes, void *reserveSpace),
               "multi-head attention lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnMultiHeadAttnBackwardData,
               (cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc, const int loWinIdx[],
                const int hiWinIdx[], const int devSeqLengthsDQDO[], const int devSeqLengthsDKDV[],
                const cudnnSeqDataDescriptor_t doDesc, const void *dout,
                const cudnnSeqDataDescriptor_t dqDesc, void *dqueries, const void *queries,
                const cudnnSeqDataDescriptor_t dkDesc, void *dkeys, const void *keys,
                const cudnnSeqDataDescriptor_t dvDesc, void *dvalues, const void *values,
                size_t weightSizeInBytes, const void *weights, size_t workSpaceSizeInBytes,
                void *workSpace, size_t reserveSpaceSizeInBytes, void *reserveSpace),
               "multi-head attention lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnMultiHeadAttnBackwardWeights,
               (cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
                cudnnWgradMode_t addGrad, const cudnnSeqDataDescriptor_t qDesc, const void *queries,
                const cudnnSeqDataDescriptor_t kDesc, const void *keys,
                const cudnnSeqDataDescriptor_t vDesc, const void *values,
                const cudnnSeqDataDescriptor_t doDesc, const void *dout, size_t weightSizeInBytes,
                const void *weights, void *dweights, size_t workSpaceSizeInBytes, void *workSpace,
                size_t reserveSpaceSizeInBytes, void *reserveSpace),
               "multi-head attention lands with the op-families work (issue 3)")

/* ---- CTC loss - cudnn_adv.h */

FD_UNSUPPORTED(cudnnCreateCTCLossDescriptor, (cudnnCTCLossDescriptor_t *ctcLossDesc),
               "CTC loss lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetCTCLossDescriptor,
               (cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t compType),
               "CTC loss lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetCTCLossDescriptorEx,
               (cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t compType,
                cudnnLossNormalizationMode_t normMode, cudnnNanPropagation_t gradMode),
               "CTC loss lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetCTCLossDescriptor_v8,
               (cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t compType,
                cudnnLossNormalizationMode_t normMode, cudnnNanPropagation_t gradMode,
                int maxLabelLength),
               "CTC loss lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnSetCTCLossDescriptor_v9,
               (cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t compType,
                cudnnLossNormalizationMode_t normMode, cudnnCTCGradMode_t ctcGradMode,
                int maxLabelLength),
               "CTC loss lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetCTCLossDescriptor,
               (cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t *compType),
               "CTC loss lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetCTCLossDescriptorEx,
               (cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t *compType,
                cudnnLossNormalizationMode_t *normMode, cudnnNanPropagation_t *gradMode),
               "CTC loss lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetCTCLossDescriptor_v8,
               (cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t *compType,
                cudnnLossNormalizationMode_t *normMode, cudnnNanPropagation_t *gradMode,
                int *maxLabelLength),
               "CTC loss lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetCTCLossDescriptor_v9,
               (cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t *compType,
                cudnnLossNormalizationMode_t *normMode, cudnnCTCGradMode_t *ctcGradMode,
                int *maxLabelLength),
               "CTC loss lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnDestroyCTCLossDescriptor, (cudnnCTCLossDescriptor_t ctcLossDesc),
               "CTC loss lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnCTCLoss,
               (cudnnHandle_t handle, const cudnnTensorDescriptor_t probsDesc, const void *probs,
                const int hostLabels[], const int hostLabelLengths[], const int hostInputLengths[],
                void *costs, const cudnnTensorDescriptor_t gradientsDesc, void *gradients,
                cudnnCTCLossAlgo_t algo, cudnnCTCLossDescriptor_t ctcLossDesc, void *workspace,
                size_t workSpaceSizeInBytes),
               "CTC loss lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnCTCLoss_v8,
               (cudnnHandle_t handle, cudnnCTCLossAlgo_t algo, cudnnCTCLossDescriptor_t ctcLossDesc,
                const cudnnTensorDescriptor_t probsDesc, const void *probs, const int labels[],
                const int labelLengths[], const int inputLengths[], void *costs,
                const cudnnTensorDescriptor_t gradientsDesc, void *gradients,
                size_t workSpaceSizeInBytes, void *workspace),
               "CTC loss lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetCTCLossWorkspaceSize,
               (cudnnHandle_t handle, const cudnnTensorDescriptor_t probsDesc,
                const cudnnTensorDescriptor_t gradientsDesc, const int *labels,
                const int *labelLengths, const int *inputLengths, cudnnCTCLossAlgo_t algo,
                cudnnCTCLossDescriptor_t ctcLossDesc, size_t *sizeInBytes),
               "CTC loss lands with the op-families work (issue 3)")
FD_UNSUPPORTED(cudnnGetCTCLossWorkspaceSize_v8,
               (cudnnHandle_t handle, cudnnCTCLossAlgo_t algo, cudnnCTCLossDescriptor_t ctcLossDesc,
                const cudnnTensorDescriptor_t probsDesc,
                const cudnnTensorDescriptor_t gradientsDesc, size_t *sizeInBytes),
               "CTC loss lands with the op-families work (issue 3)")
