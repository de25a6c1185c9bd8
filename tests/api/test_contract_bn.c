/* SPDX-License-Identifier: MIT */
/*
 * test_contract_bn.c - the contract table of batch normalization and the cuDNN 8 normalization
 * API (contract §1.2.2, §4.1; statuses as NVIDIA cuDNN 9.19 answered on an H200).
 *
 * Every row gets a fresh fixture (a ref handle, descriptors, guarded buffers with known bytes)
 * and checks: the exact status; on rejection a new, non-empty cudnnGetLastErrorString containing
 * the row's word, every buffer and the derived descriptor byte-identical; always the guards
 * intact and the inputs unchanged.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_test.h"

enum { B_X, B_Y, B_Z, B_DY, B_DX, B_DZ, B_S, B_B, B_RM, B_RV, B_SM, B_SV, B_DS, B_DB, B_WS, B_RS, B_COUNT };
static const int is_input[B_COUNT] = {[B_X] = 1, [B_Z] = 1, [B_DY] = 1, [B_S] = 1, [B_B] = 1};
#define BUF_BYTES 2048

typedef struct {
    cudnnHandle_t h;
    /* x 2x3x4x5 f32 NCHW (120 elements) and its spatial parameter descriptor p (1x3x1x1) */
    cudnnTensorDescriptor_t x, p, pa;    /* pa: per-activation 1x3x4x5 */
    cudnnTensorDescriptor_t xh, xi8, x3; /* half, int8, 3-d data */
    cudnnTensorDescriptor_t pd, ph;      /* double and half 1x3x1x1 */
    cudnnTensorDescriptor_t xn;          /* x in NHWC */
    cudnnTensorDescriptor_t xneg;        /* negative W stride */
    cudnnTensorDescriptor_t pgap;        /* 1x3x1x1 with stride 2 on C */
    cudnnTensorDescriptor_t y6;          /* 2x3x4x6: shape mismatch */
    cudnnTensorDescriptor_t out, unset;  /* derived target (set to 1x1x1x1); never set */
    cudnnActivationDescriptor_t relu, ident, act_unset;
    fd_buf_t buf[B_COUNT];
    void *d[B_COUNT];
    float one, zero;
    size_t sz;
} fx_t;

static void fx_init(fx_t *f)
{
    memset(f, 0, sizeof *f);
    FD_EXPECT(freednnCreateWithBackend(&f->h, FREEDNN_BACKEND_REF) == CUDNN_STATUS_SUCCESS, "handle");
    cudnnTensorDescriptor_t *all[] = {&f->x, &f->p, &f->pa, &f->xh, &f->xi8, &f->x3, &f->pd, &f->ph, &f->xn,
                                      &f->xneg, &f->pgap, &f->y6, &f->out, &f->unset};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        cudnnCreateTensorDescriptor(all[i]);
    cudnnSetTensor4dDescriptor(f->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 5);
    cudnnSetTensor4dDescriptor(f->p, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 1, 1);
    cudnnSetTensor4dDescriptor(f->pa, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 4, 5);
    cudnnSetTensor4dDescriptor(f->xh, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 2, 3, 4, 5);
    cudnnSetTensor4dDescriptor(f->xi8, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, 2, 3, 4, 5);
    const int d3[3] = {2, 3, 20}, s3[3] = {60, 20, 1};
    cudnnSetTensorNdDescriptor(f->x3, CUDNN_DATA_FLOAT, 3, d3, s3);
    cudnnSetTensor4dDescriptor(f->pd, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 1, 3, 1, 1);
    cudnnSetTensor4dDescriptor(f->ph, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 1, 3, 1, 1);
    cudnnSetTensor4dDescriptor(f->xn, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 2, 3, 4, 5);
    cudnnSetTensor4dDescriptorEx(f->xneg, CUDNN_DATA_FLOAT, 2, 3, 4, 5, 60, 20, 5, -1);
    cudnnSetTensor4dDescriptorEx(f->pgap, CUDNN_DATA_FLOAT, 1, 3, 1, 1, 6, 2, 1, 1);
    cudnnSetTensor4dDescriptor(f->y6, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 6);
    cudnnSetTensor4dDescriptor(f->out, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 1, 1, 1, 1);
    cudnnCreateActivationDescriptor(&f->relu);
    cudnnCreateActivationDescriptor(&f->ident);
    cudnnCreateActivationDescriptor(&f->act_unset);
    cudnnSetActivationDescriptor(f->relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0);
    cudnnSetActivationDescriptor(f->ident, CUDNN_ACTIVATION_IDENTITY, CUDNN_NOT_PROPAGATE_NAN, 0.0);
    fd_rng_t r;
    fd_rng_seed(&r, 7);
    for (int b = 0; b < B_COUNT; b++) {
        f->buf[b] = fd_buf_alloc(BUF_BYTES);
        f->d[b] = f->buf[b].data;
        /* valid numbers in the first 240 floats (x, scale, variances > 0), 0xFF bytes beyond */
        fd_buf_poison(&f->buf[b]);
        fd_fill_real(&r, CUDNN_DATA_FLOAT, f->d[b], 240, 0.5, 2.0);
    }
    f->one = 1.0f, f->zero = 0.0f;
    f->sz = 12345;
}

