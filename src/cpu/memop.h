/* SPDX-License-Identifier: MIT */
/*
 * memop.h - what the cpu backend's memory-bound op families share (activation_cpu.c,
 * tensor_ops_cpu.c, pooling_cpu.c, softmax_cpu.c, batchnorm_cpu.c).
 *
 * Decisions:
 * - Results must equal the ref rows bit for bit where the operation is exact, and the ref rows
 *   compute in double and round once (src/core/dtype.c). So the kernels do the same: a block of
 *   up to FD_CPU_BLK elements is widened to double, the operation and the alpha/beta blend run
 *   in double with the ref's operation order, and the block is narrowed once. The block loops
 *   are plain C the compiler vectorises; every file compiles them at -O3 with FP contraction
 *   off (an FMA would round differently from the ref) and, through target_clones, once for
 *   AVX-512, AVX2 and baseline x86-64, picked at load time (a machine with neither still works).
 * - Elementwise work goes through one strided engine (fd_cpu_ew_*): dims of size 1 dropped, the
 *   rest ordered by the output's strides (NHWC iterates like NCHW), runs that are contiguous
 *   in every tensor merged, so a packed tensor is one long row and a broadcast bias is a row
 *   with increment 0. Any non-negative strides work (a gather inner loop); the rows decline
 *   only what the ref alone computes (integer types, vectorised int8 layouts).
 * - Threads: work is cut into units of a fixed number of elements (independent of the thread
 *   count) and handed out by a static OpenMP loop; each output element is computed by exactly
 *   one unit in a fixed order, so results are identical for any OMP_NUM_THREADS. Small
 *   problems stay on the calling thread. Nothing allocates: block buffers live on the stack.
 */
#ifndef FD_CPU_MEMOP_H_
#define FD_CPU_MEMOP_H_

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/fd.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define FD_CPU_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define FD_CPU_CLONES
#endif

#define FD_CPU_BLK 256          /* elements per double block (stack buffers, L1-resident) */
#define FD_CPU_UNIT 16384       /* elements per unit of threaded work */
#define FD_CPU_PAR_MIN 65536    /* below this, one thread: fork/join costs more than it saves */
#define FD_CPU_MAXT 4           /* tensors an elementwise op touches */

/* 1 for the storage types the cpu rows compute (the others stay with ref). */
static inline int fd_cpu_dtype_ok(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_DOUBLE || dt == CUDNN_DATA_HALF ||
           dt == CUDNN_DATA_BFLOAT16;
}

/* ---- block conversions (exactly fd_load / fd_store) ----------------------------------------- */

/* buf[i] = element i*inc of p, for i < n. */
FD_CPU_CLONES __attribute__((unused)) static void fd_cpu_load(cudnnDataType_t dt, const void *p, int64_t inc, int n,
                                      double *restrict buf)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT: {
        const float *restrict s = p;
        if (inc == 1)
            for (int i = 0; i < n; i++)
                buf[i] = s[i];
        else
            for (int i = 0; i < n; i++)
                buf[i] = s[i * inc];
        break;
    }
    case CUDNN_DATA_DOUBLE: {
        const double *restrict s = p;
        if (inc == 1)
            memcpy(buf, s, (size_t)n * sizeof *buf);
        else
            for (int i = 0; i < n; i++)
                buf[i] = s[i * inc];
        break;
    }
    case CUDNN_DATA_HALF: {
        const uint16_t *s = p;
        for (int i = 0; i < n; i++)
            buf[i] = fd_f64_from_f16(s[i * inc]);
        break;
    }
    default: { /* BFLOAT16: the top half of a float */
        const uint16_t *restrict s = p;
        for (int i = 0; i < n; i++) {
            uint32_t bits = (uint32_t)s[i * inc] << 16;
            float f;
            memcpy(&f, &bits, sizeof f);
            buf[i] = f;
        }
        break;
    }
    }
}

/* Element i*inc of p = alpha * v[i] + beta * (its old value); beta == 0 never reads p. The
 * order of operations is the ref rows' blend_store. */
