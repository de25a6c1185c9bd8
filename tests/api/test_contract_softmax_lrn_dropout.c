/* SPDX-License-Identifier: MIT */
/*
 * test_contract_softmax_lrn_dropout.c - the contract table of softmax, LRN / divisive
 * normalization and dropout (contract §1.2, §1.2.2, §4.1, §4.6).
 *
 * Every row makes one call with one bad argument and names the exact status. For each row the
 * runner plants a sentinel error first, then checks: the status; that cudnnGetLastErrorString
 * now names the called function (a fresh, non-empty reason); that every data buffer (inputs,
 * outputs, scratch, reserve space, dropout states) hashes as before with intact guards; that
 * the victim LRN and dropout descriptors read back unchanged. SUCCESS rows check that the
 * fixture itself is valid (their outputs may change).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fd_test.h"

enum { B_X, B_Y, B_DY, B_DX, B_M, B_T1, B_T2, B_RES, B_ST, B_ST2, B_STG, B_COUNT };
static const size_t buf_bytes[B_COUNT] = {
    [B_X] = 960,  [B_Y] = 960,   [B_DY] = 960, [B_DX] = 960, [B_M] = 960, [B_T1] = 960,
    [B_T2] = 960, [B_RES] = 120, [B_ST] = 64,  [B_ST2] = 64, [B_STG] = 64};

static struct {
    cudnnHandle_t h;
    cudnnTensorDescriptor_t t4, t4h, t4d, t4m, t4i8, t3, t2, tneg, tovl, tu, t6, t120, t121;
    cudnnLRNDescriptor_t lrn, lrnv;
    cudnnDropoutDescriptor_t dd, ddv, ddn, ddg;
    fd_buf_t b[B_COUNT];
    float one, zero;
    size_t sz;
    float p;
    void *ptr;
    unsigned long long seed;
    unsigned n;
    double a, be, k;
} F;

static unsigned char garbage[512];
#define GARBAGE(T) ((T)(void *)garbage)
#define X F.b[B_X].data
#define Y F.b[B_Y].data
#define DY F.b[B_DY].data
#define DX F.b[B_DX].data
#define M F.b[B_M].data
#define T1 F.b[B_T1].data
#define T2 F.b[B_T2].data
#define RES F.b[B_RES].data
#define ST F.b[B_ST].data
#define ST2 F.b[B_ST2].data
#define STG F.b[B_STG].data
#define ONE (&F.one)
#define ZERO (&F.zero)
#define XOFF ((void *)((char *)F.b[B_X].data + 28)) /* inside x */

#define SMF(h, algo, mode, xd, x, yd, y) cudnnSoftmaxForward(h, algo, mode, ONE, xd, x, ZERO, yd, y)
#define SMB(yd, y, dyd, dy, dxd, dx)                                                               \
    cudnnSoftmaxBackward(F.h, 1, 1, ONE, yd, y, dyd, dy, ZERO, dxd, dx)
#define LRNF(nd, mode, xd, x, yd, y)                                                               \
    cudnnLRNCrossChannelForward(F.h, nd, mode, ONE, xd, x, ZERO, yd, y)
#define LRNB(yd, y, dyd, dy, xd, x, dxd, dx)                                                       \
    cudnnLRNCrossChannelBackward(F.h, F.lrn, 0, ONE, yd, y, dyd, dy, xd, x, ZERO, dxd, dx)
#define DNF(mode, xd, x, m, t1, t2, yd, y)                                                         \
    cudnnDivisiveNormalizationForward(F.h, F.lrn, mode, ONE, xd, x, m, t1, t2, ZERO, yd, y)
#define DNB(xd, x, m, dy, t1, t2, dxd, dx, dm)                                                     \
    cudnnDivisiveNormalizationBackward(F.h, F.lrn, 0, ONE, xd, x, m, dy, t1, t2, ZERO, dxd, dx, dm)
#define DOF(d, xd, x, yd, y, r, rs) cudnnDropoutForward(F.h, d, xd, x, yd, y, r, rs)
#define DOB(d, xd, x, yd, y, r, rs) cudnnDropoutBackward(F.h, d, xd, x, yd, y, r, rs)

