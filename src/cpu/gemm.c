/* SPDX-License-Identifier: MIT */
/*
 * gemm.c - strided views onto our AVX-512 SGEMM (sgemm_avx512.c) or CBLAS sgemm/dgemm
 * (OpenBLAS) for the cpu backend.
 *
 * FLOAT goes to fd_cpu_sgemm_avx512 when the CPU has AVX-512F and the environment does not say
 * FREEDNN_CPU_GEMM=blas (fd_cpu_sgemm_own); it takes the views as they are and sums in an order
 * fixed by K, so no K slicing. The rest of this comment is about the CBLAS path.
 * A row-major C (cs == 1) is computed with CblasRowMajor, a column-major one (rs == 1) with
 * CblasColMajor; each operand is NoTrans or Trans depending on which of its strides is 1. No
 * copies: a view BLAS cannot take is the caller's to pack. FLOAT calls are sliced along K
 * (FD_CPU_GEMM_KC_F32) so that OpenBLAS's result does not depend on its thread count. Every
 * BLAS call runs single-threaded (fd_cpu_blas_serial_begin): OpenBLAS's Haswell kernels (which
 * OPENBLAS_CORETYPE=Haswell forces, as on this project's AMD Zen 4 machines) give other bits when
 * its threads split M or N at other points (a 16 x 3136 x 64 sgemm, 1 and 2 threads), so
 * parallelism is ours only: the team helpers
 * (gemm.h: fd_cpu_team_size and after) split C along M or N at points fixed by the shape.
 */
#include <cblas.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../core/backend.h"
#include "gemm.h"

int fd_cpu_isa_avx512(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    static int isa = -1; /* a benign race: every thread stores the same value */
    if (isa < 0) {
        const char *cap = getenv("FREEDNN_CPU_ISA");
        __builtin_cpu_init();
        isa = !(cap && (strcmp(cap, "avx2") == 0 || strcmp(cap, "generic") == 0)) &&
              __builtin_cpu_supports("avx512f");
    }
    return isa;
#else
    return 0;
#endif
}

int fd_cpu_team_size(void)
{
#ifdef _OPENMP
    return omp_in_parallel() ? 1 : omp_get_max_threads();
#else
    return 1;
#endif
}

/* Only the pthread build (openblas_get_parallel() == 1) needs its count changed: the OpenMP
 * build's openblas_set_num_threads would also set our team's size (omp_set_num_threads). */
static pthread_mutex_t serial_lock = PTHREAD_MUTEX_INITIALIZER;
static int serial_users, serial_saved;

void fd_cpu_blas_serial_begin(void)
{
    if (openblas_get_parallel() != 1)
        return;
    pthread_mutex_lock(&serial_lock);
    if (serial_users++ == 0) {
        serial_saved = openblas_get_num_threads();
        if (serial_saved != 1)
            openblas_set_num_threads(1);
    }
    pthread_mutex_unlock(&serial_lock);
}

void fd_cpu_blas_serial_end(void)
{
    if (openblas_get_parallel() != 1)
        return;
    pthread_mutex_lock(&serial_lock);
    if (--serial_users == 0 && serial_saved != 1)
        openblas_set_num_threads(serial_saved);
    pthread_mutex_unlock(&serial_lock);
}

int fd_backend_cpu_profile(void)
{
    const char *pin = getenv("FREEDNN_CPU_HEURISTIC");
    if (pin != NULL && pin[0] != '\0')
        return strcmp(pin, "zen") == 0        ? FD_CPU_PROFILE_ZEN | FD_CPU_PROFILE_BLAS512
               : strcmp(pin, "zen-avx2") == 0 ? FD_CPU_PROFILE_ZEN
               : strcmp(pin, "zen3") == 0     ? FD_CPU_PROFILE_ZEN | FD_CPU_PROFILE_AVX2ONLY
                                              : FD_CPU_PROFILE_BLAS512;
    int prof = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_is("amd"))
        prof |= FD_CPU_PROFILE_ZEN;
    if (!__builtin_cpu_supports("avx512f"))
        prof |= FD_CPU_PROFILE_AVX2ONLY;
