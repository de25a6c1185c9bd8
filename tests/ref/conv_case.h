/* SPDX-License-Identifier: MIT */
/*
 * conv_case.h - one convolution test case end to end, shared by tests/ref/test_conv_*.c.
 *
 * A case (cc_case_t) is a shape, a direction, a data type, layouts, alpha/beta and an algorithm,
 * all derived from one 64-bit seed, printed on failure as a one-line repro:
 *   op=conv dir=fwd dt=f16 acc=f32 n2c4h9w8 k5r3s2 p1,0 u2,1 d1,2 g1 mode=xcorr
 *   layout=nhwc/nchw wfmt=nchw algo=3 alpha=1 beta=0 seed=0x...
 * FD_TEST_SEED=<seed> regenerates exactly that case (see docs/testing.md).
 *
 * cc_exec() runs the library on a case: canonical double arrays are scattered into guarded,
 * strided buffers with our own index code; outputs are prefilled (0xFF poison, or the old
 * values when beta != 0) and holes of padded layouts hold a sentinel; after the call it checks
 * guards (outputs and workspace), holes, input hashes, and gathers the output back to
 * canonical order. cc_expect() computes alpha * oracle + beta * old with conv_oracle.h, and
 * cc_compare() checks exact (tolerance 0) or real (fd_tolerance) agreement.
 */
#ifndef FD_CONV_CASE_H_
#define FD_CONV_CASE_H_

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv_oracle.h"
#include "fd_test.h"

#define CC_HOLE_BYTE 0x5A /* sentinel in the holes of padded outputs */

typedef enum { CC_NCHW, CC_NHWC, CC_PADDED, CC_PERMUTED, CC_LAYOUT_COUNT } cc_layout_t;
typedef enum { CC_EXACT, CC_REAL } cc_mode_t;

static const char *const cc_layout_names[CC_LAYOUT_COUNT] = {"nchw", "nhwc", "padded", "permuted"};
static const char *const cc_dir_names[4] = {"fwd", "bwd_data", "bwd_filter", "bwd_bias"};

typedef struct {
    co_dir_t dir;
    cudnnDataType_t dt, comp; /* storage type of every tensor; convolution compute type */
    co_shape_t s;
    cc_layout_t xl, yl; /* layouts of x (dx) and y (dy) */
    int xstride[5], ystride[5];
    int wnhwc;    /* filter format NHWC (else NCHW) */
    int bstride;  /* channel stride of db (bias direction) */
    int misalign; /* data pointers start one element after an aligned base */
    int use4d;    /* 2-d problems: use the 4d setters */
    int algo;
    double alpha, beta;
    uint64_t seed;
} cc_case_t;

/* ---- shapes, layouts, repro ------------------------------------------------------------ */

static inline int cc_nd(const cc_case_t *c)
{
    return c->s.nsp + 2;
}

static inline void cc_x_dims(const cc_case_t *c, int *dim)
{
    dim[0] = c->s.n, dim[1] = c->s.c;
    for (int i = 0; i < c->s.nsp; i++)
        dim[2 + i] = c->s.in[i];
}

static inline void cc_y_dims(const cc_case_t *c, int *dim)
{
    dim[0] = c->s.n, dim[1] = c->s.k;
    for (int i = 0; i < c->s.nsp; i++)
        dim[2 + i] = co_out(&c->s, i);
}

static inline void cc_w_dims(const cc_case_t *c, int *dim)
{
    dim[0] = c->s.k, dim[1] = c->s.c / c->s.g;
    for (int i = 0; i < c->s.nsp; i++)
        dim[2 + i] = c->s.flt[i];
}

/* Element strides of `layout` for dims `dim`; PADDED and PERMUTED draw from r. */
static inline void cc_make_strides(cc_layout_t layout, int nd, const int *dim, fd_rng_t *r,
                                   int *stride)
{
    int order[5]; /* order[0] is the outermost dim */
    for (int i = 0; i < nd; i++)
        order[i] = i;
    if (layout == CC_NHWC) { /* N, spatial..., C */
        for (int i = 1; i < nd - 1; i++)
            order[i] = i + 1;
        order[nd - 1] = 1;
    } else if (layout == CC_PERMUTED) { /* any order but the two packed ones */
        for (int tries = 0; tries < 8; tries++) {
            for (int i = nd - 1; i > 0; i--) {
                int j = fd_rng_int(r, 0, i), t = order[i];
                order[i] = order[j], order[j] = t;
            }
            if (order[0] != 0 || order[nd - 1] != (nd - 1))
                break;
        }
    }
    int64_t acc = layout == CC_PADDED ? fd_rng_int(r, 1, 2) : 1; /* padded: even the unit stride */
    for (int i = nd - 1; i >= 0; i--) {
        stride[order[i]] = (int)acc;
        int extra = layout == CC_PADDED     ? fd_rng_int(r, 1, 3)
                    : layout == CC_PERMUTED ? fd_rng_int(r, 0, 2)
                                            : 0;
        acc = acc * dim[order[i]] + extra;
    }
    if (layout == CC_PADDED || layout == CC_PERMUTED) /* a dim of 1 may have any stride */
        for (int i = 0; i < nd; i++)
            if (dim[i] == 1 && fd_rng_int(r, 0, 3) == 0)
                stride[i] = fd_rng_int(r, 1, 50);
}

