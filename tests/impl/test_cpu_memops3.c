/* SPDX-License-Identifier: MIT */
/*
 * test_cpu_memops3.c - the cpu backend's softmax, dropout, LRN and reduce rows
 * (src/cpu/softmax_cpu.c, dropout_cpu.c, lrn_cpu.c, reduce_cpu.c) against the ref rows, through the
 * public API with a ref handle and a cpu handle on the same inputs (the case machinery is
 * memops_case.h).
 *
 * Every case runs the call on ref, on cpu with one OpenMP thread and on cpu with two, from the
 * same inputs and the same initial outputs (NaN-poisoned when beta = 0), and compares byte for
 * byte (NaN payloads aside): the softmax rows keep the ref's order per row and call the same
 * libm exp / log for DOUBLE, HALF and BFLOAT16 (FLOAT: test_cpu_smx_fast.c), the dropout
 * rows draw the same Philox mask, the LRN rows sum each window in
 * the ref's order and call the same pow, the reduce row folds each slice in the ref's order
 * (FLOAT sums and products excepted: test_cpu_smx_fast.c).
 * Softmax: FAST, ACCURATE, LOG x INSTANCE, CHANNEL, forward and backward, 4-d and 5-d, rows
 * longer than the cpu row's exp cache, NaN / inf inputs, in-place, above the threading
 * threshold. Dropout: p in {0, 0.3, 0.5, 1}, two forward calls in a row (the call counter),
 * the reserve space and the states buffer compared too, backward from the mask, x and y in
 * different layouts, in-place. LRN cross-channel (FLOAT: test_cpu_smx_fast.c): window n in {1, 2,
 * 5, 16} (even and odd, wider than C), 300 channels. Reduce: all nine operators, both NaN options
 * and the indices of the select operators, reductions over C, over N and C, over H and W, over H,
 * over everything and over nothing. dtypes FLOAT, DOUBLE, HALF, BFLOAT16; layouts NCHW, NHWC,
 * padded strides; alpha / beta (1, 0) and (0.5, 0.25).
 */
#define _GNU_SOURCE
#include "memops_case.h"

/* ---- softmax ------------------------------------------------------------------------------ */

static const char *algo_name[] = {"fast", "accurate", "log"};

static void test_softmax(int nb, const int *dim, layout_t l, cudnnDataType_t dt,
                         cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, double alpha,
                         double beta, int specials, int inplace)
{
    char what[256];
    shape_t xs = make_shape(nb, dim, l);
    cudnnTensorDescriptor_t xd = desc_of(&xs, dt);
    size_t xb = xs.extent * dt_size(dt);
    void *x = malloc(xb), *xc = malloc(xb), *dy = malloc(xb), *yv = malloc(xb);
    fill(dt, x, xs.extent, 0, specials);
    fill(dt, dy, xs.extent, 0, specials);
    fill(dt, yv, xs.extent, 0, 0);
    memcpy(xc, x, xb);
    unsigned char a8[8], b8[8];
    scal(dt, alpha, a8), scal(dt, beta, b8);
    cur_dt = dt;
    snprintf(what, sizeof what, "softmax %s mode %s %s %s %dd [%d %d ...] a %g b %g%s%s",
             algo_name[algo], mode == CUDNN_SOFTMAX_MODE_CHANNEL ? "channel" : "instance",
             dt_name(dt), layout_name[l], nb, dim[0], dim[1], alpha, beta,
             specials ? " specials" : "", inplace ? " in-place" : "");
    char w2[300];
    /* forward */
    outbuf_t o;
    out_init(&o, dt, xs.extent, beta, 0);
    for (int r = 0; r < 3; r++) {
        if (inplace)
            memcpy(o.out[r], x, xb);
        CHECK(cudnnSoftmaxForward(run_handle(r), algo, mode, a8, xd, inplace ? o.out[r] : x, b8, xd,
                                  o.out[r]));
    }
    snprintf(w2, sizeof w2, "%s fwd", what);
    out_check(&o, w2);
    /* backward (in-place: dx == dy) */
    out_init(&o, dt, xs.extent, beta, 0);
    for (int r = 0; r < 3; r++) {
        if (inplace)
            memcpy(o.out[r], dy, xb);
        CHECK(cudnnSoftmaxBackward(run_handle(r), algo, mode, a8, xd, yv, xd,
                                   inplace ? o.out[r] : dy, b8, xd, o.out[r]));
    }
    snprintf(w2, sizeof w2, "%s bwd", what);
    out_check(&o, w2);
    if (memcmp(x, xc, xb) != 0) {
        failures++;
        fprintf(stderr, "FAIL %s: x changed\n", what);
    }
    free(x), free(xc), free(dy), free(yv);
    cudnnDestroyTensorDescriptor(xd);
}