/* X(id, function named by the reason, expected status, call) */
#define ROWS(R)                                                                                    \
    /* ---- softmax ---- */                                                                        \
    R(sm_ok, "", SUCCESS, SMF(F.h, 1, 0, F.t4, X, F.t4, Y))                                        \
    R(sm_ok_inplace, "", SUCCESS, SMF(F.h, 2, 1, F.t4, X, F.t4, X))                                \
    R(sm_bwd_ok, "", SUCCESS, SMB(F.t4, Y, F.t4, DY, F.t4, DX))                                    \
    R(sm_null_handle, "cudnnSoftmaxForward", BAD_PARAM, SMF(NULL, 1, 0, F.t4, X, F.t4, Y))         \
    R(sm_garbage_handle, "cudnnSoftmaxForward", BAD_PARAM,                                         \
      SMF(GARBAGE(cudnnHandle_t), 1, 0, F.t4, X, F.t4, Y))                                         \
    R(sm_bad_algo, "cudnnSoftmaxForward", BAD_PARAM, SMF(F.h, 3, 0, F.t4, X, F.t4, Y))             \
    R(sm_neg_algo, "cudnnSoftmaxForward", BAD_PARAM, SMF(F.h, -1, 0, F.t4, X, F.t4, Y))            \
    R(sm_bad_mode, "cudnnSoftmaxForward", BAD_PARAM, SMF(F.h, 1, 2, F.t4, X, F.t4, Y))             \
    R(sm_null_alpha, "cudnnSoftmaxForward", BAD_PARAM,                                             \
      cudnnSoftmaxForward(F.h, 1, 0, NULL, F.t4, X, ZERO, F.t4, Y))                                \
    R(sm_null_beta, "cudnnSoftmaxForward", BAD_PARAM,                                              \
      cudnnSoftmaxForward(F.h, 1, 0, ONE, F.t4, X, NULL, F.t4, Y))                                 \
    R(sm_null_x, "cudnnSoftmaxForward", BAD_PARAM, SMF(F.h, 1, 0, F.t4, NULL, F.t4, Y))            \
    R(sm_null_y, "cudnnSoftmaxForward", BAD_PARAM, SMF(F.h, 1, 0, F.t4, X, F.t4, NULL))            \
    R(sm_null_xdesc, "cudnnSoftmaxForward", BAD_PARAM, SMF(F.h, 1, 0, NULL, X, F.t4, Y))           \
    R(sm_unset_ydesc, "cudnnSoftmaxForward", BAD_PARAM, SMF(F.h, 1, 0, F.t4, X, F.tu, Y))          \
    R(sm_garbage_xdesc, "cudnnSoftmaxForward", BAD_PARAM,                                          \
      SMF(F.h, 1, 0, GARBAGE(cudnnTensorDescriptor_t), X, F.t4, Y))                                \
    R(sm_dims, "cudnnSoftmaxForward", BAD_PARAM, SMF(F.h, 1, 0, F.t4, X, F.t4m, Y))                \
    R(sm_rank, "cudnnSoftmaxForward", BAD_PARAM, SMF(F.h, 1, 0, F.t4, X, F.t3, Y))                 \
    R(sm_dtype, "cudnnSoftmaxForward", BAD_PARAM, SMF(F.h, 1, 0, F.t4, X, F.t4d, Y))               \
    R(sm_int8, "cudnnSoftmaxForward", NOT_SUPPORTED, SMF(F.h, 1, 0, F.t4i8, X, F.t4i8, Y))         \
    R(sm_3d, "cudnnSoftmaxForward", NOT_SUPPORTED, SMF(F.h, 1, 0, F.t3, X, F.t3, Y))               \
    R(sm_6d, "cudnnSoftmaxForward", NOT_SUPPORTED, SMF(F.h, 1, 0, F.t6, X, F.t6, Y))               \
    R(sm_neg_stride, "cudnnSoftmaxForward", NOT_SUPPORTED,                                         \
      SMF(F.h, 1, 0, F.tneg, XOFF, F.tneg, Y))                                                     \
    R(sm_y_overlaps_itself, "cudnnSoftmaxForward", BAD_PARAM, SMF(F.h, 1, 0, F.t4, X, F.tovl, Y))  \
    R(sm_inplace_strides, "cudnnSoftmaxForward", BAD_PARAM, SMF(F.h, 1, 0, F.t4, X, F.t4h, X))     \
    R(sm_partial_overlap, "cudnnSoftmaxForward", BAD_PARAM, SMF(F.h, 1, 0, F.t4, X, F.t4, XOFF))   \
    R(smb_null_dx, "cudnnSoftmaxBackward", BAD_PARAM, SMB(F.t4, Y, F.t4, DY, F.t4, NULL))          \
    R(smb_dy_dims, "cudnnSoftmaxBackward", BAD_PARAM, SMB(F.t4, Y, F.t4m, DY, F.t4, DX))           \
    R(smb_dx_dtype, "cudnnSoftmaxBackward", BAD_PARAM, SMB(F.t4, Y, F.t4, DY, F.t4d, DX))          \
    R(smb_dx_overlaps_y, "cudnnSoftmaxBackward", BAD_PARAM, SMB(F.t4, X, F.t4, DY, F.t4, XOFF))    \
    R(smb_bad_algo, "cudnnSoftmaxBackward", BAD_PARAM,                                             \
      cudnnSoftmaxBackward(F.h, 7, 1, ONE, F.t4, Y, F.t4, DY, ZERO, F.t4, DX))                     \
    /* ---- LRN descriptor ---- */                                                                 \
    R(lrn_create_null, "cudnnCreateLRNDescriptor", BAD_PARAM, cudnnCreateLRNDescriptor(NULL))      \
    R(lrn_set_null, "cudnnSetLRNDescriptor", BAD_PARAM,                                            \
      cudnnSetLRNDescriptor(NULL, 5, 1e-4, 0.75, 2))                                               \
    R(lrn_set_garbage, "cudnnSetLRNDescriptor", BAD_PARAM,                                         \
      cudnnSetLRNDescriptor(GARBAGE(cudnnLRNDescriptor_t), 5, 1e-4, 0.75, 2))                      \
    R(lrn_set_n0, "cudnnSetLRNDescriptor", BAD_PARAM,                                              \
      cudnnSetLRNDescriptor(F.lrnv, 0, 1e-4, 0.75, 2))                                             \
    R(lrn_set_n17, "cudnnSetLRNDescriptor", BAD_PARAM,                                             \
      cudnnSetLRNDescriptor(F.lrnv, 17, 1e-4, 0.75, 2))                                            \
    R(lrn_set_beta, "cudnnSetLRNDescriptor", BAD_PARAM,                                            \
      cudnnSetLRNDescriptor(F.lrnv, 5, 1e-4, 0.0099, 2))                                           \
    R(lrn_set_beta_nan, "cudnnSetLRNDescriptor", BAD_PARAM,                                        \
      cudnnSetLRNDescriptor(F.lrnv, 5, 1e-4, NAN, 2))                                              \
    R(lrn_set_k, "cudnnSetLRNDescriptor", BAD_PARAM,                                               \
      cudnnSetLRNDescriptor(F.lrnv, 5, 1e-4, 0.75, 9e-6))                                          \
    R(lrn_set_k_inf, "cudnnSetLRNDescriptor", BAD_PARAM,                                           \
      cudnnSetLRNDescriptor(F.lrnv, 5, 1e-4, 0.75, INFINITY))                                      \
    R(lrn_set_alpha_nan, "cudnnSetLRNDescriptor", BAD_PARAM,                                       \
      cudnnSetLRNDescriptor(F.lrnv, 5, NAN, 0.75, 2))                                              \
    R(lrn_get_null, "cudnnGetLRNDescriptor", BAD_PARAM,                                            \
      cudnnGetLRNDescriptor(NULL, &F.n, &F.a, &F.be, &F.k))                                        \
    R(lrn_destroy_garbage, "cudnnDestroyLRNDescriptor", BAD_PARAM,                                 \
      cudnnDestroyLRNDescriptor(GARBAGE(cudnnLRNDescriptor_t)))                                    \
    /* ---- cross-channel LRN ---- */                                                              \
    R(lrnf_ok, "", SUCCESS, LRNF(F.lrn, 0, F.t4, X, F.t4h, Y))                                     \
    R(lrnb_ok, "", SUCCESS, LRNB(F.t4, Y, F.t4, DY, F.t4, X, F.t4, DX))                            \
    R(lrnf_null_handle, "cudnnLRNCrossChannelForward", BAD_PARAM,                                  \
      cudnnLRNCrossChannelForward(NULL, F.lrn, 0, ONE, F.t4, X, ZERO, F.t4, Y))                    \
    R(lrnf_null_desc, "cudnnLRNCrossChannelForward", BAD_PARAM, LRNF(NULL, 0, F.t4, X, F.t4, Y))   \
    R(lrnf_bad_mode, "cudnnLRNCrossChannelForward", BAD_PARAM, LRNF(F.lrn, 1, F.t4, X, F.t4, Y))   \
    R(lrnf_null_x, "cudnnLRNCrossChannelForward", BAD_PARAM, LRNF(F.lrn, 0, F.t4, NULL, F.t4, Y))  \
    R(lrnf_null_alpha, "cudnnLRNCrossChannelForward", BAD_PARAM,                                   \
      cudnnLRNCrossChannelForward(F.h, F.lrn, 0, NULL, F.t4, X, ZERO, F.t4, Y))                    \
    R(lrnf_2d, "cudnnLRNCrossChannelForward", BAD_PARAM, LRNF(F.lrn, 0, F.t2, X, F.t2, Y))         \
    R(lrnf_3d, "cudnnLRNCrossChannelForward", NOT_SUPPORTED, LRNF(F.lrn, 0, F.t3, X, F.t3, Y))     \
    R(lrnf_dims, "cudnnLRNCrossChannelForward", NOT_SUPPORTED, LRNF(F.lrn, 0, F.t4, X, F.t4m, Y))  \
    R(lrnf_dtype, "cudnnLRNCrossChannelForward", NOT_SUPPORTED, LRNF(F.lrn, 0, F.t4, X, F.t4d, Y)) \
    R(lrnf_int8, "cudnnLRNCrossChannelForward", NOT_SUPPORTED,                                     \
      LRNF(F.lrn, 0, F.t4i8, X, F.t4i8, Y))                                                        \
    R(lrnf_neg_stride, "cudnnLRNCrossChannelForward", NOT_SUPPORTED,                               \
      LRNF(F.lrn, 0, F.tneg, XOFF, F.t4, Y))                                                       \
    R(lrnf_inplace, "cudnnLRNCrossChannelForward", NOT_SUPPORTED,                                  \
      LRNF(F.lrn, 0, F.t4, X, F.t4, X))                                                            \
    R(lrnf_y_overlaps_itself, "cudnnLRNCrossChannelForward", BAD_PARAM,                            \
      LRNF(F.lrn, 0, F.t4, X, F.tovl, Y))                                                          \
    R(lrnb_null_dx, "cudnnLRNCrossChannelBackward", BAD_PARAM,                                     \
      LRNB(F.t4, Y, F.t4, DY, F.t4, X, F.t4, NULL))                                                \
    R(lrnb_dy_dims, "cudnnLRNCrossChannelBackward", NOT_SUPPORTED,                                 \
      LRNB(F.t4, Y, F.t4m, DY, F.t4, X, F.t4, DX))                                                 \
    R(lrnb_dx_is_dy, "cudnnLRNCrossChannelBackward", NOT_SUPPORTED,                                \
      LRNB(F.t4, Y, F.t4, DY, F.t4, X, F.t4, DY))                                                  \
    /* ---- divisive normalization ---- */                                                         \
    R(dnf_ok, "", SUCCESS, DNF(0, F.t4, X, M, T1, T2, F.t4h, Y))                                   \
    R(dnf_ok_inplace, "", SUCCESS, DNF(0, F.t4, X, NULL, T1, T2, F.t4, X))                         \
    R(dnb_ok, "", SUCCESS, DNB(F.t4, X, M, DY, T1, T2, F.t4, DX, Y))                               \
    R(dnf_bad_mode, "cudnnDivisiveNormalizationForward", BAD_PARAM,                                \
      DNF(1, F.t4, X, M, T1, T2, F.t4, Y))                                                         \
    R(dnf_null_temp, "cudnnDivisiveNormalizationForward", BAD_PARAM,                               \
      DNF(0, F.t4, X, M, NULL, T2, F.t4, Y))                                                       \
    R(dnf_null_temp2, "cudnnDivisiveNormalizationForward", BAD_PARAM,                              \
      DNF(0, F.t4, X, M, T1, NULL, F.t4, Y))                                                       \
    R(dnf_null_desc, "cudnnDivisiveNormalizationForward", BAD_PARAM,                               \
      cudnnDivisiveNormalizationForward(F.h, NULL, 0, ONE, F.t4, X, M, T1, T2, ZERO, F.t4, Y))     \
    R(dnf_3d, "cudnnDivisiveNormalizationForward", BAD_PARAM, DNF(0, F.t3, X, M, T1, T2, F.t3, Y)) \
    R(dnf_6d, "cudnnDivisiveNormalizationForward", BAD_PARAM, DNF(0, F.t6, X, M, T1, T2, F.t6, Y)) \
    R(dnf_dims, "cudnnDivisiveNormalizationForward", BAD_PARAM,                                    \
      DNF(0, F.t4, X, M, T1, T2, F.t4m, Y))                                                        \
    R(dnf_dtype, "cudnnDivisiveNormalizationForward", NOT_SUPPORTED,                               \
      DNF(0, F.t4, X, M, T1, T2, F.t4d, Y))                                                        \
    R(dnf_neg_stride, "cudnnDivisiveNormalizationForward", BAD_PARAM,                              \
      DNF(0, F.tneg, XOFF, M, T1, T2, F.tneg, Y))                                                  \
    R(dnf_inplace_strides, "cudnnDivisiveNormalizationForward", BAD_PARAM,                         \
      DNF(0, F.t4, X, M, T1, T2, F.t4h, X))                                                        \
    R(dnf_temp_is_x, "cudnnDivisiveNormalizationForward", BAD_PARAM,                               \
      DNF(0, F.t4, X, M, X, T2, F.t4, Y))                                                          \
    R(dnf_y_is_means, "cudnnDivisiveNormalizationForward", BAD_PARAM,                              \
      DNF(0, F.t4, X, M, T1, T2, F.t4, M))                                                         \
    R(dnb_null_dy, "cudnnDivisiveNormalizationBackward", BAD_PARAM,                                \
      DNB(F.t4, X, M, NULL, T1, T2, F.t4, DX, Y))                                                  \
    R(dnb_dmeans_is_dx, "cudnnDivisiveNormalizationBackward", BAD_PARAM,                           \
      DNB(F.t4, X, M, DY, T1, T2, F.t4, DX, DX))                                                   \
    R(dnb_temp2_is_dy, "cudnnDivisiveNormalizationBackward", BAD_PARAM,                            \
      DNB(F.t4, X, M, DY, T1, DY, F.t4, DX, Y))                                                    \
    /* ---- dropout ---- */                                                                        \
    R(do_fwd_ok, "", SUCCESS, DOF(F.dd, F.t4, X, F.t4h, Y, RES, 120))                              \
    R(do_bwd_ok, "", SUCCESS, DOB(F.dd, F.t4, DY, F.t120, DX, RES, 120))                           \
    R(do_create_null, "cudnnCreateDropoutDescriptor", BAD_PARAM,                                   \
      cudnnCreateDropoutDescriptor(NULL))                                                          \
    R(do_destroy_garbage, "cudnnDestroyDropoutDescriptor", BAD_PARAM,                              \
      cudnnDestroyDropoutDescriptor(GARBAGE(cudnnDropoutDescriptor_t)))                            \
    R(do_states_size_null, "cudnnDropoutGetStatesSize", BAD_PARAM,                                 \
      cudnnDropoutGetStatesSize(F.h, NULL))                                                        \
    R(do_states_size_handle, "cudnnDropoutGetStatesSize", BAD_PARAM,                               \
      cudnnDropoutGetStatesSize(NULL, &F.sz))                                                      \
    R(do_reserve_unset, "cudnnDropoutGetReserveSpaceSize", BAD_PARAM,                              \
      cudnnDropoutGetReserveSpaceSize(F.tu, &F.sz))                                                \
    R(do_reserve_null, "cudnnDropoutGetReserveSpaceSize", BAD_PARAM,                               \
      cudnnDropoutGetReserveSpaceSize(F.t4, NULL))                                                 \
    R(do_set_p_above, "cudnnSetDropoutDescriptor", BAD_PARAM,                                      \
      cudnnSetDropoutDescriptor(F.ddv, F.h, 1.5f, ST2, 64, 1))                                     \
    R(do_set_p_below, "cudnnSetDropoutDescriptor", BAD_PARAM,                                      \
      cudnnSetDropoutDescriptor(F.ddv, F.h, -0.1f, ST2, 64, 1))                                    \
    R(do_set_p_nan, "cudnnSetDropoutDescriptor", BAD_PARAM,                                        \
      cudnnSetDropoutDescriptor(F.ddv, F.h, NAN, ST2, 64, 1))                                      \
    R(do_set_p_nostates, "cudnnSetDropoutDescriptor", BAD_PARAM,                                   \
      cudnnSetDropoutDescriptor(F.ddv, F.h, 2.0f, NULL, 0, 1))                                     \
    R(do_set_small, "cudnnSetDropoutDescriptor", BAD_PARAM,                                        \
      cudnnSetDropoutDescriptor(F.ddv, F.h, 0.5f, ST2, 63, 1))                                     \
    R(do_set_handle, "cudnnSetDropoutDescriptor", BAD_PARAM,                                       \
      cudnnSetDropoutDescriptor(F.ddv, NULL, 0.5f, ST2, 64, 1))                                    \
    R(do_set_desc, "cudnnSetDropoutDescriptor", BAD_PARAM,                                         \
      cudnnSetDropoutDescriptor(GARBAGE(cudnnDropoutDescriptor_t), F.h, 0.5f, ST2, 64, 1))         \
    R(do_restore_null, "cudnnRestoreDropoutDescriptor", BAD_PARAM,                                 \
      cudnnRestoreDropoutDescriptor(F.ddv, F.h, 0.5f, NULL, 64, 1))                                \
    R(do_restore_small, "cudnnRestoreDropoutDescriptor", BAD_PARAM,                                \
      cudnnRestoreDropoutDescriptor(F.ddv, F.h, 0.5f, ST, 8, 1))                                   \
    R(do_restore_p, "cudnnRestoreDropoutDescriptor", BAD_PARAM,                                    \
      cudnnRestoreDropoutDescriptor(F.ddv, F.h, 1.01f, ST, 64, 1))                                 \
    R(do_get_null, "cudnnGetDropoutDescriptor", BAD_PARAM,                                         \
      cudnnGetDropoutDescriptor(F.ddv, F.h, &F.p, NULL, &F.seed))                                  \
    R(do_fwd_reserve_small, "cudnnDropoutForward", BAD_PARAM,                                      \
      DOF(F.dd, F.t4, X, F.t4, Y, RES, 119))                                                       \
    R(do_fwd_reserve_null, "cudnnDropoutForward", BAD_PARAM,                                       \
      DOF(F.dd, F.t4, X, F.t4, Y, NULL, 120))                                                      \
    R(do_fwd_null_x, "cudnnDropoutForward", BAD_PARAM, DOF(F.dd, F.t4, NULL, F.t4, Y, RES, 120))   \
    R(do_fwd_null_desc, "cudnnDropoutForward", BAD_PARAM, DOF(NULL, F.t4, X, F.t4, Y, RES, 120))   \
    R(do_fwd_count, "cudnnDropoutForward", BAD_PARAM, DOF(F.dd, F.t4, X, F.t121, Y, RES, 120))     \
    R(do_fwd_dtype, "cudnnDropoutForward", BAD_PARAM, DOF(F.dd, F.t4, X, F.t4d, Y, RES, 120))      \
    R(do_fwd_int8, "cudnnDropoutForward", NOT_SUPPORTED,                                           \
      DOF(F.dd, F.t4i8, X, F.t4i8, Y, RES, 120))                                                   \
    R(do_fwd_no_states, "cudnnDropoutForward", BAD_PARAM, DOF(F.ddn, F.t4, X, F.t4, Y, RES, 120))  \
    R(do_fwd_uninit_states, "cudnnDropoutForward", BAD_PARAM,                                      \
      DOF(F.ddg, F.t4, X, F.t4, Y, RES, 120))                                                      \
    R(do_fwd_inplace_strides, "cudnnDropoutForward", BAD_PARAM,                                    \
      DOF(F.dd, F.t4, X, F.t4h, X, RES, 120))                                                      \
    R(do_fwd_y_overlaps_x, "cudnnDropoutForward", BAD_PARAM,                                       \
      DOF(F.dd, F.t4, X, F.t4, XOFF, RES, 120))                                                    \
    R(do_fwd_reserve_is_y, "cudnnDropoutForward", BAD_PARAM, DOF(F.dd, F.t4, X, F.t4, Y, Y, 480))  \
    R(do_fwd_y_overlaps_itself, "cudnnDropoutForward", BAD_PARAM,                                  \
      DOF(F.dd, F.t4, X, F.tovl, Y, RES, 120))                                                     \
    R(do_bwd_null_dx, "cudnnDropoutBackward", BAD_PARAM,                                           \
      DOB(F.dd, F.t4, DY, F.t4, NULL, RES, 120))                                                   \
    R(do_bwd_reserve_small, "cudnnDropoutBackward", BAD_PARAM,                                     \
      DOB(F.dd, F.t4, DY, F.t4, DX, RES, 1))                                                       \
    R(do_bwd_dtype, "cudnnDropoutBackward", BAD_PARAM, DOB(F.dd, F.t4, DY, F.t4d, DX, RES, 120))

