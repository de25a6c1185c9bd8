/* SPDX-License-Identifier: MIT */
/*
 * test_reduce.c - cudnnReduceTensor against an oracle written here: every operator, every
 * subset of the dims of a 4-d tensor (none and all included), indices for MIN/MAX/AMAX, both
 * NaN modes, alpha/beta, the supported (A, C, compute) types, layouts of A and C; plus
 * hand-computed cases and the size queries.
 *
 * The oracle walks A in canonical order and scatters each element into its output slot (the
 * library gathers per output), tracking the position inside the reduced slice in row-major
 * order of the reduced dims. Integer data make every result exact, so outputs compare with
 * tolerance 0; ref and cpu handles must give identical bytes; guards, holes of strided C and
 * the indices buffer, and A are checked after each call.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_tensor.h"
#include "fd_test.h"

#define MAXD 8
#define CHECK(x) FD_EXPECT_STATUS((x), CUDNN_STATUS_SUCCESS)

/* ---- oracle -------------------------------------------------------------------------------- */

static cudnnHandle_t h_ref, h_cpu;

static const char *const rnames[9] = {"add", "mul",   "min",   "max",         "amax",
                                      "avg", "norm1", "norm2", "mul_no_zeros"};

static int is_select(int op)
{
    return op == CUDNN_REDUCE_TENSOR_MIN || op == CUDNN_REDUCE_TENSOR_MAX ||
           op == CUDNN_REDUCE_TENSOR_AMAX;
}

/* Reduction of the values v[0..n) in order, as the operator is defined; *idx for MIN/MAX/AMAX. */
static double oracle_reduce(int op, int propagate, int comp_double, const double *v, int64_t n,
                            uint32_t *idx)
{
    double big = comp_double ? DBL_MAX : FLT_MAX;
    *idx = 0;
    if (is_select(op)) {
        int have = 0;
        double best = 0;
        for (int64_t i = 0; i < n; i++) {
            if (isnan(v[i])) {
                if (propagate) {
                    *idx = (uint32_t)i;
                    return NAN;
                }
                continue;
            }
            double x = op == CUDNN_REDUCE_TENSOR_AMAX ? fabs(v[i]) : v[i];
            int better = op == CUDNN_REDUCE_TENSOR_MIN ? x < best : x > best;
            if (!have || better) {
                best = x, *idx = (uint32_t)i, have = 1;
            }
        }
        if (!have)
            return op == CUDNN_REDUCE_TENSOR_MIN ? big : op == CUDNN_REDUCE_TENSOR_MAX ? -big : 0.0;
        return best;
    }
    double s =
        (op == CUDNN_REDUCE_TENSOR_MUL || op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS) ? 1.0 : 0.0;
    for (int64_t i = 0; i < n; i++) {
        switch (op) {
        case CUDNN_REDUCE_TENSOR_ADD:
        case CUDNN_REDUCE_TENSOR_AVG:
            s += v[i];
            break;
        case CUDNN_REDUCE_TENSOR_MUL:
            s *= v[i];
            break;
        case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS:
            if (v[i] != 0)
                s *= v[i];
            break;
        case CUDNN_REDUCE_TENSOR_NORM1:
            s += fabs(v[i]);
            break;
        default:
            s += v[i] * v[i];
            break;
        }
    }
    if (op == CUDNN_REDUCE_TENSOR_AVG)
        return s / (double)n;
    if (op == CUDNN_REDUCE_TENSOR_NORM2)
        return sqrt(s);
    return s;
}

typedef struct {
    cudnnDataType_t a, c, comp;
} rtypes_t;
static const rtypes_t rrows[] = {
    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE},
};
#define RROWS ((int)(sizeof rrows / sizeof rrows[0]))

static const double alphas[] = {1.0, 0.5, -2.0};
static const double betas[] = {0.0, 1.0, 0.25};

