/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_fastpath.c - the packed fast paths of the memory-bound cuda rows against ref
 * (gpu_mirror harness): activation fwd/bwd (act_*_packed), AddTensor / OpTensor / SetTensor /
 * ScaleTensor / TransformTensor of equal layouts (tensor_*_packed), and softmax CHANNEL with
 * 32 to 127 channels in NHWC (softmax_*_warp).
 *
 * What the op-family programs do not stress: dense tensors whose element count is not a
 * multiple of the 16-byte vector (the scalar tail), >= 4M elements (the grid-stride trips of a
 * wave-capped grid), pointers one element off 16-byte alignment (must take the generic kernel
 * and agree all the same), AddTensor / OpTensor per-channel bias over NCHW (H*W a multiple of
 * the vector or not) and NHWC (C a multiple or not: vector or element reads of the bias), a
 * scalar operand, in place. FLOAT, DOUBLE, HALF, BFLOAT16; alpha/beta {1, 0} and {0.5, 0.25}.
 * Piecewise activations and the tensor ops are bit-identical to ref (tolerance 0); sigmoid and
 * softmax within gm_tol. Every case is re-run for determinism. --smoke: a handful of small ones.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_mirror.h"

#include "gpu_layouts.h"

typedef enum {
    K_ACT_FWD,
    K_ACT_BWD,
    K_ADD,
    K_OP,
    K_SET,
    K_SCALE,
    K_XFORM,
    K_SM_FWD,
    K_SM_BWD
} kind_t;
static const char *const kind_names[] = {"act_fwd", "act_bwd", "add",    "op",    "set",
                                         "scale",   "xform",   "sm_fwd", "sm_bwd"};

typedef struct {
    kind_t kind;
    cudnnDataType_t dt;
    layout_t lay;
    int dims[4];
    int bcast;   /* ADD: A, OP: B is 1xCx1x1; 2: 1x1x1x1 */
    int off;     /* every pointer this many elements past the payload start (1: misaligned) */
    int in_place;
    cudnnActivationMode_t amode;
    cudnnOpTensorOp_t op;
    cudnnSoftmaxAlgorithm_t salgo;
    double alpha, beta;
    tshape_t t, b; /* the main shape; the broadcast operand's */
    int nbuf;
    uint64_t seed;
} fp_case_t;

static size_t esize(const fp_case_t *c)
{
    return fd_test_dtype_size(c->dt);
}

/* Buffer roles per kind; buffer 0 .. nbuf-1, the last is the output. */
static void fill(int i, void *payload, size_t bytes, void *ctx)
{
    fp_case_t *c = ctx;
    const int out = i == c->nbuf - 1;
    if (out && c->beta == 0.0 && c->kind != K_SCALE && !c->in_place)
        return; /* poisoned: beta = 0 must not read it */
    const int act = c->kind == K_ACT_FWD || c->kind == K_ACT_BWD;
    const int exact = act ? c->amode != CUDNN_ACTIVATION_SIGMOID : c->kind < K_SM_FWD;
    if (c->kind == K_OP && c->op == CUDNN_OP_TENSOR_SQRT)
        fill_buf(c->dt, payload, bytes, F_REAL, fd_test_mix(c->seed, (uint64_t)i), 0.0, 4.0);
    else if ((c->kind == K_SM_BWD && i == 0) || !exact)
        fill_buf(c->dt, payload, bytes, F_REAL, fd_test_mix(c->seed, (uint64_t)i), -2.0, 2.0);
    else
        fill_buf(c->dt, payload, bytes, F_INT, fd_test_mix(c->seed, (uint64_t)i), -6.0, 6.0);
}

