/* SPDX-License-Identifier: MIT */
/*
 * op.h - dispatch for the operations that have no algorithm enum (pooling, activation,
 * softmax, LRN, batch norm, tensor ops, dropout, spatial transformer, CTC, ...).
 *
 * Each family defines its flat problem struct and its argument struct in src/core/<family>.h;
 * implementations receive them as `const void *` and cast back (the table is type-erased so
 * one X-macro row format serves every family). Rows live in src/impls.def (FD_OP_IMPL).
 */
#ifndef FD_CORE_OP_H_
#define FD_CORE_OP_H_

#include "fd.h"

/* Every operation the table knows. Names: fd_op_name(). Keep FD_OP_COUNT last. */
typedef enum {
    FD_OP_POOL_FWD,
    FD_OP_POOL_BWD,
    FD_OP_ACT_FWD,
    FD_OP_ACT_BWD,
    FD_OP_SOFTMAX_FWD,
    FD_OP_SOFTMAX_BWD,
    FD_OP_LRN_FWD,
    FD_OP_LRN_BWD,
    FD_OP_DIVNORM_FWD,
    FD_OP_DIVNORM_BWD,
    FD_OP_BN_FWD_INFER,
    FD_OP_BN_FWD_TRAIN,
    FD_OP_BN_BWD,
    FD_OP_TENSOR_ADD,
    FD_OP_TENSOR_OP,
    FD_OP_TENSOR_SET,
    FD_OP_TENSOR_SCALE,
    FD_OP_TENSOR_TRANSFORM,
    FD_OP_TENSOR_REDUCE,
    FD_OP_CONV_BWD_BIAS,
    FD_OP_CONV_BIAS_ACT_FWD,
    FD_OP_IM2COL,
    FD_OP_DROPOUT_FWD,
    FD_OP_DROPOUT_BWD,
    FD_OP_DROPOUT_INIT, /* cudnnSetDropoutDescriptor: write the states buffer */
    FD_OP_SPATIAL_TF_GRID_FWD,
    FD_OP_SPATIAL_TF_GRID_BWD,
    FD_OP_SPATIAL_TF_SAMPLER_FWD,
    FD_OP_SPATIAL_TF_SAMPLER_BWD,
    FD_OP_CTC_LOSS,
    /* cudnnFusedOpsExecute, in cudnnFusedOps_t order: FD_OP_FUSED_FIRST + ops */
    FD_OP_FUSED_CONV_BNSTATS,
    FD_OP_FUSED_WGRAD,
    FD_OP_FUSED_BN_FINALIZE_TRAIN,
    FD_OP_FUSED_BN_FINALIZE_INFER,
    FD_OP_FUSED_CONV_SCALE_BIAS_ADD_ACT,
    FD_OP_FUSED_SCALE_BIAS_ADD_ACT_BITMASK,
    FD_OP_FUSED_DACT_DBN,
    FD_OP_COUNT
} fd_op_t;

#define FD_OP_FUSED_FIRST FD_OP_FUSED_CONV_BNSTATS
_Static_assert(FD_OP_FUSED_DACT_DBN - FD_OP_FUSED_FIRST == CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM,
               "the fused rows follow cudnnFusedOps_t");

const char *fd_op_name(fd_op_t op); /* "pool_fwd", ... */

typedef struct fd_op_impl {
    const char *name;
    fd_backend_t backend;
    fd_op_t op;
    /* 1 if it can run the problem; otherwise 0 and the reason in why. */
    int (*applicable)(const void *problem, char *why, size_t why_size);
    size_t (*workspace)(const void *problem); /* bytes of caller workspace, exact */
    cudnnStatus_t (*run)(const void *problem, const void *args);
} fd_op_impl_t;

extern const fd_op_impl_t fd_op_impls[];
extern const int fd_op_impl_count;

/* The first applicable row for `op` on `backend` (cpu falls back to ref); NULL with the
 * reasons in why when none. */
const fd_op_impl_t *fd_op_select(fd_op_t op, fd_backend_t backend, const void *problem, char *why,
                                 size_t why_size);

/* Select and run in one step; NOT_SUPPORTED (with the reasons) when nothing applies. The
 * family's API entry validates everything before calling this. */
cudnnStatus_t fd_op_run(cudnnHandle_t handle, fd_op_t op, const void *problem, const void *args);

#endif /* FD_CORE_OP_H_ */