#endif
    if (fd_cpu_sgemm_own())
        return prof | FD_CPU_PROFILE_BLAS512; /* our AVX-512 GEMM serves FLOAT */
    const char *core = openblas_get_corename();
    if (core != NULL && (strcmp(core, "SkylakeX") == 0 || strcmp(core, "Cooperlake") == 0 ||
                         strcmp(core, "SapphireRapids") == 0))
        prof |= FD_CPU_PROFILE_BLAS512;
    return prof;
}

int fd_cpu_sgemm_own(void)
{
    const char *force = getenv("FREEDNN_CPU_GEMM");
    return fd_cpu_sgemm_avx512_ok() && !(force != NULL && strcmp(force, "blas") == 0);
}

int fd_cpu_dtype_ok(const fd_conv_problem_t *p, cudnnDataType_t dt, char *why, size_t why_size)
{
    if (p->xdt == dt)
        return 1;
    if (p->xdt == CUDNN_DATA_HALF || p->xdt == CUDNN_DATA_BFLOAT16)
        snprintf(why, why_size, "no half GEMM: %s falls back to ref", fd_dtype_name(p->xdt));
    else
        snprintf(why, why_size, "%s data; this row is %s", fd_dtype_name(p->xdt),
                 fd_dtype_name(dt));
    return 0;
}

int fd_cpu_view_ok(int64_t rows, int64_t cols, int64_t *rs, int64_t *cs)
{
    if (cols == 1)
        *cs = 1;
    if (rows == 1)
        *rs = *cs == 1 ? cols : 1;
    if (*cs == 1 && *rs >= cols && *rs >= 1 && *rs <= INT_MAX)
        return 1;
    if (*rs == 1 && *cs >= rows && *cs >= 1 && *cs <= INT_MAX)
        return 1;
    return 0;
}

int fd_cpu_flat_run(const int64_t *ext, const int64_t *str, int count, int64_t *unit)
{
    int64_t next = -1; /* the stride the next outer dim must have */
    *unit = 1;
    for (int i = count - 1; i >= 0; i--) {
        if (ext[i] == 1)
            continue;
        if (next < 0)
            *unit = str[i];
        else if (str[i] != next)
            return 0;
        next = str[i] * ext[i];
    }
    return 1;
}

/* A rows x cols operand in a GEMM of the given order: NoTrans when its strides are that order
 * with a valid leading dimension, else Trans (fd_cpu_view_ok guarantees one of the two). */
static enum CBLAS_TRANSPOSE op_of(int row_major, int64_t rows, int64_t cols, int64_t rs, int64_t cs,
                                  int *ld)
{
    int64_t lead = row_major ? rs : cs, unit = row_major ? cs : rs;
    int64_t need = row_major ? cols : rows;
    if (unit == 1 && lead >= (need > 1 ? need : 1)) {
        *ld = (int)lead;
        return CblasNoTrans;
    }
    *ld = (int)unit;
    return CblasTrans;
}

