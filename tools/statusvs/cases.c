/* SPDX-License-Identifier: MIT */
/*
 * cases.c - the bad-input table of statusvs: one bad argument per case, every other argument
 * valid, grouped by family (handle, tensor, filter, convolution, pooling, activation, LRN,
 * dropout, softmax, reduction, op-tensor, CTC, spatial transformer, batch norm). The third
 * CASE argument is the category freednn is expected to answer; docs/status-codes.md lists the
 * cases with NVIDIA's measured answers and the decision where the two differ.
 *
 * Cases register themselves (a constructor per CASE) and run in source order. A case's own
 * extra setup goes through SETUP(), which turns a failure into "setup-failed" rather than a
 * verdict on the case.
 */
#include <limits.h>
#include <stdlib.h>

#include "statusvs.h"

#define SV_MAX_CASES 256
static sv_case_t table[SV_MAX_CASES];
static int n_table;

static void sv_register(const char *id, int needs_handle, sv_cat_t expect,
                        cudnnStatus_t (*fn)(sv_ctx_t *), int line)
{
    if (n_table < SV_MAX_CASES)
        table[n_table++] = (sv_case_t){id, needs_handle, expect, fn, line};
}

static int by_line(const void *a, const void *b)
{
    return ((const sv_case_t *)a)->line - ((const sv_case_t *)b)->line;
}

const sv_case_t *sv_cases(int *n)
{
    static int sorted;
    if (!sorted) {
        qsort(table, (size_t)n_table, sizeof table[0], by_line);
        sorted = 1;
    }
    *n = n_table;
    return table;
}

