/* SPDX-License-Identifier: MIT */
/*
 * test_cpu_sgemm.c - the cpu backend's own AVX-512 SGEMM (src/cpu/sgemm_avx512.c, compiled into
 * this test as is: fd_cpu_sgemm_avx512 is internal) against a naive double-accumulated loop.
 *
 * - Shapes that hit each branch: M below, at and past the 12-row micro-tile and the 96-row
 *   block (fringe tiles of 1 to 11 rows), N at 1, below / at / past 16 and 32 (one- and
 *   two-vector tiles, masked last vectors), K at 1, below 16 (the transposing packers' tail),
 *   at and past the 256-deep K block. Row tiles are balanced (a block of 13 rows: 7 + 6), and
 *   a small N with a larger M (N = 1, 7, 17, 33 below M = 35 .. 200; 1024 x 49) runs with M
 *   along the vectors and tiles stored transposed: both store paths are covered.
 * - Every combination of A, B and C row- / column-major with padded leading dimensions, and
 *   general strided views (no unit stride: the scalar packers); alpha / beta including
 *   beta = 0 over NaN poison (C must not be read), beta = 1 and a negative beta.
 * - Canaries: the padding between C's rows / columns must keep its poison, the buffers' guard
 *   bytes intact, A and B unchanged.
 * - Small-integer fills make every sum exact: those must agree bit for bit; real fills within
 *   the f32 GEMM bound of docs/testing.md (fd_tolerance with K terms).
 * - Operands past half of L2 (the size from which the tiles prefetch the next B panel).
 * - The same C computed in pieces (split along M and along N at other points) has the same
 *   bits: the sum order depends on K only.
 * - fd_cpu_sgemm_avx512_src2: B from a source, A's columns in runs (run_inner).
 * Skips (passes) on a CPU without AVX-512F.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../src/cpu/sgemm_avx512.c"
#include "fd_test.h"

typedef struct {
    int64_t rows, cols, rs, cs, span; /* span: elements from the base to past the last one */
} view_t;

/* layout 0: row-major, 1: column-major (leading dimensions padded by 5), 2: neither stride 1 */
static view_t make_view(int64_t rows, int64_t cols, int layout)
{
    view_t v = {rows, cols, 0, 0, 0};
    if (layout == 0)
        v.rs = cols + 5, v.cs = 1;
    else if (layout == 1)
        v.rs = 1, v.cs = rows + 5;
    else
        v.rs = 2, v.cs = 2 * rows + 3;
    v.span = (rows - 1) * v.rs + (cols - 1) * v.cs + 1;
    return v;
}

static float *at(fd_buf_t *b, const view_t *v, int64_t i, int64_t j)
{
    return (float *)b->data + i * v->rs + j * v->cs;
}

static int g_checked;

