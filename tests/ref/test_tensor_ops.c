/* SPDX-License-Identifier: MIT */
/*
 * test_tensor_ops.c - cudnnAddTensor, cudnnOpTensor (every operator, both NaN modes, every row
 * of the type table), cudnnSetTensor and cudnnScaleTensor against oracles written here from the
 * definitions, on canonical dense arrays.
 *
 * Each case scatters integer data into guarded buffers of a layout (NCHW, NHWC, padded strides,
 * permuted strides), poisons the output (beta = 0) or fills it with old values, runs the call
 * on a ref and a cpu handle, and checks: the exact result, identical bytes from both handles,
 * guard zones and holes of strided outputs intact, inputs unchanged. Broadcasting covers every
 * subset of dims of size 1 of A (AddTensor) and B (OpTensor).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_tensor.h"
#include "fd_test.h"

#define MAXD 8
#define CHECK(x) FD_EXPECT_STATUS((x), CUDNN_STATUS_SUCCESS)

static cudnnHandle_t h_ref, h_cpu;

static const cudnnDataType_t float_types[4] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                               CUDNN_DATA_BFLOAT16};

static const double alphas[] = {1.0, 0.5, -2.0};
static const double betas[] = {0.0, 1.0, 0.25};

static void random_dims(fd_rng_t *r, int *nb, int *dim)
{
    *nb = fd_rng_int(r, 0, 4) == 0 ? 5 : 4;
    for (int i = 0; i < *nb; i++)
        dim[i] = fd_rng_int(r, 1, 4);
    dim[1] = fd_rng_int(r, 1, 6);
}

/* ---- AddTensor ------------------------------------------------------------------------------ */

static void add_case(uint64_t seed)
{
    fd_rng_t r;
    fd_rng_seed(&r, seed);
    cudnnDataType_t dt = float_types[fd_rng_int(&r, 0, 3)];
    int nb, cd[MAXD], ad[MAXD];
    random_dims(&r, &nb, cd);
    unsigned mask = (unsigned)fd_rng_int(&r, 0, (1 << nb) - 1); /* dims where A is 1 */
    if (fd_rng_int(&r, 0, 3) == 0) { /* the classic bias shape 1 x C x 1 x 1 */
        mask = ((1u << nb) - 1) & ~2u;
    }
    for (int i = 0; i < nb; i++)
        ad[i] = (mask >> i) & 1 ? 1 : cd[i];
    fd_layout_t la, lc;
    int ka = fd_rng_int(&r, 0, FD_LAYOUT_COUNT - 1), kc = fd_rng_int(&r, 0, FD_LAYOUT_COUNT - 1);
    fd_layout_random(&la, nb, ad, ka, &r);
    fd_layout_random(&lc, nb, cd, kc, &r);
    double alpha = alphas[fd_rng_int(&r, 0, 2)], beta = betas[fd_rng_int(&r, 0, 2)];

    int64_t na = la.count, nc = lc.count;
    double *va = malloc(sizeof(double) * (size_t)na), *vc = malloc(sizeof(double) * (size_t)nc);
    double *want = malloc(sizeof(double) * (size_t)nc), *got = malloc(sizeof(double) * (size_t)nc);
    for (int64_t k = 0; k < na; k++)
        va[k] = fd_rng_int(&r, -8, 8);
    for (int64_t k = 0; k < nc; k++)
        vc[k] = fd_rng_int(&r, -8, 8);
    /* oracle: walk C's canonical index, A's index drops the broadcast dims */
    for (int64_t k = 0; k < nc; k++) {
        int64_t rest = k, ka_idx = 0, mul = 1;
        for (int i = nb - 1; i >= 0; i--) {
            int64_t ix = rest % cd[i];
            rest /= cd[i];
            ka_idx += (ad[i] == 1 ? 0 : ix) * mul;
            mul *= ad[i];
        }
        double v = alpha * va[ka_idx] + (beta != 0.0 ? beta * vc[k] : 0.0);
        want[k] = fd_test_round(dt, v);
    }
    unsigned char *first = NULL;
    for (int hi = 0; hi < 2; hi++) {
        fd_tb_t A, C;
        fd_tb_init(&A, &la, dt);
        fd_tb_init(&C, &lc, dt);
        fd_tb_scatter(&A, va);
        fd_buf_poison(&C.b);
        if (beta != 0.0)
            fd_tb_scatter(&C, vc);
        fd_tb_snap(&C);
        uint64_t ha = fd_buf_hash(&A.b);
        fd_scalar_t sa = fd_scalar(dt, alpha), sb = fd_scalar(dt, beta);
        cudnnStatus_t st =
            cudnnAddTensor(hi ? h_cpu : h_ref, &sa, A.d, A.b.data, &sb, C.d, C.b.data);
        FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "add seed=0x%llx: status %s",
                  (unsigned long long)seed, cudnnGetErrorString(st));
        fd_tb_gather(&C, got);
        int bad = -1;
        for (int64_t k = 0; k < nc && bad < 0; k++)
            if (!fd_same_value(got[k], want[k]))
                bad = (int)k;
        FD_EXPECT(bad < 0, "add %s %s->%s alpha=%g beta=%g seed=0x%llx: C[%d] = %g, want %g",
                  fd_test_dtype_short(dt), fd_layout_name[ka], fd_layout_name[kc], alpha, beta,
                  (unsigned long long)seed, bad, bad >= 0 ? got[bad] : 0.0,
                  bad >= 0 ? want[bad] : 0.0);
        FD_EXPECT(fd_tb_holes_ok(&C), "add seed=0x%llx: guard or hole of C changed",
                  (unsigned long long)seed);
        FD_EXPECT(fd_buf_hash(&A.b) == ha && fd_buf_guards_ok(&A.b), "add seed=0x%llx: A changed",
                  (unsigned long long)seed);
        if (hi == 0) {
            first = malloc(C.b.size);
            memcpy(first, C.b.data, C.b.size);
        } else {
            FD_EXPECT(memcmp(first, C.b.data, C.b.size) == 0,
                      "add seed=0x%llx: ref and cpu bytes differ", (unsigned long long)seed);
            free(first);
        }
        fd_tb_free(&A);
        fd_tb_free(&C);
    }
    free(va), free(vc), free(want), free(got);
}

