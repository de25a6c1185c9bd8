/* SPDX-License-Identifier: MIT */
/*
 * onednn_vs_freednn.c - freednn's cpu backend against oneDNN (Intel's library, Debian's
 * libdnnl-dev 2.6.x, C API) on the same convolution shapes, in one process (issue 5 item 4).
 *
 *   onednn_vs_freednn SHAPES [--n=N] [--threads=T] [--dirs=fwd,bwd_data,bwd_filter]
 *                            [--reps=R] [--efficiency] [--only=TEXT] [--min-time=SEC]
 *                            [--calls=C] [--settle=SEC] [--stat=median|min]
 *
 * SHAPES is a conv shape file (bench/shapes/NAME.txt, ../shared/conv_shapes/NAME.txt): one problem
 * per line, "N C H W K R S pad stride dilation groups [key=value...] # tag", the format of
 * tools/dnnbench (keys pad_h pad_w stride_h stride_w dil_h dil_w dilation_h dilation_w).
 * --n overrides every line's N; --only=TEXT keeps the lines whose name (n1c64h56w56k64r3s3p1u1l1g1)
 * or tag contains TEXT. fp32, cross-correlation. README.md next to this file says how to read
 * the output.
 *
 * Decisions:
 * - oneDNN gets its preferred layouts: every memory descriptor of the primitive is format_tag
 *   any (blocked nChw16c / OIhw16i16o and friends on AVX-512), algorithm convolution_auto (it
 *   may pick Winograd where it has one). The user data are plain NCHW / OIHW (goihw with groups)
 *   and reorders into and out of the blocked layouts run OUTSIDE the timed region, as a
 *   framework keeping tensors blocked across layers would have them. The fwd primitive is
 *   forward_inference; the backward ones use a forward_training primitive as their hint.
 * - freednn runs through the cuDNN API on a cpu handle (freednnCreateWithBackend) on NCHW
 *   tensors and NCHW filters; the algorithm is cudnnFind*'s first choice, then timed here like
 *   oneDNN's, with exactly the workspace Find reported. Its buffers (x, w, y, workspace) start on
 *   64-byte boundaries, as a framework's allocator and oneDNN's own memories do (before
 *   2026-12-05 they were malloc's, 16 bytes past a page: 3-9 % slower on the direct rows, 0.809
 *   against 0.828 forward). The tuning cache is off
 *   (FREEDNN_TUNE_CACHE=off) unless set by the caller, so a stale ranking cannot choose.
 * - A sample: one warm-up call, then calls until --min-time seconds (default 0.15) and at least
 *   --calls calls (default 3), at most 500; the sample is the median wall time of one call
 *   (--stat=min: the fastest call, the estimate that survives a loaded machine best: with
 *   other work on both cores a 2-thread call waits for a descheduled thread, 4-16 ms, in most
 *   calls, so medians measure the load, not the code).
 * - Each (shape, direction) is prepared once per library (primitive, reorders, Find), then
 *   sampled --reps times (default 5) INTERLEAVED: oneDNN, freednn, oneDNN, freednn, ... A
 *   line reports the median of the R samples (and their minimum), the speed-up of the medians
 *   and the range of the R paired ratios (sample r of oneDNN over sample r of freednn, taken
 *   next to each other in time). This VM's second vCPU comes and goes, and other sessions share
 *   it: one sample per layer moved single layers by 2x between runs; R paired samples show the
 *   spread and the median ignores the outliers.
 * - --efficiency: parallel efficiency (time at 1 thread / time at T threads, T = --threads,
 *   default 2) per layer and library. The process starts with T threads allowed and switches at
 *   run time (omp_set_num_threads for libgomp, shared by oneDNN and freednn's OpenMP loops;
 *   openblas_set_num_threads, found with dlsym, for freednn's OpenBLAS). oneDNN primitives are
 *   created under the thread count they run with (oneDNN sizes its work split at creation);
 *   freednn gets one handle per thread count, each with its own Find (the algorithm may
 *   differ; both are printed). Per rep the four (library, threads) samples run back to back,
 *   order reversed on odd reps, so a drift in the machine's speed hits both thread counts
 *   alike; efficiency = median(t1) / median(tT), spread = min / max over reps of the paired
 *   t1[r] / tT[r]. The output column `bits` says whether freednn's output at 1 and T threads
 *   is bit-identical with the 1-thread Find's algorithm (the determinism the cpu rows claim).
 * - Before each sample the program sleeps --settle seconds (default 0.2): OpenBLAS's
 *   pthreads (freednn's GEMMs) and libgomp's (oneDNN, freednn's own loops) spin-wait after
 *   their work before sleeping, and a pool still spinning halves the other library's speed on
 *   2 cores (measured: oneDNN 8x slower right after a freednn call with 2 threads).
 * - --threads=T re-executes the program with OMP_NUM_THREADS=T and OPENBLAS_NUM_THREADS=T
 *   (both runtimes read them when they load, before main), so oneDNN (OpenMP, libgomp) and
 *   freednn (OpenMP + OpenBLAS) use T threads (at most T with --efficiency), and, unless the
 *   caller set them, OMP_PROC_BIND=spread and OMP_PLACES=cores (benchdnn's advice too): the
 *   OpenMP threads of both libraries stay one per core. Unbound, Linux woke a sleeping worker
 *   on its waker's core after each --settle pause, and both threads shared one core, spinning
 *   at barriers, until the load balancer moved one (~100 ms: the first six 2-thread calls of a
 *   process at 16 ms, then 1.5 ms, freednn's direct 3x3 256 -> 256 at 14x14 on the 2-vCPU VM,
 *   2026-12-04), which made medians of 2-thread samples measure the scheduler.
 * - The two results are compared (oneDNN's reordered back to NCHW): the max |difference| over
 *   max |value| is printed per direction, so a speed ratio never hides a wrong answer.
 * Output: per shape and direction one line, then per direction `geomean <dir> speedup=<oneDNN
 * time / freednn time> n=<shapes>` (speedup > 1: freednn is faster; medians); with
 * --efficiency instead `geomean <dir> efficiency freednn=E [lo-hi] onednn=E [lo-hi] n=<shapes>`
 * (geomean over shapes of the per-shape efficiency, and of the per-shape min / max ratios) and
 * `geomean <dir> speedup_t1=S1 speedup_tT=ST n=<shapes>`.
 */
