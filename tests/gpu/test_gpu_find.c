/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_find.c - cudnnFind*ConvolutionAlgorithm on a cuda handle (src/api/conv.c's
 * find_timed, fd_backend_time -> src/cuda/probe.cu's event timer; the tuning cache of DESIGN D5
 * keyed by src/cuda/probe.cu's device identity):
 * - every direction: the SUCCESS results come first, sorted by a positive time, each
 *   algorithm once; the output of a Find*Ex is the right answer (checked against a ref handle
 *   on integer data, where every algorithm is exact);
 * - the record lands in the file FREEDNN_TUNE_CACHE names, under a "cuda|<name>|sm_XY|sms=N"
 *   identity;
 * - a second handle answers the same Find from the file: the same algorithms with the same
 *   times, bit for bit (a timed search never repeats its floats), and Get*Algorithm_v7 puts
 *   Find's fastest first.
 * Exits 77 without a GPU.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "gpu_mirror.h"

static int failures;
#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
            printf(__VA_ARGS__);                                                               \
            printf("\n");                                                                      \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)
#define OK(expr) CHECK((expr) == CUDNN_STATUS_SUCCESS, "%s", #expr)

/* One problem: NHWC half, 3x3 pad 1 (the tensor-core and direct rows both take it). */
enum { N = 4, C = 32, H = 14, W = 14, K = 32, R = 3 };

typedef struct {
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
} descs_t;

static void descs_make(descs_t *d)
{
    OK(cudnnCreateTensorDescriptor(&d->x));
    OK(cudnnCreateTensorDescriptor(&d->y));
    OK(cudnnCreateFilterDescriptor(&d->w));
    OK(cudnnCreateConvolutionDescriptor(&d->conv));
    OK(cudnnSetTensor4dDescriptor(d->x, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, N, C, H, W));
    OK(cudnnSetTensor4dDescriptor(d->y, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, N, K, H, W));
    OK(cudnnSetFilter4dDescriptor(d->w, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, K, C, R, R));
    OK(cudnnSetConvolution2dDescriptor(d->conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                       CUDNN_DATA_FLOAT));
    OK(cudnnSetConvolutionMathType(d->conv, CUDNN_TENSOR_OP_MATH));
}

static void descs_free(descs_t *d)
{
    cudnnDestroyTensorDescriptor(d->x);
    cudnnDestroyTensorDescriptor(d->y);
    cudnnDestroyFilterDescriptor(d->w);
    cudnnDestroyConvolutionDescriptor(d->conv);
}

/* A Find's answer in one shape for the three directions. */
typedef struct {
    int n;
    int algo[16];
    cudnnStatus_t status[16];
    float time[16];
    size_t memory[16];
} found_t;

#define COPY_PERF(f, perf, count)                                                              \
    do {                                                                                       \
        (f)->n = (count);                                                                      \
        for (int i_ = 0; i_ < (count); i_++) {                                                 \
            (f)->algo[i_] = (int)(perf)[i_].algo, (f)->status[i_] = (perf)[i_].status;         \
            (f)->time[i_] = (perf)[i_].time, (f)->memory[i_] = (perf)[i_].memory;              \
        }                                                                                      \
    } while (0)

static void find_dir(cudnnHandle_t h, const descs_t *d, int dir, found_t *f)
{
    int count = 0;
    if (dir == 0) {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        OK(cudnnFindConvolutionForwardAlgorithm(h, d->x, d->w, d->conv, d->y,
                                                CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perf));
        COPY_PERF(f, perf, count);
    } else if (dir == 1) {
        cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        OK(cudnnFindConvolutionBackwardDataAlgorithm(h, d->w, d->y, d->conv, d->x,
                                                     CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                                                     &count, perf));
        COPY_PERF(f, perf, count);
    } else {
        cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        OK(cudnnFindConvolutionBackwardFilterAlgorithm(h, d->x, d->y, d->conv, d->w,
                                                       CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
                                                       &count, perf));
        COPY_PERF(f, perf, count);
    }
}

