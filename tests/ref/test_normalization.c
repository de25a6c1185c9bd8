/* SPDX-License-Identifier: MIT */
/*
 * test_normalization.c - the cuDNN 8 normalization API (cudnnNormalization*).
 *
 * - routing: PER_CHANNEL / PER_ACTIVATION training, backward and inference give the bits of
 *   cudnnBatchNormalization* SPATIAL / PER_ACTIVATION (and their *Ex forms for the fused ops),
 *   with NORM_ALGO_STANDARD and NORM_ALGO_PERSIST alike, for f32 / f64 / f16 / bf16;
 * - separate scale/bias and mean/variance descriptors in different packed layouts;
 * - inference with the fused add and activation (only this API has it) against an oracle
 *   written from the definition, with alpha / beta, NaN-poisoned y for beta = 0, guards and
 *   unchanged inputs;
 * - a hand-computed inference case.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fd_test.h"

#define N_ 2
#define C_ 3
#define H_ 2
#define W_ 3
#define E_ (N_ * C_ * H_ * W_)
#define S_ (H_ * W_)

static const cudnnDataType_t dtypes[4] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                          CUDNN_DATA_BFLOAT16};

static cudnnDataType_t pdt_of(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}

static cudnnTensorDescriptor_t desc4(cudnnDataType_t dt, cudnnTensorFormat_t f, int n, int c, int h,
                                     int w)
{
    cudnnTensorDescriptor_t d;
    cudnnCreateTensorDescriptor(&d);
    FD_EXPECT(cudnnSetTensor4dDescriptor(d, f, dt, n, c, h, w) == CUDNN_STATUS_SUCCESS,
              "set descriptor");
    return d;
}

/* Guarded buffer of n elements of dt filled from v (rounded to dt), or poisoned when v is NULL. */
static fd_buf_t buf_of(cudnnDataType_t dt, const double *v, int n)
{
    fd_buf_t b = fd_buf_alloc((size_t)n * fd_test_dtype_size(dt));
    fd_buf_poison(&b);
    for (int i = 0; v != NULL && i < n; i++)
        fd_test_store(dt, b.data, i, v[i]);
    return b;
}

static int same_buf(const fd_buf_t *a, const fd_buf_t *b)
{
    return a->size == b->size && memcmp(a->data, b->data, a->size) == 0 && fd_buf_guards_ok(a) &&
           fd_buf_guards_ok(b);
}

/* Inputs of one case, as doubles (rounded to their storage types). */
typedef struct {
    double x[E_], z[E_], dy[E_], yold[E_];
    double scale[C_ * S_], bias[C_ * S_], mean[C_ * S_], var[C_ * S_];
} inputs_t;

static void inputs_fill(inputs_t *in, cudnnDataType_t dt, uint64_t seed)
{
    fd_rng_t r;
    fd_rng_seed(&r, seed);
    cudnnDataType_t p = pdt_of(dt);
    for (int i = 0; i < E_; i++) {
        in->x[i] = fd_test_round(dt, 4 * fd_rng_uniform(&r) - 2);
        in->z[i] = fd_test_round(dt, 2 * fd_rng_uniform(&r) - 1);
        in->dy[i] = fd_test_round(dt, 2 * fd_rng_uniform(&r) - 1);
        in->yold[i] = fd_test_round(dt, 2 * fd_rng_uniform(&r) - 1);
    }
    for (int i = 0; i < C_ * S_; i++) {
        in->scale[i] = fd_test_round(p, 1.5 * fd_rng_uniform(&r) + 0.25);
        in->bias[i] = fd_test_round(p, 2 * fd_rng_uniform(&r) - 1);
        in->mean[i] = fd_test_round(p, fd_rng_uniform(&r) - 0.5);
        in->var[i] = fd_test_round(p, fd_rng_uniform(&r) + 0.5);
    }
}

/* ---- routing: the v8 entries against the batch-norm entries -------------------------------- */

typedef struct {
    fd_buf_t y, rm, rv, sm, si, dx, dz, ds, db, yi;
} outs_t;

static void outs_free(outs_t *o)
{
    fd_buf_t *all[] = {&o->y,  &o->rm, &o->rv, &o->sm, &o->si,
                       &o->dx, &o->dz, &o->ds, &o->db, &o->yi};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        fd_buf_free(all[i]);
}

/* Training, backward and inference through one API. `v8` selects the normalization entries
 * (with `algo`), else the batch-norm ones (Ex when ops != NORM). */
