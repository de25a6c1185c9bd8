/* SPDX-License-Identifier: MIT */
/*
 * test_cpu_find.c - Find on the cpu backend and the algorithms only the ref fallback serves
 * (src/api/conv.c, find_timed): above a FLOP cap they are reported untimed (status SUCCESS,
 * time -1) after the timed ones, unless no cpu row's algorithm fits the workspace; below it,
 * and on the ref backend, everything that can run is timed.
 *
 * Checked, for each direction:
 * - a problem above the cap (n1c32h32w32k32 3x3, 19 MFLOP): every entry is a timed SUCCESS
 *   (time >= 0, sorted), an untimed SUCCESS (time exactly -1) or a failure, in that order;
 *   at least one is timed and at least one untimed (the FFT / ALGO_0 enums have no cpu row
 *   today: if one lands, this problem may need another untimed enum); each untimed algorithm
 *   really runs: with its reported workspace it computes the ref backend's result exactly
 *   (integer fills in [-2, 2], K = C*R*S = 288 products of at most 4: every partial sum is an
 *   integer below 2^24, so float accumulation is exact in any order);
 * - a second Find on the handle (its tuning table) returns the same list, times included;
 * - Get*Algorithm_v7 on the handle after Find: the timed algorithms first in Find's order with
 *   Find's times, no untimed entry before a timed one;
 * - Find*Ex with a zero workspace after that Find: no cpu row of these 3x3 problems runs
 *   without workspace, so the fallback is timed: every SUCCESS entry has a time >= 0 (the
 *   cached record with untimed entries must not answer it);
 * - a problem below the cap (n1c2h6w6k2 3x3): every SUCCESS entry timed;
 * - Get*Algorithm_v7's first algorithm on cpu for one layer each side of each measured rule
 *   of heuristic_first (the ranking, not numerics: no oracle involved).
 * No tolerances: exact comparisons only.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>
#include <string.h>

#include "fd_test.h"

enum { D_FWD, D_BWD_DATA, D_BWD_FILTER };
static const char *const dir_name[] = {"fwd", "bwd_data", "bwd_filter"};

typedef struct {
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    size_t xn, wn, yn; /* elements */
} prob_t;

