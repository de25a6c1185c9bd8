/* SPDX-License-Identifier: MIT */
/*
 * onednn_vs_freednn.c - freednn's cpu backend against oneDNN (Intel's library, Debian's
 * libdnnl-dev 2.6.x, C API) on the same convolution shapes, in one process (issue 5 item 4).
 *
 *   onednn_vs_freednn SHAPES [--n=N] [--threads=T] [--dirs=fwd,bwd_data,bwd_filter]
 *                            [--min-time=SEC] [--reps=R] [--settle=SEC]
 *
 * SHAPES is a conv shape file (bench/shapes/NAME.txt, ../shared/conv_shapes/NAME.txt): one problem
 * per line, "N C H W K R S pad stride dilation groups [key=value...] # tag", the format of
 * tools/dnnbench (keys pad_h pad_w stride_h stride_w dil_h dil_w dilation_h dilation_w).
 * --n overrides every line's N. fp32, cross-correlation.
 *
 * Decisions:
 * - oneDNN gets its preferred layouts: every memory descriptor of the primitive is format_tag
 *   any (blocked nChw16c / OIhw16i16o and friends on AVX-512), algorithm convolution_auto (it
 *   may pick Winograd where it has one). The user data are plain NCHW / OIHW (goihw with groups)
 *   and reorders into and out of the blocked layouts run OUTSIDE the timed region, as a
 *   framework keeping tensors blocked across layers would have them. The fwd primitive is
 *   forward_inference; the backward ones use a forward_training primitive as their hint.
 * - freednn runs through the cuDNN API on a cpu handle (freednnCreateWithBackend) on NCHW
 *   tensors and NCHW filters; the algorithm is cudnnFind*'s first choice (one timed run per
 *   algorithm, as cudnnFind* does), then timed here like oneDNN's, with exactly the workspace
 *   Find reported. The tuning cache is off (FREEDNN_TUNE_CACHE=off) unless set by the caller,
 *   so a stale ranking of an older build cannot choose.
 * - Time: one warm-up call, then calls until --min-time seconds (default 0.25) and at least
 *   --reps calls (default 5), at most 500; the median wall time of one call is reported.
 * - Before each library's turn the program sleeps --settle seconds (default 0.2): OpenBLAS's
 *   pthreads (freednn's GEMMs) and libgomp's (oneDNN, freednn's own loops) spin-wait after
 *   their work before sleeping, and a pool still spinning halves the other library's speed on
 *   2 cores (measured: oneDNN 8x slower right after a freednn call with 2 threads).
 * - --threads=T re-executes the program with OMP_NUM_THREADS=T and OPENBLAS_NUM_THREADS=T
 *   (both runtimes read them when they load, before main), so oneDNN (OpenMP, libgomp) and
 *   freednn (OpenMP + OpenBLAS) use T threads.
 * - The two results are compared (oneDNN's reordered back to NCHW): the max |difference| over
 *   max |value| is printed per direction, so a speed ratio never hides a wrong answer.
 * Output: per shape and direction one line, then `geomean <dir> speedup=<oneDNN time /
 * freednn time> n=<shapes>` per direction (speedup > 1: freednn is faster).
 */
#define _GNU_SOURCE /* setenv, execv, clock_gettime */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cudnn.h>
#include <freednn.h>
#include <oneapi/dnnl/dnnl.h>

/* ---- shapes ------------------------------------------------------------------------------ */

typedef struct {
    int64_t n, c, h, w, k, r, s, ph, pw, sh, sw, dh, dw, g;
    char tag[96];
} shape_t;

static int64_t out_dim(int64_t in, int64_t pad, int64_t flt, int64_t dil, int64_t stride)
{
    int64_t span = (flt - 1) * dil + 1;
    return in + 2 * pad < span ? 0 : (in + 2 * pad - span) / stride + 1;
}

