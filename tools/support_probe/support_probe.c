/* SPDX-License-Identifier: MIT */
/*
 * support_probe.c - measures the "Operations x data types x backends" section of
 * docs/support-matrix.md (DESIGN D5): for every compute operation of the classic API, every data
 * type of `dtypes` and every backend, one tiny valid call through the public API. SUCCESS is
 * "yes", CUDNN_STATUS_NOT_SUPPORTED* is "no" with cudnnGetLastErrorString's reason as a
 * footnote, any other status is "error" (a valid call refused: a bug). A backend whose handle
 * cannot be created is "n-a" with the reason. The markdown goes to stdout and is deterministic
 * (no timings, pointers or source lines); tools/gen_support_matrix.py --probe inserts it.
 * Data pointers are device memory on cuda (built with FD_PROBE_WITH_CUDART), host otherwise.
 */
#if defined(FD_PROBE_WITH_CUDART)
#include <cuda_runtime_api.h> /* before cudnn.h, which then uses the real cudaStream_t */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn.h"
#include "freednn.h"

/* ---- data types and their companions ---------------------------------------------------- */

static const struct {
    cudnnDataType_t dt;
    const char *name, *enumerator;
} dtypes[] = {
    {CUDNN_DATA_FLOAT, "f32", "CUDNN_DATA_FLOAT"},
    {CUDNN_DATA_DOUBLE, "f64", "CUDNN_DATA_DOUBLE"},
    {CUDNN_DATA_HALF, "f16", "CUDNN_DATA_HALF"},
    {CUDNN_DATA_BFLOAT16, "bf16", "CUDNN_DATA_BFLOAT16"},
    {CUDNN_DATA_INT8, "int8", "CUDNN_DATA_INT8"},
    {CUDNN_DATA_INT32, "int32", "CUDNN_DATA_INT32"},
    {CUDNN_DATA_UINT8, "uint8", "CUDNN_DATA_UINT8"},
};
#define N_DTYPES ((int)(sizeof dtypes / sizeof dtypes[0]))

static const freednnBackend_t backends[] = {FREEDNN_BACKEND_REF, FREEDNN_BACKEND_CPU,
                                            FREEDNN_BACKEND_CUDA};
#define N_BACKENDS ((int)(sizeof backends / sizeof backends[0]))

static int is_int(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_INT8 || dt == CUDNN_DATA_INT32 || dt == CUDNN_DATA_UINT8;
}

static size_t dt_size(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE:
        return 8;
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_INT32:
        return 4;
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16:
        return 2;
    default:
        return 1;
    }
}

/* Integer data is laid out NHWC (the layout cuDNN's int8 kernels take), float data NCHW. */
static cudnnTensorFormat_t layout(cudnnDataType_t dt)
{
    return is_int(dt) ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
}

/* Accumulation / compute / parameter type that goes with data of type dt. */
static cudnnDataType_t conv_compute(cudnnDataType_t dt)
{
    return is_int(dt)                ? CUDNN_DATA_INT32
           : dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE
                                     : CUDNN_DATA_FLOAT;
}

static cudnnDataType_t float_compute(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}

/* Scaling factors: double for DOUBLE outputs, float otherwise (cuDNN "Scaling Parameters"). */
static const float f_one = 1.0f, f_zero = 0.0f;
static const double d_one = 1.0, d_zero = 0.0;
#define ONE(dt) ((dt) == CUDNN_DATA_DOUBLE ? (const void *)&d_one : (const void *)&f_one)
#define ZERO(dt) ((dt) == CUDNN_DATA_DOUBLE ? (const void *)&d_zero : (const void *)&f_zero)

/* ---- memory and descriptors of one call ------------------------------------------------- */

typedef enum {
    R_MEM,
    R_TENSOR,
    R_FILTER,
    R_CONV,
    R_ACT,
    R_POOL,
    R_LRN,
    R_OPT,
    R_RED,
    R_DROP,
    R_STF,
    R_CTC,
    R_XFORM
} res_kind_t;

typedef struct {
    freednnBackend_t backend;
    int n;
    struct {
        res_kind_t kind;
        void *p;
    } res[64];
} arena_t;

static void die(const char *what)
{
    fprintf(stderr, "support_probe: %s\n", what);
    exit(2);
}

static void track(arena_t *a, res_kind_t kind, void *p)
{
    if (a->n == (int)(sizeof a->res / sizeof a->res[0]))
        die("too many resources in one probe call");
    a->res[a->n].kind = kind;
    a->res[a->n].p = p;
    a->n++;
}

static void arena_free(arena_t *a)
{
    for (int i = a->n - 1; i >= 0; i--) {
        void *p = a->res[i].p;
        switch (a->res[i].kind) {
        case R_MEM:
#if defined(FD_PROBE_WITH_CUDART)
            if (a->backend == FREEDNN_BACKEND_CUDA) {
                cudaFree(p);
                break;
            }
#endif
            free(p);
            break;
        case R_TENSOR:
            cudnnDestroyTensorDescriptor(p);
            break;
        case R_FILTER:
            cudnnDestroyFilterDescriptor(p);
            break;
        case R_CONV:
            cudnnDestroyConvolutionDescriptor(p);
            break;
        case R_ACT:
            cudnnDestroyActivationDescriptor(p);
            break;
        case R_POOL:
            cudnnDestroyPoolingDescriptor(p);
            break;
        case R_LRN:
            cudnnDestroyLRNDescriptor(p);
            break;
        case R_OPT:
            cudnnDestroyOpTensorDescriptor(p);
            break;
        case R_RED:
            cudnnDestroyReduceTensorDescriptor(p);
            break;
        case R_DROP:
            cudnnDestroyDropoutDescriptor(p);
            break;
        case R_STF:
            cudnnDestroySpatialTransformerDescriptor(p);
            break;
        case R_CTC:
            cudnnDestroyCTCLossDescriptor(p);
            break;
        case R_XFORM:
            cudnnDestroyTensorTransformDescriptor(p);
            break;
        }
    }
    a->n = 0;
}

/* `bytes` of the backend's memory holding a copy of `init` (zeros when NULL). */
static void *mem(arena_t *a, size_t bytes, const void *init)
{
    size_t n = bytes ? bytes : 1;
    void *p = NULL;
#if defined(FD_PROBE_WITH_CUDART)
    if (a->backend == FREEDNN_BACKEND_CUDA) {
        if (cudaMalloc(&p, n) != cudaSuccess)
            die("cudaMalloc failed");
        track(a, R_MEM, p);
        if (init != NULL)
            cudaMemcpy(p, init, bytes, cudaMemcpyHostToDevice);
        else
            cudaMemset(p, 0, n);
        return p;
    }
#endif
    p = calloc(1, n);
    if (p == NULL)
        die("out of host memory");
    track(a, R_MEM, p);
    if (init != NULL)
        memcpy(p, init, bytes);
    return p;
}

