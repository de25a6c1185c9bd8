/* SPDX-License-Identifier: MIT */
/*
 * memop.h - what the cpu backend's memory-bound op families share (activation_cpu.c,
 * tensor_ops_cpu.c, pooling_cpu.c, softmax_cpu.c, batchnorm_cpu.c).
 *
 * Decisions:
 * - Results must equal the ref rows bit for bit where the operation is exact, and the ref rows
 *   compute in double and round once (src/core/dtype.c). So the kernels do the same: a block of
 *   up to FD_CPU_BLK elements is widened to double, the operation and the alpha/beta blend run
 *   in double with the ref's operation order, and the block is narrowed once. The block loops
 *   are plain C the compiler vectorises; every file compiles them at -O3 with FP contraction
 *   off (an FMA would round differently from the ref) and, through target_clones, once for
 *   AVX-512, AVX2 and baseline x86-64, picked at load time (a machine with neither still works).
 * - Elementwise work goes through one strided engine (fd_cpu_ew_*): dims of size 1 dropped, the
 *   rest ordered by the output's strides (NHWC iterates like NCHW), runs that are contiguous
 *   in every tensor merged, so a packed tensor is one long row and a broadcast bias is a row
 *   with increment 0. Any non-negative strides work (a gather inner loop); the rows decline
 *   only what the ref alone computes (integer types, vectorised int8 layouts).
 * - Threads: work is cut into units of a fixed number of elements (independent of the thread
 *   count) and handed out by a static OpenMP loop; each output element is computed by exactly
 *   one unit in a fixed order, so results are identical for any OMP_NUM_THREADS. Small
 *   problems stay on the calling thread. Nothing allocates: block buffers live on the stack.
 * - HALF and BFLOAT16 are converted with integer arithmetic the compiler vectorises, not
 *   through fd_load / fd_store's frexp / ldexp, and give their bits exactly: a load is exact
 *   (NaN becomes the default NaN with its sign, as fd_f64_from_f16 does); a store rounds the
 *   double to float by round-to-odd and then the float to 16 bits to nearest even, which equals
 *   one rounding of the double (float keeps 24 >= 11 + 2 and 8 + 2 bits), NaN canonical.
 * - Streaming stores (fd_cpu_store_ex with nt = 1, chosen by fd_cpu_nt_want): a beta = 0
 *   output larger than FD_CPU_NT_MIN that overlaps no input is written with non-temporal
 *   stores, which skip the read-for-ownership of each output line (a third of the traffic of
 *   a one-input op). Same bits, only the cache policy differs; each unit ends with an sfence so
 *   the stores are visible when the parallel loop's barrier is passed.
 */
#ifndef FD_CPU_MEMOP_H_
#define FD_CPU_MEMOP_H_

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/fd.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FD_CPU_X86 1
#endif

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define FD_CPU_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define FD_CPU_CLONES
#endif

#define FD_CPU_BLK 256          /* elements per double block (stack buffers, L1-resident) */
#define FD_CPU_UNIT 16384       /* elements per unit of threaded work */
#define FD_CPU_PAR_MIN 65536    /* below this, one thread: fork/join costs more than it saves */
#define FD_CPU_MAXT 4           /* tensors an elementwise op touches */
#ifndef FD_CPU_NT_MIN /* output bytes from which streaming stores pay: half the L3 */
#define FD_CPU_NT_MIN ((size_t)16 << 20)
#endif

/* 1 for the storage types the cpu rows compute (the others stay with ref). */
static inline int fd_cpu_dtype_ok(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_DOUBLE || dt == CUDNN_DATA_HALF ||
           dt == CUDNN_DATA_BFLOAT16;
}

/* ---- 16-bit conversions (bit for bit fd_f64_from_f16 / fd_f16_from_f64 / fd_bf16_from_f64) -- */

