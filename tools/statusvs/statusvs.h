/* SPDX-License-Identifier: MIT */
/*
 * statusvs.h - what the driver (statusvs.c) and the case table (cases.c) share: the functions
 * looked up in each library, the per-case context of valid descriptors and real buffers, and
 * the case record (id, whether it needs a handle, the category freednn is expected to answer).
 */
#ifndef FD_TOOLS_STATUSVS_H_
#define FD_TOOLS_STATUSVS_H_

#include <stddef.h>

#include "cudnn.h"

/* Every function a case or the setup calls; the types come from our cudnn.h prototypes. */
#define SV_FUNCS(X)                                                                            \
    X(cudnnGetVersion)                                                                         \
    X(cudnnGetErrorString)                                                                     \
    X(cudnnGetLastErrorString)                                                                 \
    X(cudnnCreate)                                                                             \
    X(cudnnDestroy)                                                                            \
    X(cudnnSetStream)                                                                          \
    X(cudnnGetStream)                                                                          \
    X(cudnnQueryRuntimeError)                                                                  \
    X(cudnnGetProperty)                                                                        \
    X(cudnnCreateTensorDescriptor)                                                             \
    X(cudnnDestroyTensorDescriptor)                                                            \
    X(cudnnSetTensor4dDescriptor)                                                              \
    X(cudnnSetTensor4dDescriptorEx)                                                            \
    X(cudnnSetTensorNdDescriptor)                                                              \
    X(cudnnSetTensorNdDescriptorEx)                                                            \
    X(cudnnGetTensor4dDescriptor)                                                              \
    X(cudnnGetTensorSizeInBytes)                                                               \
    X(cudnnCreateFilterDescriptor)                                                             \
    X(cudnnDestroyFilterDescriptor)                                                            \
    X(cudnnSetFilter4dDescriptor)                                                              \
    X(cudnnSetFilterNdDescriptor)                                                              \
    X(cudnnCreateConvolutionDescriptor)                                                        \
    X(cudnnDestroyConvolutionDescriptor)                                                       \
    X(cudnnSetConvolution2dDescriptor)                                                         \
    X(cudnnSetConvolutionNdDescriptor)                                                         \
    X(cudnnSetConvolutionGroupCount)                                                           \
    X(cudnnSetConvolutionMathType)                                                             \
    X(cudnnSetConvolutionReorderType)                                                          \
    X(cudnnGetConvolution2dForwardOutputDim)                                                   \
    X(cudnnGetConvolutionForwardWorkspaceSize)                                                 \
    X(cudnnGetConvolutionForwardAlgorithm_v7)                                                  \
    X(cudnnConvolutionForward)                                                                 \
    X(cudnnConvolutionBackwardData)                                                            \
    X(cudnnConvolutionBackwardFilter)                                                          \
    X(cudnnConvolutionBackwardBias)                                                            \
    X(cudnnCreatePoolingDescriptor)                                                            \
    X(cudnnDestroyPoolingDescriptor)                                                           \
    X(cudnnSetPooling2dDescriptor)                                                             \
    X(cudnnSetPoolingNdDescriptor)                                                             \
    X(cudnnGetPooling2dForwardOutputDim)                                                       \
    X(cudnnPoolingForward)                                                                     \
    X(cudnnPoolingBackward)                                                                    \
    X(cudnnCreateActivationDescriptor)                                                         \
    X(cudnnDestroyActivationDescriptor)                                                        \
    X(cudnnSetActivationDescriptor)                                                            \
    X(cudnnActivationForward)                                                                  \
    X(cudnnActivationBackward)                                                                 \
    X(cudnnCreateLRNDescriptor)                                                                \
    X(cudnnDestroyLRNDescriptor)                                                               \
    X(cudnnSetLRNDescriptor)                                                                   \
    X(cudnnLRNCrossChannelForward)                                                             \
    X(cudnnCreateDropoutDescriptor)                                                            \
    X(cudnnDestroyDropoutDescriptor)                                                           \
    X(cudnnDropoutGetStatesSize)                                                               \
    X(cudnnDropoutGetReserveSpaceSize)                                                         \
    X(cudnnSetDropoutDescriptor)                                                               \
    X(cudnnDropoutForward)                                                                     \
    X(cudnnSoftmaxForward)                                                                     \
    X(cudnnCreateReduceTensorDescriptor)                                                       \
    X(cudnnDestroyReduceTensorDescriptor)                                                      \
    X(cudnnSetReduceTensorDescriptor)                                                          \
    X(cudnnGetReductionWorkspaceSize)                                                          \
    X(cudnnReduceTensor)                                                                       \
    X(cudnnCreateOpTensorDescriptor)                                                           \
    X(cudnnDestroyOpTensorDescriptor)                                                          \
    X(cudnnSetOpTensorDescriptor)                                                              \
    X(cudnnOpTensor)                                                                           \
    X(cudnnAddTensor)                                                                          \
    X(cudnnSetTensor)                                                                          \
    X(cudnnScaleTensor)                                                                        \
    X(cudnnTransformTensor)                                                                    \
    X(cudnnCreateCTCLossDescriptor)                                                            \
    X(cudnnDestroyCTCLossDescriptor)                                                           \
    X(cudnnSetCTCLossDescriptor)                                                               \
    X(cudnnGetCTCLossWorkspaceSize)                                                            \
    X(cudnnCreateSpatialTransformerDescriptor)                                                 \
    X(cudnnDestroySpatialTransformerDescriptor)                                                \
    X(cudnnSetSpatialTransformerNdDescriptor)                                                  \
    X(cudnnSpatialTfGridGeneratorForward)                                                      \
    X(cudnnDeriveBNTensorDescriptor)                                                           \
    X(cudnnBatchNormalizationForwardInference)                                                 \
    X(cudnnBatchNormalizationForwardTraining)                                                  \
    X(cudnnBatchNormalizationBackward)

