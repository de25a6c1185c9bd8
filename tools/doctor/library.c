/* SPDX-License-Identifier: MIT */
/*
 * library.c - the checks on freednn itself: which backend a handle gets and why (check 4), a
 * smoke convolution on every backend that can run, compared bit for bit with ref on integer
 * data (check 6), and the identity of the loaded library (check 7).
 */
#define _GNU_SOURCE /* dladdr, dlinfo, RTLD_NEXT, memmem, strndup */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn.h"
#include "doctor.h"
#include "freednn.h"

static const freednnBackend_t backends[] = {FREEDNN_BACKEND_REF, FREEDNN_BACKEND_CPU,
                                            FREEDNN_BACKEND_CUDA};
#define NBACKENDS (int)(sizeof backends / sizeof backends[0])

static void last_error(char *buf, size_t size)
{
    buf[0] = '\0';
    cudnnGetLastErrorString(buf, size);
    size_t n = strlen(buf);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    if (n == 0)
        snprintf(buf, size, "(no reason recorded)");
}

/* The sentence of a recorded error without its "function: " prefix and " (STATUS, file:line)"
 * suffix, and after "cannot run here: " when present: the part a user acts on. */
static void short_reason(const char *full, char *buf, size_t size)
{
    const char *p = full, *colon = strstr(full, ": ");
    if (colon != NULL &&
        strspn(full, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
            (size_t)(colon - full))
        p = colon + 2;
    const char *here = strstr(p, "cannot run here: ");
    if (here != NULL)
        p = here + strlen("cannot run here: ");
    size_t n = strlen(p);
    const char *tail = strrchr(p, '(');
    if (tail != NULL && strncmp(tail, "(CUDNN_STATUS_", 14) == 0 && p[n - 1] == ')') {
        n = (size_t)(tail - p);
        while (n > 0 && p[n - 1] == ' ')
            n--;
    }
    snprintf(buf, size, "%.*s", (int)n, p);
}

/* ---- check 4: the backend a handle gets ---------------------------------------------------- */

void dr_check_backend(dr_ctx_t *ctx, dr_check_t *c)
{
    const char *env = getenv("FREEDNN_BACKEND");
    int forced = env != NULL && *env != '\0';
    if (forced)
        dr_note(c, "FREEDNN_BACKEND=%s", env);
    else
        dr_note(c, "FREEDNN_BACKEND is not set: cudnnCreate picks cuda when it can run, else cpu");
    dr_fact_str(c, "FREEDNN_BACKEND", forced ? env : NULL);

    char cuda_why[1024] = "";
    dr_buf_t avail = {0};
    dr_buf_printf(&avail, "{");
    for (int i = 0; i < NBACKENDS; i++) {
        const char *name = freednnGetBackendName(backends[i]);
        cudnnHandle_t h = NULL;
        cudnnStatus_t s = freednnCreateWithBackend(&h, backends[i]);
        char why[1024];
        if (s == CUDNN_STATUS_SUCCESS) {
            dr_note(c, "%-4s  available", name);
            cudnnDestroy(h);
        } else {
            char full[1024];
            last_error(full, sizeof full);
            short_reason(full, why, sizeof why);
            dr_note(c, "%-4s  cannot run: %s", name, why);
            if (backends[i] == FREEDNN_BACKEND_CUDA)
                snprintf(cuda_why, sizeof cuda_why, "%s", why);
        }
        dr_buf_printf(&avail, "%s\"%s\":%s", i ? "," : "", name,
                      s == CUDNN_STATUS_SUCCESS ? "true" : "false");
        if (backends[i] == FREEDNN_BACKEND_CUDA)
            ctx->cuda_backend_ok = s == CUDNN_STATUS_SUCCESS;
    }
    dr_buf_printf(&avail, "}");
    dr_fact_raw(c, "available", avail.s);
    dr_buf_free(&avail);

    cudnnHandle_t h = NULL;
    cudnnStatus_t s = cudnnCreate(&h);
    if (s != CUDNN_STATUS_SUCCESS) {
        char full[1024], why[1024];
        last_error(full, sizeof full);
        short_reason(full, why, sizeof why);
        dr_set(c, DR_FAIL, "cudnnCreate failed with %s: %s", cudnnGetErrorString(s), why);
        dr_note(c, "cudnnGetLastErrorString: %s", full);
        dr_fact_str(c, "default_backend", NULL);
        if (forced && strcmp(env, "ref") && strcmp(env, "cpu") && strcmp(env, "cuda"))
            dr_fix(
                c,
                "set FREEDNN_BACKEND to ref, cpu or cuda, or unset it to let cudnnCreate choose");
        else if (forced)
            dr_fix(c,
                   "unset FREEDNN_BACKEND or set it to cpu: backend %s cannot run here (see the "
                   "lines above, and the gpu and cuda_runtime checks)",
                   env);
        else
            dr_fix(c, "the reason above says what is missing; FREEDNN_BACKEND=cpu always works");
        return;
    }
    freednnBackend_t b = FREEDNN_BACKEND_DEFAULT;
    freednnGetBackend(h, &b);
    cudnnDestroy(h);
    const char *name = freednnGetBackendName(b);
    dr_fact_str(c, "default_backend", name);
    if (forced) {
        dr_set(c, DR_PASS, "cudnnCreate gives the %s backend: forced by FREEDNN_BACKEND", name);
    } else if (b == FREEDNN_BACKEND_CUDA) {
        dr_set(c, DR_PASS, "cudnnCreate gives the cuda backend: a GPU it can use is present");
    } else if (ctx->gpu_sm80_count > 0) {
        dr_set(c, DR_WARN, "cudnnCreate gives the %s backend although an sm_80+ GPU is present: %s",
               name, cuda_why);
        dr_fix(c, "build freednn with CUDA (cmake -DFREEDNN_CUDA=ON on a machine with nvcc) to use "
                  "the GPU; FREEDNN_BACKEND=cuda then makes a missing GPU an error instead of a "
                  "silent fallback");
    } else {
        dr_set(c, DR_PASS, "cudnnCreate gives the %s backend: cuda cannot run here (reason below)",
               name);
    }
}

/* ---- check 6: smoke convolution ------------------------------------------------------------ */

typedef struct {
    int n, c, h, w, k, r, s, pad_h, pad_w, str_h, str_w, dil_h, dil_w;
} shape_t;

static const shape_t shapes[] = {
    {2, 3, 7, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1}, /* 3x3, same padding */
    {1, 4, 9, 8, 2, 3, 2, 1, 0, 2, 1, 1, 2}, /* strided, dilated, asymmetric */
};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

enum { DIR_FWD, DIR_BWD_DATA, DIR_BWD_FILTER, NDIRS };
static const char *const dir_names[NDIRS] = {"fwd", "bwd-data", "bwd-filter"};

/* Host memory on ref/cpu, device memory (through the dlopen-ed runtime) on cuda. */
typedef struct {
    const dr_runtime_t *rt; /* NULL: host */
} mem_t;

static void *mem_alloc(const mem_t *m, size_t bytes)
{
    void *p = NULL;
    if (bytes == 0)
        return NULL;
    if (m->rt == NULL)
        return malloc(bytes);
    return m->rt->cudaMalloc(&p, bytes) == 0 ? p : NULL;
}

static void mem_free(const mem_t *m, void *p)
{
    if (p == NULL)
        return;
    if (m->rt == NULL)
        free(p);
    else
        m->rt->cudaFree(p);
}

static int mem_put(const mem_t *m, void *dst, const void *src, size_t bytes)
{
    if (m->rt == NULL) {
        memcpy(dst, src, bytes);
        return 0;
    }
    return m->rt->cudaMemcpy(dst, src, bytes, DR_CUDA_MEMCPY_H2D);
}

static int mem_get(const mem_t *m, void *dst, const void *src, size_t bytes)
{
    if (m->rt == NULL) {
        memcpy(dst, src, bytes);
        return 0;
    }
    return m->rt->cudaMemcpy(dst, src, bytes, DR_CUDA_MEMCPY_D2H);
}

static void fill_int(float *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = (float)((int)(seed >> 26) % 5 - 2); /* -2..2: every sum is exact in float */
    }
}