static int get_first(cudnnHandle_t h, const descs_t *d, int dir)
{
    int count = 0;
    if (dir == 0) {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        OK(cudnnGetConvolutionForwardAlgorithm_v7(h, d->x, d->w, d->conv, d->y,
                                                  CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perf));
        return count > 0 ? (int)perf[0].algo : -1;
    }
    if (dir == 1) {
        cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d->w, d->y, d->conv, d->x,
                                                       CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                                                       &count, perf));
        return count > 0 ? (int)perf[0].algo : -1;
    }
    cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d->x, d->y, d->conv, d->w,
                                                     CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
                                                     &count, perf));
    return count > 0 ? (int)perf[0].algo : -1;
}

static void check_ranking(const found_t *f, int dir)
{
    int seen_fail = 0, successes = 0;
    for (int i = 0; i < f->n; i++) {
        for (int j = 0; j < i; j++)
            CHECK(f->algo[j] != f->algo[i], "dir %d: algorithm %d listed twice", dir, f->algo[i]);
        if (f->status[i] != CUDNN_STATUS_SUCCESS) {
            seen_fail = 1;
            continue;
        }
        successes++;
        CHECK(!seen_fail, "dir %d: a SUCCESS result (algo %d) after a failed one", dir, f->algo[i]);
        /* a sane event time, not garbage; the bound leaves room for compute-sanitizer's
         * racecheck, which ran this smoke set's backward filter at 1.2 s a call (H200) */
        CHECK(f->time[i] > 0.0f && f->time[i] < 60000.0f, "dir %d: algo %d time %g ms", dir,
              f->algo[i], (double)f->time[i]);
        CHECK(i == 0 || f->status[i - 1] != CUDNN_STATUS_SUCCESS || f->time[i - 1] <= f->time[i],
              "dir %d: times not sorted at %d (%g > %g)", dir, i, (double)f->time[i - 1],
              (double)f->time[i]);
    }
    CHECK(successes >= 2, "dir %d: only %d algorithms ran (direct and tensor-core rows expected)",
          dir, successes);
}