static void fx_free(fx_t *f)
{
    cudnnTensorDescriptor_t all[] = {f->x, f->p, f->pa, f->xh, f->xi8, f->x3, f->pd, f->ph, f->xn,
                                     f->xneg, f->pgap, f->y6, f->out, f->unset};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        cudnnDestroyTensorDescriptor(all[i]);
    cudnnDestroyActivationDescriptor(f->relu);
    cudnnDestroyActivationDescriptor(f->ident);
    cudnnDestroyActivationDescriptor(f->act_unset);
    for (int b = 0; b < B_COUNT; b++)
        fd_buf_free(&f->buf[b]);
    cudnnDestroy(f->h);
}

/* ---- shorthands for the rows ---------------------------------------------------------------- */

#define SP CUDNN_BATCHNORM_SPATIAL
#define PA CUDNN_BATCHNORM_PER_ACTIVATION
#define OPS_BN CUDNN_BATCHNORM_OPS_BN
#define OPS_ACT CUDNN_BATCHNORM_OPS_BN_ACTIVATION
#define OPS_ADD CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION
#define D(b) (f->d[B_##b])
#define A1 (&f->one)
#define A0 (&f->zero)

/* Training with every argument at a valid default; rows override one thing. */
#define TRAIN(h_, mode_, al_, be_, xd_, xp_, yd_, yp_, pd_, s_, b_, rm_, rv_, eps_, sm_, sv_)          \
    cudnnBatchNormalizationForwardTraining(h_, mode_, al_, be_, xd_, xp_, yd_, yp_, pd_, s_, b_, 0.1, rm_, \
                                           rv_, eps_, sm_, sv_)
#define TRAIN_OK(...) TRAIN(f->h, SP, A1, A0, f->x, D(X), f->x, D(Y), f->p, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), D(SV))
#define TRAINX(ops_, act_, zd_, zp_, rs_, rsz_)                                                         \
    cudnnBatchNormalizationForwardTrainingEx(f->h, SP, ops_, A1, A0, f->x, D(X), zd_, zp_, f->x, D(Y), f->p,  \
                                             D(S), D(B), 0.1, D(RM), D(RV), 1e-5, D(SM), D(SV), act_, D(WS),  \
                                             BUF_BYTES, rs_, rsz_)
#define BWD(xd_, dyd_, dxd_, pd_, dsp_, eps_, sm_, sv_)                                                 \
    cudnnBatchNormalizationBackward(f->h, SP, A1, A0, A1, A0, xd_, D(X), dyd_, D(DY), dxd_, D(DX), pd_, D(S), \
                                    dsp_, D(DB), eps_, sm_, sv_)
#define BWDX(ops_, act_, dzd_, dzp_, bias_, rs_, rsz_)                                                  \
    cudnnBatchNormalizationBackwardEx(f->h, SP, ops_, A1, A0, A1, A0, f->x, D(X), f->x, D(Y), f->x, D(DY),    \
                                      dzd_, dzp_, f->x, D(DX), f->p, D(S), bias_, D(DS), D(DB), 1e-5, D(SM),  \
                                      D(SV), act_, D(WS), BUF_BYTES, rs_, rsz_)
#define NTRAIN(mode_, ops_, algo_, sm_, sv_, groups_)                                                   \
    cudnnNormalizationForwardTraining(f->h, mode_, ops_, algo_, A1, A0, f->x, D(X), f->p, D(S), D(B), 0.1, f->p, \
                                      D(RM), D(RV), 1e-5, sm_, sv_, f->relu, f->x, D(Z), f->x, D(Y), D(WS),     \
                                      BUF_BYTES, D(RS), BUF_BYTES, groups_)