/* 1: a shape; 0: blank or comment; -1: error (message printed). */
static int parse_line(char *line, shape_t *s, int lineno)
{
    char *hash = strchr(line, '#');
    memset(s, 0, sizeof *s);
    if (hash) {
        *hash = '\0';
        char *t = hash + 1;
        while (isspace((unsigned char)*t))
            t++;
        snprintf(s->tag, sizeof s->tag, "%s", t);
        size_t len = strlen(s->tag);
        while (len && isspace((unsigned char)s->tag[len - 1]))
            s->tag[--len] = '\0';
    }
    char *p = line;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '\0')
        return 0;
    int64_t v[11];
    for (int i = 0; i < 11; i++) {
        char *end;
        v[i] = strtoll(p, &end, 10);
        if (end == p) {
            fprintf(stderr, "line %d: expected 11 numbers (N C H W K R S pad stride dilation "
                            "groups)\n", lineno);
            return -1;
        }
        p = end;
    }
    s->n = v[0], s->c = v[1], s->h = v[2], s->w = v[3], s->k = v[4], s->r = v[5], s->s = v[6];
    s->ph = s->pw = v[7], s->sh = s->sw = v[8], s->dh = s->dw = v[9], s->g = v[10];
    static const struct {
        const char *key;
        size_t off;
    } keys[] = {
        {"pad_h", offsetof(shape_t, ph)},      {"pad_w", offsetof(shape_t, pw)},
        {"stride_h", offsetof(shape_t, sh)},   {"stride_w", offsetof(shape_t, sw)},
        {"dil_h", offsetof(shape_t, dh)},      {"dil_w", offsetof(shape_t, dw)},
        {"dilation_h", offsetof(shape_t, dh)}, {"dilation_w", offsetof(shape_t, dw)},
    };
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0')
            break;
        char *eq = strchr(p, '=');
        size_t klen = eq ? (size_t)(eq - p) : 0, i = 0;
        for (; eq && i < sizeof keys / sizeof keys[0]; i++)
            if (strlen(keys[i].key) == klen && strncmp(keys[i].key, p, klen) == 0)
                break;
        char *end = NULL;
        int64_t val = eq ? strtoll(eq + 1, &end, 10) : 0;
        if (!eq || i == sizeof keys / sizeof keys[0] || end == eq + 1) {
            fprintf(stderr, "line %d: bad field at '%s'\n", lineno, p);
            return -1;
        }
        memcpy((char *)s + keys[i].off, &val, sizeof val);
        p = end;
    }
    if (s->n < 1 || s->c < 1 || s->k < 1 || s->g < 1 || s->c % s->g || s->k % s->g ||
        out_dim(s->h, s->ph, s->r, s->dh, s->sh) < 1 || out_dim(s->w, s->pw, s->s, s->dw, s->sw) < 1) {
        fprintf(stderr, "line %d: not a valid convolution\n", lineno);
        return -1;
    }
    return 1;
}

/* ---- timing ------------------------------------------------------------------------------ */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double opt_min_time = 0.25, opt_settle = 0.2;

static void settle(void)
{
    struct timespec ts = {(time_t)opt_settle, (long)((opt_settle - (double)(time_t)opt_settle) * 1e9)};
    if (opt_settle > 0.0)
        nanosleep(&ts, NULL);
}
static int opt_reps = 5;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef int (*call_fn)(void *ctx);

/* Median seconds per call of fn (after one warm-up call); negative on failure. */
static double time_median(call_fn fn, void *ctx)
{
    enum { MAX_RUNS = 500 };
    static double t[MAX_RUNS];
    if (fn(ctx))
        return -1.0;
    int n = 0;
    double start = now_s();
    while (n < MAX_RUNS && (n < opt_reps || now_s() - start < opt_min_time)) {
        double t0 = now_s();
        if (fn(ctx))
            return -1.0;
        t[n++] = now_s() - t0;
    }
    qsort(t, (size_t)n, sizeof t[0], cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* ---- data -------------------------------------------------------------------------------- */

static void fill(float *v, size_t n, uint64_t seed)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v[i] = (float)((double)(x >> 11) * (2.0 / 9007199254740992.0) - 1.0);
    }
}

