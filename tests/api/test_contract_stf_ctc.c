/* SPDX-License-Identifier: MIT */
/*
 * test_contract_stf_ctc.c - the contract table of the spatial transformer and CTC loss
 * families: every row is a bad (or edge) input with the exact status it must return.
 *
 * For each row: a sentinel error is recorded first; after the call the status must match,
 * cudnnGetLastErrorString must hold a new, non-empty reason on rejection, every data buffer
 * (inputs, outputs, workspace) must hash as before with intact guard zones, and the
 * descriptors must read back (CTC: getters; spatial transformer: a grid generated through it
 * equals the golden one) exactly as before.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_test.h"

#define OK(expr) FD_EXPECT_STATUS((expr), CUDNN_STATUS_SUCCESS)
#define BAD CUDNN_STATUS_BAD_PARAM
#define NS CUDNN_STATUS_NOT_SUPPORTED
#define SUCCESS CUDNN_STATUS_SUCCESS

static cudnnHandle_t h;

/* ---- fixture ------------------------------------------------------------------------------- */

/* spatial transformer: st is 1x2x3x4 FLOAT; x 1x2x5x5, y/dy 1x2x3x4, grid/dgrid 1x3x4x2 */
static cudnnSpatialTransformerDescriptor_t st, st_unset, st_i8;
static cudnnTensorDescriptor_t xd, yd, x3d, xn2d, ybadd, xdbld, ynegd, dxoverd;
static fd_buf_t theta, grid, x, y, dx, dy, dgrid, scratch_grid;
static double golden_grid[24];

/* CTC: probs/gradients 5x2x4 FLOAT, labels {1, 2 | 3}, labelLengths {2, 1}, inputLengths {5, 4} */
static cudnnCTCLossDescriptor_t ctc, ctc_unset, ctc_half;
static cudnnTensorDescriptor_t pd, gd, p4d, gbadd, gdbld, pi8d;
static fd_buf_t probs, grads, costs, ws;
static size_t ws_need;
static int labels[3] = {1, 2, 3}, ll[2] = {2, 1}, il[2] = {5, 4};
static int ll_long[2] = {257, 1}, ll_neg[2] = {-1, 1}, ll_v8long[2] = {5, 1};
static int il_big[2] = {6, 4}, il_zero[2] = {0, 4};
static int labels_blank[3] = {1, 0, 3}, labels_a[3] = {1, 4, 3};

static float f_one = 1, f_zero = 0;
static _Alignas(64) unsigned char garbage[512];
static size_t out_sz;
static cudnnDataType_t out_dt;
static cudnnLossNormalizationMode_t out_norm;
static cudnnNanPropagation_t out_nan;
static cudnnCTCGradMode_t out_gm;
static int out_i;

static cudnnTensorDescriptor_t tdesc(cudnnDataType_t dt, int nb, const int *dim, const int *stride)
{
    cudnnTensorDescriptor_t t;
    OK(cudnnCreateTensorDescriptor(&t));
    OK(cudnnSetTensorNdDescriptor(t, dt, nb, dim, stride));
    return t;
}

