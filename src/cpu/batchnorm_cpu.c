/* SPDX-License-Identifier: MIT */
/*
 * batchnorm_cpu.c - cpu batch normalization: forward inference, forward training, backward
 * (FD_OP_BN_FWD_INFER / _FWD_TRAIN / _BWD cpu rows), per channel (SPATIAL, SPATIAL_PERSISTENT)
 * and per activation, with the fused activation of the *Ex / v8 entries. Mathematics in
 * src/core/batchnorm.h; the ref rows (src/ref/batchnorm_ref.c) are the oracle.
 *
 * Decisions:
 * - Memory-bound, so x is read once for the statistics and once for the output: a one-pass
 *   mean / variance. Each lane accumulates s1 = sum (x - K) and s2 = sum (x - K)^2 in double,
 *   K the group's first element (the shift keeps x = 1000 + noise accurate), then
 *   mean = K + s1 / M, var = (s2 - s1 * s1 / M) / M (clamped at 0; 1 / M as a multiplier).
 *   The ref takes two passes (sum, then squared deviations), so training statistics, training
 *   y and backward without saved statistics differ from it in the last bits (within the
 *   harness tolerance; with integer data and M a power of 2 every step is exact and the
 *   statistics equal ref's). Backward sums dy and dy * xhat per lane (ref: per group, one
 *   chain), a different summation order.
 * - Inference applies ref's expression (scale (x - mean) inv + bias, then the blend) per
 *   element in double: bit-identical to ref, except per activation in FLOAT / DOUBLE, which
 *   folds it as training does (y = x fa + fb, a few last-bit differences in double: the
 *   tolerance in tests/impl/test_cpu_bn_fast.c; FLOAT on AVX-512 in NHWC order computes it
 *   in float, the pf_* kernels below): there the parameters change every position,
 *   so their four loads and four operations per element, not memory, set the pace (0.38 of
 *   the bandwidth). Training on the vector kernels folds it into
 *   y = x fa + fb (fa = scale inv, fb = bias - mean fa, in double), two operations instead of
 *   four, since its statistics already differ in the last bits. Backward keeps ref's order
 *   for dx. FP contraction is off, so every ISA gives the same bits.
 * - Three walks, chosen from x's strides (spatial dims collapsed into one run), each a fixed
 *   partition of the work (blocks independent of OMP_NUM_THREADS, partial sums merged in block
 *   order, so the bits do not depend on the thread count):
 *   plane (per channel, spatial unit-stride: NCHW): a channel per unit, its N planes as rows of
 *     16 lanes for the backward sums and 64 for the statistics (16 independent sums in
 *     registers; 256 on the double-block path), 256 for the element passes; the channel (N H W
 *     elements) is read for the statistics and again from L2. Training and backward prefetch
 *     the next channel's x (and dy) into L2 during the element pass, a line per vector, so the
 *     reads of the next sums overlap this pass's stores (n8c64h112w112 f32, one thread:
 *     training 0.57 -> 0.66, backward 0.45 -> 0.66 of the bandwidth; 64 statistics lanes
 *     instead of 16: 0.64 -> 0.66).
 *   rows (per channel, C unit-stride: NHWC): lanes along C (tiles of up to 256), rows (n, s) in
 *     a fixed number of row blocks with partial sums; the element pass runs packed rows several
 *     at a time as one row and walks the rows in reverse, so that the tail of x, read last by
 *     the statistics, may still be in the last-level cache.
 *   tile (per activation, a packed image in NCHW or NHWC order): tiles of 256 positions of the
 *     flat image x N rows, small enough for L1 between the passes; the forward passes prefetch
 *     the next tile into L2 (x and, in NCHW order, the parameters; into L1 the N rows, a
 *     power of 2 apart in the benchmark shapes, share L1 sets and evicted each other). FLOAT
 *     forward on AVX-512 runs lanes outer (pa_*_f32_avx512): 16 positions' parameters, their
 *     1 / sqrt in the divider, then their N rows, so the divider overlaps the rows' memory
 *     traffic (rows outer, the tile's square roots ran alone: a fifth of the time); backward
 *     keeps rows outer (lanes outer re-read x and dy, 2N lines in one L1 set: slower). In NCHW
 *     order the first tile is a short head up to the output's next 64-byte boundary when the
 *     image stride keeps every row on that phase (tile_head): the streaming stores then fill
 *     whole lines (from malloc's 16-byte phase, per activation inference 0.32 -> 0.42). FLOAT
 *     data and parameters in NCHW order skip the tile's double arrays: pa_*_direct read the
 *     parameters and write the statistics in place and prefetch every row and parameter run
 *     PA_PF floats ahead, a line per 16 positions (n8c64h112w112, one thread: inference
 *     0.42 -> 0.66-0.75, training 0.46 -> 0.84; backward with the saved statistics
 *     0.33 -> 0.5: its double arithmetic, not memory, sets that pace: 0.33 ns per element
 *     with the data in cache).
 * - The sums over rows wider than one line (rows and tile walks) go rows outer over chunks of
 *   64 lanes (statistics; backward sums too, mean / inv from L1, then 32 for the rest) with
 *   the sums in registers: a packed NHWC tensor is then read as one stream (lanes outer read
 *   one line per row per lane group, and NHWC training / backward ran at a third of the
 *   bandwidth; backward sums over two 32-lane halves of each line: n8c64h112w112 backward
 *   4.2 -> 3.0 ms, best of 20 on a loaded machine); software prefetch one block
 *   ahead only where the rows are not packed. Each lane still adds its rows in order, so the
 *   bits are those of the lanes-outer form.
 * - float / double data with ops BN run vector kernels (GCC vector extensions, compiled per
 *   ISA through target_clones); HALF / BFLOAT16 and the fused activations run the same walks
 *   through double blocks (memop.h's conversions, the library's rounding). The plane walk's
 *   element passes take the channel's parameters as scalars over the whole contiguous run
 *   (*_u kernels; FLOAT on AVX-512: explicit 16-float vectors and, when streaming, whole-line
 *   stores after a head up to a 64-byte boundary): the same operations per element, so the
 *   same bits, without five parameter loads per vector (NCHW backward and inference were
 *   bound by them). The per-lane element passes of the rows and tile walks for FLOAT on
 *   AVX-512 are explicit too (whole-vector conversions; the clones split each into halves and
 *   extracts): the same expressions, the same bits. Per activation in NHWC order, FLOAT
 *   parameters are gathered channel by channel over the tile's positions (a short contiguous
 *   run each, not a page per element); FLOAT data and parameters with C a multiple of 16 on
 *   AVX-512 skip the tile instead (pa_nhwc_*): 16 x 16 blocks of parameters transposed in
 *   registers (n8c64h8w16, data in cache, one thread, with the double arithmetic: inference
 *   -42 %, training -33 %, backward -27 % of the time), then in float as NCHW order's in-place
 *   kernels.
 * - The rows walk with FLOAT data on AVX-512 (spatial training and backward in NHWC-like
 *   order) computes in float (rst_ / rbout_ / rbs_ / rbdx_f32_avx512; product decision of
 *   2026-12-04, docs/testing.md): the sums over runs of at most 64 rows in float, then into
 *   the lanes' double sums; y = ((x - mean) - mlo) scale inv + bias and dx from the same
 *   deviation, the mean carried as two floats. In double their arithmetic set the pace
 *   (n8c64h16w16 in L2, one thread: training 0.42 -> 0.29 ns an element, backward 0.78 ->
 *   0.48; n8c64h112w112 at two threads, backward 0.55-0.6 -> 0.72-0.75 of the bandwidth).
 *   On AVX2 without AVX-512 the same decision, lane for lane the same operations and bits:
 *   rst_ / rbout_ / rbs_ / rbdx_f32_avx2, 8-float vectors, sums over chunks of 32 lanes
 *   (n8c64h16w16 hot, one thread: training 1.42 -> 0.32 ns an element, backward 1.56 -> 0.56
 *   against the double clones).
 * - The plane walk's FLOAT backward (NCHW-like, spatial modes) takes the rows walk's float
 *   kernels too (plane_bwd_f32, product decision of 2026-12-06, as 2026-12-04's for the rows
 *   walk): the channel's factors fill every lane of an rbf_t, the sums run over the planes as
 *   rows of 16 lanes (rbs_f32_*: runs of at most 64 rows in float, then into double; the 16
 *   lanes' double sums merged in lane order as before) and dx over packed runs of LMAX lanes
 *   (rbdx_f32_*, prefetching the next channel a line per vector as the double kernels did).
 *   The statistics (when not saved) and training stay in double. In double the backward's
 *   arithmetic set the pace on the Intel VM (0.79 ns an element in cache, one thread):
 *   n8c64h112w112, two threads, dnnbench median against the double kernels in one run:
 *   AVX-512 4.33-4.56 -> 3.34-3.49 ms (0.64 -> 0.83 of 27.3 GB/s), AVX2 (FREEDNN_CPU_ISA=avx2)
 *   4.25-4.33 -> 3.84-3.89 ms; in cache (n2c64h56w56, one thread) 0.335 -> 0.266 ms.
 * - AVX2 without AVX-512 (bn_avx2: AVX2 and FMA, FREEDNN_CPU_ISA not `generic`; on an AVX-512
 *   CPU only with FREEDNN_CPU_ISA=avx2): the rows walk as the bullet above; the plane walk's
 *   FLOAT kernels are explicit AVX2 (pstats_ / pbsum_ / outf_u_ / bdx_u_f32_avx2). The clones
 *   of the generic kernels hold a v8d in two 256-bit registers, so the statistics' 64 lanes and
 *   the backward sums' 16 spilled
 *   every row (n8c64h112w112 at two threads: training 0.30, backward 0.34 of the bandwidth);
 *   these take the channel's parameters as scalars, sum a quarter of the 64 lanes at a time
 *   over blocks of 8 rows, and prefetch / stream as the AVX-512 element passes. The same
 *   operations in the same order per lane and per element: the generic kernels' bits (the
 *   test compares a digest of the double-arithmetic outputs across FREEDNN_CPU_ISA). The tile
 *   walk (per activation, in double on AVX2) takes AVX2 forms of the per-lane sums (lstats_ /
 *   lbsum_f32_avx2: 16 lanes over all rows) and element passes (outf_ / out_ / bdx_f32_avx2,
 *   also the rows walk's inference), with the same bits (n8c64h16w16 hot, one thread, NCHW:
 *   training 2.1 -> 1.0 ns an element, backward 2.1 -> 1.3). FLOAT data and parameters in
 *   NCHW order per activation take AVX2 forms of the in-place float kernels
 *   (pa_*_direct_f32_avx2, pf_*1's operations in 8 lanes; inference in float too), rows outer
 *   over the tile (lanes outer, the AVX-512 kernels' order, waited on 4 KiB aliasing and DRAM
 *   pages); in NHWC order (C a multiple of 16) the transposing kernels' AVX2 forms
 *   (pa_nhwc_*_f32_avx2). n8c64h112w112, two threads, dnnbench median, spatial and per
 *   activation in one process (2026-12-04): NCHW inference 3.2-4.5 -> 1.5-1.8 ms, training
 *   4.3-5.2 -> 2.5-2.8, backward 5.2-5.4 -> 4.4-4.6; NHWC 3.2 -> 1.7, 6.2 -> 2.7, 6.2 -> 4.4.
 * - Outputs of 4 MiB and more with beta = 0 on the vector kernels are written with
 *   non-temporal stores (SSE, every x86-64): no read for ownership, and x is not evicted
 *   between the passes; each unit ends with an sfence.
 * Declined (the ref row serves them): BN_ADD_ACTIVATION in training and backward (its
 * reserve-space layout), data tensors whose spatial dims do not collapse into one strided run,
 * data tensors in different layouts, per-activation layouts other than packed NCHW / NHWC
 * order, spatial layouts with neither the spatial run nor C unit-stride, other data types,
 * parameters that are not packed. No workspace; nothing allocated.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3,fp-contract=off")
#endif
#include "../core/backend.h" /* fd_cpu_isa_avx512 */
#include "../core/batchnorm.h"
#include "memop.h"
#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__x86_64__)
#include <immintrin.h>
#define BN_HAVE_NT 1
#else
#define BN_HAVE_NT 0
#endif

#define LMAX FD_CPU_BLK     /* lanes of a row or tile (stack arrays of doubles) */
#define PLANE_LANES 16      /* lanes of the plane walk: one cache line of floats */
#define PLANE_SLANES 64     /* lanes of the plane walk's statistics (vector kernels) */
#define ROW_BLOCKS_MAX 16   /* row blocks (partial sums) of the rows walk */
#define ROW_BLOCK_MIN 32768 /* elements per row block at least */
#define NT_MIN (4u << 20)   /* output bytes from which stores bypass the cache */

/* The float factors of the rows walk's FLOAT training / backward on AVX-512 (rows_f32), one
 * lane set's (rows_apply repeats them for packed rows), then lanes 0..15 again (rb_wrap). */
typedef struct {
    float mean[LMAX + 16], mlo[LMAX + 16]; /* mean = mean + mlo, each rounded to float */
    float inv[LMAX + 16], coef[LMAX + 16]; /* coef = scale inv */
    float mg[LMAX + 16], mgx[LMAX + 16];   /* backward */
    float bi[LMAX + 16];                   /* training */
} rbf_t;

static void rb_wrap(rbf_t *f, int L)
{
    for (int t = 0; t < 16; t++) {
        const int j = t % L;
        f->mean[L + t] = f->mean[j], f->mlo[L + t] = f->mlo[j], f->inv[L + t] = f->inv[j];
        f->coef[L + t] = f->coef[j], f->bi[L + t] = f->bi[j];
        f->mg[L + t] = f->mg[j], f->mgx[L + t] = f->mgx[j];
    }
}

enum { ENG_PLANE, ENG_ROWS, ENG_TILE };

/* A data tensor as (n, c, s) with the spatial dims collapsed. */
typedef struct {
    int64_t n, c, s; /* strides in elements */
} view_t;

/* 0 when t's spatial dims do not collapse into one strided run. */
static int view_of(const struct cudnnTensorStruct *t, view_t *v)
{
    if (t->nb_dims == 0) {
        v->n = v->c = v->s = 0;
        return 1;
    }
    v->n = t->stride[0], v->c = t->stride[1], v->s = 1;
    int64_t next = -1; /* stride the next outer spatial dim must have */
    for (int i = t->nb_dims - 1; i >= 2; i--) {
        if (t->dim[i] == 1)
            continue;
        if (next < 0)
            v->s = t->stride[i];
        else if (t->stride[i] != next)
            return 0;
        next = t->stride[i] * t->dim[i];
    }
    return v->n >= 0 && v->c >= 0 && v->s >= 0;
}

static int same_view(const view_t *a, const view_t *b)
{
    return a->n == b->n && a->c == b->c && a->s == b->s;
}

typedef struct {
    const fd_bn_problem_t *p;
    int eng;
    int fast;      /* float / double data and ops BN: the vector kernels */
    int tile_nhwc; /* tile walk: positions in NHWC order (s * C + c), else NCHW (c * S + s) */
    int pl;        /* plane walk: lanes per row (a line for the vector kernels, else a block) */
    int rf32;      /* the rows walk's FLOAT statistics in float: 1 AVX-512, 2 AVX2 (rows_f32;
                      set by the run functions, 0 in plan) */
    int pb32;      /* the plane walk's FLOAT backward sums and dx in float: 1 AVX-512, 2 AVX2
                      (plane_bwd_f32; set by the backward run function, 0 in plan) */
    int head;      /* tile walk: positions of a first short tile, so that the others start the
                      output on a 64-byte boundary (set by the run functions; 0 in plan) */
    int64_t N, C, S, M;
    view_t v; /* every data tensor's (n, c, s) strides */
    cudnnDataType_t dt;
    size_t esz;
} bn_plan_t;

static int plan(const fd_bn_problem_t *p, bn_plan_t *b, char *why, size_t why_size)
{
    memset(b, 0, sizeof *b);
    b->p = p;
    if (!fd_cpu_dtype_ok(p->x.dtype)) {
        snprintf(why, why_size, "%s stays with ref", fd_dtype_name(p->x.dtype));
        return 0;
    }
    if (p->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION && p->dir != FD_BN_INFER) {
        snprintf(why, why_size, "BN_ADD_ACTIVATION training / backward stays with ref");
        return 0;
    }
    const struct cudnnTensorStruct *ts[5] = {&p->y, &p->z, &p->dy, &p->dx, NULL};
    if (!view_of(&p->x, &b->v)) {
        snprintf(why, why_size, "spatial dims that do not collapse into one strided run");
        return 0;
    }
    for (int i = 0; ts[i] != NULL; i++) {
        view_t w;
        if (ts[i]->nb_dims == 0)
            continue;
        if (!view_of(ts[i], &w) || !same_view(&w, &b->v)) {
            snprintf(why, why_size, "data tensors in different layouts stay with ref");
            return 0;
        }
    }
    b->dt = p->x.dtype, b->esz = fd_dtype_size(p->x.dtype);
    b->N = p->x.dim[0], b->C = p->x.dim[1], b->S = 1;
    for (int i = 2; i < p->x.nb_dims; i++)
        b->S *= p->x.dim[i];
    b->M = p->per_activation ? b->N : b->N * b->S;
    if (p->per_activation && b->S > 1) {
        view_t ps, pm;
        if (!view_of(&p->sb, &ps) || !view_of(&p->mv, &pm) || ps.s != 1 || pm.s != 1 ||
            ps.c != b->S || pm.c != b->S) {
            snprintf(why, why_size, "parameter tensors that are not packed");
            return 0;
        }
    }
    const view_t *v = &b->v;
    if (p->per_activation) {
        b->eng = ENG_TILE;
        if ((b->C == 1 || v->c == b->S) && (b->S == 1 || v->s == 1))
            b->tile_nhwc = 0;
        else if ((b->C == 1 || v->c == 1) && (b->S == 1 || v->s == b->C))
            b->tile_nhwc = 1;
        else {
            snprintf(why, why_size, "per activation: images that are not packed NCHW / NHWC");
            return 0;
        }
    } else if (v->c == 1 && b->C > 1) {
        b->eng = ENG_ROWS;
    } else if (v->s == 1) {
        b->eng = ENG_PLANE;
    } else {
        snprintf(why, why_size, "neither the spatial run nor C has unit stride");
        return 0;
    }
    b->fast = (b->dt == CUDNN_DATA_FLOAT || b->dt == CUDNN_DATA_DOUBLE) &&
              p->ops == CUDNN_BATCHNORM_OPS_BN;
    b->pl = b->fast ? PLANE_LANES : LMAX;
    return 1;
}

static char *at(const void *base, const bn_plan_t *b, int64_t off)
{
    return (char *)base + off * (int64_t)b->esz;
}

static int64_t work_of(const bn_plan_t *b)
{
    return b->N * b->C * b->S;
}

/* 1 when the output of this call is written with non-temporal stores. */
static int nt_wanted(const bn_plan_t *b, double beta)
{
    return BN_HAVE_NT && b->fast && beta == 0.0 && (size_t)work_of(b) * b->esz >= NT_MIN;
}

static void nt_fence(int nt)
{
#if BN_HAVE_NT
    if (nt)
        _mm_sfence(); /* the streaming stores are weakly ordered: visible before we return */
#else
    (void)nt;
#endif
}

/* v[j] = 1 / sqrt(v[j] + eps). Per activation there is one per position, and GCC will not
 * vectorise libm's sqrt (errno), so the ISA's own square root: correctly rounded everywhere,
 * hence the ref's bits. */
#if BN_HAVE_NT
__attribute__((target("avx512f"))) static void inv_sqrt_avx512(int n, double *v, double eps)
{
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        __m512d x = _mm512_add_pd(_mm512_loadu_pd(v + j), _mm512_set1_pd(eps));
        _mm512_storeu_pd(v + j, _mm512_div_pd(_mm512_set1_pd(1.0), _mm512_sqrt_pd(x)));
    }
    for (; j < n; j++)
        v[j] = 1.0 / sqrt(v[j] + eps);
}

__attribute__((target("avx"))) static void inv_sqrt_avx(int n, double *v, double eps)
{
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        __m256d x = _mm256_add_pd(_mm256_loadu_pd(v + j), _mm256_set1_pd(eps));
        _mm256_storeu_pd(v + j, _mm256_div_pd(_mm256_set1_pd(1.0), _mm256_sqrt_pd(x)));
    }
    for (; j < n; j++)
        v[j] = 1.0 / sqrt(v[j] + eps);
}
#endif

static void inv_sqrt(int n, double *v, double eps)
{
#if BN_HAVE_NT
    static int isa = -1; /* a benign race: every thread stores the same value */
    if (isa < 0) {
        __builtin_cpu_init();
        isa = __builtin_cpu_supports("avx512f") ? 2 : __builtin_cpu_supports("avx") ? 1 : 0;
    }
    if (isa == 2) {
        inv_sqrt_avx512(n, v, eps);
        return;
    }
    if (isa == 1) {
        inv_sqrt_avx(n, v, eps);
        return;
    }
    int j = 0;
    for (; j + 2 <= n; j += 2) {
        __m128d x = _mm_add_pd(_mm_loadu_pd(v + j), _mm_set1_pd(eps));
        _mm_storeu_pd(v + j, _mm_div_pd(_mm_set1_pd(1.0), _mm_sqrt_pd(x)));
    }
    for (; j < n; j++)
        v[j] = 1.0 / sqrt(v[j] + eps);
#else
    for (int j = 0; j < n; j++)
        v[j] = 1.0 / sqrt(v[j] + eps);
#endif
}

static double act_slope(const fd_bn_act_t *a, double u)
{
    switch (a->mode) {
    case CUDNN_ACTIVATION_RELU:
        return u > 0.0 ? 1.0 : 0.0;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        return u > 0.0 && !(u >= a->coef) ? 1.0 : 0.0;
    default:
        return fd_act_bwd_value(a, fd_act_fwd_value(a, u), 1.0, u);
    }
}

/* ---- vector kernels (float / double data, ops BN) ------------------------------------------
 * 8 doubles per vector; lanes beyond the last full vector run as scalars with the same
 * operations, so each lane's arithmetic is the same on every ISA. Macros rather than inline
 * functions: a 64-byte vector argument would change the ABI of a baseline function. */

typedef double v8d __attribute__((vector_size(64)));
typedef float v8f __attribute__((vector_size(32)));

#define LDD(p)                                                                                     \
    ({                                                                                             \
        v8d v_;                                                                                    \
        memcpy(&v_, (p), sizeof v_);                                                               \
        v_;                                                                                        \
    })
#define LD_f32(p)                                                                                  \
    ({                                                                                             \
        v8f f_;                                                                                    \
        memcpy(&f_, (p), sizeof f_);                                                               \
        __builtin_convertvector(f_, v8d);                                                          \
    })
#define LD_f64(p) LDD(p)
#define STD(p, v) memcpy((p), &(v), sizeof(v8d))

#if BN_HAVE_NT
#define ST_f32(p, v, nt)                                                                           \
    do {                                                                                           \
        v8f f_ = __builtin_convertvector((v), v8f);                                                \
        if (nt) {                                                                                  \
            __m128 q_[2];                                                                          \
            memcpy(q_, &f_, sizeof f_);                                                            \
            _mm_stream_ps((p), q_[0]);                                                             \
            _mm_stream_ps((p) + 4, q_[1]);                                                         \
        } else {                                                                                   \
            memcpy((p), &f_, sizeof f_);                                                           \
        }                                                                                          \
    } while (0)
#define ST_f64(p, v, nt)                                                                           \
    do {                                                                                           \
        v8d d_ = (v);                                                                              \
        if (nt) {                                                                                  \
            __m128d q_[4];                                                                         \
            memcpy(q_, &d_, sizeof d_);                                                            \
            for (int i_ = 0; i_ < 4; i_++)                                                         \
                _mm_stream_pd((p) + 2 * i_, q_[i_]);                                               \
        } else {                                                                                   \
            memcpy((p), &d_, sizeof d_);                                                           \
        }                                                                                          \
    } while (0)
#else
#define ST_f32(p, v, nt)                                                                           \
    do {                                                                                           \
        v8f f_ = __builtin_convertvector((v), v8f);                                                \
        memcpy((p), &f_, sizeof f_);                                                               \
    } while (0)
#define ST_f64(p, v, nt)                                                                           \
    do {                                                                                           \
        v8d d_ = (v);                                                                              \
        memcpy((p), &d_, sizeof d_);                                                               \
    } while (0)
#endif

/* Touches the lines of a row ahead, into L2 (prefetches never fault, so past the end is
 * harmless). */
#define PREFETCH_ROW(p, bytes)                                                                     \
    do {                                                                                           \
        const char *p_ = (const char *)(p);                                                        \
        for (int o_ = 0; o_ < (bytes); o_ += 64)                                                   \
            __builtin_prefetch(p_ + o_, 0, 2);                                                     \
    } while (0)

/* s1[j] += sum_r (x[r][j] - K[j]), s2[j] += the squares: lanes outer (accumulators in
 * registers), rows inner; the callers keep R * L small enough for L1 / L2. With pf, the first
 * lane group prefetches the next R rows (the rows walk: its lanes span several lines of a row,
 * read one line per row at a time, which the hardware prefetchers follow poorly). */
