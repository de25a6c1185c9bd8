/* SPDX-License-Identifier: MIT */
/*
 * test_cpu_conv_depthwise.c - the cpu backend's depthwise direct row
 * (src/cpu/conv_depthwise.c: fd_conv_fwd_depthwise_f32) against the independent oracle
 * (tests/ref/conv_oracle.h), through the public API on a cpu handle.
 *
 * - Hand-picked shapes: multiplier 1, 2 and 3; 3x3, 5x5, 7x1, 1x7, 2x2 filters; stride 1, 2
 *   and uneven; dilation 2; pad 0 to 4 (outputs that see only padding); rows wider than the
 *   256-column accumulator (chunk edges); 1-d; N = 3; x/y NCHW, NHWC (x's W stride is C: the
 *   strided path), padded and permuted strides; NCHW and NHWC filters; both modes; alpha/beta
 *   (beta = 0 over 0xFF poison); IMPLICIT_GEMM and DIRECT. Exact integer fills must agree bit
 *   for bit (the sum of integers is exact in any order); real fills within the f32 bound of
 *   docs/testing.md. cc_exec checks guards, holes and unchanged inputs on every run, and the
 *   row must be the one that ran.
 * - Declined problems run on ref, exactly: groups != C, 3-d, f64, half.
 * - A random sweep of depthwise shapes from conv_case.h's generator.
 * - Determinism and the instruction-set paths: the program re-runs itself with 1, 2 and 3
 *   threads and with FREEDNN_CPU_ISA=avx512, avx2 and generic: every output must have
 *   identical bits (multiply and add are never fused, so the paths round alike).
 * FD_TEST_SEED=<seed> replays one sweep case; FD_TEST_SCALE=k runs k times more.
 */
#include "cpu_kernel_case.h"

#define ROW "fd_conv_fwd_depthwise_f32"

typedef struct {
    int nsp, n, c, mult;
    int in[2], flt[2], pad[2], stride[2], dil[2];
} dshape_t;

