/* SPDX-License-Identifier: MIT */
/*
 * conv_implicit.c - convolution as an implicit GEMM on the cpu backend, with no workspace: FWD
 * IMPLICIT_GEMM, BWD_DATA ALGO_0 and BWD_FILTER ALGO_0 (src/impls.def), whose contract is no
 * workspace, for the problems the copy-free 1x1 and depthwise rows do not take. Before these
 * rows those fell to the ref oracle (ResNet-50's conv1 at 579 ms instead of 2 ms on one core),
 * which a program that names the enum, or asks cudnnGet*Algorithm_v7 for a workspace-free
 * algorithm, would have run.
 *
 * Forward GEMM mapping per image n and group g, as the im2col row (conv_gemm.c):
 *   y[K/G x PQ] = w[K/G x CRS] . col[CRS x PQ]
 * but col is never stored: our AVX-512 SGEMM (sgemm_avx512.c, fd_cpu_sgemm_avx512_src) asks for
 * it one 32-column micro-panel at a time, and ig_panel gathers that panel from x into the
 * GEMM's own stack buffer. Per K block (256 rows of col) ig_block first derives each row's
 * channel, taps, x offset and valid output ranges once (the row table, in the call's own struct
 * on the stack); a panel then walks its 32 output positions as runs along the last output dim
 * and copies each run with masked loads (unit x step), two loads and an even-lane permute
 * (stride 2) or a masked gather (other steps: NHWC x, larger strides), zeros where the tap falls
 * in the padding. With a source the SGEMM runs its K blocks outermost, so up to IG_KEEP panels
 * are kept for every block of 96 output channels. Stack: the source (its row table and kept
 * panels, ~142 KB) and the SGEMM's packing buffers (~128 KB) on the calling thread's stack.
 * The sum order is the GEMM's (K blocks of 256 in order, one FMA chain each), so the bits are
 * those of the im2col row on the same GEMM (IMPLICIT_PRECOMP_GEMM with our SGEMM), whatever
 * the thread count: the team splits each image's PQ into fixed pieces (gemm.h:
 * fd_cpu_split_parts), one SGEMM call each.
 * Scope: FLOAT, 1 to 3 spatial dims, any padding, stride, dilation, groups and x strides, both
 * modes; y must be each image's and group's K/G x PQ as a row-major (NCHW) or column-major
 * (NHWC: the SGEMM's tiles stored transposed) matrix, and the filter dense (NCHW or NHWC).
 * Other problems keep the ref row. The gather costs what im2col costs, without the column
 * matrix's trip through memory.
 * Without AVX-512F (or with FREEDNN_CPU_GEMM=blas) the same gather feeds CBLAS instead
 * (ig_piece_blas): chunks of 64 output positions by K slices of 128 rows in a stack buffer, each
 * one sgemm into y; deterministic for any thread count (fixed chunks, BLAS single-threaded), not
 * the im2col row's bits.
 *
 * BWD_FILTER ALGO_0: dw[K/G x CRS] += dy[K/G x PQ] . col^T[PQ x CRS] per image, col^T's panels
 * gathered a column (a row of col) at a time; the im2col row's bits. On CBLAS (ig_w_piece_blas):
 * blocks of 64 columns of dw by K slices of 128 output positions gathered into a stack buffer.
 *
 * BWD_DATA ALGO_0: dx[C/G x HW] = w^T[C/G x (K/G) T] . dy_T[(K/G) T x HW], one
 * SGEMM per piece of dx positions, with C = dx (row- or column-major), A the filter read in place
 * as a view whose columns are (k, tap) pairs (fd_cpu_sgemm_avx512_src2: a run of taps per k), and
 * B's rows (k, tap) gathered from dy shifted by the tap (zeros where dx position i is not
 * o * stride - pad + t * dil for an o of dy). Stride 1: runs of masked loads as the forward.
 * Strided problems multiply the zeros between strides too: s^d times the useful products (s = 2
 * in 2-d: a quarter of the stride-1 rate), no col2im and no workspace. Each dx element sums its
 * (k, tap) rows in K blocks in order, the same for any thread count (not ALGO_1's bits: that
 * row sums each tap's GEMM, then the taps in col2im). On CBLAS (ig_d_piece_blas): per block of
 * 64 channels and K slice of 128 (k, tap) rows, the filter's slice copied once into a stack
 * buffer, dy_T gathered per chunk of 64 dx positions.
 */
#include <cblas.h>
#include <limits.h>
#include <stdio.h>

#include "gemm.h"
#include "im2col.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define IG_X86 1
#else
#define IG_X86 0
#endif

/* One row of col: x offset of its channel and taps at output position 0 (may point before x:
 * only valid positions are read), and the valid outputs along each dim. */
typedef struct {
    int64_t off;
    int64_t lo[3], hi[3];
} ig_row_t;

/* Panels a source keeps for the M blocks after the first, when its columns fit: every panel
 * of a small output plane (7 x 7, 14 x 14 in two pieces) is gathered once per K block, not once
 * per 96 output channels (ResNet-50's 3x3 512 -> 512 at 7 x 7 re-gathered each panel 6 times). */
#define IG_KEEP 4

typedef struct {
    int kept[IG_KEEP]; /* keep[i] holds panel i of the current K block */
    float keep[IG_KEEP][FD_CPU_SGEMM_KC * FD_CPU_SGEMM_NR] __attribute__((aligned(64)));
} ig_keep_t;

/* A call of ncols columns asks for the panel at column j0: the kept one if it was gathered
 * earlier in this K block (returned), else NULL, with *bp pointed at the slot to gather it into
 * when the call's panels all fit. */
static float *ig_keep_find(ig_keep_t *k, int64_t ncols, int64_t j0, float **bp)
{
    if (ncols > IG_KEEP * FD_CPU_SGEMM_NR)
        return NULL;
    const int64_t slot = j0 / FD_CPU_SGEMM_NR;
    if (k->kept[slot])
        return k->keep[slot];
    k->kept[slot] = 1, *bp = k->keep[slot];
    return NULL;
}