/* `count` elements of type dt, each 1 (a value every operation takes: probabilities, variances,
 * grid coordinates, ...). */
static void *ones(arena_t *a, cudnnDataType_t dt, size_t count)
{
    size_t es = dt_size(dt);
    unsigned char *h = malloc(count * es + 1);
    if (h == NULL)
        die("out of host memory");
    for (size_t i = 0; i < count; i++) {
        unsigned char *e = h + i * es;
        switch (dt) {
        case CUDNN_DATA_FLOAT: {
            float v = 1.0f;
            memcpy(e, &v, 4);
            break;
        }
        case CUDNN_DATA_DOUBLE: {
            double v = 1.0;
            memcpy(e, &v, 8);
            break;
        }
        case CUDNN_DATA_HALF: {
            uint16_t v = 0x3c00;
            memcpy(e, &v, 2);
            break;
        }
        case CUDNN_DATA_BFLOAT16: {
            uint16_t v = 0x3f80;
            memcpy(e, &v, 2);
            break;
        }
        case CUDNN_DATA_INT32: {
            int32_t v = 1;
            memcpy(e, &v, 4);
            break;
        }
        default:
            *e = 1;
            break;
        }
    }
    void *p = mem(a, count * es, h);
    free(h);
    return p;
}

static void *zeros(arena_t *a, size_t bytes)
{
    return bytes ? mem(a, bytes, NULL) : NULL;
}

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        cudnnStatus_t try_status_ = (expr);                                                        \
        if (try_status_ != CUDNN_STATUS_SUCCESS)                                                   \
            return try_status_;                                                                    \
    } while (0)

/* Creators: a failure to create an empty descriptor is not a property of the cell. */
#define CREATOR(fn, type, create, kind)                                                            \
    static type fn(arena_t *a)                                                                     \
    {                                                                                              \
        type d;                                                                                    \
        if (create(&d) != CUDNN_STATUS_SUCCESS)                                                    \
            die(#create " failed");                                                                \
        track(a, kind, d);                                                                         \
        return d;                                                                                  \
    }
CREATOR(new_tensor, cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, R_TENSOR)
CREATOR(new_filter, cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor, R_FILTER)
CREATOR(new_conv, cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor, R_CONV)
CREATOR(new_act, cudnnActivationDescriptor_t, cudnnCreateActivationDescriptor, R_ACT)
CREATOR(new_pool, cudnnPoolingDescriptor_t, cudnnCreatePoolingDescriptor, R_POOL)
CREATOR(new_lrn, cudnnLRNDescriptor_t, cudnnCreateLRNDescriptor, R_LRN)
CREATOR(new_opt, cudnnOpTensorDescriptor_t, cudnnCreateOpTensorDescriptor, R_OPT)
CREATOR(new_red, cudnnReduceTensorDescriptor_t, cudnnCreateReduceTensorDescriptor, R_RED)
CREATOR(new_drop, cudnnDropoutDescriptor_t, cudnnCreateDropoutDescriptor, R_DROP)
CREATOR(new_stf, cudnnSpatialTransformerDescriptor_t, cudnnCreateSpatialTransformerDescriptor,
        R_STF)
CREATOR(new_ctc, cudnnCTCLossDescriptor_t, cudnnCreateCTCLossDescriptor, R_CTC)
CREATOR(new_xform, cudnnTensorTransformDescriptor_t, cudnnCreateTensorTransformDescriptor, R_XFORM)

/* A 4-d tensor of type dt in dt's layout. */
static cudnnStatus_t t4(arena_t *a, cudnnTensorDescriptor_t *t, cudnnDataType_t dt, int n, int c,
                        int h, int w)
{
    *t = new_tensor(a);
    return cudnnSetTensor4dDescriptor(*t, layout(dt), dt, n, c, h, w);
}

static cudnnStatus_t relu(arena_t *a, cudnnActivationDescriptor_t *act)
{
    *act = new_act(a);
    return cudnnSetActivationDescriptor(*act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0);
}

/* ---- convolution ----------------------------------------------------------------------------
 * x 1x4x5x5, w 4x4x3x3, pad 1, stride 1: y 1x4x5x5. */

enum { CN = 1, CC = 4, CH = 5, CK = 4, CR = 3 };
#define C_X ((size_t)CN * CC * CH * CH)
#define C_W ((size_t)CK * CC * CR * CR)
#define C_Y ((size_t)CN * CK * CH * CH)

typedef struct {
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
} conv_descs_t;

static cudnnStatus_t conv_setup(arena_t *a, cudnnDataType_t dt, conv_descs_t *d)
{
    TRY(t4(a, &d->x, dt, CN, CC, CH, CH));
    TRY(t4(a, &d->y, dt, CN, CK, CH, CH));
    d->w = new_filter(a);
    const int wdim[4] = {CK, CC, CR, CR};
    TRY(cudnnSetFilterNdDescriptor(d->w, dt, layout(dt), 4, wdim));
    d->conv = new_conv(a);
    const int pad[2] = {1, 1}, stride[2] = {1, 1}, dil[2] = {1, 1};
    return cudnnSetConvolutionNdDescriptor(d->conv, 2, pad, stride, dil, CUDNN_CROSS_CORRELATION,
                                           conv_compute(dt));
}

static cudnnStatus_t probe_conv_fwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    conv_descs_t d;
    TRY(conv_setup(a, dt, &d));
    const cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    size_t ws = 0;
    TRY(cudnnGetConvolutionForwardWorkspaceSize(h, d.x, d.w, d.conv, d.y, algo, &ws));
    return cudnnConvolutionForward(h, ONE(dt), d.x, ones(a, dt, C_X), d.w, ones(a, dt, C_W), d.conv,
                                   algo, zeros(a, ws), ws, ZERO(dt), d.y, ones(a, dt, C_Y));
}

static cudnnStatus_t probe_conv_bwd_data(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    conv_descs_t d;
    TRY(conv_setup(a, dt, &d));
    const cudnnConvolutionBwdDataAlgo_t algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    size_t ws = 0;
    TRY(cudnnGetConvolutionBackwardDataWorkspaceSize(h, d.w, d.y, d.conv, d.x, algo, &ws));
    return cudnnConvolutionBackwardData(h, ONE(dt), d.w, ones(a, dt, C_W), d.y, ones(a, dt, C_Y),
                                        d.conv, algo, zeros(a, ws), ws, ZERO(dt), d.x,
                                        ones(a, dt, C_X));
}

static cudnnStatus_t probe_conv_bwd_filter(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    conv_descs_t d;
    TRY(conv_setup(a, dt, &d));
    const cudnnConvolutionBwdFilterAlgo_t algo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
    size_t ws = 0;
    TRY(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, d.x, d.y, d.conv, d.w, algo, &ws));
    return cudnnConvolutionBackwardFilter(h, ONE(dt), d.x, ones(a, dt, C_X), d.y, ones(a, dt, C_Y),
                                          d.conv, algo, zeros(a, ws), ws, ZERO(dt), d.w,
                                          ones(a, dt, C_W));
}

