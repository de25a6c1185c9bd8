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

/* ---- RNN descriptor - cudnn_adv.h */

FD_UNSUPPORTED(cudnnCreateRNNDescriptor, (cudnnRNNDescriptor_t *rnnDesc),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnDestroyRNNDescriptor, (cudnnRNNDescriptor_t rnnDesc),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnSetRNNDescriptor_v8,
               (cudnnRNNDescriptor_t rnnDesc, cudnnRNNAlgo_t algo, cudnnRNNMode_t cellMode,
                cudnnRNNBiasMode_t biasMode, cudnnDirectionMode_t dirMode,
                cudnnRNNInputMode_t inputMode, cudnnDataType_t dataType, cudnnDataType_t mathPrec,
                cudnnMathType_t mathType, int32_t inputSize, int32_t hiddenSize, int32_t projSize,
                int32_t numLayers, cudnnDropoutDescriptor_t dropoutDesc, uint32_t auxFlags),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnGetRNNDescriptor_v8,
               (cudnnRNNDescriptor_t rnnDesc, cudnnRNNAlgo_t *algo, cudnnRNNMode_t *cellMode,
                cudnnRNNBiasMode_t *biasMode, cudnnDirectionMode_t *dirMode,
                cudnnRNNInputMode_t *inputMode, cudnnDataType_t *dataType,
                cudnnDataType_t *mathPrec, cudnnMathType_t *mathType, int32_t *inputSize,
                int32_t *hiddenSize, int32_t *projSize, int32_t *numLayers,
                cudnnDropoutDescriptor_t *dropoutDesc, uint32_t *auxFlags),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnSetRNNDescriptor,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, const int hiddenSize,
                const int numLayers, cudnnDropoutDescriptor_t dropoutDesc,
                cudnnRNNInputMode_t inputMode, cudnnDirectionMode_t direction, cudnnRNNMode_t mode,
                cudnnRNNAlgo_t algo, cudnnDataType_t mathPrec),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnGetRNNDescriptor,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int *hiddenSize, int *numLayers,
                cudnnDropoutDescriptor_t *dropoutDesc, cudnnRNNInputMode_t *inputMode,
                cudnnDirectionMode_t *direction, cudnnRNNMode_t *mode, cudnnRNNAlgo_t *algo,
                cudnnDataType_t *mathPrec),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnSetRNNDescriptor_v6,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, const int hiddenSize,
                const int numLayers, cudnnDropoutDescriptor_t dropoutDesc,
                cudnnRNNInputMode_t inputMode, cudnnDirectionMode_t direction, cudnnRNNMode_t mode,
                cudnnRNNAlgo_t algo, cudnnDataType_t mathPrec),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnSetRNNDescriptor_v5,
               (cudnnRNNDescriptor_t rnnDesc, int hiddenSize, int numLayers,
                cudnnDropoutDescriptor_t dropoutDesc, cudnnRNNInputMode_t inputMode,
                cudnnDirectionMode_t direction, cudnnRNNMode_t mode, cudnnDataType_t mathPrec),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnSetRNNMatrixMathType, (cudnnRNNDescriptor_t rnnDesc, cudnnMathType_t mType),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnGetRNNMatrixMathType, (cudnnRNNDescriptor_t rnnDesc, cudnnMathType_t *mType),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnSetRNNBiasMode, (cudnnRNNDescriptor_t rnnDesc, cudnnRNNBiasMode_t biasMode),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnGetRNNBiasMode, (cudnnRNNDescriptor_t rnnDesc, cudnnRNNBiasMode_t *biasMode),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnRNNSetClip,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t clipMode,
                cudnnNanPropagation_t clipNanOpt, double lclip, double rclip),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnRNNGetClip,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t *clipMode,
                cudnnNanPropagation_t *clipNanOpt, double *lclip, double *rclip),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnRNNSetClip_v8,
               (cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t clipMode,
                cudnnNanPropagation_t clipNanOpt, double lclip, double rclip),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnRNNSetClip_v9,
               (cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t clipMode, double lclip,
                double rclip),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnRNNGetClip_v8,
               (cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t *clipMode,
                cudnnNanPropagation_t *clipNanOpt, double *lclip, double *rclip),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnRNNGetClip_v9,
               (cudnnRNNDescriptor_t rnnDesc, cudnnRNNClipMode_t *clipMode, double *lclip,
                double *rclip),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnSetRNNProjectionLayers,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, const int recProjSize,
                const int outProjSize),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnGetRNNProjectionLayers,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, int *recProjSize,
                int *outProjSize),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnSetRNNPaddingMode,
               (cudnnRNNDescriptor_t rnnDesc, cudnnRNNPaddingMode_t paddingMode),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnGetRNNPaddingMode,
               (cudnnRNNDescriptor_t rnnDesc, cudnnRNNPaddingMode_t *paddingMode),
               "the RNN family lands with its own issue, after the op families")

