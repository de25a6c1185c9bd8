/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_conv_int8.c - the cuda INT8 forward rows (src/cuda/conv_int8.cu: the tensor-core
 * fd_conv_fwd_int8_imma, and in a child process with FREEDNN_INT8_IMMA=0 the IDP4A
 * fd_conv_fwd_int8_dp4a) against the ref backend (src/ref/conv_int8_ref.c) through the public
 * API and tests/gpu/gpu_mirror.h (guarded buffers copied whole to the device, unchanged inputs,
 * the poison between strided elements, determinism re-runs).
 *
 * Tolerance 0 everywhere: the integer sums are exact (both sides wrap modulo 2^32) and the
 * float epilogue is the ref's operations in the ref's order, rounded one at a time, so every
 * output byte must equal ref's, INT8 and FLOAT y alike (a NaN matches a NaN, as gpu_mirror
 * allows). beta == 0 runs over a y poisoned with 0xFF bytes (NaN for FLOAT y), so a kernel
 * that read y would differ.
 *
 * Cases: 1x1, 3x3 pad 1, 5x5, stride 2, dilation 2, odd H / W, 1-d and 3-d, N = 1..3, C = 4..64
 * (words per tap not dividing the 8-word k-step: C = 12, 20), K = 1..70 and 136 (column tile
 * edges; INT8 y needs K % 4 == 0), M tails, groups, CUDNN_CONVOLUTION, alpha / beta (beta != 0
 * on both output types), values spanning -128..127 with alphas that saturate, two 32-bit wraps
 * (C * taps = 147456 products of (-128)^2 and 147600 of 127^2), strides not multiples of 4
 * (the bytewise loader), a randomized sweep, both implicit-GEMM enums; and the NCHW_VECT_C
 * configurations INT8x4, UINT8x4 (y the same or FLOAT) and INT8x32, fixed and randomized. Each run checks that
 * dispatch named the row. Decline: C / groups = 2 answers NOT_SUPPORTED on the cuda handle
 * and the dispatch log gives this row's reason, and a third enum answers NOT_SUPPORTED on both handles.
 * Exits 77 without a usable GPU. --smoke: a few small cases.
 */
#define _GNU_SOURCE /* setenv */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_mirror.h"

/* The row under test: the tensor-core one, or under FREEDNN_INT8_IMMA=0 the IDP4A one. */
static const char *row_name = "fd_conv_fwd_int8_imma";

typedef struct {
    int nsp, n, c, k, groups;
    int in[3], f[3], pad[3], str[3], dil[3];
    int flip;     /* CUDNN_CONVOLUTION */
    int gap;      /* extra elements after every pixel of x and y (strides of C + gap) */
    int fill;     /* 0 random bytes, 1 x = w = -128, 2 x = w = 127 */
    int algo;
    cudnnDataType_t xdt, ydt; /* x INT8 (then w KRSC) or INT8x4 / UINT8x4 / INT8x32 (NCHW_VECT_C) */
    float alpha, beta;
    uint64_t seed;
    /* derived */
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    int64_t xbytes, wbytes, ybytes;
} i8_case_t;

/* Channels-last strides with `gap` elements after every pixel; returns the extent. */
static int64_t nhwc(int nb, const int *dim, int gap, int *st)
{
    int64_t acc = dim[1] + gap;
    st[1] = 1;
    for (int i = nb - 1; i >= 2; i--) {
        st[i] = (int)acc;
        acc *= dim[i];
    }
    st[0] = (int)acc;
    return acc * dim[0];
}

static int vect_of(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_INT8x32 ? 32 : dt == CUDNN_DATA_INT8x4 || dt == CUDNN_DATA_UINT8x4 ? 4 : 1;
}

/* Packed NCHW strides (v == 1) or NCHW_VECT_C's in elements; returns the extent. */
static int64_t nchw(int nb, const int *dim, int v, int *st)
{
    int64_t acc = v;
    for (int i = nb - 1; i >= 0; i--) {
        st[i] = (int)(acc / v);
        acc *= i == 1 ? dim[1] / v : dim[i];
    }
    return acc;
}