static cudnnStatus_t probe_conv_bwd_bias(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnTensorDescriptor_t dy, db;
    TRY(t4(a, &dy, dt, CN, CK, CH, CH));
    TRY(t4(a, &db, dt, 1, CK, 1, 1));
    return cudnnConvolutionBackwardBias(h, ONE(dt), dy, ones(a, dt, C_Y), ZERO(dt), db,
                                        ones(a, dt, CK));
}

/* Bias of integer convolutions is FLOAT (cuDNN's INT8 configurations), else the data type. */
static cudnnStatus_t probe_conv_bias_act(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    conv_descs_t d;
    TRY(conv_setup(a, dt, &d));
    cudnnDataType_t bdt = is_int(dt) ? CUDNN_DATA_FLOAT : dt;
    cudnnTensorDescriptor_t z, bias;
    TRY(t4(a, &z, dt, CN, CK, CH, CH));
    TRY(t4(a, &bias, bdt, 1, CK, 1, 1));
    cudnnActivationDescriptor_t act;
    TRY(relu(a, &act));
    const cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    size_t ws = 0;
    TRY(cudnnGetConvolutionForwardWorkspaceSize(h, d.x, d.w, d.conv, d.y, algo, &ws));
    return cudnnConvolutionBiasActivationForward(
        h, ONE(dt), d.x, ones(a, dt, C_X), d.w, ones(a, dt, C_W), d.conv, algo, zeros(a, ws), ws,
        ONE(dt), z, ones(a, dt, C_Y), bias, ones(a, bdt, CK), act, d.y, ones(a, dt, C_Y));
}

static cudnnStatus_t probe_im2col(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    conv_descs_t d;
    TRY(conv_setup(a, dt, &d));
    size_t col = (size_t)CN * CH * CH * CC * CR * CR; /* N P Q rows of C R S */
    return cudnnIm2Col(h, d.x, ones(a, dt, C_X), d.w, d.conv, zeros(a, col * dt_size(dt)));
}

/* ---- pooling, activation, softmax, LRN, divisive normalization ------------------------------
 * Data 1x4x4x4 (pooling 2x2 stride 2 to 1x4x2x2), 1x4x3x3 elsewhere. */

#define E_X ((size_t)1 * 4 * 3 * 3)

static cudnnStatus_t pool_setup(arena_t *a, cudnnDataType_t dt, cudnnPoolingDescriptor_t *p,
                                cudnnTensorDescriptor_t *x, cudnnTensorDescriptor_t *y)
{
    *p = new_pool(a);
    TRY(cudnnSetPooling2dDescriptor(*p, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2,
                                    2));
    TRY(t4(a, x, dt, 1, 4, 4, 4));
    return t4(a, y, dt, 1, 4, 2, 2);
}

static cudnnStatus_t probe_pool_fwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnPoolingDescriptor_t p;
    cudnnTensorDescriptor_t x, y;
    TRY(pool_setup(a, dt, &p, &x, &y));
    return cudnnPoolingForward(h, p, ONE(dt), x, ones(a, dt, 64), ZERO(dt), y, ones(a, dt, 16));
}

static cudnnStatus_t probe_pool_bwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnPoolingDescriptor_t p;
    cudnnTensorDescriptor_t x, y;
    TRY(pool_setup(a, dt, &p, &x, &y));
    return cudnnPoolingBackward(h, p, ONE(dt), y, ones(a, dt, 16), y, ones(a, dt, 16), x,
                                ones(a, dt, 64), ZERO(dt), x, ones(a, dt, 64));
}

static cudnnStatus_t probe_act_fwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnActivationDescriptor_t act;
    cudnnTensorDescriptor_t x;
    TRY(relu(a, &act));
    TRY(t4(a, &x, dt, 1, 4, 3, 3));
    return cudnnActivationForward(h, act, ONE(dt), x, ones(a, dt, E_X), ZERO(dt), x,
                                  ones(a, dt, E_X));
}

static cudnnStatus_t probe_act_bwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnActivationDescriptor_t act;
    cudnnTensorDescriptor_t x;
    TRY(relu(a, &act));
    TRY(t4(a, &x, dt, 1, 4, 3, 3));
    return cudnnActivationBackward(h, act, ONE(dt), x, ones(a, dt, E_X), x, ones(a, dt, E_X), x,
                                   ones(a, dt, E_X), ZERO(dt), x, ones(a, dt, E_X));
}

static cudnnStatus_t probe_softmax_fwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnTensorDescriptor_t x;
    TRY(t4(a, &x, dt, 1, 4, 3, 3));
    return cudnnSoftmaxForward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, ONE(dt), x,
                               ones(a, dt, E_X), ZERO(dt), x, ones(a, dt, E_X));
}

static cudnnStatus_t probe_softmax_bwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnTensorDescriptor_t x;
    TRY(t4(a, &x, dt, 1, 4, 3, 3));
    return cudnnSoftmaxBackward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, ONE(dt), x,
                                ones(a, dt, E_X), x, ones(a, dt, E_X), ZERO(dt), x,
                                ones(a, dt, E_X));
}

static cudnnStatus_t lrn_setup(arena_t *a, cudnnDataType_t dt, cudnnLRNDescriptor_t *n,
                               cudnnTensorDescriptor_t *x)
{
    *n = new_lrn(a);
    TRY(cudnnSetLRNDescriptor(*n, 5, 1e-4, 0.75, 2.0));
    return t4(a, x, dt, 1, 4, 3, 3);
}

static cudnnStatus_t probe_lrn_fwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnLRNDescriptor_t n;
    cudnnTensorDescriptor_t x;
    TRY(lrn_setup(a, dt, &n, &x));
    return cudnnLRNCrossChannelForward(h, n, CUDNN_LRN_CROSS_CHANNEL_DIM1, ONE(dt), x,
                                       ones(a, dt, E_X), ZERO(dt), x, ones(a, dt, E_X));
}

static cudnnStatus_t probe_lrn_bwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnLRNDescriptor_t n;
    cudnnTensorDescriptor_t x;
    TRY(lrn_setup(a, dt, &n, &x));
    return cudnnLRNCrossChannelBackward(h, n, CUDNN_LRN_CROSS_CHANNEL_DIM1, ONE(dt), x,
                                        ones(a, dt, E_X), x, ones(a, dt, E_X), x, ones(a, dt, E_X),
                                        ZERO(dt), x, ones(a, dt, E_X));
}

static cudnnStatus_t probe_divnorm_fwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnLRNDescriptor_t n;
    cudnnTensorDescriptor_t x;
    TRY(lrn_setup(a, dt, &n, &x));
    return cudnnDivisiveNormalizationForward(h, n, CUDNN_DIVNORM_PRECOMPUTED_MEANS, ONE(dt), x,
                                             ones(a, dt, E_X), ones(a, dt, E_X), ones(a, dt, E_X),
                                             ones(a, dt, E_X), ZERO(dt), x, ones(a, dt, E_X));
}

