/* SPDX-License-Identifier: MIT */
/*
 * test_cpu_conv_lowp.c - the cpu backend's HALF / BFLOAT16 convolution rows
 * (src/cpu/conv_lowp_cpu.c: FLOAT copies in the workspace, the FLOAT rows, a rounded blend)
 * against the independent oracle (tests/ref/conv_oracle.h), through the public API on a cpu
 * handle, with cc_exec's guards, holes, unchanged inputs and exact-size workspace on every run.
 *
 * - Hand-picked edge shapes (1x1 with and without groups, strided 1x1, 3x3 pad 1, stride 2,
 *   dilation 2, uneven filters and strides, pad >= filter, groups, depthwise, 1-d, 3-d, a
 *   single output), all three directions, HALF and BFLOAT16, computeType FLOAT and the
 *   storage type, x/y NCHW, NHWC, padded and permuted strides, NCHW and NHWC filters, both
 *   modes, alpha / beta pairs (beta = 0 over poison), every enum family the rows serve; the
 *   dispatch log must name the expected row (a lowp row, or ref where no FLOAT row applies).
 * - Declined: FWD IMPLICIT_GEMM and BWD ALGO_0 (no workspace allowed), FFT, Winograd off
 *   3x3 stride 1, DIRECT on 3-d go to ref and stay exact.
 * - A random sweep of conv_case.h's generator over HALF / BFLOAT16.
 * - The ISA paths (FREEDNN_CPU_ISA avx2 / generic re-run the checks) and determinism: output
 *   hashes identical for 1, 2 and 3 threads on each path (kc_isa_main).
 * Tolerances: exact fills (small integers, sums within float and the output type) must be
 * bit-identical to the oracle: FLOAT accumulation and one rounding are exact there. Real fills
 * are held to docs/testing.md's bound for the storage / compute pair (fd_tolerance, 1x): the
 * FLOAT sum then a rounding to float then to f16 / bf16 stays well inside u_out + K u_acc.
 * Winograd rows: both fills held to 10x the bound, normwise (docs/testing.md's Winograd row;
 * the f32 transforms are not exact even on integer data, though a rounding to f16 / bf16
 * usually hides it).
 * FD_TEST_SEED=<seed> replays one sweep case; FD_TEST_SCALE=k runs k times more.
 */
#include "cpu_kernel_case.h"

#define WINO_TOL 10.0

static char inner_impl[128]; /* the FLOAT row the last lowp run used */

static void on_log(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    kc_on_log(sev, udata, dbg, msg);
    const char *d = strstr(msg, "dispatch: ");
    const char *r = d ? strstr(d, " runs ") : NULL;
    if (r && strstr(r, " on FLOAT copies"))
        sscanf(r + 6, "%127s", inner_impl);
}

typedef struct {
    const char *name;
    int nsp, n, c, k, g;
    int in[3], flt[3], pad[3], stride[3], dil[3];
} shape_t;

