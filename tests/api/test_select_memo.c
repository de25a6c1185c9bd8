/* SPDX-License-Identifier: MIT */
/*
 * test_select_memo.c - the per-thread memo of convolution selection (src/core/dispatch.c) must
 * be invisible: every answer a thread gets after the memo has seen a problem equals the answer
 * of a fresh thread, whose memo is empty (so it walks the table). Observed through the public
 * API on ref and cpu handles: for 15 problems (f32 / f16 / bf16 / f64 / int8, NCHW / NHWC, 1x1, 3x3, 5x5,
 * strides 1-2, dilation 2, groups, 1-d and 3-d, and an INT8 forward-only problem) x every algorithm of the three directions, the
 * workspace-size query's status, size and (for failures) the last error string. The main
 * thread asks three times in interleaved orders (more problems than memo slots, so entries
 * are evicted and refilled); the oracle is the same query on a new thread. A failed selection
 * must give its full reason every time (failures are never memoised). Two threads querying
 * at once must both get the oracle's answers (the memo is thread-local). A forward call's
 * output is also compared between a memo hit and a fresh thread on the cpu handle.
 */
#include <pthread.h>
#include <string.h>

#include "fd_test.h"

#define NPROB 15
#define NDIR 3
#define MAX_ALGO 8

typedef struct {
    int nsp, n, c, k, groups, in[3], flt[3], pad[3], str[3], dil[3];
    cudnnDataType_t dt;
    cudnnTensorFormat_t fmt;
} prob_t;

static const prob_t probs[NPROB] = {
    {2, 1, 16, 16, 1, {1, 8, 8}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW},
    {2, 2, 32, 16, 1, {1, 9, 7}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC},
    {2, 1, 16, 32, 1, {1, 12, 12}, {1, 3, 3}, {0, 1, 1}, {1, 2, 2}, {1, 1, 1}, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW},
    {2, 1, 8, 8, 1, {1, 11, 11}, {1, 5, 5}, {0, 2, 2}, {1, 1, 1}, {1, 1, 1}, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW},
    {2, 1, 8, 8, 1, {1, 11, 11}, {1, 3, 3}, {0, 2, 2}, {1, 1, 1}, {1, 2, 2}, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW},
    {2, 1, 16, 16, 4, {1, 8, 8}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW},
    {2, 1, 16, 16, 16, {1, 8, 8}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC},
    {2, 1, 16, 16, 1, {1, 8, 8}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC},
    {2, 1, 16, 16, 1, {1, 8, 8}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NCHW},
    {2, 2, 3, 16, 1, {1, 16, 16}, {1, 7, 7}, {0, 3, 3}, {1, 2, 2}, {1, 1, 1}, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW},
    {1, 1, 8, 8, 1, {1, 1, 20}, {1, 1, 3}, {0, 0, 1}, {1, 1, 1}, {1, 1, 1}, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW},
    {3, 1, 4, 4, 1, {5, 6, 7}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW},
    {2, 1, 64, 64, 1, {1, 6, 6}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC},
    {2, 1, 16, 16, 1, {1, 8, 8}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, CUDNN_DATA_BFLOAT16, CUDNN_TENSOR_NHWC},
    /* INT8 (INT32 compute): forward only, so the backward queries are refusals */
    {2, 1, 16, 16, 1, {1, 8, 8}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {1, 1, 1}, CUDNN_DATA_INT8, CUDNN_TENSOR_NHWC},
};

static const int algo_count[NDIR] = {CUDNN_CONVOLUTION_FWD_ALGO_COUNT, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                                     CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT};

typedef struct {
    cudnnStatus_t st;
    size_t size;
    char msg[256];
} answer_t;

static cudnnHandle_t handles[2]; /* ref, cpu */
static fd_conv_descs_t descs[NPROB];

static void make_descs(const prob_t *p, fd_conv_descs_t *d)
{
    const int nd = p->nsp + 2;
    int xdim[5], wdim[5], pad[3], str[3], dil[3], ydim[5];
    xdim[0] = p->n, xdim[1] = p->c, wdim[0] = p->k, wdim[1] = p->c / p->groups;
    for (int i = 0; i < p->nsp; i++) {
        const int j = 3 - p->nsp + i;
        xdim[2 + i] = p->in[j], wdim[2 + i] = p->flt[j];
        pad[i] = p->pad[j], str[i] = p->str[j], dil[i] = p->dil[j];
    }
    fd_conv_descs_create(d);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptorEx(d->x, p->fmt, p->dt, nd, xdim), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetFilterNdDescriptor(d->w, p->dt, p->fmt, nd, wdim), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionNdDescriptor(d->cv, p->nsp, pad, str, dil, CUDNN_CROSS_CORRELATION,
                                                     p->dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE
                                                     : p->dt == CUDNN_DATA_INT8 ? CUDNN_DATA_INT32
                                                                                : CUDNN_DATA_FLOAT),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionGroupCount(d->cv, p->groups), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnGetConvolutionNdForwardOutputDim(d->cv, d->x, d->w, nd, ydim), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptorEx(d->y, p->fmt, p->dt, nd, ydim), CUDNN_STATUS_SUCCESS);
}