static inline float fd_cpu_f32_of_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static inline uint32_t fd_cpu_bits_of_f32(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* The value of a half, exactly; NaN becomes the default NaN with the half's sign. */
static inline double fd_cpu_f16_load(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, em = h & 0x7fffu;
    uint32_t sub = fd_cpu_bits_of_f32((float)em * 0x1p-24f); /* exponent 0: exact */
    uint32_t nrm = (em << 13) + (112u << 23);                 /* rebias by 127 - 15 */
    uint32_t spc = em > 0x7c00u ? 0x7fc00000u : 0x7f800000u;  /* NaN, infinity */
    uint32_t b = em < 0x400u ? sub : em >= 0x7c00u ? spc : nrm; /* integer selects: vectorise */
    return fd_cpu_f32_of_bits(sign | b);
}

/* d rounded to float toward zero, with the last bit set when inexact ("round to odd"): a
 * second rounding to a format with at least 2 bits fewer then rounds like one. NaN stays NaN. */
static inline uint32_t fd_cpu_f32_odd_bits(double d)
{
    float f = (float)d;
    uint32_t b = fd_cpu_bits_of_f32(f);
    double back = f;
    uint32_t down = fabs(back) > fabs(d) ? 1u : 0u; /* rounded away from zero: step back */
    uint32_t inexact = back != d && d == d;
    return inexact ? (b - down) | 1u : b;
}

/* Half bits of d, rounded once to nearest even (subnormals, overflow to infinity). */
static inline uint16_t fd_cpu_f16_store(double d)
{
    uint32_t b = fd_cpu_f32_odd_bits(d);
    uint32_t sign = (b >> 16) & 0x8000u, a = b & 0x7fffffffu;
    /* subnormal half: adding 0.5 rounds |f| to a multiple of 2^-24, to nearest even */
    uint32_t sub = fd_cpu_bits_of_f32(fd_cpu_f32_of_bits(a) + 0.5f) - 0x3f000000u;
    uint32_t nrm = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13; /* rebias by -112 << 23, round */
    uint32_t h = a < 0x38800000u ? sub : a >= 0x477ff000u ? 0x7c00u : nrm;
    h = a > 0x7f800000u ? 0x7e00u : h;
    return (uint16_t)(sign | h);
}

/* bfloat16 bits of d, rounded once to nearest even; NaN canonical with its sign. */
static inline uint16_t fd_cpu_bf16_store(double d)
{
    uint32_t b = fd_cpu_f32_odd_bits(d);
    uint32_t r = (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;
    uint32_t nan = 0x7fc0u | ((b >> 16) & 0x8000u);
    return (uint16_t)((b & 0x7fffffffu) > 0x7f800000u ? nan : r);
}

/* ---- block conversions (exactly fd_load / fd_store) ----------------------------------------- */

/* buf[i] = element i*inc of p, for i < n. */
FD_CPU_CLONES __attribute__((unused)) static void fd_cpu_load(cudnnDataType_t dt, const void *p, int64_t inc, int n,
                                      double *restrict buf)
{
    switch (dt) {
    case CUDNN_DATA_FLOAT: {
        const float *restrict s = p;
        if (inc == 1)
            for (int i = 0; i < n; i++)
                buf[i] = s[i];
        else
            for (int i = 0; i < n; i++)
                buf[i] = s[i * inc];
        break;
    }
    case CUDNN_DATA_DOUBLE: {
        const double *restrict s = p;
        if (inc == 1)
            memcpy(buf, s, (size_t)n * sizeof *buf);
        else
            for (int i = 0; i < n; i++)
                buf[i] = s[i * inc];
        break;
    }
    case CUDNN_DATA_HALF: {
        const uint16_t *restrict s = p;
        if (inc == 1)
            for (int i = 0; i < n; i++)
                buf[i] = fd_cpu_f16_load(s[i]);
        else
            for (int i = 0; i < n; i++)
                buf[i] = fd_cpu_f16_load(s[i * inc]);
        break;
    }
    default: { /* BFLOAT16: the top half of a float */
        const uint16_t *restrict s = p;
        for (int i = 0; i < n; i++) {
            uint32_t bits = (uint32_t)s[i * inc] << 16;
            float f;
            memcpy(&f, &bits, sizeof f);
            buf[i] = f;
        }
        break;
    }
    }
}

/* Element i*inc of p = alpha * v[i] + beta * (its old value); beta == 0 never reads p. The
 * order of operations is the ref rows' blend_store. */
FD_CPU_CLONES __attribute__((unused)) static void fd_cpu_store(cudnnDataType_t dt, void *p, int64_t inc, int n,
                                       const double *restrict v, double alpha, double beta)
{
    if (dt == CUDNN_DATA_FLOAT) {
        float *restrict d = p;
        if (inc == 1) {
            if (beta == 0.0)
                for (int i = 0; i < n; i++)
                    d[i] = (float)(alpha * v[i]);
            else
                for (int i = 0; i < n; i++)
                    d[i] = (float)(alpha * v[i] + beta * (double)d[i]);
        } else {
            for (int i = 0; i < n; i++) {
                double r = alpha * v[i];
                if (beta != 0.0)
                    r += beta * (double)d[i * inc];
                d[i * inc] = (float)r;
            }
        }
        return;
    }
    if (dt == CUDNN_DATA_DOUBLE) {
        double *restrict d = p;
        if (inc == 1) {
            if (beta == 0.0)
                for (int i = 0; i < n; i++)
                    d[i] = alpha * v[i];
            else
                for (int i = 0; i < n; i++)
                    d[i] = alpha * v[i] + beta * d[i];
        } else {
            for (int i = 0; i < n; i++) {
                double r = alpha * v[i];
                if (beta != 0.0)
                    r += beta * d[i * inc];
                d[i * inc] = r;
            }
        }
        return;
    }
    uint16_t *restrict d = p; /* HALF, BFLOAT16: the library's rounding, vectorised */
    if (dt == CUDNN_DATA_HALF) {
        if (beta == 0.0 && inc == 1)
            for (int i = 0; i < n; i++)
                d[i] = fd_cpu_f16_store(alpha * v[i]);
        else if (beta == 0.0)
            for (int i = 0; i < n; i++)
                d[i * inc] = fd_cpu_f16_store(alpha * v[i]);
        else if (inc == 1)
            for (int i = 0; i < n; i++)
                d[i] = fd_cpu_f16_store(alpha * v[i] + beta * fd_cpu_f16_load(d[i]));
        else
            for (int i = 0; i < n; i++)
                d[i * inc] = fd_cpu_f16_store(alpha * v[i] + beta * fd_cpu_f16_load(d[i * inc]));
    } else {
        if (beta == 0.0 && inc == 1)
            for (int i = 0; i < n; i++)
                d[i] = fd_cpu_bf16_store(alpha * v[i]);
        else if (beta == 0.0)
            for (int i = 0; i < n; i++)
                d[i * inc] = fd_cpu_bf16_store(alpha * v[i]);
        else if (inc == 1)
            for (int i = 0; i < n; i++)
                d[i] = fd_cpu_bf16_store(alpha * v[i] + beta * fd_cpu_f32_of_bits((uint32_t)d[i] << 16));
        else
            for (int i = 0; i < n; i++)
                d[i * inc] = fd_cpu_bf16_store(alpha * v[i] +
                                               beta * fd_cpu_f32_of_bits((uint32_t)d[i * inc] << 16));
    }
}

/* Copies bytes to dst with non-temporal stores where dst is 16-byte aligned (ordinary stores
 * for the head and the tail). */
static inline void fd_cpu_stream(void *dst, const void *src, size_t bytes)
{
#ifdef FD_CPU_X86
    char *d = dst;
    const char *s = src;
    size_t head = (16 - (uintptr_t)d % 16) % 16;
    head = head < bytes ? head : bytes;
    memcpy(d, s, head);
    d += head, s += head, bytes -= head;
    for (; bytes >= 16; d += 16, s += 16, bytes -= 16)
        _mm_stream_si128((__m128i *)(void *)d, _mm_loadu_si128((const __m128i *)(const void *)s));
    memcpy(d, s, bytes);
#else
    memcpy(dst, src, bytes);
#endif
}

#if defined(FD_CPU_X86) && defined(__GNUC__)
/* 1 when the 64 bytes at p lie in one 4 KiB page. */
static inline int fd_cpu_one_page(const void *p)
{
    return ((uintptr_t)p & 4095) <= 4096 - 64;
}

/* The lanes of m (elements of esz bytes) from t to p, one by one. */
static inline void fd_cpu_store_lanes(void *p, const void *t, unsigned m, size_t esz)
{
    for (; m; m &= m - 1)
        memcpy((char *)p + (size_t)__builtin_ctz(m) * esz, (const char *)t + (size_t)__builtin_ctz(m) * esz, esz);
}

/* A 16-float (8-double) store under mask m, as a plain store when every lane is on: AMD Zen 4
 * runs 512-bit masked stores far slower than plain ones and does not forward them to later
 * loads (measured in the pooling rows there: NCHW max forward 5.6 -> 2.0 ms). A partial store
 * whose 64 bytes cross a 4 KiB page goes lane by lane: Zen 5 takes a microcode assist for such
 * a masked store (5.3 against 0.3 ns, and the loads in flight stall; it kept the NCHW max-pool
 * backward from scaling to two threads, cpu-pool3). Same memory effect. */
__attribute__((target("avx512f"), unused)) static inline void fd_cpu_mstore_ps(float *p, __mmask16 m,
                                                                             __m512 v)
{
    float t[16];
    if (m == (__mmask16)0xFFFF)
        _mm512_storeu_ps(p, v);
    else if (fd_cpu_one_page(p))
        _mm512_mask_storeu_ps(p, m, v);
    else
        _mm512_storeu_ps(t, v), fd_cpu_store_lanes(p, t, m, sizeof *t);
}

__attribute__((target("avx512f"), unused)) static inline void fd_cpu_mstore_pd(double *p, __mmask8 m,
                                                                             __m512d v)
{
    double t[8];
    if (m == (__mmask8)0xFF)
        _mm512_storeu_pd(p, v);
    else if (fd_cpu_one_page(p))
        _mm512_mask_storeu_pd(p, m, v);
    else
        _mm512_storeu_pd(t, v), fd_cpu_store_lanes(p, t, m, sizeof *t);
}
#endif

#if defined(FD_CPU_X86) && defined(__GNUC__) && !defined(__clang__)
/* fd_cpu_stream with 64-byte non-temporal stores (AVX-512 machines only: the caller checks),
 * aligned to 64 bytes: a whole line per store, so each write-combining buffer leaves full
 * (the 16-byte form needs four stores per line). */
__attribute__((target("avx512f"), unused)) static void fd_cpu_stream_z(void *dst, const void *src,
                                                                        size_t bytes)
{
    char *d = dst;
    const char *s = src;
    size_t head = (64 - (uintptr_t)d % 64) % 64;
    head = head < bytes ? head : bytes;
    fd_cpu_stream(d, s, head);
    d += head, s += head, bytes -= head;
    for (; bytes >= 64; d += 64, s += 64, bytes -= 64)
        _mm512_stream_si512((void *)d, _mm512_loadu_si512((const void *)s));
    fd_cpu_stream(d, s, bytes);
}
#define FD_CPU_HAVE_STREAM_Z 1

/* ---- AVX2 float maps from registers to the output -------------------------------------------
 * On a CPU without AVX-512 the block route (a stack block, then a copy or a 16-byte streamed
 * copy to the output) cost as much as the arithmetic: RELU forward of n8c64h112w112 on the
 * 2-vCPU Zen 3, one thread, 3.8 ms through the block (double arithmetic, 16-byte streams),
 * 2.7 ms with the same double loop writing the output, 1.4 ms as a float map streamed from
 * registers (2026-12-04, min of 12 calls after a 128 MiB write). FD_CPU_AVX2_MAP is that
 * map's skeleton: VEC(i, m, full) (the caller's expression) gives the 8 results from element
 * i, reading its inputs with FD_CPU_LD8 (lanes m only when !full: no read past the run). With
 * nt the vectors from out's first 32-byte boundary go out in 32-byte streaming stores, the
 * pieces before and after through fd_cpu_stream; without, plain stores (a partial vector
 * through a stack copy: AMD runs vmaskmovps stores slowly). out may be an input of the same
 * element (each vector is read before it is written). */
__attribute__((target("avx2"), unused)) static inline __m256i fd_cpu_mask8(int k)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* The first k lanes of v to p: streamed (nt) or plain. */
__attribute__((target("avx2"), unused)) static inline void fd_cpu_put8(float *p, __m256 v, int k,
                                                                       int nt)
{
    float t[8];
    _mm256_storeu_ps(t, v);
    if (nt)
        fd_cpu_stream(p, t, sizeof(float) * (size_t)k);
    else
        memcpy(p, t, sizeof(float) * (size_t)k);
}

/* v with the quiet bit set in its NaN lanes: what a float -> double -> float round trip (the
 * ref's arithmetic) makes of a NaN. */
__attribute__((target("avx2"), unused)) static inline __m256 fd_cpu_quiet8(__m256 v)
{
    const __m256 q = _mm256_and_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q),
                                   _mm256_castsi256_ps(_mm256_set1_epi32(0x00400000)));
    return _mm256_or_ps(v, q);
}