static int setup(i8_case_t *t)
{
    const int nb = t->nsp + 2;
    const int v = vect_of(t->xdt);
    int xdim[5] = {t->n, t->c}, wdim[5] = {t->k, t->c / t->groups}, ydim[5] = {t->n, t->k}, st[5];
    for (int i = 0; i < t->nsp; i++) {
        xdim[2 + i] = t->in[i];
        wdim[2 + i] = t->f[i];
        ydim[2 + i] = (t->in[i] + 2 * t->pad[i] - ((t->f[i] - 1) * t->dil[i] + 1)) / t->str[i] + 1;
    }
    if (cudnnCreateTensorDescriptor(&t->xd) || cudnnCreateTensorDescriptor(&t->yd) ||
        cudnnCreateFilterDescriptor(&t->wd) || cudnnCreateConvolutionDescriptor(&t->cd))
        return 0;
    t->wbytes = 1;
    for (int i = 0; i < nb; i++)
        t->wbytes *= wdim[i];
    const size_t ysize = t->ydt == CUDNN_DATA_FLOAT ? 4 : 1;
    if (v == 1) {
        t->xbytes = nhwc(nb, xdim, t->gap, st);
        FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->xd, CUDNN_DATA_INT8, nb, xdim, st), CUDNN_STATUS_SUCCESS);
        t->ybytes = nhwc(nb, ydim, t->gap, st) * (int64_t)ysize;
        FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->yd, t->ydt, nb, ydim, st), CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(cudnnSetFilterNdDescriptor(t->wd, CUDNN_DATA_INT8, CUDNN_TENSOR_NHWC, nb, wdim),
                         CUDNN_STATUS_SUCCESS);
    } else {
        t->xbytes = nchw(nb, xdim, v, st);
        FD_EXPECT_STATUS(cudnnSetTensorNdDescriptorEx(t->xd, CUDNN_TENSOR_NCHW_VECT_C, t->xdt, nb, xdim),
                         CUDNN_STATUS_SUCCESS);
        if (t->ydt == CUDNN_DATA_FLOAT) { /* the _EXT configurations: y in any layout, here NCHW */
            t->ybytes = nchw(nb, ydim, 1, st) * (int64_t)ysize;
            FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->yd, t->ydt, nb, ydim, st), CUDNN_STATUS_SUCCESS);
        } else {
            t->ybytes = nchw(nb, ydim, v, st);
            FD_EXPECT_STATUS(cudnnSetTensorNdDescriptorEx(t->yd, CUDNN_TENSOR_NCHW_VECT_C, t->ydt, nb, ydim),
                             CUDNN_STATUS_SUCCESS);
        }
        FD_EXPECT_STATUS(cudnnSetFilterNdDescriptor(t->wd, v == 32 ? CUDNN_DATA_INT8x32 : CUDNN_DATA_INT8x4,
                                                    CUDNN_TENSOR_NCHW_VECT_C, nb, wdim),
                         CUDNN_STATUS_SUCCESS);
    }
    FD_EXPECT_STATUS(cudnnSetConvolutionNdDescriptor(t->cd, t->nsp, t->pad, t->str, t->dil,
                                                     t->flip ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION,
                                                     CUDNN_DATA_INT32),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionGroupCount(t->cd, t->groups), CUDNN_STATUS_SUCCESS);
    return 1;
}

static void teardown(i8_case_t *t)
{
    cudnnDestroyTensorDescriptor(t->xd);
    cudnnDestroyTensorDescriptor(t->yd);
    cudnnDestroyFilterDescriptor(t->wd);
    cudnnDestroyConvolutionDescriptor(t->cd);
}

static void fill(int i, void *payload, size_t bytes, void *ctx)
{
    const i8_case_t *t = ctx;
    fd_rng_t r;
    fd_rng_seed(&r, t->seed * 7 + (uint64_t)i);
    uint8_t *b = payload;
    if (i < 2) { /* x, w */
        for (size_t e = 0; e < bytes; e++)
            b[e] = t->fill == 1 ? 0x80 : t->fill == 2 ? 0x7f : (uint8_t)fd_rng_int(&r, 0, 255);
        return;
    }
    if (i != 2 || t->beta == 0.0f)
        return; /* y stays poisoned: beta == 0 must not read it */
    if (t->ydt == CUDNN_DATA_FLOAT)
        for (size_t e = 0; e < bytes / 4; e++)
            ((float *)payload)[e] = (float)fd_rng_int(&r, -400, 400) * 0.125f;
    else
        for (size_t e = 0; e < bytes; e++)
            b[e] = (uint8_t)fd_rng_int(&r, 0, 255);
}

