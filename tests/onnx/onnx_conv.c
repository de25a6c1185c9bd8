/* SPDX-License-Identifier: MIT */
/*
 * onnx_conv.c - ONNX conformance for convolution (DESIGN D9: an oracle nobody here wrote).
 *
 * Reads the case files tests/onnx/convert.py makes from Debian's libonnx-testdata and runs each
 * through the public cuDNN API on a ref handle (heuristic algorithm) and on a cudnnCreate
 * default handle (every algorithm it accepts): Conv -> cudnnConvolutionForward, ConvTranspose
 * -> cudnnConvolutionBackwardData. Whatever cuDNN cannot say directly is done here, in plain
 * loops: bias, asymmetric Conv pads (explicit zero padding of x), ConvTranspose pads and
 * output_padding (crop / zero-extend the data gradient), 1-D (as 2-D with H = 1).
 * Float data on a cuda handle runs under CUDNN_FMA_MATH (fp32, not TF32).
 * Tolerance: 1e-5 relative + 1e-6 absolute. Usage: onnx_conv CASE_DIR (holding index.txt).
 */
/* Failure messages are cut to their buffers on purpose: a long path or reason may shorten. */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fd_test.h"

#if defined(FD_ONNX_WITH_CUDART)
#include <cuda_runtime_api.h>
#endif

#define MAXSP 3 /* spatial dims of a case */
#define LSP 3   /* spatial dims the library sees: 1-D becomes 2-D, padded up to 3 in arrays */

static const char *pkg_hint = "the Debian packages python3-onnx, python3-numpy and "
                              "libonnx-testdata (scripts/install-deps.sh installs them)";

typedef struct {
    int present, rank;
    int dim[8];
    int64_t n;
    double *v;
} tensor_t;

typedef struct {
    char name[512], op[32], dtype[16], auto_pad[32], skip[512];
    int nsp, group, has_output_shape;
    int kernel[MAXSP], stride[MAXSP], dil[MAXSP], pb[MAXSP], pe[MAXSP], outpad[MAXSP],
        outshape[MAXSP];
    tensor_t x, w, b, y;
} case_t;

/* One library call, in the library's terms: (N, C, sp...) tensors, filter (K, C/g, sp...). */
typedef struct {
    int fwd;                   /* 1: forward (x, w -> y); 0: backward data (dy, w -> dx) */
    int nsp;                   /* library spatial dims: 2 or 3 */
    int in[8], flt[8], out[8]; /* full dims: in is x (fwd) or dy (bwd); out is y or dx */
    int pad[LSP], stride[LSP], dil[LSP], groups;
    cudnnDataType_t dt;
    const double *in_v, *w_v; /* host data in (N, C, sp...) order of in[] / flt[] */
} call_t;

/* ---- case files ---- */

static void tensor_free(tensor_t *t)
{
    free(t->v);
    memset(t, 0, sizeof *t);
}

static void case_free(case_t *c)
{
    tensor_free(&c->x), tensor_free(&c->w), tensor_free(&c->b), tensor_free(&c->y);
}

static int read_ints(FILE *f, int n, int *out)
{
    for (int i = 0; i < n; i++)
        if (fscanf(f, "%d", &out[i]) != 1)
            return 0;
    return 1;
}

