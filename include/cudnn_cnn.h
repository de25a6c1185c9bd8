/* SPDX-License-Identifier: MIT */
/*
 * cudnn_cnn.h - freednn: convolution part of the cuDNN classic API.
 *
 * Convolution descriptors; forward, backward-data, backward-filter and backward-bias
 * convolution with their algorithm queries (heuristic "Get", timed "Find", workspace sizes);
 * the fused convolution + bias + activation forward; im2col; INT8x32 filter reordering; the
 * folded-dgrad helper; and the fused-ops (cudnnFusedOps*) plans.
 *
 * Conventions used throughout:
 *   - alpha/beta ("scaling factors") are HOST pointers to a double when the tensors are
 *     CUDNN_DATA_DOUBLE and to a float otherwise; results are y = alpha * op(...) + beta * y,
 *     and y is not read when *beta == 0.
 *   - Tensor data, workspaces and reserve spaces are device pointers (host pointers on
 *     freednn's ref/cpu backends). Sizes are in bytes unless stated otherwise.
 *   - Descriptors, counts and perf-result arrays are host memory.
 * Every name, argument list, enum value and struct layout matches NVIDIA cuDNN (7.6.5 for the
 * functions removed in 8.0, 9.x for the rest); the text is freednn's own.
 */
#ifndef CUDNN_CNN_H_
#define CUDNN_CNN_H_

#include <stddef.h>
#include <stdint.h>

#include "cudnn_version.h"
#include "cudnn_ops.h"

/* Version of this part of the interface; always equal to the overall cuDNN version. */
#define CUDNN_CNN_MAJOR CUDNN_MAJOR
#define CUDNN_CNN_MINOR CUDNN_MINOR
#define CUDNN_CNN_PATCH CUDNN_PATCHLEVEL

#if defined(__cplusplus)
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------- */
/* Types                                                                                     */
/* ---------------------------------------------------------------------------------------- */

/* Opaque convolution descriptor: padding, stride, dilation, mode, compute type, math type,
 * group count and reorder type of a 2-D or N-D convolution. */
typedef struct cudnnConvolutionStruct *cudnnConvolutionDescriptor_t;

/* One entry of the ranked list returned by the Find / Get_v7 queries (forward direction).
 * 48 bytes on LP64; arrays of it are filled in place, so the layout is part of the ABI. */
typedef struct cudnnConvolutionFwdAlgoPerfStruct {
    cudnnConvolutionFwdAlgo_t algo;  /* the algorithm this entry describes */
    cudnnStatus_t status;            /* SUCCESS, or why the algorithm cannot run this problem */
    float time;                      /* measured run time in milliseconds (Find calls only) */
    size_t memory;                   /* workspace the algorithm needs, in bytes */
    cudnnDeterminism_t determinism;  /* whether repeated runs give bit-identical results */
    cudnnMathType_t mathType;        /* math type the algorithm was timed/selected with */
    int reserved[3];
} cudnnConvolutionFwdAlgoPerf_t;

/* Ranked entry for the backward-data queries; same layout as the forward entry. */
typedef struct cudnnConvolutionBwdDataAlgoPerfStruct {
    cudnnConvolutionBwdDataAlgo_t algo;
    cudnnStatus_t status;
    float time;
    size_t memory;
    cudnnDeterminism_t determinism;
    cudnnMathType_t mathType;
    int reserved[3];
} cudnnConvolutionBwdDataAlgoPerf_t;

/* Ranked entry for the backward-filter queries; same layout as the forward entry. */
typedef struct cudnnConvolutionBwdFilterAlgoPerfStruct {
    cudnnConvolutionBwdFilterAlgo_t algo;
    cudnnStatus_t status;
    float time;
    size_t memory;
    cudnnDeterminism_t determinism;
    cudnnMathType_t mathType;
    int reserved[3];
} cudnnConvolutionBwdFilterAlgoPerf_t;

/* Selection policy of the cuDNN 7 single-answer algorithm queries (removed by NVIDIA in 8.0,
 * kept here for v7 programs). NO_WORKSPACE: best algorithm needing no workspace;
 * PREFER_FASTEST: fastest regardless of workspace; SPECIFY_WORKSPACE_LIMIT: fastest whose
 * workspace fits memoryLimitInBytes. */
typedef enum {
    CUDNN_CONVOLUTION_FWD_NO_WORKSPACE = 0,
    CUDNN_CONVOLUTION_FWD_PREFER_FASTEST = 1,
    CUDNN_CONVOLUTION_FWD_SPECIFY_WORKSPACE_LIMIT = 2,
} cudnnConvolutionFwdPreference_t;

