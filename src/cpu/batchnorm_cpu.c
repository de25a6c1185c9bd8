/* SPDX-License-Identifier: MIT */
/*
 * batchnorm_cpu.c - cpu batch normalization: forward inference, forward training, backward
 * (FD_OP_BN_FWD_INFER / _FWD_TRAIN / _BWD cpu rows), per channel (SPATIAL, SPATIAL_PERSISTENT)
 * and per activation, with the fused activation of the *Ex / v8 entries.
 *
 * Bit-identical to the ref rows (src/ref/batchnorm_ref.c, mathematics in src/core/batchnorm.h),
 * reductions included: the ref sums each group (a channel, or a (c, spatial) position per
 * activation) sequentially in member order in double, and so does every lane here. A block of
 * groups runs as lanes: up to FD_CPU_BLK channels when C is x's unit stride (NHWC), 16 when it
 * is not (NCHW: 16 sequential streams along the spatial dims, which the prefetcher follows and
 * whose independent dependency chains hide the latency of the adds); per activation, the lanes
 * run along whichever of C and the spatial dims is x's smaller stride. Each block makes the
 * ref's passes (sum, squared deviations, output; backward: sums of g and g * xhat, then dx).
 * Threads: a block is one unit of work and owns its groups' outputs, and the blocks depend
 * only on the problem, so the results are the same for any OMP_NUM_THREADS.
 * Needs data tensors whose spatial dims collapse into one strided run (every packed layout,
 * NCHW and NHWC alike) and packed parameters. Declined (the ref row serves them):
 * BN_ADD_ACTIVATION in training and backward (its reserve-space bits would be shared between
 * blocks), other data types, other strides. No workspace.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3,fp-contract=off")
#endif
#include "../core/batchnorm.h"
#include "memop.h"

#define BLK FD_CPU_BLK
#define BLK_STRIDED 16

/* A data tensor as (n, c, s) with the spatial dims collapsed. */
typedef struct {
    int64_t n, c, s; /* strides in elements */
} view_t;

/* 0 when t's spatial dims do not collapse into one strided run. */
static int view_of(const struct cudnnTensorStruct *t, view_t *v)
{
    if (t->nb_dims == 0) {
        v->n = v->c = v->s = 0;
        return 1;
    }
    v->n = t->stride[0], v->c = t->stride[1], v->s = 1;
    int64_t next = -1; /* stride the next outer spatial dim must have */
    for (int i = t->nb_dims - 1; i >= 2; i--) {
        if (t->dim[i] == 1)
            continue;
        if (next < 0)
            v->s = t->stride[i];
        else if (t->stride[i] != next)
            return 0;
        next = t->stride[i] * t->dim[i];
    }
    return v->n >= 0 && v->c >= 0 && v->s >= 0;
}

/* The whole problem in lanes. */
typedef struct {
    const fd_bn_problem_t *p;
    int64_t N, C, S, M;
    int along_c;  /* lanes along C (always, per channel); else along the spatial dims */
    int lanes;    /* lanes per block */
    int64_t nblk; /* blocks along the lane dim */
    int64_t units;
    view_t x, y, z, dy, dx;
    int64_t sb_c, mv_c; /* parameter strides along C; the spatial part is packed */
} bn_plan_t;