static void softmax_suite(void)
{
    const int s4[4] = {2, 5, 9, 11}, s4w[4] = {1, 3, 6, 37}, s5[5] = {2, 3, 4, 5, 6},
              cls[4] = {7, 100, 1, 1};
    const double ab[2][2] = {{1.0, 0.0}, {0.5, 0.25}};
    /* di from 1: FLOAT has its own path (vectorised exp, reordered sums), held to a tolerance
     * by test_cpu_smx_fast.c; the other types keep the ref's bits */
    for (int l = 0; l < L_COUNT; l++)
        for (int di = 1; di < 4; di++)
            for (int algo = 0; algo < 3; algo++)
                for (int mode = 0; mode < 2; mode++) {
                    cudnnSoftmaxAlgorithm_t al = (cudnnSoftmaxAlgorithm_t)algo;
                    cudnnSoftmaxMode_t mo = (cudnnSoftmaxMode_t)mode;
                    for (int k = 0; k < 2; k++) {
                        test_softmax(4, s4, (layout_t)l, dtypes[di], al, mo, ab[k][0], ab[k][1], 0,
                                     0);
                        test_softmax(4, s4w, (layout_t)l, dtypes[di], al, mo, ab[k][0], ab[k][1], 1,
                                     0);
                    }
                    test_softmax(5, s5, (layout_t)l, dtypes[di], al, mo, 0.5, 0.25, 1, 0);
                    test_softmax(4, cls, (layout_t)l, dtypes[di], al, mo, 1, 0, 0, 1);
                }
    /* rows longer than the exp cache; above the threading threshold */
    const int longi[4] = {2, 3000, 2, 1}, longc[4] = {1, 5000, 1, 3}, big[4] = {4, 64, 32, 33},
              bigi[4] = {8, 16, 48, 48};
    for (int l = 0; l < 2; l++)
        for (int algo = 0; algo < 3; algo++)
            for (int mode = 0; mode < 2; mode++) {
                cudnnSoftmaxAlgorithm_t al = (cudnnSoftmaxAlgorithm_t)algo;
                cudnnSoftmaxMode_t mo = (cudnnSoftmaxMode_t)mode;
                test_softmax(4, mode ? longc : longi, (layout_t)l, CUDNN_DATA_HALF, al, mo, 0.5,
                             0.25, 0, 0);
                test_softmax(4, mode ? big : bigi, (layout_t)l, CUDNN_DATA_DOUBLE, al, mo, 1, 0, 0,
                             0);
            }
}

/* ---- dropout ------------------------------------------------------------------------------ */

/* 1: the outputs (and in-place buffers) 64-byte aligned, so that the FLOAT paths take their
 * streaming stores; 0: malloc's alignment (16 bytes past a page for large buffers: plain
 * stores). */
static int dropout_aligned;

static void *dropout_realign(void *p, size_t bytes)
{
    void *q = NULL;
    if (posix_memalign(&q, 64, bytes) != 0)
        abort();
    memcpy(q, p, bytes);
    free(p);
    return q;
}

/* x in layout lx, y in layout ly (in-place: y == x, lx). Two forward calls, then backward
 * from the second call's mask; y, reserve space, states and dx compared. */
