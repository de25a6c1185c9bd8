/* SPDX-License-Identifier: MIT */
/*
 * onnx_ops.c - ONNX conformance for every non-convolution op the classic cuDNN API can express
 * (DESIGN D9: an oracle nobody here wrote). Convolution has its own runner (onnx_conv.c).
 *
 * Reads the generic case files (format 2) that tests/onnx/convert.py writes to CASE_DIR/ops
 * and runs each through the public API on a ref handle and on a cpu handle (and, when the default
 * handle is cuda, on it with device copies of every buffer: the GPU tier), one function per op
 * group: pooling, batch normalization, LRN, activation, Clip, softmax, dropout, op-tensor,
 * reduction. What cuDNN cannot express is SKIPPED with the reason (README.md lists them all);
 * what it can must match every ONNX output within 1e-5 relative + 1e-6 absolute, else FAILED.
 * Output buffers are guarded and poisoned before the call; input buffers are hashed and must
 * come back unchanged.
 *
 * Usage: onnx_ops CASE_DIR              runs CASE_DIR/ops/index.txt, writes CASE_DIR/ops.result
 *        onnx_ops --total CASE_DIR MIN  needs MIN passed cases in conv.result + ops.result
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fd_test.h"
#if defined(FD_ONNX_WITH_CUDART)
#include <cuda_runtime_api.h>
#endif

#define MAX_T 8     /* inputs or outputs of one node */
#define MAX_ATTR 16 /* attributes of one node */
#define MAX_VALS 16 /* values of one ints / floats attribute */
#define MAX_RANK 8  /* ONNX rank of a tensor we run (CUDNN_DIM_MAX) */
#define MAX_BUF 16  /* buffers of one run */
#define MAX_DESC 12 /* tensor descriptors of one run */

static const char *pkg_hint = "the Debian packages python3-onnx, python3-numpy and "
                              "libonnx-testdata (scripts/install-deps.sh installs them)";

/* ==== case files ============================================================================ */

typedef struct {
    int present, rank;
    char dtype[16]; /* numpy's name */
    int dim[MAX_RANK];
    int64_t n;
    double *v;
} tensor_t;

typedef struct {
    char name[64], type[16], s[64]; /* type: int, float, string, ints, floats, unsupported */
    int n;
    double v[MAX_VALS];
} attr_t;

typedef struct {
    char name[512], op[32];
    int opset, n_attr, n_in, n_out;
    attr_t attr[MAX_ATTR];
    tensor_t in[MAX_T], out[MAX_T];
} case_t;

static void case_free(case_t *c)
{
    for (int i = 0; i < MAX_T; i++)
        free(c->in[i].v), free(c->out[i].v);
    memset(c, 0, sizeof *c);
}

static int read_tensor(FILE *f, tensor_t *t)
{
    char tok[16];
    if (fscanf(f, "%15s", tok) != 1)
        return 0;
    if (!strcmp(tok, "absent"))
        return 1;
    snprintf(t->dtype, sizeof t->dtype, "%s", tok);
    if (fscanf(f, "%d", &t->rank) != 1 || t->rank < 0 || t->rank > MAX_RANK)
        return 0;
    t->n = 1;
    for (int i = 0; i < t->rank; i++) {
        if (fscanf(f, "%d", &t->dim[i]) != 1 || t->dim[i] < 0)
            return 0;
        t->n *= t->dim[i];
    }
    t->present = 1;
    t->v = malloc(sizeof(double) * (size_t)(t->n ? t->n : 1));
    for (int64_t i = 0; i < t->n; i++)
        if (fscanf(f, "%lf", &t->v[i]) != 1)
            return 0;
    return 1;
}

/* Returns 1 on success; else writes the reason to err. */
static int case_read(const char *path, case_t *c, char *err, size_t err_size)
{
    memset(c, 0, sizeof *c);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, err_size, "cannot open %s", path);
        return 0;
    }
    char key[64];
    int version = 0, ok = 0;
    if (fscanf(f, "%63s %d", key, &version) != 2 || strcmp(key, "freednn-onnx-case") ||
        version != 2) {
        snprintf(err, err_size, "%s is not a format 2 case file", path);
        goto done;
    }
    while (fscanf(f, "%63s", key) == 1) {
        int r = 1, k = -1;
        if (!strcmp(key, "end")) {
            ok = 1;
            break;
        } else if (!strcmp(key, "name")) {
            r = fscanf(f, " %511[^\n]", c->name) == 1;
        } else if (!strcmp(key, "op")) {
            r = fscanf(f, "%31s", c->op) == 1;
        } else if (!strcmp(key, "opset")) {
            r = fscanf(f, "%d", &c->opset) == 1;
        } else if (!strcmp(key, "attr")) {
            attr_t *a = c->n_attr < MAX_ATTR ? &c->attr[c->n_attr++] : NULL;
            r = a != NULL && fscanf(f, "%63s %15s", a->name, a->type) == 2;
            if (r && (!strcmp(a->type, "int") || !strcmp(a->type, "float"))) {
                a->n = 1;
                r = fscanf(f, "%lf", &a->v[0]) == 1;
            } else if (r && (!strcmp(a->type, "ints") || !strcmp(a->type, "floats"))) {
                r = fscanf(f, "%d", &a->n) == 1 && a->n >= 0 && a->n <= MAX_VALS;
                for (int i = 0; r && i < a->n; i++)
                    r = fscanf(f, "%lf", &a->v[i]) == 1;
            } else if (r) { /* string, unsupported: one word */
                r = fscanf(f, "%63s", a->s) == 1;
            }
        } else if (!strcmp(key, "input") || !strcmp(key, "output")) {
            const int in = key[0] == 'i';
            r = fscanf(f, "%d", &k) == 1 && k >= 0 && k < MAX_T;
            tensor_t *t = r ? (in ? &c->in[k] : &c->out[k]) : NULL;
            r = r && !t->present && read_tensor(f, t);
            if (r && in)
                c->n_in = k + 1 > c->n_in ? k + 1 : c->n_in;
            else if (r)
                c->n_out = k + 1 > c->n_out ? k + 1 : c->n_out;
        } else {
            r = 0;
        }
        if (!r) {
            snprintf(err, err_size, "%s: bad or unknown item '%s'", path, key);
            goto done;
        }
    }
    if (!ok)
        snprintf(err, err_size, "%s: truncated (no 'end')", path);
done:
    fclose(f);
    if (!ok)
        case_free(c);
    return ok;
}

static const attr_t *attr_find(const case_t *c, const char *name)
{
    for (int i = 0; i < c->n_attr; i++)
        if (!strcmp(c->attr[i].name, name))
            return &c->attr[i];
    return NULL;
}

static double attr_num(const case_t *c, const char *name, double dflt)
{
    const attr_t *a = attr_find(c, name);
    return a != NULL && a->n == 1 ? a->v[0] : dflt;
}

static const char *attr_str(const case_t *c, const char *name, const char *dflt)
{
    const attr_t *a = attr_find(c, name);
    return a != NULL && !strcmp(a->type, "string") ? a->s : dflt;
}

/* n values into out: the attribute's when present (returns 0 if it has another count), else
 * dflt for each. */
static int attr_ints(const case_t *c, const char *name, int n, int dflt, int *out)
{
    const attr_t *a = attr_find(c, name);
    if (a != NULL && a->n != n)
        return 0;
    for (int i = 0; i < n; i++)
        out[i] = a != NULL ? (int)a->v[i] : dflt;
    return 1;
}

/* ==== one run of a case on one handle ======================================================= */

typedef struct {
    cudnnHandle_t h;
    const case_t *c;
    cudnnDataType_t dt; /* FLOAT or DOUBLE: the case's data */
    int device;         /* cuda handle: the library gets device copies (dev[i]) of buf[i] */
    fd_buf_t buf[MAX_BUF];
    unsigned char *dev[MAX_BUF]; /* whole guard | payload | guard regions */
    int is_input[MAX_BUF];
    uint64_t hash[MAX_BUF];
    int n_buf;
    cudnnTensorDescriptor_t td[MAX_DESC];
    int n_td;
    cudnnPoolingDescriptor_t pool;
    cudnnActivationDescriptor_t act;
    cudnnLRNDescriptor_t lrn;
    cudnnOpTensorDescriptor_t opt;
    cudnnReduceTensorDescriptor_t red;
    cudnnDropoutDescriptor_t drop;
    double *got[MAX_T]; /* per ONNX output: what the library computed, in ONNX's order */
    char how[512];      /* the mapping, printed on the case's line */
    char err[1024];     /* the skip reason or the failure */
} run_t;

