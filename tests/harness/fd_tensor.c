/* SPDX-License-Identifier: MIT */
/*
 * fd_tensor.c - strided tensors for the op-family tests (see fd_tensor.h). Written from the
 * cuDNN stride definition only: offset = sum index[i] * stride[i]; nothing from src/.
 */
#include "fd_tensor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const fd_layout_name[FD_LAYOUT_COUNT] = {"nchw", "nhwc", "padded", "permuted"};

void fd_layout_finish(fd_layout_t *l)
{
    l->count = 1;
    l->extent = 1;
    for (int i = 0; i < l->nb; i++) {
        l->count *= l->dim[i];
        l->extent += (int64_t)(l->dim[i] - 1) * l->stride[i];
    }
}

/* Strides from a dim order (order[0] innermost), an innermost stride and per-dim gaps. */
void fd_layout_ordered(fd_layout_t *l, int nb, const int *dim, int order, int inner, int gap)
{
    memset(l, 0, sizeof *l);
    l->nb = nb;
    memcpy(l->dim, dim, sizeof(int) * (size_t)nb);
    int ord[FD_MAXD], k = 0; /* ord[0] is the innermost dim */
    if (order == FD_ORDER_NHWC && nb >= 3) {
        ord[k++] = 1;
        for (int d = nb - 1; d >= 2; d--)
            ord[k++] = d;
        ord[k++] = 0;
    } else if (order == FD_ORDER_REVERSED) {
        for (int d = 0; d < nb; d++)
            ord[k++] = d;
    } else {
        for (int d = nb - 1; d >= 0; d--)
            ord[k++] = d;
    }
    int64_t acc = inner;
    for (int i = 0; i < nb; i++) {
        l->stride[ord[i]] = (int)acc;
        acc = acc * dim[ord[i]] + gap;
    }
    fd_layout_finish(l);
}

void fd_layout_random(fd_layout_t *l, int nb, const int *dim, int kind, fd_rng_t *r)
{
    memset(l, 0, sizeof *l);
    l->nb = nb;
    memcpy(l->dim, dim, sizeof(int) * (size_t)nb);
    int order[FD_MAXD]; /* order[0] = innermost dim */
    for (int i = 0; i < nb; i++)
        order[i] = nb - 1 - i;
    if (kind == FD_LAYOUT_NHWC && nb >= 3) {
        order[0] = 1;
        for (int i = 1; i < nb - 1; i++)
            order[i] = nb - i;
        order[nb - 1] = 0;
    } else if (kind == FD_LAYOUT_PERMUTED) {
        for (int i = nb - 1; i > 0; i--) {
            int j = fd_rng_int(r, 0, i), t = order[i];
            order[i] = order[j], order[j] = t;
        }
    }
    int64_t acc = 1;
    for (int i = 0; i < nb; i++) {
        int gap =
            (kind == FD_LAYOUT_PADDED || kind == FD_LAYOUT_PERMUTED) ? fd_rng_int(r, 0, 3) : 0;
        if (kind == FD_LAYOUT_PADDED && i == 0)
            gap = fd_rng_int(r, 0, 1);
        l->stride[order[i]] = (int)(acc + (i == 0 ? 0 : gap));
        if (i == 0 && gap)
            l->stride[order[i]] = 1 + gap; /* innermost stride > 1 leaves holes too */
        acc = (int64_t)l->stride[order[i]] * dim[order[i]];
    }
    fd_layout_finish(l);
}

int64_t fd_layout_offset(const fd_layout_t *l, int64_t k)
{
    int64_t off = 0;
    for (int i = l->nb - 1; i >= 0; i--) {
        off += (k % l->dim[i]) * l->stride[i];
        k /= l->dim[i];
    }
    return off;
}

cudnnTensorDescriptor_t fd_layout_desc(const fd_layout_t *l, cudnnDataType_t dt)
{
    cudnnTensorDescriptor_t d = NULL;
    cudnnStatus_t st = cudnnCreateTensorDescriptor(&d);
    if (st == CUDNN_STATUS_SUCCESS)
        st = cudnnSetTensorNdDescriptor(d, dt, l->nb, l->dim, l->stride);
    FD_EXPECT(st == CUDNN_STATUS_SUCCESS, "set descriptor: %s", cudnnGetErrorString(st));
    return d;
}

fd_buf_t fd_layout_alloc(const fd_layout_t *l, cudnnDataType_t dt)
{
    return fd_buf_alloc((size_t)l->extent * fd_test_dtype_size(dt));
}

