/* SPDX-License-Identifier: MIT */
/*
 * test_cpu_pool_fast.c - the f32 AVX-512 paths of the cpu pooling row (src/cpu/pooling_cpu.c:
 * lanes along W for W-unit-stride tensors, lanes along C for C-unit-stride ones, the dx-row
 * ring of NCHW backward, the argmax codes of NHWC max backward) against the ref row, through
 * the public API (helpers: memops_case.h).
 *
 * Tolerance: none. Every output must equal ref's bit for bit (NaN payloads aside) on integer,
 * tie-heavy and real fills alike, because the paths keep the ref's operations and their order
 * (max in float is exact; sums in double in window order; the same divisor; one rounding).
 * Each case runs on ref, on cpu with one OpenMP thread and on cpu with two, from the same
 * inputs and initial outputs (NaN-poisoned when beta = 0, so a read of y / dx shows), and x
 * must be unchanged. Coverage: every mode and NaN option; fills with ties, -0 / +0, -FLT_MAX,
 * +-inf and NaN; windows that run into the padding on every border, ceil-mode last windows,
 * negative padding (crop), windows larger than the input, strides 1, 2 (permuted loads) and 3
 * (gathers); rows of several 16-lane chunks with tails; C of 1 to 70 (masked channel tails);
 * NCHW, NHWC, padded rows, NHWC with padded pixels, and a layout with neither unit stride (the
 * double blocks); 1-d, 2-d and 3-d (3-d backward goes to the double blocks); alpha / beta (1, 0)
 * and (0.5, 0.25); above the threading threshold. The whole set runs again in child processes
 * with FREEDNN_CPU_ISA=avx2 and =generic, which take the double-block code instead, except that
 * FLOAT tensors with unit stride along W (NCHW, padded rows), 1-d / 2-d, strides 1 or 2 along W
 * and pads 0 .. window - 1 take the AVX2 paths of src/cpu/pool_avx2_nchw.c with avx2 (and in
 * the parent on a CPU without AVX-512). Those give the ref's bits in every mode but the 2-d
 * stride-1 averages (double sums in the ref's order; max backward's float sums only where no
 * lane of a vector has more than two hits), and the avx2 child holds them to bits: ring rows of
 * maxima and argmax codes, vectors at both row borders (masked loads), tails, the stride-2 lane
 * order of vshufps, dx rows with one and two window rows (the 3x3 / 2 max's hit counts: F_DY's
 * dy 2^80 apart), kw 2 to 5. Stride-2 NCHW max backward (argmax codes, dx gathered) is held to
 * the same bit identity: max windows of widths 2 to 5 with every pad from 0 to kw - 1. The 2-d
 * stride-1 averages there are the float box rows (the AVX-512 box rows' operations, 8 lanes
 * along W), held to the bound below (box_case) and to NHWC's bits (box_layouts): 3x3 and 5x5
 * boxes with pads 0 to 2, W from under a vector to 112.
 * Exception, the float box rows (stride-1 FLOAT averages along W of 2-d problems on the AVX-512
 * path; product decision 2026-11-30, docs/testing.md): their window sums are in float, so
 * there each element is held to the f32 accumulation bound instead,
 *   |cpu - ref| <= 2 (K + 2) 2^-24 (|alpha| A + |beta y_old|) + 2^-24 |ref| + 2^-140,
 * K = kh kw + 1 (the window's terms, plus the division's rounding backward), A = the ref's
 * result on |x| (forward: sum |taps| / count) or on |dy| (backward: sum |dy / count|) with
 * alpha 1, beta 0, i.e. the sum of the magnitudes of the element's terms; a non-finite ref
 * must be matched exactly (NaN by any NaN). Forward on integer fills stays bit for bit (the
 * float sums are exact and the division and blend are the ref's, in double), and one and two
 * threads must give the same bits. The avx2 / generic children keep bits everywhere.
 * Every other FLOAT average forward on the AVX-512 paths (lanes along W of any stride, 1-d to
 * 3-d; NHWC streamed rows) also sums in float and is held to the same bound with K = the
 * window's taps + 1 (bits on integer fills): fills with +-inf, NaN and -FLT_MAX (float
 * overflow) take the ref's formula on those lanes, which must match exactly.
 * NCHW max forward (window-row maxima once per input row) and stride-2 max backward (row
 * argmax once per input row; float sums on dx rows with one window row, kw 3, alpha 1, beta 0,
 * which must give the double sums' bits) are held to the same: dy with -0 / +0, values 2^80
 * apart in magnitude and reals (fill_dy), pads 0 to 2, ceil mode, alpha / beta both ways; so
 * is 2x2 stride-2 average backward, whose dy / count is stored into both columns at once.
 * NHWC non-overlapping average backward with alpha 1, beta 0 stores each dx pixel's one
 * quotient in float (correctly rounded: the double quotient's float rounding), same bits:
 * 2x2 stride 2 and 3x3 stride 3 pad 1 (counts 9, 6, 4), dy with -0 (must give +0).
 * NCHW 3x3 stride-2 pad-1 max forward on even W with contiguous rows takes the plane as one
 * stream of rows (pf_rowmax_plane: W 6, 64, 70, 100; W 6 puts several row starts in one
 * vector), same bits.
 * NHWC 2-d forward streams the input rows (row maxima / running double sums in a ring): bands
 * of output rows (the big shape), channel chunks narrower than C (the wide shape), same bits.
 * The f32 AVX2 NHWC paths (src/cpu/pool_avx2_nhwc.c; on CPUs without AVX-512 in the parent, and
 * in the FREEDNN_CPU_ISA=avx2 child everywhere) run the same cases: the max modes and the
 * averages of stride > 1 along W keep the ref's bits, the box rows (stride 1 along W) sum in
 * float and are held to the bound above in the avx2 child too (float_paths); only the generic
 * child expects bits everywhere. box_layouts runs in the parent and in the avx2 child (the AVX2
 * NCHW box rows of pool_avx2_nchw.c against the AVX2 NHWC ones: the same bits, a non-finite
 * lane recomputed alone in both); it compares NCHW with NHWC only where NCHW did not give the
 * ref's bits (NCHW on the double blocks).
 * The fused 3-wide stride-2 max rows of pool_avx2_nchw.c (s2k3_rows, s2k3_stream; parent and
 * avx2 child) keep the ref's bits: rows of 1 to 113 columns, pads 0 to 2, window heights 2 to 4
 * at row strides 1 to 3, both NaN options and max modes, alpha / beta both ways, ties, one and
 * three planes; and the streamed dx rows on 64-byte aligned buffers over FD_CPU_NT_MIN.
 * The in-place average forward of pool_avx2_nhwc.c (pa_fwd_avg: NHWC averages that are not box
 * rows, windows of at most 16 taps) keeps the ref's bits; favg_bits holds it to them wherever
 * the AVX-512 paths do not run (parent on AVX2-only CPUs, avx2 and generic children) on x with
 * +-2^60 terms (sums whose value depends on the tap order), tiny, near-FLT_MAX and special
 * values: rows of 1 to 113 pixels, C 1 to 70, gaps after the pixels, pads, ceil mode, 1 to 20
 * taps, alpha / beta both ways, and its streamed rows (y over FD_CPU_NT_MIN).
 */