static cudnnStatus_t probe_divnorm_bwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnLRNDescriptor_t n;
    cudnnTensorDescriptor_t x;
    TRY(lrn_setup(a, dt, &n, &x));
    return cudnnDivisiveNormalizationBackward(h, n, CUDNN_DIVNORM_PRECOMPUTED_MEANS, ONE(dt), x,
                                              ones(a, dt, E_X), ones(a, dt, E_X), ones(a, dt, E_X),
                                              ones(a, dt, E_X), ones(a, dt, E_X), ZERO(dt), x,
                                              ones(a, dt, E_X), ones(a, dt, E_X));
}

/* ---- batch normalization (cuDNN 7 and cuDNN 8 entries) --------------------------------------
 * x 2x4x3x3, per-channel (SPATIAL / PER_CHANNEL); the parameter tensors are the derived ones:
 * FLOAT, or DOUBLE for DOUBLE data. */

#define B_X ((size_t)2 * 4 * 3 * 3)
#define B_P ((size_t)4)

typedef struct {
    cudnnTensorDescriptor_t x, p;
    cudnnDataType_t pdt;
} bn_descs_t;

static cudnnStatus_t bn_setup(arena_t *a, cudnnDataType_t dt, bn_descs_t *d)
{
    TRY(t4(a, &d->x, dt, 2, 4, 3, 3));
    d->p = new_tensor(a);
    d->pdt = float_compute(dt);
    return cudnnDeriveBNTensorDescriptor(d->p, d->x, CUDNN_BATCHNORM_SPATIAL);
}

#define PBUF() ones(a, d.pdt, B_P)

static cudnnStatus_t probe_bn_infer(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    bn_descs_t d;
    TRY(bn_setup(a, dt, &d));
    return cudnnBatchNormalizationForwardInference(h, CUDNN_BATCHNORM_SPATIAL, ONE(dt), ZERO(dt),
                                                   d.x, ones(a, dt, B_X), d.x, ones(a, dt, B_X),
                                                   d.p, PBUF(), PBUF(), PBUF(), PBUF(), 1e-5);
}

static cudnnStatus_t probe_bn_train(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    bn_descs_t d;
    TRY(bn_setup(a, dt, &d));
    return cudnnBatchNormalizationForwardTraining(
        h, CUDNN_BATCHNORM_SPATIAL, ONE(dt), ZERO(dt), d.x, ones(a, dt, B_X), d.x, ones(a, dt, B_X),
        d.p, PBUF(), PBUF(), 0.1, PBUF(), PBUF(), 1e-5, PBUF(), PBUF());
}

static cudnnStatus_t probe_bn_bwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    bn_descs_t d;
    TRY(bn_setup(a, dt, &d));
    return cudnnBatchNormalizationBackward(h, CUDNN_BATCHNORM_SPATIAL, ONE(dt), ZERO(dt), ONE(dt),
                                           ZERO(dt), d.x, ones(a, dt, B_X), d.x, ones(a, dt, B_X),
                                           d.x, ones(a, dt, B_X), d.p, PBUF(), PBUF(), PBUF(), 1e-5,
                                           PBUF(), PBUF());
}

/* The Ex forms with a fused ReLU (CUDNN_BATCHNORM_OPS_BN_ACTIVATION). */
typedef struct {
    cudnnActivationDescriptor_t act;
    void *x, *y, *scale, *bias, *mean, *inv, *reserve;
    size_t reserve_size;
} bn_ex_t;

static cudnnStatus_t bn_ex_forward(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt,
                                   const bn_descs_t *dd, bn_ex_t *e)
{
    const bn_descs_t d = *dd;
    const cudnnBatchNormOps_t ops = CUDNN_BATCHNORM_OPS_BN_ACTIVATION;
    TRY(relu(a, &e->act));
    size_t ws = 0;
    TRY(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(h, CUDNN_BATCHNORM_SPATIAL, ops,
                                                                 d.x, NULL, d.x, d.p, e->act, &ws));
    TRY(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, CUDNN_BATCHNORM_SPATIAL, ops,
                                                             e->act, d.x, &e->reserve_size));
    e->x = ones(a, dt, B_X);
    e->y = ones(a, dt, B_X);
    e->scale = PBUF(), e->bias = PBUF(), e->mean = PBUF(), e->inv = PBUF();
    e->reserve = zeros(a, e->reserve_size);
    return cudnnBatchNormalizationForwardTrainingEx(
        h, CUDNN_BATCHNORM_SPATIAL, ops, ONE(dt), ZERO(dt), d.x, e->x, NULL, NULL, d.x, e->y, d.p,
        e->scale, e->bias, 0.1, PBUF(), PBUF(), 1e-5, e->mean, e->inv, e->act, zeros(a, ws), ws,
        e->reserve, e->reserve_size);
}

static cudnnStatus_t probe_bn_train_ex(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    bn_descs_t d;
    bn_ex_t e;
    TRY(bn_setup(a, dt, &d));
    return bn_ex_forward(h, a, dt, &d, &e);
}

static cudnnStatus_t probe_bn_bwd_ex(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    bn_descs_t d;
    bn_ex_t e;
    TRY(bn_setup(a, dt, &d));
    TRY(bn_ex_forward(h, a, dt, &d, &e));
    const cudnnBatchNormOps_t ops = CUDNN_BATCHNORM_OPS_BN_ACTIVATION;
    size_t ws = 0;
    TRY(cudnnGetBatchNormalizationBackwardExWorkspaceSize(h, CUDNN_BATCHNORM_SPATIAL, ops, d.x, d.x,
                                                          d.x, NULL, d.x, d.p, e.act, &ws));
    return cudnnBatchNormalizationBackwardEx(
        h, CUDNN_BATCHNORM_SPATIAL, ops, ONE(dt), ZERO(dt), ONE(dt), ZERO(dt), d.x, e.x, d.x, e.y,
        d.x, ones(a, dt, B_X), NULL, NULL, d.x, ones(a, dt, B_X), d.p, e.scale, e.bias, PBUF(),
        PBUF(), 1e-5, e.mean, e.inv, e.act, zeros(a, ws), ws, e.reserve, e.reserve_size);
}

typedef struct {
    cudnnTensorDescriptor_t x, sb, mv;
    cudnnDataType_t pdt;
} norm_descs_t;

static cudnnStatus_t norm_setup(arena_t *a, cudnnDataType_t dt, norm_descs_t *d)
{
    TRY(t4(a, &d->x, dt, 2, 4, 3, 3));
    d->sb = new_tensor(a);
    d->mv = new_tensor(a);
    d->pdt = float_compute(dt);
    return cudnnDeriveNormTensorDescriptor(d->sb, d->mv, d->x, CUDNN_NORM_PER_CHANNEL, 1);
}

#define NORM_ARGS CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD

static cudnnStatus_t probe_norm_infer(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    norm_descs_t d;
    TRY(norm_setup(a, dt, &d));
    return cudnnNormalizationForwardInference(
        h, NORM_ARGS, ONE(dt), ZERO(dt), d.x, ones(a, dt, B_X), d.sb, PBUF(), PBUF(), d.mv, PBUF(),
        PBUF(), NULL, NULL, NULL, d.x, ones(a, dt, B_X), 1e-5, 1);
}

static cudnnStatus_t probe_norm_train(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    norm_descs_t d;
    TRY(norm_setup(a, dt, &d));
    size_t ws = 0, rs = 0;
    TRY(cudnnGetNormalizationForwardTrainingWorkspaceSize(h, NORM_ARGS, d.x, NULL, d.x, d.sb, NULL,
                                                          d.mv, &ws, 1));
    TRY(cudnnGetNormalizationTrainingReserveSpaceSize(h, NORM_ARGS, NULL, d.x, &rs, 1));
    return cudnnNormalizationForwardTraining(
        h, NORM_ARGS, ONE(dt), ZERO(dt), d.x, ones(a, dt, B_X), d.sb, PBUF(), PBUF(), 0.1, d.mv,
        PBUF(), PBUF(), 1e-5, PBUF(), PBUF(), NULL, NULL, NULL, d.x, ones(a, dt, B_X), zeros(a, ws),
        ws, zeros(a, rs), rs, 1);
}

static cudnnStatus_t probe_norm_bwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    norm_descs_t d;
    TRY(norm_setup(a, dt, &d));
    size_t ws = 0;
    TRY(cudnnGetNormalizationBackwardWorkspaceSize(h, NORM_ARGS, d.x, d.x, d.x, NULL, d.x, d.sb,
                                                   NULL, d.mv, &ws, 1));
    return cudnnNormalizationBackward(
        h, NORM_ARGS, ONE(dt), ZERO(dt), ONE(dt), ZERO(dt), d.x, ones(a, dt, B_X), d.x,
        ones(a, dt, B_X), d.x, ones(a, dt, B_X), NULL, NULL, d.x, ones(a, dt, B_X), d.sb, PBUF(),
        PBUF(), PBUF(), PBUF(), 1e-5, d.mv, PBUF(), PBUF(), NULL, zeros(a, ws), ws, NULL, 0, 1);
}

/* ---- tensor operations ----------------------------------------------------------------------
 * Tensors 1x4x3x3; compute types FLOAT (DOUBLE for DOUBLE data). */

static cudnnStatus_t probe_add_tensor(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnTensorDescriptor_t b, c;
    TRY(t4(a, &b, dt, 1, 4, 1, 1));
    TRY(t4(a, &c, dt, 1, 4, 3, 3));
    return cudnnAddTensor(h, ONE(dt), b, ones(a, dt, 4), ONE(dt), c, ones(a, dt, E_X));
}

static cudnnStatus_t probe_op_tensor(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnOpTensorDescriptor_t op = new_opt(a);
    TRY(cudnnSetOpTensorDescriptor(op, CUDNN_OP_TENSOR_ADD, float_compute(dt),
                                   CUDNN_NOT_PROPAGATE_NAN));
    cudnnTensorDescriptor_t x;
    TRY(t4(a, &x, dt, 1, 4, 3, 3));
    return cudnnOpTensor(h, op, ONE(dt), x, ones(a, dt, E_X), ONE(dt), x, ones(a, dt, E_X),
                         ZERO(dt), x, ones(a, dt, E_X));
}

static cudnnStatus_t probe_set_tensor(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnTensorDescriptor_t y;
    TRY(t4(a, &y, dt, 1, 4, 3, 3));
    return cudnnSetTensor(h, y, ones(a, dt, E_X), ONE(dt));
}

static cudnnStatus_t probe_scale_tensor(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnTensorDescriptor_t y;
    TRY(t4(a, &y, dt, 1, 4, 3, 3));
    return cudnnScaleTensor(h, y, ones(a, dt, E_X), ONE(dt));
}

/* NCHW to NHWC, same type. */
static cudnnStatus_t probe_transform(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnTensorDescriptor_t x = new_tensor(a), y = new_tensor(a);
    TRY(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, dt, 1, 4, 3, 3));
    TRY(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NHWC, dt, 1, 4, 3, 3));
    return cudnnTransformTensor(h, ONE(dt), x, ones(a, dt, E_X), ZERO(dt), y, ones(a, dt, E_X));
}

/* Pad H and W by 1 on each side. */
static cudnnStatus_t probe_transform_ex(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnTensorTransformDescriptor_t t = new_xform(a);
    const int32_t pad[4] = {0, 0, 1, 1};
    const uint32_t fold[4] = {1, 1, 1, 1};
    TRY(cudnnSetTensorTransformDescriptor(t, 4, layout(dt), pad, pad, fold, CUDNN_TRANSFORM_FOLD));
    cudnnTensorDescriptor_t x, y = new_tensor(a);
    TRY(t4(a, &x, dt, 1, 4, 3, 3));
    size_t bytes = 0;
    TRY(cudnnInitTransformDest(t, x, y, &bytes));
    return cudnnTransformTensorEx(h, t, ONE(dt), x, ones(a, dt, E_X), ZERO(dt), y, zeros(a, bytes));
}

/* Sum over H and W: 1x4x3x3 to 1x4x1x1, no indices. */
static cudnnStatus_t probe_reduce(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnReduceTensorDescriptor_t r = new_red(a);
    TRY(cudnnSetReduceTensorDescriptor(r, CUDNN_REDUCE_TENSOR_ADD, float_compute(dt),
                                       CUDNN_NOT_PROPAGATE_NAN, CUDNN_REDUCE_TENSOR_NO_INDICES,
                                       CUDNN_32BIT_INDICES));
    cudnnTensorDescriptor_t x, c;
    TRY(t4(a, &x, dt, 1, 4, 3, 3));
    TRY(t4(a, &c, dt, 1, 4, 1, 1));
    size_t ws = 0, idx = 0;
    TRY(cudnnGetReductionIndicesSize(h, r, x, c, &idx));
    TRY(cudnnGetReductionWorkspaceSize(h, r, x, c, &ws));
    return cudnnReduceTensor(h, r, zeros(a, idx), idx, zeros(a, ws), ws, ONE(dt), x,
                             ones(a, dt, E_X), ZERO(dt), c, ones(a, dt, 4));
}

/* ---- dropout, spatial transformer, CTC loss -------------------------------------------------- */

typedef struct {
    cudnnDropoutDescriptor_t drop;
    cudnnTensorDescriptor_t x;
    void *reserve;
    size_t reserve_size;
} dropout_t;

