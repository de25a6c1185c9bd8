/* SPDX-License-Identifier: MIT */
/*
 * dispatch.c - the implementation tables built from src/impls.def, and selection: the first
 * applicable row for (backend, operation[, algorithm]); the cpu backend falls back to ref
 * rows. FREEDNN_LOG_DISPATCH=1 logs why each row was or was not taken.
 */
#include <stdio.h>
#include <string.h>

#include "conv.h"
#include "op.h"

/* A build without CUDA keeps the cuda rows (dnnbench and the support matrix list them) but not
 * their kernels: these stand in, and no cuda handle can exist there to reach them. */
#define FD_CONV_ABSENT_FD_BACKEND_REF(name)
#define FD_CONV_ABSENT_FD_BACKEND_CPU(name)
#if defined(FD_HAVE_CUDA)
#define FD_CONV_ABSENT_FD_BACKEND_CUDA(name)
#else
#define FD_CONV_ABSENT_FD_BACKEND_CUDA(name)                                                   \
    int name##_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)              \
    {                                                                                          \
        (void)p;                                                                               \
        snprintf(why, why_size, "this libfreednn was built without CUDA");                     \
        return 0;                                                                              \
    }                                                                                          \
    size_t name##_workspace(const fd_conv_problem_t *p)                                        \
    {                                                                                          \
        (void)p;                                                                               \
        return 0;                                                                              \
    }                                                                                          \
    cudnnStatus_t name##_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)              \
    {                                                                                          \
        (void)p, (void)a;                                                                      \
        return CUDNN_STATUS_NOT_SUPPORTED;                                                     \
    }
#endif
#define FD_CONV_IMPL(name, backend, dir, algos, det)                                           \
    int name##_applicable(const fd_conv_problem_t *p, char *why, size_t why_size);             \
    size_t name##_workspace(const fd_conv_problem_t *p);                                       \
    cudnnStatus_t name##_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);             \
    FD_CONV_ABSENT_##backend(name)