/* The dispatch log: the row that ran (gm_last_impl, as gm_watch_dispatch records it) and why
 * this row last declined. */
static char row_skipped[512];

static void on_log(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)udata, (void)dbg;
    const char *d = strstr(msg, "dispatch: ");
    const char *to = d ? strstr(d, " -> ") : NULL;
    char key[160];
    snprintf(key, sizeof key, "%s skipped: ", row_name);
    const char *skip = d ? strstr(d, key) : NULL;
    if (to)
        snprintf(gm_last_impl, sizeof gm_last_impl, "%s", to + 4);
    if (skip)
        snprintf(row_skipped, sizeof row_skipped, "%s", skip + strlen(key));
}

static cudnnStatus_t call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    const i8_case_t *t = ctx;
    gm_last_impl[0] = '\0';
    return cudnnConvolutionForward(h, &t->alpha, t->xd, ptr[0], t->wd, ptr[1], t->cd,
                                   (cudnnConvolutionFwdAlgo_t)t->algo, NULL, 0, &t->beta, t->yd, ptr[2]);
}

static const char *dt_label(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT:
        return "f32";
    case CUDNN_DATA_INT8x4:
        return "s8x4";
    case CUDNN_DATA_UINT8x4:
        return "u8x4";
    case CUDNN_DATA_INT8x32:
        return "s8x32";
    default:
        return "s8";
    }
}

static void run(i8_case_t t)
{
    if (!setup(&t))
        return;
    char label[256];
    snprintf(label, sizeof label,
             "%dd n%d c%d k%d g%d in%dx%dx%d f%dx%dx%d p%d u%d d%d %s gap%d %s->%s a%g b%g fill%d algo%d",
             t.nsp, t.n, t.c, t.k, t.groups, t.in[0], t.in[1], t.in[2], t.f[0], t.f[1], t.f[2], t.pad[0],
             t.str[0], t.dil[0], t.flip ? "conv" : "xcorr", t.gap, dt_label(t.xdt), dt_label(t.ydt),
             (double)t.alpha, (double)t.beta, t.fill, t.algo);
    gm_case_t c = {0};
    c.label = label;
    c.nbuf = 3;
    c.buf[0] = (gm_buf_t){"x", (size_t)t.xbytes, CUDNN_DATA_INT8, GM_IN, 0, 0};
    c.buf[1] = (gm_buf_t){"w", (size_t)t.wbytes, CUDNN_DATA_INT8, GM_IN, 0, 0};
    /* integer y compares as bytes (CUDNN_DATA_INT8), FLOAT y as floats; both bit for bit */
    c.buf[2] = (gm_buf_t){"y", (size_t)t.ybytes, t.ydt == CUDNN_DATA_FLOAT ? t.ydt : CUDNN_DATA_INT8,
                          t.beta != 0.0f ? GM_INOUT : GM_OUT, 0, 0};
    c.det = 1;
    c.fill = fill;
    c.call = call;
    c.ctx = &t;
    c.want = CUDNN_STATUS_SUCCESS;
    gm_run(&c);
    /* the last call was the cuda handle's determinism re-run */
    FD_EXPECT(strcmp(gm_last_impl, row_name) == 0, "%s: dispatch ran %s, expected %s", label,
              gm_last_impl[0] ? gm_last_impl : "(nothing logged)", row_name);
    teardown(&t);
}

