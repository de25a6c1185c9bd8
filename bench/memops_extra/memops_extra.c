/* SPDX-License-Identifier: MIT */
/*
 * memops_extra.c - timing of the memory-bound calls dnnbench has no driver for (reduce,
 * dropout), and of softmax / LRN with a CPU-time column for a loaded machine
 * (docs/perf/cpu-memops-*.md), through the public API on one backend handle.
 *
 * Each run: f32, the tensor filled once with reals in [-4, 4), one warm-up call, then the
 * minimum over --reps calls (each after writing a 64 MiB buffer, so that the tensors start out
 * of cache) of the wall time and of the process CPU time (with
 * OMP_NUM_THREADS=1 the CPU time is the computing thread's own, so it is less disturbed by
 * other programs on a shared machine than the wall time; both are printed). GB/s counts the
 * compulsory traffic only: softmax fwd 8 B/element, bwd 12; LRN fwd 8, bwd 16; reduce 4
 * (+ C); dropout 9 (x or dy, y or dx, one mask byte).
 *
 * (bench/memops_extra.c, the elementwise helper's, times the elementwise calls the same way.)
 * Build (against a build directory, here build-h4smx):
 *   gcc -O2 -Iinclude bench/memops_extra/memops_extra.c -Lbuild-h4smx -lfreednn \
 *       -Wl,-rpath,$PWD/build-h4smx -lm -o build-h4smx/memops_extra
 * Run:
 *   OMP_NUM_THREADS=1 build-h4smx/memops_extra [--backend=cpu|ref] [--reps=N] [--hot] OP ...
 *   (--hot: no flush between calls, so a tensor that fits the caches is timed from them: the
 *   call's arithmetic cost per element)
 *   OP: softmax fwd|bwd fast|accurate|log channel|instance nchw|nhwc N C H W
 *       lrn fwd|bwd nchw|nhwc N C H W
 *       reduce add|mul|min|max|amax|avg|norm1|norm2|mul_no_zeros chan|overc|all nchw|nhwc N C H W
 *       dropout fwd|bwd nchw|nhwc N C H W [p]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cudnn.h"
#include "freednn.h"

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudnnStatus_t s_ = (x);                                                                    \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                          \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudnnGetErrorString(s_));   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static double clk(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static cudnnTensorDescriptor_t desc(int nhwc, int n, int c, int h, int w)
{
    cudnnTensorDescriptor_t d;
    CK(cudnnCreateTensorDescriptor(&d));
    CK(cudnnSetTensor4dDescriptor(d, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                  n, c, h, w));
    return d;
}

static float *buf(size_t n, int fill)
{
    void *v = NULL; /* 64-byte aligned, as tensor allocators (and dnnbench's buffers) are */
    if (posix_memalign(&v, 64, n * sizeof(float)) != 0)
        exit(1);
    float *p = v;
    unsigned s = 12345;
    for (size_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        p[i] = fill ? (float)((s >> 8) % 8000) / 1000.0f - 4.0f : 0.0f;
    }
    return p;
}

