/* SPDX-License-Identifier: MIT */
/*
 * cudnn_ops.h - freednn: classic cuDNN tensor operations that are not convolutions or RNNs.
 *
 * Contents, in order: descriptor handle types; algorithm enums shared with cudnn_cnn.h and
 * cudnn_adv.h; tensor descriptors; tensor layout transforms; elementwise tensor ops; reductions;
 * filter descriptors; softmax; pooling; activation; LRN and divisive normalization; batch
 * normalization; the generic normalization API; spatial transformer; dropout; the cuDNN 7
 * algorithm descriptor / performance / persistence API (dropped by cuDNN 9, kept by freednn).
 *
 * Conventions used by every function below:
 *  - All functions return a cudnnStatus_t unless stated otherwise.
 *  - Descriptors are opaque; dimension and parameter arrays passed to setters/getters (dimA,
 *    strideA, padA, ...) are host arrays, listed outermost dimension first. Strides and sizes of
 *    tensors are counted in elements unless the name says "InBytes".
 *  - Blending: compute functions write dst = alpha * result + beta * dst. alpha and beta (and
 *    every other scaling factor) point to HOST memory holding a double when the tensors are
 *    CUDNN_DATA_DOUBLE and a float otherwise. With beta == 0 the prior content of dst is not
 *    read (NaN/garbage there is harmless).
 *  - Tensor data, workspace, reserve space and dropout-state pointers refer to memory of the
 *    handle's compute backend: GPU memory for a CUDA handle (as in cuDNN), host memory for
 *    freednn's host backends. Work is ordered on the handle's stream.
 *  - "Workspace" is scratch memory needed only during one call; "reserve space" carries data
 *    from a training forward call to the matching backward call and must not be modified between.
 */
#ifndef CUDNN_OPS_H_
#define CUDNN_OPS_H_

#include <stddef.h>
#include <stdint.h>

#include "cudnn_version.h"
#include "cudnn_graph.h"

/* Per-sub-library version numbers; always equal to the interface version. */
#define CUDNN_OPS_MAJOR CUDNN_MAJOR
#define CUDNN_OPS_MINOR CUDNN_MINOR
#define CUDNN_OPS_PATCH CUDNN_PATCHLEVEL

