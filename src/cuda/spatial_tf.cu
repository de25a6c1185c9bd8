/* SPDX-License-Identifier: MIT */
/*
 * spatial_tf.cu - the spatial transformer on the GPU (rows fd_spatial_tf_{grid_fwd, grid_bwd,
 * sampler_fwd, sampler_bwd}_cuda), with src/core/spatial_tf.h's conventions (align_corners =
 * True, zero outside x).
 *
 * All arithmetic in double with the ref's expressions and rounding (no contracted multiply-adds),
 * so coordinates, corner choices and summation orders are src/ref/spatial_tf_ref.c's: the
 * results agree with it to the last bit wherever the ref's own sums are in the same order.
 *   grid fwd      one thread per grid value.
 *   grid bwd      one block per sample: a fixed-order tree over the H W points (6 sums).
 *   sampler fwd   one thread per y element (c innermost when y is channels-last, so writes are
 *                 consecutive for NCHW and NHWC).
 *   sampler bwd   dgrid: one thread per grid point, channels summed in order. dx has no
 *                 workspace to build an index in (the API gives none), so it is a gather with
 *                 per-output ownership: a block owns a tile of 256 input pixels of one sample and
 *                 4 channels; it streams the sample's grid points through shared memory in
 *                 output order, skips every chunk whose rows miss the tile (for affine grids all
 *                 but a few), and each thread adds the contributions to its own pixel in output
 *                 order - the ref's order - then blends once. No atomics; deterministic. Worst
 *                 case (a grid that folds every point onto every tile) is Hi Wi Ho Wo per sample.
 * FLOAT, DOUBLE, HALF, BFLOAT16; any x / y / dx / dy strides; no workspace.
 */
#include <limits.h>
#include <stdio.h>

#include "misc_dev.cuh"
extern "C" {
#include "../core/spatial_tf.h"
}

#define STF_TILE FD_CUDA_BLOCK /* input pixels per sampler-backward block, one per thread */
#define STF_CPT 4              /* channels per sampler-backward block */

static __device__ __forceinline__ double target_coord(int64_t i, int64_t size)
{
    return size > 1 ? __dadd_rn(-1.0, __ddiv_rn(__dmul_rn(2.0, (double)i), (double)(size - 1)))
                    : 0.0;
}

/* ---- grid generator ------------------------------------------------------------------------ */

static __global__ void stf_grid_fwd(const fd_stf_grid_problem_t p, const void *theta, void *grid)
{
    const int64_t total = p.n * p.h * p.w * 2;
    FDM_FOR(e, total)
    {
        const int64_t i = e % 2, pt = e / 2, w = pt % p.w, h = (pt / p.w) % p.h, n = pt / (p.w * p.h);
        const double xt = target_coord(w, p.w), yt = target_coord(h, p.h);
        const int64_t t = n * 6 + i * 3;
        const double v = __dadd_rn(__dadd_rn(__dmul_rn(fdm_ld(p.dt, theta, t), xt),
                                             __dmul_rn(fdm_ld(p.dt, theta, t + 1), yt)),
                                   fdm_ld(p.dt, theta, t + 2));
        fdm_st(p.dt, grid, e, v);
    }
}

/* dtheta[n][i][j] = sum over points of dgrid[n, h, w, i] * (x_t, y_t, 1)[j]: thread j takes
 * points j, j + B, ... in order, then a fixed tree over the block. */
