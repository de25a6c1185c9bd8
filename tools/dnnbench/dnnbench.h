/* SPDX-License-Identifier: MIT */
/*
 * dnnbench.h - what the driver (dnnbench.c), the library table (lib.c), the measuring and
 * checking helpers (util.c) and the operation files (op_*.c) share (DESIGN D8).
 *
 * An operation is one dnb_op_t: it parses its problems, writes them back in the compact form
 * of the repro lines, counts their FLOPs (and the bytes of a memory-bound op) and runs one
 * (problem, direction) into a dnb_row_t; the memory-bound ops do that through memop.h.
 * Every library call goes through a dnb_lib_t, a table of function pointers typed from our
 * cudnn.h prototypes, so one op file drives our library, the `ref` oracle and a second cuDNN
 * loaded with --vs in its own link-map namespace. Buffers and timers go through a
 * dnb_device_t: host memory and the host clock (ref, cpu), or device memory and CUDA events (cuda,
 * NVIDIA's cuDNN: cuda_device.c), where each library's handle has a stream of its own and
 * --graph replays captured CUDA graphs.
 */
#ifndef DNNBENCH_H_
#define DNNBENCH_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cudnn.h"
#include "freednn.h"

/* ---- the library table ---------------------------------------------------------------- */

/* Every function dnnbench calls. Ops add the functions they need here; a foreign library that
 * lacks one gets NULL, and the op that needs it reports SKIPPED for that library. */
#define DNB_LIB_FUNCS(X)                                                                           \
    X(cudnnGetVersion)                                                                             \
    X(cudnnGetErrorString)                                                                         \
    X(cudnnGetLastErrorString)                                                                     \
    X(cudnnCreate)                                                                                 \
    X(cudnnDestroy)                                                                                \
    X(cudnnSetStream)                                                                              \
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
    X(cudnnConvolutionBackwardFilter)                                                              \
    X(cudnnCreatePoolingDescriptor)                                                                \
    X(cudnnDestroyPoolingDescriptor)                                                               \
    X(cudnnSetPooling2dDescriptor)                                                                 \
    X(cudnnPoolingForward)                                                                         \
    X(cudnnPoolingBackward)                                                                        \
    X(cudnnCreateActivationDescriptor)                                                             \
    X(cudnnDestroyActivationDescriptor)                                                            \
    X(cudnnSetActivationDescriptor)                                                                \
    X(cudnnSetActivationDescriptorSwishBeta)                                                       \
    X(cudnnActivationForward)                                                                      \
    X(cudnnActivationBackward)                                                                     \
    X(cudnnSoftmaxForward)                                                                         \
    X(cudnnSoftmaxBackward)                                                                        \
    X(cudnnCreateLRNDescriptor)                                                                    \
    X(cudnnDestroyLRNDescriptor)                                                                   \
    X(cudnnSetLRNDescriptor)                                                                       \
    X(cudnnLRNCrossChannelForward)                                                                 \
    X(cudnnLRNCrossChannelBackward)                                                                \
    X(cudnnDeriveBNTensorDescriptor)                                                               \
    X(cudnnBatchNormalizationForwardInference)                                                     \
    X(cudnnBatchNormalizationForwardTraining)                                                      \
    X(cudnnBatchNormalizationBackward)                                                             \
    X(cudnnAddTensor)                                                                              \
    X(cudnnCreateOpTensorDescriptor)                                                               \
    X(cudnnDestroyOpTensorDescriptor)                                                              \
    X(cudnnSetOpTensorDescriptor)                                                                  \
    X(cudnnOpTensor)                                                                               \
    X(cudnnTransformTensor)                                                                        \
    X(cudnnCreateReduceTensorDescriptor)                                                           \
    X(cudnnDestroyReduceTensorDescriptor)                                                          \
    X(cudnnSetReduceTensorDescriptor)                                                              \
    X(cudnnGetReductionWorkspaceSize)                                                              \
    X(cudnnReduceTensor)                                                                           \
    X(freednnCreateWithBackend)                                                                    \
    X(freednnGetBackend)                                                                           \
    X(freednnGetVersion)

