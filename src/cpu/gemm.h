/* SPDX-License-Identifier: MIT */
/*
 * gemm.h - the cpu backend's GEMM entry over strided views (FLOAT: our AVX-512 SGEMM where the
 * CPU has it, else CBLAS from OpenBLAS, DESIGN D7; DOUBLE: CBLAS), and the layout questions
 * the GEMM-shaped convolutions ask of a flat problem.
 *
 * A view is a matrix whose element (i, j) lies at i * rs + j * cs elements from its base. BLAS
 * takes a view directly when one of the two strides is 1 and the other is a valid leading
 * dimension; fd_cpu_view_ok() says whether it does (normalising the stride of a dimension of
 * size 1, which is free). FLOAT and DOUBLE only.
 */
#ifndef FD_CPU_GEMM_H_
#define FD_CPU_GEMM_H_

#include "../core/conv.h"

/* FLOAT calls through CBLAS (not those of fd_cpu_sgemm_avx512) are cut into slices of at most this
 * many along K (accumulated with beta = 1), so OpenBLAS sums each slice as one block whatever its
 * thread count: its single- and multi-thread drivers split a K above their block size GEMM_Q at
 * different points, which changed bits between 1 and 2 threads (docs/perf/cpu-conv-gemm.md). GEMM_Q
 * is 384 for sgemm here and at least 128 on every x86 target of OpenBLAS's param.h (Bulldozer 168,
 * Pentium 4 128). DOUBLE calls are not cut: OpenBLAS's dgemm differs between thread counts even for
 * K <= 16 (at partition edges), so the DOUBLE rows do not claim determinism. */
#define FD_CPU_GEMM_KC_F32 128

/* OpenMP regions beside BLAS calls: with OpenBLAS's pthread build (Debian's default) both
 * pools spin-wait after each region and fight for the cores (measured: a 3x3 layer 1.9 ms with
 * serial packing, 1.6 to 8.8 ms with OpenMP packing around OpenBLAS's own threads on 2 cores).
 * So no row runs its OpenMP loops while BLAS threads run: the rows below hold BLAS
 * single-threaded around their own team instead. */

/* Our own team around single-threaded BLAS calls: the GEMM rows' answer to the pthread
 * OpenBLAS above. A row that splits its work itself (fd_cpu_gemm_team, packing by rows or
 * channels) runs its OpenMP team with BLAS single-threaded inside: then only one pool runs,
 * every thread packs what it multiplies (no serial im2col / col2im), and a K-sliced GEMM
 * costs no barrier per slice (OpenBLAS's threaded driver synchronises on each of the 128-deep
 * slices: a 64 x 64 x 3136 GEMM took longer on two threads than on one).
 * fd_cpu_team_size: the team for such a row, omp_get_max_threads() outside a parallel region
 * (1 inside one, or without OpenMP). BLAS's own threads are never used: fd_cpu_gemm runs
 * single-threaded too (gemm.c says why), so a row's parallelism is its team's.
 * fd_cpu_blas_serial_begin / _end bracket the team's work: with the pthread OpenBLAS they set
 * its thread count to 1 and restore it after (reference-counted under a lock, so overlapping
 * calls from several application threads restore the caller's count once, after the last);
 * the OpenMP build runs single-threaded inside our parallel regions by itself, the sequential
 * build always. A BLAS call the application makes from another thread while a team runs runs
 * single-threaded too (the count is process-wide): slower, never wrong. */
int fd_cpu_team_size(void);
void fd_cpu_blas_serial_begin(void);
void fd_cpu_blas_serial_end(void);

/* Part i of `parts` of [0, total), boundaries on multiples of `align` (the last part ends at
 * total); parts may be empty. */
static inline void fd_cpu_part(int64_t total, int64_t align, int parts, int i, int64_t *lo,
                               int64_t *hi)
{
    const int64_t units = (total + align - 1) / align;
    *lo = units * i / parts * align, *hi = units * (i + 1) / parts * align;
    *lo = *lo < total ? *lo : total, *hi = *hi < total ? *hi : total;
}