#if defined(__cplusplus)
extern "C" {
#endif

/* ============================================================================================ */
/* Descriptor handles (pointers to opaque structs; create, set, use, destroy)                   */
/* ============================================================================================ */

typedef struct cudnnTensorStruct *cudnnTensorDescriptor_t;                   /* n-d tensor shape, strides, type */
typedef struct cudnnTensorTransformStruct *cudnnTensorTransformDescriptor_t; /* pad/fold/layout change */
typedef struct cudnnOpTensorStruct *cudnnOpTensorDescriptor_t;               /* binary elementwise op */
typedef struct cudnnReduceTensorStruct *cudnnReduceTensorDescriptor_t;       /* reduction */
typedef struct cudnnFilterStruct *cudnnFilterDescriptor_t;                   /* convolution weights */
typedef struct cudnnPoolingStruct *cudnnPoolingDescriptor_t;                 /* pooling window */
typedef struct cudnnActivationStruct *cudnnActivationDescriptor_t;           /* nonlinearity */
typedef struct cudnnLRNStruct *cudnnLRNDescriptor_t;                         /* LRN / divisive norm */
typedef struct cudnnSpatialTransformerStruct *cudnnSpatialTransformerDescriptor_t;
typedef struct cudnnDropoutStruct *cudnnDropoutDescriptor_t;                 /* dropout rate + RNG */
typedef struct cudnnCTCLossStruct *cudnnCTCLossDescriptor_t;                 /* CTC loss (cudnn_adv.h) */
typedef struct cudnnAlgorithmStruct *cudnnAlgorithmDescriptor_t;             /* one chosen algorithm */
typedef struct cudnnAlgorithmPerformanceStruct *cudnnAlgorithmPerformance_t; /* measured algorithm */

/* ============================================================================================ */
/* Algorithm enums shared by several headers                                                    */
/* ============================================================================================ */

/* Whether an algorithm gives bitwise-identical results from run to run. */
typedef enum {
    CUDNN_NON_DETERMINISTIC = 0, /* may vary (e.g. atomic accumulation order) */
    CUDNN_DETERMINISTIC = 1      /* reproducible */
} cudnnDeterminism_t;

/* Forward convolution algorithms (cudnnConvolutionForward and friends, cudnn_cnn.h). */
typedef enum {
    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM = 0,         /* GEMM without materialising im2col */
    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1, /* ... with precomputed indices (workspace) */
    CUDNN_CONVOLUTION_FWD_ALGO_GEMM = 2,                  /* explicit im2col + GEMM */
    CUDNN_CONVOLUTION_FWD_ALGO_DIRECT = 3,                /* direct loops */
    CUDNN_CONVOLUTION_FWD_ALGO_FFT = 4,                   /* FFT over the whole image */
    CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING = 5,            /* FFT over tiles */
    CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD = 6,              /* fused Winograd */
    CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED = 7,     /* Winograd with separate transforms */
    CUDNN_CONVOLUTION_FWD_ALGO_COUNT = 8                  /* number of values above */
} cudnnConvolutionFwdAlgo_t;

/* Algorithms computing the filter gradient (cudnnConvolutionBackwardFilter). */
typedef enum {
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0 = 0,                 /* GEMM-like, sums with atomics (non-deterministic) */
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 = 1,                 /* GEMM-like, deterministic */
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT = 2,
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3 = 3,                 /* like ALGO_0 with workspace (non-deterministic) */
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD = 4,          /* listed for completeness; never offered */
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED = 5,
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING = 6,
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT = 7              /* number of values above */
} cudnnConvolutionBwdFilterAlgo_t;

/* Algorithms computing the input (data) gradient (cudnnConvolutionBackwardData). */
typedef enum {
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_0 = 0,                 /* sums with atomics (non-deterministic) */
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_1 = 1,                 /* deterministic */
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT = 2,
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING = 3,
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD = 4,
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED = 5,
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT = 6              /* number of values above */
} cudnnConvolutionBwdDataAlgo_t;

/* RNN implementation strategy (cudnn_adv.h). */
typedef enum {
    CUDNN_RNN_ALGO_STANDARD = 0,               /* one GEMM sequence per step */
    CUDNN_RNN_ALGO_PERSIST_STATIC = 1,         /* persistent kernel, weights kept on chip */
    CUDNN_RNN_ALGO_PERSIST_DYNAMIC = 2,        /* persistent kernel generated at run time */
    CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H = 3, /* persistent variant for small hidden sizes */
    CUDNN_RNN_ALGO_COUNT = 4                   /* number of values above (was 3 in cuDNN 7) */
} cudnnRNNAlgo_t;

/* CTC loss implementation (cudnn_adv.h). */
typedef enum {
    CUDNN_CTC_LOSS_ALGO_DETERMINISTIC = 0,
    CUDNN_CTC_LOSS_ALGO_NON_DETERMINISTIC = 1
} cudnnCTCLossAlgo_t;

/* A chosen algorithm of any of the kinds above, as stored in a cudnnAlgorithmDescriptor_t.
 * The member that is meaningful depends on the operation the descriptor is used with. */
typedef struct {
    union Algorithm {
        cudnnConvolutionFwdAlgo_t convFwdAlgo;
        cudnnConvolutionBwdFilterAlgo_t convBwdFilterAlgo;
        cudnnConvolutionBwdDataAlgo_t convBwdDataAlgo;
        cudnnRNNAlgo_t RNNAlgo;
        cudnnCTCLossAlgo_t CTCLossAlgo;
    } algo;
} cudnnAlgorithm_t;

/* ============================================================================================ */
/* Tensor descriptors                                                                           */
/* ============================================================================================ */

/* Allocate an empty tensor descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *tensorDesc);

/* Describe a packed 4-d tensor of n images, c channels, h rows, w columns; the strides follow
 * from format (NCHW or NHWC; NCHW_VECT_C requires a vectorised dataType). */
cudnnStatus_t CUDNNWINAPI cudnnSetTensor4dDescriptor(
    cudnnTensorDescriptor_t tensorDesc,
    cudnnTensorFormat_t format,
    cudnnDataType_t dataType,
    int n,
    int c,
    int h,
    int w);

/* Describe a 4-d tensor with explicit element strides (allows padding and arbitrary layouts). */
cudnnStatus_t CUDNNWINAPI cudnnSetTensor4dDescriptorEx(
    cudnnTensorDescriptor_t tensorDesc,
    cudnnDataType_t dataType,
    int n,
    int c,
    int h,
    int w,
    int nStride,
    int cStride,
    int hStride,
    int wStride);

/* Read back type, dimensions and strides of a tensor of 4 dimensions. */
cudnnStatus_t CUDNNWINAPI cudnnGetTensor4dDescriptor(
    const cudnnTensorDescriptor_t tensorDesc,
    cudnnDataType_t *dataType,
    int *n,
    int *c,
    int *h,
    int *w,
    int *nStride,
    int *cStride,
    int *hStride,
    int *wStride);

/* Describe an nbDims-dimensional tensor (nbDims <= CUDNN_DIM_MAX) from host arrays of extents and
 * element strides. Tensors of fewer than 4 dimensions are best expressed as 4-d with unit dims. */
cudnnStatus_t CUDNNWINAPI cudnnSetTensorNdDescriptor(
    cudnnTensorDescriptor_t tensorDesc,
    cudnnDataType_t dataType,
    int nbDims,
    const int dimA[],
    const int strideA[]);

/* Describe a packed nbDims-dimensional tensor whose strides follow from format (NCHW means
 * dimension order N, C, spatial...; NHWC puts C innermost). */
cudnnStatus_t CUDNNWINAPI cudnnSetTensorNdDescriptorEx(
    cudnnTensorDescriptor_t tensorDesc,
    cudnnTensorFormat_t format,
    cudnnDataType_t dataType,
    int nbDims,
    const int dimA[]);

/* Read back a tensor descriptor: *nbDims receives the true rank; at most nbDimsRequested entries
 * are written to dimA and strideA. */
cudnnStatus_t CUDNNWINAPI cudnnGetTensorNdDescriptor(
    const cudnnTensorDescriptor_t tensorDesc,
    int nbDimsRequested,
    cudnnDataType_t *dataType,
    int *nbDims,
    int dimA[],
    int strideA[]);

/* Bytes of memory a tensor with this shape and these strides spans (what to allocate). */
cudnnStatus_t CUDNNWINAPI cudnnGetTensorSizeInBytes(const cudnnTensorDescriptor_t tensorDesc, size_t *size);

/* Free a tensor descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc);

/* ============================================================================================ */
/* Tensor layout transforms (padding, folding, format conversion)                               */
/* ============================================================================================ */

/* Direction of a folding transform. */
typedef enum {
    CUDNN_TRANSFORM_FOLD = 0U,  /* split spatial dims by foldA factors into the batch dimension */
    CUDNN_TRANSFORM_UNFOLD = 1U /* the inverse */
} cudnnFoldingDirection_t;

/* Allocate an empty tensor transform descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnCreateTensorTransformDescriptor(cudnnTensorTransformDescriptor_t *transformDesc);

/* Configure a transform for tensors of nbDims dimensions: output layout destFormat, per-spatial-
 * dimension padding before/after and fold factors (host arrays; NULL means none), and the fold
 * direction. */
cudnnStatus_t CUDNNWINAPI cudnnSetTensorTransformDescriptor(
    cudnnTensorTransformDescriptor_t transformDesc,
    const uint32_t nbDims,
    const cudnnTensorFormat_t destFormat,
    const int32_t padBeforeA[],
    const int32_t padAfterA[],
    const uint32_t foldA[],
    const cudnnFoldingDirection_t direction);

/* Read back a transform descriptor (up to nbDimsRequested entries per array). */
cudnnStatus_t CUDNNWINAPI cudnnGetTensorTransformDescriptor(
    cudnnTensorTransformDescriptor_t transformDesc,
    uint32_t nbDimsRequested,
    cudnnTensorFormat_t *destFormat,
    int32_t padBeforeA[],
    int32_t padAfterA[],
    uint32_t foldA[],
    cudnnFoldingDirection_t *direction);

/* Free a tensor transform descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnDestroyTensorTransformDescriptor(cudnnTensorTransformDescriptor_t transformDesc);

/* Fill destDesc with the tensor that transformDesc produces from srcDesc, and report its size in
 * bytes in *destSizeInBytes. */
cudnnStatus_t CUDNNWINAPI cudnnInitTransformDest(const cudnnTensorTransformDescriptor_t transformDesc,
                                                 const cudnnTensorDescriptor_t srcDesc,
                                                 cudnnTensorDescriptor_t destDesc,
                                                 size_t *destSizeInBytes);

/* y = alpha * x + beta * y between two tensors of equal dimensions but possibly different
 * strides/layout (e.g. NCHW <-> NHWC, or into a padded buffer). */
cudnnStatus_t CUDNNWINAPI cudnnTransformTensor(cudnnHandle_t handle,
                                               const void *alpha,
                                               const cudnnTensorDescriptor_t xDesc,
                                               const void *x,
                                               const void *beta,
                                               const cudnnTensorDescriptor_t yDesc,
                                               void *y);

/* destData = alpha * transform(srcData) + beta * destData, applying padding/folding/format change
 * of transDesc (destDesc as produced by cudnnInitTransformDest). */
cudnnStatus_t CUDNNWINAPI cudnnTransformTensorEx(cudnnHandle_t handle,
                                                 const cudnnTensorTransformDescriptor_t transDesc,
                                                 const void *alpha,
                                                 const cudnnTensorDescriptor_t srcDesc,
                                                 const void *srcData,
                                                 const void *beta,
                                                 const cudnnTensorDescriptor_t destDesc,
                                                 void *destData);

/* ============================================================================================ */
/* Elementwise tensor operations                                                                */
/* ============================================================================================ */

/* C = alpha * A + beta * C. Each dimension of A equals C's or is 1 (A is broadcast), which makes
 * this the usual bias addition. */
cudnnStatus_t CUDNNWINAPI cudnnAddTensor(cudnnHandle_t handle,
                                         const void *alpha,
                                         const cudnnTensorDescriptor_t aDesc,
                                         const void *A,
                                         const void *beta,
                                         const cudnnTensorDescriptor_t cDesc,
                                         void *C);

/* Binary (or unary) pointwise operator of cudnnOpTensor. */
typedef enum {
    CUDNN_OP_TENSOR_ADD = 0,  /* a + b */
    CUDNN_OP_TENSOR_MUL = 1,  /* a * b */
    CUDNN_OP_TENSOR_MIN = 2,  /* min(a, b) */
    CUDNN_OP_TENSOR_MAX = 3,  /* max(a, b) */
    CUDNN_OP_TENSOR_SQRT = 4, /* sqrt(a); B unused */
    CUDNN_OP_TENSOR_NOT = 5   /* 1 - a; B unused */
} cudnnOpTensorOp_t;

/* Allocate an empty op-tensor descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnCreateOpTensorDescriptor(cudnnOpTensorDescriptor_t *opTensorDesc);

/* Set the operator, the compute precision (FLOAT or DOUBLE) and NaN handling for min/max. */
cudnnStatus_t CUDNNWINAPI cudnnSetOpTensorDescriptor(
    cudnnOpTensorDescriptor_t opTensorDesc,
    cudnnOpTensorOp_t opTensorOp,
    cudnnDataType_t opTensorCompType,
    cudnnNanPropagation_t opTensorNanOpt);

/* Read back an op-tensor descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnGetOpTensorDescriptor(
    const cudnnOpTensorDescriptor_t opTensorDesc,
    cudnnOpTensorOp_t *opTensorOp,
    cudnnDataType_t *opTensorCompType,
    cudnnNanPropagation_t *opTensorNanOpt);

/* Free an op-tensor descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnDestroyOpTensorDescriptor(cudnnOpTensorDescriptor_t opTensorDesc);

/* C = op(alpha1 * A, alpha2 * B) + beta * C. A has C's dimensions; each dimension of B equals
 * C's or is 1 (B is broadcast). B is ignored for SQRT and NOT. */
cudnnStatus_t CUDNNWINAPI cudnnOpTensor(cudnnHandle_t handle,
                                        const cudnnOpTensorDescriptor_t opTensorDesc,
                                        const void *alpha1,
                                        const cudnnTensorDescriptor_t aDesc,
                                        const void *A,
                                        const void *alpha2,
                                        const cudnnTensorDescriptor_t bDesc,
                                        const void *B,
                                        const void *beta,
                                        const cudnnTensorDescriptor_t cDesc,
                                        void *C);

/* Set every element of y to *valuePtr (host pointer to one value of y's data type). */
cudnnStatus_t CUDNNWINAPI cudnnSetTensor(cudnnHandle_t handle,
                                         const cudnnTensorDescriptor_t yDesc,
                                         void *y,
                                         const void *valuePtr);

/* y = *alpha * y, element by element. */
cudnnStatus_t CUDNNWINAPI cudnnScaleTensor(cudnnHandle_t handle,
                                           const cudnnTensorDescriptor_t yDesc,
                                           void *y,
                                           const void *alpha);

/* ============================================================================================ */
/* Reductions                                                                                   */
/* ============================================================================================ */

/* Whether cudnnReduceTensor also outputs the position of the selected element (MIN/MAX/AMAX). */
typedef enum {
    CUDNN_REDUCE_TENSOR_NO_INDICES = 0,
    CUDNN_REDUCE_TENSOR_FLATTENED_INDICES = 1 /* index into the flattened reduced sub-tensor */
} cudnnReduceTensorIndices_t;

/* Integer width of the indices buffer (all unsigned). */
typedef enum {
    CUDNN_32BIT_INDICES = 0,
    CUDNN_64BIT_INDICES = 1,
    CUDNN_16BIT_INDICES = 2,
    CUDNN_8BIT_INDICES = 3
} cudnnIndicesType_t;

/* Allocate an empty reduction descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnCreateReduceTensorDescriptor(cudnnReduceTensorDescriptor_t *reduceTensorDesc);

/* Set the reduction operator, compute precision, NaN handling (MIN/MAX/AMAX only), whether indices
 * are produced, and their width. */
cudnnStatus_t CUDNNWINAPI cudnnSetReduceTensorDescriptor(
    cudnnReduceTensorDescriptor_t reduceTensorDesc,
    cudnnReduceTensorOp_t reduceTensorOp,
    cudnnDataType_t reduceTensorCompType,
    cudnnNanPropagation_t reduceTensorNanOpt,
    cudnnReduceTensorIndices_t reduceTensorIndices,
    cudnnIndicesType_t reduceTensorIndicesType);

/* Read back a reduction descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnGetReduceTensorDescriptor(
    const cudnnReduceTensorDescriptor_t reduceTensorDesc,
    cudnnReduceTensorOp_t *reduceTensorOp,
    cudnnDataType_t *reduceTensorCompType,
    cudnnNanPropagation_t *reduceTensorNanOpt,
    cudnnReduceTensorIndices_t *reduceTensorIndices,
    cudnnIndicesType_t *reduceTensorIndicesType);

/* Free a reduction descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnDestroyReduceTensorDescriptor(cudnnReduceTensorDescriptor_t reduceTensorDesc);

/* Minimum size in bytes of the indices buffer cudnnReduceTensor needs for A -> C (0 if none). */
cudnnStatus_t CUDNNWINAPI cudnnGetReductionIndicesSize(
    cudnnHandle_t handle,
    const cudnnReduceTensorDescriptor_t reduceTensorDesc,
    const cudnnTensorDescriptor_t aDesc,
    const cudnnTensorDescriptor_t cDesc,
    size_t *sizeInBytes);

/* Minimum size in bytes of the workspace cudnnReduceTensor needs for A -> C. */
cudnnStatus_t CUDNNWINAPI cudnnGetReductionWorkspaceSize(
    cudnnHandle_t handle,
    const cudnnReduceTensorDescriptor_t reduceTensorDesc,
    const cudnnTensorDescriptor_t aDesc,
    const cudnnTensorDescriptor_t cDesc,
    size_t *sizeInBytes);

/* C = alpha * reduce(A) + beta * C: every dimension where C has extent 1 and A does not is
 * reduced. indices (may be NULL when not requested) receives flattened positions for MIN, MAX
 * and AMAX; other operators ignore it. */
cudnnStatus_t CUDNNWINAPI cudnnReduceTensor(cudnnHandle_t handle,
                                            const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                            void *indices,
                                            size_t indicesSizeInBytes,
                                            void *workspace,
                                            size_t workspaceSizeInBytes,
                                            const void *alpha,
                                            const cudnnTensorDescriptor_t aDesc,
                                            const void *A,
                                            const void *beta,
                                            const cudnnTensorDescriptor_t cDesc,
                                            void *C);

/* ============================================================================================ */
/* Filter (convolution weight) descriptors                                                      */
/* ============================================================================================ */

/* Allocate an empty filter descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *filterDesc);

/* Describe a packed 4-d filter: k output channels, c input channels (per group), h x w kernel.
 * format NCHW stores KCRS order, NHWC stores KRSC. */
cudnnStatus_t CUDNNWINAPI cudnnSetFilter4dDescriptor(
    cudnnFilterDescriptor_t filterDesc,
    cudnnDataType_t dataType,
    cudnnTensorFormat_t format,
    int k,
    int c,
    int h,
    int w);

/* Read back a 4-d filter descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnGetFilter4dDescriptor(
    const cudnnFilterDescriptor_t filterDesc,
    cudnnDataType_t *dataType,
    cudnnTensorFormat_t *format,
    int *k,
    int *c,
    int *h,
    int *w);

/* Describe a packed nbDims-dimensional filter; filterDimA = {K, C, spatial...} (host array). */
cudnnStatus_t CUDNNWINAPI cudnnSetFilterNdDescriptor(
    cudnnFilterDescriptor_t filterDesc,
    cudnnDataType_t dataType,
    cudnnTensorFormat_t format,
    int nbDims,
    const int filterDimA[]);

/* Read back a filter descriptor: *nbDims receives the rank, up to nbDimsRequested dims written. */
cudnnStatus_t CUDNNWINAPI cudnnGetFilterNdDescriptor(
    const cudnnFilterDescriptor_t filterDesc,
    int nbDimsRequested,
    cudnnDataType_t *dataType,
    cudnnTensorFormat_t *format,
    int *nbDims,
    int filterDimA[]);

/* Bytes of memory the filter occupies. */
cudnnStatus_t CUDNNWINAPI cudnnGetFilterSizeInBytes(const cudnnFilterDescriptor_t filterDesc, size_t *size);

/* destData = alpha * transform(srcData) + beta * destData for filters (layout change/padding). */
cudnnStatus_t CUDNNWINAPI cudnnTransformFilter(cudnnHandle_t handle,
                                               const cudnnTensorTransformDescriptor_t transDesc,
                                               const void *alpha,
                                               const cudnnFilterDescriptor_t srcDesc,
                                               const void *srcData,
                                               const void *beta,
                                               const cudnnFilterDescriptor_t destDesc,
                                               void *destData);

/* Free a filter descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc);

/* ============================================================================================ */
/* Softmax                                                                                      */
/* ============================================================================================ */

/* How the softmax is evaluated. */
typedef enum {
    CUDNN_SOFTMAX_FAST = 0,     /* exp(x) / sum exp(x), no overflow protection */
    CUDNN_SOFTMAX_ACCURATE = 1, /* subtracts the maximum first, avoiding overflow */
    CUDNN_SOFTMAX_LOG = 2       /* log-softmax: x - max - log(sum exp(x - max)) */
} cudnnSoftmaxAlgorithm_t;

/* Which elements one softmax normalises over. */
typedef enum {
    CUDNN_SOFTMAX_MODE_INSTANCE = 0, /* all of C, H, W (everything but N), per image */
    CUDNN_SOFTMAX_MODE_CHANNEL = 1   /* across C, separately for every (n, h, w) */
} cudnnSoftmaxMode_t;

/* y = alpha * softmax(x) + beta * y. */
cudnnStatus_t CUDNNWINAPI cudnnSoftmaxForward(cudnnHandle_t handle,
                                              cudnnSoftmaxAlgorithm_t algo,
                                              cudnnSoftmaxMode_t mode,
                                              const void *alpha,
                                              const cudnnTensorDescriptor_t xDesc,
                                              const void *x,
                                              const void *beta,
                                              const cudnnTensorDescriptor_t yDesc,
                                              void *y);

/* dx = alpha * d(softmax)/dx applied to dy + beta * dx, using the forward output y (same algo and
 * mode as the forward call). */
cudnnStatus_t CUDNNWINAPI cudnnSoftmaxBackward(cudnnHandle_t handle,
                                               cudnnSoftmaxAlgorithm_t algo,
                                               cudnnSoftmaxMode_t mode,
                                               const void *alpha,
                                               const cudnnTensorDescriptor_t yDesc,
                                               const void *y,
                                               const cudnnTensorDescriptor_t dyDesc,
                                               const void *dy,
                                               const void *beta,
                                               const cudnnTensorDescriptor_t dxDesc,
                                               void *dx);

/* ============================================================================================ */
/* Pooling                                                                                      */
/* ============================================================================================ */

/* Pooling function over each window. */
typedef enum {
    CUDNN_POOLING_MAX = 0,                           /* maximum */
    CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING = 1, /* mean; padded positions count as zeros */
    CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING = 2, /* mean over the in-image positions only */
    CUDNN_POOLING_MAX_DETERMINISTIC = 3              /* maximum, reproducible backward pass */
} cudnnPoolingMode_t;

/* Allocate an empty pooling descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t *poolingDesc);

/* Configure 2-d pooling: window size, zero padding on each side, and stride (rows, then columns). */
cudnnStatus_t CUDNNWINAPI cudnnSetPooling2dDescriptor(
    cudnnPoolingDescriptor_t poolingDesc,
    cudnnPoolingMode_t mode,
    cudnnNanPropagation_t maxpoolingNanOpt,
    int windowHeight,
    int windowWidth,
    int verticalPadding,
    int horizontalPadding,
    int verticalStride,
    int horizontalStride);

/* Read back a 2-d pooling descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnGetPooling2dDescriptor(
    const cudnnPoolingDescriptor_t poolingDesc,
    cudnnPoolingMode_t *mode,
    cudnnNanPropagation_t *maxpoolingNanOpt,
    int *windowHeight,
    int *windowWidth,
    int *verticalPadding,
    int *horizontalPadding,
    int *verticalStride,
    int *horizontalStride);

/* Configure pooling over nbDims spatial dimensions (host arrays of nbDims entries each). */
cudnnStatus_t CUDNNWINAPI cudnnSetPoolingNdDescriptor(
    cudnnPoolingDescriptor_t poolingDesc,
    const cudnnPoolingMode_t mode,
    const cudnnNanPropagation_t maxpoolingNanOpt,
    int nbDims,
    const int windowDimA[],
    const int paddingA[],
    const int strideA[]);

/* Read back an Nd pooling descriptor (up to nbDimsRequested entries per array). */
cudnnStatus_t CUDNNWINAPI cudnnGetPoolingNdDescriptor(
    const cudnnPoolingDescriptor_t poolingDesc,
    int nbDimsRequested,
    cudnnPoolingMode_t *mode,
    cudnnNanPropagation_t *maxpoolingNanOpt,
    int *nbDims,
    int windowDimA[],
    int paddingA[],
    int strideA[]);

/* Output dimensions of pooling inputTensorDesc: N and C kept, each spatial extent becomes
 * 1 + (in + 2 * pad - window) / stride. nbDims is the rank of the tensor (spatial dims + 2). */
cudnnStatus_t CUDNNWINAPI cudnnGetPoolingNdForwardOutputDim(
    const cudnnPoolingDescriptor_t poolingDesc,
    const cudnnTensorDescriptor_t inputTensorDesc,
    int nbDims,
    int outputTensorDimA[]);

/* 4-d version of cudnnGetPoolingNdForwardOutputDim. */
cudnnStatus_t CUDNNWINAPI cudnnGetPooling2dForwardOutputDim(
    const cudnnPoolingDescriptor_t poolingDesc,
    const cudnnTensorDescriptor_t inputTensorDesc,
    int *n,
    int *c,
    int *h,
    int *w);

/* Free a pooling descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t poolingDesc);

/* y = alpha * pool(x) + beta * y. */
cudnnStatus_t CUDNNWINAPI cudnnPoolingForward(cudnnHandle_t handle,
                                              const cudnnPoolingDescriptor_t poolingDesc,
                                              const void *alpha,
                                              const cudnnTensorDescriptor_t xDesc,
                                              const void *x,
                                              const void *beta,
                                              const cudnnTensorDescriptor_t yDesc,
                                              void *y);

/* dx = alpha * (gradient of pooling given dy) + beta * dx; needs the forward input x and output y
 * (max pooling routes dy to the position of the maximum). */
cudnnStatus_t CUDNNWINAPI cudnnPoolingBackward(cudnnHandle_t handle,
                                               const cudnnPoolingDescriptor_t poolingDesc,
                                               const void *alpha,
                                               const cudnnTensorDescriptor_t yDesc,
                                               const void *y,
                                               const cudnnTensorDescriptor_t dyDesc,
                                               const void *dy,
                                               const cudnnTensorDescriptor_t xDesc,
                                               const void *x,
                                               const void *beta,
                                               const cudnnTensorDescriptor_t dxDesc,
                                               void *dx);

/* ============================================================================================ */
/* Activation                                                                                   */
/* ============================================================================================ */

/* Allocate an activation descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t *activationDesc);

/* Set the nonlinearity and NaN handling; coef is the clipping ceiling for CLIPPED_RELU and the
 * alpha of ELU (ignored otherwise). */
cudnnStatus_t CUDNNWINAPI cudnnSetActivationDescriptor(
    cudnnActivationDescriptor_t activationDesc,
    cudnnActivationMode_t mode,
    cudnnNanPropagation_t reluNanOpt,
    double coef);

/* Read back an activation descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnGetActivationDescriptor(
    const cudnnActivationDescriptor_t activationDesc,
    cudnnActivationMode_t *mode,
    cudnnNanPropagation_t *reluNanOpt,
    double *coef);

/* Set beta of the SWISH activation, y = x * sigmoid(swish_beta * x). */
cudnnStatus_t CUDNNWINAPI cudnnSetActivationDescriptorSwishBeta(
    cudnnActivationDescriptor_t activationDesc,
    double swish_beta);

/* Read back the SWISH beta. */
cudnnStatus_t CUDNNWINAPI cudnnGetActivationDescriptorSwishBeta(
    cudnnActivationDescriptor_t activationDesc,
    double *swish_beta);

/* Free an activation descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t activationDesc);

/* y = alpha * act(x) + beta * y, elementwise; in place (x == y) allowed. */
cudnnStatus_t CUDNNWINAPI cudnnActivationForward(cudnnHandle_t handle,
                                                 cudnnActivationDescriptor_t activationDesc,
                                                 const void *alpha,
                                                 const cudnnTensorDescriptor_t xDesc,
                                                 const void *x,
                                                 const void *beta,
                                                 const cudnnTensorDescriptor_t yDesc,
                                                 void *y);

/* dx = alpha * act'(x) * dy + beta * dx, using forward input x and output y; in place
 * (dy == dx) allowed. */
cudnnStatus_t CUDNNWINAPI cudnnActivationBackward(cudnnHandle_t handle,
                                                  cudnnActivationDescriptor_t activationDesc,
                                                  const void *alpha,
                                                  const cudnnTensorDescriptor_t yDesc,
                                                  const void *y,
                                                  const cudnnTensorDescriptor_t dyDesc,
                                                  const void *dy,
                                                  const cudnnTensorDescriptor_t xDesc,
                                                  const void *x,
                                                  const void *beta,
                                                  const cudnnTensorDescriptor_t dxDesc,
                                                  void *dx);

/* ============================================================================================ */
/* Local response normalization and divisive normalization                                      */
/* ============================================================================================ */

/* Admissible LRN parameters: window size lrnN in [MIN_N, MAX_N], lrnK >= MIN_K,
 * lrnBeta >= MIN_BETA. */
#define CUDNN_LRN_MIN_N 1
#define CUDNN_LRN_MAX_N 16
#define CUDNN_LRN_MIN_K 1e-5
#define CUDNN_LRN_MIN_BETA 0.01

/* Dimension LRN normalises across. */
typedef enum {
    CUDNN_LRN_CROSS_CHANNEL_DIM1 = 0 /* across dimA[1] (channels) */
} cudnnLRNMode_t;

/* Variant of divisive normalization. */
typedef enum {
    CUDNN_DIVNORM_PRECOMPUTED_MEANS = 0 /* the caller supplies the local means (or NULL for zero) */
} cudnnDivNormMode_t;

/* Allocate an LRN descriptor initialised to lrnN = 5, lrnAlpha = 1e-4, lrnBeta = 0.75, lrnK = 2.0. */
cudnnStatus_t CUDNNWINAPI cudnnCreateLRNDescriptor(cudnnLRNDescriptor_t *normDesc);

/* Set the LRN parameters of y = x / (lrnK + lrnAlpha / lrnN * sum of x^2 over the window)^lrnBeta.
 * The window spans lrnN elements: floor((lrnN - 1) / 2) before the centre and the rest after. */
cudnnStatus_t CUDNNWINAPI cudnnSetLRNDescriptor(cudnnLRNDescriptor_t normDesc,
                                                unsigned lrnN,
                                                double lrnAlpha,
                                                double lrnBeta,
                                                double lrnK);

/* Read back the LRN parameters; any output pointer may be NULL to skip that value. */
cudnnStatus_t CUDNNWINAPI cudnnGetLRNDescriptor(cudnnLRNDescriptor_t normDesc,
                                                unsigned *lrnN,
                                                double *lrnAlpha,
                                                double *lrnBeta,
                                                double *lrnK);

/* Free an LRN descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnDestroyLRNDescriptor(cudnnLRNDescriptor_t lrnDesc);

/* y = alpha * LRN(x) + beta * y, normalising across channels. */
cudnnStatus_t CUDNNWINAPI cudnnLRNCrossChannelForward(
    cudnnHandle_t handle,
    cudnnLRNDescriptor_t normDesc,
    cudnnLRNMode_t lrnMode,
    const void *alpha,
    const cudnnTensorDescriptor_t xDesc,
    const void *x,
    const void *beta,
    const cudnnTensorDescriptor_t yDesc,
    void *y);

/* dx = alpha * (gradient of cross-channel LRN given dy) + beta * dx; needs forward x and y. */
cudnnStatus_t CUDNNWINAPI cudnnLRNCrossChannelBackward(
    cudnnHandle_t handle,
    cudnnLRNDescriptor_t normDesc,
    cudnnLRNMode_t lrnMode,
    const void *alpha,
    const cudnnTensorDescriptor_t yDesc,
    const void *y,
    const cudnnTensorDescriptor_t dyDesc,
    const void *dy,
    const cudnnTensorDescriptor_t xDesc,
    const void *x,
    const void *beta,
    const cudnnTensorDescriptor_t dxDesc,
    void *dx);

/* Spatial divisive normalization: y = alpha * D(x) + beta * y, where D divides each value of
 * (x - means) by the local standard deviation of its spatial neighbourhood (window and constants
 * from the LRN descriptor). The mean-subtraction part of local contrast normalization is left to
 * the caller through means (NULL means zero). temp and temp2 are scratch buffers shaped like x;
 * xDesc describes x, means, temp and temp2. */
cudnnStatus_t CUDNNWINAPI cudnnDivisiveNormalizationForward(
    cudnnHandle_t handle,
    cudnnLRNDescriptor_t normDesc,
    cudnnDivNormMode_t mode,
    const void *alpha,
    const cudnnTensorDescriptor_t xDesc,
    const void *x,
    const void *means,
    void *temp,
    void *temp2,
    const void *beta,
    const cudnnTensorDescriptor_t yDesc,
    void *y);

/* Gradients of divisive normalization: dx and (if dMeans is not NULL) the gradient with respect to
 * means, both described by dXdMeansDesc; xDesc describes x, means, dy, temp and temp2. */
cudnnStatus_t CUDNNWINAPI cudnnDivisiveNormalizationBackward(
    cudnnHandle_t handle,
    cudnnLRNDescriptor_t normDesc,
    cudnnDivNormMode_t mode,
    const void *alpha,
    const cudnnTensorDescriptor_t xDesc,
    const void *x,
    const void *means,
    const void *dy,
    void *temp,
    void *temp2,
    const void *beta,
    const cudnnTensorDescriptor_t dXdMeansDesc,
    void *dx,
    void *dMeans);

/* ============================================================================================ */
/* Batch normalization                                                                          */
/*                                                                                              */
/* Inference: y = bnScale * (x - mean) / sqrt(epsilon + variance) + bnBias, with one (scale, bias,  */
/* mean, variance) set per channel (SPATIAL) or per C x H x W position (PER_ACTIVATION). The       */
/* parameter tensors use the descriptor from cudnnDeriveBNTensorDescriptor; their element type is */
/* float for half/bfloat16/float data and double for double data.                                  */
/* ============================================================================================ */

/* Which elements share one set of normalization parameters. */
typedef enum {
    CUDNN_BATCHNORM_PER_ACTIVATION = 0,    /* parameters 1xCxHxW; statistics over N */
    CUDNN_BATCHNORM_SPATIAL = 1,           /* parameters 1xCx1x1; statistics over N, H, W */
    CUDNN_BATCHNORM_SPATIAL_PERSISTENT = 2 /* as SPATIAL, faster kernels, may overflow (see
                                              cudnnQueryRuntimeError) */
} cudnnBatchNormMode_t;

/* Smallest epsilon the batch normalization functions accept. */
#define CUDNN_BN_MIN_EPSILON 0.0

/* What the *Ex batch normalization functions fuse after the normalization. */
typedef enum {
    CUDNN_BATCHNORM_OPS_BN = 0,                /* y = BN(x) */
    CUDNN_BATCHNORM_OPS_BN_ACTIVATION = 1,     /* y = act(BN(x)) */
    CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION = 2  /* y = act(BN(x) + z) */
} cudnnBatchNormOps_t;

/* Fill derivedBnDesc with the shape and type of the scale/bias/mean/variance tensors that go with
 * data tensors shaped like xDesc in the given mode. */
cudnnStatus_t CUDNNWINAPI cudnnDeriveBNTensorDescriptor(
    cudnnTensorDescriptor_t derivedBnDesc,
    const cudnnTensorDescriptor_t xDesc,
    cudnnBatchNormMode_t mode);

/* Workspace bytes needed by cudnnBatchNormalizationForwardTrainingEx. */
cudnnStatus_t CUDNNWINAPI cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
    cudnnHandle_t handle,
    cudnnBatchNormMode_t mode,
    cudnnBatchNormOps_t bnOps,
    const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t zDesc,
    const cudnnTensorDescriptor_t yDesc,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
    const cudnnActivationDescriptor_t activationDesc,
    size_t *sizeInBytes);

