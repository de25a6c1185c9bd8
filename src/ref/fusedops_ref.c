/* SPDX-License-Identifier: MIT */
/*
 * fusedops_ref.c - reference for the seven cudnnFusedOps_t sequences (definitions in
 * src/core/fusedops.h).
 *
 * Plain loops over the flat problem with element strides (NCHW, NHWC, padded: any layout),
 * double arithmetic, one rounding per stored value; FLOAT and HALF data, FLOAT or HALF
 * equivalent scale/bias, FLOAT statistics. Ops 0 and 1 write the transformed input t (rounded to
 * x's type, as a separate activation call would store it) to the caller's workspace as packed
 * NCHW and hand it to the reference convolution (src/ref/conv_ref.c); the other ops need no
 * workspace. Deterministic: fixed loop orders, no scatter.
 */
#include <math.h>
#include <string.h>

#include "../core/fusedops.h"

/* The reference convolution rows of src/impls.def (src/ref/conv_ref.c). */
cudnnStatus_t fd_conv_fwd_ref_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);
cudnnStatus_t fd_conv_bwd_filter_ref_run(const fd_conv_problem_t *p, const fd_conv_args_t *a);

static inline int64_t toff(const fd_fused_tensor_t *t, int64_t n, int64_t c, int64_t h, int64_t w)
{
    return n * t->s[0] + c * t->s[1] + h * t->s[2] + w * t->s[3];
}

static inline double vload(const fd_fused_vec_t *v, const void *base, int64_t c)
{
    return fd_load(v->dt, base, c * v->s);
}

static inline void vstore(const fd_fused_vec_t *v, void *base, int64_t c, double value)
{
    fd_store(v->dt, base, c * v->s, value);
}

/* Bit c of bitmask row r (layout in src/core/fusedops.h). */
static inline int bitmask_get(const fd_fused_problem_t *p, const void *bm, int64_t r, int64_t c)
{
    uint32_t word;
    memcpy(&word, (const char *)bm + (size_t)(r * p->bm_words + c / 32) * sizeof word, sizeof word);
    return (int)((word >> (c % 32)) & 1u);
}

static int always(const void *problem, char *why, size_t why_size)
{
    (void)problem, (void)why, (void)why_size;
    return 1; /* src/api/fusedops.c admits only what this file computes */
}

static size_t no_workspace(const void *problem)
{
    (void)problem;
    return 0;
}

/* ---- ops 0 and 1: t = act([eqScale] x [+ eqBias]) into the workspace --------------------- */

static size_t transform_workspace(const void *problem)
{
    const fd_fused_problem_t *p = problem;
    if (!p->transform)
        return 0;
    return (size_t)(p->x.n * p->x.c * p->x.h * p->x.w) * fd_dtype_size(p->x.dt);
}

/* Returns the convolution's input: x itself, or t written packed NCHW to the workspace. */
static const void *transform_x(const fd_fused_problem_t *p, const fd_fused_args_t *a)
{
    const fd_fused_tensor_t *x = &p->x;
    if (!p->transform)
        return a->ptr[CUDNN_PTR_XDATA];
    const void *xd = a->ptr[CUDNN_PTR_XDATA];
    const void *sc = fd_fused_uses(p, CUDNN_PTR_BN_EQSCALE) ? a->ptr[CUDNN_PTR_BN_EQSCALE] : NULL;
    const void *bi = fd_fused_uses(p, CUDNN_PTR_BN_EQBIAS) ? a->ptr[CUDNN_PTR_BN_EQBIAS] : NULL;
    void *t = a->ptr[CUDNN_PTR_WORKSPACE];
    int64_t i = 0;
    for (int64_t n = 0; n < x->n; n++)
        for (int64_t c = 0; c < x->c; c++) {
            double s = sc ? vload(&p->eq, sc, c) : 1.0, b = bi ? vload(&p->eq, bi, c) : 0.0;
            for (int64_t h = 0; h < x->h; h++)
                for (int64_t w = 0; w < x->w; w++, i++) {
                    double v = fd_load(x->dt, xd, toff(x, n, c, h, w));
                    if (sc)
                        v *= s;
                    if (bi)
                        v += b;
                    fd_store(x->dt, t, i, fd_act_fwd_value(&p->act, v));
                }
        }
    return t;
}