#define BN_STATS_KERNEL(T, SFX)                                                                    \
    FD_CPU_CLONES static void stats_##SFX(int L, int64_t R, const T *x, int64_t rs,                \
                                          const double *K, double *s1, double *s2, int pf)         \
    {                                                                                              \
        if (L > PLANE_LANES) {                                                                     \
            /* rows outer over chunks of 64 lanes (a line-aligned stream per chunk, the sums in    \
             * registers): each lane's sum in the same order as below */                           \
            for (int j0 = 0; j0 < L; j0 += 64) {                                                   \
                const int w = L - j0 < 64 ? L - j0 : 64;                                           \
                if (w == 64) {                                                                     \
                    v8d k[8], a[8], c[8];                                                          \
                    for (int u = 0; u < 8; u++)                                                    \
                        k[u] = LDD(K + j0 + 8 * u), a[u] = LDD(s1 + j0 + 8 * u),                   \
                        c[u] = LDD(s2 + j0 + 8 * u);                                               \
                    for (int64_t r = 0; r < R; r++) {                                              \
                        const T *q = x + r * rs + j0;                                              \
                        if (pf)                                                                    \
                            PREFETCH_ROW(q + R * rs, 64 * (int)sizeof(T));                         \
                        _Pragma("GCC unroll 8") for (int u = 0; u < 8; u++)                        \
                        {                                                                          \
                            v8d d = LD_##SFX(q + 8 * u) - k[u];                                    \
                            a[u] += d, c[u] += d * d;                                              \
                        }                                                                          \
                    }                                                                              \
                    for (int u = 0; u < 8; u++)                                                    \
                        STD(s1 + j0 + 8 * u, a[u]), STD(s2 + j0 + 8 * u, c[u]);                    \
                    continue;                                                                      \
                }                                                                                  \
                for (int64_t r = 0; r < R; r++) {                                                  \
                    const T *q = x + r * rs;                                                       \
                    for (int j = j0; j < L; j++) {                                                 \
                        double d = (double)q[j] - K[j];                                            \
                        s1[j] += d;                                                                \
                        s2[j] += d * d;                                                            \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        int j = 0;                                                                                 \
        for (; j + 16 <= L; j += 16) {                                                             \
            v8d k0 = LDD(K + j), k1 = LDD(K + j + 8);                                              \
            v8d a0 = LDD(s1 + j), a1 = LDD(s1 + j + 8), b0 = LDD(s2 + j), b1 = LDD(s2 + j + 8);    \
            for (int64_t r = 0; r < R; r++) {                                                      \
                const T *q = x + r * rs + j;                                                       \
                if (pf && j == 0)                                                                  \
                    PREFETCH_ROW(x + (r + R) * rs, L * (int)sizeof(T));                            \
                v8d d0 = LD_##SFX(q) - k0, d1 = LD_##SFX(q + 8) - k1;                              \
                a0 += d0, a1 += d1;                                                                \
                b0 += d0 * d0, b1 += d1 * d1;                                                      \
            }                                                                                      \
            STD(s1 + j, a0), STD(s1 + j + 8, a1), STD(s2 + j, b0), STD(s2 + j + 8, b1);            \
        }                                                                                          \
        for (; j + 8 <= L; j += 8) {                                                               \
            v8d k0 = LDD(K + j), a0 = LDD(s1 + j), b0 = LDD(s2 + j);                               \
            for (int64_t r = 0; r < R; r++) {                                                      \
                v8d d0 = LD_##SFX(x + r * rs + j) - k0;                                            \
                a0 += d0;                                                                          \
                b0 += d0 * d0;                                                                     \
            }                                                                                      \
            STD(s1 + j, a0), STD(s2 + j, b0);                                                      \
        }                                                                                          \
        for (; j < L; j++)                                                                         \
            for (int64_t r = 0; r < R; r++) {                                                      \
                double d = (double)x[r * rs + j] - K[j];                                           \
                s1[j] += d;                                                                        \
                s2[j] += d * d;                                                                    \
            }                                                                                      \
    }

/* y = alpha (scale (x - mean) inv + bias) [+ beta y], the ref's order; rows outer so that the
 * streaming stores fill whole lines. */
#define BN_OUT_KERNEL(T, SFX)                                                                      \
    FD_CPU_CLONES static void out_##SFX(int L, int64_t R, const T *x, T *y, int64_t rs,            \
                                        const double *sc, const double *mean, const double *inv,   \
                                        const double *bi, double alpha, double beta, int nt)       \
    {                                                                                              \
        for (int64_t r = 0; r < R; r++) {                                                          \
            const T *q = x + r * rs;                                                               \
            T *o = y + r * rs;                                                                     \
            int j = 0;                                                                             \
            for (; j + 8 <= L; j += 8) {                                                           \
                v8d u =                                                                            \
                    LDD(sc + j) * (LD_##SFX(q + j) - LDD(mean + j)) * LDD(inv + j) + LDD(bi + j);  \
                v8d w = alpha * u;                                                                 \
                if (beta != 0.0)                                                                   \
                    w += beta * LD_##SFX(o + j);                                                   \
                ST_##SFX(o + j, w, nt);                                                            \
            }                                                                                      \
            for (; j < L; j++) {                                                                   \
                double w = alpha * (sc[j] * ((double)q[j] - mean[j]) * inv[j] + bi[j]);            \
                if (beta != 0.0)                                                                   \
                    w += beta * (double)o[j];                                                      \
                o[j] = (T)w;                                                                       \
            }                                                                                      \
        }                                                                                          \
    }

/* sg[j] += sum dy, sgx[j] += sum dy xhat, xhat = (x - mean) inv. */
#define BN_BSUM_KERNEL(T, SFX)                                                                     \
    FD_CPU_CLONES static void bsum_##SFX(int L, int64_t R, const T *x, const T *dy, int64_t rs,    \
                                         const double *mean, const double *inv, double *sg,        \
                                         double *sgx, int pf)                                      \
    {                                                                                              \
        if (L > PLANE_LANES) { /* rows outer over chunks of 64 or 32 lanes, as stats_ */           \
            int j0 = 0;                                                                            \
            for (; j0 + 64 <= L; j0 += 64) {                                                       \
                /* 16 sums in registers, mean / inv from L1: one stream of whole lines */          \
                v8d g[8], h[8];                                                                    \
                for (int u = 0; u < 8; u++)                                                        \
                    g[u] = LDD(sg + j0 + 8 * u), h[u] = LDD(sgx + j0 + 8 * u);                     \
                for (int64_t r = 0; r < R; r++) {                                                  \
                    const T *q = x + r * rs + j0, *e = dy + r * rs + j0;                           \
                    if (pf) {                                                                      \
                        PREFETCH_ROW(q + R * rs, 64 * (int)sizeof(T));                             \
                        PREFETCH_ROW(e + R * rs, 64 * (int)sizeof(T));                             \
                    }                                                                              \
                    _Pragma("GCC unroll 8") for (int u = 0; u < 8; u++)                            \
                    {                                                                              \
                        v8d e0 = LD_##SFX(e + 8 * u);                                              \
                        v8d x0 = (LD_##SFX(q + 8 * u) - LDD(mean + j0 + 8 * u)) *                  \
                                 LDD(inv + j0 + 8 * u);                                            \
                        g[u] += e0, h[u] += e0 * x0;                                               \
                    }                                                                              \
                }                                                                                  \
                for (int u = 0; u < 8; u++)                                                        \
                    STD(sg + j0 + 8 * u, g[u]), STD(sgx + j0 + 8 * u, h[u]);                       \
            }                                                                                      \
            for (; j0 < L; j0 += 32) {                                                             \
                const int w = L - j0 < 32 ? L - j0 : 32;                                           \
                if (w == 32) {                                                                     \
                    v8d m[4], iv[4], g[4], h[4];                                                   \
                    for (int u = 0; u < 4; u++)                                                    \
                        m[u] = LDD(mean + j0 + 8 * u), iv[u] = LDD(inv + j0 + 8 * u),              \
                        g[u] = LDD(sg + j0 + 8 * u), h[u] = LDD(sgx + j0 + 8 * u);                 \
                    for (int64_t r = 0; r < R; r++) {                                              \
                        const T *q = x + r * rs + j0, *e = dy + r * rs + j0;                       \
                        if (pf) {                                                                  \
                            PREFETCH_ROW(q + R * rs, 32 * (int)sizeof(T));                         \
                            PREFETCH_ROW(e + R * rs, 32 * (int)sizeof(T));                         \
                        }                                                                          \
                        _Pragma("GCC unroll 4") for (int u = 0; u < 4; u++)                        \
                        {                                                                          \
                            v8d e0 = LD_##SFX(e + 8 * u);                                          \
                            v8d x0 = (LD_##SFX(q + 8 * u) - m[u]) * iv[u];                         \
                            g[u] += e0, h[u] += e0 * x0;                                           \
                        }                                                                          \
                    }                                                                              \
                    for (int u = 0; u < 4; u++)                                                    \
                        STD(sg + j0 + 8 * u, g[u]), STD(sgx + j0 + 8 * u, h[u]);                   \
                    continue;                                                                      \
                }                                                                                  \
                for (int64_t r = 0; r < R; r++)                                                    \
                    for (int j = j0; j < L; j++) {                                                 \
                        double ev = (double)dy[r * rs + j];                                        \
                        double xh = ((double)x[r * rs + j] - mean[j]) * inv[j];                    \
                        sg[j] += ev;                                                               \
                        sgx[j] += ev * xh;                                                         \
                    }                                                                              \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        int j = 0;                                                                                 \
        for (; j + 16 <= L; j += 16) {                                                             \
            v8d m0 = LDD(mean + j), m1 = LDD(mean + j + 8);                                        \
            v8d i0 = LDD(inv + j), i1 = LDD(inv + j + 8);                                          \
            v8d g0 = LDD(sg + j), g1 = LDD(sg + j + 8), h0 = LDD(sgx + j), h1 = LDD(sgx + j + 8);  \
            for (int64_t r = 0; r < R; r++) {                                                      \
                const T *q = x + r * rs + j, *e = dy + r * rs + j;                                 \
                if (pf && j == 0) {                                                                \
                    PREFETCH_ROW(x + (r + R) * rs, L * (int)sizeof(T));                            \
                    PREFETCH_ROW(dy + (r + R) * rs, L * (int)sizeof(T));                           \
                }                                                                                  \
                v8d e0 = LD_##SFX(e), e1 = LD_##SFX(e + 8);                                        \
                v8d x0 = (LD_##SFX(q) - m0) * i0, x1 = (LD_##SFX(q + 8) - m1) * i1;                \
                g0 += e0, g1 += e1;                                                                \
                h0 += e0 * x0, h1 += e1 * x1;                                                      \
            }                                                                                      \
            STD(sg + j, g0), STD(sg + j + 8, g1), STD(sgx + j, h0), STD(sgx + j + 8, h1);          \
        }                                                                                          \
        for (; j < L; j++)                                                                         \
            for (int64_t r = 0; r < R; r++) {                                                      \
                double e = (double)dy[r * rs + j];                                                 \
                double xh = ((double)x[r * rs + j] - mean[j]) * inv[j];                            \
                sg[j] += e;                                                                        \
                sgx[j] += e * xh;                                                                  \
            }                                                                                      \
    }

/* dx = alpha (coef ((dy - mg) - xhat mgx)) [+ beta dx], coef = scale inv: the ref's order. */
#define BN_BDX_KERNEL(T, SFX)                                                                      \
    FD_CPU_CLONES static void bdx_##SFX(int L, int64_t R, const T *x, const T *dy, T *dx,          \
                                        int64_t rs, const double *mean, const double *inv,         \
                                        const double *coef, const double *mg, const double *mgx,   \
                                        double alpha, double beta, int nt)                         \
    {                                                                                              \
        for (int64_t r = 0; r < R; r++) {                                                          \
            const T *q = x + r * rs, *e = dy + r * rs;                                             \
            T *o = dx + r * rs;                                                                    \
            int j = 0;                                                                             \
            for (; j + 8 <= L; j += 8) {                                                           \
                v8d xh = (LD_##SFX(q + j) - LDD(mean + j)) * LDD(inv + j);                         \
                v8d w = LDD(coef + j) * (LD_##SFX(e + j) - LDD(mg + j) - xh * LDD(mgx + j));       \
                w = alpha * w;                                                                     \
                if (beta != 0.0)                                                                   \
                    w += beta * LD_##SFX(o + j);                                                   \
                ST_##SFX(o + j, w, nt);                                                            \
            }                                                                                      \
            for (; j < L; j++) {                                                                   \
                double xh = ((double)q[j] - mean[j]) * inv[j];                                     \
                double w = alpha * (coef[j] * ((double)e[j] - mg[j] - xh * mgx[j]));               \
                if (beta != 0.0)                                                                   \
                    w += beta * (double)o[j];                                                      \
                o[j] = (T)w;                                                                       \
            }                                                                                      \
        }                                                                                          \
    }

/* y = alpha (x fa + fb) [+ beta y] (training's output pass). */
#define BN_OUTF_KERNEL(T, SFX)                                                                     \
    FD_CPU_CLONES static void outf_##SFX(int L, int64_t R, const T *x, T *y, int64_t rs,           \
                                         const double *fa, const double *fb, double alpha,         \
                                         double beta, int nt)                                      \
    {                                                                                              \
        for (int64_t r = 0; r < R; r++) {                                                          \
            const T *q = x + r * rs;                                                               \
            T *o = y + r * rs;                                                                     \
            int j = 0;                                                                             \
            for (; j + 8 <= L; j += 8) {                                                           \
                v8d w = LD_##SFX(q + j) * LDD(fa + j) + LDD(fb + j);                               \
                if (alpha != 1.0)                                                                  \
                    w = alpha * w;                                                                 \
                if (beta != 0.0)                                                                   \
                    w += beta * LD_##SFX(o + j);                                                   \
                ST_##SFX(o + j, w, nt);                                                            \
            }                                                                                      \
            for (; j < L; j++) {                                                                   \
                double w = (double)q[j] * fa[j] + fb[j];                                           \
                if (alpha != 1.0)                                                                  \
                    w = alpha * w;                                                                 \
                if (beta != 0.0)                                                                   \
                    w += beta * (double)o[j];                                                      \
                o[j] = (T)w;                                                                       \
            }                                                                                      \
        }                                                                                          \
    }

/* The same three element passes with one set of parameters for a contiguous run of n
 * elements (the plane walk: a channel's parameters are the same in every lane): the operations
 * and their order are those of the kernels above, element for element, so the bits are too;
 * only the per-vector parameter loads go. */
#define SPLAT(v) ((v8d){(v), (v), (v), (v), (v), (v), (v), (v)})
#define BN_UNI_KERNELS(T, SFX)                                                                     \
    FD_CPU_CLONES static void outf_u_##SFX(int64_t n, const T *x, T *y, double fa, double fb,      \
                                           double alpha, double beta, int nt)                      \
    {                                                                                              \
        const v8d A = SPLAT(fa), B = SPLAT(fb);                                                    \
        int64_t j = 0;                                                                             \
        for (; j + 8 <= n; j += 8) {                                                               \
            v8d w = LD_##SFX(x + j) * A + B;                                                       \
            if (alpha != 1.0)                                                                      \
                w = alpha * w;                                                                     \
            if (beta != 0.0)                                                                       \
                w += beta * LD_##SFX(y + j);                                                       \
            ST_##SFX(y + j, w, nt);                                                                \
        }                                                                                          \
        for (; j < n; j++) {                                                                       \
            double w = (double)x[j] * fa + fb;                                                     \
            if (alpha != 1.0)                                                                      \
                w = alpha * w;                                                                     \
            if (beta != 0.0)                                                                       \
                w += beta * (double)y[j];                                                          \
            y[j] = (T)w;                                                                           \
        }                                                                                          \
    }                                                                                              \
    FD_CPU_CLONES static void out_u_##SFX(int64_t n, const T *x, T *y, double sc, double mean,     \
                                          double inv, double bi, double alpha, double beta,        \
                                          int nt)                                                  \
    {                                                                                              \
        const v8d S = SPLAT(sc), Mn = SPLAT(mean), I = SPLAT(inv), Bi = SPLAT(bi);                 \
        int64_t j = 0;                                                                             \
        for (; j + 8 <= n; j += 8) {                                                               \
            v8d u = S * (LD_##SFX(x + j) - Mn) * I + Bi;                                           \
            v8d w = alpha * u;                                                                     \
            if (beta != 0.0)                                                                       \
                w += beta * LD_##SFX(y + j);                                                       \
            ST_##SFX(y + j, w, nt);                                                                \
        }                                                                                          \
        for (; j < n; j++) {                                                                       \
            double w = alpha * (sc * ((double)x[j] - mean) * inv + bi);                            \
            if (beta != 0.0)                                                                       \
                w += beta * (double)y[j];                                                          \
            y[j] = (T)w;                                                                           \
        }                                                                                          \
    }                                                                                              \
    FD_CPU_CLONES static void bdx_u_##SFX(int64_t n, const T *x, const T *dy, T *dx, double mean,  \
                                          double inv, double coef, double mg, double mgx,          \
                                          double alpha, double beta, int nt)                       \
    {                                                                                              \
        const v8d Mn = SPLAT(mean), I = SPLAT(inv), Cf = SPLAT(coef), G = SPLAT(mg),               \
                  GX = SPLAT(mgx);                                                                 \
        int64_t j = 0;                                                                             \
        for (; j + 8 <= n; j += 8) {                                                               \
            v8d xh = (LD_##SFX(x + j) - Mn) * I;                                                   \
            v8d w = Cf * (LD_##SFX(dy + j) - G - xh * GX);                                         \
            w = alpha * w;                                                                         \
            if (beta != 0.0)                                                                       \
                w += beta * LD_##SFX(dx + j);                                                      \
            ST_##SFX(dx + j, w, nt);                                                               \
        }                                                                                          \
        for (; j < n; j++) {                                                                       \
            double xh = ((double)x[j] - mean) * inv;                                               \
            double w = alpha * (coef * ((double)dy[j] - mg - xh * mgx));                           \
            if (beta != 0.0)                                                                       \
                w += beta * (double)dx[j];                                                         \
            dx[j] = (T)w;                                                                          \
        }                                                                                          \
    }

BN_UNI_KERNELS(float, f32)
BN_UNI_KERNELS(double, f64)

/* FLOAT on AVX-512: the uniform passes with explicit 16-float vectors (GCC splits the vector
 * extensions' float -> double conversions of the clones into halves) and, when streaming,
 * whole-line stores after a scalar head up to the output's next 64-byte boundary. The element
 * expression is the one above (no contraction, the same order; alpha = 1 skips a multiply by
 * one, an identity), so the bits are the same on every path. */
#if BN_HAVE_NT
#define BN_AVX512 __attribute__((target("avx512f")))
#define BN_AVX2 __attribute__((target("avx2,fma")))
/* alpha, beta and the store of 16 results w0, w1 at d_ (ntk: 2 / 1 streaming 32 / 16 bytes) */
#define BN_FINISH16(d_, w0, w1)                                                                    \
    do {                                                                                           \
        if (alpha != 1.0) {                                                                        \
            w0 = _mm512_mul_pd(_mm512_set1_pd(alpha), w0);                                         \
            w1 = _mm512_mul_pd(_mm512_set1_pd(alpha), w1);                                         \
        }                                                                                          \
        if (beta != 0.0) {                                                                         \
            const __m512d bt_ = _mm512_set1_pd(beta);                                              \
            BN_LD2(d_, o0_, o1_);                                                                  \
            w0 = _mm512_add_pd(w0, _mm512_mul_pd(bt_, o0_));                                       \
            w1 = _mm512_add_pd(w1, _mm512_mul_pd(bt_, o1_));                                       \
        }                                                                                          \
        __m256 r0 = _mm512_cvtpd_ps(w0), r1 = _mm512_cvtpd_ps(w1);                                 \
        if (ntk == 2) {                                                                            \
            _mm256_stream_ps(d_, r0);                                                              \
            _mm256_stream_ps(d_ + 8, r1);                                                          \
        } else if (ntk == 1) {                                                                     \
            _mm_stream_ps(d_, _mm256_castps256_ps128(r0));                                         \
            _mm_stream_ps(d_ + 4, _mm256_extractf128_ps(r0, 1));                                   \
            _mm_stream_ps(d_ + 8, _mm256_castps256_ps128(r1));                                     \
            _mm_stream_ps(d_ + 12, _mm256_extractf128_ps(r1, 1));                                  \
        } else {                                                                                   \
            _mm256_storeu_ps(d_, r0);                                                              \
            _mm256_storeu_ps(d_ + 8, r1);                                                          \
        }                                                                                          \
    } while (0)
#define BN_U_LOOP(y, SCALAR, VEC)                                                                  \
    do {                                                                                           \
        const int ntk = nt ? 2 : 0; /* after the head every vector starts a line */                \
        int64_t j = 0;                                                                             \
        if (nt)                                                                                    \
            for (; j < n && ((uintptr_t)((y) + j) & 63) != 0; j++)                                 \
                SCALAR;                                                                            \
        for (; j + 16 <= n; j += 16) {                                                             \
            __m512d w0, w1;                                                                        \
            if (pf0 != NULL)                                                                       \
                _mm_prefetch((const char *)(pf0 + j), _MM_HINT_T1);                                \
            if (pf1 != NULL)                                                                       \
                _mm_prefetch((const char *)(pf1 + j), _MM_HINT_T1);                                \
            VEC;                                                                                   \
            BN_FINISH16((y) + j, w0, w1);                                                          \
        }                                                                                          \
        for (; j < n; j++)                                                                         \
            SCALAR;                                                                                \
    } while (0)
#define BN_LD2(p, lo, hi)                                                                          \
    __m512d lo = _mm512_cvtps_pd(_mm256_loadu_ps(p)), hi = _mm512_cvtps_pd(_mm256_loadu_ps((p) + 8))

/* the scalar element j of the uniform FLOAT passes (heads and tails) */
#define BN_U_SCALAR_OUTF                                                                           \
    do {                                                                                           \
        double w = (double)x[j] * fa + fb;                                                         \
        if (alpha != 1.0)                                                                          \
            w = alpha * w;                                                                         \
        if (beta != 0.0)                                                                           \
            w += beta * (double)y[j];                                                              \
        y[j] = (float)w;                                                                           \
    } while (0)
#define BN_U_SCALAR_BDX                                                                            \
    do {                                                                                           \
        double xh = ((double)x[j] - mean) * inv;                                                   \
        double w = alpha * (coef * ((double)dy[j] - mg - xh * mgx));                               \
        if (beta != 0.0)                                                                           \
            w += beta * (double)dx[j];                                                             \
        dx[j] = (float)w;                                                                          \
    } while (0)

BN_AVX512 static void outf_u_f32_avx512(int64_t n, const float *x, float *y, double fa, double fb,
                                        double alpha, double beta, int nt, const float *pf0)
{
    const float *const pf1 = NULL;
    const __m512d A = _mm512_set1_pd(fa), B = _mm512_set1_pd(fb);
#define SCALAR_ BN_U_SCALAR_OUTF
#define VEC_                                                                                       \
    BN_LD2(x + j, x0, x1);                                                                         \
    w0 = _mm512_add_pd(_mm512_mul_pd(x0, A), B);                                                   \
    w1 = _mm512_add_pd(_mm512_mul_pd(x1, A), B)
    BN_U_LOOP(y, SCALAR_, VEC_);
#undef SCALAR_
#undef VEC_
}

BN_AVX512 static void out_u_f32_avx512(int64_t n, const float *x, float *y, double sc, double mean,
                                       double inv, double bi, double alpha, double beta, int nt,
                                       const float *pf0)
{
    const float *const pf1 = NULL;
    const __m512d S = _mm512_set1_pd(sc), Mn = _mm512_set1_pd(mean), I = _mm512_set1_pd(inv),
                  Bi = _mm512_set1_pd(bi);
    /* the generic kernels multiply by alpha even when it is 1: an identity, skipped here */
#define SCALAR_                                                                                    \
    do {                                                                                           \
        double w = alpha * (sc * ((double)x[j] - mean) * inv + bi);                                \
        if (beta != 0.0)                                                                           \
            w += beta * (double)y[j];                                                              \
        y[j] = (float)w;                                                                           \
    } while (0)
#define VEC_                                                                                       \
    BN_LD2(x + j, x0, x1);                                                                         \
    w0 = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(S, _mm512_sub_pd(x0, Mn)), I), Bi);             \
    w1 = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(S, _mm512_sub_pd(x1, Mn)), I), Bi)
    BN_U_LOOP(y, SCALAR_, VEC_);
#undef SCALAR_
#undef VEC_
}

BN_AVX512 static void bdx_u_f32_avx512(int64_t n, const float *x, const float *dy, float *dx,
                                       double mean, double inv, double coef, double mg, double mgx,
                                       double alpha, double beta, int nt, const float *pf0,
                                       const float *pf1)
{
    const __m512d Mn = _mm512_set1_pd(mean), I = _mm512_set1_pd(inv), Cf = _mm512_set1_pd(coef),
                  G = _mm512_set1_pd(mg), GX = _mm512_set1_pd(mgx);
#define SCALAR_ BN_U_SCALAR_BDX
#define VEC_                                                                                       \
    BN_LD2(x + j, x0, x1);                                                                         \
    BN_LD2(dy + j, e0, e1);                                                                        \
    x0 = _mm512_mul_pd(_mm512_mul_pd(_mm512_sub_pd(x0, Mn), I), GX);                               \
    x1 = _mm512_mul_pd(_mm512_mul_pd(_mm512_sub_pd(x1, Mn), I), GX);                               \
    w0 = _mm512_mul_pd(Cf, _mm512_sub_pd(_mm512_sub_pd(e0, G), x0));                               \
    w1 = _mm512_mul_pd(Cf, _mm512_sub_pd(_mm512_sub_pd(e1, G), x1))
    BN_U_LOOP(dx, SCALAR_, VEC_);
#undef SCALAR_
#undef VEC_
}

/* The per-lane forms (rows and tile walks: parameters in arrays, L lanes x R rows of stride rs),
 * FLOAT on AVX-512, 16 floats per step with whole-vector conversions (the clones split them
 * into halves). Same expressions and order as the generic kernels, so the same bits. Streaming
 * stores as wide as the output's alignment allows (every row alike: rs keeps it). */
#define BN_NTK(y)                                                                                  \
    const uintptr_t al_ = (uintptr_t)(y) | (uintptr_t)(R > 1 ? rs * 4 : 0);                        \
    const int ntk = !nt ? 0 : al_ % 32 == 0 ? 2 : al_ % 16 == 0 ? 1 : 0
/* Rows outer: the parameters come from L1 for every row. (Lanes outer, loading them once per
 * 16 lanes for all N rows of a tile, was slower per activation: the N rows lie a power of 2
 * apart, so their lines share L1 sets.) */
#define BN_A_LOOP(y, SCALAR, PARAMS, VEC)                                                          \
    do {                                                                                           \
        BN_NTK(y);                                                                                 \
        for (int64_t r = 0; r < R; r++) {                                                          \
            const int64_t o_ = r * rs;                                                             \
            int j = 0;                                                                             \
            for (; j + 16 <= L; j += 16) {                                                         \
                __m512d w0, w1;                                                                    \
                PARAMS;                                                                            \
                VEC;                                                                               \
                BN_FINISH16((y) + o_ + j, w0, w1);                                                 \
            }                                                                                      \
            for (; j < L; j++)                                                                     \
                SCALAR;                                                                            \
        }                                                                                          \
    } while (0)
#define BN_LDP(p) _mm512_loadu_pd(p)

/* y = x fa + fb, training's per-lane output pass */
#define BN_OUTF_AVX512(NAME, LOOP)                                                                 \
    BN_AVX512 static void NAME(int L, int64_t R, const float *x, float *y, int64_t rs,             \
                               const double *fa, const double *fb, double alpha, double beta,      \
                               int nt)                                                             \
    {                                                                                              \
        LOOP(y, SCALAR_OUTF, PARAMS_OUTF, VEC_OUTF);                                               \
    }
#define SCALAR_OUTF                                                                                \
    do {                                                                                           \
        double w = (double)x[o_ + j] * fa[j] + fb[j];                                              \
        if (alpha != 1.0)                                                                          \
            w = alpha * w;                                                                         \
        if (beta != 0.0)                                                                           \
            w += beta * (double)y[o_ + j];                                                         \
        y[o_ + j] = (float)w;                                                                      \
    } while (0)
#define PARAMS_OUTF                                                                                \
    const __m512d a0 = BN_LDP(fa + j), a1 = BN_LDP(fa + j + 8), b0 = BN_LDP(fb + j),               \
                  b1 = BN_LDP(fb + j + 8)
#define VEC_OUTF                                                                                   \
    BN_LD2(x + o_ + j, x0, x1);                                                                    \
    w0 = _mm512_add_pd(_mm512_mul_pd(x0, a0), b0);                                                 \
    w1 = _mm512_add_pd(_mm512_mul_pd(x1, a1), b1)
BN_OUTF_AVX512(outf_f32_avx512, BN_A_LOOP)

/* y = alpha (scale (x - mean) inv + bias) [+ beta y], the ref's expression (the generic kernel
 * multiplies by alpha even when it is 1: an identity, skipped here) */
#define BN_OUT_AVX512(NAME, LOOP)                                                                  \
    BN_AVX512 static void NAME(int L, int64_t R, const float *x, float *y, int64_t rs,             \
                               const double *sc, const double *mean, const double *inv,            \
                               const double *bi, double alpha, double beta, int nt)                \
    {                                                                                              \
        LOOP(y, SCALAR_OUT, PARAMS_OUT, VEC_OUT);                                                  \
    }
#define SCALAR_OUT                                                                                 \
    do {                                                                                           \
        double w = alpha * (sc[j] * ((double)x[o_ + j] - mean[j]) * inv[j] + bi[j]);               \
        if (beta != 0.0)                                                                           \
            w += beta * (double)y[o_ + j];                                                         \
        y[o_ + j] = (float)w;                                                                      \
    } while (0)
#define PARAMS_OUT                                                                                 \
    const __m512d s0 = BN_LDP(sc + j), s1 = BN_LDP(sc + j + 8), m0 = BN_LDP(mean + j),             \
                  m1 = BN_LDP(mean + j + 8), i0 = BN_LDP(inv + j), i1 = BN_LDP(inv + j + 8),       \
                  c0 = BN_LDP(bi + j), c1 = BN_LDP(bi + j + 8)
#define VEC_OUT                                                                                    \
    BN_LD2(x + o_ + j, x0, x1);                                                                    \
    w0 = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(s0, _mm512_sub_pd(x0, m0)), i0), c0);           \
    w1 = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(s1, _mm512_sub_pd(x1, m1)), i1), c1)
BN_OUT_AVX512(out_f32_avx512, BN_A_LOOP)

/* dx = alpha (coef ((dy - mg) - xhat mgx)) [+ beta dx], xhat = (x - mean) inv */
#define BN_BDX_AVX512(NAME, LOOP)                                                                  \
    BN_AVX512 static void NAME(int L, int64_t R, const float *x, const float *dy, float *dx,       \
                               int64_t rs, const double *mean, const double *inv,                  \
                               const double *coef, const double *mg, const double *mgx,            \
                               double alpha, double beta, int nt)                                  \
    {                                                                                              \
        LOOP(dx, SCALAR_BDX, PARAMS_BDX, VEC_BDX);                                                 \
    }
#define SCALAR_BDX                                                                                 \
    do {                                                                                           \
        double xh = ((double)x[o_ + j] - mean[j]) * inv[j];                                        \
        double w = alpha * (coef[j] * ((double)dy[o_ + j] - mg[j] - xh * mgx[j]));                 \
        if (beta != 0.0)                                                                           \
            w += beta * (double)dx[o_ + j];                                                        \
        dx[o_ + j] = (float)w;                                                                     \
    } while (0)
#define PARAMS_BDX                                                                                 \
    const __m512d m0 = BN_LDP(mean + j), m1 = BN_LDP(mean + j + 8), i0 = BN_LDP(inv + j),          \
                  i1 = BN_LDP(inv + j + 8), g0 = BN_LDP(mg + j), g1 = BN_LDP(mg + j + 8),          \
                  h0 = BN_LDP(mgx + j), h1 = BN_LDP(mgx + j + 8), f0 = BN_LDP(coef + j),           \
                  f1 = BN_LDP(coef + j + 8)
#define VEC_BDX                                                                                    \
    BN_LD2(x + o_ + j, x0, x1);                                                                    \
    BN_LD2(dy + o_ + j, e0, e1);                                                                   \
    x0 = _mm512_mul_pd(_mm512_mul_pd(_mm512_sub_pd(x0, m0), i0), h0);                              \
    x1 = _mm512_mul_pd(_mm512_mul_pd(_mm512_sub_pd(x1, m1), i1), h1);                              \
    w0 = _mm512_mul_pd(f0, _mm512_sub_pd(_mm512_sub_pd(e0, g0), x0));                              \
    w1 = _mm512_mul_pd(f1, _mm512_sub_pd(_mm512_sub_pd(e1, g1), x1))
BN_BDX_AVX512(bdx_f32_avx512, BN_A_LOOP)

/* Per activation, a tile of L positions x R images (stride rs), FLOAT on AVX-512, lanes outer:
 * each 16 positions' parameters are made in registers and then all R rows of those positions
 * are streamed, so the divider's 1 / sqrt(var + eps) overlaps the memory traffic of the rows
 * (rows outer it ran alone between them: a fifth of the time) and no per-lane arrays are read
 * per element. The operations are those of the generic path element for element (moments(),
 * fuse_lanes(), the stats / outf / bsum / bdx kernels: each lane adds its rows in order), so
 * the bits are the same on every ISA. Positions past the last 16 run as scalars. */
#define BN_PA_RECIP_SQRT(v) _mm512_div_pd(_mm512_set1_pd(1.0), _mm512_sqrt_pd(v))

/* Steps the per-activation rows share, on 16 positions at x (R rows of stride rs): the sums of
 * d = x - k and d^2 over the rows from 0 in row order (the rows kept in xs when `keep`), and
 * y = alpha (x a + b) + beta y per row (ntk: BN_FINISH16's streaming choice); then the scalar
 * tail's moments of one position (shifted by its first row) and its output. */
BN_AVX512 __attribute__((always_inline)) static inline void
pa_moments16(int64_t R, const float *x, int64_t rs, __m512d k0, __m512d k1, const int keep,
             __m512d (*xs)[2], __m512d *s10, __m512d *s11, __m512d *s20, __m512d *s21)
{
    const __m512d Z = _mm512_setzero_pd();
    __m512d a10 = Z, a11 = Z, a20 = Z, a21 = Z;
    _Pragma("GCC unroll 8") for (int64_t r = 0; r < R; r++)
    {
        BN_LD2(x + r * rs, x0, x1);
        if (keep)
            xs[r][0] = x0, xs[r][1] = x1;
        __m512d d0 = _mm512_sub_pd(x0, k0), d1 = _mm512_sub_pd(x1, k1);
        a10 = _mm512_add_pd(a10, d0), a11 = _mm512_add_pd(a11, d1);
        a20 = _mm512_add_pd(a20, _mm512_mul_pd(d0, d0));
        a21 = _mm512_add_pd(a21, _mm512_mul_pd(d1, d1));
    }
    *s10 = a10, *s11 = a11, *s20 = a20, *s21 = a21;
}