typedef struct {
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    size_t xn, wn, yn;
    float *x, *w, *dy;  /* host inputs */
    float *want[NDIRS]; /* the independent loop's y, dx, dw: what ref must give */
    float *ref[NDIRS];  /* what ref gave: what every other backend must give */
} problem_t;

static int problem_init(problem_t *p, const shape_t *s, char *err, size_t errsize)
{
    memset(p, 0, sizeof *p);
    int n, k, pp, q;
    if (cudnnCreateTensorDescriptor(&p->xd) || cudnnCreateTensorDescriptor(&p->yd) ||
        cudnnCreateFilterDescriptor(&p->wd) || cudnnCreateConvolutionDescriptor(&p->cd) ||
        cudnnSetTensor4dDescriptor(p->xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, s->n, s->c, s->h,
                                   s->w) ||
        cudnnSetFilter4dDescriptor(p->wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, s->k, s->c, s->r,
                                   s->s) ||
        cudnnSetConvolution2dDescriptor(p->cd, s->pad_h, s->pad_w, s->str_h, s->str_w, s->dil_h,
                                        s->dil_w, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT) ||
        cudnnGetConvolution2dForwardOutputDim(p->cd, p->xd, p->wd, &n, &k, &pp, &q) ||
        cudnnSetTensor4dDescriptor(p->yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, k, pp, q)) {
        char why[512];
        last_error(why, sizeof why);
        snprintf(err, errsize, "describing the problem failed: %s", why);
        return -1;
    }
    p->xn = (size_t)s->n * s->c * s->h * s->w;
    p->wn = (size_t)s->k * s->c * s->r * s->s;
    p->yn = (size_t)n * k * pp * q;
    p->x = malloc(p->xn * sizeof(float));
    p->w = malloc(p->wn * sizeof(float));
    p->dy = malloc(p->yn * sizeof(float));
    p->want[DIR_FWD] = calloc(p->yn, sizeof(float));
    p->want[DIR_BWD_DATA] = calloc(p->xn, sizeof(float));
    p->want[DIR_BWD_FILTER] = calloc(p->wn, sizeof(float));
    p->ref[DIR_FWD] = malloc(p->yn * sizeof(float));
    p->ref[DIR_BWD_DATA] = malloc(p->xn * sizeof(float));
    p->ref[DIR_BWD_FILTER] = malloc(p->wn * sizeof(float));
    if (!p->x || !p->w || !p->dy || !p->want[0] || !p->want[1] || !p->want[2] || !p->ref[0] ||
        !p->ref[1] || !p->ref[2]) {
        snprintf(err, errsize, "out of host memory");
        return -1;
    }
    fill_int(p->x, p->xn, 1);
    fill_int(p->w, p->wn, 2);
    fill_int(p->dy, p->yn, 3);
    /* The definition, one multiply-add at a time: the oracle ref is checked against. */
    for (int in = 0; in < n; in++)
        for (int ik = 0; ik < k; ik++)
            for (int ip = 0; ip < pp; ip++)
                for (int iq = 0; iq < q; iq++)
                    for (int ic = 0; ic < s->c; ic++)
                        for (int ir = 0; ir < s->r; ir++)
                            for (int is = 0; is < s->s; is++) {
                                int hh = ip * s->str_h - s->pad_h + ir * s->dil_h;
                                int ww = iq * s->str_w - s->pad_w + is * s->dil_w;
                                if (hh < 0 || hh >= s->h || ww < 0 || ww >= s->w)
                                    continue;
                                size_t xi = (((size_t)in * s->c + ic) * s->h + hh) * s->w + ww;
                                size_t wi = (((size_t)ik * s->c + ic) * s->r + ir) * s->s + is;
                                size_t yi = (((size_t)in * k + ik) * pp + ip) * q + iq;
                                p->want[DIR_FWD][yi] += p->x[xi] * p->w[wi];
                                p->want[DIR_BWD_DATA][xi] += p->dy[yi] * p->w[wi];
                                p->want[DIR_BWD_FILTER][wi] += p->dy[yi] * p->x[xi];
                            }
    return 0;
}

