/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_softmax_lrn.c - the cuda rows of softmax (src/cuda/softmax.cu), cross-channel LRN
 * and divisive normalization (src/cuda/lrn.cu) against the ref backend through the public API,
 * with the gpu_mirror harness (guards, unchanged inputs, poisoned outputs, determinism).
 *
 * Softmax: FAST / ACCURATE / LOG x INSTANCE / CHANNEL, forward and backward, 4-d and 5-d,
 * NCHW / NHWC / a permuted padded layout (both the block-per-row and the thread-per-row
 * kernels), in place (y == x; dx == dy, dx == y), NaN and -inf rows, both blends, the four
 * types, 4M-element tensors for each kernel; the rows-in-registers kernels (NHWC CHANNEL rows
 * of 4 to 256 16-byte vectors: every lanes x vectors shape, rows too short and too long for
 * them, partial blocks, in place, NaN rows); the one-pass max / sum forward of strided rows
 * (NCHW CHANNEL, C >= 32: the sum rescaled as the max grows, within the same gm_tol); every
 * (lanes, vectors) shape of softmax_wreg over NHWC C = 1 .. 2048; the strided-row backward
 * softmax_bwd_cols (NCHW CHANNEL, C = 1 .. 256, pixel counts below, at and past its tiles,
 * HALF pairs, in place, NaN / -inf) and the rows it leaves to softmax_bwd_rows (C 257, 1000,
 * 15 pixels), its calls with alpha 1, beta 0 on softmax_bwd_cols_lean (sm_bcols_tests: every
 * group shape over odd, paired, partial and whole tiles, every algo, FLOAT / HALF / BFLOAT16,
 * NaN / -inf, in place, the padded layout, 5-d, 65535 outer indices), rerun on the first
 * kernels with FREEDNN_GPU_SM_BCOLS3=0; its forward twin softmax_fwd_cols (sm_fcols_tests:
 * C = 1 .. 256 over 1 to 12544
 * pixels, HALF / BFLOAT16 pairs, the padded layout, 5-d, the grid's 65535 outer indices, the
 * benchmark problems; its calls with alpha 1, beta 0, not LOG on softmax_fwd_cols_lean, and C =
 * 128 / 200 for its group shapes), rerun on the earlier kernels with FREEDNN_GPU_SM_FCOLS=0 and
 * on softmax_fwd_cols' LEAN instantiation with FREEDNN_GPU_SM_FCOLS3=0; the lean rows
 * softmax_lean (sm_lean2_tests: NHWC rows of 4, 8, 16, 32 vectors, tails, in place, NaN / -inf,
 * and the neighbours that must fall back: LOG, blends, padded, misaligned, other row lengths),
 * rerun on softmax_wreg with FREEDNN_GPU_SM_LEAN2=0, with streaming stores (=2) and with the
 * 32-vector forward rows on softmax_lean (=3; by default they stay on softmax_wreg).
 * LRN: window n in {1, 2, 5, 16}, 4-d and 5-d, the three layouts, both blends, the four types;
 * the forward column kernel with every window it is stamped for, C below the window and past
 * its 8-channel look-ahead; the backward column kernel (NCHW dx) with every stamped window
 * and the backward tile kernel (NHWC dx, C up to 1024, 1025 left to lrn_bwd), with the LRN
 * descriptor's alpha / beta / k varied (1e-4 / 0.75 / 2, 0.5 / 0.5 / 1, 1e-3 / 2 / 1); FLOAT's
 * power under FREEDNN_GPU_BW3 (lrn_pow_fast and its powf fallbacks), lrn_fwd_col's 16-channel
 * look-ahead and lrn_bwd_col's 6-channel ring (C of 3 to 128 above: partial batches), rerun
 * with it off (softmax too: softmax_wreg's FLOAT forward divides again) and with
 * FREEDNN_GPU_BW3_LRN_AHEAD=0. FLOAT NCHW windows of 1, 2, 3 and 5 with |beta| <= 4 run the lean
 * kernels of lrn_lean.cuh in the parent (their backward does not read y: FLOAT backward cases
 * fill y as the forward of x, lrn_fill_y) and the stamped ones in the FREEDNN_GPU_LRN_LEAN=0
 * child; softmax_wreg's LEAN instantiations serve every plain non-LOG case. The
 * channels-innermost forward lrn_fwd_nhwc (lrn_nhwc_tests: C, windows, pixel counts, padded
 * pixels and rows, 5-d, blends, integer / NaN / -inf fills, C just outside its limits, the
 * benchmark problems) runs in the parent, lrn_fwd in the FREEDNN_GPU_LRN_NHWC=0 child.
 * HALF / BFLOAT16 NCHW windows of 1, 2, 3 and 5 with alpha 1, beta 0 run the lean 16-bit
 * kernels (lrn16_tests; their backward does not read y either: every non-DOUBLE backward case
 * fills y as the forward of x), the stamped ones in the FREEDNN_GPU_LRN_LEAN16=0 child; with
 * alpha >= 0 and |beta| <= 4 lrn_{fwd,bwd}_lean16f (2 pixels a thread, float arithmetic), the
 * 4-pixel lrn_{fwd,bwd}_lean16 in the FREEDNN_GPU_LRN16_F=0 child.
 * Divisive normalization: with and without means and dMeans, 4-d
 * and 5-d, in place (y == x; dx == x; dx == dy). Outputs within gm_tol with a term count that
 * covers the row / window sums (float accumulation, double for DOUBLE).
 * --smoke: a few small cases per op (compute-sanitizer).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_mirror.h"

#include "gpu_layouts.h"

/* ================================ softmax ================================================== */

typedef struct {
    cudnnDataType_t dt;
    cudnnSoftmaxAlgorithm_t algo;
    cudnnSoftmaxMode_t mode;
    tshape_t t;
    int bwd, inplace; /* bwd in place: 1 dx == dy, 2 dx == y */
    int misalign;     /* every tensor one element into its buffer: not 16-byte aligned */
    double alpha, beta;
    fill_t fill;
    uint64_t seed;
} sm_case_t;

/* buffers: fwd x, y; bwd y, dy, dx (in place: the aliased buffer is dropped) */
static void sm_fill(int i, void *p, size_t bytes, void *ctx)
{
    const sm_case_t *c = ctx;
    const int out = c->bwd ? 2 : 1;
    if (i == out && c->beta == 0)
        return;
    double lo = -4, hi = 4;
    if (c->bwd && i == 0) { /* y: probabilities, or log-probabilities */
        lo = c->algo == CUDNN_SOFTMAX_LOG ? -4 : 0;
        hi = c->algo == CUDNN_SOFTMAX_LOG ? 0 : 1;
    }
    fill_buf(c->dt, p, bytes, c->fill, c->seed * 13 + (uint64_t)i, lo, hi);
}

static cudnnStatus_t sm_call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    const sm_case_t *c = ctx;
    cudnnTensorDescriptor_t td = tdesc(c->dt, &c->t);
    double a_d, b_d;
    float a_f, b_f;
    const void *pa, *pb;
    scale_ptrs(c->dt, c->alpha, c->beta, &a_d, &b_d, &a_f, &b_f, &pa, &pb);
    const size_t off = c->misalign ? fd_test_dtype_size(c->dt) : 0;
    const int nbuf = (c->bwd ? 3 : 2) - (c->inplace ? 1 : 0);
    void *p[3] = {NULL, NULL, NULL};
    for (int i = 0; i < nbuf; i++)
        p[i] = (char *)ptr[i] + off;
    cudnnStatus_t st;
    if (!c->bwd)
        st = cudnnSoftmaxForward(h, c->algo, c->mode, pa, td, p[0], pb, td,
                                 c->inplace ? p[0] : p[1]);
    else
        st = cudnnSoftmaxBackward(h, c->algo, c->mode, pa, td, p[0], td, p[1], pb, td,
                                  c->inplace == 1   ? p[1]
                                  : c->inplace == 2 ? p[0]
                                                    : p[2]);
    cudnnDestroyTensorDescriptor(td);
    return st;
}

static const char *const sm_algo_names[3] = {"fast", "accurate", "log"};

static void sm_case_m(cudnnDataType_t dt, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode,
                      int nd, const int *dims, layout_t l, int bwd, int inplace, double alpha,
                      double beta, fill_t fill, uint64_t seed, int misalign)
{
    sm_case_t c;
    memset(&c, 0, sizeof c);
    c.dt = dt, c.algo = algo, c.mode = mode, c.t = shape_of(l, nd, dims);
    c.bwd = bwd, c.inplace = inplace, c.alpha = alpha, c.beta = beta, c.fill = fill;
    c.seed = seed, c.misalign = misalign;
    int64_t row = 1;
    for (int d = 1; d < nd; d++)
        if (mode == CUDNN_SOFTMAX_MODE_INSTANCE || d == 1)
            row *= dims[d];
    const size_t bytes = (size_t)(c.t.ext + (misalign ? 1 : 0)) * fd_test_dtype_size(dt);
    gm_buf_t out = {bwd ? "dx" : "y", bytes, dt, beta != 0 ? GM_INOUT : GM_OUT, 0, 0};
    gm_tol(&out, dt, row + 16);
    const gm_buf_t in = {"", bytes, dt, GM_IN, 0, 0};
    gm_case_t g;
    memset(&g, 0, sizeof g);
    char label[256];
    snprintf(label, sizeof label,
             "softmax %s %s %s %s %dd %dx%dx%dx%d%s %s inplace%d a%g b%g fill%d%s",
             bwd ? "bwd" : "fwd", fd_test_dtype_short(dt), sm_algo_names[algo],
             mode == CUDNN_SOFTMAX_MODE_INSTANCE ? "instance" : "channel", nd, dims[0], dims[1],
             dims[2], dims[3], nd > 4 ? "x.." : "", layout_names[l], inplace, alpha, beta,
             (int)fill, misalign ? " misaligned" : "");
    g.label = label;
    g.det = 1;
    g.fill = sm_fill;
    g.call = sm_call;
    g.ctx = &c;
    g.want = CUDNN_STATUS_SUCCESS;
    if (!bwd) {
        g.nbuf = 2;
        g.buf[0] = in, g.buf[0].name = "x";
        g.buf[1] = out;
        if (inplace) {
            g.nbuf = 1;
            g.buf[0] = out, g.buf[0].name = "x=y", g.buf[0].role = GM_INOUT;
        }
    } else {
        g.nbuf = 3;
        g.buf[0] = in, g.buf[0].name = "y";
        g.buf[1] = in, g.buf[1].name = "dy";
        g.buf[2] = out;
        if (inplace) {
            g.nbuf = 2;
            g.buf[inplace == 1 ? 1 : 0] = out;
            g.buf[inplace == 1 ? 1 : 0].name = inplace == 1 ? "dy=dx" : "y=dx";
            g.buf[inplace == 1 ? 1 : 0].role = GM_INOUT;
        }
    }
    gm_run(&g);
}

