/* SPDX-License-Identifier: MIT */
/*
 * test_gpu_tensor.c - the cuda elementwise tensor rows (src/cuda/tensor_ops.cu) against the
 * ref backend through the public API (tests/gpu/gpu_mirror.h): cudnnAddTensor (every broadcast
 * pattern, in place), cudnnOpTensor (every cudnnOpTensorOp_t, both NaN options over fills with
 * NaN, every A/B -> C type pair the API admits, the no-broadcast dense kernel), cudnnSetTensor,
 * cudnnScaleTensor and cudnnTransformTensor (layout changes, padding, fold / unfold through cudnnTransformTensorEx)
 * and cudnnReduceTensor (every cudnnReduceTensorOp_t, NaN option, flattened indices with ties);
 * FLOAT, DOUBLE, HALF, BFLOAT16 (and INT8 where the API takes it), NCHW / NHWC / padded, 4-d and
 * 5-d, alpha/beta {1, 0} and {0.5, 0.25}, odd and large (4M elements) shapes. The kernels
 * compute in double and round once like the ref, so every output must be bit-identical
 * (tolerance 0), except reductions of real fills over more than 64 elements (a tree, not the
 * ref's sequence: gm_tol); every case is re-run for determinism. The lean bias-add and OpTensor
 * kernels (FREEDNN_GPU_TO_LEAN) get their own cases (with Inf / NaN / overflow fills and
 * misaligned operands); a child reruns the add and op cases with the switch 0.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_mirror.h"

typedef enum { OP_ADD, OP_OP, OP_SET, OP_SCALE, OP_XFORM, OP_XFORM_EX, OP_REDUCE } kind_t;
typedef enum { LAY_NCHW, LAY_NHWC, LAY_PAD } layout_t;

typedef struct {
    int nb, dim[5], stride[5];
    cudnnDataType_t dt;
    int64_t extent;
} tshape_t;

typedef struct {
    kind_t kind;
    cudnnOpTensorOp_t op;
    cudnnNanPropagation_t nan;
    tshape_t a, b, c;
    double alpha, alpha2, beta;
    int in_place;
    int nan_fill;
    int special;      /* +-Inf, NaN, near-overflow and tiny values in every filled buffer */
    int a_off, c_off; /* elements A / C start past their buffer's start (16-byte misaligned) */
    /* transform Ex */
    int pad_before[5], pad_after[5];
    unsigned fold[5];
    cudnnFoldingDirection_t dir;
    /* reduce */
    cudnnReduceTensorOp_t rop;
    int want_idx, int_fill;
    size_t idx_bytes;
    size_t ws_bytes; /* the workspace the cuda row reports (ref: 0), buffer ws_buf */
    int ws_buf;
    uint64_t seed;
} tcase_t;

static void shape(tshape_t *s, cudnnDataType_t dt, int nb, const int *dim, layout_t lay)
{
    s->dt = dt;
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
            acc = acc * dim[i] + (lay == LAY_PAD && i >= 1 ? 2 : 0);
        }
    }
    s->extent = 1;
    for (int i = 0; i < nb; i++)
        s->extent += (int64_t)(dim[i] - 1) * s->stride[i];
}

static cudnnTensorDescriptor_t desc(const tshape_t *s)
{
    cudnnTensorDescriptor_t t;
    cudnnCreateTensorDescriptor(&t);
    cudnnSetTensorNdDescriptor(t, s->dt, s->nb, s->dim, s->stride);
    return t;
}

static size_t bytes_of(const tshape_t *s)
{
    return fd_test_dtype_size(s->dt) * (size_t)s->extent;
}

static void fill(int i, void *payload, size_t bytes, void *ctx)
{
    tcase_t *c = ctx;
    fd_rng_t r;
    fd_rng_seed(&r, fd_test_mix(c->seed, (uint64_t)i));
    const tshape_t *s = i == 0 ? &c->a : i == 1 && c->kind == OP_OP && c->op != CUDNN_OP_TENSOR_SQRT &&
                                                 c->op != CUDNN_OP_TENSOR_NOT && !c->in_place
                                             ? &c->b
                                             : &c->c;
    if (c->kind == OP_REDUCE && i == 2)
        return; /* the indices: poisoned */
    int64_t n = (int64_t)(bytes / fd_test_dtype_size(s->dt));
    int is_out = s == &c->c;
    if (is_out && c->beta == 0.0 && c->kind != OP_SCALE && !c->in_place)
        return; /* stays poisoned: beta = 0 must not read it */
    if (s->dt == CUDNN_DATA_INT8)
        fd_fill_int(&r, s->dt, payload, n, -20, 20, 0.9);
    else if (c->int_fill) /* ties everywhere: the first index must win */
        fd_fill_int(&r, s->dt, payload, n, -3, 3, 0.8);
    else if (c->kind == OP_OP && c->op == CUDNN_OP_TENSOR_SQRT)
        fd_fill_real(&r, s->dt, payload, n, 0.0, 4.0);
    else
        fd_fill_real(&r, s->dt, payload, n, -2.0, 2.0);
    if (c->nan_fill && !is_out)
        for (int64_t e = 0; e < n; e += 7)
            fd_test_store(s->dt, payload, e, NAN);
    if (c->special) /* C too (beta 1): Inf - Inf, x + NaN, overflow of the 16-bit types */
        for (int64_t e = i; e < n; e += 5) {
            const double v[8] = {INFINITY, -INFINITY, NAN, -NAN, 6.0e4, -6.0e4, 3.0e-7, -0.0};
            fd_test_store(s->dt, payload, e, v[(e / 5 + i) % 8]);
        }
}