static cudnnStatus_t call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    fp_case_t *c = ctx;
    void *p[4];
    for (int i = 0; i < c->nbuf; i++)
        p[i] = (char *)ptr[i] + (size_t)c->off * esize(c);
    double ad, bd;
    float af, bf;
    const void *al, *be;
    scale_ptrs(c->dt, c->alpha, c->beta, &ad, &bd, &af, &bf, &al, &be);
    cudnnTensorDescriptor_t td = tdesc(c->dt, &c->t), bdsc = tdesc(c->dt, &c->b);
    cudnnStatus_t st = CUDNN_STATUS_INTERNAL_ERROR;
    switch (c->kind) {
    case K_ACT_FWD:
    case K_ACT_BWD: {
        cudnnActivationDescriptor_t a;
        cudnnCreateActivationDescriptor(&a);
        cudnnSetActivationDescriptor(a, c->amode, CUDNN_PROPAGATE_NAN, 1.5);
        if (c->kind == K_ACT_FWD) /* x, y */
            st = cudnnActivationForward(h, a, al, td, p[0], be, td, c->in_place ? p[0] : p[1]);
        else /* y, dy, x, dx */
            st = cudnnActivationBackward(h, a, al, td, p[0], td, p[1], td, p[2], be, td, p[3]);
        cudnnDestroyActivationDescriptor(a);
        break;
    }
    case K_ADD: /* a (broadcast), c */
        st = cudnnAddTensor(h, al, bdsc, p[0], be, td, p[1]);
        break;
    case K_OP: { /* a, b (broadcast), c */
        cudnnOpTensorDescriptor_t od;
        cudnnCreateOpTensorDescriptor(&od);
        const cudnnDataType_t comp =
            c->dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
        cudnnSetOpTensorDescriptor(od, c->op, comp, CUDNN_NOT_PROPAGATE_NAN);
        st = cudnnOpTensor(h, od, al, td, p[0], al, bdsc, p[1], be, td, p[2]);
        cudnnDestroyOpTensorDescriptor(od);
        break;
    }
    case K_SET: {
        const double vd = -1.375;
        const float vf = -1.375f;
        st = cudnnSetTensor(h, td, p[0], c->dt == CUDNN_DATA_DOUBLE ? (const void *)&vd
                                                                     : (const void *)&vf);
        break;
    }
    case K_SCALE:
        st = cudnnScaleTensor(h, td, p[0], al);
        break;
    case K_XFORM: /* x, y */
        st = cudnnTransformTensor(h, al, td, p[0], be, td, p[1]);
        break;
    case K_SM_FWD: /* x, y */
        st = cudnnSoftmaxForward(h, c->salgo, CUDNN_SOFTMAX_MODE_CHANNEL, al, td, p[0], be, td,
                                 c->in_place ? p[0] : p[1]);
        break;
    case K_SM_BWD: /* y, dy, dx */
        st = cudnnSoftmaxBackward(h, c->salgo, CUDNN_SOFTMAX_MODE_CHANNEL, al, td, p[0], td, p[1],
                                  be, td, p[2]);
        break;
    }
    cudnnDestroyTensorDescriptor(td);
    cudnnDestroyTensorDescriptor(bdsc);
    return st;
}

static uint64_t seed_counter = 1;

static void run_case(fp_case_t c)
{
    static const int nbufs[] = {2, 4, 2, 3, 1, 1, 2, 2, 3};
    c.seed = seed_counter++;
    c.t = shape_of(c.lay, 4, c.dims);
    int bd[4] = {1, c.bcast == 2 ? 1 : c.dims[1], 1, 1};
    c.b = c.bcast ? shape_of(c.lay, 4, bd) : c.t;
    c.nbuf = nbufs[c.kind];
    if (c.in_place && (c.kind == K_ACT_FWD || c.kind == K_SM_FWD))
        c.nbuf = 1;
    char label[256];
    snprintf(label, sizeof label, "%s %s %s %dx%dx%dx%d%s%s%s alpha %g beta %g",
             kind_names[c.kind], fd_test_dtype_short(c.dt), layout_names[c.lay], c.dims[0],
             c.dims[1], c.dims[2], c.dims[3],
             c.bcast == 1   ? " bias"
             : c.bcast == 2 ? " scalar"
                            : "",
             c.off ? " misaligned" : "", c.in_place ? " in-place" : "", c.alpha, c.beta);
    gm_case_t g;
    memset(&g, 0, sizeof g);
    g.label = label;
    g.nbuf = c.nbuf;
    g.det = 1;
    g.fill = fill;
    g.call = call;
    g.ctx = &c;
    g.want = CUDNN_STATUS_SUCCESS;
    const size_t main_bytes = (size_t)(c.t.ext + c.off) * esize(&c);
    const size_t b_bytes = (size_t)(c.b.ext + c.off) * esize(&c);
    for (int i = 0; i < c.nbuf; i++) {
        gm_buf_t *b = &g.buf[i];
        b->name = i == c.nbuf - 1 ? "out" : "in";
        b->dt = c.dt;
        const int inout = c.beta != 0.0 || c.kind == K_SCALE || c.nbuf == 1;
        b->role = i < c.nbuf - 1 ? GM_IN : inout ? GM_INOUT : GM_OUT;
        b->bytes = main_bytes;
        if ((c.kind == K_ADD && i == 0) || (c.kind == K_OP && i == 1))
            b->bytes = b_bytes;
    }
    gm_buf_t *o = &g.buf[c.nbuf - 1];
    if (c.kind >= K_SM_FWD)
        gm_tol(o, c.dt, c.dims[1]);
    else if ((c.kind == K_ACT_FWD || c.kind == K_ACT_BWD) && c.amode == CUDNN_ACTIVATION_SIGMOID)
        gm_tol(o, c.dt, 8);
    gm_run(&g);
}