BN_AVX512 __attribute__((always_inline)) static inline void
pa_apply16(int64_t R, const float *x, float *y, int64_t rs, const int keep, __m512d (*xs)[2],
           const __m512d *a, const __m512d *b, double alpha, double beta, int ntk)
{
    _Pragma("GCC unroll 8") for (int64_t r = 0; r < R; r++)
    {
        __m512d x0, x1;
        if (keep) {
            x0 = xs[r][0], x1 = xs[r][1];
        } else {
            x0 = _mm512_cvtps_pd(_mm256_loadu_ps(x + r * rs));
            x1 = _mm512_cvtps_pd(_mm256_loadu_ps(x + r * rs + 8));
        }
        __m512d w0 = _mm512_add_pd(_mm512_mul_pd(x0, a[0]), b[0]);
        __m512d w1 = _mm512_add_pd(_mm512_mul_pd(x1, a[1]), b[1]);
        BN_FINISH16(y + r * rs, w0, w1);
    }
}

static inline void pa_tail_moments(int64_t R, const float *x, int64_t rs, double rM, double *kk,
                                   double *m1, double *v)
{
    const double k = x[0];
    double s1 = 0.0, s2 = 0.0;
    for (int64_t r = 0; r < R; r++) {
        double d = (double)x[r * rs] - k;
        s1 += d;
        s2 += d * d;
    }
    const double m = s1 * rM, var = (s2 - s1 * m) * rM;
    *kk = k, *m1 = m, *v = var < 0.0 ? 0.0 : var;
}

static inline void pa_tail_apply(int64_t R, const float *x, float *y, int64_t rs, double fa,
                                 double fb, double alpha, double beta)
{
    for (int64_t r = 0; r < R; r++) {
        double w = (double)x[r * rs] * fa + fb;
        if (alpha != 1.0)
            w = alpha * w;
        if (beta != 0.0)
            w += beta * (double)y[r * rs];
        y[r * rs] = (float)w;
    }
}

/* inference: fa = scale inv, fb = bias - mean fa, y = x fa + fb (not the ref's four
 * operations: the per-position inverse square root is the cost here, see the header) */
BN_AVX512 static void pa_infer_f32_avx512(int L, int64_t R, const float *x, float *y, int64_t rs,
                                          const double *sc, const double *bi, const double *mean,
                                          const double *var, double eps, double alpha, double beta,
                                          int nt)
{
    BN_NTK(y);
    const __m512d E = _mm512_set1_pd(eps);
    int j = 0;
    for (; j + 16 <= L; j += 16) {
        __m512d a0 = _mm512_mul_pd(BN_LDP(sc + j),
                                   BN_PA_RECIP_SQRT(_mm512_add_pd(BN_LDP(var + j), E)));
        __m512d a1 = _mm512_mul_pd(BN_LDP(sc + j + 8),
                                   BN_PA_RECIP_SQRT(_mm512_add_pd(BN_LDP(var + j + 8), E)));
        __m512d b0 = _mm512_sub_pd(BN_LDP(bi + j), _mm512_mul_pd(BN_LDP(mean + j), a0));
        __m512d b1 = _mm512_sub_pd(BN_LDP(bi + j + 8), _mm512_mul_pd(BN_LDP(mean + j + 8), a1));
        const __m512d a[2] = {a0, a1}, b[2] = {b0, b1};
        pa_apply16(R, x + j, y + j, rs, 0, NULL, a, b, alpha, beta, ntk);
    }
    for (; j < L; j++) {
        double fa = sc[j] * (1.0 / sqrt(var[j] + eps)), fb = bi[j] - mean[j] * fa;
        pa_tail_apply(R, x + j, y + j, rs, fa, fb, alpha, beta);
    }
}

/* training: the shifted one-pass statistics of each position (K its value in row 0), mean,
 * inv and the unbiased variance out for the running / saved outputs, then y = x fa + fb */
/* ---- FLOAT per activation in float (product decision of 2026-12-01, docs/testing.md) -------
 * The in-place per-activation kernels below (training and backward in NCHW order with FLOAT
 * parameters; every direction in NHWC order with C a multiple of 16) compute in float, 16
 * positions per vector: the statistics over the N images, 1 / sqrt, the blends and the
 * element passes. In double (8 lanes, a conversion each way) their arithmetic, not memory,
 * set the pace (n8c64h8w8 in cache, one thread, NCHW / NHWC, ms: training 0.0118 / 0.0172 ->
 * 0.0095 / 0.0091, backward 0.0163 / 0.0209 -> 0.0113 / 0.0103, NHWC inference 0.0102 ->
 * 0.0051). Positions past the last 16 of a tile run the same operations in scalar float
 * (pf_*1), so a position's bits do not depend on where the tile starts. NCHW inference and the
 * other per-activation paths stay in double. */

/* y = alpha (x a + b) [+ beta y] of one row of 16 (ntk: BN_FINISH16's streaming choice). */
BN_AVX512 __attribute__((always_inline)) static inline void
pf_out16(float *y, __m512 w, float alpha, float beta, int ntk)
{
    if (alpha != 1.0f)
        w = _mm512_mul_ps(_mm512_set1_ps(alpha), w);
    if (beta != 0.0f)
        w = _mm512_add_ps(w, _mm512_mul_ps(_mm512_set1_ps(beta), _mm512_loadu_ps(y)));
    if (ntk == 2) {
        _mm256_stream_ps(y, _mm512_castps512_ps256(w));
        _mm256_stream_ps(y + 8, _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(w), 1)));
    } else if (ntk == 1) {
        _mm_stream_ps(y, _mm512_castps512_ps128(w));
        _mm_stream_ps(y + 4, _mm512_extractf32x4_ps(w, 1));
        _mm_stream_ps(y + 8, _mm512_extractf32x4_ps(w, 2));
        _mm_stream_ps(y + 12, _mm512_extractf32x4_ps(w, 3));
    } else {
        _mm512_storeu_ps(y, w);
    }
}

/* y = alpha (x a + b) [+ beta y] of R rows (stride rs), the rows from xs when `keep`. */
BN_AVX512 __attribute__((always_inline)) static inline void
pf_apply16(int64_t R, const float *x, float *y, int64_t rs, const int keep, const __m512 *xs,
           __m512 a, __m512 b, float alpha, float beta, int ntk)
{
    _Pragma("GCC unroll 8") for (int64_t r = 0; r < R; r++)
    {
        const __m512 xv = keep ? xs[r] : _mm512_loadu_ps(x + r * rs);
        pf_out16(y + r * rs, _mm512_add_ps(_mm512_mul_ps(xv, a), b), alpha, beta, ntk);
    }
}

/* fa = scale / sqrt(var + eps), fb = bias - mean fa of 16 positions (unit stride). */
BN_AVX512 __attribute__((always_inline)) static inline void
pf_infer_ab16(const float *sc, const float *bi, const float *mean, const float *var, __m512 E,
              __m512 *a, __m512 *b)
{
    const __m512 iv =
        _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_sqrt_ps(_mm512_add_ps(_mm512_loadu_ps(var), E)));
    *a = _mm512_mul_ps(_mm512_loadu_ps(sc), iv);
    *b = _mm512_sub_ps(_mm512_loadu_ps(bi), _mm512_mul_ps(_mm512_loadu_ps(mean), *a));
}

/* One position (R rows of stride rs) of the steps above in scalar float: the same operations
 * in the same order as a vector lane, so a position gets the same bits whichever form runs it
 * (the tiles' heads and tails depend on the output's alignment). */
static inline void pf_out1(float *y, float w, float alpha, float beta)
{
    if (alpha != 1.0f)
        w = alpha * w;
    if (beta != 0.0f)
        w = w + beta * *y;
    *y = w;
}

/* Inference per activation, FLOAT NCHW: parameters read in place (a position's parameter index
 * is its flat index) rather than from the tile's double arrays, each row and parameter run
 * prefetched PA_PF floats ahead into L2, a line per 16 positions (a steady stream instead of
 * tile_prefetch's burst per tile). In double, as pa_infer_f32_avx512 (the same bits): in float
 * it ran 7-10 % slower from memory (2.0 -> 2.2 ms, n8c64h112w112, one thread), though faster
 * in cache. */
#define PA_PF 2048
#define PA_PF_BWD 512 /* backward: two tensors; 256 - 768 alike, 1024 and more lost 10-20 % */
BN_AVX512 static void pa_infer_direct_f32_avx512(int L, int64_t R, const float *x, float *y,
                                                 int64_t rs, const float *sc, const float *bi,
                                                 const float *mean, const float *var, double eps,
                                                 double alpha, double beta, int nt, int pfd)
{
    BN_NTK(y);
    const __m512d E = _mm512_set1_pd(eps);
    int j = 0;
    for (; j + 16 <= L; j += 16) {
        if (pfd > 0) {
            for (int64_t r = 0; r < R; r++)
                _mm_prefetch((const char *)(x + r * rs + j + pfd), _MM_HINT_T1);
            _mm_prefetch((const char *)(sc + j + pfd), _MM_HINT_T1);
            _mm_prefetch((const char *)(bi + j + pfd), _MM_HINT_T1);
            _mm_prefetch((const char *)(mean + j + pfd), _MM_HINT_T1);
            _mm_prefetch((const char *)(var + j + pfd), _MM_HINT_T1);
        }
        BN_LD2(sc + j, s0, s1);
        BN_LD2(bi + j, c0, c1);
        BN_LD2(mean + j, m0, m1);
        BN_LD2(var + j, v0, v1);
        __m512d a[2], b[2];
        a[0] = _mm512_mul_pd(s0, BN_PA_RECIP_SQRT(_mm512_add_pd(v0, E)));
        a[1] = _mm512_mul_pd(s1, BN_PA_RECIP_SQRT(_mm512_add_pd(v1, E)));
        b[0] = _mm512_sub_pd(c0, _mm512_mul_pd(m0, a[0]));
        b[1] = _mm512_sub_pd(c1, _mm512_mul_pd(m1, a[1]));
        pa_apply16(R, x + j, y + j, rs, 0, NULL, a, b, alpha, beta, ntk);
    }
    for (; j < L; j++) {
        double fa = (double)sc[j] * (1.0 / sqrt((double)var[j] + eps)),
               fb = (double)bi[j] - (double)mean[j] * fa;
        pa_tail_apply(R, x + j, y + j, rs, fa, fb, alpha, beta);
    }
}

#define PA_KEEP 8 /* rows kept in registers between the two passes (R == PA_KEEP) */
BN_AVX512 __attribute__((always_inline)) static inline void
pa_train_body(int L, int64_t R, const float *x, float *y, int64_t rs, const double *sc,
              const double *bi, double eps, double M, double *mean, double *inv, double *unb,
              double alpha, double beta, int nt, const int keep)
{
    BN_NTK(y);
    const double rM = 1.0 / M;
    const __m512d E = _mm512_set1_pd(eps), RM = _mm512_set1_pd(rM), MM = _mm512_set1_pd(M),
                  M1 = _mm512_set1_pd(M - 1.0), Z = _mm512_setzero_pd();
    int j = 0;
    for (; j + 16 <= L; j += 16) {
        BN_LD2(x + j, k0, k1);
        __m512d s10, s11, s20, s21, xs[PA_KEEP][2];
        pa_moments16(R, x + j, rs, k0, k1, keep, xs, &s10, &s11, &s20, &s21);
        __m512d a[2], b[2];
        const __m512d k[2] = {k0, k1}, s1[2] = {s10, s11}, s2[2] = {s20, s21};
        for (int h = 0; h < 2; h++) {
            __m512d m1 = _mm512_mul_pd(s1[h], RM);
            __m512d v = _mm512_mul_pd(_mm512_sub_pd(s2[h], _mm512_mul_pd(s1[h], m1)), RM);
            v = _mm512_mask_mov_pd(v, _mm512_cmp_pd_mask(v, Z, _CMP_LT_OQ), Z); /* NaN stays */
            __m512d mu = _mm512_add_pd(k[h], m1);
            __m512d iv = BN_PA_RECIP_SQRT(_mm512_add_pd(v, E));
            _mm512_storeu_pd(mean + j + 8 * h, mu);
            _mm512_storeu_pd(inv + j + 8 * h, iv);
            _mm512_storeu_pd(unb + j + 8 * h, _mm512_div_pd(_mm512_mul_pd(v, MM), M1));
            a[h] = _mm512_mul_pd(BN_LDP(sc + j + 8 * h), iv);
            b[h] = _mm512_sub_pd(BN_LDP(bi + j + 8 * h), _mm512_mul_pd(mu, a[h]));
        }
        pa_apply16(R, x + j, y + j, rs, keep, xs, a, b, alpha, beta, ntk);
    }
    for (; j < L; j++) {
        double kk, m1, v;
        pa_tail_moments(R, x + j, rs, rM, &kk, &m1, &v);
        mean[j] = kk + m1, inv[j] = 1.0 / sqrt(v + eps), unb[j] = v * M / (M - 1.0);
        double fa = sc[j] * inv[j], fb = bi[j] - mean[j] * fa;
        pa_tail_apply(R, x + j, y + j, rs, fa, fb, alpha, beta);
    }
}

/* With R == PA_KEEP (8 images, common) the rows stay in registers between the statistics and
 * the output; otherwise the output pass reads them again (from L1 / L2). In place (y == x) is
 * safe either way: a row is read before it is written. */
BN_AVX512 static void pa_train_f32_avx512(int L, int64_t R, const float *x, float *y, int64_t rs,
                                          const double *sc, const double *bi, double eps, double M,
                                          double *mean, double *inv, double *unb, double alpha,
                                          double beta, int nt)
{
    if (R == PA_KEEP)
        pa_train_body(L, PA_KEEP, x, y, rs, sc, bi, eps, M, mean, inv, unb, alpha, beta, nt, 1);
    else
        pa_train_body(L, R, x, y, rs, sc, bi, eps, M, mean, inv, unb, alpha, beta, nt, 0);
}

/* Where the training statistics go (FLOAT, in place at the tile's first position; NULL: not
 * written). */
typedef struct {
    float *run_mean, *run_var, *save_mean, *save_inv;
    double factor;
} pa_outs_t;

/* (float)(al v + be old) at p (old read only when be != 0), in float. */
#define PF_STORE16(p, v, al, be)                                                                   \
    do {                                                                                           \
        __m512 r_ = _mm512_mul_ps(_mm512_set1_ps((float)(al)), (v));                               \
        if ((be) != 0.0)                                                                           \
            r_ =                                                                                   \
                _mm512_add_ps(r_, _mm512_mul_ps(_mm512_set1_ps((float)(be)), _mm512_loadu_ps(p))); \
        _mm512_storeu_ps((p), r_);                                                                 \
    } while (0)

/* The training step's constants: eps, 1 / M, M / (M - 1) (M = 1: inf, so the unbiased variance
 * 0 * inf = NaN, as cuDNN). */
typedef struct {
    __m512 E, RM, UB;
} pf_consts_t;

BN_AVX512 __attribute__((always_inline)) static inline pf_consts_t pf_consts(double eps, double M)
{
    pf_consts_t c = {_mm512_set1_ps((float)eps), _mm512_set1_ps((float)(1.0 / M)),
                     _mm512_set1_ps((float)(M / (M - 1.0)))};
    return c;
}

/* The statistics of 16 positions (R rows of stride rs from x, shifted by row 0, kept in xs
 * when `keep`; scale / bias at sc, bi): mean = K + s1 / M, var = (s2 - s1 s1 / M) / M clamped
 * at 0, the running / saved outputs blended in place at rm, rv, sm, si (NULL: not written),
 * and y's factors a = scale inv, b = bias - mean a. */
BN_AVX512 __attribute__((always_inline)) static inline void
pf_train_ab16(int64_t R, const float *x, int64_t rs, const float *sc, const float *bi,
              const pf_consts_t *st, float *rm, float *rv, float *sm, float *si, double f,
              const int keep, __m512 *xs, __m512 *a, __m512 *b)
{
    const __m512 Z = _mm512_setzero_ps(), K = _mm512_loadu_ps(x);
    __m512 s1 = Z, s2 = Z;
    _Pragma("GCC unroll 8") for (int64_t r = 0; r < R; r++)
    {
        const __m512 xv = _mm512_loadu_ps(x + r * rs);
        if (keep)
            xs[r] = xv;
        const __m512 d = _mm512_sub_ps(xv, K);
        s1 = _mm512_add_ps(s1, d);
        s2 = _mm512_add_ps(s2, _mm512_mul_ps(d, d));
    }
    const __m512 m1 = _mm512_mul_ps(s1, st->RM);
    __m512 v = _mm512_mul_ps(_mm512_sub_ps(s2, _mm512_mul_ps(s1, m1)), st->RM);
    v = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, Z, _CMP_LT_OQ), Z); /* NaN stays */
    const __m512 mu = _mm512_add_ps(K, m1);
    const __m512 iv = _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_sqrt_ps(_mm512_add_ps(v, st->E)));
    *a = _mm512_mul_ps(_mm512_loadu_ps(sc), iv);
    *b = _mm512_sub_ps(_mm512_loadu_ps(bi), _mm512_mul_ps(mu, *a));
    if (rm != NULL)
        PF_STORE16(rm, mu, f, 1.0 - f);
    if (rv != NULL)
        PF_STORE16(rv, _mm512_mul_ps(v, st->UB), f, 1.0 - f);
    if (sm != NULL) {
        _mm512_storeu_ps(sm, mu);
        _mm512_storeu_ps(si, iv);
    }
}

/* pf_train16 of one position in scalar float (see pf_out1). */
static inline void pf_train1(int64_t R, const float *x, float *y, int64_t rs, float sc, float bi,
                             double eps, double M, float *rm, float *rv, float *sm, float *si,
                             double f, float alpha, float beta)
{
    const float K = x[0], RM = (float)(1.0 / M), UB = (float)(M / (M - 1.0));
    const float ff = (float)f, gf = (float)(1.0 - f);
    float s1 = 0.0f, s2 = 0.0f;
    for (int64_t r = 0; r < R; r++) {
        const float d = x[r * rs] - K;
        s1 = s1 + d;
        s2 = s2 + d * d;
    }
    const float m1 = s1 * RM;
    float v = (s2 - s1 * m1) * RM;
    v = v < 0.0f ? 0.0f : v; /* NaN stays */
    const float mu = K + m1, iv = 1.0f / __builtin_sqrtf(v + (float)eps);
    const float a = sc * iv, b = bi - mu * a;
    if (rm != NULL)
        *rm = 1.0 - f != 0.0 ? ff * mu + gf * *rm : ff * mu;
    if (rv != NULL)
        *rv = 1.0 - f != 0.0 ? ff * (v * UB) + gf * *rv : ff * (v * UB);
    if (sm != NULL)
        *sm = mu, *si = iv;
    for (int64_t r = 0; r < R; r++)
        pf_out1(y + r * rs, x[r * rs] * a + b, alpha, beta);
}

/* One step of the in-place training: pf_train_ab16, then y. */
BN_AVX512 __attribute__((always_inline)) static inline void
pf_train16(int64_t R, const float *x, float *y, int64_t rs, const float *sc, const float *bi,
           const pf_consts_t *st, float *rm, float *rv, float *sm, float *si, double f, float alpha,
           float beta, int ntk, const int keep)
{
    __m512 a, b, xs[PA_KEEP];
    pf_train_ab16(R, x, rs, sc, bi, st, rm, rv, sm, si, f, keep, xs, &a, &b);
    pf_apply16(R, x, y, rs, keep, xs, a, b, alpha, beta, ntk);
}

/* Training per activation, FLOAT NCHW: parameters read and statistics written in place and
 * the steady prefetch of pa_infer_direct_f32_avx512, in float (pf_train16). */
BN_AVX512 __attribute__((always_inline)) static inline void
pa_train_direct_body(int L, int64_t R, const float *x, float *y, int64_t rs, const float *sc,
                     const float *bi, double eps, double M, const pa_outs_t *o, double alpha,
                     double beta, int nt, int pfd, const int keep)
{
    BN_NTK(y);
    const double f = o->factor;
    const pf_consts_t st = pf_consts(eps, M);
    int j = 0;
    for (; j + 16 <= L; j += 16) {
        if (pfd > 0) {
            for (int64_t r = 0; r < R; r++)
                _mm_prefetch((const char *)(x + r * rs + j + pfd), _MM_HINT_T1);
            _mm_prefetch((const char *)(sc + j + pfd), _MM_HINT_T1);
            _mm_prefetch((const char *)(bi + j + pfd), _MM_HINT_T1);
        }
        pf_train16(R, x + j, y + j, rs, sc + j, bi + j, &st, o->run_mean ? o->run_mean + j : NULL,
                   o->run_var ? o->run_var + j : NULL, o->save_mean ? o->save_mean + j : NULL,
                   o->save_mean ? o->save_inv + j : NULL, f, (float)alpha, (float)beta, ntk, keep);
    }
    for (; j < L; j++)
        pf_train1(R, x + j, y + j, rs, sc[j], bi[j], eps, M, o->run_mean ? o->run_mean + j : NULL,
                  o->run_var ? o->run_var + j : NULL, o->save_mean ? o->save_mean + j : NULL,
                  o->save_mean ? o->save_inv + j : NULL, f, (float)alpha, (float)beta);
}

/* Backward per activation, FLOAT NCHW with the saved statistics, in place and prefetched as
 * above: per 16 positions the saved mean / inv and scale, the sums of dy and dy xhat over the
 * rows (from 0, rows in order), mg = sg / M, mgx = sgx / M, coef = scale inv, then dx per row
 * (the rows again, from L1) and dscale / dbias blended as store_grads, in float (pf_bwd16). */
typedef struct {
    const float *mean, *inv, *sc;
    float *dscale, *dbias;
    double ap, bp; /* alpha_param, beta_param */
} pa_bwd_t;

/* The backward sums of 16 positions: saved mean / inv (unit stride), the sums of dy and
 * dy xhat over the R rows (from 0, rows in order), mg = sum dy / M, mx = sum dy xhat / M (RM =
 * 1 / M), and dscale / dbias blended in place (alpha_param ap, beta_param bp). */
BN_AVX512 __attribute__((always_inline)) static inline void
pf_bwd_sums16(int64_t R, const float *x, const float *dy, int64_t rs, __m512 RM, const float *mean,
              const float *inv, float *dscale, float *dbias, double ap, double bp, __m512 *mg,
              __m512 *mx)
{
    const __m512 m = _mm512_loadu_ps(mean), iv = _mm512_loadu_ps(inv);
    __m512 g = _mm512_setzero_ps(), h = _mm512_setzero_ps();
    _Pragma("GCC unroll 8") for (int64_t r = 0; r < R; r++)
    {
        const __m512 e = _mm512_loadu_ps(dy + r * rs);
        const __m512 xh = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(x + r * rs), m), iv);
        g = _mm512_add_ps(g, e);
        h = _mm512_add_ps(h, _mm512_mul_ps(e, xh));
    }
    *mg = _mm512_mul_ps(g, RM), *mx = _mm512_mul_ps(h, RM);
    PF_STORE16(dscale, h, ap, bp);
    PF_STORE16(dbias, g, ap, bp);
}

/* dx of 16 positions' R rows: dx = alpha (scale inv ((dy - mg) - xhat mx)) [+ beta dx]. */
BN_AVX512 __attribute__((always_inline)) static inline void
pf_bwd_dx16(int64_t R, const float *x, const float *dy, float *dx, int64_t rs, const float *mean,
            const float *inv, const float *sc, __m512 mg, __m512 mx, float alpha, float beta,
            int ntk)
{
    const __m512 m = _mm512_loadu_ps(mean), iv = _mm512_loadu_ps(inv);
    const __m512 f = _mm512_mul_ps(_mm512_loadu_ps(sc), iv);
    _Pragma("GCC unroll 8") for (int64_t r = 0; r < R; r++)
    {
        const __m512 xh = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(x + r * rs), m), iv);
        const __m512 e = _mm512_sub_ps(_mm512_loadu_ps(dy + r * rs), mg);
        pf_out16(dx + r * rs, _mm512_mul_ps(f, _mm512_sub_ps(e, _mm512_mul_ps(xh, mx))), alpha,
                 beta, ntk);
    }
}

/* pf_bwd16 of one position in scalar float (see pf_out1). */
static inline void pf_bwd1(int64_t R, const float *x, const float *dy, float *dx, int64_t rs,
                           float RM, float m, float iv, float sc, float *dscale, float *dbias,
                           double ap, double bp, float alpha, float beta)
{
    float g = 0.0f, h = 0.0f;
    for (int64_t r = 0; r < R; r++) {
        const float e = dy[r * rs], xh = (x[r * rs] - m) * iv;
        g = g + e;
        h = h + e * xh;
    }
    const float mg = g * RM, mx = h * RM, f = sc * iv;
    *dscale = bp != 0.0 ? (float)ap * h + (float)bp * *dscale : (float)ap * h;
    *dbias = bp != 0.0 ? (float)ap * g + (float)bp * *dbias : (float)ap * g;
    for (int64_t r = 0; r < R; r++) {
        const float xh = (x[r * rs] - m) * iv, e = dy[r * rs] - mg;
        pf_out1(dx + r * rs, f * (e - xh * mx), alpha, beta);
    }
}

/* One step of the in-place backward: the sums, then dx. */
BN_AVX512 __attribute__((always_inline)) static inline void
pf_bwd16(int64_t R, const float *x, const float *dy, float *dx, int64_t rs, __m512 RM,
         const float *mean, const float *inv, const float *sc, float *dscale, float *dbias,
         double ap, double bp, float alpha, float beta, int ntk)
{
    __m512 mg, mx;
    pf_bwd_sums16(R, x, dy, rs, RM, mean, inv, dscale, dbias, ap, bp, &mg, &mx);
    pf_bwd_dx16(R, x, dy, dx, rs, mean, inv, sc, mg, mx, alpha, beta, ntk);
}

BN_AVX512 static void pa_bwd_direct_f32_avx512(int L, int64_t R, const float *x, const float *dy,
                                               float *dx, int64_t rs, double M, const pa_bwd_t *g,
                                               double alpha, double beta, int nt, int pfd)
{
    BN_NTK(dx);
    const __m512 RM = _mm512_set1_ps((float)(1.0 / M));
    int j = 0;
    for (; j + 16 <= L; j += 16) {
        if (pfd > 0) {
            for (int64_t r = 0; r < R; r++) {
                _mm_prefetch((const char *)(x + r * rs + j + pfd), _MM_HINT_T1);
                _mm_prefetch((const char *)(dy + r * rs + j + pfd), _MM_HINT_T1);
            }
            _mm_prefetch((const char *)(g->mean + j + pfd), _MM_HINT_T1);
            _mm_prefetch((const char *)(g->inv + j + pfd), _MM_HINT_T1);
            _mm_prefetch((const char *)(g->sc + j + pfd), _MM_HINT_T1);
        }
        pf_bwd16(R, x + j, dy + j, dx + j, rs, RM, g->mean + j, g->inv + j, g->sc + j,
                 g->dscale + j, g->dbias + j, g->ap, g->bp, (float)alpha, (float)beta, ntk);
    }
    for (; j < L; j++)
        pf_bwd1(R, x + j, dy + j, dx + j, rs, (float)(1.0 / M), g->mean[j], g->inv[j], g->sc[j],
                g->dscale + j, g->dbias + j, g->ap, g->bp, (float)alpha, (float)beta);
}

BN_AVX512 static void pa_train_direct_f32_avx512(int L, int64_t R, const float *x, float *y,
                                                 int64_t rs, const float *sc, const float *bi,
                                                 double eps, double M, const pa_outs_t *o,
                                                 double alpha, double beta, int nt, int pfd)
{
    if (R == PA_KEEP)
        pa_train_direct_body(L, PA_KEEP, x, y, rs, sc, bi, eps, M, o, alpha, beta, nt, pfd, 1);
    else
        pa_train_direct_body(L, R, x, y, rs, sc, bi, eps, M, o, alpha, beta, nt, pfd, 0);
}

/* ---- the in-place per-activation kernels on AVX2 without AVX-512 ----------------------------
 * pf_*16 and pa_*_direct_f32_avx512 in 8 lanes (FLOAT data and parameters in NCHW order): the
 * same operations lane for lane as pf_*1, so a position's bits do not depend on the ISA's
 * vector width either. Inference computes in float here too (pf_infer_ab8; AVX-512 keeps double,
 * where float measured slower from memory): the double path's conversions and 4-lane 1 / sqrt
 * set the pace on AVX2 (n8c64h112w112, one thread: inference 5.7, training 8.7, backward 12.2
 * ms through the tile walk's double kernels; 2026-12-04, Zen 3). Unlike the AVX-512 forms
 * they walk the tile's rows outer (see pa_infer_direct_f32_avx2). */

/* o = alpha v [+ beta o] for the lanes k (all 8 when full; ntk: 2 / 1 streaming 32 / 16 bytes,
 * full vectors only). */
BN_AVX2 __attribute__((always_inline)) static inline void
rb2_store(float *o, __m256 v, __m256i k, int full, float al, float be, int ntk)
{
    if (al != 1.0f)
        v = _mm256_mul_ps(_mm256_set1_ps(al), v);
    if (be != 0.0f)
        v = _mm256_add_ps(v, _mm256_mul_ps(_mm256_set1_ps(be),
                                           full ? _mm256_loadu_ps(o) : _mm256_maskload_ps(o, k)));
    if (!full) {
        _mm256_maskstore_ps(o, k, v);
    } else if (ntk == 2) {
        _mm256_stream_ps(o, v);
    } else if (ntk == 1) {
        _mm_stream_ps(o, _mm256_castps256_ps128(v));
        _mm_stream_ps(o + 4, _mm256_extractf128_ps(v, 1));
    } else {
        _mm256_storeu_ps(o, v);
    }
}

/* y = alpha w [+ beta y], 8 floats (rb2_store of a full vector) */
BN_AVX2 __attribute__((always_inline)) static inline void pf_out8(float *y, __m256 w, float alpha,
                                                                  float beta, int ntk)
{
    rb2_store(y, w, _mm256_set1_epi32(-1), 1, alpha, beta, ntk);
}

