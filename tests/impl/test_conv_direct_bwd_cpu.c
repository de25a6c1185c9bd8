/* SPDX-License-Identifier: MIT */
/*
 * test_conv_direct_bwd_cpu.c - the cpu backend's direct backward data row
 * (src/cpu/conv_direct_bwd_cpu.c: fd_conv_bwd_data_direct_f32, BWD_DATA ALGO_1: the direct
 * forward row on dy with the filter's K and C swapped and reversed) against the independent
 * oracle (tests/ref/conv_oracle.h), through the public API on a cpu handle.
 *
 * - Hand-picked stride-1 shapes: 3x3 pad 1 and pad 0, pad 2 = the dilated extent (pad' = 0),
 *   dilation 2, 5x5, 7x1 / 1x7, C and K not multiples of 8 or 16, K = 1, C = 1, N = 3,
 *   rows wider than a tile, 1-d, C = 130 (many output blocks: per-thread filter packing);
 *   dx/dy NCHW, NHWC, padded and permuted strides; NCHW and NHWC filters (the KCRS one is
 *   copied to CKRS first, the others read permuted); both modes; alpha/beta (beta = 0 over
 *   poison, beta != 0); misaligned pointers. Exact integer fills must agree bit for bit; real
 *   fills within the f32 bound of docs/testing.md. cc_exec checks guards, holes, unchanged
 *   inputs and the workspace guards; the row must be the one that ran.
 * - Declined problems go to the next ALGO_1 row, exactly: stride 2, pad beyond the dilated
 *   filter, groups 2, 3-d, f64, 1x1 filters (the 1x1 row), a 2^18-element filter over 42 dx
 *   positions.
 * - A random sweep of ALGO_1 problems, two in three turned into ones the row takes (the row
 *   checked where it applies).
 * - The checks again with FREEDNN_CPU_ISA=avx2 and generic in child processes, and the
 *   thread-count check: 1, 2 and 3 threads must give identical bits on each path.
 * FD_TEST_SEED=<seed> replays one sweep case; FD_TEST_SCALE=k runs k times more.
 */
#include "cpu_kernel_case.h"

#define ROW "fd_conv_bwd_data_direct_f32"

typedef kc_shape_t xshape_t;