#define NBWD(eps_, groups_)                                                                              \
    cudnnNormalizationBackward(f->h, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM, CUDNN_NORM_ALGO_STANDARD, A1, \
                               A0, A1, A0, f->x, D(X), f->x, D(Y), f->x, D(DY), NULL, NULL, f->x, D(DX), f->p, \
                               D(S), D(B), D(DS), D(DB), eps_, f->p, D(SM), D(SV), NULL, D(WS), BUF_BYTES,    \
                               D(RS), BUF_BYTES, groups_)
#define NINFER(mode_, ops_, algo_, groups_)                                                              \
    cudnnNormalizationForwardInference(f->h, mode_, ops_, algo_, A1, A0, f->x, D(X), f->p, D(S), D(B), f->p,   \
                                       D(RM), D(RV), f->x, D(Z), f->relu, f->x, D(Y), 1e-5, groups_)

#define OK CUDNN_STATUS_SUCCESS
#define BAD CUDNN_STATUS_BAD_PARAM
#define NS CUDNN_STATUS_NOT_SUPPORTED

/* ROW(name, status, word in the reason (NULL for SUCCESS), call using f) */
#define ROWS                                                                                                   \
    ROW(derive_ok_half_gives_float, OK, NULL, cudnnDeriveBNTensorDescriptor(f->out, f->xh, SP))                \
    ROW(derive_mode_7, BAD, "mode 7", cudnnDeriveBNTensorDescriptor(f->out, f->x, (cudnnBatchNormMode_t)7))   \
    ROW(derive_mode_neg1, BAD, "mode -1", cudnnDeriveBNTensorDescriptor(f->out, f->x, (cudnnBatchNormMode_t)-1)) \
    ROW(derive_null_out, BAD, "derived", cudnnDeriveBNTensorDescriptor(NULL, f->x, SP))                       \
    ROW(derive_unset_x, BAD, "never set", cudnnDeriveBNTensorDescriptor(f->out, f->unset, SP))                \
    ROW(derive_null_x, BAD, "xDesc", cudnnDeriveBNTensorDescriptor(f->out, NULL, PA))                         \
    ROW(train_ok, OK, NULL, TRAIN_OK())                                                                        \
    ROW(train_eps_zero_ok, OK, NULL,                                                                           \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), f->x, D(Y), f->p, D(S), D(B), D(RM), D(RV), 0.0, D(SM), D(SV)))    \
    ROW(train_one_running_null_ok, OK, NULL,                                                                   \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), f->x, D(Y), f->p, D(S), D(B), NULL, D(RV), 1e-5, D(SM), D(SV)))    \
    ROW(train_no_saved_ok, OK, NULL,                                                                           \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), f->x, D(Y), f->p, D(S), D(B), D(RM), D(RV), 1e-5, NULL, NULL))     \
    ROW(train_in_place_ok, OK, NULL,                                                                           \
        TRAIN(f->h, SP, A1, A0, f->x, D(Y), f->x, D(Y), f->p, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), D(SV)))   \
    ROW(train_null_handle, BAD, "handle",                                                                      \
        TRAIN(NULL, SP, A1, A0, f->x, D(X), f->x, D(Y), f->p, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), D(SV)))   \
    ROW(train_save_inv_null, BAD, "exactly one",                                                               \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), f->x, D(Y), f->p, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), NULL))    \
    ROW(train_save_mean_null, BAD, "exactly one",                                                              \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), f->x, D(Y), f->p, D(S), D(B), D(RM), D(RV), 1e-5, NULL, D(SV)))    \
    ROW(train_eps_negative, BAD, "epsilon",                                                                    \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), f->x, D(Y), f->p, D(S), D(B), D(RM), D(RV), -1e-9, D(SM), D(SV)))  \
    ROW(train_mode_3, BAD, "mode 3",                                                                           \
        TRAIN(f->h, (cudnnBatchNormMode_t)3, A1, A0, f->x, D(X), f->x, D(Y), f->p, D(S), D(B), D(RM), D(RV),  \
              1e-5, D(SM), D(SV)))                                                                             \
    ROW(train_per_act_desc_in_spatial, BAD, "dim 2",                                                           \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), f->x, D(Y), f->pa, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), D(SV)))  \
    ROW(train_spatial_desc_per_act, BAD, "dim 2",                                                              \
        TRAIN(f->h, PA, A1, A0, f->x, D(X), f->x, D(Y), f->p, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), D(SV)))   \
    ROW(train_float_x_double_params, BAD, "CUDNN_DATA_DOUBLE",                                                 \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), f->x, D(Y), f->pd, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), D(SV)))  \
    ROW(train_half_x_half_params, BAD, "CUDNN_DATA_HALF",                                                      \
        TRAIN(f->h, SP, A1, A0, f->xh, D(X), f->xh, D(Y), f->ph, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), D(SV))) \
    ROW(train_x_y_types_differ, BAD, "yDesc",                                                                  \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), f->xh, D(Y), f->p, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), D(SV)))  \
    ROW(train_y_shape_differs, BAD, "yDesc dim 3",                                                             \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), f->y6, D(Y), f->p, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), D(SV)))  \
    ROW(train_3d_x, BAD, "3 dims",                                                                             \
        TRAIN(f->h, SP, A1, A0, f->x3, D(X), f->x3, D(Y), f->p, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), D(SV))) \
    ROW(train_int8_x, NS, "INT8",                                                                              \
        TRAIN(f->h, SP, A1, A0, f->xi8, D(X), f->xi8, D(Y), f->p, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), D(SV))) \
    ROW(train_negative_stride, BAD, "negative",                                                                \
        TRAIN(f->h, SP, A1, A0, f->xneg, D(X), f->x, D(Y), f->p, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), D(SV))) \
    ROW(train_param_not_packed, BAD, "packed",                                                                 \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), f->x, D(Y), f->pgap, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), D(SV))) \
    ROW(train_null_x, BAD, "NULL",                                                                             \
        TRAIN(f->h, SP, A1, A0, f->x, NULL, f->x, D(Y), f->p, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), D(SV)))   \
    ROW(train_null_y, BAD, "NULL",                                                                             \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), f->x, NULL, f->p, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), D(SV)))   \
    ROW(train_null_scale, BAD, "NULL",                                                                         \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), f->x, D(Y), f->p, NULL, D(B), D(RM), D(RV), 1e-5, D(SM), D(SV)))   \
    ROW(train_null_bias, BAD, "NULL",                                                                          \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), f->x, D(Y), f->p, D(S), NULL, D(RM), D(RV), 1e-5, D(SM), D(SV)))   \
    ROW(train_null_alpha, BAD, "NULL",                                                                         \
        TRAIN(f->h, SP, NULL, A0, f->x, D(X), f->x, D(Y), f->p, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), D(SV))) \
    ROW(train_null_y_desc, BAD, "yDesc",                                                                       \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), NULL, D(Y), f->p, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), D(SV)))   \
    ROW(train_y_partly_over_x, NS, "overlaps",                                                                 \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), f->x, (char *)D(X) + 4, f->p, D(S), D(B), D(RM), D(RV), 1e-5,      \
              D(SM), D(SV)))                                                                                   \
    ROW(train_in_place_other_strides, BAD, "strides",                                                          \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), f->xn, D(X), f->p, D(S), D(B), D(RM), D(RV), 1e-5, D(SM), D(SV)))  \
    ROW(train_saved_mean_is_running_mean, BAD, "overlap",                                                      \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), f->x, D(Y), f->p, D(S), D(B), D(RM), D(RV), 1e-5, D(RM), D(SV)))   \
    ROW(train_running_mean_over_scale, NS, "overlaps",                                                         \
        TRAIN(f->h, SP, A1, A0, f->x, D(X), f->x, D(Y), f->p, D(S), D(B), D(S), D(RV), 1e-5, D(SM), D(SV)))    \
    ROW(infer_ok, OK, NULL,                                                                                    \
        cudnnBatchNormalizationForwardInference(f->h, PA, A1, A0, f->x, D(X), f->x, D(Y), f->pa, D(S), D(B),   \
                                                D(RM), D(RV), 1e-5))                                           \
    ROW(infer_null_mean, BAD, "estimatedMean",                                                                 \
        cudnnBatchNormalizationForwardInference(f->h, SP, A1, A0, f->x, D(X), f->x, D(Y), f->p, D(S), D(B),    \
                                                NULL, D(RV), 1e-5))                                            \
    ROW(infer_eps_negative, BAD, "epsilon",                                                                    \
        cudnnBatchNormalizationForwardInference(f->h, SP, A1, A0, f->x, D(X), f->x, D(Y), f->p, D(S), D(B),    \
                                                D(RM), D(RV), -1.0))                                           \
    ROW(infer_null_beta, BAD, "beta",                                                                          \
        cudnnBatchNormalizationForwardInference(f->h, SP, A1, NULL, f->x, D(X), f->x, D(Y), f->p, D(S), D(B),  \
                                                D(RM), D(RV), 1e-5))                                           \
    ROW(bwd_ok, OK, NULL, BWD(f->x, f->x, f->x, f->p, D(DS), 1e-5, D(SM), D(SV)))                              \
    ROW(bwd_recompute_ok, OK, NULL, BWD(f->x, f->x, f->x, f->p, D(DS), 1e-5, NULL, NULL))                      \
    ROW(bwd_saved_inv_null, BAD, "exactly one", BWD(f->x, f->x, f->x, f->p, D(DS), 1e-5, D(SM), NULL))         \
    ROW(bwd_null_dscale, BAD, "dBnScaleResult", BWD(f->x, f->x, f->x, f->p, NULL, 1e-5, D(SM), D(SV)))         \
    ROW(bwd_eps_negative, BAD, "epsilon", BWD(f->x, f->x, f->x, f->p, D(DS), -1.0, D(SM), D(SV)))              \
    ROW(bwd_dy_type_differs, BAD, "dyDesc", BWD(f->x, f->xh, f->x, f->p, D(DS), 1e-5, D(SM), D(SV)))           \
    ROW(bwd_dx_shape_differs, BAD, "dxDesc", BWD(f->x, f->x, f->y6, f->p, D(DS), 1e-5, D(SM), D(SV)))          \
    ROW(ex_relu_ok, OK, NULL, TRAINX(OPS_ACT, f->relu, NULL, NULL, NULL, 0))                                   \
    ROW(ex_add_relu_ok, OK, NULL, TRAINX(OPS_ADD, f->relu, f->x, D(Z), D(RS), 15))                             \
    ROW(ex_ops_3, BAD, "bnOps 3", TRAINX((cudnnBatchNormOps_t)3, f->relu, NULL, NULL, NULL, 0))                \
    ROW(ex_act_null, BAD, "activationDesc", TRAINX(OPS_ACT, NULL, NULL, NULL, NULL, 0))                       \
    ROW(ex_act_never_set, BAD, "activationDesc", TRAINX(OPS_ACT, f->act_unset, NULL, NULL, NULL, 0))          \
    ROW(ex_identity, NS, "IDENTITY", TRAINX(OPS_ACT, f->ident, NULL, NULL, NULL, 0))                          \
    ROW(ex_add_z_desc_null, BAD, "zDesc", TRAINX(OPS_ADD, f->relu, NULL, D(Z), D(RS), 15))                    \
    ROW(ex_add_z_null, BAD, "zData", TRAINX(OPS_ADD, f->relu, f->x, NULL, D(RS), 15))                         \
    ROW(ex_add_z_shape, BAD, "zDesc dim 3", TRAINX(OPS_ADD, f->relu, f->y6, D(Z), D(RS), 15))                 \
    ROW(ex_reserve_short, BAD, "reserve", TRAINX(OPS_ADD, f->relu, f->x, D(Z), D(RS), 14))                    \
    ROW(ex_reserve_null, BAD, "reserve", TRAINX(OPS_ADD, f->relu, f->x, D(Z), NULL, 15))                      \
    ROW(ex_reserve_over_x, NS, "overlaps", TRAINX(OPS_ADD, f->relu, f->x, D(Z), D(X), 15))                    \
    ROW(bwdx_add_ok, OK, NULL, BWDX(OPS_ADD, f->relu, f->x, D(DZ), D(B), D(RS), 15))                           \
    ROW(bwdx_add_dz_null, BAD, "dzData", BWDX(OPS_ADD, f->relu, f->x, NULL, D(B), D(RS), 15))                 \
    ROW(bwdx_add_dz_desc_null, BAD, "dzDesc", BWDX(OPS_ADD, f->relu, NULL, D(DZ), D(B), D(RS), 15))           \
    ROW(bwdx_add_reserve_short, BAD, "reserve", BWDX(OPS_ADD, f->relu, f->x, D(DZ), D(B), D(RS), 1))          \
    ROW(bwdx_act_bias_null, BAD, "bnBiasData", BWDX(OPS_ACT, f->relu, NULL, NULL, NULL, NULL, 0))             \
    ROW(bwdx_dz_is_dx, BAD, "overlap", BWDX(OPS_ADD, f->relu, f->x, D(DX), D(B), D(RS), 15))                  \
    ROW(getws_null_size, BAD, "sizeInBytes",                                                                   \
        cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(f->h, SP, OPS_BN, f->x, NULL, f->x, f->p,    \
                                                                 NULL, NULL))                                  \
    ROW(getws_ok, OK, NULL,                                                                                    \
        cudnnGetBatchNormalizationBackwardExWorkspaceSize(f->h, SP, OPS_ADD, f->x, f->x, f->x, f->x, f->x,    \
                                                          f->p, f->relu, &f->sz))                              \
    ROW(reserve_query_ok, OK, NULL,                                                                            \
        cudnnGetBatchNormalizationTrainingExReserveSpaceSize(f->h, SP, OPS_ADD, f->relu, f->x, &f->sz))        \
    ROW(reserve_query_mode_9, BAD, "mode 9",                                                                   \
        cudnnGetBatchNormalizationTrainingExReserveSpaceSize(f->h, (cudnnBatchNormMode_t)9, OPS_ADD, f->relu,  \
                                                             f->x, &f->sz))                                    \
    ROW(norm_derive_ok, OK, NULL, cudnnDeriveNormTensorDescriptor(f->out, f->unset, f->xh, CUDNN_NORM_PER_CHANNEL, 1)) \
    ROW(norm_derive_groups_2, NS, "groupCnt", cudnnDeriveNormTensorDescriptor(f->out, f->p, f->x, CUDNN_NORM_PER_CHANNEL, 2)) \
    ROW(norm_derive_mode_5, BAD, "mode 5", cudnnDeriveNormTensorDescriptor(f->out, f->p, f->x, (cudnnNormMode_t)5, 1)) \
    ROW(norm_train_ok, OK, NULL, NTRAIN(CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM_ADD_ACTIVATION,            \
                                        CUDNN_NORM_ALGO_PERSIST, D(SM), D(SV), 1))                             \
    ROW(norm_train_groups_2, NS, "groupCnt", NTRAIN(CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM,               \
                                                    CUDNN_NORM_ALGO_STANDARD, D(SM), D(SV), 2))                \
    ROW(norm_train_groups_0, NS, "groupCnt", NTRAIN(CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM,               \
                                                    CUDNN_NORM_ALGO_STANDARD, D(SM), D(SV), 0))                \
    ROW(norm_train_persist_per_act, NS, "PERSIST", NTRAIN(CUDNN_NORM_PER_ACTIVATION, CUDNN_NORM_OPS_NORM,      \
                                                          CUDNN_NORM_ALGO_PERSIST, D(SM), D(SV), 1))           \
    ROW(norm_train_algo_2, BAD, "algo 2", NTRAIN(CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM,                  \
                                                 (cudnnNormAlgo_t)2, D(SM), D(SV), 1))                         \
    ROW(norm_train_ops_3, BAD, "normOps 3", NTRAIN(CUDNN_NORM_PER_CHANNEL, (cudnnNormOps_t)3,                  \
                                                   CUDNN_NORM_ALGO_STANDARD, D(SM), D(SV), 1))                 \
    ROW(norm_train_mode_2, BAD, "mode 2", NTRAIN((cudnnNormMode_t)2, CUDNN_NORM_OPS_NORM,                      \
                                                 CUDNN_NORM_ALGO_STANDARD, D(SM), D(SV), 1))                   \
    ROW(norm_train_save_inv_null, BAD, "exactly one", NTRAIN(CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM,      \
                                                             CUDNN_NORM_ALGO_STANDARD, D(SM), NULL, 1))        \
    ROW(norm_bwd_ok, OK, NULL, NBWD(1e-5, 1))                                                                  \
    ROW(norm_bwd_eps_negative, BAD, "epsilon", NBWD(-1e-3, 1))                                                 \
    ROW(norm_bwd_groups_3, NS, "groupCnt", NBWD(1e-5, 3))                                                      \
    ROW(norm_infer_add_relu_ok, OK, NULL, NINFER(CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM_ADD_ACTIVATION,   \
                                                 CUDNN_NORM_ALGO_STANDARD, 1))                                 \
    ROW(norm_infer_groups_2, NS, "groupCnt", NINFER(CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM,               \
                                                    CUDNN_NORM_ALGO_STANDARD, 2))                              \
    ROW(norm_reserve_groups_2, NS, "groupCnt",                                                                 \
        cudnnGetNormalizationTrainingReserveSpaceSize(f->h, CUDNN_NORM_PER_CHANNEL, CUDNN_NORM_OPS_NORM,       \
                                                      CUDNN_NORM_ALGO_STANDARD, NULL, f->x, &f->sz, 2))