/* y = alpha (x a + b) [+ beta y] of 16 channels (two halves) of one row (NHWC blocks) */
BN_AVX2 __attribute__((always_inline)) static inline void pf_apply16x2(const float *x, float *y,
                                                                       const __m256 *a,
                                                                       const __m256 *b, float alpha,
                                                                       float beta, int ntk)
{
    for (int h = 0; h < 2; h++)
        pf_out8(y + 8 * h, _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(x + 8 * h), a[h]), b[h]),
                alpha, beta, ntk);
}

#define PF_STORE8(p, v, al, be)                                                                    \
    do {                                                                                           \
        __m256 r_ = _mm256_mul_ps(_mm256_set1_ps((float)(al)), (v));                               \
        if ((be) != 0.0)                                                                           \
            r_ =                                                                                   \
                _mm256_add_ps(r_, _mm256_mul_ps(_mm256_set1_ps((float)(be)), _mm256_loadu_ps(p))); \
        _mm256_storeu_ps((p), r_);                                                                 \
    } while (0)

/* 1 / sqrt(v) of 8 floats, correctly rounded steps (sqrtps, divps): pf_*1's operations */
BN_AVX2 __attribute__((always_inline)) static inline __m256 pf_rsqrt8(__m256 v)
{
    return _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(v));
}

/* inference factors of 8 positions into fa, fb: a = scale / sqrt(var + eps), b = bias - mean a
 * (pf_infer1's operations) */
BN_AVX2 __attribute__((always_inline)) static inline void
pf_infer_ab8(const float *sc, const float *bi, const float *mean, const float *var, __m256 E,
             float *fa, float *fb)
{
    const __m256 av =
        _mm256_mul_ps(_mm256_loadu_ps(sc), pf_rsqrt8(_mm256_add_ps(_mm256_loadu_ps(var), E)));
    _mm256_storeu_ps(fa, av);
    _mm256_storeu_ps(fb,
                     _mm256_sub_ps(_mm256_loadu_ps(bi), _mm256_mul_ps(_mm256_loadu_ps(mean), av)));
}

/* inference of one position in scalar float: pf_infer_ab8's and the element pass's operations */
static inline void pf_infer1(int64_t R, const float *x, float *y, int64_t rs, float sc, float bi,
                             float mean, float var, float eps, float alpha, float beta)
{
    const float iv = 1.0f / __builtin_sqrtf(var + eps), a = sc * iv, b = bi - mean * a;
    for (int64_t r = 0; r < R; r++)
        pf_out1(y + r * rs, x[r * rs] * a + b, alpha, beta);
}

/* y = alpha (x fa + fb) [+ beta y] of the tile's first L8 positions, rows outer */
BN_AVX2 static inline void pa_apply_rows8(int64_t R, const float *x, float *y, int64_t rs, int L8,
                                          const float *fa, const float *fb, float af, float bf,
                                          int ntk)
{
    for (int64_t r = 0; r < R; r++)
        for (int j = 0; j < L8; j += 8)
            pf_out8(y + r * rs + j,
                    _mm256_add_ps(
                        _mm256_mul_ps(_mm256_loadu_ps(x + r * rs + j), _mm256_load_ps(fa + j)),
                        _mm256_load_ps(fb + j)),
                    af, bf, ntk);
}

/* Inference per activation, FLOAT NCHW, on AVX2: the factors of the tile's positions first
 * (pf_infer1's operations, 8 lanes), then y = x a + b rows outer, each row one contiguous run
 * of the tile; positions past the last 8 by pf_infer1. Lanes outer (16 positions of every row
 * per step, as the AVX-512 kernel) ran 1.9 ms alone but 4.2 after other calls in the same
 * process (n8c64h112w112, two threads): the rows and tensors lie a power of 2 apart, and
 * whether a step's loads waited for the stores of the step before (4 KiB aliasing) depended
 * on where the buffers landed. */
BN_AVX2 static void pa_infer_direct_f32_avx2(int L, int64_t R, const float *x, float *y, int64_t rs,
                                             const float *sc, const float *bi, const float *mean,
                                             const float *var, double eps, double alpha,
                                             double beta, int nt, int pfd)
{
    (void)pfd;
    BN_NTK(y);
    const float ef = (float)eps, af = (float)alpha, bf = (float)beta;
    const __m256 E = _mm256_set1_ps(ef);
    float fa[LMAX] __attribute__((aligned(32))), fb[LMAX] __attribute__((aligned(32)));
    const int L8 = L & ~7;
    for (int j = 0; j < L8; j += 8)
        pf_infer_ab8(sc + j, bi + j, mean + j, var + j, E, fa + j, fb + j);
    pa_apply_rows8(R, x, y, rs, L8, fa, fb, af, bf, ntk);
    for (int j = L8; j < L; j++)
        pf_infer1(R, x + j, y + j, rs, sc[j], bi[j], mean[j], var[j], ef, af, bf);
}

/* The statistics of 8 positions from their sums s1, s2 of d = x - K over M values: mean =
 * K + s1 / M, var = (s2 - s1 s1 / M) / M clamped at 0, the running / saved outputs blended in
 * place at rm, rv, sm, si (NULL: not written), and y's factors a = scale inv, b = bias - mean a
 * (pf_train_ab16's and pf_train1's operations). */
BN_AVX2 __attribute__((always_inline)) static inline void
pf_train_fin8(__m256 s1, __m256 s2, __m256 K, const float *sc, const float *bi, __m256 E, __m256 RM,
              __m256 UB, float *rm, float *rv, float *sm, float *si, double f, __m256 *a, __m256 *b)
{
    const __m256 Z = _mm256_setzero_ps(), m1 = _mm256_mul_ps(s1, RM);
    __m256 v = _mm256_mul_ps(_mm256_sub_ps(s2, _mm256_mul_ps(s1, m1)), RM);
    v = _mm256_blendv_ps(v, Z, _mm256_cmp_ps(v, Z, _CMP_LT_OQ)); /* NaN stays */
    const __m256 mu = _mm256_add_ps(K, m1);
    const __m256 iv = pf_rsqrt8(_mm256_add_ps(v, E));
    *a = _mm256_mul_ps(_mm256_loadu_ps(sc), iv);
    *b = _mm256_sub_ps(_mm256_loadu_ps(bi), _mm256_mul_ps(mu, *a));
    if (rm != NULL)
        PF_STORE8(rm, mu, f, 1.0 - f);
    if (rv != NULL)
        PF_STORE8(rv, _mm256_mul_ps(v, UB), f, 1.0 - f);
    if (sm != NULL) {
        _mm256_storeu_ps(sm, mu);
        _mm256_storeu_ps(si, iv);
    }
}

/* pf_train_ab16 on nh x 8 positions (NHWC blocks) */
BN_AVX2 __attribute__((always_inline)) static inline void
pf_train_ab8(int64_t R, const float *x, int64_t rs, const float *sc, const float *bi, __m256 E,
             __m256 RM, __m256 UB, float *rm, float *rv, float *sm, float *si, double f, __m256 *a,
             __m256 *b, const int nh)
{
    const __m256 Z = _mm256_setzero_ps();
    __m256 K[2], s1[2] = {Z, Z}, s2[2] = {Z, Z};
    for (int h = 0; h < nh; h++)
        K[h] = _mm256_loadu_ps(x + 8 * h);
    _Pragma("GCC unroll 8") for (int64_t r = 0; r < R; r++) for (int h = 0; h < nh; h++)
    {
        const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + r * rs + 8 * h), K[h]);
        s1[h] = _mm256_add_ps(s1[h], d);
        s2[h] = _mm256_add_ps(s2[h], _mm256_mul_ps(d, d));
    }
    for (int h = 0; h < nh; h++)
        pf_train_fin8(s1[h], s2[h], K[h], sc + 8 * h, bi + 8 * h, E, RM, UB, rm ? rm + 8 * h : NULL,
                      rv ? rv + 8 * h : NULL, sm ? sm + 8 * h : NULL, sm ? si + 8 * h : NULL, f,
                      a + h, b + h);
}

/* Training per activation, FLOAT NCHW, on AVX2, rows outer as pa_infer_direct_f32_avx2: the
 * sums of d = x - K (K the position's row-0 value) and d d row by row into L1 arrays (each lane
 * adds its rows in order: pf_train1's sums), the statistics and factors per 8 lanes (its
 * operations), then y row by row; positions past the last 8 by pf_train1. */
BN_AVX2 static void pa_train_direct_f32_avx2(int L, int64_t R, const float *x, float *y, int64_t rs,
                                             const float *sc, const float *bi, double eps, double M,
                                             const pa_outs_t *o, double alpha, double beta, int nt,
                                             int pfd)
{
    (void)pfd;
    BN_NTK(y);
    const double f = o->factor;
    const float af = (float)alpha, bf = (float)beta;
    const __m256 E = _mm256_set1_ps((float)eps), RM = _mm256_set1_ps((float)(1.0 / M)),
                 UB = _mm256_set1_ps((float)(M / (M - 1.0))), Z = _mm256_setzero_ps();
    float s1[LMAX] __attribute__((aligned(32))), s2[LMAX] __attribute__((aligned(32)));
    float fa[LMAX] __attribute__((aligned(32))), fb[LMAX] __attribute__((aligned(32)));
    const int L8 = L & ~7;
    for (int j = 0; j < L8; j += 8)
        _mm256_store_ps(s1 + j, Z), _mm256_store_ps(s2 + j, Z);
    for (int64_t r = 0; r < R; r++)
        for (int j = 0; j < L8; j += 8) {
            const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + r * rs + j), _mm256_loadu_ps(x + j));
            _mm256_store_ps(s1 + j, _mm256_add_ps(_mm256_load_ps(s1 + j), d));
            _mm256_store_ps(s2 + j, _mm256_add_ps(_mm256_load_ps(s2 + j), _mm256_mul_ps(d, d)));
        }
    for (int j = 0; j < L8; j += 8) {
        __m256 av, bv;
        pf_train_fin8(_mm256_load_ps(s1 + j), _mm256_load_ps(s2 + j), _mm256_loadu_ps(x + j),
                      sc + j, bi + j, E, RM, UB, o->run_mean ? o->run_mean + j : NULL,
                      o->run_var ? o->run_var + j : NULL, o->save_mean ? o->save_mean + j : NULL,
                      o->save_mean ? o->save_inv + j : NULL, f, &av, &bv);
        _mm256_store_ps(fa + j, av), _mm256_store_ps(fb + j, bv);
    }
    /* the positions past L8 first: pf_train1 reads x, and y may be x (in place) */
    for (int j = L8; j < L; j++)
        pf_train1(R, x + j, y + j, rs, sc[j], bi[j], eps, M, o->run_mean ? o->run_mean + j : NULL,
                  o->run_var ? o->run_var + j : NULL, o->save_mean ? o->save_mean + j : NULL,
                  o->save_mean ? o->save_inv + j : NULL, f, af, bf);
    pa_apply_rows8(R, x, y, rs, L8, fa, fb, af, bf, ntk);
}

/* Backward per activation, FLOAT NCHW with the saved statistics, on AVX2: pf_bwd1's operations
 * in 8 lanes, rows outer over the tile (each lane adds its rows in order, so the bits are
 * pf_bwd1's): the sums of dy and dy xhat row by row into L1 arrays, then dx row by row. Each
 * row is read as one contiguous run of the tile (L floats); the lanes-outer form of the AVX-512
 * kernel, 64 bytes of each of 24 rows per step, ran at 6.7-7.2 ms against 6.1 for the double
 * rows-outer path (n8c64h112w112, two threads: DRAM pages, not arithmetic; prefetch distance
 * made no difference). */
BN_AVX2 static void pa_bwd_direct_f32_avx2(int L, int64_t R, const float *x, const float *dy,
                                           float *dx, int64_t rs, double M, const pa_bwd_t *g,
                                           double alpha, double beta, int nt, int pfd)
{
    (void)pfd;
    BN_NTK(dx);
    const float RMf = (float)(1.0 / M), af = (float)alpha, bf = (float)beta;
    float gs[LMAX] __attribute__((aligned(32))), hs[LMAX] __attribute__((aligned(32)));
    float mg[LMAX] __attribute__((aligned(32))), mx[LMAX] __attribute__((aligned(32)));
    float fs[LMAX] __attribute__((aligned(32)));
    const float *const mean = g->mean, *const inv = g->inv;
    const int L8 = L & ~7;
    for (int j = 0; j < L; j++)
        gs[j] = 0.0f, hs[j] = 0.0f;
    for (int64_t r = 0; r < R; r++) {
        const float *xr = x + r * rs, *er = dy + r * rs;
        for (int j = 0; j < L8; j += 8) {
            const __m256 e = _mm256_loadu_ps(er + j);
            const __m256 xh =
                _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(xr + j), _mm256_loadu_ps(mean + j)),
                              _mm256_loadu_ps(inv + j));
            _mm256_store_ps(gs + j, _mm256_add_ps(_mm256_load_ps(gs + j), e));
            _mm256_store_ps(hs + j, _mm256_add_ps(_mm256_load_ps(hs + j), _mm256_mul_ps(e, xh)));
        }
        for (int j = L8; j < L; j++) {
            const float e = er[j], xh = (xr[j] - mean[j]) * inv[j];
            gs[j] = gs[j] + e;
            hs[j] = hs[j] + e * xh;
        }
    }
    const float ap = (float)g->ap, bp = (float)g->bp;
    for (int j = 0; j < L; j++) { /* pf_bwd1's finish, lane by lane */
        mg[j] = gs[j] * RMf, mx[j] = hs[j] * RMf, fs[j] = g->sc[j] * inv[j];
        g->dscale[j] = g->bp != 0.0 ? ap * hs[j] + bp * g->dscale[j] : ap * hs[j];
        g->dbias[j] = g->bp != 0.0 ? ap * gs[j] + bp * g->dbias[j] : ap * gs[j];
    }
    for (int64_t r = 0; r < R; r++) {
        const float *xr = x + r * rs, *er = dy + r * rs;
        float *dr = dx + r * rs;
        for (int j = 0; j < L8; j += 8) {
            const __m256 xh =
                _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(xr + j), _mm256_loadu_ps(mean + j)),
                              _mm256_loadu_ps(inv + j));
            const __m256 e = _mm256_sub_ps(_mm256_loadu_ps(er + j), _mm256_load_ps(mg + j));
            pf_out8(dr + j,
                    _mm256_mul_ps(_mm256_load_ps(fs + j),
                                  _mm256_sub_ps(e, _mm256_mul_ps(xh, _mm256_load_ps(mx + j)))),
                    af, bf, ntk);
        }
        for (int j = L8; j < L; j++) {
            const float xh = (xr[j] - mean[j]) * inv[j], e = er[j] - mg[j];
            pf_out1(dr + j, fs[j] * (e - xh * mx[j]), af, bf);
        }
    }
}

/* Per activation in NHWC order, FLOAT, C a multiple of 16 (pa_nhwc_*): a parameter tensor is
 * 1 x C x H x W (channel c, position s at c S + s) while x holds a position's channels side
 * by side. A block of 16 positions x 16 channels of each parameter (16 runs of one line) is
 * transposed in registers into 16 vectors of 16 channels, one per position, whose rows then
 * run the in-place float steps above (pf_*); the statistics and gradients go back the same
 * way (old values transposed in first where blended). No scalar gather (params_io's, ~40 %
 * of the time of the tile arrays' path); a block of positions is independent of the others. */
#define PA_NB 16 /* positions per block */
#define PA_NPF 2 /* parameter runs prefetched this many blocks ahead */

/* r[i][j] <-> r[j][i] (16 x 16 floats) */
BN_AVX512 __attribute__((always_inline)) static inline void pa_tr16(__m512 *r)
{
    __m512 t[16], u[16];
    for (int i = 0; i < 8; i++) { /* lane k of t[2i], t[2i+1]: rows 2i, 2i+1 interleaved */
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; i++) { /* lane k of u[4i + j]: column 4k + j of rows 4i..4i+3 */
        const __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 1]),
                      c = _mm512_castps_pd(t[4 * i + 2]), d = _mm512_castps_pd(t[4 * i + 3]);
        u[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
        u[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
        u[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
        u[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
    }
    for (int j = 0; j < 4; j++) { /* column 4k + j gathers lane k of u[j], u[4+j], ... */
        const __m512 w0 = _mm512_shuffle_f32x4(u[j], u[4 + j], 0x88);
        const __m512 w1 = _mm512_shuffle_f32x4(u[j], u[4 + j], 0xDD);
        const __m512 w2 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0x88);
        const __m512 w3 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0xDD);
        r[j] = _mm512_shuffle_f32x4(w0, w2, 0x88);
        r[4 + j] = _mm512_shuffle_f32x4(w1, w3, 0x88);
        r[8 + j] = _mm512_shuffle_f32x4(w0, w2, 0xDD);
        r[12 + j] = _mm512_shuffle_f32x4(w1, w3, 0xDD);
    }
}

/* t[s][i] = p[(c0 + i) S + s0 + s] for s < ns (0 past ns); m = the ns low bits. Full runs are
 * plain loads (masked loads that miss the cache are slow on Zen 5). */
BN_AVX512 static void pa_tin(const float *p, int64_t S, int64_t s0, int ns, __mmask16 m,
                             float (*t)[16])
{
    __m512 r[16];
    for (int i = 0; i < 16; i++)
        r[i] = ns == PA_NB ? _mm512_loadu_ps(p + i * S + s0)
                           : _mm512_maskz_loadu_ps(m, p + i * S + s0);
    pa_tr16(r);
    for (int i = 0; i < 16; i++)
        _mm512_storeu_ps(t[i], r[i]);
}

/* The inverse: p[(c0 + i) S + s0 + s] = t[s][i] for s < ns. */
BN_AVX512 static void pa_tout(float *p, int64_t S, int64_t s0, int ns, __mmask16 m, float (*t)[16])
{
    __m512 r[16];
    for (int i = 0; i < 16; i++)
        r[i] = _mm512_loadu_ps(t[i]);
    pa_tr16(r);
    for (int i = 0; i < 16; i++) {
        if (ns == PA_NB)
            _mm512_storeu_ps(p + i * S + s0, r[i]);
        else
            _mm512_mask_storeu_ps(p + i * S + s0, m, r[i]);
    }
}

/* The blocks' common frame: positions [s0, s0 + ns) of every image, rows of stride rs. */
typedef struct {
    int64_t S, C, R, rs, s0;
    int ns;
    __mmask16 m;
} pa_blk_t;

static pa_blk_t pa_blk(const bn_plan_t *b, int64_t k)
{
    pa_blk_t q = {b->S, b->C, b->N, b->v.n, k * PA_NB, PA_NB, 0};
    if (b->S - q.s0 < PA_NB)
        q.ns = (int)(b->S - q.s0);
    q.m = (__mmask16)((1u << q.ns) - 1u);
    return q;
}

/* Chunks of up to PA_CB channels: every parameter block of a chunk is transposed first; then
 * per position and 16 channels the statistics / sums over the rows and the factors of the
 * element pass (on the stack); then the element pass rows outer, so that each
 * image's stretch of the block (C = 64: 16 positions, 4 KiB) is read again from L1 / L2 and
 * written in order: the streaming stores fill whole lines even where y sits off a 64-byte
 * boundary (positions outer, a line shared by two positions waited for the other rows' stores
 * and left the write-combining buffers half full). The prefetches (into L2; outputs for
 * writing) ride on the element pass, spread evenly over its R ns ng steps: each step one line
 * of each data input PA_PF floats ahead in its row (the line it reads), and every
 * R ns / 16-th step the runs of one more channel of the chunk PA_NPF blocks ahead. Issued in
 * the positions loop instead (a burst of 8 row lines and 4-6 parameter lines per step, the
 * whole block's in inference, whose positions loop has no loads), the parameter lines were
 * mostly not there when the transposes read them: with the parameters forced into cache
 * inference ran 25 % faster at the same traffic. Spread, n8c64h112w112, 2 threads: inference
 * 1.95 -> 1.65 ms, training 2.35 -> 2.1, backward 2.85 -> 2.3 (one thread 3.1 -> 1.9, 3.5 ->
 * 2.9, 4.5 -> 3.2). Training and backward skip the row lines (pfr = 0) when a team of
 * several threads runs the blocks: their sums pass reads the rows in order, which the
 * hardware prefetchers follow, and with both cores streaming the extra requests cost more
 * than they gave (training 2.1 -> 1.9 ms, backward alike); one thread alone keeps them
 * (without: training 2.9 -> 3.2 ms, backward 3.4 -> 3.8). Prefetches only: no bits change. */
#define PA_CB 64
#define PA_NHWC_PF_CH(q, p, ch, w)                                                                 \
    do {                                                                                           \
        if ((p) != NULL)                                                                           \
            __builtin_prefetch((p) + (ch) * (q).S + (q).s0 + PA_NPF * PA_NB, (w), 2);              \
    } while (0)
#define PA_NHWC_PF_ROW(p, o) _mm_prefetch((const char *)((p) + (o) + PA_PF), _MM_HINT_T1)
/* The loops of a block: per chunk of channels [cc, cc + 16 ng), NIN inputs transposed into
 * IN(i, g) (g: 16-channel group), SUMS per position s and group g (data offset o), APPLY per
 * row r, position s and group g (data offset o), NOUT outputs transposed back from OUT(i, g). */
#define PA_NHWC_LOOP(q, NIN, pin, IN, NOUT, pout, OUT, SUMS, APPLY, PFD, TIN, TOUT)                \
    for (int64_t cc = 0; cc < (q).C; cc += PA_CB) {                                                \
        const int ng = (int)(((q).C - cc < PA_CB ? (q).C - cc : PA_CB) / 16);                      \
        const int pstep_ = (int)((q).R * (q).ns / 16) > 1 ? (int)((q).R * (q).ns / 16) : 1;        \
        int pc_ = 0, ch_ = 0;                                                                      \
        for (int g = 0; g < ng; g++)                                                               \
            for (int i = 0; i < (NIN); i++)                                                        \
                if ((pin)[i] != NULL)                                                              \
                    TIN((pin)[i] + (cc + 16 * g) * (q).S, (q).S, (q).s0, (q).ns, (q).m, IN(i, g)); \
        for (int s = 0; s < (q).ns; s++)                                                           \
            for (int g = 0; g < ng; g++) {                                                         \
                const int64_t o = ((q).s0 + s) * (q).C + cc + 16 * g;                              \
                (void)o;                                                                           \
                SUMS;                                                                              \
            }                                                                                      \
        for (int64_t r = 0; r < (q).R; r++)                                                        \
            for (int s = 0; s < (q).ns; s++)                                                       \
                for (int g = 0; g < ng; g++) {                                                     \
                    const int64_t o = r * (q).rs + ((q).s0 + s) * (q).C + cc + 16 * g;             \
                    PFD;                                                                           \
                    if (++pc_ == pstep_) {                                                         \
                        pc_ = 0;                                                                   \
                        if (ch_ < 16 * ng) {                                                       \
                            for (int i = 0; i < (NIN); i++)                                        \
                                PA_NHWC_PF_CH(q, (pin)[i], cc + ch_, 0);                           \
                            for (int i = 0; i < (NOUT); i++)                                       \
                                PA_NHWC_PF_CH(q, (pout)[i], cc + ch_, 1);                          \
                            ch_++;                                                                 \
                        }                                                                          \
                    }                                                                              \
                    APPLY;                                                                         \
                }                                                                                  \
        for (int g = 0; g < ng; g++)                                                               \
            for (int i = 0; i < (NOUT); i++)                                                       \
                if ((pout)[i] != NULL)                                                             \
                    TOUT((pout)[i] + (cc + 16 * g) * (q).S, (q).S, (q).s0, (q).ns, (q).m,          \
                         OUT(i, g));                                                               \
    }
/* The forward element pass of a block: y = x fa + fb per row, factors from the stack. */
#define PA_NHWC_APPLY_AB                                                                           \
    {                                                                                              \
        pf_apply16(R, x + o, y + o, rs, 0, NULL, _mm512_loadu_ps(fa[g][s]),                        \
                   _mm512_loadu_ps(fb[g][s]), alpha, beta, ntk);                                   \
    }

BN_AVX512 static void pa_nhwc_infer_f32_avx512(const bn_plan_t *b, const fd_bn_args_t *a, int64_t k,
                                               int nt)
{
    const pa_blk_t q = pa_blk(b, k);
    const int64_t R = 1, rs = q.rs;
    const float *x = a->x;
    float *y = a->y;
    BN_NTK(y); /* C * 4 bytes a multiple of 64: every (position, 16 channels) at y's phase */
    const __m512 E = _mm512_set1_ps((float)b->p->epsilon);
    const float alpha = (float)a->alpha, beta = (float)a->beta;
    const float *pin[4] = {a->scale, a->bias, a->mean, a->var};
    float t[4][PA_CB / 16][PA_NB][16], fa[PA_CB / 16][PA_NB][16], fb[PA_CB / 16][PA_NB][16];
    float *const *pout = NULL;
#define IN_(i, g) t[i][g]
#define OUT_(i, g) NULL
#define SUMS_                                                                                      \
    {                                                                                              \
        __m512 av, bv;                                                                             \
        pf_infer_ab16(t[0][g][s], t[1][g][s], t[2][g][s], t[3][g][s], E, &av, &bv);                \
        _mm512_storeu_ps(fa[g][s], av), _mm512_storeu_ps(fb[g][s], bv);                            \
    }
    PA_NHWC_LOOP(q, 4, pin, IN_, 0, pout, OUT_, SUMS_, PA_NHWC_APPLY_AB, PA_NHWC_PF_ROW(x, o),
                 pa_tin, pa_tout);
#undef SUMS_
#undef IN_
#undef OUT_
}

BN_AVX512 static void pa_nhwc_train_f32_avx512(const bn_plan_t *b, const fd_bn_args_t *a, int64_t k,
                                               int nt, int pfr)
{
    const pa_blk_t q = pa_blk(b, k);
    const int64_t R = 1, rs = q.rs;
    const float *x = a->x;
    float *y = a->y;
    BN_NTK(y);
    const double f = a->factor;
    const float alpha = (float)a->alpha, beta = (float)a->beta;
    const pf_consts_t st_ = pf_consts(b->p->epsilon, (double)b->M);
    /* inputs: scale, bias, old running mean / variance (read when blended); outputs: running
     * mean / variance, saved mean / inv (NULL: not written) */
    const float *pin[4] = {a->scale, a->bias, f != 1.0 ? a->run_mean : NULL,
                           f != 1.0 ? a->run_var : NULL};
    float *pout[4] = {a->run_mean, a->run_var, a->save_mean, a->save_inv};
    float t[2][PA_CB / 16][PA_NB][16], ob[4][PA_CB / 16][PA_NB][16];
    float fa[PA_CB / 16][PA_NB][16], fb[PA_CB / 16][PA_NB][16];
    if (q.ns < PA_NB) /* positions past ns are transposed out too (masked off) */
        memset(ob, 0, sizeof ob);
#define IN_(i, g) ((i) < 2 ? t[i][g] : ob[(i)-2][g])
#define OUT_(i, g) ob[i][g]
#define SUMS_                                                                                      \
    {                                                                                              \
        __m512 av, bv;                                                                             \
        pf_train_ab16(q.R, x + o, rs, t[0][g][s], t[1][g][s], &st_, pout[0] ? ob[0][g][s] : NULL,  \
                      pout[1] ? ob[1][g][s] : NULL, pout[2] ? ob[2][g][s] : NULL,                  \
                      pout[2] ? ob[3][g][s] : NULL, f, 0, NULL, &av, &bv);                         \
        _mm512_storeu_ps(fa[g][s], av), _mm512_storeu_ps(fb[g][s], bv);                            \
    }
    PA_NHWC_LOOP(q, 4, pin, IN_, 4, pout, OUT_, SUMS_, PA_NHWC_APPLY_AB,
                 pfr ? PA_NHWC_PF_ROW(x, o) : (void)0, pa_tin, pa_tout);
#undef SUMS_
#undef IN_
#undef OUT_
}

BN_AVX512 static void pa_nhwc_bwd_f32_avx512(const bn_plan_t *b, const fd_bn_args_t *a, int64_t k,
                                             int nt, int pfr)
{
    const pa_blk_t q = pa_blk(b, k);
    const int64_t R = 1, rs = q.rs;
    const float *x = a->x, *dy = a->dy;
    float *dx = a->dx;
    BN_NTK(dx);
    const __m512 RM = _mm512_set1_ps((float)(1.0 / (double)b->M));
    const float alpha = (float)a->alpha, beta = (float)a->beta;
    const double bp = a->beta_param;
    const float *pin[5] = {a->mean, a->var, a->scale, bp != 0.0 ? a->dscale : NULL,
                           bp != 0.0 ? a->dbias : NULL};
    float *pout[2] = {a->dscale, a->dbias};
    float t[3][PA_CB / 16][PA_NB][16], ob[2][PA_CB / 16][PA_NB][16];
    float mg[PA_CB / 16][PA_NB][16], mx[PA_CB / 16][PA_NB][16];
    if (q.ns < PA_NB)
        memset(ob, 0, sizeof ob);
#define IN_(i, g) ((i) < 3 ? t[i][g] : ob[(i)-3][g])
#define OUT_(i, g) ob[i][g]
#define SUMS_                                                                                      \
    {                                                                                              \
        __m512 gv, hv;                                                                             \
        pf_bwd_sums16(q.R, x + o, dy + o, rs, RM, t[0][g][s], t[1][g][s], ob[0][g][s],             \
                      ob[1][g][s], a->alpha_param, bp, &gv, &hv);                                  \
        _mm512_storeu_ps(mg[g][s], gv), _mm512_storeu_ps(mx[g][s], hv);                            \
    }
#define APPLY_                                                                                     \
    {                                                                                              \
        pf_bwd_dx16(R, x + o, dy + o, dx + o, rs, t[0][g][s], t[1][g][s], t[2][g][s],              \
                    _mm512_loadu_ps(mg[g][s]), _mm512_loadu_ps(mx[g][s]), alpha, beta, ntk);       \
    }
    PA_NHWC_LOOP(q, 5, pin, IN_, 2, pout, OUT_, SUMS_, APPLY_,
                 pfr ? (PA_NHWC_PF_ROW(x, o), PA_NHWC_PF_ROW(dy, o)) : (void)0, pa_tin, pa_tout);
#undef SUMS_
#undef APPLY_
#undef IN_
#undef OUT_
}

