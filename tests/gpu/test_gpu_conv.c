/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_conv.c - the cuda backend's convolution rows (src/cuda/conv_direct.cu) against the
 * independent oracle and the ref backend, through the public API on a cuda handle with device
 * pointers (DESIGN D9, GPU tier; run by tests/gpu/run.sh).
 *
 * Every case reuses tests/ref/conv_case.h: the tensors are laid out in guarded host buffers,
 * and the whole buffer, guard zones (canaries) included, is copied to device memory; the call
 * gets device pointers into it; afterwards everything is copied back and checked as on the
 * host: output canaries, the bytes between strided elements, unchanged inputs (hashes), the
 * workspace canaries, beta = 0 over NaN poison, and the values: exact integer fills must equal
 * the oracle and be bit-identical to the ref backend's result; real fills must lie within
 * docs/testing.md's tolerance of the oracle. Also: the dispatch names the cuda row, every
 * algorithm enum is served, Get/Find on the cuda handle, bitwise determinism of re-runs, and
 * two handles on two streams: one stream held by a host-function gate while the other
 * handle's call completes, which shows that compute calls neither synchronise nor leave their
 * handle's stream.
 *
 * Exits 77 (ctest: skipped) when the cuda backend cannot run here (no driver or no GPU).
 * --smoke runs the small subset tests/gpu/run.sh gives compute-sanitizer.
 */
#define _GNU_SOURCE /* setenv, clock_gettime */
#include <cuda_runtime_api.h>
#include <stdatomic.h>
#include <time.h>

#include "../ref/conv_case.h"
#include "gpu_mirror.h"

static int smoke;          /* --smoke: the sanitizer subset */
/* The main cuda handle's stream: the legacy default stream for the bulk of the cases, then a
 * non-blocking stream of the test's own runtime (the library links its own, static one). */
static cudaStream_t main_stream;

static int cuda_ok(cudaError_t e, const char *expr, int line)
{
    FD_EXPECT(e == cudaSuccess, "line %d: %s: %s (%s)", line, expr, cudaGetErrorName(e),
              cudaGetErrorString(e));
    return e == cudaSuccess;
}
#define CUDA_OK(expr) cuda_ok((expr), #expr, __LINE__)

/* ---- which implementation ran ----------------------------------------------------------- */

/* The tensor-core row of the direction (src/cuda/conv_tc.cu), which takes HALF / BFLOAT16 NHWC
 * problems ahead of the naive row for the algorithms it serves. */
static const char *tc_impl(co_dir_t dir)
{
    static const char *const names[4] = {"fd_conv_fwd_tc_igemm", "fd_conv_bwd_data_tc_igemm",
                                         "fd_conv_bwd_filter_tc_igemm", "-"};
    return names[dir];
}

/* A faster row of the direction that took the problem ahead of the naive one: the FFMA
 * implicit GEMM (src/cuda/conv_simt.cu: FLOAT) or the channel-padding wrapper of the tensor-core
 * rows (src/cuda/conv_tc_pad.cu: C not a multiple of 8) or the strided backward data split by
 * residue on either engine (src/cuda/conv_tc_dgrad.cu) or, on sm_90, the wgmma rows of any type
 * and direction (on by default), or the few-channel rows (src/cuda/conv_smallc.cu: C <= 4). The
 * Winograd rows are off here (FREEDNN_WINOGRAD=0). */
static int is_simt_impl(co_dir_t dir)
{
    static const char *const prefix[4] = {"fd_conv_fwd_", "fd_conv_bwd_data_",
                                          "fd_conv_bwd_filter_", "-"};
    const size_t n = strlen(prefix[dir]);
    return strncmp(gm_last_impl, prefix[dir], n) == 0 &&
           (strcmp(gm_last_impl + n, "simt_igemm") == 0 ||
            strcmp(gm_last_impl + n, "tc_padc") == 0 ||
            strcmp(gm_last_impl + n, "tc_strided") == 0 ||
            strcmp(gm_last_impl + n, "simt_strided") == 0 ||
            strcmp(gm_last_impl + n, "smallc") == 0 ||
            strcmp(gm_last_impl + n, "simt_smallc") == 0 ||
            (strncmp(gm_last_impl + n, "implicit_gemm_", 14) == 0 &&
             strstr(gm_last_impl + n, "__sm90") != NULL));
}

static const char *expected_impl(co_dir_t dir)
{
    static const char *const names[4] = {"fd_conv_fwd_direct", "fd_conv_bwd_data_direct",
                                         "fd_conv_bwd_filter_direct", "fd_conv_bwd_bias_direct"};
    return names[dir];
}

/* ---- device copies of guarded host buffers ----------------------------------------------- */

/* The whole guard | payload | guard region of a host buffer, in device memory. */
typedef struct {
    unsigned char *dev;
    size_t bytes;
} dbuf_t;