#define FD_CPU_LD8(p, m, full) ((full) ? _mm256_loadu_ps(p) : _mm256_maskload_ps((p), (m)))
#define FD_CPU_AVX2_MAP(N, OUT, NT, VEC)                                                           \
    do {                                                                                           \
        const int n_ = (N);                                                                        \
        float *const o_ = (OUT);                                                                   \
        const int s_ = (NT) && ((uintptr_t)o_ & 3) == 0;                                           \
        int i_ = s_ ? (int)(((32 - ((uintptr_t)o_ & 31)) & 31) / 4) : 0;                           \
        i_ = i_ < n_ ? i_ : n_;                                                                    \
        if (i_ > 0) {                                                                              \
            const __m256i m_ = fd_cpu_mask8(i_);                                                   \
            fd_cpu_put8(o_, VEC(0, m_, 0), i_, s_);                                                \
        }                                                                                          \
        const __m256i all_ = _mm256_set1_epi32(-1);                                                \
        if (s_)                                                                                    \
            for (; i_ + 8 <= n_; i_ += 8)                                                          \
                _mm256_stream_ps(o_ + i_, VEC(i_, all_, 1));                                       \
        else                                                                                       \
            for (; i_ + 8 <= n_; i_ += 8)                                                          \
                _mm256_storeu_ps(o_ + i_, VEC(i_, all_, 1));                                       \
        if (i_ < n_) {                                                                             \
            const __m256i m_ = fd_cpu_mask8(n_ - i_);                                              \
            fd_cpu_put8(o_ + i_, VEC(i_, m_, 0), n_ - i_, s_);                                     \
        }                                                                                          \
    } while (0)
