/* SPDX-License-Identifier: MIT */
/*
 * cudnn_adv.h - freednn: recurrent networks, multi-head attention and CTC loss of the cuDNN
 * classic API.
 *
 * Recurrent networks come in three generations, all declared here:
 *   - cuDNN 5-7: per-time-step tensor descriptor arrays (cudnnRNNForwardTraining, ...),
 *     the Ex variants on RNN data descriptors, persistent plans and the RNN Find API
 *     (removed by NVIDIA in 8.0 / 9.0, kept here for v7 programs);
 *   - cuDNN 8+: one descriptor set by cudnnSetRNNDescriptor_v8, one flat weight space and
 *     cudnnRNNForward / cudnnRNNBackwardData_v8 / cudnnRNNBackwardWeights_v8.
 * Sequence-data descriptors and multi-head attention (cuDNN 7.5+) and CTC loss follow.
 *
 * Conventions: data, weights, workspaces and reserve spaces are device pointers (host
 * pointers on freednn's ref/cpu backends). Descriptors, sizes and counts are host memory, and
 * so are the arrays whose names start with "host", seqLengthArray and the attention window
 * arrays; arrays whose names start with "dev" are device memory. Sizes are in bytes.
 * Every name, argument list, enum value and struct layout matches NVIDIA cuDNN (7.6.5 for the
 * removed functions, 9.x for the rest); the text is freednn's own.
 */
#ifndef CUDNN_ADV_H_
#define CUDNN_ADV_H_

#include <stddef.h>
#include <stdint.h>

#include "cudnn_version.h"
#include "cudnn_ops.h"

/* Version of this part of the interface; always equal to the overall cuDNN version. */
#define CUDNN_ADV_MAJOR CUDNN_MAJOR
#define CUDNN_ADV_MINOR CUDNN_MINOR
#define CUDNN_ADV_PATCH CUDNN_PATCHLEVEL

