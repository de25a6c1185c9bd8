/* SPDX-License-Identifier: MIT */
/*
 * activation_cpu.c - cpu activation forward and backward (FD_OP_ACT_FWD / _BWD cpu rows).
 *
 * The elementwise engine of memop.h (any non-negative strides, NCHW and NHWC alike, threaded
 * in thread-count-independent units) with one block kernel per direction. Every value is the
 * ref's: RELU, CLIPPED_RELU and IDENTITY (and the SIGMOID / TANH derivatives, which are
 * arithmetic on y) are vectorised restatements of src/core/activation.h in the same operation
 * order. The modes that need exp / tanh / expm1 (SIGMOID, TANH, ELU, SWISH forward, ELU
 * backward) with a FLOAT, HALF or BFLOAT16 output are computed with memop.h's vectorised exp
 * in double, whose error against libm's is far below 2^-40 relative; a lane is kept only when
 * the output it rounds to is the same at both ends of v (1 +- 2^-40) + -2^-1070 (blend and
 * rounding are monotone in v, so libm's value, inside that interval, rounds the same), and the
 * other lanes (about 2^-15 of them, plus NaN, infinities, |x| > 64 for SIGMOID / SWISH and
 * x < -700 for ELU) are recomputed
 * with the scalar definitions: the bits stay the ref's. DOUBLE outputs call the scalar
 * definitions throughout (no rounding after them to hide the approximation in). FLOAT, DOUBLE, HALF, BFLOAT16; no workspace; y may be x (same
 * strides). Outputs of FD_CPU_NT_MIN bytes or more with beta = 0 are streamed (memop.h).
 * SWISH forward goes through fd_act_fwd_value, which returns a NaN x itself (x * s with
 * s = sigmoid(beta x) would multiply two NaNs of opposite signs, and x86 returns the first
 * operand's: the compiler's choice, so the ref's bits depended on its build). SWISH backward is
 * declined for the same reason (its NaN gradients' signs follow the operand order).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3,fp-contract=off,no-trapping-math") /* value-neutral: selects vectorise */
#endif
#include "../core/activation.h"
#include "memop.h"

typedef struct {
    const fd_act_params_t *act;
    cudnnDataType_t dt;
    double alpha, beta;
    int nt; /* streaming stores (fd_cpu_nt_want) */
} act_ctx_t;

/* Forward SIGMOID, TANH, ELU, SWISH and backward ELU with memop.h's exp: within 2^-46
 * relative of the exact value (measured, tests/impl/test_cpu_eltwise_fast.c), or NaN where the
 * lane must take the scalar path (NaN or infinite x, arguments outside the range where the
 * approximation is claimed: |x| > 64 through a reciprocal, x < -700 through expm1). */
FD_CPU_CLONES static void approx_block(const fd_act_params_t *a, int bwd, int n,
                                       const double *restrict x, const double *restrict dy,
                                       double *restrict v)
{
    const double coef = a->coef, sb = a->swish_beta;
    if (bwd) { /* ELU: x > 0 ? dy : dy * coef * e^x */
        for (int i = 0; i < n; i++) {
            double r = dy[i] * coef * fd_cpu_exp_v(x[i]);
            v[i] = x[i] > 0.0 ? dy[i] : x[i] >= -700.0 ? r : NAN;
        }
        return;
    }
    switch (a->mode) {
    case CUDNN_ACTIVATION_SIGMOID: /* |x| <= 64 keeps 1 + e^-x within fd_cpu_recip_v's range */
        for (int i = 0; i < n; i++) {
            double r = fd_cpu_recip_v(1.0 + fd_cpu_exp_v(-x[i]));
            v[i] = fabs(x[i]) <= 64.0 ? r : NAN;
        }
        break;
    case CUDNN_ACTIVATION_TANH: /* e / (e + 2), e = expm1(2|x|): no cancellation near 0 */
        for (int i = 0; i < n; i++) {
            double ax = fabs(x[i]), em = fd_cpu_expm1_v(2.0 * ax);
            double r = ax > 20.0 ? 1.0 : em * fd_cpu_recip_v(em + 2.0); /* 1 - tanh(20) < 2^-56 */
            r = ax == ax ? r : NAN;
            v[i] = copysign(r, x[i]);
        }
        break;
    case CUDNN_ACTIVATION_ELU:
        for (int i = 0; i < n; i++) {
            double r = coef * fd_cpu_expm1_v(x[i]);
            v[i] = x[i] > 0.0 ? x[i] : x[i] >= -700.0 ? r : NAN;
        }
        break;
    default: /* SWISH: x sigmoid(beta x) */
        if (sb == 0.0) { /* sigmoid(0) = 1 / (1 + 1), exactly: not 0 * inf */
            for (int i = 0; i < n; i++)
                v[i] = x[i] * 0.5;
            break;
        }
        for (int i = 0; i < n; i++) {
            double bx = sb * x[i], sg = fd_cpu_recip_v(1.0 + fd_cpu_exp_v(-bx));
            v[i] = fabs(bx) <= 64.0 ? x[i] * sg : NAN;
        }
        break;
    }
}