static void fixture(void)
{
    OK(freednnCreateWithBackend(&h, FREEDNN_BACKEND_REF));
    int sdim[4] = {1, 2, 3, 4};
    OK(cudnnCreateSpatialTransformerDescriptor(&st));
    OK(cudnnSetSpatialTransformerNdDescriptor(st, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_FLOAT, 4,
                                              sdim));
    OK(cudnnCreateSpatialTransformerDescriptor(&st_unset));
    OK(cudnnCreateSpatialTransformerDescriptor(&st_i8));
    OK(cudnnSetSpatialTransformerNdDescriptor(st_i8, CUDNN_SAMPLER_BILINEAR, CUDNN_DATA_INT8, 4,
                                              sdim));
    xd = tdesc(CUDNN_DATA_FLOAT, 4, (int[]){1, 2, 5, 5}, (int[]){50, 25, 5, 1});
    yd = tdesc(CUDNN_DATA_FLOAT, 4, (int[]){1, 2, 3, 4}, (int[]){24, 12, 4, 1});
    x3d = tdesc(CUDNN_DATA_FLOAT, 3, (int[]){2, 5, 5}, (int[]){25, 5, 1});
    xn2d = tdesc(CUDNN_DATA_FLOAT, 4, (int[]){2, 2, 5, 5}, (int[]){50, 25, 5, 1});
    ybadd = tdesc(CUDNN_DATA_FLOAT, 4, (int[]){1, 2, 3, 5}, (int[]){30, 15, 5, 1});
    xdbld = tdesc(CUDNN_DATA_DOUBLE, 4, (int[]){1, 2, 5, 5}, (int[]){50, 25, 5, 1});
    ynegd = tdesc(CUDNN_DATA_FLOAT, 4, (int[]){1, 2, 3, 4}, (int[]){24, 12, 4, -1});
    dxoverd = tdesc(CUDNN_DATA_FLOAT, 4, (int[]){1, 2, 5, 5}, (int[]){50, 25, 1, 1});
    fd_rng_t r;
    fd_rng_seed(&r, 5);
    theta = fd_buf_alloc(6 * 4), grid = fd_buf_alloc(24 * 4), dgrid = fd_buf_alloc(24 * 4);
    x = fd_buf_alloc(50 * 4), dx = fd_buf_alloc(50 * 4), y = fd_buf_alloc(24 * 4),
    dy = fd_buf_alloc(24 * 4);
    scratch_grid = fd_buf_alloc(24 * 4);
    fd_fill_real(&r, CUDNN_DATA_FLOAT, theta.data, 6, -1, 1);
    fd_fill_real(&r, CUDNN_DATA_FLOAT, grid.data, 24, -1.2, 1.2);
    fd_fill_real(&r, CUDNN_DATA_FLOAT, x.data, 50, -1, 1);
    fd_fill_real(&r, CUDNN_DATA_FLOAT, dy.data, 24, -1, 1);
    fd_buf_poison(&y), fd_buf_poison(&dx), fd_buf_poison(&dgrid);
    OK(cudnnSpatialTfGridGeneratorForward(h, st, theta.data, scratch_grid.data));
    for (int i = 0; i < 24; i++)
        golden_grid[i] = fd_test_load(CUDNN_DATA_FLOAT, scratch_grid.data, i);

    OK(cudnnCreateCTCLossDescriptor(&ctc));
    OK(cudnnSetCTCLossDescriptor_v9(ctc, CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_NONE,
                                    CUDNN_CTC_ZERO_OOB_GRADIENTS, 4));
    OK(cudnnCreateCTCLossDescriptor(&ctc_unset));
    OK(cudnnCreateCTCLossDescriptor(&ctc_half));
    OK(cudnnSetCTCLossDescriptor(ctc_half, CUDNN_DATA_HALF));
    pd = tdesc(CUDNN_DATA_FLOAT, 3, (int[]){5, 2, 4}, (int[]){8, 4, 1});
    gd = tdesc(CUDNN_DATA_FLOAT, 3, (int[]){5, 2, 4}, (int[]){8, 4, 1});
    p4d = tdesc(CUDNN_DATA_FLOAT, 4, (int[]){5, 2, 4, 1}, (int[]){8, 4, 1, 1});
    gbadd = tdesc(CUDNN_DATA_FLOAT, 3, (int[]){5, 2, 3}, (int[]){6, 3, 1});
    gdbld = tdesc(CUDNN_DATA_DOUBLE, 3, (int[]){5, 2, 4}, (int[]){8, 4, 1});
    pi8d = tdesc(CUDNN_DATA_INT8, 3, (int[]){5, 2, 4}, (int[]){8, 4, 1});
    probs = fd_buf_alloc(40 * 4), grads = fd_buf_alloc(40 * 4), costs = fd_buf_alloc(2 * 4);
    for (int i = 0; i < 40; i++)
        fd_test_store(CUDNN_DATA_FLOAT, probs.data, i, 0.25);
    fd_buf_poison(&grads), fd_buf_poison(&costs);
    OK(cudnnGetCTCLossWorkspaceSize(h, pd, gd, labels, ll, il, CUDNN_CTC_LOSS_ALGO_DETERMINISTIC,
                                    ctc, &ws_need));
    ws = fd_buf_alloc(ws_need);
    fd_buf_poison(&ws);
}