static int plan(const fd_bn_problem_t *p, bn_plan_t *b, char *why, size_t why_size)
{
    memset(b, 0, sizeof *b);
    b->p = p;
    if (!fd_cpu_dtype_ok(p->x.dtype)) {
        snprintf(why, why_size, "%s stays with ref", fd_dtype_name(p->x.dtype));
        return 0;
    }
    if (p->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION && p->dir != FD_BN_INFER) {
        snprintf(why, why_size, "BN_ADD_ACTIVATION training / backward stays with ref");
        return 0;
    }
    if (!view_of(&p->x, &b->x) || !view_of(&p->y, &b->y) || !view_of(&p->z, &b->z) ||
        !view_of(&p->dy, &b->dy) || !view_of(&p->dx, &b->dx)) {
        snprintf(why, why_size, "spatial dims that do not collapse into one strided run");
        return 0;
    }
    b->N = p->x.dim[0], b->C = p->x.dim[1], b->S = 1;
    for (int i = 2; i < p->x.nb_dims; i++)
        b->S *= p->x.dim[i];
    b->M = p->per_activation ? b->N : b->N * b->S;
    b->sb_c = p->sb.stride[1], b->mv_c = p->mv.stride[1];
    if (p->per_activation && b->S > 1) {
        view_t ps, pm;
        if (!view_of(&p->sb, &ps) || !view_of(&p->mv, &pm) || ps.s != 1 || pm.s != 1 ||
            ps.c != b->S || pm.c != b->S) {
            snprintf(why, why_size, "parameter tensors that are not packed");
            return 0;
        }
    }
    b->along_c = !p->per_activation || b->S == 1 || b->x.c <= b->x.s;
    int64_t inc = b->along_c ? b->x.c : b->x.s;
    int64_t extent = b->along_c ? b->C : b->S;
    b->lanes = inc == 1 ? BLK : BLK_STRIDED;
    b->nblk = (extent + b->lanes - 1) / b->lanes;
    b->units = b->nblk * (p->per_activation ? (b->along_c ? b->S : b->C) : 1);
    return 1;
}

/* One block: groups of lanes j < len. Member k of the block is (n, s): per channel n < N and
 * s < S with the lanes along C; per activation n < N, the lanes spanning C or S at a fixed
 * other index. off(t) = the lane-0 offset of member (n, s) in tensor t, lane j at + j * inc. */
typedef struct {
    int len;
    int64_t c0, s0;  /* first lane's channel and spatial index */
    int64_t ms;      /* spatial members: S per channel, 1 per activation */
    int64_t pidx[2]; /* parameter offset of lane 0 in sb, mv */
    int64_t pinc[2]; /* and per lane */
} blk_t;

static blk_t block_of(const bn_plan_t *b, int64_t u)
{
    blk_t k;
    int64_t lb = u % b->nblk, other = u / b->nblk;
    int64_t l0 = lb * b->lanes;
    int64_t extent = b->along_c ? b->C : b->S;
    k.len = (int)(extent - l0 < b->lanes ? extent - l0 : b->lanes);
    if (!b->p->per_activation) {
        k.c0 = l0, k.s0 = 0, k.ms = b->S;
        k.pidx[0] = l0 * b->sb_c, k.pidx[1] = l0 * b->mv_c;
        k.pinc[0] = b->sb_c, k.pinc[1] = b->mv_c;
    } else if (b->along_c) {
        k.c0 = l0, k.s0 = other, k.ms = 1;
        k.pidx[0] = l0 * b->sb_c + other, k.pidx[1] = l0 * b->mv_c + other;
        k.pinc[0] = b->sb_c, k.pinc[1] = b->mv_c;
    } else {
        k.c0 = other, k.s0 = l0, k.ms = 1;
        k.pidx[0] = other * b->sb_c + l0, k.pidx[1] = other * b->mv_c + l0;
        k.pinc[0] = 1, k.pinc[1] = 1;
    }
    return k;
}

static char *ptr_at(const void *base, cudnnDataType_t dt, int64_t off)
{
    return (char *)base + off * (int64_t)fd_dtype_size(dt);
}

static int64_t off_of(const view_t *v, const blk_t *k, int64_t n, int64_t s)
{
    return n * v->n + k->c0 * v->c + (k->s0 + s) * v->s;
}

static int64_t inc_of(const bn_plan_t *b, const view_t *v)
{
    return b->along_c ? v->c : v->s;
}

static double act_slope(const fd_bn_act_t *a, double u)
{
    switch (a->mode) {
    case CUDNN_ACTIVATION_RELU:
        return u > 0.0 ? 1.0 : 0.0;
    case CUDNN_ACTIVATION_CLIPPED_RELU:
        return u > 0.0 && !(u >= a->coef) ? 1.0 : 0.0;
    default:
        return fd_act_bwd_value(a, fd_act_fwd_value(a, u), 1.0, u);
    }
}