/* Without these a library cannot be driven at all. */
#define DNB_LIB_REQUIRED(X) X(cudnnGetVersion) X(cudnnGetErrorString) X(cudnnCreate) X(cudnnDestroy)

typedef struct dnb_device dnb_device_t;

typedef struct dnb_lib {
    const char *name; /* "freednn" for the linked library, else the --vs path */
    void *dl;         /* dlmopen/dlopen handle; NULL for the linked library */
    int deepbind;     /* loaded with dlopen(RTLD_DEEPBIND) into the main namespace (lib.c) */
    size_t version;   /* its cudnnGetVersion() */
#define DNB_LIB_FIELD(f) __typeof__(&f) f;
    DNB_LIB_FUNCS(DNB_LIB_FIELD)
#undef DNB_LIB_FIELD
} dnb_lib_t;

/* The library this program is linked with. */
dnb_lib_t *dnb_lib_ours(void);
/* dlmopen(LM_ID_NEWLM, path) and dlsym of every DNB_LIB_FUNCS entry. NULL with err on failure. */
dnb_lib_t *dnb_lib_load(const char *path, char *err, size_t err_size);
void dnb_lib_close(dnb_lib_t *lib);
/* A status of `lib` in our (cuDNN 9) numbering: libraries older than 9 use the 0..14 codes. */
cudnnStatus_t dnb_status(const dnb_lib_t *lib, cudnnStatus_t raw);
int dnb_status_is_not_supported(cudnnStatus_t normalised);
/* "CUDNN_STATUS_X: <cudnnGetLastErrorString>" for a failed call of `lib`. */
void dnb_lib_error(const dnb_lib_t *lib, cudnnStatus_t raw, char *buf, size_t size);
/* A handle on `backend` (-1: the library's default); *backend_out gets the one it runs on
 * (-1 when the library cannot say: NVIDIA's cuDNN, which runs on the GPU). */
cudnnStatus_t dnb_lib_create(const dnb_lib_t *lib, int backend, cudnnHandle_t *h, int *backend_out);

/* ---- devices: where buffers live and how calls are timed -------------------------------- */

struct dnb_device {
    const char *name;
    size_t cache_bytes; /* the last-level cache that cold-cache timing must defeat */
    void *(*alloc)(size_t bytes);
    void (*release)(void *p);
    void (*upload)(void *dst, const void *host_src, size_t bytes);
    void (*download)(void *host_dst, const void *src, size_t bytes);
    void (*set_bytes)(void *dst, int byte, size_t bytes);
    /* Brackets one call: start() before it, stop_ms() after it, returning the elapsed
     * milliseconds once the call's work is complete. Host: the monotonic clock around a
     * synchronous call (stream ignored). CUDA: events on `stream`, the stream of the handle that
     * makes the call (dnb_ctx_t.stream or .vs_stream). */
    void (*start)(void *stream);
    double (*stop_ms)(void *stream);
    /* Devices whose calls return before their work is done (cuda): the host wall time of the
     * last start()..stop_ms() call itself, up to the return, without synchronising: the host
     * overhead per call. NULL on the host device (there it is the timed time). */
    double (*host_ms)(void);
    /* Evicts the device's cache between samples (cuda: a memset of 2 x L2 on `stream`);
     * NULL: util.c reads a host buffer. */
    void (*flush)(size_t bytes, void *stream);
    /* cuda only (NULL on the host device): */
    void *(*stream_create)(char *why, size_t why_size); /* a blocking stream, NULL on failure */
    void (*stream_destroy)(void *stream);
    void (*sync)(void); /* waits for all work of the device: nothing is in flight afterwards */
    /* CUDA graphs (--graph): capture begins on `stream` (0, or -1 with why); graph_end ends it
     * and instantiates what was captured when ok (the executable graph, NULL with why);
     * graph_launch_ms times one launch with events on `stream`. */
    int (*graph_begin)(void *stream, char *why, size_t why_size);
    void *(*graph_end)(void *stream, int ok, char *why, size_t why_size);
    double (*graph_launch_ms)(void *exec, void *stream);
    void (*graph_destroy)(void *exec);
};