/* Weak defaults: a row whose implementation has not landed yet reports so and never runs. */
#define FD_OP_IMPL(name, backend, op)                                                          \
    __attribute__((weak)) int name##_applicable(const void *p, char *why, size_t why_size)     \
    {                                                                                          \
        (void)p;                                                                               \
        snprintf(why, why_size, "%s is not implemented yet", #name);                           \
        return 0;                                                                              \
    }                                                                                          \
    __attribute__((weak)) size_t name##_workspace(const void *p)                               \
    {                                                                                          \
        (void)p;                                                                               \
        return 0;                                                                              \
    }                                                                                          \
    __attribute__((weak)) cudnnStatus_t name##_run(const void *p, const void *a)               \
    {                                                                                          \
        (void)p, (void)a;                                                                      \
        return CUDNN_STATUS_NOT_SUPPORTED;                                                     \
    }
#include "../impls.def"
#undef FD_CONV_IMPL
#undef FD_OP_IMPL

const fd_conv_impl_t fd_conv_impls[] = {
#define FD_CONV_IMPL(name, backend, dir, algos, det)                                           \
    {#name, backend, dir, algos, det, name##_applicable, name##_workspace, name##_run},
#define FD_OP_IMPL(name, backend, op)
#include "../impls.def"
#undef FD_CONV_IMPL
#undef FD_OP_IMPL
};
const int fd_conv_impl_count = (int)(sizeof fd_conv_impls / sizeof fd_conv_impls[0]);

const fd_op_impl_t fd_op_impls[] = {
#define FD_CONV_IMPL(name, backend, dir, algos, det)
#define FD_OP_IMPL(name, backend, op) {#name, backend, op, name##_applicable, name##_workspace, name##_run},
#include "../impls.def"
#undef FD_CONV_IMPL
#undef FD_OP_IMPL
};
const int fd_op_impl_count = (int)(sizeof fd_op_impls / sizeof fd_op_impls[0]);

static const char *const op_names[FD_OP_COUNT] = {
    "pool_fwd", "pool_bwd", "act_fwd", "act_bwd", "softmax_fwd", "softmax_bwd", "lrn_fwd",
    "lrn_bwd", "divnorm_fwd", "divnorm_bwd", "bn_fwd_infer", "bn_fwd_train", "bn_bwd",
    "tensor_add", "tensor_op", "tensor_set", "tensor_scale", "tensor_transform", "tensor_reduce",
    "conv_bwd_bias", "conv_bias_act_fwd", "im2col", "dropout_fwd", "dropout_bwd", "dropout_init",
    "spatial_tf_grid_fwd", "spatial_tf_grid_bwd", "spatial_tf_sampler_fwd",
    "spatial_tf_sampler_bwd", "ctc_loss", "fused_conv_bnstats", "fused_wgrad",
    "fused_bn_finalize_train", "fused_bn_finalize_infer", "fused_conv_scale_bias_add_act",
    "fused_scale_bias_add_act_bitmask", "fused_dact_dbn"};
_Static_assert(sizeof op_names / sizeof op_names[0] == FD_OP_COUNT, "one name per fd_op_t");

const char *fd_op_name(fd_op_t op)
{
    return (int)op >= 0 && op < FD_OP_COUNT ? op_names[op] : "invalid";
}

/* Appends "name: reason" to why (at *used), separated by "; ". */
static void note_reason(char *why, size_t why_size, size_t *used, const char *name, const char *reason)
{
    if (*used >= why_size)
        return;
    int n = snprintf(why + *used, why_size - *used, "%s%s: %s", *used ? "; " : "", name, reason);
    *used += n > 0 ? (size_t)n : 0;
}

static const fd_conv_impl_t *conv_first(const fd_conv_problem_t *p, fd_backend_t backend, int algo,
                                        char *why, size_t why_size, size_t *used)
{
    int log = fd_env_flag("FREEDNN_LOG_DISPATCH");
    for (int i = 0; i < fd_conv_impl_count; i++) {
        const fd_conv_impl_t *impl = &fd_conv_impls[i];
        if (impl->backend != backend || impl->dir != p->dir || !(impl->algo_mask & (1u << algo)))
            continue;
        char reason[256] = "";
        if (impl->applicable(p, reason, sizeof reason)) {
            if (log)
                fd_log_info("dispatch: %s -> %s", fd_conv_algo_name(p->dir, algo), impl->name);
            return impl;
        }
        if (log)
            fd_log_info("dispatch: %s skipped: %s", impl->name, reason);
        note_reason(why, why_size, used, impl->name, reason);
    }
    return NULL;
}

const fd_conv_impl_t *fd_conv_select(const fd_conv_problem_t *p, fd_backend_t backend, int algo,
                                     char *why, size_t why_size)
{
    size_t used = 0;
    why[0] = '\0';
    if (algo < 0 || algo >= fd_conv_algo_count(p->dir)) {
        snprintf(why, why_size, "algorithm %d is not an enum value of this direction", algo);
        return NULL;
    }
    const fd_conv_impl_t *impl = conv_first(p, backend, algo, why, why_size, &used);
    if (impl == NULL && backend == FD_BACKEND_CPU)
        impl = conv_first(p, FD_BACKEND_REF, algo, why, why_size, &used);
    if (impl == NULL && used == 0)
        snprintf(why, why_size, "no implementation of %s on this backend", fd_conv_algo_name(p->dir, algo));
    return impl;
}

static const fd_op_impl_t *op_first(fd_op_t op, fd_backend_t backend, const void *problem, char *why,
                                    size_t why_size, size_t *used)
{
    int log = fd_env_flag("FREEDNN_LOG_DISPATCH");
    for (int i = 0; i < fd_op_impl_count; i++) {
        const fd_op_impl_t *impl = &fd_op_impls[i];
        if (impl->backend != backend || impl->op != op)
            continue;
        char reason[256] = "";
        if (impl->applicable(problem, reason, sizeof reason)) {
            if (log)
                fd_log_info("dispatch: %s -> %s", fd_op_name(op), impl->name);
            return impl;
        }
        if (log)
            fd_log_info("dispatch: %s skipped: %s", impl->name, reason);
        note_reason(why, why_size, used, impl->name, reason);
    }
    return NULL;
}

const fd_op_impl_t *fd_op_select(fd_op_t op, fd_backend_t backend, const void *problem, char *why,
                                 size_t why_size)
{
    size_t used = 0;
    why[0] = '\0';
    const fd_op_impl_t *impl = op_first(op, backend, problem, why, why_size, &used);
    if (impl == NULL && backend == FD_BACKEND_CPU)
        impl = op_first(op, FD_BACKEND_REF, problem, why, why_size, &used);
    if (impl == NULL && used == 0)
        snprintf(why, why_size, "no implementation of %s on this backend", fd_op_name(op));
    return impl;
}

cudnnStatus_t fd_op_run(cudnnHandle_t handle, fd_op_t op, const void *problem, const void *args)
{
    char why[512];
    const fd_op_impl_t *impl = fd_op_select(op, handle->backend, problem, why, sizeof why);
    FD_CHECK(impl != NULL, CUDNN_STATUS_NOT_SUPPORTED, "%s: %s", fd_op_name(op), why);
    return impl->run(problem, args);
}