#define FD_CPU_HAVE_AVX2_MAP 1
#endif

/* fd_cpu_store, and with nt = 1 (only for beta = 0 and inc = 1, see fd_cpu_nt_want) the block
 * is rounded into a stack buffer and streamed to p. */
static inline void fd_cpu_store_ex(cudnnDataType_t dt, void *p, int64_t inc, int n,
                                   const double *restrict v, double alpha, double beta, int nt)
{
    if (!nt || beta != 0.0 || inc != 1) {
        fd_cpu_store(dt, p, inc, n, v, alpha, beta);
        return;
    }
    double tmp[FD_CPU_BLK]; /* big enough for n elements of any type */
    fd_cpu_store(dt, tmp, 1, n, v, alpha, 0.0);
    fd_cpu_stream(p, tmp, (size_t)n * fd_dtype_size(dt));
}

/* ---- the elementwise engine --------------------------------------------------------------- */

typedef struct fd_cpu_ew {
    int nd, nt;
    int64_t dim[FD_DIM_MAX];
    int64_t st[FD_CPU_MAXT][FD_DIM_MAX]; /* elements; st[0] is the output */
    size_t esz[FD_CPU_MAXT];
    int64_t n; /* elements */
} fd_cpu_ew_t;

/* Plans nt tensors over dims (strides[t][d], in elements, 0 where tensor t broadcasts along d).
 * Returns 0 (with the reason) for negative strides. */
