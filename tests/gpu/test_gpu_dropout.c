/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_dropout.c - the cuda dropout rows (src/cuda/dropout.cu) against the ref backend
 * through the public API (tests/gpu/gpu_mirror.h), everything bit for bit:
 *   - cudnnSetDropoutDescriptor: the 64-byte states buffer cuda writes in device memory equals
 *     the one ref writes in host memory (seeds below and above 2^32);
 *   - cudnnDropoutForward, twice per case on one descriptor: both masks (reserve spaces), both
 *     outputs and the states buffer (call counter 2) equal ref's, i.e. the Philox stream and
 *     the call counter are reproduced on the GPU;
 *   - cudnnDropoutBackward with a given mask;
 * for FLOAT, DOUBLE, HALF, BFLOAT16, p in {0, 0.1, 1/3, 0.5, 1}, x and y in different layouts
 * and shapes of one element count (pairing by canonical index), counts that are not multiples
 * of 4, in place, and a 4M-element tensor. Every case is re-run for determinism.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu_mirror.h"

typedef enum { LAY_NCHW, LAY_NHWC, LAY_PAD } layout_t;

typedef struct {
    int nb, dim[5], stride[5];
    int64_t extent, count;
} dshape_t;

typedef struct {
    int bwd, in_place;
    cudnnDataType_t dt;
    float p;
    unsigned long long seed;
    dshape_t x, y;
    uint64_t fill_seed;
} dcase_t;

static void shape(dshape_t *s, int nb, const int *dim, layout_t lay)
{
    s->nb = nb;
    memcpy(s->dim, dim, sizeof(int) * (size_t)nb);
    int64_t acc = 1;
    if (lay == LAY_NHWC) {
        s->stride[1] = 1;
        acc = dim[1];
        for (int i = nb - 1; i >= 2; i--) {
            s->stride[i] = (int)acc;
            acc *= dim[i];
        }
        s->stride[0] = (int)acc;
    } else {
        for (int i = nb - 1; i >= 0; i--) {
            s->stride[i] = (int)acc;
            acc = acc * dim[i] + (lay == LAY_PAD && i >= 1 ? 3 : 0);
        }
    }
    s->extent = 1, s->count = 1;
    for (int i = 0; i < nb; i++) {
        s->extent += (int64_t)(dim[i] - 1) * s->stride[i];
        s->count *= dim[i];
    }
}

static cudnnTensorDescriptor_t desc(const dcase_t *c, const dshape_t *s)
{
    cudnnTensorDescriptor_t t;
    cudnnCreateTensorDescriptor(&t);
    cudnnSetTensorNdDescriptor(t, c->dt, s->nb, s->dim, s->stride);
    return t;
}

/* buffers: 0 states; fwd: 1 x, 2 y1, 3 res1, 4 y2, 5 res2; bwd: 1 dy, 2 dx, 3 mask */
static void fill(int i, void *payload, size_t bytes, void *ctx)
{
    dcase_t *c = ctx;
    fd_rng_t r;
    fd_rng_seed(&r, fd_test_mix(c->fill_seed, (uint64_t)i));
    if (i == 1)
        fd_fill_real(&r, c->dt, payload, (int64_t)(bytes / fd_test_dtype_size(c->dt)), -3.0, 3.0);
    if (c->bwd && i == 3)
        for (size_t b = 0; b < bytes; b++)
            ((unsigned char *)payload)[b] = (unsigned char)(fd_rng_next(&r) & 1);
}

static cudnnStatus_t call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    dcase_t *c = ctx;
    cudnnDropoutDescriptor_t dd;
    cudnnCreateDropoutDescriptor(&dd);
    size_t ssz = 0;
    cudnnDropoutGetStatesSize(h, &ssz);
    cudnnStatus_t st = cudnnSetDropoutDescriptor(dd, h, c->p, ptr[0], ssz, c->seed);
    cudnnTensorDescriptor_t xd = desc(c, &c->x), yd = desc(c, &c->y);
    size_t res = (size_t)c->x.count;
    void *out = c->in_place ? ptr[1] : ptr[2];
    if (st == CUDNN_STATUS_SUCCESS && !c->bwd) {
        st = cudnnDropoutForward(h, dd, xd, ptr[1], yd, out, ptr[3], res);
        if (st == CUDNN_STATUS_SUCCESS && !c->in_place)
            st = cudnnDropoutForward(h, dd, xd, ptr[1], yd, ptr[4], ptr[5], res);
    } else if (st == CUDNN_STATUS_SUCCESS) {
        st = cudnnDropoutBackward(h, dd, xd, ptr[1], yd, out, ptr[3], res);
    }
    cudnnDestroyTensorDescriptor(xd);
    cudnnDestroyTensorDescriptor(yd);
    cudnnDestroyDropoutDescriptor(dd);
    return st;
}

static int ncase;

