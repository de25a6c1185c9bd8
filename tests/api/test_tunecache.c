/* SPDX-License-Identifier: MIT */
/*
 * test_tunecache.c - tuning that lasts (DESIGN D5, docs/tuning.md), across processes: the test
 * runs itself again (/proc/self/exe child ...) with a chosen environment and reads what the
 * children print (perf lists on stdout; FREEDNN_TUNE_CACHE_STATS counters and warnings on stderr).
 *
 * - reuse: a first Find writes one record; a second process answers from it without timing,
 *   with the same times; Find*Ex answered from the cache still computes y;
 * - the default location ($XDG_CACHE_HOME/freednn, else $HOME/.cache/freednn);
 * - damage (random bytes, a cut line, a wrong version header, a failed checksum, a garbage line):
 *   a warning at CUDNN_LOGLEVEL_DBG=2, no error, then the file is rewritten in the right format;
 * - 4 processes writing 8 problems each at once: all 32 records (and a foreign one) survive;
 * - FREEDNN_TUNE_CACHE=off writes nothing; an unwritable location only warns;
 * - Get*Algorithm_v7 follows the cached times.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd_test.h"

#define HEADER "freednn-tune-cache v1"

/* ---- the child side --------------------------------------------------------------------- */

#define CK(expr)                                                                                   \
    do {                                                                                           \
        cudnnStatus_t st_ = (expr);                                                                \
        if (st_ != CUDNN_STATUS_SUCCESS) {                                                         \
            char msg_[512];                                                                        \
            cudnnGetLastErrorString(msg_, sizeof msg_);                                            \
            fprintf(stderr, "child: %s: %s (%s)\n", #expr, cudnnGetErrorString(st_), msg_);        \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

typedef struct {
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    size_t xn, wn, yn; /* elements */
} prob_t;

/* Problem v: 1 x C x HW x HW, K = 2, 3x3, pad 1; C and HW vary with v so 32 variants differ. */
static void prob_make(prob_t *pb, int v)
{
    int c = 1 + v % 4, hw = 5 + v / 4, k = 2, n, kk, p, q;
    CK(cudnnCreateTensorDescriptor(&pb->x));
    CK(cudnnCreateTensorDescriptor(&pb->y));
    CK(cudnnCreateFilterDescriptor(&pb->w));
    CK(cudnnCreateConvolutionDescriptor(&pb->conv));
    CK(cudnnSetTensor4dDescriptor(pb->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, c, hw, hw));
    CK(cudnnSetFilter4dDescriptor(pb->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, 3, 3));
    CK(cudnnSetConvolution2dDescriptor(pb->conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                       CUDNN_DATA_FLOAT));
    CK(cudnnGetConvolution2dForwardOutputDim(pb->conv, pb->x, pb->w, &n, &kk, &p, &q));
    CK(cudnnSetTensor4dDescriptor(pb->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, kk, p, q));
    pb->xn = (size_t)c * hw * hw, pb->wn = (size_t)k * c * 9, pb->yn = (size_t)n * kk * p * q;
}

static void prob_free(prob_t *pb)
{
    cudnnDestroyTensorDescriptor(pb->x), cudnnDestroyTensorDescriptor(pb->y);
    cudnnDestroyFilterDescriptor(pb->w), cudnnDestroyConvolutionDescriptor(pb->conv);
}

static void print_perf(const char *tag, int n, const cudnnConvolutionFwdAlgoPerf_t *pf)
{
    for (int i = 0; i < n; i++)
        printf("%s %d %d %.9g %zu\n", tag, (int)pf[i].algo, (int)pf[i].status, (double)pf[i].time,
               pf[i].memory);
}

/* Find (or Get_v7) of one direction; the three perf structs share one layout. */
static int query(cudnnHandle_t h, const prob_t *pb, const char *dir, int get,
                 cudnnConvolutionFwdAlgoPerf_t *pf)
{
    int n = 0;
    if (strcmp(dir, "fwd") == 0)
        CK(get ? cudnnGetConvolutionForwardAlgorithm_v7(h, pb->x, pb->w, pb->conv, pb->y, 16, &n,
                                                        pf)
               : cudnnFindConvolutionForwardAlgorithm(h, pb->x, pb->w, pb->conv, pb->y, 16, &n,
                                                      pf));
    else if (strcmp(dir, "bwd_data") == 0)
        CK(get ? cudnnGetConvolutionBackwardDataAlgorithm_v7(
                     h, pb->w, pb->y, pb->conv, pb->x, 16, &n,
                     (cudnnConvolutionBwdDataAlgoPerf_t *)pf)
               : cudnnFindConvolutionBackwardDataAlgorithm(
                     h, pb->w, pb->y, pb->conv, pb->x, 16, &n,
                     (cudnnConvolutionBwdDataAlgoPerf_t *)pf));
    else
        CK(get ? cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                     h, pb->x, pb->y, pb->conv, pb->w, 16, &n,
                     (cudnnConvolutionBwdFilterAlgoPerf_t *)pf)
               : cudnnFindConvolutionBackwardFilterAlgorithm(
                     h, pb->x, pb->y, pb->conv, pb->w, 16, &n,
                     (cudnnConvolutionBwdFilterAlgoPerf_t *)pf));
    return n;
}

/* Find*Ex forward into a poisoned y; prints the list and whether y equals a plain forward. */
static void child_findex(cudnnHandle_t h, const prob_t *pb)
{
    float *x = malloc(pb->xn * 4), *w = malloc(pb->wn * 4), *y = malloc(pb->yn * 4),
          *want = malloc(pb->yn * 4);
    for (size_t i = 0; i < pb->xn; i++)
        x[i] = (float)((int)(i * 7 % 11) - 5);
    for (size_t i = 0; i < pb->wn; i++)
        w[i] = (float)((int)(i * 5 % 7) - 3);
    size_t ws = 0;
    for (int a = 0; a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; a++) {
        size_t s = 0;
        if (cudnnGetConvolutionForwardWorkspaceSize(h, pb->x, pb->w, pb->conv, pb->y,
                                                    (cudnnConvolutionFwdAlgo_t)a,
                                                    &s) == CUDNN_STATUS_SUCCESS &&
            s > ws)
            ws = s;
    }
    void *work = ws ? malloc(ws) : NULL;
    float one = 1, zero = 0;
    CK(cudnnConvolutionForward(h, &one, pb->x, x, pb->w, w, pb->conv,
                               CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, work, ws, &zero, pb->y,
                               want));
    memset(y, 0xff, pb->yn * 4);
    cudnnConvolutionFwdAlgoPerf_t pf[16];
    int n = 0;
    CK(cudnnFindConvolutionForwardAlgorithmEx(h, pb->x, x, pb->w, w, pb->conv, pb->y, y, 16, &n, pf,
                                              work, ws));
    print_perf("perf", n, pf);
    printf("y_ok %d\n", memcmp(y, want, pb->yn * 4) == 0);
    free(x), free(w), free(y), free(want), free(work);
}

/* child ACTION DIR VARIANT [COUNT]: find | find2 (twice, one handle) | findget (Find, then
 * Get_v7 on the handle) | get | findex | many (COUNT variants from VARIANT). */
static int child_main(int argc, char **argv)
{
    if (argc < 5)
        return 3;
    const char *action = argv[2], *dir = argv[3];
    int v = atoi(argv[4]);
    const char *barrier = getenv("TC_BARRIER_FD");
    if (barrier != NULL) { /* wait until the parent closes the pipe: all writers start at once */
        char c;
        while (read(atoi(barrier), &c, 1) > 0)
            ;
    }
    cudnnHandle_t h;
    CK(freednnCreateWithBackend(&h, FREEDNN_BACKEND_REF));
    cudnnConvolutionFwdAlgoPerf_t pf[16];
    if (strcmp(action, "many") == 0) {
        int count = argc > 5 ? atoi(argv[5]) : 1;
        for (int i = 0; i < count; i++) {
            prob_t pb;
            prob_make(&pb, v + i);
            query(h, &pb, dir, 0, pf);
            prob_free(&pb);
        }
    } else {
        prob_t pb;
        prob_make(&pb, v);
        if (strcmp(action, "findex") == 0) {
            child_findex(h, &pb);
        } else {
            int get = strcmp(action, "get") == 0;
            print_perf("perf", query(h, &pb, dir, get, pf), pf);
            if (strcmp(action, "find2") == 0)
                print_perf("perf2", query(h, &pb, dir, 0, pf), pf);
            if (strcmp(action, "findget") == 0)
                print_perf("get", query(h, &pb, dir, 1, pf), pf);
        }
        prob_free(&pb);
    }
    CK(cudnnDestroy(h));
    fflush(stdout);
    return 0;
}

/* ---- the parent side -------------------------------------------------------------------- */

static char tmpdir[256];

typedef struct {
    char out[512], err[512];
    char *out_text, *err_text;
    unsigned long hits, misses, get_hits, stores;
    int have_stats, warned, rc;
} run_t;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, (cap *= 2) + 1);
    }
    fclose(f);
    buf[n] = '\0';
    if (len != NULL)
        *len = n;
    return buf;
}