/* One call of fd_cpu_sgemm_avx512 against the double loop; exact: integer fills, bitwise. */
static void run_case(int64_t m, int64_t n, int64_t k, int la, int lb, int lc, float alpha,
                     float beta, int exact, uint64_t seed)
{
    view_t va = make_view(m, k, la), vb = make_view(k, n, lb), vc = make_view(m, n, lc);
    fd_buf_t a = fd_buf_alloc(va.span * 4), b = fd_buf_alloc(vb.span * 4);
    fd_buf_t c = fd_buf_alloc(vc.span * 4), c0 = fd_buf_alloc(vc.span * 4);
    fd_rng_t r;
    fd_rng_seed(&r, seed);
    if (exact) {
        fd_fill_int(&r, CUDNN_DATA_FLOAT, a.data, va.span, -3, 3, 1.0);
        fd_fill_int(&r, CUDNN_DATA_FLOAT, b.data, vb.span, -3, 3, 1.0);
        fd_fill_int(&r, CUDNN_DATA_FLOAT, c.data, vc.span, -8, 8, 1.0);
    } else {
        fd_fill_real(&r, CUDNN_DATA_FLOAT, a.data, va.span, -1, 1);
        fd_fill_real(&r, CUDNN_DATA_FLOAT, b.data, vb.span, -1, 1);
        fd_fill_real(&r, CUDNN_DATA_FLOAT, c.data, vc.span, -1, 1);
    }
    /* the gaps between C's elements: poison that must survive */
    for (int64_t e = 0; e < vc.span; e++)
        ((uint32_t *)c.data)[e] = 0x7FC0DEADu;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            *at(&c, &vc, i, j) = beta == 0.0f ? NAN : (float)((i * 7 + j * 3) % 17 - 8) / 4.0f;
    memcpy(c0.data, c.data, vc.span * 4);
    const uint64_t ha = fd_buf_hash(&a), hb = fd_buf_hash(&b);

    fd_cpu_sgemm_avx512(m, n, k, alpha, a.data, va.rs, va.cs, b.data, vb.rs, vb.cs, beta, c.data,
                        vc.rs, vc.cs);

    int bad = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double acc = 0, mag = 0;
            for (int64_t q = 0; q < k; q++) {
                double p = (double)*at(&a, &va, i, q) * *at(&b, &vb, q, j);
                acc += p, mag += fabs(p);
            }
            const double old = beta == 0.0f ? 0.0 : *at(&c0, &vc, i, j);
            const double want = (double)alpha * acc + (double)beta * old;
            const double got = *at(&c, &vc, i, j);
            const double tol = exact ? 0.0
                                     : fd_tolerance(CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, k + 2,
                                                    fabs(alpha) * mag + fabs(beta * old), want);
            if (!(fabs(got - want) <= tol) && bad++ < 3)
                FD_EXPECT(0, "%ldx%ldx%ld l%d%d%d a%g b%g (%ld,%ld): got %.9g want %.9g", (long)m,
                          (long)n, (long)k, la, lb, lc, alpha, beta, (long)i, (long)j, got, want);
            *at(&c, &vc, i, j) = *at(&c0, &vc, i, j);
        }
    FD_EXPECT(memcmp(c.data, c0.data, vc.span * 4) == 0, "%ldx%ldx%ld l%d%d%d: gap written",
              (long)m, (long)n, (long)k, la, lb, lc);
    FD_EXPECT(fd_buf_guards_ok(&a) && fd_buf_guards_ok(&b) && fd_buf_guards_ok(&c),
              "%ldx%ldx%ld: guards", (long)m, (long)n, (long)k);
    FD_EXPECT(fd_buf_hash(&a) == ha && fd_buf_hash(&b) == hb, "%ldx%ldx%ld: inputs changed",
              (long)m, (long)n, (long)k);
    g_checked++;
    fd_buf_free(&a), fd_buf_free(&b), fd_buf_free(&c), fd_buf_free(&c0);
}

/* C in one call and in pieces along M (at 40) and N (at 24): identical bits. */
static void run_split(int64_t m, int64_t n, int64_t k, int la, int lb, int lc)
{
    view_t va = make_view(m, k, la), vb = make_view(k, n, lb), vc = make_view(m, n, lc);
    fd_buf_t a = fd_buf_alloc(va.span * 4), b = fd_buf_alloc(vb.span * 4);
    fd_buf_t c1 = fd_buf_alloc(vc.span * 4), c2 = fd_buf_alloc(vc.span * 4);
    fd_rng_t r;
    fd_rng_seed(&r, (uint64_t)(m * 1000003 + n * 1009 + k));
    fd_fill_real(&r, CUDNN_DATA_FLOAT, a.data, va.span, -1, 1);
    fd_fill_real(&r, CUDNN_DATA_FLOAT, b.data, vb.span, -1, 1);
    fd_fill_real(&r, CUDNN_DATA_FLOAT, c1.data, vc.span, -1, 1);
    memcpy(c2.data, c1.data, vc.span * 4);
    const float *A = a.data, *B = b.data;
    float *C2 = c2.data;
    fd_cpu_sgemm_avx512(m, n, k, 1.5f, A, va.rs, va.cs, B, vb.rs, vb.cs, 0.5f, c1.data, vc.rs,
                        vc.cs);
    const int64_t ms = 40, ns = 24;
    fd_cpu_sgemm_avx512(ms, ns, k, 1.5f, A, va.rs, va.cs, B, vb.rs, vb.cs, 0.5f, C2, vc.rs, vc.cs);
    fd_cpu_sgemm_avx512(ms, n - ns, k, 1.5f, A, va.rs, va.cs, B + ns * vb.cs, vb.rs, vb.cs, 0.5f,
                        C2 + ns * vc.cs, vc.rs, vc.cs);
    fd_cpu_sgemm_avx512(m - ms, n, k, 1.5f, A + ms * va.rs, va.rs, va.cs, B, vb.rs, vb.cs, 0.5f,
                        C2 + ms * vc.rs, vc.rs, vc.cs);
    FD_EXPECT(memcmp(c1.data, c2.data, vc.span * 4) == 0, "%ldx%ldx%ld l%d%d%d: split bits",
              (long)m, (long)n, (long)k, la, lb, lc);
    fd_buf_free(&a), fd_buf_free(&b), fd_buf_free(&c1), fd_buf_free(&c2);
}

