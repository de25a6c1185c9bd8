/* SPDX-License-Identifier: MIT */
/*
 * test_conv_adjoint.c - the adjoint identity as an oracle that needs no reference convolution:
 *   <dy, fwd(x, w)> = <bwd_data(dy, w), x> = <bwd_filter(x, dy), w>
 * All three sums are sums of the same products x * w * dy over the connections of the
 * convolution, so they agree up to rounding. Computed with the library (alpha 1, beta 0) on
 * random real data, dot products in double-double. Bound, with S = sum |x w dy| over all
 * connections (from the oracle's sum|terms|):
 *   f64: |difference| <= 1e-12 S
 *   f32/f16/bf16: |difference| <= 2 (2 K u_acc + u_out) S, K the longest accumulation of the
 *   three directions (each side carries at most that error; see docs/testing.md).
 * 50 random shapes in double and 20 in each of the other types.
 */
#include "conv_case.h"

static void dd_add(double *hi, double *lo, double a, double b)
{
    double p = a * b, pe = fma(a, b, -p);
    double s = *hi + p, bv = s - *hi;
    *lo += ((*hi - (s - bv)) + (p - bv)) + pe;
    *hi = s;
}

static double dot(const double *a, const double *b, int64_t n)
{
    double hi = 0, lo = 0;
    for (int64_t i = 0; i < n; i++)
        dd_add(&hi, &lo, a[i], b[i]);
    return hi + lo;
}

int main(void)
{
    cudnnHandle_t h = cc_handle(FREEDNN_BACKEND_REF);
    static const int shapes[4] = {50, 20, 20, 20};
    int runs = 0;
    double worst[4] = {0, 0, 0, 0}; /* largest |difference| / S per dtype */
    for (int t = 0; t < 4; t++) {
        const int n = cc_sweep_count(shapes[t]);
        for (int i = 0; i < n; i++) {
            uint64_t seed = cc_sweep_seed(0xAD701ull, t, i);
            cc_case_t c = cc_case_gen(CO_FWD, cc_dtypes[t], seed, 0);
            c.alpha = 1.0, c.beta = 0.0;
            const co_shape_t *s = &c.s;
            int64_t nx = co_x_count(s), nw = co_w_count(s), ny = co_y_count(s);
            double *x = malloc(sizeof(double) * (size_t)nx),
                   *w = malloc(sizeof(double) * (size_t)nw);
            double *dy = malloc(sizeof(double) * (size_t)ny);
            fd_rng_t r;
            fd_rng_seed(&r, fd_test_mix(seed, 0xadd));
            cc_fill(&r, c.dt, x, nx, CC_REAL, 1, 1.0, 1);
            cc_fill(&r, c.dt, w, nw, CC_REAL, 1, 1.0, 1);
            cc_fill(&r, c.dt, dy, ny, CC_REAL, 1, 1.0, 1);
            /* the three library calls, same layouts */
            cc_result_t res[3];
            const double *ins[3][2] = {{x, w}, {dy, w}, {x, dy}};
            const char *names[3] = {"adjoint fwd", "adjoint bwd_data", "adjoint bwd_filter"};
            int ok = 1;
            for (int dir = 0; dir < 3; dir++) {
                cc_case_t cd = c;
                cd.dir = (co_dir_t)dir;
                cd.algo = (int)(fd_rng_next(&r) % (uint64_t)cc_algo_count(cd.dir));
                cc_data_t d = {0, 0, 0, (double *)ins[dir][0], (double *)ins[dir][1], NULL};
                d.na = dir == 1 ? ny : nx, d.nb = dir == 2 ? ny : nw,
                d.nout = co_out_count(s, cd.dir);
                res[dir] = cc_exec(h, &cd, &d, cd.algo);
                ok &= cc_check_run(&cd, &res[dir], names[dir]) == 0;
            }
            if (ok) {
                double a = dot(dy, res[0].got, ny), b = dot(res[1].got, x, nx),
                       cw = dot(res[2].got, w, nw);
                /* S and the longest accumulation, from the oracle's per-element statistics */
                co_acc_t acc = co_acc_new(ny);
                co_run(s, CO_FWD, x, w, &acc);
                double S = 0;
                int64_t kmax = 1;
                for (int64_t e = 0; e < ny; e++)
                    S += fabs(dy[e]) * acc.abs_sum[e];
                co_acc_free(&acc);
                int64_t outsp = ny / ((int64_t)s->n * s->k), flt = co_prod(s->flt, s->nsp);
                int64_t kd[3] = {(int64_t)(s->c / s->g) * flt, (int64_t)(s->k / s->g) * flt,
                                 (int64_t)s->n * outsp};
                for (int j = 0; j < 3; j++)
                    kmax = kd[j] > kmax ? kd[j] : kmax;
                double tol = c.dt == CUDNN_DATA_DOUBLE
                                 ? 1e-12 * S
                                 : 2.0 *
                                       (FD_TOL_C * (double)kmax * fd_unit_roundoff(c.comp) +
                                        fd_unit_roundoff(c.dt)) *
                                       S;
                if (S > 0)
                    worst[t] = fmax(worst[t], fmax(fabs(a - b), fabs(a - cw)) / S);
                char rep[512];
                cc_repro(&c, rep, sizeof rep);
                FD_EXPECT(fabs(a - b) <= tol && fabs(a - cw) <= tol,
                          "adjoint: <dy,y> = %.17g, <dx,x> = %.17g, <dw,w> = %.17g, tolerance %.3g "
                          "(S %.6g); %s",
                          a, b, cw, tol, S, rep);
                FD_EXPECT(S > 0 || (a == 0 && b == 0 && cw == 0),
                          "adjoint: S = 0 but sums non-zero; %s", rep);
            }
            for (int dir = 0; dir < 3; dir++)
                cc_result_free(&res[dir]);
            free(x), free(w), free(dy);
            runs++;
        }
    }
    printf("%d adjoint cases (3 library calls each); worst |difference|/S: f64 %.3g, f32 %.3g, f16 "
           "%.3g, "
           "bf16 %.3g\n",
           runs, worst[0], worst[1], worst[2], worst[3]);
    cudnnDestroy(h);
    return fd_test_finish();
}