/* Workspace bytes needed by cudnnBatchNormalizationBackwardEx. */
cudnnStatus_t CUDNNWINAPI cudnnGetBatchNormalizationBackwardExWorkspaceSize(
    cudnnHandle_t handle,
    cudnnBatchNormMode_t mode,
    cudnnBatchNormOps_t bnOps,
    const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t yDesc,
    const cudnnTensorDescriptor_t dyDesc,
    const cudnnTensorDescriptor_t dzDesc,
    const cudnnTensorDescriptor_t dxDesc,
    const cudnnTensorDescriptor_t dBnScaleBiasDesc,
    const cudnnActivationDescriptor_t activationDesc,
    size_t *sizeInBytes);

/* Reserve-space bytes that cudnnBatchNormalizationForwardTrainingEx hands to BackwardEx. */
cudnnStatus_t CUDNNWINAPI cudnnGetBatchNormalizationTrainingExReserveSpaceSize(
    cudnnHandle_t handle,
    cudnnBatchNormMode_t mode,
    cudnnBatchNormOps_t bnOps,
    const cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t xDesc,
    size_t *sizeInBytes);

/* Inference: normalise x with the stored estimatedMean/estimatedVariance; y = alpha * BN(x) +
 * beta * y. */
cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationForwardInference(
    cudnnHandle_t handle,
    cudnnBatchNormMode_t mode,
    const void *alpha,
    const void *beta,
    const cudnnTensorDescriptor_t xDesc,
    const void *x,
    const cudnnTensorDescriptor_t yDesc,
    void *y,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
    const void *bnScale,
    const void *bnBias,
    const void *estimatedMean,
    const void *estimatedVariance,
    double epsilon);

