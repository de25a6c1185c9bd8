/* SPDX-License-Identifier: MIT */
/*
 * test_conv_exact.c - randomized convolution sweep with integer data, tolerance 0.
 *
 * For each of f64, f32, f16, bf16 and each direction (forward, backward data, backward
 * filter, backward bias): 300 random problems (1-3 spatial dims, groups and depthwise, even and
 * uneven filters, padding, strides, dilation, both modes, NCHW / NHWC / padded / permuted
 * strides, NCHW and NHWC filters, misaligned pointers, every algorithm enum, alpha/beta).
 * Integer fills whose density keeps every partial sum exact in the compute type and every
 * result representable in the output type, so the library must agree with the oracle
 * bit for bit. Each run also checks guards, holes of padded outputs and unchanged inputs.
 * FD_TEST_SEED=<seed from a failure line> replays one case; FD_TEST_SCALE=10 runs 10x more.
 */
#include "conv_case.h"

#define CASES_PER_CELL 300

int main(void)
{
    cudnnHandle_t h = cc_handle(FREEDNN_BACKEND_REF);
    const int ncases = cc_sweep_count(CASES_PER_CELL);
    int runs = 0, nonzero_runs = 0;
    for (int dir = CO_FWD; dir <= CO_BWD_BIAS; dir++)
        for (int t = 0; t < 4; t++) {
            int cell_nonzero = 0;
            for (int i = 0; i < ncases; i++) {
                uint64_t seed = cc_sweep_seed(0xE4AC7ull, dir * 16 + t, i);
                cc_case_t c = cc_case_gen((co_dir_t)dir, cc_dtypes[t], seed, 0);
                cc_data_t d = cc_data_new(&c);
                double *want = malloc(sizeof(double) * (size_t)d.nout + 1);
                co_acc_t acc = cc_data_fill(&c, &d, CC_EXACT, want);
                cc_result_t res = cc_exec(h, &c, &d, c.algo);
                if (cc_check_run(&c, &res, "exact") == 0)
                    cc_compare(&c, &res, want, &acc, CC_EXACT, "exact");
                int nz = 0;
                for (int64_t e = 0; e < d.nout && !nz; e++)
                    nz = want[e] != 0.0;
                cell_nonzero += nz;
                runs++;
                cc_result_free(&res);
                co_acc_free(&acc);
                free(want);
                cc_data_free(&d);
            }
            nonzero_runs += cell_nonzero;
            /* the data must exercise the sums: most cases need a non-zero expected output */
            FD_EXPECT(ncases < 10 || cell_nonzero * 10 >= ncases * 9,
                      "dir=%s dt=%s: only %d of %d cases have a non-zero expected output",
                      cc_dir_names[dir], fd_test_dtype_short(cc_dtypes[t]), cell_nonzero, ncases);
        }
    printf("%d exact runs (%d with non-zero expected output)\n", runs, nonzero_runs);
    cudnnDestroy(h);
    return fd_test_finish();
}