FD_CPU_CLONES __attribute__((unused)) static void fd_cpu_store(cudnnDataType_t dt, void *p, int64_t inc, int n,
                                       const double *restrict v, double alpha, double beta)
{
    if (dt == CUDNN_DATA_FLOAT) {
        float *restrict d = p;
        if (inc == 1) {
            if (beta == 0.0)
                for (int i = 0; i < n; i++)
                    d[i] = (float)(alpha * v[i]);
            else
                for (int i = 0; i < n; i++)
                    d[i] = (float)(alpha * v[i] + beta * (double)d[i]);
        } else {
            for (int i = 0; i < n; i++) {
                double r = alpha * v[i];
                if (beta != 0.0)
                    r += beta * (double)d[i * inc];
                d[i * inc] = (float)r;
            }
        }
        return;
    }
    if (dt == CUDNN_DATA_DOUBLE) {
        double *restrict d = p;
        if (inc == 1) {
            if (beta == 0.0)
                for (int i = 0; i < n; i++)
                    d[i] = alpha * v[i];
            else
                for (int i = 0; i < n; i++)
                    d[i] = alpha * v[i] + beta * d[i];
        } else {
            for (int i = 0; i < n; i++) {
                double r = alpha * v[i];
                if (beta != 0.0)
                    r += beta * d[i * inc];
                d[i * inc] = r;
            }
        }
        return;
    }
    for (int i = 0; i < n; i++) { /* HALF, BFLOAT16: the library's own rounding */
        double r = alpha * v[i];
        if (beta != 0.0)
            r += beta * fd_load(dt, p, i * inc);
        fd_store(dt, p, i * inc, r);
    }
}

/* ---- the elementwise engine --------------------------------------------------------------- */

typedef struct fd_cpu_ew {
    int nd, nt;
    int64_t dim[FD_DIM_MAX];
    int64_t st[FD_CPU_MAXT][FD_DIM_MAX]; /* elements; st[0] is the output */
    size_t esz[FD_CPU_MAXT];
    int64_t n; /* elements */
} fd_cpu_ew_t;

/* Plans nt tensors over dims (strides[t][d], in elements, 0 where tensor t broadcasts along d).
 * Returns 0 (with the reason) for negative strides. */
static inline int fd_cpu_ew_plan(fd_cpu_ew_t *e, int nb, const int64_t *dim, int nt,
                                 const int64_t *const *strides, const cudnnDataType_t *dts,
                                 char *why, size_t why_size)
{
    int order[FD_DIM_MAX], k = 0;
    e->nt = nt;
    e->n = 1;
    for (int t = 0; t < nt; t++)
        e->esz[t] = fd_dtype_size(dts[t]);
    for (int d = 0; d < nb; d++) {
        e->n *= dim[d];
        for (int t = 0; t < nt; t++)
            if (strides[t][d] < 0) {
                snprintf(why, why_size, "negative strides");
                return 0;
            }
        if (dim[d] > 1)
            order[k++] = d;
    }
    /* stable sort by the output's stride, largest first */
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && strides[0][order[j]] > strides[0][order[j - 1]]; j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    e->nd = 0;
    for (int i = 0; i < k; i++) {
        int d = order[i];
        if (e->nd > 0) {
            int last = e->nd - 1, merge = 1;
            for (int t = 0; t < nt; t++)
                if (e->st[t][last] != strides[t][d] * dim[d])
                    merge = 0;
            if (merge) {
                e->dim[last] *= dim[d];
                for (int t = 0; t < nt; t++)
                    e->st[t][last] = strides[t][d];
                continue;
            }
        }
        e->dim[e->nd] = dim[d];
        for (int t = 0; t < nt; t++)
            e->st[t][e->nd] = strides[t][d];
        e->nd++;
    }
    if (e->nd == 0) { /* a single element */
        e->nd = 1;
        e->dim[0] = 1;
        for (int t = 0; t < nt; t++)
            e->st[t][0] = 1;
    }
    return 1;
}

