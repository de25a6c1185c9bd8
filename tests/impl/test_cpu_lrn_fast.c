/* SPDX-License-Identifier: MIT */
/*
 * test_cpu_lrn_fast.c - the FLOAT rows of cpu cross-channel LRN (src/cpu/lrn_cpu.c: the AVX-512
 * float rows and the AVX2 float rows, "plane" (NCHW-like) and "pixel" (NHWC-like), and the
 * general double rows) against the ref row, through the public API (helpers: memops_case.h).
 *
 * Each case runs ref, then cpu with one thread with FREEDNN_CPU_ISA=avx512 (the machine's best
 * rows: AVX-512 where it has them, else AVX2), =avx2 (the AVX2 rows) and =generic (the general
 * rows), and cpu with two threads (ISA unset). Bit for bit: the two-thread run equals the
 * one-thread run 1 (thread count); without AVX-512, runs 1 and 2 (both the AVX2 rows) agree
 * too. Against ref, every cpu run, per element, u = 2^-24:
 *   |got - want| <= K u T + 2^-140,   K = 6 + beta (n + 2),
 *   T = |want| + |beta_blend y_old|  (+ |alpha dy| s^-beta + |alpha 2 beta alpha_lrn / n x|
 *       sum_{adjoint window} |dy y / s| backward; s the ref's scale, computed here in double;
 *       that last term counts twice for the runs of the common backward (beta 0.75, alpha 1,
 *       blend beta 0) that use their own y = x s^-beta, within the forward's K u |y| of ref's:
 *       the AVX-512 rows' NCHW plane rows and NHWC pixel rows with window 5 and C <= 64, the
 *       AVX2 rows' plane and pixel rows of every window and C). The backward's y is ref's
 *       forward output of x (the API's y; random y made those rows fail, as they should).
 *   The general rows (run 3) also within one rounding of ref: 2 u |want| + 2^-34 T (pow within
 *   2^-40, the ref's double formula, one rounding to float).
 * Why: the AVX-512 and AVX2 rows compute in float (product decision 2026-11-30): the window sum
 * of n squares (relative error <= n u, all terms >= 0) and the scale move s^-beta by about
 * beta (n + 1) u relative; s^-beta itself is within 1.92 ulp (beta 0.75), 1.04 (0.5), 0.53 (1),
 * 0.5 (other exponents) of the exact power on AVX-512, 1.67 ulp (beta 0.75, the AVX2 rows'
 * only exponent) on AVX2 (dense sweeps, lrn_cpu.c); the product, the blend and, backward,
 * 1 / s, the products dy y / s and the difference add a few roundings each, relative to the
 * magnitudes of the terms, hence T (the blend and the backward difference may cancel). The
 * largest err / (u T) seen is printed per run (AVX-512: 4.79 at the time of writing; AVX2 on
 * the Zen 3 machine: 4.0; K >= 6).
 * Edge inputs (NaN, inf, x large enough to push s past 2^40, out of float's range) take the
 * rows' double path, the ref's own formula: NaN must be NaN and infinities must match.
 * The largest error in ulps of the ref's value and the count of elements that differ at all
 * are printed.
 * Coverage: window n in {1, 2, 3, 5, 7, 16} (wider than C too), beta 0.75 (the rsqrt path), 0.5,
 * 1 and the table method's 0.01, 0.6, 1.3, 3; k 2 and 1e-5 (s near k: x^2 tiny); alpha / beta
 * (1, 0), (0.5, 0.25), (-2, 1); NCHW, NHWC, NHWC with 3 unused elements per pixel (pixel rows
 * with a pixel stride above C), W-padded NCHW (general rows); C of 1, 3, 9, 17, 20, 64, 70
 * (channel tails of the 16-lane pixel rows), spatial counts that are not multiples of 16 and
 * above one plane run (1024 positions; 400 for n = 16); 4-d and 5-d; above the threading
 * threshold; NCHW outputs above the streaming threshold. The common case (beta 0.75, alpha /
 * beta (1, 0), n 5), which has loops of its own in lrn_cpu.c, runs on every layout with plain
 * and NaN / inf / huge fills; the common case with every window (the AVX2 rows take any window:
 * the pixel rows' lane shifts of -8 .. 8) on every layout, C 17, 64, 70, 3.
 * Every backward also runs the AVX2 rows with FREEDNN_CPU_LRN_LOCK=0 (one vector at a time
 * instead of four in lockstep), which must give run 2's bits.
 */