static cudnnStatus_t dropout_forward(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt, dropout_t *d)
{
    size_t states = 0;
    TRY(cudnnDropoutGetStatesSize(h, &states));
    d->drop = new_drop(a);
    TRY(cudnnSetDropoutDescriptor(d->drop, h, 0.5f, zeros(a, states), states, 1));
    TRY(t4(a, &d->x, dt, 1, 4, 3, 3));
    TRY(cudnnDropoutGetReserveSpaceSize(d->x, &d->reserve_size));
    d->reserve = zeros(a, d->reserve_size);
    return cudnnDropoutForward(h, d->drop, d->x, ones(a, dt, E_X), d->x, ones(a, dt, E_X),
                               d->reserve, d->reserve_size);
}

static cudnnStatus_t probe_dropout_fwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    dropout_t d;
    return dropout_forward(h, a, dt, &d);
}

static cudnnStatus_t probe_dropout_bwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    dropout_t d;
    TRY(dropout_forward(h, a, dt, &d));
    return cudnnDropoutBackward(h, d.drop, d.x, ones(a, dt, E_X), d.x, ones(a, dt, E_X), d.reserve,
                                d.reserve_size);
}

/* The transformed tensor is 1x4x3x3: theta 1x2x3, grid 1x3x3x2. */
static cudnnStatus_t stf_setup(arena_t *a, cudnnDataType_t dt,
                               cudnnSpatialTransformerDescriptor_t *st)
{
    *st = new_stf(a);
    const int dim[4] = {1, 4, 3, 3};
    return cudnnSetSpatialTransformerNdDescriptor(*st, CUDNN_SAMPLER_BILINEAR, dt, 4, dim);
}

static cudnnStatus_t probe_stf_grid_fwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnSpatialTransformerDescriptor_t st;
    TRY(stf_setup(a, dt, &st));
    return cudnnSpatialTfGridGeneratorForward(h, st, ones(a, dt, 6), ones(a, dt, 18));
}

static cudnnStatus_t probe_stf_grid_bwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnSpatialTransformerDescriptor_t st;
    TRY(stf_setup(a, dt, &st));
    return cudnnSpatialTfGridGeneratorBackward(h, st, ones(a, dt, 18), ones(a, dt, 6));
}

static cudnnStatus_t probe_stf_sampler_fwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnSpatialTransformerDescriptor_t st;
    cudnnTensorDescriptor_t x;
    TRY(stf_setup(a, dt, &st));
    TRY(t4(a, &x, dt, 1, 4, 3, 3));
    return cudnnSpatialTfSamplerForward(h, st, ONE(dt), x, ones(a, dt, E_X), ones(a, dt, 18),
                                        ZERO(dt), x, ones(a, dt, E_X));
}

static cudnnStatus_t probe_stf_sampler_bwd(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnSpatialTransformerDescriptor_t st;
    cudnnTensorDescriptor_t x;
    TRY(stf_setup(a, dt, &st));
    TRY(t4(a, &x, dt, 1, 4, 3, 3));
    return cudnnSpatialTfSamplerBackward(h, st, ONE(dt), x, ones(a, dt, E_X), ZERO(dt), x,
                                         ones(a, dt, E_X), ONE(dt), x, ones(a, dt, E_X),
                                         ones(a, dt, 18), ZERO(dt), ones(a, dt, 18));
}

/* probs T 4 x N 1 x A 3 (softmax-normalised inside), one label sequence {1, 2}; compType
 * FLOAT (DOUBLE for DOUBLE probs). */
static const int ctc_labels[2] = {1, 2}, ctc_label_lengths[1] = {2}, ctc_input_lengths[1] = {4};

static cudnnStatus_t ctc_setup(arena_t *a, cudnnDataType_t dt, cudnnTensorDescriptor_t *probs,
                               cudnnCTCLossDescriptor_t *ctc)
{
    *probs = new_tensor(a);
    const int dim[3] = {4, 1, 3}, stride[3] = {3, 3, 1};
    TRY(cudnnSetTensorNdDescriptor(*probs, dt, 3, dim, stride));
    *ctc = new_ctc(a);
    return cudnnSetCTCLossDescriptor_v8(*ctc, float_compute(dt), CUDNN_LOSS_NORMALIZATION_SOFTMAX,
                                        CUDNN_NOT_PROPAGATE_NAN, 2);
}

static cudnnStatus_t probe_ctc(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnTensorDescriptor_t probs;
    cudnnCTCLossDescriptor_t ctc;
    TRY(ctc_setup(a, dt, &probs, &ctc));
    const cudnnCTCLossAlgo_t algo = CUDNN_CTC_LOSS_ALGO_DETERMINISTIC;
    size_t ws = 0;
    TRY(cudnnGetCTCLossWorkspaceSize(h, probs, probs, ctc_labels, ctc_label_lengths,
                                     ctc_input_lengths, algo, ctc, &ws));
    return cudnnCTCLoss(h, probs, ones(a, dt, 12), ctc_labels, ctc_label_lengths, ctc_input_lengths,
                        ones(a, dt, 1), probs, ones(a, dt, 12), algo, ctc, zeros(a, ws), ws);
}

/* As probe_ctc, with the label arrays in the backend's memory. */
static cudnnStatus_t probe_ctc_v8(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt)
{
    cudnnTensorDescriptor_t probs;
    cudnnCTCLossDescriptor_t ctc;
    TRY(ctc_setup(a, dt, &probs, &ctc));
    const cudnnCTCLossAlgo_t algo = CUDNN_CTC_LOSS_ALGO_DETERMINISTIC;
    size_t ws = 0;
    TRY(cudnnGetCTCLossWorkspaceSize_v8(h, algo, ctc, probs, probs, &ws));
    return cudnnCTCLoss_v8(h, algo, ctc, probs, ones(a, dt, 12),
                           mem(a, sizeof ctc_labels, ctc_labels),
                           mem(a, sizeof ctc_label_lengths, ctc_label_lengths),
                           mem(a, sizeof ctc_input_lengths, ctc_input_lengths), ones(a, dt, 1),
                           probs, ones(a, dt, 12), ws, zeros(a, ws));
}

/* ---- the table ------------------------------------------------------------------------------ */

typedef cudnnStatus_t (*probe_fn)(cudnnHandle_t h, arena_t *a, cudnnDataType_t dt);

