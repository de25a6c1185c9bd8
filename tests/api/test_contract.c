/* SPDX-License-Identifier: MIT */
/*
 * test_contract.c - the API contract table (contract §1.2, §4.1, decisions of §4.6).
 *
 * Each row of contract_rows.h names a case, the exact status it must return, a word the
 * rejection reason must contain, a setup and the call. The runner builds a fresh fixture for
 * every row (a handle, victim descriptors in a known state, guarded data buffers, out-params
 * filled with a pattern), runs setup, snapshots everything, provokes a sentinel error, makes
 * the call and checks:
 *   - the status, exactly;
 *   - on rejection: cudnnGetLastErrorString was replaced and contains the row's word; every
 *     descriptor reads back as before; every data buffer hashes as before; out-params untouched;
 *   - always: guard zones intact, inputs unchanged, no crash (a SIGSEGV fails the row only).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_test.h"

/* ---- fixture --------------------------------------------------------------------------- */

/* Out-parameters of every call in the table; filled with OUT_PATTERN before each row. */
typedef struct {
    int i[32];
    size_t sz;
    cudnnDataType_t dt;
    cudnnTensorFormat_t fmt;
    cudnnConvolutionMode_t mode;
    cudnnMathType_t math;
    cudnnReorderType_t reorder;
    cudnnHandle_t h;
    cudaStream_t stream;
    cudnnStatus_t rs;
    freednnBackend_t backend;
    cudnnConvolutionFwdAlgo_t fwd_algo;
    cudnnConvolutionBwdDataAlgo_t bwd_data_algo;
    cudnnConvolutionBwdFilterAlgo_t bwd_filter_algo;
    cudnnConvolutionFwdAlgoPerf_t fwd_perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    cudnnConvolutionBwdDataAlgoPerf_t bwd_data_perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    cudnnConvolutionBwdFilterAlgoPerf_t bwd_filter_perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    unsigned mask;
    void *udata;
    cudnnCallback_t cb;
    cudnnFusedOpsPlan_t plan;
    cudnnFusedOpsConstParamPack_t pack;
} fx_out_t;
#define OUT_PATTERN 0x5A

enum { FX_X, FX_W, FX_Y, FX_DX, FX_DW, FX_DY, FX_DB, FX_WS, FX_BUFS };
static const int fx_is_input[FX_BUFS] = {[FX_X] = 1, [FX_W] = 1, [FX_DY] = 1};

typedef struct {
    cudnnHandle_t h;
    /* victims: set to a known state; rejected setters must leave them so */
    cudnnTensorDescriptor_t t;        /* 1x3x8x8 f32 NCHW */
    cudnnTensorDescriptor_t tu;       /* created, never set */
    cudnnFilterDescriptor_t fl;       /* 4x3x3x3 f32 NCHW */
    cudnnFilterDescriptor_t flu;      /* created, never set */
    cudnnConvolutionDescriptor_t cv;  /* 2-d pad 1 stride 1 dil 1 xcorr f32, groups 1 */
    cudnnConvolutionDescriptor_t cvu; /* created, never set */
    /* a valid convolution problem: x 2x4x9x9, w 8x4x3x3, pad 1 -> y 2x8x9x9, db 1x8x1x1 */
    cudnnTensorDescriptor_t xd, yd, bd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    fd_buf_t buf[FX_BUFS];
    float alpha, beta;
    fx_out_t out;
    int setup_failed;
} fx_t;

/* Objects that are no live library object: what a wild pointer looks like. (A really destroyed
 * object cannot be passed safely - reading freed memory is undefined - so these stand in.) */
static _Alignas(64) unsigned char garbage[4][512];
static _Alignas(64) unsigned char sentinel_obj[512];
static int runtime_tag_storage;

#define GARBAGE_HANDLE ((cudnnHandle_t)(void *)garbage[0])
#define GARBAGE_TENSOR ((cudnnTensorDescriptor_t)(void *)garbage[1])
#define GARBAGE_FILTER ((cudnnFilterDescriptor_t)(void *)garbage[2])
#define GARBAGE_CONV ((cudnnConvolutionDescriptor_t)(void *)garbage[3])

static void fx_setup_ok(fx_t *f, cudnnStatus_t st, const char *expr)
{
    if (st != CUDNN_STATUS_SUCCESS) {
        f->setup_failed = 1;
        FD_EXPECT(0, "setup %s returned %s", expr, cudnnGetErrorString(st));
    }
}
#define S(expr) fx_setup_ok(f, (expr), #expr)