static outs_t run_api(cudnnHandle_t h, int v8, cudnnNormAlgo_t algo, cudnnDataType_t dt,
                      int per_act, cudnnNormOps_t ops, const inputs_t *in)
{
    outs_t o;
    memset(&o, 0, sizeof o);
    int np = per_act ? C_ * S_ : C_;
    cudnnDataType_t p = pdt_of(dt);
    cudnnTensorDescriptor_t x = desc4(dt, CUDNN_TENSOR_NCHW, N_, C_, H_, W_), sb, mv;
    cudnnCreateTensorDescriptor(&sb);
    cudnnCreateTensorDescriptor(&mv);
    cudnnNormMode_t nmode = per_act ? CUDNN_NORM_PER_ACTIVATION : CUDNN_NORM_PER_CHANNEL;
    cudnnBatchNormMode_t bmode = per_act ? CUDNN_BATCHNORM_PER_ACTIVATION : CUDNN_BATCHNORM_SPATIAL;
    if (v8) {
        FD_EXPECT_STATUS(cudnnDeriveNormTensorDescriptor(sb, mv, x, nmode, 1),
                         CUDNN_STATUS_SUCCESS);
    } else {
        FD_EXPECT_STATUS(cudnnDeriveBNTensorDescriptor(sb, x, bmode), CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(cudnnDeriveBNTensorDescriptor(mv, x, bmode), CUDNN_STATUS_SUCCESS);
    }
    cudnnActivationDescriptor_t act;
    cudnnCreateActivationDescriptor(&act);
    cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_CLIPPED_RELU, CUDNN_NOT_PROPAGATE_NAN, 1.25);
    cudnnActivationDescriptor_t a = ops == CUDNN_NORM_OPS_NORM ? NULL : act;
    int add = ops == CUDNN_NORM_OPS_NORM_ADD_ACTIVATION;
    fd_buf_t X = buf_of(dt, in->x, E_), Z = buf_of(dt, in->z, E_), DY = buf_of(dt, in->dy, E_);
    fd_buf_t SC = buf_of(p, in->scale, np), BI = buf_of(p, in->bias, np);
    o.y = buf_of(dt, NULL, E_), o.dx = buf_of(dt, NULL, E_), o.dz = buf_of(dt, NULL, E_),
    o.yi = buf_of(dt, NULL, E_);
    o.rm = buf_of(p, in->mean, np), o.rv = buf_of(p, in->var, np);
    o.sm = buf_of(p, NULL, np), o.si = buf_of(p, NULL, np), o.ds = buf_of(p, NULL, np),
    o.db = buf_of(p, NULL, np);
    uint64_t hx = fd_buf_hash(&X), hz = fd_buf_hash(&Z), hdy = fd_buf_hash(&DY),
             hs = fd_buf_hash(&SC), hb = fd_buf_hash(&BI);
    size_t ws = 0, bws = 0, rs = 0;
    if (v8) {
        FD_EXPECT_STATUS(cudnnGetNormalizationForwardTrainingWorkspaceSize(
                             h, nmode, ops, algo, x, add ? x : NULL, x, sb, a, mv, &ws, 1),
                         CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(cudnnGetNormalizationBackwardWorkspaceSize(
                             h, nmode, ops, algo, x, x, x, add ? x : NULL, x, sb, a, mv, &bws, 1),
                         CUDNN_STATUS_SUCCESS);
        FD_EXPECT_STATUS(
            cudnnGetNormalizationTrainingReserveSpaceSize(h, nmode, ops, algo, a, x, &rs, 1),
            CUDNN_STATUS_SUCCESS);
    } else {
        FD_EXPECT_STATUS(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(
                             h, bmode, (cudnnBatchNormOps_t)ops, a, x, &rs),
                         CUDNN_STATUS_SUCCESS);
    }
    fd_buf_t WS = fd_buf_alloc(ws > bws ? ws : bws), RS = fd_buf_alloc(rs);
    const float f1 = 1, f0 = 0;
    const double d1 = 1, d0 = 0;
    const void *one = dt == CUDNN_DATA_DOUBLE ? (const void *)&d1 : (const void *)&f1;
    const void *zero = dt == CUDNN_DATA_DOUBLE ? (const void *)&d0 : (const void *)&f0;
    cudnnStatus_t st;
    if (v8)
        st = cudnnNormalizationForwardTraining(
            h, nmode, ops, algo, one, zero, x, X.data, sb, SC.data, BI.data, 0.3, mv, o.rm.data,
            o.rv.data, 1e-4, o.sm.data, o.si.data, a, add ? x : NULL, add ? Z.data : NULL, x,
            o.y.data, WS.data, ws, RS.data, rs, 1);
    else if (ops == CUDNN_NORM_OPS_NORM)
        st = cudnnBatchNormalizationForwardTraining(h, bmode, one, zero, x, X.data, x, o.y.data, sb,
                                                    SC.data, BI.data, 0.3, o.rm.data, o.rv.data,
                                                    1e-4, o.sm.data, o.si.data);
    else
        st = cudnnBatchNormalizationForwardTrainingEx(
            h, bmode, (cudnnBatchNormOps_t)ops, one, zero, x, X.data, add ? x : NULL,
            add ? Z.data : NULL, x, o.y.data, sb, SC.data, BI.data, 0.3, o.rm.data, o.rv.data, 1e-4,
            o.sm.data, o.si.data, a, NULL, 0, RS.data, rs);
    FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "training (v8 %d ops %d): %s", v8, (int)ops,
              cudnnGetErrorString(st));
    if (v8)
        st = cudnnNormalizationBackward(
            h, nmode, ops, algo, one, zero, one, zero, x, X.data, x, o.y.data, x, DY.data,
            add ? x : NULL, add ? o.dz.data : NULL, x, o.dx.data, sb, SC.data, BI.data, o.ds.data,
            o.db.data, 1e-4, mv, o.sm.data, o.si.data, a, WS.data, bws, RS.data, rs, 1);
    else if (ops == CUDNN_NORM_OPS_NORM)
        st = cudnnBatchNormalizationBackward(h, bmode, one, zero, one, zero, x, X.data, x, DY.data,
                                             x, o.dx.data, sb, SC.data, o.ds.data, o.db.data, 1e-4,
                                             o.sm.data, o.si.data);
    else
        st = cudnnBatchNormalizationBackwardEx(
            h, bmode, (cudnnBatchNormOps_t)ops, one, zero, one, zero, x, X.data, x, o.y.data, x,
            DY.data, add ? x : NULL, add ? o.dz.data : NULL, x, o.dx.data, sb, SC.data, BI.data,
            o.ds.data, o.db.data, 1e-4, o.sm.data, o.si.data, a, NULL, 0, RS.data, rs);
    FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "backward (v8 %d ops %d): %s", v8, (int)ops,
              cudnnGetErrorString(st));
    if (ops == CUDNN_NORM_OPS_NORM) { /* the batch-norm inference has no fused ops */
        if (v8)
            st = cudnnNormalizationForwardInference(h, nmode, ops, algo, one, zero, x, X.data, sb,
                                                    SC.data, BI.data, mv, o.rm.data, o.rv.data,
                                                    NULL, NULL, NULL, x, o.yi.data, 1e-4, 1);
        else
            st = cudnnBatchNormalizationForwardInference(h, bmode, one, zero, x, X.data, x,
                                                         o.yi.data, sb, SC.data, BI.data, o.rm.data,
                                                         o.rv.data, 1e-4);
        FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "inference (v8 %d): %s", v8, cudnnGetErrorString(st));
    }
    FD_EXPECT(fd_buf_hash(&X) == hx && fd_buf_hash(&Z) == hz && fd_buf_hash(&DY) == hdy &&
                  fd_buf_hash(&SC) == hs && fd_buf_hash(&BI) == hb,
              "an input changed (v8 %d ops %d)", v8, (int)ops);
    FD_EXPECT(fd_buf_guards_ok(&WS) && fd_buf_guards_ok(&RS), "workspace / reserve overrun (v8 %d)",
              v8);
    fd_buf_free(&X), fd_buf_free(&Z), fd_buf_free(&DY), fd_buf_free(&SC), fd_buf_free(&BI),
        fd_buf_free(&WS), fd_buf_free(&RS);
    cudnnDestroyActivationDescriptor(act);
    cudnnDestroyTensorDescriptor(x), cudnnDestroyTensorDescriptor(sb),
        cudnnDestroyTensorDescriptor(mv);
    return o;
}

