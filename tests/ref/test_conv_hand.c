/* SPDX-License-Identifier: MIT */
/*
 * test_conv_hand.c - convolution cases small enough to compute by hand; the expected numbers
 * are written here (worked out on paper, checked with the adjoint identity
 * <dy, y> = <dx, x> = <dw, w> noted next to each case).
 *
 * Every case runs forward, backward data and backward filter (and the bias gradient where
 * given), for f64, f32, f16 and bf16, in NCHW and NHWC layouts with NCHW and NHWC filters,
 * and must match exactly. The oracle of conv_oracle.h is held to the same numbers, so these
 * cases also pin the oracle the randomized tests rely on.
 */
#include "conv_case.h"

typedef struct {
    const char *name;
    co_shape_t s;
    const double *x, *w, *dy; /* canonical inputs */
    const double *y_want, *dx_want, *dw_want;
    double alpha, beta; /* when beta != 0: old outputs are all `old` */
    double old;
} hand_t;

/* A: 3x3 input, 2x2 filter, no padding. <dy, y> with dy below = 37+94+201+308 = 640. */
static const double a_x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
static const double a_w[4] = {1, 2, 3, 4};
static const double a_dy[4] = {1, 2, 3, 4};
static const double a_y_xcorr[4] = {37, 47, 67, 77};
static const double a_y_conv[4] = {23, 33, 53, 63}; /* the filter flipped to 4 3 / 2 1 */
static const double a_dx_xcorr[9] = {1, 4, 4, 6, 20, 16, 9, 24, 16};
static const double a_dx_conv[9] = {4, 11, 6, 14, 30, 14, 6, 11, 4};
static const double a_dy2[4] = {1, 0, -1, 2};
static const double a_dw_xcorr[4] = {7, 9, 13, 15};
static const double a_dw_conv[4] = {15, 13, 9, 7}; /* the same gradient, stored flipped */

