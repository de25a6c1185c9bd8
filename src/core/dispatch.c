/* SPDX-License-Identifier: MIT */
/*
 * dispatch.c - the implementation tables built from src/impls.def, and selection: the first
 * applicable row for (backend, operation[, algorithm]); the cpu backend falls back to ref
 * rows. FREEDNN_LOG_DISPATCH=1 logs why each row was or was not taken.
 *
 * Convolution selection is memoised per thread (issue 7.3: a call's host time). A row's
 * applicable() sees only the problem, state fixed for the process (ISA, environment switches
 * read once) and, on cuda, the current device; so the first applicable row for (problem,
 * backend, algorithm, device) never changes and the next call with the same problem skips the
 * walk over the table, whose declining rows each format a reason (most of the cost). The memo
 * holds FD_SELECT_MEMO recent picks per thread, compared byte for byte (problems are zeroed
 * before they are filled, so padding compares equal); a failed selection is never kept, so its
 * reasons are always rebuilt; FREEDNN_LOG_DISPATCH bypasses it, so every call is logged.
 */
#include <stdio.h>
#include <string.h>

#include "conv.h"
#include "op.h"

#if defined(FD_HAVE_CUDA)
int fd_cuda_current_device(void); /* src/cuda/probe.cu */
#endif

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
#define FD_CONV_IMPL(name, backend, dir, algos, flags)                                             \
    int name##_applicable(const fd_conv_problem_t *p, char *why, size_t why_size);                 \
    size_t name##_workspace(const fd_conv_problem_t *p);                                           \
    cudnnStatus_t name##_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);                 \
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
#define FD_CONV_IMPL(name, backend, dir, algos, flags)                                             \
    {#name, backend, dir, algos, flags, name##_applicable, name##_workspace, name##_run},
#define FD_OP_IMPL(name, backend, op)
#include "../impls.def"
#undef FD_CONV_IMPL
#undef FD_OP_IMPL
};
const int fd_conv_impl_count = (int)(sizeof fd_conv_impls / sizeof fd_conv_impls[0]);

const fd_op_impl_t fd_op_impls[] = {
#define FD_CONV_IMPL(name, backend, dir, algos, flags)
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

#define FD_SELECT_MEMO 8

typedef struct {
    const fd_conv_impl_t *impl; /* NULL: an empty slot */
    fd_backend_t backend;
    int algo, device;
    fd_conv_problem_t p;
} select_memo_t;

static _Thread_local select_memo_t select_memo[FD_SELECT_MEMO];
static _Thread_local unsigned select_memo_next;

static int select_device(fd_backend_t backend)
{
#if defined(FD_HAVE_CUDA)
    if (backend == FD_BACKEND_CUDA)
        return fd_cuda_current_device();
#endif
    (void)backend;
    return -1;
}

static const fd_conv_impl_t *select_walk(const fd_conv_problem_t *p, fd_backend_t backend, int algo, char *why,
                                         size_t why_size)
{
    size_t used = 0;
    const fd_conv_impl_t *impl = conv_first(p, backend, algo, why, why_size, &used);
    if (impl == NULL && backend == FD_BACKEND_CPU)
        impl = conv_first(p, FD_BACKEND_REF, algo, why, why_size, &used);
    if (impl == NULL && used == 0)
        snprintf(why, why_size, "no implementation of %s on this backend", fd_conv_algo_name(p->dir, algo));
    return impl;
}

const fd_conv_impl_t *fd_conv_select(const fd_conv_problem_t *p, fd_backend_t backend, int algo,
                                     char *why, size_t why_size)
{
    why[0] = '\0';
    if (algo < 0 || algo >= fd_conv_algo_count(p->dir)) {
        snprintf(why, why_size, "algorithm %d is not an enum value of this direction", algo);
        return NULL;
    }
    if (fd_env_flag("FREEDNN_LOG_DISPATCH"))
        return select_walk(p, backend, algo, why, why_size);
    const int device = select_device(backend);
    for (int i = 0; i < FD_SELECT_MEMO; i++) {
        const select_memo_t *m = &select_memo[i];
        if (m->impl != NULL && m->backend == backend && m->algo == algo && m->device == device &&
            memcmp(&m->p, p, sizeof *p) == 0)
            return m->impl;
    }
    const fd_conv_impl_t *impl = select_walk(p, backend, algo, why, why_size);
    if (impl != NULL) {
        select_memo_t *m = &select_memo[select_memo_next++ % FD_SELECT_MEMO];
        m->impl = impl, m->backend = backend, m->algo = algo, m->device = device;
        memcpy(&m->p, p, sizeof *p);
    }
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