static void spit(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        FD_EXPECT(0, "cannot write %s", path);
        return;
    }
    fwrite(data, 1, len, f);
    fclose(f);
}

/* Starts `child ARGS...` with env entries "NAME=value" (set) or "NAME" (unset). */
static pid_t spawn(run_t *r, const char *const *args, const char *const *env, int barrier_fd)
{
    static int serial;
    snprintf(r->out, sizeof r->out, "%s/run%d.out", tmpdir, serial);
    snprintf(r->err, sizeof r->err, "%s/run%d.err", tmpdir, serial++);
    fflush(stdout);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    const char *common[] = {"FREEDNN_TUNE_CACHE_STATS=1",
                            "CUDNN_LOGLEVEL_DBG=2",
                            "CUDNN_LOGDEST_DBG=stderr",
                            "FREEDNN_LOG_DISPATCH",
                            "FREEDNN_LOG_CMD",
                            "CUDNN_LOGINFO_DBG",
                            "TC_BARRIER_FD",
                            NULL};
    for (int pass = 0; pass < 2; pass++)
        for (const char *const *e = pass ? env : common; e != NULL && *e != NULL; e++) {
            const char *eq = strchr(*e, '=');
            if (eq == NULL) {
                unsetenv(*e);
            } else {
                char name[128];
                snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
                setenv(name, eq + 1, 1);
            }
        }
    if (barrier_fd >= 0) {
        char fd[16];
        snprintf(fd, sizeof fd, "%d", barrier_fd);
        setenv("TC_BARRIER_FD", fd, 1);
    }
    int o = open(r->out, O_WRONLY | O_CREAT | O_TRUNC, 0644),
        e = open(r->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1), dup2(e, 2);
    char *argv[16];
    int n = 0;
    argv[n++] = "test_tunecache";
    argv[n++] = "child";
    for (; args[n - 2] != NULL && n < 15; n++)
        argv[n] = (char *)args[n - 2];
    argv[n] = NULL;
    execv("/proc/self/exe", argv);
    _exit(127);
}

