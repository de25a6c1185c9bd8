/* SPDX-License-Identifier: MIT */
/*
 * test_conv_rounding.c - the reference backend's rounding promise, bit for bit.
 *
 * src/ref accumulates in double and rounds once to the output type. With integer data whose
 * sums stay far below 2^53, the double accumulation is exact, so every output element must be
 * exactly RNE(alpha * sum + beta * old) computed by the harness's own conversions - including
 * ties (odd integers above 2048 in half, above 256 in bfloat16, above 2^24 in float: they
 * occur constantly here) and overflow to infinity (sums beyond 65504 in half).
 * The exact sweep keeps results representable and so never sees a tie; this test is where a
 * ties-away or truncating conversion in the library shows up.
 * f32, f16 and bf16 (f16/bf16 with computeType FLOAT: the backend with f16 accumulation may
 * round partial sums), forward, backward data, backward filter, backward bias, 40 cases each.
 */
#include "conv_case.h"

#define CASES_PER_CELL 40

/* Integer fill whose magnitudes push the results past the output type's exact range. */
static void wide_fill(fd_rng_t *r, cudnnDataType_t dt, double *v, int64_t n, int big)
{
    int range = dt == CUDNN_DATA_FLOAT ? 4096 : dt == CUDNN_DATA_HALF ? (big ? 512 : 64) : 32;
    for (int64_t i = 0; i < n; i++) {
        int x = fd_rng_int(r, -range, range);
        if (dt == CUDNN_DATA_BFLOAT16)
            x = fd_rng_int(r, 0, 3) ? x : fd_rng_int(r, -256, 256); /* inputs exact in bf16 */
        v[i] = fd_test_round(dt, x);
    }
}

int main(void)
{
    cudnnHandle_t h = cc_handle(FREEDNN_BACKEND_REF);
    static const cudnnDataType_t dts[3] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    const int ncases = cc_sweep_count(CASES_PER_CELL);
    int64_t ties = 0, infs = 0, inexact = 0, elements = 0;
    int runs = 0;
    for (int dir = CO_FWD; dir <= CO_BWD_BIAS; dir++)
        for (int t = 0; t < 3; t++)
            for (int i = 0; i < ncases; i++) {
                uint64_t seed = cc_sweep_seed(0x20D1ull, dir * 16 + t, i);
                cc_case_t c = cc_case_gen((co_dir_t)dir, dts[t], seed, 0);
                c.comp = CUDNN_DATA_FLOAT;
                if (c.beta == 0.25)
                    c.beta = 0.5;
                cc_data_t d = cc_data_new(&c);
                fd_rng_t r;
                fd_rng_seed(&r, fd_test_mix(seed, 0x20));
                int big = i % 4 == 0; /* half: sums beyond 65504 overflow to infinity */
                wide_fill(&r, c.dt, d.a, d.na, big);
                wide_fill(&r, c.dt, d.b, d.nb, big);
                if (d.old)
                    wide_fill(&r, c.dt, d.old, d.nout, big);
                double *want = malloc(sizeof(double) * (size_t)d.nout + 1);
                co_acc_t acc = cc_expect(&c, &d, want);
                for (int64_t e = 0; e < d.nout; e++) {
                    double rw = fd_test_round(c.dt, want[e]);
                    /* a tie: exactly halfway between rw and its neighbour away from it */
                    inexact += rw != want[e];
                    infs += isinf(rw) != 0;
                    if (rw != want[e] && !isinf(rw)) {
                        double other = 2 * want[e] - rw; /* the mirror point */
                        ties += fd_test_round(c.dt, other) == other && other != rw;
                    }
                    want[e] = rw;
                }
                elements += d.nout;
                cc_result_t res = cc_exec(h, &c, &d, c.algo);
                if (cc_check_run(&c, &res, "rounding") == 0)
                    cc_compare(&c, &res, want, &acc, CC_EXACT, "rounding (RNE of the exact sum)");
                runs++;
                cc_result_free(&res);
                co_acc_free(&acc);
                free(want);
                cc_data_free(&d);
            }
    printf("%d runs, %" PRId64 " elements: %" PRId64 " needed rounding, %" PRId64
           " exact ties, %" PRId64 " overflowed to infinity\n",
           runs, elements, inexact, ties, infs);
    FD_EXPECT(ncases < 10 || (ties > 100 && inexact > 1000),
              "the data produced too few ties (%" PRId64 ") to test", ties);
    cudnnDestroy(h);
    return fd_test_finish();
}
