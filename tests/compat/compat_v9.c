/* SPDX-License-Identifier: MIT */
/*
 * compat_v9.c - a cuDNN 9 program, built against NVIDIA's cudnn.h and linked against NVIDIA's
 * libcudnn.so.9 (tests/compat/CMakeLists.txt), then run unchanged with LD_LIBRARY_PATH naming
 * a directory where libcudnn.so.9 is freednn (issue 8, DESIGN D2). It proves where its cudnn*
 * symbols came from, then checks convolution (forward, backward data, backward filter),
 * pooling, activation, softmax, batch norm and tensor ops on host pointers (FREEDNN_BACKEND=cpu)
 * against values computed here. Integer data: everything but softmax and batch norm is compared
 * exactly. Uses only what NVIDIA's and freednn's headers both declare, so the same source also
 * builds against ours (compat/v9_stub).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cudnn.h>

static int failed, passed;

#define EXPECT(cond, ...)                                                                      \
    do {                                                                                       \
        if (cond) {                                                                            \
            passed++;                                                                          \
        } else {                                                                               \
            failed++;                                                                          \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
            printf(__VA_ARGS__);                                                               \
            printf("\n");                                                                      \
        }                                                                                      \
    } while (0)

/* A call that must succeed; on failure the section is abandoned. */
#define OK(call)                                                                               \
    do {                                                                                       \
        cudnnStatus_t s_ = (call);                                                             \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                      \
            failed++;                                                                          \
            printf("FAIL %s:%d: %s -> %d (%s)\n", __FILE__, __LINE__, #call, (int)s_,          \
                   cudnnGetErrorString(s_));                                                   \
            return;                                                                            \
        }                                                                                      \
    } while (0)

static void expect_close(const char *what, const float *got, const double *want, int n, double tol)
{
    for (int i = 0; i < n; i++) {
        double err = fabs((double)got[i] - want[i]);
        if (!(err <= tol * (1.0 + fabs(want[i])))) {
            EXPECT(0, "%s[%d] = %.9g, want %.9g", what, i, (double)got[i], want[i]);
            return;
        }
    }
    EXPECT(1, "%s", what);
    printf("ok   %s (%d values%s)\n", what, n, tol == 0.0 ? ", exact" : "");
}

static cudnnTensorDescriptor_t tensor4(int n, int c, int h, int w)
{
    cudnnTensorDescriptor_t t = NULL;
    if (cudnnCreateTensorDescriptor(&t) != CUDNN_STATUS_SUCCESS ||
        cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w) !=
            CUDNN_STATUS_SUCCESS)
        printf("FAIL: cannot make a %dx%dx%dx%d tensor descriptor\n", n, c, h, w);
    return t;
}

/* ---- where did cudnn* come from? ------------------------------------------------------- */

static void check_provenance(void)
{
    /* The exact versioned symbol this binary was linked to (NVIDIA's libcudnn.so.9 node). */
    void *create = dlvsym(RTLD_DEFAULT, "cudnnCreate", "libcudnn.so.9");
    void *own = dlsym(RTLD_DEFAULT, "freednnGetVersion");
    Dl_info a, b;
    EXPECT(create != NULL, "cudnnCreate@libcudnn.so.9 does not resolve: %s", dlerror());
    EXPECT(own != NULL, "freednnGetVersion is not in the process: this is not freednn");
    if (create == NULL || own == NULL)
        return;
    EXPECT(dladdr(create, &a) && dladdr(own, &b), "dladdr failed");
    char real[PATH_MAX];
    if (realpath(a.dli_fname, real) == NULL)
        snprintf(real, sizeof real, "?");
    printf("cudnnCreate@libcudnn.so.9 comes from %s (-> %s)\n", a.dli_fname, real);
    EXPECT(a.dli_fbase == b.dli_fbase, "cudnnCreate (%s) and freednnGetVersion (%s) live in "
           "different objects", a.dli_fname, b.dli_fname);
    EXPECT(strstr(real, "libfreednn") != NULL, "%s is not libfreednn", real);
    size_t (*fd_version)(void) = (size_t (*)(void))own;
    size_t v = cudnnGetVersion();
    int major = -1;
    cudnnGetProperty(MAJOR_VERSION, &major);
    printf("cudnnGetVersion() = %zu, cudnnGetProperty(MAJOR) = %d, freednnGetVersion() = %zu\n",
           v, major, fd_version());
    EXPECT(v / 10000 == 9 && major == 9, "a cuDNN 9 binary must see a 9.x version, got %zu / %d",
           v, major);
}

