/* SPDX-License-Identifier: MIT */
/*
 * op_conv.c - dnnbench's convolution: cudnnConvolutionForward, BackwardData, BackwardFilter
 * on 2-d problems, every algorithm enum, f32 / tf32 / f16 / bf16 / f64 / int8, NCHW or NHWC.
 *
 * The oracle is our library on a `ref` handle in double (x, w, y DOUBLE, compute DOUBLE) on the
 * same data, so the reference is exact to 2^-53 of sum|x*w|; the same call on |x| and |w| gives
 * that sum for the tolerance. Problems above --ref-max-gflop (ref is slow by design) are checked
 * on the cuda backend against the naive direct GPU rows, run the same way in DOUBLE on our cuda
 * handle ("gpu-naive"; --ref=gpu for every problem); elsewhere they are timed, and with --vs
 * their result is compared with ours, but ours is not checked.
 *
 * Problem text: "N C H W K R S pad stride dilation groups [key=value...]" (bench/shapes/) or
 * the compact "n2c16h28w28k32r3s3p1u1l1g1" (letters in docs/dnnbench.md).
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dnnbench.h"

typedef struct conv_shape {
    int64_t n, c, h, w, k, r, s, ph, pw, sh, sw, dh, dw, g;
} conv_shape_t;
_Static_assert(sizeof(conv_shape_t) <= DNB_PROBLEM_BYTES, "a conv shape fits a dnb_problem_t");

enum { DIR_FWD, DIR_BWD_DATA, DIR_BWD_FILTER };
static const char *const conv_dirs[] = {"fwd", "bwd_data", "bwd_filter", NULL};

/* Options of this op (--math, --conv-mode). */
static int opt_math = -1;     /* -1: the dtype's */
static int opt_true_conv = 0; /* 1: CUDNN_CONVOLUTION (flipped filter); default cross-correlation */

static const conv_shape_t *shape_of(const dnb_problem_t *p)
{
    return (const conv_shape_t *)(const void *)p->data;
}

static int64_t out_dim(int64_t in, int64_t pad, int64_t flt, int64_t dil, int64_t stride)
{
    int64_t span = (flt - 1) * dil + 1;
    return in + 2 * pad < span ? 0 : (in + 2 * pad - span) / stride + 1;
}

static int64_t out_h(const conv_shape_t *s)
{
    return out_dim(s->h, s->ph, s->r, s->dh, s->sh);
}

static int64_t out_w(const conv_shape_t *s)
{
    return out_dim(s->w, s->pw, s->s, s->dw, s->sw);
}

/* ---- problem text ------------------------------------------------------------------------ */

static int validate(const conv_shape_t *s, char *err, size_t err_size)
{
    const int64_t big = INT32_MAX;
    const int64_t pos[] = {s->n, s->c,  s->h,  s->w,  s->k,  s->r,
                           s->s, s->sh, s->sw, s->dh, s->dw, s->g};
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++)
        if (pos[i] < 1 || pos[i] > big) {
            snprintf(err, err_size, "sizes, strides, dilations and groups must be 1..%" PRId64,
                     big);
            return -1;
        }
    if (s->ph < 0 || s->pw < 0 || s->ph > big || s->pw > big) {
        snprintf(err, err_size, "padding must be 0..%" PRId64, big);
        return -1;
    }
    if (s->c % s->g || s->k % s->g) {
        snprintf(err, err_size,
                 "C = %" PRId64 " and K = %" PRId64 " must be multiples of groups = %" PRId64, s->c,
                 s->k, s->g);
        return -1;
    }
    if (out_h(s) < 1 || out_w(s) < 1) {
        snprintf(err, err_size,
                 "the dilated %" PRId64 "x%" PRId64 " filter does not fit the padded %" PRId64
                 "x%" PRId64 " input",
                 s->r, s->s, s->h + 2 * s->ph, s->w + 2 * s->pw);
        return -1;
    }
    return 0;
}

/* "N C H W K R S pad stride dilation groups [pad_h=.. pad_w=.. stride_h=.. ...]" */
static int parse_line(const char *text, conv_shape_t *s, char *err, size_t err_size)
{
    int64_t v[11];
    const char *p = text;
    for (int i = 0; i < 11; i++) {
        char *end;
        while (isspace((unsigned char)*p))
            p++;
        v[i] = strtoll(p, &end, 10);
        if (end == p) {
            snprintf(err, err_size,
                     "expected 11 numbers (N C H W K R S pad stride dilation groups), "
                     "found %d",
                     i);
            return -1;
        }
        p = end;
    }
    *s = (conv_shape_t){v[0], v[1], v[2], v[3], v[4], v[5], v[6],
                        v[7], v[7], v[8], v[8], v[9], v[9], v[10]};
    static const struct {
        const char *key;
        size_t off;
    } keys[] = {
        {"pad_h", offsetof(conv_shape_t, ph)},      {"pad_w", offsetof(conv_shape_t, pw)},
        {"stride_h", offsetof(conv_shape_t, sh)},   {"stride_w", offsetof(conv_shape_t, sw)},
        {"dil_h", offsetof(conv_shape_t, dh)},      {"dil_w", offsetof(conv_shape_t, dw)},
        {"dilation_h", offsetof(conv_shape_t, dh)}, {"dilation_w", offsetof(conv_shape_t, dw)},
    };
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0')
            break;
        const char *eq = strchr(p, '=');
        size_t klen = eq ? (size_t)(eq - p) : 0;
        size_t i = 0;
        for (; eq && i < sizeof keys / sizeof keys[0]; i++)
            if (strlen(keys[i].key) == klen && strncmp(keys[i].key, p, klen) == 0)
                break;
        if (eq == NULL || i == sizeof keys / sizeof keys[0]) {
            int len = 0;
            while (p[len] && !isspace((unsigned char)p[len]))
                len++;
            snprintf(err, err_size,
                     "unknown field '%.*s' (known: pad_h pad_w stride_h stride_w dil_h dil_w)", len,
                     p);
            return -1;
        }
        char *end;
        int64_t val = strtoll(eq + 1, &end, 10);
        if (end == eq + 1 || (*end && !isspace((unsigned char)*end))) {
            snprintf(err, err_size, "field %.*s needs an integer value", (int)klen, p);
            return -1;
        }
        memcpy((char *)s + keys[i].off, &val, sizeof val);
        p = end;
    }
    return validate(s, err, err_size);
}

/* Compact: letter-number pairs. n c h w k r s as in the shape files; p/q pad h/w, u/v stride
 * h/w, l/j dilation h/w (MIOpen's letters), g groups. w = h, s = r, q = p, v = u, j = l when
 * omitted; n = 1, p = 0, u = l = g = 1 by default; c, h, k, r are required. */