static void test_dropout(int nb, const int *dim, layout_t lx, layout_t ly, cudnnDataType_t dt,
                         float prob, int inplace)
{
    char what[256];
    shape_t xs = make_shape(nb, dim, lx), ys = make_shape(nb, dim, inplace ? lx : ly);
    cudnnTensorDescriptor_t xd = desc_of(&xs, dt), yd = desc_of(&ys, dt);
    size_t xb = xs.extent * dt_size(dt), yb = ys.extent * dt_size(dt), rb, sb;
    CHECK(cudnnDropoutGetReserveSpaceSize(xd, &rb));
    CHECK(cudnnDropoutGetStatesSize(h_cpu, &sb));
    void *x = malloc(xb), *dy = malloc(yb);
    fill(dt, x, xs.extent, 0, 1);
    fill(dt, dy, ys.extent, 0, 1);
    cur_dt = dt;
    const char *isa = getenv("FREEDNN_CPU_ISA");
    snprintf(what, sizeof what, "dropout p %g %s %s -> %s %dd [%d %d ...]%s isa %s%s", prob,
             dt_name(dt), layout_name[lx], layout_name[inplace ? lx : ly], nb, dim[0], dim[1],
             inplace ? " in-place" : "", isa ? isa : "best", dropout_aligned ? " aligned" : "");
    outbuf_t o, dx;
    out_init(&o, dt, ys.extent, 0, 0);
    out_init(&dx, dt, xs.extent, 0, 0);
    for (int r = 0; r < 3 && dropout_aligned; r++) {
        o.out[r] = dropout_realign(o.out[r], o.bytes);
        dx.out[r] = dropout_realign(dx.out[r], dx.bytes);
    }
    void *res[3], *st[3];
    cudnnDropoutDescriptor_t dd;
    CHECK(cudnnCreateDropoutDescriptor(&dd));
    for (int r = 0; r < 3; r++) {
        cudnnHandle_t h = run_handle(r);
        res[r] = malloc(rb), st[r] = malloc(sb);
        memset(res[r], 0xaa, rb);
        CHECK(cudnnSetDropoutDescriptor(dd, h, prob, st[r], sb, 1234567ull + (uint64_t)nb));
        for (int call = 0; call < 2; call++) {
            if (inplace)
                memcpy(o.out[r], x, xb);
            CHECK(cudnnDropoutForward(h, dd, xd, inplace ? o.out[r] : x, yd, o.out[r], res[r], rb));
        }
        if (inplace)
            memcpy(dx.out[r], dy, xb);
        CHECK(cudnnDropoutBackward(h, dd, yd, inplace ? dx.out[r] : dy, xd, dx.out[r], res[r], rb));
    }
    cases += 2;
    for (int r = 1; r < 3; r++) {
        if (memcmp(res[0], res[r], rb) != 0) {
            failures++;
            fprintf(stderr, "FAIL %s: mask of cpu (%d threads) differs from ref\n", what, r);
        }
        if (memcmp(st[0], st[r], sb) != 0) {
            failures++;
            fprintf(stderr, "FAIL %s: states of cpu (%d threads) differ from ref\n", what, r);
        }
    }
    char w2[300];
    snprintf(w2, sizeof w2, "%s fwd", what);
    out_check(&o, w2);
    snprintf(w2, sizeof w2, "%s bwd", what);
    out_check(&dx, w2);
    for (int r = 0; r < 3; r++)
        free(res[r]), free(st[r]);
    free(x), free(dy);
    cudnnDestroyDropoutDescriptor(dd);
    cudnnDestroyTensorDescriptor(xd), cudnnDestroyTensorDescriptor(yd);
}

/* Word i % 4 of Philox4x32-10(block i / 4, call; seed): the draw of element i (docs/dropout.md),
 * written out here to find a draw that a probability hits exactly. */
static uint32_t dropout_draw(uint64_t seed, uint64_t call, uint64_t i)
{
    uint64_t b = i / 4;
    uint32_t c[4] = {(uint32_t)b, (uint32_t)(b >> 32), (uint32_t)call, (uint32_t)(call >> 32)};
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
        c[0] = n0, c[1] = (uint32_t)p1, c[2] = n2, c[3] = (uint32_t)p0;
        k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
    }
    return c[i % 4];
}

/* A probability whose threshold floor(p * 2^32) equals the second forward call's draw of an
 * element among the first n of a 4-d tensor (the element is kept: draw >= threshold), so
 * that an off-by-one compare shows; 0.5 if none of them is a float. */
static float dropout_tie_p(int n)
{
    for (int i = 0; i < n; i++) {
        uint32_t r = dropout_draw(1234567ull + 4, 1, (uint64_t)i);
        if (r >= (1u << 24) && (r & 0xff) == 0)
            return (float)((double)r * 0x1p-32);
    }
    return 0.5f;
}