int fd_fused_conv_bnstats_ref_applicable(const void *problem, char *why, size_t why_size)
{
    return always(problem, why, why_size);
}
size_t fd_fused_conv_bnstats_ref_workspace(const void *problem)
{
    return transform_workspace(problem);
}

cudnnStatus_t fd_fused_conv_bnstats_ref_run(const void *problem, const void *args)
{
    const fd_fused_problem_t *p = problem;
    const fd_fused_args_t *a = args;
    const fd_conv_problem_t *cp = &p->conv;
    fd_conv_args_t ca = {.x = transform_x(p, a),
                         .w = a->ptr[CUDNN_PTR_WDATA],
                         .out = a->ptr[CUDNN_PTR_YDATA],
                         .alpha = 1.0};
    FD_TRY(fd_conv_fwd_ref_run(cp, &ca));
    void *sum = fd_fused_uses(p, CUDNN_PTR_YSUM) ? a->ptr[CUDNN_PTR_YSUM] : NULL;
    void *sq = fd_fused_uses(p, CUDNN_PTR_YSQSUM) ? a->ptr[CUDNN_PTR_YSQSUM] : NULL;
    if (sum == NULL && sq == NULL)
        return CUDNN_STATUS_SUCCESS;
    /* statistics of y as stored: the values a following batch norm reads */
    const void *y = a->ptr[CUDNN_PTR_YDATA];
    for (int64_t k = 0; k < cp->k; k++) {
        double s = 0.0, q = 0.0;
        for (int64_t n = 0; n < cp->n; n++)
            for (int64_t o0 = 0; o0 < cp->out[0]; o0++)
                for (int64_t o1 = 0; o1 < cp->out[1]; o1++)
                    for (int64_t o2 = 0; o2 < cp->out[2]; o2++) {
                        double v = fd_load(cp->ydt, y,
                                           n * cp->ys[0] + k * cp->ys[1] + o0 * cp->ys[2] +
                                               o1 * cp->ys[3] + o2 * cp->ys[4]);
                        s += v;
                        q += v * v;
                    }
        if (sum)
            vstore(&p->stats, sum, k, s);
        if (sq)
            vstore(&p->stats, sq, k, q);
    }
    return CUDNN_STATUS_SUCCESS;
}

int fd_fused_wgrad_ref_applicable(const void *problem, char *why, size_t why_size)
{
    return always(problem, why, why_size);
}
size_t fd_fused_wgrad_ref_workspace(const void *problem)
{
    return transform_workspace(problem);
}

cudnnStatus_t fd_fused_wgrad_ref_run(const void *problem, const void *args)
{
    const fd_fused_problem_t *p = problem;
    const fd_fused_args_t *a = args;
    fd_conv_args_t ca = {.x = transform_x(p, a),
                         .y = a->ptr[CUDNN_PTR_DYDATA],
                         .out = a->ptr[CUDNN_PTR_DWDATA],
                         .alpha = 1.0};
    return fd_conv_bwd_filter_ref_run(&p->conv, &ca);
}

/* ---- ops 2 and 3: batch-norm finalisation ------------------------------------------------- */

int fd_fused_bn_finalize_train_ref_applicable(const void *problem, char *why, size_t why_size)
{
    return always(problem, why, why_size);
}
size_t fd_fused_bn_finalize_train_ref_workspace(const void *problem)
{
    return no_workspace(problem);
}