static answer_t ask(int hi, int pi, int dir, int algo)
{
    answer_t a;
    memset(&a, 0, sizeof a);
    const fd_conv_descs_t *d = &descs[pi];
    cudnnHandle_t h = handles[hi];
    if (dir == 0)
        a.st = cudnnGetConvolutionForwardWorkspaceSize(h, d->x, d->w, d->cv, d->y, (cudnnConvolutionFwdAlgo_t)algo,
                                                       &a.size);
    else if (dir == 1)
        a.st = cudnnGetConvolutionBackwardDataWorkspaceSize(h, d->w, d->y, d->cv, d->x,
                                                            (cudnnConvolutionBwdDataAlgo_t)algo, &a.size);
    else
        a.st = cudnnGetConvolutionBackwardFilterWorkspaceSize(h, d->x, d->y, d->cv, d->w,
                                                              (cudnnConvolutionBwdFilterAlgo_t)algo, &a.size);
    if (a.st != CUDNN_STATUS_SUCCESS) {
        a.size = 0;
        cudnnGetLastErrorString(a.msg, sizeof a.msg);
    }
    return a;
}

static answer_t oracle[2][NPROB][NDIR][MAX_ALGO];

/* The oracle: every query on a thread of its own, so its memo starts empty. */
typedef struct {
    int hi, pi, dir, algo;
    answer_t out;
} job_t;

static void *fresh_thread(void *arg)
{
    job_t *j = arg;
    j->out = ask(j->hi, j->pi, j->dir, j->algo);
    return NULL;
}

static int same(const answer_t *a, const answer_t *b)
{
    return a->st == b->st && a->size == b->size && strcmp(a->msg, b->msg) == 0;
}

static void check_pass(const char *what, int order)
{
    int bad = 0;
    for (int t = 0; t < 2 * NPROB * NDIR * MAX_ALGO; t++) {
        /* orders: problem-major, algorithm-major, and a stride-7 walk */
        const int u = order == 2 ? (t * 7) % (2 * NPROB * NDIR * MAX_ALGO) : t;
        int hi, pi, dir, algo;
        if (order == 1)
            algo = u % MAX_ALGO, dir = u / MAX_ALGO % NDIR, pi = u / (MAX_ALGO * NDIR) % NPROB,
            hi = u / (MAX_ALGO * NDIR * NPROB);
        else
            pi = u % NPROB, dir = u / NPROB % NDIR, algo = u / (NPROB * NDIR) % MAX_ALGO,
            hi = u / (NPROB * NDIR * MAX_ALGO);
        if (algo >= algo_count[dir])
            continue;
        const answer_t a = ask(hi, pi, dir, algo);
        const answer_t *o = &oracle[hi][pi][dir][algo];
        if (!same(&a, o) && bad++ < 5)
            FD_EXPECT(0, "%s: handle %d problem %d dir %d algo %d: status %d size %zu \"%s\"; a fresh thread: "
                      "status %d size %zu \"%s\"", what, hi, pi, dir, algo, a.st, a.size, a.msg, o->st, o->size,
                      o->msg);
    }
    FD_EXPECT(bad == 0, "%s: %d answers differ from a fresh thread's", what, bad);
}

static void *pass_thread(void *arg)
{
    check_pass((const char *)arg, 2);
    check_pass((const char *)arg, 0);
    return NULL;
}

/* A forward call on the cpu handle: the output after memo hits equals a fresh thread's. */
typedef struct {
    fd_buf_t x, w, y, ws;
    size_t ws_size;
} fwd_t;

static void *fwd_run(void *arg)
{
    fwd_t *f = arg;
    const float one = 1, zero = 0;
    const fd_conv_descs_t *d = &descs[0];
    FD_EXPECT_STATUS(cudnnConvolutionForward(handles[1], &one, d->x, f->x.data, d->w, f->w.data, d->cv,
                                             CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, f->ws.data,
                                             f->ws_size, &zero, d->y, f->y.data),
                     CUDNN_STATUS_SUCCESS);
    return NULL;
}