static void check_statuses(void)
{
    cudnnStatus_t s = cudnnCreateTensorDescriptor(NULL);
    printf("cudnnCreateTensorDescriptor(NULL) = %d (%s)\n", (int)s, cudnnGetErrorString(s));
    EXPECT(s == CUDNN_STATUS_BAD_PARAM || CUDNN_STATUS_CATEGORY(s) == CUDNN_STATUS_BAD_PARAM,
           "want a cuDNN 9 BAD_PARAM (2000..2999), got %d", (int)s);
    EXPECT(strcmp(cudnnGetErrorString(CUDNN_STATUS_NOT_SUPPORTED), "CUDNN_STATUS_NOT_SUPPORTED") == 0,
           "cudnnGetErrorString(3000) = %s", cudnnGetErrorString(CUDNN_STATUS_NOT_SUPPORTED));
}

/* ---- convolution ------------------------------------------------------------------------ */

enum { N = 2, C = 3, H = 5, W = 5, K = 4, R = 3, S = 3, PAD = 1 };
#define P (H + 2 * PAD - R + 1)
#define Q (W + 2 * PAD - S + 1)

static float X[N][C][H][W], Wt[K][C][R][S], Y[N][K][P][Q], DY[N][K][P][Q], DX[N][C][H][W],
    DW[K][C][R][S];

static void conv_ref(double y[N][K][P][Q], double dx[N][C][H][W], double dw[K][C][R][S])
{
    memset(y, 0, sizeof(double) * N * K * P * Q);
    memset(dx, 0, sizeof(double) * N * C * H * W);
    memset(dw, 0, sizeof(double) * K * C * R * S);
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
            for (int p = 0; p < P; p++)
                for (int q = 0; q < Q; q++)
                    for (int c = 0; c < C; c++)
                        for (int r = 0; r < R; r++)
                            for (int s = 0; s < S; s++) {
                                int h = p - PAD + r, w = q - PAD + s; /* cross-correlation */
                                if (h < 0 || h >= H || w < 0 || w >= W)
                                    continue;
                                y[n][k][p][q] += (double)X[n][c][h][w] * Wt[k][c][r][s];
                                dx[n][c][h][w] += (double)DY[n][k][p][q] * Wt[k][c][r][s];
                                dw[k][c][r][s] += (double)DY[n][k][p][q] * X[n][c][h][w];
                            }
}

