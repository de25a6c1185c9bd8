/* SPDX-License-Identifier: MIT */
/*
 * test_conv_plan.c - a handle's convolution plans (src/core/conv_plan.c) must be invisible: a
 * call whose descriptors the handle has planned before skips the problem checks, the selection
 * and the workspace query, and must still give what a fresh handle (no plans) gives, bit for
 * bit (the same implementation runs), with the same statuses and messages; and every output
 * must equal the ref backend's (small-integer fills: exact sums).
 *
 * Checked on the cpu handle, three directions: 20 problems (more than the 16 plans a handle
 * keeps, so plans are evicted and made again) x algorithms 0 and 1, three rounds, each call on
 * one of two buffer sets with alpha/beta {1, 0} or {0.5, 0.25}; descriptors changed in place
 * between calls (padding, the output shape, the mode alone, the math type) must miss; after a hit, an in-place
 * call must still be NOT_SUPPORTED and a short workspace BAD_PARAM, the output untouched; with
 * FREEDNN_LOG_DISPATCH set every call logs its choice again. The workspace-size queries, which a
 * plan answers after a call, must give a fresh handle's status, size and message too.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>
#include <string.h>

#include "fd_test.h"

#define NPROB 20
#define BUF_ELEMS (1 << 15)
#define WS_BYTES (1 << 22)

typedef struct {
    int n, c, k, h, w, r, s, pad, str;
} prob_t;

typedef struct {
    fd_buf_t x, w, y;
} bufs_t;

static prob_t probs[NPROB];
static fd_conv_descs_t descs[NPROB];
static bufs_t sets[2];
static fd_buf_t ws, out_a, out_b;

static void set_descs(const prob_t *p, fd_conv_descs_t *d)
{
    FD_EXPECT_STATUS(cudnnSetTensor4dDescriptor(d->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, p->n, p->c, p->h, p->w),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetFilter4dDescriptor(d->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, p->k, p->c, p->r, p->s),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolution2dDescriptor(d->cv, p->pad, p->pad, p->str, p->str, 1, 1,
                                                     CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                     CUDNN_STATUS_SUCCESS);
    int n, c, h, w;
    FD_EXPECT_STATUS(cudnnGetConvolution2dForwardOutputDim(d->cv, d->x, d->w, &n, &c, &h, &w), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetTensor4dDescriptor(d->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w),
                     CUDNN_STATUS_SUCCESS);
}

/* One call of direction dir on handle h; out (y, dx or dw) starts as a copy of the set's. */
static cudnnStatus_t call(cudnnHandle_t h, int dir, int algo, const fd_conv_descs_t *d, const bufs_t *b, void *out,
                          const float *ab, size_t ws_size)
{
    if (dir == 0)
        return cudnnConvolutionForward(h, &ab[0], d->x, b->x.data, d->w, b->w.data, d->cv,
                                       (cudnnConvolutionFwdAlgo_t)algo, ws.data, ws_size, &ab[1], d->y, out);
    if (dir == 1)
        return cudnnConvolutionBackwardData(h, &ab[0], d->w, b->w.data, d->y, b->y.data, d->cv,
                                            (cudnnConvolutionBwdDataAlgo_t)algo, ws.data, ws_size, &ab[1], d->x,
                                            out);
    return cudnnConvolutionBackwardFilter(h, &ab[0], d->x, b->x.data, d->y, b->y.data, d->cv,
                                          (cudnnConvolutionBwdFilterAlgo_t)algo, ws.data, ws_size, &ab[1], d->w,
                                          out);
}

static const fd_buf_t *out_of(const bufs_t *b, int dir)
{
    return dir == 0 ? &b->y : dir == 1 ? &b->x : &b->w;
}

static cudnnHandle_t ref; /* the oracle of every successful call */
static int ref_checked;

/* The call on the shared handle against the same call on a fresh one: status, message, bits;
 * a successful call's output also against the ref backend's. */