static __global__ void stf_grid_bwd(const fd_stf_grid_problem_t p, const void *dgrid, void *dtheta)
{
    __shared__ double part[6][FD_CUDA_BLOCK];
    const int tid = threadIdx.x;
    const int64_t pts = p.h * p.w;
    for (int64_t n = blockIdx.x; n < p.n; n += gridDim.x) {
        double acc[6] = {0, 0, 0, 0, 0, 0};
        for (int64_t j = tid; j < pts; j += FD_CUDA_BLOCK) {
            const double xt = target_coord(j % p.w, p.w), yt = target_coord(j / p.w, p.h);
            const int64_t o = (n * pts + j) * 2;
            for (int i = 0; i < 2; i++) {
                const double g = fdm_ld(p.dt, dgrid, o + i);
                acc[i * 3 + 0] = __dadd_rn(acc[i * 3 + 0], __dmul_rn(g, xt));
                acc[i * 3 + 1] = __dadd_rn(acc[i * 3 + 1], __dmul_rn(g, yt));
                acc[i * 3 + 2] = __dadd_rn(acc[i * 3 + 2], g);
            }
        }
        for (int k = 0; k < 6; k++)
            part[k][tid] = acc[k];
        __syncthreads();
        for (int s = FD_CUDA_BLOCK / 2; s > 0; s >>= 1) {
            if (tid < s)
                for (int k = 0; k < 6; k++)
                    part[k][tid] = __dadd_rn(part[k][tid], part[k][tid + s]);
            __syncthreads();
        }
        if (tid < 6)
            fdm_st(p.dt, dtheta, n * 6 + tid, part[tid][0]);
        __syncthreads(); /* part[] is reused for the next sample */
    }
}

/* ---- sampler ------------------------------------------------------------------------------- */

/* Where grid point (n, h, w) reads x (src/ref/spatial_tf_ref.c's locate): corners x0 .. x0 + 1,
 * y0 .. y0 + 1, fractions fx, fy; inside 0 when no corner can be inside x. */
typedef struct {
    int inside;
    int64_t x0, y0;
    double fx, fy;
} stf_point_t;

static __device__ __forceinline__ stf_point_t locate(const fd_stf_sampler_problem_t &p,
                                                     const void *grid, int64_t n, int64_t h,
                                                     int64_t w)
{
    stf_point_t pt = {0, 0, 0, 0.0, 0.0};
    const int64_t g = ((n * p.ho + h) * p.wo + w) * 2;
    const double ix = __dmul_rn(__dmul_rn(__dadd_rn(fdm_ld(p.dt, grid, g), 1.0), (double)(p.wi - 1)), 0.5);
    const double iy =
        __dmul_rn(__dmul_rn(__dadd_rn(fdm_ld(p.dt, grid, g + 1), 1.0), (double)(p.hi - 1)), 0.5);
    if (!(ix >= -1.0 && ix < (double)p.wi && iy >= -1.0 && iy < (double)p.hi))
        return pt;
    const double fx0 = floor(ix), fy0 = floor(iy);
    pt.inside = 1;
    pt.x0 = (int64_t)fx0, pt.y0 = (int64_t)fy0;
    pt.fx = __dsub_rn(ix, fx0), pt.fy = __dsub_rn(iy, fy0);
    return pt;
}

static __device__ __forceinline__ double pixel(const fd_stf_sampler_problem_t &p, const void *x,
                                               int64_t n, int64_t c, int64_t yy, int64_t xx)
{
    if (yy < 0 || yy >= p.hi || xx < 0 || xx >= p.wi)
        return 0.0;
    return fdm_ld(p.dt, x, n * p.xs[0] + c * p.xs[1] + yy * p.xs[2] + xx * p.xs[3]);
}

/* (1 - fy) ((1 - fx) v00 + fx v01) + fy ((1 - fx) v10 + fx v11), evaluated as the ref does. */
static __device__ __forceinline__ double bilinear(const stf_point_t &pt, double v00, double v01,
                                                  double v10, double v11)
{
    const double gx = 1.0 - pt.fx, gy = 1.0 - pt.fy;
    const double top = __dadd_rn(__dmul_rn(gx, v00), __dmul_rn(pt.fx, v01));
    const double bot = __dadd_rn(__dmul_rn(gx, v10), __dmul_rn(pt.fx, v11));
    return __dadd_rn(__dmul_rn(gy, top), __dmul_rn(pt.fy, bot));
}