static i8_case_t base(int n, int c, int k, int h, int w, int r, int s, cudnnDataType_t ydt)
{
    i8_case_t t;
    memset(&t, 0, sizeof t);
    t.nsp = 2, t.n = n, t.c = c, t.k = k, t.groups = 1;
    t.in[0] = h, t.in[1] = w, t.in[2] = 1, t.f[0] = r, t.f[1] = s, t.f[2] = 1;
    for (int d = 0; d < 3; d++)
        t.str[d] = t.dil[d] = 1;
    t.pad[0] = r / 2, t.pad[1] = s / 2;
    t.xdt = CUDNN_DATA_INT8, t.ydt = ydt;
    t.algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    /* int8 y: an alpha that keeps most of the sums of random bytes inside [-128, 127] and
     * saturates the rest; float y: a power of two (and others below) */
    t.alpha = ydt == CUDNN_DATA_FLOAT ? 1.0f : 1.0f / (float)(64 * c * r * s);
    t.beta = 0.0f;
    t.seed = (uint64_t)(n * 131 + c * 17 + k * 7 + h + w * 3 + r * 5 + (ydt == CUDNN_DATA_FLOAT));
    return t;
}

/* The row declines C / groups % 4 != 0: the cuda handle answers NOT_SUPPORTED with its reason
 * (ref computes it). Device buffers are real, so only the selection can refuse. */
static void decline_case(void)
{
    i8_case_t t = base(1, 8, 8, 5, 5, 3, 3, CUDNN_DATA_FLOAT);
    t.groups = 4; /* C / groups = 2 */
    if (!setup(&t))
        return;
    void *dx = NULL, *dw = NULL, *dy = NULL;
    if (cudaMalloc(&dx, (size_t)t.xbytes) != cudaSuccess || cudaMalloc(&dw, (size_t)t.wbytes) != cudaSuccess ||
        cudaMalloc(&dy, (size_t)t.ybytes) != cudaSuccess) {
        FD_EXPECT(0, "decline case: cudaMalloc failed");
    } else {
        for (int algo = 0; algo < 2; algo++) {
            t.algo = algo;
            row_skipped[0] = '\0';
            cudnnStatus_t st = call(gm_cuda, (void *const[]){dx, dw, dy}, &t);
            FD_EXPECT(st == CUDNN_STATUS_NOT_SUPPORTED, "C / groups = 2, algo %d: cuda answered %s, want NOT_SUPPORTED",
                      algo, cudnnGetErrorString(st));
            FD_EXPECT(strncmp(row_skipped, "C / groups = 2, not a multiple of 4", 35) == 0,
                      "C / groups = 2, algo %d: %s declined with '%s'", algo, row_name, row_skipped);
        }
        FD_EXPECT(cudaDeviceSynchronize() == cudaSuccess, "decline case: a CUDA error");
    }
    cudaFree(dx), cudaFree(dw), cudaFree(dy);
    teardown(&t);
}

/* Randomized problems in the manner of tests/impl/test_cpu_conv_int8.c. */
static void sweep(int count)
{
    static const float ab[][2] = {{1.0f, 0.0f}, {0.0078125f, 0.0f}, {0.5f, 1.0f}, {-0.003f, 0.5f},
                                  {1.0f / 1024.0f, -1.0f}, {1e-4f, 0.0f}, {3.0f, 0.0f}};
    const uint64_t master = fd_test_sweep_seed(0x1d9a8c0de);
    for (int i = 0; i < count; i++) {
        fd_rng_t r;
        fd_rng_seed(&r, fd_test_mix(master, (uint64_t)i));
        i8_case_t t;
        memset(&t, 0, sizeof t);
        t.seed = fd_rng_next(&r);
        t.xdt = CUDNN_DATA_INT8;
        t.ydt = i % 3 == 0 ? CUDNN_DATA_FLOAT : CUDNN_DATA_INT8;
        t.nsp = i % 7 == 0 ? 1 : i % 11 == 0 ? 3 : 2;
        t.groups = fd_rng_int(&r, 0, 3) == 0 ? fd_rng_int(&r, 2, 3) : 1;
        t.c = t.groups * 4 * fd_rng_int(&r, 1, 12);
        t.k = t.groups * (t.ydt == CUDNN_DATA_FLOAT ? fd_rng_int(&r, 1, 40) : 4 * fd_rng_int(&r, 1, 20));
        t.n = fd_rng_int(&r, 1, 3);
        for (int d = 0; d < 3; d++)
            t.in[d] = t.f[d] = t.str[d] = t.dil[d] = 1;
        for (int d = 0; d < t.nsp; d++) {
            t.f[d] = fd_rng_int(&r, 1, t.nsp == 3 ? 2 : 3);
            t.dil[d] = fd_rng_int(&r, 0, 3) == 0 ? 2 : 1;
            t.str[d] = fd_rng_int(&r, 1, 2);
            t.pad[d] = fd_rng_int(&r, 0, t.f[d]);
            const int span = (t.f[d] - 1) * t.dil[d] + 1;
            t.in[d] = fd_rng_int(&r, span > 3 ? span : 3, t.nsp == 3 ? 5 : 17);
        }
        t.flip = fd_rng_int(&r, 0, 1);
        t.gap = fd_rng_int(&r, 0, 3) == 0 ? fd_rng_int(&r, 1, 4) : 0;
        t.alpha = ab[i % 7][0], t.beta = ab[(i / 7) % 7][1];
        t.algo = i % 2;
        run(t);
    }
}