void fd_layout_scatter(const fd_layout_t *l, cudnnDataType_t dt, void *base, const double *v)
{
    for (int64_t k = 0; k < l->count; k++)
        fd_test_store(dt, base, fd_layout_offset(l, k), v[k]);
}

void fd_layout_gather(const fd_layout_t *l, cudnnDataType_t dt, const void *base, double *v)
{
    for (int64_t k = 0; k < l->count; k++)
        v[k] = fd_test_load(dt, base, fd_layout_offset(l, k));
}

void fd_layout_bits(const fd_layout_t *l, cudnnDataType_t dt, const void *base, unsigned char *dst)
{
    size_t es = fd_test_dtype_size(dt);
    for (int64_t k = 0; k < l->count; k++)
        memcpy(dst + (size_t)k * es,
               (const unsigned char *)base + (size_t)fd_layout_offset(l, k) * es, es);
}

/* Per element: 1 when some index addresses it. */
static unsigned char *element_mask(const fd_layout_t *l)
{
    unsigned char *used = calloc((size_t)l->extent, 1);
    for (int64_t k = 0; k < l->count; k++)
        used[fd_layout_offset(l, k)] = 1;
    return used;
}

int fd_layout_holes_equal(const fd_layout_t *l, cudnnDataType_t dt, const void *base,
                          const unsigned char *snap)
{
    size_t es = fd_test_dtype_size(dt);
    unsigned char *used = element_mask(l);
    const unsigned char *p = base;
    int ok = 1;
    for (int64_t e = 0; e < l->extent && ok; e++)
        if (!used[e] && memcmp(p + (size_t)e * es, snap + (size_t)e * es, es) != 0)
            ok = 0;
    free(used);
    return ok;
}

int fd_layout_holes_poisoned(const fd_layout_t *l, cudnnDataType_t dt, const void *base)
{
    size_t es = fd_test_dtype_size(dt);
    unsigned char *used = element_mask(l);
    const unsigned char *p = base;
    int ok = 1;
    for (int64_t e = 0; e < l->extent && ok; e++)
        if (!used[e])
            for (size_t k = 0; k < es; k++)
                ok &= p[(size_t)e * es + k] == 0xFF;
    free(used);
    return ok;
}

void fd_tb_init(fd_tb_t *t, const fd_layout_t *l, cudnnDataType_t dt)
{
    t->l = *l;
    fd_layout_finish(&t->l); /* count and extent, also for a layout written by hand */
    t->dt = dt;
    t->es = fd_test_dtype_size(dt);
    t->b = fd_buf_alloc((size_t)t->l.extent * t->es);
    t->snap = malloc(t->b.size);
    FD_EXPECT_STATUS(cudnnCreateTensorDescriptor(&t->d), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnSetTensorNdDescriptor(t->d, dt, l->nb, l->dim, l->stride),
                     CUDNN_STATUS_SUCCESS);
}

void fd_tb_free(fd_tb_t *t)
{
    fd_buf_free(&t->b);
    free(t->snap);
    t->snap = NULL;
    cudnnDestroyTensorDescriptor(t->d);
    t->d = NULL;
}

void fd_tb_scatter(fd_tb_t *t, const double *v)
{
    fd_layout_scatter(&t->l, t->dt, t->b.data, v);
}

void fd_tb_gather(const fd_tb_t *t, double *v)
{
    fd_layout_gather(&t->l, t->dt, t->b.data, v);
}

void fd_tb_snap(fd_tb_t *t)
{
    memcpy(t->snap, t->b.data, t->b.size);
}

int fd_tb_holes_ok(const fd_tb_t *t)
{
    return fd_buf_guards_ok(&t->b) && fd_layout_holes_equal(&t->l, t->dt, t->b.data, t->snap);
}

fd_scalar_t fd_scalar(cudnnDataType_t dt, double v)
{
    fd_scalar_t s;
    memset(&s, 0, sizeof s);
    if (dt == CUDNN_DATA_DOUBLE)
        s.d = v;
    else
        s.f = (float)v;
    return s;
}

void fd_handles_create(cudnnHandle_t *ref, cudnnHandle_t *cpu)
{
    FD_EXPECT_STATUS(freednnCreateWithBackend(ref, FREEDNN_BACKEND_REF), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(freednnCreateWithBackend(cpu, FREEDNN_BACKEND_CPU), CUDNN_STATUS_SUCCESS);
}

int fd_same_value(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}
