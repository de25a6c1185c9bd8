/* SPDX-License-Identifier: MIT */
/*
 * conv_implicit.c - forward convolution as an implicit GEMM on the cpu backend, with no
 * workspace: FWD IMPLICIT_GEMM (src/impls.def), whose contract is no workspace, for the
 * problems the copy-free 1x1 and depthwise rows do not take. Before this row those fell to the
 * ref oracle (ResNet-50's conv1 at 579 ms instead of 2 ms on one core), which a program that
 * names IMPLICIT_GEMM, or asks cudnnGetConvolutionForwardAlgorithm_v7 for a workspace-free
 * algorithm, would have run.
 *
 * GEMM mapping per image n and group g, as the im2col row (conv_gemm.c):
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
 */
#include <cblas.h>
#include <limits.h>
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif

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

/* The source of one SGEMM call: image n, group g, output positions [j0, j0 + ncols) of PQ. */
typedef struct {
    fd_cpu_bsource_t src; /* first: the SGEMM's callbacks get this struct's address */
    const fd_conv_problem_t *p;
    const float *x; /* image n, channel 0 of group g */
    int64_t cg, j0, ncols;
    int64_t os[3];     /* x step of one output position along each dim: stride * x stride */
    int kept[IG_KEEP]; /* keep[i] holds panel i of the current K block */
    ig_row_t rows[FD_CPU_SGEMM_KC]; /* the K block ig_block last described */
    float keep[IG_KEEP][FD_CPU_SGEMM_KC * FD_CPU_SGEMM_NR] __attribute__((aligned(64)));
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
    for (int i = 0; i < IG_KEEP; i++)
        g->kept[i] = 0;
    for (int64_t q = 0; q < kc; q++)
        ig_row_of(g->p, g->cg, k0 + q, &g->rows[q]);
}

/* A run: entries [j, j + len) are output positions (o0, o1, o2 .. o2 + len - 1), whose x offset
 * at o2 is `off` (before the row's own). */
typedef struct {
    int j, len;
    int64_t o0, o1, o2, off;
} ig_run_t;

/* Output positions [l, l + count) cut into runs along the last output dim (os: the x step of
 * one position along each dim); returns the number of runs (at most count). */
static int ig_runs(const fd_conv_problem_t *p, const int64_t *os, int64_t l, int count,
                   ig_run_t *run)
{
    int64_t o2 = l % p->out[2], o1 = l / p->out[2] % p->out[1], o0 = l / (p->out[2] * p->out[1]);
    int nrun = 0;
    for (int j = 0; j < count; nrun++) {
        ig_run_t *r = &run[nrun];
        r->j = j, r->o0 = o0, r->o1 = o1, r->o2 = o2;
        r->len = (int)(p->out[2] - o2 < count - j ? p->out[2] - o2 : count - j);
        r->off = o0 * os[0] + o1 * os[1] + o2 * os[2];
        j += r->len;
        o2 = 0;
        if (++o1 == p->out[1])
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
static void ig_gather(const ig_source_t *g, int64_t kc, int64_t j0, int nr, int width, float *bp,
                      ig_copy_fn copy)
{
    ig_run_t run[IG_NB_MAX];
    const int nrun = ig_runs(g->p, g->os, g->j0 + j0, nr, run);
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
static __attribute__((target("avx512f"))) void ig_copy(float *dst, const float *x, int64_t base,
                                                       int64_t step, int len, int64_t a, int64_t b)
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

static float *ig_panel(fd_cpu_bsource_t *s, int64_t k0, int64_t kc, int64_t j0, int nr, float *bp)
{
    ig_source_t *g = (ig_source_t *)s;
    (void)k0;
    const int64_t slot = j0 / FD_CPU_SGEMM_NR;
    if (g->ncols <= IG_KEEP * FD_CPU_SGEMM_NR) { /* every panel fits: gather each once */
        if (g->kept[slot])
            return g->keep[slot];
        g->kept[slot] = 1, bp = g->keep[slot];
    }
    ig_gather(g, kc, j0, nr, FD_CPU_SGEMM_NR, bp, ig_copy);
    return bp;
}
#endif /* IG_X86 */

/* y of one image and group as a K/G x PQ matrix: row-major (NCHW) or column-major (NHWC), i.e.
 * the output positions one run of one step and one of the two strides 1; 1 on success. */
static int ig_y_view(const fd_conv_problem_t *p, int64_t kg, int64_t l, int64_t *rs, int64_t *cs)
{
    *rs = p->ys[1];
    return fd_cpu_flat_run(p->out, p->ys + 2, FD_CONV_SPATIAL_MAX, cs) &&
           fd_cpu_view_ok(kg, l, rs, cs);
}

/* What both rows need: FLOAT, a dense K/G x CRS filter (packed NCHW or NHWC), y (dy) a K/G x
 * PQ matrix per image (ig_y_view), GEMM dimensions within int. */
static int ig_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    if (!fd_cpu_dtype_ok(p, CUDNN_DATA_FLOAT, why, why_size))
        return 0;
    const int64_t cg = p->c / p->groups, kg = p->k / p->groups;
    const int64_t taps = p->flt[0] * p->flt[1] * p->flt[2], crs = cg * taps;
    const int64_t l = p->out[0] * p->out[1] * p->out[2];
    int64_t last = 0; /* w must be a dense K/G x CRS matrix (packed NCHW or NHWC) */
    for (int i = 1; i < 2 + FD_CONV_SPATIAL_MAX; i++)
        last += ((i == 1 ? cg : p->flt[i - 2]) - 1) * p->ws[i];
    if (p->ws[0] != crs || last != crs - 1) {
        snprintf(why, why_size, "filter strides are not a packed NCHW or NHWC layout");
        return 0;
    }
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

static cudnnStatus_t ig_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    const int64_t cg = p->c / p->groups, kg = p->k / p->groups;
    const int64_t crs = cg * p->flt[0] * p->flt[1] * p->flt[2];
    const int64_t l = p->out[0] * p->out[1] * p->out[2];
    int64_t rs, cs;
    ig_y_view(p, kg, l, &rs, &cs); /* y's K/G x PQ view (ig_applicable checked it) */
    const int parts = fd_cpu_split_parts(l);
    /* below ~2^19 multiply-adds an image a team costs more than it saves */
    const int nt = parts > 1 && kg * l * crs >= (1 << 19) ? fd_cpu_team_size() : 1;
    const int own = IG_X86 && fd_cpu_sgemm_own();
    const float *xa = a->x, *wa = a->w;
    float *ya = a->out;
    if (!own)
        fd_cpu_blas_serial_begin();
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t g = 0; g < p->groups; g++) {
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
            for (int part = 0; part < parts; part++) {
                int64_t lo, hi;
                fd_cpu_part(l, 16, parts, part, &lo, &hi);
                if (hi <= lo)
                    continue;
                ig_source_t s;
                s.src.block = ig_block;
#if IG_X86
                s.src.panel = ig_panel;
#endif
                s.p = p, s.cg = cg, s.j0 = lo, s.ncols = hi - lo;
                s.x = xa + n * p->xs[0] + g * cg * p->xs[1];
                for (int d = 0; d < 3; d++)
                    s.os[d] = p->stride[d] * p->xs[2 + d];
                const float *w = wa + g * kg * p->ws[0];
                float *y = ya + n * p->ys[0] + g * kg * p->ys[1] + lo * cs;
                if (own)
                    fd_cpu_sgemm_avx512_src(kg, hi - lo, crs, (float)a->alpha, w, p->ws[0], 1,
                                            &s.src, (float)a->beta, y, rs, cs);
                else
                    ig_piece_blas(&s, kg, crs, (float)a->alpha, (float)a->beta, w, y, rs, cs);
            }
        }
    if (!own)
        fd_cpu_blas_serial_end();
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
    g->nrun = ig_runs(g->p, g->os, k0, (int)kc, g->run);
}

#if IG_X86
static float *ig_wpanel(fd_cpu_bsource_t *s, int64_t k0, int64_t kc, int64_t j0, int nr, float *bp)
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

static int ig_w_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    if (!IG_X86 || !fd_cpu_sgemm_own()) {
        snprintf(why, why_size,
                 "backward filter without workspace runs on our AVX-512 SGEMM "
                 "only (no AVX-512F, or FREEDNN_CPU_GEMM=blas)");
        return 0;
    }
    return ig_applicable(p, why, why_size);
}