static void prob_init(prob_t *p, int n, int c, int hw, int k)
{
    int r = 3, out = hw; /* pad 1, stride 1 */
    FD_EXPECT_STATUS(cudnnCreateTensorDescriptor(&p->x), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnCreateTensorDescriptor(&p->y), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnCreateFilterDescriptor(&p->w), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnCreateConvolutionDescriptor(&p->conv), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(
        cudnnSetTensor4dDescriptor(p->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, hw, hw),
        CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(
        cudnnSetTensor4dDescriptor(p->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, k, out, out),
        CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(
        cudnnSetFilter4dDescriptor(p->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, r, r),
        CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolution2dDescriptor(p->conv, 1, 1, 1, 1, 1, 1,
                                                     CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                     CUDNN_STATUS_SUCCESS);
    p->xn = (size_t)n * c * hw * hw, p->wn = (size_t)k * c * r * r,
    p->yn = (size_t)n * k * out * out;
}

static void prob_free(prob_t *p)
{
    cudnnDestroyTensorDescriptor(p->x), cudnnDestroyTensorDescriptor(p->y);
    cudnnDestroyFilterDescriptor(p->w), cudnnDestroyConvolutionDescriptor(p->conv);
}

/* The three perf structs share one layout. */
typedef cudnnConvolutionFwdAlgoPerf_t perf_t;

enum { Q_FIND, Q_GET, Q_FIND_EX };

static cudnnStatus_t query(cudnnHandle_t h, const prob_t *p, int dir, int kind, perf_t *out, int *n,
                           void *x, void *w, void *y, void *ws, size_t ws_size)
{
    const int req = 16;
    if (dir == D_FWD)
        return kind == Q_FIND
                   ? cudnnFindConvolutionForwardAlgorithm(h, p->x, p->w, p->conv, p->y, req, n, out)
               : kind == Q_GET
                   ? cudnnGetConvolutionForwardAlgorithm_v7(h, p->x, p->w, p->conv, p->y, req, n,
                                                            out)
                   : cudnnFindConvolutionForwardAlgorithmEx(h, p->x, x, p->w, w, p->conv, p->y, y,
                                                            req, n, out, ws, ws_size);
    cudnnConvolutionBwdDataAlgoPerf_t *pd = (void *)out;
    cudnnConvolutionBwdFilterAlgoPerf_t *pf = (void *)out;
    if (dir == D_BWD_DATA)
        return kind == Q_FIND ? cudnnFindConvolutionBackwardDataAlgorithm(h, p->w, p->y, p->conv,
                                                                          p->x, req, n, pd)
               : kind == Q_GET
                   ? cudnnGetConvolutionBackwardDataAlgorithm_v7(h, p->w, p->y, p->conv, p->x, req,
                                                                 n, pd)
                   : cudnnFindConvolutionBackwardDataAlgorithmEx(h, p->w, w, p->y, y, p->conv, p->x,
                                                                 x, req, n, pd, ws, ws_size);
    return kind == Q_FIND  ? cudnnFindConvolutionBackwardFilterAlgorithm(h, p->x, p->y, p->conv,
                                                                         p->w, req, n, pf)
           : kind == Q_GET ? cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, p->x, p->y, p->conv,
                                                                           p->w, req, n, pf)
                           : cudnnFindConvolutionBackwardFilterAlgorithmEx(
                                 h, p->x, x, p->y, y, p->conv, p->w, w, req, n, pf, ws, ws_size);
}

/* 0 timed success, 1 untimed success (time exactly -1), 2 failure, 3 malformed. */
static int klass(const perf_t *e)
{
    if (e->status != CUDNN_STATUS_SUCCESS)
        return 2;
    return e->time >= 0.0f ? 0 : e->time == -1.0f ? 1 : 3;
}

/* Class order, times sorted among the timed; counts of timed and untimed. */
static void check_order(const perf_t *pf, int n, int *timed, int *untimed, const char *what)
{
    int prev = 0, bad = 0;
    *timed = *untimed = 0;
    for (int i = 0; i < n; i++) {
        int c = klass(&pf[i]);
        bad += c == 3 || c < prev ||
               (c == 0 && i > 0 && klass(&pf[i - 1]) == 0 && pf[i].time < pf[i - 1].time);
        prev = c > prev ? c : prev;
        *timed += c == 0;
        *untimed += c == 1;
    }
    FD_EXPECT(bad == 0,
              "%s: entries not timed successes (sorted), then untimed (-1), then failures", what);
}

/* One call of algorithm `algo` on handle h into out (alpha 1, beta 0). */
static cudnnStatus_t run_algo(cudnnHandle_t h, const prob_t *p, int dir, int algo, const void *in0,
                              const void *in1, void *out)
{
    const float one = 1.0f, zero = 0.0f;
    size_t wsz = 0;
    cudnnStatus_t st =
        dir == D_FWD
            ? cudnnGetConvolutionForwardWorkspaceSize(h, p->x, p->w, p->conv, p->y, algo, &wsz)
        : dir == D_BWD_DATA
            ? cudnnGetConvolutionBackwardDataWorkspaceSize(h, p->w, p->y, p->conv, p->x, algo, &wsz)
            : cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p->x, p->y, p->conv, p->w, algo,
                                                             &wsz);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    void *ws = wsz ? malloc(wsz) : NULL;
    if (dir == D_FWD)
        st = cudnnConvolutionForward(h, &one, p->x, in0, p->w, in1, p->conv, algo, ws, wsz, &zero,
                                     p->y, out);
    else if (dir == D_BWD_DATA)
        st = cudnnConvolutionBackwardData(h, &one, p->w, in1, p->y, in0, p->conv, algo, ws, wsz,
                                          &zero, p->x, out);
    else
        st = cudnnConvolutionBackwardFilter(h, &one, p->x, in0, p->y, in1, p->conv, algo, ws, wsz,
                                            &zero, p->w, out);
    free(ws);
    return st;
}

static void large_problem(cudnnHandle_t cpu, cudnnHandle_t ref, int dir)
{
    prob_t p;
    prob_init(&p, 1, 32, 32, 32);
    char what[128];
    perf_t a[16], b[16], g[16];
    int na = 0, nb = 0, ng = 0, timed, untimed;
    snprintf(what, sizeof what, "%s n1c32h32w32k32r3s3 Find", dir_name[dir]);
    FD_EXPECT_STATUS(query(cpu, &p, dir, Q_FIND, a, &na, NULL, NULL, NULL, NULL, 0),
                     CUDNN_STATUS_SUCCESS);
    check_order(a, na, &timed, &untimed, what);
    FD_EXPECT(timed >= 1 && untimed >= 1, "%s: %d timed, %d untimed; want at least one of each",
              what, timed, untimed);

    /* the untimed ones run and agree with ref */
    fd_rng_t rng;
    fd_rng_seed(&rng, 0x5eed0000u + (unsigned)dir);
    size_t n0 = dir == D_BWD_DATA ? p.yn : p.xn, n1 = dir == D_BWD_FILTER ? p.yn : p.wn;
    size_t no = dir == D_FWD ? p.yn : dir == D_BWD_DATA ? p.xn : p.wn;
    float *in0 = malloc(n0 * sizeof(float)), *in1 = malloc(n1 * sizeof(float));
    float *want = malloc(no * sizeof(float)), *got = malloc(no * sizeof(float));
    fd_fill_int(&rng, CUDNN_DATA_FLOAT, in0, (int64_t)n0, -2, 2, 1.0);
    fd_fill_int(&rng, CUDNN_DATA_FLOAT, in1, (int64_t)n1, -2, 2, 1.0);
    FD_EXPECT_STATUS(run_algo(ref, &p, dir, 0, in0, in1, want), CUDNN_STATUS_SUCCESS);
    for (int i = 0; i < na; i++) {
        if (klass(&a[i]) != 1)
            continue;
        memset(got, 0xff, no * sizeof(float));
        FD_EXPECT_STATUS(run_algo(cpu, &p, dir, a[i].algo, in0, in1, got), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(memcmp(got, want, no * sizeof(float)) == 0,
                  "%s: untimed algo %d differs from ref", what, a[i].algo);
    }

    /* the handle's table answers a second Find with the same list */
    FD_EXPECT_STATUS(query(cpu, &p, dir, Q_FIND, b, &nb, NULL, NULL, NULL, NULL, 0),
                     CUDNN_STATUS_SUCCESS);
    int same = nb == na;
    for (int i = 0; same && i < na; i++)
        same = a[i].algo == b[i].algo && a[i].status == b[i].status && a[i].time == b[i].time;
    FD_EXPECT(same, "%s: a second Find on the handle returned another list", what);

    /* Get_v7 ranks by the cached Find: its timed entries first, with their times */
    FD_EXPECT_STATUS(query(cpu, &p, dir, Q_GET, g, &ng, NULL, NULL, NULL, NULL, 0),
                     CUDNN_STATUS_SUCCESS);
    int gt, gu;
    snprintf(what, sizeof what, "%s n1c32h32w32k32r3s3 Get_v7 after Find", dir_name[dir]);
    check_order(g, ng, &gt, &gu, what);
    FD_EXPECT(gt == timed, "%s: %d timed entries, Find had %d", what, gt, timed);
    for (int i = 0; i < timed && i < ng; i++)
        FD_EXPECT(g[i].algo == a[i].algo && g[i].time == a[i].time,
                  "%s: entry %d is algo %d (%g ms), Find's %d (%g ms)", what, i, g[i].algo,
                  (double)g[i].time, a[i].algo, (double)a[i].time);

    /* Find*Ex without workspace: in every direction the implicit GEMM (src/cpu/conv_implicit.c)
     * fits and is timed, and the ref rows are then left untimed */
    snprintf(what, sizeof what, "%s n1c32h32w32k32r3s3 Find*Ex, no workspace", dir_name[dir]);
    float *x = calloc(p.xn, sizeof(float)), *w = calloc(p.wn, sizeof(float)),
          *y = calloc(p.yn, sizeof(float));
    FD_EXPECT_STATUS(query(cpu, &p, dir, Q_FIND_EX, b, &nb, x, w, y, NULL, 0),
                     CUDNN_STATUS_SUCCESS);
    check_order(b, nb, &timed, &untimed, what);
    FD_EXPECT(timed == 1 && b[0].algo == 0,
              "%s: %d timed (first algo %d); want the implicit GEMM (algo 0) alone", what, timed,
              b[0].algo);
    free(x), free(w), free(y);
    free(in0), free(in1), free(want), free(got);
    prob_free(&p);
}

static void small_problem(cudnnHandle_t cpu, int dir)
{
    prob_t p;
    prob_init(&p, 1, 2, 6, 2);
    perf_t a[16];
    int na = 0, timed, untimed;
    char what[128];
    snprintf(what, sizeof what, "%s n1c2h6w6k2r3s3 Find", dir_name[dir]);
    FD_EXPECT_STATUS(query(cpu, &p, dir, Q_FIND, a, &na, NULL, NULL, NULL, NULL, 0),
                     CUDNN_STATUS_SUCCESS);
    check_order(a, na, &timed, &untimed, what);
    FD_EXPECT(timed >= 2 && untimed == 0, "%s: %d timed, %d untimed; want all that run timed", what,
              timed, untimed);
    prob_free(&p);
}

/* Get*Algorithm_v7's first algorithm on cpu for one layer (descriptors only). */
static cudnnDataType_t heur_dt = CUDNN_DATA_FLOAT; /* x, y and w's type in heur_first */

static int heur_first(cudnnHandle_t cpu, int dir, int n, int c, int h, int w, int k, int r, int s,
                      int pad, int stride)
{
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t f;
    cudnnConvolutionDescriptor_t conv;
    cudnnCreateTensorDescriptor(&x), cudnnCreateTensorDescriptor(&y);
    cudnnCreateFilterDescriptor(&f), cudnnCreateConvolutionDescriptor(&conv);
    int p_ = (h + 2 * pad - r) / stride + 1, q = (w + 2 * pad - s) / stride + 1;
    cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, heur_dt, n, c, h, w);
    cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, heur_dt, n, k, p_, q);
    cudnnSetFilter4dDescriptor(f, heur_dt, CUDNN_TENSOR_NCHW, k, c, r, s);
    cudnnSetConvolution2dDescriptor(conv, pad, pad, stride, stride, 1, 1, CUDNN_CROSS_CORRELATION,
                                    CUDNN_DATA_FLOAT);
    perf_t pf[16];
    int got = 0;
    prob_t pb = {.x = x, .y = y, .w = f, .conv = conv};
    cudnnStatus_t st = query(cpu, &pb, dir, Q_GET, pf, &got, NULL, NULL, NULL, NULL, 0);
    prob_free(&pb);
    return st == CUDNN_STATUS_SUCCESS && got > 0 && pf[0].status == CUDNN_STATUS_SUCCESS
               ? (int)pf[0].algo
               : -1;
}

/* The measured rules of heuristic_first (docs/perf/cpu-heuristic-2026-11-30.md, with the Intel
 * AVX-512 changes of cpu-heuristic-2026-12-05-intel.md and cpu-winograd-2026-12-06.md), one
 * layer each side of each threshold,
 * under the "spr" profile: a changed rule must change this table and those pages together. */
static void heuristic_rules(cudnnHandle_t cpu)
{
    static const struct {
        int dir, n, c, h, w, k, r, s, pad, stride, want;
        const char *why;
    } t[] = {
        {D_FWD, 4, 1, 161, 700, 32, 5, 20, 0, 2, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
         "C = 1"},
        {D_FWD, 8, 3, 224, 224, 64, 3, 3, 1, 1, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT,
         "C = 3, 3x3 (Intel AVX-512: direct)"},
        {D_FWD, 16, 3, 224, 224, 64, 7, 7, 3, 2, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, "C = 3, 7x7"},
        {D_FWD, 8, 256, 28, 28, 512, 3, 3, 1, 1, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, "CKPQ 1e8"},
        {D_FWD, 8, 64, 56, 56, 64, 3, 3, 1, 1, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT,
         "CKPQ 1.3e7, N 8"},
        {D_FWD, 1, 64, 56, 56, 64, 3, 3, 1, 1, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD,
         "N 1, 56x56 (Intel AVX-512: Winograd, its transforms on AVX-512)"},
        {D_FWD, 1, 128, 28, 28, 128, 3, 3, 1, 1, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, "N 1, 28x28"},
        {D_FWD, 1, 256, 14, 14, 256, 3, 3, 1, 1, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, "N 1, 14x14"},
        {D_BWD_DATA, 8, 256, 28, 28, 512, 3, 3, 1, 1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD,
         "CKPQ 1e8"},
        {D_BWD_DATA, 8, 512, 14, 14, 512, 3, 3, 1, 1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
         "CKPQ 5.1e7"},
        {D_BWD_DATA, 1, 64, 56, 56, 64, 3, 3, 1, 1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD,
         "N 1, 56x56"},
        {D_BWD_DATA, 1, 256, 14, 14, 256, 3, 3, 1, 1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
         "N 1, 14x14"},
        {D_BWD_FILTER, 1, 128, 28, 28, 128, 3, 3, 1, 1,
         CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, "N 1, 28x28"},
        {D_FWD, 8, 2048, 7, 7, 512, 1, 1, 3, 2, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, "1x1 padded"},
        {D_FWD, 8, 512, 7, 7, 512, 1, 1, 0, 1, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, "1x1 7x7, N 8"},
        {D_FWD, 8, 256, 14, 14, 256, 1, 1, 0, 1, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
         "1x1 14x14, N 8"},
        {D_FWD, 1, 256, 14, 14, 1024, 1, 1, 0, 1, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT,
         "1x1 14x14, N 1"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int got = heur_first(cpu, t[i].dir, t[i].n, t[i].c, t[i].h, t[i].w, t[i].k, t[i].r, t[i].s,
                             t[i].pad, t[i].stride);
        FD_EXPECT(got == t[i].want,
                  "heuristic, %s n%dc%dh%dw%dk%dr%ds%dp%du%d (%s): first algo %d, want %d",
                  dir_name[t[i].dir], t[i].n, t[i].c, t[i].h, t[i].w, t[i].k, t[i].r, t[i].s,
                  t[i].pad, t[i].stride, t[i].why, got, t[i].want);
    }
    /* HALF: the Winograd rule picks WINOGRAD_NONFUSED for the backward filter too, but no cpu
     * row serves it there (only ref), so rank_all's first pass puts ALGO_1 ahead of it */
    heur_dt = CUDNN_DATA_HALF;
    int got = heur_first(cpu, D_BWD_FILTER, 1, 128, 28, 28, 128, 3, 3, 1, 1);
    FD_EXPECT(got == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1,
              "heuristic, half bwd_filter n1c128h28w28k128r3s3p1u1: first algo %d, want ALGO_1",
              got);
    heur_dt = CUDNN_DATA_FLOAT;
}

/* The AMD profile's differences (src/api/conv.c): N = 1 3x3 forward stays direct, strided 1x1
 * forward and 1x1 forward of up to 14 x 14 outputs at N > 1 go direct, and with a GEMM on
 * narrower than AVX-512 kernels every forward with K >= 16 but the few-channel ones goes
 * direct; on a CPU without AVX-512 (zen3) the large 3x3 stride-1 layers at N > 1 go to
 * Winograd first; the rest as above. */
static void zen_rules(cudnnHandle_t cpu)
{
    static const struct {
        const char *profile;
        int dir, n, c, h, w, k, r, s, pad, stride, want;
    } t[] = {
        {"zen", D_FWD, 1, 64, 56, 56, 64, 3, 3, 1, 1, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
        {"zen", D_FWD, 8, 256, 28, 28, 512, 3, 3, 1, 1, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD},
        {"zen", D_FWD, 1, 256, 56, 56, 64, 1, 1, 0, 1, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM},
        {"zen", D_FWD, 8, 256, 56, 56, 128, 1, 1, 0, 2, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
        {"zen", D_FWD, 8, 256, 14, 14, 256, 1, 1, 0, 1, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
        {"zen", D_FWD, 8, 256, 28, 28, 256, 1, 1, 0, 1, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM},
        {"spr", D_FWD, 8, 256, 56, 56, 128, 1, 1, 0, 2, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
        /* AMD keeps im2col for 3-channel 3x3 layers (Intel AVX-512 goes direct, above) */
        {"zen", D_FWD, 8, 3, 224, 224, 64, 3, 3, 1, 1,
         CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM},
        {"zen3", D_FWD, 8, 3, 224, 224, 64, 3, 3, 1, 1,
         CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM},
        {"spr", D_FWD, 8, 256, 14, 14, 256, 1, 1, 0, 1, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM},
        {"zen-avx2", D_FWD, 1, 256, 56, 56, 64, 1, 1, 0, 1, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
        {"zen-avx2", D_FWD, 8, 256, 14, 14, 256, 1, 1, 0, 1, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
        {"zen-avx2", D_FWD, 8, 256, 28, 28, 512, 3, 3, 1, 1, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
        {"zen-avx2", D_FWD, 4, 1, 161, 700, 32, 5, 20, 0, 2,
         CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM},
        {"spr", D_FWD, 1, 256, 56, 56, 64, 1, 1, 0, 1, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM},
        /* no AVX-512 (Zen 3): Winograd for the 3x3 stride-1 layers at N > 1 from C K P Q = 3e7,
         * or 1.2e7 with C K >= 65536, both directions; the rest as zen-avx2 */
        {"zen3", D_FWD, 8, 256, 28, 28, 512, 3, 3, 1, 1, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD},
        {"zen3", D_FWD, 8, 256, 14, 14, 256, 3, 3, 1, 1, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD},
        {"zen3", D_FWD, 8, 128, 28, 28, 128, 3, 3, 1, 1, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
        {"zen3", D_FWD, 1, 256, 14, 14, 256, 3, 3, 1, 1, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
        {"zen3", D_FWD, 8, 256, 7, 7, 512, 3, 3, 1, 1, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
        {"zen3", D_FWD, 1, 256, 56, 56, 64, 1, 1, 0, 1, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
        {"zen3", D_BWD_DATA, 8, 512, 14, 14, 512, 3, 3, 1, 1,
         CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD},
        {"zen-avx2", D_BWD_DATA, 8, 512, 14, 14, 512, 3, 3, 1, 1,
         CUDNN_CONVOLUTION_BWD_DATA_ALGO_1},
        {"zen3", D_BWD_DATA, 8, 128, 28, 28, 128, 3, 3, 1, 1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        setenv("FREEDNN_CPU_HEURISTIC", t[i].profile, 1);
        int got = heur_first(cpu, t[i].dir, t[i].n, t[i].c, t[i].h, t[i].w, t[i].k, t[i].r, t[i].s,
                             t[i].pad, t[i].stride);
        FD_EXPECT(got == t[i].want, "heuristic (%s), %s n%dc%dh%dw%dk%dr%ds%dp%du%d: first algo %d, want %d",
                  t[i].profile, dir_name[t[i].dir], t[i].n, t[i].c, t[i].h, t[i].w, t[i].k, t[i].r,
                  t[i].s, t[i].pad, t[i].stride, got, t[i].want);
    }
    setenv("FREEDNN_CPU_HEURISTIC", "spr", 1);
}

int main(void)
{
    setenv("FREEDNN_TUNE_CACHE", "off", 1); /* ctest sets it too; a run by hand must not read one */
    /* the rule table below is Sapphire Rapids' (the rules of AMD machines: zen_rules) */
    setenv("FREEDNN_CPU_HEURISTIC", "spr", 1);
    cudnnHandle_t cpu, ref;
    FD_EXPECT_STATUS(freednnCreateWithBackend(&cpu, FREEDNN_BACKEND_CPU), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(freednnCreateWithBackend(&ref, FREEDNN_BACKEND_REF), CUDNN_STATUS_SUCCESS);
    for (int dir = 0; dir < 3; dir++) {
        large_problem(cpu, ref, dir);
        small_problem(cpu, dir);
    }
    heuristic_rules(cpu);
    zen_rules(cpu);
    cudnnDestroy(cpu), cudnnDestroy(ref);
    return fd_test_finish();
}
