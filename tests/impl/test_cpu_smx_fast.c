/* SPDX-License-Identifier: MIT */
/*
 * test_cpu_smx_fast.c - the f32 paths of the cpu softmax rows (src/cpu/softmax_cpu.c: vectorised
 * exp from src/cpu/vmath.h, lane-parallel sums) and of the reduce row (src/cpu/reduce_cpu.c:
 * lane-parallel folds; its bounds are at test_reduce), against the ref rows through the public
 * API. (The LRN rows compute FLOAT in float since 2026-11-30: tests/impl/test_cpu_lrn_fast.c holds
 * them to their bound.)
 *
 * Each case runs ref, then cpu with one thread on each forced ISA level
 * (FREEDNN_CPU_ISA=avx512, avx2, generic) and cpu with two threads. The AVX-512, AVX2 and
 * two-thread runs must agree bit for bit (NaN payloads aside); the generic run (no vector FMA:
 * the row takes its ref-exact path) must equal the ref bit for bit; against ref:
 * - exact cases must be bit-identical: forward of constant rows (exp(0) = 1, the sum is the row
 *   length, 1/n rounds as in the ref), backward ACCURATE/FAST on small-integer fills (the
 *   products and sums are exact in double in any order);
 * - real fills ([-4, 4), a few NaN / inf in some cases) within, per element, with u = 2^-24
 *   and |want| standing for |alpha v| + |beta y_old| (v the unblended value: the blend's
 *   cancellation is not the row's error):
 *   forward ACCURATE/FAST  |got - want| <= 6u |want| + 2^-148        (exp within 1 ulp, one
 *                          product by 1/sum, the sum's own error; measured worst 3.7u)
 *   forward LOG            |got - want| <= 4u (|want| + 1)           (log of a sum within a few
 *                          ulp of float moves the output by that much absolutely)
 *   backward ACCURATE/FAST |got - want| <= 2u |want| + 2^-40 |y| S + 2^-148, S = sum |dy y| of
 *                          the row (the row's sum is reordered in double: a last-bit change of
 *                          the sum can flip the final rounding, or move a cancelling dy - sum)
 *   backward LOG           |got - want| <= 4u (|want| + exp(y) |sum dy|) + 2^-148 (exp(y) is
 *                          the vectorised exp)
 *   The worst error seen, in units of the bound, is printed per family.
 * Shapes: NCHW, NHWC and W-padded layouts, INSTANCE and CHANNEL, 4-d and 5-d, rows longer than
 * the exp cache (16384) and channel counts above the lane cache (1024), above the threading
 * threshold, in-place, alpha / beta (1, 0), (0.5, 0.25), (-2, 0.25), (1, 1), inputs unchanged;
 * outputs of 16 MiB and more (the forward's streamed stores) on the lane, row and long-row
 * shapes.
 * The row terms of the backward bounds scale with |alpha|.
 * The AVX-512 forward kernels (2026-11-30, seventh session: intrinsics, 64-position
 * sub-blocks, register rows up to 128 elements and rows in pairs, lanes framed from a 64-byte
 * line for streamed stores) are held to the same bounds and to bit equality with the AVX2 run;
 * their edges have cases of their own: one channel, 65 and 47 positions (a partial last
 * vector, a partial sub-block), rows of 1, 17, 128 and 129 elements, each with NaN / inf
 * fills, alpha -2 / beta 0.25 and in place; 16 MiB outputs also for LOG (alpha 1 and -2;
 * malloc's 16-byte alignment exercises the unaligned frames; one run with
 * 64-byte aligned outputs, the only one where short rows are streamed). Measured worst on these
 * (2026-11-30): backward ACCURATE 0.95 of its bound (the backward is the sixth session's C on
 * every ISA: a property of its reordered double sum).
 * Since the pair sums and float LOG outputs (2026-12-01, eighth session) the worst seen is
 * forward ACCURATE 0.66 of its bound (3.98u), LOG 0.47 (1.9u (|y| + 1)).
 * The forward's exp with the row's max folded in (smx_ep, 2026-12-01, eighth session) is taken
 * per row / lane: fill 3 shifts rows by 0, 100, 150, -100, -250 (both sides of its range) and
 * makes every fifth position constant across channels (NCHW CHANNEL vectors mixing both
 * exps); worst seen forward ACCURATE 0.66, LOG 0.62 of the bounds.
 * The sixteen-row batches of register rows (2026-12-01) have cases for every vector count
 * (rows of 16 to 128 elements, full and partial last vectors), 35 rows and 42 NHWC positions,
 * in place too; held to the same bounds and to bit equality with the AVX2 run.
 * The AVX2 forward kernels (2026-12-04: smx_y_ in softmax_cpu.c) must give the bits of the C
 * they restate: every case also runs FREEDNN_CPU_ISA=avx2 with FREEDNN_CPU_SMX_AVX2_C=1 (the C
 * compiled for AVX2, one thread) and compares it with the avx2 run.
 */
