/* SPDX-License-Identifier: MIT */
/*
 * eltwise_extra.c - timing of the cpu elementwise calls dnnbench does not cover (SetTensor,
 * ScaleTensor, TransformTensor NCHW <-> NHWC, OpTensor min / sqrt / not, 16-bit types), and of
 * the activation modes, on one handle, through the public API.
 *
 * Build (against a build directory of the library):
 *   cc -O2 -Iinclude bench/memops_extra/eltwise_extra.c -o build-X/eltwise_extra -Lbuild-X -lfreednn \
 *      -Wl,-rpath,$PWD/build-X -lm
 * Run: OMP_NUM_THREADS=1 build-X/eltwise_extra [--backend=cpu|ref] [--iters=N] [--dt=f32|f16|bf16]
 *      [--nhwc] [FILTER]   (FILTER: a substring of the case names to run)
 * Prints per case: median and min wall ms, min thread-CPU ms (less sensitive to a shared
 * machine: a time slice taken by another process does not count), compulsory bytes (every
 * input read once, the output written once, read too when beta != 0) and GB/s at the median and
 * at the min. Before each sample a 64 MiB buffer is written, so the tensors start out of cache
 * (dnnbench's cold mode). Shape n8c64h112w112 (6.4 M elements).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cudnn.h"
#include "freednn.h"

#define CK(x)                                                                                   \
    do {                                                                                        \
        cudnnStatus_t s_ = (x);                                                                 \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                       \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudnnGetErrorString(s_));        \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

enum { N = 8, C = 64, H = 112, W = 112, COUNT = N * C * H * W };

static double now(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    cudnnHandle_t h;
    cudnnDataType_t dt;
    cudnnTensorDescriptor_t t, t2, bias; /* t: the layout asked, t2: the other, bias: 1xCx1x1 */
    void *x, *y, *dy, *out, *b;
    int iters;
    const char *filter;
    char *flush;
} ctx_t;

typedef void (*call_fn)(ctx_t *c, const void *arg);

static void timed(ctx_t *c, const char *name, double mb, call_fn fn, const void *arg)
{
    if (c->filter && !strstr(name, c->filter))
        return;
    double wall[256], cpu_min = 1e30;
    int it = c->iters < 256 ? c->iters : 256;
    fn(c, arg); /* warm-up: first touch, dispatch */
    for (int i = 0; i < it; i++) {
        memset(c->flush, i, 64 << 20);
        double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
        fn(c, arg);
        double c1 = now(CLOCK_THREAD_CPUTIME_ID), w1 = now(CLOCK_MONOTONIC);
        wall[i] = w1 - w0;
        cpu_min = c1 - c0 < cpu_min ? c1 - c0 : cpu_min;
    }
    qsort(wall, (size_t)it, sizeof *wall, cmp);
    double med = wall[it / 2], mn = wall[0];
    printf("%-34s MB %6.1f  wall med %7.3f min %7.3f  cpu min %7.3f ms  GB/s med %6.2f min %6.2f cpu %6.2f\n",
           name, mb, med, mn, cpu_min, mb / med, mb / mn, mb / cpu_min);
    fflush(stdout);
}

/* ---- the calls ---------------------------------------------------------------------------- */

typedef struct {
    cudnnActivationMode_t mode;
    int bwd;
} act_arg_t;

static void call_act(ctx_t *c, const void *arg)
{
    const act_arg_t *a = arg;
    static cudnnActivationDescriptor_t d;
    if (!d)
        CK(cudnnCreateActivationDescriptor(&d));
    CK(cudnnSetActivationDescriptor(d, a->mode, CUDNN_NOT_PROPAGATE_NAN, 1.5));
    float one = 1, zero = 0;
    if (a->bwd)
        CK(cudnnActivationBackward(c->h, d, &one, c->t, c->y, c->t, c->dy, c->t, c->x, &zero, c->t, c->out));
    else
        CK(cudnnActivationForward(c->h, d, &one, c->t, c->x, &zero, c->t, c->out));
}

