/* SPDX-License-Identifier: MIT */
/*
 * test_cpu_conv.c - the cpu backend's GEMM convolutions (src/cpu/conv_1x1.c, conv_gemm.c)
 * against the independent oracle, through the public API on a cpu handle.
 *
 * - Edge shapes by hand (1x1 with and without groups, 1x1 stride 2, 3x3 pad 1, stride 2,
 *   dilation 2, uneven filters, pad >= filter, groups, depthwise, 1-d, 3-d), f32 and f64, all
 *   three directions, x/y in NCHW, NHWC, padded and permuted strides, NCHW and NHWC filters,
 *   both modes, alpha/beta (beta = 0 over NaN poison), every algorithm the rows serve: exact
 *   integer fills (tolerance 0) and real fills (docs/testing.md tolerance + relative RMS).
 *   cc_exec() gives the call exactly the workspace the library reports, in a guarded buffer,
 *   and checks output guards, holes and unchanged inputs.
 * - Dispatch: FREEDNN_LOG_DISPATCH=1 through cudnnSetCallback names the implementation of each
 *   call; the cpu rows must take what they serve, the 1x1 row every packed 1x1, half and
 *   bfloat16 go to src/cpu/conv_lowp_cpu.c's rows (tested in test_cpu_conv_lowp.c); the
 *   workspace must be the im2col formula.
 * - Shapes large enough for the rows' own OpenMP team (GEMM split, im2col by rows, col2im by
 *   channel and band of dx rows, BLAS single-threaded), same checks, with the process's threads.
 * - A random sweep (conv_case.h shapes) restricted to the served algorithms, exact and real.
 * - The implicit GEMMs (src/cpu/conv_implicit.c, FWD IMPLICIT_GEMM, BWD_DATA ALGO_0,
 *   BWD_FILTER ALGO_0): shapes for each of their paths against the oracle, and (forward,
 *   backward filter) bit for bit against the im2col row on the same SGEMM.
 * - Determinism: the same call twice gives the same bits, and the program re-runs itself with
 *   OMP_NUM_THREADS / OPENBLAS_NUM_THREADS = 1 and 2 on larger problems (three of them
 *   through the team path at 2 threads): identical bits.
 * FD_TEST_SEED=<seed> replays one sweep case; FD_TEST_SCALE=k runs k times more.
 */
#define _GNU_SOURCE /* popen, readlink, setenv, RTLD_DEFAULT */
#include <dlfcn.h>
#include <unistd.h>

#include "../ref/conv_case.h"

/* ---- which implementation ran ----------------------------------------------------------- */

static char last_impl[128];

