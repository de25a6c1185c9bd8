/* SPDX-License-Identifier: MIT */
/*
 * gpu_mirror.h - the GPU tier's differential harness for operations without their own test
 * program: one call, written once as a function of (handle, buffer pointers), runs on a ref
 * handle with guarded host buffers and on a cuda handle with device copies of the same bytes,
 * and the results are compared (DESIGN D9).
 *
 * A case lists its buffers (gm_buf_t: payload bytes, element type, role, tolerance). gm_run
 *   1. allocates each buffer twice as guarded host memory (tests/harness fd_buf_t), lets the
 *      case's fill function write the ref copy (outputs start poisoned: 0xFF bytes, NaN),
 *      and copies it byte for byte to the cuda copy;
 *   2. runs the call on the ref handle with the host pointers;
 *   3. uploads the cuda copies WHOLE (guard zones included) to device memory, runs the call on
 *      the cuda handle with device pointers into them, waits, downloads everything;
 *   4. checks: both calls return the same status; the guards of every buffer are intact on
 *      both sides (nothing written outside the payload); inputs are unchanged (hash); every
 *      GM_OUT / GM_INOUT payload, read as elements of its type (gaps between strided
 *      elements included, so the poison must survive there on both sides), agrees with ref:
 *      |cuda - ref| <= abs_tol + rel_tol * |ref|, NaN only where ref has NaN (abs_tol =
 *      rel_tol = 0 means bit-identical, but for NaN, which matches any NaN: sign and payload
 *      are not part of cuDNN's contract);
 *   5. with det set, runs the cuda call a second time on fresh copies and requires identical
 *      bits of every output (determinism).
 * GM_WS buffers (workspace, reserve space the call only writes) are poisoned and not
 * compared; GM_HOST buffers stay on the host for both handles (cuDNN's host-side arguments,
 * such as CTC label arrays) and are checked unchanged.
 *
 * Usage:
 *     int main(int argc, char **argv) {
 *         gm_init(argc, argv, "test_gpu_pool");   // exits 77 when no GPU can run the cuda backend
 *         ... gm_run(...) per case ...
 *         return gm_finish();
 *     }
 * gm_smoke is 1 under --smoke (the compute-sanitizer subset: keep it to a few small cases per
 * op). gm_ref and gm_cuda are the two handles; gm_stream is gm_cuda's stream.
 */
#ifndef FD_TESTS_GPU_MIRROR_H_
#define FD_TESTS_GPU_MIRROR_H_

#include <cuda_runtime_api.h>

#include "../harness/fd_test.h"

typedef enum {
    GM_IN,    /* read only: must be unchanged */
    GM_OUT,   /* written: poisoned before the call (unless fill writes it), compared */
    GM_INOUT, /* filled, read and written (beta != 0, running means): compared */
    GM_WS,    /* workspace / scratch: poisoned, not compared (its guards are) */
    GM_HOST,  /* host-side argument for both handles: unchanged */
} gm_role_t;

#define GM_MAX_BUFS 16

typedef struct {
    const char *name;   /* for messages: "x", "dy", ... */
    size_t bytes;       /* payload; 0 is allowed (the pointer is then a valid empty buffer) */
    cudnnDataType_t dt; /* element type for comparison; CUDNN_DATA_INT8 = compare bytes */
    gm_role_t role;
    double abs_tol, rel_tol; /* GM_OUT / GM_INOUT; both 0: bit-identical */
} gm_buf_t;

typedef struct {
    const char *label; /* printed with every failure: op, dtype, shape */
    int nbuf;
    gm_buf_t buf[GM_MAX_BUFS];
    int det; /* 1: the cuda call must give identical bits when repeated */
    /* Writes the initial contents of buffer i (ref copy; GM_OUT buffers arrive poisoned). */
    void (*fill)(int i, void *payload, size_t bytes, void *ctx);
    /* The call; ptr[i] points at buffer i's payload (host or device per the handle). */
    cudnnStatus_t (*call)(cudnnHandle_t h, void *const *ptr, void *ctx);
    void *ctx;
    cudnnStatus_t want; /* the expected status of both calls (usually SUCCESS) */
} gm_case_t;

extern int gm_smoke;
extern cudnnHandle_t gm_ref, gm_cuda;
extern cudaStream_t gm_stream;

void gm_init(int argc, char **argv, const char *prog);
/* Runs one case; returns 1 when every check passed. */
int gm_run(const gm_case_t *c);
int gm_finish(void); /* prints "<prog>: N cases" and the closing count line; exit status */

/* The implementation row the library's dispatch log named last ("" before any): the convolution
 * programs check which row took a problem. gm_watch_dispatch() installs the log callback that
 * records it; the program sets FREEDNN_LOG_DISPATCH=1 before its first handle. */
extern char gm_last_impl[128];
void gm_watch_dispatch(void);

/* The convolution programs' one call: direction dir (0 fwd, 1 bwd data, 2 bwd filter) with
 * algorithm enum algo; ptr[0], ptr[1] the direction's inputs (fwd x, w; bwd data dy, w; bwd
 * filter x, dy), ptr[2] its output, ptr[3] the workspace of ws bytes; float scaling factors. */
cudnnStatus_t gm_conv_call(cudnnHandle_t h, int dir, int algo, cudnnTensorDescriptor_t xd,
                           cudnnFilterDescriptor_t wd, cudnnConvolutionDescriptor_t cd,
                           cudnnTensorDescriptor_t yd, double alpha, double beta, void *const *ptr,
                           size_t ws);
/* The workspace the same call asks for on h (a failed query is a test failure, 0). */
size_t gm_conv_workspace(cudnnHandle_t h, int dir, int algo, cudnnTensorDescriptor_t xd,
                         cudnnFilterDescriptor_t wd, cudnnConvolutionDescriptor_t cd,
                         cudnnTensorDescriptor_t yd);

/* A tolerance pair for an output of storage type dt computed from k terms (accumulation in
 * float or double as cuDNN does for dt): a few units of dt's roundoff relative, and an
 * absolute floor for results near zero. */
void gm_tol(gm_buf_t *b, cudnnDataType_t dt, int64_t k);

/* Runs this program again (/proc/self/exe, the same arguments) with name=value in its
 * environment, in the background: the children of one program run side by side (each its own
 * process and CUDA context; stdout is line-buffered, the child's lines carry "[name=value]"), and
 * gm_finish waits for them: one check each, that it exited 0. Call it before gm_finish (the
 * parent's closing count line stays last). Does nothing when name is already set (the caller
 * chose a value) or in such a child, so an environment switch read once per process (e.g.
 * FREEDNN_GPU_BW2=0) gets its old path tested by the same cases. The child also has
 * FD_GM_RERUN=name=value (a program may skip there what the switch does not touch), and dies
 * with its parent (PR_SET_PDEATHSIG): a runner's timeout that stops the program stops it too. */
void gm_rerun_with(char **argv, const char *name, const char *value);

#endif /* FD_TESTS_GPU_MIRROR_H_ */