/* The BLAS calls of one fd_cpu_gemm (BLAS's thread count already 1, or its OpenMP build). */
static void gemm_blas(cudnnDataType_t dt, int64_t m, int64_t n, int64_t k, double alpha,
                      const void *a, int64_t a_rs, int64_t a_cs, const void *b, int64_t b_rs,
                      int64_t b_cs, double beta, void *c, int64_t c_rs, int64_t c_cs)
{
    int row_major = c_cs == 1 && c_rs >= (n > 1 ? n : 1), lda, ldb;
    int ldc = (int)(row_major ? c_rs : c_cs);
    enum CBLAS_ORDER order = row_major ? CblasRowMajor : CblasColMajor;
    enum CBLAS_TRANSPOSE ta = op_of(row_major, m, k, a_rs, a_cs, &lda);
    enum CBLAS_TRANSPOSE tb = op_of(row_major, k, n, b_rs, b_cs, &ldb);
    if (dt == CUDNN_DATA_FLOAT && fd_cpu_sgemm_own()) {
        fd_cpu_sgemm_avx512(m, n, k, (float)alpha, a, a_rs, a_cs, b, b_rs, b_cs, (float)beta, c,
                            c_rs, c_cs);
        return;
    }
    if (dt == CUDNN_DATA_DOUBLE) {
        cblas_dgemm(order, ta, tb, (int)m, (int)n, (int)k, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
    }
    for (int64_t k0 = 0; k0 < k; k0 += FD_CPU_GEMM_KC_F32) {
        int64_t kc = k - k0 < FD_CPU_GEMM_KC_F32 ? k - k0 : FD_CPU_GEMM_KC_F32;
        cblas_sgemm(order, ta, tb, (int)m, (int)n, (int)kc, (float)alpha,
                    (const float *)a + k0 * a_cs, lda, (const float *)b + k0 * b_rs, ldb,
                    k0 == 0 ? (float)beta : 1.0f, c, ldc);
    }
}

void fd_cpu_gemm(cudnnDataType_t dt, int64_t m, int64_t n, int64_t k, double alpha, const void *a,
                 int64_t a_rs, int64_t a_cs, const void *b, int64_t b_rs, int64_t b_cs, double beta,
                 void *c, int64_t c_rs, int64_t c_cs)
{
    fd_cpu_blas_serial_begin();
    gemm_blas(dt, m, n, k, alpha, a, a_rs, a_cs, b, b_rs, b_cs, beta, c, c_rs, c_cs);
    fd_cpu_blas_serial_end();
}

int fd_cpu_gemm_parts(int64_t m, int64_t n)
{
    return fd_cpu_split_parts(n >= m ? n : m);
}

void fd_cpu_gemm_pieces(int first, int last, int parts, cudnnDataType_t dt, int64_t m, int64_t n,
                        int64_t k, double alpha, const void *a, int64_t a_rs, int64_t a_cs,
                        const void *b, int64_t b_rs, int64_t b_cs, double beta, void *c,
                        int64_t c_rs, int64_t c_cs)
{
    const size_t es = dt == CUDNN_DATA_DOUBLE ? sizeof(double) : sizeof(float);
    fd_cpu_blas_serial_begin();
    for (int i = first; i < last; i++) {
        int64_t lo, hi;
        fd_cpu_part(n >= m ? n : m, 16, parts, i, &lo, &hi);
        if (hi <= lo)
            continue;
        if (n >= m)
            gemm_blas(dt, m, hi - lo, k, alpha, a, a_rs, a_cs, fd_cpu_at(b, lo * b_cs, es), b_rs,
                      b_cs, beta, fd_cpu_at(c, lo * c_cs, es), c_rs, c_cs);
        else
            gemm_blas(dt, hi - lo, n, k, alpha, fd_cpu_at(a, lo * a_rs, es), a_rs, a_cs, b, b_rs,
                      b_cs, beta, fd_cpu_at(c, lo * c_rs, es), c_rs, c_cs);
    }
    fd_cpu_blas_serial_end();
}

void fd_cpu_gemm_team(int nt, cudnnDataType_t dt, int64_t m, int64_t n, int64_t k, double alpha,
                      const void *a, int64_t a_rs, int64_t a_cs, const void *b, int64_t b_rs,
                      int64_t b_cs, double beta, void *c, int64_t c_rs, int64_t c_cs)
{
    const int parts = fd_cpu_gemm_parts(m, n);
    if (nt <= 1 || parts == 1) {
        fd_cpu_gemm_pieces(0, parts, parts, dt, m, n, k, alpha, a, a_rs, a_cs, b, b_rs, b_cs, beta,
                           c, c_rs, c_cs);
        return;
    }
    fd_cpu_blas_serial_begin();
#pragma omp parallel num_threads(nt)
    {
#ifdef _OPENMP
        const int tid = omp_get_thread_num(), team = omp_get_num_threads();
#else
        const int tid = 0, team = 1;
#endif
        fd_cpu_gemm_pieces(parts * tid / team, parts * (tid + 1) / team, parts, dt, m, n, k, alpha,
                           a, a_rs, a_cs, b, b_rs, b_cs, beta, c, c_rs, c_cs);
    }
    fd_cpu_blas_serial_end();
}