/* ---- row runner ----------------------------------------------------------------------------- */

static fd_buf_t *const all_bufs[] = {&theta, &grid,  &x,     &y,     &dx, &dy,
                                     &dgrid, &probs, &grads, &costs, &ws};
#define NBUFS (int)(sizeof all_bufs / sizeof all_bufs[0])

typedef struct {
    cudnnDataType_t comp;
    cudnnLossNormalizationMode_t norm;
    cudnnCTCGradMode_t gm;
    int maxl;
} ctc_state_t;

static ctc_state_t ctc_state(void)
{
    ctc_state_t s;
    OK(cudnnGetCTCLossDescriptor_v9(ctc, &s.comp, &s.norm, &s.gm, &s.maxl));
    return s;
}

static int stf_state_ok(void)
{
    fd_buf_poison(&scratch_grid);
    if (cudnnSpatialTfGridGeneratorForward(h, st, theta.data, scratch_grid.data) != SUCCESS)
        return 0;
    for (int i = 0; i < 24; i++)
        if (fd_test_load(CUDNN_DATA_FLOAT, scratch_grid.data, i) != golden_grid[i])
            return 0;
    return fd_buf_guards_ok(&scratch_grid);
}

static int rows;
static uint64_t snap_hash[NBUFS];
static ctc_state_t snap_ctc;
static char sentinel[1024];

/* Before a row's call: snapshot every buffer and descriptor, record a sentinel reason. */
static void row_begin(void)
{
    rows++;
    for (int i = 0; i < NBUFS; i++)
        snap_hash[i] = fd_buf_hash(all_bufs[i]);
    snap_ctc = ctc_state();
    cudnnCreateTensorDescriptor(NULL);
    cudnnGetLastErrorString(sentinel, sizeof sentinel);
}

/* After it: the status, a new reason on rejection, nothing written, descriptors as before. */
static void row_end(const char *name, cudnnStatus_t want, cudnnStatus_t got)
{
    char msg[1024];
    FD_EXPECT(got == want, "%s: status %s, want %s", name, cudnnGetErrorString(got),
              cudnnGetErrorString(want));
    if (want != SUCCESS) {
        cudnnGetLastErrorString(msg, sizeof msg);
        FD_EXPECT(msg[0] != '\0' && strcmp(msg, sentinel) != 0,
                  "%s: no new reason recorded (\"%s\")", name, msg);
        if (getenv("FD_TEST_VERBOSE"))
            printf("  %s: %s\n", name, msg);
        for (int i = 0; i < NBUFS; i++)
            FD_EXPECT(snap_hash[i] == fd_buf_hash(all_bufs[i]), "%s: buffer %d written", name, i);
    }
    for (int i = 0; i < NBUFS; i++)
        FD_EXPECT(fd_buf_guards_ok(all_bufs[i]), "%s: guard zone of buffer %d", name, i);
    ctc_state_t after = ctc_state();
    FD_EXPECT(!memcmp(&snap_ctc, &after, sizeof after), "%s: ctcLossDesc changed", name);
    FD_EXPECT(stf_state_ok(), "%s: stDesc changed", name);
}