/* Hand-computed: bias 1x2x1x1 (10, -1) onto 1x2x2x2 (0..7), alpha 2, beta 1 -> 2*b + c. */
static void add_by_hand(void)
{
    fd_tb_t A, C;
    fd_layout_t la = {.nb = 4, .dim = {1, 2, 1, 1}, .stride = {2, 1, 1, 1}},
                lc = {.nb = 4, .dim = {1, 2, 2, 2}, .stride = {8, 4, 2, 1}};
    fd_tb_init(&A, &la, CUDNN_DATA_FLOAT);
    fd_tb_init(&C, &lc, CUDNN_DATA_FLOAT);
    const double b[2] = {10, -1}, c[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    const double want[8] = {20, 21, 22, 23, 2, 3, 4, 5};
    fd_tb_scatter(&A, b);
    fd_tb_scatter(&C, c);
    float alpha = 2.0f, beta = 1.0f;
    CHECK(cudnnAddTensor(h_ref, &alpha, A.d, A.b.data, &beta, C.d, C.b.data));
    double got[8];
    fd_tb_gather(&C, got);
    FD_EXPECT(memcmp(got, want, sizeof got) == 0, "bias add by hand: got %g %g %g %g %g %g %g %g",
              got[0], got[1], got[2], got[3], got[4], got[5], got[6], got[7]);
    /* in place: A == C with the same descriptor, C = 0.5 C + 1 C */
    alpha = 0.5f;
    CHECK(cudnnAddTensor(h_ref, &alpha, C.d, C.b.data, &beta, C.d, C.b.data));
    fd_tb_gather(&C, got);
    FD_EXPECT(got[0] == 30 && got[7] == 7.5, "in-place add: %g %g", got[0], got[7]);
    fd_tb_free(&A);
    fd_tb_free(&C);
}

/* ---- OpTensor -------------------------------------------------------------------------------- */

static double oracle_op(cudnnOpTensorOp_t op, cudnnNanPropagation_t nan, double x, double y)
{
    switch (op) {
    case CUDNN_OP_TENSOR_ADD:
        return x + y;
    case CUDNN_OP_TENSOR_MUL:
        return x * y;
    case CUDNN_OP_TENSOR_MIN:
    case CUDNN_OP_TENSOR_MAX:
        if (isnan(x) || isnan(y)) {
            if (nan == CUDNN_PROPAGATE_NAN)
                return NAN;
            return isnan(x) ? y : x;
        }
        return op == CUDNN_OP_TENSOR_MIN ? fmin(x, y) : fmax(x, y);
    case CUDNN_OP_TENSOR_SQRT:
        return sqrt(x);
    default:
        return 1.0 - x;
    }
}

typedef struct {
    cudnnDataType_t ab, c, comp;
} op_types_t;
static const op_types_t op_rows[] = {
    {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_INT8, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_INT8, CUDNN_DATA_INT8, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT},
    {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE},
};
#define OP_ROWS ((int)(sizeof op_rows / sizeof op_rows[0]))

static const char *const op_names[6] = {"add", "mul", "min", "max", "sqrt", "not"};

static int nan_capable(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_DOUBLE || dt == CUDNN_DATA_HALF ||
           dt == CUDNN_DATA_BFLOAT16;
}

static void op_case(uint64_t seed, int op, int row, int nan_mode)
{
    fd_rng_t r;
    fd_rng_seed(&r, seed);
    op_types_t ty = op_rows[row];
    int unary = op == CUDNN_OP_TENSOR_SQRT || op == CUDNN_OP_TENSOR_NOT;
    int nb, cd[MAXD], bd[MAXD];
    random_dims(&r, &nb, cd);
    unsigned mask = (unsigned)fd_rng_int(&r, 0, (1 << nb) - 1);
    for (int i = 0; i < nb; i++)
        bd[i] = (mask >> i) & 1 ? 1 : cd[i];
    fd_layout_t la, lb, lc;
    int ka = fd_rng_int(&r, 0, FD_LAYOUT_COUNT - 1), kb = fd_rng_int(&r, 0, FD_LAYOUT_COUNT - 1),
        kc = fd_rng_int(&r, 0, FD_LAYOUT_COUNT - 1);
    fd_layout_random(&la, nb, cd, ka, &r);
    fd_layout_random(&lb, nb, bd, kb, &r);
    fd_layout_random(&lc, nb, cd, kc, &r);
    /* integer outputs: no ties to round (the library rounds to nearest even, the harness away) */
    int int_out = ty.c == CUDNN_DATA_INT8;
    double alpha1 = int_out ? (fd_rng_int(&r, 0, 1) ? 1.0 : -2.0) : alphas[fd_rng_int(&r, 0, 2)];
    double alpha2 = int_out ? 1.0 : alphas[fd_rng_int(&r, 0, 2)];
    double beta = int_out ? (double)fd_rng_int(&r, 0, 1) : betas[fd_rng_int(&r, 0, 2)];
    int inject_nan = nan_capable(ty.ab) && (op == CUDNN_OP_TENSOR_MIN || op == CUDNN_OP_TENSOR_MAX);

    int64_t n = lc.count, nbv = lb.count;
    double *va = malloc(sizeof(double) * (size_t)n), *vb = malloc(sizeof(double) * (size_t)nbv);
    double *vc = malloc(sizeof(double) * (size_t)n), *want = malloc(sizeof(double) * (size_t)n);
    double *got = malloc(sizeof(double) * (size_t)n);
    int lo = op == CUDNN_OP_TENSOR_SQRT ? 0 : -9, hi = int_out ? 90 : 9;
    for (int64_t k = 0; k < n; k++) {
        va[k] = fd_rng_int(&r, lo, hi);
        if (op == CUDNN_OP_TENSOR_SQRT)
            va[k] = va[k] * va[k]; /* perfect squares: sqrt exact */
        vc[k] = fd_rng_int(&r, -9, 9);
    }
    for (int64_t k = 0; k < nbv; k++)
        vb[k] = fd_rng_int(&r, int_out ? -90 : -9, int_out ? 90 : 9);
    if (inject_nan) {
        va[fd_rng_int(&r, 0, (int)n - 1)] = NAN;
        vb[fd_rng_int(&r, 0, (int)nbv - 1)] = NAN;
    }
    if (op == CUDNN_OP_TENSOR_SQRT && alpha1 < 0)
        alpha1 = int_out ? 1.0 : 0.25; /* keep sqrt's argument non-negative and exact */
    for (int64_t k = 0; k < n; k++) {
        int64_t rest = k, kb_idx = 0, mul = 1;
        for (int i = nb - 1; i >= 0; i--) {
            int64_t ix = rest % cd[i];
            rest /= cd[i];
            kb_idx += (bd[i] == 1 ? 0 : ix) * mul;
            mul *= bd[i];
        }
        double x = alpha1 * fd_test_round(ty.ab, va[k]),
               y = alpha2 * fd_test_round(ty.ab, vb[kb_idx]);
        double v =
            oracle_op((cudnnOpTensorOp_t)op, (cudnnNanPropagation_t)nan_mode, x, unary ? 0.0 : y);
        if (beta != 0.0)
            v += beta * fd_test_round(ty.c, vc[k]);
        want[k] = fd_test_round(ty.c, v);
    }
    cudnnOpTensorDescriptor_t od;
    CHECK(cudnnCreateOpTensorDescriptor(&od));
    CHECK(cudnnSetOpTensorDescriptor(od, (cudnnOpTensorOp_t)op, ty.comp,
                                     (cudnnNanPropagation_t)nan_mode));
    unsigned char *first = NULL;
    for (int hi2 = 0; hi2 < 2; hi2++) {
        fd_tb_t A, B, C;
        fd_tb_init(&A, &la, ty.ab);
        fd_tb_init(&B, &lb, ty.ab);
        fd_tb_init(&C, &lc, ty.c);
        fd_tb_scatter(&A, va);
        fd_tb_scatter(&B, vb);
        fd_buf_poison(&C.b);
        if (beta != 0.0)
            fd_tb_scatter(&C, vc);
        fd_tb_snap(&C);
        uint64_t ha = fd_buf_hash(&A.b), hb = fd_buf_hash(&B.b);
        fd_scalar_t s1 = fd_scalar(ty.c, alpha1), s2 = fd_scalar(ty.c, alpha2),
                    sb = fd_scalar(ty.c, beta);
        /* unary operators get no B at all */
        cudnnStatus_t st =
            cudnnOpTensor(hi2 ? h_cpu : h_ref, od, &s1, A.d, A.b.data, unary ? NULL : &s2,
                          unary ? NULL : B.d, unary ? NULL : B.b.data, &sb, C.d, C.b.data);
        FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "op %s seed=0x%llx: status %s", op_names[op],
                  (unsigned long long)seed, cudnnGetErrorString(st));
        fd_tb_gather(&C, got);
        int bad = -1;
        for (int64_t k = 0; k < n && bad < 0; k++)
            if (!fd_same_value(got[k], want[k]))
                bad = (int)k;
        FD_EXPECT(bad < 0,
                  "op %s nan=%d %s/%s comp %s %s,%s->%s a1=%g a2=%g beta=%g seed=0x%llx: C[%d] = "
                  "%g, want %g",
                  op_names[op], nan_mode, fd_test_dtype_short(ty.ab), fd_test_dtype_short(ty.c),
                  fd_test_dtype_short(ty.comp), fd_layout_name[ka], fd_layout_name[kb],
                  fd_layout_name[kc], alpha1, alpha2, beta, (unsigned long long)seed, bad,
                  bad >= 0 ? got[bad] : 0.0, bad >= 0 ? want[bad] : 0.0);
        FD_EXPECT(fd_tb_holes_ok(&C), "op seed=0x%llx: guard or hole of C changed",
                  (unsigned long long)seed);
        FD_EXPECT(fd_buf_hash(&A.b) == ha && fd_buf_hash(&B.b) == hb && fd_buf_guards_ok(&A.b) &&
                      fd_buf_guards_ok(&B.b),
                  "op seed=0x%llx: an input changed", (unsigned long long)seed);
        if (hi2 == 0) {
            first = malloc(C.b.size);
            memcpy(first, C.b.data, C.b.size);
        } else {
            FD_EXPECT(memcmp(first, C.b.data, C.b.size) == 0,
                      "op seed=0x%llx: ref and cpu bytes differ", (unsigned long long)seed);
            free(first);
        }
        fd_tb_free(&A), fd_tb_free(&B), fd_tb_free(&C);
    }
    cudnnDestroyOpTensorDescriptor(od);
    free(va), free(vb), free(vc), free(want), free(got);
}