static void sm_case(cudnnDataType_t dt, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode,
                    int nd, const int *dims, layout_t l, int bwd, int inplace, double alpha,
                    double beta, fill_t fill, uint64_t seed)
{
    sm_case_m(dt, algo, mode, nd, dims, l, bwd, inplace, alpha, beta, fill, seed, 0);
}

/* the lean rows (softmax_lean, FREEDNN_GPU_SM_LEAN2; its =0 child runs these cases on
 * softmax_wreg, its =2 child with streaming stores): NHWC CHANNEL rows of exactly 4, 8, 16 and
 * 32 16-byte vectors (FLOAT C = 16, 32, 64, 128; HALF / BFLOAT16 C = 32, 64, 128, 256) over 15
 * rows (odd, fewer than a block's 8 to 64), 105 and 2046 (partial last blocks), FAST and
 * ACCURATE, forward and backward, real and NaN / -inf fills, in place (y == x; dx == dy,
 * dx == y); INSTANCE rows of 128 floats / 256 halves (NCHW). Neighbours that must take other
 * kernels: LOG, alpha 0.5, beta 0.25 (over y), the padded layout (rows not one stride),
 * pointers one element off 16 bytes, rows of 2, 6, 12 and 24 vectors, DOUBLE. */
static void sm_lean2_tests(void)
{
    static const cudnnDataType_t ft[3] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    static const int rs[3][3] = {{1, 3, 5}, {3, 7, 5}, {2, 33, 31}};
    const cudnnSoftmaxMode_t ch = CUDNN_SOFTMAX_MODE_CHANNEL;
    uint64_t seed = 3100;
    if (gm_smoke) {
        static const int s1[4] = {3, 128, 7, 5}, s2[4] = {1, 64, 3, 5};
        sm_case(CUDNN_DATA_FLOAT, CUDNN_SOFTMAX_ACCURATE, ch, 4, s1, L_NHWC, 0, 0, 1, 0, F_REAL,
                seed++);
        sm_case(CUDNN_DATA_HALF, CUDNN_SOFTMAX_FAST, ch, 4, s2, L_NHWC, 1, 1, 1, 0, F_REAL, seed++);
        return;
    }
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < 4; i++) {
            const int c = (t == 0 ? 16 : 32) << i;
            for (int j = 0; j < 3; j++)
                for (int bwd = 0; bwd < 2; bwd++) {
                    const int dims[4] = {rs[j][0], c, rs[j][1], rs[j][2]};
                    const cudnnSoftmaxAlgorithm_t a =
                        (i + j + bwd) % 2 ? CUDNN_SOFTMAX_ACCURATE : CUDNN_SOFTMAX_FAST;
                    sm_case(ft[t], a, ch, 4, dims, L_NHWC, bwd, 0, 1, 0,
                            (i + j + bwd + t) % 3 == 0 ? F_SPECIAL : F_REAL, seed++);
                }
            const int dims[4] = {3, c, 7, 5};
            for (int ip = 0; ip < 3; ip++) /* in place: y == x; dx == dy; dx == y */
                sm_case(ft[t], CUDNN_SOFTMAX_ACCURATE, ch, 4, dims, L_NHWC, ip > 0, ip > 0 ? ip : 1,
                        1, 0, ip == 1 ? F_SPECIAL : F_REAL, seed++);
            for (int bwd = 0; bwd < 2; bwd++) {
                sm_case(ft[t], CUDNN_SOFTMAX_LOG, ch, 4, dims, L_NHWC, bwd, 0, 1, 0, F_REAL,
                        seed++);
                sm_case(ft[t], CUDNN_SOFTMAX_ACCURATE, ch, 4, dims, L_NHWC, bwd, 0, 0.5, 0, F_REAL,
                        seed++);
                sm_case(ft[t], CUDNN_SOFTMAX_FAST, ch, 4, dims, L_NHWC, bwd, 0, 1, 0.25, F_REAL,
                        seed++);
                sm_case(ft[t], CUDNN_SOFTMAX_ACCURATE, ch, 4, dims, L_ODD, bwd, 0, 1, 0, F_REAL,
                        seed++);
                sm_case_m(ft[t], CUDNN_SOFTMAX_ACCURATE, ch, 4, dims, L_NHWC, bwd, 0, 1, 0, F_REAL,
                          seed++, 1);
            }
        }
    static const int inst[2][4] = {{3, 2, 8, 8}, {3, 4, 8, 8}}; /* 128 / 256 elements a row */
    static const int nv[4] = {2, 6, 12, 24}; /* vectors a row: not 4, 8, 16 or 32 */
    for (int t = 0; t < 3; t++)
        for (int bwd = 0; bwd < 2; bwd++) {
            sm_case(ft[t], CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, 4, inst[t > 0],
                    L_NCHW, bwd, 0, 1, 0, F_REAL, seed++);
            for (int i = 0; i < 4; i++) {
                const int dims[4] = {2, nv[i] * (t == 0 ? 4 : 8), 5, 7};
                sm_case(ft[t], CUDNN_SOFTMAX_ACCURATE, ch, 4, dims, L_NHWC, bwd, 0, 1, 0, F_REAL,
                        seed++);
            }
        }
    static const int d64[4] = {3, 64, 7, 5};
    for (int bwd = 0; bwd < 2; bwd++)
        sm_case(CUDNN_DATA_DOUBLE, CUDNN_SOFTMAX_ACCURATE, ch, 4, d64, L_NHWC, bwd, 0, 1, 0, F_REAL,
                seed++);
}

/* the strided-row forward (softmax_fwd_cols; the FREEDNN_GPU_SM_FCOLS=0 child runs the same
 * cases on softmax_fwd_rows_online / softmax_fwd_rows): NCHW CHANNEL with C = 1, 3, 17, 64, 100,
 * 256 (channel groups of 2 to 16 channels, a last group short) over 1 pixel (other kernels),
 * 31 and 33 (odd: one pixel a lane, a partial tile; a tile and one pixel), 36 (HALF / BFLOAT16
 * pairs, a partial tile) and 112 x 112 = 12544 (the benchmark's plane, one algo a C and type);
 * every algo, both blends (beta 0 over the poisoned y), real and NaN / -inf fills; in place;
 * the padded layout (outer index split over N and H: the kernel's divisions), 5-d; 65535 outer
 * indices (grid y) and 65536 (the old kernels); the benchmark problems once (full mode).
 * FLOAT / HALF / BFLOAT16. */
static void sm_fcols_tests(void)
{
    static const cudnnDataType_t ft[3] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    uint64_t seed = 2600;
    if (gm_smoke) {
        static const int s1[4] = {2, 64, 6, 6}, s2[4] = {3, 17, 1, 31}, s3[4] = {1, 256, 3, 11};
        sm_case(CUDNN_DATA_HALF, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 4, s1, L_NCHW,
                0, 0, 1, 0, F_REAL, seed++);
        sm_case(CUDNN_DATA_FLOAT, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, 4, s2, L_NCHW, 0,
                0, 0.5, 0.25, F_REAL, seed++);
        sm_case(CUDNN_DATA_BFLOAT16, CUDNN_SOFTMAX_FAST, CUDNN_SOFTMAX_MODE_CHANNEL, 4, s3, L_NCHW,
                0, 0, 1, 0, F_SPECIAL, seed++);
        return;
    }
    static const int fc[6] = {1, 3, 17, 64, 100, 256};
    static const int fs[5][2] = {{1, 1}, {1, 31}, {3, 11}, {6, 6}, {112, 112}};
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 5; j++)
                for (int a = 0; a < 3; a++) {
                    if (j == 4 && a != (i + t) % 3)
                        continue; /* the 112 x 112 plane: one algo each */
                    const int blend = (t + i + j + a) % 2;
                    const fill_t fill = (i + j + a) % 3 == 0 ? F_SPECIAL : F_REAL;
                    const int dims[4] = {j == 4 ? 1 : i % 2 ? 2 : 3, fc[i], fs[j][0], fs[j][1]};
                    sm_case(ft[t], (cudnnSoftmaxAlgorithm_t)a, CUDNN_SOFTMAX_MODE_CHANNEL, 4, dims,
                            L_NCHW, 0, 0, blend ? 0.5 : 1, blend ? 0.25 : 0, fill, seed++);
                }
    static const int ip[3][4] = {{2, 64, 6, 6}, {2, 256, 1, 33}, {3, 100, 4, 5}};
    static const int od[3][4] = {{2, 64, 3, 20}, {3, 17, 2, 33}, {2, 256, 2, 16}};
    static const int f5[2][5] = {{2, 64, 2, 3, 6}, {2, 20, 2, 3, 17}};
    for (int t = 0; t < 3; t++) {
        for (int i = 0; i < 3; i++)
            for (int a = 0; a < 3; a++) {
                sm_case(ft[t], (cudnnSoftmaxAlgorithm_t)a, CUDNN_SOFTMAX_MODE_CHANNEL, 4, ip[i],
                        L_NCHW, 0, 1, a == 1 ? 0.5 : 1, a == 1 ? 0.25 : 0,
                        a == 2 ? F_SPECIAL : F_REAL, seed++);
                sm_case(ft[t], (cudnnSoftmaxAlgorithm_t)a, CUDNN_SOFTMAX_MODE_CHANNEL, 4, od[i],
                        L_ODD, 0, 0, (i + a) % 2 ? 0.5 : 1, (i + a) % 2 ? 0.25 : 0,
                        a == 0 ? F_SPECIAL : F_REAL, seed++);
            }
        for (int i = 0; i < 2; i++) {
            sm_case(ft[t], CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 5, f5[i], L_NCHW, 0,
                    0, 1, 0, F_REAL, seed++);
            sm_case(ft[t], CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, 5, f5[i], L_ODD, 0, 0,
                    0.5, 0.25, F_SPECIAL, seed++);
        }
    }
    static const int gy[2][4] = {{65535, 2, 4, 4}, {65536, 2, 4, 4}};
    for (int i = 0; i < 2; i++)
        sm_case(CUDNN_DATA_FLOAT, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 4, gy[i],
                L_NCHW, 0, 0, 1, 0, F_REAL, seed++);
    static const int b16[4] = {32, 64, 112, 112}, b32[4] = {16, 64, 112, 112};
    sm_case(CUDNN_DATA_HALF, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 4, b16, L_NCHW, 0,
            0, 1, 0, F_REAL, seed++);
    sm_case(CUDNN_DATA_FLOAT, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 4, b32, L_NCHW, 0,
            0, 1, 0, F_REAL, seed++);
    /* the group shapes the loops above leave out, on softmax_fwd_cols_lean (not LOG, alpha 1,
     * beta 0; softmax_fwd_cols' LEAN instantiation in the FREEDNN_GPU_SM_FCOLS3=0 child): C = 128
     * (FLOAT 16 x 8 groups; HALF / BFLOAT16 pairs 8 x 16, one element a lane 16 x 8) and 200
     * (13 groups of 16, the last holding 8) over 35 pixels (odd), 100 (pairs: a whole tile of 64
     * and a partial one) and 56 x 56 (whole tiles only); real and NaN / -inf fills; in place */
    static const int lc[2] = {128, 200};
    static const int ls[3][2] = {{5, 7}, {10, 10}, {56, 56}};
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++) {
                const int dims[4] = {j == 2 ? 2 : 3, lc[i], ls[j][0], ls[j][1]};
                const cudnnSoftmaxAlgorithm_t a =
                    (t + i + j) % 2 ? CUDNN_SOFTMAX_ACCURATE : CUDNN_SOFTMAX_FAST;
                sm_case(ft[t], a, CUDNN_SOFTMAX_MODE_CHANNEL, 4, dims, L_NCHW, 0, 0, 1, 0,
                        (t + i + j) % 3 == 0 ? F_SPECIAL : F_REAL, seed++);
                if (j == 1)
                    sm_case(ft[t], CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 4, dims,
                            L_NCHW, 0, 1, 1, 0, i ? F_REAL : F_SPECIAL, seed++);
            }
}