static dbuf_t dbuf_up(const fd_buf_t *b, cudaStream_t s)
{
    dbuf_t d = {NULL, b->size + 2 * (size_t)FD_GUARD_BYTES};
    if (!CUDA_OK(cudaMalloc((void **)&d.dev, d.bytes))) {
        d.dev = NULL;
        return d;
    }
    CUDA_OK(cudaMemcpyAsync(d.dev, b->base, d.bytes, cudaMemcpyHostToDevice, s));
    return d;
}

static void dbuf_down(const dbuf_t *d, fd_buf_t *b, cudaStream_t s)
{
    if (d->dev)
        CUDA_OK(cudaMemcpyAsync(b->base, d->dev, d->bytes, cudaMemcpyDeviceToHost, s));
}

/* The device address of host address p inside b. */
static void *dbuf_at(const dbuf_t *d, const fd_buf_t *b, const void *p)
{
    return d->dev ? d->dev + ((const unsigned char *)p - b->base) : NULL;
}

static void dbuf_free(dbuf_t *d)
{
    if (d->dev)
        CUDA_OK(cudaFree(d->dev));
    d->dev = NULL;
}

/* ---- one run on a cuda handle: start (upload, call), finish (wait, download, check) ------- */

typedef struct {
    cc_bufs_t b;
    fd_buf_t ws;
    size_t ws_size;
    dbuf_t da, dbin, dout, dws;
    cudaStream_t stream;
    cudnnStatus_t status;
    int ok; /* buffers set up */
} gpu_run_t;

/* A host function enqueued before the call (the concurrency test's gate), or NULL. */
typedef struct {
    cudaHostFn_t fn;
    void *arg;
} gate_t;

/* Buffers, device copies, uploads (finished on return). Allocation and freeing happen outside
 * the window where a gate holds a stream: cudaMalloc and cudaFree may wait for the device. */
static void gpu_prepare(gpu_run_t *r, cudnnHandle_t h, cudaStream_t s, const cc_case_t *c,
                        const cc_data_t *d, int algo)
{
    memset(r, 0, sizeof *r);
    r->status = CUDNN_STATUS_INTERNAL_ERROR;
    r->stream = s;
    if (cc_bufs_setup(&r->b, c, d))
        return;
    r->ok = 1;
    FD_EXPECT_STATUS(cc_workspace_size(h, c, &r->b.desc, algo, &r->ws_size), CUDNN_STATUS_SUCCESS);
    r->ws = fd_buf_alloc(r->ws_size);
    fd_buf_poison(&r->ws);
    r->da = dbuf_up(&r->b.ta->buf, s);
    if (r->b.tbin)
        r->dbin = dbuf_up(&r->b.tbin->buf, s);
    r->dout = dbuf_up(&r->b.tout->buf, s);
    r->dws = dbuf_up(&r->ws, s);
    CUDA_OK(cudaStreamSynchronize(s));
}

/* The library call, after the gate's host function when there is one. */
static void gpu_call(gpu_run_t *r, cudnnHandle_t h, const cc_case_t *c, int algo, const gate_t *gate)
{
    if (!r->ok || !r->da.dev || !r->dout.dev || !r->dws.dev || (r->b.tbin && !r->dbin.dev))
        return;
    if (gate)
        CUDA_OK(cudaLaunchHostFunc(r->stream, gate->fn, gate->arg));
    gm_last_impl[0] = '\0';
    r->status = cc_call(h, c, &r->b.desc, algo, dbuf_at(&r->da, &r->b.ta->buf, cc_tensor_ptr(r->b.ta)),
                        r->b.tbin ? dbuf_at(&r->dbin, &r->b.tbin->buf, cc_tensor_ptr(r->b.tbin)) : NULL,
                        dbuf_at(&r->dout, &r->b.tout->buf, cc_tensor_ptr(r->b.tout)),
                        r->ws_size ? dbuf_at(&r->dws, &r->ws, r->ws.data) : NULL, r->ws_size);
}

static cc_result_t gpu_finish(gpu_run_t *r)
{
    cc_result_t res;
    memset(&res, 0, sizeof res);
    res.status = r->status;
    if (!r->ok)
        return res;
    CUDA_OK(cudaStreamSynchronize(r->stream));
    CUDA_OK(cudaGetLastError());
    dbuf_down(&r->da, &r->b.ta->buf, r->stream);
    if (r->b.tbin)
        dbuf_down(&r->dbin, &r->b.tbin->buf, r->stream);
    dbuf_down(&r->dout, &r->b.tout->buf, r->stream);
    dbuf_down(&r->dws, &r->ws, r->stream);
    CUDA_OK(cudaStreamSynchronize(r->stream));
    res.ws_size = r->ws_size;
    res.out_guards = fd_buf_guards_ok(&r->b.tout->buf);
    res.holes = cc_tensor_holes_ok(r->b.tout);
    res.inputs = cc_bufs_inputs_ok(&r->b);
    res.ws_guards = fd_buf_guards_ok(&r->ws);
    res.nout = r->b.tout->count;
    res.got = malloc(sizeof(double) * (size_t)res.nout + 1);
    res.raw = malloc(r->b.tout->esize * (size_t)res.nout + 1);
    if (!res.got || !res.raw)
        abort();
    cc_tensor_get(r->b.tout, res.got, res.raw);
    dbuf_free(&r->da), dbuf_free(&r->dbin), dbuf_free(&r->dout), dbuf_free(&r->dws);
    fd_buf_free(&r->ws);
    cc_bufs_free(&r->b);
    return res;
}