#define DEF(id, fn, st, ...)                                                                       \
    static cudnnStatus_t row_##id(void)                                                            \
    {                                                                                              \
        return __VA_ARGS__;                                                                        \
    }
ROWS(DEF)
#undef DEF

typedef struct {
    const char *name, *function;
    cudnnStatus_t want;
    cudnnStatus_t (*call)(void);
} row_t;
#define ENT(id, fn, st, ...) {#id, fn, CUDNN_STATUS_##st, row_##id},
static const row_t rows[] = {ROWS(ENT)};
#undef ENT

static cudnnTensorDescriptor_t tensor(cudnnDataType_t dt, int nd, const int *dim, const int *stride)
{
    cudnnTensorDescriptor_t d;
    FD_EXPECT_STATUS(cudnnCreateTensorDescriptor(&d), CUDNN_STATUS_SUCCESS);
    if (nd > 0)
        FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(d, dt, nd, dim, stride), CUDNN_STATUS_SUCCESS);
    return d;
}

static void setup(void)
{
    F.one = 1.0f;
    FD_EXPECT_STATUS(freednnCreateWithBackend(&F.h, FREEDNN_BACKEND_REF), CUDNN_STATUS_SUCCESS);
    const int d4[4] = {2, 3, 4, 5}, s4[4] = {60, 20, 5, 1}, s4h[4] = {60, 1, 15, 3};
    F.t4 = tensor(CUDNN_DATA_FLOAT, 4, d4, s4);
    F.t4h = tensor(CUDNN_DATA_FLOAT, 4, d4, s4h);
    F.t4d = tensor(CUDNN_DATA_DOUBLE, 4, d4, s4);
    F.t4i8 = tensor(CUDNN_DATA_INT8, 4, d4, s4);
    F.t4m = tensor(CUDNN_DATA_FLOAT, 4, (int[]){2, 3, 4, 4}, (int[]){48, 16, 4, 1});
    F.t3 = tensor(CUDNN_DATA_FLOAT, 3, (int[]){2, 3, 20}, (int[]){60, 20, 1});
    F.t2 = tensor(CUDNN_DATA_FLOAT, 2, (int[]){2, 60}, (int[]){60, 1});
    F.tneg = tensor(CUDNN_DATA_FLOAT, 4, d4, (int[]){60, 20, 5, -1});
    F.tovl = tensor(CUDNN_DATA_FLOAT, 4, d4, (int[]){1, 1, 1, 1});
    F.tu = tensor(CUDNN_DATA_FLOAT, 0, NULL, NULL);
    F.t6 = tensor(CUDNN_DATA_FLOAT, 6, (int[]){2, 3, 4, 5, 1, 1}, (int[]){60, 20, 5, 1, 1, 1});
    F.t120 = tensor(CUDNN_DATA_FLOAT, 4, (int[]){1, 120, 1, 1}, (int[]){120, 1, 1, 1});
    F.t121 = tensor(CUDNN_DATA_FLOAT, 4, (int[]){1, 121, 1, 1}, (int[]){121, 1, 1, 1});
    for (int i = 0; i < B_COUNT; i++)
        F.b[i] = fd_buf_alloc(buf_bytes[i]);
    FD_EXPECT_STATUS(cudnnCreateLRNDescriptor(&F.lrn), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnCreateLRNDescriptor(&F.lrnv), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetLRNDescriptor(F.lrnv, 3, 0.5, 1.0, 1.0), CUDNN_STATUS_SUCCESS);
    cudnnDropoutDescriptor_t *dds[4] = {&F.dd, &F.ddv, &F.ddn, &F.ddg};
    for (int i = 0; i < 4; i++)
        FD_EXPECT_STATUS(cudnnCreateDropoutDescriptor(dds[i]), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetDropoutDescriptor(F.dd, F.h, 0.5f, ST, 64, 7), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetDropoutDescriptor(F.ddv, F.h, 0.25f, ST2, 64, 9),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetDropoutDescriptor(F.ddn, F.h, 0.5f, NULL, 0, 1), CUDNN_STATUS_SUCCESS);
    memset(STG, 0x5A, 64);
    FD_EXPECT_STATUS(cudnnRestoreDropoutDescriptor(F.ddg, F.h, 0.5f, STG, 64, 1),
                     CUDNN_STATUS_SUCCESS);
}