static cudnnReduceTensorDescriptor_t reduce_desc(const tcase_t *c)
{
    cudnnReduceTensorDescriptor_t rd;
    cudnnCreateReduceTensorDescriptor(&rd);
    cudnnSetReduceTensorDescriptor(
        rd, c->rop, c->c.dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT, c->nan,
        c->want_idx ? CUDNN_REDUCE_TENSOR_FLATTENED_INDICES : CUDNN_REDUCE_TENSOR_NO_INDICES,
        CUDNN_32BIT_INDICES);
    return rd;
}

/* The workspace handle h reports for reduce case c (cuDNN's contract: query, then pass it). */
static size_t reduce_ws(cudnnHandle_t h, const tcase_t *c)
{
    cudnnReduceTensorDescriptor_t rd = reduce_desc(c);
    cudnnTensorDescriptor_t ad = desc(&c->a), cd = desc(&c->c);
    size_t ws = 0;
    FD_EXPECT_STATUS(cudnnGetReductionWorkspaceSize(h, rd, ad, cd, &ws), CUDNN_STATUS_SUCCESS);
    cudnnDestroyTensorDescriptor(ad);
    cudnnDestroyTensorDescriptor(cd);
    cudnnDestroyReduceTensorDescriptor(rd);
    return ws;
}

static cudnnStatus_t call(cudnnHandle_t h, void *const *ptr, void *ctx)
{
    tcase_t *c = ctx;
    int dbl = c->c.dt == CUDNN_DATA_DOUBLE;
    float fa = (float)c->alpha, fa2 = (float)c->alpha2, fb = (float)c->beta;
    double da = c->alpha, da2 = c->alpha2, db = c->beta;
    const void *al = dbl ? (void *)&da : (void *)&fa, *al2 = dbl ? (void *)&da2 : (void *)&fa2;
    const void *be = dbl ? (void *)&db : (void *)&fb;
    cudnnTensorDescriptor_t ad = desc(&c->a), bd = desc(&c->b), cd = desc(&c->c);
    cudnnStatus_t st = CUDNN_STATUS_INTERNAL_ERROR;
    const size_t aes = fd_test_dtype_size(c->a.dt), ces = fd_test_dtype_size(c->c.dt);
    void *A = (char *)ptr[0] + (size_t)c->a_off * aes;
    void *C = c->in_place
                  ? ptr[0]
                  : (char *)ptr[c->kind == OP_OP && c->b.nb ? 2 : 1] + (size_t)c->c_off * ces;
    switch (c->kind) {
    case OP_ADD:
        st = cudnnAddTensor(h, al, ad, A, be, cd, C);
        break;
    case OP_OP: {
        cudnnOpTensorDescriptor_t od;
        cudnnCreateOpTensorDescriptor(&od);
        cudnnSetOpTensorDescriptor(od, c->op, dbl ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT, c->nan);
        void *B = c->b.nb ? (c->in_place ? ptr[0] : ptr[1]) : NULL;
        st = cudnnOpTensor(h, od, al, ad, A, al2, c->b.nb ? bd : NULL, B, be, cd, C);
        cudnnDestroyOpTensorDescriptor(od);
        break;
    }
    case OP_SET: {
        double v = 1.375;
        unsigned char val[8];
        memset(val, 0, sizeof val);
        fd_test_store(c->c.dt, val, 0, v);
        st = cudnnSetTensor(h, cd, ptr[0], val);
        break;
    }
    case OP_SCALE:
        st = cudnnScaleTensor(h, cd, ptr[0], al);
        break;
    case OP_XFORM:
        st = cudnnTransformTensor(h, al, ad, A, be, cd, C);
        break;
    case OP_REDUCE: {
        cudnnReduceTensorDescriptor_t rd = reduce_desc(c);
        size_t ws = 0;
        FD_EXPECT_STATUS(cudnnGetReductionWorkspaceSize(h, rd, ad, cd, &ws), CUDNN_STATUS_SUCCESS);
        FD_EXPECT(ws <= c->ws_bytes, "the workspace grew between queries (%zu > %zu)", ws,
                  c->ws_bytes);
        st = cudnnReduceTensor(h, rd, c->want_idx ? ptr[2] : NULL, c->idx_bytes,
                               ws ? ptr[c->ws_buf] : NULL, ws, al, ad, A, be, cd, ptr[1]);
        cudnnDestroyReduceTensorDescriptor(rd);
        break;
    }
    case OP_XFORM_EX: {
        cudnnTensorTransformDescriptor_t td;
        cudnnCreateTensorTransformDescriptor(&td);
        cudnnSetTensorTransformDescriptor(td, (uint32_t)c->a.nb, CUDNN_TENSOR_NCHW, c->pad_before,
                                          c->pad_after, c->fold + 2, c->dir);
        st = cudnnTransformTensorEx(h, td, al, ad, A, be, cd, C);
        cudnnDestroyTensorTransformDescriptor(td);
        break;
    }
    }
    cudnnDestroyTensorDescriptor(ad);
    cudnnDestroyTensorDescriptor(bd);
    cudnnDestroyTensorDescriptor(cd);
    return st;
}

static int ncase;

