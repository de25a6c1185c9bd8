/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_conv_winograd.c - the cuda Winograd F(4x4,3x3) rows (src/cuda/conv_winograd.cu:
 * fd_conv_fwd_winograd_nonfused_f32, fd_conv_bwd_data_winograd_nonfused_f32,
 * fd_conv_bwd_filter_winograd_nonfused_f32) against the ref backend through the public API
 * (tests/gpu/gpu_mirror.h: guards around every buffer and the workspace, inputs unchanged,
 * outputs poisoned with NaN so beta == 0 must not read them, a second cuda run with identical
 * bits). Every case runs forward, backward data and backward filter, alternating the WINOGRAD
 * and WINOGRAD_NONFUSED enums (backward filter: WINOGRAD_NONFUSED, the only one cuDNN defines
 * there) and DEFAULT / FMA math, and the dispatch log must name the Winograd row (a silent
 * fallback to the naive kernel fails).
 *
 * Tolerance (docs/testing.md, the Winograd row): normwise, 10x the f32 table bound computed
 * with the largest term count K and the largest S = |alpha| sum|terms| + |beta y_old| over the
 * whole output, on integer and real fills alike (the transforms divide by 6 and 24 and mix a
 * tile's outputs with constants up to 8, so integer data is not exact):
 *     |cuda - ref| <= 10 (2 K 2^-24 S + 2^-24 |ref| + 2^-149 (1 + K)).
 * K and S are computed here on the host from the same fills (a direct loop over |x| |w|, or
 * over |dy| |x| for backward filter, whose K is the N P Q pixels a tap sums).
 * Shapes: H / W in {1, 2, 5, 7, 8, 13, 14, 28}, pad 0 / 1 / 2, N 1-3, C and K in {1, 3, 8, 17,
 * 64, 130}, x / y NCHW, NHWC and a permuted padded layout, KCRS / KRSC, both modes, alpha /
 * beta; problems that take each GEMM tile (64x64, 64x128, 128x128) and several tile chunks
 * (FREEDNN_WINOGRAD_CHUNK_MIB=1; backward filter: sums accumulated chunk after chunk, and
 * splits of the tiles). Declined problems (stride
 * 2, 5x5, dilation 2, HALF, groups 2) must run on the naive rows as before, within gm_tol of ref.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_mirror.h"

#define WINO_TOL 10.0

typedef enum { L_NCHW, L_NHWC, L_ODD } layout_t;
static const char *const layout_names[3] = {"nchw", "nhwc", "odd"};

typedef struct {
    int dir;     /* 0 fwd, 1 bwd data, 2 bwd filter */
    int variant; /* 0 WINOGRAD, 1 WINOGRAD_NONFUSED (bwd filter: always the latter) */
    int fma;     /* CUDNN_FMA_MATH, else DEFAULT */
    size_t ws;
    int n, c, k, groups, h, w, r, s, pad_h, pad_w, stride, dil;
    cudnnDataType_t dt;
    int mode;
    layout_t xl, yl;
    cudnnTensorFormat_t wfmt;
    double alpha, beta;
    int exact;
    uint64_t seed;
    const char *want_row[3]; /* expected row per direction; NULL: the Winograd rows */
    /* derived */
    int oh, ow;
    int xst[4], yst[4], wst[4];
    int64_t xext, yext, nw;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
} wc_case_t;

/* Strides of (n, c, h, w) in a layout; returns the element extent. L_ODD: C outermost, then N,
 * H, W, W padded by 3 and the others by 1. */
static int64_t layout_strides(layout_t l, const int *dim, int *stride)
{
    int order[4];
    if (l == L_NCHW)
        order[0] = 0, order[1] = 1, order[2] = 2, order[3] = 3;
    else if (l == L_NHWC)
        order[0] = 0, order[1] = 2, order[2] = 3, order[3] = 1;
    else
        order[0] = 1, order[1] = 0, order[2] = 2, order[3] = 3;
    int64_t s = 1;
    for (int i = 3; i >= 0; i--) {
        const int d = order[i];
        stride[d] = (int)s;
        s *= dim[d] + (l == L_ODD ? (i == 3 ? 3 : 1) : 0);
    }
    int64_t ext = 1;
    for (int d = 0; d < 4; d++)
        ext += (int64_t)(dim[d] - 1) * stride[d];
    return ext;
}

static size_t dt_size(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_HALF ? 2 : 4;
}

static int setup(wc_case_t *t)
{
    const int cg = t->c / t->groups;
    int xdim[4] = {t->n, t->c, t->h, t->w}, wdim[4] = {t->k, cg, t->r, t->s}, ydim[4];
    int pad[2] = {t->pad_h, t->pad_w}, str[2] = {t->stride, t->stride}, dil[2] = {t->dil, t->dil};
    if (cudnnCreateTensorDescriptor(&t->xd) || cudnnCreateTensorDescriptor(&t->yd) ||
        cudnnCreateFilterDescriptor(&t->wd) || cudnnCreateConvolutionDescriptor(&t->cd))
        return 0;
    t->xext = layout_strides(t->xl, xdim, t->xst);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->xd, t->dt, 4, xdim, t->xst), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetFilterNdDescriptor(t->wd, t->dt, t->wfmt, 4, wdim), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionNdDescriptor(t->cd, 2, pad, str, dil,
                                                     (cudnnConvolutionMode_t)t->mode, CUDNN_DATA_FLOAT),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionGroupCount(t->cd, t->groups), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetConvolutionMathType(t->cd, t->fma ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH),
                     CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnGetConvolutionNdForwardOutputDim(t->cd, t->xd, t->wd, 4, ydim),
                     CUDNN_STATUS_SUCCESS);
    t->oh = ydim[2], t->ow = ydim[3];
    t->yext = layout_strides(t->yl, ydim, t->yst);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->yd, t->dt, 4, ydim, t->yst), CUDNN_STATUS_SUCCESS);
    /* the filter's own strides: KCRS or KRSC, packed */
    if (t->wfmt == CUDNN_TENSOR_NCHW)
        t->wst[3] = 1, t->wst[2] = t->s, t->wst[1] = t->r * t->s, t->wst[0] = cg * t->r * t->s;
    else
        t->wst[1] = 1, t->wst[3] = cg, t->wst[2] = t->s * cg, t->wst[0] = t->r * t->s * cg;
    t->nw = (int64_t)t->k * cg * t->r * t->s;
    return 1;
}