static void check_convolution(cudnnHandle_t h)
{
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int i = 0; i < H; i++)
                for (int j = 0; j < W; j++)
                    X[n][c][i][j] = (float)((n * 7 + c * 5 + i * 3 + j) % 5 - 2);
    for (int k = 0; k < K; k++)
        for (int c = 0; c < C; c++)
            for (int r = 0; r < R; r++)
                for (int s = 0; s < S; s++)
                    Wt[k][c][r][s] = (float)((k * 3 + c * 2 + r + s * 2) % 3 - 1);
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
            for (int p = 0; p < P; p++)
                for (int q = 0; q < Q; q++)
                    DY[n][k][p][q] = (float)((n + k * 2 + p * 3 + q) % 4 - 1);
    static double y[N][K][P][Q], dx[N][C][H][W], dw[K][C][R][S];
    conv_ref(y, dx, dw);

    cudnnTensorDescriptor_t xd = tensor4(N, C, H, W), yd = tensor4(N, K, P, Q);
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    OK(cudnnCreateFilterDescriptor(&wd));
    OK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, S));
    OK(cudnnCreateConvolutionDescriptor(&cd));
    OK(cudnnSetConvolution2dDescriptor(cd, PAD, PAD, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                       CUDNN_DATA_FLOAT));
    int on, oc, oh, ow;
    OK(cudnnGetConvolution2dForwardOutputDim(cd, xd, wd, &on, &oc, &oh, &ow));
    EXPECT(on == N && oc == K && oh == P && ow == Q, "output dims %dx%dx%dx%d", on, oc, oh, ow);

    const float one = 1.0f, zero = 0.0f;
    cudnnConvolutionFwdAlgoPerf_t fp[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int got = 0;
    OK(cudnnGetConvolutionForwardAlgorithm_v7(h, xd, wd, cd, yd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                              &got, fp));
    EXPECT(got >= 1 && fp[0].status == CUDNN_STATUS_SUCCESS, "no forward algorithm (%d)", got);
    size_t ws_size = 0;
    OK(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, fp[0].algo, &ws_size));
    void *ws = ws_size ? malloc(ws_size) : NULL;
    OK(cudnnConvolutionForward(h, &one, xd, X, wd, Wt, cd, fp[0].algo, ws, ws_size, &zero, yd, Y));
    expect_close("conv forward", &Y[0][0][0][0], &y[0][0][0][0], N * K * P * Q, 0.0);
    free(ws);

    /* beta = 1 accumulates into y. */
    OK(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, CUDNN_CONVOLUTION_FWD_ALGO_GEMM,
                                               &ws_size));
    ws = ws_size ? malloc(ws_size) : NULL;
    OK(cudnnConvolutionForward(h, &one, xd, X, wd, Wt, cd, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, ws,
                               ws_size, &one, yd, Y));
    for (int i = 0; i < N * K * P * Q; i++)
        (&y[0][0][0][0])[i] *= 2;
    expect_close("conv forward GEMM, beta 1", &Y[0][0][0][0], &y[0][0][0][0], N * K * P * Q, 0.0);
    free(ws);

    cudnnConvolutionBwdDataAlgoPerf_t dp[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, wd, yd, cd, xd,
                                                   CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, dp));
    OK(cudnnGetConvolutionBackwardDataWorkspaceSize(h, wd, yd, cd, xd, dp[0].algo, &ws_size));
    ws = ws_size ? malloc(ws_size) : NULL;
    OK(cudnnConvolutionBackwardData(h, &one, wd, Wt, yd, DY, cd, dp[0].algo, ws, ws_size, &zero,
                                    xd, DX));
    expect_close("conv backward data", &DX[0][0][0][0], &dx[0][0][0][0], N * C * H * W, 0.0);
    free(ws);

    cudnnConvolutionBwdFilterAlgoPerf_t wp[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
        h, xd, yd, cd, wd, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got, wp));
    OK(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xd, yd, cd, wd, wp[0].algo, &ws_size));
    ws = ws_size ? malloc(ws_size) : NULL;
    OK(cudnnConvolutionBackwardFilter(h, &one, xd, X, yd, DY, cd, wp[0].algo, ws, ws_size, &zero,
                                      wd, DW));
    expect_close("conv backward filter", &DW[0][0][0][0], &dw[0][0][0][0], K * C * R * S, 0.0);
    free(ws);

    cudnnDestroyConvolutionDescriptor(cd);
    cudnnDestroyFilterDescriptor(wd);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
}

/* ---- pooling ---------------------------------------------------------------------------- */