static int parse_compact(const char *text, conv_shape_t *s, char *err, size_t err_size)
{
    static const char letters[] = "nchwkrspqulvjg";
    int64_t v[sizeof letters - 1];
    int given[sizeof letters - 1] = {0};
    const char *p = text;
    while (*p) {
        const char *at = strchr(letters, *p);
        if (at == NULL || !isdigit((unsigned char)p[1])) {
            snprintf(err, err_size,
                     "at '%s': expected one of the letters n c h w k r s p q u v l j g "
                     "followed by a number",
                     p);
            return -1;
        }
        size_t i = (size_t)(at - letters);
        char *end;
        v[i] = strtoll(p + 1, &end, 10);
        if (given[i]++) {
            snprintf(err, err_size, "'%c' is given twice", *p);
            return -1;
        }
        p = end;
    }
#define GET(ch, dflt)                                                                              \
    (given[strchr(letters, ch) - letters] ? v[strchr(letters, ch) - letters] : (dflt))
    for (const char *req = "chkr"; *req; req++)
        if (!given[strchr(letters, *req) - letters]) {
            snprintf(err, err_size, "'%c' is required (c, h, k and r are)", *req);
            return -1;
        }
    s->n = GET('n', 1), s->c = GET('c', 0), s->h = GET('h', 0), s->w = GET('w', s->h);
    s->k = GET('k', 0), s->r = GET('r', 0), s->s = GET('s', s->r);
    s->ph = GET('p', 0), s->pw = GET('q', s->ph);
    s->sh = GET('u', 1), s->sw = GET('v', s->sh);
    s->dh = GET('l', 1), s->dw = GET('j', s->dh);
    s->g = GET('g', 1);
#undef GET
    return validate(s, err, err_size);
}

static int conv_parse(const char *text, dnb_problem_t *p, char *err, size_t err_size)
{
    conv_shape_t *s = (conv_shape_t *)(void *)p->data;
    while (isspace((unsigned char)*text))
        text++;
    if (isdigit((unsigned char)*text))
        return parse_line(text, s, err, err_size);
    return parse_compact(text, s, err, err_size);
}

static void conv_set_batch(dnb_problem_t *p, int64_t n)
{
    ((conv_shape_t *)(void *)p->data)->n = n;
}

static void conv_format(const dnb_problem_t *p, char *buf, size_t size)
{
    const conv_shape_t *s = shape_of(p);
    char q[24] = "", v[24] = "", j[24] = "";
    if (s->pw != s->ph)
        snprintf(q, sizeof q, "q%" PRId64, s->pw);
    if (s->sw != s->sh)
        snprintf(v, sizeof v, "v%" PRId64, s->sw);
    if (s->dw != s->dh)
        snprintf(j, sizeof j, "j%" PRId64, s->dw);
    snprintf(buf, size,
             "n%" PRId64 "c%" PRId64 "h%" PRId64 "w%" PRId64 "k%" PRId64 "r%" PRId64 "s%" PRId64
             "p%" PRId64 "%su%" PRId64 "%sl%" PRId64 "%sg%" PRId64,
             s->n, s->c, s->h, s->w, s->k, s->r, s->s, s->ph, q, s->sh, v, s->dh, j, s->g);
}

static double conv_flop(const dnb_problem_t *p, int dir)
{
    (void)dir; /* the three directions do the same multiply-adds */
    const conv_shape_t *s = shape_of(p);
    return 2.0 * (double)s->n * (double)s->k * (double)out_h(s) * (double)out_w(s) *
           (double)(s->c / s->g) * (double)s->r * (double)s->s;
}

/* ---- options and --impl --------------------------------------------------------------------- */

static const char *const math_names[] = {"default", "tensor_op", "tensor_op_allow_conversion",
                                         "fma"};
_Static_assert(CUDNN_DEFAULT_MATH == 0 && CUDNN_TENSOR_OP_MATH == 1 &&
                   CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION == 2 && CUDNN_FMA_MATH == 3,
               "math_names is indexed by cudnnMathType_t");

static int conv_option(const char *arg, char *err, size_t err_size)
{
    if (strncmp(arg, "--math=", 7) == 0) {
        for (int i = 0; i < 4; i++)
            if (strcmp(arg + 7, math_names[i]) == 0) {
                opt_math = i;
                return 1;
            }
        snprintf(err, err_size,
                 "--math takes default, tensor_op, tensor_op_allow_conversion or fma");
        return -1;
    }
    if (strncmp(arg, "--conv-mode=", 12) == 0) {
        if (strcmp(arg + 12, "xcorr") && strcmp(arg + 12, "conv")) {
            snprintf(err, err_size, "--conv-mode takes xcorr (cross-correlation) or conv");
            return -1;
        }
        opt_true_conv = strcmp(arg + 12, "conv") == 0;
        return 1;
    }
    return 0;
}

/* The rows of src/impls.def, as text: dnnbench sees the table, not the library's internals. */
#define FD_CONV_IMPL(name, backend, dir, algos, det) {#name, #backend, #dir, (unsigned)(algos)},
#define FD_OP_IMPL(name, backend, op)
static const struct {
    const char *name, *backend, *dir;
    unsigned algos;
} impl_rows[] = {
#include "../../src/impls.def"
};
#undef FD_CONV_IMPL
#undef FD_OP_IMPL
static const int impl_count = (int)(sizeof impl_rows / sizeof impl_rows[0]);

static const char *const algo_names[3][8] = {
    {"implicit_gemm", "implicit_precomp_gemm", "gemm", "direct", "fft", "fft_tiling", "winograd",
     "winograd_nonfused"},
    {"algo_0", "algo_1", "fft", "fft_tiling", "winograd", "winograd_nonfused", NULL, NULL},
    {"algo_0", "algo_1", "fft", "algo_3", "winograd", "winograd_nonfused", "fft_tiling", NULL},
};
static const int algo_count[3] = {CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                  CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                                  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT};

static int is_transform_algo(int dir, int algo)
{
    const char *n = algo >= 0 && algo < algo_count[dir] ? algo_names[dir][algo] : "";
    return strstr(n, "fft") != NULL || strstr(n, "winograd") != NULL;
}

/* "FD_BACKEND_CPU" -> FREEDNN_BACKEND_CPU; "FD_CONV_BWD_DATA" -> "bwd_data". */
static int row_backend(const char *b)
{
    return strcmp(b, "FD_BACKEND_REF") == 0   ? FREEDNN_BACKEND_REF
           : strcmp(b, "FD_BACKEND_CPU") == 0 ? FREEDNN_BACKEND_CPU
                                              : FREEDNN_BACKEND_CUDA;
}

static int row_dir(const char *d)
{
    return strcmp(d, "FD_CONV_FWD") == 0        ? DIR_FWD
           : strcmp(d, "FD_CONV_BWD_DATA") == 0 ? DIR_BWD_DATA
                                                : DIR_BWD_FILTER;
}