static void teardown(wc_case_t *t)
{
    cudnnDestroyTensorDescriptor(t->xd);
    cudnnDestroyTensorDescriptor(t->yd);
    cudnnDestroyFilterDescriptor(t->wd);
    cudnnDestroyConvolutionDescriptor(t->cd);
}

static void fill(int i, void *payload, size_t bytes, void *ctx)
{
    wc_case_t *t = ctx;
    fd_rng_t r;
    fd_rng_seed(&r, t->seed * 7 + (uint64_t)i);
    const int64_t n = (int64_t)(bytes / dt_size(t->dt));
    if (i == 2 && t->beta == 0.0)
        return; /* the output stays poisoned: beta = 0 must not read it */
    if (t->exact)
        fd_fill_int(&r, t->dt, payload, n, -3, 3, 0.8);
    else
        fd_fill_real(&r, t->dt, payload, n, -1.0, 1.0);
}

static int algo_of(const wc_case_t *t)
{
    if (t->dir == 2)
        return CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
    if (t->dir == 0)
        return t->variant ? CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED : CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD;
    return t->variant ? CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED
                      : CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD;
}

static cudnnStatus_t call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    wc_case_t *t = ctx;
    gm_last_impl[0] = '\0';
    return gm_conv_call(h, t->dir, algo_of(t), t->xd, t->wd, t->cd, t->yd, t->alpha, t->beta, ptr,
                        t->ws);
}

/* Backward filter's: S = |alpha| sum over n, p, q of |dy x| + |beta dw_old| per dw element (its
 * memory tap: reversed for CUDNN_CONVOLUTION), K the pixels inside x. */