/* the strided-row backward (softmax_bwd_cols, softmax_bwd_cols16 and, for alpha 1, beta 0,
 * softmax_bwd_cols_lean; the FREEDNN_GPU_SM_BCOLS3=0 child runs these cases on the first two
 * only, the FREEDNN_GPU_SM_BCG16=0 one with the rest of sm_tests) */
static void sm_bcols_tests(void)
{
    uint64_t seed = 4200;
    if (gm_smoke) { /* softmax_bwd_cols_lean: HALF pairs, FLOAT LOG over a partial group */
        static const int s1[4] = {2, 64, 6, 6}, s2[4] = {2, 100, 5, 7};
        sm_case(CUDNN_DATA_HALF, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 4, s1, L_NCHW,
                1, 0, 1, 0, F_REAL, seed++);
        sm_case(CUDNN_DATA_FLOAT, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, 4, s2, L_NCHW, 1,
                0, 1, 0, F_SPECIAL, seed++);
        return;
    }
    /* the strided-row backward (softmax_bwd_cols): NCHW CHANNEL with C = 1, 3, 17, 64, 100,
     * 128, 200 and 256 (past 128: 13 or 16 groups of 16 channels, softmax_bwd_cols16; the
     * FREEDNN_GPU_SM_BCG16=0 child: 8 groups of 32, BFLOAT16 and odd pixel counts on
     * softmax_bwd_rows), 257 and 1000 (softmax_bwd_rows); 15 pixels (softmax_bwd_rows),
     * 16, 35 (odd: HALF one pixel a lane), 36 and 100 (partial tiles), one image and several, 5-d;
     * every algo, both blends, in place (dx == dy, dx == y), NaN / -inf in y; INSTANCE mode of the
     * same tensors (other kernels) for contrast */
    static const int cc[10] = {1, 3, 17, 64, 100, 128, 256, 257, 1000, 200};
    static const int cs[5][2] = {{3, 5}, {4, 4}, {5, 7}, {6, 6}, {10, 10}};
    for (int t = 0; t < 4; t++)
        for (int i = 0; i < 10; i++)
            for (int a = 0; a < 3; a++) {
                const int j = (i + a + t) % 5, blend = (i + a) % 2;
                const int dims[4] = {i % 3 == 0 ? 1 : 2, cc[i], cs[j][0], cs[j][1]};
                sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)a, CUDNN_SOFTMAX_MODE_CHANNEL, 4, dims,
                        L_NCHW, 1, 0, blend ? 0.5 : 1, blend ? 0.25 : 0, F_REAL, seed++);
                if (i == 3 || i == 5)
                    for (int ip = 1; ip <= 2; ip++)
                        sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)a, CUDNN_SOFTMAX_MODE_CHANNEL,
                                4, dims, L_NCHW, 1, ip, 1, 0, F_REAL, seed++);
            }
    static const int c5[5] = {2, 64, 2, 3, 6}, cpx[4] = {2, 128, 3, 5};
    for (int t = 0; t < 4; t++) {
        sm_case(dtypes[t], CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 5, c5, L_NCHW, 1, 0,
                0.5, 0.25, F_REAL, seed++);
        sm_case(dtypes[t], CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 4, cpx, L_NCHW, 1, 0,
                1, 0, F_SPECIAL, seed++);
        sm_case(dtypes[t], CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_INSTANCE, 4, cpx, L_NCHW, 1, 0, 1,
                0, F_REAL, seed++);
    }
    /* the calls of softmax_bwd_cols_lean (alpha 1, beta 0; FREEDNN_GPU_SM_BCOLS3=0: the kernels
     * above): C = 3, 17, 32, 64, 100, 128, 200, 256 (CPT x groups 2 x 2, 4 x 5, 4 x 8, 8 x 8,
     * 16 x 7, 16 x 8, and softmax_bwd_cols16's 16 x 13 and 16 x 16; 3, 17, 100 and 200 leave the
     * last group short)
     * over 16 pixels (HALF pairs: a partial tile), 35 (odd: one element a lane, a partial tile),
     * 100 (a whole tile and a partial one) and 56 x 56 (whole tiles only: the block-uniform
     * path); FLOAT / HALF / BFLOAT16, FAST / ACCURATE / LOG, real and NaN / -inf fills; in place
     * (dx == dy, dx == y); the padded layout (the outer index split over N and H, channel
     * strides that differ from the pixel count), 5-d, pointers one element in (HALF without
     * pairs); 65535 outer indices (grid y) and 65536 (the old kernels) */
    static const int lc[8] = {3, 17, 32, 64, 100, 128, 200, 256};
    static const int ls[4][2] = {{4, 4}, {5, 7}, {10, 10}, {56, 56}};
    static const cudnnDataType_t ft[3] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 4; j++) {
                const int dims[4] = {j == 3 ? 1 : 2 + (i + j) % 2, lc[i], ls[j][0], ls[j][1]};
                const cudnnSoftmaxAlgorithm_t a = (cudnnSoftmaxAlgorithm_t)((t + i + j) % 3);
                sm_case(ft[t], a, CUDNN_SOFTMAX_MODE_CHANNEL, 4, dims, L_NCHW, 1, 0, 1, 0,
                        (t + i + j) % 2 ? F_SPECIAL : F_REAL, seed++);
                if (j == 2)
                    sm_case(ft[t], a, CUDNN_SOFTMAX_MODE_CHANNEL, 4, dims, L_NCHW, 1, 1 + i % 2, 1,
                            0, i % 3 ? F_REAL : F_SPECIAL, seed++);
            }
    static const int lo[2][4] = {{2, 64, 3, 20}, {3, 200, 2, 33}}, l5[5] = {2, 100, 2, 3, 6};
    for (int t = 0; t < 3; t++) {
        for (int i = 0; i < 2; i++)
            for (int a = 1; a < 3; a++)
                sm_case(ft[t], (cudnnSoftmaxAlgorithm_t)a, CUDNN_SOFTMAX_MODE_CHANNEL, 4, lo[i],
                        L_ODD, 1, 0, 1, 0, (i + a) % 2 ? F_SPECIAL : F_REAL, seed++);
        sm_case(ft[t], (cudnnSoftmaxAlgorithm_t)t, CUDNN_SOFTMAX_MODE_CHANNEL, 5, l5, L_NCHW, 1, 0,
                1, 0, F_REAL, seed++);
    }
    static const int mis[4] = {2, 128, 6, 6};
    for (int a = 1; a < 3; a++)
        sm_case_m(CUDNN_DATA_HALF, (cudnnSoftmaxAlgorithm_t)a, CUDNN_SOFTMAX_MODE_CHANNEL, 4, mis,
                  L_NCHW, 1, 0, 1, 0, F_REAL, seed++, 1);
    static const int gy[2][4] = {{65535, 2, 4, 4}, {65536, 2, 4, 4}};
    for (int i = 0; i < 2; i++)
        sm_case(CUDNN_DATA_HALF, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, 4, gy[i], L_NCHW, 1,
                0, 1, 0, F_REAL, seed++);
}

