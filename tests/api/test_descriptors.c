/* SPDX-License-Identifier: MIT */
/*
 * test_descriptors.c - descriptor round trips: every setter read back through every getter
 * that can read it, packed strides per format (NCHW, NHWC, NCHW_VECT_C), sizes in bytes
 * ((max offset + 1) x element size, contract §1.2), partial reads with nbDimsRequested /
 * arrayLengthRequested below the real rank, and the forward output-size formula
 * 1 + (in + 2 pad - ((f - 1) dil + 1)) / stride (floor) on many shapes.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <string.h>

#include "fd_test.h"

#define UNTOUCHED (-7) /* what getters must leave in array slots they were not asked for */
#define NCHW CUDNN_TENSOR_NCHW
#define NHWC CUDNN_TENSOR_NHWC
#define VECT CUDNN_TENSOR_NCHW_VECT_C

/* ---- tensors ---------------------------------------------------------------------------- */

static void expect_tensor(const char *what, cudnnTensorDescriptor_t t, cudnnDataType_t dt, int nb,
                          const int *dim, const int *stride, size_t bytes)
{
    cudnnDataType_t got_dt = (cudnnDataType_t)-1;
    int got_nb = -1, got_dim[CUDNN_DIM_MAX], got_stride[CUDNN_DIM_MAX];
    for (int i = 0; i < CUDNN_DIM_MAX; i++)
        got_dim[i] = got_stride[i] = UNTOUCHED;
    FD_EXPECT_STATUS(
        cudnnGetTensorNdDescriptor(t, CUDNN_DIM_MAX, &got_dt, &got_nb, got_dim, got_stride),
        CUDNN_STATUS_SUCCESS);
    FD_EXPECT(got_dt == dt && got_nb == nb, "%s: dtype %d nbDims %d, want %d %d", what, (int)got_dt,
              got_nb, (int)dt, nb);
    for (int i = 0; i < nb && i < CUDNN_DIM_MAX; i++)
        FD_EXPECT(got_dim[i] == dim[i] && got_stride[i] == stride[i],
                  "%s: dim %d is %d/%d, want %d/%d", what, i, got_dim[i], got_stride[i], dim[i],
                  stride[i]);
    for (int i = nb; i < CUDNN_DIM_MAX; i++)
        FD_EXPECT(got_dim[i] == UNTOUCHED && got_stride[i] == UNTOUCHED,
                  "%s: slot %d written beyond nbDims", what, i);
    if (nb == 4) {
        int v[8];
        FD_EXPECT_STATUS(cudnnGetTensor4dDescriptor(t, &got_dt, &v[0], &v[1], &v[2], &v[3], &v[4],
                                                    &v[5], &v[6], &v[7]),
                         CUDNN_STATUS_SUCCESS);
        for (int i = 0; i < 4; i++)
            FD_EXPECT(v[i] == dim[i] && v[4 + i] == stride[i],
                      "%s: Get4d dim %d is %d/%d, want %d/%d", what, i, v[i], v[4 + i], dim[i],
                      stride[i]);
        FD_EXPECT(got_dt == dt, "%s: Get4d dtype %d", what, (int)got_dt);
    }
    size_t size = 0;
    FD_EXPECT_STATUS(cudnnGetTensorSizeInBytes(t, &size), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(size == bytes, "%s: GetTensorSizeInBytes %zu, want %zu", what, size, bytes);
}

/* cudnnSetTensor4dDescriptor: packed strides per format (VECT_C strides count vectors). */
static const struct {
    cudnnTensorFormat_t fmt;
    cudnnDataType_t dt;
    int dim[4], stride[4];
    size_t bytes;
} t4[] = {
    {NCHW, CUDNN_DATA_FLOAT, {2, 3, 4, 5}, {60, 20, 5, 1}, 480},
    {NHWC, CUDNN_DATA_FLOAT, {2, 3, 4, 5}, {60, 1, 15, 3}, 480},
    {NCHW, CUDNN_DATA_HALF, {1, 1, 1, 1}, {1, 1, 1, 1}, 2},
    {NHWC, CUDNN_DATA_DOUBLE, {1, 8, 1, 1}, {8, 1, 8, 8}, 64},
    {NCHW, CUDNN_DATA_INT8, {2, 3, 5, 7}, {105, 35, 7, 1}, 210},
    {NHWC, CUDNN_DATA_INT8, {2, 3, 5, 7}, {105, 1, 21, 3}, 210},
    {NCHW, CUDNN_DATA_BFLOAT16, {2, 3, 4, 5}, {60, 20, 5, 1}, 240},
    {NCHW, CUDNN_DATA_INT32, {1, 2, 3, 4}, {24, 12, 4, 1}, 96},
    {NCHW, CUDNN_DATA_UINT8, {1, 3, 2, 2}, {12, 4, 2, 1}, 12},
    {NCHW, CUDNN_DATA_INT64, {1, 1, 2, 3}, {6, 6, 3, 1}, 48},
    {VECT, CUDNN_DATA_INT8x4, {1, 8, 2, 2}, {8, 4, 2, 1}, 32},
    {VECT, CUDNN_DATA_INT8x4, {2, 4, 3, 3}, {9, 9, 3, 1}, 72},
    {VECT, CUDNN_DATA_UINT8x4, {1, 4, 1, 1}, {1, 1, 1, 1}, 4},
    {VECT, CUDNN_DATA_INT8x32, {1, 64, 2, 2}, {8, 4, 2, 1}, 256},
    {VECT, CUDNN_DATA_INT8x32, {3, 32, 1, 5}, {5, 5, 5, 1}, 480},
    {NCHW, CUDNN_DATA_FLOAT, {INT_MAX, 1, 1, 1}, {1, 1, 1, 1}, (size_t)INT_MAX * 4},
    {NCHW,
     CUDNN_DATA_HALF,
     {1, 1, 46340, 46340},
     {46340 * 46340, 46340 * 46340, 46340, 1},
     (size_t)46340 * 46340 * 2},
};

static void test_tensor4d(cudnnTensorDescriptor_t t)
{
    for (size_t i = 0; i < sizeof t4 / sizeof t4[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "Set4d case %zu", i);
        FD_EXPECT_STATUS(cudnnSetTensor4dDescriptor(t, t4[i].fmt, t4[i].dt, t4[i].dim[0],
                                                    t4[i].dim[1], t4[i].dim[2], t4[i].dim[3]),
                         CUDNN_STATUS_SUCCESS);
        expect_tensor(what, t, t4[i].dt, 4, t4[i].dim, t4[i].stride, t4[i].bytes);
        /* the Nd form of the same setter agrees */
        snprintf(what, sizeof what, "SetNdEx(4) case %zu", i);
        FD_EXPECT_STATUS(cudnnSetTensorNdDescriptorEx(t, t4[i].fmt, t4[i].dt, 4, t4[i].dim),
                         CUDNN_STATUS_SUCCESS);
        expect_tensor(what, t, t4[i].dt, 4, t4[i].dim, t4[i].stride, t4[i].bytes);
    }
}

/* cudnnSetTensor4dDescriptorEx: explicit strides; size = (max offset + 1) x element size. */
static const struct {
    cudnnDataType_t dt;
    int dim[4], stride[4];
    size_t bytes;
} t4ex[] = {
    {CUDNN_DATA_FLOAT, {1, 3, 8, 8}, {500, 100, 10, 1}, 1112}, /* contract §1.2 */
    {CUDNN_DATA_FLOAT, {1, 3, 8, 8}, {192, 64, 8, 1}, 768},
    {CUDNN_DATA_FLOAT, {2, 3, 4, 5}, {60, 1, 15, 3}, 480},
    {CUDNN_DATA_FLOAT, {2, 3, 8, 8}, {1, 1, 1, 1}, 72}, /* overlapping: 1+1+2+7+7 = 18 */
    {CUDNN_DATA_DOUBLE, {2, 2, 2, 2}, {100, 20, 5, 1}, 127 * 8},
    {CUDNN_DATA_HALF, {1, 1, 1, 1}, {7, 7, 7, 7}, 2},
    {CUDNN_DATA_FLOAT,
     {1, 3, 8, 8},
     {INT_MAX, 64, 8, 1},
     768}, /* a stride on a dim of 1 adds nothing */
    {CUDNN_DATA_FLOAT, {1, 3, 8, 8}, {0, 64, 8, 1}, 768},
    {CUDNN_DATA_FLOAT, {1, 3, 8, 8}, {192, 64, -8, 1}, 768}, /* negative: the same span */
    {CUDNN_DATA_FLOAT,
     {2, 1, 1, 1},
     {INT_MAX - 1, 1, 1, 1},
     (size_t)INT_MAX * 4},                              /* extent 2^31 - 1 */
    {CUDNN_DATA_INT8, {4, 3, 2, 2}, {16, 1, 6, 3}, 60}, /* padded NHWC: 1 + 48 + 2 + 6 + 3 */
};

static void test_tensor4d_ex(cudnnTensorDescriptor_t t)
{
    for (size_t i = 0; i < sizeof t4ex / sizeof t4ex[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "Set4dEx case %zu", i);
        const int *d = t4ex[i].dim, *s = t4ex[i].stride;
        FD_EXPECT_STATUS(cudnnSetTensor4dDescriptorEx(t, t4ex[i].dt, d[0], d[1], d[2], d[3], s[0],
                                                      s[1], s[2], s[3]),
                         CUDNN_STATUS_SUCCESS);
        expect_tensor(what, t, t4ex[i].dt, 4, d, s, t4ex[i].bytes);
        snprintf(what, sizeof what, "SetNd(4) case %zu", i);
        FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t, t4ex[i].dt, 4, d, s), CUDNN_STATUS_SUCCESS);
        expect_tensor(what, t, t4ex[i].dt, 4, d, s, t4ex[i].bytes);
    }
}