static const size_t fx_buf_bytes[FX_BUFS] = {
    [FX_X] = 2 * 4 * 9 * 9 * 4,
    [FX_W] = 8 * 4 * 3 * 3 * 4,
    [FX_Y] = 2 * 8 * 9 * 9 * 4,
    [FX_DX] = 2 * 4 * 9 * 9 * 4,
    [FX_DW] = 8 * 4 * 3 * 3 * 4,
    [FX_DY] = 2 * 8 * 9 * 9 * 4,
    [FX_DB] = 8 * 4,
    [FX_WS] = 1 << 20, /* room for any algorithm's workspace on the fixture shapes */
};

static void fx_init(fx_t *f)
{
    memset(f, 0, sizeof *f);
    S(cudnnCreate(&f->h));
    freednnBackend_t backend = FREEDNN_BACKEND_CPU;
    if (freednnGetBackend(f->h, &backend) == CUDNN_STATUS_SUCCESS &&
        backend == FREEDNN_BACKEND_CUDA) {
        cudnnDestroy(f->h); /* the table passes host pointers */
        S(freednnCreateWithBackend(&f->h, FREEDNN_BACKEND_CPU));
    }
    S(cudnnCreateTensorDescriptor(&f->t));
    S(cudnnCreateTensorDescriptor(&f->tu));
    S(cudnnCreateFilterDescriptor(&f->fl));
    S(cudnnCreateFilterDescriptor(&f->flu));
    S(cudnnCreateConvolutionDescriptor(&f->cv));
    S(cudnnCreateConvolutionDescriptor(&f->cvu));
    S(cudnnCreateTensorDescriptor(&f->xd));
    S(cudnnCreateTensorDescriptor(&f->yd));
    S(cudnnCreateTensorDescriptor(&f->bd));
    S(cudnnCreateFilterDescriptor(&f->wd));
    S(cudnnCreateConvolutionDescriptor(&f->cd));
    S(cudnnSetTensor4dDescriptor(f->t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 8, 8));
    S(cudnnSetFilter4dDescriptor(f->fl, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, 3, 3, 3));
    S(cudnnSetConvolution2dDescriptor(f->cv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                      CUDNN_DATA_FLOAT));
    S(cudnnSetTensor4dDescriptor(f->xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 4, 9, 9));
    S(cudnnSetTensor4dDescriptor(f->yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 8, 9, 9));
    S(cudnnSetTensor4dDescriptor(f->bd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 8, 1, 1));
    S(cudnnSetFilter4dDescriptor(f->wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 8, 4, 3, 3));
    S(cudnnSetConvolution2dDescriptor(f->cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                      CUDNN_DATA_FLOAT));
    fd_rng_t rng;
    fd_rng_seed(&rng, 42);
    for (int b = 0; b < FX_BUFS; b++) {
        f->buf[b] = fd_buf_alloc(fx_buf_bytes[b]);
        if (fx_is_input[b])
            fd_fill_int(&rng, CUDNN_DATA_FLOAT, f->buf[b].data, (int64_t)(fx_buf_bytes[b] / 4), -3,
                        3, 0.8);
        else
            fd_buf_poison(&f->buf[b]);
    }
    f->alpha = 1.0f;
    f->beta = 0.0f;
    memset(&f->out, OUT_PATTERN, sizeof f->out);
}

static void fx_free(fx_t *f)
{
    cudnnDestroyTensorDescriptor(f->t);
    cudnnDestroyTensorDescriptor(f->tu);
    cudnnDestroyFilterDescriptor(f->fl);
    cudnnDestroyFilterDescriptor(f->flu);
    cudnnDestroyConvolutionDescriptor(f->cv);
    cudnnDestroyConvolutionDescriptor(f->cvu);
    cudnnDestroyTensorDescriptor(f->xd);
    cudnnDestroyTensorDescriptor(f->yd);
    cudnnDestroyTensorDescriptor(f->bd);
    cudnnDestroyFilterDescriptor(f->wd);
    cudnnDestroyConvolutionDescriptor(f->cd);
    cudnnDestroy(f->h);
    for (int b = 0; b < FX_BUFS; b++)
        fd_buf_free(&f->buf[b]);
}

/* ---- snapshots: every descriptor read back through the public getters ------------------ */

