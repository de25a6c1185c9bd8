/* SPDX-License-Identifier: MIT */
/*
 * test_softmax.c - cudnnSoftmaxForward / cudnnSoftmaxBackward against an independent oracle.
 *
 * - hand-computed rows (overflow-prone FAST input, LOG, all -inf row, INSTANCE vs CHANNEL);
 * - every algorithm x mode x dtype (f32, f64, f16, bf16) x rank (4, 5) against a naive double
 *   softmax on canonical dense arrays, with alpha/beta (beta = 0 over NaN-poisoned output never
 *   reads it; beta != 0 blends);
 * - layouts NCHW, NHWC, padded, permuted give identical bits; holes of padded outputs keep
 *   their poison; guards intact; inputs unchanged; ref and cpu handles give identical bits
 *   (FLOAT excepted: the cpu row's vectorised exp, tests/impl/test_cpu_smx_fast.c);
 *   in-place (y == x, dx == dy) gives the same bits as out-of-place;
 * - backward against the oracle formulas and by central finite differences in double.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fd_tensor.h"
#include "fd_test.h"

/* ---- canonical <-> strided ---------------------------------------------------------------- */

enum { L_NCHW, L_NHWC, L_PAD, L_PERM, L_COUNT };
static const char *const lay_name[L_COUNT] = {"nchw", "nhwc", "padded", "permuted"};

/* Packed NCHW and NHWC, NCHW with a gap of 3 after every dim, dims reversed (N innermost). */
static fd_layout_t lay_make(int nd, const int *dim, int kind)
{
    static const int order[L_COUNT] = {FD_ORDER_NCHW, FD_ORDER_NHWC, FD_ORDER_NCHW,
                                       FD_ORDER_REVERSED};
    fd_layout_t l;
    fd_layout_ordered(&l, nd, dim, order[kind], 1, kind == L_PAD ? 3 : 0);
    return l;
}

/* ---- oracle ------------------------------------------------------------------------------- */

/* rows x row_len view of a canonical array: CHANNEL groups (n, spatial) over c. */
static int64_t oracle_index(const int *dim, int nd, int mode, int64_t row, int64_t r)
{
    if (mode == CUDNN_SOFTMAX_MODE_INSTANCE) {
        int64_t len = 1;
        for (int d = 1; d < nd; d++)
            len *= dim[d];
        return row * len + r;
    }
    int64_t S = 1;
    for (int d = 2; d < nd; d++)
        S *= dim[d];
    int64_t n = row / S, sp = row % S;
    return (n * dim[1] + r) * S + sp;
}

static void oracle_dims(const int *dim, int nd, int mode, int64_t *rows, int64_t *len)
{
    int64_t total = 1;
    for (int d = 0; d < nd; d++)
        total *= dim[d];
    *len = mode == CUDNN_SOFTMAX_MODE_INSTANCE ? total / dim[0] : dim[1];
    *rows = total / *len;
}

static void oracle_fwd(const int *dim, int nd, int algo, int mode, const double *x, double *y)
{
    int64_t rows, len;
    oracle_dims(dim, nd, mode, &rows, &len);
    for (int64_t o = 0; o < rows; o++) {
        double mx = -INFINITY, sum = 0.0;
        for (int64_t r = 0; r < len; r++)
            mx = fmax(mx, x[oracle_index(dim, nd, mode, o, r)]);
        for (int64_t r = 0; r < len; r++)
            sum += exp(x[oracle_index(dim, nd, mode, o, r)] - mx);
        for (int64_t r = 0; r < len; r++) {
            int64_t i = oracle_index(dim, nd, mode, o, r);
            y[i] = algo == CUDNN_SOFTMAX_LOG ? x[i] - mx - log(sum) : exp(x[i] - mx) / sum;
        }
    }
}