#define _GNU_SOURCE /* setenv, execv, clock_gettime, RTLD_DEFAULT */
#include <ctype.h>
#include <dlfcn.h>
#include <math.h>
#include <omp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cudnn.h>
#include <freednn.h>
#include <oneapi/dnnl/dnnl.h>

/* freednn's tensors and workspace on 64-byte boundaries, as a framework's allocator gives them
 * (and as oneDNN's own memories are): glibc's malloc puts large blocks 16 bytes past a page, so
 * every 64-byte vector access of ours straddled two cache lines while oneDNN's did not. */
static void *alloc64(size_t bytes)
{
    void *p = NULL;
    return posix_memalign(&p, 64, bytes ? bytes : 64) == 0 ? p : NULL;
}

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

static double opt_min_time = 0.15, opt_settle = 0.2;
static int opt_calls = 3, opt_reps = 5, opt_stat_min = 0;

static void settle(void)
{
    struct timespec ts = {(time_t)opt_settle, (long)((opt_settle - (double)(time_t)opt_settle) * 1e9)};
    if (opt_settle > 0.0)
        nanosleep(&ts, NULL);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of v[0..n) (sorts a copy; n <= 500). */
static double median_of(const double *v, int n)
{
    double t[500];
    memcpy(t, v, (size_t)n * sizeof t[0]);
    qsort(t, (size_t)n, sizeof t[0], cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static double min_of(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

static double max_of(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

typedef int (*call_fn)(void *ctx);

/* One sample: settle, one warm-up call, then the median seconds per call; negative on failure. */
static double time_sample(call_fn fn, void *ctx)
{
    enum { MAX_RUNS = 500 };
    double t[MAX_RUNS];
    settle();
    if (fn(ctx))
        return -1.0;
    int n = 0;
    double start = now_s();
    while (n < MAX_RUNS && (n < opt_calls || now_s() - start < opt_min_time)) {
        double t0 = now_s();
        if (fn(ctx))
            return -1.0;
        t[n++] = now_s() - t0;
    }
    return opt_stat_min ? min_of(t, n) : median_of(t, n);
}

/* Thread count for both libraries from here on (see the header: --efficiency). */
static void (*blas_set_threads)(int);
static void set_threads(int t)
{
    omp_set_num_threads(t);
    if (blas_set_threads)
        blas_set_threads(t);
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

/* A prepared oneDNN direction: primitive, its memories (inputs already reordered in), the
 * execute arguments, and which memory is the output. */
typedef struct {
    dnnl_env_t *e;
    dnnl_primitive_t prim;
    dmem_t mx, mw, my, *out;
    dnnl_exec_arg_t args[3];
    char impl[128];
} dprep_t;

static int dnnl_call(void *ctx)
{
    dprep_t *c = ctx;
    if (dnnl_primitive_execute(c->prim, c->e->strm, 3, c->args) != dnnl_success)
        return -1;
    return dnnl_stream_wait(c->e->strm) != dnnl_success;
}

static void onednn_free(dprep_t *d)
{
    if (d->prim)
        dnnl_primitive_destroy(d->prim);
    dmem_free(&d->mx), dmem_free(&d->mw), dmem_free(&d->my);
    memset(d, 0, sizeof *d);
}

/* Prepares direction `dir` on oneDNN under the current thread count; x, w, y are plain NCHW /
 * (g)oihw user buffers. 0 on success. */
static int onednn_prep(dnnl_env_t *e, const shape_t *s, int dir, float *x, float *w, float *y,
                       dprep_t *d)
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
    int rc = -1;
    memset(d, 0, sizeof *d);
    d->e = e;
    snprintf(d->impl, sizeof d->impl, "?");
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
        snprintf(d->impl, sizeof d->impl, "%s", info);
    dnnl_query_t qx = dir == DIR_BWD_DATA ? dnnl_query_diff_src_md : dnnl_query_src_md;
    dnnl_query_t qw = dir == DIR_BWD_FILTER ? dnnl_query_diff_weights_md : dnnl_query_weights_md;
    dnnl_query_t qy = dir == DIR_FWD ? dnnl_query_dst_md : dnnl_query_diff_dst_md;
    if (dmem_make(e, &d->mx, &x_user, dnnl_primitive_desc_query_md(pd, qx, 0), x) ||
        dmem_make(e, &d->mw, &w_user, dnnl_primitive_desc_query_md(pd, qw, 0), w) ||
        dmem_make(e, &d->my, &y_user, dnnl_primitive_desc_query_md(pd, qy, 0), y))
        goto fail;
    DNNL_OK(dnnl_primitive_create(&d->prim, pd));
    if (dir == DIR_FWD) {
        d->args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, d->mx.prim};
        d->args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, d->mw.prim};
        d->args[2] = (dnnl_exec_arg_t){DNNL_ARG_DST, d->my.prim};
        if (dmem_reorder(e, &d->mx, 1) || dmem_reorder(e, &d->mw, 1))
            goto fail;
        d->out = &d->my;
    } else if (dir == DIR_BWD_DATA) {
        d->args[0] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST, d->my.prim};
        d->args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, d->mw.prim};
        d->args[2] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_SRC, d->mx.prim};
        if (dmem_reorder(e, &d->my, 1) || dmem_reorder(e, &d->mw, 1))
            goto fail;
        d->out = &d->mx;
    } else {
        d->args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, d->mx.prim};
        d->args[1] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_DST, d->my.prim};
        d->args[2] = (dnnl_exec_arg_t){DNNL_ARG_DIFF_WEIGHTS, d->mw.prim};
        if (dmem_reorder(e, &d->mx, 1) || dmem_reorder(e, &d->my, 1))
            goto fail;
        d->out = &d->mw;
    }
    rc = 0;
