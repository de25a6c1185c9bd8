/* SPDX-License-Identifier: MIT */
/*
 * test_cpu_eltwise_fast.c - the fast paths of the cpu elementwise rows (src/cpu/memop.h,
 * activation_cpu.c, tensor_ops_cpu.c) against the ref rows, through the public API.
 *
 * Tolerances. The FLOAT transcendental modes (SIGMOID, TANH, ELU, SWISH forward; ELU, SWISH
 * backward) use float polynomials (product decision 2026-11-30: no bit identity with ref), so
 * against ref they are held to the bound activation_cpu.c states: with alpha = 1, beta = 0,
 * at most ULP_BOUND = 4 floats from the ref's result (libm's double value rounded once;
 * measured worst on this sweep: 3 ulp for tanh and swish, 2 for sigmoid, ELU and ELU backward);
 * backward SWISH within SWISH_BWD_BOUND = 8 x 2^-24 |dy| (s + |beta x s (1 - s)|) (measured
 * 4.0: near the derivative's root no relative bound holds); with a blend, |got - ref| <=
 * 4 ulp(|alpha| v) beyond one ulp of the output. HALF and BFLOAT16 outputs of those modes, and
 * everything else here, must equal ref's bytes: the 16-bit types bracket the float kernel
 * (activation_cpu.c) and recompute the undecided lanes with the scalar definitions. In every
 * case one thread, two threads and two threads capped to AVX2 (FREEDNN_CPU_ISA=avx2, unless
 * the caller set a cap) must give identical bytes (NaN equals NaN where inputs hold NaN,
 * memops_case.h's rule), and the AVX2 run the bytes of the same run with
 * FREEDNN_CPU_ACT_AVX2_C=1 (the C that activation_cpu.c's lockstep forward kernels restate).
 * Covered:
 * - the raw error of memop.h's fd_cpu_exp_v / fd_cpu_expm1_v against libm over [-700, 700]
 *   (dense grid plus random points) and of fd_cpu_recip_v over [1, 2^100] (the exact fallback
 *   of the transcendental modes, used without AVX2+FMA and for DOUBLE): each must stay
 *   below 2^-44 relative, 16x inside the 2^-40 interval activation_cpu.c relies on;
 * - every float in [-100, 100] step 1e-3 plus the edges (|x| near 700, huge, tiny, +-0, inf,
 *   NaN)
 *   and 20000 log-uniform magnitudes in [2^-30, 2^10] through SIGMOID, TANH, ELU, SWISH
 *   forward and ELU, SWISH backward, f32, f16 and bf16 (the grid rounded to the type), alpha /
 *   beta pairs (1, 0), (0.5, 0.25), (-2, 1), for ELU / SWISH coef / beta values of either sign
 *   and swish beta 0;
 * - RELU, CLIPPED_RELU and IDENTITY, both directions, with and without a blend, on the same
 *   wide floats (test_exact_modes: the float maps' bytes, NaN payloads included);
 * - OpTensor ADD / MUL / MIN / MAX with alpha1 = alpha2 = 1, beta = 0 (tensor_ops_cpu.c
 *   computes them in float) on floats of every exponent, NaN, infinities, signed zeros, full
 *   and broadcast b, both NaN options;
 * - every half and every bfloat16 encoding through ScaleTensor (several alphas: ties,
 *   subnormals, overflow) and IDENTITY with a beta blend (sums that are not one operation on
 *   16-bit values, where one rounding from double matters);
 * - outputs above the streaming-store threshold (16 MiB): activation fwd / bwd (FLOAT sigmoid
 *   and ELU backward within ULP_BOUND of ref, the rest byte for byte), OpTensor,
 *   AddTensor with beta = 0, SetTensor and NCHW <-> NHWC TransformTensor, with the output
 *   pointer aligned and misaligned by one element (sigmoid and ELU backward with alpha 1, beta
 *   0, the float rows' unblended output, also by four: 16 and 32-byte alignment), and in place
 *   (no streaming);
 * - the exact rows' target_clones ignore FREEDNN_CPU_ISA (picked at load time), so those ISA
 *   levels are compared by ctest running this program on machines of each kind.
 */
#define _GNU_SOURCE
#include "memops_case.h"

/* for fd_cpu_exp_v / fd_cpu_expm1_v (static inline): the engine's OpenMP pragma and its
 * unused helpers are not this program's */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../../src/cpu/memop.h"
#pragma GCC diagnostic pop

/* ---- the raw approximation ------------------------------------------------------------------ */

static double rel_err(double got, double want)
{
    if (got == want)
        return 0.0;
    return fabs(got - want) / fabs(want);
}