/* ---- forward ------------------------------------------------------------------------------ */

FD_CPU_CLONES static void sum_into(int n, const double *restrict v, double *restrict acc)
{
    for (int j = 0; j < n; j++)
        acc[j] += v[j];
}

FD_CPU_CLONES static void sq_into(int n, const double *restrict v, const double *restrict mean,
                                  double *restrict acc)
{
    for (int j = 0; j < n; j++) {
        double d = v[j] - mean[j];
        acc[j] += d * d;
    }
}

FD_CPU_CLONES static void affine(int n, const double *restrict x, const double *restrict sc,
                                 const double *restrict mean, const double *restrict inv,
                                 const double *restrict bias, double *restrict u)
{
    for (int j = 0; j < n; j++)
        u[j] = sc[j] * (x[j] - mean[j]) * inv[j] + bias[j];
}

/* The output pass: y of every member of block k given the lanes' statistics. */
static void forward_block(const bn_plan_t *b, const fd_bn_args_t *a, const blk_t *k,
                          const double *mean, const double *inv)
{
    const fd_bn_problem_t *p = b->p;
    const cudnnDataType_t dt = p->x.dtype;
    const int len = k->len;
    double sc[BLK], bi[BLK], v[BLK], u[BLK], zz[BLK];
    fd_cpu_load(p->sb.dtype, ptr_at(a->scale, p->sb.dtype, k->pidx[0]), k->pinc[0], len, sc);
    fd_cpu_load(p->sb.dtype, ptr_at(a->bias, p->sb.dtype, k->pidx[0]), k->pinc[0], len, bi);
    for (int64_t n = 0; n < b->N; n++)
        for (int64_t s = 0; s < k->ms; s++) {
            fd_cpu_load(dt, ptr_at(a->x, dt, off_of(&b->x, k, n, s)), inc_of(b, &b->x), len, v);
            affine(len, v, sc, mean, inv, bi, u);
            if (p->ops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION) {
                fd_cpu_load(dt, ptr_at(a->z, dt, off_of(&b->z, k, n, s)), inc_of(b, &b->z),
                            len, zz);
                for (int j = 0; j < len; j++)
                    u[j] += zz[j];
            }
            if (p->ops != CUDNN_BATCHNORM_OPS_BN)
                for (int j = 0; j < len; j++)
                    u[j] = fd_act_fwd_value(&p->act, u[j]);
            fd_cpu_store(dt, ptr_at(a->y, dt, off_of(&b->y, k, n, s)), inc_of(b, &b->y), len, u,
                         a->alpha, a->beta);
        }
}

/* Batch mean and biased variance of the block's lanes (two passes, member order). */
static void block_stats(const bn_plan_t *b, const void *x, const blk_t *k, double *mean,
                        double *var)
{
    const cudnnDataType_t dt = b->p->x.dtype;
    const int len = k->len;
    double v[BLK], acc[BLK];
    for (int j = 0; j < len; j++)
        acc[j] = 0.0;
    for (int64_t n = 0; n < b->N; n++)
        for (int64_t s = 0; s < k->ms; s++) {
            fd_cpu_load(dt, ptr_at(x, dt, off_of(&b->x, k, n, s)), inc_of(b, &b->x), len, v);
            sum_into(len, v, acc);
        }
    for (int j = 0; j < len; j++)
        mean[j] = acc[j] / (double)b->M, acc[j] = 0.0;
    for (int64_t n = 0; n < b->N; n++)
        for (int64_t s = 0; s < k->ms; s++) {
            fd_cpu_load(dt, ptr_at(x, dt, off_of(&b->x, k, n, s)), inc_of(b, &b->x), len, v);
            sq_into(len, v, mean, acc);
        }
    for (int j = 0; j < len; j++)
        var[j] = acc[j] / (double)b->M;
}