int main(int argc, char **argv)
{
    freednnBackend_t be = FREEDNN_BACKEND_CPU;
    int reps = 10, a = 1, hot = 0;
    for (; a < argc && strncmp(argv[a], "--", 2) == 0; a++) {
        if (strcmp(argv[a], "--backend=ref") == 0)
            be = FREEDNN_BACKEND_REF;
        else if (strncmp(argv[a], "--reps=", 7) == 0)
            reps = atoi(argv[a] + 7);
        else if (strcmp(argv[a], "--hot") == 0)
            hot = 1;
    }
    if (a >= argc) {
        fprintf(stderr, "usage: see the header of memops_extra.c\n");
        return 2;
    }
    const char *op = argv[a++];
    char **v = argv + a;
    int nv = argc - a;
    cudnnHandle_t h;
    CK(freednnCreateWithBackend(&h, be));
    const float one = 1.0f, zero = 0.0f;
    int N, C, H, W, nhwc;
    double bytes_per = 0;
    void (*dummy)(void) = 0;
    (void)dummy;
    /* the call to time, as a small state machine: kind + arguments */
    enum { K_SMX_F, K_SMX_B, K_LRN_F, K_LRN_B, K_RED, K_DR_F, K_DR_B } kind;
    cudnnSoftmaxAlgorithm_t salgo = CUDNN_SOFTMAX_ACCURATE;
    cudnnSoftmaxMode_t smode = CUDNN_SOFTMAX_MODE_CHANNEL;
    cudnnReduceTensorOp_t rop = CUDNN_REDUCE_TENSOR_ADD;
    int pat = 0;
    float prob = 0.3f;
    int k = 0;
    if (strcmp(op, "softmax") == 0 && nv >= 8) {
        kind = strcmp(v[0], "bwd") == 0 ? K_SMX_B : K_SMX_F;
        salgo = strcmp(v[1], "fast") == 0  ? CUDNN_SOFTMAX_FAST
                : strcmp(v[1], "log") == 0 ? CUDNN_SOFTMAX_LOG
                                           : CUDNN_SOFTMAX_ACCURATE;
        smode = strcmp(v[2], "instance") == 0 ? CUDNN_SOFTMAX_MODE_INSTANCE
                                              : CUDNN_SOFTMAX_MODE_CHANNEL;
        k = 3;
        bytes_per = kind == K_SMX_F ? 8 : 12;
    } else if (strcmp(op, "lrn") == 0 && nv >= 6) {
        kind = strcmp(v[0], "bwd") == 0 ? K_LRN_B : K_LRN_F;
        k = 1;
        bytes_per = kind == K_LRN_F ? 8 : 16;
    } else if (strcmp(op, "reduce") == 0 && nv >= 7) {
        static const char *names[] = {"add", "mul",   "min",   "max",         "amax",
                                      "avg", "norm1", "norm2", "mul_no_zeros"};
        for (int i = 0; i < 9; i++)
            if (strcmp(v[0], names[i]) == 0)
                rop = (cudnnReduceTensorOp_t)i;
        pat = strcmp(v[1], "overc") == 0 ? 1 : strcmp(v[1], "all") == 0 ? 2 : 0;
        kind = K_RED;
        k = 2;
        bytes_per = 4;
    } else if (strcmp(op, "dropout") == 0 && nv >= 6) {
        kind = strcmp(v[0], "bwd") == 0 ? K_DR_B : K_DR_F;
        k = 1;
        if (nv >= 7)
            prob = (float)atof(v[6]);
        bytes_per = 9;
    } else {
        fprintf(stderr, "usage: see the header of memops_extra.c\n");
        return 2;
    }
    nhwc = strcmp(v[k], "nhwc") == 0;
    N = atoi(v[k + 1]), C = atoi(v[k + 2]), H = atoi(v[k + 3]), W = atoi(v[k + 4]);
    size_t n = (size_t)N * C * H * W;
    cudnnTensorDescriptor_t xd = desc(nhwc, N, C, H, W), cd = NULL;
    float *x = buf(n, 1), *y = buf(n, 1), *dy = buf(n, 1), *dx = buf(n, 0), *c = NULL;
    cudnnLRNDescriptor_t lrn = NULL;
    cudnnReduceTensorDescriptor_t red = NULL;
    cudnnDropoutDescriptor_t dr = NULL;
    void *ws = NULL, *states = NULL, *reserve = NULL;
    size_t wss = 0, rss = 0;
    if (kind == K_LRN_F || kind == K_LRN_B) {
        CK(cudnnCreateLRNDescriptor(&lrn));
        CK(cudnnSetLRNDescriptor(lrn, 5, 1e-4, 0.75, 2.0));
    } else if (kind == K_RED) {
        int cn = pat == 0 ? 1 : N, cc = pat == 1 ? 1 : C,
            ch = pat == 0   ? 1
                 : pat == 1 ? H
                            : 1,
            cw = pat == 0   ? 1
                 : pat == 1 ? W
                            : 1;
        if (pat == 2)
            cn = cc = ch = cw = 1;
        if (pat == 0)
            cc = C;
        cd = desc(nhwc, cn, cc, ch, cw);
        c = buf((size_t)cn * cc * ch * cw, 0);
        bytes_per += 4.0 * cn * cc * ch * cw / (double)n;
        CK(cudnnCreateReduceTensorDescriptor(&red));
        CK(cudnnSetReduceTensorDescriptor(red, rop, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                          CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES));
        CK(cudnnGetReductionWorkspaceSize(h, red, xd, cd, &wss));
        ws = wss ? malloc(wss) : NULL;
    } else if (kind == K_DR_F || kind == K_DR_B) {
        size_t ss;
        CK(cudnnCreateDropoutDescriptor(&dr));
        CK(cudnnDropoutGetStatesSize(h, &ss));
        states = malloc(ss);
        CK(cudnnSetDropoutDescriptor(dr, h, prob, states, ss, 1234ull));
        CK(cudnnDropoutGetReserveSpaceSize(xd, &rss));
        if (posix_memalign(&reserve, 64, rss) != 0)
            exit(1);
        memset(reserve, 0, rss);
        CK(cudnnDropoutForward(h, dr, xd, x, xd, y, reserve, rss));
    }
    double best_w = 1e30, best_c = 1e30;
    const size_t flush_n = (size_t)64 << 20;
    unsigned char *flush = calloc(1, flush_n);
    for (int r = -1; r < reps; r++) {
        /* tensors start out of cache (32 MiB L3 here): a read-modify-write of every line (a
         * large memset may use non-temporal stores, which leave the cache as it was) */
        for (size_t i = 0; i < flush_n && !hot; i += 64)
            flush[i] = (unsigned char)(flush[i] + 1);
        double w0 = clk(CLOCK_MONOTONIC), c0 = clk(CLOCK_PROCESS_CPUTIME_ID);
        switch (kind) {
        case K_SMX_F:
            CK(cudnnSoftmaxForward(h, salgo, smode, &one, xd, x, &zero, xd, y));
            break;
        case K_SMX_B:
            CK(cudnnSoftmaxBackward(h, salgo, smode, &one, xd, y, xd, dy, &zero, xd, dx));
            break;
        case K_LRN_F:
            CK(cudnnLRNCrossChannelForward(h, lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, xd, x, &zero,
                                           xd, y));
            break;
        case K_LRN_B:
            CK(cudnnLRNCrossChannelBackward(h, lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, xd, y, xd,
                                            dy, xd, x, &zero, xd, dx));
            break;
        case K_RED:
            CK(cudnnReduceTensor(h, red, NULL, 0, ws, wss, &one, xd, x, &zero, cd, c));
            break;
        case K_DR_F:
            CK(cudnnDropoutForward(h, dr, xd, x, xd, y, reserve, rss));
            break;
        case K_DR_B:
            CK(cudnnDropoutBackward(h, dr, xd, dy, xd, dx, reserve, rss));
            break;
        }
        double tw = clk(CLOCK_MONOTONIC) - w0, tc = clk(CLOCK_PROCESS_CPUTIME_ID) - c0;
        if (r >= 0) {
            best_w = tw < best_w ? tw : best_w;
            best_c = tc < best_c ? tc : best_c;
        }
    }
    double gb = bytes_per * (double)n / 1e9;
    printf("%-8s", op);
    for (int i = 0; i < nv; i++)
        printf(" %s", v[i]);
    printf(": %s,%s min of %d: wall %.3f ms (%.1f GB/s), cpu %.3f ms (%.1f GB/s)\n",
           be == FREEDNN_BACKEND_REF ? "ref" : "cpu", hot ? " hot," : "", reps, best_w * 1e3,
           gb / best_w, best_c * 1e3, gb / best_c);
    return 0;
}