/* Marks (bad[i] = 1) the lanes whose float output might differ from the one an exact v would
 * give: any value within 2^-40 |v| + 2^-1070 of v[i] blends (alpha, beta, old) and rounds to
 * the same float bits when both ends of that interval do. Returns the number marked. */
FD_CPU_CLONES static int bracket(cudnnDataType_t dt, int n, const double *restrict v,
                                 const double *restrict old, double alpha, double beta,
                                 unsigned char *restrict bad)
{
    int count = 0;
    double lo[FD_CPU_BLK], hi[FD_CPU_BLK];
    for (int i = 0; i < n; i++) {
        double e = fabs(v[i]) * 0x1p-40 + 0x1p-1070;
        lo[i] = alpha * (v[i] - e), hi[i] = alpha * (v[i] + e);
    }
    if (beta != 0.0)
        for (int i = 0; i < n; i++)
            lo[i] += beta * old[i], hi[i] += beta * old[i];
    uint32_t bl[FD_CPU_BLK], bh[FD_CPU_BLK]; /* the output's bits at both ends */
    if (dt == CUDNN_DATA_FLOAT)
        for (int i = 0; i < n; i++)
            bl[i] = fd_cpu_bits_of_f32((float)lo[i]), bh[i] = fd_cpu_bits_of_f32((float)hi[i]);
    else if (dt == CUDNN_DATA_HALF)
        for (int i = 0; i < n; i++)
            bl[i] = fd_cpu_f16_store(lo[i]), bh[i] = fd_cpu_f16_store(hi[i]);
    else
        for (int i = 0; i < n; i++)
            bl[i] = fd_cpu_bf16_store(lo[i]), bh[i] = fd_cpu_bf16_store(hi[i]);
    for (int i = 0; i < n; i++) {
        int b = (bl[i] != bh[i]) | !(fabs(v[i]) < INFINITY);
        bad[i] = (unsigned char)b;
        count += b;
    }
    return count;
}

static int approx_mode(const fd_act_params_t *a, int bwd)
{
    if (bwd)
        return a->mode == CUDNN_ACTIVATION_ELU;
    return a->mode == CUDNN_ACTIVATION_SIGMOID || a->mode == CUDNN_ACTIVATION_TANH ||
           a->mode == CUDNN_ACTIVATION_ELU || a->mode == CUDNN_ACTIVATION_SWISH;
}

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

/* v from the vectorised exp, with the lanes bracket() cannot vouch for recomputed by the
 * scalar definitions (FLOAT, HALF and BFLOAT16 outputs). */
static void approx_fix(const act_ctx_t *c, int bwd, int len, char *out, int64_t inc,
                       const double *x, const double *y, const double *dy, double *v)
{
    double old[FD_CPU_BLK];
    unsigned char bad[FD_CPU_BLK];
    approx_block(c->act, bwd, len, x, dy, v);
    if (c->beta != 0.0)
        fd_cpu_load(c->dt, out, inc, len, old);
    if (bracket(c->dt, len, v, old, c->alpha, c->beta, bad) == 0)
        return;
    for (int i = 0; i < len; i++)
        if (bad[i])
            v[i] = bwd ? fd_act_bwd_value(c->act, y[i], dy[i], x[i]) : fd_act_fwd_value(c->act, x[i]);
}

/* FLOAT with unit strides, RELU / CLIPPED_RELU / IDENTITY: the mode, the blend and the
 * rounding in one pass (no double blocks in memory), with fwd_block's and fd_cpu_store's
 * operations in their order, so the same bits. r may not be x or old (the caller's buffer). */
#define FWD_F32_LOOP(EXPR)                                                                     \
    do {                                                                                       \
        if (beta == 0.0)                                                                       \
            for (int i = 0; i < n; i++) {                                                      \
                const double xv = x[i];                                                        \
                (void)xv;                                                                      \
                r[i] = (float)(alpha * (EXPR));                                                \
            }                                                                                  \
        else                                                                                   \
            for (int i = 0; i < n; i++) {                                                      \
                const double xv = x[i];                                                        \
                (void)xv;                                                                      \
                r[i] = (float)(alpha * (EXPR) + beta * (double)old[i]);                        \
            }                                                                                  \
    } while (0)

