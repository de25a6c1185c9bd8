/* SPDX-License-Identifier: MIT */
/*
 * test_contract_pool_act.c - the API contract table of the pooling and activation families
 * (contract §1.2.2, §1.6, §4.1, decisions of §4.6).
 *
 * Each row names a case, the exact status it must return, a word the rejection reason must
 * contain (or NULL), and the call. For every row the runner builds a fresh fixture (a handle,
 * victim descriptors in a known state, guarded data buffers, out-parameters filled with a
 * pattern), snapshots it, provokes a sentinel error, makes the call and checks:
 *   - the status, exactly;
 *   - on rejection: cudnnGetLastErrorString was replaced and contains the row's word; every
 *     descriptor reads back as before; every data buffer hashes as before; out-params untouched;
 *   - always: guard zones intact, inputs unchanged, no crash (a SIGSEGV fails the row only).
 */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_test.h"

/* ---- fixture ------------------------------------------------------------------------------- */

#define OUT_PATTERN 0x5A
typedef struct {
    int i[16];
    cudnnPoolingMode_t pmode;
    cudnnNanPropagation_t nan;
    cudnnActivationMode_t amode;
    double d;
    cudnnPoolingDescriptor_t pd;
    cudnnActivationDescriptor_t ad;
} out_t;

enum { B_X, B_Y, B_DY, B_DX, B_COUNT };
static const int is_input[B_COUNT] = {[B_X] = 1, [B_DY] = 1};
static const char *const bname[B_COUNT] = {"x", "y", "dy", "dx"};
#define BUF_FLOATS (2 * 4 * 8 * 8 * 2) /* room for every tensor of the table, doubles included */

enum {
    T_X,
    T_Y,
    T_XNHWC,
    T_XF64,
    T_YF64,
    T_XI8,
    T_YI8,
    T_YBAD,
    T_YC,
    T_X5,
    T_X6,
    T_Y6,
    T_SMALL,
    T_UNSET,
    T_COUNT
};

typedef struct {
    cudnnHandle_t h;
    cudnnPoolingDescriptor_t pv, pu, p3, p4; /* victim 2d, unset, 3-d, 4-d */
    cudnnActivationDescriptor_t av, au;      /* victim (RELU), unset */
    cudnnTensorDescriptor_t t[T_COUNT];
    fd_buf_t buf[B_COUNT];
    float alpha, beta;
    out_t out;
    int setup_failed;
} fx_t;

static void setup_ok(fx_t *f, cudnnStatus_t st, const char *expr)
{
    if (st != CUDNN_STATUS_SUCCESS) {
        f->setup_failed = 1;
        FD_EXPECT(0, "setup %s returned %s", expr, cudnnGetErrorString(st));
    }
}
#define S(expr) setup_ok(f, (expr), #expr)

static void set4(fx_t *f, int which, cudnnTensorFormat_t fmt, cudnnDataType_t dt, int n, int c,
                 int h, int w)
{
    S(cudnnSetTensor4dDescriptor(f->t[which], fmt, dt, n, c, h, w));
}