typedef struct {
    cudnnStatus_t st;
    cudnnDataType_t dt;
    int nb, dim[CUDNN_DIM_MAX], stride[CUDNN_DIM_MAX];
} tsnap_t;
typedef struct {
    cudnnStatus_t st;
    cudnnDataType_t dt;
    cudnnTensorFormat_t fmt;
    int nb, dim[CUDNN_DIM_MAX];
} fsnap_t;
typedef struct {
    cudnnStatus_t st;
    int st_extra;
    int n, pad[CUDNN_DIM_MAX], stride[CUDNN_DIM_MAX], dil[CUDNN_DIM_MAX];
    cudnnConvolutionMode_t mode;
    cudnnDataType_t compute;
    int groups;
    cudnnMathType_t math;
    cudnnReorderType_t reorder;
} csnap_t;

enum { SNAP_T = 5, SNAP_F = 3, SNAP_C = 3 };
typedef struct {
    tsnap_t t[SNAP_T];
    fsnap_t f[SNAP_F];
    csnap_t c[SNAP_C];
    uint64_t hash[FX_BUFS];
} snap_t;

static void snap_take(const fx_t *f, snap_t *s)
{
    memset(s, 0, sizeof *s);
    cudnnTensorDescriptor_t ts[SNAP_T] = {f->t, f->tu, f->xd, f->yd, f->bd};
    for (int i = 0; i < SNAP_T; i++)
        s->t[i].st = cudnnGetTensorNdDescriptor(ts[i], CUDNN_DIM_MAX, &s->t[i].dt, &s->t[i].nb,
                                                s->t[i].dim, s->t[i].stride);
    cudnnFilterDescriptor_t fs[SNAP_F] = {f->fl, f->flu, f->wd};
    for (int i = 0; i < SNAP_F; i++)
        s->f[i].st = cudnnGetFilterNdDescriptor(fs[i], CUDNN_DIM_MAX, &s->f[i].dt, &s->f[i].fmt,
                                                &s->f[i].nb, s->f[i].dim);
    cudnnConvolutionDescriptor_t cs[SNAP_C] = {f->cv, f->cvu, f->cd};
    for (int i = 0; i < SNAP_C; i++) {
        csnap_t *c = &s->c[i];
        c->st = cudnnGetConvolutionNdDescriptor(cs[i], CUDNN_DIM_MAX - 2, &c->n, c->pad, c->stride,
                                                c->dil, &c->mode, &c->compute);
        c->st_extra = (int)cudnnGetConvolutionGroupCount(cs[i], &c->groups);
        c->st_extra += (int)cudnnGetConvolutionMathType(cs[i], &c->math) * 10;
        c->st_extra += (int)cudnnGetConvolutionReorderType(cs[i], &c->reorder) * 100;
    }
    for (int b = 0; b < FX_BUFS; b++)
        s->hash[b] = fd_buf_hash(&f->buf[b]);
}

static const char *const tnames[SNAP_T] = {"victim tensor", "unset tensor", "xDesc", "yDesc",
                                           "dbDesc"};
static const char *const fnames[SNAP_F] = {"victim filter", "unset filter", "wDesc"};
static const char *const cnames[SNAP_C] = {"victim conv", "unset conv", "convDesc"};
static const char *const bnames[FX_BUFS] = {"x", "w", "y", "dx", "dw", "dy", "db", "workspace"};

/* ---- the table --------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    cudnnStatus_t want;
    const char *needle; /* must occur in cudnnGetLastErrorString after a rejection */
    void (*setup)(fx_t *f);
    cudnnStatus_t (*call)(fx_t *f);
} row_t;

