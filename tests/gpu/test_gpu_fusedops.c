/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_fusedops.c - the cuda rows of the seven cudnnFusedOps_t sequences (src/cuda/fusedops.cu)
 * against the ref backend through cudnnMakeFusedOpsPlan / cudnnFusedOpsExecute
 * (tests/gpu/gpu_mirror.h: guards, unchanged inputs, poisoned outputs, determinism re-runs).
 *
 * Each case is data: the descriptors of the constant pack, one gm buffer per variant pointer
 * (placeholder CUDNN_PTR_ELEM_ALIGNED), in-place aliases (y = z for op 4, y = x or y = z for
 * op 5), the scalars, and a workspace buffer as large as the larger of the two backends' plans
 * (each handle's call passes its own plan's exact size). Covered: every op and every optional
 * stage (eq scale / bias, activation, statistics, z and its scale / bias, dz, dScale / dBias,
 * saved and running statistics with exp-avg factor 1 and < 1, M = 1), FLOAT and HALF data with
 * FLOAT or HALF eq, NCHW / NHWC / padded layouts (mixed between operands), padded per-channel
 * vectors, RELU / CLIPPED_RELU (both NaN options) and the other activation modes where an op
 * takes them, odd sizes (C not a multiple of 32, N H W not of 32) and large tensors (>= 4M
 * elements, past the reductions' 1024-chunk cap). Integer fills compare bit for bit (ops 2, 3
 * and 5 do for real fills too: the same double arithmetic); real fills within gm_tol, with a
 * looser bound for op 0's statistics (they sum y values whose last bits differ: float vs double
 * conv accumulation). --smoke: a few small cases per op (compute-sanitizer).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_mirror.h"

#define F32 CUDNN_DATA_FLOAT
#define F16 CUDNN_DATA_HALF
#define I32 CUDNN_DATA_INT32
#define OK CUDNN_STATUS_SUCCESS

/* ---- layouts ------------------------------------------------------------------------------ */

enum { LAY_NCHW, LAY_NHWC, LAY_NCHW_PAD, LAY_NHWC_PAD, LAY_COUNT };
static const char *const lay_names[LAY_COUNT] = {"nchw", "nhwc", "nchw-pad", "nhwc-pad"};

typedef struct {
    int n, c, h, w, s[4];
    int64_t extent;
} shp_t;

static shp_t shp(int n, int c, int h, int w, int layout)
{
    shp_t t;
    t.n = n, t.c = c, t.h = h, t.w = w;
    int *s = t.s;
    switch (layout) {
    case LAY_NCHW:
        s[3] = 1, s[2] = w, s[1] = h * w, s[0] = c * h * w;
        break;
    case LAY_NHWC:
        s[1] = 1, s[3] = c, s[2] = w * c, s[0] = h * w * c;
        break;
    case LAY_NCHW_PAD:
        s[3] = 1, s[2] = w + 3, s[1] = (h + 1) * s[2], s[0] = (c + 2) * s[1];
        break;
    default:
        s[1] = 1, s[3] = c + 1, s[2] = (w + 2) * s[3], s[0] = (h + 1) * s[2];
        break;
    }
    t.extent = 1 + (int64_t)(n - 1) * s[0] + (int64_t)(c - 1) * s[1] + (int64_t)(h - 1) * s[2] +
               (int64_t)(w - 1) * s[3];
    return t;
}

/* ---- one fused call as data ------------------------------------------------------------------ */

enum { FL_NONE, FL_INT, FL_REAL, FL_POW2, FL_BITS, FL_INTNAN };
#define WS_LABEL (-1)
#define MAXATTR 16
#define MAXDESC 12

typedef struct {
    char label[256];
    cudnnFusedOps_t op;
    int nattr, attr_label[MAXATTR];
    const void *attr[MAXATTR];
    int has_mode;
    int ptr_label[GM_MAX_BUFS]; /* variant pointer label of each buffer (WS_LABEL: workspace) */
    int fill[GM_MAX_BUFS];
    double lo[GM_MAX_BUFS], hi[GM_MAX_BUFS];
    int nalias, alias_label[2], alias_buf[2]; /* more pointer labels on existing buffers */
    int ws_buf;
    int has_acc, has_eps, has_factor;
    int64_t acc;
    double eps, factor;
    uint64_t seed;
    int ntd;
    cudnnTensorDescriptor_t td[MAXDESC];
    cudnnFilterDescriptor_t fdesc;
    cudnnConvolutionDescriptor_t cdesc;
    cudnnActivationDescriptor_t adesc;
    gm_case_t gc;
} fc_t;

static int ncases;

/* The placeholder label of each variant pointer label. */
static int ph_of(int ptr)
{
    static const int map[24] = {
        CUDNN_PARAM_XDATA_PLACEHOLDER,           CUDNN_PARAM_BN_EQSCALE_PLACEHOLDER,
        CUDNN_PARAM_BN_EQBIAS_PLACEHOLDER,       CUDNN_PARAM_WDATA_PLACEHOLDER,
        CUDNN_PARAM_DWDATA_PLACEHOLDER,          CUDNN_PARAM_YDATA_PLACEHOLDER,
        CUDNN_PARAM_DYDATA_PLACEHOLDER,          CUDNN_PARAM_YSUM_PLACEHOLDER,
        CUDNN_PARAM_YSQSUM_PLACEHOLDER,          -1,
        CUDNN_PARAM_BN_SCALE_PLACEHOLDER,        CUDNN_PARAM_BN_BIAS_PLACEHOLDER,
        CUDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER,   CUDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER,
        CUDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, CUDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER,
        CUDNN_PARAM_ZDATA_PLACEHOLDER,           CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER,
        CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER,     CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER,
        CUDNN_PARAM_DXDATA_PLACEHOLDER,          CUDNN_PARAM_DZDATA_PLACEHOLDER,
        CUDNN_PARAM_BN_DSCALE_PLACEHOLDER,       CUDNN_PARAM_BN_DBIAS_PLACEHOLDER,
    };
    return map[ptr];
}

static void fc_begin(fc_t *f, cudnnFusedOps_t op)
{
    memset(f, 0, sizeof *f);
    f->op = op;
    f->ws_buf = -1;
    f->has_mode = 1;
    f->seed = fd_test_mix(0xF05EDull + (uint64_t)op, (uint64_t)ncases);
}

