/* SPDX-License-Identifier: MIT */
/*
 * test_conv_blend.c - alpha/beta scaling of every convolution direction (contract §1.5, §4.1.3).
 *
 * - y = alpha * r + beta * y_old for alpha in {1, 0.5, -2} and beta in {0, 1, 0.25}, exact
 *   integer data (tolerance 0), every dtype, forward / backward data / backward filter / bias;
 * - beta = 0 never reads y: a NaN-poisoned y (0xFF bytes) gives no NaN;
 * - beta = 1 (and 0.25) over an all-NaN y gives NaN everywhere, and over a y with one NaN
 *   gives NaN exactly there;
 * - alpha = 0, beta = 1 leaves y bit-identical; alpha = 0, beta = 0 writes zeros over NaN.
 */
#include "conv_case.h"

#define SHAPES_PER_CELL 4

static const double alphas[3] = {1.0, 0.5, -2.0}, betas[3] = {0.0, 1.0, 0.25};

/* Runs `c` with prior output `old` (NULL: poisoned) and returns the result; data from `d`. */
static cc_result_t run_with_old(cudnnHandle_t h, const cc_case_t *c, cc_data_t *d, double *old)
{
    double *keep = d->old;
    d->old = old;
    cc_result_t res = cc_exec(h, c, d, c->algo);
    d->old = keep;
    return res;
}

int main(void)
{
    cudnnHandle_t h = cc_handle(FREEDNN_BACKEND_REF);
    const int nshapes = cc_sweep_count(SHAPES_PER_CELL);
    int runs = 0;
    for (int dir = CO_FWD; dir <= CO_BWD_BIAS; dir++)
        for (int t = 0; t < 4; t++)
            for (int i = 0; i < nshapes; i++) {
                uint64_t seed = cc_sweep_seed(0xB1E4Dull, dir * 16 + t, i);
                cc_case_t base = cc_case_gen((co_dir_t)dir, cc_dtypes[t], seed, 0);
                /* 1. every (alpha, beta) pair, exact */
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++) {
                        cc_case_t c = base;
                        c.alpha = alphas[a], c.beta = betas[b];
                        cc_data_t d = cc_data_new(&c);
                        double *want = malloc(sizeof(double) * (size_t)d.nout + 1);
                        co_acc_t acc = cc_data_fill(&c, &d, CC_EXACT, want);
                        cc_result_t res = cc_exec(h, &c, &d, c.algo);
                        char what[64];
                        snprintf(what, sizeof what, "blend alpha=%g beta=%g", c.alpha, c.beta);
                        if (cc_check_run(&c, &res, what) == 0) {
                            cc_compare(&c, &res, want, &acc, CC_EXACT, what);
                            if (c.beta == 0.0) {
                                int nan = 0;
                                for (int64_t e = 0; e < res.nout; e++)
                                    nan += isnan(res.got[e]) != 0;
                                char rep[512];
                                cc_repro(&c, rep, sizeof rep);
                                FD_EXPECT(nan == 0,
                                          "beta = 0 over a NaN-poisoned output left %d NaN; %s",
                                          nan, rep);
                            }
                        }
                        runs++;
                        cc_result_free(&res);
                        co_acc_free(&acc);
                        free(want);
                        cc_data_free(&d);
                    }
                /* 2. NaN in the prior output */
                cc_case_t c = base;
                c.alpha = 1.0;
                c.beta = 1.0;
                cc_data_t d = cc_data_new(&c);
                double *want = malloc(sizeof(double) * (size_t)d.nout + 1);
                co_acc_t acc = cc_data_fill(&c, &d, CC_EXACT, want);
                double *old = malloc(sizeof(double) * (size_t)d.nout + 1);
                char rep[512];
                for (int bi = 1; bi < 3; bi++) { /* beta 1 and 0.25 over all-NaN y */
                    c.beta = betas[bi];
                    cc_repro(&c, rep, sizeof rep);
                    for (int64_t e = 0; e < d.nout; e++)
                        old[e] = NAN;
                    cc_result_t res = run_with_old(h, &c, &d, old);
                    if (cc_check_run(&c, &res, "beta over NaN") == 0) {
                        int64_t finite = 0;
                        for (int64_t e = 0; e < res.nout; e++)
                            finite += !isnan(res.got[e]);
                        FD_EXPECT(finite == 0,
                                  "beta = %g over an all-NaN y left %" PRId64 " of %" PRId64
                                  " non-NaN; %s",
                                  c.beta, finite, res.nout, rep);
                    }
                    cc_result_free(&res);
                    runs++;
                }
                c.beta = 1.0;
                cc_repro(&c, rep, sizeof rep);
                { /* one NaN in the middle: NaN there, the exact result elsewhere */
                    int64_t at = d.nout / 2;
                    for (int64_t e = 0; e < d.nout; e++)
                        old[e] = d.old[e];
                    old[at] = NAN;
                    cc_result_t res = run_with_old(h, &c, &d, old);
                    if (cc_check_run(&c, &res, "one NaN") == 0) {
                        int64_t bad = 0;
                        for (int64_t e = 0; e < res.nout; e++)
                            bad += e == at ? !isnan(res.got[e]) : res.got[e] != want[e];
                        FD_EXPECT(bad == 0,
                                  "beta = 1 over y with one NaN at %" PRId64 ": %" PRId64
                                  " wrong elements; %s",
                                  at, bad, rep);
                    }
                    cc_result_free(&res);
                    runs++;
                }
                { /* alpha = 0, beta = 1: y unchanged, bit for bit */
                    c.alpha = 0.0;
                    cc_repro(&c, rep, sizeof rep);
                    cc_result_t res = run_with_old(h, &c, &d, d.old);
                    if (cc_check_run(&c, &res, "alpha 0 beta 1") == 0) {
                        int64_t bad = 0;
                        for (int64_t e = 0; e < res.nout; e++)
                            bad += res.got[e] != d.old[e];
                        FD_EXPECT(bad == 0, "alpha = 0, beta = 1 changed %" PRId64 " elements; %s",
                                  bad, rep);
                    }
                    cc_result_free(&res);
                    runs++;
                }
                { /* alpha = 0, beta = 0 over NaN: zeros */
                    c.alpha = 0.0, c.beta = 0.0;
                    cc_repro(&c, rep, sizeof rep);
                    cc_result_t res = run_with_old(h, &c, &d, NULL);
                    if (cc_check_run(&c, &res, "alpha 0 beta 0") == 0) {
                        int64_t bad = 0;
                        for (int64_t e = 0; e < res.nout; e++)
                            bad += res.got[e] != 0.0;
                        FD_EXPECT(bad == 0,
                                  "alpha = 0, beta = 0 over NaN left %" PRId64
                                  " non-zero elements; %s",
                                  bad, rep);
                    }
                    cc_result_free(&res);
                    runs++;
                }
                free(old);
                co_acc_free(&acc);
                free(want);
                cc_data_free(&d);
            }
    printf("%d alpha/beta runs\n", runs);
    cudnnDestroy(h);
    return fd_test_finish();
}