static void sm_tests(void)
{
    static const int d4[4] = {2, 5, 3, 4}, d4w[4] = {3, 40, 5, 6}, d5[5] = {2, 6, 3, 4, 5};
    static const int cls[4] = {4, 1000, 1, 1};
    uint64_t seed = 2000;
    const cudnnSoftmaxMode_t modes[2] = {CUDNN_SOFTMAX_MODE_INSTANCE, CUDNN_SOFTMAX_MODE_CHANNEL};
    if (gm_smoke) {
        for (int bwd = 0; bwd < 2; bwd++)
            for (int a = 0; a < 3; a++)
                for (int m = 0; m < 2; m++)
                    sm_case(CUDNN_DATA_FLOAT, (cudnnSoftmaxAlgorithm_t)a, modes[m], 4, d4w,
                            (layout_t)((a + m) % 2), bwd, 0, 0.5, 0.25, F_REAL, seed++);
        /* softmax_wreg 8 x 4 (NHWC C = 128 floats), softmax_bwd_cols (NCHW, HALF pairs) */
        static const int s128[4] = {2, 128, 3, 5}, s64[4] = {2, 64, 6, 6};
        for (int bwd = 0; bwd < 2; bwd++)
            sm_case(CUDNN_DATA_FLOAT, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 4, s128,
                    L_NHWC, bwd, 0, 1, 0, F_REAL, seed++);
        sm_case(CUDNN_DATA_HALF, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 4, s64, L_NCHW,
                1, 0, 0.5, 0.25, F_REAL, seed++);
        sm_bcols_tests();
        sm_fcols_tests();
        sm_lean2_tests();
        return;
    }
    for (int bwd = 0; bwd < 2; bwd++)
        for (int t = 0; t < 4; t++)
            for (int a = 0; a < 3; a++)
                for (int m = 0; m < 2; m++)
                    for (int l = 0; l < 3; l++) {
                        const int blend = (l + a) % 2;
                        sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)a, modes[m], 4, d4,
                                (layout_t)l, bwd, 0, blend ? 0.5 : 1, blend ? 0.25 : 0, F_REAL,
                                seed++);
                        sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)a, modes[m], 4, d4w,
                                (layout_t)l, bwd, 0, blend ? 1 : 0.5, blend ? 0 : 0.25, F_REAL,
                                seed++);
                        sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)a, modes[m], 5, d5,
                                (layout_t)l, bwd, 0, 1, 0, F_REAL, seed++);
                    }
    for (int t = 0; t < 4; t++)
        for (int a = 0; a < 3; a++)
            for (int m = 0; m < 2; m++) {
                /* classifier rows (block kernel), NaN / -inf rows, in place */
                sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)a, modes[m], 4, cls, L_NCHW, 0, 0, 1,
                        0, F_REAL, seed++);
                sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)a, modes[m], 4, cls, L_NCHW, 1, 0, 1,
                        0, F_REAL, seed++);
                sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)a, modes[m], 4, d4w, L_NCHW, 0, 0, 1,
                        0, F_SPECIAL, seed++);
                sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)a, modes[m], 4, d4w, L_NHWC, 0, 0, 1,
                        0, F_SPECIAL, seed++);
                sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)a, modes[m], 4, d4w,
                        (layout_t)(m + 1), 0, 1, 0.5, 0.25, F_REAL, seed++);
                for (int ip = 1; ip <= 2; ip++)
                    sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)a, modes[m], 4, d4w,
                            (layout_t)(ip - 1 + m), 1, ip, 1, 0, F_REAL, seed++);
            }
    /* rows in registers (softmax_*_wreg): NHWC CHANNEL rows of 3 (too short: the old
     * kernels) to 512 16-byte vectors (too long for FLOAT: the old kernels), 4, 8, 16 lanes a
     * row (several rows a warp) and 32 lanes x 1, 2, 4, 8 vectors; row counts that leave a
     * partial block; both blends; in place; NaN / -inf rows. DOUBLE takes the old kernels. */
    static const int wr[8][4] = {{3, 12, 7, 5},  {3, 16, 7, 5},  {2, 64, 3, 7},  {1, 256, 5, 9},
                                 {2, 200, 3, 5}, {2, 1024, 3, 3}, {1, 2048, 2, 3}, {2, 40, 1, 1}};
    for (int t = 0; t < 4; t++)
        for (int i = 0; i < 8; i++)
            for (int a = 0; a < 3; a++)
                for (int bwd = 0; bwd < 2; bwd++) {
                    const int blend = (i + a + bwd) % 2;
                    sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)a, CUDNN_SOFTMAX_MODE_CHANNEL, 4,
                            wr[i], L_NHWC, bwd, 0, blend ? 0.5 : 1, blend ? 0.25 : 0, F_REAL,
                            seed++);
                }
    for (int t = 0; t < 4; t++)
        for (int i = 1; i < 4; i++) {
            sm_case(dtypes[t], CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 4, wr[i],
                    L_NHWC, 0, 0, 1, 0, F_SPECIAL, seed++);
            sm_case(dtypes[t], CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, 4, wr[i], L_NHWC, 0,
                    1, 0.5, 0.25, F_REAL, seed++);
            for (int ip = 1; ip <= 2; ip++)
                sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)(ip - 1), CUDNN_SOFTMAX_MODE_CHANNEL,
                        4, wr[i], L_NHWC, 1, ip, 1, 0, F_REAL, seed++);
        }
    /* the one-pass max / sum forward (softmax_fwd_rows_online): NCHW CHANNEL rows of 31 (the
     * three-pass kernel), 32 and 256 strided elements, every algo, both blends, NaN / -inf
     * rows, in place */
    static const int on[3][4] = {{2, 31, 5, 7}, {3, 32, 3, 5}, {2, 256, 5, 7}};
    for (int t = 0; t < 4; t++)
        for (int i = 0; i < 3; i++)
            for (int a = 0; a < 3; a++) {
                const int blend = (t + i + a) % 2;
                sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)a, CUDNN_SOFTMAX_MODE_CHANNEL, 4,
                        on[i], L_NCHW, 0, 0, blend ? 0.5 : 1, blend ? 0.25 : 0, F_REAL, seed++);
                sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)a, CUDNN_SOFTMAX_MODE_CHANNEL, 4,
                        on[i], L_NCHW, 0, a == 1, 1, 0, F_SPECIAL, seed++);
            }
    /* softmax_fwd_rows_online's 8-element load batches: rows of 33 (a batch of one), 64 (the
     * benchmark's C, whole batches), 100, every type and algo, NaN / -inf rows */
    static const int onb[3][4] = {{2, 33, 3, 5}, {2, 64, 12, 12}, {1, 100, 3, 7}};
    for (int t = 0; t < 4; t++)
        for (int i = 0; i < 3; i++)
            for (int a = 0; a < 3; a++)
                sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)a, CUDNN_SOFTMAX_MODE_CHANNEL, 4,
                        onb[i], L_NCHW, 0, 0, (t + a) % 2 ? 0.5 : 1, (t + a) % 2 ? 0.25 : 0,
                        (i + a) % 2 ? F_SPECIAL : F_REAL, seed++);
    /* rows in registers, every (lanes, vectors) shape: NHWC CHANNEL rows of C = 1, 3, 17
     * (the old kernels: not whole vectors or too short), 32 (FLOAT 4 x 2), 64, 100 (FLOAT 8 x 4
     * with a partial lane set), 128 (FLOAT 8 x 4, HALF 4 x 4), 256, 500 (FLOAT 32 x 4), 1000,
     * 2048 (FLOAT: too long), forward and backward, the three algos, both blends, FLOAT / HALF /
     * BFLOAT16 (and DOUBLE, the old kernels) */
    static const int wc[11] = {1, 3, 17, 32, 64, 100, 128, 256, 500, 1000, 2048};
    for (int t = 0; t < 4; t++)
        for (int i = 0; i < 11; i++)
            for (int a = 0; a < 3; a++)
                for (int bwd = 0; bwd < 2; bwd++) {
                    const int blend = (t + i + a + bwd) % 2;
                    const int dims[4] = {2, wc[i], 3, i % 2 ? 5 : 4};
                    sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)a, CUDNN_SOFTMAX_MODE_CHANNEL, 4,
                            dims, L_NHWC, bwd, 0, blend ? 0.5 : 1, blend ? 0.25 : 0, F_REAL,
                            seed++);
                }
    sm_bcols_tests();
    /* the benchmark shapes, scaled down: NHWC forward C = 128 (FLOAT 8 x 4), NCHW backward
     * C = 128 FLOAT and C = 256 HALF (pairs) */
    static const int bw[4] = {4, 128, 28, 28}, bh[4] = {2, 256, 28, 28};
    sm_case(CUDNN_DATA_FLOAT, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 4, bw, L_NHWC, 0,
            0, 1, 0, F_REAL, seed++);
    sm_case(CUDNN_DATA_HALF, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 4, bh, L_NHWC, 0,
            0, 1, 0, F_REAL, seed++);
    sm_case(CUDNN_DATA_FLOAT, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 4, bw, L_NCHW, 1,
            0, 1, 0, F_REAL, seed++);
    sm_case(CUDNN_DATA_HALF, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 4, bh, L_NCHW, 1,
            0, 1, 0, F_REAL, seed++);
    /* the 16-bit forward's SFU exp and reciprocal product (softmax_wreg 8 x 4 of C = 256 halves):
     * every algo, both blends, NaN / -inf rows, HALF and BFLOAT16 */
    for (int t = 2; t < 4; t++)
        for (int a = 0; a < 3; a++) {
            sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)a, CUDNN_SOFTMAX_MODE_CHANNEL, 4, bh,
                    L_NHWC, 0, 0, a == 1 ? 0.5 : 1, a == 1 ? 0.25 : 0, F_REAL, seed++);
            sm_case(dtypes[t], (cudnnSoftmaxAlgorithm_t)a, CUDNN_SOFTMAX_MODE_CHANNEL, 4, bh,
                    L_NHWC, 0, 0, 1, 0, F_SPECIAL, seed++);
        }
    /* large: 4M elements through each kernel */
    static const int big_rows[4] = {4096, 1024, 1, 1}, big_ch[4] = {8, 32, 128, 128};
    for (int bwd = 0; bwd < 2; bwd++) {
        sm_case(CUDNN_DATA_FLOAT, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, 4, big_rows,
                L_NCHW, bwd, 0, 1, 0, F_REAL, seed++);
        sm_case(CUDNN_DATA_HALF, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, 4, big_ch, L_NCHW,
                bwd, 0, 1, 0, F_REAL, seed++);
    }
    sm_fcols_tests();
    sm_lean2_tests();
}

/* ================================ LRN ====================================================== */

typedef struct {
    cudnnDataType_t dt;
    unsigned n;
    double lalpha, lbeta, lk;
    tshape_t x, out;
    int divnorm, bwd, means, dmeans, inplace; /* divnorm in place: fwd y == x; bwd 1 dx == x,
                                                 2 dx == dy */
    double alpha, beta;
    uint64_t seed;
    fill_t fill; /* x (and dy, a blended output): F_REAL in [-2, 2], F_INT, F_SPECIAL */
    int misalign; /* LRN: every pointer one element into its buffer */
} lrn_case_t;

/* LRN buffers: fwd x, y; bwd x, y, dy, dx.
 * divnorm buffers: x, means, temp, temp2, out (y | dx), dy, dmeans (bwd). */
enum { DN_X, DN_MEANS, DN_TEMP, DN_TEMP2, DN_OUT, DN_DY, DN_DMEANS };

static int lrn_is_out(const lrn_case_t *c, int i)
{
    if (!c->divnorm)
        return i == (c->bwd ? 3 : 1);
    return i == DN_OUT || i == DN_DMEANS;
}

/* 1 when the backward's y is the forward's output of x (FLOAT, HALF, BFLOAT16 LRN):
 * lrn_bwd_lean and lrn_bwd_lean16 take y as x s^-beta without reading it (lrn.cu's lrn_lean_ok,
 * lrn16_ok), as the API's y is that output */
static int lrn_y_of_x(const lrn_case_t *c)
{
    return !c->divnorm && c->bwd && c->dt != CUDNN_DATA_DOUBLE;
}

/* y = x (k + alpha / n sum over the window of x^2)^-beta in double, at y's offsets (the
 * positions no element maps to keep the random fill) */