static void problem_free(problem_t *p)
{
    cudnnDestroyTensorDescriptor(p->xd);
    cudnnDestroyTensorDescriptor(p->yd);
    cudnnDestroyFilterDescriptor(p->wd);
    cudnnDestroyConvolutionDescriptor(p->cd);
    free(p->x), free(p->w), free(p->dy);
    for (int d = 0; d < NDIRS; d++)
        free(p->want[d]), free(p->ref[d]);
}

/* 1 for the algorithms computed through a transform (FFT, Winograd), whose results on integer
 * data are not exactly the direct sum's. */
static int transform_algo(int dir, int algo)
{
    if (dir == DIR_FWD)
        return algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT ||
               algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING ||
               algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD ||
               algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
    if (dir == DIR_BWD_DATA)
        return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT ||
               algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING ||
               algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD ||
               algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
    return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT ||
           algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING ||
           algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
}

/* Every algorithm the _v7 heuristic offers for `dir`, run and compared exactly: on ref with the
 * definition (and its result kept), elsewhere with ref's result. Returns 0, or -1 with `err`
 * set; counts into *ran. */
static int run_direction(cudnnHandle_t h, int is_ref, const mem_t *m, problem_t *p, int dir,
                         void *x, void *w, void *dy, void *out, float *host_out, int *ran,
                         char *err, size_t errsize)
{
    const float *expect = is_ref ? p->want[dir] : p->ref[dir];
    const char *oracle = is_ref ? "the definition" : "ref";
    const size_t out_n = dir == DIR_FWD ? p->yn : dir == DIR_BWD_DATA ? p->xn : p->wn;
    const float one = 1.0f, zero = 0.0f;
    int algos[16], nalgo = 0, got = 0;
    if (dir == DIR_FWD) {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        if (cudnnGetConvolutionForwardAlgorithm_v7(
                h, p->xd, p->wd, p->cd, p->yd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, perf) == 0)
            for (int i = 0; i < got; i++)
                if (perf[i].status == CUDNN_STATUS_SUCCESS)
                    algos[nalgo++] = (int)perf[i].algo;
    } else if (dir == DIR_BWD_DATA) {
        cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        if (cudnnGetConvolutionBackwardDataAlgorithm_v7(h, p->wd, p->yd, p->cd, p->xd,
                                                        CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got,
                                                        perf) == 0)
            for (int i = 0; i < got; i++)
                if (perf[i].status == CUDNN_STATUS_SUCCESS)
                    algos[nalgo++] = (int)perf[i].algo;
    } else {
        cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        if (cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, p->xd, p->yd, p->cd, p->wd,
                                                          CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
                                                          &got, perf) == 0)
            for (int i = 0; i < got; i++)
                if (perf[i].status == CUDNN_STATUS_SUCCESS)
                    algos[nalgo++] = (int)perf[i].algo;
    }
    if (nalgo == 0) {
        char why[512];
        last_error(why, sizeof why);
        snprintf(err, errsize, "%s: the _v7 heuristic offers no algorithm (%s)", dir_names[dir],
                 why);
        return -1;
    }
    for (int a = 0; a < nalgo; a++) {
        size_t ws_size = 0;
        cudnnStatus_t s;
        if (dir == DIR_FWD)
            s = cudnnGetConvolutionForwardWorkspaceSize(h, p->xd, p->wd, p->cd, p->yd, algos[a],
                                                        &ws_size);
        else if (dir == DIR_BWD_DATA)
            s = cudnnGetConvolutionBackwardDataWorkspaceSize(h, p->wd, p->yd, p->cd, p->xd,
                                                             algos[a], &ws_size);
        else
            s = cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p->xd, p->yd, p->cd, p->wd,
                                                               algos[a], &ws_size);
        void *ws = s == CUDNN_STATUS_SUCCESS ? mem_alloc(m, ws_size) : NULL;
        if (s == CUDNN_STATUS_SUCCESS && ws_size > 0 && ws == NULL) {
            snprintf(err, errsize, "%s algo %d: cannot allocate %zu bytes of workspace",
                     dir_names[dir], algos[a], ws_size);
            return -1;
        }
        /* Poison the output (all-ones bits: NaN) so an algorithm that writes nothing fails. */
        memset(host_out, 0xff, out_n * sizeof(float));
        if (s == CUDNN_STATUS_SUCCESS && mem_put(m, out, host_out, out_n * sizeof(float)) != 0)
            s = CUDNN_STATUS_EXECUTION_FAILED;
        if (s == CUDNN_STATUS_SUCCESS) {
            if (dir == DIR_FWD)
                s = cudnnConvolutionForward(h, &one, p->xd, x, p->wd, w, p->cd, algos[a], ws,
                                            ws_size, &zero, p->yd, out);
            else if (dir == DIR_BWD_DATA)
                s = cudnnConvolutionBackwardData(h, &one, p->wd, w, p->yd, dy, p->cd, algos[a], ws,
                                                 ws_size, &zero, p->xd, out);
            else
                s = cudnnConvolutionBackwardFilter(h, &one, p->xd, x, p->yd, dy, p->cd, algos[a],
                                                   ws, ws_size, &zero, p->wd, out);
        }
        mem_free(m, ws);
        if (s != CUDNN_STATUS_SUCCESS) {
            char why[512];
            last_error(why, sizeof why);
            snprintf(err, errsize, "%s algo %d failed with %s: %s", dir_names[dir], algos[a],
                     cudnnGetErrorString(s), why);
            return -1;
        }
        if (mem_get(m, host_out, out, out_n * sizeof(float)) != 0) {
            snprintf(err, errsize, "%s algo %d: copying the result back failed", dir_names[dir],
                     algos[a]);
            return -1;
        }
        /* exact, but for the transform algorithms (Winograd, FFT): their rounding is not the
         * direct sum's, so they get a small relative bound (docs/testing.md); NaN (the poison)
         * passes neither test */
        const double tol = transform_algo(dir, algos[a]) ? 1e-4 : 0.0;
        for (size_t i = 0; i < out_n; i++) {
            if (!(fabs((double)host_out[i] - (double)expect[i]) <=
                  tol * (1.0 + fabs((double)expect[i])))) {
                snprintf(err, errsize, "%s algo %d: element %zu is %g, %s gives %g", dir_names[dir],
                         algos[a], i, (double)host_out[i], oracle, (double)expect[i]);
                return -1;
            }
        }
        if (is_ref && a == 0)
            memcpy(p->ref[dir], host_out, out_n * sizeof(float));
        (*ran)++;
    }
    return 0;
}