static int64_t work_of(const bn_plan_t *b)
{
    return b->N * b->C * b->S;
}

int fd_bn_fwd_infer_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    bn_plan_t b;
    return plan(problem, &b, why, why_size);
}

size_t fd_bn_fwd_infer_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_bn_fwd_infer_cpu_run(const void *problem, const void *args)
{
    const fd_bn_problem_t *p = problem;
    const fd_bn_args_t *a = args;
    bn_plan_t b;
    char why[128];
    plan(p, &b, why, sizeof why);
#pragma omp parallel for schedule(static) if (work_of(&b) >= FD_CPU_PAR_MIN)
    for (int64_t u = 0; u < b.units; u++) {
        blk_t k = block_of(&b, u);
        double mean[BLK], inv[BLK];
        fd_cpu_load(p->mv.dtype, ptr_at(a->mean, p->mv.dtype, k.pidx[1]), k.pinc[1], k.len, mean);
        fd_cpu_load(p->mv.dtype, ptr_at(a->var, p->mv.dtype, k.pidx[1]), k.pinc[1], k.len, inv);
        for (int j = 0; j < k.len; j++)
            inv[j] = 1.0 / sqrt(inv[j] + p->epsilon);
        forward_block(&b, a, &k, mean, inv);
    }
    return CUDNN_STATUS_SUCCESS;
}

int fd_bn_fwd_train_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    bn_plan_t b;
    return plan(problem, &b, why, why_size);
}

size_t fd_bn_fwd_train_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