static double rel_diff(const float *a, const float *b, size_t n)
{
    double d = 0.0, m = 0.0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)a[i] - (double)b[i]);
        if (e > d || e != e)
            d = e;
        if (fabs((double)b[i]) > m)
            m = fabs((double)b[i]);
    }
    return m > 0.0 ? d / m : d;
}

/* ---- oneDNN ------------------------------------------------------------------------------ */

enum { DIR_FWD, DIR_BWD_DATA, DIR_BWD_FILTER, DIR_COUNT };
static const char *const dir_names[DIR_COUNT] = {"fwd", "bwd_data", "bwd_filter"};

#define DNNL_OK(call)                                                                              \
    do {                                                                                           \
        dnnl_status_t st_ = (call);                                                                \
        if (st_ != dnnl_success) {                                                                 \
            fprintf(stderr, "oneDNN: %s failed (%d)\n", #call, (int)st_);                          \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

typedef struct {
    dnnl_engine_t eng;
    dnnl_stream_t strm;
} dnnl_env_t;

/* A memory in the primitive's layout for one user (plain) buffer, with reorders both ways. */
typedef struct {
    dnnl_memory_t user, prim; /* prim == user when the layouts agree */
    dnnl_primitive_t to_prim, to_user;
} dmem_t;

static int dmem_make(dnnl_env_t *e, dmem_t *m, const dnnl_memory_desc_t *user_md,
                     const dnnl_memory_desc_t *prim_md, float *data)
{
    dnnl_primitive_desc_t rpd = NULL;
    memset(m, 0, sizeof *m);
    DNNL_OK(dnnl_memory_create(&m->user, user_md, e->eng, data));
    if (dnnl_memory_desc_equal(user_md, prim_md)) {
        m->prim = m->user;
        return 0;
    }
    DNNL_OK(dnnl_memory_create(&m->prim, prim_md, e->eng, DNNL_MEMORY_ALLOCATE));
    DNNL_OK(dnnl_reorder_primitive_desc_create(&rpd, user_md, e->eng, prim_md, e->eng, NULL));
    DNNL_OK(dnnl_primitive_create(&m->to_prim, rpd));
    dnnl_primitive_desc_destroy(rpd);
    rpd = NULL;
    DNNL_OK(dnnl_reorder_primitive_desc_create(&rpd, prim_md, e->eng, user_md, e->eng, NULL));
    DNNL_OK(dnnl_primitive_create(&m->to_user, rpd));
    dnnl_primitive_desc_destroy(rpd);
    return 0;
fail:
    if (rpd)
        dnnl_primitive_desc_destroy(rpd);
    return -1;
}

static int dmem_reorder(dnnl_env_t *e, dmem_t *m, int to_prim)
{
    if (m->prim == m->user)
        return 0;
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, to_prim ? m->user : m->prim},
                               {DNNL_ARG_TO, to_prim ? m->prim : m->user}};
    DNNL_OK(dnnl_primitive_execute(to_prim ? m->to_prim : m->to_user, e->strm, 2, args));
    DNNL_OK(dnnl_stream_wait(e->strm));
    return 0;
fail:
    return -1;
}

static void dmem_free(dmem_t *m)
{
    if (m->to_prim)
        dnnl_primitive_destroy(m->to_prim);
    if (m->to_user)
        dnnl_primitive_destroy(m->to_user);
    if (m->prim && m->prim != m->user)
        dnnl_memory_destroy(m->prim);
    if (m->user)
        dnnl_memory_destroy(m->user);
    memset(m, 0, sizeof *m);
}

typedef struct {
    dnnl_env_t *e;
    dnnl_primitive_t prim;
    dnnl_exec_arg_t args[3];
} dcall_t;

static int dnnl_call(void *ctx)
{
    dcall_t *c = ctx;
    if (dnnl_primitive_execute(c->prim, c->e->strm, 3, c->args) != dnnl_success)
        return -1;
    return dnnl_stream_wait(c->e->strm) != dnnl_success;
}

/* Times direction `dir` on oneDNN; x, w, y are plain NCHW / (g)oihw; the direction's output
 * is written (reordered back) into its buffer. Returns seconds, negative on failure. */
static double onednn_run(dnnl_env_t *e, const shape_t *s, int dir, float *x, float *w, float *y,
                         char *impl, size_t impl_size)
{
    int64_t oh = out_dim(s->h, s->ph, s->r, s->dh, s->sh), ow = out_dim(s->w, s->pw, s->s, s->dw, s->sw);
    dnnl_dims_t xd = {s->n, s->c, s->h, s->w}, yd = {s->n, s->k, oh, ow};
    dnnl_dims_t wd = {s->k, s->c, s->r, s->s}, wgd = {s->g, s->k / s->g, s->c / s->g, s->r, s->s};
    dnnl_dims_t strides = {s->sh, s->sw}, dil = {s->dh - 1, s->dw - 1}, pl = {s->ph, s->pw};
    dnnl_dims_t pr = {(oh - 1) * s->sh + (s->r - 1) * s->dh + 1 - s->h - s->ph,
                      (ow - 1) * s->sw + (s->s - 1) * s->dw + 1 - s->w - s->pw};
    int wnd = s->g > 1 ? 5 : 4;
    dnnl_memory_desc_t x_any, w_any, y_any, x_user, w_user, y_user;
    dnnl_primitive_desc_t fwd_pd = NULL, pd = NULL;
    dnnl_primitive_t prim = NULL;
    dmem_t mx = {0}, mw = {0}, my = {0};
    double t = -1.0;
    DNNL_OK(dnnl_memory_desc_init_by_tag(&x_any, 4, xd, dnnl_f32, dnnl_format_tag_any));
    DNNL_OK(dnnl_memory_desc_init_by_tag(&y_any, 4, yd, dnnl_f32, dnnl_format_tag_any));
    DNNL_OK(dnnl_memory_desc_init_by_tag(&w_any, wnd, s->g > 1 ? wgd : wd, dnnl_f32,
                                         dnnl_format_tag_any));
    DNNL_OK(dnnl_memory_desc_init_by_tag(&x_user, 4, xd, dnnl_f32, dnnl_nchw));
    DNNL_OK(dnnl_memory_desc_init_by_tag(&y_user, 4, yd, dnnl_f32, dnnl_nchw));
    DNNL_OK(dnnl_memory_desc_init_by_tag(&w_user, wnd, s->g > 1 ? wgd : wd, dnnl_f32,
                                         s->g > 1 ? dnnl_goihw : dnnl_oihw));
    dnnl_convolution_desc_t cd;
    DNNL_OK(dnnl_dilated_convolution_forward_desc_init(
        &cd, dir == DIR_FWD ? dnnl_forward_inference : dnnl_forward_training,
        dnnl_convolution_auto, &x_any, &w_any, NULL, &y_any, strides, dil, pl, pr));
    DNNL_OK(dnnl_primitive_desc_create(&fwd_pd, &cd, NULL, e->eng, NULL));
    if (dir == DIR_FWD) {
        pd = fwd_pd, fwd_pd = NULL;
    } else if (dir == DIR_BWD_DATA) {
        DNNL_OK(dnnl_dilated_convolution_backward_data_desc_init(
            &cd, dnnl_convolution_auto, &x_any, &w_any, &y_any, strides, dil, pl, pr));
        DNNL_OK(dnnl_primitive_desc_create(&pd, &cd, NULL, e->eng, fwd_pd));
    } else {
        DNNL_OK(dnnl_dilated_convolution_backward_weights_desc_init(
            &cd, dnnl_convolution_auto, &x_any, &w_any, NULL, &y_any, strides, dil, pl, pr));
        DNNL_OK(dnnl_primitive_desc_create(&pd, &cd, NULL, e->eng, fwd_pd));
    }
    const char *info = NULL;
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &info) == dnnl_success && info)
        snprintf(impl, impl_size, "%s", info);
    dnnl_query_t qx = dir == DIR_BWD_DATA ? dnnl_query_diff_src_md : dnnl_query_src_md;
    dnnl_query_t qw = dir == DIR_BWD_FILTER ? dnnl_query_diff_weights_md : dnnl_query_weights_md;
    dnnl_query_t qy = dir == DIR_FWD ? dnnl_query_dst_md : dnnl_query_diff_dst_md;
    if (dmem_make(e, &mx, &x_user, dnnl_primitive_desc_query_md(pd, qx, 0), x) ||
        dmem_make(e, &mw, &w_user, dnnl_primitive_desc_query_md(pd, qw, 0), w) ||
        dmem_make(e, &my, &y_user, dnnl_primitive_desc_query_md(pd, qy, 0), y))
        goto fail;
    DNNL_OK(dnnl_primitive_create(&prim, pd));
    dcall_t call = {e, prim, {{0}}};
    dmem_t *out;
    if (dir == DIR_FWD) {
        call.args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, mx.prim};
        call.args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, mw.prim};
        call.args[2] = (dnnl_exec_arg_t){DNNL_ARG_DST, my.prim};
        if (dmem_reorder(e, &mx, 1) || dmem_reorder(e, &mw, 1))
            goto fail;
        out = &my;
    } else if (dir == DIR_BWD_DATA) {
        call.args[0] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST, my.prim};
        call.args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, mw.prim};
        call.args[2] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SRC, mx.prim};
        if (dmem_reorder(e, &my, 1) || dmem_reorder(e, &mw, 1))
            goto fail;
        out = &mx;
    } else {
        call.args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, mx.prim};
        call.args[1] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST, my.prim};
        call.args[2] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_WEIGHTS, mw.prim};
        if (dmem_reorder(e, &mx, 1) || dmem_reorder(e, &my, 1))
            goto fail;
        out = &mw;
    }
    settle();
    t = time_median(dnnl_call, &call);
    if (t >= 0.0 && dmem_reorder(e, out, 0))
        t = -1.0;