#define _GNU_SOURCE
#include <float.h>

#include "memops_case.h"

#define NRUN MC_NRUN
#define run_set mc_run_set

static double u32 = 1.0 / 16777216.0;
static double worst_ulps;
static long differing, compared;
static double worst_ratio[NRUN], worst_k[NRUN]; /* per run: largest err / (u T), its K */
static int isa_avx512, isa_avx2;                /* the machine's: the rows runs 1 / 4 and 2 take */

enum { LX_NCHW, LX_NHWC, LX_NHWC_GAP, LX_PADDED };
static const char *lx_name[] = {"nchw", "nhwc", "nhwc-gap", "padded"};

static shape_t shape_of(int nb, const int *dim, int lx)
{
    if (lx == LX_NCHW)
        return make_shape(nb, dim, L_NCHW);
    if (lx == LX_NHWC)
        return make_shape(nb, dim, L_NHWC);
    if (lx == LX_PADDED)
        return make_shape(nb, dim, L_PADDED);
    shape_t s = {nb, {0}, {0}, 0};
    memcpy(s.dim, dim, sizeof(int) * (size_t)nb);
    int acc = dim[1] + 3;
    s.str[1] = 1;
    for (int d = nb - 1; d >= 2; d--)
        s.str[d] = acc, acc *= dim[d];
    s.str[0] = acc;
    size_t ext = 1;
    for (int d = 0; d < nb; d++)
        ext += (size_t)(dim[d] - 1) * (size_t)s.str[d];
    s.extent = ext;
    return s;
}

/* The ref's scale of channel c at the position whose channel 0 is canonical element i0. */
static double scale_of(const shape_t *xs, const float *x, size_t i0, size_t S, int C, int c,
                       unsigned win, double la, double lk)
{
    const int wlb = (int)(win - 1) / 2, wla = (int)win - 1 - wlb;
    double sum = 0;
    for (int j = c - wlb; j <= c + wla; j++)
        if (j >= 0 && j < C) {
            double v = x[canon_off(xs, i0 + (size_t)j * S)];
            sum += v * v;
        }
    return lk + la / win * sum;
}

/* Runs ref (out[0]) and the cpu runs of mc_run_set (1: AVX-512 rows where the machine has
 * them, one thread; 2, 3: FREEDNN_CPU_ISA=avx2 / generic, the general rows; 4: two threads).
 * Runs 1 and 4 must agree bit for bit (thread count), and 2 and 3 (the general rows' clones):
 * returns 0 with a FAIL line otherwise. */