static void bound_terms_filter(const wc_case_t *t, const float *x, const float *dy, const float *dw,
                               int64_t *kmax, double *smax)
{
    const double a = fabs((double)(float)t->alpha), b = fabs((double)(float)t->beta);
    *kmax = 1, *smax = 0.0;
    for (int k = 0; k < t->k; k++)
        for (int c = 0; c < t->c; c++)
            for (int r = 0; r < 3; r++)
                for (int q = 0; q < 3; q++) {
                    double s = 0.0;
                    int64_t cnt = 0;
                    for (int n = 0; n < t->n; n++)
                        for (int y = 0; y < t->oh; y++) {
                            const int yy = y + r - t->pad_h;
                            if (yy < 0 || yy >= t->h)
                                continue;
                            for (int xo = 0; xo < t->ow; xo++) {
                                const int xx = xo + q - t->pad_w;
                                if (xx < 0 || xx >= t->w)
                                    continue;
                                s += fabs(
                                    (double)dy[(int64_t)n * t->yst[0] + (int64_t)k * t->yst[1] +
                                               (int64_t)y * t->yst[2] + (int64_t)xo * t->yst[3]] *
                                    (double)x[(int64_t)n * t->xst[0] + (int64_t)c * t->xst[1] +
                                              (int64_t)yy * t->xst[2] + (int64_t)xx * t->xst[3]]);
                                cnt++;
                            }
                        }
                    const int rr = t->mode == CUDNN_CONVOLUTION ? 2 - r : r;
                    const int qq = t->mode == CUDNN_CONVOLUTION ? 2 - q : q;
                    s *= a;
                    if (b != 0.0)
                        s += b * fabs((double)dw[(int64_t)k * t->wst[0] + (int64_t)c * t->wst[1] +
                                                 rr * t->wst[2] + qq * t->wst[3]]);
                    if (s > *smax)
                        *smax = s;
                    if (cnt > *kmax)
                        *kmax = cnt;
                }
}

/* The largest term count and the largest S = |alpha| sum|x w| + |beta y_old| over the output
 * (FLOAT groups-1 problems: the Winograd rows' domain). */
static void bound_terms(const wc_case_t *t, const float *in, const float *w, const float *out,
                        int64_t *kmax, double *smax)
{
    const int fwd = t->dir == 0;
    const int on = fwd ? t->k : t->c, inn = fwd ? t->c : t->k;
    const int oh = fwd ? t->oh : t->h, ow = fwd ? t->ow : t->w;
    const int ih = fwd ? t->h : t->oh, iw = fwd ? t->w : t->ow;
    const int *is = fwd ? t->xst : t->yst, *os = fwd ? t->yst : t->xst;
    const double a = fabs((double)(float)t->alpha), b = fabs((double)(float)t->beta);
    *kmax = 1, *smax = 0.0;
    for (int n = 0; n < t->n; n++)
        for (int o = 0; o < on; o++)
            for (int y = 0; y < oh; y++)
                for (int x = 0; x < ow; x++) {
                    double s = 0.0;
                    int64_t cnt = 0;
                    for (int i = 0; i < inn; i++)
                        for (int r = 0; r < 3; r++)
                            for (int q = 0; q < 3; q++) {
                                /* fwd: in(y + r - pad) pairs tap r; bwd data: in(y + pad - r) */
                                const int yy = fwd ? y + r - t->pad_h : y + t->pad_h - r;
                                const int xx = fwd ? x + q - t->pad_w : x + t->pad_w - q;
                                if (yy < 0 || yy >= ih || xx < 0 || xx >= iw)
                                    continue;
                                const int rr = t->mode == CUDNN_CONVOLUTION ? 2 - r : r;
                                const int qq = t->mode == CUDNN_CONVOLUTION ? 2 - q : q;
                                const int kk = fwd ? o : i, cc = fwd ? i : o;
                                const double wv = w[(int64_t)kk * t->wst[0] + (int64_t)cc * t->wst[1] +
                                                    rr * t->wst[2] + qq * t->wst[3]];
                                const double xv = in[(int64_t)n * is[0] + (int64_t)i * is[1] +
                                                     (int64_t)yy * is[2] + (int64_t)xx * is[3]];
                                s += fabs(xv * wv);
                                cnt++;
                            }
                    s *= a;
                    if (b != 0.0)
                        s += b * fabs((double)out[(int64_t)n * os[0] + (int64_t)o * os[1] +
                                                  (int64_t)y * os[2] + (int64_t)x * os[3]]);
                    if (s > *smax)
                        *smax = s;
                    if (cnt > *kmax)
                        *kmax = cnt;
                }
}