static __global__ void stf_sampler_fwd(const fd_stf_sampler_problem_t p, int c_inner, const void *x,
                                       const void *grid, void *y, double alpha, double beta)
{
    const int64_t total = p.n * p.c * p.ho * p.wo;
    FDM_FOR(e, total)
    {
        int64_t n, c, h, w, r = e;
        if (c_inner) { /* e = ((n Ho + h) Wo + w) C + c */
            c = r % p.c, r /= p.c;
            w = r % p.wo, r /= p.wo;
            h = r % p.ho, n = r / p.ho;
        } else { /* e = ((n C + c) Ho + h) Wo + w */
            w = r % p.wo, r /= p.wo;
            h = r % p.ho, r /= p.ho;
            c = r % p.c, n = r / p.c;
        }
        const stf_point_t pt = locate(p, grid, n, h, w);
        double v = 0.0;
        if (pt.inside)
            v = bilinear(pt, pixel(p, x, n, c, pt.y0, pt.x0), pixel(p, x, n, c, pt.y0, pt.x0 + 1),
                         pixel(p, x, n, c, pt.y0 + 1, pt.x0), pixel(p, x, n, c, pt.y0 + 1, pt.x0 + 1));
        fdm_blend(p.dt, y, n * p.ys[0] + c * p.ys[1] + h * p.ys[2] + w * p.ys[3], alpha, beta, v);
    }
}

/* dgrid: the derivative of the sample with respect to (gx, gy), summed over channels in order. */
static __global__ void stf_sampler_bwd_grid(const fd_stf_sampler_problem_t p, const void *x,
                                            const void *grid, const void *dy, void *dgrid,
                                            double alpha, double beta)
{
    const double sx = __dmul_rn((double)(p.wi - 1), 0.5), sy = __dmul_rn((double)(p.hi - 1), 0.5);
    const int64_t total = p.n * p.ho * p.wo;
    FDM_FOR(e, total)
    {
        const int64_t w = e % p.wo, h = (e / p.wo) % p.ho, n = e / (p.wo * p.ho);
        const stf_point_t pt = locate(p, grid, n, h, w);
        double gx = 0.0, gy = 0.0;
        if (pt.inside)
            for (int64_t c = 0; c < p.c; c++) {
                const double d = fdm_ld(p.dt, dy, n * p.ys[0] + c * p.ys[1] + h * p.ys[2] + w * p.ys[3]);
                const double v00 = pixel(p, x, n, c, pt.y0, pt.x0);
                const double v01 = pixel(p, x, n, c, pt.y0, pt.x0 + 1);
                const double v10 = pixel(p, x, n, c, pt.y0 + 1, pt.x0);
                const double v11 = pixel(p, x, n, c, pt.y0 + 1, pt.x0 + 1);
                const double ddx = __dadd_rn(__dmul_rn(1.0 - pt.fy, v01 - v00), __dmul_rn(pt.fy, v11 - v10));
                const double ddy = __dadd_rn(__dmul_rn(1.0 - pt.fx, v10 - v00), __dmul_rn(pt.fx, v11 - v01));
                gx = __dadd_rn(gx, __dmul_rn(d, ddx));
                gy = __dadd_rn(gy, __dmul_rn(d, ddy));
            }
        fdm_blend(p.dt, dgrid, e * 2, alpha, beta, __dmul_rn(gx, sx));
        fdm_blend(p.dt, dgrid, e * 2 + 1, alpha, beta, __dmul_rn(gy, sy));
    }
}

