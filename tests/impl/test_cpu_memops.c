/* SPDX-License-Identifier: MIT */
/*
 * test_cpu_memops.c - the cpu backend's memory-bound rows (src/cpu/activation_cpu.c,
 * tensor_ops_cpu.c) against the ref rows, through the public API with a ref handle and a cpu
 * handle on the same inputs.
 *
 * Every case runs the call on ref, on cpu with one OpenMP thread and on cpu with two, from the
 * same inputs and the same initial output (poisoned with NaN when beta = 0, filled when beta !=
 * 0), and requires the three outputs to be identical byte for byte: these operations are exact
 * elementwise (the cpu rows compute in double in the ref's order and round once), so equality
 * is the contract, for integer and for real fills alike. Exception: FLOAT SIGMOID / TANH / ELU /
 * SWISH forward and ELU / SWISH backward, computed with float polynomials (product decision
 * 2026-11-30), are held to a tolerance against ref (out_check_tol: 8 * 2^-24 relative to the
 * output, twice the bound measured in test_cpu_eltwise_fast.c) and to byte equality between
 * one and two threads. Inputs are checked unchanged.
 * Covered: activation forward / backward, every mode, both NaN options, NaN inputs;
 * AddTensor (full and bias broadcast), OpTensor (every op, b full and broadcast; FLOAT MAX and
 * ADD, the exact activation modes, also with 16 MiB outputs, the streamed stores), SetTensor,
 * ScaleTensor, TransformTensor (layout-changing copies);
 * dtypes FLOAT, DOUBLE, HALF, BFLOAT16; layouts NCHW, NHWC, padded strides and 5-d; odd sizes
 * and sizes above the threading threshold; alpha / beta (1, 0) and (0.5, 0.25); in place.
 */
#define _GNU_SOURCE
#include "memops_case.h"

/* ---- activation -------------------------------------------------------------------------- */

/* FLOAT SIGMOID / TANH / ELU / SWISH forward and ELU / SWISH backward use float polynomials
 * (src/cpu/activation_cpu.c, bounds measured in test_cpu_eltwise_fast.c: 4 ulp, swish backward
 * 8 * 2^-24 |dy| (s + |bx s (1 - s)|)); here each output is held to twice that, in a form
 * that needs no oracle of its own: |cpu - ref| <= 8 * 2^-24 (|ref| + 2 |beta old|) (the
 * blended product alpha v is at most |ref| + |beta old|), swish backward 16 * 2^-24 |alpha dy|
 * (1 + |beta_swish x|), plus 2^-23 |ref| (the two outputs' roundings) and 2^-140 (subnormal
 * results); NaN equals NaN, infinities
 * must match. One and two threads must still be identical byte for byte. */
static int act_tol_mode(cudnnDataType_t dt, cudnnActivationMode_t mode, int bwd)
{
    if (dt != CUDNN_DATA_FLOAT)
        return 0;
    if (bwd)
        return mode == CUDNN_ACTIVATION_ELU || mode == CUDNN_ACTIVATION_SWISH;
    return mode == CUDNN_ACTIVATION_SIGMOID || mode == CUDNN_ACTIVATION_TANH ||
           mode == CUDNN_ACTIVATION_ELU || mode == CUDNN_ACTIVATION_SWISH;
}

static void out_check_tol(outbuf_t *o, size_t n, double alpha, double beta, int swish_bwd,
                          double swish, const float *x, const float *dy, const char *what)
{
    const float *w = o->out[0], *old = o->init;
    cases++;
    if (!same_bits(CUDNN_DATA_FLOAT, o->out[1], o->out[2], o->bytes)) {
        failures++;
        fprintf(stderr, "FAIL %s: cpu with two threads differs from one\n", what);
    }
    for (size_t i = 0; i < n; i++) {
        float g = ((const float *)o->out[1])[i];
        if (g == w[i] || (g != g && w[i] != w[i]))
            continue;
        double ob = beta != 0.0 ? fabs(beta * old[i]) : 0.0;
        double tol = swish_bwd ? 16.0 * 0x1p-24 * fabs(alpha * dy[i]) * (1.0 + fabs(swish * x[i]))
                               : 8.0 * 0x1p-24 * (fabs(w[i]) + 2.0 * ob);
        tol += 0x1p-23 * fabs(w[i]) + 0x1p-140; /* the two roundings of the output, subnormals */
        if (!(fabs((double)g - (double)w[i]) <= tol)) {
            failures++;
            fprintf(stderr, "FAIL %s: element %zu got %.9g, ref %.9g (tolerance %.3g)\n", what, i,
                    g, w[i], tol);
            break;
        }
    }
    free(o->init);
    for (int r = 0; r < 3; r++)
        free(o->out[r]);
}