static void routing(cudnnHandle_t h)
{
    int runs = 0;
    for (int t = 0; t < 4; t++)
        for (int per_act = 0; per_act < 2; per_act++)
            for (int ops = 0; ops < 3; ops++)
                for (int algo = 0; algo < 2; algo++) {
                    if (algo == CUDNN_NORM_ALGO_PERSIST && per_act)
                        continue; /* NOT_SUPPORTED (contract table) */
                    inputs_t in;
                    inputs_fill(&in, dtypes[t],
                                fd_test_mix(0x707, (uint64_t)(t * 16 + per_act * 4 + ops)));
                    outs_t bn = run_api(h, 0, CUDNN_NORM_ALGO_STANDARD, dtypes[t], per_act,
                                        (cudnnNormOps_t)ops, &in);
                    outs_t v8 = run_api(h, 1, (cudnnNormAlgo_t)algo, dtypes[t], per_act,
                                        (cudnnNormOps_t)ops, &in);
                    FD_EXPECT(same_buf(&bn.y, &v8.y) && same_buf(&bn.rm, &v8.rm) &&
                                  same_buf(&bn.rv, &v8.rv) && same_buf(&bn.sm, &v8.sm) &&
                                  same_buf(&bn.si, &v8.si),
                              "training: v8 API differs from batch norm (dt %s per_act %d ops %d "
                              "algo %d)",
                              fd_test_dtype_short(dtypes[t]), per_act, ops, algo);
                    FD_EXPECT(same_buf(&bn.dx, &v8.dx) && same_buf(&bn.dz, &v8.dz) &&
                                  same_buf(&bn.ds, &v8.ds) && same_buf(&bn.db, &v8.db),
                              "backward: v8 API differs from batch norm (dt %s per_act %d ops %d "
                              "algo %d)",
                              fd_test_dtype_short(dtypes[t]), per_act, ops, algo);
                    FD_EXPECT(same_buf(&bn.yi, &v8.yi),
                              "inference: v8 API differs from batch norm (dt %s per_act %d)",
                              fd_test_dtype_short(dtypes[t]), per_act);
                    outs_free(&bn), outs_free(&v8);
                    runs++;
                }
    printf("routing: %d cases\n", runs);
}

