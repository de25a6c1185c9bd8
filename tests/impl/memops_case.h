/* SPDX-License-Identifier: MIT */
/*
 * memops_case.h - the case machinery of the cpu memory-bound row tests (test_cpu_memops*.c):
 * the ref and cpu handles, the OpenMP thread-count switch (found with dlsym, so the tests need
 * no OpenMP flags of their own), a seeded generator and exact / real / special-value fills per
 * storage type, NCHW / NHWC / padded shapes and their descriptors, outputs filled or
 * NaN-poisoned per beta, and the byte comparison of ref, cpu with one thread and cpu with two
 * (NaN payloads aside). Included by exactly one translation unit per test program; helpers a
 * program does not use are not warned about (the diagnostic is off inside this header).
 */
#ifndef FD_TESTS_IMPL_MEMOPS_CASE_H_
#define FD_TESTS_IMPL_MEMOPS_CASE_H_

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudnn.h"
#include "freednn.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-variable"
static int failures, cases;
static cudnnHandle_t h_ref, h_cpu;
static void (*set_threads)(int);

#define CHECK(x)                                                                               \
    do {                                                                                       \
        cudnnStatus_t s_ = (x);                                                                \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                      \
            fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #x,                       \
                    cudnnGetErrorString(s_));                                                  \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double urand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static size_t dt_size(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_DOUBLE ? 8 : dt == CUDNN_DATA_FLOAT ? 4 : 2;
}

static void put(cudnnDataType_t dt, void *p, size_t i, double v)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT:
        ((float *)p)[i] = (float)v;
        break;
    case CUDNN_DATA_DOUBLE:
        ((double *)p)[i] = v;
        break;
    case CUDNN_DATA_HALF: {
        _Float16 f = (_Float16)v;
        memcpy((uint16_t *)p + i, &f, 2);
        break;
    }
    default: { /* bf16: truncation of a float is fine for test data */
        float f = (float)v;
        uint32_t b;
        memcpy(&b, &f, 4);
        ((uint16_t *)p)[i] = (uint16_t)(b >> 16);
        break;
    }
    }
}

/* Fills a buffer of n elements: exact small integers, or reals, with a few NaN / inf. */
static void fill(cudnnDataType_t dt, void *p, size_t n, int exact, int specials)
{
    for (size_t i = 0; i < n; i++) {
        double v = exact ? floor(urand() * 9) - 4 : (urand() * 8 - 4);
        if (specials && urand() < 0.01)
            v = urand() < 0.5 ? NAN : (urand() < 0.5 ? INFINITY : -INFINITY);
        put(dt, p, i, v);
    }
}

typedef enum { L_NCHW, L_NHWC, L_PADDED, L_COUNT } layout_t;
static const char *layout_name[] = {"nchw", "nhwc", "padded"};

typedef struct {
    int nb;
    int dim[5], str[5];
    size_t extent;
} shape_t;

/* dims n, c, spatial...; layout picks the strides. */
static shape_t make_shape(int nb, const int *dim, layout_t l)
{
    shape_t s = {nb, {0}, {0}, 0};
    memcpy(s.dim, dim, sizeof(int) * (size_t)nb);
    if (l == L_NHWC) {
        int acc = 1;
        s.str[1] = 1, acc = dim[1];
        for (int d = nb - 1; d >= 2; d--)
            s.str[d] = acc, acc *= dim[d];
        s.str[0] = acc;
    } else {
        int acc = 1;
        for (int d = nb - 1; d >= 0; d--) {
            s.str[d] = acc;
            acc *= dim[d] + (l == L_PADDED && d == nb - 1 ? 3 : 0);
        }
    }
    size_t ext = 1;
    for (int d = 0; d < nb; d++)
        ext += (size_t)(dim[d] - 1) * (size_t)s.str[d];
    s.extent = ext;
    return s;
}

/* Offset in s of the element whose canonical (n, c, spatial... row-major) index is i. */
static size_t canon_off(const shape_t *s, size_t i)
{
    size_t off = 0;
    for (int d = s->nb - 1; d >= 0; d--) {
        off += (i % (size_t)s->dim[d]) * (size_t)s->str[d];
        i /= (size_t)s->dim[d];
    }
    return off;
}

static cudnnTensorDescriptor_t desc_of(const shape_t *s, cudnnDataType_t dt)
{
    cudnnTensorDescriptor_t d;
    CHECK(cudnnCreateTensorDescriptor(&d));
    CHECK(cudnnSetTensorNdDescriptor(d, dt, s->nb, s->dim, s->str));
    return d;
}

/* Buffers of one case: inputs (read-only) and one output, per backend run. */
typedef struct {
    size_t bytes;
    void *init, *out[3];
} outbuf_t;

static void out_init(outbuf_t *o, cudnnDataType_t dt, size_t n, double beta, int exact)
{
    o->bytes = n * dt_size(dt);
    o->init = malloc(o->bytes);
    if (beta != 0.0)
        fill(dt, o->init, n, exact, 0);
    else
        memset(o->init, 0xff, o->bytes); /* NaN: beta = 0 must not read it */
    for (int r = 0; r < 3; r++) {
        o->out[r] = malloc(o->bytes);
        memcpy(o->out[r], o->init, o->bytes);
    }
}