#define ROW(name, st, word, call)                                                                              \
    static cudnnStatus_t row_##name(fx_t *f)                                                                   \
    {                                                                                                          \
        return call;                                                                                           \
    }
ROWS
#undef ROW

typedef struct {
    const char *name;
    cudnnStatus_t want;
    const char *word;
    cudnnStatus_t (*call)(fx_t *f);
} row_t;

static const row_t rows[] = {
#define ROW(name, st, word, call) {#name, st, word, row_##name},
    ROWS
#undef ROW
};

/* The derived-target descriptor as the getters report it. */
typedef struct {
    cudnnDataType_t dt;
    int nd, dim[8], stride[8];
} desc_state_t;

static desc_state_t desc_state(cudnnTensorDescriptor_t d)
{
    desc_state_t s;
    memset(&s, 0, sizeof s);
    cudnnGetTensorNdDescriptor(d, 8, &s.dt, &s.nd, s.dim, s.stride);
    return s;
}

static void run_row(const row_t *r)
{
    fx_t fx, *f = &fx;
    fx_init(f);
    uint64_t before[B_COUNT];
    for (int b = 0; b < B_COUNT; b++)
        before[b] = fd_buf_hash(&f->buf[b]);
    desc_state_t out0 = desc_state(f->out), p0 = desc_state(f->p);
    /* a sentinel error, so a rejection must write its own reason */
    cudnnSetTensor4dDescriptor(NULL, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1);
    char sentinel[512], msg[512];
    cudnnGetLastErrorString(sentinel, sizeof sentinel);
    cudnnStatus_t st = r->call(f);
    FD_EXPECT(st == r->want, "%s: got %s, want %s", r->name, cudnnGetErrorString(st), cudnnGetErrorString(r->want));
    for (int b = 0; b < B_COUNT; b++) {
        FD_EXPECT(fd_buf_guards_ok(&f->buf[b]), "%s: guard of buffer %d damaged", r->name, b);
        if (is_input[b] || st != CUDNN_STATUS_SUCCESS)
            FD_EXPECT(fd_buf_hash(&f->buf[b]) == before[b], "%s: buffer %d changed%s", r->name, b,
                      is_input[b] ? " (an input)" : " by a rejected call");
    }
    if (st != CUDNN_STATUS_SUCCESS) {
        cudnnGetLastErrorString(msg, sizeof msg);
        FD_EXPECT(msg[0] != '\0' && strcmp(msg, sentinel) != 0, "%s: no reason recorded (\"%s\")", r->name, msg);
        FD_EXPECT(r->word == NULL || strstr(msg, r->word) != NULL, "%s: reason \"%s\" lacks \"%s\"", r->name, msg,
                  r->word);
        desc_state_t out1 = desc_state(f->out), p1 = desc_state(f->p);
        FD_EXPECT(memcmp(&out0, &out1, sizeof out0) == 0 && memcmp(&p0, &p1, sizeof p0) == 0,
                  "%s: a rejected call changed a descriptor", r->name);
        FD_EXPECT(f->sz == 12345, "%s: a rejected query wrote its size", r->name);
    }
    fx_free(f);
}