static inline void cc_set_layouts(cc_case_t *c, cc_layout_t xl, cc_layout_t yl, fd_rng_t *r)
{
    int dim[5];
    c->xl = xl, c->yl = yl;
    cc_x_dims(c, dim);
    cc_make_strides(xl, cc_nd(c), dim, r, c->xstride);
    cc_y_dims(c, dim);
    cc_make_strides(yl, cc_nd(c), dim, r, c->ystride);
}

static inline int cc_algo_count(co_dir_t dir)
{
    return dir == CO_FWD          ? CUDNN_CONVOLUTION_FWD_ALGO_COUNT
           : dir == CO_BWD_DATA   ? CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT
           : dir == CO_BWD_FILTER ? CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT
                                  : 1;
}

/* One spatial dim: filter taps, dilation, padding, stride and an input size that fits. */
static inline void cc_gen_dim(fd_rng_t *r, co_shape_t *s, int i, int max_in, int max_flt)
{
    int f = fd_rng_int(r, 1, max_flt), d = fd_rng_int(r, 1, 3), p = fd_rng_int(r, 0, f - 1);
    int u = fd_rng_int(r, 1, 3);
    if (fd_rng_int(r, 0, 9) == 0) /* padding at least the filter: outputs that see only zeros */
        p = fd_rng_int(r, f, f + 1);
    while (d > 1 && (f - 1) * d + 1 - 2 * p > max_in)
        d--;
    while ((f - 1) * d + 1 - 2 * p > max_in) /* only when d = 1: shrink the filter */
        f--, p = p < f - 1 ? p : f - 1;
    int lo = (f - 1) * d + 1 - 2 * p;
    s->flt[i] = f, s->dil[i] = d, s->pad[i] = p, s->stride[i] = u;
    s->in[i] = fd_rng_int(r, lo < 1 ? 1 : lo, max_in);
}

/* A random problem (sizes of the Tier-1 distribution, scaled to run in seconds). nsp 0 picks
 * 1, 2 or 3 spatial dims. Everything comes from `seed`. */
static inline cc_case_t cc_case_gen(co_dir_t dir, cudnnDataType_t dt, uint64_t seed, int nsp)
{
    cc_case_t c;
    memset(&c, 0, sizeof c);
    fd_rng_t r;
    fd_rng_seed(&r, seed);
    c.dir = dir, c.dt = dt, c.seed = seed;
    c.comp = dt;
    if (dt == CUDNN_DATA_HALF || dt == CUDNN_DATA_BFLOAT16)
        c.comp = fd_rng_int(&r, 0, 1) ? CUDNN_DATA_FLOAT : dt;
    int pick = fd_rng_int(&r, 0, 9);
    c.s.nsp = nsp ? nsp : pick < 2 ? 1 : pick < 8 ? 2 : 3;
    c.s.n = fd_rng_int(&r, 1, 3);
    int kind = fd_rng_int(&r, 0, 9);
    if (kind < 2) { /* depthwise: C groups of one channel, multiplier 1 or 2 */
        c.s.g = c.s.c = fd_rng_int(&r, 1, 17);
        c.s.k = c.s.g * (c.s.g <= 8 ? fd_rng_int(&r, 1, 2) : 1);
    } else if (kind < 5) { /* grouped */
        c.s.g = fd_rng_int(&r, 2, 8);
        c.s.c = c.s.g * fd_rng_int(&r, 1, 17 / c.s.g);
        c.s.k = c.s.g * fd_rng_int(&r, 1, 17 / c.s.g);
    } else {
        c.s.g = 1;
        c.s.c = fd_rng_int(&r, 1, 17);
        c.s.k = fd_rng_int(&r, 1, 17);
    }
    int max_in = c.s.nsp == 1 ? 16 : c.s.nsp == 2 ? 12 : 6;
    int max_flt = c.s.nsp == 3 ? 3 : 5;
    for (int i = 0; i < c.s.nsp; i++)
        cc_gen_dim(&r, &c.s, i, max_in, max_flt);
    c.s.flip = fd_rng_int(&r, 0, 1);
    c.wnhwc = fd_rng_int(&r, 0, 1);
    c.bstride = fd_rng_int(&r, 1, 3);
    c.misalign = fd_rng_int(&r, 0, 3) == 0;
    c.use4d = c.s.nsp == 2 && fd_rng_int(&r, 0, 1);
    c.algo = fd_rng_int(&r, 0, cc_algo_count(dir) - 1);
    static const double alphas[3] = {1.0, 0.5, -2.0}, betas[3] = {0.0, 1.0, 0.25};
    c.alpha = 1.0, c.beta = 0.0;
    if (fd_rng_int(&r, 0, 1)) {
        c.alpha = alphas[fd_rng_int(&r, 0, 2)];
        c.beta = betas[fd_rng_int(&r, 0, 2)];
    }
    cc_set_layouts(&c, (cc_layout_t)fd_rng_int(&r, 0, CC_LAYOUT_COUNT - 1),
                   (cc_layout_t)fd_rng_int(&r, 0, CC_LAYOUT_COUNT - 1), &r);
    return c;
}