static int conv_impl(const char *name, dnb_opts_t *o, char *err, size_t err_size)
{
    static const char *const backend_names[] = {"ref", "cpu", "cuda"};
    if (strcmp(name, "list") == 0) {
        printf("%-48s %-7s %-11s algorithms\n", "implementation (src/impls.def)", "backend",
               "direction");
        for (int i = 0; i < impl_count; i++) {
            int d = row_dir(impl_rows[i].dir);
            printf("%-48s %-7s %-11s", impl_rows[i].name,
                   backend_names[row_backend(impl_rows[i].backend)], conv_dirs[d]);
            for (int a = 0; a < algo_count[d]; a++)
                if (impl_rows[i].algos & (1u << a))
                    printf(" %d", a);
            printf("\n");
        }
        return 1;
    }
    for (int i = 0; i < impl_count; i++) {
        if (strcmp(impl_rows[i].name, name) != 0)
            continue;
        int backend = row_backend(impl_rows[i].backend), dir = row_dir(impl_rows[i].dir);
        if (o->backend_given && o->backend != backend) {
            snprintf(err, err_size, "%s is a %s implementation but --backend=%s was given", name,
                     backend_names[backend], backend_names[o->backend]);
            return -1;
        }
        if (o->dir != NULL && strcmp(o->dir, conv_dirs[dir]) != 0) {
            snprintf(err, err_size, "%s computes %s but --dir=%s was given", name, conv_dirs[dir],
                     o->dir);
            return -1;
        }
        /* The library takes the first applicable row for (backend, direction, algorithm):
         * name an algorithm that no earlier row of this backend and direction serves. */
        for (int a = 0; a < algo_count[dir]; a++) {
            if (!(impl_rows[i].algos & (1u << a)))
                continue;
            int shadowed = 0;
            for (int j = 0; j < i; j++)
                shadowed |= row_backend(impl_rows[j].backend) == backend &&
                            row_dir(impl_rows[j].dir) == dir && (impl_rows[j].algos & (1u << a));
            if (!shadowed) {
                o->backend = backend, o->backend_given = 1;
                o->dir = conv_dirs[dir];
                o->algo = a;
                return 0;
            }
        }
        snprintf(err, err_size,
                 "every algorithm %s serves is served first by an earlier row of "
                 "src/impls.def; --impl cannot select it",
                 name);
        return -1;
    }
    snprintf(err, err_size, "no implementation '%s' in src/impls.def (--impl=list lists them)",
             name);
    return -1;
}

/* ---- one library's view of a problem ------------------------------------------------------- */

typedef struct conv_side {
    const dnb_lib_t *lib;
    cudnnHandle_t h;
    const dnb_device_t *dev;
    int dir;
    cudnnDataType_t dt;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    int algo;
    size_t ws_size;
    void *ws;
    /* the buffers of the next call (set by the caller) */
    void *const *in0, *const *in1, *const *out;
} conv_side_t;

#define SIDE_CALL(side, fn, ...) dnb_status((side)->lib, (side)->lib->fn(__VA_ARGS__))

/* Every function of the table this op calls. */
#define CONV_FUNCS(X)                                                                              \
    X(cudnnCreateTensorDescriptor)                                                                 \
    X(cudnnDestroyTensorDescriptor)                                                                \
    X(cudnnSetTensor4dDescriptor)                                                                  \
    X(cudnnCreateFilterDescriptor)                                                                 \
    X(cudnnDestroyFilterDescriptor)                                                                \
    X(cudnnSetFilter4dDescriptor)                                                                  \
    X(cudnnCreateConvolutionDescriptor)                                                            \
    X(cudnnDestroyConvolutionDescriptor)                                                           \
    X(cudnnSetConvolution2dDescriptor)                                                             \
    X(cudnnSetConvolutionGroupCount)                                                               \
    X(cudnnSetConvolutionMathType)                                                                 \
    X(cudnnGetConvolutionForwardAlgorithm_v7)                                                      \
    X(cudnnGetConvolutionBackwardDataAlgorithm_v7)                                                 \
    X(cudnnGetConvolutionBackwardFilterAlgorithm_v7)                                               \
    X(cudnnFindConvolutionForwardAlgorithm)                                                        \
    X(cudnnFindConvolutionBackwardDataAlgorithm)                                                   \
    X(cudnnFindConvolutionBackwardFilterAlgorithm)                                                 \
    X(cudnnGetConvolutionForwardWorkspaceSize)                                                     \
    X(cudnnGetConvolutionBackwardDataWorkspaceSize)                                                \
    X(cudnnGetConvolutionBackwardFilterWorkspaceSize)                                              \
    X(cudnnConvolutionForward)                                                                     \
    X(cudnnConvolutionBackwardData)                                                                \
    X(cudnnConvolutionBackwardFilter)

static const char *missing_function(const dnb_lib_t *l)
{
#define CONV_NEED(f)                                                                               \
    if (l->f == NULL)                                                                              \
        return #f;
    CONV_FUNCS(CONV_NEED)
#undef CONV_NEED
    return NULL;
}

/* Failure of a library call: NOT_SUPPORTED is SKIPPED, anything else FAILED. */
static void side_fail(const conv_side_t *sd, cudnnStatus_t raw, const char *what,
                      dnb_side_result_t *r)
{
    char msg[448];
    dnb_lib_error(sd->lib, raw, msg, sizeof msg);
    r->state = dnb_status_is_not_supported(dnb_status(sd->lib, raw)) ? DNB_SKIPPED : DNB_FAILED;
    snprintf(r->reason, sizeof r->reason, "%s: %s", what, msg);
}

static void side_release(conv_side_t *sd)
{
    if (sd->lib == NULL)
        return;
    if (sd->ws)
        sd->dev->release(sd->ws);
    if (sd->xd)
        sd->lib->cudnnDestroyTensorDescriptor(sd->xd);
    if (sd->yd)
        sd->lib->cudnnDestroyTensorDescriptor(sd->yd);
    if (sd->wd)
        sd->lib->cudnnDestroyFilterDescriptor(sd->wd);
    if (sd->cd)
        sd->lib->cudnnDestroyConvolutionDescriptor(sd->cd);
    memset(sd, 0, sizeof *sd);
}

