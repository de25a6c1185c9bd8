/* SPDX-License-Identifier: MIT */
/*
 * test_cpu_lrn_fast.c - the FLOAT rows of cpu cross-channel LRN (src/cpu/lrn_cpu.c: the AVX-512
 * "plane" (NCHW-like) and "pixel" (NHWC-like) rows, and the general rows with the same pow)
 * against the ref row, through the public API (helpers: memops_case.h).
 *
 * Each case runs ref, then cpu with one thread with FREEDNN_CPU_ISA unset (AVX-512 rows where
 * the layout allows), =avx2 and =generic (the general rows), and cpu with two threads. The cpu
 * runs must agree bit for bit (NaN payloads aside): the rows share the ref's sums in the ref's
 * order and one pow (lrf_pow1 / lrf_pow8, and for beta = 0.75 lrf_pow34_1 / lrf_pow34_16), built
 * from IEEE operations and explicit fma only. Against ref, per element, u = 2^-24:
 *   |got - want| <= 2u |want| + 2^-34 M + 2^-149,   M = max_i (|want_i| + |beta y_old_i|)
 *                                                      (+ |alpha dy_i| k^-beta backward)
 * The pow is within 2^-40 relative of the exact power (measured 2^-41.7 at worst over 2.4e7
 * random s in [2^-20, 2^60] and six exponents, against powl), so x s^-beta rounds to the ref's
 * float or to a neighbour: 2u |want| covers one flip (an ulp is at most 2u |want|); the
 * normwise term covers the pow error where the blend with beta (forward) or the difference
 * dy s^-beta - coef x sum (backward) cancels. The sums, the divisions and the blend are the
 * ref's operations, so everything else is exact. Edge inputs (NaN, inf, x large enough to push
 * s past 2^127 or out of double's range) take libm's pow: those elements must equal the ref's.
 * The largest error in ulps of the ref's value and the count of elements that differ at all
 * are printed.
 * Coverage: window n in {1, 2, 3, 5, 7, 16} (wider than C too), beta 0.75 (the square-root
 * path) and 0.5, 0.01, 1.3, 3; k 2 and 1e-5 (s near k: x^2 tiny); alpha / beta (1, 0),
 * (0.5, 0.25), (-2, 1); NCHW, NHWC, NHWC with 3 unused elements per pixel (pixel rows with a
 * pixel stride above C), W-padded NCHW (general rows); C of 1, 3, 17, 64, 70 (channel tails
 * of the 16-lane pixel rows), spatial counts that are not multiples of 16 (position tails of
 * the plane rows); 4-d and 5-d; above the threading threshold.
 */
#define _GNU_SOURCE
#include <float.h>

#include "memops_case.h"

#define NRUN MC_NRUN
#define run_set mc_run_set

static double u32 = 1.0 / 16777216.0;
static double worst_ulps;
static long differing, compared;

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

/* Offset of canonical element i (n, c, spatial... row-major) in s. */
static size_t off_of(const shape_t *s, size_t i)
{
    size_t off = 0;
    for (int d = s->nb - 1; d >= 0; d--) {
        off += (i % (size_t)s->dim[d]) * (size_t)s->str[d];
        i /= (size_t)s->dim[d];
    }
    return off;
}

/* fills: 0 reals in [-4, 4), 1 the same with NaN / inf / huge values, 2 tiny reals (s ~ k) */
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
    fill(CUDNN_DATA_FLOAT, yv, ne, 0, 0);
    memcpy(xc, x, xb);
    cudnnLRNDescriptor_t ld;
    CHECK(cudnnCreateLRNDescriptor(&ld));
    CHECK(cudnnSetLRNDescriptor(ld, win, la, lbeta, lk));
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
        int bad = !mc_lrn_runs(h_ref, h_cpu, ld, dir, &a32, &b32, xd, x, yv, dy, init, xb, out, what);
        cases++;
        double M = 0;
        const double kb = pow(lk, -lbeta); /* s >= k: s^-beta <= k^-beta */
        for (size_t i = 0; i < cnt; i++) {
            size_t o = off_of(&xs, i);
            double v =
                fabs(out[0][o]) + fabs(beta * init[o]) + (dir ? fabs(alpha * dy[o]) * kb : 0.0);
            if (v == v && !isinf(v) && v > M)
                M = v;
        }
        for (size_t i = 0; i < cnt && !bad; i++) {
            size_t o = off_of(&xs, i);
            double want = out[0][o], got = out[1][o];
            if (isnan(want) || isnan(got) || isinf(want) || isinf(got)) {
                bad = memcmp(&out[0][o], &out[1][o], 4) != 0 && !(isnan(want) && isnan(got));
            } else {
                double tol = 2 * u32 * fabs(want) + 0x1p-34 * M + 0x1p-149;
                double err = fabs(got - want);
                compared++;
                if (err != 0) {
                    differing++;
                    int e;
                    frexp(want != 0 ? want : 0x1p-149, &e);
                    double ulps = err / ldexp(1.0, (e - 24 < -149 ? -149 : e - 24));
                    if (ulps > worst_ulps)
                        worst_ulps = ulps;
                }
                bad = err > tol;
            }
            if (bad)
                fprintf(stderr, "FAIL %s %s: element %zu: cpu %.9g ref %.9g\n", what,
                        dir ? "bwd" : "fwd", i, got, want);
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
    /* above the threading threshold, several units per thread */
    const int big[4] = {2, 64, 30, 31};
    for (int lx = 0; lx < 4; lx++) {
        one(4, big, lx, 5, 1e-4, 0.75, 2.0, 1.0, 0.0, 0);
        one(4, big, lx, 5, 1e-1, 0.6, 1.0, 0.5, 0.25, 1);
    }
}

int main(void)
{
    set_threads = (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    if (set_threads == NULL) {
        fprintf(stderr, "omp_set_num_threads not found\n");
        return 1;
    }
    CHECK(freednnCreateWithBackend(&h_ref, FREEDNN_BACKEND_REF));
    CHECK(freednnCreateWithBackend(&h_cpu, FREEDNN_BACKEND_CPU));
    suite();
    printf("lrn f32 against ref: %ld of %ld finite elements differ, at most %.3g ulp\n", differing,
           compared, worst_ulps);
    printf("test_cpu_lrn_fast: %d cases, %d failures\n", cases, failures);
    cudnnDestroy(h_ref);
    cudnnDestroy(h_cpu);
    return failures ? 1 : 0;
}