static inline void cc_fmt_g(char *buf, size_t n, double v)
{
    snprintf(buf, n, "%g", v);
}

/* The one-line repro. */
static inline void cc_repro(const cc_case_t *c, char *buf, size_t size)
{
    static const char sp_x[3] = {'d', 'h', 'w'}, sp_w[3] = {'t', 'r', 's'};
    const co_shape_t *s = &c->s;
    int lead = 3 - s->nsp, n = 0;
    n += snprintf(buf + n, size - (size_t)n, "op=conv dir=%s dt=%s acc=%s n%dc%d",
                  cc_dir_names[c->dir], fd_test_dtype_short(c->dt), fd_test_dtype_short(c->comp),
                  s->n, s->c);
    for (int i = 0; i < s->nsp; i++)
        n += snprintf(buf + n, size - (size_t)n, "%c%d", sp_x[lead + i], s->in[i]);
    n += snprintf(buf + n, size - (size_t)n, " k%d", s->k);
    for (int i = 0; i < s->nsp; i++)
        n += snprintf(buf + n, size - (size_t)n, "%c%d", sp_w[lead + i], s->flt[i]);
    const int *arrs[3] = {s->pad, s->stride, s->dil};
    const char *tags[3] = {" p", " u", " d"};
    for (int a = 0; a < 3; a++) {
        n += snprintf(buf + n, size - (size_t)n, "%s", tags[a]);
        for (int i = 0; i < s->nsp; i++)
            n += snprintf(buf + n, size - (size_t)n, "%s%d", i ? "," : "", arrs[a][i]);
    }
    char al[32], be[32];
    cc_fmt_g(al, sizeof al, c->alpha), cc_fmt_g(be, sizeof be, c->beta);
    snprintf(buf + n, size - (size_t)n,
             " g%d mode=%s layout=%s/%s wfmt=%s%s%s algo=%d alpha=%s beta=%s seed=0x%016" PRIx64,
             s->g, s->flip ? "conv" : "xcorr", cc_layout_names[c->xl], cc_layout_names[c->yl],
             c->wnhwc ? "nhwc" : "nchw", c->misalign ? " off=1" : "", c->use4d ? " api=4d" : "",
             c->algo, al, be, c->seed);
}

/* ---- strided tensors in guarded buffers ------------------------------------------------ */

typedef struct {
    cudnnDataType_t dt;
    size_t esize;
    int nd, dim[5];
    int64_t stride[5];
    int64_t count, span; /* elements; element slots in the buffer (offset included) */
    int64_t base;        /* slot of element 0 (1 when misaligned) */
    int64_t *offs;       /* slot of each canonical element */
    fd_buf_t buf;
    unsigned char *snap; /* payload before the call (outputs) */
    uint64_t hash;       /* payload hash before the call (inputs) */
} cc_tensor_t;

static inline void cc_tensor_init(cc_tensor_t *t, cudnnDataType_t dt, int nd, const int *dim,
                                  const int *stride, int misalign)
{
    memset(t, 0, sizeof *t);
    t->dt = dt, t->esize = fd_test_dtype_size(dt), t->nd = nd;
    int64_t base = misalign ? 1 : 0, last = 0;
    t->count = 1;
    for (int i = 0; i < nd; i++) {
        t->dim[i] = dim[i], t->stride[i] = stride[i];
        t->count *= dim[i];
        last += (int64_t)(dim[i] - 1) * stride[i];
    }
    t->span = base + last + 1;
    t->base = base;
    t->offs = malloc(sizeof(int64_t) * (size_t)t->count);
    if (!t->offs)
        abort();
    for (int64_t e = 0; e < t->count; e++) {
        int64_t rest = e, off = base;
        for (int i = nd - 1; i >= 0; i--) {
            off += (rest % dim[i]) * t->stride[i];
            rest /= dim[i];
        }
        t->offs[e] = off;
    }
    t->buf = fd_buf_alloc((size_t)t->span * t->esize);
}

/* The pointer handed to the library: element (0, 0, ...) of the descriptor. */
static inline void *cc_tensor_ptr(const cc_tensor_t *t)
{
    return (unsigned char *)t->buf.data + t->base * (int64_t)t->esize;
}

static inline void cc_tensor_free(cc_tensor_t *t)
{
    free(t->offs);
    free(t->snap);
    fd_buf_free(&t->buf);
    memset(t, 0, sizeof *t);
}

/* Input: holes get the sentinel too (they must stay as they are: the hash covers them). */
static inline void cc_tensor_put_input(cc_tensor_t *t, const double *canon)
{
    memset(t->buf.data, CC_HOLE_BYTE, t->buf.size);
    for (int64_t e = 0; e < t->count; e++)
        fd_test_store(t->dt, t->buf.data, t->offs[e], canon[e]);
    t->hash = fd_buf_hash(&t->buf);
}