#define _GNU_SOURCE
#include "memops_case.h"

static int align_out;
static double worst[4]; /* fwd acc, fwd log, bwd acc, bwd log: max error / bound */

static double u32 = 1.0 / 16777216.0;

/* The row id (for per-row sums) of canonical index i. */
static size_t row_of(const shape_t *s, size_t i, cudnnSoftmaxMode_t mode)
{
    size_t sp = 1;
    for (int d = 2; d < s->nb; d++)
        sp *= (size_t)s->dim[d];
    size_t n = i / ((size_t)s->dim[1] * sp);
    if (mode == CUDNN_SOFTMAX_MODE_INSTANCE)
        return n;
    return n * sp + i % sp;
}

#define NRUN MC_NRUN
#define run_set mc_run_set

static void test_case(int nb, const int *dim, layout_t l, cudnnSoftmaxAlgorithm_t algo,
                      cudnnSoftmaxMode_t mode, double alpha, double beta, int fillk, int inplace)
{
    /* fillk: 0 reals, 1 reals with specials, 2 constant rows (fwd exact) / integers (bwd),
     * 3 reals shifted per row by 0, 100, 150, -100 or -250, every fifth spatial position
     * constant across channels (the forward's exp choice per row / lane: softmax_cpu.c smx_ep;
     * NCHW CHANNEL gets vectors of lanes that mix both exps) */
    char what[256];
    shape_t xs = make_shape(nb, dim, l);
    cudnnTensorDescriptor_t xd = desc_of(&xs, CUDNN_DATA_FLOAT);
    size_t n = xs.extent, xb = n * 4, cnt = 1;
    for (int d = 0; d < nb; d++)
        cnt *= (size_t)dim[d];
    float *x = malloc(xb), *xc = malloc(xb), *dy = malloc(xb), *yv = malloc(xb), *init = malloc(xb);
    float *out[NRUN];
    if (fillk == 2) {
        float c = (float)(floor(urand() * 9) - 4);
        for (size_t i = 0; i < n; i++)
            x[i] = c;
        fill(CUDNN_DATA_FLOAT, dy, n, 1, 0);
        fill(CUDNN_DATA_FLOAT, yv, n, 1, 0);
    } else {
        fill(CUDNN_DATA_FLOAT, x, n, 0, fillk == 1);
        fill(CUDNN_DATA_FLOAT, dy, n, 0, fillk == 1);
        if (fillk == 3) {
            static const float shift[5] = {0.0f, 100.0f, 150.0f, -100.0f, -250.0f};
            size_t sp = cnt / (size_t)dim[0] / (size_t)dim[1];
            for (size_t i = 0; i < cnt; i++) {
                size_t o = canon_off(&xs, i), r = row_of(&xs, i, mode);
                x[o] = i % sp % 5 == 0 ? 1.5f + shift[r % 5] : x[o] + shift[r % 5];
            }
        }
        fill(CUDNN_DATA_FLOAT, yv, n, 0, 0);
    }
    memcpy(xc, x, xb);
    float a32 = (float)alpha, b32 = (float)beta;
    snprintf(what, sizeof what, "softmax f32 %s %s %s %dd [%d %d %d ...] a %g b %g fill %d%s",
             algo == CUDNN_SOFTMAX_LOG    ? "log"
             : algo == CUDNN_SOFTMAX_FAST ? "fast"
                                          : "accurate",
             mode == CUDNN_SOFTMAX_MODE_CHANNEL ? "channel" : "instance", layout_name[l], nb,
             dim[0], dim[1], dim[2], alpha, beta, fillk, inplace ? " in-place" : "");
    for (int dir = 0; dir < 2; dir++) {
        if (beta != 0.0)
            fill(CUDNN_DATA_FLOAT, init, n, fillk == 2, 0);
        else
            memset(init, 0xff, xb);
        for (int r = 0; r < NRUN; r++) {
            /* align_out: outputs on a 64-byte line (streamed aligned short rows), else
             * malloc's (16 bytes for large blocks: unaligned frames and rows) */
            out[r] = align_out ? aligned_alloc(64, (xb + 63) / 64 * 64) : malloc(xb);
            memcpy(out[r], inplace ? (dir ? dy : x) : init, xb);
            cudnnHandle_t h = run_set(r) ? h_cpu : h_ref;
            if (dir == 0)
                CHECK(cudnnSoftmaxForward(h, algo, mode, &a32, xd, inplace ? out[r] : x, &b32, xd,
                                          out[r]));
            else
                CHECK(cudnnSoftmaxBackward(h, algo, mode, &a32, xd, yv, xd, inplace ? out[r] : dy,
                                           &b32, xd, out[r]));
        }
        unsetenv("FREEDNN_CPU_ISA");
        /* the AVX2 level's C (FREEDNN_CPU_SMX_AVX2_C=1): the smx_y_ kernels must give its bits */
        float *oc = align_out ? aligned_alloc(64, (xb + 63) / 64 * 64) : malloc(xb);
        memcpy(oc, inplace ? (dir ? dy : x) : init, xb);
        setenv("FREEDNN_CPU_ISA", "avx2", 1);
        setenv("FREEDNN_CPU_SMX_AVX2_C", "1", 1);
        set_threads(1);
        if (dir == 0)
            CHECK(cudnnSoftmaxForward(h_cpu, algo, mode, &a32, xd, inplace ? oc : x, &b32, xd, oc));
        else
            CHECK(cudnnSoftmaxBackward(h_cpu, algo, mode, &a32, xd, yv, xd, inplace ? oc : dy, &b32,
                                       xd, oc));
        unsetenv("FREEDNN_CPU_SMX_AVX2_C");
        unsetenv("FREEDNN_CPU_ISA");
        cases++;
        for (int r = 2; r < NRUN; r++)
            if (!same_bits(CUDNN_DATA_FLOAT, out[r == 3 ? 0 : 1], out[r], xb)) {
                failures++;
                fprintf(stderr, "FAIL %s %s: cpu run %d differs from %s\n", what,
                        dir ? "bwd" : "fwd", r, r == 3 ? "ref" : "cpu run 1");
                break;
            }
        if (!same_bits(CUDNN_DATA_FLOAT, out[2], oc, xb)) {
            failures++;
            fprintf(stderr, "FAIL %s %s: the AVX2 run differs from the AVX2 C run\n", what,
                    dir ? "bwd" : "fwd");
        }
        free(oc);
        const int exact = fillk == 2 && (dir == 0 || algo != CUDNN_SOFTMAX_LOG);
        const int is_log = algo == CUDNN_SOFTMAX_LOG;
        /* per-row sums for the backward bounds */
        size_t rows = cnt;
        double *rs = calloc(rows, sizeof *rs);
        if (dir == 1)
            for (size_t i = 0; i < cnt; i++) {
                size_t o = canon_off(&xs, i);
                const float *g = inplace ? dy : dy;
                rs[row_of(&xs, i, mode)] += is_log ? (double)g[o] : fabs((double)g[o] * yv[o]);
            }
        int bad = 0;
        for (size_t i = 0; i < cnt && !bad; i++) {
            size_t o = canon_off(&xs, i);
            double want = out[0][o], got = out[1][o];
            if (isnan(want) || isnan(got)) {
                bad = isnan(want) != isnan(got);
            } else if (exact || isinf(want) || isinf(got)) {
                bad = memcmp(&out[0][o], &out[1][o], 4) != 0;
            } else {
                /* the blend's scale: |alpha v| + |beta old|, v the unblended value */
                double old = beta != 0.0 ? (inplace ? (dir ? dy : xc)[o] : init[o]) : 0.0;
                double aw = fabs(want - beta * old) + fabs(beta * old), tol;
                int fam = dir * 2 + is_log;
                if (dir == 0)
                    tol = is_log ? 4 * u32 * (aw + 1) : 6 * u32 * aw + 0x1p-148;
                else if (!is_log)
                    tol = 2 * u32 * aw +
                          0x1p-40 * fabs(alpha) * fabs((double)yv[o]) * rs[row_of(&xs, i, mode)] +
                          0x1p-148;
                else
                    tol = 4 * u32 *
                              (aw +
                               fabs(alpha) * exp((double)yv[o]) * fabs(rs[row_of(&xs, i, mode)])) +
                          0x1p-148;
                double err = fabs(got - want);
                if (err / tol > worst[fam])
                    worst[fam] = err / tol;
                bad = err > tol;
            }
            if (bad)
                fprintf(stderr, "FAIL %s %s: element %zu: cpu %.9g ref %.9g\n", what,
                        dir ? "bwd" : "fwd", i, got, want);
        }
        if (bad)
            failures++;
        free(rs);
        for (int r = 0; r < NRUN; r++)
            free(out[r]);
    }
    if (memcmp(x, xc, xb) != 0) {
        failures++;
        fprintf(stderr, "FAIL %s: x changed\n", what);
    }
    free(x), free(xc), free(dy), free(yv), free(init);
    cudnnDestroyTensorDescriptor(xd);
}

