/* SPDX-License-Identifier: MIT */
/*
 * test_cpu_conv_winograd.c - the cpu backend's Winograd F(4x4,3x3) rows
 * (src/cpu/conv_winograd.c: fd_conv_fwd_winograd_f32, fd_conv_bwd_data_winograd_f32,
 * fd_conv_bwd_filter_winograd_f32) against
 * the independent oracle (tests/ref/conv_oracle.h), through the public API on a cpu handle.
 *
 * - Hand-picked shapes: sizes that are and are not multiples of the 4x4 tile, 1x1 and 2x2
 *   inputs (all padding), pad 0 to 3 (bwd data's pad' = 2 - pad goes negative), C or K = 1,
 *   groups, many tiles across images (chunking), N = 3, rows of 9, 10-11 and 18 tiles (the
 *   AVX-512 transforms' vector forms); all three directions (backward filter with its own
 *   seeds, so the other two keep theirs); x/y NCHW,
 *   NHWC, padded and permuted strides; NCHW and NHWC filters; both modes; alpha/beta (beta = 0
 *   over 0xFF poison); both algorithm enums (backward filter: WINOGRAD_NONFUSED only); exact
 *   integer fills and real fills. Winograd is
 *   not exact (the transforms divide by 6 and 24 and multiply by up to 8), so both fills are
 *   held to docs/testing.md's Winograd bound: 10x the f32 table bound; the worst ratio seen to
 *   the 1x bound is printed. Guards, holes, unchanged inputs and the workspace's guards are
 *   checked by cc_exec on every run; the row must be the one that ran.
 * - What the rows decline goes to ref and stays exact: stride 2, dilation 2, 5x5, 3-d, f64,
 *   and bwd filter with the fused Winograd enum (which cuDNN never offers); half goes to the lowp
 * Winograd rows (src/cpu/conv_lowp_cpu.c, on these rows), held to the Winograd bound.
 * - A random sweep: 3x3 stride-1 shapes from conv_case.h's generator.
 * - Chunks of 5 and 37 tiles (FREEDNN_CPU_WINOGRAD_CHUNK), cut inside tile rows.
 * - Determinism: the program re-runs itself with OMP_NUM_THREADS / OPENBLAS_NUM_THREADS 1, 2
 *   and 3, and with FREEDNN_CPU_ISA=generic / avx2 (the scalar transforms, which the AVX-512
 *   ones must match bit for bit); every output must have identical bits.
 * FD_TEST_SEED=<seed> replays one sweep case; FD_TEST_SCALE=k runs k times more.
 */
#include "cpu_kernel_case.h"

#define WINO_TOL 10.0 /* docs/testing.md: transform algorithms, 10x the table bound */

typedef struct {
    int n, c, k, g, h, w, pad_h, pad_w;
} wshape_t;

static const wshape_t wshapes[] = {
    {1, 3, 4, 1, 8, 8, 1, 1},     /* two tiles each way */
    {2, 5, 3, 1, 9, 7, 1, 1},     /* partial tiles */
    {1, 1, 1, 1, 1, 1, 1, 1},     /* one element, all padding around */
    {1, 2, 2, 1, 2, 3, 1, 1},     /* smaller than a tile */
    {1, 4, 5, 1, 6, 11, 0, 0},    /* no padding */
    {2, 3, 2, 1, 7, 6, 2, 2},     /* pad 2: bwd data pad' = 0 */
    {1, 2, 3, 1, 5, 5, 3, 3},     /* pad 3: output larger than the input, pad' = -1 */
    {1, 3, 3, 1, 6, 9, 2, 0},     /* uneven padding */
    {1, 8, 6, 2, 7, 7, 1, 1},     /* groups */
    {1, 6, 6, 3, 5, 4, 1, 1},     /* three groups */
    {3, 7, 9, 1, 13, 10, 1, 1},   /* N = 3 */
    {1, 16, 1, 1, 12, 12, 1, 1},  /* K = 1 */
    {1, 1, 16, 1, 12, 12, 1, 1},  /* C = 1 */
    {2, 33, 40, 1, 30, 26, 1, 1}, /* more channels, many tiles */
    {1, 3, 4, 1, 9, 70, 1, 1},    /* 18 tiles a row: 16 a vector and two */
    {2, 5, 6, 1, 13, 41, 2, 0},   /* 11 / 10 tiles a row (fwd / bwd data), uneven padding */
    {1, 4, 3, 1, 7, 35, 1, 1}     /* 9 tiles a row: the widest that dy's one-permute form misses */
};