/* Training: normalise x with the batch statistics, y = alpha * BN(x) + beta * y, and update the
 * running averages: running = (1 - exponentialAverageFactor) * running + factor * batch (factor 1
 * on the first call; 1 / (1 + n) gives a cumulative average). The running variance uses the
 * unbiased batch variance. resultSaveMean / resultSaveInvVariance (both NULL or both set) receive
 * the batch mean and 1 / sqrt(var + epsilon) for the backward pass. epsilon >= CUDNN_BN_MIN_EPSILON. */
cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t handle,
    cudnnBatchNormMode_t mode,
    const void *alpha,
    const void *beta,
    const cudnnTensorDescriptor_t xDesc,
    const void *x,
    const cudnnTensorDescriptor_t yDesc,
    void *y,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
    const void *bnScale,
    const void *bnBias,
    double exponentialAverageFactor,
    void *resultRunningMean,
    void *resultRunningVariance,
    double epsilon,
    void *resultSaveMean,
    void *resultSaveInvVariance);

/* Training with optional fusion (bnOps): y = act(BN(x) [+ z]). Like ForwardTraining otherwise;
 * needs workspace and reserve space of the sizes queried above (reserve space passed on to
 * cudnnBatchNormalizationBackwardEx). */
cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationForwardTrainingEx(
    cudnnHandle_t handle,
    cudnnBatchNormMode_t mode,
    cudnnBatchNormOps_t bnOps,
    const void *alpha,
    const void *beta,
    const cudnnTensorDescriptor_t xDesc,
    const void *xData,
    const cudnnTensorDescriptor_t zDesc,
    const void *zData,
    const cudnnTensorDescriptor_t yDesc,
    void *yData,
    const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
    const void *bnScale,
    const void *bnBias,
    double exponentialAverageFactor,
    void *resultRunningMean,
    void *resultRunningVariance,
    double epsilon,
    void *resultSaveMean,
    void *resultSaveInvVariance,
    cudnnActivationDescriptor_t activationDesc,
    void *workspace,
    size_t workSpaceSizeInBytes,
    void *reserveSpace,
    size_t reserveSpaceSizeInBytes);