/* ---- the same per activation in NHWC order on AVX2 without AVX-512 ---------------------------
 * pa_nhwc_*_f32_avx512 with the 16 x 16 parameter blocks transposed as four 8 x 8 ones
 * (pa_tin8 / pa_tout8) and pf_*1's steps (pf_train_ab8, pf_apply16x2, ...) on 16 channels
 * (two 8-lane halves): pf_*1's operations lane for lane, the same bits as the NCHW order's
 * AVX2 kernels and as the AVX-512 ones. n8c64h112w112, two threads, dnnbench median
 * (2026-12-04, Zen 3), against the tile walk's double kernels: inference 3.7-3.9 -> 2.0 ms,
 * training 5.6-5.8 -> 3.1, backward 7.1 -> 4.6. */

/* r[i][j] <-> r[j][i] (8 x 8 floats) */
BN_AVX2 __attribute__((always_inline)) static inline void pa_tr8(__m256 *r)
{
    __m256 t[8], u[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 2; i++) {
        u[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
        u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
        u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
        u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
    }
    for (int j = 0; j < 4; j++) {
        r[j] = _mm256_permute2f128_ps(u[j], u[4 + j], 0x20);
        r[4 + j] = _mm256_permute2f128_ps(u[j], u[4 + j], 0x31);
    }
}

/* pa_tin: t[s][i] = p[i S + s0 + s] for 16 channels i and s < ns (0 past ns) */
BN_AVX2 static void pa_tin8(const float *p, int64_t S, int64_t s0, int ns, __mmask16 m,
                            float (*t)[16])
{
    (void)m;
    for (int ph = 0; ph < 2; ph++) {
        const int k = ns - 8 * ph;
        const __m256i mk = fd_cpu_mask8(k);
        for (int ch = 0; ch < 2; ch++) {
            __m256 r[8];
            for (int i = 0; i < 8; i++) {
                const float *q = p + (8 * ch + i) * S + s0 + 8 * ph;
                r[i] = k >= 8  ? _mm256_loadu_ps(q)
                       : k > 0 ? _mm256_maskload_ps(q, mk)
                               : _mm256_setzero_ps();
            }
            pa_tr8(r);
            for (int j = 0; j < 8; j++)
                _mm256_storeu_ps(t[8 * ph + j] + 8 * ch, r[j]);
        }
    }
}

/* pa_tout: p[i S + s0 + s] = t[s][i] for s < ns */
BN_AVX2 static void pa_tout8(float *p, int64_t S, int64_t s0, int ns, __mmask16 m, float (*t)[16])
{
    (void)m;
    for (int ph = 0; ph < 2; ph++) {
        const int k = ns - 8 * ph;
        if (k <= 0)
            break;
        for (int ch = 0; ch < 2; ch++) {
            __m256 r[8];
            for (int j = 0; j < 8; j++)
                r[j] = _mm256_loadu_ps(t[8 * ph + j] + 8 * ch);
            pa_tr8(r);
            for (int i = 0; i < 8; i++) {
                float *q = p + (8 * ch + i) * S + s0 + 8 * ph;
                if (k >= 8)
                    _mm256_storeu_ps(q, r[i]);
                else
                    fd_cpu_put8(q, r[i], k, 0);
            }
        }
    }
}

/* y = x a + b of one row's 16 channels at x + o (a, b from the stack) */
#define PA_NHWC8_APPLY_AB                                                                          \
    {                                                                                              \
        const __m256 a_[2] = {_mm256_loadu_ps(fa[g][s]), _mm256_loadu_ps(fa[g][s] + 8)};           \
        const __m256 b_[2] = {_mm256_loadu_ps(fb[g][s]), _mm256_loadu_ps(fb[g][s] + 8)};           \
        pf_apply16x2(x + o, y + o, a_, b_, alpha, beta, ntk);                                      \
    }

BN_AVX2 static void pa_nhwc_infer_f32_avx2(const bn_plan_t *b, const fd_bn_args_t *a, int64_t k,
                                           int nt)
{
    const pa_blk_t q = pa_blk(b, k);
    const int64_t R = 1, rs = q.rs;
    const float *x = a->x;
    float *y = a->y;
    BN_NTK(y);
    const __m256 E = _mm256_set1_ps((float)b->p->epsilon);
    const float alpha = (float)a->alpha, beta = (float)a->beta;
    const float *pin[4] = {a->scale, a->bias, a->mean, a->var};
    float t[4][PA_CB / 16][PA_NB][16], fa[PA_CB / 16][PA_NB][16], fb[PA_CB / 16][PA_NB][16];
    float *const *pout = NULL;
    (void)R;
#define IN_(i, g) t[i][g]
#define OUT_(i, g) NULL
#define SUMS_                                                                                      \
    for (int h = 0; h < 2; h++)                                                                    \
        pf_infer_ab8(t[0][g][s] + 8 * h, t[1][g][s] + 8 * h, t[2][g][s] + 8 * h,                   \
                     t[3][g][s] + 8 * h, E, fa[g][s] + 8 * h, fb[g][s] + 8 * h);
    PA_NHWC_LOOP(q, 4, pin, IN_, 0, pout, OUT_, SUMS_, PA_NHWC8_APPLY_AB, PA_NHWC_PF_ROW(x, o),
                 pa_tin8, pa_tout8);
#undef SUMS_
#undef IN_
#undef OUT_
}

BN_AVX2 static void pa_nhwc_train_f32_avx2(const bn_plan_t *b, const fd_bn_args_t *a, int64_t k,
                                           int nt, int pfr)
{
    const pa_blk_t q = pa_blk(b, k);
    const int64_t R = 1, rs = q.rs; /* R: BN_NTK's row count (the element pass runs one row) */
    const float *x = a->x;
    float *y = a->y;
    BN_NTK(y);
    const double f = a->factor, M = (double)b->M;
    const float alpha = (float)a->alpha, beta = (float)a->beta;
    const __m256 E = _mm256_set1_ps((float)b->p->epsilon), RM = _mm256_set1_ps((float)(1.0 / M)),
                 UB = _mm256_set1_ps((float)(M / (M - 1.0)));
    const float *pin[4] = {a->scale, a->bias, f != 1.0 ? a->run_mean : NULL,
                           f != 1.0 ? a->run_var : NULL};
    float *pout[4] = {a->run_mean, a->run_var, a->save_mean, a->save_inv};
    float t[2][PA_CB / 16][PA_NB][16], ob[4][PA_CB / 16][PA_NB][16];
    float fa[PA_CB / 16][PA_NB][16], fb[PA_CB / 16][PA_NB][16];
    if (q.ns < PA_NB)
        memset(ob, 0, sizeof ob);
#define IN_(i, g) ((i) < 2 ? t[i][g] : ob[(i)-2][g])
#define OUT_(i, g) ob[i][g]
#define SUMS_                                                                                      \
    {                                                                                              \
        __m256 av[2], bv[2];                                                                       \
        pf_train_ab8(q.R, x + o, rs, t[0][g][s], t[1][g][s], E, RM, UB,                            \
                     pout[0] ? ob[0][g][s] : NULL, pout[1] ? ob[1][g][s] : NULL,                   \
                     pout[2] ? ob[2][g][s] : NULL, pout[2] ? ob[3][g][s] : NULL, f, av, bv, 2);    \
        for (int h = 0; h < 2; h++)                                                                \
            _mm256_storeu_ps(fa[g][s] + 8 * h, av[h]), _mm256_storeu_ps(fb[g][s] + 8 * h, bv[h]);  \
    }
    PA_NHWC_LOOP(q, 4, pin, IN_, 4, pout, OUT_, SUMS_, PA_NHWC8_APPLY_AB,
                 pfr ? PA_NHWC_PF_ROW(x, o) : (void)0, pa_tin8, pa_tout8);
#undef SUMS_
#undef IN_
#undef OUT_
}

BN_AVX2 static void pa_nhwc_bwd_f32_avx2(const bn_plan_t *b, const fd_bn_args_t *a, int64_t k,
                                         int nt, int pfr)
{
    const pa_blk_t q = pa_blk(b, k);
    const int64_t R = 1, rs = q.rs; /* R: BN_NTK's row count (the element pass runs one row) */
    const float *x = a->x, *dy = a->dy;
    float *dx = a->dx;
    BN_NTK(dx);
    const __m256 RM = _mm256_set1_ps((float)(1.0 / (double)b->M));
    const float alpha = (float)a->alpha, beta = (float)a->beta;
    const double ap = a->alpha_param, bp = a->beta_param;
    const float *pin[5] = {a->mean, a->var, a->scale, bp != 0.0 ? a->dscale : NULL,
                           bp != 0.0 ? a->dbias : NULL};
    float *pout[2] = {a->dscale, a->dbias};
    float t[3][PA_CB / 16][PA_NB][16], ob[2][PA_CB / 16][PA_NB][16];
    float mg[PA_CB / 16][PA_NB][16], mx[PA_CB / 16][PA_NB][16];
    if (q.ns < PA_NB)
        memset(ob, 0, sizeof ob);
#define IN_(i, g) ((i) < 3 ? t[i][g] : ob[(i)-3][g])
#define OUT_(i, g) ob[i][g]
        /* pf_bwd_sums16: the sums of dy and dy xhat over the images, mg / mx, dscale / dbias */
#define SUMS_                                                                                      \
    for (int h = 0; h < 2; h++) {                                                                  \
        const __m256 m_ = _mm256_loadu_ps(t[0][g][s] + 8 * h),                                     \
                     iv_ = _mm256_loadu_ps(t[1][g][s] + 8 * h);                                    \
        __m256 gs_ = _mm256_setzero_ps(), hs_ = _mm256_setzero_ps();                               \
        for (int64_t r = 0; r < q.R; r++) {                                                        \
            const __m256 e_ = _mm256_loadu_ps(dy + o + r * rs + 8 * h);                            \
            const __m256 xh_ =                                                                     \
                _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + o + r * rs + 8 * h), m_), iv_);    \
            gs_ = _mm256_add_ps(gs_, e_);                                                          \
            hs_ = _mm256_add_ps(hs_, _mm256_mul_ps(e_, xh_));                                      \
        }                                                                                          \
        _mm256_storeu_ps(mg[g][s] + 8 * h, _mm256_mul_ps(gs_, RM));                                \
        _mm256_storeu_ps(mx[g][s] + 8 * h, _mm256_mul_ps(hs_, RM));                                \
        PF_STORE8(ob[0][g][s] + 8 * h, hs_, ap, bp);                                               \
        PF_STORE8(ob[1][g][s] + 8 * h, gs_, ap, bp);                                               \
    }
        /* pf_bwd_dx16 of one row */
#define APPLY_                                                                                     \
    for (int h = 0; h < 2; h++) {                                                                  \
        const __m256 m_ = _mm256_loadu_ps(t[0][g][s] + 8 * h),                                     \
                     iv_ = _mm256_loadu_ps(t[1][g][s] + 8 * h);                                    \
        const __m256 f_ = _mm256_mul_ps(_mm256_loadu_ps(t[2][g][s] + 8 * h), iv_);                 \
        const __m256 xh_ = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + o + 8 * h), m_), iv_);  \
        const __m256 e_ =                                                                          \
            _mm256_sub_ps(_mm256_loadu_ps(dy + o + 8 * h), _mm256_loadu_ps(mg[g][s] + 8 * h));     \
        pf_out8(dx + o + 8 * h,                                                                    \
                _mm256_mul_ps(                                                                     \
                    f_, _mm256_sub_ps(e_, _mm256_mul_ps(xh_, _mm256_loadu_ps(mx[g][s] + 8 * h)))), \
                alpha, beta, ntk);                                                                 \
    }
    PA_NHWC_LOOP(q, 5, pin, IN_, 2, pout, OUT_, SUMS_, APPLY_,
                 pfr ? (PA_NHWC_PF_ROW(x, o), PA_NHWC_PF_ROW(dy, o)) : (void)0, pa_tin8, pa_tout8);
#undef SUMS_
#undef APPLY_
#undef IN_
#undef OUT_
}

/* ---- FLOAT spatial training and backward in C-unit-stride order, in float (the rows walk;
 * product decision of 2026-12-04, docs/testing.md) ------------------------------------------
 * The rows walk on AVX-512 with FLOAT data takes its element arithmetic in float, 16 lanes a
 * vector: the statistics' d = x - K and d d, and the backward's dy and dy xhat, summed over runs
 * of at most RB_RUN rows in float, each run's sums then added into the lane's double sums in
 * row order; y = ((x - mean) - mlo) coef + bias and dx = coef ((dy - mg) - xhat mgx), xhat =
 * ((x - mean) - mlo) inv, the double factors rounded to float once per lane set, the mean split
 * into two floats (mean + mlo) so that x near a large mean keeps its deviation (x = 1000 +
 * U(-1/2, 1/2) would lose 13 bits of it to a float mean's rounding). In double (8 lanes, a
 * conversion each way) that arithmetic, not memory, set the pace: 0.8 ns an element on one
 * core with the data in L2 for the backward (n8c64h16w16), so NHWC backward of n8c64h112w112
 * with two threads stayed at 0.55-0.69 of the machine's bandwidth while NCHW's plane walk
 * reached 0.78-0.97. A lane's bits depend only on the fixed row segments (ROWS_FOR_EACH), not
 * on the thread count; a tail of fewer than 16 lanes runs the same operations under a mask. */
#define RB_RUN 64

/* The first n lanes (none for n <= 0, all for n >= 16). */
static inline __mmask16 rb_mask(int n)
{
    return n >= 16 ? (__mmask16)0xFFFF : n <= 0 ? (__mmask16)0 : (__mmask16)((1u << n) - 1u);
}

/* d[0..n) += the first n lanes of v, widened to double. */
BN_AVX512 __attribute__((always_inline)) static inline void rb_add_pd(double *d, __m512 v, int n)
{
    const __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(v));
    const __m512d hi =
        _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
    const __mmask8 k0 = (__mmask8)(n >= 8 ? 0xFF : (1u << n) - 1u);
    const __mmask8 k1 = (__mmask8)(n >= 16 ? 0xFF : n <= 8 ? 0 : (1u << (n - 8)) - 1u);
    _mm512_mask_storeu_pd(d, k0, _mm512_add_pd(_mm512_maskz_loadu_pd(k0, d), lo));
    if (k1)
        _mm512_mask_storeu_pd(d + 8, k1, _mm512_add_pd(_mm512_maskz_loadu_pd(k1, d + 8), hi));
}

/* One vector of rb_sums: kind 0 d = x - p0, g += d, h += d d; kind 1 (p0, p1, p2: mean, mlo,
 * inv) g += dy, h += dy ((x - p0) - p1) p2. full: plain loads, else masked by k. */
BN_AVX512 __attribute__((always_inline)) static inline void rb_sum1(int kind, const float *xp,
                                                                    const float *ep, __mmask16 k,
                                                                    int full, __m512 p0, __m512 p1,
                                                                    __m512 p2, __m512 *g, __m512 *h)
{
    const __m512 xv = full ? _mm512_loadu_ps(xp) : _mm512_maskz_loadu_ps(k, xp);
    if (kind == 0) {
        const __m512 d = _mm512_sub_ps(xv, p0);
        *g = _mm512_add_ps(*g, d);
        *h = _mm512_add_ps(*h, _mm512_mul_ps(d, d));
        return;
    }
    const __m512 e = full ? _mm512_loadu_ps(ep) : _mm512_maskz_loadu_ps(k, ep);
    const __m512 d = _mm512_sub_ps(_mm512_sub_ps(xv, p0), p1);
    *g = _mm512_add_ps(*g, e);
    *h = _mm512_add_ps(*h, _mm512_mul_ps(e, _mm512_mul_ps(d, p2)));
}

/* Sums over R rows (stride rs) of L lanes added into the doubles a1, a2: rows outer over
 * chunks of 64 lanes, each run of at most RB_RUN rows summed in float first. kind 0 (the
 * statistics): a1 += sum (x - K), a2 += sum (x - K)^2 (K, a value of x, is a float); kind 1 (the
 * backward sums): a1 += sum dy, a2 += sum dy xhat with f's mean, mlo and inv. */
BN_AVX512 __attribute__((always_inline)) static inline void
rb_sums(int kind, int L, int64_t R, const float *x, const float *dy, int64_t rs, const double *K,
        const rbf_t *f, double *a1, double *a2)
{
    for (int j0 = 0; j0 < L; j0 += 64) {
        const int w = L - j0 < 64 ? L - j0 : 64, nv = (w + 15) / 16;
        __mmask16 k[4];
        __m512 p0[4], p1[4], p2[4];
        for (int u = 0; u < 4; u++) {
            k[u] = rb_mask(w - 16 * u);
            const __mmask16 ku = u < nv ? k[u] : 0;
            if (kind == 0) {
                float t[16] = {0};
                for (int i = 0; i < 16 && 16 * u + i < w; i++)
                    t[i] = (float)K[j0 + 16 * u + i];
                p0[u] = _mm512_loadu_ps(t), p1[u] = p2[u] = _mm512_setzero_ps();
            } else {
                p0[u] = _mm512_maskz_loadu_ps(ku, f->mean + j0 + 16 * u);
                p1[u] = _mm512_maskz_loadu_ps(ku, f->mlo + j0 + 16 * u);
                p2[u] = _mm512_maskz_loadu_ps(ku, f->inv + j0 + 16 * u);
            }
        }
        for (int64_t r0 = 0; r0 < R; r0 += RB_RUN) {
            const int64_t r1 = R - r0 < RB_RUN ? R : r0 + RB_RUN;
            /* the sums in named registers (in arrays they lived in memory) */
            __m512 g0 = _mm512_setzero_ps(), g1 = g0, g2 = g0, g3 = g0;
            __m512 h0 = g0, h1 = g0, h2 = g0, h3 = g0;
#define RB_SUMU(u, G, H, FULL)                                                                     \
    rb_sum1(kind, xp + 16 * (u), kind ? ep + 16 * (u) : NULL, k[u], FULL, p0[u], p1[u], p2[u], &G, \
            &H)
#define RB_ROWS(FULL)                                                                              \
    for (int64_t r = r0; r < r1; r++) {                                                            \
        const float *xp = x + r * rs + j0, *ep = kind ? dy + r * rs + j0 : NULL;                   \
        RB_SUMU(0, g0, h0, FULL(0));                                                               \
        if (nv > 1)                                                                                \
            RB_SUMU(1, g1, h1, FULL(1));                                                           \
        if (nv > 2)                                                                                \
            RB_SUMU(2, g2, h2, FULL(2));                                                           \
        if (nv > 3)                                                                                \
            RB_SUMU(3, g3, h3, FULL(3));                                                           \
    }
#define RB_ALL(u) 1
#define RB_KFULL(u) (k[u] == 0xFFFF)
            if (w == 64)
                RB_ROWS(RB_ALL)
            else
                RB_ROWS(RB_KFULL)
#undef RB_SUMU
#undef RB_ROWS
#undef RB_ALL
#undef RB_KFULL
            const __m512 g[4] = {g0, g1, g2, g3}, h[4] = {h0, h1, h2, h3};
            for (int u = 0; u < nv; u++) {
                const int n = w - 16 * u < 16 ? w - 16 * u : 16;
                rb_add_pd(a1 + j0 + 16 * u, g[u], n);
                rb_add_pd(a2 + j0 + 16 * u, h[u], n);
            }
        }
    }
}

BN_AVX512 static void rst_f32_avx512(int L, int64_t R, const float *x, int64_t rs, const double *K,
                                     double *s1, double *s2)
{
    rb_sums(0, L, R, x, NULL, rs, K, NULL, s1, s2);
}

BN_AVX512 static void rbs_f32_avx512(int L, int64_t R, const float *x, const float *dy, int64_t rs,
                                     const rbf_t *f, double *sg, double *sgx)
{
    rb_sums(1, L, R, x, dy, rs, NULL, f, sg, sgx);
}

/* (x - mean) - mlo of one vector at lanes j.. of the factors (k: the lanes read; full: a
 * plain load). */
BN_AVX512 __attribute__((always_inline)) static inline __m512
rb_dev16(const float *xp, const rbf_t *f, int j, __mmask16 k, int full)
{
    const __m512 xv = full ? _mm512_loadu_ps(xp) : _mm512_maskz_loadu_ps(k, xp);
    return _mm512_sub_ps(_mm512_sub_ps(xv, _mm512_loadu_ps(f->mean + j)),
                         _mm512_loadu_ps(f->mlo + j));
}

/* One vector of the element pass before the blend: kind 0 (training) y = dev coef + bias,
 * coef = scale inv; kind 1 (backward) dx = coef ((dy - mg) - dev inv mgx). */
BN_AVX512 __attribute__((always_inline)) static inline __m512
rb_vec16(int kind, const float *xp, const float *ep, const rbf_t *f, int j, __mmask16 k, int full)
{
    const __m512 d = rb_dev16(xp, f, j, k, full);
    if (kind == 0)
        return _mm512_add_ps(_mm512_mul_ps(d, _mm512_loadu_ps(f->coef + j)),
                             _mm512_loadu_ps(f->bi + j));
    const __m512 ev = full ? _mm512_loadu_ps(ep) : _mm512_maskz_loadu_ps(k, ep);
    const __m512 xh = _mm512_mul_ps(d, _mm512_loadu_ps(f->inv + j));
    const __m512 t = _mm512_sub_ps(_mm512_sub_ps(ev, _mm512_loadu_ps(f->mg + j)),
                                   _mm512_mul_ps(xh, _mm512_loadu_ps(f->mgx + j)));
    return _mm512_mul_ps(_mm512_loadu_ps(f->coef + j), t);
}

/* The lanes k of o = alpha v [+ beta o] (an ordinary masked store). */
BN_AVX512 __attribute__((always_inline)) static inline void
rb_store_mask(float *o, __m512 v, __mmask16 k, float al, float be)
{
    if (al != 1.0f)
        v = _mm512_mul_ps(_mm512_set1_ps(al), v);
    if (be != 0.0f)
        v = _mm512_add_ps(v, _mm512_mul_ps(_mm512_set1_ps(be), _mm512_maskz_loadu_ps(k, o)));
    _mm512_mask_storeu_ps(o, k, v);
}

/* out = alpha v [+ beta out] over R rows (stride rs) of L lanes, v of rb_vec16's kind (dy
 * read by kind 1 only). Packed rows (rs == L >= 16) run as one stream whose vectors start on
 * the output's 64-byte lines when streaming (a masked head up to the first boundary; the
 * factors' copies of lanes 0..15 after lane L serve a vector that crosses into the next
 * row): a malloc'd output sits 16 bytes past a line, and 16-byte streaming stores ran the
 * backward's pass 10-15 % slower. */
BN_AVX512 __attribute__((always_inline)) static inline void
rb_pass(int kind, int L, int64_t R, const float *x, const float *dy, float *out, int64_t rs,
        const rbf_t *f, double alpha, double beta, int nt, const float *pf0, const float *pf1)
{
    const float al = (float)alpha, be = (float)beta;
    if (rs == L && L >= 16) {
        const int64_t n = (int64_t)L * R;
        int64_t i = 0;
        int j = 0; /* the lane of element i */
        const int str = nt && (uintptr_t)out % 4 == 0;
        if (str && (uintptr_t)out % 64 != 0) {
            const int h = (int)((64 - (uintptr_t)out % 64) / 4);
            const __mmask16 k = rb_mask(h < n ? h : (int)n);
            rb_store_mask(out, rb_vec16(kind, x, dy, f, 0, k, 0), k, al, be);
            i = j = h;
        }
        for (; i + 16 <= n; i += 16) {
            if (pf0 != NULL) /* the plane walk's next channel, a line per vector (BN_U_LOOP) */
                _mm_prefetch((const char *)(pf0 + i), _MM_HINT_T1);
            if (pf1 != NULL)
                _mm_prefetch((const char *)(pf1 + i), _MM_HINT_T1);
            pf_out16(out + i, rb_vec16(kind, x + i, kind ? dy + i : NULL, f, j, 0xFFFF, 1), al, be,
                     str ? 2 : 0);
            j += 16;
            if (j >= L)
                j -= L;
        }
        if (i < n) {
            const __mmask16 k = rb_mask((int)(n - i));
            rb_store_mask(out + i, rb_vec16(kind, x + i, kind ? dy + i : NULL, f, j, k, 0), k, al,
                          be);
        }
        return;
    }
    const float *const y = out; /* BN_NTK's operand */
    BN_NTK(y);
    for (int64_t r = 0; r < R; r++) {
        const float *xp = x + r * rs, *ep = kind ? dy + r * rs : NULL;
        float *o = out + r * rs;
        for (int jj = 0; jj < L; jj += 16) {
            const __mmask16 k = rb_mask(L - jj);
            const __m512 v = rb_vec16(kind, xp + jj, kind ? ep + jj : NULL, f, jj, k, k == 0xFFFF);
            if (k == 0xFFFF)
                pf_out16(o + jj, v, al, be, ntk);
            else
                rb_store_mask(o + jj, v, k, al, be);
        }
    }
}

BN_AVX512 static void rbout_f32_avx512(int L, int64_t R, const float *x, float *y, int64_t rs,
                                       const rbf_t *f, double alpha, double beta, int nt)
{
    rb_pass(0, L, R, x, NULL, y, rs, f, alpha, beta, nt, NULL, NULL);
}

BN_AVX512 static void rbdx_f32_avx512(int L, int64_t R, const float *x, const float *dy, float *dx,
                                      int64_t rs, const rbf_t *f, double alpha, double beta, int nt,
                                      const float *pf0, const float *pf1)
{
    rb_pass(1, L, R, x, dy, dx, rs, f, alpha, beta, nt, pf0, pf1);
}

#endif