static void oracle_bwd(const int *dim, int nd, int algo, int mode, const double *y,
                       const double *dy, double *dx)
{
    int64_t rows, len;
    oracle_dims(dim, nd, mode, &rows, &len);
    for (int64_t o = 0; o < rows; o++) {
        double s = 0.0;
        for (int64_t r = 0; r < len; r++) {
            int64_t i = oracle_index(dim, nd, mode, o, r);
            s += algo == CUDNN_SOFTMAX_LOG ? dy[i] : dy[i] * y[i];
        }
        for (int64_t r = 0; r < len; r++) {
            int64_t i = oracle_index(dim, nd, mode, o, r);
            dx[i] = algo == CUDNN_SOFTMAX_LOG ? dy[i] - exp(y[i]) * s : y[i] * (dy[i] - s);
        }
    }
}

/* ---- running the library on canonical arrays ---------------------------------------------- */

typedef struct {
    cudnnHandle_t h;
    int nd, dim[5];
    cudnnDataType_t dt;
    int algo, mode, layout;
    double alpha, beta;
} run_t;

/* Forward on canonical x; y_old (may be NULL: poisoned output) is blended with beta. Returns
 * the status; fills y (canonical) and, if raw != NULL, a copy of the raw output bytes. */
static cudnnStatus_t run_fwd(const run_t *r, const double *x, const double *y_old, double *y,
                             unsigned char *raw, int in_place)
{
    fd_layout_t l = lay_make(r->nd, r->dim, r->layout);
    cudnnTensorDescriptor_t d = fd_layout_desc(&l, r->dt);
    fd_buf_t bx = fd_layout_alloc(&l, r->dt), by = fd_layout_alloc(&l, r->dt);
    fd_buf_poison(&bx);
    fd_buf_poison(&by);
    fd_layout_scatter(&l, r->dt, bx.data, x);
    if (y_old != NULL)
        fd_layout_scatter(&l, r->dt, (in_place ? bx : by).data, in_place ? x : y_old);
    uint64_t hx = fd_buf_hash(&bx);
    fd_scalar_t a = fd_scalar(r->dt, r->alpha), b = fd_scalar(r->dt, r->beta);
    fd_buf_t *out = in_place ? &bx : &by;
    cudnnStatus_t st =
        cudnnSoftmaxForward(r->h, r->algo, r->mode, &a, d, bx.data, &b, d, out->data);
    FD_EXPECT(fd_buf_guards_ok(&bx) && fd_buf_guards_ok(&by), "softmax fwd guards (%s)",
              lay_name[r->layout]);
    if (!in_place)
        FD_EXPECT(fd_buf_hash(&bx) == hx, "softmax fwd modified x (%s)", lay_name[r->layout]);
    FD_EXPECT(fd_layout_holes_poisoned(&l, r->dt, out->data), "softmax fwd wrote a hole of y (%s)",
              lay_name[r->layout]);
    fd_layout_gather(&l, r->dt, out->data, y);
    if (raw != NULL)
        fd_layout_bits(&l, r->dt, out->data, raw);
    fd_buf_free(&bx);
    fd_buf_free(&by);
    cudnnDestroyTensorDescriptor(d);
    return st;
}