typedef enum {
    CUDNN_CONVOLUTION_BWD_FILTER_NO_WORKSPACE = 0,
    CUDNN_CONVOLUTION_BWD_FILTER_PREFER_FASTEST = 1,
    CUDNN_CONVOLUTION_BWD_FILTER_SPECIFY_WORKSPACE_LIMIT = 2,
} cudnnConvolutionBwdFilterPreference_t;

typedef enum {
    CUDNN_CONVOLUTION_BWD_DATA_NO_WORKSPACE = 0,
    CUDNN_CONVOLUTION_BWD_DATA_PREFER_FASTEST = 1,
    CUDNN_CONVOLUTION_BWD_DATA_SPECIFY_WORKSPACE_LIMIT = 2,
} cudnnConvolutionBwdDataPreference_t;

/* ---------------------------------------------------------------------------------------- */
/* Convolution descriptor                                                                    */
/* ---------------------------------------------------------------------------------------- */

/* Allocates a convolution descriptor (defaults: groupCount 1, CUDNN_DEFAULT_MATH,
 * CUDNN_DEFAULT_REORDER); it must be set with a Set*Descriptor call before use. */
cudnnStatus_t CUDNNWINAPI
cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *convDesc);

/* Frees a convolution descriptor. */
cudnnStatus_t CUDNNWINAPI
cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t convDesc);

/* Chooses whether convolutions with this descriptor may use Tensor Cores (and reduced
 * precision conversions) - see cudnnMathType_t. */
cudnnStatus_t CUDNNWINAPI
cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t mathType);

/* Reads back the math type stored in the descriptor. */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t *mathType);

/* Grouped convolution: input and output channels are split into groupCount independent
 * convolutions (groupCount == C gives a depthwise convolution). Must divide C and K. */
cudnnStatus_t CUDNNWINAPI
cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc, int groupCount);

/* Reads back the group count (1 for an ordinary convolution). */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc, int *groupCount);

/* Declares whether the INT8x32 filter/bias passed to the convolution were already reordered
 * with cudnnReorderFilterAndBias (CUDNN_NO_REORDER) or still need it (CUDNN_DEFAULT_REORDER). */
cudnnStatus_t CUDNNWINAPI
cudnnSetConvolutionReorderType(cudnnConvolutionDescriptor_t convDesc,
                               cudnnReorderType_t reorderType);

/* Reads back the reorder type. */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionReorderType(cudnnConvolutionDescriptor_t convDesc,
                               cudnnReorderType_t *reorderType);

/* Sets up a 2-D convolution. pad_h/pad_w: implicit zero padding on each side, in elements;
 * u/v: vertical/horizontal stride; dilation_h/dilation_w: filter dilation (1 = dense);
 * mode: CUDNN_CONVOLUTION (filter flipped) or CUDNN_CROSS_CORRELATION (as in deep learning);
 * computeType: accumulation precision. */
cudnnStatus_t CUDNNWINAPI
cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t convDesc,
                                int pad_h,
                                int pad_w,
                                int u,
                                int v,
                                int dilation_h,
                                int dilation_w,
                                cudnnConvolutionMode_t mode,
                                cudnnDataType_t computeType);

/* Reads back the settings of a 2-D convolution descriptor. */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolution2dDescriptor(const cudnnConvolutionDescriptor_t convDesc,
                                int *pad_h,
                                int *pad_w,
                                int *u,
                                int *v,
                                int *dilation_h,
                                int *dilation_w,
                                cudnnConvolutionMode_t *mode,
                                cudnnDataType_t *computeType);

/* Output shape n, c (= filter K), h, w of a 2-D forward convolution; each spatial extent is
 * 1 + (in + 2*pad - ((filter - 1)*dilation + 1)) / stride. */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolution2dForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                      const cudnnTensorDescriptor_t inputTensorDesc,
                                      const cudnnFilterDescriptor_t filterDesc,
                                      int *n,
                                      int *c,
                                      int *h,
                                      int *w);

/* Sets up an N-D convolution over arrayLength spatial dimensions (tensor rank - 2, at most
 * CUDNN_DIM_MAX - 2); padA, filterStrideA and dilationA each hold arrayLength host ints. */
cudnnStatus_t CUDNNWINAPI
cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t convDesc,
                                int arrayLength,
                                const int padA[],
                                const int filterStrideA[],
                                const int dilationA[],
                                cudnnConvolutionMode_t mode,
                                cudnnDataType_t computeType);

/* Reads back an N-D convolution: *arrayLength gets the spatial rank; at most
 * arrayLengthRequested entries are written to each of padA, strideA, dilationA. */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionNdDescriptor(const cudnnConvolutionDescriptor_t convDesc,
                                int arrayLengthRequested,
                                int *arrayLength,
                                int padA[],
                                int strideA[],
                                int dilationA[],
                                cudnnConvolutionMode_t *mode,
                                cudnnDataType_t *computeType);

