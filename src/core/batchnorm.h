/* SPDX-License-Identifier: MIT */
/*
 * batchnorm.h - the flat batch-normalization problem shared by the cudnnBatchNormalization*
 * entries (src/api/batchnorm.c), the cuDNN 8 cudnnNormalization* entries
 * (src/api/normalization.c) and the implementations (FD_OP_BN_FWD_INFER, FD_OP_BN_FWD_TRAIN,
 * FD_OP_BN_BWD).
 *
 * Mathematics, per "group" of elements that share one parameter set (a channel for SPATIAL /
 * PER_CHANNEL, one (c, d, h, w) position for PER_ACTIVATION), M elements each:
 *   mean = sum x / M, var = sum (x - mean)^2 / M (biased), inv = 1 / sqrt(var + epsilon)
 *   u = scale * (x - mean) * inv + bias [+ z],  y = alpha * act(u) + beta * y
 *   running_mean = (1 - f) running_mean + f mean; running_var = (1 - f) running_var
 *                  + f var * M / (M - 1) (the unbiased variance, NaN for M = 1 as cuDNN 9.19)
 * Backward with g = dy * act'(u): dbias = sum g, dscale = sum g xhat,
 *   dx = scale * inv * (g - dbias / M - xhat * dscale / M), dz = g (ADD_ACTIVATION; dz is
 *   written as is, neither scaled nor blended, as cuDNN 9.19 does).
 */
#ifndef FD_CORE_BATCHNORM_H_
#define FD_CORE_BATCHNORM_H_

#include "activation.h"
#include "fd.h"

/* The fused activation of the *Ex / v8 entries: the activation family's own parameters
 * (RELU, CLIPPED_RELU, SIGMOID, TANH, ELU or SWISH here). */
typedef fd_act_params_t fd_bn_act_t;

typedef enum { FD_BN_INFER = 0, FD_BN_TRAIN = 1, FD_BN_BWD = 2 } fd_bn_dir_t;

/* Only the problem builder reads descriptors; unused tensors are zeroed (nb_dims 0). */
typedef struct fd_bn_problem {
    fd_bn_dir_t dir;
    int per_activation;      /* 1: a parameter per (c, spatial) and statistics over N */
    cudnnBatchNormOps_t ops; /* BN, BN_ACTIVATION (act(u)), BN_ADD_ACTIVATION (act(u + z)) */
    fd_bn_act_t act;         /* ops != BN only */
    double epsilon;
    /* x, y (forward) or x, dy, dx (backward); z (forward) / dz (backward) with ADD_ACTIVATION.
     * All share dims (4-d or 5-d) and dtype (FLOAT, DOUBLE, HALF, BFLOAT16); strides differ. */
    struct cudnnTensorStruct x, y, z, dy, dx, dz;
    /* scale and bias (backward: also their gradients) and mean / variance (running, saved or
     * estimated): 1 x C x 1... (per channel) or 1 x C x spatial (per activation), FLOAT for
     * HALF / BFLOAT16 / FLOAT data, DOUBLE for DOUBLE. The BN entries pass one descriptor for
     * both. */
    struct cudnnTensorStruct sb, mv;
} fd_bn_problem_t;

/* Pointers of one call; those a direction does not use are NULL. */
typedef struct fd_bn_args {
    const void *x, *z, *dy;
    void *y, *dx, *dz;
    const void *scale, *bias;
    const void *mean, *var;         /* infer: estimated mean / variance; bwd: saved mean / inverse
                                       std-dev, both NULL to recompute from x */
    void *run_mean, *run_var;       /* train: each may be NULL (then not updated) */
    double factor;                  /* train: exponentialAverageFactor */
    void *save_mean, *save_inv;     /* train: both or neither */
    void *dscale, *dbias;           /* bwd */
    double alpha, beta;             /* y (fwd) / dx (bwd) blending */
    double alpha_param, beta_param; /* bwd: dscale / dbias blending */
    void *reserve;                  /* train / bwd with ADD_ACTIVATION: fd_bn_reserve_size bytes */
    size_t reserve_size;
    void *workspace; /* the caller's, at least the implementation's workspace() */
    size_t workspace_size;
    cudnnHandle_t handle; /* its stream, on cuda */
} fd_bn_args_t;

/* 1 when the activation's derivative is 0 or 1 everywhere (a bit per element carries it). */
static inline int fd_bn_act_is_binary(cudnnActivationMode_t mode)
{
    return mode == CUDNN_ACTIVATION_RELU || mode == CUDNN_ACTIVATION_CLIPPED_RELU;
}

/* Elements of the data tensor. */
static inline int64_t fd_bn_elements(const fd_bn_problem_t *p)
{
    return fd_tensor_elements(&p->x);
}

