/* SPDX-License-Identifier: MIT */
/*
 * sgemm.c - sandbox for the cpu backend's AVX-512 SGEMM (src/cpu/sgemm_avx512.c, included as
 * is): checks it against a naive double-accumulated loop on odd shapes in every transpose of
 * A, B and C, then times it against OpenBLAS's single-threaded cblas_sgemm on 512^3 and
 * convolution-shaped GEMMs (GFLOP/s, best of --reps runs).
 *
 *   ./sgemm                  checks, then the timing table
 *   ./sgemm M N K [ta tb tc] one shape (t*: n = row-major, t = column-major), e.g. 512 512 512
 */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/cpu/sgemm_avx512.c"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static float frand(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)((*s >> 8) & 0xFFFF) / 32768.0f - 1.0f;
}

/* strides of a rows x cols operand stored row-major (t == 0) or column-major, ld padded by 3 */
static void strides(int t, int64_t rows, int64_t cols, int64_t *rs, int64_t *cs, int64_t *size)
{
    if (!t)
        *rs = cols + 3, *cs = 1, *size = rows * (cols + 3);
    else
        *rs = 1, *cs = rows + 3, *size = cols * (rows + 3);
}

static int check(int64_t m, int64_t n, int64_t k, int ta, int tb, int tc, float alpha, float beta)
{
    int64_t ars, acs, as, brs, bcs, bs, crs, ccs, cs;
    strides(ta, m, k, &ars, &acs, &as);
    strides(tb, k, n, &brs, &bcs, &bs);
    strides(tc, m, n, &crs, &ccs, &cs);
    float *a = malloc(as * 4), *b = malloc(bs * 4), *c = malloc((cs + 32) * 4);
    float *c0 = malloc((cs + 32) * 4);
    unsigned s = (unsigned)(m * 131 + n * 7 + k);
    for (int64_t i = 0; i < as; i++)
        a[i] = frand(&s);
    for (int64_t i = 0; i < bs; i++)
        b[i] = frand(&s);
    for (int64_t i = 0; i < cs + 32; i++)
        c[i] = beta == 0.0f ? NAN : frand(&s);
    memcpy(c0, c, (cs + 32) * 4);
    fd_cpu_sgemm_avx512(m, n, k, alpha, a, ars, acs, b, brs, bcs, beta, c + 16, crs, ccs);
    int bad = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double acc = 0, mag = 0;
            for (int64_t kk = 0; kk < k; kk++) {
                double p = (double)a[i * ars + kk * acs] * b[kk * brs + j * bcs];
                acc += p, mag += fabs(p);
            }
            double old = beta == 0.0f ? 0.0 : c0[16 + i * crs + j * ccs];
            double want = alpha * acc + beta * old;
            double got = c[16 + i * crs + j * ccs];
            double tol = 1e-6 * (k + 2) * (fabs(alpha) * mag + fabs(beta * old)) + 1e-30;
            if (!(fabs(got - want) <= tol) && bad++ < 3)
                printf("  (%ld,%ld) got %g want %g\n", (long)i, (long)j, got, want);
            c[16 + i * crs + j * ccs] = c0[16 + i * crs + j * ccs]; /* for the canary scan */
        }
    for (int64_t i = 0; i < cs + 32; i++)
        if (memcmp(&c[i], &c0[i], 4) != 0 && bad++ < 3)
            printf("  element %ld outside C changed\n", (long)i - 16);
    if (bad)
        printf("FAIL %ld x %ld x %ld t%d%d%d alpha %g beta %g: %d bad\n", (long)m, (long)n, (long)k,
               ta, tb, tc, alpha, beta, bad);
    free(a), free(b), free(c), free(c0);
    return bad != 0;
}