static void ig_keep_reset(ig_keep_t *k)
{
    for (int i = 0; i < IG_KEEP; i++)
        k->kept[i] = 0;
}

/* The source of one SGEMM call: image n, group g, output positions [j0, j0 + ncols) of PQ. */
typedef struct {
    fd_cpu_bsource_t src; /* first: the SGEMM's callbacks get this struct's address */
    const fd_conv_problem_t *p;
    const float *x; /* image n, channel 0 of group g */
    int64_t cg, j0, ncols;
    int64_t os[3]; /* x step of one output position along each dim: stride * x stride */
    ig_row_t rows[FD_CPU_SGEMM_KC]; /* the K block ig_block last described */
    ig_keep_t keep;
} ig_source_t;

/* Row q of col (of a group of cg channels) as an ig_row_t. */
static void ig_row_of(const fd_conv_problem_t *p, int64_t cg, int64_t q, ig_row_t *r)
{
    int64_t tm[3];
    const int64_t c = fd_col_coords(p, cg, q, tm);
    r->off = c * p->xs[1];
    for (int d = 0; d < 3; d++) {
        const int64_t t = fd_col_tap(p, d, tm[d]);
        fd_col_valid(p, d, t, &r->lo[d], &r->hi[d]);
        r->off += (t * p->dil[d] - p->pad[d]) * p->xs[2 + d];
    }
}

static void ig_block(fd_cpu_bsource_t *s, int64_t k0, int64_t kc)
{
    ig_source_t *g = (ig_source_t *)s;
    ig_keep_reset(&g->keep);
    for (int64_t q = 0; q < kc; q++)
        ig_row_of(g->p, g->cg, k0 + q, &g->rows[q]);
}

/* A run: entries [j, j + len) are output positions (o0, o1, o2 .. o2 + len - 1), whose x offset
 * at o2 is `off` (before the row's own). */
typedef struct {
    int j, len;
    int64_t o0, o1, o2, off;
} ig_run_t;

/* Positions [l, l + count) of a plane of extents ext[3] cut into runs along its last dim (os:
 * the x step of one position along each dim); returns the number of runs (at most count). */
static int ig_runs(const int64_t *ext, const int64_t *os, int64_t l, int count, ig_run_t *run)
{
    int64_t o2 = l % ext[2], o1 = l / ext[2] % ext[1], o0 = l / (ext[2] * ext[1]);
    int nrun = 0;
    for (int j = 0; j < count; nrun++) {
        ig_run_t *r = &run[nrun];
        r->j = j, r->o0 = o0, r->o1 = o1, r->o2 = o2;
        r->len = (int)(ext[2] - o2 < count - j ? ext[2] - o2 : count - j);
        r->off = o0 * os[0] + o1 * os[1] + o2 * os[2];
        j += r->len;
        o2 = 0;
        if (++o1 == ext[1])
            o1 = 0, o0++;
    }
    return nrun;
}

/* The positions [*a, *b) of run r that row w reads inside x (empty when its o0, o1 fall in the
 * padding). */
static inline void ig_valid(const ig_row_t *w, const ig_run_t *r, int64_t *a, int64_t *b)
{
    *a = 0, *b = 0;
    if (r->o0 >= w->lo[0] && r->o0 < w->hi[0] && r->o1 >= w->lo[1] && r->o1 < w->hi[1]) {
        *a = w->lo[2] - r->o2 > 0 ? w->lo[2] - r->o2 : 0;
        *b = w->hi[2] - r->o2 < r->len ? w->hi[2] - r->o2 : r->len;
    }
}

/* Rows [0, kc) of the current K block (ig_block) x output positions j0 + g->j0 .. + nr into
 * bp[kk * width + j] (nr <= width <= IG_NB_MAX; zeros in [nr, width)), copied with `copy`. */
typedef void (*ig_copy_fn)(float *dst, const float *x, int64_t base, int64_t step, int len,
                           int64_t a, int64_t b);
#define IG_NB_MAX 64
static inline __attribute__((always_inline)) void ig_gather(const ig_source_t *g, int64_t kc,
                                                            int64_t j0, int nr, int width,
                                                            float *bp, ig_copy_fn copy)
{
    ig_run_t run[IG_NB_MAX];
    const int nrun = ig_runs(g->p->out, g->os, g->j0 + j0, nr, run);
    for (int64_t kk = 0; kk < kc; kk++) {
        const ig_row_t *w = &g->rows[kk];
        float *dst = bp + kk * width;
        for (int i = 0; i < nrun; i++) {
            int64_t a, b;
            ig_valid(w, &run[i], &a, &b);
            copy(dst + run[i].j, g->x, w->off + run[i].off, g->os[2], run[i].len, a, b);
        }
        for (int j = nr; j < width; j++)
            dst[j] = 0.0f;
    }
}

/* The same as ig_copy, element by element: CPUs without AVX-512 (the BLAS path). */
static void ig_copy_c(float *dst, const float *x, int64_t base, int64_t step, int len, int64_t a,
                      int64_t b)
{
    for (int64_t e = 0; e < len; e++)
        dst[e] = e >= a && e < b ? x[base + e * step] : 0.0f;
}

#if IG_X86
/* Lanes [lo, hi) of 16 (clamped), as a mask. */
static inline __mmask16 ig_lanes(int64_t lo, int64_t hi)
{
    lo = lo < 0 ? 0 : lo, hi = hi > 16 ? 16 : hi;
    return hi > lo ? (__mmask16)(((1u << hi) - 1u) & ~((1u << lo) - 1u)) : 0;
}

/* dst[e] = x[base + e * step] for e in [a, b), zeros for e in [0, a) and [b, len), 16 lanes at
 * a time: masked loads for step 1, two loads and an even-lane permute for step 2 (stride 2),
 * a masked gather otherwise (NHWC x, larger strides). Addresses are formed as integers: lanes
 * outside [a, b) may lie outside x and are never read (masked). */