static void test_exp_error(void)
{
    double worst_exp = 0.0, worst_em1 = 0.0, at_exp = 0.0, at_em1 = 0.0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i <= 1400000; i++) {
            double x = pass == 0 ? -700.0 + i * 1e-3 : (urand() * 2.0 - 1.0) * (urand() < 0.5 ? 700.0 : 1.0);
            double e = rel_err(fd_cpu_exp_v(x), exp(x)), m = rel_err(fd_cpu_expm1_v(x), expm1(x));
            if (e > worst_exp)
                worst_exp = e, at_exp = x;
            if (m > worst_em1)
                worst_em1 = m, at_em1 = x;
        }
    double worst_rcp = 0.0, at_rcp = 0.0;
    for (int i = 0; i < 2000000; i++) {
        double d = exp2(urand() * 100.0) * (1.0 + urand() * 1e-3);
        double e = rel_err(fd_cpu_recip_v(d), 1.0 / d);
        if (e > worst_rcp)
            worst_rcp = e, at_rcp = d;
    }
    cases++;
    printf("fd_cpu_recip_v: max relative error %.3g (2^%.1f) at %.17g\n", worst_rcp,
           log2(worst_rcp + 1e-300), at_rcp);
    if (!(worst_rcp < 0x1p-44)) {
        failures++;
        fprintf(stderr, "FAIL reciprocal approximation above 2^-44 relative\n");
    }
    cases++;
    printf("fd_cpu_exp_v: max relative error %.3g (2^%.1f) at %.17g; fd_cpu_expm1_v: %.3g (2^%.1f) at %.17g\n",
           worst_exp, log2(worst_exp + 1e-300), at_exp, worst_em1, log2(worst_em1 + 1e-300), at_em1);
    if (!(worst_exp < 0x1p-44 && worst_em1 < 0x1p-44)) {
        failures++;
        fprintf(stderr, "FAIL exp / expm1 approximation above 2^-44 relative\n");
    }
}

/* ---- helpers ------------------------------------------------------------------------------ */

static cudnnTensorDescriptor_t desc_1d(cudnnDataType_t dt, int n)
{
    cudnnTensorDescriptor_t d;
    CHECK(cudnnCreateTensorDescriptor(&d));
    CHECK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, dt, 1, 1, 1, n));
    return d;
}

/* Compares run r's output with ref's; strict: every byte, else NaN equals NaN. */
static void expect_same(cudnnDataType_t dt, const void *want, const void *got, size_t bytes,
                        int strict, const char *what)
{
    cases++;
    int ok = strict ? memcmp(want, got, bytes) == 0 : same_bits(dt, want, got, bytes);
    if (!ok) {
        failures++;
        size_t es = dt_size(dt), i = 0;
        while (i < bytes / es && memcmp((const char *)want + i * es, (const char *)got + i * es, es) == 0)
            i++;
        fprintf(stderr, "FAIL %s: first difference at element %zu\n", what, i);
    }
}

/* ---- transcendental modes, every float of a grid ------------------------------------------ */

static float *sweep_inputs(int *count)
{
    const int grid = 200001;
    static const float edges[] = {
        0.0f,     -0.0f,     1e-30f,  -1e-30f, 1e-45f,  -1e-45f, 699.9f,     -699.9f,     700.0f,
        -700.0f,  700.1f,    -700.1f, 350.0f,  -350.0f, 709.0f,  -745.0f,    1e30f,       -1e30f,
        INFINITY, -INFINITY, 20.0f,   -20.0f,  19.999f, 20.001f, 0.3465736f, -0.3465736f, 1e-8f,
        -1e-8f,   88.7f,     -88.7f,  103.9f,  -103.9f, 3.4e38f, -3.4e38f,   NAN,         -NAN};
    int ne = (int)(sizeof edges / sizeof edges[0]);
    float *x = malloc(sizeof(float) * (size_t)(grid + ne + 20000));
    int n = 0;
    for (int i = 0; i < grid; i++)
        x[n++] = (float)(-100.0 + i * 1e-3);
    for (int i = 0; i < ne; i++)
        x[n++] = edges[i];
    for (int i = 0; i < 20000; i++) /* log-uniform magnitudes from 2^-30 to 2^10 */
        x[n++] = (float)((urand() < 0.5 ? -1.0 : 1.0) * exp2(urand() * 40.0 - 30.0));
    *count = n;
    return x;
}

/* Distance in floats between a and b (0 for equal values, +0 / -0 and NaN / NaN alike); a
 * large number when one is NaN or infinite and the other is not. */
static double ulp_dist(float a, float b)
{
    if (a == b || (a != a && b != b))
        return 0.0;
    if (a != a || b != b || isinf(a) || isinf(b))
        return 1e30;
    int32_t ia, ib;
    memcpy(&ia, &a, 4), memcpy(&ib, &b, 4);
    int64_t oa = ia < 0 ? -(int64_t)(ia & 0x7fffffff) : ia, ob = ib < 0 ? -(int64_t)(ib & 0x7fffffff) : ib;
    return fabs((double)(oa - ob));
}

/* The bounds this file asserts (activation_cpu.c's header states the same numbers). FLOAT:
 * forward SIGMOID / TANH / ELU / SWISH and backward ELU within ULP_BOUND floats of the ref's
 * result (libm's double value rounded once); backward SWISH within SWISH_BWD_BOUND * 2^-24
 * |dy| (s + |beta x s (1 - s)|), s = sigmoid(beta x) (its root at beta x ~ -1.28 admits no
 * relative bound); with a blend, |got - ref| <= ULP_BOUND ulp(|alpha| v) + 1 ulp(ref): the
 * kernel's error scaled by alpha plus the output's rounding. HALF / BFLOAT16: the ref's bits. */
