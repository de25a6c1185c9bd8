/* SPDX-License-Identifier: MIT */
/*
 * pooling_ref.c - reference pooling forward and backward (FD_OP_POOL_FWD / _BWD rows), every
 * mode (MAX, MAX_DETERMINISTIC, AVERAGE_COUNT_INCLUDE_PADDING, AVERAGE_COUNT_EXCLUDE_PADDING),
 * 1 to 3 spatial dims, any element strides, FLOAT, DOUBLE, HALF, BFLOAT16. No workspace.
 *
 * The window geometry and the value of each mode are defined in src/core/pooling.h. Both
 * directions are gathers: the backward pass walks the dx elements and, for each, the windows
 * that contain it, so there is no scatter and no race; MAX and MAX_DETERMINISTIC are the same
 * deterministic code. Max backward re-derives the argmax from x (y is not read): dy of a window
 * goes to the first position, in D, H, W order, that holds the window's maximum (with
 * PROPAGATE_NAN and a NaN in the window: the first NaN); a window whose result is only the
 * initial value (all NaN, all -inf, or padding only) routes nothing. Sums are in double.
 */
#include <float.h>

#include "../core/pooling.h"

int fd_pool_fwd_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1; /* the API entry admits only what the reference computes */
}

size_t fd_pool_fwd_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

int fd_pool_bwd_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_pool_bwd_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

#define NSP FD_POOL_SPATIAL_MAX

/* The start value of a max: the most negative finite value of the storage type. */
static double lowest_finite(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_DOUBLE:
        return -DBL_MAX;
    case CUDNN_DATA_HALF:
        return -65504.0;
    case CUDNN_DATA_BFLOAT16:
        return -0x1.fep127; /* 0xff7f */
    default:
        return -FLT_MAX;
    }
}

static int64_t floor_div(int64_t a, int64_t b) /* b > 0 */
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* The readable positions [lo, hi) of window o along dim d, and its count of window positions
 * inside the padded span [-pad, in + pad). The counts are doubles: a product of three extents
 * of up to 2^31 (huge paddings are legal) must not overflow. */
typedef struct {
    int64_t lo[NSP], hi[NSP];
    double readable, padded; /* products over the dims */
} window_t;

static void window_of(const fd_pool_problem_t *p, const int64_t *o, window_t *w)
{
    w->readable = 1;
    w->padded = 1;
    for (int d = 0; d < NSP; d++) {
        int64_t start = o[d] * p->stride[d] - p->pad[d], end = start + p->win[d];
        int64_t rlo = max64(0, -p->pad[d]), rhi = min64(p->in[d], p->in[d] + p->pad[d]);
        w->lo[d] = max64(start, rlo);
        w->hi[d] = min64(end, rhi);
        w->readable *= (double)max64(0, w->hi[d] - w->lo[d]);
        w->padded *= (double)max64(0, min64(end, p->in[d] + p->pad[d]) - max64(start, -p->pad[d]));
    }
}

static int64_t x_offset(const int64_t *s, int64_t n, int64_t c, const int64_t *i)
{
    return n * s[0] + c * s[1] + i[0] * s[2] + i[1] * s[3] + i[2] * s[4];
}

/* Max of window w of (n, c): returns the value (NaN, or the initial value when nothing beats
 * it) and the first position holding it in pos; *found = 0 when no position holds it. */
static double window_max(const fd_pool_problem_t *p, const void *x, int64_t n, int64_t c,
                         const window_t *w, int64_t *pos, int *found)
{
    double m = lowest_finite(p->dt);
    *found = 0;
    int64_t i[NSP];
    for (i[0] = w->lo[0]; i[0] < w->hi[0]; i[0]++)
        for (i[1] = w->lo[1]; i[1] < w->hi[1]; i[1]++)
            for (i[2] = w->lo[2]; i[2] < w->hi[2]; i[2]++) {
                double v = fd_load(p->dt, x, x_offset(p->xs, n, c, i));
                if (v != v) { /* NaN */
                    if (!p->propagate_nan)
                        continue; /* compares false: dropped */
                    for (int d = 0; d < NSP; d++)
                        pos[d] = i[d];
                    *found = 1;
                    return v;
                }
                if (*found ? v > m : v >= m) { /* strict after the first: first max wins */
                    m = v;
                    for (int d = 0; d < NSP; d++)
                        pos[d] = i[d];
                    *found = 1;
                }
            }
    return m;
}

