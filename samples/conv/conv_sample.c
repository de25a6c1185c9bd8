/* SPDX-License-Identifier: MIT */
/*
 * conv_sample.c - a convolution layer through the cuDNN API, the way an application writes it:
 * descriptors, cudnnGetConvolution*Algorithm_v7, workspace query, forward, backward data,
 * backward filter and bias, on the default backend (FREEDNN_BACKEND overrides). Every result
 * is checked against a plain loop written here, independent of the library.
 *
 * usage: conv_sample [--small]
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cudnn.h"
#include "freednn.h"

#define CHECK(call)                                                                            \
    do {                                                                                       \
        cudnnStatus_t s_ = (call);                                                             \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                      \
            char why_[512];                                                                    \
            cudnnGetLastErrorString(why_, sizeof why_);                                        \
            fprintf(stderr, "%s:%d: %s failed: %s\n  %s\n", __FILE__, __LINE__, #call,         \
                    cudnnGetErrorString(s_), why_);                                            \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fill(float *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = (float)((int)(seed >> 24) % 9 - 4) * 0.25f; /* exact small values */
    }
}

static double max_abs_diff(const float *a, const double *b, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs((double)a[i] - b[i]));
    return m;
}

int main(int argc, char **argv)
{
    int small = argc > 1 && strcmp(argv[1], "--small") == 0;
    const int N = small ? 2 : 8, C = 16, H = small ? 12 : 28, W = H, K = 32, R = 3, S = 3, pad = 1;
    const int P = H, Q = W; /* stride 1, pad 1, 3x3: same size */

    cudnnHandle_t h;
    CHECK(cudnnCreate(&h));
    freednnBackend_t backend;
    CHECK(freednnGetBackend(h, &backend));
    printf("freednn %zu serving the cuDNN %zu API; backend %s\n", freednnGetVersion(),
           cudnnGetVersion(), freednnGetBackendName(backend));
    if (backend == FREEDNN_BACKEND_CUDA) {
        printf("this sample uses host pointers; run it with FREEDNN_BACKEND=cpu\n");
        return 0;
    }

    cudnnTensorDescriptor_t xd, yd, bd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    CHECK(cudnnCreateTensorDescriptor(&xd));
    CHECK(cudnnCreateTensorDescriptor(&yd));
    CHECK(cudnnCreateTensorDescriptor(&bd));
    CHECK(cudnnCreateFilterDescriptor(&wd));
    CHECK(cudnnCreateConvolutionDescriptor(&cd));
    CHECK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
    CHECK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, S));
    CHECK(cudnnSetConvolution2dDescriptor(cd, pad, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                          CUDNN_DATA_FLOAT));
    int n, k, p, q;
    CHECK(cudnnGetConvolution2dForwardOutputDim(cd, xd, wd, &n, &k, &p, &q));
    if (n != N || k != K || p != P || q != Q) {
        fprintf(stderr, "output dim %dx%dx%dx%d, expected %dx%dx%dx%d\n", n, k, p, q, N, K, P, Q);
        return 1;
    }
    CHECK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, P, Q));
    CHECK(cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, K, 1, 1));

    size_t xn = (size_t)N * C * H * W, wn = (size_t)K * C * R * S, yn = (size_t)N * K * P * Q;
    float *x = malloc(xn * 4), *w = malloc(wn * 4), *y = malloc(yn * 4), *dy = malloc(yn * 4);
    float *dx = malloc(xn * 4), *dw = malloc(wn * 4), *db = malloc((size_t)K * 4);
    double *ref_y = calloc(yn, 8), *ref_dx = calloc(xn, 8), *ref_dw = calloc(wn, 8), *ref_db = calloc(K, 8);
    fill(x, xn, 1), fill(w, wn, 2), fill(dy, yn, 3);

    /* The oracle: the definition, one multiply-add at a time. */
    for (int in = 0; in < N; in++)
        for (int ik = 0; ik < K; ik++)
            for (int ip = 0; ip < P; ip++)
                for (int iq = 0; iq < Q; iq++)
                    for (int ic = 0; ic < C; ic++)
                        for (int ir = 0; ir < R; ir++)
                            for (int is = 0; is < S; is++) {
                                int hh = ip - pad + ir, ww = iq - pad + is;
                                if (hh < 0 || hh >= H || ww < 0 || ww >= W)
                                    continue;
                                size_t xi = (((size_t)in * C + ic) * H + hh) * W + ww;
                                size_t wi = (((size_t)ik * C + ic) * R + ir) * S + is;
                                size_t yi = (((size_t)in * K + ik) * P + ip) * Q + iq;
                                ref_y[yi] += (double)x[xi] * w[wi];
                                ref_dx[xi] += (double)dy[yi] * w[wi];
                                ref_dw[wi] += (double)dy[yi] * x[xi];
                            }
    for (size_t i = 0; i < yn; i++)
        ref_db[i / ((size_t)P * Q) % K] += dy[i];

    cudnnConvolutionFwdAlgoPerf_t fperf;
    cudnnConvolutionBwdDataAlgoPerf_t dperf;
    cudnnConvolutionBwdFilterAlgoPerf_t wperf;
    int got;
    CHECK(cudnnGetConvolutionForwardAlgorithm_v7(h, xd, wd, cd, yd, 1, &got, &fperf));
    CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, wd, yd, cd, xd, 1, &got, &dperf));
    CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, xd, yd, cd, wd, 1, &got, &wperf));
    size_t ws_f, ws_d, ws_w;
    CHECK(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, fperf.algo, &ws_f));
    CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, wd, yd, cd, xd, dperf.algo, &ws_d));
    CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xd, yd, cd, wd, wperf.algo, &ws_w));
    size_t ws_size = ws_f > ws_d ? ws_f : ws_d;
    ws_size = ws_size > ws_w ? ws_size : ws_w;
    void *ws = ws_size ? malloc(ws_size) : NULL;

    const float one = 1.0f, zero = 0.0f;
    double flops = 2.0 * (double)yn * C * R * S;
    double t0 = seconds();
    CHECK(cudnnConvolutionForward(h, &one, xd, x, wd, w, cd, fperf.algo, ws, ws_size, &zero, yd, y));
    double t1 = seconds();
    CHECK(cudnnConvolutionBackwardData(h, &one, wd, w, yd, dy, cd, dperf.algo, ws, ws_size, &zero, xd, dx));
    double t2 = seconds();
    CHECK(cudnnConvolutionBackwardFilter(h, &one, xd, x, yd, dy, cd, wperf.algo, ws, ws_size, &zero, wd, dw));
    double t3 = seconds();
    CHECK(cudnnConvolutionBackwardBias(h, &one, yd, dy, &zero, bd, db));

    double e_y = max_abs_diff(y, ref_y, yn), e_dx = max_abs_diff(dx, ref_dx, xn);
    double e_dw = max_abs_diff(dw, ref_dw, wn), e_db = max_abs_diff(db, ref_db, K);
    printf("conv %dx%dx%dx%d * %dx%dx%dx%d pad %d (%.1f MFLOP per direction)\n", N, C, H, W, K, C, R,
           S, pad, flops * 1e-6);
    printf("  forward         algo %d  %8.2f ms  max |err| %g\n", fperf.algo, (t1 - t0) * 1e3, e_y);
    printf("  backward data   algo %d  %8.2f ms  max |err| %g\n", dperf.algo, (t2 - t1) * 1e3, e_dx);
    printf("  backward filter algo %d  %8.2f ms  max |err| %g\n", wperf.algo, (t3 - t2) * 1e3, e_dw);
    printf("  backward bias             max |err| %g\n", e_db);
    int ok = e_y == 0.0 && e_dx == 0.0 && e_dw == 0.0 && e_db == 0.0; /* exact data: exact sums */
    printf("%s\n", ok ? "PASSED: every result equals the independent loop" : "FAILED");

    free(x), free(w), free(y), free(dy), free(dx), free(dw), free(db), free(ws);
    free(ref_y), free(ref_dx), free(ref_dw), free(ref_db);
    cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd), cudnnDestroyTensorDescriptor(bd);
    cudnnDestroyFilterDescriptor(wd), cudnnDestroyConvolutionDescriptor(cd);
    cudnnDestroy(h);
    return ok ? 0 : 1;
}