/* Descriptors; returns 0, or -1 with r->state / r->reason set. */
static int side_init(conv_side_t *sd, const dnb_lib_t *lib, cudnnHandle_t h,
                     const dnb_device_t *dev, const conv_shape_t *s, int dir, cudnnDataType_t dt,
                     cudnnDataType_t acc, cudnnMathType_t math, int nhwc, dnb_side_result_t *r)
{
    memset(sd, 0, sizeof *sd);
    sd->lib = lib, sd->h = h, sd->dev = dev, sd->dir = dir, sd->dt = dt, sd->algo = -1;
    const char *missing = missing_function(lib);
    if (missing != NULL) {
        r->state = DNB_SKIPPED;
        snprintf(r->reason, sizeof r->reason, "%s does not export %s", lib->name, missing);
        return -1;
    }
    cudnnTensorFormat_t fmt = nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    cudnnStatus_t st;
    const char *what = "creating descriptors";
    if ((st = lib->cudnnCreateTensorDescriptor(&sd->xd)) ||
        (st = lib->cudnnCreateTensorDescriptor(&sd->yd)) ||
        (st = lib->cudnnCreateFilterDescriptor(&sd->wd)) ||
        (st = lib->cudnnCreateConvolutionDescriptor(&sd->cd)))
        goto fail;
    what = "cudnnSetTensor4dDescriptor(x)";
    if ((st = lib->cudnnSetTensor4dDescriptor(sd->xd, fmt, dt, (int)s->n, (int)s->c, (int)s->h,
                                              (int)s->w)))
        goto fail;
    what = "cudnnSetTensor4dDescriptor(y)";
    if ((st = lib->cudnnSetTensor4dDescriptor(sd->yd, fmt, dt, (int)s->n, (int)s->k, (int)out_h(s),
                                              (int)out_w(s))))
        goto fail;
    what = "cudnnSetFilter4dDescriptor";
    if ((st = lib->cudnnSetFilter4dDescriptor(sd->wd, dt, fmt, (int)s->k, (int)(s->c / s->g),
                                              (int)s->r, (int)s->s)))
        goto fail;
    what = "cudnnSetConvolution2dDescriptor";
    if ((st = lib->cudnnSetConvolution2dDescriptor(
             sd->cd, (int)s->ph, (int)s->pw, (int)s->sh, (int)s->sw, (int)s->dh, (int)s->dw,
             opt_true_conv ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION, acc)))
        goto fail;
    what = "cudnnSetConvolutionGroupCount";
    if ((st = lib->cudnnSetConvolutionGroupCount(sd->cd, (int)s->g)))
        goto fail;
    what = "cudnnSetConvolutionMathType";
    if ((st = lib->cudnnSetConvolutionMathType(sd->cd, math)))
        goto fail;
    return 0;
fail:
    side_fail(sd, st, what, r);
    return -1;
}

/* The algorithm (explicit, heuristic or Find), its workspace size and the workspace. */
static int side_algo(conv_side_t *sd, int want, dnb_side_result_t *r)
{
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    const char *what = "";
    if (want >= 0) {
        sd->algo = want;
    } else {
        /* the three perf structs share one layout */
        cudnnConvolutionFwdAlgoPerf_t perf[8];
        _Static_assert(sizeof(cudnnConvolutionFwdAlgoPerf_t) ==
                               sizeof(cudnnConvolutionBwdDataAlgoPerf_t) &&
                           sizeof(cudnnConvolutionFwdAlgoPerf_t) ==
                               sizeof(cudnnConvolutionBwdFilterAlgoPerf_t),
                       "perf layouts");
        int got = 0, count = algo_count[sd->dir];
        const dnb_lib_t *l = sd->lib;
        if (want == DNB_ALGO_HEUR) {
            what = "the algorithm heuristic (cudnnGet*Algorithm_v7)";
            st = sd->dir == DIR_FWD ? l->cudnnGetConvolutionForwardAlgorithm_v7(
                                          sd->h, sd->xd, sd->wd, sd->cd, sd->yd, count, &got, perf)
                 : sd->dir == DIR_BWD_DATA
                     ? l->cudnnGetConvolutionBackwardDataAlgorithm_v7(
                           sd->h, sd->wd, sd->yd, sd->cd, sd->xd, count, &got,
                           (cudnnConvolutionBwdDataAlgoPerf_t *)(void *)perf)
                     : l->cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                           sd->h, sd->xd, sd->yd, sd->cd, sd->wd, count, &got,
                           (cudnnConvolutionBwdFilterAlgoPerf_t *)(void *)perf);
        } else {
            what = "cudnnFind*Algorithm";
            st = sd->dir == DIR_FWD ? l->cudnnFindConvolutionForwardAlgorithm(
                                          sd->h, sd->xd, sd->wd, sd->cd, sd->yd, count, &got, perf)
                 : sd->dir == DIR_BWD_DATA
                     ? l->cudnnFindConvolutionBackwardDataAlgorithm(
                           sd->h, sd->wd, sd->yd, sd->cd, sd->xd, count, &got,
                           (cudnnConvolutionBwdDataAlgoPerf_t *)(void *)perf)
                     : l->cudnnFindConvolutionBackwardFilterAlgorithm(
                           sd->h, sd->xd, sd->yd, sd->cd, sd->wd, count, &got,
                           (cudnnConvolutionBwdFilterAlgoPerf_t *)(void *)perf);
        }
        if (st != CUDNN_STATUS_SUCCESS) {
            side_fail(sd, st, what, r);
            return -1;
        }
        for (int i = 0; i < got && sd->algo < 0; i++)
            if (dnb_status(sd->lib, perf[i].status) == CUDNN_STATUS_SUCCESS)
                sd->algo = (int)perf[i].algo;
        if (sd->algo < 0) {
            r->state = DNB_SKIPPED;
            snprintf(r->reason, sizeof r->reason,
                     "%s returned no algorithm that can run this problem", what);
            return -1;
        }
    }
    r->algo = sd->algo;
    what = "the workspace query (cudnnGet*WorkspaceSize)";
    const dnb_lib_t *l = sd->lib;
    st = sd->dir == DIR_FWD
             ? l->cudnnGetConvolutionForwardWorkspaceSize(sd->h, sd->xd, sd->wd, sd->cd, sd->yd,
                                                          (cudnnConvolutionFwdAlgo_t)sd->algo,
                                                          &sd->ws_size)
         : sd->dir == DIR_BWD_DATA ? l->cudnnGetConvolutionBackwardDataWorkspaceSize(
                                         sd->h, sd->wd, sd->yd, sd->cd, sd->xd,
                                         (cudnnConvolutionBwdDataAlgo_t)sd->algo, &sd->ws_size)
                                   : l->cudnnGetConvolutionBackwardFilterWorkspaceSize(
                                         sd->h, sd->xd, sd->yd, sd->cd, sd->wd,
                                         (cudnnConvolutionBwdFilterAlgo_t)sd->algo, &sd->ws_size);
    if (st != CUDNN_STATUS_SUCCESS) {
        side_fail(sd, st, what, r);
        return -1;
    }
    r->workspace = sd->ws_size;
    if (sd->ws_size) {
        sd->ws = sd->dev->alloc(sd->ws_size);
        if (sd->ws == NULL) {
            r->state = DNB_SKIPPED;
            snprintf(r->reason, sizeof r->reason, "cannot allocate the %zu-byte workspace",
                     sd->ws_size);
            return -1;
        }
        sd->dev->set_bytes(sd->ws, 0, sd->ws_size);
    }
    return 0;
}

/* One call on the given buffers: raw status of the library. */
static cudnnStatus_t side_run(const conv_side_t *sd, const void *in0, const void *in1, void *out)
{
    const float one_f = 1.0f, zero_f = 0.0f;
    const double one_d = 1.0, zero_d = 0.0;
    const void *one = sd->dt == CUDNN_DATA_DOUBLE ? (const void *)&one_d : (const void *)&one_f;
    const void *zero = sd->dt == CUDNN_DATA_DOUBLE ? (const void *)&zero_d : (const void *)&zero_f;
    const dnb_lib_t *l = sd->lib;
    switch (sd->dir) {
    case DIR_FWD:
        return l->cudnnConvolutionForward(sd->h, one, sd->xd, in0, sd->wd, in1, sd->cd,
                                          (cudnnConvolutionFwdAlgo_t)sd->algo, sd->ws, sd->ws_size,
                                          zero, sd->yd, out);
    case DIR_BWD_DATA:
        return l->cudnnConvolutionBackwardData(sd->h, one, sd->wd, in1, sd->yd, in0, sd->cd,
                                               (cudnnConvolutionBwdDataAlgo_t)sd->algo, sd->ws,
                                               sd->ws_size, zero, sd->xd, out);
    default:
        return l->cudnnConvolutionBackwardFilter(sd->h, one, sd->xd, in0, sd->yd, in1, sd->cd,
                                                 (cudnnConvolutionBwdFilterAlgo_t)sd->algo, sd->ws,
                                                 sd->ws_size, zero, sd->wd, out);
    }
}