static int lrn_runs(cudnnLRNDescriptor_t ld, int dir, const float *a32, const float *b32,
                    cudnnTensorDescriptor_t xd, const void *x, const void *yv, const void *dy,
                    const void *init, size_t xb, float *out[NRUN], const char *what)
{
    for (int r = 0; r < NRUN; r++) {
        out[r] = malloc(xb);
        memcpy(out[r], init, xb);
        cudnnHandle_t h = run_set(r) ? h_cpu : h_ref;
        if (dir == 0)
            CHECK(cudnnLRNCrossChannelForward(h, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, a32, xd, x, b32,
                                              xd, out[r]));
        else
            CHECK(cudnnLRNCrossChannelBackward(h, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, a32, xd, yv, xd,
                                               dy, xd, x, b32, xd, out[r]));
    }
    /* backward, the AVX2 rows again with FREEDNN_CPU_LRN_LOCK=0: one vector at a time, the
     * operations their lockstep loops (NCHW plane rows, NHWC pixel rows of C a multiple of 32)
     * restate, so the same bits as run 2 */
    if (dir == 1 && isa_avx2) {
        float *one_at = malloc(xb);
        memcpy(one_at, init, xb);
        run_set(2);
        setenv("FREEDNN_CPU_LRN_LOCK", "0", 1);
        CHECK(cudnnLRNCrossChannelBackward(h_cpu, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, a32, xd, yv, xd,
                                           dy, xd, x, b32, xd, one_at));
        unsetenv("FREEDNN_CPU_LRN_LOCK");
        const int same = same_bits(CUDNN_DATA_FLOAT, out[2], one_at, xb);
        free(one_at);
        if (!same) {
            unsetenv("FREEDNN_CPU_ISA");
            fprintf(stderr,
                    "FAIL %s bwd: the AVX2 rows' lockstep loops differ from "
                    "FREEDNN_CPU_LRN_LOCK=0\n",
                    what);
            return 0;
        }
    }
    unsetenv("FREEDNN_CPU_ISA");
    /* 1 and 4: the same rows; without AVX-512, 1 and 2 are the AVX2 rows alike */
    const int pair[2][2] = {{1, 4}, {1, 2}};
    for (int k = 0; k < (isa_avx512 ? 1 : 2); k++)
        if (!same_bits(CUDNN_DATA_FLOAT, out[pair[k][0]], out[pair[k][1]], xb)) {
            fprintf(stderr, "FAIL %s %s: cpu run %d differs from cpu run %d\n", what,
                    dir ? "bwd" : "fwd", pair[k][1], pair[k][0]);
            return 0;
        }
    return 1;
}

/* fills: 0 reals in [-4, 4), 1 the same with NaN / inf / huge values, 2 tiny reals (s ~ k), 3
 * reals with a few +-1.7e19 (x^2 2.9e38: with alpha / n = 1 a finite float scale beyond the
 * float rows' range, whose rsqrt squared is subnormal) */
static void fill_x(float *x, size_t n, int kind)
{
    for (size_t i = 0; i < n; i++) {
        double v = urand() * 8 - 4;
        if (kind == 2)
            v *= 1e-3;
        if (kind == 1) {
            double r = urand();
            if (r < 0.01)
                v = NAN;
            else if (r < 0.02)
                v = r < 0.015 ? INFINITY : -INFINITY;
            else if (r < 0.03)
                v = (r < 0.025 ? 1 : -1) * 3e38; /* x^2 ~ 1e77: s beyond float, fine in double */
            else if (r < 0.04)
                v = 1e20; /* s ~ 1e36 for small alpha: the sqrt path's range check */
        }
        if (kind == 3 && urand() < 0.02)
            v = (v < 0 ? -1 : 1) * 1.7e19;
        x[i] = (float)v;
    }
}