/* Backward on canonical y, dy; in_place: dx is written over dy. */
static cudnnStatus_t run_bwd(const run_t *r, const double *y, const double *dy,
                             const double *dx_old, double *dx, unsigned char *raw, int in_place)
{
    fd_layout_t l = lay_make(r->nd, r->dim, r->layout);
    cudnnTensorDescriptor_t d = fd_layout_desc(&l, r->dt);
    fd_buf_t by = fd_layout_alloc(&l, r->dt), bdy = fd_layout_alloc(&l, r->dt),
             bdx = fd_layout_alloc(&l, r->dt);
    fd_buf_poison(&by);
    fd_buf_poison(&bdy);
    fd_buf_poison(&bdx);
    fd_layout_scatter(&l, r->dt, by.data, y);
    fd_layout_scatter(&l, r->dt, bdy.data, dy);
    if (dx_old != NULL && !in_place)
        fd_layout_scatter(&l, r->dt, bdx.data, dx_old);
    uint64_t hy = fd_buf_hash(&by), hdy = fd_buf_hash(&bdy);
    fd_scalar_t a = fd_scalar(r->dt, r->alpha), b = fd_scalar(r->dt, r->beta);
    fd_buf_t *out = in_place ? &bdy : &bdx;
    cudnnStatus_t st =
        cudnnSoftmaxBackward(r->h, r->algo, r->mode, &a, d, by.data, d, bdy.data, &b, d, out->data);
    FD_EXPECT(fd_buf_guards_ok(&by) && fd_buf_guards_ok(&bdy) && fd_buf_guards_ok(&bdx),
              "softmax bwd guards");
    FD_EXPECT(fd_buf_hash(&by) == hy, "softmax bwd modified y");
    if (!in_place)
        FD_EXPECT(fd_buf_hash(&bdy) == hdy, "softmax bwd modified dy");
    FD_EXPECT(fd_layout_holes_poisoned(&l, r->dt, out->data), "softmax bwd wrote a hole of dx (%s)",
              lay_name[r->layout]);
    fd_layout_gather(&l, r->dt, out->data, dx);
    if (raw != NULL)
        fd_layout_bits(&l, r->dt, out->data, raw);
    fd_buf_free(&by);
    fd_buf_free(&bdy);
    fd_buf_free(&bdx);
    cudnnDestroyTensorDescriptor(d);
    return st;
}

static const char *algo_name(int a)
{
    return a == 0 ? "fast" : a == 1 ? "accurate" : "log";
}

/* ---- hand-computed cases ------------------------------------------------------------------ */