static inline __attribute__((always_inline, target("avx512f"))) void
ig_copy(float *dst, const float *x, int64_t base, int64_t step, int len, int64_t a, int64_t b)
{
    const __m512i even =
        _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    for (int e0 = 0; e0 < len; e0 += 16) {
        const __mmask16 all = ig_lanes(0, len - e0), ok = ig_lanes(a - e0, b - e0);
        const uintptr_t from = (uintptr_t)x + (uintptr_t)(base + e0 * step) * 4u;
        __m512 v;
        if (step == 1) {
            v = _mm512_maskz_loadu_ps(ok, (const float *)from);
        } else if (step == 2) { /* source lanes [2 va, 2 vb - 1) of 32 */
            const int64_t va = a - e0 > 0 ? a - e0 : 0, vb = b - e0;
            const __m512 lo =
                _mm512_maskz_loadu_ps(ig_lanes(2 * va, 2 * vb - 1), (const float *)from);
            const __m512 hi =
                _mm512_maskz_loadu_ps(ig_lanes(2 * va - 16, 2 * vb - 17), (const float *)from + 16);
            v = _mm512_maskz_permutex2var_ps(ok, lo, even, hi);
        } else if (step * 15 <= INT_MAX && -step * 15 <= INT_MAX) {
            const __m512i idx = _mm512_mullo_epi32(lane, _mm512_set1_epi32((int)step));
            v = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), ok, idx, (const void *)from, 4);
        } else {
            float t[16];
            for (int e = 0; e < 16; e++)
                t[e] = (ok >> e) & 1 ? x[base + (e0 + e) * step] : 0.0f;
            v = _mm512_loadu_ps(t);
        }
        _mm512_mask_storeu_ps(dst + e0, all, v);
    }
}

static __attribute__((target("avx512f"))) float *ig_panel(fd_cpu_bsource_t *s, int64_t k0,
                                                          int64_t kc, int64_t j0, int nr, float *bp)
{
    ig_source_t *g = (ig_source_t *)s;
    (void)k0;
    float *kept = ig_keep_find(&g->keep, g->ncols, j0, &bp);
    if (kept != NULL)
        return kept;
    ig_gather(g, kc, j0, nr, FD_CPU_SGEMM_NR, bp, ig_copy);
    return bp;
}
#endif /* IG_X86 */

/* A tensor of one image and group (strides st from its channel on, spatial extents ext) as a
 * rows x l matrix: row-major (NCHW) or column-major (NHWC), i.e. the positions one run of one
 * step and one of the two strides 1; 1 on success. */
static int ig_view(const int64_t *ext, const int64_t *st, int64_t rows, int64_t l, int64_t *rs,
                   int64_t *cs)
{
    *rs = st[0];
    return fd_cpu_flat_run(ext, st + 1, FD_CONV_SPATIAL_MAX, cs) && fd_cpu_view_ok(rows, l, rs, cs);
}

/* y (dy) of one image and group as a K/G x PQ matrix (ig_view). */
static int ig_y_view(const fd_conv_problem_t *p, int64_t kg, int64_t l, int64_t *rs, int64_t *cs)
{
    return ig_view(p->out, p->ys + 1, kg, l, rs, cs);
}

/* FLOAT and a dense K/G x CRS filter (packed NCHW or NHWC). */
static int ig_float_dense(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    if (!fd_cpu_dtype_ok(p, CUDNN_DATA_FLOAT, why, why_size))
        return 0;
    const int64_t cg = p->c / p->groups;
    const int64_t crs = cg * p->flt[0] * p->flt[1] * p->flt[2];
    int64_t last = 0;
    for (int i = 1; i < 2 + FD_CONV_SPATIAL_MAX; i++)
        last += ((i == 1 ? cg : p->flt[i - 2]) - 1) * p->ws[i];
    if (p->ws[0] != crs || last != crs - 1) {
        snprintf(why, why_size, "filter strides are not a packed NCHW or NHWC layout");
        return 0;
    }
    return 1;
}

/* What the forward and backward-filter rows need: ig_float_dense, y (dy) a K/G x PQ matrix per
 * image (ig_y_view), GEMM dimensions within int. */
static int ig_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    if (!ig_float_dense(p, why, why_size))
        return 0;
    const int64_t cg = p->c / p->groups, kg = p->k / p->groups;
    const int64_t crs = cg * p->flt[0] * p->flt[1] * p->flt[2];
    const int64_t l = p->out[0] * p->out[1] * p->out[2];
    int64_t rs, cs;
    if (!ig_y_view(p, kg, l, &rs, &cs)) {
        snprintf(why, why_size,
                 "%s is not a K/G x PQ matrix per image with a unit stride "
                 "(padded strides)",
                 p->dir == FD_CONV_FWD ? "y" : "dy");
        return 0;
    }
    if (kg > INT_MAX || crs > INT_MAX || l > INT_MAX) {
        snprintf(why, why_size, "a GEMM dimension (K/G %lld, CRS %lld, PQ %lld) exceeds int",
                 (long long)kg, (long long)crs, (long long)l);
        return 0;
    }
    return 1;
}

/* One piece on CBLAS (no AVX-512F, or FREEDNN_CPU_GEMM=blas): for each chunk of IG_NB_MAX output
 * positions, K slices of FD_CPU_GEMM_KC_F32 rows gathered into a stack buffer and multiplied
 * into the chunk of y, the first slice blending with beta (the im2col row's K slicing; BLAS's
 * sums may differ with the chunk's width, so not its bits). */