static cudnnStatus_t side_timed_call(void *arg, int set)
{
    const conv_side_t *sd = arg;
    return side_run(sd, sd->in0[set], sd->in1[set], sd->out[set]);
}

/* ---- one (problem, direction) -----------------------------------------------------------------
 */

typedef struct conv_bufs {
    int nsets;
    void **in0, **in1, **out; /* per set, on the device */
    void *out_vs;             /* their output of the checked call, on their device */
} conv_bufs_t;

static void bufs_free(conv_bufs_t *b, const dnb_device_t *dev)
{
    for (int i = 0; i < b->nsets; i++) {
        dev->release(b->in0[i]);
        dev->release(b->in1[i]);
        dev->release(b->out[i]);
    }
    free(b->in0), free(b->in1), free(b->out);
    memset(b, 0, sizeof *b);
}

/* Grows the sets to n, each a copy of the staged inputs; 0 or -1 when memory runs out. */
static int bufs_grow(conv_bufs_t *b, const dnb_device_t *dev, int n, const void *h0, size_t b0,
                     const void *h1, size_t b1, size_t bo)
{
    if (n <= b->nsets)
        return 0;
    void **i0 = realloc(b->in0, sizeof(void *) * (size_t)n);
    if (i0)
        b->in0 = i0;
    void **i1 = realloc(b->in1, sizeof(void *) * (size_t)n);
    if (i1)
        b->in1 = i1;
    void **o = realloc(b->out, sizeof(void *) * (size_t)n);
    if (o)
        b->out = o;
    if (!i0 || !i1 || !o)
        return -1;
    while (b->nsets < n) {
        int i = b->nsets;
        b->in0[i] = dev->alloc(b0), b->in1[i] = dev->alloc(b1), b->out[i] = dev->alloc(bo);
        if (!b->in0[i] || !b->in1[i] || !b->out[i]) {
            dev->release(b->in0[i]), dev->release(b->in1[i]), dev->release(b->out[i]);
            return -1;
        }
        dev->upload(b->in0[i], h0, b0);
        dev->upload(b->in1[i], h1, b1);
        dev->set_bytes(b->out[i], 0, bo);
        b->nsets++;
    }
    return 0;
}

/* Values of one input: staged in dt, and (for the oracle) in double. */
static void gen_input(const dnb_opts_t *o, uint64_t seed, int64_t n, double density,
                      cudnnDataType_t dt, void *staged, double *master)
{
    dnb_rng_t r = {seed};
    enum { CHUNK = 4096, TILE = 1 << 20 };
    double tmp[CHUNK];
    /* Without a master copy (timing only) a large tensor repeats its first TILE values: the
     * fill of a 200 M-element ResNet-50 N=256 activation would otherwise take seconds per
     * problem, and the data stay as dense and as varied as a timing needs. */
    const int64_t fresh = master == NULL && n > 4 * (int64_t)TILE ? TILE : n;
    for (int64_t i0 = 0; i0 < fresh; i0 += CHUNK) {
        int64_t m = fresh - i0 < CHUNK ? fresh - i0 : CHUNK;
        double *v = master ? master + i0 : tmp;
        if (o->fill_real)
            dnb_fill_real(&r, v, m, dt == CUDNN_DATA_INT8 ? CUDNN_DATA_FLOAT : dt);
        else
            dnb_fill_int(&r, v, m, density);
        for (int64_t i = 0; i < m; i++) {
            if (dt == CUDNN_DATA_INT8 && o->fill_real)
                v[i] = nearbyint(v[i] * 4.0); /* int8 has no reals: -4..4 */
            dnb_store(dt, staged, i0 + i, v[i]);
        }
    }
    const size_t esz = dnb_dt_size(dt);
    for (int64_t i0 = fresh; i0 < n; i0 += fresh) {
        int64_t m = n - i0 < fresh ? n - i0 : fresh;
        memcpy((char *)staged + (size_t)i0 * esz, staged, (size_t)m * esz);
    }
}

/* The test hook (--inject-error): one wrong element in the middle, as a broken kernel makes. */
static void inject_error(cudnnDataType_t dt, void *out, int64_t n)
{
    if (n > 0) {
        double v = dnb_load(dt, out, n / 2);
        dnb_store(dt, out, n / 2, v + 1.0 + fabs(v));
    }
}

static void fail_reason(dnb_side_result_t *r, const dnb_cmp_t *c, int64_t n, const char *against)
{
    snprintf(r->reason, sizeof r->reason,
             "%" PRId64 " of %" PRId64 " elements out of tolerance against %s; first at %" PRId64
             ": got %.9g want %.9g tol %.3g",
             c->bad, n, against, c->first_bad, c->first_got, c->first_want, c->first_tol);
}

/* The designated simple GPU implementation (DESIGN D9): the naive direct rows of src/impls.def,
 * checked against ref on small problems by tests/tools (case gpu) and used as the oracle of the
 * problems ref is too slow for. The library takes the first applicable row for (backend,
 * direction, algorithm), so dnnbench reaches the row through an algorithm enum that it serves
 * and no earlier cuda row of its direction serves (as --impl does); -1 with why when there is
 * none. */
static const char *const naive_rows[3] = {"fd_conv_fwd_direct", "fd_conv_bwd_data_direct",
                                          "fd_conv_bwd_filter_direct"};

static int naive_algo(int dir, char *why, size_t why_size)
{
    for (int i = 0; i < impl_count; i++) {
        if (strcmp(impl_rows[i].name, naive_rows[dir]) != 0)
            continue;
        for (int a = 0; a < algo_count[dir]; a++) {
            if (!(impl_rows[i].algos & (1u << a)))
                continue;
            int shadowed = 0;
            for (int j = 0; j < i; j++)
                shadowed |= row_backend(impl_rows[j].backend) == FREEDNN_BACKEND_CUDA &&
                            row_dir(impl_rows[j].dir) == dir && (impl_rows[j].algos & (1u << a));
            if (!shadowed)
                return a;
        }
        snprintf(why, why_size,
                 "every algorithm of %s is served first by an earlier cuda row of src/impls.def, "
                 "so dnnbench cannot reach the naive GPU reference",
                 naive_rows[dir]);
        return -1;
    }
    snprintf(why, why_size, "src/impls.def has no row %s (the naive GPU reference)",
             naive_rows[dir]);
    return -1;
}