/* One reduction of a 4-d (or 5-d) A over the dims in `subset`, checked on both handles. */
static void reduce_case(uint64_t seed, int op, unsigned subset, int nb, int with_nan)
{
    fd_rng_t r;
    fd_rng_seed(&r, seed);
    rtypes_t ty = rrows[fd_rng_int(&r, 0, RROWS - 1)];
    int propagate = fd_rng_int(&r, 0, 1);
    int ad[MAXD], cd[MAXD];
    for (int i = 0; i < nb; i++)
        ad[i] = fd_rng_int(&r, 1, 4);
    for (int i = 0; i < nb; i++)
        cd[i] = (subset >> i) & 1 ? 1 : ad[i];
    fd_layout_t la, lc;
    int ka = fd_rng_int(&r, 0, FD_LAYOUT_COUNT - 1), kc = fd_rng_int(&r, 0, FD_LAYOUT_COUNT - 1);
    fd_layout_random(&la, nb, ad, ka, &r);
    fd_layout_random(&lc, nb, cd, kc, &r);
    double alpha = alphas[fd_rng_int(&r, 0, 2)], beta = betas[fd_rng_int(&r, 0, 2)];
    int ask_idx = fd_rng_int(&r, 0, 3) != 0; /* FLATTENED for a non-select op: no indices */
    int want_idx = is_select(op) && ask_idx;

    int64_t na = la.count, nc = lc.count;
    double *va = malloc(sizeof(double) * (size_t)na), *vc = malloc(sizeof(double) * (size_t)nc);
    for (int64_t k = 0; k < na; k++) {
        if (op == CUDNN_REDUCE_TENSOR_MUL || op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS) {
            static const int pick[5] = {-2, -1, 0, 1, 2};
            va[k] = pick[fd_rng_int(&r, 0, 4)];
        } else {
            va[k] = fd_rng_int(&r, -4, 4);
        }
        va[k] = fd_test_round(ty.a, va[k]);
    }
    if (with_nan) {
        int nn = fd_rng_int(&r, 1, 3);
        for (int i = 0; i < nn; i++)
            va[fd_rng_int(&r, 0, (int)na - 1)] = NAN;
    }
    for (int64_t k = 0; k < nc; k++)
        vc[k] = fd_test_round(ty.c, fd_rng_int(&r, -9, 9));

    /* oracle: scatter A's elements (canonical order) into per-output value lists */
    int64_t slice = na / nc;
    double *lists = malloc(sizeof(double) * (size_t)na);
    int64_t *fill = calloc((size_t)nc, sizeof(int64_t));
    for (int64_t k = 0; k < na; k++) {
        int64_t rest = k, o = 0, mul = 1;
        for (int i = nb - 1; i >= 0; i--) {
            int64_t ix = rest % ad[i];
            rest /= ad[i];
            o += (cd[i] == 1 ? 0 : ix) * mul;
            mul *= cd[i];
        }
        lists[o * slice + fill[o]++] = va[k]; /* canonical order = row-major over reduced dims */
    }
    double *want = malloc(sizeof(double) * (size_t)nc), *got = malloc(sizeof(double) * (size_t)nc);
    uint32_t *widx = malloc(sizeof(uint32_t) * (size_t)nc);
    for (int64_t o = 0; o < nc; o++) {
        double red = oracle_reduce(op, propagate, ty.comp == CUDNN_DATA_DOUBLE, lists + o * slice,
                                   slice, &widx[o]);
        double v = alpha * red;
        if (beta != 0.0)
            v += beta * vc[o];
        want[o] = fd_test_round(ty.c, v);
    }

    cudnnReduceTensorDescriptor_t rd;
    FD_EXPECT_STATUS(cudnnCreateReduceTensorDescriptor(&rd), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(
        cudnnSetReduceTensorDescriptor(rd, (cudnnReduceTensorOp_t)op, ty.comp,
                                       propagate ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                                       ask_idx ? CUDNN_REDUCE_TENSOR_FLATTENED_INDICES
                                               : CUDNN_REDUCE_TENSOR_NO_INDICES,
                                       CUDNN_32BIT_INDICES),
        CUDNN_STATUS_SUCCESS);
    unsigned char *first = NULL;
    for (int hi = 0; hi < 2; hi++) {
        cudnnHandle_t h = hi ? h_cpu : h_ref;
        fd_tb_t A, C;
        fd_tb_init(&A, &la, ty.a);
        fd_tb_init(&C, &lc, ty.c);
        fd_tb_scatter(&A, va);
        fd_buf_poison(&C.b);
        if (beta != 0.0)
            fd_tb_scatter(&C, vc);
        fd_tb_snap(&C);
        size_t isz = 1234, wsz = 1234;
        FD_EXPECT_STATUS(cudnnGetReductionIndicesSize(h, rd, A.d, C.d, &isz), CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(cudnnGetReductionWorkspaceSize(h, rd, A.d, C.d, &wsz),
                         CUDNN_STATUS_SUCCESS);
        FD_EXPECT(isz == (want_idx ? (size_t)nc * 4 : 0),
                  "indices size %zu for %s (C has %lld elements)", isz, rnames[op], (long long)nc);
        FD_EXPECT(wsz == 0, "workspace size %zu; the reference needs none", wsz);
        fd_buf_t ib = fd_buf_alloc((size_t)nc * 4);
        fd_buf_poison(&ib);
        uint64_t ha = fd_buf_hash(&A.b), hib = fd_buf_hash(&ib);
        fd_scalar_t sa = fd_scalar(ty.c, alpha), sb = fd_scalar(ty.c, beta);
        cudnnStatus_t st = cudnnReduceTensor(h, rd, ib.data, ib.size, NULL, 0, &sa, A.d, A.b.data,
                                             &sb, C.d, C.b.data);
        FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "reduce %s seed=0x%llx: status %s", rnames[op],
                  (unsigned long long)seed, cudnnGetErrorString(st));
        fd_tb_gather(&C, got);
        int bad = -1;
        for (int64_t o = 0; o < nc && bad < 0; o++)
            if (!fd_same_value(got[o], want[o]))
                bad = (int)o;
        FD_EXPECT(bad < 0,
                  "reduce %s nan=%s %s->%s comp %s subset 0x%x %s->%s alpha %g beta %g "
                  "seed=0x%llx: C[%d] = %g, "
                  "want %g",
                  rnames[op], propagate ? "prop" : "noprop", fd_test_dtype_short(ty.a),
                  fd_test_dtype_short(ty.c), fd_test_dtype_short(ty.comp), subset,
                  fd_layout_name[ka], fd_layout_name[kc], alpha, beta, (unsigned long long)seed,
                  bad, bad >= 0 ? got[bad] : 0.0, bad >= 0 ? want[bad] : 0.0);
        if (want_idx) {
            int ibad = -1;
            for (int64_t o = 0; o < nc && ibad < 0; o++) {
                uint32_t gi;
                memcpy(&gi, (unsigned char *)ib.data + 4 * o, 4);
                if (gi != widx[o])
                    ibad = (int)o;
            }
            FD_EXPECT(ibad < 0, "reduce %s indices seed=0x%llx: index %d wrong", rnames[op],
                      (unsigned long long)seed, ibad);
        } else {
            FD_EXPECT(fd_buf_hash(&ib) == hib,
                      "reduce %s seed=0x%llx: indices written though none are produced", rnames[op],
                      (unsigned long long)seed);
        }
        FD_EXPECT(fd_buf_guards_ok(&ib), "indices guard changed");
        FD_EXPECT(fd_tb_holes_ok(&C), "reduce seed=0x%llx: guard or hole of C changed",
                  (unsigned long long)seed);
        FD_EXPECT(fd_buf_hash(&A.b) == ha && fd_buf_guards_ok(&A.b),
                  "reduce seed=0x%llx: A changed", (unsigned long long)seed);
        if (hi == 0) {
            first = malloc(C.b.size);
            memcpy(first, C.b.data, C.b.size);
        } else {
            FD_EXPECT(memcmp(first, C.b.data, C.b.size) == 0,
                      "reduce seed=0x%llx: ref and cpu bytes differ", (unsigned long long)seed);
            free(first);
        }
        fd_buf_free(&ib);
        fd_tb_free(&A), fd_tb_free(&C);
    }
    cudnnDestroyReduceTensorDescriptor(rd);
    free(va), free(vc), free(lists), free(fill), free(want), free(got), free(widx);
}

/* ---- hand-computed ----------------------------------------------------------------------------
 */

/* A = [[1, -2, 3], [4, 0, -6]] (2x3 as a 1x1x2x3 tensor). */
static void by_hand(void)
{
    static const struct {
        int op;
        double rows[2]; /* reduce over W: one value per row */
        uint32_t ridx[2];
        double cols[3]; /* reduce over H */
        uint32_t cidx[3];
        double all;
    } t[] = {
        {CUDNN_REDUCE_TENSOR_ADD, {2, -2}, {0, 0}, {5, -2, -3}, {0, 0, 0}, 0},
        {CUDNN_REDUCE_TENSOR_MUL, {-6, 0}, {0, 0}, {4, 0, -18}, {0, 0, 0}, 0},
        {CUDNN_REDUCE_TENSOR_MIN, {-2, -6}, {1, 2}, {1, -2, -6}, {0, 0, 1}, -6},
        {CUDNN_REDUCE_TENSOR_MAX, {3, 4}, {2, 0}, {4, 0, 3}, {1, 1, 0}, 4},
        {CUDNN_REDUCE_TENSOR_AMAX, {3, 6}, {2, 2}, {4, 2, 6}, {1, 0, 1}, 6},
        {CUDNN_REDUCE_TENSOR_AVG, {2.0 / 3, -2.0 / 3}, {0, 0}, {2.5, -1, -1.5}, {0, 0, 0}, 0},
        {CUDNN_REDUCE_TENSOR_NORM1, {6, 10}, {0, 0}, {5, 2, 9}, {0, 0, 0}, 16},
        {CUDNN_REDUCE_TENSOR_NORM2,
         {3.7416573867739413, 7.211102550927978},
         {0, 0},
         {4.123105625617661, 2, 6.708203932499369},
         {0, 0, 0},
         8.12403840463596},
        {CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS, {-6, -24}, {0, 0}, {4, -2, -18}, {0, 0, 0}, 144},
    };
    fd_layout_t la = {.nb = 4, .dim = {1, 1, 2, 3}, .stride = {6, 6, 3, 1}},
                lr = {.nb = 4, .dim = {1, 1, 2, 1}, .stride = {2, 2, 1, 1}},
                lcol = {.nb = 4, .dim = {1, 1, 1, 3}, .stride = {3, 3, 3, 1}},
                l1 = {.nb = 4, .dim = {1, 1, 1, 1}, .stride = {1, 1, 1, 1}};
    const double a[6] = {1, -2, 3, 4, 0, -6};
    fd_tb_t A, R, K, S;
    fd_tb_init(&A, &la, CUDNN_DATA_DOUBLE);
    fd_tb_init(&R, &lr, CUDNN_DATA_DOUBLE);
    fd_tb_init(&K, &lcol, CUDNN_DATA_DOUBLE);
    fd_tb_init(&S, &l1, CUDNN_DATA_DOUBLE);
    fd_tb_scatter(&A, a);
    cudnnReduceTensorDescriptor_t rd;
    FD_EXPECT_STATUS(cudnnCreateReduceTensorDescriptor(&rd), CUDNN_STATUS_SUCCESS);
    double one = 1, zero = 0;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        FD_EXPECT_STATUS(cudnnSetReduceTensorDescriptor(rd, (cudnnReduceTensorOp_t)t[i].op,
                                                        CUDNN_DATA_DOUBLE, CUDNN_NOT_PROPAGATE_NAN,
                                                        CUDNN_REDUCE_TENSOR_FLATTENED_INDICES,
                                                        CUDNN_32BIT_INDICES),
                         CUDNN_STATUS_SUCCESS);
        uint32_t idx[3] = {99, 99, 99};
        double got[3];
        FD_EXPECT_STATUS(cudnnReduceTensor(h_ref, rd, idx, sizeof idx, NULL, 0, &one, A.d, A.b.data,
                                           &zero, R.d, R.b.data),
                         CUDNN_STATUS_SUCCESS);
        fd_tb_gather(&R, got);
        for (int k = 0; k < 2; k++) {
            FD_EXPECT(fabs(got[k] - t[i].rows[k]) <= 1e-15 * fabs(t[i].rows[k]),
                      "%s over W row %d: %.17g want %.17g", rnames[t[i].op], k, got[k],
                      t[i].rows[k]);
            if (is_select(t[i].op))
                FD_EXPECT(idx[k] == t[i].ridx[k], "%s over W row %d: index %u want %u",
                          rnames[t[i].op], k, idx[k], t[i].ridx[k]);
        }
        FD_EXPECT_STATUS(cudnnReduceTensor(h_ref, rd, idx, sizeof idx, NULL, 0, &one, A.d, A.b.data,
                                           &zero, K.d, K.b.data),
                         CUDNN_STATUS_SUCCESS);
        fd_tb_gather(&K, got);
        for (int k = 0; k < 3; k++) {
            FD_EXPECT(fabs(got[k] - t[i].cols[k]) <= 1e-15 * fabs(t[i].cols[k]),
                      "%s over H col %d: %.17g want %.17g", rnames[t[i].op], k, got[k],
                      t[i].cols[k]);
            if (is_select(t[i].op))
                FD_EXPECT(idx[k] == t[i].cidx[k], "%s over H col %d: index %u want %u",
                          rnames[t[i].op], k, idx[k], t[i].cidx[k]);
        }
        FD_EXPECT_STATUS(cudnnReduceTensor(h_ref, rd, idx, sizeof idx, NULL, 0, &one, A.d, A.b.data,
                                           &zero, S.d, S.b.data),
                         CUDNN_STATUS_SUCCESS);
        fd_tb_gather(&S, got);
        double all = t[i].op == CUDNN_REDUCE_TENSOR_ADD   ? 0
                     : t[i].op == CUDNN_REDUCE_TENSOR_AVG ? 0
                                                          : t[i].all;
        FD_EXPECT(fabs(got[0] - all) <= 1e-15 * fabs(all), "%s over everything: %.17g want %.17g",
                  rnames[t[i].op], got[0], all);
    }
    /* alpha/beta: C = 2 * sum + 0.5 * C_old over W with C_old = (10, 20) */
    FD_EXPECT_STATUS(cudnnSetReduceTensorDescriptor(
                         rd, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_DOUBLE, CUDNN_NOT_PROPAGATE_NAN,
                         CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES),
                     CUDNN_STATUS_SUCCESS);
    const double old[2] = {10, 20};
    fd_tb_scatter(&R, old);
    double two = 2, half = 0.5, got[2];
    FD_EXPECT_STATUS(
        cudnnReduceTensor(h_ref, rd, NULL, 0, NULL, 0, &two, A.d, A.b.data, &half, R.d, R.b.data),
        CUDNN_STATUS_SUCCESS);
    fd_tb_gather(&R, got);
    FD_EXPECT(got[0] == 9 && got[1] == 6, "alpha/beta blend: %g %g (want 9 6)", got[0], got[1]);

    /* NaN: rows [1, NaN, 3, 3] and [NaN, NaN, NaN, NaN] reduced over W, float compute */
    fd_layout_t ln = {.nb = 4, .dim = {1, 1, 2, 4}, .stride = {8, 8, 4, 1}},
                lo = {.nb = 4, .dim = {1, 1, 2, 1}, .stride = {2, 2, 1, 1}};
    fd_tb_t NA, NO;
    fd_tb_init(&NA, &ln, CUDNN_DATA_FLOAT);
    fd_tb_init(&NO, &lo, CUDNN_DATA_FLOAT);
    const double nv[8] = {1, NAN, 3, 3, NAN, NAN, NAN, NAN};
    fd_tb_scatter(&NA, nv);
    static const struct {
        int op, prop;
        double v[2];
        uint32_t i[2];
    } nt[] = {
        {CUDNN_REDUCE_TENSOR_MAX, 1, {NAN, NAN}, {1, 0}},
        {CUDNN_REDUCE_TENSOR_MAX, 0, {3, -FLT_MAX}, {2, 0}},
        {CUDNN_REDUCE_TENSOR_MIN, 0, {1, FLT_MAX}, {0, 0}},
        {CUDNN_REDUCE_TENSOR_AMAX, 0, {3, 0}, {2, 0}},
        {CUDNN_REDUCE_TENSOR_ADD, 0, {NAN, NAN}, {0, 0}},
        {CUDNN_REDUCE_TENSOR_NORM1, 1, {NAN, NAN}, {0, 0}},
    };
    float onef = 1, zerof = 0;
    for (size_t i = 0; i < sizeof nt / sizeof nt[0]; i++) {
        FD_EXPECT_STATUS(cudnnSetReduceTensorDescriptor(
                             rd, (cudnnReduceTensorOp_t)nt[i].op, CUDNN_DATA_FLOAT,
                             nt[i].prop ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN,
                             CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_32BIT_INDICES),
                         CUDNN_STATUS_SUCCESS);
        uint32_t idx[2] = {77, 77};
        FD_EXPECT_STATUS(cudnnReduceTensor(h_ref, rd, idx, sizeof idx, NULL, 0, &onef, NA.d,
                                           NA.b.data, &zerof, NO.d, NO.b.data),
                         CUDNN_STATUS_SUCCESS);
        fd_tb_gather(&NO, got);
        for (int k = 0; k < 2; k++) {
            FD_EXPECT(got[k] == nt[i].v[k] || (isnan(got[k]) && isnan(nt[i].v[k])),
                      "NaN %s prop=%d row %d: %g want %g", rnames[nt[i].op], nt[i].prop, k, got[k],
                      nt[i].v[k]);
            if (is_select(nt[i].op))
                FD_EXPECT(idx[k] == nt[i].i[k], "NaN %s prop=%d row %d: index %u want %u",
                          rnames[nt[i].op], nt[i].prop, k, idx[k], nt[i].i[k]);
            else
                FD_EXPECT(idx[k] == 77, "NaN %s: indices written for a non-selecting operator",
                          rnames[nt[i].op]);
        }
    }
    /* descriptor round trip */
    cudnnReduceTensorOp_t gop;
    cudnnDataType_t gct;
    cudnnNanPropagation_t gnan;
    cudnnReduceTensorIndices_t gind;
    cudnnIndicesType_t gity;
    FD_EXPECT_STATUS(cudnnSetReduceTensorDescriptor(
                         rd, CUDNN_REDUCE_TENSOR_NORM2, CUDNN_DATA_DOUBLE, CUDNN_PROPAGATE_NAN,
                         CUDNN_REDUCE_TENSOR_FLATTENED_INDICES, CUDNN_64BIT_INDICES),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnGetReduceTensorDescriptor(rd, &gop, &gct, &gnan, &gind, &gity),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(gop == CUDNN_REDUCE_TENSOR_NORM2 && gct == CUDNN_DATA_DOUBLE &&
                  gnan == CUDNN_PROPAGATE_NAN && gind == CUDNN_REDUCE_TENSOR_FLATTENED_INDICES &&
                  gity == CUDNN_64BIT_INDICES,
              "reduce descriptor round trip");
    cudnnDestroyReduceTensorDescriptor(rd);
    fd_tb_free(&A), fd_tb_free(&R), fd_tb_free(&K), fd_tb_free(&S), fd_tb_free(&NA),
        fd_tb_free(&NO);
}

int main(void)
{
    fd_handles_create(&h_ref, &h_cpu);
    uint64_t master = fd_test_sweep_seed(0x4ed0ce), one;
    if (fd_test_seed_forced(&one)) {
        for (int op = 0; op < 9; op++)
            reduce_case(one, op, 0x5, 4, 0);
        return fd_test_finish();
    }
    by_hand();
    int reps = (int)(4 * fd_test_scale());
    if (reps < 1)
        reps = 1;
    int n = 0;
    /* every operator x every subset of the 4 dims (0 = none, 0xf = all) */
    for (int op = 0; op < 9; op++)
        for (unsigned subset = 0; subset < 16; subset++)
            for (int rep = 0; rep < reps; rep++)
                reduce_case(fd_test_mix(master, (uint64_t)n++), op, subset, 4, 0);
    /* NaN injection for every operator, and 5-d tensors */
    for (int op = 0; op < 9; op++)
        for (int rep = 0; rep < 16; rep++) {
            fd_rng_t r;
            fd_rng_seed(&r, fd_test_mix(master, 900000u + (uint64_t)n));
            reduce_case(fd_test_mix(master, (uint64_t)n++), op, (unsigned)fd_rng_int(&r, 0, 15), 4,
                        1);
            reduce_case(fd_test_mix(master, (uint64_t)n++), op, (unsigned)fd_rng_int(&r, 0, 31), 5,
                        rep & 1);
        }
    cudnnDestroy(h_ref);
    cudnnDestroy(h_cpu);
    return fd_test_finish();
}