static void ig_piece_blas(ig_source_t *s, int64_t kg, int64_t crs, float alpha, float beta,
                          const float *w, float *y, int64_t rs, int64_t cs)
{
    float buf[FD_CPU_GEMM_KC_F32 * IG_NB_MAX];
    for (int64_t j0 = 0; j0 < s->ncols; j0 += IG_NB_MAX) {
        const int nb = (int)(s->ncols - j0 < IG_NB_MAX ? s->ncols - j0 : IG_NB_MAX);
        for (int64_t k0 = 0; k0 < crs; k0 += FD_CPU_GEMM_KC_F32) {
            const int kc = (int)(crs - k0 < FD_CPU_GEMM_KC_F32 ? crs - k0 : FD_CPU_GEMM_KC_F32);
            ig_block(&s->src, k0, kc);
            ig_gather(s, kc, j0, nb, nb, buf, ig_copy_c);
            const float b = k0 == 0 ? beta : 1.0f;
            if (cs == 1) /* y row-major: K/G x nb at row stride rs */
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)kg, nb, kc, alpha,
                            w + k0, (int)crs, buf, nb, b, y + j0, (int)rs);
            else /* column-major (NHWC): the same product with both operands read transposed */
                cblas_sgemm(CblasColMajor, CblasTrans, CblasTrans, (int)kg, nb, kc, alpha, w + k0,
                            (int)crs, buf, nb, b, y + j0 * cs, (int)cs);
        }
    }
}

/* Every image and group of an implicit GEMM whose C has len columns, each cut into
 * fd_cpu_split_parts(len) pieces fixed by the shape (so the bits do not depend on the thread
 * count), one `piece` call each (own: our AVX-512 SGEMM, else CBLAS), on the team when an
 * image's macs multiply-adds reach 2^19 (below, a team costs more than it saves). */
typedef void (*ig_piece_fn)(const fd_conv_problem_t *p, const fd_conv_args_t *a, int own, int64_t n,
                            int64_t g, int64_t lo, int64_t hi);
static void ig_team(const fd_conv_problem_t *p, const fd_conv_args_t *a, int64_t len, int64_t macs,
                    ig_piece_fn piece)
{
    const int parts = fd_cpu_split_parts(len);
    const int nt = parts > 1 && macs >= (1 << 19) ? fd_cpu_team_size() : 1;
    const int own = IG_X86 && fd_cpu_sgemm_own();
    if (!own)
        fd_cpu_blas_serial_begin();
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t g = 0; g < p->groups; g++) {
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
            for (int part = 0; part < parts; part++) {
                int64_t lo, hi;
                fd_cpu_part(len, 16, parts, part, &lo, &hi);
                if (hi > lo)
                    piece(p, a, own, n, g, lo, hi);
            }
        }
    if (!own)
        fd_cpu_blas_serial_end();
}

/* Output positions [lo, hi) of image n, group g. */
static void ig_piece(const fd_conv_problem_t *p, const fd_conv_args_t *a, int own, int64_t n,
                     int64_t g, int64_t lo, int64_t hi)
{
    const int64_t cg = p->c / p->groups, kg = p->k / p->groups;
    const int64_t crs = cg * p->flt[0] * p->flt[1] * p->flt[2];
    const int64_t l = p->out[0] * p->out[1] * p->out[2];
    int64_t rs, cs;
    ig_y_view(p, kg, l, &rs, &cs); /* y's K/G x PQ view (ig_applicable checked it) */
    ig_source_t s;
    s.src.block = ig_block;
#if IG_X86
    s.src.panel = ig_panel;
#endif
    s.p = p, s.cg = cg, s.j0 = lo, s.ncols = hi - lo;
    s.x = (const float *)a->x + n * p->xs[0] + g * cg * p->xs[1];
    for (int d = 0; d < 3; d++)
        s.os[d] = p->stride[d] * p->xs[2 + d];
    const float *w = (const float *)a->w + g * kg * p->ws[0];
    float *y = (float *)a->out + n * p->ys[0] + g * kg * p->ys[1] + lo * cs;
    if (own)
        fd_cpu_sgemm_avx512_src(kg, hi - lo, crs, (float)a->alpha, w, p->ws[0], 1, &s.src,
                                (float)a->beta, y, rs, cs);
    else
        ig_piece_blas(&s, kg, crs, (float)a->alpha, (float)a->beta, w, y, rs, cs);
}

static cudnnStatus_t ig_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    const int64_t crs = p->c / p->groups * p->flt[0] * p->flt[1] * p->flt[2];
    const int64_t l = p->out[0] * p->out[1] * p->out[2];
    ig_team(p, a, l, p->k / p->groups * l * crs, ig_piece);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- backward filter: dw[K/G x CRS] (+)= dy[K/G x PQ] . col^T[PQ x CRS], per image --------- */

/* The source of col^T for one SGEMM call: image n, group g, columns [c0, c0 + ncols) of CRS
 * (rows of col). Its K blocks are blocks of output positions: ig_wblock cuts them into runs
 * along the last output dim; a panel gathers each of its columns (one row of col) run by run
 * into a line and writes the line down the panel's column. */
typedef struct {
    fd_cpu_bsource_t src; /* first */
    const fd_conv_problem_t *p;
    const float *x;
    int64_t cg, c0;
    int64_t os[3];
    int nrun;
    ig_run_t run[FD_CPU_SGEMM_KC]; /* the runs of the K block ig_wblock last cut */
} ig_wsource_t;

static void ig_wblock(fd_cpu_bsource_t *s, int64_t k0, int64_t kc)
{
    ig_wsource_t *g = (ig_wsource_t *)s;
    g->nrun = ig_runs(g->p->out, g->os, k0, (int)kc, g->run);
}