/* Shorthands used by contract_rows.h (defined after every include). */
#define OK CUDNN_STATUS_SUCCESS
#define BAD CUDNN_STATUS_BAD_PARAM
#define NS CUDNN_STATUS_NOT_SUPPORTED
#define NOT_INIT CUDNN_STATUS_NOT_INITIALIZED
#define NCHW CUDNN_TENSOR_NCHW
#define NHWC CUDNN_TENSOR_NHWC
#define VECT CUDNN_TENSOR_NCHW_VECT_C
#define F32 CUDNN_DATA_FLOAT
#define F64 CUDNN_DATA_DOUBLE
#define F16 CUDNN_DATA_HALF
#define BF16 CUDNN_DATA_BFLOAT16
#define I8 CUDNN_DATA_INT8
#define I32 CUDNN_DATA_INT32
#define I8x4 CUDNN_DATA_INT8x4
#define I8x32 CUDNN_DATA_INT8x32
#define XCORR CUDNN_CROSS_CORRELATION
#define CONV CUDNN_CONVOLUTION
#define DIMS(...) ((const int[]){__VA_ARGS__})
#define HD (f->h)
#define TV (f->t)
#define TU (f->tu)
#define FV (f->fl)
#define FU (f->flu)
#define CV (f->cv)
#define CU (f->cvu)
#define XD (f->xd)
#define YD (f->yd)
#define BD (f->bd)
#define WD (f->wd)
#define CD (f->cd)
#define X (f->buf[FX_X].data)
#define W (f->buf[FX_W].data)
#define Y (f->buf[FX_Y].data)
#define DX (f->buf[FX_DX].data)
#define DW (f->buf[FX_DW].data)
#define DY (f->buf[FX_DY].data)
#define DB (f->buf[FX_DB].data)
#define WS (f->buf[FX_WS].data)
#define AL ((const void *)&f->alpha)
#define BE ((const void *)&f->beta)
#define O (f->out)
#define NONE ((void)0)
/* Calls that are rejected before any algorithm runs: no workspace. */
#define FWD(algo)                                                                                  \
    cudnnConvolutionForward(HD, AL, XD, X, WD, W, CD, (cudnnConvolutionFwdAlgo_t)(algo), NULL, 0,  \
                            BE, YD, Y)
#define BWD_DATA(algo)                                                                             \
    cudnnConvolutionBackwardData(HD, AL, WD, W, YD, DY, CD, (cudnnConvolutionBwdDataAlgo_t)(algo), \
                                 NULL, 0, BE, XD, DX)
#define BWD_FILTER(algo)                                                                           \
    cudnnConvolutionBackwardFilter(HD, AL, XD, X, YD, DY, CD,                                      \
                                   (cudnnConvolutionBwdFilterAlgo_t)(algo), NULL, 0, BE, WD, DW)
/* Calls that run: exactly the reported workspace. */
#define FWD_RUN(algo) run_exact_ws(f, DIR_FWD, (algo))
#define BWD_DATA_RUN(algo) run_exact_ws(f, DIR_BWD_DATA, (algo))
#define BWD_FILTER_RUN(algo) run_exact_ws(f, DIR_BWD_FILTER, (algo))
#define BWD_BIAS() cudnnConvolutionBackwardBias(HD, AL, YD, DY, BE, BD, DB)

/* A row whose case does not exist on this machine returns ROW_SKIPPED. */
#define ROW_SKIPPED ((cudnnStatus_t)-1)

/* freednnCreateWithBackend(CUDA) where cuda cannot run (this is what CI sees). Where a usable
 * GPU makes it succeed, the handle is released and the row is skipped. */
static cudnnStatus_t create_cuda_unavailable(fx_t *f)
{
    cudnnStatus_t st = freednnCreateWithBackend(&f->out.h, FREEDNN_BACKEND_CUDA);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    cudnnDestroy(f->out.h);
    return ROW_SKIPPED;
}

/* ---- workspace helpers: whatever an algorithm reports, it gets exactly that much ------- */

typedef enum { DIR_FWD, DIR_BWD_DATA, DIR_BWD_FILTER } dir_t;
static const int algo_count[3] = {CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                  CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                                  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT};

static cudnnStatus_t ws_query(fx_t *f, dir_t dir, int algo, size_t *need)
{
    switch (dir) {
    case DIR_FWD:
        return cudnnGetConvolutionForwardWorkspaceSize(HD, XD, WD, CD, YD,
                                                       (cudnnConvolutionFwdAlgo_t)algo, need);
    case DIR_BWD_DATA:
        return cudnnGetConvolutionBackwardDataWorkspaceSize(
            HD, WD, YD, CD, XD, (cudnnConvolutionBwdDataAlgo_t)algo, need);
    default:
        return cudnnGetConvolutionBackwardFilterWorkspaceSize(
            HD, XD, YD, CD, WD, (cudnnConvolutionBwdFilterAlgo_t)algo, need);
    }
}