/* Pieces of CRS (fixed by the shape) on the team, each summing every image in order into its
 * columns of dw, the first image blending with beta: the im2col row's (ALGO_1) sum order and
 * bits on the same SGEMM. */
static cudnnStatus_t ig_w_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
#if IG_X86
    const int64_t cg = p->c / p->groups, kg = p->k / p->groups;
    const int64_t crs = cg * p->flt[0] * p->flt[1] * p->flt[2];
    const int64_t l = p->out[0] * p->out[1] * p->out[2];
    int64_t rs, cs;
    ig_y_view(p, kg, l, &rs, &cs); /* dy's K/G x PQ view */
    const int parts = fd_cpu_split_parts(crs);
    const int nt = parts > 1 && kg * l * crs >= (1 << 19) ? fd_cpu_team_size() : 1;
    const float *xa = a->x, *dya = a->y;
    float *dwa = a->out;
    for (int64_t g = 0; g < p->groups; g++) {
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
        for (int part = 0; part < parts; part++) {
            int64_t lo, hi;
            fd_cpu_part(crs, 16, parts, part, &lo, &hi);
            if (hi <= lo)
                continue;
            ig_wsource_t s;
            s.src.block = ig_wblock, s.src.panel = ig_wpanel;
            s.p = p, s.cg = cg, s.c0 = lo;
            for (int d = 0; d < 3; d++)
                s.os[d] = p->stride[d] * p->xs[2 + d];
            for (int64_t n = 0; n < p->n; n++) {
                s.x = xa + n * p->xs[0] + g * cg * p->xs[1];
                fd_cpu_sgemm_avx512_src(kg, hi - lo, l, (float)a->alpha,
                                        dya + n * p->ys[0] + g * kg * p->ys[1], rs, cs, &s.src,
                                        n == 0 ? (float)a->beta : 1.0f,
                                        dwa + g * kg * p->ws[0] + lo, p->ws[0], 1);
            }
        }
    }
    return CUDNN_STATUS_SUCCESS;
#else
    (void)p, (void)a;
    return CUDNN_STATUS_NOT_SUPPORTED; /* never: not applicable without AVX-512 */
#endif
}

int fd_conv_bwd_filter_implicit_f32_applicable(const fd_conv_problem_t *p, char *why,
                                               size_t why_size)
{
    return ig_w_applicable(p, why, why_size);
}

size_t fd_conv_bwd_filter_implicit_f32_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}

cudnnStatus_t fd_conv_bwd_filter_implicit_f32_run(const fd_conv_problem_t *p,
                                                  const fd_conv_args_t *a)
{
    return ig_w_run(p, a);
}

int fd_conv_fwd_implicit_f32_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    return ig_applicable(p, why, why_size);
}

size_t fd_conv_fwd_implicit_f32_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}

cudnnStatus_t fd_conv_fwd_implicit_f32_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    return ig_run(p, a);
}