static const shape_t shapes[] = {
    {"1x1", 2, 2, 8, 6, 1, {5, 7}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
    {"1x1 groups", 2, 3, 8, 12, 4, {4, 5}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
    {"1x1 stride 2", 2, 2, 6, 4, 1, {7, 8}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
    {"3x3 pad 1", 2, 2, 7, 5, 1, {9, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"3x3 c20 k18", 2, 1, 20, 18, 1, {10, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"3x3 stride 2 pad 1", 2, 2, 4, 6, 1, {9, 10}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
    {"3x3 dilation 2", 2, 1, 5, 3, 1, {11, 9}, {3, 3}, {2, 1}, {1, 1}, {2, 2}},
    {"5x3 uneven stride 3,1", 2, 2, 3, 4, 1, {12, 7}, {5, 3}, {2, 0}, {3, 1}, {1, 2}},
    {"pad >= filter", 2, 1, 2, 3, 1, {3, 4}, {2, 3}, {2, 3}, {1, 2}, {1, 1}},
    {"groups 3x3", 2, 2, 8, 12, 4, {6, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"depthwise x2", 2, 1, 4, 8, 4, {9, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"1-d", 1, 2, 5, 4, 1, {15}, {4}, {1}, {2}, {2}},
    {"3-d", 3, 2, 3, 4, 1, {5, 6, 4}, {3, 2, 3}, {1, 0, 1}, {1, 2, 1}, {1, 1, 1}},
    {"single output", 2, 1, 3, 2, 1, {3, 3}, {3, 3}, {0, 0}, {1, 1}, {1, 1}},
};
static const int nshapes = (int)(sizeof shapes / sizeof shapes[0]);

/* Enum families of the rows, per direction, and the row serving each. */
typedef enum { F_GEMM, F_WINO, F_DIRECT } family_t;

static int algo_of(co_dir_t dir, family_t f, int alt)
{
    switch (dir) {
    case CO_FWD:
        return f == F_GEMM   ? (alt ? CUDNN_CONVOLUTION_FWD_ALGO_GEMM
                                    : CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)
               : f == F_WINO ? (alt ? CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED
                                    : CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD)
                             : CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
    case CO_BWD_DATA:
        return f == F_WINO ? (alt ? CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED
                                  : CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD)
                           : CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    default:
        return alt ? CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3 : CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
    }
}

static int families(co_dir_t dir)
{
    return dir == CO_FWD ? 3 : dir == CO_BWD_DATA ? 2 : 1;
}

static int winograd_shape(const co_shape_t *s)
{
    return s->nsp == 2 && s->flt[0] == 3 && s->flt[1] == 3 && s->stride[0] == 1 &&
           s->stride[1] == 1 && s->dil[0] == 1 && s->dil[1] == 1;
}

/* The row that must run (mirrors src/impls.def and the FLOAT rows' conditions). */
static const char *expected_row(const cc_case_t *c, family_t f)
{
    static const char *const refs[3] = {"fd_conv_fwd_ref", "fd_conv_bwd_data_ref",
                                        "fd_conv_bwd_filter_ref"};
    if (f == F_WINO)
        return winograd_shape(&c->s) ? (c->dir == CO_FWD ? "fd_conv_fwd_winograd_lowp"
                                                         : "fd_conv_bwd_data_winograd_lowp")
                                     : refs[c->dir];
    if (f == F_DIRECT) /* the direct (groups 1) and depthwise (groups C) rows, 1-d / 2-d */
        return c->s.nsp <= 2 && (c->s.g == 1 || c->s.g == c->s.c) ? "fd_conv_fwd_direct_lowp"
                                                                  : refs[0];
    return c->dir == CO_FWD        ? "fd_conv_fwd_gemm_lowp"
           : c->dir == CO_BWD_DATA ? "fd_conv_bwd_data_algo1_lowp"
                                   : "fd_conv_bwd_filter_algo1_lowp";
}

static void run_both(cudnnHandle_t h, const cc_case_t *c, family_t f)
{
    const char *row = expected_row(c, f);
    int wino = f == F_WINO && strstr(row, "_lowp") != NULL;
    inner_impl[0] = '\0';
    kc_run_ex(h, c, CC_EXACT, wino ? WINO_TOL : 0.0, wino, row);
    if (strstr(row, "_lowp")) {
        char rep[512];
        cc_repro(c, rep, sizeof rep);
        FD_EXPECT(strstr(inner_impl, "_f32") != NULL, "%s named no FLOAT row (got '%s'); %s", row,
                  inner_impl, rep);
    }
    kc_run_ex(h, c, CC_REAL, wino ? WINO_TOL : 1.0, wino, row);
}

static cc_case_t case_of(const shape_t *sh, co_dir_t dir, cudnnDataType_t dt, uint64_t seed)
{
    cc_case_t c;
    memset(&c, 0, sizeof c);
    c.dir = dir, c.dt = dt, c.comp = CUDNN_DATA_FLOAT, c.seed = seed;
    c.s.nsp = sh->nsp, c.s.n = sh->n, c.s.c = sh->c, c.s.k = sh->k, c.s.g = sh->g;
    for (int i = 0; i < sh->nsp; i++) {
        c.s.in[i] = sh->in[i], c.s.flt[i] = sh->flt[i], c.s.pad[i] = sh->pad[i];
        c.s.stride[i] = sh->stride[i], c.s.dil[i] = sh->dil[i];
    }
    c.bstride = 1, c.alpha = 1.0, c.beta = 0.0;
    return c;
}

static void edge_shapes(cudnnHandle_t h)
{
    static const cc_layout_t lay[][2] = {{CC_NCHW, CC_NCHW},     {CC_NHWC, CC_NHWC},
                                         {CC_PADDED, CC_PADDED}, {CC_PERMUTED, CC_NCHW},
                                         {CC_NCHW, CC_PERMUTED}, {CC_NHWC, CC_PADDED}};
    static const double ab[4][2] = {{1.0, 0.0}, {0.5, 0.25}, {-2.0, 1.0}, {1.0, 0.0}};
    static const cudnnDataType_t dts[2] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    const int nlay = (int)(sizeof lay / sizeof lay[0]);
    int turn = 0;
    for (int si = 0; si < nshapes; si++)
        for (int dir = CO_FWD; dir <= CO_BWD_FILTER; dir++)
            for (int f = 0; f < families((co_dir_t)dir); f++)
                for (int t = 0; t < 2; t++)
                    for (int v = 0; v < nlay; v++) {
                        cc_case_t c = case_of(&shapes[si], (co_dir_t)dir, dts[t],
                                              fd_test_mix(0x10F7, (uint64_t)turn));
                        fd_rng_t r;
                        fd_rng_seed(&r, c.seed);
                        cc_set_layouts(&c, lay[v][0], lay[v][1], &r);
                        c.wnhwc = (turn / 3) % 2;
                        c.comp = turn % 4 == 3 ? dts[t] : CUDNN_DATA_FLOAT;
                        c.s.flip = (turn / 2) % 2;
                        c.misalign = turn % 5 == 0;
                        c.use4d = c.s.nsp == 2 && turn % 3 == 0;
                        c.alpha = ab[turn % 4][0], c.beta = ab[turn % 4][1];
                        c.algo = algo_of((co_dir_t)dir, (family_t)f, (turn / 7) % 2);
                        turn++;
                        run_both(h, &c, (family_t)f);
                    }
}

/* Enums whose contract allows no workspace, and enums no cpu FLOAT row serves: ref, exact. */
static void declined(cudnnHandle_t h)
{
    static const char *const refs[3] = {"fd_conv_fwd_ref", "fd_conv_bwd_data_ref",
                                        "fd_conv_bwd_filter_ref"};
    static const struct {
        co_dir_t dir;
        int algo;
        int shape;
    } cases[] = {
        {CO_FWD, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, 3},
        {CO_FWD, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, 0},
        {CO_FWD, CUDNN_CONVOLUTION_FWD_ALGO_FFT, 3},
        {CO_FWD, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, 5}, /* stride 2 */
        {CO_FWD, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, 12},  /* 3-d */
        {CO_FWD, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, 9},   /* groups neither 1 nor C */
        {CO_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, 3},
        {CO_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, 0},
        {CO_BWD_DATA, CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD, 6}, /* dilation 2 */
        {CO_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, 3},
        {CO_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, 0},
        {CO_BWD_FILTER, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int t = 0; t < 2; t++) {
            cc_case_t c = case_of(&shapes[cases[i].shape], cases[i].dir,
                                  t ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF,
                                  fd_test_mix(0xDEC1, i * 2 + (size_t)t));
            fd_rng_t r;
            fd_rng_seed(&r, c.seed);
            cc_set_layouts(&c, t ? CC_NHWC : CC_NCHW, t ? CC_NHWC : CC_NCHW, &r);
            c.algo = cases[i].algo;
            kc_run(h, &c, CC_EXACT, 0.0, refs[cases[i].dir]);
        }
}

/* The generator's shapes over HALF / BFLOAT16 (computeType FLOAT or the storage type). */
static void sweep(cudnnHandle_t h)
{
    const int ncases = cc_sweep_count(40);
    static const cudnnDataType_t dts[2] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    for (int dir = CO_FWD; dir <= CO_BWD_FILTER; dir++)
        for (int t = 0; t < 2; t++)
            for (int i = 0; i < ncases; i++) {
                uint64_t seed = cc_sweep_seed(0x10F75E, dir * 2 + t, i);
                cc_case_t c = cc_case_gen((co_dir_t)dir, dts[t], seed, 0);
                family_t f = (family_t)(seed % (uint64_t)families((co_dir_t)dir));
                c.algo = algo_of((co_dir_t)dir, f, (int)((seed >> 8) & 1));
                run_both(h, &c, f);
            }
}

static void checks(cudnnHandle_t h)
{
    FD_EXPECT_STATUS(cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, on_log), CUDNN_STATUS_SUCCESS);
    uint64_t forced;
    if (!fd_test_seed_forced(&forced)) {
        edge_shapes(h);
        declined(h);
    }
    sweep(h);
}

/* ---- determinism: one hash per problem, real data ------------------------------------------- */

static int hashes(void)
{
    static const shape_t det[] = {
        {"3x3 c32 k48", 2, 2, 32, 48, 1, {28, 28}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
        {"1x1 c64 k64", 2, 2, 64, 64, 1, {14, 14}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
        {"3x3 s2 groups", 2, 2, 32, 32, 2, {30, 30}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
    };
    static const cudnnDataType_t dts[2] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    cudnnHandle_t h = cc_handle(FREEDNN_BACKEND_CPU);
    int turn = 0;
    for (size_t si = 0; si < sizeof det / sizeof det[0]; si++)
        for (int dir = CO_FWD; dir <= CO_BWD_FILTER; dir++)
            for (int f = 0; f < families((co_dir_t)dir); f++) {
                const int t = turn % 2, lay = (turn / 2) % 2;
                cc_case_t c =
                    case_of(&det[si], (co_dir_t)dir, dts[t], fd_test_mix(0xD17, (uint64_t)turn));
                fd_rng_t r;
                fd_rng_seed(&r, c.seed);
                cc_set_layouts(&c, lay ? CC_NHWC : CC_NCHW, lay ? CC_NHWC : CC_NCHW, &r);
                c.wnhwc = lay;
                c.algo = algo_of((co_dir_t)dir, (family_t)f, 0);
                c.alpha = 0.5, c.beta = turn % 3 == 0 ? 0.25 : 0.0;
                turn++;
                printf("%016llx\n", (unsigned long long)kc_hash(h, &c));
            }
    cudnnDestroy(h);
    return 0;
}

int main(int argc, char **argv)
{
    return kc_isa_main(argc, argv, checks, hashes);
}