static void lrn_fill_y(const lrn_case_t *c, void *y)
{
    const size_t es = fd_test_dtype_size(c->dt);
    const int64_t sh = c->misalign; /* the pointers' element offset into the buffers */
    void *x = malloc((size_t)(c->x.ext + sh) * es);
    FD_EXPECT(x != NULL, "lrn_fill_y: out of memory (%lld elements)", (long long)c->x.ext);
    if (x == NULL)
        return;
    fill_buf(c->dt, x, (size_t)(c->x.ext + sh) * es, F_REAL, c->seed * 17, -2, 2);
    const int nd = c->x.nd, lb = ((int)c->n - 1) / 2, la = (int)c->n - 1 - lb;
    int64_t sp = 1;
    for (int d = 2; d < nd; d++)
        sp *= c->x.dim[d];
    for (int64_t e = 0; e < (int64_t)c->x.dim[0] * sp; e++) {
        int64_t xo = 0, yo = 0, r = e % sp;
        const int64_t n = e / sp;
        for (int d = nd - 1; d >= 2; d--) {
            xo += (r % c->x.dim[d]) * c->x.stride[d];
            yo += (r % c->x.dim[d]) * c->out.stride[d];
            r /= c->x.dim[d];
        }
        xo += n * c->x.stride[0] + sh, yo += n * c->out.stride[0] + sh;
        for (int ch = 0; ch < c->x.dim[1]; ch++) {
            double sum = 0;
            for (int j = ch - lb; j <= ch + la; j++)
                if (j >= 0 && j < c->x.dim[1]) {
                    const double v = fd_test_load(c->dt, x, xo + (int64_t)j * c->x.stride[1]);
                    sum += v * v;
                }
            const double xv = fd_test_load(c->dt, x, xo + (int64_t)ch * c->x.stride[1]);
            fd_test_store(c->dt, y, yo + (int64_t)ch * c->out.stride[1],
                          xv * pow(c->lk + c->lalpha / c->n * sum, -c->lbeta));
        }
    }
    free(x);
}

static void lrn_fill(int i, void *p, size_t bytes, void *ctx)
{
    const lrn_case_t *c = ctx;
    if (lrn_is_out(c, i) && c->beta == 0)
        return;
    fill_buf(c->dt, p, bytes, c->fill, c->seed * 17 + (uint64_t)i, -2, 2);
    if (i == 1 && lrn_y_of_x(c))
        lrn_fill_y(c, p);
}

static cudnnStatus_t lrn_call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    const lrn_case_t *c = ctx;
    cudnnLRNDescriptor_t ld = NULL;
    FD_EXPECT_STATUS(cudnnCreateLRNDescriptor(&ld), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetLRNDescriptor(ld, c->n, c->lalpha, c->lbeta, c->lk),
                     CUDNN_STATUS_SUCCESS);
    cudnnTensorDescriptor_t xd = tdesc(c->dt, &c->x), od = tdesc(c->dt, &c->out);
    double a_d, b_d;
    float a_f, b_f;
    const void *pa, *pb;
    scale_ptrs(c->dt, c->alpha, c->beta, &a_d, &b_d, &a_f, &b_f, &pa, &pb);
    cudnnStatus_t st;
    void *lp[4] = {NULL, NULL, NULL, NULL}; /* LRN: x, y, dy, dx (misalign: one element in) */
    for (int i = 0; i < (c->bwd ? 4 : 2) && !c->divnorm; i++)
        lp[i] = (char *)ptr[i] + (c->misalign ? fd_test_dtype_size(c->dt) : 0);
    if (!c->divnorm && !c->bwd)
        st = cudnnLRNCrossChannelForward(h, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, pa, xd, lp[0], pb, od,
                                         lp[1]);
    else if (!c->divnorm)
        st = cudnnLRNCrossChannelBackward(h, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, pa, od, lp[1], od,
                                          lp[2], xd, lp[0], pb, od, lp[3]);
    else {
        const void *means = c->means ? ptr[DN_MEANS] : NULL;
        if (!c->bwd) {
            void *y = c->inplace ? ptr[DN_X] : ptr[DN_OUT];
            st = cudnnDivisiveNormalizationForward(h, ld, CUDNN_DIVNORM_PRECOMPUTED_MEANS, pa, xd,
                                                   ptr[DN_X], means, ptr[DN_TEMP], ptr[DN_TEMP2],
                                                   pb, od, y);
        } else {
            void *dx = c->inplace == 1 ? ptr[DN_X] : c->inplace == 2 ? ptr[DN_DY] : ptr[DN_OUT];
            st = cudnnDivisiveNormalizationBackward(
                h, ld, CUDNN_DIVNORM_PRECOMPUTED_MEANS, pa, xd, ptr[DN_X], means, ptr[DN_DY],
                ptr[DN_TEMP], ptr[DN_TEMP2], pb, od, dx, c->dmeans ? ptr[DN_DMEANS] : NULL);
        }
    }
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(od);
    cudnnDestroyLRNDescriptor(ld);
    return st;
}

static void lrn_run(const lrn_case_t *c, const char *lay);
static const char *const lrn_fill_names[3] = {" int", "", " special"}; /* by fill_t */

/* lrn_case with the descriptor's alpha, beta and k given */
static void lrn_case_p(cudnnDataType_t dt, int divnorm, unsigned n, int nd, const int *dims,
                       layout_t lx, layout_t lo, int bwd, int means, int dmeans, int inplace,
                       double alpha, double beta, uint64_t seed, double lalpha, double lbeta,
                       double lk)
{
    lrn_case_t c;
    memset(&c, 0, sizeof c);
    c.dt = dt, c.n = n, c.lalpha = lalpha, c.lbeta = lbeta, c.lk = lk;
    c.x = shape_of(lx, nd, dims);
    c.out = shape_of(inplace ? lx : lo, nd, dims);
    c.divnorm = divnorm, c.bwd = bwd, c.means = means, c.dmeans = dmeans, c.inplace = inplace;
    c.alpha = alpha, c.beta = beta, c.seed = seed, c.fill = F_REAL;
    char lay[32];
    snprintf(lay, sizeof lay, "%s/%s", layout_names[lx], layout_names[lo]);
    lrn_run(&c, lay);
}

/* Runs case c (shapes, parameters and fill set; lay names the layouts in the label). */
static void lrn_run(const lrn_case_t *cp, const char *lay)
{
    lrn_case_t c = *cp;
    const cudnnDataType_t dt = c.dt;
    const unsigned n = c.n;
    const int nd = c.x.nd, *dims = c.x.dim, divnorm = c.divnorm, bwd = c.bwd, inplace = c.inplace;
    const double beta = c.beta;
    const size_t es = fd_test_dtype_size(dt);
    const size_t xb = (size_t)(c.x.ext + c.misalign) * es,
                 ob = (size_t)(c.out.ext + c.misalign) * es;
    int64_t terms = divnorm ? 1 : 2 * (int64_t)n;
    if (divnorm)
        for (int d = 0; d < nd - 2; d++)
            terms *= bwd ? 2 * (int64_t)n : (int64_t)n;
    gm_buf_t out = {"out", ob, dt, beta != 0 ? GM_INOUT : GM_OUT, 0, 0};
    /* y taken as x s^-beta (lrn_y_of_x): the adjoint terms once more (that y is within the
     * forward's tolerance of the one given) */
    gm_tol(&out, dt, 4 * terms + 16 + (lrn_y_of_x(&c) ? 4 * terms : 0));
    gm_case_t g;
    memset(&g, 0, sizeof g);
    char label[256];
    snprintf(label, sizeof label,
             "%s %s %s n%u %dd %dx%dx%dx%d%s %s means%d dmeans%d inplace%d a%g b%g "
             "lrn(a%g b%g k%g)%s%s",
             divnorm ? "divnorm" : "lrn", bwd ? "bwd" : "fwd", fd_test_dtype_short(dt), n, nd,
             dims[0], dims[1], dims[2], dims[3], nd > 4 ? "x.." : "", lay, c.means, c.dmeans,
             inplace, c.alpha, beta, c.lalpha, c.lbeta, c.lk, lrn_fill_names[c.fill],
             c.misalign ? " misaligned" : "");
    g.label = label;
    g.det = 1;
    g.fill = lrn_fill;
    g.call = lrn_call;
    g.ctx = &c;
    g.want = CUDNN_STATUS_SUCCESS;
    if (!divnorm) {
        g.buf[0] = (gm_buf_t){"x", xb, dt, GM_IN, 0, 0};
        if (!bwd) {
            g.nbuf = 2;
            g.buf[1] = out, g.buf[1].name = "y";
        } else {
            g.nbuf = 4;
            g.buf[1] = (gm_buf_t){"y", ob, dt, GM_IN, 0, 0};
            g.buf[2] = (gm_buf_t){"dy", ob, dt, GM_IN, 0, 0};
            g.buf[3] = out, g.buf[3].name = "dx";
        }
    } else {
        g.nbuf = bwd ? 7 : 5;
        g.buf[DN_X] = (gm_buf_t){"x", xb, dt, GM_IN, 0, 0};
        g.buf[DN_MEANS] = (gm_buf_t){"means", xb, dt, GM_IN, 0, 0};
        g.buf[DN_TEMP] = (gm_buf_t){"temp", xb, dt, GM_WS, 0, 0};
        g.buf[DN_TEMP2] = (gm_buf_t){"temp2", xb, dt, GM_WS, 0, 0};
        g.buf[DN_OUT] = out, g.buf[DN_OUT].name = bwd ? "dx" : "y";
        if (bwd) {
            g.buf[DN_DY] = (gm_buf_t){"dy", xb, dt, GM_IN, 0, 0};
            g.buf[DN_DMEANS] = out, g.buf[DN_DMEANS].name = "dmeans";
            if (!c.dmeans)
                g.buf[DN_DMEANS].role = GM_IN; /* unused by the call: stays as filled */
        }
        /* in place: the aliased input becomes the compared output (filled as that input) */
        if (inplace) {
            const int alias = !bwd ? DN_X : inplace == 1 ? DN_X : DN_DY;
            g.buf[alias].role = GM_INOUT;
            g.buf[alias].abs_tol = out.abs_tol, g.buf[alias].rel_tol = out.rel_tol;
            g.buf[DN_OUT].role = GM_IN; /* unused by the call */
        }
    }
    gm_run(&g);
}

static void lrn_case(cudnnDataType_t dt, int divnorm, unsigned n, int nd, const int *dims,
                     layout_t lx, layout_t lo, int bwd, int means, int dmeans, int inplace,
                     double alpha, double beta, uint64_t seed)
{
    lrn_case_p(dt, divnorm, n, nd, dims, lx, lo, bwd, means, dmeans, inplace, alpha, beta, seed,
               0.75, 0.75, 2.0);
}

/* A channels-innermost shape of dims[nd]: C stride 1, each pixel cpad elements past its C
 * channels, each W row rowpad pixels past its W pixels (rowpad 0: the pixels nest densely,
 * lrn_fwd_nhwc's flat walk; else its strided one), the outer dims dense over those. */