#define ROW(name, want, expr)                                                                      \
    do {                                                                                           \
        row_begin();                                                                               \
        row_end(#name, want, (expr));                                                              \
    } while (0)

/* ---- the rows ------------------------------------------------------------------------------ */

#define ST_CALL_SF(st_, xd_, x_, yd_, y_, a_)                                                      \
    cudnnSpatialTfSamplerForward(h, st_, a_, xd_, x_, grid.data, &f_zero, yd_, y_)
#define SF(xd_, x_, yd_, y_) ST_CALL_SF(st, xd_, x_, yd_, y_, &f_one)
#define SB(st_, xd_, dxd_, dx_, dyd_, dgrid_, bg_)                                                 \
    cudnnSpatialTfSamplerBackward(h, st_, &f_one, xd_, x.data, &f_zero, dxd_, dx_, &f_one, dyd_,   \
                                  dy.data, grid.data, bg_, dgrid_)
#define DET CUDNN_CTC_LOSS_ALGO_DETERMINISTIC
#define CTCV8(d_, lab_, ll_, wsz_)                                                                 \
    cudnnCTCLoss_v8(h, DET, d_, pd, probs.data, lab_, ll_, il, costs.data, gd, grads.data, wsz_,   \
                    ws.data)
#define BIL CUDNN_SAMPLER_BILINEAR
#define F32 CUDNN_DATA_FLOAT
#define GARBAGE(T) ((T)(void *)garbage)

static int dims_alt[4] = {2, 2, 4, 4}, dims5[5] = {1, 2, 3, 4, 5}, dims_zero[4] = {2, 0, 4, 4};
static int dims_neg[4] = {2, 2, -1, 4}, dims_huge[4] = {65536, 1, 65536, 1};
static size_t ws_need_v8;

static void rows_spatial_tf(void)
{
    /* spatial transformer: descriptors */
    ROW(stf_create_null, BAD, cudnnCreateSpatialTransformerDescriptor(NULL));
    ROW(stf_destroy_null, SUCCESS, cudnnDestroySpatialTransformerDescriptor(NULL));
    ROW(stf_destroy_garbage, BAD,
        cudnnDestroySpatialTransformerDescriptor(GARBAGE(cudnnSpatialTransformerDescriptor_t)));
    ROW(stf_set_null_desc, BAD,
        cudnnSetSpatialTransformerNdDescriptor(NULL, BIL, F32, 4, dims_alt));
    ROW(stf_set_sampler_1, BAD,
        cudnnSetSpatialTransformerNdDescriptor(st, (cudnnSamplerType_t)1, F32, 4, dims_alt));
    ROW(stf_set_dtype_99, BAD,
        cudnnSetSpatialTransformerNdDescriptor(st, BIL, (cudnnDataType_t)99, 4, dims_alt));
    ROW(stf_set_nbdims_0, BAD, cudnnSetSpatialTransformerNdDescriptor(st, BIL, F32, 0, dims_alt));
    ROW(stf_set_dima_null, BAD, cudnnSetSpatialTransformerNdDescriptor(st, BIL, F32, 4, NULL));
    ROW(stf_set_nbdims_5, NS, cudnnSetSpatialTransformerNdDescriptor(st, BIL, F32, 5, dims5));
    ROW(stf_set_nbdims_3, NS, cudnnSetSpatialTransformerNdDescriptor(st, BIL, F32, 3, dims_alt));
    ROW(stf_set_dim_zero, BAD, cudnnSetSpatialTransformerNdDescriptor(st, BIL, F32, 4, dims_zero));
    ROW(stf_set_dim_negative, BAD,
        cudnnSetSpatialTransformerNdDescriptor(st, BIL, F32, 4, dims_neg));
    ROW(stf_set_2_to_32_elements, NS,
        cudnnSetSpatialTransformerNdDescriptor(st, BIL, F32, 4, dims_huge));
    /* grid generator */
    ROW(grid_fwd_null_handle, BAD,
        cudnnSpatialTfGridGeneratorForward(NULL, st, theta.data, dgrid.data));
    ROW(grid_fwd_garbage_handle, BAD,
        cudnnSpatialTfGridGeneratorForward(GARBAGE(cudnnHandle_t), st, theta.data, dgrid.data));
    ROW(grid_fwd_null_theta, BAD, cudnnSpatialTfGridGeneratorForward(h, st, NULL, dgrid.data));
    ROW(grid_fwd_null_grid, BAD, cudnnSpatialTfGridGeneratorForward(h, st, theta.data, NULL));
    ROW(grid_fwd_null_desc, BAD,
        cudnnSpatialTfGridGeneratorForward(h, NULL, theta.data, dgrid.data));
    ROW(grid_fwd_unset_desc, BAD,
        cudnnSpatialTfGridGeneratorForward(h, st_unset, theta.data, dgrid.data));
    ROW(grid_fwd_garbage_desc, BAD,
        cudnnSpatialTfGridGeneratorForward(h, GARBAGE(cudnnSpatialTransformerDescriptor_t),
                                           theta.data, dgrid.data));
    ROW(grid_fwd_int8, NS, cudnnSpatialTfGridGeneratorForward(h, st_i8, theta.data, dgrid.data));
    ROW(grid_fwd_grid_overlaps_theta, NS,
        cudnnSpatialTfGridGeneratorForward(h, st, theta.data, (char *)theta.data + 4));
    ROW(grid_bwd_null_dtheta, BAD, cudnnSpatialTfGridGeneratorBackward(h, st, grid.data, NULL));
    ROW(grid_bwd_null_dgrid, BAD, cudnnSpatialTfGridGeneratorBackward(h, st, NULL, theta.data));
    ROW(grid_bwd_unset_desc, BAD,
        cudnnSpatialTfGridGeneratorBackward(h, st_unset, grid.data, dgrid.data));
    ROW(grid_bwd_dtheta_overlaps_dgrid, NS,
        cudnnSpatialTfGridGeneratorBackward(h, st, grid.data, grid.data));
    /* sampler forward */
    ROW(sf_null_handle, BAD,
        cudnnSpatialTfSamplerForward(NULL, st, &f_one, xd, x.data, grid.data, &f_zero, yd, y.data));
    ROW(sf_null_alpha, BAD, ST_CALL_SF(st, xd, x.data, yd, y.data, NULL));
    ROW(sf_null_beta, BAD,
        cudnnSpatialTfSamplerForward(h, st, &f_one, xd, x.data, grid.data, NULL, yd, y.data));
    ROW(sf_null_x, BAD, SF(xd, NULL, yd, y.data));
    ROW(sf_null_grid, BAD,
        cudnnSpatialTfSamplerForward(h, st, &f_one, xd, x.data, NULL, &f_zero, yd, y.data));
    ROW(sf_null_y, BAD, SF(xd, x.data, yd, NULL));
    ROW(sf_null_xdesc, BAD, SF(NULL, x.data, yd, y.data));
    ROW(sf_unset_desc, BAD, ST_CALL_SF(st_unset, xd, x.data, yd, y.data, &f_one));
    ROW(sf_x_3d, BAD, SF(x3d, x.data, yd, y.data));
    ROW(sf_x_batch_mismatch, BAD, SF(xn2d, x.data, yd, y.data));
    ROW(sf_y_dims_mismatch, BAD, SF(xd, x.data, ybadd, y.data));
    ROW(sf_x_double_desc_float, BAD, SF(xdbld, x.data, yd, y.data));
    ROW(sf_y_negative_stride, NS, SF(xd, x.data, ynegd, y.data));
    ROW(sf_y_overlaps_x, NS, SF(xd, x.data, yd, x.data));
    ROW(sf_y_overlaps_grid, NS, SF(xd, x.data, yd, grid.data));
    ROW(sf_int8_desc, NS, ST_CALL_SF(st_i8, xd, x.data, yd, y.data, &f_one));
    /* sampler backward */
    ROW(sb_null_alpha_dgrid, BAD,
        cudnnSpatialTfSamplerBackward(h, st, &f_one, xd, x.data, &f_zero, xd, dx.data, NULL, yd,
                                      dy.data, grid.data, &f_zero, dgrid.data));
    ROW(sb_null_beta_dgrid, BAD, SB(st, xd, xd, dx.data, yd, dgrid.data, NULL));
    ROW(sb_null_dgrid, BAD, SB(st, xd, xd, dx.data, yd, NULL, &f_zero));
    ROW(sb_null_dx, BAD, SB(st, xd, xd, NULL, yd, dgrid.data, &f_zero));
    ROW(sb_dx_batch_mismatch, BAD, SB(st, xd, xn2d, dx.data, yd, dgrid.data, &f_zero));
    ROW(sb_dy_dims_mismatch, BAD, SB(st, xd, xd, dx.data, ybadd, dgrid.data, &f_zero));
    ROW(sb_dx_overlapping_strides, BAD, SB(st, xd, dxoverd, dx.data, yd, dgrid.data, &f_zero));
    ROW(sb_dgrid_overlaps_dx, NS, SB(st, xd, xd, dx.data, yd, dx.data, &f_zero));
    ROW(sb_dx_overlaps_dy, NS, SB(st, xd, xd, dy.data, yd, dgrid.data, &f_zero));
    ROW(sb_dgrid_is_grid, NS, SB(st, xd, xd, dx.data, yd, grid.data, &f_zero));
    ROW(sb_int8_desc, NS, SB(st_i8, xd, xd, dx.data, yd, dgrid.data, &f_zero));
    ROW(grid_fwd_ok, SUCCESS, cudnnSpatialTfGridGeneratorForward(h, st, theta.data, dgrid.data));
    ROW(sf_ok, SUCCESS, SF(xd, x.data, yd, y.data));
    ROW(sb_ok, SUCCESS, SB(st, xd, xd, dx.data, yd, dgrid.data, &f_zero));
}

static void rows_ctc(void)
{
    /* CTC: descriptors */
    ROW(ctc_create_null, BAD, cudnnCreateCTCLossDescriptor(NULL));
    ROW(ctc_destroy_null, SUCCESS, cudnnDestroyCTCLossDescriptor(NULL));
    ROW(ctc_destroy_garbage, BAD, cudnnDestroyCTCLossDescriptor(GARBAGE(cudnnCTCLossDescriptor_t)));
    ROW(ctc_set_null, BAD, cudnnSetCTCLossDescriptor(NULL, F32));
    ROW(ctc_set_comp_99, NS, cudnnSetCTCLossDescriptor(ctc, (cudnnDataType_t)99)); /* as cuDNN 9.19 */
    ROW(ctc_setex_norm_2, BAD,
        cudnnSetCTCLossDescriptorEx(ctc, F32, (cudnnLossNormalizationMode_t)2,
                                    CUDNN_PROPAGATE_NAN));
    ROW(ctc_setex_gradmode_2, BAD,
        cudnnSetCTCLossDescriptorEx(ctc, F32, CUDNN_LOSS_NORMALIZATION_SOFTMAX,
                                    (cudnnNanPropagation_t)2));
    ROW(ctc_setv8_maxlabel_0, BAD,
        cudnnSetCTCLossDescriptor_v8(ctc, F32, CUDNN_LOSS_NORMALIZATION_SOFTMAX,
                                     CUDNN_PROPAGATE_NAN, 0));
    ROW(ctc_setv9_gradmode_neg, BAD,
        cudnnSetCTCLossDescriptor_v9(ctc, F32, CUDNN_LOSS_NORMALIZATION_SOFTMAX,
                                     (cudnnCTCGradMode_t)-1, 8));
    ROW(ctc_setv9_maxlabel_neg, BAD,
        cudnnSetCTCLossDescriptor_v9(ctc, F32, CUDNN_LOSS_NORMALIZATION_SOFTMAX,
                                     CUDNN_CTC_SKIP_OOB_GRADIENTS, -3));
    ROW(ctc_get_unset, BAD, cudnnGetCTCLossDescriptor(ctc_unset, &out_dt));
    ROW(ctc_get_null_out, BAD, cudnnGetCTCLossDescriptor(ctc, NULL));
    ROW(ctc_getex_null_out, BAD, cudnnGetCTCLossDescriptorEx(ctc, &out_dt, &out_norm, NULL));
    ROW(ctc_getv8_null_out, BAD,
        cudnnGetCTCLossDescriptor_v8(ctc, &out_dt, &out_norm, &out_nan, NULL));
    ROW(ctc_getv9_garbage, BAD,
        cudnnGetCTCLossDescriptor_v9(GARBAGE(cudnnCTCLossDescriptor_t), &out_dt, &out_norm, &out_gm,
                                     &out_i));
    /* CTC: compute */
    ROW(ctc_null_handle, BAD,
        cudnnCTCLoss(NULL, pd, probs.data, labels, ll, il, costs.data, gd, grads.data, DET, ctc,
                     ws.data, ws_need));
    ROW(ctc_null_probs, BAD,
        cudnnCTCLoss(h, pd, NULL, labels, ll, il, costs.data, gd, grads.data, DET, ctc, ws.data,
                     ws_need));
    ROW(ctc_null_costs, BAD,
        cudnnCTCLoss(h, pd, probs.data, labels, ll, il, NULL, gd, grads.data, DET, ctc, ws.data,
                     ws_need));
    ROW(ctc_null_labels, BAD,
        cudnnCTCLoss(h, pd, probs.data, NULL, ll, il, costs.data, gd, grads.data, DET, ctc, ws.data,
                     ws_need));
    ROW(ctc_null_input_lengths, BAD,
        cudnnCTCLoss(h, pd, probs.data, labels, ll, NULL, costs.data, gd, grads.data, DET, ctc,
                     ws.data, ws_need));
    ROW(ctc_null_desc, BAD,
        cudnnCTCLoss(h, pd, probs.data, labels, ll, il, costs.data, gd, grads.data, DET, NULL,
                     ws.data, ws_need));
    ROW(ctc_unset_desc, BAD,
        cudnnCTCLoss(h, pd, probs.data, labels, ll, il, costs.data, gd, grads.data, DET, ctc_unset,
                     ws.data, ws_need));
    ROW(ctc_probs_4d, BAD,
        cudnnCTCLoss(h, p4d, probs.data, labels, ll, il, costs.data, NULL, NULL, DET, ctc, ws.data,
                     ws_need));
    ROW(ctc_grad_dims_mismatch, BAD,
        cudnnCTCLoss(h, pd, probs.data, labels, ll, il, costs.data, gbadd, grads.data, DET, ctc,
                     ws.data, ws_need));
    ROW(ctc_grad_type_mismatch, BAD,
        cudnnCTCLoss(h, pd, probs.data, labels, ll, il, costs.data, gdbld, grads.data, DET, ctc,
                     ws.data, ws_need));
    ROW(ctc_grad_null_desc, BAD,
        cudnnCTCLoss(h, pd, probs.data, labels, ll, il, costs.data, NULL, grads.data, DET, ctc,
                     ws.data, ws_need));
    ROW(ctc_input_length_above_T, BAD,
        cudnnCTCLoss(h, pd, probs.data, labels, ll, il_big, costs.data, gd, grads.data, DET, ctc,
                     ws.data, ws_need));
    ROW(ctc_input_length_0, BAD,
        cudnnCTCLoss(h, pd, probs.data, labels, ll, il_zero, costs.data, gd, grads.data, DET, ctc,
                     ws.data, ws_need));
    ROW(ctc_label_length_257, BAD,
        cudnnCTCLoss(h, pd, probs.data, labels, ll_long, il, costs.data, gd, grads.data, DET, ctc,
                     ws.data, ws_need));
    ROW(ctc_label_length_negative, BAD,
        cudnnCTCLoss(h, pd, probs.data, labels, ll_neg, il, costs.data, gd, grads.data, DET, ctc,
                     ws.data, ws_need));
    ROW(ctc_label_is_blank, BAD,
        cudnnCTCLoss(h, pd, probs.data, labels_blank, ll, il, costs.data, gd, grads.data, DET, ctc,
                     ws.data, ws_need));
    ROW(ctc_label_is_A, BAD,
        cudnnCTCLoss(h, pd, probs.data, labels_a, ll, il, costs.data, gd, grads.data, DET, ctc,
                     ws.data, ws_need));
    ROW(ctc_workspace_one_byte_short, BAD,
        cudnnCTCLoss(h, pd, probs.data, labels, ll, il, costs.data, gd, grads.data, DET, ctc,
                     ws.data, ws_need - 1));
    ROW(ctc_workspace_null, BAD,
        cudnnCTCLoss(h, pd, probs.data, labels, ll, il, costs.data, gd, grads.data, DET, ctc, NULL,
                     ws_need));
    ROW(ctc_algo_2, NS,
        cudnnCTCLoss(h, pd, probs.data, labels, ll, il, costs.data, gd, grads.data,
                     (cudnnCTCLossAlgo_t)2, ctc, ws.data, ws_need));
    ROW(ctc_comp_half, NS,
        cudnnCTCLoss(h, pd, probs.data, labels, ll, il, costs.data, gd, grads.data, DET, ctc_half,
                     ws.data, ws_need));
    ROW(ctc_probs_int8, NS,
        cudnnCTCLoss(h, pi8d, probs.data, labels, ll, il, costs.data, NULL, NULL, DET, ctc, ws.data,
                     ws_need));
    ROW(ctc_grads_overlap_probs, NS,
        cudnnCTCLoss(h, pd, probs.data, labels, ll, il, costs.data, gd, probs.data, DET, ctc,
                     ws.data, ws_need));
    ROW(ctc_costs_overlap_grads, NS,
        cudnnCTCLoss(h, pd, probs.data, labels, ll, il, grads.data, gd, grads.data, DET, ctc,
                     ws.data, ws_need));
    ROW(ctc_workspace_overlaps_probs, NS,
        cudnnCTCLoss(h, pd, probs.data, labels, ll, il, costs.data, gd, grads.data, DET, ctc,
                     probs.data, ws_need));
    ROW(ctc_v8_null_label_lengths, BAD, CTCV8(ctc, labels, NULL, ws_need_v8));
    ROW(ctc_v8_label_above_max, BAD, CTCV8(ctc, labels, ll_v8long, ws_need_v8));
    ROW(ctc_v8_workspace_short, BAD, CTCV8(ctc, labels, ll, ws_need_v8 - 1));
    ROW(ctc_v8_label_is_blank, BAD, CTCV8(ctc, labels_blank, ll, ws_need_v8));
    ROW(ctc_wssize_null_out, BAD,
        cudnnGetCTCLossWorkspaceSize(h, pd, gd, labels, ll, il, DET, ctc, NULL));
    ROW(ctc_wssize_null_lengths, BAD,
        cudnnGetCTCLossWorkspaceSize(h, pd, gd, labels, NULL, il, DET, ctc, &out_sz));
    ROW(ctc_wssize_algo_7, NS,
        cudnnGetCTCLossWorkspaceSize(h, pd, gd, labels, ll, il, (cudnnCTCLossAlgo_t)7, ctc,
                                     &out_sz));
    ROW(ctc_wssize_v8_garbage_desc, BAD,
        cudnnGetCTCLossWorkspaceSize_v8(h, DET, GARBAGE(cudnnCTCLossDescriptor_t), pd, gd,
                                        &out_sz));
    ROW(ctc_wssize_v8_probs_4d, BAD,
        cudnnGetCTCLossWorkspaceSize_v8(h, DET, ctc, p4d, NULL, &out_sz));
    ROW(ctc_ok, SUCCESS,
        cudnnCTCLoss(h, pd, probs.data, labels, ll, il, costs.data, gd, grads.data, DET, ctc,
                     ws.data, ws_need));
    ROW(ctc_costs_only_ok, SUCCESS,
        cudnnCTCLoss(h, pd, probs.data, labels, ll, il, costs.data, NULL, NULL, DET, ctc, ws.data,
                     ws_need));
    ROW(ctc_v8_ok, SUCCESS, CTCV8(ctc, labels, ll, ws_need_v8));
}

int main(void)
{
    fixture();
    OK(cudnnGetCTCLossWorkspaceSize_v8(h, DET, ctc, pd, gd, &ws_need_v8));
    FD_EXPECT(ws_need_v8 >= ws_need, "v8 workspace (maxLabelLength 4) %zu below the 7.x one %zu",
              ws_need_v8, ws_need);
    fd_buf_free(&ws);
    ws = fd_buf_alloc(ws_need_v8);
    fd_buf_poison(&ws);
    rows_spatial_tf();
    rows_ctc();
    /* the successful calls wrote real numbers */
    float c0 = *(float *)costs.data;
    FD_EXPECT(c0 > 0 && c0 < 100, "ctc_ok cost %g", c0);
    printf("%d contract rows\n", rows);
    return fd_test_finish();
}