/* cudnnSetTensorNdDescriptor: 2..8 dims with explicit strides. */
static const struct {
    cudnnDataType_t dt;
    int nb, dim[8], stride[8];
    size_t bytes;
} tnd[] = {
    {CUDNN_DATA_FLOAT, 2, {4, 5}, {5, 1}, 80},
    {CUDNN_DATA_FLOAT, 3, {2, 4, 5}, {20, 5, 1}, 160},
    {CUDNN_DATA_FLOAT, 3, {2, 4, 5}, {1, 2, 8}, 4 * (1 + 1 + 6 + 32)},
    {CUDNN_DATA_FLOAT, 5, {2, 3, 4, 5, 6}, {360, 120, 30, 6, 1}, 2880},
    {CUDNN_DATA_FLOAT,
     5,
     {2, 3, 4, 5, 6},
     {1000, 300, 70, 12, 2},
     4 * (1 + 1000 + 600 + 210 + 48 + 10)},
    {CUDNN_DATA_HALF, 8, {2, 2, 2, 2, 2, 2, 2, 2}, {128, 64, 32, 16, 8, 4, 2, 1}, 512},
    {CUDNN_DATA_DOUBLE, 6, {1, 2, 1, 3, 1, 2}, {6, 3, 3, 1, 1, 3}, 8 * (1 + 3 + 2 + 3)},
    {CUDNN_DATA_INT8x4, 4, {1, 8, 2, 2}, {8, 4, 2, 1}, 32},
    {CUDNN_DATA_INT8x32, 4, {2, 64, 1, 1}, {2, 1, 1, 1}, 128},
};