/* Backward: dx = alphaDataDiff * dBN/dx + betaDataDiff * dx, and scale/bias gradients
 * d = alphaParamDiff * grad + betaParamDiff * d. savedMean / savedInvVariance are the values saved
 * by the forward call (or both NULL: recomputed from x). Same epsilon as forward. */
cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationBackward(
    cudnnHandle_t handle,
    cudnnBatchNormMode_t mode,
    const void *alphaDataDiff,
    const void *betaDataDiff,
    const void *alphaParamDiff,
    const void *betaParamDiff,
    const cudnnTensorDescriptor_t xDesc,
    const void *x,
    const cudnnTensorDescriptor_t dyDesc,
    const void *dy,
    const cudnnTensorDescriptor_t dxDesc,
    void *dx,
    const cudnnTensorDescriptor_t dBnScaleBiasDesc,
    const void *bnScale,
    void *dBnScaleResult,
    void *dBnBiasResult,
    double epsilon,
    const void *savedMean,
    const void *savedInvVariance);

/* Backward of cudnnBatchNormalizationForwardTrainingEx: also back-propagates through the fused
 * activation (needs yData and bnBiasData) and writes dzData for the ADD variant. */
cudnnStatus_t CUDNNWINAPI cudnnBatchNormalizationBackwardEx(
    cudnnHandle_t handle,
    cudnnBatchNormMode_t mode,
    cudnnBatchNormOps_t bnOps,
    const void *alphaDataDiff,
    const void *betaDataDiff,
    const void *alphaParamDiff,
    const void *betaParamDiff,
    const cudnnTensorDescriptor_t xDesc,
    const void *xData,
    const cudnnTensorDescriptor_t yDesc,
    const void *yData,
    const cudnnTensorDescriptor_t dyDesc,
    const void *dyData,
    const cudnnTensorDescriptor_t dzDesc,
    void *dzData,
    const cudnnTensorDescriptor_t dxDesc,
    void *dxData,
    const cudnnTensorDescriptor_t dBnScaleBiasDesc,
    const void *bnScaleData,
    const void *bnBiasData,
    void *dBnScaleData,
    void *dBnBiasData,
    double epsilon,
    const void *savedMean,
    const void *savedInvVariance,
    cudnnActivationDescriptor_t activationDesc,
    void *workSpace,
    size_t workSpaceSizeInBytes,
    void *reserveSpace,
    size_t reserveSpaceSizeInBytes);