static void gpu_start(gpu_run_t *r, cudnnHandle_t h, cudaStream_t s, const cc_case_t *c,
                      const cc_data_t *d, int algo)
{
    gpu_prepare(r, h, s, c, d, algo);
    gpu_call(r, h, c, algo, NULL);
}

static cc_result_t gpu_exec(cudnnHandle_t h, const cc_case_t *c, const cc_data_t *d, int algo)
{
    gpu_run_t r;
    gpu_start(&r, h, main_stream, c, d, algo);
    return gpu_finish(&r);
}

/* ---- one case: cuda vs the oracle, and (exact) bit for bit vs ref --------------------------- */

static cudnnHandle_t hcuda, href;
static int runs;

static void run_case(const cc_case_t *c, cc_mode_t mode)
{
    cc_data_t d = cc_data_new(c);
    double *want = malloc(sizeof(double) * (size_t)d.nout + 1);
    co_acc_t acc = cc_data_fill(c, &d, mode, want);
    cc_result_t res = gpu_exec(hcuda, c, &d, c->algo);
    runs++;
    const char *what = mode == CC_EXACT ? "cuda exact" : "cuda real";
    char rep[512];
    cc_repro(c, rep, sizeof rep);
    if (cc_check_run(c, &res, what) == 0) {
        cc_compare(c, &res, want, &acc, mode, what);
        /* The naive row, or the tensor-core row of the same direction that took the problem
         * (src/cuda/conv_tc.cu: HALF/BFLOAT16/tf32, NHWC), or the FFMA implicit-GEMM row
         * (src/cuda/conv_simt.cu: FLOAT). */
        FD_EXPECT(strcmp(gm_last_impl, expected_impl(c->dir)) == 0 ||
                      strcmp(gm_last_impl, tc_impl(c->dir)) == 0 || is_simt_impl(c->dir),
                  "dispatch: ran %s, expected %s; %s", gm_last_impl[0] ? gm_last_impl : "(nothing logged)",
                  expected_impl(c->dir), rep);
        /* only the split-K backward filters, the padding wrappers, the strided split, the sm_90a
         * wgmma rows (transposed filter, split partials) and the few-channel bwd filter take workspace */
        FD_EXPECT(res.ws_size == 0 || strcmp(gm_last_impl, "fd_conv_bwd_filter_tc_igemm") == 0 ||
                      strcmp(gm_last_impl, "fd_conv_bwd_filter_smallc") == 0 ||
                      strcmp(gm_last_impl, "fd_conv_bwd_filter_simt_igemm") == 0 ||
                      strstr(gm_last_impl, "_tc_padc") != NULL ||
                      strcmp(gm_last_impl, "fd_conv_bwd_data_tc_strided") == 0 ||
                      strcmp(gm_last_impl, "fd_conv_bwd_data_simt_strided") == 0 ||
                      strstr(gm_last_impl, "_implicit_gemm_") != NULL, /* the sm_90a rows */
                  "%s asked for %zu bytes of workspace; %s", gm_last_impl, res.ws_size, rep);
        if (mode == CC_EXACT) {
            cc_result_t ref = cc_exec(href, c, &d, c->algo);
            if (cc_check_run(c, &ref, "ref exact") == 0) {
                size_t bytes = (size_t)res.nout * fd_test_dtype_size(c->dt);
                FD_EXPECT(ref.nout == res.nout && memcmp(ref.raw, res.raw, bytes) == 0,
                          "cuda and ref differ bitwise on exact data; %s", rep);
            }
            cc_result_free(&ref);
        }
    }
    cc_result_free(&res);
    co_acc_free(&acc);
    free(want);
    cc_data_free(&d);
}

/* ---- hand-picked edge shapes (as tests/impl/test_cpu_conv.c) ------------------------------ */

typedef struct {
    const char *name;
    int nsp, n, c, k, g;
    int in[3], flt[3], pad[3], stride[3], dil[3];
} shape_t;

