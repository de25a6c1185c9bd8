/* SPDX-License-Identifier: MIT */
/*
 * test_conv_direct_cpu.c - the cpu backend's direct forward row (src/cpu/conv_direct_cpu.c:
 * fd_conv_fwd_direct_f32, algorithm DIRECT) against the independent oracle
 * (tests/ref/conv_oracle.h), through the public API on a cpu handle.
 *
 * - Hand-picked shapes, one per class: 1x1 stride 1 and 2, 3x3 stride 1 and 2, 7x7 stride 2
 *   with C = 3 (ResNet's conv1, smaller), dilation 2, 5x5 and 1x7 / 7x1 filters, stride 3,
 *   pad 0 and pad beyond the filter, odd sizes, rows wider than a tile, C and K that are not
 *   multiples of 8 or 16 (partial channel and output-channel blocks), C = 2, K = 1, N = 3,
 *   1-d; x/y NCHW, NHWC, padded and permuted strides; NCHW and NHWC filters; both modes;
 *   alpha/beta (beta = 0 over 0xFF poison, beta != 0); misaligned pointers; K = 130 (enough K
 *   blocks for the per-thread filter packing with 2 threads); 829 x 829 images (packed one
 *   image at a time); 1x1 shapes for the AVX-512 path on NCHW planes (full and partial pixel
 *   vectors, a 16 m + 1 plane with its extra pixel, a strided 1x1 on gathered pixels, output
 *   channels not a multiple of its 6-row tile) and its AVX2 form (24-pixel blocks with partial
 *   last vectors, K split in two when the blocks are few); x beyond L2 with K in chunks. Exact
 * integer fills must agree bit for bit (every partial sum is an integer below 2^24); real fills
 *   within the f32 bound of docs/testing.md. cc_exec checks the output guards, holes,
 *   unchanged inputs and the workspace guards on every run; the row must be the one that ran.
 * - Declined problems run on ref, exactly: groups 2, 3-d, f64, half.
 * - A random sweep of groups-1, 1-d / 2-d shapes from conv_case.h's generator.
 * - The same checks again in child processes with FREEDNN_CPU_ISA=avx2 and generic (each
 *   path's own kernels and blocking; skipped paths fall to a lower one on older CPUs).
 * - Determinism: the program re-runs itself with 1, 2 and 3 threads per instruction-set path;
 *   every output must have identical bits within a path (paths round differently: FMA or not,
 *   16- or 8-channel blocks). One thread packs the filter per K block (per image chunk), more
 *   threads with few K blocks pack it first: the hashes compare the two schemes.
 * FD_TEST_SEED=<seed> replays one sweep case; FD_TEST_SCALE=k runs k times more.
 */
#include "cpu_kernel_case.h"

#define ROW "fd_conv_fwd_direct_f32"

typedef kc_shape_t xshape_t;