/* Output dimensions of an N-D forward convolution; nbDims is the full tensor rank and
 * tensorOuputDimA receives nbDims ints (N, K, then the spatial extents). */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionNdForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                      const cudnnTensorDescriptor_t inputTensorDesc,
                                      const cudnnFilterDescriptor_t filterDesc,
                                      int nbDims,
                                      int tensorOuputDimA[]);

/* ---------------------------------------------------------------------------------------- */
/* Forward convolution                                                                       */
/* ---------------------------------------------------------------------------------------- */

/* Number of forward algorithms: the largest useful requestedAlgoCount for Find / Get_v7. */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionForwardAlgorithmMaxCount(cudnnHandle_t handle, int *count);

/* Times every applicable forward algorithm on scratch buffers it allocates itself and returns
 * up to requestedAlgoCount entries, fastest first (unsupported ones last, status != SUCCESS). */
cudnnStatus_t CUDNNWINAPI
cudnnFindConvolutionForwardAlgorithm(cudnnHandle_t handle,
                                     const cudnnTensorDescriptor_t xDesc,
                                     const cudnnFilterDescriptor_t wDesc,
                                     const cudnnConvolutionDescriptor_t convDesc,
                                     const cudnnTensorDescriptor_t yDesc,
                                     const int requestedAlgoCount,
                                     int *returnedAlgoCount,
                                     cudnnConvolutionFwdAlgoPerf_t *perfResults);

/* Like cudnnFindConvolutionForwardAlgorithm but runs on the caller's x, w, y and workSpace
 * (device memory; y is overwritten). Algorithms needing more than workSpaceSizeInBytes are
 * reported as not run. */
cudnnStatus_t CUDNNWINAPI
cudnnFindConvolutionForwardAlgorithmEx(cudnnHandle_t handle,
                                       const cudnnTensorDescriptor_t xDesc,
                                       const void *x,
                                       const cudnnFilterDescriptor_t wDesc,
                                       const void *w,
                                       const cudnnConvolutionDescriptor_t convDesc,
                                       const cudnnTensorDescriptor_t yDesc,
                                       void *y,
                                       const int requestedAlgoCount,
                                       int *returnedAlgoCount,
                                       cudnnConvolutionFwdAlgoPerf_t *perfResults,
                                       void *workSpace,
                                       size_t workSpaceSizeInBytes);

/* cuDNN 7 single-answer heuristic (removed by NVIDIA in 8.0): picks one forward algorithm
 * under the given preference; memoryLimitInBytes applies to SPECIFY_WORKSPACE_LIMIT only. */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionForwardAlgorithm(cudnnHandle_t handle,
                                    const cudnnTensorDescriptor_t xDesc,
                                    const cudnnFilterDescriptor_t wDesc,
                                    const cudnnConvolutionDescriptor_t convDesc,
                                    const cudnnTensorDescriptor_t yDesc,
                                    cudnnConvolutionFwdPreference_t preference,
                                    size_t memoryLimitInBytes,
                                    cudnnConvolutionFwdAlgo_t *algo);

/* Heuristic ranking of forward algorithms, best first, without running anything (time is not
 * measured); memory is the workspace each one needs. */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionForwardAlgorithm_v7(cudnnHandle_t handle,
                                       const cudnnTensorDescriptor_t srcDesc,
                                       const cudnnFilterDescriptor_t filterDesc,
                                       const cudnnConvolutionDescriptor_t convDesc,
                                       const cudnnTensorDescriptor_t destDesc,
                                       const int requestedAlgoCount,
                                       int *returnedAlgoCount,
                                       cudnnConvolutionFwdAlgoPerf_t *perfResults);

/* Workspace bytes cudnnConvolutionForward needs with this algo (0 if none); fails with
 * NOT_SUPPORTED if the algorithm cannot run the problem. */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t handle,
                                        const cudnnTensorDescriptor_t xDesc,
                                        const cudnnFilterDescriptor_t wDesc,
                                        const cudnnConvolutionDescriptor_t convDesc,
                                        const cudnnTensorDescriptor_t yDesc,
                                        cudnnConvolutionFwdAlgo_t algo,
                                        size_t *sizeInBytes);

/* y = alpha * conv(x, w) + beta * y, using algo and a device workspace of at least the size
 * reported by cudnnGetConvolutionForwardWorkspaceSize. */
cudnnStatus_t CUDNNWINAPI
cudnnConvolutionForward(cudnnHandle_t handle,
                        const void *alpha,
                        const cudnnTensorDescriptor_t xDesc,
                        const void *x,
                        const cudnnFilterDescriptor_t wDesc,
                        const void *w,
                        const cudnnConvolutionDescriptor_t convDesc,
                        cudnnConvolutionFwdAlgo_t algo,
                        void *workSpace,
                        size_t workSpaceSizeInBytes,
                        const void *beta,
                        const cudnnTensorDescriptor_t yDesc,
                        void *y);