static const shape_t shapes[] = {
    {"1x1", 2, 2, 8, 6, 1, {5, 7}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
    {"1x1 groups", 2, 3, 8, 12, 4, {4, 5}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
    {"1x1 stride 2", 2, 2, 6, 4, 1, {7, 8}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
    {"1x1 pad 1", 2, 1, 3, 5, 1, {4, 4}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"3x3 pad 1", 2, 2, 7, 5, 1, {9, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"3x3 stride 2 pad 1", 2, 2, 4, 6, 1, {9, 10}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
    {"3x3 dilation 2", 2, 1, 5, 3, 1, {11, 9}, {3, 3}, {2, 1}, {1, 1}, {2, 2}},
    {"5x3 uneven stride 3,1", 2, 2, 3, 4, 1, {12, 7}, {5, 3}, {2, 0}, {3, 1}, {1, 2}},
    {"pad >= filter", 2, 1, 2, 3, 1, {3, 4}, {2, 3}, {2, 3}, {1, 2}, {1, 1}},
    {"stride > filter", 2, 2, 3, 2, 1, {10, 9}, {2, 2}, {0, 1}, {3, 4}, {1, 1}},
    {"groups 3x3", 2, 2, 8, 12, 4, {6, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"depthwise", 2, 2, 6, 6, 6, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"depthwise x2 stride 2", 2, 1, 4, 8, 4, {9, 8}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
    {"1-d", 1, 2, 5, 4, 1, {15}, {4}, {1}, {2}, {2}},
    {"3-d", 3, 2, 3, 4, 1, {5, 6, 4}, {3, 2, 3}, {1, 0, 1}, {1, 2, 1}, {1, 1, 1}},
    {"single output", 2, 1, 3, 2, 1, {3, 3}, {3, 3}, {0, 0}, {1, 1}, {1, 1}},
    {"c1 k1 n1", 2, 1, 1, 1, 1, {6, 5}, {2, 2}, {0, 1}, {1, 1}, {1, 1}},
    /* bwd filter: 300 terms per dw element, more than one reduction block */
    {"wide reduction", 2, 3, 2, 3, 1, {12, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
};
static const int nshapes = (int)(sizeof shapes / sizeof shapes[0]);

static cc_case_t case_of(const shape_t *sh, co_dir_t dir, cudnnDataType_t dt, uint64_t seed)
{
    cc_case_t c;
    memset(&c, 0, sizeof c);
    c.dir = dir, c.dt = dt, c.comp = dt, c.seed = seed;
    if (dt == CUDNN_DATA_HALF || dt == CUDNN_DATA_BFLOAT16)
        c.comp = seed % 2 ? CUDNN_DATA_FLOAT : dt;
    c.s.nsp = sh->nsp, c.s.n = sh->n, c.s.c = sh->c, c.s.k = sh->k, c.s.g = sh->g;
    for (int i = 0; i < sh->nsp; i++) {
        c.s.in[i] = sh->in[i], c.s.flt[i] = sh->flt[i], c.s.pad[i] = sh->pad[i];
        c.s.stride[i] = sh->stride[i], c.s.dil[i] = sh->dil[i];
    }
    c.bstride = 1;
    c.alpha = 1.0, c.beta = 0.0;
    return c;
}

static void edge_shapes(void)
{
    static const cc_layout_t variants[][2] = {{CC_NCHW, CC_NCHW},     {CC_NHWC, CC_NHWC},
                                              {CC_PADDED, CC_PADDED}, {CC_PERMUTED, CC_NCHW},
                                              {CC_NHWC, CC_PADDED},   {CC_NCHW, CC_NHWC}};
    static const double ab[4][2] = {{1.0, 0.0}, {0.5, 0.25}, {-2.0, 1.0}, {1.0, 0.0}};
    const int nvar = (int)(sizeof variants / sizeof variants[0]);
    int turn = 0;
    for (int si = 0; si < nshapes; si += smoke ? 3 : 1)
        for (int dir = CO_FWD; dir <= CO_BWD_BIAS; dir++)
            for (int t = 0; t < 4; t++)
                for (int v = 0; v < (smoke ? 1 : 2); v++) {
                    uint64_t seed = fd_test_mix(0x6C0DA, (uint64_t)turn);
                    cc_case_t c = case_of(&shapes[si], (co_dir_t)dir, cc_dtypes[t], seed);
                    fd_rng_t r;
                    fd_rng_seed(&r, seed);
                    const cc_layout_t *lay = variants[(turn + v) % nvar];
                    cc_set_layouts(&c, lay[0], lay[1], &r);
                    c.wnhwc = turn % 2;
                    c.s.flip = (turn / 2) % 2;
                    c.misalign = turn % 5 == 0;
                    c.use4d = c.s.nsp == 2 && turn % 3 == 0;
                    c.bstride = 1 + turn % 3;
                    c.alpha = ab[turn % 4][0], c.beta = ab[turn % 4][1];
                    c.algo = turn % cc_algo_count((co_dir_t)dir);
                    turn++;
                    run_case(&c, CC_EXACT);
                    if (!smoke)
                        run_case(&c, CC_REAL);
                }
}

/* ---- random sweep (conv_case.h's distribution) ------------------------------------------- */

static void sweep(void)
{
    const int ncases = smoke ? 2 : cc_sweep_count(24);
    for (int dir = CO_FWD; dir <= CO_BWD_BIAS; dir++)
        for (int t = 0; t < 4; t++)
            for (int i = 0; i < ncases; i++) {
                uint64_t seed = cc_sweep_seed(0x6C5EEull, dir * 16 + t, i);
                cc_case_t c = cc_case_gen((co_dir_t)dir, cc_dtypes[t], seed, 0);
                run_case(&c, i % 2 ? CC_REAL : CC_EXACT);
            }
}

/* ---- every algorithm enum, and Get / Find on the cuda handle ------------------------------ */

static void algorithms(void)
{
    for (int dir = CO_FWD; dir <= CO_BWD_FILTER; dir++)
        for (int algo = 0; algo < cc_algo_count((co_dir_t)dir); algo++) {
            cc_case_t c = case_of(&shapes[4], (co_dir_t)dir, CUDNN_DATA_FLOAT,
                                  fd_test_mix(0xA160, (uint64_t)(dir * 16 + algo)));
            fd_rng_t r;
            fd_rng_seed(&r, c.seed);
            cc_set_layouts(&c, CC_NCHW, CC_NCHW, &r);
            c.algo = algo;
            run_case(&c, CC_EXACT);
        }
}

/* The shared layout of the three perf structs (src/api/conv.c's fd_perf_t). */
typedef struct {
    int algo;
    cudnnStatus_t status;
    float time;
    size_t memory;
    cudnnDeterminism_t determinism;
    cudnnMathType_t mathType;
    int reserved[3];
} perf_t;

static void check_perf(const char *what, co_dir_t dir, const perf_t *p, int n)
{
    int want = cc_algo_count(dir), ok = 0;
    FD_EXPECT(n == want, "%s: %d results, expected %d", what, n, want);
    for (int i = 0; i < n; i++) {
        ok += p[i].status == CUDNN_STATUS_SUCCESS;
        FD_EXPECT(p[i].status != CUDNN_STATUS_SUCCESS ||
                      (p[i].memory == 0 && p[i].determinism == CUDNN_DETERMINISTIC),
                  "%s: algo %d: memory %zu, determinism %d", what, p[i].algo, p[i].memory,
                  (int)p[i].determinism);
        FD_EXPECT(p[i].status != CUDNN_STATUS_SUCCESS || p[i].time >= 0.0f || strstr(what, "Get"),
                  "%s: algo %d timed %g ms", what, p[i].algo, (double)p[i].time);
    }
    FD_EXPECT(ok == want, "%s: %d of %d algorithms succeeded", what, ok, want);
}

static void get_and_find(void)
{
    for (int dir = CO_FWD; dir <= CO_BWD_FILTER; dir++) {
        cc_case_t c = case_of(&shapes[5], (co_dir_t)dir, CUDNN_DATA_FLOAT, 0xF1D + (uint64_t)dir);
        fd_rng_t r;
        fd_rng_seed(&r, c.seed);
        cc_set_layouts(&c, CC_NHWC, CC_NHWC, &r);
        cc_desc_t d;
        if (cc_desc_make(&c, &d)) {
            cc_desc_free(&d);
            continue;
        }
        perf_t perf[8];
        int n = 0;
        cudnnStatus_t st;
        if (dir == CO_FWD)
            st = cudnnGetConvolutionForwardAlgorithm_v7(hcuda, d.x, d.w, d.conv, d.y, 8, &n,
                                                        (cudnnConvolutionFwdAlgoPerf_t *)perf);
        else if (dir == CO_BWD_DATA)
            st = cudnnGetConvolutionBackwardDataAlgorithm_v7(hcuda, d.w, d.y, d.conv, d.x, 8, &n,
                                                             (cudnnConvolutionBwdDataAlgoPerf_t *)perf);
        else
            st = cudnnGetConvolutionBackwardFilterAlgorithm_v7(hcuda, d.x, d.y, d.conv, d.w, 8, &n,
                                                               (cudnnConvolutionBwdFilterAlgoPerf_t *)perf);
        FD_EXPECT_STATUS(st, CUDNN_STATUS_SUCCESS);
        check_perf("Get_v7", (co_dir_t)dir, perf, n);

        /* Find without buffers: the library allocates device scratch */
        n = 0;
        if (dir == CO_FWD)
            st = cudnnFindConvolutionForwardAlgorithm(hcuda, d.x, d.w, d.conv, d.y, 8, &n,
                                                      (cudnnConvolutionFwdAlgoPerf_t *)perf);
        else if (dir == CO_BWD_DATA)
            st = cudnnFindConvolutionBackwardDataAlgorithm(hcuda, d.w, d.y, d.conv, d.x, 8, &n,
                                                           (cudnnConvolutionBwdDataAlgoPerf_t *)perf);
        else
            st = cudnnFindConvolutionBackwardFilterAlgorithm(hcuda, d.x, d.y, d.conv, d.w, 8, &n,
                                                             (cudnnConvolutionBwdFilterAlgoPerf_t *)perf);
        FD_EXPECT_STATUS(st, CUDNN_STATUS_SUCCESS);
        check_perf("Find", (co_dir_t)dir, perf, n);

        /* FindEx on device buffers; the output buffer is then checked against the oracle */
        cc_data_t data = cc_data_new(&c);
        double *want = malloc(sizeof(double) * (size_t)data.nout + 1);
        co_acc_t acc = cc_data_fill(&c, &data, CC_EXACT, want);
        cc_bufs_t b;
        if (cc_bufs_setup(&b, &c, &data) == 0) {
            dbuf_t da = dbuf_up(&b.ta->buf, main_stream), db = dbuf_up(&b.tbin->buf, main_stream);
            dbuf_t dout = dbuf_up(&b.tout->buf, main_stream);
            CUDA_OK(cudaStreamSynchronize(main_stream));
            void *pa = dbuf_at(&da, &b.ta->buf, cc_tensor_ptr(b.ta));
            void *pb = dbuf_at(&db, &b.tbin->buf, cc_tensor_ptr(b.tbin));
            void *po = dbuf_at(&dout, &b.tout->buf, cc_tensor_ptr(b.tout));
            n = 0;
            if (dir == CO_FWD)
                st = cudnnFindConvolutionForwardAlgorithmEx(hcuda, b.desc.x, pa, b.desc.w, pb, b.desc.conv,
                                                            b.desc.y, po, 8, &n,
                                                            (cudnnConvolutionFwdAlgoPerf_t *)perf, NULL, 0);
            else if (dir == CO_BWD_DATA)
                st = cudnnFindConvolutionBackwardDataAlgorithmEx(
                    hcuda, b.desc.w, pb, b.desc.y, pa, b.desc.conv, b.desc.x, po, 8, &n,
                    (cudnnConvolutionBwdDataAlgoPerf_t *)perf, NULL, 0);
            else
                st = cudnnFindConvolutionBackwardFilterAlgorithmEx(
                    hcuda, b.desc.x, pa, b.desc.y, pb, b.desc.conv, b.desc.w, po, 8, &n,
                    (cudnnConvolutionBwdFilterAlgoPerf_t *)perf, NULL, 0);
            FD_EXPECT_STATUS(st, CUDNN_STATUS_SUCCESS);
            check_perf("FindEx", (co_dir_t)dir, perf, n);
            dbuf_down(&dout, &b.tout->buf, main_stream);
            CUDA_OK(cudaStreamSynchronize(main_stream));
            cc_result_t res;
            memset(&res, 0, sizeof res);
            res.status = st;
            res.nout = b.tout->count;
            res.got = malloc(sizeof(double) * (size_t)res.nout + 1);
            cc_tensor_get(b.tout, res.got, NULL);
            FD_EXPECT(fd_buf_guards_ok(&b.tout->buf), "FindEx wrote outside the output");
            cc_compare(&c, &res, want, &acc, CC_EXACT, "FindEx output");
            cc_result_free(&res);
            dbuf_free(&da), dbuf_free(&db), dbuf_free(&dout);
            cc_bufs_free(&b);
        }
        co_acc_free(&acc);
        free(want);
        cc_data_free(&data);
        cc_desc_free(&d);
    }
}

/* ---- determinism: the same call twice gives the same bits (real data) --------------------- */

static const shape_t det_shapes[] = {
    {"3x3 c32 k48", 2, 2, 32, 48, 1, {28, 28}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"3x3 s2 groups", 2, 4, 32, 32, 2, {30, 30}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
    /* --smoke: small enough for racecheck, still several reduction passes per block */
    {"3x3 c6 k4 (smoke)", 2, 3, 6, 4, 1, {14, 13}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
};

static void determinism(void)
{
    int checked = 0;
    for (size_t si = smoke ? 2 : 0; si < (smoke ? 3 : 2); si++)
        for (int dir = CO_FWD; dir <= CO_BWD_BIAS; dir++)
            for (int t = 0; t < 4; t++) {
                cc_case_t c = case_of(&det_shapes[si], (co_dir_t)dir, cc_dtypes[t],
                                      fd_test_mix(0xDE7, si * 16 + (size_t)dir * 4 + (size_t)t));
                fd_rng_t r;
                fd_rng_seed(&r, c.seed);
                cc_set_layouts(&c, si == 1 ? CC_NHWC : CC_NCHW, si == 1 ? CC_NHWC : CC_NCHW, &r);
                c.beta = 0.5;
                cc_data_t d = cc_data_new(&c);
                fd_rng_t rd;
                fd_rng_seed(&rd, c.seed);
                cc_fill(&rd, c.dt, d.a, d.na, CC_REAL, 1, 1.0, 1);
                if (d.nb)
                    cc_fill(&rd, c.dt, d.b, d.nb, CC_REAL, 1, 1.0, 1);
                cc_fill(&rd, c.dt, d.old, d.nout, CC_REAL, 1, 1.0, 1);
                cc_result_t a = gpu_exec(hcuda, &c, &d, 0), b = gpu_exec(hcuda, &c, &d, 0);
                char rep[512];
                cc_repro(&c, rep, sizeof rep);
                size_t bytes = (size_t)a.nout * fd_test_dtype_size(c.dt);
                FD_EXPECT(a.status == CUDNN_STATUS_SUCCESS && b.status == CUDNN_STATUS_SUCCESS &&
                              a.nout == b.nout && memcmp(a.raw, b.raw, bytes) == 0,
                          "determinism: two runs gave different bits; %s", rep);
                checked++;
                cc_result_free(&a), cc_result_free(&b);
                cc_data_free(&d);
            }
    printf("determinism: %d problems re-run, bits compared\n", checked);
}

/* ---- two handles, two streams -------------------------------------------------------------- */

static atomic_int gate_open, gate_timed_out;

/* Holds its stream until the test opens the gate (at most 20 s; CUDA calls are not allowed
 * here, so it only spins). */
static void CUDART_CB gate_fn(void *arg)
{
    (void)arg;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (!atomic_load(&gate_open)) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 20) {
            atomic_store(&gate_timed_out, 1);
            return;
        }
    }
}

static void two_streams(void)
{
    cudnnHandle_t h1 = cc_handle(FREEDNN_BACKEND_CUDA), h2 = cc_handle(FREEDNN_BACKEND_CUDA);
    cudaStream_t s1, s2, s3;
    CUDA_OK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CUDA_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CUDA_OK(cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking));
    FD_EXPECT_STATUS(cudnnSetStream(h1, s1), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetStream(h2, s2), CUDNN_STATUS_SUCCESS);

    cc_case_t c1 = case_of(&det_shapes[0], CO_FWD, CUDNN_DATA_FLOAT, 0x5171);
    cc_case_t c2 = case_of(&det_shapes[1], CO_BWD_FILTER, CUDNN_DATA_FLOAT, 0x5172);
    fd_rng_t r;
    fd_rng_seed(&r, 1);
    cc_set_layouts(&c1, CC_NCHW, CC_NCHW, &r);
    cc_set_layouts(&c2, CC_NHWC, CC_NHWC, &r);
    cc_data_t d1 = cc_data_new(&c1), d2 = cc_data_new(&c2);
    double *w1 = malloc(sizeof(double) * (size_t)d1.nout + 1);
    double *w2 = malloc(sizeof(double) * (size_t)d2.nout + 1);
    co_acc_t a1 = cc_data_fill(&c1, &d1, CC_EXACT, w1), a2 = cc_data_fill(&c2, &d2, CC_EXACT, w2);

    atomic_store(&gate_open, 0);
    atomic_store(&gate_timed_out, 0);
    gate_t gate = {gate_fn, NULL};
    gpu_run_t r1, r2;
    gpu_prepare(&r1, h1, s1, &c1, &d1, c1.algo);
    gpu_prepare(&r2, h2, s2, &c2, &d2, c2.algo);
    unsigned char *peek = NULL;
    CUDA_OK(cudaMallocHost((void **)&peek, r1.dout.bytes));
    gpu_call(&r1, h1, &c1, c1.algo, &gate); /* queued behind the closed gate */
    FD_EXPECT_STATUS(r1.status, CUDNN_STATUS_SUCCESS);
    gpu_call(&r2, h2, &c2, c2.algo, NULL);
    FD_EXPECT_STATUS(r2.status, CUDNN_STATUS_SUCCESS);
    CUDA_OK(cudaStreamSynchronize(s2)); /* h2's work finishes while s1 is held */
    cudaError_t q = cudaStreamQuery(s1);
    cudaGetLastError(); /* cudaErrorNotReady is the expected answer, not an error */
    FD_EXPECT(!atomic_load(&gate_timed_out) && q == cudaErrorNotReady,
              "two streams: stream 1 is not held by its gate any more (%s)", cudaGetErrorName(q));
    /* h1's output, read on a third stream while s1 is held, is still what was uploaded */
    if (peek && r1.dout.dev) {
        CUDA_OK(cudaMemcpyAsync(peek, r1.dout.dev, r1.dout.bytes, cudaMemcpyDeviceToHost, s3));
        CUDA_OK(cudaStreamSynchronize(s3));
        FD_EXPECT(memcmp(peek, r1.b.tout->buf.base, r1.dout.bytes) == 0,
                  "two streams: handle 1's kernel ran before its stream's gate opened (not on its stream?)");
    }
    atomic_store(&gate_open, 1);
    CUDA_OK(cudaFreeHost(peek));
    cc_result_t res2 = gpu_finish(&r2);
    if (cc_check_run(&c2, &res2, "two streams, handle 2") == 0)
        cc_compare(&c2, &res2, w2, &a2, CC_EXACT, "two streams, handle 2");
    cc_result_t res1 = gpu_finish(&r1);
    FD_EXPECT(!atomic_load(&gate_timed_out), "two streams: the gate timed out");
    if (cc_check_run(&c1, &res1, "two streams, handle 1") == 0)
        cc_compare(&c1, &res1, w1, &a1, CC_EXACT, "two streams, handle 1");
    cc_result_free(&res1), cc_result_free(&res2);
    co_acc_free(&a1), co_acc_free(&a2);
    free(w1), free(w2);
    cc_data_free(&d1), cc_data_free(&d2);

    /* both handles at once on real data, again, against one run each alone */
    cc_data_t e1 = cc_data_new(&c1), e2 = cc_data_new(&c2);
    fd_rng_t rd;
    fd_rng_seed(&rd, 77);
    cc_fill(&rd, c1.dt, e1.a, e1.na, CC_REAL, 1, 1.0, 1);
    cc_fill(&rd, c1.dt, e1.b, e1.nb, CC_REAL, 1, 1.0, 1);
    cc_fill(&rd, c2.dt, e2.a, e2.na, CC_REAL, 1, 1.0, 1);
    cc_fill(&rd, c2.dt, e2.b, e2.nb, CC_REAL, 1, 1.0, 1);
    gpu_start(&r1, h1, s1, &c1, &e1, 0);
    gpu_start(&r2, h2, s2, &c2, &e2, 0);
    cc_result_t x1 = gpu_finish(&r1), x2 = gpu_finish(&r2);
    cc_result_t y1 = gpu_exec(hcuda, &c1, &e1, 0), y2 = gpu_exec(hcuda, &c2, &e2, 0);
    FD_EXPECT(x1.raw && y1.raw && memcmp(x1.raw, y1.raw, (size_t)x1.nout * 4) == 0,
              "two streams: handle 1's concurrent result differs from a lone run");
    FD_EXPECT(x2.raw && y2.raw && memcmp(x2.raw, y2.raw, (size_t)x2.nout * 4) == 0,
              "two streams: handle 2's concurrent result differs from a lone run");
    cc_result_free(&x1), cc_result_free(&x2), cc_result_free(&y1), cc_result_free(&y2);
    cc_data_free(&e1), cc_data_free(&e2);

    cudnnDestroy(h1), cudnnDestroy(h2);
    CUDA_OK(cudaStreamDestroy(s1)), CUDA_OK(cudaStreamDestroy(s2)), CUDA_OK(cudaStreamDestroy(s3));
}

/* ---- the backend itself ----------------------------------------------------------------------- */

static void backend_facts(void)
{
    FD_EXPECT(cudnnGetCudartVersion() == (size_t)CUDART_VERSION,
              "cudnnGetCudartVersion is %zu; this test was built with CUDA %d",
              cudnnGetCudartVersion(), CUDART_VERSION);
    if (getenv("FREEDNN_BACKEND") == NULL) {
        cudnnHandle_t h = NULL;
        freednnBackend_t b = FREEDNN_BACKEND_REF;
        FD_EXPECT_STATUS(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(freednnGetBackend(h, &b), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(b == FREEDNN_BACKEND_CUDA, "cudnnCreate gave backend %d, not cuda, on a GPU machine",
                  (int)b);
        cudnnDestroy(h);
    }
}

int main(int argc, char **argv)
{
    smoke = argc > 1 && strcmp(argv[1], "--smoke") == 0;
    cc_float_math = CUDNN_FMA_MATH; /* FLOAT as FLOAT: tf32 is test_gpu_conv_tf32's */
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    cudnnHandle_t probe = NULL;
    cudnnStatus_t st = freednnCreateWithBackend(&probe, FREEDNN_BACKEND_CUDA);
    if (e != cudaSuccess || count == 0 || st != CUDNN_STATUS_SUCCESS) {
        char why[512];
        cudnnGetLastErrorString(why, sizeof why);
        printf("test_gpu_conv: skipped: no usable GPU (cudaGetDeviceCount: %s, %d devices; "
               "freednn: %s)\n", cudaGetErrorName(e), count, st == CUDNN_STATUS_SUCCESS ? "cuda" : why);
        return 77;
    }
    cudnnDestroy(probe);
    struct cudaDeviceProp prop;
    int dev = 0;
    CUDA_OK(cudaGetDevice(&dev));
    CUDA_OK(cudaGetDeviceProperties(&prop, dev));
    printf("test_gpu_conv%s: %s, sm_%d%d, %d SMs\n", smoke ? " --smoke" : "", prop.name,
           prop.major, prop.minor, prop.multiProcessorCount);

    setenv("FREEDNN_LOG_DISPATCH", "1", 1);
    setenv("FREEDNN_WINOGRAD", "0", 1); /* inexact on integer data: test_gpu_conv_winograd holds it */
    gm_watch_dispatch();
    hcuda = cc_handle(FREEDNN_BACKEND_CUDA);
    href = cc_handle(FREEDNN_BACKEND_REF);
    main_stream = NULL;

    backend_facts();
    uint64_t forced;
    if (!fd_test_seed_forced(&forced)) {
        edge_shapes();
        algorithms();
    }
    sweep();
    printf("%d runs checked against the oracle (exact ones also bit for bit against ref)\n", runs);
    CUDA_OK(cudaStreamCreateWithFlags(&main_stream, cudaStreamNonBlocking));
    FD_EXPECT_STATUS(cudnnSetStream(hcuda, main_stream), CUDNN_STATUS_SUCCESS);
    if (!fd_test_seed_forced(&forced)) {
        get_and_find();
        determinism();
        if (!smoke) /* compute-sanitizer serialises launches: a gated stream would stall it */
            two_streams();
    }
    cudnnSetCallback(0, NULL, NULL);
    cudnnDestroy(hcuda);
    cudnnDestroy(href);
    CUDA_OK(cudaStreamDestroy(main_stream));
    return fd_test_finish();
}