/* ============================================================================================ */
/* Generic normalization (cuDNN 8 API; same mathematics as batch normalization, with separate     */
/* descriptors for scale/bias and mean/variance). groupCnt is reserved and must be 1.              */
/* ============================================================================================ */

/* Which elements share one set of normalization parameters. */
typedef enum {
    CUDNN_NORM_PER_ACTIVATION = 0, /* parameters 1xCxHxW; statistics over N */
    CUDNN_NORM_PER_CHANNEL = 1     /* parameters 1xCx1x1; statistics over N, H, W */
} cudnnNormMode_t;

/* Implementation choice. */
typedef enum {
    CUDNN_NORM_ALGO_STANDARD = 0,
    CUDNN_NORM_ALGO_PERSIST = 1 /* persistent kernels (per-channel, limited shapes) */
} cudnnNormAlgo_t;

/* What is fused after the normalization. */
typedef enum {
    CUDNN_NORM_OPS_NORM = 0,               /* y = norm(x) */
    CUDNN_NORM_OPS_NORM_ACTIVATION = 1,    /* y = act(norm(x)) */
    CUDNN_NORM_OPS_NORM_ADD_ACTIVATION = 2 /* y = act(norm(x) + z) */
} cudnnNormOps_t;

/* Fill the scale/bias descriptor and the mean/variance descriptor matching data shaped like xDesc. */
cudnnStatus_t CUDNNWINAPI cudnnDeriveNormTensorDescriptor(
    cudnnTensorDescriptor_t derivedNormScaleBiasDesc,
    cudnnTensorDescriptor_t derivedNormMeanVarDesc,
    const cudnnTensorDescriptor_t xDesc,
    cudnnNormMode_t mode,
    int groupCnt);