FD_CPU_CLONES static void fwd_f32(const fd_act_params_t *a, int n, const float *restrict x,
                                  const float *restrict old, float *restrict r, double alpha,
                                  double beta)
{
    const double coef = a->coef;
    const int prop = a->propagate_nan, cnan = isnan(coef);
    switch (a->mode) {
    case CUDNN_ACTIVATION_RELU:
        if (prop)
            FWD_F32_LOOP(isnan(xv) ? xv : xv > 0.0 ? xv : 0.0);
        else
            FWD_F32_LOOP(xv > 0.0 ? xv : 0.0);
        break;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        if (prop && cnan)
            FWD_F32_LOOP(NAN);
        else if (prop)
            FWD_F32_LOOP(isnan(xv) ? NAN : (xv > 0.0 ? xv : 0.0) > coef ? coef : (xv > 0.0 ? xv : 0.0));
        else
            FWD_F32_LOOP((xv > 0.0 ? xv : 0.0) > coef ? coef : (xv > 0.0 ? xv : 0.0));
        break;
    default: /* IDENTITY */
        FWD_F32_LOOP(xv);
        break;
    }
}

static int fwd_f32_mode(cudnnActivationMode_t m)
{
    return m == CUDNN_ACTIVATION_RELU || m == CUDNN_ACTIVATION_CLIPPED_RELU ||
           m == CUDNN_ACTIVATION_IDENTITY;
}

static void fwd_run(const void *ctx, int len, char *const *ptr, const int64_t *inc)
{
    const act_ctx_t *c = ctx;
    if (c->dt == CUDNN_DATA_FLOAT && inc[0] == 1 && inc[1] == 1 && fwd_f32_mode(c->act->mode)) {
        float r[FD_CPU_BLK];
        fwd_f32(c->act, len, (const float *)(const void *)ptr[1], (const float *)(const void *)ptr[0],
                r, c->alpha, c->beta);
        if (c->nt)
            fd_cpu_stream(ptr[0], r, sizeof(float) * (size_t)len);
        else
            memcpy(ptr[0], r, sizeof(float) * (size_t)len);
        return;
    }
    double x[FD_CPU_BLK], v[FD_CPU_BLK];
    fd_cpu_load(c->dt, ptr[1], inc[1], len, x);
    if (c->dt != CUDNN_DATA_DOUBLE && approx_mode(c->act, 0))
        approx_fix(c, 0, len, ptr[0], inc[0], x, NULL, NULL, v);
    else
        fwd_block(c->act, len, x, v);
    fd_cpu_store_ex(c->dt, ptr[0], inc[0], len, v, c->alpha, c->beta, c->nt);
}

static void bwd_run(const void *ctx, int len, char *const *ptr, const int64_t *inc)
{
    const act_ctx_t *c = ctx;
    double y[FD_CPU_BLK], dy[FD_CPU_BLK], x[FD_CPU_BLK], v[FD_CPU_BLK];
    const cudnnActivationMode_t m = c->act->mode;
    /* IDENTITY never looks at y or x, SIGMOID and TANH never at x, the others never at y */
    if (m == CUDNN_ACTIVATION_SIGMOID || m == CUDNN_ACTIVATION_TANH)
        fd_cpu_load(c->dt, ptr[1], inc[1], len, y);
    else
        memset(y, 0, (size_t)len * sizeof *y);
    fd_cpu_load(c->dt, ptr[2], inc[2], len, dy);
    if (m != CUDNN_ACTIVATION_IDENTITY && m != CUDNN_ACTIVATION_SIGMOID &&
        m != CUDNN_ACTIVATION_TANH)
        fd_cpu_load(c->dt, ptr[3], inc[3], len, x);
    else
        memset(x, 0, (size_t)len * sizeof *x);
    if (c->dt != CUDNN_DATA_DOUBLE && approx_mode(c->act, 1))
        approx_fix(c, 1, len, ptr[0], inc[0], x, y, dy, v);
    else
        bwd_block(c->act, len, y, dy, x, v);
    fd_cpu_store_ex(c->dt, ptr[0], inc[0], len, v, c->alpha, c->beta, c->nt);
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
    char *base[2] = {(char *)a->out, (char *)a->x};
    act_ctx_t c = {&p->act, p->dt, a->alpha, a->beta, fd_cpu_nt_want(&e, base, a->beta)};
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
    char *base[4] = {(char *)a->out, (char *)a->y, (char *)a->dy, (char *)a->x};
    act_ctx_t c = {&p->act, p->dt, a->alpha, a->beta, fd_cpu_nt_want(&e, base, a->beta)};
    fd_cpu_ew_run(&e, base, bwd_run, &c);
    return CUDNN_STATUS_SUCCESS;
}