/* 1 when element i of p is a NaN of its type. */
static int is_nan_at(cudnnDataType_t dt, const void *p, size_t i)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT:
        return isnan(((const float *)p)[i]);
    case CUDNN_DATA_DOUBLE:
        return isnan(((const double *)p)[i]);
    case CUDNN_DATA_HALF: {
        uint16_t b = ((const uint16_t *)p)[i];
        return (b & 0x7c00) == 0x7c00 && (b & 0x3ff) != 0;
    }
    default: {
        uint16_t b = ((const uint16_t *)p)[i];
        return (b & 0x7f80) == 0x7f80 && (b & 0x7f) != 0;
    }
    }
}

/* Bitwise equal, except that any NaN equals any NaN (the sign and payload of a NaN depend on
 * the operand order the compiler picks, in ref and cpu alike; contract §1.7 promises NaN, not
 * its bits). */
static int same_bits(cudnnDataType_t dt, const void *a, const void *b, size_t bytes)
{
    size_t es = dt_size(dt);
    for (size_t i = 0; i < bytes / es; i++)
        if (memcmp((const char *)a + i * es, (const char *)b + i * es, es) != 0 &&
            !(is_nan_at(dt, a, i) && is_nan_at(dt, b, i)))
            return 0;
    return 1;
}

/* Compares the three runs; frees. */
static cudnnDataType_t cur_dt;
static void out_check(outbuf_t *o, const char *what)
{
    cases++;
    for (int r = 1; r < 3; r++)
        if (!same_bits(cur_dt, o->out[0], o->out[r], o->bytes)) {
            failures++;
            fprintf(stderr, "FAIL %s: cpu (%d thread%s) differs from ref\n", what, r,
                    r > 1 ? "s" : "");
            break;
        }
    free(o->init);
    for (int r = 0; r < 3; r++)
        free(o->out[r]);
}

static cudnnHandle_t run_handle(int r)
{
    if (r == 0)
        return h_ref;
    set_threads(r);
    return h_cpu;
}

static const cudnnDataType_t dtypes[] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                         CUDNN_DATA_BFLOAT16};
static const char *dt_name(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT ? "f32" : dt == CUDNN_DATA_DOUBLE ? "f64" : dt == CUDNN_DATA_HALF ? "f16" : "bf16";
}

static void scal(cudnnDataType_t dt, double v, void *out)
{
    if (dt == CUDNN_DATA_DOUBLE)
        *(double *)out = v;
    else
        *(float *)out = (float)v;
}
#pragma GCC diagnostic pop

/* The five runs of the fast-path programs (test_cpu_smx_fast.c, test_cpu_lrn_fast.c): 0 ref;
 * 1, 2, 3 cpu with FREEDNN_CPU_ISA avx512 / avx2 / generic on 1 thread; 4 cpu, default ISA, 2
 * threads. mc_run_set(r) sets the environment for run r and returns 1 for a cpu run. */
#define MC_NRUN 5
static inline int mc_run_set(int r)
{
    static const char *isa[MC_NRUN] = {NULL, "avx512", "avx2", "generic", NULL};
    if (r == 0)
        return 0;
    if (isa[r])
        setenv("FREEDNN_CPU_ISA", isa[r], 1);
    else
        unsetenv("FREEDNN_CPU_ISA");
    set_threads(r == 4 ? 2 : 1);
    return 1;
}

/* LRN cross-channel forward (dir 0) or backward (dir 1) of FLOAT data once per run, run r on the
 * ref handle or the cpu one as mc_run_set says, into out[r] (xb bytes, malloc'd, starting as a
 * copy of init: beta != 0 blends it). Returns 1 when every cpu run gave cpu run 1's bits, else
 * prints a FAIL line naming `what` and returns 0. The caller frees out[]. */
static inline int mc_lrn_runs(cudnnHandle_t h_ref, cudnnHandle_t h_cpu, cudnnLRNDescriptor_t ld, int dir,
                              const float *a32, const float *b32, cudnnTensorDescriptor_t xd, const void *x,
                              const void *yv, const void *dy, const void *init, size_t xb,
                              float *out[MC_NRUN], const char *what)
{
    for (int r = 0; r < MC_NRUN; r++) {
        out[r] = malloc(xb);
        memcpy(out[r], init, xb);
        cudnnHandle_t h = mc_run_set(r) ? h_cpu : h_ref;
        if (dir == 0)
            CHECK(cudnnLRNCrossChannelForward(h, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, a32, xd, x, b32, xd,
                                              out[r]));
        else
            CHECK(cudnnLRNCrossChannelBackward(h, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, a32, xd, yv, xd, dy, xd,
                                               x, b32, xd, out[r]));
    }
    unsetenv("FREEDNN_CPU_ISA");
    for (int r = 2; r < MC_NRUN; r++)
        if (!same_bits(CUDNN_DATA_FLOAT, out[1], out[r], xb)) {
            fprintf(stderr, "FAIL %s %s: cpu run %d differs from cpu run 1\n", what, dir ? "bwd" : "fwd", r);
            return 0;
        }
    return 1;
}

#endif /* FD_TESTS_IMPL_MEMOPS_CASE_H_ */