static void run(dcase_t c)
{
    c.fill_seed = fd_test_mix(0xd409u, (uint64_t)++ncase);
    gm_case_t g;
    memset(&g, 0, sizeof g);
    size_t es = fd_test_dtype_size(c.dt);
    size_t ssz = 0;
    cudnnDropoutGetStatesSize(gm_cuda, &ssz);
    g.buf[g.nbuf++] = (gm_buf_t){"states", ssz, CUDNN_DATA_INT8, GM_OUT, 0, 0};
    g.buf[g.nbuf++] = (gm_buf_t){c.bwd ? "dy" : "x", es * (size_t)c.x.extent, c.dt,
                                 c.in_place ? GM_INOUT : GM_IN, 0, 0};
    g.buf[g.nbuf++] = (gm_buf_t){c.bwd ? "dx" : "y", es * (size_t)c.y.extent, c.dt, GM_OUT, 0, 0};
    g.buf[g.nbuf++] = (gm_buf_t){c.bwd ? "mask" : "mask1", (size_t)c.x.count, CUDNN_DATA_INT8,
                                 c.bwd ? GM_IN : GM_OUT, 0, 0};
    if (!c.bwd) {
        g.buf[g.nbuf++] = (gm_buf_t){"y2", es * (size_t)c.y.extent, c.dt, GM_OUT, 0, 0};
        g.buf[g.nbuf++] = (gm_buf_t){"mask2", (size_t)c.x.count, CUDNN_DATA_INT8, GM_OUT, 0, 0};
    }
    char label[200];
    snprintf(label, sizeof label, "dropout %s %s p %g seed %llu x %dx%dx%dx%d y %dx%dx%dx%d%s",
             c.bwd ? "bwd" : "fwd", fd_test_dtype_short(c.dt), (double)c.p, c.seed, c.x.dim[0], c.x.dim[1],
             c.x.dim[2], c.x.dim[3], c.y.dim[0], c.y.dim[1], c.y.dim[2], c.y.dim[3],
             c.in_place ? " in-place" : "");
    g.label = label;
    g.det = 1;
    g.fill = fill;
    g.call = call;
    g.ctx = &c;
    g.want = CUDNN_STATUS_SUCCESS;
    gm_run(&g);
}

/* The states buffer alone: Set on both handles. */
static cudnnStatus_t call_init(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    dcase_t *c = ctx;
    cudnnDropoutDescriptor_t dd;
    cudnnCreateDropoutDescriptor(&dd);
    size_t ssz = 0;
    cudnnDropoutGetStatesSize(h, &ssz);
    cudnnStatus_t st = cudnnSetDropoutDescriptor(dd, h, c->p, ptr[0], ssz, c->seed);
    cudnnDestroyDropoutDescriptor(dd);
    return st;
}

int main(int argc, char **argv)
{
    gm_init(argc, argv, "test_gpu_dropout");
    size_t ssz_ref = 0, ssz_cuda = 0;
    FD_EXPECT_STATUS(cudnnDropoutGetStatesSize(gm_ref, &ssz_ref), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnDropoutGetStatesSize(gm_cuda, &ssz_cuda), CUDNN_STATUS_SUCCESS);
    FD_EXPECT(ssz_ref == ssz_cuda, "states sizes differ: ref %zu, cuda %zu", ssz_ref, ssz_cuda);

    const unsigned long long seeds[4] = {0ull, 1234ull, 0x123456789abcdefull, ~0ull};
    for (int s = 0; s < 4; s++) {
        dcase_t c;
        memset(&c, 0, sizeof c);
        c.p = 0.5f, c.seed = seeds[s];
        gm_case_t g;
        memset(&g, 0, sizeof g);
        g.buf[g.nbuf++] = (gm_buf_t){"states", ssz_cuda, CUDNN_DATA_INT8, GM_OUT, 0, 0};
        char label[100];
        snprintf(label, sizeof label, "dropout init seed %llu", c.seed);
        g.label = label, g.det = 1, g.call = call_init, g.ctx = &c, g.want = CUDNN_STATUS_SUCCESS;
        gm_run(&g);
    }

    const cudnnDataType_t dts[4] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    const float ps[5] = {0.0f, 0.1f, 1.0f / 3.0f, 0.5f, 1.0f};
    const int d4[4] = {3, 5, 7, 6}, d4b[4] = {5, 3, 6, 7}, d5[5] = {2, 3, 3, 5, 3};
    int n = 0;
    for (int bwd = 0; bwd < 2; bwd++)
        for (int t = 0; t < 4; t++)
            for (int pi = 0; pi < 5; pi++)
                for (int l = 0; l < 3; l++) {
                    n++;
                    if (gm_smoke && (t > 0 || l > 0 || pi == 0 || pi == 4))
                        continue;
                    dcase_t c;
                    memset(&c, 0, sizeof c);
                    c.bwd = bwd, c.dt = dts[t], c.p = ps[pi];
                    c.seed = seeds[n % 4];
                    if (l == 2 && !bwd) {
                        shape(&c.x, 5, d5, LAY_NCHW); /* 270 elements as 5-d x and 4-d y */
                        const int dy[4] = {6, 5, 3, 3};
                        shape(&c.y, 4, dy, LAY_PAD);
                    } else {
                        shape(&c.x, 4, d4, (layout_t)l);
                        shape(&c.y, 4, l == 1 ? d4b : d4, (layout_t)((l + 1) % 3));
                    }
                    run(c);
                }
    if (!gm_smoke) {
        for (int bwd = 0; bwd < 2; bwd++) { /* in place */
            dcase_t c;
            memset(&c, 0, sizeof c);
            c.bwd = bwd, c.dt = CUDNN_DATA_FLOAT, c.p = 0.25f, c.seed = 99, c.in_place = 1;
            shape(&c.x, 4, d4, LAY_NHWC);
            c.y = c.x;
            run(c);
        }
        const int odd[3][4] = {{1, 1, 1, 1}, {1, 1, 1, 7}, {16, 64, 64, 64}};
        for (int k = 0; k < 3; k++)
            for (int bwd = 0; bwd < 2; bwd++) {
                dcase_t c;
                memset(&c, 0, sizeof c);
                c.bwd = bwd, c.dt = k == 2 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT, c.p = 0.3f,
                c.seed = 0xfeedfacecafebeefull;
                shape(&c.x, 4, odd[k], LAY_NCHW);
                shape(&c.y, 4, odd[k], k == 2 ? LAY_NHWC : LAY_NCHW);
                run(c);
            }
    }
    return gm_finish();
}