/* ---- reduce (src/cpu/reduce_cpu.c, FLOAT) ------------------------------------------------- */

static double worst_red;

/* A in layout l, C packed; every cpu run (ISA levels, threads) bit-identical; against ref:
 * select operators exact (values and indices); sums on integer fills exact; otherwise
 * |got - want| <= 2u |want| + (K + 2) 2^-52 S, S the sum of |terms| (|a|, a^2) of the slice
 * (K terms accumulated in double in another order), scaled like the result (AVG: / K,
 * NORM2: the square root's halving is ignored: looser), and MUL / MUL_NO_ZEROS within
 * 2u |want| + (K + 2) 2^-52 |want| (products: relative errors add). */
static void test_reduce(int nb, const int *dim, const int *cdim, layout_t l,
                        cudnnReduceTensorOp_t op, cudnnNanPropagation_t nanopt, double alpha,
                        double beta, int fillk)
{
    char what[256];
    shape_t as = make_shape(nb, dim, l), cs = make_shape(nb, cdim, L_NCHW);
    cudnnTensorDescriptor_t ad = desc_of(&as, CUDNN_DATA_FLOAT),
                            cd = desc_of(&cs, CUDNN_DATA_FLOAT);
    const int select = op == CUDNN_REDUCE_TENSOR_MIN || op == CUDNN_REDUCE_TENSOR_MAX ||
                       op == CUDNN_REDUCE_TENSOR_AMAX;
    const int mul = op == CUDNN_REDUCE_TENSOR_MUL || op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS;
    cudnnReduceTensorDescriptor_t rd;
    CHECK(cudnnCreateReduceTensorDescriptor(&rd));
    CHECK(cudnnSetReduceTensorDescriptor(rd, op, CUDNN_DATA_FLOAT, nanopt,
                                         select ? CUDNN_REDUCE_TENSOR_FLATTENED_INDICES
                                                : CUDNN_REDUCE_TENSOR_NO_INDICES,
                                         CUDNN_32BIT_INDICES));
    size_t ib = 0, wb = 0, cn = 1, an = 1;
    for (int d = 0; d < nb; d++)
        cn *= (size_t)cdim[d], an *= (size_t)dim[d];
    CHECK(cudnnGetReductionIndicesSize(h_cpu, rd, ad, cd, &ib));
    CHECK(cudnnGetReductionWorkspaceSize(h_cpu, rd, ad, cd, &wb));
    float *a = malloc(as.extent * 4), *ac = malloc(as.extent * 4), *init = malloc(cn * 4);
    void *ws = malloc(wb + 1);
    fill(CUDNN_DATA_FLOAT, a, as.extent, fillk == 2, fillk == 1);
    if (op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS)
        for (size_t i = 0; i < as.extent; i += 3)
            a[i] = 0.0f;
    if (mul) /* keep products finite and normal: factors near 1 */
        for (size_t i = 0; i < as.extent; i++)
            if (a[i] == a[i] && a[i] != 0.0f && !isinf(a[i]))
                a[i] = fillk == 2 ? (a[i] > 0 ? 1.0f : -1.0f) : 1.0f + a[i] / 64.0f;
    memcpy(ac, a, as.extent * 4);
    if (beta != 0.0)
        fill(CUDNN_DATA_FLOAT, init, cn, fillk == 2, 0);
    else
        memset(init, 0xff, cn * 4);
    float a32 = (float)alpha, b32 = (float)beta;
    snprintf(what, sizeof what,
             "reduce f32 op %d nan %d %s %dd [%d %d %d] -> [%d %d %d] a %g b %g fill %d", (int)op,
             (int)nanopt, layout_name[l], nb, dim[0], dim[1], dim[2], cdim[0], cdim[1], cdim[2],
             alpha, beta, fillk);
    float *out[NRUN];
    void *idx[NRUN];
    for (int r = 0; r < NRUN; r++) {
        out[r] = malloc(cn * 4);
        memcpy(out[r], init, cn * 4);
        idx[r] = malloc(ib + 4);
        memset(idx[r], 0xcd, ib + 4);
        cudnnHandle_t h = run_set(r) ? h_cpu : h_ref;
        CHECK(cudnnReduceTensor(h, rd, ib ? idx[r] : NULL, ib, ws, wb, &a32, ad, a, &b32, cd,
                                out[r]));
    }
    unsetenv("FREEDNN_CPU_ISA");
    cases++;
    int bad = 0;
    for (int r = 1; r < NRUN && !bad; r++)
        if (!same_bits(CUDNN_DATA_FLOAT, out[r == 1 ? 0 : 1], out[r], cn * 4) && r > 1) {
            bad = 1;
            fprintf(stderr, "FAIL %s: cpu run %d differs from cpu run 1\n", what, r);
        }
    for (int r = 1; r < NRUN && !bad; r++)
        if (memcmp(idx[0], idx[r], ib + 4) != 0) {
            bad = 1;
            fprintf(stderr, "FAIL %s: indices of cpu run %d differ from ref\n", what, r);
        }
    /* S and K per output */
    double *S = calloc(cn, sizeof *S);
    size_t K = an / cn;
    for (size_t i = 0; i < an; i++) {
        size_t rem = i, ci = 0, cm = 1;
        int id[5];
        for (int d = nb - 1; d >= 0; d--)
            id[d] = (int)(rem % (size_t)dim[d]), rem /= (size_t)dim[d];
        for (int d = nb - 1; d >= 0; d--) {
            ci += (size_t)(cdim[d] == 1 ? 0 : id[d]) * cm;
            cm *= (size_t)cdim[d];
        }
        double v = a[canon_off(&as, i)];
        S[ci] += op == CUDNN_REDUCE_TENSOR_NORM2 ? v * v : fabs(v);
    }
    const int exact = select || (fillk == 2 && !mul);
    for (size_t o = 0; o < cn && !bad; o++) {
        double want = out[0][o], got = out[1][o];
        if (isnan(want) || isnan(got) || isinf(want) || isinf(got) || exact) {
            bad = memcmp(&out[0][o], &out[1][o], 4) != 0 && !(isnan(want) && isnan(got));
        } else {
            double old = beta != 0.0 ? init[o] : 0.0,
                   aw = fabs(want - beta * old) + fabs(beta * old);
            double s = op == CUDNN_REDUCE_TENSOR_AVG     ? S[o] / (double)K
                       : op == CUDNN_REDUCE_TENSOR_NORM2 ? sqrt(S[o])
                                                         : S[o];
            double tol =
                2 * u32 * aw + (double)(K + 2) * 0x1p-52 * fabs(alpha) * (mul ? aw : s) + 0x1p-148;
            double err = fabs(got - want);
            if (err / tol > worst_red)
                worst_red = err / tol;
            bad = err > tol;
        }
        if (bad)
            fprintf(stderr, "FAIL %s: output %zu: cpu %.9g ref %.9g\n", what, o, got, want);
    }
    if (bad)
        failures++;
    if (memcmp(a, ac, as.extent * 4) != 0) {
        failures++;
        fprintf(stderr, "FAIL %s: a changed\n", what);
    }
    for (int r = 0; r < NRUN; r++)
        free(out[r]), free(idx[r]);
    free(S), free(a), free(ac), free(init), free(ws);
    cudnnDestroyReduceTensorDescriptor(rd);
    cudnnDestroyTensorDescriptor(ad), cudnnDestroyTensorDescriptor(cd);
}