static cc_case_t make_case(const wshape_t *sh, co_dir_t dir, int turn)
{
    cc_case_t c;
    memset(&c, 0, sizeof c);
    c.dir = dir, c.dt = CUDNN_DATA_FLOAT, c.comp = CUDNN_DATA_FLOAT;
    c.seed = fd_test_mix(0x3141, (uint64_t)turn);
    c.s.nsp = 2, c.s.n = sh->n, c.s.c = sh->c, c.s.k = sh->k, c.s.g = sh->g;
    c.s.in[0] = sh->h, c.s.in[1] = sh->w, c.s.flt[0] = c.s.flt[1] = 3;
    c.s.pad[0] = sh->pad_h, c.s.pad[1] = sh->pad_w;
    c.s.stride[0] = c.s.stride[1] = 1, c.s.dil[0] = c.s.dil[1] = 1;
    c.bstride = 1, c.alpha = 1.0, c.beta = 0.0;
    return c;
}

static int algo_of(co_dir_t dir, int which)
{
    if (dir == CO_BWD_FILTER) /* cuDNN offers only the non-fused one there */
        return CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
    if (dir == CO_FWD)
        return which ? CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED : CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD;
    return which ? CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED
                 : CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD;
}

static const char *row_of(co_dir_t dir)
{
    return dir == CO_FWD        ? "fd_conv_fwd_winograd_f32"
           : dir == CO_BWD_DATA ? "fd_conv_bwd_data_winograd_f32"
                                : "fd_conv_bwd_filter_winograd_f32";
}

static void hand_shapes(cudnnHandle_t h)
{
    static const cc_layout_t lay[][2] = {{CC_NCHW, CC_NCHW},   {CC_NHWC, CC_NHWC},
                                         {CC_PADDED, CC_PADDED}, {CC_PERMUTED, CC_NCHW},
                                         {CC_NCHW, CC_PERMUTED}, {CC_NHWC, CC_PADDED}};
    static const double ab[4][2] = {{1.0, 0.0}, {0.5, 0.25}, {-2.0, 1.0}, {1.0, 0.0}};
    /* backward filter counts its own turns (from 20000), so the forward and backward data cases
     * keep the seeds they had before it */
    int turns[2] = {0, 20000};
    for (size_t si = 0; si < sizeof wshapes / sizeof wshapes[0]; si++)
        for (int dir = CO_FWD; dir <= CO_BWD_FILTER; dir++)
            for (size_t v = 0; v < sizeof lay / sizeof lay[0]; v++)
                for (int wf = 0; wf < 2; wf++) {
                    int *tp = &turns[dir == CO_BWD_FILTER], turn = *tp;
                    cc_case_t c = make_case(&wshapes[si], (co_dir_t)dir, turn);
                    fd_rng_t r;
                    fd_rng_seed(&r, c.seed);
                    cc_set_layouts(&c, lay[v][0], lay[v][1], &r);
                    c.wnhwc = wf;
                    c.s.flip = (turn / 2) % 2;
                    c.misalign = turn % 5 == 0;
                    c.use4d = turn % 3 == 0;
                    c.alpha = ab[turn % 4][0], c.beta = ab[turn % 4][1];
                    c.algo = algo_of((co_dir_t)dir, turn % 2);
                    (*tp)++;
                    kc_run_ex(h, &c, CC_EXACT, WINO_TOL, 1, row_of((co_dir_t)dir));
                    kc_run_ex(h, &c, CC_REAL, WINO_TOL, 1, row_of((co_dir_t)dir));
                }
}

/* The last three hand shapes again with chunks of 5 and 37 tiles, which begin and end inside
 * tile rows (src/cpu/conv_winograd.c reads FREEDNN_CPU_WINOGRAD_CHUNK at every call). */