static inline int fd_cpu_ew_plan(fd_cpu_ew_t *e, int nb, const int64_t *dim, int nt,
                                 const int64_t *const *strides, const cudnnDataType_t *dts,
                                 char *why, size_t why_size)
{
    int order[FD_DIM_MAX], k = 0;
    e->nt = nt;
    e->n = 1;
    for (int t = 0; t < nt; t++)
        e->esz[t] = fd_dtype_size(dts[t]);
    for (int d = 0; d < nb; d++) {
        e->n *= dim[d];
        for (int t = 0; t < nt; t++)
            if (strides[t][d] < 0) {
                snprintf(why, why_size, "negative strides");
                return 0;
            }
        if (dim[d] > 1)
            order[k++] = d;
    }
    /* stable sort by the output's stride, largest first */
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && strides[0][order[j]] > strides[0][order[j - 1]]; j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    e->nd = 0;
    for (int i = 0; i < k; i++) {
        int d = order[i];
        if (e->nd > 0) {
            int last = e->nd - 1, merge = 1;
            for (int t = 0; t < nt; t++)
                if (e->st[t][last] != strides[t][d] * dim[d])
                    merge = 0;
            if (merge) {
                e->dim[last] *= dim[d];
                for (int t = 0; t < nt; t++)
                    e->st[t][last] = strides[t][d];
                continue;
            }
        }
        e->dim[e->nd] = dim[d];
        for (int t = 0; t < nt; t++)
            e->st[t][e->nd] = strides[t][d];
        e->nd++;
    }
    if (e->nd == 0) { /* a single element */
        e->nd = 1;
        e->dim[0] = 1;
        for (int t = 0; t < nt; t++)
            e->st[t][0] = 1;
    }
    return 1;
}