static void dropout_suite(void)
{
    const int s4[4] = {2, 5, 9, 11}, s4w[4] = {1, 3, 6, 37}, s5[5] = {2, 3, 4, 5, 6},
              tiny[4] = {3, 1, 1, 1}, big[4] = {4, 64, 32, 33};
    const float probs[4] = {0.0f, 0.3f, 0.5f, 1.0f};
    for (int l = 0; l < L_COUNT; l++)
        for (int di = 0; di < 4; di++)
            for (int pi = 0; pi < 4; pi++) {
                layout_t lx = (layout_t)l, ly = (layout_t)((l + 1) % L_COUNT);
                test_dropout(4, s4, lx, lx, dtypes[di], probs[pi], 0);
                test_dropout(4, s4w, lx, ly, dtypes[di], probs[pi], 0);
                test_dropout(5, s5, lx, ly, dtypes[di], probs[pi], 0);
                test_dropout(4, tiny, lx, lx, dtypes[di], probs[pi], 1);
                test_dropout(4, s4, lx, lx, dtypes[di], probs[pi], 1);
            }
    for (int l = 0; l < 2; l++) {
        test_dropout(4, big, (layout_t)l, (layout_t)l, CUDNN_DATA_FLOAT, 0.3f, 0);
        test_dropout(4, big, (layout_t)l, (layout_t)(1 - l), CUDNN_DATA_HALF, 0.5f, 0);
        test_dropout(4, big, (layout_t)l, (layout_t)l, CUDNN_DATA_FLOAT, 0.5f, 1);
    }
    /* the FLOAT vector paths (packed canonical order; channels-last: channel groups of 64 and
     * position tiles of 1020, channel counts not a multiple of 8, a tile's first element not
     * on a 4-element block (S odd), 5-d), on the best ISA the CPU has, capped to AVX2 and
     * capped to the generic row; with malloc'd and with 64-byte aligned outputs (streaming
     * stores) */
    const int wide[4] = {2, 70, 40, 37}, odd[4] = {3, 17, 33, 35}, s5b[5] = {2, 19, 3, 20, 21},
              c72[4] = {2, 72, 31, 35};
    const char *caps[3] = {NULL, "avx2", "generic"};
    for (int isa = 0; isa < 3; isa++) {
        if (caps[isa])
            setenv("FREEDNN_CPU_ISA", caps[isa], 1);
        for (dropout_aligned = 0; dropout_aligned < 2; dropout_aligned++)
            for (int l = 0; l < 2; l++)
                for (int pi = 0; pi < 4; pi++) {
                    layout_t ll = (layout_t)l;
                    test_dropout(4, wide, ll, ll, CUDNN_DATA_FLOAT, probs[pi], 0);
                    test_dropout(4, odd, ll, ll, CUDNN_DATA_FLOAT, probs[pi], pi & 1);
                    test_dropout(5, s5b, ll, ll, CUDNN_DATA_FLOAT, probs[pi], 0);
                    test_dropout(4, c72, ll, ll, CUDNN_DATA_FLOAT, probs[pi], pi == 2);
                }
        dropout_aligned = 0;
        /* a draw equal to the threshold (kept) */
        const int tie[4] = {1, 64, 8, 8};
        for (int l = 0; l < 2; l++)
            test_dropout(4, tie, (layout_t)l, (layout_t)l, CUDNN_DATA_FLOAT, dropout_tie_p(4096),
                         0);
        unsetenv("FREEDNN_CPU_ISA");
    }
}

/* ---- LRN (cross-channel) ------------------------------------------------------------------ */

static void test_lrn(int nb, const int *dim, layout_t l, cudnnDataType_t dt, unsigned n,
                     double alpha, double beta, int specials)
{
    char what[256];
    shape_t xs = make_shape(nb, dim, l);
    cudnnTensorDescriptor_t xd = desc_of(&xs, dt);
    size_t xb = xs.extent * dt_size(dt);
    void *x = malloc(xb), *xc = malloc(xb), *dy = malloc(xb), *yv = malloc(xb);
    fill(dt, x, xs.extent, 0, specials);
    fill(dt, dy, xs.extent, 0, 0);
    fill(dt, yv, xs.extent, 0, 0);
    memcpy(xc, x, xb);
    cudnnLRNDescriptor_t ld;
    CHECK(cudnnCreateLRNDescriptor(&ld));
    CHECK(cudnnSetLRNDescriptor(ld, n, 0.5, 0.75, 2.0));
    unsigned char a8[8], b8[8];
    scal(dt, alpha, a8), scal(dt, beta, b8);
    cur_dt = dt;
    snprintf(what, sizeof what, "lrn n %u %s %s %dd [%d %d ...] a %g b %g%s", n, dt_name(dt),
             layout_name[l], nb, dim[0], dim[1], alpha, beta, specials ? " specials" : "");
    char w2[300];
    outbuf_t o;
    out_init(&o, dt, xs.extent, beta, 0);
    for (int r = 0; r < 3; r++)
        CHECK(cudnnLRNCrossChannelForward(run_handle(r), ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, a8, xd,
                                          x, b8, xd, o.out[r]));
    snprintf(w2, sizeof w2, "%s fwd", what);
    out_check(&o, w2);
    out_init(&o, dt, xs.extent, beta, 0);
    for (int r = 0; r < 3; r++)
        CHECK(cudnnLRNCrossChannelBackward(run_handle(r), ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, a8, xd,
                                           yv, xd, dy, xd, x, b8, xd, o.out[r]));
    snprintf(w2, sizeof w2, "%s bwd", what);
    out_check(&o, w2);
    if (memcmp(x, xc, xb) != 0) {
        failures++;
        fprintf(stderr, "FAIL %s: x changed\n", what);
    }
    cudnnDestroyLRNDescriptor(ld);
    free(x), free(xc), free(dy), free(yv);
    cudnnDestroyTensorDescriptor(xd);
}

