/* SPDX-License-Identifier: MIT */
/*
 * memop.h - the driver that dnnbench's memory-bound ops share (op_pool.c, op_act.c,
 * op_softmax.c, op_lrn.c, op_bn.c, op_tensor.c; docs/dnnbench.md "Memory-bound ops").
 *
 * An op describes one (problem, direction) as a list of tensors (inputs, outputs, and in-out
 * tensors such as BN's running statistics or AddTensor's C) and one library call; memop.c does
 * the rest alike for all of them: fills, derived inputs (the forward output that a backward
 * reads), the oracle (our library on a ref handle in DOUBLE), the per-element tolerance of
 * docs/testing.md with the op's own K and sum of magnitudes, the checked call on poisoned
 * outputs with hashed inputs, --vs, and timing rated in GB/s of compulsory traffic.
 */
#ifndef DNNBENCH_MEMOP_H_
#define DNNBENCH_MEMOP_H_

#include "dnnbench.h"

#define DNB_MT_MAX 10

enum { DNB_MT_IN, DNB_MT_OUT, DNB_MT_INOUT };

/* How an input is filled. DEFAULT: --fill=int draws {-2, -1, 1, 2} (no zeros), --fill=real
 * uniform [-1, 1); WIDE: the same, reals doubled ([-2, 2)); POSITIVE: 1 + |DEFAULT| (variances);
 * OP: the op's own fill callback (max pooling's tie-free windows). */
enum { DNB_FILL_DEFAULT, DNB_FILL_WIDE, DNB_FILL_POSITIVE, DNB_FILL_OP };

typedef struct dnb_mt {
    const char *name; /* cuDNN's argument name: "x", "dy", "scale", "save_mean", ... */
    int role;         /* DNB_MT_IN, OUT or INOUT */
    int param;        /* 1: BN's parameter type (DOUBLE for f64 data, else FLOAT) */
    int fill;         /* DNB_FILL_* (inputs) */
    int derived;      /* an input made by the call of spec.derive_dir (matched by name) */
    int linear;       /* abs_oracle: replaced by |value| in the magnitude call */
    int traffic;      /* compulsory: counted in the bytes (INOUT twice) */
    int64_t count;
} dnb_mt_t;

typedef struct dnb_mspec {
    int n;
    dnb_mt_t t[DNB_MT_MAX];
    int primary;    /* the output that MISTRUSTED looks at and --inject-error perturbs */
    int abs_oracle; /* S = the oracle on |linear inputs| (linear or monotone ops) */
    int derive_dir; /* the direction whose outputs are this one's derived inputs, or -1 */
} dnb_mspec_t;

/* Appends a tensor (traffic on, DEFAULT fill); returns its index. */
int dnb_mspec_add(dnb_mspec_t *s, const char *name, int role, int64_t count);

/* One library's view of (problem, direction, data type): the op keeps its descriptors in priv
 * (zeroed before setup, so release can tell what was created). */
typedef struct dnb_mside {
    const dnb_lib_t *lib;
    cudnnHandle_t h;
    const dnb_problem_t *p;
    int dir;
    cudnnDataType_t dt; /* the data type; parameters: dnb_param_dt(dt) */
    int nhwc;
    const dnb_device_t
        *dev; /* where this side's buffers live; NULL: host memory (the ref oracle) */
    _Alignas(8) unsigned char priv[192];
    void *const *bufs; /* timed calls: DNB_MT_MAX pointers per buffer set */
} dnb_mside_t;

/* Arguments of an op's tolerance callback: values by tensor index. */
typedef struct dnb_mtol_args {
    const dnb_problem_t *p;
    int dir, nhwc, fill_real;
    const dnb_mspec_t *s;
    const double *const *in;  /* inputs and the initial values of in-out tensors */
    const double *const *out; /* the reference of outputs and in-out tensors */
    /* NULL at a run's first tolerance call: an op may malloc what its outputs' bounds share
     * (e.g. per-channel sums) and keep it here for the next outputs; the caller frees it */
    void **cache;
} dnb_mtol_args_t;