static void test_act(const shape_t *s, cudnnDataType_t dt, cudnnActivationMode_t mode,
                     cudnnNanPropagation_t nan, double alpha, double beta, int exact, int inplace,
                     const char *tag)
{
    char what[256];
    cudnnActivationDescriptor_t ad;
    CHECK(cudnnCreateActivationDescriptor(&ad));
    CHECK(cudnnSetActivationDescriptor(ad, mode, nan, mode == CUDNN_ACTIVATION_CLIPPED_RELU ? 2.5 : 0.75));
    if (mode == CUDNN_ACTIVATION_SWISH)
        CHECK(cudnnSetActivationDescriptorSwishBeta(ad, 1.5));
    cudnnTensorDescriptor_t td = desc_of(s, dt);
    size_t bytes = s->extent * dt_size(dt);
    void *x = malloc(bytes), *y = malloc(bytes), *dy = malloc(bytes), *xs = malloc(bytes);
    fill(dt, x, s->extent, exact, 1);
    fill(dt, dy, s->extent, exact, 0);
    memcpy(xs, x, bytes);
    unsigned char a8[8], b8[8];
    scal(dt, alpha, a8), scal(dt, beta, b8);
    /* forward */
    outbuf_t o;
    out_init(&o, dt, s->extent, inplace ? 0.0 : beta, exact);
    for (int r = 0; r < 3; r++) {
        if (inplace) {
            memcpy(o.out[r], x, bytes);
            CHECK(cudnnActivationForward(run_handle(r), ad, a8, td, o.out[r], b8, td, o.out[r]));
        } else {
            CHECK(cudnnActivationForward(run_handle(r), ad, a8, td, x, b8, td, o.out[r]));
        }
    }
    /* y of the ref run feeds the backward pass */
    memcpy(y, o.out[0], bytes);
    snprintf(what, sizeof what, "act fwd mode %d nan %d %s %s a %g b %g%s %s", (int)mode, (int)nan,
             dt_name(dt), tag, alpha, beta, inplace ? " in-place" : "", exact ? "int" : "real");
    if (act_tol_mode(dt, mode, 0))
        out_check_tol(&o, s->extent, alpha, inplace ? 0.0 : beta, 0, 1.5, xs, NULL, what);
    else
        out_check(&o, what);
    if (memcmp(x, xs, bytes) != 0) {
        failures++;
        fprintf(stderr, "FAIL %s: x changed\n", what);
    }
    if (!inplace) {
        outbuf_t g;
        out_init(&g, dt, s->extent, beta, exact);
        for (int r = 0; r < 3; r++)
            CHECK(cudnnActivationBackward(run_handle(r), ad, a8, td, y, td, dy, td, x, b8, td, g.out[r]));
        snprintf(what, sizeof what, "act bwd mode %d nan %d %s %s a %g b %g %s", (int)mode, (int)nan,
                 dt_name(dt), tag, alpha, beta, exact ? "int" : "real");
        if (act_tol_mode(dt, mode, 1))
            out_check_tol(&g, s->extent, alpha, beta, mode == CUDNN_ACTIVATION_SWISH, 1.5, xs, dy,
                          what);
        else
            out_check(&g, what);
    }
    free(x), free(y), free(dy), free(xs);
    cudnnDestroyTensorDescriptor(td);
    cudnnDestroyActivationDescriptor(ad);
}

/* ---- tensor ops -------------------------------------------------------------------------- */