/* ---- RNN persistent kernels - cudnn_adv.h */

FD_UNSUPPORTED(cudnnCreatePersistentRNNPlan,
               (cudnnRNNDescriptor_t rnnDesc, const int minibatch, const cudnnDataType_t dataType,
                cudnnPersistentRNNPlan_t *plan),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnDestroyPersistentRNNPlan, (cudnnPersistentRNNPlan_t plan),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnSetPersistentRNNPlan,
               (cudnnRNNDescriptor_t rnnDesc, cudnnPersistentRNNPlan_t plan),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnBuildRNNDynamic,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int miniBatch),
               "the RNN family lands with its own issue, after the op families")

/* ---- RNN buffer sizes and weight layout - cudnn_adv.h */

FD_UNSUPPORTED(cudnnGetRNNWorkspaceSize,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                const cudnnTensorDescriptor_t *xDesc, size_t *sizeInBytes),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnGetRNNTrainingReserveSize,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                const cudnnTensorDescriptor_t *xDesc, size_t *sizeInBytes),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnGetRNNParamsSize,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                const cudnnTensorDescriptor_t xDesc, size_t *sizeInBytes, cudnnDataType_t dataType),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnGetRNNTempSpaceSizes,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnForwardMode_t fwdMode,
                cudnnRNNDataDescriptor_t xDesc, size_t *workSpaceSize, size_t *reserveSpaceSize),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnGetRNNWeightSpaceSize,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, size_t *weightSpaceSize),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnGetRNNLinLayerMatrixParams,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int pseudoLayer,
                const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
                const void *w, const int linLayerID, cudnnFilterDescriptor_t linLayerMatDesc,
                void **linLayerMat),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnGetRNNLinLayerBiasParams,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int pseudoLayer,
                const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
                const void *w, const int linLayerID, cudnnFilterDescriptor_t linLayerBiasDesc,
                void **linLayerBias),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnGetRNNWeightParams,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int32_t pseudoLayer,
                size_t weightSpaceSize, const void *weightSpace, int32_t linLayerID,
                cudnnTensorDescriptor_t mDesc, void **mAddr, cudnnTensorDescriptor_t bDesc,
                void **bAddr),
               "the RNN family lands with its own issue, after the op families")

/* ---- RNN data descriptor - cudnn_adv.h */