/* Returns 1 on success; on failure writes the reason to err. */
static int case_read(const char *path, case_t *c, char *err, size_t err_size)
{
    memset(c, 0, sizeof *c);
    strcpy(c->auto_pad, "NOTSET");
    c->group = 1;
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, err_size, "cannot open %s", path);
        return 0;
    }
    char key[64];
    int ok = 0, version = 0;
    if (fscanf(f, "%63s %d", key, &version) != 2 || strcmp(key, "freednn-onnx-case") ||
        version != 1) {
        snprintf(err, err_size, "%s is not a version 1 case file", path);
        goto done;
    }
    while (fscanf(f, "%63s", key) == 1) {
        int r = 1;
        if (!strcmp(key, "end")) {
            ok = 1;
            break;
        } else if (!strcmp(key, "name")) {
            r = fscanf(f, " %511[^\n]", c->name) == 1;
        } else if (!strcmp(key, "skip")) {
            r = fscanf(f, " %511[^\n]", c->skip) == 1;
        } else if (!strcmp(key, "op")) {
            r = fscanf(f, "%31s", c->op) == 1;
        } else if (!strcmp(key, "dtype")) {
            r = fscanf(f, "%15s", c->dtype) == 1;
        } else if (!strcmp(key, "auto_pad")) {
            r = fscanf(f, "%31s", c->auto_pad) == 1;
        } else if (!strcmp(key, "spatial")) {
            r = fscanf(f, "%d", &c->nsp) == 1 && c->nsp >= 1 && c->nsp <= MAXSP;
        } else if (!strcmp(key, "group")) {
            r = fscanf(f, "%d", &c->group) == 1;
        } else if (!strcmp(key, "kernel_shape")) {
            r = read_ints(f, c->nsp, c->kernel);
        } else if (!strcmp(key, "strides")) {
            r = read_ints(f, c->nsp, c->stride);
        } else if (!strcmp(key, "dilations")) {
            r = read_ints(f, c->nsp, c->dil);
        } else if (!strcmp(key, "pads_begin")) {
            r = read_ints(f, c->nsp, c->pb);
        } else if (!strcmp(key, "pads_end")) {
            r = read_ints(f, c->nsp, c->pe);
        } else if (!strcmp(key, "output_padding")) {
            r = read_ints(f, c->nsp, c->outpad);
        } else if (!strcmp(key, "output_shape")) {
            char tok[32];
            r = fscanf(f, "%31s", tok) == 1;
            if (r && strcmp(tok, "-")) {
                c->has_output_shape = 1;
                c->outshape[0] = atoi(tok);
                r = read_ints(f, c->nsp - 1, c->outshape + 1);
            }
        } else if (!strcmp(key, "tensor")) {
            char tag[8];
            tensor_t t = {0};
            r = fscanf(f, "%7s %d", tag, &t.rank) == 2 && t.rank >= 1 && t.rank <= 8;
            t.n = 1;
            for (int i = 0; r && i < t.rank; i++) {
                r = fscanf(f, "%d", &t.dim[i]) == 1 && t.dim[i] > 0;
                t.n *= r ? t.dim[i] : 1;
            }
            if (r) {
                t.present = 1;
                t.v = malloc(sizeof(double) * (size_t)t.n);
                for (int64_t i = 0; r && i < t.n; i++)
                    r = fscanf(f, "%lf", &t.v[i]) == 1;
            }
            tensor_t *slot = !strcmp(tag, "X")   ? &c->x
                             : !strcmp(tag, "W") ? &c->w
                             : !strcmp(tag, "B") ? &c->b
                             : !strcmp(tag, "Y") ? &c->y
                                                 : NULL;
            if (slot == NULL || slot->present) {
                tensor_free(&t);
                r = 0;
            } else {
                *slot = t;
            }
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

/* ---- running one call on one handle ---- */

static size_t dt_size(cudnnDataType_t dt)
{
    return dt == CUDNN_DATA_DOUBLE ? 8 : 4;
}

static int64_t count(const int *dim, int rank)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= dim[i];
    return n;
}

static void packed_strides(const int *dim, int rank, int *stride)
{
    stride[rank - 1] = 1;
    for (int i = rank - 2; i >= 0; i--)
        stride[i] = stride[i + 1] * dim[i + 1];
}

static fd_buf_t host_buf(cudnnDataType_t dt, const double *v, int64_t n)
{
    fd_buf_t b = fd_buf_alloc((size_t)n * dt_size(dt));
    for (int64_t i = 0; i < n; i++)
        fd_test_store(dt, b.data, i, v[i]);
    return b;
}

typedef struct {
    int algos_run, algos_unsupported;
    char err[768]; /* first problem, empty when none */
} run_result_t;

#define RUN_FAIL(res, ...)                                                                         \
    do {                                                                                           \
        if ((res)->err[0] == '\0')                                                                 \
            snprintf((res)->err, sizeof(res)->err, __VA_ARGS__);                                   \
    } while (0)

static const char *last_error(void)
{
    static char buf[512];
    cudnnGetLastErrorString(buf, sizeof buf);
    return buf;
}

/* Moves data between the host and where the handle's backend wants it. Host backends use the
 * guarded host buffers directly; the cuda backend gets device copies. */
typedef struct {
    int device;
    fd_buf_t host;
    void *dev;
} mem_t;

static int mem_init(mem_t *m, int device, fd_buf_t host, run_result_t *res)
{
    m->device = device, m->host = host, m->dev = NULL;
    if (!device)
        return 1;
#if defined(FD_ONNX_WITH_CUDART)
    if (cudaMalloc(&m->dev, host.size ? host.size : 1) != cudaSuccess ||
        cudaMemcpy(m->dev, host.data, host.size, cudaMemcpyHostToDevice) != cudaSuccess) {
        RUN_FAIL(res, "cudaMalloc/cudaMemcpy of %zu bytes failed", host.size);
        return 0;
    }
    return 1;
#else
    RUN_FAIL(res, "the default handle is cuda but this test was built without the CUDA runtime");
    return 0;
#endif
}

static void *mem_ptr(mem_t *m)
{
    return m->device ? m->dev : m->host.data;
}

static int mem_to_host(mem_t *m)
{
    (void)m;
#if defined(FD_ONNX_WITH_CUDART)
    if (m->device)
        return cudaMemcpy(m->host.data, m->dev, m->host.size, cudaMemcpyDeviceToHost) ==
               cudaSuccess;
#endif
    return 1;
}

static void mem_poison(mem_t *m)
{
    fd_buf_poison(&m->host);
#if defined(FD_ONNX_WITH_CUDART)
    if (m->device)
        cudaMemset(m->dev, 0xFF, m->host.size);
#endif
}

static void mem_free(mem_t *m)
{
#if defined(FD_ONNX_WITH_CUDART)
    if (m->dev)
        cudaFree(m->dev);
#endif
    m->dev = NULL;
    fd_buf_free(&m->host);
}

/* Runs `call` with algorithm `algo` (or, when algo < 0, the first SUCCESS of the v7 heuristic)
 * and stores the result in out_v (count(call->out) doubles). Returns 1 when an algorithm ran,
 * 0 when it was NOT_SUPPORTED (counted), -1 on a failure (res->err says what). */
static int run_algo(cudnnHandle_t h, int device, const call_t *call, int algo, double *out_v,
                    run_result_t *res, int *algo_used)
{
    const int rank = call->nsp + 2;
    int in_s[8], out_s[8];
    packed_strides(call->in, rank, in_s);
    packed_strides(call->out, rank, out_s);
    cudnnTensorDescriptor_t in_d = NULL, out_d = NULL;
    cudnnFilterDescriptor_t w_d = NULL;
    cudnnConvolutionDescriptor_t c_d = NULL;
    mem_t in_m = {0}, w_m = {0}, out_m = {0}, ws_m = {0};
    int ret = -1;
    cudnnStatus_t st;
#define API(expr)                                                                                  \
    do {                                                                                           \
        cudnnStatus_t s_ = (expr);                                                                 \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                          \
            RUN_FAIL(res, "%s: %s (%s)", #expr, cudnnGetErrorString(s_), last_error());            \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)
    API(cudnnCreateTensorDescriptor(&in_d));
    API(cudnnCreateTensorDescriptor(&out_d));
    API(cudnnCreateFilterDescriptor(&w_d));
    API(cudnnCreateConvolutionDescriptor(&c_d));
    API(cudnnSetTensorNdDescriptor(in_d, call->dt, rank, call->in, in_s));
    API(cudnnSetTensorNdDescriptor(out_d, call->dt, rank, call->out, out_s));
    API(cudnnSetFilterNdDescriptor(w_d, call->dt, CUDNN_TENSOR_NCHW, rank, call->flt));
    API(cudnnSetConvolutionNdDescriptor(c_d, call->nsp, call->pad, call->stride, call->dil,
                                        CUDNN_CROSS_CORRELATION, call->dt));
    API(cudnnSetConvolutionGroupCount(c_d, call->groups));
    /* ONNX's float Conv is an fp32 result: a runtime that wants it asks for FMA math, since
     * DEFAULT math lets a GPU of compute capability 8.0+ round the inputs to TF32, as NVIDIA's
     * library does (tests/gpu/test_gpu_conv_tf32.c checks that mode against its own bound). */
    if (device && call->dt == CUDNN_DATA_FLOAT)
        API(cudnnSetConvolutionMathType(c_d, CUDNN_FMA_MATH));
    if (call->fwd) {
        int want[8];
        API(cudnnGetConvolutionNdForwardOutputDim(c_d, in_d, w_d, rank, want));
        for (int i = 0; i < rank; i++)
            if (want[i] != call->out[i]) {
                RUN_FAIL(res, "cudnnGetConvolutionNdForwardOutputDim dim %d is %d, ONNX says %d", i,
                         want[i], call->out[i]);
                goto cleanup;
            }
    }

    if (algo < 0) { /* the heuristic's first choice that it says works */
        int n = 0;
        if (call->fwd) {
            cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
            API(cudnnGetConvolutionForwardAlgorithm_v7(h, in_d, w_d, c_d, out_d,
                                                       CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf));
            for (int i = 0; i < n && algo < 0; i++)
                if (perf[i].status == CUDNN_STATUS_SUCCESS)
                    algo = (int)perf[i].algo;
        } else {
            cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
            API(cudnnGetConvolutionBackwardDataAlgorithm_v7(
                h, w_d, in_d, c_d, out_d, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, perf));
            for (int i = 0; i < n && algo < 0; i++)
                if (perf[i].status == CUDNN_STATUS_SUCCESS)
                    algo = (int)perf[i].algo;
        }
        if (algo < 0) {
            RUN_FAIL(res, "the v7 heuristic returned no algorithm with status SUCCESS (%d results)",
                     n);
            goto cleanup;
        }
    }

    *algo_used = algo;
    size_t ws = 0;
    st = call->fwd ? cudnnGetConvolutionForwardWorkspaceSize(h, in_d, w_d, c_d, out_d,
                                                             (cudnnConvolutionFwdAlgo_t)algo, &ws)
                   : cudnnGetConvolutionBackwardDataWorkspaceSize(
                         h, w_d, in_d, c_d, out_d, (cudnnConvolutionBwdDataAlgo_t)algo, &ws);
    if (st == CUDNN_STATUS_NOT_SUPPORTED) {
        res->algos_unsupported++;
        ret = 0;
        goto cleanup;
    }
    API(st);

    const int64_t n_in = count(call->in, rank), n_w = count(call->flt, rank),
                  n_out = count(call->out, rank);
    if (!mem_init(&in_m, device, host_buf(call->dt, call->in_v, n_in), res) ||
        !mem_init(&w_m, device, host_buf(call->dt, call->w_v, n_w), res) ||
        !mem_init(&out_m, device, fd_buf_alloc((size_t)n_out * dt_size(call->dt)), res) ||
        !mem_init(&ws_m, device, fd_buf_alloc(ws), res))
        goto cleanup;
    const uint64_t in_hash = fd_buf_hash(&in_m.host), w_hash = fd_buf_hash(&w_m.host);
    mem_poison(&out_m); /* beta = 0 must not read y */
    const double one_d = 1.0, zero_d = 0.0;
    const float one_f = 1.0f, zero_f = 0.0f;
    const void *one = call->dt == CUDNN_DATA_DOUBLE ? (const void *)&one_d : (const void *)&one_f;
    const void *zero =
        call->dt == CUDNN_DATA_DOUBLE ? (const void *)&zero_d : (const void *)&zero_f;
    void *ws_p = ws ? mem_ptr(&ws_m) : NULL;
    st = call->fwd ? cudnnConvolutionForward(h, one, in_d, mem_ptr(&in_m), w_d, mem_ptr(&w_m), c_d,
                                             (cudnnConvolutionFwdAlgo_t)algo, ws_p, ws, zero, out_d,
                                             mem_ptr(&out_m))
                   : cudnnConvolutionBackwardData(h, one, w_d, mem_ptr(&w_m), in_d, mem_ptr(&in_m),
                                                  c_d, (cudnnConvolutionBwdDataAlgo_t)algo, ws_p,
                                                  ws, zero, out_d, mem_ptr(&out_m));
    if (st == CUDNN_STATUS_NOT_SUPPORTED) {
        res->algos_unsupported++;
        ret = 0;
        goto cleanup;
    }
    if (st != CUDNN_STATUS_SUCCESS) {
        RUN_FAIL(res, "algo %d: %s (%s)", algo, cudnnGetErrorString(st), last_error());
        goto cleanup;
    }
    if (!mem_to_host(&out_m)) {
        RUN_FAIL(res, "algo %d: copying the output back failed", algo);
        goto cleanup;
    }
    if (!fd_buf_guards_ok(&in_m.host) || !fd_buf_guards_ok(&w_m.host) ||
        !fd_buf_guards_ok(&out_m.host) || !fd_buf_guards_ok(&ws_m.host)) {
        RUN_FAIL(res, "algo %d wrote outside a buffer (a guard zone changed)", algo);
        goto cleanup;
    }
    if (fd_buf_hash(&in_m.host) != in_hash || fd_buf_hash(&w_m.host) != w_hash) {
        RUN_FAIL(res, "algo %d changed an input", algo);
        goto cleanup;
    }
    for (int64_t i = 0; i < n_out; i++)
        out_v[i] = fd_test_load(call->dt, out_m.host.data, i);
    res->algos_run++;
    ret = 1;
cleanup:
#undef API
    mem_free(&in_m), mem_free(&w_m), mem_free(&out_m), mem_free(&ws_m);
    cudnnDestroyTensorDescriptor(in_d);
    cudnnDestroyTensorDescriptor(out_d);
    cudnnDestroyFilterDescriptor(w_d);
    cudnnDestroyConvolutionDescriptor(c_d);
    return ret;
}

/* ---- ONNX -> cuDNN ---- */

static int floordiv(int a, int b)
{
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* What the case computes, decided once per case: the call, and how to turn its output into
 * ONNX's Y (a window of the call's output per spatial axis, zero outside). */
typedef struct {
    call_t call;
    double *x_pad;     /* Conv with asymmetric pads: x explicitly zero-padded */
    int offset[MAXSP]; /* Y index i reads call output index i + offset (ConvTranspose) */
    int y_dim[2 + MAXSP];
    char how[256]; /* the mapping, for the report */
} plan_t;

static void plan_free(plan_t *p)
{
    free(p->x_pad);
    p->x_pad = NULL;
}

/* Library dims from ONNX dims: 1-D becomes 2-D with a unit H axis. */
static void lib_dims(int nsp, const int *onnx_dim, int *lib, int unit)
{
    lib[0] = onnx_dim[0], lib[1] = onnx_dim[1];
    if (nsp == 1) {
        lib[2] = unit, lib[3] = onnx_dim[2];
    } else {
        for (int i = 0; i < nsp; i++)
            lib[2 + i] = onnx_dim[2 + i];
    }
}

static void lib_params(int nsp, const int *v, int unit, int *lib)
{
    if (nsp == 1) {
        lib[0] = unit, lib[1] = v[0];
    } else {
        for (int i = 0; i < nsp; i++)
            lib[i] = v[i];
    }
}

/* Appends `text` and then v as "AxBxC" (nothing when nsp is 0) to the mapping description. */
static void append(char *buf, size_t size, const char *text, int nsp, const int *v)
{
    size_t len = strlen(buf);
    snprintf(buf + len, size - len, "%s", text);
    for (int i = 0; i < nsp; i++) {
        len = strlen(buf);
        snprintf(buf + len, size - len, i ? "x%d" : "%d", v[i]);
    }
}

/* Returns 1 with a plan, 0 to skip (reason in why), -1 for an inconsistent case (why). */
static int plan_case(const case_t *c, plan_t *p, char *why, size_t why_size)
{
    memset(p, 0, sizeof *p);
    const int nsp = c->nsp, conv = !strcmp(c->op, "Conv");
    if (!conv && strcmp(c->op, "ConvTranspose")) {
        snprintf(why, why_size, "op %s is neither Conv nor ConvTranspose", c->op);
        return -1;
    }
    if (strcmp(c->dtype, "float32") && strcmp(c->dtype, "float64")) {
        snprintf(why, why_size, "dtype %s", c->dtype);
        return 0;
    }
    if (!c->x.present || !c->w.present || !c->y.present || c->x.rank != nsp + 2 ||
        c->w.rank != nsp + 2 || c->y.rank != nsp + 2) {
        snprintf(why, why_size, "X, W, Y missing or not of rank %d", nsp + 2);
        return -1;
    }
    const int *xd = c->x.dim, *wd = c->w.dim, g = c->group;
    for (int i = 0; i < nsp; i++)
        if (c->kernel[i] != wd[2 + i]) {
            snprintf(why, why_size, "kernel_shape[%d] = %d but W has %d", i, c->kernel[i],
                     wd[2 + i]);
            return -1;
        }
    const int out_ch = conv ? wd[0] : wd[1] * g;
    if (c->b.present && (c->b.rank != 1 || c->b.dim[0] != out_ch)) {
        snprintf(why, why_size, "B has %d elements, expected %d", c->b.dim[0], out_ch);
        return -1;
    }
    const int same_upper = !strcmp(c->auto_pad, "SAME_UPPER"),
              same_lower = !strcmp(c->auto_pad, "SAME_LOWER");
    const int valid = !strcmp(c->auto_pad, "VALID");
    if (!same_upper && !same_lower && !valid && strcmp(c->auto_pad, "NOTSET")) {
        snprintf(why, why_size, "auto_pad %s is not an ONNX value", c->auto_pad);
        return -1;
    }
    int pb[MAXSP], pe[MAXSP], span[MAXSP];
    p->y_dim[0] = xd[0], p->y_dim[1] = out_ch;
    call_t *k = &p->call;
    k->dt = strcmp(c->dtype, "float64") ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE;
    k->groups = g;
    k->nsp = nsp == 1 ? 2 : nsp;
    k->fwd = conv;
    lib_dims(nsp, wd, k->flt, 1);
    lib_params(nsp, c->stride, 1, k->stride);
    lib_params(nsp, c->dil, 1, k->dil);
    snprintf(p->how, sizeof p->how, "%s", conv ? "fwd" : "bwd_data");

    for (int i = 0; i < nsp; i++) {
        span[i] = (wd[2 + i] - 1) * c->dil[i] + 1;
        pb[i] = c->pb[i], pe[i] = c->pe[i];
    }
    if (conv) {
        /* ONNX Conv, auto_pad SAME_*: out = ceil(in / stride), total padding
         * max(0, (out - 1) * stride + dilated kernel - in), the odd one at the end (UPPER) or at
         * the beginning (LOWER). VALID: no padding. */
        for (int i = 0; i < nsp; i++) {
            int in = xd[2 + i], s = c->stride[i];
            if (same_upper || same_lower) {
                int out = (in + s - 1) / s, total = (out - 1) * s + span[i] - in;
                total = total < 0 ? 0 : total;
                pb[i] = same_upper ? total / 2 : total - total / 2;
                pe[i] = total - pb[i];
            } else if (valid) {
                pb[i] = pe[i] = 0;
            }
            int out = (in + pb[i] + pe[i] - span[i]) / s + 1;
            p->y_dim[2 + i] = out;
        }
        /* cuDNN pads symmetrically: it takes min(begin, end); the rest is zeros added to x. */
        int sym[MAXSP], xpd[2 + MAXSP], asym = 0;
        xpd[0] = xd[0], xpd[1] = xd[1];
        for (int i = 0; i < nsp; i++) {
            sym[i] = pb[i] < pe[i] ? pb[i] : pe[i];
            xpd[2 + i] = xd[2 + i] + pb[i] + pe[i] - 2 * sym[i];
            asym |= pb[i] != pe[i];
        }
        lib_dims(nsp, xpd, k->in, 1);
        lib_params(nsp, sym, 0, k->pad);
        lib_dims(nsp, p->y_dim, k->out, 1);
        k->in_v = c->x.v;
        if (asym) {
            int64_t n = count(xpd, nsp + 2);
            p->x_pad = calloc((size_t)n, sizeof(double));
            int ps[2 + MAXSP];
            packed_strides(xpd, nsp + 2, ps);
            for (int64_t e = 0; e < c->x.n; e++) {
                int64_t rest = e, off = 0;
                for (int d = nsp + 1; d >= 0; d--) {
                    int idx = (int)(rest % xd[d]);
                    rest /= xd[d];
                    off += (int64_t)(idx + (d >= 2 ? pb[d - 2] - sym[d - 2] : 0)) * ps[d];
                }
                p->x_pad[off] = c->x.v[e];
            }
            k->in_v = p->x_pad;
            int extra_b[MAXSP], extra_e[MAXSP];
            for (int i = 0; i < nsp; i++)
                extra_b[i] = pb[i] - sym[i], extra_e[i] = pe[i] - sym[i];
            append(p->how, sizeof p->how, ", x zero-padded by ", nsp, extra_b);
            append(p->how, sizeof p->how, " (begin), ", nsp, extra_e);
            append(p->how, sizeof p->how, " (end)", 0, NULL);
        }
        append(p->how, sizeof p->how, ", pad ", nsp, sym);
    } else {
        /* ONNX ConvTranspose: output_shape (or, for SAME_*, in * stride) fixes the total padding
         * stride * (in - 1) + output_padding + dilated kernel - output_shape, split with the odd
         * one at the end for SAME_UPPER, else at the beginning, halved by Python's floor division as
         * in ONNX's generator of the data (an output_shape larger than the full result, a
         * negative total, then gets its extra zeros at the end unless SAME_UPPER).
         * Otherwise out = stride * (in - 1) + output_padding + dilated kernel - begin - end. */
        for (int i = 0; i < nsp; i++) {
            int in = xd[2 + i], s = c->stride[i];
            int os = c->has_output_shape          ? c->outshape[i]
                     : (same_upper || same_lower) ? in * s
                                                  : -1;
            if (os >= 0) {
                int total = s * (in - 1) + c->outpad[i] + span[i] - os;
                if (same_upper) {
                    pb[i] = floordiv(total, 2), pe[i] = total - floordiv(total, 2);
                } else {
                    pb[i] = total - floordiv(total, 2), pe[i] = floordiv(total, 2);
                }
            } else if (valid) {
                pb[i] = pe[i] = 0;
            }
            p->y_dim[2 + i] = s * (in - 1) + c->outpad[i] + span[i] - pb[i] - pe[i];
        }
        /* Y[i] = U[i + begin] where U is the full transposed convolution (no padding; zero
         * outside [0, stride * (in - 1) + dilated kernel)). Backward data with pad p and dx length
         * D gives dx[j] = U[j + p], D within [Dmin, Dmin + stride - 1], Dmin = stride * (in - 1) +
         * dilated kernel - 2p. Take p = min(begin, end) when that covers every Y position that
         * can be non-zero, else p = 0 (which always does). */
        int pad[MAXSP], dxd[2 + MAXSP];
        dxd[0] = xd[0], dxd[1] = out_ch;
        for (int i = 0; i < nsp; i++) {
            int in = xd[2 + i], s = c->stride[i], full = s * (in - 1) + span[i];
            int out = p->y_dim[2 + i];
            int lo = pb[i] < pe[i] ? pb[i] : pe[i];
            for (int cand = lo < 0 ? 0 : lo;; cand = 0) {
                int dmin = full - 2 * cand, dmax = dmin + s - 1;
                int need = out + pb[i] - cand; /* dx positions Y reads: [pb - cand, need) */
                int d = need < dmin ? dmin : need > dmax ? dmax : need;
                /* positions past d that Y reads must be unreachable (zero) in U */
                if (dmin >= 1 && (need <= d || d + cand >= full)) {
                    pad[i] = cand, dxd[2 + i] = d, p->offset[i] = pb[i] - cand;
                    break;
                }
                if (cand == 0) { /* cannot happen: p = 0 always covers U */
                    snprintf(why, why_size, "no backward-data shape for axis %d", i);
                    return 0;
                }
            }
        }
        lib_dims(nsp, xd, k->in, 1);
        lib_dims(nsp, dxd, k->out, 1);
        lib_params(nsp, pad, 0, k->pad);
        k->in_v = c->x.v;
        append(p->how, sizeof p->how, ", pad ", nsp, pad);
        append(p->how, sizeof p->how, ", dx ", nsp, dxd + 2);
        int crop = 0;
        for (int i = 0; i < nsp; i++)
            crop |= p->offset[i] != 0 || dxd[2 + i] != p->y_dim[2 + i];
        if (crop)
            append(p->how, sizeof p->how, ", Y = dx window at ", nsp, p->offset);
    }
    k->w_v = c->w.v;
    for (int i = 0; i < nsp + 2; i++)
        if (p->y_dim[i] != c->y.dim[i]) {
            snprintf(why, why_size, "Y dim %d: ONNX's shape rule gives %d, the data has %d", i,
                     p->y_dim[i], c->y.dim[i]);
            return -1;
        }
    if (g > 1)
        snprintf(p->how + strlen(p->how), sizeof p->how - strlen(p->how), ", %d groups", g);
    if (c->b.present)
        snprintf(p->how + strlen(p->how), sizeof p->how - strlen(p->how), ", + bias");
    if (nsp == 1)
        snprintf(p->how + strlen(p->how), sizeof p->how - strlen(p->how), ", 1-D as 2-D");
    return 1;
}

/* ONNX's Y from the call's output: the window at p->offset, zero outside, plus bias. */
static void onnx_output(const case_t *c, const plan_t *p, const double *lib_out, double *y)
{
    const int nsp = c->nsp, rank = nsp + 2;
    int lo[2 + MAXSP]; /* call output dims in ONNX rank (drop the unit H of 1-D) */
    lo[0] = p->call.out[0], lo[1] = p->call.out[1];
    for (int i = 0; i < nsp; i++)
        lo[2 + i] = p->call.out[2 + (nsp == 1 ? 1 : i)];
    int ls[2 + MAXSP];
    packed_strides(lo, rank, ls);
    for (int64_t e = 0; e < c->y.n; e++) {
        int64_t rest = e, off = 0;
        int inside = 1, ch = 0;
        for (int d = rank - 1; d >= 0; d--) {
            int idx = (int)(rest % p->y_dim[d]);
            rest /= p->y_dim[d];
            if (d == 1)
                ch = idx;
            if (d >= 2)
                idx += p->offset[d - 2];
            inside &= idx >= 0 && idx < lo[d];
            off += (int64_t)idx * ls[d];
        }
        y[e] = (inside ? lib_out[off] : 0.0) + (c->b.present ? c->b.v[ch] : 0.0);
    }
}

/* Compares with ONNX's Y; returns 1 when within tolerance, else describes the worst element. */
static int compare(const case_t *c, const double *got, char *msg, size_t msg_size, double *max_err)
{
    int64_t bad = -1, n_bad = 0;
    double worst = 0.0;
    *max_err = 0.0;
    for (int64_t i = 0; i < c->y.n; i++) {
        double want = c->y.v[i], err = fabs(got[i] - want), tol = 1e-5 * fabs(want) + 1e-6;
        if (err > *max_err || isnan(err))
            *max_err = isnan(err) ? INFINITY : err;
        if (!(err <= tol)) {
            n_bad++;
            if (bad < 0 || isnan(err) || err / tol > worst)
                bad = i, worst = isnan(err) ? INFINITY : err / tol;
        }
    }
    if (bad < 0)
        return 1;
    snprintf(msg, msg_size,
             "%lld of %lld elements off, worst at flat index %lld: got %.9g want %.9g",
             (long long)n_bad, (long long)c->y.n, (long long)bad, got[bad], c->y.v[bad]);
    return 0;
}

/* Runs the plan on one handle: the heuristic's algorithm (all_algos = 0) or every algorithm. */
static int run_handle(cudnnHandle_t h, const char *label, int all_algos, const case_t *c,
                      const plan_t *p, char *line, size_t line_size)
{
    freednnBackend_t be = FREEDNN_BACKEND_DEFAULT;
    freednnGetBackend(h, &be);
    const int device = be == FREEDNN_BACKEND_CUDA;
    const int64_t n_out = count(p->call.out, p->call.nsp + 2);
    double *lib_out = malloc(sizeof(double) * (size_t)n_out),
           *y = malloc(sizeof(double) * (size_t)c->y.n);
    run_result_t res = {0};
    int ok = 1, n_algos = p->call.fwd ? CUDNN_CONVOLUTION_FWD_ALGO_COUNT
                                      : CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
    double worst = 0.0;
    char msg[4608] = "";
    for (int a = all_algos ? 0 : -1; a < (all_algos ? n_algos : 0); a++) {
        int used = a;
        int r = run_algo(h, device, &p->call, a, lib_out, &res, &used);
        if (r < 0) {
            ok = 0;
            break;
        }
        if (r == 0)
            continue;
        onnx_output(c, p, lib_out, y);
        double err;
        if (!compare(c, y, msg, sizeof msg, &err)) {
            RUN_FAIL(&res, "algo %d: %s", used, msg);
            ok = 0;
        }
        worst = err > worst ? err : worst;
    }
    if (ok && res.algos_run == 0) {
        RUN_FAIL(&res, "every algorithm returned NOT_SUPPORTED");
        ok = 0;
    }
    size_t len = strlen(line);
    if (ok)
        snprintf(line + len, line_size - len, " %s=%s: %d algo%s ok, max err %.2g%s;", label,
                 freednnGetBackendName(be), res.algos_run, res.algos_run == 1 ? "" : "s", worst,
                 res.algos_unsupported ? " (others NOT_SUPPORTED)" : "");
    else
        snprintf(line + len, line_size - len, " %s=%s: %s;", label, freednnGetBackendName(be),
                 res.err);
    free(lib_out);
    free(y);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CASE_DIR (made by tests/onnx/convert.py)\n", argv[0]);
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/index.txt", argv[1]);
    FILE *index = fopen(path, "r");
    if (index == NULL) {
        printf("FAIL: %s is missing: tests/onnx/convert.py did not run or failed; it needs %s\n",
               path, pkg_hint);
        return 1;
    }
    cudnnHandle_t ref = NULL, def = NULL;
    FD_EXPECT_STATUS(freednnCreateWithBackend(&ref, FREEDNN_BACKEND_REF), CUDNN_STATUS_SUCCESS);
    FD_EXPECT_STATUS(cudnnCreate(&def), CUDNN_STATUS_SUCCESS);
    if (ref == NULL || def == NULL) {
        fclose(index);
        return fd_test_finish() ? 1 : 1;
    }

    int n_cases = 0, passed = 0, failed = 0, skipped = 0;
    char file[1024];
    while (fscanf(index, "%1023s", file) == 1) {
        snprintf(path, sizeof path, "%s/%s", argv[1], file);
        case_t c;
        plan_t p;
        char why[4608] = "", line[2048] = "";
        n_cases++;
        if (!case_read(path, &c, why, sizeof why)) {
            printf("FAILED  %s: %s\n", file, why);
            FD_EXPECT(0, "case file %s unreadable", file);
            failed++;
            continue;
        }
        int r = c.skip[0] ? 0 : plan_case(&c, &p, why, sizeof why);
        if (r <= 0) {
            printf("%s %s %s: %s\n", r == 0 ? "SKIPPED" : "FAILED ", c.op, c.name,
                   c.skip[0] ? c.skip : why);
            FD_EXPECT(r == 0, "%s: %s", c.name, why);
            r == 0 ? skipped++ : failed++;
            case_free(&c);
            continue;
        }
        int ok = run_handle(ref, "ref handle", 0, &c, &p, line, sizeof line);
        ok &= run_handle(def, "default handle", 1, &c, &p, line, sizeof line);
        line[strlen(line) - 1] = '\0';
        printf("%s %s %s [%s]%s\n", ok ? "PASSED " : "FAILED ", c.op, c.name, p.how, line);
        FD_EXPECT(ok, "%s failed", c.name);
        ok ? passed++ : failed++;
        plan_free(&p);
        case_free(&c);
    }
    fclose(index);
    cudnnDestroy(ref);
    cudnnDestroy(def);
    printf("onnx conv: %d cases: %d passed, %d failed, %d skipped\n", n_cases, passed, failed,
           skipped);
    /* onnx/total (onnx_ops --total) adds this count to onnx/ops' one */
    snprintf(path, sizeof path, "%s/conv.result", argv[1]);
    FILE *result = fopen(path, "w");
    FD_EXPECT(result != NULL, "cannot write %s", path);
    if (result != NULL) {
        fprintf(result, "passed %d failed %d skipped %d\n", passed, failed, skipped);
        fclose(result);
    }
    FD_EXPECT(passed > 0,
              "no ONNX case ran (%d cases, %d skipped): the conformance test tested nothing",
              n_cases, skipped);
    return fd_test_finish();
}
