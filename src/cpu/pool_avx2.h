/* SPDX-License-Identifier: MIT */
/*
 * pool_avx2.h - what the two f32 AVX2 pooling files share (pool_avx2_nchw.c: W unit stride,
 * pool_avx2_nhwc.c: C unit stride): their entry points, called by pooling_cpu.c where its
 * AVX-512 paths decline, and the float quotient of the box rows, which must be the same
 * operations in both files (box_layouts in tests/impl/test_cpu_pool_fast.c holds the two
 * layouts to the same bits).
 */
#ifndef FD_CPU_POOL_AVX2_H_
#define FD_CPU_POOL_AVX2_H_

#include <float.h>

#include "../core/pooling.h"

/* 1 when the path ran (every output written), 0 when it declines the problem. */
int fd_pool_avx2_nchw_run(const fd_pool_problem_t *p, const fd_pool_args_t *a, int bwd);
int fd_pool_avx2_nhwc_run(const fd_pool_problem_t *p, const fd_pool_args_t *a, int bwd);

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>

/* v / c in float, correctly rounded (c > 0, vi = 1 / c in float): the product corrected by one
 * FMA step (Markstein) while every estimate is finite and normal, vdivps otherwise. */
__attribute__((target("avx2,fma"))) static inline __m256 fd_pool_avx2_divf(__m256 v, __m256 c,
                                                                           __m256 vi)
{
    const __m256 q0 = _mm256_mul_ps(v, vi);
    const __m256 aq = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), q0);
    const __m256 ok = _mm256_and_ps(_mm256_cmp_ps(aq, _mm256_set1_ps(FLT_MAX), _CMP_LE_OQ),
                                    _mm256_cmp_ps(aq, _mm256_set1_ps(0x1p-100f), _CMP_GE_OQ));
    const __m256 zero = _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_EQ_OQ);
    if (_mm256_movemask_ps(_mm256_or_ps(ok, zero)) != 0xFF)
        return _mm256_div_ps(v, c);
    /* zero v: q0 is the signed zero the division gives */
    return _mm256_blendv_ps(_mm256_fmadd_ps(_mm256_fnmadd_ps(q0, c, v), vi, q0), q0, zero);
}
#endif

#endif /* FD_CPU_POOL_AVX2_H_ */