static const xshape_t xshapes[] = {
    {2, 1, 16, 16, {7, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},   /* 3x3 pad 1 */
    {2, 2, 20, 17, {9, 8}, {3, 3}, {0, 0}, {1, 1}, {1, 1}},   /* 3x3 pad 0, partial blocks */
    {2, 1, 9, 12, {11, 10}, {3, 3}, {2, 1}, {1, 1}, {1, 1}},  /* pad 2: pad' 0 along H */
    {2, 1, 5, 9, {12, 11}, {3, 3}, {2, 3}, {1, 1}, {2, 2}},   /* dilation 2 */
    {2, 2, 6, 7, {13, 11}, {5, 5}, {2, 1}, {1, 1}, {1, 1}},   /* 5x5 */
    {2, 1, 4, 5, {12, 9}, {7, 1}, {3, 0}, {1, 1}, {1, 1}},    /* 7x1 */
    {2, 1, 4, 5, {5, 40}, {1, 7}, {0, 3}, {1, 1}, {1, 3}},    /* 1x7 dilated */
    {2, 1, 7, 6, {6, 45}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},    /* rows of several tiles */
    {2, 1, 18, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},    /* K = 1 (C' = 1) */
    {2, 1, 1, 24, {8, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},    /* C = 1 (K' = 1) */
    {2, 3, 40, 33, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},   /* N = 3, 7x7 */
    {1, 2, 9, 10, {40, 0}, {5, 0}, {2, 0}, {1, 0}, {2, 0}},   /* 1-d */
    {2, 1, 130, 20, {9, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, /* 9 output blocks */
};

static cc_case_t make_case(const xshape_t *sh, int turn)
{
    return kc_make_case(sh, CO_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, 0xDB0C7, turn);
}

/* The row's own applicability, restated: f32, groups 1, 1-d / 2-d, stride 1, pad within the
 * dilated filter, not 1x1, not a filter of 2^18 elements or more over fewer than 128 dx
 * positions. */
static int row_takes(const cc_case_t *c)
{
    if (c->dt != CUDNN_DATA_FLOAT || c->s.g != 1 || c->s.nsp > 2)
        return 0;
    int one = 1;
    for (int i = 0; i < c->s.nsp; i++) {
        if (c->s.stride[i] != 1 || c->s.pad[i] > (c->s.flt[i] - 1) * c->s.dil[i])
            return 0;
        one &= c->s.flt[i] == 1;
    }
    int64_t fsize = (int64_t)c->s.k * c->s.c, positions = c->s.n;
    for (int i = 0; i < c->s.nsp; i++)
        fsize *= c->s.flt[i], positions *= c->s.in[i];
    return !one && !(fsize >= (1 << 18) && positions < 128);
}

static cc_case_t make_variant(const void *shape, int turn)
{
    return make_case((const xshape_t *)shape, turn);
}

static void hand_shapes(cudnnHandle_t h)
{
    int turn = 0;
    for (size_t si = 0; si < sizeof xshapes / sizeof xshapes[0]; si++)
        kc_layout_variants(h, make_variant, &xshapes[si], &turn, ROW);
}

static void declined(cudnnHandle_t h)
{
    const xshape_t base = {2, 2, 4, 6, {7, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
    static const char *const next[] = {"fd_conv_bwd_data_gemm_f32", "fd_conv_bwd_data_gemm_f32",
                                       "fd_conv_bwd_data_gemm_f32", "fd_conv_bwd_data_gemm_f32",
                                       "fd_conv_bwd_data_gemm_f64", "fd_conv_bwd_data_gemm_f32",
                                       "fd_conv_bwd_data_1x1_f32", "fd_conv_bwd_data_gemm_f32"};
    for (int variant = 0; variant < 8; variant++) {
        cc_case_t c = make_case(&base, 700 + variant);
        switch (variant) {
        case 0:
            c.s.stride[0] = 2;
            break;
        case 1:
            c.s.pad[1] = 3;
            break;
        case 2:
            c.s.g = 2;
            break;
        case 3:
            c.s.nsp = 3, c.s.in[2] = 4, c.s.flt[2] = 3, c.s.pad[2] = 1, c.s.stride[2] = 1,
            c.s.dil[2] = 1;
            break;
        case 4:
            c.dt = c.comp = CUDNN_DATA_DOUBLE;
            break;
        case 5: /* 1x1 with pad 1: pad' = -1 */
            c.s.flt[0] = c.s.flt[1] = 1;
            break;
        case 6: /* 1x1, pad 0 */
            c.s.flt[0] = c.s.flt[1] = 1, c.s.pad[0] = c.s.pad[1] = 0;
            break;
        default: /* a 2^18-element filter over 7 x 6 = 42 dx positions */
            c.s.n = 1, c.s.c = 128, c.s.k = 256;
            break;
        }
        fd_rng_t r;
        fd_rng_seed(&r, c.seed);
        cc_set_layouts(&c, CC_NCHW, CC_NCHW, &r);
        FD_EXPECT(!row_takes(&c), "declined case %d is one the row takes", variant);
        kc_run(h, &c, CC_EXACT, 0.0, next[variant]);
    }
}

/* ALGO_1 draws, two in three made into problems the row takes (stride 1, groups 1, pad within
 * the filter), the layouts redrawn for the new dy. */
static const char *sweep_adapt(cc_case_t *c, uint64_t seed, int i)
{
    c->algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    if (i % 3 != 0 && c->s.nsp <= 2) {
        c->s.g = 1;
        for (int d = 0; d < c->s.nsp; d++) {
            int ext = (c->s.flt[d] - 1) * c->s.dil[d];
            c->s.stride[d] = 1;
            c->s.pad[d] = c->s.pad[d] > ext ? ext : c->s.pad[d];
        }
        fd_rng_t r;
        fd_rng_seed(&r, seed ^ 0x5EEDu);
        cc_set_layouts(c, c->xl, c->yl, &r);
    }
    return row_takes(c) ? ROW : "";
}

static void sweep(cudnnHandle_t h)
{
    int taken;
    int done = kc_sweep(h, CO_BWD_DATA, 0xDB0C75, 120, sweep_adapt, &taken);
    printf("sweep: %d problems, %d on the direct row\n", done, taken);
}

/* Bigger problems (many tiles, blocks and row bands) hashed for the thread-count check. */
static int hashes_main(void)
{
    cudnnHandle_t h = cc_handle(FREEDNN_BACKEND_CPU);
    const xshape_t det[] = {
        {2, 2, 40, 35, {30, 30}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
        {2, 1, 33, 40, {29, 31}, {5, 5}, {2, 2}, {1, 1}, {1, 1}},
        {2, 2, 48, 64, {9, 9}, {3, 3}, {2, 2}, {1, 1}, {2, 2}},
        {2, 2, 130, 24, {12, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
        {2, 1, 64, 64, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    };
    kc_print_hashes(h, make_variant, det, sizeof det / sizeof det[0], sizeof det[0], 1);
    cudnnDestroy(h);
    return 0;
}

static void checks(cudnnHandle_t h)
{
    uint64_t forced;
    if (!fd_test_seed_forced(&forced)) {
        hand_shapes(h);
        declined(h);
    }
    sweep(h);
}

int main(int argc, char **argv)
{
    return kc_isa_main(argc, argv, checks, hashes_main);
}