static void test_add(const shape_t *c, const shape_t *a, cudnnDataType_t dt, double alpha,
                     double beta, const char *tag)
{
    char what[256];
    cudnnTensorDescriptor_t cd = desc_of(c, dt), ad = desc_of(a, dt);
    void *av = malloc(a->extent * dt_size(dt));
    fill(dt, av, a->extent, 0, 1);
    unsigned char a8[8], b8[8];
    scal(dt, alpha, a8), scal(dt, beta, b8);
    outbuf_t o;
    out_init(&o, dt, c->extent, beta, 0);
    for (int r = 0; r < 3; r++)
        CHECK(cudnnAddTensor(run_handle(r), a8, ad, av, b8, cd, o.out[r]));
    snprintf(what, sizeof what, "add %s %s a %g b %g", dt_name(dt), tag, alpha, beta);
    out_check(&o, what);
    free(av);
    cudnnDestroyTensorDescriptor(cd), cudnnDestroyTensorDescriptor(ad);
}

/* OpTensor's alpha1, alpha2 (1, 1 selects the cpu row's float-only loops) */
static double op_a1 = 0.5, op_a2 = -1.25;

static void test_op(const shape_t *c, const shape_t *b, cudnnDataType_t dt, cudnnOpTensorOp_t op,
                    cudnnNanPropagation_t nan, double beta, const char *tag)
{
    char what[256];
    cudnnDataType_t comp = dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    cudnnOpTensorDescriptor_t od;
    CHECK(cudnnCreateOpTensorDescriptor(&od));
    CHECK(cudnnSetOpTensorDescriptor(od, op, comp, nan));
    cudnnTensorDescriptor_t cd = desc_of(c, dt), bd = desc_of(b, dt);
    void *av = malloc(c->extent * dt_size(dt)), *bv = malloc(b->extent * dt_size(dt));
    fill(dt, av, c->extent, 0, 1);
    fill(dt, bv, b->extent, 0, 1);
    unsigned char a1[8], a2[8], b8[8];
    scal(dt, op_a1, a1), scal(dt, op_a2, a2), scal(dt, beta, b8);
    outbuf_t o;
    out_init(&o, dt, c->extent, beta, 0);
    for (int r = 0; r < 3; r++)
        CHECK(cudnnOpTensor(run_handle(r), od, a1, cd, av, a2, bd, bv, b8, cd, o.out[r]));
    snprintf(what, sizeof what, "op %d nan %d %s %s a %g %g b %g", (int)op, (int)nan, dt_name(dt),
             tag, op_a1, op_a2, beta);
    out_check(&o, what);
    free(av), free(bv);
    cudnnDestroyTensorDescriptor(cd), cudnnDestroyTensorDescriptor(bd);
    cudnnDestroyOpTensorDescriptor(od);
}

static void test_set_scale(const shape_t *s, cudnnDataType_t dt, const char *tag)
{
    char what[256];
    cudnnTensorDescriptor_t d = desc_of(s, dt);
    unsigned char v8[8], a8[8];
    if (dt == CUDNN_DATA_FLOAT)
        *(float *)v8 = 1.3f;
    else if (dt == CUDNN_DATA_DOUBLE)
        *(double *)v8 = 1.3;
    else
        put(dt, v8, 0, 1.3);
    scal(dt, 0.3, a8);
    outbuf_t o;
    out_init(&o, dt, s->extent, 1.0, 0);
    for (int r = 0; r < 3; r++)
        CHECK(cudnnSetTensor(run_handle(r), d, o.out[r], v8));
    snprintf(what, sizeof what, "set %s %s", dt_name(dt), tag);
    out_check(&o, what);
    out_init(&o, dt, s->extent, 1.0, 0);
    for (int r = 0; r < 3; r++)
        CHECK(cudnnScaleTensor(run_handle(r), d, o.out[r], a8));
    snprintf(what, sizeof what, "scale %s %s", dt_name(dt), tag);
    out_check(&o, what);
    cudnnDestroyTensorDescriptor(d);
}

