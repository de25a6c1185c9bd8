/* SPDX-License-Identifier: MIT */
/*
 * test_conv_invariance.c - results that must not depend on how a problem is presented.
 *
 * Real-valued data (so that any change of summation order would show in the bits):
 * - layout invariance: the same problem with x/y in NCHW, NHWC, padded and permuted strides
 *   (and mixed), NCHW and NHWC filters, aligned and misaligned pointers, 4d and Nd setters,
 *   gives identical output bits (compared in canonical order);
 * - backend invariance: ref, cpu and the default handle (cudnnCreate) give identical bits;
 * - determinism: the same call repeated gives identical bits;
 * each for f64, f32, f16, bf16 and forward, backward data, backward filter, backward bias.
 */
#include "conv_case.h"

#define SHAPES_PER_CELL 10

static int same_bits(const cc_result_t *a, const cc_result_t *b, size_t esize)
{
    return a->status == CUDNN_STATUS_SUCCESS && b->status == CUDNN_STATUS_SUCCESS &&
           a->nout == b->nout && memcmp(a->raw, b->raw, (size_t)a->nout * esize) == 0;
}

int main(void)
{
    cudnnHandle_t ref = cc_handle(FREEDNN_BACKEND_REF), cpu = cc_handle(FREEDNN_BACKEND_CPU);
    cudnnHandle_t dflt = NULL;
    FD_EXPECT_STATUS(cudnnCreate(&dflt), CUDNN_STATUS_SUCCESS);
    const int nshapes = cc_sweep_count(SHAPES_PER_CELL);
    int runs = 0;
    static const cc_layout_t variants[][2] = {{CC_NCHW, CC_NCHW},     {CC_NHWC, CC_NHWC},
                                              {CC_PADDED, CC_PADDED}, {CC_PERMUTED, CC_PERMUTED},
                                              {CC_NHWC, CC_PADDED},   {CC_PADDED, CC_NCHW}};
    const int nvar = (int)(sizeof variants / sizeof variants[0]);
    for (int dir = CO_FWD; dir <= CO_BWD_BIAS; dir++)
        for (int t = 0; t < 4; t++)
            for (int i = 0; i < nshapes; i++) {
                uint64_t seed = cc_sweep_seed(0x1417A2ull, dir * 16 + t, i);
                cc_case_t base = cc_case_gen((co_dir_t)dir, cc_dtypes[t], seed, 0);
                size_t es = fd_test_dtype_size(base.dt);
                cc_data_t d = cc_data_new(&base);
                double *want = malloc(sizeof(double) * (size_t)d.nout + 1);
                co_acc_t acc = cc_data_fill(&base, &d, CC_REAL, want);
                /* the reference point: NCHW, NCHW filter, aligned, Nd setters, ref backend */
                cc_case_t c0 = base;
                fd_rng_t r;
                fd_rng_seed(&r, fd_test_mix(seed, 0x1a7));
                c0.wnhwc = 0, c0.misalign = 0, c0.use4d = 0;
                cc_set_layouts(&c0, CC_NCHW, CC_NCHW, &r);
                char rep[512];
                cc_repro(&c0, rep, sizeof rep);
                cc_result_t r0 = cc_exec(ref, &c0, &d, c0.algo);
                runs++;
                if (cc_check_run(&c0, &r0, "invariance base") ||
                    !cc_compare(&c0, &r0, want, &acc, CC_REAL, "invariance base"))
                    goto next;
                for (int v = 0; v < nvar; v++)
                    for (int wf = 0; wf < 2; wf++) {
                        cc_case_t c = c0;
                        cc_set_layouts(&c, variants[v][0], variants[v][1], &r);
                        c.wnhwc = wf;
                        c.misalign = (v + wf) % 2;
                        c.use4d = c.s.nsp == 2 && v % 2;
                        cc_result_t rv = cc_exec(ref, &c, &d, c.algo);
                        runs++;
                        if (cc_check_run(&c, &rv, "layout variant") == 0) {
                            char rv_rep[512];
                            cc_repro(&c, rv_rep, sizeof rv_rep);
                            FD_EXPECT(same_bits(&r0, &rv, es),
                                      "layout invariance: bits differ from NCHW; %s", rv_rep);
                        }
                        cc_result_free(&rv);
                    }
                /* backends and determinism (on the case's own random layout) */
                cc_result_t rb = cc_exec(ref, &base, &d, base.algo);
                cc_result_t rc = cc_exec(cpu, &base, &d, base.algo);
                cc_result_t rd = cc_exec(dflt ? dflt : ref, &base, &d, base.algo);
                cc_result_t rr = cc_exec(ref, &base, &d, base.algo);
                runs += 4;
                cc_repro(&base, rep, sizeof rep);
                if (cc_check_run(&base, &rb, "backend ref") == 0) {
                    FD_EXPECT(same_bits(&r0, &rb, es),
                              "layout invariance (case layout): bits differ from NCHW; %s", rep);
                    /* cpu has its own GEMM kernels for f32/f64 convolution: another summation
                     * order, so the oracle's tolerance; what still runs on ref (half, bfloat16,
                     * the bias gradient) must give ref's bits. */
                    int own_kernels = dir != CO_BWD_BIAS && (base.dt == CUDNN_DATA_FLOAT ||
                                                             base.dt == CUDNN_DATA_DOUBLE);
                    if (cc_check_run(&base, &rc, "backend cpu") == 0) {
                        if (own_kernels)
                            cc_compare(&base, &rc, want, &acc, CC_REAL, "backend cpu");
                        else
                            FD_EXPECT(same_bits(&rb, &rc, es),
                                      "backend invariance: cpu differs from ref; %s", rep);
                    }
                    if (cc_check_run(&base, &rd, "default handle") == 0) {
                        if (own_kernels)
                            cc_compare(&base, &rd, want, &acc, CC_REAL, "default handle");
                        else
                            FD_EXPECT(same_bits(&rb, &rd, es),
                                      "backend invariance: the default handle differs from ref; %s",
                                      rep);
                    }
                    if (cc_check_run(&base, &rr, "re-run") == 0)
                        FD_EXPECT(same_bits(&rb, &rr, es),
                                  "determinism: a re-run gave different bits; %s", rep);
                }
                cc_result_free(&rb), cc_result_free(&rc), cc_result_free(&rd), cc_result_free(&rr);
            next:
                cc_result_free(&r0);
                co_acc_free(&acc);
                free(want);
                cc_data_free(&d);
            }
    printf("%d runs\n", runs);
    cudnnDestroy(ref);
    cudnnDestroy(cpu);
    if (dflt)
        cudnnDestroy(dflt);
    return fd_test_finish();
}
