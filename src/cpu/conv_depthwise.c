/* SPDX-License-Identifier: MIT */
/*
 * conv_depthwise.c - direct depthwise convolution on the cpu backend: FLOAT forward with
 * groups == C (one input channel per group, any channel multiplier K / C), 1-d or 2-d, any
 * filter size (up to FD_DW_MAX_TAPS taps), stride, padding, dilation, tensor strides, both
 * modes (src/impls.def: FWD IMPLICIT_GEMM and DIRECT; no workspace, as IMPLICIT_GEMM promises).
 *
 * A depthwise layer has C * R * S multiply-adds per output position, far too few for a GEMM
 * (the im2col row makes a CRS = R * S tall column matrix per group and calls BLAS C times).
 * Here each output row is accumulated in a small float buffer, one pass per filter tap in
 * (r, s) order, each pass a contiguous multiply-add over the row when x's W stride and the
 * convolution's W stride are 1 (the common case), else a strided scalar loop. Taps that fall
 * into the padding are skipped (they are not terms of the sum, as in ref).
 * The contiguous pass is compiled three times (GCC vector extensions): AVX-512 (16 lanes),
 * AVX2 (8) and the baseline (4, SSE2 on x86-64), chosen once at run time with
 * __builtin_cpu_supports (FREEDNN_CPU_ISA=avx512|avx2|generic caps it, for tests). Multiply and add stay separate operations (ISO C, no contraction),
 * so every path, and the scalar tails, round alike: identical bits on any machine.
 * The result is blended as ref does: alpha * acc + beta * y in double, rounded once; beta == 0
 * never reads y.
 * Threads: OpenMP over (image, output channel) planes, always (no BLAS inside, so there is no
 * pool to fight); each plane has one owner and a fixed summation order, so the row is
 * deterministic for any thread count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"

#define FD_DW_MAX_TAPS 256
#define FD_DW_CHUNK 256 /* output columns accumulated at a time */

/* ---- acc[i] += t * src[i], i < n, in three widths ---------------------------------------- */

#define DW_AXPY(name, attr, lanes)                                                                 \
    attr static void name(float *restrict acc, const float *restrict src, int64_t n, float t)      \
    {                                                                                              \
        typedef float vec_t __attribute__((vector_size(4 * (lanes))));                             \
        int64_t i = 0;                                                                             \
        for (; i + (lanes) <= n; i += (lanes)) {                                                   \
            vec_t a, s;                                                                            \
            memcpy(&a, acc + i, sizeof a);                                                         \
            memcpy(&s, src + i, sizeof s);                                                         \
            a = a + s * t;                                                                         \
            memcpy(acc + i, &a, sizeof a);                                                         \
        }                                                                                          \
        for (; i < n; i++)                                                                         \
            acc[i] = acc[i] + src[i] * t;                                                          \
    }

#if defined(__x86_64__) || defined(__i386__)
DW_AXPY(axpy_avx512, __attribute__((target("avx512f"))), 16)
DW_AXPY(axpy_avx2, __attribute__((target("avx2"))), 8)
#endif
DW_AXPY(axpy_base, , 4)

typedef void (*axpy_fn)(float *restrict, const float *restrict, int64_t, float);

/* FREEDNN_CPU_ISA=avx512|avx2|generic caps the path (tests run all three on one machine; a
 * request the CPU cannot honour falls to the next lower path). */
static axpy_fn pick_axpy(void)
{
    const char *cap = getenv("FREEDNN_CPU_ISA");
    int limit = !cap ? 2 : strcmp(cap, "generic") == 0 ? 0 : strcmp(cap, "avx2") == 0 ? 1 : 2;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (limit >= 2 && __builtin_cpu_supports("avx512f"))
        return axpy_avx512;
    if (limit >= 1 && __builtin_cpu_supports("avx2"))
        return axpy_avx2;
#else
    (void)limit;
#endif
    return axpy_base;
}

/* ---- the row ---------------------------------------------------------------------------- */

static int dw_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    if (!fd_cpu_dtype_ok(p, CUDNN_DATA_FLOAT, why, why_size))
        return 0;
    if (p->compute != CUDNN_DATA_FLOAT) {
        snprintf(why, why_size, "accumulates in float; compute type is %s",
                 fd_dtype_name(p->compute));
        return 0;
    }
    if (p->groups != p->c) {
        snprintf(why, why_size, "not depthwise: groups %lld, C %lld", (long long)p->groups,
                 (long long)p->c);
        return 0;
    }
    if (p->nsp > 2) {
        snprintf(why, why_size, "1-d and 2-d only (%d-d problem)", p->nsp);
        return 0;
    }
    if (p->flt[1] * p->flt[2] > FD_DW_MAX_TAPS) {
        snprintf(why, why_size, "filter has %lld taps; at most %d",
                 (long long)(p->flt[1] * p->flt[2]), FD_DW_MAX_TAPS);
        return 0;
    }
    return 1;
}