#define ULP_BOUND 4.0
#define SWISH_BWD_BOUND 8.0

/* FLOAT outputs within ULP_BOUND floats of ref's (NaN equals NaN). */
static void expect_close_f32(const void *want, const void *got, size_t n, const char *what)
{
    const float *w = want, *g = got;
    cases++;
    for (size_t i = 0; i < n; i++)
        if (!(ulp_dist(g[i], w[i]) <= ULP_BOUND)) {
            failures++;
            fprintf(stderr, "FAIL %s: element %zu got %.9g, ref %.9g\n", what, i, g[i], w[i]);
            return;
        }
}

static double sigmoid_d(double z)
{
    return z >= 0 ? 1.0 / (1.0 + exp(-z)) : exp(z) / (1.0 + exp(z));
}

static double float_ulp(double v)
{
    float f = fabsf((float)v);
    if (!(f < INFINITY))
        return 0.0;
    return (double)nextafterf(f, INFINITY) - (double)f;
}

static void test_transcendental(cudnnDataType_t dt)
{
    int n;
    float *xf = sweep_inputs(&n);
    const size_t es = dt_size(dt), bytes = es * (size_t)n;
    char *x = malloc(bytes), *dy = malloc(bytes), *old = malloc(bytes), *out[5],
         *v1 = malloc(bytes);
    for (int i = 0; i < n; i++) {
        put(dt, x, (size_t)i, xf[i]);
        put(dt, dy, (size_t)i, urand() * 4.0 - 2.0);
        put(dt, old, (size_t)i, urand() * 4.0 - 2.0);
    }
    for (int r = 0; r < 5; r++)
        out[r] = malloc(bytes);
    cudnnTensorDescriptor_t d = desc_1d(dt, n);
    const double ab[3][2] = {{1.0, 0.0}, {0.5, 0.25}, {-2.0, 1.0}};
    const struct {
        cudnnActivationMode_t mode;
        double coef, swish;
        int bwd;
    } modes[] = {
        {CUDNN_ACTIVATION_SIGMOID, 0.0, 1.0, 0}, {CUDNN_ACTIVATION_TANH, 0.0, 1.0, 0},
        {CUDNN_ACTIVATION_ELU, 1.0, 1.0, 0},     {CUDNN_ACTIVATION_ELU, -0.3, 1.0, 0},
        {CUDNN_ACTIVATION_SWISH, 0.0, 1.0, 0},   {CUDNN_ACTIVATION_SWISH, 0.0, -2.5, 0},
        {CUDNN_ACTIVATION_SWISH, 0.0, 0.0, 0},   {CUDNN_ACTIVATION_SWISH, 0.0, 0.3, 0},
        {CUDNN_ACTIVATION_ELU, 1.0, 1.0, 1},     {CUDNN_ACTIVATION_ELU, 2.5, 1.0, 1},
        {CUDNN_ACTIVATION_SWISH, 0.0, 1.0, 1},   {CUDNN_ACTIVATION_SWISH, 0.0, -2.5, 1},
        {CUDNN_ACTIVATION_SWISH, 0.0, 0.0, 1},   {CUDNN_ACTIVATION_SWISH, 0.0, 0.3, 1},
    };
    static const char *const mname[] = {"sigmoid", "relu", "tanh", "clipped", "elu", "identity", "swish"};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        cudnnActivationDescriptor_t ad;
        CHECK(cudnnCreateActivationDescriptor(&ad));
        CHECK(cudnnSetActivationDescriptor(ad, modes[m].mode, CUDNN_PROPAGATE_NAN, modes[m].coef));
        CHECK(cudnnSetActivationDescriptorSwishBeta(ad, modes[m].swish));
        const int swish_bwd = modes[m].bwd && modes[m].mode == CUDNN_ACTIVATION_SWISH;
        char name[96];
        snprintf(name, sizeof name, "act %s %s %s coef %g beta %g", dt_name(dt),
                 modes[m].bwd ? "bwd" : "fwd", mname[modes[m].mode], modes[m].coef, modes[m].swish);
        for (int k = 0; k < 3; k++) {
            float al = (float)ab[k][0], be = (float)ab[k][1];
            /* runs: 0 ref, 1 cpu one thread, 2 cpu two threads, 3 cpu two threads capped to AVX2,
             * 4 as 3 with FREEDNN_CPU_ACT_AVX2_C=1 (the C that the AVX2 forward kernels in
             * lockstep, activation_cpu.c tr_y_, restate: the same bits) */
            for (int r = 0; r < 5; r++) {
                if (be != 0.0f)
                    memcpy(out[r], old, bytes);
                else
                    memset(out[r], 0xff, bytes);
                const int cap =
                    r >= 3 && getenv("FREEDNN_CPU_ISA") == NULL; /* a caller's cap stays */
                if (cap)
                    setenv("FREEDNN_CPU_ISA", "avx2", 1);
                if (r == 4)
                    setenv("FREEDNN_CPU_ACT_AVX2_C", "1", 1);
                cudnnHandle_t h = run_handle(r < 3 ? r : 2);
                if (modes[m].bwd)
                    CHECK(cudnnActivationBackward(h, ad, &al, d, x, d, dy, d, x, &be, d, out[r]));
                else
                    CHECK(cudnnActivationForward(h, ad, &al, d, x, &be, d, out[r]));
                if (cap)
                    unsetenv("FREEDNN_CPU_ISA");
                unsetenv("FREEDNN_CPU_ACT_AVX2_C");
            }
            char what[200];
            for (int r = 2; r < 5; r++) { /* thread count, ISA level and kernel change no bit */
                snprintf(what, sizeof what, "%s alpha %g beta %g: %s vs %s", name, ab[k][0],
                         ab[k][1],
                         r == 2   ? "two threads"
                         : r == 3 ? "AVX2 (two threads)"
                                  : "AVX2 C (two threads)",
                         r == 4 ? "AVX2" : "one thread");
                expect_same(dt, out[r == 4 ? 3 : 1], out[r], bytes, 1, what);
            }
            snprintf(what, sizeof what, "%s alpha %g beta %g vs ref", name, ab[k][0], ab[k][1]);
            if (dt != CUDNN_DATA_FLOAT) { /* bracketed: the ref's bits */
                expect_same(dt, out[0], out[1], bytes, 1, what);
                continue;
            }
            if (k == 0)
                memcpy(v1, out[0], bytes);
            const float *want = (const float *)(const void *)out[0], *got = (const float *)(const void *)out[1];
            const float *fv = (const float *)(const void *)v1, *fx = (const float *)(const void *)x;
            const float *fg = (const float *)(const void *)dy;
            double worst = 0.0;
            int at = -1, bad = -1;
            for (int i = 0; i < n; i++) {
                double e;
                if (k == 0 && !swish_bwd) {
                    e = ulp_dist(got[i], want[i]);
                } else if (swish_bwd) {
                    double bx = modes[m].swish * fx[i], sg = modes[m].swish == 0.0 ? 0.5 : sigmoid_d(bx);
                    double scale = 0x1p-24 * fabs(ab[k][0] * fg[i]) * (sg + fabs(bx * sg * (1.0 - sg)));
                    double diff = fabs((double)got[i] - (double)want[i]);
                    e = got[i] == want[i] || (got[i] != got[i] && want[i] != want[i]) ? 0.0
                        : isinf(fx[i]) ? ulp_dist(got[i], want[i])
                                       : (diff - float_ulp(want[i])) / scale;
                    if (e < 0.0)
                        e = 0.0;
                } else { /* blend: in units of ulp(|alpha| v) after one ulp of the output */
                    double diff = fabs((double)got[i] - (double)want[i]);
                    double u = float_ulp(fabs(ab[k][0]) * fv[i]);
                    e = got[i] == want[i] || (got[i] != got[i] && want[i] != want[i]) ? 0.0
                        : u > 0.0 ? (diff - float_ulp(want[i])) / u : 1e30;
                    if (e < 0.0)
                        e = 0.0;
                }
                if (e > worst)
                    worst = e, at = i;
                if (bad < 0 && !(e <= (swish_bwd ? SWISH_BWD_BOUND : ULP_BOUND)))
                    bad = i;
            }
            cases++;
            if (k == 0 || bad >= 0)
                printf("%s: worst %.3g %s at x = %.9g (got %.9g, ref %.9g)\n", what, worst,
                       swish_bwd ? "x 2^-24 |dy| (s + |bx s (1 - s)|)" : k == 0 ? "ulp" : "ulp(alpha v) beyond 1 ulp",
                       at >= 0 ? fx[at] : 0.0, at >= 0 ? got[at] : 0.0, at >= 0 ? want[at] : 0.0);
            if (bad >= 0) {
                failures++;
                fprintf(stderr, "FAIL %s: element %d (x = %.9g) got %.9g, ref %.9g, beyond the bound\n",
                        what, bad, fx[bad], got[bad], want[bad]);
            }
        }
        cudnnDestroyActivationDescriptor(ad);
    }
    cudnnDestroyTensorDescriptor(d);
    for (int r = 0; r < 5; r++)
        free(out[r]);
    free(xf), free(x), free(dy), free(old), free(v1);
}