/* ---- inference with the fused add + activation, against the definition ---------------------- */

static double act_def(cudnnActivationMode_t m, double u)
{
    switch (m) {
    case CUDNN_ACTIVATION_RELU:
        return u > 0 ? u : 0;
    case CUDNN_ACTIVATION_SIGMOID:
        return 1 / (1 + exp(-u));
    case CUDNN_ACTIVATION_TANH:
        return tanh(u);
    case CUDNN_ACTIVATION_ELU:
        return u > 0 ? u : 0.5 * (exp(u) - 1); /* coef 0.5 below */
    case CUDNN_ACTIVATION_SWISH:
        return u / (1 + exp(-2 * u)); /* swish beta 2 below */
    default:
        return NAN;
    }
}

static void fused_inference(cudnnHandle_t h)
{
    static const cudnnActivationMode_t modes[5] = {CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_SIGMOID,
                                                   CUDNN_ACTIVATION_TANH, CUDNN_ACTIVATION_ELU,
                                                   CUDNN_ACTIVATION_SWISH};
    static const double alphas[3] = {1, 0.5, -2}, betas[3] = {0, 1, 0.25};
    int runs = 0;
    for (int t = 0; t < 4; t++)
        for (int per_act = 0; per_act < 2; per_act++)
            for (int ops = 1; ops < 3; ops++)
                for (int m = 0; m < 5; m++) {
                    cudnnDataType_t dt = dtypes[t], p = pdt_of(dt);
                    int np = per_act ? C_ * S_ : C_, add = ops == 2;
                    double alpha = alphas[(t + m) % 3], beta = betas[(per_act + m + ops) % 3];
                    inputs_t in;
                    inputs_fill(
                        &in, dt,
                        fd_test_mix(0xF1, (uint64_t)(((t * 2 + per_act) * 3 + ops) * 8 + m)));
                    /* scale/bias per-activation in NCHW order, mean/variance in NHWC order */
                    cudnnTensorDescriptor_t x = desc4(dt, CUDNN_TENSOR_NHWC, N_, C_, H_, W_),
                                            y = desc4(dt, CUDNN_TENSOR_NCHW, N_, C_, H_, W_),
                                            sb = desc4(p, CUDNN_TENSOR_NCHW, 1, C_,
                                                       per_act ? H_ : 1, per_act ? W_ : 1),
                                            mv = desc4(p, CUDNN_TENSOR_NHWC, 1, C_,
                                                       per_act ? H_ : 1, per_act ? W_ : 1);
                    /* x and z NHWC, y NCHW: store x / z permuted */
                    double xn[E_], zn[E_], mvm[C_ * S_], mvv[C_ * S_];
                    for (int n = 0; n < N_; n++)
                        for (int c = 0; c < C_; c++)
                            for (int s = 0; s < S_; s++) {
                                xn[(n * S_ + s) * C_ + c] = in.x[(n * C_ + c) * S_ + s];
                                zn[(n * S_ + s) * C_ + c] = in.z[(n * C_ + c) * S_ + s];
                            }
                    for (int c = 0; c < C_; c++)
                        for (int s = 0; s < (per_act ? S_ : 1); s++) {
                            int nchw = c * (per_act ? S_ : 1) + s, nhwc = per_act ? s * C_ + c : c;
                            mvm[nhwc] = in.mean[nchw];
                            mvv[nhwc] = in.var[nchw];
                        }
                    fd_buf_t X = buf_of(dt, xn, E_), Z = buf_of(dt, zn, E_),
                             SC = buf_of(p, in.scale, np), BI = buf_of(p, in.bias, np),
                             M = buf_of(p, mvm, np), V = buf_of(p, mvv, np);
                    fd_buf_t Y = buf_of(dt, beta != 0 ? in.yold : NULL, E_);
                    uint64_t hin = fd_buf_hash(&X) ^ fd_buf_hash(&Z) * 3 ^ fd_buf_hash(&SC) * 5 ^
                                   fd_buf_hash(&BI) * 7 ^ fd_buf_hash(&M) * 11 ^
                                   fd_buf_hash(&V) * 13;
                    cudnnActivationDescriptor_t a;
                    cudnnCreateActivationDescriptor(&a);
                    cudnnSetActivationDescriptor(a, modes[m], CUDNN_NOT_PROPAGATE_NAN, 0.5);
                    cudnnSetActivationDescriptorSwishBeta(a, 2.0);
                    float fa = (float)alpha, fb = (float)beta;
                    const void *pa =
                        dt == CUDNN_DATA_DOUBLE ? (const void *)&alpha : (const void *)&fa;
                    const void *pb =
                        dt == CUDNN_DATA_DOUBLE ? (const void *)&beta : (const void *)&fb;
                    cudnnStatus_t st = cudnnNormalizationForwardInference(
                        h, per_act ? CUDNN_NORM_PER_ACTIVATION : CUDNN_NORM_PER_CHANNEL,
                        (cudnnNormOps_t)ops, CUDNN_NORM_ALGO_STANDARD, pa, pb, x, X.data, sb,
                        SC.data, BI.data, mv, M.data, V.data, add ? x : NULL, add ? Z.data : NULL,
                        a, y, Y.data, 1e-3, 1);
                    FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "fused inference: %s",
                              cudnnGetErrorString(st));
                    int bad = 0;
                    for (int i = 0; i < E_ && st == CUDNN_STATUS_SUCCESS; i++) {
                        int c = (i / S_) % C_, s = i % S_, g = per_act ? c * S_ + s : c;
                        double u = in.scale[g] * (in.x[i] - in.mean[g]) / sqrt(in.var[g] + 1e-3) +
                                   in.bias[g] + (add ? in.z[i] : 0);
                        double want =
                            alpha * act_def(modes[m], u) + (beta != 0 ? beta * in.yold[i] : 0);
                        double got = fd_test_load(dt, Y.data, i);
                        double mag =
                            fabs(alpha) * (fabs(in.scale[g]) * (fabs(in.x[i]) + fabs(in.mean[g])) /
                                               sqrt(in.var[g] + 1e-3) +
                                           fabs(in.bias[g]) + fabs(in.z[i])) +
                            fabs(beta * in.yold[i]);
                        double tol = fd_tolerance(dt, CUDNN_DATA_DOUBLE, 64, mag + 1, want);
                        if (!(fabs(got - want) <= tol)) {
                            if (bad == 0)
                                printf("  y[%d]: got %.9g want %.9g (tol %.3g)\n", i, got, want,
                                       tol);
                            bad++;
                        }
                    }
                    FD_EXPECT(bad == 0,
                              "fused inference dt %s per_act %d ops %d act %d alpha %g beta %g: %d "
                              "of %d wrong",
                              fd_test_dtype_short(dt), per_act, ops, (int)modes[m], alpha, beta,
                              bad, E_);
                    uint64_t hin2 = fd_buf_hash(&X) ^ fd_buf_hash(&Z) * 3 ^ fd_buf_hash(&SC) * 5 ^
                                    fd_buf_hash(&BI) * 7 ^ fd_buf_hash(&M) * 11 ^
                                    fd_buf_hash(&V) * 13;
                    FD_EXPECT(hin == hin2, "fused inference changed an input");
                    FD_EXPECT(fd_buf_guards_ok(&Y) && fd_buf_guards_ok(&X),
                              "fused inference damaged a guard");
                    fd_buf_free(&X), fd_buf_free(&Z), fd_buf_free(&SC), fd_buf_free(&BI),
                        fd_buf_free(&M), fd_buf_free(&V), fd_buf_free(&Y);
                    cudnnDestroyActivationDescriptor(a);
                    cudnnDestroyTensorDescriptor(x), cudnnDestroyTensorDescriptor(y),
                        cudnnDestroyTensorDescriptor(sb), cudnnDestroyTensorDescriptor(mv);
                    runs++;
                }
    printf("fused inference: %d cases\n", runs);
}