/* Fused forward layer: y = act(alpha1 * conv(x, w) + alpha2 * z + bias). z has y's shape
 * (may alias y); bias is a 1xKx1x1 tensor; act is RELU or IDENTITY (IDENTITY only with
 * IMPLICIT_PRECOMP_GEMM). alpha1/alpha2 are host scalars. */
cudnnStatus_t CUDNNWINAPI
cudnnConvolutionBiasActivationForward(cudnnHandle_t handle,
                                      const void *alpha1,
                                      const cudnnTensorDescriptor_t xDesc,
                                      const void *x,
                                      const cudnnFilterDescriptor_t wDesc,
                                      const void *w,
                                      const cudnnConvolutionDescriptor_t convDesc,
                                      cudnnConvolutionFwdAlgo_t algo,
                                      void *workSpace,
                                      size_t workSpaceSizeInBytes,
                                      const void *alpha2,
                                      const cudnnTensorDescriptor_t zDesc,
                                      const void *z,
                                      const cudnnTensorDescriptor_t biasDesc,
                                      const void *bias,
                                      const cudnnActivationDescriptor_t activationDesc,
                                      const cudnnTensorDescriptor_t yDesc,
                                      void *y);

/* Lowers x into the im2col matrix that a GEMM-based convolution with w's shape multiplies:
 * one column of C*R*S input values per output position (device buffer colBuffer). */
cudnnStatus_t CUDNNWINAPI
cudnnIm2Col(cudnnHandle_t handle,
            const cudnnTensorDescriptor_t xDesc,
            const void *x,
            const cudnnFilterDescriptor_t wDesc,
            const cudnnConvolutionDescriptor_t convDesc,
            void *colBuffer);

/* Reorders INT8x32 (NCHW_VECT_C) filter data - and, if reorderBias is nonzero, the bias -
 * into the layout expected by the integer Tensor Core kernels of
 * cudnnConvolutionBiasActivationForward. Output buffers must not alias the inputs. */
cudnnStatus_t CUDNNWINAPI
cudnnReorderFilterAndBias(cudnnHandle_t handle,
                          const cudnnFilterDescriptor_t filterDesc,
                          cudnnReorderType_t reorderType,
                          const void *filterData,
                          void *reorderedFilterData,
                          int reorderBias,
                          const void *biasData,
                          void *reorderedBiasData);

/* ---------------------------------------------------------------------------------------- */
/* Backward convolution: bias, data, filter                                                  */
/* ---------------------------------------------------------------------------------------- */

/* db = alpha * sum of dy over N and the spatial dims + beta * db (db is 1xKx1x1). */
cudnnStatus_t CUDNNWINAPI
cudnnConvolutionBackwardBias(cudnnHandle_t handle,
                             const void *alpha,
                             const cudnnTensorDescriptor_t dyDesc,
                             const void *dy,
                             const void *beta,
                             const cudnnTensorDescriptor_t dbDesc,
                             void *db);

/* Number of backward-filter algorithms (largest useful requestedAlgoCount). */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(cudnnHandle_t handle, int *count);

/* Times every applicable backward-filter algorithm on self-allocated buffers; results fastest
 * first, as for the forward Find. */
cudnnStatus_t CUDNNWINAPI
cudnnFindConvolutionBackwardFilterAlgorithm(cudnnHandle_t handle,
                                            const cudnnTensorDescriptor_t xDesc,
                                            const cudnnTensorDescriptor_t dyDesc,
                                            const cudnnConvolutionDescriptor_t convDesc,
                                            const cudnnFilterDescriptor_t dwDesc,
                                            const int requestedAlgoCount,
                                            int *returnedAlgoCount,
                                            cudnnConvolutionBwdFilterAlgoPerf_t *perfResults);

/* Backward-filter Find on the caller's x, dy (named y here, as in cuDNN), dw and workSpace;
 * dw is overwritten. */
cudnnStatus_t CUDNNWINAPI
cudnnFindConvolutionBackwardFilterAlgorithmEx(cudnnHandle_t handle,
                                              const cudnnTensorDescriptor_t xDesc,
                                              const void *x,
                                              const cudnnTensorDescriptor_t dyDesc,
                                              const void *y,
                                              const cudnnConvolutionDescriptor_t convDesc,
                                              const cudnnFilterDescriptor_t dwDesc,
                                              void *dw,
                                              const int requestedAlgoCount,
                                              int *returnedAlgoCount,
                                              cudnnConvolutionBwdFilterAlgoPerf_t *perfResults,
                                              void *workSpace,
                                              size_t workSpaceSizeInBytes);

