/* SPDX-License-Identifier: MIT */
/*
 * test_cpu_reduce_fast.c - the FLOAT fast paths of the cpu reduce row (src/cpu/reduce_cpu.c)
 * that test_cpu_memops3.c reaches only in part: the short-rows kind (many contiguous slices of
 * 16 .. 1024 elements, e.g. a reduction over C on NHWC: rx_rows_unit, and its AVX-512 select
 * form rx_rows_sel_avx512) and the lanes kind's select operators, which fold four rows per
 * sweep (a reduction over C on NCHW). Through the public API, a ref handle and a cpu handle
 * with one and with two OpenMP threads on the same inputs (memops_case.h), and each case
 * again with FREEDNN_CPU_ISA=avx2 and =generic (the row reads it at every call), so the
 * AVX-512, AVX2 and baseline forms all meet the oracle.
 *
 * What must hold, byte for byte against ref (NaN payloads aside), no tolerance:
 * - MIN, MAX, AMAX, both NaN options: the value and the flattened index (the first
 *   occurrence). Fills that make ties the rule: small integers (-4 .. 4), all-equal slices,
 *   signed zeros (MAX of -0 and +0 is the first one met: its sign is checked), NaN and +-inf
 *   specials, slices that are all NaN (not propagated: the empty result and index 0), slices
 *   of NaN and +-inf only (a best that is the value-only paths' start value, or no number).
 *   Each also without indices: the value-only paths (rx_vo_sweep, rx_rows_vo_avx2).
 * - ADD, AVG, NORM1, NORM2 on small-integer fills: every partial sum is an integer below
 *   2^53, so the reordered double sums are exact and equal ref's. (Real fills reorder the
 *   rounding: test_cpu_smx_fast.c holds those to a tolerance.)
 * Shapes: C in {16, 37, 45, 64, 100, 1024 (the short-rows bound), 1030 (beyond it: the runs
 * kind)}, and C 5 and 6 over planes of 10000 and 6400 (lanes units of 1024 and 2048 lanes),
 * NHWC and NCHW, reduced over C, alpha / beta (1, 0) and (0.5, 0.25).
 * - Per channel (reduced over N, H and W) on NHWC above the threading threshold: the lanes
 *   kind with few units cuts each slice into a fixed number of pieces merged in piece order
 *   (rx_lpieces: 2 or 16 pieces here, whole slices below 2048 elements): the select
 *   operators (real fills, and NaN / inf specials for C 37 and 100) byte for byte against
 *   ref, ADD / AVG / NORM1 / NORM2 on small-integer fills (exact), C in {32, 37, 64, 80, 100,
 *   48}, one and two threads, A aligned to 64 bytes and 16 and 48 bytes past it (16 bytes
 *   past: the select operators without indices). Per channel on NCHW over planes of 4480 and
 *   6480 elements (the runs kind's prefetching walk): ADD / AVG / NORM1 / NORM2, exact. (MUL /
 *   MUL_NO_ZEROS and real-valued sums reorder in double: test_cpu_smx_fast.c's tolerance.)
 */
#define _GNU_SOURCE
#include "memops_case.h"

static const char *op_name_f[] = {"add", "mul",   "min",   "max",         "amax",
                                  "avg", "norm1", "norm2", "mul_no_zeros"};

enum { F_INT, F_EQUAL, F_ZEROS, F_SPECIAL, F_ALLNAN, F_INFNAN, F_COUNT, F_REAL = F_COUNT };
static const char *fill_name[] = {"int",     "equal",   "zeros", "specials",
                                  "all-nan", "inf-nan", "real"};

static void fill_kind(float *p, size_t n, int kind)
{
    for (size_t i = 0; i < n; i++) {
        double v = floor(urand() * 9) - 4;
        switch (kind) {
        case F_EQUAL:
            v = 2.0;
            break;
        case F_ZEROS:
            v = urand() < 0.5 ? -0.0 : 0.0;
            if (urand() < 0.05)
                v = -1.0;
            break;
        case F_SPECIAL:
            if (urand() < 0.05)
                v = urand() < 0.4 ? NAN : (urand() < 0.5 ? INFINITY : -INFINITY);
            break;
        case F_ALLNAN:
            v = urand() < 0.9 ? NAN : v;
            break;
        case F_INFNAN: { /* slices whose best is the start value +-inf, or that hold no number */
            const double r = urand();
            v = r < 0.4 ? NAN : r < 0.7 ? -INFINITY : r < 0.95 ? INFINITY : v;
            break;
        }
        case F_REAL: /* products of many stay finite: magnitudes around 1 */
            v = (urand() < 0.5 ? -1.0 : 1.0) * (0.75 + 0.5 * urand());
            break;
        default:
            break;
        }
        p[i] = (float)v;
    }
}