/* Workspace bytes needed by cudnnNormalizationForwardTraining. */
cudnnStatus_t CUDNNWINAPI cudnnGetNormalizationForwardTrainingWorkspaceSize(
    cudnnHandle_t handle,
    cudnnNormMode_t mode,
    cudnnNormOps_t normOps,
    cudnnNormAlgo_t algo,
    const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t zDesc,
    const cudnnTensorDescriptor_t yDesc,
    const cudnnTensorDescriptor_t normScaleBiasDesc,
    const cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t normMeanVarDesc,
    size_t *sizeInBytes,
    int groupCnt);

/* Workspace bytes needed by cudnnNormalizationBackward. */
cudnnStatus_t CUDNNWINAPI cudnnGetNormalizationBackwardWorkspaceSize(
    cudnnHandle_t handle,
    cudnnNormMode_t mode,
    cudnnNormOps_t normOps,
    cudnnNormAlgo_t algo,
    const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t yDesc,
    const cudnnTensorDescriptor_t dyDesc,
    const cudnnTensorDescriptor_t dzDesc,
    const cudnnTensorDescriptor_t dxDesc,
    const cudnnTensorDescriptor_t dNormScaleBiasDesc,
    const cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t normMeanVarDesc,
    size_t *sizeInBytes,
    int groupCnt);

/* Reserve-space bytes that cudnnNormalizationForwardTraining hands to cudnnNormalizationBackward. */
cudnnStatus_t CUDNNWINAPI cudnnGetNormalizationTrainingReserveSpaceSize(
    cudnnHandle_t handle,
    cudnnNormMode_t mode,
    cudnnNormOps_t normOps,
    cudnnNormAlgo_t algo,
    const cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t xDesc,
    size_t *sizeInBytes,
    int groupCnt);

/* Inference with stored statistics, with optional fused add (z) and activation per normOps. */
cudnnStatus_t CUDNNWINAPI cudnnNormalizationForwardInference(
    cudnnHandle_t handle,
    cudnnNormMode_t mode,
    cudnnNormOps_t normOps,
    cudnnNormAlgo_t algo,
    const void *alpha,
    const void *beta,
    const cudnnTensorDescriptor_t xDesc,
    const void *x,
    const cudnnTensorDescriptor_t normScaleBiasDesc,
    const void *normScale,
    const void *normBias,
    const cudnnTensorDescriptor_t normMeanVarDesc,
    const void *estimatedMean,
    const void *estimatedVariance,
    const cudnnTensorDescriptor_t zDesc,
    const void *z,
    cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t yDesc,
    void *y,
    double epsilon,
    int groupCnt);

/* Training step with batch statistics, running-average update (as in batch normalization),
 * optional saved mean / inverse std-dev, and optional fused add + activation. */
cudnnStatus_t CUDNNWINAPI cudnnNormalizationForwardTraining(
    cudnnHandle_t handle,
    cudnnNormMode_t mode,
    cudnnNormOps_t normOps,
    cudnnNormAlgo_t algo,
    const void *alpha,
    const void *beta,
    const cudnnTensorDescriptor_t xDesc,
    const void *xData,
    const cudnnTensorDescriptor_t normScaleBiasDesc,
    const void *normScale,
    const void *normBias,
    double exponentialAverageFactor,
    const cudnnTensorDescriptor_t normMeanVarDesc,
    void *resultRunningMean,
    void *resultRunningVariance,
    double epsilon,
    void *resultSaveMean,
    void *resultSaveInvVariance,
    cudnnActivationDescriptor_t activationDesc,
    const cudnnTensorDescriptor_t zDesc,
    const void *zData,
    const cudnnTensorDescriptor_t yDesc,
    void *yData,
    void *workspace,
    size_t workSpaceSizeInBytes,
    void *reserveSpace,
    size_t reserveSpaceSizeInBytes,
    int groupCnt);

/* Gradients of cudnnNormalizationForwardTraining: dx, dz (ADD variant), scale and bias gradients,
 * blended with the DataDiff / ParamDiff factors as in cudnnBatchNormalizationBackward. */
cudnnStatus_t CUDNNWINAPI cudnnNormalizationBackward(
    cudnnHandle_t handle,
    cudnnNormMode_t mode,
    cudnnNormOps_t normOps,
    cudnnNormAlgo_t algo,
    const void *alphaDataDiff,
    const void *betaDataDiff,
    const void *alphaParamDiff,
    const void *betaParamDiff,
    const cudnnTensorDescriptor_t xDesc,
    const void *xData,
    const cudnnTensorDescriptor_t yDesc,
    const void *yData,
    const cudnnTensorDescriptor_t dyDesc,
    const void *dyData,
    const cudnnTensorDescriptor_t dzDesc,
    void *dzData,
    const cudnnTensorDescriptor_t dxDesc,
    void *dxData,
    const cudnnTensorDescriptor_t dNormScaleBiasDesc,
    const void *normScaleData,
    const void *normBiasData,
    void *dNormScaleData,
    void *dNormBiasData,
    double epsilon,
    const cudnnTensorDescriptor_t normMeanVarDesc,
    const void *savedMean,
    const void *savedInvVariance,
    cudnnActivationDescriptor_t activationDesc,
    void *workSpace,
    size_t workSpaceSizeInBytes,
    void *reserveSpace,
    size_t reserveSpaceSizeInBytes,
    int groupCnt);

/* ============================================================================================ */
/* Spatial transformer (affine grid generation + bilinear sampling)                             */
/* ============================================================================================ */

/* Interpolation used by the sampler. */
typedef enum {
    CUDNN_SAMPLER_BILINEAR = 0
} cudnnSamplerType_t;

/* Allocate a spatial transformer descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnCreateSpatialTransformerDescriptor(cudnnSpatialTransformerDescriptor_t *stDesc);

/* Configure for output tensors of dimensions dimA (host array of nbDims entries, {N, C, H, W};
 * only nbDims == 4 is supported) with the given sampler and data type. */
cudnnStatus_t CUDNNWINAPI cudnnSetSpatialTransformerNdDescriptor(
    cudnnSpatialTransformerDescriptor_t stDesc,
    cudnnSamplerType_t samplerType,
    cudnnDataType_t dataType,
    const int nbDims,
    const int dimA[]);

/* Free a spatial transformer descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnDestroySpatialTransformerDescriptor(cudnnSpatialTransformerDescriptor_t stDesc);

/* From affine matrices theta (N x 2 x 3) produce the sampling grid (N x H x W x 2 of (x, y)
 * coordinates normalised to [-1, 1]). */
cudnnStatus_t CUDNNWINAPI cudnnSpatialTfGridGeneratorForward(
    cudnnHandle_t handle,
    const cudnnSpatialTransformerDescriptor_t stDesc,
    const void *theta,
    void *grid);

/* Gradient of the grid generator: dtheta (N x 2 x 3) from dgrid (N x H x W x 2). */
cudnnStatus_t CUDNNWINAPI cudnnSpatialTfGridGeneratorBackward(
    cudnnHandle_t handle,
    const cudnnSpatialTransformerDescriptor_t stDesc,
    const void *dgrid,
    void *dtheta);

/* y = alpha * sample(x, grid) + beta * y; points outside x read as zero. */
cudnnStatus_t CUDNNWINAPI cudnnSpatialTfSamplerForward(
    cudnnHandle_t handle,
    cudnnSpatialTransformerDescriptor_t stDesc,
    const void *alpha,
    const cudnnTensorDescriptor_t xDesc,
    const void *x,
    const void *grid,
    const void *beta,
    cudnnTensorDescriptor_t yDesc,
    void *y);