cudnnStatus_t fd_fused_bn_finalize_train_ref_run(const void *problem, const void *args)
{
    const fd_fused_problem_t *p = problem;
    const fd_fused_args_t *a = args;
    void *const *ptr = a->ptr;
#define PTR_IF(label) (fd_fused_uses(p, label) ? ptr[label] : NULL)
    void *eqs = PTR_IF(CUDNN_PTR_BN_EQSCALE), *eqb = PTR_IF(CUDNN_PTR_BN_EQBIAS);
    void *smean = PTR_IF(CUDNN_PTR_BN_SAVED_MEAN), *sinv = PTR_IF(CUDNN_PTR_BN_SAVED_INVSTD);
    void *rmean = PTR_IF(CUDNN_PTR_BN_RUNNING_MEAN), *rvar = PTR_IF(CUDNN_PTR_BN_RUNNING_VAR);
    const void *scale = PTR_IF(CUDNN_PTR_BN_SCALE), *bias = PTR_IF(CUDNN_PTR_BN_BIAS);
#undef PTR_IF
    const double m = (double)a->acc_count, f = a->exp_avg_factor, keep = 1.0 - f;
    for (int64_t c = 0; c < p->stats.c; c++) {
        double mean = vload(&p->stats, ptr[CUDNN_PTR_YSUM], c) / m;
        double var = vload(&p->stats, ptr[CUDNN_PTR_YSQSUM], c) / m - mean * mean;
        if (var < 0.0) /* E[y^2] - E[y]^2 may round below 0 */
            var = 0.0;
        double inv = 1.0 / sqrt(var + a->epsilon);
        if (eqs || eqb) {
            double es = vload(&p->bnp, scale, c) * inv;
            if (eqs)
                vstore(&p->eq, eqs, c, es);
            if (eqb)
                vstore(&p->eq, eqb, c, vload(&p->bnp, bias, c) - mean * es);
        }
        if (smean)
            vstore(&p->bnp, smean, c, mean);
        if (sinv)
            vstore(&p->bnp, sinv, c, inv);
        /* f == 1 replaces the running values without reading them (they may be NaN) */
        if (rmean)
            vstore(&p->bnp, rmean, c,
                   f * mean + (keep != 0.0 ? keep * vload(&p->bnp, rmean, c) : 0.0));
        if (rvar) {
            double unbiased = var * m / (m - 1.0); /* 0 / 0 = NaN for M = 1, as cuDNN 9.19 */
            vstore(&p->bnp, rvar, c,
                   f * unbiased + (keep != 0.0 ? keep * vload(&p->bnp, rvar, c) : 0.0));
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

int fd_fused_bn_finalize_infer_ref_applicable(const void *problem, char *why, size_t why_size)
{
    return always(problem, why, why_size);
}
size_t fd_fused_bn_finalize_infer_ref_workspace(const void *problem)
{
    return no_workspace(problem);
}

cudnnStatus_t fd_fused_bn_finalize_infer_ref_run(const void *problem, const void *args)
{
    const fd_fused_problem_t *p = problem;
    const fd_fused_args_t *a = args;
    void *const *ptr = a->ptr;
    for (int64_t c = 0; c < p->bnp.c; c++) {
        double inv = 1.0 / sqrt(vload(&p->bnp, ptr[CUDNN_PTR_BN_RUNNING_VAR], c) + a->epsilon);
        double es = vload(&p->bnp, ptr[CUDNN_PTR_BN_SCALE], c) * inv;
        vstore(&p->eq, ptr[CUDNN_PTR_BN_EQSCALE], c, es);
        vstore(&p->eq, ptr[CUDNN_PTR_BN_EQBIAS], c,
               vload(&p->bnp, ptr[CUDNN_PTR_BN_BIAS], c) -
                   vload(&p->bnp, ptr[CUDNN_PTR_BN_RUNNING_MEAN], c) * es);
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- op 4: y = act([eqScale] conv(x, w) [+ eqBias] [+ z]) --------------------------------- */

int fd_fused_conv_scale_bias_add_act_ref_applicable(const void *problem, char *why, size_t why_size)
{
    return always(problem, why, why_size);
}
size_t fd_fused_conv_scale_bias_add_act_ref_workspace(const void *problem)
{
    return no_workspace(problem);
}

cudnnStatus_t fd_fused_conv_scale_bias_add_act_ref_run(const void *problem, const void *args)
{
    const fd_fused_problem_t *p = problem;
    const fd_fused_args_t *a = args;
    const fd_conv_problem_t *cp = &p->conv;
    const void *sc = fd_fused_uses(p, CUDNN_PTR_BN_EQSCALE) ? a->ptr[CUDNN_PTR_BN_EQSCALE] : NULL;
    const void *bi = fd_fused_uses(p, CUDNN_PTR_BN_EQBIAS) ? a->ptr[CUDNN_PTR_BN_EQBIAS] : NULL;
    const void *z = fd_fused_uses(p, CUDNN_PTR_ZDATA) ? a->ptr[CUDNN_PTR_ZDATA] : NULL;
    const fd_fused_tensor_t *zt = &p->z, *yt = &p->y;
    for (int64_t n = 0; n < cp->n; n++)
        for (int64_t k = 0; k < cp->k; k++) {
            double s = sc ? vload(&p->eq, sc, k) : 1.0, b = bi ? vload(&p->eq, bi, k) : 0.0;
            for (int64_t oh = 0; oh < cp->out[1]; oh++)
                for (int64_t ow = 0; ow < cp->out[2]; ow++) {
                    double v = fd_conv_ref_fwd_point(cp, a->ptr[CUDNN_PTR_XDATA],
                                                     a->ptr[CUDNN_PTR_WDATA], n, k, 0, oh, ow);
                    if (sc)
                        v *= s;
                    if (bi)
                        v += b;
                    if (z) /* read before y is written: z may be y itself */
                        v += fd_load(zt->dt, z, toff(zt, n, k, oh, ow));
                    fd_store(yt->dt, a->ptr[CUDNN_PTR_YDATA], toff(yt, n, k, oh, ow),
                             fd_act_fwd_value(&p->act, v));
                }
        }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- op 5: y = act(u), bitmask of act'(u) ------------------------------------------------- */

int fd_fused_scale_bias_add_act_bitmask_ref_applicable(const void *problem, char *why,
                                                       size_t why_size)
{
    return always(problem, why, why_size);
}
size_t fd_fused_scale_bias_add_act_bitmask_ref_workspace(const void *problem)
{
    return no_workspace(problem);
}

cudnnStatus_t fd_fused_scale_bias_add_act_bitmask_ref_run(const void *problem, const void *args)
{
    const fd_fused_problem_t *p = problem;
    const fd_fused_args_t *a = args;
#define PTR_IF(label) (fd_fused_uses(p, label) ? a->ptr[label] : NULL)
    const void *sc = PTR_IF(CUDNN_PTR_BN_EQSCALE), *bi = PTR_IF(CUDNN_PTR_BN_EQBIAS);
    const void *z = PTR_IF(CUDNN_PTR_ZDATA);
    const void *zsc = PTR_IF(CUDNN_PTR_BN_Z_EQSCALE), *zbi = PTR_IF(CUDNN_PTR_BN_Z_EQBIAS);
#undef PTR_IF
    const void *x = a->ptr[CUDNN_PTR_XDATA];
    void *y = a->ptr[CUDNN_PTR_YDATA];
    char *bm = a->ptr[CUDNN_PTR_ACTIVATION_BITMASK];
    const fd_fused_tensor_t *xt = &p->x, *yt = &p->y, *zt = &p->z;
    const int64_t hw = xt->h * xt->w, nhw = xt->n * hw;
    /* one pass over the words: each word is assembled whole, so the bitmask is never read */
    for (int64_t r = 0; r < p->bm_rows; r++) {
        const int64_t n = r / hw, h = (r / xt->w) % xt->h, w = r % xt->w;
        for (int64_t j = 0; j < p->bm_words; j++) {
            uint32_t word = 0;
            for (int b = 0; b < 32; b++) {
                const int64_t c = 32 * j + b;
                if (r >= nhw || c >= xt->c)
                    continue;
                double u = fd_load(xt->dt, x, toff(xt, n, c, h, w));
                if (sc)
                    u *= vload(&p->eq, sc, c);
                if (bi)
                    u += vload(&p->eq, bi, c);
                if (z) {
                    double zv = fd_load(zt->dt, z, toff(zt, n, c, h, w));
                    if (zsc)
                        zv *= vload(&p->zeq, zsc, c);
                    if (zbi)
                        zv += vload(&p->zeq, zbi, c);
                    u += zv;
                }
                double v = fd_act_fwd_value(&p->act, u);
                fd_store(yt->dt, y, toff(yt, n, c, h, w), v);
                if (fd_act_bwd_value(&p->act, v, 1.0, u) == 1.0)
                    word |= 1u << b;
            }
            memcpy(bm + (size_t)(r * p->bm_words + j) * sizeof word, &word, sizeof word);
        }
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- op 6: dReLU (bitmask), fork dz, batch-norm backward ---------------------------------- */

int fd_fused_dact_dbn_ref_applicable(const void *problem, char *why, size_t why_size)
{
    return always(problem, why, why_size);
}
size_t fd_fused_dact_dbn_ref_workspace(const void *problem)
{
    return no_workspace(problem);
}

cudnnStatus_t fd_fused_dact_dbn_ref_run(const void *problem, const void *args)
{
    const fd_fused_problem_t *p = problem;
    const fd_fused_args_t *a = args;
    void *const *ptr = a->ptr;
    const fd_fused_tensor_t *xt = &p->x, *dyt = &p->dy, *dxt = &p->dx, *dzt = &p->dz;
    const void *x = ptr[CUDNN_PTR_XDATA], *dy = ptr[CUDNN_PTR_DYDATA];
    const void *bm = ptr[CUDNN_PTR_ACTIVATION_BITMASK];
    void *dx = ptr[CUDNN_PTR_DXDATA];
    void *dz = fd_fused_uses(p, CUDNN_PTR_DZDATA) ? ptr[CUDNN_PTR_DZDATA] : NULL;
    void *ds = fd_fused_uses(p, CUDNN_PTR_BN_DSCALE) ? ptr[CUDNN_PTR_BN_DSCALE] : NULL;
    void *db = fd_fused_uses(p, CUDNN_PTR_BN_DBIAS) ? ptr[CUDNN_PTR_BN_DBIAS] : NULL;
    const double m = (double)(xt->n * xt->h * xt->w);
    for (int64_t c = 0; c < xt->c; c++) {
        const double scale = vload(&p->bnp, ptr[CUDNN_PTR_BN_SCALE], c);
        const double mean = vload(&p->bnp, ptr[CUDNN_PTR_BN_SAVED_MEAN], c);
        const double inv = vload(&p->bnp, ptr[CUDNN_PTR_BN_SAVED_INVSTD], c);
        double sum_g = 0.0, sum_gx = 0.0;
        for (int pass = 0; pass < 2; pass++) /* sums of the channel, then dx from them */
            for (int64_t n = 0; n < xt->n; n++)
                for (int64_t h = 0; h < xt->h; h++)
                    for (int64_t w = 0; w < xt->w; w++) {
                        const int64_t r = (n * xt->h + h) * xt->w + w;
                        double g = bitmask_get(p, bm, r, c)
                                       ? fd_load(dyt->dt, dy, toff(dyt, n, c, h, w))
                                       : 0.0;
                        double xhat = (fd_load(xt->dt, x, toff(xt, n, c, h, w)) - mean) * inv;
                        if (pass == 0) {
                            sum_g += g;
                            sum_gx += g * xhat;
                            if (dz)
                                fd_store(dzt->dt, dz, toff(dzt, n, c, h, w), g);
                        } else {
                            double v = scale * inv * (g - sum_g / m - xhat * sum_gx / m);
                            fd_store(dxt->dt, dx, toff(dxt, n, c, h, w), v);
                        }
                    }
        if (ds)
            vstore(&p->bnp, ds, c, sum_gx);
        if (db)
            vstore(&p->bnp, db, c, sum_g);
    }
    return CUDNN_STATUS_SUCCESS;
}