int main(void)
{
    FD_EXPECT_STATUS(freednnCreateWithBackend(&handles[0], FREEDNN_BACKEND_REF), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(freednnCreateWithBackend(&handles[1], FREEDNN_BACKEND_CPU), CUDNN_STATUS_SUCCESS);
    for (int i = 0; i < NPROB; i++)
        make_descs(&probs[i], &descs[i]);
    int ok = 0, failed = 0;
    for (int hi = 0; hi < 2; hi++)
        for (int pi = 0; pi < NPROB; pi++)
            for (int dir = 0; dir < NDIR; dir++)
                for (int algo = 0; algo < algo_count[dir] && algo < MAX_ALGO; algo++) {
                    job_t j = {hi, pi, dir, algo, {0}};
                    pthread_t t;
                    FD_EXPECT(pthread_create(&t, NULL, fresh_thread, &j) == 0, "pthread_create");
                    pthread_join(t, NULL);
                    oracle[hi][pi][dir][algo] = j.out;
                    if (j.out.st == CUDNN_STATUS_SUCCESS)
                        ok++;
                    else {
                        failed++;
                        FD_EXPECT(j.out.msg[0] != '\0', "problem %d dir %d algo %d failed with no reason", pi,
                                  dir, algo);
                    }
                }
    FD_EXPECT(ok > 100 && failed >= 10, "the sweep should hold both kinds: %d selections, %d refusals", ok,
              failed);
    /* three passes on this thread, then two threads at once */
    check_pass("pass 1", 0);
    check_pass("pass 2", 1);
    check_pass("pass 3", 2);
    pthread_t t1, t2;
    FD_EXPECT(pthread_create(&t1, NULL, pass_thread, "thread A") == 0, "pthread_create");
    FD_EXPECT(pthread_create(&t2, NULL, pass_thread, "thread B") == 0, "pthread_create");
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);

    /* the same forward twice on this thread (the second a memo hit) and once on a fresh one */
    fwd_t f[3];
    const prob_t *p = &probs[0];
    const size_t xe = (size_t)p->n * p->c * p->in[1] * p->in[2], we = (size_t)p->k * p->c * 9,
                 ye = (size_t)p->n * p->k * p->in[1] * p->in[2];
    fd_rng_t r;
    for (int i = 0; i < 3; i++) {
        fd_rng_seed(&r, 7);
        f[i].x = fd_buf_alloc(xe * 4), f[i].w = fd_buf_alloc(we * 4), f[i].y = fd_buf_alloc(ye * 4);
        fd_fill_int(&r, CUDNN_DATA_FLOAT, f[i].x.data, (int64_t)xe, -3, 3, 0.8);
        fd_fill_int(&r, CUDNN_DATA_FLOAT, f[i].w.data, (int64_t)we, -3, 3, 0.8);
        FD_EXPECT_STATUS(cudnnGetConvolutionForwardWorkspaceSize(handles[1], descs[0].x, descs[0].w, descs[0].cv,
                                                                 descs[0].y,
                                                                 CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                                                                 &f[i].ws_size),
                         CUDNN_STATUS_SUCCESS);
        f[i].ws = fd_buf_alloc(f[i].ws_size ? f[i].ws_size : 1);
    }
    fwd_run(&f[0]);
    fwd_run(&f[1]);
    pthread_t t3;
    FD_EXPECT(pthread_create(&t3, NULL, fwd_run, &f[2]) == 0, "pthread_create");
    pthread_join(t3, NULL);
    FD_EXPECT(fd_buf_hash(&f[0].y) == fd_buf_hash(&f[1].y) && fd_buf_hash(&f[0].y) == fd_buf_hash(&f[2].y),
              "the forward output differs between calls (memo hit vs fresh thread)");
    for (int i = 0; i < 3; i++) {
        FD_EXPECT(fd_buf_guards_ok(&f[i].y) && fd_buf_guards_ok(&f[i].ws), "guards");
        fd_buf_free(&f[i].x), fd_buf_free(&f[i].w), fd_buf_free(&f[i].y), fd_buf_free(&f[i].ws);
    }
    printf("selections %d, refusals %d\n", ok, failed);
    cudnnDestroy(handles[0]);
    cudnnDestroy(handles[1]);
    for (int i = 0; i < NPROB; i++)
        fd_conv_descs_destroy(&descs[i]);
    return fd_test_finish();
}
