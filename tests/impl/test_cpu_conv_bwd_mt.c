/* SPDX-License-Identifier: MIT */
/*
 * test_cpu_conv_bwd_mt.c - the cpu backend's strided backward data row
 * (src/cpu/conv_bwd_split_cpu.c: fd_conv_bwd_data_split_f32, BWD_DATA ALGO_1: one stride-1
 * forward problem of the direct row per residue class) against the independent oracle
 * (tests/ref/conv_oracle.h), through the public API on a cpu handle.
 *
 * - Hand-picked strided shapes: 3x3 stride 2 pad 1 and pad 0 (odd and even dx sizes), 1x1
 *   stride 2 (three classes no tap reaches: beta * dx only), 5x5 stride 3 pad 2, 7x7 stride 2
 *   pad 3 (classes whose dy view starts later), stride 2 along one dim only with dilation 2
 *   along the other, a stride larger than the filter (dx positions no tap reaches), C and K
 *   not multiples of 8 or 16, N = 3, 1-d; dx/dy NCHW, NHWC, padded and permuted strides; NCHW
 *   and NHWC filters; both modes; alpha/beta (beta = 0 over poison, beta != 0); misaligned
 *   pointers. Exact integer fills must agree bit for bit (every product and partial sum is an
 *   integer below 2^24, so float accumulation is exact in any order); real fills within 1x
 *   the f32 bound of docs/testing.md (float accumulation in the forward row's order, blend in
 *   double). cc_exec checks guards, holes, unchanged inputs and the workspace guards; the row
 *   must be the one that ran.
 * - Declined problems go to the next ALGO_1 row: stride 1 (the direct backward row), dilation
 *   with a stride along the same dim, groups 2, 3-d, f64, C < 16, a 2^18-element filter over
 *   fewer than 128 dx positions per class, 1x1 stride 2.
 * - A random sweep of ALGO_1 problems, two in three made strided ones the row takes.
 * - The 1x1 backward filter row (src/cpu/conv_direct_bwd_cpu.c: fd_conv_bwd_filter_direct_f32,
 *   BWD_FILTER ALGO_3: the direct forward row with the positions as its reduction): C a
 *   multiple of 16 (C / 16 rows of 16 output columns, one image a call) and not (one row, the
 *   images as filter rows), N = 1 to 3, NCHW and NHWC x / dy, NCHW and NHWC filters, alpha /
 *   beta; exact fills bit for bit, real fills within 1x the f32 bound (float accumulation of
 *   N * H * W terms in the forward row's order; each image's blend rounds once, in the
 *   per-image layout); padded strides go to another row.
 * - The checks again with FREEDNN_CPU_ISA=avx2 and generic in child processes, and the
 *   thread-count check: 1, 2 and 3 threads must give identical bits on each path (both
 *   rows).
 * FD_TEST_SEED=<seed> replays one sweep case; FD_TEST_SCALE=k runs k times more.
 */
#include "cpu_kernel_case.h"

#define ROW "fd_conv_bwd_data_split_f32"
#define ROW_DW "fd_conv_bwd_filter_direct_f32"

typedef kc_shape_t xshape_t;

static const xshape_t xshapes[] = {
    {2, 1, 16, 16, {9, 10}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},  /* 3x3 s2 p1, odd / even dx */
    {2, 2, 20, 17, {11, 8}, {3, 3}, {0, 0}, {2, 2}, {1, 1}},  /* 3x3 s2 p0, partial blocks */
    {2, 1, 24, 40, {10, 9}, {1, 2}, {0, 0}, {2, 3}, {1, 1}},  /* 1x2 s2x3: empty classes */
    {2, 1, 17, 9, {14, 13}, {5, 5}, {2, 2}, {3, 3}, {1, 1}},  /* 5x5 s3 */
    {2, 1, 16, 8, {20, 19}, {7, 7}, {3, 3}, {2, 2}, {1, 1}},  /* 7x7 s2 p3 */
    {2, 1, 18, 7, {9, 12}, {3, 3}, {2, 1}, {1, 2}, {2, 1}},   /* s1 dil 2 x s2 */
    {2, 1, 16, 5, {11, 11}, {2, 2}, {0, 0}, {3, 3}, {1, 1}},  /* stride > filter */
    {2, 3, 33, 20, {8, 7}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},   /* N = 3 */
    {1, 2, 19, 10, {41, 0}, {5, 0}, {2, 0}, {2, 0}, {1, 0}},  /* 1-d */
    {2, 1, 130, 20, {9, 10}, {3, 3}, {1, 1}, {2, 2}, {1, 1}}, /* 9 output blocks */
};

static cc_case_t make_case(const xshape_t *sh, int turn)
{
    return kc_make_case(sh, CO_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, 0x5B117, turn);
}

/* dx positions of residue class a along one dim (in positions, stride s) */
static int64_t class_positions(int in, int s, int a)
{
    return a < in ? (in - a + s - 1) / s : 0;
}