typedef struct {
    cudnnOpTensorOp_t op;
    int bcast;
} op_arg_t;

static void call_op(ctx_t *c, const void *arg)
{
    const op_arg_t *a = arg;
    static cudnnOpTensorDescriptor_t d;
    if (!d)
        CK(cudnnCreateOpTensorDescriptor(&d));
    CK(cudnnSetOpTensorDescriptor(d, a->op, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
    float one = 1, zero = 0;
    CK(cudnnOpTensor(c->h, d, &one, c->t, c->x, &one, a->bcast ? c->bias : c->t, a->bcast ? c->b : c->y,
                     &zero, c->t, c->out));
}

static void call_add(ctx_t *c, const void *arg)
{
    const int *bcast = arg;
    float one = 1;
    CK(cudnnAddTensor(c->h, &one, *bcast ? c->bias : c->t, *bcast ? c->b : c->x, &one, c->t, c->out));
}

static void call_set(ctx_t *c, const void *arg)
{
    (void)arg;
    unsigned char v[4] = {0};
    if (c->dt == CUDNN_DATA_FLOAT) {
        float f = 1.25f;
        memcpy(v, &f, 4);
    } else {
        v[1] = c->dt == CUDNN_DATA_HALF ? 0x3d : 0x3f; /* 1.25 in half, 1.0 in bf16 */
    }
    CK(cudnnSetTensor(c->h, c->t, c->out, v));
}

static void call_scale(ctx_t *c, const void *arg)
{
    (void)arg;
    float a = 1.0f; /* keeps the values bounded over the iterations */
    CK(cudnnScaleTensor(c->h, c->t, c->out, &a));
}

static void call_transform(ctx_t *c, const void *arg)
{
    (void)arg;
    float one = 1, zero = 0;
    CK(cudnnTransformTensor(c->h, &one, c->t2, c->x, &zero, c->t, c->out));
}

int main(int argc, char **argv)
{
    ctx_t c = {0};
    c.iters = 20;
    c.dt = CUDNN_DATA_FLOAT;
    freednnBackend_t be = FREEDNN_BACKEND_CPU;
    int nhwc = 0;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--iters=", 8) == 0)
            c.iters = atoi(argv[i] + 8);
        else if (strcmp(argv[i], "--backend=ref") == 0)
            be = FREEDNN_BACKEND_REF;
        else if (strcmp(argv[i], "--dt=f16") == 0)
            c.dt = CUDNN_DATA_HALF;
        else if (strcmp(argv[i], "--dt=bf16") == 0)
            c.dt = CUDNN_DATA_BFLOAT16;
        else if (strcmp(argv[i], "--nhwc") == 0)
            nhwc = 1;
        else if (argv[i][0] != '-')
            c.filter = argv[i];
    }
    CK(freednnCreateWithBackend(&c.h, be));
    size_t es = c.dt == CUDNN_DATA_FLOAT ? 4 : 2, bytes = (size_t)COUNT * es;
    double mb1 = bytes / 1e6;
    CK(cudnnCreateTensorDescriptor(&c.t));
    CK(cudnnCreateTensorDescriptor(&c.t2));
    CK(cudnnCreateTensorDescriptor(&c.bias));
    CK(cudnnSetTensor4dDescriptor(c.t, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, c.dt, N, C, H, W));
    CK(cudnnSetTensor4dDescriptor(c.t2, nhwc ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC, c.dt, N, C, H, W));
    CK(cudnnSetTensor4dDescriptor(c.bias, CUDNN_TENSOR_NCHW, c.dt, 1, C, 1, 1));
    void **bufs[4] = {&c.x, &c.y, &c.dy, &c.out};
    for (int k = 0; k < 4; k++) {
        *bufs[k] = aligned_alloc(64, bytes);
        unsigned char *p = *bufs[k];
        for (size_t i = 0; i < bytes / es; i++) { /* values in [-2, 2): every branch taken */
            float f = (float)(((i * 2654435761u + (size_t)k * 977) % 4096) / 1024.0 - 2.0);
            uint32_t u;
            memcpy(&u, &f, 4);
            if (es == 4)
                memcpy(p + 4 * i, &u, 4);
            else {
                uint16_t h16 = c.dt == CUDNN_DATA_BFLOAT16 ? (uint16_t)(u >> 16) : 0x3c00; /* half: 1.0 */
                memcpy(p + 2 * i, &h16, 2);
            }
        }
    }
    c.b = aligned_alloc(64, 64 * 8);
    memset(c.b, 0, 64 * 8);
    c.flush = malloc(64 << 20);
    printf("backend %s, dt %s, layout %s, n8c64h112w112, %d iters\n", be == FREEDNN_BACKEND_REF ? "ref" : "cpu",
           c.dt == CUDNN_DATA_FLOAT ? "f32" : c.dt == CUDNN_DATA_HALF ? "f16" : "bf16", nhwc ? "nhwc" : "nchw",
           c.iters);

    static const struct {
        const char *name;
        cudnnActivationMode_t m;
    } modes[] = {{"relu", CUDNN_ACTIVATION_RELU},       {"clipped_relu", CUDNN_ACTIVATION_CLIPPED_RELU},
                 {"identity", CUDNN_ACTIVATION_IDENTITY}, {"sigmoid", CUDNN_ACTIVATION_SIGMOID},
                 {"tanh", CUDNN_ACTIVATION_TANH},       {"elu", CUDNN_ACTIVATION_ELU},
                 {"swish", CUDNN_ACTIVATION_SWISH}};
    char name[64];
    for (int bwd = 0; bwd < 2; bwd++)
        for (int m = 0; m < 7; m++) {
            act_arg_t a = {modes[m].m, bwd};
            /* bytes a mode needs: fwd x, y; bwd dy, dx and y (sigmoid, tanh) or x (others) */
            double mb = bwd ? (modes[m].m == CUDNN_ACTIVATION_IDENTITY ? 2 : 3) * mb1 : 2 * mb1;
            snprintf(name, sizeof name, "act %s %s", bwd ? "bwd" : "fwd", modes[m].name);
            if (bwd && modes[m].m == CUDNN_ACTIVATION_SWISH)
                continue; /* cpu declines it (ref only) */
            timed(&c, name, mb, call_act, &a);
        }
    static const struct {
        const char *name;
        cudnnOpTensorOp_t op;
    } ops[] = {{"add", CUDNN_OP_TENSOR_ADD}, {"mul", CUDNN_OP_TENSOR_MUL}, {"min", CUDNN_OP_TENSOR_MIN},
               {"max", CUDNN_OP_TENSOR_MAX}, {"sqrt", CUDNN_OP_TENSOR_SQRT}, {"not", CUDNN_OP_TENSOR_NOT}};
    for (int o = 0; o < 6; o++)
        for (int bc = 0; bc < 2; bc++) {
            int unary = ops[o].op == CUDNN_OP_TENSOR_SQRT || ops[o].op == CUDNN_OP_TENSOR_NOT;
            if (unary && bc)
                continue;
            op_arg_t a = {ops[o].op, bc};
            snprintf(name, sizeof name, "op %s%s", ops[o].name, bc ? " bcast=c" : "");
            timed(&c, name, (unary || bc ? 2 : 3) * mb1, call_op, &a);
        }
    int zero = 0, one = 1;
    timed(&c, "add_tensor bcast=c (beta 1)", 2 * mb1, call_add, &one);
    timed(&c, "add_tensor full (beta 1)", 3 * mb1, call_add, &zero);
    timed(&c, "set", mb1, call_set, NULL);
    timed(&c, "scale (in place)", 2 * mb1, call_scale, NULL);
    timed(&c, nhwc ? "transform nchw->nhwc" : "transform nhwc->nchw", 2 * mb1, call_transform, NULL);
    cudnnDestroy(c.h);
    return 0;
}