static void lrn_suite(void)
{
    const int s4[4] = {2, 5, 9, 11}, s4w[4] = {1, 3, 6, 37}, s5[5] = {2, 3, 4, 5, 6},
              wide[4] = {1, 300, 3, 5}, big[4] = {2, 64, 48, 48};
    const unsigned ns[4] = {1, 2, 5, 16};
    const double ab[2][2] = {{1.0, 0.0}, {0.5, 0.25}};
    /* di from 1: FLOAT takes a vectorised pow (tolerance: test_cpu_smx_fast.c) */
    for (int l = 0; l < L_COUNT; l++)
        for (int di = 1; di < 4; di++)
            for (int ni = 0; ni < 4; ni++) {
                for (int k = 0; k < 2; k++)
                    test_lrn(4, s4, (layout_t)l, dtypes[di], ns[ni], ab[k][0], ab[k][1], k);
                test_lrn(4, s4w, (layout_t)l, dtypes[di], ns[ni], 1, 0, 1);
                test_lrn(5, s5, (layout_t)l, dtypes[di], ns[ni], 0.5, 0.25, 0);
            }
    for (int l = 0; l < 2; l++) {
        test_lrn(4, wide, (layout_t)l, CUDNN_DATA_DOUBLE, 5, 0.5, 0.25, 0);
        test_lrn(4, big, (layout_t)l, CUDNN_DATA_HALF, 5, 1, 0, 0);
    }
}

/* ---- reduce -------------------------------------------------------------------------------- */

static const char *op_name[] = {"add", "mul",   "min",   "max",         "amax",
                                "avg", "norm1", "norm2", "mul_no_zeros"};

/* a of dims dim in layout l reduced into c of dims cdim (packed, NCHW order). */
static void test_reduce(int nb, const int *dim, const int *cdim, layout_t l, cudnnDataType_t dt,
                        cudnnReduceTensorOp_t op, cudnnNanPropagation_t nan, double alpha,
                        double beta, int specials)
{
    char what[256];
    shape_t as = make_shape(nb, dim, l), cs = make_shape(nb, cdim, L_NCHW);
    cudnnTensorDescriptor_t ad = desc_of(&as, dt), cd = desc_of(&cs, dt);
    const int select = op == CUDNN_REDUCE_TENSOR_MIN || op == CUDNN_REDUCE_TENSOR_MAX ||
                       op == CUDNN_REDUCE_TENSOR_AMAX;
    cudnnReduceTensorDescriptor_t rd;
    CHECK(cudnnCreateReduceTensorDescriptor(&rd));
    CHECK(cudnnSetReduceTensorDescriptor(
        rd, op, dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT, nan,
        select ? CUDNN_REDUCE_TENSOR_FLATTENED_INDICES : CUDNN_REDUCE_TENSOR_NO_INDICES,
        CUDNN_32BIT_INDICES));
    size_t ab = as.extent * dt_size(dt), ib = 0, wb = 0;
    CHECK(cudnnGetReductionIndicesSize(h_cpu, rd, ad, cd, &ib));
    CHECK(cudnnGetReductionWorkspaceSize(h_cpu, rd, ad, cd, &wb));
    void *a = malloc(ab), *ac = malloc(ab), *ws = malloc(wb + 1);
    fill(dt, a, as.extent, 0, specials);
    if (op == CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS) /* some exact zeros */
        for (size_t i = 0; i < as.extent; i += 3)
            put(dt, a, i, 0.0);
    memcpy(ac, a, ab);
    unsigned char a8[8], b8[8];
    scal(dt, alpha, a8), scal(dt, beta, b8);
    cur_dt = dt;
    snprintf(what, sizeof what, "reduce %s nan %d %s %s [%d %d %d %d] -> [%d %d %d %d] a %g b %g%s",
             op_name[op], (int)nan, dt_name(dt), layout_name[l], dim[0], dim[1], dim[2], dim[3],
             cdim[0], cdim[1], cdim[2], cdim[3], alpha, beta, specials ? " specials" : "");
    outbuf_t o;
    out_init(&o, dt, cs.extent, beta, 0);
    void *idx[3];
    for (int r = 0; r < 3; r++) {
        idx[r] = malloc(ib + 4);
        memset(idx[r], 0xcd, ib + 4);
        CHECK(cudnnReduceTensor(run_handle(r), rd, ib ? idx[r] : NULL, ib, ws, wb, a8, ad, a, b8,
                                cd, o.out[r]));
    }
    cases++;
    for (int r = 1; r < 3; r++)
        if (memcmp(idx[0], idx[r], ib + 4) != 0) {
            failures++;
            fprintf(stderr, "FAIL %s: indices of cpu (%d threads) differ from ref\n", what, r);
        }
    out_check(&o, what);
    if (memcmp(a, ac, ab) != 0) {
        failures++;
        fprintf(stderr, "FAIL %s: a changed\n", what);
    }
    for (int r = 0; r < 3; r++)
        free(idx[r]);
    free(a), free(ac), free(ws);
    cudnnDestroyReduceTensorDescriptor(rd);
    cudnnDestroyTensorDescriptor(ad), cudnnDestroyTensorDescriptor(cd);
}

