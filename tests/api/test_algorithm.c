/* SPDX-License-Identifier: MIT */
/*
 * test_algorithm.c - cuDNN 7's algorithm descriptors, performance records and save/restore:
 * round trips with hand-chosen values, a restore into a fresh descriptor in another handle,
 * and bad input (exact status, nothing changed).
 */
#include <string.h>

#include "fd_test.h"

static cudnnAlgorithm_t fwd_algo(cudnnConvolutionFwdAlgo_t a)
{
    cudnnAlgorithm_t x;
    memset(&x, 0, sizeof x);
    x.algo.convFwdAlgo = a;
    return x;
}

int main(void)
{
    cudnnHandle_t h, h2;
    FD_EXPECT_STATUS(freednnCreateWithBackend(&h, FREEDNN_BACKEND_REF), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(freednnCreateWithBackend(&h2, FREEDNN_BACKEND_CPU), CUDNN_STATUS_SUCCESS);

    cudnnAlgorithmDescriptor_t a, b, unset;
    FD_EXPECT_STATUS(cudnnCreateAlgorithmDescriptor(&a), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnCreateAlgorithmDescriptor(&b), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnCreateAlgorithmDescriptor(&unset), CUDNN_STATUS_SUCCESS);

    /* set / get / copy */
    FD_EXPECT_STATUS(cudnnSetAlgorithmDescriptor(a, fwd_algo(CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD)),
                     CUDNN_STATUS_SUCCESS);
    cudnnAlgorithm_t got;
    memset(&got, 0xff, sizeof got);
    FD_EXPECT_STATUS(cudnnGetAlgorithmDescriptor(a, &got), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(got.algo.convFwdAlgo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, "get: %d", (int)got.algo.convFwdAlgo);
    FD_EXPECT_STATUS(cudnnCopyAlgorithmDescriptor(a, b), CUDNN_STATUS_SUCCESS);
    memset(&got, 0xff, sizeof got);
    FD_EXPECT_STATUS(cudnnGetAlgorithmDescriptor(b, &got), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(got.algo.convFwdAlgo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, "copy: %d", (int)got.algo.convFwdAlgo);

    /* performance records: an array of three, each set and read back */
    cudnnAlgorithmPerformance_t perf[3] = {NULL, NULL, NULL};
    FD_EXPECT_STATUS(cudnnCreateAlgorithmPerformance(perf, 3), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(perf[0] && perf[1] && perf[2] && perf[0] != perf[1], "three distinct records");
    for (int i = 0; i < 3; i++)
        FD_EXPECT_STATUS(cudnnSetAlgorithmPerformance(perf[i], i == 1 ? b : a,
                                                      i == 2 ? CUDNN_STATUS_NOT_SUPPORTED : CUDNN_STATUS_SUCCESS,
                                                      0.5f * (float)(i + 1), (size_t)1024 * (size_t)i),
                         CUDNN_STATUS_SUCCESS);
    for (int i = 0; i < 3; i++) {
        cudnnAlgorithmDescriptor_t d = NULL;
        cudnnStatus_t st = CUDNN_STATUS_INTERNAL_ERROR;
        float t = -1;
        size_t m = 7;
        FD_EXPECT_STATUS(cudnnGetAlgorithmPerformance(perf[i], &d, &st, &t, &m), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(d == (i == 1 ? b : a) && t == 0.5f * (float)(i + 1) && m == (size_t)1024 * (size_t)i &&
                      st == (i == 2 ? CUDNN_STATUS_NOT_SUPPORTED : CUDNN_STATUS_SUCCESS),
                  "perf[%d]: desc %p time %g memory %zu status %d", i, (void *)d, t, m, (int)st);
    }

    /* save in one handle, restore in another */
    size_t need = 0;
    FD_EXPECT_STATUS(cudnnGetAlgorithmSpaceSize(h, a, &need), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(need > 0 && need <= 256, "space size %zu", need);
    unsigned char space[256], copy[256];
    memset(space, 0x5a, sizeof space);
    FD_EXPECT_STATUS(cudnnSaveAlgorithm(h, a, space, need), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(space[need] == 0x5a, "save wrote past the queried size");
    cudnnAlgorithmDescriptor_t c;
    FD_EXPECT_STATUS(cudnnCreateAlgorithmDescriptor(&c), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnRestoreAlgorithm(h2, space, need, c), CUDNN_STATUS_SUCCESS);
    memset(&got, 0xff, sizeof got);
    FD_EXPECT_STATUS(cudnnGetAlgorithmDescriptor(c, &got), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(got.algo.convFwdAlgo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, "restore: %d", (int)got.algo.convFwdAlgo);

    /* bad input: exact status, the target descriptor keeps its value */
    FD_EXPECT_STATUS(cudnnSetAlgorithmDescriptor(b, fwd_algo(CUDNN_CONVOLUTION_FWD_ALGO_GEMM)), CUDNN_STATUS_SUCCESS);
    memcpy(copy, space, sizeof copy);
    copy[9] ^= 1; /* damage the version field: the checksum no longer matches */
    FD_EXPECT_STATUS(cudnnRestoreAlgorithm(h, copy, need, b), CUDNN_STATUS_BAD_PARAM);
    memcpy(copy, space, sizeof copy);
    copy[0] = 'X';
    FD_EXPECT_STATUS(cudnnRestoreAlgorithm(h, copy, need, b), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT_STATUS(cudnnRestoreAlgorithm(h, space, need - 1, b), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT_STATUS(cudnnRestoreAlgorithm(h, NULL, need, b), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT_STATUS(cudnnRestoreAlgorithm(NULL, space, need, b), CUDNN_STATUS_BAD_PARAM);
    memset(&got, 0xff, sizeof got);
    FD_EXPECT_STATUS(cudnnGetAlgorithmDescriptor(b, &got), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(got.algo.convFwdAlgo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM, "a rejected restore changed b");
    unsigned char before[256];
    memcpy(before, space, sizeof before);
    FD_EXPECT_STATUS(cudnnSaveAlgorithm(h, a, space, need - 1), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT_STATUS(cudnnSaveAlgorithm(h, unset, space, need), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT(memcmp(before, space, sizeof before) == 0, "a rejected save wrote");
    FD_EXPECT_STATUS(cudnnGetAlgorithmDescriptor(unset, &got), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT_STATUS(cudnnGetAlgorithmDescriptor(a, NULL), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT_STATUS(cudnnCopyAlgorithmDescriptor(unset, b), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT_STATUS(cudnnCreateAlgorithmDescriptor(NULL), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT_STATUS(cudnnSetAlgorithmDescriptor(NULL, fwd_algo(CUDNN_CONVOLUTION_FWD_ALGO_GEMM)), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT_STATUS(cudnnGetAlgorithmSpaceSize(h, unset, &need), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT_STATUS(cudnnGetAlgorithmSpaceSize(h, a, NULL), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT_STATUS(cudnnCreateAlgorithmPerformance(perf, 0), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT_STATUS(cudnnSetAlgorithmPerformance(perf[0], NULL, CUDNN_STATUS_SUCCESS, 1.0f, 0), CUDNN_STATUS_BAD_PARAM);
    cudnnAlgorithmPerformance_t fresh[1];
    FD_EXPECT_STATUS(cudnnCreateAlgorithmPerformance(fresh, 1), CUDNN_STATUS_SUCCESS);
    cudnnAlgorithmDescriptor_t d;
    cudnnStatus_t st;
    float t;
    size_t m;
    FD_EXPECT_STATUS(cudnnGetAlgorithmPerformance(fresh[0], &d, &st, &t, &m), CUDNN_STATUS_BAD_PARAM);
    FD_EXPECT_STATUS(cudnnGetAlgorithmPerformance(perf[0], NULL, &st, &t, &m), CUDNN_STATUS_BAD_PARAM);
    char why[256];
    cudnnGetLastErrorString(why, sizeof why);
    FD_EXPECT(strstr(why, "algoDesc") != NULL, "reason names the parameter: %s", why);

    FD_EXPECT_STATUS(cudnnDestroyAlgorithmPerformance(perf, 3), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(perf[0] == NULL && perf[2] == NULL, "destroy clears the array");
    FD_EXPECT_STATUS(cudnnDestroyAlgorithmPerformance(fresh, 1), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnDestroyAlgorithmDescriptor(a), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnDestroyAlgorithmDescriptor(b), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnDestroyAlgorithmDescriptor(c), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnDestroyAlgorithmDescriptor(unset), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnDestroyAlgorithmDescriptor(NULL), CUDNN_STATUS_SUCCESS);
    cudnnDestroy(h);
    cudnnDestroy(h2);
    return fd_test_finish();
}