static void run(tcase_t c, const char *what)
{
    c.seed = fd_test_mix(0x7e45u, (uint64_t)++ncase);
    gm_case_t g;
    memset(&g, 0, sizeof g);
    const int out_role = c.beta != 0.0 || c.kind == OP_SCALE ? GM_INOUT : GM_OUT;
    if (c.kind == OP_SET || c.kind == OP_SCALE) {
        g.buf[g.nbuf++] = (gm_buf_t){"y", bytes_of(&c.c), c.c.dt, c.kind == OP_SET ? GM_OUT : GM_INOUT, 0, 0};
        c.a = c.c;
    } else if (c.in_place) {
        g.buf[g.nbuf++] = (gm_buf_t){"A=C", bytes_of(&c.c), c.c.dt, GM_INOUT, 0, 0};
    } else {
        g.buf[g.nbuf++] = (gm_buf_t){
            "A", bytes_of(&c.a) + (size_t)c.a_off * fd_test_dtype_size(c.a.dt), c.a.dt, GM_IN, 0,
            0};
        if (c.kind == OP_OP && c.b.nb)
            g.buf[g.nbuf++] = (gm_buf_t){"B", bytes_of(&c.b), c.b.dt, GM_IN, 0, 0};
        g.buf[g.nbuf++] =
            (gm_buf_t){"C",    bytes_of(&c.c) + (size_t)c.c_off * fd_test_dtype_size(c.c.dt),
                       c.c.dt, (gm_role_t)out_role,
                       0,      0};
        if (c.kind == OP_REDUCE) {
            int64_t count = 1;
            for (int i = 0; i < c.a.nb; i++)
                count *= c.c.dim[i] == 1 ? c.a.dim[i] : 1;
            /* the select ops and short slices are exact; long sums merge in another order */
            if (c.rop != CUDNN_REDUCE_TENSOR_MIN && c.rop != CUDNN_REDUCE_TENSOR_MAX &&
                c.rop != CUDNN_REDUCE_TENSOR_AMAX && count > 64 &&
                (!c.int_fill || c.rop == CUDNN_REDUCE_TENSOR_MUL || c.rop == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS))
                gm_tol(&g.buf[g.nbuf - 1], c.c.dt, count);
            if (c.want_idx)
                g.buf[g.nbuf++] = (gm_buf_t){"indices", c.idx_bytes, CUDNN_DATA_INT32, GM_OUT, 0, 0};
            c.ws_bytes = reduce_ws(gm_cuda, &c);
            c.ws_buf = g.nbuf;
            g.buf[g.nbuf++] = (gm_buf_t){"workspace", c.ws_bytes, CUDNN_DATA_INT8, GM_WS, 0, 0};
        }
    }
    char label[200];
    snprintf(label, sizeof label, "%s %s->%s %dd %dx%dx%dx%dx%d a %g/%g b %g%s%s%s off %d/%d", what,
             fd_test_dtype_short(c.a.dt), fd_test_dtype_short(c.c.dt), c.c.nb, c.c.dim[0],
             c.c.dim[1], c.c.dim[2], c.c.dim[3], c.c.nb > 4 ? c.c.dim[4] : 1, c.alpha, c.alpha2,
             c.beta, c.in_place ? " in-place" : "", c.nan_fill ? " nan" : "",
             c.special ? " inf" : "", c.a_off, c.c_off);
    g.label = label;
    g.det = 1;
    g.fill = fill;
    g.call = call;
    g.ctx = &c;
    g.want = CUDNN_STATUS_SUCCESS;
    gm_run(&g);
}

static tcase_t base(kind_t k)
{
    tcase_t c;
    memset(&c, 0, sizeof c);
    c.kind = k;
    c.alpha = 1, c.alpha2 = 1, c.beta = 0;
    c.nan = CUDNN_NOT_PROPAGATE_NAN;
    return c;
}