typedef struct dnb_memop {
    void (*spec)(const dnb_problem_t *p, int dir, dnb_mspec_t *s);
    /* The first function of the table this (problem, direction) needs that lib lacks, or NULL. */
    const char *(*missing)(const dnb_lib_t *lib, const dnb_problem_t *p, int dir);
    /* Descriptors in sd->priv; CUDNN_STATUS_SUCCESS, or the raw status with *what set. */
    cudnnStatus_t (*setup)(dnb_mside_t *sd, const char **what);
    void (*release)(dnb_mside_t *sd);
    /* One call, alpha = 1 and beta = 0 (AddTensor: beta = 1), on buf[tensor index]. */
    cudnnStatus_t (*call)(const dnb_mside_t *sd, void *const *buf);
    /* The tolerance of output t: tol comes with out_dt, acc_dt set, u_in 0, k 1, scale 1,
     * exact 0; the op sets k (and u_in, exact) and, without abs_oracle, S[i] = the sum of the
     * magnitudes that the rounding errors of element i are relative to. */
    void (*tolerance)(const dnb_mtol_args_t *a, int t, double *S, dnb_tol_t *tol);
    /* DNB_FILL_OP: values of elements [i0, i0 + n) of tensor t, stored in tdt. */
    void (*fill)(const dnb_problem_t *p, int dir, int t, int nhwc, int real, cudnnDataType_t tdt,
                 dnb_rng_t *r, int64_t i0, double *v, int64_t n);
    /* Pairs of a src/impls.def op and the direction it serves, NULL-terminated:
     * {"FD_OP_POOL_FWD", "fwd", "FD_OP_POOL_BWD", "bwd", NULL}. */
    const char *const *impl_ops;
} dnb_memop_t;

void dnb_memop_run(const dnb_memop_t *m, const dnb_ctx_t *ctx, const dnb_problem_t *p, int dir,
                   dnb_row_t *row);
double dnb_memop_bytes(const dnb_memop_t *m, const dnb_problem_t *p, int dir, const dnb_dt_t *dt);
/* --impl=NAME against the FD_OP_IMPL rows of the op's directions; "list" prints them (1). */
int dnb_memop_impl(const dnb_memop_t *m, const dnb_op_t *op, const char *name, dnb_opts_t *o,
                   char *err, size_t err_size);

/* ---- helpers for the op files ----------------------------------------------------------- */

cudnnDataType_t dnb_param_dt(cudnnDataType_t dt); /* DOUBLE for DOUBLE, else FLOAT */
const void *dnb_one(cudnnDataType_t dt);          /* scaling factors: double for DOUBLE */
const void *dnb_zero(cudnnDataType_t dt);
/* Creates *d and sets it 4-d in sd's layout and data type. */
cudnnStatus_t dnb_mside_tensor(const dnb_mside_t *sd, cudnnTensorDescriptor_t *d, int64_t n,
                               int64_t c, int64_t h, int64_t w);
void dnb_mside_tensor_release(const dnb_mside_t *sd, cudnnTensorDescriptor_t *d);
/* A workspace of `bytes` (at least 1) where sd's buffers live, for setup to keep in priv; NULL
 * when it cannot be had. Freed with dnb_mside_scratch_free (NULL is ignored). */
void *dnb_mside_scratch(const dnb_mside_t *sd, size_t bytes);
void dnb_mside_scratch_free(const dnb_mside_t *sd, void *ws);

/* Element (n, c, h, w) of a packed NCHW or NHWC tensor. */
static inline int64_t dnb_off4(int nhwc, int64_t C, int64_t H, int64_t W, int64_t n, int64_t c,
                               int64_t h, int64_t w)
{
    return nhwc ? ((n * H + h) * W + w) * C + c : ((n * C + c) * H + h) * W + w;
}

/* Problem text: one compact token of letter-number pairs ("n2c16h28w28k3s2p1"; letters from
 * `letters`, each at most once, into v[] / given[] by position), then key=value fields
 * separated by blanks or commas, each passed to field(); 0, or -1 with err. */
typedef int (*dnb_field_fn)(void *ctx, const char *key, const char *value, char *err,
                            size_t err_size);
int dnb_memop_parse(const char *text, const char *letters, int64_t *v, int *given,
                    dnb_field_fn field, void *ctx, char *err, size_t err_size);
/* Field values: an index of names[] (NULL-terminated), a number in [lo, hi]; 0 or -1 with err. */
int dnb_field_enum(const char *key, const char *value, const char *const *names, int *out,
                   char *err, size_t err_size);
int dnb_field_double(const char *key, const char *value, double lo, double hi, double *out,
                     char *err, size_t err_size);

/* The common form "n2c16h28w28 fields...": n defaults to 1, w to h; c and h are required. */
int dnb_parse_nchw(const char *text, int64_t dims[4], dnb_field_fn field, void *ctx, char *err,
                   size_t err_size);
/* The shortest %g form of v that reads back as v (repro lines must reproduce the value). */
void dnb_fmt_double(char *buf, size_t size, double v);

#endif /* DNNBENCH_MEMOP_H_ */