/* ---- OpTensor with alpha1 = alpha2 = 1, beta = 0 (computed in float) -------------------- */

/* Floats of every magnitude and sign (exponents 2^-149 .. 2^127, so sums lose bits and
 * products overflow and underflow), with NaN, infinities and zeros of both signs. */
static void wide_floats(float *p, int n)
{
    for (int i = 0; i < n; i++) {
        uint32_t b = (uint32_t)(urand() * 4294967296.0);
        float f;
        memcpy(&f, &b, 4);
        if (urand() < 0.5) /* half of them near 1, where sums round */
            f = (float)((urand() * 2.0 - 1.0) * exp2(urand() * 60.0 - 30.0));
        p[i] = f;
    }
    p[0] = 0.0f, p[1] = -0.0f, p[2] = INFINITY, p[3] = -INFINITY, p[4] = NAN;
}

static void test_op_unit(void)
{
    const int c = 37, hw = 1001, n = c * hw;
    float *a = malloc(sizeof(float) * (size_t)n), *b = malloc(sizeof(float) * (size_t)n), *out[3];
    wide_floats(a, n);
    wide_floats(b, n);
    for (int r = 0; r < 3; r++)
        out[r] = malloc(sizeof(float) * (size_t)n);
    cudnnTensorDescriptor_t full, bias;
    CHECK(cudnnCreateTensorDescriptor(&full));
    CHECK(cudnnCreateTensorDescriptor(&bias));
    CHECK(cudnnSetTensor4dDescriptor(bias, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, c, 1, 1));
    const float one = 1.0f, zero = 0.0f;
    /* NCHW: the per-channel b is one value per run; NHWC: a row of c repeated (bcast_rows_run,
     * runs that start anywhere in a vector) */
    for (int nhwc = 0; nhwc < 2; nhwc++)
    for (int op = 0; op <= (int)CUDNN_OP_TENSOR_MAX; op++) {
        CHECK(cudnnSetTensor4dDescriptor(full, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                         CUDNN_DATA_FLOAT, 1, c, 1, hw));
        for (int nan = 0; nan < 2; nan++)
            for (int bc = 0; bc < 2; bc++) {
                cudnnOpTensorDescriptor_t od;
                CHECK(cudnnCreateOpTensorDescriptor(&od));
                CHECK(cudnnSetOpTensorDescriptor(od, (cudnnOpTensorOp_t)op, CUDNN_DATA_FLOAT,
                                                 (cudnnNanPropagation_t)nan));
                for (int r = 0; r < 3; r++) {
                    memset(out[r], 0xff, sizeof(float) * (size_t)n);
                    CHECK(cudnnOpTensor(run_handle(r), od, &one, full, a, &one, bc ? bias : full, b,
                                        &zero, full, out[r]));
                }
                for (int r = 1; r < 3; r++) {
                    char what[128];
                    snprintf(what, sizeof what, "op %d nan %d%s%s alpha 1 1 beta 0, wide floats, %d thread(s)",
                             op, nan, bc ? " bcast" : "", nhwc ? " nhwc" : "", r);
                    expect_same(CUDNN_DATA_FLOAT, out[0], out[r], sizeof(float) * (size_t)n, 0, what);
                }
                cudnnDestroyOpTensorDescriptor(od);
            }
    }
    cudnnDestroyTensorDescriptor(full), cudnnDestroyTensorDescriptor(bias);
    for (int r = 0; r < 3; r++)
        free(out[r]);
    free(a), free(b);
}