/* Gradients of the sampler given dy: dx = alpha * ... + beta * dx and
 * dgrid = alphaDgrid * ... + betaDgrid * dgrid. */
cudnnStatus_t CUDNNWINAPI cudnnSpatialTfSamplerBackward(
    cudnnHandle_t handle,
    cudnnSpatialTransformerDescriptor_t stDesc,
    const void *alpha,
    const cudnnTensorDescriptor_t xDesc,
    const void *x,
    const void *beta,
    const cudnnTensorDescriptor_t dxDesc,
    void *dx,
    const void *alphaDgrid,
    const cudnnTensorDescriptor_t dyDesc,
    const void *dy,
    const void *grid,
    const void *betaDgrid,
    void *dgrid);

/* ============================================================================================ */
/* Dropout                                                                                      */
/* ============================================================================================ */

/* Allocate a dropout descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnCreateDropoutDescriptor(cudnnDropoutDescriptor_t *dropoutDesc);

/* Free a dropout descriptor (the states buffer remains owned by the caller). */
cudnnStatus_t CUDNNWINAPI cudnnDestroyDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc);

/* Bytes of random-generator state the handle's device needs (size of the states buffer). */
cudnnStatus_t CUDNNWINAPI cudnnDropoutGetStatesSize(cudnnHandle_t handle, size_t *sizeInBytes);

/* Bytes of reserve space (the dropout mask) needed for an input described by xdesc. */
cudnnStatus_t CUDNNWINAPI cudnnDropoutGetReserveSpaceSize(cudnnTensorDescriptor_t xdesc, size_t *sizeInBytes);

/* Set the drop probability and seed, and initialise the generator state in states (backend
 * memory of stateSizeInBytes bytes, kept alive by the caller). Initialisation runs on the handle's
 * stream and is comparatively expensive; states may be NULL to change only the probability. */
cudnnStatus_t CUDNNWINAPI cudnnSetDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc,
                                                    cudnnHandle_t handle,
                                                    float dropout,
                                                    void *states,
                                                    size_t stateSizeInBytes,
                                                    unsigned long long seed);

/* Attach an already-initialised states buffer (e.g. one saved earlier) without re-initialising it. */
cudnnStatus_t CUDNNWINAPI cudnnRestoreDropoutDescriptor(
    cudnnDropoutDescriptor_t dropoutDesc,
    cudnnHandle_t handle,
    float dropout,
    void *states,
    size_t stateSizeInBytes,
    unsigned long long seed);

/* Read back probability, states pointer and seed of a dropout descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnGetDropoutDescriptor(cudnnDropoutDescriptor_t dropoutDesc,
                                                    cudnnHandle_t handle,
                                                    float *dropout,
                                                    void **states,
                                                    unsigned long long *seed);

/* y = x * mask / (1 - dropout), drawing a fresh mask and storing it in reserveSpace. */
cudnnStatus_t CUDNNWINAPI cudnnDropoutForward(cudnnHandle_t handle,
                                              const cudnnDropoutDescriptor_t dropoutDesc,
                                              const cudnnTensorDescriptor_t xdesc,
                                              const void *x,
                                              const cudnnTensorDescriptor_t ydesc,
                                              void *y,
                                              void *reserveSpace,
                                              size_t reserveSpaceSizeInBytes);

/* dx = dy * mask / (1 - dropout), with the mask recorded in reserveSpace by the forward call. */
cudnnStatus_t CUDNNWINAPI cudnnDropoutBackward(cudnnHandle_t handle,
                                               const cudnnDropoutDescriptor_t dropoutDesc,
                                               const cudnnTensorDescriptor_t dydesc,
                                               const void *dy,
                                               const cudnnTensorDescriptor_t dxdesc,
                                               void *dx,
                                               void *reserveSpace,
                                               size_t reserveSpaceSizeInBytes);

/* ============================================================================================ */
/* Algorithm descriptors, performance records and their persistence (cuDNN 7.1-8.x API;        */
/* removed from cuDNN 9, provided by freednn with the cuDNN 7.6.5 prototypes)                    */
/* ============================================================================================ */

/* Allocate an algorithm descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnCreateAlgorithmDescriptor(cudnnAlgorithmDescriptor_t *algoDesc);

/* Store a chosen algorithm in the descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnSetAlgorithmDescriptor(cudnnAlgorithmDescriptor_t algoDesc, cudnnAlgorithm_t algorithm);

/* Read back the algorithm stored in the descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnGetAlgorithmDescriptor(
    const cudnnAlgorithmDescriptor_t algoDesc,
    cudnnAlgorithm_t *algorithm);

/* Copy the content of src into the existing descriptor dest. */
cudnnStatus_t CUDNNWINAPI cudnnCopyAlgorithmDescriptor(
    const cudnnAlgorithmDescriptor_t src,
    cudnnAlgorithmDescriptor_t dest);

/* Free an algorithm descriptor. */
cudnnStatus_t CUDNNWINAPI cudnnDestroyAlgorithmDescriptor(cudnnAlgorithmDescriptor_t algoDesc);

/* Allocate numberToCreate performance records into the caller's array algoPerf[0..n-1]. */
cudnnStatus_t CUDNNWINAPI cudnnCreateAlgorithmPerformance(cudnnAlgorithmPerformance_t *algoPerf, int numberToCreate);

/* Fill a performance record: algorithm, outcome status, time in milliseconds, workspace bytes. */
cudnnStatus_t CUDNNWINAPI cudnnSetAlgorithmPerformance(
    cudnnAlgorithmPerformance_t algoPerf,
    cudnnAlgorithmDescriptor_t algoDesc,
    cudnnStatus_t status,
    float time,
    size_t memory);

/* Read a performance record: algorithm descriptor (owned by the record), status, time in ms and
 * workspace bytes. */
cudnnStatus_t CUDNNWINAPI cudnnGetAlgorithmPerformance(
    const cudnnAlgorithmPerformance_t algoPerf,
    cudnnAlgorithmDescriptor_t *algoDesc,
    cudnnStatus_t *status,
    float *time,
    size_t *memory);

/* Free numberToDestroy records of the array algoPerf. */
cudnnStatus_t CUDNNWINAPI cudnnDestroyAlgorithmPerformance(cudnnAlgorithmPerformance_t *algoPerf, int numberToDestroy);

/* Host bytes needed to serialise algoDesc with cudnnSaveAlgorithm. */
cudnnStatus_t CUDNNWINAPI cudnnGetAlgorithmSpaceSize(
    cudnnHandle_t handle,
    cudnnAlgorithmDescriptor_t algoDesc,
    size_t *algoSpaceSizeInBytes);

/* Serialise algoDesc into the host buffer algoSpace (at least the size queried above). */
cudnnStatus_t CUDNNWINAPI cudnnSaveAlgorithm(cudnnHandle_t handle,
                                             cudnnAlgorithmDescriptor_t algoDesc,
                                             void *algoSpace,
                                             size_t algoSpaceSizeInBytes);

/* Rebuild algoDesc from a host buffer written by cudnnSaveAlgorithm (with a compatible library
 * version and device). */
cudnnStatus_t CUDNNWINAPI cudnnRestoreAlgorithm(cudnnHandle_t handle,
                                                void *algoSpace,
                                                size_t algoSpaceSizeInBytes,
                                                cudnnAlgorithmDescriptor_t algoDesc);

/* ============================================================================================ */
/* Version check                                                                                */
/* ============================================================================================ */

/* Check that this part of the library matches the version of the parts it depends on.
 * Returns CUDNN_STATUS_SUCCESS or CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH. */
cudnnStatus_t CUDNNWINAPI cudnnOpsVersionCheck(void);

#if defined(__cplusplus)
}
#endif

#endif /* CUDNN_OPS_H_ */