/* chan: reduced over N, H and W (kept C); otherwise over C. A starts aoff floats past a
 * 64-byte boundary. noidx: a select operator without indices (the value-only paths). */
static void test_one(int n, int c, int h, int w, layout_t l, cudnnReduceTensorOp_t op,
                     cudnnNanPropagation_t nan, int kind, double alpha, double beta,
                     const char *isa, int chan, int aoff, int noidx)
{
    char what[256];
    const int dim[4] = {n, c, h, w},
              cdim[4] = {chan ? 1 : n, chan ? c : 1, chan ? 1 : h, chan ? 1 : w};
    shape_t as = make_shape(4, dim, l), cs = make_shape(4, cdim, L_NCHW);
    cudnnTensorDescriptor_t ad = desc_of(&as, CUDNN_DATA_FLOAT);
    cudnnTensorDescriptor_t cd = desc_of(&cs, CUDNN_DATA_FLOAT);
    const int select = op == CUDNN_REDUCE_TENSOR_MIN || op == CUDNN_REDUCE_TENSOR_MAX ||
                       op == CUDNN_REDUCE_TENSOR_AMAX;
    cudnnReduceTensorDescriptor_t rd;
    CHECK(cudnnCreateReduceTensorDescriptor(&rd));
    CHECK(cudnnSetReduceTensorDescriptor(rd, op, CUDNN_DATA_FLOAT, nan,
                                         select && !noidx ? CUDNN_REDUCE_TENSOR_FLATTENED_INDICES
                                                          : CUDNN_REDUCE_TENSOR_NO_INDICES,
                                         CUDNN_32BIT_INDICES));
    size_t ab = as.extent * sizeof(float), ib = 0, wb = 0;
    CHECK(cudnnGetReductionIndicesSize(h_cpu, rd, ad, cd, &ib));
    CHECK(cudnnGetReductionWorkspaceSize(h_cpu, rd, ad, cd, &wb));
    void *araw = NULL;
    if (posix_memalign(&araw, 64, ab + 64) != 0)
        abort();
    float *a = (float *)araw + aoff, *ac = malloc(ab);
    void *ws = malloc(wb + 1);
    fill_kind(a, as.extent, kind); /* all-NaN: 90% NaN, so that short slices are often all NaN */
    memcpy(ac, a, ab);
    unsigned char a8[8], b8[8];
    scal(CUDNN_DATA_FLOAT, alpha, a8), scal(CUDNN_DATA_FLOAT, beta, b8);
    cur_dt = CUDNN_DATA_FLOAT;
    snprintf(what, sizeof what,
             "reduce %s nan %d %s [%d %d %d %d] %s, %s fill, a %g b %g, isa %s, A at +%d%s",
             op_name_f[op], (int)nan, layout_name[l], n, c, h, w, chan ? "per channel" : "over C",
             fill_name[kind], alpha, beta, isa ? isa : "default", 4 * aoff,
             select && noidx ? ", no indices" : "");
    outbuf_t o;
    out_init(&o, CUDNN_DATA_FLOAT, cs.extent, beta, 1);
    void *idx[3];
    for (int r = 0; r < 3; r++) {
        idx[r] = malloc(ib + 4);
        memset(idx[r], 0xcd, ib + 4);
        if (r > 0 && isa)
            setenv("FREEDNN_CPU_ISA", isa, 1);
        CHECK(cudnnReduceTensor(run_handle(r), rd, ib ? idx[r] : NULL, ib, ws, wb, a8, ad, a, b8,
                                cd, o.out[r]));
        unsetenv("FREEDNN_CPU_ISA");
    }
    for (int r = 1; r < 3; r++)
        if (memcmp(idx[0], idx[r], ib + 4) != 0) {
            failures++;
            fprintf(stderr, "FAIL %s: indices of cpu (%d threads) differ from ref\n", what, r);
        }
    out_check(&o, what);
    if (memcmp(a, ac, ab) != 0) {
        failures++;
        fprintf(stderr, "FAIL %s: a changed\n", what);
    }
    for (int r = 0; r < 3; r++)
        free(idx[r]);
    free(araw), free(ac), free(ws);
    cudnnDestroyReduceTensorDescriptor(rd);
    cudnnDestroyTensorDescriptor(ad), cudnnDestroyTensorDescriptor(cd);
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
    const char *isas[3] = {NULL, "avx2", "generic"};
    const cudnnReduceTensorOp_t sel[3] = {CUDNN_REDUCE_TENSOR_MIN, CUDNN_REDUCE_TENSOR_MAX,
                                          CUDNN_REDUCE_TENSOR_AMAX};
    const cudnnReduceTensorOp_t sums[4] = {CUDNN_REDUCE_TENSOR_ADD, CUDNN_REDUCE_TENSOR_AVG,
                                           CUDNN_REDUCE_TENSOR_NORM1, CUDNN_REDUCE_TENSOR_NORM2};
    /* n, c, h, w: small spatial for the large C; one above the threading threshold */
    /* ... C = 45: a row of 2 x 16 + 8 + 5 (every step of the AVX2 value-only rows); and few
     * channels over wide planes: lanes units of 1024 ({1, 5, 100, 100}: halved
     * from 2048 for the unit count) and 2048 lanes ({4, 6, 64, 100}, its last unit 256) */
    const int shapes[][4] = {{2, 16, 3, 5},   {2, 37, 4, 5},   {3, 64, 5, 7},   {2, 100, 3, 3},
                             {1, 1024, 2, 3}, {1, 1030, 2, 2}, {4, 64, 32, 33}, {1, 5, 100, 100},
                             {4, 6, 64, 100}, {2, 45, 3, 4}};
    const int nsh = (int)(sizeof shapes / sizeof shapes[0]);
    const double ab[2][2] = {{1.0, 0.0}, {0.5, 0.25}};
    for (int si = 0; si < nsh; si++)
        for (int l = 0; l < 2; l++)
            for (int ii = 0; ii < 3; ii++) {
                const int *d = shapes[si];
                for (int oi = 0; oi < 3; oi++)
                    for (int nan = 0; nan < 2; nan++)
                        for (int k = 0; k < F_COUNT; k++)
                            for (int noidx = 0; noidx < 2; noidx++)
                                test_one(d[0], d[1], d[2], d[3], (layout_t)l, sel[oi],
                                         (cudnnNanPropagation_t)nan, k, ab[k & 1][0], ab[k & 1][1],
                                         isas[ii], 0, 0, noidx);
                for (int oi = 0; oi < 4; oi++)
                    test_one(d[0], d[1], d[2], d[3], (layout_t)l, sums[oi], CUDNN_NOT_PROPAGATE_NAN,
                             F_INT, ab[oi & 1][0], ab[oi & 1][1], isas[ii], 0, 0, 0);
            }
    /* per channel on NHWC, above the threading threshold: pieces of the reduced walk (2, 2,
     * none (slices under 2048: whole, the ref's order), none, none and 16 per slice), A
     * aligned or 16 / 48 bytes past a line */
    const int cshapes[][4] = {{4, 32, 24, 25},  {3, 37, 30, 31}, {4, 64, 17, 16},
                              {2, 100, 19, 20}, {3, 80, 17, 17}, {1, 48, 128, 130}};
    const int aoffs[3] = {0, 4, 12};
    for (int si = 0; si < 6; si++)
        for (int ii = 0; ii < 3; ii++)
            for (int op = 0; op < 9; op++)
                for (int ai = 0; ai < 3; ai++) {
                    const int *d = cshapes[si];
                    const int sel = op >= 2 && op <= 4;
                    if (op == CUDNN_REDUCE_TENSOR_MUL || op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS)
                        continue;
                    const int k = !sel ? F_INT : si == 1 || si == 3 ? F_SPECIAL : F_REAL;
                    test_one(d[0], d[1], d[2], d[3], L_NHWC, (cudnnReduceTensorOp_t)op,
                             (cudnnNanPropagation_t)(op & 1), k, ab[si & 1][0], ab[si & 1][1],
                             isas[ii], 1, aoffs[ai], sel && ai == 1);
                }
    /* per channel on NCHW with planes of 4096 elements and more: the runs kind's prefetching
     * walk (rx_run_sum_pf: ADD / AVG, and NORM1 / NORM2 since 2026-12-06), exact on
     * small-integer fills; A aligned and 16 bytes past a line */
    const int pshapes[][4] = {{2, 5, 64, 70}, {1, 3, 80, 81}};
    for (int si = 0; si < 2; si++)
        for (int ii = 0; ii < 3; ii++)
            for (int oi = 0; oi < 4; oi++)
                for (int ai = 0; ai < 2; ai++) {
                    const int *d = pshapes[si];
                    test_one(d[0], d[1], d[2], d[3], L_NCHW, sums[oi], CUDNN_NOT_PROPAGATE_NAN,
                             F_INT, ab[oi & 1][0], ab[oi & 1][1], isas[ii], 1, aoffs[ai], 0);
                }
    printf("test_cpu_reduce_fast: %d cases, %d failures\n", cases, failures);
    cudnnDestroy(h_ref);
    cudnnDestroy(h_cpu);
    return failures ? 1 : 0;
}