static const char *const dir_names[3] = {"fwd", "bwd_data", "bwd_filter"};
static const char *const wino_rows[3] = {"fd_conv_fwd_winograd_nonfused_f32",
                                         "fd_conv_bwd_data_winograd_nonfused_f32",
                                         "fd_conv_bwd_filter_winograd_nonfused_f32"};
static int case_count;

static void run_dir(wc_case_t t)
{
    if (!setup(&t))
        return;
    char label[320];
    snprintf(label, sizeof label,
             "%s/%s n%d c%d k%d g%d %dx%d f%dx%d p%d,%d u%d d%d %s %s x-%s y-%s w-%s %s a%g b%g %s",
             dir_names[t.dir], t.dir == 2 || t.variant ? "nonfused" : "winograd", t.n, t.c, t.k,
             t.groups, t.h, t.w, t.r, t.s, t.pad_h, t.pad_w, t.stride, t.dil,
             t.dt == CUDNN_DATA_HALF ? "half" : "float",
             t.mode == CUDNN_CONVOLUTION ? "conv" : "xcorr", layout_names[t.xl], layout_names[t.yl],
             t.wfmt == CUDNN_TENSOR_NCHW ? "kcrs" : "krsc", t.fma ? "fma" : "default", t.alpha,
             t.beta, t.exact ? "exact" : "real");
    const size_t es = dt_size(t.dt);
    const size_t wsr = gm_conv_workspace(gm_ref, t.dir, algo_of(&t), t.xd, t.wd, t.cd, t.yd);
    const size_t wsc = gm_conv_workspace(gm_cuda, t.dir, algo_of(&t), t.xd, t.wd, t.cd, t.yd);
    t.ws = wsr > wsc ? wsr : wsc;
    const gm_role_t out_role = t.beta != 0.0 ? GM_INOUT : GM_OUT;
    gm_case_t c = {0};
    c.label = label;
    c.nbuf = 4;
    if (t.dir == 2) { /* x, dy in; dw out */
        c.buf[0] = (gm_buf_t){"x", (size_t)t.xext * es, t.dt, GM_IN, 0, 0};
        c.buf[1] = (gm_buf_t){"dy", (size_t)t.yext * es, t.dt, GM_IN, 0, 0};
        c.buf[2] = (gm_buf_t){"dw", (size_t)t.nw * es, t.dt, out_role, 0, 0};
    } else {
        const size_t in_bytes = (size_t)(t.dir == 0 ? t.xext : t.yext) * es;
        const size_t out_bytes = (size_t)(t.dir == 0 ? t.yext : t.xext) * es;
        c.buf[0] = (gm_buf_t){t.dir == 0 ? "x" : "dy", in_bytes, t.dt, GM_IN, 0, 0};
        c.buf[1] = (gm_buf_t){"w", (size_t)t.nw * es, t.dt, GM_IN, 0, 0};
        c.buf[2] = (gm_buf_t){t.dir == 0 ? "y" : "dx", out_bytes, t.dt, out_role, 0, 0};
    }
    c.buf[3] = (gm_buf_t){"workspace", t.ws, CUDNN_DATA_FLOAT, GM_WS, 0, 0};
    const char *want = t.want_row[t.dir] ? t.want_row[t.dir] : wino_rows[t.dir];
    if (t.want_row[t.dir] == NULL) {
        /* the same fills gm_run will make, for K and S of the Winograd bound */
        float *hb[3];
        for (int i = 0; i < 3; i++) {
            hb[i] = malloc(c.buf[i].bytes ? c.buf[i].bytes : 1);
            memset(hb[i], 0, c.buf[i].bytes);
            fill(i, hb[i], c.buf[i].bytes, &t);
        }
        int64_t kmax;
        double smax;
        if (t.dir == 2)
            bound_terms_filter(&t, hb[0], hb[1], hb[2], &kmax, &smax);
        else
            bound_terms(&t, hb[0], hb[1], hb[2], &kmax, &smax);
        for (int i = 0; i < 3; i++)
            free(hb[i]);
        c.buf[2].abs_tol = WINO_TOL * (2.0 * (double)kmax * 0x1p-24 * smax + 0x1p-149 * (double)(1 + kmax));
        c.buf[2].rel_tol = WINO_TOL * 0x1p-24;
    } else {
        gm_tol(&c.buf[2], t.dt,
               t.dir == 2 ? (int64_t)t.n * t.oh * t.ow
                          : (int64_t)(t.dir == 0 ? t.c : t.k) * t.r * t.s);
    }
    c.det = 1;
    c.fill = fill;
    c.call = call;
    c.ctx = &t;
    c.want = CUDNN_STATUS_SUCCESS;
    gm_run(&c);
    case_count++;
    FD_EXPECT(strcmp(gm_last_impl, want) == 0, "%s: dispatch ran %s, expected %s", label,
              gm_last_impl[0] ? gm_last_impl : "(nothing logged)", want);
    teardown(&t);
}