static const struct {
    const char *family, *op, *api;
    probe_fn fn;
} cases[] = {
    {"Convolution", "conv fwd (IMPLICIT_GEMM)", "cudnnConvolutionForward", probe_conv_fwd},
    {"Convolution", "conv bwd_data (ALGO_1)", "cudnnConvolutionBackwardData", probe_conv_bwd_data},
    {"Convolution", "conv bwd_filter (ALGO_1)", "cudnnConvolutionBackwardFilter",
     probe_conv_bwd_filter},
    {"Convolution", "conv bwd_bias", "cudnnConvolutionBackwardBias", probe_conv_bwd_bias},
    {"Convolution", "conv_bias_act fwd (IMPLICIT_PRECOMP_GEMM, RELU)",
     "cudnnConvolutionBiasActivationForward", probe_conv_bias_act},
    {"Convolution", "im2col", "cudnnIm2Col", probe_im2col},
    {"Pooling and activation", "pooling fwd (MAX 2x2)", "cudnnPoolingForward", probe_pool_fwd},
    {"Pooling and activation", "pooling bwd (MAX 2x2)", "cudnnPoolingBackward", probe_pool_bwd},
    {"Pooling and activation", "activation fwd (RELU)", "cudnnActivationForward", probe_act_fwd},
    {"Pooling and activation", "activation bwd (RELU)", "cudnnActivationBackward", probe_act_bwd},
    {"Softmax, LRN and divisive normalization", "softmax fwd (ACCURATE, CHANNEL)",
     "cudnnSoftmaxForward", probe_softmax_fwd},
    {"Softmax, LRN and divisive normalization", "softmax bwd (ACCURATE, CHANNEL)",
     "cudnnSoftmaxBackward", probe_softmax_bwd},
    {"Softmax, LRN and divisive normalization", "LRN fwd", "cudnnLRNCrossChannelForward",
     probe_lrn_fwd},
    {"Softmax, LRN and divisive normalization", "LRN bwd", "cudnnLRNCrossChannelBackward",
     probe_lrn_bwd},
    {"Softmax, LRN and divisive normalization", "divisive norm fwd",
     "cudnnDivisiveNormalizationForward", probe_divnorm_fwd},
    {"Softmax, LRN and divisive normalization", "divisive norm bwd",
     "cudnnDivisiveNormalizationBackward", probe_divnorm_bwd},
    {"Batch normalization", "batch norm fwd_inference", "cudnnBatchNormalizationForwardInference",
     probe_bn_infer},
    {"Batch normalization", "batch norm fwd_training", "cudnnBatchNormalizationForwardTraining",
     probe_bn_train},
    {"Batch normalization", "batch norm fwd_training Ex (BN_ACTIVATION)",
     "cudnnBatchNormalizationForwardTrainingEx", probe_bn_train_ex},
    {"Batch normalization", "batch norm bwd", "cudnnBatchNormalizationBackward", probe_bn_bwd},
    {"Batch normalization", "batch norm bwd Ex (BN_ACTIVATION)",
     "cudnnBatchNormalizationBackwardEx", probe_bn_bwd_ex},
    {"Batch normalization", "normalization fwd_inference", "cudnnNormalizationForwardInference",
     probe_norm_infer},
    {"Batch normalization", "normalization fwd_training", "cudnnNormalizationForwardTraining",
     probe_norm_train},
    {"Batch normalization", "normalization bwd", "cudnnNormalizationBackward", probe_norm_bwd},
    {"Tensor operations", "add_tensor", "cudnnAddTensor", probe_add_tensor},
    {"Tensor operations", "op_tensor (ADD)", "cudnnOpTensor", probe_op_tensor},
    {"Tensor operations", "set_tensor", "cudnnSetTensor", probe_set_tensor},
    {"Tensor operations", "scale_tensor", "cudnnScaleTensor", probe_scale_tensor},
    {"Tensor operations", "transform_tensor (NCHW to NHWC)", "cudnnTransformTensor",
     probe_transform},
    {"Tensor operations", "transform_tensor Ex (pad)", "cudnnTransformTensorEx",
     probe_transform_ex},
    {"Tensor operations", "reduce_tensor (ADD)", "cudnnReduceTensor", probe_reduce},
    {"Dropout, spatial transformer and CTC loss", "dropout fwd", "cudnnDropoutForward",
     probe_dropout_fwd},
    {"Dropout, spatial transformer and CTC loss", "dropout bwd", "cudnnDropoutBackward",
     probe_dropout_bwd},
    {"Dropout, spatial transformer and CTC loss", "spatial_tf grid fwd",
     "cudnnSpatialTfGridGeneratorForward", probe_stf_grid_fwd},
    {"Dropout, spatial transformer and CTC loss", "spatial_tf grid bwd",
     "cudnnSpatialTfGridGeneratorBackward", probe_stf_grid_bwd},
    {"Dropout, spatial transformer and CTC loss", "spatial_tf sampler fwd",
     "cudnnSpatialTfSamplerForward", probe_stf_sampler_fwd},
    {"Dropout, spatial transformer and CTC loss", "spatial_tf sampler bwd",
     "cudnnSpatialTfSamplerBackward", probe_stf_sampler_bwd},
    {"Dropout, spatial transformer and CTC loss", "CTC loss", "cudnnCTCLoss", probe_ctc},
    {"Dropout, spatial transformer and CTC loss", "CTC loss v8", "cudnnCTCLoss_v8", probe_ctc_v8},
};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

/* ---- reasons -------------------------------------------------------------------------------- */

#define REASON_MAX 512
#define REASON_LEN 240

static char reasons[REASON_MAX][REASON_LEN];
static int n_reasons;

/* The last error, made deterministic: the " (STATUS, file.c:123)" tail dropped, addresses
 * replaced, backticks turned into quotes; "..." ends what does not fit in `size`. */
static void last_error(char *out, size_t size)
{
    char msg[1024];
    cudnnGetLastErrorString(msg, sizeof msg);
    char *tail = strrchr(msg, '(');
    if (tail != NULL && tail > msg && tail[-1] == ' ' && strncmp(tail, "(CUDNN_STATUS_", 14) == 0)
        tail[-1] = '\0';
    size_t o = 0;
    const char *s = msg;
    while (*s && o + 8 < size) {
        if (s[0] == '0' && s[1] == 'x') {
            for (s += 2; strchr("0123456789abcdefABCDEF", *s) != NULL && *s; s++)
                ;
            memcpy(out + o, "ADDRESS", 7);
            o += 7;
            continue;
        }
        out[o++] = *s == '`' ? '\'' : *s == '\n' ? ' ' : *s;
        s++;
    }
    if (*s)
        memcpy(out + o, "...", 3), o += 3;
    out[o] = '\0';
}

/* Replaces each whole-word occurrence of `word` in s by "<T>", so that the reasons of the
 * columns of one row merge into one footnote. */