static void fc_attr(fc_t *f, int label, const void *desc)
{
    f->attr_label[f->nattr] = label;
    f->attr[f->nattr++] = desc;
}

static cudnnTensorDescriptor_t fc_tensor(fc_t *f, cudnnDataType_t dt, const shp_t *s)
{
    cudnnTensorDescriptor_t d;
    FD_EXPECT_STATUS(cudnnCreateTensorDescriptor(&d), OK);
    FD_EXPECT_STATUS(cudnnSetTensor4dDescriptorEx(d, dt, s->n, s->c, s->h, s->w, s->s[0], s->s[1],
                                                  s->s[2], s->s[3]),
                     OK);
    f->td[f->ntd++] = d;
    return d;
}

/* A 1 x C x 1 x 1 vector, element stride vs. */
static cudnnTensorDescriptor_t fc_vec(fc_t *f, cudnnDataType_t dt, int c, int vs, shp_t *out)
{
    shp_t s;
    s.n = 1, s.c = c, s.h = 1, s.w = 1;
    s.s[0] = c * vs, s.s[1] = vs, s.s[2] = vs, s.s[3] = vs;
    s.extent = 1 + (int64_t)(c - 1) * vs;
    *out = s;
    return fc_tensor(f, dt, &s);
}

static cudnnActivationDescriptor_t fc_act(fc_t *f, cudnnActivationMode_t mode, cudnnNanPropagation_t nan,
                                          double coef)
{
    FD_EXPECT_STATUS(cudnnCreateActivationDescriptor(&f->adesc), OK);
    FD_EXPECT_STATUS(cudnnSetActivationDescriptor(f->adesc, mode, nan, coef), OK);
    return f->adesc;
}

static int fc_buf(fc_t *f, const char *name, int ptr_label, gm_role_t role, cudnnDataType_t dt, int64_t elems,
                  int fill, double lo, double hi)
{
    int i = f->gc.nbuf++;
    f->gc.buf[i] = (gm_buf_t){name, (size_t)elems * fd_test_dtype_size(dt), dt, role, 0, 0};
    f->ptr_label[i] = ptr_label;
    f->fill[i] = fill, f->lo[i] = lo, f->hi[i] = hi;
    return i;
}

static void fc_alias(fc_t *f, int ptr_label, int buf)
{
    f->alias_label[f->nalias] = ptr_label;
    f->alias_buf[f->nalias++] = buf;
}

static void fc_fill(int i, void *p, size_t bytes, void *ctx)
{
    fc_t *f = ctx;
    if (f->gc.buf[i].role == GM_OUT)
        return;
    fd_rng_t r;
    fd_rng_seed(&r, fd_test_mix(f->seed, (uint64_t)i));
    const cudnnDataType_t dt = f->gc.buf[i].dt;
    const int64_t n = (int64_t)(bytes / fd_test_dtype_size(dt));
    switch (f->fill[i]) {
    case FL_INT:
    case FL_INTNAN:
        fd_fill_int(&r, dt, p, n, (int)f->lo[i], (int)f->hi[i], 1.0);
        if (f->fill[i] == FL_INTNAN)
            for (int64_t e = 0; e < n; e++) {
                int k = fd_rng_int(&r, 0, 15);
                if (k == 0)
                    fd_test_store(dt, p, e, NAN);
                else if (k == 1)
                    fd_test_store(dt, p, e, -INFINITY);
            }
        break;
    case FL_REAL:
        fd_fill_real(&r, dt, p, n, f->lo[i], f->hi[i]);
        break;
    case FL_POW2:
        for (int64_t e = 0; e < n; e++)
            fd_test_store(dt, p, e, ldexp(1.0, fd_rng_int(&r, (int)f->lo[i], (int)f->hi[i])));
        break;
    case FL_BITS:
        for (size_t e = 0; e + 4 <= bytes; e += 4) {
            uint32_t word = (uint32_t)fd_rng_next(&r);
            memcpy((char *)p + e, &word, 4);
        }
        break;
    default:
        break;
    }
}

/* Packs and plan on handle h; *ws the plan's workspace size. */
static cudnnStatus_t fc_plan(const fc_t *f, cudnnHandle_t h, cudnnFusedOpsConstParamPack_t *k,
                             cudnnFusedOpsPlan_t *plan, size_t *ws)
{
    FD_EXPECT_STATUS(cudnnCreateFusedOpsConstParamPack(k, f->op), OK);
    FD_EXPECT_STATUS(cudnnCreateFusedOpsPlan(plan, f->op), OK);
    if (f->has_mode) {
        cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
        FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(*k, CUDNN_PARAM_BN_MODE, &mode), OK);
    }
    for (int a = 0; a < f->nattr; a++)
        FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(
                             *k, (cudnnFusedOpsConstParamLabel_t)f->attr_label[a], f->attr[a]),
                         OK);
    const cudnnFusedOpsPointerPlaceHolder_t ph = CUDNN_PTR_ELEM_ALIGNED;
    for (int i = 0; i < f->gc.nbuf; i++)
        if (f->ptr_label[i] != WS_LABEL)
            FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(
                                 *k, (cudnnFusedOpsConstParamLabel_t)ph_of(f->ptr_label[i]), &ph),
                             OK);
    for (int a = 0; a < f->nalias; a++)
        FD_EXPECT_STATUS(cudnnSetFusedOpsConstParamPackAttribute(
                             *k, (cudnnFusedOpsConstParamLabel_t)ph_of(f->alias_label[a]), &ph),
                         OK);
    *ws = 0;
    return cudnnMakeFusedOpsPlan(h, *plan, *k, ws);
}

