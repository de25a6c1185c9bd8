/* SPDX-License-Identifier: MIT */
/*
 * spatial_tf_ref.c - reference spatial transformer: affine grid generator forward/backward and
 * bilinear sampler forward/backward (FD_OP_SPATIAL_TF_*), as defined in src/core/spatial_tf.h.
 *
 * Double accumulation, strided x/y/dx/dy (any layout), FLOAT/DOUBLE/HALF/BFLOAT16, no
 * workspace. Deterministic: the sampler's dx is the scatter of dy formulated as a gather -
 * for each tile of FD_STF_TILE input pixels a stack array of doubles collects, in a fixed
 * (output-pixel) order, every contribution landing in the tile, then each dx element is
 * written once (alpha/beta blend, beta == 0 never reads dx). Cost per (n, c): Ho*Wo per tile.
 */
#include <math.h>

#include "../core/spatial_tf.h"

#define FD_STF_TILE 1024 /* doubles of stack per dx tile */

static void blend_store(cudnnDataType_t dt, void *out, int64_t off, double alpha, double beta,
                        double acc)
{
    double v = alpha * acc;
    if (beta != 0.0)
        v += beta * fd_load(dt, out, off);
    fd_store(dt, out, off, v);
}

/* Normalised target coordinate of pixel i of an extent of `size`: -1 .. 1, 0 when size is 1. */
static double target_coord(int64_t i, int64_t size)
{
    return size > 1 ? -1.0 + 2.0 * (double)i / (double)(size - 1) : 0.0;
}

/* ---- grid generator ------------------------------------------------------------------------ */