/* Output columns [*lo, *hi) of chunk [c0, c1) whose input column o * st - pad + tap * dil lies
 * in [0, in). */
static void cols_valid(int64_t c0, int64_t c1, int64_t st, int64_t pad, int64_t off, int64_t in,
                       int64_t *lo, int64_t *hi)
{
    /* o * st + off - pad >= 0  and  <= in - 1 */
    int64_t a = pad - off, b = in - 1 + pad - off;
    int64_t l = a > 0 ? (a + st - 1) / st : 0, h = b < 0 ? 0 : b / st + 1;
    *lo = l > c0 ? l : c0;
    *hi = h < c1 ? h : c1;
    if (*lo > *hi)
        *lo = *hi;
}

static cudnnStatus_t dw_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    static axpy_fn axpy; /* a benign race: every thread stores the same pointer */
    if (!axpy)
        axpy = pick_axpy();
    const float *x = a->x, *w = a->w;
    float *y = a->out;
    const int64_t mult = p->k / p->c, R = p->flt[1], S = p->flt[2];
    const int64_t H = p->in[1], W = p->in[2], OH = p->out[1], OW = p->out[2];
    const int64_t planes = p->n * p->k;
    const double alpha = a->alpha, beta = a->beta;
#pragma omp parallel for schedule(static)
    for (int64_t nk = 0; nk < planes; nk++) {
        const int64_t n = nk / p->k, k = nk % p->k, c = k / mult;
        float taps[FD_DW_MAX_TAPS], acc[FD_DW_CHUNK];
        for (int64_t r = 0; r < R; r++)
            for (int64_t s = 0; s < S; s++) {
                int64_t rm = p->cross_correlation ? r : R - 1 - r;
                int64_t sm = p->cross_correlation ? s : S - 1 - s;
                taps[r * S + s] = w[k * p->ws[0] + rm * p->ws[3] + sm * p->ws[4]];
            }
        const float *xb = x + n * p->xs[0] + c * p->xs[1];
        float *yb = y + n * p->ys[0] + k * p->ys[1];
        const int64_t xsw = p->xs[4], sw = p->stride[2];
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t c0 = 0; c0 < OW; c0 += FD_DW_CHUNK) {
                const int64_t c1 = OW - c0 < FD_DW_CHUNK ? OW : c0 + FD_DW_CHUNK;
                memset(acc, 0, sizeof(float) * (size_t)(c1 - c0));
                for (int64_t r = 0; r < R; r++) {
                    const int64_t ih = oh * p->stride[1] - p->pad[1] + r * p->dil[1];
                    if (ih < 0 || ih >= H)
                        continue;
                    const float *xr = xb + ih * p->xs[3];
                    for (int64_t s = 0; s < S; s++) {
                        int64_t lo, hi;
                        const int64_t off = s * p->dil[2];
                        cols_valid(c0, c1, sw, p->pad[2], off, W, &lo, &hi);
                        if (hi <= lo)
                            continue;
                        const float t = taps[r * S + s];
                        const float *src = xr + (lo * sw - p->pad[2] + off) * xsw;
                        if (sw * xsw == 1) {
                            axpy(acc + (lo - c0), src, hi - lo, t);
                        } else {
                            const int64_t step = sw * xsw;
                            for (int64_t o = lo; o < hi; o++)
                                acc[o - c0] = acc[o - c0] + src[(o - lo) * step] * t;
                        }
                    }
                }
                float *yr = yb + oh * p->ys[3];
                for (int64_t o = c0; o < c1; o++) {
                    float *yo = yr + o * p->ys[4];
                    double v = alpha * (double)acc[o - c0];
                    if (beta != 0.0)
                        v += beta * (double)*yo;
                    *yo = (float)v;
                }
            }
    }
    return CUDNN_STATUS_SUCCESS;
}

int fd_conv_fwd_depthwise_f32_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    return dw_applicable(p, why, why_size);
}
size_t fd_conv_fwd_depthwise_f32_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}
cudnnStatus_t fd_conv_fwd_depthwise_f32_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    return dw_run(p, a);
}