/* 1 when p's data type is the row's `dt` (FLOAT or DOUBLE); else 0 with the reason. */
int fd_cpu_dtype_ok(const fd_conv_problem_t *p, cudnnDataType_t dt, char *why, size_t why_size);

/* 1 when a rows x cols view with strides *rs, *cs can be handed to BLAS (row- or column-major
 * with a leading dimension that fits int); may rewrite the stride of a dimension of size 1. */
int fd_cpu_view_ok(int64_t rows, int64_t cols, int64_t *rs, int64_t *cs);

/* C = alpha * A B + beta * C with A m x k, B k x n, C m x n, all views accepted by
 * fd_cpu_view_ok and m, n, k <= INT_MAX, on the calling thread (BLAS single-threaded).
 * beta == 0 never reads C (BLAS rule). */
void fd_cpu_gemm(cudnnDataType_t dt, int64_t m, int64_t n, int64_t k, double alpha, const void *a,
                 int64_t a_rs, int64_t a_cs, const void *b, int64_t b_rs, int64_t b_cs, double beta,
                 void *c, int64_t c_rs, int64_t c_cs);

/* Our own single-threaded AVX-512 FLOAT GEMM (sgemm_avx512.c): C = alpha * A B + beta * C over
 * views as fd_cpu_gemm takes them (each of A, B, C row- or column-major with any leading
 * dimension), beta == 0 never reading C. Packs both operands into stack buffers (128 KiB per
 * call: a 96 x 256 block of A and a 256 x 32 micro-panel of B), no heap. Sums each element over
 * K in a fixed order that depends on K only (blocks of 256, each one FMA chain in increasing
 * k), so the bits do not depend on M, N or how C is split: FD_CPU_GEMM_KC_F32 does not apply.
 * fd_cpu_sgemm_avx512_ok: 1 when the CPU runs it (AVX-512F, x86-64 builds); call only then.
 * fd_cpu_sgemm_own: 1 when fd_cpu_gemm routes FLOAT here: the CPU runs it and the environment
 * does not say FREEDNN_CPU_GEMM=blas (which forces CBLAS, the "im2col + SGEMM through CBLAS"
 * rows; read at each call, so tests can switch it). */
int fd_cpu_sgemm_avx512_ok(void);
int fd_cpu_sgemm_own(void);
void fd_cpu_sgemm_avx512(int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t a_rs,
                         int64_t a_cs, const float *b, int64_t b_rs, int64_t b_cs, float beta,
                         float *c, int64_t c_rs, int64_t c_cs);

/* A B operand that is never stored whole: fd_cpu_sgemm_avx512_src asks for it one micro-panel at
 * a time (the implicit-GEMM convolution gathers its column matrix from x this way, so it needs
 * no workspace). K blocks [k0, k0 + kc) of at most FD_CPU_SGEMM_KC come in increasing order;
 * `block` runs once per K block, before its panels, which are then asked for once per M block.
 * `panel` returns the 64-byte aligned panel P with P[kk * FD_CPU_SGEMM_NR + j] = B(k0 + kk,
 * j0 + j) for kk < kc, j < nr, and zeros for nr <= j < FD_CPU_SGEMM_NR: written into bp (the
 * GEMM's buffer), or one the source keeps from an earlier M block (it stays valid until the
 * next `block`). The callbacks run on the calling thread; a source is one call's. */
#define FD_CPU_SGEMM_KC 256
#define FD_CPU_SGEMM_NR 32
typedef struct fd_cpu_bsource {
    void (*block)(struct fd_cpu_bsource *s, int64_t k0, int64_t kc);
    float *(*panel)(struct fd_cpu_bsource *s, int64_t k0, int64_t kc, int64_t j0, int nr,
                    float *bp);
} fd_cpu_bsource_t;