static void test_tensor_nd(cudnnTensorDescriptor_t t)
{
    for (size_t i = 0; i < sizeof tnd / sizeof tnd[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "SetNd case %zu", i);
        FD_EXPECT_STATUS(
            cudnnSetTensorNdDescriptor(t, tnd[i].dt, tnd[i].nb, tnd[i].dim, tnd[i].stride),
            CUDNN_STATUS_SUCCESS);
        expect_tensor(what, t, tnd[i].dt, tnd[i].nb, tnd[i].dim, tnd[i].stride, tnd[i].bytes);
    }
}

/* cudnnSetTensorNdDescriptorEx: packed strides derived from the format, 2..8 dims. */
static const struct {
    cudnnTensorFormat_t fmt;
    cudnnDataType_t dt;
    int nb, dim[8], stride[8];
    size_t bytes;
} tndex[] = {
    {NCHW, CUDNN_DATA_FLOAT, 5, {2, 3, 4, 5, 6}, {360, 120, 30, 6, 1}, 2880},
    {NHWC, CUDNN_DATA_FLOAT, 5, {2, 3, 4, 5, 6}, {360, 1, 90, 18, 3}, 2880},
    {NCHW, CUDNN_DATA_HALF, 3, {2, 3, 4}, {12, 4, 1}, 48},
    {NHWC, CUDNN_DATA_HALF, 3, {2, 3, 4}, {12, 1, 3}, 48},
    {NCHW, CUDNN_DATA_FLOAT, 2, {4, 5}, {5, 1}, 80},
    {NHWC, CUDNN_DATA_FLOAT, 2, {4, 5}, {5, 1}, 80},
    {NCHW, CUDNN_DATA_DOUBLE, 8, {1, 2, 1, 2, 1, 2, 1, 2}, {16, 8, 8, 4, 4, 2, 2, 1}, 128},
    {NHWC, CUDNN_DATA_DOUBLE, 6, {2, 3, 1, 2, 1, 2}, {12, 1, 12, 6, 6, 3}, 192},
    {VECT, CUDNN_DATA_INT8x32, 5, {1, 32, 2, 2, 2}, {8, 8, 4, 2, 1}, 256},
    {VECT, CUDNN_DATA_INT8x4, 5, {2, 8, 1, 2, 3}, {12, 6, 6, 3, 1}, 96},
};

static void test_tensor_nd_ex(cudnnTensorDescriptor_t t)
{
    for (size_t i = 0; i < sizeof tndex / sizeof tndex[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "SetNdEx case %zu", i);
        FD_EXPECT_STATUS(
            cudnnSetTensorNdDescriptorEx(t, tndex[i].fmt, tndex[i].dt, tndex[i].nb, tndex[i].dim),
            CUDNN_STATUS_SUCCESS);
        expect_tensor(what, t, tndex[i].dt, tndex[i].nb, tndex[i].dim, tndex[i].stride,
                      tndex[i].bytes);
    }
}

/* nbDimsRequested below (and above) the real rank: nbDims is the real rank, only the asked-for
 * slots are written. */
