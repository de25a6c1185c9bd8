/* SPDX-License-Identifier: MIT */
/*
 * nvtx_ranges.c - the test nvtx/ranges: every public call of a build with NVTX opens a range
 * named after the function in the domain "freednn" and closes it on every return path
 * (src/core/trace.c, FD_API in src/core/fd.h).
 *
 * How: NVTX_INJECTION64_PATH names this directory's injection library (nvtx_inject.c), which
 * records pushes and pops the way a profiler would; no GPU is involved (the handle is forced to
 * the cpu backend). The program makes a fixed list of calls - successes, early BAD_PARAM returns
 * from the first check and from deep inside validation, a compute call - and requires the
 * outermost ranges to be exactly those calls, in order, each popped, with registered names.
 * Exit 77 (skipped) when the build has no NVTX: the CPU-only build compiles the ranges out.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn.h"

#if defined(FD_NVTX_INJECT)
#include "nvtx_inject.h"

static int failures;

#define EXPECT(cond, ...)                                                                      \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                               \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

#define MAX_CALLS 32
static const char *calls[MAX_CALLS];
static int n_calls;

/* Runs a public call, notes its name as the range expected next, checks its status. */
#define CALL(fn, args, want)                                                                   \
    do {                                                                                       \
        cudnnStatus_t st_ = fn args;                                                           \
        if (n_calls < MAX_CALLS)                                                               \
            calls[n_calls++] = #fn;                                                            \
        EXPECT(st_ == (want), "%s returned %s, expected %s", #fn, cudnnGetErrorString(st_),    \
               cudnnGetErrorString(want));                                                     \
    } while (0)

int main(void)
{
    /* Before the first call into freednn: NVTX reads the variable once, on its first use. */
    setenv("NVTX_INJECTION64_PATH", FD_NVTX_INJECT, 1);
    setenv("FREEDNN_BACKEND", "cpu", 1);

    cudnnHandle_t h = NULL;
    cudnnTensorDescriptor_t t = NULL;
    cudnnActivationDescriptor_t act = NULL;
    float x[2 * 3 * 4 * 5], y[2 * 3 * 4 * 5];
    for (int i = 0; i < 120; i++)
        x[i] = (float)(i % 7) - 3.0f;
    const float one = 1.0f, zero = 0.0f;

    CALL(cudnnCreate, (&h), CUDNN_STATUS_SUCCESS);
    CALL(cudnnCreate, (NULL), CUDNN_STATUS_BAD_PARAM); /* returns from the first check */
    CALL(cudnnCreateTensorDescriptor, (&t), CUDNN_STATUS_SUCCESS);
    CALL(cudnnSetTensor4dDescriptor, (t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 3, 4, 5),
         CUDNN_STATUS_BAD_PARAM); /* rejected deeper, in the dimension checks */
    CALL(cudnnSetTensor4dDescriptor, (t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 5),
         CUDNN_STATUS_SUCCESS);
    CALL(cudnnCreateActivationDescriptor, (&act), CUDNN_STATUS_SUCCESS);
    CALL(cudnnSetActivationDescriptor, (act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0),
         CUDNN_STATUS_SUCCESS);
    CALL(cudnnActivationForward, (h, act, &one, t, x, &zero, t, y), CUDNN_STATUS_SUCCESS);
    CALL(cudnnActivationForward, (h, act, NULL, t, x, &zero, t, y), CUDNN_STATUS_BAD_PARAM);
    CALL(cudnnDestroyActivationDescriptor, (act), CUDNN_STATUS_SUCCESS);
    CALL(cudnnDestroyTensorDescriptor, (t), CUDNN_STATUS_SUCCESS);
    CALL(cudnnDestroy, (h), CUDNN_STATUS_SUCCESS);
    for (int i = 0; i < 120; i++)
        EXPECT(y[i] == (x[i] > 0.0f ? x[i] : 0.0f), "relu y[%d] = %g for x = %g", i, (double)y[i],
               (double)x[i]);

    /* The injection library NVTX loaded: dlopen of the same path returns that copy. */
    void *dl = dlopen(FD_NVTX_INJECT, RTLD_NOW | RTLD_NOLOAD);
    if (dl == NULL) {
        fprintf(stderr, "FAIL: NVTX never loaded the injection library %s: freednn opened no "
                        "NVTX range (%s)\n", FD_NVTX_INJECT, dlerror());
        return 1;
    }
    fd_nvtx_inject_ready_fn ready;
    fd_nvtx_inject_count_fn count;
    fd_nvtx_inject_events_fn events;
    void *s;
    s = dlsym(dl, "fd_nvtx_inject_ready");
    memcpy(&ready, &s, sizeof ready);
    s = dlsym(dl, "fd_nvtx_inject_count");
    memcpy(&count, &s, sizeof count);
    s = dlsym(dl, "fd_nvtx_inject_events");
    memcpy(&events, &s, sizeof events);
    if (ready == NULL || count == NULL || events == NULL || !ready()) {
        fprintf(stderr, "FAIL: the injection library did not initialise\n");
        return 1;
    }
    int dropped = 0;
    int n = count(&dropped);
    const fd_nvtx_event_t *ev = events();
    EXPECT(dropped == 0, "%d events dropped", dropped);

    /* Walk the log: outermost pushes must be the calls above, in order; nesting balances. */
    int depth = 0, top = 0, pushes = 0;
    for (int i = 0; i < n; i++) {
        const fd_nvtx_event_t *e = &ev[i];
        EXPECT(strcmp(e->domain, "freednn") == 0, "event %d in domain \"%s\", not freednn", i,
               e->domain);
        if (e->push) {
            pushes++;
            EXPECT(e->registered, "range %s was pushed as a copied string, not a registered one",
                   e->name);
            EXPECT(strncmp(e->name, "cudnn", 5) == 0 || strncmp(e->name, "freednn", 7) == 0,
                   "range \"%s\" is not named after an API function", e->name);
            if (depth == 0) {
                EXPECT(top < n_calls && strcmp(e->name, calls[top]) == 0,
                       "outermost range %d is \"%s\", expected \"%s\"", top, e->name,
                       top < n_calls ? calls[top] : "(none)");
                top++;
            }
            depth++;
        } else {
            EXPECT(depth > 0, "event %d pops a range that was never pushed", i);
            depth--;
        }
    }
    EXPECT(depth == 0, "%d range(s) left open after the last call returned", depth);
    EXPECT(top == n_calls, "%d outermost ranges for %d calls", top, n_calls);
    printf("%d calls, %d ranges (%d events)\n", n_calls, pushes, n);
    if (failures != 0) {
        for (int i = 0; i < n; i++)
            fprintf(stderr, "  %s %s\n", ev[i].push ? "push" : "pop ", ev[i].name);
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("nvtx/ranges: ok\n");
    return 0;
}
#else
int main(void)
{
    printf("nvtx/ranges: this build has no NVTX (the cuda backend is off, or the toolkit has no "
           "nvtx3 headers): skipped\n");
    return 77;
}
#endif