/* cuDNN 7 single-answer backward-filter heuristic (removed by NVIDIA in 8.0). */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionBackwardFilterAlgorithm(cudnnHandle_t handle,
                                           const cudnnTensorDescriptor_t xDesc,
                                           const cudnnTensorDescriptor_t dyDesc,
                                           const cudnnConvolutionDescriptor_t convDesc,
                                           const cudnnFilterDescriptor_t dwDesc,
                                           cudnnConvolutionBwdFilterPreference_t preference,
                                           size_t memoryLimitInBytes,
                                           cudnnConvolutionBwdFilterAlgo_t *algo);

/* Heuristic ranking of backward-filter algorithms (srcDesc = x, diffDesc = dy,
 * gradDesc = dw); nothing is run. */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionBackwardFilterAlgorithm_v7(cudnnHandle_t handle,
                                              const cudnnTensorDescriptor_t srcDesc,
                                              const cudnnTensorDescriptor_t diffDesc,
                                              const cudnnConvolutionDescriptor_t convDesc,
                                              const cudnnFilterDescriptor_t gradDesc,
                                              const int requestedAlgoCount,
                                              int *returnedAlgoCount,
                                              cudnnConvolutionBwdFilterAlgoPerf_t *perfResults);

/* Workspace bytes cudnnConvolutionBackwardFilter needs with this algo (gradDesc = dw). */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionBackwardFilterWorkspaceSize(cudnnHandle_t handle,
                                               const cudnnTensorDescriptor_t xDesc,
                                               const cudnnTensorDescriptor_t dyDesc,
                                               const cudnnConvolutionDescriptor_t convDesc,
                                               const cudnnFilterDescriptor_t gradDesc,
                                               cudnnConvolutionBwdFilterAlgo_t algo,
                                               size_t *sizeInBytes);

/* Filter gradient: dw = alpha * (x correlated with dy) + beta * dw. */
cudnnStatus_t CUDNNWINAPI
cudnnConvolutionBackwardFilter(cudnnHandle_t handle,
                               const void *alpha,
                               const cudnnTensorDescriptor_t xDesc,
                               const void *x,
                               const cudnnTensorDescriptor_t dyDesc,
                               const void *dy,
                               const cudnnConvolutionDescriptor_t convDesc,
                               cudnnConvolutionBwdFilterAlgo_t algo,
                               void *workSpace,
                               size_t workSpaceSizeInBytes,
                               const void *beta,
                               const cudnnFilterDescriptor_t dwDesc,
                               void *dw);

/* Number of backward-data algorithms (largest useful requestedAlgoCount). */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionBackwardDataAlgorithmMaxCount(cudnnHandle_t handle, int *count);

/* Times every applicable backward-data algorithm on self-allocated buffers; fastest first. */
cudnnStatus_t CUDNNWINAPI
cudnnFindConvolutionBackwardDataAlgorithm(cudnnHandle_t handle,
                                          const cudnnFilterDescriptor_t wDesc,
                                          const cudnnTensorDescriptor_t dyDesc,
                                          const cudnnConvolutionDescriptor_t convDesc,
                                          const cudnnTensorDescriptor_t dxDesc,
                                          const int requestedAlgoCount,
                                          int *returnedAlgoCount,
                                          cudnnConvolutionBwdDataAlgoPerf_t *perfResults);

/* Backward-data Find on the caller's w, dy, dx and workSpace; dx is overwritten. */
cudnnStatus_t CUDNNWINAPI
cudnnFindConvolutionBackwardDataAlgorithmEx(cudnnHandle_t handle,
                                            const cudnnFilterDescriptor_t wDesc,
                                            const void *w,
                                            const cudnnTensorDescriptor_t dyDesc,
                                            const void *dy,
                                            const cudnnConvolutionDescriptor_t convDesc,
                                            const cudnnTensorDescriptor_t dxDesc,
                                            void *dx,
                                            const int requestedAlgoCount,
                                            int *returnedAlgoCount,
                                            cudnnConvolutionBwdDataAlgoPerf_t *perfResults,
                                            void *workSpace,
                                            size_t workSpaceSizeInBytes);

/* cuDNN 7 single-answer backward-data heuristic (removed by NVIDIA in 8.0). */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionBackwardDataAlgorithm(cudnnHandle_t handle,
                                         const cudnnFilterDescriptor_t wDesc,
                                         const cudnnTensorDescriptor_t dyDesc,
                                         const cudnnConvolutionDescriptor_t convDesc,
                                         const cudnnTensorDescriptor_t dxDesc,
                                         cudnnConvolutionBwdDataPreference_t preference,
                                         size_t memoryLimitInBytes,
                                         cudnnConvolutionBwdDataAlgo_t *algo);