/* ---- the exact modes as float maps --------------------------------------------------------- */

/* RELU, CLIPPED_RELU (a float coef, one that is not, a NaN one) and IDENTITY, forward and
 * backward, both NaN options, alpha 1 / beta 0 (activation_cpu.c's act_fwd8 / act_bwd8 on every
 * AVX2 or AVX-512 machine since 2026-12-06) and a blend (the double rows), on floats of every
 * exponent, signed zeros, infinities and NaN payloads: the ref's bytes, NaN payloads included,
 * on the best ISA and capped to AVX2, one and two threads; n odd (the vectors' tails). */
static void test_exact_modes(void)
{
    const int n = 4099;
    float *x = malloc(sizeof(float) * (size_t)n), *dy = malloc(sizeof(float) * (size_t)n), *out[3];
    wide_floats(x, n);
    wide_floats(dy, n);
    x[5] = 1.5f, x[6] = nextafterf(1.5f, 0.0f), x[7] = nextafterf(1.5f, 2.0f), x[8] = -NAN;
    for (int r = 0; r < 3; r++)
        out[r] = malloc(sizeof(float) * (size_t)n);
    cudnnTensorDescriptor_t d = desc_1d(CUDNN_DATA_FLOAT, n);
    const cudnnActivationMode_t modes[3] = {CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_CLIPPED_RELU,
                                            CUDNN_ACTIVATION_IDENTITY};
    const double coefs[3] = {1.5, 0.1, NAN};
    const float ab[2][2] = {{1.0f, 0.0f}, {0.5f, 0.25f}};
    const char *had = getenv("FREEDNN_CPU_ISA");
    for (int cap = 0; cap < 2 && !(cap && had); cap++)
        for (int m = 0; m < 3; m++)
            for (int ci = 0; ci < (m == 1 ? 3 : 1); ci++)
                for (int nan = 0; nan < 2; nan++)
                    for (int bwd = 0; bwd < 2; bwd++)
                        for (int bl = 0; bl < 2; bl++) {
                            cudnnActivationDescriptor_t ad;
                            CHECK(cudnnCreateActivationDescriptor(&ad));
                            CHECK(cudnnSetActivationDescriptor(
                                ad, modes[m], (cudnnNanPropagation_t)nan, coefs[ci]));
                            for (int r = 0; r < 3; r++) {
                                for (int i = 0; i < n; i++)
                                    out[r][i] = (float)i; /* the blend's old values */
                                if (r > 0 && cap)
                                    setenv("FREEDNN_CPU_ISA", "avx2", 1);
                                if (bwd)
                                    CHECK(cudnnActivationBackward(run_handle(r), ad, &ab[bl][0], d,
                                                                  x, d, dy, d, x, &ab[bl][1], d,
                                                                  out[r]));
                                else
                                    CHECK(cudnnActivationForward(run_handle(r), ad, &ab[bl][0], d,
                                                                 x, &ab[bl][1], d, out[r]));
                                if (cap)
                                    unsetenv("FREEDNN_CPU_ISA");
                            }
                            for (int r = 1; r < 3; r++) {
                                char what[160];
                                snprintf(what, sizeof what,
                                         "exact mode %d coef %g nan %d %s alpha %g beta %g, wide "
                                         "floats, "
                                         "%d thread(s)%s",
                                         (int)modes[m], coefs[ci], nan, bwd ? "bwd" : "fwd",
                                         ab[bl][0], ab[bl][1], r, cap ? ", avx2" : "");
                                expect_same(CUDNN_DATA_FLOAT, out[0], out[r],
                                            sizeof(float) * (size_t)n, 1, what);
                            }
                            cudnnDestroyActivationDescriptor(ad);
                        }
    cudnnDestroyTensorDescriptor(d);
    for (int r = 0; r < 3; r++)
        free(out[r]);
    free(x), free(dy);
}