/* The device of a backend: ref and cpu use host memory; cuda (and -1: a library that is not
 * freednn, NVIDIA's cuDNN) the cuda device of cuda_device.c, NULL with why when the CUDA runtime
 * cannot be loaded or sees no GPU. */
const dnb_device_t *dnb_device_for(int backend, char *why, size_t why_size);

/* ---- options -------------------------------------------------------------------------- */

enum { DNB_MODE_CORR = 1, DNB_MODE_PERF = 2, DNB_MODE_BOTH = 3 };
enum { DNB_ALGO_HEUR = -1, DNB_ALGO_FIND = -2 };
/* --ref: auto: ref on the host up to --ref-max-gflop, above it (cuda backend, conv) the naive
 * GPU implementation; host: ref only (nothing checked above the limit); gpu: the naive GPU
 * implementation for every problem (cuda backend, conv). */
enum { DNB_REF_AUTO, DNB_REF_HOST, DNB_REF_GPU };

typedef struct dnb_dt {
    const char *name;        /* --dt value */
    cudnnDataType_t storage; /* x, w, y */
    cudnnDataType_t compute; /* accumulation type */
    double u_in;             /* rounding of the inputs inside the algorithm (tf32: 2^-11) */
    cudnnMathType_t math;    /* the math type PyTorch sets for it (--math overrides) */
} dnb_dt_t;

typedef struct dnb_opts {
    const struct dnb_op *op;
    const char *dir; /* a direction name of the op, "all", or NULL: the op's first */
    const dnb_dt_t *dt;
    int nhwc;         /* --layout=nhwc */
    int algo;         /* >= 0, DNB_ALGO_HEUR or DNB_ALGO_FIND */
    const char *impl; /* --impl=NAME, or NULL */
    int backend;      /* FREEDNN_BACKEND_*, or -1: the library's default */
    int backend_given;
    int mode;
    int64_t n; /* --n: batch override, 0 = the problem's */
    int iters, warmup, iters_given;
    double max_ms;        /* per problem and library: stop sampling past this */
    int cache_hot;        /* --cache=hot: one buffer set, no flush */
    size_t cold_bytes;    /* cap of the cold-cache footprint */
    int fill_real;        /* --fill=real: uniform [-1, 1) instead of small integers */
    double ref_max_gflop; /* above this many GFLOP per call ref is too slow: see ref_kind */
    double vs_check_max_gflop; /* --mode=perf with --vs: agreement checked up to this size */
    int ref_kind;         /* DNB_REF_AUTO, _HOST or _GPU (--ref) */
    int graph;            /* --graph[=CALLS]: calls per captured CUDA graph, 0 off */
    int host_burst;       /* --host-burst[=CALLS]: host_ms over bursts of CALLS calls, 0 off */
    int inject_error;     /* test hook: perturb one output element after the library call:
                           * 1 ours, 2 the --vs library's; 3 (memory-bound ops) one bit of
                           * our call's first input, on the device */
    int verbose;
    const char *vs, *csv, *plot;
    char op_opts[256]; /* options the op consumed, as they go into repro lines */
} dnb_opts_t;

const dnb_dt_t *dnb_dt_find(const char *name);

/* ---- problems, rows, the op interface ---------------------------------------------------- */

#define DNB_PROBLEM_BYTES 256
typedef struct dnb_problem {
    _Alignas(8) unsigned char data[DNB_PROBLEM_BYTES]; /* the op's own struct */
    char tag[128];                                     /* shape-file comment, or "" */
    char source[160];                                  /* "file:line" or "argv" */
} dnb_problem_t;

typedef enum {
    DNB_PASSED,
    DNB_FAILED,
    DNB_SKIPPED,
    DNB_MISTRUSTED,
    DNB_EXECUTED, /* perf mode: ran, correctness not checked */
    DNB_STATE_COUNT
} dnb_state_t;
const char *dnb_state_name(dnb_state_t s);

