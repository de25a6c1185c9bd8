/* SPDX-License-Identifier: MIT */
/*
 * spatial_tf.h - the spatial transformer descriptor behind cudnnSpatialTransformerDescriptor_t
 * and the flat problems of the grid generator and the bilinear sampler (FD_OP_SPATIAL_TF_* in
 * src/impls.def).
 *
 * Conventions (cuDNN's, i.e. PyTorch's affine_grid / grid_sample with align_corners = True,
 * the only configuration PyTorch hands to cuDNN):
 *   - the descriptor holds the OUTPUT dims N x C x H x W; theta is N x 2 x 3 and grid
 *     N x H x W x 2 ((x, y) innermost), both packed, in the descriptor's data type;
 *   - grid generator: target pixel (h, w) has normalised coordinates
 *     x_t = -1 + 2 w / (W - 1), y_t = -1 + 2 h / (H - 1) (0 when the extent is 1), and
 *     grid[n, h, w] = theta[n] . (x_t, y_t, 1);
 *   - sampler: a grid point (gx, gy) reads x at ix = (gx + 1) (Wx - 1) / 2,
 *     iy = (gy + 1) (Hx - 1) / 2, bilinearly from the corners floor(ix) .. floor(ix) + 1 and
 *     floor(iy) .. floor(iy) + 1; a corner outside x reads as 0 (non-finite coordinates read
 *     every corner as outside). Gradients are those of this function (one-sided at integer
 *     coordinates, where it has kinks).
 */
#ifndef FD_CORE_SPATIAL_TF_H_
#define FD_CORE_SPATIAL_TF_H_

#include "fd.h"

#define FD_MAGIC_STF 0x53444e46u /* "FNDS" */

struct cudnnSpatialTransformerStruct {
    uint32_t magic;
    int is_set;
    cudnnSamplerType_t sampler;
    cudnnDataType_t dtype; /* of theta, grid and the sampled tensors */
    int dim[4];            /* N, C, H, W of the transformed (output) tensor */
};

/* Grid generator, forward (theta -> grid) and backward (dgrid -> dtheta). */
typedef struct fd_stf_grid_problem {
    cudnnDataType_t dt;
    int64_t n, h, w;
} fd_stf_grid_problem_t;

typedef struct fd_stf_grid_args {
    cudnnHandle_t handle; /* its stream, on cuda */
    const void *in; /* theta (forward) or dgrid (backward) */
    void *out;      /* grid (forward) or dtheta (backward) */
} fd_stf_grid_args_t;

/* Sampler. Strides in elements, order N, C, H, W. */
typedef struct fd_stf_sampler_problem {
    cudnnDataType_t dt; /* every tensor and the grid */
    int64_t n, c;
    int64_t hi, wi; /* x (and dx) */
    int64_t ho, wo; /* y (and dy), the grid */
    int64_t xs[4];
    int64_t ys[4];  /* y (forward) or dy (backward) */
    int64_t dxs[4]; /* backward only */
} fd_stf_sampler_problem_t;

/* Forward: y = alpha * sample(x, grid) + beta * y.
 * Backward: dx = alpha * d/dx + beta * dx, dgrid = alpha_dgrid * d/dgrid + beta_dgrid * dgrid. */
typedef struct fd_stf_sampler_args {
    cudnnHandle_t handle; /* its stream, on cuda */
    const void *x, *grid, *dy;
    void *y, *dx, *dgrid;
    double alpha, beta, alpha_dgrid, beta_dgrid;
} fd_stf_sampler_args_t;

#endif /* FD_CORE_SPATIAL_TF_H_ */