/* Refills the data buffers with a pattern (states keep their content). */
static void refill(void)
{
    for (int i = 0; i < B_COUNT; i++) {
        if (i == B_ST || i == B_ST2 || i == B_STG)
            continue;
        for (size_t k = 0; k < buf_bytes[i] / 4; k++)
            ((float *)F.b[i].data)[k] = (float)((k * 7 + (size_t)i) % 11) * 0.25f - 1.0f;
    }
}

int main(void)
{
    setup();
    int n = (int)(sizeof rows / sizeof rows[0]), rejected = 0;
    for (int r = 0; r < n; r++) {
        const row_t *row = &rows[r];
        refill();
        uint64_t hash[B_COUNT];
        for (int i = 0; i < B_COUNT; i++)
            hash[i] = fd_buf_hash(&F.b[i]);
        unsigned vn = 0, vn2 = 0;
        double va = 0, vb = 0, vk = 0, va2 = 0, vb2 = 0, vk2 = 0;
        float vp = 0, vp2 = 0;
        void *vs = NULL, *vs2 = NULL;
        unsigned long long vseed = 0, vseed2 = 0;
        cudnnGetLRNDescriptor(F.lrnv, &vn, &va, &vb, &vk);
        cudnnGetDropoutDescriptor(F.ddv, F.h, &vp, &vs, &vseed);
        cudnnCreateTensorDescriptor(NULL); /* plants a sentinel error */
        cudnnStatus_t st = row->call();
        FD_EXPECT(st == row->want, "%s: returned %s, expected %s", row->name,
                  cudnnGetErrorString(st), cudnnGetErrorString(row->want));
        if (row->want == CUDNN_STATUS_SUCCESS)
            continue;
        rejected++;
        char msg[512];
        cudnnGetLastErrorString(msg, sizeof msg);
        size_t fl = strlen(row->function);
        FD_EXPECT(strncmp(msg, row->function, fl) == 0 && msg[fl] == ':' && strlen(msg) > fl + 8,
                  "%s: last error is \"%s\"; it should name %s and say why", row->name, msg,
                  row->function);
        for (int i = 0; i < B_COUNT; i++)
            FD_EXPECT(fd_buf_hash(&F.b[i]) == hash[i] && fd_buf_guards_ok(&F.b[i]),
                      "%s: buffer %d was written by a rejected call", row->name, i);
        cudnnGetLRNDescriptor(F.lrnv, &vn2, &va2, &vb2, &vk2);
        cudnnGetDropoutDescriptor(F.ddv, F.h, &vp2, &vs2, &vseed2);
        FD_EXPECT(vn == vn2 && va == va2 && vb == vb2 && vk == vk2, "%s: the LRN victim changed",
                  row->name);
        FD_EXPECT(vp == vp2 && vs == vs2 && vseed == vseed2, "%s: the dropout victim changed",
                  row->name);
    }
    printf("%d rows (%d rejections)\n", n, rejected);
    return fd_test_finish();
}
