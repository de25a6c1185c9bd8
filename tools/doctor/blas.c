/* SPDX-License-Identifier: MIT */
/*
 * blas.c - freednn-doctor's cpu_blas check: which OpenBLAS the cpu backend's GEMM rows run on,
 * which kernels it chose for this CPU, and whether those leave the CPU's AVX-512 unused.
 *
 * OpenBLAS built with DYNAMIC_ARCH (Debian's, Ubuntu's) picks a kernel set per CPU when it is
 * loaded. Releases before AMD Zen 4 was known to it (Debian 12's 0.3.21 among them) give Zen 4
 * their AVX2 "Haswell" / "Zen" kernels although the CPU runs AVX-512; OPENBLAS_CORETYPE=SkylakeX
 * in the environment before the program starts selects the AVX-512 kernels instead (measured
 * on an AMD EPYC, Zen 4, one thread, 2026-12-01: sgemm 512^3 135 -> 257 GFLOP/s, 64 x 3136 x 576
 * 120 -> 217). The library cannot switch it itself: OpenBLAS reads the variable in its
 * constructor, which runs before freednn's code.
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
        dr_note(c, "%s: releases that predate AMD Zen 4 give it the AVX2 kernels", cfg);
        dr_note(c, "measured on an AMD EPYC (Zen 4): sgemm 1.9x faster with the SkylakeX kernels, "
                   "and so are the cpu backend's GEMM convolution rows");
        dr_fix(c, "export OPENBLAS_CORETYPE=SkylakeX before starting the program (OpenBLAS reads "
                  "it when it loads)");
        return;
    }
    dr_set(c, DR_PASS, "%s, %s kernels%s", cfg, core,
           forced ? " (OPENBLAS_CORETYPE set)" : "");
}