int fd_spatial_tf_grid_fwd_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_spatial_tf_grid_fwd_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_spatial_tf_grid_fwd_ref_run(const void *problem, const void *args)
{
    const fd_stf_grid_problem_t *p = problem;
    const fd_stf_grid_args_t *a = args;
    for (int64_t n = 0; n < p->n; n++) {
        double th[6];
        for (int k = 0; k < 6; k++)
            th[k] = fd_load(p->dt, a->in, n * 6 + k);
        for (int64_t h = 0; h < p->h; h++) {
            double yt = target_coord(h, p->h);
            for (int64_t w = 0; w < p->w; w++) {
                double xt = target_coord(w, p->w);
                int64_t o = ((n * p->h + h) * p->w + w) * 2;
                fd_store(p->dt, a->out, o, th[0] * xt + th[1] * yt + th[2]);
                fd_store(p->dt, a->out, o + 1, th[3] * xt + th[4] * yt + th[5]);
            }
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

int fd_spatial_tf_grid_bwd_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_spatial_tf_grid_bwd_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

/* dtheta[n][i][j] = sum over (h, w) of dgrid[n, h, w, i] * (x_t, y_t, 1)[j]. */
cudnnStatus_t fd_spatial_tf_grid_bwd_ref_run(const void *problem, const void *args)
{
    const fd_stf_grid_problem_t *p = problem;
    const fd_stf_grid_args_t *a = args;
    for (int64_t n = 0; n < p->n; n++) {
        double acc[6] = {0, 0, 0, 0, 0, 0};
        for (int64_t h = 0; h < p->h; h++) {
            double yt = target_coord(h, p->h);
            for (int64_t w = 0; w < p->w; w++) {
                double xt = target_coord(w, p->w);
                int64_t o = ((n * p->h + h) * p->w + w) * 2;
                for (int i = 0; i < 2; i++) {
                    double g = fd_load(p->dt, a->in, o + i);
                    acc[i * 3 + 0] += g * xt;
                    acc[i * 3 + 1] += g * yt;
                    acc[i * 3 + 2] += g;
                }
            }
        }
        for (int k = 0; k < 6; k++)
            fd_store(p->dt, a->out, n * 6 + k, acc[k]);
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- sampler ------------------------------------------------------------------------------- */

/* Where grid point (n, h, w) reads x: corners x0 .. x0 + 1, y0 .. y0 + 1 with fractions fx, fy;
 * inside = 0 when no corner can be inside x (including non-finite coordinates). */
typedef struct {
    int inside;
    int64_t x0, y0;
    double fx, fy;
} fd_stf_point_t;

static fd_stf_point_t locate(const fd_stf_sampler_problem_t *p, const void *grid, int64_t n,
                             int64_t h, int64_t w)
{
    fd_stf_point_t pt = {0, 0, 0, 0.0, 0.0};
    int64_t g = ((n * p->ho + h) * p->wo + w) * 2;
    double ix = (fd_load(p->dt, grid, g) + 1.0) * (double)(p->wi - 1) * 0.5;
    double iy = (fd_load(p->dt, grid, g + 1) + 1.0) * (double)(p->hi - 1) * 0.5;
    /* beyond these bounds both corners of a dim are outside; NaN fails the comparisons */
    if (!(ix >= -1.0 && ix < (double)p->wi && iy >= -1.0 && iy < (double)p->hi))
        return pt;
    double fx0 = floor(ix), fy0 = floor(iy);
    pt.inside = 1;
    pt.x0 = (int64_t)fx0, pt.y0 = (int64_t)fy0;
    pt.fx = ix - fx0, pt.fy = iy - fy0;
    return pt;
}

/* x[n, c, yy, xx], 0 outside. */
static double pixel(const fd_stf_sampler_problem_t *p, const void *x, int64_t n, int64_t c,
                    int64_t yy, int64_t xx)
{
    if (yy < 0 || yy >= p->hi || xx < 0 || xx >= p->wi)
        return 0.0;
    return fd_load(p->dt, x, n * p->xs[0] + c * p->xs[1] + yy * p->xs[2] + xx * p->xs[3]);
}

int fd_spatial_tf_sampler_fwd_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_spatial_tf_sampler_fwd_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_spatial_tf_sampler_fwd_ref_run(const void *problem, const void *args)
{
    const fd_stf_sampler_problem_t *p = problem;
    const fd_stf_sampler_args_t *a = args;
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t h = 0; h < p->ho; h++)
            for (int64_t w = 0; w < p->wo; w++) {
                fd_stf_point_t pt = locate(p, a->grid, n, h, w);
                for (int64_t c = 0; c < p->c; c++) {
                    double v = 0.0;
                    if (pt.inside)
                        v = (1.0 - pt.fy) * ((1.0 - pt.fx) * pixel(p, a->x, n, c, pt.y0, pt.x0) +
                                             pt.fx * pixel(p, a->x, n, c, pt.y0, pt.x0 + 1)) +
                            pt.fy * ((1.0 - pt.fx) * pixel(p, a->x, n, c, pt.y0 + 1, pt.x0) +
                                     pt.fx * pixel(p, a->x, n, c, pt.y0 + 1, pt.x0 + 1));
                    int64_t yo = n * p->ys[0] + c * p->ys[1] + h * p->ys[2] + w * p->ys[3];
                    blend_store(p->dt, a->y, yo, a->alpha, a->beta, v);
                }
            }
    return CUDNN_STATUS_SUCCESS;
}

int fd_spatial_tf_sampler_bwd_ref_applicable(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1;
}

size_t fd_spatial_tf_sampler_bwd_ref_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

/* dgrid: per grid point, the derivative of the sample with respect to (gx, gy), summed over
 * channels against dy. */
static void sampler_bwd_grid(const fd_stf_sampler_problem_t *p, const fd_stf_sampler_args_t *a)
{
    double sx = (double)(p->wi - 1) * 0.5, sy = (double)(p->hi - 1) * 0.5;
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t h = 0; h < p->ho; h++)
            for (int64_t w = 0; w < p->wo; w++) {
                fd_stf_point_t pt = locate(p, a->grid, n, h, w);
                double gx = 0.0, gy = 0.0;
                if (pt.inside)
                    for (int64_t c = 0; c < p->c; c++) {
                        double d =
                            fd_load(p->dt, a->dy,
                                    n * p->ys[0] + c * p->ys[1] + h * p->ys[2] + w * p->ys[3]);
                        double v00 = pixel(p, a->x, n, c, pt.y0, pt.x0);
                        double v01 = pixel(p, a->x, n, c, pt.y0, pt.x0 + 1);
                        double v10 = pixel(p, a->x, n, c, pt.y0 + 1, pt.x0);
                        double v11 = pixel(p, a->x, n, c, pt.y0 + 1, pt.x0 + 1);
                        gx += d * ((1.0 - pt.fy) * (v01 - v00) + pt.fy * (v11 - v10));
                        gy += d * ((1.0 - pt.fx) * (v10 - v00) + pt.fx * (v11 - v01));
                    }
                int64_t o = ((n * p->ho + h) * p->wo + w) * 2;
                blend_store(p->dt, a->dgrid, o, a->alpha_dgrid, a->beta_dgrid, gx * sx);
                blend_store(p->dt, a->dgrid, o + 1, a->alpha_dgrid, a->beta_dgrid, gy * sy);
            }
}

/* dx: for each tile of input pixels of (n, c), gather the contributions of every grid point in
 * output order into doubles on the stack, then write the tile once. */
static void sampler_bwd_data(const fd_stf_sampler_problem_t *p, const fd_stf_sampler_args_t *a)
{
    const int64_t pixels = p->hi * p->wi;
    double acc[FD_STF_TILE];
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t c = 0; c < p->c; c++)
            for (int64_t t0 = 0; t0 < pixels; t0 += FD_STF_TILE) {
                int64_t len = pixels - t0 < FD_STF_TILE ? pixels - t0 : FD_STF_TILE;
                int64_t row_lo = t0 / p->wi, row_hi = (t0 + len - 1) / p->wi;
                for (int64_t k = 0; k < len; k++)
                    acc[k] = 0.0;
                for (int64_t h = 0; h < p->ho; h++)
                    for (int64_t w = 0; w < p->wo; w++) {
                        fd_stf_point_t pt = locate(p, a->grid, n, h, w);
                        if (!pt.inside || pt.y0 + 1 < row_lo || pt.y0 > row_hi)
                            continue;
                        double d =
                            fd_load(p->dt, a->dy,
                                    n * p->ys[0] + c * p->ys[1] + h * p->ys[2] + w * p->ys[3]);
                        for (int dy = 0; dy < 2; dy++)
                            for (int dx = 0; dx < 2; dx++) {
                                int64_t yy = pt.y0 + dy, xx = pt.x0 + dx;
                                if (yy < 0 || yy >= p->hi || xx < 0 || xx >= p->wi)
                                    continue;
                                int64_t k = yy * p->wi + xx - t0;
                                if (k < 0 || k >= len)
                                    continue;
                                double wy = dy ? pt.fy : 1.0 - pt.fy;
                                double wx = dx ? pt.fx : 1.0 - pt.fx;
                                acc[k] += wy * wx * d;
                            }
                    }
                for (int64_t k = 0; k < len; k++) {
                    int64_t yy = (t0 + k) / p->wi, xx = (t0 + k) % p->wi;
                    int64_t o = n * p->dxs[0] + c * p->dxs[1] + yy * p->dxs[2] + xx * p->dxs[3];
                    blend_store(p->dt, a->dx, o, a->alpha, a->beta, acc[k]);
                }
            }
}

cudnnStatus_t fd_spatial_tf_sampler_bwd_ref_run(const void *problem, const void *args)
{
    sampler_bwd_data(problem, args);
    sampler_bwd_grid(problem, args);
    return CUDNN_STATUS_SUCCESS;
}