FD_UNSUPPORTED(cudnnCreateRNNDataDescriptor, (cudnnRNNDataDescriptor_t *rnnDataDesc),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnDestroyRNNDataDescriptor, (cudnnRNNDataDescriptor_t rnnDataDesc),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnSetRNNDataDescriptor,
               (cudnnRNNDataDescriptor_t rnnDataDesc, cudnnDataType_t dataType,
                cudnnRNNDataLayout_t layout, int maxSeqLength, int batchSize, int vectorSize,
                const int seqLengthArray[], void *paddingFill),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnGetRNNDataDescriptor,
               (cudnnRNNDataDescriptor_t rnnDataDesc, cudnnDataType_t *dataType,
                cudnnRNNDataLayout_t *layout, int *maxSeqLength, int *batchSize, int *vectorSize,
                int arrayLengthRequested, int seqLengthArray[], void *paddingFill),
               "the RNN family lands with its own issue, after the op families")

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
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnRNNForwardTraining,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                const cudnnTensorDescriptor_t *xDesc, const void *x,
                const cudnnTensorDescriptor_t hxDesc, const void *hx,
                const cudnnTensorDescriptor_t cxDesc, const void *cx,
                const cudnnFilterDescriptor_t wDesc, const void *w,
                const cudnnTensorDescriptor_t *yDesc, void *y, const cudnnTensorDescriptor_t hyDesc,
                void *hy, const cudnnTensorDescriptor_t cyDesc, void *cy, void *workspace,
                size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes),
               "the RNN family lands with its own issue, after the op families")
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
    "the RNN family lands with its own issue, after the op families")
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
    "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnRNNForward,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnForwardMode_t fwdMode,
                const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t xDesc, const void *x,
                cudnnRNNDataDescriptor_t yDesc, void *y, cudnnTensorDescriptor_t hDesc,
                const void *hx, void *hy, cudnnTensorDescriptor_t cDesc, const void *cx, void *cy,
                size_t weightSpaceSize, const void *weightSpace, size_t workSpaceSize,
                void *workSpace, size_t reserveSpaceSize, void *reserveSpace),
               "the RNN family lands with its own issue, after the op families")

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
    "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnRNNBackwardWeights,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                const cudnnTensorDescriptor_t *xDesc, const void *x,
                const cudnnTensorDescriptor_t hxDesc, const void *hx,
                const cudnnTensorDescriptor_t *yDesc, const void *y, const void *workspace,
                size_t workSpaceSizeInBytes, const cudnnFilterDescriptor_t dwDesc, void *dw,
                const void *reserveSpace, size_t reserveSpaceSizeInBytes),
               "the RNN family lands with its own issue, after the op families")
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
    "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnRNNBackwardWeightsEx,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc,
                const cudnnRNNDataDescriptor_t xDesc, const void *x,
                const cudnnTensorDescriptor_t hxDesc, const void *hx,
                const cudnnRNNDataDescriptor_t yDesc, const void *y, void *workSpace,
                size_t workSpaceSizeInBytes, const cudnnFilterDescriptor_t dwDesc, void *dw,
                void *reserveSpace, size_t reserveSpaceSizeInBytes),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnRNNBackwardData_v8,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, const int32_t devSeqLengths[],
                cudnnRNNDataDescriptor_t yDesc, const void *y, const void *dy,
                cudnnRNNDataDescriptor_t xDesc, void *dx, cudnnTensorDescriptor_t hDesc,
                const void *hx, const void *dhy, void *dhx, cudnnTensorDescriptor_t cDesc,
                const void *cx, const void *dcy, void *dcx, size_t weightSpaceSize,
                const void *weightSpace, size_t workSpaceSize, void *workSpace,
                size_t reserveSpaceSize, void *reserveSpace),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnRNNBackwardWeights_v8,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnWgradMode_t addGrad,
                const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t xDesc, const void *x,
                cudnnTensorDescriptor_t hDesc, const void *hx, cudnnRNNDataDescriptor_t yDesc,
                const void *y, size_t weightSpaceSize, void *dweightSpace, size_t workSpaceSize,
                void *workSpace, size_t reserveSpaceSize, void *reserveSpace),
               "the RNN family lands with its own issue, after the op families")

/* ---- RNN algorithm search (v7 Find API; removed by NVIDIA in 9.0) - cudnn_adv.h */