int main(int argc, char **argv)
{
    gm_init(argc, argv, "test_gpu_tensor");
    const cudnnDataType_t dts[4] = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
    const int d4[4] = {3, 5, 7, 6}, d5[5] = {2, 4, 3, 5, 3};
    int n = 0;
    /* the FREEDNN_GPU_TO_LEAN=0 child reruns the add and op cases only (the others never take
     * the lean kernels) */
    const int to_child = getenv("FD_GM_RERUN") != NULL && getenv("FREEDNN_GPU_TO_LEAN") != NULL;
    /* the FREEDNN_GPU_RD_FAST=0, FREEDNN_GPU_PDL=0, FREEDNN_GPU_RD_NHW_ROWS=0 and
     * FREEDNN_GPU_RD_COL2=0 children run the reduce cases only; the other children skip the
     * fast-path reduce cases (their switches do not touch reduce) */
    const int rd_child =
        getenv("FD_GM_RERUN") != NULL &&
        (getenv("FREEDNN_GPU_RD_FAST") != NULL || getenv("FREEDNN_GPU_PDL") != NULL ||
         getenv("FREEDNN_GPU_RD_NHW_ROWS") != NULL || getenv("FREEDNN_GPU_RD_COL2") != NULL);
    const int other_child = getenv("FD_GM_RERUN") != NULL && !rd_child;
    if (rd_child)
        goto reduce_cases;

    /* AddTensor: broadcast patterns (a's dims: full, per channel, per spatial, per batch, scalar) */
    for (int t = 0; t < 4; t++)
        for (int l = 0; l < 3; l++)
            for (int bc = 0; bc < 5; bc++) {
                n++;
                if (gm_smoke && (t > 0 || l > 0 || bc > 1))
                    continue;
                int five = (l + bc) % 2, nb = five ? 5 : 4, dc[5], da[5];
                for (int i = 0; i < nb; i++)
                    dc[i] = five ? d5[i] : d4[i];
                for (int i = 0; i < nb; i++)
                    da[i] = bc == 0                 ? dc[i]
                            : bc == 1               ? (i == 1 ? dc[i] : 1)
                            : bc == 2               ? (i >= 2 ? dc[i] : 1)
                            : bc == 3               ? (i == 0 ? dc[i] : 1)
                                                    : 1;
                tcase_t c = base(OP_ADD);
                shape(&c.c, dts[t], nb, dc, (layout_t)l);
                shape(&c.a, dts[t], nb, da, (layout_t)((l + 1) % 3));
                if (n % 2)
                    c.alpha = 0.5, c.beta = 0.25;
                run(c, "add");
            }
    {
        tcase_t c = base(OP_ADD); /* in place */
        shape(&c.c, CUDNN_DATA_FLOAT, 4, d4, LAY_NHWC);
        c.a = c.c;
        c.in_place = 1, c.alpha = 0.5, c.beta = 0.25;
        run(c, "add");
    }

    /* OpTensor: every op, both NaN options, the type pairs the API admits */
    const cudnnOpTensorOp_t ops[6] = {CUDNN_OP_TENSOR_ADD, CUDNN_OP_TENSOR_MUL, CUDNN_OP_TENSOR_MIN,
                                      CUDNN_OP_TENSOR_MAX, CUDNN_OP_TENSOR_SQRT, CUDNN_OP_TENSOR_NOT};
    const cudnnDataType_t pairs[11][2] = {
        {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT},   {CUDNN_DATA_INT8, CUDNN_DATA_FLOAT},
        {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT},    {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT},
        {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF},    {CUDNN_DATA_HALF, CUDNN_DATA_HALF},
        {CUDNN_DATA_INT8, CUDNN_DATA_INT8},     {CUDNN_DATA_FLOAT, CUDNN_DATA_INT8},
        {CUDNN_DATA_FLOAT, CUDNN_DATA_BFLOAT16}, {CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16},
        {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE}};
    for (int o = 0; o < 6; o++)
        for (int pi = 0; pi < 11; pi++)
            for (int nan = 0; nan < 2; nan++) {
                n++;
                if (gm_smoke && (pi > 1 || nan))
                    continue;
                int unary = o >= 4;
                layout_t l = (layout_t)(n % 3);
                int five = n % 2, nb = five ? 5 : 4, dc[5], db[5];
                for (int i = 0; i < nb; i++) {
                    dc[i] = five ? d5[i] : d4[i];
                    db[i] = i == 1 || pi % 2 ? dc[i] : 1; /* b broadcast per channel on even pairs */
                }
                tcase_t c = base(OP_OP);
                c.op = ops[o];
                c.nan = nan ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN;
                c.nan_fill = nan || o == 2 || o == 3;
                if (pairs[pi][0] == CUDNN_DATA_INT8 || pairs[pi][1] == CUDNN_DATA_INT8)
                    c.nan_fill = 0; /* no NaN in integers; a NaN result stores 0 */
                shape(&c.c, pairs[pi][1], nb, dc, l);
                shape(&c.a, pairs[pi][0], nb, dc, (layout_t)((l + 1) % 3));
                if (!unary)
                    shape(&c.b, pairs[pi][0], nb, db, l);
                if (n % 3 == 1)
                    c.alpha = 0.5, c.alpha2 = -1.5, c.beta = 0.25;
                run(c, "op");
            }
    /* OpTensor without broadcast, A, B and C of one dense layout (tensor_op_dense: totals a
     * multiple of the 16-byte vector; 630 elements is not: the broadcast-capable kernel), every
     * op, both NaN options, the four float types, NCHW and NHWC, both blends, in place */
    if (!gm_smoke) {
        const int dd[3][4] = {{2, 8, 5, 6}, {4, 16, 28, 28}, {3, 5, 7, 6}};
        for (int o = 0; o < 6; o++)
            for (int t = 0; t < 4; t++)
                for (int s = 0; s < 3; s++) {
                    n++;
                    tcase_t c = base(OP_OP);
                    c.op = ops[o];
                    c.nan = (o + t) % 2 ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN;
                    c.nan_fill = (o + t + s) % 2 || o == 2 || o == 3;
                    const layout_t l = (layout_t)((o + s) % 2);
                    shape(&c.c, dts[t], 4, dd[s], l);
                    shape(&c.a, dts[t], 4, dd[s], l);
                    if (o < 4)
                        shape(&c.b, dts[t], 4, dd[s], l);
                    if ((o + t + s) % 2)
                        c.alpha = 0.5, c.alpha2 = -1.5, c.beta = 0.25;
                    run(c, "op");
                }
        tcase_t c = base(OP_OP); /* in place, dense: A = B = C */
        c.op = CUDNN_OP_TENSOR_ADD;
        shape(&c.c, CUDNN_DATA_HALF, 4, dd[1], LAY_NHWC);
        c.a = c.b = c.c;
        c.in_place = 1, c.alpha = 0.5, c.alpha2 = 2, c.beta = 0.5;
        run(c, "op");
    }
    /* The lean kernels (FREEDNN_GPU_TO_LEAN, on by default; the child below reruns these cases
     * with it 0). tensor_bias_lean: AddTensor of a per-channel A with alpha 1, beta 1 (bias
     * add) or 0 (broadcast copy; C poisoned), FLOAT / HALF / BFLOAT16, NCHW (H W a multiple
     * of the vector: one element a vector) and NHWC (C a multiple of it: a run, one vector
     * load; A one element past its buffer's start: scalar loads); 56 x 56, odd N, C = 1 (a
     * scalar A), grids whose last block is partly past the vectors, Inf / NaN / overflow
     * fills. Neighbours that must fall back and still agree: alpha 0.5, beta 0.25, H W or C not
     * a vector multiple, C misaligned, mixed types. tensor_op_lean: OpTensor ADD / MUL of one
     * dense layout, alphas 1, beta 0, the same types and layouts, in place (A = B = C); the
     * fall-backs: alpha 0.5, beta 0.25, a total not a vector multiple, A misaligned. */
    if (!gm_smoke) {
        const cudnnDataType_t lt[3] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
        static const int ls[5][4] = {
            {3, 24, 8, 8}, {1, 8, 56, 56}, {5, 16, 4, 6}, {3, 1, 8, 8}, {2, 40, 28, 28}};
        for (int t = 0; t < 3; t++)
            for (int l = 0; l < 2; l++)
                for (int k = 0; k < 5; k++)
                    for (int v = 0; v < 4;
                         v++) { /* beta 1, beta 0, beta 1 with Inf/NaN, A misaligned */
                        const int chan[4] = {1, ls[k][1], 1, 1};
                        tcase_t c = base(OP_ADD);
                        shape(&c.c, lt[t], 4, ls[k], (layout_t)l);
                        shape(&c.a, lt[t], 4, chan, LAY_NCHW);
                        c.beta = v == 1 ? 0.0 : 1.0;
                        c.special = v == 2;
                        c.nan_fill = v == 1 && k % 2;
                        c.a_off = v == 3;
                        run(c, "add bias lean");
                    }
        /* a C-shaped A (a run of the whole tensor), beta 1 and 0 */
        for (int t = 0; t < 3; t++)
            for (int v = 0; v < 2; v++) {
                tcase_t c = base(OP_ADD);
                shape(&c.c, lt[t], 4, ls[4], (layout_t)v);
                c.a = c.c;
                c.beta = v;
                c.special = v;
                run(c, "add full lean");
            }
        static const int fb[4][4] = {{2, 8, 5, 5}, {2, 12, 3, 4}, {3, 24, 8, 8}, {3, 24, 8, 8}};
        for (int t = 0; t < 3; t++)
            for (int l = 0; l < 2; l++)
                for (int k = 0; k < 6; k++) {
                    /* 0: H W 25, 1: H W and C 12 (FLOAT still lean), 2: alpha 0.5, 3: beta 0.25,
                     * 4: C misaligned, 5: C padded (not dense: the generic kernel) */
                    const int *d = fb[k < 4 ? k : 2], chan[4] = {1, d[1], 1, 1};
                    tcase_t c = base(OP_ADD);
                    shape(&c.c, lt[t], 4, d, k == 5 ? LAY_PAD : (layout_t)l);
                    shape(&c.a, lt[t], 4, chan, LAY_NCHW);
                    c.beta = k == 3 ? 0.25 : 1.0;
                    c.alpha = k == 2 ? 0.5 : 1.0;
                    c.c_off = k == 4;
                    c.special = k == 1;
                    run(c, "add bias fallback");
                }
        static const int os[5][4] = {
            {4, 16, 28, 28}, {3, 8, 7, 7}, {2, 1, 8, 8}, {5, 8, 3, 3}, {1, 8, 56, 56}};
        for (int t = 0; t < 3; t++)
            for (int l = 0; l < 2; l++)
                for (int k = 0; k < 5; k++)
                    for (int o = 0; o < 2; o++) {
                        tcase_t c = base(OP_OP);
                        c.op = o ? CUDNN_OP_TENSOR_MUL : CUDNN_OP_TENSOR_ADD;
                        c.nan = (k + o) % 2 ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN;
                        shape(&c.c, lt[t], 4, os[k], (layout_t)l);
                        c.a = c.b = c.c;
                        c.special = (k + l) % 2;
                        c.nan_fill = k == 3;
                        c.in_place = k == 2;
                        run(c, "op lean");
                    }
        static const int ot[4] = {3, 5, 7, 6};
        for (int t = 0; t < 3; t++)
            for (int k = 0; k < 5; k++) { /* alpha 0.5, beta 0.25, total 630, A misaligned,
                                           * A and B of another type than C (FLOAT C) */
                tcase_t c = base(OP_OP);
                c.op = CUDNN_OP_TENSOR_ADD;
                shape(&c.c, k == 4 ? CUDNN_DATA_FLOAT : lt[t], 4, k == 2 ? ot : os[0],
                      (layout_t)(k % 2));
                c.a = c.b = c.c;
                if (k == 4)
                    c.a.dt = c.b.dt = t == 0 ? CUDNN_DATA_HALF : lt[t];
                c.alpha = k == 0 ? 0.5 : 1.0;
                c.beta = k == 1 ? 0.25 : 0.0;
                c.a_off = k == 3;
                c.special = 1;
                run(c, "op lean fallback");
            }
    }
    {
        tcase_t c = base(OP_OP); /* in place: A = B = C */
        c.op = CUDNN_OP_TENSOR_MUL;
        shape(&c.c, CUDNN_DATA_FLOAT, 4, d4, LAY_PAD);
        c.a = c.b = c.c;
        c.in_place = 1, c.beta = 0.5;
        run(c, "op");
    }

    /* Set and Scale */
    for (int t = 0; t < 4 && !to_child; t++)
        for (int l = 0; l < 3; l++) {
            if (gm_smoke && t > 0)
                continue;
            for (int k = 0; k < 2; k++) {
                tcase_t c = base(k ? OP_SCALE : OP_SET);
                shape(&c.c, dts[t], l == 2 ? 5 : 4, l == 2 ? d5 : d4, (layout_t)l);
                c.alpha = -0.75;
                run(c, k ? "scale" : "set");
            }
        }

    /* TransformTensor: layout changes; Ex: padding, fold, unfold */
    for (int t = 0; t < 4 && !to_child; t++)
        for (int l = 0; l < 3; l++) {
            if (gm_smoke && t > 0)
                continue;
            tcase_t c = base(OP_XFORM);
            shape(&c.a, dts[t], 4, d4, (layout_t)l);
            shape(&c.c, dts[t], 4, d4, (layout_t)((l + 1) % 3));
            if (l == 1)
                c.alpha = 0.5, c.beta = 0.25;
            run(c, "transform");
        }
    /* the NCHW <-> NHWC transpose kernel (alpha 1, beta 0, 4-d and 5-d): both directions, the
     * four float types, a C and a spatial size that are not multiples of its 32 x 32 tile, and
     * C = 1 (both layouts are one) */
    {
        const int t4[4] = {3, 37, 5, 9}, t5[5] = {2, 40, 3, 5, 7}, t1[4] = {2, 1, 6, 7};
        for (int t = 0; t < 4 && !to_child; t++)
            for (int l = 0; l < 2; l++)
                for (int k = 0; k < 3; k++) {
                    if (gm_smoke && (t > 0 || k == 2))
                        continue;
                    tcase_t c = base(OP_XFORM);
                    const int *d = k == 0 ? t4 : k == 1 ? t5 : t1;
                    shape(&c.a, dts[t], k == 1 ? 5 : 4, d, (layout_t)l);
                    shape(&c.c, dts[t], k == 1 ? 5 : 4, d, (layout_t)(1 - l));
                    run(c, "transform transpose");
                }
    }
    /* the 16-byte transpose (tensor_transpose_vec, 64 x 64 tiles; FREEDNN_GPU_BW2=0 keeps the
     * 32 x 32 kernel, run again below): C and spatial sizes multiples of every type's vector
     * but not of the tile (edge tiles), one whole tile, 5-d, and C = 68 / H W = 60 (multiples
     * of 4 elements: FLOAT takes it, 16-bit types fall back to the 32 x 32 kernel); under
     * FREEDNN_GPU_BW3 tensor_transpose_pipe (the 16-byte kernel in that child): 12 x 72 x 36 x 44
     * has more tiles (600, edge tiles in both dims) than its grid's blocks on 132 SMs, so blocks
     * walk several tiles across images */
    {
        static const int v4[4] = {2, 72, 6, 20}, vt[4] = {1, 64, 8, 8}, v5[5] = {2, 16, 2, 4, 6},
                         v68[4] = {3, 68, 5, 12}, vp[4] = {12, 72, 36, 44};
        const int *vd[5] = {v4, vt, v5, v68, vp};
        for (int t = 0; t < 4 && !to_child; t++)
            for (int l = 0; l < 2; l++)
                for (int k = 0; k < 5; k++) {
                    if (gm_smoke && (t % 2 || k % 2))
                        continue;
                    tcase_t c = base(OP_XFORM);
                    shape(&c.a, dts[t], k == 2 ? 5 : 4, vd[k], (layout_t)l);
                    shape(&c.c, dts[t], k == 2 ? 5 : 4, vd[k], (layout_t)(1 - l));
                    run(c, "transform transpose vec");
                }
    }
reduce_cases:
    /* ReduceTensor: every op and NaN option over short (serial) and long (block) slices */
    const cudnnReduceTensorOp_t rops[9] = {CUDNN_REDUCE_TENSOR_ADD,   CUDNN_REDUCE_TENSOR_MUL,
                                           CUDNN_REDUCE_TENSOR_MIN,   CUDNN_REDUCE_TENSOR_MAX,
                                           CUDNN_REDUCE_TENSOR_AMAX,  CUDNN_REDUCE_TENSOR_AVG,
                                           CUDNN_REDUCE_TENSOR_NORM1, CUDNN_REDUCE_TENSOR_NORM2,
                                           CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS};
    /* which dims of d4 are reduced: C; H, W; N, H, W; all; none */
    const int masks[5] = {0x2, 0xc, 0xd, 0xf, 0x0};
    for (int o = 0; o < 9 && !to_child; o++)
        for (int mi = 0; mi < 5; mi++)
            for (int nan = 0; nan < 2; nan++) {
                n++;
                if (gm_smoke && (mi > 2 || nan || o % 3))
                    continue;
                const int sel = o >= 2 && o <= 4;
                tcase_t c = base(OP_REDUCE);
                c.rop = rops[o];
                c.nan = nan ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN;
                c.nan_fill = nan && (n % 2);
                c.int_fill = sel || (n % 3 == 0);
                c.want_idx = sel;
                cudnnDataType_t dt = dts[n % 4];
                int dc[4];
                for (int i = 0; i < 4; i++)
                    dc[i] = (masks[mi] >> i) & 1 ? 1 : d4[i];
                shape(&c.a, dt, 4, d4, (layout_t)(n % 3));
                shape(&c.c, dt, 4, dc, (layout_t)((n + 1) % 3));
                if (n % 2)
                    c.alpha = 0.5, c.beta = 0.25;
                c.idx_bytes = 0;
                if (sel) {
                    int64_t outs = 1;
                    for (int i = 0; i < 4; i++)
                        outs *= dc[i];
                    c.idx_bytes = (size_t)outs * 4;
                }
                run(c, "reduce");
            }
    /* The fast reduce kernels (FREEDNN_GPU_RD_FAST, on by default; the child below reruns these
     * cases with it 0): ADD, AVG, NORM1, NORM2, MIN, MAX, AMAX without indices, FLOAT / HALF /
     * BFLOAT16, A packed NCHW or NHWC, C 1xCx1x1 (keep=c: rd_seg on NCHW, rd_col on NHWC) or
     * Nx1xHxW (keep=nhw: rd_row on NHWC, rd_col on NCHW). Shapes: H W 64 / C 8 (exact short
     * slices), C 72 (rd_row's 2 / 4 lanes, rd_col's 2 row lanes), N=C=H=W=1, H W 9 (not a
     * vector: falls back), n8 c64 56x56 (many stage-1 chunks: 392 for keep=c NHWC), H W 56 with
     * C 128 (rd_col's 14-column blocks of 4 row lanes; 18 with FREEDNN_GPU_RD_NHW_ROWS=0), H = W
     * = 1 (NCHW is NHWC: rd_col, exact), 40x40 (two chunks for FLOAT), 1 x 300 pixels of C 256
     * (stage 2 on NHWC; keep=nhw: 8 row lanes), C 6 (keep=c NHWC FLOAT sums: 2 columns a
     * thread, which C 6 allows and 4 would not), C = 1 (keep=nhw slices of one element:
     * with NaN fills, slices of NaN only). Both blends (beta 0 over a poisoned C), NaN fills with
     * both options, integer fills (sums exact in any order), A one element past its buffer's
     * start (misaligned: today's kernels). */
    if (!other_child) {
        static const int rs[11][4] = {{2, 8, 8, 8}, {3, 72, 4, 6},   {1, 1, 1, 1},
                                      {1, 5, 3, 3}, {8, 64, 56, 56}, {4, 128, 7, 8},
                                      {2, 4, 1, 1}, {5, 3, 40, 40},  {1, 256, 1, 300},
                                      {7, 1, 2, 4}, {3, 6, 50, 7}};
        static const cudnnReduceTensorOp_t fops[7] = {
            CUDNN_REDUCE_TENSOR_ADD,   CUDNN_REDUCE_TENSOR_AVG, CUDNN_REDUCE_TENSOR_NORM1,
            CUDNN_REDUCE_TENSOR_NORM2, CUDNN_REDUCE_TENSOR_MIN, CUDNN_REDUCE_TENSOR_MAX,
            CUDNN_REDUCE_TENSOR_AMAX};
        static const char *fname[7] = {"add", "avg", "norm1", "norm2", "min", "max", "amax"};
        const cudnnDataType_t ft[3] = {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16};
        int k = 0;
        for (int si = 0; si < 11; si++)
            for (int l = 0; l < 2; l++)
                for (int keep = 0; keep < 2; keep++)
                    for (int o = 0; o < 7; o++)
                        for (int t = 0; t < 3; t++) {
                            k++;
                            if (si == 4 && (o + t) % 3 != 0)
                                continue; /* the large shape: a third of the op / type pairs */
                            if (gm_smoke && (k % 17 != 0 || si == 4))
                                continue;
                            const int sel = o >= 4;
                            tcase_t c = base(OP_REDUCE);
                            c.rop = fops[o];
                            c.nan = (k / 3) % 2 ? CUDNN_PROPAGATE_NAN : CUDNN_NOT_PROPAGATE_NAN;
                            c.nan_fill = sel ? k % 3 != 0 : k % 5 == 0;
                            c.int_fill = !c.nan_fill && k % 4 == 0;
                            if (k % 2)
                                c.alpha = 0.5, c.beta = 0.25;
                            else if (k % 7 == 0)
                                c.alpha = -2.0, c.beta = 1.0;
                            c.a_off = k % 23 == 0;
                            int dc[4];
                            for (int i = 0; i < 4; i++)
                                dc[i] =
                                    keep == 0 ? (i == 1 ? rs[si][i] : 1) : (i == 1 ? 1 : rs[si][i]);
                            shape(&c.a, ft[t], 4, rs[si], (layout_t)l);
                            shape(&c.c, ft[t], 4, dc, keep == 0 ? (layout_t)l : LAY_NCHW);
                            char what[96];
                            snprintf(what, sizeof what, "reduce fast %s %s keep=%s %s", fname[o],
                                     c.nan == CUDNN_PROPAGATE_NAN ? "prop" : "noprop",
                                     keep ? "nhw" : "c", l ? "nhwc" : "nchw");
                            run(c, what);
                        }
        /* too little workspace: BAD_PARAM (the fast path's keep=c NCHW 40x40 needs two chunks) */
        tcase_t c = base(OP_REDUCE);
        c.rop = CUDNN_REDUCE_TENSOR_ADD;
        const int one[4] = {1, 3, 1, 1};
        shape(&c.a, CUDNN_DATA_FLOAT, 4, rs[7], LAY_NCHW);
        shape(&c.c, CUDNN_DATA_FLOAT, 4, one, LAY_NCHW);
        const size_t need = reduce_ws(gm_cuda, &c);
        if (!rd_child)
            FD_EXPECT(need > 0, "the fast keep=c NCHW reduce reports no workspace");
        if (need > 0) {
            void *A = NULL, *C = NULL, *ws = NULL;
            FD_EXPECT(cudaMalloc(&A, bytes_of(&c.a)) == cudaSuccess, "cudaMalloc");
            FD_EXPECT(cudaMalloc(&C, bytes_of(&c.c)) == cudaSuccess, "cudaMalloc");
            FD_EXPECT(cudaMalloc(&ws, need) == cudaSuccess, "cudaMalloc");
            cudnnReduceTensorDescriptor_t rd = reduce_desc(&c);
            cudnnTensorDescriptor_t ad = desc(&c.a), cd = desc(&c.c);
            const float fone = 1.0f, fzero = 0.0f;
            FD_EXPECT_STATUS(
                cudnnReduceTensor(gm_cuda, rd, NULL, 0, ws, need - 1, &fone, ad, A, &fzero, cd, C),
                CUDNN_STATUS_BAD_PARAM);
            FD_EXPECT_STATUS(
                cudnnReduceTensor(gm_cuda, rd, NULL, 0, NULL, 0, &fone, ad, A, &fzero, cd, C),
                CUDNN_STATUS_BAD_PARAM);
            FD_EXPECT_STATUS(
                cudnnReduceTensor(gm_cuda, rd, NULL, 0, NULL, need, &fone, ad, A, &fzero, cd, C),
                CUDNN_STATUS_BAD_PARAM);
            cudnnDestroyTensorDescriptor(ad);
            cudnnDestroyTensorDescriptor(cd);
            cudnnDestroyReduceTensorDescriptor(rd);
            cudaFree(A);
            cudaFree(C);
            cudaFree(ws);
        }
    }
    if (!gm_smoke && !rd_child) {
        for (int k = 0; k < 3; k++) {
            tcase_t c = base(OP_XFORM_EX);
            int dx[4] = {2, 3, 8, 6}, dy[4];
            c.fold[0] = c.fold[1] = 1;
            c.fold[2] = c.fold[3] = 1;
            if (k == 0) { /* pad */
                c.pad_before[2] = 1, c.pad_after[2] = 2, c.pad_before[3] = 2, c.pad_after[3] = 1;
                c.pad_before[1] = 1, c.pad_after[1] = 0;
                c.dir = CUDNN_TRANSFORM_FOLD;
                for (int i = 0; i < 4; i++)
                    dy[i] = dx[i] + c.pad_before[i] + c.pad_after[i];
            } else if (k == 1) { /* fold 2x3 */
                c.fold[2] = 2, c.fold[3] = 3;
                c.dir = CUDNN_TRANSFORM_FOLD;
                dy[0] = dx[0], dy[1] = dx[1] * 6, dy[2] = dx[2] / 2, dy[3] = dx[3] / 3;
            } else { /* unfold 2x3 of the folded shape */
                c.fold[2] = 2, c.fold[3] = 3;
                c.dir = CUDNN_TRANSFORM_UNFOLD;
                dy[0] = dx[0], dy[1] = dx[1], dy[2] = dx[2] * 2, dy[3] = dx[3] * 3;
                dx[1] = dx[1] * 6;
            }
            shape(&c.a, CUDNN_DATA_FLOAT, 4, dx, LAY_NCHW);
            shape(&c.c, CUDNN_DATA_FLOAT, 4, dy, LAY_NCHW);
            run(c, k == 0 ? "transformEx pad" : k == 1 ? "transformEx fold" : "transformEx unfold");
        }
        /* odd and large */
        const int odd[4] = {1, 1, 1, 1}, big[4] = {16, 64, 64, 64}, chan[4] = {1, 64, 1, 1};
        tcase_t c = base(OP_ADD);
        shape(&c.c, CUDNN_DATA_FLOAT, 4, odd, LAY_NCHW);
        shape(&c.a, CUDNN_DATA_FLOAT, 4, odd, LAY_NCHW);
        run(c, "add");
        for (int l = 0; l < 2; l++) {
            c = base(OP_ADD);
            shape(&c.c, CUDNN_DATA_FLOAT, 4, big, (layout_t)l);
            shape(&c.a, CUDNN_DATA_FLOAT, 4, chan, LAY_NCHW);
            c.beta = 1.0;
            run(c, "add");
            c = base(OP_OP);
            c.op = CUDNN_OP_TENSOR_MAX;
            shape(&c.c, CUDNN_DATA_HALF, 4, big, (layout_t)l);
            shape(&c.a, CUDNN_DATA_HALF, 4, big, (layout_t)(1 - l));
            shape(&c.b, CUDNN_DATA_HALF, 4, chan, LAY_NCHW);
            run(c, "op");
            c = base(OP_XFORM);
            shape(&c.a, CUDNN_DATA_FLOAT, 4, big, (layout_t)l);
            shape(&c.c, CUDNN_DATA_FLOAT, 4, big, (layout_t)(1 - l));
            run(c, "transform");
            c = base(OP_REDUCE); /* per channel over 64K elements each, and per pixel over C */
            c.rop = l ? CUDNN_REDUCE_TENSOR_MAX : CUDNN_REDUCE_TENSOR_ADD;
            c.want_idx = l;
            shape(&c.a, CUDNN_DATA_FLOAT, 4, big, (layout_t)l);
            shape(&c.c, CUDNN_DATA_FLOAT, 4, chan, LAY_NCHW);
            c.idx_bytes = l ? 64 * 4 : 0;
            run(c, "reduce");
            const int pix[4] = {16, 1, 64, 64};
            shape(&c.c, CUDNN_DATA_FLOAT, 4, pix, LAY_NCHW);
            c.idx_bytes = l ? 16 * 64 * 64 * 4 : 0;
            run(c, "reduce");
        }
    }
    gm_rerun_with(argv, "FREEDNN_GPU_BW2", "0"); /* the same cases on the earlier kernels */
    gm_rerun_with(argv, "FREEDNN_GPU_BW3", "0"); /* tensor_transpose_vec instead of _pipe */
    gm_rerun_with(argv, "FREEDNN_GPU_TO_LEAN", "0"); /* add / op on the packed kernels */
    gm_rerun_with(argv, "FREEDNN_GPU_RD_FAST", "0"); /* reduce on today's kernels */
    gm_rerun_with(argv, "FREEDNN_GPU_PDL", "0");     /* rd_fin2 as a plain launch */
    gm_rerun_with(argv, "FREEDNN_GPU_RD_NHW_ROWS", "0"); /* rd_col keep=nhw: the old row lanes */
    gm_rerun_with(argv, "FREEDNN_GPU_RD_COL2", "0");     /* rd_col keep=c FLOAT: 4 columns */
    return gm_finish();
}