static const dshape_t dshapes[] = {
    {2, 2, 6, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {2, 1, 4, 2, {9, 8}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
    {2, 1, 3, 3, {6, 9}, {5, 5}, {2, 2}, {1, 1}, {1, 1}},
    {2, 2, 5, 1, {10, 11}, {3, 3}, {2, 2}, {1, 1}, {2, 2}},
    {2, 1, 2, 1, {12, 9}, {7, 1}, {3, 0}, {1, 1}, {1, 1}},
    {2, 1, 2, 2, {5, 13}, {1, 7}, {0, 3}, {2, 1}, {1, 1}},
    {2, 3, 3, 1, {4, 4}, {2, 2}, {0, 0}, {1, 1}, {1, 1}},
    {2, 1, 2, 1, {3, 3}, {3, 3}, {4, 4}, {1, 3}, {1, 1}},   /* pad beyond the filter */
    {2, 1, 3, 1, {5, 300}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, /* two accumulator chunks */
    {2, 1, 2, 1, {4, 530}, {3, 5}, {1, 2}, {1, 2}, {1, 1}}, /* strided, chunk edges */
    {1, 2, 4, 2, {40, 0}, {5, 0}, {2, 0}, {1, 0}, {2, 0}},  /* 1-d */
    {2, 1, 1, 4, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},   /* C = 1 */
};

static cc_case_t make_case(const dshape_t *sh, int turn)
{
    cc_case_t c;
    memset(&c, 0, sizeof c);
    c.dir = CO_FWD, c.dt = CUDNN_DATA_FLOAT, c.comp = CUDNN_DATA_FLOAT;
    c.seed = fd_test_mix(0xD3E9, (uint64_t)turn);
    c.s.nsp = sh->nsp, c.s.n = sh->n, c.s.c = c.s.g = sh->c, c.s.k = sh->c * sh->mult;
    for (int i = 0; i < sh->nsp; i++) {
        c.s.in[i] = sh->in[i], c.s.flt[i] = sh->flt[i], c.s.pad[i] = sh->pad[i];
        c.s.stride[i] = sh->stride[i], c.s.dil[i] = sh->dil[i];
    }
    c.bstride = 1, c.alpha = 1.0, c.beta = 0.0;
    c.algo = turn % 2 ? CUDNN_CONVOLUTION_FWD_ALGO_DIRECT : CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    return c;
}

static cc_case_t make_variant(const void *shape, int turn)
{
    return make_case((const dshape_t *)shape, turn);
}

static void hand_shapes(cudnnHandle_t h)
{
    int turn = 0;
    for (size_t si = 0; si < sizeof dshapes / sizeof dshapes[0]; si++)
        kc_layout_variants(h, make_variant, &dshapes[si], &turn, ROW);
}

static void declined(cudnnHandle_t h)
{
    const dshape_t base = {2, 2, 4, 1, {7, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
    for (int variant = 0; variant < 4; variant++) {
        cc_case_t c = make_case(&base, 700 + variant);
        switch (variant) {
        case 0: /* two channels per group */
            c.s.g = 2;
            break;
        case 1:
            c.s.nsp = 3, c.s.in[2] = 4, c.s.flt[2] = 3, c.s.pad[2] = 1, c.s.stride[2] = 1,
            c.s.dil[2] = 1;
            break;
        case 2:
            c.dt = c.comp = CUDNN_DATA_DOUBLE;
            break;
        default:
            c.dt = CUDNN_DATA_HALF;
            break;
        }
        fd_rng_t r;
        fd_rng_seed(&r, c.seed);
        cc_set_layouts(&c, CC_NCHW, CC_NCHW, &r);
        /* half with DIRECT runs on this row through FLOAT copies (src/cpu/conv_lowp_cpu.c);
         * FLOAT IMPLICIT_GEMM on the implicit GEMM (src/cpu/conv_implicit.c) */
        const int lowp = variant == 3 && c.algo == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
        const int implicit =
            c.dt == CUDNN_DATA_FLOAT && c.algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
        kc_run(h, &c, CC_EXACT, 0.0,
               lowp       ? "fd_conv_fwd_direct_lowp"
               : implicit ? "fd_conv_fwd_implicit_f32"
                          : "fd_conv_fwd_ref");
    }
}

/* Depthwise 1-d / 2-d draws under DIRECT or IMPLICIT_GEMM; a packed 1x1 may be taken by the
 * 1x1 GEMM row, which serves IMPLICIT_GEMM first. */
static const char *sweep_adapt(cc_case_t *c, uint64_t seed, int i)
{
    (void)i;
    if (c->s.g != c->s.c || c->s.nsp > 2)
        return NULL;
    c->algo = seed & 1 ? CUDNN_CONVOLUTION_FWD_ALGO_DIRECT : CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    int one = 1;
    for (int d = 0; d < c->s.nsp; d++)
        one &= c->s.flt[d] == 1 && c->s.stride[d] == 1 && c->s.pad[d] == 0;
    return one && c->algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ? "" : ROW;
}

static void sweep(cudnnHandle_t h)
{
    int taken;
    kc_sweep(h, CO_FWD, 0xD3E95, 80, sweep_adapt, &taken);
}

static int child_main(void)
{
    cudnnHandle_t h = cc_handle(FREEDNN_BACKEND_CPU);
    static const dshape_t det[] = {
        {2, 2, 32, 1, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
        {2, 1, 64, 2, {29, 31}, {5, 5}, {2, 2}, {2, 2}, {1, 1}},
        {2, 1, 8, 1, {20, 333}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    };
    kc_print_hashes(h, make_variant, det, sizeof det / sizeof det[0], sizeof det[0], 0);
    cudnnDestroy(h);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--hashes") == 0)
        return child_main();
    kc_log_on();
    cudnnHandle_t h = cc_handle(FREEDNN_BACKEND_CPU);
    uint64_t forced;
    if (!fd_test_seed_forced(&forced)) {
        hand_shapes(h);
        declined(h);
    }
    sweep(h);
    kc_log_off();
    printf("%d runs, %d with the implementation checked; worst real-fill error %.3g x the f32 "
           "table bound\n",
           kc_runs, kc_dispatch_checked, kc_worst_ratio);
    if (!fd_test_seed_forced(&forced)) {
        static const char *const envs[] = {
            "OMP_NUM_THREADS=1", "OMP_NUM_THREADS=2", "OMP_NUM_THREADS=3",
            "OMP_NUM_THREADS=2 FREEDNN_CPU_ISA=avx2", "OMP_NUM_THREADS=1 FREEDNN_CPU_ISA=generic",
            "OMP_NUM_THREADS=2 FREEDNN_CPU_ISA=avx512"};
        kc_same_hashes(envs, 6);
    }
    cudnnDestroy(h);
    return fd_test_finish();
}