/* Hand-computed rows: A = (4, -1, 9, NaN), B = (2, 3, -5, 7), alpha1 = 1, alpha2 = 2, beta 0. */
static void op_by_hand(void)
{
    static const struct {
        cudnnOpTensorOp_t op;
        cudnnNanPropagation_t nan;
        double want[4];
    } rows[] = {
        {CUDNN_OP_TENSOR_ADD, CUDNN_NOT_PROPAGATE_NAN, {8, 5, -1, NAN}},
        {CUDNN_OP_TENSOR_MUL, CUDNN_NOT_PROPAGATE_NAN, {16, -6, -90, NAN}},
        {CUDNN_OP_TENSOR_MIN, CUDNN_NOT_PROPAGATE_NAN, {4, -1, -10, 14}},
        {CUDNN_OP_TENSOR_MIN, CUDNN_PROPAGATE_NAN, {4, -1, -10, NAN}},
        {CUDNN_OP_TENSOR_MAX, CUDNN_NOT_PROPAGATE_NAN, {4, 6, 9, 14}},
        {CUDNN_OP_TENSOR_MAX, CUDNN_PROPAGATE_NAN, {4, 6, 9, NAN}},
        {CUDNN_OP_TENSOR_SQRT, CUDNN_NOT_PROPAGATE_NAN, {2, NAN, 3, NAN}},
        {CUDNN_OP_TENSOR_NOT, CUDNN_NOT_PROPAGATE_NAN, {-3, 2, -8, NAN}},
    };
    fd_layout_t l = {.nb = 4, .dim = {1, 4, 1, 1}, .stride = {4, 1, 1, 1}};
    fd_tb_t A, B, C;
    fd_tb_init(&A, &l, CUDNN_DATA_FLOAT);
    fd_tb_init(&B, &l, CUDNN_DATA_FLOAT);
    fd_tb_init(&C, &l, CUDNN_DATA_FLOAT);
    const double a[4] = {4, -1, 9, NAN}, b[4] = {2, 3, -5, 7};
    fd_tb_scatter(&A, a);
    fd_tb_scatter(&B, b);
    float a1 = 1, a2 = 2, beta = 0;
    cudnnOpTensorDescriptor_t od;
    CHECK(cudnnCreateOpTensorDescriptor(&od));
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        CHECK(cudnnSetOpTensorDescriptor(od, rows[i].op, CUDNN_DATA_FLOAT, rows[i].nan));
        fd_buf_poison(&C.b);
        CHECK(
            cudnnOpTensor(h_ref, od, &a1, A.d, A.b.data, &a2, B.d, B.b.data, &beta, C.d, C.b.data));
        double got[4];
        fd_tb_gather(&C, got);
        for (int k = 0; k < 4; k++)
            FD_EXPECT(fd_same_value(got[k], rows[i].want[k]),
                      "op %s nan=%d by hand: C[%d] = %g, want %g", op_names[rows[i].op],
                      (int)rows[i].nan, k, got[k], rows[i].want[k]);
    }
    /* descriptor round trip */
    cudnnOpTensorOp_t gop;
    cudnnDataType_t gct;
    cudnnNanPropagation_t gnan;
    CHECK(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_MAX, CUDNN_DATA_DOUBLE,
                                     CUDNN_PROPAGATE_NAN));
    CHECK(cudnnGetOpTensorDescriptor(od, &gop, &gct, &gnan));
    FD_EXPECT(gop == CUDNN_OP_TENSOR_MAX && gct == CUDNN_DATA_DOUBLE && gnan == CUDNN_PROPAGATE_NAN,
              "op-tensor descriptor round trip");
    /* in place: C = A = B, ADD with beta 1: C = 1 C + 2 C + 1 C = 4 C */
    CHECK(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT,
                                     CUDNN_NOT_PROPAGATE_NAN));
    fd_tb_scatter(&C, b);
    beta = 1;
    CHECK(cudnnOpTensor(h_ref, od, &a1, C.d, C.b.data, &a2, C.d, C.b.data, &beta, C.d, C.b.data));
    double got[4];
    fd_tb_gather(&C, got);
    FD_EXPECT(got[0] == 8 && got[1] == 12 && got[2] == -20 && got[3] == 28,
              "in-place op C=A=B: %g %g %g %g", got[0], got[1], got[2], got[3]);
    /* C = A only, MUL with beta 0: C = A * 2B */
    fd_tb_scatter(&C, a);
    beta = 0;
    CHECK(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_MUL, CUDNN_DATA_FLOAT,
                                     CUDNN_NOT_PROPAGATE_NAN));
    CHECK(cudnnOpTensor(h_ref, od, &a1, C.d, C.b.data, &a2, B.d, B.b.data, &beta, C.d, C.b.data));
    fd_tb_gather(&C, got);
    FD_EXPECT(got[0] == 16 && got[1] == -6 && got[2] == -90 && isnan(got[3]), "in-place op C=A");
    /* INT8 output: round to nearest even and saturate (2.5 -> 2, 3.5 -> 4, 200 -> 127, -300 ->
     * -128) */
    fd_tb_t A8, C8;
    fd_tb_init(&A8, &l, CUDNN_DATA_FLOAT);
    fd_tb_init(&C8, &l, CUDNN_DATA_INT8);
    const double a8[4] = {2.5, 3.5, 200, -300};
    fd_tb_scatter(&A8, a8);
    CHECK(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT,
                                     CUDNN_NOT_PROPAGATE_NAN));
    a2 = 0;
    CHECK(cudnnOpTensor(h_ref, od, &a1, A8.d, A8.b.data, &a2, A8.d, A8.b.data, &beta, C8.d,
                        C8.b.data));
    fd_tb_gather(&C8, got);
    FD_EXPECT(got[0] == 2 && got[1] == 4 && got[2] == 127 && got[3] == -128,
              "int8 output rounding: %g %g %g %g", got[0], got[1], got[2], got[3]);
    fd_tb_free(&A8), fd_tb_free(&C8);
    cudnnDestroyOpTensorDescriptor(od);
    fd_tb_free(&A), fd_tb_free(&B), fd_tb_free(&C);
}