#define CASE(name, needs_handle, expect)                                                       \
    static cudnnStatus_t case_##name(sv_ctx_t *c);                                             \
    __attribute__((constructor)) static void reg_##name(void)                                  \
    {                                                                                          \
        sv_register(#name, needs_handle, expect, case_##name, __LINE__);                       \
    }                                                                                          \
    static cudnnStatus_t case_##name(sv_ctx_t *c)

#define H 1 /* needs a handle */
#define D 0 /* descriptors only */
#define BAD SV_BAD
#define NOTSUP SV_NOTSUP
#define OK SV_SUCCESS

#define L (c->L)
#define HD (c->h)
#define BUF(name) (c->b->p[SV_BUF_##name])
#define SETUP(call)                                                                            \
    do {                                                                                       \
        if ((call) != CUDNN_STATUS_SUCCESS) {                                                  \
            c->setup_failed = #call;                                                           \
            return (cudnnStatus_t)SV_STATUS_SETUP;                                             \
        }                                                                                      \
    } while (0)

static const float one = 1.0f, zero = 0.0f;
#define ONE (&one)
#define ZERO (&zero)
#define NCHW CUDNN_TENSOR_NCHW
#define F32 CUDNN_DATA_FLOAT

/* ---- the valid objects every case starts from -------------------------------------------- */

#define TRY_SETUP(call)                                                                        \
    do {                                                                                       \
        if ((call) != CUDNN_STATUS_SUCCESS)                                                    \
            return #call;                                                                      \
    } while (0)

const char *sv_setup(sv_ctx_t *c)
{
    TRY_SETUP(L->cudnnCreateTensorDescriptor(&c->x));
    TRY_SETUP(L->cudnnSetTensor4dDescriptor(c->x, NCHW, F32, 2, 3, 8, 8));
    TRY_SETUP(L->cudnnCreateTensorDescriptor(&c->y));
    TRY_SETUP(L->cudnnSetTensor4dDescriptor(c->y, NCHW, F32, 2, 4, 8, 8));
    TRY_SETUP(L->cudnnCreateTensorDescriptor(&c->bias));
    TRY_SETUP(L->cudnnSetTensor4dDescriptor(c->bias, NCHW, F32, 1, 4, 1, 1));
    TRY_SETUP(L->cudnnCreateTensorDescriptor(&c->py));
    TRY_SETUP(L->cudnnSetTensor4dDescriptor(c->py, NCHW, F32, 2, 3, 4, 4));
    TRY_SETUP(L->cudnnCreateTensorDescriptor(&c->bn));
    TRY_SETUP(L->cudnnSetTensor4dDescriptor(c->bn, NCHW, F32, 1, 3, 1, 1));
    TRY_SETUP(L->cudnnCreateTensorDescriptor(&c->t)); /* a spare one, set by the case */
    TRY_SETUP(L->cudnnSetTensor4dDescriptor(c->t, NCHW, F32, 2, 3, 8, 8));
    const int pdim[3] = {8, 2, 5}, pstride[3] = {10, 5, 1};
    TRY_SETUP(L->cudnnCreateTensorDescriptor(&c->probs));
    TRY_SETUP(L->cudnnSetTensorNdDescriptor(c->probs, F32, 3, pdim, pstride));
    TRY_SETUP(L->cudnnCreateTensorDescriptor(&c->grads));
    TRY_SETUP(L->cudnnSetTensorNdDescriptor(c->grads, F32, 3, pdim, pstride));
    TRY_SETUP(L->cudnnCreateFilterDescriptor(&c->w));
    TRY_SETUP(L->cudnnSetFilter4dDescriptor(c->w, F32, NCHW, 4, 3, 3, 3));
    TRY_SETUP(L->cudnnCreateConvolutionDescriptor(&c->conv));
    TRY_SETUP(L->cudnnSetConvolution2dDescriptor(c->conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, F32));
    TRY_SETUP(L->cudnnCreatePoolingDescriptor(&c->pool));
    TRY_SETUP(L->cudnnSetPooling2dDescriptor(c->pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
    TRY_SETUP(L->cudnnCreateActivationDescriptor(&c->act));
    TRY_SETUP(L->cudnnSetActivationDescriptor(c->act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    TRY_SETUP(L->cudnnCreateLRNDescriptor(&c->lrn));
    TRY_SETUP(L->cudnnSetLRNDescriptor(c->lrn, 5, 1e-4, 0.75, 2.0));
    TRY_SETUP(L->cudnnCreateDropoutDescriptor(&c->drop));
    TRY_SETUP(L->cudnnCreateReduceTensorDescriptor(&c->red));
    TRY_SETUP(L->cudnnSetReduceTensorDescriptor(c->red, CUDNN_REDUCE_TENSOR_ADD, F32, CUDNN_NOT_PROPAGATE_NAN,
                                                CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES));
    TRY_SETUP(L->cudnnCreateOpTensorDescriptor(&c->op));
    TRY_SETUP(L->cudnnSetOpTensorDescriptor(c->op, CUDNN_OP_TENSOR_ADD, F32, CUDNN_NOT_PROPAGATE_NAN));
    TRY_SETUP(L->cudnnCreateCTCLossDescriptor(&c->ctc));
    TRY_SETUP(L->cudnnSetCTCLossDescriptor(c->ctc, F32));
    const int sdim[4] = {2, 3, 8, 8};
    TRY_SETUP(L->cudnnCreateSpatialTransformerDescriptor(&c->stf));
    TRY_SETUP(L->cudnnSetSpatialTransformerNdDescriptor(c->stf, CUDNN_SAMPLER_BILINEAR, F32, 4, sdim));
    return NULL;
}

void sv_teardown(sv_ctx_t *c)
{
    cudnnTensorDescriptor_t *ts[] = {&c->x, &c->y, &c->bias, &c->py, &c->bn, &c->t, &c->probs, &c->grads};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        if (*ts[i] != NULL)
            L->cudnnDestroyTensorDescriptor(*ts[i]);
    if (c->w != NULL)
        L->cudnnDestroyFilterDescriptor(c->w);
    if (c->conv != NULL)
        L->cudnnDestroyConvolutionDescriptor(c->conv);
    if (c->pool != NULL)
        L->cudnnDestroyPoolingDescriptor(c->pool);
    if (c->act != NULL)
        L->cudnnDestroyActivationDescriptor(c->act);
    if (c->lrn != NULL)
        L->cudnnDestroyLRNDescriptor(c->lrn);
    if (c->drop != NULL)
        L->cudnnDestroyDropoutDescriptor(c->drop);
    if (c->red != NULL)
        L->cudnnDestroyReduceTensorDescriptor(c->red);
    if (c->op != NULL)
        L->cudnnDestroyOpTensorDescriptor(c->op);
    if (c->ctc != NULL)
        L->cudnnDestroyCTCLossDescriptor(c->ctc);
    if (c->stf != NULL)
        L->cudnnDestroySpatialTransformerDescriptor(c->stf);
}

/* ---- handle and stream ------------------------------------------------------------------- */

CASE(handle_create_null, D, BAD) { return L->cudnnCreate(NULL); }
CASE(handle_destroy_null, D, OK) { return L->cudnnDestroy(NULL); }
CASE(handle_set_stream_null_handle, D, BAD) { return L->cudnnSetStream(NULL, NULL); }
CASE(handle_get_stream_null_handle, D, BAD)
{
    cudaStream_t s;
    return L->cudnnGetStream(NULL, &s);
}
CASE(handle_get_stream_null_out, H, BAD) { return L->cudnnGetStream(HD, NULL); }
CASE(handle_query_error_null_handle, D, BAD)
{
    cudnnStatus_t rs;
    return L->cudnnQueryRuntimeError(NULL, &rs, CUDNN_ERRQUERY_RAWCODE, NULL);
}
CASE(handle_query_error_null_rstatus, H, BAD)
{
    return L->cudnnQueryRuntimeError(HD, NULL, CUDNN_ERRQUERY_BLOCKING, NULL);
}
CASE(handle_query_error_bad_mode, H, BAD)
{
    cudnnStatus_t rs;
    return L->cudnnQueryRuntimeError(HD, &rs, (cudnnErrQueryMode_t)7, NULL);
}
CASE(handle_get_property_null, D, BAD) { return L->cudnnGetProperty(MAJOR_VERSION, NULL); }
CASE(handle_get_property_bad_type, D, BAD)
{
    int v;
    return L->cudnnGetProperty((libraryPropertyType)9, &v);
}

/* ---- tensor descriptors ------------------------------------------------------------------ */

CASE(tensor_create_null, D, BAD) { return L->cudnnCreateTensorDescriptor(NULL); }
CASE(tensor_set4d_null_desc, D, BAD) { return L->cudnnSetTensor4dDescriptor(NULL, NCHW, F32, 1, 3, 8, 8); }
CASE(tensor_set4d_n_zero, D, BAD) { return L->cudnnSetTensor4dDescriptor(c->t, NCHW, F32, 0, 3, 8, 8); }
CASE(tensor_set4d_c_negative, D, BAD) { return L->cudnnSetTensor4dDescriptor(c->t, NCHW, F32, 1, -3, 8, 8); }
CASE(tensor_set4d_w_zero, D, BAD) { return L->cudnnSetTensor4dDescriptor(c->t, NCHW, F32, 1, 3, 8, 0); }
CASE(tensor_set4d_bad_format, D, BAD)
{
    return L->cudnnSetTensor4dDescriptor(c->t, (cudnnTensorFormat_t)99, F32, 1, 3, 8, 8);
}
CASE(tensor_set4d_bad_dtype, D, BAD)
{
    return L->cudnnSetTensor4dDescriptor(c->t, NCHW, (cudnnDataType_t)99, 1, 3, 8, 8);
}
CASE(tensor_set4d_2pow31_elements, D, NOTSUP)
{
    return L->cudnnSetTensor4dDescriptor(c->t, NCHW, F32, 2, 1, 32768, 32768);
}
CASE(tensor_set4d_vect_c_float, D, BAD)
{
    return L->cudnnSetTensor4dDescriptor(c->t, CUDNN_TENSOR_NCHW_VECT_C, F32, 1, 4, 8, 8);
}
CASE(tensor_set4d_vect_c_int8x4_c3, D, BAD)
{
    return L->cudnnSetTensor4dDescriptor(c->t, CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x4, 1, 3, 8, 8);
}
CASE(tensor_set4dex_zero_stride, D, BAD)
{
    return L->cudnnSetTensor4dDescriptorEx(c->t, F32, 1, 3, 8, 8, 192, 0, 8, 1);
}
CASE(tensor_set4dex_h_zero, D, BAD)
{
    return L->cudnnSetTensor4dDescriptorEx(c->t, F32, 1, 3, 0, 8, 192, 64, 8, 1);
}
CASE(tensor_setnd_nbdims_1, D, BAD)
{
    const int d[1] = {8}, s[1] = {1};
    return L->cudnnSetTensorNdDescriptor(c->t, F32, 1, d, s);
}
CASE(tensor_setnd_nbdims_9, D, NOTSUP)
{
    const int d[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, s[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    return L->cudnnSetTensorNdDescriptor(c->t, F32, 9, d, s);
}
CASE(tensor_setnd_dim_zero, D, BAD)
{
    const int d[4] = {1, 3, 0, 8}, s[4] = {192, 64, 8, 1};
    return L->cudnnSetTensorNdDescriptor(c->t, F32, 4, d, s);
}
CASE(tensor_setnd_dim_negative, D, BAD)
{
    const int d[4] = {1, 3, -8, 8}, s[4] = {192, 64, 8, 1};
    return L->cudnnSetTensorNdDescriptor(c->t, F32, 4, d, s);
}
CASE(tensor_setnd_bad_dtype, D, BAD)
{
    const int d[4] = {1, 3, 8, 8}, s[4] = {192, 64, 8, 1};
    return L->cudnnSetTensorNdDescriptor(c->t, (cudnnDataType_t)99, 4, d, s);
}
CASE(tensor_setnd_null_dims, D, BAD)
{
    const int s[4] = {192, 64, 8, 1};
    return L->cudnnSetTensorNdDescriptor(c->t, F32, 4, NULL, s);
}
CASE(tensor_setnd_null_strides, D, BAD)
{
    const int d[4] = {1, 3, 8, 8};
    return L->cudnnSetTensorNdDescriptor(c->t, F32, 4, d, NULL);
}
CASE(tensor_setnd_extent_2pow31, D, NOTSUP)
{
    const int d[4] = {2, 1, 1, 1}, s[4] = {INT_MAX, 1, 1, 1};
    return L->cudnnSetTensorNdDescriptor(c->t, F32, 4, d, s);
}
CASE(tensor_setndex_nbdims_9, D, NOTSUP)
{
    const int d[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    return L->cudnnSetTensorNdDescriptorEx(c->t, NCHW, F32, 9, d);
}
CASE(tensor_setndex_bad_format, D, BAD)
{
    const int d[4] = {1, 3, 8, 8};
    return L->cudnnSetTensorNdDescriptorEx(c->t, (cudnnTensorFormat_t)99, F32, 4, d);
}
CASE(tensor_get4d_null_desc, D, BAD)
{
    cudnnDataType_t dt;
    int n, ch, hh, ww, ns, cs, hs, ws;
    return L->cudnnGetTensor4dDescriptor(NULL, &dt, &n, &ch, &hh, &ww, &ns, &cs, &hs, &ws);
}
CASE(tensor_size_null_out, D, BAD) { return L->cudnnGetTensorSizeInBytes(c->x, NULL); }

/* ---- filter descriptors ------------------------------------------------------------------ */

CASE(filter_create_null, D, BAD) { return L->cudnnCreateFilterDescriptor(NULL); }
CASE(filter_set4d_null_desc, D, BAD) { return L->cudnnSetFilter4dDescriptor(NULL, F32, NCHW, 4, 3, 3, 3); }
CASE(filter_set4d_k_zero, D, BAD) { return L->cudnnSetFilter4dDescriptor(c->w, F32, NCHW, 0, 3, 3, 3); }
CASE(filter_set4d_r_negative, D, BAD) { return L->cudnnSetFilter4dDescriptor(c->w, F32, NCHW, 4, 3, -1, 3); }
CASE(filter_set4d_bad_format, D, BAD)
{
    return L->cudnnSetFilter4dDescriptor(c->w, F32, (cudnnTensorFormat_t)99, 4, 3, 3, 3);
}
CASE(filter_set4d_bad_dtype, D, BAD)
{
    return L->cudnnSetFilter4dDescriptor(c->w, (cudnnDataType_t)99, NCHW, 4, 3, 3, 3);
}
CASE(filter_setnd_nbdims_9, D, NOTSUP)
{
    const int d[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    return L->cudnnSetFilterNdDescriptor(c->w, F32, NCHW, 9, d);
}
CASE(filter_setnd_null_dims, D, BAD) { return L->cudnnSetFilterNdDescriptor(c->w, F32, NCHW, 4, NULL); }

/* ---- convolution descriptors ------------------------------------------------------------- */

CASE(conv_create_null, D, BAD) { return L->cudnnCreateConvolutionDescriptor(NULL); }
CASE(conv_set2d_null_desc, D, BAD)
{
    return L->cudnnSetConvolution2dDescriptor(NULL, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, F32);
}
CASE(conv_set2d_pad_negative, D, BAD)
{
    return L->cudnnSetConvolution2dDescriptor(c->conv, -1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, F32);
}
CASE(conv_set2d_stride_zero, D, BAD)
{
    return L->cudnnSetConvolution2dDescriptor(c->conv, 1, 1, 0, 1, 1, 1, CUDNN_CROSS_CORRELATION, F32);
}
CASE(conv_set2d_dilation_zero, D, BAD)
{
    return L->cudnnSetConvolution2dDescriptor(c->conv, 1, 1, 1, 1, 1, 0, CUDNN_CROSS_CORRELATION, F32);
}
CASE(conv_set2d_bad_mode, D, BAD)
{
    return L->cudnnSetConvolution2dDescriptor(c->conv, 1, 1, 1, 1, 1, 1, (cudnnConvolutionMode_t)5, F32);
}
CASE(conv_set2d_bad_compute_type, D, BAD)
{
    return L->cudnnSetConvolution2dDescriptor(c->conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                              (cudnnDataType_t)99);
}
CASE(conv_setnd_array_length_7, D, NOTSUP)
{
    const int p[7] = {0}, s[7] = {1, 1, 1, 1, 1, 1, 1}, d[7] = {1, 1, 1, 1, 1, 1, 1};
    return L->cudnnSetConvolutionNdDescriptor(c->conv, 7, p, s, d, CUDNN_CROSS_CORRELATION, F32);
}
CASE(conv_setnd_null_pads, D, BAD)
{
    const int s[2] = {1, 1}, d[2] = {1, 1};
    return L->cudnnSetConvolutionNdDescriptor(c->conv, 2, NULL, s, d, CUDNN_CROSS_CORRELATION, F32);
}
CASE(conv_group_count_zero, D, BAD) { return L->cudnnSetConvolutionGroupCount(c->conv, 0); }
CASE(conv_group_count_negative, D, BAD) { return L->cudnnSetConvolutionGroupCount(c->conv, -2); }
CASE(conv_math_type_bad, D, BAD) { return L->cudnnSetConvolutionMathType(c->conv, (cudnnMathType_t)42); }
CASE(conv_reorder_type_bad, D, BAD)
{
    return L->cudnnSetConvolutionReorderType(c->conv, (cudnnReorderType_t)42);
}
CASE(conv_outdim_channel_mismatch, D, BAD)
{
    int n, k, p, q;
    SETUP(L->cudnnSetFilter4dDescriptor(c->w, F32, NCHW, 4, 5, 3, 3));
    return L->cudnnGetConvolution2dForwardOutputDim(c->conv, c->x, c->w, &n, &k, &p, &q);
}
CASE(conv_outdim_filter_larger_than_input, D, BAD)
{
    int n, k, p, q;
    SETUP(L->cudnnSetFilter4dDescriptor(c->w, F32, NCHW, 4, 3, 11, 11));
    return L->cudnnGetConvolution2dForwardOutputDim(c->conv, c->x, c->w, &n, &k, &p, &q);
}
CASE(conv_outdim_pad_overflow, D, BAD)
{
    int n, k, p, q;
    SETUP(L->cudnnSetConvolution2dDescriptor(c->conv, 1 << 30, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, F32));
    return L->cudnnGetConvolution2dForwardOutputDim(c->conv, c->x, c->w, &n, &k, &p, &q);
}
CASE(conv_outdim_null_out, D, BAD)
{
    int n, k, p;
    return L->cudnnGetConvolution2dForwardOutputDim(c->conv, c->x, c->w, &n, &k, &p, NULL);
}
CASE(conv_outdim_group_mismatch, D, BAD)
{
    int n, k, p, q;
    SETUP(L->cudnnSetConvolutionGroupCount(c->conv, 2)); /* C 3 is not 2 x filter C 3 */
    return L->cudnnGetConvolution2dForwardOutputDim(c->conv, c->x, c->w, &n, &k, &p, &q);
}

/* ---- convolution compute ----------------------------------------------------------------- */

#define FWD(h_, alpha_, xd, xp, wd, wp, algo, ws, wss, beta_, yd, yp)                         \
    L->cudnnConvolutionForward(h_, alpha_, xd, xp, wd, wp, c->conv, algo, ws, wss, beta_, yd, yp)
#define ALGO0 CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM

CASE(conv_fwd_null_handle, D, BAD)
{
    return FWD(NULL, ONE, c->x, BUF(X), c->w, BUF(W), ALGO0, BUF(WS), 0, ZERO, c->y, BUF(Y));
}
CASE(conv_fwd_null_x, H, BAD)
{
    return FWD(HD, ONE, c->x, NULL, c->w, BUF(W), ALGO0, BUF(WS), 0, ZERO, c->y, BUF(Y));
}
CASE(conv_fwd_null_w, H, BAD)
{
    return FWD(HD, ONE, c->x, BUF(X), c->w, NULL, ALGO0, BUF(WS), 0, ZERO, c->y, BUF(Y));
}
CASE(conv_fwd_null_y, H, BAD)
{
    return FWD(HD, ONE, c->x, BUF(X), c->w, BUF(W), ALGO0, BUF(WS), 0, ZERO, c->y, NULL);
}
CASE(conv_fwd_null_alpha, H, BAD)
{
    return FWD(HD, NULL, c->x, BUF(X), c->w, BUF(W), ALGO0, BUF(WS), 0, ZERO, c->y, BUF(Y));
}
CASE(conv_fwd_null_beta, H, BAD)
{
    return FWD(HD, ONE, c->x, BUF(X), c->w, BUF(W), ALGO0, BUF(WS), 0, NULL, c->y, BUF(Y));
}
CASE(conv_fwd_null_xdesc, H, BAD)
{
    return FWD(HD, ONE, NULL, BUF(X), c->w, BUF(W), ALGO0, BUF(WS), 0, ZERO, c->y, BUF(Y));
}
CASE(conv_fwd_null_wdesc, H, BAD)
{
    return FWD(HD, ONE, c->x, BUF(X), NULL, BUF(W), ALGO0, BUF(WS), 0, ZERO, c->y, BUF(Y));
}
CASE(conv_fwd_null_conv_desc, H, BAD)
{
    return L->cudnnConvolutionForward(HD, ONE, c->x, BUF(X), c->w, BUF(W), NULL, ALGO0, BUF(WS), 0, ZERO,
                                      c->y, BUF(Y));
}
CASE(conv_fwd_y_spatial_off_by_one, H, BAD)
{
    SETUP(L->cudnnSetTensor4dDescriptor(c->t, NCHW, F32, 2, 4, 9, 8));
    return FWD(HD, ONE, c->x, BUF(X), c->w, BUF(W), ALGO0, BUF(WS), 0, ZERO, c->t, BUF(Y));
}
CASE(conv_fwd_y_channels_wrong, H, BAD)
{
    SETUP(L->cudnnSetTensor4dDescriptor(c->t, NCHW, F32, 2, 5, 8, 8));
    return FWD(HD, ONE, c->x, BUF(X), c->w, BUF(W), ALGO0, BUF(WS), 0, ZERO, c->t, BUF(Y));
}
CASE(conv_fwd_x_channel_mismatch, H, BAD)
{
    SETUP(L->cudnnSetTensor4dDescriptor(c->t, NCHW, F32, 2, 5, 8, 8));
    return FWD(HD, ONE, c->t, BUF(X), c->w, BUF(W), ALGO0, BUF(WS), 0, ZERO, c->y, BUF(Y));
}
CASE(conv_fwd_x_double, H, NOTSUP)
{
    SETUP(L->cudnnSetTensor4dDescriptor(c->t, NCHW, CUDNN_DATA_DOUBLE, 2, 3, 8, 8));
    return FWD(HD, ONE, c->t, BUF(X), c->w, BUF(W), ALGO0, BUF(WS), 0, ZERO, c->y, BUF(Y));
}
CASE(conv_fwd_bad_algo, H, NOTSUP)
{
    return FWD(HD, ONE, c->x, BUF(X), c->w, BUF(W), (cudnnConvolutionFwdAlgo_t)77, BUF(WS), 0, ZERO, c->y,
               BUF(Y));
}
CASE(conv_fwd_in_place, H, NOTSUP)
{
    SETUP(L->cudnnSetFilter4dDescriptor(c->w, F32, NCHW, 3, 3, 3, 3));
    return FWD(HD, ONE, c->x, BUF(X), c->w, BUF(W), ALGO0, BUF(WS), 0, ZERO, c->x, BUF(X));
}
CASE(conv_fwd_workspace_too_small, H, BAD)
{
    /* The first of these algorithms that asks this library for workspace gets one byte less
     * (in a real buffer of SV_BUF_BYTES). */
    static const cudnnConvolutionFwdAlgo_t algos[] = {
        CUDNN_CONVOLUTION_FWD_ALGO_GEMM, CUDNN_CONVOLUTION_FWD_ALGO_FFT,
        CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED};
    for (size_t i = 0; i < sizeof algos / sizeof algos[0]; i++) {
        size_t need = 0;
        if (L->cudnnGetConvolutionForwardWorkspaceSize(HD, c->x, c->w, c->conv, c->y, algos[i], &need) !=
                CUDNN_STATUS_SUCCESS ||
            need == 0 || need > SV_BUF_BYTES)
            continue;
        return FWD(HD, ONE, c->x, BUF(X), c->w, BUF(W), algos[i], BUF(WS), need - 1, ZERO, c->y, BUF(Y));
    }
    c->setup_failed = "no GEMM / FFT / WINOGRAD_NONFUSED algorithm asks for workspace";
    return (cudnnStatus_t)SV_STATUS_SETUP;
}
CASE(conv_fwd_rank_mismatch, H, BAD)
{
    const int d[5] = {2, 3, 8, 8, 8}, s[5] = {1536, 512, 64, 8, 1};
    SETUP(L->cudnnSetTensorNdDescriptor(c->t, F32, 5, d, s));
    return FWD(HD, ONE, c->t, BUF(X), c->w, BUF(W), ALGO0, BUF(WS), 0, ZERO, c->y, BUF(Y));
}
CASE(conv_ws_size_null_out, H, BAD)
{
    return L->cudnnGetConvolutionForwardWorkspaceSize(HD, c->x, c->w, c->conv, c->y, ALGO0, NULL);
}
CASE(conv_ws_size_bad_algo, H, NOTSUP)
{
    size_t s;
    return L->cudnnGetConvolutionForwardWorkspaceSize(HD, c->x, c->w, c->conv, c->y,
                                                      (cudnnConvolutionFwdAlgo_t)77, &s);
}
CASE(conv_get_algo_v7_null_count, H, BAD)
{
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    return L->cudnnGetConvolutionForwardAlgorithm_v7(HD, c->x, c->w, c->conv, c->y, 8, NULL, perf);
}
CASE(conv_get_algo_v7_requested_zero, H, BAD)
{
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    int n;
    return L->cudnnGetConvolutionForwardAlgorithm_v7(HD, c->x, c->w, c->conv, c->y, 0, &n, perf);
}
CASE(conv_bwd_data_null_dx, H, BAD)
{
    return L->cudnnConvolutionBackwardData(HD, ONE, c->w, BUF(W), c->y, BUF(DY), c->conv,
                                           CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, BUF(WS), 0, ZERO, c->x, NULL);
}
CASE(conv_bwd_data_dy_shape_mismatch, H, BAD)
{
    SETUP(L->cudnnSetTensor4dDescriptor(c->t, NCHW, F32, 2, 4, 7, 8));
    return L->cudnnConvolutionBackwardData(HD, ONE, c->w, BUF(W), c->t, BUF(DY), c->conv,
                                           CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, BUF(WS), 0, ZERO, c->x,
                                           BUF(DX));
}
CASE(conv_bwd_data_bad_algo, H, NOTSUP)
{
    return L->cudnnConvolutionBackwardData(HD, ONE, c->w, BUF(W), c->y, BUF(DY), c->conv,
                                           (cudnnConvolutionBwdDataAlgo_t)77, BUF(WS), 0, ZERO, c->x,
                                           BUF(DX));
}
CASE(conv_bwd_filter_null_dw, H, BAD)
{
    return L->cudnnConvolutionBackwardFilter(HD, ONE, c->x, BUF(X), c->y, BUF(DY), c->conv,
                                             CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, BUF(WS), 0, ZERO, c->w,
                                             NULL);
}
CASE(conv_bwd_filter_bad_algo, H, NOTSUP)
{
    return L->cudnnConvolutionBackwardFilter(HD, ONE, c->x, BUF(X), c->y, BUF(DY), c->conv,
                                             (cudnnConvolutionBwdFilterAlgo_t)77, BUF(WS), 0, ZERO, c->w,
                                             BUF(DW));
}
CASE(conv_bwd_bias_channel_mismatch, H, BAD)
{
    SETUP(L->cudnnSetTensor4dDescriptor(c->t, NCHW, F32, 1, 5, 1, 1));
    return L->cudnnConvolutionBackwardBias(HD, ONE, c->y, BUF(DY), ZERO, c->t, BUF(P0));
}
CASE(conv_bwd_bias_null_db, H, BAD)
{
    return L->cudnnConvolutionBackwardBias(HD, ONE, c->y, BUF(DY), ZERO, c->bias, NULL);
}

/* ---- pooling ----------------------------------------------------------------------------- */

CASE(pool_create_null, D, BAD) { return L->cudnnCreatePoolingDescriptor(NULL); }
CASE(pool_set2d_window_zero, D, BAD)
{
    return L->cudnnSetPooling2dDescriptor(c->pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 0, 2, 0, 0, 2, 2);
}
CASE(pool_set2d_stride_zero, D, BAD)
{
    return L->cudnnSetPooling2dDescriptor(c->pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 0, 2);
}
CASE(pool_set2d_bad_mode, D, BAD)
{
    return L->cudnnSetPooling2dDescriptor(c->pool, (cudnnPoolingMode_t)9, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2);
}
CASE(pool_set2d_bad_nan_opt, D, BAD)
{
    return L->cudnnSetPooling2dDescriptor(c->pool, CUDNN_POOLING_MAX, (cudnnNanPropagation_t)5, 2, 2, 0, 0, 2, 2);
}
CASE(pool_set2d_pad_negative, D, OK) /* 9.19 accepts it; so do we (contract §1.2.2) */
{
    return L->cudnnSetPooling2dDescriptor(c->pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, -1, 0, 2, 2);
}
CASE(pool_setnd_nbdims_1, D, OK) /* 9.19 accepts it too */
{
    const int w[1] = {2}, p[1] = {0}, s[1] = {2};
    return L->cudnnSetPoolingNdDescriptor(c->pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 1, w, p, s);
}
CASE(pool_setnd_null_window, D, BAD)
{
    const int p[2] = {0, 0}, s[2] = {2, 2};
    return L->cudnnSetPoolingNdDescriptor(c->pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, NULL, p, s);
}
CASE(pool_outdim_null_out, D, BAD)
{
    int n, ch, hh;
    return L->cudnnGetPooling2dForwardOutputDim(c->pool, c->x, &n, &ch, &hh, NULL);
}
CASE(pool_fwd_null_x, H, BAD)
{
    return L->cudnnPoolingForward(HD, c->pool, ONE, c->x, NULL, ZERO, c->py, BUF(Y));
}
CASE(pool_fwd_y_shape_mismatch, H, BAD)
{
    return L->cudnnPoolingForward(HD, c->pool, ONE, c->x, BUF(X), ZERO, c->y, BUF(Y));
}
CASE(pool_fwd_dtype_mismatch, H, BAD)
{
    SETUP(L->cudnnSetTensor4dDescriptor(c->t, NCHW, CUDNN_DATA_HALF, 2, 3, 4, 4));
    return L->cudnnPoolingForward(HD, c->pool, ONE, c->x, BUF(X), ZERO, c->t, BUF(Y));
}
CASE(pool_fwd_null_desc, H, BAD)
{
    return L->cudnnPoolingForward(HD, NULL, ONE, c->x, BUF(X), ZERO, c->py, BUF(Y));
}
CASE(pool_bwd_null_dy, H, BAD)
{
    return L->cudnnPoolingBackward(HD, c->pool, ONE, c->py, BUF(Y), c->py, NULL, c->x, BUF(X), ZERO, c->x,
                                   BUF(DX));
}
CASE(pool_bwd_dx_shape_mismatch, H, BAD)
{
    return L->cudnnPoolingBackward(HD, c->pool, ONE, c->py, BUF(Y), c->py, BUF(DY), c->x, BUF(X), ZERO, c->y,
                                   BUF(DX));
}

/* ---- activation -------------------------------------------------------------------------- */

CASE(act_create_null, D, BAD) { return L->cudnnCreateActivationDescriptor(NULL); }
CASE(act_set_bad_mode, D, BAD)
{
    return L->cudnnSetActivationDescriptor(c->act, (cudnnActivationMode_t)42, CUDNN_NOT_PROPAGATE_NAN, 0.0);
}
CASE(act_set_bad_nan_opt, D, BAD)
{
    return L->cudnnSetActivationDescriptor(c->act, CUDNN_ACTIVATION_RELU, (cudnnNanPropagation_t)5, 0.0);
}
CASE(act_set_null_desc, D, BAD)
{
    return L->cudnnSetActivationDescriptor(NULL, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0);
}
CASE(act_fwd_null_x, H, BAD)
{
    return L->cudnnActivationForward(HD, c->act, ONE, c->x, NULL, ZERO, c->x, BUF(Y));
}
CASE(act_fwd_null_alpha, H, BAD)
{
    return L->cudnnActivationForward(HD, c->act, NULL, c->x, BUF(X), ZERO, c->x, BUF(Y));
}
CASE(act_fwd_shape_mismatch, H, BAD)
{
    return L->cudnnActivationForward(HD, c->act, ONE, c->x, BUF(X), ZERO, c->y, BUF(Y));
}
CASE(act_fwd_dtype_mismatch, H, BAD)
{
    SETUP(L->cudnnSetTensor4dDescriptor(c->t, NCHW, CUDNN_DATA_DOUBLE, 2, 3, 8, 8));
    return L->cudnnActivationForward(HD, c->act, ONE, c->x, BUF(X), ZERO, c->t, BUF(Y));
}
CASE(act_fwd_in_place_strides_differ, H, BAD)
{
    SETUP(L->cudnnSetTensor4dDescriptorEx(c->t, F32, 2, 3, 8, 8, 1, 2, 48, 6)); /* NHWC strides */
    return L->cudnnActivationForward(HD, c->act, ONE, c->x, BUF(X), ZERO, c->t, BUF(X));
}
CASE(act_fwd_identity_mode, H, OK) /* NVIDIA documents IDENTITY for the fused call only; we compute it */
{
    SETUP(L->cudnnSetActivationDescriptor(c->act, CUDNN_ACTIVATION_IDENTITY, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    return L->cudnnActivationForward(HD, c->act, ONE, c->x, BUF(X), ZERO, c->x, BUF(Y));
}
CASE(act_bwd_null_dy, H, BAD)
{
    return L->cudnnActivationBackward(HD, c->act, ONE, c->x, BUF(Y), c->x, NULL, c->x, BUF(X), ZERO, c->x,
                                      BUF(DX));
}
CASE(act_bwd_shape_mismatch, H, BAD)
{
    return L->cudnnActivationBackward(HD, c->act, ONE, c->x, BUF(Y), c->x, BUF(DY), c->x, BUF(X), ZERO, c->y,
                                      BUF(DX));
}

/* ---- LRN --------------------------------------------------------------------------------- */

CASE(lrn_create_null, D, BAD) { return L->cudnnCreateLRNDescriptor(NULL); }
CASE(lrn_set_n_zero, D, BAD) { return L->cudnnSetLRNDescriptor(c->lrn, 0, 1e-4, 0.75, 2.0); }
CASE(lrn_set_n_17, D, BAD) { return L->cudnnSetLRNDescriptor(c->lrn, 17, 1e-4, 0.75, 2.0); }
CASE(lrn_set_beta_too_small, D, BAD) { return L->cudnnSetLRNDescriptor(c->lrn, 5, 1e-4, 0.001, 2.0); }
CASE(lrn_set_k_too_small, D, BAD) { return L->cudnnSetLRNDescriptor(c->lrn, 5, 1e-4, 0.75, 1e-6); }
CASE(lrn_fwd_bad_mode, H, BAD)
{
    return L->cudnnLRNCrossChannelForward(HD, c->lrn, (cudnnLRNMode_t)3, ONE, c->x, BUF(X), ZERO, c->x,
                                          BUF(Y));
}
CASE(lrn_fwd_shape_mismatch, H, NOTSUP) /* as cuDNN documents */
{
    return L->cudnnLRNCrossChannelForward(HD, c->lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1, ONE, c->x, BUF(X), ZERO,
                                          c->y, BUF(Y));
}
CASE(lrn_fwd_null_y, H, BAD)
{
    return L->cudnnLRNCrossChannelForward(HD, c->lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1, ONE, c->x, BUF(X), ZERO,
                                          c->x, NULL);
}

/* ---- dropout ----------------------------------------------------------------------------- */

CASE(dropout_create_null, D, BAD) { return L->cudnnCreateDropoutDescriptor(NULL); }
CASE(dropout_states_size_null_out, H, BAD) { return L->cudnnDropoutGetStatesSize(HD, NULL); }
CASE(dropout_reserve_size_null_out, D, BAD) { return L->cudnnDropoutGetReserveSpaceSize(c->x, NULL); }
CASE(dropout_reserve_size_null_desc, D, BAD)
{
    size_t s;
    return L->cudnnDropoutGetReserveSpaceSize(NULL, &s);
}
CASE(dropout_set_states_too_small, H, BAD)
{
    size_t need = 0;
    SETUP(L->cudnnDropoutGetStatesSize(HD, &need));
    return L->cudnnSetDropoutDescriptor(c->drop, HD, 0.5f, BUF(STATES), need / 2, 1234ull);
}
CASE(dropout_set_p_above_one, H, BAD) /* 9.19 accepts p = 1.5; we reject it (contract §4.6) */
{
    size_t need = 0;
    SETUP(L->cudnnDropoutGetStatesSize(HD, &need));
    if (need > SV_STATES_BYTES) {
        c->setup_failed = "dropout states larger than the buffer";
        return (cudnnStatus_t)SV_STATUS_SETUP;
    }
    return L->cudnnSetDropoutDescriptor(c->drop, HD, 1.5f, BUF(STATES), need, 1234ull);
}
CASE(dropout_fwd_reserve_too_small, H, BAD)
{
    size_t need = 0, reserve = 0;
    SETUP(L->cudnnDropoutGetStatesSize(HD, &need));
    if (need > SV_STATES_BYTES) {
        c->setup_failed = "dropout states larger than the buffer";
        return (cudnnStatus_t)SV_STATUS_SETUP;
    }
    SETUP(L->cudnnSetDropoutDescriptor(c->drop, HD, 0.5f, BUF(STATES), need, 1234ull));
    SETUP(L->cudnnDropoutGetReserveSpaceSize(c->x, &reserve));
    return L->cudnnDropoutForward(HD, c->drop, c->x, BUF(X), c->x, BUF(Y), BUF(WS), reserve / 2);
}

/* ---- softmax ----------------------------------------------------------------------------- */

CASE(softmax_fwd_bad_algo, H, BAD)
{
    return L->cudnnSoftmaxForward(HD, (cudnnSoftmaxAlgorithm_t)7, CUDNN_SOFTMAX_MODE_CHANNEL, ONE, c->x,
                                  BUF(X), ZERO, c->x, BUF(Y));
}
CASE(softmax_fwd_bad_mode, H, BAD)
{
    return L->cudnnSoftmaxForward(HD, CUDNN_SOFTMAX_ACCURATE, (cudnnSoftmaxMode_t)7, ONE, c->x, BUF(X), ZERO,
                                  c->x, BUF(Y));
}
CASE(softmax_fwd_shape_mismatch, H, BAD)
{
    return L->cudnnSoftmaxForward(HD, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, ONE, c->x, BUF(X),
                                  ZERO, c->y, BUF(Y));
}
CASE(softmax_fwd_null_alpha, H, BAD)
{
    return L->cudnnSoftmaxForward(HD, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, NULL, c->x, BUF(X),
                                  ZERO, c->x, BUF(Y));
}
CASE(softmax_fwd_null_y, H, BAD)
{
    return L->cudnnSoftmaxForward(HD, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, ONE, c->x, BUF(X),
                                  ZERO, c->x, NULL);
}

/* ---- reduction --------------------------------------------------------------------------- */

CASE(reduce_create_null, D, BAD) { return L->cudnnCreateReduceTensorDescriptor(NULL); }
CASE(reduce_set_bad_op, D, BAD)
{
    return L->cudnnSetReduceTensorDescriptor(c->red, (cudnnReduceTensorOp_t)42, F32, CUDNN_NOT_PROPAGATE_NAN,
                                             CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES);
}
CASE(reduce_set_bad_indices, D, BAD)
{
    return L->cudnnSetReduceTensorDescriptor(c->red, CUDNN_REDUCE_TENSOR_ADD, F32, CUDNN_NOT_PROPAGATE_NAN,
                                             (cudnnReduceTensorIndices_t)5, CUDNN_32BIT_INDICES);
}
CASE(reduce_set_bad_comp_type, D, BAD)
{
    return L->cudnnSetReduceTensorDescriptor(c->red, CUDNN_REDUCE_TENSOR_ADD, (cudnnDataType_t)99,
                                             CUDNN_NOT_PROPAGATE_NAN, CUDNN_REDUCE_TENSOR_NO_INDICES,
                                             CUDNN_32BIT_INDICES);
}
CASE(reduce_ws_size_null_out, H, BAD)
{
    return L->cudnnGetReductionWorkspaceSize(HD, c->red, c->x, c->bn, NULL);
}
CASE(reduce_shape_mismatch, H, BAD)
{
    SETUP(L->cudnnSetTensor4dDescriptor(c->t, NCHW, F32, 1, 2, 1, 1)); /* C 2 is neither 1 nor 3 */
    return L->cudnnReduceTensor(HD, c->red, NULL, 0, BUF(WS), SV_BUF_BYTES, ONE, c->x, BUF(X), ZERO, c->t,
                                BUF(Y));
}
CASE(reduce_indices_too_small, H, BAD)
{
    SETUP(L->cudnnSetReduceTensorDescriptor(c->red, CUDNN_REDUCE_TENSOR_MAX, F32, CUDNN_NOT_PROPAGATE_NAN,
                                            CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES));
    return L->cudnnReduceTensor(HD, c->red, BUF(P0), 2, BUF(WS), SV_BUF_BYTES, ONE, c->x, BUF(X), ZERO, c->bn,
                                BUF(Y));
}
CASE(reduce_null_a, H, BAD)
{
    return L->cudnnReduceTensor(HD, c->red, NULL, 0, BUF(WS), SV_BUF_BYTES, ONE, c->x, NULL, ZERO, c->bn,
                                BUF(Y));
}

/* ---- op-tensor and the other tensor ops -------------------------------------------------- */

CASE(optensor_create_null, D, BAD) { return L->cudnnCreateOpTensorDescriptor(NULL); }
CASE(optensor_set_bad_op, D, BAD)
{
    return L->cudnnSetOpTensorDescriptor(c->op, (cudnnOpTensorOp_t)42, F32, CUDNN_NOT_PROPAGATE_NAN);
}
CASE(optensor_set_bad_comp_type, D, BAD)
{
    return L->cudnnSetOpTensorDescriptor(c->op, CUDNN_OP_TENSOR_ADD, (cudnnDataType_t)99, CUDNN_NOT_PROPAGATE_NAN);
}
CASE(optensor_b_shape_mismatch, H, BAD)
{
    SETUP(L->cudnnSetTensor4dDescriptor(c->t, NCHW, F32, 1, 2, 1, 1));
    return L->cudnnOpTensor(HD, c->op, ONE, c->x, BUF(X), ONE, c->t, BUF(P0), ZERO, c->x, BUF(Y));
}
CASE(optensor_dtype_mismatch, H, BAD)
{
    SETUP(L->cudnnSetTensor4dDescriptor(c->t, NCHW, CUDNN_DATA_DOUBLE, 2, 3, 8, 8));
    return L->cudnnOpTensor(HD, c->op, ONE, c->t, BUF(X), ONE, c->x, BUF(P0), ZERO, c->x, BUF(Y));
}
CASE(optensor_null_c, H, BAD)
{
    return L->cudnnOpTensor(HD, c->op, ONE, c->x, BUF(X), ONE, c->x, BUF(P0), ZERO, c->x, NULL);
}
CASE(add_tensor_shape_mismatch, H, BAD)
{
    SETUP(L->cudnnSetTensor4dDescriptor(c->t, NCHW, F32, 1, 2, 1, 1));
    return L->cudnnAddTensor(HD, ONE, c->t, BUF(P0), ONE, c->x, BUF(Y));
}
CASE(set_tensor_null_value, H, BAD) { return L->cudnnSetTensor(HD, c->x, BUF(Y), NULL); }
CASE(scale_tensor_null_alpha, H, BAD) { return L->cudnnScaleTensor(HD, c->x, BUF(Y), NULL); }
CASE(transform_tensor_shape_mismatch, H, BAD)
{
    return L->cudnnTransformTensor(HD, ONE, c->x, BUF(X), ZERO, c->y, BUF(Y));
}

/* ---- CTC loss ---------------------------------------------------------------------------- */

static const int ctc_labels[4] = {1, 2, 1, 3}, ctc_label_len[2] = {2, 2}, ctc_input_len[2] = {8, 8};

CASE(ctc_create_null, D, BAD) { return L->cudnnCreateCTCLossDescriptor(NULL); }
CASE(ctc_set_bad_comp_type, D, NOTSUP) { return L->cudnnSetCTCLossDescriptor(c->ctc, (cudnnDataType_t)99); }
CASE(ctc_ws_size_null_out, H, BAD)
{
    return L->cudnnGetCTCLossWorkspaceSize(HD, c->probs, c->grads, ctc_labels, ctc_label_len, ctc_input_len,
                                           CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, c->ctc, NULL);
}
CASE(ctc_ws_size_probs_4d, H, BAD)
{
    size_t s;
    return L->cudnnGetCTCLossWorkspaceSize(HD, c->x, c->x, ctc_labels, ctc_label_len, ctc_input_len,
                                           CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, c->ctc, &s);
}
CASE(ctc_ws_size_bad_algo, H, NOTSUP) /* "an unknown algorithm", as documented */
{
    size_t s;
    return L->cudnnGetCTCLossWorkspaceSize(HD, c->probs, c->grads, ctc_labels, ctc_label_len, ctc_input_len,
                                           (cudnnCTCLossAlgo_t)9, c->ctc, &s);
}

/* ---- spatial transformer ----------------------------------------------------------------- */

CASE(stf_create_null, D, BAD) { return L->cudnnCreateSpatialTransformerDescriptor(NULL); }
CASE(stf_set_null_dims, D, BAD)
{
    return L->cudnnSetSpatialTransformerNdDescriptor(c->stf, CUDNN_SAMPLER_BILINEAR, F32, 4, NULL);
}
CASE(stf_set_bad_sampler, D, BAD)
{
    const int d[4] = {2, 3, 8, 8};
    return L->cudnnSetSpatialTransformerNdDescriptor(c->stf, (cudnnSamplerType_t)9, F32, 4, d);
}
CASE(stf_set_dim_zero, D, BAD)
{
    const int d[4] = {2, 3, 0, 8};
    return L->cudnnSetSpatialTransformerNdDescriptor(c->stf, CUDNN_SAMPLER_BILINEAR, F32, 4, d);
}
CASE(stf_grid_null_theta, H, BAD)
{
    return L->cudnnSpatialTfGridGeneratorForward(HD, c->stf, NULL, BUF(Y));
}
CASE(stf_grid_null_grid, H, BAD)
{
    return L->cudnnSpatialTfGridGeneratorForward(HD, c->stf, BUF(P0), NULL);
}

/* ---- batch normalization ----------------------------------------------------------------- */

#define SPATIAL CUDNN_BATCHNORM_SPATIAL

CASE(bn_derive_null_desc, D, BAD) { return L->cudnnDeriveBNTensorDescriptor(NULL, c->x, SPATIAL); }
CASE(bn_derive_bad_mode, D, BAD)
{
    return L->cudnnDeriveBNTensorDescriptor(c->t, c->x, (cudnnBatchNormMode_t)9);
}
CASE(bn_fwd_inf_eps_negative, H, BAD)
{
    return L->cudnnBatchNormalizationForwardInference(HD, SPATIAL, ONE, ZERO, c->x, BUF(X), c->x, BUF(Y), c->bn,
                                                      BUF(P0), BUF(P1), BUF(P2), BUF(P3), -1.0);
}
CASE(bn_fwd_inf_null_scale, H, BAD)
{
    return L->cudnnBatchNormalizationForwardInference(HD, SPATIAL, ONE, ZERO, c->x, BUF(X), c->x, BUF(Y), c->bn,
                                                      NULL, BUF(P1), BUF(P2), BUF(P3), 1e-5);
}
CASE(bn_fwd_inf_param_shape_mismatch, H, BAD)
{
    SETUP(L->cudnnSetTensor4dDescriptor(c->t, NCHW, F32, 1, 4, 1, 1));
    return L->cudnnBatchNormalizationForwardInference(HD, SPATIAL, ONE, ZERO, c->x, BUF(X), c->x, BUF(Y), c->t,
                                                      BUF(P0), BUF(P1), BUF(P2), BUF(P3), 1e-5);
}
CASE(bn_fwd_inf_bad_mode, H, BAD)
{
    return L->cudnnBatchNormalizationForwardInference(HD, (cudnnBatchNormMode_t)9, ONE, ZERO, c->x, BUF(X), c->x,
                                                      BUF(Y), c->bn, BUF(P0), BUF(P1), BUF(P2), BUF(P3), 1e-5);
}
CASE(bn_fwd_inf_int8, H, NOTSUP)
{
    SETUP(L->cudnnSetTensor4dDescriptor(c->t, NCHW, CUDNN_DATA_INT8, 2, 3, 8, 8));
    return L->cudnnBatchNormalizationForwardInference(HD, SPATIAL, ONE, ZERO, c->t, BUF(X), c->t, BUF(Y), c->bn,
                                                      BUF(P0), BUF(P1), BUF(P2), BUF(P3), 1e-5);
}
CASE(bn_fwd_train_one_save_null, H, BAD)
{
    return L->cudnnBatchNormalizationForwardTraining(HD, SPATIAL, ONE, ZERO, c->x, BUF(X), c->x, BUF(Y), c->bn,
                                                     BUF(P0), BUF(P1), 0.1, BUF(P2), BUF(P3), 1e-5, BUF(DW),
                                                     NULL);
}
CASE(bn_fwd_train_y_shape_mismatch, H, BAD)
{
    return L->cudnnBatchNormalizationForwardTraining(HD, SPATIAL, ONE, ZERO, c->x, BUF(X), c->y, BUF(Y), c->bn,
                                                     BUF(P0), BUF(P1), 0.1, BUF(P2), BUF(P3), 1e-5, NULL, NULL);
}
CASE(bn_bwd_null_dx, H, BAD)
{
    return L->cudnnBatchNormalizationBackward(HD, SPATIAL, ONE, ZERO, ONE, ZERO, c->x, BUF(X), c->x, BUF(DY),
                                              c->x, NULL, c->bn, BUF(P0), BUF(P1), BUF(P2), 1e-5, NULL, NULL);
}
CASE(bn_bwd_eps_negative, H, BAD)
{
    return L->cudnnBatchNormalizationBackward(HD, SPATIAL, ONE, ZERO, ONE, ZERO, c->x, BUF(X), c->x, BUF(DY),
                                              c->x, BUF(DX), c->bn, BUF(P0), BUF(P1), BUF(P2), -1.0, NULL, NULL);
}