FD_UNSUPPORTED(cudnnSetRNNAlgorithmDescriptor,
               (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                cudnnAlgorithmDescriptor_t algoDesc),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnGetRNNForwardInferenceAlgorithmMaxCount,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, int *count),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(
    cudnnFindRNNForwardInferenceAlgorithmEx,
    (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
     const cudnnTensorDescriptor_t *xDesc, const void *x, const cudnnTensorDescriptor_t hxDesc,
     const void *hx, const cudnnTensorDescriptor_t cxDesc, const void *cx,
     const cudnnFilterDescriptor_t wDesc, const void *w, const cudnnTensorDescriptor_t *yDesc,
     void *y, const cudnnTensorDescriptor_t hyDesc, void *hy, const cudnnTensorDescriptor_t cyDesc,
     void *cy, const float findIntensity, const int requestedAlgoCount, int *returnedAlgoCount,
     cudnnAlgorithmPerformance_t *perfResults, void *workspace, size_t workSpaceSizeInBytes),
    "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnGetRNNForwardTrainingAlgorithmMaxCount,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, int *count),
               "the RNN family lands with its own issue, after the op families")
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
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnGetRNNBackwardDataAlgorithmMaxCount,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, int *count),
               "the RNN family lands with its own issue, after the op families")
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
    "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnGetRNNBackwardWeightsAlgorithmMaxCount,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, int *count),
               "the RNN family lands with its own issue, after the op families")
FD_UNSUPPORTED(cudnnFindRNNBackwardWeightsAlgorithmEx,
               (cudnnHandle_t handle, const cudnnRNNDescriptor_t rnnDesc, const int seqLength,
                const cudnnTensorDescriptor_t *xDesc, const void *x,
                const cudnnTensorDescriptor_t hxDesc, const void *hx,
                const cudnnTensorDescriptor_t *yDesc, const void *y, const float findIntensity,
                const int requestedAlgoCount, int *returnedAlgoCount,
                cudnnAlgorithmPerformance_t *perfResults, const void *workspace,
                size_t workSpaceSizeInBytes, const cudnnFilterDescriptor_t dwDesc, void *dw,
                const void *reserveSpace, size_t reserveSpaceSizeInBytes),
               "the RNN family lands with its own issue, after the op families")

/* ---- Sequence data and multi-head attention - cudnn_adv.h */

FD_UNSUPPORTED(cudnnCreateSeqDataDescriptor, (cudnnSeqDataDescriptor_t *seqDataDesc),
               "multi-head attention lands with the RNN family's issue, after the op families")
FD_UNSUPPORTED(cudnnDestroySeqDataDescriptor, (cudnnSeqDataDescriptor_t seqDataDesc),
               "multi-head attention lands with the RNN family's issue, after the op families")
FD_UNSUPPORTED(cudnnSetSeqDataDescriptor,
               (cudnnSeqDataDescriptor_t seqDataDesc, cudnnDataType_t dataType, int nbDims,
                const int dimA[], const cudnnSeqDataAxis_t axes[], size_t seqLengthArraySize,
                const int seqLengthArray[], void *paddingFill),
               "multi-head attention lands with the RNN family's issue, after the op families")
FD_UNSUPPORTED(cudnnGetSeqDataDescriptor,
               (const cudnnSeqDataDescriptor_t seqDataDesc, cudnnDataType_t *dataType, int *nbDims,
                int nbDimsRequested, int dimA[], cudnnSeqDataAxis_t axes[],
                size_t *seqLengthArraySize, size_t seqLengthSizeRequested, int seqLengthArray[],
                void *paddingFill),
               "multi-head attention lands with the RNN family's issue, after the op families")
FD_UNSUPPORTED(cudnnCreateAttnDescriptor, (cudnnAttnDescriptor_t *attnDesc),
               "multi-head attention lands with the RNN family's issue, after the op families")
FD_UNSUPPORTED(cudnnDestroyAttnDescriptor, (cudnnAttnDescriptor_t attnDesc),
               "multi-head attention lands with the RNN family's issue, after the op families")
FD_UNSUPPORTED(cudnnSetAttnDescriptor,
               (cudnnAttnDescriptor_t attnDesc, unsigned attnMode, int nHeads, double smScaler,
                cudnnDataType_t dataType, cudnnDataType_t computePrec, cudnnMathType_t mathType,
                cudnnDropoutDescriptor_t attnDropoutDesc, cudnnDropoutDescriptor_t postDropoutDesc,
                int qSize, int kSize, int vSize, int qProjSize, int kProjSize, int vProjSize,
                int oProjSize, int qoMaxSeqLength, int kvMaxSeqLength, int maxBatchSize,
                int maxBeamSize),
               "multi-head attention lands with the RNN family's issue, after the op families")