/* ---- every 16-bit encoding ----------------------------------------------------------------- */

static void test_16bit(cudnnDataType_t dt)
{
    const int n = 65536;
    uint16_t *all = malloc(2 * (size_t)n), *old = malloc(2 * (size_t)n), *out[3];
    for (int i = 0; i < n; i++)
        all[i] = (uint16_t)i, old[i] = (uint16_t)((i * 40503u) & 0xffff);
    for (int r = 0; r < 3; r++)
        out[r] = malloc(2 * (size_t)n);
    cudnnTensorDescriptor_t d = desc_1d(dt, n);
    /* ties and near-ties (1 + 2^-11, 1 + 2^-8), subnormal results (2^-10), overflow (3e5) */
    const double alphas[] = {1.0, 0.5, 3.0, 1.0 / 3.0, 1.00048828125, 1.00390625, 0x1p-10, 3e5, -1.7};
    for (size_t k = 0; k < sizeof alphas / sizeof alphas[0]; k++) {
        float a = (float)alphas[k];
        for (int r = 0; r < 3; r++) {
            memcpy(out[r], all, 2 * (size_t)n);
            CHECK(cudnnScaleTensor(run_handle(r), d, out[r], &a));
        }
        for (int r = 1; r < 3; r++) {
            char what[128];
            snprintf(what, sizeof what, "scale %s every encoding alpha %g, %d thread(s)", dt_name(dt),
                     alphas[k], r);
            expect_same(dt, out[0], out[r], 2 * (size_t)n, 0, what);
        }
    }
    /* out = alpha x + beta old: one rounding of a double that no 16-bit operation produces */
    cudnnActivationDescriptor_t ad;
    CHECK(cudnnCreateActivationDescriptor(&ad));
    CHECK(cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_IDENTITY, CUDNN_PROPAGATE_NAN, 0.0));
    const double ab[3][2] = {{0.7, 0.3}, {1.0, 1.0}, {-0.001, 1e-3}};
    for (int k = 0; k < 3; k++) {
        float al = (float)ab[k][0], be = (float)ab[k][1];
        for (int r = 0; r < 3; r++) {
            memcpy(out[r], old, 2 * (size_t)n);
            CHECK(cudnnActivationForward(run_handle(r), ad, &al, d, all, &be, d, out[r]));
        }
        for (int r = 1; r < 3; r++) {
            char what[128];
            snprintf(what, sizeof what, "identity blend %s every encoding a %g b %g, %d thread(s)",
                     dt_name(dt), ab[k][0], ab[k][1], r);
            expect_same(dt, out[0], out[r], 2 * (size_t)n, 0, what);
        }
    }
    cudnnDestroyActivationDescriptor(ad);
    cudnnDestroyTensorDescriptor(d);
    for (int r = 0; r < 3; r++)
        free(out[r]);
    free(all), free(old);
}

/* ---- outputs above the streaming threshold -------------------------------------------------- */

/* n1 c64 h256 w256 (4 Mi elements, 16 MiB of f32) plus four elements, so that an output offset
 * by one or four elements still fits. */
enum { BN = 1, BC = 64, BH = 256, BW = 256, BCOUNT = BN * BC * BH * BW };

static cudnnTensorDescriptor_t big_desc(cudnnDataType_t dt, int nhwc)
{
    cudnnTensorDescriptor_t d;
    CHECK(cudnnCreateTensorDescriptor(&d));
    CHECK(cudnnSetTensor4dDescriptor(d, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, dt, BN, BC, BH, BW));
    return d;
}