/* 1 when the output (tensor 0) should be written with streaming stores: beta = 0 (the old
 * values are not read), at least FD_CPU_NT_MIN bytes, unit stride innermost, and no byte in
 * common with an input (an in-place call reads the lines it writes: nothing to save). */
static inline int fd_cpu_nt_want(const fd_cpu_ew_t *e, char *const *base, double beta)
{
    uintptr_t lo[FD_CPU_MAXT] = {0}, hi[FD_CPU_MAXT] = {0};
    if (beta != 0.0 || e->st[0][e->nd - 1] != 1)
        return 0;
    for (int t = 0; t < e->nt; t++) {
        int64_t last = 0;
        for (int d = 0; d < e->nd; d++)
            last += (e->dim[d] - 1) * e->st[t][d];
        lo[t] = (uintptr_t)base[t];
        hi[t] = lo[t] + (uintptr_t)(last + 1) * e->esz[t];
    }
    if ((size_t)(hi[0] - lo[0]) < FD_CPU_NT_MIN)
        return 0;
    for (int t = 1; t < e->nt; t++)
        if (lo[t] < hi[0] && lo[0] < hi[t])
            return 0;
    return 1;
}

/* A run of len elements: tensor t starts at ptr[t] and steps inc[t] elements. */
typedef void (*fd_cpu_ew_fn)(const void *ctx, int len, char *const *ptr, const int64_t *inc);

/* Calls fn over every element, in runs of at most FD_CPU_BLK along the innermost dim. */
static inline void fd_cpu_ew_run(const fd_cpu_ew_t *e, char *const *base, fd_cpu_ew_fn fn,
                                 const void *ctx)
{
    const int nd = e->nd;
    const int64_t inner = e->dim[nd - 1];
    const int64_t rows = e->n / inner;
    /* units: pieces of one row, or groups of whole rows, each about FD_CPU_UNIT elements */
    const int64_t per_row = (inner + FD_CPU_UNIT - 1) / FD_CPU_UNIT;
    const int64_t rows_per = inner >= FD_CPU_UNIT ? 1 : FD_CPU_UNIT / inner;
    const int64_t units = inner >= FD_CPU_UNIT ? rows * per_row : (rows + rows_per - 1) / rows_per;
    const int nt = e->nt;
#pragma omp parallel for schedule(static) if (e->n >= FD_CPU_PAR_MIN)
    for (int64_t u = 0; u < units; u++) {
        int64_t r0, r1, c0, c1;
        if (inner >= FD_CPU_UNIT) {
            r0 = u / per_row, r1 = r0 + 1;
            c0 = (u % per_row) * FD_CPU_UNIT;
            c1 = c0 + FD_CPU_UNIT < inner ? c0 + FD_CPU_UNIT : inner;
        } else {
            r0 = u * rows_per, r1 = r0 + rows_per < rows ? r0 + rows_per : rows;
            c0 = 0, c1 = inner;
        }
        for (int64_t r = r0; r < r1; r++) {
            int64_t off[FD_CPU_MAXT] = {0}, rem = r;
            for (int d = nd - 2; d >= 0; d--) {
                int64_t i = rem % e->dim[d];
                rem /= e->dim[d];
                for (int t = 0; t < nt; t++)
                    off[t] += i * e->st[t][d];
            }
            int64_t inc[FD_CPU_MAXT];
            for (int t = 0; t < nt; t++)
                inc[t] = e->st[t][nd - 1];
            for (int64_t c = c0; c < c1; c += FD_CPU_BLK) {
                int len = (int)(c1 - c < FD_CPU_BLK ? c1 - c : FD_CPU_BLK);
                char *ptr[FD_CPU_MAXT];
                for (int t = 0; t < nt; t++)
                    ptr[t] = base[t] + (size_t)(off[t] + c * inc[t]) * e->esz[t];
                fn(ctx, len, ptr, inc);
            }
        }
#ifdef FD_CPU_X86
        _mm_sfence(); /* streaming stores of this unit, before the loop's barrier */
#endif
    }
}

/* ---- a vectorisable exp in double (softmax, not the exact families) ------------------------- */

/* exp(x) within a few ulp of double: x = k ln2 + r, |r| <= ln2/2, Taylor to degree 13, 2^k
 * applied in two halves so that subnormal results and k up to 1025 need no branch. NaN in,
 * NaN out; -inf gives 0, +inf gives inf. */
