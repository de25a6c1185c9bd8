/* SPDX-License-Identifier: MIT */
/*
 * activation_cpu.c - cpu activation forward and backward (FD_OP_ACT_FWD / _BWD cpu rows).
 *
 * The elementwise engine of memop.h (any non-negative strides, NCHW and NHWC alike, threaded
 * in thread-count-independent units) with one block kernel per direction. Every value is the
 * ref's: RELU, CLIPPED_RELU and IDENTITY (and the SIGMOID / TANH derivatives, which are
 * arithmetic on y) are vectorised restatements of src/core/activation.h in the same operation
 * order; the modes that need exp / tanh / expm1 call the family's scalar definitions, because a
 * vectorised transcendental would not round like libm and these results are promised bit for
 * bit. FLOAT, DOUBLE, HALF, BFLOAT16; no workspace; y may be x (same strides).
 * SWISH forward goes through fd_act_fwd_value, which returns a NaN x itself (x * s with
 * s = sigmoid(beta x) would multiply two NaNs of opposite signs, and x86 returns the first
 * operand's: the compiler's choice, so the ref's bits depended on its build). SWISH backward is
 * declined for the same reason (its NaN gradients' signs follow the operand order).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3,fp-contract=off")
#endif
#include "../core/activation.h"
#include "memop.h"

typedef struct {
    const fd_act_params_t *act;
    cudnnDataType_t dt;
    double alpha, beta;
} act_ctx_t;

FD_CPU_CLONES static void fwd_block(const fd_act_params_t *a, int n, const double *restrict x,
                                    double *restrict v)
{
    const int prop = a->propagate_nan;
    const double coef = a->coef;
    switch (a->mode) {
    case CUDNN_ACTIVATION_RELU:
        for (int i = 0; i < n; i++) {
            double r = x[i] > 0.0 ? x[i] : 0.0;
            v[i] = prop && isnan(x[i]) ? x[i] : r;
        }
        break;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        for (int i = 0; i < n; i++) {
            double r = x[i] > 0.0 ? x[i] : 0.0;
            r = r > coef ? coef : r;
            v[i] = prop && (isnan(x[i]) || isnan(coef)) ? NAN : r;
        }
        break;
    case CUDNN_ACTIVATION_IDENTITY:
        for (int i = 0; i < n; i++)
            v[i] = x[i];
        break;
    default:
        for (int i = 0; i < n; i++)
            v[i] = fd_act_fwd_value(a, x[i]);
        break;
    }
}

FD_CPU_CLONES static void bwd_block(const fd_act_params_t *a, int n, const double *restrict y,
                                    const double *restrict dy, const double *restrict x,
                                    double *restrict v)
{
    const int prop = a->propagate_nan;
    const double coef = a->coef;
    switch (a->mode) {
    case CUDNN_ACTIVATION_SIGMOID:
        for (int i = 0; i < n; i++)
            v[i] = dy[i] * y[i] * (1.0 - y[i]);
        break;
    case CUDNN_ACTIVATION_TANH:
        for (int i = 0; i < n; i++)
            v[i] = dy[i] * (1.0 - y[i] * y[i]);
        break;
    case CUDNN_ACTIVATION_RELU:
        for (int i = 0; i < n; i++) {
            double r = x[i] > 0.0 ? dy[i] : 0.0;
            v[i] = prop && isnan(x[i]) ? x[i] : r;
        }
        break;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        for (int i = 0; i < n; i++) {
            double r = (x[i] > 0.0 && !(x[i] >= coef)) ? dy[i] : 0.0;
            v[i] = prop && (isnan(x[i]) || isnan(coef)) ? NAN : r;
        }
        break;
    case CUDNN_ACTIVATION_IDENTITY:
        for (int i = 0; i < n; i++)
            v[i] = dy[i];
        break;
    default:
        for (int i = 0; i < n; i++)
            v[i] = fd_act_bwd_value(a, y[i], dy[i], x[i]);
        break;
    }
}

static void fwd_run(const void *ctx, int len, char *const *ptr, const int64_t *inc)
{
    const act_ctx_t *c = ctx;
    double x[FD_CPU_BLK], v[FD_CPU_BLK];
    fd_cpu_load(c->dt, ptr[1], inc[1], len, x);
    fwd_block(c->act, len, x, v);
    fd_cpu_store(c->dt, ptr[0], inc[0], len, v, c->alpha, c->beta);
}

static void bwd_run(const void *ctx, int len, char *const *ptr, const int64_t *inc)
{
    const act_ctx_t *c = ctx;
    double y[FD_CPU_BLK], dy[FD_CPU_BLK], x[FD_CPU_BLK], v[FD_CPU_BLK];
    fd_cpu_load(c->dt, ptr[1], inc[1], len, y);
    fd_cpu_load(c->dt, ptr[2], inc[2], len, dy);
    /* IDENTITY, SIGMOID and TANH never look at x */
    if (c->act->mode != CUDNN_ACTIVATION_IDENTITY && c->act->mode != CUDNN_ACTIVATION_SIGMOID &&
        c->act->mode != CUDNN_ACTIVATION_TANH)
        fd_cpu_load(c->dt, ptr[3], inc[3], len, x);
    else
        memset(x, 0, (size_t)len * sizeof *x);
    bwd_block(c->act, len, y, dy, x, v);
    fd_cpu_store(c->dt, ptr[0], inc[0], len, v, c->alpha, c->beta);
}