/* Output: holes = sentinel, elements = 0xFF poison or `old`; remembers the payload. */
static inline void cc_tensor_put_output(cc_tensor_t *t, const double *old)
{
    memset(t->buf.data, CC_HOLE_BYTE, t->buf.size);
    for (int64_t e = 0; e < t->count; e++) {
        if (old)
            fd_test_store(t->dt, t->buf.data, t->offs[e], old[e]);
        else
            memset((unsigned char *)t->buf.data + t->offs[e] * (int64_t)t->esize, 0xFF, t->esize);
    }
    free(t->snap);
    t->snap = malloc(t->buf.size + 1);
    if (!t->snap)
        abort();
    memcpy(t->snap, t->buf.data, t->buf.size);
}

/* 1 when no byte outside the addressed elements changed. */
static inline int cc_tensor_holes_ok(const cc_tensor_t *t)
{
    unsigned char *addressed = calloc((size_t)t->span + 1, 1);
    if (!addressed)
        abort();
    for (int64_t e = 0; e < t->count; e++)
        addressed[t->offs[e]] = 1;
    int ok = 1;
    const unsigned char *now = t->buf.data;
    for (int64_t slot = 0; slot < t->span && ok; slot++)
        if (!addressed[slot])
            ok = memcmp(now + slot * (int64_t)t->esize, t->snap + slot * (int64_t)t->esize,
                        t->esize) == 0;
    free(addressed);
    return ok;
}

static inline void cc_tensor_get(const cc_tensor_t *t, double *canon, unsigned char *raw)
{
    for (int64_t e = 0; e < t->count; e++) {
        if (canon)
            canon[e] = fd_test_load(t->dt, t->buf.data, t->offs[e]);
        if (raw)
            memcpy(raw + e * (int64_t)t->esize,
                   (unsigned char *)t->buf.data + t->offs[e] * (int64_t)t->esize, t->esize);
    }
}

/* ---- descriptors and calls ------------------------------------------------------------- */

typedef struct {
    cudnnTensorDescriptor_t x, y, b;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
} cc_desc_t;

static inline void cc_w_strides(const cc_case_t *c, int *stride)
{
    int dim[5], nd = cc_nd(c);
    cc_w_dims(c, dim);
    int64_t acc = 1;
    if (c->wnhwc) { /* K, spatial..., C innermost */
        stride[1] = 1;
        acc = dim[1];
        for (int i = nd - 1; i >= 2; i--)
            stride[i] = (int)acc, acc *= dim[i];
        stride[0] = (int)acc;
    } else {
        for (int i = nd - 1; i >= 0; i--)
            stride[i] = (int)acc, acc *= dim[i];
    }
}

static inline void cc_b_dims(const cc_case_t *c, int *dim, int *stride)
{
    int nd = cc_nd(c);
    for (int i = 0; i < nd; i++)
        dim[i] = 1, stride[i] = 1;
    dim[1] = c->s.k;
    stride[1] = c->bstride;
    stride[0] = c->s.k * c->bstride;
}

static inline cudnnStatus_t cc_set_tensor(cudnnTensorDescriptor_t d, const cc_case_t *c,
                                          const int *dim, const int *stride)
{
    if (c->use4d)
        return cudnnSetTensor4dDescriptorEx(d, c->dt, dim[0], dim[1], dim[2], dim[3], stride[0],
                                            stride[1], stride[2], stride[3]);
    return cudnnSetTensorNdDescriptor(d, c->dt, cc_nd(c), dim, stride);
}

/* Creates and sets every descriptor of the case; 0 on success (failures are counted). */
/* The math type FLOAT cases set on their convolution descriptor (DEFAULT: none set). The GPU
 * tier's FLOAT cases use FMA_MATH: under DEFAULT the cuda backend may run them as TF32, which
 * has its own test (tests/gpu/test_gpu_conv_tf32.c) and tolerance. */
static cudnnMathType_t cc_float_math = CUDNN_DEFAULT_MATH;

static inline int cc_desc_make(const cc_case_t *c, cc_desc_t *d)
{
    memset(d, 0, sizeof *d);
    int dim[5], stride[5], nd = cc_nd(c), bad = 0;
    cudnnStatus_t st;
#define CC_DESC_TRY(expr)                                                                          \
    do {                                                                                           \
        st = (expr);                                                                               \
        if (st != CUDNN_STATUS_SUCCESS) {                                                          \
            FD_EXPECT_STATUS(st, CUDNN_STATUS_SUCCESS);                                            \
            bad = 1;                                                                               \
        }                                                                                          \
    } while (0)
    CC_DESC_TRY(cudnnCreateTensorDescriptor(&d->x));
    CC_DESC_TRY(cudnnCreateTensorDescriptor(&d->y));
    CC_DESC_TRY(cudnnCreateTensorDescriptor(&d->b));
    CC_DESC_TRY(cudnnCreateFilterDescriptor(&d->w));
    CC_DESC_TRY(cudnnCreateConvolutionDescriptor(&d->conv));
    if (bad)
        return 1;
    cc_x_dims(c, dim);
    CC_DESC_TRY(cc_set_tensor(d->x, c, dim, c->xstride));
    cc_y_dims(c, dim);
    CC_DESC_TRY(cc_set_tensor(d->y, c, dim, c->ystride));
    cc_b_dims(c, dim, stride);
    CC_DESC_TRY(cc_set_tensor(d->b, c, dim, stride));
    cc_w_dims(c, dim);
    cudnnTensorFormat_t fmt = c->wnhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    if (c->use4d)
        CC_DESC_TRY(cudnnSetFilter4dDescriptor(d->w, c->dt, fmt, dim[0], dim[1], dim[2], dim[3]));
    else
        CC_DESC_TRY(cudnnSetFilterNdDescriptor(d->w, c->dt, fmt, nd, dim));
    cudnnConvolutionMode_t mode = c->s.flip ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
    if (c->use4d)
        CC_DESC_TRY(cudnnSetConvolution2dDescriptor(d->conv, c->s.pad[0], c->s.pad[1],
                                                    c->s.stride[0], c->s.stride[1], c->s.dil[0],
                                                    c->s.dil[1], mode, c->comp));
    else
        CC_DESC_TRY(cudnnSetConvolutionNdDescriptor(d->conv, c->s.nsp, c->s.pad, c->s.stride,
                                                    c->s.dil, mode, c->comp));
    if (c->s.g != 1)
        CC_DESC_TRY(cudnnSetConvolutionGroupCount(d->conv, c->s.g));
    if (c->dt == CUDNN_DATA_FLOAT && cc_float_math != CUDNN_DEFAULT_MATH)
        CC_DESC_TRY(cudnnSetConvolutionMathType(d->conv, cc_float_math));
#undef CC_DESC_TRY
    return bad;
}