static void small_chunks(cudnnHandle_t h)
{
    static const char *const sizes[] = {"5", "37"};
    const size_t ns = sizeof wshapes / sizeof wshapes[0];
    int turn = 7000;
    for (int z = 0; z < 2; z++) {
        setenv("FREEDNN_CPU_WINOGRAD_CHUNK", sizes[z], 1);
        for (size_t si = ns - 3; si < ns; si++)
            for (int dir = CO_FWD; dir <= CO_BWD_FILTER; dir++) {
                cc_case_t c = make_case(&wshapes[si], (co_dir_t)dir, turn);
                fd_rng_t r;
                fd_rng_seed(&r, c.seed);
                cc_set_layouts(&c, turn % 2 ? CC_PADDED : CC_NCHW, CC_NCHW, &r);
                c.alpha = turn % 3 ? 1.0 : 0.5, c.beta = turn % 3 ? 0.0 : -1.5;
                c.algo = algo_of((co_dir_t)dir, turn % 2);
                turn++;
                kc_run_ex(h, &c, CC_EXACT, WINO_TOL, 1, row_of((co_dir_t)dir));
                kc_run_ex(h, &c, CC_REAL, WINO_TOL, 1, row_of((co_dir_t)dir));
            }
    }
    unsetenv("FREEDNN_CPU_WINOGRAD_CHUNK");
}

/* Problems the rows decline run on ref, exactly. */
static void declined(cudnnHandle_t h)
{
    static const char *const refs[3] = {"fd_conv_fwd_ref", "fd_conv_bwd_data_ref",
                                        "fd_conv_bwd_filter_ref"};
    const wshape_t base = {2, 3, 4, 1, 9, 8, 1, 1};
    for (int variant = 0; variant < 7; variant++)
        for (int dir = CO_FWD; dir <= CO_BWD_DATA; dir++) {
            cc_case_t c = make_case(&base, (co_dir_t)dir, 1000 + variant * 2 + dir);
            switch (variant) {
            case 0:
                c.s.stride[0] = c.s.stride[1] = 2;
                break;
            case 1:
                c.s.dil[0] = c.s.dil[1] = 2;
                break;
            case 2:
                c.s.flt[0] = c.s.flt[1] = 5, c.s.pad[0] = c.s.pad[1] = 2;
                break;
            case 3: /* 3-d 3x3x3 */
                c.s.nsp = 3, c.s.in[2] = 5, c.s.flt[2] = 3, c.s.pad[2] = 1, c.s.stride[2] = 1,
                c.s.dil[2] = 1;
                break;
            case 4:
                c.dt = c.comp = CUDNN_DATA_DOUBLE;
                break;
            case 5:
                c.dt = CUDNN_DATA_HALF, c.comp = CUDNN_DATA_FLOAT;
                break;
            default:
                c.s.flt[1] = 2; /* 3x2 */
                break;
            }
            fd_rng_t r;
            fd_rng_seed(&r, c.seed);
            cc_set_layouts(&c, CC_NCHW, CC_NCHW, &r);
            c.algo = algo_of((co_dir_t)dir, variant % 2);
            if (variant == 5)
                kc_run_ex(h, &c, CC_EXACT, WINO_TOL, 1,
                          dir == CO_FWD ? "fd_conv_fwd_winograd_lowp" : "fd_conv_bwd_data_winograd_lowp");
            else
                kc_run(h, &c, CC_EXACT, 0.0, refs[dir]);
        }
    /* backward filter: the fused enum (which cuDNN never offers) and what the row declines run
     * on ref */
    for (int variant = 0; variant < 3; variant++) {
        cc_case_t c = make_case(&base, CO_BWD_FILTER, 1100 + variant);
        if (variant == 1)
            c.s.stride[0] = c.s.stride[1] = 2;
        if (variant == 2)
            c.s.flt[1] = 2;
        fd_rng_t r;
        fd_rng_seed(&r, c.seed);
        cc_set_layouts(&c, CC_NCHW, CC_NCHW, &r);
        c.algo = variant == 0 ? CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD
                              : CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
        kc_run(h, &c, CC_EXACT, 0.0, refs[2]);
    }
}