static void on_log(cudnnSeverity_t sev, void *udata, const cudnnDebug_t *dbg, const char *msg)
{
    (void)sev, (void)udata, (void)dbg;
    const char *arrow = strstr(msg, "dispatch: ");
    const char *to = arrow ? strstr(arrow, " -> ") : NULL;
    if (to)
        snprintf(last_impl, sizeof last_impl, "%s", to + 4);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Algorithms the rows serve (mirrors src/impls.def). */
static int served_by_im2col(co_dir_t dir, int algo)
{
    switch (dir) {
    case CO_FWD:
        return algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM ||
               algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    case CO_BWD_DATA:
        return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    default:
        return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 ||
               algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3;
    }
}
static int served_by_1x1(co_dir_t dir, int algo)
{
    return served_by_im2col(dir, algo) ||
           (dir == CO_FWD && algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM) ||
           (dir == CO_BWD_DATA && algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0) ||
           (dir == CO_BWD_FILTER && algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0);
}
static const int served_algos[3][4] = {{0, 1, 2, -1}, {0, 1, -1, -1}, {0, 1, 3, -1}};

static int is_1x1(const co_shape_t *s)
{
    for (int i = 0; i < s->nsp; i++)
        if (s->flt[i] != 1 || s->stride[i] != 1 || s->pad[i] != 0)
            return 0;
    return 1;
}

static int packed(cc_layout_t l)
{
    return l == CC_NCHW || l == CC_NHWC;
}

/* src/cpu/conv_direct_bwd_cpu.c's conditions (f32 checked by the caller): groups 1, 1-d or
 * 2-d, stride 1, pad within the dilated filter, a filter above 1x1, and not a filter of 2^18
 * elements or more over fewer than 128 dx positions. */
static int direct_bwd_takes(const co_shape_t *s)
{
    int one = 1;
    int64_t fsize = (int64_t)s->k * s->c, positions = s->n;
    if (s->g != 1 || s->nsp > 2)
        return 0;
    for (int i = 0; i < s->nsp; i++) {
        if (s->stride[i] != 1 || s->pad[i] > (s->flt[i] - 1) * s->dil[i])
            return 0;
        one &= s->flt[i] == 1;
        fsize *= s->flt[i], positions *= s->in[i];
    }
    return !one && !(fsize >= (1 << 18) && positions < 128);
}

/* src/cpu/conv_bwd_split_cpu.c's conditions (f32 checked by the caller): groups 1, 1-d or
 * 2-d, a stride above 1, dilation 1 along strided dims, C >= 16, and not a filter of 2^18
 * elements or more over a residue class of fewer than 128 dx positions (judged by the largest
 * class: exact for the small filters drawn here), nor 1x1. */
static int split_bwd_takes(const co_shape_t *s)
{
    int strided = 0;
    int64_t fsize = (int64_t)s->k * s->c, positions = s->n;
    if (s->g != 1 || s->nsp > 2 || s->c < 16)
        return 0;
    for (int i = 0; i < s->nsp; i++) {
        if (s->stride[i] > 1 && s->dil[i] != 1)
            return 0;
        strided |= s->stride[i] > 1;
        fsize *= s->flt[i];
        positions *= (s->in[i] + s->stride[i] - 1) / s->stride[i];
    }
    const int one = fsize == (int64_t)s->k * s->c;
    return strided && !one && !(fsize >= (1 << 18) && positions < 128);
}

/* 1 when FREEDNN_CPU_GEMM=blas sends FLOAT GEMMs to CBLAS (impl/test_cpu_conv_blas). */
static int gemm_blas(void)
{
    const char *gemm = getenv("FREEDNN_CPU_GEMM");
    return gemm != NULL && strcmp(gemm, "blas") == 0;
}

/* The implementation the case must get on a cpu handle ("" when the test cannot tell). */
static const char *expected_impl(const cc_case_t *c)
{
    static const char *const dir_names[3] = {"fwd", "bwd_data", "bwd_filter"};
    static char buf[64];
    const char *kind;
    if (c->dt == CUDNN_DATA_HALF || c->dt == CUDNN_DATA_BFLOAT16) {
        /* src/cpu/conv_lowp_cpu.c: FLOAT copies through the FLOAT rows of the same enum */
        static const char *const lowp[3] = {"fd_conv_fwd_gemm_lowp", "fd_conv_bwd_data_algo1_lowp",
                                            "fd_conv_bwd_filter_algo1_lowp"};
        if (served_by_im2col(c->dir, c->algo))
            return lowp[c->dir];
        kind = "ref";
    } else if (c->dt != CUDNN_DATA_FLOAT && c->dt != CUDNN_DATA_DOUBLE)
        kind = "ref";
    else if (c->dir == CO_BWD_FILTER && c->dt == CUDNN_DATA_FLOAT && c->comp == CUDNN_DATA_FLOAT &&
             c->algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3 && is_1x1(&c->s) && c->s.g == 1 &&
             packed(c->xl) && packed(c->yl))
        kind = "direct"; /* src/cpu/conv_direct_bwd_cpu.c: ALGO_3 before the 1x1 row */
    else if (is_1x1(&c->s) && served_by_1x1(c->dir, c->algo) && packed(c->xl) && packed(c->yl))
        kind = "1x1";
    else if (c->dir == CO_FWD && c->dt == CUDNN_DATA_FLOAT && c->comp == CUDNN_DATA_FLOAT &&
             c->s.g == c->s.c && c->s.nsp <= 2 && !is_1x1(&c->s) &&
             (c->algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
              c->algo == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT))
        kind = "depthwise"; /* src/cpu/conv_depthwise.c */
    else if (c->dir == CO_FWD && c->dt == CUDNN_DATA_FLOAT && c->comp == CUDNN_DATA_FLOAT &&
             c->algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM) {
        /* src/cpu/conv_implicit.c: y a row- or column-major K/G x PQ matrix (NCHW, NHWC;
         * padded or permuted y may or may not be one) */
        if (c->yl == CC_PADDED || c->yl == CC_PERMUTED || is_1x1(&c->s))
            return ""; /* and a 1x1 the 1x1 row may take (x a BLAS view) or not */
        kind = "implicit";
    } else if (c->dir == CO_BWD_FILTER && c->dt == CUDNN_DATA_FLOAT &&
               c->comp == CUDNN_DATA_FLOAT && c->algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0) {
        /* src/cpu/conv_implicit.c's backward filter */
        if (c->yl == CC_PADDED || c->yl == CC_PERMUTED || is_1x1(&c->s))
            return "";
        kind = "implicit";
    } else if (c->dir == CO_BWD_DATA && c->dt == CUDNN_DATA_FLOAT && c->comp == CUDNN_DATA_FLOAT &&
               c->algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0) {
        /* src/cpu/conv_implicit.c's backward data: dx a C/G x HW matrix (padded or permuted dx
         * may or may not be one) */
        if (!packed(c->xl) || is_1x1(&c->s))
            return "";
        kind = "implicit";
    } else if (c->dir == CO_BWD_DATA && c->dt == CUDNN_DATA_FLOAT && c->comp == CUDNN_DATA_FLOAT &&
               c->algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1 && direct_bwd_takes(&c->s))
        kind = "direct"; /* src/cpu/conv_direct_bwd_cpu.c, before the im2col row */
    else if (c->dir == CO_BWD_DATA && c->dt == CUDNN_DATA_FLOAT && c->comp == CUDNN_DATA_FLOAT &&
             c->algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1 && split_bwd_takes(&c->s))
        kind = "split"; /* src/cpu/conv_bwd_split_cpu.c, before the im2col row */
    else if (served_by_im2col(c->dir, c->algo))
        kind = is_1x1(&c->s) ? "" : "gemm"; /* a strided 1x1 may go to either row */
    else if (!is_1x1(&c->s))
        kind = "ref";
    else
        kind = "";
    if (!*kind)
        return "";
    if (strcmp(kind, "ref") == 0)
        snprintf(buf, sizeof buf, "fd_conv_%s_ref", dir_names[c->dir]);
    else
        snprintf(buf, sizeof buf, "fd_conv_%s_%s_%s", dir_names[c->dir], kind,
                 c->dt == CUDNN_DATA_DOUBLE ? "f64" : "f32");
    return buf;
}

/* The im2col workspace for a packed y: (C/G) T R S x P Q elements. */
static size_t im2col_bytes(const cc_case_t *c)
{
    int64_t rows = c->s.c / c->s.g, l = 1;
    for (int i = 0; i < c->s.nsp; i++)
        rows *= c->s.flt[i], l *= co_out(&c->s, i);
    return (size_t)(rows * l) * fd_test_dtype_size(c->dt);
}

/* ---- one case: exact and real, with the dispatch checks ---------------------------------- */

static double rel_rms(const cc_result_t *res, const double *want)
{
    double sum = 0.0, big = 0.0;
    for (int64_t i = 0; i < res->nout; i++) {
        double d = res->got[i] - want[i];
        sum += d * d;
        if (fabs(want[i]) > big)
            big = fabs(want[i]);
    }
    return big > 0.0 ? sqrt(sum / (double)res->nout) / big : 0.0;
}

static int runs, dispatch_checked;

static void run_case(cudnnHandle_t h, const cc_case_t *c, cc_mode_t mode)
{
    cc_data_t d = cc_data_new(c);
    double *want = malloc(sizeof(double) * (size_t)d.nout + 1);
    co_acc_t acc = cc_data_fill(c, &d, mode, want);
    last_impl[0] = '\0';
    cc_result_t res = cc_exec(h, c, &d, c->algo);
    runs++;
    const char *what = mode == CC_EXACT ? "cpu exact" : "cpu real";
    char rep[512];
    cc_repro(c, rep, sizeof rep);
    if (cc_check_run(c, &res, what) == 0) {
        cc_compare(c, &res, want, &acc, mode, what);
        if (mode == CC_REAL) {
            double lim = c->dt == CUDNN_DATA_DOUBLE ? 1e-13 : 1.5e-6;
            double r = rel_rms(&res, want);
            FD_EXPECT(r <= lim, "%s: relative RMS error %.3g > %.3g; %s", what, r, lim, rep);
        }
        const char *want_impl = expected_impl(c);
        if (*want_impl) {
            dispatch_checked++;
            FD_EXPECT(strcmp(last_impl, want_impl) == 0, "dispatch: ran %s, expected %s; %s",
                      last_impl[0] ? last_impl : "(nothing logged)", want_impl, rep);
        }
        if (strstr(last_impl, "_1x1_") || strstr(last_impl, "_implicit_") ||
            ends_with(last_impl, "_ref"))
            FD_EXPECT(res.ws_size == 0, "%s asked for %zu bytes of workspace; %s", last_impl,
                      res.ws_size, rep);
        if (strstr(last_impl, "_gemm_") && !ends_with(last_impl, "_lowp") && packed(c->yl))
            FD_EXPECT(res.ws_size == im2col_bytes(c), "%s asked for %zu bytes, im2col is %zu; %s",
                      last_impl, res.ws_size, im2col_bytes(c), rep);
    }
    cc_result_free(&res);
    co_acc_free(&acc);
    free(want);
    cc_data_free(&d);
}

/* ---- hand-picked edge shapes ------------------------------------------------------------ */

typedef struct {
    const char *name;
    int nsp, n, c, k, g;
    int in[3], flt[3], pad[3], stride[3], dil[3];
} shape_t;

static const shape_t shapes[] = {
    {"1x1", 2, 2, 8, 6, 1, {5, 7}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
    {"1x1 n1", 2, 1, 5, 9, 1, {6, 4}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
    {"1x1 groups", 2, 3, 8, 12, 4, {4, 5}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
    {"1x1 stride 2", 2, 2, 6, 4, 1, {7, 8}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
    {"1x1 pad 1", 2, 1, 3, 5, 1, {4, 4}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
    {"3x3 pad 1", 2, 2, 7, 5, 1, {9, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"3x3 stride 2 pad 1", 2, 2, 4, 6, 1, {9, 10}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
    {"3x3 dilation 2", 2, 1, 5, 3, 1, {11, 9}, {3, 3}, {2, 1}, {1, 1}, {2, 2}},
    {"5x3 uneven stride 3,1", 2, 2, 3, 4, 1, {12, 7}, {5, 3}, {2, 0}, {3, 1}, {1, 2}},
    {"pad >= filter", 2, 1, 2, 3, 1, {3, 4}, {2, 3}, {2, 3}, {1, 2}, {1, 1}},
    {"stride > filter", 2, 2, 3, 2, 1, {10, 9}, {2, 2}, {0, 1}, {3, 4}, {1, 1}},
    {"groups 3x3", 2, 2, 8, 12, 4, {6, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"depthwise", 2, 2, 6, 6, 6, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"depthwise x2 stride 2", 2, 1, 4, 8, 4, {9, 8}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
    {"1-d", 1, 2, 5, 4, 1, {15}, {4}, {1}, {2}, {2}},
    {"1-d 1x1", 1, 3, 4, 6, 2, {9}, {1}, {0}, {1}, {1}},
    {"3-d", 3, 2, 3, 4, 1, {5, 6, 4}, {3, 2, 3}, {1, 0, 1}, {1, 2, 1}, {1, 1, 1}},
    {"3-d 1x1x1", 3, 2, 4, 3, 1, {3, 4, 5}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {"single output", 2, 1, 3, 2, 1, {3, 3}, {3, 3}, {0, 0}, {1, 1}, {1, 1}},
};
static const int nshapes = (int)(sizeof shapes / sizeof shapes[0]);

/* Shapes large enough for the rows' own team (conv_gemm.c: K/G * CRS * PQ >= 2^20 MACs per
 * image and group; conv_1x1.c: a GEMM of >= 2^19): with two or more threads they split the
 * GEMM, pack col by rows and add col2im's (channel, band of dx rows) items on OpenMP threads
 * around single-threaded BLAS calls. conv1-like C = 3 (bands), groups with dilation, a 1x1
 * stride 2 (im2col row), a plain 1x1, 3-d. */
static const shape_t team_shapes[] = {
    {"team 7x7 s2 c3", 2, 2, 3, 32, 1, {40, 40}, {7, 7}, {3, 3}, {2, 2}, {1, 1}},
    {"team 3x3 groups dil 2", 2, 2, 32, 48, 2, {22, 20}, {3, 3}, {2, 2}, {1, 1}, {2, 2}},
    {"team 1x1 stride 2", 2, 2, 64, 96, 1, {32, 32}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
    {"team 1x1", 2, 2, 64, 80, 1, {12, 12}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
    {"team 3-d", 3, 1, 8, 24, 1, {6, 10, 10}, {3, 3, 3}, {1, 1, 1}, {1, 2, 1}, {1, 1, 1}},
};

static cc_case_t case_of(const shape_t *sh, co_dir_t dir, cudnnDataType_t dt, uint64_t seed)
{
    cc_case_t c;
    memset(&c, 0, sizeof c);
    c.dir = dir, c.dt = dt, c.comp = dt, c.seed = seed;
    c.s.nsp = sh->nsp, c.s.n = sh->n, c.s.c = sh->c, c.s.k = sh->k, c.s.g = sh->g;
    for (int i = 0; i < sh->nsp; i++) {
        c.s.in[i] = sh->in[i], c.s.flt[i] = sh->flt[i], c.s.pad[i] = sh->pad[i];
        c.s.stride[i] = sh->stride[i], c.s.dil[i] = sh->dil[i];
    }
    c.bstride = 1; /* the bias descriptor every case builds */
    c.alpha = 1.0, c.beta = 0.0;
    return c;
}

static void edge_shapes(cudnnHandle_t h)
{
    static const cc_layout_t variants[][2] = {{CC_NCHW, CC_NCHW},     {CC_NHWC, CC_NHWC},
                                              {CC_PADDED, CC_PADDED}, {CC_PERMUTED, CC_NCHW},
                                              {CC_NHWC, CC_PADDED},   {CC_NCHW, CC_NHWC}};
    static const double ab[4][2] = {{1.0, 0.0}, {0.5, 0.25}, {-2.0, 1.0}, {1.0, 0.0}};
    const int nvar = (int)(sizeof variants / sizeof variants[0]);
    static const cudnnDataType_t dts[2] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE};
    int turn = 0;
    for (int si = 0; si < nshapes; si++)
        for (int dir = CO_FWD; dir <= CO_BWD_FILTER; dir++)
            for (int t = 0; t < 2; t++)
                for (int v = 0; v < nvar; v++)
                    for (int wf = 0; wf < 2; wf++) {
                        uint64_t seed = fd_test_mix(0xC9C0ull, (uint64_t)turn);
                        cc_case_t c = case_of(&shapes[si], (co_dir_t)dir, dts[t], seed);
                        fd_rng_t r;
                        fd_rng_seed(&r, seed);
                        cc_set_layouts(&c, variants[v][0], variants[v][1], &r);
                        c.wnhwc = wf;
                        c.s.flip = (turn / 2) % 2;
                        c.misalign = turn % 5 == 0;
                        c.use4d = c.s.nsp == 2 && turn % 3 == 0;
                        c.alpha = ab[turn % 4][0], c.beta = ab[turn % 4][1];
                        int na = 0;
                        while (served_algos[dir][na] >= 0)
                            na++;
                        c.algo = served_algos[dir][turn % na];
                        turn++;
                        run_case(h, &c, CC_EXACT);
                        run_case(h, &c, CC_REAL);
                    }
}

/* The team shapes through the GEMM rows (algorithm 1 of each direction: IMPLICIT_PRECOMP_GEMM,
 * BWD_DATA ALGO_1, BWD_FILTER ALGO_1), packed, NHWC and padded layouts (the staging paths),
 * both filter formats, alpha / beta; exact and real fills. Run with the process's threads
 * (two on the 2-core CI VM); the determinism check below runs them at 1 and 2 threads. */
static void team_cases(cudnnHandle_t h)
{
    static const cc_layout_t variants[][2] = {
        {CC_NCHW, CC_NCHW}, {CC_NHWC, CC_NHWC}, {CC_PADDED, CC_PADDED}, {CC_NCHW, CC_NHWC}};
    static const double ab[3][2] = {{1.0, 0.0}, {0.5, 0.25}, {-2.0, 1.0}};
    static const cudnnDataType_t dts[2] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE};
    int turn = 0;
    for (size_t si = 0; si < sizeof team_shapes / sizeof team_shapes[0]; si++)
        for (int dir = CO_FWD; dir <= CO_BWD_FILTER; dir++)
            for (int t = 0; t < 2; t++)
                for (int v = 0; v < 4; v++) {
                    uint64_t seed = fd_test_mix(0x7EA3ull, (uint64_t)turn);
                    cc_case_t c = case_of(&team_shapes[si], (co_dir_t)dir, dts[t], seed);
                    fd_rng_t r;
                    fd_rng_seed(&r, seed);
                    cc_set_layouts(&c, variants[v][0], variants[v][1], &r);
                    c.wnhwc = turn % 2;
                    c.s.flip = (turn / 2) % 2;
                    c.alpha = ab[turn % 3][0], c.beta = ab[turn % 3][1];
                    c.algo = served_algos[dir][1];
                    turn++;
                    run_case(h, &c, turn % 2 ? CC_EXACT : CC_REAL);
                }
}

/* ---- the implicit GEMM (src/cpu/conv_implicit.c) ------------------------------------------ */

/* Shapes for each of its paths: two K blocks of the SGEMM (CRS > 256), several M blocks (K > 96)
 * with panels kept (PQ <= 128) and not, stride 2 (the even-lane copy), stride 3 with dilation
 * (the gather), groups, 1-d and 3-d, a strided 1x1, one large enough for the team, and one of
 * several 64-position chunks on the CBLAS path. */
static const shape_t implicit_shapes[] = {
    {"ig two K blocks", 2, 1, 40, 20, 1, {10, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"ig M blocks", 2, 1, 8, 130, 1, {12, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"ig M blocks kept", 2, 2, 30, 200, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"ig stride 2", 2, 1, 5, 12, 1, {17, 19}, {5, 5}, {2, 2}, {2, 2}, {1, 1}},
    {"ig stride 3 dil 2", 2, 1, 4, 6, 1, {20, 20}, {3, 3}, {2, 2}, {3, 3}, {2, 2}},
    {"ig groups", 2, 2, 12, 18, 3, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"ig 1-d", 1, 2, 6, 5, 1, {40}, {5}, {2}, {1}, {1}},
    {"ig 3-d", 3, 1, 3, 5, 1, {5, 6, 7}, {3, 3, 3}, {1, 1, 1}, {1, 2, 1}, {1, 1, 1}},
    {"ig strided 1x1", 2, 1, 20, 24, 1, {14, 14}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
    {"ig team", 2, 2, 16, 64, 1, {24, 24}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    /* pieces of 200 positions: several chunks of the CBLAS path (FREEDNN_CPU_GEMM=blas) */
    {"ig wide plane", 2, 1, 3, 8, 1, {20, 20}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    /* backward data: two M blocks (C > 96) and two K blocks (K > 256) of each tap's GEMM, its
     * panels kept; a pad past the dilated filter; a stride that differs per dim */
    {"ig C and K blocks", 2, 1, 130, 300, 1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"ig wide pad", 2, 1, 5, 7, 1, {9, 8}, {3, 2}, {3, 2}, {1, 1}, {1, 1}},
    {"ig stride 1 x 3", 2, 2, 6, 9, 1, {11, 13}, {2, 4}, {1, 2}, {1, 3}, {1, 1}},
};

/* FWD IMPLICIT_GEMM, BWD_DATA ALGO_0 and BWD_FILTER ALGO_0 against the oracle (exact and real,
 * x NCHW / NHWC / padded, y NCHW or NHWC, both filter formats, alpha / beta; for backward data
 * dx NCHW or NHWC and dy any of the three), and bit for bit against the im2col row
 * (IMPLICIT_PRECOMP_GEMM, ALGO_1) where that row runs the same AVX-512 SGEMM: the same products
 * summed in the same order (not backward data: its sums run tap by tap). */
static void implicit_cases(cudnnHandle_t h)
{
    static const cc_layout_t xls[2][3] = {{CC_NCHW, CC_NHWC, CC_PADDED},
                                          {CC_NCHW, CC_NHWC, CC_NHWC}};
    static const cc_layout_t yls[2][3] = {{CC_NCHW, CC_NHWC, CC_NCHW},
                                          {CC_NHWC, CC_NCHW, CC_PADDED}};
    static const double ab[3][2] = {{1.0, 0.0}, {0.5, 0.25}, {-2.0, 1.0}};
    const int same_gemm = fd_test_cpu_avx512() && !gemm_blas();
    int turn = 0, compared = 0;
    static const int algo0[3] = {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                                 CUDNN_CONVOLUTION_BWD_DATA_ALGO_0,
                                 CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0};
    static const int algo1[3] = {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, -1,
                                 CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1};
    for (int dir = CO_FWD; dir <= CO_BWD_FILTER; dir++)
        for (size_t si = 0; si < sizeof implicit_shapes / sizeof implicit_shapes[0]; si++)
            for (int v = 0; v < 3; v++, turn++) {
                uint64_t seed = fd_test_mix(0x16E3ull, (uint64_t)turn);
                const int bd = dir == CO_BWD_DATA;
                cc_case_t c = case_of(&implicit_shapes[si], (co_dir_t)dir, CUDNN_DATA_FLOAT, seed);
                fd_rng_t r;
                fd_rng_seed(&r, seed);
                cc_set_layouts(&c, xls[bd][v], turn % 2 || bd ? yls[bd][v] : CC_NCHW, &r);
                c.wnhwc = turn % 2;
                c.s.flip = (turn / 2) % 2;
                c.algo = algo0[dir];
                run_case(h, &c, CC_EXACT);
                c.alpha = ab[turn % 3][0], c.beta = ab[turn % 3][1];
                run_case(h, &c, CC_REAL);
                if (!same_gemm || algo1[dir] < 0)
                    continue;
                c.alpha = 1.0, c.beta = 0.0;
                cc_data_t d = cc_data_new(&c);
                fd_rng_t rd;
                fd_rng_seed(&rd, seed);
                cc_fill(&rd, c.dt, d.a, d.na, CC_REAL, 1, 1.0, 1);
                cc_fill(&rd, c.dt, d.b, d.nb, CC_REAL, 1, 1.0, 1);
                cc_result_t ri = cc_exec(h, &c, &d, algo0[dir]);
                cc_result_t rp = cc_exec(h, &c, &d, algo1[dir]);
                char rep[512];
                cc_repro(&c, rep, sizeof rep);
                FD_EXPECT(ri.status == CUDNN_STATUS_SUCCESS && rp.status == CUDNN_STATUS_SUCCESS &&
                              ri.raw && rp.raw &&
                              memcmp(ri.raw, rp.raw, (size_t)ri.nout * sizeof(float)) == 0,
                          "%s: algorithms %d and %d differ in bits; %s", implicit_shapes[si].name,
                          algo0[dir], algo1[dir], rep);
                compared++;
                cc_result_free(&ri);
                cc_result_free(&rp);
                cc_data_free(&d);
            }
    printf("implicit GEMM: %d cases, %d compared bit for bit with the im2col row\n", turn,
           compared);
}

/* ---- random sweep ------------------------------------------------------------------------ */

static void sweep(cudnnHandle_t h)
{
    const int ncases = cc_sweep_count(120);
    static const cudnnDataType_t dts[2] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE};
    for (int dir = CO_FWD; dir <= CO_BWD_FILTER; dir++)
        for (int t = 0; t < 2; t++)
            for (int i = 0; i < ncases; i++) {
                uint64_t seed = cc_sweep_seed(0xC9C5EEull, dir * 16 + t, i);
                cc_case_t c = cc_case_gen((co_dir_t)dir, dts[t], seed, 0);
                int na = 0;
                while (served_algos[dir][na] >= 0)
                    na++;
                c.algo = served_algos[dir][seed % (uint64_t)na];
                run_case(h, &c, i % 2 ? CC_REAL : CC_EXACT);
            }
}

/* Half and bfloat16 take the lowp rows (src/cpu/conv_lowp_cpu.c) for these enums, and stay exact. */
static void half_through_float(cudnnHandle_t h)
{
    static const cudnnDataType_t dts[2] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    for (int dir = CO_FWD; dir <= CO_BWD_FILTER; dir++)
        for (int t = 0; t < 2; t++) {
            cc_case_t c =
                case_of(&shapes[5], (co_dir_t)dir, dts[t], fd_test_mix(0x4a1f, dir * 2 + t));
            fd_rng_t r;
            fd_rng_seed(&r, c.seed);
            cc_set_layouts(&c, CC_NCHW, CC_NCHW, &r);
            c.comp = CUDNN_DATA_FLOAT;
            c.algo = served_algos[dir][1];
            run_case(h, &c, CC_EXACT);
        }
}

/* ---- determinism across runs and thread counts -------------------------------------------- */

static const shape_t det_shapes[] = {
    {"3x3 c32 k48", 2, 2, 32, 48, 1, {28, 28}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {"1x1 c64 k64", 2, 2, 64, 64, 1, {28, 28}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
    {"3x3 s2 groups", 2, 2, 32, 32, 2, {30, 30}, {3, 3}, {1, 1}, {2, 2}, {1, 1}},
    /* through the rows' own team at 2 threads (team_shapes) */
    {"team 7x7 s2 c3", 2, 2, 3, 32, 1, {40, 40}, {7, 7}, {3, 3}, {2, 2}, {1, 1}},
    {"team 1x1 stride 2", 2, 2, 64, 96, 1, {32, 32}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
    {"team 3x3 groups", 2, 2, 32, 48, 2, {22, 20}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
};

/* One FNV-1a hash per (data type, shape, layout, direction) of the output bytes, real data;
 * the f32 ones first (those rows claim determinism), then f64 (informational). */
#define DET_MAX 128
static int det_hashes(cudnnHandle_t h, uint64_t *out, int *n_f32)
{
    static const cudnnDataType_t dts[2] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE};
    int n = 0;
    for (int t = 0; t < 2; t++) {
        for (size_t si = 0; si < sizeof det_shapes / sizeof det_shapes[0]; si++)
            for (int lay = 0; lay < 2; lay++)
                for (int dir = CO_FWD; dir <= CO_BWD_FILTER && n < DET_MAX; dir++) {
                    cc_case_t c =
                        case_of(&det_shapes[si], (co_dir_t)dir, dts[t],
                                fd_test_mix(0xDE7, si * 8 + (size_t)lay * 4 + (size_t)dir));
                    fd_rng_t r;
                    fd_rng_seed(&r, c.seed);
                    cc_set_layouts(&c, lay ? CC_NHWC : CC_NCHW, lay ? CC_NHWC : CC_NCHW, &r);
                    c.wnhwc = lay;
                    c.algo = served_algos[dir][1];
                    if (dir == CO_FWD && lay == 0 && si % 2 == 1) /* the implicit GEMMs too */
                        c.algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
                    if (dir == CO_BWD_DATA && lay == 1 && si % 2 == 0)
                        c.algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_0;
                    cc_data_t d = cc_data_new(&c);
                    fd_rng_t rd;
                    fd_rng_seed(&rd, c.seed);
                    cc_fill(&rd, c.dt, d.a, d.na, CC_REAL, 1, 1.0, 1);
                    cc_fill(&rd, c.dt, d.b, d.nb, CC_REAL, 1, 1.0, 1);
                    cc_result_t res = cc_exec(h, &c, &d, c.algo);
                    uint64_t hv = 1469598103934665603ull;
                    size_t bytes = (size_t)res.nout * fd_test_dtype_size(c.dt);
                    for (size_t i = 0; res.raw && i < bytes; i++)
                        hv = (hv ^ res.raw[i]) * 1099511628211ull;
                    out[n++] = res.status == CUDNN_STATUS_SUCCESS ? hv : 0;
                    cc_result_free(&res);
                    cc_data_free(&d);
                }
        if (t == 0)
            *n_f32 = n;
    }
    return n;
}

static int thread_count(const char *sym)
{
    int (*fn)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, sym);
    return fn ? fn() : -1;
}

/* Child: print the thread counts the libraries use, then one hash per line. */
static int child_main(void)
{
    cudnnHandle_t h = cc_handle(FREEDNN_BACKEND_CPU);
    uint64_t hv[DET_MAX];
    int n_f32 = 0, n = det_hashes(h, hv, &n_f32);
    printf("threads openblas=%d omp=%d\n", thread_count("openblas_get_num_threads"),
           thread_count("omp_get_max_threads"));
    for (int i = 0; i < n; i++)
        printf("%016llx\n", (unsigned long long)hv[i]);
    cudnnDestroy(h);
    return 0;
}

/* Hash i of a child's output (line i + 1), 0 when missing. */
static uint64_t child_hash(const char *out, int i)
{
    const char *p = out;
    for (int line = 0; line <= i && p; line++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    unsigned long long v = 0;
    return p && sscanf(p, "%llx", &v) == 1 ? (uint64_t)v : 0;
}

/* Runs this program as a child with `threads` threads; returns its output (malloc'd). */
static char *run_child(const char *self, int threads)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "OMP_NUM_THREADS=%d OPENBLAS_NUM_THREADS=%d '%s' --hashes", threads,
             threads, self);
    FILE *f = popen(cmd, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - 1 - len, f)) > 0)
        len += got;
    int st = pclose(f);
    if (buf)
        buf[len] = '\0';
    if (st != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void determinism(cudnnHandle_t h)
{
    uint64_t a[DET_MAX], b[DET_MAX];
    int n_f32 = 0, na = det_hashes(h, a, &n_f32), nb = det_hashes(h, b, &n_f32);
    FD_EXPECT(na == nb && na > 0 && memcmp(a, b, sizeof(uint64_t) * (size_t)na) == 0,
              "determinism: a re-run in the same process gave different bits");
    for (int i = 0; i < na; i++)
        FD_EXPECT(a[i] != 0, "determinism: problem %d failed", i);

    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        printf("determinism across thread counts: skipped (no /proc/self/exe)\n");
        return;
    }
    self[len] = '\0';
    char *one = run_child(self, 1), *two = run_child(self, 2);
    FD_EXPECT(one && two, "determinism: the child runs failed");
    if (one && two) {
        int same_f32 = 0, same_f64 = 0;
        for (int i = 0; i < na; i++) {
            uint64_t h1 = child_hash(one, i), h2 = child_hash(two, i);
            int same = h1 != 0 && h1 == h2;
            if (i < n_f32) {
                same_f32 += same;
                FD_EXPECT(same,
                          "determinism: f32 problem %d gave different bits with 1 and 2 "
                          "threads (%016llx, %016llx)",
                          i, (unsigned long long)h1, (unsigned long long)h2);
            } else {
                same_f64 += same;
            }
        }
        char l1[128] = "", l2[128] = "";
        sscanf(one, "%127[^\n]", l1);
        sscanf(two, "%127[^\n]", l2);
        printf("determinism [%s] vs [%s]: f32 %d of %d identical (claimed); f64 %d of %d "
               "identical (not claimed)\n",
               l1, l2, same_f32, n_f32, same_f64, na - n_f32);
    }
    free(one), free(two);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--hashes") == 0)
        return child_main();
    setenv("FREEDNN_LOG_DISPATCH", "1", 1);
    FD_EXPECT_STATUS(cudnnSetCallback(CUDNN_SEV_INFO_EN, NULL, on_log), CUDNN_STATUS_SUCCESS);
    cudnnHandle_t h = cc_handle(FREEDNN_BACKEND_CPU);
    uint64_t forced;
    if (!fd_test_seed_forced(&forced)) {
        edge_shapes(h);
        team_cases(h);
        implicit_cases(h);
        half_through_float(h);
    }
    sweep(h);
    printf("%d runs, %d with the implementation checked\n", runs, dispatch_checked);
    FD_EXPECT(fd_test_seed_forced(&forced) || dispatch_checked > runs / 2,
              "only %d of %d runs had their implementation checked", dispatch_checked, runs);
    if (!fd_test_seed_forced(&forced)) {
        cudnnSetCallback(0, NULL, NULL);
        unsetenv("FREEDNN_LOG_DISPATCH");
        determinism(h);
    }
    cudnnDestroy(h);
    return fd_test_finish();
}
