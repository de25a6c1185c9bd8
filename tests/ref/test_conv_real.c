/* SPDX-License-Identifier: MIT */
/*
 * test_conv_real.c - randomized convolution sweep with real-valued data (uniform [-1, 1]),
 * checked against the oracle with the per-dtype tolerance of docs/testing.md:
 *   |got - want| <= 2 (2 u_in + K u_acc) sum|terms| + u_out |want| + tiny      (per element)
 * plus a secondary relative RMS check (sqrt(mean(diff^2)) / max|want|) with MIOpen's
 * thresholds, which catches small systematic bias the per-element bound lets through.
 * 100 random problems per dtype and direction (same generator as the exact sweep); every case
 * is run twice and must give identical bits (determinism).
 *
 * The reference backend promises more than the tolerance: it accumulates in double and rounds
 * once (src/ref/conv_ref.c). So wherever every value within the double accumulation's error
 * bound of the exact result rounds to the same element of the output type, the library's
 * element must be exactly that correctly rounded value (our own round-to-nearest-even). This
 * catches a wrong rounding mode or tie rule in the library's conversions, which a tolerance
 * of u_out |want| could let through.
 */
#include "conv_case.h"

#define CASES_PER_CELL 100

static double rms_threshold(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE:
        return 1e-13;
    case CUDNN_DATA_FLOAT:
        return 1.5e-6;
    case CUDNN_DATA_HALF:
        return 8.2e-3;
    default:
        return 6.6e-2;
    }
}

int main(void)
{
    cudnnHandle_t h = cc_handle(FREEDNN_BACKEND_REF);
    const int ncases = cc_sweep_count(CASES_PER_CELL);
    int runs = 0;
    double worst[4] = {0, 0, 0, 0}; /* largest |diff| / tol seen per dtype */
    int64_t rounded_checked = 0;
    for (int dir = CO_FWD; dir <= CO_BWD_BIAS; dir++)
        for (int t = 0; t < 4; t++)
            for (int i = 0; i < ncases; i++) {
                uint64_t seed = cc_sweep_seed(0x4EA1ull, dir * 16 + t, i);
                cc_case_t c = cc_case_gen((co_dir_t)dir, cc_dtypes[t], seed, 0);
                cc_data_t d = cc_data_new(&c);
                double *want = malloc(sizeof(double) * (size_t)d.nout + 1);
                co_acc_t acc = cc_data_fill(&c, &d, CC_REAL, want);
                cc_result_t res = cc_exec(h, &c, &d, c.algo);
                char rep[512];
                cc_repro(&c, rep, sizeof rep);
                if (cc_check_run(&c, &res, "real") == 0 &&
                    cc_compare(&c, &res, want, &acc, CC_REAL, "real")) {
                    double se = 0, maxw = 0;
                    for (int64_t e = 0; e < res.nout; e++) {
                        double diff = res.got[e] - want[e];
                        double tol =
                            fd_tolerance(c.dt, c.comp, acc.terms[e], acc.abs_sum[e], want[e]);
                        if (tol > 0 && fabs(diff) / tol > worst[t])
                            worst[t] = fabs(diff) / tol;
                        se += diff * diff;
                        maxw = fmax(maxw, fabs(want[e]));
                    }
                    int64_t misrounded = 0, first = -1;
                    for (int64_t e = 0; e < res.nout; e++) {
                        double delta =
                            (double)(acc.terms[e] + 2) * 0x1p-52 * acc.abs_sum[e] + 0x1p-1074;
                        double lo = fd_test_round(c.dt, want[e] - delta),
                               hi = fd_test_round(c.dt, want[e] + delta);
                        if (lo != hi)
                            continue; /* too close to a rounding boundary to know */
                        rounded_checked++;
                        if (res.got[e] != lo && misrounded++ == 0)
                            first = e;
                    }
                    FD_EXPECT(misrounded == 0,
                              "real: %" PRId64 " elements not correctly rounded (first %" PRId64
                              ": got %.17g, exact %.17g rounds to %.17g); %s",
                              misrounded, first, first >= 0 ? res.got[first] : 0.0,
                              first >= 0 ? want[first] : 0.0,
                              first >= 0 ? fd_test_round(c.dt, want[first]) : 0.0, rep);
                    double rel_rms = maxw > 0 ? sqrt(se / (double)res.nout) / maxw : sqrt(se);
                    FD_EXPECT(rel_rms <= rms_threshold(c.dt),
                              "real: relative RMS error %.3g above %.3g; %s", rel_rms,
                              rms_threshold(c.dt), rep);
                    /* determinism: the same call again gives the same bits */
                    cc_result_t again = cc_exec(h, &c, &d, c.algo);
                    size_t bytes = (size_t)res.nout * fd_test_dtype_size(c.dt);
                    FD_EXPECT(again.status == CUDNN_STATUS_SUCCESS &&
                                  memcmp(again.raw, res.raw, bytes) == 0,
                              "real: a second run gave different bits; %s", rep);
                    cc_result_free(&again);
                }
                runs++;
                cc_result_free(&res);
                co_acc_free(&acc);
                free(want);
                cc_data_free(&d);
            }
    printf(
        "%d real-valued runs; worst |diff|/tol: f64 %.3g, f32 %.3g, f16 %.3g, bf16 %.3g; %" PRId64
        " elements checked for correct rounding\n",
        runs, worst[0], worst[1], worst[2], worst[3], rounded_checked);
    cudnnDestroy(h);
    return fd_test_finish();
}