static cudnnStatus_t run_dir(fx_t *f, dir_t dir, int algo, void *ws, size_t size)
{
    switch (dir) {
    case DIR_FWD:
        return cudnnConvolutionForward(HD, AL, XD, X, WD, W, CD, (cudnnConvolutionFwdAlgo_t)algo,
                                       ws, size, BE, YD, Y);
    case DIR_BWD_DATA:
        return cudnnConvolutionBackwardData(
            HD, AL, WD, W, YD, DY, CD, (cudnnConvolutionBwdDataAlgo_t)algo, ws, size, BE, XD, DX);
    default:
        return cudnnConvolutionBackwardFilter(
            HD, AL, XD, X, YD, DY, CD, (cudnnConvolutionBwdFilterAlgo_t)algo, ws, size, BE, WD, DW);
    }
}

/* Runs `algo` with exactly the workspace it reports (NULL and 0 when it reports 0); the
 * workspace is guarded, so a write past the reported size is caught. */
static cudnnStatus_t run_exact_ws(fx_t *f, dir_t dir, int algo)
{
    size_t need = 0;
    cudnnStatus_t st = ws_query(f, dir, algo, &need);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    fd_buf_t ws = fd_buf_alloc(need);
    st = run_dir(f, dir, algo, need ? ws.data : NULL, need);
    FD_EXPECT(fd_buf_guards_ok(&ws), "dir %d algo %d wrote outside its %zu-byte workspace",
              (int)dir, algo, need);
    fd_buf_free(&ws);
    return st;
}

/* The first algorithm of `dir` that reports a workspace is given one byte less: it must be
 * rejected (BAD_PARAM) before anything is written. Skipped while no algorithm needs one. */
static cudnnStatus_t run_short_ws(fx_t *f, dir_t dir)
{
    for (int algo = 0; algo < algo_count[dir]; algo++) {
        size_t need = 0;
        if (ws_query(f, dir, algo, &need) != CUDNN_STATUS_SUCCESS || need == 0)
            continue;
        fd_buf_t ws = fd_buf_alloc(need - 1);
        cudnnStatus_t st = run_dir(f, dir, algo, ws.data, need - 1);
        FD_EXPECT(fd_buf_guards_ok(&ws), "dir %d algo %d wrote outside a short workspace", (int)dir,
                  algo);
        fd_buf_free(&ws);
        return st;
    }
    return ROW_SKIPPED;
}

/* NULL workspace of size 0 must work for every algorithm that reports 0 (all of ours today). */
static cudnnStatus_t run_null_ws_all(fx_t *f, dir_t dir)
{
    int ran = 0;
    for (int algo = 0; algo < algo_count[dir]; algo++) {
        size_t need = 1;
        if (ws_query(f, dir, algo, &need) != CUDNN_STATUS_SUCCESS || need != 0)
            continue;
        cudnnStatus_t st = run_dir(f, dir, algo, NULL, 0);
        if (st != CUDNN_STATUS_SUCCESS)
            return st;
        ran++;
    }
    return ran ? CUDNN_STATUS_SUCCESS : ROW_SKIPPED;
}

#define ROW(name, want, needle, setup, call)                                                       \
    static void setup_##name(fx_t *f)                                                              \
    {                                                                                              \
        (void)f;                                                                                   \
        setup;                                                                                     \
    }                                                                                              \
    static cudnnStatus_t call_##name(fx_t *f)                                                      \
    {                                                                                              \
        (void)f;                                                                                   \
        return call;                                                                               \
    }
#include "contract_rows.h"
#undef ROW

static const row_t rows[] = {
#define ROW(name, want, needle, setup, call) {#name, want, needle, setup_##name, call_##name},
#include "contract_rows.h"
#undef ROW
};

/* ---- runner -------------------------------------------------------------------------------- */

static sigjmp_buf crash_jump;
static void on_crash(int sig)
{
    siglongjmp(crash_jump, sig);
}

/* A rejection no row provokes, with a text no row produces: it proves the row replaced it. */
static void provoke_sentinel(char *text, size_t size)
{
    cudnnDestroyTensorDescriptor((cudnnTensorDescriptor_t)(void *)sentinel_obj);
    cudnnGetLastErrorString(text, size);
}

/* 1 when `text` contains one of the '|'-separated alternatives of `needle`. */
static int mentions(const char *text, const char *needle)
{
    char alt[128];
    while (*needle != '\0') {
        size_t len = strcspn(needle, "|");
        snprintf(alt, sizeof alt, "%.*s", (int)len, needle);
        if (strstr(text, alt) != NULL)
            return 1;
        needle += len + (needle[len] == '|');
    }
    return 0;
}