/* dx: block b owns (n, pixel tile, channel group); see the file comment. */
static __global__ void stf_sampler_bwd_data(const fd_stf_sampler_problem_t p, const void *grid,
                                            const void *dy, void *dx, double alpha, double beta)
{
    __shared__ int sx0[STF_TILE], sy0[STF_TILE]; /* sy0 INT_MIN: the point reads nothing */
    __shared__ double sfx[STF_TILE], sfy[STF_TILE];
    const int tid = threadIdx.x;
    const int64_t pixels = p.hi * p.wi, pts = p.ho * p.wo;
    const int64_t tiles = (pixels + STF_TILE - 1) / STF_TILE, groups = (p.c + STF_CPT - 1) / STF_CPT;
    const int64_t nblk = p.n * tiles * groups;
    for (int64_t b = blockIdx.x; b < nblk; b += gridDim.x) {
        const int64_t cg = b % groups, tile = (b / groups) % tiles, n = b / (groups * tiles);
        const int64_t t0 = tile * STF_TILE;
        const int64_t len = pixels - t0 < STF_TILE ? pixels - t0 : STF_TILE;
        const int64_t row_lo = t0 / p.wi, row_hi = (t0 + len - 1) / p.wi;
        const int64_t mine = t0 + tid; /* this thread's pixel, when tid < len */
        const int64_t yy = mine / p.wi, xx = mine % p.wi;
        const int64_t c0 = cg * STF_CPT;
        double acc[STF_CPT];
        for (int k = 0; k < STF_CPT; k++)
            acc[k] = 0.0;
        for (int64_t j0 = 0; j0 < pts; j0 += STF_TILE) {
            const int64_t j = j0 + tid;
            int hit = 0;
            sy0[tid] = INT_MIN;
            if (j < pts) {
                const stf_point_t pt = locate(p, grid, n, j / p.wo, j % p.wo);
                if (pt.inside && pt.y0 + 1 >= row_lo && pt.y0 <= row_hi) {
                    sx0[tid] = (int)pt.x0, sy0[tid] = (int)pt.y0;
                    sfx[tid] = pt.fx, sfy[tid] = pt.fy;
                    hit = 1;
                }
            }
            if (!__syncthreads_or(hit))
                continue; /* no point of this chunk touches the tile's rows */
            const int64_t cnt = pts - j0 < STF_TILE ? pts - j0 : STF_TILE;
            if (tid < len)
                for (int64_t q = 0; q < cnt; q++) {
                    const int64_t ry = yy - sy0[q], rx = xx - sx0[q];
                    if (sy0[q] == INT_MIN || ry < 0 || ry > 1 || rx < 0 || rx > 1)
                        continue;
                    const double wy = ry ? sfy[q] : 1.0 - sfy[q];
                    const double wx = rx ? sfx[q] : 1.0 - sfx[q];
                    const double wgt = __dmul_rn(wy, wx);
                    const int64_t jq = j0 + q, h = jq / p.wo, w = jq % p.wo;
                    const int64_t o = n * p.ys[0] + h * p.ys[2] + w * p.ys[3];
                    for (int k = 0; k < STF_CPT; k++)
                        if (c0 + k < p.c)
                            acc[k] = __dadd_rn(acc[k], __dmul_rn(wgt, fdm_ld(p.dt, dy, o + (c0 + k) * p.ys[1])));
                }
            __syncthreads(); /* the chunk's slots are refilled next */
        }
        if (tid < len)
            for (int k = 0; k < STF_CPT; k++)
                if (c0 + k < p.c)
                    fdm_blend(p.dt, dx, n * p.dxs[0] + (c0 + k) * p.dxs[1] + yy * p.dxs[2] + xx * p.dxs[3],
                              alpha, beta, acc[k]);
    }
}

/* ---- rows ------------------------------------------------------------------------------------ */

static int dt_applicable(cudnnDataType_t dt, char *why, size_t why_size)
{
    if (fdm_host_dtype_ok(dt))
        return 1;
    snprintf(why, why_size, "%s data; the spatial transformer kernels take FLOAT, DOUBLE, HALF and "
             "BFLOAT16", fd_dtype_name(dt));
    return 0;
}