FD_UNSUPPORTED(cudnnGetAttnDescriptor,
               (cudnnAttnDescriptor_t attnDesc, unsigned *attnMode, int *nHeads, double *smScaler,
                cudnnDataType_t *dataType, cudnnDataType_t *computePrec, cudnnMathType_t *mathType,
                cudnnDropoutDescriptor_t *attnDropoutDesc,
                cudnnDropoutDescriptor_t *postDropoutDesc, int *qSize, int *kSize, int *vSize,
                int *qProjSize, int *kProjSize, int *vProjSize, int *oProjSize, int *qoMaxSeqLength,
                int *kvMaxSeqLength, int *maxBatchSize, int *maxBeamSize),
               "multi-head attention lands with the RNN family's issue, after the op families")
FD_UNSUPPORTED(cudnnGetMultiHeadAttnBuffers,
               (cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
                size_t *weightSizeInBytes, size_t *workSpaceSizeInBytes,
                size_t *reserveSpaceSizeInBytes),
               "multi-head attention lands with the RNN family's issue, after the op families")
FD_UNSUPPORTED(cudnnGetMultiHeadAttnWeights,
               (cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
                cudnnMultiHeadAttnWeightKind_t wKind, size_t weightSizeInBytes, const void *weights,
                cudnnTensorDescriptor_t wDesc, void **wAddr),
               "multi-head attention lands with the RNN family's issue, after the op families")
FD_UNSUPPORTED(cudnnMultiHeadAttnForward,
               (cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc, int currIdx,
                const int loWinIdx[], const int hiWinIdx[], const int devSeqLengthsQO[],
                const int devSeqLengthsKV[], const cudnnSeqDataDescriptor_t qDesc,
                const void *queries, const void *residuals, const cudnnSeqDataDescriptor_t kDesc,
                const void *keys, const cudnnSeqDataDescriptor_t vDesc, const void *values,
                const cudnnSeqDataDescriptor_t oDesc, void *out, size_t weightSizeInBytes,
                const void *weights, size_t workSpaceSizeInBytes, void *workSpace,
                size_t reserveSpaceSizeInBytes, void *reserveSpace),
               "multi-head attention lands with the RNN family's issue, after the op families")
FD_UNSUPPORTED(cudnnMultiHeadAttnBackwardData,
               (cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc, const int loWinIdx[],
                const int hiWinIdx[], const int devSeqLengthsDQDO[], const int devSeqLengthsDKDV[],
                const cudnnSeqDataDescriptor_t doDesc, const void *dout,
                const cudnnSeqDataDescriptor_t dqDesc, void *dqueries, const void *queries,
                const cudnnSeqDataDescriptor_t dkDesc, void *dkeys, const void *keys,
                const cudnnSeqDataDescriptor_t dvDesc, void *dvalues, const void *values,
                size_t weightSizeInBytes, const void *weights, size_t workSpaceSizeInBytes,
                void *workSpace, size_t reserveSpaceSizeInBytes, void *reserveSpace),
               "multi-head attention lands with the RNN family's issue, after the op families")
FD_UNSUPPORTED(cudnnMultiHeadAttnBackwardWeights,
               (cudnnHandle_t handle, const cudnnAttnDescriptor_t attnDesc,
                cudnnWgradMode_t addGrad, const cudnnSeqDataDescriptor_t qDesc, const void *queries,
                const cudnnSeqDataDescriptor_t kDesc, const void *keys,
                const cudnnSeqDataDescriptor_t vDesc, const void *values,
                const cudnnSeqDataDescriptor_t doDesc, const void *dout, size_t weightSizeInBytes,
                const void *weights, void *dweights, size_t workSpaceSizeInBytes, void *workSpace,
                size_t reserveSpaceSizeInBytes, void *reserveSpace),
               "multi-head attention lands with the RNN family's issue, after the op families")