/* The row's own applicability, restated: f32, groups 1, 1-d / 2-d, some stride above 1,
 * dilation 1 along strided dims, C >= 16, not 1x1, and no class some tap reaches with fewer
 * than 128 dx positions under a filter of 2^18 elements or more. */
static int row_takes(const cc_case_t *c)
{
    if (c->dt != CUDNN_DATA_FLOAT || c->s.g != 1 || c->s.nsp > 2 || c->s.c < 16)
        return 0;
    int strided = 0;
    for (int i = 0; i < c->s.nsp; i++) {
        if (c->s.stride[i] > 1 && c->s.dil[i] != 1)
            return 0;
        strided |= c->s.stride[i] > 1;
    }
    if (!strided)
        return 0;
    int64_t fsize = (int64_t)c->s.k * c->s.c;
    for (int i = 0; i < c->s.nsp; i++)
        fsize *= c->s.flt[i];
    if (c->s.flt[0] == 1 && (c->s.nsp < 2 || c->s.flt[1] == 1))
        return 0;
    if (fsize < (1 << 18))
        return 1;
    /* every class some tap reaches must have 128 positions or more */
    int s0 = c->s.stride[0], s1 = c->s.nsp > 1 ? c->s.stride[1] : 1;
    for (int a0 = 0; a0 < s0; a0++)
        for (int a1 = 0; a1 < s1; a1++) {
            int64_t m = c->s.n * class_positions(c->s.in[0], s0, a0);
            int reach = (a0 + c->s.pad[0]) % s0 < c->s.flt[0] || s0 == 1;
            if (c->s.nsp > 1) {
                m *= class_positions(c->s.in[1], s1, a1);
                reach &= (a1 + c->s.pad[1]) % s1 < c->s.flt[1] || s1 == 1;
            }
            if (m > 0 && reach && m < 128)
                return 0;
        }
    return 1;
}

static cc_case_t make_variant(const void *shape, int turn)
{
    return make_case((const xshape_t *)shape, turn);
}

static void hand_shapes(cudnnHandle_t h)
{
    int turn = 0;
    for (size_t si = 0; si < sizeof xshapes / sizeof xshapes[0]; si++) {
        cc_case_t c = make_case(&xshapes[si], 0);
        FD_EXPECT(row_takes(&c), "hand shape %zu is not one the row takes", si);
        kc_layout_variants(h, make_variant, &xshapes[si], &turn, ROW);
    }
}