#define _GNU_SOURCE
#include <float.h>
#include <unistd.h>

#include "memops_case.h"
#include "pool_bound.h"

/* Tie-heavy values with signed zeros, the lowest finite float and specials. */
static void fill_max(cudnnDataType_t dt, void *p, size_t n, int specials)
{
    for (size_t i = 0; i < n; i++) {
        double u = urand(), v = floor(urand() * 4) - 2;
        if (u < 0.05)
            v = -0.0;
        else if (u < 0.08 && dt == CUDNN_DATA_FLOAT)
            v = -FLT_MAX;
        else if (specials && u < 0.11)
            v = u < 0.09 ? NAN : (u < 0.10 ? INFINITY : -INFINITY);
        put(dt, p, i, v);
    }
}

/* dy for the max backward sums: signed zeros (a dx element taking -0 twice must still be
 * +0: the sums start at +0.0), values 2^40 and 2^-40 apart (two-term sums that round) and
 * reals. */
static void fill_dy(cudnnDataType_t dt, void *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double u = urand(), v = urand() * 8 - 4;
        if (u < 0.25)
            v = -0.0;
        else if (u < 0.35)
            v = 0.0;
        else if (u < 0.5)
            v = (urand() - 0.5) * 0x1p40;
        else if (u < 0.65)
            v = (urand() - 0.5) * 0x1p-40;
        put(dt, p, i, v);
    }
}

/* x for the averages' double sums: reals, signed zeros, values 2^-140 (subnormal in float),
 * +-2^60 times 1 to 1.75 (a window's double sum then depends on the order of its taps:
 * (2^60 + 1) - 2^60 is 0, (2^60 - 2^60) + 1 is 1), values near FLT_MAX (sums over FLT_MAX:
 * float overflows, double does not), and with specials +-inf and NaN. */
static void fill_avg(cudnnDataType_t dt, void *p, size_t n, int specials)
{
    for (size_t i = 0; i < n; i++) {
        double u = urand(), v = urand() * 8 - 4;
        const double sign = urand() < 0.5 ? -1 : 1;
        if (u < 0.05)
            v = -0.0;
        else if (u < 0.1)
            v = (urand() - 0.5) * 0x1p-139;
        else if (u < 0.35)
            v = sign * (1 + floor(urand() * 4) / 4) * 0x1p60;
        else if (u < 0.42)
            v = sign * (1 - urand() * 0.25) * FLT_MAX;
        else if (specials && u < 0.44)
            v = u < 0.43 ? NAN : (urand() < 0.5 ? INFINITY : -INFINITY);
        put(dt, p, i, v);
    }
}

typedef struct {
    int nsp, win[3], pad[3], str[3];
    int ceil; /* 1: y has the ceil-mode size */
} geom_t;

/* 1 when the float sums may run: on the AVX-512 paths (no FREEDNN_CPU_ISA) and on the AVX2
 * NHWC box rows (pool_avx2_nhwc.c: also with FREEDNN_CPU_ISA=avx2, and on CPUs without
 * AVX-512); only FREEDNN_CPU_ISA=generic keeps every path on the ref's bits. */
static int float_paths(void)
{
    const char *isa = getenv("FREEDNN_CPU_ISA");
    return !isa || strcmp(isa, "generic") != 0;
}

/* 1 when the case may take the float box rows (see the header). */
static int box_case(cudnnDataType_t dt, const geom_t *g, cudnnPoolingMode_t mode)
{
    return dt == CUDNN_DATA_FLOAT && g->nsp == 2 && g->str[1] == 1 &&
           (mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ||
            mode == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING) &&
           float_paths();
}

/* 1 when the forward case may sum in float (every FLOAT average on the AVX-512 paths: the box
 * rows, lanes along W of any stride and the NHWC streamed rows; see the header). */
static int fwd_float_case(cudnnDataType_t dt, cudnnPoolingMode_t mode)
{
    return dt == CUDNN_DATA_FLOAT &&
           (mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ||
            mode == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING) &&
           float_paths();
}

enum {
    F_MAX,
    F_INT,
    F_REAL,
    F_DY,
    F_SPEC,
    F_AVG,
    F_AVGS
}; /* F_DY: fill_max's x (no NaN), fill_dy's dy;
    * F_SPEC: fill_max with specials for x and dy;
    * F_AVG / F_AVGS: fill_avg's x (F_AVGS: with specials), fill_dy's dy */

/* The two average modes (cudnnPoolingMode_t 1 and 2). */
static const cudnnPoolingMode_t avg_modes[2] = {CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                                CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING};

/* 1 while favg_bits runs: the forward is held to the ref's bits on every fill. */
static int fwd_bits;
enum { LX_NCHW, LX_NHWC, LX_PADDED, LX_NHWC_GAP, LX_WSTRIDE2 };
static const char *lx_name[] = {"nchw", "nhwc", "padded", "nhwc-gap", "w-stride-2"};

/* Shapes of make_shape plus two: NHWC with 5 unused elements per pixel, and NCHW with every
 * other W element unused (no unit stride for C or W). */
static shape_t shape_of(int nb, const int *dim, int lx)
{
    if (lx <= LX_PADDED)
        return make_shape(nb, dim, (layout_t)lx);
    shape_t s = {nb, {0}, {0}, 0};
    memcpy(s.dim, dim, sizeof(int) * (size_t)nb);
    int acc;
    if (lx == LX_NHWC_GAP) {
        s.str[1] = 1, acc = dim[1] + 5;
        for (int d = nb - 1; d >= 2; d--)
            s.str[d] = acc, acc *= dim[d];
        s.str[0] = acc;
    } else {
        acc = 2;
        for (int d = nb - 1; d >= 0; d--)
            s.str[d] = acc, acc *= dim[d];
    }
    size_t ext = 1;
    for (int d = 0; d < nb; d++)
        ext += (size_t)(dim[d] - 1) * (size_t)s.str[d];
    s.extent = ext;
    return s;
}