/* ---- SetTensor / ScaleTensor ------------------------------------------------------------------
 */

static void set_scale_case(uint64_t seed)
{
    fd_rng_t r;
    fd_rng_seed(&r, seed);
    cudnnDataType_t dt = float_types[fd_rng_int(&r, 0, 3)];
    int nb, dim[MAXD];
    random_dims(&r, &nb, dim);
    fd_layout_t l;
    int k = fd_rng_int(&r, 0, FD_LAYOUT_COUNT - 1);
    fd_layout_random(&l, nb, dim, k, &r);
    int64_t n = l.count;
    double *v = malloc(sizeof(double) * (size_t)n), *got = malloc(sizeof(double) * (size_t)n);
    double value = fd_rng_int(&r, -50, 50) * 0.25, alpha = alphas[fd_rng_int(&r, 0, 2)];
    for (int64_t i = 0; i < n; i++)
        v[i] = fd_rng_int(&r, -16, 16);
    for (int hi = 0; hi < 2; hi++) {
        cudnnHandle_t h = hi ? h_cpu : h_ref;
        fd_tb_t Y;
        fd_tb_init(&Y, &l, dt);
        fd_buf_poison(&Y.b);
        fd_tb_snap(&Y);
        double sv_storage; /* one value of y's own type, as cuDNN documents valuePtr */
        fd_test_store(dt, &sv_storage, 0, value);
        CHECK(cudnnSetTensor(h, Y.d, Y.b.data, &sv_storage));
        fd_tb_gather(&Y, got);
        int bad = -1;
        for (int64_t i = 0; i < n && bad < 0; i++)
            if (got[i] != fd_test_round(dt, value))
                bad = (int)i;
        FD_EXPECT(bad < 0, "set %s %s value %g seed=0x%llx: y[%d] = %g", fd_test_dtype_short(dt),
                  fd_layout_name[k], value, (unsigned long long)seed, bad,
                  bad >= 0 ? got[bad] : 0.0);
        FD_EXPECT(fd_tb_holes_ok(&Y), "set seed=0x%llx: guard or hole changed",
                  (unsigned long long)seed);
        fd_tb_scatter(&Y, v);
        fd_tb_snap(&Y);
        fd_scalar_t sa = fd_scalar(dt, alpha);
        CHECK(cudnnScaleTensor(h, Y.d, Y.b.data, &sa));
        fd_tb_gather(&Y, got);
        bad = -1;
        for (int64_t i = 0; i < n && bad < 0; i++)
            if (got[i] != fd_test_round(dt, alpha * v[i]))
                bad = (int)i;
        FD_EXPECT(bad < 0, "scale %s %s alpha %g seed=0x%llx: y[%d] = %g", fd_test_dtype_short(dt),
                  fd_layout_name[k], alpha, (unsigned long long)seed, bad,
                  bad >= 0 ? got[bad] : 0.0);
        FD_EXPECT(fd_tb_holes_ok(&Y), "scale seed=0x%llx: guard or hole changed",
                  (unsigned long long)seed);
        fd_tb_free(&Y);
    }
    free(v), free(got);
}