/* Heuristic ranking of backward-data algorithms (filterDesc = w, diffDesc = dy,
 * gradDesc = dx); nothing is run. */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionBackwardDataAlgorithm_v7(cudnnHandle_t handle,
                                            const cudnnFilterDescriptor_t filterDesc,
                                            const cudnnTensorDescriptor_t diffDesc,
                                            const cudnnConvolutionDescriptor_t convDesc,
                                            const cudnnTensorDescriptor_t gradDesc,
                                            const int requestedAlgoCount,
                                            int *returnedAlgoCount,
                                            cudnnConvolutionBwdDataAlgoPerf_t *perfResults);

/* Workspace bytes cudnnConvolutionBackwardData needs with this algo. */
cudnnStatus_t CUDNNWINAPI
cudnnGetConvolutionBackwardDataWorkspaceSize(cudnnHandle_t handle,
                                             const cudnnFilterDescriptor_t wDesc,
                                             const cudnnTensorDescriptor_t dyDesc,
                                             const cudnnConvolutionDescriptor_t convDesc,
                                             const cudnnTensorDescriptor_t dxDesc,
                                             cudnnConvolutionBwdDataAlgo_t algo,
                                             size_t *sizeInBytes);

/* Data gradient (transposed convolution): dx = alpha * convT(dy, w) + beta * dx. */
cudnnStatus_t CUDNNWINAPI
cudnnConvolutionBackwardData(cudnnHandle_t handle,
                             const void *alpha,
                             const cudnnFilterDescriptor_t wDesc,
                             const void *w,
                             const cudnnTensorDescriptor_t dyDesc,
                             const void *dy,
                             const cudnnConvolutionDescriptor_t convDesc,
                             cudnnConvolutionBwdDataAlgo_t algo,
                             void *workSpace,
                             size_t workSpaceSizeInBytes,
                             const void *beta,
                             const cudnnTensorDescriptor_t dxDesc,
                             void *dx);

/* Rewrites a strided backward-data problem as a stride-1 one on folded tensors: fills the
 * folded filter / padded dy / folded conv / folded dx descriptors (all previously created)
 * and the four tensor-transform descriptors that move data into and out of the folded form
 * (use them with cudnnTransformFilter / cudnnTransformTensorEx). transformFormat is the
 * layout of the folded tensors. */
cudnnStatus_t CUDNNWINAPI
cudnnGetFoldedConvBackwardDataDescriptors(const cudnnHandle_t handle,
                                          const cudnnFilterDescriptor_t filterDesc,
                                          const cudnnTensorDescriptor_t diffDesc,
                                          const cudnnConvolutionDescriptor_t convDesc,
                                          const cudnnTensorDescriptor_t gradDesc,
                                          const cudnnTensorFormat_t transformFormat,
                                          cudnnFilterDescriptor_t foldedFilterDesc,
                                          cudnnTensorDescriptor_t paddedDiffDesc,
                                          cudnnConvolutionDescriptor_t foldedConvDesc,
                                          cudnnTensorDescriptor_t foldedGradDesc,
                                          cudnnTensorTransformDescriptor_t filterFoldTransDesc,
                                          cudnnTensorTransformDescriptor_t diffPadTransDesc,
                                          cudnnTensorTransformDescriptor_t gradFoldTransDesc,
                                          cudnnTensorTransformDescriptor_t gradUnfoldTransDesc);

/* ---------------------------------------------------------------------------------------- */
/* Fused operations (cudnnFusedOps*)                                                         */
/* ---------------------------------------------------------------------------------------- */
/* A fused sequence is described in three objects: a constant pack (descriptors and pointer
 * alignment promises, fixed when the plan is made), a variant pack (device pointers and
 * per-call scalars) and a plan built from the constant pack. */

struct cudnnFusedOpsConstParamStruct;
typedef struct cudnnFusedOpsConstParamStruct *cudnnFusedOpsConstParamPack_t;

struct cudnnFusedOpsVariantParamStruct;
typedef struct cudnnFusedOpsVariantParamStruct *cudnnFusedOpsVariantParamPack_t;

struct cudnnFusedOpsPlanStruct;
typedef struct cudnnFusedOpsPlanStruct *cudnnFusedOpsPlan_t;

/* The fused sequences. Stages in [brackets] are optional and are skipped when their pointer
 * placeholder is CUDNN_PTR_NULL. */
typedef enum {
    /* [scale], [bias], [activation] on x, then convolution, then [y sum / sum-of-squares]. */
    CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS = 0,
    /* [scale], [bias], [activation] on x, then backward-filter convolution. */
    CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD = 1,
    /* Batch-norm training finalisation: from y sums, scale and bias derive the equivalent
     * per-channel scale/bias; optionally update running and saved statistics. */
    CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING = 2,
    /* Batch-norm inference finalisation: equivalent scale/bias from running statistics. */
    CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE = 3,
    /* Reserved: convolution, [scale], [bias], [residual add], [activation]. */
    CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION = 4,
    /* Reserved: [scale], [bias], [residual add], activation, activation bitmask output. */
    CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK = 5,
    /* Reserved: activation backward forking into batch-norm backward. */
    CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM = 6,
} cudnnFusedOps_t;