static inline void cc_desc_free(cc_desc_t *d)
{
    cudnnDestroyTensorDescriptor(d->x);
    cudnnDestroyTensorDescriptor(d->y);
    cudnnDestroyTensorDescriptor(d->b);
    cudnnDestroyFilterDescriptor(d->w);
    cudnnDestroyConvolutionDescriptor(d->conv);
    memset(d, 0, sizeof *d);
}

typedef union {
    float f;
    double d;
} cc_scalar_t;

/* alpha/beta storage: double for DOUBLE tensors, float otherwise (contract §1.5). */
static inline const void *cc_scalar(cudnnDataType_t dt, double v, cc_scalar_t *s)
{
    if (dt == CUDNN_DATA_DOUBLE) {
        s->d = v;
        return &s->d;
    }
    s->f = (float)v;
    return &s->f;
}

static inline cudnnStatus_t cc_workspace_size(cudnnHandle_t h, const cc_case_t *c,
                                              const cc_desc_t *d, int algo, size_t *size)
{
    *size = 0;
    switch (c->dir) {
    case CO_FWD:
        return cudnnGetConvolutionForwardWorkspaceSize(h, d->x, d->w, d->conv, d->y,
                                                       (cudnnConvolutionFwdAlgo_t)algo, size);
    case CO_BWD_DATA:
        return cudnnGetConvolutionBackwardDataWorkspaceSize(
            h, d->w, d->y, d->conv, d->x, (cudnnConvolutionBwdDataAlgo_t)algo, size);
    case CO_BWD_FILTER:
        return cudnnGetConvolutionBackwardFilterWorkspaceSize(
            h, d->x, d->y, d->conv, d->w, (cudnnConvolutionBwdFilterAlgo_t)algo, size);
    default:
        return CUDNN_STATUS_SUCCESS;
    }
}

/* The compute call of the case's direction. a/b are the two inputs (see co_run), out the output. */
static inline cudnnStatus_t cc_call(cudnnHandle_t h, const cc_case_t *c, const cc_desc_t *d,
                                    int algo, const void *a, const void *b, void *out, void *ws,
                                    size_t ws_size)
{
    cc_scalar_t al, be;
    const void *alpha = cc_scalar(c->dt, c->alpha, &al), *beta = cc_scalar(c->dt, c->beta, &be);
    switch (c->dir) {
    case CO_FWD:
        return cudnnConvolutionForward(h, alpha, d->x, a, d->w, b, d->conv,
                                       (cudnnConvolutionFwdAlgo_t)algo, ws, ws_size, beta, d->y,
                                       out);
    case CO_BWD_DATA:
        return cudnnConvolutionBackwardData(h, alpha, d->w, b, d->y, a, d->conv,
                                            (cudnnConvolutionBwdDataAlgo_t)algo, ws, ws_size, beta,
                                            d->x, out);
    case CO_BWD_FILTER:
        return cudnnConvolutionBackwardFilter(h, alpha, d->x, a, d->y, b, d->conv,
                                              (cudnnConvolutionBwdFilterAlgo_t)algo, ws, ws_size,
                                              beta, d->w, out);
    default:
        return cudnnConvolutionBackwardBias(h, alpha, d->y, a, beta, d->b, out);
    }
}

/* ---- data ------------------------------------------------------------------------------ */

/* Canonical data of one run: the two inputs (co_run order), the prior output (beta != 0). */
typedef struct {
    int64_t na, nb, nout;
    double *a, *b, *old;
} cc_data_t;

static inline int64_t cc_count_a(const cc_case_t *c)
{
    return c->dir == CO_BWD_DATA || c->dir == CO_BWD_BIAS ? co_y_count(&c->s) : co_x_count(&c->s);
}

static inline int64_t cc_count_b(const cc_case_t *c)
{
    return c->dir == CO_BWD_FILTER ? co_y_count(&c->s)
           : c->dir == CO_BWD_BIAS ? 0
                                   : co_w_count(&c->s);
}