#if IG_X86
static __attribute__((target("avx512f"))) float *
ig_wpanel(fd_cpu_bsource_t *s, int64_t k0, int64_t kc, int64_t j0, int nr, float *bp)
{
    ig_wsource_t *g = (ig_wsource_t *)s;
    (void)k0;
    float line[FD_CPU_SGEMM_KC + 16];
    for (int j = 0; j < FD_CPU_SGEMM_NR; j++) {
        if (j >= nr) {
            for (int64_t kk = 0; kk < kc; kk++)
                bp[kk * FD_CPU_SGEMM_NR + j] = 0.0f;
            continue;
        }
        ig_row_t w;
        ig_row_of(g->p, g->cg, g->c0 + j0 + j, &w);
        for (int i = 0; i < g->nrun; i++) {
            int64_t a, b;
            ig_valid(&w, &g->run[i], &a, &b);
            ig_copy(line + g->run[i].j, g->x, w.off + g->run[i].off, g->os[2], g->run[i].len, a, b);
        }
        for (int64_t kk = 0; kk < kc; kk++)
            bp[kk * FD_CPU_SGEMM_NR + j] = line[kk];
    }
    return bp;
}
#endif

/* One piece of col's rows [c0, c0 + ncols) on CBLAS (no AVX-512F, or FREEDNN_CPU_GEMM=blas):
 * for each image in order, each chunk of IG_WNB columns of dw and K slice of FD_CPU_GEMM_KC_F32
 * output positions, col^T's block gathered (a row of col, run by run, down a column of the
 * buffer) and one sgemm into dw, the first image's first slice blending with beta;
 * deterministic for any thread count (fixed chunks, BLAS single-threaded). */
#define IG_WNB 64
static void ig_w_piece_blas(const fd_conv_problem_t *p, ig_wsource_t *s, const float *xg,
                            const float *dyg, int64_t kg, int64_t ncols, float alpha, float beta,
                            float *dw, int64_t rs, int64_t cs)
{
    float buf[FD_CPU_GEMM_KC_F32 * IG_WNB], line[FD_CPU_GEMM_KC_F32];
    const int64_t l = p->out[0] * p->out[1] * p->out[2];
    for (int64_t n = 0; n < p->n; n++) {
        s->x = xg + n * p->xs[0];
        const float *dy = dyg + n * p->ys[0];
        for (int64_t j0 = 0; j0 < ncols; j0 += IG_WNB) {
            const int nb = (int)(ncols - j0 < IG_WNB ? ncols - j0 : IG_WNB);
            for (int64_t l0 = 0; l0 < l; l0 += FD_CPU_GEMM_KC_F32) {
                const int lc = (int)(l - l0 < FD_CPU_GEMM_KC_F32 ? l - l0 : FD_CPU_GEMM_KC_F32);
                ig_wblock(&s->src, l0, lc);
                for (int j = 0; j < nb; j++) {
                    ig_row_t w;
                    ig_row_of(p, s->cg, s->c0 + j0 + j, &w);
                    for (int i = 0; i < s->nrun; i++) {
                        int64_t a, b;
                        ig_valid(&w, &s->run[i], &a, &b);
                        ig_copy_c(line + s->run[i].j, s->x, w.off + s->run[i].off, s->os[2],
                                  s->run[i].len, a, b);
                    }
                    for (int q = 0; q < lc; q++)
                        buf[q * nb + j] = line[q];
                }
                const float bt = n == 0 && l0 == 0 ? beta : 1.0f;
                if (cs == 1) /* dy row-major (NCHW) */
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)kg, nb, lc, alpha,
                                dy + l0, (int)rs, buf, nb, bt, dw + j0, (int)p->ws[0]);
                else /* column-major (NHWC): its rows of K/G, read transposed */
                    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)kg, nb, lc, alpha,
                                dy + l0 * cs, (int)cs, buf, nb, bt, dw + j0, (int)p->ws[0]);
            }
        }
    }
}

static int ig_w_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    return ig_applicable(p, why, why_size);
}

/* Pieces of CRS (fixed by the shape) on the team, each summing every image in order into its
 * columns of dw, the first image blending with beta: the im2col row's (ALGO_1) sum order and
 * bits on the same SGEMM. */
static cudnnStatus_t ig_w_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    const int64_t cg = p->c / p->groups, kg = p->k / p->groups;
    const int64_t crs = cg * p->flt[0] * p->flt[1] * p->flt[2];
    const int64_t l = p->out[0] * p->out[1] * p->out[2];
    int64_t rs, cs;
    ig_y_view(p, kg, l, &rs, &cs); /* dy's K/G x PQ view */
    const int parts = fd_cpu_split_parts(crs);
    const int nt = parts > 1 && kg * l * crs >= (1 << 19) ? fd_cpu_team_size() : 1;
    const int own = IG_X86 && fd_cpu_sgemm_own();
    const float *xa = a->x, *dya = a->y;
    float *dwa = a->out;
    if (!own)
        fd_cpu_blas_serial_begin();
    for (int64_t g = 0; g < p->groups; g++) {
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
        for (int part = 0; part < parts; part++) {
            int64_t lo, hi;
            fd_cpu_part(crs, 16, parts, part, &lo, &hi);
            if (hi <= lo)
                continue;
            ig_wsource_t s;
            s.src.block = ig_wblock;
#if IG_X86
            s.src.panel = ig_wpanel;
#endif
            s.p = p, s.cg = cg, s.c0 = lo;
            for (int d = 0; d < 3; d++)
                s.os[d] = p->stride[d] * p->xs[2 + d];
            if (!own) {
                ig_w_piece_blas(p, &s, xa + g * cg * p->xs[1], dya + g * kg * p->ys[1], kg, hi - lo,
                                (float)a->alpha, (float)a->beta, dwa + g * kg * p->ws[0] + lo, rs,
                                cs);
                continue;
            }
            for (int64_t n = 0; n < p->n; n++) {
                s.x = xa + n * p->xs[0] + g * cg * p->xs[1];
                fd_cpu_sgemm_avx512_src(kg, hi - lo, l, (float)a->alpha,
                                        dya + n * p->ys[0] + g * kg * p->ys[1], rs, cs, &s.src,
                                        n == 0 ? (float)a->beta : 1.0f,
                                        dwa + g * kg * p->ws[0] + lo, p->ws[0], 1);
            }
        }
    }
    if (!own)
        fd_cpu_blas_serial_end();
    return CUDNN_STATUS_SUCCESS;
}