static int skip(run_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(run_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void how(run_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int skip(run_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    return 0;
}

static int fail(run_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (r->err[0] == '\0')
        vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    return -1;
}

static void how(run_t *r, const char *fmt, ...)
{
    size_t len = strlen(r->how);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->how + len, sizeof r->how - len, fmt, ap);
    va_end(ap);
}

static const char *last_error(void)
{
    static char buf[512];
    cudnnGetLastErrorString(buf, sizeof buf);
    return buf;
}

/* A failing call ends the run as FAILED with the call, its status and the library's reason. */
#define API(expr)                                                                                  \
    do {                                                                                           \
        cudnnStatus_t s_ = (expr);                                                                 \
        if (s_ != CUDNN_STATUS_SUCCESS)                                                            \
            return fail(r, "%s: %s (%s)", #expr, cudnnGetErrorString(s_), last_error());           \
    } while (0)

static size_t dt_size(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_DOUBLE ? 8 : 4;
}

/* On a cuda handle, buffer b (just made on the host) gets a device copy of its whole guarded
 * region; the library sees the device payload. Returns the pointer to hand to the library. */
static void *lib_ptr(run_t *r, fd_buf_t *b)
{
    if (!r->device)
        return b->data;
#if defined(FD_ONNX_WITH_CUDART)
    const int i = (int)(b - r->buf);
    const size_t whole = b->size + 2 * (size_t)FD_GUARD_BYTES;
    if (cudaMalloc((void **)&r->dev[i], whole) != cudaSuccess ||
        cudaMemcpy(r->dev[i], b->base, whole, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "onnx_ops: cudaMalloc/cudaMemcpy of %zu bytes failed\n", whole);
        abort(); /* the test machine, not the library */
    }
    return r->dev[i] + FD_GUARD_BYTES;
#else
    return b->data;
#endif
}

/* Brings every device copy back into its host buffer (guards included). */
static void download_all(run_t *r)
{
#if defined(FD_ONNX_WITH_CUDART)
    for (int i = 0; r->device && i < r->n_buf; i++)
        if (r->dev[i] && cudaMemcpy(r->buf[i].base, r->dev[i], r->buf[i].size + 2 * (size_t)FD_GUARD_BYTES,
                                    cudaMemcpyDeviceToHost) != cudaSuccess) {
            fprintf(stderr, "onnx_ops: cudaMemcpy back failed\n");
            abort();
        }
#else
    (void)r;
#endif
}

/* The host address holding what the library wrote at p (a device address on cuda). */
static const void *host_view(run_t *r, const void *p)
{
    const unsigned char *q = p;
    for (int i = 0; r->device && i < r->n_buf; i++)
        if (r->dev[i] && q >= r->dev[i] && q < r->dev[i] + r->buf[i].size + 2 * (size_t)FD_GUARD_BYTES) {
            download_all(r);
            return r->buf[i].base + (q - r->dev[i]);
        }
    return p;
}

static fd_buf_t *new_buf(run_t *r)
{
    if (r->n_buf == MAX_BUF) { /* a bug of this file, not of the library */
        fprintf(stderr, "onnx_ops: more than %d buffers in one run (%s)\n", MAX_BUF, r->c->name);
        abort();
    }
    return &r->buf[r->n_buf];
}

/* Input buffer holding v (n values of dt); hashed, checked unchanged after the run. */
static void *in_buf(run_t *r, cudnnDataType_t dt, const double *v, int64_t n)
{
    fd_buf_t *b = new_buf(r);
    *b = fd_buf_alloc((size_t)n * dt_size(dt));
    for (int64_t i = 0; i < n; i++)
        fd_test_store(dt, b->data, i, v[i]);
    r->is_input[r->n_buf] = 1;
    r->hash[r->n_buf++] = fd_buf_hash(b);
    return lib_ptr(r, b);
}

/* Output (or scratch) buffer of `bytes`, guarded and poisoned (NaN). */
static void *out_buf(run_t *r, size_t bytes)
{
    fd_buf_t *b = new_buf(r);
    r->n_buf++;
    *b = fd_buf_alloc(bytes);
    fd_buf_poison(b);
    return lib_ptr(r, b);
}

/* Packed tensor descriptor; NULL (with r->err) on failure. */
static cudnnTensorDescriptor_t tdesc(run_t *r, cudnnDataType_t dt, int rank, const int *dim)
{
    int stride[MAX_RANK];
    stride[rank - 1] = 1;
    for (int i = rank - 2; i >= 0; i--)
        stride[i] = stride[i + 1] * dim[i + 1];
    cudnnTensorDescriptor_t d = NULL;
    if (r->n_td == MAX_DESC) {
        fprintf(stderr, "onnx_ops: more than %d descriptors in one run (%s)\n", MAX_DESC,
                r->c->name);
        abort();
    }
    cudnnStatus_t s = cudnnCreateTensorDescriptor(&d);
    if (s == CUDNN_STATUS_SUCCESS) {
        r->td[r->n_td++] = d;
        s = cudnnSetTensorNdDescriptor(d, dt, rank, dim, stride);
    }
    if (s != CUDNN_STATUS_SUCCESS) {
        fail(r, "cudnnSetTensorNdDescriptor(rank %d): %s (%s)", rank, cudnnGetErrorString(s),
             last_error());
        return NULL;
    }
    return d;
}

#define TDESC(var, dt, rank, dim)                                                                  \
    do {                                                                                           \
        if (((var) = tdesc(r, (dt), (rank), (dim))) == NULL)                                       \
            return -1;                                                                             \
    } while (0)

static const void *one(const run_t *r)
{
    static const float f = 1.0f;
    static const double d = 1.0;
    return r->dt == CUDNN_DATA_DOUBLE ? (const void *)&d : (const void *)&f;
}

static const void *zero(const run_t *r)
{
    static const float f = 0.0f;
    static const double d = 0.0;
    return r->dt == CUDNN_DATA_DOUBLE ? (const void *)&d : (const void *)&f;
}

/* ONNX output k := the n values of dt at p, in the same order. */
static void take(run_t *r, int k, const void *p)
{
    const int64_t n = r->c->out[k].n;
    p = host_view(r, p);
    r->got[k] = malloc(sizeof(double) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++)
        r->got[k][i] = fd_test_load(r->dt, p, i);
}

static int64_t prod(const int *dim, int from, int to)
{
    int64_t n = 1;
    for (int i = from; i < to; i++)
        n *= dim[i];
    return n;
}

/* The ONNX shape prefixed with 1s up to min_rank (ONNX broadcasting aligns to the right, so
 * leading 1s change nothing); returns the rank. */
static int lib_shape(const tensor_t *t, int min_rank, int *dim)
{
    const int rank = t->rank > min_rank ? t->rank : min_rank, pre = rank - t->rank;
    for (int i = 0; i < rank; i++)
        dim[i] = i < pre ? 1 : t->dim[i - pre];
    return rank;
}

static void dims_text(char *s, size_t size, int rank, const int *dim)
{
    size_t len = 0;
    s[0] = '\0';
    for (int i = 0; i < rank && len < size; i++)
        len += (size_t)snprintf(s + len, size - len, "%s%d", i ? "x" : "", dim[i]);
    if (rank == 0)
        snprintf(s, size, "scalar");
}

static int same_shape(const tensor_t *a, const tensor_t *b)
{
    if (a->rank != b->rank)
        return 0;
    for (int i = 0; i < a->rank; i++)
        if (a->dim[i] != b->dim[i])
            return 0;
    return 1;
}

/* Output 0 must have input 0's shape (elementwise ops). */
static int expect_elementwise(run_t *r)
{
    const tensor_t *x = &r->c->in[0], *y = &r->c->out[0];
    if (!y->present || !same_shape(x, y))
        return fail(r, "ONNX output 0 does not have input 0's shape");
    if (x->rank > MAX_RANK)
        return skip(r, "rank %d (cuDNN tensors have at most %d dims)", x->rank, MAX_RANK);
    return 1;
}

/* ==== activation: Relu, Sigmoid, Tanh, Elu (and Clip with min 0) ============================ */

static const char *act_name(cudnnActivationMode_t m)
{
    return m == CUDNN_ACTIVATION_RELU           ? "RELU"
           : m == CUDNN_ACTIVATION_SIGMOID      ? "SIGMOID"
           : m == CUDNN_ACTIVATION_TANH         ? "TANH"
           : m == CUDNN_ACTIVATION_ELU          ? "ELU"
           : m == CUDNN_ACTIVATION_CLIPPED_RELU ? "CLIPPED_RELU"
                                                : "?";
}

static int run_activation(run_t *r, cudnnActivationMode_t mode, double coef)
{
    const tensor_t *x = &r->c->in[0];
    int e = expect_elementwise(r);
    if (e <= 0)
        return e;
    int dim[MAX_RANK], rank = lib_shape(x, 4, dim);
    cudnnTensorDescriptor_t xd;
    TDESC(xd, r->dt, rank, dim);
    const void *xp = in_buf(r, r->dt, x->v, x->n);
    void *yp = out_buf(r, (size_t)x->n * dt_size(r->dt));
    API(cudnnCreateActivationDescriptor(&r->act));
    API(cudnnSetActivationDescriptor(r->act, mode, CUDNN_NOT_PROPAGATE_NAN, coef));
    API(cudnnActivationForward(r->h, r->act, one(r), xd, xp, zero(r), xd, yp));
    take(r, 0, yp);
    char s[64];
    dims_text(s, sizeof s, rank, dim);
    how(r, "cudnnActivationForward %s", act_name(mode));
    if (mode == CUDNN_ACTIVATION_ELU || mode == CUDNN_ACTIVATION_CLIPPED_RELU)
        how(r, " coef %g", coef);
    how(r, " on %s", s);
    return 1;
}

static int op_activation(run_t *r)
{
    const char *op = r->c->op;
    if (!strcmp(op, "Relu"))
        return run_activation(r, CUDNN_ACTIVATION_RELU, 0.0);
    if (!strcmp(op, "Sigmoid"))
        return run_activation(r, CUDNN_ACTIVATION_SIGMOID, 0.0);
    if (!strcmp(op, "Tanh"))
        return run_activation(r, CUDNN_ACTIVATION_TANH, 0.0);
    return run_activation(r, CUDNN_ACTIVATION_ELU, attr_num(r->c, "alpha", 1.0));
}

/* ==== Clip: activation when min is 0, else cudnnOpTensor MAX / MIN with a broadcast scalar === */

/* One scalar bound: opset < 11 attributes min / max, later the optional inputs 1 / 2. */
static int clip_bound(const case_t *c, int k, const char *name, double *v)
{
    if (c->opset < 11) {
        const attr_t *a = attr_find(c, name);
        if (a != NULL)
            *v = a->v[0];
        return a != NULL;
    }
    if (k >= c->n_in || !c->in[k].present || c->in[k].n != 1)
        return 0;
    *v = c->in[k].v[0];
    return 1;
}

static int op_clip(run_t *r)
{
    const case_t *c = r->c;
    const tensor_t *x = &c->in[0];
    double lo = 0.0, hi = 0.0;
    const int has_lo = clip_bound(c, 1, "min", &lo), has_hi = clip_bound(c, 2, "max", &hi);
    if (!has_lo && !has_hi)
        return skip(r, "Clip without min and max is the identity: no cuDNN op computes it");
    if (has_lo && lo == 0.0) /* min(max(x, 0), hi) is CLIPPED_RELU, max(x, 0) is RELU */
        return has_hi ? run_activation(r, CUDNN_ACTIVATION_CLIPPED_RELU, hi)
                      : run_activation(r, CUDNN_ACTIVATION_RELU, 0.0);
    /* y = min(max(x, lo), hi), ONNX's order, as cudnnOpTensor with B a 1x..x1 tensor */
    int e = expect_elementwise(r);
    if (e <= 0)
        return e;
    int dim[MAX_RANK], one_dim[MAX_RANK], rank = lib_shape(x, 4, dim);
    for (int i = 0; i < rank; i++)
        one_dim[i] = 1;
    cudnnTensorDescriptor_t xd, bd;
    TDESC(xd, r->dt, rank, dim);
    TDESC(bd, r->dt, rank, one_dim);
    const void *xp = in_buf(r, r->dt, x->v, x->n);
    const size_t bytes = (size_t)x->n * dt_size(r->dt);
    void *yp = out_buf(r, bytes), *tp = has_lo && has_hi ? out_buf(r, bytes) : yp;
    API(cudnnCreateOpTensorDescriptor(&r->opt));
    if (has_lo) {
        const void *lop = in_buf(r, r->dt, &lo, 1);
        API(cudnnSetOpTensorDescriptor(r->opt, CUDNN_OP_TENSOR_MAX, r->dt, CUDNN_PROPAGATE_NAN));
        API(cudnnOpTensor(r->h, r->opt, one(r), xd, xp, one(r), bd, lop, zero(r), xd, tp));
        how(r, "cudnnOpTensor MAX with min %g", lo);
    }
    if (has_hi) {
        const void *hip = in_buf(r, r->dt, &hi, 1);
        API(cudnnSetOpTensorDescriptor(r->opt, CUDNN_OP_TENSOR_MIN, r->dt, CUDNN_PROPAGATE_NAN));
        API(cudnnOpTensor(r->h, r->opt, one(r), xd, has_lo ? tp : xp, one(r), bd, hip, zero(r), xd,
                          yp));
        how(r, "%scudnnOpTensor MIN with max %g", has_lo ? ", then " : "", hi);
    }
    take(r, 0, yp);
    how(r, " (B broadcast from 1x1x1x1)");
    return 1;
}

/* ==== Softmax, LogSoftmax: cudnnSoftmaxForward on a reshaped 4-d descriptor ================== */

static int op_softmax(run_t *r)
{
    const case_t *c = r->c;
    const tensor_t *x = &c->in[0];
    int e = expect_elementwise(r);
    if (e <= 0)
        return e;
    const int rank = x->rank;
    int axis = (int)attr_num(c, "axis", c->opset >= 13 ? -1 : 1);
    if (axis < 0)
        axis += rank;
    if (axis < 0 || axis >= rank)
        return fail(r, "axis %d outside rank %d", (int)attr_num(c, "axis", 0), rank);
    const int64_t before = prod(x->dim, 0, axis), mid = x->dim[axis],
                  after = prod(x->dim, axis + 1, rank);
    int dim[4];
    cudnnSoftmaxMode_t mode;
    if (c->opset < 13) { /* input coerced to 2-d [before, rest]; softmax over each row */
        dim[0] = (int)before, dim[1] = (int)(mid * after), dim[2] = dim[3] = 1;
        mode = CUDNN_SOFTMAX_MODE_INSTANCE;
    } else { /* softmax along one axis: channels of (before, axis, after, 1) */
        dim[0] = (int)before, dim[1] = (int)mid, dim[2] = (int)after, dim[3] = 1;
        mode = CUDNN_SOFTMAX_MODE_CHANNEL;
    }
    const cudnnSoftmaxAlgorithm_t algo =
        !strcmp(c->op, "LogSoftmax") ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE;
    cudnnTensorDescriptor_t xd;
    TDESC(xd, r->dt, 4, dim);
    const void *xp = in_buf(r, r->dt, x->v, x->n);
    void *yp = out_buf(r, (size_t)x->n * dt_size(r->dt));
    API(cudnnSoftmaxForward(r->h, algo, mode, one(r), xd, xp, zero(r), xd, yp));
    take(r, 0, yp);
    char s[64];
    dims_text(s, sizeof s, 4, dim);
    how(r, "cudnnSoftmaxForward %s %s on %s (opset %d, axis %d)",
        algo == CUDNN_SOFTMAX_LOG ? "LOG" : "ACCURATE",
        mode == CUDNN_SOFTMAX_MODE_INSTANCE ? "INSTANCE" : "CHANNEL", s, c->opset, axis);
    return 1;
}

/* ==== Dropout: identity (inference, or ratio 0) as cudnnDropoutForward with probability 0 ==== */

static int op_dropout(run_t *r)
{
    const case_t *c = r->c;
    const tensor_t *x = &c->in[0];
    int e = expect_elementwise(r);
    if (e <= 0)
        return e;
    int training;
    double ratio;
    if (c->opset >= 12) { /* inputs: data, ratio (0.5), training_mode (false) */
        training = c->n_in > 2 && c->in[2].present && c->in[2].v[0] != 0.0;
        ratio = c->n_in > 1 && c->in[1].present ? c->in[1].v[0] : 0.5;
    } else { /* opset 7-11: inference only; opset < 7: training unless is_test */
        training = c->opset < 7 && attr_num(c, "is_test", 0.0) == 0.0;
        ratio = attr_num(c, "ratio", 0.5);
    }
    if (training && ratio != 0.0)
        return skip(r, "training mode with ratio > 0: the mask comes from ONNX's (numpy's) "
                       "random generator, which cuDNN's dropout states cannot reproduce");
    if (c->n_out > 2 || (c->n_out == 2 && strcmp(c->out[1].dtype, "bool")))
        return fail(r, "Dropout outputs: %d, the second not bool", c->n_out);
    int dim[MAX_RANK], rank = lib_shape(x, 4, dim);
    cudnnTensorDescriptor_t xd;
    TDESC(xd, r->dt, rank, dim);
    const void *xp = in_buf(r, r->dt, x->v, x->n);
    void *yp = out_buf(r, (size_t)x->n * dt_size(r->dt));
    size_t states_size = 0, reserve_size = 0;
    API(cudnnDropoutGetStatesSize(r->h, &states_size));
    API(cudnnDropoutGetReserveSpaceSize(xd, &reserve_size));
    void *states = out_buf(r, states_size), *reserve = out_buf(r, reserve_size);
    API(cudnnCreateDropoutDescriptor(&r->drop));
    API(cudnnSetDropoutDescriptor(r->drop, r->h, 0.0f, states, states_size,
                                  (unsigned long long)attr_num(c, "seed", 0.0)));
    API(cudnnDropoutForward(r->h, r->drop, xd, xp, xd, yp, reserve, reserve_size));
    take(r, 0, yp);
    how(r, "%s: cudnnDropoutForward with probability 0", training ? "ratio 0" : "inference");
    if (c->n_out > 1 && c->out[1].present) {
        /* the mask through the API: dx = dy * mask / (1 - 0) with dy = 1 */
        double *ones = malloc(sizeof(double) * (size_t)x->n);
        for (int64_t i = 0; i < x->n; i++)
            ones[i] = 1.0;
        const void *dyp = in_buf(r, r->dt, ones, x->n);
        free(ones);
        void *dxp = out_buf(r, (size_t)x->n * dt_size(r->dt));
        API(cudnnDropoutBackward(r->h, r->drop, xd, dyp, xd, dxp, reserve, reserve_size));
        take(r, 1, dxp);
        how(r, "; mask = cudnnDropoutBackward of ones");
    }
    return 1;
}

/* ==== LRN: cudnnLRNCrossChannelForward ======================================================= */

static int op_lrn(run_t *r)
{
    const case_t *c = r->c;
    const tensor_t *x = &c->in[0];
    int e = expect_elementwise(r);
    if (e <= 0)
        return e;
    /* ONNX: y = x / (bias + alpha / size * sum of x^2 over channels [c - floor((size - 1) / 2),
     * c + ceil((size - 1) / 2)])^beta: cuDNN's formula and window, any size (odd or even). */
    const double alpha = attr_num(c, "alpha", 1e-4), beta = attr_num(c, "beta", 0.75),
                 bias = attr_num(c, "bias", 1.0);
    const int size = (int)attr_num(c, "size", 0.0);
    if (size < CUDNN_LRN_MIN_N || size > CUDNN_LRN_MAX_N)
        return skip(r, "size %d outside cuDNN's LRN window range [%d, %d]", size, CUDNN_LRN_MIN_N,
                    CUDNN_LRN_MAX_N);
    if (bias < CUDNN_LRN_MIN_K || beta < CUDNN_LRN_MIN_BETA)
        return skip(r, "bias %g or beta %g below cuDNN's minimum (%g, %g)", bias, beta,
                    CUDNN_LRN_MIN_K, CUDNN_LRN_MIN_BETA);
    if (x->rank < 3 || x->rank > 5)
        return skip(r, "rank %d: cuDNN's LRN takes 4-d and 5-d tensors (3-d run as 4-d)", x->rank);
    int dim[5], rank = x->rank == 3 ? 4 : x->rank;
    for (int i = 0; i < rank; i++)
        dim[i] = i < x->rank ? x->dim[i] : 1;
    cudnnTensorDescriptor_t xd;
    TDESC(xd, r->dt, rank, dim);
    const void *xp = in_buf(r, r->dt, x->v, x->n);
    void *yp = out_buf(r, (size_t)x->n * dt_size(r->dt));
    API(cudnnCreateLRNDescriptor(&r->lrn));
    API(cudnnSetLRNDescriptor(r->lrn, (unsigned)size, alpha, beta, bias));
    API(cudnnLRNCrossChannelForward(r->h, r->lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1, one(r), xd, xp,
                                    zero(r), xd, yp));
    take(r, 0, yp);
    how(r, "cudnnLRNCrossChannelForward n %d alpha %g beta %g k %g", size, alpha, beta, bias);
    return 1;
}

/* ==== BatchNormalization: cudnnBatchNormalizationForwardInference ============================ */

static int op_batchnorm(run_t *r)
{
    const case_t *c = r->c;
    const tensor_t *x = &c->in[0];
    const int training = c->opset >= 14  ? attr_num(c, "training_mode", 0.0) != 0.0
                         : c->opset >= 7 ? c->n_out > 1
                                         : attr_num(c, "is_test", 0.0) == 0.0;
    if (training)
        return skip(r, "training mode: ONNX's running variance uses the biased batch variance "
                       "(numpy var), cudnnBatchNormalizationForwardTraining the unbiased one");
    if (c->n_out != 1)
        return fail(r, "inference BatchNormalization with %d outputs", c->n_out);
    int e = expect_elementwise(r);
    if (e <= 0)
        return e;
    if (x->rank < 2 || x->rank > 5)
        return skip(r,
                    "rank %d: cuDNN batch normalization takes 4-d and 5-d tensors (2-d and "
                    "3-d run as 4-d)",
                    x->rank);
    /* opset < 9: spatial = 0 gives one parameter set per C x D1 x ... position */
    const int spatial = c->opset >= 9 || attr_num(c, "spatial", 1.0) != 0.0;
    const cudnnBatchNormMode_t mode =
        spatial ? CUDNN_BATCHNORM_SPATIAL : CUDNN_BATCHNORM_PER_ACTIVATION;
    const int64_t n_param = spatial ? x->dim[1] : prod(x->dim, 1, x->rank);
    for (int k = 1; k <= 4; k++)
        if (k >= c->n_in || !c->in[k].present || c->in[k].n != n_param ||
            strcmp(c->in[k].dtype, x->dtype))
            return skip(r, "input %d is not %lld values of %s", k, (long long)n_param, x->dtype);
    int dim[5], rank = x->rank < 4 ? 4 : x->rank;
    for (int i = 0; i < rank; i++)
        dim[i] = i < x->rank ? x->dim[i] : 1;
    const double eps = attr_num(c, "epsilon", 1e-5);
    cudnnTensorDescriptor_t xd, pd = NULL;
    TDESC(xd, r->dt, rank, dim);
    API(cudnnCreateTensorDescriptor(&pd));
    r->td[r->n_td++] = pd;
    API(cudnnDeriveBNTensorDescriptor(pd, xd, mode));
    const void *xp = in_buf(r, r->dt, x->v, x->n);
    const void *sp = in_buf(r, r->dt, c->in[1].v, n_param),
               *bp = in_buf(r, r->dt, c->in[2].v, n_param),
               *mp = in_buf(r, r->dt, c->in[3].v, n_param),
               *vp = in_buf(r, r->dt, c->in[4].v, n_param);
    void *yp = out_buf(r, (size_t)x->n * dt_size(r->dt));
    API(cudnnBatchNormalizationForwardInference(r->h, mode, one(r), zero(r), xd, xp, xd, yp, pd, sp,
                                                bp, mp, vp, eps));
    take(r, 0, yp);
    char s[64];
    dims_text(s, sizeof s, rank, dim);
    how(r, "cudnnBatchNormalizationForwardInference %s eps %g on %s",
        spatial ? "SPATIAL" : "PER_ACTIVATION", eps, s);
    return 1;
}

/* ==== pooling: MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool ======================== */

static int pool_ceil_ok(int64_t in, int p, int k, int s, int64_t fl)
{
    /* the library's (and cuDNN's) ceil-mode rule: one more window when the division was inexact
     * and the last window starts inside the input (src/api/pooling.c) */
    return (in + 2 * p - k) % s != 0 && fl * s - p < in;
}

/* ONNX pooling geometry per spatial dim: pads (pb, pe) and the output extent. */
static void onnx_pool_geometry(const char *auto_pad, int ceil_mode, int in, int k, int s, int *pb,
                               int *pe, int *out)
{
    if (!strcmp(auto_pad, "SAME_UPPER") || !strcmp(auto_pad, "SAME_LOWER")) {
        *out = (in + s - 1) / s;
        int total = (*out - 1) * s + k - in;
        total = total < 0 ? 0 : total;
        *pb = !strcmp(auto_pad, "SAME_UPPER") ? total / 2 : total - total / 2;
        *pe = total - *pb;
        return;
    }
    if (!strcmp(auto_pad, "VALID"))
        *pb = *pe = 0;
    const int span = in + *pb + *pe - k;
    *out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
    if (ceil_mode && (*out - 1) * s >= in + *pb) /* the last window may not start in the pad */
        (*out)--;
}

static int op_pool(run_t *r)
{
    const case_t *c = r->c;
    const tensor_t *x = &c->in[0], *y = &c->out[0];
    const int global = !strncmp(c->op, "Global", 6), is_max = strstr(c->op, "Max") != NULL;
    if (c->n_out > 1)
        return skip(r, "second output Indices (argmax): cuDNN pooling returns no indices");
    if (x->rank < 3 || x->rank > 5)
        return skip(r, "%d spatial dims: cuDNN pools 2-d and 3-d (1-d run as 2-d)", x->rank - 2);
    const int nsp = x->rank - 2;
    const char *auto_pad = attr_str(c, "auto_pad", "NOTSET");
    const int ceil_mode = (int)attr_num(c, "ceil_mode", 0.0),
              include = (int)attr_num(c, "count_include_pad", 0.0);
    int k[3], s[3], dil[3], pads[6], pb[3], pe[3], out[3];
    if (global) {
        for (int i = 0; i < nsp; i++)
            k[i] = x->dim[2 + i], s[i] = dil[i] = 1, pads[i] = pads[nsp + i] = 0;
    } else if (!attr_ints(c, "kernel_shape", nsp, 0, k) || attr_find(c, "kernel_shape") == NULL ||
               !attr_ints(c, "strides", nsp, 1, s) || !attr_ints(c, "dilations", nsp, 1, dil) ||
               !attr_ints(c, "pads", 2 * nsp, 0, pads)) {
        return fail(r, "kernel_shape, strides, dilations or pads do not fit %d spatial dims", nsp);
    }
    for (int i = 0; i < nsp; i++)
        if (dil[i] != 1)
            return skip(r, "dilations other than 1: cuDNN pooling has no dilation");
    for (int i = 0; i < nsp; i++) {
        pb[i] = pads[i], pe[i] = pads[nsp + i];
        onnx_pool_geometry(auto_pad, ceil_mode, x->dim[2 + i], k[i], s[i], &pb[i], &pe[i], &out[i]);
    }
    if (!y->present || y->rank != x->rank || y->dim[0] != x->dim[0] || y->dim[1] != x->dim[1])
        return fail(r, "Y is not N x C x spatial of X");
    for (int i = 0; i < nsp; i++)
        if (y->dim[2 + i] != out[i])
            return fail(r, "Y spatial dim %d: ONNX's shape rule gives %d, the data has %d", i,
                        out[i], y->dim[2 + i]);
    const cudnnPoolingMode_t mode = is_max    ? CUDNN_POOLING_MAX
                                    : include ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                              : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    /* cuDNN pads symmetrically. Unequal ONNX pads: MAX and INCLUDE get the difference as
     * explicit -inf / 0 padding of x (the zeros then count, as ONNX's padding does); EXCLUDE
     * takes the larger pad and reads Y from the output at an offset, which needs the stride to
     * divide the pad difference. Ceil mode is cuDNN's one-more-window output size. */
    int p[3], eb[3], ee[3], off[3], xin[3], lib_out[3];
    for (int i = 0; i < nsp; i++) {
        const int in = x->dim[2 + i];
        eb[i] = ee[i] = off[i] = 0;
        if (pb[i] == pe[i] || mode != CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING) {
            p[i] = pb[i] < pe[i] ? pb[i] : pe[i];
            eb[i] = pb[i] - p[i], ee[i] = pe[i] - p[i];
        } else {
            p[i] = pb[i] > pe[i] ? pb[i] : pe[i];
            if ((p[i] - pb[i]) % s[i] != 0)
                return skip(r,
                            "pads %d/%d with count_include_pad = 0 along dim %d: cuDNN pads "
                            "symmetrically, explicit padding would be counted, and stride %d "
                            "does not divide the pad difference",
                            pb[i], pe[i], i, s[i]);
            off[i] = (p[i] - pb[i]) / s[i];
        }
        xin[i] = in + eb[i] + ee[i];
        const int64_t fl = (xin[i] + 2 * p[i] - k[i]) / s[i] + 1, need = off[i] + out[i];
        if (need <= fl)
            lib_out[i] = (int)fl;
        else if (need == fl + 1 && pool_ceil_ok(xin[i], p[i], k[i], s[i], fl))
            lib_out[i] = (int)need;
        else
            return skip(r,
                        "dim %d: %d outputs at offset %d are neither cuDNN's floor (%lld) nor "
                        "ceil-mode output size",
                        i, out[i], off[i], (long long)fl);
    }
    /* library view: 1-d as 2-d with H = 1 */
    const int lsp = nsp == 1 ? 2 : nsp, lrank = lsp + 2, h1 = nsp == 1;
    int xdim[5], ydim[5], win[3], lpad[3], lstride[3];
    xdim[0] = ydim[0] = x->dim[0], xdim[1] = ydim[1] = x->dim[1];
    for (int j = 0; j < lsp; j++) {
        const int i = j - h1;
        xdim[2 + j] = i < 0 ? 1 : xin[i], ydim[2 + j] = i < 0 ? 1 : lib_out[i];
        win[j] = i < 0 ? 1 : k[i], lpad[j] = i < 0 ? 0 : p[i], lstride[j] = i < 0 ? 1 : s[i];
    }
    /* x, explicitly padded where needed */
    const int64_t n_x = prod(xdim, 0, lrank), n_y = prod(ydim, 0, lrank);
    double *xv = x->v, *padded = NULL;
    if (n_x != x->n) {
        padded = malloc(sizeof(double) * (size_t)n_x);
        for (int64_t e = 0; e < n_x; e++)
            padded[e] = is_max ? -INFINITY : 0.0;
        for (int64_t e = 0; e < x->n; e++) { /* ONNX index -> padded library index */
            int64_t rest = e, dst = 0, stride = 1;
            for (int d = x->rank - 1; d >= 0; d--) {
                const int idx = (int)(rest % x->dim[d]), sp = d - 2;
                rest /= x->dim[d];
                dst += (idx + (sp >= 0 ? eb[sp] : 0)) * stride;
                stride *= sp >= 0 ? xin[sp] : x->dim[d];
            }
            padded[dst] = x->v[e];
        }
        xv = padded;
    }
    cudnnTensorDescriptor_t xd, yd;
    TDESC(xd, r->dt, lrank, xdim);
    TDESC(yd, r->dt, lrank, ydim);
    const void *xp = in_buf(r, r->dt, xv, n_x);
    free(padded);
    void *yp = out_buf(r, (size_t)n_y * dt_size(r->dt));
    API(cudnnCreatePoolingDescriptor(&r->pool));
    API(cudnnSetPoolingNdDescriptor(r->pool, mode, CUDNN_PROPAGATE_NAN, lsp, win, lpad, lstride));
    int qdim[5];
    API(cudnnGetPoolingNdForwardOutputDim(r->pool, xd, lrank, qdim));
    for (int j = 0; j < lsp; j++) {
        const int i = j - h1;
        const int fl = i < 0 ? 1 : (xin[i] + 2 * p[i] - k[i]) / s[i] + 1;
        if (qdim[2 + j] != fl)
            return fail(r, "cudnnGetPoolingNdForwardOutputDim dim %d is %d, expected %d", 2 + j,
                        qdim[2 + j], fl);
    }
    API(cudnnPoolingForward(r->h, r->pool, one(r), xd, xp, zero(r), yd, yp));
    /* Y = the library's output window at off */
    r->got[0] = malloc(sizeof(double) * (size_t)y->n);
    const void *y_host = host_view(r, yp);
    for (int64_t e = 0; e < y->n; e++) {
        int64_t rest = e, src = 0, stride = 1;
        for (int d = y->rank - 1; d >= 0; d--) {
            const int idx = (int)(rest % y->dim[d]), sp = d - 2;
            rest /= y->dim[d];
            src += (idx + (sp >= 0 ? off[sp] : 0)) * stride;
            stride *= sp >= 0 ? lib_out[sp] : y->dim[d];
        }
        r->got[0][e] = fd_test_load(r->dt, y_host, src);
    }
    char xs[64], ys[64];
    dims_text(xs, sizeof xs, lrank, xdim);
    dims_text(ys, sizeof ys, lrank, ydim);
    how(r, "cudnnPoolingForward %s",
        is_max    ? "MAX"
        : include ? "AVERAGE_COUNT_INCLUDE_PADDING"
                  : "AVERAGE_COUNT_EXCLUDE_PADDING");
    how(r, " %s -> %s, window", xs, ys);
    for (int j = 0; j < lsp; j++)
        how(r, "%s%d", j ? "x" : " ", win[j]);
    how(r, ", pad");
    for (int j = 0; j < lsp; j++)
        how(r, "%s%d", j ? "x" : " ", lpad[j]);
    how(r, ", stride");
    for (int j = 0; j < lsp; j++)
        how(r, "%s%d", j ? "x" : " ", lstride[j]);
    if (n_x != x->n)
        how(r, ", x padded explicitly with %s", is_max ? "-inf" : "zeros");
    for (int i = 0; i < nsp; i++)
        if (off[i] || lib_out[i] != out[i]) {
            how(r, ", Y = output window");
            break;
        }
    for (int i = 0; i < nsp; i++)
        if (lib_out[i] > (xin[i] + 2 * p[i] - k[i]) / s[i] + 1) {
            how(r, ", ceil-mode output size");
            break;
        }
    if (h1)
        how(r, ", 1-d as 2-d");
    return 1;
}

/* ==== Add, Mul, Min, Max, Sqrt: cudnnOpTensor ================================================ */

/* Operand k's dims aligned to rank R: ONNX multidirectional broadcasting (right-aligned), or
 * for opset < 7 with broadcast = 1 the legacy rule (B's dims start at `axis`). */
static int align_operand(const case_t *c, int k, int R, int *dim)
{
    const tensor_t *t = &c->in[k];
    int start = R - t->rank;
    if (c->opset < 7 && k == 1 && attr_num(c, "broadcast", 0.0) != 0.0 && attr_find(c, "axis"))
        start = (int)attr_num(c, "axis", 0.0);
    if (start < 0 || start + t->rank > R)
        return 0;
    for (int i = 0; i < R; i++)
        dim[i] = i >= start && i < start + t->rank ? t->dim[i - start] : 1;
    return 1;
}

static int op_tensor(run_t *r)
{
    const case_t *c = r->c;
    const char *op = c->op;
    const cudnnOpTensorOp_t top = !strcmp(op, "Add")   ? CUDNN_OP_TENSOR_ADD
                                  : !strcmp(op, "Mul") ? CUDNN_OP_TENSOR_MUL
                                  : !strcmp(op, "Min") ? CUDNN_OP_TENSOR_MIN
                                  : !strcmp(op, "Max") ? CUDNN_OP_TENSOR_MAX
                                                       : CUDNN_OP_TENSOR_SQRT;
    const char *names[] = {"ADD", "MUL", "MIN", "MAX", "SQRT"};
    const tensor_t *y = &c->out[0];
    int n = 0;
    for (int k = 0; k < c->n_in; k++) {
        if (!c->in[k].present)
            return fail(r, "input %d absent", k);
        if (strcmp(c->in[k].dtype, c->in[0].dtype))
            return skip(r, "input %d is %s, input 0 %s", k, c->in[k].dtype, c->in[0].dtype);
        n++;
    }
    if (n == 0 || (top == CUDNN_OP_TENSOR_SQRT && n != 1) ||
        ((top == CUDNN_OP_TENSOR_ADD || top == CUDNN_OP_TENSOR_MUL) && n != 2))
        return fail(r, "%s with %d inputs", op, n);
    if (c->opset < 7 && n == 2 && attr_num(c, "broadcast", 0.0) == 0.0 &&
        !same_shape(&c->in[0], &c->in[1]))
        return fail(r, "opset %d without broadcast needs equal shapes", c->opset);
    /* the broadcast result shape, at rank L >= 4 (leading 1s) */
    int R = 0;
    for (int k = 0; k < n; k++)
        R = c->in[k].rank > R ? c->in[k].rank : R;
    if (R > MAX_RANK)
        return skip(r, "rank %d (cuDNN tensors have at most %d dims)", R, MAX_RANK);
    const int L = R < 4 ? 4 : R;
    int od[MAX_T][MAX_RANK], res[MAX_RANK];
    for (int i = 0; i < L; i++)
        res[i] = 1;
    for (int k = 0; k < n; k++) {
        int a[MAX_RANK];
        if (!align_operand(c, k, R, a))
            return fail(r, "input %d cannot be aligned to rank %d", k, R);
        for (int i = 0; i < L; i++) {
            od[k][i] = i < L - R ? 1 : a[i - (L - R)];
            if (od[k][i] != 1 && res[i] != 1 && od[k][i] != res[i])
                return fail(r, "input %d does not broadcast (dim %d is %d, others %d)", k, i,
                            od[k][i], res[i]);
            res[i] = od[k][i] > res[i] ? od[k][i] : res[i];
        }
    }
    if (y->rank != R || y->n != prod(res, 0, L))
        return fail(r, "ONNX output shape differs from the broadcast of the inputs");
    for (int i = 0; i < R; i++)
        if (y->dim[i] != res[L - R + i])
            return fail(r, "ONNX output dim %d is %d, the broadcast gives %d", i, y->dim[i],
                        res[L - R + i]);
    int full[MAX_T];
    for (int k = 0; k < n; k++) {
        full[k] = 1;
        for (int i = 0; i < L; i++)
            full[k] &= od[k][i] == res[i];
    }
    /* cuDNN broadcasts B only: A must have C's dims; the ops are commutative, so swap */
    int first = 0, second = n > 1 ? 1 : 0;
    if (!full[0]) {
        if (n < 2 || !full[1])
            return skip(r, "no input has the output's shape (both broadcast): cudnnOpTensor "
                           "broadcasts B only");
        first = 1, second = 0;
    }
    cudnnTensorDescriptor_t cd, opd[MAX_T];
    TDESC(cd, r->dt, L, res);
    const void *ptr[MAX_T];
    for (int k = 0; k < n; k++) {
        TDESC(opd[k], r->dt, L, od[k]);
        ptr[k] = in_buf(r, r->dt, c->in[k].v, c->in[k].n);
    }
    const size_t bytes = (size_t)y->n * dt_size(r->dt);
    API(cudnnCreateOpTensorDescriptor(&r->opt));
    API(cudnnSetOpTensorDescriptor(r->opt, top, r->dt, CUDNN_PROPAGATE_NAN));
    /* Max / Min of n inputs: a chain of calls, each result in a fresh buffer */
    void *acc = out_buf(r, bytes);
    API(cudnnOpTensor(r->h, r->opt, one(r), cd, ptr[first], one(r), opd[second], ptr[second],
                      zero(r), cd, acc));
    for (int k = 2; k < n; k++) {
        void *next = out_buf(r, bytes);
        API(cudnnOpTensor(r->h, r->opt, one(r), cd, acc, one(r), opd[k], ptr[k], zero(r), cd,
                          next));
        acc = next;
    }
    take(r, 0, acc);
    char s[64];
    dims_text(s, sizeof s, L, res);
    how(r, "cudnnOpTensor %s on %s", names[top], s);
    if (n == 1 && top != CUDNN_OP_TENSOR_SQRT)
        how(r, " (B = A)");
    if (n > 2)
        how(r, ", %d calls", n - 1);
    if (first == 1)
        how(r, ", A and B swapped");
    for (int k = 0; k < n; k++)
        if (!full[k]) {
            char b[64];
            dims_text(b, sizeof b, L, od[k]);
            how(r, ", B broadcast from %s", b);
        }
    return 1;
}

/* ==== ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2 ============ */

static int op_reduce(run_t *r)
{
    const case_t *c = r->c;
    const tensor_t *x = &c->in[0], *y = &c->out[0];
    static const struct {
        const char *onnx, *name;
        cudnnReduceTensorOp_t op;
    } map[] = {
        {"ReduceSum", "ADD", CUDNN_REDUCE_TENSOR_ADD},
        {"ReduceMean", "AVG", CUDNN_REDUCE_TENSOR_AVG},
        {"ReduceMax", "MAX", CUDNN_REDUCE_TENSOR_MAX},
        {"ReduceMin", "MIN", CUDNN_REDUCE_TENSOR_MIN},
        {"ReduceProd", "MUL", CUDNN_REDUCE_TENSOR_MUL},
        {"ReduceL1", "NORM1", CUDNN_REDUCE_TENSOR_NORM1},
        {"ReduceL2", "NORM2", CUDNN_REDUCE_TENSOR_NORM2},
    };
    int m = 0;
    while (strcmp(map[m].onnx, c->op))
        m++;
    const int R = x->rank;
    if (R > MAX_RANK)
        return skip(r, "rank %d (cuDNN tensors have at most %d dims)", R, MAX_RANK);
    /* axes: the attribute (opset < 13, and < 18 but for ReduceSum), else input 1 */
    int reduced[MAX_RANK] = {0}, n_axes = 0;
    const attr_t *a = attr_find(c, "axes");
    const double *axv = a != NULL ? a->v : c->n_in > 1 && c->in[1].present ? c->in[1].v : NULL;
    n_axes = a != NULL ? a->n : c->n_in > 1 && c->in[1].present ? (int)c->in[1].n : 0;
    if (n_axes == 0 && attr_num(c, "noop_with_empty_axes", 0.0) != 0.0)
        return skip(r, "noop_with_empty_axes with no axes is the identity: cudnnReduceTensor "
                       "with C shaped like A (cuDNN 9 answers BAD_PARAM)");
    for (int i = 0; i < n_axes; i++) {
        int ax = (int)axv[i];
        ax += ax < 0 ? R : 0;
        if (ax < 0 || ax >= R)
            return fail(r, "axis %d outside rank %d", (int)axv[i], R);
        reduced[ax] = 1;
    }
    for (int i = 0; n_axes == 0 && i < R; i++)
        reduced[i] = 1; /* no axes: reduce all */
    const int keepdims = attr_num(c, "keepdims", 1.0) != 0.0;
    int want[MAX_RANK], nw = 0;
    for (int i = 0; i < R; i++)
        if (!reduced[i] || keepdims)
            want[nw++] = reduced[i] ? 1 : x->dim[i];
    if (!y->present || y->rank != nw)
        return fail(r, "ONNX output rank %d, the axes and keepdims give %d", y->rank, nw);
    for (int i = 0; i < nw; i++)
        if (y->dim[i] != want[i])
            return fail(r, "ONNX output dim %d is %d, the axes and keepdims give %d", i, y->dim[i],
                        want[i]);
    const int L = R < 4 ? 4 : R;
    int ad[MAX_RANK], cdim[MAX_RANK];
    for (int i = 0; i < L; i++) {
        const int j = i - (L - R);
        ad[i] = j < 0 ? 1 : x->dim[j];
        cdim[i] = j < 0 || reduced[j] ? 1 : x->dim[j];
    }
    cudnnTensorDescriptor_t xd, yd;
    TDESC(xd, r->dt, L, ad);
    TDESC(yd, r->dt, L, cdim);
    const void *xp = in_buf(r, r->dt, x->v, x->n);
    void *yp = out_buf(r, (size_t)y->n * dt_size(r->dt));
    API(cudnnCreateReduceTensorDescriptor(&r->red));
    API(cudnnSetReduceTensorDescriptor(r->red, map[m].op, r->dt, CUDNN_PROPAGATE_NAN,
                                       CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES));
    size_t ws_size = 0, idx_size = 0;
    API(cudnnGetReductionWorkspaceSize(r->h, r->red, xd, yd, &ws_size));
    API(cudnnGetReductionIndicesSize(r->h, r->red, xd, yd, &idx_size));
    void *ws = ws_size ? out_buf(r, ws_size) : NULL, *idx = idx_size ? out_buf(r, idx_size) : NULL;
    API(cudnnReduceTensor(r->h, r->red, idx, idx_size, ws, ws_size, one(r), xd, xp, zero(r), yd,
                          yp));
    take(r, 0, yp);
    char s1[64], s2[64];
    dims_text(s1, sizeof s1, L, ad);
    dims_text(s2, sizeof s2, L, cdim);
    how(r, "cudnnReduceTensor %s %s -> %s%s", map[m].name, s1, s2,
        keepdims ? "" : " (keepdims 0: same data)");
    return 1;
}

/* ==== the op table, one run, the main loop ================================================== */

typedef int (*op_fn_t)(run_t *r);
static const struct {
    const char *op;
    op_fn_t fn;
} OPS[] = {
    {"MaxPool", op_pool},
    {"AveragePool", op_pool},
    {"GlobalMaxPool", op_pool},
    {"GlobalAveragePool", op_pool},
    {"BatchNormalization", op_batchnorm},
    {"LRN", op_lrn},
    {"Relu", op_activation},
    {"Sigmoid", op_activation},
    {"Tanh", op_activation},
    {"Elu", op_activation},
    {"Clip", op_clip},
    {"Softmax", op_softmax},
    {"LogSoftmax", op_softmax},
    {"Dropout", op_dropout},
    {"Add", op_tensor},
    {"Mul", op_tensor},
    {"Min", op_tensor},
    {"Max", op_tensor},
    {"Sqrt", op_tensor},
    {"ReduceSum", op_reduce},
    {"ReduceMean", op_reduce},
    {"ReduceMax", op_reduce},
    {"ReduceMin", op_reduce},
    {"ReduceProd", op_reduce},
    {"ReduceL1", op_reduce},
    {"ReduceL2", op_reduce},
};
#define N_OPS ((int)(sizeof OPS / sizeof OPS[0]))

static void run_free(run_t *r)
{
    for (int i = 0; i < r->n_buf; i++) {
#if defined(FD_ONNX_WITH_CUDART)
        if (r->dev[i])
            cudaFree(r->dev[i]);
#endif
        fd_buf_free(&r->buf[i]);
    }
    for (int i = 0; i < r->n_td; i++)
        cudnnDestroyTensorDescriptor(r->td[i]);
    if (r->pool)
        cudnnDestroyPoolingDescriptor(r->pool);
    if (r->act)
        cudnnDestroyActivationDescriptor(r->act);
    if (r->lrn)
        cudnnDestroyLRNDescriptor(r->lrn);
    if (r->opt)
        cudnnDestroyOpTensorDescriptor(r->opt);
    if (r->red)
        cudnnDestroyReduceTensorDescriptor(r->red);
    if (r->drop)
        cudnnDestroyDropoutDescriptor(r->drop);
    for (int k = 0; k < MAX_T; k++)
        free(r->got[k]);
    memset(r, 0, sizeof *r);
}

/* |got - want| <= 1e-5 |want| + 1e-6 for every element; else describes the worst one.
 * *max_err: the largest |got - want|; *max_ratio: the largest |got - want| / tolerance. */
static int compare(const tensor_t *want, const double *got, double *max_err, double *max_ratio,
                   char *msg, size_t msg_size)
{
    int64_t bad = -1, n_bad = 0;
    for (int64_t i = 0; i < want->n; i++) {
        const double w = want->v[i], g = got[i];
        if (g == w || (isnan(g) && isnan(w)))
            continue;
        const double err = isnan(g - w) ? INFINITY : fabs(g - w), tol = 1e-5 * fabs(w) + 1e-6;
        *max_err = err > *max_err ? err : *max_err;
        if (bad < 0 || err / tol > *max_ratio) {
            *max_ratio = err / tol;
            if (err > tol)
                bad = i;
        }
        n_bad += err > tol;
    }
    if (bad < 0)
        return 1;
    snprintf(msg, msg_size,
             "%lld of %lld elements off, worst at flat index %lld: got %.9g want %.9g",
             (long long)n_bad, (long long)want->n, (long long)bad, got[bad], want->v[bad]);
    return 0;
}

/* Runs case c on handle h: 1 passed, 0 skipped, -1 failed; r->err says why, r->how how.
 * err[0]: the largest absolute error, err[1]: the largest error / tolerance. */
static int run_case(cudnnHandle_t h, const case_t *c, op_fn_t fn, run_t *r, double err[2])
{
    memset(r, 0, sizeof *r);
    r->h = h, r->c = c;
    freednnBackend_t be = FREEDNN_BACKEND_DEFAULT;
    freednnGetBackend(h, &be);
    r->device = be == FREEDNN_BACKEND_CUDA;
    err[0] = err[1] = 0.0;
    const char *dt = c->in[0].present ? c->in[0].dtype : "absent";
    if (strcmp(dt, "float32") && strcmp(dt, "float64"))
        return skip(r, "dtype %s (float32 and float64 are run)", dt);
    r->dt = strcmp(dt, "float64") ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE;
    if (c->n_out < 1 || !c->out[0].present || strcmp(c->out[0].dtype, dt))
        return skip(r, "output 0 is %s, input 0 %s", c->out[0].present ? c->out[0].dtype : "absent",
                    dt); /* the op functions check the other outputs */
    int ret = fn(r);
    download_all(r);
    for (int i = 0; ret >= 0 && i < r->n_buf; i++) {
        if (!fd_buf_guards_ok(&r->buf[i]))
            ret = fail(r, "buffer %d: a guard zone was overwritten", i);
        else if (r->is_input[i] && fd_buf_hash(&r->buf[i]) != r->hash[i])
            ret = fail(r, "input buffer %d was modified", i);
    }
    for (int k = 0; ret > 0 && k < c->n_out; k++) {
        char msg[512];
        if (r->got[k] == NULL)
            ret = fail(r, "output %d was not computed", k);
        else if (!compare(&c->out[k], r->got[k], &err[0], &err[1], msg, sizeof msg))
            ret = fail(r, "output %d: %s", k, msg);
    }
    return ret;
}

typedef struct {
    int cases, passed, failed, skipped;
} count_t;

/* Skip reasons for the summary; "dtype X (...)" reasons of one op share a line listing X. */
typedef struct {
    char op[32], reason[256], dtypes[256];
    int n;
} reason_t;

static int note_reason(reason_t *reasons, int n_reasons, int max, const char *op, const char *why)
{
    const int is_dtype = !strncmp(why, "dtype ", 6);
    char key[256], dtype[32] = "";
    if (is_dtype) {
        sscanf(why + 6, "%31s", dtype);
        snprintf(key, sizeof key, "dtype not float32 / float64:");
    } else {
        snprintf(key, sizeof key, "%.255s", why);
    }
    int i = 0;
    while (i < n_reasons && (strcmp(reasons[i].op, op) || strcmp(reasons[i].reason, key)))
        i++;
    if (i == max)
        return n_reasons;
    if (i == n_reasons) {
        memset(&reasons[i], 0, sizeof reasons[i]);
        snprintf(reasons[i].op, sizeof reasons[i].op, "%s", op);
        snprintf(reasons[i].reason, sizeof reasons[i].reason, "%s", key);
        n_reasons++;
    }
    reasons[i].n++;
    size_t len = strlen(reasons[i].dtypes);
    if (is_dtype && len + strlen(dtype) + 2 < sizeof reasons[i].dtypes)
        snprintf(reasons[i].dtypes + len, sizeof reasons[i].dtypes - len, " %s", dtype);
    return n_reasons;
}

static int write_result(const char *path, int passed, int failed, int skipped)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return 0;
    fprintf(f, "passed %d failed %d skipped %d\n", passed, failed, skipped);
    return fclose(f) == 0;
}

static int read_passed(const char *path, int *passed)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    int ok = fscanf(f, "passed %d", passed) == 1;
    fclose(f);
    return ok;
}

/* onnx/total: the ONNX conformance as a whole must pass at least `min` cases. */
static int total_main(const char *dir, int min)
{
    char path[4096];
    int conv = 0, ops = 0;
    snprintf(path, sizeof path, "%s/conv.result", dir);
    FD_EXPECT(read_passed(path, &conv), "%s missing: onnx/conv did not run to the end", path);
    snprintf(path, sizeof path, "%s/ops.result", dir);
    FD_EXPECT(read_passed(path, &ops), "%s missing: onnx/ops did not run to the end", path);
    printf("onnx total: %d conv + %d ops = %d ONNX cases passed (at least %d required)\n", conv,
           ops, conv + ops, min);
    FD_EXPECT(conv + ops >= min, "only %d ONNX cases passed, fewer than %d", conv + ops, min);
    return fd_test_finish();
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--total"))
        return total_main(argv[2], atoi(argv[3]));
    if (argc != 2) {
        fprintf(stderr,
                "usage: %s CASE_DIR | --total CASE_DIR MIN (CASE_DIR made by "
                "tests/onnx/convert.py)\n",
                argv[0]);
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/ops/index.txt", argv[1]);
    FILE *index = fopen(path, "r");
    if (index == NULL) {
        printf("FAIL: %s is missing: tests/onnx/convert.py did not run or failed; it needs %s\n",
               path, pkg_hint);
        return 1;
    }
    cudnnHandle_t ref = NULL, cpu = NULL;
    FD_EXPECT_STATUS(freednnCreateWithBackend(&ref, FREEDNN_BACKEND_REF), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(freednnCreateWithBackend(&cpu, FREEDNN_BACKEND_CPU), CUDNN_STATUS_SUCCESS);
    if (ref == NULL || cpu == NULL) {
        fclose(index);
        return 1;
    }
    /* The default handle is cuda where a GPU can run it: then every case runs there too. */
    cudnnHandle_t gpu = NULL;
    freednnBackend_t def_be = FREEDNN_BACKEND_DEFAULT;
    if (cudnnCreate(&gpu) == CUDNN_STATUS_SUCCESS && freednnGetBackend(gpu, &def_be) == CUDNN_STATUS_SUCCESS &&
        def_be != FREEDNN_BACKEND_CUDA) {
        cudnnDestroy(gpu);
        gpu = NULL;
    }
#if !defined(FD_ONNX_WITH_CUDART)
    FD_EXPECT(gpu == NULL, "the default handle is cuda but onnx_ops was built without the CUDA runtime");
    if (gpu) {
        cudnnDestroy(gpu);
        gpu = NULL;
    }
#endif
    if (gpu)
        printf("onnx ops: the default handle is cuda: every case also runs there\n");
    count_t count[N_OPS + 1] = {{0}}; /* + 1: unknown ops */
    static reason_t reasons[256];
    int n_reasons = 0, passed = 0, failed = 0, skipped = 0;
    char file[1024];
    while (fscanf(index, "%1023s", file) == 1) {
        snprintf(path, sizeof path, "%s/ops/%s", argv[1], file);
        case_t c;
        char err[4608];
        if (!case_read(path, &c, err, sizeof err)) {
            printf("FAILED  %s: %s\n", file, err);
            FD_EXPECT(0, "case file %s unreadable", file);
            failed++, count[N_OPS].cases++, count[N_OPS].failed++;
            continue;
        }
        int o = 0;
        while (o < N_OPS && strcmp(OPS[o].op, c.op))
            o++;
        count[o].cases++;
        static run_t rr, rc, rg; /* zeroed; run_free() leaves them zeroed */
        double err_ref[2] = {0.0, 0.0}, err_cpu[2] = {0.0, 0.0}, err_gpu[2] = {0.0, 0.0};
        int res;
        if (o == N_OPS) {
            snprintf(rr.err, sizeof rr.err, "op %s has no runner in onnx_ops.c", c.op);
            res = -1;
        } else {
            const int r1 = run_case(ref, &c, OPS[o].fn, &rr, err_ref);
            const int r2 = r1 == 0 ? 0 : run_case(cpu, &c, OPS[o].fn, &rc, err_cpu);
            if (r1 != 0 && r2 == 0)
                snprintf(rc.err + strlen(rc.err), sizeof rc.err - strlen(rc.err),
                         " (skipped on cpu only)");
            res = r1 == 0 ? 0 : r1 < 0 || r2 <= 0 ? -1 : 1;
            if (res == 1 && gpu) {
                const int r3 = run_case(gpu, &c, OPS[o].fn, &rg, err_gpu);
                if (r3 <= 0) {
                    snprintf(rc.err, sizeof rc.err, "cuda: %.900s%s", rg.err,
                             r3 == 0 ? " (skipped on cuda only)" : "");
                    res = -1;
                }
            }
        }
        if (res == 1) {
            printf("PASSED  %s %s [%s] ref: max err %.2g (%.2g of tol); cpu: max err %.2g "
                   "(%.2g of tol)",
                   c.op, c.name, rr.how, err_ref[0], err_ref[1], err_cpu[0], err_cpu[1]);
            if (gpu)
                printf("; cuda: max err %.2g (%.2g of tol)", err_gpu[0], err_gpu[1]);
            printf("\n");
            passed++, count[o].passed++;
        } else if (res == 0) {
            printf("SKIPPED %s %s: %s\n", c.op, c.name, rr.err);
            skipped++, count[o].skipped++;
            n_reasons = note_reason(reasons, n_reasons, 256, c.op, rr.err);
        } else {
            printf("FAILED  %s %s [%s] ref: %s; cpu: %s\n", c.op, c.name,
                   rr.how[0] ? rr.how : rc.how, rr.err[0] ? rr.err : "ok",
                   rc.err[0] ? rc.err : (o == N_OPS ? "not run" : "ok"));
            FD_EXPECT(0, "%s %s failed", c.op, c.name);
            failed++, count[o].failed++;
        }
        run_free(&rr);
        run_free(&rc);
        run_free(&rg);
        case_free(&c);
    }
    fclose(index);
    cudnnDestroy(ref);
    cudnnDestroy(cpu);
    if (gpu)
        cudnnDestroy(gpu);

    printf("\n%-20s %6s %7s %7s %8s\n", "op", "cases", "passed", "failed", "skipped");
    for (int o = 0; o <= N_OPS; o++)
        if (count[o].cases)
            printf("%-20s %6d %7d %7d %8d\n", o < N_OPS ? OPS[o].op : "(unknown op)",
                   count[o].cases, count[o].passed, count[o].failed, count[o].skipped);
    printf("%-20s %6d %7d %7d %8d\n", "total", passed + failed + skipped, passed, failed, skipped);
    if (n_reasons)
        printf("\nskip reasons:\n");
    for (int i = 0; i < n_reasons; i++)
        printf("  %-18s %3d x %s%s\n", reasons[i].op, reasons[i].n, reasons[i].reason,
               reasons[i].dtypes);
    printf("onnx ops: %d cases: %d passed, %d failed, %d skipped\n", passed + failed + skipped,
           passed, failed, skipped);
    snprintf(path, sizeof path, "%s/ops.result", argv[1]);
    FD_EXPECT(write_result(path, passed, failed, skipped), "cannot write %s", path);
    FD_EXPECT(passed > 0, "no ONNX case ran: the conformance test tested nothing");
    return fd_test_finish();
}