static void one(int nb, const int *xdim, int lx, cudnnDataType_t dt, const geom_t *g,
                cudnnPoolingMode_t mode, cudnnNanPropagation_t nan, double alpha, double beta,
                int fillkind)
{
    char what[320];
    int ydim[5];
    ydim[0] = xdim[0], ydim[1] = xdim[1];
    for (int d = 0; d < g->nsp; d++) {
        /* ceil mode: the extra window must start inside the readable input (src/api/pooling.c) */
        int in = xdim[2 + d], pad = g->pad[d], span = in + 2 * pad - g->win[d];
        int fl = span / g->str[d] + 1, hi = pad < 0 ? in + pad : in;
        ydim[2 + d] = g->ceil && span % g->str[d] != 0 && fl * g->str[d] - pad < hi ? fl + 1 : fl;
    }
    shape_t xs = shape_of(nb, xdim, lx), ys = shape_of(nb, ydim, lx);
    cudnnPoolingDescriptor_t pd;
    CHECK(cudnnCreatePoolingDescriptor(&pd));
    CHECK(cudnnSetPoolingNdDescriptor(pd, mode, nan, g->nsp, g->win, g->pad, g->str));
    cudnnTensorDescriptor_t xd = desc_of(&xs, dt), yd = desc_of(&ys, dt);
    size_t xb = xs.extent * dt_size(dt), yb = ys.extent * dt_size(dt);
    void *x = malloc(xb), *dy = malloc(yb), *y = malloc(yb), *xc = malloc(xb);
    if (fillkind == F_MAX || fillkind == F_DY || fillkind == F_SPEC)
        fill_max(dt, x, xs.extent, fillkind != F_DY);
    else if (fillkind == F_AVG || fillkind == F_AVGS)
        fill_avg(dt, x, xs.extent, fillkind == F_AVGS);
    else
        fill(dt, x, xs.extent, fillkind == F_INT, 0);
    if (fillkind == F_DY || fillkind == F_AVG || fillkind == F_AVGS)
        fill_dy(dt, dy, ys.extent);
    else if (fillkind == F_SPEC)
        fill_max(dt, dy, ys.extent, 1);
    else
        fill(dt, dy, ys.extent, fillkind != F_REAL, 0);
    memcpy(xc, x, xb);
    unsigned char a8[8], b8[8];
    scal(dt, alpha, a8), scal(dt, beta, b8);
    cur_dt = dt;
    snprintf(what, sizeof what,
             "pool fwd mode %d nan %d %s %s x %dx%dx%dx%d%s%d %dd win %d,%d pad %d,%d str %d,%d%s "
             "a %g b %g fill %d",
             (int)mode, (int)nan, dt_name(dt), lx_name[lx], xdim[0], xdim[1], xdim[2],
             nb > 3 ? xdim[3] : 1, nb > 4 ? "x" : "", nb > 4 ? xdim[4] : 0, g->nsp, g->win[0],
             g->win[g->nsp - 1], g->pad[0], g->pad[g->nsp - 1], g->str[0], g->str[g->nsp - 1],
             g->ceil ? " ceil" : "", alpha, beta, fillkind);
    outbuf_t o;
    out_init(&o, dt, ys.extent, beta, 1);
    for (int r = 0; r < 3; r++)
        CHECK(cudnnPoolingForward(run_handle(r), pd, a8, xd, x, b8, yd, o.out[r]));
    memcpy(y, o.out[0], yb);
    const int box = box_case(dt, g, mode), k = pool_bound_k(g->nsp, g->win);
    if (fwd_float_case(dt, mode) && fillkind != F_INT && !fwd_bits) {
        float *mag = magnitudes(pd, xd, yd, x, y, dy, xs.extent, ys.extent, 0);
        box_check(&o, mag, k, alpha, beta, what);
        free(mag);
    } else {
        out_check(&o, what);
    }
    outbuf_t gx;
    out_init(&gx, dt, xs.extent, beta, 1);
    for (int r = 0; r < 3; r++)
        CHECK(cudnnPoolingBackward(run_handle(r), pd, a8, yd, y, yd, dy, xd, x, b8, xd, gx.out[r]));
    memcpy(what + 5, "bwd", 3);
    if (box) {
        float *mag = magnitudes(pd, xd, yd, x, y, dy, xs.extent, ys.extent, 1);
        box_check(&gx, mag, k, alpha, beta, what);
        free(mag);
    } else {
        out_check(&gx, what);
    }
    if (memcmp(x, xc, xb) != 0) {
        failures++;
        fprintf(stderr, "FAIL %s: x changed\n", what);
    }
    free(x), free(dy), free(y), free(xc);
    cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyPoolingDescriptor(pd);
}

/* Every mode and NaN option of one shape, layout and geometry. */
static void modes(int nb, const int *xdim, int lx, cudnnDataType_t dt, const geom_t *g, int turn)
{
    static const double ab[2][2] = {{1.0, 0.0}, {0.5, 0.25}};
    for (int m = 0; m < 4; m++)
        for (int nan = 0; nan < 2; nan++) {
            if (m >= 2 && nan == 1)
                continue; /* the NaN option matters to the max modes only */
            const int k = (turn + m + nan) % 2;
            if (m < 2) {
                one(nb, xdim, lx, dt, g, (cudnnPoolingMode_t)m, (cudnnNanPropagation_t)nan,
                    ab[k][0], ab[k][1], F_MAX);
                one(nb, xdim, lx, dt, g, (cudnnPoolingMode_t)m, (cudnnNanPropagation_t)nan,
                    ab[1 - k][0], ab[1 - k][1], F_REAL);
            } else {
                one(nb, xdim, lx, dt, g, (cudnnPoolingMode_t)m, (cudnnNanPropagation_t)nan,
                    ab[k][0], ab[k][1], F_INT);
                one(nb, xdim, lx, dt, g, (cudnnPoolingMode_t)m, (cudnnNanPropagation_t)nan,
                    ab[1 - k][0], ab[1 - k][1], F_REAL);
            }
        }
}

/* The float box rows (stride-1 FLOAT averages) give the same bits in NCHW and NHWC (the
 * pooling_cpu.c header: each output's operations are those of either layout, whatever the
 * split), which the bound of box_check cannot see: NCHW's fused rows (pf_box_bwd_row3: 3 x 3,
 * pad 1, alpha 1, beta 0) and general rows against NHWC's, backward and forward, on real fills
 * with a few +-inf / NaN (the ref's lanes), W from under a vector to 112; C 8 and 16 for
 * NHWC's whole-vector rows (pa_box_fwd's unrolled three-tap row sums). */