/* fd_cpu_sgemm_avx512_src2: B from a source (a stored row-major matrix, panel by panel) and A
 * with its columns in runs of `inner` (column j at (j / inner) * ocs + (j % inner) * cs; the
 * backward-data implicit GEMM's filter view): lay 0 taps contiguous (cs = 1, the transposing
 * packer), 1 rows contiguous (rs = 1), 2 neither (the scalar packer); C row- or column-major.
 * Integer fills: bit for bit against the double loop. */
typedef struct {
    fd_cpu_bsource_t src; /* first */
    const float *b;
    int64_t ld;
} tsrc_t;

static void ts_block(fd_cpu_bsource_t *s, int64_t k0, int64_t kc)
{
    (void)s, (void)k0, (void)kc;
}

static float *ts_panel(fd_cpu_bsource_t *s, int64_t k0, int64_t kc, int64_t j0, int nr, float *bp)
{
    const tsrc_t *t = (const tsrc_t *)s;
    for (int64_t kk = 0; kk < kc; kk++)
        for (int j = 0; j < FD_CPU_SGEMM_NR; j++)
            bp[kk * FD_CPU_SGEMM_NR + j] = j < nr ? t->b[(k0 + kk) * t->ld + j0 + j] : 0.0f;
    return bp;
}

static void run_inner(int64_t m, int64_t n, int64_t inner, int64_t outer, int lay, int ccol,
                      uint64_t seed)
{
    const int64_t k = inner * outer;
    int64_t rs, cs;
    if (lay == 0)
        rs = inner, cs = 1;
    else if (lay == 1)
        rs = 1, cs = m;
    else
        rs = 2 * inner + 1, cs = 2;
    const int64_t ocs = m * inner * 3,
                  aspan = (outer - 1) * ocs + (m - 1) * rs + (inner - 1) * cs + 1;
    fd_buf_t a = fd_buf_alloc(aspan * 4), b = fd_buf_alloc(k * n * 4), c = fd_buf_alloc(m * n * 4);
    fd_rng_t r;
    fd_rng_seed(&r, seed);
    fd_fill_int(&r, CUDNN_DATA_FLOAT, a.data, aspan, -3, 3, 1.0);
    fd_fill_int(&r, CUDNN_DATA_FLOAT, b.data, k * n, -3, 3, 1.0);
    const float *A = a.data, *B = b.data;
    float *C = c.data;
    for (int64_t e = 0; e < m * n; e++)
        C[e] = NAN; /* beta = 0: never read */
    tsrc_t src = {{ts_block, ts_panel}, B, n};
    const int64_t c_rs = ccol ? 1 : n, c_cs = ccol ? m : 1;
    fd_cpu_sgemm_avx512_src2(m, n, k, 2.0f, A, rs, cs, inner, ocs, &src.src, 0.0f, C, c_rs, c_cs);
    int bad = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double acc = 0;
            for (int64_t q = 0; q < k; q++)
                acc += (double)A[q / inner * ocs + i * rs + q % inner * cs] * B[q * n + j];
            const double got = C[i * c_rs + j * c_cs];
            if (got != 2.0 * acc && bad++ < 3)
                FD_EXPECT(
                    0, "src2 %ldx%ld inner %ld x %ld lay %d ccol %d (%ld,%ld): got %.9g want %.9g",
                    (long)m, (long)n, (long)inner, (long)outer, lay, ccol, (long)i, (long)j, got,
                    2.0 * acc);
        }
    FD_EXPECT(fd_buf_guards_ok(&a) && fd_buf_guards_ok(&b) && fd_buf_guards_ok(&c),
              "src2 %ldx%ld: guards", (long)m, (long)n);
    g_checked++;
    fd_buf_free(&a), fd_buf_free(&b), fd_buf_free(&c);
}