static void run(wc_case_t t)
{
    static int rotate;
    for (int d = 0; d < 3; d++) {
        t.dir = d;
        t.variant = rotate & 1;
        t.fma = (rotate >> 1) & 1;
        rotate++;
        run_dir(t);
    }
}

static wc_case_t base(int n, int c, int k, int h, int w, int pad)
{
    wc_case_t t;
    memset(&t, 0, sizeof t);
    t.n = n, t.c = c, t.k = k, t.groups = 1, t.h = h, t.w = w, t.r = t.s = 3;
    t.pad_h = t.pad_w = pad, t.stride = t.dil = 1;
    t.dt = CUDNN_DATA_FLOAT;
    t.mode = CUDNN_CROSS_CORRELATION;
    t.xl = t.yl = L_NCHW;
    t.wfmt = CUDNN_TENSOR_NCHW;
    t.alpha = 1.0, t.beta = 0.0, t.exact = 1;
    t.seed = (uint64_t)(n * 131 + c * 17 + k * 7 + h + w * 3 + pad * 1000);
    return t;
}

/* x / y and filter layout set i: NCHW/KCRS, NHWC/KRSC, odd/KCRS, odd/KRSC, NHWC/KCRS, NCHW/KRSC */
static wc_case_t with_layout(wc_case_t t, int i)
{
    static const layout_t ls[6] = {L_NCHW, L_NHWC, L_ODD, L_ODD, L_NHWC, L_NCHW};
    static const cudnnTensorFormat_t fs[6] = {CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC, CUDNN_TENSOR_NCHW,
                                              CUDNN_TENSOR_NHWC, CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC};
    t.xl = t.yl = ls[i % 6];
    t.wfmt = fs[i % 6];
    return t;
}