static void box_layouts(void)
{
    const int shp[][4] = {{2, 3, 5, 13}, {1, 2, 9, 37}, {1, 2, 7, 112},
                          {2, 1, 4, 16}, {1, 8, 6, 29}, {2, 16, 4, 64}};
    const geom_t g3 = {2, {3, 3}, {1, 1}, {1, 1}, 0}, g5 = {2, {5, 5}, {2, 2}, {1, 1}, 0};
    const double ab[2][2] = {{1.0, 0.0}, {0.5, 0.25}};
    for (int si = 0; si < 6; si++)
        for (int gi = 0; gi < 2; gi++)
            for (int mi = 0; mi < 2; mi++)
                for (int k = 0; k < 2; k++)
                    for (int sp = 0; sp < 2; sp++) {
                        const cudnnPoolingMode_t m = avg_modes[mi];
                        const int *d = shp[si];
                        const geom_t *g = gi ? &g5 : &g3;
                        const size_t ne = (size_t)d[0] * d[1] * d[2] * d[3];
                        cudnnPoolingDescriptor_t pd;
                        CHECK(cudnnCreatePoolingDescriptor(&pd));
                        CHECK(cudnnSetPoolingNdDescriptor(pd, m, CUDNN_NOT_PROPAGATE_NAN, 2, g->win,
                                                          g->pad, g->str));
                        float *buf[2][4]; /* per layout: x, y, dy, dx */
                        float *rf[4] = {NULL, NULL, NULL, NULL}; /* ref's y, dx (NCHW) */
                        shape_t xs[2];
                        float *lx0 = malloc(ne * 4), *ld0 = malloc(ne * 4), *lo0 = malloc(ne * 4);
                        fill(CUDNN_DATA_FLOAT, lx0, ne, 0, sp); /* logical NCHW order */
                        fill(CUDNN_DATA_FLOAT, ld0, ne, 0, sp);
                        fill(CUDNN_DATA_FLOAT, lo0, ne, 0, 0);
                        float a32 = (float)ab[k][0], b32 = (float)ab[k][1];
                        for (int l = 0; l < 2; l++) {
                            xs[l] = make_shape(4, d, (layout_t)l);
                            cudnnTensorDescriptor_t td = desc_of(&xs[l], CUDNN_DATA_FLOAT);
                            for (int b = 0; b < 4; b++)
                                buf[l][b] = calloc(xs[l].extent, 4);
                            for (size_t i = 0; i < ne; i++) {
                                const size_t o = canon_off(&xs[l], i);
                                buf[l][0][o] = lx0[i], buf[l][2][o] = ld0[i];
                                buf[l][1][o] = buf[l][3][o] = lo0[i];
                            }
                            set_threads(1);
                            CHECK(cudnnPoolingForward(h_cpu, pd, &a32, td, buf[l][0], &b32, td,
                                                      buf[l][1]));
                            CHECK(cudnnPoolingBackward(h_cpu, pd, &a32, td, buf[l][1], td,
                                                       buf[l][2], td, buf[l][0], &b32, td,
                                                       buf[l][3]));
                            for (int b = 1; l == 0 && b < 4; b += 2) {
                                rf[b] = malloc(xs[0].extent * 4);
                                for (size_t i = 0; i < ne; i++)
                                    rf[b][canon_off(&xs[0], i)] = lo0[i];
                            }
                            if (l == 0) {
                                CHECK(cudnnPoolingForward(h_ref, pd, &a32, td, buf[0][0], &b32, td,
                                                          rf[1]));
                                CHECK(cudnnPoolingBackward(h_ref, pd, &a32, td, buf[0][1], td,
                                                           buf[0][2], td, buf[0][0], &b32, td,
                                                           rf[3]));
                            }
                            cudnnDestroyTensorDescriptor(td);
                        }
                        cases++;
                        /* NCHW with the ref's bits took an exact path (an AVX2-only CPU without
                         * float box rows along W): the bound of the main cases holds NHWC */
                        for (int b = 1; b < 4; b += 2)
                            for (size_t i = 0, skip = same_bits(CUDNN_DATA_FLOAT, buf[0][b], rf[b],
                                                                xs[0].extent * 4);
                                 !skip && i < ne; i++) {
                                const float u = buf[0][b][canon_off(&xs[0], i)],
                                            v = buf[1][b][canon_off(&xs[1], i)];
                                if (memcmp(&u, &v, 4) != 0 && !(u != u && v != v)) {
                                    failures++;
                                    fprintf(stderr,
                                            "FAIL box rows %s mode %d [%d %d %d %d] win %d a %g "
                                            "b %g specials %d: element %zu nchw %.9g nhwc %.9g\n",
                                            b == 1 ? "fwd" : "bwd", (int)m, d[0], d[1], d[2], d[3],
                                            g->win[0], ab[k][0], ab[k][1], sp, i, u, v);
                                    break;
                                }
                            }
                        for (int l = 0; l < 2; l++)
                            for (int b = 0; b < 4; b++)
                                free(buf[l][b]);
                        free(lx0), free(ld0), free(lo0), free(rf[1]), free(rf[3]);
                        cudnnDestroyPoolingDescriptor(pd);
                    }
}