static void one(int nb, const int *dim, int lx, unsigned win, double la, double lbeta, double lk,
                double alpha, double beta, int fillk)
{
    char what[320];
    shape_t xs = shape_of(nb, dim, lx);
    cudnnTensorDescriptor_t xd = desc_of(&xs, CUDNN_DATA_FLOAT);
    size_t ne = xs.extent, xb = ne * 4, cnt = 1;
    for (int d = 0; d < nb; d++)
        cnt *= (size_t)dim[d];
    float *x = malloc(xb), *xc = malloc(xb), *dy = malloc(xb), *yv = malloc(xb), *init = malloc(xb);
    fill_x(x, ne, fillk);
    fill(CUDNN_DATA_FLOAT, dy, ne, 0, 0);
    memcpy(xc, x, xb);
    cudnnLRNDescriptor_t ld;
    CHECK(cudnnCreateLRNDescriptor(&ld));
    CHECK(cudnnSetLRNDescriptor(ld, win, la, lbeta, lk));
    /* the backward's y is the forward's output of x (the API's contract; the common NCHW and
     * window-5 NHWC rows compute it again from x instead of reading it): ref's, alpha 1, beta 0 */
    {
        const float one1 = 1.0f, zero = 0.0f;
        CHECK(cudnnLRNCrossChannelForward(h_ref, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one1, xd, x,
                                          &zero, xd, yv));
    }
    const float a32 = (float)alpha, b32 = (float)beta;
    snprintf(what, sizeof what,
             "lrn f32 n %u alpha %g beta %g k %g %s %dd [%d %d %d %d%s] a %g b %g fill %d", win, la,
             lbeta, lk, lx_name[lx], nb, dim[0], dim[1], dim[2], dim[3], nb > 4 ? " ..." : "",
             alpha, beta, fillk);
    for (int dir = 0; dir < 2; dir++) {
        if (beta != 0.0)
            fill(CUDNN_DATA_FLOAT, init, ne, 0, 0);
        else
            memset(init, 0xff, xb); /* NaN: beta = 0 must not read it */
        float *out[NRUN];
        int bad = !lrn_runs(ld, dir, &a32, &b32, xd, x, yv, dy, init, xb, out, what);
        cases++;
        const size_t S = cnt / (size_t)dim[0] / (size_t)dim[1];
        const int C = dim[1], wlb = (int)(win - 1) / 2, wla = (int)win - 1 - wlb;
        /* per-element bound of the float rows (header): K u T + 2^-140 */
        const double K = 6.0 + lbeta * (win + 2), coef = 2.0 * lbeta * la / win;
        /* the common backward (beta 0.75, alpha 1, blend beta 0; AVX-512 runs 1 and 4) of the
         * NCHW plane rows and of the NHWC pixel rows with window 5 and C <= 64 uses its own
         * y = x s^-beta, within the forward's bound K u |y| of ref's: the adjoint sum's term
         * counts twice */
        const int common = dir && lbeta == 0.75 && alpha == 1.0 && beta == 0.0;
        const int yown =
            common &&
            (lx == LX_NCHW || ((lx == LX_NHWC || lx == LX_NHWC_GAP) && win == 5 && dim[1] <= 64));
        /* the AVX2 rows (run 2, and runs 1 and 4 without AVX-512): every window and C */
        const int yown2 = common && lx != LX_PADDED;
        for (int r = 1; r < NRUN && !bad; r++)
            for (size_t i = 0; i < cnt && !bad; i++) {
                size_t o = canon_off(&xs, i);
                double want = out[0][o], got = out[r][o];
                /* the rows of run r: AVX-512 (1 and 4 with AVX-512), AVX2 (2, and 1 and 4 without
                 * AVX-512, where the machine has AVX2 and FMA), the general rows (3) */
                const int r512 = isa_avx512 && (r == 1 || r == 4);
                const int own = r512 ? yown : (r != 3 && isa_avx2 && yown2);
                if (isnan(want) || isnan(got) || isinf(want) || isinf(got)) {
                    bad = memcmp(&out[0][o], &out[r][o], 4) != 0 && !(isnan(want) && isnan(got));
                } else {
                    const int c = (int)(i / S % (size_t)C);
                    const size_t i0 = i - (size_t)c * S; /* channel 0 of this position */
                    /* beta 0: init is NaN, and 0 * NaN would make every bound NaN (no check) */
                    double T = fabs(want) + (beta != 0.0 ? fabs(beta * init[o]) : 0.0);
                    if (dir) {
                        double A = 0;
                        for (int j = c - wla; j <= c + wlb; j++)
                            if (j >= 0 && j < C) {
                                size_t oj = canon_off(&xs, i0 + (size_t)j * S);
                                A += fabs((double)dy[oj] * yv[oj] / scale_of(&xs, x, i0, S, C, j, win, la, lk));
                            }
                        T += fabs(alpha * dy[o]) *
                                 pow(scale_of(&xs, x, i0, S, C, c, win, la, lk), -lbeta) +
                             (own ? 2 : 1) * fabs(alpha * coef * x[o]) * A;
                    }
                    double tol = K * u32 * T + 0x1p-140;
                    double err = fabs(got - want);
                    /* the general rows: the ref's double formula, pow within 2^-40, one rounding */
                    if (r == 3 && err > 2 * u32 * fabs(want) + 0x1p-34 * T + 0x1p-149) {
                        fprintf(stderr, "FAIL %s %s: general rows beyond one rounding\n", what,
                                dir ? "bwd" : "fwd");
                        bad = 1;
                    }
                    if (r == 1) {
                        compared++;
                        if (err != 0) {
                            differing++;
                            int e;
                            frexp(want != 0 ? want : 0x1p-149, &e);
                            double ulps = err / ldexp(1.0, (e - 24 < -149 ? -149 : e - 24));
                            if (ulps > worst_ulps)
                                worst_ulps = ulps;
                        }
                    }
                    if (T > 0 && err / (u32 * T) > worst_ratio[r])
                        worst_ratio[r] = err / (u32 * T), worst_k[r] = K;
                    bad = bad || err > tol;
                }
                if (bad)
                    fprintf(stderr, "FAIL %s %s: cpu run %d element %zu: cpu %.9g ref %.9g\n", what,
                            dir ? "bwd" : "fwd", r, i, got, want);
            }
        if (bad)
            failures++;
        for (int r = 0; r < NRUN; r++)
            free(out[r]);
    }
    if (memcmp(x, xc, xb) != 0) {
        failures++;
        fprintf(stderr, "FAIL %s: x changed\n", what);
    }
    cudnnDestroyLRNDescriptor(ld);
    free(x), free(xc), free(dy), free(yv), free(init);
    cudnnDestroyTensorDescriptor(xd);
}