typedef struct dnb_timing {
    int samples; /* 0: not timed */
    double med_ms, min_ms;
    double host_med_ms; /* median host time per call (devices with host_ms); < 0 unknown */
    /* --graph: calls per captured graph (0: not graphed), the median graph time per call, and
     * why there is none (capture failed: the call is not capturable; plain launches only) */
    int graph_calls, graph_samples;
    double graph_ms;
    char graph_note[200];
} dnb_timing_t;

/* One library's result on one (problem, direction). */
typedef struct dnb_side_result {
    int ran; /* 1 once the library was asked */
    dnb_state_t state;
    char reason[512];
    int algo; /* the algorithm enum value used, -1 if none */
    size_t workspace;
    double err_ratio; /* worst |got - want| / tolerance; 0 when all exact; -1 not checked */
    double max_err;   /* worst |got - want| */
    int64_t bad;      /* elements out of tolerance */
    dnb_timing_t t;
} dnb_side_result_t;

typedef struct dnb_row {
    int index;
    const char *op;
    char dir[16];
    char problem[160]; /* compact form */
    char tag[128];
    double flop;        /* per call */
    double bytes;       /* compulsory traffic per call (memory-bound ops); 0: rated in GFLOP/s */
    double zero_frac;   /* of the reference output; -1 not known */
    char reference[24]; /* what ours was checked against: "ref", "gpu-naive", or "" */
    dnb_side_result_t ours, theirs;
    int has_vs;
    char repro[1024];
} dnb_row_t;

typedef struct dnb_ctx {
    const dnb_opts_t *o;
    dnb_lib_t *lib; /* ours */
    cudnnHandle_t h;
    int backend; /* what h runs on */
    const dnb_device_t *dev;
    cudnnHandle_t h_ref; /* ours on ref: the oracle */
    dnb_lib_t *vs;       /* --vs, or NULL */
    cudnnHandle_t h_vs;
    int vs_backend;
    const dnb_device_t *vs_dev;
    void *stream, *vs_stream; /* cuda: the created stream of h and of h_vs (NULL on the host) */
    const char *no_gpu;       /* --backend=cuda without a usable GPU: why; rows are SKIPPED */
} dnb_ctx_t;

typedef struct dnb_op {
    const char *name;
    const char *const *dirs; /* NULL-terminated; dirs[0] is the default */
    /* A shape-file line (without its comment) or a compact form; 0, or -1 with err. */
    int (*parse)(const char *text, dnb_problem_t *p, char *err, size_t err_size);
    void (*set_batch)(dnb_problem_t *p, int64_t n);
    void (*format)(const dnb_problem_t *p, char *buf, size_t size); /* the compact form */
    double (*flop)(const dnb_problem_t *p, int dir);
    /* Memory-bound ops: the bytes every implementation must read and write once (its rows show
     * MB and GB/s instead of GFLOP and GFLOP/s); NULL for compute-bound ops (conv). */
    double (*bytes)(const dnb_problem_t *p, int dir, const dnb_dt_t *dt);
    /* Options of this op (--math=..., ...): 1 consumed, 0 not its option, -1 bad value. */
    int (*option)(const char *arg, char *err, size_t err_size);
    /* Resolves --impl=NAME against src/impls.def; 0, or -1 with err. "list" prints the rows. */
    int (*impl)(const char *name, dnb_opts_t *o, char *err, size_t err_size);
    void (*run)(const dnb_ctx_t *ctx, const dnb_problem_t *p, int dir, dnb_row_t *row);
} dnb_op_t;

extern const dnb_op_t dnb_op_conv;
extern const dnb_op_t dnb_op_pool, dnb_op_act, dnb_op_softmax, dnb_op_lrn, dnb_op_bn, dnb_op_tensor;

/* ---- helpers (util.c) ----------------------------------------------------------------------- */

double dnb_now_ms(void);
size_t dnb_dt_size(cudnnDataType_t dt);
const char *dnb_dt_short(cudnnDataType_t dt);
/* Element loops of at least this many elements run in OpenMP threads (the host side of a
 * 100 M-element GPU run: conversions, bounds, the comparison). */