static void check_pooling(cudnnHandle_t h)
{
    enum { PN = 1, PC = 2, PH = 4, PW = 4, OH = 2, OW = 2 };
    float x[PN * PC * PH * PW], y[PN * PC * OH * OW], dy[PN * PC * OH * OW], dx[PN * PC * PH * PW];
    double ymax[PN * PC * OH * OW], yavg[PN * PC * OH * OW], dxmax[PN * PC * PH * PW];
    for (int i = 0; i < PN * PC * PH * PW; i++)
        x[i] = (float)((i * 7) % 16 - 8); /* distinct within each channel: no ties */
    for (int i = 0; i < PN * PC * OH * OW; i++)
        dy[i] = (float)(i + 1);
    memset(dxmax, 0, sizeof dxmax);
    for (int c = 0; c < PC; c++)
        for (int p = 0; p < OH; p++)
            for (int q = 0; q < OW; q++) {
                double m = -1e30, sum = 0;
                int arg = 0;
                for (int r = 0; r < 2; r++)
                    for (int s = 0; s < 2; s++) {
                        int i = (c * PH + p * 2 + r) * PW + q * 2 + s;
                        sum += x[i];
                        if (x[i] > m) {
                            m = x[i];
                            arg = i;
                        }
                    }
                int o = (c * OH + p) * OW + q;
                ymax[o] = m;
                yavg[o] = sum / 4;
                dxmax[arg] += dy[o];
            }
    cudnnTensorDescriptor_t xd = tensor4(PN, PC, PH, PW), yd = tensor4(PN, PC, OH, OW);
    cudnnPoolingDescriptor_t pd;
    const float one = 1.0f, zero = 0.0f;
    OK(cudnnCreatePoolingDescriptor(&pd));
    OK(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
    OK(cudnnPoolingForward(h, pd, &one, xd, x, &zero, yd, y));
    expect_close("max pooling forward", y, ymax, PN * PC * OH * OW, 0.0);
    OK(cudnnPoolingBackward(h, pd, &one, yd, y, yd, dy, xd, x, &zero, xd, dx));
    expect_close("max pooling backward", dx, dxmax, PN * PC * PH * PW, 0.0);
    OK(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                   CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
    OK(cudnnPoolingForward(h, pd, &one, xd, x, &zero, yd, y));
    expect_close("average pooling forward", y, yavg, PN * PC * OH * OW, 0.0);
    cudnnDestroyPoolingDescriptor(pd);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
}

/* ---- activation ------------------------------------------------------------------------- */

static void check_activation(cudnnHandle_t h)
{
    enum { NE = 2 * 3 * 2 * 2 };
    float x[NE], y[NE], dy[NE], dx[NE];
    double relu[NE], clip[NE], drelu[NE];
    for (int i = 0; i < NE; i++) {
        x[i] = (float)((i * 5) % 9 - 4) + 0.5f; /* never 0 */
        dy[i] = (float)(i % 3 + 1);
        relu[i] = x[i] > 0 ? x[i] : 0;
        clip[i] = x[i] > 0 ? (x[i] < 2 ? x[i] : 2) : 0;
        drelu[i] = x[i] > 0 ? dy[i] : 0;
    }
    cudnnTensorDescriptor_t d = tensor4(2, 3, 2, 2);
    cudnnActivationDescriptor_t ad;
    const float one = 1.0f, zero = 0.0f;
    OK(cudnnCreateActivationDescriptor(&ad));
    OK(cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    OK(cudnnActivationForward(h, ad, &one, d, x, &zero, d, y));
    expect_close("relu forward", y, relu, NE, 0.0);
    OK(cudnnActivationBackward(h, ad, &one, d, y, d, dy, d, x, &zero, d, dx));
    expect_close("relu backward", dx, drelu, NE, 0.0);
    OK(cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_NOT_PROPAGATE_NAN, 2.0));
    OK(cudnnActivationForward(h, ad, &one, d, x, &zero, d, y));
    expect_close("clipped relu forward", y, clip, NE, 0.0);
    cudnnDestroyActivationDescriptor(ad);
    cudnnDestroyTensorDescriptor(d);
}

/* ---- softmax ---------------------------------------------------------------------------- */

static void check_softmax(cudnnHandle_t h)
{
    enum { SN = 2, SC = 5 };
    float x[SN * SC], y[SN * SC];
    double want[SN * SC], want_log[SN * SC];
    for (int i = 0; i < SN * SC; i++)
        x[i] = (float)((i * 3) % 7 - 3);
    for (int n = 0; n < SN; n++) {
        double m = -1e30, sum = 0;
        for (int c = 0; c < SC; c++)
            m = fmax(m, x[n * SC + c]);
        for (int c = 0; c < SC; c++)
            sum += exp(x[n * SC + c] - m);
        for (int c = 0; c < SC; c++) {
            want[n * SC + c] = exp(x[n * SC + c] - m) / sum;
            want_log[n * SC + c] = x[n * SC + c] - m - log(sum);
        }
    }
    cudnnTensorDescriptor_t d = tensor4(SN, SC, 1, 1);
    const float one = 1.0f, zero = 0.0f;
    OK(cudnnSoftmaxForward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, d, x, &zero,
                           d, y));
    expect_close("softmax accurate", y, want, SN * SC, 1e-6);
    OK(cudnnSoftmaxForward(h, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_INSTANCE, &one, d, x, &zero, d, y));
    expect_close("log softmax", y, want_log, SN * SC, 1e-6);
    cudnnDestroyTensorDescriptor(d);
}

/* ---- batch normalization ---------------------------------------------------------------- */

static void check_batchnorm(cudnnHandle_t h)
{
    enum { BN = 2, BC = 3, BH = 2, BW = 2, M = BN * BH * BW };
    float x[BN * BC * BH * BW], y[BN * BC * BH * BW];
    float scale[BC] = {1, 2, -1}, bias[BC] = {0, 1, 3}, mean[BC] = {1, -2, 0.5f}, var[BC] = {4, 1, 16};
    float run_mean[BC] = {0}, run_var[BC] = {0}, save_mean[BC], save_inv[BC];
    double want[BN * BC * BH * BW], wmean[BC], wvar[BC], winv[BC];
    const double eps = 1e-5;
    for (int i = 0; i < BN * BC * BH * BW; i++)
        x[i] = (float)((i * 5) % 7 - 3);
    for (int n = 0; n < BN; n++)
        for (int c = 0; c < BC; c++)
            for (int i = 0; i < BH * BW; i++) {
                int o = (n * BC + c) * BH * BW + i;
                want[o] = scale[c] * (x[o] - mean[c]) / sqrt(var[c] + eps) + bias[c];
            }
    cudnnTensorDescriptor_t xd = tensor4(BN, BC, BH, BW), pd;
    const float one = 1.0f, zero = 0.0f;
    OK(cudnnCreateTensorDescriptor(&pd));
    OK(cudnnDeriveBNTensorDescriptor(pd, xd, CUDNN_BATCHNORM_SPATIAL));
    OK(cudnnBatchNormalizationForwardInference(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd, x, xd,
                                               y, pd, scale, bias, mean, var, eps));
    expect_close("batch norm inference", y, want, BN * BC * BH * BW, 1e-5);

    for (int c = 0; c < BC; c++) {
        double s = 0, ss = 0;
        for (int n = 0; n < BN; n++)
            for (int i = 0; i < BH * BW; i++)
                s += x[(n * BC + c) * BH * BW + i];
        wmean[c] = s / M;
        for (int n = 0; n < BN; n++)
            for (int i = 0; i < BH * BW; i++) {
                double d = x[(n * BC + c) * BH * BW + i] - wmean[c];
                ss += d * d;
            }
        wvar[c] = ss / (M - 1); /* running variance: unbiased */
        winv[c] = 1.0 / sqrt(ss / M + eps);
        for (int n = 0; n < BN; n++)
            for (int i = 0; i < BH * BW; i++) {
                int o = (n * BC + c) * BH * BW + i;
                want[o] = scale[c] * (x[o] - wmean[c]) * winv[c] + bias[c];
            }
    }
    OK(cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd, x, xd, y,
                                              pd, scale, bias, 1.0, run_mean, run_var, eps,
                                              save_mean, save_inv));
    expect_close("batch norm training y", y, want, BN * BC * BH * BW, 1e-5);
    expect_close("batch norm training running mean", run_mean, wmean, BC, 1e-6);
    expect_close("batch norm training running variance", run_var, wvar, BC, 1e-6);
    expect_close("batch norm training saved mean", save_mean, wmean, BC, 1e-6);
    expect_close("batch norm training saved 1/std", save_inv, winv, BC, 1e-5);
    cudnnDestroyTensorDescriptor(pd);
    cudnnDestroyTensorDescriptor(xd);
}