static void test_streaming(cudnnDataType_t dt)
{
    const size_t es = dt_size(dt), bytes = (size_t)(BCOUNT + 4) * es;
    char *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes), *out[3];
    fill(dt, a, BCOUNT + 4, 0, 1);
    fill(dt, b, BCOUNT + 4, 0, 1);
    fill(dt, c, BCOUNT + 4, 1, 0);
    for (int r = 0; r < 3; r++)
        out[r] = malloc(bytes);
    cudnnTensorDescriptor_t nchw = big_desc(dt, 0), nhwc = big_desc(dt, 1);
    unsigned char one[8], zero[8], half[8];
    scal(dt, 1.0, one), scal(dt, 0.0, zero), scal(dt, 0.5, half);
    cudnnActivationDescriptor_t relu, sig, elu;
    CHECK(cudnnCreateActivationDescriptor(&relu));
    CHECK(cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0));
    CHECK(cudnnCreateActivationDescriptor(&sig));
    CHECK(cudnnSetActivationDescriptor(sig, CUDNN_ACTIVATION_SIGMOID, CUDNN_PROPAGATE_NAN, 0.0));
    CHECK(cudnnCreateActivationDescriptor(&elu));
    CHECK(cudnnSetActivationDescriptor(elu, CUDNN_ACTIVATION_ELU, CUDNN_PROPAGATE_NAN, 1.0));
    cudnnOpTensorDescriptor_t add, mx;
    CHECK(cudnnCreateOpTensorDescriptor(&add));
    CHECK(cudnnSetOpTensorDescriptor(add, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
    CHECK(cudnnCreateOpTensorDescriptor(&mx));
    CHECK(cudnnSetOpTensorDescriptor(mx, CUDNN_OP_TENSOR_MAX, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN));
    cudnnOpTensorDescriptor_t mn;
    CHECK(cudnnCreateOpTensorDescriptor(&mn));
    CHECK(cudnnSetOpTensorDescriptor(mn, CUDNN_OP_TENSOR_MIN, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
    cudnnTensorDescriptor_t bias;
    CHECK(cudnnCreateTensorDescriptor(&bias));
    CHECK(cudnnSetTensor4dDescriptor(bias, CUDNN_TENSOR_NCHW, dt, 1, BC, 1, 1));
    float setv = 1.25f;
    unsigned char setb[8];
    if (dt == CUDNN_DATA_FLOAT)
        memcpy(setb, &setv, 4);
    else
        put(dt, setb, 0, 1.25);

    /* cases 11, 12 (the float transcendental rows with alpha 1, beta 0, out of place: unblended
     * float output, which the AVX2 rows store straight into y when not streaming) also at an
     * offset of four elements: one of offsets 0 and 4 is 32-byte aligned, the other 16 */
    for (int what = 0; what < 13; what++)
        for (int si = 0; si < (what >= 11 ? 3 : 2); si++) {
            const int shift = si == 2 ? 4 : si;
            for (int r = 0; r < 3; r++) {
                char *o = out[r] + (size_t)shift * es;
                memset(out[r], 0xff, bytes);
                cudnnHandle_t h = run_handle(r);
                switch (what) {
                case 0:
                    CHECK(cudnnActivationForward(h, relu, one, nchw, a, zero, nchw, o));
                    break;
                case 1:
                    CHECK(cudnnActivationForward(h, sig, half, nhwc, a, zero, nhwc, o));
                    break;
                case 2:
                    CHECK(cudnnActivationBackward(h, relu, one, nchw, b, nchw, b, nchw, a, zero, nchw, o));
                    break;
                case 3:
                    CHECK(cudnnOpTensor(h, add, one, nchw, a, half, nchw, b, zero, nchw, o));
                    break;
                case 4:
                    CHECK(cudnnOpTensor(h, mx, one, nchw, a, one, bias, c, zero, nchw, o));
                    break;
                case 5:
                    CHECK(cudnnTransformTensor(h, one, nchw, a, zero, nhwc, o));
                    break;
                case 6:
                    CHECK(cudnnTransformTensor(h, half, nhwc, a, zero, nchw, o));
                    break;
                case 7:
                    CHECK(cudnnSetTensor(h, nchw, o, setb));
                    break;
                case 8: /* a per-channel operand repeating along NHWC rows */
                    CHECK(cudnnOpTensor(h, mx, one, nhwc, a, one, bias, c, zero, nhwc, o));
                    break;
                case 9:
                    CHECK(cudnnOpTensor(h, mn, one, nhwc, a, one, bias, c, zero, nhwc, o));
                    break;
                case 10: /* in place: reads what it writes, no streaming */
                    memcpy(o, a, (size_t)BCOUNT * es);
                    CHECK(cudnnActivationForward(h, relu, one, nchw, o, zero, nchw, o));
                    break;
                case 11:
                    CHECK(cudnnActivationForward(h, sig, one, nchw, a, zero, nchw, o));
                    break;
                default:
                    CHECK(cudnnActivationBackward(h, elu, one, nchw, b, nchw, b, nchw, a, zero,
                                                  nchw, o));
                    break;
                }
            }
            for (int r = 1; r < 3; r++) {
                char name[128];
                snprintf(name, sizeof name, "streaming %s case %d shift %d, %d thread(s)", dt_name(dt),
                         what, shift, r);
                if ((what == 1 || what >= 11) && dt == CUDNN_DATA_FLOAT) { /* float polynomials */
                    expect_same(dt, out[1], out[r], bytes, 1, name);
                    expect_close_f32(out[0], out[r], BCOUNT + 4, name);
                } else {
                    expect_same(dt, out[0], out[r], bytes, 0, name);
                }
            }
        }
    cudnnDestroyActivationDescriptor(relu), cudnnDestroyActivationDescriptor(sig);
    cudnnDestroyActivationDescriptor(elu);
    cudnnDestroyOpTensorDescriptor(add), cudnnDestroyOpTensorDescriptor(mx);
    cudnnDestroyOpTensorDescriptor(mn);
    cudnnDestroyTensorDescriptor(nchw), cudnnDestroyTensorDescriptor(nhwc);
    cudnnDestroyTensorDescriptor(bias);
    for (int r = 0; r < 3; r++)
        free(out[r]);
    free(a), free(b), free(c);
}

/* ELU backward below x = -170, where the float rows take e^x as e^-170: huge and infinite dy
 * (the ref's dy coef exp(x) is tiny but not 0 for |dy| > 1e29, inf or NaN for an infinite
 * dy), a float coef (the float rows) and 0.3 (double), the AVX2 lockstep's 32-element groups
 * and the C's tail: there the ref's bits (hand-checked in three places), elsewhere the float
 * rows' ULP_BOUND. */
static void test_elu_low(void)
{
    static const float xs[] = {-171.0f, -200.0f, -700.0f, -745.2f, -800.0f, -INFINITY, -1.0f, 2.0f};
    static const float gs[] = {3e38f, -3e38f, 1e35f, INFINITY, -INFINITY, 2.0f, 1e30f};
    enum { NX = sizeof xs / sizeof *xs, NG = sizeof gs / sizeof *gs, N = 3 * NX * NG };
    float x[N], g[N], out[3][N];
    for (int i = 0; i < N; i++)
        x[i] = xs[i % NX], g[i] = gs[i / NX % NG];
    cudnnTensorDescriptor_t d = desc_1d(CUDNN_DATA_FLOAT, N);
    const float one = 1.0f, zero = 0.0f;
    for (int k = 0; k < 2; k++) {
        cudnnActivationDescriptor_t ad;
        CHECK(cudnnCreateActivationDescriptor(&ad));
        CHECK(cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_ELU, CUDNN_PROPAGATE_NAN,
                                           k ? 0.3 : 1.0));
        for (int r = 0; r < 3; r++)
            CHECK(cudnnActivationBackward(run_handle(r), ad, &one, d, x, d, g, d, x, &zero, d,
                                          out[r]));
        /* x -171, dy 3e38: 3e38 e^-171 = 1.58e-36 (e^-170 would give e times that); x -745.2,
         * dy inf: exp underflows to 0 in double, inf 0 = NaN; x -200, dy inf: inf */
        const float want[3] = {(float)(3e38 * exp(-171.0)), NAN, INFINITY};
        const int at[3] = {0, 3 * 0 + NX * 3 + 3, NX * 3 + 1};
        for (int j = 0; j < 3 && k == 0; j++) {
            cases++;
            if (!(out[0][at[j]] == want[j] || (isnan(want[j]) && isnan(out[0][at[j]])))) {
                failures++;
                fprintf(stderr, "FAIL elu low: ref element %d is %g, not %g\n", at[j],
                        out[0][at[j]], want[j]);
            }
        }
        for (int r = 1; r < 3; r++) {
            char name[96];
            snprintf(name, sizeof name, "elu backward below -170, coef %g, %d thread(s)",
                     k ? 0.3 : 1.0, r);
            expect_close_f32(out[0], out[r], N, name); /* x -1, 2: the float exp's bound */
            for (int i = 0; i < N; i++)                /* below -170: the ref's bits */
                if (x[i] < -170.0f && memcmp(&out[0][i], &out[r][i], 4) != 0 &&
                    !(isnan(out[0][i]) && isnan(out[r][i]))) {
                    failures++;
                    fprintf(stderr, "FAIL %s: element %d (x %g, dy %g) %g, ref %g\n", name, i, x[i],
                            g[i], out[r][i], out[0][i]);
                    break;
                }
        }
        cudnnDestroyActivationDescriptor(ad);
    }
    cudnnDestroyTensorDescriptor(d);
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
    test_exp_error();
    test_transcendental(CUDNN_DATA_FLOAT);
    test_transcendental(CUDNN_DATA_HALF);
    test_transcendental(CUDNN_DATA_BFLOAT16);
    test_op_unit();
    test_exact_modes();
    test_16bit(CUDNN_DATA_HALF);
    test_16bit(CUDNN_DATA_BFLOAT16);
    test_streaming(CUDNN_DATA_FLOAT);
    test_streaming(CUDNN_DATA_HALF);
    test_elu_low();
    printf("test_cpu_eltwise_fast: %d cases, %d failures\n", cases, failures);
    cudnnDestroy(h_ref);
    cudnnDestroy(h_cpu);
    return failures ? 1 : 0;
}