/* fd_cpu_sgemm_avx512 with B from `src` and a row-major (c_cs == 1) or column-major (c_rs == 1)
 * C: the same sum order, so the same bits as with B stored. Call only where
 * fd_cpu_sgemm_avx512_ok(). */
void fd_cpu_sgemm_avx512_src(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                             int64_t a_rs, int64_t a_cs, fd_cpu_bsource_t *src, float beta,
                             float *c, int64_t c_rs, int64_t c_cs);

/* fd_cpu_sgemm_avx512_src with A's columns in runs of a_inner: A(i, kk) = a[i * a_rs + (kk /
 * a_inner) * a_ocs + (kk % a_inner) * a_cs] (the backward-data implicit GEMM's filter, its
 * columns (k, tap) pairs: a_inner taps a step a_cs apart, k a_ocs apart). */
void fd_cpu_sgemm_avx512_src2(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                              int64_t a_rs, int64_t a_cs, int64_t a_inner, int64_t a_ocs,
                              fd_cpu_bsource_t *src, float beta, float *c, int64_t c_rs,
                              int64_t c_cs);

/* A fixed split of fd_cpu_gemm's C for our team: `parts` pieces along its larger dimension (M
 * or N, boundaries on multiples of 16), each computed by its own fd_cpu_gemm call. The split
 * depends on the shape only, never on the thread count, and a one-thread run makes the same
 * calls one after another: the bits cannot depend on the thread count even where OpenBLAS's
 * result depends on the call's shape (its SkylakeX / Cooperlake small-matrix kernel takes
 * M * N * K <= 10^6 and sums in another order: splitting by the thread count changed the bits
 * of a 24 x 440 x 144 GEMM between one and two threads). fd_cpu_split_parts(len): the number
 * of pieces for a dimension of len: 1 below 64, then 2 (each extra piece is another BLAS call
 * with its own packing, which one thread pays too: 8 pieces of 32 or more columns cost up to 13%
 * at one thread on ResNet-50's 1x1 layers), 4 from 8192. Two pieces is this VM's two cores;
 * a machine with more gets no more from these rows than from two (the direct rows scale on). */
static inline int fd_cpu_split_parts(int64_t len)
{
    return len < 64 ? 1 : len < 8192 ? 2 : 4;
}
int fd_cpu_gemm_parts(int64_t m, int64_t n);

/* Pieces [first, last) of the `parts` of fd_cpu_gemm_parts(m, n), one BLAS call each. */
void fd_cpu_gemm_pieces(int first, int last, int parts, cudnnDataType_t dt, int64_t m, int64_t n,
                        int64_t k, double alpha, const void *a, int64_t a_rs, int64_t a_cs,
                        const void *b, int64_t b_rs, int64_t b_cs, double beta, void *c,
                        int64_t c_rs, int64_t c_cs);

/* fd_cpu_gemm in the pieces of fd_cpu_gemm_parts on a team of nt threads (contiguous pieces
 * per thread, BLAS single-threaded); with nt <= 1 the same pieces one after another. */
void fd_cpu_gemm_team(int nt, cudnnDataType_t dt, int64_t m, int64_t n, int64_t k, double alpha,
                      const void *a, int64_t a_rs, int64_t a_cs, const void *b, int64_t b_rs,
                      int64_t b_cs, double beta, void *c, int64_t c_rs, int64_t c_cs);

/* 1 when the `count` dims ext[] / str[] (outermost first) address one arithmetic run of
 * prod(ext) elements with step *unit (dims of size 1 ignored); *unit is 1 when all are 1. */
int fd_cpu_flat_run(const int64_t *ext, const int64_t *str, int count, int64_t *unit);

/* Byte pointer `off` elements of dtype size `es` past `base`. */
static inline void *fd_cpu_at(const void *base, int64_t off, size_t es)
{
    return (char *)base + off * (int64_t)es;
}

#endif /* FD_CPU_GEMM_H_ */