/* Successful derivations read back as cuDNN 9.19 gives them. */
static void derived_shapes(void)
{
    fx_t fx, *f = &fx;
    fx_init(f);
    FD_EXPECT_STATUS(cudnnDeriveBNTensorDescriptor(f->out, f->xh, PA), CUDNN_STATUS_SUCCESS);
    desc_state_t s = desc_state(f->out);
    FD_EXPECT(s.dt == CUDNN_DATA_FLOAT && s.nd == 4 && s.dim[0] == 1 && s.dim[1] == 3 && s.dim[2] == 4 &&
                  s.dim[3] == 5 && s.stride[0] == 60 && s.stride[1] == 20 && s.stride[2] == 5 && s.stride[3] == 1,
              "per-activation derivation of half 2x3x4x5: %d %dd %dx%dx%dx%d / %d,%d,%d,%d", (int)s.dt, s.nd,
              s.dim[0], s.dim[1], s.dim[2], s.dim[3], s.stride[0], s.stride[1], s.stride[2], s.stride[3]);
    cudnnTensorDescriptor_t xd, xb;
    cudnnCreateTensorDescriptor(&xd);
    cudnnCreateTensorDescriptor(&xb);
    const int d5[5] = {2, 3, 2, 2, 2}, s5[5] = {24, 8, 4, 2, 1};
    cudnnSetTensorNdDescriptor(xd, CUDNN_DATA_DOUBLE, 5, d5, s5);
    FD_EXPECT_STATUS(cudnnDeriveBNTensorDescriptor(f->out, xd, CUDNN_BATCHNORM_SPATIAL_PERSISTENT),
                     CUDNN_STATUS_SUCCESS);
    s = desc_state(f->out);
    FD_EXPECT(s.dt == CUDNN_DATA_DOUBLE && s.nd == 5 && s.dim[1] == 3 && s.dim[2] == 1 && s.dim[4] == 1,
              "spatial derivation of double 5-d");
    cudnnSetTensor4dDescriptor(xb, CUDNN_TENSOR_NHWC, CUDNN_DATA_BFLOAT16, 2, 7, 3, 3);
    cudnnTensorDescriptor_t mv;
    cudnnCreateTensorDescriptor(&mv);
    FD_EXPECT_STATUS(cudnnDeriveNormTensorDescriptor(f->out, mv, xb, CUDNN_NORM_PER_CHANNEL, 1), CUDNN_STATUS_SUCCESS);
    s = desc_state(f->out);
    desc_state_t m = desc_state(mv);
    FD_EXPECT(s.dt == CUDNN_DATA_FLOAT && m.dt == CUDNN_DATA_FLOAT && s.dim[1] == 7 && m.dim[1] == 7 &&
                  s.dim[2] == 1 && m.dim[3] == 1,
              "norm derivation of bf16 NHWC 2x7x3x3");
    /* reserve sizes: 0 for BN and BN_ACTIVATION, a bit per element for ReLU + add, a double per
     * element for a smooth activation + add */
    size_t sz = 99;
    FD_EXPECT_STATUS(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(f->h, SP, OPS_ACT, f->relu, f->x, &sz),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(sz == 0, "BN_ACTIVATION reserve %zu, want 0", sz);
    FD_EXPECT_STATUS(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(f->h, SP, OPS_ADD, f->relu, f->x, &sz),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(sz == 15, "ADD + ReLU reserve for 120 elements %zu, want 15", sz);
    cudnnActivationDescriptor_t tanh_act;
    cudnnCreateActivationDescriptor(&tanh_act);
    cudnnSetActivationDescriptor(tanh_act, CUDNN_ACTIVATION_TANH, CUDNN_NOT_PROPAGATE_NAN, 0.0);
    FD_EXPECT_STATUS(cudnnGetNormalizationTrainingReserveSpaceSize(f->h, CUDNN_NORM_PER_ACTIVATION,
                                                                   CUDNN_NORM_OPS_NORM_ADD_ACTIVATION,
                                                                   CUDNN_NORM_ALGO_STANDARD, tanh_act, f->x, &sz, 1),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(sz == 120 * sizeof(double), "ADD + tanh reserve %zu, want %zu", sz, 120 * sizeof(double));
    sz = 99;
    FD_EXPECT_STATUS(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(f->h, SP, OPS_ADD, f->x, f->x, f->x,
                                                                              f->p, f->relu, &sz),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT(sz == 0, "the reference takes no workspace, reported %zu", sz);
    /* derivation in place: the output may be xDesc itself */
    FD_EXPECT_STATUS(cudnnDeriveBNTensorDescriptor(xd, xd, SP), CUDNN_STATUS_SUCCESS);
    s = desc_state(xd);
    FD_EXPECT(s.dt == CUDNN_DATA_DOUBLE && s.nd == 5 && s.dim[0] == 1 && s.dim[1] == 3 && s.dim[2] == 1 &&
                  s.stride[1] == 1,
              "in-place derivation of double 2x3x2x2x2");
    FD_EXPECT_STATUS(cudnnDeriveNormTensorDescriptor(xb, mv, xb, CUDNN_NORM_PER_ACTIVATION, 1), CUDNN_STATUS_SUCCESS);
    s = desc_state(xb), m = desc_state(mv);
    FD_EXPECT(s.dim[0] == 1 && s.dim[1] == 7 && s.dim[2] == 3 && m.dim[0] == 1 && m.dim[2] == 3 &&
                  m.dt == CUDNN_DATA_FLOAT,
              "in-place norm derivation of bf16 2x7x3x3");
    cudnnDestroyActivationDescriptor(tanh_act);
    cudnnDestroyTensorDescriptor(mv);
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(xb);
    fx_free(f);
}

int main(void)
{
    const int n = (int)(sizeof rows / sizeof rows[0]);
    for (int i = 0; i < n; i++)
        run_row(&rows[i]);
    derived_shapes();
    printf("%d contract rows\n", n);
    return fd_test_finish();
}