static double window_sum(const fd_pool_problem_t *p, const void *x, int64_t n, int64_t c,
                         const window_t *w)
{
    double s = 0.0;
    int64_t i[NSP];
    for (i[0] = w->lo[0]; i[0] < w->hi[0]; i[0]++)
        for (i[1] = w->lo[1]; i[1] < w->hi[1]; i[1]++)
            for (i[2] = w->lo[2]; i[2] < w->hi[2]; i[2]++)
                s += fd_load(p->dt, x, x_offset(p->xs, n, c, i));
    return s;
}

static int is_max_mode(const fd_pool_problem_t *p)
{
    return p->mode == CUDNN_POOLING_MAX || p->mode == CUDNN_POOLING_MAX_DETERMINISTIC;
}

/* The divisor of an average window (0 only for an EXCLUDE window without input). */
static double window_count(const fd_pool_problem_t *p, const window_t *w)
{
    return p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? w->padded : w->readable;
}

/* Blend and store: beta == 0 never reads the old value (it may be NaN). */
static void blend_store(cudnnDataType_t dt, void *out, int64_t off, double alpha, double beta,
                        double v)
{
    double r = alpha * v;
    if (beta != 0.0)
        r += beta * fd_load(dt, out, off);
    fd_store(dt, out, off, r);
}

cudnnStatus_t fd_pool_fwd_ref_run(const void *problem, const void *args)
{
    const fd_pool_problem_t *p = problem;
    const fd_pool_args_t *a = args;
    int64_t o[NSP], pos[NSP];
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t c = 0; c < p->c; c++)
            for (o[0] = 0; o[0] < p->out[0]; o[0]++)
                for (o[1] = 0; o[1] < p->out[1]; o[1]++)
                    for (o[2] = 0; o[2] < p->out[2]; o[2]++) {
                        window_t w;
                        window_of(p, o, &w);
                        double v;
                        if (is_max_mode(p)) {
                            int found;
                            v = window_max(p, a->x, n, c, &w, pos, &found);
                        } else {
                            double cnt = window_count(p, &w);
                            v = cnt > 0 ? window_sum(p, a->x, n, c, &w) / cnt : 0.0;
                        }
                        blend_store(p->dt, a->out, x_offset(p->ys, n, c, o), a->alpha, a->beta, v);
                    }
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t fd_pool_bwd_ref_run(const void *problem, const void *args)
{
    const fd_pool_problem_t *p = problem;
    const fd_pool_args_t *a = args;
    int64_t i[NSP], o[NSP], olo[NSP], ohi[NSP], pos[NSP];
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t c = 0; c < p->c; c++)
            for (i[0] = 0; i[0] < p->in[0]; i[0]++)
                for (i[1] = 0; i[1] < p->in[1]; i[1]++)
                    for (i[2] = 0; i[2] < p->in[2]; i[2]++) {
                        /* windows o with o*stride - pad <= i < o*stride - pad + win; a cropped
                         * (unreadable) position belongs to none */
                        int empty = 0;
                        for (int d = 0; d < NSP; d++) {
                            int64_t rlo = max64(0, -p->pad[d]);
                            int64_t rhi = min64(p->in[d], p->in[d] + p->pad[d]);
                            olo[d] =
                                max64(0, floor_div(i[d] + p->pad[d] - p->win[d], p->stride[d]) + 1);
                            ohi[d] =
                                min64(p->out[d] - 1, floor_div(i[d] + p->pad[d], p->stride[d]));
                            if (i[d] < rlo || i[d] >= rhi || olo[d] > ohi[d])
                                empty = 1;
                        }
                        double acc = 0.0;
                        for (o[0] = olo[0]; !empty && o[0] <= ohi[0]; o[0]++)
                            for (o[1] = olo[1]; o[1] <= ohi[1]; o[1]++)
                                for (o[2] = olo[2]; o[2] <= ohi[2]; o[2]++) {
                                    window_t w;
                                    window_of(p, o, &w);
                                    double g = fd_load(p->dt, a->dy, x_offset(p->dys, n, c, o));
                                    if (is_max_mode(p)) {
                                        int found;
                                        window_max(p, a->x, n, c, &w, pos, &found);
                                        if (found && pos[0] == i[0] && pos[1] == i[1] &&
                                            pos[2] == i[2])
                                            acc += g;
                                    } else {
                                        acc += g / window_count(p, &w);
                                    }
                                }
                        blend_store(p->dt, a->out, x_offset(p->dxs, n, c, i), a->alpha, a->beta,
                                    acc);
                    }
    return CUDNN_STATUS_SUCCESS;
}