static void generalise(char *s, size_t size, const char *word)
{
    char out[REASON_LEN * 2];
    size_t n = strlen(word), o = 0;
    for (const char *p = s; *p && o + 4 < sizeof out;) {
        int before = p == s || !(p[-1] == '_' || (p[-1] >= 'A' && p[-1] <= 'Z') ||
                                 (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= '0' && p[-1] <= '9'));
        char c = p[n];
        int after = !(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                      (c >= '0' && c <= '9'));
        if (before && strncmp(p, word, n) == 0 && after) {
            memcpy(out + o, "<T>", 3);
            o += 3;
            p += n;
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
    if (o >= size)
        o = size - 1;
    memcpy(s, out, o);
    s[o] = '\0';
}

static int reason_id(const char *r)
{
    for (int i = 0; i < n_reasons; i++)
        if (strcmp(reasons[i], r) == 0)
            return i;
    if (n_reasons == REASON_MAX)
        die("too many distinct reasons");
    snprintf(reasons[n_reasons], REASON_LEN, "%s", r);
    return n_reasons++;
}

/* ---- main ----------------------------------------------------------------------------------- */

typedef struct {
    cudnnStatus_t status;
    int reason; /* footnote index, -1 for none */
} cell_t;

static cell_t cells[N_CASES][N_DTYPES][N_BACKENDS];

static int is_not_supported(cudnnStatus_t s)
{
    return CUDNN_STATUS_CATEGORY(s) == CUDNN_STATUS_NOT_SUPPORTED;
}

static cell_t measure(cudnnHandle_t h, freednnBackend_t b, int c, int d)
{
    arena_t a = {.backend = b, .n = 0};
    cell_t cell = {cases[c].fn(h, &a, dtypes[d].dt), -1};
    char why[REASON_LEN];
    if (cell.status != CUDNN_STATUS_SUCCESS) {
        last_error(why, sizeof why);
        generalise(why, sizeof why, dtypes[d].enumerator);
    }
#if defined(FD_PROBE_WITH_CUDART)
    if (b == FREEDNN_BACKEND_CUDA) {
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess && cell.status == CUDNN_STATUS_SUCCESS) {
            cell.status = CUDNN_STATUS_EXECUTION_FAILED_CUDART;
            snprintf(why, sizeof why, "%s: cudaDeviceSynchronize after the call: %s", cases[c].api,
                     cudaGetErrorString(e));
        }
    }
#endif
    if (cell.status != CUDNN_STATUS_SUCCESS)
        cell.reason = reason_id(why);
    arena_free(&a);
    return cell;
}

static void print_cell(const cell_t *cell, int available)
{
    if (!available)
        fputs("n-a", stdout);
    else if (cell->status == CUDNN_STATUS_SUCCESS)
        fputs("yes", stdout);
    else if (is_not_supported(cell->status))
        printf("no[%d]", cell->reason + 1);
    else
        printf("**error %s**[%d]", cudnnGetErrorString(cell->status), cell->reason + 1);
}

int main(int argc, char **argv)
{
    (void)argv;
    if (argc != 1) {
        fprintf(stderr, "usage: support_probe\n(prints the measured markdown section of "
                        "docs/support-matrix.md; see tools/gen_support_matrix.py --probe)\n");
        return 2;
    }
    cudnnHandle_t handles[N_BACKENDS] = {0};
    char na[N_BACKENDS][REASON_LEN] = {{0}};
    for (int b = 0; b < N_BACKENDS; b++) {
        if (freednnCreateWithBackend(&handles[b], backends[b]) != CUDNN_STATUS_SUCCESS) {
            handles[b] = NULL;
            last_error(na[b], sizeof na[b]);
        }
#if !defined(FD_PROBE_WITH_CUDART)
        else if (backends[b] == FREEDNN_BACKEND_CUDA) {
            cudnnDestroy(handles[b]);
            handles[b] = NULL;
            snprintf(na[b], sizeof na[b], "the probe was built without the CUDA runtime");
        }
#endif
    }

    int errors = 0;
    for (int c = 0; c < N_CASES; c++)
        for (int d = 0; d < N_DTYPES; d++)
            for (int b = 0; b < N_BACKENDS; b++) {
                if (handles[b] == NULL)
                    continue;
                cells[c][d][b] = measure(handles[b], backends[b], c, d);
                cudnnStatus_t s = cells[c][d][b].status;
                if (s != CUDNN_STATUS_SUCCESS && !is_not_supported(s)) {
                    errors++;
                    fprintf(stderr, "support_probe: %s %s on %s: %s: %s\n", cases[c].op,
                            dtypes[d].name, freednnGetBackendName(backends[b]),
                            cudnnGetErrorString(s), reasons[cells[c][d][b].reason]);
                }
            }

    puts("## Operations × data types × backends (measured)");
    puts("");
    puts("Measured by `tools/support_probe` (`tools/gen_support_matrix.py --probe` runs it): one");
    puts("tiny valid call per cell through the public API, on a handle of each backend");
    puts("(`freednnCreateWithBackend`). A cell reads ref/cpu/cuda: `yes` is CUDNN_STATUS_SUCCESS;");
    puts("`no[n]` is CUDNN_STATUS_NOT_SUPPORTED with reason n below, as `cudnnGetLastErrorString`");
    puts("gives it (`<T>` stands for the column's data type); `n-a`: the backend cannot run where");
    puts("this was measured (reason below); **error** is any other status: a valid call refused,");
    puts("which is a bug.");
    puts("");
    puts("Companion types, as cuDNN pairs them: integer data is NHWC, the rest NCHW; convolution");
    puts("of f16 and bf16 accumulates in FLOAT, of integer data in INT32 (bias FLOAT); batch norm");
    puts("scale, bias, mean and variance are FLOAT (DOUBLE for f64 data); op_tensor,");
    puts("reduce_tensor and CTC loss compute in FLOAT (DOUBLE for f64); alpha and beta are float");
    puts("(double for f64).");
    for (int b = 0; b < N_BACKENDS; b++)
        if (handles[b] == NULL)
            /* the reason varies with the build and machine (no nvcc, no driver, no GPU); the
             * committed table must not, so it goes to stderr and freednn-doctor explains it */
            printf("\n%s is n-a: it cannot run with the build and machine that measured this table "
                   "(`freednn-doctor` says why on yours)\n",
                   freednnGetBackendName(backends[b])),
                fprintf(stderr, "support_probe: %s is n-a: %s\n", freednnGetBackendName(backends[b]), na[b]);

    const char *family = NULL;
    for (int c = 0; c < N_CASES; c++) {
        if (family == NULL || strcmp(family, cases[c].family) != 0) {
            family = cases[c].family;
            printf("\n### %s\n\n| operation | function |", family);
            for (int d = 0; d < N_DTYPES; d++)
                printf(" %s |", dtypes[d].name);
            printf("\n|---|---|");
            for (int d = 0; d < N_DTYPES; d++)
                printf("---|");
            putchar('\n');
        }
        printf("| %s | `%s` |", cases[c].op, cases[c].api);
        for (int d = 0; d < N_DTYPES; d++) {
            putchar(' ');
            for (int b = 0; b < N_BACKENDS; b++) {
                if (b > 0)
                    putchar('/');
                print_cell(&cells[c][d][b], handles[b] != NULL);
            }
            fputs(" |", stdout);
        }
        putchar('\n');
    }
    if (n_reasons > 0) {
        puts("\n### Reasons\n");
        for (int i = 0; i < n_reasons; i++)
            printf("%d. `%s`\n", i + 1, reasons[i]);
    }
    for (int b = 0; b < N_BACKENDS; b++)
        if (handles[b] != NULL)
            cudnnDestroy(handles[b]);
    if (errors > 0)
        fprintf(stderr,
                "support_probe: %d cell(s) returned a status other than SUCCESS and "
                "NOT_SUPPORTED; they are marked **error** in the table\n",
                errors);
    return 0;
}