#if defined(__cplusplus)
extern "C" {
#endif

/* ======================================================================================== */
/* Recurrent neural networks                                                                 */
/* ======================================================================================== */

/* (cudnnRNNAlgo_t, shared with the algorithm-descriptor API, is defined in cudnn_ops.h.) */

/* Whether a forward pass is inference-only or keeps what the backward pass needs in the
 * reserve space. */
typedef enum {
    CUDNN_FWD_MODE_INFERENCE = 0,
    CUDNN_FWD_MODE_TRAINING = 1,
} cudnnForwardMode_t;

/* Cell type. RNN_RELU / RNN_TANH: h' = act(W x + R h + b), 2 matrices per layer and
 * direction; LSTM: 4 gates (i, f, g, o), 8 matrices, optional recurrent projection and cell
 * clipping; GRU: 3 gates (r, z, h~) with the reset gate applied after the recurrent GEMM,
 * 6 matrices. */
typedef enum {
    CUDNN_RNN_RELU = 0,
    CUDNN_RNN_TANH = 1,
    CUDNN_LSTM = 2,
    CUDNN_GRU = 3,
} cudnnRNNMode_t;

/* Which bias vectors the cell formulas use: none, one on the input GEMM, two (input and
 * recurrent; the default), or one on the recurrent GEMM. */
typedef enum {
    CUDNN_RNN_NO_BIAS = 0,
    CUDNN_RNN_SINGLE_INP_BIAS = 1,
    CUDNN_RNN_DOUBLE_BIAS = 2,
    CUDNN_RNN_SINGLE_REC_BIAS = 3
} cudnnRNNBiasMode_t;

/* Unidirectional, or bidirectional with the two directions' outputs concatenated per layer
 * (output vector length 2 * hiddenSize, or 2 * projSize). */
typedef enum {
    CUDNN_UNIDIRECTIONAL = 0,
    CUDNN_BIDIRECTIONAL = 1,
} cudnnDirectionMode_t;

/* First-layer input: multiplied by a learned matrix (LINEAR_INPUT) or fed through unchanged
 * (SKIP_INPUT, requires inputSize == hiddenSize; no input matrix in the first layer). */
typedef enum {
    CUDNN_LINEAR_INPUT = 0,
    CUDNN_SKIP_INPUT = 1,
} cudnnRNNInputMode_t;

/* LSTM cell-state clipping off, or clamped to [lclip, rclip]. */
typedef enum {
    CUDNN_RNN_CLIP_NONE = 0,
    CUDNN_RNN_CLIP_MINMAX = 1,
} cudnnRNNClipMode_t;

/* Memory layout of an RNN data tensor (cudnnRNNDataDescriptor_t).
 * SEQ_MAJOR_UNPACKED: [maxSeqLength][batchSize][vectorSize], padded;
 * SEQ_MAJOR_PACKED:   time-major with the inactive (finished) sequences dropped at each step,
 *                     sequences sorted by decreasing length (the layout of the v7 API);
 * BATCH_MAJOR_UNPACKED: [batchSize][maxSeqLength][vectorSize], padded. */
typedef enum {
    CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED = 0,
    CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED = 1,
    CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED = 2,
} cudnnRNNDataLayout_t;

/* Padded input/output for the Ex functions (cuDNN 7 cudnnSetRNNPaddingMode). ENABLED allows
 * the unpacked (padded) RNN data layouts. */
typedef enum {
    CUDNN_RNN_PADDED_IO_DISABLED = 0,
    CUDNN_RNN_PADDED_IO_ENABLED = 1,
} cudnnRNNPaddingMode_t;

/* The same two values are the bits of auxFlags in cudnnSetRNNDescriptor_v8, where cuDNN 8/9
 * spell them as macros. The macros below expand to the enumerators above, so the names work
 * both as cudnnRNNPaddingMode_t values (v7) and as unsigned flag bits (v8), and #ifdef finds
 * them. Values: DISABLED 0, ENABLED 1 (bit 0). */
#define CUDNN_RNN_PADDED_IO_DISABLED CUDNN_RNN_PADDED_IO_DISABLED
#define CUDNN_RNN_PADDED_IO_ENABLED CUDNN_RNN_PADDED_IO_ENABLED

/* Whether the weight-gradient pass adds to (ADD) or overwrites (SET) the gradient buffers.
 * Used by cudnnRNNBackwardWeights_v8 and cudnnMultiHeadAttnBackwardWeights. */
typedef enum {
    CUDNN_WGRAD_MODE_ADD = 0,
    CUDNN_WGRAD_MODE_SET = 1,
} cudnnWgradMode_t;

/* Opaque RNN descriptor (cell, sizes, layers, direction, precision, algorithm, dropout). */
struct cudnnRNNStruct;
typedef struct cudnnRNNStruct *cudnnRNNDescriptor_t;

/* Opaque persistent-kernel plan for CUDNN_RNN_ALGO_PERSIST_DYNAMIC (cuDNN 6-8 API). */
struct cudnnPersistentRNNPlan;
typedef struct cudnnPersistentRNNPlan *cudnnPersistentRNNPlan_t;

/* Opaque RNN data descriptor: a batch of variable-length sequences of vectors. */
struct cudnnRNNDataStruct;
typedef struct cudnnRNNDataStruct *cudnnRNNDataDescriptor_t;

/* ---------------------------------------------------------------------------------------- */
/* RNN descriptor                                                                            */
/* ---------------------------------------------------------------------------------------- */

/* Allocates an RNN descriptor; set it with cudnnSetRNNDescriptor_v8 (or a v7 setter). */
cudnnStatus_t CUDNNWINAPI
cudnnCreateRNNDescriptor(cudnnRNNDescriptor_t *rnnDesc);

/* Frees an RNN descriptor (the dropout descriptor it refers to is not freed). */
cudnnStatus_t CUDNNWINAPI
cudnnDestroyRNNDescriptor(cudnnRNNDescriptor_t rnnDesc);

/* Sets every property at once (cuDNN 8+). dataType: type of x, y, h, c and weights;
 * mathPrec: arithmetic precision; mathType: Tensor Core policy; projSize: LSTM recurrent
 * projection size (== hiddenSize for none); dropoutDesc: dropout applied between layers;
 * auxFlags: CUDNN_RNN_PADDED_IO_* bits. */
cudnnStatus_t CUDNNWINAPI
cudnnSetRNNDescriptor_v8(cudnnRNNDescriptor_t rnnDesc,
                         cudnnRNNAlgo_t algo,
                         cudnnRNNMode_t cellMode,
                         cudnnRNNBiasMode_t biasMode,
                         cudnnDirectionMode_t dirMode,
                         cudnnRNNInputMode_t inputMode,
                         cudnnDataType_t dataType,
                         cudnnDataType_t mathPrec,
                         cudnnMathType_t mathType,
                         int32_t inputSize,
                         int32_t hiddenSize,
                         int32_t projSize,
                         int32_t numLayers,
                         cudnnDropoutDescriptor_t dropoutDesc,
                         uint32_t auxFlags);

/* Reads back every property set by cudnnSetRNNDescriptor_v8. */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNDescriptor_v8(cudnnRNNDescriptor_t rnnDesc,
                         cudnnRNNAlgo_t *algo,
                         cudnnRNNMode_t *cellMode,
                         cudnnRNNBiasMode_t *biasMode,
                         cudnnDirectionMode_t *dirMode,
                         cudnnRNNInputMode_t *inputMode,
                         cudnnDataType_t *dataType,
                         cudnnDataType_t *mathPrec,
                         cudnnMathType_t *mathType,
                         int32_t *inputSize,
                         int32_t *hiddenSize,
                         int32_t *projSize,
                         int32_t *numLayers,
                         cudnnDropoutDescriptor_t *dropoutDesc,
                         uint32_t *auxFlags);

/* cuDNN 7 setter (removed by NVIDIA in 8.0; same arguments as _v6). inputSize is taken from
 * the x descriptors at call time; mathPrec is the arithmetic precision. */
cudnnStatus_t CUDNNWINAPI
cudnnSetRNNDescriptor(cudnnHandle_t handle,
                      cudnnRNNDescriptor_t rnnDesc,
                      const int hiddenSize,
                      const int numLayers,
                      cudnnDropoutDescriptor_t dropoutDesc,
                      cudnnRNNInputMode_t inputMode,
                      cudnnDirectionMode_t direction,
                      cudnnRNNMode_t mode,
                      cudnnRNNAlgo_t algo,
                      cudnnDataType_t mathPrec);

/* cuDNN 7 getter matching cudnnSetRNNDescriptor (removed by NVIDIA in 8.0). */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNDescriptor(cudnnHandle_t handle,
                      cudnnRNNDescriptor_t rnnDesc,
                      int *hiddenSize,
                      int *numLayers,
                      cudnnDropoutDescriptor_t *dropoutDesc,
                      cudnnRNNInputMode_t *inputMode,
                      cudnnDirectionMode_t *direction,
                      cudnnRNNMode_t *mode,
                      cudnnRNNAlgo_t *algo,
                      cudnnDataType_t *mathPrec);

/* Explicitly versioned name of the cuDNN 6/7 setter (removed by NVIDIA in 9.0). */
cudnnStatus_t CUDNNWINAPI
cudnnSetRNNDescriptor_v6(cudnnHandle_t handle,
                         cudnnRNNDescriptor_t rnnDesc,
                         const int hiddenSize,
                         const int numLayers,
                         cudnnDropoutDescriptor_t dropoutDesc,
                         cudnnRNNInputMode_t inputMode,
                         cudnnDirectionMode_t direction,
                         cudnnRNNMode_t mode,
                         cudnnRNNAlgo_t algo,
                         cudnnDataType_t mathPrec);

/* cuDNN 5 setter: no handle, algorithm CUDNN_RNN_ALGO_STANDARD (removed by NVIDIA in 8.0). */
cudnnStatus_t CUDNNWINAPI
cudnnSetRNNDescriptor_v5(cudnnRNNDescriptor_t rnnDesc,
                         int hiddenSize,
                         int numLayers,
                         cudnnDropoutDescriptor_t dropoutDesc,
                         cudnnRNNInputMode_t inputMode,
                         cudnnDirectionMode_t direction,
                         cudnnRNNMode_t mode,
                         cudnnDataType_t mathPrec);

/* Tensor Core policy for the RNN's GEMMs (v7 API; removed by NVIDIA in 9.0). */
cudnnStatus_t CUDNNWINAPI
cudnnSetRNNMatrixMathType(cudnnRNNDescriptor_t rnnDesc, cudnnMathType_t mType);

/* Reads back the Tensor Core policy (v7 API). */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNMatrixMathType(cudnnRNNDescriptor_t rnnDesc, cudnnMathType_t *mType);

/* Selects the bias vectors used by the cell (v7 API; default CUDNN_RNN_DOUBLE_BIAS). */
cudnnStatus_t CUDNNWINAPI
cudnnSetRNNBiasMode(cudnnRNNDescriptor_t rnnDesc, cudnnRNNBiasMode_t biasMode);

/* Reads back the bias mode (v7 API). */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNBiasMode(cudnnRNNDescriptor_t rnnDesc, cudnnRNNBiasMode_t *biasMode);

/* LSTM cell clipping to [lclip, rclip]; clipNanOpt says whether NaN passes through the clamp
 * (v7 API; removed by NVIDIA in 9.0). */
cudnnStatus_t CUDNNWINAPI
cudnnRNNSetClip(cudnnHandle_t handle,
                cudnnRNNDescriptor_t rnnDesc,
                cudnnRNNClipMode_t clipMode,
                cudnnNanPropagation_t clipNanOpt,
                double lclip,
                double rclip);

/* Reads back the clipping settings (v7 API). */
cudnnStatus_t CUDNNWINAPI
cudnnRNNGetClip(cudnnHandle_t handle,
                cudnnRNNDescriptor_t rnnDesc,
                cudnnRNNClipMode_t *clipMode,
                cudnnNanPropagation_t *clipNanOpt,
                double *lclip,
                double *rclip);

/* cudnnRNNSetClip without the handle (cuDNN 8). */
cudnnStatus_t CUDNNWINAPI
cudnnRNNSetClip_v8(cudnnRNNDescriptor_t rnnDesc,
                   cudnnRNNClipMode_t clipMode,
                   cudnnNanPropagation_t clipNanOpt,
                   double lclip,
                   double rclip);

/* cuDNN 9 clipping setter: NaN propagation is no longer configurable. */
cudnnStatus_t CUDNNWINAPI
cudnnRNNSetClip_v9(cudnnRNNDescriptor_t rnnDesc,
                   cudnnRNNClipMode_t clipMode,
                   double lclip,
                   double rclip);

/* Reads back the clipping settings (cuDNN 8 form). */
cudnnStatus_t CUDNNWINAPI
cudnnRNNGetClip_v8(cudnnRNNDescriptor_t rnnDesc,
                   cudnnRNNClipMode_t *clipMode,
                   cudnnNanPropagation_t *clipNanOpt,
                   double *lclip,
                   double *rclip);

/* Reads back the clipping settings (cuDNN 9 form). */
cudnnStatus_t CUDNNWINAPI
cudnnRNNGetClip_v9(cudnnRNNDescriptor_t rnnDesc,
                   cudnnRNNClipMode_t *clipMode,
                   double *lclip,
                   double *rclip);

/* LSTM recurrent projection (v7 API): h is projected to recProjSize (< hiddenSize) before it
 * is fed back and output; recProjSize == hiddenSize disables it. outProjSize must be 0. */
cudnnStatus_t CUDNNWINAPI
cudnnSetRNNProjectionLayers(cudnnHandle_t handle,
                            cudnnRNNDescriptor_t rnnDesc,
                            const int recProjSize,
                            const int outProjSize);

/* Reads back the projection sizes (v7 API). */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNProjectionLayers(cudnnHandle_t handle,
                            const cudnnRNNDescriptor_t rnnDesc,
                            int *recProjSize,
                            int *outProjSize);

/* Allows (ENABLED) padded RNN data layouts in the Ex functions (v7 API; removed by NVIDIA in
 * 9.0, where the same bit is auxFlags of cudnnSetRNNDescriptor_v8). */
cudnnStatus_t CUDNNWINAPI
cudnnSetRNNPaddingMode(cudnnRNNDescriptor_t rnnDesc, cudnnRNNPaddingMode_t paddingMode);

/* Reads back the padding mode (v7 API). */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNPaddingMode(cudnnRNNDescriptor_t rnnDesc, cudnnRNNPaddingMode_t *paddingMode);

/* ---------------------------------------------------------------------------------------- */
/* Persistent kernels                                                                        */
/* ---------------------------------------------------------------------------------------- */

/* Builds a PERSIST_DYNAMIC plan for one mini-batch size and data type; expensive, do it once
 * (v7 API; removed by NVIDIA in 9.0). */
cudnnStatus_t CUDNNWINAPI
cudnnCreatePersistentRNNPlan(cudnnRNNDescriptor_t rnnDesc,
                             const int minibatch,
                             const cudnnDataType_t dataType,
                             cudnnPersistentRNNPlan_t *plan);

/* Frees a persistent plan (v7 API). */
cudnnStatus_t CUDNNWINAPI
cudnnDestroyPersistentRNNPlan(cudnnPersistentRNNPlan_t plan);

/* Attaches a plan to the descriptor; required before running PERSIST_DYNAMIC (v7 API). */
cudnnStatus_t CUDNNWINAPI
cudnnSetPersistentRNNPlan(cudnnRNNDescriptor_t rnnDesc, cudnnPersistentRNNPlan_t plan);

/* cuDNN 8 replacement of the plan calls: prepares PERSIST_DYNAMIC kernels for miniBatch. */
cudnnStatus_t CUDNNWINAPI
cudnnBuildRNNDynamic(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, int miniBatch);

/* ---------------------------------------------------------------------------------------- */
/* Buffer sizes and weight layout                                                            */
/* ---------------------------------------------------------------------------------------- */

/* Workspace bytes for the v7 forward/backward calls; xDesc is the array of seqLength
 * per-time-step descriptors (host), each [batch, inputSize, 1] with non-increasing batch. */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNWorkspaceSize(cudnnHandle_t handle,
                         const cudnnRNNDescriptor_t rnnDesc,
                         const int seqLength,
                         const cudnnTensorDescriptor_t *xDesc,
                         size_t *sizeInBytes);

/* Reserve-space bytes that cudnnRNNForwardTraining fills and the backward calls consume. */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNTrainingReserveSize(cudnnHandle_t handle,
                               const cudnnRNNDescriptor_t rnnDesc,
                               const int seqLength,
                               const cudnnTensorDescriptor_t *xDesc,
                               size_t *sizeInBytes);

/* Bytes of the packed v7 weight buffer (all matrices and biases, every layer and direction)
 * for inputs shaped like xDesc and weights of dataType. */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNParamsSize(cudnnHandle_t handle,
                      const cudnnRNNDescriptor_t rnnDesc,
                      const cudnnTensorDescriptor_t xDesc,
                      size_t *sizeInBytes,
                      cudnnDataType_t dataType);

/* cuDNN 8 sizes: workspace and (TRAINING only, else 0) reserve-space bytes for the v8 calls,
 * for the sequences described by xDesc. */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNTempSpaceSizes(cudnnHandle_t handle,
                          cudnnRNNDescriptor_t rnnDesc,
                          cudnnForwardMode_t fwdMode,
                          cudnnRNNDataDescriptor_t xDesc,
                          size_t *workSpaceSize,
                          size_t *reserveSpaceSize);

/* cuDNN 8 size of the flat weight space (all weights and biases). */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNWeightSpaceSize(cudnnHandle_t handle,
                           cudnnRNNDescriptor_t rnnDesc,
                           size_t *weightSpaceSize);

/* Locates one weight matrix of the v7 weight buffer w. pseudoLayer: layer index (times 2 plus
 * direction when bidirectional); linLayerID: matrix index (RNN 0-1, LSTM 0-7 and 8 for the
 * projection, GRU 0-5; input matrices first). Fills linLayerMatDesc (created by the caller)
 * and sets *linLayerMat to the matrix's device address inside w. */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNLinLayerMatrixParams(cudnnHandle_t handle,
                                const cudnnRNNDescriptor_t rnnDesc,
                                const int pseudoLayer,
                                const cudnnTensorDescriptor_t xDesc,
                                const cudnnFilterDescriptor_t wDesc,
                                const void *w,
                                const int linLayerID,
                                cudnnFilterDescriptor_t linLayerMatDesc,
                                void **linLayerMat);

/* Same as cudnnGetRNNLinLayerMatrixParams for the bias vector of matrix linLayerID. */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNLinLayerBiasParams(cudnnHandle_t handle,
                              const cudnnRNNDescriptor_t rnnDesc,
                              const int pseudoLayer,
                              const cudnnTensorDescriptor_t xDesc,
                              const cudnnFilterDescriptor_t wDesc,
                              const void *w,
                              const int linLayerID,
                              cudnnFilterDescriptor_t linLayerBiasDesc,
                              void **linLayerBias);

/* cuDNN 8 weight lookup in the flat weight space: fills mDesc/bDesc (created by the caller)
 * and sets *mAddr and *bAddr to the device addresses of matrix and bias linLayerID of
 * pseudoLayer (NULL where the tensor does not exist, e.g. biases with NO_BIAS). */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNWeightParams(cudnnHandle_t handle,
                        cudnnRNNDescriptor_t rnnDesc,
                        int32_t pseudoLayer,
                        size_t weightSpaceSize,
                        const void *weightSpace,
                        int32_t linLayerID,
                        cudnnTensorDescriptor_t mDesc,
                        void **mAddr,
                        cudnnTensorDescriptor_t bDesc,
                        void **bAddr);

/* ---------------------------------------------------------------------------------------- */
/* RNN data descriptor                                                                       */
/* ---------------------------------------------------------------------------------------- */

/* Allocates an RNN data descriptor. */
cudnnStatus_t CUDNNWINAPI
cudnnCreateRNNDataDescriptor(cudnnRNNDataDescriptor_t *rnnDataDesc);

/* Frees an RNN data descriptor. */
cudnnStatus_t CUDNNWINAPI
cudnnDestroyRNNDataDescriptor(cudnnRNNDataDescriptor_t rnnDataDesc);

/* Describes batchSize sequences of vectorSize-long vectors: seqLengthArray (host, batchSize
 * ints, each in 1..maxSeqLength) gives each length; paddingFill, if not NULL, is a host
 * pointer to a value of dataType written into the padding of outputs. */
cudnnStatus_t CUDNNWINAPI
cudnnSetRNNDataDescriptor(cudnnRNNDataDescriptor_t rnnDataDesc,
                          cudnnDataType_t dataType,
                          cudnnRNNDataLayout_t layout,
                          int maxSeqLength,
                          int batchSize,
                          int vectorSize,
                          const int seqLengthArray[],
                          void *paddingFill);

/* Reads back an RNN data descriptor; at most arrayLengthRequested lengths are copied. */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNDataDescriptor(cudnnRNNDataDescriptor_t rnnDataDesc,
                          cudnnDataType_t *dataType,
                          cudnnRNNDataLayout_t *layout,
                          int *maxSeqLength,
                          int *batchSize,
                          int *vectorSize,
                          int arrayLengthRequested,
                          int seqLengthArray[],
                          void *paddingFill);

/* ---------------------------------------------------------------------------------------- */
/* Forward                                                                                   */
/* ---------------------------------------------------------------------------------------- */

/* v7 inference pass over seqLength steps. xDesc/yDesc: host arrays of per-step descriptors;
 * hx/cx: initial hidden/cell state (NULL = zeros; cx LSTM only); hy/cy: final state (NULL =
 * not written); w: packed weights (cudnnGetRNNParamsSize). */
cudnnStatus_t CUDNNWINAPI
cudnnRNNForwardInference(cudnnHandle_t handle,
                         const cudnnRNNDescriptor_t rnnDesc,
                         const int seqLength,
                         const cudnnTensorDescriptor_t *xDesc,
                         const void *x,
                         const cudnnTensorDescriptor_t hxDesc,
                         const void *hx,
                         const cudnnTensorDescriptor_t cxDesc,
                         const void *cx,
                         const cudnnFilterDescriptor_t wDesc,
                         const void *w,
                         const cudnnTensorDescriptor_t *yDesc,
                         void *y,
                         const cudnnTensorDescriptor_t hyDesc,
                         void *hy,
                         const cudnnTensorDescriptor_t cyDesc,
                         void *cy,
                         void *workspace,
                         size_t workSpaceSizeInBytes);

/* v7 training pass: as cudnnRNNForwardInference, and also fills reserveSpace for the backward
 * calls (keep it unchanged until they have run). */
cudnnStatus_t CUDNNWINAPI
cudnnRNNForwardTraining(cudnnHandle_t handle,
                        const cudnnRNNDescriptor_t rnnDesc,
                        const int seqLength,
                        const cudnnTensorDescriptor_t *xDesc,
                        const void *x,
                        const cudnnTensorDescriptor_t hxDesc,
                        const void *hx,
                        const cudnnTensorDescriptor_t cxDesc,
                        const void *cx,
                        const cudnnFilterDescriptor_t wDesc,
                        const void *w,
                        const cudnnTensorDescriptor_t *yDesc,
                        void *y,
                        const cudnnTensorDescriptor_t hyDesc,
                        void *hy,
                        const cudnnTensorDescriptor_t cyDesc,
                        void *cy,
                        void *workspace,
                        size_t workSpaceSizeInBytes,
                        void *reserveSpace,
                        size_t reserveSpaceSizeInBytes);

/* Inference on RNN data descriptors (any layout, variable lengths). The attention arguments
 * kDesc, keys, cDesc, cAttn, iDesc, iAttn, qDesc, queries are reserved: pass NULL. */
cudnnStatus_t CUDNNWINAPI
cudnnRNNForwardInferenceEx(cudnnHandle_t handle,
                           const cudnnRNNDescriptor_t rnnDesc,
                           const cudnnRNNDataDescriptor_t xDesc,
                           const void *x,
                           const cudnnTensorDescriptor_t hxDesc,
                           const void *hx,
                           const cudnnTensorDescriptor_t cxDesc,
                           const void *cx,
                           const cudnnFilterDescriptor_t wDesc,
                           const void *w,
                           const cudnnRNNDataDescriptor_t yDesc,
                           void *y,
                           const cudnnTensorDescriptor_t hyDesc,
                           void *hy,
                           const cudnnTensorDescriptor_t cyDesc,
                           void *cy,
                           const cudnnRNNDataDescriptor_t kDesc,
                           const void *keys,
                           const cudnnRNNDataDescriptor_t cDesc,
                           void *cAttn,
                           const cudnnRNNDataDescriptor_t iDesc,
                           void *iAttn,
                           const cudnnRNNDataDescriptor_t qDesc,
                           void *queries,
                           void *workSpace,
                           size_t workSpaceSizeInBytes);

/* Training on RNN data descriptors; fills reserveSpace. Reserved arguments: pass NULL. */
cudnnStatus_t CUDNNWINAPI
cudnnRNNForwardTrainingEx(cudnnHandle_t handle,
                          const cudnnRNNDescriptor_t rnnDesc,
                          const cudnnRNNDataDescriptor_t xDesc,
                          const void *x,
                          const cudnnTensorDescriptor_t hxDesc,
                          const void *hx,
                          const cudnnTensorDescriptor_t cxDesc,
                          const void *cx,
                          const cudnnFilterDescriptor_t wDesc,
                          const void *w,
                          const cudnnRNNDataDescriptor_t yDesc,
                          void *y,
                          const cudnnTensorDescriptor_t hyDesc,
                          void *hy,
                          const cudnnTensorDescriptor_t cyDesc,
                          void *cy,
                          const cudnnRNNDataDescriptor_t kDesc,
                          const void *keys,
                          const cudnnRNNDataDescriptor_t cDesc,
                          void *cAttn,
                          const cudnnRNNDataDescriptor_t iDesc,
                          void *iAttn,
                          const cudnnRNNDataDescriptor_t qDesc,
                          void *queries,
                          void *workSpace,
                          size_t workSpaceSizeInBytes,
                          void *reserveSpace,
                          size_t reserveSpaceSizeInBytes);

/* cuDNN 8 forward pass (inference or training per fwdMode). devSeqLengths: device copy of
 * the batch's sequence lengths (int32, batchSize entries); hDesc/cDesc describe hx, hy and
 * cx, cy (NULL pointers: zero initial state / final state not written); reserveSpace is
 * used in TRAINING mode only. */
cudnnStatus_t CUDNNWINAPI
cudnnRNNForward(cudnnHandle_t handle,
                cudnnRNNDescriptor_t rnnDesc,
                cudnnForwardMode_t fwdMode,
                const int32_t devSeqLengths[],
                cudnnRNNDataDescriptor_t xDesc,
                const void *x,
                cudnnRNNDataDescriptor_t yDesc,
                void *y,
                cudnnTensorDescriptor_t hDesc,
                const void *hx,
                void *hy,
                cudnnTensorDescriptor_t cDesc,
                const void *cx,
                void *cy,
                size_t weightSpaceSize,
                const void *weightSpace,
                size_t workSpaceSize,
                void *workSpace,
                size_t reserveSpaceSize,
                void *reserveSpace);

/* ---------------------------------------------------------------------------------------- */
/* Backward                                                                                  */
/* ---------------------------------------------------------------------------------------- */

/* v7 data gradients: dx, dhx, dcx from dy, dhy, dcy (NULL dhy/dcy = zeros, NULL dhx/dcx = not
 * written). Must follow cudnnRNNForwardTraining with the same reserveSpace. */
cudnnStatus_t CUDNNWINAPI
cudnnRNNBackwardData(cudnnHandle_t handle,
                     const cudnnRNNDescriptor_t rnnDesc,
                     const int seqLength,
                     const cudnnTensorDescriptor_t *yDesc,
                     const void *y,
                     const cudnnTensorDescriptor_t *dyDesc,
                     const void *dy,
                     const cudnnTensorDescriptor_t dhyDesc,
                     const void *dhy,
                     const cudnnTensorDescriptor_t dcyDesc,
                     const void *dcy,
                     const cudnnFilterDescriptor_t wDesc,
                     const void *w,
                     const cudnnTensorDescriptor_t hxDesc,
                     const void *hx,
                     const cudnnTensorDescriptor_t cxDesc,
                     const void *cx,
                     const cudnnTensorDescriptor_t *dxDesc,
                     void *dx,
                     const cudnnTensorDescriptor_t dhxDesc,
                     void *dhx,
                     const cudnnTensorDescriptor_t dcxDesc,
                     void *dcx,
                     void *workspace,
                     size_t workSpaceSizeInBytes,
                     void *reserveSpace,
                     size_t reserveSpaceSizeInBytes);

/* v7 weight gradients, ADDED to dw; runs after cudnnRNNBackwardData with the same workspace
 * and reserve space. */
cudnnStatus_t CUDNNWINAPI
cudnnRNNBackwardWeights(cudnnHandle_t handle,
                        const cudnnRNNDescriptor_t rnnDesc,
                        const int seqLength,
                        const cudnnTensorDescriptor_t *xDesc,
                        const void *x,
                        const cudnnTensorDescriptor_t hxDesc,
                        const void *hx,
                        const cudnnTensorDescriptor_t *yDesc,
                        const void *y,
                        const void *workspace,
                        size_t workSpaceSizeInBytes,
                        const cudnnFilterDescriptor_t dwDesc,
                        void *dw,
                        const void *reserveSpace,
                        size_t reserveSpaceSizeInBytes);

/* Data gradients on RNN data descriptors. Reserved arguments dcDesc, dcAttn, dkDesc, dkeys:
 * pass NULL. */
cudnnStatus_t CUDNNWINAPI
cudnnRNNBackwardDataEx(cudnnHandle_t handle,
                       const cudnnRNNDescriptor_t rnnDesc,
                       const cudnnRNNDataDescriptor_t yDesc,
                       const void *y,
                       const cudnnRNNDataDescriptor_t dyDesc,
                       const void *dy,
                       const cudnnRNNDataDescriptor_t dcDesc,
                       const void *dcAttn,
                       const cudnnTensorDescriptor_t dhyDesc,
                       const void *dhy,
                       const cudnnTensorDescriptor_t dcyDesc,
                       const void *dcy,
                       const cudnnFilterDescriptor_t wDesc,
                       const void *w,
                       const cudnnTensorDescriptor_t hxDesc,
                       const void *hx,
                       const cudnnTensorDescriptor_t cxDesc,
                       const void *cx,
                       const cudnnRNNDataDescriptor_t dxDesc,
                       void *dx,
                       const cudnnTensorDescriptor_t dhxDesc,
                       void *dhx,
                       const cudnnTensorDescriptor_t dcxDesc,
                       void *dcx,
                       const cudnnRNNDataDescriptor_t dkDesc,
                       void *dkeys,
                       void *workSpace,
                       size_t workSpaceSizeInBytes,
                       void *reserveSpace,
                       size_t reserveSpaceSizeInBytes);

/* Weight gradients on RNN data descriptors, ADDED to dw. */
cudnnStatus_t CUDNNWINAPI
cudnnRNNBackwardWeightsEx(cudnnHandle_t handle,
                          const cudnnRNNDescriptor_t rnnDesc,
                          const cudnnRNNDataDescriptor_t xDesc,
                          const void *x,
                          const cudnnTensorDescriptor_t hxDesc,
                          const void *hx,
                          const cudnnRNNDataDescriptor_t yDesc,
                          const void *y,
                          void *workSpace,
                          size_t workSpaceSizeInBytes,
                          const cudnnFilterDescriptor_t dwDesc,
                          void *dw,
                          void *reserveSpace,
                          size_t reserveSpaceSizeInBytes);

/* cuDNN 8 data gradients (dx, dhx, dcx); follows cudnnRNNForward in TRAINING mode with the
 * same reserveSpace. devSeqLengths as in cudnnRNNForward. */
cudnnStatus_t CUDNNWINAPI
cudnnRNNBackwardData_v8(cudnnHandle_t handle,
                        cudnnRNNDescriptor_t rnnDesc,
                        const int32_t devSeqLengths[],
                        cudnnRNNDataDescriptor_t yDesc,
                        const void *y,
                        const void *dy,
                        cudnnRNNDataDescriptor_t xDesc,
                        void *dx,
                        cudnnTensorDescriptor_t hDesc,
                        const void *hx,
                        const void *dhy,
                        void *dhx,
                        cudnnTensorDescriptor_t cDesc,
                        const void *cx,
                        const void *dcy,
                        void *dcx,
                        size_t weightSpaceSize,
                        const void *weightSpace,
                        size_t workSpaceSize,
                        void *workSpace,
                        size_t reserveSpaceSize,
                        void *reserveSpace);

/* cuDNN 8 weight gradients into dweightSpace (added or written per addGrad); runs after
 * cudnnRNNBackwardData_v8 with the same workspace and reserve space. */
cudnnStatus_t CUDNNWINAPI
cudnnRNNBackwardWeights_v8(cudnnHandle_t handle,
                           cudnnRNNDescriptor_t rnnDesc,
                           cudnnWgradMode_t addGrad,
                           const int32_t devSeqLengths[],
                           cudnnRNNDataDescriptor_t xDesc,
                           const void *x,
                           cudnnTensorDescriptor_t hDesc,
                           const void *hx,
                           cudnnRNNDataDescriptor_t yDesc,
                           const void *y,
                           size_t weightSpaceSize,
                           void *dweightSpace,
                           size_t workSpaceSize,
                           void *workSpace,
                           size_t reserveSpaceSize,
                           void *reserveSpace);

/* ---------------------------------------------------------------------------------------- */
/* RNN algorithm search (v7 Find API; removed by NVIDIA in 9.0)                               */
/* ---------------------------------------------------------------------------------------- */
/* The Find calls time the candidate algorithms on the caller's buffers and fill perfResults
 * (host array of cudnnAlgorithmPerformance_t created with cudnnCreateAlgorithmPerformance),
 * fastest first. findIntensity controls how exhaustively the algorithm configurations are
 * searched. */

/* Applies the algorithm held in algoDesc (e.g. taken from a Find result) to rnnDesc. */
cudnnStatus_t CUDNNWINAPI
cudnnSetRNNAlgorithmDescriptor(cudnnHandle_t handle,
                               cudnnRNNDescriptor_t rnnDesc,
                               cudnnAlgorithmDescriptor_t algoDesc);

/* Number of candidates cudnnFindRNNForwardInferenceAlgorithmEx can report. */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNForwardInferenceAlgorithmMaxCount(cudnnHandle_t handle,
                                             const cudnnRNNDescriptor_t rnnDesc,
                                             int *count);

/* Times inference algorithms; arguments as cudnnRNNForwardInference. */
cudnnStatus_t CUDNNWINAPI
cudnnFindRNNForwardInferenceAlgorithmEx(cudnnHandle_t handle,
                                        const cudnnRNNDescriptor_t rnnDesc,
                                        const int seqLength,
                                        const cudnnTensorDescriptor_t *xDesc,
                                        const void *x,
                                        const cudnnTensorDescriptor_t hxDesc,
                                        const void *hx,
                                        const cudnnTensorDescriptor_t cxDesc,
                                        const void *cx,
                                        const cudnnFilterDescriptor_t wDesc,
                                        const void *w,
                                        const cudnnTensorDescriptor_t *yDesc,
                                        void *y,
                                        const cudnnTensorDescriptor_t hyDesc,
                                        void *hy,
                                        const cudnnTensorDescriptor_t cyDesc,
                                        void *cy,
                                        const float findIntensity,
                                        const int requestedAlgoCount,
                                        int *returnedAlgoCount,
                                        cudnnAlgorithmPerformance_t *perfResults,
                                        void *workspace,
                                        size_t workSpaceSizeInBytes);

/* Number of candidates cudnnFindRNNForwardTrainingAlgorithmEx can report. */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNForwardTrainingAlgorithmMaxCount(cudnnHandle_t handle,
                                            const cudnnRNNDescriptor_t rnnDesc,
                                            int *count);

/* Times training-forward algorithms; arguments as cudnnRNNForwardTraining. */
cudnnStatus_t CUDNNWINAPI
cudnnFindRNNForwardTrainingAlgorithmEx(cudnnHandle_t handle,
                                       const cudnnRNNDescriptor_t rnnDesc,
                                       const int seqLength,
                                       const cudnnTensorDescriptor_t *xDesc,
                                       const void *x,
                                       const cudnnTensorDescriptor_t hxDesc,
                                       const void *hx,
                                       const cudnnTensorDescriptor_t cxDesc,
                                       const void *cx,
                                       const cudnnFilterDescriptor_t wDesc,
                                       const void *w,
                                       const cudnnTensorDescriptor_t *yDesc,
                                       void *y,
                                       const cudnnTensorDescriptor_t hyDesc,
                                       void *hy,
                                       const cudnnTensorDescriptor_t cyDesc,
                                       void *cy,
                                       const float findIntensity,
                                       const int requestedAlgoCount,
                                       int *returnedAlgoCount,
                                       cudnnAlgorithmPerformance_t *perfResults,
                                       void *workspace,
                                       size_t workSpaceSizeInBytes,
                                       void *reserveSpace,
                                       size_t reserveSpaceSizeInBytes);

/* Number of candidates cudnnFindRNNBackwardDataAlgorithmEx can report. */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNBackwardDataAlgorithmMaxCount(cudnnHandle_t handle,
                                         const cudnnRNNDescriptor_t rnnDesc,
                                         int *count);

/* Times backward-data algorithms; arguments as cudnnRNNBackwardData. */
cudnnStatus_t CUDNNWINAPI
cudnnFindRNNBackwardDataAlgorithmEx(cudnnHandle_t handle,
                                    const cudnnRNNDescriptor_t rnnDesc,
                                    const int seqLength,
                                    const cudnnTensorDescriptor_t *yDesc,
                                    const void *y,
                                    const cudnnTensorDescriptor_t *dyDesc,
                                    const void *dy,
                                    const cudnnTensorDescriptor_t dhyDesc,
                                    const void *dhy,
                                    const cudnnTensorDescriptor_t dcyDesc,
                                    const void *dcy,
                                    const cudnnFilterDescriptor_t wDesc,
                                    const void *w,
                                    const cudnnTensorDescriptor_t hxDesc,
                                    const void *hx,
                                    const cudnnTensorDescriptor_t cxDesc,
                                    const void *cx,
                                    const cudnnTensorDescriptor_t *dxDesc,
                                    void *dx,
                                    const cudnnTensorDescriptor_t dhxDesc,
                                    void *dhx,
                                    const cudnnTensorDescriptor_t dcxDesc,
                                    void *dcx,
                                    const float findIntensity,
                                    const int requestedAlgoCount,
                                    int *returnedAlgoCount,
                                    cudnnAlgorithmPerformance_t *perfResults,
                                    void *workspace,
                                    size_t workSpaceSizeInBytes,
                                    void *reserveSpace,
                                    size_t reserveSpaceSizeInBytes);

/* Number of candidates cudnnFindRNNBackwardWeightsAlgorithmEx can report. */
cudnnStatus_t CUDNNWINAPI
cudnnGetRNNBackwardWeightsAlgorithmMaxCount(cudnnHandle_t handle,
                                            const cudnnRNNDescriptor_t rnnDesc,
                                            int *count);

/* Times backward-weights algorithms; arguments as cudnnRNNBackwardWeights. */
cudnnStatus_t CUDNNWINAPI
cudnnFindRNNBackwardWeightsAlgorithmEx(cudnnHandle_t handle,
                                       const cudnnRNNDescriptor_t rnnDesc,
                                       const int seqLength,
                                       const cudnnTensorDescriptor_t *xDesc,
                                       const void *x,
                                       const cudnnTensorDescriptor_t hxDesc,
                                       const void *hx,
                                       const cudnnTensorDescriptor_t *yDesc,
                                       const void *y,
                                       const float findIntensity,
                                       const int requestedAlgoCount,
                                       int *returnedAlgoCount,
                                       cudnnAlgorithmPerformance_t *perfResults,
                                       const void *workspace,
                                       size_t workSpaceSizeInBytes,
                                       const cudnnFilterDescriptor_t dwDesc,
                                       void *dw,
                                       const void *reserveSpace,
                                       size_t reserveSpaceSizeInBytes);

/* ======================================================================================== */
/* Sequence data and multi-head attention                                                    */
/* ======================================================================================== */

/* The four axes of a sequence-data tensor; also the indices into dimA[]. */
typedef enum {
    CUDNN_SEQDATA_TIME_DIM = 0,
    CUDNN_SEQDATA_BATCH_DIM = 1,
    CUDNN_SEQDATA_BEAM_DIM = 2,
    CUDNN_SEQDATA_VECT_DIM = 3
} cudnnSeqDataAxis_t;

/* Number of axes of a sequence-data tensor (the nbDims a descriptor takes). */
#define CUDNN_SEQDATA_DIM_COUNT 4

/* Opaque sequence-data descriptor. */
struct cudnnSeqDataStruct;
typedef struct cudnnSeqDataStruct *cudnnSeqDataDescriptor_t;

/* Allocates a sequence-data descriptor. */
cudnnStatus_t CUDNNWINAPI
cudnnCreateSeqDataDescriptor(cudnnSeqDataDescriptor_t *seqDataDesc);

/* Frees a sequence-data descriptor. */
cudnnStatus_t CUDNNWINAPI
cudnnDestroySeqDataDescriptor(cudnnSeqDataDescriptor_t seqDataDesc);

/* Describes a [time, batch, beam, vect] tensor. dimA is indexed by cudnnSeqDataAxis_t; axes[]
 * lists the axes from outermost to innermost in memory (VECT must be innermost);
 * seqLengthArray (host, seqLengthArraySize = batch * beam ints) gives each sequence's length;
 * paddingFill: host pointer to a dataType value for padding positions, or NULL. */
cudnnStatus_t CUDNNWINAPI
cudnnSetSeqDataDescriptor(cudnnSeqDataDescriptor_t seqDataDesc,
                          cudnnDataType_t dataType,
                          int nbDims,
                          const int dimA[],
                          const cudnnSeqDataAxis_t axes[],
                          size_t seqLengthArraySize,
                          const int seqLengthArray[],
                          void *paddingFill);

/* Reads back a sequence-data descriptor: up to nbDimsRequested dims/axes and up to
 * seqLengthSizeRequested lengths are copied; *nbDims and *seqLengthArraySize get the full
 * counts. */
cudnnStatus_t CUDNNWINAPI
cudnnGetSeqDataDescriptor(const cudnnSeqDataDescriptor_t seqDataDesc,
                          cudnnDataType_t *dataType,
                          int *nbDims,
                          int nbDimsRequested,
                          int dimA[],
                          cudnnSeqDataAxis_t axes[],
                          size_t *seqLengthArraySize,
                          size_t seqLengthSizeRequested,
                          int seqLengthArray[],
                          void *paddingFill);

/* Former name of the attnMode word of cudnnSetAttnDescriptor (kept for old sources). */
typedef unsigned cudnnAttnQueryMap_t;

/* attnMode bits (combine with |). With beam size > 1, either all queries of a batch entry
 * share one key/value set (ALL_TO_ONE) or each beam has its own (ONE_TO_ONE); input and
 * output projections with or without biases. */
#define CUDNN_ATTN_QUERYMAP_ALL_TO_ONE 0
#define CUDNN_ATTN_QUERYMAP_ONE_TO_ONE (1U << 0)
#define CUDNN_ATTN_DISABLE_PROJ_BIASES 0
#define CUDNN_ATTN_ENABLE_PROJ_BIASES (1U << 1)

/* Opaque multi-head attention descriptor. */
struct cudnnAttnStruct;
typedef struct cudnnAttnStruct *cudnnAttnDescriptor_t;

/* Allocates a multi-head attention descriptor. */
cudnnStatus_t CUDNNWINAPI
cudnnCreateAttnDescriptor(cudnnAttnDescriptor_t *attnDesc);

/* Frees a multi-head attention descriptor (dropout descriptors it refers to are not freed). */
cudnnStatus_t CUDNNWINAPI
cudnnDestroyAttnDescriptor(cudnnAttnDescriptor_t attnDesc);

/* Configures attention: attnMode (CUDNN_ATTN_* bits); nHeads; smScaler (softmax scale, e.g.
 * 1/sqrt(head size)); data and compute precision, math type; dropout on the attention
 * weights and on the output (either may be NULL); q/k/vSize: input vector lengths;
 * q/k/v/oProjSize: projection sizes (0 = no projection); the maximum sequence lengths,
 * batch size and beam size the buffers are sized for. */
cudnnStatus_t CUDNNWINAPI
cudnnSetAttnDescriptor(cudnnAttnDescriptor_t attnDesc,
                       unsigned attnMode,
                       int nHeads,
                       double smScaler,
                       cudnnDataType_t dataType,
                       cudnnDataType_t computePrec,
                       cudnnMathType_t mathType,
                       cudnnDropoutDescriptor_t attnDropoutDesc,
                       cudnnDropoutDescriptor_t postDropoutDesc,
                       int qSize,
                       int kSize,
                       int vSize,
                       int qProjSize,
                       int kProjSize,
                       int vProjSize,
                       int oProjSize,
                       int qoMaxSeqLength,
                       int kvMaxSeqLength,
                       int maxBatchSize,
                       int maxBeamSize);

/* Reads back every attention setting. */
cudnnStatus_t CUDNNWINAPI
cudnnGetAttnDescriptor(cudnnAttnDescriptor_t attnDesc,
                       unsigned *attnMode,
                       int *nHeads,
                       double *smScaler,
                       cudnnDataType_t *dataType,
                       cudnnDataType_t *computePrec,
                       cudnnMathType_t *mathType,
                       cudnnDropoutDescriptor_t *attnDropoutDesc,
                       cudnnDropoutDescriptor_t *postDropoutDesc,
                       int *qSize,
                       int *kSize,
                       int *vSize,
                       int *qProjSize,
                       int *kProjSize,
                       int *vProjSize,
                       int *oProjSize,
                       int *qoMaxSeqLength,
                       int *kvMaxSeqLength,
                       int *maxBatchSize,
                       int *maxBeamSize);

/* Sizes of the weight buffer, workspace and reserve space for attnDesc. Pass
 * reserveSpaceSizeInBytes = NULL for inference-only use (no reserve space). */
cudnnStatus_t CUDNNWINAPI
cudnnGetMultiHeadAttnBuffers(cudnnHandle_t handle,
                             const cudnnAttnDescriptor_t attnDesc,
                             size_t *weightSizeInBytes,
                             size_t *workSpaceSizeInBytes,
                             size_t *reserveSpaceSizeInBytes);

/* The weight and bias tensors inside the attention weight buffer. */
typedef enum {
    CUDNN_MH_ATTN_Q_WEIGHTS = 0,
    CUDNN_MH_ATTN_K_WEIGHTS = 1,
    CUDNN_MH_ATTN_V_WEIGHTS = 2,
    CUDNN_MH_ATTN_O_WEIGHTS = 3,
    CUDNN_MH_ATTN_Q_BIASES = 4,
    CUDNN_MH_ATTN_K_BIASES = 5,
    CUDNN_MH_ATTN_V_BIASES = 6,
    CUDNN_MH_ATTN_O_BIASES = 7,
} cudnnMultiHeadAttnWeightKind_t;

/* Number of cudnnMultiHeadAttnWeightKind_t values. */
#define CUDNN_ATTN_WKIND_COUNT 8

/* Locates tensor wKind inside the weight buffer: fills wDesc (created by the caller) with its
 * shape and sets *wAddr to its device address (NULL if the tensor is absent). */
cudnnStatus_t CUDNNWINAPI
cudnnGetMultiHeadAttnWeights(cudnnHandle_t handle,
                             const cudnnAttnDescriptor_t attnDesc,
                             cudnnMultiHeadAttnWeightKind_t wKind,
                             size_t weightSizeInBytes,
                             const void *weights,
                             cudnnTensorDescriptor_t wDesc,
                             void **wAddr);

/* Attention forward: out = attention(queries, keys, values) [+ residuals]. currIdx < 0
 * processes all query time steps (training / batch inference), currIdx >= 0 only that step;
 * loWinIdx/hiWinIdx (host, qoMaxSeqLength ints) bound the key window [lo, hi) of each query
 * step; devSeqLengthsQO/KV are device int arrays; residuals may be NULL; reserveSpace must be
 * NULL in inference and is filled for the backward calls in training. */
cudnnStatus_t CUDNNWINAPI
cudnnMultiHeadAttnForward(cudnnHandle_t handle,
                          const cudnnAttnDescriptor_t attnDesc,
                          int currIdx,
                          const int loWinIdx[],
                          const int hiWinIdx[],
                          const int devSeqLengthsQO[],
                          const int devSeqLengthsKV[],
                          const cudnnSeqDataDescriptor_t qDesc,
                          const void *queries,
                          const void *residuals,
                          const cudnnSeqDataDescriptor_t kDesc,
                          const void *keys,
                          const cudnnSeqDataDescriptor_t vDesc,
                          const void *values,
                          const cudnnSeqDataDescriptor_t oDesc,
                          void *out,
                          size_t weightSizeInBytes,
                          const void *weights,
                          size_t workSpaceSizeInBytes,
                          void *workSpace,
                          size_t reserveSpaceSizeInBytes,
                          void *reserveSpace);

/* Attention data gradients dqueries, dkeys, dvalues from dout; follows a training-mode
 * forward with the same reserve space. */
cudnnStatus_t CUDNNWINAPI
cudnnMultiHeadAttnBackwardData(cudnnHandle_t handle,
                               const cudnnAttnDescriptor_t attnDesc,
                               const int loWinIdx[],
                               const int hiWinIdx[],
                               const int devSeqLengthsDQDO[],
                               const int devSeqLengthsDKDV[],
                               const cudnnSeqDataDescriptor_t doDesc,
                               const void *dout,
                               const cudnnSeqDataDescriptor_t dqDesc,
                               void *dqueries,
                               const void *queries,
                               const cudnnSeqDataDescriptor_t dkDesc,
                               void *dkeys,
                               const void *keys,
                               const cudnnSeqDataDescriptor_t dvDesc,
                               void *dvalues,
                               const void *values,
                               size_t weightSizeInBytes,
                               const void *weights,
                               size_t workSpaceSizeInBytes,
                               void *workSpace,
                               size_t reserveSpaceSizeInBytes,
                               void *reserveSpace);

/* Attention weight gradients into dweights (added or written per addGrad); runs after
 * cudnnMultiHeadAttnBackwardData. */
cudnnStatus_t CUDNNWINAPI
cudnnMultiHeadAttnBackwardWeights(cudnnHandle_t handle,
                                  const cudnnAttnDescriptor_t attnDesc,
                                  cudnnWgradMode_t addGrad,
                                  const cudnnSeqDataDescriptor_t qDesc,
                                  const void *queries,
                                  const cudnnSeqDataDescriptor_t kDesc,
                                  const void *keys,
                                  const cudnnSeqDataDescriptor_t vDesc,
                                  const void *values,
                                  const cudnnSeqDataDescriptor_t doDesc,
                                  const void *dout,
                                  size_t weightSizeInBytes,
                                  const void *weights,
                                  void *dweights,
                                  size_t workSpaceSizeInBytes,
                                  void *workSpace,
                                  size_t reserveSpaceSizeInBytes,
                                  void *reserveSpace);

/* ======================================================================================== */
/* CTC loss                                                                                  */
/* ======================================================================================== */
/* probs/gradients are [T, N, A] tensors (time steps, mini-batch, alphabet size including the
 * blank, label 0); costs is a device array of N losses. (cudnnCTCLossAlgo_t is defined in
 * cudnn_ops.h and cudnnCTCGradMode_t in cudnn_graph.h.) */

/* How probs is interpreted: NONE - probs already holds normalised (softmax) probabilities;
 * SOFTMAX - probs holds unnormalised activations and the softmax is applied internally. */
typedef enum {
    CUDNN_LOSS_NORMALIZATION_NONE = 0,
    CUDNN_LOSS_NORMALIZATION_SOFTMAX = 1,
} cudnnLossNormalizationMode_t;

/* Allocates a CTC loss descriptor. */
cudnnStatus_t CUDNNWINAPI
cudnnCreateCTCLossDescriptor(cudnnCTCLossDescriptor_t *ctcLossDesc);

/* Sets the compute type only (cuDNN 7.0 form). */
cudnnStatus_t CUDNNWINAPI
cudnnSetCTCLossDescriptor(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t compType);

/* Sets compute type, input normalisation and gradMode, which decides how gradients of
 * samples whose labels cannot be aligned to their input length are reported. */
cudnnStatus_t CUDNNWINAPI
cudnnSetCTCLossDescriptorEx(cudnnCTCLossDescriptor_t ctcLossDesc,
                            cudnnDataType_t compType,
                            cudnnLossNormalizationMode_t normMode,
                            cudnnNanPropagation_t gradMode);

/* cuDNN 8 setter: as the Ex form plus maxLabelLength, the longest label the workspace of the
 * _v8 calls is sized for. */
cudnnStatus_t CUDNNWINAPI
cudnnSetCTCLossDescriptor_v8(cudnnCTCLossDescriptor_t ctcLossDesc,
                             cudnnDataType_t compType,
                             cudnnLossNormalizationMode_t normMode,
                             cudnnNanPropagation_t gradMode,
                             int maxLabelLength);

/* cuDNN 9 setter: gradient handling for infeasible samples is a cudnnCTCGradMode_t. */
cudnnStatus_t CUDNNWINAPI
cudnnSetCTCLossDescriptor_v9(cudnnCTCLossDescriptor_t ctcLossDesc,
                             cudnnDataType_t compType,
                             cudnnLossNormalizationMode_t normMode,
                             cudnnCTCGradMode_t ctcGradMode,
                             int maxLabelLength);

/* Reads back the compute type. */
cudnnStatus_t CUDNNWINAPI
cudnnGetCTCLossDescriptor(cudnnCTCLossDescriptor_t ctcLossDesc, cudnnDataType_t *compType);

/* Reads back compute type, normalisation and gradient mode. */
cudnnStatus_t CUDNNWINAPI
cudnnGetCTCLossDescriptorEx(cudnnCTCLossDescriptor_t ctcLossDesc,
                            cudnnDataType_t *compType,
                            cudnnLossNormalizationMode_t *normMode,
                            cudnnNanPropagation_t *gradMode);

/* Reads back the cuDNN 8 settings. */
cudnnStatus_t CUDNNWINAPI
cudnnGetCTCLossDescriptor_v8(cudnnCTCLossDescriptor_t ctcLossDesc,
                             cudnnDataType_t *compType,
                             cudnnLossNormalizationMode_t *normMode,
                             cudnnNanPropagation_t *gradMode,
                             int *maxLabelLength);

/* Reads back the cuDNN 9 settings. */
cudnnStatus_t CUDNNWINAPI
cudnnGetCTCLossDescriptor_v9(cudnnCTCLossDescriptor_t ctcLossDesc,
                             cudnnDataType_t *compType,
                             cudnnLossNormalizationMode_t *normMode,
                             cudnnCTCGradMode_t *ctcGradMode,
                             int *maxLabelLength);

/* Frees a CTC loss descriptor. */
cudnnStatus_t CUDNNWINAPI
cudnnDestroyCTCLossDescriptor(cudnnCTCLossDescriptor_t ctcLossDesc);

/* CTC loss and (if gradients is not NULL) its gradient. Labels are in HOST memory:
 * hostLabels is the concatenation of all N label sequences, hostLabelLengths and
 * hostInputLengths have N entries each. */
cudnnStatus_t CUDNNWINAPI
cudnnCTCLoss(cudnnHandle_t handle,
             const cudnnTensorDescriptor_t probsDesc,
             const void *probs,
             const int hostLabels[],
             const int hostLabelLengths[],
             const int hostInputLengths[],
             void *costs,
             const cudnnTensorDescriptor_t gradientsDesc,
             void *gradients,
             cudnnCTCLossAlgo_t algo,
             cudnnCTCLossDescriptor_t ctcLossDesc,
             void *workspace,
             size_t workSpaceSizeInBytes);

/* cuDNN 8 CTC loss: as cudnnCTCLoss but labels, labelLengths and inputLengths are DEVICE
 * arrays, and the workspace is sized from the descriptor's maxLabelLength. */
cudnnStatus_t CUDNNWINAPI
cudnnCTCLoss_v8(cudnnHandle_t handle,
                cudnnCTCLossAlgo_t algo,
                cudnnCTCLossDescriptor_t ctcLossDesc,
                const cudnnTensorDescriptor_t probsDesc,
                const void *probs,
                const int labels[],
                const int labelLengths[],
                const int inputLengths[],
                void *costs,
                const cudnnTensorDescriptor_t gradientsDesc,
                void *gradients,
                size_t workSpaceSizeInBytes,
                void *workspace);

/* Workspace bytes for cudnnCTCLoss; labels and lengths are host arrays as there. Pass
 * gradientsDesc = NULL when only costs will be computed. */
cudnnStatus_t CUDNNWINAPI
cudnnGetCTCLossWorkspaceSize(cudnnHandle_t handle,
                             const cudnnTensorDescriptor_t probsDesc,
                             const cudnnTensorDescriptor_t gradientsDesc,
                             const int *labels,
                             const int *labelLengths,
                             const int *inputLengths,
                             cudnnCTCLossAlgo_t algo,
                             cudnnCTCLossDescriptor_t ctcLossDesc,
                             size_t *sizeInBytes);

/* Workspace bytes for cudnnCTCLoss_v8 (depends on the descriptor's maxLabelLength, not on the
 * labels themselves). */
cudnnStatus_t CUDNNWINAPI
cudnnGetCTCLossWorkspaceSize_v8(cudnnHandle_t handle,
                                cudnnCTCLossAlgo_t algo,
                                cudnnCTCLossDescriptor_t ctcLossDesc,
                                const cudnnTensorDescriptor_t probsDesc,
                                const cudnnTensorDescriptor_t gradientsDesc,
                                size_t *sizeInBytes);

/* ======================================================================================== */
/* Version check                                                                             */
/* ======================================================================================== */

/* Checks that this part of the library matches the core it is loaded with; always
 * CUDNN_STATUS_SUCCESS in freednn, which is built as one library. */
cudnnStatus_t CUDNNWINAPI
cudnnAdvVersionCheck(void);

#if defined(__cplusplus)
}
#endif

#endif /* CUDNN_ADV_H_ */
