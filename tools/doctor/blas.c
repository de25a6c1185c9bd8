/* SPDX-License-Identifier: MIT */
/*
 * blas.c - freednn-doctor's cpu_blas check: which OpenBLAS the cpu backend's GEMM rows run on,
 * which kernels it chose for this CPU, and whether those leave the CPU's AVX-512 unused.
 *
 * OpenBLAS built with DYNAMIC_ARCH (Debian's, Ubuntu's) picks a kernel set per CPU when it is
 * loaded, from cpuid or, when set, from OPENBLAS_CORETYPE. On an AMD EPYC (Zen 5) Debian 12's
 * 0.3.21 picks its AVX-512 "Cooperlake" kernels by itself, but the development machines of
 * this project run with OPENBLAS_CORETYPE=Haswell in the environment, which forces the AVX2
 * kernels: sgemm 512^3 on one thread 132 GFLOP/s against 251, and ResNet-50's backward
 * convolutions at N = 1 at 0.54 of oneDNN against 0.81-0.84 (docs/perf/
 * cpu-2026-12-01-zen4.md). The library leaves the variable alone (it is the user's
 * choice, and OpenBLAS reads it before any freednn code runs); this check says what it costs.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"

static int has_avx512_skx(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl");
#else
    return 0;
#endif
}

void dr_check_cpu_blas(dr_ctx_t *ctx, dr_check_t *c)
{
    (void)ctx;
    char *(*corename)(void) = (char *(*)(void))dlsym(RTLD_DEFAULT, "openblas_get_corename");
    char *(*config)(void) = (char *(*)(void))dlsym(RTLD_DEFAULT, "openblas_get_config");
    int (*threads)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
    if (corename == NULL) {
        dr_set(c, DR_NA, "no OpenBLAS in this process (the cpu backend's GEMM rows need it)");
        return;
    }
    const char *core = corename(), *cfg = config ? config() : "?";
    const char *forced = getenv("OPENBLAS_CORETYPE");
    dr_fact_str(c, "corename", core);
    dr_fact_str(c, "config", cfg);
    dr_fact_str(c, "OPENBLAS_CORETYPE", forced);
    dr_fact_int(c, "threads", threads ? threads() : -1);
    const int avx512 = has_avx512_skx();
    dr_fact_int(c, "cpu_avx512", avx512);
    const int avx2_core = strcmp(core, "Haswell") == 0 || strcmp(core, "Zen") == 0;
    if (avx512 && avx2_core) {
        dr_set(c, DR_WARN, "OpenBLAS runs its %s (AVX2) kernels on this AVX-512 CPU", core);
        if (forced != NULL)
            dr_note(c, "OPENBLAS_CORETYPE=%s in the environment chose them", forced);
        else
            dr_note(c, "%s chose them by itself (a release that does not know this CPU)", cfg);
        dr_note(c, "measured on an AMD EPYC (Zen 5): sgemm 1.9x faster on its AVX-512 kernels, "
                   "the cpu backend's backward convolutions 1.5x");
        if (forced != NULL)
            dr_fix(c, "unset OPENBLAS_CORETYPE (or set it to SkylakeX) before starting the program");
        else
            dr_fix(c, "export OPENBLAS_CORETYPE=SkylakeX before starting the program, or install a "
                      "newer OpenBLAS");
        return;
    }
    dr_set(c, DR_PASS, "%s, %s kernels%s", cfg, core,
           forced ? " (OPENBLAS_CORETYPE set)" : "");
}