static void reduce_suite(void)
{
    /* per channel, over C, over everything, over H and W, over N and C; a W long enough for
     * the lane-parallel runs (>= 16) and one too short; a full reduction cut into pieces */
    const int s4[4] = {2, 5, 9, 37}, s4s[4] = {3, 6, 5, 7};
    const int outs[5][4] = {{1, 5, 1, 1}, {2, 1, 9, 37}, {1, 1, 1, 1}, {2, 5, 1, 1}, {1, 1, 9, 37}};
    const int outss[5][4] = {{1, 6, 1, 1}, {3, 1, 5, 7}, {1, 1, 1, 1}, {3, 6, 1, 1}, {1, 1, 5, 7}};
    for (int l = 0; l < L_COUNT; l++)
        for (int op = 0; op < 9; op++)
            for (int nan = 0; nan < 2; nan++) {
                int select = op >= 2 && op <= 4;
                if (nan == 1 && !select)
                    continue;
                for (int oi = 0; oi < 5; oi++)
                    for (int f = 0; f < 3; f++) {
                        test_reduce(4, s4, outs[oi], (layout_t)l, (cudnnReduceTensorOp_t)op,
                                    (cudnnNanPropagation_t)nan, oi & 1 ? 0.5 : 1, oi & 1 ? 0.25 : 0,
                                    f);
                        test_reduce(4, s4s, outss[oi], (layout_t)l, (cudnnReduceTensorOp_t)op,
                                    (cudnnNanPropagation_t)nan, 1, 0, f);
                    }
            }
    const int big[4] = {2, 64, 48, 47},
              bouts[4][4] = {{1, 64, 1, 1}, {2, 1, 48, 47}, {1, 1, 1, 1}, {2, 64, 1, 1}};
    for (int l = 0; l < 2; l++)
        for (int op = 0; op < 9; op++)
            for (int oi = 0; oi < 4; oi++)
                test_reduce(4, big, bouts[oi], (layout_t)l, (cudnnReduceTensorOp_t)op,
                            CUDNN_PROPAGATE_NAN, 1, 0, oi & 1 ? 1 : 0);
    /* over C on NHWC with real fills: the short rows (reduce_cpu.c rx_rows_unit and its
     * AVX-512 forms), C a multiple of 16 and not (tails of 5, 12 and 8 elements into partials
     * 0 .. C % 16 - 1), where a partial's order shows in the bits that every ISA must share */
    const int rows[4][4] = {{2, 37, 5, 7}, {1, 108, 4, 5}, {2, 64, 6, 5}, {3, 24, 5, 3}},
              routs[4][4] = {{2, 1, 5, 7}, {1, 1, 4, 5}, {2, 1, 6, 5}, {3, 1, 5, 3}};
    for (int si = 0; si < 4; si++)
        for (int op = 0; op < 9; op++)
            test_reduce(4, rows[si], routs[si], L_NHWC, (cudnnReduceTensorOp_t)op,
                        CUDNN_NOT_PROPAGATE_NAN, si & 1 ? 0.5 : 1, si & 1 ? 0.25 : 0, 0);
    /* per channel on NHWC with real fills: the lanes kind's pieces (reduce_cpu.c rx_lpieces:
     * 16 and 7 per slice, C 37 not a multiple of a vector), reordered in double */
    const int chan[2][4] = {{1, 32, 128, 130}, {2, 37, 60, 60}},
              couts[2][4] = {{1, 32, 1, 1}, {1, 37, 1, 1}};
    for (int si = 0; si < 2; si++)
        for (int op = 0; op < 9; op++)
            test_reduce(4, chan[si], couts[si], L_NHWC, (cudnnReduceTensorOp_t)op,
                        (cudnnNanPropagation_t)(op & 1), si ? 0.5 : 1, si ? 0.25 : 0, 0);
}