/* ---- backward data: dx[C/G x HW] = w^T[C/G x (K/G) T] . dy_T[(K/G) T x HW] ----------------- */

/* The source of dy_T for one SGEMM call: image n, group g, dx positions [j0, j0 + ncols) of HW.
 * Its rows are (k, tap) pairs, taps innermost (the filter's A view in fd_cpu_sgemm_avx512_src2:
 * the taps of one (k, c) are adjacent in a dense NCHW filter). Row (k, t) at dx position i is
 * dy(k, o) where i = o * stride - pad + t * dil along every dim, else 0: for stride 1 the
 * forward's gather with dy as x (runs of masked loads); with a stride, each run's dy values are
 * spread to every stride-th lane and s - 1 of every s positions along a dim are zeros,
 * multiplied like the rest. */
typedef struct {
    fd_cpu_bsource_t src; /* first */
    const fd_conv_problem_t *p;
    const float *dy; /* image n, channel 0 of group g */
    int64_t j0, ncols, k0, taps;
    ig_keep_t keep;
} ig_dsource_t;

static void ig_dblock(fd_cpu_bsource_t *s, int64_t k0, int64_t kc)
{
    ig_dsource_t *g = (ig_dsource_t *)s;
    (void)kc;
    g->k0 = k0;
    ig_keep_reset(&g->keep);
}

/* For run r of dx positions and a tap whose i + base[d] = o * stride: its entries [*a, *a + *cnt
 * * stride) along the last dim read dy at *off (the first one's, without the row's), one every
 * stride entries; *cnt = 0 when the run reads nothing (its o0, o1 or all of it fall between
 * strides or in the padding). */
static inline __attribute__((always_inline)) void ig_drun(const fd_conv_problem_t *p,
                                                          const int64_t *base, const ig_run_t *r,
                                                          int64_t *off, int64_t *a, int64_t *cnt)
{
    const int64_t o[2] = {r->o0, r->o1};
    *off = 0, *a = 0, *cnt = 0;
    for (int d = 0; d < 2; d++) {
        const int64_t v = o[d] + base[d], st = p->stride[d];
        if (v < 0 || v % st != 0 || v / st >= p->out[d])
            return;
        *off += v / st * p->ys[2 + d];
    }
    const int64_t v = r->o2 + base[2], st = p->stride[2];
    int64_t e = v >= 0 ? 0 : -v;
    e += (st - (v + e) % st) % st; /* the first entry on a multiple of the stride */
    if (e >= r->len)
        return;
    const int64_t q = (v + e) / st, room = p->out[2] - q, want = (r->len - e + st - 1) / st;
    *a = e, *cnt = want < room ? want : room;
    *off += q * p->ys[4];
}

/* The rows of tap t in the current K block ((k, tap) rows from g->k0, taps innermost): returns
 * the first one (kc or more when it has none there) and, for each of the nrun runs of dx
 * positions, where it reads dy (ig_drun). */
static inline __attribute__((always_inline)) int64_t ig_dtap(const ig_dsource_t *g, int64_t t,
                                                             int64_t kc, const ig_run_t *run,
                                                             int nrun, int64_t *roff, int64_t *ra,
                                                             int64_t *rn)
{
    const fd_conv_problem_t *p = g->p;
    const int64_t taps = g->taps, kk0 = (t - g->k0 % taps + taps) % taps;
    if (kk0 >= kc)
        return kk0;
    const int64_t q = (g->k0 + kk0) % taps;
    const int64_t tm[3] = {q / (p->flt[1] * p->flt[2]), q / p->flt[2] % p->flt[1], q % p->flt[2]};
    int64_t base[3];
    for (int d = 0; d < 3; d++)
        base[d] = p->pad[d] - fd_col_tap(p, d, tm[d]) * p->dil[d];
    for (int i = 0; i < nrun; i++)
        ig_drun(p, base, &run[i], &roff[i], &ra[i], &rn[i]);
    return kk0;
}

/* Rows [0, kc) of the current K block x dx positions g->j0 + j0 .. + nr into bp[kk * width + j]
 * (zeros in [nr, width)), element by element: the CBLAS path. */
static void ig_dfill_c(const ig_dsource_t *g, int64_t kc, int64_t j0, int nr, int width, float *bp)
{
    const fd_conv_problem_t *p = g->p;
    static const int64_t none[3] = {0, 0, 0};
    ig_run_t run[IG_NB_MAX];
    int64_t roff[IG_NB_MAX], ra[IG_NB_MAX], rn[IG_NB_MAX];
    const int nrun = ig_runs(p->in, none, g->j0 + j0, nr, run);
    const int64_t step = p->ys[4], st = p->stride[2];
    for (int64_t kk = 0; kk < kc; kk++)
        for (int j = 0; j < width; j++)
            bp[kk * width + j] = 0.0f;
    for (int64_t t = 0; t < g->taps; t++)
        for (int64_t kk = ig_dtap(g, t, kc, run, nrun, roff, ra, rn); kk < kc; kk += g->taps) {
            const float *row = g->dy + (g->k0 + kk) / g->taps * p->ys[1];
            for (int i = 0; i < nrun; i++)
                for (int64_t e = 0; e < rn[i]; e++)
                    bp[kk * width + run[i].j + ra[i] + e * st] = row[roff[i] + e * step];
        }
}

#if IG_X86
/* dst[a + i * st] = dy[base + i * step] for i < cnt, zeros elsewhere in [0, len). */
static __attribute__((target("avx512f"))) void ig_spread(float *dst, const float *dy, int64_t base,
                                                         int64_t step, int len, int64_t a,
                                                         int64_t cnt, int64_t st)
{
    for (int e0 = 0; e0 < len; e0 += 16)
        _mm512_mask_storeu_ps(dst + e0, ig_lanes(0, len - e0), _mm512_setzero_ps());
    for (int64_t i = 0; i < cnt; i++)
        dst[a + i * st] = dy[base + i * step];
}