/* One backend on every shape and direction; returns the algorithms run, or with `err` set: -1
 * (failed), -2 (backend unavailable), -3 (not compared: ref failed first). */
static int smoke_backend(dr_ctx_t *ctx, freednnBackend_t b, int ref_ok, problem_t *probs, char *err,
                         size_t errsize)
{
    cudnnHandle_t h = NULL;
    if (freednnCreateWithBackend(&h, b) != CUDNN_STATUS_SUCCESS) {
        char full[1024];
        last_error(full, sizeof full);
        short_reason(full, err, errsize);
        return -2;
    }
    if (b != FREEDNN_BACKEND_REF && !ref_ok) {
        snprintf(err, errsize, "not compared: ref, the oracle, failed");
        cudnnDestroy(h);
        return -3;
    }
    mem_t m = {b == FREEDNN_BACKEND_CUDA ? &ctx->rt : NULL};
    if (m.rt != NULL && m.rt->lib == NULL) {
        snprintf(err, errsize, "no CUDA runtime to allocate device memory with");
        cudnnDestroy(h);
        return -1;
    }
    int ran = 0, rc = 0;
    for (int si = 0; si < NSHAPES && rc == 0; si++) {
        problem_t *p = &probs[si];
        void *x = mem_alloc(&m, p->xn * 4), *w = mem_alloc(&m, p->wn * 4),
             *dy = mem_alloc(&m, p->yn * 4);
        void *out = mem_alloc(&m, (p->xn > p->yn ? (p->xn > p->wn ? p->xn : p->wn)
                                                 : (p->yn > p->wn ? p->yn : p->wn)) *
                                      4);
        float *host_out = malloc((p->xn + p->yn + p->wn) * 4);
        if (!x || !w || !dy || !out || !host_out || mem_put(&m, x, p->x, p->xn * 4) ||
            mem_put(&m, w, p->w, p->wn * 4) || mem_put(&m, dy, p->dy, p->yn * 4)) {
            snprintf(err, errsize, "cannot allocate or fill the buffers");
            rc = -1;
        }
        for (int d = 0; d < NDIRS && rc == 0; d++) {
            char e[768];
            if (run_direction(h, b == FREEDNN_BACKEND_REF, &m, p, d, x, w, dy, out, host_out, &ran,
                              e, sizeof e) != 0) {
                const shape_t *s = &shapes[si];
                snprintf(err, errsize, "n%dc%dh%dw%dk%dr%ds%d pad %d,%d stride %d,%d dil %d,%d: %s",
                         s->n, s->c, s->h, s->w, s->k, s->r, s->s, s->pad_h, s->pad_w, s->str_h,
                         s->str_w, s->dil_h, s->dil_w, e);
                rc = -1;
            }
        }
        mem_free(&m, x), mem_free(&m, w), mem_free(&m, dy), mem_free(&m, out);
        free(host_out);
    }
    cudnnDestroy(h);
    return rc == 0 ? ran : -1;
}