int main(void)
{
    set_threads = (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    if (set_threads == NULL) {
        fprintf(stderr, "omp_set_num_threads not found\n");
        return 1;
    }
    CHECK(freednnCreateWithBackend(&h_ref, FREEDNN_BACKEND_REF));
    CHECK(freednnCreateWithBackend(&h_cpu, FREEDNN_BACKEND_CPU));
    const int s4[4] = {2, 5, 9, 11}, s4w[4] = {1, 3, 6, 37}, s5[5] = {2, 3, 4, 5, 6},
              cls[4] = {7, 100, 1, 1}, odd[4] = {3, 17, 1, 1};
    const double ab[2][2] = {{1.0, 0.0}, {0.5, 0.25}};
    for (int l = 0; l < L_COUNT; l++)
        for (int algo = 0; algo < 3; algo++)
            for (int mode = 0; mode < 2; mode++) {
                cudnnSoftmaxAlgorithm_t al = (cudnnSoftmaxAlgorithm_t)algo;
                cudnnSoftmaxMode_t mo = (cudnnSoftmaxMode_t)mode;
                for (int k = 0; k < 2; k++)
                    for (int f = 0; f < 3; f++) {
                        test_case(4, s4, (layout_t)l, al, mo, ab[k][0], ab[k][1], f, 0);
                        test_case(4, s4w, (layout_t)l, al, mo, ab[k][0], ab[k][1], f, 0);
                        test_case(4, odd, (layout_t)l, al, mo, ab[k][0], ab[k][1], f, 0);
                    }
                test_case(5, s5, (layout_t)l, al, mo, 0.5, 0.25, 1, 0);
                test_case(4, s4w, (layout_t)l, al, mo, -2, 0.25, 0, 0);
                test_case(4, s4, (layout_t)l, al, mo, 1, 1, 0, 0);
                test_case(4, odd, (layout_t)l, al, mo, -2, 0.25, 2, 0);
                test_case(5, s5, (layout_t)l, al, mo, 1, 0, 2, 0);
                test_case(4, cls, (layout_t)l, al, mo, 1, 0, 0, 1);
                test_case(4, s4, (layout_t)l, al, mo, 0.5, 0.25, 0, 1);
                test_case(4, s4, (layout_t)l, al, mo, 1, 0, 3, 0);
                test_case(4, s4w, (layout_t)l, al, mo, 1, 0, 3, 0);
                test_case(4, s4w, (layout_t)l, al, mo, -2, 0.25, 3, 0);
            }
    /* long rows (chunked maximum and sum), many channels (no lane cache), threaded sizes */
    const int longi[4] = {2, 8, 48, 48}, longc[4] = {2, 20000, 1, 1}, manyc[4] = {1, 1100, 4, 5},
              big[4] = {4, 64, 32, 33}, bigi[4] = {8, 16, 48, 48};
    for (int l = 0; l < 2; l++)
        for (int algo = 0; algo < 3; algo++)
            for (int mode = 0; mode < 2; mode++) {
                cudnnSoftmaxAlgorithm_t al = (cudnnSoftmaxAlgorithm_t)algo;
                cudnnSoftmaxMode_t mo = (cudnnSoftmaxMode_t)mode;
                for (int f = 0; f < 3; f++) {
                    test_case(4, mode ? longc : longi, (layout_t)l, al, mo, 0.5, 0.25, f, 0);
                    test_case(4, manyc, (layout_t)l, al, mo, 1, 0, f, 0);
                    test_case(4, mode ? big : bigi, (layout_t)l, al, mo, 1, 0, f, 0);
                }
                test_case(4, mode ? longc : longi, (layout_t)l, al, mo, 1, 0, 3, 0);
                test_case(4, mode ? big : bigi, (layout_t)l, al, mo, 1, 0, 3, 0);
            }
    /* the AVX-512 kernels' edges (2026-11-30, seventh session): one channel, lane counts of a
     * partial last vector and a partial last 64-lane sub-block (65, 47), register rows of 1,
     * 17, 128 elements and the first longer one (129) */
    const int e1[4] = {2, 1, 5, 13}, e2[4] = {2, 7, 5, 13}, e3[4] = {3, 129, 1, 1},
              e4[4] = {5, 128, 1, 1}, e5[4] = {4, 17, 1, 1}, e6[4] = {1, 3, 1, 47};
    const int *edges[6] = {e1, e2, e3, e4, e5, e6};
    for (int l = 0; l < 2; l++)
        for (int algo = 0; algo < 3; algo++)
            for (int mode = 0; mode < 2; mode++)
                for (int e = 0; e < 6; e++)
                    for (int f = 0; f < 3; f++) {
                        cudnnSoftmaxAlgorithm_t al = (cudnnSoftmaxAlgorithm_t)algo;
                        cudnnSoftmaxMode_t mo = (cudnnSoftmaxMode_t)mode;
                        test_case(4, edges[e], (layout_t)l, al, mo, 1, 0, f, 0);
                        test_case(4, edges[e], (layout_t)l, al, mo, -2, 0.25, f, f == 1);
                    }
    /* the AVX-512 batches of sixteen register rows (2026-12-01: NHWC CHANNEL and short
     * INSTANCE rows, ACCURATE / FAST, alpha 1, beta 0): every vector count 1-8 with full and
     * partial last vectors, 35 rows (two batches, then a pair and a single row), NHWC with
     * spatial positions as rows; reals, NaN / inf, constant rows */
    const int r16len[8] = {16, 17, 33, 48, 64, 80, 100, 128};
    for (int k = 0; k < 8; k++)
        for (int f = 0; f < 3; f++) {
            const int r1[4] = {35, r16len[k], 1, 1}, r2[4] = {2, r16len[k], 3, 7};
            test_case(4, r1, L_NCHW, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 1, 0, f,
                      0);
            test_case(4, r2, L_NHWC, k & 1 ? CUDNN_SOFTMAX_FAST : CUDNN_SOFTMAX_ACCURATE,
                      CUDNN_SOFTMAX_MODE_CHANNEL, 1, 0, f, f == 1);
        }
    /* outputs of 16 MiB or more (beta 0, not in place): ACCURATE forward streams y
     * (non-temporal stores) on all three f32 shapes: lanes (CHANNEL, NCHW), cached rows
     * (CHANNEL, NHWC), long rows (INSTANCE); LOG (ordinary stores) at the same sizes */
    const int huge[4] = {2, 64, 180, 190};
    for (int l = 0; l < 2; l++)
        for (int mode = 0; mode < 2; mode++)
            for (int f = 0; f < 3; f += 2) {
                test_case(4, huge, (layout_t)l, CUDNN_SOFTMAX_ACCURATE, (cudnnSoftmaxMode_t)mode, 1,
                          0, f, 0);
                test_case(4, huge, (layout_t)l, CUDNN_SOFTMAX_LOG, (cudnnSoftmaxMode_t)mode,
                          f ? 1 : -2, 0, f, 0);
            }
    align_out = 1;
    for (int l = 0; l < 2; l++) {
        test_case(4, huge, (layout_t)l, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 1, 0, 1,
                  0);
        /* LOG rows longer than the exp cache stream y when aligned (2026-12-01) */
        test_case(4, huge, (layout_t)l, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_INSTANCE, 1, 0, l, 0);
    }
    align_out = 0;
    reduce_suite();
    printf("worst error / bound: softmax fwd accurate %.3f, fwd log %.3f, bwd accurate %.3f, "
           "bwd log %.3f; reduce %.3f\n",
           worst[0], worst[1], worst[2], worst[3], worst_red);
    printf("test_cpu_smx_fast: %d cases, %d failures\n", cases, failures);
    cudnnDestroy(h_ref);
    cudnnDestroy(h_cpu);
    return failures ? 1 : 0;
}