static tshape_t lrn_nhwc_shape(int nd, const int *dims, int cpad, int rowpad)
{
    tshape_t t;
    t.nd = nd;
    memcpy(t.dim, dims, sizeof(int) * (size_t)nd);
    t.stride[1] = 1;
    int64_t s = dims[1] + cpad;
    for (int d = nd - 1; d >= 2; d--) {
        t.stride[d] = (int)s;
        s *= dims[d] + (d == nd - 1 ? rowpad : 0);
    }
    t.stride[0] = (int)s;
    t.ext = 1;
    for (int d = 0; d < nd; d++)
        t.ext += (int64_t)(dims[d] - 1) * t.stride[d];
    return t;
}

/* LRN forward (bwd 0) or backward (1) with channels-innermost tensors (lrn_{fwd,bwd}_nhwc where
 * C, the strides and the pointers allow, else lrn_fwd / lrn_bwd_tile / lrn_bwd): x padded by
 * (xc, xr), y (and dy, dx) by (yc, yr) (lrn_nhwc_shape), the descriptor's (alpha, beta, k) =
 * lp, fill f */
static void lrn_nhwc_case(cudnnDataType_t dt, int bwd, unsigned n, int nd, const int *dims, int xc,
                          int xr, int yc, int yr, double alpha, double beta, uint64_t seed,
                          const double *lp, fill_t f)
{
    lrn_case_t c;
    memset(&c, 0, sizeof c);
    c.dt = dt, c.n = n, c.lalpha = lp[0], c.lbeta = lp[1], c.lk = lp[2], c.bwd = bwd;
    c.x = lrn_nhwc_shape(nd, dims, xc, xr);
    c.out = lrn_nhwc_shape(nd, dims, yc, yr);
    c.alpha = alpha, c.beta = beta, c.seed = seed, c.fill = f;
    char lay[64];
    snprintf(lay, sizeof lay, "nhwc+%d+%d/nhwc+%d+%d", xc, xr, yc, yr);
    lrn_run(&c, lay);
}

/* lrn_fwd_nhwc and lrn_bwd_nhwc (src/cuda/lrn_nhwc.cuh: a 16-byte vector of channels a
 * thread, the neighbours' vectors through shared memory; FLOAT, HALF, BFLOAT16, C a multiple of
 * the vector's V = 4 / 8 channels and at most 256 vectors, pixel strides multiples of V), both
 * directions (the backward's windows: x for s, the adjoint one of t): C of 4, 8, 12, 64, 256,
 * 1024 and just outside (not a multiple of V; 257 vectors: lrn_fwd), windows 1, 2, 3, 5, 7, 16
 * (lb / la of 0 / 0 up to 7 / 8: up to two neighbour vectors a side for FLOAT), pixel counts
 * 1, 7, 33 and 3137 (partial tiles), padded pixels (flat) and padded rows (the strided walk),
 * x and y padded differently, 5-d, both blends (alpha 1 beta 0 over the poisoned y, alpha 2
 * beta 0 through the blend, alpha 0.5 beta 0.25), integer and special (NaN, -inf) fills, the
 * descriptor's parameters varied (FLOAT: the fast power's powf fallback at k 50, beta 4.5
 * without it); the forward benchmark problems in full mode. The FREEDNN_GPU_LRN_NHWC=0 child
 * runs them on lrn_fwd and lrn_bwd_tile / lrn_bwd. */
static void lrn_nhwc_tests(uint64_t *seed)
{
    static const double lp[5][3] = {
        {1e-4, 0.75, 2.0}, {0.5, 0.5, 1.0}, {1e-3, 2.0, 1.0}, {1e-4, 0.75, 50.0}, {1e-3, 4.5, 1.0}};
    static const double bl[3][2] = {{1, 0}, {0.5, 0.25}, {2, 0}};
    static const int pix[4][3] = {{1, 1, 1}, {1, 7, 1}, {3, 1, 11}, {1, 1, 3137}};
    static const fill_t fills[3] = {F_REAL, F_INT, F_SPECIAL};
    const cudnnDataType_t t3[3] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    if (gm_smoke) {
        static const int s1[4] = {1, 64, 1, 7}, s2[4] = {3, 256, 1, 11}, s3[4] = {1, 12, 3, 5};
        for (int bwd = 0; bwd < 2; bwd++) {
            lrn_nhwc_case(CUDNN_DATA_FLOAT, bwd, 5, 4, s1, 0, 0, 0, 0, 1, 0, (*seed)++, lp[0],
                          F_REAL);
            lrn_nhwc_case(CUDNN_DATA_HALF, bwd, 5, 4, s2, 0, 0, 8, 1, 0.5, 0.25, (*seed)++, lp[1],
                          F_INT);
            lrn_nhwc_case(CUDNN_DATA_FLOAT, bwd, 16, 4, s3, 4, 1, 0, 0, 1, 0, (*seed)++, lp[2],
                          F_REAL);
            lrn_nhwc_case(CUDNN_DATA_BFLOAT16, bwd, 16, 4, s1, 8, 0, 0, 0, 2, 0, (*seed)++, lp[0],
                          F_SPECIAL);
        }
        return;
    }
    static const int cs[6] = {4, 8, 12, 64, 256, 1024};
    static const unsigned ws[6] = {1, 2, 3, 5, 7, 16};
    int k = 0;
    for (int t = 0; t < 3; t++)
        for (int ci = 0; ci < 6; ci++)
            for (int wi = 0; wi < 6; wi++, k++) {
                const int *px = pix[cs[ci] >= 256 && k % 4 == 3 ? 2 : k % 4];
                const int dims[4] = {px[0], cs[ci], px[1], px[2]};
                const int V = t == 0 ? 4 : 8;
                /* every third case pads x's pixels by a vector, every fourth y's rows */
                for (int bwd = 0; bwd < 2; bwd++)
                    lrn_nhwc_case(t3[t], bwd, ws[wi], 4, dims, k % 3 == 1 ? V : 0, 0, 0, k % 4 == 2,
                                  bl[(k + bwd) % 3][0], bl[(k + bwd) % 3][1], (*seed)++,
                                  lp[k % (t == 0 ? 5 : 3)], fills[(k / 3) % 3]);
            }
    /* just outside: C not a multiple of V, pixel strides not multiples of V, 257 vectors (and
     * 256 for the 16-bit types: the largest tile) */
    for (int t = 0; t < 3; t++) {
        const int V = t == 0 ? 4 : 8;
        const int c1[4] = {2, V + 2, 3, 5}, c2[4] = {1, 257 * V, 1, 5}, c3[4] = {1, 256 * V, 2, 3};
        const int c4[4] = {2, 4 * V, 3, 5};
        for (int bwd = 0; bwd < 2; bwd++) {
            lrn_nhwc_case(t3[t], bwd, 5, 4, c1, 0, 0, 0, 0, 1, 0, (*seed)++, lp[0], F_REAL);
            lrn_nhwc_case(t3[t], bwd, 5, 4, c2, 0, 0, 0, 0, 0.5, 0.25, (*seed)++, lp[1], F_REAL);
            lrn_nhwc_case(t3[t], bwd, 7, 4, c3, 0, 0, 0, 0, 1, 0, (*seed)++, lp[2], F_INT);
            lrn_nhwc_case(t3[t], bwd, 5, 4, c4, 1, 0, 0, 0, 1, 0, (*seed)++, lp[0], F_REAL);
            lrn_nhwc_case(t3[t], bwd, 3, 4, c4, 0, 0, 2, 0, 2, 0, (*seed)++, lp[0], F_REAL);
        }
    }
    /* 5-d (flat and with padded rows), every window 1 .. 16 on C = 32 (FLOAT: 8 vectors) */
    static const int d5[5] = {2, 32, 3, 4, 5};
    for (int t = 0; t < 3; t++)
        for (int r = 0; r < 4; r++)
            lrn_nhwc_case(t3[t], r / 2, 5, 5, d5, 0, r % 2, 0, r % 2, r % 2 ? 0.5 : 1,
                          r % 2 ? 0.25 : 0, (*seed)++, lp[0], F_REAL);
    static const int c32[4] = {2, 32, 5, 7};
    for (int t = 0; t < 3; t++)
        for (unsigned w = 1; w <= 16; w++)
            for (int bwd = 0; bwd < 2; bwd++)
                lrn_nhwc_case(t3[t], bwd, w, 4, c32, 0, 0, 0, 0, w % 2 ? 1 : 0.5, w % 2 ? 0 : 0.25,
                              (*seed)++, lp[w % 3], F_REAL);
    /* the benchmark problems (bench/gpu_membw.sh), once */
    static const int b16[4] = {32, 256, 56, 56}, b32[4] = {32, 128, 56, 56};
    lrn_nhwc_case(CUDNN_DATA_HALF, 0, 5, 4, b16, 0, 0, 0, 0, 1, 0, (*seed)++, lp[0], F_REAL);
    lrn_nhwc_case(CUDNN_DATA_FLOAT, 0, 5, 4, b32, 0, 0, 0, 0, 1, 0, (*seed)++, lp[0], F_REAL);
    /* the backward's, scaled down (the ref's backward takes n^2 terms an element) */
    static const int b16s[4] = {2, 256, 28, 28}, b32s[4] = {4, 128, 28, 28};
    lrn_nhwc_case(CUDNN_DATA_HALF, 1, 5, 4, b16s, 0, 0, 0, 0, 1, 0, (*seed)++, lp[0], F_REAL);
    lrn_nhwc_case(CUDNN_DATA_FLOAT, 1, 5, 4, b32s, 0, 0, 0, 0, 1, 0, (*seed)++, lp[0], F_REAL);
}

/* An LRN case of the lean 16-bit kernels' neighbourhood: dt, direction, window n, x / output
 * layouts, blend (alpha, beta), the descriptor's (alpha, beta, k) = lp, pointers one element
 * into their buffers (misalign) */
static void lrn16_case(cudnnDataType_t dt, int bwd, unsigned n, int nd, const int *dims,
                       layout_t lx, layout_t lo, double alpha, double beta, const double *lp,
                       int misalign, uint64_t seed)
{
    lrn_case_t c;
    memset(&c, 0, sizeof c);
    c.dt = dt, c.n = n, c.lalpha = lp[0], c.lbeta = lp[1], c.lk = lp[2];
    c.x = shape_of(lx, nd, dims);
    c.out = shape_of(lo, nd, dims);
    c.bwd = bwd, c.alpha = alpha, c.beta = beta, c.seed = seed, c.fill = F_REAL;
    c.misalign = misalign;
    char lay[32];
    snprintf(lay, sizeof lay, "%s/%s", layout_names[lx], layout_names[lo]);
    lrn_run(&c, lay);
}