static inline double fd_cpu_exp(double x)
{
    const double shift = 0x1.8p52;
    double xc = x < -746.0 ? -746.0 : x > 710.0 ? 710.0 : x; /* NaN passes through */
    double t = xc * 0x1.71547652b82fep0 + shift;
    double k = t - shift;
    double r = xc - k * 0x1.62e42fefa3800p-1 - k * 0x1.ef35793c7673p-45;
    double p = 1.0 / 6227020800.0;
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    int64_t ki;
    memcpy(&ki, &t, sizeof ki);
    ki = (int64_t)(int32_t)(uint32_t)ki; /* the low bits of t hold k */
    int64_t k1 = ki / 2, k2 = ki - k1;
    uint64_t b1 = (uint64_t)(k1 + 1023) << 52, b2 = (uint64_t)(k2 + 1023) << 52;
    double s1, s2;
    memcpy(&s1, &b1, sizeof s1);
    memcpy(&s2, &b2, sizeof s2);
    return p * s1 * s2;
}

/* ---- exp / expm1 in double that vectorise (the activation rows' transcendental modes) -------- */

/* e^x = s (1 + q) with s = 2^k and q = e^r - 1, where x = k ln2 + r, |r| <= ln2 / 2; returns s.
 * For |x| <= 700 (callers check: outside, the result is meaningless) q is relatively accurate
 * to a few ulp (Taylor to degree 12: truncation below 2^-50 |q|), so s + s q is e^x and
 * s q + (s - 1) is e^x - 1, each within a few ulp of double (no cancellation: |k| >= 1 only
 * for |x| > ln2 / 2). Branch-free, so the loops that call it vectorise; tests/impl/
 * test_cpu_eltwise_fast.c measures the error against libm. */
static inline double fd_cpu_exp_split(double x, double *q)
{
    const double shift = 0x1.8p52;
    double xc = x < -700.0 ? -700.0 : x > 700.0 ? 700.0 : x; /* NaN passes through */
    double t = xc * 0x1.71547652b82fep0 + shift;
    double k = t - shift;
    double r = xc - k * 0x1.62e42fefa3800p-1 - k * 0x1.ef35793c7673p-45;
    double p = 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    *q = p * r;
    uint64_t tb;
    memcpy(&tb, &t, sizeof tb);
    uint64_t sb = (tb + 1023u) << 52; /* the low bits of t hold k (mod 2^52) */
    double sc;
    memcpy(&sc, &sb, sizeof sc);
    return sc;
}

static inline double fd_cpu_exp_v(double x)
{
    double q, s = fd_cpu_exp_split(x, &q);
    return s + s * q;
}

static inline double fd_cpu_expm1_v(double x)
{
    double q, s = fd_cpu_exp_split(x, &q);
    return s * q + (s - 1.0);
}

/* 1 / d for 1 <= d <= 2^100, relative error below 2^-45: a float division (a few cycles per
 * vector where a double division takes ten or more) refined by one Newton step in double. */
static inline double fd_cpu_recip_v(double d)
{
    double r = (double)(1.0f / (float)d);
    return r * (2.0 - d * r);
}

#if defined(FD_CPU_X86) && defined(__GNUC__)
/* A 16-float (8-double) zero-masked load under mask m, as a plain load when every lane is on:
 * Zen 5 ran 512-bit masked loads that miss the cache at a fraction of plain loads' speed (a
 * streaming max over 128 MiB: 39 GB/s plain, 6.8 GB/s with an all-ones mask; LRN NHWC forward,
 * whose stream the hardware prefetchers did not follow under masked loads: 9.2 -> 1.66 ms).
 * Same value. */
__attribute__((target("avx512f"), unused)) static inline __m512 fd_cpu_mload_ps(__mmask16 m,
                                                                              const float *p)
{
    if (m == (__mmask16)0xFFFF)
        return _mm512_loadu_ps(p);
    return _mm512_maskz_loadu_ps(m, p);
}

__attribute__((target("avx512f"), unused)) static inline __m512d fd_cpu_mload_pd(__mmask8 m,
                                                                               const double *p)
{
    if (m == (__mmask8)0xFF)
        return _mm512_loadu_pd(p);
    return _mm512_maskz_loadu_pd(m, p);
}
#endif

#endif /* FD_CPU_MEMOP_H_ */