fail:
    if (pd)
        dnnl_primitive_desc_destroy(pd);
    if (fwd_pd)
        dnnl_primitive_desc_destroy(fwd_pd);
    if (rc)
        onednn_free(d);
    return rc;
}

/* The output of the last call, reordered back into its user buffer. */
static int onednn_output(dprep_t *d)
{
    return dmem_reorder(d->e, d->out, 0);
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

static void freednn_free(fcall_t *c)
{
    free(c->ws);
    if (c->cd)
        cudnnDestroyConvolutionDescriptor(c->cd);
    if (c->wd)
        cudnnDestroyFilterDescriptor(c->wd);
    if (c->yd)
        cudnnDestroyTensorDescriptor(c->yd);
    if (c->xd)
        cudnnDestroyTensorDescriptor(c->xd);
    memset(c, 0, sizeof *c);
}

/* Descriptors, Find's first choice and its workspace for direction `dir` on handle h (Find
 * runs under the current thread count). 0 on success. */
static int freednn_prep(cudnnHandle_t h, const shape_t *s, int dir, float *x, float *w, float *y,
                        fcall_t *c)
{
    int64_t oh = out_dim(s->h, s->ph, s->r, s->dh, s->sh), ow = out_dim(s->w, s->pw, s->s, s->dw, s->sw);
    memset(c, 0, sizeof *c);
    c->h = h, c->dir = dir, c->algo = -1, c->x = x, c->w = w, c->y = y;
    FD_OK(cudnnCreateTensorDescriptor(&c->xd));
    FD_OK(cudnnCreateTensorDescriptor(&c->yd));
    FD_OK(cudnnCreateFilterDescriptor(&c->wd));
    FD_OK(cudnnCreateConvolutionDescriptor(&c->cd));
    FD_OK(cudnnSetTensor4dDescriptor(c->xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)s->n,
                                     (int)s->c, (int)s->h, (int)s->w));
    FD_OK(cudnnSetTensor4dDescriptor(c->yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)s->n,
                                     (int)s->k, (int)oh, (int)ow));
    FD_OK(cudnnSetFilter4dDescriptor(c->wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, (int)s->k,
                                     (int)(s->c / s->g), (int)s->r, (int)s->s));
    FD_OK(cudnnSetConvolution2dDescriptor(c->cd, (int)s->ph, (int)s->pw, (int)s->sh, (int)s->sw,
                                          (int)s->dh, (int)s->dw, CUDNN_CROSS_CORRELATION,
                                          CUDNN_DATA_FLOAT));
    FD_OK(cudnnSetConvolutionGroupCount(c->cd, (int)s->g));
    int got = 0;
    settle(); /* Find's timed runs need a quiet machine too */
    if (dir == DIR_FWD) {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        FD_OK(cudnnFindConvolutionForwardAlgorithm(h, c->xd, c->wd, c->cd, c->yd,
                                                   CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, perf));
        c->algo = (int)perf[0].algo, c->ws_size = perf[0].memory;
    } else if (dir == DIR_BWD_DATA) {
        cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        FD_OK(cudnnFindConvolutionBackwardDataAlgorithm(
            h, c->wd, c->yd, c->cd, c->xd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, perf));
        c->algo = (int)perf[0].algo, c->ws_size = perf[0].memory;
    } else {
        cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        FD_OK(cudnnFindConvolutionBackwardFilterAlgorithm(
            h, c->xd, c->yd, c->cd, c->wd, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got, perf));
        c->algo = (int)perf[0].algo, c->ws_size = perf[0].memory;
    }
    if (c->ws_size && !(c->ws = alloc64(c->ws_size)))
        goto fail;
    return 0;