/* The lean 16-bit column kernels (lrn.cu's lrn16_ok, lrn_lean.cuh's lrn_{fwd,bwd}_lean16:
 * HALF / BFLOAT16, NCHW-like x and output with dense planes of a multiple of 4 pixels,
 * windows 1, 2, 3, 5, alpha 1, beta 0; the backward takes y = round16(x s^-beta): lrn_fill_y):
 * every window over 28 x 28 (lrn16_chunk's chunks of 16 channels: 2 of 24), C 40 over 56 x 56
 * (3 chunks, the last short), 5-d, C of 1, 3, 5 and 257 (17 chunks, the last of one channel),
 * a plane of 6 x 6 (vectors across rows), both descriptor parameter sets whose backward terms
 * stay small (the y taken may differ from lrn_fill_y's by one 16-bit unit); neighbours that
 * fall back: planes of 5 x 7 and 3 x 6 (not a multiple of 4 pixels), blends (0.5, 0.25) and
 * (2, 0), windows 4 (lrn_fwd / lrn_bwd) and 7 (the stamped column kernels), NHWC x, padded
 * (L_ODD) tensors, pointers one element in. The cases lrn16_ok takes run lrn_{fwd,bwd}_lean16f
 * (2 pixels a thread, the float scale and ftz power) where lrn16f_plan allows (alpha >= 0,
 * |beta| <= 4: both sets above) and lrn_{fwd,bwd}_lean16 otherwise; lp16f adds the power's
 * far side (k 50: |beta log2 s| > 4 for every element, which the 16-bit kernels take without
 * a powf fallback; alpha 0, beta 4: s = k, the bound) and the sets that fall back (alpha < 0;
 * beta 4.5), over 28 x 28 and over planes of 1 x 4 pixels (C 11: one 2-pixel column pair an
 * image). The FREEDNN_GPU_LRN_LEAN16=0 child runs these alone on the stamped kernels, the
 * FREEDNN_GPU_LRN16_F=0 child on lrn_{fwd,bwd}_lean16. */
static void lrn16_tests(uint64_t *seed)
{
    static const cudnnDataType_t t16[2] = {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    static const double lp16[2][3] = {{1e-4, 0.75, 2.0}, {1e-3, 2.0, 1.0}};
    static const unsigned w16[4] = {1, 2, 3, 5};
    static const int sq[4] = {2, 24, 28, 28}, big[4] = {2, 40, 56, 56}, d5[5] = {2, 6, 2, 4, 6};
    static const int cs[4][4] = {{2, 1, 8, 12}, {3, 3, 8, 12}, {1, 5, 8, 12}, {2, 257, 4, 6}};
    static const int odd[3][4] = {{2, 9, 6, 6}, {1, 9, 5, 7}, {3, 7, 3, 6}};
    static const double lp16f[4][3] = {
        {1e-4, 0.75, 50.0}, {0.0, 4.0, 3.0}, {-1e-4, 0.75, 2.0}, {1e-3, 4.5, 1.0}};
    static const int p4[4] = {3, 11, 1, 4};
    for (int t = 0; t < 2; t++)
        for (int bwd = 0; bwd < 2; bwd++) {
            const double *lp = lp16[(t + bwd) % 2];
            if (gm_smoke) {
                lrn16_case(t16[t], bwd, 5, 4, sq, L_NCHW, L_NCHW, 1, 0, lp, 0, (*seed)++);
                continue;
            }
            for (int k = 0; k < 4; k++)
                lrn16_case(t16[t], bwd, w16[k], 4, sq, L_NCHW, L_NCHW, 1, 0, lp16[k % 2], 0,
                           (*seed)++);
            lrn16_case(t16[t], bwd, 5, 4, big, L_NCHW, L_NCHW, 1, 0, lp16[0], 0, (*seed)++);
            lrn16_case(t16[t], bwd, 3, 5, d5, L_NCHW, L_NCHW, 1, 0, lp, 0, (*seed)++);
            for (int ci = 0; ci < 4; ci++)
                lrn16_case(t16[t], bwd, ci % 2 ? 2 : 5, 4, cs[ci], L_NCHW, L_NCHW, 1, 0,
                           lp16[ci % 2], 0, (*seed)++);
            for (int oi = 0; oi < 3; oi++)
                lrn16_case(t16[t], bwd, 5, 4, odd[oi], L_NCHW, L_NCHW, 1, 0, lp, 0, (*seed)++);
            for (int pi = 0; pi < 4; pi++)
                for (int sh = 0; sh < 2; sh++)
                    lrn16_case(t16[t], bwd, (pi + sh) % 2 ? 3 : 5, 4, sh ? p4 : sq, L_NCHW, L_NCHW,
                               1, 0, lp16f[pi], 0, (*seed)++);
            /* the neighbours that fall back */
            lrn16_case(t16[t], bwd, 5, 4, sq, L_NCHW, L_NCHW, 0.5, 0.25, lp, 0, (*seed)++);
            lrn16_case(t16[t], bwd, 3, 4, sq, L_NCHW, L_NCHW, 2, 0, lp, 0, (*seed)++);
            lrn16_case(t16[t], bwd, 4, 4, sq, L_NCHW, L_NCHW, 1, 0, lp, 0, (*seed)++);
            lrn16_case(t16[t], bwd, 7, 4, sq, L_NCHW, L_NCHW, 1, 0, lp, 0, (*seed)++);
            lrn16_case(t16[t], bwd, 5, 4, sq, L_NHWC, L_NCHW, 1, 0, lp, 0, (*seed)++);
            lrn16_case(t16[t], bwd, 5, 4, sq, L_ODD, L_ODD, 1, 0, lp, 0, (*seed)++);
            lrn16_case(t16[t], bwd, 5, 4, sq, L_NCHW, L_NCHW, 1, 0, lp, 1, (*seed)++);
        }
}

static void lrn_tests(void)
{
    static const int d4[4] = {2, 7, 5, 6}, d4c[4] = {2, 20, 3, 4}, d5[5] = {2, 6, 3, 4, 5};
    static const unsigned ns[4] = {1, 2, 5, 16};
    uint64_t seed = 3000;
    const char *rerun = getenv("FD_GM_RERUN");
    if (rerun != NULL && (strncmp(rerun, "FREEDNN_GPU_LRN_LEAN16=", 23) == 0 ||
                          strncmp(rerun, "FREEDNN_GPU_LRN16_F=", 20) == 0)) {
        lrn16_tests(&seed); /* the stamped resp. the lean16 kernels on the lean16f ones' cases */
        return;
    }
    lrn16_tests(&seed);
    if (gm_smoke) {
        for (int bwd = 0; bwd < 2; bwd++) {
            lrn_case(CUDNN_DATA_FLOAT, 0, 5, 4, d4, L_NCHW, L_NHWC, bwd, 0, 0, 0, 0.5, 0.25,
                     seed++);
            lrn_case(CUDNN_DATA_FLOAT, 1, 3, 4, d4, L_NHWC, L_NCHW, bwd, 1, 1, 0, 0.5, 0.25,
                     seed++);
        }
        /* lrn_bwd_col (NCHW dx) */
        lrn_case(CUDNN_DATA_FLOAT, 0, 5, 4, d4c, L_NCHW, L_NCHW, 1, 0, 0, 0, 1, 0, seed++);
        lrn_nhwc_tests(&seed);
        return;
    }
    lrn_nhwc_tests(&seed);
    for (int bwd = 0; bwd < 2; bwd++)
        for (int t = 0; t < 4; t++)
            for (int k = 0; k < 4; k++)
                for (int l = 0; l < 3; l++) {
                    const int blend = (k + l) % 2;
                    const int *dims = ns[k] == 16 ? d4c : l == 2 ? d5 : d4;
                    const int nd = dims == d5 ? 5 : 4;
                    lrn_case(dtypes[t], 0, ns[k], nd, dims, (layout_t)l, (layout_t)((l + 1) % 3),
                             bwd, 0, 0, 0, blend ? 0.5 : 1, blend ? 0.25 : 0, seed++);
                }
    for (int bwd = 0; bwd < 2; bwd++)
        for (int t = 0; t < 4; t++)
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < 3; l++) {
                    const int blend = (k + l) % 2;
                    const unsigned n = k == 0 ? 1 : k == 1 ? 3 : 4;
                    const int *dims = l == 2 ? d5 : d4;
                    const int nd = l == 2 ? 5 : 4;
                    lrn_case(dtypes[t], 1, n, nd, dims, (layout_t)l, (layout_t)((l + 2) % 3), bwd,
                             (k + l) % 2 == 0, bwd && k != 1, 0, blend ? 0.5 : 1,
                             blend ? 0.25 : 0, seed++);
                }
    /* divisive normalization in place */
    for (int t = 0; t < 4; t++) {
        lrn_case(dtypes[t], 1, 3, 4, d4, L_NCHW, L_NCHW, 0, 1, 0, 1, 1, 0, seed++);
        lrn_case(dtypes[t], 1, 3, 4, d4, L_NHWC, L_NHWC, 1, 1, 1, 1, 0.5, 0.25, seed++);
        lrn_case(dtypes[t], 1, 2, 5, d5, L_NCHW, L_NCHW, 1, 0, 0, 2, 1, 0, seed++);
    }
    /* the column kernel (lrn_fwd_col, NCHW output): every stamped window (1, 2, 3, 5, 7, 9,
     * 11, 16) and one that is not (4), C below the window, C not a multiple of the 8-channel
     * look-ahead, C = 64 over 28 x 28, both blends, NCHW and NHWC inputs */
    static const unsigned wn[9] = {1, 2, 3, 4, 5, 7, 9, 11, 16};
    static const int cshape[3][4] = {{2, 3, 5, 7}, {3, 21, 4, 5}, {2, 64, 28, 28}};
    for (int t = 0; t < 4; t++)
        for (int k = 0; k < 9; k++)
            for (int sh = 0; sh < 3; sh++) {
                const int blend = (k + sh + t) % 2;
                lrn_case(dtypes[t], 0, wn[k], 4, cshape[sh], (layout_t)((k + t) % 2), L_NCHW, 0,
                         0, 0, 0, blend ? 0.5 : 1, blend ? 0.25 : 0, seed++);
            }
    /* the backward column kernel (lrn_bwd_col, NCHW dx) and the forward one again, with the
     * descriptor's alpha / beta / k varied: every stamped window and one that is not (4), C
     * below the window, C past one and two 8-channel look-ahead batches (21, 64), NCHW and
     * NHWC x / y / dy, both blends; the three float types (DOUBLE keeps lrn_bwd) */
    /* (lrn alpha, beta, k): the backward's two terms stay within a few units for inputs in
     * [-2, 2], so the float rounding of their difference stays inside gm_tol's absolute part */
    static const double lp[3][3] = {{1e-4, 0.75, 2.0}, {0.5, 0.5, 1.0}, {1e-3, 2.0, 1.0}};
    static const unsigned bn[9] = {1, 2, 3, 4, 5, 7, 9, 11, 16};
    static const int bshape[4][4] = {{2, 3, 5, 7}, {3, 21, 4, 5}, {2, 64, 9, 11}, {1, 17, 6, 6}};
    for (int t = 0; t < 4; t++)
        for (int k = 0; k < 9; k++)
            for (int sh = 0; sh < 4; sh++) {
                const int blend = (k + sh + t) % 2, pi = (k + sh) % 3;
                for (int bwd = 0; bwd < 2; bwd++)
                    lrn_case_p(dtypes[t], 0, bn[k], 4, bshape[sh], (layout_t)((k + t + bwd) % 2),
                               L_NCHW, bwd, 0, 0, 0, blend ? 0.5 : 1, blend ? 0.25 : 0, seed++,
                               lp[pi][0], lp[pi][1], lp[pi][2]);
            }
    /* lrn_bwd_col's 4-channel ring for windows up to 5 (8 wider): C of exactly one and two
     * rings, one past, one short of the window's halo; 3 blocks an SM over a plane of 28 x 28 */
    static const unsigned rn[3] = {2, 3, 5};
    static const int rc[4] = {4, 8, 9, 6};
    for (int t = 0; t < 4; t++)
        for (int k = 0; k < 3; k++)
            for (int ci = 0; ci < 4; ci++) {
                const int dims[4] = {2, rc[ci], ci == 3 ? 28 : 5, ci == 3 ? 28 : 7};
                const int blend = (t + k + ci) % 2;
                lrn_case_p(dtypes[t], 0, rn[k], 4, dims, (layout_t)((t + ci) % 2), L_NCHW, 1, 0, 0,
                           0, blend ? 0.5 : 1, blend ? 0.25 : 0, seed++, lp[(k + ci) % 3][0],
                           lp[(k + ci) % 3][1], lp[(k + ci) % 3][2]);
            }
    /* the 16-bit column kernels' SFU power and division: the benchmark's C = 256 halves /
     * bfloat16s (n 5) scaled down, both directions, every (alpha, beta, k) above */
    static const int c256[4] = {2, 256, 14, 14};
    for (int t = 2; t < 4; t++)
        for (int pi = 0; pi < 3; pi++)
            for (int bwd = 0; bwd < 2; bwd++)
                lrn_case_p(dtypes[t], 0, 5, 4, c256, L_NCHW, L_NCHW, bwd, 0, 0, 0,
                           pi == 1 ? 0.5 : 1, pi == 1 ? 0.25 : 0, seed++, lp[pi][0], lp[pi][1],
                           lp[pi][2]);
    /* the backward tile kernel (lrn_bwd_tile, NHWC dx, C <= 1024): windows 1 to 16, C of 3, 17,
     * 64, 128, 1000, 1024 (one pixel a tile) and 1025 (lrn_bwd), pixel counts that leave a
     * partial last tile, NHWC and NCHW inputs, 5-d, both blends, the four types */
    static const unsigned tn[5] = {1, 3, 5, 7, 16};
    static const int tshape[7][4] = {{2, 3, 5, 7},    {3, 17, 3, 5},   {2, 64, 5, 7},
                                     {1, 128, 3, 11}, {2, 1000, 2, 3}, {1, 1024, 3, 1},
                                     {1, 1025, 2, 1}};
    static const int t5[5] = {2, 20, 3, 4, 5};
    for (int t = 0; t < 4; t++)
        for (int k = 0; k < 5; k++)
            for (int sh = 0; sh < 7; sh++) {
                const int blend = (k + sh + t) % 2, pi = (k + sh + t) % 3;
                lrn_case_p(dtypes[t], 0, tn[k], 4, tshape[sh], (layout_t)((k + sh) % 2), L_NHWC,
                           1, 0, 0, 0, blend ? 0.5 : 1, blend ? 0.25 : 0, seed++, lp[pi][0],
                           lp[pi][1], lp[pi][2]);
            }
    for (int t = 0; t < 4; t++)
        lrn_case_p(dtypes[t], 0, 5, 5, t5, L_NHWC, L_NHWC, 1, 0, 0, 0, 1, 0, seed++, 1e-4, 0.75,
                   2.0);
    /* FLOAT column kernels' power under FREEDNN_GPU_BW3 (lrn_pow_fast: exp2(beta log2 s) when
     * |beta log2 s| <= 4 and |beta| <= 4, powf otherwise): the benchmark's parameters on C = 128
     * (n 5), s ~ 50 (k 50: |p| > 4, powf per element), beta 2 and s in [3.9, 4.3] (|p| on both
     * sides of 4 in one tensor), beta 4.5 (powf for the whole call), n 1 and 16, both
     * directions and blends (x in [-2, 2]: the backward's terms stay small, as above) */
    {
        static const double fp[4][3] = {{1e-4, 0.75, 2.0}, {1e-4, 0.75, 50.0}, {0.1, 2.0, 3.9},
                                        {1e-3, 4.5, 1.0}};
        static const unsigned fn[3] = {5, 1, 16};
        static const int c128[4] = {2, 128, 7, 9};
        for (int pi = 0; pi < 4; pi++)
            for (int k = 0; k < 3; k++)
                for (int bwd = 0; bwd < 2; bwd++) {
                    const int blend = (pi + k + bwd) % 2;
                    lrn_case_p(CUDNN_DATA_FLOAT, 0, fn[k], 4, c128, (layout_t)((pi + k) % 2),
                               L_NCHW, bwd, 0, 0, 0, blend ? 0.5 : 1, blend ? 0.25 : 0, seed++,
                               fp[pi][0], fp[pi][1], fp[pi][2]);
                }
    }
    /* large: 4M elements (NCHW: the column kernels; NHWC backward: the tile kernel) */
    static const int big[4] = {8, 32, 128, 128}, bigc[4] = {8, 128, 64, 64};
    for (int bwd = 0; bwd < 2; bwd++)
        lrn_case(CUDNN_DATA_FLOAT, 0, 5, 4, big, L_NCHW, L_NCHW, bwd, 0, 0, 0, 1, 0, seed++);
    lrn_case(CUDNN_DATA_FLOAT, 0, 5, 4, bigc, L_NHWC, L_NHWC, 1, 0, 0, 0, 1, 0, seed++);
    lrn_case(CUDNN_DATA_HALF, 0, 5, 4, bigc, L_NCHW, L_NCHW, 1, 0, 0, 0, 0.5, 0.25, seed++);
}