static void declined(cudnnHandle_t h)
{
    const xshape_t base = {2, 2, 16, 6, {9, 8}, {3, 3}, {1, 1}, {2, 2}, {1, 1}};
    static const char *const next[] = {"fd_conv_bwd_data_direct_f32", "fd_conv_bwd_data_gemm_f32",
                                       "fd_conv_bwd_data_gemm_f32",   "fd_conv_bwd_data_gemm_f32",
                                       "fd_conv_bwd_data_gemm_f64",   "fd_conv_bwd_data_gemm_f32",
                                       "fd_conv_bwd_data_gemm_f32",   "fd_conv_bwd_data_gemm_f32"};
    for (int variant = 0; variant < 8; variant++) {
        cc_case_t c = make_case(&base, 700 + variant);
        switch (variant) {
        case 0: /* stride 1 */
            c.s.stride[0] = c.s.stride[1] = 1;
            break;
        case 1: /* stride 2 with dilation 2 along the same dim */
            c.s.dil[1] = 2;
            break;
        case 2:
            c.s.g = 2;
            break;
        case 3:
            c.s.nsp = 3, c.s.in[2] = 5, c.s.flt[2] = 3, c.s.pad[2] = 1, c.s.stride[2] = 2,
            c.s.dil[2] = 1;
            break;
        case 4:
            c.dt = c.comp = CUDNN_DATA_DOUBLE;
            break;
        case 5: /* C = 8: below one vector block */
            c.s.c = 8;
            break;
        case 6: /* 1x1 stride 2 */
            c.s.flt[0] = c.s.flt[1] = 1, c.s.pad[0] = c.s.pad[1] = 0;
            break;
        default: /* a 2^18-element filter (128 x 256 x 3 x 3) over classes of 20 positions */
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

/* ALGO_1 draws, two in three made into problems the row takes (a stride of 2 or 3 along the
 * first dim, dilation 1 along strided dims, groups 1, C >= 16), the layouts redrawn; skipped
 * when the changes leave no output. */
static const char *sweep_adapt(cc_case_t *c, uint64_t seed, int i)
{
    c->algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    if (i % 3 != 0 && c->s.nsp <= 2) {
        c->s.g = 1;
        c->s.c = c->s.c < 16 ? 16 + c->s.c : c->s.c;
        if (c->s.stride[0] < 2)
            c->s.stride[0] = 2 + (int)(seed % 2);
        for (int d = 0; d < c->s.nsp; d++)
            if (c->s.stride[d] > 1)
                c->s.dil[d] = 1;
        fd_rng_t r;
        fd_rng_seed(&r, seed ^ 0x5EEDu);
        cc_set_layouts(c, c->xl, c->yl, &r);
    }
    for (int d = 0; d < c->s.nsp; d++)
        if (c->s.in[d] + 2 * c->s.pad[d] < (c->s.flt[d] - 1) * c->s.dil[d] + 1)
            return NULL;
    return row_takes(c) ? ROW : "";
}

static void sweep(cudnnHandle_t h)
{
    int taken;
    int done = kc_sweep(h, CO_BWD_DATA, 0x5B1175, 120, sweep_adapt, &taken);
    printf("sweep: %d problems, %d on the split row\n", done, taken);
}

/* 1x1 backward filter shapes: {n, c, k, h, w} */
static const int dw_shapes[][5] = {
    {1, 32, 16, 7, 9}, /* C % 16 == 0: 2 rows of 16 */
    {2, 48, 20, 5, 6}, /* per-image calls, partial K block */
    {3, 20, 17, 4, 5}, /* one row, three images as filter rows */
    {1, 7, 40, 3, 11}, /* C below a block */
    {2, 64, 33, 9, 9}, /* L = 81: partial channel block of the reduction */
    {1, 16, 1, 12, 1}, /* K = 1 */
};

static cc_case_t make_dw(const int *sh, int turn)
{
    cc_case_t c;
    memset(&c, 0, sizeof c);
    c.dir = CO_BWD_FILTER, c.dt = CUDNN_DATA_FLOAT, c.comp = CUDNN_DATA_FLOAT;
    c.seed = fd_test_mix(0xDF111, (uint64_t)turn);
    c.s.nsp = 2, c.s.n = sh[0], c.s.c = sh[1], c.s.k = sh[2], c.s.g = 1;
    c.s.in[0] = sh[3], c.s.in[1] = sh[4];
    for (int i = 0; i < 2; i++)
        c.s.flt[i] = 1, c.s.pad[i] = 0, c.s.stride[i] = 1, c.s.dil[i] = 1;
    c.bstride = 1, c.alpha = 1.0, c.beta = 0.0;
    c.algo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3;
    return c;
}

static void dw_shapes_run(cudnnHandle_t h)
{
    static const cc_layout_t lay[][2] = {
        {CC_NCHW, CC_NCHW}, {CC_NHWC, CC_NHWC}, {CC_NCHW, CC_NHWC}, {CC_PADDED, CC_NCHW}};
    static const double ab[4][2] = {{1.0, 0.0}, {0.5, 0.25}, {-2.0, 1.0}, {1.0, 0.0}};
    int turn = 0;
    for (size_t si = 0; si < sizeof dw_shapes / sizeof dw_shapes[0]; si++)
        for (size_t v = 0; v < sizeof lay / sizeof lay[0]; v++)
            for (int wf = 0; wf < 2; wf++) {
                const int t = turn++;
                cc_case_t c = make_dw(dw_shapes[si], t);
                fd_rng_t r;
                fd_rng_seed(&r, c.seed);
                cc_set_layouts(&c, lay[v][0], lay[v][1], &r);
                c.wnhwc = wf;
                c.s.flip = t % 2;
                c.misalign = t % 5 == 0;
                c.alpha = ab[t % 4][0], c.beta = ab[t % 4][1];
                const char *want = lay[v][0] == CC_PADDED ? "" : ROW_DW;
                kc_run(h, &c, CC_EXACT, 0.0, want);
                kc_run(h, &c, CC_REAL, 1.0, want);
            }
}

/* Bigger problems (many classes, blocks and row bands) hashed for the thread-count check. */
static int hashes_main(void)
{
    cudnnHandle_t h = cc_handle(FREEDNN_BACKEND_CPU);
    const xshape_t det[] = {
        {2, 2, 40, 35, {30, 30}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
        {2, 1, 33, 40, {29, 31}, {5, 5}, {2, 2}, {3, 3}, {1, 1}},
        {2, 2, 48, 64, {20, 20}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
        {2, 1, 64, 64, {56, 56}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
    };
    kc_print_hashes(h, make_variant, det, sizeof det / sizeof det[0], sizeof det[0], 1);
    const int dw_det[][5] = {{1, 64, 64, 28, 28}, {2, 40, 48, 14, 14}, {1, 256, 96, 7, 7}};
    for (size_t si = 0; si < sizeof dw_det / sizeof dw_det[0]; si++) {
        cc_case_t c = make_dw(dw_det[si], 9500 + (int)si);
        fd_rng_t r;
        fd_rng_seed(&r, c.seed);
        cc_set_layouts(&c, CC_NCHW, CC_NCHW, &r);
        c.alpha = 0.5, c.beta = si == 1 ? 0.25 : 0.0;
        printf("%016llx\n", (unsigned long long)kc_hash(h, &c));
    }
    cudnnDestroy(h);
    return 0;
}

static void checks(cudnnHandle_t h)
{
    uint64_t forced;
    if (!fd_test_seed_forced(&forced)) {
        hand_shapes(h);
        declined(h);
        dw_shapes_run(h);
    }
    sweep(h);
}

int main(int argc, char **argv)
{
    return kc_isa_main(argc, argv, checks, hashes_main);
}