fail:
    if (prim)
        dnnl_primitive_destroy(prim);
    dmem_free(&mx), dmem_free(&mw), dmem_free(&my);
    if (pd)
        dnnl_primitive_desc_destroy(pd);
    if (fwd_pd)
        dnnl_primitive_desc_destroy(fwd_pd);
    return t;
}

/* ---- freednn ----------------------------------------------------------------------------- */

#define FD_OK(call)                                                                                \
    do {                                                                                           \
        cudnnStatus_t st_ = (call);                                                                \
        if (st_ != CUDNN_STATUS_SUCCESS) {                                                         \
            char last_[512];                                                                       \
            cudnnGetLastErrorString(last_, sizeof last_);                                          \
            fprintf(stderr, "freednn: %s: %s (%s)\n", #call, cudnnGetErrorString(st_), last_);     \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

typedef struct {
    cudnnHandle_t h;
    int dir, algo;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    float *x, *w, *y;
    void *ws;
    size_t ws_size;
} fcall_t;

static int fd_call(void *ctx)
{
    fcall_t *c = ctx;
    const float one = 1.0f, zero = 0.0f;
    cudnnStatus_t st;
    if (c->dir == DIR_FWD)
        st = cudnnConvolutionForward(c->h, &one, c->xd, c->x, c->wd, c->w, c->cd,
                                     (cudnnConvolutionFwdAlgo_t)c->algo, c->ws, c->ws_size, &zero,
                                     c->yd, c->y);
    else if (c->dir == DIR_BWD_DATA)
        st = cudnnConvolutionBackwardData(c->h, &one, c->wd, c->w, c->yd, c->y, c->cd,
                                          (cudnnConvolutionBwdDataAlgo_t)c->algo, c->ws,
                                          c->ws_size, &zero, c->xd, c->x);
    else
        st = cudnnConvolutionBackwardFilter(c->h, &one, c->xd, c->x, c->yd, c->y, c->cd,
                                            (cudnnConvolutionBwdFilterAlgo_t)c->algo, c->ws,
                                            c->ws_size, &zero, c->wd, c->w);
    if (st != CUDNN_STATUS_SUCCESS) {
        fprintf(stderr, "freednn: %s call failed: %s\n", dir_names[c->dir], cudnnGetErrorString(st));
        return -1;
    }
    return 0;
}

static double freednn_run(cudnnHandle_t h, const shape_t *s, int dir, float *x, float *w, float *y,
                          int *algo_out)
{
    int64_t oh = out_dim(s->h, s->ph, s->r, s->dh, s->sh), ow = out_dim(s->w, s->pw, s->s, s->dw, s->sw);
    fcall_t c = {h, dir, 0, NULL, NULL, NULL, NULL, x, w, y, NULL, 0};
    double t = -1.0;
    FD_OK(cudnnCreateTensorDescriptor(&c.xd));
    FD_OK(cudnnCreateTensorDescriptor(&c.yd));
    FD_OK(cudnnCreateFilterDescriptor(&c.wd));
    FD_OK(cudnnCreateConvolutionDescriptor(&c.cd));
    FD_OK(cudnnSetTensor4dDescriptor(c.xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)s->n,
                                     (int)s->c, (int)s->h, (int)s->w));
    FD_OK(cudnnSetTensor4dDescriptor(c.yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)s->n,
                                     (int)s->k, (int)oh, (int)ow));
    FD_OK(cudnnSetFilter4dDescriptor(c.wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, (int)s->k,
                                     (int)(s->c / s->g), (int)s->r, (int)s->s));
    FD_OK(cudnnSetConvolution2dDescriptor(c.cd, (int)s->ph, (int)s->pw, (int)s->sh, (int)s->sw,
                                          (int)s->dh, (int)s->dw, CUDNN_CROSS_CORRELATION,
                                          CUDNN_DATA_FLOAT));
    FD_OK(cudnnSetConvolutionGroupCount(c.cd, (int)s->g));
    int got = 0;
    settle(); /* Find's single timed runs need a quiet machine too */
    if (dir == DIR_FWD) {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        FD_OK(cudnnFindConvolutionForwardAlgorithm(h, c.xd, c.wd, c.cd, c.yd,
                                                   CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, perf));
        c.algo = (int)perf[0].algo, c.ws_size = perf[0].memory;
    } else if (dir == DIR_BWD_DATA) {
        cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        FD_OK(cudnnFindConvolutionBackwardDataAlgorithm(
            h, c.wd, c.yd, c.cd, c.xd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, perf));
        c.algo = (int)perf[0].algo, c.ws_size = perf[0].memory;
    } else {
        cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        FD_OK(cudnnFindConvolutionBackwardFilterAlgorithm(
            h, c.xd, c.yd, c.cd, c.wd, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got, perf));
        c.algo = (int)perf[0].algo, c.ws_size = perf[0].memory;
    }
    *algo_out = c.algo;
    if (c.ws_size && !(c.ws = malloc(c.ws_size)))
        goto fail;
    settle();
    t = time_median(fd_call, &c);
fail:
    free(c.ws);
    if (c.cd)
        cudnnDestroyConvolutionDescriptor(c.cd);
    if (c.wd)
        cudnnDestroyFilterDescriptor(c.wd);
    if (c.yd)
        cudnnDestroyTensorDescriptor(c.yd);
    if (c.xd)
        cudnnDestroyTensorDescriptor(c.xd);
    return t;
}

static const char *algo_name(int dir, int algo)
{
    static const char *const fwd[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT",
                                      "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
    static const char *const bd[] = {"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD",
                                     "WINOGRAD_NONFUSED"};
    static const char *const bf[] = {"ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD_NONFUSED",
                                     "FFT_TILING"};
    if (algo < 0)
        return "?";
    if (dir == DIR_FWD)
        return algo < 8 ? fwd[algo] : "?";
    if (dir == DIR_BWD_DATA)
        return algo < 6 ? bd[algo] : "?";
    return algo < 6 ? bf[algo] : "?";
}

/* ---- main -------------------------------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr, "usage: onednn_vs_freednn SHAPES [--n=N] [--threads=T] "
                    "[--dirs=fwd,bwd_data,bwd_filter] [--min-time=SEC] [--reps=R] [--settle=SEC]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *file = NULL, *dirs = "fwd,bwd_data,bwd_filter";
    int64_t opt_n = 0;
    int threads = 0;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--n=", 4) == 0)
            opt_n = strtoll(argv[i] + 4, NULL, 10);
        else if (strncmp(argv[i], "--threads=", 10) == 0)
            threads = atoi(argv[i] + 10);
        else if (strncmp(argv[i], "--dirs=", 7) == 0)
            dirs = argv[i] + 7;
        else if (strncmp(argv[i], "--min-time=", 11) == 0)
            opt_min_time = atof(argv[i] + 11);
        else if (strncmp(argv[i], "--settle=", 9) == 0)
            opt_settle = atof(argv[i] + 9);
        else if (strncmp(argv[i], "--reps=", 7) == 0)
            opt_reps = atoi(argv[i] + 7);
        else if (argv[i][0] == '-' || file)
            usage();
        else
            file = argv[i];
    }
    if (!file || opt_reps < 1 || threads < 0)
        usage();
    if (threads > 0 && !getenv("FD_COMPARE_REEXEC")) {
        char t[32];
        snprintf(t, sizeof t, "%d", threads);
        setenv("OMP_NUM_THREADS", t, 1);
        setenv("OPENBLAS_NUM_THREADS", t, 1);
        setenv("FD_COMPARE_REEXEC", "1", 1);
        execv("/proc/self/exe", argv);
        perror("execv /proc/self/exe");
        return 1;
    }
    setenv("FREEDNN_TUNE_CACHE", "off", 0);
    int want[DIR_COUNT];
    for (int d = 0; d < DIR_COUNT; d++) {
        const char *p = strstr(dirs, dir_names[d]);
        size_t len = strlen(dir_names[d]);
        /* "bwd_data" must not match inside another name; names are comma-separated */
        want[d] = p && (p == dirs || p[-1] == ',') && (p[len] == '\0' || p[len] == ',');
    }
    FILE *f = fopen(file, "r");
    if (!f) {
        perror(file);
        return 2;
    }
    dnnl_env_t e = {0};
    if (dnnl_engine_create(&e.eng, dnnl_cpu, 0) != dnnl_success ||
        dnnl_stream_create(&e.strm, e.eng, dnnl_stream_default_flags) != dnnl_success) {
        fprintf(stderr, "oneDNN: no cpu engine\n");
        return 1;
    }
    cudnnHandle_t h = NULL;
    if (freednnCreateWithBackend(&h, FREEDNN_BACKEND_CPU) != CUDNN_STATUS_SUCCESS) {
        fprintf(stderr, "freednn: no cpu handle\n");
        return 1;
    }
    const dnnl_version_t *ver = dnnl_version();
    char load[128] = "?";
    FILE *lf = fopen("/proc/loadavg", "r");
    if (lf) {
        if (fgets(load, sizeof load, lf))
            load[strcspn(load, "\n")] = '\0';
        fclose(lf);
    }
    printf("# load average at start: %s (a shared machine: other work skews both columns)\n", load);
    printf("# onednn_vs_freednn %s n=%lld threads=%s (OMP_NUM_THREADS=%s) oneDNN %d.%d.%d "
           "freednn %zu; layouts: oneDNN its preferred (format any, reorders untimed), freednn "
           "NCHW; time = median per call\n",
           file, (long long)opt_n, threads ? "set" : "inherited",
           getenv("OMP_NUM_THREADS") ? getenv("OMP_NUM_THREADS") : "unset", ver->major,
           ver->minor, ver->patch, freednnGetVersion());
    printf("%-44s %-10s %10s %10s %8s  %-22s %-28s %s\n", "# shape", "dir", "onednn_ms",
           "freednn_ms", "speedup", "freednn_algo", "onednn_impl", "max_rel_diff");
    double logsum[DIR_COUNT] = {0};
    int count[DIR_COUNT] = {0}, lineno = 0, failures = 0;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        shape_t s;
        int r = parse_line(line, &s, ++lineno);
        if (r < 0)
            return 2;
        if (r == 0)
            continue;
        if (opt_n > 0)
            s.n = opt_n;
        int64_t oh = out_dim(s.h, s.ph, s.r, s.dh, s.sh), ow = out_dim(s.w, s.pw, s.s, s.dw, s.sw);
        size_t nx = (size_t)(s.n * s.c * s.h * s.w), ny = (size_t)(s.n * s.k * oh * ow);
        size_t nw = (size_t)(s.k * (s.c / s.g) * s.r * s.s);
        float *x[2], *w[2], *y[2];
        for (int l = 0; l < 2; l++) {
            x[l] = malloc(nx * sizeof(float));
            w[l] = malloc(nw * sizeof(float));
            y[l] = malloc(ny * sizeof(float));
            if (!x[l] || !w[l] || !y[l]) {
                fprintf(stderr, "out of memory\n");
                return 1;
            }
        }
        char name[256];
        snprintf(name, sizeof name, "n%lldc%lldh%lldw%lldk%lldr%llds%lldp%lldu%lldl%lldg%lld",
                 (long long)s.n, (long long)s.c, (long long)s.h, (long long)s.w, (long long)s.k,
                 (long long)s.r, (long long)s.s, (long long)s.ph, (long long)s.sh,
                 (long long)s.dh, (long long)s.g);
        for (int d = 0; d < DIR_COUNT; d++) {
            if (!want[d])
                continue;
            for (int l = 0; l < 2; l++) {
                fill(x[l], nx, 1), fill(w[l], nw, 2), fill(y[l], ny, 3);
            }
            char impl[128] = "?";
            int algo = -1;
            double to = onednn_run(&e, &s, d, x[0], w[0], y[0], impl, sizeof impl);
            double tf = freednn_run(h, &s, d, x[1], w[1], y[1], &algo);
            float *a = d == DIR_FWD ? y[0] : d == DIR_BWD_DATA ? x[0] : w[0];
            float *b = d == DIR_FWD ? y[1] : d == DIR_BWD_DATA ? x[1] : w[1];
            size_t nout = d == DIR_FWD ? ny : d == DIR_BWD_DATA ? nx : nw;
            if (to <= 0.0 || tf <= 0.0) {
                printf("%-44s %-10s failed (oneDNN %s, freednn %s)\n", name, dir_names[d],
                       to <= 0.0 ? "failed" : "ok", tf <= 0.0 ? "failed" : "ok");
                failures++;
                continue;
            }
            double diff = rel_diff(a, b, nout);
            printf("%-44s %-10s %10.3f %10.3f %8.3f  %-22s %-28s %.2e  # %s\n", name,
                   dir_names[d], to * 1e3, tf * 1e3, to / tf, algo_name(d, algo), impl, diff,
                   s.tag);
            fflush(stdout);
            if (diff > 1e-3) {
                printf("#   results differ (max |diff| / max |value| %.3g > 1e-3)\n", diff);
                failures++;
            }
            logsum[d] += log(to / tf);
            count[d]++;
        }
        for (int l = 0; l < 2; l++)
            free(x[l]), free(w[l]), free(y[l]);
    }
    fclose(f);
    lf = fopen("/proc/loadavg", "r");
    if (lf) {
        if (fgets(load, sizeof load, lf))
            printf("# load average at end: %s", load);
        fclose(lf);
    }
    for (int d = 0; d < DIR_COUNT; d++)
        if (want[d])
            printf("geomean %s speedup=%.3f n=%d\n", dir_names[d],
                   count[d] ? exp(logsum[d] / count[d]) : 0.0, count[d]);
    cudnnDestroy(h);
    dnnl_stream_destroy(e.strm);
    dnnl_engine_destroy(e.eng);
    return failures ? 1 : 0;
}