/* The NCHW_VECT_C configurations: INT8x4 / UINT8x4 (y the same or FLOAT: the _EXT ones) and
 * INT8x32, fixed shapes and a randomized sweep. */
static void vect_cases(int count)
{
    static const cudnnDataType_t xdts[3] = {CUDNN_DATA_INT8x4, CUDNN_DATA_UINT8x4, CUDNN_DATA_INT8x32};
    for (int xi = 0; xi < 3; xi++) {
        const cudnnDataType_t xdt = xdts[xi];
        const int v = vect_of(xdt);
        i8_case_t t = base(2, v == 32 ? 64 : 20, v == 32 ? 64 : 36, 11, 9, 3, 3, xdt);
        t.xdt = xdt;
        run(t);
        t.alpha = 0.5f / (float)(v == 32 ? 64 : 20), t.beta = 0.5f, t.flip = 1;
        run(t);
        t = base(3, v == 32 ? 32 : 8, v == 32 ? 32 : 8, 13, 12, 3, 3, xdt);
        t.xdt = xdt, t.str[0] = t.str[1] = 2, t.dil[1] = 2, t.pad[1] = 2;
        run(t);
        t = base(1, 2 * v, 2 * v, 9, 9, 3, 3, xdt);
        t.xdt = xdt, t.groups = 2;
        run(t);
        if (v == 32)
            continue; /* INT8x32 has no FLOAT-output configuration */
        t = base(2, 20, 33, 11, 9, 3, 3, CUDNN_DATA_FLOAT);
        t.xdt = xdt;
        run(t);
        t.beta = -1.0f, t.alpha = 0.25f;
        run(t);
    }
    static const float ab[][2] = {{1.0f, 0.0f}, {0.0078125f, 0.0f}, {0.5f, 1.0f}, {-0.003f, 0.5f},
                                  {1.0f / 1024.0f, -1.0f}, {1e-4f, 0.0f}, {3.0f, 0.0f}};
    const uint64_t master = fd_test_sweep_seed(0x7ec7c0de);
    for (int i = 0; i < count; i++) {
        fd_rng_t r;
        fd_rng_seed(&r, fd_test_mix(master, (uint64_t)i));
        i8_case_t t;
        memset(&t, 0, sizeof t);
        t.seed = fd_rng_next(&r);
        t.xdt = xdts[i % 3];
        const int v = vect_of(t.xdt);
        t.ydt = v != 32 && fd_rng_int(&r, 0, 2) == 0 ? CUDNN_DATA_FLOAT : t.xdt;
        t.nsp = 2;
        t.groups = fd_rng_int(&r, 0, 3) == 0 ? 2 : 1;
        t.c = t.groups * v * fd_rng_int(&r, 1, v == 32 ? 2 : 5);
        t.k = t.groups * (t.ydt == CUDNN_DATA_FLOAT ? 1 : v) * fd_rng_int(&r, 1, v == 32 ? 2 : 9);
        t.n = fd_rng_int(&r, 1, 3);
        for (int d = 0; d < 3; d++)
            t.in[d] = t.f[d] = t.str[d] = t.dil[d] = 1;
        for (int d = 0; d < 2; d++) {
            t.f[d] = fd_rng_int(&r, 1, 3);
            t.dil[d] = fd_rng_int(&r, 0, 3) == 0 ? 2 : 1;
            t.str[d] = fd_rng_int(&r, 1, 2);
            t.pad[d] = fd_rng_int(&r, 0, t.f[d]);
            const int span = (t.f[d] - 1) * t.dil[d] + 1;
            t.in[d] = fd_rng_int(&r, span > 3 ? span : 3, 13);
        }
        t.flip = fd_rng_int(&r, 0, 1);
        t.alpha = ab[i % 7][0], t.beta = ab[(i / 7) % 7][1];
        t.algo = i % 2;
        run(t);
    }
}