/* Random 3x3 stride-1 2-d shapes of the shared generator. */
static void sweep(cudnnHandle_t h)
{
    const int ncases = cc_sweep_count(60);
    int done = 0;
    for (int dir = CO_FWD; dir <= CO_BWD_FILTER; dir++)
        for (int i = 0; i < ncases * 20 && done < ncases * (dir + 1); i++) {
            uint64_t seed = cc_sweep_seed(0x3A7E, dir, i);
            cc_case_t c = cc_case_gen((co_dir_t)dir, CUDNN_DATA_FLOAT, seed, 2);
            /* force the shape into the rows' domain, keeping sizes and layouts */
            c.s.flt[0] = c.s.flt[1] = 3;
            c.s.stride[0] = c.s.stride[1] = 1, c.s.dil[0] = c.s.dil[1] = 1;
            if (c.s.pad[0] > 3)
                c.s.pad[0] = 3;
            if (c.s.pad[1] > 3)
                c.s.pad[1] = 3;
            if (co_out(&c.s, 0) < 1 || co_out(&c.s, 1) < 1)
                continue;
            fd_rng_t r;
            fd_rng_seed(&r, seed);
            cc_set_layouts(&c, c.xl, c.yl, &r);
            c.comp = CUDNN_DATA_FLOAT;
            c.algo = algo_of((co_dir_t)dir, (int)(seed & 1));
            kc_run_ex(h, &c, i % 2 ? CC_REAL : CC_EXACT, WINO_TOL, 1, row_of((co_dir_t)dir));
            done++;
        }
}

/* ---- determinism ------------------------------------------------------------------------ */

static int child_main(void)
{
    cudnnHandle_t h = cc_handle(FREEDNN_BACKEND_CPU);
    /* 7 and 4 tiles a row (the AVX-512 transforms' one-permute form), 18 and 10 (16 tiles a
     * vector and a remainder; three permutes), groups, uneven padding */
    static const wshape_t det[] = {{2, 32, 48, 1, 28, 28, 1, 1},
                                   {1, 64, 64, 1, 14, 14, 1, 1},
                                   {1, 300, 20, 2, 9, 9, 1, 1},
                                   {1, 16, 24, 1, 11, 70, 1, 1},
                                   {2, 9, 7, 1, 10, 37, 2, 1}};
    int turn = 0;
    for (size_t si = 0; si < sizeof det / sizeof det[0]; si++)
        for (int dir = CO_FWD; dir <= CO_BWD_FILTER; dir++)
            for (int lay = 0; lay < 2; lay++) {
                cc_case_t c = make_case(&det[si], (co_dir_t)dir, 5000 + turn++);
                fd_rng_t r;
                fd_rng_seed(&r, c.seed);
                cc_set_layouts(&c, lay ? CC_NHWC : CC_NCHW, lay ? CC_NHWC : CC_NCHW, &r);
                c.wnhwc = lay;
                c.algo = algo_of((co_dir_t)dir, lay);
                c.alpha = 0.5, c.beta = lay ? 0.25 : 0.0;
                printf("%016llx\n", (unsigned long long)kc_hash(h, &c));
            }
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
        small_chunks(h);
        declined(h);
    }
    sweep(h);
    kc_log_off();
    printf("%d runs, %d with the implementation checked; worst real-fill error %.3g x the f32 "
           "table bound (allowed %g)\n",
           kc_runs, kc_dispatch_checked, kc_worst_ratio, WINO_TOL);
    if (!fd_test_seed_forced(&forced)) {
        /* the thread count; the AVX-512 transforms against the scalar ones (the same arithmetic:
         * identical bits; on a CPU without AVX-512 all settings run the scalar ones). (Not the
         * chunk size: it sets the GEMMs' N, on which OpenBLAS's bits depend.) */
        static const char *const envs[] = {
            "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2",
            "OMP_NUM_THREADS=3 OPENBLAS_NUM_THREADS=3",
            "OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 FREEDNN_CPU_ISA=generic",
            "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 FREEDNN_CPU_ISA=avx2"};
        kc_same_hashes(envs, 5);
    }
    cudnnDestroy(h);
    return fd_test_finish();
}
