/* SPDX-License-Identifier: MIT */
/*
 * gemm.h - the cpu backend's GEMM entry (CBLAS from OpenBLAS, DESIGN D7) over strided views,
 * and the layout questions the GEMM-shaped convolutions ask of a flat problem.
 *
 * A view is a matrix whose element (i, j) lies at i * rs + j * cs elements from its base. BLAS
 * takes a view directly when one of the two strides is 1 and the other is a valid leading
 * dimension; fd_cpu_view_ok() says whether it does (normalising the stride of a dimension of
 * size 1, which is free). FLOAT and DOUBLE only.
 */
#ifndef FD_CPU_GEMM_H_
#define FD_CPU_GEMM_H_

#include "../core/conv.h"

/* FLOAT calls are cut into slices of at most this many along K (accumulated with beta = 1), so
 * OpenBLAS sums each slice as one block whatever its thread count: its single- and multi-thread
 * drivers split a K above their block size GEMM_Q at different points, which changed bits
 * between 1 and 2 threads (docs/perf/cpu-conv-gemm.md). GEMM_Q is 384 for sgemm here and at
 * least 128 on every x86 target of OpenBLAS's param.h (Bulldozer 168, Pentium 4 128).
 * DOUBLE calls are not cut: OpenBLAS's dgemm differs between thread counts even for K <= 16
 * (at partition edges), so the DOUBLE rows do not claim determinism. */
#define FD_CPU_GEMM_KC_F32 128

/* 1 when OpenMP regions may surround BLAS calls: OpenBLAS is its OpenMP build, sharing one
 * thread pool with ours. With the pthread build (Debian's default) both pools spin-wait after
 * each region and fight for the cores (measured: a 3x3 layer 1.9 ms with serial packing, 1.6
 * to 8.8 ms with OpenMP packing on 2 cores), so packing stays serial and the threads are
 * OpenBLAS's own, which honour OMP_NUM_THREADS (or OPENBLAS_NUM_THREADS) as well. */
int fd_cpu_omp_ok(void);

/* 1 when p's data type is the row's `dt` (FLOAT or DOUBLE); else 0 with the reason. */
int fd_cpu_dtype_ok(const fd_conv_problem_t *p, cudnnDataType_t dt, char *why, size_t why_size);

/* 1 when a rows x cols view with strides *rs, *cs can be handed to BLAS (row- or column-major
 * with a leading dimension that fits int); may rewrite the stride of a dimension of size 1. */
int fd_cpu_view_ok(int64_t rows, int64_t cols, int64_t *rs, int64_t *cs);

/* C = alpha * A B + beta * C with A m x k, B k x n, C m x n, all views accepted by
 * fd_cpu_view_ok and m, n, k <= INT_MAX. beta == 0 never reads C (BLAS rule). */
void fd_cpu_gemm(cudnnDataType_t dt, int64_t m, int64_t n, int64_t k, double alpha, const void *a,
                 int64_t a_rs, int64_t a_cs, const void *b, int64_t b_rs, int64_t b_cs, double beta,
                 void *c, int64_t c_rs, int64_t c_cs);

/* 1 when the `count` dims ext[] / str[] (outermost first) address one arithmetic run of
 * prod(ext) elements with step *unit (dims of size 1 ignored); *unit is 1 when all are 1. */
int fd_cpu_flat_run(const int64_t *ext, const int64_t *str, int count, int64_t *unit);

/* Byte pointer `off` elements of dtype size `es` past `base`. */
static inline void *fd_cpu_at(const void *base, int64_t off, size_t es)
{
    return (char *)base + off * (int64_t)es;
}

#endif /* FD_CPU_GEMM_H_ */
