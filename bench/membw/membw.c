/* SPDX-License-Identifier: MIT */
/*
 * membw.c - a small STREAM-like memory bandwidth probe for the cpu backend's memory-bound
 * targets (docs/perf/cpu-memops-*.md): copy (a = b), scale (a = s b), triad (a = b + s c) on
 * double arrays of 4x the last-level cache each (32 MiB L3 here -> 128 MiB; --mib=N to
 * change), with 1 thread and with 2 (OMP_NUM_THREADS is ignored: both are run), best of N
 * repetitions (--reps=N, default 10). Bytes counted as STREAM does: copy/scale 16 B per
 * element, triad 24 B (write-allocate traffic is not counted, as in STREAM).
 * Build: make -C bench/membw  (gcc -O3 -fopenmp; no library needed).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double now(void)
{
    return omp_get_wtime();
}

int main(int argc, char **argv)
{
    size_t mib = 128;
    int reps = 10;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--mib=", 6) == 0)
            mib = (size_t)atol(argv[i] + 6);
        else if (strncmp(argv[i], "--reps=", 7) == 0)
            reps = atoi(argv[i] + 7);
        else {
            fprintf(stderr, "usage: membw [--mib=N] [--reps=N]\n");
            return 2;
        }
    }
    const size_t n = mib * 1024 * 1024 / sizeof(double);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c)
        return 1;
    printf("membw: %zu MiB per array, best of %d\n", mib, reps);
    for (int threads = 1; threads <= 2; threads++) {
        omp_set_num_threads(threads);
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++) /* first touch by the threads that use the pages */
            a[i] = 1.0, b[i] = 2.0, c[i] = 0.5;
        const char *names[3] = {"copy", "scale", "triad"};
        const double bytes[3] = {16.0 * n, 16.0 * n, 24.0 * n};
        for (int k = 0; k < 3; k++) {
            double best = 1e30;
            for (int r = 0; r < reps; r++) {
                const double s = 3.0;
                double t0 = now();
                if (k == 0) {
#pragma omp parallel for schedule(static)
                    for (size_t i = 0; i < n; i++)
                        a[i] = b[i];
                } else if (k == 1) {
#pragma omp parallel for schedule(static)
                    for (size_t i = 0; i < n; i++)
                        a[i] = s * b[i];
                } else {
#pragma omp parallel for schedule(static)
                    for (size_t i = 0; i < n; i++)
                        a[i] = b[i] + s * c[i];
                }
                double t = now() - t0;
                best = t < best ? t : best;
            }
            printf("threads=%d %-5s %8.2f GB/s\n", threads, names[k], bytes[k] / best * 1e-9);
        }
    }
    double check = a[n / 2] + b[n / 3] + c[n / 5]; /* keep the stores alive */
    return check == 0.0;
}
