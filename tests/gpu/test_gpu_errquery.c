/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_errquery.c - cudnnQueryRuntimeError on a cuda handle (src/api/handle.c,
 * src/cuda/errquery.cu): CUDNN_ERRQUERY_NONBLOCKING never waits and answers
 * RUNTIME_IN_PROGRESS while the handle's stream has queued work, RAWCODE reads the word without
 * waiting, BLOCKING waits for the stream and then reports the word (SUCCESS: no cuda kernel
 * raises a runtime error).
 *
 * The stream is held busy without timing guesses: a host function enqueued on it spins until
 * the test releases it (or 20 s pass). A NONBLOCKING or RAWCODE query that waited would
 * therefore only return after that timeout, which the test detects. Exits 77 without a GPU.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime.h>

#include "gpu_mirror.h"

static atomic_int release_flag;
static atomic_int host_fn_done;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void CUDART_CB hold_stream(void *arg)
{
    (void)arg;
    double t0 = now_s();
    while (!atomic_load(&release_flag) && now_s() - t0 < 20.0) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    atomic_store(&host_fn_done, 1);
}

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

int main(int argc, char **argv)
{
    gm_init(argc, argv, "test_gpu_errquery");
    cudnnHandle_t h = NULL;
    CHECK(freednnCreateWithBackend(&h, FREEDNN_BACKEND_CUDA) == CUDNN_STATUS_SUCCESS, "create");
    cudaStream_t s = NULL;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess, "stream");
    CHECK(cudnnSetStream(h, s) == CUDNN_STATUS_SUCCESS, "set stream");
    cudnnStatus_t rs = CUDNN_STATUS_INTERNAL_ERROR;

    /* Idle stream: every mode reports the word at once. */
    for (int m = 0; m < 3; m++) {
        rs = CUDNN_STATUS_INTERNAL_ERROR;
        CHECK(cudnnQueryRuntimeError(h, &rs, (cudnnErrQueryMode_t)m, NULL) == CUDNN_STATUS_SUCCESS,
              "idle query mode %d", m);
        CHECK(rs == CUDNN_STATUS_SUCCESS, "idle mode %d: rstatus %s", m, cudnnGetErrorString(rs));
    }

    /* Busy stream. */
    CHECK(cudaLaunchHostFunc(s, hold_stream, NULL) == cudaSuccess, "host func");
    double t0 = now_s();
    rs = CUDNN_STATUS_SUCCESS;
    CHECK(cudnnQueryRuntimeError(h, &rs, CUDNN_ERRQUERY_NONBLOCKING, NULL) == CUDNN_STATUS_SUCCESS,
          "nonblocking query");
    CHECK(rs == CUDNN_STATUS_RUNTIME_IN_PROGRESS, "nonblocking on a busy stream: rstatus %s",
          cudnnGetErrorString(rs));
    rs = CUDNN_STATUS_INTERNAL_ERROR;
    CHECK(cudnnQueryRuntimeError(h, &rs, CUDNN_ERRQUERY_RAWCODE, NULL) == CUDNN_STATUS_SUCCESS,
          "rawcode query");
    CHECK(rs == CUDNN_STATUS_SUCCESS, "rawcode: rstatus %s", cudnnGetErrorString(rs));
    CHECK(now_s() - t0 < 10.0 && !atomic_load(&host_fn_done),
          "NONBLOCKING / RAWCODE waited for the stream (%.1f s)", now_s() - t0);
    CHECK(cudaGetLastError() == cudaSuccess, "the NotReady of the stream query leaked into "
                                             "cudaGetLastError");

    atomic_store(&release_flag, 1);
    rs = CUDNN_STATUS_INTERNAL_ERROR;
    CHECK(cudnnQueryRuntimeError(h, &rs, CUDNN_ERRQUERY_BLOCKING, NULL) == CUDNN_STATUS_SUCCESS,
          "blocking query");
    CHECK(rs == CUDNN_STATUS_SUCCESS, "blocking: rstatus %s", cudnnGetErrorString(rs));
    CHECK(atomic_load(&host_fn_done) && cudaStreamQuery(s) == cudaSuccess,
          "BLOCKING returned before the stream drained");
    rs = CUDNN_STATUS_INTERNAL_ERROR;
    CHECK(cudnnQueryRuntimeError(h, &rs, CUDNN_ERRQUERY_NONBLOCKING, NULL) == CUDNN_STATUS_SUCCESS &&
              rs == CUDNN_STATUS_SUCCESS,
          "nonblocking after the drain: rstatus %s", cudnnGetErrorString(rs));

    /* The default (NULL) stream works the same way. */
    CHECK(cudnnSetStream(h, NULL) == CUDNN_STATUS_SUCCESS, "null stream");
    rs = CUDNN_STATUS_INTERNAL_ERROR;
    CHECK(cudnnQueryRuntimeError(h, &rs, CUDNN_ERRQUERY_BLOCKING, NULL) == CUDNN_STATUS_SUCCESS &&
              rs == CUDNN_STATUS_SUCCESS,
          "blocking on the default stream: rstatus %s", cudnnGetErrorString(rs));

    CHECK(cudnnDestroy(h) == CUDNN_STATUS_SUCCESS, "destroy");
    cudaStreamDestroy(s);
    printf("test_gpu_errquery: %d failure(s)\n", failures);
    int rc = gm_finish();
    return failures != 0 ? 1 : rc;
}