static int compare(cudnnHandle_t h, int dir, int algo, const fd_conv_descs_t *d, const bufs_t *b, const float *ab,
                   size_t ws_size, const char *what)
{
    const fd_buf_t *o = out_of(b, dir);
    memcpy(out_a.data, o->data, BUF_ELEMS * sizeof(float));
    memcpy(out_b.data, o->data, BUF_ELEMS * sizeof(float));
    char msg_a[512] = "", msg_b[512] = "";
    const cudnnStatus_t sa = call(h, dir, algo, d, b, out_a.data, ab, ws_size);
    if (sa != CUDNN_STATUS_SUCCESS)
        cudnnGetLastErrorString(msg_a, sizeof msg_a);
    cudnnHandle_t fresh;
    FD_EXPECT_STATUS(freednnCreateWithBackend(&fresh, FREEDNN_BACKEND_CPU), CUDNN_STATUS_SUCCESS);
    const cudnnStatus_t sb = call(fresh, dir, algo, d, b, out_b.data, ab, ws_size);
    if (sb != CUDNN_STATUS_SUCCESS)
        cudnnGetLastErrorString(msg_b, sizeof msg_b);
    cudnnDestroy(fresh);
    const int same = sa == sb && strcmp(msg_a, msg_b) == 0 &&
                     memcmp(out_a.data, out_b.data, BUF_ELEMS * sizeof(float)) == 0;
    FD_EXPECT(same, "%s: dir %d algo %d: status %d \"%s\", a fresh handle %d \"%s\"%s", what, dir, algo, sa, msg_a,
              sb, msg_b, sa == sb ? " (outputs differ)" : "");
    if (sa == CUDNN_STATUS_SUCCESS) {
        /* and the oracle: the ref backend (small-integer data: every sum is exact, so the bits agree) */
        memcpy(out_b.data, o->data, BUF_ELEMS * sizeof(float));
        FD_EXPECT_STATUS(call(ref, dir, algo, d, b, out_b.data, ab, ws_size),
                         CUDNN_STATUS_SUCCESS);
        FD_EXPECT(memcmp(out_a.data, out_b.data, BUF_ELEMS * sizeof(float)) == 0,
                  "%s: dir %d algo %d: output differs from the ref backend's", what, dir, algo);
        ref_checked++;
    }
    return sa;
}

static cudnnStatus_t query(cudnnHandle_t h, int dir, int algo, const fd_conv_descs_t *d, size_t *size)
{
    if (dir == 0)
        return cudnnGetConvolutionForwardWorkspaceSize(h, d->x, d->w, d->cv, d->y, (cudnnConvolutionFwdAlgo_t)algo,
                                                       size);
    if (dir == 1)
        return cudnnGetConvolutionBackwardDataWorkspaceSize(h, d->w, d->y, d->cv, d->x,
                                                            (cudnnConvolutionBwdDataAlgo_t)algo, size);
    return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, d->x, d->y, d->cv, d->w,
                                                          (cudnnConvolutionBwdFilterAlgo_t)algo, size);
}

/* The workspace query on the shared handle (answered by its plan after a call) against a fresh
 * handle's: status, size, message; and a NULL size pointer refused the same way. */
static void compare_query(cudnnHandle_t h, int dir, int algo, const fd_conv_descs_t *d, const char *what)
{
    size_t sa = 0, sb = 0;
    char msg_a[512] = "", msg_b[512] = "";
    const cudnnStatus_t qa = query(h, dir, algo, d, &sa);
    if (qa != CUDNN_STATUS_SUCCESS)
        cudnnGetLastErrorString(msg_a, sizeof msg_a);
    cudnnHandle_t fresh;
    FD_EXPECT_STATUS(freednnCreateWithBackend(&fresh, FREEDNN_BACKEND_CPU), CUDNN_STATUS_SUCCESS);
    const cudnnStatus_t qb = query(fresh, dir, algo, d, &sb);
    if (qb != CUDNN_STATUS_SUCCESS)
        cudnnGetLastErrorString(msg_b, sizeof msg_b);
    FD_EXPECT(qa == qb && sa == sb && strcmp(msg_a, msg_b) == 0,
              "%s: dir %d algo %d: workspace query %d %zu \"%s\", a fresh handle %d %zu \"%s\"", what, dir, algo, qa,
              sa, msg_a, qb, sb, msg_b);
    const cudnnStatus_t na = query(h, dir, algo, d, NULL), nb = query(fresh, dir, algo, d, NULL);
    FD_EXPECT(na == nb, "%s: dir %d algo %d: a NULL size gave %d, a fresh handle %d", what, dir, algo, na, nb);
    cudnnDestroy(fresh);
}

static int dispatch_lines;

static void on_log(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)udata, (void)dbg;
    if (strstr(msg, "dispatch: ") != NULL)
        dispatch_lines++;
}