static void test_tensor_partial_reads(cudnnTensorDescriptor_t t)
{
    static const int dim[5] = {2, 3, 4, 5, 6}, stride[5] = {360, 120, 30, 6, 1};
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 5, dim, stride),
                     CUDNN_STATUS_SUCCESS);
    for (int req = 0; req <= CUDNN_DIM_MAX; req++) {
        int d[CUDNN_DIM_MAX], s[CUDNN_DIM_MAX], nb = -1;
        cudnnDataType_t dt = (cudnnDataType_t)-1;
        for (int i = 0; i < CUDNN_DIM_MAX; i++)
            d[i] = s[i] = UNTOUCHED;
        FD_EXPECT_STATUS(cudnnGetTensorNdDescriptor(t, req, &dt, &nb, d, s), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(nb == 5 && dt == CUDNN_DATA_FLOAT, "requested %d: nbDims %d dtype %d", req, nb,
                  (int)dt);
        int written = req < 5 ? req : 5;
        for (int i = 0; i < CUDNN_DIM_MAX; i++) {
            if (i < written)
                FD_EXPECT(d[i] == dim[i] && s[i] == stride[i], "requested %d: slot %d is %d/%d",
                          req, i, d[i], s[i]);
            else
                FD_EXPECT(d[i] == UNTOUCHED && s[i] == UNTOUCHED, "requested %d: slot %d written",
                          req, i);
        }
    }
    int nb = -1;
    cudnnDataType_t dt = (cudnnDataType_t)-1;
    FD_EXPECT_STATUS(cudnnGetTensorNdDescriptor(t, 0, &dt, &nb, NULL, NULL), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(nb == 5, "requested 0 with NULL arrays: nbDims %d", nb);
}

/* ---- filters ---------------------------------------------------------------------------- */

static const struct {
    cudnnTensorFormat_t fmt;
    cudnnDataType_t dt;
    int nb, dim[8];
    size_t bytes;
} filters[] = {
    {NCHW, CUDNN_DATA_FLOAT, 4, {8, 3, 5, 5}, 2400},
    {NHWC, CUDNN_DATA_HALF, 4, {8, 3, 5, 5}, 1200},
    {NCHW, CUDNN_DATA_DOUBLE, 3, {4, 2, 3}, 192},
    {NHWC, CUDNN_DATA_FLOAT, 3, {4, 2, 3}, 96},
    {NCHW, CUDNN_DATA_FLOAT, 5, {4, 3, 2, 3, 3}, 864},
    {NHWC, CUDNN_DATA_BFLOAT16, 5, {4, 3, 2, 3, 3}, 432},
    {NCHW, CUDNN_DATA_INT8, 4, {16, 3, 1, 1}, 48},
    {VECT, CUDNN_DATA_INT8x4, 4, {4, 8, 3, 3}, 288},
    {VECT, CUDNN_DATA_INT8x32, 4, {2, 32, 1, 1}, 64},
    {NCHW, CUDNN_DATA_FLOAT, 8, {2, 2, 2, 2, 2, 2, 2, 2}, 1024},
    {NCHW, CUDNN_DATA_FLOAT, 4, {INT_MAX, 1, 1, 1}, (size_t)INT_MAX * 4},
};

static void test_filters(cudnnFilterDescriptor_t f)
{
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++) {
        const int *d = filters[i].dim;
        for (int via = 0; via < 2; via++) {
            if (via == 0 && filters[i].nb != 4)
                continue;
            char what[64];
            snprintf(what, sizeof what, "filter case %zu via %s", i, via ? "SetNd" : "Set4d");
            cudnnStatus_t st = via == 0
                                   ? cudnnSetFilter4dDescriptor(f, filters[i].dt, filters[i].fmt,
                                                                d[0], d[1], d[2], d[3])
                                   : cudnnSetFilterNdDescriptor(f, filters[i].dt, filters[i].fmt,
                                                                filters[i].nb, d);
            FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "%s: %s", what, cudnnGetErrorString(st));
            cudnnDataType_t dt = (cudnnDataType_t)-1;
            cudnnTensorFormat_t fmt = (cudnnTensorFormat_t)-1;
            int nb = -1, got[CUDNN_DIM_MAX];
            for (int k = 0; k < CUDNN_DIM_MAX; k++)
                got[k] = UNTOUCHED;
            FD_EXPECT_STATUS(cudnnGetFilterNdDescriptor(f, CUDNN_DIM_MAX, &dt, &fmt, &nb, got),
                             CUDNN_STATUS_SUCCESS);
            FD_EXPECT(dt == filters[i].dt && fmt == filters[i].fmt && nb == filters[i].nb,
                      "%s: dt %d fmt %d nb %d", what, (int)dt, (int)fmt, nb);
            for (int k = 0; k < CUDNN_DIM_MAX; k++)
                FD_EXPECT(got[k] == (k < filters[i].nb ? d[k] : UNTOUCHED), "%s: slot %d is %d",
                          what, k, got[k]);
            if (filters[i].nb == 4) {
                int k4 = 0, c4 = 0, h4 = 0, w4 = 0;
                FD_EXPECT_STATUS(cudnnGetFilter4dDescriptor(f, &dt, &fmt, &k4, &c4, &h4, &w4),
                                 CUDNN_STATUS_SUCCESS);
                FD_EXPECT(k4 == d[0] && c4 == d[1] && h4 == d[2] && w4 == d[3] &&
                              dt == filters[i].dt && fmt == filters[i].fmt,
                          "%s: Get4d %dx%dx%dx%d", what, k4, c4, h4, w4);
            }
            size_t size = 0;
            FD_EXPECT_STATUS(cudnnGetFilterSizeInBytes(f, &size), CUDNN_STATUS_SUCCESS);
            FD_EXPECT(size == filters[i].bytes, "%s: GetFilterSizeInBytes %zu, want %zu", what,
                      size, filters[i].bytes);
        }
    }
    /* nbDimsRequested below the rank */
    static const int d5[5] = {4, 3, 2, 3, 3};
    FD_EXPECT_STATUS(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_FLOAT, NHWC, 5, d5),
                     CUDNN_STATUS_SUCCESS);
    for (int req = 0; req <= CUDNN_DIM_MAX; req++) {
        cudnnDataType_t dt;
        cudnnTensorFormat_t fmt;
        int nb = -1, got[CUDNN_DIM_MAX];
        for (int k = 0; k < CUDNN_DIM_MAX; k++)
            got[k] = UNTOUCHED;
        FD_EXPECT_STATUS(cudnnGetFilterNdDescriptor(f, req, &dt, &fmt, &nb, got),
                         CUDNN_STATUS_SUCCESS);
        FD_EXPECT(nb == 5 && fmt == NHWC, "filter requested %d: nbDims %d format %d", req, nb,
                  (int)fmt);
        for (int k = 0; k < CUDNN_DIM_MAX; k++)
            FD_EXPECT(got[k] == (k < req && k < 5 ? d5[k] : UNTOUCHED),
                      "filter requested %d: slot %d is %d", req, k, got[k]);
    }
}