/* Find*Ex's output is a right answer: forward on small integers, against a ref handle. */
static void check_find_ex_output(cudnnHandle_t h, const descs_t *d)
{
    const size_t nx = (size_t)N * C * H * W, nw = (size_t)K * C * R * R, ny = (size_t)N * K * H * W;
    uint16_t *hx = malloc(nx * 2), *hw = malloc(nw * 2), *hy = malloc(ny * 2), *hr = malloc(ny * 2);
    void *dx = NULL, *dw = NULL, *dy = NULL, *ws = NULL;
    const size_t ws_bytes = 64u << 20;
    static const uint16_t vals[4] = {0xbc00, 0x0000, 0x3c00, 0x4000}; /* -1, 0, 1, 2 in half */
    for (size_t i = 0; i < nx; i++)
        hx[i] = vals[(i * 2654435761u >> 7) & 3];
    for (size_t i = 0; i < nw; i++)
        hw[i] = vals[(i * 40503u >> 5) & 3];
    if (!hx || !hw || !hy || !hr || cudaMalloc(&dx, nx * 2) || cudaMalloc(&dw, nw * 2) ||
        cudaMalloc(&dy, ny * 2) || cudaMalloc(&ws, ws_bytes)) {
        CHECK(0, "allocation for the Find*Ex check");
        goto out;
    }
    cudaMemcpy(dx, hx, nx * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(dw, hw, nw * 2, cudaMemcpyHostToDevice);
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int count = 0;
    OK(cudnnFindConvolutionForwardAlgorithmEx(h, d->x, dx, d->w, dw, d->conv, d->y, dy,
                                              CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perf, ws,
                                              ws_bytes));
    CHECK(count > 0 && perf[0].status == CUDNN_STATUS_SUCCESS, "Find*Ex found nothing");
    cudaMemcpy(hy, dy, ny * 2, cudaMemcpyDeviceToHost);
    cudnnHandle_t ref = NULL;
    OK(freednnCreateWithBackend(&ref, FREEDNN_BACKEND_REF));
    const float one = 1.0f, zero = 0.0f;
    OK(cudnnConvolutionForward(ref, &one, d->x, hx, d->w, hw, d->conv,
                               CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, NULL, 0, &zero, d->y, hr));
    cudnnDestroy(ref);
    size_t bad = 0;
    for (size_t i = 0; i < ny; i++)
        bad += hy[i] != hr[i];
    CHECK(bad == 0, "Find*Ex output differs from ref in %zu of %zu elements", bad, ny);
out:
    cudaFree(dx), cudaFree(dw), cudaFree(dy), cudaFree(ws);
    free(hx), free(hw), free(hy), free(hr);
}

int main(int argc, char **argv)
{
    gm_init(argc, argv, "test_gpu_find");
    char dir[] = "/tmp/fd-gpu-find-XXXXXX", path[128];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/tune.txt", dir);
    setenv("FREEDNN_TUNE_CACHE", path, 1);

    descs_t d;
    descs_make(&d);
    found_t first[3], second[3];
    cudnnHandle_t h = NULL;
    OK(freednnCreateWithBackend(&h, FREEDNN_BACKEND_CUDA));
    for (int dir_i = 0; dir_i < 3; dir_i++) {
        find_dir(h, &d, dir_i, &first[dir_i]);
        check_ranking(&first[dir_i], dir_i);
    }
    check_find_ex_output(h, &d);
    OK(cudnnDestroy(h));

    /* the file: one identity line per record, of this device */
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "no tuning cache file at %s", path);
    int records = 0, cuda_lines = 0;
    char line[8192];
    while (f && fgets(line, sizeof line, f)) {
        if (line[0] == '#' || strncmp(line, "freednn-tune-cache", 18) == 0)
            continue;
        records++;
        cuda_lines += strncmp(line, "cuda|", 5) == 0 && strstr(line, "|sm_") != NULL;
    }
    if (f)
        fclose(f);
    CHECK(records >= 3 && cuda_lines == records, "%d records, %d with a cuda|name|sm_XY identity",
          records, cuda_lines);

    /* a second handle reads the file: the same answer, bit for bit, and Get follows it */
    OK(freednnCreateWithBackend(&h, FREEDNN_BACKEND_CUDA));
    for (int dir_i = 0; dir_i < 3; dir_i++) {
        find_dir(h, &d, dir_i, &second[dir_i]);
        const found_t *a = &first[dir_i], *b = &second[dir_i];
        int same = a->n == b->n;
        for (int i = 0; same && i < a->n; i++)
            same = a->algo[i] == b->algo[i] && a->status[i] == b->status[i] &&
                   (a->status[i] != CUDNN_STATUS_SUCCESS ||
                    memcmp(&a->time[i], &b->time[i], sizeof(float)) == 0);
        CHECK(same, "dir %d: the second handle's Find is not the cached answer", dir_i);
        int g = get_first(h, &d, dir_i);
        CHECK(g == a->algo[0], "dir %d: Get_v7 puts %d first, Find's fastest is %d", dir_i, g,
              a->algo[0]);
        printf("dir %d: Find's order", dir_i);
        for (int i = 0; i < a->n; i++)
            if (a->status[i] == CUDNN_STATUS_SUCCESS)
                printf(" %d:%.4fms", a->algo[i], (double)a->time[i]);
        printf("\n");
    }
    OK(cudnnDestroy(h));
    descs_free(&d);
    unlink(path);
    rmdir(dir);
    printf("test_gpu_find: %d failure(s)\n", failures);
    int rc = gm_finish();
    return failures != 0 ? 1 : rc;
}