/* Threads of the team running this block (1 outside a parallel region). */
static int bn_team(void)
{
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

/* 1 when the AVX-512 forms above may run (FREEDNN_CPU_ISA=avx2|generic keeps them off). */
static int bn_avx512(void)
{
    return BN_HAVE_NT && fd_cpu_isa_avx512();
}

/* 1 when the AVX2 forms below may run: AVX2 and FMA, and FREEDNN_CPU_ISA not `generic` (on an
 * AVX-512 CPU the AVX-512 forms are asked first; FREEDNN_CPU_ISA=avx2 leaves these). */
static int bn_avx2(void)
{
#if BN_HAVE_NT
    static int isa = -1; /* a benign race: every thread stores the same value */
    if (isa < 0) {
        const char *cap = getenv("FREEDNN_CPU_ISA");
        __builtin_cpu_init();
        isa = !(cap && strcmp(cap, "generic") == 0) && __builtin_cpu_supports("avx2") &&
              __builtin_cpu_supports("fma");
    }
    return isa;
#else
    return 0;
#endif
}

/* ---- AVX2 forms of the plane walk's FLOAT kernels ------------------------------------------
 * The clones of the generic kernels keep a v8d in two 256-bit registers on AVX2, so the
 * statistics' 64 lanes (k, s1, s2: 48 registers) and the backward sums' 16 (mean, inv, sg,
 * sgx: 16) spilled to the stack every row (n8c64h112w112 at two threads: training 0.30,
 * backward 0.34 of the bandwidth). These take the channel's parameters as scalars and run a
 * quarter of the statistics' lanes at a time over a block of rows: each lane still adds its
 * rows in order, and every element sees the generic kernels' operations in their order (no
 * contraction), so the bits are the same on every ISA. The element passes as the AVX-512 ones:
 * 16 floats per step, the next channel prefetched a line per step, whole-line streaming stores
 * after a scalar head. */
#if BN_HAVE_NT
/* 8 floats at p as two vectors of 4 doubles */
#define BN2_LD(p, lo, hi)                                                                          \
    const __m256 lo##f_ = _mm256_loadu_ps(p);                                                      \
    __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(lo##f_)),                                  \
            hi = _mm256_cvtps_pd(_mm256_extractf128_ps(lo##f_, 1))
#define BN2_PS_RB 8 /* rows of a block of the statistics (2 KiB of x, L1) */

/* s1[j] += sum_r (x[r][j] - k), s2[j] += the squares, j < 64, over R packed rows of 64. */
BN_AVX2 static void pstats_f32_avx2(int64_t R, const float *x, double k, double *s1, double *s2)
{
    const __m256d K = _mm256_set1_pd(k);
    for (int64_t r0 = 0; r0 < R; r0 += BN2_PS_RB) {
        const int64_t r1 = R - r0 < BN2_PS_RB ? R : r0 + BN2_PS_RB;
        for (int q = 0; q < PLANE_SLANES; q += 16) {
            __m256d a0 = _mm256_loadu_pd(s1 + q), a1 = _mm256_loadu_pd(s1 + q + 4),
                    a2 = _mm256_loadu_pd(s1 + q + 8), a3 = _mm256_loadu_pd(s1 + q + 12);
            __m256d c0 = _mm256_loadu_pd(s2 + q), c1 = _mm256_loadu_pd(s2 + q + 4),
                    c2 = _mm256_loadu_pd(s2 + q + 8), c3 = _mm256_loadu_pd(s2 + q + 12);
            for (int64_t r = r0; r < r1; r++) {
                const float *p = x + r * PLANE_SLANES + q;
                BN2_LD(p, d0, d1);
                BN2_LD(p + 8, d2, d3);
                d0 = _mm256_sub_pd(d0, K), d1 = _mm256_sub_pd(d1, K);
                d2 = _mm256_sub_pd(d2, K), d3 = _mm256_sub_pd(d3, K);
                a0 = _mm256_add_pd(a0, d0), a1 = _mm256_add_pd(a1, d1);
                a2 = _mm256_add_pd(a2, d2), a3 = _mm256_add_pd(a3, d3);
                c0 = _mm256_add_pd(c0, _mm256_mul_pd(d0, d0));
                c1 = _mm256_add_pd(c1, _mm256_mul_pd(d1, d1));
                c2 = _mm256_add_pd(c2, _mm256_mul_pd(d2, d2));
                c3 = _mm256_add_pd(c3, _mm256_mul_pd(d3, d3));
            }
            _mm256_storeu_pd(s1 + q, a0), _mm256_storeu_pd(s1 + q + 4, a1);
            _mm256_storeu_pd(s1 + q + 8, a2), _mm256_storeu_pd(s1 + q + 12, a3);
            _mm256_storeu_pd(s2 + q, c0), _mm256_storeu_pd(s2 + q + 4, c1);
            _mm256_storeu_pd(s2 + q + 8, c2), _mm256_storeu_pd(s2 + q + 12, c3);
        }
    }
}

/* sg[j] += sum_r dy, sgx[j] += sum_r dy (x - mean) inv, j < 16, over R packed rows of 16. */
BN_AVX2 static void pbsum_f32_avx2(int64_t R, const float *x, const float *dy, double mean,
                                   double inv, double *sg, double *sgx)
{
    const __m256d Mn = _mm256_set1_pd(mean), I = _mm256_set1_pd(inv);
    __m256d g0 = _mm256_loadu_pd(sg), g1 = _mm256_loadu_pd(sg + 4), g2 = _mm256_loadu_pd(sg + 8),
            g3 = _mm256_loadu_pd(sg + 12);
    __m256d h0 = _mm256_loadu_pd(sgx), h1 = _mm256_loadu_pd(sgx + 4), h2 = _mm256_loadu_pd(sgx + 8),
            h3 = _mm256_loadu_pd(sgx + 12);
    for (int64_t r = 0; r < R; r++) {
        const float *p = x + r * PLANE_LANES, *e = dy + r * PLANE_LANES;
        BN2_LD(e, e0, e1);
        BN2_LD(e + 8, e2, e3);
        BN2_LD(p, x0, x1);
        BN2_LD(p + 8, x2, x3);
        x0 = _mm256_mul_pd(_mm256_sub_pd(x0, Mn), I), x1 = _mm256_mul_pd(_mm256_sub_pd(x1, Mn), I);
        x2 = _mm256_mul_pd(_mm256_sub_pd(x2, Mn), I), x3 = _mm256_mul_pd(_mm256_sub_pd(x3, Mn), I);
        g0 = _mm256_add_pd(g0, e0), g1 = _mm256_add_pd(g1, e1);
        g2 = _mm256_add_pd(g2, e2), g3 = _mm256_add_pd(g3, e3);
        h0 = _mm256_add_pd(h0, _mm256_mul_pd(e0, x0)),
        h1 = _mm256_add_pd(h1, _mm256_mul_pd(e1, x1));
        h2 = _mm256_add_pd(h2, _mm256_mul_pd(e2, x2)),
        h3 = _mm256_add_pd(h3, _mm256_mul_pd(e3, x3));
    }
    _mm256_storeu_pd(sg, g0), _mm256_storeu_pd(sg + 4, g1);
    _mm256_storeu_pd(sg + 8, g2), _mm256_storeu_pd(sg + 12, g3);
    _mm256_storeu_pd(sgx, h0), _mm256_storeu_pd(sgx + 4, h1);
    _mm256_storeu_pd(sgx + 8, h2), _mm256_storeu_pd(sgx + 12, h3);
}

/* alpha, beta and the store of 16 results w0..w3 at d_ (ntk: streaming, d_ 32-byte aligned) */
#define BN2_FINISH16(d_, w0, w1, w2, w3)                                                           \
    do {                                                                                           \
        if (alpha != 1.0) {                                                                        \
            const __m256d al_ = _mm256_set1_pd(alpha);                                             \
            w0 = _mm256_mul_pd(al_, w0), w1 = _mm256_mul_pd(al_, w1);                              \
            w2 = _mm256_mul_pd(al_, w2), w3 = _mm256_mul_pd(al_, w3);                              \
        }                                                                                          \
        if (beta != 0.0) {                                                                         \
            const __m256d bt_ = _mm256_set1_pd(beta);                                              \
            BN2_LD(d_, o0_, o1_);                                                                  \
            BN2_LD((d_) + 8, o2_, o3_);                                                            \
            w0 = _mm256_add_pd(w0, _mm256_mul_pd(bt_, o0_));                                       \
            w1 = _mm256_add_pd(w1, _mm256_mul_pd(bt_, o1_));                                       \
            w2 = _mm256_add_pd(w2, _mm256_mul_pd(bt_, o2_));                                       \
            w3 = _mm256_add_pd(w3, _mm256_mul_pd(bt_, o3_));                                       \
        }                                                                                          \
        const __m256 r0_ = _mm256_set_m128(_mm256_cvtpd_ps(w1), _mm256_cvtpd_ps(w0));              \
        const __m256 r1_ = _mm256_set_m128(_mm256_cvtpd_ps(w3), _mm256_cvtpd_ps(w2));              \
        if (ntk) {                                                                                 \
            _mm256_stream_ps(d_, r0_);                                                             \
            _mm256_stream_ps((d_) + 8, r1_);                                                       \
        } else {                                                                                   \
            _mm256_storeu_ps(d_, r0_);                                                             \
            _mm256_storeu_ps((d_) + 8, r1_);                                                       \
        }                                                                                          \
    } while (0)
/* BN_U_LOOP's walk in steps of 16 floats (4 vectors of doubles) */
#define BN2_U_LOOP(y, SCALAR, VEC)                                                                 \
    do {                                                                                           \
        const int ntk = nt; /* after the head every step starts a line */                          \
        int64_t j = 0;                                                                             \
        if (nt)                                                                                    \
            for (; j < n && ((uintptr_t)((y) + j) & 63) != 0; j++)                                 \
                SCALAR;                                                                            \
        for (; j + 16 <= n; j += 16) {                                                             \
            __m256d w0, w1, w2, w3;                                                                \
            if (pf0 != NULL)                                                                       \
                _mm_prefetch((const char *)(pf0 + j), _MM_HINT_T1);                                \
            if (pf1 != NULL)                                                                       \
                _mm_prefetch((const char *)(pf1 + j), _MM_HINT_T1);                                \
            VEC;                                                                                   \
            BN2_FINISH16((y) + j, w0, w1, w2, w3);                                                 \
        }                                                                                          \
        for (; j < n; j++)                                                                         \
            SCALAR;                                                                                \
    } while (0)

BN_AVX2 static void outf_u_f32_avx2(int64_t n, const float *x, float *y, double fa, double fb,
                                    double alpha, double beta, int nt, const float *pf0)
{
    const float *const pf1 = NULL;
    const __m256d A = _mm256_set1_pd(fa), B = _mm256_set1_pd(fb);
#define SCALAR_ BN_U_SCALAR_OUTF
#define VEC_                                                                                       \
    BN2_LD(x + j, x0, x1);                                                                         \
    BN2_LD(x + j + 8, x2, x3);                                                                     \
    w0 = _mm256_add_pd(_mm256_mul_pd(x0, A), B), w1 = _mm256_add_pd(_mm256_mul_pd(x1, A), B);      \
    w2 = _mm256_add_pd(_mm256_mul_pd(x2, A), B), w3 = _mm256_add_pd(_mm256_mul_pd(x3, A), B)
    BN2_U_LOOP(y, SCALAR_, VEC_);
#undef SCALAR_
#undef VEC_
}

BN_AVX2 static void bdx_u_f32_avx2(int64_t n, const float *x, const float *dy, float *dx,
                                   double mean, double inv, double coef, double mg, double mgx,
                                   double alpha, double beta, int nt, const float *pf0,
                                   const float *pf1)
{
    const __m256d Mn = _mm256_set1_pd(mean), I = _mm256_set1_pd(inv), Cf = _mm256_set1_pd(coef),
                  G = _mm256_set1_pd(mg), GX = _mm256_set1_pd(mgx);
#define SCALAR_ BN_U_SCALAR_BDX
#define BN2_DX_(w, xv, ev)                                                                         \
    w = _mm256_mul_pd(Cf,                                                                          \
                      _mm256_sub_pd(_mm256_sub_pd(ev, G),                                          \
                                    _mm256_mul_pd(_mm256_mul_pd(_mm256_sub_pd(xv, Mn), I), GX)))
#define VEC_                                                                                       \
    BN2_LD(x + j, x0, x1);                                                                         \
    BN2_LD(x + j + 8, x2, x3);                                                                     \
    BN2_LD(dy + j, e0, e1);                                                                        \
    BN2_LD(dy + j + 8, e2, e3);                                                                    \
    BN2_DX_(w0, x0, e0);                                                                           \
    BN2_DX_(w1, x1, e1);                                                                           \
    BN2_DX_(w2, x2, e2);                                                                           \
    BN2_DX_(w3, x3, e3)
    BN2_U_LOOP(dx, SCALAR_, VEC_);
#undef SCALAR_
#undef VEC_
#undef BN2_DX_
}
/* The generic statistics / backward sums over L > PLANE_LANES lanes with per-lane parameters
 * (the tile walk: per activation) in AVX2 vectors of doubles, 16 lanes (a line of x) at a time
 * over all R rows: each lane adds its rows in order with the generic kernels' operations, so
 * their bits (the clones' 64-lane chunks spilled: per activation training and backward ran at
 * 0.2-0.3 of the bandwidth). */
BN_AVX2 static void lstats_f32_avx2(int L, int64_t R, const float *x, int64_t rs, const double *K,
                                    double *s1, double *s2)
{
    int j = 0;
    for (; j + 16 <= L; j += 16) {
        __m256d a0 = _mm256_loadu_pd(s1 + j), a1 = _mm256_loadu_pd(s1 + j + 4),
                a2 = _mm256_loadu_pd(s1 + j + 8), a3 = _mm256_loadu_pd(s1 + j + 12);
        __m256d c0 = _mm256_loadu_pd(s2 + j), c1 = _mm256_loadu_pd(s2 + j + 4),
                c2 = _mm256_loadu_pd(s2 + j + 8), c3 = _mm256_loadu_pd(s2 + j + 12);
        for (int64_t r = 0; r < R; r++) {
            const float *p = x + r * rs + j;
            BN2_LD(p, d0, d1);
            BN2_LD(p + 8, d2, d3);
            d0 = _mm256_sub_pd(d0, _mm256_loadu_pd(K + j));
            d1 = _mm256_sub_pd(d1, _mm256_loadu_pd(K + j + 4));
            d2 = _mm256_sub_pd(d2, _mm256_loadu_pd(K + j + 8));
            d3 = _mm256_sub_pd(d3, _mm256_loadu_pd(K + j + 12));
            a0 = _mm256_add_pd(a0, d0), a1 = _mm256_add_pd(a1, d1);
            a2 = _mm256_add_pd(a2, d2), a3 = _mm256_add_pd(a3, d3);
            c0 = _mm256_add_pd(c0, _mm256_mul_pd(d0, d0));
            c1 = _mm256_add_pd(c1, _mm256_mul_pd(d1, d1));
            c2 = _mm256_add_pd(c2, _mm256_mul_pd(d2, d2));
            c3 = _mm256_add_pd(c3, _mm256_mul_pd(d3, d3));
        }
        _mm256_storeu_pd(s1 + j, a0), _mm256_storeu_pd(s1 + j + 4, a1);
        _mm256_storeu_pd(s1 + j + 8, a2), _mm256_storeu_pd(s1 + j + 12, a3);
        _mm256_storeu_pd(s2 + j, c0), _mm256_storeu_pd(s2 + j + 4, c1);
        _mm256_storeu_pd(s2 + j + 8, c2), _mm256_storeu_pd(s2 + j + 12, c3);
    }
    for (; j < L; j++)
        for (int64_t r = 0; r < R; r++) {
            double d = (double)x[r * rs + j] - K[j];
            s1[j] += d;
            s2[j] += d * d;
        }
}

BN_AVX2 static void lbsum_f32_avx2(int L, int64_t R, const float *x, const float *dy, int64_t rs,
                                   const double *mean, const double *inv, double *sg, double *sgx)
{
    int j = 0;
    for (; j + 16 <= L; j += 16) {
        __m256d g0 = _mm256_loadu_pd(sg + j), g1 = _mm256_loadu_pd(sg + j + 4),
                g2 = _mm256_loadu_pd(sg + j + 8), g3 = _mm256_loadu_pd(sg + j + 12);
        __m256d h0 = _mm256_loadu_pd(sgx + j), h1 = _mm256_loadu_pd(sgx + j + 4),
                h2 = _mm256_loadu_pd(sgx + j + 8), h3 = _mm256_loadu_pd(sgx + j + 12);
        for (int64_t r = 0; r < R; r++) {
            const float *p = x + r * rs + j, *e = dy + r * rs + j;
            BN2_LD(e, e0, e1);
            BN2_LD(e + 8, e2, e3);
            BN2_LD(p, x0, x1);
            BN2_LD(p + 8, x2, x3);
#define LB2_XH_(v, o)                                                                              \
    v = _mm256_mul_pd(_mm256_sub_pd(v, _mm256_loadu_pd(mean + j + (o))),                           \
                      _mm256_loadu_pd(inv + j + (o)))
            LB2_XH_(x0, 0);
            LB2_XH_(x1, 4);
            LB2_XH_(x2, 8);
            LB2_XH_(x3, 12);
#undef LB2_XH_
            g0 = _mm256_add_pd(g0, e0), g1 = _mm256_add_pd(g1, e1);
            g2 = _mm256_add_pd(g2, e2), g3 = _mm256_add_pd(g3, e3);
            h0 = _mm256_add_pd(h0, _mm256_mul_pd(e0, x0));
            h1 = _mm256_add_pd(h1, _mm256_mul_pd(e1, x1));
            h2 = _mm256_add_pd(h2, _mm256_mul_pd(e2, x2));
            h3 = _mm256_add_pd(h3, _mm256_mul_pd(e3, x3));
        }
        _mm256_storeu_pd(sg + j, g0), _mm256_storeu_pd(sg + j + 4, g1);
        _mm256_storeu_pd(sg + j + 8, g2), _mm256_storeu_pd(sg + j + 12, g3);
        _mm256_storeu_pd(sgx + j, h0), _mm256_storeu_pd(sgx + j + 4, h1);
        _mm256_storeu_pd(sgx + j + 8, h2), _mm256_storeu_pd(sgx + j + 12, h3);
    }
    for (; j < L; j++)
        for (int64_t r = 0; r < R; r++) {
            double ev = (double)dy[r * rs + j];
            double xh = ((double)x[r * rs + j] - mean[j]) * inv[j];
            sg[j] += ev;
            sgx[j] += ev * xh;
        }
}

/* The per-lane element passes (rows and tile walks: parameters in arrays, L lanes x R rows of
 * stride rs) for FLOAT, as BN_A_LOOP's AVX-512 forms in 8-float steps (two vectors of doubles):
 * the generic expressions and order (SCALAR_OUTF / SCALAR_OUT / SCALAR_BDX for the tails), so
 * the same bits. */
#define BN2_FINISH8(d_, w0, w1)                                                                    \
    do {                                                                                           \
        if (alpha != 1.0) {                                                                        \
            w0 = _mm256_mul_pd(_mm256_set1_pd(alpha), w0);                                         \
            w1 = _mm256_mul_pd(_mm256_set1_pd(alpha), w1);                                         \
        }                                                                                          \
        if (beta != 0.0) {                                                                         \
            const __m256d bt_ = _mm256_set1_pd(beta);                                              \
            BN2_LD(d_, o0_, o1_);                                                                  \
            w0 = _mm256_add_pd(w0, _mm256_mul_pd(bt_, o0_));                                       \
            w1 = _mm256_add_pd(w1, _mm256_mul_pd(bt_, o1_));                                       \
        }                                                                                          \
        const __m128 q0_ = _mm256_cvtpd_ps(w0), q1_ = _mm256_cvtpd_ps(w1);                         \
        if (ntk == 2) {                                                                            \
            _mm256_stream_ps(d_, _mm256_set_m128(q1_, q0_));                                       \
        } else if (ntk == 1) {                                                                     \
            _mm_stream_ps(d_, q0_);                                                                \
            _mm_stream_ps((d_) + 4, q1_);                                                          \
        } else {                                                                                   \
            _mm256_storeu_ps(d_, _mm256_set_m128(q1_, q0_));                                       \
        }                                                                                          \
    } while (0)
#define BN2_A_LOOP(y, SCALAR, PARAMS, VEC)                                                         \
    do {                                                                                           \
        BN_NTK(y);                                                                                 \
        for (int64_t r = 0; r < R; r++) {                                                          \
            const int64_t o_ = r * rs;                                                             \
            int j = 0;                                                                             \
            for (; j + 8 <= L; j += 8) {                                                           \
                __m256d w0, w1;                                                                    \
                PARAMS;                                                                            \
                VEC;                                                                               \
                BN2_FINISH8((y) + o_ + j, w0, w1);                                                 \
            }                                                                                      \
            for (; j < L; j++)                                                                     \
                SCALAR;                                                                            \
        }                                                                                          \
    } while (0)
#define BN2_LDP(p) _mm256_loadu_pd(p)

BN_AVX2 static void outf_f32_avx2(int L, int64_t R, const float *x, float *y, int64_t rs,
                                  const double *fa, const double *fb, double alpha, double beta,
                                  int nt)
{
#define PARAMS_                                                                                    \
    const __m256d a0 = BN2_LDP(fa + j), a1 = BN2_LDP(fa + j + 4), b0 = BN2_LDP(fb + j),            \
                  b1 = BN2_LDP(fb + j + 4)
#define VEC_                                                                                       \
    BN2_LD(x + o_ + j, x0, x1);                                                                    \
    w0 = _mm256_add_pd(_mm256_mul_pd(x0, a0), b0);                                                 \
    w1 = _mm256_add_pd(_mm256_mul_pd(x1, a1), b1)
    BN2_A_LOOP(y, SCALAR_OUTF, PARAMS_, VEC_);
#undef PARAMS_
#undef VEC_
}

BN_AVX2 static void out_f32_avx2(int L, int64_t R, const float *x, float *y, int64_t rs,
                                 const double *sc, const double *mean, const double *inv,
                                 const double *bi, double alpha, double beta, int nt)
{
#define PARAMS_                                                                                    \
    const __m256d s0 = BN2_LDP(sc + j), s1 = BN2_LDP(sc + j + 4), m0 = BN2_LDP(mean + j),          \
                  m1 = BN2_LDP(mean + j + 4), i0 = BN2_LDP(inv + j), i1 = BN2_LDP(inv + j + 4),    \
                  c0 = BN2_LDP(bi + j), c1 = BN2_LDP(bi + j + 4)
#define VEC_                                                                                       \
    BN2_LD(x + o_ + j, x0, x1);                                                                    \
    w0 = _mm256_add_pd(_mm256_mul_pd(_mm256_mul_pd(s0, _mm256_sub_pd(x0, m0)), i0), c0);           \
    w1 = _mm256_add_pd(_mm256_mul_pd(_mm256_mul_pd(s1, _mm256_sub_pd(x1, m1)), i1), c1)
    BN2_A_LOOP(y, SCALAR_OUT, PARAMS_, VEC_);
#undef PARAMS_
#undef VEC_
}

BN_AVX2 static void bdx_f32_avx2(int L, int64_t R, const float *x, const float *dy, float *dx,
                                 int64_t rs, const double *mean, const double *inv,
                                 const double *coef, const double *mg, const double *mgx,
                                 double alpha, double beta, int nt)
{
#define PARAMS_                                                                                    \
    const __m256d m0 = BN2_LDP(mean + j), m1 = BN2_LDP(mean + j + 4), i0 = BN2_LDP(inv + j),       \
                  i1 = BN2_LDP(inv + j + 4), g0 = BN2_LDP(mg + j), g1 = BN2_LDP(mg + j + 4),       \
                  h0 = BN2_LDP(mgx + j), h1 = BN2_LDP(mgx + j + 4), f0 = BN2_LDP(coef + j),        \
                  f1 = BN2_LDP(coef + j + 4)
#define VEC_                                                                                       \
    BN2_LD(x + o_ + j, x0, x1);                                                                    \
    BN2_LD(dy + o_ + j, e0, e1);                                                                   \
    x0 = _mm256_mul_pd(_mm256_mul_pd(_mm256_sub_pd(x0, m0), i0), h0);                              \
    x1 = _mm256_mul_pd(_mm256_mul_pd(_mm256_sub_pd(x1, m1), i1), h1);                              \
    w0 = _mm256_mul_pd(f0, _mm256_sub_pd(_mm256_sub_pd(e0, g0), x0));                              \
    w1 = _mm256_mul_pd(f1, _mm256_sub_pd(_mm256_sub_pd(e1, g1), x1))
    BN2_A_LOOP(dx, SCALAR_BDX, PARAMS_, VEC_);
#undef PARAMS_
#undef VEC_
}

/* ---- AVX2 forms of the rows walk's FLOAT training / backward (rows_f32() == 2) -------------
 * rb_sums / rb_pass above, lane for lane: the same float expressions in the same order, runs
 * of at most RB_RUN rows of the same row pieces summed in float and then added into the lanes'
 * double sums, so the AVX-512 forms' bits (product decision of 2026-12-04, docs/testing.md).
 * 8 floats per vector: the sums run over chunks of 32 lanes (8 accumulators; 64 lanes' 16
 * would spill with 16 registers; the piece ROWS_FOR_EACH hands over, at most 16 KiB, stays in
 * L1 between the chunks) with the factors loaded from L1; tails under AVX2's masked loads and
 * stores. */
#define RB2_CHUNK 32

/* The first n lanes (none for n <= 0, all for n >= 8). */
BN_AVX2 __attribute__((always_inline)) static inline __m256i rb2_mask(int n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* d[0..n) += the first n lanes of v, widened to double. */
BN_AVX2 __attribute__((always_inline)) static inline void rb2_add_pd(double *d, __m256 v, int n)
{
    float t[8];
    _mm256_storeu_ps(t, v);
    for (int i = 0; i < n && i < 8; i++)
        d[i] += (double)t[i];
}

/* One vector of the sums: kind 0 d = x - p0 (p0 at kp), g += d, h += d d; kind 1 g += dy,
 * h += dy ((x - mean) - mlo) inv with f's factors at lane j. */
BN_AVX2 __attribute__((always_inline)) static inline void
rb2_sum1(int kind, const float *xp, const float *ep, __m256i k, int full, const float *kp,
         const rbf_t *f, int j, __m256 *g, __m256 *h)
{
    const __m256 xv = full ? _mm256_loadu_ps(xp) : _mm256_maskload_ps(xp, k);
    if (kind == 0) {
        const __m256 d = _mm256_sub_ps(xv, _mm256_loadu_ps(kp));
        *g = _mm256_add_ps(*g, d);
        *h = _mm256_add_ps(*h, _mm256_mul_ps(d, d));
        return;
    }
    const __m256 e = full ? _mm256_loadu_ps(ep) : _mm256_maskload_ps(ep, k);
    const __m256 d =
        _mm256_sub_ps(_mm256_sub_ps(xv, _mm256_loadu_ps(f->mean + j)), _mm256_loadu_ps(f->mlo + j));
    *g = _mm256_add_ps(*g, e);
    *h = _mm256_add_ps(*h, _mm256_mul_ps(e, _mm256_mul_ps(d, _mm256_loadu_ps(f->inv + j))));
}

BN_AVX2 __attribute__((always_inline)) static inline void
rb2_sums(int kind, int L, int64_t R, const float *x, const float *dy, int64_t rs, const double *K,
         const rbf_t *f, double *a1, double *a2)
{
    for (int j0 = 0; j0 < L; j0 += RB2_CHUNK) {
        const int w = L - j0 < RB2_CHUNK ? L - j0 : RB2_CHUNK, nv = (w + 7) / 8;
        __m256i k[4];
        float kf[RB2_CHUNK] = {0}; /* kind 0: the shifts as floats */
        for (int u = 0; u < 4; u++)
            k[u] = rb2_mask(w - 8 * u);
        if (kind == 0)
            for (int i = 0; i < w; i++)
                kf[i] = (float)K[j0 + i];
        for (int64_t r0 = 0; r0 < R; r0 += RB_RUN) {
            const int64_t r1 = R - r0 < RB_RUN ? R : r0 + RB_RUN;
            __m256 g0 = _mm256_setzero_ps(), g1 = g0, g2 = g0, g3 = g0;
            __m256 h0 = g0, h1 = g0, h2 = g0, h3 = g0;
#define RB2_SUMU(u, G, H)                                                                          \
    rb2_sum1(kind, xp + 8 * (u), kind ? ep + 8 * (u) : NULL, k[u], w >= 8 * (u) + 8, kf + 8 * (u), \
             f, j0 + 8 * (u), &G, &H)
            for (int64_t r = r0; r < r1; r++) {
                const float *xp = x + r * rs + j0, *ep = kind ? dy + r * rs + j0 : NULL;
                RB2_SUMU(0, g0, h0);
                if (nv > 1)
                    RB2_SUMU(1, g1, h1);
                if (nv > 2)
                    RB2_SUMU(2, g2, h2);
                if (nv > 3)
                    RB2_SUMU(3, g3, h3);
            }
#undef RB2_SUMU
            const __m256 g[4] = {g0, g1, g2, g3}, h[4] = {h0, h1, h2, h3};
            for (int u = 0; u < nv; u++) {
                rb2_add_pd(a1 + j0 + 8 * u, g[u], w - 8 * u);
                rb2_add_pd(a2 + j0 + 8 * u, h[u], w - 8 * u);
            }
        }
    }
}

BN_AVX2 static void rst_f32_avx2(int L, int64_t R, const float *x, int64_t rs, const double *K,
                                 double *s1, double *s2)
{
    rb2_sums(0, L, R, x, NULL, rs, K, NULL, s1, s2);
}

BN_AVX2 static void rbs_f32_avx2(int L, int64_t R, const float *x, const float *dy, int64_t rs,
                                 const rbf_t *f, double *sg, double *sgx)
{
    rb2_sums(1, L, R, x, dy, rs, NULL, f, sg, sgx);
}

/* rb_vec16 on 8 lanes: kind 0 y = dev coef + bias, kind 1 dx = coef ((dy - mg) - dev inv mgx),
 * dev = (x - mean) - mlo. */
BN_AVX2 __attribute__((always_inline)) static inline __m256
rb2_vec8(int kind, const float *xp, const float *ep, const rbf_t *f, int j, __m256i k, int full)
{
    const __m256 xv = full ? _mm256_loadu_ps(xp) : _mm256_maskload_ps(xp, k);
    const __m256 d =
        _mm256_sub_ps(_mm256_sub_ps(xv, _mm256_loadu_ps(f->mean + j)), _mm256_loadu_ps(f->mlo + j));
    if (kind == 0)
        return _mm256_add_ps(_mm256_mul_ps(d, _mm256_loadu_ps(f->coef + j)),
                             _mm256_loadu_ps(f->bi + j));
    const __m256 ev = full ? _mm256_loadu_ps(ep) : _mm256_maskload_ps(ep, k);
    const __m256 xh = _mm256_mul_ps(d, _mm256_loadu_ps(f->inv + j));
    const __m256 t = _mm256_sub_ps(_mm256_sub_ps(ev, _mm256_loadu_ps(f->mg + j)),
                                   _mm256_mul_ps(xh, _mm256_loadu_ps(f->mgx + j)));
    return _mm256_mul_ps(_mm256_loadu_ps(f->coef + j), t);
}

/* rb_pass in 8-lane vectors: packed rows (rs == L >= 16) as one stream whose vectors start on
 * the output's 64-byte lines when streaming (a masked head of up to two vectors). */
BN_AVX2 __attribute__((always_inline)) static inline void
rb2_pass(int kind, int L, int64_t R, const float *x, const float *dy, float *out, int64_t rs,
         const rbf_t *f, double alpha, double beta, int nt, const float *pf0, const float *pf1)
{
    const float al = (float)alpha, be = (float)beta;
    const __m256i all = _mm256_set1_epi32(-1);
    if (rs == L && L >= 16) {
        const int64_t n = (int64_t)L * R;
        int64_t i = 0;
        int j = 0; /* the lane of element i */
        const int str = nt && (uintptr_t)out % 4 == 0;
        if (str && (uintptr_t)out % 64 != 0) {
            int h = (int)((64 - (uintptr_t)out % 64) / 4);
            h = h < n ? h : (int)n;
            for (int u = 0; u < h; u += 8) {
                const __m256i k = rb2_mask(h - u);
                rb2_store(out + u, rb2_vec8(kind, x + u, kind ? dy + u : NULL, f, u, k, 0), k, 0,
                          al, be, 0);
            }
            i = j = h;
        }
        for (; i + 8 <= n; i += 8) {
            if (pf0 != NULL && i % 16 == 0) /* as rb_pass: a line per 16 floats */
                _mm_prefetch((const char *)(pf0 + i), _MM_HINT_T1);
            if (pf1 != NULL && i % 16 == 0)
                _mm_prefetch((const char *)(pf1 + i), _MM_HINT_T1);
            rb2_store(out + i, rb2_vec8(kind, x + i, kind ? dy + i : NULL, f, j, all, 1), all, 1,
                      al, be, str ? 2 : 0);
            j += 8;
            if (j >= L)
                j -= L;
        }
        if (i < n) {
            const __m256i k = rb2_mask((int)(n - i));
            rb2_store(out + i, rb2_vec8(kind, x + i, kind ? dy + i : NULL, f, j, k, 0), k, 0, al,
                      be, 0);
        }
        return;
    }
    const float *const y = out; /* BN_NTK's operand */
    BN_NTK(y);
    for (int64_t r = 0; r < R; r++) {
        const float *xp = x + r * rs, *ep = kind ? dy + r * rs : NULL;
        float *o = out + r * rs;
        for (int jj = 0; jj < L; jj += 8) {
            const int full = L - jj >= 8;
            const __m256i k = full ? all : rb2_mask(L - jj);
            rb2_store(o + jj, rb2_vec8(kind, xp + jj, kind ? ep + jj : NULL, f, jj, k, full), k,
                      full, al, be, ntk);
        }
    }
}

BN_AVX2 static void rbout_f32_avx2(int L, int64_t R, const float *x, float *y, int64_t rs,
                                   const rbf_t *f, double alpha, double beta, int nt)
{
    rb2_pass(0, L, R, x, NULL, y, rs, f, alpha, beta, nt, NULL, NULL);
}

BN_AVX2 static void rbdx_f32_avx2(int L, int64_t R, const float *x, const float *dy, float *dx,
                                  int64_t rs, const rbf_t *f, double alpha, double beta, int nt,
                                  const float *pf0, const float *pf1)
{
    rb2_pass(1, L, R, x, dy, dx, rs, f, alpha, beta, nt, pf0, pf1);
}
#endif

#if BN_HAVE_NT
/* The per-activation AVX-512 kernels above serve this problem. */
static int pa_avx512(const bn_plan_t *b);

/* FLOAT data and parameters in NCHW order per activation: the direct kernels read them in
 * place, 1 the AVX-512 forms (pa_*_direct_f32_avx512), 2 their AVX2 forms (_avx2), else 0. */
static int pa_direct(const bn_plan_t *b)
{
    if (b->eng != ENG_TILE || !b->fast || b->dt != CUDNN_DATA_FLOAT || b->tile_nhwc ||
        b->p->sb.dtype != CUDNN_DATA_FLOAT || b->p->mv.dtype != CUDNN_DATA_FLOAT)
        return 0;
    return bn_avx512() ? 1 : bn_avx2() ? 2 : 0;
}

static int pa_avx512(const bn_plan_t *b)
{
    return b->eng == ENG_TILE && b->fast && b->dt == CUDNN_DATA_FLOAT && bn_avx512();
}

/* ... in NHWC order with C a multiple of 16 and FLOAT parameters: the transposing kernels. */
static int pa_nhwc(const bn_plan_t *b)
{
    return pa_avx512(b) && b->tile_nhwc && b->C % 16 == 0 && b->p->sb.dtype == CUDNN_DATA_FLOAT &&
           b->p->mv.dtype == CUDNN_DATA_FLOAT;
}

/* ... the same on AVX2 without AVX-512: pa_nhwc_*_f32_avx2. */
static int pa_nhwc8(const bn_plan_t *b)
{
    return b->eng == ENG_TILE && b->fast && b->dt == CUDNN_DATA_FLOAT && !bn_avx512() &&
           bn_avx2() && b->tile_nhwc && b->C % 16 == 0 && b->p->sb.dtype == CUDNN_DATA_FLOAT &&
           b->p->mv.dtype == CUDNN_DATA_FLOAT;
}

/* The plane walk's FLOAT backward in float (the rows walk's rbs_ / rbdx_f32_* kernels) serves
 * this problem: 1 on AVX-512, 2 on AVX2, else 0. */
static int plane_bwd_f32(const bn_plan_t *b)
{
    if (b->eng != ENG_PLANE || !b->fast || b->dt != CUDNN_DATA_FLOAT || b->pl != PLANE_LANES)
        return 0;
    return bn_avx512() ? 1 : bn_avx2() ? 2 : 0;
}

/* The rows walk's FLOAT training / backward in float serves this problem: 1 with the AVX-512
 * kernels (rst_ / rbout_ / rbs_ / rbdx_f32_avx512), 2 with their AVX2 forms (*_f32_avx2). */
static int rows_f32(const bn_plan_t *b)
{
    if (b->eng != ENG_ROWS || !b->fast || b->dt != CUDNN_DATA_FLOAT)
        return 0;
    return bn_avx512() ? 1 : bn_avx2() ? 2 : 0;
}
#endif

BN_OUTF_KERNEL(float, f32)
BN_OUTF_KERNEL(double, f64)
BN_STATS_KERNEL(float, f32)
BN_STATS_KERNEL(double, f64)
BN_OUT_KERNEL(float, f32)
BN_OUT_KERNEL(double, f64)
BN_BSUM_KERNEL(float, f32)
BN_BSUM_KERNEL(double, f64)
BN_BDX_KERNEL(float, f32)
BN_BDX_KERNEL(double, f64)

/* ---- segments: L lanes (unit stride) x R rows (stride rs) at element offset off ------------
 * The vector kernels for float / double with ops BN, else double blocks through memop.h (any
 * storage type, the fused activation, the library's rounding). L <= LMAX. */

static void seg_stats(const bn_plan_t *b, const void *x, int L, int64_t R, int64_t off, int64_t rs,
                      const double *K, double *s1, double *s2)
{
#if BN_HAVE_NT
    if (b->rf32 == 1) {
        rst_f32_avx512(L, R, (const float *)x + off, rs, K, s1, s2);
        return;
    }
    if (b->rf32 == 2) {
        rst_f32_avx2(L, R, (const float *)x + off, rs, K, s1, s2);
        return;
    }
    if (b->fast && b->eng == ENG_PLANE && b->dt == CUDNN_DATA_FLOAT && L == PLANE_SLANES &&
        rs == L && !bn_avx512() && bn_avx2()) {
        pstats_f32_avx2(R, (const float *)x + off, K[0], s1, s2); /* K: the channel's k0 */
        return;
    }
#endif
    const int pf = b->eng == ENG_ROWS && L > PLANE_LANES && b->v.s != L;
#if BN_HAVE_NT
    if (b->dt == CUDNN_DATA_FLOAT && L > PLANE_LANES && !pf && !bn_avx512() && bn_avx2()) {
        lstats_f32_avx2(L, R, (const float *)x + off, rs, K, s1, s2);
        return;
    }
#endif
    if (b->dt == CUDNN_DATA_FLOAT) {
        stats_f32(L, R, (const float *)x + off, rs, K, s1, s2, pf);
    } else if (b->dt == CUDNN_DATA_DOUBLE) {
        stats_f64(L, R, (const double *)x + off, rs, K, s1, s2, pf);
    } else {
        double v[LMAX];
        for (int64_t r = 0; r < R; r++) {
            fd_cpu_load(b->dt, at(x, b, off + r * rs), 1, L, v);
            for (int j = 0; j < L; j++) {
                double d = v[j] - K[j];
                s1[j] += d;
                s2[j] += d * d;
            }
        }
    }
}

/* Per-lane parameters of an output or backward pass. */
typedef struct {
    double sc[LMAX], bi[LMAX], mean[LMAX], inv[LMAX];
    double coef[LMAX], mg[LMAX], mgx[LMAX]; /* backward */
    int fused;                              /* training, vector kernels: y = x fa + fb */
    int64_t pfn; /* plane walk's element pass: prefetch x this many elements on (0: none) */
    int pfdy;    /* ... and dy */
    double fa[LMAX], fb[LMAX];              /* fa = scale inv, fb = bias - mean fa */
    const rbf_t *rf;                        /* the rows walk in float (rows_f32), else NULL */
} lanes_t;

/* rf's mean (as two floats) and inv from q's first L lanes, the rest of rf zeroed. */
static void rb_stats(rbf_t *rf, const lanes_t *q, int L)
{
    memset(rf, 0, sizeof *rf);
    for (int j = 0; j < L; j++) {
        rf->mean[j] = (float)q->mean[j], rf->inv[j] = (float)q->inv[j];
        rf->mlo[j] = (float)(q->mean[j] - (double)rf->mean[j]);
    }
}

#if BN_HAVE_NT
/* Lane 0 of rf's backward factors in every lane (the plane walk: one channel's values in a
 * packed row of up to LMAX lanes and its wrap). */
static void rb_splat(rbf_t *f)
{
    for (int j = 1; j < LMAX + 16; j++) {
        f->mean[j] = f->mean[0], f->mlo[j] = f->mlo[0], f->inv[j] = f->inv[0];
        f->coef[j] = f->coef[0], f->mg[j] = f->mg[0], f->mgx[j] = f->mgx[0];
    }
}
#endif

/* Training's output pass on the vector kernels: the statistics differ from ref's in the last
 * bits anyway, so the per-element work shrinks to a multiply and an add (in double). */
FD_CPU_CLONES static void fuse_lanes(int L, const double *restrict sc, const double *restrict bi,
                                     const double *restrict mean, const double *restrict inv,
                                     double *restrict fa, double *restrict fb)
{
    for (int j = 0; j < L; j++) { /* per activation once per position: vectorised */
        fa[j] = sc[j] * inv[j];
        fb[j] = bi[j] - mean[j] * fa[j];
    }
}

static void fuse(lanes_t *q, int L)
{
    q->fused = 1;
    fuse_lanes(L, q->sc, q->bi, q->mean, q->inv, q->fa, q->fb);
}

static void seg_out(const bn_plan_t *b, const fd_bn_args_t *a, int L, int64_t R, int64_t off,
                    int64_t rs, const lanes_t *q, int nt)
{
    const fd_bn_problem_t *p = b->p;
#if BN_HAVE_NT
    if (q->rf != NULL && b->rf32 == 1) {
        rbout_f32_avx512(L, R, (const float *)a->x + off, (float *)a->y + off, rs, q->rf, a->alpha,
                         a->beta, nt);
        return;
    }
    if (q->rf != NULL) {
        rbout_f32_avx2(L, R, (const float *)a->x + off, (float *)a->y + off, rs, q->rf, a->alpha,
                       a->beta, nt);
        return;
    }
#endif
    if (b->fast && b->eng == ENG_PLANE && (R == 1 || rs == L)) {
        /* one contiguous run, the parameters the same in every lane */
        const int ok = nt && ((uintptr_t)at(a->y, b, off) % 16 == 0);
        const int64_t n = (int64_t)L * R;
#if BN_HAVE_NT
        if (b->dt == CUDNN_DATA_FLOAT && bn_avx512()) {
            if (q->fused)
                outf_u_f32_avx512(n, (const float *)a->x + off, (float *)a->y + off, q->fa[0],
                                  q->fb[0], a->alpha, a->beta, ok,
                                  q->pfn ? (const float *)a->x + off + q->pfn : NULL);
            else
                out_u_f32_avx512(n, (const float *)a->x + off, (float *)a->y + off, q->sc[0],
                                 q->mean[0], q->inv[0], q->bi[0], a->alpha, a->beta, ok,
                                 q->pfn ? (const float *)a->x + off + q->pfn : NULL);
            return;
        }
        if (b->dt == CUDNN_DATA_FLOAT && q->fused && bn_avx2()) {
            outf_u_f32_avx2(n, (const float *)a->x + off, (float *)a->y + off, q->fa[0], q->fb[0],
                            a->alpha, a->beta, ok,
                            q->pfn ? (const float *)a->x + off + q->pfn : NULL);
            return;
        }
#endif
        if (q->fused && b->dt == CUDNN_DATA_FLOAT)
            outf_u_f32(n, (const float *)a->x + off, (float *)a->y + off, q->fa[0], q->fb[0],
                       a->alpha, a->beta, ok);
        else if (q->fused)
            outf_u_f64(n, (const double *)a->x + off, (double *)a->y + off, q->fa[0], q->fb[0],
                       a->alpha, a->beta, ok);
        else if (b->dt == CUDNN_DATA_FLOAT)
            out_u_f32(n, (const float *)a->x + off, (float *)a->y + off, q->sc[0], q->mean[0],
                      q->inv[0], q->bi[0], a->alpha, a->beta, ok);
        else
            out_u_f64(n, (const double *)a->x + off, (double *)a->y + off, q->sc[0], q->mean[0],
                      q->inv[0], q->bi[0], a->alpha, a->beta, ok);
        return;
    }
    if (b->fast) {
        int ok = nt && ((uintptr_t)at(a->y, b, off) % 16 == 0) && (rs * (int64_t)b->esz) % 16 == 0;
#if BN_HAVE_NT
        if (b->dt == CUDNN_DATA_FLOAT && bn_avx512()) {
            const float *x = (const float *)a->x + off;
            float *y = (float *)a->y + off;
            if (q->fused)
                outf_f32_avx512(L, R, x, y, rs, q->fa, q->fb, a->alpha, a->beta, nt);
            else
                out_f32_avx512(L, R, x, y, rs, q->sc, q->mean, q->inv, q->bi, a->alpha, a->beta,
                               nt);
            return;
        }
        if (b->dt == CUDNN_DATA_FLOAT && bn_avx2()) {
            const float *x = (const float *)a->x + off;
            float *y = (float *)a->y + off;
            if (q->fused)
                outf_f32_avx2(L, R, x, y, rs, q->fa, q->fb, a->alpha, a->beta, nt);
            else
                out_f32_avx2(L, R, x, y, rs, q->sc, q->mean, q->inv, q->bi, a->alpha, a->beta, nt);
            return;
        }
#endif
        if (q->fused && b->dt == CUDNN_DATA_FLOAT)
            outf_f32(L, R, (const float *)a->x + off, (float *)a->y + off, rs, q->fa, q->fb,
                     a->alpha, a->beta, ok);
        else if (q->fused)
            outf_f64(L, R, (const double *)a->x + off, (double *)a->y + off, rs, q->fa, q->fb,
                     a->alpha, a->beta, ok);
        else if (b->dt == CUDNN_DATA_FLOAT)
            out_f32(L, R, (const float *)a->x + off, (float *)a->y + off, rs, q->sc, q->mean,
                    q->inv, q->bi, a->alpha, a->beta, ok);
        else
            out_f64(L, R, (const double *)a->x + off, (double *)a->y + off, rs, q->sc, q->mean,
                    q->inv, q->bi, a->alpha, a->beta, ok);
        return;
    }
    double u[LMAX], z[LMAX];
    for (int64_t r = 0; r < R; r++) {
        int64_t o = off + r * rs;
        fd_cpu_load(b->dt, at(a->x, b, o), 1, L, u);
        for (int j = 0; j < L; j++)
            u[j] = q->sc[j] * (u[j] - q->mean[j]) * q->inv[j] + q->bi[j];
        if (p->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION) {
            fd_cpu_load(b->dt, at(a->z, b, o), 1, L, z);
            for (int j = 0; j < L; j++)
                u[j] += z[j];
        }
        if (p->ops != CUDNN_BATCHNORM_OPS_BN)
            for (int j = 0; j < L; j++)
                u[j] = fd_act_fwd_value(&p->act, u[j]);
        fd_cpu_store(b->dt, at(a->y, b, o), 1, L, u, a->alpha, a->beta);
    }
}

/* g = dy * act'(u) and xhat of one row of L lanes (the generic path). */
static void grad_row(const bn_plan_t *b, const fd_bn_args_t *a, int L, int64_t o, const lanes_t *q,
                     double *g, double *xh)
{
    const fd_bn_problem_t *p = b->p;
    fd_cpu_load(b->dt, at(a->x, b, o), 1, L, xh);
    fd_cpu_load(b->dt, at(a->dy, b, o), 1, L, g);
    for (int j = 0; j < L; j++)
        xh[j] = (xh[j] - q->mean[j]) * q->inv[j];
    if (p->ops == CUDNN_BATCHNORM_OPS_BN_ACTIVATION)
        for (int j = 0; j < L; j++)
            g[j] = g[j] * act_slope(&p->act, q->sc[j] * xh[j] + q->bi[j]);
}

static void seg_bsum(const bn_plan_t *b, const fd_bn_args_t *a, int L, int64_t R, int64_t off,
                     int64_t rs, const lanes_t *q, double *sg, double *sgx)
{
#if BN_HAVE_NT
    if (q->rf != NULL && (b->rf32 == 1 || b->pb32 == 1)) {
        rbs_f32_avx512(L, R, (const float *)a->x + off, (const float *)a->dy + off, rs, q->rf, sg,
                       sgx);
        return;
    }
    if (q->rf != NULL) {
        rbs_f32_avx2(L, R, (const float *)a->x + off, (const float *)a->dy + off, rs, q->rf, sg,
                     sgx);
        return;
    }
    if (b->fast && b->eng == ENG_PLANE && b->dt == CUDNN_DATA_FLOAT && L == PLANE_LANES &&
        rs == L && !bn_avx512() && bn_avx2()) {
        pbsum_f32_avx2(R, (const float *)a->x + off, (const float *)a->dy + off, q->mean[0],
                       q->inv[0], sg, sgx); /* the channel's mean / inv in every lane */
        return;
    }
#endif
    const int pf = b->eng == ENG_ROWS && L > PLANE_LANES && b->v.s != L;
#if BN_HAVE_NT
    if (b->fast && b->dt == CUDNN_DATA_FLOAT && L > PLANE_LANES && !pf && !bn_avx512() &&
        bn_avx2()) {
        lbsum_f32_avx2(L, R, (const float *)a->x + off, (const float *)a->dy + off, rs, q->mean,
                       q->inv, sg, sgx);
        return;
    }
#endif
    if (b->fast) {
        if (b->dt == CUDNN_DATA_FLOAT)
            bsum_f32(L, R, (const float *)a->x + off, (const float *)a->dy + off, rs, q->mean,
                     q->inv, sg, sgx, pf);
        else
            bsum_f64(L, R, (const double *)a->x + off, (const double *)a->dy + off, rs, q->mean,
                     q->inv, sg, sgx, pf);
        return;
    }
    double g[LMAX], xh[LMAX];
    for (int64_t r = 0; r < R; r++) {
        grad_row(b, a, L, off + r * rs, q, g, xh);
        for (int j = 0; j < L; j++) {
            sg[j] += g[j];
            sgx[j] += g[j] * xh[j];
        }
    }
}

static void seg_bdx(const bn_plan_t *b, const fd_bn_args_t *a, int L, int64_t R, int64_t off,
                    int64_t rs, const lanes_t *q, int nt)
{
#if BN_HAVE_NT
    /* the plane walk prefetches the next channel's x and dy during the element pass */
    const int pf = b->pb32 && q->pfn;
    const float *pf0 = pf ? (const float *)a->x + off + q->pfn : NULL;
    const float *pf1 = pf && q->pfdy ? (const float *)a->dy + off + q->pfn : NULL;
    if (q->rf != NULL && (b->rf32 == 1 || b->pb32 == 1)) {
        rbdx_f32_avx512(L, R, (const float *)a->x + off, (const float *)a->dy + off,
                        (float *)a->dx + off, rs, q->rf, a->alpha, a->beta, nt, pf0, pf1);
        return;
    }
    if (q->rf != NULL) {
        rbdx_f32_avx2(L, R, (const float *)a->x + off, (const float *)a->dy + off,
                      (float *)a->dx + off, rs, q->rf, a->alpha, a->beta, nt, pf0, pf1);
        return;
    }
#endif
    if (b->fast && b->eng == ENG_PLANE && (R == 1 || rs == L)) {
        const int ok = nt && ((uintptr_t)at(a->dx, b, off) % 16 == 0);
        const int64_t n = (int64_t)L * R;
#if BN_HAVE_NT
        if (b->dt == CUDNN_DATA_FLOAT && bn_avx512()) {
            bdx_u_f32_avx512(n, (const float *)a->x + off, (const float *)a->dy + off,
                             (float *)a->dx + off, q->mean[0], q->inv[0], q->coef[0], q->mg[0],
                             q->mgx[0], a->alpha, a->beta, ok,
                             q->pfn ? (const float *)a->x + off + q->pfn : NULL,
                             q->pfn && q->pfdy ? (const float *)a->dy + off + q->pfn : NULL);
            return;
        }
        if (b->dt == CUDNN_DATA_FLOAT && bn_avx2()) {
            bdx_u_f32_avx2(n, (const float *)a->x + off, (const float *)a->dy + off,
                           (float *)a->dx + off, q->mean[0], q->inv[0], q->coef[0], q->mg[0],
                           q->mgx[0], a->alpha, a->beta, ok,
                           q->pfn ? (const float *)a->x + off + q->pfn : NULL,
                           q->pfn && q->pfdy ? (const float *)a->dy + off + q->pfn : NULL);
            return;
        }
#endif
        if (b->dt == CUDNN_DATA_FLOAT)
            bdx_u_f32(n, (const float *)a->x + off, (const float *)a->dy + off,
                      (float *)a->dx + off, q->mean[0], q->inv[0], q->coef[0], q->mg[0], q->mgx[0],
                      a->alpha, a->beta, ok);
        else
            bdx_u_f64(n, (const double *)a->x + off, (const double *)a->dy + off,
                      (double *)a->dx + off, q->mean[0], q->inv[0], q->coef[0], q->mg[0], q->mgx[0],
                      a->alpha, a->beta, ok);
        return;
    }
    if (b->fast) {
        int ok = nt && ((uintptr_t)at(a->dx, b, off) % 16 == 0) && (rs * (int64_t)b->esz) % 16 == 0;
#if BN_HAVE_NT
        if (b->dt == CUDNN_DATA_FLOAT && bn_avx512()) {
            bdx_f32_avx512(L, R, (const float *)a->x + off, (const float *)a->dy + off,
                           (float *)a->dx + off, rs, q->mean, q->inv, q->coef, q->mg, q->mgx,
                           a->alpha, a->beta, nt);
            return;
        }
        if (b->dt == CUDNN_DATA_FLOAT && bn_avx2()) {
            bdx_f32_avx2(L, R, (const float *)a->x + off, (const float *)a->dy + off,
                         (float *)a->dx + off, rs, q->mean, q->inv, q->coef, q->mg, q->mgx,
                         a->alpha, a->beta, nt);
            return;
        }
#endif
        if (b->dt == CUDNN_DATA_FLOAT)
            bdx_f32(L, R, (const float *)a->x + off, (const float *)a->dy + off,
                    (float *)a->dx + off, rs, q->mean, q->inv, q->coef, q->mg, q->mgx, a->alpha,
                    a->beta, ok);
        else
            bdx_f64(L, R, (const double *)a->x + off, (const double *)a->dy + off,
                    (double *)a->dx + off, rs, q->mean, q->inv, q->coef, q->mg, q->mgx, a->alpha,
                    a->beta, ok);
        return;
    }
    double g[LMAX], xh[LMAX], v[LMAX];
    for (int64_t r = 0; r < R; r++) {
        int64_t o = off + r * rs;
        grad_row(b, a, L, o, q, g, xh);
        for (int j = 0; j < L; j++)
            v[j] = q->coef[j] * (g[j] - q->mg[j] - xh[j] * q->mgx[j]);
        fd_cpu_store(b->dt, at(a->dx, b, o), 1, L, v, a->alpha, a->beta);
    }
}

/* ---- parameters of a lane set ----------------------------------------------------------------
 * A lane set is L consecutive groups starting at g0: channels (plane, rows walks) or flat image
 * positions (tile walk, NCHW or NHWC order). Parameter index of group (c, s): c * stride[1] + s
 * (s = 0 per channel; per activation the spatial part is packed). */

typedef struct {
    int L;
    int64_t g0;
} lset_t;

/* Loads (store = 0) or blends into (store = 1: t = alpha v + beta t) tensor t at the lane set. */
static void params_io(const bn_plan_t *b, const struct cudnnTensorStruct *t, const void *base,
                      const lset_t *ls, double *v, int store, double alpha, double beta)
{
    const int64_t st1 = t->stride[1];
    if (b->eng == ENG_TILE && b->tile_nhwc && t->dtype == CUDNN_DATA_FLOAT && b->C > 1 &&
        ls->g0 % b->C == 0 && ls->L % b->C == 0) {
        /* whole positions in NHWC order: channel outer, the tile's positions inner, so each
         * channel's parameters are one short contiguous run (one page, one or two lines)
         * instead of a page per element; the same values and expressions as below */
        const int64_t P = ls->L / b->C, s0 = ls->g0 / b->C;
        for (int64_t c = 0; c < b->C; c++) {
            float *f = (float *)base + c * st1 + s0;
            for (int64_t i = 0; i < P; i++) {
                double *w = v + i * b->C + c;
                if (!store) {
                    *w = f[i];
                } else {
                    double r = alpha * *w;
                    if (beta != 0.0)
                        r += beta * (double)f[i];
                    f[i] = (float)r;
                }
            }
        }
        return;
    }
    for (int j = 0; j < ls->L;) {
        int64_t g = ls->g0 + j, c, s, run, inc;
        if (b->eng != ENG_TILE) {
            c = g, s = 0, run = ls->L - j, inc = st1;
        } else if (!b->tile_nhwc) {
            c = g / b->S, s = g % b->S, run = b->S - s, inc = 1;
        } else {
            s = g / b->C, c = g % b->C, run = b->C - c, inc = st1;
        }
        if (run > ls->L - j)
            run = ls->L - j;
        char *ptr = (char *)base + (c * st1 + s) * (int64_t)fd_dtype_size(t->dtype);
        if (inc != 1 && t->dtype == CUDNN_DATA_FLOAT) {
            /* strided (per activation, NHWC order): scalar, as the vectorised forms would
             * gather / scatter, which is slower per element than this on current cores */
            float *f = (float *)(void *)ptr;
            for (int64_t i = 0; i < run; i++) {
                if (store) {
                    double r = alpha * v[j + i];
                    if (beta != 0.0)
                        r += beta * (double)f[i * inc];
                    f[i * inc] = (float)r;
                } else {
                    v[j + i] = f[i * inc];
                }
            }
        } else if (store) {
            fd_cpu_store(t->dtype, ptr, inc, (int)run, v + j, alpha, beta);
        } else {
            fd_cpu_load(t->dtype, ptr, inc, (int)run, v + j);
        }
        j += (int)run;
    }
}

/* mean = K + s1 / M, biased var = (s2 - s1 s1 / M) / M (clamped at 0) and the unbiased one. */
FD_CPU_CLONES static void moments(int L, double M, const double *restrict K,
                                  const double *restrict s1, const double *restrict s2,
                                  double *restrict mean, double *restrict var, double *restrict unb)
{
    const double rM = 1.0 / M; /* exact for M a power of 2 (then these are ref's divisions) */
    for (int j = 0; j < L; j++) {
        double m1 = s1[j] * rM;
        double v = (s2[j] - s1[j] * m1) * rM;
        v = v < 0.0 ? 0.0 : v; /* rounding; NaN stays */
        mean[j] = K[j] + m1;
        var[j] = v;
        /* unbiased: var * M / (M - 1); for M = 1 that is 0 / 0 = NaN, as cuDNN 9.19 gives */
        unb[j] = v * M / (M - 1.0);
    }
}

static void stats_outputs(const bn_plan_t *b, const fd_bn_args_t *a, const lset_t *ls,
                          double *mean, double *inv, double *unb);

/* Mean and 1 / sqrt(var + eps) from the shifted sums; the training outputs. */
static void finish_stats(const bn_plan_t *b, const fd_bn_args_t *a, const lset_t *ls,
                         const double *K, const double *s1, const double *s2, double *mean,
                         double *inv, int outputs)
{
    double unb[LMAX];
    moments(ls->L, (double)b->M, K, s1, s2, mean, inv, unb);
    inv_sqrt(ls->L, inv, b->p->epsilon);
    if (outputs)
        stats_outputs(b, a, ls, mean, inv, unb);
}

/* The training outputs of a lane set: running mean / variance (unbiased), saved mean / inv. */
static void stats_outputs(const bn_plan_t *b, const fd_bn_args_t *a, const lset_t *ls,
                          double *mean, double *inv, double *unb)
{
    const fd_bn_problem_t *p = b->p;
    if (a->run_mean != NULL)
        params_io(b, &p->mv, a->run_mean, ls, mean, 1, a->factor, 1.0 - a->factor);
    if (a->run_var != NULL)
        params_io(b, &p->mv, a->run_var, ls, unb, 1, a->factor, 1.0 - a->factor);
    if (a->save_mean != NULL) {
        params_io(b, &p->mv, a->save_mean, ls, mean, 1, 1.0, 0.0);
        params_io(b, &p->mv, a->save_inv, ls, inv, 1, 1.0, 0.0);
    }
}

/* Backward: the lanes' mean / inv, saved or recomputed by the caller, and scale / bias. */
static void load_affine(const bn_plan_t *b, const fd_bn_args_t *a, const lset_t *ls, lanes_t *q)
{
    const fd_bn_problem_t *p = b->p;
    params_io(b, &p->sb, a->scale, ls, q->sc, 0, 0, 0);
    if (a->bias != NULL)
        params_io(b, &p->sb, a->bias, ls, q->bi, 0, 0, 0);
    else
        for (int j = 0; j < ls->L; j++)
            q->bi[j] = 0.0;
}

/* Saved mean / inverse std-dev of a lane set, as given. */
static void load_saved(const bn_plan_t *b, const fd_bn_args_t *a, const lset_t *ls, lanes_t *q)
{
    params_io(b, &b->p->mv, a->mean, ls, q->mean, 0, 0, 0);
    params_io(b, &b->p->mv, a->var, ls, q->inv, 0, 0, 0);
}

/* Backward after the sums: the per-lane factors of dx. */
FD_CPU_CLONES static void bsum_factors(int L, double M, const double *restrict sg,
                                       const double *restrict sgx, const double *restrict sc,
                                       const double *restrict inv, double *restrict mg,
                                       double *restrict mgx, double *restrict coef)
{
    for (int j = 0; j < L; j++) { /* per activation two divisions per position: vectorised */
        mg[j] = sg[j] / M;
        mgx[j] = sgx[j] / M;
        coef[j] = sc[j] * inv[j];
    }
}

static void finish_bsums(const bn_plan_t *b, int L, const double *sg, const double *sgx, lanes_t *q)
{
    bsum_factors(L, (double)b->M, sg, sgx, q->sc, q->inv, q->mg, q->mgx, q->coef);
}

static void store_grads(const bn_plan_t *b, const fd_bn_args_t *a, const lset_t *ls, double *sg,
                        double *sgx)
{
    const fd_bn_problem_t *p = b->p;
    params_io(b, &p->sb, a->dscale, ls, sgx, 1, a->alpha_param, a->beta_param);
    params_io(b, &p->sb, a->dbias, ls, sg, 1, a->alpha_param, a->beta_param);
}

/* ---- the plane walk (per channel, spatial run unit-stride) ---------------------------------- */

/* A channel's N planes as rows of W lanes plus a tail row; SEG sees each segment. The sums
 * (lanes outer, accumulators in registers) take rows of b->pl, the element passes (rows outer)
 * rows of LMAX: the parameters are the same in every lane, so only the loop overhead differs. */
#define PLANE_FOR_EACH(b, c, W, SEG)                                                               \
    do {                                                                                           \
        const int w_ = (W);                                                                        \
        const int64_t full_ = (b)->S / w_, tail_ = (b)->S % w_;                                    \
        for (int64_t n_ = 0; n_ < (b)->N; n_++) {                                                  \
            int64_t off_ = n_ * (b)->v.n + (c) * (b)->v.c;                                         \
            if (full_ > 0)                                                                         \
                SEG(w_, full_, off_, w_);                                                          \
            if (tail_ > 0)                                                                         \
                SEG((int)tail_, 1, off_ + full_ * w_, 0);                                          \
        }                                                                                          \
    } while (0)

/* The plane walk's per-lane arrays: rows are never wider than S (nor LMAX). */
static int plane_width(const bn_plan_t *b)
{
    return b->S < LMAX ? (int)b->S : LMAX;
}

static void bcast(const bn_plan_t *b, double *v, double x)
{
    for (int j = 0; j < plane_width(b); j++)
        v[j] = x;
}

/* Mean / inv of channel c in lanes[0] (broadcast over the plane lanes). */
static void plane_stats(const bn_plan_t *b, const fd_bn_args_t *a, int64_t c, lanes_t *q,
                        int outputs)
{
    double K[LMAX], s1[LMAX] = {0}, s2[LMAX] = {0};
    double k0;
    fd_cpu_load(b->dt, at(a->x, b, c * b->v.c), 1, 1, &k0);
    bcast(b, K, k0);
    const int w = b->fast ? PLANE_SLANES : b->pl;
#define SEG_STATS(L, R, off, rs) seg_stats(b, a->x, L, R, off, rs, K, s1, s2)
    PLANE_FOR_EACH(b, c, w, SEG_STATS);
#undef SEG_STATS
    double t1 = 0.0, t2 = 0.0;
    for (int j = 0; j < w; j++)
        t1 += s1[j], t2 += s2[j];
    lset_t ls = {1, c};
    finish_stats(b, a, &ls, &k0, &t1, &t2, q->mean, q->inv, outputs);
    bcast(b, q->mean, q->mean[0]);
    bcast(b, q->inv, q->inv[0]);
}

static void plane_forward(const bn_plan_t *b, const fd_bn_args_t *a, int64_t c, lanes_t *q, int nt,
                          int fused)
{
    lset_t ls = {1, c};
    params_io(b, &b->p->sb, a->scale, &ls, q->sc, 0, 0, 0);
    params_io(b, &b->p->sb, a->bias, &ls, q->bi, 0, 0, 0);
    bcast(b, q->sc, q->sc[0]);
    bcast(b, q->bi, q->bi[0]);
    if (fused)
        fuse(q, plane_width(b));
#define SEG_OUT(L, R, off, rs) seg_out(b, a, L, R, off, rs, q, nt)
    PLANE_FOR_EACH(b, c, LMAX, SEG_OUT);
#undef SEG_OUT
}

static void plane_backward(const bn_plan_t *b, const fd_bn_args_t *a, int64_t c, lanes_t *q, int nt)
{
    lset_t ls = {1, c};
    if (a->mean != NULL) {
        load_saved(b, a, &ls, q);
        bcast(b, q->mean, q->mean[0]);
        bcast(b, q->inv, q->inv[0]);
    } else {
        plane_stats(b, a, c, q, 0);
    }
    load_affine(b, a, &ls, q);
    bcast(b, q->sc, q->sc[0]);
    bcast(b, q->bi, q->bi[0]);
#if BN_HAVE_NT
    rbf_t rf;
    if (b->pb32) { /* the channel's mean / inv in every lane */
        rb_stats(&rf, q, 1);
        rb_splat(&rf);
        q->rf = &rf;
    }
#endif
    double sg[LMAX] = {0}, sgx[LMAX] = {0};
#define SEG_BSUM(L, R, off, rs) seg_bsum(b, a, L, R, off, rs, q, sg, sgx)
    PLANE_FOR_EACH(b, c, b->pl, SEG_BSUM);
#undef SEG_BSUM
    double t1 = 0.0, t2 = 0.0;
    for (int j = 0; j < b->pl; j++)
        t1 += sg[j], t2 += sgx[j];
    bcast(b, sg, t1);
    bcast(b, sgx, t2);
    finish_bsums(b, plane_width(b), sg, sgx, q);
#if BN_HAVE_NT
    if (b->pb32) { /* and its backward factors */
        rf.coef[0] = (float)q->coef[0], rf.mg[0] = (float)q->mg[0], rf.mgx[0] = (float)q->mgx[0];
        rb_splat(&rf);
    }
#endif
#define SEG_BDX(L, R, off, rs) seg_bdx(b, a, L, R, off, rs, q, nt)
    PLANE_FOR_EACH(b, c, LMAX, SEG_BDX);
#undef SEG_BDX
    store_grads(b, a, &ls, &t1, &t2);
    q->rf = NULL;
}

/* ---- the rows walk (per channel, C unit-stride) --------------------------------------------
 * Rows are the N * S (n, s) positions; a row block is a fixed range of them. */

typedef struct {
    int64_t nblk, rows_per; /* row blocks of the statistics / sums */
    int64_t nchunk, chunk;  /* row chunks of the output pass */
} rows_part_t;

static rows_part_t rows_part(const bn_plan_t *b, int L)
{
    rows_part_t r;
    const int64_t rows = b->N * b->S;
    int64_t nblk = rows * L / ROW_BLOCK_MIN;
    nblk = nblk < 1 ? 1 : nblk > ROW_BLOCKS_MAX ? ROW_BLOCKS_MAX : nblk;
    r.rows_per = (rows + nblk - 1) / nblk;
    r.nblk = (rows + r.rows_per - 1) / r.rows_per;
    r.chunk = (FD_CPU_UNIT + L - 1) / L;
    r.nchunk = (rows + r.chunk - 1) / r.chunk;
    return r;
}

/* Rows [r0, r1) in pieces that stay inside one image and within RB rows (L1 between the lane
 * groups of the stats / sums kernels). */
#define ROWS_FOR_EACH(b, L, c0, r0, r1, SEG)                                                       \
    do {                                                                                           \
        const int64_t rb_ = (LMAX * 16) / (L) > 0 ? (LMAX * 16) / (L) : 1;                         \
        for (int64_t r_ = (r0); r_ < (r1);) {                                                      \
            int64_t n_ = r_ / (b)->S, s_ = r_ % (b)->S, cnt_ = (b)->S - s_;                        \
            if (cnt_ > (r1)-r_)                                                                    \
                cnt_ = (r1)-r_;                                                                    \
            if (cnt_ > rb_)                                                                        \
                cnt_ = rb_;                                                                        \
            SEG((L), cnt_, n_ *(b)->v.n + s_ * (b)->v.s + (c0), (b)->v.s);                         \
            r_ += cnt_;                                                                            \
        }                                                                                          \
    } while (0)

/* Sums of lane set ls over all rows by row blocks, merged in block order. kind 0: shifted
 * statistics (s1, s2 with shift K); kind 1: backward sums (sg, sgx with q's mean / inv). */
static void rows_sums(const bn_plan_t *b, const fd_bn_args_t *a, const lset_t *ls, int kind,
                      const double *K, const lanes_t *q, double *t1, double *t2)
{
    const int L = ls->L;
    const rows_part_t rp = rows_part(b, L);
    double part[ROW_BLOCKS_MAX][2][LMAX];
#pragma omp parallel for schedule(static) if (work_of(b) >= FD_CPU_PAR_MIN)
    for (int64_t k = 0; k < rp.nblk; k++) {
        double *p1 = part[k][0], *p2 = part[k][1];
        for (int j = 0; j < L; j++)
            p1[j] = 0.0, p2[j] = 0.0;
        int64_t r0 = k * rp.rows_per,
                r1 = r0 + rp.rows_per < b->N * b->S ? r0 + rp.rows_per : b->N * b->S;
#define SEG_STATS(L_, R, off, rs) seg_stats(b, a->x, L_, R, off, rs, K, p1, p2)
#define SEG_BSUM(L_, R, off, rs) seg_bsum(b, a, L_, R, off, rs, q, p1, p2)
        if (kind == 0)
            ROWS_FOR_EACH(b, L, ls->g0, r0, r1, SEG_STATS);
        else
            ROWS_FOR_EACH(b, L, ls->g0, r0, r1, SEG_BSUM);
#undef SEG_STATS
#undef SEG_BSUM
    }
    for (int j = 0; j < L; j++) {
        double x1 = 0.0, x2 = 0.0;
        for (int64_t k = 0; k < rp.nblk; k++)
            x1 += part[k][0][j], x2 += part[k][1][j];
        t1[j] = x1, t2[j] = x2;
    }
}

/* The output (kind 0) or dx (kind 1) pass over all rows, last chunk first. Rows that follow
 * each other in memory (v.s == L: one channel tile, packed rows) run k at a time as one row of
 * k L lanes with the parameters repeated, which saves the per-row loop overhead of narrow C. */
static void rows_apply(const bn_plan_t *b, const fd_bn_args_t *a, const lset_t *ls, int kind,
                       const lanes_t *q0, int nt)
{
    const int L = ls->L;
    const rows_part_t rp = rows_part(b, L);
    const int64_t rows = b->N * b->S;
    const int kr = b->v.s == L ? LMAX / L : 1;
    lanes_t rep;
    rbf_t repf;
    const lanes_t *q = q0;
    if (kr > 1) {
        for (int i = 0; i < kr * L; i++) {
            int j = i % L;
            rep.sc[i] = q0->sc[j], rep.bi[i] = q0->bi[j], rep.mean[i] = q0->mean[j];
            rep.inv[i] = q0->inv[j];
            if (q0->fused)
                rep.fa[i] = q0->fa[j], rep.fb[i] = q0->fb[j];
            if (kind == 1) /* set by the backward pass only */
                rep.coef[i] = q0->coef[j], rep.mg[i] = q0->mg[j], rep.mgx[i] = q0->mgx[j];
        }
        rep.fused = q0->fused;
        rep.rf = NULL;
        if (q0->rf != NULL) {
            for (int i = 0; i < kr * L; i++) {
                int j = i % L;
                repf.mean[i] = q0->rf->mean[j], repf.mlo[i] = q0->rf->mlo[j];
                repf.inv[i] = q0->rf->inv[j];
                repf.coef[i] = q0->rf->coef[j], repf.mg[i] = q0->rf->mg[j];
                repf.mgx[i] = q0->rf->mgx[j], repf.bi[i] = q0->rf->bi[j];
            }
            rb_wrap(&repf, kr * L);
            rep.rf = &repf;
        }
        q = &rep;
    }
#pragma omp parallel for schedule(static) if (work_of(b) >= FD_CPU_PAR_MIN)
    for (int64_t k = 0; k < rp.nchunk; k++) {
        int64_t r0 = (rp.nchunk - 1 - k) * rp.chunk;
        int64_t r1 = r0 + rp.chunk < rows ? r0 + rp.chunk : rows;
        for (int64_t r = r0; r < r1;) {
            int64_t n = r / b->S, s = r % b->S, cnt = b->S - s;
            if (cnt > r1 - r)
                cnt = r1 - r;
            int64_t off = n * b->v.n + s * b->v.s + ls->g0;
            const int64_t big = cnt / kr, rest = cnt % kr;
            if (big > 0) {
                if (kind == 0)
                    seg_out(b, a, kr * L, big, off, kr * b->v.s, q, nt);
                else
                    seg_bdx(b, a, kr * L, big, off, kr * b->v.s, q, nt);
            }
            if (rest > 0) {
                off += big * kr * b->v.s;
                if (kind == 0)
                    seg_out(b, a, L, rest, off, b->v.s, q, nt);
                else
                    seg_bdx(b, a, L, rest, off, b->v.s, q, nt);
            }
            r += cnt;
        }
        nt_fence(nt);
    }
}

/* ---- the tile walk (per activation) ---------------------------------------------------------
 * Rows are the N images (stride v.n); lanes are positions of the flat packed image. */

/* Mean / inv of lane set ls over all its rows (the rows walk in row blocks, the tile walk in
 * one segment), shifted by its first row. */
static void lane_stats(const bn_plan_t *b, const fd_bn_args_t *a, const lset_t *ls, lanes_t *q,
                       int outputs)
{
    double K[LMAX], s1[LMAX], s2[LMAX];
    fd_cpu_load(b->dt, at(a->x, b, ls->g0), 1, ls->L, K);
    if (b->eng == ENG_ROWS) {
        rows_sums(b, a, ls, 0, K, NULL, s1, s2);
    } else {
        for (int j = 0; j < ls->L; j++)
            s1[j] = 0.0, s2[j] = 0.0;
        seg_stats(b, a->x, ls->L, b->N, ls->g0, b->v.n, K, s1, s2);
    }
    finish_stats(b, a, ls, K, s1, s2, q->mean, q->inv, outputs);
}

/* Backward: the saved statistics, or (both NULL) recomputed from x. */
static void bwd_stats(const bn_plan_t *b, const fd_bn_args_t *a, const lset_t *ls, lanes_t *q)
{
    if (a->mean != NULL)
        load_saved(b, a, ls, q);
    else
        lane_stats(b, a, ls, q, 0);
}

/* ---- the rows ------------------------------------------------------------------------------- */

static int64_t tiles_of(const bn_plan_t *b)
{
    return (b->head > 0) + (b->C * b->S - b->head + LMAX - 1) / LMAX;
}

static lset_t tile_at(const bn_plan_t *b, int64_t t)
{
    lset_t ls;
    if (b->head > 0 && t == 0) {
        ls.g0 = 0, ls.L = b->head;
        return ls;
    }
    ls.g0 = b->head + (t - (b->head > 0)) * LMAX;
    ls.L = (int)(b->C * b->S - ls.g0 < LMAX ? b->C * b->S - ls.g0 : LMAX);
    return ls;
}

/* The tile walk's head for output y: a packed image's rows start on a common 64-byte phase
 * when the image stride is a multiple of 64 bytes; then tiles from the next boundary store
 * whole lines (malloc's large blocks sit 16 bytes past a page: every row of a tile grid from 0
 * started mid-line, and the streaming stores went out 16 bytes at a time: per activation ran
 * at a third of the bandwidth). Below a line or a position's width of misalignment: no head. */
static void tile_head(bn_plan_t *b, const void *y)
{
    const uintptr_t mis = (uintptr_t)y & 63;
    b->head = 0;
    if (b->eng != ENG_TILE || b->tile_nhwc || !b->fast || mis == 0 || mis % b->esz != 0 ||
        (b->N > 1 && (b->v.n * (int64_t)b->esz) % 64 != 0))
        return;
    const int64_t h = (int64_t)(64 - mis) / (int64_t)b->esz;
    b->head = (int)(h < b->C * b->S ? h : 0);
}

/* Forward: prefetches tile t's rows of x and, in NCHW order, its parameter runs (the outputs
 * for writing). Per activation the work per tile is short and ends in a burst of demand loads
 * that the hardware prefetchers start too late; one tile ahead gained 5-10 % (one thread), and
 * into L2 rather than L1 10-20 % more (PREFETCH_ROW).
 * Backward (x, dy and more parameters) lost as much with it, so it has none. Past the end it
 * only touches addresses (no fault). */
static void tile_prefetch(const bn_plan_t *b, const fd_bn_args_t *a, int64_t t)
{
    if (t >= tiles_of(b))
        return;
    const lset_t ls = tile_at(b, t);
    for (int64_t r = 0; r < b->N; r++)
        PREFETCH_ROW(at(a->x, b, ls.g0 + r * b->v.n), ls.L * (int)b->esz);
    if (b->tile_nhwc)
        return; /* a few bytes per channel: the next tiles reuse the lines */
    const void *in[] = {a->scale, a->bias, a->mean, a->var, a->run_mean, a->run_var};
    void *out[] = {a->save_mean, a->save_inv};
    const int64_t es = (int64_t)fd_dtype_size(b->p->sb.dtype), pb = ls.L * es;
    for (int i = 0; i < 6; i++)
        if (in[i] != NULL)
            PREFETCH_ROW((const char *)in[i] + ls.g0 * es, (int)pb);
    for (int i = 0; i < 2; i++)
        if (out[i] != NULL)
            for (int64_t o = 0; o < pb; o += 64)
                __builtin_prefetch((char *)out[i] + ls.g0 * es + o, 1, 3);
}

static lset_t ctile_at(const bn_plan_t *b, int64_t c0)
{
    lset_t ls = {(int)(b->C - c0 < LMAX ? b->C - c0 : LMAX), c0};
    return ls;
}

int fd_bn_fwd_infer_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    bn_plan_t b;
    return plan(problem, &b, why, why_size);
}

size_t fd_bn_fwd_infer_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

/* Estimated mean / inv of a lane set. */
static void load_estimates(const bn_plan_t *b, const fd_bn_args_t *a, const lset_t *ls, lanes_t *q)
{
    load_saved(b, a, ls, q);
    inv_sqrt(ls->L, q->inv, b->p->epsilon);
}

static void load_scale_bias(const bn_plan_t *b, const fd_bn_args_t *a, const lset_t *ls, lanes_t *q)
{
    params_io(b, &b->p->sb, a->scale, ls, q->sc, 0, 0, 0);
    params_io(b, &b->p->sb, a->bias, ls, q->bi, 0, 0, 0);
}

cudnnStatus_t fd_bn_fwd_infer_cpu_run(const void *problem, const void *args)
{
    const fd_bn_args_t *a = args;
    bn_plan_t b;
    char why[128];
    plan(problem, &b, why, sizeof why);
    tile_head(&b, a->y);
    const int nt = nt_wanted(&b, a->beta);
    if (b.eng == ENG_PLANE) {
#pragma omp parallel for schedule(static) if (work_of(&b) >= FD_CPU_PAR_MIN)
        for (int64_t c = 0; c < b.C; c++) {
            lanes_t q;
            q.fused = 0, q.pfn = 0, q.pfdy = 0, q.rf = NULL;
            lset_t ls = {1, c};
            load_estimates(&b, a, &ls, &q);
            bcast(&b, q.mean, q.mean[0]);
            bcast(&b, q.inv, q.inv[0]);
            plane_forward(&b, a, c, &q, nt, 0);
            nt_fence(nt);
        }
    } else if (b.eng == ENG_ROWS) {
        for (int64_t c0 = 0; c0 < b.C; c0 += LMAX) {
            lanes_t q;
            q.fused = 0, q.pfn = 0, q.pfdy = 0, q.rf = NULL;
            lset_t ls = ctile_at(&b, c0);
            load_estimates(&b, a, &ls, &q);
            load_scale_bias(&b, a, &ls, &q);
            rows_apply(&b, a, &ls, 0, &q, nt);
        }
    } else {
#if BN_HAVE_NT
        if (pa_nhwc(&b) || pa_nhwc8(&b)) {
            const int64_t nblk = (b.S + PA_NB - 1) / PA_NB;
            const int z = pa_nhwc(&b);
#pragma omp parallel for schedule(static) if (work_of(&b) >= FD_CPU_PAR_MIN)
            for (int64_t k = 0; k < nblk; k++) {
                (z ? pa_nhwc_infer_f32_avx512 : pa_nhwc_infer_f32_avx2)(&b, a, k, nt);
                nt_fence(nt);
            }
            return CUDNN_STATUS_SUCCESS;
        }
#endif
        const int direct = pa_direct(&b);
#pragma omp parallel for schedule(static) if (work_of(&b) >= FD_CPU_PAR_MIN)
        for (int64_t t = 0; t < tiles_of(&b); t++) {
#if BN_HAVE_NT
            if (direct) {
                lset_t ls = tile_at(&b, t);
                (direct == 1 ? pa_infer_direct_f32_avx512 : pa_infer_direct_f32_avx2)(
                    ls.L, b.N, (const float *)a->x + ls.g0, (float *)a->y + ls.g0, b.v.n,
                    (const float *)a->scale + ls.g0, (const float *)a->bias + ls.g0,
                    (const float *)a->mean + ls.g0, (const float *)a->var + ls.g0, b.p->epsilon,
                    a->alpha, a->beta, nt, PA_PF);
                nt_fence(nt);
                continue;
            }
#endif
            tile_prefetch(&b, a, t + 1);
            lanes_t q;
            q.fused = 0, q.pfn = 0, q.pfdy = 0, q.rf = NULL;
            lset_t ls = tile_at(&b, t);
            load_scale_bias(&b, a, &ls, &q);
#if BN_HAVE_NT
            if (pa_avx512(&b)) {
                load_saved(&b, a, &ls, &q); /* q.inv holds the variance */
                pa_infer_f32_avx512(ls.L, b.N, (const float *)a->x + ls.g0, (float *)a->y + ls.g0,
                                    b.v.n, q.sc, q.bi, q.mean, q.inv, b.p->epsilon, a->alpha,
                                    a->beta, nt);
                nt_fence(nt);
                continue;
            }
#endif
            load_estimates(&b, a, &ls, &q);
            if (b.fast)
                fuse(&q, ls.L);
            seg_out(&b, a, ls.L, b.N, ls.g0, b.v.n, &q, nt);
            nt_fence(nt);
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

int fd_bn_fwd_train_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    bn_plan_t b;
    return plan(problem, &b, why, why_size);
}

size_t fd_bn_fwd_train_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_bn_fwd_train_cpu_run(const void *problem, const void *args)
{
    const fd_bn_args_t *a = args;
    bn_plan_t b;
    char why[128];
    plan(problem, &b, why, sizeof why);
    tile_head(&b, a->y);
    const int nt = nt_wanted(&b, a->beta);
#if BN_HAVE_NT
    b.rf32 = rows_f32(&b);
#endif
    if (b.eng == ENG_PLANE) {
#pragma omp parallel for schedule(static) if (work_of(&b) >= FD_CPU_PAR_MIN)
        for (int64_t c = 0; c < b.C; c++) {
            lanes_t q;
            q.fused = 0, q.pfn = 0, q.pfdy = 0, q.rf = NULL;
            if (c + 1 < b.C)
                q.pfn = b.v.c; /* the next channel, into L2 during the output pass */
            plane_stats(&b, a, c, &q, 1);
            plane_forward(&b, a, c, &q, nt, b.fast);
            nt_fence(nt);
        }
    } else if (b.eng == ENG_ROWS) {
        for (int64_t c0 = 0; c0 < b.C; c0 += LMAX) {
            lanes_t q;
            q.fused = 0, q.pfn = 0, q.pfdy = 0, q.rf = NULL;
            lset_t ls = ctile_at(&b, c0);
            lane_stats(&b, a, &ls, &q, 1);
            load_scale_bias(&b, a, &ls, &q);
            rbf_t rf;
            if (b.rf32) {
                rb_stats(&rf, &q, ls.L);
                for (int j = 0; j < ls.L; j++)
                    rf.coef[j] = (float)(q.sc[j] * q.inv[j]), rf.bi[j] = (float)q.bi[j];
                rb_wrap(&rf, ls.L);
                q.rf = &rf;
            } else if (b.fast) {
                fuse(&q, ls.L);
            }
            rows_apply(&b, a, &ls, 0, &q, nt);
        }
    } else {
#if BN_HAVE_NT
        if (pa_nhwc(&b) || pa_nhwc8(&b)) {
            const int64_t nblk = (b.S + PA_NB - 1) / PA_NB;
            const int z = pa_nhwc(&b);
#pragma omp parallel for schedule(static) if (work_of(&b) >= FD_CPU_PAR_MIN)
            for (int64_t k = 0; k < nblk; k++) {
                (z ? pa_nhwc_train_f32_avx512 : pa_nhwc_train_f32_avx2)(&b, a, k, nt,
                                                                        bn_team() == 1);
                nt_fence(nt);
            }
            return CUDNN_STATUS_SUCCESS;
        }
#endif
        const int direct = pa_direct(&b);
#pragma omp parallel for schedule(static) if (work_of(&b) >= FD_CPU_PAR_MIN)
        for (int64_t t = 0; t < tiles_of(&b); t++) {
#if BN_HAVE_NT
            if (direct) {
                lset_t ls = tile_at(&b, t);
                pa_outs_t o = {NULL, NULL, NULL, NULL, a->factor};
                if (a->run_mean != NULL)
                    o.run_mean = (float *)a->run_mean + ls.g0;
                if (a->run_var != NULL)
                    o.run_var = (float *)a->run_var + ls.g0;
                if (a->save_mean != NULL)
                    o.save_mean = (float *)a->save_mean + ls.g0,
                    o.save_inv = (float *)a->save_inv + ls.g0;
                (direct == 1 ? pa_train_direct_f32_avx512 : pa_train_direct_f32_avx2)(
                    ls.L, b.N, (const float *)a->x + ls.g0, (float *)a->y + ls.g0, b.v.n,
                    (const float *)a->scale + ls.g0, (const float *)a->bias + ls.g0, b.p->epsilon,
                    (double)b.M, &o, a->alpha, a->beta, nt, PA_PF);
                nt_fence(nt);
                continue;
            }
#endif
            tile_prefetch(&b, a, t + 1);
            lanes_t q;
            q.fused = 0, q.pfn = 0, q.pfdy = 0, q.rf = NULL;
            lset_t ls = tile_at(&b, t);
#if BN_HAVE_NT
            if (pa_avx512(&b)) {
                double unb[LMAX];
                load_scale_bias(&b, a, &ls, &q);
                pa_train_f32_avx512(ls.L, b.N, (const float *)a->x + ls.g0, (float *)a->y + ls.g0,
                                    b.v.n, q.sc, q.bi, b.p->epsilon, (double)b.M, q.mean, q.inv,
                                    unb, a->alpha, a->beta, nt);
                stats_outputs(&b, a, &ls, q.mean, q.inv, unb);
                nt_fence(nt);
                continue;
            }
#endif
            lane_stats(&b, a, &ls, &q, 1);
            load_scale_bias(&b, a, &ls, &q);
            if (b.fast)
                fuse(&q, ls.L);
            seg_out(&b, a, ls.L, b.N, ls.g0, b.v.n, &q, nt);
            nt_fence(nt);
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- backward ----------------------------------------------------------------------------- */

int fd_bn_bwd_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    bn_plan_t b;
    return plan(problem, &b, why, why_size);
}

size_t fd_bn_bwd_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_bn_bwd_cpu_run(const void *problem, const void *args)
{
    const fd_bn_args_t *a = args;
    bn_plan_t b;
    char why[128];
    plan(problem, &b, why, sizeof why);
    tile_head(&b, a->dx);
    const int nt = nt_wanted(&b, a->beta);
#if BN_HAVE_NT
    b.rf32 = rows_f32(&b);
#endif
    if (b.eng == ENG_PLANE) {
#if BN_HAVE_NT
        b.pb32 = plane_bwd_f32(&b);
#endif
#pragma omp parallel for schedule(static) if (work_of(&b) >= FD_CPU_PAR_MIN)
        for (int64_t c = 0; c < b.C; c++) {
            lanes_t q;
            q.fused = 0, q.pfn = 0, q.pfdy = 0, q.rf = NULL;
            if (c + 1 < b.C)
                q.pfn = b.v.c, q.pfdy = 1; /* the next channel's x and dy, as forward */
            plane_backward(&b, a, c, &q, nt);
            nt_fence(nt);
        }
    } else if (b.eng == ENG_ROWS) {
        for (int64_t c0 = 0; c0 < b.C; c0 += LMAX) {
            lanes_t q;
            q.fused = 0, q.pfn = 0, q.pfdy = 0, q.rf = NULL;
            lset_t ls = ctile_at(&b, c0);
            bwd_stats(&b, a, &ls, &q);
            load_affine(&b, a, &ls, &q);
            rbf_t rf;
            if (b.rf32) {
                rb_stats(&rf, &q, ls.L);
                q.rf = &rf;
            }
            double sg[LMAX], sgx[LMAX];
            rows_sums(&b, a, &ls, 1, NULL, &q, sg, sgx);
            finish_bsums(&b, ls.L, sg, sgx, &q);
            if (q.rf != NULL) {
                for (int j = 0; j < ls.L; j++)
                    rf.coef[j] = (float)q.coef[j], rf.mg[j] = (float)q.mg[j],
                    rf.mgx[j] = (float)q.mgx[j];
                rb_wrap(&rf, ls.L);
            }
            rows_apply(&b, a, &ls, 1, &q, nt);
            store_grads(&b, a, &ls, sg, sgx);
        }
    } else {
#if BN_HAVE_NT
        if ((pa_nhwc(&b) || pa_nhwc8(&b)) && a->mean != NULL) {
            const int64_t nblk = (b.S + PA_NB - 1) / PA_NB;
            const int z = pa_nhwc(&b);
#pragma omp parallel for schedule(static) if (work_of(&b) >= FD_CPU_PAR_MIN)
            for (int64_t k = 0; k < nblk; k++) {
                (z ? pa_nhwc_bwd_f32_avx512 : pa_nhwc_bwd_f32_avx2)(&b, a, k, nt, bn_team() == 1);
                nt_fence(nt);
            }
            return CUDNN_STATUS_SUCCESS;
        }
#endif
        const int direct = a->mean != NULL ? pa_direct(&b) : 0;
#pragma omp parallel for schedule(static) if (work_of(&b) >= FD_CPU_PAR_MIN)
        for (int64_t t = 0; t < tiles_of(&b); t++) {
#if BN_HAVE_NT
            if (direct) {
                lset_t ls = tile_at(&b, t);
                pa_bwd_t g = {(const float *)a->mean + ls.g0,
                              (const float *)a->var + ls.g0,
                              (const float *)a->scale + ls.g0,
                              (float *)a->dscale + ls.g0,
                              (float *)a->dbias + ls.g0,
                              a->alpha_param,
                              a->beta_param};
                (direct == 1 ? pa_bwd_direct_f32_avx512 : pa_bwd_direct_f32_avx2)(
                    ls.L, b.N, (const float *)a->x + ls.g0, (const float *)a->dy + ls.g0,
                    (float *)a->dx + ls.g0, b.v.n, (double)b.M, &g, a->alpha, a->beta, nt,
                    PA_PF_BWD);
                nt_fence(nt);
                continue;
            }
#endif
            lanes_t q;
            q.fused = 0, q.pfn = 0, q.pfdy = 0, q.rf = NULL;
            lset_t ls = tile_at(&b, t);
            bwd_stats(&b, a, &ls, &q);
            load_affine(&b, a, &ls, &q);
            double sg[LMAX], sgx[LMAX];
            for (int j = 0; j < ls.L; j++)
                sg[j] = 0.0, sgx[j] = 0.0;
            seg_bsum(&b, a, ls.L, b.N, ls.g0, b.v.n, &q, sg, sgx);
            finish_bsums(&b, ls.L, sg, sgx, &q);
            seg_bdx(&b, a, ls.L, b.N, ls.g0, b.v.n, &q, nt);
            store_grads(&b, a, &ls, sg, sgx);
            nt_fence(nt);
        }
    }
    return CUDNN_STATUS_SUCCESS;
}