static void collect(run_t *r, pid_t pid)
{
    int status = 0;
    waitpid(pid, &status, 0);
    r->rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r->out_text = slurp(r->out, NULL);
    r->err_text = slurp(r->err, NULL);
    if (r->out_text == NULL)
        r->out_text = strdup("");
    if (r->err_text == NULL)
        r->err_text = strdup("");
    const char *s = strstr(r->err_text, "freednn: tune cache: ");
    r->have_stats =
        s != NULL &&
        sscanf(s, "freednn: tune cache: find_hits=%lu find_misses=%lu get_hits=%lu stores=%lu",
               &r->hits, &r->misses, &r->get_hits, &r->stores) == 4;
    r->warned = strstr(r->err_text, "W! CuDNN") != NULL &&
                strstr(r->err_text, "freednn tuning cache") != NULL;
}

static void run_free(run_t *r)
{
    free(r->out_text), free(r->err_text);
    r->out_text = r->err_text = NULL;
}

static run_t run(const char *what, const char *const *args, const char *const *env)
{
    run_t r;
    memset(&r, 0, sizeof r);
    collect(&r, spawn(&r, args, env, -1));
    FD_EXPECT(r.rc == 0 && r.have_stats, "%s: child exit %d, stats %s; stderr:\n%s", what, r.rc,
              r.have_stats ? "printed" : "missing", r.err_text);
    return r;
}