static void checks(void)
{
    const geom_t geoms[] = {
        {2, {3, 3}, {1, 1}, {2, 2}, 0},  /* the max benchmark's window */
        {2, {2, 2}, {0, 0}, {2, 2}, 0},  /* the average benchmark's window */
        {2, {3, 3}, {1, 1}, {1, 1}, 0},  /* overlapping, stride 1 */
        {2, {2, 3}, {0, 1}, {2, 1}, 1},  /* ceil mode */
        {2, {3, 2}, {-1, 0}, {1, 2}, 0}, /* crop */
        {2, {5, 4}, {2, 1}, {3, 2}, 1},  /* stride 3 (gathers), ceil */
        {2, {3, 7}, {1, 3}, {2, 3}, 1},  /* wide window, pad on both W borders */
        {2, {2, 3}, {1, 2}, {1, 2}, 1},  /* pad larger than half the window */
        {2, {7, 15}, {3, 6}, {5, 9}, 1}, /* window larger than the input */
        {2, {5, 5}, {2, 2}, {1, 1}, 0},  /* stride-1 averages: wider box, pad 2 */
        {2, {3, 3}, {0, 0}, {2, 1}, 1},  /* stride 1 along W only, no pad, ceil */
        {2, {3, 5}, {1, 2}, {2, 2}, 0},  /* max backward stride 2: kw 5 (3 windows a column) */
        {2, {2, 2}, {0, 0}, {2, 2}, 1},  /* max backward stride 2: kw 2, ceil */
        {2, {4, 4}, {1, 3}, {3, 2}, 0},  /* max backward stride 2: even kw, pw = kw - 1 */
        {2, {3, 3}, {1, 1}, {3, 3}, 1},  /* non-overlapping, counts 9, 6, 4 (NHWC backward) */
    };
    const int ng = (int)(sizeof geoms / sizeof *geoms);
    const int shapes[][4] = {
        {2, 3, 9, 11}, {1, 17, 7, 37}, {1, 2, 6, 53}, {2, 70, 5, 6}, {1, 1, 10, 100}};
    int turn = 0;
    for (int lx = 0; lx < 5; lx++)
        for (int gi = 0; gi < ng; gi++)
            for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++, turn++)
                modes(4, shapes[si], lx, CUDNN_DATA_FLOAT, &geoms[gi], turn);
    /* other dtypes keep the double blocks; a few for the dispatch around the fast path */
    const cudnnDataType_t others[] = {CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    for (int di = 0; di < 3; di++)
        for (int lx = 0; lx < 2; lx++)
            modes(4, shapes[1], lx, others[di], &geoms[0], turn++);
    /* 1-d and 3-d */
    const geom_t g1 = {1, {3}, {1}, {2}, 1}, g3 = {3, {2, 3, 2}, {0, 1, 1}, {2, 2, 1}, 1};
    const int x3[3] = {2, 19, 45}, x5[5] = {2, 18, 5, 6, 21};
    for (int lx = 0; lx < 5; lx++) {
        modes(3, x3, lx, CUDNN_DATA_FLOAT, &g1, turn++);
        modes(5, x5, lx, CUDNN_DATA_FLOAT, &g3, turn++);
    }
    /* NCHW max backward with stride 2: the float sums of rows with one window row (kw 3,
     * alpha 1, beta 0) and the double ones, on dy with signed zeros and sums that round; the
     * forward's row maxima on the same x; 2x2 stride-2 average backward (dy / count stored
     * twice) on the same dy */
    const geom_t gm[] = {{2, {3, 3}, {1, 1}, {2, 2}, 0},
                         {2, {3, 3}, {0, 2}, {2, 2}, 1},
                         {2, {3, 3}, {2, 0}, {3, 2}, 1},
                         {2, {2, 2}, {0, 0}, {2, 2}, 1}};
    /* (the last: 160 rows of 113 floats, so masked row ends fall across pages, which the
     * paths store lane by lane: pf_mstore_ps) */
    const int ms[][4] = {{2, 3, 13, 47}, {1, 5, 8, 64}, {1, 2, 9, 97}, {1, 4, 40, 113}};
    for (int lx = 0; lx < 3; lx++) /* NHWC too: non-overlapping average backward's -0 dy */
        for (int gi = 0; gi < 4; gi++)
            for (int si = 0; si < 4; si++)
                for (int m = 0; m < 4; m++)
                    for (int nan = 0; nan < (m < 2 ? 2 : 1); nan++) {
                        one(4, ms[si], lx, CUDNN_DATA_FLOAT, &gm[gi], (cudnnPoolingMode_t)m,
                            (cudnnNanPropagation_t)nan, 1.0, 0.0, F_DY);
                        one(4, ms[si], lx, CUDNN_DATA_FLOAT, &gm[gi], (cudnnPoolingMode_t)m,
                            (cudnnNanPropagation_t)nan, 0.5, 0.25, F_DY);
                    }
    /* NHWC forward with the input rows streamed: rings too small for all 100 channels, so
     * channel chunks with a partial last vector; the box rows (stride 1) in column strips
     * narrower than the row; pixels with and without a gap */
    const int wide[4] = {1, 100, 9, 121};
    for (int lx = 1; lx < 4; lx += 2)
        for (int gi = 0; gi < 3; gi++)
            modes(4, wide, lx, CUDNN_DATA_FLOAT, &geoms[gi], turn++);
    /* C a multiple of 8 (the AVX2 NHWC paths' whole-vector rows: box rows of three window rows
     * in one pass with one non-finite test per row, gathers without channel tails), every mode,
     * x and dy with +-inf / NaN (the ref's formula on those lanes) and fill_dy's dy */
    const int c8[4] = {2, 24, 9, 13};
    for (int lx = 1; lx < 4; lx += 2)
        for (int gi = 0; gi < 3; gi++) {
            modes(4, c8, lx, CUDNN_DATA_FLOAT, &geoms[gi], turn++);
            for (int m = 0; m < 4; m++)
                for (int f = F_DY; f <= F_SPEC; f++) {
                    one(4, c8, lx, CUDNN_DATA_FLOAT, &geoms[gi], (cudnnPoolingMode_t)m,
                        CUDNN_PROPAGATE_NAN, 1.0, 0.0, f);
                    one(4, c8, lx, CUDNN_DATA_FLOAT, &geoms[gi], (cudnnPoolingMode_t)m,
                        CUDNN_NOT_PROPAGATE_NAN, 0.5, 0.25, f);
                }
        }
    /* dx above FD_CPU_NT_MIN (16 MiB) with beta 0: streamed dx rows (pf_stream), NCHW and
     * NHWC, fills with inf / NaN (the ref's formula on those lanes after the stream); the
     * 2x2 stride-2 average with alpha 1 (NCHW: pf_bwd_w_avg1's duplicated rows) */
    const int huge[4] = {2, 64, 130, 260};
#ifdef __SANITIZE_ADDRESS__
    const int huge_layouts = 1; /* NCHW only under AddressSanitizer (time: see main) */
#else
    const int huge_layouts = 2;
#endif
    for (int lx = 0; lx < huge_layouts && !getenv("FREEDNN_CPU_ISA"); lx++)
        for (int gi = 0; gi < 3; gi += 2) { /* 3x3 stride-2 max, 3x3 stride-1 average */
            const cudnnPoolingMode_t m =
                gi == 0 ? CUDNN_POOLING_MAX : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
            one(4, huge, lx, CUDNN_DATA_FLOAT, &geoms[gi], m, CUDNN_NOT_PROPAGATE_NAN, 1.0, 0.0,
                F_MAX);
            one(4, huge, lx, CUDNN_DATA_FLOAT, &geoms[gi], m, CUDNN_NOT_PROPAGATE_NAN, 0.5, 0.0,
                F_REAL);
        }
    for (int lx = 0; lx < huge_layouts && !getenv("FREEDNN_CPU_ISA"); lx++)
        one(4, huge, lx, CUDNN_DATA_FLOAT, &geoms[1], CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
            CUDNN_NOT_PROPAGATE_NAN, 1.0, 0.0, F_MAX);
    /* NCHW stride-1 averages with alpha 1 and finite fills: y and dx rows through the stage
     * (pf_box_row3, pf_box_bwd_row3 / pf_box_sum3; the border rows in place), and with 2 x 3
     * windows 3 rows apart (every third dx row without windows: zeros through the stage) */
    const geom_t gap3 = {2, {2, 3}, {0, 1}, {3, 1}, 0};
    if (!getenv("FREEDNN_CPU_ISA")) {
        one(4, huge, LX_NCHW, CUDNN_DATA_FLOAT, &geoms[2],
            CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN, 1.0, 0.0, F_REAL);
        one(4, huge, LX_NCHW, CUDNN_DATA_FLOAT, &gap3, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
            CUDNN_NOT_PROPAGATE_NAN, 1.0, 0.0, F_REAL);
    }
    /* above the threading threshold, several units per thread */
    const int big[4] = {2, 32, 66, 70}, bigw[4] = {1, 4, 130, 600};
    for (int lx = 0; lx < 2; lx++) {
        modes(4, big, lx, CUDNN_DATA_FLOAT, &geoms[0], turn++);
        modes(4, big, lx, CUDNN_DATA_FLOAT, &geoms[1], turn++);
        modes(4, bigw, lx, CUDNN_DATA_FLOAT, &geoms[2], turn++);
    }
}