static int plan(const fd_act_problem_t *p, int bwd, fd_cpu_ew_t *e, char *why, size_t why_size)
{
    if (!fd_cpu_dtype_ok(p->dt)) {
        snprintf(why, why_size, "%s stays with ref", fd_dtype_name(p->dt));
        return 0;
    }
    if (bwd && p->act.mode == CUDNN_ACTIVATION_SWISH) {
        /* the sign of a NaN gradient depends on the compiler's operand order, in the ref too
         * (see the header comment) */
        snprintf(why, why_size, "swish backward stays with ref");
        return 0;
    }
    const int64_t *fs[2] = {p->ys, p->xs};
    const int64_t *bs[4] = {p->dxs, p->ys, p->dys, p->xs};
    const cudnnDataType_t dts[4] = {p->dt, p->dt, p->dt, p->dt};
    return bwd ? fd_cpu_ew_plan(e, p->nb_dims, p->dim, 4, bs, dts, why, why_size)
               : fd_cpu_ew_plan(e, p->nb_dims, p->dim, 2, fs, dts, why, why_size);
}

int fd_act_fwd_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    fd_cpu_ew_t e = {0};
    return plan(problem, 0, &e, why, why_size);
}

size_t fd_act_fwd_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_act_fwd_cpu_run(const void *problem, const void *args)
{
    const fd_act_problem_t *p = problem;
    const fd_act_args_t *a = args;
    fd_cpu_ew_t e = {0};
    char why[128];
    plan(p, 0, &e, why, sizeof why);
    act_ctx_t c = {&p->act, p->dt, a->alpha, a->beta};
    char *base[2] = {(char *)a->out, (char *)a->x};
    fd_cpu_ew_run(&e, base, fwd_run, &c);
    return CUDNN_STATUS_SUCCESS;
}

int fd_act_bwd_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    fd_cpu_ew_t e = {0};
    return plan(problem, 1, &e, why, why_size);
}

size_t fd_act_bwd_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_act_bwd_cpu_run(const void *problem, const void *args)
{
    const fd_act_problem_t *p = problem;
    const fd_act_args_t *a = args;
    fd_cpu_ew_t e = {0};
    char why[128];
    plan(p, 1, &e, why, sizeof why);
    act_ctx_t c = {&p->act, p->dt, a->alpha, a->beta};
    char *base[4] = {(char *)a->out, (char *)a->y, (char *)a->dy, (char *)a->x};
    fd_cpu_ew_run(&e, base, bwd_run, &c);
    return CUDNN_STATUS_SUCCESS;
}