/* 1x2x1x2 f32: channel 0 x = (3, 5), mean 1, variance 4 -> xhat (1, 2); channel 1 x = (-1, 0),
 * mean 0, variance 0.25 -> xhat (-2, 0). scale (2, 1), bias (-3, 0.5), z (1, 1, 1, -0.5), ReLU:
 * u = (0, 2, -0.5, 0) -> y = (0, 2, 0, 0). */
static void hand_inference(cudnnHandle_t h)
{
    cudnnTensorDescriptor_t x = desc4(CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 2, 1, 2), sb, mv;
    cudnnCreateTensorDescriptor(&sb);
    cudnnCreateTensorDescriptor(&mv);
    FD_EXPECT_STATUS(cudnnDeriveNormTensorDescriptor(sb, mv, x, CUDNN_NORM_PER_CHANNEL, 1),
                     CUDNN_STATUS_SUCCESS);
    const float xv[4] = {3, 5, -1, 0}, z[4] = {1, 1, 1, -0.5f}, scale[2] = {2, 1},
                bias[2] = {-3, 0.5f}, mean[2] = {1, 0}, var[2] = {4, 0.25f}, one = 1, zero = 0;
    float y[4] = {NAN, NAN, NAN, NAN};
    cudnnActivationDescriptor_t relu;
    cudnnCreateActivationDescriptor(&relu);
    cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0);
    FD_EXPECT_STATUS(cudnnNormalizationForwardInference(
                         h, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM_ADD_ACTIVATION,
                         CUDNN_NORM_ALGO_STANDARD, &one, &zero, x, xv, sb, scale, bias, mv, mean,
                         var, x, z, relu, x, y, 0.0, 1),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(y[0] == 0 && y[1] == 2 && y[2] == 0 && y[3] == 0, "hand fused inference: %g %g %g %g",
              y[0], y[1], y[2], y[3]);
    /* without the activation: u itself */
    FD_EXPECT_STATUS(
        cudnnNormalizationForwardInference(h, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM,
                                           CUDNN_NORM_ALGO_STANDARD, &one, &zero, x, xv, sb, scale,
                                           bias, mv, mean, var, NULL, NULL, NULL, x, y, 0.0, 1),
        CUDNN_STATUS_SUCCESS);
    FD_EXPECT(y[0] == -1 && y[1] == 1 && y[2] == -1.5f && y[3] == 0.5f,
              "hand inference: %g %g %g %g", y[0], y[1], y[2], y[3]);
    cudnnDestroyActivationDescriptor(relu);
    cudnnDestroyTensorDescriptor(x), cudnnDestroyTensorDescriptor(sb),
        cudnnDestroyTensorDescriptor(mv);
}

int main(void)
{
    cudnnHandle_t h = NULL;
    FD_EXPECT_STATUS(freednnCreateWithBackend(&h, FREEDNN_BACKEND_REF), CUDNN_STATUS_SUCCESS);
    if (h == NULL)
        return fd_test_finish();
    hand_inference(h);
    routing(h);
    fused_inference(h);
    cudnnDestroy(h);
    return fd_test_finish();
}