void dr_check_smoke_conv(dr_ctx_t *ctx, dr_check_t *c)
{
    problem_t probs[NSHAPES];
    char err[1024];
    int ready = 0;
    for (; ready < NSHAPES; ready++) {
        if (problem_init(&probs[ready], &shapes[ready], err, sizeof err) != 0) {
            dr_set(c, DR_FAIL, "%s", err);
            dr_fix(c, "the library rejects a plain convolution: rebuild it, and compare "
                      "cudnnGetVersion with the header (library check)");
            problem_free(&probs[ready]);
            goto cleanup;
        }
    }
    dr_note(c,
            "%d shapes x fwd, bwd-data, bwd-filter, every algorithm the _v7 heuristic offers, "
            "integer data; ref compared exactly with the definition computed here, the other "
            "backends with ref (exactly, but Winograd/FFT algorithms within 1e-4 relative)",
            NSHAPES);
    int failed = 0, ref_ok = 0;
    dr_buf_t js = {0}, which = {0};
    dr_buf_printf(&js, "{");
    for (int i = 0; i < NBACKENDS; i++) {
        const char *name = freednnGetBackendName(backends[i]);
        int ran = smoke_backend(ctx, backends[i], ref_ok, probs, err, sizeof err);
        if (backends[i] == FREEDNN_BACKEND_REF)
            ref_ok = ran >= 0;
        dr_buf_printf(&js, "%s\"%s\":", i ? "," : "", name);
        if (ran >= 0) {
            dr_note(c, "%-4s  identical to %s (%d algorithm runs)", name,
                    backends[i] == FREEDNN_BACKEND_REF ? "the definition" : "ref", ran);
            dr_buf_printf(&which, "%s%s", which.len ? ", " : "", name);
            dr_buf_printf(&js, "{\"status\":\"PASS\",\"runs\":%d}", ran);
        } else if ((ran == -2 && backends[i] == FREEDNN_BACKEND_CUDA) || ran == -3) {
            dr_note(c, "%-4s  not run: %s", name, err);
            dr_buf_printf(&js, "{\"status\":\"N/A\",\"reason\":");
            dr_buf_json_str(&js, err);
            dr_buf_printf(&js, "}");
        } else {
            failed++;
            dr_note(c, "%-4s  FAILED: %s", name, err);
            dr_buf_printf(&js, "{\"status\":\"FAIL\",\"reason\":");
            dr_buf_json_str(&js, err);
            dr_buf_printf(&js, "}");
        }
    }
    dr_buf_printf(&js, "}");
    dr_fact_raw(c, "backends", js.s);
    if (failed) {
        dr_set(c, DR_FAIL, "%d backend%s gave a wrong result or an error on a small convolution",
               failed, failed > 1 ? "s" : "");
        if (!ref_ok)
            dr_fix(
                c,
                "ref, the oracle, disagrees with the definition: the build is broken (a compiler "
                "flag such as -ffast-math, or a miscompile); rebuild and run `make test`");
        else
            dr_fix(c,
                   "this is a freednn bug or a broken build: rerun with FREEDNN_LOG_DISPATCH=1 to "
                   "see the implementation chosen, and report it with this output; "
                   "FREEDNN_BACKEND=ref is the slow but trusted fallback");
    } else {
        dr_set(c, DR_PASS, "small conv fwd/bwd-data/bwd-filter exact on %s", which.s);
    }
    dr_buf_free(&js);
    dr_buf_free(&which);
cleanup:
    for (int i = 0; i < ready; i++)
        problem_free(&probs[i]);
}