static uint32_t fnv1a32(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* Records of a cache file: -1 when the header is wrong or any line is malformed (5 tab fields,
 * the checksum of the first four), else their number; line i copied to lines[i] if given. */
static int check_file(const char *path, char lines[][4200], int max)
{
    size_t len;
    char *buf = slurp(path, &len);
    if (buf == NULL)
        return -1;
    int n = 0, bad = strncmp(buf, HEADER "\n", strlen(HEADER) + 1) != 0 || strlen(buf) != len;
    for (char *line = strchr(buf, '\n'); !bad && line != NULL && line[1] != '\0';) {
        line++;
        char *end = strchr(line, '\n');
        if (end == NULL) {
            bad = 1;
            break;
        }
        *end = '\0';
        if (line[0] != '#') {
            char *tab = strrchr(line, '\t');
            int tabs = 0;
            for (char *c = line; *c; c++)
                tabs += *c == '\t';
            char want[9];
            if (tab != NULL)
                snprintf(want, sizeof want, "%08x", (unsigned)fnv1a32(line, (size_t)(tab - line)));
            if (tabs != 4 || tab == NULL || strcmp(tab + 1, want) != 0)
                bad = 1;
            else if (lines != NULL && n < max)
                snprintf(lines[n], sizeof lines[n], "%s", line);
            n++;
        }
        line = end;
    }
    free(buf);
    return bad ? -1 : n;
}

/* The "TAG A S T M" lines of a child's stdout with the given tag, as one string without tags. */
static void perf_lines(const char *out, const char *tag, char *dst, size_t size)
{
    dst[0] = '\0';
    size_t tl = strlen(tag), used = 0;
    for (const char *l = out; *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) + 1 : strlen(l);
        if (strncmp(l, tag, tl) == 0 && l[tl] == ' ' && used + n < size) {
            memcpy(dst + used, l + tl, n - tl); /* without the tag */
            used += n - tl;
            dst[used] = '\0';
        }
        l += n;
    }
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void test_reuse(void)
{
    char path[512], env0[600];
    snprintf(path, sizeof path, "%s/reuse.txt", tmpdir);
    snprintf(env0, sizeof env0, "FREEDNN_TUNE_CACHE=%s", path);
    const char *env[] = {env0, NULL};
    const char *find_fwd[] = {"find", "fwd", "0", NULL};

    run_t a = run("first Find", find_fwd, env);
    FD_EXPECT(a.misses == 1 && a.hits == 0 && a.stores == 1,
              "first Find: hits %lu misses %lu stores %lu", a.hits, a.misses, a.stores);
    FD_EXPECT(!a.warned, "first Find warned:\n%s", a.err_text);
    FD_EXPECT(check_file(path, NULL, 0) == 1, "after the first Find the file holds %d records",
              check_file(path, NULL, 0));

    run_t b = run("second process", find_fwd, env);
    FD_EXPECT(b.hits == 1 && b.misses == 0 && b.stores == 0,
              "second process: hits %lu misses %lu stores %lu (expected an answer without timing)",
              b.hits, b.misses, b.stores);
    char pa[2048], pb[2048];
    perf_lines(a.out_text, "perf", pa, sizeof pa);
    perf_lines(b.out_text, "perf", pb, sizeof pb);
    FD_EXPECT(pa[0] != '\0' && strcmp(pa, pb) == 0,
              "the cached ranking differs from the measured one:\n%s---\n%s", pa, pb);

    const char *findex[] = {"findex", "fwd", "0", NULL};
    run_t c = run("Find*Ex from the cache", findex, env);
    FD_EXPECT(c.hits == 1 && c.misses == 0, "Find*Ex: hits %lu misses %lu", c.hits, c.misses);
    FD_EXPECT(strstr(c.out_text, "y_ok 1") != NULL, "Find*Ex from the cache left a wrong y:\n%s",
              c.out_text);

    const char *findex1[] = {"findex", "fwd", "1", NULL}; /* a timed Find*Ex fills y as well */
    run_t d = run("timed Find*Ex", findex1, env);
    FD_EXPECT(d.misses == 1 && strstr(d.out_text, "y_ok 1") != NULL,
              "timed Find*Ex: misses %lu, %s", d.misses, d.out_text);

    const char *bd[] = {"find", "bwd_data", "0", NULL}, *bf[] = {"find", "bwd_filter", "0", NULL};
    run_t e = run("bwd_data", bd, env), f = run("bwd_filter", bf, env);
    FD_EXPECT(e.misses == 1 && f.misses == 1, "backward directions: misses %lu %lu", e.misses,
              f.misses);
    FD_EXPECT(check_file(path, NULL, 0) == 4, "4 records expected, the file holds %d",
              check_file(path, NULL, 0));
    run_t g = run("bwd_filter again", bf, env);
    FD_EXPECT(g.hits == 1 && g.misses == 0, "bwd_filter from the cache: hits %lu misses %lu",
              g.hits, g.misses);

    run_t *all[] = {&a, &b, &c, &d, &e, &f, &g};
    for (int i = 0; i < 7; i++)
        run_free(all[i]);
}

static void test_default_location(void)
{
    char xdg[512], home[512], f1[600], f2[600], e1[600], e2[600];
    snprintf(xdg, sizeof xdg, "%s/xdg", tmpdir);
    snprintf(home, sizeof home, "%s/home", tmpdir);
    snprintf(f1, sizeof f1, "%s/freednn/tune-v1.txt", xdg);
    snprintf(f2, sizeof f2, "%s/.cache/freednn/tune-v1.txt", home);
    snprintf(e1, sizeof e1, "XDG_CACHE_HOME=%s", xdg);
    snprintf(e2, sizeof e2, "HOME=%s", home);
    const char *find_fwd[] = {"find", "fwd", "0", NULL};
    const char *env_xdg[] = {"FREEDNN_TUNE_CACHE", e1, e2, NULL};
    run_t a = run("XDG_CACHE_HOME", find_fwd, env_xdg);
    FD_EXPECT(check_file(f1, NULL, 0) == 1 && !exists(f2),
              "XDG_CACHE_HOME: %s holds %d records, %s %s", f1, check_file(f1, NULL, 0), f2,
              exists(f2) ? "exists" : "absent");
    const char *env_home[] = {"FREEDNN_TUNE_CACHE", "XDG_CACHE_HOME=relative/is/ignored", e2, NULL};
    run_t b = run("HOME", find_fwd, env_home);
    FD_EXPECT(check_file(f2, NULL, 0) == 1, "HOME: %s holds %d records", f2,
              check_file(f2, NULL, 0));
    FD_EXPECT(!exists("relative"), "a relative XDG_CACHE_HOME was used");
    run_free(&a), run_free(&b);
}

/* Damages a copy of a good file, checks the warning, the status, and the rewrite. */
static void damaged(const char *what, const char *content, size_t len, const char *dir,
                    int expect_hit)
{
    char path[512], env0[600];
    snprintf(path, sizeof path, "%s/damaged.txt", tmpdir);
    snprintf(env0, sizeof env0, "FREEDNN_TUNE_CACHE=%s", path);
    spit(path, content, len);
    const char *env[] = {env0, NULL};
    const char *args[] = {"find", dir, "0", NULL};
    run_t a = run(what, args, env);
    FD_EXPECT(a.warned, "%s: no warning at CUDNN_LOGLEVEL_DBG=2; stderr:\n%s", what, a.err_text);
    FD_EXPECT(expect_hit ? a.hits == 1 && a.misses == 0 : a.misses == 1 && a.stores == 1,
              "%s: hits %lu misses %lu stores %lu", what, a.hits, a.misses, a.stores);
    if (!expect_hit) {
        int n = check_file(path, NULL, 0);
        FD_EXPECT(n >= 1, "%s: the file was not rewritten in the right format (%d)", what, n);
        run_t b = run(what, args, env);
        FD_EXPECT(!b.warned && b.hits == 1 && b.misses == 0,
                  "%s, then: warned %d hits %lu misses %lu", what, b.warned, b.hits, b.misses);
        run_free(&b);
    }
    run_free(&a);
}

static void test_damage(void)
{
    char good_path[512];
    snprintf(good_path, sizeof good_path, "%s/reuse.txt", tmpdir);
    size_t len;
    char *good = slurp(good_path, &len);
    if (good == NULL) {
        FD_EXPECT(0, "no good file to damage");
        return;
    }
    char *bytes = malloc(8192);
    fd_rng_t rng;
    fd_rng_seed(&rng, 42);
    for (int i = 0; i < 8192; i++)
        bytes[i] = (char)fd_rng_next(&rng);
    damaged("random bytes", bytes, 8192, "fwd", 0);

    /* the last record (bwd_filter) cut in the middle */
    char *last = good + len - 2;
    while (last > good && *last != '\n')
        last--;
    size_t cut = (size_t)(last - good) + (len - (size_t)(last - good)) / 2;
    damaged("cut line", good, cut, "bwd_filter", 0);
    FD_EXPECT(check_file(good_path, NULL, 0) == 4, "precondition");
    char *buf = malloc(len + 64);
    /* the same records under another version's header */
    int n = snprintf(buf, len + 64, "freednn-tune-cache v2\n%s", strchr(good, '\n') + 1);
    damaged("wrong version header", buf, (size_t)n, "fwd", 0);
    /* one character of the fwd record changed: the checksum fails */
    memcpy(buf, good, len);
    char *rec = strstr(buf, "\tfwd ");
    char *entries = rec ? strchr(rec + 1, '\t') : NULL;
    if (entries != NULL)
        entries[1] = entries[1] == '8' ? '7' : '8';
    damaged("failed checksum", buf, len, "fwd", 0);
    /* a garbage line among good ones: the others still answer */
    char *nl = strchr(good, '\n');
    n = snprintf(buf, len + 64, "%.*sthis is not a record\n%s", (int)(nl - good + 1), good, nl + 1);
    damaged("garbage line", buf, (size_t)n, "fwd", 1);
    free(buf), free(bytes), free(good);
}

static void test_concurrent(void)
{
    char path[512], env0[600];
    snprintf(path, sizeof path, "%s/concurrent.txt", tmpdir);
    snprintf(env0, sizeof env0, "FREEDNN_TUNE_CACHE=%s", path);
    /* a record of another machine, which every writer must keep */
    char foreign[512];
    int n = snprintf(foreign, sizeof foreign,
                     "cpu|Another CPU|cores=1|threads=1\t100:00000000\tfwd other\t1 0,0,1,0,1,0");
    char file[700];
    int len = snprintf(file, sizeof file, HEADER "\n%s\t%08x\n", foreign,
                       (unsigned)fnv1a32(foreign, (size_t)n));
    spit(path, file, (size_t)len);
    int fds[2];
    FD_EXPECT(pipe(fds) == 0, "pipe");
    fcntl(fds[1], F_SETFD, FD_CLOEXEC); /* only the parent may hold the write end */
    const char *env[] = {env0, NULL};
    run_t r[4];
    pid_t pid[4];
    char first[4][8];
    for (int i = 0; i < 4; i++) {
        memset(&r[i], 0, sizeof r[i]);
        snprintf(first[i], sizeof first[i], "%d", 8 * i);
        const char *args[] = {"many", "fwd", first[i], "8", NULL};
        pid[i] = spawn(&r[i], args, env, fds[0]);
    }
    close(fds[0]), close(fds[1]); /* go */
    for (int i = 0; i < 4; i++) {
        collect(&r[i], pid[i]);
        FD_EXPECT(r[i].rc == 0 && r[i].misses == 8 && r[i].stores == 8 && !r[i].warned,
                  "writer %d: exit %d misses %lu stores %lu warned %d\n%s", i, r[i].rc, r[i].misses,
                  r[i].stores, r[i].warned, r[i].err_text);
        run_free(&r[i]);
    }
    static char lines[40][4200];
    int got = check_file(path, lines, 40);
    FD_EXPECT(got == 33, "4 writers x 8 problems + 1 foreign record: the file holds %d records",
              got);
    int foreign_kept = 0, distinct = 1;
    for (int i = 0; i < got && i < 40; i++) {
        foreign_kept += strncmp(lines[i], foreign, (size_t)n) == 0;
        for (int j = 0; j < i; j++) {
            char *t1 = strrchr(lines[i], '\t'), *t2 = strrchr(lines[j], '\t');
            char *k1 = strchr(strchr(lines[i], '\t') + 1, '\t'),
                 *k2 = strchr(strchr(lines[j], '\t') + 1, '\t');
            if (t1 - k1 == t2 - k2 && strncmp(k1, k2, (size_t)(t1 - k1)) == 0 && i != j)
                distinct = 0;
        }
    }
    FD_EXPECT(foreign_kept == 1, "the foreign record was lost");
    FD_EXPECT(distinct, "a problem is recorded twice");
    DIR *d = opendir(tmpdir); /* no temporary file left behind */
    int leftovers = 0;
    for (struct dirent *de; d != NULL && (de = readdir(d)) != NULL;)
        leftovers += strncmp(de->d_name, "concurrent.txt.", 15) == 0 &&
                     strcmp(de->d_name, "concurrent.txt.lock") != 0;
    if (d != NULL)
        closedir(d);
    FD_EXPECT(leftovers == 0, "%d temporary files left beside the cache", leftovers);
}

static void test_off_and_unwritable(void)
{
    char xdg[512], home[512], e1[600], e2[600];
    snprintf(xdg, sizeof xdg, "%s/offxdg", tmpdir);
    snprintf(home, sizeof home, "%s/offhome", tmpdir);
    snprintf(e1, sizeof e1, "XDG_CACHE_HOME=%s", xdg);
    snprintf(e2, sizeof e2, "HOME=%s", home);
    const char *env[] = {"FREEDNN_TUNE_CACHE=off", e1, e2, NULL};
    const char *find2[] = {"find2", "fwd", "0", NULL};
    run_t a = run("off", find2, env);
    FD_EXPECT(
        a.misses == 1 && a.hits == 1 && strstr(a.err_text, "file=off") != NULL,
        "off: the second Find of the handle should come from the handle (hits %lu misses %lu)\n%s",
        a.hits, a.misses, a.err_text);
    run_t b = run("off, again", find2, env);
    FD_EXPECT(b.misses == 1, "off: a second process timed nothing (misses %lu)", b.misses);
    FD_EXPECT(!exists(xdg) && !exists(home),
              "off: something was written under XDG_CACHE_HOME or HOME");
    run_free(&a), run_free(&b);

    /* nowhere to put the file: a warning, and the handle keeps its results */
    const char *env_none[] = {"FREEDNN_TUNE_CACHE", "XDG_CACHE_HOME", "HOME", NULL};
    run_t d = run("no HOME", find2, env_none);
    FD_EXPECT(d.warned && d.misses == 1 && d.hits == 1 && strstr(d.err_text, "file=off") != NULL,
              "no HOME: warned %d hits %lu misses %lu\n%s", d.warned, d.hits, d.misses, d.err_text);
    run_free(&d);

    /* a location that cannot be created: a warning, never an error */
    char blocker[512], env0[700];
    snprintf(blocker, sizeof blocker, "%s/plainfile", tmpdir);
    spit(blocker, "x", 1);
    snprintf(env0, sizeof env0, "FREEDNN_TUNE_CACHE=%s/sub/tune.txt", blocker);
    const char *env_bad[] = {env0, NULL};
    const char *find_fwd[] = {"find", "fwd", "0", NULL};
    run_t c = run("unwritable", find_fwd, env_bad);
    FD_EXPECT(c.warned && c.misses == 1, "unwritable: warned %d misses %lu\n%s", c.warned, c.misses,
              c.err_text);
    run_free(&c);
}

static void test_get_v7(void)
{
    char path[512], env0[600];
    snprintf(path, sizeof path, "%s/reuse.txt", tmpdir);
    snprintf(env0, sizeof env0, "FREEDNN_TUNE_CACHE=%s", path);
    const char *env[] = {env0, NULL};
    const char *env_off[] = {"FREEDNN_TUNE_CACHE=off", NULL};
    const char *get[] = {"get", "fwd", "0", NULL};

    /* in one handle: Get_v7 after Find lists Find's order with Find's times */
    const char *findget[] = {"findget", "fwd", "0", NULL};
    run_t a = run("Find then Get_v7", findget, env_off);
    char pf[2048], pg[2048];
    perf_lines(a.out_text, "perf", pf, sizeof pf);
    perf_lines(a.out_text, "get", pg, sizeof pg);
    FD_EXPECT(pf[0] != '\0' && strcmp(pf, pg) == 0, "Get_v7 after Find:\n%s---\n%s", pf, pg);
    FD_EXPECT(a.get_hits == 1, "get_hits %lu", a.get_hits);

    /* across processes: rewrite the fwd record's times in reverse of the heuristic order */
    run_t h = run("heuristic", get, env_off);
    int heur[16], nh = 0;
    for (const char *l = h.out_text; nh < 16 && (l = strstr(l, "perf ")) != NULL; l++)
        heur[nh++] = atoi(l + 5);
    static char lines[8][4200];
    int n = check_file(path, lines, 8), fixed = 0;
    char file[16384];
    int len = snprintf(file, sizeof file, HEADER "\n");
    for (int i = 0; i < n && i < 8; i++) {
        char *f[5], *s = lines[i];
        for (int k = 0; k < 5; k++)
            f[k] = strsep(&s, "\t");
        if (f[4] == NULL || strncmp(f[2], "fwd n1c1d1h5w5 ", 15) != 0)
            continue;
        char rec[4200];
        int m = snprintf(rec, sizeof rec, "%s\t%s\t%s\t%d", f[0], f[1], f[2], nh);
        for (int k = 0; k < nh; k++) {
            int algo = heur[k], st, det, math;
            float t;
            size_t mem;
            char pat[8];
            snprintf(pat, sizeof pat, " %d,", algo);
            const char *e = strstr(f[3], pat);
            if (e == NULL ||
                sscanf(e + strlen(pat), "%d,%g,%zu,%d,%d", &st, &t, &mem, &det, &math) != 5)
                break;
            m += snprintf(rec + m, sizeof rec - (size_t)m, " %d,%d,%g,%zu,%d,%d", algo, st,
                          10.0 - k, mem, det, math);
        }
        len += snprintf(file + len, sizeof file - (size_t)len, "%s\t%08x\n", rec,
                        (unsigned)fnv1a32(rec, (size_t)m));
        fixed = 1;
    }
    FD_EXPECT(fixed && nh > 1, "no fwd record to rewrite (%d records, %d algorithms)", n, nh);
    spit(path, file, (size_t)len);
    run_t g = run("Get_v7 from the file", get, env);
    int got[16], ng = 0;
    float times[16];
    for (const char *l = g.out_text; ng < 16 && (l = strstr(l, "perf ")) != NULL; l++) {
        int st;
        sscanf(l + 5, "%d %d %g", &got[ng], &st, &times[ng]);
        ng++;
    }
    int reversed = ng == nh && !g.warned;
    for (int k = 0; reversed && k < nh; k++)
        reversed = got[k] == heur[nh - 1 - k] && times[k] == (float)(10.0 - (nh - 1 - k));
    FD_EXPECT(reversed && g.get_hits == 1,
              "Get_v7 does not follow the cached times (get_hits %lu):\n%s---\n%s", g.get_hits,
              h.out_text, g.out_text);
    run_free(&a), run_free(&h), run_free(&g);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int main(int argc, char **argv)
{
    alarm(120); /* a hang (a lost lock, a barrier never opened) fails instead of stalling ctest */
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return child_main(argc, argv);
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/fd-tunecache-XXXXXX",
             t != NULL && t[0] == '/' ? t : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        printf("cannot create a temporary directory: %s\n", strerror(errno));
        return 1;
    }
    test_reuse();
    test_default_location();
    test_damage();
    test_concurrent();
    test_off_and_unwritable();
    test_get_v7();
    int rc = fd_test_finish();
    if (rc == 0 || getenv("FD_TEST_KEEP") == NULL)
        nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    else
        printf("files kept in %s\n", tmpdir);
    return rc;
}