int main(int argc, char **argv)
{
    gm_init(argc, argv, "test_gpu_fastpath");
    static const double blends[2][2] = {{1.0, 0.0}, {0.5, 0.25}};
    /* dense shapes: vector multiple, a scalar tail, one of >= 4M elements */
    static const int shapes[3][4] = {{2, 16, 8, 8}, {3, 5, 7, 9}, {8, 64, 96, 96}};
    const int nshape = gm_smoke ? 2 : 3;
    for (int di = 0; di < 4; di++) {
        const cudnnDataType_t dt = dtypes[di];
        for (int si = 0; si < nshape; si++)
            for (int li = 0; li < 2; li++)
                for (int bi = 0; bi < 2; bi++) {
                    if (gm_smoke && (bi || li))
                        continue;
                    const int big = si == 2;
                    if (big && (bi || li)) /* the large shape once per type */
                        continue;
                    fp_case_t c;
                    memset(&c, 0, sizeof c);
                    c.dt = dt;
                    c.lay = (layout_t)li;
                    memcpy(c.dims, shapes[si], sizeof c.dims);
                    c.alpha = blends[bi][0];
                    c.beta = blends[bi][1];
                    for (int off = 0; off < 2; off++) {
                        if (big && off)
                            continue;
                        c.off = off;
                        c.kind = K_ACT_FWD;
                        c.amode = CUDNN_ACTIVATION_RELU;
                        run_case(c);
                        c.amode = CUDNN_ACTIVATION_CLIPPED_RELU;
                        c.in_place = 1;
                        run_case(c);
                        c.in_place = 0;
                        c.amode = CUDNN_ACTIVATION_SIGMOID;
                        run_case(c);
                        c.kind = K_ACT_BWD;
                        c.amode = CUDNN_ACTIVATION_RELU;
                        run_case(c);
                        c.amode = CUDNN_ACTIVATION_SIGMOID;
                        run_case(c);
                        c.kind = K_ADD;
                        for (int bc = 0; bc < 3; bc++) {
                            c.bcast = bc;
                            run_case(c);
                        }
                        c.kind = K_OP;
                        c.op = CUDNN_OP_TENSOR_MUL;
                        c.bcast = 1;
                        run_case(c);
                        c.op = CUDNN_OP_TENSOR_MAX;
                        c.bcast = 0;
                        run_case(c);
                        c.op = CUDNN_OP_TENSOR_SQRT;
                        run_case(c);
                        c.kind = K_SET;
                        run_case(c);
                        c.kind = K_SCALE;
                        run_case(c);
                        c.kind = K_XFORM;
                        run_case(c);
                    }
                }
        /* NHWC CHANNEL softmax: 64 and 100 channels (a warp per row), 128 (a block per row) */
        static const int sm_c[3] = {64, 100, 128};
        for (int ci = 0; ci < 3; ci++)
            for (int bi = 0; bi < 2; bi++)
                for (int a = 0; a < 2; a++) {
                    if (gm_smoke && (ci || bi))
                        continue;
                    fp_case_t c;
                    memset(&c, 0, sizeof c);
                    c.dt = dt;
                    c.lay = L_NHWC;
                    c.dims[0] = 3;
                    c.dims[1] = sm_c[ci];
                    c.dims[2] = 7;
                    c.dims[3] = 5;
                    c.alpha = blends[bi][0];
                    c.beta = blends[bi][1];
                    c.salgo = a ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE;
                    c.kind = K_SM_FWD;
                    run_case(c);
                    c.in_place = 1;
                    run_case(c);
                    c.in_place = 0;
                    c.kind = K_SM_BWD;
                    run_case(c);
                }
    }
    return gm_finish();
}