/* B: 4x4 input 1..16, 3x3 filter, pad 1, stride 2 -> 2x2. <dy, y> = -272 = <dx, x> = <dw, w>. */
static const double b_x[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const double b_w[9] = {1, 2, 1, 0, 0, 0, -1, -2, -1};
static const double b_dy[4] = {1, 2, 3, 4};
static const double b_y[4] = {-16, -28, -24, -32};
static const double b_dx[16] = {0, 0, 0, 0, 4, 4, 4, 2, 0, 0, 0, 0, -6, -7, -8, -4};
static const double b_dw[9] = {24, 43, 50, 44, 78, 88, 68, 118, 128};

/* C: dilation 2, 1x7 input, 1x3 filter -> 1x5 span, 3 outputs. <dy, y> = 180 (xcorr), 132 (conv).
 */
static const double c_x[7] = {1, 2, 3, 4, 5, 6, 7};
static const double c_w[3] = {1, 2, 3};
static const double c_dy[3] = {1, 2, 3};
static const double c_y_xcorr[3] = {22, 28, 34};
static const double c_y_conv[3] = {14, 20, 26};
static const double c_dx_xcorr[7] = {1, 2, 5, 4, 9, 6, 9};
static const double c_dx_conv[7] = {3, 6, 11, 4, 7, 2, 3};
static const double c_dw_xcorr[3] = {14, 26, 38};
static const double c_dw_conv[3] = {38, 26, 14};

/* D: 2 groups, C = 4, K = 2, 1x1 filters with 2 input channels each, 1x2 spatial.
 * Group 0 sees channels 0-1 and produces k0; group 1 channels 2-3 -> k1. */
static const double d_x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
static const double d_w[4] = {1, 2, 3, -1};
static const double d_dy[4] = {1, 2, 3, 4};
static const double d_y[4] = {7, 10, 8, 10};
static const double d_dx[8] = {1, 2, 2, 4, 9, 12, -3, -4};
static const double d_dw[4] = {5, 11, 39, 53};

/* E: depthwise, C = K = G = 2, 2x2 filters over 3x3 inputs. */
static const double e_x[18] = {1, 2, 3, 4, 5, 6, 7, 8, 9, /* channel 1: */ 1,
                               0, 1, 0, 1, 0, 1, 0, 1};
static const double e_w[8] = {1, 2, 3, 4, /* k1: */ 1, -1, -1, 1};
static const double e_dy[8] = {1, 2, 3, 4, /* k1: */ 1, 1, 1, 1};
static const double e_y[8] = {37, 47, 67, 77, /* k1: */ 2, -2, -2, 2};
static const double e_dx[18] = {1,           4, 4,  6, 20, 16, 9,  24, 16,
                                /* c1: */ 1, 0, -1, 0, 0,  0,  -1, 0,  1};
static const double e_dw[8] = {37, 47, 67, 77, /* k1: */ 2, 2, 2, 2};

/* F: 1-d (3-dim tensors), stride 2, pad 1, 2-tap filter: x = 1..5, w = (1, -1) -> out 3.
 * y[o] = x[2o-1] - x[2o]: (0-1, 2-3, 4-5). */
static const double f_x[5] = {1, 2, 3, 4, 5};
static const double f_w[2] = {1, -1};
static const double f_dy[3] = {1, 2, 3};
static const double f_y[3] = {-1, -1, -1};
static const double f_dx[5] = {-1, 2, -2, 3, -3};
static const double f_dw[2] = {0 + 2 * 2 + 3 * 4,
                               1 * 1 + 2 * 3 + 3 * 5}; /* sum_o dy[o] x[2o-1+t] */

/* G: 3-d, 2x2x2 input 1..8, 2x2x2 filter of ones -> the sum, 36. */
static const double g_x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
static const double g_w[8] = {1, 1, 1, 1, 1, 1, 1, 1};
static const double g_dy[1] = {2};
static const double g_y[1] = {36};
static const double g_dx[8] = {2, 2, 2, 2, 2, 2, 2, 2};
static const double g_dw[8] = {2, 4, 6, 8, 10, 12, 14, 16};

/* H: two output channels, N = 2, so batch and channel sums meet: x 2x1x2x2, w 2x1x1x1. */
static const double h_x[8] = {1, 2, 3, 4, /* n1: */ 5, 6, 7, 8};
static const double h_w[2] = {2, -1};
static const double h_dy[16] = {1, 1, 1, 1, 0, 1, 0, 1, /* n1: */ 1, 0, 0, 0, 2, 2, 2, 2};
static const double h_y[16] = {2, 4, 6, 8, -1, -2, -3, -4, 10, 12, 14, 16, -5, -6, -7, -8};
static const double h_dx[8] = {2, 1, 2, 1, 0, -2, -2, -2};
static const double h_dw[2] = {10 + 5, 6 + 52};

/* Alpha/beta on case A (xcorr): 0.5 * y + 1 * 1. */
static const double a_y_blend[4] = {19.5, 24.5, 34.5, 39.5};

#define SHAPE2(N, C, K, G, H, W, R, S, PH, PW, UH, UW, DH, DW, FLIP)                               \
    {                                                                                              \
        2, N, C, K, G, {H, W, 0}, {R, S, 0}, {PH, PW, 0}, {UH, UW, 0}, {DH, DW, 0}, FLIP           \
    }

static const hand_t cases[] = {
    {"A xcorr 3x3*2x2", SHAPE2(1, 1, 1, 1, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 0), a_x, a_w, a_dy,
     a_y_xcorr, a_dx_xcorr, NULL, 1, 0, 0},
    {"A conv 3x3*2x2 (flip)", SHAPE2(1, 1, 1, 1, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 1), a_x, a_w, a_dy,
     a_y_conv, a_dx_conv, NULL, 1, 0, 0},
    {"A xcorr dw", SHAPE2(1, 1, 1, 1, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 0), a_x, a_w, a_dy2, NULL, NULL,
     a_dw_xcorr, 1, 0, 0},
    {"A conv dw (flip)", SHAPE2(1, 1, 1, 1, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 1), a_x, a_w, a_dy2, NULL,
     NULL, a_dw_conv, 1, 0, 0},
    {"A xcorr alpha 0.5 beta 1", SHAPE2(1, 1, 1, 1, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 0), a_x, a_w,
     a_dy, a_y_blend, NULL, NULL, 0.5, 1, 1},
    {"B stride 2 pad 1", SHAPE2(1, 1, 1, 1, 4, 4, 3, 3, 1, 1, 2, 2, 1, 1, 0), b_x, b_w, b_dy, b_y,
     b_dx, b_dw, 1, 0, 0},
    {"C dilation 2 (2-d, H = 1)", SHAPE2(1, 1, 1, 1, 1, 7, 1, 3, 0, 0, 1, 1, 1, 2, 0), c_x, c_w,
     c_dy, c_y_xcorr, c_dx_xcorr, c_dw_xcorr, 1, 0, 0},
    {"C dilation 2 conv (flip)", SHAPE2(1, 1, 1, 1, 1, 7, 1, 3, 0, 0, 1, 1, 1, 2, 1), c_x, c_w,
     c_dy, c_y_conv, c_dx_conv, c_dw_conv, 1, 0, 0},
    {"C dilation 2 (1-d)",
     {1, 1, 1, 1, 1, {7}, {3}, {0}, {1}, {2}, 0},
     c_x,
     c_w,
     c_dy,
     c_y_xcorr,
     c_dx_xcorr,
     c_dw_xcorr,
     1,
     0,
     0},
    {"D 2 groups", SHAPE2(1, 4, 2, 2, 1, 2, 1, 1, 0, 0, 1, 1, 1, 1, 0), d_x, d_w, d_dy, d_y, d_dx,
     d_dw, 1, 0, 0},
    {"E depthwise", SHAPE2(1, 2, 2, 2, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 0), e_x, e_w, e_dy, e_y, e_dx,
     e_dw, 1, 0, 0},
    {"F 1-d stride 2 pad 1",
     {1, 1, 1, 1, 1, {5}, {2}, {1}, {2}, {1}, 0},
     f_x,
     f_w,
     f_dy,
     f_y,
     f_dx,
     f_dw,
     1,
     0,
     0},
    {"G 3-d 2x2x2",
     {3, 1, 1, 1, 1, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 0},
     g_x,
     g_w,
     g_dy,
     g_y,
     g_dx,
     g_dw,
     1,
     0,
     0},
    {"H N=2 K=2", SHAPE2(2, 1, 2, 1, 2, 2, 1, 1, 0, 0, 1, 1, 1, 1, 0), h_x, h_w, h_dy, h_y, h_dx,
     h_dw, 1, 0, 0},
};

/* Bias: dy 2x2x2x2 -> db per channel: k0 = (1+2+3+4) + 4, k1 = (-1+0+5+6) + 8. */
static const double bias_dy[16] = {1, 2, 3, 4, -1, 0, 5, 6, /* n1: */ 1, 1, 1, 1, 2, 2, 2, 2};
static const double bias_db[2] = {14, 18};

static cc_case_t fixed_case(co_dir_t dir, cudnnDataType_t dt, const co_shape_t *s,
                            cc_layout_t layout, int wnhwc, double alpha, double beta)
{
    cc_case_t c;
    memset(&c, 0, sizeof c);
    c.dir = dir, c.dt = dt, c.comp = dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    c.s = *s;
    c.wnhwc = wnhwc;
    c.bstride = 1;
    c.alpha = alpha, c.beta = beta;
    c.algo = 0;
    fd_rng_t r;
    fd_rng_seed(&r, 1);
    cc_set_layouts(&c, layout, layout, &r);
    return c;
}

/* Runs one direction of a hand case and checks library and oracle against `want`. */
static void run_dir(const hand_t *h, co_dir_t dir, cudnnDataType_t dt, cc_layout_t layout,
                    int wnhwc, cudnnHandle_t handle, const double *a, const double *b,
                    const double *want)
{
    cc_case_t c = fixed_case(dir, dt, &h->s, layout, wnhwc, h->alpha, h->beta);
    cc_data_t d = cc_data_new(&c);
    memcpy(d.a, a, sizeof(double) * (size_t)d.na);
    if (d.nb)
        memcpy(d.b, b, sizeof(double) * (size_t)d.nb);
    if (d.old)
        for (int64_t i = 0; i < d.nout; i++)
            d.old[i] = h->old;
    char what[160];
    snprintf(what, sizeof what, "hand case %s %s %s %s wfmt=%s", h->name, cc_dir_names[dir],
             fd_test_dtype_short(dt), cc_layout_names[layout], wnhwc ? "nhwc" : "nchw");
    /* the oracle against the hand numbers (once per case and direction is enough) */
    if (dt == CUDNN_DATA_DOUBLE && layout == CC_NCHW && !wnhwc) {
        double *ow = calloc((size_t)d.nout, sizeof(double));
        co_acc_t acc = cc_expect(&c, &d, ow);
        int ok = 1;
        for (int64_t i = 0; i < d.nout; i++)
            ok &= ow[i] == want[i];
        FD_EXPECT(ok, "%s: the oracle disagrees with the hand-computed numbers", what);
        co_acc_free(&acc);
        free(ow);
    }
    cc_result_t res = cc_exec(handle, &c, &d, 0);
    if (cc_check_run(&c, &res, what) == 0) {
        int64_t bad = 0;
        for (int64_t i = 0; i < res.nout; i++)
            if (res.got[i] != want[i] && bad++ < 3)
                printf("  %s element %" PRId64 ": got %g want %g\n", what, i, res.got[i], want[i]);
        FD_EXPECT(bad == 0, "%s: %" PRId64 " elements differ from the hand-computed result", what,
                  bad);
    }
    cc_result_free(&res);
    cc_data_free(&d);
}

int main(void)
{
    cudnnHandle_t h = cc_handle(FREEDNN_BACKEND_REF);
    int runs = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const hand_t *hc = &cases[i];
        for (int t = 0; t < 4; t++)
            for (int l = 0; l < 2; l++)
                for (int wf = 0; wf < 2; wf++) {
                    cudnnDataType_t dt = cc_dtypes[t];
                    cc_layout_t lay = l ? CC_NHWC : CC_NCHW;
                    if (hc->y_want)
                        run_dir(hc, CO_FWD, dt, lay, wf, h, hc->x, hc->w, hc->y_want), runs++;
                    if (hc->dx_want)
                        run_dir(hc, CO_BWD_DATA, dt, lay, wf, h, hc->dy, hc->w, hc->dx_want),
                            runs++;
                    if (hc->dw_want)
                        run_dir(hc, CO_BWD_FILTER, dt, lay, wf, h, hc->x, hc->dy, hc->dw_want),
                            runs++;
                }
    }
    /* bias gradient: NCHW, NHWC, padded dy; db packed and with a channel stride of 3 */
    co_shape_t bs = SHAPE2(2, 2, 2, 1, 2, 2, 1, 1, 0, 0, 1, 1, 1, 1, 0);
    hand_t hb = {"bias", bs, NULL, NULL, bias_dy, NULL, NULL, NULL, 1, 0, 0};
    for (int t = 0; t < 4; t++)
        for (int l = 0; l < 3; l++) {
            cc_case_t c = fixed_case(CO_BWD_BIAS, cc_dtypes[t], &bs, (cc_layout_t)l, 0, 1, 0);
            c.bstride = l == 2 ? 3 : 1;
            cc_data_t d = cc_data_new(&c);
            memcpy(d.a, hb.dy, sizeof bias_dy);
            char what[96];
            snprintf(what, sizeof what, "hand bias %s %s", fd_test_dtype_short(c.dt),
                     cc_layout_names[l]);
            cc_result_t res = cc_exec(h, &c, &d, 0);
            if (cc_check_run(&c, &res, what) == 0)
                FD_EXPECT(res.got[0] == bias_db[0] && res.got[1] == bias_db[1],
                          "%s: db = (%g, %g), want (14, 18)", what, res.got[0], res.got[1]);
            cc_result_free(&res);
            cc_data_free(&d);
            runs++;
        }
    printf("%d hand-computed runs\n", runs);
    cudnnDestroy(h);
    return fd_test_finish();
}