enum { ORACLE_HOST, ORACLE_GPU, ORACLE_ABS_ONLY };

/* One DOUBLE call of the naive GPU rows on device copies of host doubles. */
static cudnnStatus_t gpu_double_run(const conv_side_t *sr, const double *h0, int64_t n0,
                                    const double *h1, int64_t n1, double *out, int64_t n_out)
{
    const dnb_device_t *dev = sr->dev;
    const size_t b0 = sizeof(double) * (size_t)n0, b1 = sizeof(double) * (size_t)n1,
                 bo = sizeof(double) * (size_t)n_out;
    void *d0 = dev->alloc(b0), *d1 = dev->alloc(b1), *dout = dev->alloc(bo);
    cudnnStatus_t st = CUDNN_STATUS_ALLOC_FAILED;
    if (d0 && d1 && dout) {
        dev->upload(d0, h0, b0);
        dev->upload(d1, h1, b1);
        st = side_run(sr, d0, d1, dout);
        if (st == CUDNN_STATUS_SUCCESS)
            dev->download(out, dout, bo); /* waits for the call: cudaMemcpy after the stream */
    }
    if (d0)
        dev->release(d0);
    if (d1)
        dev->release(d1);
    if (dout)
        dev->release(dout);
    return st;
}

/* The oracle, of one of three kinds:
 *   ORACLE_HOST (problems up to --ref-max-gflop): our library on a ref handle in DOUBLE, on the
 *     values (want) and on their magnitudes (abs_sum = sum|x*w| per output);
 *   ORACLE_GPU (larger problems on the cuda backend, or --ref=gpu): the same two DOUBLE calls on
 *     our cuda handle, forced to the naive direct rows through `naive` (naive_algo);
 *   ORACLE_ABS_ONLY (larger problems otherwise, for the --vs agreement check): only abs_sum, from
 *     our backend in FLOAT, padded by its own rounding.
 * m0 and m1 hold |values| afterwards. The host kind runs on host buffers (ref is a host
 * backend); the others on ctx->dev, through device copies on the cuda device. */
static int oracle(const dnb_ctx_t *ctx, const conv_shape_t *s, int dir, int kind, int naive,
                  double *m0, int64_t n0, double *m1, int64_t n1, double *want, double *abs_sum,
                  int64_t n_out, int64_t kacc, conv_side_t *sr, char *why, size_t why_size)
{
    dnb_side_result_t rr = {0};
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    int nhwc = ctx->o->nhwc;
    char hwhy[64];
    const dnb_device_t *host = dnb_device_for(FREEDNN_BACKEND_REF, hwhy, sizeof hwhy);
    if (kind == ORACLE_HOST) {
        if (side_init(sr, ctx->lib, ctx->h_ref, host, s, dir, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE,
                      CUDNN_DEFAULT_MATH, nhwc, &rr) ||
            side_algo(sr, 0, &rr))
            goto fail;
        if ((st = side_run(sr, m0, m1, want)) != CUDNN_STATUS_SUCCESS) {
            side_fail(sr, st, "the ref run", &rr);
            goto fail;
        }
    } else if (kind == ORACLE_GPU) {
        if (side_init(sr, ctx->lib, ctx->h, ctx->dev, s, dir, CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE,
                      CUDNN_DEFAULT_MATH, nhwc, &rr) ||
            side_algo(sr, naive, &rr))
            goto fail;
        if ((st = gpu_double_run(sr, m0, n0, m1, n1, want, n_out)) != CUDNN_STATUS_SUCCESS) {
            side_fail(sr, st, "the naive GPU reference run", &rr);
            goto fail;
        }
    } else if (side_init(sr, ctx->lib, ctx->h, ctx->dev, s, dir, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                         CUDNN_FMA_MATH, nhwc, &rr) ||
               side_algo(sr, DNB_ALGO_HEUR, &rr)) {
        goto fail;
    }
    for (int64_t i = 0; i < n0; i++)
        m0[i] = fabs(m0[i]);
    for (int64_t i = 0; i < n1; i++)
        m1[i] = fabs(m1[i]);
    if (kind == ORACLE_HOST) {
        if ((st = side_run(sr, m0, m1, abs_sum)) != CUDNN_STATUS_SUCCESS) {
            side_fail(sr, st, "the ref run on |inputs|", &rr);
            goto fail;
        }
        return 0;
    }
    if (kind == ORACLE_GPU) {
        if ((st = gpu_double_run(sr, m0, n0, m1, n1, abs_sum, n_out)) != CUDNN_STATUS_SUCCESS) {
            side_fail(sr, st, "the naive GPU reference run on |inputs|", &rr);
            goto fail;
        }
        return 0;
    }
    float *f0 = malloc(sizeof(float) * (size_t)n0), *f1 = malloc(sizeof(float) * (size_t)n1);
    float *fo = malloc(sizeof(float) * (size_t)n_out);
    /* on our device: host buffers there, or device copies of them (cuda) */
    const dnb_device_t *dev = ctx->dev;
    const size_t b0 = sizeof(float) * (size_t)n0, b1 = sizeof(float) * (size_t)n1,
                 bo = sizeof(float) * (size_t)n_out;
    void *d0 = NULL, *d1 = NULL, *dout = NULL;
    st = CUDNN_STATUS_ALLOC_FAILED;
    if (f0 && f1 && fo) {
        for (int64_t i = 0; i < n0; i++)
            f0[i] = (float)m0[i];
        for (int64_t i = 0; i < n1; i++)
            f1[i] = (float)m1[i];
        if (dev == host) {
            st = side_run(sr, f0, f1, fo);
        } else if ((d0 = dev->alloc(b0)) && (d1 = dev->alloc(b1)) && (dout = dev->alloc(bo))) {
            dev->upload(d0, f0, b0);
            dev->upload(d1, f1, b1);
            st = side_run(sr, d0, d1, dout);
            if (st == CUDNN_STATUS_SUCCESS)
                dev->download(fo, dout, bo);
        }
        for (int64_t i = 0; st == CUDNN_STATUS_SUCCESS && i < n_out; i++)
            abs_sum[i] = (double)fo[i] * (1.0 + (double)kacc * 0x1p-23);
    }
    if (d0)
        dev->release(d0);
    if (d1)
        dev->release(d1);
    if (dout)
        dev->release(dout);
    free(f0), free(f1), free(fo);
    if (st == CUDNN_STATUS_SUCCESS)
        return 0;
    side_fail(sr, st, "sum|x*w| on our backend", &rr);
fail:
    snprintf(why, why_size, "%.400s", rr.reason);
    return -1;
}