static inline cc_data_t cc_data_new(const cc_case_t *c)
{
    cc_data_t d;
    d.na = cc_count_a(c), d.nb = cc_count_b(c), d.nout = co_out_count(&c->s, c->dir);
    d.a = calloc((size_t)d.na + 1, sizeof(double));
    d.b = calloc((size_t)d.nb + 1, sizeof(double));
    d.old = c->beta != 0.0 ? calloc((size_t)d.nout + 1, sizeof(double)) : NULL;
    if (!d.a || !d.b || (c->beta != 0.0 && !d.old))
        abort();
    return d;
}

static inline void cc_data_free(cc_data_t *d)
{
    free(d->a), free(d->b), free(d->old);
    memset(d, 0, sizeof *d);
}

/* Fill n canonical values through a buffer of dt, so they are exactly what dt stores. */
static inline void cc_fill(fd_rng_t *r, cudnnDataType_t dt, double *v, int64_t n, cc_mode_t mode,
                           int range, double density, int multiple)
{
    size_t es = fd_test_dtype_size(dt);
    unsigned char *tmp = malloc((size_t)n * es + 1);
    if (!tmp)
        abort();
    if (mode == CC_EXACT)
        fd_fill_int(r, dt, tmp, n, -range, range, density);
    else
        fd_fill_real(r, dt, tmp, n, -1.0, 1.0);
    for (int64_t i = 0; i < n; i++)
        v[i] = fd_test_load(dt, tmp, i) * multiple;
    free(tmp);
}

/* Integer ranges of exact mode (oneDNN's choice for 16-bit types) and the largest sum|terms|
 * the accumulator holds exactly (every partial sum then is exact, in any order). */
static inline int cc_exact_range(cudnnDataType_t dt, int which)
{
    if (dt == CUDNN_DATA_HALF)
        return which == 0 ? 4 : 2;
    if (dt == CUDNN_DATA_BFLOAT16)
        return 4;
    return 32;
}

static inline double cc_exact_limit(cudnnDataType_t comp)
{
    return comp == CUDNN_DATA_HALF       ? 2048.0
           : comp == CUDNN_DATA_BFLOAT16 ? 256.0
           : comp == CUDNN_DATA_FLOAT    ? 16777216.0
                                         : 9007199254740992.0;
}

/* Expected output: want = alpha * oracle + beta * old, with sum|terms| (scaled by |alpha|,
 * plus |beta * old|) and term counts for the tolerance. Caller frees with co_acc_free. */
static inline co_acc_t cc_expect(const cc_case_t *c, const cc_data_t *d, double *want)
{
    co_acc_t acc = co_acc_new(d->nout);
    co_run(&c->s, c->dir, d->a, d->b, &acc);
    for (int64_t i = 0; i < d->nout; i++) {
        double r = co_acc_value(&acc, i);
        want[i] = c->alpha * r + (d->old ? c->beta * d->old[i] : 0.0);
        acc.abs_sum[i] =
            fabs(c->alpha) * acc.abs_sum[i] + (d->old ? fabs(c->beta * d->old[i]) : 0.0);
    }
    return acc;
}

/* Fills inputs (and old) for `mode`. Exact mode lowers the density until every sum|terms| fits
 * the accumulator exactly and every expected value is representable in the output type; the
 * result is deterministic in the case seed. `want` and the returned acc hold the expectation. */
static inline co_acc_t cc_data_fill(const cc_case_t *c, cc_data_t *d, cc_mode_t mode, double *want)
{
    fd_rng_t r;
    fd_rng_seed(&r, fd_test_mix(c->seed, 0xda7a));
    double density = 1.0;
    if (mode == CC_EXACT) { /* start near the density that keeps sums in range */
        int64_t kmax = 0;
        co_shape_t s = c->s;
        int64_t flt = co_prod(s.flt, s.nsp), outsp = co_y_count(&s) / ((int64_t)s.n * s.k);
        kmax = c->dir == CO_FWD        ? (int64_t)(s.c / s.g) * flt
               : c->dir == CO_BWD_DATA ? (int64_t)(s.k / s.g) * flt
                                       : (int64_t)s.n * outsp;
        double lim = cc_exact_limit(c->comp);
        if (c->dt == CUDNN_DATA_HALF && lim > 2048.0)
            lim = 2048.0;
        if (c->dt == CUDNN_DATA_BFLOAT16 && lim > 256.0)
            lim = 256.0;
        double typical = (double)kmax * cc_exact_range(c->dt, 0) * cc_exact_range(c->dt, 1) / 4.0;
        if (typical > lim)
            density = sqrt(lim / typical);
    }
    if (d->old) {
        int mult = (mode == CC_EXACT && c->beta == 0.25) ? 4 : 1; /* keeps beta * old an integer */
        cc_fill(&r, c->dt, d->old, d->nout, mode, mode == CC_EXACT ? 2 : 1, 1.0, mult);
    }
    for (int tries = 0;; tries++) {
        fd_rng_t rd;
        fd_rng_seed(&rd, fd_test_mix(c->seed, 0x1000 + (uint64_t)tries));
        cc_fill(&rd, c->dt, d->a, d->na, mode, cc_exact_range(c->dt, 0), density, 1);
        if (d->nb)
            cc_fill(&rd, c->dt, d->b, d->nb, mode, cc_exact_range(c->dt, 1), density, 1);
        co_acc_t acc = cc_expect(c, d, want);
        if (mode == CC_REAL)
            return acc;
        int ok = 1;
        double lim = cc_exact_limit(c->comp);
        for (int64_t i = 0; i < d->nout && ok; i++)
            ok = acc.abs_sum[i] <= lim && fd_test_representable(c->dt, want[i]) &&
                 fd_test_representable(c->comp, want[i]);
        if (ok || tries >= 60)
            return acc;
        co_acc_free(&acc);
        density *= 0.5;
    }
}