/* ---- tensor ops ------------------------------------------------------------------------- */

static void check_tensor_ops(cudnnHandle_t h)
{
    enum { TN = 2, TC = 3, TH = 2, TW = 2, NE = TN * TC * TH * TW };
    float a[NE], b[NE], c[NE], bias[TC] = {1, -2, 4}, t[NE];
    double want[NE];
    for (int i = 0; i < NE; i++) {
        a[i] = (float)(i % 5 - 2);
        b[i] = (float)(i % 3 + 1);
    }
    cudnnTensorDescriptor_t d = tensor4(TN, TC, TH, TW), bd = tensor4(1, TC, 1, 1), nhwc;
    const float one = 1.0f, zero = 0.0f, two = 2.0f, three = 3.0f;

    memcpy(c, a, sizeof c); /* c = 1 * bias + 1 * c */
    OK(cudnnAddTensor(h, &one, bd, bias, &one, d, c));
    for (int i = 0; i < NE; i++)
        want[i] = a[i] + bias[(i / (TH * TW)) % TC];
    expect_close("add tensor (bias broadcast)", c, want, NE, 0.0);

    cudnnOpTensorDescriptor_t od;
    OK(cudnnCreateOpTensorDescriptor(&od));
    OK(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_MUL, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
    OK(cudnnOpTensor(h, od, &two, d, a, &one, d, b, &zero, d, c)); /* c = (2a) * b */
    for (int i = 0; i < NE; i++)
        want[i] = 2.0 * a[i] * b[i];
    expect_close("op tensor MUL", c, want, NE, 0.0);
    OK(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_MAX, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
    OK(cudnnOpTensor(h, od, &one, d, a, &one, d, b, &one, d, c)); /* c = max(a, b) + c */
    for (int i = 0; i < NE; i++)
        want[i] = (a[i] > b[i] ? a[i] : b[i]) + want[i];
    expect_close("op tensor MAX, beta 1", c, want, NE, 0.0);
    cudnnDestroyOpTensorDescriptor(od);

    OK(cudnnSetTensor(h, d, c, &three));
    for (int i = 0; i < NE; i++)
        want[i] = 3;
    expect_close("set tensor", c, want, NE, 0.0);
    OK(cudnnScaleTensor(h, d, c, &two));
    for (int i = 0; i < NE; i++)
        want[i] = 6;
    expect_close("scale tensor", c, want, NE, 0.0);

    OK(cudnnCreateTensorDescriptor(&nhwc));
    OK(cudnnSetTensor4dDescriptor(nhwc, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, TN, TC, TH, TW));
    OK(cudnnTransformTensor(h, &one, d, a, &zero, nhwc, t));
    for (int n = 0; n < TN; n++)
        for (int ch = 0; ch < TC; ch++)
            for (int i = 0; i < TH * TW; i++)
                want[(n * TH * TW + i) * TC + ch] = a[(n * TC + ch) * TH * TW + i];
    expect_close("transform tensor NCHW -> NHWC", t, want, NE, 0.0);
    cudnnDestroyTensorDescriptor(nhwc);
    cudnnDestroyTensorDescriptor(bd);
    cudnnDestroyTensorDescriptor(d);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    check_provenance();
    check_statuses();
    cudnnHandle_t h = NULL;
    cudnnStatus_t s = cudnnCreate(&h);
    EXPECT(s == CUDNN_STATUS_SUCCESS, "cudnnCreate -> %d (%s)", (int)s, cudnnGetErrorString(s));
    if (s == CUDNN_STATUS_SUCCESS) {
        check_convolution(h);
        check_pooling(h);
        check_activation(h);
        check_softmax(h);
        check_batchnorm(h);
        check_tensor_ops(h);
        cudnnDestroy(h);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