static void test_transform(const shape_t *y, const shape_t *x, cudnnDataType_t dt, double beta,
                           const char *tag)
{
    char what[256];
    cudnnTensorDescriptor_t yd = desc_of(y, dt), xd = desc_of(x, dt);
    void *xv = malloc(x->extent * dt_size(dt));
    fill(dt, xv, x->extent, 0, 1);
    unsigned char a8[8], b8[8];
    scal(dt, 0.75, a8), scal(dt, beta, b8);
    outbuf_t o;
    out_init(&o, dt, y->extent, beta, 0);
    for (int r = 0; r < 3; r++)
        CHECK(cudnnTransformTensor(run_handle(r), a8, xd, xv, b8, yd, o.out[r]));
    snprintf(what, sizeof what, "transform %s %s b %g", dt_name(dt), tag, beta);
    out_check(&o, what);
    free(xv);
    cudnnDestroyTensorDescriptor(yd), cudnnDestroyTensorDescriptor(xd);
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

    const int small[4] = {2, 5, 7, 3}, big[4] = {2, 33, 63, 65}, five[5] = {2, 3, 4, 5, 7};
    const double ab[2][2] = {{1.0, 0.0}, {0.5, 0.25}};
    const cudnnActivationMode_t modes[] = {CUDNN_ACTIVATION_SIGMOID, CUDNN_ACTIVATION_RELU,
                                           CUDNN_ACTIVATION_TANH,    CUDNN_ACTIVATION_CLIPPED_RELU,
                                           CUDNN_ACTIVATION_ELU,     CUDNN_ACTIVATION_IDENTITY,
                                           CUDNN_ACTIVATION_SWISH};
    for (int l = 0; l < L_COUNT; l++) {
        shape_t s = make_shape(4, small, (layout_t)l), b = make_shape(4, big, (layout_t)l);
        shape_t s5 = make_shape(5, five, (layout_t)l);
        char tag[64], tagb[64], tag5[64];
        snprintf(tag, sizeof tag, "%s 2x5x7x3", layout_name[l]);
        snprintf(tagb, sizeof tagb, "%s 2x33x63x65", layout_name[l]);
        snprintf(tag5, sizeof tag5, "%s 5d", layout_name[l]);
        for (int di = 0; di < 4; di++) {
            cudnnDataType_t dt = dtypes[di];
            cur_dt = dt;
            for (int m = 0; m < 7; m++)
                for (int nan = 0; nan < 2; nan++)
                    for (int k = 0; k < 2; k++)
                        for (int exact = 0; exact < 2; exact++)
                            test_act(&s, dt, modes[m], (cudnnNanPropagation_t)nan, ab[k][0], ab[k][1],
                                     exact, 0, tag);
            test_act(&s5, dt, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.5, 0.25, 0, 0, tag5);
            test_act(&s, dt, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 1, 0, 0, 1, tag);
            test_act(&s, dt, CUDNN_ACTIVATION_SIGMOID, CUDNN_NOT_PROPAGATE_NAN, 1, 0, 0, 1, tag);
            int bcast_dim[4] = {1, small[1], 1, 1}, bcast_big[4] = {1, big[1], 1, 1};
            shape_t bc = make_shape(4, bcast_dim, L_NCHW), bcb = make_shape(4, bcast_big, L_NCHW);
            for (int k = 0; k < 2; k++) {
                test_add(&s, &s, dt, ab[k][0], ab[k][1], tag);
                test_add(&s, &bc, dt, ab[k][0], ab[k][1], tag);
                for (int op = 0; op <= (int)CUDNN_OP_TENSOR_NOT; op++)
                    for (int nan = 0; nan < 2; nan++) {
                        test_op(&s, &s, dt, (cudnnOpTensorOp_t)op, (cudnnNanPropagation_t)nan, ab[k][1], tag);
                        test_op(&s, &bc, dt, (cudnnOpTensorOp_t)op, (cudnnNanPropagation_t)nan, ab[k][1], tag);
                    }
                shape_t xo = make_shape(4, small, (layout_t)((l + 1) % L_COUNT));
                test_transform(&s, &xo, dt, ab[k][1], tag);
            }
            /* unit alphas, beta 0: FLOAT's one-operation maps (on AVX2 op_map8: b full, per
             * channel as a run of one value in NCHW, a replicated row in NHWC) */
            op_a1 = 1.0, op_a2 = 1.0;
            for (int op = 0; op <= (int)CUDNN_OP_TENSOR_MAX; op++)
                for (int nan = 0; nan < 2; nan++) {
                    test_op(&s, &s, dt, (cudnnOpTensorOp_t)op, (cudnnNanPropagation_t)nan, 0.0,
                            tag);
                    test_op(&s, &bc, dt, (cudnnOpTensorOp_t)op, (cudnnNanPropagation_t)nan, 0.0,
                            tag);
                }
            op_a1 = 0.5, op_a2 = -1.25;
            test_set_scale(&s, dt, tag);
            test_set_scale(&s5, dt, tag5);
            if (dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_HALF) { /* above the threading threshold */
                for (int m = 0; m < 7; m++)
                    test_act(&b, dt, modes[m], CUDNN_PROPAGATE_NAN, 0.5, 0.25, 0, 0, tagb);
                test_act(&b, dt, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 1, 0, 0, 1, tagb);
                test_add(&b, &bcb, dt, 1.0, 1.0, tagb);
                test_add(&b, &b, dt, 0.5, 0.25, tagb);
                test_op(&b, &b, dt, CUDNN_OP_TENSOR_MUL, CUDNN_NOT_PROPAGATE_NAN, 0.25, tagb);
                test_op(&b, &bcb, dt, CUDNN_OP_TENSOR_MAX, CUDNN_PROPAGATE_NAN, 0.0, tagb);
                /* NHWC with the per-channel operand: flat runs over its replicated row
                 * (tensor_ops_cpu.c bcast_rows_run), every binary op, unit and other alphas */
                if (l == L_NHWC)
                    for (int op = 0; op <= (int)CUDNN_OP_TENSOR_MAX; op++)
                        for (int k = 0; k < 2; k++) {
                            op_a1 = k ? 0.5 : 1.0, op_a2 = k ? -1.25 : 1.0;
                            test_op(&b, &bcb, dt, (cudnnOpTensorOp_t)op,
                                    (cudnnNanPropagation_t)(op & 1), ab[k][1], tagb);
                            op_a1 = 0.5, op_a2 = -1.25;
                            test_add(&b, &bcb, dt, ab[k][0], ab[k][1], tagb);
                        }
                test_set_scale(&b, dt, tagb);
                for (int l2 = 0; l2 < L_COUNT; l2++) {
                    shape_t x = make_shape(4, big, (layout_t)l2);
                    test_transform(&b, &x, dt, 0.25, tagb);
                }
            }
        }
    }
    /* outputs of 16 MiB or more with beta 0 (streamed; FLOAT OpTensor in 64-byte stores on
     * AVX-512 since 2026-12-01): MAX and ADD with the per-channel operand and a full one, unit
     * and other alphas, NCHW and NHWC (malloc's 16-byte alignment: partial first lines) */
    {
        const int huge[4] = {2, 64, 180, 190}, hb[4] = {1, 64, 1, 1};
        cur_dt = CUDNN_DATA_FLOAT;
        for (int l = 0; l < 2; l++) {
            shape_t h = make_shape(4, huge, (layout_t)l), hc = make_shape(4, hb, L_NCHW);
            char tagh[64];
            snprintf(tagh, sizeof tagh, "%s 2x64x180x190", layout_name[l]);
            for (int k = 0; k < 2; k++) {
                op_a1 = k ? 0.5 : 1.0, op_a2 = k ? -1.25 : 1.0;
                test_op(&h, &hc, CUDNN_DATA_FLOAT, CUDNN_OP_TENSOR_MAX, CUDNN_NOT_PROPAGATE_NAN,
                        0.0, tagh);
                test_op(&h, &h, CUDNN_DATA_FLOAT, CUDNN_OP_TENSOR_ADD, CUDNN_PROPAGATE_NAN, 0.0,
                        tagh);
            }
            op_a1 = 0.5, op_a2 = -1.25;
            /* the exact activation modes with alpha 1, beta 0: on AVX2 float maps streamed from
             * registers, 32-byte stores from the output's first 32-byte boundary */
            const cudnnActivationMode_t em[3] = {
                CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_ACTIVATION_IDENTITY};
            for (int m = 0; m < 4; m++)
                test_act(&h, CUDNN_DATA_FLOAT, em[m % 3], (cudnnNanPropagation_t)(m & 1), 1.0, 0.0,
                         0, 0, tagh);
        }
    }
    printf("test_cpu_memops: %d cases, %d failures\n", cases, failures);
    cudnnDestroy(h_ref);
    cudnnDestroy(h_cpu);
    return failures ? 1 : 0;
}