/* ---- execution ------------------------------------------------------------------------- */

typedef struct {
    cudnnStatus_t status;
    double *got;        /* canonical output values */
    unsigned char *raw; /* canonical output bytes, nout * element size */
    int64_t nout;
    size_t ws_size;
    int out_guards, holes, inputs, ws_guards; /* 1 = intact */
} cc_result_t;

static inline void cc_result_free(cc_result_t *r)
{
    free(r->got), free(r->raw);
    memset(r, 0, sizeof *r);
}

/* Descriptors and guarded buffers of one run, inputs filled, output prefilled. */
typedef struct {
    cc_desc_t desc;
    cc_tensor_t tx, ty, tw, tb;
    cc_tensor_t *ta, *tbin, *tout; /* the two inputs (co_run order) and the output */
} cc_bufs_t;

/* 0 on success; on a descriptor failure (counted) nothing is left allocated. */
static inline int cc_bufs_setup(cc_bufs_t *b, const cc_case_t *c, const cc_data_t *d)
{
    memset(b, 0, sizeof *b);
    if (cc_desc_make(c, &b->desc)) {
        cc_desc_free(&b->desc);
        return 1;
    }
    int dim[5], stride[5], nd = cc_nd(c);
    cc_x_dims(c, dim);
    cc_tensor_init(&b->tx, c->dt, nd, dim, c->xstride, c->misalign);
    cc_y_dims(c, dim);
    cc_tensor_init(&b->ty, c->dt, nd, dim, c->ystride, c->misalign);
    cc_w_dims(c, dim);
    cc_w_strides(c, stride);
    cc_tensor_init(&b->tw, c->dt, nd, dim, stride, c->misalign);
    cc_b_dims(c, dim, stride);
    cc_tensor_init(&b->tb, c->dt, nd, dim, stride, c->misalign);
    switch (c->dir) {
    case CO_FWD:
        b->ta = &b->tx, b->tbin = &b->tw, b->tout = &b->ty;
        break;
    case CO_BWD_DATA:
        b->ta = &b->ty, b->tbin = &b->tw, b->tout = &b->tx;
        break;
    case CO_BWD_FILTER:
        b->ta = &b->tx, b->tbin = &b->ty, b->tout = &b->tw;
        break;
    default:
        b->ta = &b->ty, b->tbin = NULL, b->tout = &b->tb;
        break;
    }
    cc_tensor_put_input(b->ta, d->a);
    if (b->tbin)
        cc_tensor_put_input(b->tbin, d->b);
    cc_tensor_put_output(b->tout, d->old);
    return 0;
}

static inline void cc_bufs_free(cc_bufs_t *b)
{
    cc_tensor_free(&b->tx), cc_tensor_free(&b->ty), cc_tensor_free(&b->tw), cc_tensor_free(&b->tb);
    cc_desc_free(&b->desc);
}

/* 1 when both inputs hash as before and their guards are intact. */
static inline int cc_bufs_inputs_ok(const cc_bufs_t *b)
{
    return fd_buf_hash(&b->ta->buf) == b->ta->hash && fd_buf_guards_ok(&b->ta->buf) &&
           (!b->tbin ||
            (fd_buf_hash(&b->tbin->buf) == b->tbin->hash && fd_buf_guards_ok(&b->tbin->buf)));
}

/* Runs the case on handle h with algorithm `algo` (workspace: exactly what the library asks
 * for, guarded). Failures of the call itself are counted here; the values are the caller's. */
static inline cc_result_t cc_exec(cudnnHandle_t h, const cc_case_t *c, const cc_data_t *d, int algo)
{
    cc_result_t res;
    memset(&res, 0, sizeof res);
    res.status = CUDNN_STATUS_INTERNAL_ERROR;
    cc_bufs_t b;
    if (cc_bufs_setup(&b, c, d))
        return res;
    size_t ws_size = 0;
    cudnnStatus_t st = cc_workspace_size(h, c, &b.desc, algo, &ws_size);
    FD_EXPECT_STATUS(st, CUDNN_STATUS_SUCCESS);
    fd_buf_t ws = fd_buf_alloc(ws_size);
    fd_buf_poison(&ws);
    /* with misalign the data pointers skip one element slot (a hole) */
    res.status =
        cc_call(h, c, &b.desc, algo, cc_tensor_ptr(b.ta), b.tbin ? cc_tensor_ptr(b.tbin) : NULL,
                cc_tensor_ptr(b.tout), ws_size ? ws.data : NULL, ws_size);
    res.ws_size = ws_size;
    res.out_guards = fd_buf_guards_ok(&b.tout->buf);
    res.holes = cc_tensor_holes_ok(b.tout);
    res.inputs = cc_bufs_inputs_ok(&b);
    res.ws_guards = fd_buf_guards_ok(&ws);
    res.nout = b.tout->count;
    res.got = malloc(sizeof(double) * (size_t)res.nout + 1);
    res.raw = malloc(b.tout->esize * (size_t)res.nout + 1);
    if (!res.got || !res.raw)
        abort();
    cc_tensor_get(b.tout, res.got, res.raw);
    fd_buf_free(&ws);
    cc_bufs_free(&b);
    return res;
}