/* A dx element that four windows share (3x3 / 2 pad 1 max: odd row and column), its dy terms
 * chosen so that the double sum depends on their order: the ref's window order (output rows,
 * then columns, ascending) gives ((2^60 + 1) - 2^60) + 0.5 = 0.5 in double, any other order of
 * the rows' terms 1.5 or 1. Hand-computed: 0.5 there and +0 everywhere else (every other window
 * takes its first zero and has dy 0). Column 17 of 64 lies inside the whole vectors of the
 * AVX2 NCHW rows (the border vectors keep the general loop). */
static void max_sum_order(void)
{
    enum { H = 7, W = 64, OH = 4, OW = 32 };
    float x[H * W] = {0}, y[OH * OW], dy[OH * OW] = {0}, dx[H * W];
    x[3 * W + 17] = 1.0f;
    dy[1 * OW + 8] = 0x1p60f, dy[1 * OW + 9] = 1.0f, dy[2 * OW + 8] = -0x1p60f;
    dy[2 * OW + 9] = 0.5f;
    cudnnTensorDescriptor_t xd, yd;
    CHECK(cudnnCreateTensorDescriptor(&xd));
    CHECK(cudnnCreateTensorDescriptor(&yd));
    CHECK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, H, W));
    CHECK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, OH, OW));
    cudnnPoolingDescriptor_t pd;
    CHECK(cudnnCreatePoolingDescriptor(&pd));
    CHECK(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, 3, 1, 1, 2,
                                      2));
    const float one = 1.0f, zero = 0.0f;
    const cudnnHandle_t hs[2] = {h_ref, h_cpu};
    for (int k = 0; k < 2; k++) {
        CHECK(cudnnPoolingForward(hs[k], pd, &one, xd, x, &zero, yd, y));
        CHECK(cudnnPoolingBackward(hs[k], pd, &one, yd, y, yd, dy, xd, x, &zero, xd, dx));
        cases++;
        for (int i = 0; i < H * W; i++) {
            const float want = i == 3 * W + 17 ? 0.5f : 0.0f;
            if (memcmp(&dx[i], &want, sizeof want) != 0) {
                failures++;
                fprintf(stderr, "FAIL max_sum_order (%s): dx[%d] = %a, want %a\n",
                        k ? "cpu" : "ref", i, dx[i], want);
                break;
            }
        }
    }
    cudnnDestroyPoolingDescriptor(pd);
    cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd);
}

/* Windows whose taps are all -inf: the ref's maximum starts at -FLT_MAX and takes a tap only
 * when >= it, so y is -FLT_MAX (hand-computed), on the unrolled 3x3 / 2 rows of both layouts
 * (C 16: whole vectors along C for NHWC; W 40 for NCHW). */
static void max_all_ninf(void)
{
    enum { C = 16, H = 9, W = 40, OH = 5, OW = 20, NX = C * H * W, NY = C * OH * OW };
    static float x[NX], y[NY];
    for (int i = 0; i < NX; i++)
        x[i] = -INFINITY;
    cudnnPoolingDescriptor_t pd;
    CHECK(cudnnCreatePoolingDescriptor(&pd));
    CHECK(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, 3, 1, 1, 2,
                                      2));
    const float one = 1.0f, zero = 0.0f, want = -FLT_MAX;
    const cudnnTensorFormat_t fmt[2] = {CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC};
    for (int l = 0; l < 2; l++) {
        cudnnTensorDescriptor_t xd, yd;
        CHECK(cudnnCreateTensorDescriptor(&xd));
        CHECK(cudnnCreateTensorDescriptor(&yd));
        CHECK(cudnnSetTensor4dDescriptor(xd, fmt[l], CUDNN_DATA_FLOAT, 1, C, H, W));
        CHECK(cudnnSetTensor4dDescriptor(yd, fmt[l], CUDNN_DATA_FLOAT, 1, C, OH, OW));
        for (int k = 0; k < 2; k++) {
            CHECK(cudnnPoolingForward(k ? h_cpu : h_ref, pd, &one, xd, x, &zero, yd, y));
            cases++;
            for (int i = 0; i < NY; i++)
                if (memcmp(&y[i], &want, sizeof want) != 0) {
                    failures++;
                    fprintf(stderr, "FAIL max_all_ninf (%s, %s): y[%d] = %a, want -FLT_MAX\n",
                            l ? "nhwc" : "nchw", k ? "cpu" : "ref", i, y[i]);
                    break;
                }
        }
        cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd);
    }
    cudnnDestroyPoolingDescriptor(pd);
}

/* The fused 3-wide stride-2 max rows of pool_avx2_nchw.c (pa_fwd_max3s2 / pa_bwd_max3s2: FLOAT
 * NCHW without NaN propagation; forward with any alpha / beta, backward with alpha 1, beta 0 and
 * a dx row in at most two output rows; the other cases here take the earlier paths): rows of 1
 * to 113 columns (odd and even, under a vector, not a multiple of 8 or 16: masked border
 * vectors at both ends, dx rows ending inside a vector), pads 0 to 2 along W and H, ceil mode,
 * window heights 2 to 4 at row strides 1 to 3 (the steady three-row fold and the general one),
 * both max modes and NaN options, alpha / beta both ways, tie-heavy x with -0 / +0, -FLT_MAX,
 * +-inf and NaN, dy with signed zeros and two-term sums that round (F_DY), one plane and three
 * (fewer units than threads). Bits as ref, one and two threads. */