static const xshape_t xshapes[] = {
    {2, 1, 16, 16, {7, 9}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},   /* 1x1 */
    {2, 2, 9, 20, {11, 10}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},  /* 1x1 stride 2 */
    {2, 1, 20, 17, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},   /* 3x3, partial blocks */
    {2, 1, 17, 33, {14, 13}, {3, 3}, {1, 1}, {2, 2}, {1, 1}}, /* 3x3 stride 2 */
    {2, 1, 3, 20, {30, 29}, {7, 7}, {3, 3}, {2, 2}, {1, 1}},  /* conv1-like: 7x7 s2, C = 3 */
    {2, 1, 5, 9, {12, 11}, {3, 3}, {2, 2}, {1, 1}, {2, 2}},   /* dilation 2 */
    {2, 2, 6, 7, {13, 11}, {5, 5}, {0, 0}, {1, 1}, {1, 1}},   /* 5x5, no padding */
    {2, 1, 4, 5, {12, 9}, {7, 1}, {3, 0}, {1, 1}, {1, 1}},    /* 7x1 */
    {2, 1, 4, 5, {5, 40}, {1, 7}, {0, 3}, {2, 1}, {1, 3}},    /* 1x7, uneven stride, dil */
    {2, 1, 8, 8, {10, 10}, {3, 3}, {1, 2}, {3, 3}, {1, 1}},   /* stride 3 */
    {2, 1, 2, 3, {3, 3}, {3, 3}, {4, 4}, {1, 2}, {1, 1}},     /* pad beyond the filter */
    {2, 1, 7, 6, {6, 45}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},    /* rows of several tiles */
    {2, 1, 2, 18, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},    /* C = 2 (C = 1 is depthwise) */
    {2, 1, 24, 1, {8, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},    /* K = 1 */
    {2, 3, 33, 40, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},   /* N = 3, 7x7 outputs */
    {1, 2, 9, 10, {40, 0}, {5, 0}, {2, 0}, {2, 0}, {2, 0}},   /* 1-d */
    {2, 1, 20, 130, {9, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}}, /* 9 K blocks: per-thread packing */
    {2, 2, 37, 20, {7, 7}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},   /* 1x1 on NCHW planes, 49 pixels:
                                                                 3 vectors + 1 (d1e_kernel) */
    {2, 1, 40, 13, {13, 13}, {1, 1}, {0, 0}, {2, 2}, {1, 1}}, /* strided 1x1 to 7x7 (gathered) */
    {2, 1, 24, 50, {20, 20}, {1, 1}, {0, 0}, {1, 1}, {1, 1}}, /* 1x1, 400 pixels: 6 + 1 vectors */
    {2, 1, 40, 100, {7, 7}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},  /* 1x1, few pixel blocks: the AVX2
                                                                 form splits K in two */
    {2, 1, 32, 176, {98, 98}, {3, 3}, {0, 0}, {1, 1}, {47, 47}}, /* 1.2 MB of packed x, 22 K
                                                                    blocks: the AVX2 order in
                                                                    two chunks of K groups */
};

/* x of more than 4M packed floats per image (for 8 and 16 lanes), so it is packed and computed
 * one image at a time; dilation 400 keeps the output (and the oracle's work) small. */
static const xshape_t big = {2, 2, 3, 32, {829, 829}, {3, 3}, {0, 0}, {1, 1}, {400, 400}};

static cc_case_t make_case(const xshape_t *sh, int turn)
{
    return kc_make_case(sh, CO_FWD, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, 0xD1EC7, turn);
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

static void big_images(cudnnHandle_t h)
{
    for (int turn = 0; turn < 2; turn++) {
        cc_case_t c = make_case(&big, 500 + turn);
        fd_rng_t r;
        fd_rng_seed(&r, c.seed);
        cc_set_layouts(&c, CC_NCHW, turn ? CC_PADDED : CC_NCHW, &r);
        c.s.flip = turn;
        c.alpha = turn ? 0.5 : 1.0, c.beta = turn ? 0.25 : 0.0;
        kc_run(h, &c, turn ? CC_REAL : CC_EXACT, turn ? 1.0 : 0.0, ROW);
    }
}

static void declined(cudnnHandle_t h)
{
    const xshape_t base = {2, 2, 4, 6, {7, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}};
    for (int variant = 0; variant < 4; variant++) {
        cc_case_t c = make_case(&base, 700 + variant);
        switch (variant) {
        case 0:
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
        /* half runs on this row through FLOAT copies (src/cpu/conv_lowp_cpu.c), exactly */
        kc_run(h, &c, CC_EXACT, 0.0, variant == 3 ? "fd_conv_fwd_direct_lowp" : "fd_conv_fwd_ref");
    }
}

/* Groups-1, 1-d / 2-d draws under DIRECT; C = 1 with groups 1 is also depthwise, and that row
 * serves DIRECT first. */
static const char *sweep_adapt(cc_case_t *c, uint64_t seed, int i)
{
    (void)seed, (void)i;
    if (c->s.g != 1 || c->s.nsp > 2)
        return NULL;
    c->algo = CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
    return c->s.c == 1 ? "" : ROW;
}

static void sweep(cudnnHandle_t h)
{
    int taken;
    kc_sweep(h, CO_FWD, 0xD1EC75, 80, sweep_adapt, &taken);
}

/* Bigger problems (many tiles, K blocks and row bands) hashed for the thread-count check. */
static int hashes_main(void)
{
    cudnnHandle_t h = cc_handle(FREEDNN_BACKEND_CPU);
    const xshape_t det[] = {
        {2, 2, 35, 40, {30, 30}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
        {2, 1, 3, 24, {64, 61}, {7, 7}, {3, 3}, {2, 2}, {1, 1}},
        {2, 1, 40, 33, {29, 31}, {5, 5}, {2, 2}, {2, 2}, {1, 1}},
        {2, 2, 64, 48, {9, 9}, {3, 3}, {2, 2}, {1, 1}, {2, 2}},
        {2, 2, 24, 130, {12, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
        big,
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
        big_images(h);
        declined(h);
    }
    sweep(h);
}

int main(int argc, char **argv)
{
    return kc_isa_main(argc, argv, checks, hashes_main);
}