typedef struct sv_lib {
    const char *path;
    void *dl;
    size_t version;              /* cudnnGetVersion(): < 9000 numbers statuses 0..14 */
    cudnnHandle_t handle;        /* NULL when cudnnCreate failed */
    cudnnStatus_t create_status;
#define SV_FIELD(f) __typeof__(&f) f;
    SV_FUNCS(SV_FIELD)
#undef SV_FIELD
} sv_lib_t;

/* Real buffers every case may point at; big enough for any tensor of the cases, so a library
 * that accepts a "bad" input computes inside them. */
enum { SV_BUF_X, SV_BUF_Y, SV_BUF_W, SV_BUF_DX, SV_BUF_DY, SV_BUF_DW, SV_BUF_WS, SV_BUF_P0,
       SV_BUF_P1, SV_BUF_P2, SV_BUF_P3, SV_BUF_STATES, SV_NBUF };
#define SV_BUF_BYTES ((size_t)1 << 20)
#define SV_STATES_BYTES ((size_t)32 << 20) /* dropout states: 6.5 MB on an H200 */

typedef struct sv_buffers {
    int device;
    void *p[SV_NBUF];
} sv_buffers_t;

/* One case's library, handle and valid objects (sv_setup): x 2x3x8x8 float NCHW, w 4x3x3x3,
 * conv pad 1 stride 1 (so y 2x4x8x8), bias 1x4x1x1, pooled 2x3x4x4 (2x2 max, stride 2), bn
 * parameters 1x3x1x1, probs 8x2x5 (CTC: T, N, alphabet). */
typedef struct sv_ctx {
    const sv_lib_t *L;
    cudnnHandle_t h;
    sv_buffers_t *b;
    const char *setup_failed;
    cudnnTensorDescriptor_t x, y, bias, py, bn, t, probs, grads;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    cudnnPoolingDescriptor_t pool;
    cudnnActivationDescriptor_t act;
    cudnnLRNDescriptor_t lrn;
    cudnnDropoutDescriptor_t drop;
    cudnnReduceTensorDescriptor_t red;
    cudnnOpTensorDescriptor_t op;
    cudnnCTCLossDescriptor_t ctc;
    cudnnSpatialTransformerDescriptor_t stf;
} sv_ctx_t;

/* Categories of a status (and the two outcomes that are not statuses). */
typedef enum { SV_SUCCESS, SV_BAD, SV_NOTSUP, SV_OTHER, SV_SKIP, SV_CRASH, SV_SETUP, SV_CAT_COUNT } sv_cat_t;
const char *sv_cat_name(sv_cat_t c);

/* What a case returns when its own extra setup failed (c->setup_failed says which call), or a
 * function it needs is missing from the library. */
#define SV_STATUS_SETUP (-1)
#define SV_STATUS_MISSING (-2)

typedef struct sv_case {
    const char *id;
    int needs_handle;
    sv_cat_t expect; /* freednn's category (docs/status-codes.md) */
    cudnnStatus_t (*fn)(sv_ctx_t *c);
    int line;
} sv_case_t;

const sv_case_t *sv_cases(int *n);   /* in table order */
const char *sv_setup(sv_ctx_t *c);   /* NULL, or the name of the call that failed */
void sv_teardown(sv_ctx_t *c);

#endif /* FD_TOOLS_STATUSVS_H_ */
