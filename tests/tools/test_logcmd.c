/* SPDX-License-Identifier: MIT */
/*
 * test_logcmd.c - FREEDNN_LOG_CMD=1 (src/core/logcmd.c, DESIGN D10): each compute call writes
 * one "freednn: dnnbench ..." line on stderr, in dnnbench's compact form, with what the form
 * cannot say (strides, 3-d, a half accumulator) after it as a shell comment; nothing without
 * the variable. (tests/tools/dnnbench_test.sh log_cmd re-runs such lines through dnnbench.)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fd_test.h"

/* Runs one forward convolution and returns what it wrote to stderr (static buffer). */
static const char *captured_forward(cudnnHandle_t h, cudnnTensorDescriptor_t xd,
                                    cudnnFilterDescriptor_t wd, cudnnConvolutionDescriptor_t cd,
                                    cudnnTensorDescriptor_t yd, size_t elem)
{
    static char text[4096];
    void *x = calloc(4096, elem), *w = calloc(4096, elem), *y = calloc(4096, elem);
    char path[] = "/tmp/fd-logcmd-XXXXXX";
    int fd = mkstemp(path);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    float one = 1.0f, zero = 0.0f;
    cudnnStatus_t st = cudnnConvolutionForward(
        h, &one, xd, x, wd, w, cd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, NULL, 0, &zero, yd, y);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FD_EXPECT_STATUS(st, CUDNN_STATUS_SUCCESS);
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, text, sizeof text - 1);
    text[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
    free(x), free(w), free(y);
    return text;
}

int main(void)
{
    cudnnHandle_t h;
    FD_EXPECT_STATUS(freednnCreateWithBackend(&h, FREEDNN_BACKEND_REF), CUDNN_STATUS_SUCCESS);
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnCreateTensorDescriptor(&xd);
    cudnnCreateTensorDescriptor(&yd);
    cudnnCreateFilterDescriptor(&wd);
    cudnnCreateConvolutionDescriptor(&cd);

    /* packed NCHW, FMA math, per-axis pad and stride: a complete command */
    FD_EXPECT_STATUS(
        cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 2, 5, 6),
        CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(
        cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 3, 2, 3, 2),
        CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolution2dDescriptor(cd, 1, 0, 1, 2, 1, 1, CUDNN_CROSS_CORRELATION,
                                                     CUDNN_DATA_FLOAT),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionMathType(cd, CUDNN_FMA_MATH), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(
        cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 5, 3),
        CUDNN_STATUS_SUCCESS);
    unsetenv("FREEDNN_LOG_CMD");
    const char *t = captured_forward(h, xd, wd, cd, yd, 4);
    FD_EXPECT(strstr(t, "freednn: dnnbench") == NULL, "a line without FREEDNN_LOG_CMD: %s", t);
    setenv("FREEDNN_LOG_CMD", "1", 1);
    t = captured_forward(h, xd, wd, cd, yd, 4);
    FD_EXPECT(
        strcmp(
            t,
            "freednn: dnnbench --op=conv --dir=fwd --dt=f32 --layout=nchw --backend=ref --algo=0 "
            "n1c2h5w6k3r3s2p1q0u1v2l1g1\n") == 0,
        "packed NCHW: %s", t);

    /* a row pitch of 8: strides the compact form cannot carry, noted after the command */
    FD_EXPECT_STATUS(cudnnSetTensor4dDescriptorEx(xd, CUDNN_DATA_FLOAT, 1, 2, 5, 6, 80, 40, 8, 1),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionMathType(cd, CUDNN_DEFAULT_MATH), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(
        cudnnSetConvolution2dDescriptor(cd, 1, 0, 1, 2, 1, 1, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT),
        CUDNN_STATUS_SUCCESS);
    t = captured_forward(h, xd, wd, cd, yd, 4);
    FD_EXPECT(
        strncmp(
            t,
            "freednn: dnnbench --op=conv --dir=fwd --dt=f32 --layout=nchw --backend=ref --algo=0 "
            "--math=default --conv-mode=conv n1c2h5w6k3r3s2p1q0u1v2l1g1  # not expressed; strided "
            "tensors: x 80,40,0,8,1 y ",
            160) == 0 &&
            strchr(t, '\n') == t + strlen(t) - 1,
        "strided x: %s", t);

    /* NHWC half data accumulating in half: --dt=f16 plus a note */
    FD_EXPECT_STATUS(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 2, 4, 5, 5),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 4, 2, 3, 3),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolution2dDescriptor(cd, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION,
                                                     CUDNN_DATA_HALF),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionGroupCount(cd, 2), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionMathType(cd, CUDNN_TENSOR_OP_MATH), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 2, 4, 3, 3),
                     CUDNN_STATUS_SUCCESS);
    t = captured_forward(h, xd, wd, cd, yd, 2);
    FD_EXPECT(
        strcmp(
            t,
            "freednn: dnnbench --op=conv --dir=fwd --dt=f16 --layout=nhwc --backend=ref --algo=0 "
            "n2c4h5w5k4r3s3p1u2l1g2  # not expressed; computeType CUDNN_DATA_HALF (dnnbench "
            "accumulates "
            "in FLOAT)\n") == 0,
        "NHWC half: %s", t);

    /* 3-d: the H, W part and a note with D */
    int xdim[5] = {1, 2, 3, 4, 5}, xstr[5] = {120, 60, 20, 5, 1}, wdim[5] = {2, 2, 2, 3, 3};
    int ydim[5] = {1, 2, 2, 4, 5}, ystr[5] = {80, 40, 20, 5, 1};
    int pad[3] = {0, 1, 1}, one3[3] = {1, 1, 1};
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(xd, CUDNN_DATA_FLOAT, 5, xdim, xstr),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetFilterNdDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 5, wdim),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionNdDescriptor(cd, 3, pad, one3, one3,
                                                     CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionGroupCount(cd, 1), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionMathType(cd, CUDNN_FMA_MATH), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(yd, CUDNN_DATA_FLOAT, 5, ydim, ystr),
                     CUDNN_STATUS_SUCCESS);
    t = captured_forward(h, xd, wd, cd, yd, 4);
    FD_EXPECT(
        strstr(
            t,
            " n1c2h4w5k2r3s3p1u1l1g1  # not expressed; 3-d: D 3 T 2 pad 0 stride 1 dilation 1") !=
            NULL,
        "3-d: %s", t);

    unsetenv("FREEDNN_LOG_CMD");
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyConvolutionDescriptor(cd);
    cudnnDestroy(h);
    return fd_test_finish();
}