static void compare_snaps(const row_t *r, const snap_t *a, const snap_t *b)
{
    for (int i = 0; i < SNAP_T; i++)
        FD_EXPECT(memcmp(&a->t[i], &b->t[i], sizeof a->t[i]) == 0,
                  "%s: %s changed by a rejected call", r->name, tnames[i]);
    for (int i = 0; i < SNAP_F; i++)
        FD_EXPECT(memcmp(&a->f[i], &b->f[i], sizeof a->f[i]) == 0,
                  "%s: %s changed by a rejected call", r->name, fnames[i]);
    for (int i = 0; i < SNAP_C; i++)
        FD_EXPECT(memcmp(&a->c[i], &b->c[i], sizeof a->c[i]) == 0,
                  "%s: %s changed by a rejected call", r->name, cnames[i]);
    for (int b2 = 0; b2 < FX_BUFS; b2++)
        FD_EXPECT(a->hash[b2] == b->hash[b2], "%s: buffer %s written by a rejected call", r->name,
                  bnames[b2]);
}

static int rows_skipped;

static int run_row(const row_t *r)
{
    static fx_t f; /* static: survives a siglongjmp */
    fx_init(&f);
    r->setup(&f);
    if (f.setup_failed) {
        FD_EXPECT(0, "%s: setup failed", r->name);
        fx_free(&f);
        return 0;
    }
    static snap_t before, after;
    static fx_out_t out_before;
    snap_take(&f, &before);
    out_before = f.out;
    char sentinel[512], last[1024];
    provoke_sentinel(sentinel, sizeof sentinel);

    int sig = sigsetjmp(crash_jump, 1);
    if (sig != 0) {
        FD_EXPECT(0, "%s: crashed with signal %d (every argument must get a status)", r->name, sig);
        return 0; /* the fixture is leaked: state after a crash is unknown */
    }
    cudnnStatus_t got = r->call(&f);
    cudnnGetLastErrorString(last, sizeof last);
    if (got == ROW_SKIPPED) {
        printf("skipped: %s (the case does not arise with this build and machine)\n", r->name);
        rows_skipped++;
        fx_free(&f);
        return 1;
    }

    int ok = got == r->want;
    FD_EXPECT(ok, "%s: got %s (%d), want %s (%d); last error: %s", r->name,
              cudnnGetErrorString(got), (int)got, cudnnGetErrorString(r->want), (int)r->want, last);
    if (r->want != CUDNN_STATUS_SUCCESS && got != CUDNN_STATUS_SUCCESS) {
        FD_EXPECT(last[0] != '\0' && strcmp(last, sentinel) != 0,
                  "%s: the rejection left no reason in cudnnGetLastErrorString", r->name);
        if (r->needle != NULL)
            FD_EXPECT(mentions(last, r->needle), "%s: reason \"%s\" does not mention \"%s\"",
                      r->name, last, r->needle);
        snap_take(&f, &after);
        compare_snaps(r, &before, &after);
        FD_EXPECT(memcmp(&out_before, &f.out, sizeof f.out) == 0,
                  "%s: an out-parameter was written by a rejected call", r->name);
    }
    for (int b = 0; b < FX_BUFS; b++) {
        FD_EXPECT(fd_buf_guards_ok(&f.buf[b]), "%s: guard zone of %s overwritten", r->name,
                  bnames[b]);
        if (fx_is_input[b])
            FD_EXPECT(fd_buf_hash(&f.buf[b]) == before.hash[b], "%s: input %s modified", r->name,
                      bnames[b]);
    }
    fx_free(&f);
    return ok;
}

int main(int argc, char **argv)
{
    memset(garbage, 0xA5, sizeof garbage);
    memset(sentinel_obj, 0x3C, sizeof sentinel_obj);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);

    /* argv[1]: run only the rows whose name contains it; "!text": all rows but those */
    const char *filter = argc > 1 ? argv[1] : NULL;
    int exclude = filter != NULL && filter[0] == '!';
    if (exclude)
        filter++;
    int n = (int)(sizeof rows / sizeof rows[0]), ran = 0, passed = 0;
    for (int i = 0; i < n; i++) {
        if (filter != NULL && (strstr(rows[i].name, filter) != NULL) == exclude)
            continue;
        ran++;
        passed += run_row(&rows[i]);
    }
    printf("contract table: %d rows, %d ran, %d skipped, %d with the expected status\n", n, ran,
           rows_skipped, passed - rows_skipped);
    return fd_test_finish();
}