int main(void)
{
    fd_rng_t rng;
    fd_rng_seed(&rng, fd_test_sweep_seed(0x9a11c0de));
    for (int i = 0; i < 2; i++) {
        sets[i].x = fd_buf_alloc(BUF_ELEMS * sizeof(float));
        sets[i].w = fd_buf_alloc(BUF_ELEMS * sizeof(float));
        sets[i].y = fd_buf_alloc(BUF_ELEMS * sizeof(float));
        fd_fill_int(&rng, CUDNN_DATA_FLOAT, sets[i].x.data, BUF_ELEMS, -3, 3, 0.8);
        fd_fill_int(&rng, CUDNN_DATA_FLOAT, sets[i].w.data, BUF_ELEMS, -3, 3, 0.8);
        fd_fill_int(&rng, CUDNN_DATA_FLOAT, sets[i].y.data, BUF_ELEMS, -3, 3, 0.8);
    }
    ws = fd_buf_alloc(WS_BYTES);
    out_a = fd_buf_alloc(BUF_ELEMS * sizeof(float));
    out_b = fd_buf_alloc(BUF_ELEMS * sizeof(float));
    for (int i = 0; i < NPROB; i++) {
        prob_t *p = &probs[i];
        p->n = fd_rng_int(&rng, 1, 2), p->c = fd_rng_int(&rng, 1, 8), p->k = fd_rng_int(&rng, 1, 8);
        p->h = fd_rng_int(&rng, 3, 10), p->w = fd_rng_int(&rng, 3, 10);
        p->r = fd_rng_int(&rng, 1, 3), p->s = fd_rng_int(&rng, 1, 3);
        p->pad = fd_rng_int(&rng, 0, 1), p->str = fd_rng_int(&rng, 1, 2);
        fd_conv_descs_create(&descs[i]);
        set_descs(p, &descs[i]);
    }
    static const float scales[2][2] = {{1, 0}, {0.5f, 0.25f}};
    cudnnHandle_t h;
    FD_EXPECT_STATUS(freednnCreateWithBackend(&h, FREEDNN_BACKEND_CPU), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(freednnCreateWithBackend(&ref, FREEDNN_BACKEND_REF), CUDNN_STATUS_SUCCESS);

    /* rounds over more problems than plans, pointers and scales varying between hits */
    int calls = 0, ok = 0;
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < NPROB; i++)
            for (int dir = 0; dir < 3; dir++)
                for (int algo = 0; algo < 2; algo++) {
                    const int set = (round + i + dir) % 2, sc = (round + algo) % 2;
                    ok += compare(h, dir, algo, &descs[i], &sets[set], scales[sc], WS_BYTES, "rounds") ==
                          CUDNN_STATUS_SUCCESS;
                    compare_query(h, dir, algo, &descs[i], "rounds");
                    calls++;
                }
    FD_EXPECT(ok > calls / 2, "only %d of %d calls succeeded", ok, calls);

    /* descriptors changed in place after a hit: each change must be seen */
    fd_conv_descs_t *d = &descs[0];
    prob_t p = probs[0];
    for (int dir = 0; dir < 3; dir++) {
        compare(h, dir, 0, d, &sets[0], scales[0], WS_BYTES, "before a change");
        compare(h, dir, 0, d, &sets[0], scales[0], WS_BYTES, "hit");
    }
    p.pad = !p.pad, p.h += 1;
    set_descs(&p, d);
    for (int dir = 0; dir < 3; dir++) {
        compare_query(h, dir, 0, d, "padding and shape changed, before the call");
        compare(h, dir, 0, d, &sets[1], scales[1], WS_BYTES, "padding and shape changed");
    }
    /* only the convolution descriptor changes: the mode (the filter flipped) */
    FD_EXPECT_STATUS(cudnnSetConvolution2dDescriptor(d->cv, p.pad, p.pad, p.str, p.str, 1, 1, CUDNN_CONVOLUTION,
                                                     CUDNN_DATA_FLOAT),
                     CUDNN_STATUS_SUCCESS);
    for (int dir = 0; dir < 3; dir++)
        compare(h, dir, 0, d, &sets[1], scales[1], WS_BYTES, "mode changed");
    FD_EXPECT_STATUS(cudnnSetConvolutionMathType(d->cv, CUDNN_FMA_MATH), CUDNN_STATUS_SUCCESS);
    for (int dir = 0; dir < 3; dir++)
        compare(h, dir, 0, d, &sets[1], scales[1], WS_BYTES, "math type changed");
    /* a descriptor set to a state the problem checks refuse: the same refusal as a fresh handle */
    FD_EXPECT_STATUS(cudnnSetTensor4dDescriptor(d->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, p.n, p.k + 1, 2, 2),
                     CUDNN_STATUS_SUCCESS);
    for (int dir = 0; dir < 3; dir++)
        FD_EXPECT(compare(h, dir, 0, d, &sets[1], scales[1], WS_BYTES, "wrong y") != CUDNN_STATUS_SUCCESS,
                  "dir %d: a y of the wrong shape was accepted", dir);
    set_descs(&p, d);

    /* after a hit: in place, and a short workspace */
    for (int dir = 0; dir < 3; dir++) {
        compare(h, dir, 1, d, &sets[0], scales[0], WS_BYTES, "plan");
        const fd_buf_t *o = dir == 1 ? &sets[0].y : &sets[0].x; /* what the call below would write */
        const uint64_t before = fd_buf_hash(o);
        /* the output on top of an input: forward y = x, backward data dx = dy, backward filter dw = x */
        const cudnnStatus_t st =
            dir == 0 ? cudnnConvolutionForward(h, &scales[0][0], d->x, sets[0].x.data, d->w, sets[0].w.data, d->cv,
                                               (cudnnConvolutionFwdAlgo_t)1, ws.data, WS_BYTES, &scales[0][1], d->y,
                                               sets[0].x.data)
            : dir == 1
                ? cudnnConvolutionBackwardData(h, &scales[0][0], d->w, sets[0].w.data, d->y, sets[0].y.data, d->cv,
                                               (cudnnConvolutionBwdDataAlgo_t)1, ws.data, WS_BYTES, &scales[0][1],
                                               d->x, sets[0].y.data)
                : cudnnConvolutionBackwardFilter(h, &scales[0][0], d->x, sets[0].x.data, d->y, sets[0].y.data,
                                                 d->cv, (cudnnConvolutionBwdFilterAlgo_t)1, ws.data, WS_BYTES,
                                                 &scales[0][1], d->w, sets[0].x.data);
        FD_EXPECT(st == CUDNN_STATUS_NOT_SUPPORTED, "dir %d: an in-place call after a hit gave %d", dir, st);
        FD_EXPECT(fd_buf_hash(o) == before, "dir %d: the refused in-place call wrote", dir);
        size_t need = 0;
        if (dir == 0)
            cudnnGetConvolutionForwardWorkspaceSize(h, d->x, d->w, d->cv, d->y, (cudnnConvolutionFwdAlgo_t)1, &need);
        else if (dir == 1)
            cudnnGetConvolutionBackwardDataWorkspaceSize(h, d->w, d->y, d->cv, d->x,
                                                         (cudnnConvolutionBwdDataAlgo_t)1, &need);
        else
            cudnnGetConvolutionBackwardFilterWorkspaceSize(h, d->x, d->y, d->cv, d->w,
                                                           (cudnnConvolutionBwdFilterAlgo_t)1, &need);
        if (need > 0)
            FD_EXPECT(compare(h, dir, 1, d, &sets[0], scales[0], need - 1, "short workspace") ==
                          CUDNN_STATUS_BAD_PARAM,
                      "dir %d: a workspace one byte short after a hit was accepted", dir);
    }

    /* FREEDNN_LOG_DISPATCH: every call logs its choice, planned or not */
    setenv("FREEDNN_LOG_DISPATCH", "1", 1);
    FD_EXPECT_STATUS(cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, on_log), CUDNN_STATUS_SUCCESS);
    for (int i = 0; i < 3; i++) {
        const int before = dispatch_lines;
        FD_EXPECT_STATUS(call(h, 0, 0, d, &sets[0], out_a.data, scales[0], WS_BYTES), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(dispatch_lines > before, "call %d with FREEDNN_LOG_DISPATCH=1 logged no dispatch line", i);
    }
    cudnnSetCallback(0, NULL, NULL);
    unsetenv("FREEDNN_LOG_DISPATCH");

    cudnnDestroy(h);
    cudnnDestroy(ref);
    FD_EXPECT(ref_checked > calls / 2, "only %d calls were checked against the ref backend", ref_checked);
    for (int i = 0; i < NPROB; i++)
        fd_conv_descs_destroy(&descs[i]);
    for (int i = 0; i < 2; i++)
        fd_buf_free(&sets[i].x), fd_buf_free(&sets[i].w), fd_buf_free(&sets[i].y);
    fd_buf_free(&ws), fd_buf_free(&out_a), fd_buf_free(&out_b);
    printf("%d calls compared with a fresh handle, %d outputs with the ref backend\n", calls, ref_checked);
    return fd_test_finish();
}
