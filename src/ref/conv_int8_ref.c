/* SPDX-License-Identifier: MIT */
/*
 * conv_int8_ref.c - reference INT8 forward convolution (fd_conv_fwd_int8_ref): cuDNN's
 * INT8_CONFIG, INT8_EXT_CONFIG, INT8x4(_EXT), UINT8x4(_EXT) and INT8x32 configurations as
 * fd_conv_problem_init admits them (docs/int8.md), serving IMPLICIT_GEMM and
 * IMPLICIT_PRECOMP_GEMM, the enums cuDNN runs them with. No workspace.
 *
 * Decisions: the accumulator is a 32-bit integer that wraps on overflow (cuDNN: "Accumulators
 * are 32-bit integers which wrap on overflow"), summed in uint32_t so the wrap is defined C;
 * the epilogue is in float, as cuDNN's scaling parameters are (fd_conv_int8_store). Any
 * strides, groups, padding, stride, dilation, 1 to 3 spatial dims, both modes.
 */
#include <math.h>
#include <stdio.h>

#include "../core/conv.h"

/* int32 from its two's-complement bits without implementation-defined conversion. */
static int32_t from_bits(uint32_t u)
{
    return u <= (uint32_t)INT32_MAX ? (int32_t)u : -(int32_t)(~u) - 1;
}

static float load_old(cudnnDataType_t ydt, const void *y, int64_t off)
{
    switch (ydt) {
    case CUDNN_DATA_FLOAT:
        return ((const float *)y)[off];
    case CUDNN_DATA_UINT8x4:
        return ((const uint8_t *)y)[off];
    default: /* INT8, INT8x4, INT8x32 */
        return ((const int8_t *)y)[off];
    }
}

void fd_conv_int8_store(cudnnDataType_t ydt, void *y, int64_t off, int32_t acc, float alpha,
                        float beta)
{
    float v = alpha * (float)acc;
    if (beta != 0.0f) {
        float old = beta * load_old(ydt, y, off);
        v = v + old;
    }
    if (ydt == CUDNN_DATA_FLOAT) {
        ((float *)y)[off] = v;
        return;
    }
    float lo = ydt == CUDNN_DATA_UINT8x4 ? 0.0f : -128.0f, hi = ydt == CUDNN_DATA_UINT8x4 ? 255.0f : 127.0f;
    float r = isnan(v) ? 0.0f : nearbyintf(v); /* round half to even: the default rounding mode */
    r = r < lo ? lo : r > hi ? hi : r;
    if (ydt == CUDNN_DATA_UINT8x4)
        ((uint8_t *)y)[off] = (uint8_t)r;
    else
        ((int8_t *)y)[off] = (int8_t)r;
}

int fd_conv_fwd_int8_ref_applicable(const fd_conv_problem_t *p, char *why, size_t why_size)
{
    if (!fd_conv_is_int8(p) || p->dir != FD_CONV_FWD) {
        snprintf(why, why_size, "not an INT8 forward problem (%s data)", fd_dtype_name(p->xdt));
        return 0;
    }
    return 1;
}

size_t fd_conv_fwd_int8_ref_workspace(const fd_conv_problem_t *p)
{
    (void)p;
    return 0;
}

static inline int64_t tap(const fd_conv_problem_t *p, int d, int64_t t)
{
    return p->cross_correlation ? t : p->flt[d] - 1 - t;
}

cudnnStatus_t fd_conv_fwd_int8_ref_run(const fd_conv_problem_t *p, const fd_conv_args_t *a)
{
    const int64_t cg_n = p->c / p->groups, kg_n = p->k / p->groups;
    const int x_unsigned = fd_conv_int8_lane(p->xdt) == CUDNN_DATA_UINT8;
    const int8_t *xs8 = a->x;
    const uint8_t *xu8 = a->x;
    const int8_t *w = a->w;
    const float alpha = (float)a->alpha, beta = (float)a->beta;
    for (int64_t n = 0; n < p->n; n++)
    for (int64_t k = 0; k < p->k; k++)
    for (int64_t o0 = 0; o0 < p->out[0]; o0++)
    for (int64_t o1 = 0; o1 < p->out[1]; o1++)
    for (int64_t o2 = 0; o2 < p->out[2]; o2++) {
        const int64_t g = k / kg_n;
        uint32_t acc = 0;
        for (int64_t cg = 0; cg < cg_n; cg++)
        for (int64_t t0 = 0; t0 < p->flt[0]; t0++) {
            int64_t i0 = o0 * p->stride[0] - p->pad[0] + t0 * p->dil[0];
            if (i0 < 0 || i0 >= p->in[0])
                continue;
            for (int64_t t1 = 0; t1 < p->flt[1]; t1++) {
                int64_t i1 = o1 * p->stride[1] - p->pad[1] + t1 * p->dil[1];
                if (i1 < 0 || i1 >= p->in[1])
                    continue;
                for (int64_t t2 = 0; t2 < p->flt[2]; t2++) {
                    int64_t i2 = o2 * p->stride[2] - p->pad[2] + t2 * p->dil[2];
                    if (i2 < 0 || i2 >= p->in[2])
                        continue;
                    int64_t xo = n * p->xs[0] + fd_conv_chan_off(g * cg_n + cg, p->xvect, p->xs[1]) +
                                 i0 * p->xs[2] + i1 * p->xs[3] + i2 * p->xs[4];
                    int64_t wo = k * p->ws[0] + fd_conv_chan_off(cg, p->wvect, p->ws[1]) +
                                 tap(p, 0, t0) * p->ws[2] + tap(p, 1, t1) * p->ws[3] +
                                 tap(p, 2, t2) * p->ws[4];
                    int32_t xv = x_unsigned ? xu8[xo] : xs8[xo];
                    acc += (uint32_t)(xv * (int32_t)w[wo]); /* |product| <= 2^15: no overflow */
                }
            }
        }
        int64_t yo = n * p->ys[0] + fd_conv_chan_off(k, p->yvect, p->ys[1]) + o0 * p->ys[2] +
                     o1 * p->ys[3] + o2 * p->ys[4];
        fd_conv_int8_store(p->ydt, a->out, yo, from_bits(acc), alpha, beta);
    }
    return CUDNN_STATUS_SUCCESS;
}