int main(void)
{
    if (!fd_cpu_sgemm_avx512_ok()) {
        printf("no AVX-512F: skipped\n");
        return fd_test_finish();
    }
    static const int64_t ms[] = {1, 5, 12, 13, 35, 96, 97, 200};
    static const int64_t ns[] = {1, 7, 16, 17, 32, 33, 47, 100};
    static const int64_t ks[] = {1, 9, 16, 255, 256, 257, 600};
    static const float ab[][2] = {{1.0f, 0.0f}, {2.0f, 1.0f}, {-0.5f, -0.75f}, {1.0f, 1.0f}};
    uint64_t seed = 1;
    /* every transpose combination on a spread of shapes */
    for (int lay = 0; lay < 18; lay++) /* C needs a unit stride: layouts 0 and 1 only */
        for (int s = 0; s < 8; s++) {
            const int64_t m = ms[(s + lay) % 8], n = ns[(s * 3 + lay) % 8];
            const int64_t k = ks[(s + 2 * lay) % 7];
            const float *x = ab[(s + lay) % 4];
            run_case(m, n, k, lay % 3, lay / 3 % 3, lay / 9, x[0], x[1], s % 2, seed++);
        }
    /* every M and N edge with both C layouts, row-major and column-major operands */
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            run_case(ms[i], ns[j], 40 + i + j, (i + j) % 2, i % 2, j % 2, 1.0f, (i + j) % 3 * 0.5f,
                     (i * j) % 2, seed++);
    /* K edges */
    for (int q = 0; q < 7; q++)
        for (int l = 0; l < 4; l++)
            run_case(29, 45, ks[q], l % 2, l / 2, q % 2, 1.0f, 1.0f, l % 2, seed++);
    /* a conv-sized case, exact and real */
    run_case(130, 300, 700, 0, 0, 0, 1.0f, 0.0f, 1, seed++);
    run_case(70, 260, 520, 0, 1, 0, 1.0f, 0.5f, 0, seed++);
    run_case(1024, 49, 520, 0, 0, 0, 1.0f, 0.0f, 0, seed++); /* M along the vectors */
    run_case(300, 49, 300, 1, 1, 0, 0.5f, 1.0f, 1, seed++);
    /* a B past half of any L2 up to 8 MiB: the tiles prefetch the next panel (rows of a
     * row-major B, columns of a column-major one), in both C modes, several M blocks */
    run_case(110, 3900, 300, 0, 0, 0, 1.0f, 0.0f, 1, seed++);
    run_case(13, 3900, 300, 1, 1, 0, 1.0f, 0.5f, 0, seed++);
    run_case(3900, 40, 300, 0, 0, 1, 1.0f, 0.0f, 1, seed++); /* C^T: B^T is the big operand */
    run_case(200, 49, 5200, 0, 1, 0, 1.0f, 0.0f, 1, seed++); /* M along the vectors */
    for (int l = 0; l < 8; l++) {
        run_split(100, 90, 300, l & 1, (l >> 1) & 1, l >> 2);
        run_split(200, 49, 300, l & 1, (l >> 1) & 1, l >> 2); /* pieces in both modes */
    }
    /* A in runs (fd_cpu_sgemm_avx512_src2): K blocks cutting runs, one run longer than a block */
    static const int64_t runs[][2] = {{9, 40}, {49, 7}, {1, 300}, {300, 1}, {3, 2}};
    for (int i = 0; i < 5; i++)
        for (int lay = 0; lay < 3; lay++)
            run_inner(i % 2 ? 100 : 13, i % 2 ? 37 : 70, runs[i][0], runs[i][1], lay, (i + lay) % 2,
                      seed++);
    printf("%d GEMMs checked\n", g_checked);
    return fd_test_finish();
}