int main(int argc, char **argv)
{
    gm_init(argc, argv, "test_gpu_softmax_lrn");
    /* the reruns below: LRN is what their switches touch, and FREEDNN_GPU_BW3 softmax_wreg's
     * FLOAT forward division too; the FREEDNN_GPU_SM_FCOLS=0 child runs the strided-row
     * forward cases only (so does the FREEDNN_GPU_SM_FCOLS3=0 one), the FREEDNN_GPU_SM_LEAN2
     * children the lean rows' cases only, the FREEDNN_GPU_SM_BCOLS3=0 one the strided-row
     * backward's */
    const char *rerun = getenv("FD_GM_RERUN");
    if (rerun != NULL && (strncmp(rerun, "FREEDNN_GPU_SM_FCOLS=", 21) == 0 ||
                          strncmp(rerun, "FREEDNN_GPU_SM_FCOLS3=", 22) == 0)) {
        sm_fcols_tests();
        return gm_finish();
    }
    if (rerun != NULL && strncmp(rerun, "FREEDNN_GPU_SM_LEAN2=", 21) == 0) {
        sm_lean2_tests();
        return gm_finish();
    }
    if (rerun != NULL && strncmp(rerun, "FREEDNN_GPU_SM_BCOLS3=", 22) == 0) {
        sm_bcols_tests();
        return gm_finish();
    }
    if (rerun == NULL || getenv("FREEDNN_GPU_BW3") != NULL ||
        getenv("FREEDNN_GPU_SM_BCG16") != NULL)
        sm_tests();
    if (rerun != NULL && getenv("FREEDNN_GPU_SM_BCG16") != NULL)
        return gm_finish(); /* the softmax cases on softmax_bwd_cols' first shapes only */
    lrn_tests();
    /* the same cases on the earlier kernels, then FLOAT's column kernels in chunks of 5
     * channels (lrn_fwd_col / lrn_bwd_col <W, true>: chunks shorter than the window, C not a
     * multiple, the last chunk short; the benchmark's size picks them by itself) */
    gm_rerun_with(argv, "FREEDNN_GPU_BW2", "0");
    gm_rerun_with(argv, "FREEDNN_GPU_BW2_LRN_CHUNK", "5");
    gm_rerun_with(argv, "FREEDNN_GPU_BW3", "0"); /* FLOAT's column kernels with powf */
    gm_rerun_with(argv, "FREEDNN_GPU_BW3_LRN_AHEAD", "0"); /* the 8 / 4-channel look-aheads */
    gm_rerun_with(argv, "FREEDNN_GPU_LRN_LEAN", "0"); /* the stamped column kernels (y read) */
    gm_rerun_with(argv, "FREEDNN_GPU_LRN_LEAN16", "0"); /* lrn16_tests on the stamped ones */
    gm_rerun_with(argv, "FREEDNN_GPU_LRN_NHWC", "0"); /* NHWC forward on lrn_fwd */
    gm_rerun_with(argv, "FREEDNN_GPU_LRN16_F", "0");  /* lrn16_tests on lrn_*_lean16 */
    gm_rerun_with(argv, "FREEDNN_GPU_SM_FCOLS", "0"); /* softmax_fwd_rows_online / _rows */
    gm_rerun_with(argv, "FREEDNN_GPU_SM_FCOLS3", "0"); /* softmax_fwd_cols' LEAN instantiation */
    gm_rerun_with(argv, "FREEDNN_GPU_SM_LEAN2", "0"); /* the lean rows on softmax_wreg */
    gm_rerun_with(argv, "FREEDNN_GPU_SM_LEAN2", "2"); /* softmax_lean's streaming stores */
    gm_rerun_with(argv, "FREEDNN_GPU_SM_LEAN2", "3"); /* and the 32-vector forward rows */
    gm_rerun_with(argv, "FREEDNN_GPU_SM_BCG16", "0"); /* softmax_bwd_cols at <= 8 groups */
    gm_rerun_with(argv, "FREEDNN_GPU_SM_BCOLS3", "0"); /* softmax_bwd_cols(16), not _lean */
    return gm_finish();
}