static void fx_init(fx_t *f)
{
    memset(f, 0, sizeof *f);
    S(freednnCreateWithBackend(&f->h, FREEDNN_BACKEND_REF));
    S(cudnnCreatePoolingDescriptor(&f->pv));
    S(cudnnCreatePoolingDescriptor(&f->pu));
    S(cudnnCreatePoolingDescriptor(&f->p3));
    S(cudnnCreatePoolingDescriptor(&f->p4));
    S(cudnnCreateActivationDescriptor(&f->av));
    S(cudnnCreateActivationDescriptor(&f->au));
    S(cudnnSetPooling2dDescriptor(f->pv, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2,
                                  2));
    S(cudnnSetPoolingNdDescriptor(f->p3, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING,
                                  CUDNN_PROPAGATE_NAN, 3, (const int[]){2, 2, 2},
                                  (const int[]){0, 1, 0}, (const int[]){2, 2, 2}));
    S(cudnnSetPoolingNdDescriptor(f->p4, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 4,
                                  (const int[]){1, 1, 1, 1}, (const int[]){0, 0, 0, 0},
                                  (const int[]){1, 1, 1, 1}));
    S(cudnnSetActivationDescriptor(f->av, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    S(cudnnSetActivationDescriptorSwishBeta(f->av, 1.5));
    for (int i = 0; i < T_COUNT; i++)
        S(cudnnCreateTensorDescriptor(&f->t[i]));
    set4(f, T_X, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 8, 8);
    set4(f, T_Y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 4);
    set4(f, T_XNHWC, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 2, 3, 8, 8);
    set4(f, T_XF64, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 2, 3, 8, 8);
    set4(f, T_YF64, CUDNN_TENSOR_NCHW, CUDNN_DATA_DOUBLE, 2, 3, 4, 4);
    set4(f, T_XI8, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, 2, 3, 8, 8);
    set4(f, T_YI8, CUDNN_TENSOR_NCHW, CUDNN_DATA_INT8, 2, 3, 4, 4);
    set4(f, T_YBAD, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 3, 4);
    set4(f, T_YC, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 2, 4, 4);
    set4(f, T_SMALL, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1);
    S(cudnnSetTensorNdDescriptor(f->t[T_X5], CUDNN_DATA_FLOAT, 5, (const int[]){2, 3, 4, 4, 4},
                                 (const int[]){192, 64, 16, 4, 1}));
    S(cudnnSetTensorNdDescriptor(f->t[T_X6], CUDNN_DATA_FLOAT, 6, (const int[]){1, 2, 2, 2, 2, 2},
                                 (const int[]){32, 16, 8, 4, 2, 1}));
    S(cudnnSetTensorNdDescriptor(f->t[T_Y6], CUDNN_DATA_FLOAT, 6, (const int[]){1, 2, 2, 2, 2, 2},
                                 (const int[]){32, 16, 8, 4, 2, 1}));
    fd_rng_t rng;
    fd_rng_seed(&rng, 7);
    for (int b = 0; b < B_COUNT; b++) {
        f->buf[b] = fd_buf_alloc(BUF_FLOATS * sizeof(float));
        if (is_input[b])
            fd_fill_int(&rng, CUDNN_DATA_FLOAT, f->buf[b].data, BUF_FLOATS, -3, 3, 0.8);
        else
            fd_buf_poison(&f->buf[b]);
    }
    f->alpha = 1.0f;
    f->beta = 0.0f;
    memset(&f->out, OUT_PATTERN, sizeof f->out);
}

static void fx_free(fx_t *f)
{
    cudnnDestroyPoolingDescriptor(f->pv);
    cudnnDestroyPoolingDescriptor(f->pu);
    cudnnDestroyPoolingDescriptor(f->p3);
    cudnnDestroyPoolingDescriptor(f->p4);
    cudnnDestroyActivationDescriptor(f->av);
    cudnnDestroyActivationDescriptor(f->au);
    for (int i = 0; i < T_COUNT; i++)
        cudnnDestroyTensorDescriptor(f->t[i]);
    cudnnDestroy(f->h);
    for (int b = 0; b < B_COUNT; b++)
        fd_buf_free(&f->buf[b]);
}

/* ---- snapshots through the public getters ------------------------------------------------- */

typedef struct {
    cudnnStatus_t st;
    cudnnPoolingMode_t mode;
    cudnnNanPropagation_t nan;
    int nb, win[6], pad[6], stride[6];
} psnap_t;
typedef struct {
    cudnnStatus_t st, st2;
    cudnnActivationMode_t mode;
    cudnnNanPropagation_t nan;
    double coef, swish;
} asnap_t;
typedef struct {
    cudnnStatus_t st;
    cudnnDataType_t dt;
    int nb, dim[8], stride[8];
} tsnap_t;
typedef struct {
    psnap_t p[4];
    asnap_t a[2];
    tsnap_t t[T_COUNT];
    uint64_t hash[B_COUNT];
} snap_t;

static void snap_take(const fx_t *f, snap_t *s)
{
    memset(s, 0, sizeof *s);
    cudnnPoolingDescriptor_t ps[4] = {f->pv, f->pu, f->p3, f->p4};
    for (int i = 0; i < 4; i++)
        s->p[i].st = cudnnGetPoolingNdDescriptor(ps[i], 6, &s->p[i].mode, &s->p[i].nan, &s->p[i].nb,
                                                 s->p[i].win, s->p[i].pad, s->p[i].stride);
    cudnnActivationDescriptor_t as[2] = {f->av, f->au};
    for (int i = 0; i < 2; i++) {
        s->a[i].st =
            cudnnGetActivationDescriptor(as[i], &s->a[i].mode, &s->a[i].nan, &s->a[i].coef);
        s->a[i].st2 = cudnnGetActivationDescriptorSwishBeta(as[i], &s->a[i].swish);
    }
    for (int i = 0; i < T_COUNT; i++)
        s->t[i].st = cudnnGetTensorNdDescriptor(f->t[i], 8, &s->t[i].dt, &s->t[i].nb, s->t[i].dim,
                                                s->t[i].stride);
    for (int b = 0; b < B_COUNT; b++)
        s->hash[b] = fd_buf_hash(&f->buf[b]);
}

/* ---- the table ---------------------------------------------------------------------------- */

#define OK CUDNN_STATUS_SUCCESS
#define BAD CUDNN_STATUS_BAD_PARAM
#define NS CUDNN_STATUS_NOT_SUPPORTED
#define MAXP CUDNN_POOLING_MAX
#define AVGI CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
#define NOPROP CUDNN_NOT_PROPAGATE_NAN
#define PROP CUDNN_PROPAGATE_NAN
#define HD (f->h)
#define PV (f->pv)
#define PU (f->pu)
#define P3 (f->p3)
#define P4 (f->p4)
#define AV (f->av)
#define AU (f->au)
#define T(n) (f->t[T_##n])
#define X (f->buf[B_X].data)
#define Y (f->buf[B_Y].data)
#define DY (f->buf[B_DY].data)
#define DX (f->buf[B_DX].data)
#define AL ((const void *)&f->alpha)
#define BE ((const void *)&f->beta)
#define O (f->out)
#define I3(a, b, c) ((const int[]){a, b, c})
#define I7(v) ((const int[]){v, v, v, v, v, v, v})
#define RELU CUDNN_ACTIVATION_RELU
#define CLIP CUDNN_ACTIVATION_CLIPPED_RELU

#define POOL_FWD(pd, xd, x, yd, y) cudnnPoolingForward(HD, pd, AL, xd, x, BE, yd, y)
#define POOL_BWD(yd, dyd, xd, dxd)                                                                 \
    cudnnPoolingBackward(HD, PV, AL, yd, Y, dyd, DY, xd, X, BE, dxd, DX)
#define ACT_FWD(ad, xd, x, yd, y) cudnnActivationForward(HD, ad, AL, xd, x, BE, yd, y)
#define ACT_BWD(yd, dyd, dy, xd, dxd, dx)                                                          \
    cudnnActivationBackward(HD, AV, AL, yd, Y, dyd, dy, xd, X, BE, dxd, dx)

typedef struct {
    const char *name;
    cudnnStatus_t want;
    const char *needle;
    cudnnStatus_t (*call)(fx_t *f);
} row_t;

/* clang-format off */
#define ROWS(X_)                                                                                   \
    /* ---- pooling descriptors ---- */                                                            \
    X_(pool_set_window0, BAD, "window",                                                            \
        cudnnSetPooling2dDescriptor(PV, MAXP, NOPROP, 0, 2, 0, 0, 2, 2))                           \
    X_(pool_set_window_neg, BAD, "window",                                                         \
        cudnnSetPooling2dDescriptor(PV, MAXP, NOPROP, 2, -3, 0, 0, 2, 2))                          \
    X_(pool_set_stride0, BAD, "stride",                                                            \
        cudnnSetPooling2dDescriptor(PV, MAXP, NOPROP, 2, 2, 0, 0, 2, 0))                           \
    X_(pool_set_mode_bad, BAD, "mode",                                                             \
        cudnnSetPooling2dDescriptor(PV, (cudnnPoolingMode_t)4, NOPROP, 2, 2, 0, 0, 2, 2))          \
    X_(pool_set_mode_neg, BAD, "mode",                                                             \
        cudnnSetPooling2dDescriptor(PV, (cudnnPoolingMode_t)-1, NOPROP, 2, 2, 0, 0, 2, 2))         \
    X_(pool_set_nan_bad, BAD, "maxpoolingNanOpt",                                                  \
       cudnnSetPooling2dDescriptor(PV, MAXP, (cudnnNanPropagation_t)2, 2, 2, 0, 0, 2, 2))          \
    X_(pool_set_null_desc, BAD, "poolingDesc",                                                     \
        cudnnSetPooling2dDescriptor(NULL, MAXP, NOPROP, 2, 2, 0, 0, 2, 2))                         \
    X_(pool_set_pad_neg_ok, OK, NULL,                                                              \
        cudnnSetPooling2dDescriptor(PU, MAXP, NOPROP, 2, 2, -1, -1, 2, 2))                         \
    X_(pool_set_pad_ge_window_ok, OK, NULL,                                                        \
        cudnnSetPooling2dDescriptor(PU, MAXP, NOPROP, 2, 2, 3, 3, 2, 2))                           \
    X_(pool_setnd_nbdims0, BAD, "nbDims",                                                          \
        cudnnSetPoolingNdDescriptor(PV, MAXP, NOPROP, 0, I3(2, 2, 2), I3(0, 0, 0), I3(1, 1, 1)))   \
    X_(pool_setnd_nbdims7, NS, "nbDims",                                                           \
        cudnnSetPoolingNdDescriptor(PV, MAXP, NOPROP, 7, I7(1), I7(0), I7(1)))                     \
    X_(pool_setnd_null_window, BAD, "NULL",                                                        \
        cudnnSetPoolingNdDescriptor(PV, MAXP, NOPROP, 3, NULL, I3(0, 0, 0), I3(1, 1, 1)))          \
    X_(pool_setnd_stride0_last, BAD, "stride[2]",                                                  \
        cudnnSetPoolingNdDescriptor(PV, MAXP, NOPROP, 3, I3(2, 2, 2), I3(0, 0, 0), I3(1, 1, 0)))   \
    X_(pool_get_unset, BAD, "never set",                                                           \
        cudnnGetPooling2dDescriptor(PU, &O.pmode, &O.nan, &O.i[0], &O.i[1], &O.i[2], &O.i[3],      \
            &O.i[4], &O.i[5]))                                                                     \
    X_(pool_get2d_of_3d, BAD, "2-d",                                                               \
        cudnnGetPooling2dDescriptor(P3, &O.pmode, &O.nan, &O.i[0], &O.i[1], &O.i[2], &O.i[3],      \
            &O.i[4], &O.i[5]))                                                                     \
    X_(pool_get2d_null_out, BAD, "NULL",                                                           \
        cudnnGetPooling2dDescriptor(PV, &O.pmode, &O.nan, &O.i[0], NULL, &O.i[2], &O.i[3],         \
            &O.i[4], &O.i[5]))                                                                     \
    X_(pool_getnd_requested_bad, BAD, "nbDimsRequested",                                           \
       cudnnGetPoolingNdDescriptor(PV, 7, &O.pmode, &O.nan, &O.i[0], &O.i[1], &O.i[8], &O.i[12]))  \
    X_(pool_destroy_null_ok, OK, NULL, cudnnDestroyPoolingDescriptor(NULL))                        \
    X_(pool_destroy_garbage, BAD, "live",                                                          \
        cudnnDestroyPoolingDescriptor((cudnnPoolingDescriptor_t)(void *)garbage))                  \
    X_(pool_create_null, BAD, "NULL", cudnnCreatePoolingDescriptor(NULL))                          \
    /* ---- output dims ---- */                                                                    \
    X_(pool_outdim_null_out, BAD, "NULL",                                                          \
        cudnnGetPooling2dForwardOutputDim(PV, T(X), &O.i[0], &O.i[1], NULL, &O.i[3]))              \
    X_(pool_outdim_rank, BAD, "dims",                                                              \
        cudnnGetPooling2dForwardOutputDim(PV, T(X5), &O.i[0], &O.i[1], &O.i[2], &O.i[3]))          \
    X_(pool_outdim_window_too_big, BAD, "smaller than the window",                                 \
       cudnnGetPooling2dForwardOutputDim(PV, T(SMALL), &O.i[0], &O.i[1], &O.i[2], &O.i[3]))        \
    X_(pool_outdim_unset_tensor, BAD, "never set",                                                 \
        cudnnGetPooling2dForwardOutputDim(PV, T(UNSET), &O.i[0], &O.i[1], &O.i[2], &O.i[3]))       \
    X_(pool_outdim_nd_nbdims, BAD, "nbDims",                                                       \
        cudnnGetPoolingNdForwardOutputDim(P3, T(X5), 4, O.i))                                      \
    X_(pool_outdim_nd_null, BAD, "NULL", cudnnGetPoolingNdForwardOutputDim(P3, T(X5), 5, NULL))    \
    X_(pool_outdim_nd_ok, OK, NULL, cudnnGetPoolingNdForwardOutputDim(P3, T(X5), 5, O.i))          \
    /* ---- forward / backward ---- */                                                             \
    X_(pool_fwd_ok, OK, NULL, POOL_FWD(PV, T(X), X, T(Y), Y))                                      \
    X_(pool_fwd_null_handle, BAD, "handle",                                                        \
        cudnnPoolingForward(NULL, PV, AL, T(X), X, BE, T(Y), Y))                                   \
    X_(pool_fwd_null_x, BAD, "NULL", POOL_FWD(PV, T(X), NULL, T(Y), Y))                            \
    X_(pool_fwd_null_alpha, BAD, "NULL", cudnnPoolingForward(HD, PV, NULL, T(X), X, BE, T(Y), Y))  \
    X_(pool_fwd_unset_desc, BAD, "never set", POOL_FWD(PU, T(X), X, T(Y), Y))                      \
    X_(pool_fwd_y_spatial, BAD, "spatial", POOL_FWD(PV, T(X), X, T(YBAD), Y))                      \
    X_(pool_fwd_y_channels, BAD, "N, C", POOL_FWD(PV, T(X), X, T(YC), Y))                          \
    X_(pool_fwd_dtype_mismatch, BAD, "DOUBLE", POOL_FWD(PV, T(X), X, T(YF64), Y))                  \
    X_(pool_fwd_rank_mismatch, BAD, "spatial dims", POOL_FWD(PV, T(X5), X, T(Y), Y))               \
    X_(pool_fwd_int8, NS, "INT8", POOL_FWD(PV, T(XI8), X, T(YI8), Y))                              \
    X_(pool_fwd_4d_spatial, NS, "spatial dims", POOL_FWD(P4, T(X6), X, T(Y6), Y))                  \
    X_(pool_fwd_in_place, NS, "overlaps", POOL_FWD(PV, T(X), Y, T(Y), Y))                          \
    X_(pool_fwd_f64_ok, OK, NULL,                                                                  \
        cudnnPoolingForward(HD, PV, &dbl_one, T(XF64), X, &dbl_zero, T(YF64), Y))                  \
    X_(pool_bwd_ok, OK, NULL, POOL_BWD(T(Y), T(Y), T(X), T(X)))                                    \
    X_(pool_bwd_dx_shape, BAD, "dx", POOL_BWD(T(Y), T(Y), T(X), T(X5)))                            \
    X_(pool_bwd_dy_shape, BAD, "dyDesc", POOL_BWD(T(Y), T(YBAD), T(X), T(X)))                      \
    X_(pool_bwd_dx_type, BAD, "dxDesc", POOL_BWD(T(Y), T(Y), T(X), T(XF64)))                       \
    X_(pool_bwd_null_dx, BAD, "NULL",                                                              \
        cudnnPoolingBackward(HD, PV, AL, T(Y), Y, T(Y), DY, T(X), X, BE, T(X), NULL))              \
    X_(pool_bwd_dx_is_dy, NS, "overlaps",                                                          \
        cudnnPoolingBackward(HD, PV, AL, T(Y), Y, T(Y), DX, T(X), X, BE, T(X), DX))                \
    /* ---- activation descriptors ---- */                                                         \
    X_(act_set_mode_bad, BAD, "mode",                                                              \
        cudnnSetActivationDescriptor(AV, (cudnnActivationMode_t)7, NOPROP, 0))                     \
    X_(act_set_mode_neg, BAD, "mode",                                                              \
        cudnnSetActivationDescriptor(AV, (cudnnActivationMode_t)-1, NOPROP, 0))                    \
    X_(act_set_nan_bad, BAD, "reluNanOpt",                                                         \
        cudnnSetActivationDescriptor(AV, CLIP, (cudnnNanPropagation_t)2, 1))                       \
    X_(act_set_null, BAD, "activationDesc", cudnnSetActivationDescriptor(NULL, RELU, NOPROP, 0))   \
    X_(act_set_clip_coef_nan_ok, OK, NULL, cudnnSetActivationDescriptor(AU, CLIP, PROP, NAN))      \
    X_(act_set_clip_coef_neg_ok, OK, NULL, cudnnSetActivationDescriptor(AU, CLIP, NOPROP, -1.0))   \
    X_(act_set_swish_ok, OK, NULL,                                                                 \
        cudnnSetActivationDescriptor(AU, CUDNN_ACTIVATION_SWISH, NOPROP, 0))                       \
    X_(act_get_unset, BAD, "never set", cudnnGetActivationDescriptor(AU, &O.amode, &O.nan, &O.d))  \
    X_(act_get_null_out, BAD, "NULL", cudnnGetActivationDescriptor(AV, &O.amode, NULL, &O.d))      \
    X_(act_swish_get_null, BAD, "NULL", cudnnGetActivationDescriptorSwishBeta(AV, NULL))           \
    X_(act_swish_set_garbage, BAD, "live",                                                         \
        cudnnSetActivationDescriptorSwishBeta((cudnnActivationDescriptor_t)(void *)garbage, 1.0))  \
    X_(act_destroy_null_ok, OK, NULL, cudnnDestroyActivationDescriptor(NULL))                      \
    X_(act_destroy_garbage, BAD, "live",                                                           \
        cudnnDestroyActivationDescriptor((cudnnActivationDescriptor_t)(void *)garbage))            \
    X_(act_create_null, BAD, "NULL", cudnnCreateActivationDescriptor(NULL))                        \
    /* ---- forward / backward ---- */                                                             \
    X_(act_fwd_ok, OK, NULL, ACT_FWD(AV, T(X), X, T(X), Y))                                        \
    X_(act_fwd_in_place_ok, OK, NULL, ACT_FWD(AV, T(X), Y, T(X), Y))                               \
    X_(act_fwd_in_place_strides, BAD, "strides", ACT_FWD(AV, T(X), Y, T(XNHWC), Y))                \
    X_(act_fwd_shape_mismatch, BAD, "shapes", ACT_FWD(AV, T(X), X, T(Y), Y))                       \
    X_(act_fwd_rank_mismatch, BAD, "dims", ACT_FWD(AV, T(X), X, T(X5), Y))                         \
    X_(act_fwd_type_mismatch, BAD, "DOUBLE", ACT_FWD(AV, T(X), X, T(XF64), Y))                     \
    X_(act_fwd_int8, NS, "INT8", ACT_FWD(AV, T(XI8), X, T(XI8), Y))                                \
    X_(act_fwd_partial_overlap, NS, "overlaps", ACT_FWD(AV, T(X), Y, T(X), (float *)Y + 1))        \
    X_(act_fwd_null_y, BAD, "NULL", ACT_FWD(AV, T(X), X, T(X), NULL))                              \
    X_(act_fwd_null_beta, BAD, "NULL",                                                             \
        cudnnActivationForward(HD, AV, AL, T(X), X, NULL, T(X), Y))                                \
    X_(act_fwd_unset_desc, BAD, "never set", ACT_FWD(AU, T(X), X, T(X), Y))                        \
    X_(act_fwd_garbage_desc, BAD, "live",                                                          \
        ACT_FWD((cudnnActivationDescriptor_t)(void *)garbage, T(X), X, T(X), Y))                   \
    X_(act_fwd_null_handle, BAD, "handle",                                                         \
        cudnnActivationForward(NULL, AV, AL, T(X), X, BE, T(X), Y))                                \
    X_(act_fwd_unset_tensor, BAD, "never set", ACT_FWD(AV, T(UNSET), X, T(X), Y))                  \
    X_(act_bwd_ok, OK, NULL, ACT_BWD(T(X), T(X), DY, T(X), T(X), DX))                              \
    X_(act_bwd_in_place_ok, OK, NULL, ACT_BWD(T(X), T(X), DX, T(X), T(X), DX))                     \
    X_(act_bwd_in_place_strides, BAD, "strides", ACT_BWD(T(X), T(X), DX, T(X), T(XNHWC), DX))      \
    X_(act_bwd_dy_shape, BAD, "dyDesc", ACT_BWD(T(X), T(Y), DY, T(X), T(X), DX))                   \
    X_(act_bwd_dx_type, BAD, "dxDesc", ACT_BWD(T(X), T(X), DY, T(X), T(XF64), DX))                 \
    X_(act_bwd_null_x, BAD, "NULL",                                                                \
        cudnnActivationBackward(HD, AV, AL, T(X), Y, T(X), DY, T(X), NULL, BE, T(X), DX))          \
    X_(act_bwd_dx_overlaps_x, NS, "overlaps",                                                      \
        ACT_BWD(T(X), T(X), DY, T(X), T(X), (float *)X + 5))

/* clang-format on */

static _Alignas(64) unsigned char garbage[512];
static _Alignas(64) unsigned char sentinel_obj[512];
static const double dbl_one = 1.0, dbl_zero = 0.0;

#define DEFINE_CALL(name, want, needle, call)                                                      \
    static cudnnStatus_t call_##name(fx_t *f)                                                      \
    {                                                                                              \
        (void)f;                                                                                   \
        return call;                                                                               \
    }
ROWS(DEFINE_CALL)

static const row_t rows[] = {
#define ROW_ENTRY(name, want, needle, call) {#name, want, needle, call_##name},
    ROWS(ROW_ENTRY)};

/* ---- runner ------------------------------------------------------------------------------- */

static sigjmp_buf crash_jump;
static void on_crash(int sig)
{
    siglongjmp(crash_jump, sig);
}

static void provoke_sentinel(char *text, size_t size)
{
    cudnnDestroyTensorDescriptor((cudnnTensorDescriptor_t)(void *)sentinel_obj);
    cudnnGetLastErrorString(text, size);
}

static int run_row(const row_t *r)
{
    static fx_t f; /* static: survives a siglongjmp */
    fx_init(&f);
    if (f.setup_failed) {
        FD_EXPECT(0, "%s: setup failed", r->name);
        fx_free(&f);
        return 0;
    }
    static snap_t before, after;
    static out_t out_before;
    snap_take(&f, &before);
    out_before = f.out;
    char sentinel[512], last[1024];
    provoke_sentinel(sentinel, sizeof sentinel);

    int sig = sigsetjmp(crash_jump, 1);
    if (sig != 0) {
        FD_EXPECT(0, "%s: crashed with signal %d (every argument must get a status)", r->name, sig);
        return 0;
    }
    cudnnStatus_t got = r->call(&f);
    cudnnGetLastErrorString(last, sizeof last);

    int ok = got == r->want;
    FD_EXPECT(ok, "%s: got %s (%d), want %s (%d); last error: %s", r->name,
              cudnnGetErrorString(got), (int)got, cudnnGetErrorString(r->want), (int)r->want, last);
    if (r->want != CUDNN_STATUS_SUCCESS && got != CUDNN_STATUS_SUCCESS) {
        FD_EXPECT(last[0] != '\0' && strcmp(last, sentinel) != 0,
                  "%s: the rejection left no reason in cudnnGetLastErrorString", r->name);
        if (r->needle != NULL)
            FD_EXPECT(strstr(last, r->needle) != NULL, "%s: reason \"%s\" does not mention \"%s\"",
                      r->name, last, r->needle);
        snap_take(&f, &after);
        FD_EXPECT(memcmp(before.p, after.p, sizeof before.p) == 0,
                  "%s: a pooling descriptor changed", r->name);
        FD_EXPECT(memcmp(before.a, after.a, sizeof before.a) == 0,
                  "%s: an activation descriptor changed", r->name);
        FD_EXPECT(memcmp(before.t, after.t, sizeof before.t) == 0,
                  "%s: a tensor descriptor changed", r->name);
        for (int b = 0; b < B_COUNT; b++)
            FD_EXPECT(before.hash[b] == after.hash[b], "%s: buffer %s written by a rejected call",
                      r->name, bname[b]);
        FD_EXPECT(memcmp(&out_before, &f.out, sizeof f.out) == 0,
                  "%s: an out-parameter was written", r->name);
    }
    for (int b = 0; b < B_COUNT; b++) {
        FD_EXPECT(fd_buf_guards_ok(&f.buf[b]), "%s: guard zone of %s overwritten", r->name,
                  bname[b]);
        if (is_input[b])
            FD_EXPECT(fd_buf_hash(&f.buf[b]) == before.hash[b], "%s: input %s modified", r->name,
                      bname[b]);
    }
    fx_free(&f);
    return ok;
}

int main(int argc, char **argv)
{
    memset(garbage, 0xA5, sizeof garbage);
    memset(sentinel_obj, 0x3C, sizeof sentinel_obj);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);

    const char *only = argc > 1 ? argv[1] : NULL;
    int n = (int)(sizeof rows / sizeof rows[0]), ran = 0, passed = 0, pool = 0, act = 0;
    for (int i = 0; i < n; i++) {
        pool += strncmp(rows[i].name, "pool_", 5) == 0;
        act += strncmp(rows[i].name, "act_", 4) == 0;
        if (only != NULL && strstr(rows[i].name, only) == NULL)
            continue;
        ran++;
        passed += run_row(&rows[i]);
    }
    FD_EXPECT(pool >= 10 && act >= 10,
              "the table needs at least 10 rows per family (pooling %d, activation %d)", pool, act);
    printf("pooling/activation contract table: %d rows (%d pooling, %d activation), %d ran, %d "
           "with the expected "
           "status\n",
           n, pool, act, ran, passed);
    return fd_test_finish();
}