/* ---- convolution descriptors ------------------------------------------------------------ */

static const struct {
    int pad_h, pad_w, u, v, dil_h, dil_w;
    cudnnConvolutionMode_t mode;
    cudnnDataType_t compute;
} conv2d[] = {
    {0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT},
    {1, 2, 3, 4, 5, 6, CUDNN_CONVOLUTION, CUDNN_DATA_DOUBLE},
    {7, 0, 2, 1, 1, 3, CUDNN_CROSS_CORRELATION, CUDNN_DATA_HALF},
    {0, 0, 1, 1, 1, 1, CUDNN_CONVOLUTION, CUDNN_DATA_BFLOAT16},
    {3, 3, 1, 1, 2, 2, CUDNN_CROSS_CORRELATION, CUDNN_DATA_INT32},
    {1 << 30, INT_MAX, INT_MAX, 1, INT_MAX, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT},
};

static void test_conv_descriptors(cudnnConvolutionDescriptor_t c)
{
    for (size_t i = 0; i < sizeof conv2d / sizeof conv2d[0]; i++) {
        FD_EXPECT_STATUS(cudnnSetConvolution2dDescriptor(
                             c, conv2d[i].pad_h, conv2d[i].pad_w, conv2d[i].u, conv2d[i].v,
                             conv2d[i].dil_h, conv2d[i].dil_w, conv2d[i].mode, conv2d[i].compute),
                         CUDNN_STATUS_SUCCESS);
        int v[6];
        cudnnConvolutionMode_t mode;
        cudnnDataType_t compute;
        FD_EXPECT_STATUS(cudnnGetConvolution2dDescriptor(c, &v[0], &v[1], &v[2], &v[3], &v[4],
                                                         &v[5], &mode, &compute),
                         CUDNN_STATUS_SUCCESS);
        FD_EXPECT(v[0] == conv2d[i].pad_h && v[1] == conv2d[i].pad_w && v[2] == conv2d[i].u &&
                      v[3] == conv2d[i].v && v[4] == conv2d[i].dil_h && v[5] == conv2d[i].dil_w &&
                      mode == conv2d[i].mode && compute == conv2d[i].compute,
                  "conv2d case %zu: read back %d %d %d %d %d %d mode %d compute %d", i, v[0], v[1],
                  v[2], v[3], v[4], v[5], (int)mode, (int)compute);
        int n = -1, pad[6], stride[6], dil[6];
        for (int k = 0; k < 6; k++)
            pad[k] = stride[k] = dil[k] = UNTOUCHED;
        FD_EXPECT_STATUS(
            cudnnGetConvolutionNdDescriptor(c, 6, &n, pad, stride, dil, &mode, &compute),
            CUDNN_STATUS_SUCCESS);
        FD_EXPECT(n == 2 && pad[0] == conv2d[i].pad_h && pad[1] == conv2d[i].pad_w &&
                      stride[0] == conv2d[i].u && stride[1] == conv2d[i].v &&
                      dil[0] == conv2d[i].dil_h && dil[1] == conv2d[i].dil_w &&
                      pad[2] == UNTOUCHED && stride[2] == UNTOUCHED && dil[2] == UNTOUCHED,
                  "conv2d case %zu: GetNd arrayLength %d", i, n);
    }

    /* Nd: 1, 2, 3 spatial dims, read back whole and in part */
    static const struct {
        int n, pad[3], stride[3], dil[3];
    } nd[] = {
        {1, {2}, {3}, {1}}, {2, {0, 1}, {2, 2}, {1, 2}}, {3, {1, 0, 2}, {1, 2, 3}, {1, 1, 2}}};
    for (size_t i = 0; i < sizeof nd / sizeof nd[0]; i++) {
        FD_EXPECT_STATUS(cudnnSetConvolutionNdDescriptor(c, nd[i].n, nd[i].pad, nd[i].stride,
                                                         nd[i].dil, CUDNN_CONVOLUTION,
                                                         CUDNN_DATA_FLOAT),
                         CUDNN_STATUS_SUCCESS);
        for (int req = 0; req <= CUDNN_DIM_MAX - 2; req++) {
            int n = -1, pad[6], stride[6], dil[6];
            cudnnConvolutionMode_t mode;
            cudnnDataType_t compute;
            for (int k = 0; k < 6; k++)
                pad[k] = stride[k] = dil[k] = UNTOUCHED;
            FD_EXPECT_STATUS(
                cudnnGetConvolutionNdDescriptor(c, req, &n, pad, stride, dil, &mode, &compute),
                CUDNN_STATUS_SUCCESS);
            FD_EXPECT(n == nd[i].n && mode == CUDNN_CONVOLUTION && compute == CUDNN_DATA_FLOAT,
                      "Nd case %zu requested %d: arrayLength %d", i, req, n);
            for (int k = 0; k < 6; k++) {
                int asked = k < req && k < nd[i].n;
                FD_EXPECT(
                    asked ? (pad[k] == nd[i].pad[k] && stride[k] == nd[i].stride[k] &&
                             dil[k] == nd[i].dil[k])
                          : (pad[k] == UNTOUCHED && stride[k] == UNTOUCHED && dil[k] == UNTOUCHED),
                    "Nd case %zu requested %d: slot %d is %d/%d/%d", i, req, k, pad[k], stride[k],
                    dil[k]);
            }
        }
    }
    /* an Nd descriptor of 2 spatial dims is a 2d descriptor */
    FD_EXPECT_STATUS(cudnnSetConvolutionNdDescriptor(c, 2, (int[]){4, 5}, (int[]){6, 7},
                                                     (int[]){8, 9}, CUDNN_CROSS_CORRELATION,
                                                     CUDNN_DATA_HALF),
                     CUDNN_STATUS_SUCCESS);
    int v[6];
    cudnnConvolutionMode_t mode;
    cudnnDataType_t compute;
    FD_EXPECT_STATUS(cudnnGetConvolution2dDescriptor(c, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                                                     &mode, &compute),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(v[0] == 4 && v[1] == 5 && v[2] == 6 && v[3] == 7 && v[4] == 8 && v[5] == 9 &&
                  compute == CUDNN_DATA_HALF,
              "Nd(2) read as 2d: %d %d %d %d %d %d", v[0], v[1], v[2], v[3], v[4], v[5]);
}

static void test_conv_group_math_reorder(void)
{
    cudnnConvolutionDescriptor_t c = NULL;
    FD_EXPECT_STATUS(cudnnCreateConvolutionDescriptor(&c), CUDNN_STATUS_SUCCESS);
    int groups = -1;
    cudnnMathType_t math = (cudnnMathType_t)-1;
    cudnnReorderType_t reorder = (cudnnReorderType_t)-1;
    FD_EXPECT_STATUS(cudnnGetConvolutionGroupCount(c, &groups), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnGetConvolutionMathType(c, &math), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnGetConvolutionReorderType(c, &reorder), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(groups == 1 && math == CUDNN_DEFAULT_MATH && reorder == CUDNN_DEFAULT_REORDER,
              "defaults: groups %d math %d reorder %d", groups, (int)math, (int)reorder);
    static const int group_values[] = {1, 2, 3, 32, 1024, INT_MAX};
    for (size_t i = 0; i < sizeof group_values / sizeof group_values[0]; i++) {
        FD_EXPECT_STATUS(cudnnSetConvolutionGroupCount(c, group_values[i]), CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(cudnnGetConvolutionGroupCount(c, &groups), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(groups == group_values[i], "group count %d read back as %d", group_values[i],
                  groups);
    }
    static const cudnnMathType_t maths[] = {CUDNN_TENSOR_OP_MATH,
                                            CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION, CUDNN_FMA_MATH,
                                            CUDNN_DEFAULT_MATH};
    for (size_t i = 0; i < 4; i++) {
        FD_EXPECT_STATUS(cudnnSetConvolutionMathType(c, maths[i]), CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(cudnnGetConvolutionMathType(c, &math), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(math == maths[i], "math type %d read back as %d", (int)maths[i], (int)math);
    }
    static const cudnnReorderType_t reorders[] = {CUDNN_NO_REORDER, CUDNN_DEFAULT_REORDER};
    for (size_t i = 0; i < 2; i++) {
        FD_EXPECT_STATUS(cudnnSetConvolutionReorderType(c, reorders[i]), CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(cudnnGetConvolutionReorderType(c, &reorder), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(reorder == reorders[i], "reorder type %d read back as %d", (int)reorders[i],
                  (int)reorder);
    }
    FD_EXPECT_STATUS(cudnnDestroyConvolutionDescriptor(c), CUDNN_STATUS_SUCCESS);
}

/* ---- forward output dimensions ---------------------------------------------------------- */

/* One problem: x N x C x spatial, w K x C/groups x filter, per-dim pad/stride/dilation, and the
 * expected output spatial size written out by hand (the formula is checked separately). */
typedef struct {
    const char *name;
    int nsp, n, c, k, groups;
    int in[3], flt[3], pad[3], stride[3], dil[3];
    int out[3];
} outdim_case_t;

static const outdim_case_t outdims[] = {
    {"3x3 valid", 2, 1, 3, 4, 1, {8, 8}, {3, 3}, {0, 0}, {1, 1}, {1, 1}, {6, 6}},
    {"3x3 same", 2, 1, 3, 4, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {8, 8}},
    {"stride 5 floors", 2, 1, 3, 4, 1, {8, 8}, {3, 3}, {0, 0}, {5, 5}, {1, 1}, {2, 2}},
    {"stride 2 pad 1", 2, 2, 3, 4, 1, {8, 8}, {3, 3}, {1, 1}, {2, 2}, {1, 1}, {4, 4}},
    {"resnet stem", 2, 1, 3, 64, 1, {224, 224}, {7, 7}, {3, 3}, {2, 2}, {1, 1}, {112, 112}},
    {"dilation 2", 2, 1, 3, 4, 1, {8, 8}, {3, 3}, {0, 0}, {1, 1}, {2, 2}, {4, 4}},
    {"dilation 4 pad 4", 2, 1, 3, 4, 1, {8, 8}, {3, 3}, {4, 4}, {1, 1}, {4, 4}, {8, 8}},
    {"dilation 2x3", 2, 1, 2, 2, 1, {11, 13}, {3, 3}, {0, 1}, {1, 2}, {2, 3}, {7, 5}},
    {"asymmetric", 2, 1, 3, 4, 1, {9, 7}, {3, 1}, {1, 0}, {2, 1}, {1, 1}, {5, 7}},
    {"filter = padded input", 2, 1, 1, 1, 1, {5, 5}, {7, 7}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"1x1 stride 3", 2, 1, 3, 4, 1, {10, 10}, {1, 1}, {0, 0}, {3, 3}, {1, 1}, {4, 4}},
    {"stride beyond input", 2, 1, 3, 4, 1, {8, 8}, {3, 3}, {0, 0}, {100, 100}, {1, 1}, {1, 1}},
    {"stride INT_MAX", 2, 1, 3, 4, 1, {8, 8}, {3, 3}, {1, 1}, {INT_MAX, INT_MAX}, {1, 1}, {1, 1}},
    {"even filter", 2, 1, 3, 4, 1, {8, 8}, {4, 2}, {1, 0}, {1, 1}, {1, 1}, {7, 7}},
    {"groups 2", 2, 2, 8, 12, 2, {6, 6}, {3, 3}, {0, 0}, {1, 1}, {1, 1}, {4, 4}},
    {"depthwise", 2, 1, 16, 16, 16, {5, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {5, 5}},
    {"big pad", 2, 1, 1, 1, 1, {1, 1}, {1, 1}, {1000, 1000}, {1, 1}, {1, 1}, {2001, 2001}},
    {"pad just below overflow",
     2,
     1,
     1,
     1,
     1,
     {1, 1},
     {1, 1},
     {(INT_MAX - 1) / 2, 0},
     {(INT_MAX - 1) / 2, 1},
     {1, 1},
     {3, 1}},
    {"1d", 1, 2, 3, 5, 1, {10}, {4}, {2}, {3}, {1}, {4}},
    {"3d", 3, 1, 2, 4, 1, {5, 6, 7}, {3, 3, 3}, {1, 0, 2}, {1, 2, 3}, {1, 1, 2}, {5, 2, 3}},
    {"3d stride 5",
     3,
     2,
     4,
     8,
     2,
     {9, 9, 9},
     {3, 3, 3},
     {0, 0, 0},
     {5, 5, 5},
     {1, 1, 1},
     {2, 2, 2}},
};

static int formula(int in, int flt, int pad, int stride, int dil)
{
    long long span = (long long)(flt - 1) * dil + 1;
    return (int)(1 + ((long long)in + 2LL * pad - span) / stride);
}

static void test_output_dims(cudnnHandle_t h)
{
    cudnnTensorDescriptor_t x = NULL, y = NULL;
    cudnnFilterDescriptor_t w = NULL;
    cudnnConvolutionDescriptor_t c = NULL;
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&y);
    cudnnCreateFilterDescriptor(&w);
    cudnnCreateConvolutionDescriptor(&c);
    for (size_t i = 0; i < sizeof outdims / sizeof outdims[0]; i++) {
        const outdim_case_t *t = &outdims[i];
        int nb = t->nsp + 2;
        int xd[5] = {t->n, t->c}, wd[5] = {t->k, t->c / t->groups}, want[5] = {t->n, t->k};
        for (int s = 0; s < t->nsp; s++) {
            xd[2 + s] = t->in[s];
            wd[2 + s] = t->flt[s];
            want[2 + s] = t->out[s];
            FD_EXPECT(formula(t->in[s], t->flt[s], t->pad[s], t->stride[s], t->dil[s]) == t->out[s],
                      "%s: the table disagrees with the formula in dim %d", t->name, s);
        }
        FD_EXPECT_STATUS(cudnnSetTensorNdDescriptorEx(x, NCHW, CUDNN_DATA_FLOAT, nb, xd),
                         CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(cudnnSetFilterNdDescriptor(w, CUDNN_DATA_FLOAT, NCHW, nb, wd),
                         CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(cudnnSetConvolutionNdDescriptor(c, t->nsp, t->pad, t->stride, t->dil,
                                                         CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                         CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(cudnnSetConvolutionGroupCount(c, t->groups), CUDNN_STATUS_SUCCESS);
        int got[CUDNN_DIM_MAX];
        for (int k = 0; k < CUDNN_DIM_MAX; k++)
            got[k] = UNTOUCHED;
        cudnnStatus_t st = cudnnGetConvolutionNdForwardOutputDim(c, x, w, nb, got);
        FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "%s: GetNdForwardOutputDim %s", t->name,
                  cudnnGetErrorString(st));
        for (int k = 0; k < CUDNN_DIM_MAX; k++)
            FD_EXPECT(got[k] == (k < nb ? want[k] : UNTOUCHED),
                      "%s: Nd output dim %d is %d, want %d", t->name, k, got[k],
                      k < nb ? want[k] : UNTOUCHED);
        if (t->nsp == 2) {
            int o[4] = {-1, -1, -1, -1};
            FD_EXPECT_STATUS(
                cudnnGetConvolution2dForwardOutputDim(c, x, w, &o[0], &o[1], &o[2], &o[3]),
                CUDNN_STATUS_SUCCESS);
            FD_EXPECT(o[0] == want[0] && o[1] == want[1] && o[2] == want[2] && o[3] == want[3],
                      "%s: 2d output %dx%dx%dx%d, want %dx%dx%dx%d", t->name, o[0], o[1], o[2],
                      o[3], want[0], want[1], want[2], want[3]);
        }
        /* the output-dim query and the compute path agree: y of that shape is accepted, y one
         * larger in the last dim is not */
        if (st == CUDNN_STATUS_SUCCESS) {
            FD_EXPECT_STATUS(cudnnSetTensorNdDescriptorEx(y, NCHW, CUDNN_DATA_FLOAT, nb, want),
                             CUDNN_STATUS_SUCCESS);
            size_t ws = 0;
            FD_EXPECT(cudnnGetConvolutionForwardWorkspaceSize(
                          h, x, w, c, y, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &ws) ==
                          CUDNN_STATUS_SUCCESS,
                      "%s: the computed y shape is not accepted by the forward workspace query",
                      t->name);
            want[nb - 1]++;
            FD_EXPECT_STATUS(cudnnSetTensorNdDescriptorEx(y, NCHW, CUDNN_DATA_FLOAT, nb, want),
                             CUDNN_STATUS_SUCCESS);
            FD_EXPECT(cudnnGetConvolutionForwardWorkspaceSize(
                          h, x, w, c, y, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &ws) ==
                          CUDNN_STATUS_BAD_PARAM,
                      "%s: y one larger than the computed shape is accepted", t->name);
        }
    }
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyConvolutionDescriptor(c);
}

int main(void)
{
    cudnnHandle_t h = NULL;
    FD_EXPECT_STATUS(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
    cudnnTensorDescriptor_t t = NULL;
    cudnnFilterDescriptor_t f = NULL;
    cudnnConvolutionDescriptor_t c = NULL;
    FD_EXPECT_STATUS(cudnnCreateTensorDescriptor(&t), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnCreateFilterDescriptor(&f), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnCreateConvolutionDescriptor(&c), CUDNN_STATUS_SUCCESS);
    test_tensor4d(t);
    test_tensor4d_ex(t);
    test_tensor_nd(t);
    test_tensor_nd_ex(t);
    test_tensor_partial_reads(t);
    test_filters(f);
    test_conv_descriptors(c);
    test_conv_group_math_reorder();
    test_output_dims(h);
    cudnnDestroyTensorDescriptor(t);
    cudnnDestroyFilterDescriptor(f);
    cudnnDestroyConvolutionDescriptor(c);
    cudnnDestroy(h);
    return fd_test_finish();
}