/* A run of len elements: tensor t starts at ptr[t] and steps inc[t] elements. */
typedef void (*fd_cpu_ew_fn)(const void *ctx, int len, char *const *ptr, const int64_t *inc);

/* Calls fn over every element, in runs of at most FD_CPU_BLK along the innermost dim. */
static inline void fd_cpu_ew_run(const fd_cpu_ew_t *e, char *const *base, fd_cpu_ew_fn fn,
                                 const void *ctx)
{
    const int nd = e->nd;
    const int64_t inner = e->dim[nd - 1];
    const int64_t rows = e->n / inner;
    /* units: pieces of one row, or groups of whole rows, each about FD_CPU_UNIT elements */
    const int64_t per_row = (inner + FD_CPU_UNIT - 1) / FD_CPU_UNIT;
    const int64_t rows_per = inner >= FD_CPU_UNIT ? 1 : FD_CPU_UNIT / inner;
    const int64_t units = inner >= FD_CPU_UNIT ? rows * per_row : (rows + rows_per - 1) / rows_per;
    const int nt = e->nt;
#pragma omp parallel for schedule(static) if (e->n >= FD_CPU_PAR_MIN)
    for (int64_t u = 0; u < units; u++) {
        int64_t r0, r1, c0, c1;
        if (inner >= FD_CPU_UNIT) {
            r0 = u / per_row, r1 = r0 + 1;
            c0 = (u % per_row) * FD_CPU_UNIT;
            c1 = c0 + FD_CPU_UNIT < inner ? c0 + FD_CPU_UNIT : inner;
        } else {
            r0 = u * rows_per, r1 = r0 + rows_per < rows ? r0 + rows_per : rows;
            c0 = 0, c1 = inner;
        }
        for (int64_t r = r0; r < r1; r++) {
            int64_t off[FD_CPU_MAXT] = {0}, rem = r;
            for (int d = nd - 2; d >= 0; d--) {
                int64_t i = rem % e->dim[d];
                rem /= e->dim[d];
                for (int t = 0; t < nt; t++)
                    off[t] += i * e->st[t][d];
            }
            int64_t inc[FD_CPU_MAXT];
            for (int t = 0; t < nt; t++)
                inc[t] = e->st[t][nd - 1];
            for (int64_t c = c0; c < c1; c += FD_CPU_BLK) {
                int len = (int)(c1 - c < FD_CPU_BLK ? c1 - c : FD_CPU_BLK);
                char *ptr[FD_CPU_MAXT];
                for (int t = 0; t < nt; t++)
                    ptr[t] = base[t] + (size_t)(off[t] + c * inc[t]) * e->esz[t];
                fn(ctx, len, ptr, inc);
            }
        }
    }
}

/* ---- a vectorisable exp in double (softmax, not the exact families) ------------------------- */

/* exp(x) within a few ulp of double: x = k ln2 + r, |r| <= ln2/2, Taylor to degree 13, 2^k
 * applied in two halves so that subnormal results and k up to 1025 need no branch. NaN in,
 * NaN out; -inf gives 0, +inf gives inf. */
static inline double fd_cpu_exp(double x)
{
    const double shift = 0x1.8p52;
    double xc = x < -746.0 ? -746.0 : x > 710.0 ? 710.0 : x; /* NaN passes through */
    double t = xc * 0x1.71547652b82fep0 + shift;
    double k = t - shift;
    double r = xc - k * 0x1.62e42fefa3800p-1 - k * 0x1.ef35793c7673p-45;
    double p = 1.0 / 6227020800.0;
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    int64_t ki;
    memcpy(&ki, &t, sizeof ki);
    ki = (int64_t)(int32_t)(uint32_t)ki; /* the low bits of t hold k */
    int64_t k1 = ki / 2, k2 = ki - k1;
    uint64_t b1 = (uint64_t)(k1 + 1023) << 52, b2 = (uint64_t)(k2 + 1023) << 52;
    double s1, s2;
    memcpy(&s1, &b1, sizeof s1);
    memcpy(&s2, &b2, sizeof s2);
    return p * s1 * s2;
}

#endif /* FD_CPU_MEMOP_H_ */