/* Attributes of a constant pack. *_DESC entries take a descriptor (set: an initialised one;
 * get: a created one that is filled in). *_PLACEHOLDER entries take a
 * cudnnFusedOpsPointerPlaceHolder_t* saying whether, and how aligned, the matching variant
 * pointer will be. BN_MODE takes a cudnnBatchNormMode_t*. */
typedef enum {
    CUDNN_PARAM_XDESC = 0,
    CUDNN_PARAM_XDATA_PLACEHOLDER = 1,
    CUDNN_PARAM_BN_MODE = 2,
    CUDNN_PARAM_BN_EQSCALEBIAS_DESC = 3,
    CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER = 4,
    CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER = 5,
    CUDNN_PARAM_ACTIVATION_DESC = 6,
    CUDNN_PARAM_CONV_DESC = 7,
    CUDNN_PARAM_WDESC = 8,
    CUDNN_PARAM_WDATA_PLACEHOLDER = 9,
    CUDNN_PARAM_DWDESC = 10,
    CUDNN_PARAM_DWDATA_PLACEHOLDER = 11,
    CUDNN_PARAM_YDESC = 12,
    CUDNN_PARAM_YDATA_PLACEHOLDER = 13,
    CUDNN_PARAM_DYDESC = 14,
    CUDNN_PARAM_DYDATA_PLACEHOLDER = 15,
    CUDNN_PARAM_YSTATS_DESC = 16,
    CUDNN_PARAM_YSUM_PLACEHOLDER = 17,
    CUDNN_PARAM_YSQSUM_PLACEHOLDER = 18,
    CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC = 19,
    CUDNN_PARAM_BN_SCALE_PLACEHOLDER = 20,
    CUDNN_PARAM_BN_BIAS_PLACEHOLDER = 21,
    CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER = 22,
    CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER = 23,
    CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER = 24,
    CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER = 25,
    CUDNN_PARAM_ZDESC = 26,
    CUDNN_PARAM_ZDATA_PLACEHOLDER = 27,
    CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC = 28,
    CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER = 29,
    CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER = 30,
    CUDNN_PARAM_ACTIVATION_BITMASK_DESC = 31,
    CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER = 32,
    CUDNN_PARAM_DXDESC = 33,
    CUDNN_PARAM_DXDATA_PLACEHOLDER = 34,
    CUDNN_PARAM_DZDESC = 35,
    CUDNN_PARAM_DZDATA_PLACEHOLDER = 36,
    CUDNN_PARAM_BN_DSCALE_PLACEHOLDER = 37,
    CUDNN_PARAM_BN_DBIAS_PLACEHOLDER = 38,
} cudnnFusedOpsConstParamLabel_t;

/* Promise about a variant-pack pointer, given in the constant pack: absent, aligned to its
 * element size, or aligned to 16 bytes. */
typedef enum {
    CUDNN_PTR_NULL = 0,
    CUDNN_PTR_ELEM_ALIGNED = 1,
    CUDNN_PTR_16B_ALIGNED = 2,
} cudnnFusedOpsPointerPlaceHolder_t;

/* Attributes of a variant pack. CUDNN_PTR_*: set with a device void*, get into a host void**.
 * CUDNN_SCALAR_*: set/get through a host pointer of the type named in the enumerator
 * (size_t, int64_t, double). */
typedef enum {
    CUDNN_PTR_XDATA = 0,
    CUDNN_PTR_BN_EQSCALE = 1,
    CUDNN_PTR_BN_EQBIAS = 2,
    CUDNN_PTR_WDATA = 3,
    CUDNN_PTR_DWDATA = 4,
    CUDNN_PTR_YDATA = 5,
    CUDNN_PTR_DYDATA = 6,
    CUDNN_PTR_YSUM = 7,
    CUDNN_PTR_YSQSUM = 8,
    CUDNN_PTR_WORKSPACE = 9,
    CUDNN_PTR_BN_SCALE = 10,
    CUDNN_PTR_BN_BIAS = 11,
    CUDNN_PTR_BN_SAVED_MEAN = 12,
    CUDNN_PTR_BN_SAVED_INVSTD = 13,
    CUDNN_PTR_BN_RUNNING_MEAN = 14,
    CUDNN_PTR_BN_RUNNING_VAR = 15,
    CUDNN_PTR_ZDATA = 16,
    CUDNN_PTR_BN_Z_EQSCALE = 17,
    CUDNN_PTR_BN_Z_EQBIAS = 18,
    CUDNN_PTR_ACTIVATION_BITMASK = 19,
    CUDNN_PTR_DXDATA = 20,
    CUDNN_PTR_DZDATA = 21,
    CUDNN_PTR_BN_DSCALE = 22,
    CUDNN_PTR_BN_DBIAS = 23,
    CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES = 100,
    CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT = 101,
    CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR = 102,
    CUDNN_SCALAR_DOUBLE_BN_EPSILON = 103,
} cudnnFusedOpsVariantParamLabel_t;