static void s2k3_rows(void)
{
    const int ws[] = {1, 2, 3, 7, 8, 15, 16, 17, 18, 31, 33, 34, 64, 113};
    const geom_t gs[] = {
        {2, {3, 3}, {1, 1}, {2, 2}, 0}, {2, {3, 3}, {0, 0}, {2, 2}, 0},
        {2, {3, 3}, {2, 2}, {2, 2}, 1}, {2, {3, 3}, {0, 1}, {2, 2}, 1},
        {2, {3, 3}, {1, 2}, {2, 2}, 0}, {2, {2, 3}, {1, 1}, {2, 2}, 0},
        {2, {4, 3}, {1, 1}, {2, 2}, 1}, {2, {3, 3}, {1, 1}, {1, 2}, 0},
        {2, {3, 3}, {1, 0}, {3, 2}, 0},
    };
    int turn = 0;
    for (size_t wi = 0; wi < sizeof ws / sizeof *ws; wi++)
        for (size_t gi = 0; gi < sizeof gs / sizeof *gs; gi++)
            for (int c = 1; c <= 3; c += 2, turn++) {
                const geom_t *g = &gs[gi];
                const int dim[4] = {1, c, 9 + turn % 2, ws[wi]};
                if (dim[3] + 2 * g->pad[1] < g->win[1] || dim[2] + 2 * g->pad[0] < g->win[0])
                    continue;
                const cudnnPoolingMode_t m =
                    turn % 2 ? CUDNN_POOLING_MAX_DETERMINISTIC : CUDNN_POOLING_MAX;
                for (int nan = 0; nan < 2; nan++) {
                    const cudnnNanPropagation_t np = (cudnnNanPropagation_t)nan;
                    one(4, dim, LX_NCHW, CUDNN_DATA_FLOAT, g, m, np, 1.0, 0.0, F_SPEC);
                    one(4, dim, LX_NCHW, CUDNN_DATA_FLOAT, g, m, np, 1.0, 0.0, F_DY);
                    one(4, dim, LX_NCHW, CUDNN_DATA_FLOAT, g, m, np, 0.5, 0.25, F_MAX);
                }
            }
}

/* FLOAT descriptors of one image in layout fmt: x C x H x W, y C x OH x OW. */
static void img_descs(cudnnTensorFormat_t fmt, int C, int H, int W, int OH, int OW,
                      cudnnTensorDescriptor_t *xd, cudnnTensorDescriptor_t *yd)
{
    CHECK(cudnnCreateTensorDescriptor(xd));
    CHECK(cudnnCreateTensorDescriptor(yd));
    CHECK(cudnnSetTensor4dDescriptor(*xd, fmt, CUDNN_DATA_FLOAT, 1, C, H, W));
    CHECK(cudnnSetTensor4dDescriptor(*yd, fmt, CUDNN_DATA_FLOAT, 1, C, OH, OW));
}

/* One case of n floats: the cpu's out[1] and out[2] (one and two threads) against the ref's
 * out[0], bit for bit. */
static void runs_check(float *const *out, size_t n, const char *what)
{
    cases++;
    for (int r = 1; r < 3; r++)
        if (!same_bits(CUDNN_DATA_FLOAT, out[0], out[r], n * 4)) {
            failures++;
            fprintf(stderr, "FAIL %s: cpu (%d thread%s) differs from ref\n", what, r,
                    r > 1 ? "s" : "");
        }
}

/* pa_bwd_max3s2's streamed dx rows (pa_bwd_nt: beta 0, dx over FD_CPU_NT_MIN, 64-byte aligned,
 * rows of whole lines): 3x3 / 2 pad 1 max backward, NCHW 1 x 130 x 128 x 256 in 64-byte
 * aligned buffers (one()'s malloc'd outputs of that size are not), against ref, one and two
 * threads. */
static void s2k3_stream(void)
{
    enum { C = 130, H = 128, W = 256, OH = 64, OW = 128 };
    const size_t nx = (size_t)C * H * W, ny = (size_t)C * OH * OW;
    float *x = aligned_alloc(64, nx * 4), *y = aligned_alloc(64, ny * 4);
    float *dy = aligned_alloc(64, ny * 4), *dx[3];
    for (int r = 0; r < 3; r++)
        dx[r] = aligned_alloc(64, nx * 4);
    fill_max(CUDNN_DATA_FLOAT, x, nx, 1);
    fill_dy(CUDNN_DATA_FLOAT, dy, ny);
    cudnnTensorDescriptor_t xd, yd;
    img_descs(CUDNN_TENSOR_NCHW, C, H, W, OH, OW, &xd, &yd);
    cudnnPoolingDescriptor_t pd;
    CHECK(cudnnCreatePoolingDescriptor(&pd));
    CHECK(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 3, 3, 1, 1, 2,
                                      2));
    const float one = 1.0f, zero = 0.0f;
    CHECK(cudnnPoolingForward(h_ref, pd, &one, xd, x, &zero, yd, y));
    for (int r = 0; r < 3; r++) {
        memset(dx[r], 0xff, nx * 4); /* NaN: beta 0 must not read it */
        CHECK(
            cudnnPoolingBackward(run_handle(r), pd, &one, yd, y, yd, dy, xd, x, &zero, xd, dx[r]));
    }
    runs_check(dx, nx, "s2k3_stream");
    cudnnDestroyPoolingDescriptor(pd);
    cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd);
    free(x), free(y), free(dy);
    for (int r = 0; r < 3; r++)
        free(dx[r]);
}

/* The in-place average forward of pool_avx2_nhwc.c (pa_fwd_avg: FLOAT NHWC averages, not the
 * box rows, at most 16 taps a window) and its streamed rows keep the ref's bits: held to them
 * where that path runs (the avx2 child; the parent on CPUs without AVX-512) and in the generic
 * child (double blocks). Rows of 1 to 113 pixels (odd, under a vector), C 1 to 70 (channel
 * tails), NHWC and NHWC with a gap after each pixel, 2x2 / 2 (with ceil mode and pads), 3x3 / 2
 * pad 1 and 3x3 / 3 pad 1 (counts 9, 6, 4), 4x4 (16 taps), 1x2, a stride-1 crop (negative pad:
 * not the box rows) and 5x4 (20 taps: the ring of double sums), both average modes, alpha / beta
 * (1, 0), (0.5, 0.25) and (2, 0); fill_avg's tiny, huge (sums over FLT_MAX) and special
 * values; then a 1x2 / (1, 2) case with y over FD_CPU_NT_MIN in 64-byte aligned buffers. One
 * and two threads. */
