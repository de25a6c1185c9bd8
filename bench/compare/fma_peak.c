/* SPDX-License-Identifier: MIT */
/*
 * fma_peak.c - one core's fp32 FMA ceiling, against which the cpu rows' GFLOP/s are read
 * (docs/perf/cpu-vs-onednn-*.md): 12 independent chains of vector FMAs kept in registers (no
 * loads, no stores), enough to cover the FMA latency on two ports. AVX-512 where the CPU has it,
 * else AVX2; the best of 5 runs of 2e8 / 12 iterations of the 12 chains.
 *   make -C bench/compare fma_peak && taskset -c 1 bench/compare/fma_peak
 */
#define _POSIX_C_SOURCE 199309L
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

enum { CHAINS = 12, RUNS = 5 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One timing function per vector width: CHAINS FMA chains of type V (W lanes) in registers, the
 * best GFLOP/s of RUNS runs, the chains' sum added to *sink so the compiler keeps them. */
#define FD_PEAK(name, tgt, V, W, set1, fmadd, storeu)                                              \
    __attribute__((target(tgt))) static double name(long iters, float *sink)                       \
    {                                                                                              \
        V a[CHAINS];                                                                               \
        const V b = set1(1.0000001f), c = set1(1e-7f);                                             \
        for (int i = 0; i < CHAINS; i++)                                                           \
            a[i] = set1((float)i);                                                                 \
        double best = 0;                                                                           \
        for (int r = 0; r < RUNS; r++) {                                                           \
            const double t0 = now();                                                               \
            for (long k = 0; k < iters; k++)                                                       \
                _Pragma("GCC unroll 12") for (int i = 0; i < CHAINS; i++) a[i] =                   \
                    fmadd(a[i], b, c);                                                             \
            const double gf = 2.0 * W * CHAINS * (double)iters / (now() - t0) * 1e-9;              \
            best = gf > best ? gf : best;                                                          \
        }                                                                                          \
        float lanes[W];                                                                            \
        for (int i = 0; i < CHAINS; i++) {                                                         \
            storeu(lanes, a[i]);                                                                   \
            for (int l = 0; l < W; l++)                                                            \
                *sink += lanes[l];                                                                 \
        }                                                                                          \
        return best;                                                                               \
    }
FD_PEAK(peak512, "avx512f", __m512, 16, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_storeu_ps)
FD_PEAK(peak256, "avx2,fma", __m256, 8, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_storeu_ps)

int main(void)
{
    float sink = 0; /* keeps the chains live */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        printf("avx512 fma peak %.1f GFLOP/s (one thread)\n", peak512(200000000L / CHAINS, &sink));
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        printf("avx2 fma peak %.1f GFLOP/s (one thread)\n", peak256(200000000L / CHAINS, &sink));
    else
        printf("no AVX2 / FMA\n");
    return sink == 12345.0f; /* never: 0 */
}