/* Creates an empty constant pack for the fused sequence ops. */
cudnnStatus_t CUDNNWINAPI
cudnnCreateFusedOpsConstParamPack(cudnnFusedOpsConstParamPack_t *constPack, cudnnFusedOps_t ops);

/* Frees a constant pack (the descriptors it refers to are not freed). */
cudnnStatus_t CUDNNWINAPI
cudnnDestroyFusedOpsConstParamPack(cudnnFusedOpsConstParamPack_t constPack);

/* Stores one attribute; param points to host memory of the type the label calls for. */
cudnnStatus_t CUDNNWINAPI
cudnnSetFusedOpsConstParamPackAttribute(cudnnFusedOpsConstParamPack_t constPack,
                                        cudnnFusedOpsConstParamLabel_t paramLabel,
                                        const void *param);

/* Reads one attribute into param; *isNULL is set nonzero if it was never set. */
cudnnStatus_t CUDNNWINAPI
cudnnGetFusedOpsConstParamPackAttribute(const cudnnFusedOpsConstParamPack_t constPack,
                                        cudnnFusedOpsConstParamLabel_t paramLabel,
                                        void *param,
                                        int *isNULL);

/* Creates an empty variant pack for the fused sequence ops. */
cudnnStatus_t CUDNNWINAPI
cudnnCreateFusedOpsVariantParamPack(cudnnFusedOpsVariantParamPack_t *varPack, cudnnFusedOps_t ops);

/* Frees a variant pack (the buffers it points to are not freed). */
cudnnStatus_t CUDNNWINAPI
cudnnDestroyFusedOpsVariantParamPack(cudnnFusedOpsVariantParamPack_t varPack);

/* Stores one pointer or scalar: for CUDNN_PTR_* labels ptr is the device pointer itself, for
 * CUDNN_SCALAR_* labels a host pointer to the value. */
cudnnStatus_t CUDNNWINAPI
cudnnSetFusedOpsVariantParamPackAttribute(cudnnFusedOpsVariantParamPack_t varPack,
                                          cudnnFusedOpsVariantParamLabel_t paramLabel,
                                          void *ptr);

/* Reads one entry: for CUDNN_PTR_* labels ptr is a host void** receiving the pointer, for
 * CUDNN_SCALAR_* labels a host pointer receiving the value. */
cudnnStatus_t CUDNNWINAPI
cudnnGetFusedOpsVariantParamPackAttribute(const cudnnFusedOpsVariantParamPack_t varPack,
                                          cudnnFusedOpsVariantParamLabel_t paramLabel,
                                          void *ptr);

/* Creates an empty plan for the fused sequence ops. */
cudnnStatus_t CUDNNWINAPI
cudnnCreateFusedOpsPlan(cudnnFusedOpsPlan_t *plan, cudnnFusedOps_t ops);

/* Frees a plan. */
cudnnStatus_t CUDNNWINAPI
cudnnDestroyFusedOpsPlan(cudnnFusedOpsPlan_t plan);

/* Validates constPack, selects kernels and reports the device workspace the plan needs
 * (*workspaceSizeInBytes, host). Fails with NOT_SUPPORTED for unsupported combinations. */
cudnnStatus_t CUDNNWINAPI
cudnnMakeFusedOpsPlan(cudnnHandle_t handle,
                      cudnnFusedOpsPlan_t plan,
                      const cudnnFusedOpsConstParamPack_t constPack,
                      size_t *workspaceSizeInBytes);

/* Runs a made plan on the buffers and scalars of varPack, on the handle's stream. */
cudnnStatus_t CUDNNWINAPI
cudnnFusedOpsExecute(cudnnHandle_t handle,
                     const cudnnFusedOpsPlan_t plan,
                     cudnnFusedOpsVariantParamPack_t varPack);

/* ---------------------------------------------------------------------------------------- */
/* Version check                                                                             */
/* ---------------------------------------------------------------------------------------- */

/* Checks that the convolution part of the library matches the core it is loaded with;
 * CUDNN_STATUS_SUCCESS in freednn, which is built as one library. */
cudnnStatus_t CUDNNWINAPI
cudnnCnnVersionCheck(void);

#if defined(__cplusplus)
}
#endif

#endif /* CUDNN_CNN_H_ */