static void test_hand(cudnnHandle_t h)
{
    run_t r = {.h = h,
               .nd = 4,
               .dim = {1, 2, 1, 1},
               .dt = CUDNN_DATA_FLOAT,
               .mode = CUDNN_SOFTMAX_MODE_CHANNEL,
               .alpha = 1,
               .beta = 0};
    double y[4];
    /* cuDNN's FAST overflows on these (contract §1.8); ours must not be less accurate. */
    for (int algo = 0; algo < 2; algo++) {
        r.algo = algo;
        double x1[2] = {1000, 0}, x2[2] = {88, 89};
        FD_EXPECT_STATUS(run_fwd(&r, x1, NULL, y, NULL, 0), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(y[0] == 1.0 && y[1] == 0.0, "%s [1000, 0] -> [%g, %g], want [1, 0]",
                  algo_name(algo), y[0], y[1]);
        FD_EXPECT_STATUS(run_fwd(&r, x2, NULL, y, NULL, 0), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(fabs(y[0] - 0.2689414213699951) < 3e-8 && fabs(y[1] - 0.7310585786300049) < 6e-8,
                  "%s [88, 89] -> [%.9g, %.9g], want [0.26894142, 0.73105858]", algo_name(algo),
                  y[0], y[1]);
    }
    r.algo = CUDNN_SOFTMAX_LOG;
    double x3[2] = {0, 0}, x4[2] = {1000, 0};
    FD_EXPECT_STATUS(run_fwd(&r, x3, NULL, y, NULL, 0), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(y[0] == (float)-0.6931471805599453 && y[1] == y[0], "log [0, 0] -> [%.9g, %.9g]",
              y[0], y[1]);
    FD_EXPECT_STATUS(run_fwd(&r, x4, NULL, y, NULL, 0), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(y[0] == 0.0 && y[1] == -1000.0, "log [1000, 0] -> [%g, %g], want [0, -1000]", y[0],
              y[1]);
    /* a row of all -inf is NaN (0/0) in every algorithm */
    for (int algo = 0; algo < 3; algo++) {
        r.algo = algo;
        double xi[2] = {-INFINITY, -INFINITY};
        FD_EXPECT_STATUS(run_fwd(&r, xi, NULL, y, NULL, 0), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(isnan(y[0]) && isnan(y[1]), "%s all -inf -> [%g, %g], want NaN", algo_name(algo),
                  y[0], y[1]);
    }
    /* 1x2x1x2: CHANNEL normalises (c0, c1) per w; INSTANCE all four. x = [[0, 0], [0, ln 3]] */
    r = (run_t){.h = h,
                .nd = 4,
                .dim = {1, 2, 1, 2},
                .dt = CUDNN_DATA_DOUBLE,
                .algo = CUDNN_SOFTMAX_ACCURATE,
                .alpha = 1,
                .beta = 0};
    double x5[4] = {0, 0, 0, log(3.0)};
    r.mode = CUDNN_SOFTMAX_MODE_CHANNEL;
    FD_EXPECT_STATUS(run_fwd(&r, x5, NULL, y, NULL, 0), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(fabs(y[0] - 0.5) < 1e-15 && fabs(y[2] - 0.5) < 1e-15 && fabs(y[1] - 0.25) < 1e-15 &&
                  fabs(y[3] - 0.75) < 1e-15,
              "channel -> [%g %g %g %g], want [0.5 0.25 0.5 0.75]", y[0], y[1], y[2], y[3]);
    r.mode = CUDNN_SOFTMAX_MODE_INSTANCE;
    FD_EXPECT_STATUS(run_fwd(&r, x5, NULL, y, NULL, 0), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(fabs(y[0] - 1.0 / 6) < 1e-15 && fabs(y[1] - 1.0 / 6) < 1e-15 &&
                  fabs(y[2] - 1.0 / 6) < 1e-15 && fabs(y[3] - 0.5) < 1e-15,
              "instance -> [%g %g %g %g], want [1/6 1/6 1/6 1/2]", y[0], y[1], y[2], y[3]);
    /* backward by hand: y = [0.25, 0.75], dy = [1, 0]: sum(dy*y) = 0.25; dx = y*(dy - 0.25) */
    r.mode = CUDNN_SOFTMAX_MODE_CHANNEL;
    r.dim[3] = 1;
    double yy[2] = {0.25, 0.75}, dy[2] = {1, 0}, dx[2];
    FD_EXPECT_STATUS(run_bwd(&r, yy, dy, NULL, dx, NULL, 0), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(dx[0] == 0.1875 && dx[1] == -0.1875,
              "bwd accurate -> [%g, %g], want [0.1875, -0.1875]", dx[0], dx[1]);
    /* LOG: y = log([0.25, 0.75]), dy = [1, 0]: dx = dy - exp(y) * 1 = [0.75, -0.75] */
    r.algo = CUDNN_SOFTMAX_LOG;
    double ly[2] = {log(0.25), log(0.75)};
    FD_EXPECT_STATUS(run_bwd(&r, ly, dy, NULL, dx, NULL, 0), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(fabs(dx[0] - 0.75) < 1e-15 && fabs(dx[1] + 0.75) < 1e-15,
              "bwd log -> [%g, %g], want [0.75, -0.75]", dx[0], dx[1]);
}

/* ---- sweep against the oracle ------------------------------------------------------------- */

static const cudnnDataType_t dtypes[4] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                          CUDNN_DATA_BFLOAT16};

static double tol_of(cudnnDataType_t dt, int64_t k, double abs_sum, double want)
{
    /* the reference works in double and rounds once to dt */
    return fd_tolerance(dt, CUDNN_DATA_DOUBLE, k, abs_sum, want) + 1e-13 * abs_sum;
}

/* One case: forward and backward against the oracle; then the same bits from the other
 * layouts (all of them, or the case's own random one) and from the cpu handle, and in place. */
static void one_case(const run_t *rc, cudnnHandle_t hcpu, fd_rng_t *rng, int all_layouts)
{
    run_t r = *rc;
    const int algo = r.algo, mode = r.mode;
    fd_layout_t l = lay_make(r.nd, r.dim, L_NCHW);
    int64_t n = l.count;
    size_t es = fd_test_dtype_size(r.dt);
    double *x = malloc(sizeof(double) * (size_t)n * 8), *yo = x + n, *y = yo + n, *want = y + n;
    double *dy = want + n, *dx = dy + n, *dwant = dx + n, *y2 = dwant + n;
    unsigned char *raw0 = malloc((size_t)n * es * 2), *raw1 = raw0 + (size_t)n * es;
    for (int64_t i = 0; i < n; i++) {
        x[i] = fd_test_round(r.dt, 8.0 * fd_rng_uniform(rng) - 4.0);
        yo[i] = fd_test_round(r.dt, 2.0 * fd_rng_uniform(rng) - 1.0);
        dy[i] = fd_test_round(r.dt, 2.0 * fd_rng_uniform(rng) - 1.0);
    }
    int64_t rows, len;
    oracle_dims(r.dim, r.nd, mode, &rows, &len);
    char tag[160];
    snprintf(tag, sizeof tag, "%s %s mode %d nd %d %dx%dx%dx%dx%d alpha %g beta %g",
             fd_test_dtype_short(r.dt), algo_name(algo), mode, r.nd, r.dim[0], r.dim[1], r.dim[2],
             r.dim[3], r.nd > 4 ? r.dim[4] : 1, r.alpha, r.beta);
    /* forward (in the case's layout) */
    FD_EXPECT_STATUS(run_fwd(&r, x, r.beta != 0 ? yo : NULL, y, raw0, 0), CUDNN_STATUS_SUCCESS);
    oracle_fwd(r.dim, r.nd, algo, mode, x, want);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double w = r.alpha * want[i] + (r.beta != 0 ? r.beta * yo[i] : 0.0);
        double as = fabs(r.alpha * want[i]) + fabs(r.beta * yo[i]) + (algo == 2 ? 8.0 : 0.0);
        if (!(fabs(y[i] - w) <= tol_of(r.dt, len, as, w)) && bad++ < 3)
            FD_EXPECT(0, "fwd %s elem %lld: got %.17g want %.17g", tag, (long long)i, y[i], w);
    }
    FD_EXPECT(bad == 0, "fwd %s: %d mismatches", tag, bad);
    for (int lay = 0; lay <= L_COUNT; lay++) {
        if (lay == rc->layout ||
            (!all_layouts && lay != L_COUNT && lay != (rc->layout + 1) % L_COUNT))
            continue;
        run_t r2 = r;
        if (lay == L_COUNT)
            r2.h = hcpu;
        else
            r2.layout = lay;
        FD_EXPECT_STATUS(run_fwd(&r2, x, r.beta != 0 ? yo : NULL, y2, raw1, 0),
                         CUDNN_STATUS_SUCCESS);
        /* FLOAT on cpu: a vectorised exp, held to a tolerance by tests/impl/test_cpu_smx_fast.c */
        FD_EXPECT(memcmp(raw0, raw1, (size_t)n * es) == 0 ||
                      (lay == L_COUNT && r.dt == CUDNN_DATA_FLOAT),
                  "fwd %s: %s differs from %s/ref", tag, lay == L_COUNT ? "cpu" : lay_name[lay],
                  lay_name[rc->layout]);
    }
    if (r.beta == 0) {
        FD_EXPECT_STATUS(run_fwd(&r, x, NULL, y2, raw1, 1), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(memcmp(raw0, raw1, (size_t)n * es) == 0, "fwd %s: in-place differs", tag);
    }
    /* backward from the oracle's y (rounded to dt) */
    for (int64_t i = 0; i < n; i++)
        want[i] = fd_test_round(r.dt, want[i]);
    FD_EXPECT_STATUS(run_bwd(&r, want, dy, r.beta != 0 ? yo : NULL, dx, raw0, 0),
                     CUDNN_STATUS_SUCCESS);
    oracle_bwd(r.dim, r.nd, algo, mode, want, dy, dwant);
    bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double w = r.alpha * dwant[i] + (r.beta != 0 ? r.beta * yo[i] : 0.0);
        double as = fabs(r.alpha) * (fabs(dy[i]) + 1.0) * (double)len + fabs(r.beta * yo[i]);
        if (!(fabs(dx[i] - w) <= tol_of(r.dt, len, as, w)) && bad++ < 3)
            FD_EXPECT(0, "bwd %s elem %lld: got %.17g want %.17g", tag, (long long)i, dx[i], w);
    }
    FD_EXPECT(bad == 0, "bwd %s: %d mismatches", tag, bad);
    for (int lay = 0; lay <= L_COUNT; lay++) {
        if (lay == rc->layout ||
            (!all_layouts && lay != L_COUNT && lay != (rc->layout + 1) % L_COUNT))
            continue;
        run_t r2 = r;
        if (lay == L_COUNT)
            r2.h = hcpu;
        else
            r2.layout = lay;
        FD_EXPECT_STATUS(run_bwd(&r2, want, dy, r.beta != 0 ? yo : NULL, y2, raw1, 0),
                         CUDNN_STATUS_SUCCESS);
        FD_EXPECT(memcmp(raw0, raw1, (size_t)n * es) == 0 ||
                      (lay == L_COUNT && r.dt == CUDNN_DATA_FLOAT),
                  "bwd %s: %s differs", tag, lay == L_COUNT ? "cpu" : lay_name[lay]);
    }
    if (r.beta == 0) {
        FD_EXPECT_STATUS(run_bwd(&r, want, dy, NULL, y2, raw1, 1), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(memcmp(raw0, raw1, (size_t)n * es) == 0, "bwd %s: in-place (dx == dy) differs",
                  tag);
    }
    free(x);
    free(raw0);
}

static const double blends[][2] = {{1, 0}, {0.5, 0}, {-2, 0.25}, {1, 1}};

/* Fixed shapes: every algorithm x mode x dtype, all layouts. */
static void test_sweep(cudnnHandle_t href, cudnnHandle_t hcpu, fd_rng_t *rng)
{
    static const int shapes[][6] = {{4, 2, 3, 4, 5, 0},
                                    {4, 1, 17, 1, 1, 0},
                                    {4, 3, 1, 2, 7, 0},
                                    {5, 2, 3, 2, 3, 2},
                                    {4, 1, 1, 1, 1, 0}};
    int cases = 0;
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (int ti = 0; ti < 4; ti++)
            for (int algo = 0; algo < 3; algo++)
                for (int mode = 0; mode < 2; mode++) {
                    run_t r = {.h = href,
                               .nd = shapes[si][0],
                               .dt = dtypes[ti],
                               .algo = algo,
                               .mode = mode};
                    memcpy(r.dim, &shapes[si][1], sizeof(int) * 5);
                    int abk = (int)((si + (size_t)ti + (size_t)algo + (size_t)mode) % 4);
                    r.alpha = blends[abk][0];
                    r.beta = blends[abk][1];
                    one_case(&r, hcpu, rng, 1);
                    cases++;
                }
    printf("softmax fixed sweep: %d cases\n", cases);
}

/* Random shapes (contract §4.2 distribution), random algorithm, mode, layout and blend.
 * FD_TEST_SCALE multiplies the count; FD_TEST_SWEEP_SEED changes the draw. */
static void test_random(cudnnHandle_t href, cudnnHandle_t hcpu, fd_rng_t *rng)
{
    static const int cs[] = {1, 3, 7, 8, 15, 16, 17, 24};
    int per_dtype = (int)(150 * fd_test_scale());
    for (int ti = 0; ti < 4; ti++)
        for (int c = 0; c < per_dtype; c++) {
            run_t r = {.h = href, .dt = dtypes[ti], .nd = fd_rng_int(rng, 0, 3) == 0 ? 5 : 4};
            r.dim[0] = fd_rng_int(rng, 1, 4);
            r.dim[1] = fd_rng_int(rng, 0, 1) ? cs[fd_rng_int(rng, 0, 7)] : fd_rng_int(rng, 1, 24);
            for (int d = 2; d < r.nd; d++)
                r.dim[d] = fd_rng_int(rng, 1, r.nd == 5 ? 5 : 9);
            r.algo = fd_rng_int(rng, 0, 2);
            r.mode = fd_rng_int(rng, 0, 1);
            r.layout = fd_rng_int(rng, 0, L_COUNT - 1);
            int abk = fd_rng_int(rng, 0, 3);
            r.alpha = blends[abk][0];
            r.beta = blends[abk][1];
            one_case(&r, hcpu, rng, 0);
        }
    printf("softmax random sweep: %d cases\n", 4 * per_dtype);
}

/* ---- finite differences (double) ---------------------------------------------------------- */

static void test_gradcheck(cudnnHandle_t h, fd_rng_t *rng)
{
    for (int algo = 0; algo < 3; algo++)
        for (int mode = 0; mode < 2; mode++) {
            run_t r = {.h = h,
                       .nd = 4,
                       .dim = {2, 3, 2, 2},
                       .dt = CUDNN_DATA_DOUBLE,
                       .algo = algo,
                       .mode = mode,
                       .alpha = 1,
                       .beta = 0};
            enum { N = 24 };
            double x[N], y[N], w[N], dx[N], xp[N], yp[N];
            for (int i = 0; i < N; i++) {
                x[i] = 4.0 * fd_rng_uniform(rng) - 2.0;
                w[i] = 2.0 * fd_rng_uniform(rng) - 1.0;
            }
            run_fwd(&r, x, NULL, y, NULL, 0);
            FD_EXPECT_STATUS(run_bwd(&r, y, w, NULL, dx, NULL, 0), CUDNN_STATUS_SUCCESS);
            double worst = 0.0;
            for (int i = 0; i < N; i++) {
                const double hstep = 1e-5;
                double l[2];
                for (int s = 0; s < 2; s++) {
                    memcpy(xp, x, sizeof x);
                    xp[i] += s ? -hstep : hstep;
                    run_fwd(&r, xp, NULL, yp, NULL, 0);
                    l[s] = 0.0;
                    for (int j = 0; j < N; j++)
                        l[s] += w[j] * yp[j];
                }
                double num = (l[0] - l[1]) / (2 * hstep);
                worst = fmax(worst, fabs(num - dx[i]));
            }
            FD_EXPECT(worst < 1e-8, "gradcheck %s mode %d: max |numeric - analytic| = %g",
                      algo_name(algo), mode, worst);
        }
}

/* beta = 0 over NaN never reads y; beta != 0 propagates its NaN. */
static void test_beta_nan(cudnnHandle_t h)
{
    run_t r = {.h = h,
               .nd = 4,
               .dim = {1, 3, 2, 2},
               .dt = CUDNN_DATA_FLOAT,
               .algo = 1,
               .mode = 1,
               .alpha = 1,
               .beta = 0};
    double x[12], y[12], yo[12];
    for (int i = 0; i < 12; i++)
        x[i] = i % 5, yo[i] = NAN;
    FD_EXPECT_STATUS(run_fwd(&r, x, NULL, y, NULL, 0), CUDNN_STATUS_SUCCESS); /* poisoned y */
    int nans = 0;
    for (int i = 0; i < 12; i++)
        nans += isnan(y[i]);
    FD_EXPECT(nans == 0, "beta = 0 read the NaN-poisoned y (%d NaN)", nans);
    r.beta = 1;
    FD_EXPECT_STATUS(run_fwd(&r, x, yo, y, NULL, 0), CUDNN_STATUS_SUCCESS);
    nans = 0;
    for (int i = 0; i < 12; i++)
        nans += isnan(y[i]);
    FD_EXPECT(nans == 12, "beta = 1 over NaN y gave %d NaN of 12", nans);
}

int main(void)
{
    cudnnHandle_t href, hcpu;
    FD_EXPECT_STATUS(freednnCreateWithBackend(&href, FREEDNN_BACKEND_REF), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(freednnCreateWithBackend(&hcpu, FREEDNN_BACKEND_CPU), CUDNN_STATUS_SUCCESS);
    fd_rng_t rng;
    fd_rng_seed(&rng, fd_test_sweep_seed(0x50f7a3a1ull));
    test_hand(href);
    test_beta_nan(href);
    test_sweep(href, hcpu, &rng);
    test_random(href, hcpu, &rng);
    test_gradcheck(href, &rng);
    cudnnDestroy(href);
    cudnnDestroy(hcpu);
    return fd_test_finish();
}