int main(int argc, char **argv)
{
    setenv("FREEDNN_LOG_DISPATCH", "1", 1);
    unsetenv("FREEDNN_WINOGRAD_CHUNK_MIB");
    gm_init(argc, argv, "test_gpu_conv_winograd");
    gm_watch_dispatch();

    if (gm_smoke) {
        run(with_layout(base(2, 5, 17, 9, 11, 1), 0));
        wc_case_t t = with_layout(base(1, 8, 3, 7, 7, 2), 1);
        t.mode = CUDNN_CONVOLUTION, t.beta = 0.5;
        run(t);
        return gm_finish();
    }

    /* every size and padding; channel pairs, layouts, modes, alpha / beta and fills rotate */
    static const int sizes[8] = {1, 2, 5, 7, 8, 13, 14, 28};
    static const int chans[][2] = {{1, 1}, {3, 8}, {8, 3}, {17, 64}, {64, 17}, {130, 3},
                                   {3, 130}, {1, 17}, {17, 1}, {64, 64}, {8, 130}, {130, 8}};
    static const double ab[4][2] = {{1.0, 0.0}, {0.5, 0.25}, {-2.0, 1.0}, {1.0, 0.0}};
    int turn = 0;
    for (int si = 0; si < 8; si++)
        for (int pad = 0; pad <= 2; pad++) {
            const int h = sizes[si], w = sizes[(si + pad) % 8];
            if (h + 2 * pad < 3 || w + 2 * pad < 3)
                continue;
            const int *ck = chans[turn % 12];
            wc_case_t t = with_layout(base(1 + turn % 3, ck[0], ck[1], h, w, pad), turn);
            if ((int64_t)t.n * ck[0] * ck[1] * h * w > 2000000)
                t.n = 1;
            t.mode = turn % 2 ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
            t.alpha = ab[turn % 4][0], t.beta = ab[turn % 4][1];
            t.exact = (turn / 2) % 2;
            turn++;
            run(t);
        }
    /* uneven padding, x and y in different layouts */
    wc_case_t t = base(2, 9, 14, 10, 12, 1);
    t.pad_h = 0, t.pad_w = 2, t.yl = L_NHWC;
    run(t);
    t = with_layout(base(3, 17, 8, 13, 14, 1), 1);
    t.yl = L_ODD, t.exact = 0, t.alpha = 0.5, t.beta = 0.25;
    run(t);
    /* ResNet-like real data in both layouts: the 64x64 GEMM tile, reductions of 64 */
    for (int li = 0; li < 2; li++) {
        t = with_layout(base(2, 64, 64, 28, 28, 1), li);
        t.exact = 0;
        run(t);
        t = with_layout(base(1, 130, 64, 14, 14, 1), li);
        t.exact = 0, t.mode = CUDNN_CONVOLUTION, t.alpha = -2.0, t.beta = 1.0;
        run(t);
    }
    /* the 128x128 tile (130 output channels, 1250 tiles): fwd for K = 130, bwd data for C = 130 */
    t = base(2, 9, 130, 100, 100, 1);
    t.exact = 0;
    run(t);
    t = with_layout(base(2, 130, 9, 100, 100, 1), 1);
    run(t);
    /* the 64x128 tile (100 output channels, 900 tiles) */
    t = base(1, 3, 100, 120, 120, 1);
    t.exact = 0, t.alpha = 0.5, t.beta = 0.25;
    run(t);
    t = with_layout(base(1, 100, 3, 120, 120, 1), 1);
    run(t);
    /* several chunks of tiles (1 MiB of V + M: 256 tiles per chunk for 20 channels) */
    setenv("FREEDNN_WINOGRAD_CHUNK_MIB", "1", 1);
    t = base(3, 8, 12, 40, 40, 1);
    t.exact = 0, t.beta = 0.5;
    run(t);
    t = with_layout(base(3, 12, 8, 39, 41, 2), 1);
    t.mode = CUDNN_CONVOLUTION;
    run(t);
    /* backward filter: a chunk budget of 224 tiles (C = K = 16) cuts 300 into two even chunks,
     * 152 + 148, each in 3 splits (the second chunk's sums added to the first's); 56-tile
     * chunks of C = K = 64, six of them */
    t = with_layout(base(3, 16, 16, 40, 40, 1), 1);
    t.exact = 0, t.alpha = 0.5, t.beta = 0.25;
    run(t);
    t = base(3, 64, 64, 40, 40, 1);
    t.exact = 0;
    run(t);
    unsetenv("FREEDNN_WINOGRAD_CHUNK_MIB");
    /* the 128x128 tile in every direction (C = K = 130) */
    t = with_layout(base(1, 130, 130, 14, 14, 1), 1);
    t.exact = 0;
    run(t);

    /* declined: the naive rows answer as before */
    static const char *const direct[3] = {"fd_conv_fwd_direct", "fd_conv_bwd_data_direct",
                                          "fd_conv_bwd_filter_direct"};
    for (int v = 0; v < 5; v++) {
        t = base(2, 6, 4, 9, 8, 1);
        t.want_row[0] = direct[0], t.want_row[1] = direct[1], t.want_row[2] = direct[2];
        if (v == 0)
            t.stride = 2;
        else if (v == 1)
            t.r = t.s = 5, t.pad_h = t.pad_w = 2;
        else if (v == 2)
            t.dil = 2, t.pad_h = t.pad_w = 2;
        else if (v == 3)
            t.dt = CUDNN_DATA_HALF;
        else
            t.groups = 2;
        run(t);
    }
    printf("test_gpu_conv_winograd: %d direction cases\n", case_count);
    return gm_finish();
}