/* The layout never changes the answer: one problem in NCHW, NHWC and padded strides. */
static void layout_invariance(void)
{
    int dim[4] = {2, 3, 4, 5};
    fd_rng_t r;
    fd_rng_seed(&r, 7);
    double va[120], vb[3], got[3][120];
    for (int i = 0; i < 120; i++)
        va[i] = fd_rng_int(&r, -9, 9);
    for (int i = 0; i < 3; i++)
        vb[i] = fd_rng_int(&r, -9, 9);
    cudnnOpTensorDescriptor_t od;
    CHECK(cudnnCreateOpTensorDescriptor(&od));
    CHECK(cudnnSetOpTensorDescriptor(od, CUDNN_OP_TENSOR_MAX, CUDNN_DATA_FLOAT,
                                     CUDNN_NOT_PROPAGATE_NAN));
    int bdim[4] = {1, 3, 1, 1};
    for (int k = 0; k < 3; k++) {
        fd_layout_t l, lb;
        fd_layout_random(&l, 4, dim, k, &r);
        fd_layout_random(&lb, 4, bdim, k, &r);
        fd_tb_t A, B, C;
        fd_tb_init(&A, &l, CUDNN_DATA_HALF);
        fd_tb_init(&B, &lb, CUDNN_DATA_HALF);
        fd_tb_init(&C, &l, CUDNN_DATA_HALF);
        fd_tb_scatter(&A, va);
        fd_tb_scatter(&B, vb);
        fd_buf_poison(&C.b);
        float one = 1, zero = 0;
        CHECK(cudnnOpTensor(h_ref, od, &one, A.d, A.b.data, &one, B.d, B.b.data, &zero, C.d,
                            C.b.data));
        fd_tb_gather(&C, got[k]);
        fd_tb_free(&A), fd_tb_free(&B), fd_tb_free(&C);
    }
    FD_EXPECT(memcmp(got[0], got[1], sizeof got[0]) == 0 &&
                  memcmp(got[0], got[2], sizeof got[0]) == 0,
              "NCHW, NHWC and padded layouts give different bits");
    cudnnDestroyOpTensorDescriptor(od);
}

int main(void)
{
    fd_handles_create(&h_ref, &h_cpu);
    uint64_t master = fd_test_sweep_seed(0x7e5047), one;
    int cases = (int)(200 * fd_test_scale());
    if (fd_test_seed_forced(&one)) {
        add_case(one);
        set_scale_case(one);
        for (int op = 0; op < 6; op++)
            op_case(one, op, 0, 0);
        return fd_test_finish();
    }
    add_by_hand();
    op_by_hand();
    layout_invariance();
    for (int i = 0; i < cases; i++)
        add_case(fd_test_mix(master, (uint64_t)i));
    for (int i = 0; i < cases / 2; i++)
        set_scale_case(fd_test_mix(master, 1000u + (uint64_t)i));
    int n = 0;
    for (int op = 0; op < 6; op++)
        for (int row = 0; row < OP_ROWS; row++)
            for (int nan = 0; nan < 2; nan++)
                for (int rep = 0; rep < 4; rep++)
                    op_case(fd_test_mix(master, 5000u + (uint64_t)n++), op, row, nan);
    cudnnDestroy(h_ref);
    cudnnDestroy(h_cpu);
    return fd_test_finish();
}