extern "C" int fd_spatial_tf_grid_fwd_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return dt_applicable(((const fd_stf_grid_problem_t *)problem)->dt, why, why_size);
}
extern "C" size_t fd_spatial_tf_grid_fwd_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_spatial_tf_grid_fwd_cuda_run(const void *problem, const void *args)
{
    const fd_stf_grid_problem_t *p = (const fd_stf_grid_problem_t *)problem;
    const fd_stf_grid_args_t *a = (const fd_stf_grid_args_t *)args;
    const unsigned blocks = fd_cuda_blocks(p->n * p->h * p->w * 2, FD_CUDA_BLOCK);
    stf_grid_fwd<<<blocks, FD_CUDA_BLOCK, 0, a->handle->stream>>>(*p, a->in, a->out);
    FD_CUDA_LAUNCHED("stf_grid_fwd on %s data (%u blocks)", fd_dtype_name(p->dt), blocks);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_spatial_tf_grid_bwd_cuda_applicable(const void *problem, char *why, size_t why_size)
{
    return dt_applicable(((const fd_stf_grid_problem_t *)problem)->dt, why, why_size);
}
extern "C" size_t fd_spatial_tf_grid_bwd_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_spatial_tf_grid_bwd_cuda_run(const void *problem, const void *args)
{
    const fd_stf_grid_problem_t *p = (const fd_stf_grid_problem_t *)problem;
    const fd_stf_grid_args_t *a = (const fd_stf_grid_args_t *)args;
    const unsigned blocks = fd_cuda_blocks(p->n, 1); /* one block per sample */
    stf_grid_bwd<<<blocks, FD_CUDA_BLOCK, 0, a->handle->stream>>>(*p, a->in, a->out);
    FD_CUDA_LAUNCHED("stf_grid_bwd on %s data (%u blocks)", fd_dtype_name(p->dt), blocks);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_spatial_tf_sampler_fwd_cuda_applicable(const void *problem, char *why,
                                                         size_t why_size)
{
    return dt_applicable(((const fd_stf_sampler_problem_t *)problem)->dt, why, why_size);
}
extern "C" size_t fd_spatial_tf_sampler_fwd_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_spatial_tf_sampler_fwd_cuda_run(const void *problem, const void *args)
{
    const fd_stf_sampler_problem_t *p = (const fd_stf_sampler_problem_t *)problem;
    const fd_stf_sampler_args_t *a = (const fd_stf_sampler_args_t *)args;
    const int c_inner = p->c > 1 && p->ys[1] < p->ys[3]; /* channels-last y: c varies fastest */
    const unsigned blocks = fd_cuda_blocks(p->n * p->c * p->ho * p->wo, FD_CUDA_BLOCK);
    stf_sampler_fwd<<<blocks, FD_CUDA_BLOCK, 0, a->handle->stream>>>(*p, c_inner, a->x, a->grid, a->y,
                                                                      a->alpha, a->beta);
    FD_CUDA_LAUNCHED("stf_sampler_fwd on %s data (%u blocks)", fd_dtype_name(p->dt), blocks);
    return CUDNN_STATUS_SUCCESS;
}

extern "C" int fd_spatial_tf_sampler_bwd_cuda_applicable(const void *problem, char *why,
                                                         size_t why_size)
{
    const fd_stf_sampler_problem_t *p = (const fd_stf_sampler_problem_t *)problem;
    if (!dt_applicable(p->dt, why, why_size))
        return 0;
    if (p->hi > INT_MAX / 2 || p->wi > INT_MAX / 2) {
        snprintf(why, why_size, "x is %lldx%lld; the dx kernel keeps corner indices in int",
                 (long long)p->hi, (long long)p->wi);
        return 0;
    }
    return 1;
}
extern "C" size_t fd_spatial_tf_sampler_bwd_cuda_workspace(const void *problem)
{
    (void)problem;
    return 0;
}
extern "C" cudnnStatus_t fd_spatial_tf_sampler_bwd_cuda_run(const void *problem, const void *args)
{
    const fd_stf_sampler_problem_t *p = (const fd_stf_sampler_problem_t *)problem;
    const fd_stf_sampler_args_t *a = (const fd_stf_sampler_args_t *)args;
    cudaStream_t stream = a->handle->stream;
    const int64_t tiles = (p->hi * p->wi + STF_TILE - 1) / STF_TILE;
    const int64_t groups = (p->c + STF_CPT - 1) / STF_CPT;
    const unsigned dblocks = fd_cuda_blocks(p->n * tiles * groups, 1);
    stf_sampler_bwd_data<<<dblocks, STF_TILE, 0, stream>>>(*p, a->grid, a->dy, a->dx, a->alpha, a->beta);
    FD_CUDA_LAUNCHED("stf_sampler_bwd_data on %s data (%u blocks)", fd_dtype_name(p->dt), dblocks);
    const unsigned gblocks = fd_cuda_blocks(p->n * p->ho * p->wo, FD_CUDA_BLOCK);
    stf_sampler_bwd_grid<<<gblocks, FD_CUDA_BLOCK, 0, stream>>>(*p, a->x, a->grid, a->dy, a->dgrid,
                                                                a->alpha_dgrid, a->beta_dgrid);
    FD_CUDA_LAUNCHED("stf_sampler_bwd_grid on %s data (%u blocks)", fd_dtype_name(p->dt), gblocks);
    return CUDNN_STATUS_SUCCESS;
}