static void conv_run(const dnb_ctx_t *ctx, const dnb_problem_t *prob, int dir, dnb_row_t *row)
{
    const dnb_opts_t *o = ctx->o;
    const conv_shape_t *s = shape_of(prob);
    const dnb_dt_t *dt = o->dt;
    const cudnnDataType_t sdt = dt->storage;
    const cudnnMathType_t math = opt_math >= 0 ? (cudnnMathType_t)opt_math : dt->math;
    const int64_t P = out_h(s), Q = out_w(s);
    const int64_t nx = s->n * s->c * s->h * s->w, nw = s->k * (s->c / s->g) * s->r * s->s,
                  ny = s->n * s->k * P * Q;
    const int64_t n_in0 = dir == DIR_BWD_DATA ? ny : nx;
    const int64_t n_in1 = dir == DIR_BWD_FILTER ? ny : nw;
    const int64_t n_out = dir == DIR_FWD ? ny : dir == DIR_BWD_DATA ? nx : nw;
    const int64_t kacc = dir == DIR_FWD        ? (s->c / s->g) * s->r * s->s
                         : dir == DIR_BWD_DATA ? (s->k / s->g) * s->r * s->s
                                               : s->n * P * Q;
    const size_t esz = dnb_dt_size(sdt);
    const size_t b_in0 = (size_t)n_in0 * esz, b_in1 = (size_t)n_in1 * esz,
                 b_out = (size_t)n_out * esz;
    const int check = (o->mode & DNB_MODE_CORR) != 0;
    /* the reference: ref on the host for small problems; the naive GPU rows for larger ones on
     * the cuda backend (or all, --ref=gpu) when checking; else, with --vs, only agreement */
    const int small = row->flop <= o->ref_max_gflop * 1e9;
    const int host_ref = small && o->ref_kind != DNB_REF_GPU;
    char naive_why[256] = "";
    int naive = -1;
    if (check && !host_ref && o->ref_kind != DNB_REF_HOST && ctx->backend == FREEDNN_BACKEND_CUDA)
        naive = naive_algo(dir, naive_why, sizeof naive_why);
    const int gpu_ref = naive >= 0;
    const int use_ref = check && (host_ref || gpu_ref);
    /* timing only (--mode=perf): the two libraries' agreement costs a FLOAT run of ours on
     * |inputs| and host passes over every element, so past --vs-check-max-gflop it is left out */
    const int agree = ctx->vs && (check || row->flop <= o->vs_check_max_gflop * 1e9);
    dnb_side_result_t *ours = &row->ours, *theirs = &row->theirs;

    conv_side_t so = {0}, sv = {0}, sr = {0};
    conv_bufs_t b = {0};
    void *h0 = NULL, *h1 = NULL, *tmp = NULL, *got = NULL, *got_vs = NULL;
    double *m0 = NULL, *m1 = NULL, *want = NULL, *abs_sum = NULL;
    int vs_ok = 0;

    /* 1. descriptors and algorithms: ours, then theirs */
    ours->ran = 1;
    if (side_init(&so, ctx->lib, ctx->h, ctx->dev, s, dir, sdt, dt->compute, math, o->nhwc, ours) ||
        side_algo(&so, o->algo, ours))
        goto done;
    if (ctx->vs) {
        theirs->ran = 1;
        vs_ok = !side_init(&sv, ctx->vs, ctx->h_vs, ctx->vs_dev, s, dir, sdt, dt->compute, math,
                           o->nhwc, theirs) &&
                !side_algo(&sv, o->algo, theirs);
    }

    if (o->ref_kind == DNB_REF_GPU && check && !gpu_ref) {
        ours->state = DNB_SKIPPED;
        snprintf(ours->reason, sizeof ours->reason, "--ref=gpu: %s", naive_why);
        goto done;
    }
    if (check && !use_ref && !ctx->vs && !(o->mode & DNB_MODE_PERF)) { /* nothing to learn */
        ours->state = DNB_SKIPPED;
        snprintf(ours->reason, sizeof ours->reason,
                 "correctness not checked: %.2f GFLOP is above --ref-max-gflop=%g (too slow for "
                 "ref%s%s); not run",
                 row->flop * 1e-9, o->ref_max_gflop, naive_why[0] ? "; " : "", naive_why);
        goto done;
    }

    /* 2. data: small integers whose sums stay exact (density keeps E sum|x*w| near a quarter of
     * the exact limit), or reals */
    double limit = dnb_exact_limit(sdt == CUDNN_DATA_INT8 ? CUDNN_DATA_INT32 : sdt);
    if (sdt == CUDNN_DATA_INT8)
        limit = 127.0;
    double density = sqrt(limit / (4.0 * 2.25 * (double)kacc));
    density = density > 1.0 ? 1.0 : density;
    char key[256];
    snprintf(key, sizeof key, "%s %d %s", row->problem, dir, dt->name);
    uint64_t seed = dnb_hash_str(key);
    h0 = malloc(b_in0 ? b_in0 : 1), h1 = malloc(b_in1 ? b_in1 : 1);
    if (use_ref || agree) {
        m0 = malloc(sizeof(double) * (size_t)n_in0), m1 = malloc(sizeof(double) * (size_t)n_in1);
        want = malloc(sizeof(double) * (size_t)n_out),
        abs_sum = malloc(sizeof(double) * (size_t)n_out);
    }
    got = malloc(b_out ? b_out : 1);
    tmp = malloc((b_in0 > b_in1 ? b_in0 : b_in1) + 1);
    if (!h0 || !h1 || !got || !tmp || ((use_ref || agree) && (!m0 || !m1 || !want || !abs_sum))) {
        ours->state = DNB_SKIPPED;
        snprintf(ours->reason, sizeof ours->reason,
                 "cannot allocate host buffers for this problem");
        goto done;
    }
    gen_input(o, seed, n_in0, density, sdt, h0, m0);
    gen_input(o, seed ^ 0x5555555555555555ull, n_in1, density, sdt, h1, m1);
    if (bufs_grow(&b, ctx->dev, 1, h0, b_in0, h1, b_in1, b_out)) {
        ours->state = DNB_SKIPPED;
        snprintf(ours->reason, sizeof ours->reason, "cannot allocate %zu bytes of tensors",
                 b_in0 + b_in1 + b_out);
        goto done;
    }

    /* 3. the oracle */
    int have_want = 0;
    const char *against = "ref";
    if (use_ref || agree) {
        /* timing only: the libraries' agreement needs no double reference (host ref at ~1
         * GFLOP per call would take longer than the timing itself) */
        const int kind = !use_ref ? ORACLE_ABS_ONLY : host_ref ? ORACLE_HOST : ORACLE_GPU;
        char why[420];
        if (oracle(ctx, s, dir, kind, naive, m0, n_in0, m1, n_in1, want, abs_sum, n_out, kacc, &sr,
                   why, sizeof why)) {
            ours->state = DNB_FAILED;
            snprintf(ours->reason, sizeof ours->reason, "oracle%s: %s",
                     kind == ORACLE_GPU ? " (gpu-naive)" : "", why);
            goto done;
        }
        have_want = kind != ORACLE_ABS_ONLY;
        against = kind == ORACLE_GPU ? "gpu-naive" : "ref";
        if (have_want)
            snprintf(row->reference, sizeof row->reference, "%s", against);
    }

    /* 4. the checked call: poisoned output, inputs hashed before and after */
    const void *in0 = b.in0[0], *in1 = b.in1[0];
    ctx->dev->set_bytes(b.out[0], 0xff, b_out);
    cudnnStatus_t st = side_run(&so, in0, in1, b.out[0]);
    if (st != CUDNN_STATUS_SUCCESS) {
        side_fail(&so, st, "the call", ours);
        goto done;
    }
    ctx->dev->download(got, b.out[0], b_out);
    uint64_t h_before = dnb_hash_bulk(h1, b_in1, dnb_hash_bulk(h0, b_in0, 1)), h_after;
    ctx->dev->download(tmp, in0, b_in0);
    h_after = dnb_hash_bulk(tmp, b_in0, 1);
    ctx->dev->download(tmp, in1, b_in1);
    h_after = dnb_hash_bulk(tmp, b_in1, h_after);
    if (o->inject_error == 1)
        inject_error(sdt, got, n_out);
    dnb_tol_t tol = {sdt,
                     dt->compute,
                     dt->u_in,
                     kacc,
                     is_transform_algo(dir, so.algo) ? 10.0 : 1.0,
                     !o->fill_real && !is_transform_algo(dir, so.algo)};
    dnb_cmp_t cmp;
    ours->state = DNB_EXECUTED;
    if (h_before != h_after) {
        ours->state = DNB_FAILED;
        snprintf(ours->reason, sizeof ours->reason, "the call modified its inputs");
    } else if (have_want) {
        dnb_compare(&tol, got, want, abs_sum, n_out, &cmp);
        ours->err_ratio = cmp.worst_ratio, ours->max_err = cmp.max_err, ours->bad = cmp.bad;
        row->zero_frac = cmp.zero_frac;
        if (cmp.bad) {
            ours->state = DNB_FAILED;
            fail_reason(ours, &cmp, n_out, against);
        } else if (cmp.zero_frac > 0.95) {
            ours->state = DNB_MISTRUSTED;
            snprintf(ours->reason, sizeof ours->reason, "%.1f%% of the reference output is zero",
                     100.0 * cmp.zero_frac);
        } else {
            ours->state = DNB_PASSED;
        }
    } else if (check) {
        ours->state = DNB_SKIPPED;
        snprintf(ours->reason, sizeof ours->reason,
                 "correctness not checked: %.2f GFLOP is above --ref-max-gflop=%g (too slow for "
                 "ref%s%s)",
                 row->flop * 1e-9, o->ref_max_gflop, naive_why[0] ? "; " : "", naive_why);
    }

    /* 5. theirs, on the same inputs: against ref, or against ours when ref cannot run */
    if (vs_ok && !agree) {
        theirs->state = DNB_EXECUTED;
        snprintf(theirs->reason, sizeof theirs->reason,
                 "agreement not checked: %.2f GFLOP is above --vs-check-max-gflop=%g",
                 row->flop * 1e-9, o->vs_check_max_gflop);
    } else if (vs_ok) {
        b.out_vs = ctx->vs_dev->alloc(b_out);
        got_vs = malloc(b_out ? b_out : 1);
        if (!b.out_vs || !got_vs) {
            theirs->state = DNB_SKIPPED;
            snprintf(theirs->reason, sizeof theirs->reason, "cannot allocate their output");
            vs_ok = 0;
            goto perf;
        }
        ctx->vs_dev->set_bytes(b.out_vs, 0xff, b_out);
        st = side_run(&sv, in0, in1, b.out_vs);
        if (st != CUDNN_STATUS_SUCCESS) {
            side_fail(&sv, st, "the call", theirs);
            vs_ok = 0;
            goto perf;
        }
        ctx->vs_dev->download(got_vs, b.out_vs, b_out);
        if (o->inject_error == 2)
            inject_error(sdt, got_vs, n_out);
        dnb_tol_t vt = tol;
        vt.exact =
            !o->fill_real && !is_transform_algo(dir, so.algo) && !is_transform_algo(dir, sv.algo);
        vt.scale = is_transform_algo(dir, so.algo) || is_transform_algo(dir, sv.algo) ? 10.0 : 1.0;
        const char *vs_against = against;
        if (!have_want) { /* ours is the reference: both may err by one tolerance */
            for (int64_t i = 0; i < n_out; i++)
                want[i] = dnb_load(sdt, got, i);
            vt.scale *= 2.0;
            vs_against = "freednn";
        }
        dnb_compare(&vt, got_vs, want, abs_sum, n_out, &cmp);
        theirs->err_ratio = cmp.worst_ratio, theirs->max_err = cmp.max_err, theirs->bad = cmp.bad;
        if (cmp.bad) {
            theirs->state = DNB_FAILED;
            fail_reason(theirs, &cmp, n_out, vs_against);
        } else if (have_want) {
            theirs->state = cmp.zero_frac > 0.95 ? DNB_MISTRUSTED : DNB_PASSED;
            if (theirs->state == DNB_MISTRUSTED)
                snprintf(theirs->reason, sizeof theirs->reason,
                         "%.1f%% of the reference output is zero", 100.0 * cmp.zero_frac);
        } else {
            theirs->state = DNB_EXECUTED;
            snprintf(theirs->reason, sizeof theirs->reason,
                     "agrees with freednn (worst %.3g of tolerance)", cmp.worst_ratio);
        }
    }

perf:
    /* 6. timing: buffer sets rotated (and the cache flushed when they are few) */
    if ((o->mode & DNB_MODE_PERF) && ours->state != DNB_FAILED) {
        int nsets, flush;
        dnb_cache_plan(o, ctx->dev, b_in0 + b_in1 + b_out, &nsets, &flush);
        while (nsets > 1 && bufs_grow(&b, ctx->dev, nsets, h0, b_in0, h1, b_in1, b_out))
            nsets /= 2, flush = 1;
        so.in0 = b.in0, so.in1 = b.in1, so.out = b.out;
        sv.in0 = b.in0, sv.in1 = b.in1, sv.out = b.out;
        dnb_timed_t calls[2] = {{side_timed_call, &so, ctx->dev, &ours->t, 0, ctx->stream},
                                {side_timed_call, &sv, ctx->vs_dev, &theirs->t, 0, ctx->vs_stream}};
        dnb_measure(o, calls, vs_ok ? 2 : 1, b.nsets < nsets ? b.nsets : nsets, flush);
        if (calls[0].status != CUDNN_STATUS_SUCCESS)
            side_fail(&so, calls[0].status, "a timed call", ours);
        if (vs_ok && calls[1].status != CUDNN_STATUS_SUCCESS)
            side_fail(&sv, calls[1].status, "a timed call", theirs);
    }

done:
    side_release(&so);
    side_release(&sv);
    side_release(&sr);
    if (b.out_vs)
        ctx->vs_dev->release(b.out_vs);
    bufs_free(&b, ctx->dev);
    free(h0), free(h1), free(tmp), free(got), free(got_vs);
    free(m0), free(m1), free(want), free(abs_sum);
}

const dnb_op_t dnb_op_conv = {
    .name = "conv",
    .dirs = conv_dirs,
    .parse = conv_parse,
    .set_batch = conv_set_batch,
    .format = conv_format,
    .flop = conv_flop,
    .option = conv_option,
    .impl = conv_impl,
    .run = conv_run,
};