static void reduce_suite(void)
{
    const int s4[4] = {2, 5, 9, 11};
    const int outs[6][4] = {{1, 5, 1, 1}, {2, 1, 9, 11}, {1, 1, 1, 1},
                            {2, 5, 1, 1}, {2, 5, 9, 11}, {1, 5, 9, 1}};
    const double ab[2][2] = {{1.0, 0.0}, {0.5, 0.25}};
    for (int l = 0; l < L_COUNT; l++)
        for (int di = 0; di < 4; di++)
            for (int op = 0; op < 9; op++)
                for (int nan = 0; nan < 2; nan++) {
                    int select = op >= 2 && op <= 4;
                    if (nan == 1 && !select)
                        continue; /* the NaN option matters to the select operators only */
                    if (di == 0 && !select)
                        continue; /* FLOAT sums and products may be reordered (in double):
                                   * test_cpu_smx_fast.c holds them to a tolerance */
                    for (int oi = 0; oi < 6; oi++)
                        test_reduce(4, s4, outs[oi], (layout_t)l, dtypes[di],
                                    (cudnnReduceTensorOp_t)op, (cudnnNanPropagation_t)nan,
                                    ab[oi & 1][0], ab[oi & 1][1], oi % 3 == 0);
                }
    const int big[4] = {4, 64, 32, 33}, bouts[3][4] = {{1, 64, 1, 1}, {4, 1, 32, 33}, {1, 1, 1, 1}};
    for (int l = 0; l < 2; l++)
        for (int oi = 0; oi < 3; oi++) {
            test_reduce(4, big, bouts[oi], (layout_t)l, CUDNN_DATA_DOUBLE, CUDNN_REDUCE_TENSOR_ADD,
                        CUDNN_NOT_PROPAGATE_NAN, 1, 0, 0);
            test_reduce(4, big, bouts[oi], (layout_t)l, CUDNN_DATA_FLOAT, CUDNN_REDUCE_TENSOR_MAX,
                        CUDNN_PROPAGATE_NAN, 0.5, 0.25, 1);
        }
}

int main(void)
{
    set_threads = (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    if (set_threads == NULL) {
        fprintf(stderr, "omp_set_num_threads not found\n");
        return 1;
    }
    CHECK(freednnCreateWithBackend(&h_ref, FREEDNN_BACKEND_REF));
    CHECK(freednnCreateWithBackend(&h_cpu, FREEDNN_BACKEND_CPU));
    softmax_suite();
    dropout_suite();
    lrn_suite();
    reduce_suite();
    printf("test_cpu_memops3: %d cases, %d failures\n", cases, failures);
    cudnnDestroy(h_ref);
    cudnnDestroy(h_cpu);
    return failures ? 1 : 0;
}