static void suite(void)
{
    const int s4[][4] = {{2, 17, 5, 7}, {1, 64, 3, 11}, {2, 70, 2, 9}, {1, 3, 6, 37}, {3, 1, 4, 5}};
    const int s5[5] = {2, 19, 3, 4, 5};
    const unsigned wins[] = {1, 2, 3, 5, 7, 16};
    const double betas[] = {0.75, 0.5, 0.01, 1.3, 3.0};
    const double ab[3][2] = {{1.0, 0.0}, {0.5, 0.25}, {-2.0, 1.0}};
    int turn = 0;
    for (int lx = 0; lx < 4; lx++)
        for (size_t si = 0; si < sizeof s4 / sizeof *s4; si++)
            for (int wi = 0; wi < 6; wi++, turn++) {
                const double lb = betas[turn % 5];
                const int k = turn % 3;
                one(4, s4[si], lx, wins[wi], 1e-2, lb, 2.0, ab[k][0], ab[k][1], turn % 2);
                one(4, s4[si], lx, wins[wi], 0.75, 0.75, 1e-5, ab[(k + 1) % 3][0],
                    ab[(k + 1) % 3][1], 2);
            }
    for (int lx = 0; lx < 4; lx++)
        for (int bi = 0; bi < 5; bi++)
            one(5, s5, lx, 5, 1e-4, betas[bi], 2.0, 1.0, 0.0, bi % 2);
    /* the common case (beta 0.75, alpha 1, blend beta 0) on every window: the AVX2 rows take it
     * for any window (pixel rows: lane shifts of -8 .. 8) */
    for (int lx = 0; lx < 4; lx++)
        for (int si = 0; si < 4; si++)
            for (int wi = 0; wi < 6; wi++)
                one(4, s4[si], lx, wins[wi], 1e-2, 0.75, si == 3 ? 1e-5 : 2.0, 1.0, 0.0,
                    si == 3 ? 2 : wi % 2);
    /* beta 1 (the reciprocal path); 0 is refused by cudnnSetLRNDescriptor (beta >= 0.01) */
    for (int lx = 0; lx < 4; lx++)
        for (int k = 0; k < 3; k++) {
            one(4, s4[k], lx, 5, 1e-2, 1.0, 2.0, ab[k][0], ab[k][1], k % 2);
            one(4, s4[k], lx, 3, 0.5, 1.0, 1e-5, ab[k][0], ab[k][1], 2);
        }
    /* plane rows: more than one run of 1024 (or 400 for n = 16) positions per image, the last
     * one partial; C below, at and above the window */
    const int runs[3][4] = {{1, 9, 37, 41}, {2, 3, 29, 53}, {1, 20, 41, 47}};
    for (int lx = 0; lx < 4; lx++)
        for (int k = 0; k < 3; k++) {
            one(4, runs[k], lx, k == 2 ? 16 : 5, 1e-2, 0.75, 2.0, ab[k][0], ab[k][1], k % 2);
            one(4, runs[k], lx, 7, 0.5, 0.5, 1e-5, ab[(k + 1) % 3][0], ab[(k + 1) % 3][1], 2);
        }
    /* above the threading threshold, several units per thread */
    const int big[4] = {2, 64, 30, 31};
    for (int lx = 0; lx < 4; lx++) {
        one(4, big, lx, 5, 1e-4, 0.75, 2.0, 1.0, 0.0, 0);
        /* the common case's own loops (beta 0.75, alpha 1, beta 0, n 5) with lanes to redo */
        one(4, big, lx, 5, 1e-4, 0.75, 2.0, 1.0, 0.0, 1);
        one(4, big, lx, 5, 1e-1, 0.6, 1.0, 0.5, 0.25, 1);
    }
    /* outputs above the streaming threshold (16 MiB): the common NCHW forward's in-place rows
     * (whole-line streaming stores from the first line boundary, 16-byte ones around it; rows
     * of 8192 positions, the last one partial) with lanes to redo; the backward too; NHWC: the
     * pixel rows' outputs, streamed through a pixel buffer when a pixel starts inside a line */
    const int huge[4] = {1, 64, 256, 257}, odd[4] = {1, 64, 257, 257};
    one(4, huge, LX_NCHW, 5, 1e-4, 0.75, 2.0, 1.0, 0.0, 1);
    /* plain reals: the common backward's steady rows (no lanes to redo) stream their outputs;
     * an odd plane starts the channel rows at every 4-byte phase of a line (streamed through
     * memop.h's 16-byte stores there) */
    one(4, huge, LX_NCHW, 5, 1e-4, 0.75, 2.0, 1.0, 0.0, 0);
    one(4, odd, LX_NCHW, 5, 1e-4, 0.75, 2.0, 1.0, 0.0, 0);
    /* window 7 over 6 channels: 5 window rows on both sides at c = 4 (the common backward's
     * steady rows are for window 5 only) */
    const int c6[4] = {1, 6, 9, 41};
    one(4, c6, LX_NCHW, 7, 1e-1, 0.75, 2.0, 1.0, 0.0, 0);
    one(4, huge, LX_NHWC, 5, 1e-4, 0.75, 2.0, 1.0, 0.0, 1);
    /* scales past the float rows' range but finite (fill 3, alpha / n = 1): every lane with one
     * must take the slow path, also in the lockstep NHWC pixels (C a multiple of 32) */
    const int wide[4] = {2, 64, 7, 9};
    for (int lx = 0; lx < 2; lx++)
        one(4, wide, lx, 5, 5.0, 0.75, 2.0, 1.0, 0.0, 3);
}

int main(void)
{
    set_threads = (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    if (set_threads == NULL) {
        fprintf(stderr, "omp_set_num_threads not found\n");
        return 1;
    }
    __builtin_cpu_init();
    isa_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    isa_avx512 = isa_avx2 && __builtin_cpu_supports("avx512f") &&
                 __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
                 __builtin_cpu_supports("avx512bw");
    CHECK(freednnCreateWithBackend(&h_ref, FREEDNN_BACKEND_REF));
    CHECK(freednnCreateWithBackend(&h_cpu, FREEDNN_BACKEND_CPU));
    suite();
    printf("lrn f32 against ref (run 1, %s rows): %ld of %ld finite elements differ, at most %.3g "
           "ulp\n",
           isa_avx512 ? "AVX-512"
           : isa_avx2 ? "AVX2"
                      : "general",
           differing, compared, worst_ulps);
    for (int r = 1; r < NRUN; r++)
        printf("  run %d: largest err / (u T) %.3g (K there %.3g)\n", r, worst_ratio[r],
               worst_k[r]);
    printf("test_cpu_lrn_fast: %d cases, %d failures\n", cases, failures);
    cudnnDestroy(h_ref);
    cudnnDestroy(h_cpu);
    return failures ? 1 : 0;
}