/* Reserve space between a training forward and its backward, the same on every backend.
 * BN and BN_ACTIVATION need none: the backward pass recomputes u from x, the saved
 * statistics, scale and bias (as cuDNN, which also reports 0 there). BN_ADD_ACTIVATION cannot
 * (z is not passed to the backward pass), so the forward pass leaves act'(u) there:
 * RELU / CLIPPED_RELU one bit per element (bit e % 8 of byte e / 8, e the element's index
 * in N, C, spatial order); the smooth activations u itself, one double per element (memcpy'd,
 * no alignment assumed). */
static inline size_t fd_bn_reserve_size(cudnnBatchNormOps_t ops, cudnnActivationMode_t mode,
                                        int64_t elements)
{
    if (ops != CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION)
        return 0;
    if (fd_bn_act_is_binary(mode))
        return (size_t)((elements + 7) / 8);
    return (size_t)elements * sizeof(double);
}

/* Which descriptors an entry passes to fd_bn_problem_init (NULL where absent). */
typedef struct fd_bn_descs {
    cudnnTensorDescriptor_t x, y, z, dy, dx, dz, sb, mv;
} fd_bn_descs_t;

/* Validates mode / ops / activation / descriptors (src/api/batchnorm.c) and fills *p; cuDNN
 * 9.19's statuses: BAD_PARAM for bad enums, mismatched dims or dtypes, ranks other than 4 and
 * 5, negative strides, parameter descriptors that are not packed 1 x C x 1... / 1 x C x
 * spatial of the derived type, a missing activation descriptor or z; NOT_SUPPORTED for data
 * types other than FLOAT, DOUBLE, HALF, BFLOAT16 and for an IDENTITY activation. `api` names
 * the calling entry (error records after reading the activation descriptor). */
cudnnStatus_t fd_bn_problem_init(fd_bn_problem_t *p, const char *api, cudnnHandle_t handle,
                                 fd_bn_dir_t dir, int per_activation, cudnnBatchNormOps_t ops,
                                 cudnnActivationDescriptor_t act, const fd_bn_descs_t *d,
                                 double epsilon);

/* Fills `out` with the parameter descriptor for data shaped like x (cudnnDeriveBNTensorDescriptor
 * and cudnnDeriveNormTensorDescriptor): FLOAT for HALF / BFLOAT16 / FLOAT, DOUBLE otherwise. */
cudnnStatus_t fd_bn_derive(cudnnTensorDescriptor_t out, cudnnTensorDescriptor_t x,
                           int per_activation);

/* Pointer checks shared by the entries: outputs do not overlap each other or the inputs,
 * except that a data output may be exactly an input of the same layout (in place). */
cudnnStatus_t fd_bn_check_pointers(const fd_bn_problem_t *p, const fd_bn_args_t *a);

/* Runs the checked problem on the handle's backend. */
cudnnStatus_t fd_bn_run(cudnnHandle_t handle, const fd_bn_problem_t *p, const fd_bn_args_t *a);

/* The bodies of the entries after the handle check, shared with the cuDNN 8 normalization
 * entries (src/api/normalization.c): pointer checks, fd_bn_problem_init, workspace / reserve
 * sizes (BAD_PARAM when short), alpha / beta, overlaps, dispatch. `a` holds the caller's
 * pointers; the blending factors are filled in here. */
cudnnStatus_t fd_bn_infer_entry(const char *api, cudnnHandle_t handle, int per_activation,
                                cudnnBatchNormOps_t ops, const void *alpha, const void *beta,
                                const fd_bn_descs_t *d, fd_bn_args_t *a, double epsilon,
                                cudnnActivationDescriptor_t act);
cudnnStatus_t fd_bn_train_entry(const char *api, cudnnHandle_t handle, int per_activation,
                                cudnnBatchNormOps_t ops, const void *alpha, const void *beta,
                                const fd_bn_descs_t *d, fd_bn_args_t *a, double epsilon,
                                cudnnActivationDescriptor_t act, void *ws, size_t ws_size,
                                size_t reserve_size);
cudnnStatus_t fd_bn_backward_entry(const char *api, cudnnHandle_t handle, int per_activation,
                                   cudnnBatchNormOps_t ops, const void *alphaD, const void *betaD,
                                   const void *alphaP, const void *betaP, const fd_bn_descs_t *d,
                                   fd_bn_args_t *a, double epsilon, cudnnActivationDescriptor_t act,
                                   void *ws, size_t ws_size, size_t reserve_size);
/* Workspace bytes of the implementation that would run `p` on the handle's backend. */
cudnnStatus_t fd_bn_workspace_query(cudnnHandle_t handle, const fd_bn_problem_t *p, size_t *size);
/* Reserve-space bytes for data shaped like xDesc (fd_bn_reserve_size after validation). */
cudnnStatus_t fd_bn_reserve_query(const char *api, cudnnHandle_t handle, cudnnBatchNormOps_t ops,
                                  cudnnActivationDescriptor_t act, cudnnTensorDescriptor_t xDesc,
                                  size_t *size);

#endif /* FD_CORE_BATCHNORM_H_ */