/* Rows kk0, kk0 + taps, .. < kc of the panel for a stride-1 tap over unit-step dy (NCHW): per
 * run, lanes [a, a + cnt) of its (at most 32) entries by masked loads from its dy row, the
 * masks and offsets worked out once for all the tap's rows. */
static __attribute__((target("avx512f"))) void ig_dunit(const ig_dsource_t *g, const ig_run_t *run,
                                                        int nrun, const int64_t *roff,
                                                        const int64_t *ra, const int64_t *rn,
                                                        int64_t kk0, int64_t kc, float *bp)
{
    __mmask16 lm[FD_CPU_SGEMM_NR][2], sm[FD_CPU_SGEMM_NR][2];
    int64_t from[FD_CPU_SGEMM_NR];
    for (int i = 0; i < nrun; i++) {
        const int64_t a = ra[i], b = ra[i] + rn[i];
        lm[i][0] = ig_lanes(a, b), lm[i][1] = ig_lanes(a - 16, b - 16);
        sm[i][0] = ig_lanes(0, run[i].len), sm[i][1] = ig_lanes(-16, run[i].len - 16);
        from[i] = roff[i] - a;
    }
    const int64_t taps = g->taps, ys1 = g->p->ys[1];
    for (int64_t kk = kk0; kk < kc; kk += taps) {
        float *dst = bp + kk * FD_CPU_SGEMM_NR;
        const uintptr_t row = (uintptr_t)g->dy + (uintptr_t)((g->k0 + kk) / taps * ys1) * 4u;
        for (int i = 0; i < nrun; i++) {
            const float *src = (const float *)(row + (uintptr_t)from[i] * 4u);
            _mm512_mask_storeu_ps(dst + run[i].j, sm[i][0], _mm512_maskz_loadu_ps(lm[i][0], src));
            if (run[i].len > 16)
                _mm512_mask_storeu_ps(
                    dst + run[i].j + 16, sm[i][1],
                    _mm512_maskz_loadu_ps(lm[i][1], (const float *)((uintptr_t)src + 64u)));
        }
    }
}

/* The panel tap by tap: each tap's run geometry once, then its rows (every taps-th). */
static __attribute__((target("avx512f"))) float *
ig_dpanel(fd_cpu_bsource_t *s, int64_t k0, int64_t kc, int64_t j0, int nr, float *bp)
{
    ig_dsource_t *g = (ig_dsource_t *)s;
    (void)k0;
    float *kept = ig_keep_find(&g->keep, g->ncols, j0, &bp);
    if (kept != NULL)
        return kept;
    const fd_conv_problem_t *p = g->p;
    static const int64_t none[3] = {0, 0, 0};
    ig_run_t run[FD_CPU_SGEMM_NR];
    int64_t roff[FD_CPU_SGEMM_NR], ra[FD_CPU_SGEMM_NR], rn[FD_CPU_SGEMM_NR];
    const int nrun = ig_runs(p->in, none, g->j0 + j0, nr, run);
    const int64_t step = p->ys[4], st = p->stride[2], taps = g->taps;
    for (int64_t t = 0; t < taps; t++) {
        const int64_t kk0 = ig_dtap(g, t, kc, run, nrun, roff, ra, rn);
        if (kk0 >= kc)
            continue;
        if (st == 1 && step == 1) {
            ig_dunit(g, run, nrun, roff, ra, rn, kk0, kc, bp);
            continue;
        }
        for (int64_t kk = kk0; kk < kc; kk += taps) {
            float *dst = bp + kk * FD_CPU_SGEMM_NR;
            const int64_t row = (g->k0 + kk) / taps * p->ys[1];
            for (int i = 0; i < nrun; i++) {
                if (st == 1) /* lanes [a, a + cnt) from a run of dy (masked loads or a gather) */
                    ig_copy(dst + run[i].j, g->dy, row + roff[i] - ra[i] * step, step, run[i].len,
                            ra[i], ra[i] + rn[i]);
                else
                    ig_spread(dst + run[i].j, g->dy, row + roff[i], step, run[i].len, ra[i], rn[i],
                              st);
            }
        }
    }
    for (int64_t kk = 0; kk < kc; kk++)
        for (int j = nr; j < FD_CPU_SGEMM_NR; j++)
            bp[kk * FD_CPU_SGEMM_NR + j] = 0.0f;
    return bp;
}
#endif

/* One piece on CBLAS (no AVX-512F, or FREEDNN_CPU_GEMM=blas): for each block of IG_DMB
 * channels and K slice of FD_CPU_GEMM_KC_F32 (k, tap) rows, the slice of the filter copied once
 * into a stack buffer, then for each chunk of IG_NB_MAX dx positions dy_T's rows gathered and
 * one sgemm into dx (the first slice blending with beta); deterministic for any thread count
 * (fixed chunks, BLAS single-threaded). */