#define DNB_PAR_MIN ((int64_t)1 << 18)
void dnb_store(cudnnDataType_t dt, void *base, int64_t i, double v);
double dnb_load(cudnnDataType_t dt, const void *base, int64_t i);
double dnb_round(cudnnDataType_t dt, double v); /* the value dt stores for v */
double dnb_unit_roundoff(cudnnDataType_t dt);   /* 0 for integer types */
/* Largest magnitude below which every integer sum of terms is exact in dt. */
double dnb_exact_limit(cudnnDataType_t dt);

/* splitmix64: each draw adds DNB_RNG_STEP to s, so the state after k draws is s + k step
 * (fill_tensor's chunks start there, in parallel, with the values of one sequential walk). */
typedef struct {
    uint64_t s;
} dnb_rng_t;
#define DNB_RNG_STEP 0x9e3779b97f4a7c15ull
uint64_t dnb_hash(const void *p, size_t n, uint64_t h);
uint64_t dnb_hash_bulk(const void *p, size_t n, uint64_t h); /* fast, for whole tensors */
uint64_t dnb_hash_str(const char *s);
/* Integers from {-2, -1, 1, 2} with probability `density`, else 0. */
void dnb_fill_int(dnb_rng_t *r, double *v, int64_t n, double density);
/* Uniform reals in [-1, 1), already rounded to dt. */
void dnb_fill_real(dnb_rng_t *r, double *v, int64_t n, cudnnDataType_t dt);

/* The tolerance of docs/testing.md:
 *   |got - want| <= scale (c (2 u_in + K u_acc) abs_sum + u_out |want| + tiny), c = 2,
 * exact (0) where `exact` allows it and abs_sum is below the exact limit of both types. */
typedef struct dnb_tol {
    cudnnDataType_t out_dt, acc_dt;
    double u_in;
    int64_t k;    /* accumulation length */
    double scale; /* 1; 10 for transform algorithms (FFT, Winograd); x2 library vs library */
    int exact;    /* integer fills and a direct algorithm */
} dnb_tol_t;
typedef struct dnb_cmp {
    double max_err, worst_ratio, zero_frac;
    int64_t bad, first_bad;
    double first_got, first_want, first_tol;
    int all_exact; /* every element was held to exactness */
} dnb_cmp_t;
/* got: n elements of tol->out_dt (host); want, abs_sum: doubles. */
void dnb_compare(const dnb_tol_t *tol, const void *got, const double *want, const double *abs_sum,
                 int64_t n, dnb_cmp_t *res);

/* Timing: each call is timed with the device's start/stop; before each sample the caller's
 * `prepare` rotates buffer sets or flushes the cache. Calls are interleaved sample by sample
 * so that clock drift hits all of them alike. */
typedef struct dnb_timed {
    cudnnStatus_t (*call)(void *arg, int set); /* one library call on buffer set `set` */
    void *arg;
    const dnb_device_t *dev;
    dnb_timing_t *out;
    cudnnStatus_t status; /* the first failure, if any */
    void *stream;         /* the stream the call's handle launches on (cuda), else NULL */
} dnb_timed_t;
/* nsets buffer sets to rotate; flush: write a cache-sized buffer before each sample. With
 * --graph on a device that has graphs, each call is then also captured (--graph calls, fewer
 * for long calls, rotating the sets) into a CUDA graph whose launches are timed. */
void dnb_measure(const dnb_opts_t *o, dnb_timed_t *calls, int ncalls, int nsets, int flush);
/* How many buffer sets of set_bytes to rotate, and whether to flush as well. */
void dnb_cache_plan(const dnb_opts_t *o, const dnb_device_t *dev, size_t set_bytes, int *nsets,
                    int *flush);

/* The cuda device (cuda_device.c): libcudart loaded with dlopen on first use, so that dnnbench
 * builds and runs without the CUDA toolkit. NULL with why when it cannot be had. */
const dnb_device_t *dnb_cuda_device(char *why, size_t why_size);

#endif /* DNNBENCH_H_ */