static void timeit(int64_t m, int64_t n, int64_t k, int ta, int tb, int tc, int reps)
{
    int64_t ars, acs, as, brs, bcs, bs, crs, ccs, cs;
    strides(ta, m, k, &ars, &acs, &as);
    strides(tb, k, n, &brs, &bcs, &bs);
    strides(tc, m, n, &crs, &ccs, &cs);
    float *a = aligned_alloc(64, (as * 4 + 63) / 64 * 64),
          *b = aligned_alloc(64, (bs * 4 + 63) / 64 * 64);
    float *c = aligned_alloc(64, (cs * 4 + 63) / 64 * 64);
    unsigned s = 1;
    for (int64_t i = 0; i < as; i++)
        a[i] = frand(&s);
    for (int64_t i = 0; i < bs; i++)
        b[i] = frand(&s);
    memset(c, 0, cs * 4);
    double best_own = 1e30, best_blas = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        fd_cpu_sgemm_avx512(m, n, k, 1.0f, a, ars, acs, b, brs, bcs, 0.0f, c, crs, ccs);
        double t1 = now();
        cblas_sgemm(tc ? CblasColMajor : CblasRowMajor, (ta == tc) ? CblasNoTrans : CblasTrans,
                    (tb == tc) ? CblasNoTrans : CblasTrans, (int)m, (int)n, (int)k, 1.0f, a,
                    (int)(ta ? acs : ars), b, (int)(tb ? bcs : brs), 0.0f, c,
                    (int)(tc ? ccs : crs));
        double t2 = now();
        best_own = t1 - t0 < best_own ? t1 - t0 : best_own;
        best_blas = t2 - t1 < best_blas ? t2 - t1 : best_blas;
    }
    double fl = 2.0 * m * n * k;
    printf("%5ld %5ld %5ld  %c%c%c  own %7.1f  blas %7.1f GFLOP/s\n", (long)m, (long)n, (long)k,
           ta ? 't' : 'n', tb ? 't' : 'n', tc ? 't' : 'n', fl / best_own * 1e-9,
           fl / best_blas * 1e-9);
    free(a), free(b), free(c);
}

int main(int argc, char **argv)
{
    if (!fd_cpu_sgemm_avx512_ok()) {
        printf("no AVX-512F\n");
        return 77;
    }
    openblas_set_num_threads(1);
    if (argc >= 4) {
        int t[3] = {0, 0, 0};
        for (int i = 0; i < 3 && argc > 4 + i; i++)
            t[i] = argv[4 + i][0] == 't';
        timeit(atol(argv[1]), atol(argv[2]), atol(argv[3]), t[0], t[1], t[2], 10);
        return 0;
    }
    static const int64_t dims[][3] = {{1, 1, 1},      {13, 17, 5},   {12, 32, 256},  {25, 47, 300},
                                      {97, 33, 257},  {5, 200, 513}, {130, 15, 64},  {200, 100, 31},
                                      {200, 17, 300}, {97, 33, 40},  {1024, 49, 520}};
    int bad = 0;
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
        for (int t = 0; t < 8; t++)
            bad += check(dims[d][0], dims[d][1], dims[d][2], t & 1, (t >> 1) & 1, t >> 2,
                         t == 3 ? -0.5f : 1.0f,
                         t % 3 == 0   ? 0.0f
                         : t % 3 == 1 ? 1.0f
                                      : 0.25f);
    printf("checks: %s\n", bad ? "FAIL" : "ok");
    static const int64_t shapes[][5] = {
        {512, 512, 512, 0, 0},  {64, 3136, 576, 0, 0},  {64, 3136, 64, 0, 0},
        {256, 3136, 64, 0, 0},  {128, 784, 1152, 0, 0}, {512, 784, 128, 0, 0},
        {256, 196, 2304, 0, 0}, {1024, 196, 256, 0, 0}, {512, 49, 4608, 0, 0},
        {576, 3136, 64, 1, 0},  {1152, 784, 128, 1, 0}, {2304, 196, 256, 1, 0},
        {64, 576, 3136, 0, 1},  {128, 1152, 784, 0, 1}, {256, 2304, 196, 0, 1},
        {512, 4608, 49, 0, 1}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        timeit(shapes[i][0], shapes[i][1], shapes[i][2], (int)shapes[i][3], (int)shapes[i][4], 0,
               5);
    return bad != 0;
}