static cudnnStatus_t fc_call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    fc_t *f = ctx;
    cudnnFusedOpsConstParamPack_t k;
    cudnnFusedOpsPlan_t plan;
    size_t ws = 0;
    cudnnStatus_t st = fc_plan(f, h, &k, &plan, &ws);
    if (st == OK) {
        FD_EXPECT(ws == 0 || (f->ws_buf >= 0 && ws <= f->gc.buf[f->ws_buf].bytes),
                  "%s: the plan wants %zu bytes of workspace, more than the probe saw", f->label, ws);
        cudnnFusedOpsVariantParamPack_t v;
        FD_EXPECT_STATUS(cudnnCreateFusedOpsVariantParamPack(&v, f->op), OK);
        for (int i = 0; i < f->gc.nbuf; i++)
            if (f->ptr_label[i] != WS_LABEL)
                FD_EXPECT_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(
                                     v, (cudnnFusedOpsVariantParamLabel_t)f->ptr_label[i], ptr[i]),
                                 OK);
        for (int a = 0; a < f->nalias; a++)
            FD_EXPECT_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(
                                 v, (cudnnFusedOpsVariantParamLabel_t)f->alias_label[a], ptr[f->alias_buf[a]]),
                             OK);
        if (ws > 0)
            FD_EXPECT_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_PTR_WORKSPACE, ptr[f->ws_buf]), OK);
        FD_EXPECT_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &ws),
                         OK);
        int64_t acc = f->acc;
        double eps = f->eps, factor = f->factor;
        if (f->has_acc)
            FD_EXPECT_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &acc),
                             OK);
        if (f->has_eps)
            FD_EXPECT_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_SCALAR_DOUBLE_BN_EPSILON, &eps), OK);
        if (f->has_factor)
            FD_EXPECT_STATUS(cudnnSetFusedOpsVariantParamPackAttribute(v, CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR, &factor),
                             OK);
        st = cudnnFusedOpsExecute(h, plan, v);
        cudnnDestroyFusedOpsVariantParamPack(v);
    }
    cudnnDestroyFusedOpsConstParamPack(k);
    cudnnDestroyFusedOpsPlan(plan);
    return st;
}

/* Sizes the workspace from both backends' plans, runs the case, frees its descriptors. */
static void fc_run(fc_t *f)
{
    size_t ws_max = 0;
    cudnnHandle_t hs[2] = {gm_ref, gm_cuda};
    for (int i = 0; i < 2; i++) {
        cudnnFusedOpsConstParamPack_t k;
        cudnnFusedOpsPlan_t plan;
        size_t ws = 0;
        if (fc_plan(f, hs[i], &k, &plan, &ws) == OK && ws > ws_max)
            ws_max = ws;
        cudnnDestroyFusedOpsConstParamPack(k);
        cudnnDestroyFusedOpsPlan(plan);
    }
    if (ws_max > 0) {
        f->ws_buf = fc_buf(f, "workspace", WS_LABEL, GM_WS, CUDNN_DATA_INT8, 0, FL_NONE, 0, 0);
        f->gc.buf[f->ws_buf].bytes = ws_max;
    }
    f->gc.label = f->label;
    f->gc.det = 1;
    f->gc.fill = fc_fill;
    f->gc.call = fc_call;
    f->gc.ctx = f;
    f->gc.want = OK;
    gm_run(&f->gc);
    ncases++;
    for (int i = 0; i < f->ntd; i++)
        cudnnDestroyTensorDescriptor(f->td[i]);
    if (f->fdesc)
        cudnnDestroyFilterDescriptor(f->fdesc);
    if (f->cdesc)
        cudnnDestroyConvolutionDescriptor(f->cdesc);
    if (f->adesc)
        cudnnDestroyActivationDescriptor(f->adesc);
}

static int act_is_exact(int mode)
{
    return mode < 0 || mode == CUDNN_ACTIVATION_RELU || mode == CUDNN_ACTIVATION_CLIPPED_RELU ||
           mode == CUDNN_ACTIVATION_IDENTITY;
}

static const char *act_name(int mode)
{
    static const char *const names[] = {"sigmoid", "relu", "tanh", "clipped", "elu", "identity", "swish"};
    return mode < 0 ? "none" : names[mode];
}

/* ---- ops 0, 1 and 4: the convolution's geometry -------------------------------------------- */

typedef struct {
    int n, c, h, w, k, r, s, pad, stride, xcorr;
} geo_t;

static int geo_p(const geo_t *g)
{
    return 1 + (g->h + 2 * g->pad - g->r) / g->stride;
}
static int geo_q(const geo_t *g)
{
    return 1 + (g->w + 2 * g->pad - g->s) / g->stride;
}

static void fc_conv(fc_t *f, const geo_t *g, cudnnDataType_t dt, int nhwc_filter)
{
    FD_EXPECT_STATUS(cudnnCreateFilterDescriptor(&f->fdesc), OK);
    FD_EXPECT_STATUS(cudnnSetFilter4dDescriptor(f->fdesc, dt, nhwc_filter ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                                g->k, g->c, g->r, g->s),
                     OK);
    FD_EXPECT_STATUS(cudnnCreateConvolutionDescriptor(&f->cdesc), OK);
    FD_EXPECT_STATUS(cudnnSetConvolution2dDescriptor(f->cdesc, g->pad, g->pad, g->stride, g->stride, 1, 1,
                                                     g->xcorr ? CUDNN_CROSS_CORRELATION : CUDNN_CONVOLUTION, F32),
                     OK);
    fc_attr(f, CUDNN_PARAM_CONV_DESC, f->cdesc);
}

static double act_coef(int mode)
{
    return mode == CUDNN_ACTIVATION_CLIPPED_RELU ? 5.0 : mode == CUDNN_ACTIVATION_ELU ? 0.75 : 0.0;
}

/* The eq scale / bias pair of ops 0, 1, 4, 5 (and z's of op 5). */
static void fc_eq(fc_t *f, int desc_label, int scale_ptr, int bias_ptr, cudnnDataType_t eqdt, int c, int scale,
                  int bias, int exact)
{
    if (!scale && !bias)
        return;
    shp_t v;
    fc_attr(f, desc_label, fc_vec(f, eqdt, c, 1, &v));
    if (scale)
        fc_buf(f, "eqScale", scale_ptr, GM_IN, eqdt, v.extent, exact ? FL_INT : FL_REAL, -2, 2);
    if (bias)
        fc_buf(f, "eqBias", bias_ptr, GM_IN, eqdt, v.extent, exact ? FL_INT : FL_REAL, exact ? -2 : -1,
               exact ? 2 : 1);
}