/* ---- check 7: library identity ------------------------------------------------------------- */

static const char *cudnn_version_str(size_t v, char *buf, size_t size)
{
    if (v >= 90000) /* cuDNN 9: major * 10000 + minor * 100 + patch */
        snprintf(buf, size, "%zu.%zu.%zu", v / 10000, v / 100 % 100, v % 100);
    else /* cuDNN 7 and 8: major * 1000 + minor * 100 + patch */
        snprintf(buf, size, "%zu.%zu.%zu", v / 1000, v / 100 % 10, v % 100);
    return buf;
}

/* The object the next definition of `sym` after this executable lives in (RTLD_NEXT skips a
 * canonical PLT address the executable may hold for it). */
static const char *defining_object(const char *sym, char *buf, size_t size)
{
    Dl_info info;
    void *addr = dlsym(RTLD_NEXT, sym);
    if (addr == NULL || dladdr(addr, &info) == 0 || info.dli_fname == NULL)
        return NULL;
    char real[4096];
    snprintf(buf, size, "%s", realpath(info.dli_fname, real) ? real : info.dli_fname);
    return buf;
}

void dr_check_library(dr_ctx_t *ctx, dr_check_t *c)
{
    (void)ctx;
    char fv[32], cv[32], hv[32], rv[32], ours[4096], create[4096];
    size_t f = freednnGetVersion(), v = cudnnGetVersion(), rt = cudnnGetCudartVersion();
    snprintf(fv, sizeof fv, "%zu.%zu.%zu", f / 10000, f / 100 % 100, f % 100);
    cudnn_version_str(v, cv, sizeof cv);
    cudnn_version_str(CUDNN_VERSION, hv, sizeof hv);
    const char *lib = defining_object("freednnGetVersion", ours, sizeof ours);
    const char *cre = defining_object("cudnnCreate", create, sizeof create);
    dr_fact_int(c, "freednn_version", (long long)f);
    dr_fact_int(c, "cudnn_api_version", (long long)v);
    dr_fact_int(c, "cudart_version", (long long)rt);
    dr_fact_str(c, "path", lib);
    dr_note(c, "freednnGetVersion      %zu (freednn %s)", f, fv);
    dr_note(c, "cudnnGetVersion        %zu (the cuDNN %s API; this doctor's cudnn.h says %s)", v,
            cv, hv);
    if (rt)
        dr_note(c, "cudnnGetCudartVersion  %zu (CUDA runtime %s)", rt,
                dr_cuda_version_str((int)rt, rv, sizeof rv));
    else
        dr_note(
            c,
            "cudnnGetCudartVersion  0 (this libfreednn was built without CUDA: no runtime linked)");
    dr_note(c, "loaded from            %s", lib ? lib : "(unknown: dladdr found no object)");
    if (cre != NULL && lib != NULL && strcmp(cre, lib) != 0) {
        dr_set(c, DR_FAIL, "cudnnCreate comes from %s, not from libfreednn (%s)", cre, lib);
        dr_fix(c, "another cuDNN is interposed ahead of freednn (LD_PRELOAD, or a library linked "
                  "before it); unset LD_PRELOAD or fix the link order");
    } else if (v != CUDNN_VERSION || f != FREEDNN_VERSION) {
        dr_set(c, DR_WARN,
               "the library serves cuDNN %s as freednn %s, but this doctor was built "
               "with headers for cuDNN %s / freednn %zu",
               cv, fv, hv, (size_t)FREEDNN_VERSION);
        dr_fix(c, "the doctor and the library come from different builds: use the doctor of the "
                  "same build, or put that build's libfreednn first on LD_LIBRARY_PATH");
    } else {
        dr_set(c, DR_PASS, "freednn %s serving the cuDNN %s API, from %s", fv, cv, lib ? lib : "?");
    }
}