/* The checks every run gets: status, guards, holes, inputs. Returns the failure count. */
static inline int cc_check_run(const cc_case_t *c, const cc_result_t *res, const char *what)
{
    char rep[512];
    cc_repro(c, rep, sizeof rep);
    int before = fd_test_failed;
    FD_EXPECT(res->status == CUDNN_STATUS_SUCCESS, "%s: status %s; %s", what,
              cudnnGetErrorString(res->status), rep);
    if (res->status != CUDNN_STATUS_SUCCESS) {
        char last[512];
        cudnnGetLastErrorString(last, sizeof last);
        if (fd_test_should_print())
            printf("  last error: %s\n", last);
        return fd_test_failed - before;
    }
    FD_EXPECT(res->out_guards, "%s: output guard bytes overwritten; %s", what, rep);
    FD_EXPECT(res->ws_guards, "%s: workspace guard bytes overwritten (ws %zu bytes); %s", what,
              res->ws_size, rep);
    FD_EXPECT(res->holes, "%s: bytes between output elements changed; %s", what, rep);
    FD_EXPECT(res->inputs, "%s: an input changed (hash or guards); %s", what, rep);
    return fd_test_failed - before;
}

/* Compares res against want: exact (==) or within fd_tolerance. One FD_EXPECT per call;
 * prints the repro and the first few mismatching elements. Returns 1 on agreement. */
static inline int cc_compare(const cc_case_t *c, const cc_result_t *res, const double *want,
                             const co_acc_t *acc, cc_mode_t mode, const char *what)
{
    if (res->status != CUDNN_STATUS_SUCCESS || res->got == NULL)
        return 0;
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < res->nout; i++) {
        double g = res->got[i], w = want[i];
        int ok;
        if (mode == CC_EXACT)
            ok = g == w;
        else
            ok = fabs(g - w) <= fd_tolerance(c->dt, c->comp, acc->terms[i], acc->abs_sum[i], w);
        if (!ok && bad++ == 0)
            first = i;
    }
    char rep[512];
    cc_repro(c, rep, sizeof rep);
    FD_EXPECT(bad == 0, "%s: %" PRId64 " of %" PRId64 " %s values differ from the oracle; %s", what,
              bad, res->nout, mode == CC_EXACT ? "exact" : "real", rep);
    if (bad && fd_test_should_print()) {
        int shown = 0;
        for (int64_t i = first; i < res->nout && shown < 4; i++) {
            double g = res->got[i], w = want[i];
            double tol = mode == CC_EXACT
                             ? 0.0
                             : fd_tolerance(c->dt, c->comp, acc->terms[i], acc->abs_sum[i], w);
            if (mode == CC_EXACT ? g == w : fabs(g - w) <= tol)
                continue;
            printf("  element %" PRId64
                   ": got %.17g want %.17g |diff| %.3g tol %.3g (terms %" PRId64
                   ", sum|terms| %.6g)\n",
                   i, g, w, fabs(g - w), tol, acc->terms[i], acc->abs_sum[i]);
            shown++;
        }
    }
    return bad == 0;
}

/* Seeds of a sweep: FD_TEST_SEED replays one case, else case i of the master seed. */
static inline int cc_sweep_count(int base)
{
    uint64_t s;
    if (fd_test_seed_forced(&s))
        return 1;
    double n = base * fd_test_scale();
    return n < 1 ? 1 : (int)n;
}

static inline uint64_t cc_sweep_seed(uint64_t master, int salt, int i)
{
    uint64_t s;
    if (fd_test_seed_forced(&s))
        return s;
    return fd_test_mix(fd_test_sweep_seed(master), ((uint64_t)salt << 32) | (uint32_t)i);
}

static const cudnnDataType_t cc_dtypes[4] = {CUDNN_DATA_DOUBLE, CUDNN_DATA_FLOAT, CUDNN_DATA_HALF,
                                             CUDNN_DATA_BFLOAT16};

static inline cudnnHandle_t cc_handle(freednnBackend_t backend)
{
    cudnnHandle_t h = NULL;
    cudnnStatus_t st = freednnCreateWithBackend(&h, backend);
    FD_EXPECT_STATUS(st, CUDNN_STATUS_SUCCESS);
    if (st != CUDNN_STATUS_SUCCESS) {
        printf("cannot create a handle; giving up\n");
        fd_test_finish();
        exit(1);
    }
    return h;
}

#endif /* FD_CONV_CASE_H_ */