/* op 0 (stats = 1) or op 1 (stats = 0, the filter gradient). */
static void op01(int op, cudnnDataType_t dt, cudnnDataType_t eqdt, int lay, int ylay, geo_t g, int scale, int bias,
                 int act, int ysum, int ysq, int exact)
{
    fc_t *f = calloc(1, sizeof *f);
    fc_begin(f, op ? CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD : CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
    const int p = geo_p(&g), q = geo_q(&g);
    snprintf(f->label, sizeof f->label,
             "op %d %s eq %s x %s y %s n%dc%dh%dw%d k%dr%ds%d pad%d u%d %s scale %d bias %d act %s sum %d sq %d %s",
             op, fd_test_dtype_short(dt), fd_test_dtype_short(eqdt), lay_names[lay], lay_names[ylay], g.n, g.c, g.h,
             g.w, g.k, g.r, g.s, g.pad, g.stride, g.xcorr ? "xcorr" : "conv", scale, bias, act_name(act), ysum, ysq,
             exact ? "int" : "real");
    shp_t xs = shp(g.n, g.c, g.h, g.w, lay), ys = shp(g.n, g.k, p, q, ylay);
    fc_attr(f, CUDNN_PARAM_XDESC, fc_tensor(f, dt, &xs));
    fc_attr(f, op ? CUDNN_PARAM_DYDESC : CUDNN_PARAM_YDESC, fc_tensor(f, dt, &ys));
    fc_conv(f, &g, dt, lay == LAY_NHWC || lay == LAY_NHWC_PAD);
    fc_attr(f, op ? CUDNN_PARAM_DWDESC : CUDNN_PARAM_WDESC, f->fdesc);
    const int fl = exact ? FL_INT : FL_REAL;
    const int64_t nw = (int64_t)g.k * g.c * g.r * g.s, npq = (int64_t)g.n * p * q, crs = (int64_t)g.c * g.r * g.s;
    fc_buf(f, "x", CUDNN_PTR_XDATA, GM_IN, dt, xs.extent, fl, exact ? -2 : -1, exact ? 2 : 1);
    if (op == 0) {
        fc_buf(f, "w", CUDNN_PTR_WDATA, GM_IN, dt, nw, fl, exact ? -2 : -1, exact ? 2 : 1);
        int yb = fc_buf(f, "y", CUDNN_PTR_YDATA, GM_OUT, dt, ys.extent, FL_NONE, 0, 0);
        if (!exact || !act_is_exact(act))
            gm_tol(&f->gc.buf[yb], dt, crs + 2);
    } else {
        fc_buf(f, "dy", CUDNN_PTR_DYDATA, GM_IN, dt, ys.extent, fl, exact ? -2 : -1, exact ? 2 : 1);
        int wb = fc_buf(f, "dw", CUDNN_PTR_DWDATA, GM_OUT, dt, nw, FL_NONE, 0, 0);
        if (!exact || !act_is_exact(act))
            gm_tol(&f->gc.buf[wb], dt, npq + 2);
    }
    fc_eq(f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, CUDNN_PTR_BN_EQSCALE, CUDNN_PTR_BN_EQBIAS, eqdt, g.c, scale, bias, exact);
    if (act >= 0)
        fc_attr(f, CUDNN_PARAM_ACTIVATION_DESC,
                fc_act(f, (cudnnActivationMode_t)act, CUDNN_NOT_PROPAGATE_NAN, act_coef(act)));
    if (op == 0 && (ysum || ysq)) {
        shp_t v;
        fc_attr(f, CUDNN_PARAM_YSTATS_DESC, fc_vec(f, F32, g.k, 1, &v));
        /* real fills: y's last bits differ (float vs double conv accumulation), summed npq times */
        const double ymax = 3.0 * (double)crs, u = dt == F16 ? 0x1p-10 : 0x1p-18;
        if (ysum) {
            int b = fc_buf(f, "ySum", CUDNN_PTR_YSUM, GM_OUT, F32, v.extent, FL_NONE, 0, 0);
            if (!exact || !act_is_exact(act))
                f->gc.buf[b].abs_tol = (double)npq * ymax * u, f->gc.buf[b].rel_tol = 1e-5;
        }
        if (ysq) {
            int b = fc_buf(f, "ySqSum", CUDNN_PTR_YSQSUM, GM_OUT, F32, v.extent, FL_NONE, 0, 0);
            if (!exact || !act_is_exact(act))
                f->gc.buf[b].abs_tol = 2.0 * (double)npq * ymax * ymax * u, f->gc.buf[b].rel_tol = 1e-5;
        }
    }
    fc_run(f);
    free(f);
}

static void ops01(void)
{
    const geo_t small = {2, 3, 5, 6, 4, 3, 3, 1, 1, 1};
    const geo_t odd = {3, 5, 7, 9, 3, 3, 2, 1, 2, 0};
    const geo_t one = {1, 37, 6, 5, 33, 1, 1, 0, 1, 1};
    const cudnnDataType_t dts[2] = {F32, F16};
    for (int op = 0; op < 2; op++) {
        if (gm_smoke) {
            op01(op, F32, F32, LAY_NCHW, LAY_NCHW, small, 1, 1, CUDNN_ACTIVATION_RELU, 1, 1, 1);
            op01(op, F16, F16, LAY_NHWC, LAY_NHWC, odd, 1, 0, -1, 1, 0, 1);
            op01(op, F32, F16, LAY_NHWC_PAD, LAY_NCHW, small, 0, 0, -1, 0, 1, 0);
            continue;
        }
        for (int d = 0; d < 2; d++)
            for (int lay = 0; lay < LAY_COUNT; lay++) {
                const cudnnDataType_t dt = dts[d], eqdt = lay % 2 ? F16 : F32;
                /* every optional stage on and off across the layouts */
                op01(op, dt, eqdt, lay, lay, small, 1, 1, CUDNN_ACTIVATION_RELU, 1, 1, 1);
                op01(op, dt, eqdt, lay, (lay + 1) % LAY_COUNT, odd, lay < 2, lay >= 1, lay == 2 ? -1 : CUDNN_ACTIVATION_CLIPPED_RELU, 1, lay != 1, 1);
                op01(op, dt, eqdt, lay, lay, one, 1, 1, CUDNN_ACTIVATION_RELU, lay != 3, 1, 1);
                op01(op, dt, eqdt, lay, (lay + 2) % LAY_COUNT, odd, 1, 1, CUDNN_ACTIVATION_RELU, 1, 1, 0);
                op01(op, dt, eqdt, lay, lay, small, 0, 0, -1, 1, 1, lay % 2); /* no transform */
            }
        /* the other activation modes (real results: transcendental functions) */
        for (int act = CUDNN_ACTIVATION_SIGMOID; act <= CUDNN_ACTIVATION_SWISH; act++)
            if (act != CUDNN_ACTIVATION_RELU && act != CUDNN_ACTIVATION_CLIPPED_RELU)
                op01(op, act % 2 ? F16 : F32, F32, act % LAY_COUNT, act % LAY_COUNT, small, 1, 1, act, 1, 1, act % 2);
        /* large: statistics over > 4M rows of one channel (NCHW, the chunk cap) and 4M+ of
         * NHWC; the filter gradient over many rows */
        const geo_t big1 = {1, 2, 2049, 2049, 1, 1, 1, 0, 1, 1};
        const geo_t big2 = {2, 3, 513, 512, 8, 1, 1, 0, 1, 1};
        op01(op, F32, F32, LAY_NCHW, LAY_NCHW, big1, 1, 1, CUDNN_ACTIVATION_RELU, 1, 1, 1);
        op01(op, F16, F32, LAY_NHWC, LAY_NHWC, big2, 1, 0, CUDNN_ACTIVATION_RELU, 1, 1, 1);
    }
}

/* ---- ops 2 and 3: batch-norm finalisation ---------------------------------------------------- */

static void op2(int c, cudnnDataType_t eqdt, int vs, int eqs, int eqb, int saved, int running, int64_t m, double factor,
                int exact)
{
    fc_t *f = calloc(1, sizeof *f);
    fc_begin(f, CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING);
    snprintf(f->label, sizeof f->label, "op 2 c%d eq %s vstride %d eqs %d eqb %d saved %d running %d m %lld f %g %s", c,
             fd_test_dtype_short(eqdt), vs, eqs, eqb, saved, running, (long long)m, factor, exact ? "int" : "real");
    shp_t st, bp, eq;
    memset(&bp, 0, sizeof bp);
    fc_attr(f, CUDNN_PARAM_YSTATS_DESC, fc_vec(f, F32, c, vs, &st));
    const int fl = exact ? FL_INT : FL_REAL;
    /* sums of m values in [-4, 4]: |sum| <= 4 m, sqsum in [0, 16 m] */
    const double mm = (double)m;
    fc_buf(f, "ySum", CUDNN_PTR_YSUM, GM_IN, F32, st.extent, fl, -2 * mm, 2 * mm);
    fc_buf(f, "ySqSum", CUDNN_PTR_YSQSUM, GM_IN, F32, st.extent, fl, 0, 8 * mm);
    if (eqs || eqb || saved || running)
        fc_attr(f, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, fc_vec(f, F32, c, vs, &bp));
    if (eqs || eqb) {
        fc_attr(f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, fc_vec(f, eqdt, c, 1, &eq));
        fc_buf(f, "scale", CUDNN_PTR_BN_SCALE, GM_IN, F32, bp.extent, fl, -2, 2);
        if (eqb)
            fc_buf(f, "bias", CUDNN_PTR_BN_BIAS, GM_IN, F32, bp.extent, fl, -2, 2);
        if (eqs)
            fc_buf(f, "eqScale", CUDNN_PTR_BN_EQSCALE, GM_OUT, eqdt, eq.extent, FL_NONE, 0, 0);
        if (eqb)
            fc_buf(f, "eqBias", CUDNN_PTR_BN_EQBIAS, GM_OUT, eqdt, eq.extent, FL_NONE, 0, 0);
    }
    if (saved) {
        fc_buf(f, "savedMean", CUDNN_PTR_BN_SAVED_MEAN, GM_OUT, F32, bp.extent, FL_NONE, 0, 0);
        fc_buf(f, "savedInvStd", CUDNN_PTR_BN_SAVED_INVSTD, GM_OUT, F32, bp.extent, FL_NONE, 0, 0);
    }
    if (running) {
        fc_buf(f, "runMean", CUDNN_PTR_BN_RUNNING_MEAN, GM_INOUT, F32, bp.extent, fl, -3, 3);
        fc_buf(f, "runVar", CUDNN_PTR_BN_RUNNING_VAR, GM_INOUT, F32, bp.extent, fl, 0, 4);
        f->has_factor = 1, f->factor = factor;
    }
    f->has_acc = 1, f->acc = m, f->has_eps = 1, f->eps = exact ? 1.0 : 1e-5;
    fc_run(f); /* the same double arithmetic as the ref: bit for bit, real fills too */
    free(f);
}

static void op3(int c, cudnnDataType_t eqdt, int vs, int exact)
{
    fc_t *f = calloc(1, sizeof *f);
    fc_begin(f, CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE);
    snprintf(f->label, sizeof f->label, "op 3 c%d eq %s vstride %d %s", c, fd_test_dtype_short(eqdt), vs,
             exact ? "int" : "real");
    shp_t bp, eq;
    fc_attr(f, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, fc_vec(f, F32, c, vs, &bp));
    fc_attr(f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, fc_vec(f, eqdt, c, vs, &eq));
    const int fl = exact ? FL_INT : FL_REAL;
    fc_buf(f, "scale", CUDNN_PTR_BN_SCALE, GM_IN, F32, bp.extent, fl, -2, 2);
    fc_buf(f, "bias", CUDNN_PTR_BN_BIAS, GM_IN, F32, bp.extent, fl, -2, 2);
    fc_buf(f, "runMean", CUDNN_PTR_BN_RUNNING_MEAN, GM_IN, F32, bp.extent, fl, -3, 3);
    fc_buf(f, "runVar", CUDNN_PTR_BN_RUNNING_VAR, GM_IN, F32, bp.extent, fl, 0, 8);
    fc_buf(f, "eqScale", CUDNN_PTR_BN_EQSCALE, GM_OUT, eqdt, eq.extent, FL_NONE, 0, 0);
    fc_buf(f, "eqBias", CUDNN_PTR_BN_EQBIAS, GM_OUT, eqdt, eq.extent, FL_NONE, 0, 0);
    f->has_eps = 1, f->eps = exact ? 1.0 : 1e-5;
    fc_run(f);
    free(f);
}

static void ops23(void)
{
    if (gm_smoke) {
        op2(5, F32, 1, 1, 1, 1, 1, 12, 0.25, 1);
        op3(7, F16, 2, 0);
        return;
    }
    const int cs[3] = {1, 37, 1000};
    for (int i = 0; i < 3; i++)
        for (int exact = 0; exact < 2; exact++) {
            const cudnnDataType_t eqdt = (i + exact) % 2 ? F16 : F32;
            op2(cs[i], eqdt, 1, 1, 1, 1, 1, 50, 0.1, exact);
            op2(cs[i], eqdt, 2, 1, 0, 0, 1, 7, 1.0, exact); /* factor 1: running values not read */
            op2(cs[i], eqdt, 1, 0, 1, 1, 0, 1000, 0.5, exact);
            op2(cs[i], eqdt, 2, 0, 0, 1, 1, 1, 0.5, exact); /* M = 1: unbiased variance NaN */
            op2(cs[i], eqdt, 1, 0, 0, 0, 0, 3, 0.5, exact); /* nothing asked */
            op3(cs[i], eqdt, 1, exact);
            op3(cs[i], eqdt == F32 ? F16 : F32, 2, exact);
        }
}

/* ---- op 4: y = act([eqScale] conv(x, w) [+ eqBias] [+ z]) -------------------------------------- */

/* zmode: 0 no z, 1 a separate z, 2 z is y (in place) */
static void op4(cudnnDataType_t dt, cudnnDataType_t eqdt, int lay, int ylay, geo_t g, int scale, int bias, int zmode,
                int act, int exact)
{
    fc_t *f = calloc(1, sizeof *f);
    fc_begin(f, CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION);
    const int p = geo_p(&g), q = geo_q(&g);
    snprintf(f->label, sizeof f->label,
             "op 4 %s eq %s x %s y %s n%dc%dh%dw%d k%dr%ds%d pad%d u%d %s scale %d bias %d z %d act %s %s",
             fd_test_dtype_short(dt), fd_test_dtype_short(eqdt), lay_names[lay], lay_names[ylay], g.n, g.c, g.h, g.w,
             g.k, g.r, g.s, g.pad, g.stride, g.xcorr ? "xcorr" : "conv", scale, bias, zmode, act_name(act),
             exact ? "int" : "real");
    shp_t xs = shp(g.n, g.c, g.h, g.w, lay), ys = shp(g.n, g.k, p, q, ylay);
    shp_t zs = shp(g.n, g.k, p, q, zmode == 2 ? ylay : (ylay + 1) % LAY_COUNT);
    fc_attr(f, CUDNN_PARAM_XDESC, fc_tensor(f, dt, &xs));
    fc_attr(f, CUDNN_PARAM_YDESC, fc_tensor(f, dt, &ys));
    fc_conv(f, &g, dt, lay == LAY_NHWC || lay == LAY_NHWC_PAD);
    fc_attr(f, CUDNN_PARAM_WDESC, f->fdesc);
    const int fl = exact ? FL_INT : FL_REAL;
    const int64_t nw = (int64_t)g.k * g.c * g.r * g.s, crs = (int64_t)g.c * g.r * g.s;
    fc_buf(f, "x", CUDNN_PTR_XDATA, GM_IN, dt, xs.extent, fl, exact ? -2 : -1, exact ? 2 : 1);
    fc_buf(f, "w", CUDNN_PTR_WDATA, GM_IN, dt, nw, fl, exact ? -2 : -1, exact ? 2 : 1);
    int yb = fc_buf(f, "y", CUDNN_PTR_YDATA, zmode == 2 ? GM_INOUT : GM_OUT, dt, ys.extent, zmode == 2 ? fl : FL_NONE,
                    -4, 4);
    if (!exact || !act_is_exact(act))
        gm_tol(&f->gc.buf[yb], dt, crs + 3);
    fc_eq(f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, CUDNN_PTR_BN_EQSCALE, CUDNN_PTR_BN_EQBIAS, eqdt, g.k, scale, bias, exact);
    if (zmode == 1) {
        fc_attr(f, CUDNN_PARAM_ZDESC, fc_tensor(f, dt, &zs));
        fc_buf(f, "z", CUDNN_PTR_ZDATA, GM_IN, dt, zs.extent, fl, -4, 4);
    } else if (zmode == 2) {
        fc_attr(f, CUDNN_PARAM_ZDESC, fc_tensor(f, dt, &ys));
        fc_alias(f, CUDNN_PTR_ZDATA, yb);
    }
    if (act >= 0)
        fc_attr(f, CUDNN_PARAM_ACTIVATION_DESC,
                fc_act(f, (cudnnActivationMode_t)act, CUDNN_NOT_PROPAGATE_NAN, act_coef(act)));
    fc_run(f);
    free(f);
}

static void ops4(void)
{
    const geo_t small = {2, 3, 5, 6, 4, 3, 3, 1, 1, 1};
    const geo_t odd = {3, 5, 7, 9, 3, 3, 2, 1, 2, 0};
    const geo_t wide = {1, 37, 6, 5, 33, 1, 1, 0, 1, 1};
    if (gm_smoke) {
        op4(F32, F32, LAY_NCHW, LAY_NCHW, small, 1, 1, 1, CUDNN_ACTIVATION_RELU, 1);
        op4(F16, F16, LAY_NHWC, LAY_NHWC, odd, 1, 0, 2, CUDNN_ACTIVATION_CLIPPED_RELU, 1);
        op4(F32, F16, LAY_NCHW_PAD, LAY_NHWC, small, 0, 1, 0, -1, 0);
        return;
    }
    const cudnnDataType_t dts[2] = {F32, F16};
    for (int d = 0; d < 2; d++)
        for (int lay = 0; lay < LAY_COUNT; lay++) {
            const cudnnDataType_t dt = dts[d], eqdt = lay % 2 ? F16 : F32;
            op4(dt, eqdt, lay, lay, small, 1, 1, 1, CUDNN_ACTIVATION_RELU, 1);
            op4(dt, eqdt, lay, (lay + 1) % LAY_COUNT, odd, lay < 2, lay >= 1, 2, CUDNN_ACTIVATION_CLIPPED_RELU, 1);
            op4(dt, eqdt, lay, lay, wide, 1, 1, lay % 3, lay == 3 ? -1 : CUDNN_ACTIVATION_RELU, 1);
            op4(dt, eqdt, lay, (lay + 3) % LAY_COUNT, odd, 1, 1, 1, CUDNN_ACTIVATION_RELU, 0);
            op4(dt, eqdt, lay, lay, small, 0, 0, 0, -1, lay % 2);
        }
    for (int act = CUDNN_ACTIVATION_SIGMOID; act <= CUDNN_ACTIVATION_SWISH; act++)
        op4(act % 2 ? F16 : F32, F32, act % LAY_COUNT, (act + 1) % LAY_COUNT, small, 1, 1, act % 3, act, act % 2);
    const geo_t big = {4, 4, 1025, 1024, 1, 1, 1, 0, 1, 1}; /* 4.2M outputs */
    op4(F16, F32, LAY_NHWC, LAY_NHWC, big, 1, 1, 2, CUDNN_ACTIVATION_RELU, 1);
}

/* ---- op 5: y = act([eqScale] x [+ eqBias] [+ [zEqScale] z [+ zEqBias]]), bitmask ---------------- */

/* zmode: 0 no z, 1 a separate z, 2 y is z; xin: y is x */
static void op5(cudnnDataType_t dt, cudnnDataType_t eqdt, int lay, int ylay, int n, int c, int h, int w, int scale,
                int bias, int zmode, int zscale, int zbias, int xin, int clipped, int propagate, int fill)
{
    fc_t *f = calloc(1, sizeof *f);
    fc_begin(f, CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK);
    if (xin || zmode == 2)
        ylay = lay;
    snprintf(f->label, sizeof f->label,
             "op 5 %s eq %s x %s y %s n%dc%dh%dw%d scale %d bias %d z %d zscale %d zbias %d y=x %d %s %s %s",
             fd_test_dtype_short(dt), fd_test_dtype_short(eqdt), lay_names[lay], lay_names[ylay], n, c, h, w, scale,
             bias, zmode, zscale, zbias, xin, clipped ? "clipped" : "relu", propagate ? "propagate" : "no-propagate",
             fill == FL_INT ? "int" : fill == FL_REAL ? "real" : "int+nan");
    shp_t xs = shp(n, c, h, w, lay), ys = shp(n, c, h, w, ylay);
    shp_t zs = zmode == 2 ? ys : shp(n, c, h, w, (lay + 2) % LAY_COUNT);
    const int64_t cw = (c + 63) / 64 * 2, rows = ((int64_t)n * h * w + 31) / 32 * 32;
    shp_t bs = shp((int)rows, (int)cw, 1, 1, LAY_NCHW);
    fc_attr(f, CUDNN_PARAM_XDESC, fc_tensor(f, dt, &xs));
    fc_attr(f, CUDNN_PARAM_YDESC, fc_tensor(f, dt, &ys));
    fc_attr(f, CUDNN_PARAM_ACTIVATION_BITMASK_DESC, fc_tensor(f, I32, &bs));
    fc_attr(f, CUDNN_PARAM_ACTIVATION_DESC,
            fc_act(f, clipped ? CUDNN_ACTIVATION_CLIPPED_RELU : CUDNN_ACTIVATION_RELU,
                   propagate ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN, 3.0));
    const int exact = fill != FL_REAL;
    const int xb = fc_buf(f, "x", CUDNN_PTR_XDATA, xin ? GM_INOUT : GM_IN, dt, xs.extent, fill, exact ? -4 : -3,
                          exact ? 4 : 3);
    int yb = xb;
    if (xin)
        fc_alias(f, CUDNN_PTR_YDATA, xb);
    else if (zmode != 2)
        yb = fc_buf(f, "y", CUDNN_PTR_YDATA, GM_OUT, dt, ys.extent, FL_NONE, 0, 0);
    fc_buf(f, "bitmask", CUDNN_PTR_ACTIVATION_BITMASK, GM_OUT, I32, rows * cw, FL_NONE, 0, 0);
    fc_eq(f, CUDNN_PARAM_BN_EQSCALEBIAS_DESC, CUDNN_PTR_BN_EQSCALE, CUDNN_PTR_BN_EQBIAS, eqdt, c, scale, bias, exact);
    if (zmode) {
        fc_attr(f, CUDNN_PARAM_ZDESC, fc_tensor(f, dt, &zs));
        if (zmode == 2) {
            yb = fc_buf(f, "z", CUDNN_PTR_ZDATA, GM_INOUT, dt, zs.extent, fill, -4, 4);
            fc_alias(f, CUDNN_PTR_YDATA, yb);
        } else {
            fc_buf(f, "z", CUDNN_PTR_ZDATA, GM_IN, dt, zs.extent, fill, -4, 4);
        }
        fc_eq(f, CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC, CUDNN_PTR_BN_Z_EQSCALE, CUDNN_PTR_BN_Z_EQBIAS, F32, c, zscale,
              zbias, exact);
    }
    (void)yb;
    fc_run(f); /* element-wise double arithmetic as the ref: bit for bit, real fills too */
    free(f);
}

static void ops5(void)
{
    if (gm_smoke) {
        op5(F32, F32, LAY_NCHW, LAY_NCHW, 2, 5, 3, 7, 1, 1, 1, 1, 1, 0, 0, 0, FL_INT);
        op5(F16, F16, LAY_NHWC, LAY_NCHW, 1, 70, 5, 3, 1, 0, 2, 0, 1, 0, 1, 1, FL_REAL);
        op5(F32, F32, LAY_NHWC_PAD, LAY_NHWC_PAD, 3, 33, 2, 5, 0, 1, 0, 0, 0, 1, 0, 1, FL_INTNAN);
        return;
    }
    const cudnnDataType_t dts[2] = {F32, F16};
    const int shapes[4][4] = {{2, 5, 3, 7}, {1, 70, 5, 3}, {3, 33, 2, 5}, {4, 64, 4, 8}};
    for (int d = 0; d < 2; d++)
        for (int lay = 0; lay < LAY_COUNT; lay++)
            for (int s = 0; s < 4; s++) {
                const int *sh = shapes[s];
                const cudnnDataType_t dt = dts[d], eqdt = (lay + s) % 2 ? F16 : F32;
                const int ylay = (lay + s) % LAY_COUNT;
                op5(dt, eqdt, lay, ylay, sh[0], sh[1], sh[2], sh[3], 1, 1, 1, 1, 1, 0, s % 2, s == 2, FL_INT);
                op5(dt, eqdt, lay, ylay, sh[0], sh[1], sh[2], sh[3], s != 1, s != 0, 0, 0, 0, s == 3, (s + 1) % 2, 0,
                    FL_REAL);
                op5(dt, eqdt, lay, ylay, sh[0], sh[1], sh[2], sh[3], 1, 0, s % 3 ? 1 : 2, s % 2, 1, 0, s == 1,
                    s % 2, s == 3 ? FL_INTNAN : FL_REAL);
            }
    /* NaN and -inf through both activations and both NaN options */
    for (int clipped = 0; clipped < 2; clipped++)
        for (int prop = 0; prop < 2; prop++)
            op5(F32, F32, LAY_NCHW, LAY_NHWC, 2, 37, 3, 5, 1, 1, 1, 0, 1, 0, clipped, prop, FL_INTNAN);
    /* large, odd: > 4M elements in both orders */
    op5(F16, F32, LAY_NCHW, LAY_NCHW, 2, 3, 1025, 683, 1, 1, 1, 1, 1, 0, 0, 0, FL_INT);
    op5(F32, F16, LAY_NHWC, LAY_NHWC, 1, 40, 321, 327, 1, 1, 2, 0, 1, 0, 1, 0, FL_REAL);
}

/* ---- op 6: dReLU from the bitmask, fork dz, batch-norm backward ------------------------------ */

static void op6(cudnnDataType_t dt, int lay, int n, int c, int h, int w, int vs, int dz, int dsdb, int exact)
{
    fc_t *f = calloc(1, sizeof *f);
    fc_begin(f, CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM);
    const int dylay = (lay + 1) % LAY_COUNT, dxlay = (lay + 2) % LAY_COUNT;
    snprintf(f->label, sizeof f->label, "op 6 %s x %s dy %s dx %s n%dc%dh%dw%d vstride %d dz %d ds/db %d %s",
             fd_test_dtype_short(dt), lay_names[lay], lay_names[dylay], lay_names[dxlay], n, c, h, w, vs, dz, dsdb,
             exact ? "int" : "real");
    shp_t xs = shp(n, c, h, w, lay), dys = shp(n, c, h, w, dylay), dxs = shp(n, c, h, w, dxlay);
    shp_t dzs = shp(n, c, h, w, lay), bp;
    const int64_t cw = (c + 63) / 64 * 2, rows = ((int64_t)n * h * w + 31) / 32 * 32, nhw = (int64_t)n * h * w;
    shp_t bs = shp((int)rows, (int)cw, 1, 1, LAY_NCHW);
    fc_attr(f, CUDNN_PARAM_XDESC, fc_tensor(f, dt, &xs));
    fc_attr(f, CUDNN_PARAM_DYDESC, fc_tensor(f, dt, &dys));
    fc_attr(f, CUDNN_PARAM_DXDESC, fc_tensor(f, dt, &dxs));
    fc_attr(f, CUDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC, fc_vec(f, F32, c, vs, &bp));
    fc_attr(f, CUDNN_PARAM_ACTIVATION_BITMASK_DESC, fc_tensor(f, I32, &bs));
    fc_attr(f, CUDNN_PARAM_ACTIVATION_DESC, fc_act(f, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    const int fl = exact ? FL_INT : FL_REAL;
    fc_buf(f, "x", CUDNN_PTR_XDATA, GM_IN, dt, xs.extent, fl, -4, 4);
    fc_buf(f, "dy", CUDNN_PTR_DYDATA, GM_IN, dt, dys.extent, fl, -3, 3);
    fc_buf(f, "bitmask", CUDNN_PTR_ACTIVATION_BITMASK, GM_IN, I32, rows * cw, FL_BITS, 0, 0);
    fc_buf(f, "scale", CUDNN_PTR_BN_SCALE, GM_IN, F32, bp.extent, fl, -2, 2);
    fc_buf(f, "savedMean", CUDNN_PTR_BN_SAVED_MEAN, GM_IN, F32, bp.extent, fl, -2, 2);
    /* powers of 2 keep xhat exact on integer data */
    fc_buf(f, "savedInvStd", CUDNN_PTR_BN_SAVED_INVSTD, GM_IN, F32, bp.extent, exact ? FL_POW2 : FL_REAL,
           exact ? -1 : 0.25, exact ? 1 : 2);
    int dxb = fc_buf(f, "dx", CUDNN_PTR_DXDATA, GM_OUT, dt, dxs.extent, FL_NONE, 0, 0);
    if (!exact)
        gm_tol(&f->gc.buf[dxb], dt, 8);
    if (dz) {
        fc_attr(f, CUDNN_PARAM_DZDESC, fc_tensor(f, dt, &dzs));
        fc_buf(f, "dz", CUDNN_PTR_DZDATA, GM_OUT, dt, dzs.extent, FL_NONE, 0, 0);
    }
    if (dsdb & 1) {
        int b = fc_buf(f, "dScale", CUDNN_PTR_BN_DSCALE, GM_OUT, F32, bp.extent, FL_NONE, 0, 0);
        if (!exact)
            gm_tol(&f->gc.buf[b], F32, nhw);
    }
    if (dsdb & 2) {
        int b = fc_buf(f, "dBias", CUDNN_PTR_BN_DBIAS, GM_OUT, F32, bp.extent, FL_NONE, 0, 0);
        if (!exact)
            gm_tol(&f->gc.buf[b], F32, nhw);
    }
    fc_run(f);
    free(f);
}

static void ops6(void)
{
    if (gm_smoke) {
        op6(F32, LAY_NCHW, 2, 5, 3, 7, 1, 1, 3, 1);
        op6(F16, LAY_NHWC, 1, 70, 5, 3, 2, 0, 1, 0);
        op6(F32, LAY_NHWC_PAD, 3, 33, 2, 5, 1, 1, 2, 1);
        return;
    }
    const cudnnDataType_t dts[2] = {F32, F16};
    const int shapes[4][4] = {{2, 5, 3, 7}, {1, 70, 5, 3}, {3, 33, 2, 5}, {8, 64, 17, 19}};
    for (int d = 0; d < 2; d++)
        for (int lay = 0; lay < LAY_COUNT; lay++)
            for (int s = 0; s < 4; s++) {
                const int *sh = shapes[s];
                op6(dts[d], lay, sh[0], sh[1], sh[2], sh[3], 1 + s % 2, 1, 3, 1);
                op6(dts[d], lay, sh[0], sh[1], sh[2], sh[3], 1, s % 2, s % 4, 0);
            }
    /* large: NHWC past the minor form's chunk cap, NCHW past the major one's */
    op6(F16, LAY_NHWC, 2, 8, 512, 513, 1, 1, 3, 1);
    op6(F32, LAY_NCHW, 1, 1, 2049, 2049, 1, 0, 3, 1);
    op6(F32, LAY_NCHW, 4, 2, 1024, 513, 1, 1, 3, 0);
}

int main(int argc, char **argv)
{
    gm_init(argc, argv, "test_gpu_fusedops");
    ops01();
    ops23();
    ops4();
    ops5();
    ops6();
    return gm_finish();
}