cudnnStatus_t fd_bn_fwd_train_cpu_run(const void *problem, const void *args)
{
    const fd_bn_problem_t *p = problem;
    const fd_bn_args_t *a = args;
    bn_plan_t b;
    char why[128];
    plan(p, &b, why, sizeof why);
    const double f = a->factor, keep = 1.0 - a->factor;
    const cudnnDataType_t mt = p->mv.dtype;
#pragma omp parallel for schedule(static) if (work_of(&b) >= FD_CPU_PAR_MIN)
    for (int64_t u = 0; u < b.units; u++) {
        blk_t k = block_of(&b, u);
        double mean[BLK], var[BLK], inv[BLK], unb[BLK];
        block_stats(&b, a->x, &k, mean, var);
        for (int j = 0; j < k.len; j++) {
            inv[j] = 1.0 / sqrt(var[j] + p->epsilon);
            unb[j] = var[j] * (double)b.M / (double)(b.M - 1);
        }
        forward_block(&b, a, &k, mean, inv);
        if (a->run_mean != NULL)
            fd_cpu_store(mt, ptr_at(a->run_mean, mt, k.pidx[1]), k.pinc[1], k.len, mean, f, keep);
        if (a->run_var != NULL)
            fd_cpu_store(mt, ptr_at(a->run_var, mt, k.pidx[1]), k.pinc[1], k.len, unb, f, keep);
        if (a->save_mean != NULL) {
            fd_cpu_store(mt, ptr_at(a->save_mean, mt, k.pidx[1]), k.pinc[1], k.len, mean, 1.0, 0.0);
            fd_cpu_store(mt, ptr_at(a->save_inv, mt, k.pidx[1]), k.pinc[1], k.len, inv, 1.0, 0.0);
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- backward ----------------------------------------------------------------------------- */

int fd_bn_bwd_cpu_applicable(const void *problem, char *why, size_t why_size)
{
    bn_plan_t b;
    return plan(problem, &b, why, why_size);
}

size_t fd_bn_bwd_cpu_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

/* g = dy * act'(u) and xhat of one member's lanes. */
static void grad_in(const bn_plan_t *b, const fd_bn_args_t *a, const blk_t *k, int64_t n,
                    int64_t s, const double *mean, const double *inv, const double *sc,
                    const double *bi, double *g, double *xh)
{
    const fd_bn_problem_t *p = b->p;
    const cudnnDataType_t dt = p->x.dtype;
    const int len = k->len;
    fd_cpu_load(dt, ptr_at(a->x, dt, off_of(&b->x, k, n, s)), inc_of(b, &b->x), len, xh);
    fd_cpu_load(dt, ptr_at(a->dy, dt, off_of(&b->dy, k, n, s)), inc_of(b, &b->dy), len, g);
    for (int j = 0; j < len; j++)
        xh[j] = (xh[j] - mean[j]) * inv[j];
    if (p->ops == CUDNN_BATCHNORM_OPS_BN_ACTIVATION)
        for (int j = 0; j < len; j++)
            g[j] = g[j] * act_slope(&p->act, sc[j] * xh[j] + bi[j]);
}

cudnnStatus_t fd_bn_bwd_cpu_run(const void *problem, const void *args)
{
    const fd_bn_problem_t *p = problem;
    const fd_bn_args_t *a = args;
    bn_plan_t b;
    char why[128];
    plan(p, &b, why, sizeof why);
    const double M = (double)b.M;
    const cudnnDataType_t dt = p->x.dtype, mt = p->mv.dtype, st = p->sb.dtype;
#pragma omp parallel for schedule(static) if (work_of(&b) >= FD_CPU_PAR_MIN)
    for (int64_t u = 0; u < b.units; u++) {
        blk_t k = block_of(&b, u);
        const int len = k.len;
        double mean[BLK], inv[BLK], sc[BLK], bi[BLK], g[BLK], xh[BLK], sg[BLK], sgx[BLK];
        if (a->mean != NULL) {
            fd_cpu_load(mt, ptr_at(a->mean, mt, k.pidx[1]), k.pinc[1], len, mean);
            fd_cpu_load(mt, ptr_at(a->var, mt, k.pidx[1]), k.pinc[1], len, inv);
        } else {
            block_stats(&b, a->x, &k, mean, inv);
            for (int j = 0; j < len; j++)
                inv[j] = 1.0 / sqrt(inv[j] + p->epsilon);
        }
        fd_cpu_load(st, ptr_at(a->scale, st, k.pidx[0]), k.pinc[0], len, sc);
        if (a->bias != NULL)
            fd_cpu_load(st, ptr_at(a->bias, st, k.pidx[0]), k.pinc[0], len, bi);
        else
            for (int j = 0; j < len; j++)
                bi[j] = 0.0;
        for (int j = 0; j < len; j++)
            sg[j] = 0.0, sgx[j] = 0.0;
        for (int64_t n = 0; n < b.N; n++)
            for (int64_t s = 0; s < k.ms; s++) {
                grad_in(&b, a, &k, n, s, mean, inv, sc, bi, g, xh);
                for (int j = 0; j < len; j++) {
                    sg[j] += g[j];
                    sgx[j] += g[j] * xh[j];
                }
            }
        double mg[BLK], mgx[BLK], v[BLK];
        for (int j = 0; j < len; j++)
            mg[j] = sg[j] / M, mgx[j] = sgx[j] / M;
        for (int64_t n = 0; n < b.N; n++)
            for (int64_t s = 0; s < k.ms; s++) {
                grad_in(&b, a, &k, n, s, mean, inv, sc, bi, g, xh);
                for (int j = 0; j < len; j++)
                    v[j] = sc[j] * inv[j] * (g[j] - mg[j] - xh[j] * mgx[j]);
                fd_cpu_store(dt, ptr_at(a->dx, dt, off_of(&b.dx, &k, n, s)), inc_of(&b, &b.dx),
                             len, v, a->alpha, a->beta);
            }
        fd_cpu_store(st, ptr_at(a->dscale, st, k.pidx[0]), k.pinc[0], len, sgx, a->alpha_param,
                     a->beta_param);
        fd_cpu_store(st, ptr_at(a->dbias, st, k.pidx[0]), k.pinc[0], len, sg, a->alpha_param,
                     a->beta_param);
    }
    return CUDNN_STATUS_SUCCESS;
}