#define IG_DMB 64
static void ig_d_piece_blas(ig_dsource_t *s, int64_t cg, int64_t kt, float alpha, float beta,
                            const float *w, int64_t wt, float *dx, int64_t rs, int64_t cs)
{
    float abuf[IG_DMB * FD_CPU_GEMM_KC_F32], bbuf[FD_CPU_GEMM_KC_F32 * IG_NB_MAX];
    const fd_conv_problem_t *p = s->p;
    for (int64_t m0 = 0; m0 < cg; m0 += IG_DMB) {
        const int mb = (int)(cg - m0 < IG_DMB ? cg - m0 : IG_DMB);
        for (int64_t k0 = 0; k0 < kt; k0 += FD_CPU_GEMM_KC_F32) {
            const int kc = (int)(kt - k0 < FD_CPU_GEMM_KC_F32 ? kt - k0 : FD_CPU_GEMM_KC_F32);
            for (int i = 0; i < mb; i++)
                for (int kk = 0; kk < kc; kk++) {
                    const int64_t j = k0 + kk;
                    abuf[i * kc + kk] =
                        w[j / s->taps * p->ws[0] + j % s->taps * wt + (m0 + i) * p->ws[1]];
                }
            s->k0 = k0;
            const float b = k0 == 0 ? beta : 1.0f;
            for (int64_t j0 = 0; j0 < s->ncols; j0 += IG_NB_MAX) {
                const int nb = (int)(s->ncols - j0 < IG_NB_MAX ? s->ncols - j0 : IG_NB_MAX);
                ig_dfill_c(s, kc, j0, nb, nb, bbuf);
                if (cs == 1) /* dx row-major: C/G x nb at row stride rs */
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, mb, nb, kc, alpha, abuf,
                                kc, bbuf, nb, b, dx + m0 * rs + j0, (int)rs);
                else /* column-major (NHWC) */
                    cblas_sgemm(CblasColMajor, CblasTrans, CblasTrans, mb, nb, kc, alpha, abuf, kc,
                                bbuf, nb, b, dx + m0 + j0 * cs, (int)cs);
            }
        }
    }
}

/* ig_float_dense with the taps one run (dense NCHW or NHWC: *wt, their step, 1 or C/G), dx a C/G
 * x HW matrix per image (ig_view). */
static int ig_d_applicable(const fd_conv_problem_t *p, int64_t *wt, char *why, size_t why_size)
{
    if (!ig_float_dense(p, why, why_size))
        return 0;
    if (!fd_cpu_flat_run(p->flt, p->ws + 2, FD_CONV_SPATIAL_MAX, wt)) {
        snprintf(why, why_size,
                 "the filter's taps are not one run (a packed layout other than "
                 "NCHW or NHWC)");
        return 0;
    }
    const int64_t cg = p->c / p->groups, kg = p->k / p->groups;
    const int64_t kt = kg * p->flt[0] * p->flt[1] * p->flt[2];
    const int64_t hw = p->in[0] * p->in[1] * p->in[2];
    int64_t rs, cs;
    if (!ig_view(p->in, p->xs + 1, cg, hw, &rs, &cs)) {
        snprintf(why, why_size,
                 "dx is not a C/G x HW matrix per image with a unit stride (padded strides)");
        return 0;
    }
    if (cg > INT_MAX || kt > INT_MAX || hw > INT_MAX) {
        snprintf(why, why_size, "a GEMM dimension (C/G %lld, K/G x taps %lld, HW %lld) exceeds int",
                 (long long)cg, (long long)kt, (long long)hw);
        return 0;
    }
    return 1;
}

/* dx positions [lo, hi) of image n, group g, one SGEMM call: each element a sum over K blocks
 * of (k, tap) rows in order, the same for any thread count (ig_team's fixed pieces). */
static void ig_d_piece(const fd_conv_problem_t *p, const fd_conv_args_t *a, int own, int64_t n,
                       int64_t g, int64_t lo, int64_t hi)
{
    const int64_t cg = p->c / p->groups, kg = p->k / p->groups;
    const int64_t taps = p->flt[0] * p->flt[1] * p->flt[2];
    const int64_t hw = p->in[0] * p->in[1] * p->in[2];
    int64_t rs, cs, wt;
    ig_view(p->in, p->xs + 1, cg, hw, &rs, &cs); /* dx's C/G x HW view */
    fd_cpu_flat_run(p->flt, p->ws + 2, FD_CONV_SPATIAL_MAX, &wt);
    ig_dsource_t s;
    s.src.block = ig_dblock;
#if IG_X86
    s.src.panel = ig_dpanel;
#endif
    s.p = p, s.j0 = lo, s.ncols = hi - lo, s.taps = taps;
    s.dy = (const float *)a->y + n * p->ys[0] + g * kg * p->ys[1];
    const float *w = (const float *)a->w + g * kg * p->ws[0];
    float *dx = (float *)a->out + n * p->xs[0] + g * cg * p->xs[1] + lo * cs;
    if (own)
        fd_cpu_sgemm_avx512_src2(cg, hi - lo, kg * taps, (float)a->alpha, w, p->ws[1], wt, taps,
                                 p->ws[0], &s.src, (float)a->beta, dx, rs, cs);
    else
        ig_d_piece_blas(&s, cg, kg * taps, (float)a->alpha, (float)a->beta, w, wt, dx, rs, cs);
}

static cudnnStatus_t ig_d_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    const int64_t hw = p->in[0] * p->in[1] * p->in[2];
    ig_team(p, a, hw,
            p->c / p->groups * hw * (p->k / p->groups) * p->flt[0] * p->flt[1] * p->flt[2],
            ig_d_piece);
    return CUDNN_STATUS_SUCCESS;
}

static int ig_d_applicable_row(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    int64_t wt;
    return ig_d_applicable(p, &wt, why, why_size);
}

/* The three rows of src/impls.def: no workspace. */
#define IG_ROW(dir, applicable, run)                                                               \
    int fd_conv_##dir##_implicit_f32_applicable(const fd_conv_problem_t *p, char *why,             \
                                                size_t why_size)                                   \
    {                                                                                              \
        return applicable(p, why, why_size);                                                       \
    }                                                                                              \
    size_t fd_conv_##dir##_implicit_f32_workspace(const fd_conv_problem_t *p)                      \
    {                                                                                              \
        (void)p;                                                                                   \
        return 0;                                                                                  \
    }                                                                                              \
    cudnnStatus_t fd_conv_##dir##_implicit_f32_run(const fd_conv_problem_t *p,                     \
                                                   const fd_conv_args_t *a)                        \
    {                                                                                              \
        return run(p, a);                                                                          \
    }
IG_ROW(fwd, ig_applicable, ig_run)
IG_ROW(bwd_data, ig_d_applicable_row, ig_d_run)
IG_ROW(bwd_filter, ig_w_applicable, ig_w_run)