fail:
    freednn_free(c);
    return -1;
}

static const char *algo_name(int dir, int algo)
{
    static const char *const fwd[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT",
                                      "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
    static const char *const bd[] = {"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD",
                                     "WINOGRAD_NONFUSED"};
    static const char *const bf[] = {
        "ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"};
    if (algo < 0)
        return "?";
    if (dir == DIR_FWD)
        return algo < 8 ? fwd[algo] : "?";
    if (dir == DIR_BWD_DATA)
        return algo < 6 ? bd[algo] : "?";
    return algo < 7 ? bf[algo] : "?";
}

/* ---- main -------------------------------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr, "usage: onednn_vs_freednn SHAPES [--n=N] [--threads=T] "
                    "[--dirs=fwd,bwd_data,bwd_filter] [--reps=R] [--efficiency] [--only=TEXT] "
                    "[--min-time=SEC] [--calls=C] [--settle=SEC] [--stat=median|min]\n");
    exit(2);
}

static void print_load(const char *when, const char *extra)
{
    char load[128] = "?";
    FILE *lf = fopen("/proc/loadavg", "r");
    if (lf) {
        if (fgets(load, sizeof load, lf))
            load[strcspn(load, "\n")] = '\0';
        fclose(lf);
    }
    printf("# load average at %s: %s%s\n", when, load, extra);
}

enum { MAX_REPS = 100 };

/* Per-direction sums of logs for the geomean lines. */
typedef struct {
    double speed, od_eff, od_lo, od_hi, fd_eff, fd_lo, fd_hi, speed1, speedt;
    int count;
} sums_t;

/* One sample of a prepared call at `threads` threads (0: leave the count alone); 0 on success. */
static int sample(call_fn fn, void *ctx, int threads, double *t)
{
    if (threads > 0)
        set_threads(threads);
    *t = time_sample(fn, ctx);
    return *t <= 0.0;
}

/* The direction's output buffer of library l (0 oneDNN, 1 freednn) and its element count. */
typedef struct {
    float *x[2], *w[2], *y[2];
    size_t nx, nw, ny;
} bufs_t;

static float *out_of(const bufs_t *b, int d, int l)
{
    return d == DIR_FWD ? b->y[l] : d == DIR_BWD_DATA ? b->x[l] : b->w[l];
}
static size_t nout_of(const bufs_t *b, int d)
{
    return d == DIR_FWD ? b->ny : d == DIR_BWD_DATA ? b->nx : b->nw;
}

static void print_failed(const char *name, int d, const char *what)
{
    printf("%-44s %-10s failed (%s)\n", name, dir_names[d], what);
    fflush(stdout);
}

/* 0 when the results agree (else a line says how they differ); *diff gets the difference. */
static int check_diff(const bufs_t *b, int d, double *diff)
{
    *diff = rel_diff(out_of(b, d, 0), out_of(b, d, 1), nout_of(b, d));
    return *diff > 1e-3;
}

/* The plain comparison of one (shape, direction): R interleaved samples per library. Returns
 * 0, or 1 when a call failed or the results differ. */
static int compare_one(dnnl_env_t *e, cudnnHandle_t h, const shape_t *s, const char *name, int d,
                       const bufs_t *b, sums_t *sum)
{
    dprep_t dp;
    fcall_t fc;
    double to[MAX_REPS], tf[MAX_REPS], ratio[MAX_REPS], diff;
    if (onednn_prep(e, s, d, b->x[0], b->w[0], b->y[0], &dp)) {
        print_failed(name, d, "oneDNN setup");
        return 1;
    }
    if (freednn_prep(h, s, d, b->x[1], b->w[1], b->y[1], &fc)) {
        onednn_free(&dp);
        print_failed(name, d, "freednn setup");
        return 1;
    }
    int fail = 0;
    for (int r = 0; r < opt_reps && !fail; r++) {
        if (sample(dnnl_call, &dp, 0, &to[r]))
            print_failed(name, d, "oneDNN call"), fail = 1;
        else if (sample(fd_call, &fc, 0, &tf[r]))
            print_failed(name, d, "freednn call"), fail = 1;
        else
            ratio[r] = to[r] / tf[r];
    }
    if (!fail && onednn_output(&dp))
        print_failed(name, d, "oneDNN reorder"), fail = 1;
    if (!fail) {
        fail = check_diff(b, d, &diff);
        double mo = median_of(to, opt_reps), mf = median_of(tf, opt_reps);
        printf("%-44s %-10s %10.3f %10.3f %8.3f %6.3f-%-6.3f %10.3f %10.3f  %-22s %-28s %.2e  # %s\n",
               name, dir_names[d], mo * 1e3, mf * 1e3, mo / mf, min_of(ratio, opt_reps),
               max_of(ratio, opt_reps), min_of(to, opt_reps) * 1e3, min_of(tf, opt_reps) * 1e3,
               algo_name(d, fc.algo), dp.impl, diff, s->tag);
        if (fail)
            printf("#   results differ (max |diff| / max |value| %.3g > 1e-3)\n", diff);
        fflush(stdout);
        if (!fail) {
            sum->speed += log(mo / mf);
            sum->count++;
        }
    }
    freednn_free(&fc);
    onednn_free(&dp);
    return fail;
}

/* --efficiency for one (shape, direction): each library prepared at 1 and at T threads, R reps
 * of the four samples. h[0] / h[1]: freednn handles used at 1 / T threads. */
static int efficiency_one(dnnl_env_t *e, cudnnHandle_t h[2], int threads, const shape_t *s,
                          const char *name, int d, const bufs_t *b, sums_t *sum)
{
    dprep_t dp[2];
    fcall_t fc[2];
    int have_d = 0, have_f = 0, fail = 0;
    const int tc[2] = {1, threads};
    for (; have_d < 2; have_d++) {
        set_threads(tc[have_d]);
        if (onednn_prep(e, s, d, b->x[0], b->w[0], b->y[0], &dp[have_d]))
            break;
    }
    for (; have_d == 2 && have_f < 2; have_f++) {
        set_threads(tc[have_f]);
        if (freednn_prep(h[have_f], s, d, b->x[1], b->w[1], b->y[1], &fc[have_f]))
            break;
    }
    if (have_d < 2 || have_f < 2) {
        print_failed(name, d, have_d < 2 ? "oneDNN setup" : "freednn setup");
        fail = 1;
        goto done;
    }
    /* t[lib][tc][rep] */
    static double t[2][2][MAX_REPS];
    for (int r = 0; r < opt_reps && !fail; r++)
        for (int i = 0; i < 4 && !fail; i++) {
            const int j = r % 2 ? 3 - i : i, lib = j % 2, ti = j / 2;
            fail = lib ? sample(fd_call, &fc[ti], tc[ti], &t[1][ti][r])
                       : sample(dnnl_call, &dp[ti], tc[ti], &t[0][ti][r]);
            if (fail)
                print_failed(name, d, lib ? "freednn call" : "oneDNN call");
        }
    if (fail)
        goto done;
    /* freednn's bits at 1 and T threads with the 1-thread Find's algorithm (when the two Finds
     * chose different algorithms their outputs differ in rounding by design), then freednn's
     * T-thread algorithm once more and oneDNN's (T-thread) result against it */
    const size_t nout = nout_of(b, d);
    float *keep = malloc(nout * sizeof(float));
    int same = -1;
    set_threads(1);
    if (keep && fd_call(&fc[0]) == 0) {
        memcpy(keep, out_of(b, d, 1), nout * sizeof(float));
        set_threads(threads);
        if (fd_call(&fc[0]) == 0)
            same = memcmp(keep, out_of(b, d, 1), nout * sizeof(float)) == 0;
    }
    free(keep);
    set_threads(threads);
    if (same >= 0 && fd_call(&fc[1]))
        same = -1;
    double diff;
    if (same < 0 || dnnl_call(&dp[1]) || onednn_output(&dp[1])) {
        print_failed(name, d, "final calls");
        fail = 1;
        goto done;
    }
    fail = check_diff(b, d, &diff);
    double eff[2], lo[2], hi[2], m[2][2];
    for (int lib = 0; lib < 2; lib++) {
        double ratio[MAX_REPS];
        for (int r = 0; r < opt_reps; r++)
            ratio[r] = t[lib][0][r] / t[lib][1][r];
        m[lib][0] = median_of(t[lib][0], opt_reps), m[lib][1] = median_of(t[lib][1], opt_reps);
        eff[lib] = m[lib][0] / m[lib][1];
        lo[lib] = min_of(ratio, opt_reps), hi[lib] = max_of(ratio, opt_reps);
    }
    char algos[48];
    snprintf(algos, sizeof algos, "%s/%s", algo_name(d, fc[0].algo), algo_name(d, fc[1].algo));
    printf("%-44s %-10s %9.3f %9.3f %6.2f %5.2f-%-5.2f %9.3f %9.3f %6.2f %5.2f-%-5.2f %-4s "
           "%-30s %-28s %.2e  # %s\n",
           name, dir_names[d], m[0][0] * 1e3, m[0][1] * 1e3, eff[0], lo[0], hi[0], m[1][0] * 1e3,
           m[1][1] * 1e3, eff[1], lo[1], hi[1], same ? "same" : "DIFF", algos, dp[1].impl, diff,
           s->tag);
    if (fail)
        printf("#   results differ (max |diff| / max |value| %.3g > 1e-3)\n", diff);
    fflush(stdout);
    if (!fail) {
        sum->od_eff += log(eff[0]), sum->od_lo += log(lo[0]), sum->od_hi += log(hi[0]);
        sum->fd_eff += log(eff[1]), sum->fd_lo += log(lo[1]), sum->fd_hi += log(hi[1]);
        sum->speed1 += log(m[0][0] / m[1][0]), sum->speedt += log(m[0][1] / m[1][1]);
        sum->count++;
    }
done:
    for (int i = 0; i < have_f; i++)
        freednn_free(&fc[i]);
    for (int i = 0; i < have_d; i++)
        onednn_free(&dp[i]);
    return fail;
}

int main(int argc, char **argv)
{
    const char *file = NULL, *dirs = "fwd,bwd_data,bwd_filter", *only = NULL;
    int64_t opt_n = 0;
    int threads = 0, efficiency = 0;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--n=", 4) == 0)
            opt_n = strtoll(argv[i] + 4, NULL, 10);
        else if (strncmp(argv[i], "--threads=", 10) == 0)
            threads = atoi(argv[i] + 10);
        else if (strncmp(argv[i], "--dirs=", 7) == 0)
            dirs = argv[i] + 7;
        else if (strncmp(argv[i], "--only=", 7) == 0)
            only = argv[i] + 7;
        else if (strncmp(argv[i], "--min-time=", 11) == 0)
            opt_min_time = atof(argv[i] + 11);
        else if (strncmp(argv[i], "--settle=", 9) == 0)
            opt_settle = atof(argv[i] + 9);
        else if (strncmp(argv[i], "--calls=", 8) == 0)
            opt_calls = atoi(argv[i] + 8);
        else if (strncmp(argv[i], "--reps=", 7) == 0)
            opt_reps = atoi(argv[i] + 7);
        else if (strcmp(argv[i], "--efficiency") == 0)
            efficiency = 1;
        else if (strcmp(argv[i], "--stat=min") == 0 || strcmp(argv[i], "--stat=median") == 0)
            opt_stat_min = argv[i][7] == 'm' && argv[i][8] == 'i';
        else if (argv[i][0] == '-' || file)
            usage();
        else
            file = argv[i];
    }
    if (!file || opt_reps < 1 || opt_reps > MAX_REPS || opt_calls < 1 || threads < 0)
        usage();
    if (efficiency && threads == 0)
        threads = 2;
    if (efficiency && threads < 2) {
        fprintf(stderr, "--efficiency compares 1 thread with --threads=T, T >= 2\n");
        return 2;
    }
    if (threads > 0 && !getenv("FD_COMPARE_REEXEC")) {
        char t[32];
        snprintf(t, sizeof t, "%d", threads);
        setenv("OMP_NUM_THREADS", t, 1);
        setenv("OPENBLAS_NUM_THREADS", t, 1);
        /* bound OpenMP threads, one per core, unless the caller chose (see the header) */
        setenv("OMP_PROC_BIND", "spread", 0);
        setenv("OMP_PLACES", "cores", 0);
        setenv("FD_COMPARE_REEXEC", "1", 1);
        execv("/proc/self/exe", argv);
        perror("execv /proc/self/exe");
        return 1;
    }
    setenv("FREEDNN_TUNE_CACHE", "off", 0);
    if (efficiency) {
        *(void **)&blas_set_threads = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
        if (!blas_set_threads)
            fprintf(stderr, "warning: no openblas_set_num_threads in the process: freednn's "
                            "BLAS keeps its thread count\n");
    }
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
    cudnnHandle_t h[2] = {NULL, NULL};
    for (int i = 0; i < 1 + efficiency; i++)
        if (freednnCreateWithBackend(&h[i], FREEDNN_BACKEND_CPU) != CUDNN_STATUS_SUCCESS) {
            fprintf(stderr, "freednn: no cpu handle\n");
            return 1;
        }
    const dnnl_version_t *ver = dnnl_version();
    print_load("start", " (a shared machine: other work skews both columns)");
    printf("# onednn_vs_freednn %s n=%lld threads=%s (OMP_NUM_THREADS=%s) oneDNN %d.%d.%d "
           "freednn %zu; layouts: oneDNN its preferred (format any, reorders untimed), freednn "
           "NCHW; reps=%d interleaved samples, each the %s of >= %d calls and >= %.2f s; "
           "settle %.2f s\n",
           file, (long long)opt_n, threads ? "set" : "inherited",
           getenv("OMP_NUM_THREADS") ? getenv("OMP_NUM_THREADS") : "unset", ver->major,
           ver->minor, ver->patch, freednnGetVersion(), opt_reps, opt_stat_min ? "min" : "median",
           opt_calls, opt_min_time,
           opt_settle);
    if (efficiency) {
        printf("# efficiency = median time at 1 thread / median time at %d threads; lo-hi: "
               "range over reps of the paired ratios; bits: freednn's output at 1 and %d "
               "threads, algorithm of the 1-thread Find\n",
               threads, threads);
        printf("%-44s %-10s %9s %9s %6s %-11s %9s %9s %6s %-11s %-4s %-30s %-28s %s\n",
               "# shape", "dir", "onednn_t1", "onednn_tT", "eff", "lo-hi", "freednn_t1",
               "freednn_tT", "eff", "lo-hi", "bits", "freednn_algo_t1/tT", "onednn_impl",
               "max_rel_diff");
    } else {
        printf("# time = median over reps of the samples (ms); spd_lo-hi: range of the paired "
               "per-rep speedups; *_min: fastest sample\n");
        printf("%-44s %-10s %10s %10s %8s %-13s %10s %10s  %-22s %-28s %s\n", "# shape", "dir",
               "onednn_ms", "freednn_ms", "speedup", "spd_lo-hi", "onednn_min", "freednn_min",
               "freednn_algo", "onednn_impl", "max_rel_diff");
    }
    sums_t sum[DIR_COUNT];
    memset(sum, 0, sizeof sum);
    int lineno = 0, failures = 0;
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
        char name[256];
        snprintf(name, sizeof name, "n%lldc%lldh%lldw%lldk%lldr%llds%lldp%lldu%lldl%lldg%lld",
                 (long long)s.n, (long long)s.c, (long long)s.h, (long long)s.w, (long long)s.k,
                 (long long)s.r, (long long)s.s, (long long)s.ph, (long long)s.sh,
                 (long long)s.dh, (long long)s.g);
        if (only && !strstr(name, only) && !strstr(s.tag, only))
            continue;
        int64_t oh = out_dim(s.h, s.ph, s.r, s.dh, s.sh), ow = out_dim(s.w, s.pw, s.s, s.dw, s.sw);
        bufs_t b;
        b.nx = (size_t)(s.n * s.c * s.h * s.w), b.ny = (size_t)(s.n * s.k * oh * ow);
        b.nw = (size_t)(s.k * (s.c / s.g) * s.r * s.s);
        for (int l = 0; l < 2; l++) {
            b.x[l] = alloc64(b.nx * sizeof(float));
            b.w[l] = alloc64(b.nw * sizeof(float));
            b.y[l] = alloc64(b.ny * sizeof(float));
            if (!b.x[l] || !b.w[l] || !b.y[l]) {
                fprintf(stderr, "out of memory\n");
                return 1;
            }
        }
        for (int d = 0; d < DIR_COUNT; d++) {
            if (!want[d])
                continue;
            for (int l = 0; l < 2; l++) {
                fill(b.x[l], b.nx, 1), fill(b.w[l], b.nw, 2), fill(b.y[l], b.ny, 3);
            }
            failures += efficiency ? efficiency_one(&e, h, threads, &s, name, d, &b, &sum[d])
                                   : compare_one(&e, h[0], &s, name, d, &b, &sum[d]);
        }
        for (int l = 0; l < 2; l++)
            free(b.x[l]), free(b.w[l]), free(b.y[l]);
    }
    fclose(f);
    print_load("end", "");
    for (int d = 0; d < DIR_COUNT; d++) {
        if (!want[d])
            continue;
        const double c = sum[d].count ? sum[d].count : 1;
        if (efficiency) {
            printf("geomean %s efficiency freednn=%.3f [%.3f-%.3f] onednn=%.3f [%.3f-%.3f] "
                   "n=%d\n",
                   dir_names[d], exp(sum[d].fd_eff / c), exp(sum[d].fd_lo / c),
                   exp(sum[d].fd_hi / c), exp(sum[d].od_eff / c), exp(sum[d].od_lo / c),
                   exp(sum[d].od_hi / c), sum[d].count);
            printf("geomean %s speedup_t1=%.3f speedup_t%d=%.3f n=%d\n", dir_names[d],
                   exp(sum[d].speed1 / c), threads, exp(sum[d].speedt / c), sum[d].count);
        } else {
            printf("geomean %s speedup=%.3f n=%d\n", dir_names[d],
                   sum[d].count ? exp(sum[d].speed / c) : 0.0, sum[d].count);
        }
    }
    for (int i = 0; i < 2; i++)
        if (h[i])
            cudnnDestroy(h[i]);
    dnnl_stream_destroy(e.strm);
    dnnl_engine_destroy(e.eng);
    return failures ? 1 : 0;
}
