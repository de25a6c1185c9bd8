/* SPDX-License-Identifier: MIT */
/*
 * conv_problem.c - the only code that reads convolution descriptors: checks them against each
 * other (contract §1.2, decisions of §4.6) and flattens them into fd_conv_problem_t.
 *
 * Statuses: a shape that does not fit (channels, ranks, y's size, filter larger than the padded
 * input) is BAD_PARAM; a legal combination we cannot compute (mixed data types, negative
 * strides, an INT8 configuration cuDNN does not document or we do not implement) is
 * NOT_SUPPORTED. INT8 (check_int8, docs/int8.md): the documented *_CONFIG combinations,
 * forward only, INT32 compute; NCHW_VECT_C strides become element strides plus a vector width.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "conv.h"

static const char *const fwd_algo_names[] = {
    "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT",
    "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
static const char *const bwd_data_algo_names[] = {
    "ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
static const char *const bwd_filter_algo_names[] = {
    "ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"};
_Static_assert(sizeof fwd_algo_names / sizeof *fwd_algo_names == CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
               "one name per forward algorithm");
_Static_assert(sizeof bwd_data_algo_names / sizeof *bwd_data_algo_names == CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
               "one name per backward-data algorithm");
_Static_assert(sizeof bwd_filter_algo_names / sizeof *bwd_filter_algo_names == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
               "one name per backward-filter algorithm");

int fd_conv_algo_count(fd_conv_dir_t dir)
{
    return dir == FD_CONV_FWD        ? CUDNN_CONVOLUTION_FWD_ALGO_COUNT
           : dir == FD_CONV_BWD_DATA ? CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT
                                     : CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
}

const char *fd_conv_algo_name(fd_conv_dir_t dir, int algo)
{
    if (algo < 0 || algo >= fd_conv_algo_count(dir))
        return "invalid";
    return dir == FD_CONV_FWD ? fwd_algo_names[algo]
           : dir == FD_CONV_BWD_DATA ? bwd_data_algo_names[algo]
                                     : bwd_filter_algo_names[algo];
}

/* Shape checks shared by the output-dim queries and every compute direction. */
static cudnnStatus_t check_geometry(cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t x,
                                    cudnnFilterDescriptor_t w, const char *xname)
{
    FD_TRY(fd_conv_desc_check(conv, "convDesc"));
    FD_TRY(fd_tensor_check(x, xname));
    FD_TRY(fd_filter_check(w, "wDesc"));
    FD_CHECK(x->nb_dims >= 3, CUDNN_STATUS_BAD_PARAM, "%s has %d dims; a convolution needs at least 3",
             xname, x->nb_dims);
    FD_CHECK(x->nb_dims == w->nb_dims, CUDNN_STATUS_BAD_PARAM,
             "%s has %d dims but wDesc has %d", xname, x->nb_dims, w->nb_dims);
    FD_CHECK(x->nb_dims == conv->nb_spatial + 2, CUDNN_STATUS_BAD_PARAM,
             "%s has %d dims but convDesc has %d spatial dims (needs %d)", xname, x->nb_dims,
             conv->nb_spatial, x->nb_dims - 2);
    FD_CHECK((int64_t)x->dim[1] == (int64_t)conv->groups * w->dim[1], CUDNN_STATUS_BAD_PARAM,
             "%s has C = %d but wDesc has C = %d per group and convDesc has %d groups (needs C = %lld)",
             xname, x->dim[1], w->dim[1], conv->groups, (long long)conv->groups * w->dim[1]);
    FD_CHECK(w->dim[0] % conv->groups == 0, CUDNN_STATUS_BAD_PARAM,
             "wDesc has K = %d, not a multiple of the group count %d", w->dim[0], conv->groups);
    for (int i = 0; i < conv->nb_spatial; i++) {
        int64_t padded = (int64_t)x->dim[2 + i] + 2 * (int64_t)conv->pad[i];
        int64_t span = (int64_t)(w->dim[2 + i] - 1) * conv->dil[i] + 1;
        FD_CHECK(padded <= INT_MAX, CUDNN_STATUS_BAD_PARAM,
                 "spatial dim %d: input %d plus twice the padding %d overflows int", i,
                 x->dim[2 + i], conv->pad[i]);
        FD_CHECK(span <= padded, CUDNN_STATUS_BAD_PARAM,
                 "spatial dim %d: the dilated filter spans %lld but the padded input is %lld", i,
                 (long long)span, (long long)padded);
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t fd_conv_output_dims(cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t x,
                                  cudnnFilterDescriptor_t w, int nb_dims, int *out)
{
    FD_TRY(check_geometry(conv, x, w, "inputTensorDesc"));
    FD_CHECK(nb_dims == x->nb_dims, CUDNN_STATUS_BAD_PARAM,
             "nbDims is %d but inputTensorDesc has %d dims", nb_dims, x->nb_dims);
    out[0] = x->dim[0];
    out[1] = w->dim[0];
    for (int i = 0; i < conv->nb_spatial; i++) {
        int64_t padded = (int64_t)x->dim[2 + i] + 2 * (int64_t)conv->pad[i];
        int64_t span = (int64_t)(w->dim[2 + i] - 1) * conv->dil[i] + 1;
        out[2 + i] = (int)(1 + (padded - span) / conv->stride[i]);
    }
    return CUDNN_STATUS_SUCCESS;
}

/* Accumulation type cuDNN allows for a storage type (the *_CONFIG table of the guide). */
static int compute_matches(cudnnDataType_t storage, cudnnDataType_t compute)
{
    switch (storage) {
    case CUDNN_DATA_FLOAT:
        return compute == CUDNN_DATA_FLOAT;
    case CUDNN_DATA_DOUBLE:
        return compute == CUDNN_DATA_DOUBLE;
    case CUDNN_DATA_HALF:
        return compute == CUDNN_DATA_HALF || compute == CUDNN_DATA_FLOAT;
    case CUDNN_DATA_BFLOAT16:
        return compute == CUDNN_DATA_BFLOAT16 || compute == CUDNN_DATA_FLOAT;
    default:
        return 0;
    }
}

static int storage_supported(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_DOUBLE || dt == CUDNN_DATA_HALF ||
           dt == CUDNN_DATA_BFLOAT16;
}

/* ---- INT8 (docs/int8.md) ------------------------------------------------------------------ */

static int int8_family(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_INT8 || dt == CUDNN_DATA_UINT8 || dt == CUDNN_DATA_INT8x4 ||
           dt == CUDNN_DATA_UINT8x4 || dt == CUDNN_DATA_INT8x32;
}

static int vect_of(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_INT8x32 ? 32 : (dt == CUDNN_DATA_INT8x4 || dt == CUDNN_DATA_UINT8x4) ? 4 : 1;
}

/* C is the innermost, unit-stride dim: cuDNN's NHWC requirement, any padding elsewhere. */
static int channels_last(cudnnTensorDescriptor_t t)
{
    if (t->stride[1] != 1 && t->dim[1] != 1)
        return 0;
    for (int i = 0; i < t->nb_dims; i++)
        if (i != 1 && t->dim[i] != 1 && t->stride[i] < t->dim[1])
            return 0;
    return 1;
}

/* cuDNN's integer configurations of cudnnConvolutionForward (INT8_CONFIG, INT8_EXT_CONFIG,
 * INT8x4_CONFIG, INT8x4_EXT_CONFIG, UINT8x4_CONFIG, UINT8x4_EXT_CONFIG, INT8x32_CONFIG):
 * compute INT32, forward only, the layouts each one names. Called when x or w is int8. */
static cudnnStatus_t check_int8(fd_conv_dir_t dir, cudnnTensorDescriptor_t x,
                                cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t conv,
                                cudnnTensorDescriptor_t y)
{
    cudnnDataType_t xdt = x->dtype, wdt = w->dtype, ydt = y->dtype;
    FD_CHECK(dir == FD_CONV_FWD, CUDNN_STATUS_NOT_SUPPORTED,
             "%s data: INT8 convolution is forward only (cuDNN has no INT8 backward data or filter)",
             fd_dtype_name(xdt));
    int plain = xdt == CUDNN_DATA_INT8 && wdt == CUDNN_DATA_INT8 &&
                (ydt == CUDNN_DATA_INT8 || ydt == CUDNN_DATA_FLOAT);
    int x4 = (xdt == CUDNN_DATA_INT8x4 && wdt == CUDNN_DATA_INT8x4 &&
              (ydt == CUDNN_DATA_INT8x4 || ydt == CUDNN_DATA_FLOAT)) ||
             (xdt == CUDNN_DATA_UINT8x4 && wdt == CUDNN_DATA_INT8x4 &&
              (ydt == CUDNN_DATA_UINT8x4 || ydt == CUDNN_DATA_FLOAT));
    int x32 = xdt == CUDNN_DATA_INT8x32 && wdt == CUDNN_DATA_INT8x32 && ydt == CUDNN_DATA_INT8x32;
    FD_CHECK(plain || x4 || x32, CUDNN_STATUS_NOT_SUPPORTED,
             "x %s, w %s, y %s is not an INT8 configuration we implement (x/w/y INT8/INT8/INT8 or "
             "FLOAT, INT8x4/INT8x4/INT8x4 or FLOAT, UINT8x4/INT8x4/UINT8x4 or FLOAT, "
             "INT8x32/INT8x32/INT8x32; UINT8 x is not implemented)",
             fd_dtype_name(xdt), fd_dtype_name(wdt), fd_dtype_name(ydt));
    FD_CHECK(conv->compute == CUDNN_DATA_INT32, CUDNN_STATUS_NOT_SUPPORTED,
             "x %s, w %s: INT8 convolution accumulates in CUDNN_DATA_INT32; convDesc computeType is %s",
             fd_dtype_name(xdt), fd_dtype_name(wdt), fd_dtype_name(conv->compute));
    if (plain) {
        FD_CHECK(x->dim[1] % 4 == 0, CUDNN_STATUS_BAD_PARAM,
                 "xDesc is INT8 with C = %d; INT8 tensors need C a multiple of 4", x->dim[1]);
        FD_CHECK(ydt != CUDNN_DATA_INT8 || y->dim[1] % 4 == 0, CUDNN_STATUS_BAD_PARAM,
                 "yDesc is INT8 with K = %d; INT8 tensors need C a multiple of 4", y->dim[1]);
        FD_CHECK(w->format == CUDNN_TENSOR_NHWC, CUDNN_STATUS_NOT_SUPPORTED,
                 "INT8_CONFIG / INT8_EXT_CONFIG take NHWC (KRSC) filters only");
        FD_CHECK(channels_last(x) && channels_last(y), CUDNN_STATUS_NOT_SUPPORTED,
                 "INT8_CONFIG / INT8_EXT_CONFIG take channels-last (NHWC) x and y only");
    } else {
        FD_CHECK(w->format == CUDNN_TENSOR_NCHW_VECT_C, CUDNN_STATUS_NOT_SUPPORTED,
                 "%s filters must be NCHW_VECT_C", fd_dtype_name(wdt));
        FD_CHECK(conv->reorder != CUDNN_NO_REORDER || wdt != CUDNN_DATA_INT8x32,
                 CUDNN_STATUS_NOT_SUPPORTED,
                 "INT8x32 filters already permuted by cudnnReorderFilterAndBias (CUDNN_NO_REORDER) "
                 "are not implemented");
    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnDataType_t fd_conv_int8_lane(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_INT8x4:
    case CUDNN_DATA_INT8x32:
        return CUDNN_DATA_INT8;
    case CUDNN_DATA_UINT8x4:
        return CUDNN_DATA_UINT8;
    default:
        return dt;
    }
}

cudnnStatus_t fd_conv_problem_init(fd_conv_problem_t *p, fd_conv_dir_t dir,
                                   cudnnTensorDescriptor_t xDesc, cudnnFilterDescriptor_t wDesc,
                                   cudnnConvolutionDescriptor_t convDesc,
                                   cudnnTensorDescriptor_t yDesc)
{
    const char *xname = dir == FD_CONV_BWD_DATA ? "dxDesc" : "xDesc";
    const char *yname = dir == FD_CONV_FWD ? "yDesc" : "dyDesc";
    FD_TRY(check_geometry(convDesc, xDesc, wDesc, xname));
    FD_TRY(fd_tensor_check(yDesc, yname));
    FD_CHECK(yDesc->nb_dims == xDesc->nb_dims, CUDNN_STATUS_BAD_PARAM, "%s has %d dims but %s has %d",
             yname, yDesc->nb_dims, xname, xDesc->nb_dims);
    int expect[FD_DIM_MAX];
    FD_TRY(fd_conv_output_dims(convDesc, xDesc, wDesc, xDesc->nb_dims, expect));
    for (int i = 0; i < yDesc->nb_dims; i++)
        FD_CHECK(yDesc->dim[i] == expect[i], CUDNN_STATUS_BAD_PARAM,
                 "%s dim %d is %d but %s, wDesc and convDesc give %d", yname, i, yDesc->dim[i],
                 xname, expect[i]);

    cudnnDataType_t xdt = xDesc->dtype, wdt = wDesc->dtype, ydt = yDesc->dtype;
    int int8 = int8_family(xdt) || int8_family(wdt);
    if (int8)
        FD_TRY(check_int8(dir, xDesc, wDesc, convDesc, yDesc));
    FD_CHECK(int8 || (xdt == wdt && xdt == ydt), CUDNN_STATUS_NOT_SUPPORTED,
             "mixed data types: %s is %s, wDesc %s, %s %s", xname, fd_dtype_name(xdt),
             fd_dtype_name(wdt), yname, fd_dtype_name(ydt));
    FD_CHECK(int8 || storage_supported(xdt), CUDNN_STATUS_NOT_SUPPORTED,
             "convolution on %s data is not implemented (FLOAT, DOUBLE, HALF, BFLOAT16 and the "
             "INT8 configurations are)",
             fd_dtype_name(xdt));
    FD_CHECK(int8 || compute_matches(xdt, convDesc->compute), CUDNN_STATUS_NOT_SUPPORTED,
             "%s data cannot accumulate in computeType %s", fd_dtype_name(xdt),
             fd_dtype_name(convDesc->compute));
    FD_CHECK(!fd_tensor_has_negative_stride(xDesc) && !fd_tensor_has_negative_stride(yDesc),
             CUDNN_STATUS_NOT_SUPPORTED, "convolution does not take negative strides (%s or %s)",
             xname, yname);
    FD_CHECK(int8 || wDesc->format != CUDNN_TENSOR_NCHW_VECT_C, CUDNN_STATUS_NOT_SUPPORTED,
             "NCHW_VECT_C filters are for the INT8x4, UINT8x4 and INT8x32 configurations only");
    FD_CHECK(xDesc->nb_dims - 2 <= FD_CONV_SPATIAL_MAX, CUDNN_STATUS_NOT_SUPPORTED,
             "%d spatial dims; convolution is implemented for 1, 2 and 3", xDesc->nb_dims - 2);
    cudnnTensorDescriptor_t out = dir == FD_CONV_FWD ? yDesc : dir == FD_CONV_BWD_DATA ? xDesc : NULL;
    struct cudnnTensorStruct vect_view; /* NCHW_VECT_C: strides count vectors, so must C */
    if (out != NULL && out->vect > 1) {
        vect_view = *out;
        vect_view.dim[1] /= out->vect;
        out = &vect_view;
    }
    if (out != NULL)
        FD_CHECK(fd_tensor_is_non_overlapping(out), CUDNN_STATUS_BAD_PARAM,
                 "the output %s has overlapping strides; outputs may not alias themselves",
                 dir == FD_CONV_FWD ? yname : xname);

    memset(p, 0, sizeof *p);
    p->dir = dir;
    p->nsp = xDesc->nb_dims - 2;
    p->n = xDesc->dim[0];
    p->c = xDesc->dim[1];
    p->k = wDesc->dim[0];
    p->groups = convDesc->groups;
    int lead = FD_CONV_SPATIAL_MAX - p->nsp; /* leading unit dims */
    for (int i = 0; i < FD_CONV_SPATIAL_MAX; i++) {
        int s = i - lead;
        p->in[i] = s >= 0 ? xDesc->dim[2 + s] : 1;
        p->out[i] = s >= 0 ? yDesc->dim[2 + s] : 1;
        p->flt[i] = s >= 0 ? wDesc->dim[2 + s] : 1;
        p->pad[i] = s >= 0 ? convDesc->pad[s] : 0;
        p->stride[i] = s >= 0 ? convDesc->stride[s] : 1;
        p->dil[i] = s >= 0 ? convDesc->dil[s] : 1;
    }
    int64_t wstride[FD_DIM_MAX];
    fd_filter_strides(wDesc, wstride);
    p->xvect = xDesc->vect > 1 ? xDesc->vect : 1;
    p->yvect = yDesc->vect > 1 ? yDesc->vect : 1;
    p->wvect = wDesc->format == CUDNN_TENSOR_NCHW_VECT_C ? vect_of(wdt) : 1;
    if (p->wvect > 1) { /* packed K, C / v, spatial..., v: strides in elements */
        int64_t acc = p->wvect;
        for (int i = wDesc->nb_dims - 1; i >= 0; i--) {
            wstride[i] = acc;
            acc *= i == 1 ? wDesc->dim[1] / p->wvect : wDesc->dim[i];
        }
    }
    for (int i = 0; i < 2 + FD_CONV_SPATIAL_MAX; i++) {
        int s = i < 2 ? i : i - lead; /* descriptor index of problem dim i, < 2 when absent */
        int present = i < 2 || s >= 2;
        p->xs[i] = present ? (int64_t)xDesc->stride[s] * p->xvect : 0;
        p->ys[i] = present ? (int64_t)yDesc->stride[s] * p->yvect : 0;
        p->ws[i] = present ? wstride[s] : 0;
    }
    p->cross_correlation = convDesc->mode == CUDNN_CROSS_CORRELATION;
    p->xdt = xdt, p->wdt = wdt, p->ydt = ydt;
    p->compute = convDesc->compute;
    p->math = convDesc->math;
    p->wformat = wDesc->format;
    return CUDNN_STATUS_SUCCESS;
}

static const char *dt_short(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT:
        return "f32";
    case CUDNN_DATA_DOUBLE:
        return "f64";
    case CUDNN_DATA_HALF:
        return "f16";
    case CUDNN_DATA_BFLOAT16:
        return "bf16";
    case CUDNN_DATA_INT8:
        return "s8";
    case CUDNN_DATA_INT32:
        return "s32";
    case CUDNN_DATA_UINT8:
        return "u8";
    case CUDNN_DATA_INT8x4:
        return "s8x4";
    case CUDNN_DATA_UINT8x4:
        return "u8x4";
    case CUDNN_DATA_INT8x32:
        return "s8x32";
    default:
        return "other";
    }
}

void fd_conv_problem_key(const fd_conv_problem_t *p, char *buf, size_t size)
{
    static const char *const dirs[] = {"fwd", "bwd_data", "bwd_filter"};
    snprintf(buf, size,
             "%s n%" PRId64 "c%" PRId64 "d%" PRId64 "h%" PRId64 "w%" PRId64 " k%" PRId64
             "t%" PRId64 "r%" PRId64 "s%" PRId64 " p%" PRId64 "x%" PRId64 "x%" PRId64
             " u%" PRId64 "x%" PRId64 "x%" PRId64 " l%" PRId64 "x%" PRId64 "x%" PRId64
             " g%" PRId64 " %s %s/%s/%s acc=%s math=%d wfmt=%d xs=%" PRId64 ",%" PRId64 ",%" PRId64
             ",%" PRId64 ",%" PRId64 " ys=%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64,
             dirs[p->dir], p->n, p->c, p->in[0], p->in[1], p->in[2], p->k, p->flt[0], p->flt[1],
             p->flt[2], p->pad[0], p->pad[1], p->pad[2], p->stride[0], p->stride[1], p->stride[2],
             p->dil[0], p->dil[1], p->dil[2], p->groups, p->cross_correlation ? "xcorr" : "conv",
             dt_short(p->xdt), dt_short(p->wdt), dt_short(p->ydt), dt_short(p->compute),
             (int)p->math, (int)p->wformat, p->xs[0], p->xs[1], p->xs[2], p->xs[3], p->xs[4],
             p->ys[0], p->ys[1], p->ys[2], p->ys[3], p->ys[4]);
}