static void favg_bits(void)
{
    const int ws[] = {1, 2, 3, 7, 8, 9, 16, 17, 31, 56, 64, 112, 113};
    const int cs[] = {1, 3, 8, 13, 24, 70, 64};
    const geom_t gs[] = {
        {2, {2, 2}, {0, 0}, {2, 2}, 0}, {2, {2, 2}, {0, 0}, {2, 2}, 1},
        {2, {2, 2}, {1, 1}, {2, 2}, 1}, {2, {3, 3}, {1, 1}, {2, 2}, 0},
        {2, {3, 3}, {1, 1}, {3, 3}, 1}, {2, {4, 4}, {1, 2}, {4, 3}, 1},
        {2, {1, 2}, {0, 0}, {1, 2}, 0}, {2, {2, 3}, {0, -1}, {1, 1}, 0},
        {2, {5, 4}, {2, 1}, {3, 2}, 1},
    };
    const double ab[3][2] = {{1.0, 0.0}, {0.5, 0.25}, {2.0, 0.0}};
    int turn = 0;
    fwd_bits = 1;
    for (size_t wi = 0; wi < sizeof ws / sizeof *ws; wi++)
        for (size_t gi = 0; gi < sizeof gs / sizeof *gs; gi++)
            for (int lx = LX_NHWC; lx <= LX_NHWC_GAP; lx += LX_NHWC_GAP - LX_NHWC, turn++) {
                const geom_t *g = &gs[gi];
                const int dim[4] = {1 + turn % 2, cs[turn % 7], 5 + turn % 3, ws[wi]};
                if (dim[3] + 2 * g->pad[1] < g->win[1] || dim[2] + 2 * g->pad[0] < g->win[0])
                    continue;
                for (int m = 0; m < 2; m++)
                    for (int f = F_AVG; f <= F_AVGS; f++) {
                        const double *k = ab[(turn + m + f) % 3];
                        one(4, dim, lx, CUDNN_DATA_FLOAT, g, avg_modes[m], CUDNN_NOT_PROPAGATE_NAN,
                            k[0], k[1], f);
                    }
            }
    fwd_bits = 0;
    enum { C = 64, H = 256, W = 520, OW = 260 };
    const size_t nx = (size_t)C * H * W, ny = (size_t)C * H * OW;
    float *x = aligned_alloc(64, nx * 4), *y[3];
    fill_avg(CUDNN_DATA_FLOAT, x, nx, 1);
    cudnnTensorDescriptor_t xd, yd;
    img_descs(CUDNN_TENSOR_NHWC, C, H, W, H, OW, &xd, &yd);
    cudnnPoolingDescriptor_t pd;
    CHECK(cudnnCreatePoolingDescriptor(&pd));
    CHECK(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                      CUDNN_NOT_PROPAGATE_NAN, 1, 2, 0, 0, 1, 2));
    const float one = 1.0f, zero = 0.0f;
    for (int r = 0; r < 3; r++) {
        y[r] = aligned_alloc(64, ny * 4);
        memset(y[r], 0xff, ny * 4); /* NaN: beta 0 must not read it */
        CHECK(cudnnPoolingForward(run_handle(r), pd, &one, xd, x, &zero, yd, y[r]));
    }
    runs_check(y, ny, "favg_bits streamed rows");
    cudnnDestroyPoolingDescriptor(pd);
    cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd);
    free(x);
    for (int r = 0; r < 3; r++)
        free(y[r]);
}

/* 1 when the AVX-512 pooling paths may run here (FREEDNN_CPU_ISA unset on an AVX-512 CPU): their
 * average forward sums in float, so favg_bits leaves the parent to the bound there. */
static int avx512_paths(void)
{
#if defined(__GNUC__) && defined(__x86_64__)
    __builtin_cpu_init();
    return !getenv("FREEDNN_CPU_ISA") && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("bmi2");
#else
    return 0;
#endif
}

/* This program with --child, env prepended; 1 when it passed. */
static int child(const char *env)
{
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return 0;
    self[len] = '\0';
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "%s '%s' --child", env, self);
    return system(cmd) == 0;
}

int main(int argc, char **argv)
{
    const int is_child = argc > 1 && strcmp(argv[1], "--child") == 0;
    set_threads = (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    if (!set_threads) {
        fprintf(stderr, "omp_set_num_threads not found\n");
        return 1;
    }
    CHECK(freednnCreateWithBackend(&h_ref, FREEDNN_BACKEND_REF));
    CHECK(freednnCreateWithBackend(&h_cpu, FREEDNN_BACKEND_CPU));
    checks();
    max_sum_order();
    max_all_ninf();
    if (!avx512_paths())
        favg_bits();
    const char *isa = getenv("FREEDNN_CPU_ISA");
    if (!isa || strcmp(isa, "avx2") == 0) { /* the AVX2 box rows of both layouts too */
        box_layouts();
        s2k3_rows();
        s2k3_stream();
    }
    printf("test_cpu_pool_fast (%s): %d cases, %d failures; box rows: largest err / tolerance "
           "%.3g\n",
           isa ? isa : "default path", cases, failures, box_worst);
    fflush(stdout);
    /* The ISA children repeat every check on the avx2 and generic paths. Under AddressSanitizer
     * (make test's second build) they are left to the normal build, which runs them: the three
     * passes took more than ctest's 900 s there on a slow 2-core machine (2026-12-02, CI of a
     * clean clone: the default pass alone ran > 5 minutes). */
#ifdef __SANITIZE_ADDRESS__
    const int run_children = 0;
#else
    const int run_children = 1;
#endif
    if (!is_child && run_children) {
        if (!child("FREEDNN_CPU_ISA=avx2")) {
            failures++;
            fprintf(stderr, "FAIL the checks with FREEDNN_CPU_ISA=avx2\n");
        }
        if (!child("FREEDNN_CPU_ISA=generic")) {
            failures++;
            fprintf(stderr, "FAIL the checks with FREEDNN_CPU_ISA=generic\n");
        }
    }
    cudnnDestroy(h_ref);
    cudnnDestroy(h_cpu);
    return failures ? 1 : 0;
}