/* The whole program again in a child process with FREEDNN_INT8_IMMA=0 (the IDP4A row). */
static int child_dp4a(int smoke)
{
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return 0;
    self[len] = '\0';
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "FREEDNN_INT8_IMMA=0 '%s'%s", self, smoke ? " --smoke" : "");
    fflush(stdout);
    return system(cmd) == 0;
}

int main(int argc, char **argv)
{
    const char *imma = getenv("FREEDNN_INT8_IMMA");
    const int dp4a = imma != NULL && strcmp(imma, "0") == 0;
    if (dp4a)
        row_name = "fd_conv_fwd_int8_dp4a";
    setenv("FREEDNN_LOG_DISPATCH", "1", 1);
    gm_init(argc, argv, dp4a ? "test_gpu_conv_int8 (dp4a)" : "test_gpu_conv_int8 (imma)");
    FD_EXPECT_STATUS(cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, on_log), CUDNN_STATUS_SUCCESS);
    const cudnnDataType_t S8 = CUDNN_DATA_INT8, F32 = CUDNN_DATA_FLOAT;

    /* 3x3 pad 1 and 1x1, both outputs, both implicit-GEMM enums */
    i8_case_t t = base(1, 16, 16, 7, 9, 3, 3, S8);
    run(t);
    t.algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    run(t);
    run(base(2, 8, 12, 6, 5, 1, 1, F32));
    t = base(1, 8, 8, 6, 7, 3, 3, CUDNN_DATA_INT8x4);
    t.xdt = CUDNN_DATA_INT8x4;
    run(t);
    decline_case();
    if (gm_smoke) {
        if (!dp4a)
            FD_EXPECT(child_dp4a(1), "the checks failed with FREEDNN_INT8_IMMA=0");
        return gm_finish();
    }

    /* K across the column tile: 1..70 (float y takes any K), 136 (two column tiles) */
    static const int ks[] = {1, 2, 3, 5, 7, 8, 15, 31, 33, 63, 64, 65, 70, 136};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        run(base(1, 12, ks[i], 9, 7, 3, 3, F32));
    static const int ks8[] = {4, 12, 32, 68, 128, 132};
    for (size_t i = 0; i < sizeof ks8 / sizeof ks8[0]; i++)
        run(base(2, 20, ks8[i], 11, 13, 3, 3, S8));
    /* C: 4 (8 taps per k-step), 12 and 20 (words per tap not dividing 8), 32, 64; N = 1..3 */
    static const int cs[] = {4, 12, 20, 32, 36, 64};
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        run(base(1 + (int)i % 3, cs[i], 24, 10, 11, 3, 3, S8));
        run(base(1 + (int)(i + 1) % 3, cs[i], 17, 9, 8, 1, 1, F32));
    }
    /* 5x5, stride 2, dilation 2, odd sizes, CUDNN_CONVOLUTION, asymmetric padding */
    run(base(2, 16, 24, 13, 11, 5, 5, S8));
    t = base(3, 24, 40, 17, 15, 3, 3, F32);
    t.str[0] = t.str[1] = 2;
    run(t);
    t = base(2, 16, 20, 15, 13, 3, 3, S8);
    t.dil[0] = t.dil[1] = 2, t.pad[0] = 2, t.pad[1] = 1;
    run(t);
    t = base(2, 8, 16, 9, 7, 3, 2, S8);
    t.flip = 1, t.pad[1] = 1;
    run(t);
    t = base(1, 12, 9, 10, 9, 7, 7, F32);
    t.pad[0] = 3, t.pad[1] = 1, t.str[1] = 3;
    run(t);
    /* M tails and several row tiles */
    run(base(3, 16, 64, 19, 23, 3, 3, S8));
    run(base(1, 64, 64, 28, 28, 3, 3, S8));
    /* 1-d and 3-d */
    t = base(2, 16, 12, 33, 1, 3, 1, S8);
    t.nsp = 1, t.pad[1] = 0;
    run(t);
    t = base(1, 8, 12, 5, 6, 3, 3, F32);
    t.nsp = 3, t.in[2] = 7, t.f[2] = 3, t.pad[2] = 1, t.str[2] = 2;
    run(t);
    /* groups */
    t = base(2, 16, 12, 9, 9, 3, 3, S8);
    t.groups = 2;
    run(t);
    t = base(1, 36, 9, 8, 8, 3, 3, F32);
    t.groups = 3;
    run(t);
    /* alpha / beta: beta != 0 on both outputs, negative alpha, saturation */
    t = base(2, 16, 24, 9, 9, 3, 3, F32);
    t.alpha = 0.5f, t.beta = 0.25f;
    run(t);
    t = base(2, 16, 24, 9, 9, 3, 3, S8);
    t.alpha = -0.003f, t.beta = 0.5f;
    run(t);
    t = base(2, 16, 24, 9, 9, 3, 3, S8);
    t.alpha = 1.0f / 32.0f, t.beta = -1.0f; /* most outputs saturate */
    run(t);
    t = base(1, 16, 16, 8, 8, 3, 3, S8);
    t.alpha = 1.0f; /* everything saturates */
    run(t);
    /* strides not multiples of 4: the bytewise loader; y with gaps too */
    t = base(2, 12, 20, 9, 8, 3, 3, S8);
    t.gap = 1;
    run(t);
    t = base(1, 16, 13, 7, 9, 3, 3, F32);
    t.gap = 2, t.beta = 1.0f;
    run(t);
    t = base(1, 16, 16, 7, 9, 3, 3, S8);
    t.gap = 4; /* aligned, padded pixels */
    run(t);
    /* the 32-bit wrap: 4096 x 36 products of (-128)^2 = 2^31 + 2^28 per output; 4100 x 36 of
     * 127^2 = 2380640400 > 2^31 */
    t = base(1, 4096, 20, 6, 6, 6, 6, F32);
    t.pad[0] = t.pad[1] = 0, t.fill = 1;
    run(t);
    t.ydt = S8, t.k = 16, t.alpha = 1.0f / 16777216.0f;
    run(t);
    t = base(1, 4100, 8, 6, 6, 6, 6, F32);
    t.pad[0] = t.pad[1] = 0, t.fill = 2;
    run(t);
    t.ydt = S8, t.alpha = 1.0f / 16777216.0f;
    run(t);
    /* random problems */
    sweep((int)(60 * fd_test_scale()));
    vect_cases((int)(30 * fd_test_scale()));

    /* an enum the INT8 rows do not serve: NOT_SUPPORTED on both handles */
    t = base(1, 16, 16, 7, 9, 3, 3, S8);
    t.algo = CUDNN_CONVOLUTION_FWD_ALGO_GEMM;
    if (setup(&t)) {
        gm_case_t c = {0};
        c.label = "s8 algo GEMM";
        c.nbuf = 3;
        c.buf[0] = (gm_buf_t){"x", (size_t)t.xbytes, S8, GM_IN, 0, 0};
        c.buf[1] = (gm_buf_t){"w", (size_t)t.wbytes, S8, GM_IN, 0, 0};
        c.buf[2] = (gm_buf_t){"y", (size_t)t.ybytes, S8, GM_OUT, 0, 0};
        c.fill = fill, c.call = call, c.ctx = &t;
        c.want = CUDNN_STATUS_NOT_SUPPORTED;
        gm_run(&c);
        teardown(&t);
    }
    if (!dp4a)
        FD_EXPECT(child_dp4a(0), "the checks failed with FREEDNN_INT8_IMMA=0");
    return gm_finish();
}
